--
-- Index rows that a trigger of the same transaction wrote out of step, and
-- must be checked against the base table rather than trusted (the sequel of
-- sync_order):
--  1. a user's AFTER UPDATE trigger (row or statement level, firing before
--     adjlist's) that deletes the updated row and inserts its old version
--     again: the index row then looks like the outer statement's old row,
--     and an in-place rewrite must not take that as proof;
--  2. two ON UPDATE CASCADE foreign keys that update one base row twice in
--     one query: one trigger call writes one index row twice (the executor
--     path must see and lock its own row);
--  3. a DEFERRABLE primary key (the index is then a multiset): the same
--     out-of-step rules, with no unique violation that the base would not
--     raise.
-- Each index is checked by verify_inverted_index (counters included) and by
-- comparing the index table with what the base table holds.
--
CREATE SCHEMA rc;
SET search_path = rc, public;

-- every index of a table: verify_inverted_index's rows, and the index table
-- against its base table (rows of the base the predicate keeps, as a
-- multiset, over the index's columns but the write-sharded partition key)
CREATE FUNCTION pg_temp.check(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	ix record;
	cols text;
	d text;
	diff bigint;
	out text := '';
BEGIN
	FOR ix IN SELECT i.indexrel, i.predicate, i.write_shards, i.columns
			  FROM adjlist_inverted_indexes i WHERE i.baserel = tbl ORDER BY i.indexrel::text LOOP
		SELECT string_agg(v.problem || ' ' || v.key::text, '; ' ORDER BY v.problem, v.key::text)
		INTO d FROM verify_inverted_index(ix.indexrel) v;
		SELECT string_agg(quote_ident(c), ', ') INTO cols
		FROM unnest(ix.columns) WITH ORDINALITY AS u(c, n) WHERE n > 1 OR coalesce(ix.write_shards, 0) = 0;
		EXECUTE format('SELECT count(*) FROM ((SELECT %1$s FROM %2$s WHERE %4$s EXCEPT ALL SELECT %1$s FROM %3$s)
						UNION ALL (SELECT %1$s FROM %3$s EXCEPT ALL SELECT %1$s FROM %2$s WHERE %4$s)) x',
					   cols, tbl, ix.indexrel, coalesce(ix.predicate, 'true'))
		INTO diff;
		out := out || ix.indexrel::text || ': ' || coalesce(d, 'exact') ||
			CASE WHEN diff = 0 THEN ', same rows' ELSE ', ' || diff || ' rows differ' END || E'\n';
	END LOOP;
	RETURN rtrim(out, E'\n');
END $$;

-- a table and its indexes: a projection (the executor path, or SQL under a
-- deferrable key), a partitioned index table (SQL), a sparse one with
-- counters, and a write-sharded one
CREATE FUNCTION pg_temp.make(tbl text, key text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (pk adjkey, sk adjkey, w int, tag text, PRIMARY KEY (pk, sk) %s)',
				   tbl, key);
	PERFORM create_inverted_index(tbl, include => '{w}');
	PERFORM create_inverted_index(tbl, index_name => tbl || '_parted', include => '{w,tag}',
								  partitions => 2);
	PERFORM create_inverted_index(tbl, index_name => tbl || '_sparse', include => '{w}',
								  predicate => 'tag IS NOT NULL', counters => 1);
	PERFORM create_inverted_index(tbl, index_name => tbl || '_sharded', include => '{w}',
								  write_shards => 4);
	EXECUTE format($q$INSERT INTO %I VALUES ('USER#a', 'FOLLOWS#USER#b', 6, 'x'),
		('USER#a', 'FOLLOWS#USER#c', 6, NULL), ('USER#b', 'FOLLOWS#USER#c', 1, 'y')$q$, tbl);
END $$;
CREATE FUNCTION pg_temp.rows(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format($q$SELECT string_agg(concat_ws(' ', pk, sk, w, tag), ', ' ORDER BY pk, sk) FROM %s$q$, tbl)
	INTO r;
	RETURN r;
END $$;

-- 1. "5 is not allowed": an AFTER UPDATE trigger deletes the row and puts
--    its old version back, as a row trigger or as a statement trigger over
--    transition tables named to fire before adjlist_sync_upd
SELECT pg_temp.make('r_row', ''), pg_temp.make('r_stmt', ''),
	   pg_temp.make('r_row_d', 'DEFERRABLE'), pg_temp.make('r_stmt_d', 'DEFERRABLE');
CREATE FUNCTION pg_temp.undo_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.w = 5 THEN
		EXECUTE format('DELETE FROM %s WHERE pk = $1 AND sk = $2', TG_RELID::regclass) USING NEW.pk, NEW.sk;
		EXECUTE format('INSERT INTO %s SELECT ($1).*', TG_RELID::regclass) USING OLD;
	END IF;
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.undo_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DELETE FROM %s t USING newt n WHERE n.w = 5 AND t.pk = n.pk AND t.sk = n.sk',
				   TG_RELID::regclass);
	EXECUTE format('INSERT INTO %s SELECT o.* FROM oldt o JOIN newt n USING (pk, sk) WHERE n.w = 5',
				   TG_RELID::regclass);
	RETURN NULL;
END $$;
CREATE TRIGGER undo AFTER UPDATE ON r_row FOR EACH ROW EXECUTE FUNCTION pg_temp.undo_row();
CREATE TRIGGER undo AFTER UPDATE ON r_row_d FOR EACH ROW EXECUTE FUNCTION pg_temp.undo_row();
CREATE TRIGGER a_undo AFTER UPDATE ON r_stmt REFERENCING OLD TABLE AS oldt NEW TABLE AS newt
	FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.undo_stmt();
CREATE TRIGGER a_undo AFTER UPDATE ON r_stmt_d REFERENCING OLD TABLE AS oldt NEW TABLE AS newt
	FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.undo_stmt();
-- (the user's statement trigger fires first: triggers fire by name)
SELECT tgname FROM pg_trigger WHERE tgrelid = 'r_stmt'::regclass AND tgname LIKE '%upd%' OR
	   tgrelid = 'r_stmt'::regclass AND tgname = 'a_undo' ORDER BY tgname;
CREATE TEMP TABLE undo_tables (t regclass);
INSERT INTO undo_tables VALUES ('r_row'), ('r_stmt'), ('r_row_d'), ('r_stmt_d');
-- (each table's statement on its own: \gexec)

-- 1a. projections only: undone on every row
SELECT format($$UPDATE %s SET w = 5 WHERE pk = 'USER#a'$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT t, pg_temp.rows(t) FROM undo_tables ORDER BY t::text;
SELECT t, pg_temp.check(t) FROM undo_tables ORDER BY t::text;
-- 1b. out of the sparse index and back
SELECT format($$UPDATE %s SET w = 5, tag = NULL WHERE sk = 'FOLLOWS#USER#b'$$, t) FROM undo_tables ORDER BY t::text \gexec
-- 1c. into the sparse index and back
SELECT format($$UPDATE %s SET w = 5, tag = 'z' WHERE pk = 'USER#a' AND sk = 'FOLLOWS#USER#c'$$, t) FROM undo_tables ORDER BY t::text \gexec
-- 1d. some rows undone, some kept
SELECT format($$UPDATE %s SET w = w + 4$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT t, pg_temp.rows(t) FROM undo_tables ORDER BY t::text;
SELECT t, pg_temp.check(t) FROM undo_tables ORDER BY t::text;
-- 1e. in one transaction: a new row updated (undone), then updated again
--     (kept), and a key the transaction deleted and put back
BEGIN;
SELECT format($$INSERT INTO %s VALUES ('USER#c', 'FOLLOWS#USER#a', 2, 'n')$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s SET w = 5 WHERE pk = 'USER#c'$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s SET w = 7, tag = NULL WHERE pk = 'USER#c'$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s SET w = 8 WHERE pk = 'USER#c'$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$DELETE FROM %s WHERE pk = 'USER#b'$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$INSERT INTO %s VALUES ('USER#b', 'FOLLOWS#USER#c', 9, 'y')$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s SET w = 5 WHERE pk = 'USER#b'$$, t) FROM undo_tables ORDER BY t::text \gexec
COMMIT;
SELECT t, pg_temp.rows(t) FROM undo_tables ORDER BY t::text;
SELECT t, pg_temp.check(t) FROM undo_tables ORDER BY t::text;
SELECT t, edge_count(t::text || '_sparse', 'USER#a', 'FOLLOWS', 'in') AS a_in,
	   edge_count(t::text || '_sparse', 'USER#b', 'FOLLOWS', 'out') AS b_out
FROM undo_tables ORDER BY t::text;

-- 2. an AFTER UPDATE trigger that updates the row it fired for again
--    (w above 4 is clamped to 4)
SELECT pg_temp.make('c_plain', ''), pg_temp.make('c_d', 'DEFERRABLE');
CREATE FUNCTION pg_temp.clamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.w > 4 THEN
		EXECUTE format('UPDATE %s SET w = 4 WHERE pk = $1 AND sk = $2', TG_RELID::regclass)
		USING NEW.pk, NEW.sk;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER clamp AFTER UPDATE ON c_plain FOR EACH ROW EXECUTE FUNCTION pg_temp.clamp();
CREATE TRIGGER clamp AFTER UPDATE ON c_d FOR EACH ROW EXECUTE FUNCTION pg_temp.clamp();
DELETE FROM undo_tables;
INSERT INTO undo_tables VALUES ('c_plain'), ('c_d');
SELECT format($$UPDATE %s SET w = 5$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s SET w = w - 1, tag = 'q' WHERE sk = 'FOLLOWS#USER#c'$$, t) FROM undo_tables ORDER BY t::text \gexec
BEGIN;
SELECT format($$UPDATE %s SET w = 9, tag = NULL WHERE pk = 'USER#a'$$, t) FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s SET w = 10, tag = 't' WHERE pk = 'USER#a'$$, t) FROM undo_tables ORDER BY t::text \gexec
COMMIT;
SELECT t, pg_temp.rows(t) FROM undo_tables ORDER BY t::text;
SELECT t, pg_temp.check(t) FROM undo_tables ORDER BY t::text;

-- 3. two ON UPDATE CASCADE foreign keys update one row twice in one query;
--    the index projects both columns
--    (each table has a parent table of its own: h_par, h_d_par)
CREATE FUNCTION pg_temp.make_fk(tbl text, key text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id adjkey PRIMARY KEY, id2 adjkey UNIQUE)', tbl || '_par');
	EXECUTE format($q$INSERT INTO %I VALUES ('X#1', 'Y#1'), ('X#5', 'Y#5')$q$, tbl || '_par');
	EXECUTE format('CREATE TABLE %I (pk adjkey, sk adjkey, a adjkey REFERENCES %I (id) ON UPDATE CASCADE,
		b adjkey REFERENCES %I (id2) ON UPDATE CASCADE, PRIMARY KEY (pk, sk) %s)',
		tbl, tbl || '_par', tbl || '_par', key);
	PERFORM create_inverted_index(tbl, include => '{a,b}');
	-- (alone, the executor path's index: another's SQL statements would
	-- advance the command counter between its writes)
	IF tbl <> 'h_alone' THEN
		PERFORM create_inverted_index(tbl, index_name => tbl || '_parted', include => '{a,b}',
									  partitions => 2);
		PERFORM create_inverted_index(tbl, index_name => tbl || '_sparse', include => '{b}',
									  predicate => $p$a <> 'X#3'$p$, counters => 1);
	END IF;
	EXECUTE format($q$INSERT INTO %I VALUES ('USER#a', 'FOLLOWS#USER#b', 'X#1', 'Y#1'),
		('USER#a', 'FOLLOWS#USER#c', 'X#1', 'Y#1'), ('USER#b', 'FOLLOWS#USER#c', 'X#5', 'Y#5')$q$, tbl);
END $$;
SELECT pg_temp.make_fk('h_alone', ''), pg_temp.make_fk('h', ''), pg_temp.make_fk('h_d', 'DEFERRABLE');
DELETE FROM undo_tables;
INSERT INTO undo_tables VALUES ('h_alone'), ('h'), ('h_d');
CREATE FUNCTION pg_temp.rows_fk(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format($q$SELECT string_agg(concat_ws(' ', pk, sk, a, b), ', ' ORDER BY pk, sk) FROM %s$q$, tbl)
	INTO r;
	RETURN r;
END $$;
SELECT format($$UPDATE %s_par SET id = 'X#2', id2 = 'Y#2' WHERE id = 'X#1'$$, t)
FROM undo_tables ORDER BY t::text \gexec
SELECT t, pg_temp.rows_fk(t), pg_temp.check(t) FROM undo_tables ORDER BY t::text;
-- twice in one transaction, into the sparse index's gap and out of it
BEGIN;
SELECT format($$UPDATE %s_par SET id = 'X#3', id2 = 'Y#3' WHERE id = 'X#2'$$, t)
FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s_par SET id = 'X#4', id2 = 'Y#4' WHERE id = 'X#3'$$, t)
FROM undo_tables ORDER BY t::text \gexec
SELECT format($$UPDATE %s_par SET id = 'X#3', id2 = 'Y#6' WHERE id = 'X#5'$$, t)
FROM undo_tables ORDER BY t::text \gexec
COMMIT;
SELECT t, pg_temp.rows_fk(t), pg_temp.check(t) FROM undo_tables ORDER BY t::text;

RESET search_path;
DROP SCHEMA rc CASCADE;

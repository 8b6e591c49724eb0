--
-- Statements whose index triggers fire out of step with their rows: a
-- user's AFTER ROW trigger that changes or deletes the row it fired for
-- (its statement's trigger fires before the outer statement's, which still
-- holds the row's first version), and foreign-key cascades that update one
-- row twice in one query (one transition table holds the version between
-- them as an old and as a new row).  Each index must end exactly as its
-- base table, counters included, on every write path: a plain index table
-- (direct), one that projects columns, a partitioned one (SQL), with
-- counters, and several on one table.
--
CREATE TABLE so_nodes (id adjkey PRIMARY KEY);
INSERT INTO so_nodes VALUES ('USER#1'), ('USER#2'), ('USER#3');

-- every index of a table checked: verify_inverted_index's rows, and each
-- counter against a count of the base table
CREATE FUNCTION pg_temp.drift(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	ix regclass;
	d text;
	out text := '';
BEGIN
	FOR ix IN SELECT indexrel FROM adjlist_inverted_indexes WHERE baserel = tbl ORDER BY indexrel::text LOOP
		SELECT string_agg(v.problem || ' ' || v.key::text, '; ' ORDER BY v.problem, v.key::text)
		INTO d FROM verify_inverted_index(ix) v;
		out := out || ix::text || ': ' || coalesce(d, 'exact') || E'\n';
	END LOOP;
	RETURN rtrim(out, E'\n');
END $$;

-- a table's rows, as text
CREATE FUNCTION pg_temp.base(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format($q$SELECT string_agg(concat_ws(' ', pk, sk, tgt, data), ', ' ORDER BY pk, sk) FROM %s$q$, tbl)
	INTO r;
	RETURN r;
END $$;

-- the tables: pk and tgt reference so_nodes with ON UPDATE CASCADE
CREATE FUNCTION pg_temp.make(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (pk adjkey REFERENCES so_nodes ON UPDATE CASCADE, sk adjkey,
		tgt adjkey REFERENCES so_nodes ON UPDATE CASCADE, data jsonb, PRIMARY KEY (pk, sk))', tbl);
END $$;
SELECT pg_temp.make('so_plain'), pg_temp.make('so_projected'), pg_temp.make('so_parted'),
	   pg_temp.make('so_several');
SELECT create_inverted_index('so_plain', counters => 1);
SELECT create_inverted_index('so_projected', include => '{tgt,data}', counters => 1);
SELECT create_inverted_index('so_parted', include => '{tgt,data}', partitions => 2, counters => 1);
SELECT create_inverted_index('so_several', include => '{data}', counters => 1);
SELECT create_inverted_index('so_several', index_name => 'so_several_by_tgt', partition_key => 'tgt',
							 sort_key => 'pk', include => '{data}');
SELECT create_inverted_index('so_several', index_name => 'so_several_by_tgt_p', partition_key => 'tgt',
							 sort_key => 'pk', partitions => 2);
CREATE TEMP TABLE tables (t regclass);
INSERT INTO tables VALUES ('so_plain'), ('so_projected'), ('so_parted'), ('so_several');

-- user triggers: normalize a TMP# sort key by updating the row; delete an
-- ephemeral row; bump a version in the data of an updated row
CREATE FUNCTION pg_temp.normalize() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.sk::text LIKE 'TMP#%' THEN
		EXECUTE format('UPDATE %s SET sk = $1 WHERE pk = $2 AND sk = $3', TG_RELID::regclass)
		USING ('FOLLOWS#' || substr(NEW.sk::text, 5))::adjkey, NEW.pk, NEW.sk;
	END IF;
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.ephemeral() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.data ? 'ephemeral' THEN
		EXECUTE format('DELETE FROM %s WHERE pk = $1 AND sk = $2', TG_RELID::regclass)
		USING NEW.pk, NEW.sk;
	END IF;
	RETURN NULL;
END $$;
CREATE FUNCTION pg_temp.bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.data ? 'v' AND NOT NEW.data ? 'bumped' THEN
		EXECUTE format('UPDATE %s SET data = data || ''{"bumped": true}'' WHERE pk = $1 AND sk = $2',
					   TG_RELID::regclass)
		USING NEW.pk, NEW.sk;
	END IF;
	RETURN NULL;
END $$;
DO $$
DECLARE
	t regclass;
BEGIN
	FOR t IN SELECT tables.t FROM tables LOOP
		EXECUTE format('CREATE TRIGGER normalize AFTER INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION pg_temp.normalize()', t);
		EXECUTE format('CREATE TRIGGER ephemeral AFTER INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION pg_temp.ephemeral()', t);
		EXECUTE format('CREATE TRIGGER bump AFTER UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION pg_temp.bump()', t);
	END LOOP;
END $$;

-- 1. an inserted row whose sort key a trigger rewrites
DO $$
DECLARE
	t regclass;
BEGIN
	FOR t IN SELECT tables.t FROM tables LOOP
		EXECUTE format($q$INSERT INTO %s VALUES ('USER#1', 'TMP#USER#2', 'USER#2', '{"w": 1}'),
			('USER#2', 'FOLLOWS#USER#3', 'USER#3', NULL)$q$, t);
	END LOOP;
END $$;
SELECT t, (SELECT count(*) FROM reverse_neighbors(t, 'USER#2', 'TMP#')) AS tmp_edges,
	   (SELECT count(*) FROM reverse_neighbors(t, 'USER#2', 'FOLLOWS#')) AS follows_edges,
	   pg_temp.drift(t) FROM tables ORDER BY t::text;

-- 2. an inserted row a trigger deletes, and an update a trigger undoes by
--    deleting the row
DO $$
DECLARE
	t regclass;
BEGIN
	FOR t IN SELECT tables.t FROM tables LOOP
		EXECUTE format($q$INSERT INTO %s VALUES ('USER#3', 'FOLLOWS#USER#1', 'USER#1', '{"ephemeral": 1}')$q$, t);
		EXECUTE format($q$UPDATE %s SET data = '{"ephemeral": 2}' WHERE pk = 'USER#2'$q$, t);
	END LOOP;
END $$;
SELECT t, pg_temp.base(t), pg_temp.drift(t) FROM tables ORDER BY t::text;

-- 3. an update of projected data that a trigger updates again
DO $$
DECLARE
	t regclass;
BEGIN
	FOR t IN SELECT tables.t FROM tables LOOP
		EXECUTE format($q$UPDATE %s SET data = '{"v": 1}' WHERE pk = 'USER#1'$q$, t);
	END LOOP;
END $$;
SELECT t, (SELECT data FROM reverse_neighbors(t, 'USER#2', 'FOLLOWS#')) AS data_through_index,
	   pg_temp.drift(t) FROM tables ORDER BY t::text;

-- 4. a node renamed: two cascades update each edge of it twice in one query
INSERT INTO so_plain VALUES ('USER#3', 'FOLLOWS#USER#3', 'USER#3', NULL);
INSERT INTO so_projected VALUES ('USER#3', 'FOLLOWS#USER#3', 'USER#3', NULL);
INSERT INTO so_parted VALUES ('USER#3', 'FOLLOWS#USER#3', 'USER#3', NULL);
INSERT INTO so_several VALUES ('USER#3', 'FOLLOWS#USER#3', 'USER#3', NULL);
UPDATE so_nodes SET id = 'USER#9' WHERE id = 'USER#3';
SELECT t, pg_temp.base(t), pg_temp.drift(t) FROM tables ORDER BY t::text;
SELECT pk, tgt FROM so_several_by_tgt ORDER BY 1, 2;
SELECT edge_count('so_plain_inverted', 'USER#3', 'FOLLOWS', 'in') AS in_3,
	   edge_count('so_plain_inverted', 'USER#9', 'FOLLOWS', 'out') AS out_9,
	   edge_count('so_plain_inverted', 'USER#3', 'FOLLOWS', 'out') AS out_3;

-- 5. the same in one transaction, rolled back to a savepoint in between
BEGIN;
INSERT INTO so_plain VALUES ('USER#2', 'TMP#USER#1', 'USER#1', NULL);
SAVEPOINT s;
INSERT INTO so_plain VALUES ('USER#1', 'FOLLOWS#USER#1', 'USER#1', '{"ephemeral": 3}');
ROLLBACK TO s;
UPDATE so_nodes SET id = 'USER#8' WHERE id = 'USER#9';
COMMIT;
SELECT pg_temp.drift('so_plain');

-- 6. stored generated columns of rows routed through a partitioned table
-- into a partition whose columns are numbered otherwise (a dropped
-- column): PostgreSQL puts the row in the transition table as given, its
-- generated columns null; the index (keyed by one, projecting another)
-- must hold the values the partition stored, for INSERT, COPY, MERGE and
-- INSERT ... SELECT, and on a partition with the columns in order too
CREATE TABLE so_gen (pk adjkey, sk adjkey,
	gk adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'FOLLOWS#' THEN sk END) STORED,
	n int GENERATED ALWAYS AS (length(sk::text)) STORED,
	PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE so_gen_c (x int, pk adjkey NOT NULL, sk adjkey NOT NULL,
	gk adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'FOLLOWS#' THEN sk END) STORED,
	n int GENERATED ALWAYS AS (length(sk::text)) STORED);
ALTER TABLE so_gen_c DROP COLUMN x;
ALTER TABLE so_gen ATTACH PARTITION so_gen_c FOR VALUES IN ('USER#c');
CREATE TABLE so_gen_d PARTITION OF so_gen FOR VALUES IN ('USER#d');
SELECT create_inverted_index('so_gen', index_name => 'so_gen_gk', partition_key => 'gk', counters => 1);
SELECT create_inverted_index('so_gen', index_name => 'so_gen_n', include => '{n}');
INSERT INTO so_gen (pk, sk) VALUES ('USER#c', 'FOLLOWS#USER#x'), ('USER#d', 'FOLLOWS#USER#x'),
	('USER#c', 'LIKES#POST#1');
COPY so_gen (pk, sk) FROM stdin;
USER#c	FOLLOWS#USER#z
\.
MERGE INTO so_gen g USING (VALUES ('USER#c'::adjkey, 'FOLLOWS#USER#m'::adjkey)) v(pk, sk)
	ON g.pk = v.pk AND g.sk = v.sk WHEN NOT MATCHED THEN INSERT (pk, sk) VALUES (v.pk, v.sk);
INSERT INTO so_gen (pk, sk) SELECT 'USER#c', 'FOLLOWS#USER#' || i FROM generate_series(1, 3) i;
SELECT pg_temp.drift('so_gen');
SELECT pk, sk, n FROM so_gen_n ORDER BY pk, sk;

DROP TABLE so_plain, so_projected, so_parted, so_several;
DROP TABLE so_gen;
DROP TABLE so_nodes;

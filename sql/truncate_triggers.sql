--
-- TRUNCATE and deferred keys against users' triggers and SET CONSTRAINTS:
--  1. SET CONSTRAINTS naming the base table's DEFERRABLE INITIALLY
--     IMMEDIATE key defers only that key; the index table's key must not
--     raise a unique violation that the base table does not;
--  2. a user's AFTER TRUNCATE trigger that fires before adjlist's (triggers
--     fire in the order of their names) and writes the base table;
--  3. a user's BEFORE TRUNCATE trigger on a partition that fires after
--     adjlist's and writes into that partition (refused: 55000), or that
--     fires before it (followed), and the same on the base table.
-- Each index is checked by verify_inverted_index (counters included), by
-- comparing the index table with the base table as multisets, and its
-- counters against a count of the base table.
--
CREATE SCHEMA tt;
SET search_path = tt, public;

CREATE FUNCTION pg_temp.check(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	ix record;
	cols text;
	d text;
	diff bigint;
	cdiff bigint := 0;
	out text := '';
BEGIN
	FOR ix IN SELECT i.indexrel, i.columns, i.counterrel
			  FROM adjlist_inverted_indexes i WHERE i.baserel = tbl ORDER BY i.indexrel::text LOOP
		SELECT string_agg(v.problem || ' ' || v.key::text, '; ' ORDER BY v.problem, v.key::text)
		INTO d FROM verify_inverted_index(ix.indexrel) v;
		SELECT string_agg(quote_ident(c), ', ') INTO cols FROM unnest(ix.columns) AS u(c);
		EXECUTE format('SELECT count(*) FROM ((SELECT %1$s FROM %2$s EXCEPT ALL SELECT %1$s FROM %3$s)
						UNION ALL (SELECT %1$s FROM %3$s EXCEPT ALL SELECT %1$s FROM %2$s)) x',
					   cols, tbl, ix.indexrel)
		INTO diff;
		IF ix.counterrel IS NOT NULL THEN
			-- out-degree of every node, counted against edge_count()
			EXECUTE format('SELECT count(*) FROM (SELECT pk, count(*) AS n FROM %s GROUP BY pk) c
							WHERE edge_count(%L, c.pk, ''F'', ''out'') <> c.n', tbl, ix.indexrel)
			INTO cdiff;
		END IF;
		out := out || ix.indexrel::text || ': ' || coalesce(d, 'exact') ||
			CASE WHEN diff = 0 THEN ', same rows' ELSE ', ' || diff || ' rows differ' END ||
			CASE WHEN cdiff = 0 THEN '' ELSE ', ' || cdiff || ' counts differ' END || E'\n';
	END LOOP;
	RETURN rtrim(out, E'\n');
END $$;

-- 1. SET CONSTRAINTS on the base table's key
CREATE TABLE d (pk adjkey, sk adjkey, w int,
				CONSTRAINT d_pk PRIMARY KEY (pk, sk) DEFERRABLE INITIALLY IMMEDIATE);
SELECT create_inverted_index('d', include => '{w}', counters => 1);
-- the index table's key is checked at commit (the base's check comes first)
SELECT conname, condeferrable, condeferred FROM pg_constraint
WHERE conrelid IN ('d'::regclass, 'd_inverted'::regclass) AND contype = 'p' ORDER BY 1;
INSERT INTO d VALUES ('USER#a', 'F#1', 1), ('USER#b', 'F#1', 1);
BEGIN;
SET CONSTRAINTS d_pk DEFERRED;
INSERT INTO d VALUES ('USER#a', 'F#1', 3);
-- the index is the base table as a multiset, both holding the key twice
SELECT problem, key FROM verify_inverted_index('d_inverted');
SELECT pg_temp.check('d');
DELETE FROM d WHERE w = 1 AND pk = 'USER#a';
COMMIT;
TABLE d ORDER BY pk;
SELECT pg_temp.check('d');
-- a duplicate the base keeps raises at commit, from the base's key
BEGIN;
SET CONSTRAINTS d_pk DEFERRED;
INSERT INTO d VALUES ('USER#b', 'F#1', 5);
COMMIT;
-- immediate: the base raises, at once
INSERT INTO d VALUES ('USER#b', 'F#1', 5);
-- SET CONSTRAINTS ALL moves both keys together
BEGIN;
SET CONSTRAINTS ALL DEFERRED;
INSERT INTO d VALUES ('USER#b', 'F#1', 6);
DELETE FROM d WHERE pk = 'USER#b' AND w = 1;
SET CONSTRAINTS ALL IMMEDIATE;
COMMIT;
BEGIN;
SET CONSTRAINTS ALL DEFERRED;
INSERT INTO d VALUES ('USER#b', 'F#1', 7);
SET CONSTRAINTS ALL IMMEDIATE;
ROLLBACK;
TABLE d ORDER BY pk;
SELECT pg_temp.check('d');

-- 2. an AFTER TRUNCATE trigger that fires before adjlist_sync_trunc
CREATE FUNCTION seed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %s VALUES (%L, ''F#1'', 1)', TG_TABLE_NAME, 'USER#' || TG_NAME);
	RETURN NULL;
END $$;
CREATE TABLE g (pk adjkey, sk adjkey, w int, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('g', include => '{w}', counters => 1);
INSERT INTO g VALUES ('USER#1', 'F#1', 1), ('USER#2', 'F#1', 1);
CREATE TRIGGER a_seed AFTER TRUNCATE ON g FOR EACH STATEMENT EXECUTE FUNCTION seed();
TRUNCATE g;
TABLE g;
TABLE g_inverted;
SELECT pg_temp.check('g');
-- and after it: followed as before
CREATE TRIGGER z_seed AFTER TRUNCATE ON g FOR EACH STATEMENT EXECUTE FUNCTION seed();
TRUNCATE g;
SELECT pg_temp.check('g');
-- in a transaction that created the table (truncated in place)
BEGIN;
CREATE TABLE g2 (pk adjkey, sk adjkey, w int, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('g2', counters => 1);
INSERT INTO g2 VALUES ('USER#1', 'F#1', 1);
CREATE TRIGGER a_seed AFTER TRUNCATE ON g2 FOR EACH STATEMENT EXECUTE FUNCTION seed();
TRUNCATE g2;
SELECT pg_temp.check('g2');
COMMIT;
-- a partitioned base table, seeded by its AFTER trigger and a partition's
CREATE TABLE p (pk adjkey, sk adjkey, w int, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE p_o PARTITION OF p FOR VALUES FROM ('ORG') TO ('ORG$');
CREATE TABLE p_u PARTITION OF p FOR VALUES FROM ('USER') TO ('USER$');
SELECT create_inverted_index('p', include => '{w}', counters => 1);
INSERT INTO p VALUES ('USER#2', 'F#1', 1), ('ORG#2', 'F#1', 1);
CREATE TRIGGER a_seed AFTER TRUNCATE ON p FOR EACH STATEMENT EXECUTE FUNCTION seed();
CREATE FUNCTION seed_p() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO p VALUES ('USER#by_' || TG_TABLE_NAME || '_' || TG_WHEN, 'F#1', 1);
	RETURN NULL;
END $$;
DROP TRIGGER a_seed ON p;
CREATE TRIGGER a_seed AFTER TRUNCATE ON p FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
CREATE TRIGGER a_seed AFTER TRUNCATE ON p_o FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
TRUNCATE p;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
-- the partition named first: its AFTER trigger fires before the base's
TRUNCATE p_o, p;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
DROP TRIGGER a_seed ON p;
DROP TRIGGER a_seed ON p_o;

-- 3. BEFORE TRUNCATE triggers that write the table being truncated
TRUNCATE p;
INSERT INTO p VALUES ('USER#2', 'F#1', 1), ('ORG#2', 'F#1', 1);
-- on a partition, after adjlist's: refused
CREATE TRIGGER z_seed BEFORE TRUNCATE ON p_u FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
TRUNCATE p_u;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
-- the same write from another table's trigger of the same TRUNCATE
DROP TRIGGER z_seed ON p_u;
CREATE TRIGGER z_seed BEFORE TRUNCATE ON p_o FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
TRUNCATE p_u, p_o;
SELECT pg_temp.check('p');
-- a write into another partition is followed
TRUNCATE p_o;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
DROP TRIGGER z_seed ON p_o;
-- on a partition, before adjlist's: the row is truncated with the others
CREATE TRIGGER a_seed BEFORE TRUNCATE ON p_u FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
TRUNCATE p_u;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
DROP TRIGGER a_seed ON p_u;
-- written in the same message, then truncated
INSERT INTO p VALUES ('USER#3', 'F#1', 1)\; TRUNCATE p_u;
SELECT pg_temp.check('p');
-- after the TRUNCATE, in the same statement and transaction: followed
CREATE TRIGGER z_seed AFTER TRUNCATE ON p_u FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
BEGIN;
TRUNCATE p_u;
INSERT INTO p VALUES ('USER#4', 'F#1', 1);
COMMIT;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
DROP TRIGGER z_seed ON p_u;
-- a partition truncated in place (created in the same transaction)
BEGIN;
CREATE TABLE p_x PARTITION OF p FOR VALUES FROM ('X') TO ('X$');
INSERT INTO p VALUES ('X#1', 'F#1', 1);
CREATE FUNCTION seed_x() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO p VALUES ('X#' || TG_WHEN, 'F#1', 1);
	RETURN NULL;
END $$;
CREATE TRIGGER z_seed AFTER TRUNCATE ON p_x FOR EACH STATEMENT EXECUTE FUNCTION seed_x();
TRUNCATE p_x;
INSERT INTO p VALUES ('X#2', 'F#1', 1);
SELECT pg_temp.check('p');
CREATE TRIGGER z_before BEFORE TRUNCATE ON p_x FOR EACH STATEMENT EXECUTE FUNCTION seed_x();
SAVEPOINT s;
TRUNCATE p_x;
ROLLBACK TO s;
-- the refused TRUNCATE leaves no mark: the partition takes writes
INSERT INTO p VALUES ('X#3', 'F#1', 1);
COMMIT;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
-- the whole table, with partitions' BEFORE triggers after adjlist's (p_u's
-- writes first, advancing the command counter before p_x's fire): their
-- rows are truncated with the table, the AFTER trigger's row is indexed
CREATE TRIGGER z_seed BEFORE TRUNCATE ON p_u FOR EACH STATEMENT EXECUTE FUNCTION seed_p();
TRUNCATE p;
TABLE p ORDER BY pk;
SELECT pg_temp.check('p');
DROP TRIGGER z_seed ON p_u;
-- a plain base table, BEFORE triggers after and before adjlist's
CREATE TRIGGER z_before BEFORE TRUNCATE ON g FOR EACH STATEMENT EXECUTE FUNCTION seed();
TRUNCATE g;
TABLE g ORDER BY pk;
SELECT pg_temp.check('g');
DROP TRIGGER a_seed ON g;
DROP TRIGGER z_seed ON g;
CREATE TRIGGER a_before BEFORE TRUNCATE ON g FOR EACH STATEMENT EXECUTE FUNCTION seed();
TRUNCATE g;
TABLE g ORDER BY pk;
SELECT pg_temp.check('g');

-- A GRANT on a partition while a TRUNCATE is about to empty it (from a
-- BEFORE TRUNCATE trigger of another table the same TRUNCATE names) does
-- not end the window: only the partition's new relfilenode does.
CREATE TABLE gw (pk adjkey, sk adjkey, v int, PRIMARY KEY (pk, sk, v)) PARTITION BY LIST (v);
CREATE TABLE gw1 PARTITION OF gw FOR VALUES IN (1);
CREATE TABLE gw2 PARTITION OF gw FOR VALUES IN (2);
SELECT create_inverted_index('gw', counters => 1);
INSERT INTO gw VALUES ('USER#a', 'F#b', 1), ('USER#b', 'F#a', 2);
CREATE TABLE plain (a int);
CREATE FUNCTION plain_bt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_ARGV[0] = 'grant' THEN
		GRANT SELECT ON gw1 TO PUBLIC;
	END IF;
	INSERT INTO gw VALUES ('USER#new', 'F#zz', 1);
	RETURN NULL;
END $$;
CREATE TRIGGER plain_bt BEFORE TRUNCATE ON plain FOR EACH STATEMENT EXECUTE FUNCTION plain_bt('nogrant');
TRUNCATE gw1, plain;
DROP TRIGGER plain_bt ON plain;
CREATE TRIGGER plain_bt BEFORE TRUNCATE ON plain FOR EACH STATEMENT EXECUTE FUNCTION plain_bt('grant');
TRUNCATE gw1, plain;
TABLE gw ORDER BY pk;
SELECT pg_temp.check('gw');
DROP TABLE gw, plain;

DROP SCHEMA tt CASCADE;

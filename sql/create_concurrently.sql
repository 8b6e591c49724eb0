--
-- CALL create_inverted_index(..., concurrently => true): the index it builds
-- is the one the function builds, on plain and partitioned tables, with
-- counters, projections, write shards and a partitioned index table; what
-- it refuses, and why; the progress view.  (Builds racing writers, a
-- cancelled build and drop during a build: test/isolation/specs/
-- create-concurrently.spec.)
--
SET client_min_messages = warning;
CREATE SCHEMA cc;
SET search_path = cc, public;

CREATE TABLE social (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO social
SELECT 'USER#' || i, 'FOLLOWS#USER#' || (i * 7 % 50), jsonb_build_object('i', i)
FROM generate_series(1, 3000) i;
INSERT INTO social
SELECT 'USER#' || (i % 50), 'LIKES#POST#' || i, NULL FROM generate_series(1, 500) i;

-- the same index, built concurrently and in one transaction
CALL create_inverted_index('social', concurrently => true, include => '{data}', counters => 1);
SELECT create_inverted_index('social', include => '{data}', counters => 1, index_name => 'social_now');
SELECT indexrel, ready FROM adjlist_inverted_indexes WHERE baserel = 'social'::regclass ORDER BY 1;
SELECT count(*) AS rows,
	   (SELECT count(*) FROM (TABLE social_inverted EXCEPT TABLE social_now) d) AS only_concurrent,
	   (SELECT count(*) FROM (TABLE social_now EXCEPT TABLE social_inverted) d) AS only_now
FROM social_inverted;
SELECT count(*) AS drift FROM verify_inverted_index('social_inverted');
SELECT edge_count('social_inverted', 'USER#7', 'FOLLOWS', 'in') AS in_7,
	   (SELECT count(*) FROM social WHERE sk = 'FOLLOWS#USER#7') AS recount;
SELECT (SELECT pg_catalog.sum(n) FROM social_inverted_degree) =
	   (SELECT pg_catalog.sum(n) FROM social_now_degree) AS same_counter_totals;
-- the new index serves readers, through its primary key
SELECT neighbor FROM reverse_neighbors('social', 'USER#7', 'FOLLOWS', lim => 3);
-- (which scan of it depends on what VACUUM has marked all-visible: the
-- index is what matters)
CREATE FUNCTION plan_uses(q text, idx text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%Index%Scan%' AND l LIKE '% ' || idx || '%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;
SELECT plan_uses($$SELECT pk FROM social_inverted WHERE sk = 'FOLLOWS#USER#7'$$,
				 'social_inverted_pkey') AS uses_its_key;
-- and writers keep it, like any index
INSERT INTO social VALUES ('USER#new', 'FOLLOWS#USER#7', NULL);
DELETE FROM social WHERE pk = 'USER#1' AND sk ^@ 'LIKES#';
SELECT count(*) AS drift FROM verify_inverted_index('social_inverted');

-- a partitioned table, a partitioned index table, write shards, a table
-- that has triggers already
CREATE TABLE parted (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE parted_0 PARTITION OF parted FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES WITH (MODULUS 3, REMAINDER 2)
	PARTITION BY LIST (sk);
CREATE TABLE parted_2a PARTITION OF parted_2 FOR VALUES IN ('FOLLOWS#USER#1');
CREATE TABLE parted_2b PARTITION OF parted_2 DEFAULT;
INSERT INTO parted SELECT * FROM social;
SELECT create_inverted_index('parted', index_name => 'parted_first');
CALL create_inverted_index('parted', concurrently => true, partitions => 4, write_shards => 4,
						   counters => 1, include => '{data}');
SELECT count(*) AS drift FROM verify_inverted_index('parted_inverted');
SELECT count(*) AS rows, count(*) = (SELECT count(*) FROM parted) AS all_rows FROM parted_inverted;
SELECT relname FROM pg_class WHERE relname LIKE 'parted_inverted%' AND relnamespace = 'cc'::regnamespace ORDER BY 1;
SELECT count(*) AS sources FROM reverse_neighbors('parted', 'USER#7', 'FOLLOWS');

-- a DO block run on its own may commit, so it may build concurrently
DO $$ BEGIN CALL create_inverted_index('cc.social', concurrently => true, index_name => 'social_do'); END $$;
SELECT ready, (SELECT count(*) FROM verify_inverted_index('social_do')) AS drift
FROM adjlist_inverted_indexes WHERE indexrel = 'social_do'::regclass;
SELECT drop_inverted_index('social_do');

-- concurrently => false in CALL is the function's build, in the caller's
-- transaction (so it may run in a transaction block, and roll back)
BEGIN;
CALL create_inverted_index('social', concurrently => false, index_name => 'social_in_block');
SELECT count(*) FROM social_in_block;
ROLLBACK;
SELECT to_regclass('cc.social_in_block') AS rolled_back;

-- refused: inside a transaction block or a function, as a function call,
-- and tables a concurrent build cannot keep exact
\set VERBOSITY sqlstate
BEGIN;
CALL create_inverted_index('social', concurrently => true, index_name => 'x1');
ROLLBACK;
CREATE FUNCTION build_in_function() RETURNS void LANGUAGE plpgsql AS $$
BEGIN CALL create_inverted_index('cc.social', concurrently => true, index_name => 'x2'); END $$;
SELECT build_in_function();
SELECT create_inverted_index('social', true);
CALL create_inverted_index('social', concurrently => NULL, index_name => 'x3');
CALL create_inverted_index('social', concurrently => true, index_name => 'social_inverted');
CREATE TABLE adopt (sk adjkey, pk adjkey);
CALL create_inverted_index('social', concurrently => true, index_name => 'adopt', existing => true);
CREATE TABLE nokey (pk adjkey NOT NULL, sk adjkey NOT NULL, UNIQUE (pk, sk));
CALL create_inverted_index('nokey', concurrently => true, base_key => '{pk,sk}');
CREATE TABLE deferred (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk) DEFERRABLE);
CALL create_inverted_index('deferred', concurrently => true);
CREATE TABLE byid (id bigint PRIMARY KEY, pk adjkey NOT NULL, sk adjkey NOT NULL);
CALL create_inverted_index('byid', concurrently => true, base_key => '{pk,sk}');	-- not unique
CREATE TABLE byid2 (id bigint PRIMARY KEY, pk adjkey NOT NULL, sk adjkey NOT NULL, UNIQUE (pk, sk));
CALL create_inverted_index('byid2', concurrently => true, base_key => '{pk,sk}');
CALL create_inverted_index('social', concurrently => true, partition_key => 'nope');
\set VERBOSITY default
-- (a table keyed by another column is built when the index key has it)
INSERT INTO byid VALUES (1, 'USER#a', 'FOLLOWS#USER#b'), (2, 'USER#a', 'FOLLOWS#USER#b');
CALL create_inverted_index('byid', concurrently => true, base_key => '{id}');
SELECT * FROM byid_inverted ORDER BY id;
-- and every refusal left nothing behind
SELECT indexrel FROM adjlist_inverted_indexes WHERE indexrel::text LIKE 'cc.x%' OR indexrel::text LIKE 'x%';
SELECT count(*) AS x_tables FROM pg_class WHERE relname ~ '^x[0-9]$' AND relnamespace = 'cc'::regnamespace;

-- a role that does not own the table may not build its index (it may
-- write the table)
CREATE ROLE regress_cc_other;
GRANT USAGE ON SCHEMA cc TO regress_cc_other;
GRANT SELECT, INSERT ON social TO regress_cc_other;
SET ROLE regress_cc_other;
CALL create_inverted_index('social', concurrently => true, index_name => 'by_other');
RESET ROLE;

-- the progress view: every role may read it; empty when nothing is built
SELECT * FROM inverted_index_progress;
SET ROLE regress_cc_other;
SELECT count(*) FROM inverted_index_progress;
RESET ROLE;

DROP SCHEMA cc CASCADE;
DROP ROLE regress_cc_other;

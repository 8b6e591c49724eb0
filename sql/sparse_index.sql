--
-- Sparse inverted indexes: create_inverted_index(..., predicate => '...')
-- indexes only the rows for which the predicate is true, as a partial
-- index does.  Every way a row gets in or out (insert, update either way,
-- delete, upsert, MERGE, COPY, TRUNCATE, partitions with their own column
-- order, attach and detach, concurrent builds), the counters, key size
-- limits only for indexed rows, what a predicate may not be, the DDL that
-- would break one, and a hostile search_path.
--
SET client_min_messages = warning;
CREATE SCHEMA sparse;
SET search_path = sparse, public;

CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO g VALUES
	('USER#alice', 'PROFILE', '{"name": "Alice"}'),
	('USER#alice', 'FOLLOWS#USER#bob', '{"status": "active"}'),
	('USER#alice', 'FOLLOWS#USER#carol', '{"status": "muted"}'),
	('USER#bob', 'PROFILE', NULL),
	('USER#bob', 'FOLLOWS#USER#alice', '{"status": "active"}'),
	('USER#carol', 'LIKES#POST#1', NULL);

-- FOLLOWS edges only: PROFILE and LIKES items are not in it, and its
-- counters count only follows
SELECT create_inverted_index('g', predicate => $$sk ^@ 'FOLLOWS#'$$, counters => 1, include => '{data}');
-- active follows only, a predicate on the item's data
SELECT create_inverted_index('g', index_name => 'g_active', predicate => $$data @> '{"status": "active"}'$$);
-- what the registry keeps: the predicate as checked, every object qualified
SELECT indexrel, predicate FROM adjlist_inverted_indexes
WHERE baserel = 'g'::regclass ORDER BY 1;
SELECT sk, pk FROM g_inverted ORDER BY 1, 2;
SELECT sk, pk FROM g_active ORDER BY 1, 2;
SELECT neighbor FROM reverse_neighbors('g', 'USER#alice', 'FOLLOWS');
SELECT edge_count('g_inverted', 'USER#alice', 'FOLLOWS', 'out') AS alice_out,
	   edge_count('g_inverted', 'USER#alice', 'PROFILE', 'out') AS alice_profile;

-- rows move in and out with every kind of write
UPDATE g SET data = '{"status": "active"}' WHERE pk = 'USER#alice' AND sk = 'FOLLOWS#USER#carol';
UPDATE g SET data = '{"status": "blocked"}' WHERE pk = 'USER#bob' AND sk = 'FOLLOWS#USER#alice';
UPDATE g SET sk = 'FOLLOWS#USER#dave' WHERE pk = 'USER#carol' AND sk = 'LIKES#POST#1';
UPDATE g SET sk = 'FORMER#USER#bob' WHERE pk = 'USER#alice' AND sk = 'FOLLOWS#USER#bob';
INSERT INTO g VALUES ('USER#dave', 'FOLLOWS#USER#alice', '{"status": "active"}')
ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
INSERT INTO g VALUES ('USER#dave', 'FOLLOWS#USER#alice', '{"status": "gone"}')
ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
MERGE INTO g USING (VALUES ('USER#erin'::adjkey, 'FOLLOWS#USER#bob'::adjkey, '{"status": "active"}'::jsonb),
						   ('USER#alice', 'FOLLOWS#USER#carol', '{"status": "muted"}')) v(pk, sk, data)
ON g.pk = v.pk AND g.sk = v.sk
WHEN MATCHED THEN UPDATE SET data = v.data
WHEN NOT MATCHED THEN INSERT VALUES (v.pk, v.sk, v.data);
COPY g FROM stdin;
USER#frank	FOLLOWS#USER#erin	{"status": "active"}
USER#frank	PROFILE	{"status": "active"}
\.
DELETE FROM g WHERE pk = 'USER#erin';
SELECT sk, pk, data FROM g_inverted ORDER BY 1, 2;
SELECT sk, pk FROM g_active ORDER BY 1, 2;
SELECT count(*) AS drift FROM verify_inverted_index('g_inverted');
SELECT count(*) AS drift FROM verify_inverted_index('g_active');
-- the counters equal a recount of the follows
SELECT e.node, e.n, r.n AS recount
FROM (SELECT node, sum(n) AS n FROM g_inverted_degree WHERE direction = 'o' GROUP BY node HAVING sum(n) <> 0) e
FULL JOIN (SELECT pk AS node, count(*) AS n FROM g WHERE sk ^@ 'FOLLOWS#' GROUP BY pk) r USING (node)
ORDER BY 1;

-- an index built on rows that are there already, and concurrently
CALL create_inverted_index('g', concurrently => true, index_name => 'g_active_later',
						   predicate => $$data @> '{"status": "active"}'$$);
SELECT (SELECT count(*) FROM verify_inverted_index('g_active_later')) AS drift,
	   (SELECT array_agg(pk ORDER BY pk) FROM g_active_later) = (SELECT array_agg(pk ORDER BY pk) FROM g_active) AS same_rows;

-- DynamoDB's key limits apply to the rows an index holds, not to the others:
-- a partition key of 1500 bytes is too long to be a sort key (1024) of the
-- index, which does not hold the row
INSERT INTO g VALUES (repeat('x', 1500), 'PROFILE', NULL);
\set VERBOSITY sqlstate
INSERT INTO g VALUES (repeat('x', 1500), 'FOLLOWS#USER#alice', NULL);
\set VERBOSITY default

-- partitions, the last with its columns in another order, attached later
CREATE TABLE parted (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE parted_a PARTITION OF parted FOR VALUES IN ('USER#a');
SELECT create_inverted_index('parted', predicate => $$(data ->> 'w')::int > 1$$);
CREATE TABLE parted_b (data jsonb, junk int, sk adjkey NOT NULL, pk adjkey NOT NULL);
ALTER TABLE parted_b DROP COLUMN junk;
INSERT INTO parted_b VALUES ('{"w": 5}', 'FOLLOWS#USER#x', 'USER#b'), ('{"w": 1}', 'FOLLOWS#USER#y', 'USER#b');
ALTER TABLE parted ATTACH PARTITION parted_b FOR VALUES IN ('USER#b');
INSERT INTO parted VALUES ('USER#a', 'FOLLOWS#USER#x', '{"w": 2}'), ('USER#a', 'FOLLOWS#USER#y', '{"w": 0}'),
						  ('USER#b', 'FOLLOWS#USER#z', '{"w": 3}');
UPDATE parted_b SET data = '{"w": 9}' WHERE sk = 'FOLLOWS#USER#y';
UPDATE parted SET data = '{"w": 0}' WHERE pk = 'USER#b' AND sk = 'FOLLOWS#USER#x';
SELECT sk, pk FROM parted_inverted ORDER BY 1, 2;
ALTER TABLE parted DETACH PARTITION parted_b;
SELECT sk, pk FROM parted_inverted ORDER BY 1, 2;
TRUNCATE parted;
SELECT count(*) AS after_truncate FROM parted_inverted;

-- what a predicate may not be: each refused, nothing created
\set VERBOSITY sqlstate
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'random() > 0.5');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'nope = 1');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'data');
SELECT create_inverted_index('g', index_name => 'bad', predicate => '(SELECT true)');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'count(*) > 0');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'ctid IS NOT NULL');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'true) FROM g WHERE (true');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'sk ^@ ');
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'other.pk IS NULL');
\set VERBOSITY default
SELECT to_regclass('sparse.bad') AS nothing_created;
-- an error points into the predicate, not into the call
SELECT create_inverted_index('g', index_name => 'bad', predicate => 'data @> 1');

-- DDL that would break a predicate is refused; it names the index
CREATE TABLE tagged (pk adjkey, sk adjkey, status text, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('tagged', predicate => $$status = 'live'$$);
ALTER TABLE tagged RENAME COLUMN status TO state;
ALTER TABLE tagged DROP COLUMN status;
INSERT INTO tagged VALUES ('A', 'B', 'live'), ('A', 'C', 'dead');
SELECT sk FROM tagged_inverted;

-- a hostile search_path when writing cannot change what is indexed: the
-- predicate is the owner's, its operators the ones it was written with
CREATE SCHEMA evil;
CREATE FUNCTION evil.always(jsonb, jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR evil.@> (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = evil.always);
SET search_path = evil, pg_catalog, sparse, public;
INSERT INTO g VALUES ('USER#mallory', 'FOLLOWS#USER#alice', '{"status": "sleeping"}');
SET search_path = sparse, public;
SELECT count(*) AS mallory_indexed FROM g_active WHERE pk = 'USER#mallory';

-- the write API on a table with triggers: the same
SELECT put_edge('g', 'USER#gina', 'FOLLOWS#USER#alice', '{"status": "active"}');
SELECT put_edge('g', 'USER#gina', 'PROFILE', '{"status": "active"}');
SELECT delete_edge('g', 'USER#frank', 'FOLLOWS#USER#erin');
SELECT (SELECT count(*) FROM verify_inverted_index('g_inverted')) + (SELECT count(*) FROM verify_inverted_index('g_active')) AS drift;

DROP SCHEMA sparse, evil CASCADE;

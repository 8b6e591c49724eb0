--
-- inverted indexes: API, every way rows change, sparse/projected/generated
-- keys, DDL guards.  After each change the index must equal a recomputation
-- from the base table: verify_inverted_index() returns no rows.
--
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.drift(idx regclass) RETURNS bigint LANGUAGE sql AS
	$$ SELECT count(*) FROM verify_inverted_index(idx) $$;

CREATE TABLE net (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO net VALUES
	('USER#alice', 'PROFILE', '{"name": "Alice"}'),
	('USER#alice', 'FOLLOWS#USER#bob', '{"since": "2023-01-15"}'),
	('USER#carol', 'FOLLOWS#USER#bob', NULL),
	('USER#bob', 'FOLLOWS#USER#alice', NULL);

-- create: table, triggers, backfill
SELECT create_inverted_index('net');
\d net_inverted
SELECT * FROM net_inverted ORDER BY sk, pk;
SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger
WHERE tgrelid = 'net'::regclass ORDER BY tgname;
SELECT indexrel, baserel, columns, nkeys FROM adjlist_inverted_indexes;
-- who follows bob?
SELECT pk FROM net_inverted WHERE sk = 'FOLLOWS#USER#bob' ORDER BY pk;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT pk FROM net_inverted WHERE sk = 'FOLLOWS#USER#bob';
RESET enable_seqscan;

-- single, multi-row and INSERT ... SELECT
INSERT INTO net VALUES ('USER#dave', 'FOLLOWS#USER#bob', NULL);
INSERT INTO net VALUES ('USER#erin', 'FOLLOWS#USER#bob', NULL), ('USER#erin', 'LIKES#POST#1', NULL);
INSERT INTO net SELECT 'USER#u' || g, 'FOLLOWS#USER#bob', NULL FROM generate_series(1, 50) g;
SELECT count(*) AS bob_followers FROM net_inverted WHERE sk = 'FOLLOWS#USER#bob';
SELECT pg_temp.drift('net_inverted');

-- COPY
COPY net (pk, sk, data) FROM STDIN;
USER#frank	FOLLOWS#USER#alice	{"via": "copy"}
USER#grace	FOLLOWS#USER#alice	\N
\.
SELECT pk FROM net_inverted WHERE sk = 'FOLLOWS#USER#alice' ORDER BY pk;
SELECT pg_temp.drift('net_inverted');

-- UPDATE moving a row to another key, in the sort key and the partition key
UPDATE net SET sk = 'FOLLOWS#USER#dave' WHERE pk = 'USER#carol' AND sk = 'FOLLOWS#USER#bob';
UPDATE net SET pk = 'USER#gina' WHERE pk = 'USER#grace';
SELECT pk FROM net_inverted WHERE sk = 'FOLLOWS#USER#dave';
SELECT pk FROM net_inverted WHERE sk = 'FOLLOWS#USER#alice' ORDER BY pk;
SELECT pg_temp.drift('net_inverted');

-- an UPDATE that changes no indexed column writes nothing to the index;
-- nor does one that sets a key to the value it had
CREATE TEMP TABLE versions AS SELECT pk, sk, ctid AS c, xmin::text AS x FROM net_inverted WHERE pk = 'USER#alice';
UPDATE net SET data = '{"x": 1}' WHERE pk = 'USER#alice';
UPDATE net SET sk = sk WHERE pk = 'USER#alice';
SELECT count(*) AS rewritten_index_rows FROM net_inverted i JOIN versions v USING (pk, sk)
WHERE (i.ctid, i.xmin::text) IS DISTINCT FROM (v.c, v.x);
SELECT pg_temp.drift('net_inverted');

-- DELETE
DELETE FROM net WHERE pk = 'USER#u1';
DELETE FROM net WHERE pk ^@ 'USER#u2';
SELECT count(*) AS bob_followers FROM net_inverted WHERE sk = 'FOLLOWS#USER#bob';
SELECT pg_temp.drift('net_inverted');

-- ON CONFLICT DO NOTHING (DynamoDB's attribute_not_exists) and DO UPDATE
INSERT INTO net VALUES ('USER#dave', 'FOLLOWS#USER#bob', '{"dup": true}'),
						  ('USER#hank', 'FOLLOWS#USER#bob', NULL)
	ON CONFLICT DO NOTHING;
INSERT INTO net VALUES ('USER#hank', 'FOLLOWS#USER#bob', '{"n": 2}')
	ON CONFLICT (pk, sk) DO UPDATE SET sk = 'FOLLOWS#USER#carol';
SELECT pk, sk FROM net_inverted WHERE pk IN ('USER#dave', 'USER#hank') ORDER BY 1, 2;
SELECT pg_temp.drift('net_inverted');

-- MERGE
MERGE INTO net s
USING (VALUES ('USER#hank'::adjkey, 'FOLLOWS#USER#carol'::adjkey, 'delete'),
			  ('USER#ivan', 'FOLLOWS#USER#bob', 'insert'),
			  ('USER#dave', 'FOLLOWS#USER#bob', 'move')) v(pk, sk, action)
ON s.pk = v.pk AND s.sk = v.sk
WHEN MATCHED AND v.action = 'delete' THEN DELETE
WHEN MATCHED AND v.action = 'move' THEN UPDATE SET sk = 'FOLLOWS#USER#erin'
WHEN NOT MATCHED THEN INSERT VALUES (v.pk, v.sk, NULL);
SELECT pk, sk FROM net_inverted WHERE pk IN ('USER#dave', 'USER#hank', 'USER#ivan') ORDER BY 1, 2;
SELECT pg_temp.drift('net_inverted');

-- writable CTEs
WITH gone AS (DELETE FROM net WHERE pk = 'USER#ivan' RETURNING pk, sk)
INSERT INTO net SELECT 'USER#jack', sk, NULL FROM gone;
SELECT pk FROM net_inverted WHERE pk IN ('USER#ivan', 'USER#jack');
SELECT pg_temp.drift('net_inverted');
-- one statement that deletes a key and inserts it again: the INSERT's
-- trigger fires before the DELETE's, and the key stays indexed
WITH gone AS (DELETE FROM net WHERE pk = 'USER#jack' RETURNING pk, sk)
INSERT INTO net SELECT pk, sk, '{"again": true}' FROM gone;
WITH moved AS (UPDATE net SET sk = 'FOLLOWS#USER#erin' WHERE pk = 'USER#jack' RETURNING pk)
INSERT INTO net SELECT 'USER#jack', 'FOLLOWS#USER#bob', '{"back": true}' FROM moved;
SELECT sk, pk FROM net_inverted WHERE pk = 'USER#jack' ORDER BY 1;
SELECT pg_temp.drift('net_inverted');

-- savepoints and rollbacks: the index rolls back with the table
BEGIN;
INSERT INTO net VALUES ('USER#kate', 'FOLLOWS#USER#bob', NULL);
SAVEPOINT s1;
INSERT INTO net VALUES ('USER#liam', 'FOLLOWS#USER#bob', NULL);
DELETE FROM net WHERE pk = 'USER#kate';
ROLLBACK TO SAVEPOINT s1;
SELECT pk FROM net_inverted WHERE pk IN ('USER#kate', 'USER#liam');
COMMIT;
BEGIN;
DELETE FROM net;
SELECT count(*) FROM net_inverted;
ROLLBACK;
SELECT count(*) > 40 AS kept FROM net_inverted;
SELECT pg_temp.drift('net_inverted');

-- a failed statement leaves nothing behind
INSERT INTO net VALUES ('USER#mia', 'FOLLOWS#USER#bob', NULL), ('USER#mia', 'FOLLOWS#USER#bob', NULL);
SELECT count(*) FROM net_inverted WHERE pk = 'USER#mia';

-- TRUNCATE empties the index too
BEGIN;
TRUNCATE net;
SELECT count(*) FROM net_inverted;
ROLLBACK;
SELECT pg_temp.drift('net_inverted');

-- the index table is adjlist's to write: a statement that names it is
-- refused, TRUNCATE included (truncating the table empties its index)
BEGIN;
TRUNCATE net, net_inverted;
ROLLBACK;
-- truncating the table while a cursor reads the index
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM net_inverted;
FETCH 1 FROM c;
TRUNCATE net;
SELECT count(*) FROM net_inverted;
ROLLBACK;
SELECT pg_temp.drift('net_inverted');

-- a trigger or a CHECK constraint of the index table's own applies to the
-- rows adjlist writes; the trigger runs as the table's owner with
-- search_path pinned to pg_catalog, pg_temp (so it names its tables)
CREATE TABLE net_log (pk adjkey);
CREATE FUNCTION net_inverted_log() RETURNS trigger LANGUAGE plpgsql AS
	$$ BEGIN INSERT INTO public.net_log VALUES (NEW.pk); RETURN NEW; END $$;
CREATE TRIGGER log_it AFTER INSERT ON net_inverted FOR EACH ROW EXECUTE FUNCTION net_inverted_log();
INSERT INTO net VALUES ('USER#logged', 'FOLLOWS#USER#bob', NULL);
DROP TRIGGER log_it ON net_inverted;
-- adjlist writes an index table row by row (as logical replication does):
-- a trigger with transition tables is refused there
CREATE FUNCTION net_inverted_stmt() RETURNS trigger LANGUAGE plpgsql AS
	$$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER log_all AFTER INSERT ON net_inverted REFERENCING NEW TABLE AS nt
	FOR EACH STATEMENT EXECUTE FUNCTION net_inverted_stmt();
CREATE TRIGGER log_all AFTER INSERT ON net_inverted REFERENCING NEW TABLE AS nt
	FOR EACH ROW EXECUTE FUNCTION net_inverted_stmt();
INSERT INTO net VALUES ('USER#unlogged', 'FOLLOWS#USER#bob', NULL);
SELECT pk FROM net_log;
-- its columns and constraints are adjlist's: a constraint that could refuse
-- an index row is refused itself
ALTER TABLE net_inverted ADD CONSTRAINT no_evil CHECK (pk <> 'USER#evil');
INSERT INTO net VALUES ('USER#evil', 'FOLLOWS#USER#bob', NULL);
DELETE FROM net WHERE pk IN ('USER#logged', 'USER#unlogged', 'USER#evil');
SELECT pg_temp.drift('net_inverted');
DROP TABLE net_log;
DROP FUNCTION net_inverted_log();

-- projections: KEYS_ONLY (default), INCLUDE, ALL
CREATE TABLE items (pk adjkey, sk adjkey, data jsonb, status text, amount numeric,
					PRIMARY KEY (pk, sk));
INSERT INTO items VALUES ('INVOICE#92551', 'BILL#4224663', '{"a": 1}', 'paid', 12.5),
						 ('INVOICE#92551', 'BILL#4224687', NULL, 'open', 3),
						 ('INVOICE#92552', 'BILL#4224687', NULL, 'open', 7);
SELECT create_inverted_index('items', include => '{status}', index_name => 'items_by_bill');
SELECT create_inverted_index('items', include => '{*}', index_name => 'items_all');
\d items_by_bill
\d items_all
UPDATE items SET status = 'paid' WHERE sk = 'BILL#4224687' AND pk = 'INVOICE#92551';
UPDATE items SET amount = 99 WHERE pk = 'INVOICE#92552';
SELECT * FROM items_by_bill ORDER BY 1, 2;
SELECT * FROM items_all ORDER BY 1, 2;
-- all invoices containing a bill
SELECT pk FROM items_by_bill WHERE sk = 'BILL#4224687' ORDER BY pk;
-- a NOT NULL on a projected column of the index table would refuse base
-- rows: refused; a NULL projected value is indexed
ALTER TABLE items_by_bill ALTER COLUMN status SET NOT NULL;
INSERT INTO items VALUES ('INVOICE#9', 'BILL#9', NULL, NULL, 1);
SELECT * FROM items_by_bill WHERE pk = 'INVOICE#9';
DELETE FROM items WHERE pk = 'INVOICE#9';
SELECT pg_temp.drift('items_by_bill'), pg_temp.drift('items_all');

-- sparse indexes over a generated key: only bills are indexed
CREATE TABLE catalog (pk adjkey, sk adjkey, data jsonb,
	gsi1pk adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'BILL#' THEN sk END) STORED,
	PRIMARY KEY (pk, sk));
INSERT INTO catalog (pk, sk) VALUES ('INVOICE#1', 'INVOICE#1'), ('INVOICE#1', 'BILL#7'),
	('INVOICE#2', 'BILL#7'), ('INVOICE#2', 'INVOICE#2');
SELECT create_inverted_index('catalog', partition_key => 'gsi1pk', index_name => 'catalog_gsi1');
\d catalog_gsi1
SELECT * FROM catalog_gsi1 ORDER BY 1, 2, 3;
UPDATE catalog SET sk = 'NOTE#7' WHERE pk = 'INVOICE#1' AND sk = 'BILL#7';
UPDATE catalog SET sk = 'BILL#8' WHERE pk = 'INVOICE#2' AND sk = 'INVOICE#2';
SELECT * FROM catalog_gsi1 ORDER BY 1, 2, 3;
SELECT pg_temp.drift('catalog_gsi1');

-- a partitioned base table, rows moving between partitions, and a
-- hash-partitioned index table
CREATE TABLE parted (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE parted_0 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO parted SELECT 'USER#' || g, 'FOLLOWS#USER#' || (g % 7), NULL FROM generate_series(1, 40) g;
SELECT create_inverted_index('parted', partitions => 4);
SELECT count(*) AS rows, count(DISTINCT tableoid) AS partitions_used FROM parted_inverted;
INSERT INTO parted VALUES ('USER#100', 'FOLLOWS#USER#1', NULL);
UPDATE parted SET pk = 'USER#x' || pk WHERE sk = 'FOLLOWS#USER#3';	-- crosses partitions
SELECT count(*) FROM parted WHERE pk ^@ 'USER#x';
DELETE FROM parted WHERE sk = 'FOLLOWS#USER#4';
SELECT pg_temp.drift('parted_inverted');
-- MERGE: PostgreSQL passes the rows a MERGE moves to another partition to
-- no statement trigger, so a MERGE whose UPDATE could move one (it assigns
-- a partition key column, or a partition has a BEFORE UPDATE row trigger)
-- is refused before it runs (0A000); a MERGE that cannot move rows works
MERGE INTO parted p USING (VALUES ('USER#1'::adjkey)) v(pk) ON p.pk = v.pk
WHEN MATCHED THEN UPDATE SET pk = 'USER#m1';
\echo :LAST_ERROR_SQLSTATE
MERGE INTO parted p USING (VALUES ('USER#1'::adjkey)) v(pk) ON p.pk = v.pk
WHEN MATCHED THEN UPDATE SET pk = v.pk, data = '{"m": 1}';	-- the same value: refused too
MERGE INTO parted p
USING (VALUES ('USER#1'::adjkey, 'FOLLOWS#USER#1'::adjkey), ('USER#2', 'FOLLOWS#USER#2'),
			  ('USER#m2', 'FOLLOWS#USER#2')) v(pk, sk) ON p.pk = v.pk
WHEN MATCHED AND p.pk = 'USER#2' THEN DELETE
WHEN MATCHED THEN UPDATE SET sk = 'FOLLOWS#USER#9', data = '{"merged": true}'
WHEN NOT MATCHED THEN INSERT VALUES (v.pk, v.sk, NULL);
SELECT pk, sk, data FROM parted WHERE pk IN ('USER#1', 'USER#2', 'USER#m2') ORDER BY 1;
SELECT pg_temp.drift('parted_inverted');
CREATE FUNCTION parted_touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
CREATE TRIGGER touch BEFORE UPDATE ON parted_1 FOR EACH ROW EXECUTE FUNCTION parted_touch();
MERGE INTO parted p USING (VALUES ('USER#13'::adjkey)) v(pk) ON p.pk = v.pk
WHEN MATCHED THEN UPDATE SET data = '{"m": 2}';
MERGE INTO parted p USING (VALUES ('USER#14'::adjkey)) v(pk) ON p.pk = v.pk
WHEN MATCHED THEN UPDATE SET data = '{"m": 2}';	-- only parted_0 is updated: fine
MERGE INTO parted p USING (VALUES ('USER#1'::adjkey)) v(pk) ON p.pk = v.pk
WHEN MATCHED THEN DELETE;	-- no UPDATE action: fine
EXPLAIN (COSTS OFF) MERGE INTO parted p USING (VALUES ('USER#1'::adjkey)) v(pk) ON p.pk = v.pk
WHEN MATCHED THEN UPDATE SET pk = 'USER#m1';	-- runs nothing: fine
DROP TRIGGER touch ON parted_1;
DROP FUNCTION parted_touch();
-- a plain UPDATE that moves rows is followed; MERGE in a function is refused
UPDATE parted SET pk = CASE pk WHEN 'USER#13' THEN 'USER#m13'::adjkey ELSE 'USER#m14' END
WHERE pk IN ('USER#13', 'USER#14');
SELECT tableoid::regclass, pk, sk FROM parted WHERE pk ^@ 'USER#m1' ORDER BY 2;
SELECT sk, pk FROM parted_inverted WHERE pk ^@ 'USER#m1' OR pk IN ('USER#13', 'USER#14') ORDER BY 2;
CREATE FUNCTION parted_merge() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	MERGE INTO parted p USING (VALUES ('USER#m13'::adjkey)) v(pk) ON p.pk = v.pk
	WHEN MATCHED THEN UPDATE SET pk = 'USER#13';
END$$;
SELECT parted_merge();
DROP FUNCTION parted_merge();
SELECT pg_temp.drift('parted_inverted');
BEGIN;
TRUNCATE parted;
SELECT count(*) FROM parted_inverted;
ROLLBACK;
SELECT pg_temp.drift('parted_inverted');

-- TRUNCATE of a partition that is itself partitioned, with a partitioned
-- index table and counters: each leaf's rows leave the index once (its own
-- trigger), alone or with a sibling
CREATE TABLE gp (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE gp1 PARTITION OF gp FOR VALUES FROM ('A') TO ('F');
CREATE TABLE gp2 PARTITION OF gp FOR VALUES FROM ('F') TO ('M') PARTITION BY LIST (sk);
CREATE TABLE gp2a PARTITION OF gp2 FOR VALUES IN ('X');
CREATE TABLE gp2d PARTITION OF gp2 DEFAULT;
SELECT create_inverted_index('gp', counters => 1, partitions => 3);
INSERT INTO gp VALUES ('B#1', 'FOLLOWS#USER#z'), ('G#1', 'FOLLOWS#USER#z'), ('G#2', 'X');
TRUNCATE gp2;
SELECT pk, sk FROM gp_inverted ORDER BY 1, 2;
SELECT problem, key FROM verify_inverted_index('gp_inverted');
INSERT INTO gp VALUES ('G#1', 'FOLLOWS#USER#z'), ('G#2', 'X');
TRUNCATE gp1, gp2;
SELECT count(*) AS index_rows FROM gp_inverted;
SELECT problem, key FROM verify_inverted_index('gp_inverted');
-- MERGE into gp may not assign sk either: gp2 below is partitioned by it;
-- nor into gp2 (a partitioned partition); pk of a leaf, which cannot move
-- its rows, is fine
INSERT INTO gp VALUES ('G#1', 'FOLLOWS#USER#z');
MERGE INTO gp USING (VALUES ('G#1'::adjkey)) v(pk) ON gp.pk = v.pk
WHEN MATCHED THEN UPDATE SET sk = 'X';
MERGE INTO gp2 USING (VALUES ('G#1'::adjkey)) v(pk) ON gp2.pk = v.pk
WHEN MATCHED THEN UPDATE SET sk = 'X';
MERGE INTO gp2d USING (VALUES ('G#1'::adjkey)) v(pk) ON gp2d.pk = v.pk
WHEN MATCHED THEN UPDATE SET pk = 'G#9';
SELECT pk, sk FROM gp_inverted ORDER BY 1, 2;
SELECT problem, key FROM verify_inverted_index('gp_inverted');
DROP TABLE gp;

-- bad calls create nothing
CREATE TABLE no_pk (pk adjkey, sk adjkey);
CREATE TABLE text_keys (pk text, sk text, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('no_pk');
SELECT create_inverted_index('text_keys');
SELECT create_inverted_index('net', partition_key => 'nope');
SELECT create_inverted_index('net', include => '{nope}');
SELECT create_inverted_index('net');
SELECT create_inverted_index('net', partition_key => 'pk', sort_key => 'pk');
SELECT create_inverted_index('net', index_name => 'net_x', partitions => 1);
SELECT create_inverted_index('pg_class');
SELECT drop_inverted_index('net');
SELECT count(*) AS registered FROM adjlist_inverted_indexes;
SELECT to_regclass('no_pk_inverted'), to_regclass('text_keys_inverted');

-- backfill and repair need READ COMMITTED: an older snapshot could miss
-- rows committed before the table was locked
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT create_inverted_index('net', index_name => 'net_rr');
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT rebuild_inverted_index('net_inverted');
ROLLBACK;

-- DDL that would break an index is refused; renaming tables is harmless;
-- dropping an index table drops the index (its triggers follow)
SELECT create_inverted_index('net', index_name => 'net_spare');
DROP TABLE net_spare;
SELECT indexrel FROM adjlist_inverted_indexes WHERE baserel = 'net'::regclass;
SELECT count(*) AS sync_triggers FROM pg_trigger WHERE tgrelid = 'net'::regclass;
ALTER TABLE net ADD COLUMN junk int;	-- not indexed: fine
ALTER TABLE net DROP COLUMN junk;
ALTER TABLE net RENAME COLUMN data TO payload;	-- not indexed: fine
ALTER TABLE net RENAME COLUMN payload TO data;
ALTER TABLE items RENAME COLUMN status TO state;	-- projected: refused
ALTER TABLE items DROP COLUMN status;
ALTER TABLE net_inverted RENAME COLUMN pk TO source;
ALTER TABLE net_inverted ALTER COLUMN pk TYPE text;
ALTER TABLE net_inverted DROP COLUMN pk;
ALTER TABLE net RENAME TO net_renamed;
ALTER TABLE net_inverted RENAME TO net_rev;
INSERT INTO net_renamed VALUES ('USER#zoe', 'FOLLOWS#USER#bob', NULL);
SELECT pk FROM net_rev WHERE pk = 'USER#zoe';
ALTER TABLE net_rev RENAME TO net_inverted;
ALTER TABLE net_renamed RENAME TO net;
SELECT pg_temp.drift('net_inverted');

-- dropping the base table drops its indexes and their registrations
CREATE TABLE doomed (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('doomed');
DROP TABLE doomed;
SELECT to_regclass('doomed_inverted') AS index_left, count(*) AS registrations
FROM adjlist_inverted_indexes WHERE baserel::text LIKE '%doomed%';

-- drop_inverted_index removes table, registration and triggers
SELECT drop_inverted_index('items_all');
SELECT to_regclass('items_all');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'items'::regclass ORDER BY 1;
SELECT drop_inverted_index('items_by_bill');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'items'::regclass ORDER BY 1;
INSERT INTO items VALUES ('INVOICE#3', 'BILL#1', NULL, NULL, NULL);
SELECT indexrel FROM adjlist_inverted_indexes ORDER BY 1;

-- writes to the index table are refused, whoever makes them
INSERT INTO net_inverted VALUES ('FOLLOWS#USER#nobody', 'USER#nobody');
DELETE FROM net_inverted WHERE pk = 'USER#dave';
UPDATE net_inverted SET pk = 'USER#x';
COPY net_inverted FROM stdin;
FOLLOWS#USER#x	USER#y
\.
SELECT pg_temp.drift('net_inverted');

-- drift made behind the triggers' back (a superuser's replica role, which
-- fires no trigger) is found and repaired
SET session_replication_role = replica;
INSERT INTO net VALUES ('USER#ghost', 'FOLLOWS#USER#bob', NULL);
DELETE FROM net_inverted WHERE pk = 'USER#dave';
INSERT INTO net_inverted VALUES ('FOLLOWS#USER#nobody', 'USER#nobody');
RESET session_replication_role;
SELECT problem, key FROM verify_inverted_index('net_inverted') ORDER BY problem, key::text;
SELECT rebuild_inverted_index('net_inverted');
SELECT pg_temp.drift('net_inverted');
SELECT rebuild_inverted_index('net_inverted');
-- an index row written behind the triggers' back (a data-only restore with
-- --disable-triggers into a table that had rows, say) is replaced by the
-- base row's, not an error
SET session_replication_role = replica;
INSERT INTO net_inverted VALUES ('FOLLOWS#USER#bob', 'USER#collide');
RESET session_replication_role;
INSERT INTO net VALUES ('USER#collide', 'FOLLOWS#USER#bob', NULL);
SELECT count(*) FROM net WHERE pk = 'USER#collide';
SELECT pg_temp.drift('net_inverted');

-- degree counters: per node and edge, out and in, as insert-only delta
-- rows, maintained by the same triggers in the same transaction
CREATE TABLE follows (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO follows VALUES ('USER#alice', 'FOLLOWS#USER#bob', NULL),
	('USER#alice', 'PROFILE', NULL), ('USER#carol', 'FOLLOWS#USER#bob', NULL);
SELECT create_inverted_index('follows', include => '{data}', counters => 4);
\d follows_inverted_degree
SELECT node, edge, direction, sum(n) FROM follows_inverted_degree GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
INSERT INTO follows SELECT 'USER#u' || g, 'FOLLOWS#USER#bob', NULL FROM generate_series(1, 100) g;
SELECT count(*) > 1 AS delta_rows FROM follows_inverted_degree WHERE node = 'USER#bob';
UPDATE follows SET sk = 'FOLLOWS#USER#dave' WHERE pk = 'USER#u1';	-- moves an edge
UPDATE follows SET data = '{"a": 1}' WHERE pk = 'USER#u2';			-- projection only
DELETE FROM follows WHERE pk = 'USER#u3';
INSERT INTO follows VALUES ('USER#u4', 'FOLLOWS#USER#bob', NULL) ON CONFLICT DO NOTHING;
BEGIN;
DELETE FROM follows WHERE pk ^@ 'USER#u5';
ROLLBACK;
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS', 'in') AS bob_followers,
	   edge_count('follows_inverted', 'USER#dave', 'FOLLOWS', 'in') AS dave_followers,
	   edge_count('follows_inverted', 'USER#alice', 'FOLLOWS', 'out') AS alice_follows,
	   edge_count('follows_inverted', 'USER#alice', 'PROFILE') AS alice_profiles,
	   edge_count('follows_inverted', 'USER#nobody', 'FOLLOWS', 'in') AS nobody;
SELECT count(*) AS bob_followers_recount FROM follows WHERE sk = 'FOLLOWS#USER#bob';
SELECT pg_temp.drift('follows_inverted');
-- compaction folds the delta rows into one per group
SELECT compact_counters('follows_inverted') > 0 AS removed_rows;
SELECT count(*) AS rows_for_bob FROM follows_inverted_degree WHERE node = 'USER#bob';
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS', 'in') AS bob_followers;
SELECT pg_temp.drift('follows_inverted');
-- counters are guarded like the index; their drift (replica role) is found
-- and repaired by verify and rebuild
INSERT INTO follows_inverted_degree VALUES ('USER#bob', 'FOLLOWS', 'i', 5);
SET session_replication_role = replica;
INSERT INTO follows_inverted_degree VALUES ('USER#bob', 'FOLLOWS', 'i', 5);
RESET session_replication_role;
SELECT problem, key, expected, actual FROM verify_inverted_index('follows_inverted');
SELECT rebuild_inverted_index('follows_inverted');
SELECT pg_temp.drift('follows_inverted');
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS', 'in') AS bob_followers;
-- an edge name with or without its trailing separator is the same
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS#', 'in') AS with_separator;
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS#USER', 'in');
-- a sort key ending in the separator has no target: counted out only, no empty key
INSERT INTO follows VALUES ('USER#x', 'FOLLOWS#', NULL);
SELECT count(*) AS empty_nodes FROM follows_inverted_degree WHERE node::text = '';
SELECT edge_count('follows_inverted', 'USER#x', 'FOLLOWS', 'out') AS x_out;
DELETE FROM follows WHERE pk = 'USER#x';
SELECT pg_temp.drift('follows_inverted');
BEGIN;
TRUNCATE follows;
SELECT count(*) FROM follows_inverted_degree;
ROLLBACK;
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS', 'sideways');
SELECT edge_count('net_inverted', 'USER#bob', 'FOLLOWS', 'in');
-- dropping the counter table leaves the index without counters
DROP TABLE follows_inverted_degree;
SELECT counterrel FROM adjlist_inverted_indexes WHERE indexrel = 'follows_inverted'::regclass;
INSERT INTO follows VALUES ('USER#y', 'FOLLOWS#USER#bob', NULL);
SELECT edge_count('follows_inverted', 'USER#bob', 'FOLLOWS', 'in');
SELECT pg_temp.drift('follows_inverted');
SELECT drop_inverted_index('follows_inverted');

-- privileges: the index is written with its owner's rights, so a role that
-- may write the table needs none on the index, and cannot write it directly
CREATE ROLE regress_adjlist_owner;
CREATE ROLE regress_adjlist_writer;
CREATE ROLE regress_adjlist_stranger;
CREATE SCHEMA adjlist_priv AUTHORIZATION regress_adjlist_owner;
SET ROLE regress_adjlist_owner;
CREATE TABLE adjlist_priv.edges (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('adjlist_priv.edges');
GRANT USAGE ON SCHEMA adjlist_priv TO regress_adjlist_writer, regress_adjlist_stranger;
GRANT SELECT, INSERT, UPDATE, DELETE ON adjlist_priv.edges TO regress_adjlist_writer;
RESET ROLE;
SELECT pg_get_userbyid(relowner) AS index_owner FROM pg_class WHERE oid = 'adjlist_priv.edges_inverted'::regclass;
SET ROLE regress_adjlist_writer;
INSERT INTO adjlist_priv.edges VALUES ('USER#w', 'FOLLOWS#USER#bob');
UPDATE adjlist_priv.edges SET sk = 'FOLLOWS#USER#carol' WHERE pk = 'USER#w';
INSERT INTO adjlist_priv.edges VALUES ('USER#x', 'FOLLOWS#USER#bob');
DELETE FROM adjlist_priv.edges WHERE pk = 'USER#x';
SELECT * FROM adjlist_priv.edges_inverted;
INSERT INTO adjlist_priv.edges_inverted VALUES ('FOLLOWS#USER#bob', 'USER#forged');
RESET ROLE;
SELECT * FROM adjlist_priv.edges_inverted;
-- a non-owner may not create or drop an index on the table
SET ROLE regress_adjlist_stranger;
SELECT create_inverted_index('adjlist_priv.edges', index_name => 'mine');
SELECT drop_inverted_index('adjlist_priv.edges_inverted');
-- nor write the registry: only adjlist's own functions do
DELETE FROM adjlist_inverted_indexes;
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
	VALUES ('pg_class', 'adjlist_priv.edges', '{sk,pk}', 2, '{pk,sk}');
UPDATE adjlist_inverted_indexes SET mode = 'api';
RESET ROLE;
SELECT count(*) AS still_registered FROM adjlist_inverted_indexes WHERE baserel = 'adjlist_priv.edges'::regclass;

-- a hostile search_path: a same-named index table, a same-named equality
-- operator and trigger function earlier in the path change nothing
CREATE SCHEMA adjlist_evil;
CREATE TABLE adjlist_evil.edges_inverted (sk adjkey, pk adjkey);
CREATE FUNCTION adjlist_evil.always_true(adjkey, adjkey) RETURNS bool
	LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR adjlist_evil.= (LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjlist_evil.always_true);
CREATE FUNCTION adjlist_evil.adjlist_sync_trigger() RETURNS trigger
	LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''hijacked''; END';
SET search_path = adjlist_evil, adjlist_priv, public;
INSERT INTO edges VALUES ('USER#y', 'FOLLOWS#USER#bob'), ('USER#z', 'FOLLOWS#USER#bob');
DELETE FROM edges WHERE pk OPERATOR(public.=) 'USER#y';
SELECT count(*) AS evil_rows FROM adjlist_evil.edges_inverted;
RESET search_path;
SELECT * FROM adjlist_priv.edges_inverted ORDER BY 1, 2;
SELECT count(*) AS drift FROM verify_inverted_index('adjlist_priv.edges_inverted');
DROP SCHEMA adjlist_evil CASCADE;
DROP SCHEMA adjlist_priv CASCADE;
SELECT count(*) AS registered_priv FROM adjlist_inverted_indexes WHERE indexrel::text LIKE 'adjlist_priv%';
DROP ROLE regress_adjlist_owner;
DROP ROLE regress_adjlist_writer;
DROP ROLE regress_adjlist_stranger;

-- triggers without a registration, as pg_dump -t or -n leaves them (the
-- registry's rows are the extension's configuration, dumped with the whole
-- database only), and as a schema-only restore leaves them until the
-- registry's rows are restored: a write would not reach the index, and is
-- refused (55000, naming the index and its table).  A session restoring a
-- dump (check_function_bodies off and an empty search_path, as every pg_dump
-- script and pg_restore set them) writes through unindexed, and the index
-- and counter tables are not guarded (they are no index yet).  When the
-- registration arrives (pg_restore copies the registry's rows), the index
-- is rebuilt from the table.  (A fresh session: a session caches the
-- registry and learns of changes from adjlist's own invalidations, which a
-- superuser's raw DELETE does not send.)
CREATE TABLE orphan (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('orphan', counters => 1);
INSERT INTO orphan VALUES ('USER#a', 'FOLLOWS#USER#b');
CREATE TABLE saved_registration AS
	SELECT * FROM adjlist_inverted_indexes WHERE baserel = 'orphan'::regclass;
DELETE FROM adjlist_inverted_indexes WHERE baserel = 'orphan'::regclass;
\c
INSERT INTO orphan VALUES ('USER#c', 'FOLLOWS#USER#b');
\set VERBOSITY terse
UPDATE orphan SET sk = 'FOLLOWS#USER#c';
DELETE FROM orphan;
TRUNCATE orphan;
COPY orphan FROM stdin;
USER#c	FOLLOWS#USER#b
\.
SET check_function_bodies = false;	-- not a restore yet
INSERT INTO orphan VALUES ('USER#c', 'FOLLOWS#USER#b');
\set VERBOSITY default
SELECT pg_catalog.set_config('search_path', '', false);
INSERT INTO public.orphan VALUES ('USER#c', 'FOLLOWS#USER#b'), ('USER#d', 'FOLLOWS#USER#b');
DELETE FROM public.orphan WHERE pk OPERATOR(public.=) 'USER#a';
INSERT INTO public.orphan_inverted VALUES ('FOLLOWS#USER#x', 'USER#junk');
COPY public.orphan_inverted_degree FROM stdin;
USER#b	FOLLOWS	i	40
\.
RESET check_function_bodies;
RESET search_path;
SELECT (SELECT count(*) FROM orphan) AS base_rows, (SELECT count(*) FROM orphan_inverted) AS index_rows;
-- a registration is checked like create_inverted_index(existing => true)
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
	VALUES ('orphan', 'orphan', '{sk,pk}', 2, '{pk,sk}');
\set VERBOSITY terse
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
	VALUES ('net_inverted', 'orphan', '{sk,pk}', 2, '{pk,sk}');
\set VERBOSITY default
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
	VALUES ('orphan_inverted', 'orphan', '{sk,nope}', 2, '{pk,sk}');
-- the registration comes back: the index and its counters are the table's
INSERT INTO adjlist_inverted_indexes SELECT * FROM saved_registration;
SELECT * FROM orphan_inverted ORDER BY 1, 2;
SELECT edge_count('orphan_inverted', 'USER#b', 'FOLLOWS', 'in') AS b_in;
SELECT count(*) AS drift FROM verify_inverted_index('orphan_inverted');
INSERT INTO orphan VALUES ('USER#e', 'FOLLOWS#USER#b');
SELECT edge_count('orphan_inverted', 'USER#b', 'FOLLOWS', 'in') AS b_in;
INSERT INTO orphan_inverted VALUES ('FOLLOWS#USER#x', 'USER#junk');
DROP TABLE orphan, saved_registration;

-- two indexes whose registrations are both missing (pg_dump -t of a table
-- and its two index tables): registering one again is not enough, a write
-- is refused while the other index table (found by its comment) is not
-- registered, naming it; registering it too lets writes through
CREATE TABLE twice (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('twice');
SELECT create_inverted_index('twice', index_name => 'twice_second');
INSERT INTO twice VALUES ('USER#a', 'FOLLOWS#USER#b');
DELETE FROM adjlist_inverted_indexes WHERE baserel = 'twice'::regclass;
\c
INSERT INTO twice VALUES ('USER#c', 'FOLLOWS#USER#b');
SELECT create_inverted_index('twice', index_name => 'twice_inverted', existing => true);
INSERT INTO twice VALUES ('USER#c', 'FOLLOWS#USER#b');
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY terse
TRUNCATE twice;
\set VERBOSITY default
SELECT (SELECT count(*) FROM twice) AS base_rows, (SELECT count(*) FROM twice_inverted) AS index_rows,
	   (SELECT count(*) FROM twice_second) AS second_rows;
SELECT create_inverted_index('twice', index_name => 'twice_second', existing => true);
INSERT INTO twice VALUES ('USER#c', 'FOLLOWS#USER#b');
SELECT (SELECT count(*) FROM verify_inverted_index('twice_inverted')) AS drift,
	   (SELECT count(*) FROM verify_inverted_index('twice_second')) AS drift_second,
	   (SELECT count(*) FROM twice_second) AS second_rows;
DROP TABLE twice;

-- the comments that name an index table's base follow renames of the
-- base (and of its schema): after a rename, the lost registration of the
-- second index still refuses writes, and a new table that takes the old
-- name is not taken for its base
CREATE TABLE renamed (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('renamed');
SELECT create_inverted_index('renamed', index_name => 'renamed_second');
ALTER TABLE renamed RENAME TO renamed_now;
SELECT obj_description('renamed_second'::regclass, 'pg_class') AS comment;
DELETE FROM adjlist_inverted_indexes WHERE baserel = 'renamed_now'::regclass;
\c
SELECT create_inverted_index('renamed_now', index_name => 'renamed_inverted', existing => true);
\set VERBOSITY terse
INSERT INTO renamed_now VALUES ('USER#c', 'FOLLOWS#USER#b');
\set VERBOSITY default
CREATE TABLE renamed (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('renamed', index_name => 'renamed_new');
INSERT INTO renamed VALUES ('USER#x', 'FOLLOWS#USER#y');
SELECT create_inverted_index('renamed_now', index_name => 'renamed_second', existing => true);
INSERT INTO renamed_now VALUES ('USER#c', 'FOLLOWS#USER#b');
-- a comment someone else wrote is theirs: left as it is
COMMENT ON TABLE renamed_new IS 'my own words';
ALTER TABLE renamed RENAME TO renamed_too;
SELECT obj_description('renamed_new'::regclass, 'pg_class') AS comment;
DROP TABLE renamed_now, renamed_too;
-- a comment is anyone's to write on their own table: one naming another
-- role's base table does not make writes to it refused (an index table is
-- in its base's schema and has its owner)
CREATE ROLE regress_commenter;
CREATE SCHEMA commenter AUTHORIZATION regress_commenter;
CREATE TABLE victim (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('victim');
SET ROLE regress_commenter;
CREATE TABLE commenter.decoy (sk adjkey, pk adjkey);
COMMENT ON TABLE commenter.decoy IS 'adjlist inverted index of public.victim (partition key sk, sort key pk)';
CREATE TEMP TABLE decoy_temp (sk adjkey, pk adjkey);
COMMENT ON TABLE decoy_temp IS 'adjlist inverted index of public.victim (partition key sk, sort key pk)';
RESET ROLE;
INSERT INTO victim VALUES ('USER#a', 'FOLLOWS#USER#b');
SELECT count(*) AS indexed FROM victim_inverted;
DROP TABLE victim, decoy_temp;
DROP SCHEMA commenter CASCADE;
DROP ROLE regress_commenter;

-- The index table of a new index that projects columns is written in key
-- order (clustered on its primary key, as CREATE INDEX sorts): a node's
-- in-edges with their data are on a few pages, whatever order the base
-- table's rows are in.  Also sparse, and partitioned.  An index table of
-- keys alone (read from its primary key only) is written in the base
-- table's order.
CREATE TABLE scattered (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO scattered
SELECT 'USER#' || (i * 7919 % 500), 'FOLLOWS#USER#' || (i * 104729 % 97), jsonb_build_object('i', i)
FROM generate_series(1, 2000) i ON CONFLICT DO NOTHING;
SELECT create_inverted_index('scattered', include => '{data}');
SELECT create_inverted_index('scattered', index_name => 'scattered_sparse', include => '{data}',
							 predicate => $$data @> '{"i": 7}' OR (data->>'i')::int % 3 = 0$$);
SELECT create_inverted_index('scattered', index_name => 'scattered_parts', include => '{data}',
							 partitions => 2);
SELECT create_inverted_index('scattered', index_name => 'scattered_keys');
CREATE FUNCTION pg_temp.in_key_order(t regclass) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	r boolean;
BEGIN
	EXECUTE format('SELECT bool_and(by_place = by_key) FROM (SELECT row_number() OVER (ORDER BY ctid) AS by_place,
					row_number() OVER (ORDER BY sk, pk) AS by_key FROM %s) o', t) INTO r;
	RETURN r;
END $$;
SELECT (SELECT count(*) FROM scattered_inverted) AS index_rows,
	   pg_temp.in_key_order('scattered_inverted') AS clustered,
	   pg_temp.in_key_order('scattered_sparse') AS sparse_clustered,
	   (SELECT bool_and(pg_temp.in_key_order(inhrelid::regclass)) FROM pg_inherits
		WHERE inhparent = 'scattered_parts'::regclass) AS partitions_clustered,
	   pg_temp.in_key_order('scattered_keys') AS keys_only_clustered,
	   (SELECT bool_and(by_place = by_key) FROM (SELECT row_number() OVER (ORDER BY ctid) AS by_place,
		row_number() OVER (ORDER BY pk, sk) AS by_key FROM scattered) o) AS base_in_key_order;
SELECT count(*) AS drift FROM verify_inverted_index('scattered_inverted');
DROP TABLE scattered;

-- An index table made by the caller (existing => true) is written by its key
-- columns (sk, pk).  A primary key that is not exactly those, in that
-- order, a unique index that leaves one of them out, or an exclusion
-- constraint could refuse or silently drop index rows whose keys differ:
-- registration refuses them (42P16) and writes nothing.  No primary key, or
-- only UNIQUE (sk, pk), is what the writer expects (it finds rows by the
-- key columns): accepted, and the index stays exact.
CREATE TABLE adopt (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adopt VALUES ('USER#a', 'FOLLOWS#USER#z', NULL), ('USER#b', 'FOLLOWS#USER#z', NULL),
	('USER#c', 'FOLLOWS#USER#z', NULL);
CREATE TABLE adopt_by_sk (sk adjkey, pk adjkey, PRIMARY KEY (sk));
CREATE TABLE adopt_reversed (sk adjkey, pk adjkey, PRIMARY KEY (pk, sk));
CREATE TABLE adopt_wide (sk adjkey, pk adjkey, n int DEFAULT 0, PRIMARY KEY (sk, pk, n));
CREATE TABLE adopt_per_source (sk adjkey, pk adjkey, UNIQUE (pk));
CREATE TABLE adopt_by_expr (sk adjkey, pk adjkey);
CREATE UNIQUE INDEX adopt_by_expr_sk ON adopt_by_expr (sk, (pk::text < 'USER#m'));
CREATE TABLE adopt_excl (sk adjkey, pk adjkey, EXCLUDE USING btree (sk WITH =));
SELECT create_inverted_index('adopt', index_name => 'adopt_by_sk', existing => true);
SELECT create_inverted_index('adopt', index_name => 'adopt_reversed', existing => true);
SELECT create_inverted_index('adopt', index_name => 'adopt_wide', existing => true);
SELECT create_inverted_index('adopt', index_name => 'adopt_per_source', existing => true);
SELECT create_inverted_index('adopt', index_name => 'adopt_by_expr', existing => true);
\set VERBOSITY sqlstate
SELECT create_inverted_index('adopt', index_name => 'adopt_excl', existing => true);
\set VERBOSITY default
SELECT (SELECT count(*) FROM adjlist_inverted_indexes WHERE baserel = 'adopt'::regclass) AS registered,
	   (SELECT count(*) FROM adopt_by_sk) + (SELECT count(*) FROM adopt_per_source) AS rows_written;
CREATE TABLE adopt_nokey (sk adjkey, pk adjkey);
CREATE TABLE adopt_unique (sk adjkey, pk adjkey, UNIQUE (sk, pk));
SELECT create_inverted_index('adopt', index_name => 'adopt_nokey', existing => true);
SELECT create_inverted_index('adopt', index_name => 'adopt_unique', existing => true);
INSERT INTO adopt VALUES ('USER#d', 'FOLLOWS#USER#z', NULL), ('USER#d', 'FOLLOWS#USER#y', NULL);
UPDATE adopt SET sk = 'FOLLOWS#USER#y' WHERE pk = 'USER#a';
DELETE FROM adopt WHERE pk = 'USER#b';
INSERT INTO adopt VALUES ('USER#c', 'FOLLOWS#USER#z', '{"again": true}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
SELECT put_edge('adopt', 'USER#e', 'FOLLOWS#USER#z');
SELECT (SELECT count(*) FROM adopt_nokey) AS nokey_rows, (SELECT count(*) FROM adopt_unique) AS unique_rows,
	   (SELECT count(*) FROM verify_inverted_index('adopt_nokey')) +
	   (SELECT count(*) FROM verify_inverted_index('adopt_unique')) AS drift;
SELECT neighbor FROM reverse_neighbors('adopt', 'USER#z', 'FOLLOWS#');
-- the same checked after DDL: a primary key or unique index that could
-- lose rows is refused (55000, naming the table), the right primary key is
-- fine (pg_restore adds it so), and an index table's key cannot be dropped
CREATE TABLE quiet (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
CREATE TABLE quiet_rev (sk adjkey NOT NULL, pk adjkey NOT NULL);
SELECT create_inverted_index('quiet', index_name => 'quiet_rev', existing => true);
ALTER TABLE quiet_rev ADD PRIMARY KEY (sk);
ALTER TABLE quiet_rev ADD CONSTRAINT one_per_source UNIQUE (pk);
CREATE UNIQUE INDEX quiet_rev_sk ON quiet_rev (sk);
ALTER TABLE quiet_rev ADD PRIMARY KEY (sk, pk);
ALTER TABLE quiet_rev DROP CONSTRAINT quiet_rev_pkey;
ALTER TABLE quiet_rev DROP CONSTRAINT quiet_rev_pkey, ADD PRIMARY KEY (sk);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'quiet_rev'::regclass
	AND contype <> 'n';	-- (PostgreSQL 18 lists NOT NULL constraints too)
SELECT count(*) AS other_indexes FROM pg_index WHERE indrelid = 'quiet_rev'::regclass AND NOT indisprimary;
-- a key changed behind the guards' back (a superuser's event triggers
-- off: they fire in replica mode too): every use of the index refuses it,
-- rows are not lost
BEGIN;
ALTER EVENT TRIGGER adjlist_ddl_start DISABLE;
ALTER EVENT TRIGGER adjlist_ddl_end DISABLE;
ALTER TABLE quiet_rev DROP CONSTRAINT quiet_rev_pkey, ADD PRIMARY KEY (sk);
ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;
ALTER EVENT TRIGGER adjlist_ddl_end ENABLE ALWAYS;
COMMIT;
INSERT INTO quiet VALUES ('USER#a', 'FOLLOWS#USER#z'), ('USER#b', 'FOLLOWS#USER#z');
SELECT neighbor FROM reverse_neighbors('quiet', 'USER#z', 'FOLLOWS#');
SELECT count(*) AS base_rows FROM quiet;
BEGIN;
ALTER EVENT TRIGGER adjlist_ddl_start DISABLE;
ALTER EVENT TRIGGER adjlist_ddl_end DISABLE;
ALTER TABLE quiet_rev DROP CONSTRAINT quiet_rev_pkey, ADD PRIMARY KEY (sk, pk);
ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;
ALTER EVENT TRIGGER adjlist_ddl_end ENABLE ALWAYS;
COMMIT;
INSERT INTO quiet VALUES ('USER#a', 'FOLLOWS#USER#z'), ('USER#b', 'FOLLOWS#USER#z');
SELECT neighbor FROM reverse_neighbors('quiet', 'USER#z', 'FOLLOWS#');
DROP TABLE adopt, adopt_by_sk, adopt_reversed, adopt_wide, adopt_per_source, adopt_by_expr,
	adopt_excl, quiet;

-- existing => true: a column of the index table that the index uses must be
-- plain.  A generated one (STORED or, on PostgreSQL 18, VIRTUAL) would hold
-- its expression's value instead of what adjlist writes, forever (a rebuild
-- writes the same); an identity column is refused too (42P16).  So is one in
-- a partition of the index table: PostgreSQL 15 lets a partition have a
-- generated column its parent does not have (adjlist refuses it), 16 and
-- later refuse the partition (the block says the same either way).
CREATE TABLE gen (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
INSERT INTO gen VALUES ('A', 'F#B', 1);
CREATE TABLE gen_key (sk adjkey GENERATED ALWAYS AS (pk) STORED, pk adjkey, PRIMARY KEY (sk, pk));
CREATE TABLE gen_proj (sk adjkey, pk adjkey, n int GENERATED ALWAYS AS (42) STORED, PRIMARY KEY (sk, pk));
CREATE TABLE gen_ident (sk adjkey, pk adjkey, n int GENERATED BY DEFAULT AS IDENTITY, PRIMARY KEY (sk, pk));
SELECT create_inverted_index('gen', index_name => 'gen_key', existing => true);
SELECT create_inverted_index('gen', index_name => 'gen_proj', include => '{n}', existing => true);
SELECT create_inverted_index('gen', index_name => 'gen_ident', include => '{n}', existing => true);
CREATE TABLE gen_parts (sk adjkey, pk adjkey, n int) PARTITION BY LIST (pk);
CREATE TABLE gen_parts_a PARTITION OF gen_parts FOR VALUES IN ('A');
CREATE TABLE gen_parts_c (sk adjkey, pk adjkey, n int GENERATED ALWAYS AS (42) STORED);
DO $$
BEGIN
	BEGIN
		ALTER TABLE gen_parts ATTACH PARTITION gen_parts_c FOR VALUES IN ('C');
	EXCEPTION WHEN datatype_mismatch THEN	-- (16 and later)
		RAISE NOTICE 'a partition with a generated column is refused';
		RETURN;
	END;
	PERFORM create_inverted_index('gen', index_name => 'gen_parts', include => '{n}', existing => true);
	RAISE EXCEPTION 'gen_parts was registered';
EXCEPTION WHEN invalid_table_definition THEN
	IF SQLERRM <> 'column "n" of table "gen_parts_c" is a generated column' THEN
		RAISE;
	END IF;
	RAISE NOTICE 'a partition with a generated column is refused';
END
$$;
SELECT count(*) AS registered FROM adjlist_inverted_indexes WHERE baserel = 'gen'::regclass;
-- a plain index table of the same shape is fine
CREATE TABLE gen_plain (sk adjkey, pk adjkey, n int, PRIMARY KEY (sk, pk));
SELECT create_inverted_index('gen', index_name => 'gen_plain', include => '{n}', existing => true);
INSERT INTO gen VALUES ('C', 'F#B', 2);
SELECT * FROM gen_plain ORDER BY pk;
DROP TABLE gen, gen_key, gen_proj, gen_ident, gen_parts, gen_parts_c;

-- PostgreSQL 18's virtual generated columns store no value: the triggers see
-- null for them (and a predicate over one fails on every write, XX000).  An
-- index uses none in any role (0A000): projected (by name or by '{*}', which
-- create_inverted_index() resolves once), as the expiry column, in the base
-- table's key or in the predicate; nor can an index table have one.  A
-- virtual column the index does not use is fine, and one added after a
-- '{*}' index stays out of it.  On older servers there is nothing to check:
-- the block checks the messages itself, so the output is the same.
CREATE FUNCTION pg_temp.refused(stmt text, code text, msg text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RAISE EXCEPTION 'not refused: %', stmt;
EXCEPTION WHEN OTHERS THEN
	IF SQLSTATE <> code OR SQLERRM <> msg THEN
		RAISE EXCEPTION 'refused as % "%", not as % "%": %', SQLSTATE, SQLERRM, code, msg, stmt;
	END IF;
END
$$;
DO $$
DECLARE
	v text := 'column "v" of table "virt" is a virtual generated column';
BEGIN
	IF current_setting('server_version_num')::int < 180000 THEN
		RETURN;
	END IF;
	-- (EXECUTE: older servers cannot even parse VIRTUAL)
	EXECUTE 'CREATE TABLE virt (pk adjkey, sk adjkey, n int, v int GENERATED ALWAYS AS (n * 2) VIRTUAL,
		e bigint GENERATED ALWAYS AS (4000000000 + n) VIRTUAL, PRIMARY KEY (pk, sk))';
	INSERT INTO virt (pk, sk, n) VALUES ('A', 'B#1', 1), ('A', 'B#2', 2);
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', include => '{v}')$q$, '0A000', v);
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', include => '{v}', partitions => 2)$q$, '0A000', v);
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', include => '{v}', mode => 'api')$q$, '0A000', v);
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', include => '{*}')$q$, '0A000', v);
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', base_key => '{pk,sk,v}')$q$, '0A000', v);
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', predicate => 'n > 0 AND v > 2')$q$, '0A000', v);
	PERFORM set_ttl('virt', 'e');
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt')$q$, '0A000',
							'column "e" of table "virt" is a virtual generated column');
	PERFORM set_ttl('virt', NULL);
	EXECUTE 'CREATE TABLE virt_rev (sk adjkey, pk adjkey, n int GENERATED ALWAYS AS (7) VIRTUAL, PRIMARY KEY (sk, pk))';
	PERFORM pg_temp.refused($q$SELECT create_inverted_index('virt', index_name => 'virt_rev', include => '{n}', existing => true)$q$,
							'42P16', 'column "n" of table "virt_rev" is a generated column');
	IF EXISTS (SELECT FROM adjlist_inverted_indexes WHERE baserel = 'virt'::regclass) THEN
		RAISE EXCEPTION 'an index of virt was registered';
	END IF;
	-- what is fine: the column left out, or added after a '{*}' index
	PERFORM create_inverted_index('virt', include => '{n}', predicate => 'n * 2 > 2');
	CREATE TABLE virt_later (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
	PERFORM create_inverted_index('virt_later', include => '{*}');
	EXECUTE 'ALTER TABLE virt_later ADD COLUMN v int GENERATED ALWAYS AS (n * 2) VIRTUAL';
	INSERT INTO virt (pk, sk, n) VALUES ('C', 'B#1', 7);
	UPDATE virt SET n = 5 WHERE pk = 'A';
	INSERT INTO virt_later (pk, sk, n) VALUES ('A', 'B#1', 1);
	UPDATE virt_later SET n = 3;
	IF (SELECT count(*) FROM virt_inverted) <> 3 OR (SELECT count(*) FROM virt_later_inverted WHERE n = 3) <> 1
		OR EXISTS (SELECT FROM verify_inverted_index('virt_inverted'))
		OR EXISTS (SELECT FROM verify_inverted_index('virt_later_inverted')) THEN
		RAISE EXCEPTION 'an index with virtual columns around is not exact';
	END IF;
	IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'virt_later_inverted'::regclass AND attname = 'v') THEN
		RAISE EXCEPTION 'a column added later was projected';
	END IF;
	DROP TABLE virt, virt_rev, virt_later;
END
$$;

-- Projected columns whose type's bare name implies a modifier: character
-- is character(1), bit is bit(1).  Where SQL names their type in a cast or
-- a column definition (the writer of a deferrable key's index, which
-- deletes one row by comparing every column; the SQL path of a
-- partitioned index; verify), it must be the type without a modifier, or
-- 'ab ' is cut to 'a' and the row is not found.
CREATE TABLE padded (pk adjkey, sk adjkey, tag char(3), b bit(3), v varchar(4),
	PRIMARY KEY (pk, sk) DEFERRABLE);
SELECT create_inverted_index('padded', include => '{tag,b,v}');
CREATE TABLE padded_parts (LIKE padded, PRIMARY KEY (pk, sk) DEFERRABLE);
SELECT create_inverted_index('padded_parts', include => '{tag,b,v}', partitions => 2);
INSERT INTO padded VALUES ('A', 'F#1', 'ab', '101', 'ab'), ('A', 'F#2', 'abc', '111', 'abcd');
INSERT INTO padded_parts SELECT * FROM padded;
DELETE FROM padded WHERE sk = 'F#1';
DELETE FROM padded_parts WHERE sk = 'F#1';
UPDATE padded SET tag = 'zz', b = '011';
UPDATE padded_parts SET tag = 'zz', b = '011';
SELECT * FROM padded_inverted;
SELECT * FROM padded_parts_inverted;
SELECT * FROM verify_inverted_index('padded_inverted');
SELECT * FROM verify_inverted_index('padded_parts_inverted');
DROP TABLE padded, padded_parts;

-- A row removed from an index table without row triggers is deleted where
-- the look-up finds it (no tuple lock first): rows found or not, one
-- statement removing several, and the replica identity checked as the
-- executor's DELETE checks it: an index table published for deletes with
-- REPLICA IDENTITY NOTHING refuses the delete, before and after.
CREATE TABLE rmv (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('rmv', include => '{data}');
INSERT INTO rmv SELECT 'USER#' || (i % 3), 'FOLLOWS#USER#' || i, jsonb_build_object('i', i)
FROM generate_series(1, 9) i;
DELETE FROM rmv WHERE pk = 'USER#1';
DELETE FROM rmv WHERE pk = 'USER#none';
BEGIN;
DELETE FROM rmv WHERE sk = 'FOLLOWS#USER#3';
INSERT INTO rmv VALUES ('USER#0', 'FOLLOWS#USER#3', '{"again": true}');
DELETE FROM rmv WHERE sk = 'FOLLOWS#USER#6';
COMMIT;
SELECT sk, pk, data FROM rmv_inverted ORDER BY sk, pk;
SELECT * FROM verify_inverted_index('rmv_inverted');
ALTER TABLE rmv_inverted REPLICA IDENTITY NOTHING;
SET client_min_messages = error;  -- (a server below wal_level = logical warns)
CREATE PUBLICATION rmv_pub FOR TABLE rmv_inverted WITH (publish = 'delete');
RESET client_min_messages;
DELETE FROM rmv WHERE sk = 'FOLLOWS#USER#9';
INSERT INTO rmv VALUES ('USER#7', 'FOLLOWS#USER#7', NULL);
DROP PUBLICATION rmv_pub;
DELETE FROM rmv WHERE sk = 'FOLLOWS#USER#9';
SELECT count(*) AS rows, (SELECT count(*) FROM verify_inverted_index('rmv_inverted')) AS drift
FROM rmv_inverted;
DROP TABLE rmv;

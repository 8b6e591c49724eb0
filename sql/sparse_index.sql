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
-- (sparse indexes only: no in-edges through them, see the end)
\set VERBOSITY sqlstate
SELECT neighbor FROM reverse_neighbors('g', 'USER#alice', 'FOLLOWS');
\set VERBOSITY default
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

-- In-edges come only from an index that holds every edge.  A sparse index
-- holds some: reverse_neighbors, degree and the traversals in direction in
-- or both, and delete_node, use a full index whichever was created first;
-- with sparse indexes only, the table has no inverted index for them (the
-- error says why).  Two tables with the same rows, the sparse index created
-- first on one and last on the other; the queries run on both.
CREATE TABLE sparse_first (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE full_first (LIKE sparse_first INCLUDING ALL);
SELECT create_inverted_index('sparse_first', index_name => 'sparse_first_active',
							 predicate => $$data @> '{"status": "active"}'$$);
SELECT create_inverted_index('sparse_first');
SELECT create_inverted_index('full_first');
SELECT create_inverted_index('full_first', index_name => 'full_first_active',
							 predicate => $$data @> '{"status": "active"}'$$);
INSERT INTO sparse_first VALUES
	('USER#a', 'FOLLOWS#USER#b', '{"status": "active"}'),
	('USER#c', 'FOLLOWS#USER#b', '{"status": "muted"}'),
	('USER#c', 'FOLLOWS#USER#d', '{"status": "active"}'),
	('USER#e', 'FOLLOWS#USER#d', '{"status": "muted"}'),
	('USER#a', 'PROFILE', '{"status": "active"}');
INSERT INTO full_first SELECT * FROM sparse_first;
CREATE TABLE both_orders (t regclass);
INSERT INTO both_orders VALUES ('sparse_first'), ('full_first');
SELECT t,
	   ARRAY(SELECT neighbor FROM reverse_neighbors(t, 'USER#b', 'FOLLOWS#') ORDER BY 1) AS b_in,
	   ARRAY(SELECT neighbor FROM reverse_neighbors_keys(t, 'USER#b', 'FOLLOWS#') ORDER BY 1) AS b_in_keys,
	   ARRAY(SELECT neighbor FROM reverse_neighbors_nodes(t, 'USER#d', 'FOLLOWS#') ORDER BY 1) AS d_in_nodes,
	   degree(t, 'USER#b', 'FOLLOWS#', 'in') AS b_in_degree,
	   has_edge(t, 'USER#e', 'USER#d', 'FOLLOWS#') AS e_to_d
FROM both_orders ORDER BY 1;
SELECT t,
	   ARRAY(SELECT node FROM traverse(t, 'USER#b', 'FOLLOWS#', 1, 'in') ORDER BY 1) AS b_in_1,
	   ARRAY(SELECT node || '/' || depth FROM traverse(t, 'USER#b', 'FOLLOWS#', 3, 'both') ORDER BY 1) AS b_both_3,
	   reachable_count(t, 'USER#d', 'FOLLOWS#', 2, 'in') AS d_upstream,
	   shortest_path(t, 'USER#b', 'USER#c', 'FOLLOWS#', direction => 'in') AS b_from_c,
	   shortest_path(t, 'USER#a', 'USER#e', 'FOLLOWS#', direction => 'both') AS a_to_e,
	   ARRAY(SELECT common_neighbors(t, 'USER#b', 'USER#d', 'FOLLOWS#', 'in')) AS common_in,
	   ARRAY(SELECT node || '/' || score FROM walk_ranked(t, 'USER#b', ARRAY['FOLLOWS#', 'FOLLOWS#'],
														  ARRAY['in', 'out']) ORDER BY 1) AS walk
FROM both_orders ORDER BY 1;
SELECT to_mermaid('sparse_first', 'USER#b', 'FOLLOWS#', 1, 'in') = to_mermaid('full_first', 'USER#b', 'FOLLOWS#', 1, 'in') AS same_picture,
	   to_dot('sparse_first', 'USER#b', 'FOLLOWS#', 1, 'in');
-- delete_node removes every edge pointing at the node, active or not
SELECT t, delete_node(t, 'USER#b', ARRAY['FOLLOWS#']) AS deleted,
	   delete_node(t, 'USER#d', ARRAY['FOLLOWS#']) AS deleted_d
FROM both_orders ORDER BY 1;
SELECT 'sparse_first' AS t, pk, sk FROM sparse_first UNION ALL
SELECT 'full_first', pk, sk FROM full_first ORDER BY 1, 2, 3;
SELECT (SELECT count(*) FROM verify_inverted_index('sparse_first_inverted')) +
	   (SELECT count(*) FROM verify_inverted_index('sparse_first_active')) +
	   (SELECT count(*) FROM verify_inverted_index('full_first_inverted')) +
	   (SELECT count(*) FROM verify_inverted_index('full_first_active')) AS drift;

-- the full index dropped, sparse ones left: as without an index (42704);
-- reads out of the node and delete_node of its own items go on
SELECT drop_inverted_index('sparse_first_inverted');
SELECT create_inverted_index('sparse_first', index_name => 'sparse_first_follows',
							 predicate => $$sk ^@ 'FOLLOWS#'$$);
INSERT INTO sparse_first VALUES ('USER#f', 'FOLLOWS#USER#g', '{"status": "active"}');
SELECT neighbor FROM reverse_neighbors('sparse_first', 'USER#g', 'FOLLOWS#');
SELECT delete_node('sparse_first', 'USER#g', ARRAY['FOLLOWS#']);
\set VERBOSITY sqlstate
SELECT neighbor FROM reverse_neighbors_keys('sparse_first', 'USER#g', 'FOLLOWS#');
SELECT degree('sparse_first', 'USER#g', 'FOLLOWS#', 'in');
SELECT * FROM traverse('sparse_first', 'USER#g', 'FOLLOWS#', 1, 'in');
SELECT * FROM traverse('sparse_first', 'USER#g', 'FOLLOWS#', 1, 'both');
SELECT reachable_count('sparse_first', 'USER#g', 'FOLLOWS#', 1, 'in');
SELECT shortest_path('sparse_first', 'USER#g', 'USER#f', 'FOLLOWS#', direction => 'in');
SELECT * FROM common_neighbors('sparse_first', 'USER#g', 'USER#f', 'FOLLOWS#', 'in');
SELECT * FROM walk_ranked('sparse_first', 'USER#g', ARRAY['FOLLOWS#', 'FOLLOWS#'], ARRAY['in', 'out']);
SELECT to_dot('sparse_first', 'USER#g', 'FOLLOWS#');
\set VERBOSITY default
SELECT neighbor FROM neighbors('sparse_first', 'USER#f', 'FOLLOWS#');
SELECT degree('sparse_first', 'USER#f', 'FOLLOWS#') AS f_out;
SELECT delete_node('sparse_first', 'USER#f', '{}') AS f_items;
-- a full index again (concurrently): used from then on
CALL create_inverted_index('sparse_first', concurrently => true, index_name => 'sparse_first_all');
INSERT INTO sparse_first VALUES ('USER#h', 'FOLLOWS#USER#g', '{"status": "muted"}');
SELECT neighbor FROM reverse_neighbors('sparse_first', 'USER#g', 'FOLLOWS#');
SELECT delete_node('sparse_first', 'USER#g', ARRAY['FOLLOWS#']);
SELECT count(*) AS left_pointing_at_g FROM sparse_first WHERE sk ^@ 'FOLLOWS#USER#g';
DROP TABLE sparse_first, full_first, both_orders;

-- The predicate is bound to the objects it named when the index was
-- created, as a partial index's is (issue 10): the owner of the schema of
-- a function it calls (not the table's owner) can neither drop the
-- function and put another under its name, nor rename the schema and put
-- one under the old name, to have the triggers run theirs as the table's
-- owner.  Dropping what a predicate calls is refused as for a partial
-- index (2BP01); CASCADE drops the index and counter tables, and the
-- registration with them.
CREATE ROLE regress_sparse_dbo;
CREATE ROLE regress_sparse_tbo;
CREATE ROLE regress_sparse_anyone;
DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO regress_sparse_dbo', current_database()); END $$;
CREATE SCHEMA sparse_util AUTHORIZATION regress_sparse_dbo;
GRANT USAGE, CREATE ON SCHEMA sparse_util TO regress_sparse_tbo;
GRANT USAGE, CREATE ON SCHEMA sparse TO regress_sparse_tbo;
GRANT USAGE ON SCHEMA sparse TO regress_sparse_dbo, regress_sparse_anyone;
CREATE TABLE pwned (who name);
GRANT INSERT ON pwned TO PUBLIC;
SET ROLE regress_sparse_tbo;
CREATE FUNCTION sparse_util.active(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE
	AS $$ SELECT j @> '{"on": true}' $$;
CREATE TABLE fb (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('fb', predicate => 'sparse_util.active(data)', counters => 1);
CREATE TABLE other (x int);
GRANT INSERT ON fb TO PUBLIC;
RESET ROLE;
-- the index and counter tables depend on the function
SELECT classid::regclass, objid::regclass, deptype FROM pg_depend
WHERE refclassid = 'pg_proc'::regclass AND refobjid = 'sparse_util.active(jsonb)'::regprocedure
ORDER BY 2;
-- the schema's owner may not drop it, nor may its owner, without CASCADE
SET ROLE regress_sparse_dbo;
\set VERBOSITY sqlstate
DROP FUNCTION sparse_util.active(jsonb);
\set VERBOSITY default
DROP FUNCTION sparse_util.active(jsonb);
-- so no other function takes its name
CREATE FUNCTION sparse_util.active(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
-- the schema renamed, and a payload under the old names
ALTER SCHEMA sparse_util RENAME TO sparse_util_old;
CREATE SCHEMA sparse_util;
GRANT USAGE ON SCHEMA sparse_util TO PUBLIC;
CREATE FUNCTION sparse_util.payload() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO sparse.pwned VALUES (current_user);
	EXECUTE 'GRANT ALL ON sparse.other TO regress_sparse_dbo';
	RETURN true;
END $$;
CREATE FUNCTION sparse_util.active(j jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE
	AS $$ BEGIN RETURN (SELECT sparse_util.payload()); END $$;
GRANT EXECUTE ON FUNCTION sparse_util.payload(), sparse_util.active(jsonb) TO PUBLIC;
RESET ROLE;
-- the registry's text names the function where it is now
SELECT indexrel, predicate FROM adjlist_inverted_indexes WHERE baserel = 'fb'::regclass;
-- a write by anyone, a rebuild and a verify by the owner: the bound
-- function decides, the payload never runs
SET ROLE regress_sparse_anyone;
INSERT INTO fb VALUES ('U#a', 'F#U#b', '{}'), ('U#b', 'F#U#b', '{"on": true}');
RESET ROLE;
SET ROLE regress_sparse_tbo;
SELECT rebuild_inverted_index('fb_inverted');
SELECT count(*) AS drift FROM verify_inverted_index('fb_inverted');
SELECT put_edge('fb', 'U#c', 'F#U#b', '{"on": true}');
CALL create_inverted_index('fb', concurrently => true, index_name => 'fb_on',
						   predicate => 'sparse_util_old.active(data)');
RESET ROLE;
SELECT * FROM pwned;
SELECT relacl FROM pg_class WHERE oid = 'other'::regclass;
SELECT sk, pk FROM fb_inverted ORDER BY 1, 2;
SELECT sk, pk FROM fb_on ORDER BY 1, 2;
SELECT edge_count('fb_inverted', 'U#b', 'F', 'in');
-- the function renamed by its owner: the text follows, the index works on
SET ROLE regress_sparse_tbo;
ALTER FUNCTION sparse_util_old.active(jsonb) RENAME TO is_active;
RESET ROLE;
SELECT indexrel, predicate FROM adjlist_inverted_indexes WHERE baserel = 'fb'::regclass ORDER BY 1;
INSERT INTO fb VALUES ('U#d', 'F#U#b', '{"on": true}');
SELECT sk, pk FROM fb_on ORDER BY 1, 2;
-- a column the predicate reads cannot change its type under it
SET ROLE regress_sparse_tbo;
ALTER TABLE fb ALTER COLUMN data TYPE json;
RESET ROLE;
-- a registry row restored without the registry's triggers has no bound
-- predicate: refused at use (in a new session: rows written behind
-- adjlist's back invalidate no cache), and bound when the triggers are
-- enabled again, as pg_restore --data-only --disable-triggers does
CREATE TABLE saved AS SELECT * FROM adjlist_inverted_indexes WHERE indexrel = 'fb_on'::regclass;
ALTER TABLE adjlist_inverted_indexes DISABLE TRIGGER ALL;
DELETE FROM adjlist_inverted_indexes WHERE indexrel = 'fb_on'::regclass;
DELETE FROM adjlist_index_predicates WHERE indexrel = 'fb_on'::regclass;
INSERT INTO adjlist_inverted_indexes SELECT * FROM saved;
\c -
SET client_min_messages = warning;
SET search_path = sparse, public;
INSERT INTO fb VALUES ('U#e', 'F#U#b', '{"on": true}');
ALTER TABLE adjlist_inverted_indexes ENABLE TRIGGER ALL;
INSERT INTO fb VALUES ('U#e', 'F#U#b', '{"on": true}');
SELECT sk, pk FROM fb_on ORDER BY 1, 2;
-- (fb_on's dependencies recorded again: those of the row deleted behind
-- adjlist's back were still there)
SELECT objid::regclass, count(*) FROM pg_depend
WHERE refclassid = 'pg_proc'::regclass AND refobjid = 'sparse_util_old.is_active(jsonb)'::regprocedure
GROUP BY 1 ORDER BY 1;
DROP TABLE saved;
-- CASCADE, by the schema's owner: the index and counter tables of both
-- indexes go, and their registrations (then the table's triggers, which
-- keep no index any more)
SET ROLE regress_sparse_dbo;
DROP FUNCTION sparse_util_old.is_active(jsonb) CASCADE;
RESET ROLE;
SELECT indexrel FROM adjlist_inverted_indexes WHERE baserel = 'fb'::regclass;
SELECT count(*) AS bound_unregistered FROM adjlist_index_predicates
WHERE indexrel NOT IN (SELECT indexrel FROM adjlist_inverted_indexes);
SELECT to_regclass('fb_inverted') AS index_table, to_regclass('fb_inverted_degree') AS counters,
	   to_regclass('fb_on') AS other_index;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'fb'::regclass;
INSERT INTO fb VALUES ('U#f', 'F#U#b', '{"on": true}');
SELECT * FROM pwned;

DROP SCHEMA sparse, evil, sparse_util, sparse_util_old CASCADE;
DO $$ BEGIN EXECUTE format('REVOKE CREATE ON DATABASE %I FROM regress_sparse_dbo', current_database()); END $$;
DROP ROLE regress_sparse_dbo, regress_sparse_tbo, regress_sparse_anyone;

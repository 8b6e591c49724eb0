--
-- Installing: by a database owner who is no superuser (the extension is
-- trusted), into a schema off the search_path, and uninstalling without
-- losing a row.  Each case in a database of its own, named after this
-- backend; back to this database at the end.
--
\set regdb :DBNAME
\set su :USER
SELECT 'adjlist_owner_' || pg_backend_pid() AS db_owner,
	   'adjlist_schema_' || pg_backend_pid() AS db_schema \gset
CREATE ROLE regress_adjinst_owner LOGIN;
CREATE ROLE regress_adjinst_user LOGIN;
CREATE DATABASE :"db_owner" OWNER regress_adjinst_owner TEMPLATE template0;
CREATE DATABASE :"db_schema" TEMPLATE template0;

--
-- 1. A database owner without superuser installs and uses it
--
\c :db_owner regress_adjinst_owner
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
-- functions of the owner's, in public (the schema the extension goes to),
-- with closer argument types than pg_catalog's: none of them may be bound
-- into the extension's objects (they would run as the superuser that runs
-- the install script, at every write of the registry); each notes who
-- called it
CREATE TABLE trap_calls (fn text, by_role name);
CREATE FUNCTION public.cardinality(name[]) RETURNS integer LANGUAGE sql AS
	$$ INSERT INTO public.trap_calls VALUES ('cardinality', current_user);
	   SELECT pg_catalog.array_length($1, 1) $$;
CREATE FUNCTION public.array_position(name[], name) RETURNS integer LANGUAGE sql AS
	$$ INSERT INTO public.trap_calls VALUES ('array_position', current_user);
	   SELECT pg_catalog.array_position($1::text[], $2::text) $$;
CREATE FUNCTION public.pg_stat_get_progress_info(text) RETURNS SETOF record LANGUAGE sql AS
	$$ INSERT INTO public.trap_calls VALUES ('pg_stat_get_progress_info', current_user);
	   SELECT * FROM pg_catalog.pg_stat_get_progress_info($1) $$;
CREATE EXTENSION adjlist;
SELECT extname, extowner::regrole FROM pg_extension WHERE extname = 'adjlist';
CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO g VALUES ('USER#a', 'FOLLOWS#USER#b', '{}'), ('USER#c', 'FOLLOWS#USER#b', NULL),
					 ('USER#b', 'FOLLOWS#USER#a', NULL);
SELECT create_inverted_index('g', include => '{data}', counters => 1);
SELECT neighbor FROM reverse_neighbors('g', 'USER#b', 'FOLLOWS#');
SELECT edge_count('g_inverted', 'USER#b', 'FOLLOWS', 'in'),
	   shortest_path('g', 'USER#c', 'USER#a', 'FOLLOWS#'),
	   (SELECT count(*) FROM query('g_inverted', 'FOLLOWS#USER#b'));
SELECT put_edge('g', 'USER#d', 'FOLLOWS#USER#b');
-- the traps were never called, nor bound into the extension's objects
-- (a binding is a dependency on the function: pg_catalog's are not recorded)
SELECT * FROM trap_calls;
SELECT count(*) AS bound_to_owner_functions
FROM pg_depend d
WHERE d.refclassid = 'pg_proc'::regclass
  AND d.refobjid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'public'::regnamespace
					 AND proname IN ('cardinality', 'array_position', 'pg_stat_get_progress_info'));
SELECT count(*) FROM inverted_index_progress;
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
-- the event triggers work as under a superuser install
CREATE TABLE p (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE p0 PARTITION OF p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
SELECT create_inverted_index('p');
CREATE TABLE p1 PARTITION OF p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO p SELECT 'USER#' || i, 'FOLLOWS#USER#x' FROM generate_series(1, 10) i;
SELECT count(*) AS indexed FROM p_inverted;
ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY;
SELECT count(*) AS drift FROM verify_inverted_index('g_inverted');
SELECT count(*) AS drift FROM verify_inverted_index('p_inverted');
-- the registry stays closed to it
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
	VALUES ('g', 'p', '{sk,pk}', 2, '{pk,sk}');
SELECT drop_inverted_index('g_inverted');
SELECT count(*) AS registered FROM adjlist_inverted_indexes;
-- a role that does not own the extension cannot drop it, and a role
-- without CREATE on a database cannot install it there
\c :db_owner regress_adjinst_user
DROP EXTENSION adjlist;
\c :db_schema regress_adjinst_user
CREATE EXTENSION adjlist;

--
-- 2. A schema that is not on the search_path
--
\c :db_schema :su
CREATE SCHEMA "Graph Ext";
CREATE EXTENSION adjlist SCHEMA "Graph Ext";
SET search_path = public;
CREATE TABLE e (pk "Graph Ext".adjkey, sk "Graph Ext".adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO e SELECT ('USER#' || i)::"Graph Ext".adjkey, ('FOLLOWS#USER#' || (i % 7))::"Graph Ext".adjkey, NULL
FROM generate_series(1, 200) i;
SELECT "Graph Ext".create_inverted_index('e');
ANALYZE e;
-- begins_with stays an index range, also in generic plans
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM e
WHERE pk OPERATOR("Graph Ext".=) 'USER#1' AND sk OPERATOR("Graph Ext".^@) 'FOLLOWS#';
PREPARE q(text) AS SELECT count(*) FROM e
WHERE pk OPERATOR("Graph Ext".=) 'USER#1' AND sk OPERATOR("Graph Ext".^@) $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE q('FOLLOWS#');
EXECUTE q('FOLLOWS#');
RESET plan_cache_mode;
RESET enable_seqscan;
-- triggers, graph functions, the write API, verify
INSERT INTO e VALUES ('USER#x', 'FOLLOWS#USER#3', NULL);
SELECT count(*) FROM "Graph Ext".reverse_neighbors('e', 'USER#3', 'FOLLOWS#');
SELECT "Graph Ext".reachable_count('e', 'USER#1', 'FOLLOWS#', 3, 'both');
SELECT * FROM "Graph Ext".related_items('e', 'USER#1', 'FOLLOWS#', 2);
SELECT "Graph Ext".to_mermaid('e', 'USER#x', 'FOLLOWS#', 1, 'out');
SELECT count(*) FROM "Graph Ext".query('e_inverted', 'FOLLOWS#USER#3');
SELECT "Graph Ext".put_edge('e', 'USER#y', 'FOLLOWS#USER#3');
SELECT count(*) AS drift FROM "Graph Ext".verify_inverted_index('e_inverted');

--
-- 2b. Renaming the extension's schema (ALTER SCHEMA ... RENAME): every
-- session, one that used adjlist before the rename as well as a new one,
-- generates its SQL with the new name, and a sparse index's predicate
-- (which names adjlist's ^@) is written again with it.  Relocating the
-- extension (ALTER EXTENSION ... SET SCHEMA) stays refused.
--
CREATE TABLE s (pk "Graph Ext".adjkey, sk "Graph Ext".adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO s VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#a', 'LIKES#POST#1', NULL);
SELECT "Graph Ext".create_inverted_index('s', predicate => $$sk ^@ 'FOLLOWS#'$$, index_name => 's_follows');
-- a session that did not create the index, warm: its caches hold the old name
\c
SELECT count(*) FROM "Graph Ext".query('s_follows', 'FOLLOWS#USER#b');
SELECT count(*) AS drift FROM "Graph Ext".verify_inverted_index('s_follows');
SELECT count(*) FROM "Graph Ext".reverse_neighbors('e', 'USER#3', 'FOLLOWS#');
ALTER SCHEMA "Graph Ext" RENAME TO "Graph";
SELECT indexrel, predicate FROM "Graph".adjlist_inverted_indexes WHERE indexrel = 's_follows'::regclass;
-- the same session
SELECT sort_key FROM "Graph".query('s_follows', 'FOLLOWS#USER#b');
SELECT sort_key FROM "Graph".query('e', 'USER#x');
SELECT count(*) AS drift FROM "Graph".verify_inverted_index('s_follows');
SELECT count(*) AS drift FROM "Graph".verify_inverted_index('e_inverted');
SELECT neighbor FROM "Graph".neighbors('s', 'USER#a', 'FOLLOWS#');
SELECT count(*) FROM "Graph".reverse_neighbors('e', 'USER#3', 'FOLLOWS#');
SELECT "Graph".put_edge('s', 'USER#c', 'FOLLOWS#USER#b');
INSERT INTO s VALUES ('USER#d', 'FOLLOWS#USER#b', NULL), ('USER#d', 'LIKES#POST#1', NULL);
INSERT INTO e VALUES ('USER#z', 'FOLLOWS#USER#3', NULL);
SELECT pk, sk FROM s_follows ORDER BY 1, 2;
SELECT count(*) AS drift FROM "Graph".verify_inverted_index('s_follows');
SELECT count(*) AS drift FROM "Graph".verify_inverted_index('e_inverted');
-- a new session
\c
SELECT sort_key FROM "Graph".query('s_follows', 'FOLLOWS#USER#b');
SELECT count(*) AS drift FROM "Graph".verify_inverted_index('s_follows');
SELECT count(*) FROM "Graph".reverse_neighbors('e', 'USER#3', 'FOLLOWS#');
SELECT neighbor FROM "Graph".neighbors('s', 'USER#d', 'FOLLOWS#');
SELECT "Graph".put_edge('s', 'USER#e', 'FOLLOWS#USER#b');
DELETE FROM s WHERE pk OPERATOR("Graph".=) 'USER#c';
DELETE FROM e WHERE pk OPERATOR("Graph".=) 'USER#z';
SELECT pk, sk FROM s_follows ORDER BY 1, 2;
-- a rename in a transaction that rolls back leaves the old name in use
BEGIN;
ALTER SCHEMA "Graph" RENAME TO "Graph Tmp";
SELECT count(*) FROM "Graph Tmp".query('s_follows', 'FOLLOWS#USER#b');
ROLLBACK;
SELECT count(*) FROM "Graph".query('s_follows', 'FOLLOWS#USER#b');
SELECT count(*) AS drift FROM "Graph".verify_inverted_index('s_follows');
\set VERBOSITY terse
ALTER EXTENSION adjlist SET SCHEMA public;
\set VERBOSITY default
-- and back, in the same session
ALTER SCHEMA "Graph" RENAME TO "Graph Ext";
SELECT predicate FROM "Graph Ext".adjlist_inverted_indexes WHERE indexrel = 's_follows'::regclass;
SELECT "Graph Ext".put_edge('s', 'USER#f', 'FOLLOWS#USER#b');
SELECT count(*) FROM "Graph Ext".query('s_follows', 'FOLLOWS#USER#b');
SELECT count(*) AS drift FROM "Graph Ext".verify_inverted_index('s_follows');
SELECT "Graph Ext".drop_inverted_index('s_follows');
DROP TABLE s;

--
-- 3. Uninstalling: DROP EXTENSION without CASCADE refuses and says why;
-- adjlist_uninstall() drops the inverted indexes and turns the keys into
-- text, and then DROP EXTENSION keeps every row
--
CREATE TABLE arr (id int, path "Graph Ext".adjkey[]);
INSERT INTO arr VALUES (1, ARRAY['USER#1', 'USER#2']::"Graph Ext".adjkey[]);
\set VERBOSITY terse
DROP EXTENSION adjlist;
\set VERBOSITY default
SELECT count(*) AS rows_before FROM e;
-- a table partitioned by an adjkey column cannot change that column's type:
-- refused, nothing done
CREATE TABLE hashed (pk "Graph Ext".adjkey, sk "Graph Ext".adjkey, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE hashed_0 PARTITION OF hashed FOR VALUES WITH (MODULUS 1, REMAINDER 0);
SELECT * FROM "Graph Ext".adjlist_uninstall() ORDER BY 1, 2;
SELECT count(*) AS indexes_kept FROM "Graph Ext".adjlist_inverted_indexes;
DROP TABLE hashed;
SELECT * FROM "Graph Ext".adjlist_uninstall() ORDER BY 1, 2;
DROP EXTENSION adjlist;
SELECT count(*) AS rows_after FROM e;
SELECT pg_typeof(pk), pk, sk FROM e WHERE pk = 'USER#x';
SELECT pg_typeof(path), path FROM arr;
SELECT to_regclass('e_inverted') AS index_table,
	   (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'e'::regclass) AS triggers;

\c :regdb :su
DROP DATABASE :"db_owner";
DROP DATABASE :"db_schema";
DROP ROLE regress_adjinst_owner;
DROP ROLE regress_adjinst_user;

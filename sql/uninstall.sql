--
-- adjlist_uninstall() with objects that use keys besides the columns: column
-- defaults, CHECK constraints, partial indexes and views are rewritten to
-- text under their names; what has no exact text equivalent (a generated
-- column calling key_part, a view calling it, a function on keys) is
-- refused before anything changes, every object listed in one error.  Then
-- DROP EXTENSION adjlist succeeds and every row is kept.  Each case in a
-- database of its own, named after this backend; back to this database at
-- the end.  Section 3: what a hostile table owner can do to a superuser who
-- runs it (nothing).  Section 4: foreign tables (postgres_fdw) and tables
-- partitioned by a key.
--
\set regdb :DBNAME
\set su :USER
SELECT 'adjlist_uninst_public_' || pg_backend_pid() AS db_public,
	   'adjlist_uninst_schema_' || pg_backend_pid() AS db_schema,
	   'adjlist_uninst_hostile_' || pg_backend_pid() AS db_hostile,
	   'adjlist_uninst_fdw_' || pg_backend_pid() AS db_fdw,
	   'adjlist_uninst_shard_' || pg_backend_pid() AS db_shard \gset
CREATE DATABASE :"db_public" TEMPLATE template0;
CREATE DATABASE :"db_schema" TEMPLATE template0;
CREATE DATABASE :"db_hostile" TEMPLATE template0;
CREATE DATABASE :"db_fdw" TEMPLATE template0;
CREATE DATABASE :"db_shard" TEMPLATE template0;

--
-- 1. The extension in public
--
\c :db_public
CREATE EXTENSION adjlist;
CREATE ROLE regress_uninst_reader;
CREATE TABLE g (
	pk   adjkey,
	sk   adjkey DEFAULT 'PROFILE',
	data jsonb,
	PRIMARY KEY (pk, sk),
	CONSTRAINT no_x CHECK (sk <> 'X'),
	CONSTRAINT user_pk CHECK (pk ^@ 'USER#' AND pk::text LIKE 'USER#_%'),
	CONSTRAINT sk_below_z CHECK (sk < 'Z')
);
COMMENT ON CONSTRAINT no_x ON g IS 'no X edges';
INSERT INTO g VALUES ('USER#alice', 'FOLLOWS#USER#bob', '{"since": 2020}'),
					 ('USER#alice', 'PROFILE', '{"name": "Alice"}'),
					 ('USER#bob', 'FOLLOWS#USER#alice', NULL),
					 ('USER#bob', 'LIKES#POST#1', NULL);
INSERT INTO g (pk) VALUES ('USER#carol');
CREATE INDEX g_follows ON g (pk) WHERE sk ^@ 'FOLLOWS#';
COMMENT ON INDEX g_follows IS 'the follow edges';
CREATE VIEW follows WITH (security_barrier) AS
	SELECT pk AS follower, key_tail_of_sk AS followed FROM
	(SELECT pk, sk AS key_tail_of_sk FROM g WHERE sk ^@ 'FOLLOWS#' AND sk >= 'F') s;
COMMENT ON VIEW follows IS 'who follows whom';
GRANT SELECT ON follows TO regress_uninst_reader;
-- a view over that view, with a check option, and a view that reads a key
-- column without any of adjlist's operators
CREATE VIEW follows_alice AS SELECT * FROM follows WHERE followed = 'FOLLOWS#USER#alice'
	WITH LOCAL CHECK OPTION;
CREATE VIEW with_data AS SELECT data FROM g WHERE pk IS NOT NULL AND data IS NOT NULL;
SELECT create_inverted_index('g');
-- what cannot be rewritten exactly: the generated column of the Streams
-- example (key_part is not split_part: it unescapes \# and counts from the
-- end), a view calling key_part, a view sorted by a key (adjkey's byte order
-- is not text's collation), SQL functions on keys and a trigger calling
-- adjlist's trigger function
ALTER TABLE g ADD COLUMN edge text GENERATED ALWAYS AS (key_part(sk, 1)) STORED;
CREATE VIEW kinds AS SELECT key_part(sk, 1) AS kind FROM g;
CREATE VIEW sorted AS SELECT sk FROM g ORDER BY sk;
CREATE FUNCTION node_of(k adjkey) RETURNS text LANGUAGE sql AS $$ SELECT key_part(k, -1) $$;
CREATE FUNCTION is_follow(k text) RETURNS boolean LANGUAGE sql
	BEGIN ATOMIC SELECT k::adjkey ^@ 'FOLLOWS#'; END;
CREATE TABLE other (x text);
CREATE TRIGGER other_sync AFTER INSERT ON other EXECUTE FUNCTION adjlist_sync_trigger();
SELECT count(*) AS rows_before FROM g;
-- refused, all of them listed, nothing changed
SELECT * FROM adjlist_uninstall();
\set VERBOSITY sqlstate
SELECT * FROM adjlist_uninstall();
\set VERBOSITY default
SELECT count(*) AS registered FROM adjlist_inverted_indexes;
SELECT pg_typeof(pk) AS pk_type, pg_get_expr(adbin, adrelid) AS sk_default
FROM g, pg_attrdef WHERE adrelid = 'g'::regclass AND adnum = 2 LIMIT 1;
-- as the hint says: drop them, or redefine them without adjlist (the
-- generated column keeps its values as a plain column)
ALTER TABLE g ALTER COLUMN edge DROP EXPRESSION;
DROP VIEW kinds, sorted;
DROP FUNCTION node_of(adjkey), is_follow(text);
DROP TRIGGER other_sync ON other;
SELECT * FROM adjlist_uninstall() ORDER BY 1, 2;
DROP EXTENSION adjlist;
-- every row, on text
SELECT count(*) AS rows_after FROM g;
SELECT pg_typeof(pk), pk, sk, data, edge FROM g ORDER BY pk, sk;
SELECT to_regclass('g_inverted') AS index_table,
	   (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'g'::regclass) AS triggers;
-- the objects under their names, on text, doing what they did
SELECT pg_get_expr(adbin, adrelid) AS sk_default FROM pg_attrdef
WHERE adrelid = 'g'::regclass AND adnum = 2;
SELECT conname, pg_get_constraintdef(oid), obj_description(oid, 'pg_constraint')
FROM pg_constraint WHERE conrelid = 'g'::regclass AND contype = 'c' ORDER BY conname;
SELECT pg_get_indexdef('g_follows'::regclass), obj_description('g_follows'::regclass, 'pg_class');
INSERT INTO g (pk) VALUES ('USER#dave');
INSERT INTO g VALUES ('USER#dave', 'X');
INSERT INTO g VALUES ('ORG#x', 'PROFILE');
INSERT INTO g VALUES ('USER#dave', 'a');
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relname IN ('follows', 'follows_alice') AND a.attnum > 0 ORDER BY 1, a.attnum;
SELECT * FROM follows ORDER BY 1, 2;
SELECT * FROM follows_alice;
SELECT count(*) FROM with_data;
SELECT relname, reloptions, obj_description(oid, 'pg_class'),
	   has_table_privilege('regress_uninst_reader', oid, 'SELECT') AS reader_may_select
FROM pg_class WHERE relname IN ('follows', 'follows_alice', 'with_data') ORDER BY 1;
SELECT pg_get_viewdef('follows') LIKE '%^@ ''FOLLOWS#''::text%COLLATE "C"%' AS prefix_and_byte_order;
-- the partial index is still used for its predicate (the indexes the plan
-- reads, whatever kind of scan the server picks)
CREATE FUNCTION pg_temp.plan_indexes(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	l text;
	r text[] := '{}';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l ~ '(using|Index Scan on) ' THEN
			r := r || substring(l from '(?:using|Index Scan on) (\S+)');
		END IF;
	END LOOP;
	RETURN array_to_string(ARRAY(SELECT DISTINCT x FROM unnest(r) x ORDER BY 1), ', ');
END $f$;
SET enable_seqscan = off;
SELECT pg_temp.plan_indexes($$SELECT pk FROM g WHERE sk ^@ 'FOLLOWS#' AND pk = 'USER#bob'$$) AS indexes;
RESET enable_seqscan;

--
-- 2. The extension in a schema off the search_path: its operators appear
-- qualified (OPERATOR("Graph Ext".^@)) in the definitions, and become
-- core's text operators; partial indexes of a partitioned table keep
-- their names and stay attached; a foreign key between key columns is
-- added again
--
\c :db_schema
CREATE SCHEMA "Graph Ext";
CREATE EXTENSION adjlist SCHEMA "Graph Ext";
SET search_path = public;
CREATE TABLE e (pk "Graph Ext".adjkey, sk "Graph Ext".adjkey, PRIMARY KEY (pk, sk),
	CHECK (sk OPERATOR("Graph Ext".<>) pk));
CREATE INDEX e_follows ON e (pk) WHERE sk OPERATOR("Graph Ext".^@) 'F';
CREATE TABLE p (pk "Graph Ext".adjkey, sk "Graph Ext".adjkey, n int, PRIMARY KEY (pk, sk, n))
	PARTITION BY RANGE (n);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10);
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (10) TO (20);
CREATE INDEX p_likes ON p (sk) WHERE sk OPERATOR("Graph Ext".^@) 'LIKES#';
CREATE TABLE r (pk "Graph Ext".adjkey, sk "Graph Ext".adjkey, FOREIGN KEY (pk, sk) REFERENCES e);
CREATE VIEW ev AS SELECT pk, sk FROM e
	WHERE sk OPERATOR("Graph Ext".^@) 'F' OR sk OPERATOR("Graph Ext".=) 'PROFILE';
-- table inheritance: the child's inherited column and CHECK follow its parent's
CREATE TABLE old_edges (k "Graph Ext".adjkey CHECK (k OPERATOR("Graph Ext".<>) 'X'));
CREATE TABLE old_edges_2020 (n int) INHERITS (old_edges);
INSERT INTO old_edges_2020 VALUES ('USER#1', 2020);
INSERT INTO e VALUES ('USER#1', 'FOLLOWS#USER#2'), ('USER#1', 'PROFILE'), ('USER#2', 'LIKES#3');
INSERT INTO p VALUES ('USER#1', 'LIKES#POST#1', 1), ('USER#2', 'LIKES#POST#2', 12), ('USER#2', 'PROFILE', 13);
INSERT INTO r VALUES ('USER#1', 'PROFILE');
SELECT "Graph Ext".create_inverted_index('e');
SELECT * FROM "Graph Ext".adjlist_uninstall() ORDER BY 1, 2;
DROP EXTENSION adjlist;
SELECT (SELECT count(*) FROM e) AS e_rows, (SELECT count(*) FROM p) AS p_rows, (SELECT count(*) FROM r) AS r_rows;
SELECT c.relname, pg_get_indexdef(c.oid), (SELECT ip.relname FROM pg_inherits i
	JOIN pg_class ip ON ip.oid = i.inhparent WHERE i.inhrelid = c.oid) AS attached_to
FROM pg_class c WHERE c.relname IN ('e_follows', 'p_likes', 'p1_sk_idx', 'p2_sk_idx') ORDER BY 1;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid IN ('e'::regclass, 'r'::regclass) AND contype IN ('c', 'f') ORDER BY 1;
SELECT * FROM ev ORDER BY 1, 2;
SELECT pg_typeof(k), k, conname, pg_get_constraintdef(c.oid)
FROM old_edges_2020, pg_constraint c WHERE c.conrelid = 'old_edges_2020'::regclass AND c.contype = 'c';
INSERT INTO r VALUES ('USER#9', 'PROFILE');
CREATE FUNCTION pg_temp.plan_indexes(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	l text;
	r text[] := '{}';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l ~ '(using|Index Scan on) ' THEN
			r := r || substring(l from '(?:using|Index Scan on) (\S+)');
		END IF;
	END LOOP;
	RETURN array_to_string(ARRAY(SELECT DISTINCT x FROM unnest(r) x ORDER BY 1), ', ');
END $f$;
SET enable_seqscan = off;
SELECT pg_temp.plan_indexes($$SELECT sk FROM p WHERE sk ^@ 'LIKES#'$$) AS indexes;
RESET enable_seqscan;

--
-- 3. A role that may create tables, against a superuser who runs
-- adjlist_uninstall(): re-adding a CHECK constraint rewritten to text, and
-- the type change itself (which re-checks the constraints on the column),
-- evaluate functions the table's owner wrote.  Each statement runs as the
-- owner of what it changes, as a security-restricted operation, with the
-- settings it changed rolled back: the owner's function gains nothing (no
-- SUPERUSER, no SET ROLE to the caller, no temporary object, no
-- search_path left for the caller), and the uninstall completes.  What an
-- owner could not do as itself is refused before anything changes.
--
\c :db_hostile
CREATE EXTENSION adjlist;
CREATE ROLE regress_uninst_hostile LOGIN;
GRANT CREATE ON SCHEMA public TO regress_uninst_hostile;
SET ROLE regress_uninst_hostile;
CREATE TABLE public.seen (who name, superuser boolean, checked text, tried text);
-- armed for adjlist_uninstall() only, so that the inserts below, which run
-- it as regress_uninst_hostile in a session whose user is a superuser,
-- cannot SET ROLE back to that user
CREATE FUNCTION public.grab(x anyelement) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	tried text := '';
BEGIN
	IF current_setting('regress_uninst.armed', true) IS DISTINCT FROM 'on' THEN
		RETURN true;
	END IF;
	BEGIN
		EXECUTE 'ALTER ROLE regress_uninst_hostile SUPERUSER';
		tried := tried || 'SUPERUSER granted; ';
	EXCEPTION WHEN OTHERS THEN
		tried := tried || 'ALTER ROLE: refused (' || SQLSTATE || '); ';
	END;
	BEGIN
		EXECUTE 'SET ROLE ' || quote_ident(session_user);
		tried := tried || 'SET ROLE done; ';
	EXCEPTION WHEN OTHERS THEN
		tried := tried || 'SET ROLE: ' || SQLERRM || '; ';
	END;
	BEGIN
		EXECUTE 'CREATE TEMP TABLE left_behind (x int)';
		tried := tried || 'temporary table created';
	EXCEPTION WHEN OTHERS THEN
		tried := tried || 'CREATE TEMP TABLE: ' || SQLERRM;
	END;
	PERFORM pg_catalog.set_config('search_path', 'public, pg_catalog', false);
	INSERT INTO public.seen SELECT current_user, rolsuper, x::text, tried
	FROM pg_roles WHERE rolname = current_user;
	RETURN true;
END $$;
-- a CHECK that adjlist_uninstall() rewrites and adds again (the cast goes)
CREATE TABLE public.trap (k adjkey PRIMARY KEY, CHECK (public.grab(k::text)));
-- a CHECK that uses none of adjlist's: the type change re-checks it
CREATE TABLE public.trap2 (k adjkey PRIMARY KEY, CONSTRAINT k_ok CHECK (public.grab(k)));
CREATE INDEX trap_x ON public.trap (k) WHERE k ^@ 'X';
CREATE VIEW public.trap_v AS SELECT k FROM public.trap WHERE k ^@ 'X';
INSERT INTO public.trap VALUES ('X1');
INSERT INTO public.trap2 VALUES ('Y1');
RESET ROLE;
-- a superuser's partitioned table, one partition of which it gave away;
-- a foreign key that a superuser added to the role's table
CREATE TABLE parts (k adjkey, n int) PARTITION BY RANGE (n);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (10);
ALTER TABLE parts_1 OWNER TO regress_uninst_hostile;
CREATE TABLE targets (k adjkey PRIMARY KEY);
INSERT INTO targets VALUES ('X1');
ALTER TABLE public.trap ADD FOREIGN KEY (k) REFERENCES targets;
SET regress_uninst.armed = on;
SHOW search_path;
-- refused, nothing changed: the partition would be changed as the
-- superuser; the index and the view could not be created by their owner;
-- nor the foreign key added
SELECT * FROM adjlist_uninstall();
ALTER TABLE parts_1 OWNER TO :"su";
REVOKE CREATE ON SCHEMA public FROM regress_uninst_hostile;
SELECT * FROM adjlist_uninstall();
GRANT CREATE ON SCHEMA public TO regress_uninst_hostile;
SELECT * FROM adjlist_uninstall();
GRANT REFERENCES ON targets TO regress_uninst_hostile;
SELECT pg_typeof(k) AS still_adjkey, (SELECT count(*) FROM public.seen) AS seen FROM public.trap;
SELECT * FROM adjlist_uninstall() ORDER BY 1, 2;
-- the role gained nothing, the caller's search_path is its own
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_uninst_hostile';
SHOW search_path;
SELECT to_regclass('pg_temp.left_behind') AS left_behind;
SELECT * FROM public.seen ORDER BY checked;
-- what was re-created is the owner's, as it was
SELECT relname, relowner::regrole FROM pg_class
WHERE relname IN ('trap', 'trap2', 'trap_x', 'trap_v') ORDER BY 1;
SELECT pg_typeof(k), k FROM public.trap_v;
DROP EXTENSION adjlist;
RESET regress_uninst.armed;

--
-- 4. Foreign tables, and tables partitioned by a key.  The adjkey columns
-- of a foreign table become text with ALTER FOREIGN TABLE (PostgreSQL
-- takes no USING clause there), also when it is a partition or an
-- inheritance child of a table whose columns change; the remote table
-- (through a postgres_fdw loopback, in a database of its own, where
-- adjlist stays) is not touched.  A table partitioned by a key column (the
-- README's PARTITION BY HASH (pk)), or by an expression over one, cannot
-- be changed in place: refused, in the one error that lists every other
-- problem too.
--
\c :db_shard
CREATE EXTENSION adjlist;
CREATE TABLE edges (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
CREATE TABLE likes (pk adjkey, sk adjkey, n int);
CREATE TABLE old_keys (k adjkey);
INSERT INTO edges VALUES ('USER#a', 'FOLLOWS#USER#b'), ('USER#a', 'PROFILE'), ('USER#b', 'FOLLOWS#USER#a');
INSERT INTO likes VALUES ('USER#c', 'LIKES#POST#1', 15);
INSERT INTO old_keys VALUES ('USER#old');
\c :db_fdw
CREATE EXTENSION adjlist;
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
	EXECUTE format('CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, host %L)',
				   replace(current_database(), '_fdw_', '_shard_'), current_setting('port'),
				   coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'));
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard;
CREATE FOREIGN TABLE ft (pk adjkey, sk adjkey DEFAULT 'PROFILE', CHECK (sk <> 'X'))
	SERVER shard OPTIONS (table_name 'edges');
CREATE VIEW ft_follows AS SELECT pk, sk FROM ft WHERE sk ^@ 'FOLLOWS#';
-- partitioned by an int: a local and a foreign partition
CREATE TABLE pt (pk adjkey, sk adjkey, n int) PARTITION BY RANGE (n);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (0) TO (10);
CREATE FOREIGN TABLE pt_2 PARTITION OF pt FOR VALUES FROM (10) TO (20)
	SERVER shard OPTIONS (table_name 'likes');
INSERT INTO pt VALUES ('USER#a', 'LIKES#POST#2', 5);
-- an inheritance parent with a foreign child
CREATE TABLE hist (k adjkey);
CREATE FOREIGN TABLE hist_remote () INHERITS (hist) SERVER shard OPTIONS (table_name 'old_keys');
INSERT INTO hist VALUES ('USER#new');
SELECT * FROM ft ORDER BY 1, 2;
-- what cannot be changed in place: a table hash-partitioned by its key; a
-- partition subpartitioned by an expression over a key; and, in the same
-- error, a generated column that calls key_part
CREATE TABLE items_by_hash (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE items_by_hash_0 PARTITION OF items_by_hash FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE items_by_hash_1 PARTITION OF items_by_hash FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO items_by_hash SELECT 'USER#' || i, 'PROFILE' FROM generate_series(1, 20) i;
CREATE TABLE by_kind (pk adjkey, sk adjkey, n int) PARTITION BY RANGE (n);
CREATE TABLE by_kind_1 PARTITION OF by_kind FOR VALUES FROM (0) TO (10)
	PARTITION BY LIST (key_part(sk, 1));
CREATE TABLE by_kind_1_follows PARTITION OF by_kind_1 FOR VALUES IN ('FOLLOWS');
CREATE TABLE g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk),
				edge text GENERATED ALWAYS AS (key_part(sk, 1)) STORED);
SELECT * FROM adjlist_uninstall();
\set VERBOSITY sqlstate
SELECT * FROM adjlist_uninstall();
\set VERBOSITY default
SELECT pg_typeof(pk) AS still_adjkey FROM ft LIMIT 1;
-- as the hint says: a copy partitioned by the column as text (in a UTF-8
-- database text hashes as adjkey does: every row lands in the partition of
-- the same number), the rows moved, the old table dropped
CREATE TABLE items_text (pk text, sk text, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE items_text_0 PARTITION OF items_text FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE items_text_1 PARTITION OF items_text FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO items_text SELECT * FROM items_by_hash;
SELECT count(*) AS same_partition FROM items_by_hash a JOIN items_text t
	ON t.pk = a.pk::text AND right(t.tableoid::regclass::text, 1) = right(a.tableoid::regclass::text, 1);
DROP TABLE items_by_hash;
ALTER TABLE items_text RENAME TO items_by_hash;
DROP TABLE by_kind;
ALTER TABLE g ALTER COLUMN edge DROP EXPRESSION;
SELECT * FROM adjlist_uninstall() ORDER BY 1, 2;
DROP EXTENSION adjlist;
SELECT c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relname IN ('ft', 'pt', 'pt_1', 'pt_2', 'hist', 'hist_remote', 'items_by_hash')
	AND a.attnum > 0 ORDER BY 1, a.attnum;
SELECT pg_get_expr(adbin, adrelid) AS ft_sk_default FROM pg_attrdef WHERE adrelid = 'ft'::regclass;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'ft'::regclass;
-- read and written through the foreign tables: the rows, as text
SELECT * FROM ft ORDER BY 1, 2;
SELECT * FROM pt ORDER BY 1, 2;
SELECT * FROM hist ORDER BY 1;
SELECT count(*) AS items FROM items_by_hash;
INSERT INTO ft (pk) VALUES ('USER#z');
-- a condition postgres_fdw ships compares the remote adjkey column with
-- text, which the remote server (search_path pg_catalog) does not resolve
SELECT * FROM ft_follows ORDER BY 1, 2;
-- until the remote side is uninstalled too
\c :db_shard
SELECT * FROM adjlist_uninstall() ORDER BY 1, 2;
DROP EXTENSION adjlist;
\c :db_fdw
SELECT * FROM ft_follows ORDER BY 1, 2;
SELECT * FROM ft WHERE pk = 'USER#z';
UPDATE pt SET sk = 'LIKES#POST#3' WHERE n = 15;
SELECT * FROM pt WHERE sk ^@ 'LIKES#' ORDER BY 1, 2;

\c :regdb :su
DROP DATABASE :"db_public";
DROP DATABASE :"db_schema";
DROP DATABASE :"db_hostile";
DROP DATABASE :"db_fdw";
DROP DATABASE :"db_shard";
DROP ROLE regress_uninst_reader;
DROP ROLE regress_uninst_hostile;

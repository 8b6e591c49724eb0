--
-- ddl_triggers: adjlist's triggers cannot be switched off (issue 11).
--
-- The sync triggers of a base table (and of each partition, at any depth)
-- and the guard of each index and counter table (and partition) keep the
-- inverted index exact.  DISABLE TRIGGER (by name, USER or ALL), ENABLE
-- REPLICA TRIGGER (which stops a trigger firing in ordinary sessions),
-- DROP TRIGGER, ALTER TRIGGER ... RENAME and ... DEPENDS ON EXTENSION of
-- any of them are refused (0A000, naming the index), for the owner and for
-- a superuser alike.  Still allowed: ENABLE [ALWAYS] TRIGGER; anything on
-- the owner's own triggers, adjlist_sync_replica included (the subscriber
-- setup of the README); and DISABLE TRIGGER ALL by a superuser, which is
-- what pg_dump / pg_restore --data-only --disable-triggers run.
--
-- Also: the messages of refused inheritance and ATTACH PARTITION name the
-- table that takes part in an index; and ALTER COLUMN ... TYPE of a column
-- an index uses, or ALTER TYPE ... CASCADE of a typed table's type that
-- drops, renames or retypes one, is refused (55000, naming the index)
-- unless it changes nothing: the rewrite fires no row trigger.  Neither
-- may the unique key of an index's base key be dropped (2BP01).
--
-- In replica mode (session_replication_role = replica) all of it holds as
-- well: adjlist's event triggers fire there (ENABLE ALWAYS).  And
-- adjlist_sync_replica is accepted in the README's form only.
--
\set SHOW_CONTEXT never
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS dt CASCADE;
DROP SCHEMA IF EXISTS dt_elsewhere CASCADE;
DROP ROLE IF EXISTS regress_dt_dba;
DROP ROLE IF EXISTS regress_dt_other;
RESET client_min_messages;
CREATE ROLE regress_dt_dba;
CREATE ROLE regress_dt_other;
CREATE SCHEMA dt AUTHORIZATION regress_dt_dba;
GRANT USAGE ON SCHEMA dt TO regress_dt_other;

-- what the index holds against the base table, and the counters
CREATE FUNCTION dt.problems(idx regclass) RETURNS bigint
LANGUAGE sql AS $$ SELECT count(*) FROM verify_inverted_index(idx) $$;

--
-- 1. A non-superuser owner
--
SET ROLE regress_dt_dba;
CREATE TABLE dt.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.g', counters => 1);
-- the report's repro: refused, with the index named and a hint
ALTER TABLE dt.g DISABLE TRIGGER USER;
\set VERBOSITY terse
ALTER TABLE dt.g DISABLE TRIGGER ALL;
ALTER TABLE dt.g DISABLE TRIGGER adjlist_sync_ins;
ALTER TABLE dt.g DISABLE TRIGGER adjlist_sync_upd;
ALTER TABLE dt.g DISABLE TRIGGER adjlist_sync_del;
ALTER TABLE dt.g DISABLE TRIGGER adjlist_sync_before_trunc;
ALTER TABLE dt.g DISABLE TRIGGER adjlist_sync_trunc;
ALTER TABLE dt.g ENABLE REPLICA TRIGGER adjlist_sync_ins;
ALTER TABLE dt.g ENABLE REPLICA TRIGGER adjlist_sync_trunc;
-- (one refused command refuses the statement)
ALTER TABLE dt.g ADD COLUMN extra int, DISABLE TRIGGER adjlist_sync_del;
DROP TRIGGER adjlist_sync_ins ON dt.g;
DROP TRIGGER IF EXISTS adjlist_sync_upd ON dt.g;
ALTER TRIGGER adjlist_sync_del ON dt.g RENAME TO not_adjlist;
ALTER TRIGGER adjlist_sync_del ON dt.g DEPENDS ON EXTENSION plpgsql;
-- the index and counter tables' guard
\set VERBOSITY default
ALTER TABLE dt.g_inverted DISABLE TRIGGER adjlist_index_guard;
\set VERBOSITY terse
ALTER TABLE dt.g_inverted DISABLE TRIGGER USER;
ALTER TABLE dt.g_inverted DISABLE TRIGGER ALL;
ALTER TABLE dt.g_inverted ENABLE REPLICA TRIGGER adjlist_index_guard;
ALTER TABLE dt.g_inverted_degree DISABLE TRIGGER USER;
ALTER TABLE dt.g_inverted_degree DISABLE TRIGGER adjlist_index_guard;
DROP TRIGGER adjlist_index_guard ON dt.g_inverted;
DROP TRIGGER adjlist_index_guard ON dt.g_inverted_degree;
ALTER TRIGGER adjlist_index_guard ON dt.g_inverted_degree RENAME TO g;
-- allowed: ENABLE and ENABLE ALWAYS, back to ENABLE
ALTER TABLE dt.g ENABLE TRIGGER USER, ENABLE TRIGGER ALL, ENABLE TRIGGER adjlist_sync_ins,
	ENABLE ALWAYS TRIGGER adjlist_sync_ins, ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc;
ALTER TABLE dt.g ENABLE TRIGGER adjlist_sync_ins, ENABLE TRIGGER adjlist_sync_before_trunc;
ALTER TABLE dt.g_inverted ENABLE ALWAYS TRIGGER adjlist_index_guard;
ALTER TABLE dt.g_inverted ENABLE TRIGGER adjlist_index_guard;
-- allowed: the owner's own triggers, by name, and ALTER TRIGGER ... NO DEPENDS
CREATE FUNCTION dt.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER audit AFTER INSERT ON dt.g FOR EACH ROW EXECUTE FUNCTION dt.noop();
ALTER TABLE dt.g DISABLE TRIGGER audit;
ALTER TABLE dt.g ENABLE REPLICA TRIGGER audit;
ALTER TRIGGER audit ON dt.g RENAME TO audit2;
DROP TRIGGER audit2 ON dt.g;
ALTER TRIGGER adjlist_sync_del ON dt.g NO DEPENDS ON EXTENSION plpgsql;
-- the README's subscriber setup: adjlist_sync_replica is the owner's
CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON dt.g
	FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger();
ALTER TABLE dt.g ENABLE REPLICA TRIGGER adjlist_sync_replica,
	ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc,
	ENABLE ALWAYS TRIGGER adjlist_sync_trunc;
ALTER TABLE dt.g DISABLE TRIGGER adjlist_sync_replica;
ALTER TABLE dt.g ENABLE REPLICA TRIGGER adjlist_sync_replica;
DROP TRIGGER adjlist_sync_replica ON dt.g;
ALTER TABLE dt.g ENABLE TRIGGER adjlist_sync_before_trunc, ENABLE TRIGGER adjlist_sync_trunc;
-- every trigger as it was, and the index exact after writes
SELECT tgrelid::regclass AS tbl, tgname, tgenabled FROM pg_trigger
WHERE tgrelid IN ('dt.g'::regclass, 'dt.g_inverted'::regclass, 'dt.g_inverted_degree'::regclass)
ORDER BY 1, 2;
INSERT INTO dt.g VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#a', 'FOLLOWS#USER#c', NULL);
DELETE FROM dt.g WHERE sk = 'FOLLOWS#USER#c';
SELECT dt.problems('dt.g_inverted') AS problems,
	   degree('dt.g', 'USER#b', 'FOLLOWS', 'in') AS in_b,
	   degree('dt.g', 'USER#a', 'FOLLOWS', 'out') AS out_a;
-- a table with two indexes: both are named
CREATE TABLE dt.two (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.two');
SELECT create_inverted_index('dt.two', index_name => 'two_by_pk', partition_key => 'pk', sort_key => 'sk');
\set VERBOSITY default
ALTER TABLE dt.two DISABLE TRIGGER adjlist_sync_upd;
ALTER TABLE dt.two_by_pk DISABLE TRIGGER adjlist_index_guard;
\set VERBOSITY terse
-- a role that does not own the table is told so by core, nothing more
RESET ROLE;
SET ROLE regress_dt_other;
ALTER TABLE dt.g DISABLE TRIGGER USER;
DROP TRIGGER adjlist_sync_ins ON dt.g;
ALTER TRIGGER adjlist_sync_ins ON dt.g RENAME TO x;
RESET ROLE;

--
-- 2. Partitions at any depth, and a partitioned index table
--
SET ROLE regress_dt_dba;
CREATE TABLE dt.p (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE dt.p_user PARTITION OF dt.p FOR VALUES FROM ('USER#') TO ('USER$') PARTITION BY HASH (pk);
CREATE TABLE dt.p_user_0 PARTITION OF dt.p_user FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE dt.p_user_1 PARTITION OF dt.p_user FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE dt.p_other PARTITION OF dt.p DEFAULT;
SELECT create_inverted_index('dt.p', partitions => 2, counters => 1);
\set VERBOSITY default
ALTER TABLE dt.p_user_0 DISABLE TRIGGER adjlist_sync_ins;
\set VERBOSITY terse
ALTER TABLE dt.p_user_1 DISABLE TRIGGER USER;
ALTER TABLE dt.p_user DISABLE TRIGGER ALL;
ALTER TABLE dt.p_other ENABLE REPLICA TRIGGER adjlist_sync_upd;
ALTER TABLE ONLY dt.p DISABLE TRIGGER adjlist_sync_ins;
DROP TRIGGER adjlist_sync_del ON dt.p_user_1;
ALTER TRIGGER adjlist_sync_before_trunc ON dt.p_other RENAME TO x;
SELECT c.relname AS index_partition FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'dt.p_inverted'::regclass ORDER BY 1 LIMIT 1 \gset
ALTER TABLE dt.:index_partition DISABLE TRIGGER adjlist_index_guard;
ALTER TABLE dt.:index_partition DISABLE TRIGGER USER;
DROP TRIGGER adjlist_index_guard ON dt.:index_partition;
ALTER TABLE dt.p_user_0 ENABLE ALWAYS TRIGGER adjlist_sync_ins;
ALTER TABLE dt.p_user_0 ENABLE TRIGGER adjlist_sync_ins;
INSERT INTO dt.p VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#b', 'FOLLOWS#USER#a', NULL),
	('TEAM#x', 'MEMBER#USER#a', NULL);
SELECT dt.problems('dt.p_inverted') AS problems,
	   degree('dt.p', 'USER#a', 'FOLLOWS', 'in') AS in_a;
RESET ROLE;

--
-- 3. A superuser: the same refusals, on its own table and on another's,
-- but for DISABLE TRIGGER ALL (pg_restore --disable-triggers), which
-- bypasses the index as session_replication_role = replica does:
-- verify_inverted_index() finds it and rebuild_inverted_index() mends it
--
CREATE TABLE dt.s (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.s');
ALTER TABLE dt.s DISABLE TRIGGER USER;
ALTER TABLE dt.s DISABLE TRIGGER adjlist_sync_ins;
ALTER TABLE dt.s ENABLE REPLICA TRIGGER adjlist_sync_del;
DROP TRIGGER adjlist_sync_ins ON dt.s;
ALTER TRIGGER adjlist_sync_ins ON dt.s RENAME TO x;
ALTER TABLE dt.s_inverted DISABLE TRIGGER USER;
ALTER TABLE dt.g DISABLE TRIGGER USER;
ALTER TABLE dt.p_user_0 DISABLE TRIGGER adjlist_sync_ins;
DROP TRIGGER adjlist_index_guard ON dt.g_inverted;
ALTER TABLE dt.s DISABLE TRIGGER ALL;
INSERT INTO dt.s VALUES ('USER#a', 'FOLLOWS#USER#b');
ALTER TABLE dt.s ENABLE TRIGGER ALL;
ALTER TABLE dt.s_inverted DISABLE TRIGGER ALL;
ALTER TABLE dt.s_inverted ENABLE TRIGGER ALL;
SELECT problem, key FROM verify_inverted_index('dt.s_inverted');
SELECT rebuild_inverted_index('dt.s_inverted');
SELECT dt.problems('dt.s_inverted') AS problems;
-- once the index is dropped, the table's triggers are anyone's
SELECT drop_inverted_index('dt.s_inverted');
CREATE TRIGGER t AFTER INSERT ON dt.s FOR EACH ROW EXECUTE FUNCTION dt.noop();
ALTER TABLE dt.s DISABLE TRIGGER USER;
DROP TRIGGER t ON dt.s;

--
-- 4. Inheritance and ATTACH PARTITION: the message names the table that
-- takes part in an index
--
SET ROLE regress_dt_dba;
CREATE TABLE dt.c2 (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb);
ALTER TABLE dt.c2 INHERIT dt.g;
CREATE TABLE dt.c3 () INHERITS (dt.g);
CREATE TABLE dt.c4 () INHERITS (dt.g_inverted);
ALTER TABLE dt.g INHERIT dt.c2;
CREATE TABLE dt.q (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
ALTER TABLE dt.q ATTACH PARTITION dt.g FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
CREATE TABLE dt.qi (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY RANGE (sk);
ALTER TABLE dt.qi ATTACH PARTITION dt.g_inverted FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
RESET ROLE;
\set VERBOSITY default

--
-- 5. Column types.  ALTER COLUMN ... TYPE rewrites a column's values (with
-- USING, even to the same type, or with a new type modifier or collation)
-- and fires no row trigger: of a column an index uses (key, projected,
-- predicate, or read by a generated key) it is refused, naming the index,
-- unless it changes nothing.  ALTER TYPE ... CASCADE alters the columns of
-- the type's typed tables, and is checked as ALTER TABLE is.
--
CREATE FUNCTION dt.try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ': ' || msg;
END $$;
SET ROLE regress_dt_dba;
CREATE TABLE dt.ty (pk adjkey, sk adjkey, data jsonb, n int, label text COLLATE "C",
	tag text, spare int,
	gpk adjkey GENERATED ALWAYS AS (('TAG#' || tag)::adjkey) STORED,
	PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.ty', include => '{data,label}', counters => 1);
SELECT create_inverted_index('dt.ty', index_name => 'ty_positive', predicate => 'n > 0');
SELECT create_inverted_index('dt.ty', index_name => 'ty_by_tag', partition_key => 'gpk');
INSERT INTO dt.ty (pk, sk, data, n, label, tag, spare) VALUES
	('USER#a', 'FOLLOWS#USER#b', '{"x": 1}', 1, 'a', 'red', 1),
	('USER#a', 'FOLLOWS#USER#c', '{"x": 2}', 0, 'b', 'blue', 2);
SELECT u.s AS statement, dt.try(u.s) AS outcome
FROM unnest(ARRAY[
	-- refused: a key, projected, predicate or generated key's column rewritten
	$$ALTER TABLE dt.ty ALTER COLUMN sk TYPE adjkey USING ('LIKES#' || sk::text)::adjkey$$,
	$$ALTER TABLE dt.ty ALTER COLUMN data TYPE jsonb USING '{"y": 2}'$$,
	$$ALTER TABLE dt.ty ALTER COLUMN n TYPE int USING n + 41$$,
	$$ALTER TABLE dt.ty ALTER COLUMN n TYPE bigint$$,
	$$ALTER TABLE dt.ty ALTER COLUMN label TYPE text$$,
	$$ALTER TABLE dt.ty ALTER COLUMN label TYPE varchar(1)$$,
	$$ALTER TABLE dt.ty ALTER COLUMN tag TYPE text USING upper(tag)$$,
	$$ALTER TABLE dt.ty ALTER COLUMN gpk TYPE adjkey USING NULL$$,
	$$ALTER TABLE dt.ty ADD COLUMN extra int, ALTER COLUMN data TYPE jsonb USING '{}'$$,
	-- allowed: nothing changes, or a column no index uses
	$$ALTER TABLE dt.ty ALTER COLUMN sk TYPE adjkey$$,
	$$ALTER TABLE dt.ty ALTER COLUMN data TYPE jsonb$$,
	$$ALTER TABLE dt.ty ALTER COLUMN n TYPE int4$$,
	$$ALTER TABLE dt.ty ALTER COLUMN label TYPE text COLLATE "C"$$,
	$$ALTER TABLE dt.ty ALTER COLUMN spare TYPE bigint USING spare * 10$$,
	-- PostgreSQL's own errors
	$$ALTER TABLE dt.ty ALTER COLUMN n TYPE no_such_type$$,
	-- the index table: no column changes at all
	$$ALTER TABLE dt.ty_inverted ALTER COLUMN data TYPE jsonb USING '{}'$$
]) WITH ORDINALITY AS u(s, i)
ORDER BY u.i;
INSERT INTO dt.ty (pk, sk, data, n, label, tag) VALUES ('USER#d', 'FOLLOWS#USER#b', '{}', 3, 'c', 'red');
SELECT dt.problems('dt.ty_inverted') AS ty_inverted, dt.problems('dt.ty_positive') AS ty_positive,
	   dt.problems('dt.ty_by_tag') AS ty_by_tag,
	   (SELECT array_agg(spare ORDER BY sk) FROM dt.ty WHERE pk = 'USER#a') AS spare;

-- a partitioned base table: through the parent, which recurses
CREATE TABLE dt.pt (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE dt.pt_0 PARTITION OF dt.pt FOR VALUES FROM (MINVALUE) TO ('USER#m');
CREATE TABLE dt.pt_1 PARTITION OF dt.pt FOR VALUES FROM ('USER#m') TO (MAXVALUE);
SELECT create_inverted_index('dt.pt', include => '{n}', partitions => 2);
INSERT INTO dt.pt VALUES ('USER#a', 'FOLLOWS#USER#z', 1), ('USER#z', 'FOLLOWS#USER#a', 2);
SELECT c.relname AS pt_index_partition FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'dt.pt_inverted'::regclass ORDER BY 1 LIMIT 1 \gset
SELECT u.s AS statement, dt.try(u.s) AS outcome
FROM unnest(ARRAY[
	$$ALTER TABLE dt.pt ALTER COLUMN n TYPE int USING n + 1$$,
	$$ALTER TABLE dt.pt_0 ALTER COLUMN n TYPE int USING n + 1$$,
	$$ALTER TABLE dt.pt ALTER COLUMN n TYPE int$$,
	'ALTER TABLE dt.' || :'pt_index_partition' || ' ALTER COLUMN n TYPE int USING 0'
]) WITH ORDINALITY AS u(s, i)
ORDER BY u.i;
SELECT dt.problems('dt.pt_inverted') AS pt_inverted;

-- a typed table: ALTER TYPE ... CASCADE
CREATE TYPE dt.rt AS (pk adjkey, sk adjkey, data jsonb, n int, spare int);
CREATE TABLE dt.tt OF dt.rt (PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.tt', include => '{data,n}', counters => 1);
INSERT INTO dt.tt VALUES ('USER#a', 'FOLLOWS#USER#b', '{}', 1, 1);
CREATE TYPE dt.rti AS (sk adjkey, pk adjkey, data jsonb, n int);
SELECT u.s AS statement, dt.try(u.s) AS outcome
FROM unnest(ARRAY[
	-- refused: a used attribute renamed, dropped or retyped
	$$ALTER TYPE dt.rt RENAME ATTRIBUTE sk TO sk2 CASCADE$$,
	$$ALTER TYPE dt.rt DROP ATTRIBUTE data CASCADE$$,
	$$ALTER TYPE dt.rt ALTER ATTRIBUTE n TYPE bigint CASCADE$$,
	$$ALTER TYPE dt.rt ADD ATTRIBUTE extra int CASCADE, DROP ATTRIBUTE n CASCADE$$,
	-- allowed: nothing changes, or attributes no index uses
	$$ALTER TYPE dt.rt ALTER ATTRIBUTE n TYPE int CASCADE$$,
	$$ALTER TYPE dt.rt ALTER ATTRIBUTE spare TYPE bigint CASCADE$$,
	$$ALTER TYPE dt.rt RENAME ATTRIBUTE spare TO spare2 CASCADE$$,
	$$ALTER TYPE dt.rt ADD ATTRIBUTE extra int CASCADE$$,
	$$ALTER TYPE dt.rt DROP ATTRIBUTE spare2 CASCADE$$,
	-- PostgreSQL's own error: a type with typed tables needs CASCADE
	$$ALTER TYPE dt.rt DROP ATTRIBUTE data$$,
	-- ALTER TABLE ... NOT OF and OF change no column; an index table refuses OF
	$$ALTER TABLE dt.tt NOT OF$$,
	$$ALTER TYPE dt.rt RENAME ATTRIBUTE data TO payload CASCADE$$,
	$$ALTER TYPE dt.rt RENAME ATTRIBUTE payload TO data CASCADE$$,
	$$ALTER TABLE dt.tt OF dt.rt$$,
	$$ALTER TABLE dt.tt_inverted OF dt.rti$$
]) WITH ORDINALITY AS u(s, i)
ORDER BY u.i;
INSERT INTO dt.tt VALUES ('USER#c', 'FOLLOWS#USER#b', '{"y": 1}', 2, 7);
-- an index table of the owner's making that is a typed table: ALTER TYPE
-- ... CASCADE is refused as ALTER TABLE is; NOT OF is allowed
CREATE TABLE dt.tt_typed_index OF dt.rti (PRIMARY KEY (sk, pk));
SELECT create_inverted_index('dt.tt', index_name => 'tt_typed_index', include => '{data,n}',
							 existing => true);
SELECT u.s AS statement, dt.try(u.s) AS outcome
FROM unnest(ARRAY[
	$$ALTER TYPE dt.rti ADD ATTRIBUTE extra int CASCADE$$,
	$$ALTER TYPE dt.rti ALTER ATTRIBUTE n TYPE int CASCADE$$,
	$$ALTER TYPE dt.rti RENAME ATTRIBUTE data TO payload CASCADE$$,
	$$ALTER TABLE dt.tt_typed_index NOT OF$$,
	$$ALTER TYPE dt.rti ADD ATTRIBUTE extra int CASCADE$$
]) WITH ORDINALITY AS u(s, i)
ORDER BY u.i;
SELECT dt.problems('dt.tt_inverted') AS tt_inverted, dt.problems('dt.tt_typed_index') AS tt_typed_index,
	   (SELECT reloftype::regtype FROM pg_class WHERE oid = 'dt.tt'::regclass) AS tt_of,
	   (SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
		FROM pg_attribute WHERE attrelid = 'dt.tt'::regclass AND attnum > 0 AND NOT attisdropped) AS tt_columns;
-- 6. Persistence: the index and counter tables have the base table's,
-- or a crash (which empties unlogged tables only) would leave the index
-- out of step.  Created so; SET LOGGED / UNLOGGED of the base table takes
-- them along; of an index or counter table (or a partition of one) alone,
-- refused (55000, naming the index); an indexed partitioned table (whose
-- index is logged) refuses unlogged partitions.  The crash itself:
-- test/t/018_unlogged_crash.pl.
--
SET ROLE regress_dt_dba;
CREATE UNLOGGED TABLE dt.u (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.u', counters => 1);
SELECT create_inverted_index('dt.u', index_name => 'u_parts', partitions => 2);
CREATE TABLE dt.l (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.l', counters => 1);
CREATE FUNCTION dt.persistence() RETURNS TABLE (rel name, persistence "char")
LANGUAGE sql AS $$
	SELECT relname, relpersistence FROM pg_class
	WHERE relnamespace = 'dt'::regnamespace AND relkind = 'r' AND relname ~ '^(u|l)(_|$)'
	ORDER BY 1 $$;
SELECT * FROM dt.persistence();
ALTER TABLE dt.l_inverted SET UNLOGGED;
\set VERBOSITY terse
ALTER TABLE dt.l_inverted_degree SET UNLOGGED;
ALTER TABLE dt.u_parts_1 SET LOGGED;
ALTER TABLE dt.u_inverted SET LOGGED, SET (fillfactor = 90);
ALTER TABLE dt.u_inverted SET UNLOGGED;	-- what it is: nothing to refuse
-- the base table: its indexes follow, in one transaction
BEGIN;
ALTER TABLE dt.u SET LOGGED;
ALTER TABLE dt.l SET UNLOGGED;
SELECT * FROM dt.persistence();
ROLLBACK;
SELECT * FROM dt.persistence();
-- existing => true: the index table must have the base table's persistence
CREATE UNLOGGED TABLE dt.l_rev (sk adjkey NOT NULL, pk adjkey NOT NULL);
SELECT create_inverted_index('dt.l', index_name => 'l_rev', existing => true);
ALTER TABLE dt.l_rev SET LOGGED;
SELECT create_inverted_index('dt.l', index_name => 'l_rev', existing => true);
-- a partitioned table: logged index, logged partitions
CREATE TABLE dt.pp (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE UNLOGGED TABLE dt.pp1 PARTITION OF dt.pp FOR VALUES FROM ('A') TO ('F');
SELECT create_inverted_index('dt.pp');
ALTER TABLE dt.pp1 SET LOGGED;
SELECT create_inverted_index('dt.pp');
CREATE UNLOGGED TABLE dt.pp2 PARTITION OF dt.pp FOR VALUES FROM ('F') TO ('M');
CREATE TABLE dt.pp3 PARTITION OF dt.pp FOR VALUES FROM ('M') TO ('S') PARTITION BY LIST (sk);
CREATE UNLOGGED TABLE dt.pp3a PARTITION OF dt.pp3 DEFAULT;
CREATE UNLOGGED TABLE dt.pp4 (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
ALTER TABLE dt.pp ATTACH PARTITION dt.pp4 FOR VALUES FROM ('S') TO ('Z');
ALTER TABLE dt.pp1 SET UNLOGGED;
\set VERBOSITY default
SELECT relname, relpersistence FROM pg_class
WHERE relnamespace = 'dt'::regnamespace AND relkind = 'r' AND relname ~ '^pp' ORDER BY 1;
RESET ROLE;

--
-- The base key stays unique (base_key.c): the primary key or unique index
-- that makes an index's base key unique cannot be dropped (ALTER TABLE ...
-- DROP CONSTRAINT, DROP INDEX [CONCURRENTLY]) nor replaced by a deferrable
-- one while the index table's key is immediate (2BP01 / 55000, naming the
-- index), on a plain or a partitioned table; after drop_inverted_index(),
-- or with another such key in place, it can.  Before: accepted, and then
-- a repeated key lost index rows.
--
SET ROLE regress_dt_dba;
CREATE TABLE dt.bk (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.bk', counters => 1);
ALTER TABLE dt.bk DROP CONSTRAINT bk_pkey;
\set VERBOSITY sqlstate
ALTER TABLE dt.bk DROP CONSTRAINT bk_pkey CASCADE;
ALTER TABLE dt.bk DROP CONSTRAINT bk_pkey, ADD PRIMARY KEY (pk, sk) DEFERRABLE;
\set VERBOSITY default
ALTER TABLE dt.bk DROP CONSTRAINT bk_pkey, ADD PRIMARY KEY (pk, sk) DEFERRABLE;
\set VERBOSITY sqlstate
-- a unique index on the key (in either order, or on fewer of its columns) serves
CREATE UNIQUE INDEX bk_key ON dt.bk (sk, pk);
ALTER TABLE dt.bk DROP CONSTRAINT bk_pkey;
DROP INDEX dt.bk_key;
DROP INDEX CONCURRENTLY dt.bk_key;
CREATE UNIQUE INDEX bk_key2 ON dt.bk (pk);
DROP INDEX dt.bk_key, dt.bk_key2;
DROP INDEX dt.bk_key;
DROP INDEX CONCURRENTLY dt.bk_key2;
\set VERBOSITY default
SELECT indexrelid::regclass AS key, indisvalid FROM pg_index WHERE indrelid = 'dt.bk'::regclass;
INSERT INTO dt.bk VALUES ('A#1', 'F#1', 1), ('A#1', 'F#1', 2);
INSERT INTO dt.bk VALUES ('A#1', 'F#1', 1);
SELECT count(*) AS problems FROM verify_inverted_index('dt.bk_inverted');
-- a partitioned table: the same on the parent
CREATE TABLE dt.bp (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE dt.bp0 PARTITION OF dt.bp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE dt.bp1 PARTITION OF dt.bp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
SELECT create_inverted_index('dt.bp');
\set VERBOSITY sqlstate
ALTER TABLE dt.bp DROP CONSTRAINT bp_pkey;
DROP INDEX dt.bp0_pkey;
ALTER TABLE dt.bp DROP CONSTRAINT bp_pkey, ADD PRIMARY KEY (pk, sk) DEFERRABLE;
\set VERBOSITY default
-- replaced in one statement by another key on the same columns: accepted
ALTER TABLE dt.bp DROP CONSTRAINT bp_pkey, ADD PRIMARY KEY (sk, pk);
INSERT INTO dt.bp VALUES ('A#1', 'F#1'), ('A#2', 'F#1');
SELECT count(*) AS problems FROM verify_inverted_index('dt.bp_inverted');
-- with the index gone, the key may go
SELECT drop_inverted_index('dt.bk_inverted'), drop_inverted_index('dt.bp_inverted');
DROP INDEX CONCURRENTLY dt.bk_key2;
ALTER TABLE dt.bp DROP CONSTRAINT bp_pkey;
SELECT count(*) AS keys FROM pg_index WHERE indrelid IN ('dt.bk'::regclass, 'dt.bp'::regclass);
RESET ROLE;
-- an index whose key went behind adjlist's back (its sql_drop trigger
-- disabled by a superuser, then put back as it was) is not rebuilt on a
-- key that is not unique (42P10), and is once the key is back
CREATE TABLE dt.legacy (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.legacy');
CREATE TEMP TABLE evt AS SELECT evtname, evtenabled FROM pg_event_trigger WHERE evtname = 'adjlist_sql_drop';
ALTER EVENT TRIGGER adjlist_sql_drop DISABLE;
ALTER TABLE dt.legacy DROP CONSTRAINT legacy_pkey;
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM evt LOOP
		EXECUTE format('ALTER EVENT TRIGGER %I %s', r.evtname,
			CASE r.evtenabled WHEN 'A' THEN 'ENABLE ALWAYS' WHEN 'R' THEN 'ENABLE REPLICA'
							  WHEN 'D' THEN 'DISABLE' ELSE 'ENABLE' END);
	END LOOP;
END $$;
SELECT count(*) AS unchanged FROM pg_event_trigger e JOIN evt USING (evtname, evtenabled);
\set VERBOSITY sqlstate
SELECT rebuild_inverted_index('dt.legacy_inverted');
\set VERBOSITY default
-- meanwhile DDL of other tables of its schema that drops indexes goes on:
-- only the tables a statement may have taken a key from are checked
CREATE TABLE dt.other (a int PRIMARY KEY, b int UNIQUE);
CREATE UNIQUE INDEX other_ab ON dt.other (a, b);
ALTER TABLE dt.other DROP CONSTRAINT other_b_key;
DROP INDEX dt.other_ab;
DROP TABLE dt.other;
ALTER TABLE dt.legacy ADD PRIMARY KEY (pk, sk);
SELECT rebuild_inverted_index('dt.legacy_inverted');
-- a cascade that takes the base key's index with it (DROP OPERATOR CLASS
-- ... CASCADE of the operator class it uses) is refused: dropping the
-- index locked its table, and a table so locked is checked (the others
-- of the schema are not, nor waited for)
CREATE OPERATOR CLASS dt.int4_key_ops FOR TYPE int USING btree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 btint4cmp(int, int);
CREATE TABLE dt.ck (id int, pk adjkey, sk adjkey);
CREATE UNIQUE INDEX ck_key ON dt.ck (id dt.int4_key_ops);
SELECT create_inverted_index('dt.ck', base_key => ARRAY['id']);
DROP OPERATOR CLASS dt.int4_key_ops USING btree CASCADE;
SELECT drop_inverted_index('dt.ck_inverted');
DROP OPERATOR CLASS dt.int4_key_ops USING btree CASCADE;

--
-- 7. session_replication_role = replica (what a logical replication apply
-- worker runs with; a superuser may set it) fires no ENABLE ORIGIN
-- trigger: writes bypass the sync triggers there, and verify / rebuild
-- mend that.  DDL does not: adjlist's event triggers are ENABLE ALWAYS, so
-- it is refused or followed exactly as in origin mode.
--
SELECT evtname, evtenabled FROM pg_event_trigger WHERE evtname LIKE 'adjlist%' ORDER BY 1;
CREATE TABLE dt.r (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE dt.r_a PARTITION OF dt.r FOR VALUES FROM ('A') TO ('M');
SELECT create_inverted_index('dt.r', counters => 1);
SELECT create_inverted_index('dt.r', index_name => 'r2');
INSERT INTO dt.r VALUES ('B#1', 'F#1', NULL), ('B#2', 'F#1', NULL);
-- what the registry holds that no longer names a table
CREATE FUNCTION dt.dangling() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM adjlist_inverted_indexes r
	WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = r.indexrel)
	   OR NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = r.baserel)
	   OR (r.counterrel IS NOT NULL AND NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = r.counterrel)) $$;
SET session_replication_role = replica;
-- refused, as in origin mode (sections 1 and 3)
DROP TRIGGER adjlist_sync_ins ON dt.r;
DROP TRIGGER adjlist_sync_del ON dt.r_a;
DROP TRIGGER adjlist_index_guard ON dt.r_inverted;
ALTER TABLE dt.r DISABLE TRIGGER adjlist_sync_upd;
ALTER TABLE dt.r_inverted_degree DISABLE TRIGGER USER;
ALTER TABLE dt.r_inverted ADD COLUMN extra int;
-- followed, as in origin mode: a new partition gets the triggers, a dropped
-- one takes its rows out of the index, a dropped index table its registration
CREATE TABLE dt.r_m PARTITION OF dt.r FOR VALUES FROM ('M') TO ('Z');
DROP TABLE dt.r_a;
DROP TABLE dt.r2;
RESET session_replication_role;
SELECT indexrel, counterrel IS NOT NULL AS counted FROM adjlist_inverted_indexes
WHERE baserel = 'dt.r'::regclass ORDER BY 1::text;
-- (adjlist_sync_route left out: MERGE needs it on PostgreSQL 16 and later, compat.h)
SELECT tgname FROM pg_trigger WHERE tgrelid = 'dt.r_m'::regclass AND tgname <> 'adjlist_sync_route' ORDER BY 1;
INSERT INTO dt.r VALUES ('N#1', 'F#1', NULL);
SELECT dt.problems('dt.r_inverted') AS problems, degree('dt.r', 'F#1', '', 'in') AS in_f1,
	   dt.dangling() AS dangling;
-- DROP TABLE of the base table: its index and counter tables go with it
SET session_replication_role = replica;
DROP TABLE dt.r;
RESET session_replication_role;
SELECT to_regclass('dt.r_inverted') AS r_inverted, to_regclass('dt.r_inverted_degree') AS r_degree,
	   dt.dangling() AS dangling;
-- a registration left behind all the same (a superuser's event triggers
-- off): a write to the index table says its table is gone, and DROP TABLE
-- of it goes through, taking the registration
CREATE TABLE dt.o (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.o', counters => 1);
BEGIN;
ALTER EVENT TRIGGER adjlist_ddl_start DISABLE;
ALTER EVENT TRIGGER adjlist_sql_drop DISABLE;
DROP TABLE dt.o;
ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;
ALTER EVENT TRIGGER adjlist_sql_drop ENABLE ALWAYS;
COMMIT;
SELECT dt.dangling() AS dangling;
SELECT regexp_replace(dt.try($$INSERT INTO dt.o_inverted VALUES ('F#1', 'A#1')$$),
					  'OID [0-9]+', 'OID n') AS orphan_write;
DROP TABLE dt.o_inverted;
SELECT to_regclass('dt.o_inverted_degree') AS o_degree, dt.dangling() AS dangling;
SELECT evtname, evtenabled FROM pg_event_trigger WHERE evtname LIKE 'adjlist%' ORDER BY 1;

--
-- 8. adjlist_sync_replica (the README's subscriber setup) is accepted in
-- one form only: AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, with no
-- column list, WHEN condition, arguments or constraint, enabled REPLICA.
-- Any other form misses changes or applies them twice: on a table with an
-- inverted index it is refused when created (or renamed to that name),
-- and, made before the index, when it fires (55000, the fix as a hint).
--
CREATE TABLE dt.rep (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.rep');
\set VERBOSITY default
CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OF n ON dt.rep
	FOR EACH ROW WHEN (NEW.n IS DISTINCT FROM 5) EXECUTE FUNCTION adjlist_sync_trigger();
\set VERBOSITY terse
-- each deviation when created; the README's form is accepted
CREATE TABLE dt.forms (i int, form text);
INSERT INTO dt.forms VALUES
	(1, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(2, 'CREATE TRIGGER adjlist_sync_replica AFTER UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(3, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(4, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OF n OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(5, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW WHEN (random() >= 0) EXECUTE FUNCTION adjlist_sync_trigger()'),
	(6, 'CREATE TRIGGER adjlist_sync_replica BEFORE INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(7, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()'),
	(8, 'CREATE CONSTRAINT TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON %s DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(9, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger(''x'')'),
	(10, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT ON %s REFERENCING NEW TABLE AS nt FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'),
	(11, 'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()');
CREATE FUNCTION dt.made(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	EXECUTE sql;
	RAISE SQLSTATE 'AS000' USING MESSAGE = 'accepted';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ': ' || msg || coalesce(' (' || split_part(nullif(det, ''), '.', 1) || ')', '');
END $$;
SELECT i, dt.made(format(form, 'dt.rep')) AS created FROM dt.forms ORDER BY i;
-- no way round by a rename: another trigger on adjlist_sync_trigger() is
-- taken for adjlist's (sections 1 and 3), and cannot be renamed
CREATE TRIGGER other AFTER INSERT ON dt.rep FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger();
ALTER TRIGGER other ON dt.rep RENAME TO adjlist_sync_replica;
-- made before the index: refused when it fires, in replica mode (an apply
-- worker's) as in origin mode; the README's form indexes every change
CREATE FUNCTION dt.fires(form text, enable text, replica boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	CREATE TABLE dt.rf (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
	EXECUTE format(form, 'dt.rf');
	EXECUTE format('ALTER TABLE dt.rf ENABLE %s TRIGGER adjlist_sync_replica', enable);
	PERFORM create_inverted_index('dt.rf');
	IF replica THEN
		SET LOCAL session_replication_role = replica;
	END IF;
	INSERT INTO dt.rf VALUES ('A#1', 'F#1', 1), ('A#2', 'F#1', 5);
	UPDATE dt.rf SET sk = 'F#2' WHERE pk = 'A#1';
	UPDATE dt.rf SET n = 6 WHERE pk = 'A#2';
	DELETE FROM dt.rf WHERE pk = 'A#2';
	SET CONSTRAINTS ALL IMMEDIATE;	-- (a deferred trigger fires here)
	RAISE SQLSTATE 'AS000' USING MESSAGE = 'accepted, index problems: ' ||
		(SELECT count(*) FROM verify_inverted_index('dt.rf_inverted'));
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ': ' || msg || coalesce(' (' || split_part(nullif(det, ''), '.', 1) || ')', '');
END $$;
SELECT i, dt.fires(form, 'REPLICA', true) AS fired FROM dt.forms WHERE i <> 10 ORDER BY i;
SELECT dt.fires(form, 'REPLICA', true) AS the_report FROM (VALUES (
	'CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OF n ON %s FOR EACH ROW WHEN (NEW.n IS DISTINCT FROM 5) EXECUTE FUNCTION adjlist_sync_trigger()')) f(form);
-- not REPLICA: enabled ALWAYS or for ordinary sessions
SELECT e.enable, e.replica, dt.fires(f.form, e.enable, e.replica) AS fired
FROM dt.forms f, (VALUES ('ALWAYS', true), ('ALWAYS', false), ('', false)) e(enable, replica)
WHERE f.i = 11;
-- a partition's clone: the hint names the table the trigger was made on
CREATE TABLE dt.rp (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE dt.rp_1 PARTITION OF dt.rp FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE ON dt.rp
	FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger();
ALTER TABLE dt.rp ENABLE REPLICA TRIGGER adjlist_sync_replica;
SELECT create_inverted_index('dt.rp');
\set VERBOSITY default
SET session_replication_role = replica;
INSERT INTO dt.rp VALUES ('A#1', 'F#1');
RESET session_replication_role;
\set VERBOSITY terse

--
-- OWNER TO and SET LOGGED / UNLOGGED follow on the table the command
-- altered, even when its own code moves search_path before it ends (a
-- CHECK constraint's function with set_config(..., true)) so that the
-- table's name finds another table by then.
--
RESET ROLE;
CREATE SCHEMA dt_elsewhere AUTHORIZATION regress_dt_dba;
SET ROLE regress_dt_dba;
CREATE TABLE dt.mv (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
INSERT INTO dt.mv VALUES ('A#1', 'B#1', 1);
SELECT create_inverted_index('dt.mv', counters => 1);
CREATE TABLE dt_elsewhere.mv (n int);
CREATE FUNCTION dt_elsewhere.mover(int) RETURNS bool LANGUAGE plpgsql AS
$$BEGIN PERFORM set_config('search_path', 'dt_elsewhere', true); RETURN true; END$$;
CREATE FUNCTION dt.mv_state()
RETURNS TABLE (schema name, rel name, owner name, persistence "char")
LANGUAGE sql AS $$
	SELECT n.nspname, c.relname, pg_get_userbyid(c.relowner), c.relpersistence
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname IN ('dt', 'dt_elsewhere') AND c.relkind = 'r' AND c.relname ~ '^mv(_|$)'
	ORDER BY 1, 2 $$;
SELECT * FROM dt.mv_state();
BEGIN;
SET LOCAL search_path = dt;
ALTER TABLE mv SET UNLOGGED, ADD CONSTRAINT c1 CHECK (dt_elsewhere.mover(n));
SHOW search_path;
SELECT * FROM dt.mv_state();
COMMIT;
RESET ROLE;
BEGIN;
SET LOCAL search_path = dt;
ALTER TABLE mv OWNER TO regress_dt_other, ADD CONSTRAINT c2 CHECK (dt_elsewhere.mover(n));
SHOW search_path;
SELECT * FROM dt.mv_state();
COMMIT;
SELECT count(*) AS problems FROM verify_inverted_index('dt.mv_inverted');
-- ATTACH PARTITION: the partition it attached joins the index and gets the
-- triggers.  Core opens it by name after the bound's expressions have run,
-- and here they move search_path: the one in dt_elsewhere is attached, and
-- followed, not dt.ap1 that the name found when the command started.
SET ROLE regress_dt_dba;
CREATE FUNCTION dt_elsewhere.moved(text) RETURNS text LANGUAGE plpgsql AS
$$BEGIN PERFORM set_config('search_path', 'dt_elsewhere', true); RETURN $1; END$$;
CREATE TABLE dt.ap (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
SELECT create_inverted_index('dt.ap');
CREATE TABLE dt.ap1 (pk adjkey NOT NULL, sk adjkey NOT NULL);
INSERT INTO dt.ap1 VALUES ('A#1', 'B#1');
CREATE TABLE dt_elsewhere.ap1 (pk adjkey NOT NULL, sk adjkey NOT NULL);
INSERT INTO dt_elsewhere.ap1 VALUES ('A#2', 'B#2');
BEGIN;
SET LOCAL search_path = dt;
ALTER TABLE ap ATTACH PARTITION ap1 FOR VALUES FROM (dt_elsewhere.moved('A#')::public.adjkey) TO ('A$');
SHOW search_path;
COMMIT;
SELECT tableoid::regclass, * FROM dt.ap;
SELECT * FROM dt.ap_inverted ORDER BY 1, 2;
SELECT count(*) AS problems FROM verify_inverted_index('dt.ap_inverted');
-- (those adjlist puts on the partition itself: on 16 and later its
-- adjlist_sync_route is also there, cloned from the base table)
SELECT tgrelid::regclass, count(*) FROM pg_trigger
WHERE tgrelid IN ('dt.ap1'::regclass, 'dt_elsewhere.ap1'::regclass) AND tgparentid = 0 GROUP BY 1;
RESET ROLE;
SET client_min_messages = warning;
DROP SCHEMA dt_elsewhere CASCADE;
DROP TABLE dt.mv, dt.ap;
RESET client_min_messages;

--
-- ATTACH PARTITION takes exactly the partition this command attached: not
-- one of the same name in another schema that an earlier ATTACH of the
-- transaction took (its rows are in the index already, and its counters
-- would count them twice), in either order, nor the same table's earlier
-- attachment when it is detached and attached again.
--
CREATE SCHEMA dt_s1 AUTHORIZATION regress_dt_dba;
SET ROLE regress_dt_dba;
CREATE TABLE dt.at (pk adjkey, sk adjkey, v int, PRIMARY KEY (pk, sk, v)) PARTITION BY LIST (v);
CREATE TABLE dt.at1 PARTITION OF dt.at FOR VALUES IN (1);
SELECT create_inverted_index('dt.at', counters => 1);
CREATE TABLE dt_s1.atp (LIKE dt.at);
INSERT INTO dt_s1.atp VALUES ('A#c', 'B#a', 2);
CREATE TABLE dt.atp (LIKE dt.at);
INSERT INTO dt.atp VALUES ('A#d', 'B#a', 3);
BEGIN;
SET LOCAL search_path = dt;
ALTER TABLE at ATTACH PARTITION dt_s1.atp FOR VALUES IN (2);
ALTER TABLE at ATTACH PARTITION atp FOR VALUES IN (3);
COMMIT;
SELECT direction, sum(n) FROM dt.at_inverted_degree GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM verify_inverted_index('dt.at_inverted');
-- the other order
ALTER TABLE dt.at DETACH PARTITION dt_s1.atp;
ALTER TABLE dt.at DETACH PARTITION dt.atp;
SELECT direction, sum(n) FROM dt.at_inverted_degree GROUP BY 1 ORDER BY 1;
BEGIN;
SET LOCAL search_path = dt;
ALTER TABLE at ATTACH PARTITION atp FOR VALUES IN (3);
ALTER TABLE at ATTACH PARTITION dt_s1.atp FOR VALUES IN (2);
COMMIT;
SELECT direction, sum(n) FROM dt.at_inverted_degree GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM verify_inverted_index('dt.at_inverted');
-- detached and attached again, and a second table after it, in one
-- transaction (and a savepoint rolled back in between)
BEGIN;
ALTER TABLE dt.at DETACH PARTITION dt.atp;
ALTER TABLE dt.at ATTACH PARTITION dt.atp FOR VALUES IN (3);
SAVEPOINT s;
ALTER TABLE dt.at DETACH PARTITION dt_s1.atp;
ROLLBACK TO SAVEPOINT s;
ALTER TABLE dt.at DETACH PARTITION dt_s1.atp;
ALTER TABLE dt.at ATTACH PARTITION dt_s1.atp FOR VALUES IN (2);
COMMIT;
SELECT direction, sum(n) FROM dt.at_inverted_degree GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM verify_inverted_index('dt.at_inverted');
-- a partition attached before the table had its index, then another of
-- the same name: the first one's rows are counted once, by the build
ALTER TABLE dt.at DETACH PARTITION dt_s1.atp;
ALTER TABLE dt.at DETACH PARTITION dt.atp;
CREATE TABLE dt.at2 (pk adjkey, sk adjkey, v int, PRIMARY KEY (pk, sk, v)) PARTITION BY LIST (v);
BEGIN;
ALTER TABLE dt.at2 ATTACH PARTITION dt_s1.atp FOR VALUES IN (2);
SELECT create_inverted_index('dt.at2', counters => 1);
SET LOCAL search_path = dt;
ALTER TABLE at2 ATTACH PARTITION atp FOR VALUES IN (3);
COMMIT;
SELECT direction, sum(n) FROM dt.at2_inverted_degree GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM verify_inverted_index('dt.at2_inverted');
RESET ROLE;

--
-- CREATE SCHEMA's own CREATE TABLE: PARTITION OF an indexed table is
-- followed as CREATE TABLE's is, and INHERITS of one is refused.
--
SET ROLE regress_dt_dba;
CREATE TABLE dt.cs (pk adjkey, sk adjkey, v int, PRIMARY KEY (pk, sk, v)) PARTITION BY LIST (v);
CREATE TABLE dt.cs1 PARTITION OF dt.cs FOR VALUES IN (1);
SELECT create_inverted_index('dt.cs', counters => 1);
RESET ROLE;
CREATE SCHEMA dt_s2 AUTHORIZATION regress_dt_dba
	CREATE TABLE p2 PARTITION OF dt.cs FOR VALUES IN (2);
SET ROLE regress_dt_dba;
SELECT count(*) AS adjlist_triggers FROM pg_trigger
WHERE tgrelid = 'dt_s2.p2'::regclass AND tgname LIKE 'adjlist%' AND tgparentid = 0;
INSERT INTO dt_s2.p2 VALUES ('A#c', 'B#a', 2);
SELECT direction, sum(n) FROM dt.cs_inverted_degree GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM verify_inverted_index('dt.cs_inverted');
CREATE TABLE dt.ch (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dt.ch');
RESET ROLE;
CREATE SCHEMA dt_s3 AUTHORIZATION regress_dt_dba
	CREATE TABLE c3 (x int) INHERITS (dt.ch);
SELECT count(*) FROM pg_namespace WHERE nspname = 'dt_s3';

--
-- A ddl_command_start event trigger of the DBA's that moves search_path
-- (it fires after adjlist's): DETACH PARTITION's and DROP TABLE's names
-- then find other tables than the ones adjlist prepared at the start, and
-- the command is refused.
--
CREATE TABLE dt_s1.cs (pk adjkey, sk adjkey, v int, PRIMARY KEY (pk, sk, v)) PARTITION BY LIST (v);
CREATE TABLE dt_s1.cs1 PARTITION OF dt_s1.cs FOR VALUES IN (1);
INSERT INTO dt.cs VALUES ('A#a', 'B#b', 1);
INSERT INTO dt_s1.cs VALUES ('A#x', 'B#y', 1);
SELECT create_inverted_index('dt_s1.cs');
CREATE FUNCTION dt.zz_path() RETURNS event_trigger LANGUAGE plpgsql AS
$$BEGIN PERFORM set_config('search_path', 'dt_s1, public', true); END$$;
CREATE EVENT TRIGGER zz_dt_path ON ddl_command_start WHEN TAG IN ('ALTER TABLE', 'DROP TABLE')
	EXECUTE FUNCTION dt.zz_path();
BEGIN;
SET LOCAL search_path = dt, public;
ALTER TABLE cs DETACH PARTITION cs1;
ROLLBACK;
BEGIN;
SET LOCAL search_path = dt, public;
DROP TABLE cs1;
ROLLBACK;
BEGIN;
SET LOCAL search_path = dt, public;
DROP TABLE IF EXISTS cs1, cs_nonesuch;
ROLLBACK;
DROP EVENT TRIGGER zz_dt_path;
SELECT count(*) AS problems FROM verify_inverted_index('dt.cs_inverted');
SELECT count(*) AS problems FROM verify_inverted_index('dt_s1.cs_inverted');
SELECT count(*) FROM pg_inherits WHERE inhrelid IN ('dt.cs1'::regclass, 'dt_s1.cs1'::regclass);
SET client_min_messages = warning;
DROP SCHEMA dt_s1, dt_s2 CASCADE;
DROP TABLE dt.at, dt.at2, dt.cs, dt.ch;
RESET client_min_messages;

--
-- Cleanup
--
SET client_min_messages = warning;
DROP SCHEMA dt CASCADE;
RESET client_min_messages;
DROP ROLE regress_dt_dba, regress_dt_other;

--
-- subscriber_triggers: the enable state of adjlist's TRUNCATE triggers on a
-- partitioned base table reaches its partitions (issue 11).
--
-- A logical replication subscriber that keeps its own index enables the
-- TRUNCATE triggers of the base table ALWAYS (README, "Replication and
-- session_replication_role").  Its apply worker runs in replica mode and
-- replays TRUNCATE of one partition as a TRUNCATE of that partition, which
-- fires that partition's own adjlist_sync_before_trunc only: adjlist's
-- trigger, not a clone of the parent's, which core's recursion would not
-- reach.  adjlist passes the state on as core does for clones:
--   - ALTER TABLE (without ONLY) ENABLE [ALWAYS] TRIGGER
--     adjlist_sync_before_trunc, or ENABLE TRIGGER USER / ALL, of a
--     partitioned base table or partition gives its state to the same
--     trigger of every partition below it, whoever owns them;
--   - a partition that gets the trigger (CREATE TABLE ... PARTITION OF,
--     ATTACH PARTITION, at any depth) takes its parent's state;
--   - a partition that has it keeps its state (another index, ONLY).
-- A session in replica mode stands for the apply worker here; the TAP test
-- 013_streams.pl replicates.  In an ordinary session ALWAYS fires as
-- ORIGIN does: nothing is removed twice.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS st CASCADE;
DROP ROLE IF EXISTS regress_st_dba;
DROP ROLE IF EXISTS regress_st_other;
DROP SCHEMA IF EXISTS st_victim CASCADE;
DROP ROLE IF EXISTS regress_st_victim;
DROP ROLE IF EXISTS regress_st_mallory;
RESET client_min_messages;
CREATE ROLE regress_st_dba;
CREATE ROLE regress_st_other;
CREATE SCHEMA st AUTHORIZATION regress_st_dba;

-- the TRUNCATE triggers of st.p and its partitions, and their states
CREATE VIEW st.states AS
SELECT t.tgrelid::regclass AS tbl, t.tgname, t.tgenabled
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = 'st'::regnamespace AND t.tgname LIKE 'adjlist_sync%trunc'
ORDER BY 1, 2;
-- what the index holds against the base table, counters included
CREATE FUNCTION st.problems(idx text = 'st.p_inverted') RETURNS bigint
LANGUAGE sql AS $$ SELECT count(*) FROM verify_inverted_index(idx::regclass) $$;
GRANT SELECT ON st.states TO PUBLIC;

-- p: a leaf, and a partition partitioned again
SET ROLE regress_st_dba;
CREATE TABLE st.p (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE st.p_a PARTITION OF st.p FOR VALUES FROM ('A#') TO ('A$');
CREATE TABLE st.p_b PARTITION OF st.p FOR VALUES FROM ('B#') TO ('B$') PARTITION BY HASH (pk);
CREATE TABLE st.p_b0 PARTITION OF st.p_b FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE st.p_b1 PARTITION OF st.p_b FOR VALUES WITH (MODULUS 2, REMAINDER 1);
SELECT create_inverted_index('st.p', counters => 1);
CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON st.p
	FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger();
SELECT * FROM st.states;
-- a partition of another owner (the superuser gave it away), who may not
-- even look into the schema
RESET ROLE;
ALTER TABLE st.p_b1 OWNER TO regress_st_other;
SET ROLE regress_st_dba;

-- 1. The README's subscriber setup: every partition follows, at any depth
ALTER TABLE st.p ENABLE REPLICA TRIGGER adjlist_sync_replica,
	ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc,
	ENABLE ALWAYS TRIGGER adjlist_sync_trunc;
SELECT * FROM st.states;

-- 2. Partitions added later take their parent's state: created, attached
-- (with rows, and partitioned with a partition of its own), at any depth
CREATE TABLE st.p_c PARTITION OF st.p FOR VALUES FROM ('C#') TO ('C$');
CREATE TABLE st.p_d (pk adjkey NOT NULL, sk adjkey NOT NULL);
INSERT INTO st.p_d VALUES ('D#1', 'F#A#9');
ALTER TABLE st.p ATTACH PARTITION st.p_d FOR VALUES FROM ('D#') TO ('D$');
CREATE TABLE st.p_e (pk adjkey NOT NULL, sk adjkey NOT NULL) PARTITION BY RANGE (pk);
CREATE TABLE st.p_e1 PARTITION OF st.p_e FOR VALUES FROM ('E#') TO ('E#5');
ALTER TABLE st.p ATTACH PARTITION st.p_e FOR VALUES FROM ('E#') TO ('E$');
-- (another owner's partition: detached and attached again by a superuser)
RESET ROLE;
ALTER TABLE st.p_b DETACH PARTITION st.p_b1;
ALTER TABLE st.p_b ATTACH PARTITION st.p_b1 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
-- (and the base table's own keep theirs)
SELECT * FROM st.states WHERE tbl::text IN ('st.p', 'st.p_b1', 'st.p_c', 'st.p_d', 'st.p_e', 'st.p_e1');

-- 3. Replica mode (an apply worker, a superuser): TRUNCATE of a
-- partition, of a sub-partition (another owner's), of partitions added
-- later, of a partitioned partition
INSERT INTO st.p SELECT (k || '#' || i)::adjkey, ('F#A#' || i)::adjkey
FROM unnest(ARRAY['A', 'B', 'C', 'D', 'E']) k, generate_series(1, 4) i;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed;
SET session_replication_role = replica;
TRUNCATE st.p_a;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed;
TRUNCATE st.p_b1;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed;
TRUNCATE st.p_c, st.p_e1;
TRUNCATE st.p_d;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed;
TRUNCATE st.p_b;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed,
	   degree('st.p', 'A#1', 'F', 'in') AS in_a1;
RESET session_replication_role;
SET ROLE regress_st_dba;

-- 4. An ordinary session: enabled ALWAYS, nothing happens twice
INSERT INTO st.p SELECT (k || '#' || i)::adjkey, ('F#A#' || i)::adjkey
FROM unnest(ARRAY['A', 'B', 'C']) k, generate_series(1, 3) i;
TRUNCATE st.p_a;
TRUNCATE st.p_b;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed,
	   degree('st.p', 'A#1', 'F', 'in') AS in_a1;
TRUNCATE st.p;
SELECT st.problems() AS problems, (SELECT count(*) FROM st.p_inverted) AS indexed;

-- 5. ONLY changes the table named; a partitioned partition passes its
-- state on below; another index keeps the states as they are
ALTER TABLE ONLY st.p_b ENABLE TRIGGER adjlist_sync_before_trunc;
ALTER TABLE ONLY st.p_e ENABLE TRIGGER adjlist_sync_before_trunc;
SELECT * FROM st.states WHERE tbl::text LIKE 'st.p\_b%' OR tbl::text LIKE 'st.p\_e%';
ALTER TABLE st.p_e ENABLE TRIGGER adjlist_sync_before_trunc;
SELECT create_inverted_index('st.p', index_name => 'p_by_pk', partition_key => 'pk', sort_key => 'sk');
SELECT * FROM st.states WHERE tbl::text LIKE 'st.p\_b%' OR tbl::text LIKE 'st.p\_e%';
-- a new partition takes its parent's state: p_e's, p's
CREATE TABLE st.p_e2 PARTITION OF st.p_e FOR VALUES FROM ('E#5') TO ('E$');
CREATE TABLE st.p_f PARTITION OF st.p FOR VALUES FROM ('F#') TO ('F$') PARTITION BY RANGE (pk);
CREATE TABLE st.p_f1 PARTITION OF st.p_f FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
SELECT * FROM st.states WHERE tbl::text IN ('st.p', 'st.p_e2', 'st.p_f', 'st.p_f1');

-- 6. Back to ordinary sessions only: by name, then all the user triggers
-- (adjlist_sync_replica among them, so enabled for replica mode again)
ALTER TABLE st.p ENABLE TRIGGER adjlist_sync_before_trunc, ENABLE TRIGGER adjlist_sync_trunc;
SELECT tgenabled, count(*) FROM st.states GROUP BY 1;
ALTER TABLE st.p ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc;
SELECT tgenabled, count(*) FROM st.states WHERE tgname = 'adjlist_sync_before_trunc' GROUP BY 1;
ALTER TABLE st.p ENABLE TRIGGER USER, ENABLE REPLICA TRIGGER adjlist_sync_replica;
SELECT tgenabled, count(*) FROM st.states GROUP BY 1;
-- another trigger's ENABLE leaves the TRUNCATE triggers' states alone
ALTER TABLE ONLY st.p_a ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc;
ALTER TABLE st.p ENABLE REPLICA TRIGGER adjlist_sync_replica;
SELECT * FROM st.states WHERE tbl = 'st.p_a'::regclass;
-- ENABLE REPLICA and DISABLE of it stay refused, and pass nothing on
ALTER TABLE st.p ENABLE REPLICA TRIGGER adjlist_sync_before_trunc;
ALTER TABLE st.p DISABLE TRIGGER adjlist_sync_before_trunc;
SELECT tgenabled, count(*) FROM st.states GROUP BY 1;
RESET ROLE;

-- 7. The table ALTER TABLE altered, never its name looked up again when it
-- ends.  mallory, who may only create temporary tables, enables the
-- triggers of her own temporary table g while a CHECK constraint's function
-- moves search_path so that "g" finds the victim's partitioned base table:
-- the victim's partitions keep their states (her command passed ALWAYS on
-- to them, as ORIGIN, before adjlist followed the command's own OIDs).
CREATE ROLE regress_st_victim;
CREATE ROLE regress_st_mallory;
CREATE SCHEMA st_victim AUTHORIZATION regress_st_victim;
GRANT USAGE ON SCHEMA st_victim TO PUBLIC;
SET ROLE regress_st_victim;
CREATE TABLE st_victim.g (pk adjkey, sk adjkey, r int, PRIMARY KEY (pk, sk, r))
	PARTITION BY LIST (r);
CREATE TABLE st_victim.g1 PARTITION OF st_victim.g FOR VALUES IN (1);
SELECT create_inverted_index('st_victim.g');
-- the subscriber recipe on one partition only
ALTER TABLE ONLY st_victim.g1 ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc;
RESET ROLE;
CREATE VIEW st.victim_states AS
SELECT t.tgrelid::regclass AS tbl, t.tgenabled
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = 'st_victim'::regnamespace AND t.tgname = 'adjlist_sync_before_trunc'
ORDER BY 1;
SELECT * FROM st.victim_states;
SET ROLE regress_st_mallory;
SET search_path = pg_temp, st_victim;
CREATE TEMP TABLE g (a int);
INSERT INTO g VALUES (1);
CREATE FUNCTION pg_temp.evil(int) RETURNS bool LANGUAGE plpgsql AS
$$BEGIN PERFORM set_config('search_path', 'st_victim, pg_temp', true); RETURN true; END$$;
BEGIN;
ALTER TABLE g ENABLE TRIGGER ALL, ADD CONSTRAINT c CHECK (pg_temp.evil(a));
SHOW search_path;
COMMIT;
DROP TABLE g;
DROP FUNCTION pg_temp.evil(int);
RESET search_path;
RESET ROLE;
SELECT * FROM st.victim_states;
SET client_min_messages = warning;
DROP SCHEMA st_victim CASCADE;
RESET client_min_messages;
DROP ROLE regress_st_victim, regress_st_mallory;

--
-- Cleanup
--
SET client_min_messages = warning;
DROP SCHEMA st CASCADE;
RESET client_min_messages;
DROP ROLE regress_st_dba, regress_st_other;

-- adjlist install and update script, part: inverted indexes (CREATE OR
-- REPLACE: the same text creates them and updates them)

CREATE OR REPLACE FUNCTION adjlist_registry_restored() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_registry_restored'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_registry_restored() IS
	'trigger: checks a registration that adjlist did not write (pg_restore) and rebuilds its index when the table''s triggers are there';

CREATE OR REPLACE FUNCTION write_shard(source adjkey, shards integer) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjlist_write_shard'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard(adjkey, integer) IS
	'the write shard (0 .. shards-1) of a source key: FNV-1a of its UTF-8 bytes, modulo shards';

CREATE OR REPLACE FUNCTION write_shard_key(partition_key adjkey, source adjkey, shards integer) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjlist_write_shard_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard_key(adjkey, adjkey, integer) IS
	'the partition key an index row is stored under: partition_key#shard, or partition_key itself when shards is 0';

CREATE OR REPLACE FUNCTION write_shard_keys(partition_key adjkey, shards integer) RETURNS adjkey[]
	AS 'MODULE_PATHNAME', 'adjlist_write_shard_keys'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard_keys(adjkey, integer) IS
	'every stored partition key of a logical partition: partition_key#0 .. #shards-1, or {partition_key}';

-- The C triggers (index_sync.c; the guard of index tables, index_sync_check.c).
CREATE OR REPLACE FUNCTION adjlist_sync_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_sync_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_sync_trigger() IS
	'trigger: writes the inverted indexes of a table in the same transaction as the table';
CREATE OR REPLACE FUNCTION adjlist_index_guard() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_index_guard'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_index_guard() IS
	'trigger: refuses writes to an index or counter table that adjlist does not make';

CREATE OR REPLACE FUNCTION create_inverted_index(
	tbl regclass,
	partition_key name DEFAULT 'sk',
	sort_key name DEFAULT 'pk',
	include name[] DEFAULT '{}',
	index_name text DEFAULT NULL,
	partitions integer DEFAULT 0,
	counters integer DEFAULT 0,
	base_key name[] DEFAULT NULL,
	existing boolean DEFAULT false,
	mode text DEFAULT 'trigger',
	write_shards integer DEFAULT 0,
	predicate text DEFAULT NULL)
RETURNS regclass
	AS 'MODULE_PATHNAME', 'adjlist_create_inverted_index'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer, text) IS
	'create an inverted index (a DynamoDB GSI) of a table, kept exact by triggers or the write API';

-- The same, as a procedure: CALL create_inverted_index(tbl, concurrently =>
-- true, ...) builds the index in transactions of its own while writers go
-- on (index_build.c); concurrently => false does what the function does.
-- (concurrently has no default, so that a call without it is the
-- function's; a procedure with a SET clause could not commit.)
CREATE OR REPLACE PROCEDURE create_inverted_index(
	tbl regclass,
	concurrently boolean,
	partition_key name DEFAULT 'sk',
	sort_key name DEFAULT 'pk',
	include name[] DEFAULT '{}',
	index_name text DEFAULT NULL,
	partitions integer DEFAULT 0,
	counters integer DEFAULT 0,
	base_key name[] DEFAULT NULL,
	existing boolean DEFAULT false,
	mode text DEFAULT 'trigger',
	write_shards integer DEFAULT 0,
	predicate text DEFAULT NULL)
	AS 'MODULE_PATHNAME', 'adjlist_create_inverted_index_proc'
	LANGUAGE C;
COMMENT ON PROCEDURE create_inverted_index(regclass, boolean, name, name, name[], text, integer, integer, name[], boolean, text, integer, text) IS
	'create an inverted index; concurrently => true builds it without blocking writers, like CREATE INDEX CONCURRENTLY';

-- Builds in progress, from the CREATE INDEX progress reports; adjlist's are
-- told from index builds by a mark in the access method's subphase, which
-- an access method reports only with its own OID (adjlist reports none).
CREATE OR REPLACE VIEW inverted_index_progress AS
SELECT s.pid,
	s.relid::pg_catalog.regclass AS base_table,
	s.param7::pg_catalog.oid::pg_catalog.regclass AS index_table,
	CASE s.param1 WHEN 2 THEN 'create_inverted_index concurrently'
		ELSE 'create_inverted_index' END AS command,
	CASE s.param10
		WHEN 0 THEN 'initializing'
		WHEN 1 THEN 'waiting for writers'
		WHEN 2 THEN 'backfilling'
		WHEN 6 THEN 'validating'
	END AS phase,
	s.param4 AS lockers_total,
	s.param5 AS lockers_done,
	s.param6 AS current_locker_pid,
	s.param16 AS blocks_total,
	s.param17 AS blocks_done,
	s.param12 AS tuples_total,
	s.param13 AS tuples_done,
	s.param14 AS partitions_total,
	s.param15 AS partitions_done
FROM pg_catalog.pg_stat_get_progress_info('CREATE INDEX') s
WHERE s.datid OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d
		WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
	AND s.param9 OPERATOR(pg_catalog.=) 0
	AND s.param11 OPERATOR(pg_catalog.=) 1094994508;
COMMENT ON VIEW inverted_index_progress IS
	'create_inverted_index() calls in progress in this database (also shown by pg_stat_progress_create_index)';

CREATE OR REPLACE FUNCTION drop_inverted_index(index regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_drop_inverted_index'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION drop_inverted_index(regclass) IS
	'drop an inverted index: its table, its counters, its registration and its triggers';

CREATE OR REPLACE FUNCTION adjlist_index_rows(index regclass) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'adjlist_index_rows'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION adjlist_index_rows(regclass) IS
	'the rows an inverted index should hold, computed from its base table (for the owner of the base table)';

CREATE OR REPLACE FUNCTION adjlist_index_counts(index regclass)
RETURNS TABLE (node adjkey, edge text, direction "char", n bigint)
	AS 'MODULE_PATHNAME', 'adjlist_index_counts'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION adjlist_index_counts(regclass) IS
	'the degree counts an index should have, computed from its base table (sum them per group)';

CREATE OR REPLACE FUNCTION verify_inverted_index(index regclass)
RETURNS TABLE (problem text, key jsonb, expected jsonb, actual jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_verify_inverted_index'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION verify_inverted_index(regclass) IS
	'rows where an inverted index differs from its base table; none means consistent';

CREATE OR REPLACE FUNCTION rebuild_inverted_index(index regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_rebuild_inverted_index'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION rebuild_inverted_index(regclass) IS
	'repair an inverted index from its base table; returns the number of problems repaired';

CREATE OR REPLACE FUNCTION compact_counters(index regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_compact_counters'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION compact_counters(regclass) IS
	'fold the insert-only rows of an index''s degree counters into one row per group; returns the rows removed';

CREATE OR REPLACE FUNCTION edge_count(index regclass, node adjkey, edge text, direction text DEFAULT 'out')
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_edge_count'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION edge_count(regclass, adjkey, text, text) IS
	'number of out- or in-edges of a node with an edge name, from the maintained counters';

-- DDL: event triggers that keep indexes exact through partitioning, drops
-- and ALTER TABLE (index_guard.c).
CREATE OR REPLACE FUNCTION adjlist_on_ddl_start() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'adjlist_on_ddl_start' LANGUAGE C;
COMMENT ON FUNCTION adjlist_on_ddl_start() IS
	'event trigger: refuses DETACH CONCURRENTLY of indexed tables, unindexes dropped partitions';
CREATE OR REPLACE FUNCTION adjlist_on_ddl_end() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'adjlist_on_ddl_end' LANGUAGE C;
COMMENT ON FUNCTION adjlist_on_ddl_end() IS
	'event trigger: follows partitions and owners, refuses DDL that would break an inverted index';
CREATE OR REPLACE FUNCTION adjlist_on_sql_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'adjlist_on_sql_drop' LANGUAGE C;
COMMENT ON FUNCTION adjlist_on_sql_drop() IS
	'event trigger: keeps inverted index registrations consistent with dropped tables';

-- Before DROP EXTENSION adjlist, to keep every row (uninstall.c)
CREATE OR REPLACE FUNCTION adjlist_uninstall() RETURNS TABLE (action text, object text)
	AS 'MODULE_PATHNAME', 'adjlist_uninstall'
	LANGUAGE C VOLATILE;
COMMENT ON FUNCTION adjlist_uninstall() IS
	'drops every inverted index, turns adjkey columns into text and rewrites the defaults, CHECK constraints, partial indexes and views that use them, so that DROP EXTENSION adjlist keeps the data; refuses (changing nothing) what it cannot rewrite';

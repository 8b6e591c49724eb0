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

-- The C triggers (index_sync.c).
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
	write_shards integer DEFAULT 0)
RETURNS regclass
	AS 'MODULE_PATHNAME', 'adjlist_create_inverted_index'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer) IS
	'create an inverted index (a DynamoDB GSI) of a table, kept exact by triggers or the write API';

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
	'drops every inverted index and turns adjkey columns into text, so that DROP EXTENSION adjlist keeps the data';

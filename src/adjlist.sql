/* adjlist: DynamoDB-style adjacency lists (single source of the install script) */

\echo Use "CREATE EXTENSION adjlist" to load this file. \quit

-- ---------------------------------------------------------------------
-- The type
-- ---------------------------------------------------------------------

CREATE TYPE adjkey;

CREATE FUNCTION adjkey_in(cstring) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_out(adjkey) RETURNS cstring
	AS 'MODULE_PATHNAME', 'adjkey_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_recv(internal) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_send(adjkey) RETURNS bytea
	AS 'MODULE_PATHNAME', 'adjkey_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE adjkey (
	INPUT = adjkey_in,
	OUTPUT = adjkey_out,
	RECEIVE = adjkey_recv,
	SEND = adjkey_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = main,
	CATEGORY = 'U'
);

COMMENT ON TYPE adjkey IS
	'composite key such as USER#alice, ordered by its UTF-8 bytes like DynamoDB string keys';
COMMENT ON FUNCTION adjkey_in(cstring) IS 'text input of adjkey';
COMMENT ON FUNCTION adjkey_out(adjkey) IS 'text output of adjkey';
COMMENT ON FUNCTION adjkey_recv(internal) IS 'binary input of adjkey (version byte, UTF-8 bytes)';
COMMENT ON FUNCTION adjkey_send(adjkey) IS 'binary output of adjkey (version byte, UTF-8 bytes)';

-- ---------------------------------------------------------------------
-- Casts
-- ---------------------------------------------------------------------

CREATE FUNCTION adjkey(text) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_from_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey(text) IS 'convert text to adjkey';

CREATE FUNCTION text(adjkey) RETURNS text
	AS 'MODULE_PATHNAME', 'adjkey_to_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION text(adjkey) IS 'convert adjkey to text';

-- Assignment, not implicit, in both directions: an implicit cast to text
-- would let "sk < $1::text" silently compare by collation instead of bytes.
CREATE CAST (text AS adjkey) WITH FUNCTION adjkey(text) AS ASSIGNMENT;
CREATE CAST (adjkey AS text) WITH FUNCTION text(adjkey) AS ASSIGNMENT;

-- ---------------------------------------------------------------------
-- Comparison
-- ---------------------------------------------------------------------

CREATE FUNCTION adjkey_eq(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_ne(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_lt(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_le(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_gt(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_ge(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_cmp(adjkey, adjkey) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME', 'adjkey_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_hash(adjkey) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_hash_extended(adjkey, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjkey_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_larger(adjkey, adjkey) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_smaller(adjkey, adjkey) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION adjkey_eq(adjkey, adjkey) IS 'implementation of = for adjkey';
COMMENT ON FUNCTION adjkey_ne(adjkey, adjkey) IS 'implementation of <> for adjkey';
COMMENT ON FUNCTION adjkey_lt(adjkey, adjkey) IS 'implementation of < for adjkey';
COMMENT ON FUNCTION adjkey_le(adjkey, adjkey) IS 'implementation of <= for adjkey';
COMMENT ON FUNCTION adjkey_gt(adjkey, adjkey) IS 'implementation of > for adjkey';
COMMENT ON FUNCTION adjkey_ge(adjkey, adjkey) IS 'implementation of >= for adjkey';
COMMENT ON FUNCTION adjkey_cmp(adjkey, adjkey) IS 'btree comparison: -1, 0 or 1 by UTF-8 bytes';
COMMENT ON FUNCTION adjkey_sortsupport(internal) IS 'btree sort support with abbreviated keys';
COMMENT ON FUNCTION adjkey_hash(adjkey) IS 'hash of an adjkey';
COMMENT ON FUNCTION adjkey_hash_extended(adjkey, bigint) IS 'seeded 64-bit hash of an adjkey';
COMMENT ON FUNCTION adjkey_larger(adjkey, adjkey) IS 'larger of two keys';
COMMENT ON FUNCTION adjkey_smaller(adjkey, adjkey) IS 'smaller of two keys';

CREATE OPERATOR = (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjkey_eq,
	COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjkey_ne,
	COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjkey_lt,
	COMMUTATOR = >, NEGATOR = >=,
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjkey_le,
	COMMUTATOR = >=, NEGATOR = >,
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjkey_gt,
	COMMUTATOR = <, NEGATOR = <=,
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = adjkey_ge,
	COMMUTATOR = <=, NEGATOR = <,
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS adjkey_ops
	DEFAULT FOR TYPE adjkey USING btree AS
		OPERATOR 1 <,
		OPERATOR 2 <=,
		OPERATOR 3 =,
		OPERATOR 4 >=,
		OPERATOR 5 >,
		FUNCTION 1 adjkey_cmp(adjkey, adjkey),
		FUNCTION 2 adjkey_sortsupport(internal),
		FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS adjkey_hash_ops
	DEFAULT FOR TYPE adjkey USING hash AS
		OPERATOR 1 =,
		FUNCTION 1 adjkey_hash(adjkey),
		FUNCTION 2 adjkey_hash_extended(adjkey, bigint);


-- Comparison of a key with raw UTF-8 bytes (bytea), in adjkey's btree
-- family: what generic plans of begins_with compare with (the bounds
-- above).  Both sides compare as bytes, exactly like two keys.
CREATE FUNCTION adjkey_bytea_cmp(adjkey, bytea) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION bytea_adjkey_cmp(bytea, adjkey) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_bytea_cmp(adjkey, bytea) IS 'btree comparison of a key with UTF-8 bytes';
COMMENT ON FUNCTION bytea_adjkey_cmp(bytea, adjkey) IS 'btree comparison of UTF-8 bytes with a key';
CREATE FUNCTION adjkey_bytea_lt(adjkey, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION bytea_adjkey_lt(bytea, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_bytea_lt(adjkey, bytea) IS 'implementation of < for adjkey and bytea';
COMMENT ON FUNCTION bytea_adjkey_lt(bytea, adjkey) IS 'implementation of < for bytea and adjkey';
CREATE FUNCTION adjkey_bytea_le(adjkey, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION bytea_adjkey_le(bytea, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_bytea_le(adjkey, bytea) IS 'implementation of <= for adjkey and bytea';
COMMENT ON FUNCTION bytea_adjkey_le(bytea, adjkey) IS 'implementation of <= for bytea and adjkey';
CREATE FUNCTION adjkey_bytea_eq(adjkey, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION bytea_adjkey_eq(bytea, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_bytea_eq(adjkey, bytea) IS 'implementation of = for adjkey and bytea';
COMMENT ON FUNCTION bytea_adjkey_eq(bytea, adjkey) IS 'implementation of = for bytea and adjkey';
CREATE FUNCTION adjkey_bytea_ge(adjkey, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION bytea_adjkey_ge(bytea, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_bytea_ge(adjkey, bytea) IS 'implementation of >= for adjkey and bytea';
COMMENT ON FUNCTION bytea_adjkey_ge(bytea, adjkey) IS 'implementation of >= for bytea and adjkey';
CREATE FUNCTION adjkey_bytea_gt(adjkey, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION bytea_adjkey_gt(bytea, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_bytea_gt(adjkey, bytea) IS 'implementation of > for adjkey and bytea';
COMMENT ON FUNCTION bytea_adjkey_gt(bytea, adjkey) IS 'implementation of > for bytea and adjkey';
CREATE OPERATOR < (
	LEFTARG = adjkey, RIGHTARG = bytea, FUNCTION = adjkey_bytea_lt,
	COMMUTATOR = >, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR < (
	LEFTARG = bytea, RIGHTARG = adjkey, FUNCTION = bytea_adjkey_lt,
	COMMUTATOR = >, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = adjkey, RIGHTARG = bytea, FUNCTION = adjkey_bytea_le,
	COMMUTATOR = >=, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR <= (
	LEFTARG = bytea, RIGHTARG = adjkey, FUNCTION = bytea_adjkey_le,
	COMMUTATOR = >=, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
	LEFTARG = adjkey, RIGHTARG = bytea, FUNCTION = adjkey_bytea_eq,
	COMMUTATOR = =, RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR = (
	LEFTARG = bytea, RIGHTARG = adjkey, FUNCTION = bytea_adjkey_eq,
	COMMUTATOR = =, RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = adjkey, RIGHTARG = bytea, FUNCTION = adjkey_bytea_ge,
	COMMUTATOR = <=, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR >= (
	LEFTARG = bytea, RIGHTARG = adjkey, FUNCTION = bytea_adjkey_ge,
	COMMUTATOR = <=, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
	LEFTARG = adjkey, RIGHTARG = bytea, FUNCTION = adjkey_bytea_gt,
	COMMUTATOR = <, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR > (
	LEFTARG = bytea, RIGHTARG = adjkey, FUNCTION = bytea_adjkey_gt,
	COMMUTATOR = <, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);

ALTER OPERATOR FAMILY adjkey_ops USING btree ADD
	OPERATOR 1 < (adjkey, bytea), OPERATOR 2 <= (adjkey, bytea), OPERATOR 3 = (adjkey, bytea),
	OPERATOR 4 >= (adjkey, bytea), OPERATOR 5 > (adjkey, bytea),
	FUNCTION 1 (adjkey, bytea) adjkey_bytea_cmp(adjkey, bytea),
	OPERATOR 1 < (bytea, adjkey), OPERATOR 2 <= (bytea, adjkey), OPERATOR 3 = (bytea, adjkey),
	OPERATOR 4 >= (bytea, adjkey), OPERATOR 5 > (bytea, adjkey),
	FUNCTION 1 (bytea, adjkey) bytea_adjkey_cmp(bytea, adjkey),
	-- bytea's own ordering is the same memcmp: the family is complete
	OPERATOR 1 pg_catalog.< (bytea, bytea), OPERATOR 2 pg_catalog.<= (bytea, bytea),
	OPERATOR 3 pg_catalog.= (bytea, bytea), OPERATOR 4 pg_catalog.>= (bytea, bytea),
	OPERATOR 5 pg_catalog.> (bytea, bytea),
	FUNCTION 1 (bytea, bytea) pg_catalog.byteacmp(bytea, bytea);

CREATE AGGREGATE min(adjkey) (
	SFUNC = adjkey_smaller, STYPE = adjkey, SORTOP = <,
	COMBINEFUNC = adjkey_smaller, PARALLEL = SAFE
);
CREATE AGGREGATE max(adjkey) (
	SFUNC = adjkey_larger, STYPE = adjkey, SORTOP = >,
	COMBINEFUNC = adjkey_larger, PARALLEL = SAFE
);
COMMENT ON AGGREGATE min(adjkey) IS 'smallest key by UTF-8 bytes';
COMMENT ON AGGREGATE max(adjkey) IS 'largest key by UTF-8 bytes';

-- ---------------------------------------------------------------------
-- begins_with, served by a btree range scan
-- ---------------------------------------------------------------------

CREATE FUNCTION adjkey_begins_with_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'adjkey_begins_with_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_begins_with_support(internal) IS
	'planner support of begins_with: btree range conditions and selectivity';

CREATE FUNCTION adjkey_prefix_sel(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME', 'adjkey_prefix_sel'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_prefix_sel(internal, oid, internal, integer) IS
	'restriction selectivity of adjkey ^@';

CREATE FUNCTION begins_with(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_begins_with'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_begins_with_support;
COMMENT ON FUNCTION begins_with(adjkey, text) IS
	'true if the key starts with the prefix (DynamoDB begins_with); uses a btree index';

CREATE FUNCTION begins_with(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_begins_with_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_begins_with_support;
COMMENT ON FUNCTION begins_with(adjkey, adjkey) IS
	'true if the first key starts with the second; uses a btree index';

CREATE OPERATOR ^@ (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = begins_with,
	RESTRICT = adjkey_prefix_sel, JOIN = prefixjoinsel
);
CREATE OPERATOR ^@ (
	LEFTARG = adjkey, RIGHTARG = adjkey, FUNCTION = begins_with,
	RESTRICT = adjkey_prefix_sel, JOIN = prefixjoinsel
);

-- Bounds of the index range of begins_with; the planner puts calls of
-- these into index conditions when the prefix is not a constant.  They are
-- bytea (the UTF-8 bytes; '\xff' sorts after every key), compared with
-- keys by the cross-type operators below, so no bound is a fabricated key.
CREATE FUNCTION adjkey_prefix_lower(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'adjkey_prefix_lower'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_prefix_upper(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'adjkey_prefix_upper'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_prefix_upper(adjkey) RETURNS bytea
	AS 'MODULE_PATHNAME', 'adjkey_prefix_upper_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_prefix_lower(text) IS
	'inclusive lower bound (UTF-8 bytes) of the keys beginning with a prefix, for index scans';
COMMENT ON FUNCTION adjkey_prefix_upper(text) IS
	'exclusive upper bound (UTF-8 bytes) of the keys beginning with a prefix, for index scans';
COMMENT ON FUNCTION adjkey_prefix_upper(adjkey) IS
	'exclusive upper bound (UTF-8 bytes) of the keys beginning with a key, for index scans';

-- ---------------------------------------------------------------------
-- Components
-- ---------------------------------------------------------------------

CREATE FUNCTION make_key(VARIADIC parts text[]) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_make_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION make_key(text[]) IS
	'join parts with #, escaping # and \ inside a part as \# and \\';

CREATE FUNCTION key_parts(key adjkey) RETURNS text[]
	AS 'MODULE_PATHNAME', 'adjkey_key_parts'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION key_parts(adjkey) IS 'the #-separated parts of a key, unescaped';

CREATE FUNCTION key_part(key adjkey, n integer) RETURNS text
	AS 'MODULE_PATHNAME', 'adjkey_key_part'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION key_part(adjkey, integer) IS
	'the n-th part of a key (1-based; negative counts from the end), or NULL';

CREATE FUNCTION key_prefix(key adjkey, n integer) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_key_prefix'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION key_prefix(adjkey, integer) IS
	'the first n parts of a key (negative n: all but the last -n parts)';

CREATE FUNCTION key_tail(key adjkey, n integer) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_key_tail'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION key_tail(adjkey, integer) IS
	'the key without its first n parts (the target node of an edge key), or NULL';

CREATE FUNCTION key_nparts(key adjkey) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_key_nparts'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION key_nparts(adjkey) IS 'the number of #-separated parts of a key';

-- =====================================================================
-- Inverted indexes (DynamoDB global secondary indexes)
-- =====================================================================

-- The registry of inverted indexes.  It is extension configuration, so
-- pg_dump dumps its rows; regclass columns survive dump and restore by name.
-- adjlist's functions write it (as its owner, after checking that the
-- caller owns the tables); everyone may read it.  Anyone may INSERT a row
-- for tables of their own, which is how pg_restore brings registrations
-- back: adjlist_registry_restored() checks such a row like a registration
-- (index_restore.c) and rebuilds the index when its table's triggers are
-- already there (a data-only restore).
CREATE TABLE adjlist_inverted_indexes (
	indexrel regclass PRIMARY KEY,
	baserel regclass NOT NULL,
	-- the index table's columns, in order: the partition key, the sort key,
	-- the rest of the base table's primary key, then projected columns
	columns name[] NOT NULL CHECK (array_position(columns, NULL) IS NULL),
	-- how many leading columns form the index table's primary key
	nkeys integer NOT NULL CHECK (nkeys >= 2 AND nkeys <= cardinality(columns)),
	-- the degree counter table, or NULL; counter_shards is 1 when there is one
	counterrel regclass,
	counter_shards integer NOT NULL DEFAULT 0 CHECK (counter_shards >= 0),
	-- the columns that identify a row of the base table (its primary key,
	-- or what create_inverted_index was told where it has none)
	base_key name[] NOT NULL CHECK (array_position(base_key, NULL) IS NULL AND cardinality(base_key) >= 1),
	-- 'trigger': kept by triggers; 'api': kept by put_edge() and friends
	mode text NOT NULL DEFAULT 'trigger' CHECK (mode IN ('trigger', 'api')),
	created timestamptz NOT NULL DEFAULT pg_catalog.now(),
	-- how many sub-partitions each partition key is spread over; 0: none
	write_shards integer NOT NULL DEFAULT 0
		CHECK (write_shards = 0 OR write_shards BETWEEN 2 AND 256),
	CHECK ((counterrel IS NULL) = (counter_shards = 0))
);
CREATE INDEX ON adjlist_inverted_indexes (baserel);
COMMENT ON TABLE adjlist_inverted_indexes IS
	'inverted indexes kept in sync by adjlist; one row per index table, written by adjlist and by pg_restore';
SELECT pg_catalog.pg_extension_config_dump('adjlist_inverted_indexes', '');
REVOKE ALL ON adjlist_inverted_indexes FROM PUBLIC;
GRANT SELECT, INSERT ON adjlist_inverted_indexes TO PUBLIC;
CREATE FUNCTION adjlist_registry_restored() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_registry_restored'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_registry_restored() IS
	'trigger: checks a registration that adjlist did not write (pg_restore) and rebuilds its index when the table''s triggers are there';
CREATE TRIGGER adjlist_registry_restored AFTER INSERT ON adjlist_inverted_indexes
	FOR EACH ROW EXECUTE FUNCTION adjlist_registry_restored();

CREATE FUNCTION write_shard(source adjkey, shards integer) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjlist_write_shard'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard(adjkey, integer) IS
	'the write shard (0 .. shards-1) of a source key: FNV-1a of its UTF-8 bytes, modulo shards';

CREATE FUNCTION write_shard_key(partition_key adjkey, source adjkey, shards integer) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjlist_write_shard_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard_key(adjkey, adjkey, integer) IS
	'the partition key an index row is stored under: partition_key#shard, or partition_key itself when shards is 0';

CREATE FUNCTION write_shard_keys(partition_key adjkey, shards integer) RETURNS adjkey[]
	AS 'MODULE_PATHNAME', 'adjlist_write_shard_keys'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard_keys(adjkey, integer) IS
	'every stored partition key of a logical partition: partition_key#0 .. #shards-1, or {partition_key}';

-- The C triggers (index_sync.c).
CREATE FUNCTION adjlist_sync_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_sync_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_sync_trigger() IS
	'trigger: writes the inverted indexes of a table in the same transaction as the table';
CREATE FUNCTION adjlist_index_guard() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_index_guard'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_index_guard() IS
	'trigger: refuses writes to an index or counter table that adjlist does not make';

CREATE FUNCTION create_inverted_index(
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

CREATE FUNCTION drop_inverted_index(index regclass) RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_drop_inverted_index'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION drop_inverted_index(regclass) IS
	'drop an inverted index: its table, its counters, its registration and its triggers';

CREATE FUNCTION adjlist_index_rows(index regclass) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'adjlist_index_rows'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION adjlist_index_rows(regclass) IS
	'the rows an inverted index should hold, computed from its base table (for the owner of the base table)';

CREATE FUNCTION adjlist_index_counts(index regclass)
RETURNS TABLE (node adjkey, edge text, direction "char", n bigint)
	AS 'MODULE_PATHNAME', 'adjlist_index_counts'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION adjlist_index_counts(regclass) IS
	'the degree counts an index should have, computed from its base table (sum them per group)';

CREATE FUNCTION verify_inverted_index(index regclass)
RETURNS TABLE (problem text, key jsonb, expected jsonb, actual jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_verify_inverted_index'
	LANGUAGE C STABLE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION verify_inverted_index(regclass) IS
	'rows where an inverted index differs from its base table; none means consistent';

CREATE FUNCTION rebuild_inverted_index(index regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_rebuild_inverted_index'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION rebuild_inverted_index(regclass) IS
	'repair an inverted index from its base table; returns the number of problems repaired';

CREATE FUNCTION compact_counters(index regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_compact_counters'
	LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION compact_counters(regclass) IS
	'fold the insert-only rows of an index''s degree counters into one row per group; returns the rows removed';

CREATE FUNCTION edge_count(index regclass, node adjkey, edge text, direction text DEFAULT 'out')
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_edge_count'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION edge_count(regclass, adjkey, text, text) IS
	'number of out- or in-edges of a node with an edge name, from the maintained counters';

-- DDL: event triggers that keep indexes exact through partitioning, drops
-- and ALTER TABLE (index_guard.c).
CREATE FUNCTION adjlist_on_ddl_start() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'adjlist_on_ddl_start' LANGUAGE C;
COMMENT ON FUNCTION adjlist_on_ddl_start() IS
	'event trigger: refuses DETACH CONCURRENTLY of indexed tables, unindexes dropped partitions';
CREATE FUNCTION adjlist_on_ddl_end() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'adjlist_on_ddl_end' LANGUAGE C;
COMMENT ON FUNCTION adjlist_on_ddl_end() IS
	'event trigger: follows partitions and owners, refuses DDL that would break an inverted index';
CREATE FUNCTION adjlist_on_sql_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'adjlist_on_sql_drop' LANGUAGE C;
COMMENT ON FUNCTION adjlist_on_sql_drop() IS
	'event trigger: keeps inverted index registrations consistent with dropped tables';

CREATE EVENT TRIGGER adjlist_ddl_start ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'DROP TABLE', 'DROP FOREIGN TABLE')
	EXECUTE FUNCTION adjlist_on_ddl_start();
CREATE EVENT TRIGGER adjlist_ddl_end ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'CREATE TABLE', 'CREATE FOREIGN TABLE')
	EXECUTE FUNCTION adjlist_on_ddl_end();
CREATE EVENT TRIGGER adjlist_sql_drop ON sql_drop
	EXECUTE FUNCTION adjlist_on_sql_drop();

-- =====================================================================
-- Graph queries
-- =====================================================================

-- Edge conventions (README "Edges and nodes"): by default an edge's sort
-- key is edge_prefix followed by the target's key ('FOLLOWS#' + 'USER#bob');
-- target_prefix is prepended to what follows the edge prefix ('FRIEND#Bob'
-- with target_prefix 'USER#' -> 'USER#Bob'); sk_is_target says the sort
-- key is the target itself (pk = USER#alice, sk = USER#bob).

CREATE FUNCTION neighbors(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_neighbors'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean) IS
	'out-edges of a node in sort-key order, with keyset pagination (after = last sk)';

CREATE FUNCTION reverse_neighbors(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_reverse_neighbors'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION reverse_neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean) IS
	'in-edges of a node through the inverted index, in source order, with keyset pagination (after = last source)';

CREATE FUNCTION degree(
	tbl regclass, node adjkey, edge_prefix text, direction text DEFAULT 'out',
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_degree'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION degree(regclass, adjkey, text, text, text, boolean) IS
	'number of out- or in-edges of a node with an edge prefix';

CREATE FUNCTION has_edge(
	tbl regclass, from_node adjkey, to_node adjkey, edge_prefix text,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_has_edge'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION has_edge(regclass, adjkey, adjkey, text, text, boolean) IS
	'does the edge from_node -> to_node exist (one point lookup)';

CREATE FUNCTION traverse(
	tbl regclass, start adjkey, edge_prefix text, max_depth integer DEFAULT 3,
	direction text DEFAULT 'out', lim bigint DEFAULT NULL, with_path boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS TABLE (node adjkey, depth integer, path adjkey[])
	AS 'MODULE_PATHNAME', 'adjlist_traverse'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION traverse(regclass, adjkey, text, integer, text, bigint, boolean, text, boolean) IS
	'breadth-first search: every node reachable within max_depth, once, with its depth (and path)';

CREATE FUNCTION reachable_count(
	tbl regclass, start adjkey, edge_prefix text, max_depth integer DEFAULT 3,
	direction text DEFAULT 'out', target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_reachable_count'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION reachable_count(regclass, adjkey, text, integer, text, text, boolean) IS
	'number of distinct nodes reachable within max_depth (not counting the start)';

CREATE FUNCTION shortest_path(
	tbl regclass, from_node adjkey, to_node adjkey, edge_prefix text,
	max_depth integer DEFAULT 6, direction text DEFAULT 'out',
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS adjkey[]
	AS 'MODULE_PATHNAME', 'adjlist_shortest_path'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION shortest_path(regclass, adjkey, adjkey, text, integer, text, text, boolean) IS
	'a shortest path by bidirectional BFS (base table forward, inverted index backward), NULL if none within max_depth';

CREATE FUNCTION common_neighbors(
	tbl regclass, a adjkey, b adjkey, edge_prefix text, direction text DEFAULT 'out',
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS SETOF adjkey
	AS 'MODULE_PATHNAME', 'adjlist_common_neighbors'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION common_neighbors(regclass, adjkey, adjkey, text, text, text, boolean) IS
	'nodes that are neighbors of both a and b (mutual friends), in key order';

CREATE FUNCTION walk_ranked(
	tbl regclass, start adjkey, edge_prefixes text[], directions text[],
	exclude_first_hop boolean DEFAULT true, lim bigint DEFAULT NULL,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS TABLE (node adjkey, score bigint)
	AS 'MODULE_PATHNAME', 'adjlist_walk_ranked'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION walk_ranked(regclass, adjkey, text[], text[], boolean, bigint, text, boolean) IS
	'two- or three-hop walk; nodes at the last hop ranked by how many walks reach them';

CREATE FUNCTION people_you_may_know(
	tbl regclass, node adjkey, edge_prefix text DEFAULT 'FRIEND#', lim bigint DEFAULT 10)
RETURNS TABLE (node adjkey, score bigint)
	LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $$
	SELECT w.node, w.score
	FROM @extschema@.walk_ranked(tbl, node, ARRAY[edge_prefix, edge_prefix],
								 ARRAY['out', 'out'], true, lim) w
$$;
COMMENT ON FUNCTION people_you_may_know(regclass, adjkey, text, bigint) IS
	'friends of friends ranked by the number of mutual friends, without existing friends and the user';

CREATE FUNCTION also_liked(
	tbl regclass, node adjkey, edge_prefix text DEFAULT 'LIKES#', lim bigint DEFAULT 10)
RETURNS TABLE (node adjkey, score bigint)
	LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $$
	SELECT w.node, w.score
	FROM @extschema@.walk_ranked(tbl, node, ARRAY[edge_prefix, edge_prefix, edge_prefix],
								 ARRAY['out', 'in', 'out'], true, lim) w
$$;
COMMENT ON FUNCTION also_liked(regclass, adjkey, text, bigint) IS
	'what users who liked what this user liked also liked, ranked, without what the user already likes';

CREATE FUNCTION related_items(
	tbl regclass, item adjkey, edge_prefix text DEFAULT 'TAGGED#', lim bigint DEFAULT 10)
RETURNS TABLE (node adjkey, score bigint)
	LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $$
	SELECT w.node, w.score
	FROM @extschema@.walk_ranked(tbl, item, ARRAY[edge_prefix, edge_prefix],
								 ARRAY['out', 'in'], false, lim) w
$$;
COMMENT ON FUNCTION related_items(regclass, adjkey, text, bigint) IS
	'items ranked by the number of tags they share with an item';

CREATE FUNCTION adjlist_export(
	tbl regclass, node adjkey, edge_prefix text, depth integer, direction text,
	format text, target_prefix text, sk_is_target boolean)
RETURNS text
	AS 'MODULE_PATHNAME', 'adjlist_export'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION adjlist_export(regclass, adjkey, text, integer, text, text, text, boolean) IS
	'internal: a neighbourhood as Graphviz DOT or Mermaid text';

CREATE FUNCTION to_dot(
	tbl regclass, node adjkey, edge_prefix text, depth integer DEFAULT 1,
	direction text DEFAULT 'both', target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $$ SELECT @extschema@.adjlist_export(tbl, node, edge_prefix, depth, direction, 'dot',
										   target_prefix, sk_is_target) $$;
COMMENT ON FUNCTION to_dot(regclass, adjkey, text, integer, text, text, boolean) IS
	'the neighbourhood of a node as a Graphviz DOT digraph';

CREATE FUNCTION to_mermaid(
	tbl regclass, node adjkey, edge_prefix text, depth integer DEFAULT 1,
	direction text DEFAULT 'both', target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $$ SELECT @extschema@.adjlist_export(tbl, node, edge_prefix, depth, direction, 'mermaid',
										   target_prefix, sk_is_target) $$;
COMMENT ON FUNCTION to_mermaid(regclass, adjkey, text, integer, text, text, boolean) IS
	'the neighbourhood of a node as a Mermaid flowchart';

-- ---------------------------------------------------------------------
-- query: DynamoDB's Query on a table or an inverted index
-- ---------------------------------------------------------------------

CREATE FUNCTION query(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (partition_key adjkey, sort_key adjkey, key jsonb, item jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_query'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100;
COMMENT ON FUNCTION query(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'DynamoDB Query: one partition, an optional sort-key condition, order, limit, exclusive start key';

CREATE FUNCTION explain_query(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'adjlist_explain_query'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION explain_query(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'the plan (EXPLAIN, COSTS OFF) of the statement query() runs for these arguments';

CREATE FUNCTION query_count(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_query_count'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION query_count(regclass, adjkey, text, text, text) IS
	'DynamoDB Query with Select COUNT: the number of matching items';

-- ---------------------------------------------------------------------
-- The write API: base table and inverted indexes in one transaction,
-- without triggers (Citus, or any engine where triggers cannot write
-- another table).  Indexes in trigger mode are left to their triggers.
-- ---------------------------------------------------------------------

CREATE FUNCTION put_edge(tbl regclass, pk adjkey, sk adjkey, data jsonb DEFAULT NULL)
RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_put_edge'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION put_edge(regclass, adjkey, adjkey, jsonb) IS
	'write an item (insert or replace, last writer wins) and its inverted index rows in one transaction';

CREATE FUNCTION put_edges(tbl regclass, edges jsonb) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_put_edges'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION put_edges(regclass, jsonb) IS
	'put_edge for each element of a JSON array of {"pk", "sk", "data"}, in one statement; returns how many';

CREATE FUNCTION delete_edge(tbl regclass, pk adjkey, sk adjkey) RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_delete_edge'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_edge(regclass, adjkey, adjkey) IS
	'delete an item and its inverted index rows in one transaction; true if it existed';

CREATE FUNCTION delete_node(tbl regclass, node adjkey, edge_prefixes text[] DEFAULT '{}')
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_delete_node'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_node(regclass, adjkey, text[]) IS
	'delete a node''s item collection and every edge pointing at it; returns the rows deleted';

/* adjlist 0.1: the adjkey composite key type */

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
-- these into index conditions when the prefix is not a constant.
CREATE FUNCTION adjkey_prefix_lower(text) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_prefix_lower'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_prefix_upper(text) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_prefix_upper'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_prefix_upper(adjkey) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjkey_prefix_upper_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_prefix_lower(text) IS
	'internal: inclusive lower bound of the keys beginning with a prefix';
COMMENT ON FUNCTION adjkey_prefix_upper(text) IS
	'internal: exclusive upper bound of the keys beginning with a prefix';
COMMENT ON FUNCTION adjkey_prefix_upper(adjkey) IS
	'internal: exclusive upper bound of the keys beginning with a key';

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
CREATE TABLE adjlist_inverted_indexes (
	indexrel regclass PRIMARY KEY,
	baserel regclass NOT NULL,
	-- the index table's columns, in order: the partition key, the sort key,
	-- the rest of the base table's primary key, then projected columns
	columns name[] NOT NULL,
	-- how many leading columns form the index table's primary key
	nkeys integer NOT NULL CHECK (nkeys >= 2 AND nkeys <= pg_catalog.cardinality(columns)),
	-- degree counters: their table, and how many rows per node they spread over
	counterrel regclass,
	counter_shards integer NOT NULL DEFAULT 0 CHECK (counter_shards >= 0),
	-- the columns that identify a row of the base table (its primary key,
	-- or what create_inverted_index was told where it has none)
	base_key name[] NOT NULL,
	-- 'trigger': kept by triggers; 'api': kept by put_edge() and friends
	mode text NOT NULL DEFAULT 'trigger' CHECK (mode IN ('trigger', 'api')),
	created timestamptz NOT NULL DEFAULT pg_catalog.now(),
	CHECK ((counterrel IS NULL) = (counter_shards = 0))
);
CREATE INDEX ON adjlist_inverted_indexes (baserel);
COMMENT ON TABLE adjlist_inverted_indexes IS
	'inverted indexes kept in sync by adjlist triggers; one row per index table';
SELECT pg_catalog.pg_extension_config_dump('adjlist_inverted_indexes', '');

-- Everyone may read the registry; a role may register and unregister
-- indexes only on tables it owns (or whose owner it is a member of).
ALTER TABLE adjlist_inverted_indexes ENABLE ROW LEVEL SECURITY;
CREATE POLICY owner_only ON adjlist_inverted_indexes
	USING (true)
	WITH CHECK (pg_catalog.pg_has_role(
		(SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = baserel), 'USAGE'));
CREATE POLICY owner_delete ON adjlist_inverted_indexes AS RESTRICTIVE FOR DELETE
	USING (pg_catalog.pg_has_role(
		(SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = baserel), 'USAGE')
		OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = baserel));
GRANT SELECT, INSERT, DELETE ON adjlist_inverted_indexes TO PUBLIC;

-- The C trigger that keeps every inverted index of a table in sync.
CREATE FUNCTION adjlist_sync_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME', 'adjlist_sync_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION adjlist_sync_trigger() IS
	'trigger: writes the inverted indexes of a table in the same transaction as the table';

-- SQL text helpers (quoted, qualified identifiers)
CREATE FUNCTION adjlist_qualified(rel regclass) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('%I.%I', n.nspname, c.relname)
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.oid = rel
$$;
COMMENT ON FUNCTION adjlist_qualified(regclass) IS 'internal: schema-qualified, quoted name of a table';

-- "OPERATOR(schema.=)": the equality of a type's default btree class,
-- spelled so that search_path cannot change it.
CREATE FUNCTION adjlist_eq_operator(t regtype) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('OPERATOR(%I.%s)', n.nspname, o.oprname)
	FROM pg_catalog.pg_opclass c
	JOIN pg_catalog.pg_am am ON am.oid = c.opcmethod AND am.amname = 'btree'
	JOIN pg_catalog.pg_amop ao ON ao.amopfamily = c.opcfamily AND ao.amopstrategy = 3
		AND ao.amoplefttype = c.opcintype AND ao.amoprighttype = c.opcintype
	JOIN pg_catalog.pg_operator o ON o.oid = ao.amopopr
	JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
	WHERE c.opcdefault AND c.opcintype = t
$$;
COMMENT ON FUNCTION adjlist_eq_operator(regtype) IS
	'internal: schema-qualified equality operator of a type';

-- "l.k1 = r.k1 AND ..." over the key columns of an index, with each
-- type's own equality spelled OPERATOR(schema.=).
CREATE FUNCTION adjlist_key_match(idx regclass, l text, r text) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT string_agg(format('%s.%I %s %s.%I', l, c,
							 @extschema@.adjlist_eq_operator(a.atttypid), r, c), ' AND ' ORDER BY u.ord)
	FROM @extschema@.adjlist_inverted_indexes x
	CROSS JOIN LATERAL unnest(x.columns[1:x.nkeys]) WITH ORDINALITY u(c, ord)
	JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indexrel AND a.attname = u.c
	WHERE x.indexrel = idx
$$;
COMMENT ON FUNCTION adjlist_key_match(regclass, text, text) IS
	'internal: the join condition on the key columns of an inverted index';

-- (Re)install the triggers of a base table so that they cover all its
-- registered indexes; drop them when none is left.
CREATE FUNCTION adjlist_install_triggers(base regclass) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog, pg_temp
	SET client_min_messages = warning
	AS $$
DECLARE
	cols text;
	qbase text := @extschema@.adjlist_qualified(base);
BEGIN
	EXECUTE format('DROP TRIGGER IF EXISTS adjlist_sync ON %s', qbase);
	EXECUTE format('DROP TRIGGER IF EXISTS adjlist_sync_insert ON %s', qbase);
	EXECUTE format('DROP TRIGGER IF EXISTS adjlist_sync_truncate ON %s', qbase);
	SELECT string_agg(DISTINCT format('%I', col), ', ')
	  INTO cols
	  FROM @extschema@.adjlist_inverted_indexes r, unnest(r.columns) col
	 WHERE r.baserel = base AND r.mode = 'trigger';
	IF cols IS NULL THEN
		RETURN;
	END IF;
	-- UPDATE OF: an update that sets none of these columns fires nothing.
	-- Inserts into a plain table are written in bulk from the statement's
	-- transition table; statement triggers are not cloned to partitions, so
	-- a partitioned table gets the row trigger for inserts as well.
	IF (SELECT relkind FROM pg_class WHERE oid = base) = 'r' THEN
		EXECUTE format('CREATE TRIGGER adjlist_sync AFTER DELETE OR UPDATE OF %s ON %s '
					   'FOR EACH ROW EXECUTE FUNCTION @extschema@.adjlist_sync_trigger()', cols, qbase);
		EXECUTE format('CREATE TRIGGER adjlist_sync_insert AFTER INSERT ON %s '
					   'REFERENCING NEW TABLE AS adjlist_new '
					   'FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.adjlist_sync_trigger()', qbase);
	ELSE
		EXECUTE format('CREATE TRIGGER adjlist_sync AFTER INSERT OR DELETE OR UPDATE OF %s ON %s '
					   'FOR EACH ROW EXECUTE FUNCTION @extschema@.adjlist_sync_trigger()', cols, qbase);
	END IF;
	EXECUTE format('CREATE TRIGGER adjlist_sync_truncate AFTER TRUNCATE ON %s '
				   'FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.adjlist_sync_trigger()', qbase);
END $$;
COMMENT ON FUNCTION adjlist_install_triggers(regclass) IS
	'internal: install the sync triggers covering every inverted index of a table';

-- The SELECT list that computes index rows from the base table.
CREATE FUNCTION adjlist_index_select(idx regclass, base_alias text DEFAULT 'b') RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('SELECT %s FROM %s %I WHERE %I.%I IS NOT NULL AND %I.%I IS NOT NULL',
				  string_agg(format('%I.%I', base_alias, col), ', ' ORDER BY ord),
				  @extschema@.adjlist_qualified(r.baserel), base_alias,
				  base_alias, r.columns[1], base_alias, r.columns[2])
	FROM @extschema@.adjlist_inverted_indexes r, unnest(r.columns) WITH ORDINALITY u(col, ord)
	WHERE r.indexrel = idx
	GROUP BY r.baserel, r.columns
$$;
COMMENT ON FUNCTION adjlist_index_select(regclass, text) IS
	'internal: the query that computes an inverted index from its base table';

-- The degree counts of an index computed from its base table: per node and
-- edge (the first part of the index partition key), out-edges counted at
-- the sort key, in-edges at the rest of the partition key.  Put in shard 0.
CREATE FUNCTION adjlist_degree_select(idx regclass) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format(
		'SELECT node, edge, direction, 0::smallint AS shard, count(*) AS n FROM ('
		'SELECT %2$s AS node, @extschema@.key_prefix(%1$s, 1)::text AS edge, ''o''::"char" AS direction '
		'FROM %3$s WHERE %1$s IS NOT NULL AND %2$s IS NOT NULL AND @extschema@.key_prefix(%1$s, 1) IS NOT NULL '
		'UNION ALL '
		'SELECT @extschema@.key_tail(%1$s, 1), @extschema@.key_prefix(%1$s, 1)::text, ''i'' '
		'FROM %3$s WHERE %2$s IS NOT NULL AND @extschema@.key_tail(%1$s, 1) IS NOT NULL '
		'AND @extschema@.key_prefix(%1$s, 1) IS NOT NULL'
		') d GROUP BY 1, 2, 3',
		format('%I', r.columns[1]), format('%I', r.columns[2]), @extschema@.adjlist_qualified(r.baserel))
	FROM @extschema@.adjlist_inverted_indexes r
	WHERE r.indexrel = idx
$$;
COMMENT ON FUNCTION adjlist_degree_select(regclass) IS
	'internal: the query that computes the degree counters of an index from its base table';

-- Degree from the maintained counters: O(shards), whatever the degree.
CREATE FUNCTION edge_count(index regclass, node adjkey, edge text, direction text DEFAULT 'out')
RETURNS bigint
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cnt regclass;
	result bigint;
BEGIN
	IF direction NOT IN ('out', 'in') THEN
		RAISE EXCEPTION 'direction must be ''out'' or ''in'', not %', quote_literal(direction)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT counterrel INTO cnt FROM @extschema@.adjlist_inverted_indexes WHERE indexrel = index;
	IF cnt IS NULL THEN
		RAISE EXCEPTION '% has no degree counters', index
			USING ERRCODE = 'undefined_object',
				  HINT = 'Create the index with create_inverted_index(..., counters => 8).';
	END IF;
	EXECUTE format('SELECT coalesce(sum(n), 0)::bigint FROM %s WHERE node OPERATOR(@extschema@.=) $1 '
				   'AND edge OPERATOR(pg_catalog.=) $2 AND direction OPERATOR(pg_catalog.=) $3',
				   @extschema@.adjlist_qualified(cnt))
		INTO result USING node, edge, left(direction, 1)::"char";
	RETURN result;
END $$;
COMMENT ON FUNCTION edge_count(regclass, adjkey, text, text) IS
	'number of out- or in-edges of a node with an edge type, from the maintained counters';

-- Is a table distributed by Citus?  (Citus keeps pg_dist_partition.)
CREATE FUNCTION adjlist_is_citus_table(tbl regclass) RETURNS boolean
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	found boolean;
BEGIN
	IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
		RETURN false;
	END IF;
	EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
		INTO found USING tbl;
	RETURN found;
END $$;
COMMENT ON FUNCTION adjlist_is_citus_table(regclass) IS
	'internal: true if Citus distributes the table';

-- Backfill and repair read the base table once and must see every row
-- committed before they locked it: only READ COMMITTED takes a new
-- snapshot after the lock.
CREATE FUNCTION adjlist_require_read_committed(what text) RETURNS void
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION '% must run in a READ COMMITTED transaction', what
			USING ERRCODE = 'invalid_transaction_state',
				  DETAIL = format('This transaction is %s: its snapshot may predate rows that other sessions committed before the table was locked.',
								  upper(current_setting('transaction_isolation'))),
				  HINT = 'Run it in its own transaction, or after SET TRANSACTION ISOLATION LEVEL READ COMMITTED.';
	END IF;
END $$;
COMMENT ON FUNCTION adjlist_require_read_committed(text) IS
	'internal: refuse backfill and repair where the snapshot could predate the table lock';

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
	mode text DEFAULT 'trigger')
RETURNS regclass
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	base_ns name;
	base_name name;
	base_owner oid;
	base_kind "char";
	pkcols name[];
	cols name[];
	inc name[];
	col name;
	keytype oid := '@extschema@.adjkey'::regtype;
	idx_name text;
	idx regclass;
	cnt regclass;
	qidx text;
	coldefs text;
	pages bigint;
	chunks int;
	done bigint := 0;
	n bigint;
BEGIN
	IF tbl IS NULL OR partition_key IS NULL OR sort_key IS NULL OR include IS NULL
	   OR partitions IS NULL OR counters IS NULL OR existing IS NULL OR mode IS NULL THEN
		RAISE EXCEPTION 'arguments of create_inverted_index must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	PERFORM @extschema@.adjlist_require_read_committed('create_inverted_index');
	SELECT n.nspname, c.relname, c.relowner, c.relkind
	  INTO base_ns, base_name, base_owner, base_kind
	  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE c.oid = tbl;
	IF mode NOT IN ('trigger', 'api') THEN
		RAISE EXCEPTION 'mode must be ''trigger'' or ''api'', not %', quote_literal(mode)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF base_kind NOT IN ('r', 'p', 'f') THEN
		RAISE EXCEPTION '"%" is not a table', base_name
			USING ERRCODE = 'wrong_object_type';
	END IF;
	IF NOT pg_has_role(base_owner, 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of table %', base_name
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	-- Citus refuses triggers that write a table distributed by another key
	IF mode = 'trigger' AND @extschema@.adjlist_is_citus_table(tbl) THEN
		RAISE EXCEPTION 'table "%" is distributed by Citus: trigger mode cannot keep its index', base_name
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Use mode => ''api'' and write with put_edge(), delete_edge() and delete_node().';
	END IF;
	-- writers wait from here on; the backfill below sees all they committed
	EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', @extschema@.adjlist_qualified(tbl));

	-- the key columns exist and are adjkey
	FOREACH col IN ARRAY ARRAY[partition_key, sort_key] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_attribute
					   WHERE attrelid = tbl AND attname = col AND attnum > 0 AND NOT attisdropped) THEN
			RAISE EXCEPTION 'column "%" of table "%" does not exist', col, base_name
				USING ERRCODE = 'undefined_column';
		END IF;
		IF (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attname = col) <> keytype THEN
			RAISE EXCEPTION 'column "%" of table "%" is of type %, not adjkey', col, base_name,
				(SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = tbl AND attname = col)
				USING ERRCODE = 'datatype_mismatch',
					  HINT = 'The partition and sort keys of an inverted index must be adjkey columns.';
		END IF;
	END LOOP;
	IF partition_key = sort_key THEN
		RAISE EXCEPTION 'the partition key and the sort key must be different columns'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	-- the base table's primary key, or the key we are told (a partitioned
	-- table with foreign partitions can have no primary key)
	IF base_key IS NOT NULL THEN
		IF cardinality(base_key) = 0 THEN
			RAISE EXCEPTION 'base_key must name at least one column'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		FOREACH col IN ARRAY base_key LOOP
			IF NOT EXISTS (SELECT 1 FROM pg_attribute
						   WHERE attrelid = tbl AND attname = col AND attnum > 0 AND NOT attisdropped) THEN
				RAISE EXCEPTION 'column "%" of table "%" does not exist', col, base_name
					USING ERRCODE = 'undefined_column';
			END IF;
		END LOOP;
		pkcols := base_key;
	ELSE
		SELECT array_agg(a.attname ORDER BY k.ord)
		  INTO pkcols
		  FROM pg_index i
		  CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
		  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		 WHERE i.indrelid = tbl AND i.indisprimary;
	END IF;
	IF pkcols IS NULL THEN
		RAISE EXCEPTION 'table "%" has no primary key', base_name
			USING ERRCODE = 'invalid_table_definition',
				  HINT = 'An inverted index maps each row by its primary key, for example PRIMARY KEY (pk, sk); '
						 'a table that cannot have one (foreign partitions) names its key with base_key => ''{pk,sk}''.';
	END IF;

	-- the key: partition key, sort key, then the rest of the primary key
	cols := ARRAY[partition_key, sort_key];
	FOREACH col IN ARRAY pkcols LOOP
		IF NOT col = ANY (cols) THEN
			cols := cols || col;
		END IF;
	END LOOP;

	-- projected columns; '*' projects every column (DynamoDB's ALL)
	IF include = ARRAY['*']::name[] THEN
		SELECT coalesce(array_agg(attname ORDER BY attnum), '{}') INTO inc
		  FROM pg_attribute
		 WHERE attrelid = tbl AND attnum > 0 AND NOT attisdropped AND NOT attname = ANY (cols);
	ELSE
		inc := '{}';
		FOREACH col IN ARRAY include LOOP
			IF NOT EXISTS (SELECT 1 FROM pg_attribute
						   WHERE attrelid = tbl AND attname = col AND attnum > 0 AND NOT attisdropped) THEN
				RAISE EXCEPTION 'column "%" of table "%" does not exist', col, base_name
					USING ERRCODE = 'undefined_column';
			END IF;
			IF col = ANY (cols) OR col = ANY (inc) THEN
				CONTINUE;	-- already in the index table
			END IF;
			inc := inc || col;
		END LOOP;
	END IF;

	-- the index table: same schema, same owner, the base table's columns
	idx_name := coalesce(index_name, base_name || '_inverted');
	IF existing THEN
		-- a table the caller made (for example hash-partitioned over foreign
		-- partitions on other servers): it must have the columns, same types
		idx := to_regclass(format('%I.%I', base_ns, idx_name));
		IF idx IS NULL THEN
			RAISE EXCEPTION 'relation "%" does not exist', idx_name
				USING ERRCODE = 'undefined_table',
					  HINT = 'With existing => true, create the index table in the schema of the base table first.';
		END IF;
		FOREACH col IN ARRAY cols || inc LOOP
			IF NOT EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_attribute b
							 ON b.attrelid = tbl AND b.attname = a.attname AND b.atttypid = a.atttypid
						   WHERE a.attrelid = idx AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped) THEN
				RAISE EXCEPTION 'table "%" has no column "%" of the type it has in "%"', idx_name, col, base_name
					USING ERRCODE = 'datatype_mismatch';
			END IF;
		END LOOP;
		IF NOT pg_has_role((SELECT relowner FROM pg_class WHERE oid = idx), 'USAGE') THEN
			RAISE EXCEPTION 'must be owner of table %', idx_name
				USING ERRCODE = 'insufficient_privilege';
		END IF;
		IF partitions <> 0 THEN
			RAISE EXCEPTION 'partitions cannot be given with existing => true'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		qidx := @extschema@.adjlist_qualified(idx);
		EXECUTE format('DELETE FROM %s', qidx);		-- the backfill below fills it
	ELSIF to_regclass(format('%I.%I', base_ns, idx_name)) IS NOT NULL THEN
		RAISE EXCEPTION 'relation "%" already exists', idx_name
			USING ERRCODE = 'duplicate_table',
				  HINT = 'Pass index_name to choose another name, or drop_inverted_index() the old one.';
	END IF;
	IF NOT existing THEN
		SELECT string_agg(format('%I %s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
								 CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
									  THEN ' COLLATE ' || a.attcollation::regcollation::text ELSE '' END,
								 CASE WHEN u.ord <= cardinality(cols) THEN ' NOT NULL' ELSE '' END),
						  ', ' ORDER BY u.ord)
		  INTO coldefs
		  FROM unnest(cols || inc) WITH ORDINALITY u(col, ord)
		  JOIN pg_attribute a ON a.attrelid = tbl AND a.attname = u.col
		  JOIN pg_type t ON t.oid = a.atttypid;
		IF partitions < 0 OR partitions = 1 OR partitions > 1024 THEN
			RAISE EXCEPTION 'partitions must be 0 (a plain table) or between 2 and 1024'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		EXECUTE format('CREATE TABLE %I.%I (%s, PRIMARY KEY (%s))%s', base_ns, idx_name, coldefs,
					   (SELECT string_agg(format('%I', c), ', ') FROM unnest(cols) c),
					   CASE WHEN partitions > 0 THEN format(' PARTITION BY HASH (%I)', partition_key) ELSE '' END);
		idx := format('%I.%I', base_ns, idx_name)::regclass;
		FOR i IN 0 .. partitions - 1 LOOP
			EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
						   base_ns, idx_name || '_' || i, @extschema@.adjlist_qualified(idx), partitions, i);
			EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', base_ns, idx_name || '_' || i,
						   pg_get_userbyid(base_owner));
		END LOOP;
		qidx := @extschema@.adjlist_qualified(idx);
		EXECUTE format('ALTER TABLE %s OWNER TO %I', qidx, pg_get_userbyid(base_owner));
		EXECUTE format('COMMENT ON TABLE %s IS %L', qidx,
					   format('adjlist inverted index of %s (partition key %s, sort key %s)',
							  @extschema@.adjlist_qualified(tbl), partition_key, sort_key));
	END IF;

	-- degree counters, spread over several rows per node and edge
	IF counters < 0 OR counters > 1024 THEN
		RAISE EXCEPTION 'counters must be between 0 (none) and 1024'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF counters > 0 AND mode = 'api' THEN
		RAISE EXCEPTION 'degree counters are kept by triggers only'
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Use mode => ''trigger'', or count with degree().';
	END IF;
	IF counters > 0 THEN
		IF to_regclass(format('%I.%I', base_ns, idx_name || '_degree')) IS NOT NULL THEN
			RAISE EXCEPTION 'relation "%" already exists', idx_name || '_degree'
				USING ERRCODE = 'duplicate_table';
		END IF;
		EXECUTE format('CREATE TABLE %I.%I (node @extschema@.adjkey NOT NULL, edge text NOT NULL, '
					   'direction "char" NOT NULL CHECK (direction IN (''o'', ''i'')), '
					   'shard smallint NOT NULL, n bigint NOT NULL, '
					   'PRIMARY KEY (node, edge, direction, shard))',
					   base_ns, idx_name || '_degree');
		cnt := format('%I.%I', base_ns, idx_name || '_degree')::regclass;
		EXECUTE format('ALTER TABLE %s OWNER TO %I', @extschema@.adjlist_qualified(cnt),
					   pg_get_userbyid(base_owner));
		EXECUTE format('COMMENT ON TABLE %s IS %L', @extschema@.adjlist_qualified(cnt),
					   format('adjlist degree counters of %s', qidx));
	END IF;

	INSERT INTO @extschema@.adjlist_inverted_indexes (indexrel, baserel, columns, nkeys,
													  counterrel, counter_shards, base_key, mode)
	VALUES (idx, tbl, cols || inc, cardinality(cols), cnt, counters, pkcols, mode);
	PERFORM @extschema@.adjlist_install_triggers(tbl);

	-- backfill; a large plain table is read in chunks of blocks, with progress
	pages := CASE WHEN base_kind = 'r' THEN pg_relation_size(tbl) / current_setting('block_size')::int ELSE 0 END;
	IF pages < 1000 THEN
		EXECUTE format('INSERT INTO %s %s', qidx, @extschema@.adjlist_index_select(idx));
	ELSE
		chunks := 10;
		FOR i IN 0 .. chunks - 1 LOOP
			EXECUTE format('INSERT INTO %s %s AND b.ctid >= %L::tid %s', qidx,
						   @extschema@.adjlist_index_select(idx),
						   format('(%s,0)', pages * i / chunks),
						   CASE WHEN i < chunks - 1
								THEN format('AND b.ctid < %L::tid', format('(%s,0)', pages * (i + 1) / chunks))
								ELSE '' END);
			GET DIAGNOSTICS n = ROW_COUNT;
			done := done + n;
			RAISE NOTICE 'create_inverted_index: backfilled % rows (% %%)', done, (i + 1) * 100 / chunks;
		END LOOP;
	END IF;
	IF cnt IS NOT NULL THEN
		EXECUTE format('INSERT INTO %s %s', @extschema@.adjlist_qualified(cnt),
					   @extschema@.adjlist_degree_select(idx));
	END IF;
	EXECUTE format('ANALYZE %s', qidx);
	RETURN idx;
END $$;
COMMENT ON FUNCTION create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text) IS
	'create an inverted index (a DynamoDB GSI) of a table, kept in sync by triggers';

CREATE FUNCTION drop_inverted_index(index regclass) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	base regclass;
	cnt regclass;
BEGIN
	SELECT baserel INTO base FROM @extschema@.adjlist_inverted_indexes WHERE indexrel = index;
	IF base IS NULL THEN
		RAISE EXCEPTION '"%" is not an inverted index', index
			USING ERRCODE = 'undefined_object';
	END IF;
	IF NOT pg_has_role((SELECT relowner FROM pg_class WHERE oid = base), 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of table %', base
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	SELECT counterrel INTO cnt FROM @extschema@.adjlist_inverted_indexes WHERE indexrel = index;
	DELETE FROM @extschema@.adjlist_inverted_indexes WHERE indexrel = index;
	PERFORM @extschema@.adjlist_install_triggers(base);
	EXECUTE format('DROP TABLE %s', @extschema@.adjlist_qualified(index));
	IF cnt IS NOT NULL THEN
		EXECUTE format('DROP TABLE %s', @extschema@.adjlist_qualified(cnt));
	END IF;
END $$;
COMMENT ON FUNCTION drop_inverted_index(regclass) IS
	'drop an inverted index: its table, its registration and its triggers';

-- The degree counter groups whose maintained sum differs from a recount.
CREATE FUNCTION adjlist_degree_diff(idx regclass) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format(
		'WITH e AS (%s), a AS (SELECT node, edge, direction, sum(n)::bigint AS n FROM %s GROUP BY 1, 2, 3) '
		'SELECT ''count''::text, jsonb_build_object(''node'', coalesce(e.node, a.node), '
		'''edge'', coalesce(e.edge, a.edge), ''direction'', coalesce(e.direction, a.direction)), '
		'jsonb_build_object(''n'', coalesce(e.n, 0)), jsonb_build_object(''n'', coalesce(a.n, 0)) '
		'FROM e FULL JOIN a ON e.node OPERATOR(@extschema@.=) a.node AND e.edge = a.edge '
		'AND e.direction = a.direction WHERE coalesce(e.n, 0) <> coalesce(a.n, 0)',
		@extschema@.adjlist_degree_select(idx), @extschema@.adjlist_qualified(r.counterrel))
	FROM @extschema@.adjlist_inverted_indexes r
	WHERE r.indexrel = idx AND r.counterrel IS NOT NULL
$$;
COMMENT ON FUNCTION adjlist_degree_diff(regclass) IS
	'internal: the query that compares degree counters with a recount';

-- Rows that differ between an index and what its base table says it should
-- hold (compared by their text form, so 1.0 and 1.00 differ): 'missing' (in the table, not in the index), 'extra' (in the index,
-- not in the table), 'stale' (same key, different projected values), and
-- for degree counters 'count' (a node's maintained count differs from a
-- recount).
CREATE FUNCTION verify_inverted_index(index regclass)
RETURNS TABLE (problem text, key jsonb, expected jsonb, actual jsonb)
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
	keycols text;
	keyjson text;
	join_on text;
BEGIN
	SELECT * INTO r FROM @extschema@.adjlist_inverted_indexes WHERE indexrel = index;
	IF NOT FOUND THEN
		RAISE EXCEPTION '"%" is not an inverted index', index USING ERRCODE = 'undefined_object';
	END IF;
	SELECT string_agg(format('%L, coalesce(e.%I, a.%I)', c, c, c), ', ')
	  INTO keyjson
	  FROM unnest(r.columns[1:r.nkeys]) c;
	join_on := @extschema@.adjlist_key_match(index, 'e', 'a');
	RETURN QUERY EXECUTE format(
		'WITH e AS (%s), a AS (SELECT %s FROM %s) '
		'SELECT CASE WHEN a IS NULL THEN ''missing'' WHEN e IS NULL THEN ''extra'' ELSE ''stale'' END, '
		'       jsonb_build_object(%s), to_jsonb(e), to_jsonb(a) '
		'FROM e FULL JOIN a ON %s '
		'WHERE a IS NULL OR e IS NULL OR e::text OPERATOR(pg_catalog.<>) a::text',
		@extschema@.adjlist_index_select(index, 'b'),
		(SELECT string_agg(format('%I', c), ', ') FROM unnest(r.columns) c),
		@extschema@.adjlist_qualified(index),
		keyjson, join_on);
	IF r.counterrel IS NOT NULL THEN
		RETURN QUERY EXECUTE @extschema@.adjlist_degree_diff(index);
	END IF;
END $$;
COMMENT ON FUNCTION verify_inverted_index(regclass) IS
	'rows where an inverted index differs from its base table; none means consistent';

-- Repair an index: delete its extra and stale rows, insert missing ones,
-- touching only the rows that drifted; recount degree counters that are
-- off.  Returns how many problems it repaired (what verify reported).
CREATE FUNCTION rebuild_inverted_index(index regclass) RETURNS bigint
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
	qidx text := @extschema@.adjlist_qualified(index);
	match text;
	n bigint;
	total bigint := 0;
BEGIN
	SELECT * INTO r FROM @extschema@.adjlist_inverted_indexes WHERE indexrel = index;
	IF NOT FOUND THEN
		RAISE EXCEPTION '"%" is not an inverted index', index USING ERRCODE = 'undefined_object';
	END IF;
	-- keep concurrent writers out while comparing; readers go on
	PERFORM @extschema@.adjlist_require_read_committed('rebuild_inverted_index');
	EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', @extschema@.adjlist_qualified(r.baserel));
	match := @extschema@.adjlist_key_match(index, 'x', 'a')
		|| format(' AND x::text OPERATOR(pg_catalog.=) ROW(%s)::text',
				  (SELECT string_agg(format('a.%I', c), ', ') FROM unnest(r.columns) c));
	-- what is wrong, counted once per row or counter group
	SELECT count(*) INTO total FROM @extschema@.verify_inverted_index(index);
	IF total = 0 THEN
		RETURN 0;
	END IF;
	-- rows of the index that are not exactly an expected row
	EXECUTE format('DELETE FROM %s a WHERE NOT EXISTS (SELECT 1 FROM (%s) x WHERE %s)',
				   qidx, @extschema@.adjlist_index_select(index, 'b'), match);
	-- expected rows that are not in the index
	EXECUTE format('INSERT INTO %s SELECT * FROM (%s) x WHERE NOT EXISTS (SELECT 1 FROM %s a WHERE %s)',
				   qidx, @extschema@.adjlist_index_select(index, 'b'), qidx, match);
	-- degree counters: recount when any group is off
	IF r.counterrel IS NOT NULL THEN
		EXECUTE format('SELECT count(*) FROM (%s) d', @extschema@.adjlist_degree_diff(index)) INTO n;
		IF n > 0 THEN
			EXECUTE format('DELETE FROM %s', @extschema@.adjlist_qualified(r.counterrel));
			EXECUTE format('INSERT INTO %s %s', @extschema@.adjlist_qualified(r.counterrel),
						   @extschema@.adjlist_degree_select(index));
		END IF;
	END IF;
	RETURN total;
END $$;
COMMENT ON FUNCTION rebuild_inverted_index(regclass) IS
	'repair an inverted index from its base table; returns the number of rows changed';

-- DDL guard.  Dropping a base table drops its inverted indexes; dropping an
-- index table directly, or a column an index uses, is refused.
CREATE FUNCTION adjlist_on_sql_drop() RETURNS event_trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
	dropped oid[];
BEGIN
	SELECT array_agg(objid) INTO dropped
	  FROM pg_event_trigger_dropped_objects()
	 WHERE classid = 'pg_class'::regclass AND objsubid = 0;
	FOR r IN
		SELECT d.objid, d.objsubid, d.object_identity
		  FROM pg_event_trigger_dropped_objects() d
		 WHERE d.classid = 'pg_class'::regclass AND d.objsubid > 0
		   AND d.objid NOT IN (SELECT unnest(coalesce(dropped, '{}')))
	LOOP
		IF EXISTS (SELECT 1 FROM @extschema@.adjlist_inverted_indexes
				   WHERE baserel::oid = r.objid OR indexrel::oid = r.objid) THEN
			RAISE EXCEPTION 'cannot drop column % because an inverted index uses its table', r.object_identity
				USING ERRCODE = 'dependent_objects_still_exist',
					  HINT = 'Drop the inverted index first with drop_inverted_index().';
		END IF;
	END LOOP;
	IF dropped IS NULL THEN
		RETURN;
	END IF;
	FOR r IN
		SELECT i.indexrel::oid AS idx, i.baserel::oid AS base, i.counterrel::oid AS cnt,
			   (SELECT d.object_identity FROM pg_event_trigger_dropped_objects() d
				 WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
				   AND d.objid IN (i.indexrel::oid, i.counterrel::oid) LIMIT 1) AS idx_name
		  FROM @extschema@.adjlist_inverted_indexes i
		 WHERE i.indexrel::oid = ANY (dropped) OR i.baserel::oid = ANY (dropped)
			OR i.counterrel::oid = ANY (dropped)
	LOOP
		IF NOT r.base = ANY (dropped) THEN
			RAISE EXCEPTION 'cannot drop table % directly', r.idx_name
				USING ERRCODE = 'dependent_objects_still_exist',
					  DETAIL = format('It belongs to an inverted index of table %s.', r.base::regclass),
					  HINT = 'Use drop_inverted_index() to drop the index with its triggers.';
		END IF;
		DELETE FROM @extschema@.adjlist_inverted_indexes WHERE indexrel::oid = r.idx;
		IF NOT r.idx = ANY (dropped) THEN
			EXECUTE format('DROP TABLE IF EXISTS %s', @extschema@.adjlist_qualified(r.idx));
		END IF;
		IF r.cnt IS NOT NULL AND NOT r.cnt = ANY (dropped) THEN
			EXECUTE format('DROP TABLE IF EXISTS %s', @extschema@.adjlist_qualified(r.cnt));
		END IF;
	END LOOP;
END $$;
COMMENT ON FUNCTION adjlist_on_sql_drop() IS
	'event trigger: keeps inverted index registrations consistent with dropped tables';

CREATE FUNCTION adjlist_on_ddl_end() RETURNS event_trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
BEGIN
	FOR r IN
		SELECT i.indexrel, i.baserel, col
		  FROM pg_event_trigger_ddl_commands() d
		  JOIN @extschema@.adjlist_inverted_indexes i
			ON d.classid = 'pg_class'::regclass AND d.objid IN (i.baserel::oid, i.indexrel::oid)
		 CROSS JOIN LATERAL unnest(i.columns) col
	LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = r.baserel AND attname = r.col
					   AND attnum > 0 AND NOT attisdropped)
		   OR NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = r.indexrel AND attname = r.col
						  AND attnum > 0 AND NOT attisdropped) THEN
			RAISE EXCEPTION 'column "%" is used by inverted index %', r.col, r.indexrel
				USING ERRCODE = 'dependent_objects_still_exist',
					  HINT = 'Drop the inverted index with drop_inverted_index() before renaming or dropping its columns.';
		END IF;
	END LOOP;
END $$;
COMMENT ON FUNCTION adjlist_on_ddl_end() IS
	'event trigger: refuses DDL that would break an inverted index';

CREATE EVENT TRIGGER adjlist_sql_drop ON sql_drop
	EXECUTE FUNCTION adjlist_on_sql_drop();
CREATE EVENT TRIGGER adjlist_ddl_end ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE')
	EXECUTE FUNCTION adjlist_on_ddl_end();

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

-- "OPERATOR(schema.op)" for a btree strategy of a type's default class.
CREATE FUNCTION adjlist_btree_operator(t regtype, strategy integer) RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('OPERATOR(%I.%s)', n.nspname, o.oprname)
	FROM pg_catalog.pg_opclass c
	JOIN pg_catalog.pg_am am ON am.oid = c.opcmethod AND am.amname = 'btree'
	JOIN pg_catalog.pg_amop ao ON ao.amopfamily = c.opcfamily AND ao.amopstrategy = strategy
		AND ao.amoplefttype = c.opcintype AND ao.amoprighttype = c.opcintype
	JOIN pg_catalog.pg_operator o ON o.oid = ao.amopopr
	JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
	WHERE c.opcdefault AND c.opcintype = t
$$;
COMMENT ON FUNCTION adjlist_btree_operator(regtype, integer) IS
	'internal: schema-qualified btree operator of a type (strategy 1..5)';

CREATE FUNCTION adjlist_query_sql(
	tbl regclass, sort_op text, sort_value text, sort_value2 text,
	backward boolean, lim bigint, exclusive_start_key jsonb, count_only boolean)
RETURNS text
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cols name[];
	types regtype[];
	keytype regtype := '@extschema@.adjkey'::regtype;
	q text;
	cond text := '';
	keyset text := '';
	ord text := '';
	i int;
	p text;
	s text;
BEGIN
	IF tbl IS NULL THEN
		RAISE EXCEPTION 'table must not be null' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT array_agg(a.attname ORDER BY k.ord), array_agg(a.atttypid::regtype ORDER BY k.ord)
	  INTO cols, types
	  FROM pg_index x
	  CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
	  JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
	 WHERE x.indrelid = tbl AND x.indisprimary;
	IF cols IS NULL OR cardinality(cols) < 2 OR types[1] <> keytype OR types[2] <> keytype THEN
		RAISE EXCEPTION 'table % needs a primary key whose first two columns are adjkey', tbl
			USING ERRCODE = 'invalid_table_definition',
				  HINT = 'query() reads a partition by its primary key, for example PRIMARY KEY (pk, sk).';
	END IF;
	p := format('t.%I', cols[1]);
	s := format('t.%I', cols[2]);

	-- the sort-key condition
	IF sort_op IS NOT NULL THEN
		IF sort_value IS NULL THEN
			RAISE EXCEPTION 'sort condition % needs a value', sort_op
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		CASE lower(sort_op)
			WHEN '=', '<', '<=', '>', '>=' THEN
				cond := format(' AND %s %s $2::%s', s,
							   @extschema@.adjlist_btree_operator(keytype,
								   CASE sort_op WHEN '<' THEN 1 WHEN '<=' THEN 2 WHEN '=' THEN 3
												WHEN '>=' THEN 4 ELSE 5 END),
							   keytype);
			WHEN 'between' THEN
				IF sort_value2 IS NULL THEN
					RAISE EXCEPTION 'between needs two values' USING ERRCODE = 'invalid_parameter_value';
				END IF;
				IF sort_value::@extschema@.adjkey OPERATOR(@extschema@.>) sort_value2::@extschema@.adjkey THEN
					RAISE EXCEPTION 'invalid between condition: the low bound % is greater than the high bound %',
						quote_literal(sort_value), quote_literal(sort_value2)
						USING ERRCODE = 'invalid_parameter_value',
							  HINT = 'DynamoDB rejects this too (ValidationException); swap the bounds.';
				END IF;
				cond := format(' AND %1$s OPERATOR(%3$s.>=) $2::%2$s AND %1$s OPERATOR(%3$s.<=) $3::%2$s',
							   s, keytype, quote_ident('@extschema@'));
			WHEN 'begins_with' THEN
				cond := format(' AND %s OPERATOR(%s.^@) $2::text', s, quote_ident('@extschema@'));
			ELSE
				RAISE EXCEPTION 'unknown sort condition %', quote_literal(sort_op)
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Use =, <, <=, >, >=, between or begins_with.';
		END CASE;
	END IF;

	-- keyset pagination: rows strictly after the exclusive start key, in
	-- the scan's order; the key must name every key column after the first
	IF exclusive_start_key IS NOT NULL THEN
		FOR i IN REVERSE cardinality(cols) .. 2 LOOP
			IF NOT exclusive_start_key ? cols[i] THEN
				RAISE EXCEPTION 'exclusive_start_key lacks the key column %', cols[i]
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Pass the key of the last row of the previous page.';
			END IF;
			keyset := format('(t.%1$I %2$s ($4 ->> %3$L)::%4$s%5$s)',
							 cols[i],
							 @extschema@.adjlist_btree_operator(types[i], CASE WHEN backward THEN 1 ELSE 5 END),
							 cols[i], types[i],
							 CASE WHEN keyset = '' THEN ''
								  ELSE format(' OR (t.%I %s ($4 ->> %L)::%s AND %s)', cols[i],
											  @extschema@.adjlist_btree_operator(types[i], 3),
											  cols[i], types[i], keyset) END);
		END LOOP;
		keyset := ' AND ' || keyset;
	END IF;

	IF count_only THEN
		RETURN format('SELECT count(*) FROM %s t WHERE %s %s $1%s',
					  @extschema@.adjlist_qualified(tbl), p,
					  @extschema@.adjlist_btree_operator(keytype, 3), cond);
	END IF;

	FOR i IN 2 .. cardinality(cols) LOOP
		ord := ord || CASE WHEN i > 2 THEN ', ' ELSE '' END
			|| format('t.%I USING %s', cols[i],
					  @extschema@.adjlist_btree_operator(types[i], CASE WHEN backward THEN 5 ELSE 1 END));
	END LOOP;
	RETURN format('SELECT %s, %s, jsonb_build_object(%s), to_jsonb(t) FROM %s t '
				  'WHERE %s %s $1%s%s ORDER BY %s%s',
				  p, s,
				  (SELECT string_agg(format('%L, t.%I', c, c), ', ') FROM unnest(cols) c),
				  @extschema@.adjlist_qualified(tbl),
				  p, @extschema@.adjlist_btree_operator(keytype, 3), cond, keyset, ord,
				  CASE WHEN lim IS NOT NULL THEN format(' LIMIT %s', greatest(lim, 0)) ELSE '' END);
END $$;
COMMENT ON FUNCTION adjlist_query_sql(regclass, text, text, text, boolean, bigint, jsonb, boolean) IS
	'internal: the SQL of query() and query_count()';

CREATE FUNCTION query(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (partition_key adjkey, sort_key adjkey, key jsonb, item jsonb)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF partition_value IS NULL THEN
		RETURN;
	END IF;
	RETURN QUERY EXECUTE @extschema@.adjlist_query_sql(tbl, sort_op, sort_value, sort_value2,
														backward, lim, exclusive_start_key, false)
		USING partition_value, sort_value, sort_value2, exclusive_start_key;
END $$;
COMMENT ON FUNCTION query(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'DynamoDB Query: one partition, an optional sort-key condition, order, limit, exclusive start key';

CREATE FUNCTION query_count(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL)
RETURNS bigint
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n bigint;
BEGIN
	IF partition_value IS NULL THEN
		RETURN 0;
	END IF;
	EXECUTE @extschema@.adjlist_query_sql(tbl, sort_op, sort_value, sort_value2,
										  false, NULL, NULL, true)
		INTO n USING partition_value, sort_value, sort_value2;
	RETURN n;
END $$;
COMMENT ON FUNCTION query_count(regclass, adjkey, text, text, text) IS
	'DynamoDB Query with Select COUNT: the number of matching items';

-- ---------------------------------------------------------------------
-- The write API: base table and inverted indexes in one transaction,
-- without triggers (Citus, or any engine where triggers cannot write
-- another table).  Indexes in trigger mode are left to their triggers.
-- ---------------------------------------------------------------------

-- Remove the index rows of the base rows a WHERE clause selects, for
-- every index of tbl in API mode.  $1 and $2 of the clause are bound to
-- the caller's values.
CREATE FUNCTION adjlist_api_unindex(tbl regclass, base_where text, v1 adjkey, v2 adjkey)
RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM @extschema@.adjlist_inverted_indexes
			  WHERE baserel = tbl AND mode = 'api' ORDER BY indexrel::oid
	LOOP
		IF r.counterrel IS NOT NULL THEN
			RAISE EXCEPTION 'degree counters are kept by triggers only'
				USING ERRCODE = 'feature_not_supported';
		END IF;
		EXECUTE format('DELETE FROM %s i USING (SELECT %s FROM %s b WHERE %s) o WHERE %s',
					   @extschema@.adjlist_qualified(r.indexrel),
					   (SELECT string_agg(format('b.%I', c), ', ') FROM unnest(r.columns[1:r.nkeys]) c),
					   @extschema@.adjlist_qualified(tbl), base_where,
					   @extschema@.adjlist_key_match(r.indexrel, 'i', 'o'))
			USING v1, v2;
	END LOOP;
END $$;
COMMENT ON FUNCTION adjlist_api_unindex(regclass, text, adjkey, adjkey) IS
	'internal: delete the index rows of base rows (write API)';

CREATE FUNCTION adjlist_api_index(tbl regclass, base_where text, v1 adjkey, v2 adjkey)
RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM @extschema@.adjlist_inverted_indexes
			  WHERE baserel = tbl AND mode = 'api' ORDER BY indexrel::oid
	LOOP
		EXECUTE format('INSERT INTO %s %s AND %s ON CONFLICT DO NOTHING',
					   @extschema@.adjlist_qualified(r.indexrel),
					   @extschema@.adjlist_index_select(r.indexrel, 'b'), base_where)
			USING v1, v2;
	END LOOP;
END $$;
COMMENT ON FUNCTION adjlist_api_index(regclass, text, adjkey, adjkey) IS
	'internal: insert the index rows of base rows (write API)';

-- The WHERE clause that selects one base row by its first two key columns.
CREATE FUNCTION adjlist_api_key_where(tbl regclass) RETURNS text
	LANGUAGE plpgsql STABLE STRICT
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k name[];
BEGIN
	SELECT base_key INTO k FROM @extschema@.adjlist_inverted_indexes
	 WHERE baserel = tbl ORDER BY created LIMIT 1;
	IF k IS NULL THEN
		RAISE EXCEPTION 'table % has no inverted index', tbl
			USING ERRCODE = 'undefined_object',
				  HINT = 'The write API keeps the inverted indexes of a table; create one first.';
	END IF;
	IF cardinality(k) <> 2 THEN
		RAISE EXCEPTION 'the write API needs a table keyed by two columns (pk, sk), not %', k
			USING ERRCODE = 'feature_not_supported';
	END IF;
	RETURN format('b.%I OPERATOR(@extschema@.=) $1 AND b.%I OPERATOR(@extschema@.=) $2', k[1], k[2]);
END $$;
COMMENT ON FUNCTION adjlist_api_key_where(regclass) IS
	'internal: the key condition of the write API';

CREATE FUNCTION put_edge(tbl regclass, pk adjkey, sk adjkey, data jsonb DEFAULT NULL)
RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k name[];
	w text := @extschema@.adjlist_api_key_where(tbl);
	has_data boolean;
BEGIN
	IF tbl IS NULL OR pk IS NULL OR sk IS NULL THEN
		RAISE EXCEPTION 'put_edge needs a table, a pk and an sk' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT base_key INTO k FROM @extschema@.adjlist_inverted_indexes
	 WHERE baserel = tbl ORDER BY created LIMIT 1;
	has_data := EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = tbl AND attname = 'data'
						AND atttypid = 'jsonb'::regtype AND NOT attisdropped);
	IF data IS NOT NULL AND NOT has_data THEN
		RAISE EXCEPTION 'table % has no jsonb column "data"', tbl USING ERRCODE = 'undefined_column';
	END IF;
	-- an upsert that also works where the table can have no unique index
	-- (foreign partitions): remove what is there, then write
	PERFORM @extschema@.adjlist_api_unindex(tbl, w, pk, sk);
	EXECUTE format('DELETE FROM %s b WHERE %s', @extschema@.adjlist_qualified(tbl), w) USING pk, sk;
	EXECUTE format('INSERT INTO %s (%I, %I%s) VALUES ($1, $2%s)', @extschema@.adjlist_qualified(tbl),
				   k[1], k[2], CASE WHEN has_data THEN ', data' ELSE '' END,
				   CASE WHEN has_data THEN ', $3' ELSE '' END)
		USING pk, sk, data;
	PERFORM @extschema@.adjlist_api_index(tbl, w, pk, sk);
END $$;
COMMENT ON FUNCTION put_edge(regclass, adjkey, adjkey, jsonb) IS
	'write an item (insert or replace) and its inverted index rows in one transaction';

CREATE FUNCTION put_edges(tbl regclass, edges jsonb) RETURNS bigint
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	e jsonb;
	n bigint := 0;
BEGIN
	IF jsonb_typeof(edges) <> 'array' THEN
		RAISE EXCEPTION 'edges must be a JSON array of {"pk": ..., "sk": ..., "data": ...}'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR e IN SELECT * FROM jsonb_array_elements(edges) LOOP
		PERFORM @extschema@.put_edge(tbl, (e ->> 'pk')::@extschema@.adjkey,
									 (e ->> 'sk')::@extschema@.adjkey, e -> 'data');
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;
COMMENT ON FUNCTION put_edges(regclass, jsonb) IS
	'put_edge for each element of a JSON array, all in one transaction; returns how many';

CREATE FUNCTION delete_edge(tbl regclass, pk adjkey, sk adjkey) RETURNS boolean
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	w text := @extschema@.adjlist_api_key_where(tbl);
	n bigint;
BEGIN
	PERFORM @extschema@.adjlist_api_unindex(tbl, w, pk, sk);
	EXECUTE format('DELETE FROM %s b WHERE %s', @extschema@.adjlist_qualified(tbl), w) USING pk, sk;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END $$;
COMMENT ON FUNCTION delete_edge(regclass, adjkey, adjkey) IS
	'delete an item and its inverted index rows in one transaction; true if it existed';

-- Delete a node: its item collection (pk = node) and every edge that
-- points at it, found through the inverted index: for each edge prefix,
-- the rows whose sk is prefix || node.
CREATE FUNCTION delete_node(tbl regclass, node adjkey, edge_prefixes text[] DEFAULT '{}')
RETURNS bigint
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k name[];
	p text;
	src @extschema@.adjkey;
	n bigint := 0;
	m bigint;
	idx regclass;
BEGIN
	IF tbl IS NULL OR node IS NULL OR edge_prefixes IS NULL THEN
		RAISE EXCEPTION 'delete_node needs a table, a node and edge prefixes'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT base_key INTO k FROM @extschema@.adjlist_inverted_indexes
	 WHERE baserel = tbl ORDER BY created LIMIT 1;
	PERFORM @extschema@.adjlist_api_key_where(tbl);		-- checks k
	-- the edges pointing at the node
	SELECT indexrel INTO idx FROM @extschema@.adjlist_inverted_indexes
	 WHERE baserel = tbl AND columns[1] = k[2] AND columns[2] = k[1] ORDER BY created LIMIT 1;
	FOREACH p IN ARRAY edge_prefixes LOOP
		IF idx IS NULL THEN
			RAISE EXCEPTION 'table % has no inverted index on (%, %)', tbl, k[2], k[1]
				USING ERRCODE = 'undefined_object';
		END IF;
		FOR src IN EXECUTE format('SELECT %I FROM %s WHERE %I OPERATOR(@extschema@.=) $1',
								  k[1], @extschema@.adjlist_qualified(idx), k[2])
			USING (p || node::text)::@extschema@.adjkey
		LOOP
			IF @extschema@.delete_edge(tbl, src, (p || node::text)::@extschema@.adjkey) THEN
				n := n + 1;
			END IF;
		END LOOP;
	END LOOP;
	-- the item collection
	PERFORM @extschema@.adjlist_api_unindex(tbl, format('b.%I OPERATOR(@extschema@.=) $1', k[1]), node, NULL);
	EXECUTE format('DELETE FROM %s b WHERE b.%I OPERATOR(@extschema@.=) $1',
				   @extschema@.adjlist_qualified(tbl), k[1]) USING node;
	GET DIAGNOSTICS m = ROW_COUNT;
	RETURN n + m;
END $$;
COMMENT ON FUNCTION delete_node(regclass, adjkey, text[]) IS
	'delete a node''s item collection and every edge pointing at it; returns the rows deleted';

-- adjlist install script, part: the adjkey type, its operators and key functions
-- (since 0.1; fresh installs only)

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

-- (the other ^@, with a key as the prefix, is adjkey ^@ adjkey_prefix:
-- text_ops.sql)
CREATE OPERATOR ^@ (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = begins_with,
	RESTRICT = adjkey_prefix_sel, JOIN = prefixjoinsel
);

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

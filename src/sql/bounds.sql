-- adjlist install and 0.2--0.3 update script, part: comparing keys with
-- UTF-8 bytes, and the bounds of begins_with index ranges (0.3)

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

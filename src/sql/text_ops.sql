-- adjlist install and 0.2--0.3 update script, part: keys that work like
-- text (0.3).  Comparing keys with text, LIKE and starts_with on keys, ^@
-- with a key or an untyped string as the prefix, all index-backed, all by
-- the UTF-8 bytes and never by a collation.

-- ---------------------------------------------------------------------
-- Comparing a key with text
-- ---------------------------------------------------------------------

-- "sk = $1" with a text parameter, "sk BETWEEN $1 AND $2", "pk = ANY($1)"
-- with text[]: these operators, in adjkey's btree and hash families, make
-- them work without casts and use the index.  Untyped literals and
-- parameters still resolve to adjkey (adjkey = adjkey matches them
-- exactly) and are checked as keys; a text value is compared as it is,
-- byte-wise on its UTF-8 form, so text that could not be a key (empty,
-- too long) is simply unequal to every key, never an error.
CREATE FUNCTION adjkey_text_cmp(adjkey, text) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION text_adjkey_cmp(text, adjkey) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_text_cmp(adjkey, text) IS 'btree comparison of a key with text by UTF-8 bytes: -1, 0 or 1';
COMMENT ON FUNCTION text_adjkey_cmp(text, adjkey) IS 'btree comparison of text with a key by UTF-8 bytes: -1, 0 or 1';

-- (key = text is mergejoinable: its support function lets "pk = $1" make
-- pk a constant of the query, so that ORDER BY sk needs no sort)
CREATE FUNCTION adjkey_text_eq_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'adjkey_text_eq_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_text_eq_support(internal) IS
	'planner support of key = text: the comparison does not depend on the text''s collation';
CREATE FUNCTION adjkey_text_eq(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_text_eq_support;
CREATE FUNCTION adjkey_text_ne(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_text_lt(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_text_le(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_text_gt(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_text_ge(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION text_adjkey_eq(text, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_text_eq_support;
CREATE FUNCTION text_adjkey_ne(text, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION text_adjkey_lt(text, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION text_adjkey_le(text, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION text_adjkey_gt(text, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION text_adjkey_ge(text, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_text_eq(adjkey, text) IS 'implementation of = for adjkey and text';
COMMENT ON FUNCTION adjkey_text_ne(adjkey, text) IS 'implementation of <> for adjkey and text';
COMMENT ON FUNCTION adjkey_text_lt(adjkey, text) IS 'implementation of < for adjkey and text';
COMMENT ON FUNCTION adjkey_text_le(adjkey, text) IS 'implementation of <= for adjkey and text';
COMMENT ON FUNCTION adjkey_text_gt(adjkey, text) IS 'implementation of > for adjkey and text';
COMMENT ON FUNCTION adjkey_text_ge(adjkey, text) IS 'implementation of >= for adjkey and text';
COMMENT ON FUNCTION text_adjkey_eq(text, adjkey) IS 'implementation of = for text and adjkey';
COMMENT ON FUNCTION text_adjkey_ne(text, adjkey) IS 'implementation of <> for text and adjkey';
COMMENT ON FUNCTION text_adjkey_lt(text, adjkey) IS 'implementation of < for text and adjkey';
COMMENT ON FUNCTION text_adjkey_le(text, adjkey) IS 'implementation of <= for text and adjkey';
COMMENT ON FUNCTION text_adjkey_gt(text, adjkey) IS 'implementation of > for text and adjkey';
COMMENT ON FUNCTION text_adjkey_ge(text, adjkey) IS 'implementation of >= for text and adjkey';

-- Hashes of text that agree with adjkey_hash on equal values (the same
-- UTF-8 bytes), for hash joins of keys with text and for pruning the
-- partitions of PARTITION BY HASH (pk) with a text value
CREATE FUNCTION adjkey_text_hash(text) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_text_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_text_hash_extended(text, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjkey_text_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_text_hash(text) IS 'hash of text by its UTF-8 bytes, as adjkey_hash hashes keys';
COMMENT ON FUNCTION adjkey_text_hash_extended(text, bigint) IS
	'seeded 64-bit hash of text by its UTF-8 bytes, as adjkey_hash_extended hashes keys';

CREATE OPERATOR = (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjkey_text_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR = (
	LEFTARG = text, RIGHTARG = adjkey, FUNCTION = text_adjkey_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjkey_text_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR <> (
	LEFTARG = text, RIGHTARG = adjkey, FUNCTION = text_adjkey_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjkey_text_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR < (
	LEFTARG = text, RIGHTARG = adjkey, FUNCTION = text_adjkey_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjkey_text_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR <= (
	LEFTARG = text, RIGHTARG = adjkey, FUNCTION = text_adjkey_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjkey_text_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR > (
	LEFTARG = text, RIGHTARG = adjkey, FUNCTION = text_adjkey_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjkey_text_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR >= (
	LEFTARG = text, RIGHTARG = adjkey, FUNCTION = text_adjkey_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

-- ---------------------------------------------------------------------
-- Text in adjkey's byte order
-- ---------------------------------------------------------------------

-- An operator family is complete when every pair of its types can be
-- compared (the planner relies on it, amvalidate checks it).  With text in
-- adjkey's families that takes text with text and text with bytea in
-- adjkey's order too: the UTF-8 bytes, no collation.  These cannot be the
-- standard < and = of text (those follow the collation, and shadowing them
-- would change every text comparison), so they have names of their own,
-- #<# #<=# #=# #>=# #># ("in key order"); usable directly as well, for
-- example ORDER BY t USING #<# sorts text the way keys sort.
CREATE FUNCTION adjkey_order_cmp(text, text) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_text_text_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_cmp(text, bytea) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_cmp(bytea, text) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_order_cmp(text, text) IS 'btree comparison of text by UTF-8 bytes (adjkey order): -1, 0 or 1';
COMMENT ON FUNCTION adjkey_order_cmp(text, bytea) IS 'btree comparison of text with bytes by UTF-8 bytes (adjkey order): -1, 0 or 1';
COMMENT ON FUNCTION adjkey_order_cmp(bytea, text) IS 'btree comparison of bytes with text by UTF-8 bytes (adjkey order): -1, 0 or 1';

CREATE FUNCTION adjkey_order_lt(text, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_text_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_le(text, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_text_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_eq(text, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_text_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_ge(text, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_text_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_gt(text, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_text_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_lt(text, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_le(text, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_eq(text, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_ge(text, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_gt(text, bytea) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_text_raw_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_lt(bytea, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_le(bytea, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_eq(bytea, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_ge(bytea, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION adjkey_order_gt(bytea, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_raw_text_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION adjkey_order_lt(text, text) IS 'implementation of #<# (text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_le(text, text) IS 'implementation of #<=# (text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_eq(text, text) IS 'implementation of #=# (text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_ge(text, text) IS 'implementation of #>=# (text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_gt(text, text) IS 'implementation of #># (text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_lt(text, bytea) IS 'implementation of #<# (text and bytes in adjkey order)';
COMMENT ON FUNCTION adjkey_order_le(text, bytea) IS 'implementation of #<=# (text and bytes in adjkey order)';
COMMENT ON FUNCTION adjkey_order_eq(text, bytea) IS 'implementation of #=# (text and bytes in adjkey order)';
COMMENT ON FUNCTION adjkey_order_ge(text, bytea) IS 'implementation of #>=# (text and bytes in adjkey order)';
COMMENT ON FUNCTION adjkey_order_gt(text, bytea) IS 'implementation of #># (text and bytes in adjkey order)';
COMMENT ON FUNCTION adjkey_order_lt(bytea, text) IS 'implementation of #<# (bytes and text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_le(bytea, text) IS 'implementation of #<=# (bytes and text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_eq(bytea, text) IS 'implementation of #=# (bytes and text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_ge(bytea, text) IS 'implementation of #>=# (bytes and text in adjkey order)';
COMMENT ON FUNCTION adjkey_order_gt(bytea, text) IS 'implementation of #># (bytes and text in adjkey order)';

CREATE OPERATOR #<# (
	LEFTARG = text, RIGHTARG = text, FUNCTION = adjkey_order_lt,
	COMMUTATOR = #>#, NEGATOR = #>=#, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR #<=# (
	LEFTARG = text, RIGHTARG = text, FUNCTION = adjkey_order_le,
	COMMUTATOR = #>=#, NEGATOR = #>#, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR #=# (
	LEFTARG = text, RIGHTARG = text, FUNCTION = adjkey_order_eq,
	COMMUTATOR = #=#, RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR #>=# (
	LEFTARG = text, RIGHTARG = text, FUNCTION = adjkey_order_ge,
	COMMUTATOR = #<=#, NEGATOR = #<#, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR #># (
	LEFTARG = text, RIGHTARG = text, FUNCTION = adjkey_order_gt,
	COMMUTATOR = #<#, NEGATOR = #<=#, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR #<# (
	LEFTARG = text, RIGHTARG = bytea, FUNCTION = adjkey_order_lt,
	COMMUTATOR = #>#, NEGATOR = #>=#, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR #<=# (
	LEFTARG = text, RIGHTARG = bytea, FUNCTION = adjkey_order_le,
	COMMUTATOR = #>=#, NEGATOR = #>#, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR #=# (
	LEFTARG = text, RIGHTARG = bytea, FUNCTION = adjkey_order_eq,
	COMMUTATOR = #=#, RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR #>=# (
	LEFTARG = text, RIGHTARG = bytea, FUNCTION = adjkey_order_ge,
	COMMUTATOR = #<=#, NEGATOR = #<#, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR #># (
	LEFTARG = text, RIGHTARG = bytea, FUNCTION = adjkey_order_gt,
	COMMUTATOR = #<#, NEGATOR = #<=#, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR #<# (
	LEFTARG = bytea, RIGHTARG = text, FUNCTION = adjkey_order_lt,
	COMMUTATOR = #>#, NEGATOR = #>=#, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR #<=# (
	LEFTARG = bytea, RIGHTARG = text, FUNCTION = adjkey_order_le,
	COMMUTATOR = #>=#, NEGATOR = #>#, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR #=# (
	LEFTARG = bytea, RIGHTARG = text, FUNCTION = adjkey_order_eq,
	COMMUTATOR = #=#, RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR #>=# (
	LEFTARG = bytea, RIGHTARG = text, FUNCTION = adjkey_order_ge,
	COMMUTATOR = #<=#, NEGATOR = #<#, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR #># (
	LEFTARG = bytea, RIGHTARG = text, FUNCTION = adjkey_order_gt,
	COMMUTATOR = #<#, NEGATOR = #<=#, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);

ALTER OPERATOR FAMILY adjkey_ops USING btree ADD
	OPERATOR 1 < (adjkey, text), OPERATOR 2 <= (adjkey, text), OPERATOR 3 = (adjkey, text),
	OPERATOR 4 >= (adjkey, text), OPERATOR 5 > (adjkey, text),
	FUNCTION 1 (adjkey, text) adjkey_text_cmp(adjkey, text),
	OPERATOR 1 < (text, adjkey), OPERATOR 2 <= (text, adjkey), OPERATOR 3 = (text, adjkey),
	OPERATOR 4 >= (text, adjkey), OPERATOR 5 > (text, adjkey),
	FUNCTION 1 (text, adjkey) text_adjkey_cmp(text, adjkey),
	OPERATOR 1 #<# (text, text), OPERATOR 2 #<=# (text, text), OPERATOR 3 #=# (text, text),
	OPERATOR 4 #>=# (text, text), OPERATOR 5 #># (text, text),
	FUNCTION 1 (text, text) adjkey_order_cmp(text, text),
	OPERATOR 1 #<# (text, bytea), OPERATOR 2 #<=# (text, bytea), OPERATOR 3 #=# (text, bytea),
	OPERATOR 4 #>=# (text, bytea), OPERATOR 5 #># (text, bytea),
	FUNCTION 1 (text, bytea) adjkey_order_cmp(text, bytea),
	OPERATOR 1 #<# (bytea, text), OPERATOR 2 #<=# (bytea, text), OPERATOR 3 #=# (bytea, text),
	OPERATOR 4 #>=# (bytea, text), OPERATOR 5 #># (bytea, text),
	FUNCTION 1 (bytea, text) adjkey_order_cmp(bytea, text);

ALTER OPERATOR FAMILY adjkey_hash_ops USING hash ADD
	OPERATOR 1 = (adjkey, text), OPERATOR 1 = (text, adjkey), OPERATOR 1 #=# (text, text),
	FUNCTION 1 (text) adjkey_text_hash(text),
	FUNCTION 2 (text) adjkey_text_hash_extended(text, bigint);

-- ---------------------------------------------------------------------
-- LIKE and starts_with
-- ---------------------------------------------------------------------

CREATE FUNCTION adjkey_like_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'adjkey_like_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_like_support(internal) IS
	'planner support of LIKE on keys: btree conditions from the literal prefix, and selectivity';

CREATE FUNCTION adjkey_like_sel(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME', 'adjkey_like_sel'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_notlike_sel(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME', 'adjkey_notlike_sel'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_like_sel(internal, oid, internal, integer) IS
	'restriction selectivity of adjkey ~~ (LIKE)';
COMMENT ON FUNCTION adjkey_notlike_sel(internal, oid, internal, integer) IS
	'restriction selectivity of adjkey !~~ (NOT LIKE)';

-- LIKE compares bytes (no collation): '%' any run of characters, '_' one
-- character, backslash (or the ESCAPE character) makes the next literal
CREATE FUNCTION like(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_like'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT adjkey_like_support;
CREATE FUNCTION notlike(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_notlike'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION like(adjkey, text) IS
	'key LIKE pattern, by UTF-8 characters and no collation; a literal prefix uses a btree index';
COMMENT ON FUNCTION notlike(adjkey, text) IS 'key NOT LIKE pattern';

CREATE OPERATOR ~~ (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = like,
	NEGATOR = !~~, RESTRICT = adjkey_like_sel, JOIN = likejoinsel
);
CREATE OPERATOR !~~ (
	LEFTARG = adjkey, RIGHTARG = text, FUNCTION = notlike,
	NEGATOR = ~~, RESTRICT = adjkey_notlike_sel, JOIN = nlikejoinsel
);

-- The bounds of the index range of a LIKE pattern that is not a constant
-- (a parameter of a generic plan): its literal prefix and that prefix's
-- successor, as bytea like the bounds of begins_with (bounds.sql)
CREATE FUNCTION adjkey_like_lower(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'adjkey_like_lower'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION adjkey_like_upper(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'adjkey_like_upper'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION adjkey_like_lower(text) IS
	'inclusive lower bound (UTF-8 bytes) of the keys a LIKE pattern can match, for index scans';
COMMENT ON FUNCTION adjkey_like_upper(text) IS
	'exclusive upper bound (UTF-8 bytes) of the keys a LIKE pattern can match, for index scans';

-- starts_with, the name core gives text's ^@, for keys: begins_with again
CREATE FUNCTION starts_with(adjkey, text) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_begins_with'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_begins_with_support;
CREATE FUNCTION starts_with(adjkey, adjkey) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_begins_with_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_begins_with_support;
COMMENT ON FUNCTION starts_with(adjkey, text) IS
	'true if the key starts with the prefix (same as begins_with); uses a btree index';
COMMENT ON FUNCTION starts_with(adjkey, adjkey) IS
	'true if the first key starts with the second (same as begins_with); uses a btree index';

-- ---------------------------------------------------------------------
-- ^@ with a key as the prefix
-- ---------------------------------------------------------------------

-- An operator adjkey ^@ adjkey would be an exact match for an untyped
-- literal or parameter on its right (the parser gives an unknown the type
-- of the other operand first), so "sk ^@ ''" would read '' as a key and
-- fail (22P02) before begins_with ran.  The key form takes this domain
-- instead: no operator matches adjkey ^@ unknown exactly, an untyped
-- right operand then prefers the string category, so it is text (as it
-- already was for begins_with() and starts_with()), and any key still
-- reaches the domain by the implicit relabelling of a type to its domain:
-- "sk ^@ pk" and "sk ^@ $1" with an adjkey parameter work as before.  The
-- planner support strips that relabelling (index conditions read as
-- before) and turns a constant key prefix into the text form, so that the
-- two spellings of one prefix are one expression (a partial index's
-- predicate, constraint exclusion).
CREATE DOMAIN adjkey_prefix AS adjkey;
COMMENT ON DOMAIN adjkey_prefix IS
	'a key used as the prefix of ^@: adjkey ^@ adjkey_prefix takes any key, and leaves untyped prefixes to adjkey ^@ text';

CREATE FUNCTION adjkey_begins_with_prefix(adjkey, adjkey_prefix) RETURNS bool
	AS 'MODULE_PATHNAME', 'adjkey_begins_with_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT adjkey_begins_with_support;
COMMENT ON FUNCTION adjkey_begins_with_prefix(adjkey, adjkey_prefix) IS
	'implementation of ^@ for a key and a key prefix (begins_with); uses a btree index';

CREATE OPERATOR ^@ (
	LEFTARG = adjkey, RIGHTARG = adjkey_prefix, FUNCTION = adjkey_begins_with_prefix,
	RESTRICT = adjkey_prefix_sel, JOIN = prefixjoinsel
);

--
-- keys that work like text: comparing keys with text, LIKE and starts_with,
-- all by UTF-8 bytes and all index-backed, in custom and generic plans
--

-- a helper that reports the SQLSTATE and message of a failing statement
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

CREATE TABLE txt_items (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
INSERT INTO txt_items
SELECT 'USER#' || u, e || '#USER#' || v, u * 100 + v
FROM generate_series(1, 40) u, generate_series(1, 40) v, (VALUES ('FOLLOWS'), ('LIKES')) x(e);
INSERT INTO txt_items VALUES
	('USER#é', 'FOLLOWS#USER#é', 1), ('USER#é', 'FOLLOWS#USER#éa', 2),
	('USER#é', 'FOLLOWS#USER#ê', 3), ('USER#é', 'FOLLOWS#USER#中', 4),
	('USER#é', 'FOLLOWS#USER#f', 5), ('USER#é', 'FOLLOWS#USER#😀', 6),
	('TAGS', 'TAG#100%', 1), ('TAGS', 'TAG#100_', 2), ('TAGS', 'TAG#1000', 3),
	('TAGS', E'TAG#a\\b', 4), ('TAGS', 'TAG#a_b', 5), ('TAGS', 'TAG#axb', 6),
	('TAGS', 'TAG#a%b', 7), ('TAGS', 'TAG#B', 8), ('TAGS', 'TAG#b', 9);
VACUUM ANALYZE txt_items;

-- 1. Which operator a comparison resolves to.  Untyped literals are still
-- read as keys (adjkey = adjkey); text values use the new operators; a
-- view shows the resolved types (written without the column prefixes
-- that older servers print).
CREATE VIEW txt_resolved AS
SELECT pk = 'USER#1' AS untyped,
	   pk = 'USER#1'::text AS typed_text,
	   'USER#1'::text = pk AS text_on_left,
	   pk = 'USER#' || '1' AS text_expression,
	   pk = 'USER#1'::varchar AS from_varchar,
	   pk IN ('USER#1', 'USER#2') AS in_untyped,
	   pk IN ('USER#1'::text, 'USER#2'::text) AS in_text,
	   pk = ANY (ARRAY['USER#1', 'USER#2']) AS any_text_array,
	   sk BETWEEN 'FOLLOWS#'::text AND 'FOLLOWS$'::text AS between_text,
	   sk LIKE 'FOLLOWS#%' AS like_untyped,
	   starts_with(sk, 'FOLLOWS#') AS starts_untyped
FROM txt_items;
SELECT replace(pg_get_viewdef('txt_resolved'::regclass), 'txt_items.', '') AS resolved;
DROP VIEW txt_resolved;
-- parameters: untyped ones become adjkey, declared ones keep their type
PREPARE txt_untyped AS SELECT count(*) FROM txt_items WHERE pk = $1;
PREPARE txt_typed(text) AS SELECT count(*) FROM txt_items WHERE pk = $1;
PREPARE txt_like AS SELECT count(*) FROM txt_items WHERE sk LIKE $1;
SELECT name, parameter_types FROM pg_prepared_statements
WHERE name LIKE 'txt%' ORDER BY name;
EXECUTE txt_untyped('USER#1');
EXECUTE txt_typed('USER#1');
EXECUTE txt_like('FOLLOWS#USER#1_');
DEALLOCATE txt_untyped;
DEALLOCATE txt_typed;
DEALLOCATE txt_like;
-- an untyped literal is checked as a key, a text value is compared as it is
SELECT pg_temp.err($$SELECT count(*) FROM txt_items WHERE pk = ''$$) AS untyped_empty;
SELECT count(*) AS text_empty FROM txt_items WHERE pk = ''::text;

-- 2. Semantics: UTF-8 bytes, whatever the collation of the text
SELECT 'a'::adjkey > 'B'::text AS bytes_upper_first,
	   'a'::text COLLATE "en-US-x-icu" > 'B'::text COLLATE "en-US-x-icu" AS icu_says_no,
	   'a'::adjkey > ('B'::text COLLATE "en-US-x-icu") AS collation_ignored,
	   'z'::adjkey < 'é'::text AS z_before_e_acute,
	   'é'::adjkey < '中'::text AS e_acute_before_han,
	   '中'::adjkey < '😀'::text AS han_before_emoji,
	   'USER#10'::adjkey < 'USER#9'::text AS digits_are_characters,
	   'USER'::adjkey < 'USER#'::text AS shorter_first;
SELECT 'a'::adjkey = 'a'::text AS eq, 'a'::adjkey <> 'a'::text AS ne,
	   'a'::adjkey < 'a'::text AS lt, 'a'::adjkey <= 'a'::text AS le,
	   'a'::adjkey > 'a'::text AS gt, 'a'::adjkey >= 'a'::text AS ge,
	   'b'::text = 'b'::adjkey AS eq_l, 'b'::text <> 'c'::adjkey AS ne_l,
	   'b'::text < 'c'::adjkey AS lt_l, 'c'::text <= 'c'::adjkey AS le_l,
	   'd'::text > 'c'::adjkey AS gt_l, 'c'::text >= 'd'::adjkey AS ge_l,
	   adjkey_text_cmp('a', 'b'), text_adjkey_cmp('b', 'a'), adjkey_text_cmp('a', 'a');
-- text that could not be a key compares by its bytes and never raises
SELECT 'a'::adjkey = ''::text AS eq_empty, 'a'::adjkey > ''::text AS after_empty,
	   'x'::adjkey < repeat('x', 3000) AS before_too_long,
	   repeat('x', 2048)::adjkey < repeat('x', 2049) AS limit_then_more,
	   repeat('x', 2048)::adjkey = repeat('x', 2049) AS not_equal;
-- NULLs
SELECT 'a'::adjkey = NULL::text AS eq, NULL::text < 'a'::adjkey AS lt,
	   'a'::adjkey LIKE NULL AS "like", NULL::adjkey LIKE '%' AS like_null_key,
	   starts_with('a'::adjkey, NULL) AS starts, starts_with(NULL::adjkey, 'a') AS starts_null_key;
-- text in key order, directly: #<# and friends
SELECT t FROM (VALUES ('b'), ('B'), ('é'), ('a'), ('中'), ('a b'), ('a#b')) v(t)
ORDER BY t USING #<#;
SELECT 'a'::text #<# 'B' AS lt, 'é'::text #># 'z' AS gt, 'x'::text #=# 'x' AS eq,
	   'a'::text #<=# '\x61'::bytea AS text_bytea, '\x62'::bytea #>=# 'a'::text AS bytea_text;

-- 3. The operator families stay complete
SELECT opcname, amname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE opcintype = 'adjkey'::regtype ORDER BY amname;
SELECT amname, format_type(amoplefttype, NULL) AS l, format_type(amoprighttype, NULL) AS r,
	   count(*) AS operators
FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
WHERE f.opfname IN ('adjkey_ops', 'adjkey_hash_ops')
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- 4. Plans: comparisons with text are index conditions, constant or parameter
-- (plain index scans: the plans show what is an index condition)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1'::text AND sk >= 'LIKES#'::text;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE 'USER#1'::text = pk AND sk < 'FOLLOWS#USER#2'::text;
EXPLAIN (COSTS OFF)
SELECT sk FROM txt_items WHERE pk = 'USER#1'::text AND sk BETWEEN 'FOLLOWS#USER#1'::text AND 'FOLLOWS#USER#2'::text;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = ANY (ARRAY['USER#1', 'USER#2']) AND sk = 'LIKES#USER#3'::text;
-- pk = text makes pk a constant: the index returns rows in sk order
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1'::text ORDER BY sk LIMIT 3;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE 'USER#1'::text = pk ORDER BY sk DESC LIMIT 3;
-- keyset pagination with a row comparison
EXPLAIN (COSTS OFF)
SELECT pk, sk FROM txt_items WHERE (pk, sk) > ('USER#1'::text, 'LIKES#USER#39'::text) ORDER BY pk, sk LIMIT 3;
SELECT pk, sk FROM txt_items WHERE (pk, sk) > ('USER#1'::text, 'LIKES#USER#39'::text) ORDER BY pk, sk LIMIT 3;

PREPARE txt_range(text, text, text) AS
	SELECT sk FROM txt_items WHERE pk = $1 AND sk BETWEEN $2 AND $3 ORDER BY sk;
PREPARE txt_lt(text, text) AS
	SELECT sk FROM txt_items WHERE pk = $1 AND sk < $2 ORDER BY sk DESC LIMIT 2;
PREPARE txt_any(text[], text) AS
	SELECT pk, sk FROM txt_items WHERE pk = ANY ($1) AND sk = $2 ORDER BY pk;
PREPARE txt_ne(text, text) AS
	SELECT count(*) FROM txt_items WHERE pk = $1 AND sk <> $2;
PREPARE txt_page(text, text) AS
	SELECT sk FROM txt_items WHERE pk = $1 AND sk > $2 ORDER BY sk LIMIT 3;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_range('USER#1', 'FOLLOWS#USER#1', 'FOLLOWS#USER#11');
EXPLAIN (COSTS OFF) EXECUTE txt_any('{USER#1,USER#2,nope}', 'LIKES#USER#7');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_range('USER#1', 'FOLLOWS#USER#1', 'FOLLOWS#USER#11');
EXPLAIN (COSTS OFF) EXECUTE txt_lt('USER#1', 'FOLLOWS#USER#2');
EXPLAIN (COSTS OFF) EXECUTE txt_any('{USER#1,USER#2,nope}', 'LIKES#USER#7');
EXPLAIN (COSTS OFF) EXECUTE txt_ne('USER#1', 'LIKES#USER#7');
EXPLAIN (COSTS OFF) EXECUTE txt_page('USER#1', 'LIKES#USER#38');
EXECUTE txt_page('USER#1', 'LIKES#USER#38');
EXECUTE txt_range('USER#1', 'FOLLOWS#USER#1', 'FOLLOWS#USER#11');
EXECUTE txt_range('USER#é', 'FOLLOWS#USER#é', 'FOLLOWS#USER#中');
EXECUTE txt_range('USER#1', '', 'FOLLOWS#USER#10');
EXECUTE txt_range('USER#1', 'LIKES#USER#39', repeat('z', 3000));
EXECUTE txt_range('USER#1', NULL, 'z');
EXECUTE txt_lt('USER#1', 'FOLLOWS#USER#2');
EXECUTE txt_any('{USER#3,USER#2,nope,"",USER#2}', 'LIKES#USER#7');
EXECUTE txt_any('{}', 'LIKES#USER#7');
EXECUTE txt_ne('USER#1', 'LIKES#USER#7');
RESET plan_cache_mode;
DEALLOCATE txt_range;
DEALLOCATE txt_lt;
DEALLOCATE txt_any;
DEALLOCATE txt_ne;
DEALLOCATE txt_page;
RESET enable_seqscan;

-- 5. LIKE: semantics
SELECT 'FOLLOWS#USER#bob'::adjkey LIKE 'FOLLOWS#%' AS prefix,
	   'FOLLOWS#USER#bob'::adjkey LIKE '%bob' AS suffix,
	   'FOLLOWS#USER#bob'::adjkey LIKE '%USER%' AS infix,
	   'FOLLOWS#USER#bob'::adjkey LIKE 'FOLLOWS#USER#b_b' AS one_char,
	   'FOLLOWS#USER#bob'::adjkey LIKE 'FOLLOWS#USER#b_' AS one_char_short,
	   'FOLLOWS#USER#bob'::adjkey LIKE 'FOLLOWS#USER#bob' AS whole,
	   'FOLLOWS#USER#bob'::adjkey LIKE 'follows#%' AS case_matters,
	   'FOLLOWS#USER#bob'::adjkey NOT LIKE 'LIKES#%' AS not_like,
	   'a'::adjkey LIKE '%' AS percent_alone, 'a'::adjkey LIKE '' AS empty_pattern,
	   'a'::adjkey LIKE '%%%' AS percents, 'ab'::adjkey LIKE '_%_' AS at_least_two,
	   'abcabd'::adjkey LIKE '%ab_' AS backtracks, 'aaa'::adjkey LIKE '%a%a%a%a%' AS too_many;
-- '_' is one character, not one byte
SELECT k, k LIKE 'FOLLOWS#USER#_' AS one_char, k LIKE 'FOLLOWS#USER#__' AS two_chars
FROM (VALUES ('FOLLOWS#USER#é'::adjkey), ('FOLLOWS#USER#中'), ('FOLLOWS#USER#😀'), ('FOLLOWS#USER#éa')) v(k);
-- escapes: backslash by default, ESCAPE to choose another, ESCAPE '' for none
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#100\%' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#100\_' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#100_' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#a\_%' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#a\\b' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#100!%' ESCAPE '!' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#a\b' ESCAPE '' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#a%b' ESCAPE '' ORDER BY sk;
SELECT sk FROM txt_items WHERE sk LIKE 'TAG#\a\%\b' ORDER BY sk;
-- a pattern ending in the escape character is an error (22025)
SELECT pg_temp.err($$SELECT 'a'::adjkey LIKE 'a\'$$) AS trailing_escape;
SELECT pg_temp.err($$SELECT 'b'::adjkey LIKE 'a%\'$$) AS not_matching_either;
SELECT pg_temp.err($$SELECT adjkey_like_lower('FOLLOWS#\')$$) AS bound;

-- 6. LIKE and starts_with plans: a literal prefix is an index range
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk LIKE 'LIKES#%';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk LIKE 'LIKES#USER#1_';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk LIKE 'LIKES#USER#1';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk LIKE '%#USER#1';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk NOT LIKE 'LIKES#%';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#é' AND sk LIKE 'FOLLOWS#USER#é%';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'TAGS' AND sk LIKE 'TAG#100\%%';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'TAGS' AND sk LIKE 'TAG#100!%' ESCAPE '!';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND like(sk, 'LIKES#%');
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND starts_with(sk, 'LIKES#');
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND starts_with(sk, 'LIKES#'::adjkey);
EXPLAIN (COSTS OFF) SELECT pk FROM txt_items WHERE pk LIKE 'USER#3%' AND sk = 'LIKES#USER#1';
-- no literal prefix, or a pattern that matches everything: a filter
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk LIKE '%';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND starts_with(sk, '');

PREPARE txt_like_edges(text, text) AS
	SELECT sk FROM txt_items WHERE pk = $1 AND sk LIKE $2 ORDER BY sk;
PREPARE txt_starts(text, text) AS
	SELECT sk FROM txt_items WHERE pk = $1 AND starts_with(sk, $2) ORDER BY sk;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_like_edges('USER#1', 'LIKES#USER#2%');
EXPLAIN (COSTS OFF) EXECUTE txt_starts('USER#1', 'LIKES#USER#2');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_like_edges('USER#1', 'LIKES#USER#2%');
EXPLAIN (COSTS OFF) EXECUTE txt_starts('USER#1', 'LIKES#USER#2');
EXECUTE txt_like_edges('USER#1', 'LIKES#USER#2%');
EXECUTE txt_like_edges('USER#1', 'LIKES#USER#_');
EXECUTE txt_like_edges('USER#1', '%#USER#40');
EXECUTE txt_like_edges('USER#é', 'FOLLOWS#USER#_');
EXECUTE txt_like_edges('TAGS', 'TAG#a\%b');
EXECUTE txt_like_edges('TAGS', 'TAG#100%');
EXECUTE txt_like_edges('TAGS', '');
EXECUTE txt_like_edges('TAGS', NULL);
EXECUTE txt_starts('USER#é', 'FOLLOWS#USER#é');
EXECUTE txt_starts('TAGS', '');
SELECT pg_temp.err($$EXECUTE txt_like_edges('TAGS', 'TAG#\')$$) AS bad_pattern;
RESET plan_cache_mode;
DEALLOCATE txt_like_edges;
DEALLOCATE txt_starts;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- the bounds of a pattern that is a parameter
SELECT p, encode(adjkey_like_lower(p), 'escape') AS lower, encode(adjkey_like_upper(p), 'escape') AS upper
FROM (VALUES ('FOLLOWS#%'), ('FOLLOWS#USER#_x%'), ('%x'), (''), ('TAG#100\%%'), ('exact')) v(p);

-- 7. The same answers as with explicit casts (and as text LIKE under "C"),
-- with and without the index, for every edge case
CREATE TABLE txt_probes (p text);
INSERT INTO txt_probes VALUES (''), ('USER#1'), ('USER#10'), ('USER#é'), ('TAGS'),
	('FOLLOWS#USER#1'), ('LIKES#USER#40'), ('FOLLOWS#USER#中'), ('FOLLOWS#USER#é'),
	('TAG#100%'), (E'TAG#a\\b'), ('z'), (' '), ('USER#'), (repeat('z', 3000)), ('TAG#B');
CREATE TABLE txt_patterns (p text);
INSERT INTO txt_patterns VALUES ('%'), (''), ('FOLLOWS#%'), ('FOLLOWS#USER#1_'), ('%#USER#1'),
	('LIKES#USER#4%'), ('FOLLOWS#USER#_'), ('FOLLOWS#USER#__'), ('%é%'), ('_AG#%'),
	('TAG#100\%'), ('TAG#100\_'), ('TAG#a\\b'), ('TAG#a\%b'), ('TAG#a_b'), ('TAG#%b'),
	('%%USER%1%'), ('USER#1'), ('FOLLOWS#USER#1'), ('TAG#\B'), ('%😀'), ('FOLLOWS#USER#😀%');
CREATE FUNCTION pg_temp.answers() RETURNS TABLE (q text, p text, n bigint) LANGUAGE sql AS $$
	SELECT 'eq', p, (SELECT count(*) FROM txt_items WHERE pk = p OR sk = p) FROM txt_probes
	UNION ALL
	SELECT 'lt', p, (SELECT count(*) FROM txt_items WHERE sk < p) FROM txt_probes
	UNION ALL
	SELECT 'ge', p, (SELECT count(*) FROM txt_items WHERE pk >= p) FROM txt_probes
	UNION ALL
	SELECT 'like', p, (SELECT count(*) FROM txt_items WHERE sk LIKE p) FROM txt_patterns
	UNION ALL
	SELECT 'like_pk', p, (SELECT count(*) FROM txt_items WHERE pk = 'TAGS' AND sk LIKE p) FROM txt_patterns
	UNION ALL
	SELECT 'notlike', p, (SELECT count(*) FROM txt_items WHERE sk NOT LIKE p) FROM txt_patterns
	UNION ALL
	SELECT 'starts', p, (SELECT count(*) FROM txt_items WHERE starts_with(sk, p)) FROM txt_probes
$$;
CREATE FUNCTION pg_temp.oracle() RETURNS TABLE (q text, p text, n bigint) LANGUAGE sql AS $$
	SELECT 'eq', p, (SELECT count(*) FROM txt_items
					 WHERE pk::text COLLATE "C" = p OR sk::text COLLATE "C" = p) FROM txt_probes
	UNION ALL
	SELECT 'lt', p, (SELECT count(*) FROM txt_items WHERE sk::text COLLATE "C" < p) FROM txt_probes
	UNION ALL
	SELECT 'ge', p, (SELECT count(*) FROM txt_items WHERE pk::text COLLATE "C" >= p) FROM txt_probes
	UNION ALL
	SELECT 'like', p, (SELECT count(*) FROM txt_items WHERE sk::text COLLATE "C" LIKE p) FROM txt_patterns
	UNION ALL
	SELECT 'like_pk', p, (SELECT count(*) FROM txt_items WHERE pk = 'TAGS' AND sk::text COLLATE "C" LIKE p) FROM txt_patterns
	UNION ALL
	SELECT 'notlike', p, (SELECT count(*) FROM txt_items WHERE sk::text COLLATE "C" NOT LIKE p) FROM txt_patterns
	UNION ALL
	SELECT 'starts', p, (SELECT count(*) FROM txt_items WHERE starts_with(sk::text, p)) FROM txt_probes
$$;
-- with explicit casts, where the text is a key
SELECT count(*) AS probes,
	   count(*) FILTER (WHERE (SELECT count(*) FROM txt_items WHERE sk < p) =
							  (SELECT count(*) FROM txt_items WHERE sk < p::adjkey)) AS same_lt,
	   count(*) FILTER (WHERE (SELECT count(*) FROM txt_items WHERE pk = p) =
							  (SELECT count(*) FROM txt_items WHERE pk = p::adjkey)) AS same_eq,
	   count(*) FILTER (WHERE (SELECT count(*) FROM txt_items WHERE sk >= p AND sk <= p || 'z') =
							  (SELECT count(*) FROM txt_items WHERE sk BETWEEN p::adjkey AND (p || 'z')::adjkey)) AS same_between
FROM txt_probes WHERE p <> '' AND octet_length(p) <= 2048;
CREATE TEMP TABLE txt_oracle AS SELECT * FROM pg_temp.oracle();
CREATE TEMP TABLE txt_seq AS SELECT * FROM pg_temp.answers();
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE txt_idx AS SELECT * FROM pg_temp.answers();
SET plan_cache_mode = force_generic_plan;
CREATE TEMP TABLE txt_generic AS SELECT * FROM pg_temp.answers();
RESET plan_cache_mode;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT q, count(*) AS cases,
	   count(*) FILTER (WHERE s.n = o.n AND i.n = o.n AND g.n = o.n) AS same,
	   sum(o.n) AS rows
FROM txt_oracle o JOIN txt_seq s USING (q, p) JOIN txt_idx i USING (q, p) JOIN txt_generic g USING (q, p)
GROUP BY q ORDER BY q;
SELECT p, n FROM txt_oracle WHERE q = 'like' ORDER BY p COLLATE "C";

-- 8. Estimates: a LIKE prefix is as selective as ^@, what follows narrows it
CREATE FUNCTION pg_temp.estimate(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SELECT pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE 'FOLLOWS#%'$$) =
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk ^@ 'FOLLOWS#'$$) AS like_as_prefix,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE 'FOLLOWS#%'$$) BETWEEN 1600 / 3.0 AND 1600 * 3.0 AS half,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE 'FOLLOWS#USER#1_'$$) <
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE 'FOLLOWS#USER#1%'$$) AS narrower,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE 'NOPE#%'$$) < 10 AS none_few,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE 'TAG#a_b'$$) < 10 AS one_few,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk LIKE '%'$$) AS all_rows,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk NOT LIKE '%'$$) AS no_rows,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE sk NOT LIKE 'NOPE#%'$$) > 3000 AS not_like_most,
	   pg_temp.estimate($$SELECT * FROM txt_items WHERE pk = 'USER#1'::text$$) BETWEEN 80 / 3.0 AND 80 * 3.0 AS eq_text;

-- 9. Hash joins of keys with text, and hash partitions pruned by text
CREATE TABLE txt_wanted (k text);
INSERT INTO txt_wanted VALUES ('USER#1'), ('USER#2'), ('USER#é'), ('nope'), (''), (NULL);
ANALYZE txt_wanted;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT w.k, count(*) FROM txt_items t JOIN txt_wanted w ON t.pk = w.k GROUP BY w.k;
SELECT w.k, count(*) FROM txt_items t JOIN txt_wanted w ON t.pk = w.k GROUP BY w.k ORDER BY w.k COLLATE "C";
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT adjkey_hash('USER#é') = adjkey_text_hash('USER#é') AS hash_agrees,
	   adjkey_hash_extended('USER#é', 7) = adjkey_text_hash_extended('USER#é', 7) AS extended_agrees;
CREATE TABLE txt_parts (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE txt_parts_0 PARTITION OF txt_parts FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE txt_parts_1 PARTITION OF txt_parts FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE txt_parts_2 PARTITION OF txt_parts FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE txt_parts_3 PARTITION OF txt_parts FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO txt_parts SELECT pk, sk FROM txt_items;
PREPARE txt_part(text) AS SELECT count(*) FROM txt_parts WHERE pk = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_part('USER#7');
EXECUTE txt_part('USER#7');
RESET plan_cache_mode;
DEALLOCATE txt_part;
-- a text value goes to the partition of the equal key
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE (SELECT array_agg(DISTINCT tableoid) FROM txt_parts WHERE pk = k::text) =
							  (SELECT array_agg(DISTINCT tableoid) FROM txt_parts WHERE pk = k)) AS same_partition
FROM (SELECT DISTINCT pk AS k FROM txt_items) d;
EXPLAIN (COSTS OFF) SELECT count(*) FROM txt_parts WHERE pk = 'USER#7'::text;

-- 10. ^@ and its prefix: an untyped prefix is text, so the empty prefix
-- matches every key; a key as the prefix (a column, an adjkey parameter,
-- 'x'::adjkey) goes to adjkey ^@ adjkey_prefix, a domain over adjkey.
SELECT oid::regoperator AS operator, oprcode AS function FROM pg_operator
WHERE oprname = '^@' AND oprleft = 'adjkey'::regtype ORDER BY oid::regoperator::text COLLATE "C";
CREATE VIEW txt_prefix_resolved AS
SELECT sk ^@ '' AS untyped_empty,
	   sk ^@ 'FOLLOWS#' AS untyped,
	   sk ^@ NULL AS untyped_null,
	   sk ^@ ''::text AS typed_text,
	   sk ^@ 'FOLLOWS#'::varchar AS from_varchar,
	   sk ^@ 'FOLLOWS#'::adjkey AS typed_key,
	   sk ^@ pk AS key_column,
	   'FOLLOWS#USER#1' ^@ sk AS untyped_on_left
FROM txt_items;
SELECT replace(pg_get_viewdef('txt_prefix_resolved'::regclass), 'txt_items.', '') AS resolved;
SELECT count(*) AS rows,
	   count(*) FILTER (WHERE untyped_empty) AS untyped_empty,
	   count(*) FILTER (WHERE typed_text) AS typed_text,
	   count(*) FILTER (WHERE untyped) AS untyped,
	   count(*) FILTER (WHERE typed_key) AS typed_key,
	   count(*) FILTER (WHERE from_varchar) AS from_varchar,
	   count(*) FILTER (WHERE key_column) AS key_column,
	   count(*) FILTER (WHERE untyped_on_left) AS untyped_on_left,
	   count(untyped_null) AS untyped_null
FROM txt_prefix_resolved;
DROP VIEW txt_prefix_resolved;
SELECT (SELECT count(*) FROM txt_items WHERE sk ^@ '') AS op_untyped,
	   (SELECT count(*) FROM txt_items WHERE begins_with(sk, '')) AS begins_with,
	   (SELECT count(*) FROM txt_items WHERE starts_with(sk, '')) AS starts_with,
	   (SELECT count(*) FROM txt_items WHERE sk LIKE '%') AS "like",
	   (SELECT count(*) FROM txt_items) AS every_key;
-- a prefix typed as a key is still checked as a key
SELECT pg_temp.err($$SELECT count(*) FROM txt_items WHERE sk ^@ ''::adjkey$$) AS key_empty,
	   pg_temp.err($$SELECT count(*) FROM txt_items WHERE sk ^@ ''::adjkey_prefix$$) AS domain_empty,
	   pg_temp.err($$SELECT count(*) FROM txt_items WHERE sk = ''$$) AS eq_untyped_empty;
-- plans: a constant prefix is the index range, written either way; the
-- empty prefix needs none
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk ^@ 'LIKES#';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk ^@ 'LIKES#'::adjkey;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE pk = 'USER#1' AND sk ^@ '';
-- a key as the prefix, constant or column, is shown as the text form
-- (one expression for both spellings) or relabelled as the domain
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SET enable_seqscan = on;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE sk ^@ 'LIKES#'::adjkey;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_items WHERE sk ^@ pk;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SET enable_seqscan = off;
-- parameters: untyped ones are text now, adjkey and text ones keep their type
PREPARE txt_pre_untyped AS
	SELECT count(*), min(sk), max(sk) FROM txt_items WHERE pk = $1 AND sk ^@ $2;
PREPARE txt_pre_key(adjkey, adjkey) AS
	SELECT count(*), min(sk), max(sk) FROM txt_items WHERE pk = $1 AND sk ^@ $2;
PREPARE txt_pre_text(adjkey, text) AS
	SELECT count(*), min(sk), max(sk) FROM txt_items WHERE pk = $1 AND sk ^@ $2;
SELECT name, parameter_types FROM pg_prepared_statements
WHERE name LIKE 'txt_pre%' ORDER BY name;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_pre_untyped('USER#1', 'LIKES#USER#2');
EXPLAIN (COSTS OFF) EXECUTE txt_pre_untyped('USER#1', '');
EXPLAIN (COSTS OFF) EXECUTE txt_pre_key('USER#1', 'LIKES#USER#2');
EXECUTE txt_pre_untyped('USER#1', 'LIKES#USER#2');
EXECUTE txt_pre_untyped('USER#1', '');
EXECUTE txt_pre_key('USER#1', 'LIKES#USER#2');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_pre_untyped('USER#1', 'LIKES#USER#2');
EXPLAIN (COSTS OFF) EXECUTE txt_pre_key('USER#1', 'LIKES#USER#2');
EXPLAIN (COSTS OFF) EXECUTE txt_pre_text('USER#1', 'LIKES#USER#2');
EXECUTE txt_pre_untyped('USER#1', 'LIKES#USER#2');
EXECUTE txt_pre_untyped('USER#1', '');
EXECUTE txt_pre_untyped('USER#é', 'FOLLOWS#USER#é');
EXECUTE txt_pre_untyped('USER#1', NULL);
EXECUTE txt_pre_key('USER#1', 'LIKES#USER#2');
EXECUTE txt_pre_key('USER#é', 'FOLLOWS#USER#é');
EXECUTE txt_pre_text('USER#1', '');
-- an adjkey parameter is checked as a key, as before
SELECT pg_temp.err($$EXECUTE txt_pre_key('USER#1', '')$$) AS key_param_empty;
RESET plan_cache_mode;
DEALLOCATE txt_pre_untyped;
DEALLOCATE txt_pre_key;
DEALLOCATE txt_pre_text;
-- a key column of another table: a parameterized inner index scan
CREATE TABLE txt_prefix_keys (node adjkey, prefix adjkey);
INSERT INTO txt_prefix_keys VALUES ('USER#1', 'LIKES#USER#3'), ('USER#é', 'FOLLOWS#USER#é'),
	('USER#2', 'NOPE');
ANALYZE txt_prefix_keys;
RESET enable_seqscan;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT w.prefix, t.sk FROM txt_prefix_keys w JOIN txt_items t ON t.pk = w.node AND t.sk ^@ w.prefix;
SELECT w.prefix, count(*) FROM txt_prefix_keys w JOIN txt_items t ON t.pk = w.node AND t.sk ^@ w.prefix
GROUP BY 1 ORDER BY 1;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
SET enable_seqscan = off;
-- a partial index declared with one spelling of a prefix serves a query
-- written with the other (a dump of 0.2 writes the key form)
CREATE INDEX txt_items_likes_key ON txt_items (pk) WHERE sk ^@ 'LIKES#USER#1'::adjkey;
CREATE INDEX txt_items_follows_text ON txt_items (pk) WHERE sk ^@ 'FOLLOWS#USER#1';
EXPLAIN (COSTS OFF) SELECT pk FROM txt_items WHERE sk ^@ 'LIKES#USER#1' AND pk > 'USER#39';
EXPLAIN (COSTS OFF) SELECT pk FROM txt_items WHERE sk ^@ 'FOLLOWS#USER#1'::adjkey AND pk > 'USER#39';
DROP INDEX txt_items_likes_key, txt_items_follows_text;
RESET enable_seqscan;
-- row-level security: ^@ is leakproof in both forms and stays an index
-- condition under a policy
CREATE ROLE regress_txt_rls;
CREATE TABLE txt_rls (pk adjkey, sk adjkey, owner text, PRIMARY KEY (pk, sk));
INSERT INTO txt_rls SELECT pk, sk, CASE WHEN sk ^@ 'LIKES#' THEN 'regress_txt_rls' ELSE 'other' END
FROM txt_items;
ANALYZE txt_rls;
ALTER TABLE txt_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY txt_rls_own ON txt_rls USING (owner = current_user);
GRANT SELECT ON txt_rls, txt_prefix_keys TO regress_txt_rls;
SET ROLE regress_txt_rls;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM txt_rls WHERE pk = 'USER#1' AND sk ^@ 'LIKES#USER#2';
EXPLAIN (COSTS OFF) SELECT sk FROM txt_rls WHERE pk = 'USER#1' AND sk ^@ 'LIKES#USER#2'::adjkey;
SELECT count(*) AS own_rows, count(*) FILTER (WHERE sk ^@ '') AS own_empty_prefix,
	   count(*) FILTER (WHERE sk ^@ 'FOLLOWS#') AS others_rows
FROM txt_rls;
PREPARE txt_rls_key(adjkey, adjkey) AS SELECT count(*) FROM txt_rls WHERE pk = $1 AND sk ^@ $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE txt_rls_key('USER#1', 'LIKES#USER#2');
EXECUTE txt_rls_key('USER#1', 'LIKES#USER#2');
EXECUTE txt_rls_key('USER#1', 'FOLLOWS#USER#2');
RESET plan_cache_mode;
DEALLOCATE txt_rls_key;
RESET enable_seqscan;
RESET ROLE;
DROP TABLE txt_rls, txt_prefix_keys;
DROP ROLE regress_txt_rls;

DROP TABLE txt_items, txt_probes, txt_patterns, txt_wanted, txt_parts;

-- 11. Other database encodings: the UTF-8 bytes still decide
\set regdb :DBNAME
SELECT 'adjlist_text_win1252_' || pg_backend_pid() AS db_win1252,
	   'adjlist_text_sqlascii_' || pg_backend_pid() AS db_sqlascii \gset
CREATE DATABASE :"db_win1252" ENCODING 'WIN1252' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE :"db_sqlascii" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;

\c :db_win1252
SET client_encoding = 'UTF8';
CREATE EXTENSION adjlist;
-- in WIN1252 the euro sign is byte 0x80, below 'ÿ' (0xFF); in UTF-8 it is
-- U+20AC, above U+00FF: key and text compare by UTF-8
SELECT '€'::adjkey > 'ÿ'::text AS key_text_utf8_order,
	   '€'::text #># 'ÿ'::text AS text_text_utf8_order,
	   '€'::text COLLATE "C" > 'ÿ'::text COLLATE "C" AS text_local_order,
	   'PRICE#€5'::adjkey = 'PRICE#€5'::text AS eq,
	   'PRICE#€5'::adjkey LIKE 'PRICE#€_' AS "like",
	   'PRICE#€5'::adjkey LIKE 'PRICE#_5' AS like_one_char,
	   adjkey_hash('PRICE#€') = adjkey_text_hash('PRICE#€') AS hash_agrees;
SELECT encode(adjkey_like_lower('PRICE#€%'), 'hex') AS lower_utf8,
	   encode(adjkey_like_upper('PRICE#€%'), 'hex') AS upper_utf8;
-- ^@: a key prefix becomes the text form only when its bytes are the same
-- in text (ASCII here); the answers are the same either way
CREATE TABLE enc_prefix (k adjkey PRIMARY KEY);
INSERT INTO enc_prefix VALUES ('PRICE#€5'), ('PRICE#5'), ('PRICE#ÿ'), ('PRICE#€');
SELECT k, k ^@ 'PRICE#€' AS untyped, k ^@ 'PRICE#€'::adjkey AS key_prefix, k ^@ '' AS empty
FROM enc_prefix ORDER BY k;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM enc_prefix WHERE k ^@ 'PRICE#€'::adjkey;
EXPLAIN (COSTS OFF) SELECT * FROM enc_prefix WHERE k ^@ 'PRICE#'::adjkey;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT opcname, amvalidate(oid) FROM pg_opclass WHERE opcintype = 'adjkey'::regtype ORDER BY 1;

\c :db_sqlascii
SET client_encoding = 'SQL_ASCII';
CREATE EXTENSION adjlist;
-- SQL_ASCII text need not be UTF-8: it compares by its bytes, never an error
SELECT 'USER#a'::adjkey < E'USER#\xff'::text AS lt, 'USER#a'::adjkey = E'\xff'::text AS eq,
	   'USER#a'::adjkey LIKE E'USER#\xff%' AS "like", 'USER#a'::adjkey LIKE E'%\xff' AS like_suffix;

\c :regdb
DROP DATABASE :"db_win1252";
DROP DATABASE :"db_sqlascii";

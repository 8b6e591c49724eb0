--
-- randomized: ordering and begins_with of adjkey against a reference
-- computed outside the type (bytea comparison of the UTF-8 bytes)
--
SELECT setseed(0.4242);

-- random keys over an alphabet with characters below '#', the separator,
-- multi-byte characters of every length, and U+10FFFF; many keys are
-- prefixes of others
CREATE TABLE rnd (id int PRIMARY KEY, k adjkey NOT NULL);
CREATE FUNCTION pg_temp.rand_str(maxlen int) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg((ARRAY[' ', '!', '"', '#', '#', '#', '$', '0', '9', 'A', 'Z', 'a',
							 'z', '~', E'\u007F', 'é', 'ÿ', 'Ā', '中', E'\uFFFD', '😀',
							 E'\U0010FFFF', 'U', 'S', 'E', 'R'])[1 + floor(random() * 26)::int], '')
	FROM generate_series(1, 1 + floor(random() * maxlen)::int)
$$ VOLATILE;
INSERT INTO rnd SELECT g, pg_temp.rand_str(6) FROM generate_series(1, 3000) g;
-- extend some keys by a few characters, so that prefixes of keys are keys too
INSERT INTO rnd SELECT 3000 + id, k::text || pg_temp.rand_str(3) FROM rnd WHERE id % 3 = 0;
INSERT INTO rnd SELECT 5000 + id, k::text || '#' || pg_temp.rand_str(2) FROM rnd WHERE id % 5 = 0 AND id <= 3000;
SELECT count(*) AS keys, count(DISTINCT k) > 3000 AS many_distinct FROM rnd;

-- ordering: adjkey's sort equals the byte sort (ties broken by id)
WITH a AS (SELECT id, row_number() OVER (ORDER BY k, id) AS pos FROM rnd),
	 b AS (SELECT id, row_number() OVER (ORDER BY convert_to(k::text, 'UTF8'), id) AS pos FROM rnd)
SELECT count(*) AS misplaced FROM a JOIN b USING (id) WHERE a.pos <> b.pos;

-- every pairwise comparison of a sample agrees with bytea comparison
SELECT count(*) AS pairs,
	   count(*) FILTER (WHERE (x.k < y.k) <> (convert_to(x.k::text, 'UTF8') < convert_to(y.k::text, 'UTF8'))
						   OR (x.k = y.k) <> (convert_to(x.k::text, 'UTF8') = convert_to(y.k::text, 'UTF8'))
						   OR sign(adjkey_cmp(x.k, y.k)) <> sign(CASE WHEN convert_to(x.k::text, 'UTF8') < convert_to(y.k::text, 'UTF8') THEN -1
												WHEN convert_to(x.k::text, 'UTF8') > convert_to(y.k::text, 'UTF8') THEN 1 ELSE 0 END)) AS wrong
FROM rnd x JOIN rnd y ON x.id % 40 = 0 AND y.id % 37 = 0;

-- an index built over the keys (sort support, abbreviated keys) is in byte order
CREATE INDEX rnd_k ON rnd (k);
CREATE EXTENSION IF NOT EXISTS amcheck;
SELECT bt_index_check('rnd_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
WITH a AS (SELECT k, row_number() OVER () AS pos FROM (SELECT k FROM rnd ORDER BY k) s),
	 b AS (SELECT k, row_number() OVER (ORDER BY convert_to(k::text, 'UTF8')) AS pos FROM rnd)
SELECT count(*) AS misplaced_in_index FROM a JOIN b USING (pos) WHERE a.k <> b.k;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- prefixes: prefixes of keys (cut at every length), random strings, and ''
CREATE TABLE rnd_prefix (p text);
INSERT INTO rnd_prefix SELECT DISTINCT left(k::text, n)
FROM rnd, generate_series(0, 4) n WHERE rnd.id % 23 = 0;
INSERT INTO rnd_prefix SELECT pg_temp.rand_str(3) FROM generate_series(1, 100);
CREATE TEMP TABLE rnd_prefix_all AS SELECT * FROM rnd_prefix;
TRUNCATE rnd_prefix;
INSERT INTO rnd_prefix SELECT DISTINCT p FROM rnd_prefix_all;
SELECT count(*) > 300 AS enough_prefixes FROM rnd_prefix;

-- the reference: the first octet_length(p) bytes of the key equal p's bytes
CREATE TEMP TABLE ref AS
SELECT p, count(r.id) AS n
FROM rnd_prefix LEFT JOIN rnd r
	ON substring(convert_to(r.k::text, 'UTF8') FROM 1 FOR octet_length(convert_to(p, 'UTF8'))) = convert_to(p, 'UTF8')
GROUP BY p;

-- begins_with evaluated row by row (no index)
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
CREATE TEMP TABLE by_filter AS
SELECT p, (SELECT count(*) FROM rnd WHERE k ^@ p) AS n FROM rnd_prefix;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- begins_with as a btree range (generic plan, prefix as a parameter)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET plan_cache_mode = force_generic_plan;
PREPARE count_prefix(text) AS SELECT count(*) FROM rnd WHERE k ^@ $1;
EXPLAIN (COSTS OFF) EXECUTE count_prefix('a');
CREATE FUNCTION pg_temp.count_prefix(p text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE 'EXECUTE count_prefix(' || quote_literal(p) || ')' INTO n;
	RETURN n;
END $$;
CREATE TEMP TABLE by_index AS SELECT p, pg_temp.count_prefix(p) AS n FROM rnd_prefix;
RESET plan_cache_mode;
RESET enable_seqscan;
RESET enable_bitmapscan;

SELECT count(*) AS prefixes,
	   count(*) FILTER (WHERE ref.n <> f.n) AS filter_wrong,
	   count(*) FILTER (WHERE ref.n <> i.n) AS index_wrong,
	   count(*) FILTER (WHERE ref.n > 0) > 100 AS many_match
FROM ref JOIN by_filter f USING (p) JOIN by_index i USING (p);

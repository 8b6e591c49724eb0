-- Data of test/bench/keys.sh: the same pseudo-random keys in three tables
--   t_adj  (k adjkey)            bytewise, adjkey_ops
--   t_c    (k text COLLATE "C")  bytewise, text_ops under "C"
--   t_icu  (k text)              database default collation (ICU en-US)
-- and a table of prefixes (cut at # boundaries of existing keys) with a
-- precomputed exclusive upper bound for the hand-written text ranges.
--
-- psql variables: nkeys, nprefixes.  Deterministic: setseed() and a
-- serial plan (no parallel workers), so every run builds the same data.
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;

DROP TABLE IF EXISTS keys_src, t_adj, t_c, t_icu, prefixes;

-- Tag words, some multi-byte (2-, 3- and 4-byte UTF-8).
CREATE TEMP TABLE words AS
SELECT ARRAY['café', 'naïve', 'zürich', 'straße', 'élan', 'ñandú', 'smörgås',
			 'æble', 'øl', 'łódź', 'ελλάδα', 'москва', '東京', '日本語', '한국',
			 'emoji😀', 'pizza', 'sushi', 'rust', 'postgres'] AS w;

SELECT setseed(0.4242);

-- Shapes (share of keys):
--   USER#<u>                              20%   ~2% as USER#ü<u>
--   FOLLOWS#USER#<u>#USER#<v>             30%   100k users: ~3 per user
--   POST#<hex16>                          10%   50k posts
--   POST#<hex16>#COMMENT#<nnnn>           25%   ~5 comments per post
--   TAG#<word><n>#POST#<hex16>            15%   multi-byte tag words
CREATE UNLOGGED TABLE keys_src AS
SELECT id,
	   CASE
		   WHEN r < 0.20 THEN 'USER#' || CASE WHEN r < 0.004 THEN 'ü' ELSE '' END || u
		   WHEN r < 0.50 THEN 'FOLLOWS#USER#' || f || '#USER#' || u
		   WHEN r < 0.60 THEN 'POST#' || h
		   WHEN r < 0.85 THEN 'POST#' || h || '#COMMENT#' || lpad(c::text, 4, '0')
		   ELSE 'TAG#' || (SELECT w[1 + wi] FROM words) || wn || '#POST#' || h
	   END AS k
FROM (SELECT id,
			 random() AS r,
			 (random() * 9999999)::int AS u,
			 1 + (random() * 99999)::int AS f,
			 left(md5((random() * 50000)::int::text), 16) AS h,
			 (random() * 9999)::int AS c,
			 (random() * 19)::int AS wi,
			 (random() * 99)::int AS wn
	  FROM generate_series(1, :nkeys) AS id
	  OFFSET 0) g;

-- Same keys, same (random) physical order, in all three tables.
CREATE UNLOGGED TABLE t_adj (k adjkey NOT NULL);
CREATE UNLOGGED TABLE t_c   (k text COLLATE "C" NOT NULL);
CREATE UNLOGGED TABLE t_icu (k text NOT NULL);
INSERT INTO t_adj SELECT k::adjkey FROM keys_src ORDER BY id;
INSERT INTO t_c   SELECT k FROM keys_src ORDER BY id;
INSERT INTO t_icu SELECT k FROM keys_src ORDER BY id;

-- Prefixes of random existing keys, cut after 2..all parts (3..all for
-- FOLLOWS#USER#<u>#...), so each matches a handful of keys.
CREATE UNLOGGED TABLE prefixes AS
SELECT id, prefix,
	   -- exclusive upper bound in byte (= code point) order: the last
	   -- character bumped by one; prefixes end in ASCII here
	   left(prefix, -1) || chr(ascii(right(prefix, 1)) + 1) AS prefix_upper
FROM (SELECT p.id,
			 array_to_string(parts[1:minp + floor(r * (cardinality(parts) - minp + 1))::int], '#') AS prefix
	  FROM (SELECT id, random() AS r, 1 + floor(random() * :nkeys)::int AS src
			FROM generate_series(1, :nprefixes) AS id OFFSET 0) p
	  JOIN keys_src s ON s.id = p.src
	  CROSS JOIN LATERAL (SELECT string_to_array(s.k, '#') AS parts) a
	  CROSS JOIN LATERAL (SELECT CASE WHEN parts[1] = 'FOLLOWS' THEN 3 ELSE 2 END AS minp) m) x;

DO $$
BEGIN
	IF EXISTS (SELECT FROM prefixes WHERE ascii(right(prefix, 1)) >= 127) THEN
		RAISE EXCEPTION 'a prefix ends in a non-ASCII character';
	END IF;
END $$;

VACUUM ANALYZE t_adj, t_c, t_icu, prefixes, keys_src;

SELECT count(*) AS keys, count(DISTINCT k) AS distinct_keys,
	   count(*) FILTER (WHERE octet_length(k) > length(k)) AS multibyte_keys,
	   round(avg(octet_length(k)), 1) AS avg_bytes
FROM keys_src;
SELECT count(*) AS prefixes, count(DISTINCT prefix) AS distinct_prefixes,
	   round(avg(octet_length(prefix)), 1) AS avg_bytes
FROM prefixes;
SELECT k FROM keys_src ORDER BY id LIMIT 8;
SELECT prefix, prefix_upper FROM prefixes ORDER BY id LIMIT 5;

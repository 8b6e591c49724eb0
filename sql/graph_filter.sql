--
-- edge_filter: the graph functions follow, count and return only the edges
-- whose data contains the filter (jsonb @>), exactly what SQL's
-- "data @> filter" selects, on every read path: directly (a keys-only
-- index, whose in-edges take the base row's data; an index projecting
-- data; a write-sharded index) and through SQL (partitioned tables, with
-- and without projected data; a table whose key has a third column)
--
\set SHOW_CONTEXT never
SELECT setseed(0.3141);
CREATE TABLE fg (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
-- edges E# whose data has every shape: objects that match or not, nested
-- values, arrays, scalars, JSON null, SQL NULL
INSERT INTO fg
SELECT DISTINCT ON (a, b) ('N#' || a)::adjkey, ('E#N#' || b)::adjkey,
	   (ARRAY['{"c": "red"}', '{"c": "blue"}', '{"c": "red", "w": 2}', '{"c": ["red", "blue"]}',
			  '[{"c": "red"}]', '"red"', 'null', NULL, '{}', '{"c": {"d": 1}, "w": 1}',
			  '{"c": "red", "on": true}', '["red"]'])[1 + floor(random() * 12)::int]::jsonb
FROM (SELECT (power(random(), 1.5) * 120)::int AS a, (random() * 120)::int AS b
	  FROM generate_series(1, 1000)) x
ORDER BY a, b;
-- another edge type and items that are not edges
INSERT INTO fg SELECT 'N#' || g, 'F#N#' || (g * 7 % 120), jsonb_build_object('c', CASE WHEN g % 2 = 0 THEN 'red' ELSE 'blue' END)
FROM generate_series(0, 120, 3) g;
INSERT INTO fg SELECT 'N#' || g, 'PROFILE', '{"c": "red"}' FROM generate_series(0, 120, 5) g;
SELECT create_inverted_index('fg');
SELECT count(*) AS edges, count(*) FILTER (WHERE data @> '{"c": "red"}') AS red,
	   count(*) FILTER (WHERE data IS NULL) AS sql_null
FROM fg WHERE sk ^@ 'E#';

-- the same rows under every way of reading them
CREATE TABLE fgi (LIKE fg INCLUDING ALL);
INSERT INTO fgi SELECT * FROM fg;
SELECT create_inverted_index('fgi', include => '{data}');
CREATE TABLE fgs (LIKE fg INCLUDING ALL);
INSERT INTO fgs SELECT * FROM fg;
SELECT create_inverted_index('fgs', write_shards => 3);
CREATE TABLE fgp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE fgp_0 PARTITION OF fgp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE fgp_1 PARTITION OF fgp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO fgp SELECT * FROM fg;
SELECT create_inverted_index('fgp', partitions => 2);
CREATE TABLE fgpi (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE fgpi_0 PARTITION OF fgpi FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE fgpi_1 PARTITION OF fgpi FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO fgpi SELECT * FROM fg;
SELECT create_inverted_index('fgpi', include => '{data}');
-- a key of three columns: in-edges cannot find their base row by (pk, sk)
-- alone, and are read through SQL
CREATE TABLE fgk (pk adjkey, sk adjkey, v int DEFAULT 1, data jsonb, PRIMARY KEY (pk, sk, v));
INSERT INTO fgk (pk, sk, data) SELECT * FROM fg;
SELECT create_inverted_index('fgk');

CREATE TABLE tbls (tbl regclass);
INSERT INTO tbls VALUES ('fg'), ('fgi'), ('fgs'), ('fgp'), ('fgpi'), ('fgk');
CREATE TABLE filters (f jsonb);
INSERT INTO filters VALUES ('{"c": "red"}'), ('{"c": ["red"]}'), ('{}'), ('[]'), ('"red"'),
	('{"c": {"d": 1}}'), ('{"c": "red", "w": 2}'), ('{"nothing": 0}');
CREATE TABLE starts AS SELECT DISTINCT ('N#' || (g * 29 % 120))::adjkey AS s FROM generate_series(1, 16) g;

-- the reference: the edges a filter selects, and BFS over them
CREATE FUNCTION pg_temp.ref_edges(f jsonb) RETURNS TABLE (a adjkey, b adjkey) LANGUAGE sql AS $$
	SELECT pk, key_tail(sk, 1) FROM fg WHERE sk ^@ 'E#' AND data @> f
$$;
\i sql/ref_bfs.psql
CREATE TEMP TABLE ref AS
SELECT s, dir, f, r.node, r.depth FROM starts, filters, (VALUES ('out'), ('in'), ('both')) d(dir),
	 pg_temp.ref_depths(s, 3, dir, f) r;
CREATE INDEX ON ref (s, dir, f);
ANALYZE ref;

-- one hop, out and in: the rows of SQL, in order, with their data
SELECT tbl, count(*) AS calls,
	   sum(cardinality(ARRAY(SELECT sk FROM neighbors(tbl, s, 'E#', edge_filter => f)))) AS out_rows,
	   count(*) FILTER (WHERE
		   ARRAY(SELECT ROW(neighbor, pk, sk, data) FROM neighbors(tbl, s, 'E#', edge_filter => f))
		   IS DISTINCT FROM ARRAY(SELECT ROW(key_tail(sk, 1), pk, sk, data) FROM fg
								   WHERE pk = s AND sk ^@ 'E#' AND data @> f ORDER BY sk)) AS wrong_out,
	   count(*) FILTER (WHERE
		   ARRAY(SELECT ROW(neighbor, pk, sk, data) FROM reverse_neighbors(tbl, s, 'E#', edge_filter => f))
		   IS DISTINCT FROM ARRAY(SELECT ROW(pk, pk, sk, data) FROM fg
								   WHERE sk = ('E#' || s::text)::adjkey AND data @> f ORDER BY pk)) AS wrong_in,
	   count(*) FILTER (WHERE
		   ARRAY(SELECT neighbor FROM reverse_neighbors(tbl, s, 'E#', backward => true, edge_filter => f))
		   IS DISTINCT FROM ARRAY(SELECT pk FROM fg WHERE sk = ('E#' || s::text)::adjkey AND data @> f
								   ORDER BY pk DESC)) AS wrong_in_backward,
	   count(*) FILTER (WHERE
		   degree(tbl, s, 'E#', edge_filter => f)
		   <> (SELECT count(*) FROM fg WHERE pk = s AND sk ^@ 'E#' AND data @> f)
		OR degree(tbl, s, 'E#', 'in', edge_filter => f)
		   <> (SELECT count(*) FROM fg WHERE sk = ('E#' || s::text)::adjkey AND data @> f)) AS wrong_degree
FROM tbls, starts, filters
GROUP BY tbl ORDER BY tbl::text;

-- has_edge: the one edge, and whether its data contains the filter
SELECT tbl, count(*) AS edges,
	   count(*) FILTER (WHERE has_edge(tbl, e.pk, key_tail(e.sk, 1), 'E#', edge_filter => f)) AS matching,
	   count(*) FILTER (WHERE has_edge(tbl, e.pk, key_tail(e.sk, 1), 'E#', edge_filter => f)
						   IS DISTINCT FROM coalesce(e.data @> f, false)) AS wrong
FROM tbls, filters, (SELECT * FROM fg WHERE sk ^@ 'E#' AND pk <= 'N#3') e
GROUP BY tbl ORDER BY tbl::text;

-- a limit counts only the edges that pass, and pages with a filter are gap-free
CREATE FUNCTION pg_temp.paged(tbl regclass, node adjkey, rev boolean, f jsonb)
RETURNS adjkey[] LANGUAGE plpgsql AS $$
DECLARE
	result adjkey[] := '{}';
	last adjkey := NULL;
	page adjkey[];
BEGIN
	LOOP
		IF rev THEN
			SELECT array_agg(pk) INTO page FROM reverse_neighbors(tbl, node, 'E#', 2, last, edge_filter => f);
		ELSE
			SELECT array_agg(sk) INTO page FROM neighbors(tbl, node, 'E#', 2, last, edge_filter => f);
		END IF;
		EXIT WHEN page IS NULL;
		IF cardinality(page) > 2 THEN
			RAISE EXCEPTION 'a page of % rows', cardinality(page);
		END IF;
		result := result || page;
		last := page[cardinality(page)];
	END LOOP;
	RETURN result;
END $$;
SELECT tbl, rev, count(*) AS calls,
	   count(*) FILTER (WHERE pg_temp.paged(tbl, s, rev, f) IS DISTINCT FROM
		   CASE WHEN rev THEN ARRAY(SELECT pk FROM fg WHERE sk = ('E#' || s::text)::adjkey AND data @> f ORDER BY pk)
				ELSE ARRAY(SELECT sk FROM fg WHERE pk = s AND sk ^@ 'E#' AND data @> f ORDER BY sk) END) AS wrong
FROM tbls, starts, (VALUES ('{"c": "red"}'::jsonb), ('{}')) v(f), (VALUES (false), (true)) r(rev)
WHERE tbl <> 'fgk'::regclass
GROUP BY tbl, rev ORDER BY tbl::text, rev;
-- fgk's key (pk, sk, v) lets rows share (pk, sk): a start key of the two
-- would skip them, and is refused (0A000)
SELECT pg_temp.paged('fgk', 'N#1', false, '{}');
SELECT pg_temp.paged('fgk', 'N#1', true, '{}');

-- traverse and reachable_count = BFS over the filtered edges, every
-- direction, every path
SELECT tbl, dir, count(*) AS calls, sum((SELECT count(*) FROM ref r WHERE r.s = x.s AND r.dir = d.dir AND r.f = filters.f)) AS reached,
	   count(*) FILTER (WHERE
		   EXISTS (SELECT node, depth FROM traverse(tbl, x.s, 'E#', 3, d.dir, edge_filter => filters.f)
				   EXCEPT SELECT node, depth FROM ref r WHERE r.s = x.s AND r.dir = d.dir AND r.f = filters.f)
		OR EXISTS (SELECT node, depth FROM ref r WHERE r.s = x.s AND r.dir = d.dir AND r.f = filters.f
				   EXCEPT SELECT node, depth FROM traverse(tbl, x.s, 'E#', 3, d.dir, edge_filter => filters.f))) AS wrong,
	   count(*) FILTER (WHERE reachable_count(tbl, x.s, 'E#', 3, d.dir, edge_filter => filters.f)
						<> (SELECT count(*) FROM ref r WHERE r.s = x.s AND r.dir = d.dir AND r.f = filters.f)) AS wrong_count
FROM tbls, starts x, filters, (VALUES ('out'), ('in'), ('both')) d(dir)
GROUP BY tbl, dir ORDER BY tbl::text, dir;
-- a filter that leaves fewer nodes reachable than none
SELECT (SELECT count(*) FROM traverse('fg', 'N#1', 'E#', 3, 'both')) AS unfiltered,
	   (SELECT count(*) FROM traverse('fg', 'N#1', 'E#', 3, 'both', edge_filter => '{"c": "red"}')) AS red,
	   (SELECT count(*) FROM traverse('fg', 'N#1', 'E#', 3, 'both', edge_filter => '{"nothing": 0}')) AS none;
-- the paths traverse gives are made of edges that pass the filter
SELECT tbl, count(*) AS paths,
	   count(*) FILTER (WHERE EXISTS (SELECT 1 FROM generate_series(1, cardinality(path) - 1) i
									  WHERE NOT has_edge(tbl, path[i], path[i + 1], 'E#', edge_filter => '{"c": "red"}'))) AS bad
FROM tbls, starts, traverse(tbl, s, 'E#', 3, with_path => true, edge_filter => '{"c": "red"}')
GROUP BY tbl ORDER BY tbl::text;

-- shortest_path: the BFS distance over the filtered edges, both searches
-- (base table forward, index backward) filtered
SELECT tbl, dir, count(*) AS pairs, count(*) FILTER (WHERE p IS NOT NULL) AS found,
	   count(*) FILTER (WHERE (p IS NULL) <> (d IS NULL)) AS wrong_existence,
	   count(*) FILTER (WHERE cardinality(p) - 1 <> d) AS wrong_length,
	   count(*) FILTER (WHERE EXISTS (SELECT 1 FROM generate_series(1, cardinality(p) - 1) i
			WHERE NOT CASE dir WHEN 'out' THEN has_edge(tbl, p[i], p[i + 1], 'E#', edge_filter => f)
							   WHEN 'in' THEN has_edge(tbl, p[i + 1], p[i], 'E#', edge_filter => f)
							   ELSE has_edge(tbl, p[i], p[i + 1], 'E#', edge_filter => f)
									OR has_edge(tbl, p[i + 1], p[i], 'E#', edge_filter => f) END)) AS bad_steps
FROM tbls, (SELECT s, ('N#' || (h * 41 % 120))::adjkey AS t FROM starts, generate_series(1, 3) h) pr,
	 (VALUES ('{"c": "red"}'::jsonb), ('{}')) v(f), (VALUES ('out'), ('in'), ('both')) x(dir),
	 LATERAL (SELECT shortest_path(tbl, s, t, 'E#', 3, dir, edge_filter => f) AS p) sp,
	 LATERAL (SELECT (SELECT depth FROM ref r WHERE r.s = pr.s AND r.dir = x.dir AND r.f = v.f AND r.node = t) AS d) rd
WHERE s <> t
GROUP BY tbl, dir ORDER BY tbl::text, dir;

-- common_neighbors = INTERSECT of the filtered neighbor lists
SELECT tbl, count(*) AS pairs,
	   count(*) FILTER (WHERE EXISTS (SELECT * FROM common_neighbors(tbl, s, t, 'E#', edge_filter => f))) AS nonempty,
	   count(*) FILTER (WHERE ARRAY(SELECT * FROM common_neighbors(tbl, s, t, 'E#', edge_filter => f))
		   <> ARRAY(SELECT b FROM pg_temp.ref_edges(f) WHERE a = s INTERSECT SELECT b FROM pg_temp.ref_edges(f) WHERE a = t
					ORDER BY 1)) AS wrong_out,
	   count(*) FILTER (WHERE ARRAY(SELECT * FROM common_neighbors(tbl, s, t, 'E#', 'in', edge_filter => f))
		   <> ARRAY(SELECT a FROM pg_temp.ref_edges(f) WHERE b = s INTERSECT SELECT a FROM pg_temp.ref_edges(f) WHERE b = t
					ORDER BY 1)) AS wrong_in
FROM tbls, (SELECT s, ('N#' || (h * 13 % 40))::adjkey AS t FROM starts, generate_series(1, 4) h) pr,
	 (VALUES ('{"c": "red"}'::jsonb), ('{}')) v(f)
GROUP BY tbl ORDER BY tbl::text;

-- walk_ranked: the filter applies to every hop; scores are walks counted in SQL
SELECT tbl, count(*) AS starts,
	   count(*) FILTER (WHERE EXISTS (SELECT * FROM walk_ranked(tbl, s, '{E#,E#}', '{out,in}', edge_filter => f))) AS nonempty,
	   count(*) FILTER (WHERE ARRAY(SELECT ROW(node, score) FROM walk_ranked(tbl, s, '{E#,E#}', '{out,in}', edge_filter => f))
		   <> ARRAY(SELECT ROW(w.node, w.score) FROM (
					SELECT h2.a AS node, count(*) AS score
					FROM pg_temp.ref_edges(f) h1 JOIN pg_temp.ref_edges(f) h2 ON h2.b = h1.b
					WHERE h1.a = s AND h2.a <> s
					  AND h2.a NOT IN (SELECT b FROM pg_temp.ref_edges(f) WHERE a = s)
					GROUP BY h2.a) w
					ORDER BY w.score DESC, w.node)) AS wrong
FROM tbls, starts, (VALUES ('{"c": "red"}'::jsonb), ('{}')) v(f)
GROUP BY tbl ORDER BY tbl::text;

-- NULL is no filter; the arguments of 0.2 keep their places
SELECT count(*) FILTER (WHERE ARRAY(SELECT sk FROM neighbors('fg', s, 'E#', edge_filter => NULL))
							  <> ARRAY(SELECT sk FROM neighbors('fg', s, 'E#'))) AS null_filter_differs,
	   count(*) FILTER (WHERE reachable_count('fg', s, 'E#', 2, 'both', '', false, NULL)
							  <> reachable_count('fg', s, 'E#', 2, 'both')) AS null_filter_differs_bfs,
	   count(*) FILTER (WHERE degree('fg', s, 'E#', 'in', '', false)
							  <> (SELECT count(*) FROM fg WHERE sk = ('E#' || s::text)::adjkey)
						   OR degree('fg', s, 'E#', 'in', '', false, '{"c": "red"}')
							  <> (SELECT count(*) FROM fg WHERE sk = ('E#' || s::text)::adjkey
								  AND data @> '{"c": "red"}')) AS positional
FROM starts;
-- the functions that were STRICT still give NULL for a NULL argument
SELECT degree('fg', NULL, 'E#') IS NULL AS degree_null, has_edge('fg', 'N#1', NULL, 'E#') IS NULL AS has_edge_null,
	   reachable_count('fg', 'N#1', 'E#', NULL) IS NULL AS reachable_null,
	   shortest_path('fg', 'N#1', 'N#2', NULL) IS NULL AS path_null,
	   degree('fg', 'N#1', 'E#', edge_filter => NULL) = degree('fg', 'N#1', 'E#') AS filter_null_is_none;
-- other edge conventions: the filter applies to the edges of the prefix
SELECT ARRAY(SELECT neighbor FROM neighbors('fg', 'N#6', 'F#', edge_filter => '{"c": "red"}')) AS f_red,
	   ARRAY(SELECT neighbor FROM neighbors('fg', 'N#6', 'F#', edge_filter => '{"c": "blue"}')) AS f_blue,
	   ARRAY(SELECT neighbor FROM neighbors('fg', 'N#3', 'F', target_prefix => 'X#', edge_filter => '{"c": "blue"}')) AS x_blue,
	   ARRAY(SELECT neighbor FROM reverse_neighbors('fg', 'N#42', 'F#', edge_filter => '{"c": "red"}')) AS f_in;

-- a table without a jsonb column "data": a filter is refused (42703)
CREATE TABLE nodata (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO nodata VALUES ('N#1', 'E#N#2');
SELECT create_inverted_index('nodata');
SELECT neighbor FROM neighbors('nodata', 'N#1', 'E#');
SELECT neighbor FROM neighbors('nodata', 'N#1', 'E#', edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT reachable_count('nodata', 'N#1', 'E#', 3, edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT degree('nodata', 'N#2', 'E#', 'in', edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE textdata (pk adjkey, sk adjkey, data text, PRIMARY KEY (pk, sk));
SELECT * FROM traverse('textdata', 'N#1', 'E#', edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE

-- a filter reads the data: a role that may read only the keys may not filter (42501)
CREATE ROLE regress_filter_keys;
GRANT SELECT (pk, sk) ON fg TO regress_filter_keys;
SET ROLE regress_filter_keys;
SELECT degree('fg', 'N#1', 'E#') >= 0 AS keys_only_ok, reachable_count('fg', 'N#1', 'E#', 2) >= 0 AS bfs_ok;
SELECT degree('fg', 'N#1', 'E#', edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT reachable_count('fg', 'N#1', 'E#', 2, edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE
SELECT has_edge('fg', 'N#1', 'N#2', 'E#', edge_filter => '{}');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP OWNED BY regress_filter_keys;
DROP ROLE regress_filter_keys;

DROP TABLE fg, fgi, fgs, fgp, fgpi, fgk, tbls, filters, starts, nodata, textdata;

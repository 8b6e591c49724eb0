--
-- property tests on a random graph: the graph functions against answers
-- computed in plain SQL, on the direct path (a plain table) and on the SPI
-- path (a partitioned copy)
--
SELECT setseed(0.2718);
CREATE TABLE rg (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO rg
SELECT DISTINCT 'N#' || (power(random(), 2) * 300)::int, 'E#N#' || (random() * 300)::int, NULL::jsonb
FROM generate_series(1, 1500)
ON CONFLICT DO NOTHING;
-- some other edge types and items that are not edges
INSERT INTO rg SELECT 'N#' || g, 'PROFILE', '{}' FROM generate_series(0, 300, 7) g;
INSERT INTO rg SELECT 'N#' || g, 'F#N#' || (g * 7 % 300), NULL FROM generate_series(0, 300, 3) g
	ON CONFLICT DO NOTHING;
SELECT create_inverted_index('rg');
-- counted rows: big levels of reachable_count and walk_ranked are then
-- read by one pass over the index instead of a descent per node
ANALYZE rg, rg_inverted;
SELECT count(*) > 1000 AS many_edges FROM rg WHERE sk ^@ 'E#';

-- the same graph, partitioned: graph functions take the SPI path
CREATE TABLE rgp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE rgp_0 PARTITION OF rgp FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE rgp_1 PARTITION OF rgp FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE rgp_2 PARTITION OF rgp FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO rgp SELECT * FROM rg;
SELECT create_inverted_index('rgp', partitions => 2);

-- the same graph again, never counted (no VACUUM, no ANALYZE): its levels
-- are read by a descent per node, the big ones in the key order of the
-- nodes' partitions
CREATE TABLE rgs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))
	WITH (autovacuum_enabled = false);
SELECT create_inverted_index('rgs');
ALTER TABLE rgs_inverted SET (autovacuum_enabled = false);
INSERT INTO rgs SELECT * FROM rg;
SELECT c.relname, c.reltuples FROM pg_class c
WHERE c.oid IN ('rgs_pkey'::regclass, 'rgs_inverted_pkey'::regclass) ORDER BY 1;

CREATE TABLE starts AS SELECT DISTINCT ('N#' || (g * 37 % 300))::adjkey AS s FROM generate_series(1, 25) g;

-- the reference: BFS depths by a recursive CTE, per direction
CREATE FUNCTION pg_temp.ref_edges(f jsonb) RETURNS TABLE (a adjkey, b adjkey) LANGUAGE sql AS $$
	SELECT pk, key_tail(sk, 1) FROM rg WHERE sk ^@ 'E#'
$$;
\i sql/ref_bfs.psql

-- the reference answers, computed once per start and direction
CREATE TEMP TABLE ref3 AS
SELECT s, dir, r.node, r.depth FROM starts, (VALUES ('out'), ('in'), ('both')) d(dir),
	 pg_temp.ref_depths(s, 3, dir) r;
CREATE TEMP TABLE ref4 AS
SELECT s, dir, r.node, r.depth FROM starts, (VALUES ('out'), ('in'), ('both')) d(dir),
	 pg_temp.ref_depths(s, 4, dir) r;
CREATE INDEX ON ref3 (s, dir);
CREATE INDEX ON ref4 (s, dir, node);
ANALYZE ref3, ref4;

-- traverse = the recursive CTE, for every start, direction and both paths
SELECT dir, tbl, count(*) AS starts,
	   sum((SELECT count(*) FROM ref3 r WHERE r.s = x.s AND r.dir = d.dir)) AS reached,
	   count(*) FILTER (WHERE
		   EXISTS (SELECT node, depth FROM traverse(tbl, x.s, 'E#', 3, d.dir)
				   EXCEPT SELECT node, depth FROM ref3 r WHERE r.s = x.s AND r.dir = d.dir)
		OR EXISTS (SELECT node, depth FROM ref3 r WHERE r.s = x.s AND r.dir = d.dir
				   EXCEPT SELECT node, depth FROM traverse(tbl, x.s, 'E#', 3, d.dir))) AS wrong,
	   count(*) FILTER (WHERE reachable_count(tbl, x.s, 'E#', 3, d.dir)
						<> (SELECT count(*) FROM ref3 r WHERE r.s = x.s AND r.dir = d.dir)) AS wrong_count
FROM starts x, (VALUES ('out'), ('in'), ('both')) d(dir), (VALUES ('rg'::regclass), ('rgp'), ('rgs')) t(tbl)
GROUP BY dir, tbl ORDER BY dir, tbl::text;

-- a limit stops the search at the first lim nodes in BFS order: the same
-- rows (node, depth, path), in the same order, as the head of the
-- unlimited traversal, on both paths; limits of 1, 5 and 40 end inside and
-- past the first batch of 32 neighbors that the search adds at a time
SELECT lim, count(*) AS searches,
	   count(*) FILTER (WHERE n_all > lim) AS cut,
	   count(*) FILTER (WHERE limited IS DISTINCT FROM head) AS differ
FROM (SELECT l.lim,
			 (SELECT count(*) FROM traverse(t.tbl, s, 'E#', 3, d.dir)) AS n_all,
			 ARRAY(SELECT ROW(node, depth, path) FROM traverse(t.tbl, s, 'E#', 3, d.dir, lim => l.lim, with_path => true)) AS limited,
			 ARRAY(SELECT ROW(node, depth, path) FROM traverse(t.tbl, s, 'E#', 3, d.dir, with_path => true) LIMIT l.lim) AS head
	  FROM starts, (VALUES ('out'), ('both')) d(dir), (VALUES (1), (5), (40)) l(lim),
		   (VALUES ('rg'::regclass), ('rgp')) t(tbl)) w
GROUP BY lim ORDER BY lim;

-- walk_ranked: the same ranking on both paths (levels by one pass over
-- the index on rg, through SQL on rgp, by sorted descents on rgs)
SELECT dirs, count(*) AS starts,
	   count(*) FILTER (WHERE EXISTS (SELECT * FROM walk_ranked('rg', s, '{E#,E#,E#}', dirs))) AS nonempty,
	   count(*) FILTER (WHERE ARRAY(SELECT ROW(node, score) FROM walk_ranked('rg', s, '{E#,E#,E#}', dirs))
						  IS DISTINCT FROM
						  ARRAY(SELECT ROW(node, score) FROM walk_ranked('rgp', s, '{E#,E#,E#}', dirs))) AS differ,
	   count(*) FILTER (WHERE ARRAY(SELECT ROW(node, score) FROM walk_ranked('rg', s, '{E#,E#,E#}', dirs))
						  IS DISTINCT FROM
						  ARRAY(SELECT ROW(node, score) FROM walk_ranked('rgs', s, '{E#,E#,E#}', dirs))) AS differ_uncounted
FROM starts, (VALUES ('{out,out,out}'::text[]), ('{out,in,both}'), ('{in,in,out}')) d(dirs)
GROUP BY dirs ORDER BY dirs;

-- a limit keeps the best nodes in one pass (a heap, not a sort of all):
-- the same rows, in the same order, as the head of the whole ranking, on
-- both paths, ties at the cut included
SELECT lim, count(*) AS walks,
	   count(*) FILTER (WHERE n_all > lim) AS cut,
	   count(*) FILTER (WHERE limited IS DISTINCT FROM head) AS differ
FROM (SELECT l.lim, t.tbl,
			 (SELECT count(*) FROM walk_ranked(t.tbl, s, '{E#,E#}', '{out,out}')) AS n_all,
			 ARRAY(SELECT ROW(node, score) FROM walk_ranked(t.tbl, s, '{E#,E#}', '{out,out}', lim => l.lim)) AS limited,
			 ARRAY(SELECT ROW(node, score) FROM walk_ranked(t.tbl, s, '{E#,E#}', '{out,out}') LIMIT l.lim) AS head
	  FROM starts, (VALUES (1), (3), (10)) l(lim), (VALUES ('rg'::regclass), ('rgp')) t(tbl)) w
GROUP BY lim ORDER BY lim;

-- paths returned by traverse are real paths of the right length
SELECT count(*) AS paths,
	   count(*) FILTER (WHERE cardinality(path) <> depth + 1
						   OR path[1] <> s OR path[cardinality(path)] <> node
						   OR EXISTS (SELECT 1 FROM generate_series(1, cardinality(path) - 1) i
									  WHERE NOT has_edge('rg', path[i], path[i + 1], 'E#'))) AS bad
FROM starts, traverse('rg', s, 'E#', 3, with_path => true);

-- shortest_path: its length is the BFS distance; NULL exactly when the
-- target is not within max_depth; every step is an edge
CREATE TEMP TABLE pairs AS
SELECT s, ('N#' || (h * 53 % 300))::adjkey AS t FROM starts, generate_series(1, 8) h;
SELECT tbl, dir, count(*) AS pairs,
	   count(*) FILTER (WHERE p IS NOT NULL) AS found,
	   count(*) FILTER (WHERE (p IS NULL) <> (d IS NULL AND s <> t)) AS wrong_existence,
	   count(*) FILTER (WHERE p IS NOT NULL AND s <> t AND cardinality(p) - 1 <> d) AS wrong_length,
	   count(*) FILTER (WHERE p IS NOT NULL AND (p[1] <> s OR p[cardinality(p)] <> t
		   OR EXISTS (SELECT 1 FROM generate_series(1, cardinality(p) - 1) i
					  WHERE NOT CASE dir WHEN 'out' THEN has_edge('rg', p[i], p[i + 1], 'E#')
										 WHEN 'in' THEN has_edge('rg', p[i + 1], p[i], 'E#')
										 ELSE has_edge('rg', p[i], p[i + 1], 'E#')
											  OR has_edge('rg', p[i + 1], p[i], 'E#') END))) AS bad_steps
FROM pairs, (VALUES ('out'), ('in'), ('both')) d(dir), (VALUES ('rg'::regclass), ('rgp')) x(tbl),
	 LATERAL (SELECT shortest_path(tbl, s, t, 'E#', 4, dir) AS p) sp,
	 LATERAL (SELECT depth AS d FROM ref4 r WHERE r.s = pairs.s AND r.dir = d.dir AND r.node = t) rd
	 RIGHT JOIN LATERAL (SELECT 1) one ON true
GROUP BY tbl, dir ORDER BY tbl::text, dir;

-- common_neighbors = INTERSECT
SELECT count(*) AS pairs,
	   count(*) FILTER (WHERE
		   EXISTS (SELECT * FROM common_neighbors('rg', s, t, 'E#')
				   EXCEPT (SELECT key_tail(sk, 1) FROM rg WHERE pk = s AND sk ^@ 'E#'
						   INTERSECT SELECT key_tail(sk, 1) FROM rg WHERE pk = t AND sk ^@ 'E#'))
		OR EXISTS ((SELECT key_tail(sk, 1) FROM rg WHERE pk = s AND sk ^@ 'E#'
					INTERSECT SELECT key_tail(sk, 1) FROM rg WHERE pk = t AND sk ^@ 'E#')
				   EXCEPT SELECT * FROM common_neighbors('rg', s, t, 'E#'))) AS wrong,
	   count(*) FILTER (WHERE EXISTS (SELECT * FROM common_neighbors('rg', s, t, 'E#'))) AS nonempty,
	   count(*) FILTER (WHERE
		   ARRAY(SELECT * FROM common_neighbors('rg', s, t, 'E#', 'in'))
		   <> ARRAY(SELECT pk FROM rg WHERE sk = ('E#' || s::text)::adjkey
					INTERSECT SELECT pk FROM rg WHERE sk = ('E#' || t::text)::adjkey ORDER BY 1)) AS wrong_in
FROM pairs;

-- the SQL read path (partitioned copy) gives the same common neighbors,
-- in the same order, in every direction
SELECT count(*) AS pairs,
	   count(*) FILTER (WHERE ARRAY(SELECT * FROM common_neighbors('rg', s, t, 'E#', d))
						   <> ARRAY(SELECT * FROM common_neighbors('rgp', s, t, 'E#', d))) AS differ,
	   count(*) FILTER (WHERE ARRAY(SELECT * FROM common_neighbors('rg', s, t, 'E#', d))
						   <> ARRAY(SELECT x FROM (SELECT * FROM common_neighbors('rg', s, t, 'E#', d)) c(x)
									ORDER BY convert_to(x::text, 'UTF8'))) AS unordered
FROM pairs, (VALUES ('out'), ('in'), ('both')) v(d);

-- pagination: pages of 3 concatenated equal the unpaginated result, in
-- both orders, out and in, on both paths
CREATE FUNCTION pg_temp.paged(tbl regclass, node adjkey, rev boolean, back boolean)
RETURNS adjkey[] LANGUAGE plpgsql AS $$
DECLARE
	result adjkey[] := '{}';
	last adjkey := NULL;
	page adjkey[];
BEGIN
	LOOP
		IF rev THEN
			SELECT array_agg(pk), array_agg(pk)
			  INTO page, page FROM reverse_neighbors(tbl, node, 'E#', 3, last, back);
		ELSE
			SELECT array_agg(sk) INTO page FROM neighbors(tbl, node, 'E#', 3, last, back);
		END IF;
		EXIT WHEN page IS NULL;
		result := result || page;
		last := page[cardinality(page)];
	END LOOP;
	RETURN result;
END $$;
SELECT tbl, rev, back, count(*) AS nodes,
	   count(*) FILTER (WHERE pg_temp.paged(tbl, s, rev, back) IS DISTINCT FROM
		   coalesce(CASE WHEN rev THEN
			   ARRAY(SELECT pk FROM rg WHERE sk = ('E#' || s::text)::adjkey ORDER BY
					 CASE WHEN back THEN convert_to(pk::text, 'UTF8') END DESC,
					 convert_to(pk::text, 'UTF8'))
		   ELSE
			   ARRAY(SELECT sk FROM rg WHERE pk = s AND sk ^@ 'E#' ORDER BY
					 CASE WHEN back THEN convert_to(sk::text, 'UTF8') END DESC,
					 convert_to(sk::text, 'UTF8'))
		   END, '{}')) AS wrong
FROM starts, (VALUES (false), (true)) r(rev), (VALUES (false), (true)) b(back),
	 (VALUES ('rg'::regclass), ('rgp')) x(tbl)
GROUP BY tbl, rev, back ORDER BY tbl::text, rev, back;

-- query(): pages through a partition the same way
CREATE FUNCTION pg_temp.query_paged(node adjkey, back boolean) RETURNS adjkey[] LANGUAGE plpgsql AS $$
DECLARE
	result adjkey[] := '{}';
	last jsonb := NULL;
	r record;
	n int;
BEGIN
	LOOP
		n := 0;
		FOR r IN SELECT * FROM query('rg', node, 'begins_with', 'E#', NULL, back, 2, last) LOOP
			result := result || r.sort_key;
			last := r.key;
			n := n + 1;
		END LOOP;
		EXIT WHEN n = 0;
	END LOOP;
	RETURN result;
END $$;
SELECT count(*) AS nodes,
	   count(*) FILTER (WHERE pg_temp.query_paged(s, false)
						<> ARRAY(SELECT sk FROM neighbors('rg', s, 'E#'))) AS wrong_forward,
	   count(*) FILTER (WHERE pg_temp.query_paged(s, true)
						<> ARRAY(SELECT sk FROM neighbors('rg', s, 'E#', backward => true))) AS wrong_backward
FROM starts;
-- (the next suites make tables of their own names)
DROP TABLE starts;

-- hubs: a scan of more than 256 edges tests its partition in C from the
-- 256th on, no longer by the btree's scan key (graph_scan_direct.c:
-- PART_IN_C_AFTER), and stops at the next partition ('H#10' and 'T#10'
-- sort right after 'H#1' and 'T#1'); common_neighbors of one direction
-- merges two streams of edges (graph_rank.c: common_streamed).  Other
-- prefixes sort before and after the hubs' E# edges.
CREATE TABLE hubs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO hubs SELECT 'H#' || h, 'E#N#' || n, NULL
FROM generate_series(1, 3) h, generate_series(1, 1200) n
WHERE (h = 1 AND n % 2 = 0) OR (h = 2 AND n % 3 = 0) OR (h = 3 AND n IN (1, 10));
INSERT INTO hubs SELECT 'H#10', 'E#N#' || n, NULL FROM generate_series(1, 1200, 5) n;
INSERT INTO hubs SELECT 'H#' || h, p || 'N#' || n, NULL
FROM generate_series(1, 2) h, generate_series(1, 5) n, (VALUES ('A#'), ('E'), ('F#')) v(p);
INSERT INTO hubs SELECT 'S#' || k, 'E#T#' || t, NULL
FROM generate_series(1, 700) k, (VALUES (1), (2), (10)) v(t)
WHERE t = 1 OR (t = 2 AND k % 3 = 0) OR (t = 10 AND k % 7 = 0);
SELECT create_inverted_index('hubs');
VACUUM (ANALYZE) hubs, hubs_inverted;
CREATE FUNCTION pg_temp.hub_checks() RETURNS TABLE (check_name text, ok boolean)
LANGUAGE sql AS $$
	SELECT 'out-edges', ARRAY(SELECT neighbor FROM neighbors('hubs', 'H#1', 'E#'))
		= ARRAY(SELECT key_tail(sk, 1) FROM hubs WHERE pk = 'H#1' AND sk ^@ 'E#'
				ORDER BY convert_to(sk::text, 'UTF8'))
	UNION ALL
	SELECT 'out-edges backward', ARRAY(SELECT neighbor FROM neighbors('hubs', 'H#1', 'E#', backward => true))
		= ARRAY(SELECT key_tail(sk, 1) FROM hubs WHERE pk = 'H#1' AND sk ^@ 'E#'
				ORDER BY convert_to(sk::text, 'UTF8') DESC)
	UNION ALL
	SELECT 'in-edges', ARRAY(SELECT neighbor FROM reverse_neighbors('hubs', 'T#1', 'E#'))
		= ARRAY(SELECT pk FROM hubs WHERE sk = 'E#T#1' ORDER BY convert_to(pk::text, 'UTF8'))
	UNION ALL
	SELECT 'common out', ARRAY(SELECT * FROM common_neighbors('hubs', 'H#1', 'H#2', 'E#'))
		= ARRAY(SELECT key_tail(sk, 1) FROM hubs WHERE pk = 'H#1' AND sk ^@ 'E#'
				INTERSECT SELECT key_tail(sk, 1) FROM hubs WHERE pk = 'H#2' AND sk ^@ 'E#'
				ORDER BY 1)
	UNION ALL
	SELECT 'common out, b ends first', ARRAY(SELECT * FROM common_neighbors('hubs', 'H#1', 'H#3', 'E#'))
		= '{N#10}'
	UNION ALL
	SELECT 'common in', ARRAY(SELECT * FROM common_neighbors('hubs', 'T#1', 'T#2', 'E#', 'in'))
		= ARRAY(SELECT pk FROM hubs WHERE sk = 'E#T#1'
				INTERSECT SELECT pk FROM hubs WHERE sk = 'E#T#2' ORDER BY 1)
	UNION ALL
	SELECT 'common both', ARRAY(SELECT * FROM common_neighbors('hubs', 'H#1', 'H#10', 'E#', 'both'))
		= ARRAY(SELECT key_tail(sk, 1) FROM hubs WHERE pk = 'H#1' AND sk ^@ 'E#'
				INTERSECT SELECT key_tail(sk, 1) FROM hubs WHERE pk = 'H#10' AND sk ^@ 'E#'
				ORDER BY 1)
$$;
SELECT * FROM pg_temp.hub_checks();
-- the same in a SERIALIZABLE transaction (the btree keeps its scan key)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT bool_and(ok) AS serializable_ok FROM pg_temp.hub_checks();
COMMIT;
-- adjlist.max_visited counts the first node's neighbors, read to their
-- end even when the second node's end first, and not the second's
SET adjlist.max_visited = 599;
SELECT count(*) FROM common_neighbors('hubs', 'H#1', 'H#2', 'E#');
SELECT count(*) FROM common_neighbors('hubs', 'H#1', 'H#3', 'E#');
SELECT count(*) FROM common_neighbors('hubs', 'T#1', 'T#2', 'E#', 'in');
SELECT count(*) AS b_not_counted FROM common_neighbors('hubs', 'H#3', 'H#1', 'E#');
SET adjlist.max_visited = 600;
SELECT count(*) AS at_the_limit FROM common_neighbors('hubs', 'H#1', 'H#2', 'E#');
RESET adjlist.max_visited;
DROP TABLE hubs;

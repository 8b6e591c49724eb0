--
-- Time to live and the payload column in the graph functions: an expired
-- edge is not followed, counted or returned by any of them (out and in,
-- one hop and many, under row-level security, on a write-sharded index),
-- exactly as if it had been swept; the payload column named by
-- set_payload_column() is the edges' data (returned, filtered, weighted).
--
SET client_min_messages = warning;
CREATE SCHEMA ttlg;
SET search_path = ttlg, public;

-- a social graph where some follows have expired; "live" holds the same
-- graph without the expired edges, the answer every function must give
CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, until timestamptz, PRIMARY KEY (pk, sk));
SELECT set_ttl('g', 'until');
SELECT create_inverted_index('g', include => '{data}');
INSERT INTO g
SELECT 'USER#' || a, 'FOLLOWS#USER#' || b, jsonb_build_object('w', (a * 7 + b) % 5 + 1, 'on', (a + b) % 2 = 0),
	   CASE WHEN (a * 31 + b) % 4 = 0 THEN now() - interval '1 minute'
			WHEN (a * 31 + b) % 4 = 1 THEN now() + interval '1 hour' END
FROM generate_series(1, 40) a, generate_series(1, 40) b
WHERE a <> b AND (a * 13 + b * 7) % 9 = 0;
INSERT INTO g VALUES ('USER#1', 'PROFILE', '{"name": "one"}', now() - interval '1 day');
CREATE TABLE live (pk adjkey, sk adjkey, data jsonb, until timestamptz, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('live', include => '{data}');
INSERT INTO live SELECT * FROM g WHERE until IS NULL OR until > now();
SELECT count(*) FILTER (WHERE until <= now()) > 20 AS some_expired,
	   count(*) FILTER (WHERE until IS NULL OR until > now()) > 60 AS some_live
FROM g;

-- every function, on g and on live, from every node: the same answers
CREATE FUNCTION answers(t regclass) RETURNS TABLE (fn text, node text, answer text)
LANGUAGE sql AS $$
	SELECT 'neighbors', n::text, (SELECT string_agg(neighbor::text || coalesce(data::text, ''), ',' ORDER BY sk)
		FROM neighbors(t, ('USER#' || n)::adjkey, 'FOLLOWS#'))
	FROM generate_series(1, 40) n
	UNION ALL
	SELECT 'reverse', n::text, (SELECT string_agg(neighbor::text || coalesce(data::text, ''), ',' ORDER BY pk)
		FROM reverse_neighbors(t, ('USER#' || n)::adjkey, 'FOLLOWS#'))
	FROM generate_series(1, 40) n
	UNION ALL
	SELECT 'degree', n::text, degree(t, ('USER#' || n)::adjkey, 'FOLLOWS#', 'in')::text ||
		'/' || degree(t, ('USER#' || n)::adjkey, 'FOLLOWS#', 'out')::text
	FROM generate_series(1, 40) n
	UNION ALL
	SELECT 'has_edge', a || '>' || b, has_edge(t, ('USER#' || a)::adjkey, ('USER#' || b)::adjkey, 'FOLLOWS#')::text
	FROM generate_series(1, 12) a, generate_series(1, 12) b
	UNION ALL
	SELECT 'traverse', n || d, (SELECT string_agg(node::text || ':' || depth, ',' ORDER BY node)
		FROM traverse(t, ('USER#' || n)::adjkey, 'FOLLOWS#', 3, d))
	FROM generate_series(1, 40, 3) n, unnest(ARRAY['out', 'in', 'both']) d
	UNION ALL
	SELECT 'reachable_count', n::text, reachable_count(t, ('USER#' || n)::adjkey, 'FOLLOWS#', 4)::text
	FROM generate_series(1, 40, 3) n
	UNION ALL
	SELECT 'shortest_path', a || '>' || b,
		array_length(shortest_path(t, ('USER#' || a)::adjkey, ('USER#' || b)::adjkey, 'FOLLOWS#', 8), 1)::text
	FROM generate_series(1, 40, 7) a, generate_series(2, 40, 5) b
	UNION ALL
	SELECT 'shortest_path_weighted', a || '>' || b, (SELECT cost::text
		FROM shortest_path_weighted(t, ('USER#' || a)::adjkey, ('USER#' || b)::adjkey, 'FOLLOWS#', 'w'))
	FROM generate_series(1, 40, 7) a, generate_series(2, 40, 5) b
	UNION ALL
	SELECT 'common_neighbors', a || '&' || b, (SELECT string_agg(c::text, ',' ORDER BY c)
		FROM common_neighbors(t, ('USER#' || a)::adjkey, ('USER#' || b)::adjkey, 'FOLLOWS#') c)
	FROM generate_series(1, 10) a, generate_series(11, 20) b
	UNION ALL
	SELECT 'walk_ranked', n::text, (SELECT string_agg(node::text || '=' || score, ',' ORDER BY score DESC, node)
		FROM walk_ranked(t, ('USER#' || n)::adjkey, ARRAY['FOLLOWS#', 'FOLLOWS#'], ARRAY['out', 'out']))
	FROM generate_series(1, 40, 3) n
	UNION ALL
	SELECT 'filtered', n::text, (SELECT string_agg(neighbor::text, ',' ORDER BY sk)
		FROM neighbors(t, ('USER#' || n)::adjkey, 'FOLLOWS#', edge_filter => '{"on": true}'))
	FROM generate_series(1, 40) n
	UNION ALL
	SELECT 'paged', n::text, (SELECT string_agg(neighbor::text, ',' ORDER BY sk)
		FROM neighbors(t, ('USER#' || n)::adjkey, 'FOLLOWS#', lim => 2))
	FROM generate_series(1, 40) n
$$;
CREATE TABLE want AS SELECT * FROM answers('live');
-- expired edges are not followed, counted or returned (read through SQL)
SELECT count(*) AS differences FROM (
	(SELECT * FROM answers('g') EXCEPT SELECT * FROM want)
	UNION ALL (SELECT * FROM want EXCEPT SELECT * FROM answers('g'))) d;
-- a control: with time to live off, the expired edges count again
SELECT set_ttl('g', NULL);
SELECT count(*) > 0 AS differ_without_ttl FROM (
	SELECT * FROM answers('g') EXCEPT SELECT * FROM want) d;
SELECT set_ttl('g', 'until');
-- the same under row-level security (the rows a role may see)
CREATE ROLE regress_ttlg_reader;
GRANT USAGE ON SCHEMA ttlg TO regress_ttlg_reader;
GRANT SELECT ON g, want TO regress_ttlg_reader;
ALTER TABLE g ENABLE ROW LEVEL SECURITY;
CREATE POLICY everyone ON g FOR SELECT TO regress_ttlg_reader USING (true);
SET ROLE regress_ttlg_reader;
SELECT count(*) AS differences_rls FROM (
	(SELECT * FROM answers('g') EXCEPT SELECT * FROM want)
	UNION ALL (SELECT * FROM want EXCEPT SELECT * FROM answers('g'))) d;
RESET ROLE;
ALTER TABLE g DISABLE ROW LEVEL SECURITY;
-- a write-sharded index, which also projects the expiry column
SELECT drop_inverted_index('g_inverted');
SELECT create_inverted_index('g', include => '{data}', write_shards => 4);
SELECT count(*) AS differences_sharded FROM (
	(SELECT * FROM answers('g') EXCEPT SELECT * FROM want)
	UNION ALL (SELECT * FROM want EXCEPT SELECT * FROM answers('g'))) d;
-- after the sweep, nothing changes for the readers
SELECT sweep_expired('g') > 20 AS swept;
SELECT count(*) AS differences_swept FROM (
	(SELECT * FROM answers('g') EXCEPT SELECT * FROM want)
	UNION ALL (SELECT * FROM want EXCEPT SELECT * FROM answers('g'))) d;

-- the payload column is the edges' data: returned by neighbors and
-- reverse_neighbors (projected into the index under its name), tested by
-- edge_filter, weighed by shortest_path_weighted
CREATE TABLE roads (pk adjkey, sk adjkey, attrs jsonb, data jsonb, PRIMARY KEY (pk, sk));
SELECT set_payload_column('roads', 'attrs');
SELECT create_inverted_index('roads', include => '{attrs}');
INSERT INTO roads VALUES
	('PLACE#a', 'ROAD#PLACE#b', '{"km": 1, "safe": true}', '{"km": 100}'),
	('PLACE#b', 'ROAD#PLACE#c', '{"km": 1, "safe": true}', '{"km": 100}'),
	('PLACE#a', 'ROAD#PLACE#c', '{"km": 5, "safe": false}', '{"km": 1}');
SELECT neighbor, data FROM neighbors('roads', 'PLACE#a', 'ROAD#');
SELECT neighbor, data FROM reverse_neighbors('roads', 'PLACE#c', 'ROAD#');
SELECT neighbor FROM neighbors('roads', 'PLACE#a', 'ROAD#', edge_filter => '{"safe": true}');
SELECT neighbor FROM reverse_neighbors('roads', 'PLACE#c', 'ROAD#', edge_filter => '{"safe": true}');
SELECT * FROM shortest_path_weighted('roads', 'PLACE#a', 'PLACE#c', 'ROAD#', 'km');
SELECT * FROM shortest_path_weighted('roads', 'PLACE#a', 'PLACE#c', 'ROAD#', 'km', 'in');
-- a table whose only jsonb column is the payload: no "data" needed
CREATE TABLE trails (pk adjkey, sk adjkey, info jsonb, PRIMARY KEY (pk, sk));
INSERT INTO trails VALUES ('PLACE#a', 'TRAIL#PLACE#b', '{"km": 2}');
\set VERBOSITY sqlstate
SELECT * FROM shortest_path_weighted('trails', 'PLACE#a', 'PLACE#b', 'TRAIL#', 'km');
\set VERBOSITY default
SELECT set_payload_column('trails', 'info');
SELECT * FROM shortest_path_weighted('trails', 'PLACE#a', 'PLACE#b', 'TRAIL#', 'km');
SELECT neighbor, data FROM neighbors('trails', 'PLACE#a', 'TRAIL#', edge_filter => '{"km": 2}');

DROP SCHEMA ttlg CASCADE;
DROP ROLE regress_ttlg_reader;

--
-- graph functions bound their memory and stop on cancel and timeouts
--
\set SHOW_CONTEXT never
CREATE TABLE dense (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
-- 2000 nodes with 40 out-edges each: 80000 edges
INSERT INTO dense SELECT 'N#' || a, 'L#N#' || ((a * 7 + b * 131) % 2000)
FROM generate_series(0, 1999) a, generate_series(1, 40) b ON CONFLICT DO NOTHING;
SELECT create_inverted_index('dense');
SELECT reachable_count('dense', 'N#1', 'L#', 3) AS reached;

-- a cap on visited nodes: a clear error, not an out-of-memory crash
SHOW adjlist.max_visited;
SET adjlist.max_visited = 100;
SELECT reachable_count('dense', 'N#1', 'L#', 3);
SELECT count(*) FROM traverse('dense', 'N#1', 'L#', 3);
SELECT shortest_path('dense', 'N#1', 'N#2', 'L#', 6);
SELECT count(*) FROM traverse('dense', 'N#1', 'L#', 1);		-- small enough
SET adjlist.max_visited = 0;
RESET adjlist.max_visited;
SET adjlist.nonexistent = 1;

-- a cap on memory, in kB (default: maintenance_work_mem), charged for the
-- node sets of a call: long keys reach it with few nodes
SHOW adjlist.max_memory;
CREATE TABLE longkeys (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO longkeys SELECT 'N#' || repeat('x', 900) || a, 'L#N#' || repeat('x', 900) || (a + 1)
FROM generate_series(1, 3000) a;
SET adjlist.max_memory = '1MB';
SELECT reachable_count('longkeys', ('N#' || repeat('x', 900) || 1)::adjkey, 'L#', 5000);
SELECT count(*) FROM traverse('longkeys', ('N#' || repeat('x', 900) || 1)::adjkey, 'L#', 5000);
SET adjlist.max_memory = '64MB';
SELECT reachable_count('longkeys', ('N#' || repeat('x', 900) || 1)::adjkey, 'L#', 5000);
-- a call's output is not its memory: traverse() with paths of 700 nodes
-- down a chain of long keys returns 246,050 keys (220 MB), which go to the
-- result (spilled to disk past work_mem) row by row; the backend's peak
-- memory (Linux: VmHWM) must not grow by anything like that
CREATE FUNCTION pg_temp.peak_kb() RETURNS bigint LANGUAGE sql AS
$$SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+) kB'))[1]::bigint$$;
SET adjlist.max_memory = '8MB';
SELECT pg_temp.peak_kb() AS peak_before \gset
SELECT count(*), sum(cardinality(path)) AS keys_in_paths
FROM traverse('longkeys', ('N#' || repeat('x', 900) || 1)::adjkey, 'L#', 5000, lim => 700, with_path => true);
SELECT pg_temp.peak_kb() - :peak_before < 100000 AS output_not_held_in_memory;
RESET adjlist.max_memory;
DROP TABLE longkeys;

-- statement_timeout stops one long traversal from inside: a whole-graph
-- BFS in both directions reads 160000 index entries, many times what
-- 10 ms allow, so only the traversal's own interrupt checks can stop it
SELECT reachable_count('dense', 'N#1', 'L#', 100, 'both') AS whole_graph;
SET statement_timeout = '10ms';
SELECT reachable_count('dense', 'N#1', 'L#', 100, 'both');
SELECT count(*) FROM traverse('dense', 'N#1', 'L#', 100, 'both', with_path => true);
RESET statement_timeout;
-- a cancel (here from the timeout machinery of another backend) likewise:
-- pg_cancel_backend on this session's own pid cancels the running query
SELECT pg_cancel_backend(pg_backend_pid()) AND
	   reachable_count('dense', 'N#1', 'L#', 6, 'both') > 0;
SELECT 1 AS still_usable;

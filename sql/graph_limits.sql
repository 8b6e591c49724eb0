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

-- statement_timeout stops a long traversal promptly
SET statement_timeout = '200ms';
SELECT sum(reachable_count('dense', ('N#' || g)::adjkey, 'L#', 6, 'both'))
FROM generate_series(0, 1999) g;
RESET statement_timeout;
-- a cancel (here from the timeout machinery of another backend) likewise:
-- pg_cancel_backend on this session's own pid cancels the running query
SELECT pg_cancel_backend(pg_backend_pid()) AND
	   reachable_count('dense', 'N#1', 'L#', 6, 'both') > 0;
SELECT 1 AS still_usable;

-- The tables of test/bench/citus.sh, on the Citus coordinator (-v citus=on)
-- and on the plain server (-v citus=off); -v shards, -v gfile (the graph,
-- tab-separated pk, sk, data).
--   g  the graph the reads run on, with an API-mode index and counters
--   w  put_edge and the hand-written transaction write here
--   b  put_edges and COPY load here (emptied before each load)
--   x  (Citus only, no index) the statement put_edge writes the base row
--      with, and an INSERT ... VALUES, run alone
-- On Citus each table is distributed by pk before its index is created, so
-- adjlist distributes the index by sk and the counters by node.
\set ON_ERROR_STOP 1
\if :citus
SET citus.shard_count = :shards;
\endif
CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE w (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE b (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
\if :citus
SELECT create_distributed_table('g', 'pk');
SELECT create_distributed_table('w', 'pk');
SELECT create_distributed_table('b', 'pk');
\endif
COPY g FROM :'gfile';
SELECT create_inverted_index('g', mode => 'api', counters => 1);
SELECT create_inverted_index('w', mode => 'api');
SELECT create_inverted_index('b', mode => 'api');
ANALYZE g;

-- reachable_count written by hand: one statement per BFS level over the
-- whole frontier (pk = ANY), the new nodes deduplicated in the function.
-- The level's statement is run with EXECUTE ... USING: written inline in
-- this function, Citus 13.2 fails it on the worker ("could not determine
-- data type of parameter $6": PL/pgSQL's other variables are sent along)
CREATE FUNCTION sql_reach(start adjkey, depth int) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	frontier adjkey[] := ARRAY[start];
	seen adjkey[] := ARRAY[start];
	nxt adjkey[];
BEGIN
	FOR i IN 1 .. depth LOOP
		EXECUTE 'SELECT array_agg(key_tail(sk, 1)) FROM g WHERE pk = ANY ($1) AND sk ^@ ''FOLLOWS#'''
			INTO nxt USING frontier;
		frontier := ARRAY(SELECT DISTINCT x FROM unnest(nxt) x EXCEPT SELECT unnest(seen));
		EXIT WHEN cardinality(frontier) = 0;
		seen := seen || frontier;
	END LOOP;
	RETURN cardinality(seen) - 1;
END $$;

\if :citus
-- x: no index; put_edge's base-row statement alone runs here
CREATE TABLE x (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_distributed_table('x', 'pk');

-- put_edge written by hand: the base row and the index row, in one
-- server-side call (a single client round trip, as put_edge)
CREATE FUNCTION hand_put(p adjkey, s adjkey, d jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO w VALUES (p, s, d) ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
	INSERT INTO w_inverted VALUES (s, p) ON CONFLICT DO NOTHING;
END $$;
\endif

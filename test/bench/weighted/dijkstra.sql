-- Hand-written Dijkstra for test/bench/weighted.sh: what a user without
-- adjlist or pgRouting would write, in PL/pgSQL on the integer-keyed copy
-- of the graph (edges_int, indexed on source and on target: the fastest
-- form of the data for SQL).  Set-based, as SQL likes it: each round
-- settles every open node of the least cost at once (with integer weights,
-- one round per distinct cost: Dial's buckets) and relaxes their edges
-- with one INSERT ... ON CONFLICT (the frontier analyzed first: without
-- statistics the planner hashes the whole edge table every round).  Settling one node per statement instead
-- is hopeless in SQL: the open set's index fills with the dead entries of
-- the settled nodes, which each next "ORDER BY cost LIMIT 1" steps over
-- again (minutes per call on the 1M-edge graph).
-- Returns the cost, NULL when t cannot be reached; reverse => true follows
-- the edges backward.
CREATE FUNCTION dijkstra_int(s bigint, t bigint, reverse boolean DEFAULT false) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	m float8;
BEGIN
	CREATE TEMP TABLE IF NOT EXISTS dj_open (node bigint PRIMARY KEY, cost float8 NOT NULL);
	CREATE TEMP TABLE IF NOT EXISTS dj_done (node bigint PRIMARY KEY);
	CREATE TEMP TABLE IF NOT EXISTS dj_front (node bigint);
	TRUNCATE dj_open, dj_done;
	INSERT INTO dj_open VALUES (s, 0);
	LOOP
		SELECT min(cost) INTO m FROM dj_open;
		IF m IS NULL THEN
			RETURN NULL;
		END IF;
		IF EXISTS (SELECT FROM dj_open WHERE node = t AND cost = m) THEN
			RETURN m;
		END IF;
		TRUNCATE dj_front;
		WITH settled AS (DELETE FROM dj_open WHERE cost = m RETURNING node)
		INSERT INTO dj_front SELECT node FROM settled;
		INSERT INTO dj_done SELECT node FROM dj_front;
		ANALYZE dj_front;		-- a temporary table has no statistics: plan the join by its size
		IF reverse THEN
			INSERT INTO dj_open
			SELECT e.source, m + min(e.w) FROM dj_front f JOIN edges_int e ON e.target = f.node
			WHERE NOT EXISTS (SELECT FROM dj_done d WHERE d.node = e.source)
			GROUP BY e.source
			ON CONFLICT (node) DO UPDATE SET cost = EXCLUDED.cost WHERE EXCLUDED.cost < dj_open.cost;
		ELSE
			INSERT INTO dj_open
			SELECT e.target, m + min(e.w) FROM dj_front f JOIN edges_int e ON e.source = f.node
			WHERE NOT EXISTS (SELECT FROM dj_done d WHERE d.node = e.target)
			GROUP BY e.target
			ON CONFLICT (node) DO UPDATE SET cost = EXCLUDED.cost WHERE EXCLUDED.cost < dj_open.cost;
		END IF;
	END LOOP;
END $$;

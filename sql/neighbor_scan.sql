--
-- The streaming scan of a one-hop call in FROM (graph_neighbor_scan.c):
-- neighbors() and reverse_neighbors() (and their keys-only twins) are
-- read by a custom scan that returns each row as it is read, instead of
-- a function scan that reads them all first.  Every query returns what
-- the function scan returns (adjlist.enable_neighbor_scan = off), on each
-- read path: the direct one (a row at a time) and the SQL one (row-level
-- security, partitions, expiry, a write-sharded index, in-edges whose
-- data is the base row's: batches resumed after their last edge).
--
SET client_min_messages = warning;
CREATE SCHEMA nscan;
SET search_path = nscan, public;

CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
-- a hub with 700 out-edges and 700 in-edges, odd ones with w = 1
INSERT INTO g SELECT 'USER#0', 'FOLLOWS#USER#' || lpad(i::text, 4, '0'), jsonb_build_object('w', i % 2, 'i', i)
FROM generate_series(1, 700) i;
INSERT INTO g SELECT 'USER#' || lpad(i::text, 4, '0'), 'FOLLOWS#USER#0', jsonb_build_object('w', i % 2, 'i', i)
FROM generate_series(1, 700) i;
INSERT INTO g VALUES ('USER#0', 'FOLLOWS#', '{}'), ('USER#0', 'LIKES#POST#1', '{}'),
	('USER#0', 'FRIEND#0001', '{}'), ('USER#0', 'FRIEND#0002', '{"w": 1}');
SELECT create_inverted_index('g');
VACUUM ANALYZE g;

-- the same table partitioned (read through SQL) and with a write-sharded index
CREATE TABLE gp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE gp0 PARTITION OF gp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE gp1 PARTITION OF gp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO gp SELECT * FROM g;
SELECT create_inverted_index('gp');
CREATE TABLE gs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO gs SELECT * FROM g;
SELECT create_inverted_index('gs', write_shards => 4, include => '{data}');

-- The plan of q, its scans' names.
CREATE FUNCTION plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	l text;
	r text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l ~ '(Scan|Loop|Append|Join)' THEN
			r := r || CASE WHEN r = '' THEN '' ELSE ' / ' END || trim(regexp_replace(l, '^[ >-]*', ''));
		END IF;
	END LOOP;
	RETURN r;
END $$;

-- q's rows (in order) with the custom scan and with the function scan,
-- and whether they are the same.
CREATE FUNCTION both_ways(q text, OUT n bigint, OUT same boolean) LANGUAGE plpgsql AS $$
DECLARE
	a text[];
	b text[];
BEGIN
	EXECUTE format('SELECT array_agg(t::text) FROM (%s) t', q) INTO a;
	SET LOCAL adjlist.enable_neighbor_scan = off;
	EXECUTE format('SELECT array_agg(t::text) FROM (%s) t', q) INTO b;
	SET LOCAL adjlist.enable_neighbor_scan = on;
	n := coalesce(cardinality(a), 0);
	same := a IS NOT DISTINCT FROM b;
END $$;

-- 1. The plans: a call with constant arguments is the custom scan; the
-- function scan where the scan would not give the same answer.
SELECT plan_of($$SELECT * FROM neighbors('g', 'USER#0', 'FOLLOWS#')$$);
SELECT plan_of($$SELECT neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#')$$);
SELECT plan_of($$SELECT count(*) FROM neighbors('g', 'USER#0', 'FOLLOWS#', lim => 5 + 5)$$);
EXPLAIN (COSTS OFF) SELECT neighbor, data FROM neighbors('g', 'USER#0', 'FOLLOWS#') WHERE data @> '{"w": 1}';
EXPLAIN (VERBOSE, COSTS OFF) SELECT n.neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#') AS n;
-- LATERAL, WITH ORDINALITY, ROWS FROM two functions, a volatile or
-- subquery argument, the whole row, a row mark (UPDATE ... FROM): the
-- function scan
SELECT plan_of($$SELECT n.neighbor FROM g v, neighbors('g', v.pk, 'FOLLOWS#') n WHERE v.sk = 'LIKES#POST#1'$$);
SELECT plan_of($$SELECT * FROM neighbors('g', 'USER#0', 'FOLLOWS#') WITH ORDINALITY$$);
SELECT plan_of($$SELECT * FROM ROWS FROM (neighbors('g', 'USER#0', 'FOLLOWS#'), neighbors('g', 'USER#1', 'FOLLOWS#'))$$);
SELECT plan_of($$SELECT * FROM neighbors('g', 'USER#0', 'FOLLOWS#', lim => (random() * 10)::bigint)$$);
SELECT plan_of($$SELECT * FROM neighbors('g', (SELECT min(pk) FROM g), 'FOLLOWS#')$$);
SELECT plan_of($$SELECT n FROM neighbors('g', 'USER#0', 'FOLLOWS#') n$$);
SELECT plan_of($$UPDATE g SET data = '{}' FROM neighbors('g', 'USER#0', 'FOLLOWS#') n WHERE g.pk = n.neighbor$$);
SELECT plan_of($$SELECT * FROM g, neighbors('g', 'USER#0', 'FOLLOWS#') n WHERE g.pk = n.neighbor FOR UPDATE OF g$$);
SET adjlist.enable_neighbor_scan = off;
SELECT plan_of($$SELECT * FROM neighbors('g', 'USER#0', 'FOLLOWS#')$$);
RESET adjlist.enable_neighbor_scan;
-- two calls in UNION ALL
SELECT plan_of($$SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#') UNION ALL SELECT neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#')$$);
SELECT * FROM both_ways($$SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#') UNION ALL SELECT neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#')$$);

-- 2. The same rows, in the same order, on every read path, for every
-- argument that changes what is read.
CREATE TABLE cases (n serial, q text);
INSERT INTO cases (q)
SELECT format('SELECT %s FROM %s(%L, %L, %L%s)', cols, fn, t, node, prefix, args)
FROM unnest(ARRAY['g', 'gp', 'gs']) t,
	 unnest(ARRAY['neighbors', 'reverse_neighbors']) fn,
	 unnest(ARRAY['*', 'neighbor, sk', 'neighbor', 'count(*)']) cols,
	 (VALUES ('USER#0', 'FOLLOWS#'), ('USER#0', 'FRIEND'), ('USER#0001', 'FOLLOWS#'), ('NOBODY', 'FOLLOWS#')) n(node, prefix),
	 unnest(ARRAY['', ', lim => 1', ', lim => 64', ', lim => 65', ', lim => 600',
				  ', backward => true, lim => 100', ', after => ''USER#0350''', ', after => ''FOLLOWS#USER#0350''',
				  ', edge_filter => ''{"w": 1}''', ', edge_filter => ''{"w": 1}'', lim => 300',
				  ', exclusive_start_key => ''{"pk": "USER#0", "sk": "FOLLOWS#USER#0100"}''',
				  ', exclusive_start_key => ''{"pk": "USER#0100", "sk": "FOLLOWS#USER#0"}''']) args
WHERE NOT (cols = 'count(*)' AND args LIKE '%lim%');
SELECT count(*) AS cases FROM cases;
-- the custom scan plans every case
SELECT count(*) FILTER (WHERE plan_of(q) ~ '^Custom Scan|Custom Scan') AS custom_scans FROM cases;
-- an error (a start key of another node) must be the same error both ways
CREATE FUNCTION try_both(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	SELECT * INTO r FROM both_ways(q);
	RETURN CASE WHEN r.same THEN 'same' ELSE 'DIFFERENT' END;
EXCEPTION WHEN OTHERS THEN
	RETURN 'error: ' || SQLERRM;
END $$;
SELECT try_both(q) AS outcome, count(*) FROM cases GROUP BY 1 ORDER BY 1;
-- rows were returned (the comparison is not of empty sets)
SELECT sum((both_ways(q)).n) AS rows_compared FROM cases WHERE try_both(q) = 'same';
-- The scan's tuple has only the columns the query reads, the target
-- list's first (in its order: then it is the query's row, unprojected),
-- then those only the quals read: any order, repeats, expressions, quals
-- on unread columns, on each read path (direct, batches, sharded).
EXPLAIN (VERBOSE, COSTS OFF) SELECT data, neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#') WHERE sk IS NOT NULL AND pk > 'USER#0100';
SELECT t, q, (both_ways(format(q, t))).* FROM unnest(ARRAY['g', 'gp', 'gs']) t,
	unnest(ARRAY[$$SELECT data, neighbor FROM reverse_neighbors(%L, 'USER#0', 'FOLLOWS#') WHERE pk > 'USER#0100' AND sk IS NOT NULL$$,
				 $$SELECT sk, neighbor, neighbor, pk FROM neighbors(%L, 'USER#0', 'FOLLOWS#')$$,
				 $$SELECT neighbor::text || '!', data->'i' FROM neighbors(%L, 'USER#0', 'FOLLOWS#', lim => 70) WHERE (data->>'w')::int = 1$$,
				 $$SELECT pk FROM reverse_neighbors(%L, 'USER#0', 'FOLLOWS#', backward => true) WHERE neighbor < 'USER#0009'$$,
				 $$SELECT 1 AS one FROM neighbors(%L, 'USER#0', 'FOLLOWS#') WHERE sk < 'FOLLOWS#USER#0003'$$]) q
ORDER BY 1, 2;
BEGIN;
DECLARE sq SCROLL CURSOR FOR SELECT neighbor, pk FROM neighbors('g', 'USER#0', 'FOLLOWS#') WHERE data @> '{"w": 1}' AND sk < 'FOLLOWS#USER#0010';
FETCH 3 FROM sq;
FETCH BACKWARD 2 FROM sq;
FETCH ALL FROM sq;
FETCH BACKWARD 1 FROM sq;
COMMIT;

-- row-level security (SQL, in batches) and in-edges whose data is the base row's
CREATE ROLE regress_nscan_reader;
GRANT USAGE ON SCHEMA nscan TO regress_nscan_reader;
GRANT SELECT ON g, g_inverted, cases TO regress_nscan_reader;
GRANT EXECUTE ON FUNCTION both_ways(text), try_both(text) TO regress_nscan_reader;
ALTER TABLE g ENABLE ROW LEVEL SECURITY;
CREATE POLICY odd ON g FOR SELECT USING (data @> '{"w": 1}' OR pk = 'USER#0');
SET ROLE regress_nscan_reader;
SELECT try_both(q) AS outcome, count(*) FROM cases WHERE q ~ '''g''' GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#');
RESET ROLE;
ALTER TABLE g DISABLE ROW LEVEL SECURITY;
-- a table whose key has a column after (pk, sk): its rows cannot be
-- resumed after an edge's keys, so the SQL path reads them at once
CREATE TABLE gk (pk adjkey, sk adjkey, v int, data jsonb, PRIMARY KEY (pk, sk, v));
INSERT INTO gk SELECT 'USER#0', 'FOLLOWS#USER#' || lpad(i::text, 4, '0'), v, '{}'
FROM generate_series(1, 300) i, generate_series(1, 2) v;
SELECT create_inverted_index('gk');
ALTER TABLE gk ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON gk FOR SELECT USING (true);
GRANT SELECT ON gk, gk_inverted TO regress_nscan_reader;
SET ROLE regress_nscan_reader;
SELECT * FROM both_ways($$SELECT neighbor, sk FROM neighbors('gk', 'USER#0', 'FOLLOWS#')$$);
SELECT * FROM both_ways($$SELECT neighbor FROM reverse_neighbors('gk', 'USER#0150', 'FOLLOWS#')$$);
RESET ROLE;
SELECT * FROM both_ways($$SELECT neighbor, sk FROM neighbors('gk', 'USER#0', 'FOLLOWS#', lim => 500)$$);
SELECT * FROM both_ways($$SELECT neighbor, data FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#', edge_filter => '{"w": 0}')$$);

-- 3. Privileges are checked when the scan runs, for the role that runs it:
-- EXECUTE on the function (for a twin, on its original), SELECT on the
-- columns the rows carry.
PREPARE p_all(adjkey) AS SELECT * FROM neighbors('g', $1, 'FOLLOWS#', lim => 2);
PREPARE p_node(adjkey) AS SELECT neighbor FROM neighbors('g', $1, 'FOLLOWS#', lim => 2);
SET plan_cache_mode = force_generic_plan;
EXECUTE p_all('USER#0');
EXECUTE p_node('USER#0');
REVOKE EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) FROM PUBLIC;
SET ROLE regress_nscan_reader;
EXECUTE p_all('USER#0');
EXECUTE p_node('USER#0');
RESET ROLE;
GRANT EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) TO PUBLIC;
REVOKE SELECT ON g FROM regress_nscan_reader;
GRANT SELECT (pk, sk) ON g TO regress_nscan_reader;
SET ROLE regress_nscan_reader;
EXECUTE p_all('USER#0');
EXECUTE p_node('USER#0');
RESET ROLE;
RESET plan_cache_mode;

-- 4. Rescans: a correlated subquery (the quals change, the call does not)
-- and the inner side of a nested loop.
SELECT i, (SELECT count(*) FROM neighbors('g', 'USER#0', 'FOLLOWS#') n
		   WHERE n.neighbor > ('USER#' || lpad((i * 100)::text, 4, '0'))::adjkey) AS after_i
FROM generate_series(0, 7) i;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT plan_of($$SELECT v.i, n.neighbor FROM generate_series(1, 3) v(i), neighbors('g', 'USER#0', 'FOLLOWS#', lim => 2) n$$);
SELECT v.i, n.neighbor FROM generate_series(1, 3) v(i), neighbors('g', 'USER#0', 'FOLLOWS#', lim => 2) n ORDER BY 1, 2;
SELECT v.i, n.neighbor FROM generate_series(1, 3) v(i), neighbors('gp', 'USER#0', 'FOLLOWS#', lim => 2) n ORDER BY 1, 2;
-- rescanned after reading a part of the rows (a LIMIT that changes)
SELECT plan_of($$SELECT i, (SELECT array_agg(neighbor) FROM (SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#') LIMIT i) s) FROM generate_series(1, 3) i$$);
SELECT i, (SELECT array_agg(neighbor) FROM (SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#') LIMIT i) s) AS g,
	   (SELECT array_agg(neighbor) FROM (SELECT neighbor FROM neighbors('gp', 'USER#0', 'FOLLOWS#') LIMIT i) s) AS gp
FROM generate_series(1, 3) i;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- 5. Cursors: rows read across FETCHes in the cursor's snapshot (edges
-- added in between are not seen), backward with SCROLL, closed early.
BEGIN;
DECLARE c CURSOR FOR SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#', lim => 400);
FETCH 2 FROM c;
INSERT INTO g VALUES ('USER#0', 'FOLLOWS#USER#0003a', '{}');
DELETE FROM g WHERE pk = 'USER#0' AND sk = 'FOLLOWS#USER#0004';
FETCH 3 FROM c;
DECLARE cp CURSOR FOR SELECT neighbor FROM neighbors('gp', 'USER#0', 'FOLLOWS#');
FETCH 2 FROM cp;
INSERT INTO gp VALUES ('USER#0', 'FOLLOWS#USER#0002a', '{}');
FETCH 2 FROM cp;
MOVE 690 FROM cp;
FETCH ALL FROM cp;
CLOSE c;
DECLARE s SCROLL CURSOR FOR SELECT neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#');
FETCH 3 FROM s;
FETCH BACKWARD 2 FROM s;
FETCH LAST FROM s;
ROLLBACK;
SELECT count(*) FROM neighbors('g', 'USER#0', 'FOLLOWS#');

-- 5b. A cursor declared without SCROLL can go backward, as with the
-- function scan (the scan keeps the rows it has read); a LIMIT or a cursor
-- streams (the plan is the custom scan, not a function scan read whole).
SELECT plan_of($$SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#') LIMIT 1$$);
SELECT plan_of($$SELECT neighbor FROM reverse_neighbors('gp', 'USER#0', 'FOLLOWS#') LIMIT 1$$);
CREATE FUNCTION cursor_walk(q text, scan boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'walk';
	r record;
	n bigint;
	out text := '';
BEGIN
	EXECUTE format('SET LOCAL adjlist.enable_neighbor_scan = %s', scan);
	OPEN c FOR EXECUTE q;
	SELECT out || is_scrollable::text INTO out FROM pg_cursors WHERE name = 'walk';
	MOVE FORWARD 2 FROM c;
	FETCH NEXT FROM c INTO r;
	out := out || ' ' || r.neighbor;
	FETCH PRIOR FROM c INTO r;
	out := out || ' ' || r.neighbor;
	FETCH ABSOLUTE 500 FROM c INTO r;
	out := out || ' ' || r.neighbor;
	FETCH PRIOR FROM c INTO r;
	out := out || ' ' || r.neighbor;
	FETCH LAST FROM c INTO r;
	out := out || ' ' || r.neighbor;
	FETCH FIRST FROM c INTO r;
	out := out || ' ' || r.neighbor;
	MOVE FORWARD ALL FROM c;
	GET DIAGNOSTICS n = ROW_COUNT;
	CLOSE c;
	out := out || ' then ' || n;
	RETURN out;
END $$;
SELECT q, cursor_walk(q, true) AS custom_scan, cursor_walk(q, true) = cursor_walk(q, false) AS same
FROM (VALUES ($$SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#')$$),
			 ($$SELECT neighbor FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#') WHERE neighbor <> 'USER#0002'$$),
			 ($$SELECT neighbor FROM neighbors('gp', 'USER#0', 'FOLLOWS#')$$),
			 ($$SELECT neighbor FROM reverse_neighbors('gs', 'USER#0', 'FOLLOWS#')$$)) v(q);

-- 5c. Between two fetches of a cursor read in batches, the tables it reads
-- stay in use: TRUNCATE or ALTER TABLE of them (or of a partition) in the
-- same transaction is refused, as for a cursor on the table itself,
-- instead of the next batch reading the changed table.
BEGIN;
DECLARE cb CURSOR FOR SELECT neighbor FROM neighbors('gp', 'USER#0', 'FOLLOWS#');
FETCH 2 FROM cb;
SAVEPOINT a;
TRUNCATE gp;
ROLLBACK TO a;
TRUNCATE gp1;
ROLLBACK TO a;
ALTER TABLE gp0 SET (fillfactor = 90);
ROLLBACK TO a;
MOVE ALL FROM cb;
FETCH BACKWARD 1 FROM cb;
ROLLBACK;

-- 5d. A cursor runs as the role that read its first row: fetched further
-- by another role (here one that bypasses row-level security), its later
-- batches read no row the first could not, as with the function scan.
CREATE TABLE gr (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO gr SELECT * FROM g;
SELECT create_inverted_index('gr');
ALTER TABLE gr ENABLE ROW LEVEL SECURITY;
CREATE POLICY odd ON gr FOR SELECT USING (data @> '{"w": 1}');
GRANT SELECT ON gr TO regress_nscan_reader;
CREATE FUNCTION switched_count(reader_first boolean, scan boolean) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'switched';
	r record;
	n bigint;
BEGIN
	EXECUTE format('SET LOCAL adjlist.enable_neighbor_scan = %s', scan);
	IF reader_first THEN
		SET LOCAL ROLE regress_nscan_reader;
	END IF;
	OPEN c FOR EXECUTE $q$SELECT neighbor FROM reverse_neighbors('gr', 'USER#0', 'FOLLOWS#')$q$;
	FETCH c INTO r;
	IF reader_first THEN
		RESET ROLE;
	ELSE
		SET LOCAL ROLE regress_nscan_reader;
	END IF;
	MOVE FORWARD ALL FROM c;
	GET DIAGNOSTICS n = ROW_COUNT;
	CLOSE c;
	RESET ROLE;
	RETURN n + 1;
END $$;
SELECT first, switched_count(first = 'reader', true) AS custom_scan,
	   switched_count(first = 'reader', false) AS function_scan
FROM (VALUES ('reader'), ('superuser')) v(first);
SELECT count(*) AS visible_to_reader FROM gr WHERE sk = 'FOLLOWS#USER#0' AND data @> '{"w": 1}';

-- 6. Stopping early (LIMIT) and failing halfway leave nothing pinned or
-- open: the transaction goes on and commits cleanly.
BEGIN;
SELECT neighbor FROM neighbors('g', 'USER#0', 'FOLLOWS#') LIMIT 2;
SAVEPOINT a;
SELECT 1 / (substr(neighbor::text, 6)::int - 300) FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#');
ROLLBACK TO a;
SELECT count(*) FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#', lim => 1000);
COMMIT;

-- 7. A prepared statement's parameters; EXPLAIN ANALYZE counts its rows.
PREPARE p(adjkey, bigint) AS SELECT neighbor FROM reverse_neighbors('g', $1, 'FOLLOWS#', lim => $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p('USER#0', 3);
EXECUTE p('USER#0', 3);
CREATE FUNCTION actual_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	l text;
	r text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		r := r || coalesce(substring(l, '^ *Custom Scan \(adjlist neighbors\) \(actual rows=([0-9]+)'), '');
	END LOOP;
	RETURN r;
END $$;
SELECT actual_rows($$EXECUTE p('USER#0', 5)$$) AS custom_scan_rows;
RESET plan_cache_mode;

RESET ROLE;
-- The direct scans keep the comparison functions of their keys for the
-- session (scan_key.c): a change of a function (here of adjkey's < itself)
-- has them looked up again, and every kind of key (=, >=, <, > of a start
-- key, forward and backward) reads as before.
CREATE TEMP TABLE scan_key_calls AS
SELECT 1 AS round,
	   (SELECT count(*) FROM neighbors('g', 'USER#0', 'FOLLOWS#')) AS out_all,
	   (SELECT string_agg(neighbor::text, ' ') FROM neighbors('g', 'USER#0', 'FOLLOWS#', 3, 'FOLLOWS#USER#0010')) AS out_after,
	   (SELECT string_agg(neighbor::text, ' ') FROM neighbors('g', 'USER#0', 'FOLLOWS#', 3, 'FOLLOWS#USER#0650', true)) AS out_backward,
	   (SELECT string_agg(neighbor::text, ' ') FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#', 3, 'USER#0100')) AS in_after,
	   (SELECT count(*) FROM common_neighbors('g', 'USER#0010', 'USER#0020', 'FOLLOWS#')) AS common;
ALTER FUNCTION adjkey_lt(adjkey, adjkey) COST 1;
INSERT INTO scan_key_calls
SELECT 2,
	   (SELECT count(*) FROM neighbors('g', 'USER#0', 'FOLLOWS#')),
	   (SELECT string_agg(neighbor::text, ' ') FROM neighbors('g', 'USER#0', 'FOLLOWS#', 3, 'FOLLOWS#USER#0010')),
	   (SELECT string_agg(neighbor::text, ' ') FROM neighbors('g', 'USER#0', 'FOLLOWS#', 3, 'FOLLOWS#USER#0650', true)),
	   (SELECT string_agg(neighbor::text, ' ') FROM reverse_neighbors('g', 'USER#0', 'FOLLOWS#', 3, 'USER#0100')),
	   (SELECT count(*) FROM common_neighbors('g', 'USER#0010', 'USER#0020', 'FOLLOWS#'));
SELECT * FROM scan_key_calls ORDER BY round;
DROP TABLE scan_key_calls;

-- 3. Prefetching (heap_prefetch.c): a scan that reads the heap, from its
-- 16th row on, looks up the heap pages of the rows a few ahead on its
-- btree leaf page and prefetches them.  A hub whose 1000 out-edges are
-- scattered over hundreds of heap pages (a seventh of the rows, and half
-- of each page left free) and several leaf pages, some updated (HOT
-- chains: before a VACUUM that prunes them, and after), some deleted: the
-- same rows as plain SQL, forward, backward, from a start key, with a
-- limit, through the custom scan and the function.  An in-hub's rows in
-- the inverted index's heap: clustered (loaded in key order), then
-- scattered by later writes.
CREATE TABLE pf (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) WITH (fillfactor = 50);
INSERT INTO pf SELECT 'USER#' || (i % 7), 'FOLLOWS#USER#' || lpad(i::text, 5, '0'),
	jsonb_build_object('i', i, 'pad', repeat('x', 200))
FROM generate_series(1, 7000) i;
INSERT INTO pf SELECT 'USER#' || lpad(i::text, 5, '0'), 'FOLLOWS#USER#HUB', jsonb_build_object('i', i)
FROM generate_series(1, 500) i;
SELECT create_inverted_index('pf', include => '{data}');
INSERT INTO pf SELECT 'USER#' || lpad(i::text, 5, '0'), s, jsonb_build_object('i', i, 'pad', repeat('y', 200))
FROM generate_series(501, 1500) i, unnest(ARRAY['FOLLOWS#USER#HUB', 'FOLLOWS#USER#OTHER']) s;
UPDATE pf SET data = data || '{"u": 1}' WHERE pk = 'USER#0' AND (data->>'i')::int % 70 = 0;
DELETE FROM pf WHERE pk = 'USER#0' AND (data->>'i')::int % 91 = 0;
VACUUM pf;
UPDATE pf SET data = data || jsonb_build_object('big', repeat('z', 3000))
WHERE pk = 'USER#0' AND (data->>'i')::int % 175 = 0;
UPDATE pf SET data = data || '{"u": 2}' WHERE pk = 'USER#0' AND (data->>'i')::int % 49 = 0;
DELETE FROM pf WHERE sk = 'FOLLOWS#USER#HUB' AND (data->>'i')::int % 97 = 0;
-- the hub's rows are on many heap pages and several leaf pages
SELECT count(*) AS hub_rows, count(DISTINCT (ctid::text::point)[0]) > 300 AS many_heap_pages,
	   pg_relation_size('pf_pkey') / 8192 > 10 AS many_leaf_pages
FROM pf WHERE pk = 'USER#0';
CREATE FUNCTION pf_same(q text, ref text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text[];
	b text[];
BEGIN
	EXECUTE format('SELECT array_agg(t::text) FROM (%s) t', q) INTO a;
	EXECUTE format('SELECT array_agg(t::text) FROM (%s) t', ref) INTO b;
	RETURN cardinality(a) || CASE WHEN a IS NOT DISTINCT FROM b THEN ' same' ELSE ' DIFFERENT' END;
END $$;
SELECT pf_same($$SELECT sk, data FROM neighbors('pf', 'USER#0', 'FOLLOWS#')$$,
			   $$SELECT sk, data FROM pf WHERE pk = 'USER#0' AND sk::text LIKE 'FOLLOWS#%' ORDER BY sk$$) AS forward,
	   pf_same($$SELECT sk, data FROM neighbors('pf', 'USER#0', 'FOLLOWS#', backward => true)$$,
			   $$SELECT sk, data FROM pf WHERE pk = 'USER#0' AND sk::text LIKE 'FOLLOWS#%' ORDER BY sk DESC$$) AS backward,
	   pf_same($$SELECT sk, data FROM neighbors('pf', 'USER#0', 'FOLLOWS#', 300, 'FOLLOWS#USER#03000')$$,
			   $$SELECT sk, data FROM pf WHERE pk = 'USER#0' AND sk > 'FOLLOWS#USER#03000' ORDER BY sk LIMIT 300$$) AS after_limit,
	   pf_same($$SELECT neighbor, data FROM reverse_neighbors('pf', 'USER#HUB', 'FOLLOWS#')$$,
			   $$SELECT pk, data FROM pf WHERE sk = 'FOLLOWS#USER#HUB' ORDER BY pk$$) AS in_edges;
SELECT * FROM both_ways($$SELECT neighbor, data FROM neighbors('pf', 'USER#0', 'FOLLOWS#')$$);
SELECT * FROM both_ways($$SELECT neighbor, data FROM reverse_neighbors('pf', 'USER#HUB', 'FOLLOWS#', backward => true)$$);
-- a temporary table's pages are in local buffers: not prefetched, same rows
CREATE TEMP TABLE pft (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO pft SELECT * FROM pf;
SELECT pf_same($$SELECT sk, data FROM neighbors('pft', 'USER#0', 'FOLLOWS#')$$,
			   $$SELECT sk, data FROM pft WHERE pk = 'USER#0' AND sk::text LIKE 'FOLLOWS#%' ORDER BY sk$$) AS temp_table;
DROP TABLE pft;

DROP OWNED BY regress_nscan_reader;
DROP ROLE regress_nscan_reader;
DROP SCHEMA nscan CASCADE;

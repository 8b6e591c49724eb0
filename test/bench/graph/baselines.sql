-- Hand-written SQL baselines of test/bench/graph.sh: the same answers as
-- reachable_count(), shortest_path() and common_neighbors() without the
-- extension's C code.  The driver tries every formulation and reports the
-- fastest; recursive CTEs that need no function are in graph.sh itself.
--
-- The level-by-level functions keep the nodes seen so far in an array and
-- expand only the new nodes of each level (breadth first, every node once);
-- "NOT EXISTS (SELECT FROM unnest(seen) ...)" is planned as a hashed anti
-- join, "unnest(frontier) JOIN edges" as a nested loop of index scans.
--
-- *_text functions read edges_text (text COLLATE "C"), the others edges
-- (adjkey) and edges_inverted.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- ---------------------------------------------------------------------
-- distinct nodes reachable within maxd hops (not counting the start)
-- ---------------------------------------------------------------------
CREATE FUNCTION reach_levels(start adjkey, maxd int) RETURNS bigint
	LANGUAGE plpgsql STABLE AS $$
DECLARE
	seen adjkey[] := ARRAY[start];
	frontier adjkey[] := ARRAY[start];
BEGIN
	FOR d IN 1 .. maxd LOOP
		SELECT array_agg(s.x) INTO frontier
		FROM (SELECT DISTINCT key_tail(e.sk, 1) AS x
			  FROM unnest(frontier) f(n)
			  JOIN edges e ON e.pk = f.n AND e.sk ^@ 'FOLLOWS#') s
		WHERE NOT EXISTS (SELECT FROM unnest(seen) v(k) WHERE v.k = s.x);
		EXIT WHEN frontier IS NULL;
		seen := seen || frontier;
	END LOOP;
	RETURN cardinality(seen) - 1;
END $$;

CREATE FUNCTION reach_levels_text(start text, maxd int) RETURNS bigint
	LANGUAGE plpgsql STABLE AS $$
DECLARE
	seen text[] := ARRAY[start];
	frontier text[] := ARRAY[start];
BEGIN
	FOR d IN 1 .. maxd LOOP
		SELECT array_agg(s.x) INTO frontier
		FROM (SELECT DISTINCT substr(e.sk, 9) COLLATE "C" AS x
			  FROM unnest(frontier) f(n)
			  JOIN edges_text e ON e.pk = f.n AND e.sk >= 'FOLLOWS#' AND e.sk < 'FOLLOWS$') s
		WHERE NOT EXISTS (SELECT FROM unnest(seen) v(k) WHERE v.k = s.x);
		EXIT WHEN frontier IS NULL;
		seen := seen || frontier;
	END LOOP;
	RETURN cardinality(seen) - 1;
END $$;

-- ---------------------------------------------------------------------
-- a shortest path from a to b within maxd hops, NULL if none
-- ---------------------------------------------------------------------

-- Level by level from a until b turns up; parents kept beside the nodes
-- (seen[i] was reached from par[i]).
CREATE FUNCTION path_levels_text(a text, b text, maxd int) RETURNS text[]
	LANGUAGE plpgsql STABLE AS $$
DECLARE
	seen text[] := ARRAY[a];
	par text[] := ARRAY[NULL::text];
	frontier text[] := ARRAY[a];
	np text[];
	path text[];
	cur text;
BEGIN
	IF a = b THEN
		RETURN ARRAY[a];
	END IF;
	FOR d IN 1 .. maxd LOOP
		SELECT array_agg(s.x), array_agg(s.p) INTO frontier, np
		FROM (SELECT DISTINCT ON (x) substr(e.sk, 9) COLLATE "C" AS x, f.n AS p
			  FROM unnest(frontier) f(n)
			  JOIN edges_text e ON e.pk = f.n AND e.sk >= 'FOLLOWS#' AND e.sk < 'FOLLOWS$'
			  ORDER BY 1) s
		WHERE NOT EXISTS (SELECT FROM unnest(seen) v(k) WHERE v.k = s.x);
		EXIT WHEN frontier IS NULL;
		seen := seen || frontier;
		par := par || np;
		IF b = ANY (frontier) THEN
			path := ARRAY[b];
			cur := b;
			WHILE cur <> a LOOP
				cur := par[array_position(seen, cur)];
				path := cur || path;
			END LOOP;
			RETURN path;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

CREATE FUNCTION path_levels(a adjkey, b adjkey, maxd int) RETURNS adjkey[]
	LANGUAGE plpgsql STABLE AS $$
DECLARE
	seen adjkey[] := ARRAY[a];
	par adjkey[] := ARRAY[NULL::adjkey];
	frontier adjkey[] := ARRAY[a];
	np adjkey[];
	path adjkey[];
	cur adjkey;
BEGIN
	IF a = b THEN
		RETURN ARRAY[a];
	END IF;
	FOR d IN 1 .. maxd LOOP
		SELECT array_agg(s.x), array_agg(s.p) INTO frontier, np
		FROM (SELECT DISTINCT ON (x) key_tail(e.sk, 1) AS x, f.n AS p
			  FROM unnest(frontier) f(n)
			  JOIN edges e ON e.pk = f.n AND e.sk ^@ 'FOLLOWS#'
			  ORDER BY 1) s
		WHERE NOT EXISTS (SELECT FROM unnest(seen) v(k) WHERE v.k = s.x);
		EXIT WHEN frontier IS NULL;
		seen := seen || frontier;
		par := par || np;
		IF b = ANY (frontier) THEN
			path := ARRAY[b];
			cur := b;
			WHILE cur <> a LOOP
				cur := par[array_position(seen, cur)];
				path := cur || path;
			END LOOP;
			RETURN path;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

-- Bidirectional: forward from a through edges, backward from b through
-- edges_inverted; each step expands one whole level of the smaller
-- frontier, as shortest_path() does.  The seen arrays are in BFS order, so
-- the first meeting node in the other side's array is the nearest to its
-- end.
CREATE FUNCTION path_bidir(a adjkey, b adjkey, maxd int) RETURNS adjkey[]
	LANGUAGE plpgsql STABLE AS $$
DECLARE
	fseen adjkey[] := ARRAY[a];
	fpar adjkey[] := ARRAY[NULL::adjkey];
	ffront adjkey[] := ARRAY[a];
	bseen adjkey[] := ARRAY[b];
	bpar adjkey[] := ARRAY[NULL::adjkey];
	bfront adjkey[] := ARRAY[b];
	nx adjkey[];
	np adjkey[];
	meet adjkey;
	path adjkey[];
	cur adjkey;
	depth int := 0;
BEGIN
	IF a = b THEN
		RETURN ARRAY[a];
	END IF;
	WHILE depth < maxd LOOP
		depth := depth + 1;
		IF cardinality(ffront) <= cardinality(bfront) THEN
			SELECT array_agg(s.x), array_agg(s.p) INTO nx, np
			FROM (SELECT DISTINCT ON (x) key_tail(e.sk, 1) AS x, f.n AS p
				  FROM unnest(ffront) f(n)
				  JOIN edges e ON e.pk = f.n AND e.sk ^@ 'FOLLOWS#'
				  ORDER BY 1) s
			WHERE NOT EXISTS (SELECT FROM unnest(fseen) v(k) WHERE v.k = s.x);
			EXIT WHEN nx IS NULL;
			fseen := fseen || nx;
			fpar := fpar || np;
			ffront := nx;
			SELECT o.k INTO meet
			FROM unnest(bseen) WITH ORDINALITY o(k, i) JOIN unnest(nx) m(k) ON m.k = o.k
			ORDER BY o.i LIMIT 1;
		ELSE
			SELECT array_agg(s.x), array_agg(s.p) INTO nx, np
			FROM (SELECT DISTINCT ON (x) i.pk AS x, f.n AS p
				  FROM unnest(bfront) f(n)
				  JOIN edges_inverted i ON i.sk = ('FOLLOWS#' || f.n::text)::adjkey
				  ORDER BY 1) s
			WHERE NOT EXISTS (SELECT FROM unnest(bseen) v(k) WHERE v.k = s.x);
			EXIT WHEN nx IS NULL;
			bseen := bseen || nx;
			bpar := bpar || np;
			bfront := nx;
			SELECT o.k INTO meet
			FROM unnest(fseen) WITH ORDINALITY o(k, i) JOIN unnest(nx) m(k) ON m.k = o.k
			ORDER BY o.i LIMIT 1;
		END IF;
		IF meet IS NOT NULL THEN
			path := ARRAY[meet];
			cur := meet;
			WHILE cur <> a LOOP
				cur := fpar[array_position(fseen, cur)];
				path := cur || path;
			END LOOP;
			cur := meet;
			WHILE cur <> b LOOP
				cur := bpar[array_position(bseen, cur)];
				path := path || cur;
			END LOOP;
			RETURN path;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

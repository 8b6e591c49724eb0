# shortest_path_weighted against pgRouting's pgr_dijkstraCost on the same
# seeded random graph: an adjkey table (its in-edges through a keys-only
# inverted index, weights from the base rows) and a partitioned copy (read
# through SQL), and an integer-keyed copy for pgRouting.  Every pair of a
# set of starts and targets, in every direction ('in': pgRouting on the
# reversed edges; 'both': undirected): the same pairs reachable, the same
# costs (integer weights: exactly; fractional weights: within 1e-9), every
# path made of edges whose weights sum to its cost, and the same path on
# both read paths (ties are broken the same way).
#
# Skips when pgRouting (with PostGIS, which it requires) is not installed:
# Debian's postgresql-15-pgrouting.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $node = adjlist_node('weighted');
my $available = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_available_extensions WHERE name IN ('pgrouting', 'postgis')");
if ($available ne '2')
{
	$node->stop;
	plan skip_all => 'pgRouting is not installed (Debian: postgresql-15-pgrouting)';
}
$node->safe_psql('postgres', 'CREATE EXTENSION pgrouting CASCADE');
note('pgRouting ' . $node->safe_psql('postgres', 'SELECT pgr_version()'));

# 1200 nodes, about 6000 edges out of power-law sources; weights: w an
# integer 0..9 (many ties, some zeros), f a fraction
$node->safe_psql('postgres', q{
	SELECT setseed(0.5772);
	CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO g
	SELECT DISTINCT ON (a, b) ('N#' || a)::adjkey, ('E#N#' || b)::adjkey,
		   jsonb_build_object('w', floor(random() * 10)::int, 'f', round((random() * 100)::numeric, 6))
	FROM (SELECT (power(random(), 2) * 1200)::int AS a, (random() * 1200)::int AS b
		  FROM generate_series(1, 6500)) x
	WHERE a <> b
	ORDER BY a, b;
	-- other items: not edges of the prefix
	INSERT INTO g SELECT 'N#' || i, 'PROFILE', '{"w": "not a number"}' FROM generate_series(0, 1200, 7) i;
	SELECT create_inverted_index('g');
	CREATE TABLE gp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
	CREATE TABLE gp_0 PARTITION OF gp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE gp_1 PARTITION OF gp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	INSERT INTO gp SELECT * FROM g;
	SELECT create_inverted_index('gp');
	-- the integer-keyed copy for pgRouting
	CREATE TABLE edges_int AS
	SELECT row_number() OVER () AS id, key_part(pk, 2)::bigint AS source,
		   key_part(sk, 3)::bigint AS target, (data->>'w')::float8 AS w, (data->>'f')::float8 AS f
	FROM g WHERE sk ^@ 'E#';
	ANALYZE g, gp, edges_int;
});
my $edges = $node->safe_psql('postgres', 'SELECT count(*) FROM edges_int');
cmp_ok($edges, '>', 5000, "a random graph of $edges edges");

# starts and targets: 14 each, from the busy low ids and from everywhere,
# and two more each that make pairs unreachable one way: nodes without
# out-edges (starts) and without in-edges (targets)
$node->safe_psql('postgres', q{
	CREATE TABLE starts AS SELECT DISTINCT (i * 37) % 1200 AS id FROM generate_series(1, 14) i
	UNION (SELECT x FROM generate_series(0, 1199) x
		   WHERE NOT EXISTS (SELECT FROM edges_int WHERE source = x) ORDER BY x LIMIT 2);
	CREATE TABLE targets AS SELECT DISTINCT (i * 89 + 5) % 1200 AS id FROM generate_series(1, 14) i
	UNION (SELECT x FROM generate_series(0, 1199) x
		   WHERE NOT EXISTS (SELECT FROM edges_int WHERE target = x) ORDER BY x LIMIT 2);
});

for my $weight (qw(w f))
{
	for my $dir (qw(out in both))
	{
		my ($edges_sql, $directed) =
			$dir eq 'out' ? ("SELECT id, source, target, $weight AS cost FROM edges_int", 'true')
		  : $dir eq 'in'  ? ("SELECT id, target AS source, source AS target, $weight AS cost FROM edges_int", 'true')
		  :                 ("SELECT id, source, target, $weight AS cost FROM edges_int", 'false');
		my $tol = $weight eq 'w' ? '0' : '1e-9 * greatest(1, abs(p.agg_cost))';
		$node->safe_psql('postgres', qq{
			CREATE TABLE pgr_$weight\_$dir AS
			SELECT start_vid AS s, end_vid AS t, agg_cost
			FROM pgr_dijkstraCost('$edges_sql', ARRAY(SELECT id FROM starts), ARRAY(SELECT id FROM targets), $directed);
			CREATE TABLE adj_$weight\_$dir AS
			SELECT s.id AS s, t.id AS t, r.path, r.cost
			FROM starts s CROSS JOIN targets t,
				 LATERAL shortest_path_weighted('g', ('N#' || s.id)::adjkey, ('N#' || t.id)::adjkey,
												'E#', '$weight', '$dir') r
			WHERE s.id <> t.id;
		});
		my $res = $node->safe_psql('postgres', qq{
			SELECT (SELECT count(*) FROM pgr_$weight\_$dir) || ' ' ||
				   (SELECT count(*) FROM adj_$weight\_$dir) || ' ' ||
				   (SELECT count(*) FROM pgr_$weight\_$dir p FULL JOIN adj_$weight\_$dir a USING (s, t)
					WHERE a.s IS NULL OR p.s IS NULL) || ' ' ||
				   (SELECT count(*) FROM pgr_$weight\_$dir p JOIN adj_$weight\_$dir a USING (s, t)
					WHERE abs(a.cost - p.agg_cost) > $tol)
		});
		my ($npgr, $nadj, $reach_diff, $cost_diff) = split / /, $res;
		cmp_ok($npgr, '>', 20, "$weight, $dir: pgr_dijkstraCost found $npgr reachable pairs");
		is($nadj, $npgr, "$weight, $dir: shortest_path_weighted found as many");
		is($reach_diff, '0', "$weight, $dir: the same pairs are reachable");
		is($cost_diff, '0', "$weight, $dir: the same costs");

		# every step of a path is an edge (in the direction asked) whose
		# weights add up to the cost
		my $bad = $node->safe_psql('postgres', qq{
			SELECT count(*) FROM adj_$weight\_$dir a
			WHERE a.path[1] <> ('N#' || a.s)::adjkey OR a.path[cardinality(a.path)] <> ('N#' || a.t)::adjkey
			   OR abs(a.cost - (
					SELECT sum((SELECT min((g.data->>'$weight')::float8) FROM g
								WHERE ('$dir' <> 'in' AND g.pk = a.path[i] AND g.sk = ('E#' || a.path[i + 1]::text)::adjkey)
								   OR ('$dir' <> 'out' AND g.pk = a.path[i + 1] AND g.sk = ('E#' || a.path[i]::text)::adjkey)))
					FROM generate_series(1, cardinality(a.path) - 1) i)) > 1e-9 * greatest(1, a.cost)
		});
		is($bad, '0', "$weight, $dir: every path is made of edges whose weights sum to its cost");
	}
}

# the SQL read path (partitioned) gives the same paths, ties included
my $differ = $node->safe_psql('postgres', q{
	SELECT count(*) FROM adj_w_out a, adj_w_in b
	WHERE a.s = b.s AND a.t = b.t AND a.s % 3 = 0
	  AND ((SELECT ROW(path, cost) FROM shortest_path_weighted('gp', ('N#' || a.s)::adjkey, ('N#' || a.t)::adjkey, 'E#', 'w'))
			   IS DISTINCT FROM ROW(a.path, a.cost)
		OR (SELECT ROW(path, cost) FROM shortest_path_weighted('gp', ('N#' || b.s)::adjkey, ('N#' || b.t)::adjkey, 'E#', 'w', 'in'))
			   IS DISTINCT FROM ROW(b.path, b.cost))
});
is($differ, '0', 'the partitioned copy (read through SQL) gives the same paths as the plain table');

# ties: a graph where every weight is 1 has many cheapest paths; adjlist's
# answer is the same every time, with the cost of the unweighted BFS
$node->safe_psql('postgres', q{
	UPDATE g SET data = data || '{"u": 1}' WHERE sk ^@ 'E#';
	UPDATE gp SET data = data || '{"u": 1}' WHERE sk ^@ 'E#';
});
my $ties = $node->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE r1.path IS DISTINCT FROM r2.path) || ' ' ||
		   count(*) FILTER (WHERE r1.cost <> cardinality(shortest_path('g', ('N#' || s.id)::adjkey,
																	  ('N#' || t.id)::adjkey, 'E#', 20)) - 1) || ' ' ||
		   count(*)
	FROM starts s CROSS JOIN targets t,
		 LATERAL (SELECT * FROM shortest_path_weighted('g', ('N#' || s.id)::adjkey, ('N#' || t.id)::adjkey, 'E#', 'u')) r1,
		 LATERAL (SELECT * FROM shortest_path_weighted('gp', ('N#' || s.id)::adjkey, ('N#' || t.id)::adjkey, 'E#', 'u')) r2
	WHERE s.id <> t.id AND s.id % 2 = 0
});
my ($path_differs, $len_differs, $pairs) = split / /, $ties;
cmp_ok($pairs, '>', 10, "unit weights: $pairs pairs");
is($path_differs, '0', 'unit weights: both read paths choose the same of the equal paths');
is($len_differs, '0', 'unit weights: the cost is the length of the BFS shortest path');

$node->stop;
done_testing();

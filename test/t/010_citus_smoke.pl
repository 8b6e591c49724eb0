# Citus smoke test: a coordinator and two workers (CitusCluster.pm) where a
# distributed table spreads its shards over both workers, counts and joins
# with a reference table on the coordinator, and a stopped worker makes the
# queries that need it fail until it is back.  adjlist itself is only
# created on every node (its Citus support is not tested here).  Skipped
# when Citus is not installed in the server (bash test/vendor.sh citus).
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use CitusCluster;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $missing = CitusCluster::citus_missing();
plan skip_all => $missing if $missing;

my $c = CitusCluster->new('smoke');
my @workers = map { $c->worker_port($_) } 0, 1;
note 'Citus ' . $c->coord_sql("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
  . ' on ' . $c->coord_sql('SHOW server_version');

is($c->coord_sql(
		"SELECT string_agg(nodeport::text, ',' ORDER BY nodeport) FROM pg_dist_node WHERE groupid <> 0"),
	join(',', sort { $a <=> $b } @workers),
	'both workers are registered');
is($c->coord_sql('SELECT count(*) FROM pg_dist_node WHERE groupid = 0'),
	'1', 'the coordinator is registered');
for my $node ($c->nodes)
{
	is($node->safe_psql('postgres', 'SHOW max_prepared_transactions') > 0,
		1, $node->name . ': max_prepared_transactions > 0 (2PC)');
}

# adjlist: only CREATE EXTENSION, on every node.  Run on the coordinator,
# Citus propagates it to the workers (CREATE EXTENSION IF NOT EXISTS there,
# in a 2PC transaction); a worker with metadata refuses DDL of its own
# ("operation is not allowed on this node").
SKIP:
{
	skip 'adjlist is not installed in the server', 3
	  unless CitusCluster::extension_installed('adjlist');
	my ($ret, $out, $err) = $c->coord_psql('CREATE EXTENSION adjlist');
	is($ret, 0, 'CREATE EXTENSION adjlist on the coordinator') or diag $err;
	is(join(',', $c->all_sql("SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")),
		join(',', ($c->coord_sql("SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")) x 3),
		'adjlist exists on all three nodes, the same version');
	($ret, $out, $err) = $c->worker_psql(0, 'CREATE EXTENSION IF NOT EXISTS adjlist');
	like($err, qr/operation is not allowed on this node/,
		'a worker refuses CREATE EXTENSION of its own (the coordinator propagates it)');
}

# a distributed table
$c->coord_sql(q{
	CREATE TABLE t (pk text, sk text, data jsonb, PRIMARY KEY (pk, sk));
	SELECT create_distributed_table('t', 'pk');
	INSERT INTO t SELECT 'U#' || (i % 100), 'F#' || i, jsonb_build_object('i', i, 'cat', 'c' || (i % 10))
	  FROM generate_series(1, 1000) i;
});
is($c->coord_sql('SELECT count(*) FROM t'), '1000', '1000 rows counted on the coordinator');
is($c->coord_sql("SELECT count(*) FROM t WHERE pk = 'U#7'"), '10', 'a router query on one shard');
is($c->coord_sql(
		"SELECT string_agg(DISTINCT nodeport::text, ',' ORDER BY nodeport::text) FROM citus_shards WHERE table_name = 't'::regclass"),
	join(',', sort @workers), 'the shards of t are on both workers');

# on each worker: its shards of t, and the rows in them (Citus hides shards
# from pg_class unless citus.override_table_visibility is off)
my $total = 0;
for my $i (0, 1)
{
	my @shards = split /\n/, $c->worker_sql($i, q{
		SET citus.override_table_visibility TO off;
		SELECT relname FROM pg_class WHERE relname ~ '^t_[0-9]+$' AND relkind = 'r';
	});
	cmp_ok(scalar @shards, '>', 0, "worker $i holds shards of t (" . scalar(@shards) . ')');
	my $rows = @shards ? $c->worker_sql($i, 'SELECT '
		  . join(' + ', map { "(SELECT count(*) FROM $_)" } @shards)) : 0;
	cmp_ok($rows, '>', 0, "worker $i holds rows of t ($rows)");
	$total += $rows;
}
is($total, 1000, 'the workers hold the 1000 rows between them');

# a multi-shard write in a transaction: two-phase commit over both workers
# (pg_dist_transaction records a commit per worker until the maintenance
# daemon's recovery clears it)
my $twopc = 'SELECT count(*) FROM pg_dist_transaction';
my $before = $c->coord_sql($twopc);
$c->coord_sql(q{
	BEGIN;
	UPDATE t SET data = data || '{"seen": true}';
	DELETE FROM t WHERE sk = 'F#1000';
	COMMIT;
});
is($c->coord_sql(q{SELECT count(*) FROM t WHERE data ? 'seen'}), '999',
	'a multi-shard transaction committed on both workers');
cmp_ok($c->coord_sql($twopc) - $before, '>=', 2,
	'it was committed with 2PC on both workers');
is($c->coord_sql('SELECT recover_prepared_transactions()'), '0',
	'no prepared transaction to recover');
is(join(',', map { $c->worker_sql($_, 'SELECT count(*) FROM pg_prepared_xacts') } 0, 1),
	'0,0', 'no prepared transaction left on the workers');

# a reference table: a copy on every node, joined with t
$c->coord_sql(q{
	CREATE TABLE r (cat text PRIMARY KEY, label text);
	SELECT create_reference_table('r');
	INSERT INTO r SELECT 'c' || i, 'label ' || i FROM generate_series(0, 9) i;
});
is($c->coord_sql('SELECT count(*) FROM r'), '10', 'the reference table has its rows');
for my $i (0, 1)
{
	is($c->worker_sql($i, q{
		SET citus.override_table_visibility TO off;
		SELECT count(*) FROM pg_class WHERE relname ~ '^r_[0-9]+$' AND relkind = 'r';
	}), '1', "worker $i has a copy of the reference table");
}
is($c->coord_sql(q{
	SELECT count(*) FROM t JOIN r ON r.cat = t.data->>'cat' WHERE r.label = 'label 3'}),
	'100', 'a join of the distributed table with the reference table');

# fault: a worker stopped, then back
$c->stop_worker(1);
my ($ret, $out, $err) = $c->coord_psql('SELECT count(*) FROM t');
isnt($ret, 0, 'with a worker down, a query over all shards fails');
note "the error: $err";
$c->start_worker(1);
is($c->coord_sql('SELECT count(*) FROM t'), '999', 'the worker is back: the count works again');

$c->stop;
done_testing();

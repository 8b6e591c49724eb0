# CALL create_inverted_index(..., concurrently => true) under load.
#
# pgbench clients insert, delete, move (key updates) and upsert rows of
# tables with tens of thousands of rows while indexes are built
# concurrently on them: a plain table (with counters and a projection), a
# partitioned one (into a partitioned, write-sharded index table), and a
# table that already has an index and so its triggers.  Every index must
# come out exact (verify, counters, row for row), and no writer may fail
# (a build locks the rows of a range FOR SHARE SKIP LOCKED and never waits
# for a writer while it holds row locks, so they cannot deadlock).  A
# poller watches inverted_index_progress.  Then the ways a
# build ends early: the builder's backend terminated, the server stopped
# with "immediate" mid-build, and a dump taken mid-build: each leaves an
# index that is registered and not ready, that readers refuse, that
# writers keep, and that rebuild_inverted_index() completes.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);
use AdjlistTAP;

my $node = adjlist_node('concurrently', max_connections => 40);

# U#1..U#400 x F#1..F#300, one in three pairs present: 40,000 rows a table
my $fill = q{
	SELECT ('U#' || p)::adjkey, ('F#' || s)::adjkey, jsonb_build_object('v', p * s)
	FROM generate_series(1, 400) p, generate_series(1, 300) s WHERE (p + s) % 3 = 0};
$node->safe_psql('postgres', qq{
	CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO edges $fill;
	CREATE TABLE parted (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
	CREATE TABLE parted_0 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE parted_1 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	INSERT INTO parted $fill;
	CREATE TABLE second (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO second $fill;
	SELECT create_inverted_index('second', index_name => 'second_first');
	CREATE SEQUENCE moves;
	VACUUM ANALYZE;
});

# the load: each script on each table
my $vars = <<'V';
\set p random(1, 400)
\set s random(1, 300)
\set s2 random(1, 300)
\set v random(1, 1000000)
V
my %scripts;
for my $t (qw(edges parted second))
{
	my $k = q{('U#' || :p)::adjkey, ('F#' || :s)::adjkey};
	my $where = q{pk = ('U#' || :p)::adjkey AND sk = ('F#' || :s)::adjkey};
	$scripts{"ins_$t\@4"} = "$vars INSERT INTO $t VALUES ($k, jsonb_build_object('w', :v)) ON CONFLICT DO NOTHING;\n";
	$scripts{"del_$t\@3"} = "$vars DELETE FROM $t WHERE $where;\n";
	$scripts{"upd_$t\@3"} = "$vars UPDATE $t SET data = jsonb_build_object('u', :v) WHERE $where;\n";
	# a key move to a key no row has (the sequence makes it fresh)
	$scripts{"mov_$t\@3"} = "$vars UPDATE $t SET sk = ('M#' || nextval('moves'))::adjkey WHERE $where;\n";
	$scripts{"ups_$t\@2"} = "$vars INSERT INTO $t VALUES ($k, jsonb_build_object('x', :v))"
	  . " ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;\n";
	$scripts{"tx_$t\@2"} = "$vars BEGIN;\n"
	  . "DELETE FROM $t WHERE pk = ('U#' || :p)::adjkey AND sk = ('F#' || :s2)::adjkey;\n"
	  . "INSERT INTO $t VALUES ($k, NULL) ON CONFLICT DO NOTHING;\n"
	  . "UPDATE $t SET data = jsonb_build_object('t', :v) WHERE pk = ('U#' || :p)::adjkey;\n"
	  . "COMMIT;\n";
}

# the builds, one after the other, while the load runs
my $build_sql = $node->basedir . '/builds.sql';
append_to_file($build_sql, q{
SELECT pg_sleep(1);
\timing on
CALL create_inverted_index('edges', concurrently => true, include => '{data}', counters => 1);
CALL create_inverted_index('parted', concurrently => true, partitions => 3, write_shards => 4,
						   counters => 1, include => '{data}');
CALL create_inverted_index('second', concurrently => true, index_name => 'second_late', include => '{*}');
\timing off
SELECT 'built';
});
my ($bout, $berr) = ('', '');
my $builder = IPC::Run::start(
	[ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $build_sql ],
	'>', \$bout, '2>', \$berr);

# the poller: what inverted_index_progress showed, ten times a second
my $poll_sql = $node->basedir . '/poll.sql';
my $poll = "SELECT string_agg(index_table::text || ' ' || phase || ' ' || coalesce(blocks_done, 0) || '/'"
  . " || coalesce(blocks_total, 0), ',') FROM inverted_index_progress;\nSELECT pg_sleep(0.1) \\g /dev/null\n";
append_to_file($poll_sql, $poll x 150);
my ($pout, $perr) = ('', '');
my $poller = IPC::Run::start(
	[ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $poll_sql ],
	'>', \$pout, '2>', \$perr);

$node->pgbench(
	'-n -c 6 -j 2 -T 15 --max-tries=20 --failures-detailed',
	0,
	[
		qr{number of transactions actually processed: [1-9]\d*},
		qr{number of failed transactions: 0 }
	],
	[qr{^(?!.*(?:aborted|ERROR))}s],
	'pgbench load on the three tables while their indexes are built',
	\%scripts,
	'postgres');

$builder->finish;
is($?, 0, 'the three concurrent builds finished') or diag($berr);
like($bout, qr/built/, 'builder reached its end');
note("build times: " . join(', ', $bout =~ /Time: ([\d.]+ ms)/g));
$poller->finish;
my %phases = map { /^\S+ (\D+) / ? ($1 => 1) : () } map { split /,/ } split /\n/, $pout;
ok($phases{'backfilling'}, 'the progress view showed a build backfilling');
my ($some_blocks) = grep { m{backfilling [1-9]\d*/[1-9]} } map { split /,/ } split /\n/, $pout;
ok(defined $some_blocks, 'the progress view counted blocks done of blocks total')
  or diag($pout);
note("progress seen: " . join(' ', sort keys %phases));

for my $idx (qw(edges_inverted parted_inverted second_late second_first))
{
	is(drift_rows($node, 'postgres', $idx), '', "$idx: verify finds nothing after the load");
}
is($node->safe_psql('postgres', q{
	SELECT string_agg(indexrel::text || ':' || ready, ',' ORDER BY indexrel::text)
	FROM adjlist_inverted_indexes}),
	'edges_inverted:true,parted_inverted:true,second_first:true,second_late:true',
	'every index is ready');
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM (SELECT sk, pk, data FROM edges EXCEPT ALL SELECT sk, pk, data FROM edges_inverted) d)
	     + (SELECT count(*) FROM (SELECT sk, pk, data FROM edges_inverted EXCEPT ALL SELECT sk, pk, data FROM edges) d)
	     + (SELECT count(*) FROM (SELECT * FROM second EXCEPT ALL SELECT pk, sk, data FROM second_late) d)
	     + (SELECT count(*) FROM (SELECT pk, sk, data FROM second_late EXCEPT ALL SELECT * FROM second) d)}),
	'0', 'index tables equal their base tables row for row');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (
		SELECT pk, count(*) FROM edges GROUP BY pk
		EXCEPT
		SELECT node, sum(n) FROM edges_inverted_degree WHERE direction = 'o' GROUP BY node) d}),
	'0', 'out-degree counters equal a recount');
my ($moved) = $node->safe_psql('postgres', q{SELECT count(*) FROM edges WHERE sk ^@ 'M#'});
cmp_ok($moved, '>', 10, "the load moved keys during the builds ($moved rows)");
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
is($node->psql('postgres', q{
	SELECT bt_index_parent_check('edges_inverted_pkey', true);
	SELECT bt_index_parent_check('second_late_pkey', true);}),
	0, 'amcheck finds the new btrees sound');

# ----------------------------------------------------------------------
# Builds that end early
# ----------------------------------------------------------------------

# A build that a row lock holds in its backfill, so that it can be caught
# there: a session keeps a row of the last range locked.
sub start_held_build
{
	my ($table, $index) = @_;
	my ($hout, $herr) = ('', '');
	my $holder = IPC::Run::start(
		[ 'psql', '-X', '-At', '-d', $node->connstr('postgres') . ' application_name=holder', '-c',
		  qq{BEGIN; SELECT 1 FROM $table WHERE pk = 'U#400' AND sk = 'F#299' FOR UPDATE; SELECT pg_sleep(600)} ],
		'>', \$hout, '2>', \$herr);
	$node->poll_query_until('postgres',
		q{SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = 'holder' AND query LIKE '%pg_sleep%'})
	  or die 'the holder did not lock its row';
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-At', '-d', $node->connstr('postgres'), '-c',
		  "CALL create_inverted_index('$table', concurrently => true, index_name => '$index', counters => 1)" ],
		'>', \$out, '2>', \$err);
	# until it waits for the lock in its backfill
	$node->poll_query_until('postgres', qq{
		SELECT count(*) > 0 FROM inverted_index_progress p
		JOIN pg_stat_activity a ON a.pid = p.pid
		WHERE p.index_table::text = '$index' AND p.phase = 'backfilling' AND a.wait_event_type = 'Lock'})
	  or die "the build of $index did not reach its backfill";
	return ($holder, $h, \$err);
}

# Let the holder go.
sub release
{
	my ($holder) = @_;
	$node->safe_psql('postgres',
		q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'});
	$holder->finish;
}

sub check_not_ready_then_rebuild
{
	my ($db, $table, $index, $what) = @_;
	is($node->safe_psql($db, "SELECT ready FROM adjlist_inverted_indexes WHERE indexrel = '$index'::regclass"),
		'f', "$what: the index is registered and not ready");
	my ($ret, $out, $err) = $node->psql($db,
		"SELECT * FROM reverse_neighbors('$table', 'F#3', '')");
	like($err, qr/inverted index "$index" is not ready/, "$what: readers refuse it");
	# writers keep it meanwhile
	$node->safe_psql($db, "INSERT INTO $table VALUES ('U#$index', 'F#new', NULL)");
	is($node->safe_psql($db, "SELECT count(*) FROM $index WHERE pk = 'U#$index'"), '1',
		"$what: a write reaches it");
	cmp_ok($node->safe_psql($db, "SELECT rebuild_inverted_index('$index')"), '>', 0,
		"$what: rebuild_inverted_index() completes it");
	is($node->safe_psql($db, "SELECT ready FROM adjlist_inverted_indexes WHERE indexrel = '$index'::regclass"),
		't', "$what: ready after the rebuild");
	is(drift_rows($node, $db, $index), '', "$what: exact after the rebuild");
	is($node->safe_psql($db, "SELECT count(*) > 0 FROM reverse_neighbors('$table', 'F#3', '')"),
		't', "$what: readers use it");
}

$node->safe_psql('postgres', qq{CREATE TABLE early (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO early $fill;});

# the builder's backend terminated
{
	my ($holder, $h, $err) = start_held_build('early', 'early_term');
	$node->safe_psql('postgres', q{
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL create_inverted_index%'});
	$h->finish;
	like($$err, qr/terminat/, 'terminated: the builder saw its end');
	release($holder);
	check_not_ready_then_rebuild('postgres', 'early', 'early_term', 'terminated');
	$node->safe_psql('postgres', "SELECT drop_inverted_index('early_term')");
}

# a dump taken during a build, and restored
{
	my ($holder, $h, $err) = start_held_build('early', 'early_dump');
	my $dump = $node->basedir . '/during_build.dump';
	$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
		'dump: pg_dump during a build');
	release($holder);
	$h->finish;
	is($node->safe_psql('postgres', "SELECT ready FROM adjlist_inverted_indexes WHERE indexrel = 'early_dump'::regclass"),
		't', 'dump: the build itself went on to the end');
	$node->safe_psql('postgres', 'CREATE DATABASE restored');
	$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'dump: pg_restore');
	# the registration (not ready) came before the triggers: the CREATE
	# TRIGGER of post-data completed the index from the table (index_restore.c)
	is($node->safe_psql('restored', "SELECT ready FROM adjlist_inverted_indexes WHERE indexrel = 'early_dump'::regclass"),
		't', 'restored from a dump taken mid-build: post-data completed the index and made it ready');
	is(drift_rows($node, 'restored', 'early_dump'), '', 'restored from a dump taken mid-build: exact');
	is($node->safe_psql('restored', "SELECT count(*) FROM reverse_neighbors('early', 'F#3', '')"),
		$node->safe_psql('restored', "SELECT count(*) FROM early WHERE sk = 'F#3'"),
		'restored from a dump taken mid-build: readers use it and find every edge');
	$node->safe_psql('restored', "INSERT INTO early VALUES ('U#early_dump', 'F#new', NULL)");
	is($node->safe_psql('restored', "SELECT count(*) FROM early_dump WHERE pk = 'U#early_dump'"), '1',
		'restored from a dump taken mid-build: a write reaches it');
	$node->safe_psql('postgres', "SELECT drop_inverted_index('early_dump')");
}

# the server stopped with "immediate" during a build
{
	my ($holder, $h, $err) = start_held_build('early', 'early_crash');
	$node->stop('immediate');
	$h->finish;
	$holder->finish;
	$node->start;
	check_not_ready_then_rebuild('postgres', 'early', 'early_crash', 'crashed');
	is($node->safe_psql('postgres', "SELECT count(*) = (SELECT count(*) FROM early) FROM early_crash"),
		't', 'crashed: every row is in the index after the rebuild');
}

$node->stop;
done_testing();

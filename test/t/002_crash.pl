# Crash in the middle of a write load: after an immediate shutdown
# (no checkpoint, WAL replay at restart) the inverted indexes must still
# match their base table, and no committed row may be lost from either.
#
# pgbench clients run the colliding load of 001_stress.pl on keys U#*; a
# logger client (psql) inserts edges L#<id> that nobody else touches, each
# in a transaction that also records the id in commit_log, and prints
# "acked <id>" once the server has acknowledged the COMMIT.  After the
# crash: every acked id is in commit_log, and every id in commit_log has
# its edge in the table and in both indexes.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(sleep time);
use AdjlistTAP;

my $rounds        = 2;
my $load_seconds  = 7;
my $logger_txns   = 60000;    # more than it can do before the crash

my $node = adjlist_node('crash');
$node->safe_psql('postgres', edges_schema() . load_setup_sql() . q{
	CREATE TABLE commit_log (id bigint PRIMARY KEY, pk adjkey NOT NULL, sk adjkey NOT NULL);
	SELECT create_inverted_index('edges');
	SELECT create_inverted_index('edges', include => '{*}', index_name => 'edges_all');
});

# pgbench script files, written once
my $scripts = load_scripts();
my @script_opts;
for my $name (sort keys %$scripts)
{
	(my $file = $node->basedir . "/$name") =~ s/\@\d+$//;
	append_to_file($file, $scripts->{$name});
	push @script_opts, '-f', $node->basedir . "/$name";
}

$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');

for my $round (1 .. $rounds)
{
	# the logger's script: one edge and its log row per transaction
	my $first = $round * 1_000_000;
	my $logger_sql = $node->basedir . "/logger_$round.sql";
	my $sql = '';
	for my $id ($first .. $first + $logger_txns - 1)
	{
		my $sk = 'F#' . ($id % 10 + 1);
		$sql .= "BEGIN;\n"
		  . "INSERT INTO edges VALUES ('L#$id', '$sk', '{\"id\": $id}');\n"
		  . "INSERT INTO commit_log VALUES ($id, 'L#$id', '$sk');\n"
		  . "COMMIT;\n\\echo acked $id\n";
	}
	append_to_file($logger_sql, $sql);

	# outputs go to files: a pipe nobody reads while we sleep would fill
	# up and stall the clients
	my $bout = $node->basedir . "/pgbench_$round.out";
	my $berr = $node->basedir . "/pgbench_$round.err";
	my $lout = $node->basedir . "/logger_$round.out";
	my $lerr = $node->basedir . "/logger_$round.err";
	my $pgbench = IPC::Run::start(
		[
			'pgbench', '-n', '-h', $node->host, '-p', $node->port,
			'-c', '3', '-j', '2', '-T', '120', '--max-tries=50',
			@script_opts, 'postgres'
		],
		'>', $bout, '2>', $berr);
	my $logger = IPC::Run::start(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr('postgres'), '-f', $logger_sql
		],
		'>', $lout, '2>', $lerr);

	# let the load run, then pull the plug in the middle of it, while the
	# logger is still committing
	my $logged_sql = "SELECT count(*) FROM commit_log WHERE id >= $first";
	sleep($load_seconds - 1);
	my $before1 = $node->safe_psql('postgres', $logged_sql);
	sleep(1);
	my $before2 = $node->safe_psql('postgres', $logged_sql);
	note("round $round: $before1, then $before2 logged edges before the crash");
	cmp_ok($before2, '>', $before1, "round $round: the logger was busy just before the crash");
	$node->stop('immediate');

	# the clients die with their connections
	$logger->finish;
	my $logger_status = $?;
	$pgbench->finish;
	my $pgbench_status = $?;
	note("round $round: pgbench exit status " . ($pgbench_status >> 8)
		  . ", logger exit status " . ($logger_status >> 8));
	isnt($pgbench_status, 0, "round $round: pgbench was cut off by the crash");
	isnt($logger_status, 0, "round $round: the logger was cut off by the crash")
	  or diag("the logger finished all $logger_txns transactions before the crash");
	like(slurp_file($berr), qr/server closed the connection|terminating connection|connection to server|backend died/,
		"round $round: pgbench lost its connections")
	  or diag(slurp_file($berr));

	my $log_offset = -s $node->logfile;
	$node->start;
	ok($node->log_contains('database system was interrupted|redo starts at', $log_offset),
		"round $round: the server ran crash recovery");

	my @acked = slurp_file($lout) =~ /^acked (\d+)$/mg;
	note("round $round: " . scalar(@acked) . " commits acknowledged to the logger");
	cmp_ok(scalar(@acked), '>', 50, "round $round: the logger committed during the load");

	my $acked_array = '{' . join(',', @acked) . '}';
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM unnest('$acked_array'::bigint[]) a(id)
		WHERE NOT EXISTS (SELECT 1 FROM commit_log c WHERE c.id = a.id)}),
		'0', "round $round: every acknowledged commit survived the crash");
	my $logged = $node->safe_psql('postgres',
		"SELECT count(*) FROM commit_log WHERE id >= $first");
	cmp_ok($logged, '>=', $before2, "round $round: the logger went on committing until the crash");
	ok($logged == @acked || $logged == @acked + 1,
		"round $round: commit_log holds the acknowledged commits and at most the one in flight")
	  or diag("logged $logged, acknowledged " . scalar(@acked));

	# every logged edge (of this round and the ones before) is in the
	# table and in both indexes, with its projection
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.pk = c.pk AND e.sk = c.sk)}),
		'0', "round $round: every logged edge is in the base table");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges_inverted i WHERE i.sk = c.sk AND i.pk = c.pk)}),
		'0', "round $round: every logged edge is in the KEYS_ONLY index");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges_all i
		                  WHERE i.sk = c.sk AND i.pk = c.pk
		                    AND i.data = jsonb_build_object('id', c.id))}),
		'0', "round $round: every logged edge is in the ALL index");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM edges e
		WHERE e.pk ^@ 'L#' AND NOT EXISTS (SELECT 1 FROM commit_log c WHERE c.pk = e.pk)}),
		'0', "round $round: no edge of the logger without its log row");

	# and nothing drifted anywhere, including the U#* rows of pgbench
	is(drift_rows($node, 'postgres', 'edges_inverted'), '',
		"round $round: KEYS_ONLY index has no drift after recovery");
	is(drift_rows($node, 'postgres', 'edges_all'), '',
		"round $round: ALL index has no drift after recovery");
	my ($base, $inv, $all) = split /\|/, $node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM edges WHERE pk IS NOT NULL AND sk IS NOT NULL),
		       (SELECT count(*) FROM edges_inverted), (SELECT count(*) FROM edges_all)});
	note("round $round: rows: base $base, edges_inverted $inv, edges_all $all");
	is("$inv $all", "$base $base", "round $round: index row counts equal the base table's");
	is($node->psql('postgres', q{
		SELECT bt_index_parent_check('edges_inverted_pkey', true);
		SELECT bt_index_parent_check('edges_all_pkey', true);
		SELECT bt_index_parent_check('edges_pkey', true);}),
		0, "round $round: amcheck finds the btrees sound after recovery");
}

# the triggers still work after recovery
$node->safe_psql('postgres', q{
	INSERT INTO edges VALUES ('U#after', 'F#crash', '{"x": 1}');
	UPDATE edges SET sk = 'F#moved' WHERE pk = 'U#after';
	DELETE FROM edges WHERE pk ^@ 'L#1';
});
is($node->safe_psql('postgres', q{SELECT pk FROM edges_inverted WHERE sk = 'F#moved'}),
	'U#after', 'writes after recovery reach the index');
is(drift_count($node, 'postgres', 'edges_inverted') . ' ' . drift_count($node, 'postgres', 'edges_all'),
	'0 0', 'no drift after writes following recovery');

$node->stop;
done_testing();

# A real kill -9 in the middle of a concurrent write load.
#
# 002_crash.pl stops the server with an immediate shutdown (pg_ctl -m
# immediate: SIGQUIT, which the server handles).  Here nothing is asked:
#
#   round 1: SIGKILL of one busy backend; the postmaster notices the
#            unexpected death, kills every other backend and runs crash
#            recovery by itself (no restart from outside);
#   round 2: SIGKILL of the postmaster itself, then of every process left
#            (what an OOM killer or a machine losing power leaves behind),
#            and a restart from outside.
#
# During each round pgbench clients run the colliding load of 001_stress.pl
# (inserts, deletes, key moves, upserts, savepoints, rollbacks) and a logger
# commits edges L#<id> together with a commit_log row, printing "acked <id>"
# once the server has acknowledged the COMMIT.  After recovery: every
# acknowledged commit is there (commit_log, base table, every index), and
# verify_inverted_index() returns no rows for any index, including a
# partitioned one with degree counters and a write-sharded one.  (Only one
# of the indexes is written through SQL: two such indexes on one table make
# every INSERT fail on adjlist 0.2, see the multi_sql scenario of
# test/random/consistency.py; that is not what this test is about.)
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

my $load_seconds = 6;
my $logger_txns  = 60000;    # more than it can do before the kill

my @indexes = qw(edges_inverted edges_all edges_ws);

my $node = adjlist_node('kill9', restart_after_crash => 'on');
$node->safe_psql('postgres', edges_schema() . load_setup_sql() . q{
	CREATE TABLE commit_log (id bigint PRIMARY KEY, pk adjkey NOT NULL, sk adjkey NOT NULL);
	SELECT create_inverted_index('edges');
	SELECT create_inverted_index('edges', include => '{*}', index_name => 'edges_all', partitions => 2,
	                             counters => 4);
	SELECT create_inverted_index('edges', include => '{data}', index_name => 'edges_ws', write_shards => 4);
});

my $scripts = load_scripts();
my @script_opts;
for my $name (sort keys %$scripts)
{
	(my $file = $node->basedir . "/$name") =~ s/\@\d+$//;
	append_to_file($file, $scripts->{$name});
	push @script_opts, '-f', $node->basedir . "/$name";
}

# the processes whose parent is $pid (Linux /proc)
sub children_of
{
	my ($pid) = @_;
	my @kids;
	opendir(my $dh, '/proc') or return ();
	for my $p (grep { /^\d+$/ } readdir($dh))
	{
		open(my $fh, '<', "/proc/$p/stat") or next;
		my $stat = <$fh>;
		close($fh);
		next unless defined $stat;
		# pid (comm) state ppid ...; comm may contain spaces and parentheses
		push @kids, $p if $stat =~ /\)\s+\S+\s+(\d+)/ && $1 == $pid;
	}
	closedir($dh);
	return @kids;
}

sub alive { my ($pid) = @_; return kill(0, $pid); }

sub postmaster_pid
{
	my $pidfile = $node->data_dir . '/postmaster.pid';
	open(my $fh, '<', $pidfile) or die "no $pidfile: $!";
	my $pid = <$fh>;
	close($fh);
	chomp $pid;
	return $pid;
}

for my $round (1 .. 2)
{
	my $how = $round == 1 ? 'SIGKILL of a backend' : 'SIGKILL of the postmaster';
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
			'-d', $node->connstr('postgres') . ' application_name=logger', '-f', $logger_sql
		],
		'>', $lout, '2>', $lerr);

	my $logged_sql = "SELECT count(*) FROM commit_log WHERE id >= $first";
	sleep($load_seconds - 1);
	my $before1 = $node->safe_psql('postgres', $logged_sql);
	sleep(1);
	my $before2 = $node->safe_psql('postgres', $logged_sql);
	note("round $round: $before1, then $before2 logged edges before the kill");
	cmp_ok($before2, '>', $before1, "round $round: the logger was busy just before the kill");

	my $log_offset = -s $node->logfile;
	my $pm = postmaster_pid();
	if ($round == 1)
	{
		# a pgbench backend that is in the middle of something
		my $victim = $node->safe_psql('postgres', q{
			SELECT pid FROM pg_stat_activity
			WHERE backend_type = 'client backend' AND application_name <> 'logger'
			  AND pid <> pg_backend_pid() AND datname = 'postgres'
			ORDER BY state = 'active' DESC, pid LIMIT 1});
		ok($victim =~ /^\d+$/, "round 1: found a pgbench backend ($victim)");
		note("round 1: kill -9 backend $victim (postmaster $pm)");
		kill('KILL', $victim);
		# the postmaster kills the others and recovers by itself; wait for
		# it to notice first: a connection it accepts before it has reaped
		# the victim proves nothing about the recovery
		my $deadline = time() + 60;
		sleep(0.1)
		  until $node->log_contains('all server processes terminated; reinitializing', $log_offset)
		  || time() > $deadline;
		ok($node->log_contains("PID $victim\\) was terminated by signal 9", $log_offset),
			'round 1: the postmaster saw the backend die of SIGKILL');
		ok($node->log_contains('all server processes terminated; reinitializing', $log_offset),
			'round 1: the postmaster reinitialized');
		# (poll_query_until's psql may find the server still refusing
		# connections and exit before it reads its query: IPC::Run then dies
		# of the broken pipe; that is a retry, not a failure)
		my $back = 0;
		for (1 .. 100)
		{
			$back = eval { $node->poll_query_until('postgres', q{SELECT pg_is_in_recovery() = false}) };
			last if $back;
			sleep(0.2);
		}
		ok($back, 'round 1: the server is back after its own crash recovery');
		is(postmaster_pid(), $pm, 'round 1: the same postmaster is still running');
	}
	else
	{
		my @kids = children_of($pm);
		note("round 2: kill -9 postmaster $pm (children: @kids)");
		$node->kill9;    # SIGKILL of the postmaster pid
		# what is left dies of the postmaster's death, or gets SIGKILL too
		my $deadline = time() + 10;
		sleep(0.1) while (grep { alive($_) } $pm, @kids) && time() < $deadline;
		my @left = grep { alive($_) } @kids;
		note("round 2: still alive after 10 s, killed too: @left") if @left;
		kill('KILL', @left) if @left;
		sleep(0.1) while (grep { alive($_) } @left) && time() < $deadline + 10;
		ok(!alive($pm), 'round 2: the postmaster is dead');
		$node->start;
		ok($node->log_contains('database system was interrupted|redo starts at', $log_offset),
			'round 2: the server ran crash recovery at restart');
	}

	# the clients lost their connections
	$logger->finish;
	my $logger_status = $?;
	$pgbench->finish;
	my $pgbench_status = $?;
	note("round $round: pgbench exit status " . ($pgbench_status >> 8)
		  . ", logger exit status " . ($logger_status >> 8));
	isnt($logger_status, 0, "round $round: the logger was cut off by the kill")
	  or diag("the logger finished all $logger_txns transactions before the kill");
	like(slurp_file($berr), qr/server closed the connection|terminating connection|connection to server|backend died|could not receive data/,
		"round $round: pgbench lost its connections")
	  or diag(slurp_file($berr));

	my @acked = slurp_file($lout) =~ /^acked (\d+)$/mg;
	note("round $round: " . scalar(@acked) . " commits acknowledged to the logger");
	cmp_ok(scalar(@acked), '>', 50, "round $round: the logger committed during the load");

	my $acked_array = '{' . join(',', @acked) . '}';
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM unnest('$acked_array'::bigint[]) a(id)
		WHERE NOT EXISTS (SELECT 1 FROM commit_log c WHERE c.id = a.id)}),
		'0', "round $round ($how): no acknowledged commit was lost");
	my $logged = $node->safe_psql('postgres', $logged_sql);
	ok($logged == @acked || $logged == @acked + 1,
		"round $round: commit_log holds the acknowledged commits and at most the one in flight")
	  or diag("logged $logged, acknowledged " . scalar(@acked));

	# every logged edge (this round's and the earlier ones') is in the table
	# and in every index
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.pk = c.pk AND e.sk = c.sk)}),
		'0', "round $round: every logged edge is in the base table");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges_inverted i WHERE i.sk = c.sk AND i.pk = c.pk)}),
		'0', "round $round: every logged edge is in edges_inverted");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges_all i
		                  WHERE i.sk = c.sk AND i.pk = c.pk AND i.data = jsonb_build_object('id', c.id))}),
		'0', "round $round: every logged edge is in edges_all, with its projection");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM commit_log c
		WHERE NOT EXISTS (SELECT 1 FROM edges_ws i
		                  WHERE i.sk = write_shard_key(c.sk, c.pk, 4) AND i.pk = c.pk)}),
		'0', "round $round: every logged edge is in the write-sharded edges_ws");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM edges e
		WHERE e.pk ^@ 'L#' AND NOT EXISTS (SELECT 1 FROM commit_log c WHERE c.pk = e.pk)}),
		'0', "round $round: no logger edge without its log row");

	for my $idx (@indexes)
	{
		is(drift_rows($node, 'postgres', $idx), '',
			"round $round ($how): verify_inverted_index('$idx') returns no rows");
	}
	my ($base, $inv, $all, $ws) = split /\|/, $node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM edges), (SELECT count(*) FROM edges_inverted),
		       (SELECT count(*) FROM edges_all), (SELECT count(*) FROM edges_ws)});
	note("round $round: rows: base $base, edges_inverted $inv, edges_all $all, edges_ws $ws");
	is("$inv $all $ws", "$base $base $base", "round $round: index row counts equal the base table's");
	# in-degrees of the F# targets, from the counters of edges_all
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM (SELECT sk, count(*) n FROM edges WHERE sk ^@ 'F#' GROUP BY sk) e
		WHERE edge_count('edges_all', key_tail(e.sk, 1), 'F', 'in') <> e.n}),
		'0', "round $round: edge_count of every F# target equals a recount");
}

# the triggers still work after two kills
$node->safe_psql('postgres', q{
	INSERT INTO edges VALUES ('U#after', 'F#kill9', '{"x": 1}');
	UPDATE edges SET sk = 'F#moved' WHERE pk = 'U#after';
	DELETE FROM edges WHERE pk ^@ 'L#1';
});
is($node->safe_psql('postgres', q{SELECT pk FROM edges_inverted WHERE sk = 'F#moved'}),
	'U#after', 'writes after recovery reach the index');
for my $idx (@indexes)
{
	is(drift_count($node, 'postgres', $idx), '0', "no drift in $idx after writes following recovery");
}

$node->stop;
done_testing();

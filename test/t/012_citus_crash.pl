# adjlist on Citus: the coordinator crashes while write-API transactions
# are in flight, and Citus's two-phase commit recovery leaves the inverted
# index exact.
#
# A coordinator and two workers (CitusCluster.pm); a distributed table e
# and its API-mode inverted index with counters, created after
# create_distributed_table (adjlist distributes e_inverted by sk and
# e_inverted_degree by node).  Twice, background psql sessions write
# through the write API in a loop (put_edges batches of 20 edges spread
# over both workers, and explicit transactions of three put_edge calls),
# each printing "ok" after every commit, while one more put_edge is
# stopped at a chosen point of Citus's two-phase commit, and the
# coordinator is killed with pg_ctl -m immediate:
#
#   round 1  both workers have PREPAREd the target transaction, the
#            coordinator has not committed it.  A deferred constraint
#            trigger on the index shard of worker 1 holds its PREPARE on
#            an advisory lock; once worker 0 shows the prepared
#            transaction and worker 1's backend waits on the lock, the
#            coordinator backend is stopped (SIGSTOP), the lock released,
#            and worker 1 shows the prepared transaction too.  Recovery
#            (recover_prepared_transactions()) must roll both back.
#   round 2  the coordinator has committed (its commit record, with the
#            pg_dist_transaction rows, is in its WAL) and not yet sent
#            COMMIT PREPARED: the target session has synchronous_commit =
#            on while synchronous_standby_names names a standby that never
#            comes, so its backend waits in SyncRep after its local commit
#            (every other session commits with synchronous_commit =
#            local).  Recovery (here the maintenance daemon, whose
#            interval is set to 1 s after the restart) must commit both.
#
# Both points are reached by construction, not by timing: each round
# checks that the target's prepared transactions are on both workers
# before the kill and still there after the restart (the daemon's
# recovery is off until then).  After each recovery: no prepared
# transaction left on the workers, verify_inverted_index clean, the
# counters equal a recount of the base table (summed and through
# edge_count), every batch a session reported committed is in the base
# table and in the index, and every batch is there whole or not at all.
#
# Skipped, saying so, when Citus or adjlist is not installed in the
# server (bash test/vendor.sh citus; make install).
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use CitusCluster;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $missing = CitusCluster::citus_missing();
plan skip_all => $missing if $missing;
plan skip_all => 'adjlist is not installed in the server (make install)'
  unless CitusCluster::extension_installed('adjlist');

my $t0 = time;
sub stamp { note sprintf('[%.1f s] %s', time - $t0, $_[0]); }

my $c = CitusCluster->new('crash',
	conf => { 'citus.shard_count' => 8, log_min_messages => 'warning' });
my $coord = $c->coordinator;
my @wport = map { $c->worker_port($_) } 0, 1;
# on the coordinator only: no automatic 2PC recovery until the test asks
# for it, and a synchronous standby that never connects (sessions commit
# with synchronous_commit = local unless they ask for more)
$coord->append_conf('postgresql.conf', <<'CONF');
citus.recover_2pc_interval = -1
synchronous_standby_names = 'crash_test_no_such_standby'
synchronous_commit = local
CONF
$coord->restart;
stamp('cluster up');
note 'Citus ' . $c->coord_sql("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
  . ', PostgreSQL ' . $c->coord_sql('SHOW server_version');

$c->coord_sql(q{
	CREATE EXTENSION adjlist;
	CREATE TABLE e (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	SELECT create_distributed_table('e', 'pk');
	SELECT create_inverted_index('e', mode => 'api', counters => 1);
});
is($c->coord_sql(q{SELECT string_agg(logicalrelid::text || ':' || partmethod::text, ',' ORDER BY logicalrelid::text)
	FROM pg_dist_partition WHERE logicalrelid::text ^@ 'e'}),
	'e:h,e_inverted:h,e_inverted_degree:h',
	'e, its index and its counters are distributed tables');
# a graph to start from: 500 edges onto 40 targets
$c->coord_sql(q{SELECT put_edges('e', (SELECT jsonb_agg(jsonb_build_object(
	'pk', 'USER#p' || i, 'sk', 'FOLLOWS#USER#t' || (i % 40), 'data', jsonb_build_object('i', i)))
	FROM generate_series(1, 500) i))});
is($c->coord_sql('SELECT count(*) FROM e') . ',' . $c->coord_sql('SELECT count(*) FROM e_inverted'),
	'500,500', '500 edges in the base and the index');

# ---------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------
sub lit { my ($s) = @_; $s =~ s/'/''/g; return "'$s'"; }

# the port of the worker holding the shard of a key of table t
sub port_of
{
	my ($t, $key) = @_;
	return "(SELECT p.nodeport FROM pg_dist_shard_placement p WHERE p.shardid = "
	  . "get_shard_id_for_distribution_column('$t', ($key)::adjkey))";
}

sub wait_for
{
	my ($what, $cond, $timeout) = @_;
	my $until = time + ($timeout // 60);
	while (time < $until)
	{
		return 1 if $cond->();
		usleep(50_000);
	}
	diag "timed out waiting for $what";
	return 0;
}

my $psql = sub { return ('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $_[0]); };

# the prepared transactions of a coordinator backend on worker i
sub prepared_of
{
	my ($i, $pid) = @_;
	return $c->worker_sql($i, "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'citus\\_0\\_${pid}\\_%'");
}
# the gids of those, on both workers, as an SQL list
sub gids_of
{
	my ($pid) = @_;
	return join(', ', map { lit($_) } map {
		split /\n/, $c->worker_sql($_, "SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'citus\\_0\\_${pid}\\_%'")
	} 0, 1);
}
sub prepared_on { return $c->worker_sql($_[0], 'SELECT count(*) FROM pg_prepared_xacts'); }

# Background writers: sessions s (each its own psql, its own script) that
# write batch after batch and print "ok s b n" after each commit.  Keys:
# pk USER#w<s>_<b>_<i>, sk FOLLOWS#USER#t<0..39>.  Sessions with $tx write
# BEGIN; three put_edge; COMMIT, the others one put_edges of 20 edges.
my $dir = PostgreSQL::Test::Utils::tempdir;
my %batch_size;    # "s_b" => edges in it
sub writer_script
{
	my ($s, $tx, $nbatches) = @_;
	my $sql = '';
	for my $b (1 .. $nbatches)
	{
		my $n = $tx ? 3 : 20;
		$batch_size{"${s}_$b"} = $n;
		my @edges = map {
			[ "USER#w${s}_${b}_$_", 'FOLLOWS#USER#t' . (($s * 131 + $b * 17 + $_ * 7) % 40), "{\"s\": $s, \"b\": $b}" ]
		} 1 .. $n;
		if ($tx)
		{
			$sql .= "BEGIN;\n";
			$sql .= "SELECT put_edge('e', " . lit($_->[0]) . ', ' . lit($_->[1]) . ', ' . lit($_->[2]) . ") AS x \\gset\n"
			  for @edges;
			$sql .= "COMMIT;\n\\echo ok $s $b $n\n";
		}
		else
		{
			my $json = '[' . join(', ', map { "{\"pk\": \"$_->[0]\", \"sk\": \"$_->[1]\", \"data\": $_->[2]}" } @edges) . ']';
			$sql .= "SELECT put_edges('e', " . lit($json) . ") AS n \\gset\n\\echo ok $s $b :n\n";
		}
	}
	my $f = "$dir/writer_$s.sql";
	open my $fh, '>', $f or die "$f: $!";
	print $fh $sql;
	close $fh;
	return $f;
}

sub start_writers
{
	my @s = @_;
	my @w;
	for my $s (@s)
	{
		my $tx = $s % 4 == 0;
		my $f = writer_script($s, $tx, 4000);
		# output to files: a pipe nobody reads would stop the writer
		my $h = IPC::Run::start([ $psql->($coord->connstr('postgres')), '-f', $f ],
			'<', \my $empty, '>', "$f.out", '2>', "$f.err", IPC::Run::timeout(600));
		push @w, { s => $s, h => $h, out => "$f.out", err => "$f.err" };
	}
	return \@w;
}

# (PostgreSQL::Test::Utils::slurp_file dies on a missing file; a worker may not have written yet)
sub read_or_empty { my ($f) = @_; open my $fh, "<", $f or return ""; local $/; my $s = <$fh>; return $s // ""; }
sub ok_lines { my ($w) = @_; my @l = read_or_empty($w->{out}) =~ /^ok \d+ \d+ \d+$/mg; return scalar @l; }

# wait until every writer has committed a few batches
sub writers_running
{
	my ($w, $n) = @_;
	return wait_for("$n commits per writer", sub {
		return !grep { ok_lines($_) < $n } @$w;
	});
}

# the writers' sessions end with the coordinator; returns the batches
# they reported committed
sub reap_writers
{
	my ($w, $committed) = @_;
	for my $x (@$w)
	{
		eval { $x->{h}->finish; };
		my @ok = read_or_empty($x->{out}) =~ /^ok (\d+) (\d+) (\d+)$/mg;
		my $err = read_or_empty($x->{err});
		my $n = 0;
		while (my ($s, $b, $k) = splice(@ok, 0, 3))
		{
			$committed->{"${s}_$b"} = $k;
			$n++;
		}
		(my $e = $err) =~ s/\s+/ /g;
		note "writer $x->{s}: $n batches committed; ended with: " . substr($e, 0, 200);
		cmp_ok($n, '>=', 3, "writer $x->{s} committed batches before the crash");
		unlike($err, qr/ERROR/, "writer $x->{s}: no SQL error before the connection was lost")
		  or diag $err;
	}
	return;
}

# After recovery: the whole state, checked.
my %committed;    # "s_b" => edges, of every batch a writer saw committed
sub check_state
{
	my ($label) = @_;
	is(prepared_on(0) . ',' . prepared_on(1), '0,0', "$label: no prepared transaction left on the workers");
	is($c->coord_sql("SELECT count(*) FROM verify_inverted_index('e_inverted')"), '0',
		"$label: verify_inverted_index is clean")
	  or diag $c->coord_sql("SELECT problem || ' ' || key::text FROM verify_inverted_index('e_inverted') LIMIT 20");
	my $base = $c->coord_sql('SELECT count(*) FROM e');
	is($c->coord_sql('SELECT count(*) FROM e_inverted'), $base, "$label: as many index rows as base rows ($base)");

	# every batch whole or absent, in the base and in the index; every
	# committed batch present
	my $per_batch = sub {
		my ($t) = @_;
		my %n = map { split /\|/ } split /\n/, $c->coord_sql(
			"SELECT substr(split_part(pk::text, '_', 1), 7) || '_' || split_part(pk::text, '_', 2), count(*)
			 FROM $t WHERE pk::text LIKE 'USER#w%' GROUP BY 1");
		return \%n;
	};
	my ($inb, $ini) = ($per_batch->('e'), $per_batch->('e_inverted'));
	my (@partial, @lost, @mismatch);
	my ($whole, $absent, $doubt) = (0, 0, 0);
	for my $k (sort keys %batch_size)
	{
		my ($b, $i) = ($inb->{$k} // 0, $ini->{$k} // 0);
		push @mismatch, "$k base $b index $i" if $b != $i;
		push @partial, "$k base $b of $batch_size{$k}" if $b != 0 && $b != $batch_size{$k};
		push @lost, "$k base $b index $i" if $committed{$k} && ($b != $committed{$k} || $i != $committed{$k});
		if ($b == 0) { $absent++; }
		else { $whole++; $doubt++ unless $committed{$k}; }
	}
	my @stray = grep { !$batch_size{$_} } keys %$inb;
	is(scalar @lost, 0, "$label: every batch reported committed (" . scalar(keys %committed)
		  . ') is in the base table and in the index') or diag join("\n", @lost[ 0 .. ($#lost < 9 ? $#lost : 9) ]);
	is(scalar @partial, 0, "$label: no batch half-applied in the base table")
	  or diag join("\n", @partial[ 0 .. ($#partial < 9 ? $#partial : 9) ]);
	is(scalar @mismatch, 0, "$label: every batch has as many index rows as base rows")
	  or diag join("\n", @mismatch[ 0 .. ($#mismatch < 9 ? $#mismatch : 9) ]);
	is(scalar @stray, 0, "$label: no row of an unknown batch") or diag join(' ', @stray);
	note "$label: $whole batches in (of them $doubt in flight at the crash, no ok seen); the others never ran or were rolled back";

	# counters: the sums of e_inverted_degree against a recount of e
	my %recount;
	for my $row (split /\n/, $c->coord_sql(
			"SELECT pk::text, count(*) FROM e WHERE sk::text LIKE 'FOLLOWS#%' GROUP BY 1"))
	{
		my ($node, $n) = split /\|/, $row;
		$recount{"$node FOLLOWS o"} = $n;
	}
	for my $row (split /\n/, $c->coord_sql(
			"SELECT key_tail(sk, 1)::text, count(*) FROM e WHERE sk::text LIKE 'FOLLOWS#%' GROUP BY 1"))
	{
		my ($node, $n) = split /\|/, $row;
		$recount{"$node FOLLOWS i"} = $n;
	}
	my %sums;
	for my $row (split /\n/, $c->coord_sql(
			'SELECT node::text, edge, direction, sum(n) FROM e_inverted_degree GROUP BY 1, 2, 3 HAVING sum(n) <> 0'))
	{
		my ($node, $edge, $dir, $n) = split /\|/, $row;
		$sums{"$node $edge $dir"} = $n;
	}
	my @bad = grep { ($sums{$_} // 0) != ($recount{$_} // 0) } sort keys %{ { %sums, %recount } };
	is(scalar @bad, 0, "$label: the counters equal a recount of the base table (" . scalar(keys %recount) . ' groups)')
	  or diag join("\n", map { "$_: counters " . ($sums{$_} // 0) . ', recount ' . ($recount{$_} // 0) } @bad[ 0 .. ($#bad < 9 ? $#bad : 9) ]);
	# and through edge_count, for every target and a sample of sources
	# (edge_count in a statement of its own: in one with a router query on
	# a distributed table, Citus would run it on a worker)
	my @nodes = ((map { "USER#t$_ FOLLOWS i" } 0 .. 39),
		(grep { defined } (sort grep { / o$/ } keys %recount)[ 0 .. 19 ]));
	my @ec = map {
		my ($node, $edge, $dir) = split / /;
		"SELECT " . lit($_) . " || '|' || edge_count('e_inverted', " . lit($node) . ", 'FOLLOWS', '"
		  . ($dir eq 'i' ? 'in' : 'out') . "')";
	} @nodes;
	my @diff = grep { my ($k, $n) = split /\|/; $n != ($recount{$k} // 0) } split /\n/, $c->coord_sql(join(";\n", @ec));
	is(scalar @diff, 0, "$label: edge_count equals the recount for " . scalar(@nodes) . ' nodes')
	  or diag join("\n", map { my ($k) = split /\|/; "$_ (recount " . ($recount{$k} // 0) . ')' } @diff);
	return;
}

# the edge a target transaction writes: its base row on worker 0 and its
# index row on worker 1, so that both workers take part in its 2PC
sub target_edge
{
	my ($tag) = @_;
	my $pk = $c->coord_sql("SELECT 'USER#$tag' || i FROM generate_series(1, 500) i WHERE "
		  . port_of('e', "'USER#$tag' || i") . " = $wport[0] LIMIT 1");
	my $sk = $c->coord_sql("SELECT 'FOLLOWS#USER#$tag' || i FROM generate_series(1, 500) i WHERE "
		  . port_of('e_inverted', "'FOLLOWS#USER#$tag' || i") . " = $wport[1] LIMIT 1");
	ok($pk ne '' && $sk ne '', "target edge $pk -> $sk: base row on worker 0, index row on worker 1");
	return ($pk, $sk);
}

sub edge_rows
{
	my ($pk, $sk) = @_;
	return $c->coord_sql('SELECT count(*) FROM e WHERE pk = ' . lit($pk) . ' AND sk = ' . lit($sk)) . ','
	  . $c->coord_sql('SELECT count(*) FROM e_inverted WHERE sk = ' . lit($sk) . ' AND pk = ' . lit($pk));
}

sub target_pid
{
	my ($app) = @_;
	my $pid = '';
	wait_for("the backend of $app", sub {
		$pid = $c->coord_sql("SELECT pid FROM pg_stat_activity WHERE application_name = '$app'");
		return $pid ne '';
	});
	return $pid;
}

# ---------------------------------------------------------------------
# Round 1: prepared on both workers, not committed on the coordinator
# ---------------------------------------------------------------------
stamp('round 1');
my ($pk1, $sk1) = target_edge('crashA');
my $shard1 = $c->coord_sql("SELECT 'e_inverted_' || get_shard_id_for_distribution_column('e_inverted', "
	  . lit($sk1) . '::adjkey)');
# on worker 1, a deferred trigger that holds the target's PREPARE on an
# advisory lock (a worker refuses DDL of its own unless propagation is off;
# shards are written by hand only with enable_manual_changes_to_shards)
$c->worker_sql(1, qq{
	SET citus.enable_ddl_propagation TO off;
	SET citus.enable_manual_changes_to_shards TO on;
	CREATE FUNCTION crash_hold() RETURNS trigger LANGUAGE plpgsql AS \$\$
	BEGIN PERFORM pg_advisory_lock(4242); PERFORM pg_advisory_unlock(4242); RETURN NULL; END \$\$;
	CREATE CONSTRAINT TRIGGER crash_hold AFTER INSERT ON $shard1 DEFERRABLE INITIALLY DEFERRED
	  FOR EACH ROW WHEN (NEW.pk::text = ${\ lit($pk1)}) EXECUTE FUNCTION crash_hold();
});
my ($hin, $hout) = ('', '');
my $holder = IPC::Run::start([ $psql->($c->worker(1)->connstr('postgres')) ],
	'<', \$hin, '>', \$hout, '2>', \my $herr, IPC::Run::timeout(300));
$hin .= "SELECT pg_advisory_lock(4242);\n\\echo locked\n";
$holder->pump until $hout =~ /locked/;

my $writers = start_writers(1, 2, 3, 4);
ok(writers_running($writers, 3), 'round 1: four writer sessions are committing');

my ($tout, $terr) = ('', '');
my $target = IPC::Run::start([ $psql->($coord->connstr('postgres') . ' application_name=crash_target1'),
		'-c', 'SELECT put_edge(\'e\', ' . lit($pk1) . ', ' . lit($sk1) . ", '{\"target\": 1}')" ],
	'<', \my $empty1, '>', \$tout, '2>', \$terr, IPC::Run::timeout(300));
my $pid1 = target_pid('crash_target1');
ok(wait_for('PREPARE on worker 0 and the held PREPARE on worker 1', sub {
			prepared_of(0, $pid1) == 1
			  && $c->worker_sql(1, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") >= 1;
		}),
	'round 1: worker 0 has prepared the target transaction, worker 1 holds its PREPARE');
ok(kill('STOP', $pid1), "round 1: the coordinator backend ($pid1) is stopped (SIGSTOP)");
$hin .= "SELECT pg_advisory_unlock(4242);\n\\q\n";
$holder->finish;
ok(wait_for('PREPARE on worker 1', sub { prepared_of(1, $pid1) == 1 }),
	'round 1: worker 1 has prepared it too');
is($c->coord_sql('SELECT count(*) FROM pg_dist_transaction WHERE gid IN (' . gids_of($pid1) . ')'), '0',
	'round 1: the coordinator has not committed it (no pg_dist_transaction row visible)');
stamp('round 1: killing the coordinator');
$coord->stop('immediate');    # the stopped backend is SIGKILLed after 5 s
$target->finish;
like($terr, qr/connection|terminat|server closed/i, 'round 1: the target session lost its connection');
reap_writers($writers, \%committed);
is(prepared_of(0, $pid1) . ',' . prepared_of(1, $pid1), '1,1',
	'round 1: with the coordinator down, the target is prepared on both workers');

$coord->start;
stamp('round 1: coordinator restarted');
my $left = prepared_on(0) + prepared_on(1);
cmp_ok($left, '>=', 2, "round 1: after the restart, $left prepared transactions wait on the workers");
note 'round 1: ' . ($left - 2) . " prepared transaction(s) of the writers were caught in 2PC too";
my $recovered = $c->coord_sql('SELECT recover_prepared_transactions()');
is($recovered, $left, "round 1: recover_prepared_transactions() resolved all of them ($recovered)");
is(edge_rows($pk1, $sk1), '0,0', 'round 1: the target put_edge is rolled back: in neither the base nor the index');
# the trigger goes (not before: the prepared transaction held a lock on the shard)
$c->worker_sql(1, qq{
	SET citus.enable_ddl_propagation TO off;
	SET citus.enable_manual_changes_to_shards TO on;
	DROP TRIGGER crash_hold ON $shard1;
	DROP FUNCTION crash_hold();
});
check_state('round 1');
stamp('round 1 checked');

# ---------------------------------------------------------------------
# Round 2: committed on the coordinator, COMMIT PREPARED not sent
# ---------------------------------------------------------------------
my ($pk2, $sk2) = target_edge('crashB');
$writers = start_writers(5, 6, 7, 8);
ok(writers_running($writers, 3), 'round 2: four writer sessions are committing');
($tout, $terr) = ('', '');
$target = IPC::Run::start([ $psql->($coord->connstr('postgres') . ' application_name=crash_target2'),
		'-c', 'SET synchronous_commit TO on',
		'-c', 'SELECT put_edge(\'e\', ' . lit($pk2) . ', ' . lit($sk2) . ", '{\"target\": 2}')" ],
	'<', \my $empty2, '>', \$tout, '2>', \$terr, IPC::Run::timeout(300));
my $pid2 = target_pid('crash_target2');
ok(wait_for('the target committed locally, waiting for the standby', sub {
			$c->coord_sql("SELECT wait_event FROM pg_stat_activity WHERE pid = $pid2") eq 'SyncRep';
		}),
	'round 2: the target transaction committed on the coordinator and waits (SyncRep)');
is(prepared_of(0, $pid2) . ',' . prepared_of(1, $pid2), '1,1',
	'round 2: it is prepared on both workers, COMMIT PREPARED not sent');
stamp('round 2: killing the coordinator');
$coord->stop('immediate');
$target->finish;
reap_writers($writers, \%committed);
is(prepared_of(0, $pid2) . ',' . prepared_of(1, $pid2), '1,1',
	'round 2: with the coordinator down, the target is still prepared on both workers');

$coord->start;
stamp('round 2: coordinator restarted');
is(prepared_of(0, $pid2) . ',' . prepared_of(1, $pid2), '1,1',
	'round 2: after the restart, still prepared (no recovery yet)');
is($c->coord_sql('SELECT count(*) FROM pg_dist_transaction WHERE gid IN (' . gids_of($pid2) . ')'), '2',
	"round 2: the coordinator's WAL kept its commit decision (two pg_dist_transaction rows)");
note 'round 2: ' . (prepared_on(0) + prepared_on(1) - 2) . " prepared transaction(s) of the writers were caught in 2PC too";
# now the maintenance daemon's recovery, every second
$c->coord_sql(q{ALTER SYSTEM SET citus.recover_2pc_interval = '1s'; SELECT pg_reload_conf()});
ok(wait_for('the maintenance daemon to recover', sub { prepared_on(0) + prepared_on(1) == 0 }, 120),
	"round 2: Citus's maintenance daemon resolved every prepared transaction");
is(edge_rows($pk2, $sk2), '1,1', 'round 2: the target put_edge is committed: in the base and the index');
is($c->coord_sql('SELECT edge_count(\'e_inverted\', ' . lit(substr($sk2, 8)) . ", 'FOLLOWS', 'in') || ','"
		  . " || edge_count('e_inverted', " . lit($pk2) . ", 'FOLLOWS', 'out')"),
	'1,1', "round 2: and counted at both ends");
check_state('round 2');

# the cluster goes on: a write after both recoveries
my ($ret, $out, $err) = $c->coord_psql(q{SELECT put_edge('e', 'USER#after', 'FOLLOWS#USER#t1')});
is($ret, 0, 'a put_edge after the recoveries succeeds') or diag $err;
is($c->coord_sql("SELECT count(*) FROM verify_inverted_index('e_inverted')"), '0',
	'verify_inverted_index is clean at the end');
stamp('done');
$c->stop;
done_testing();

# Time to live swept on a schedule with pg_cron (README, "Time to live and
# the payload column").
#
# The README's examples of that section, as written: the plain ```sql block
# (a table with an expiry column and an inverted index, reads that skip the
# expired items, one sweep) and the ```sql pg_cron block (the schedule).
# Then thousands of expired items, some live ones and some that never
# expire, with degree counters on the index; pg_cron's worker runs the
# README's job, and the test waits for it: every expired item gone with its
# index rows and counters, nothing live touched, the run recorded as
# succeeded.
#
# pg_cron is not part of PostgreSQL (Debian: postgresql-15-cron, which
# test/check.sh installs); where it is not installed the test skips, saying
# so.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $pkglibdir = `$ENV{PG_CONFIG} --pkglibdir`;
chomp $pkglibdir;
plan skip_all => "pg_cron is not installed in $pkglibdir (Debian: postgresql-15-cron)"
  unless -f "$pkglibdir/pg_cron.so";

my $node = adjlist_node('cron',
	shared_preload_libraries     => 'pg_cron',
	'cron.database_name'         => 'postgres',
	'cron.use_background_workers' => 'on',
	max_worker_processes         => 16);

# The README section's blocks: the first ```sql one, and the ```sql pg_cron one.
my $readme = "$FindBin::RealBin/../../README.md";
open my $fh, '<', $readme or die "$readme: $!";
my @lines = <$fh>;
close $fh;
chomp @lines;
my ($in_section, $fence, @block, $example, $schedule);
for my $line (@lines)
{
	if ($line =~ /^#+ /)
	{
		$in_section = ($line eq '### Time to live and the payload column');
		next;
	}
	next unless $in_section;
	if (!defined $fence && ($line eq '```sql' || $line eq '```sql pg_cron'))
	{
		$fence = $line;
		@block = ();
		next;
	}
	if (defined $fence && $line eq '```')
	{
		$example = join("\n", @block) if $fence eq '```sql' && !defined $example;
		$schedule = join("\n", @block) if $fence eq '```sql pg_cron';
		undef $fence;
		next;
	}
	push @block, $line if defined $fence;
}
ok(defined $example && defined $schedule,
	'the README has the TTL example and its pg_cron schedule');

# The example as written; what it says it returns
$node->safe_psql('postgres', $example);
is( $node->safe_psql('postgres',
		"SELECT string_agg(sort_key::text, ',' ORDER BY sort_key) FROM query('sessions', 'USER#a')"),
	'SESSION#2,SESSION#3',
	'README: query() skips the expired item');
is($node->safe_psql('postgres', 'SELECT count(*) FROM sessions'),
	'2', 'README: the sweep deleted the expired item');

# Many more, with counters on the index: expired, live, never expiring
$node->safe_psql('postgres', q{
SELECT create_inverted_index('sessions', counters => 1, index_name => 'sessions_by_device');
INSERT INTO sessions
SELECT 'USER#' || (g % 97), 'SESSION#' || g, jsonb_build_object('device', 'd' || (g % 5)),
	   now() - (g || ' seconds')::interval
FROM generate_series(10, 3009) g;
INSERT INTO sessions
SELECT 'USER#' || (g % 97), 'SESSION#' || g, '{"device": "d1"}',
	   CASE WHEN g % 2 = 0 THEN now() + interval '1 day' END
FROM generate_series(5000, 5099) g;
});
is($node->safe_psql('postgres', 'SELECT count(*) FROM sessions'),
	'3102', 'loaded: 3000 expired, 102 live');
my $live_before = $node->safe_psql('postgres',
	'SELECT string_agg(pk::text || sk::text, \',\' ORDER BY pk, sk) FROM sessions
	 WHERE expires IS NULL OR expires > now()');

# The README's schedule; pg_cron runs it at the start of the next minute
$node->safe_psql('postgres', $schedule);
is( $node->safe_psql('postgres',
		"SELECT command FROM cron.job WHERE jobname = 'sweep sessions'"),
	q{SELECT sweep_expired('public.sessions', 5000)},
	'the job is scheduled');

my $swept = $node->poll_query_until('postgres',
	q{SELECT count(*) = 102 FROM sessions}, 't');
ok($swept, 'pg_cron swept every expired item within its first run')
  or diag($node->safe_psql('postgres',
	'SELECT status, return_message FROM cron.job_run_details'));

is( $node->safe_psql('postgres',
		'SELECT string_agg(pk::text || sk::text, \',\' ORDER BY pk, sk) FROM sessions'),
	$live_before, 'the live items are the ones left, untouched');
is( $node->safe_psql('postgres',
		q{SELECT (SELECT count(*) FROM verify_inverted_index('sessions_inverted'))}
		  . q{ + (SELECT count(*) FROM verify_inverted_index('sessions_by_device'))}),
	'0', 'both indexes exact after the scheduled sweep');
is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM sessions_by_device i
		WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.pk = i.pk AND s.sk = i.sk)}),
	'0', 'no index row of a swept item is left');
is( $node->safe_psql('postgres', q{
		SELECT sum(edge_count('sessions_by_device', n::adjkey, 'SESSION', 'out'))
		FROM (SELECT 'USER#' || u FROM generate_series(0, 96) u UNION ALL SELECT 'USER#a') x(n)}),
	'102', 'the degree counters count the live items only');
ok( $node->safe_psql('postgres', q{
		SELECT bool_and(status = 'succeeded') AND count(*) >= 1 FROM cron.job_run_details d
		JOIN cron.job j USING (jobid) WHERE j.jobname = 'sweep sessions' AND d.status <> 'running'}) eq 't',
	'pg_cron recorded the run as succeeded');

$node->stop;
done_testing();

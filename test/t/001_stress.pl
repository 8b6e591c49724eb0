# Concurrent load: pgbench clients insert, delete, move and upsert rows of
# one table over a small key space, so that they collide all the time; the
# inverted indexes must come out exactly as their base table says, and must
# look so to every snapshot taken while the load runs.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use AdjlistTAP;

my $clients  = 4;
my $duration = 18;

my $node = adjlist_node('stress');

# a table with rows before the indexes exist (backfill), two indexes: the
# default KEYS_ONLY one, and one projecting every column (so that upserts
# changing data rewrite index rows)
$node->safe_psql('postgres', edges_schema() . load_setup_sql() . q{
	INSERT INTO edges
	SELECT ('U#' || p)::adjkey, ('F#' || s)::adjkey, jsonb_build_object('v', p * s)
	FROM generate_series(1, 10) p, generate_series(1, 10) s WHERE (p + s) % 3 = 0;
	SELECT create_inverted_index('edges');
	SELECT create_inverted_index('edges', include => '{*}', index_name => 'edges_all');
});
is(drift_count($node, 'postgres', 'edges_inverted'), '0', 'backfilled KEYS_ONLY index is consistent');
is(drift_count($node, 'postgres', 'edges_all'), '0', 'backfilled ALL index is consistent');

# While the load runs, a reader checks both indexes twice a second.
# verify_inverted_index() reads the table and the index in one snapshot,
# and the triggers write the index in the writer's transaction, so every
# snapshot must see zero drift, not only the final one.  Every few checks
# it also runs rebuild_inverted_index(), which locks the writers out while
# it compares, and must find nothing to repair.
my $checks = int($duration * 2) - 2;
my $verify_sql = $node->basedir . '/verify_during_load.sql';
my $check_sql =
	"SELECT 'verify ' || (SELECT count(*) FROM verify_inverted_index('edges_inverted'))"
  . " || ' ' || (SELECT count(*) FROM verify_inverted_index('edges_all'))"
  . " FROM pg_sleep(0.5);\n";
my $rebuild_sql = "SELECT 'rebuild ' || rebuild_inverted_index('edges_all');\n";
my $round_sql = $check_sql x 3 . $rebuild_sql;
append_to_file($verify_sql, $round_sql x int($checks / 3));
my ($vout, $verr) = ('', '');
my $reader = IPC::Run::start(
	[ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $verify_sql ],
	'>', \$vout, '2>', \$verr);

# Meanwhile another session creates two more indexes, and drops one: the
# backfill must not miss rows written around it, and the writers must pick
# up the new registrations at once.
my $ddl_sql = $node->basedir . '/ddl_during_load.sql';
append_to_file($ddl_sql, q{
	SELECT pg_sleep(4);
	SELECT create_inverted_index('edges', include => '{data}', index_name => 'edges_late');
	SELECT pg_sleep(3);
	SELECT create_inverted_index('edges', index_name => 'edges_late2', partitions => 2);
	SELECT pg_sleep(3);
	SELECT drop_inverted_index('edges_late2');
	SELECT pg_sleep(2);
	SELECT create_inverted_index('edges', sort_key => 'pk', partition_key => 'sk',
	                             index_name => 'edges_late3', partitions => 3);
});
my ($dout, $derr) = ('', '');
my $ddl = IPC::Run::start(
	[ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', $ddl_sql ],
	'>', \$dout, '2>', \$derr);

$node->pgbench(
	"-n -c $clients -j 2 -T $duration --max-tries=50 --failures-detailed",
	0,
	[
		qr{number of transactions actually processed: [1-9]\d*},
		qr{number of failed transactions: 0 }
	],
	[qr{^(?!.*(?:aborted|ERROR))}s],
	'pgbench load with colliding inserts, deletes, key moves and upserts',
	load_scripts(),
	'postgres');

$reader->finish;
is($?, 0, 'reader ran every check') or diag($verr);
my @seen = split /\n/, $vout;
note('reader: ' . scalar(grep { /^verify/ } @seen) . ' verifications, '
	  . scalar(grep { /^rebuild/ } @seen) . ' rebuilds during the load');
cmp_ok(scalar(grep { /^verify/ } @seen), '>=', 10, 'reader checked the indexes during the load');
cmp_ok(scalar(grep { /^rebuild/ } @seen), '>=', 3, 'reader rebuilt an index during the load');
is_deeply([ grep { $_ ne 'verify 0 0' && $_ ne 'rebuild 0' } @seen ], [],
	'no snapshot saw drift, no rebuild found anything to repair during the load');

$ddl->finish;
is($?, 0, 'indexes created and dropped during the load') or diag($derr);

# the load changed a lot, and the triggers followed
my ($ins, $del) = split /\|/, $node->safe_psql('postgres',
	"SELECT n_tup_ins, n_tup_del FROM pg_stat_user_tables WHERE relname = 'edges_inverted'");
note("index rows inserted $ins, deleted $del during the test");
cmp_ok($ins, '>', 1000, 'the index saw many inserts');
cmp_ok($del, '>', 1000, 'the index saw many deletes');

is(drift_rows($node, 'postgres', 'edges_inverted'), '', 'KEYS_ONLY index: verify finds nothing after the load');
is(drift_rows($node, 'postgres', 'edges_all'), '', 'ALL index: verify finds nothing after the load');
is(drift_rows($node, 'postgres', 'edges_late'), '', 'index created during the load: verify finds nothing');
is(drift_rows($node, 'postgres', 'edges_late3'), '',
	'partitioned index created during the load: verify finds nothing');
is($node->safe_psql('postgres', q{
	SELECT string_agg(indexrel::text, ',' ORDER BY indexrel::text) FROM adjlist_inverted_indexes}),
	'edges_all,edges_inverted,edges_late,edges_late3', 'registry after the DDL during the load');
is($node->safe_psql('postgres', q{SELECT to_regclass('edges_late2')}), '',
	'the index dropped during the load is gone');

my $counts = $node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM edges WHERE pk IS NOT NULL AND sk IS NOT NULL),
	       (SELECT count(*) FROM edges_inverted),
	       (SELECT count(*) FROM edges_all),
	       (SELECT count(*) FROM edges_late),
	       (SELECT count(*) FROM edges_late3)});
my ($base, $inv, $all, $late, $late3) = split /\|/, $counts;
note("rows: base $base, edges_inverted $inv, edges_all $all, edges_late $late, edges_late3 $late3");
cmp_ok($base, '>', 0, 'the base table is not empty');
is($inv, $base, 'KEYS_ONLY index has as many rows as the base table');
is($all, $base, 'ALL index has as many rows as the base table');
is("$late $late3", "$base $base", 'indexes created during the load have as many rows as the base table');

# the same, spelled without verify_inverted_index(): the index tables hold
# exactly the base rows, keys swapped
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM (SELECT sk, pk FROM edges
	                              EXCEPT ALL SELECT sk, pk FROM edges_inverted) d)
	     + (SELECT count(*) FROM (SELECT sk, pk FROM edges_inverted
	                              EXCEPT ALL SELECT sk, pk FROM edges) d)
	     + (SELECT count(*) FROM (SELECT sk, pk, data FROM edges
	                              EXCEPT ALL SELECT sk, pk, data FROM edges_all) d)
	     + (SELECT count(*) FROM (SELECT sk, pk, data FROM edges_all
	                              EXCEPT ALL SELECT sk, pk, data FROM edges) d)}),
	'0', 'index tables equal the base table row for row');

# the btrees of the index tables are sound and hold every heap row
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
is($node->psql('postgres', q{
	SELECT bt_index_parent_check('edges_inverted_pkey', true);
	SELECT bt_index_parent_check('edges_all_pkey', true);
	SELECT bt_index_parent_check('edges_pkey', true);}),
	0, 'amcheck finds the btrees sound');

$node->stop;
done_testing();

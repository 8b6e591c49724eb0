# adjlist on Citus: the write API on tables no trigger keeps, local or
# distributed, plain or partitioned.
#
# 1. A local table whose inverted indexes are all in API mode, in a
#    database where Citus is installed, gets no sync triggers (so that
#    Citus can distribute it later: the README's "index first" recipe).
#    put_edge, put_edges, put_edge_if, put_edge_if_absent, delete_edge,
#    delete_edge_if and delete_node must then write the index rows and
#    the counters themselves, before create_distributed_table as after
#    it; a plain INSERT is not indexed (no trigger), and
#    rebuild_inverted_index mends that.  A table that has adjlist's
#    triggers (indexed before Citus was installed in its database) is
#    kept by them: the write API must not index it a second time.
# 2. On a distributed PARTITIONED table, whose shards cannot return a
#    system column, the same calls must work and stay exact: with an index
#    keyed by the base key (an insert, then an update of the items already
#    there) and with one keyed by a generated column (read first), with
#    and without a payload column.
# 3. A table that Citus turns into a Citus local table (a foreign key to a
#    reference table) is renamed to its shard, which adjlist's registry
#    then names: the write API and the graph functions say so (55000),
#    and the index can be dropped and created again.
# Each table runs the same stream of calls, whose answers are checked, and
# then verify_inverted_index (rows and counters) must return no row for
# every index, and the in-degree counter must equal a recount.
#
# Skipped, saying so, when Citus or adjlist is not installed in the server
# (bash test/vendor.sh citus; make install).
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
plan skip_all => 'adjlist is not installed in the server (make install)'
  unless CitusCluster::extension_installed('adjlist');

my $c = CitusCluster->new('capi',
	conf => { 'citus.shard_count' => 4, log_min_messages => 'warning' });
$c->coord_sql('CREATE EXTENSION adjlist');

sub citus { return $c->coord_sql(@_); }

my $status_col =
  q{status adjkey GENERATED ALWAYS AS (adjkey('STATUS#' || (data->>'status'))) STORED};

# CREATE TABLE name: with a payload column (data) and the generated status
# column, or keys only; partitioned by hash (pk) in two partitions or not.
sub create_table
{
	my ($t, %o) = @_;
	my $cols = $o{keys_only} ? 'pk adjkey NOT NULL, sk adjkey NOT NULL'
	  : "pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb, $status_col";
	my $sql = "CREATE TABLE $t ($cols, PRIMARY KEY (pk, sk))";
	return "$sql;\n" unless $o{partitioned};
	return "$sql PARTITION BY HASH (pk);\n"
	  . "CREATE TABLE ${t}_p0 PARTITION OF $t FOR VALUES WITH (MODULUS 2, REMAINDER 0);\n"
	  . "CREATE TABLE ${t}_p1 PARTITION OF $t FOR VALUES WITH (MODULUS 2, REMAINDER 1);\n";
}

# The indexes of table t: the flip (counters), and with by_status an index
# keyed by the generated status column (counters), which a replacement
# can move.
sub index_sql
{
	my ($t, %o) = @_;
	my $sql = "SELECT create_inverted_index('$t', index_name => '${t}_flip', mode => 'api', counters => 1);\n";
	$sql .= "SELECT create_inverted_index('$t', index_name => '${t}_by_status', mode => 'api', "
	  . "partition_key => 'status', sort_key => 'pk', include => '{data}', counters => 1);\n"
	  if $o{by_status};
	return $sql;
}

sub indexes_of
{
	my ($t) = @_;
	return split /\n/, citus(
		"SELECT indexrel::text FROM adjlist_inverted_indexes WHERE baserel = '$t'::regclass ORDER BY 1");
}

# Citus: each index table by its partition key, its counters by node.
sub distribute_indexes
{
	my ($t) = @_;
	for my $ix (indexes_of($t))
	{
		my $part = $ix =~ /_by_status$/ ? 'status' : 'sk';
		citus("SELECT create_distributed_table('$ix', '$part', colocate_with => 'none')");
		citus("SELECT create_distributed_table('${ix}_degree', 'node', colocate_with => 'none')");
	}
}

# Every index of t is exact (rows and counters), and the in-degree of node
# n (key P#n) counted by the flip equals a recount of the base table.
sub check_exact
{
	my ($t, $what, @nodes) = @_;
	for my $ix (indexes_of($t))
	{
		is(citus("SELECT count(*) FROM verify_inverted_index('$ix')"), '0',
			"$what: verify_inverted_index('$ix') returns no row")
		  or diag citus("SELECT * FROM verify_inverted_index('$ix')");
	}
	for my $n (@nodes)
	{
		is(citus("SELECT edge_count('${t}_flip', 'N#$n', 'F', 'in')"),
			citus("SELECT count(*) FROM $t WHERE sk = 'F#N#$n'"),
			"$what: in-degree of N#$n equals a recount");
	}
}

# The stream of calls, on nodes named after $p; each call's answer checked.
# keys_only: no data (the table has no payload column).
sub stream
{
	my ($t, $p, %o) = @_;
	my $d = sub { $o{keys_only} ? 'NULL' : "'{\"status\": \"$_[0]\"}'" };
	my $e = sub {    # a put_edges element
		my ($pk, $sk, $st) = @_;
		return qq("pk": "N#$pk", "sk": "F#N#$sk")
		  . ($o{keys_only} || !defined $st ? '' : qq(, "data": {"status": "$st"}));
	};
	my @steps = (
		# a new item, then replaced (its status index row moves)
		[ "SELECT put_edge('$t', 'N#${p}1', 'F#N#${p}0', " . $d->('a') . ')', '' ],
		[ "SELECT put_edge('$t', 'N#${p}1', 'F#N#${p}0', " . $d->('b') . ')', '' ],
		# new and existing items, a key given twice (the last one wins)
		[ "SELECT put_edges('$t', '["
			  . join(', ', map { "{$_}" } $e->("${p}2", "${p}0", 'a'), $e->("${p}1", "${p}0", 'c'),
				$e->("${p}3", "${p}0", 'a'), $e->("${p}2", "${p}0", 'b'), $e->("${p}4", "${p}0"),
				$e->("${p}1", "${p}5", 'a'))
			  . "]')", '6' ],
		# the same items again: all there
		[ "SELECT put_edges('$t', '["
			  . join(', ', map { "{$_}" } $e->("${p}2", "${p}0", 'c'), $e->("${p}3", "${p}0", 'c'),
				$e->("${p}4", "${p}0", 'c'))
			  . "]')", '3' ],
		[ "SELECT put_edge_if_absent('$t', 'N#${p}6', 'F#N#${p}0')", 't' ],
		[ "SELECT put_edge_if_absent('$t', 'N#${p}6', 'F#N#${p}0')", 'f' ],
		[ "SELECT delete_edge('$t', 'N#${p}4', 'F#N#${p}0')", 't' ],
		[ "SELECT delete_edge('$t', 'N#${p}4', 'F#N#${p}0')", 'f' ],
		# several calls in one transaction, and a rolled back one
		[ "BEGIN; SELECT put_edge('$t', 'N#${p}7', 'F#N#${p}0', " . $d->('a') . "); "
			  . "SELECT put_edge('$t', 'N#${p}7', 'F#N#${p}5', " . $d->('b') . "); "
			  . "SELECT put_edges('$t', '[{" . $e->("${p}7", "${p}0", 'c') . '}, {'
			  . $e->("${p}8", "${p}0", 'c') . "}]'); COMMIT", "\n\n2" ],
		[ "BEGIN; SELECT put_edge('$t', 'N#${p}9', 'F#N#${p}0', " . $d->('a') . "); ROLLBACK", '' ],
		[ "SELECT delete_node('$t', 'N#${p}5', ARRAY['F#'])", '2' ],
	);
	push @steps, (
		[ "SELECT put_edge_if('$t', 'N#${p}1', 'F#N#${p}0', '{\"status\": \"d\"}', '{\"status\": \"c\"}')", 't' ],
		[ "SELECT put_edge_if('$t', 'N#${p}1', 'F#N#${p}0', '{\"status\": \"e\"}', '{\"status\": \"c\"}')", 'f' ],
		[ "SELECT delete_edge_if('$t', 'N#${p}3', 'F#N#${p}0', '{\"status\": \"x\"}')", 'f' ],
		[ "SELECT delete_edge_if('$t', 'N#${p}3', 'F#N#${p}0', '{\"status\": \"c\"}')", 't' ],
	) unless $o{keys_only};
	for my $s (@steps)
	{
		my ($ret, $out, $err) = $c->coord_psql($s->[0]);
		is($ret == 0 ? $out : "ERROR: $err", $s->[1], "$t: $s->[0]");
	}
	my $in0 = $o{keys_only} ? 6 : 5;    # N#p1, p2, p3, p6, p7, p8 (p3: delete_edge_if)
	is(citus("SELECT count(*) FROM $t WHERE sk = 'F#N#${p}0'"), $in0,
		"$t: $in0 edges point at N#${p}0");
	is(citus("SELECT edge_count('${t}_flip', 'N#${p}0', 'F', 'in')"), $in0,
		"$t: and edge_count says so");
	return;
}

sub no_triggers
{
	my ($t, $what) = @_;
	is(citus("SELECT count(*) FROM pg_trigger WHERE tgrelid = '$t'::regclass"), '0',
		"$t: no trigger on it ($what)");
}

# ---------------------------------------------------------------------
# 1. Local tables in a database with Citus, indexed first, then distributed
# ---------------------------------------------------------------------
citus(create_table('la') . index_sql('la', by_status => 1));
no_triggers('la', 'API-mode indexes in a database with Citus');
stream('la', 'a');
check_exact('la', 'local', 'a0', 'a5');
is(citus("SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('la', 'N#a0', 'F#')"),
	'N#a1,N#a2,N#a6,N#a7,N#a8', 'la: reverse_neighbors reads the index rows the write API wrote');

# a plain INSERT runs no trigger: not indexed, until rebuild_inverted_index
citus("INSERT INTO la (pk, sk, data) VALUES ('N#z1', 'F#N#a0', '{\"status\": \"a\"}')");
is(citus("SELECT count(*) FROM verify_inverted_index('la_flip') WHERE problem = 'missing'"), '1',
	'la: a plain INSERT is not indexed (no trigger runs)');
citus("SELECT rebuild_inverted_index('$_')") for indexes_of('la');
check_exact('la', 'local, after rebuild_inverted_index', 'a0');

# the same table distributed (the README's recipe), then written again
citus("SELECT create_distributed_table('la', 'pk')");
distribute_indexes('la');
check_exact('la', 'distributed', 'a0');
stream('la', 'b');
check_exact('la', 'distributed', 'a0', 'b0', 'b5');
is(citus("SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('la', 'N#a0', 'F#')"),
	'N#a1,N#a2,N#a6,N#a7,N#a8,N#z1', 'la: reverse_neighbors after distributing it');

# a local partitioned table, indexed by the base key only, then distributed
citus(create_table('lp', partitioned => 1) . index_sql('lp'));
no_triggers('lp', 'partitioned, API-mode indexes in a database with Citus');
stream('lp', 'a');
check_exact('lp', 'local partitioned', 'a0', 'a5');
citus("SELECT create_distributed_table('lp', 'pk')");
distribute_indexes('lp');
stream('lp', 'b');
check_exact('lp', 'distributed partitioned', 'a0', 'b0');

# a table with adjlist's triggers, in a database where Citus was installed
# after its index: the triggers keep it, and the write API must not index
# the rows a second time (counters)
my $coord = $c->coordinator;
$coord->safe_psql('postgres', 'CREATE DATABASE late');
$coord->safe_psql('late', 'CREATE EXTENSION adjlist');
$coord->safe_psql('late', create_table('lt') . index_sql('lt', by_status => 1));
cmp_ok($coord->safe_psql('late', "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'lt'::regclass"),
	'>', 0, 'lt: indexed before Citus was installed, it has triggers');
$coord->safe_psql('late', 'CREATE EXTENSION citus');
$coord->safe_psql('late', q{
	SELECT put_edge('lt', 'N#1', 'F#N#0', '{"status": "a"}');
	SELECT put_edge('lt', 'N#1', 'F#N#0', '{"status": "b"}');
	SELECT put_edges('lt', '[{"pk": "N#1", "sk": "F#N#0"}, {"pk": "N#2", "sk": "F#N#0"}]');
});
is($coord->safe_psql('late', q{
	SELECT (SELECT count(*) FROM verify_inverted_index('lt_flip'))
	     + (SELECT count(*) FROM verify_inverted_index('lt_by_status'))}),
	'0', 'lt: its triggers keep it, indexed once (no drift, counters exact)');
is($coord->safe_psql('late', "SELECT edge_count('lt_flip', 'N#0', 'F', 'in')"), '2',
	'lt: two edges counted');

# ---------------------------------------------------------------------
# 2. Distributed partitioned tables, indexed after create_distributed_table
# ---------------------------------------------------------------------
for my $case ([ 'dp', {} ], [ 'ds', { by_status => 1 } ], [ 'dn', { keys_only => 1 } ])
{
	my ($t, $o) = @$case;
	citus(create_table($t, partitioned => 1, %$o)
		  . "SELECT create_distributed_table('$t', 'pk');\n"
		  . index_sql($t, %$o));
	stream($t, 'a', %$o);
	stream($t, 'b', %$o);
	check_exact($t, 'distributed partitioned', 'a0', 'b0', 'a5');
}

# ---------------------------------------------------------------------
# 3. A table Citus makes a Citus local table (a foreign key to a reference
#    table) is renamed to its shard, which the registry still names: a
#    clear error, then drop_inverted_index and create_inverted_index again
# ---------------------------------------------------------------------
citus(q{
	CREATE TABLE users (id adjkey PRIMARY KEY);
	SELECT create_reference_table('users');
	INSERT INTO users VALUES ('N#1'), ('N#2');
} . create_table('cl') . index_sql('cl') . q{
	SELECT put_edge('cl', 'N#1', 'F#N#0', NULL);
	ALTER TABLE cl ADD FOREIGN KEY (pk) REFERENCES users (id);
});
for my $call ("SELECT put_edge('cl', 'N#2', 'F#N#0', NULL)",
	"SELECT count(*) FROM reverse_neighbors('cl', 'N#0', 'F#')")
{
	my ($ret, $out, $err) = $c->coord_psql($call);
	like($err, qr/Citus moved table "cl" into its shard "cl_[0-9]+", which adjlist's inverted indexes still name/,
		"cl, a Citus local table now: $call says what happened");
}
citus("SELECT drop_inverted_index('cl_flip')" . ';' . index_sql('cl')
	  . "SELECT put_edge('cl', 'N#2', 'F#N#0', NULL)");
is(citus("SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('cl', 'N#0', 'F#')"),
	'N#1,N#2', 'cl: indexed again after drop_inverted_index and create_inverted_index');
check_exact('cl', 'Citus local table', '0');

$c->stop;
done_testing();

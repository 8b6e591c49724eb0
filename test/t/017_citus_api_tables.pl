# adjlist on Citus: the write API on tables no trigger keeps, local or
# distributed, plain or partitioned.
#
# 1. A local table whose inverted indexes are all in API mode, in a
#    database where Citus is installed, gets no sync triggers (so that
#    Citus can distribute it later: the README's "index first" recipe).
#    put_edge, put_edges, put_edge_if, put_edge_if_absent, delete_edge,
#    delete_edge_if and delete_node must then write the index rows and
#    the counters themselves, before create_distributed_table as after
#    it; a plain INSERT, UPDATE, DELETE, MERGE, COPY FROM or TRUNCATE is
#    refused (no trigger would index it), also prepared before the index
#    existed, through a view, in WITH and in EXPLAIN ANALYZE, on the local
#    table and on the distributed one; a superuser's load in replica mode
#    goes through unindexed, and rebuild_inverted_index mends it.  A table that has adjlist's
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
# 4. A role that does not own the table writes it (the stream again, as
#    that role) where its index and counter tables share its shard
#    placements: a reference table, and a distributed table with
#    colocated index and counter tables.  Citus refuses two roles' writes
#    to such placements in one transaction, so the write API writes them
#    as the owner: the caller's privileges are checked (a role without
#    INSERT, UPDATE or DELETE is refused, nothing written), and where
#    row-level security applies to the caller the write is refused
#    (0A000).
# 5. sweep_expired while another session holds an expired item it just
#    renewed: on a distributed table the sweep skips it without waiting;
#    on a reference table it waits (Citus serializes the writes of a
#    reference table); never does it delete the renewed item.  A granted
#    role sweeps too.  And a local table that no trigger keeps (API-mode
#    indexes in a database with Citus) is swept with its index rows.
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
# keys_only: no data (the table has no payload column); role: made by that
# role (SET ROLE).
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
	my $as = $o{role} ? "SET ROLE $o{role}; " : '';
	for my $s (@steps)
	{
		my ($ret, $out, $err) = $c->coord_psql($as . $s->[0]);
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

# plain writes of a table no trigger keeps are refused (0A000), naming the
# table and an index; in a session that has loaded adjlist (an adjkey
# literal does, or session_preload_libraries, set here for the statements
# that name no adjkey value: DELETE without WHERE, COPY, TRUNCATE)
$c->coordinator->safe_psql('postgres',
	"ALTER DATABASE postgres SET session_preload_libraries = 'adjlist'");
sub refused
{
	my ($t, $what, $sql, $base) = @_;    # base: the table whose index is named, if not t
	$base //= $t;
	my ($ret, $out, $err) = $c->coord_psql($sql);
	like($err // '',
		qr/ERROR:  \Q$what\E on table "$t" is not supported: its inverted index "${base}_\w+" is kept by the write API only/,
		"$t: $what refused: $sql");
	like($err // '', qr/HINT:  .*(put_edge\(\)|delete_node\(\))/, "$t: with a hint naming the write API");
}
sub plain_writes_refused
{
	my ($t, $p) = @_;
	my $before = citus("SELECT count(*) FROM $t") . ' ' . citus("SELECT count(*) FROM ${t}_flip");
	refused($t, 'INSERT', "INSERT INTO $t (pk, sk) VALUES ('N#${p}z', 'F#N#${p}0')");
	refused($t, 'UPDATE', "UPDATE $t SET sk = 'F#N#${p}z' WHERE pk = 'N#${p}1'");
	refused($t, 'DELETE', "DELETE FROM $t WHERE pk = 'N#${p}1'");
	refused($t, 'DELETE', "DELETE FROM $t");
	refused($t, 'MERGE',
		"MERGE INTO $t USING (VALUES ('N#${p}1'::adjkey)) v(k) ON $t.pk = v.k WHEN MATCHED THEN DELETE");
	refused($t, 'DELETE', "WITH d AS (DELETE FROM $t WHERE pk = 'N#${p}1' RETURNING 1) SELECT count(*) FROM d");
	refused($t, 'DELETE', "EXPLAIN (ANALYZE) DELETE FROM $t WHERE pk = 'N#${p}1'");
	refused($t, 'INSERT', "PREPARE w(adjkey) AS INSERT INTO $t (pk, sk) VALUES (\$1, 'F#N#${p}0')");
	refused($t, 'COPY FROM', "COPY $t (pk, sk) FROM STDIN;\nN#${p}z\tF#N#${p}0\n\\.\n");
	refused($t, 'TRUNCATE', "TRUNCATE $t");
	is(citus("SELECT count(*) FROM $t") . ' ' . citus("SELECT count(*) FROM ${t}_flip"), $before,
		"$t: nothing was written");
}
plain_writes_refused('la', 'a');

# a statement prepared before the index existed is analysed again: refused
citus(create_table('lq'));
my ($pret, $pout, $perr) = $c->coord_psql(
	"PREPARE ins(adjkey) AS INSERT INTO lq (pk, sk) VALUES (\$1, 'F#N#q0');\n"
	  . "EXECUTE ins('N#q1');\n"
	  . index_sql('lq')
	  . "EXECUTE ins('N#q2');");
like($perr, qr/ERROR:  INSERT on table "lq" is not supported/,
	'lq: a plain INSERT prepared before the index was created is refused after');
is(citus("SELECT count(*) FROM verify_inverted_index('lq_flip')"), '0', 'lq: its index is exact');

# two SERIALIZABLE transactions putting different new items on one node of
# a table whose index key can move (a generated column): both commit, as
# the same upserts do on a table without an index (a new item is inserted
# without being read first, so no predicate lock covers its neighbours)
citus(create_table('ls')
	  . "SELECT create_inverted_index('ls', partition_key => 'status', mode => 'api');\n"
	  . "SELECT put_edges('ls', (SELECT jsonb_agg(jsonb_build_object('pk', 'N#celeb', 'sk', 'F#N#x' || i, "
	  . "'data', '{\"status\": \"c\"}'::jsonb)) FROM generate_series(1, 50) i));\n"
	  . "ANALYZE ls;");
{
	my @s = map { $c->coordinator->background_psql('postgres', on_error_stop => 0) } 1 .. 2;
	$_->query_safe('BEGIN ISOLATION LEVEL SERIALIZABLE') for @s;
	my @res;
	for my $i (0, 1)
	{
		my ($out, $failed) = $s[$i]->query(
			"SELECT put_edge('ls', 'N#celeb', 'F#N#n$i', '{\"status\": \"c\"}')");
		push @res, $failed ? "put: $s[$i]->{stderr}" : 'put';
	}
	for my $i (0, 1)
	{
		my ($out, $failed) = $s[$i]->query('COMMIT');
		push @res, $failed ? "commit: $s[$i]->{stderr}" : 'commit';
	}
	$_->quit for @s;
	is(join(', ', @res), 'put, put, commit, commit',
		'ls: two SERIALIZABLE put_edge of different new items on one node both commit');
	is(citus("SELECT count(*) FROM verify_inverted_index('ls_inverted')"), '0', 'ls: its index is exact');
}

# through an updatable view (seen at executor start, on a local table)
citus("CREATE VIEW la_v AS SELECT pk, sk, data FROM la");
refused('la', 'UPDATE', "UPDATE la_v SET data = '{}' WHERE pk = 'N#a1'");
citus("DROP VIEW la_v");

# a partition of such a table, and a foreign key's ON DELETE CASCADE
citus(create_table('lr', partitioned => 1) . index_sql('lr'));
refused('lr_p0', 'INSERT', "INSERT INTO lr_p0 (pk, sk) VALUES ('N#r1', 'F#N#r0')", 'lr');
refused('lr_p1', 'TRUNCATE', "TRUNCATE lr_p1", 'lr');
refused('lr', 'TRUNCATE', "TRUNCATE lr");
citus("CREATE TABLE lr_nodes (k adjkey PRIMARY KEY);
	INSERT INTO lr_nodes VALUES ('N#r1');
	CREATE TABLE lf (pk adjkey REFERENCES lr_nodes ON DELETE CASCADE, sk adjkey, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('lf', mode => 'api');
	SELECT put_edge('lf', 'N#r1', 'F#N#r0');");
refused('lf', 'DELETE', "DELETE FROM lr_nodes WHERE k = 'N#r1'");

# a superuser's load in session_replication_role = replica goes through
# (as no trigger fires there), unindexed, and rebuild_inverted_index mends it
citus("SET session_replication_role = replica; "
	  . "INSERT INTO la (pk, sk, data) VALUES ('N#z1', 'F#N#a0', '{\"status\": \"a\"}')");
is(citus("SELECT count(*) FROM verify_inverted_index('la_flip') WHERE problem = 'missing'"), '1',
	'la: a load in replica mode is not indexed');
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
plain_writes_refused('la', 'b');
check_exact('la', 'distributed, after the refused writes', 'a0', 'b0', 'b5');

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

# ---------------------------------------------------------------------
# 4. A role that does not own the table, where its index and counter
#    tables share its shard placements: a reference table (its index
#    tables are reference tables), and a distributed table whose index
#    and counter tables are colocated with it.  Citus refuses two roles'
#    writes to such placements in one transaction, so the write API
#    writes them as the owner, checking the caller's privileges, and
#    refusing where row-level security applies to the caller.
# ---------------------------------------------------------------------
citus(q{
	CREATE ROLE writer LOGIN;
	CREATE ROLE reader LOGIN;
	CREATE ROLE inserter LOGIN;
} . create_table('rt') . q{
	SELECT create_reference_table('rt');
} . index_sql('rt', by_status => 1) . create_table('ct') . index_sql('ct', by_status => 1) . q{
	SELECT create_distributed_table('ct', 'pk');
	SELECT create_distributed_table('ct_flip', 'sk', colocate_with => 'ct');
	SELECT create_distributed_table('ct_flip_degree', 'node', colocate_with => 'ct');
	SELECT create_distributed_table('ct_by_status', 'status', colocate_with => 'ct');
	SELECT create_distributed_table('ct_by_status_degree', 'node', colocate_with => 'ct');
});
for my $t ('rt', 'ct')
{
	is(citus("SELECT count(DISTINCT colocationid) FROM pg_dist_partition WHERE logicalrelid::text LIKE '${t}%'"),
		'1', "$t: its index and counter tables are in its colocation group");
	citus("GRANT SELECT, INSERT, UPDATE, DELETE ON $t TO writer;"
		  . "GRANT SELECT ON $t TO reader;"
		  . "GRANT SELECT, INSERT, UPDATE ON $t TO inserter");
	stream($t, 'a', role => 'writer');
	stream($t, 'b');
	check_exact($t, 'written by a granted role', 'a0', 'b0', 'a5');
	is(citus("SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('$t', 'N#a0', 'F#')"),
		'N#a1,N#a2,N#a6,N#a7,N#a8', "$t: reverse_neighbors reads what the granted role wrote");

	# no privilege, no write: the caller's privileges are checked
	my $rows = citus("SELECT count(*) FROM $t");
	for my $call ([ 'reader', "SELECT put_edge('$t', 'N#r1', 'F#N#a0', NULL)" ],
		[ 'reader', "SELECT put_edges('$t', '[{\"pk\": \"N#r1\", \"sk\": \"F#N#a0\"}]')" ],
		[ 'reader', "SELECT delete_edge('$t', 'N#a1', 'F#N#a0')" ],
		[ 'reader', "SELECT delete_node('$t', 'N#a0', ARRAY['F#'])" ],
		[ 'reader', "SELECT put_edge_if('$t', 'N#a1', 'F#N#a0', '{}', '{}')" ],
		[ 'inserter', "SELECT delete_edge('$t', 'N#a1', 'F#N#a0')" ],
		[ 'inserter', "SELECT delete_edge_if('$t', 'N#a1', 'F#N#a0', '{}')" ])
	{
		my ($ret, $out, $err) = $c->coord_psql("SET ROLE $call->[0]; $call->[1]");
		like($err, qr/permission denied for table $t/, "$t: $call->[0] may not: $call->[1]");
	}
	is(citus("SELECT count(*) FROM $t"), $rows, "$t: nothing written by the refused calls");
	my ($ret, $out, $err) = $c->coord_psql(
		"SET ROLE inserter; SELECT put_edge_if_absent('$t', 'N#i1', 'F#N#a0')");
	is($out, 't', "$t: a role with INSERT (no DELETE) may put_edge_if_absent");

	# row-level security cannot be honoured as the owner: refused, clearly
	citus("ALTER TABLE $t ENABLE ROW LEVEL SECURITY; CREATE POLICY mine ON $t USING (pk ^@ 'N#a')");
	($ret, $out, $err) = $c->coord_psql(
		"SET ROLE writer; SELECT put_edge('$t', 'N#a9', 'F#N#a0', NULL)", extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/0A000: the write API cannot honour the row-level security of Citus table "$t" for role "writer"/,
		"$t: row-level security applies to the caller: refused (0A000)");
	($ret, $out, $err) = $c->coord_psql(
		"SET ROLE writer; SET row_security = off; SELECT delete_edge('$t', 'N#a1', 'F#N#a0')");
	like($err, qr/query would be affected by row-level security policy for table "$t"/,
		"$t: with row_security off, as for the caller's own statement");
	is(citus("SELECT put_edge('$t', 'N#o1', 'F#N#a0', NULL)"), '', "$t: its owner writes it still");
	citus("DROP POLICY mine ON $t; ALTER TABLE $t DISABLE ROW LEVEL SECURITY");
	check_exact($t, 'after the refused calls', 'a0');
}

# ---------------------------------------------------------------------
# 5. sweep_expired on Citus, while another session renews an expired
#    item and holds it: on a distributed table the sweep skips it without
#    waiting; on a reference table (whose writes Citus serializes) it
#    waits, and then does not delete it: renewed, it has not expired
# ---------------------------------------------------------------------
my %make = (
	ht => "SELECT create_distributed_table('ht', 'pk');",
	rx => "SELECT create_reference_table('rx');",
	lx => '');    # local, indexed in API mode: no trigger keeps it either
for my $t ('ht', 'rx', 'lx')
{
	citus("CREATE TABLE $t (pk adjkey, sk adjkey, data jsonb,
		exp numeric GENERATED ALWAYS AS ((data->>'ttl')::numeric) STORED, PRIMARY KEY (pk, sk));"
		  . $make{$t}
		  . "SELECT set_ttl('$t', 'exp');
		SELECT create_inverted_index('$t', mode => 'api', counters => 1);
		GRANT SELECT, INSERT, UPDATE, DELETE ON $t TO writer;
		SELECT put_edge('$t', 'N#1', 'F#N#0', '{\"ttl\": 1000}');
		SELECT put_edge('$t', 'N#2', 'F#N#0', '{\"ttl\": 1000}');");
	my $renew = $c->coordinator->background_psql('postgres', on_error_stop => 0);
	$renew->query_safe("BEGIN; SELECT put_edge('$t', 'N#1', 'F#N#0', '{\"ttl\": 99999999999}')");
	my $sweep = $c->coordinator->background_psql('postgres', on_error_stop => 0);
	if ($t ne 'rx')
	{
		my ($out, $failed) = $sweep->query("SET statement_timeout = '20s'; SELECT sweep_expired('$t', 1000)");
		is($failed ? "ERROR: $sweep->{stderr}" : $out, '1',
			"$t: the sweep skips the item another session holds, without waiting, and deletes the other");
		$renew->query_safe('COMMIT');
	}
	else
	{
		$sweep->query_until(qr/sweeping/, "\\echo sweeping\nSELECT sweep_expired('$t', 1000) AS n \\gset\n");
		sleep 1;
		$renew->query_safe('COMMIT');
		is($sweep->query_safe('SELECT :n'), '1',
			"$t: the sweep waited for the renewal and did not delete the renewed item");
	}
	$renew->quit;
	$sweep->quit;
	is(citus("SELECT string_agg(pk::text || ' ' || exp, ',' ORDER BY pk) FROM $t"), 'N#1 99999999999',
		"$t: the renewed item is there, renewed");
	is(citus("SELECT string_agg(neighbor::text, ',') FROM reverse_neighbors('$t', 'N#0', 'F#')"), 'N#1',
		"$t: with its index row");
	is(citus("SELECT sweep_expired('$t', 1000)"), '0', "$t: not expired, not swept");
	citus("SELECT put_edge('$t', 'N#3', 'F#N#0', '{\"ttl\": 1000}')");
	my ($ret, $out, $err) = $c->coord_psql("SET ROLE writer; SELECT sweep_expired('$t', 1000)");
	is($ret == 0 ? $out : "ERROR: $err", '1', "$t: a granted role sweeps the expired item");
	is(citus("SELECT count(*) FROM $t"), '1', "$t: and only that one");
	is(citus("SELECT (SELECT count(*) FROM verify_inverted_index('${t}_inverted'))"), '0',
		"$t: its index and counters exact after the sweeps");
}

$c->stop;
done_testing();

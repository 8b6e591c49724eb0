# adjlist on Citus: the write API replacing items under inverted indexes
# that are not keyed by the base key, against one plain server.
#
# No trigger runs on a table Citus distributes, so the write API writes
# the rows of its API-mode indexes itself, from the base rows its
# statements return.  An index keyed by a column a replacement can change
# (here status, generated from data) must lose the item's old index row
# when put_edge, put_edges or put_edge_if replaces the item: the write API
# reads the old version first.  An index keyed by the base key, or by a
# column generated from it alone (bill, from sk), keeps its keys and only
# needs the upsert.
#
# Tables, the same on a Citus cluster (coordinator and two workers,
# CitusCluster.pm) and on a plain server, where the triggers keep the same
# indexes (the reference):
#   mv   PRIMARY KEY (pk, sk), distributed by pk, then indexed: by status
#        (include data, counters), by status with write shards (counters),
#        by bill (include data), the flip (include *, counters, write
#        shards)
#   mvb  as mv, indexed before it is distributed (the README's recipe:
#        then each index table distributed by its partition key)
#   mvn  no primary key but UNIQUE (pk, sk) (base_key => '{pk,sk}'; the base
#        key must be unique, and a deferrable key would make the index
#        tables multisets, whose rows Citus cannot delete one by one),
#        by status (counters) and the flip
#   mvp  as mv, but its attributes in the payload column attrs
#        (set_payload_column; no column data) and an expiry column
#        (set_ttl): by status (include attrs, counters), a sparse index
#        whose predicate reads attrs (counters), the flip (include attrs,
#        counters, write shards); its put_edges spell the members "PK",
#        "SK" and "attrs"
# A seeded stream of put_edge, put_edges (with keys given twice), put_edge_if,
# put_edge_if_absent, delete_edge, delete_edge_if, delete_node and
# transactions of several of them runs on both servers; the calls must
# return the same, and every so often: verify_inverted_index returns no
# row, every index table and counter sum equals the plain server's, and
# the in-edge count of every status equals a recount of the base table.
# Then the remote commands: put_edge sends router statements only (no
# intermediate results), one INSERT for the base row, each index row and
# each counter delta; a moving index costs one read on the item's shard, an
# index that cannot move none; put_edges writes the index rows and the
# counter deltas at most one statement a shard, not one an edge.
#
# ADJLIST_CITUS_SEED picks another stream.  Skipped, saying so, when Citus
# or adjlist is not installed in the server (bash test/vendor.sh citus;
# make install).
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

my $c = CitusCluster->new('cw',
	conf => { 'citus.shard_count' => 4, log_min_messages => 'warning' });
my $plain = PostgreSQL::Test::Cluster->new('cw_plain');
$plain->init;
$plain->append_conf('postgresql.conf', "shared_buffers = '32MB'\nlog_min_messages = warning");
$plain->start;
note 'Citus ' . $c->coord_sql("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
  . ', PostgreSQL ' . $c->coord_sql('SHOW server_version');

$c->coord_sql('CREATE EXTENSION adjlist');
$plain->safe_psql('postgres', 'CREATE EXTENSION adjlist');

sub citus { return $c->coord_sql(@_); }
sub plain { return $plain->safe_psql('postgres', @_); }

# ---------------------------------------------------------------------
# The tables and their indexes
# ---------------------------------------------------------------------
my $columns = q{pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb,
	status adjkey GENERATED ALWAYS AS (adjkey('STATUS#' || (data->>'status'))) STORED,
	bill adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'BILL#' THEN sk END) STORED};
my $pcolumns = q{pk adjkey NOT NULL, sk adjkey NOT NULL, attrs jsonb,
	expires timestamptz DEFAULT '2100-01-01 00:00+00',
	status adjkey GENERATED ALWAYS AS (adjkey('STATUS#' || (attrs->>'status'))) STORED};
my %T = (
	mv => {
		key     => ', PRIMARY KEY (pk, sk)',
		order   => 'after',
		indexes => {
			mv_by_status =>
			  q{partition_key => 'status', sort_key => 'pk', include => '{data}', counters => 1},
			mv_by_status_ws =>
			  q{partition_key => 'status', sort_key => 'pk', write_shards => 2, counters => 1},
			mv_by_bill => q{partition_key => 'bill', include => '{data}'},
			mv_flip    => q{include => '{*}', counters => 1, write_shards => 4},
		},
	},
	mvb => {
		key     => ', PRIMARY KEY (pk, sk)',
		order   => 'before',
		indexes => {
			mvb_by_status =>
			  q{partition_key => 'status', sort_key => 'pk', include => '{data}', counters => 1},
			mvb_flip => q{include => '{data}', counters => 1},
		},
	},
	mvn => {
		key     => ', UNIQUE (pk, sk)',
		order   => 'after',
		indexes => {
			mvn_by_status =>
			  q{partition_key => 'status', sort_key => 'pk', include => '{data}', counters => 1},
			mvn_flip => q{include => '{data}', counters => 1},
		},
	},
	mvp => {
		columns => $pcolumns,
		setup   => "SELECT set_payload_column('mvp', 'attrs'); SELECT set_ttl('mvp', 'expires');\n",
		spell   => [qw(PK SK attrs)],
		key     => ', PRIMARY KEY (pk, sk)',
		order   => 'after',
		indexes => {
			mvp_by_status =>
			  q{partition_key => 'status', sort_key => 'pk', include => '{attrs}', counters => 1},
			mvp_v1   => q{predicate => $$attrs @> '{"v": 1}'$$, counters => 1},
			mvp_flip => q{include => '{attrs}', counters => 1, write_shards => 2},
		},
	},
);
my @TN = sort keys %T;

sub index_sql
{
	my ($t) = @_;
	return join('', map {
		"SELECT create_inverted_index('$t', index_name => '$_', base_key => '{pk,sk}', mode => 'api', "
		  . "$T{$t}{indexes}{$_});\n" } sort keys %{ $T{$t}{indexes} });
}

for my $t (@TN)
{
	my $create = "CREATE TABLE $t (" . ($T{$t}{columns} // $columns) . "$T{$t}{key});\n"
	  . ($T{$t}{setup} // '');
	plain($create . index_sql($t));
	if ($T{$t}{order} eq 'after')
	{
		citus($create . "SELECT create_distributed_table('$t', 'pk');\n" . index_sql($t));
	}
	else
	{
		citus($create . index_sql($t) . "SELECT create_distributed_table('$t', 'pk');\n");
		for my $ix (sort keys %{ $T{$t}{indexes} })
		{
			my $part = citus(
				"SELECT columns[1] FROM adjlist_inverted_indexes WHERE indexrel = '$ix'::regclass");
			citus("SELECT create_distributed_table('$ix', '$part', colocate_with => 'none')");
			citus("SELECT create_distributed_table('${ix}_degree', 'node', colocate_with => 'none')")
			  if $T{$t}{indexes}{$ix} =~ /counters/;
		}
	}
}
is(citus(q{SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
	WHERE c.relname IN ('mv', 'mvb', 'mvn', 'mvp') AND NOT t.tgisinternal}), '0',
	'no trigger on the Citus tables: the write API keeps their indexes');
is(plain(q{SELECT count(DISTINCT tgrelid) FROM pg_trigger
	WHERE tgrelid IN ('mv'::regclass, 'mvb'::regclass, 'mvn'::regclass, 'mvp'::regclass)}), '4',
	'the plain tables have their sync triggers: the reference');
my @distributed = split /\n/, citus(q{SELECT logicalrelid::text FROM pg_dist_partition
	WHERE logicalrelid::text ~ '^mv' AND logicalrelid::text !~ '_degree$' ORDER BY 1});
is(scalar(@distributed), 4 + scalar(map { keys %{ $T{$_}{indexes} } } @TN),
	'every base and index table is distributed') or diag "distributed: @distributed";

# ---------------------------------------------------------------------
# The stream of writes (its own LCG: the same on every Perl)
# ---------------------------------------------------------------------
my $seed = $ENV{ADJLIST_CITUS_SEED} // 20251123;
note "seed $seed (ADJLIST_CITUS_SEED)";
my $state = $seed % 2147483648;
sub rnd  { $state = ($state * 1103515245 + 12345) % 2147483648; return $state / 2147483648; }
sub pick { return $_[ int(rnd() * @_) ]; }

my @pks = map { "ORDER#$_" } 0 .. 5;
my @sks = ('META', (map { "BILL#$_" } 0 .. 2), (map { "FOLLOWS#ORDER#$_" } 0 .. 5));
my @statuses = qw(new paid shipped lost);

sub data_json
{
	my $r = rnd();
	return undef if $r < 0.1;
	return sprintf('{"v": %d}', int(rnd() * 4)) if $r < 0.25;
	return sprintf('{"status": "%s", "v": %d}', pick(@statuses), int(rnd() * 4));
}
sub lit { my ($s) = @_; return defined $s ? "'$s'" : 'NULL'; }

# one call, as SQL returning one value
sub one_op
{
	my ($t) = @_;
	my $r = rnd();
	my ($pk, $sk) = (pick(@pks), pick(@sks));
	if ($r < 0.30)
	{
		return "SELECT put_edge('$t', '$pk', '$sk', " . lit(data_json()) . ')';
	}
	if ($r < 0.50)
	{
		my @items;
		my ($kp, $ks, $kd) = @{ $T{$t}{spell} // [qw(pk sk data)] };
		for (1 .. 1 + int(rnd() * 6))
		{
			# a key given again (the last one wins) a third of the time
			my $k = (@items && rnd() < 0.33) ? $items[ int(rnd() * @items) ]{key} : [ pick(@pks), pick(@sks) ];
			my $d = data_json();
			push @items, { key => $k, json => sprintf('{"%s": "%s", "%s": "%s"%s}',
					$kp, $k->[0], $ks, $k->[1], defined $d ? ", \"$kd\": $d" : '') };
		}
		return "SELECT put_edges('$t', '[" . join(', ', map { $_->{json} } @items) . "]')";
	}
	if ($r < 0.65)
	{
		return "SELECT put_edge_if('$t', '$pk', '$sk', " . lit(data_json())
		  . sprintf(", '{\"v\": %d}')", int(rnd() * 4));
	}
	if ($r < 0.75)
	{
		return "SELECT put_edge_if_absent('$t', '$pk', '$sk', " . lit(data_json()) . ')';
	}
	if ($r < 0.85)
	{
		return "SELECT delete_edge('$t', '$pk', '$sk')";
	}
	if ($r < 0.92)
	{
		return "SELECT delete_edge_if('$t', '$pk', '$sk', "
		  . sprintf("'{\"status\": \"%s\"}')", pick(@statuses));
	}
	return "SELECT delete_node('$t', '$pk', ARRAY['FOLLOWS#'])";
}

# a step: one call, or a transaction of several (the same key replaced
# more than once before the commit)
sub one_step
{
	my ($t) = @_;
	return one_op($t) . ';' if rnd() >= 0.1;
	return 'BEGIN; ' . join('; ', map { one_op($t) } 1 .. 2 + int(rnd() * 3)) . '; COMMIT;';
}

# ---------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------
sub rows_q
{
	my ($rel) = @_;
	return "SELECT coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '<empty>') FROM $rel x";
}
sub counts_q
{
	my ($ix) = @_;
	return "SELECT coalesce(string_agg(format('%s %s %s %s', node, edge, direction, n), E'\\n' ORDER BY node, edge, direction), '<none>') "
	  . "FROM (SELECT node, edge, direction, sum(n) AS n FROM ${ix}_degree GROUP BY 1, 2, 3 HAVING sum(n) <> 0) s";
}

sub check_tables
{
	my ($when, @tables) = @_;
	my $bad = 0;
	for my $t (@tables)
	{
		my ($cb, $pb) = (citus(rows_q($t)), plain(rows_q($t)));
		$bad++ unless is($cb, $pb, "$when: $t: the base table equals the plain server's");
		for my $ix (sort keys %{ $T{$t}{indexes} })
		{
			my $v = "SELECT count(*) FROM verify_inverted_index('$ix')";
			$bad++ unless is(citus($v), '0', "$when: $ix: verify_inverted_index returns no row");
			$bad++ unless is(plain($v), '0', "$when: $ix: clean on the plain server too");
			my ($ci, $pi) = (citus(rows_q($ix)), plain(rows_q($ix)));
			$bad++ unless is($ci, $pi, "$when: $ix: the index rows equal the plain server's");
			next unless $T{$t}{indexes}{$ix} =~ /counters/;
			$bad++ unless is(citus(counts_q($ix)), plain(counts_q($ix)),
				"$when: $ix: the counter sums equal the plain server's");
			next unless $ix =~ /by_status/;
			# the in-edges of each status, counted and recounted
			my (@counts, @wrong);
			for my $st (@statuses)
			{
				my $n = citus("SELECT edge_count('$ix', '$st', 'STATUS', 'in')");
				my $re = citus("SELECT count(*) FROM $t WHERE status = 'STATUS#$st'");
				push @counts, "$st $n $re";
				push @wrong, $st if $n != $re;
			}
			$bad++ unless ok(!@wrong, "$when: $ix: edge_count of every status equals a recount")
			  or diag '  status counted recount: ' . join(', ', @counts);
		}
	}
	return $bad;
}

# ---------------------------------------------------------------------
# The run: the same steps on both servers, the same answers
# ---------------------------------------------------------------------
my $STEPS = $ENV{ADJLIST_CITUS_STEPS} // 240;
my $BATCH = 20;
for my $t (@TN)
{
	my ($same, $steps) = (0, 0);
	while ($steps < $STEPS)
	{
		my @batch = map { one_step($t) } 1 .. $BATCH;
		$steps += $BATCH;
		my $sql = join("\n", @batch);
		my ($cr, $co, $ce) = $c->coord_psql($sql);
		my ($pr, $po, $pe) = (0, '', '');
		$pr = $plain->psql('postgres', $sql, stdout => \$po, stderr => \$pe);
		if ($cr != 0 || $pr != 0 || $co ne $po)
		{
			fail("$t: steps " . ($steps - $BATCH + 1) . "..$steps give the same answers on both servers");
			diag "  SQL:\n$sql\n  Citus ($cr): $co $ce\n  plain ($pr): $po $pe";
			last;
		}
		$same++;
		check_tables("$t after $steps steps", $t) if $steps % 80 == 0 && $steps < $STEPS;
	}
	is($same * $BATCH, $STEPS, "$t: $STEPS steps gave the same answers on Citus and on the plain server");
}
check_tables('at the end', @TN);
my $attrs = citus(q{SELECT count(*) FROM mvp WHERE attrs IS NOT NULL});
ok($attrs > 0, "mvp: the write API wrote the payload column attrs on Citus ($attrs items)");
# (the index table is distributed by status: compared as two ordered lists)
my $proj = q{SELECT count(*) || E'\n' || coalesce(string_agg(format('%s %s %s %s', pk, sk, attrs, expires),
	E'\n' ORDER BY pk, sk), '') FROM };
my $ixrows = citus($proj . 'mvp_by_status');
isnt((split /\n/, $ixrows)[0], '0', 'mvp_by_status has rows');
is($ixrows, citus($proj . 'mvp WHERE status IS NOT NULL'),
	'mvp_by_status projects attrs and expires as the base rows hold them');

# ---------------------------------------------------------------------
# What a put costs: remote commands of one put_edge replacing an item
# ---------------------------------------------------------------------
# fx: only indexes whose keys cannot move (the flip, and bill from sk)
citus(qq{CREATE TABLE fx ($columns, PRIMARY KEY (pk, sk));
	SELECT create_distributed_table('fx', 'pk');
	SELECT create_inverted_index('fx', include => '{data}', mode => 'api', counters => 1);
	SELECT create_inverted_index('fx', partition_key => 'bill', index_name => 'fx_by_bill',
								 include => '{data}', mode => 'api');
	SELECT put_edge('fx', 'ORDER#1', 'BILL#1', '{"status": "new"}');
	SELECT put_edge('mv', 'ORDER#1', 'BILL#1', '{"status": "new"}');});
sub remote_commands
{
	my ($sql) = @_;
	my ($r, $o, $e) = $c->coord_psql(
		"SET citus.log_remote_commands TO on; SET client_min_messages TO log; $sql");
	is($r, 0, "runs: $sql") or diag $e;
	return [ grep { /issuing/ } split /\n/, $e ];
}
my $cmds = remote_commands(q{SELECT put_edge('fx', 'ORDER#1', 'BILL#1', '{"status": "paid"}')});
my @base = grep { /\bfx_\d+\b/ } @$cmds;
is(scalar(grep { /issuing (SELECT|UPDATE)\b/ } @base), 0,
	'indexes that cannot move: put_edge reads nothing from the base table first')
  or diag join("\n", @$cmds);
is(scalar(grep { /issuing INSERT INTO public\.fx_\d+/ } @base), 1,
	'indexes that cannot move: put_edge is one upsert of the base row')
  or diag join("\n", @$cmds);
is(scalar(grep { /issuing COPY\b/ } @$cmds), 0,
	'put_edge: router statements only (no INSERT ... SELECT through intermediate results)')
  or diag join("\n", @$cmds);
is(scalar(grep { /issuing INSERT INTO public\.fx_inverted_\d+/ } @$cmds), 1,
	'put_edge: one INSERT of the index row, on its shard')
  or diag join("\n", @$cmds);
$cmds = remote_commands(q{SELECT put_edge('fx', 'ORDER#2', 'FOLLOWS#ORDER#1', '{"status": "paid"}')});
is(scalar(grep { /issuing COPY\b/ } @$cmds), 0,
	'put_edge of a new edge, counted: router statements only') or diag join("\n", @$cmds);
is(scalar(grep { /issuing INSERT INTO public\.fx_inverted_degree_\d+/ } @$cmds), 2,
	'put_edge of a new edge: one INSERT of each counter delta (out and in)')
  or diag join("\n", @$cmds);
# put_edges: the index rows and the counter deltas a statement a table,
# which Citus splits by shard (4 shards a table here), not one per edge
$cmds = remote_commands(q{SELECT put_edges('fx', (SELECT jsonb_agg(jsonb_build_object('pk', 'ORDER#b' || i,
	'sk', 'FOLLOWS#ORDER#' || (i % 7), 'data', jsonb_build_object('status', 'new'))) FROM generate_series(1, 200) i))});
my $ixins = grep { /issuing INSERT INTO public\.fx_inverted_\d+/ } @$cmds;
ok($ixins >= 1 && $ixins <= 4, "put_edges of 200 edges: the index rows in at most one INSERT a shard ($ixins)")
  or diag join("\n", @$cmds);
# (a plain INSERT ... SELECT: Citus copies the rows into the shards)
my $cntins = grep { /issuing (INSERT INTO|COPY) public\.fx_inverted_degree_\d+/ } @$cmds;
ok($cntins >= 1 && $cntins <= 4, "put_edges of 200 edges: the counter deltas in at most one INSERT or COPY a shard ($cntins)")
  or diag join("\n", @$cmds);
is(citus(q{SELECT edge_count('fx_inverted', 'ORDER#3', 'FOLLOWS', 'in')}),
	citus(q{SELECT count(*) FROM fx WHERE sk = 'FOLLOWS#ORDER#3'}),
	'put_edges: the counters equal a recount');
$cmds = remote_commands(q{SELECT put_edge('mv', 'ORDER#1', 'BILL#1', '{"status": "paid"}')});
my %shards = map { /\b(mv_\d+)\b/ ? ($1 => 1) : () } @$cmds;
is(scalar(keys %shards), 1, 'a moving index: put_edge touches one base shard')
  or diag join("\n", @$cmds);
is(scalar(grep { /issuing SELECT .*\bmv_\d+\b/ } @$cmds), 1,
	'a moving index: put_edge reads the item on its shard once')
  or diag join("\n", @$cmds);
is(scalar(grep { /issuing UPDATE public\.mv_\d+/ } @$cmds), 1,
	'a moving index: and replaces it with one UPDATE there')
  or diag join("\n", @$cmds);
is(citus(q{SELECT string_agg(status::text, ',' ORDER BY status) FROM mv_by_status
	WHERE pk = 'ORDER#1' AND sk = 'BILL#1'}), 'STATUS#paid',
	'the item moved in the index: its old row is gone');
is(citus("SELECT count(*) FROM verify_inverted_index('$_')"), '0', "$_: clean after the cost checks")
  for qw(mv_by_status fx_inverted fx_by_bill);

$c->stop;
$plain->stop;
done_testing();

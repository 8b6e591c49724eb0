# Streams: following edge changes with logical decoding, the equivalent of
# DynamoDB Streams (README, "Streams (change data capture)").
#
# A publisher with wal_level = logical, and a subscriber.
#
# 1. The README's examples (its ```sql wal_level=logical blocks), run in
#    order in a fresh database; where a plain ``` block follows one, it is
#    what psql -At prints last for it, and must be exactly that.
# 2. One workload on a table with an inverted index and degree counters,
#    read through slots made before it: test_decoding (the SQL functions, and
#    pg_recvlogical) and pgoutput (binary messages decoded here, as a
#    consumer would).  INSERT, UPDATE of data, UPDATE of a key, DELETE,
#    TRUNCATE, put_edge (new, then replaced), put_edges, delete_edge,
#    delete_node, a rolled-back transaction and a rolled-back savepoint
#    (never in the stream), then REPLICA IDENTITY FULL (old images).  The
#    decoded text is compared exactly: within a transaction the base row
#    comes first, then the rows the statement's trigger wrote into the index
#    and counter tables, which are ordinary tables and in the stream too.
#    Publications: FOR TABLE the base table (the index and counter tables
#    stay out), FOR ALL TABLES (they are in), a column list (pk, sk) for a
#    keys-only stream, a row filter on a generated column.  A FOR ALL
#    TABLES publication stops compact_counters() until the counter table
#    has REPLICA IDENTITY FULL.
# 3. Logical replication of the same kind of table to a subscriber, three
#    ways, checked after the initial copy and after each batch of changes:
#    - "mirror": base, index and counter tables published together; the
#      subscriber's own triggers stay quiet (ENABLE ORIGIN, and an apply
#      worker runs in replica mode), its index equals the publisher's and
#      verify_inverted_index() finds nothing;
#    - "own": only the base table published; the subscriber keeps its own
#      indexes (on a table it partitions differently, one of them a sparse
#      index the publisher does not have) with the README's
#      recipe, the adjlist_sync_replica row trigger enabled REPLICA and the
#      TRUNCATE triggers enabled ALWAYS: exact after every batch;
#    - "plain": the statement triggers enabled ALWAYS, as the README said
#      before: an apply worker fires no statement trigger, so the initial
#      copy is indexed and the streamed changes are not; rebuild mends it.
#    Then adjlist_sync_replica's refusals (enabled for origin sessions, or
#    next to a statement trigger enabled ALWAYS) and its removal with the
#    table's last index.
# 4. A partitioned table replicated to a subscriber that keeps its own
#    index (the README's recipe): TRUNCATE of one partition, of a
#    sub-partition, of partitions created and attached after the recipe
#    ran, each followed by an exact index and counters on the subscriber.
#
# test_decoding is a contrib module; where it is not installed, the parts
# that need it are skipped with that reason (pgoutput is built in).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my %logical = (
	wal_level             => 'logical',
	max_replication_slots => 16,
	max_wal_senders       => 16);
my $pub = adjlist_node('pub', %logical);
my $sub = adjlist_node('sub',
	max_logical_replication_workers => 8,
	max_worker_processes            => 16);
my $pubconn = $pub->connstr;

my $edges_ddl = 'CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));';

sub newdb
{
	my ($node, $db) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'CREATE EXTENSION adjlist');
}

# Is test_decoding installed?  (a slot made and dropped)
newdb($pub, 'probe');
my ($rc, $out, $err) = $pub->psql('probe',
	"SELECT 1 FROM pg_create_logical_replication_slot('probe', 'test_decoding');"
	  . "SELECT pg_drop_replication_slot('probe')");
my $no_test_decoding;
if ($rc != 0)
{
	like($err, qr/test_decoding/, 'the only reason a test_decoding slot fails: the module is missing')
	  or diag $err;
	$no_test_decoding = "test_decoding is not installed in this server ("
	  . ($err =~ /(could not access file[^\n]*)/ ? $1 : 'see the log') . ')';
	diag "skipping the test_decoding parts: $no_test_decoding";
}

# ---------------------------------------------------------------------
# 1. The README's examples
# ---------------------------------------------------------------------

# The ```sql wal_level=logical blocks of README.md, in order: [sql, output],
# output being the plain ``` block right after it (blank lines between), or
# undef.
sub readme_blocks
{
	my $file = "$FindBin::RealBin/../../README.md";
	open my $fh, '<', $file or die "$file: $!";
	my @lines = <$fh>;
	close $fh;
	chomp @lines;
	my @blocks;
	for (my $i = 0; $i < @lines; $i++)
	{
		next unless $lines[$i] eq '```sql wal_level=logical';
		my @sql;
		push @sql, $lines[$i] while ++$i < @lines && $lines[$i] ne '```';
		my $j = $i + 1;
		$j++ while $j < @lines && $lines[$j] eq '';
		my $output;
		if ($j < @lines && $lines[$j] eq '```')
		{
			my @o;
			push @o, $lines[$j] while ++$j < @lines && $lines[$j] ne '```';
			$output = join("\n", @o);
			$i = $j;
		}
		push @blocks, [ join("\n", @sql), $output ];
	}
	return @blocks;
}

SKIP:
{
	skip "README examples: $no_test_decoding", 1 if $no_test_decoding;
	my @blocks = readme_blocks();
	cmp_ok(scalar(@blocks), '>=', 3, 'the README has its wal_level=logical examples');
	newdb($pub, 'readme');
	my $n = 0;
	for my $b (@blocks)
	{
		$n++;
		my ($sql, $want) = @$b;
		my ($rc, $out, $err) = $pub->psql('readme', $sql);
		is($rc, 0, "README logical block $n runs") or diag "$sql\n$err";
		next unless defined $want;
		my @got  = split /\n/, $out, -1;
		my @want = split /\n/, $want, -1;
		my @tail = @got > @want ? @got[ $#got - $#want .. $#got ] : @got;
		is(join("\n", @tail), $want, "README logical block $n prints what the README shows");
	}
	is($pub->safe_psql('readme', 'SELECT count(*) FROM pg_replication_slots'),
		'0', 'the README examples leave no slot behind');
}

# ---------------------------------------------------------------------
# 2. One workload, decoded by test_decoding and pgoutput
# ---------------------------------------------------------------------

newdb($pub, 'src');
$pub->safe_psql('src', qq{
	$edges_ddl
	SELECT create_inverted_index('edges', counters => 1);
	CREATE PUBLICATION edges_pub FOR TABLE edges;
	CREATE PUBLICATION all_pub FOR ALL TABLES;
});
# the counter table has no primary key: adjlist gives it the whole row as
# its replica identity, so that FOR ALL TABLES may publish its deletes
# (compact_counters)
is($pub->safe_psql('src', q{SELECT relreplident FROM pg_class WHERE oid = 'edges_inverted_degree'::regclass}),
	'f', 'a counter table has REPLICA IDENTITY FULL');
$pub->safe_psql('src', "SELECT 1 FROM pg_create_logical_replication_slot('po', 'pgoutput')");
$pub->safe_psql('src', "SELECT 1 FROM pg_create_logical_replication_slot('po_all', 'pgoutput')");
unless ($no_test_decoding)
{
	$pub->safe_psql('src',
		"SELECT 1 FROM pg_create_logical_replication_slot('td', 'test_decoding')");
	$pub->safe_psql('src',
		"SELECT 1 FROM pg_create_logical_replication_slot('recv', 'test_decoding')");
}

# each statement its own transaction unless said otherwise
my @workload = (
	q{INSERT INTO edges VALUES ('USER#alice', 'FOLLOWS#USER#bob', '{"since": 2023}'),
	                         ('USER#carol', 'FOLLOWS#USER#bob', NULL),
	                         ('USER#bob', 'PROFILE', '{"name": "Bob"}')},
	# data only: the KEYS_ONLY index row does not change, so only the base row
	q{UPDATE edges SET data = '{"since": 2022}' WHERE pk = 'USER#alice' AND sk = 'FOLLOWS#USER#bob'},
	# a key change
	q{UPDATE edges SET sk = 'FOLLOWS#USER#dave' WHERE pk = 'USER#carol'},
	q{DELETE FROM edges WHERE pk = 'USER#carol'},
	# rolled back: never in the stream
	q{BEGIN; INSERT INTO edges VALUES ('USER#zed', 'FOLLOWS#USER#bob', NULL); ROLLBACK},
	# the write API: new, then replaced (an upsert: UPDATE)
	q{SELECT put_edge('edges', 'USER#erin', 'FOLLOWS#USER#bob', '{"v": 1}')},
	q{SELECT put_edge('edges', 'USER#erin', 'FOLLOWS#USER#bob', '{"v": 2}')},
	q{SELECT put_edges('edges', '[{"pk": "USER#frank", "sk": "FOLLOWS#USER#bob"},
	                            {"pk": "USER#frank", "sk": "FOLLOWS#USER#erin", "data": {"v": 3}}]')},
	q{SELECT delete_edge('edges', 'USER#frank', 'FOLLOWS#USER#erin')},
	# Bob's item collection and every FOLLOWS edge pointing at him
	q{SELECT delete_node('edges', 'USER#bob', ARRAY['FOLLOWS#'])},
	# a rolled-back savepoint: only what it did not roll back
	q{BEGIN;
	  INSERT INTO edges VALUES ('USER#gina', 'FOLLOWS#USER#hal', NULL);
	  SAVEPOINT s;
	  INSERT INTO edges VALUES ('USER#gina', 'FOLLOWS#USER#ivy', NULL);
	  ROLLBACK TO SAVEPOINT s;
	  INSERT INTO edges VALUES ('USER#hal', 'FOLLOWS#USER#gina', NULL);
	  COMMIT},
	q{TRUNCATE edges},
	# NEW_AND_OLD_IMAGES
	q{ALTER TABLE edges REPLICA IDENTITY FULL},
	q{INSERT INTO edges VALUES ('USER#ivy', 'FOLLOWS#USER#jo', '{"v": 1}')},
	q{UPDATE edges SET data = '{"v": 2}' WHERE pk = 'USER#ivy'},
	q{UPDATE edges SET sk = 'FOLLOWS#USER#kim' WHERE pk = 'USER#ivy'},
	q{SELECT delete_edge('edges', 'USER#ivy', 'FOLLOWS#USER#kim')},
	q{ALTER TABLE edges REPLICA IDENTITY DEFAULT},
	# compact_counters under a FOR ALL TABLES publication (the counter
	# table's REPLICA IDENTITY FULL): its DELETE and INSERT are streamed
	q{INSERT INTO edges VALUES ('USER#a', 'FOLLOWS#USER#b', NULL)},
	q{DELETE FROM edges WHERE pk = 'USER#a'},
	q{SELECT compact_counters('edges_inverted')});
$pub->safe_psql('src', $_) for @workload;
my $end_lsn = $pub->safe_psql('src', 'SELECT pg_current_wal_insert_lsn()');

# --- test_decoding ---------------------------------------------------

my $td_want = <<'EOS';
BEGIN
table public.edges: INSERT: pk[adjkey]:'USER#alice' sk[adjkey]:'FOLLOWS#USER#bob' data[jsonb]:'{"since": 2023}'
table public.edges: INSERT: pk[adjkey]:'USER#carol' sk[adjkey]:'FOLLOWS#USER#bob' data[jsonb]:null
table public.edges: INSERT: pk[adjkey]:'USER#bob' sk[adjkey]:'PROFILE' data[jsonb]:'{"name": "Bob"}'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#alice'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#carol'
table public.edges_inverted: INSERT: sk[adjkey]:'PROFILE' pk[adjkey]:'USER#bob'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#carol' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#alice' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'PROFILE' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:2
COMMIT
BEGIN
table public.edges: UPDATE: pk[adjkey]:'USER#alice' sk[adjkey]:'FOLLOWS#USER#bob' data[jsonb]:'{"since": 2022}'
COMMIT
BEGIN
table public.edges: UPDATE: old-key: pk[adjkey]:'USER#carol' sk[adjkey]:'FOLLOWS#USER#bob' new-tuple: pk[adjkey]:'USER#carol' sk[adjkey]:'FOLLOWS#USER#dave' data[jsonb]:null
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#carol'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#dave' pk[adjkey]:'USER#carol'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#dave' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
COMMIT
BEGIN
table public.edges: DELETE: pk[adjkey]:'USER#carol' sk[adjkey]:'FOLLOWS#USER#dave'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#dave' pk[adjkey]:'USER#carol'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#dave' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#carol' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
COMMIT
BEGIN
table public.edges: INSERT: pk[adjkey]:'USER#erin' sk[adjkey]:'FOLLOWS#USER#bob' data[jsonb]:'{"v": 1}'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#erin'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#erin' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
COMMIT
BEGIN
table public.edges: UPDATE: pk[adjkey]:'USER#erin' sk[adjkey]:'FOLLOWS#USER#bob' data[jsonb]:'{"v": 2}'
COMMIT
BEGIN
table public.edges: INSERT: pk[adjkey]:'USER#frank' sk[adjkey]:'FOLLOWS#USER#bob' data[jsonb]:null
table public.edges: INSERT: pk[adjkey]:'USER#frank' sk[adjkey]:'FOLLOWS#USER#erin' data[jsonb]:'{"v": 3}'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#frank'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#erin' pk[adjkey]:'USER#frank'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#frank' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:2
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#erin' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
COMMIT
BEGIN
table public.edges: DELETE: pk[adjkey]:'USER#frank' sk[adjkey]:'FOLLOWS#USER#erin'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#erin' pk[adjkey]:'USER#frank'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#frank' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#erin' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
COMMIT
BEGIN
table public.edges: DELETE: pk[adjkey]:'USER#alice' sk[adjkey]:'FOLLOWS#USER#bob'
table public.edges: DELETE: pk[adjkey]:'USER#erin' sk[adjkey]:'FOLLOWS#USER#bob'
table public.edges: DELETE: pk[adjkey]:'USER#frank' sk[adjkey]:'FOLLOWS#USER#bob'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#alice'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#erin'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#bob' pk[adjkey]:'USER#frank'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#alice' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#erin' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#frank' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-3
table public.edges: DELETE: pk[adjkey]:'USER#bob' sk[adjkey]:'PROFILE'
table public.edges_inverted: DELETE: sk[adjkey]:'PROFILE' pk[adjkey]:'USER#bob'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#bob' edge[text]:'PROFILE' direction["char"]:'o' n[bigint]:-1
COMMIT
BEGIN
table public.edges: INSERT: pk[adjkey]:'USER#gina' sk[adjkey]:'FOLLOWS#USER#hal' data[jsonb]:null
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#hal' pk[adjkey]:'USER#gina'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#gina' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#hal' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges: INSERT: pk[adjkey]:'USER#hal' sk[adjkey]:'FOLLOWS#USER#gina' data[jsonb]:null
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#gina' pk[adjkey]:'USER#hal'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#gina' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#hal' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
COMMIT
BEGIN
table public.edges: TRUNCATE: (no-flags)
table public.edges_inverted: TRUNCATE: (no-flags)
table public.edges_inverted_degree: TRUNCATE: (no-flags)
COMMIT
BEGIN
table public.edges: INSERT: pk[adjkey]:'USER#ivy' sk[adjkey]:'FOLLOWS#USER#jo' data[jsonb]:'{"v": 1}'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#jo' pk[adjkey]:'USER#ivy'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#jo' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#ivy' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
COMMIT
BEGIN
table public.edges: UPDATE: old-key: pk[adjkey]:'USER#ivy' sk[adjkey]:'FOLLOWS#USER#jo' data[jsonb]:'{"v": 1}' new-tuple: pk[adjkey]:'USER#ivy' sk[adjkey]:'FOLLOWS#USER#jo' data[jsonb]:'{"v": 2}'
COMMIT
BEGIN
table public.edges: UPDATE: old-key: pk[adjkey]:'USER#ivy' sk[adjkey]:'FOLLOWS#USER#jo' data[jsonb]:'{"v": 2}' new-tuple: pk[adjkey]:'USER#ivy' sk[adjkey]:'FOLLOWS#USER#kim' data[jsonb]:'{"v": 2}'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#jo' pk[adjkey]:'USER#ivy'
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#kim' pk[adjkey]:'USER#ivy'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#jo' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#kim' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
COMMIT
BEGIN
table public.edges: DELETE: pk[adjkey]:'USER#ivy' sk[adjkey]:'FOLLOWS#USER#kim' data[jsonb]:'{"v": 2}'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#kim' pk[adjkey]:'USER#ivy'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#ivy' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#kim' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
COMMIT
BEGIN
table public.edges: INSERT: pk[adjkey]:'USER#a' sk[adjkey]:'FOLLOWS#USER#b' data[jsonb]:null
table public.edges_inverted: INSERT: sk[adjkey]:'FOLLOWS#USER#b' pk[adjkey]:'USER#a'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#b' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#a' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
COMMIT
BEGIN
table public.edges: DELETE: pk[adjkey]:'USER#a' sk[adjkey]:'FOLLOWS#USER#b'
table public.edges_inverted: DELETE: sk[adjkey]:'FOLLOWS#USER#b' pk[adjkey]:'USER#a'
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#b' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
table public.edges_inverted_degree: INSERT: node[adjkey]:'USER#a' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
COMMIT
BEGIN
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#jo' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#ivy' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#jo' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#kim' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#ivy' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#kim' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#b' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#a' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#b' edge[text]:'FOLLOWS' direction["char"]:'i' n[bigint]:-1
table public.edges_inverted_degree: DELETE: node[adjkey]:'USER#a' edge[text]:'FOLLOWS' direction["char"]:'o' n[bigint]:-1
COMMIT
EOS
chomp $td_want;

SKIP:
{
	skip "test_decoding: $no_test_decoding", 4 if $no_test_decoding;
	my $td_opts = q{'include-xids', '0', 'skip-empty-xacts', '1'};
	my $peek = $pub->safe_psql('src',
		"SELECT data FROM pg_logical_slot_peek_changes('td', NULL, NULL, $td_opts)");
	is($peek, $td_want, 'test_decoding: every committed change, in order, index and counter rows included');
	is($pub->safe_psql('src',
			"SELECT data FROM pg_logical_slot_get_changes('td', NULL, NULL, $td_opts)"),
		$peek, 'test_decoding: get returns what peek showed (peek consumes nothing)');
	is($pub->safe_psql('src',
			"SELECT count(*) FROM pg_logical_slot_get_changes('td', NULL, NULL, $td_opts)"),
		'0', 'test_decoding: and get consumed it');
	# the same stream through pg_recvlogical, the command-line consumer
	my $recv = $pub->pg_recvlogical_upto('src', 'recv', $end_lsn,
		$PostgreSQL::Test::Utils::timeout_default,
		'include-xids' => '0', 'skip-empty-xacts' => '1');
	chomp $recv;
	# a walsender has an empty search_path: type names come schema-qualified
	$recv =~ s/\[public\.adjkey\]/[adjkey]/g;
	is($recv, $td_want, 'pg_recvlogical streams the same changes');
}

# --- pgoutput --------------------------------------------------------

# pgoutput's binary messages (protocol version 1), one hex string a line,
# as text: one line per message.  Tuples as name='value' (NULL, or the
# unchanged TOAST marker), a key-only old tuple with its key columns only.
sub pgoutput_text
{
	my ($hexlines) = @_;
	my (%rel, @out);
	for my $hex (split /\n/, $hexlines)
	{
		my $m = pack('H*', $hex);
		my $p = 0;
		my $take = sub {
			my ($n) = @_;
			die "pgoutput message too short" if $p + $n > length($m);
			my $v = substr($m, $p, $n);
			$p += $n;
			return $v;
		};
		my $byte  = sub { $take->(1) };
		my $int8  = sub { unpack('C', $take->(1)) };
		my $int16 = sub { unpack('n', $take->(2)) };
		my $int32 = sub { unpack('N', $take->(4)) };
		my $str   = sub {
			my $e = index($m, "\0", $p);
			die "unterminated string" if $e < 0;
			my $v = substr($m, $p, $e - $p);
			$p = $e + 1;
			return $v;
		};
		my $tuple = sub {
			my ($r, $keys_only) = @_;
			my $n = $int16->();
			my @c;
			for my $i (0 .. $n - 1)
			{
				my $kind = $byte->();
				my $col  = $r->{cols}[$i];
				my $v;
				if    ($kind eq 'n') { $v = 'NULL' }
				elsif ($kind eq 'u') { $v = '(unchanged)' }
				elsif ($kind eq 't') { $v = "'" . $take->($int32->()) . "'" }
				else                 { die "tuple column kind $kind" }
				push @c, "$col->{name}=$v" unless $keys_only && !$col->{key};
			}
			return join(' ', @c);
		};
		my $type = $byte->();
		if ($type eq 'B')
		{
			$take->(20);    # final LSN, commit time, xid
			push @out, 'BEGIN';
		}
		elsif ($type eq 'C')
		{
			$take->(25);    # flags, commit LSN, end LSN, commit time
			push @out, 'COMMIT';
		}
		elsif ($type eq 'Y')
		{
			$int32->();
			my $ns = $str->();
			push @out, "TYPE $ns." . $str->();
		}
		elsif ($type eq 'R')
		{
			my $id    = $int32->();
			my $ns    = $str->();
			my $name  = $str->();
			my $ident = $byte->();
			my @cols;
			for (1 .. $int16->())
			{
				my $flags = $int8->();
				my $cname = $str->();
				$int32->();
				$int32->();
				push @cols, { name => $cname, key => $flags & 1 };
			}
			$rel{$id} = { name => $name, cols => \@cols };
			push @out, "RELATION $ns.$name ("
			  . join(', ', map { $_->{name} . ($_->{key} ? ' key' : '') } @cols)
			  . ") identity $ident";
		}
		elsif ($type eq 'I')
		{
			my $r = $rel{ $int32->() };
			die "INSERT without N" unless $byte->() eq 'N';
			push @out, "INSERT $r->{name} new: " . $tuple->($r);
		}
		elsif ($type eq 'U')
		{
			my $r    = $rel{ $int32->() };
			my $kind = $byte->();
			my $old  = '';
			if ($kind eq 'K' || $kind eq 'O')
			{
				$old = $kind eq 'K' ? 'key: ' . $tuple->($r, 1) : 'old: ' . $tuple->($r);
				$old .= ' ';
				$kind = $byte->();
			}
			die "UPDATE without N" unless $kind eq 'N';
			push @out, "UPDATE $r->{name} ${old}new: " . $tuple->($r);
		}
		elsif ($type eq 'D')
		{
			my $r    = $rel{ $int32->() };
			my $kind = $byte->();
			push @out, "DELETE $r->{name} "
			  . ($kind eq 'K' ? 'key: ' . $tuple->($r, 1) : 'old: ' . $tuple->($r));
		}
		elsif ($type eq 'T')
		{
			my $n = $int32->();
			$int8->();
			push @out, 'TRUNCATE ' . join(', ', map { $rel{ $int32->() }{name} } 1 .. $n);
		}
		else
		{
			die "unexpected pgoutput message '$type'";
		}
		die "pgoutput message '$type': " . (length($m) - $p) . " bytes left over"
		  if $p != length($m);
	}
	return join("\n", @out);
}

sub pgoutput_peek
{
	my ($node, $db, $slot, $publication) = @_;
	return pgoutput_text($node->safe_psql($db,
		"SELECT encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('$slot', NULL, NULL, "
		  . "'proto_version', '1', 'publication_names', '$publication')"));
}

my $po_want = <<'EOS';
BEGIN
TYPE public.adjkey
TYPE public.adjkey
RELATION public.edges (pk key, sk key, data) identity d
INSERT edges new: pk='USER#alice' sk='FOLLOWS#USER#bob' data='{"since": 2023}'
INSERT edges new: pk='USER#carol' sk='FOLLOWS#USER#bob' data=NULL
INSERT edges new: pk='USER#bob' sk='PROFILE' data='{"name": "Bob"}'
COMMIT
BEGIN
UPDATE edges new: pk='USER#alice' sk='FOLLOWS#USER#bob' data='{"since": 2022}'
COMMIT
BEGIN
UPDATE edges key: pk='USER#carol' sk='FOLLOWS#USER#bob' new: pk='USER#carol' sk='FOLLOWS#USER#dave' data=NULL
COMMIT
BEGIN
DELETE edges key: pk='USER#carol' sk='FOLLOWS#USER#dave'
COMMIT
BEGIN
INSERT edges new: pk='USER#erin' sk='FOLLOWS#USER#bob' data='{"v": 1}'
COMMIT
BEGIN
UPDATE edges new: pk='USER#erin' sk='FOLLOWS#USER#bob' data='{"v": 2}'
COMMIT
BEGIN
INSERT edges new: pk='USER#frank' sk='FOLLOWS#USER#bob' data=NULL
INSERT edges new: pk='USER#frank' sk='FOLLOWS#USER#erin' data='{"v": 3}'
COMMIT
BEGIN
DELETE edges key: pk='USER#frank' sk='FOLLOWS#USER#erin'
COMMIT
BEGIN
DELETE edges key: pk='USER#alice' sk='FOLLOWS#USER#bob'
DELETE edges key: pk='USER#erin' sk='FOLLOWS#USER#bob'
DELETE edges key: pk='USER#frank' sk='FOLLOWS#USER#bob'
DELETE edges key: pk='USER#bob' sk='PROFILE'
COMMIT
BEGIN
INSERT edges new: pk='USER#gina' sk='FOLLOWS#USER#hal' data=NULL
INSERT edges new: pk='USER#hal' sk='FOLLOWS#USER#gina' data=NULL
COMMIT
BEGIN
TYPE public.adjkey
TYPE public.adjkey
RELATION public.edges (pk key, sk key, data) identity d
TRUNCATE edges
COMMIT
BEGIN
TYPE public.adjkey
TYPE public.adjkey
RELATION public.edges (pk key, sk key, data key) identity f
INSERT edges new: pk='USER#ivy' sk='FOLLOWS#USER#jo' data='{"v": 1}'
COMMIT
BEGIN
UPDATE edges old: pk='USER#ivy' sk='FOLLOWS#USER#jo' data='{"v": 1}' new: pk='USER#ivy' sk='FOLLOWS#USER#jo' data='{"v": 2}'
COMMIT
BEGIN
UPDATE edges old: pk='USER#ivy' sk='FOLLOWS#USER#jo' data='{"v": 2}' new: pk='USER#ivy' sk='FOLLOWS#USER#kim' data='{"v": 2}'
COMMIT
BEGIN
DELETE edges old: pk='USER#ivy' sk='FOLLOWS#USER#kim' data='{"v": 2}'
COMMIT
BEGIN
TYPE public.adjkey
TYPE public.adjkey
RELATION public.edges (pk key, sk key, data) identity d
INSERT edges new: pk='USER#a' sk='FOLLOWS#USER#b' data=NULL
COMMIT
BEGIN
DELETE edges key: pk='USER#a' sk='FOLLOWS#USER#b'
COMMIT
EOS
chomp $po_want;
is(pgoutput_peek($pub, 'src', 'po', 'edges_pub'), $po_want,
	'pgoutput, FOR TABLE edges: the base table only, as a subscriber receives it');

my $all = pgoutput_peek($pub, 'src', 'po_all', 'all_pub');
my %rels = map { /^RELATION (\S+)/ ? ($1 => 1) : () } split /\n/, $all;
is(join(' ', sort keys %rels), 'public.edges public.edges_inverted public.edges_inverted_degree',
	'pgoutput, FOR ALL TABLES: the index and counter tables are in the stream too');
# the changes of edges in that stream are those of edges_pub
sub edges_changes
{
	return join("\n", grep { /^(INSERT|UPDATE|DELETE|TRUNCATE) edges / } split /\n/, $_[0]);
}
is(edges_changes($all), edges_changes($po_want),
	'pgoutput, FOR ALL TABLES: its changes of edges are those of FOR TABLE edges');

# KEYS_ONLY: a column list (pk, sk).  A column list must cover the replica
# identity, so this is for the default identity (FULL covers every column:
# an UPDATE or DELETE would be refused).
newdb($pub, 'keys');
$pub->safe_psql('keys', qq{
	$edges_ddl
	SELECT create_inverted_index('edges');
	CREATE PUBLICATION keys_pub FOR TABLE edges (pk, sk);
});
$pub->safe_psql('keys', "SELECT 1 FROM pg_create_logical_replication_slot('k', 'pgoutput')");
$pub->safe_psql('keys', $_) for (
	q{INSERT INTO edges VALUES ('USER#a', 'FOLLOWS#USER#b', '{"v": 1}')},
	q{UPDATE edges SET data = '{"v": 2}'},
	q{UPDATE edges SET sk = 'FOLLOWS#USER#c'},
	q{DELETE FROM edges});
my $keys_want = <<'EOS';
RELATION public.edges (pk key, sk key) identity d
INSERT edges new: pk='USER#a' sk='FOLLOWS#USER#b'
UPDATE edges new: pk='USER#a' sk='FOLLOWS#USER#b'
UPDATE edges key: pk='USER#a' sk='FOLLOWS#USER#b' new: pk='USER#a' sk='FOLLOWS#USER#c'
DELETE edges key: pk='USER#a' sk='FOLLOWS#USER#c'
EOS
chomp $keys_want;
is(join("\n", grep { /^(RELATION|INSERT|UPDATE|DELETE)/ } split /\n/,
		pgoutput_peek($pub, 'keys', 'k', 'keys_pub')),
	$keys_want, 'pgoutput, column list (pk, sk): a KEYS_ONLY stream');
$pub->safe_psql('keys', 'ALTER TABLE edges REPLICA IDENTITY FULL');
($rc, $out, $err) = $pub->psql('keys', q{INSERT INTO edges VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
	UPDATE edges SET data = '{}'});
like($err, qr/Column list used by the publication does not cover the replica identity/,
	'a column list and REPLICA IDENTITY FULL do not go together');
$pub->safe_psql('keys', "SELECT pg_drop_replication_slot('k')");

# compact_counters under FOR ALL TABLES, in a database of its own: the
# counter table's replica identity lets it delete the rows it folds
newdb($pub, 'nori');
$pub->safe_psql('nori', qq{
	$edges_ddl
	SELECT create_inverted_index('edges', counters => 1);
	CREATE PUBLICATION all_pub FOR ALL TABLES;
	INSERT INTO edges VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
	DELETE FROM edges;
});
is($pub->safe_psql('nori', "SELECT compact_counters('edges_inverted')"), '4',
	'compact_counters under FOR ALL TABLES: the counter table has a replica identity');

# a row filter on a generated column (a filter cannot call adjkey's
# functions or operators: only built-in ones).  Its UPDATEs and DELETEs need
# the filtered column in the replica identity; on PostgreSQL 18 a replica
# identity with a generated column needs the publication to publish it.
my $pg18 = $pub->pg_version >= 18;
my $with_generated = $pg18 ? ' WITH (publish_generated_columns = stored)' : '';
newdb($pub, 'filter');
$pub->safe_psql('filter', qq{
	CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb,
		edge text GENERATED ALWAYS AS (key_part(sk, 1)) STORED,
		PRIMARY KEY (pk, sk));
	ALTER TABLE edges REPLICA IDENTITY FULL;
	SELECT create_inverted_index('edges');
	CREATE PUBLICATION follows_pub FOR TABLE edges WHERE (edge = 'FOLLOWS')$with_generated;
});
($rc, $out, $err) = $pub->psql('filter',
	"CREATE PUBLICATION bad_pub FOR TABLE edges WHERE (sk ^@ 'FOLLOWS#')");
like($err, qr/User-defined operators are not allowed/,
	'a row filter cannot use adjkey operators');
$pub->safe_psql('filter', "SELECT 1 FROM pg_create_logical_replication_slot('f', 'pgoutput')");
$pub->safe_psql('filter', $_) for (
	q{INSERT INTO edges VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#a', 'LIKES#POST#1', NULL)},
	q{UPDATE edges SET data = '{"x": 1}' WHERE pk = 'USER#a'},
	q{DELETE FROM edges});
my $filter_want = <<'EOS';
INSERT edges new: pk='USER#a' sk='FOLLOWS#USER#b' data=NULL
UPDATE edges old: pk='USER#a' sk='FOLLOWS#USER#b' data=NULL new: pk='USER#a' sk='FOLLOWS#USER#b' data='{"x": 1}'
DELETE edges old: pk='USER#a' sk='FOLLOWS#USER#b' data='{"x": 1}'
EOS
chomp $filter_want;
# published, the generated column comes along
$filter_want =~ s/(data=(?:NULL|'[^']*'))/$1 edge='FOLLOWS'/g if $pg18;
my $filtered = pgoutput_peek($pub, 'filter', 'f', 'follows_pub');
is(join("\n", grep { /^(INSERT|UPDATE|DELETE)/ } split /\n/, $filtered),
	$filter_want, 'pgoutput, row filter on a generated column: one kind of edge');
$pub->safe_psql('filter', "SELECT pg_drop_replication_slot('f')");
$pub->safe_psql('src', "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = 'src'");

# ---------------------------------------------------------------------
# 3. Logical replication to a subscriber
# ---------------------------------------------------------------------

newdb($pub, 'app');
$pub->safe_psql('app', qq{
	$edges_ddl
	SELECT create_inverted_index('edges', counters => 1);
	ALTER TABLE edges_inverted_degree REPLICA IDENTITY FULL;
	INSERT INTO edges
	SELECT ('USER#' || u)::adjkey, ('FOLLOWS#USER#' || ((u * 7 + k) % 30 + 1))::adjkey,
	       CASE WHEN k % 2 = 0 THEN jsonb_build_object('since', 2000 + k) END
	FROM generate_series(1, 30) u, generate_series(1, 4) k;
	INSERT INTO edges SELECT ('USER#' || u)::adjkey, 'PROFILE', jsonb_build_object('n', u)
	FROM generate_series(1, 30) u;
	SELECT compact_counters('edges_inverted');
	CREATE PUBLICATION app_base FOR TABLE edges;
	CREATE PUBLICATION app_mirror FOR TABLE edges, edges_inverted, edges_inverted_degree;
});

# mirror: the same table and index, before subscribing
newdb($sub, 'mirror');
$sub->safe_psql('mirror', qq{
	$edges_ddl
	SELECT create_inverted_index('edges', counters => 1);
});
# own: the subscriber's table partitioned by pk, its own index, the recipe
newdb($sub, 'own');
$sub->safe_psql('own', q{
	CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
	CREATE TABLE edges_0 PARTITION OF edges FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE edges_1 PARTITION OF edges FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	SELECT create_inverted_index('edges', counters => 1);
	-- and one the publisher does not have: follows only (a sparse index)
	SELECT create_inverted_index('edges', index_name => 'edges_followers',
	                             predicate => $$sk ^@ 'FOLLOWS#'$$, counters => 1);
	CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON edges
	    FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger();
	ALTER TABLE edges ENABLE REPLICA TRIGGER adjlist_sync_replica,
	                  ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc,
	                  ENABLE ALWAYS TRIGGER adjlist_sync_trunc;
});
# plain: the statement triggers enabled ALWAYS
newdb($sub, 'plain');
$sub->safe_psql('plain', qq{
	$edges_ddl
	SELECT create_inverted_index('edges', counters => 1);
	ALTER TABLE edges ENABLE ALWAYS TRIGGER adjlist_sync_ins,
	                  ENABLE ALWAYS TRIGGER adjlist_sync_upd,
	                  ENABLE ALWAYS TRIGGER adjlist_sync_del,
	                  ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc,
	                  ENABLE ALWAYS TRIGGER adjlist_sync_trunc;
});
my %subs = (mirror => 'app_mirror', own => 'app_base', plain => 'app_base');
for my $db (sort keys %subs)
{
	$sub->safe_psql($db,
		"CREATE SUBSCRIPTION sub_$db CONNECTION '$pubconn dbname=app' PUBLICATION $subs{$db}");
}
$sub->wait_for_subscription_sync($pub, "sub_$_", $_) for sort keys %subs;

my %sorted = (
	edges   => 'SELECT pk, sk, data FROM edges ORDER BY pk, sk',
	inverted => 'SELECT sk, pk FROM edges_inverted ORDER BY sk, pk',
	# counters as sums (the rows are deltas; compaction folds them)
	counters => 'SELECT node, edge, direction, sum(n) FROM edges_inverted_degree '
	  . 'GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3',
	degree_rows => 'SELECT node, edge, direction, n FROM edges_inverted_degree ORDER BY 1, 2, 3, 4');

sub check_subscriber
{
	my ($when, %opt) = @_;
	$pub->wait_for_catchup("sub_$_") for sort keys %subs;
	my %p = map { $_ => $pub->safe_psql('app', $sorted{$_}) } keys %sorted;
	for my $db ('mirror', 'own')
	{
		is($sub->safe_psql($db, $sorted{edges}), $p{edges}, "$when: $db has the publisher's edges");
		is(drift_rows($sub, $db, 'edges_inverted'), '', "$when: $db: verify_inverted_index finds nothing");
		is($sub->safe_psql($db, $sorted{inverted}), $p{inverted}, "$when: $db: the index is the publisher's");
		is($sub->safe_psql($db, $sorted{counters}), $p{counters}, "$when: $db: the counters are the publisher's");
		is($sub->safe_psql($db,
				"SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('edges', 'USER#3', 'FOLLOWS#')"),
			$pub->safe_psql('app',
				"SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('edges', 'USER#3', 'FOLLOWS#')"),
			"$when: $db: reverse_neighbors answers as on the publisher");
	}
	# own's second index, which the publisher does not have
	is(drift_rows($sub, 'own', 'edges_followers'), '',
		"$when: own: its follows-only index: verify_inverted_index finds nothing");
	is($sub->safe_psql('own', 'SELECT sk, pk FROM edges_followers ORDER BY sk, pk'),
		$pub->safe_psql('app', "SELECT sk, pk FROM edges WHERE sk ^@ 'FOLLOWS#' ORDER BY sk, pk"),
		"$when: own: its follows-only index holds the publisher's follows");
	# the counter table row for row in the mirror (deltas and compactions replicated)
	is($sub->safe_psql('mirror', $sorted{degree_rows}), $p{degree_rows},
		"$when: mirror: the counter rows themselves are the publisher's");
	is($sub->safe_psql('plain', $sorted{edges}), $p{edges}, "$when: plain has the publisher's edges");
	if ($opt{plain_exact})
	{
		is(drift_rows($sub, 'plain', 'edges_inverted'), '',
			"$when: plain: the initial copy (a COPY, statement triggers fire) is indexed");
	}
	else
	{
		isnt(drift_count($sub, 'plain', 'edges_inverted'), '0',
			"$when: plain: streamed changes are not indexed (an apply worker fires no statement trigger)");
		cmp_ok($sub->safe_psql('plain', "SELECT rebuild_inverted_index('edges_inverted')"), '>', 0,
			"$when: plain: rebuild_inverted_index repairs it");
		is(drift_rows($sub, 'plain', 'edges_inverted'), '', "$when: plain: exact after the rebuild");
	}
}

check_subscriber('initial copy', plain_exact => 1);

# batches of changes on the publisher
$pub->safe_psql('app', $_) for (
	q{INSERT INTO edges VALUES ('USER#31', 'FOLLOWS#USER#3', '{"new": true}'), ('USER#32', 'FOLLOWS#USER#3', NULL)},
	q{UPDATE edges SET data = '{"since": 1999}' WHERE pk = 'USER#1' AND sk ^@ 'FOLLOWS#'},
	# key changes: sk, and pk (another partition of "own" for some rows)
	q{UPDATE edges SET sk = 'FOLLOWS#USER#3' WHERE pk = 'USER#2' AND sk = 'FOLLOWS#USER#16'},
	q{UPDATE edges SET pk = ('USER#' || (key_part(pk, -1)::int + 100))::adjkey WHERE pk IN ('USER#4', 'USER#5', 'USER#6')},
	q{DELETE FROM edges WHERE pk = 'USER#7'},
	q{SELECT put_edge('edges', 'USER#40', 'FOLLOWS#USER#3', '{"api": 1}')},
	q{SELECT put_edge('edges', 'USER#40', 'FOLLOWS#USER#3', '{"api": 2}')},
	q{SELECT put_edges('edges', '[{"pk": "USER#41", "sk": "FOLLOWS#USER#3"}, {"pk": "USER#41", "sk": "FOLLOWS#USER#40"}]')},
	q{SELECT delete_edge('edges', 'USER#41', 'FOLLOWS#USER#40')},
	q{SELECT delete_node('edges', 'USER#9', ARRAY['FOLLOWS#'])},
	q{BEGIN; INSERT INTO edges VALUES ('USER#50', 'FOLLOWS#USER#3', NULL); ROLLBACK},
	q{BEGIN;
	  INSERT INTO edges VALUES ('USER#51', 'FOLLOWS#USER#3', NULL);
	  SAVEPOINT s;
	  DELETE FROM edges WHERE pk = 'USER#8';
	  ROLLBACK TO SAVEPOINT s;
	  UPDATE edges SET sk = 'FOLLOWS#USER#51' WHERE pk = 'USER#10' AND sk = 'PROFILE';
	  COMMIT},
	q{INSERT INTO edges SELECT ('BULK#' || i)::adjkey, ('FOLLOWS#USER#' || (i % 5 + 1))::adjkey, NULL
	  FROM generate_series(1, 200) i},
	q{SELECT compact_counters('edges_inverted')});
check_subscriber('after DML and the write API');

$pub->safe_psql('app', $_) for (
	q{TRUNCATE edges},
	q{INSERT INTO edges VALUES ('USER#1', 'FOLLOWS#USER#3', NULL), ('USER#2', 'FOLLOWS#USER#3', NULL)});
check_subscriber('after TRUNCATE');

# adjlist_sync_replica's refusals, on "own" (rolled back)
($rc, $out, $err) = $sub->psql('own', q{
	BEGIN;
	ALTER TABLE edges ENABLE TRIGGER adjlist_sync_replica;
	INSERT INTO edges VALUES ('USER#x', 'FOLLOWS#USER#3', NULL);
	ROLLBACK});
like($err, qr/trigger "adjlist_sync_replica" on table "edges_[01]" must fire in replica mode only/,
	'adjlist_sync_replica enabled for origin sessions is refused');
($rc, $out, $err) = $sub->psql('own', q{
	BEGIN;
	ALTER TABLE edges ENABLE ALWAYS TRIGGER adjlist_sync_ins;
	SET LOCAL session_replication_role = replica;
	INSERT INTO edges VALUES ('USER#x', 'FOLLOWS#USER#3', NULL);
	ROLLBACK});
like($err, qr/trigger "adjlist_sync_replica" on table "edges_[01]" and trigger "adjlist_sync_ins" on table "edges" both fire in replica mode/,
	'adjlist_sync_replica next to a statement trigger enabled ALWAYS (on the parent) is refused');
# a session in replica mode (a bulk-load tool) is indexed too
is($sub->safe_psql('own', q{
	BEGIN;
	SET LOCAL session_replication_role = replica;
	INSERT INTO edges VALUES ('USER#x', 'FOLLOWS#USER#3', NULL), ('USER#y', 'FOLLOWS#USER#x', NULL);
	UPDATE edges SET sk = 'FOLLOWS#USER#y' WHERE pk = 'USER#1';
	UPDATE edges SET pk = 'USER#z' WHERE pk = 'USER#y';
	DELETE FROM edges WHERE pk = 'USER#2';
	SELECT count(*) FROM edges_inverted WHERE sk = 'FOLLOWS#USER#x' AND pk = 'USER#z';
	SELECT count(*) FROM verify_inverted_index('edges_inverted');
	ROLLBACK}), "1\n0", 'own: a session in replica mode is indexed by adjlist_sync_replica');
is(drift_rows($sub, 'own', 'edges_inverted'), '', 'own: still exact');

for my $db (sort keys %subs)
{
	$sub->safe_psql($db, "DROP SUBSCRIPTION sub_$db");
}
is($sub->safe_psql('own', q{
	SELECT count(*) FROM pg_trigger WHERE tgname = 'adjlist_sync_replica'}),
	'3', 'adjlist_sync_replica on the table and its two partitions');
$sub->safe_psql('own', "SELECT drop_inverted_index('edges_inverted')");
is($sub->safe_psql('own', q{
	SELECT count(*) FROM pg_trigger WHERE tgname = 'adjlist_sync_replica'}),
	'3', 'adjlist_sync_replica stays while the table has an index');
$sub->safe_psql('own', "SELECT drop_inverted_index('edges_followers')");
is($sub->safe_psql('own', q{
	SELECT count(*) FROM pg_trigger WHERE tgname = 'adjlist_sync_replica'}),
	'0', 'adjlist_sync_replica goes with the last index, from the partitions too');
is($pub->safe_psql('postgres', 'SELECT count(*) FROM pg_replication_slots'), '0',
	'no slot left on the publisher');

# ---------------------------------------------------------------------
# 4. TRUNCATE of one partition, on a subscriber that keeps its own index
# ---------------------------------------------------------------------
#
# The publisher's table is partitioned (a leaf, a partition partitioned
# again, another leaf); so is the subscriber's, with an index and counters,
# set up as the README says.  The publisher's TRUNCATE of one partition
# reaches the subscriber as a TRUNCATE of that partition, in replica mode:
# the partition's own BEFORE TRUNCATE trigger must fire, enabled ALWAYS as
# the parent's is.  Then partitions created and attached after the setup,
# on both sides (ALTER SUBSCRIPTION ... REFRESH PUBLICATION copies them).

my $parts_ddl = q{
	CREATE TABLE g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
	CREATE TABLE g_a PARTITION OF g FOR VALUES FROM ('A#') TO ('A$');
	CREATE TABLE g_b PARTITION OF g FOR VALUES FROM ('B#') TO ('B$') PARTITION BY HASH (pk);
	CREATE TABLE g_b0 PARTITION OF g_b FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE g_b1 PARTITION OF g_b FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	CREATE TABLE g_c PARTITION OF g FOR VALUES FROM ('C#') TO ('C$');
};
# rows of the partitions named by their pk prefixes, following B#1..B#5
sub parts_rows
{
	my $rows = join(', ', map {
		my $k = $_;
		map { "('$k#$_', 'FOLLOWS#B#" . ($_ % 5 + 1) . "')" } 1 .. 12
	} @_);
	return "INSERT INTO g VALUES $rows";
}
newdb($pub, 'parts');
$pub->safe_psql('parts', $parts_ddl . parts_rows(qw(A B C)) . q{;
	CREATE PUBLICATION parts_pub FOR TABLE g;
});
newdb($sub, 'parts');
$sub->safe_psql('parts', $parts_ddl . q{
	SELECT create_inverted_index('g', counters => 1);
	CREATE TRIGGER adjlist_sync_replica AFTER INSERT OR UPDATE OR DELETE ON g
	    FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger();
	ALTER TABLE g ENABLE REPLICA TRIGGER adjlist_sync_replica,
	              ENABLE ALWAYS TRIGGER adjlist_sync_before_trunc,
	              ENABLE ALWAYS TRIGGER adjlist_sync_trunc;
});
$sub->safe_psql('parts',
	"CREATE SUBSCRIPTION sub_parts CONNECTION '$pubconn dbname=parts' PUBLICATION parts_pub");
$sub->wait_for_subscription_sync($pub, 'sub_parts', 'parts');

# the subscriber's rows are the publisher's, its index exact, its counters
# (in and out degrees, summed) a recount of the publisher's rows
sub parts_exact
{
	my ($when) = @_;
	$pub->wait_for_catchup('sub_parts');
	my $rows = 'SELECT pk, sk FROM g ORDER BY pk, sk';
	is($sub->safe_psql('parts', $rows), $pub->safe_psql('parts', $rows),
		"$when: the subscriber has the publisher's rows");
	is(drift_rows($sub, 'parts', 'g_inverted'), '',
		"$when: verify_inverted_index finds nothing");
	is($sub->safe_psql('parts', 'SELECT count(*) FROM g_inverted'),
		$pub->safe_psql('parts', 'SELECT count(*) FROM g'),
		"$when: the index has a row per edge");
	is($sub->safe_psql('parts', q{
		SELECT string_agg(format('%s %s %s', node, direction, n), ',' ORDER BY node, direction)
		FROM (SELECT node::text, direction, sum(n) AS n FROM g_inverted_degree
		      GROUP BY 1, 2 HAVING sum(n) <> 0) c}),
	   $pub->safe_psql('parts', q{
		SELECT string_agg(format('%s %s %s', node, direction, n), ',' ORDER BY node, direction)
		FROM (SELECT substr(sk::text, 9) AS node, 'i' AS direction, count(*) AS n FROM g GROUP BY 1
		      UNION ALL
		      SELECT pk::text, 'o', count(*) FROM g GROUP BY 1) c}),
		"$when: the counters count the publisher's rows");
}

parts_exact('partitioned, initial copy');
$pub->safe_psql('parts', 'TRUNCATE g_a');
parts_exact('TRUNCATE of one partition');
$pub->safe_psql('parts', 'TRUNCATE g_b1');
parts_exact('TRUNCATE of a sub-partition');
$pub->safe_psql('parts', 'TRUNCATE g_b');
parts_exact('TRUNCATE of a partitioned partition');

# partitions made after the setup: created, and attached with rows
for my $node ($pub, $sub)
{
	$node->safe_psql('parts', q{
		CREATE TABLE g_d PARTITION OF g FOR VALUES FROM ('D#') TO ('D$');
		CREATE TABLE g_e (pk adjkey NOT NULL, sk adjkey NOT NULL);
		ALTER TABLE g_e ADD PRIMARY KEY (pk, sk);
		ALTER TABLE g ATTACH PARTITION g_e FOR VALUES FROM ('E#') TO ('E$');
	});
}
$sub->safe_psql('parts', 'ALTER SUBSCRIPTION sub_parts REFRESH PUBLICATION');
$sub->wait_for_subscription_sync($pub, 'sub_parts', 'parts');
$pub->safe_psql('parts', parts_rows(qw(A B D E)));
parts_exact('partitions added later, and rows');
$pub->safe_psql('parts', 'TRUNCATE g_d');
parts_exact('TRUNCATE of a partition created later');
$pub->safe_psql('parts', 'TRUNCATE g_e, g_b0');
parts_exact('TRUNCATE of a partition attached later, and a sub-partition');
$pub->safe_psql('parts', 'TRUNCATE g');
parts_exact('TRUNCATE of the whole table');
is($sub->safe_psql('parts', q{
	SELECT string_agg(DISTINCT tgenabled::text, ',') FROM pg_trigger
	WHERE tgname IN ('adjlist_sync_before_trunc', 'adjlist_sync_trunc')}),
	'A', 'the TRUNCATE triggers of the table and every partition fire ALWAYS');
$sub->safe_psql('parts', 'DROP SUBSCRIPTION sub_parts');
is($pub->safe_psql('postgres', 'SELECT count(*) FROM pg_replication_slots'), '0',
	'no slot left on the publisher');

$sub->stop;
$pub->stop;
done_testing();

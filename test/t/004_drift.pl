# Drift made behind the triggers' back (disabled triggers, replica mode,
# direct writes to an index table) is reported exactly by
# verify_inverted_index(), and rebuild_inverted_index() mends exactly it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $node = adjlist_node('drift');

# three indexes of one table: KEYS_ONLY, one projecting data, and a
# KEYS_ONLY one whose table is hash-partitioned
$node->safe_psql('postgres', edges_schema() . q{
	INSERT INTO edges
	SELECT ('USER#' || u)::adjkey, ('FOLLOWS#USER#' || f)::adjkey, jsonb_build_object('n', u)
	FROM generate_series(1, 6) u, unnest('{a,b,c,d,e}'::text[]) f;
	SELECT create_inverted_index('edges');
	SELECT create_inverted_index('edges', include => '{data}', index_name => 'edges_proj');
	SELECT create_inverted_index('edges', index_name => 'edges_hash', partitions => 3);
});
my @indexes = qw(edges_inverted edges_proj edges_hash);
for my $idx (@indexes)
{
	is(drift_count($node, 'postgres', $idx), '0', "$idx: no drift to begin with");
}

# the drift, and what each index must report
my %expected = map { $_ => [] } @indexes;
sub key { my ($pk, $sk) = @_; return qq({"pk": "$pk", "sk": "$sk"}); }
sub expect
{
	my ($problem, $pk, $sk, @which) = @_;
	push @{ $expected{$_} }, "$problem " . key($pk, $sk) for @which;
}

# 1. triggers disabled: by a superuser, with DISABLE TRIGGER ALL (what
# pg_restore --data-only --disable-triggers runs), the one form adjlist
# allows; USER is refused
my ($ret, $out, $err) = $node->psql('postgres', q{ALTER TABLE edges DISABLE TRIGGER USER});
like($err, qr/cannot disable the user triggers on table "edges"/,
	'DISABLE TRIGGER USER of an indexed table is refused');
$node->safe_psql('postgres', q{
	ALTER TABLE edges DISABLE TRIGGER ALL;
	INSERT INTO edges VALUES ('USER#9', 'FOLLOWS#USER#a', '{"n": 9}'),
	                         ('USER#9', 'FOLLOWS#USER#b', NULL);
	DELETE FROM edges WHERE pk = 'USER#1' AND sk = 'FOLLOWS#USER#a';
	UPDATE edges SET data = '{"n": 20}' WHERE pk = 'USER#2' AND sk = 'FOLLOWS#USER#b';
	UPDATE edges SET sk = 'FOLLOWS#USER#z' WHERE pk = 'USER#3' AND sk = 'FOLLOWS#USER#c';
	UPDATE edges SET pk = 'USER#33' WHERE pk = 'USER#3' AND sk = 'FOLLOWS#USER#d';
	ALTER TABLE edges ENABLE TRIGGER ALL;
});
expect('missing', 'USER#9',  'FOLLOWS#USER#a', @indexes);
expect('missing', 'USER#9',  'FOLLOWS#USER#b', @indexes);
expect('extra',   'USER#1',  'FOLLOWS#USER#a', @indexes);
expect('stale',   'USER#2',  'FOLLOWS#USER#b', 'edges_proj');
expect('missing', 'USER#3',  'FOLLOWS#USER#z', @indexes);
expect('extra',   'USER#3',  'FOLLOWS#USER#c', @indexes);
expect('missing', 'USER#33', 'FOLLOWS#USER#d', @indexes);
expect('extra',   'USER#3',  'FOLLOWS#USER#d', @indexes);

# 2. replication role replica: ordinary triggers do not fire
$node->safe_psql('postgres', q{
	SET session_replication_role = replica;
	UPDATE edges SET data = NULL WHERE pk = 'USER#4' AND sk = 'FOLLOWS#USER#d';
	DELETE FROM edges WHERE pk = 'USER#4' AND sk = 'FOLLOWS#USER#e';
	INSERT INTO edges VALUES ('USER#10', 'FOLLOWS#USER#a', '{"n": 10}')
		ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
	INSERT INTO edges VALUES ('USER#5', 'FOLLOWS#USER#a', '{"n": 55}')
		ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
	RESET session_replication_role;
});
expect('stale',   'USER#4',  'FOLLOWS#USER#d', 'edges_proj');
expect('extra',   'USER#4',  'FOLLOWS#USER#e', @indexes);
expect('missing', 'USER#10', 'FOLLOWS#USER#a', @indexes);
expect('stale',   'USER#5',  'FOLLOWS#USER#a', 'edges_proj');

# 3. direct writes to the index tables: their guard refuses them, whoever
# makes them, and cannot be disabled by name; a superuser who disables all
# triggers of the index tables can still make drift, which verify finds
($ret, $out, $err) = $node->psql('postgres', q{ALTER TABLE edges_inverted DISABLE TRIGGER adjlist_index_guard});
like($err, qr/cannot disable trigger "adjlist_index_guard" on table "edges_inverted"/,
	'the guard of an index table cannot be disabled');
($ret, $out, $err) = $node->psql('postgres',
	q{DELETE FROM edges_inverted WHERE pk = 'USER#6' AND sk = 'FOLLOWS#USER#a'});
like($err, qr/table "edges_inverted" is kept by adjlist from table "edges"/,
	'a direct write to an index table is refused');
$node->safe_psql('postgres', q{
	ALTER TABLE edges_inverted DISABLE TRIGGER ALL;
	ALTER TABLE edges_hash DISABLE TRIGGER ALL;
	ALTER TABLE edges_proj DISABLE TRIGGER ALL;
	DELETE FROM edges_inverted WHERE pk = 'USER#6' AND sk = 'FOLLOWS#USER#a';
	INSERT INTO edges_hash VALUES ('FOLLOWS#USER#nobody', 'USER#ghost');
	UPDATE edges_proj SET data = '{"forged": true}' WHERE pk = 'USER#6' AND sk = 'FOLLOWS#USER#b';
	INSERT INTO edges_proj VALUES ('FOLLOWS#USER#x', 'USER#ghost', NULL);
	ALTER TABLE edges_inverted ENABLE TRIGGER ALL;
	ALTER TABLE edges_hash ENABLE TRIGGER ALL;
	ALTER TABLE edges_proj ENABLE TRIGGER ALL;
});
expect('missing', 'USER#6',     'FOLLOWS#USER#a',      'edges_inverted');
expect('extra',   'USER#ghost', 'FOLLOWS#USER#nobody', 'edges_hash');
expect('stale',   'USER#6',     'FOLLOWS#USER#b',      'edges_proj');
expect('extra',   'USER#ghost', 'FOLLOWS#USER#x',      'edges_proj');

# 4. writes with the triggers on again are synced, and neither hide nor
# add drift
$node->safe_psql('postgres', q{
	INSERT INTO edges VALUES ('USER#11', 'FOLLOWS#USER#a', NULL);
	UPDATE edges SET sk = 'FOLLOWS#USER#y' WHERE pk = 'USER#2' AND sk = 'FOLLOWS#USER#c';
	DELETE FROM edges WHERE pk = 'USER#2' AND sk = 'FOLLOWS#USER#e';
});

for my $idx (@indexes)
{
	my @want = sort @{ $expected{$idx} };
	my @got = split /\n/, drift_rows($node, 'postgres', $idx);
	is_deeply(\@got, \@want, "$idx: verify reports exactly the injected drift ("
		  . scalar(@want) . ' rows)')
	  or diag("got:\n" . join("\n", @got) . "\nwanted:\n" . join("\n", @want));
}

# what verify says a stale row should be, and what it is
is($node->safe_psql('postgres', q{
	SELECT expected->'data', actual->'data' FROM verify_inverted_index('edges_proj')
	WHERE key = '{"pk": "USER#2", "sk": "FOLLOWS#USER#b"}'}),
	'{"n": 20}|{"n": 2}', 'stale row: expected and actual projected values');
is($node->safe_psql('postgres', q{
	SELECT expected->>'data' IS NULL, actual->'data' FROM verify_inverted_index('edges_proj')
	WHERE key = '{"pk": "USER#4", "sk": "FOLLOWS#USER#d"}'}),
	't|{"n": 4}', 'stale row whose projected value became NULL');
is($node->safe_psql('postgres', q{
	SELECT expected IS NULL, actual->>'pk' FROM verify_inverted_index('edges_hash')
	WHERE problem = 'extra'
	  AND key = '{"pk": "USER#ghost", "sk": "FOLLOWS#USER#nobody"}'}),
	't|USER#ghost', 'extra row: no expected row, the actual one');
is($node->safe_psql('postgres', q{
	SELECT expected->>'sk', actual IS NULL FROM verify_inverted_index('edges_inverted')
	WHERE problem = 'missing'
	  AND key = '{"pk": "USER#10", "sk": "FOLLOWS#USER#a"}'}),
	'FOLLOWS#USER#a|t', 'missing row: the expected row, no actual one');

# rebuild: it deletes the extra and stale rows, inserts the missing and the
# right versions of the stale ones, and returns how many problems it
# repaired: what verify reported, each drifted row once
for my $idx (@indexes)
{
	my $n = @{ $expected{$idx} };
	my $stale = grep { /^stale / } @{ $expected{$idx} };
	is($node->safe_psql('postgres', "SELECT rebuild_inverted_index('$idx')"), $n,
		"$idx: rebuild returns the number of drifted rows ($n, $stale of them stale)");
	is(drift_rows($node, 'postgres', $idx), '', "$idx: no drift after rebuild");
	is($node->safe_psql('postgres', "SELECT rebuild_inverted_index('$idx')"), '0',
		"$idx: a second rebuild changes nothing");
}

# the mended indexes equal the table, and stay in sync
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM edges), (SELECT count(*) FROM edges_inverted),
	       (SELECT count(*) FROM edges_proj), (SELECT count(*) FROM edges_hash)}),
	join('|', ($node->safe_psql('postgres', 'SELECT count(*) FROM edges')) x 4),
	'every index has as many rows as the table');
is($node->safe_psql('postgres', q{
	SELECT data FROM edges_proj WHERE pk = 'USER#6' AND sk = 'FOLLOWS#USER#b'}),
	'{"n": 6}', 'the forged projected value is repaired');
$node->safe_psql('postgres', q{
	UPDATE edges SET pk = 'USER#90' WHERE pk = 'USER#9';
	DELETE FROM edges WHERE pk = 'USER#33';
	UPDATE edges SET data = '{"n": 0}' WHERE pk = 'USER#10';
});
for my $idx (@indexes)
{
	is(drift_count($node, 'postgres', $idx), '0', "$idx: in sync after further writes");
}

# create_inverted_index() and rebuild_inverted_index() read the table once;
# in a REPEATABLE READ (or SERIALIZABLE) transaction that snapshot may
# predate rows others committed before the table was locked, which the
# backfill would miss.  Both refuse to run there, and create nothing.
$node->safe_psql('postgres', q{
	CREATE TABLE rr (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	INSERT INTO rr VALUES ('USER#1', 'FOLLOWS#USER#a');
});
my $rr = $node->background_psql('postgres', on_error_stop => 0);
$rr->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM rr;');
$node->safe_psql('postgres', q{INSERT INTO rr VALUES ('USER#2', 'FOLLOWS#USER#b')});
$rr->query(q{SELECT create_inverted_index('rr')});
like($rr->{stderr}, qr/an inverted index can be created only in a READ COMMITTED transaction/,
	'create_inverted_index refuses a REPEATABLE READ transaction');
$rr->query('ROLLBACK');
$rr->quit;
is($node->safe_psql('postgres', q{SELECT to_regclass('rr_inverted') IS NULL}), 't',
	'and creates nothing');
$node->safe_psql('postgres', q{SELECT create_inverted_index('rr')});
is(drift_rows($node, 'postgres', 'rr_inverted'), '',
	'in READ COMMITTED the backfill sees every committed row');
($ret, my $stdout, my $stderr) = $node->psql('postgres', q{
	BEGIN ISOLATION LEVEL REPEATABLE READ;
	SELECT rebuild_inverted_index('rr_inverted');
	COMMIT;});
like($stderr, qr/an inverted index can be rebuilt only in a READ COMMITTED transaction/,
	'rebuild_inverted_index refuses a REPEATABLE READ transaction');

$node->stop;
done_testing();

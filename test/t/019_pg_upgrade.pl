# pg_upgrade of a cluster with a sparse inverted index.
#
# pg_upgrade copies the data files of user and extension tables as they
# are, adjlist_index_predicates included, but re-creates functions and
# operators (a binary-upgrade dump) with other OIDs, and the pg_depend
# entries adjlist recorded from C are not dumped.  The bound predicate
# (a pg_node_tree naming what it calls by OID) is then stale: adjlist must
# notice (the bound row carries the cluster's system identifier, which a
# new cluster does not share), bind the registry's text again, and persist
# the new expression and its pg_depend entries.
#
# Old and new cluster run from the same bin directory (pg_upgrade within
# one major version: what it does to adjlist is the same from 15 to 18).
# After the upgrade: a read-only transaction evaluates the right predicate
# (bound again in memory), a rename of the predicate's function keeps the
# text right, writes are indexed by the right predicate,
# verify_inverted_index() is clean, and DROP FUNCTION of the predicate's
# function is refused.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use Cwd;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $old = adjlist_node('old');

$old->safe_psql('postgres', q{
	CREATE SCHEMA app;
	CREATE FUNCTION app.keep(d jsonb) RETURNS boolean IMMUTABLE
		LANGUAGE sql AS $$ SELECT coalesce((d->>'keep')::boolean, true) $$;
	CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO g VALUES ('A', 'F#B', NULL), ('A', 'P', NULL), ('A', 'F#X', '{"keep": false}');
	SELECT create_inverted_index('g', predicate => $$sk ^@ 'F#' AND app.keep(data)$$,
								 counters => 1);
	CREATE TABLE h (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO h VALUES ('A', 'B', NULL), ('A', 'C', '{"keep": false}');
	SELECT create_inverted_index('h', predicate => $$app.keep(data)$$);
	-- functions made after them, re-created too: OIDs shift further
	CREATE FUNCTION app.filler1() RETURNS int LANGUAGE sql AS 'SELECT 1';
	CREATE FUNCTION app.filler2() RETURNS int LANGUAGE sql AS 'SELECT 2';
});
my $index_sql = q{SELECT string_agg(pk::text || ' ' || sk::text, ',' ORDER BY sk) FROM g_inverted};
my $h_sql = q{SELECT string_agg(pk::text || ' ' || sk::text, ',' ORDER BY sk) FROM h_inverted};
is($old->safe_psql('postgres', $index_sql), 'A F#B', 'old cluster: the sparse index');
my $text_sql = q{SELECT predicate FROM adjlist_inverted_indexes WHERE indexrel = 'g_inverted'::regclass};
my $h_text_sql = q{SELECT predicate FROM adjlist_inverted_indexes WHERE indexrel = 'h_inverted'::regclass};
my $text = $old->safe_psql('postgres', $text_sql);
my $h_text = $old->safe_psql('postgres', $h_text_sql);
$old->stop;

# is the bound predicate of an index this cluster's?
sub bound_here
{
	my ($node, $idx) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT p.system_identifier = (SELECT system_identifier FROM pg_control_system())
		FROM adjlist_index_predicates p WHERE p.indexrel = '$idx'::regclass});
}

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init;
my $bindir = $old->config_data('--bindir');
my $cwd = getcwd();
chdir $new->basedir;
command_ok(
	[
		"$bindir/pg_upgrade", '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-s', $new->host, '-p', $old->port, '-P', $new->port
	],
	'pg_upgrade');
chdir $cwd;
$new->start;

# a read-only transaction first: the old expression is bound again in memory
my ($ret, $out, $err) = $new->psql('postgres', q{
	SET default_transaction_read_only = on;
	SELECT count(*) FROM verify_inverted_index('g_inverted');
});
is($ret, 0, 'read-only verify runs') or diag($err);
is($out, '0', 'read-only verify: clean');
is(bound_here($new, 'g_inverted'), 'f', '... and left the stored expression alone');
is($new->safe_psql('postgres', $text_sql), $text, 'the predicate text is as before');

# writes: bound again, and written back with the pg_depend entries
($ret, $out, $err) = $new->psql('postgres', q{
	INSERT INTO g VALUES ('A', 'F#C', NULL), ('A', 'Q', NULL), ('A', 'R', NULL),
		('A', 'F#D', '{"keep": false}');
	UPDATE g SET data = '{"keep": true}' WHERE sk = 'F#X';
});
is($ret, 0, 'writes after the upgrade') or diag($err);
is($new->safe_psql('postgres', $index_sql), 'A F#B,A F#C,A F#X',
	'writes after the upgrade are indexed by the same predicate');
is(drift_count($new, 'postgres', 'g_inverted'), '0', 'verify_inverted_index: clean');
is(bound_here($new, 'g_inverted'), 't', 'the bound predicate was written for the new cluster');
is($new->safe_psql('postgres', q{
	SELECT string_agg(objid::regclass::text, ',' ORDER BY objid::regclass::text) FROM pg_depend
	WHERE classid = 'pg_class'::regclass AND refclassid = 'pg_proc'::regclass
	  AND refobjid = 'app.keep(jsonb)'::regprocedure}),
	'g_inverted,g_inverted_degree', 'and the index and counter tables depend on its function again');

($ret, $out, $err) = $new->psql('postgres', 'DROP FUNCTION app.keep(jsonb)');
isnt($ret, 0, 'DROP FUNCTION of the predicate\'s function is refused');
like($err, qr/cannot drop function app\.keep\(jsonb\) because other objects depend on it/,
	'... because the index tables depend on it');

# h, untouched so far: DDL that renames what its predicate names binds it
# first (the rename would leave the old text naming nothing)
is(bound_here($new, 'h_inverted'), 'f', 'h: still the old cluster\'s');
($ret, $out, $err) = $new->psql('postgres', 'ALTER FUNCTION app.keep(jsonb) RENAME TO keep_it');
is($ret, 0, 'rename of the predicate\'s function') or diag($err);
is(bound_here($new, 'h_inverted'), 't', 'h: bound again before the rename');
is($new->safe_psql('postgres', $h_text_sql), $h_text =~ s/app\.keep\(/app.keep_it(/r,
	'h: the text follows the rename');
is($new->safe_psql('postgres', $text_sql), $text =~ s/app\.keep\(/app.keep_it(/r,
	'g: the text follows the rename');
($ret, $out, $err) = $new->psql('postgres', q{
	INSERT INTO h VALUES ('A', 'D', NULL), ('A', 'E', '{"keep": false}');
});
is($ret, 0, 'h: writes') or diag($err);
is($new->safe_psql('postgres', $h_sql), 'A B,A D', 'h: indexed by the same predicate');
is(drift_count($new, 'postgres', 'h_inverted'), '0', 'h: verify_inverted_index clean');
($ret, $out, $err) = $new->psql('postgres', 'DROP FUNCTION app.keep_it(jsonb)');
like($err, qr/cannot drop function app\.keep_it\(jsonb\) because other objects depend on it/,
	'DROP FUNCTION refused after the rename');

($ret, $out, $err) = $new->psql('postgres', q{SELECT rebuild_inverted_index('g_inverted')});
is($ret, 0, 'rebuild') or diag($err);
is($new->safe_psql('postgres', $index_sql), 'A F#B,A F#C,A F#X', 'rebuilt: the same rows');

$new->stop;
done_testing();

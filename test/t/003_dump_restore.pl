# pg_dump -Fc and pg_restore into a new database: the registry rows come
# back (adjlist_inverted_indexes is extension configuration, dumped by
# pg_extension_config_dump), the index tables come back with the same
# contents, and the restored triggers keep the indexes in sync.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $node = adjlist_node('dump');
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', q{
	CREATE EXTENSION adjlist;
	CREATE SCHEMA social;
	CREATE TABLE social.graph (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	-- profiles, and each user follows five others
	INSERT INTO social.graph
	SELECT ('USER#' || u)::adjkey, 'PROFILE', jsonb_build_object('name', 'user ' || u)
	FROM generate_series(1, 60) u;
	INSERT INTO social.graph
	SELECT ('USER#' || u)::adjkey, ('FOLLOWS#USER#' || ((u * 7 + k) % 60 + 1))::adjkey,
	       CASE WHEN k % 2 = 0 THEN jsonb_build_object('since', 2000 + k) END
	FROM generate_series(1, 60) u, generate_series(1, 5) k;
	SELECT create_inverted_index('social.graph');
	SELECT create_inverted_index('social.graph', include => '{*}', index_name => 'graph_by_target');
	-- and some writes after the indexes exist
	DELETE FROM social.graph WHERE pk = 'USER#3';
	UPDATE social.graph SET sk = 'FOLLOWS#USER#1' WHERE pk = 'USER#4' AND sk = 'PROFILE';
	UPDATE social.graph SET data = '{"name": "renamed"}' WHERE pk = 'USER#5' AND sk = 'PROFILE';
});

my @indexes = ('social.graph_inverted', 'social.graph_by_target');
for my $idx (@indexes)
{
	is(drift_count($node, 'src', $idx), '0', "source: $idx is consistent");
}

my $registry_sql = q{
	SELECT indexrel::text, baserel::text, columns, nkeys, created
	FROM adjlist_inverted_indexes ORDER BY 1};
my %contents_sql = (
	'social.graph'            => 'SELECT * FROM social.graph ORDER BY pk, sk',
	'social.graph_inverted'   => 'SELECT * FROM social.graph_inverted ORDER BY sk, pk',
	'social.graph_by_target'  => 'SELECT * FROM social.graph_by_target ORDER BY sk, pk');
my $triggers_sql = q{
	SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger
	WHERE tgrelid = 'social.graph'::regclass AND NOT tgisinternal ORDER BY 1};

my $src_registry = $node->safe_psql('src', $registry_sql);
like($src_registry, qr/^social\.graph_by_target\|social\.graph\|\{sk,pk,data\}\|2\|.*\n
                       social\.graph_inverted\|social\.graph\|\{sk,pk\}\|2\|/x,
	'source registry lists both indexes');
my %src_contents = map { $_ => $node->safe_psql('src', $contents_sql{$_}) } keys %contents_sql;
my $src_triggers = $node->safe_psql('src', $triggers_sql);

# dump, and restore into a new database
my $dump = $node->basedir . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', 'src', '-f', $dump ], 'pg_dump -Fc');
$node->command_ok([ 'createdb', 'dst' ], 'createdb dst');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', 'dst', $dump ], 'pg_restore into dst');

is($node->safe_psql('dst', $registry_sql), $src_registry,
	'registry rows restored, same indexes, tables, columns, keys and dates');
is($node->safe_psql('dst', q{
	SELECT count(*) FROM adjlist_inverted_indexes r
	WHERE r.indexrel::oid NOT IN (SELECT oid FROM pg_class)
	   OR r.baserel::oid NOT IN (SELECT oid FROM pg_class)}),
	'0', 'restored registry rows point at the restored tables');
is($node->safe_psql('dst', $triggers_sql), $src_triggers, 'sync triggers restored');
for my $rel (sort keys %contents_sql)
{
	is($node->safe_psql('dst', $contents_sql{$rel}), $src_contents{$rel},
		"$rel: restored contents equal the original");
}
for my $idx (@indexes)
{
	is(drift_rows($node, 'dst', $idx), '', "restored $idx: verify finds nothing");
}

# the restored triggers work: every kind of write reaches both indexes
$node->safe_psql('dst', q{
	INSERT INTO social.graph VALUES ('USER#100', 'FOLLOWS#USER#1', '{"new": true}');
	INSERT INTO social.graph VALUES ('USER#101', 'FOLLOWS#USER#1', NULL)
		ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
	DELETE FROM social.graph WHERE pk = 'USER#2';
	UPDATE social.graph SET sk = 'FOLLOWS#USER#99' WHERE pk = 'USER#6' AND sk = 'PROFILE';
	UPDATE social.graph SET pk = 'USER#700' WHERE pk = 'USER#7';
	UPDATE social.graph SET data = '{"name": "changed"}' WHERE pk = 'USER#8' AND sk = 'PROFILE';
});
is($node->safe_psql('dst', q{
	SELECT string_agg(pk::text, ',' ORDER BY pk) FROM social.graph_inverted
	WHERE sk = 'FOLLOWS#USER#1' AND pk IN ('USER#100', 'USER#101')}),
	'USER#100,USER#101', 'inserts after restore reach the KEYS_ONLY index');
is($node->safe_psql('dst', q{
	SELECT data FROM social.graph_by_target WHERE sk = 'FOLLOWS#USER#1' AND pk = 'USER#100'}),
	'{"new": true}', 'inserts after restore reach the ALL index');
is($node->safe_psql('dst', q{
	SELECT (SELECT count(*) FROM social.graph_inverted WHERE pk = 'USER#2')
	     + (SELECT count(*) FROM social.graph_by_target WHERE pk = 'USER#2')}),
	'0', 'deletes after restore reach both indexes');
is($node->safe_psql('dst', q{
	SELECT (SELECT string_agg(sk::text, ',' ORDER BY sk) FROM social.graph_inverted WHERE pk = 'USER#6')
	    = (SELECT string_agg(sk::text, ',' ORDER BY sk) FROM social.graph WHERE pk = 'USER#6'),
	       EXISTS (SELECT 1 FROM social.graph_by_target WHERE sk = 'FOLLOWS#USER#99' AND pk = 'USER#6'),
	       NOT EXISTS (SELECT 1 FROM social.graph_inverted WHERE sk = 'PROFILE' AND pk = 'USER#6')}),
	't|t|t', 'sort key updates after restore move index rows');
is($node->safe_psql('dst', q{
	SELECT (SELECT count(*) FROM social.graph_inverted WHERE pk = 'USER#7'),
	       (SELECT count(*) FROM social.graph_inverted WHERE pk = 'USER#700'),
	       (SELECT count(*) FROM social.graph WHERE pk = 'USER#700')}),
	'0|6|6', 'partition key updates after restore move index rows');
is($node->safe_psql('dst', q{
	SELECT data->>'name' FROM social.graph_by_target WHERE sk = 'PROFILE' AND pk = 'USER#8'}),
	'changed', 'projected column updates after restore reach the ALL index');
for my $idx (@indexes)
{
	is(drift_rows($node, 'dst', $idx), '', "restored $idx: no drift after writes");
}

# TRUNCATE, and managing the restored indexes
$node->safe_psql('dst', q{
	BEGIN;
	TRUNCATE social.graph;
	INSERT INTO social.graph VALUES ('USER#1', 'FOLLOWS#USER#2', NULL);
	COMMIT;
});
is($node->safe_psql('dst', 'SELECT count(*) FROM social.graph_inverted')
	  . ' ' . $node->safe_psql('dst', 'SELECT count(*) FROM social.graph_by_target'),
	'1 1', 'TRUNCATE after restore empties both indexes');
is($node->safe_psql('dst', q{SELECT rebuild_inverted_index('social.graph_inverted')}),
	'0', 'rebuild of a restored index finds nothing to do');
$node->safe_psql('dst', q{SELECT drop_inverted_index('social.graph_by_target')});
is($node->safe_psql('dst', q{SELECT indexrel::text FROM adjlist_inverted_indexes}),
	'social.graph_inverted', 'drop_inverted_index works on a restored index');
$node->safe_psql('dst', q{INSERT INTO social.graph VALUES ('USER#9', 'FOLLOWS#USER#2', NULL)});
is(drift_count($node, 'dst', 'social.graph_inverted'), '0',
	'remaining index stays in sync after dropping the other');

# the source database was not touched by any of this
is($node->safe_psql('src', $registry_sql), $src_registry, 'source registry unchanged');
is($node->safe_psql('src', $contents_sql{'social.graph_inverted'}),
	$src_contents{'social.graph_inverted'}, 'source index unchanged');

$node->stop;
done_testing();

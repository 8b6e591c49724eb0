# Dump and restore of inverted indexes, every common way.
#
# The registry adjlist_inverted_indexes is extension configuration
# (pg_extension_config_dump), so pg_dump dumps its rows with the data; the
# index tables, their degree counter tables and the base tables are
# ordinary tables; the sync triggers are ordinary triggers (post-data).
#
# The source database has several schemas (one quoted, mixed case), a plain
# table with two indexes (one with degree counters, one projecting '{*}'),
# a counted index in "Social Graph", a write-sharded index, a hash-partitioned
# base table (3 partitions) with a hash-partitioned index table (4), an
# API-mode index written with put_edge, a DEFERRABLE primary key, non-ASCII
# keys and NULL data, and writes after the indexes were created.  Everything
# is owned by a non-superuser role, app.
#
# Each way of dumping and restoring goes into a fresh database and must end
# with: verify_inverted_index() empty for every index (counters included);
# the registry rows equal to the source's; the triggers on the base tables
# and their partitions equal to the source's (and enabled); the graph
# functions answering as on the source; and writes after the restore (plain
# DML and the write API) keeping every index exact and answering as the
# same writes do on a file-level copy of the source (CREATE DATABASE ...
# TEMPLATE src, no dump involved).  Where a way prints errors, the exact set
# of them is asserted and each is explained.
#
# The first part (the "dst" database) is the original test: pg_dump -Fc,
# pg_restore --exit-on-error, contents equal, and the restored indexes can
# be written, truncated, rebuilt and dropped.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use AdjlistTAP;

my $node = adjlist_node('dump');
my $dir  = $node->basedir;

# ---------------------------------------------------------------------
# The source database
# ---------------------------------------------------------------------

$node->safe_psql('postgres', q{
	CREATE ROLE app LOGIN;
	GRANT pg_read_all_data TO app;
	CREATE DATABASE src OWNER app;
});
$node->safe_psql('src', q{
	CREATE EXTENSION adjlist;
	CREATE SCHEMA social AUTHORIZATION app;
	CREATE SCHEMA "Social Graph" AUTHORIZATION app;
	CREATE SCHEMA shop AUTHORIZATION app;
	CREATE SCHEMA api AUTHORIZATION app;
	SET ROLE app;

	-- a plain table with two indexes: KEYS_ONLY with degree counters, and ALL
	CREATE TABLE social.graph (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	-- profiles, and each user follows five others
	INSERT INTO social.graph
	SELECT ('USER#' || u)::adjkey, 'PROFILE', jsonb_build_object('name', 'user ' || u)
	FROM generate_series(1, 60) u;
	INSERT INTO social.graph
	SELECT ('USER#' || u)::adjkey, ('FOLLOWS#USER#' || ((u * 7 + k) % 60 + 1))::adjkey,
	       CASE WHEN k % 2 = 0 THEN jsonb_build_object('since', 2000 + k) END
	FROM generate_series(1, 60) u, generate_series(1, 5) k;
	INSERT INTO social.graph VALUES
		('USER#Zoë', 'FOLLOWS#USER#東京', '{"note": "naïve ✓"}'),
		('USER#東京', 'FOLLOWS#USER#Zoë', NULL),
		('USER#😀', 'FOLLOWS#USER#1', NULL);
	SELECT create_inverted_index('social.graph', counters => 1);
	SELECT create_inverted_index('social.graph', include => '{*}', index_name => 'graph_by_target');
	-- a sparse index: follows with data only
	SELECT create_inverted_index('social.graph', index_name => 'graph_follows_since',
	                             predicate => $$sk ^@ 'FOLLOWS#' AND data ? 'since'$$, counters => 1);

	-- degree counters (2 shards), in a quoted mixed-case schema, a quoted
	-- index name and a quoted column
	CREATE TABLE "Social Graph"."Fans" (pk adjkey, sk adjkey, "Data" jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO "Social Graph"."Fans"
	SELECT ('USER#' || u)::adjkey, ('LIKES#POST#' || (u % 7))::adjkey,
	       CASE WHEN u % 3 = 0 THEN '{"w": 1}'::jsonb END
	FROM generate_series(1, 50) u;
	SELECT create_inverted_index('"Social Graph"."Fans"', counters => 2, index_name => 'Fans By Post');
	-- a sparse index whose predicate calls a function of another schema,
	-- which is then renamed, and a decoy under the old name: the predicate
	-- is bound to the function, the registry's text follows the rename, and
	-- every restore binds the renamed function, never the decoy
	CREATE SCHEMA "Fan Util" AUTHORIZATION app;
	CREATE FUNCTION "Fan Util".heavy(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE
		AS $$ SELECT (j ->> 'w')::int >= 2 $$;
	SELECT create_inverted_index('"Social Graph"."Fans"', index_name => 'Heavy Fans',
	                             predicate => $$"Fan Util".heavy("Data")$$);
	ALTER SCHEMA "Fan Util" RENAME TO fan_rules;
	CREATE SCHEMA "Fan Util" AUTHORIZATION app;
	CREATE FUNCTION "Fan Util".heavy(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE
		AS $$ SELECT true $$;

	-- write sharding
	CREATE TABLE "Social Graph".celebs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO "Social Graph".celebs
	SELECT ('USER#f' || i)::adjkey, 'FOLLOWS#USER#star', NULL FROM generate_series(1, 40) i;
	SELECT create_inverted_index('"Social Graph".celebs', write_shards => 4);

	-- a hash-partitioned base table, a hash-partitioned index table
	CREATE TABLE shop.orders (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
	CREATE TABLE shop.orders_p0 PARTITION OF shop.orders FOR VALUES WITH (MODULUS 3, REMAINDER 0);
	CREATE TABLE shop.orders_p1 PARTITION OF shop.orders FOR VALUES WITH (MODULUS 3, REMAINDER 1);
	CREATE TABLE shop.orders_p2 PARTITION OF shop.orders FOR VALUES WITH (MODULUS 3, REMAINDER 2);
	INSERT INTO shop.orders
	SELECT ('CUSTOMER#' || (i % 9))::adjkey, ('ORDER#' || i)::adjkey, jsonb_build_object('amount', i)
	FROM generate_series(1, 45) i;
	SELECT create_inverted_index('shop.orders', include => '{data}', partitions => 4);

	-- API mode, written with put_edge
	CREATE TABLE api.follows (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('api.follows', index_name => 'follows_by_target', mode => 'api');
	SELECT put_edge('api.follows', ('USER#' || i)::adjkey, ('FOLLOWS#USER#' || (i % 5))::adjkey,
	                CASE WHEN i % 2 = 0 THEN jsonb_build_object('since', i) END)
	FROM generate_series(1, 20) i;

	-- a DEFERRABLE primary key (the index holds a multiset until commit)
	CREATE TABLE social.multi (pk adjkey, sk adjkey, data jsonb,
		PRIMARY KEY (pk, sk) DEFERRABLE INITIALLY DEFERRED);
	INSERT INTO social.multi
	SELECT ('ITEM#' || i)::adjkey, ('TAG#' || (i % 4))::adjkey, NULL FROM generate_series(1, 20) i;
	SELECT create_inverted_index('social.multi');

	-- ^@ in every form in a view: an untyped empty and constant prefix
	-- (text), a key constant and a key column (adjkey_prefix); a partial
	-- index whose predicate is a key constant
	CREATE VIEW social.prefix_counts AS
	SELECT count(*) FILTER (WHERE sk ^@ '') AS all_keys,
	       count(*) FILTER (WHERE sk ^@ 'FOLLOWS#') AS follows,
	       count(*) FILTER (WHERE sk ^@ 'FOLLOWS#USER#1'::adjkey) AS follows_1,
	       count(*) FILTER (WHERE sk ^@ pk) AS own_prefix
	FROM social.graph;
	CREATE INDEX graph_profiles ON social.graph (pk) WHERE sk ^@ 'PROFILE'::adjkey;

	-- writes after the indexes exist
	DELETE FROM social.graph WHERE pk = 'USER#3';
	UPDATE social.graph SET sk = 'FOLLOWS#USER#1' WHERE pk = 'USER#4' AND sk = 'PROFILE';
	UPDATE social.graph SET data = '{"name": "renamed"}' WHERE pk = 'USER#5' AND sk = 'PROFILE';
	INSERT INTO social.graph VALUES ('USER#Zoë', 'FOLLOWS#USER#2', NULL);
	INSERT INTO "Social Graph"."Fans" VALUES ('USER#Zoë', 'LIKES#POST#1', NULL),
	                                         ('USER#東京', 'LIKES#POST#1', '{"w": 2}'),
	                                         ('USER#heavy', 'LIKES#POST#2', '{"w": 5}');
	DELETE FROM "Social Graph"."Fans" WHERE pk IN ('USER#7', 'USER#14');
	UPDATE "Social Graph"."Fans" SET sk = 'LIKES#POST#2' WHERE pk = 'USER#8';
	INSERT INTO "Social Graph".celebs VALUES ('USER#Zoë', 'FOLLOWS#USER#star', '{"vip": true}');
	DELETE FROM "Social Graph".celebs WHERE pk = 'USER#f3';
	UPDATE shop.orders SET pk = 'CUSTOMER#Zoë' WHERE sk = 'ORDER#5';   -- to another partition
	DELETE FROM shop.orders WHERE sk = 'ORDER#6';
	UPDATE shop.orders SET data = NULL WHERE sk = 'ORDER#7';
	SELECT put_edge('api.follows', 'USER#Zoë', 'FOLLOWS#USER#1', '{"since": 1}');
	SELECT delete_edge('api.follows', 'USER#2', 'FOLLOWS#USER#2');
	BEGIN;
	INSERT INTO social.multi VALUES ('ITEM#1', 'TAG#1', '{"dup": 1}');
	DELETE FROM social.multi WHERE pk = 'ITEM#1' AND data IS NOT NULL;
	COMMIT;
	UPDATE social.multi SET sk = 'TAG#9' WHERE pk = 'ITEM#2';
});

# every index, and every base table
my @indexes = ('"Social Graph"."Fans By Post"', '"Social Graph"."Heavy Fans"', '"Social Graph".celebs_inverted',
	'api.follows_by_target', 'shop.orders_inverted', 'social.graph_by_target',
	'social.graph_inverted', 'social.multi_inverted', 'social.graph_follows_since');
my @bases = ('"Social Graph"."Fans"', '"Social Graph".celebs', 'api.follows',
	'shop.orders', 'social.graph', 'social.multi');

my $registry_sql = q{
	SELECT indexrel::text, baserel::text, columns, nkeys, counterrel::text, counter_shards,
	       base_key, mode, write_shards, created, ready, predicate
	FROM adjlist_inverted_indexes ORDER BY 1};
# the triggers of the base tables and of their partitions
my $all_triggers_sql = 'SELECT p.relid::regclass::text, t.tgname, t.tgenabled, pg_get_triggerdef(t.oid)
	FROM unnest(ARRAY[' . join(', ', map { "'$_'::regclass" } @bases) . ']) b(rel),
	     pg_partition_tree(b.rel) p
	JOIN pg_trigger t ON t.tgrelid = p.relid AND NOT t.tgisinternal
	ORDER BY 1, 2';

# Graph reads: [reverse_neighbors table, node, edge prefix] and
# [edge_count index, node, edge, direction, base table].
my @rn = (
	[ 'social.graph', 'USER#1', 'FOLLOWS#' ],
	[ 'social.graph', 'USER#東京', 'FOLLOWS#' ],
	[ 'social.graph', 'USER#Zoë', 'FOLLOWS#' ],
	[ '"Social Graph"."Fans"', 'POST#1', 'LIKES#' ],
	[ '"Social Graph"."Fans"', 'POST#2', 'LIKES#' ],
	[ '"Social Graph".celebs', 'USER#star', 'FOLLOWS#' ],
	[ 'shop.orders', '5', 'ORDER#' ],
	[ 'shop.orders', '100', 'ORDER#' ],
	[ 'api.follows', 'USER#1', 'FOLLOWS#' ],
	[ 'api.follows', 'USER#0', 'FOLLOWS#' ],
	[ 'social.multi', '1', 'TAG#' ],
	[ 'social.multi', '3', 'TAG#' ]);
my @ec = (
	[ 'social.graph_inverted', 'USER#1', 'FOLLOWS', 'in', 'social.graph' ],
	[ 'social.graph_inverted', 'USER#東京', 'FOLLOWS', 'in', 'social.graph' ],
	[ 'social.graph_inverted', 'USER#Zoë', 'FOLLOWS', 'out', 'social.graph' ],
	[ 'social.graph_inverted', 'USER#12', 'FOLLOWS', 'out', 'social.graph' ],
	[ '"Social Graph"."Fans By Post"', 'POST#1', 'LIKES', 'in', '"Social Graph"."Fans"' ],
	[ '"Social Graph"."Fans By Post"', 'POST#3', 'LIKES', 'in', '"Social Graph"."Fans"' ],
	[ '"Social Graph"."Fans By Post"', 'USER#東京', 'LIKES', 'out', '"Social Graph"."Fans"' ]);

# what the graph functions answer, in their own order, with projected data
my $reads_sql = join("\nUNION ALL ", map {
	my ($t, $n, $p) = @$_;
	"(SELECT 'reverse_neighbors($t, $n, $p): ' || coalesce(string_agg(neighbor::text || ' ' || coalesce(data::text, '-'), ', '), '')"
	  . " FROM reverse_neighbors('$t', '$n', '$p'))"
} @rn) . "\nUNION ALL " . join("\nUNION ALL ", map {
	my ($i, $n, $e, $d) = @$_;
	"(SELECT 'edge_count($i, $n, $e, $d): ' || edge_count('$i', '$n', '$e', '$d'))"
} @ec);
# the same neighbours and counts, once through the functions, once from the
# base tables with plain SQL (for a database whose answers are not the
# source's)
my $fn_neighbors_sql = join("\nUNION ALL ", (map {
	my ($t, $n, $p) = @$_;
	"(SELECT coalesce(string_agg(neighbor::text, ',' ORDER BY neighbor), '') FROM reverse_neighbors('$t', '$n', '$p'))"
} @rn), (map {
	my ($i, $n, $e, $d) = @$_;
	"(SELECT edge_count('$i', '$n', '$e', '$d')::text)"
} @ec));
my $base_neighbors_sql = join("\nUNION ALL ", (map {
	my ($t, $n, $p) = @$_;
	"(SELECT coalesce(string_agg(pk::text, ',' ORDER BY pk), '') FROM $t WHERE sk = '$p$n')"
} @rn), (map {
	my ($i, $n, $e, $d, $t) = @$_;
	$d eq 'in'
	  ? "(SELECT count(*)::text FROM $t WHERE sk = '$e#$n')"
	  : "(SELECT count(*)::text FROM $t WHERE pk = '$n' AND begins_with(sk, '$e#'))"
} @ec));

# Writes after a restore: every kind of DML on every base table, the write
# API, a multiset key moment; as the owner.
my $writes_sql = q{
	SET ROLE app;
	INSERT INTO social.graph VALUES ('USER#new', 'FOLLOWS#USER#1', '{"new": true}'),
	                                ('USER#Zoë', 'FOLLOWS#USER#東京2', NULL);
	INSERT INTO social.graph VALUES ('USER#Zoë', 'FOLLOWS#USER#東京', '{"upserted": 1}')
		ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
	UPDATE social.graph SET sk = 'FOLLOWS#USER#東京' WHERE pk = 'USER#10' AND sk = 'PROFILE';
	UPDATE social.graph SET pk = 'USER#Ωmega' WHERE pk = 'USER#11';
	UPDATE social.graph SET data = '{"x": 1}' WHERE pk = 'USER#12';
	DELETE FROM social.graph WHERE pk = 'USER#13' OR sk = 'FOLLOWS#USER#Zoë';
	INSERT INTO "Social Graph"."Fans" VALUES ('USER#new', 'LIKES#POST#1', NULL);
	DELETE FROM "Social Graph"."Fans" WHERE pk = 'USER#1';
	UPDATE "Social Graph"."Fans" SET sk = 'LIKES#POST#3' WHERE pk = 'USER#2';
	UPDATE "Social Graph"."Fans" SET "Data" = '{"w": 9}' WHERE pk = 'USER#東京';
	INSERT INTO "Social Graph".celebs
	SELECT ('USER#g' || i)::adjkey, 'FOLLOWS#USER#star', NULL FROM generate_series(1, 5) i;
	DELETE FROM "Social Graph".celebs WHERE pk = 'USER#f4';
	UPDATE "Social Graph".celebs SET pk = 'USER#f5x' WHERE pk = 'USER#f5';
	INSERT INTO shop.orders VALUES ('CUSTOMER#new', 'ORDER#100', '{"amount": 100}');
	UPDATE shop.orders SET pk = 'CUSTOMER#moved' WHERE sk = 'ORDER#8';
	UPDATE shop.orders SET data = '{"amount": 0}' WHERE sk = 'ORDER#9';
	DELETE FROM shop.orders WHERE sk = 'ORDER#10';
	SELECT put_edge('api.follows', 'USER#new', 'FOLLOWS#USER#1', '{"since": 2025}');
	SELECT put_edge('api.follows', 'USER#1', 'FOLLOWS#USER#1', '{"since": 0}');
	SELECT delete_edge('api.follows', 'USER#6', 'FOLLOWS#USER#1');
	BEGIN;
	INSERT INTO social.multi VALUES ('ITEM#3', 'TAG#3', '{"dup": 3}');
	DELETE FROM social.multi WHERE pk = 'ITEM#3' AND data IS NOT NULL;
	COMMIT;
	INSERT INTO social.multi VALUES ('ITEM#new', 'TAG#1', NULL);
	UPDATE social.multi SET sk = 'TAG#3' WHERE pk = 'ITEM#5';
	DELETE FROM social.multi WHERE pk = 'ITEM#9';
};

# the source is exact, and the two ways of reading agree on it
for my $idx (@indexes)
{
	is(drift_rows($node, 'src', $idx), '', "source: $idx is exact");
}
my $src_registry = $node->safe_psql('src', $registry_sql);
is(scalar(() = $src_registry =~ /\n/g) + 1, scalar(@indexes), 'source registry lists every index');
like($src_registry, qr/^social\.graph_by_target\|social\.graph\|\{sk,pk,data\}\|2\|\|0\|\{pk,sk\}\|trigger\|0\|.*\n
                       social\.graph_follows_since\|social\.graph\|\{sk,pk\}\|2\|social\.graph_follows_since_degree\|1\|.*\|t\|
                       \(\(sk\ OPERATOR\(public\.\^@\)\ 'FOLLOWS\#'::text\)\ AND\ \(data\ \?\ 'since'::text\)\)\n
                       social\.graph_inverted\|social\.graph\|\{sk,pk\}\|2\|social\.graph_inverted_degree\|1\|/xm,
	'source registry lists the three indexes of social.graph, the sparse one with its predicate');
like($src_registry, qr/^"Social Graph"\."Heavy Fans"\|.*\|fan_rules\.heavy\("Data"\)$/m,
	'source registry: the predicate names the renamed schema');
my $src_triggers = $node->safe_psql('src', $all_triggers_sql);
# the rows of the sparse index, and what depends on fan_rules.heavy
my $heavy_sql = q{SELECT string_agg(pk::text, ',' ORDER BY pk) FROM "Social Graph"."Heavy Fans"};
my $heavy_dep_sql = q{
	SELECT EXISTS (SELECT FROM pg_depend WHERE refobjid = '"Fan Util".heavy(jsonb)'::regprocedure),
	       d.objid::regclass, d.deptype
	FROM pg_depend d
	WHERE d.refclassid = 'pg_proc'::regclass AND d.refobjid = 'fan_rules.heavy(jsonb)'::regprocedure};
my $src_heavy = $node->safe_psql('src', $heavy_sql);
is($src_heavy, 'USER#heavy,USER#東京', 'source: the sparse index holds the heavy fans only');
is($node->safe_psql('src', $heavy_dep_sql), 'f|"Social Graph"."Heavy Fans"|n',
	'source: the sparse index depends on the function it calls');
my $src_reads    = $node->safe_psql('src', $reads_sql);
my $prefix_sql     = 'SELECT * FROM social.prefix_counts';
my $prefix_def_sql = q{SELECT pg_get_viewdef('social.prefix_counts')};
my $src_prefix     = $node->safe_psql('src', $prefix_sql);
my $src_prefix_def = $node->safe_psql('src', $prefix_def_sql);
is($src_prefix, $node->safe_psql('src', q{
	SELECT count(*), count(*) FILTER (WHERE sk::text LIKE 'FOLLOWS#%'),
	       count(*) FILTER (WHERE sk::text LIKE 'FOLLOWS#USER#1%'), 0 FROM social.graph}),
	'source: the view using ^@ counts every key for the empty prefix');
is($node->safe_psql('src', $fn_neighbors_sql), $node->safe_psql('src', $base_neighbors_sql),
	'source: graph functions agree with the base tables');

# the answers after the writes, on a file-level copy of the source
$node->safe_psql('postgres', 'CREATE DATABASE ref TEMPLATE src');
$node->safe_psql('ref', $writes_sql);
for my $idx (@indexes)
{
	is(drift_rows($node, 'ref', $idx), '', "copy of the source after the writes: $idx is exact");
}
my $ref_reads = $node->safe_psql('ref', $reads_sql);
isnt($ref_reads, $src_reads, 'the writes change the answers');
is($node->safe_psql('ref', $fn_neighbors_sql), $node->safe_psql('ref', $base_neighbors_sql),
	'copy of the source after the writes: graph functions agree with the base tables');

# ---------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------

# Run a command (or a pipeline, IPC::Run syntax without redirections) with
# the node's connection settings; returns (success, stderr of all of it).
sub run_cmd
{
	my @cmds = @_;
	my @spec;
	my @errs = map { '' } @cmds;
	for my $i (0 .. $#cmds)
	{
		push @spec, '|' if $i > 0;
		push @spec, $cmds[$i], '2>', \$errs[$i];
	}
	my $out = '';
	push @spec, '>', \$out;
	my $ok = $node->run_log(@spec);
	my $err = join('', @errs);
	note("stderr:\n$err") if $err ne '';
	return ($ok, $err);
}

# The error messages in the stderr of pg_restore or psql, without the
# program prefix, sorted and unique, one a line.  DETAIL and CONTEXT lines
# (which name the first offending row) are left out.
sub error_set
{
	my ($stderr) = @_;
	my %seen;
	for my $line (split /\n/, $stderr)
	{
		next unless $line =~ /(?:ERROR|FATAL|PANIC):|\berror:/;
		$line =~ s/^pg_restore: error: //;
		$line =~ s/^pg_dump: error: //;
		$line =~ s/^psql:[^:]*:\d+: //;
		$line =~ s/\s+/ /g;
		$seen{$line} = 1;
	}
	return join("\n", sort keys %seen);
}

# What verify_inverted_index() reports, summed up: one line per kind of
# problem with its count and one example key ('' when the index is exact).
sub drift_summary
{
	my ($db, $idx) = @_;
	my ($rc, $out, $err) = $node->psql($db, qq{
		SELECT coalesce(string_agg(s, E'\n' ORDER BY s), '') FROM (
			SELECT problem || ' x' || count(*) || ', e.g. ' || min(key::text) AS s
			FROM verify_inverted_index('$idx') GROUP BY problem) q});
	# an error (not an index, say) is a failure to show, not a reason to stop
	return $rc == 0 ? $out : "verify failed: $err";
}

sub fresh_db
{
	my ($db) = @_;
	$node->safe_psql('postgres', qq{CREATE DATABASE "$db"});
}

# What every way must give.  $same_answers: the graph functions answer as on
# the source (not for a database that had rows of its own before the data).
sub check_restored
{
	my ($db, $way, %opt) = @_;
	my $same_answers = $opt{same_answers} // 1;

	for my $idx (@indexes)
	{
		is(drift_summary($db, $idx), '', "$way: $idx is exact after the restore");
	}
	is($node->safe_psql($db, $registry_sql), $src_registry,
		"$way: registry rows equal the source's");
	is($node->safe_psql($db, q{
		SELECT count(*) FROM adjlist_inverted_indexes r
		WHERE r.indexrel::oid NOT IN (SELECT oid FROM pg_class)
		   OR r.baserel::oid NOT IN (SELECT oid FROM pg_class)
		   OR (r.counterrel IS NOT NULL AND r.counterrel::oid NOT IN (SELECT oid FROM pg_class))}),
		'0', "$way: registry rows point at restored tables");
	is($node->safe_psql($db, $all_triggers_sql), $src_triggers,
		"$way: triggers of the base tables and partitions as on the source, enabled");
	if ($same_answers)
	{
		is($node->safe_psql($db, $reads_sql), $src_reads,
			"$way: reverse_neighbors and edge_count answer as on the source");
		is($node->safe_psql($db, $prefix_sql), $src_prefix,
			"$way: the view using ^@ answers as on the source");
	}
	is($node->safe_psql($db, $prefix_def_sql), $src_prefix_def,
		"$way: the view using ^@ is defined as on the source");
	is($node->safe_psql($db, $heavy_sql), $src_heavy,
		"$way: the sparse index holds the rows of the renamed function, not the decoy's");
	is($node->safe_psql($db, $heavy_dep_sql), 'f|"Social Graph"."Heavy Fans"|n',
		"$way: the restored index depends on the renamed function (and not on the decoy)");
	is($node->safe_psql($db, $fn_neighbors_sql), $node->safe_psql($db, $base_neighbors_sql),
		"$way: graph functions agree with the base tables");

	# the restored triggers (and the write API) keep the indexes exact
	my ($rc, $out, $err) = $node->psql($db, $writes_sql, on_error_stop => 1);
	is($rc . $err, '0', "$way: writes after the restore succeed");
	for my $idx (@indexes)
	{
		is(drift_summary($db, $idx), '', "$way: $idx is exact after writes");
	}
	if ($same_answers)
	{
		is($node->safe_psql($db, $reads_sql), $ref_reads,
			"$way: after writes, answers as the same writes give on a copy of the source");
	}
	is($node->safe_psql($db, $fn_neighbors_sql), $node->safe_psql($db, $base_neighbors_sql),
		"$way: after writes, graph functions agree with the base tables");
}

# ---------------------------------------------------------------------
# The original test: pg_dump -Fc, pg_restore --exit-on-error
# ---------------------------------------------------------------------

my %contents_sql = (
	'social.graph'                 => 'SELECT * FROM social.graph ORDER BY pk, sk',
	'social.graph_inverted'        => 'SELECT * FROM social.graph_inverted ORDER BY sk, pk',
	'social.graph_inverted_degree' => 'SELECT node, edge, direction, sum(n) FROM social.graph_inverted_degree GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3',
	'social.graph_by_target'       => 'SELECT * FROM social.graph_by_target ORDER BY sk, pk');
my $triggers_sql = q{
	SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger
	WHERE tgrelid = 'social.graph'::regclass AND NOT tgisinternal ORDER BY 1};
my %src_contents = map { $_ => $node->safe_psql('src', $contents_sql{$_}) } keys %contents_sql;
my $src_graph_triggers = $node->safe_psql('src', $triggers_sql);

my $dump = "$dir/src.dump";
$node->command_ok([ 'pg_dump', '-Fc', '-d', 'src', '-f', $dump ], 'pg_dump -Fc');
$node->command_ok([ 'createdb', 'dst' ], 'createdb dst');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', 'dst', $dump ], 'pg_restore into dst');
like($node->safe_psql('dst', q{
	SET enable_seqscan = off;
	EXPLAIN (COSTS OFF) SELECT pk FROM social.graph WHERE sk ^@ 'PROFILE'}),
	qr/Index (?:Only )?Scan (?:using|on) graph_profiles/,
	'the restored partial index (predicate a key constant) serves an untyped prefix');

is($node->safe_psql('dst', $registry_sql), $src_registry,
	'registry rows restored, same indexes, tables, columns, keys and dates');
is($node->safe_psql('dst', q{
	SELECT count(*) FROM adjlist_inverted_indexes r
	WHERE r.indexrel::oid NOT IN (SELECT oid FROM pg_class)
	   OR r.baserel::oid NOT IN (SELECT oid FROM pg_class)}),
	'0', 'restored registry rows point at the restored tables');
is($node->safe_psql('dst', $triggers_sql), $src_graph_triggers, 'sync triggers restored');
for my $rel (sort keys %contents_sql)
{
	is($node->safe_psql('dst', $contents_sql{$rel}), $src_contents{$rel},
		"$rel: restored contents equal the original");
}
for my $idx (@indexes)
{
	is(drift_rows($node, 'dst', $idx), '', "restored $idx: verify finds nothing");
}
my ($drop_rc, $drop_out, $drop_err) = $node->psql('dst', q{
	\set VERBOSITY sqlstate
	DROP FUNCTION fan_rules.heavy(jsonb)});
like($drop_err, qr/ERROR:\s+2BP01/, 'restored: the function of a sparse predicate cannot be dropped without CASCADE');

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
is(drift_rows($node, 'dst', 'social.graph_inverted'), '', 'counters exact after TRUNCATE');
is($node->safe_psql('dst', q{SELECT rebuild_inverted_index('social.graph_inverted')}),
	'0', 'rebuild of a restored index finds nothing to do');
$node->safe_psql('dst', q{SELECT drop_inverted_index('social.graph_by_target')});
is($node->safe_psql('dst', q{SELECT string_agg(indexrel::text, ',' ORDER BY indexrel::text) FROM adjlist_inverted_indexes WHERE baserel = 'social.graph'::regclass}),
	'social.graph_follows_since,social.graph_inverted', 'drop_inverted_index works on a restored index');
$node->safe_psql('dst', q{INSERT INTO social.graph VALUES ('USER#9', 'FOLLOWS#USER#2', NULL)});
is(drift_count($node, 'dst', 'social.graph_inverted'), '0',
	'remaining index stays in sync after dropping the other');

# ---------------------------------------------------------------------
# 1. pg_dump plain | psql, with and without --single-transaction
# ---------------------------------------------------------------------

my ($ok, $err);

fresh_db('w1_plain');
($ok, $err) = run_cmd([ 'pg_dump', '-d', 'src' ], [ 'psql', '-X', '-q', '-d', 'w1_plain' ]);
ok($ok, 'plain | psql: exit status 0');
is(error_set($err), '', 'plain | psql: no errors');
check_restored('w1_plain', 'plain | psql');

fresh_db('w1_single');
($ok, $err) = run_cmd([ 'pg_dump', '-d', 'src' ],
	[ 'psql', '-X', '-q', '--single-transaction', '-v', 'ON_ERROR_STOP=1', '-d', 'w1_single' ]);
ok($ok, 'plain | psql --single-transaction: exit status 0');
is(error_set($err), '', 'plain | psql --single-transaction: no errors');
check_restored('w1_single', 'plain | psql --single-transaction');

# ---------------------------------------------------------------------
# 2. pg_dump -Fc, pg_restore -j 2
# ---------------------------------------------------------------------

fresh_db('w2_custom');
($ok, $err) = run_cmd([ 'pg_restore', '-j', '2', '-d', 'w2_custom', $dump ]);
ok($ok, 'pg_restore -j 2 (custom): exit status 0');
is(error_set($err), '', 'pg_restore -j 2 (custom): no errors');
check_restored('w2_custom', 'pg_restore -j 2 (custom)');

# ---------------------------------------------------------------------
# 3. pg_dump -Fd -j 2, pg_restore -j 2
# ---------------------------------------------------------------------

my $dirdump = "$dir/src.dir";
$node->command_ok([ 'pg_dump', '-Fd', '-j', '2', '-d', 'src', '-f', $dirdump ], 'pg_dump -Fd -j 2');
fresh_db('w3_directory');
($ok, $err) = run_cmd([ 'pg_restore', '-j', '2', '-d', 'w3_directory', $dirdump ]);
ok($ok, 'pg_restore -j 2 (directory): exit status 0');
is(error_set($err), '', 'pg_restore -j 2 (directory): no errors');
check_restored('w3_directory', 'pg_restore -j 2 (directory)');

# ---------------------------------------------------------------------
# 4. schema-only, then data-only with --disable-triggers
# ---------------------------------------------------------------------

fresh_db('w4_disable');
($ok, $err) = run_cmd([ 'pg_restore', '--schema-only', '-d', 'w4_disable', $dump ]);
ok($ok && error_set($err) eq '', 'schema-only restore: no errors');
($ok, $err) = run_cmd([ 'pg_restore', '--data-only', '--disable-triggers', '-d', 'w4_disable', $dump ]);
ok($ok, 'data-only --disable-triggers: exit status 0');
is(error_set($err), '', 'data-only --disable-triggers: no errors');
check_restored('w4_disable', 'schema-only + data-only --disable-triggers');

# ---------------------------------------------------------------------
# 5. schema-only, then data-only WITHOUT --disable-triggers
# ---------------------------------------------------------------------
# The data of the tables is restored in the dump's order, by schema and
# name: "Social Graph".*, api.*, then the registry (public), then shop.*
# and social.*.  A base table restored before the registry is copied with
# triggers that find no index yet and leave its rows alone, and its index
# and counter tables are not guarded yet: they take the dumped rows.  When
# the registry's row arrives, the index and its counters are rebuilt from
# the base table.  A base table restored after the registry is indexed and
# counted by its triggers, and the guard refuses the dumped copies of its
# index and counter tables.  Expected errors, all harmless: the guard's, on
# the index and counter tables of shop.* and social.* (their rows came
# from the triggers).
# Every index must be exact, counters included, and an API-mode table must
# get its rows.
fresh_db('w5_triggers');
($ok, $err) = run_cmd([ 'pg_restore', '--schema-only', '-d', 'w5_triggers', $dump ]);
ok($ok && error_set($err) eq '', 'schema-only restore: no errors');
($ok, $err) = run_cmd([ 'pg_restore', '--data-only', '-d', 'w5_triggers', $dump ]);
ok(!$ok, 'data-only without --disable-triggers: pg_restore reports errors');
is(error_set($err), join("\n",
	map { "COPY failed for table \"$_->[0]\": ERROR: table \"$_->[0]\" is kept by adjlist from table \"$_->[1]\"" }
	  (['graph_by_target', 'graph'], ['graph_follows_since', 'graph'], ['graph_follows_since_degree', 'graph'],
	   ['graph_inverted', 'graph'], ['graph_inverted_degree', 'graph'],
	   ['multi_inverted', 'multi'], map { ["orders_inverted_$_", 'orders'] } 0 .. 3)),
	'data-only without --disable-triggers: only the guard of index and counter tables the triggers wrote refuses');
check_restored('w5_triggers', 'schema-only + data-only with triggers');

# ---------------------------------------------------------------------
# 6. --section=pre-data, data, post-data in that order
# ---------------------------------------------------------------------

fresh_db('w6_sections');
for my $section (qw(pre-data data post-data))
{
	($ok, $err) = run_cmd([ 'pg_restore', "--section=$section", '-d', 'w6_sections', $dump ]);
	ok($ok, "--section=$section: exit status 0");
	is(error_set($err), '', "--section=$section: no errors");
}
check_restored('w6_sections', 'sections pre-data, data, post-data');

# ---------------------------------------------------------------------
# 6b. the same sections, with writes between them
# ---------------------------------------------------------------------
# After pre-data the tables have no triggers and nothing is registered;
# after data the registry's rows are there but the base tables' triggers
# are not (they are post-data).  Nothing can refuse a plain INSERT then, so
# the index must not be trusted: each registration that arrives before its
# triggers marks its index not ready (reads and verify refuse it, 55000),
# and the CREATE TRIGGER of post-data that completes a base table's
# triggers makes its indexes exact and ready.  Rows written in either gap,
# by plain INSERT or by the write API, end up indexed.
fresh_db('w6_gaps');
my $gap_rows = q{
	SET ROLE app;
	INSERT INTO social.graph VALUES ('USER#gap%1$s', 'FOLLOWS#USER#1', NULL);
	INSERT INTO "Social Graph"."Fans" VALUES ('USER#gap%1$s', 'LIKES#POST#1', '{"at": "%1$s"}');
	INSERT INTO shop.orders VALUES ('CUSTOMER#gap%1$s', 'ORDER#5', '{"amount": 1}');
	INSERT INTO social.multi VALUES ('ITEM#gap%1$s', 'TAG#1', NULL);
};
($ok, $err) = run_cmd([ 'pg_restore', '--section=pre-data', '-d', 'w6_gaps', $dump ]);
ok($ok && error_set($err) eq '', 'gaps: pre-data restored');
$node->safe_psql('w6_gaps', sprintf($gap_rows, 'a'));
($ok, $err) = run_cmd([ 'pg_restore', '--section=data', '-d', 'w6_gaps', $dump ]);
ok($ok && error_set($err) eq '', 'gaps: data restored');
is($node->safe_psql('w6_gaps', q{
	SELECT string_agg(indexrel::text, ', ' ORDER BY indexrel::text COLLATE "C") FROM adjlist_inverted_indexes WHERE NOT ready}),
	join(', ', sort @indexes),
	'gaps: after the data section, before the triggers, no index is ready');
my ($g_rc, $g_out, $g_err) = $node->psql('w6_gaps',
	q{SELECT count(*) FROM reverse_neighbors('social.graph', 'USER#1', 'FOLLOWS#')});
like($g_err, qr/ERROR:  inverted index "graph_inverted" is not ready/,
	'gaps: a read between data and post-data is refused, not answered from the dumped rows');
like(drift_summary('w6_gaps', 'social.graph_inverted'), qr/^missing x1\b/m,
	'gaps: verify_inverted_index reports the row written before the data as missing meanwhile');
$node->safe_psql('w6_gaps', sprintf($gap_rows, 'b')
	  . q{SELECT put_edge('api.follows', 'USER#gapb', 'FOLLOWS#USER#1');});
($ok, $err) = run_cmd([ 'pg_restore', '--section=post-data', '-d', 'w6_gaps', $dump ]);
ok($ok && error_set($err) eq '', 'gaps: post-data restored without errors');
is($node->safe_psql('w6_gaps', q{SELECT count(*) FROM adjlist_inverted_indexes WHERE NOT ready}), '0',
	'gaps: post-data made every index ready');
is($node->safe_psql('w6_gaps', q{
	SELECT string_agg(neighbor::text, ',' ORDER BY neighbor) FROM reverse_neighbors('social.graph', 'USER#1', 'FOLLOWS#')
	WHERE neighbor::text LIKE 'USER#gap%'}),
	'USER#gapa,USER#gapb', 'gaps: the rows written in both gaps are indexed');
is($node->safe_psql('w6_gaps', q{
	SELECT count(*) FROM reverse_neighbors('api.follows', 'USER#1', 'FOLLOWS#') WHERE neighbor = 'USER#gapb'}),
	'1', 'gaps: the edge put_edge wrote between the sections is indexed');
check_restored('w6_gaps', 'sections with writes between them', same_answers => 0);

# pg_restore -j makes each partition's triggers in its own worker: the last
# triggers of two partitions of shop.orders made at once, the first in a
# transaction still open while the second is made, after a write between
# the sections.  Each CREATE TRIGGER alone completes nothing; the one that
# waits for the other (both lock the partition tree's root) sees both and
# makes the index exact and ready.
fresh_db('w6_parts');
for my $section (qw(pre-data data))
{
	($ok, $err) = run_cmd([ 'pg_restore', "--section=$section", '-d', 'w6_parts', $dump ]);
	ok($ok && error_set($err) eq '', "partitions: $section restored");
}
$node->safe_psql('w6_parts', q{SET ROLE app; INSERT INTO shop.orders VALUES ('CUSTOMER#gapp', 'ORDER#5', '{"amount": 2}')});
my $post = '';
$node->run_log([ 'pg_restore', '--section=post-data', '-f', "$dir/post.sql", $dump ]);
{
	open(my $fh, '<', "$dir/post.sql") or die "post.sql: $!";
	local $/;
	$post = <$fh>;
	close($fh);
}
my @last = grep { /^CREATE TRIGGER adjlist_sync_upd .* ON shop\.orders_p[12] / } split(/\n/, $post);
is(scalar(@last), 2, 'partitions: the post-data section makes adjlist_sync_upd on each partition');
my $rest = join("\n", grep { !/^CREATE TRIGGER adjlist_sync_upd .* ON shop\.orders_p[12] / } split(/\n/, $post));
my ($p_rc, $p_out, $p_err) = $node->psql('w6_parts', $rest, on_error_stop => 1);
is($p_rc . $p_err, '0', 'partitions: post-data but two partitions\' last triggers restored');
is($node->safe_psql('w6_parts', q{SELECT ready FROM adjlist_inverted_indexes WHERE indexrel = 'shop.orders_inverted'::regclass}),
	'f', 'partitions: not ready while two partitions lack a trigger');
my ($a_out, $a_err) = ('', '');
my $a = IPC::Run::start(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('w6_parts'),
	  '-c', "BEGIN; $last[0] SELECT pg_sleep(2); COMMIT;" ],
	'>', \$a_out, '2>', \$a_err);
$node->poll_query_until('w6_parts', q{
	SELECT count(*) > 0 FROM pg_stat_activity WHERE datname = current_database()
	AND query LIKE 'BEGIN; CREATE TRIGGER%' AND wait_event = 'PgSleep'})
  or die 'the first CREATE TRIGGER did not reach its sleep';
($p_rc, $p_out, $p_err) = $node->psql('w6_parts', "SET statement_timeout = '60s'; $last[1]");
$a->finish;
is($p_rc . $p_err . $a_err, '0', 'partitions: both last triggers made, one while the other\'s transaction was open');
is($node->safe_psql('w6_parts', q{SELECT ready FROM adjlist_inverted_indexes WHERE indexrel = 'shop.orders_inverted'::regclass}),
	't', 'partitions: the second completes the restore: the index is ready');
is(drift_summary('w6_parts', 'shop.orders_inverted'), '', 'partitions: and exact');
is($node->safe_psql('w6_parts', q{SELECT count(*) FROM shop.orders_inverted WHERE pk = 'CUSTOMER#gapp'}), '1',
	'partitions: the row written between the sections is indexed');

# ---------------------------------------------------------------------
# 7. pg_dump as the non-superuser owner (with pg_read_all_data), restored
#    by a superuser
# ---------------------------------------------------------------------

my $appdump = "$dir/src_app.dump";
($ok, $err) = run_cmd([ 'pg_dump', '-U', 'app', '-Fc', '-d', 'src', '-f', $appdump ]);
ok($ok, 'pg_dump as app: exit status 0');
is(error_set($err), '', 'pg_dump as app: no errors (the registry has no row-level security)');
is($node->safe_psql('src', q{SELECT relrowsecurity OR relforcerowsecurity FROM pg_class WHERE oid = 'adjlist_inverted_indexes'::regclass}),
	'f', 'the registry has no row-level security');
is($node->safe_psql('postgres', q{SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = 'app'}),
	'f', 'app is no superuser and does not bypass row-level security');
fresh_db('w7_nonsuper');
($ok, $err) = run_cmd([ 'pg_restore', '-d', 'w7_nonsuper', $appdump ]);
ok($ok, 'pg_restore of the dump made by app: exit status 0');
is(error_set($err), '', 'pg_restore of the dump made by app: no errors');
check_restored('w7_nonsuper', 'dumped by app, restored by a superuser');

# ---------------------------------------------------------------------
# 8. a data-only dump into a database whose schema came from a schema-only
#    restore and that already has rows of its own
# ---------------------------------------------------------------------
# The rows written before the data: one in social.graph and one in
# "Social Graph".celebs collide with the source's rows; the others
# (social.graph, "Social Graph"."Fans", shop.orders, social.multi) do not.
# Until the registry's rows are restored no index is registered: the graph
# functions say so, and a write through the triggers is refused (55000) as
# one that would not reach the index; a superuser writes them with the
# triggers off (session_replication_role = replica), unindexed.  Once each
# registration arrives its index is rebuilt from its table, and the tables
# copied after it are indexed by their triggers.  Expected errors, the
# exact set for a restore that leaves every index exact:
# - the COPY of social.graph and "Social Graph".celebs fails with a unique
#   violation on the base table's primary key: those tables keep only their
#   own rows;
# - the guard refuses the dumped copies of the index and counter tables
#   whose registration came before them (shop.*, social.*).
# Whatever was kept, every index must be exact, counters included.
my $datadump = "$dir/src_data.dump";
$node->command_ok([ 'pg_dump', '-Fc', '--data-only', '-d', 'src', '-f', $datadump ], 'pg_dump --data-only');
fresh_db('w8_prefilled');
($ok, $err) = run_cmd([ 'pg_restore', '--schema-only', '-d', 'w8_prefilled', $dump ]);
ok($ok && error_set($err) eq '', 'schema-only restore: no errors');
my ($w8_rc, $w8_out, $w8_err) = $node->psql('w8_prefilled', q{
	SET ROLE app;
	INSERT INTO social.graph VALUES ('USER#900', 'FOLLOWS#USER#1', NULL)});
like($w8_err, qr/ERROR:  inverted index "graph_(inverted|by_target|follows_since)" of table "graph" is not registered/,
	'prefilled database: a write before the registry is restored is refused, naming the index');
$node->safe_psql('w8_prefilled', q{
	SET session_replication_role = replica;
	INSERT INTO social.graph VALUES ('USER#1', 'PROFILE', '{"name": "already there"}'),
	                                ('USER#900', 'FOLLOWS#USER#1', NULL);
	INSERT INTO "Social Graph"."Fans" VALUES ('USER#900', 'LIKES#POST#1', NULL);
	INSERT INTO "Social Graph".celebs VALUES ('USER#f1', 'FOLLOWS#USER#star', NULL);
	INSERT INTO shop.orders VALUES ('CUSTOMER#900', 'ORDER#900', '{"amount": 900}');
	INSERT INTO social.multi VALUES ('ITEM#900', 'TAG#1', NULL);
});
like(drift_summary('w8_prefilled', 'social.graph_inverted'), qr/is not an inverted index/,
	'prefilled database: no index is registered before the data is restored');
($ok, $err) = run_cmd([ 'pg_restore', '-d', 'w8_prefilled', $datadump ]);
ok(!$ok, 'data-only dump into a prefilled database: pg_restore reports errors');
is(error_set($err), join("\n",
	'COPY failed for table "celebs": ERROR: duplicate key value violates unique constraint "celebs_pkey"',
	'COPY failed for table "graph": ERROR: duplicate key value violates unique constraint "graph_pkey"',
	map { "COPY failed for table \"$_->[0]\": ERROR: table \"$_->[0]\" is kept by adjlist from table \"$_->[1]\"" }
	  (['graph_by_target', 'graph'], ['graph_follows_since', 'graph'], ['graph_follows_since_degree', 'graph'],
	   ['graph_inverted', 'graph'], ['graph_inverted_degree', 'graph'],
	   ['multi_inverted', 'multi'], map { ["orders_inverted_$_", 'orders'] } 0 .. 3)),
	'data-only dump into a prefilled database: base-table unique violations and the guard only');
check_restored('w8_prefilled', 'data-only dump into a prefilled database', same_answers => 0);

# ---------------------------------------------------------------------
# 9. pg_dump -t and -n: single tables or schemas, without the extension's
#    configuration (the registry's rows)
# ---------------------------------------------------------------------
# The tables, their data and the triggers come back, the registration does
# not: a write through the triggers is refused (55000, naming the index and
# its table) instead of going unindexed.  Registering the index again with
# create_inverted_index(..., existing => true) (the counter table dropped
# first: it is made again from the index) makes it exact, and writes are
# indexed.
for my $way (['-t', [ '-t', 'social.multi', '-t', 'social.multi_inverted' ], 'social.multi',
			  q{SELECT create_inverted_index('social.multi', index_name => 'multi_inverted', existing => true)},
			  'social.multi_inverted', 'multi_inverted', 'multi'],
			 ['-n', [ '-n', 'shop' ], 'shop.orders',
			  q{SELECT create_inverted_index('shop.orders', index_name => 'orders_inverted', include => '{data}', existing => true)},
			  'shop.orders_inverted', 'orders_inverted', 'orders'])
{
	my ($opt, $args, $base, $register, $idx, $idxname, $basename) = @$way;
	my $db = 'w9_' . substr($opt, 1);
	fresh_db($db);
	$node->safe_psql($db, 'CREATE EXTENSION adjlist');
	# (-t dumps no schema)
	$node->safe_psql($db, 'CREATE SCHEMA social AUTHORIZATION app') if $opt eq '-t';
	($ok, $err) = run_cmd([ 'pg_dump', @$args, '-d', 'src' ], [ 'psql', '-X', '-q', '-d', $db ]);
	ok($ok, "pg_dump $opt | psql: exit status 0");
	is(error_set($err), '', "pg_dump $opt | psql: no errors");
	is($node->safe_psql($db, 'SELECT count(*) FROM adjlist_inverted_indexes'), '0',
		"pg_dump $opt: the registry's rows are not in the dump");
	is($node->safe_psql($db, "SELECT count(*) > 0 FROM $idx"), 't',
		"pg_dump $opt: the index table and its rows are");
	my ($rc, $out, $werr) = $node->psql($db, qq{
		SET ROLE app;
		INSERT INTO $base VALUES ('ZZ#1', 'ZZ#2', NULL)});
	isnt($rc, 0, "pg_dump $opt: a write to $base is refused");
	like($werr, qr/ERROR:  inverted index "$idxname" of table "$basename" is not registered/,
		"pg_dump $opt: the error names the index and its table");
	like($werr, qr/HINT:  Register the index again with create_inverted_index\('\w+\.$basename', index_name => '$idxname', existing => true/,
		"pg_dump $opt: the hint says how to register it again");
	is($node->safe_psql($db, "SELECT count(*) FROM $base WHERE pk = 'ZZ#1'"), '0',
		"pg_dump $opt: the refused write left nothing");
	$node->safe_psql($db, "SET ROLE app; $register");
	$node->safe_psql($db, "SET ROLE app; INSERT INTO $base VALUES ('ZZ#1', 'ZZ#2', NULL)");
	is(drift_summary($db, $idx), '', "pg_dump $opt: exact once registered again, and written");
	is($node->safe_psql($db, "SELECT count(*) FROM $idx WHERE pk = 'ZZ#1'"), '1',
		"pg_dump $opt: the write after the registration is indexed");
}

# ---------------------------------------------------------------------
# 10. pg_dump --exclude-table-data of an index table: the registration
# arrives before the triggers, so the CREATE TRIGGER of post-data makes
# the index what the base table says (README, Dump and restore): it comes
# back whole, not empty
# ---------------------------------------------------------------------

fresh_db('w10_noidx');
($ok, $err) = run_cmd([ 'pg_dump', '--exclude-table-data', 'social.graph_inverted', '-d', 'src' ],
	[ 'psql', '-X', '-q', '-d', 'w10_noidx' ]);
ok($ok, '--exclude-table-data: exit status 0');
is(error_set($err), '', '--exclude-table-data: no errors');
is($node->safe_psql('w10_noidx', 'SELECT count(*) FROM social.graph_inverted'),
	$node->safe_psql('src', 'SELECT count(*) FROM social.graph_inverted'),
	'--exclude-table-data: the index table comes back with all its rows, made from the base table');
is(drift_summary('w10_noidx', 'social.graph_inverted'), '',
	'--exclude-table-data: verify_inverted_index finds it exact');
is($node->safe_psql('w10_noidx', $reads_sql), $src_reads,
	'--exclude-table-data: answers as on the source');
# and of a base table (here its partitions): the index rows of edges not
# there are taken out
fresh_db('w10_nobase');
($ok, $err) = run_cmd([ 'pg_dump', '--exclude-table-data', 'shop.orders_p?', '-d', 'src' ],
	[ 'psql', '-X', '-q', '-d', 'w10_nobase' ]);
ok($ok && error_set($err) eq '', '--exclude-table-data of a base table: restored without errors');
is($node->safe_psql('w10_nobase', 'SELECT count(*) FROM shop.orders_inverted'), '0',
	'--exclude-table-data of a base table: its index comes back without the rows of edges not there');
is(drift_summary('w10_nobase', 'shop.orders_inverted'), '',
	'--exclude-table-data of a base table: verify_inverted_index finds it exact');

# ---------------------------------------------------------------------

# the source database was not touched by any of this
is($node->safe_psql('src', $registry_sql), $src_registry, 'source registry unchanged');
is($node->safe_psql('src', $reads_sql), $src_reads, 'source answers unchanged');
for my $idx (@indexes)
{
	is(drift_rows($node, 'src', $idx), '', "source: $idx still exact");
}
ok(!$node->log_contains(qr/terminated by signal|server process .* was terminated/),
	'no server process crashed');

$node->stop;
done_testing();

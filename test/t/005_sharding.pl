# Scale-out with native partitioning and postgres_fdw: a coordinator and two
# shard servers.  The base table is hash-partitioned by pk and the inverted
# index by its own partition key (sk), every partition a foreign table on a
# shard.  Writes through the coordinator keep the index exact (row triggers
# on the partitioned parent fire on the coordinator and write the index
# through its parent table); graph functions give the same answers as on
# one server; lookups are pruned to one shard; a shard lost in the middle
# of a transaction gives the client an error, and verify/repair afterwards
# restores an exact index (there is no two-phase commit).
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use AdjlistTAP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $coord  = adjlist_node('coord');
my @shards = (adjlist_node('shard1'), adjlist_node('shard2'));

# the shards: ordinary tables with primary keys
for my $shard (@shards)
{
	$shard->safe_psql('postgres', q{
		CREATE TABLE edges_part (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
		CREATE TABLE rev_part (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
	});
}

# the coordinator: partitioned parents over foreign partitions
$coord->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw');
for my $i (0, 1)
{
	my $s = $shards[$i];
	my $host = $s->host;
	my $port = $s->port;
	$coord->safe_psql('postgres', qq{
		CREATE SERVER shard$i FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$host', port '$port', dbname 'postgres', extensions 'adjlist');
		CREATE USER MAPPING FOR CURRENT_USER SERVER shard$i;
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE edges (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb) PARTITION BY HASH (pk);
	CREATE FOREIGN TABLE edges_0 PARTITION OF edges FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER shard0 OPTIONS (table_name 'edges_part');
	CREATE FOREIGN TABLE edges_1 PARTITION OF edges FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER shard1 OPTIONS (table_name 'edges_part');
	CREATE TABLE edges_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY HASH (sk);
	CREATE FOREIGN TABLE edges_inverted_0 PARTITION OF edges_inverted
		FOR VALUES WITH (MODULUS 2, REMAINDER 0) SERVER shard0 OPTIONS (table_name 'rev_part');
	CREATE FOREIGN TABLE edges_inverted_1 PARTITION OF edges_inverted
		FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER shard1 OPTIONS (table_name 'rev_part');
	-- the same graph on one server, for comparison
	CREATE TABLE single (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('single');
});

# rows before the index exists are backfilled through the coordinator
$coord->safe_psql('postgres', q{
	INSERT INTO edges SELECT 'USER#' || g, 'FOLLOWS#USER#' || (g * 7 % 40), NULL
	FROM generate_series(1, 40) g;
	INSERT INTO single SELECT 'USER#' || g, 'FOLLOWS#USER#' || (g * 7 % 40), NULL
	FROM generate_series(1, 40) g;
});
is($coord->safe_psql('postgres', q{
	SELECT create_inverted_index('edges', base_key => '{pk,sk}', existing => true)}),
	'edges_inverted', 'an inverted index over foreign partitions');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')}),
	'0', 'the backfill is exact');
my @per_shard = map { $_->safe_psql('postgres', 'SELECT count(*) FROM rev_part') } @shards;
ok($per_shard[0] > 0 && $per_shard[1] > 0 && $per_shard[0] + $per_shard[1] == 40,
	"index rows are spread over both shards (@per_shard)");

# writes through the coordinator: inserts, deletes, key updates, moves
# across shards; the same on the single server
my $writes = q{
	INSERT INTO %1$s VALUES ('USER#100', 'FOLLOWS#USER#1', NULL), ('USER#101', 'FOLLOWS#USER#1', '{"a": 1}');
	INSERT INTO %1$s SELECT 'USER#' || g, 'FOLLOWS#USER#' || (g % 5), NULL FROM generate_series(200, 260) g;
	DELETE FROM %1$s WHERE pk = 'USER#3';
	UPDATE %1$s SET sk = 'FOLLOWS#USER#2' WHERE pk = 'USER#5';
	UPDATE %1$s SET pk = 'USER#x' || pk WHERE pk IN ('USER#6', 'USER#7', 'USER#8');
	UPDATE %1$s SET data = '{"b": 2}' WHERE pk = 'USER#9';
};
for my $t ('edges', 'single')
{
	(my $sql = $writes) =~ s/%1\$s/$t/g;
	$coord->safe_psql('postgres', $sql);
}
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')}),
	'0', 'the sharded index is exact after inserts, deletes and key updates');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT sk, pk FROM edges_inverted EXCEPT SELECT sk, pk FROM single_inverted) d}),
	'0', 'and holds exactly what the single-server index holds');
my $on_shards = 0;
$on_shards += $_->safe_psql('postgres', 'SELECT count(*) FROM rev_part') for @shards;
is($on_shards, $coord->safe_psql('postgres', 'SELECT count(*) FROM edges_inverted'),
	'the index rows live on the shards');
is($coord->safe_psql('postgres', q{SELECT (SELECT count(*) FROM edges) = (SELECT count(*) FROM edges_inverted)}),
	't', 'one index row per edge');

# graph functions: the same answers as on one server
for my $q (
	[ 'neighbors', q{SELECT string_agg(neighbor::text, ',') FROM neighbors('%s', 'USER#101', 'FOLLOWS#')} ],
	[ 'reverse_neighbors', q{SELECT string_agg(neighbor::text, ',') FROM reverse_neighbors('%s', 'USER#1', 'FOLLOWS#')} ],
	[ 'reverse_neighbors page', q{SELECT string_agg(neighbor::text, ',') FROM reverse_neighbors('%s', 'USER#2', 'FOLLOWS#', 3, 'USER#205')} ],
	[ 'traverse', q{SELECT string_agg(node::text || ':' || depth, ',' ORDER BY node) FROM traverse('%s', 'USER#1', 'FOLLOWS#', 4, 'both')} ],
	[ 'shortest_path', q{SELECT shortest_path('%s', 'USER#201', 'USER#23', 'FOLLOWS#', 6, 'both')} ],
	[ 'degree', q{SELECT degree('%s', 'USER#2', 'FOLLOWS#', 'in')} ])
{
	my ($name, $sql) = @$q;
	my $sharded = $coord->safe_psql('postgres', sprintf($sql, 'edges'));
	my $single  = $coord->safe_psql('postgres', sprintf($sql, 'single'));
	ok($sharded ne '', "$name answers on the sharded graph");
	is($sharded, $single, "$name: sharded = single server");
}

# single-shard lookups: partition pruning leaves one foreign scan
my $plan = $coord->safe_psql('postgres',
	q{EXPLAIN (COSTS OFF) SELECT * FROM edges WHERE pk = 'USER#101' AND sk ^@ 'FOLLOWS#'});
is(scalar(() = $plan =~ /Foreign Scan/g), 1, 'a base lookup reads one shard')
  or diag($plan);
$plan = $coord->safe_psql('postgres',
	q{EXPLAIN (COSTS OFF) SELECT pk FROM edges_inverted WHERE sk = 'FOLLOWS#USER#1'});
is(scalar(() = $plan =~ /Foreign Scan/g), 1, 'an index lookup reads one shard')
  or diag($plan);
$plan = $coord->safe_psql('postgres',
	q{EXPLAIN (VERBOSE, COSTS OFF) SELECT pk FROM edges_inverted WHERE sk = 'FOLLOWS#USER#1'});
like($plan, qr/Remote SQL:.*WHERE \(\(sk OPERATOR\(public\.=\) /, 'the adjkey condition is shipped to the shard')
  or diag($plan);

# the write API works on the sharded tables too (Citus-style deployments)
$coord->safe_psql('postgres', q{
	SELECT put_edge('single', 'USER#300', 'FOLLOWS#USER#1', '{"via": "api"}');
	SELECT put_edge('edges', 'USER#300', 'FOLLOWS#USER#1', '{"via": "api"}');
	SELECT delete_edge('single', 'USER#101', 'FOLLOWS#USER#1');
	SELECT delete_edge('edges', 'USER#101', 'FOLLOWS#USER#1');
});
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')}),
	'0', 'put_edge and delete_edge keep the sharded index exact');

# write sharding: the index rows of one celebrity's followers are spread
# over sub-partitions FOLLOWS#USER#celebrity#0..3, which the index table's
# hash partitioning sends to both shards; readers merge them back
for my $shard (@shards)
{
	$shard->safe_psql('postgres', q{
		CREATE TABLE hot_part (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
		CREATE TABLE hot_rev_part (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
	});
}
$coord->safe_psql('postgres', q{
	CREATE TABLE hot (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb) PARTITION BY HASH (pk);
	CREATE FOREIGN TABLE hot_0 PARTITION OF hot FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER shard0 OPTIONS (table_name 'hot_part');
	CREATE FOREIGN TABLE hot_1 PARTITION OF hot FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER shard1 OPTIONS (table_name 'hot_part');
	CREATE TABLE hot_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY HASH (sk);
	CREATE FOREIGN TABLE hot_inverted_0 PARTITION OF hot_inverted
		FOR VALUES WITH (MODULUS 2, REMAINDER 0) SERVER shard0 OPTIONS (table_name 'hot_rev_part');
	CREATE FOREIGN TABLE hot_inverted_1 PARTITION OF hot_inverted
		FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER shard1 OPTIONS (table_name 'hot_rev_part');
	SELECT create_inverted_index('hot', base_key => '{pk,sk}', existing => true, write_shards => 4);
	CREATE TABLE single_hot (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('single_hot');
});
my $hot_writes = q{
	INSERT INTO %1$s SELECT 'USER#f' || g, 'FOLLOWS#USER#celebrity', NULL FROM generate_series(1, 120) g;
	INSERT INTO %1$s SELECT 'USER#f' || g, 'FOLLOWS#USER#f' || (g + 1), NULL FROM generate_series(1, 30) g;
	DELETE FROM %1$s WHERE pk IN ('USER#f7', 'USER#f8') AND sk = 'FOLLOWS#USER#celebrity';
	UPDATE %1$s SET pk = 'USER#g' || key_part(pk, 2) WHERE pk IN ('USER#f20', 'USER#f21') AND sk = 'FOLLOWS#USER#celebrity';
	UPDATE %1$s SET sk = 'FOLLOWS#USER#f1' WHERE pk = 'USER#f30' AND sk = 'FOLLOWS#USER#celebrity';
};
for my $t ('hot', 'single_hot')
{
	(my $sql = $hot_writes) =~ s/%1\$s/$t/g;
	$coord->safe_psql('postgres', $sql);
}
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('hot_inverted')}),
	'0', 'a write-sharded index over foreign partitions is exact after inserts, deletes and key updates');
my @hot_per_shard = map {
	$_->safe_psql('postgres', q{SELECT count(*) FROM hot_rev_part WHERE sk ^@ 'FOLLOWS#USER#celebrity#'})
} @shards;
ok($hot_per_shard[0] > 0 && $hot_per_shard[1] > 0 && $hot_per_shard[0] + $hot_per_shard[1] == 117,
	"one celebrity's followers are indexed on both shards (@hot_per_shard)");
for my $q (
	[ 'reverse_neighbors', q{SELECT string_agg(neighbor::text, ',') FROM reverse_neighbors('%s', 'USER#celebrity', 'FOLLOWS#')} ],
	[ 'reverse_neighbors page', q{SELECT string_agg(neighbor::text, ',') FROM reverse_neighbors('%s', 'USER#celebrity', 'FOLLOWS#', 10, 'USER#f50')} ],
	[ 'reverse_neighbors backward', q{SELECT string_agg(neighbor::text, ',') FROM reverse_neighbors('%s', 'USER#celebrity', 'FOLLOWS#', 10, backward => true)} ],
	[ 'traverse in', q{SELECT string_agg(node::text || ':' || depth, ',' ORDER BY node) FROM traverse('%s', 'USER#f5', 'FOLLOWS#', 3, 'in')} ],
	[ 'query', q{SELECT string_agg(sort_key::text, ',') FROM query('%s_inverted', 'FOLLOWS#USER#celebrity', lim => 15)} ],
	[ 'degree', q{SELECT degree('%s', 'USER#celebrity', 'FOLLOWS#', 'in')} ])
{
	my ($name, $sql) = @$q;
	my $sharded = $coord->safe_psql('postgres', sprintf($sql, 'hot'));
	my $single  = $coord->safe_psql('postgres', sprintf($sql, 'single_hot'));
	ok($sharded ne '', "$name answers through the write-sharded index");
	is($sharded, $single, "$name: write-sharded over shards = single server");
}
my $subkey = $coord->safe_psql('postgres',
	q{SELECT write_shard_key('FOLLOWS#USER#celebrity', 'USER#f1', 4)});
$plan = $coord->safe_psql('postgres',
	qq{EXPLAIN (COSTS OFF) SELECT pk FROM hot_inverted WHERE sk = '$subkey'});
is(scalar(() = $plan =~ /Foreign Scan/g), 1, 'a sub-partition lookup reads one shard')
  or diag($plan);
# a lost index row on one shard: verify names it, rebuild puts it back
$shards[0]->safe_psql('postgres', q{DELETE FROM hot_rev_part WHERE pk IN (SELECT pk FROM hot_rev_part LIMIT 1)});
is($coord->safe_psql('postgres', q{SELECT problem FROM verify_inverted_index('hot_inverted')}),
	'missing', 'verify finds an index row lost on a shard');
is($coord->safe_psql('postgres', q{SELECT rebuild_inverted_index('hot_inverted')}), '1',
	'rebuild repairs it');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('hot_inverted')}),
	'0', 'the write-sharded index is exact again');

# TRUNCATE of a foreign table fires no trigger (foreign tables can have no
# TRUNCATE trigger): naming a foreign partition of the base table or of the
# index table, or a foreign base table, is refused (sync_guard.c) in a
# session that has loaded adjlist; a session that has not loaded it is not
# checked, unless session_preload_libraries names adjlist
$shards[0]->safe_psql('postgres',
	q{CREATE TABLE lone_part (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk))});
$coord->safe_psql('postgres', q{
	CREATE FOREIGN TABLE lone (pk adjkey NOT NULL, sk adjkey NOT NULL)
		SERVER shard0 OPTIONS (table_name 'lone_part');
	SELECT create_inverted_index('lone', base_key => '{pk,sk}');
	INSERT INTO lone VALUES ('USER#1', 'FOLLOWS#USER#2');
});
for my $t (
	[ 'edges_0', qr/0A000: cannot truncate foreign table "edges_0", a partition of "edges", which has an inverted index/ ],
	[ 'edges_inverted_1', qr/0A000: cannot truncate foreign table "edges_inverted_1", a partition of inverted index "edges_inverted"/ ],
	[ 'lone', qr/0A000: cannot truncate foreign table "lone", which has an inverted index/ ])
{
	my ($ret, $out, $err) = $coord->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT 'USER#1'::adjkey IS NOT NULL;\nTRUNCATE $t->[0];");
	like($err, $t->[1], "TRUNCATE $t->[0] is refused");
	like($err, qr/HINT:  (Delete the rows with DELETE|Only adjlist writes an index table)/, 'with a hint');
}
is($coord->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM verify_inverted_index('edges_inverted'))
		 + (SELECT count(*) FROM verify_inverted_index('lone_inverted'))}),
	'0', 'the indexes are untouched');
$coord->safe_psql('postgres', q{ALTER DATABASE postgres SET session_preload_libraries = 'adjlist'});
my ($ret, $out, $err) = $coord->psql('postgres', 'TRUNCATE lone');
like($err, qr/cannot truncate foreign table "lone"/,
	'with session_preload_libraries, a session\'s first statement is checked too');
$coord->safe_psql('postgres', q{
	ALTER DATABASE postgres RESET session_preload_libraries;
	DELETE FROM lone;
	SELECT drop_inverted_index('lone_inverted');
	DROP FOREIGN TABLE lone;
});

# a shard lost in the middle of a transaction: the client gets an error;
# without two-phase commit the other shard may have committed its part,
# and verify/repair mends what is left
$coord->safe_psql('postgres', q{
	CREATE TABLE pending AS SELECT 'USER#' || g AS pk FROM generate_series(500, 540) g;
});
my $bg = $coord->background_psql('postgres', on_error_stop => 0);
$bg->query_safe(q{BEGIN});
$bg->query_safe(q{INSERT INTO edges SELECT pk::adjkey, ('FOLLOWS#' || pk)::adjkey, NULL FROM pending});
$shards[1]->stop('immediate');
$bg->query(q{COMMIT});
like($bg->{stderr}, qr/could not|connection|server closed|terminat/i,
	'the client gets a clear error when a shard goes away mid-transaction')
  or diag($bg->{stderr});
$bg->quit;
$shards[1]->start;

my $drift = $coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')});
note("drift after the lost shard: $drift rows");

# what a commit that reached only some shards leaves behind, made on
# purpose (routed by the coordinator, triggers off): edges whose index rows
# never arrived, and an index row whose edge did not
$coord->safe_psql('postgres', q{
	SET session_replication_role = replica;
	INSERT INTO edges SELECT 'USER#half' || g, 'FOLLOWS#USER#1', NULL FROM generate_series(1, 6) g;
	INSERT INTO edges_inverted VALUES ('FOLLOWS#USER#ghost', 'USER#orphan');
});
$drift = $coord->safe_psql('postgres', q{
	SELECT string_agg(problem || ':' || n, ' ' ORDER BY problem)
	FROM (SELECT problem, count(*) AS n FROM verify_inverted_index('edges_inverted') GROUP BY 1) p});
like($drift, qr/extra:[1-9].*missing:[1-9]/, "verify finds the half-committed rows on the shards ($drift)");
$drift = $coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')});
my $fixed = $coord->safe_psql('postgres', q{SELECT rebuild_inverted_index('edges_inverted')});
is($fixed, $drift, 'rebuild repairs what verify reported');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')}),
	'0', 'the sharded index is exact again');
is($coord->safe_psql('postgres', q{SELECT (SELECT count(*) FROM edges) = (SELECT count(*) FROM edges_inverted)}),
	't', 'one index row per edge after the repair');

# and writes go on
$coord->safe_psql('postgres', q{INSERT INTO edges VALUES ('USER#900', 'FOLLOWS#USER#1', NULL)});
is($coord->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('edges_inverted')}),
	'0', 'writes after the repair keep it exact');

$_->stop for ($coord, @shards);
done_testing();

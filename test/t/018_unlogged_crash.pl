# UNLOGGED base tables and a crash: after an immediate shutdown PostgreSQL
# empties every unlogged table and keeps every logged one, so an inverted
# index must have its base table's persistence (README "DDL"), or the crash
# leaves the index out of step with it.
#
# - an index (with counters, and a partitioned one) of an UNLOGGED table is
#   created unlogged: the crash empties the table and the index alike;
# - ALTER TABLE base SET UNLOGGED / SET LOGGED takes the index and counter
#   tables with it;
# - SET UNLOGGED of an index table alone (the defect's repro) is refused;
# - a logged partitioned base refuses an unlogged partition.
# After the crash, verify_inverted_index() is clean for every index.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $node = adjlist_node('unlogged');

$node->safe_psql('postgres', q{
	CREATE UNLOGGED TABLE ul (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('ul', counters => 1);
	SELECT create_inverted_index('ul', index_name => 'ul_parts', partitions => 2, counters => 1);
	CREATE TABLE g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('g', counters => 1);
	CREATE TABLE to_unlogged (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('to_unlogged', counters => 1);
	CREATE UNLOGGED TABLE to_logged (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	SELECT create_inverted_index('to_logged', counters => 1);
	CREATE TABLE pt (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
	CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM ('A') TO ('M');
	SELECT create_inverted_index('pt', counters => 1);
});

# the persistence of every table that holds rows
my $persistence_sql = q{
	SELECT string_agg(relname || '=' || relpersistence::text, ' ' ORDER BY relname)
	FROM pg_class
	WHERE relkind = 'r' AND relname ~ '^(ul|g|to_unlogged|to_logged|pt)(_|$|1)'};

is($node->safe_psql('postgres', $persistence_sql),
	'g=p g_inverted=p g_inverted_degree=p pt1=p pt_inverted=p pt_inverted_degree=p '
	  . 'to_logged=u to_logged_inverted=u to_logged_inverted_degree=u '
	  . 'to_unlogged=p to_unlogged_inverted=p to_unlogged_inverted_degree=p '
	  . 'ul=u ul_inverted=u ul_inverted_degree=u ul_parts_0=u ul_parts_1=u ul_parts_degree=u',
	'the index and counter tables of an unlogged table are created unlogged');

# the defect's repro: refused, naming the index
my ($rc, $out, $err) = $node->psql('postgres', 'ALTER TABLE g_inverted SET UNLOGGED');
isnt($rc, 0, 'SET UNLOGGED of an index table alone is refused');
like($err, qr/cannot make table "g_inverted" unlogged.*inverted index "g_inverted" of table "g"/s,
	'the refusal names the index and its base table');
($rc, $out, $err) = $node->psql('postgres', 'ALTER TABLE ul_parts_1 SET LOGGED');
like($err, qr/cannot make table "ul_parts_1" logged/, 'SET LOGGED of an index partition alone is refused');
($rc, $out, $err) = $node->psql('postgres', 'ALTER TABLE g_inverted_degree SET UNLOGGED');
like($err, qr/cannot make table "g_inverted_degree" unlogged/, 'SET UNLOGGED of a counter table alone is refused');
($rc, $out, $err) = $node->psql('postgres',
	q{CREATE UNLOGGED TABLE pt2 PARTITION OF pt FOR VALUES FROM ('M') TO ('Z')});
like($err, qr/partition "pt2" of table "pt" cannot be unlogged/,
	'an unlogged partition of an indexed partitioned table is refused');
($rc, $out, $err) = $node->psql('postgres', 'ALTER TABLE pt1 SET UNLOGGED');
like($err, qr/partition "pt1" of table "pt" cannot be unlogged/, 'so is SET UNLOGGED of a partition');

# the base tables change persistence; their indexes follow
$node->safe_psql('postgres', q{
	ALTER TABLE to_unlogged SET UNLOGGED;
	ALTER TABLE to_logged SET LOGGED;
});
is($node->safe_psql('postgres', $persistence_sql),
	'g=p g_inverted=p g_inverted_degree=p pt1=p pt_inverted=p pt_inverted_degree=p '
	  . 'to_logged=p to_logged_inverted=p to_logged_inverted_degree=p '
	  . 'to_unlogged=u to_unlogged_inverted=u to_unlogged_inverted_degree=u '
	  . 'ul=u ul_inverted=u ul_inverted_degree=u ul_parts_0=u ul_parts_1=u ul_parts_degree=u',
	'SET LOGGED / SET UNLOGGED of a base table takes its index and counter tables with it');

$node->safe_psql('postgres', q{
	INSERT INTO ul VALUES ('USER#a', 'FOLLOWS#USER#b'), ('USER#c', 'FOLLOWS#USER#b');
	INSERT INTO g VALUES ('USER#a', 'FOLLOWS#USER#b');
	INSERT INTO to_unlogged VALUES ('USER#a', 'FOLLOWS#USER#b');
	INSERT INTO to_logged VALUES ('USER#a', 'FOLLOWS#USER#b');
	INSERT INTO pt VALUES ('B#1', 'FOLLOWS#USER#b');
	CHECKPOINT;
	INSERT INTO ul VALUES ('USER#d', 'FOLLOWS#USER#e');
	INSERT INTO to_logged VALUES ('USER#d', 'FOLLOWS#USER#e');
});

$node->stop('immediate');
my $log_offset = -s $node->logfile;
$node->start;
ok($node->log_contains('database system was interrupted|redo starts at', $log_offset),
	'the server ran crash recovery');

is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM ul) || ' ' || (SELECT count(*) FROM to_unlogged) || ' '
	    || (SELECT count(*) FROM g) || ' ' || (SELECT count(*) FROM to_logged) || ' '
	    || (SELECT count(*) FROM pt)}),
	'0 0 1 2 1', 'the crash emptied the unlogged base tables and kept the logged ones');
for my $idx (qw(ul_inverted ul_parts g_inverted to_unlogged_inverted to_logged_inverted pt_inverted))
{
	is(drift_rows($node, 'postgres', $idx), '', "$idx: exact after the crash, counters included");
}
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM ul_inverted) + (SELECT count(*) FROM ul_parts)
	     + (SELECT count(*) FROM ul_inverted_degree) + (SELECT count(*) FROM to_unlogged_inverted)}),
	'0', 'the indexes of the unlogged tables were emptied with them');

$node->stop;
done_testing();

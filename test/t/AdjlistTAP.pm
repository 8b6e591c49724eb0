# Shared helpers of the adjlist TAP tests (test/t/*.pl).
package AdjlistTAP;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Exporter 'import';

our @EXPORT = qw(adjlist_node drift_count drift_rows edges_schema
  load_setup_sql load_scripts);

# A started node with the adjlist extension in its postgres database.
# Statement logging is off: the load tests would write megabytes of it;
# failing statements are still logged (log_min_error_statement).
sub adjlist_node
{
	my ($name, %conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	my %settings = (
		log_statement   => 'none',
		# the load's multi-statement transactions deadlock now and then;
		# find out fast, pgbench retries them
		deadlock_timeout => '20ms',
		max_connections  => 30,
		shared_buffers  => '64MB',
		%conf);
	$node->append_conf('postgresql.conf',
		join("\n", map { "$_ = '$settings{$_}'" } sort keys %settings));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION adjlist');
	return $node;
}

# The number of rows verify_inverted_index() reports for an index.
sub drift_count
{
	my ($node, $db, $idx) = @_;
	return $node->safe_psql($db,
		"SELECT count(*) FROM verify_inverted_index('$idx')");
}

# What verify_inverted_index() reports, one "problem key" line a row, sorted.
sub drift_rows
{
	my ($node, $db, $idx) = @_;
	return $node->safe_psql($db,
		"SELECT problem || ' ' || key::text FROM verify_inverted_index('$idx') ORDER BY 1");
}

# The base table of the load tests.
sub edges_schema
{
	return 'CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));';
}

# Functions used by the load scripts: key moves that may collide with an
# existing row, done in a subtransaction that swallows the unique
# violation (which rolls back whatever the triggers wrote in it).
sub load_setup_sql
{
	return <<'SQL';
CREATE FUNCTION move_edge(p adjkey, s adjkey, p2 adjkey, s2 adjkey) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE edges SET pk = p2, sk = s2 WHERE pk = p AND sk = s;
EXCEPTION WHEN unique_violation THEN NULL;
END $$;
CREATE FUNCTION move_all(p adjkey, p2 adjkey) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE edges SET pk = p2 WHERE pk = p;
EXCEPTION WHEN unique_violation THEN NULL;
END $$;
CREATE FUNCTION upsert_move(p adjkey, s adjkey, s2 adjkey, v int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO edges VALUES (p, s, jsonb_build_object('v', v))
	ON CONFLICT (pk, sk) DO UPDATE SET sk = s2, data = EXCLUDED.data;
EXCEPTION WHEN unique_violation THEN NULL;
END $$;
SQL
}

# pgbench scripts (name@weight => text) mixing inserts, deletes, key moves
# and upserts over 10 x 10 keys U#1..U#10 x F#1..F#10, so that concurrent
# clients keep hitting the same rows.  Multi-statement transactions may
# deadlock: run pgbench with --max-tries so that they are retried.
sub load_scripts
{
	my $vars = <<'V';
\set p random(1, 10)
\set s random(1, 10)
\set p2 random(1, 10)
\set s2 random(1, 10)
\set v random(1, 1000)
V
	my $k  = q{('U#' || :p)::adjkey, ('F#' || :s)::adjkey};
	my $k2 = q{('U#' || :p2)::adjkey, ('F#' || :s2)::adjkey};
	my $where  = q{pk = ('U#' || :p)::adjkey AND sk = ('F#' || :s)::adjkey};
	my $where2 = q{pk = ('U#' || :p2)::adjkey AND sk = ('F#' || :s2)::adjkey};
	my $val = q{jsonb_build_object('v', :v)};
	return {
		'ins@5' => "$vars INSERT INTO edges VALUES ($k, $val) ON CONFLICT DO NOTHING;\n",
		'del@3' => "$vars DELETE FROM edges WHERE $where;\n",
		'mov@3' => "$vars SELECT move_edge($k, $k2);\n",
		# upsert: a new row, or a new projected value, or (even v) the same one
		'ups@3' => "$vars INSERT INTO edges VALUES ($k, $val) ON CONFLICT (pk, sk) DO UPDATE"
		  . " SET data = CASE WHEN :v % 2 = 0 THEN edges.data ELSE EXCLUDED.data END;\n",
		'upm@1' => "$vars SELECT upsert_move($k, ('F#' || :s2)::adjkey, :v);\n",
		'tx@2' => "$vars BEGIN;\n"
		  . "INSERT INTO edges VALUES ($k, $val) ON CONFLICT DO NOTHING;\n"
		  . "SELECT move_edge($k2, ('U#' || :p)::adjkey, ('F#' || :s2)::adjkey);\n"
		  . "DELETE FROM edges WHERE $where2;\n"
		  . "UPDATE edges SET data = $val WHERE pk = ('U#' || :p2)::adjkey;\n"
		  . "COMMIT;\n",
		'rb@1' => "$vars BEGIN;\n"
		  . "INSERT INTO edges VALUES ($k, $val) ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;\n"
		  . "DELETE FROM edges WHERE $where2;\n"
		  . "SELECT move_edge($k2, $k);\n"
		  . "ROLLBACK;\n",
		'sp@1' => "$vars BEGIN;\n"
		  . "INSERT INTO edges VALUES ($k, $val) ON CONFLICT DO NOTHING;\n"
		  . "SAVEPOINT a;\n"
		  . "DELETE FROM edges WHERE $where;\n"
		  . "SELECT move_edge($k2, ('U#' || :p2)::adjkey, ('F#' || :s)::adjkey);\n"
		  . "ROLLBACK TO SAVEPOINT a;\n"
		  . "INSERT INTO edges VALUES ($k2, $val) ON CONFLICT DO NOTHING;\n"
		  . "COMMIT;\n",
		'bulk@1' => "$vars SELECT move_all(('U#' || :p)::adjkey, ('U#' || :p2)::adjkey);\n",
	};
}

1;

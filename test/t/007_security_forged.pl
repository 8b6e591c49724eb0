# Security with real logins, several databases and sessions: attacks and
# forged index tables must never crash the server.  Each case runs in its
# own connection as the role that would do it (LOGIN roles, not SET ROLE),
# while other sessions, in this database and in another one, stay
# connected; after each case the postmaster must not have restarted
# (pg_postmaster_start_time), every long-lived session must still answer,
# and the server log must not say "terminated by signal".  A case that
# crashes the server is reported as failed, the server is waited for and
# the next case goes on, so that one run reports every crash.
#
# The cases are the ones sql/security.sql ends with (a crash there ends the
# suite), plus the privilege escalation through a hostile search_path done
# by a real login of the writer.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdjlistTAP;

my $node = adjlist_node('security', restart_after_crash => 'on');

$node->safe_psql('postgres', q{
	CREATE ROLE sec_owner LOGIN;
	CREATE ROLE sec_writer LOGIN;
	CREATE ROLE sec_reader LOGIN;
	CREATE DATABASE other;
	GRANT CREATE ON DATABASE postgres TO sec_writer;
	CREATE SCHEMA s AUTHORIZATION sec_owner;
	GRANT USAGE ON SCHEMA s TO sec_writer, sec_reader;
});
$node->safe_psql('other', 'CREATE EXTENSION adjlist');
$node->safe_psql('postgres', q{
	SET ROLE sec_owner;
	CREATE TABLE s.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO s.g SELECT 'USER#' || i, 'FOLLOWS#USER#' || (i % 7), jsonb_build_object('i', i)
	FROM generate_series(1, 50) i;
	SELECT create_inverted_index('s.g', include => '{data}', counters => 2);
	-- a table without a primary key, registered with its key
	CREATE TABLE s.nokey (pk adjkey, sk adjkey, data jsonb, UNIQUE (pk, sk));
	SELECT create_inverted_index('s.nokey', base_key => '{pk,sk}');
	-- an index table of the owner's making, without NOT NULL
	CREATE TABLE s.nn (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	CREATE TABLE s.nn_idx (sk adjkey, pk adjkey);
	SELECT create_inverted_index('s.nn', existing => true, index_name => 'nn_idx');
	INSERT INTO s.nn VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
	-- a deferrable key and a projection: index rows deleted through SQL
	CREATE TABLE s.d (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk) DEFERRABLE);
	INSERT INTO s.d SELECT pk, sk, data FROM s.g;
	SELECT create_inverted_index('s.d', include => '{data}');
	CREATE TABLE s.owner_only (who name);
	GRANT SELECT, INSERT, UPDATE, DELETE ON s.g, s.nokey, s.d TO sec_writer;
	GRANT SELECT ON s.g, s.nokey, s.nn, s.d TO sec_reader;
});
$node->safe_psql('other', q{
	CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
	INSERT INTO g SELECT 'USER#' || i, 'FOLLOWS#USER#' || (i % 7), NULL FROM generate_series(1, 50) i;
	SELECT create_inverted_index('g');
});

my @sessions;

sub open_sessions
{
	@sessions = (
		[ 'reader in postgres', $node->background_psql('postgres',
			extra_params => [ '-U', 'sec_reader' ], on_error_stop => 0) ],
		[ 'writer in postgres', $node->background_psql('postgres',
			extra_params => [ '-U', 'sec_writer' ], on_error_stop => 0) ],
		[ 'superuser in other', $node->background_psql('other', on_error_stop => 0) ],
	);
	# one of them inside a transaction that has read and written
	$sessions[2][1]->query_safe(
		q{BEGIN; SELECT count(*) FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#');
		  INSERT INTO g VALUES ('USER#bg', 'FOLLOWS#USER#1', NULL)});
	$sessions[0][1]->query_safe(q{SELECT count(*) FROM traverse('s.g', 'USER#1', 'FOLLOWS#', 2, 'both')});
}

sub close_sessions
{
	for my $s (@sessions)
	{
		eval { $s->[1]->quit; };
	}
	@sessions = ();
}

sub start_time
{
	return $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
}

# Run a case: [name, user, database, sql].  The sql runs in a connection of
# its own; its errors are fine, a crash is not.
sub run_case
{
	my ($name, $user, $db, $sql) = @_;
	my $before = start_time();
	my $log_offset = -s $node->logfile;
	my ($ret, $stdout, $stderr) = $node->psql($db, $sql,
		extra_params => [ '-U', $user ], on_error_stop => 0);
	my $crashed = $stderr =~ /server closed the connection|connection to server was lost/;
	if ($crashed)
	{
		# wait for the restart before asking anything else
		$node->poll_query_until('postgres', 'SELECT true');
	}
	my $after = start_time();
	my $log = slurp_file($node->logfile, $log_offset);
	ok(!$crashed && $before eq $after && $log !~ /terminated by signal|TRAP:|PANIC/,
		"$name: the server did not restart")
	  or diag("psql: $stderr\nlog: "
		  . join("\n", grep { /terminated by signal|TRAP|PANIC|DETAIL:  Failed process/ } split /\n/, $log));
	my @dead;
	for my $s (@sessions)
	{
		my $alive = eval { $s->[1]->query('SELECT 1') eq '1' };
		push @dead, $s->[0] unless $alive;
	}
	ok(!@dead, "$name: every other session survived")
	  or diag('lost: ' . join(', ', @dead));
	if ($crashed || @dead)
	{
		close_sessions();
		open_sessions();
	}
	return ($ret, $stdout, $stderr);
}

open_sessions();

# 1. A role that may write a base table without a primary key writes a row
#    with a NULL sort key; the readers then read the table through SQL.
$node->safe_psql('postgres', q{
	SET ROLE sec_writer;
	INSERT INTO s.nokey VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#a', NULL, NULL),
		(NULL, 'FOLLOWS#USER#b', NULL);
});
for my $call (
	q{SELECT count(*) FROM neighbors('s.nokey', 'USER#a', 'FOLLOWS#')},
	q{SELECT count(*) FROM neighbors('s.nokey', 'USER#a', '')},
	q{SELECT degree('s.nokey', 'USER#a', '')},
	q{SELECT count(*) FROM traverse('s.nokey', 'USER#a', '', 2, 'both')},
	q{SELECT to_dot('s.nokey', 'USER#a', '', 1, 'both')})
{
	run_case("NULL sort key in a table without primary key: $call", 'sec_reader', 'postgres', $call);
}

# 2. A row with a NULL key is written into an index table behind its guard
#    (which its owner cannot switch off: a superuser in replica mode).
$node->safe_psql('postgres', q{
	SET session_replication_role = replica;
	INSERT INTO s.nn_idx VALUES ('FOLLOWS#USER#b', NULL), (NULL, 'USER#x');
	RESET session_replication_role;
});
for my $call (
	q{SELECT count(*) FROM reverse_neighbors('s.nn', 'USER#b', 'FOLLOWS#')},
	q{SELECT degree('s.nn', 'USER#b', 'FOLLOWS#', 'in')},
	q{SELECT shortest_path('s.nn', 'USER#a', 'USER#b', 'FOLLOWS#', 3, 'both')},
	q{SELECT count(*) FROM walk_ranked('s.nn', 'USER#b', '{FOLLOWS#,FOLLOWS#}', '{in,out}')})
{
	run_case("NULL key in an index table: $call", 'sec_reader', 'postgres', $call);
}
run_case('NULL key in an index table: maintenance', 'sec_owner', 'postgres',
	q{SELECT count(*) FROM verify_inverted_index('s.nn_idx'); SELECT rebuild_inverted_index('s.nn_idx')});

# 3. The superuser, with adjlist's event triggers disabled, changes the
#    index table; the change is rolled back after each read.
for my $forgery (
	'ALTER TABLE s.g_inverted DROP COLUMN pk; ALTER TABLE s.g_inverted ADD COLUMN pk adjkey',
	'ALTER TABLE s.g_inverted DROP COLUMN sk; ALTER TABLE s.g_inverted ADD COLUMN sk adjkey',
	'ALTER TABLE s.g_inverted ALTER COLUMN pk TYPE text',
	'ALTER TABLE s.g_inverted DROP COLUMN data',
	'ALTER TABLE s.g_inverted DROP CONSTRAINT g_inverted_pkey',
	'ALTER TABLE s.g_inverted OWNER TO sec_writer',
	'ALTER TABLE s.g_inverted_degree ALTER COLUMN n TYPE integer',
	'ALTER TABLE s.g DROP COLUMN data')
{
	for my $call (
		q{SELECT count(*) FROM reverse_neighbors('s.g', 'USER#3', 'FOLLOWS#')},
		q{SELECT count(*) FROM traverse('s.g', 'USER#3', 'FOLLOWS#', 3, 'both')},
		q{SELECT count(*) FROM walk_ranked('s.g', 'USER#3', '{FOLLOWS#,FOLLOWS#}', '{in,in}')},
		q{INSERT INTO s.g VALUES ('USER#new', 'FOLLOWS#USER#3', NULL)},
		q{DELETE FROM s.g WHERE pk = 'USER#3'},
		q{SELECT count(*) FROM verify_inverted_index('s.g_inverted')})
	{
		run_case("forged ($forgery): $call", 'postgres', 'postgres',
			"BEGIN;\nALTER EVENT TRIGGER adjlist_ddl_start DISABLE;\n"
			  . "ALTER EVENT TRIGGER adjlist_ddl_end DISABLE;\n$forgery;\n"
			  . "ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;\n"
			  . "ALTER EVENT TRIGGER adjlist_ddl_end ENABLE ALWAYS;\n"
			  . "SET ROLE sec_writer;\n$call;\nROLLBACK;");
	}
}

# 4. The writer, logged in as itself, puts its own schema before
#    pg_catalog with an equality operator on text; the index rows of a
#    deferrable key are deleted through SQL as the table owner.  The
#    writer's operator must never run as the owner.
my (undef, $out, $err) = run_case('hostile search_path', 'sec_writer', 'postgres', q{
	CREATE SCHEMA w;
	CREATE FUNCTION w.texteq(text, text) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
		IF current_user <> 'sec_writer' THEN
			INSERT INTO s.owner_only VALUES (current_user);
		END IF;
		RETURN $1 OPERATOR(pg_catalog.=) $2;
	END $$;
	CREATE OPERATOR w.= (LEFTARG = text, RIGHTARG = text, FUNCTION = w.texteq);
	GRANT USAGE ON SCHEMA w TO PUBLIC;
	SET search_path = w, pg_catalog, public;
	UPDATE s.d SET data = '{"x": 1}' WHERE pk OPERATOR(public.=) 'USER#1';
	UPDATE s.d SET sk = 'FOLLOWS#USER#9' WHERE pk OPERATOR(public.=) 'USER#2';
	DELETE FROM s.d WHERE pk OPERATOR(public.=) 'USER#3';
});
is($node->safe_psql('postgres', 'SELECT count(*) FROM s.owner_only'), '0',
	"the writer's operator never ran as the table owner")
  or diag('it ran as: ' . $node->safe_psql('postgres', 'SELECT DISTINCT who FROM s.owner_only'));
is($node->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('s.d_inverted')}), '0',
	'the index of s.d is exact');

# 5. The other database was never touched: its index is exact and its
#    session's transaction can still commit.
$sessions[2][1]->query_safe('COMMIT');
is($node->safe_psql('other', q{SELECT count(*) FROM verify_inverted_index('g_inverted')}), '0',
	'the index in the other database is exact');
is($node->safe_psql('postgres', q{SELECT count(*) FROM verify_inverted_index('s.g_inverted')}), '0',
	'the forged changes were all rolled back');

close_sessions();
$node->stop;
done_testing();

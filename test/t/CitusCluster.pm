# A Citus cluster for the adjlist TAP tests (test/t/*.pl): a coordinator and
# workers, each a PostgreSQL::Test::Cluster node on a port of its own,
# listening on 127.0.0.1 (Citus connects to the workers over TCP).
#
#   use CitusCluster;
#   my $why = CitusCluster::citus_missing();
#   plan skip_all => $why if $why;
#   my $c = CitusCluster->new('name');          # coordinator + 2 workers
#   $c->coord_sql('SELECT ...');                # safe_psql on the coordinator
#   $c->worker_sql(0, 'SELECT ...');            # on worker 0
#   my @out = $c->all_sql('SELECT ...');        # on every node, coordinator first
#   my ($ret, $out, $err) = $c->coord_psql('...');  # may fail
#   $c->stop_worker(1);  ...  $c->start_worker(1);  # fault tests
#   $c->stop;
#
# Each node has shared_preload_libraries = 'citus' and
# max_prepared_transactions > 0 (Citus commits multi-node writes with
# 2PC), CREATE EXTENSION citus in the database 'postgres'; the coordinator
# is registered with citus_set_coordinator_host and the workers with
# citus_add_node.  Citus must be installed in the server the nodes run
# (bash test/vendor.sh citus [PG_CONFIG]).
package CitusCluster;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# Why a Citus cluster cannot run with the server on PATH (the pg_config
# there), or undef when it can: citus.so and citus.control must be
# installed in it.
sub citus_missing
{
	my $pkglibdir = `pg_config --pkglibdir 2>/dev/null`;
	my $sharedir  = `pg_config --sharedir 2>/dev/null`;
	return 'pg_config is not on PATH' unless $pkglibdir && $sharedir;
	chomp($pkglibdir, $sharedir);
	return "citus is not installed in the server ($pkglibdir/citus.so not found;"
	  . " bash test/vendor.sh citus builds it)"
	  unless -f "$pkglibdir/citus.so";
	return "citus is not installed in the server ($sharedir/extension/citus.control not found)"
	  unless -f "$sharedir/extension/citus.control";
	return undef;
}

# Whether an extension is installed in the server on PATH.
sub extension_installed
{
	my ($ext) = @_;
	my $sharedir = `pg_config --sharedir 2>/dev/null`;
	chomp $sharedir;
	return -f "$sharedir/extension/$ext.control";
}

# CitusCluster->new(NAME, workers => 2, conf => { guc => value, ... },
#                   database => 'postgres')
# Starts the nodes and makes the cluster: returns when the coordinator sees
# every worker as active.
sub new
{
	my ($class, $name, %opts) = @_;
	my $nworkers = $opts{workers} // 2;
	my $db       = $opts{database} // 'postgres';
	my %settings = (
		shared_preload_libraries  => 'citus',
		max_prepared_transactions => 20,
		max_connections           => 100,
		listen_addresses          => '127.0.0.1',
		# room for shard moves and logical replication in later tests
		wal_level             => 'logical',
		max_wal_senders       => 10,
		max_replication_slots => 10,
		shared_buffers        => '32MB',
		%{ $opts{conf} // {} });

	my $self = bless { name => $name, db => $db, workers => [] }, $class;
	$self->{coordinator} = _node("${name}_coord", \%settings);
	for my $i (0 .. $nworkers - 1)
	{
		push @{ $self->{workers} }, _node("${name}_worker$i", \%settings);
	}

	for my $node ($self->nodes)
	{
		$node->safe_psql('postgres', "CREATE DATABASE $db")
		  if $db ne 'postgres';
		$node->safe_psql($db, 'CREATE EXTENSION citus');
	}
	my $coord = $self->{coordinator};
	$coord->safe_psql($db,
		"SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ')');
	for my $w (@{ $self->{workers} })
	{
		$coord->safe_psql($db,
			"SELECT citus_add_node('127.0.0.1', " . $w->port . ')');
	}
	my $active = $coord->safe_psql($db,
		"SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0");
	die "CitusCluster: $active active worker(s) of $nworkers"
	  unless $active == $nworkers;
	return $self;
}

sub _node
{
	my ($name, $settings) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf',
		join("\n", map { "$_ = '$settings->{$_}'" } sort keys %$settings));
	$node->start;
	return $node;
}

sub coordinator { return $_[0]->{coordinator}; }
sub workers     { return @{ $_[0]->{workers} }; }
sub worker      { return $_[0]->{workers}[ $_[1] ]; }
sub nodes       { my $self = shift; return ($self->{coordinator}, $self->workers); }
sub database    { return $_[0]->{db}; }

# The port of worker I (its node name is 127.0.0.1).
sub worker_port { return $_[0]->worker($_[1])->port; }

# safe_psql (dies on error) on the coordinator / on worker I / on every node
# (a list, coordinator first).  Extra arguments go to safe_psql.
sub coord_sql
{
	my ($self, $sql, @args) = @_;
	return $self->{coordinator}->safe_psql($self->{db}, $sql, @args);
}

sub worker_sql
{
	my ($self, $i, $sql, @args) = @_;
	return $self->worker($i)->safe_psql($self->{db}, $sql, @args);
}

sub all_sql
{
	my ($self, $sql, @args) = @_;
	return map { $_->safe_psql($self->{db}, $sql, @args) } $self->nodes;
}

# psql that may fail: ($ret, $stdout, $stderr) in list context.
sub coord_psql
{
	my ($self, $sql, @args) = @_;
	my ($out, $err);
	my $ret = $self->{coordinator}->psql($self->{db}, $sql,
		stdout => \$out, stderr => \$err, @args);
	return ($ret, $out, $err);
}

sub worker_psql
{
	my ($self, $i, $sql, @args) = @_;
	my ($out, $err);
	my $ret = $self->worker($i)->psql($self->{db}, $sql,
		stdout => \$out, stderr => \$err, @args);
	return ($ret, $out, $err);
}

# Stop worker I (mode: fast, immediate, ...; default immediate, a crash),
# and start it again.  Citus keeps the node in its metadata: queries that
# need its shards fail until it is back.
sub stop_worker
{
	my ($self, $i, $mode) = @_;
	$self->worker($i)->stop($mode // 'immediate');
	return;
}

sub start_worker
{
	my ($self, $i) = @_;
	$self->worker($i)->start;
	return;
}

# Stop every node (the framework also stops them at exit).
sub stop
{
	my ($self, $mode) = @_;
	for my $node ($self->nodes)
	{
		$node->stop($mode // 'fast');    # a no-op on a stopped node
	}
	return;
}

1;

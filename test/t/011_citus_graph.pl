# adjlist on Citus, against one plain server: a coordinator and two workers
# (CitusCluster.pm) and a separate plain PostgreSQL node, each loaded with
# the same seeded random graph (power-law, several edge types, keys of
# several '#' parts, jsonb data).  Expected answers are the plain server's.
#
# Citus tables, each with its twin of the same name on the plain server
# (where the index is an ordinary trigger-mode index with the same options):
#   ga  index created after the base is distributed (half the rows loaded
#       before distributing, so the coordinator's shell keeps stale rows)
#   gb  index created before the base is distributed (the README's recipe:
#       then both are distributed, each by its own partition key)
#   gc  as ga, with write_shards => 4, counters => 4, include => '{data}'
#   gd  as gb, with the same options as gc
#   ge  as ga, and if adjlist left the index on the coordinator, distributed
#       by hand by its partition key (the README's recipe)
#   gr  a reference table
# For each: every graph function on many start nodes, both directions,
# with pagination (lim/after, exclusive_start_key), with edge filters, and
# weighted shortest paths (each group of filtered and weighted reads must
# answer something besides empty sets, not only agree); then the write API
# (put_edge, put_edges, delete_edge, delete_node) applied to both and the
# resulting tables compared; drift (induced directly, as on the plain
# server with session_replication_role = replica), verify and rebuild;
# drop_inverted_index.  Fault cases: a worker stopped at write time gives a
# clear error and leaves nothing half-written.
#
# A failure prints the SQL that differs, run as written on both servers,
# with what each returned.  ADJLIST_CITUS_SEED picks another graph.
# Skipped when Citus is not installed in the server (bash test/vendor.sh
# citus) or adjlist is not.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use CitusCluster;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $missing = CitusCluster::citus_missing();
plan skip_all => $missing if $missing;
plan skip_all => 'adjlist is not installed in the server (make install)'
  unless CitusCluster::extension_installed('adjlist');

my $t0 = time;
sub stamp { note sprintf('[%.1f s] %s', time - $t0, $_[0]); }

# ---------------------------------------------------------------------
# The servers
# ---------------------------------------------------------------------
my $c = CitusCluster->new('cg',
	conf => { 'citus.shard_count' => 8, log_min_messages => 'warning' });
my $coord = $c->coordinator;
my @wport = map { $c->worker_port($_) } 0, 1;
my $plain = PostgreSQL::Test::Cluster->new('cg_plain');
$plain->init;
$plain->append_conf('postgresql.conf', "shared_buffers = '32MB'\nlog_min_messages = warning");
$plain->start;
stamp('servers up');

note 'Citus ' . $c->coord_sql("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
  . ', PostgreSQL ' . $c->coord_sql('SHOW server_version');

my ($ret, $out, $err) = $c->coord_psql('CREATE EXTENSION adjlist');
is($ret, 0, 'CREATE EXTENSION adjlist on the coordinator only') or diag $err;
BAIL_OUT("CREATE EXTENSION adjlist failed on the coordinator: $err") if $ret;
is(join(',', $c->all_sql("SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")),
	join(',', ($c->coord_sql("SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")) x 3),
	'Citus propagated adjlist to both workers');
$plain->safe_psql('postgres', 'CREATE EXTENSION adjlist');

# ---------------------------------------------------------------------
# The graph: deterministic, from a seed (own LCG: the same on every Perl)
# ---------------------------------------------------------------------
my $seed = $ENV{ADJLIST_CITUS_SEED} // 20250611;
note "graph seed $seed (ADJLIST_CITUS_SEED)";
my $state = $seed % 2147483648;
sub rnd { $state = ($state * 1103515245 + 12345) % 2147483648; return $state / 2147483648; }
# an index in 0 .. n-1, skewed towards 0 (power-law-ish hubs)
sub skew { my ($n, $e) = @_; my $i = int($n * rnd()**$e); return $i < $n ? $i : $n - 1; }

my @regions = qw(eu us ap);
my @users = map { "USER#$regions[$_ % 3]#u$_" } 0 .. 199;
# keys that need care: an escaped '#' inside a part, multi-byte, a space;
# at hub positions so they carry many edges
$users[1]  = 'USER#eu#o\#connor';
$users[4]  = "USER#ap#zo\xc3\xab";
$users[9]  = "USER#ap#\xe6\x97\xa5\xe6\x9c\xac";
$users[30] = 'USER#us#a b';
my @posts  = map { "POST#p$_" } 0 .. 119;
my @tags   = map { 'TAG#' . (qw(lang db ops))[$_ % 3] . "#t$_" } 0 .. 23;
my @groups = map { "GROUP#g$_" } 0 .. 9;
my $NOBODY = 'USER#eu#nobody';

my (@rows, %seen, %out, @admins);
sub add_row
{
	my ($pk, $sk, $data) = @_;
	return if $seen{"$pk\x00$sk"}++;
	push @rows, [ $pk, $sk, $data ];
}
sub add_edge
{
	my ($src, $type, $dst, $data) = @_;
	return if $src eq $dst;
	add_row($src, "$type#$dst", $data);
	push @{ $out{$type}{$src} }, $dst;
}
for my $i (0 .. $#users)
{
	add_row($users[$i], 'PROFILE',
		sprintf('{"name": "user %d", "n": %d, "region": "%s"}', $i, $i, $regions[ $i % 3 ]));
	next if rnd() < 0.08;    # some users follow nobody
	my $k = 1 + int(24 * rnd()**3);
	for (1 .. $k)
	{
		my $since = rnd() < 0.5 ? sprintf('{"since": %d}', 2000 + int(25 * rnd())) : undef;
		add_edge($users[$i], 'FOLLOWS', $users[ skew(scalar @users, 2.2) ], $since);
	}
}
for (1 .. 330)
{
	my ($a, $b) = ($users[ skew(scalar @users, 1.6) ], $users[ int(rnd() * @users) ]);
	next if $a eq $b || $seen{"$a\x00FRIEND#$b"};
	add_edge($a, 'FRIEND', $b, undef);
	add_edge($b, 'FRIEND', $a, undef);
}
for my $u (@users)
{
	my $k = int(11 * rnd()**2);
	for (1 .. $k)
	{
		my $p = $posts[ skew(scalar @posts, 2.5) ];
		my $w = int(rnd() * 8);
		# (pub: half the likes, for edge filters)
		add_edge($u, 'LIKES', $p, sprintf('{"w": %.2f, "pub": %s}', $w / 4, $w % 2 ? 'true' : 'false'));
	}
}
for my $p (0 .. $#posts)
{
	add_edge($users[ skew(scalar @users, 1.5) ], 'AUTHORED', $posts[$p], undef);
	add_row($posts[$p], 'META', sprintf('{"title": "post %d", "tags": [%d, %d]}', $p, $p % 7, $p % 5));
	add_edge($posts[$p], 'TAGGED', $tags[ skew(scalar @tags, 1.8) ], undef)
	  for 1 .. 1 + int(rnd() * 4);
}
# the other edge conventions: the sort key is the target (group members)
# and a target prefix (FAN#eu#u5 points at USER#eu#u5)
for my $g (@groups)
{
	for (1 .. 3 + int(rnd() * 12))
	{
		my $u = $users[ skew(scalar @users, 1.7) ];
		my $admin = rnd() < 0.3;
		add_row($g, $u, $admin ? '{"role": "admin"}' : undef);
		push @{ $out{MEMBER}{$g} }, $u;
		push @admins, $u if $admin;
	}
}
for (1 .. 200)
{
	my ($a, $b) = ($users[ int(rnd() * @users) ], $users[ skew(scalar @users, 2) ]);
	next if $a eq $b;
	(my $tail = $b) =~ s/^USER#//;
	add_row($a, "FAN#$tail", undef);
}
note scalar(@rows) . ' rows in the graph';

sub lit
{
	my ($s) = @_;
	return 'NULL' unless defined $s;
	$s =~ s/'/''/g;
	return "'$s'";
}

sub insert_sql
{
	my ($t, @r) = @_;
	my $sql = '';
	while (my @chunk = splice(@r, 0, 800))
	{
		$sql .= "INSERT INTO $t VALUES "
		  . join(",\n", map { '(' . lit($_->[0]) . ', ' . lit($_->[1]) . ', ' . lit($_->[2]) . ')' } @chunk)
		  . ";\n";
	}
	return $sql;
}
my $half = int(@rows / 2);

# ---------------------------------------------------------------------
# Running many statements at once on both servers
# ---------------------------------------------------------------------

# Runs the statements in one psql session, each after an \echo marker;
# returns one result per statement: its output (lines joined by newlines,
# '' for none), or 'ERROR: <sqlstate> <message>' when it failed (psql's
# ERROR and LAST_ERROR_* variables: nothing is run twice).
sub run_batch
{
	my ($node, $stmts, $setup) = @_;
	$setup //= '';
	my $script = $setup . "\n"
	  . join('', map {
		"\\echo \@\@$_\n$stmts->[$_];\n\\if :ERROR\n\\echo \@\@ERR :LAST_ERROR_SQLSTATE :LAST_ERROR_MESSAGE\n\\endif\n"
	  } 0 .. $#$stmts)
	  . "\\echo \@\@end\n";
	my ($o, $e) = ('', '');
	$node->psql('postgres', $script, stdout => \$o, stderr => \$e, on_error_stop => 0);
	my (@res, $cur);
	for my $line (split /\n/, $o)
	{
		if ($line =~ /^\@\@(\d+|end)$/) { $cur = $1; $res[$cur] = '' if $cur ne 'end'; next; }
		next unless defined $cur && $cur ne 'end';
		if ($line =~ /^\@\@ERR (.*)/) { $res[$cur] = "ERROR: $1"; next; }
		$res[$cur] = $res[$cur] eq '' ? $line : "$res[$cur]\n$line";
	}
	for my $i (0 .. $#$stmts)
	{
		$res[$i] //= 'ERROR: (not run: the session ended) ' . substr($e, -300);
	}
	if ($ENV{ADJLIST_CITUS_DUMP})
	{
		open my $fh, '>>', $ENV{ADJLIST_CITUS_DUMP} or die;
		print $fh '== ' . $node->name . " $_\n$stmts->[$_]\n-> $res[$_]\n" for 0 .. $#$stmts;
		close $fh;
	}
	return \@res;
}

sub snip
{
	my ($x, $y) = @_;
	my $n = 0;
	$n++ while $n < length($x) && $n < length($y) && substr($x, $n, 1) eq substr($y, $n, 1);
	my $from = $n > 80 ? $n - 80 : 0;
	my $pre = $from ? '...' : '';
	return (
		$pre . substr($x, $from, 240) . (length($x) > $from + 240 ? '...' : ''),
		$pre . substr($y, $from, 240) . (length($y) > $from + 240 ? '...' : ''));
}

# Runs [group, sql] pairs on both servers; one test per group: every
# statement of the group returns the same on Citus as on the plain server.
sub compare
{
	my ($label, $qs, %o) = @_;
	my @sql = map { $_->[1] } @$qs;
	my $exp = run_batch($plain, \@sql, $o{plain_setup});
	my $got = run_batch($coord, \@sql, $o{citus_setup});
	my (%n, %bad, @groups);
	for my $i (0 .. $#$qs)
	{
		my $g = $qs->[$i][0];
		push @groups, $g unless $n{$g}++;
		push @{ $bad{$g} }, $i if $exp->[$i] ne $got->[$i];
	}
	my $nbad = 0;
	for my $g (@groups)
	{
		my $bl = $bad{$g} // [];
		$nbad += @$bl;
		next if ok(!@$bl, "$label: $g (" . ($n{$g} - @$bl) . " of $n{$g} the same)");
		# the shortest differing statements first: minimal reproducers
		my @show = (sort { length($sql[$a]) <=> length($sql[$b]) } @$bl)[ 0 .. ($#$bl < 2 ? $#$bl : 2) ];
		for my $i (@show)
		{
			my ($e, $g2) = snip($exp->[$i], $got->[$i]);
			diag "  $sql[$i];\n    plain: $e\n    citus: $g2";
		}
	}
	return ($exp, $got);
}

# a set-returning call rendered as one line, rows in the order returned
sub srf
{
	my ($call, $cols, $fmt) = @_;
	return "SELECT coalesce(string_agg(format($fmt), ' ; ' ORDER BY o), '<empty>') "
	  . "FROM $call WITH ORDINALITY AS r($cols, o)";
}
sub scalar_q
{
	my ($call) = @_;
	return "SELECT replace(coalesce(($call)::text, '<null>'), E'\\n', '\\n')";
}
my $NB  = ['neighbor, pk, sk, data', q{'%s|%s|%s|%s', neighbor, pk, sk, coalesce(data::text, '-')}];
my $TRV = ['node, depth, path', q{'%s:%s:%s', node, depth, path}];
my $RNK = ['node, score', q{'%s:%s', node, score}];
my $QRY = ['pk_, sk_, key, item', q{'%s|%s|%s|%s', pk_, sk_, key, item}];

# Pagination helpers, the same on both servers: pages of a neighbors,
# reverse_neighbors or query call, each page's rows in brackets; the next
# page starts after the last row's key.
my $helpers = <<'SQL';
CREATE FUNCTION t011_pages(kind text, tbl regclass, node adjkey, prefix text, ps int,
                           bw boolean, tp text DEFAULT '', sit boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE a adjkey; res text := ''; page text; r record; n int; pages int := 0;
BEGIN
	LOOP
		page := ''; n := 0;
		IF kind = 'out' THEN
			FOR r IN SELECT * FROM neighbors(tbl, node, prefix, ps, a, bw, tp, sit) LOOP
				page := page || format('%s|%s|%s|%s ', r.neighbor, r.pk, r.sk, coalesce(r.data::text, '-'));
				n := n + 1; a := r.sk;
			END LOOP;
		ELSE
			FOR r IN SELECT * FROM reverse_neighbors(tbl, node, prefix, ps, a, bw, tp, sit) LOOP
				page := page || format('%s|%s|%s|%s ', r.neighbor, r.pk, r.sk, coalesce(r.data::text, '-'));
				n := n + 1; a := r.pk;
			END LOOP;
		END IF;
		res := res || '[' || page || ']';
		pages := pages + 1;
		EXIT WHEN n < ps OR pages > 300;
	END LOOP;
	RETURN res;
END $$;
CREATE FUNCTION t011_qpages(tbl regclass, pv adjkey, op text, v1 text, v2 text, bw boolean, ps int)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE esk jsonb; res text := ''; page text; r record; n int; pages int := 0;
BEGIN
	LOOP
		page := ''; n := 0;
		FOR r IN SELECT * FROM query(tbl, pv, op, v1, v2, bw, ps, esk) LOOP
			page := page || format('%s|%s|%s|%s ', r.partition_key, r.sort_key, r.key, r.item);
			n := n + 1; esk := r.key;
		END LOOP;
		res := res || '[' || page || ']';
		pages := pages + 1;
		EXIT WHEN n < ps OR pages > 300;
	END LOOP;
	RETURN res;
END $$;
SQL
$plain->safe_psql('postgres', $helpers);
$c->coord_sql($helpers);

# ---------------------------------------------------------------------
# Loading: the same rows on both sides, every variant
# ---------------------------------------------------------------------
my $OPTS_WS = q{, write_shards => 4, counters => 4, include => '{data}'};
my %V = (
	ga => { order => 'after',     opts => '',       ws => 0 },
	gb => { order => 'before',    opts => '',       ws => 0 },
	gc => { order => 'after',     opts => $OPTS_WS, ws => 4, counters => 1 },
	gd => { order => 'before',    opts => $OPTS_WS, ws => 4, counters => 1 },
	ge => { order => 'after',     opts => '',       ws => 0 },
	gr => { order => 'reference', opts => '',       ws => 0 },
);
my @VN = sort keys %V;
my $schema = '(pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))';

# the plain server: ordinary (trigger-mode) indexes
$plain->safe_psql('postgres', join('', map {
	"CREATE TABLE $_ $schema;\n" . insert_sql($_, @rows)
	  . "SELECT create_inverted_index('$_'$V{$_}{opts});\n" } @VN));
stamp('plain server loaded');

sub citus_tables
{
	return $c->coord_sql(q{
		SELECT string_agg(logicalrelid::text || ':' || partmethod::text || coalesce(':' || column_to_column_name(logicalrelid, partkey), ''), ', ' ORDER BY logicalrelid::text)
		FROM pg_dist_partition WHERE logicalrelid::text ~ '^g[a-z]($|_)'});
}

# Run a setup step on the coordinator; a failure marks the variant broken.
sub setup_step
{
	my ($v, $what, $sql) = @_;
	return 0 if $V{$v}{broken};
	my ($r, $o, $e) = $c->coord_psql($sql);
	if (!ok($r == 0, "$v ($V{$v}{order}): $what")) { diag "  $sql\n  $e"; $V{$v}{broken} = "$what: $e"; return 0; }
	return 1;
}
sub is_citus_table
{
	my ($rel) = @_;
	return $c->coord_sql("SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = to_regclass('$rel')") eq '1';
}

for my $v (@VN)
{
	my $o = $V{$v};
	my $idx = "${v}_inverted";
	my $deg = "${idx}_degree";
	my $create = "SELECT create_inverted_index('$v', mode => 'api'$o->{opts})";
	$c->coord_sql("CREATE TABLE $v $schema");
	if ($o->{order} eq 'after')
	{
		# half the rows before distributing: Citus copies them to the shards
		# and the coordinator's shell keeps them (stale from then on)
		$c->coord_sql(insert_sql($v, @rows[ 0 .. $half - 1 ]));
		setup_step($v, 'create_distributed_table of the base', "SELECT create_distributed_table('$v', 'pk')");
		setup_step($v, 'load the rest', insert_sql($v, @rows[ $half .. $#rows ]));
		setup_step($v, "create_inverted_index(mode => 'api') on the distributed table", $create);
	}
	elsif ($o->{order} eq 'before')
	{
		$c->coord_sql(insert_sql($v, @rows));
		setup_step($v, "create_inverted_index(mode => 'api') before distributing", $create);
		setup_step($v, 'create_distributed_table of the base (README recipe)',
			"SELECT create_distributed_table('$v', 'pk')");
	}
	else
	{
		setup_step($v, 'create_reference_table', "SELECT create_reference_table('$v')");
		setup_step($v, 'load', insert_sql($v, @rows));
		setup_step($v, "create_inverted_index(mode => 'api') on the reference table", $create);
	}
	next if $o->{broken};
	# the index (and counter) tables of a distributed base must be
	# distributed too, each by its own partition key, so that every lookup
	# is one shard (DESIGN 5).  If adjlist left one local, the README's
	# recipe distributes it by hand; for ga the index is left as adjlist
	# made it, so that both layouts are read.
	if ($o->{order} ne 'reference')
	{
		if ($o->{order} eq 'after')
		{
			ok(is_citus_table($idx),
				"$v: the index of a distributed table is distributed by its partition key (sk)")
			  or diag "  after SELECT create_distributed_table('$v', 'pk'); $create;\n"
			  . "  $idx is a coordinator-local table: every index row lives on the coordinator";
		}
		if (!is_citus_table($idx) && $v ne 'ga')
		{
			setup_step($v, "create_distributed_table('$idx', 'sk')",
				"SELECT create_distributed_table('$idx', 'sk')");
		}
		if ($o->{counters} && !$o->{broken} && !is_citus_table($deg))
		{
			setup_step($v, "create_distributed_table('$deg', 'node')",
				"SELECT create_distributed_table('$deg', 'node')");
		}
	}
}
note 'Citus tables: ' . citus_tables();
stamp('Citus loaded');

# ---------------------------------------------------------------------
# The reads: every graph function
# ---------------------------------------------------------------------
sub rows_of { my ($t) = @_; return $c->coord_sql("SELECT count(*) FROM $t"); }
for my $v (grep { !$V{$_}{broken} } @VN)
{
	is(rows_of($v), scalar(@rows), "$v: the coordinator counts every row of the graph");
}

my $NU = scalar @users;
sub reads
{
	my ($v, $level) = @_;    # level: full, some, after_writes
	my $o = $V{$v};
	my $idx = "${v}_inverted";
	my @q;
	my @ui = $level eq 'full' ? (0, 1, 2, 3, 4, 9, 30, 55, 120, 199) : (0, 1, 4, 9, 77);
	my @us = (map({ $users[$_] } @ui), $NOBODY);
	my @ps = $level eq 'full' ? @posts[ 0, 1, 7, 60, 119 ] : @posts[ 0, 3 ];
	my @ts = $level eq 'full' ? @tags[ 0, 5, 23 ] : ($tags[0]);
	my @gs = $level eq 'full' ? @groups[ 0, 3 ] : ($groups[0]);
	my $u = sub { lit($_[0]) };
	my $k = 0;
	for my $n (@us)
	{
		my $N = $u->($n);
		$k++;
		for my $p ('FOLLOWS#', 'FRIEND#', 'LIKES#')
		{
			push @q, [ 'neighbors', srf("neighbors('$v', $N, '$p')", @$NB) ];
			push @q, [ 'neighbors backward', srf("neighbors('$v', $N, '$p', backward => true)", @$NB) ];
			push @q, [ 'neighbors lim/after pages', "SELECT t011_pages('out', '$v', $N, '$p', 3, false)" ];
			push @q, [ 'neighbors lim/after pages backward', "SELECT t011_pages('out', '$v', $N, '$p', 4, true)" ];
			push @q, [ 'degree out', scalar_q("degree('$v', $N, '$p', 'out')") ];
			next if $p eq 'LIKES#';
			push @q, [ 'reverse_neighbors', srf("reverse_neighbors('$v', $N, '$p')", @$NB) ];
			push @q, [ 'reverse_neighbors backward', srf("reverse_neighbors('$v', $N, '$p', backward => true)", @$NB) ];
			push @q, [ 'reverse_neighbors lim/after pages', "SELECT t011_pages('in', '$v', $N, '$p', 3, false)" ];
			push @q, [ 'reverse_neighbors lim/after pages backward', "SELECT t011_pages('in', '$v', $N, '$p', 5, true)" ];
			push @q, [ 'reverse_neighbors lim', srf("reverse_neighbors('$v', $N, '$p', lim => 2)", @$NB) ];
			push @q, [ 'degree in', scalar_q("degree('$v', $N, '$p', 'in')") ];
		}
		# target_prefix and sk_is_target conventions
		push @q, [ 'neighbors target_prefix', srf("neighbors('$v', $N, 'FAN#', target_prefix => 'USER#')", @$NB) ];
		# an empty edge prefix, and a target no sort key can hold: no value
		# to send to a worker as a key (every row; false)
		push @q, [ 'neighbors empty prefix', srf("neighbors('$v', $N, '')", @$NB) ];
		push @q, [ 'neighbors empty prefix lim', srf("neighbors('$v', $N, '', lim => 3)", @$NB) ];
		push @q, [ 'has_edge target too long', scalar_q("has_edge('$v', $N, ('USER#' || repeat('x', 2043))::adjkey, 'FOLLOWS#')") ];
		push @q, [ 'reverse_neighbors target_prefix', srf("reverse_neighbors('$v', $N, 'FAN#', target_prefix => 'USER#')", @$NB) ];
		push @q, [ 'reverse_neighbors lim/after pages target_prefix', "SELECT t011_pages('in', '$v', $N, 'FAN#', 2, false, 'USER#')" ];
		push @q, [ 'reverse_neighbors sk_is_target', srf("reverse_neighbors('$v', $N, '', sk_is_target => true)", @$NB) ];
		push @q, [ 'reverse_neighbors lim/after pages sk_is_target', "SELECT t011_pages('in', '$v', $N, '', 2, true, '', true)" ];
		push @q, [ 'degree in sk_is_target', scalar_q("degree('$v', $N, '', 'in', sk_is_target => true)") ];
		# traversals
		for my $dir ('out', 'in', 'both')
		{
			push @q, [ "traverse $dir with_path", srf("traverse('$v', $N, 'FOLLOWS#', 3, '$dir', with_path => true)", @$TRV) ];
			push @q, [ "traverse $dir lim", srf("traverse('$v', $N, 'FOLLOWS#', 4, '$dir', lim => 7, with_path => true)", @$TRV) ];
			push @q, [ "reachable_count $dir", scalar_q("reachable_count('$v', $N, 'FOLLOWS#', 3, '$dir')") ];
		}
		push @q, [ 'traverse both FRIEND#', srf("traverse('$v', $N, 'FRIEND#', 2, 'both', with_path => true)", @$TRV) ];
		push @q, [ 'traverse target_prefix', srf("traverse('$v', $N, 'FAN#', 2, 'both', with_path => true, target_prefix => 'USER#')", @$TRV) ];
		push @q, [ 'reachable_count both FRIEND#', scalar_q("reachable_count('$v', $N, 'FRIEND#', 3, 'both')") ];
		# pairs
		my @others = (@{ $out{FOLLOWS}{$n} // [] }[ 0 .. 1 ], $users[ ($k * 37 + 11) % $NU ], $users[0], $NOBODY);
		for my $m (grep { defined && $_ ne $n } @others)
		{
			my $M = $u->($m);
			push @q, [ 'has_edge', scalar_q("has_edge('$v', $N, $M, 'FOLLOWS#')") ];
			push @q, [ 'has_edge reverse pair', scalar_q("has_edge('$v', $M, $N, 'FOLLOWS#')") ];
			for my $dir ('out', 'in', 'both')
			{
				push @q, [ "shortest_path $dir", scalar_q("shortest_path('$v', $N, $M, 'FOLLOWS#', 6, '$dir')") ];
			}
			push @q, [ 'shortest_path FRIEND# max_depth 2', scalar_q("shortest_path('$v', $N, $M, 'FRIEND#', 2)") ];
			for my $dir ('out', 'in')
			{
				push @q, [ "common_neighbors $dir", srf("common_neighbors('$v', $N, $M, 'FOLLOWS#', '$dir')", 'x', q{'%s', x}) ];
			}
			push @q, [ 'common_neighbors FRIEND#', srf("common_neighbors('$v', $N, $M, 'FRIEND#')", 'x', q{'%s', x}) ];
		}
		# ranked walks
		push @q, [ 'people_you_may_know', srf("people_you_may_know('$v', $N)", @$RNK) ];
		push @q, [ 'people_you_may_know FOLLOWS# lim 5', srf("people_you_may_know('$v', $N, 'FOLLOWS#', 5)", @$RNK) ];
		push @q, [ 'also_liked', srf("also_liked('$v', $N)", @$RNK) ];
		push @q, [ 'walk_ranked out,in', srf("walk_ranked('$v', $N, ARRAY['FOLLOWS#', 'FOLLOWS#'], ARRAY['out', 'in'])", @$RNK) ];
		push @q, [ 'walk_ranked in,out,out', srf("walk_ranked('$v', $N, ARRAY['FOLLOWS#', 'FOLLOWS#', 'LIKES#'], ARRAY['in', 'out', 'out'], false, 20)", @$RNK) ];
		# edge filters (data @> filter; NULL data never matches: half the
		# FOLLOWS# edges have a "since", LIKES# a weight "w" and "pub"), and weighted
		# paths over LIKES# (user -> post, so 'both' walks user-post-user)
		my $F = q{edge_filter => '{}'};
		push @q, [ 'neighbors edge_filter', srf("neighbors('$v', $N, 'FOLLOWS#', $F)", @$NB) ];
		push @q, [ 'neighbors edge_filter lim', srf("neighbors('$v', $N, 'LIKES#', lim => 2, edge_filter => '{\"w\": 0.5}')", @$NB) ];
		push @q, [ 'reverse_neighbors edge_filter', srf("reverse_neighbors('$v', $N, 'FOLLOWS#', $F)", @$NB) ];
		push @q, [ 'reverse_neighbors edge_filter lim', srf("reverse_neighbors('$v', $N, 'FOLLOWS#', lim => 2, backward => true, $F)", @$NB) ];
		push @q, [ "degree $_ edge_filter", scalar_q("degree('$v', $N, 'FOLLOWS#', '$_', $F)") ] for 'out', 'in';
		for my $dir ('out', 'in', 'both')
		{
			push @q, [ "traverse $dir edge_filter", srf("traverse('$v', $N, 'FOLLOWS#', 3, '$dir', with_path => true, $F)", @$TRV) ];
		}
		push @q, [ 'reachable_count both edge_filter', scalar_q("reachable_count('$v', $N, 'FOLLOWS#', 4, 'both', $F)") ];
		push @q, [ 'walk_ranked out,in edge_filter', srf("walk_ranked('$v', $N, ARRAY['FOLLOWS#', 'FOLLOWS#'], ARRAY['out', 'in'], edge_filter => '{}')", @$RNK) ];
		push @q, [ 'walk_ranked LIKES# edge_filter', srf("walk_ranked('$v', $N, ARRAY['LIKES#', 'LIKES#'], ARRAY['out', 'in'], edge_filter => '{\"pub\": true}')", @$RNK) ];
		for my $m (grep { $_ ne $n } $users[ ($k * 53 + 5) % $NU ], $users[ ($k * 17 + 3) % $NU ], $users[1])
		{
			my $M = $u->($m);
			push @q, [ 'has_edge edge_filter', scalar_q("has_edge('$v', $N, $M, 'FOLLOWS#', $F)") ];
			push @q, [ "shortest_path $_ edge_filter", scalar_q("shortest_path('$v', $N, $M, 'FOLLOWS#', 6, '$_', $F)") ] for 'out', 'both';
			push @q, [ 'common_neighbors in edge_filter', srf("common_neighbors('$v', $N, $M, 'FOLLOWS#', 'in', $F)", 'x', q{'%s', x}) ];
			push @q, [ 'shortest_path_weighted both', srf("shortest_path_weighted('$v', $N, $M, 'LIKES#', 'w', 'both')", 'path, cost', q{'%s:%s', path, cost}) ];
			push @q, [ 'shortest_path_weighted both max_cost', srf("shortest_path_weighted('$v', $N, $M, 'LIKES#', 'w', 'both', 1.5)", 'path, cost', q{'%s:%s', path, cost}) ];
			push @q, [ 'shortest_path_weighted both edge_filter', srf("shortest_path_weighted('$v', $N, $M, 'LIKES#', 'w', 'both', edge_filter => '{\"pub\": true}')", 'path, cost', q{'%s:%s', path, cost}) ];
		}
		my $PO = lit($out{LIKES}{$n} ? $out{LIKES}{$n}[-1] : $posts[0]);
		my $PB = lit($posts[ $k % 5 ]);
		push @q, [ 'shortest_path_weighted out to a post', srf("shortest_path_weighted('$v', $N, $PO, 'LIKES#', 'w', 'out')", 'path, cost', q{'%s:%s', path, cost}) ];
		push @q, [ 'shortest_path_weighted in from a post', srf("shortest_path_weighted('$v', $PO, $N, 'LIKES#', 'w', 'in')", 'path, cost', q{'%s:%s', path, cost}) ];
		push @q, [ 'shortest_path_weighted both to a post', srf("shortest_path_weighted('$v', $N, $PB, 'LIKES#', 'w', 'both')", 'path, cost', q{'%s:%s', path, cost}) ];
		# pictures
		push @q, [ 'to_dot', scalar_q("to_dot('$v', $N, 'FOLLOWS#')") ];
		push @q, [ 'to_dot depth 2 out', scalar_q("to_dot('$v', $N, 'FRIEND#', 2, 'out')") ];
		push @q, [ 'to_mermaid', scalar_q("to_mermaid('$v', $N, 'FOLLOWS#', 1, 'in')") ];
		push @q, [ 'to_mermaid depth 2', scalar_q("to_mermaid('$v', $N, 'FRIEND#', 2)") ];
		# DynamoDB's Query on the table and on the index
		for my $cond ('', ", 'begins_with', 'FOLLOWS#'", ", 'between', 'FOLLOWS#USER#eu', 'FOLLOWS#USER#us'",
			", '<', 'LIKES#'", ", '>=', 'LIKES#'", ", '=', 'PROFILE'", ", '>', 'FRIEND#USER#eu#u1'")
		{
			push @q, [ 'query', srf("query('$v', $N$cond)", @$QRY) ];
			push @q, [ 'query_count', scalar_q("query_count('$v', $N$cond)") ];
		}
		push @q, [ 'query backward lim', srf("query('$v', $N, backward => true, lim => 5)", @$QRY) ];
		push @q, [ 'query exclusive_start_key pages', "SELECT t011_qpages('$v', $N, NULL, NULL, NULL, false, 4)" ];
		push @q, [ 'query exclusive_start_key pages backward', "SELECT t011_qpages('$v', $N, 'begins_with', 'FOLLOWS#', NULL, true, 3)" ];
		my $P = lit("FOLLOWS#$n");
		push @q, [ 'query on the index', srf("query('$idx', $P)", @$QRY) ];
		push @q, [ 'query on the index begins_with', srf("query('$idx', $P, 'begins_with', 'USER#eu')", @$QRY) ];
		push @q, [ 'query on the index pages backward', "SELECT t011_qpages('$idx', $P, NULL, NULL, NULL, true, 3)" ];
		push @q, [ 'query_count on the index', scalar_q("query_count('$idx', $P)") ];
		if ($o->{counters})
		{
			for my $e ('FOLLOWS', 'FRIEND', 'LIKES')
			{
				push @q, [ "edge_count $_", scalar_q("edge_count('$idx', $N, '$e', '$_')") ] for 'in', 'out';
			}
		}
	}
	for my $p (@ps)
	{
		my $N = $u->($p);
		push @q, [ 'related_items', srf("related_items('$v', $N)", @$RNK) ];
		push @q, [ 'related_items lim 3', srf("related_items('$v', $N, 'TAGGED#', 3)", @$RNK) ];
		push @q, [ 'reverse_neighbors LIKES#', srf("reverse_neighbors('$v', $N, 'LIKES#')", @$NB) ];
		push @q, [ 'reverse_neighbors lim/after pages LIKES#', "SELECT t011_pages('in', '$v', $N, 'LIKES#', 4, false)" ];
		push @q, [ 'degree in LIKES#', scalar_q("degree('$v', $N, 'LIKES#', 'in')") ];
		push @q, [ 'walk_ranked in,out', srf("walk_ranked('$v', $N, ARRAY['LIKES#', 'LIKES#'], ARRAY['in', 'out'], false)", @$RNK) ];
		push @q, [ 'traverse both LIKES#/TAGGED#', srf("traverse('$v', $N, 'TAGGED#', 2, 'both', with_path => true)", @$TRV) ];
		push @q, [ 'to_dot LIKES#', scalar_q("to_dot('$v', $N, 'LIKES#', 1, 'in')") ];
		push @q, [ 'edge_count in', scalar_q("edge_count('$idx', $N, 'LIKES', 'in')") ] if $o->{counters};
	}
	for my $t (@ts)
	{
		my $N = $u->($t);
		push @q, [ 'reverse_neighbors TAGGED#', srf("reverse_neighbors('$v', $N, 'TAGGED#')", @$NB) ];
		push @q, [ 'traverse in TAGGED#', srf("traverse('$v', $N, 'TAGGED#', 3, 'in', with_path => true)", @$TRV) ];
		push @q, [ 'reachable_count in TAGGED#', scalar_q("reachable_count('$v', $N, 'TAGGED#', 3, 'in')") ];
	}
	for my $g (@gs)
	{
		my $N = $u->($g);
		push @q, [ 'neighbors sk_is_target', srf("neighbors('$v', $N, 'USER#', sk_is_target => true)", @$NB) ];
		push @q, [ 'neighbors lim/after pages sk_is_target', "SELECT t011_pages('out', '$v', $N, 'USER#', 2, false, '', true)" ];
		push @q, [ 'degree out sk_is_target', scalar_q("degree('$v', $N, 'USER#', 'out', sk_is_target => true)") ];
		push @q, [ 'traverse sk_is_target', srf("traverse('$v', $N, 'USER#', 2, 'out', with_path => true, sk_is_target => true)", @$TRV) ];
		my $m = $out{MEMBER}{$g}[0];
		push @q, [ 'has_edge sk_is_target', scalar_q("has_edge('$v', $N, " . lit($m) . ", 'USER#', sk_is_target => true)") ];
		push @q, [ 'common_neighbors sk_is_target', srf("common_neighbors('$v', $N, " . lit($groups[1]) . ", 'USER#', sk_is_target => true)", 'x', q{'%s', x}) ];
		push @q, [ 'neighbors sk_is_target edge_filter', srf("neighbors('$v', $N, 'USER#', sk_is_target => true, edge_filter => '{\"role\": \"admin\"}')", @$NB) ];
		push @q, [ 'reverse_neighbors sk_is_target edge_filter', srf("reverse_neighbors('$v', " . lit($admins[ $k++ % @admins ]) . ", '', sk_is_target => true, edge_filter => '{\"role\": \"admin\"}')", @$NB) ];
	}
	return \@q;
}

for my $v (@VN)
{
	SKIP:
	{
		skip "$v: setup failed ($V{$v}{broken})", 1 if $V{$v}{broken};
		my $level = $v eq 'gc' ? 'full' : 'some';
		my $qs = reads($v, $level);
		my ($exp) = compare("$v reads", $qs);
		# the filtered and weighted reads answer something, not only
		# empty sets or errors (both servers could agree on those)
		my (%some, %err);
		for my $i (grep { $qs->[$_][0] =~ /edge_filter|weighted/ } 0 .. $#$qs)
		{
			my $g = $qs->[$i][0];
			$some{$g} //= 0;
			$some{$g}++ if $exp->[$i] !~ /^(<empty>|<null>|f|0|)$/;
			$err{$g} = $exp->[$i] if $exp->[$i] =~ /^ERROR/;
		}
		ok(!%err && !grep({ !$some{$_} } keys %some),
			"$v: the filtered and weighted reads answer (" . scalar(keys %some) . ' groups)')
		  or diag '  errors: ' . join('; ', map { "$_: $err{$_}" } sort keys %err)
		  . '; nothing but empty answers: ' . join(', ', grep { !$some{$_} } sort keys %some);
		stamp("$v: " . scalar(@$qs) . " reads compared");
	}
}

# ---------------------------------------------------------------------
# verify: clean on both sides before anything is changed
# ---------------------------------------------------------------------
sub verify_q
{
	my ($idx) = @_;
	return "SELECT coalesce(string_agg(problem || ' ' || key::text || ' ' || coalesce(expected::text, '-') || ' ' || coalesce(actual::text, '-'), ' ; ' ORDER BY problem, key::text, expected::text, actual::text), '<clean>') FROM verify_inverted_index('$idx')";
}
for my $v (grep { !$V{$_}{broken} } @VN)
{
	my $r = run_batch($coord, [ verify_q("${v}_inverted") ]);
	is($r->[0], '<clean>', "$v: verify_inverted_index is clean after loading")
	  or diag "  " . verify_q("${v}_inverted") . "\n    citus: " . substr($r->[0], 0, 400);
}

# ---------------------------------------------------------------------
# Writes through the API, the same on both sides; then the tables
# ---------------------------------------------------------------------
sub json_str
{
	my ($s) = @_;
	$s =~ s/(["\\])/\\$1/g;
	return qq{"$s"};
}
my @follows = map { [ $_, $out{FOLLOWS}{$_} ] } grep { $out{FOLLOWS}{$_} } @users;
my ($e1src, $e1dst) = ($follows[3][0], $follows[3][1][0]);
my @batch;
for my $i (0 .. 79)
{
	push @batch, [ "USER#us#new$i", 'FOLLOWS#' . $users[ skew($NU, 2) ], $i % 3 ? undef : qq({"b": $i}) ];
}
for my $i (0 .. 19)    # replacements of existing rows
{
	my $f = $follows[ 10 + $i ];
	push @batch, [ $f->[0], "FOLLOWS#$f->[1][0]", qq({"replaced": $i}) ];
}
push @batch, [ 'USER#us#new1', 'LIKES#POST#p1', '{"w": 1}' ], [ 'USER#us#new1', 'LIKES#POST#p1', '{"w": 2}' ];
my $edges_json = '[' . join(', ', map {
	'{"pk": ' . json_str($_->[0]) . ', "sk": ' . json_str($_->[1])
	  . (defined $_->[2] ? ", \"data\": $_->[2]" : '') . '}' } @batch) . ']';

sub writes
{
	my ($v) = @_;
	my $hub = $users[2];
	return [
		[ 'put_edge new', "SELECT put_edge('$v', 'USER#eu#newbie', 'FOLLOWS#USER#eu#u0', '{\"since\": 2025}')" ],
		[ 'put_edge new multibyte', "SELECT put_edge('$v', " . lit("USER#ap#\xc3\xa9t\xc3\xa9") . ", " . lit("FOLLOWS#$users[9]") . ")" ],
		[ 'put_edge replace', "SELECT put_edge('$v', " . lit($e1src) . ', ' . lit("FOLLOWS#$e1dst") . ", '{\"replaced\": true}')" ],
		[ 'put_edge replace with NULL', "SELECT put_edge('$v', " . lit($follows[4][0]) . ', ' . lit("FOLLOWS#$follows[4][1][0]") . ")" ],
		[ 'put_edge node item', "SELECT put_edge('$v', 'USER#eu#newbie', 'PROFILE', '{\"name\": \"new\"}')" ],
		[ 'put_edges', "SELECT put_edges('$v', " . lit($edges_json) . ')' ],
		[ 'put_edges empty', "SELECT put_edges('$v', '[]')" ],
		[ 'delete_edge existing', "SELECT delete_edge('$v', " . lit($follows[5][0]) . ', ' . lit("FOLLOWS#$follows[5][1][0]") . ')' ],
		[ 'delete_edge missing', "SELECT delete_edge('$v', 'USER#eu#nobody', 'FOLLOWS#USER#eu#u0')" ],
		[ 'delete_edge just put', "SELECT delete_edge('$v', 'USER#us#new3', " . lit($batch[3][1]) . ')' ],
		[ 'delete_node hub', "SELECT delete_node('$v', " . lit($hub) . ", ARRAY['FOLLOWS#', 'FRIEND#'])" ],
		[ 'delete_node post', "SELECT delete_node('$v', 'POST#p0', ARRAY['LIKES#', 'AUTHORED#'])" ],
		[ 'delete_node group member (sk is target)', "SELECT delete_node('$v', " . lit($users[5]) . ", ARRAY[''])" ],
		[ 'delete_node missing', "SELECT delete_node('$v', 'USER#eu#nobody', ARRAY['FOLLOWS#'])" ],
		[ 'delete_node no prefixes', "SELECT delete_node('$v', 'USER#eu#newbie')" ],
	];
}

# every row of a table, one line each, in key order
sub dump_q
{
	my ($t) = @_;
	return "SELECT coalesce(string_agg(r::text, E'\\n' ORDER BY r::text COLLATE \"C\"), '<empty>') FROM $t r";
}
sub counts_q
{
	my ($d) = @_;
	return "SELECT coalesce(string_agg(format('%s %s %s %s', node, edge, direction, s), E'\\n' ORDER BY node, edge, direction), '<empty>') FROM (SELECT node, edge, direction, sum(n) s FROM $d GROUP BY 1, 2, 3 HAVING sum(n) <> 0) x";
}
sub compare_tables
{
	my ($label, $v, $setdiff) = @_;
	my @t = ($v, "${v}_inverted");
	push @t, "${v}_inverted_degree" if $V{$v}{counters};
	for my $t (@t)
	{
		my $q = $t =~ /_degree$/ ? counts_q($t) : dump_q($t);
		my $e = run_batch($plain, [$q])->[0];
		my $g = run_batch($coord, [$q])->[0];
		next if ok($e eq $g, "$label: $t has the same rows as on the plain server"
			. ($t =~ /_degree$/ ? ' (summed counters)' : ''));
		my %e = map { $_ => 1 } split /\n/, $e;
		my %g = map { $_ => 1 } split /\n/, $g;
		my @miss = grep { !$g{$_} } sort keys %e;
		my @extra = grep { !$e{$_} } sort keys %g;
		diag "  $q\n    only on the plain server (" . scalar(@miss) . "): "
		  . join(' ; ', @miss[ 0 .. ($#miss < 4 ? $#miss : 4) ])
		  . "\n    only on Citus (" . scalar(@extra) . "): "
		  . join(' ; ', @extra[ 0 .. ($#extra < 4 ? $#extra : 4) ]);
	}
}

for my $v (grep { !$V{$_}{broken} } @VN)
{
	compare("$v writes", writes($v));
	compare_tables("$v after the writes", $v);
	my $r = run_batch($coord, [ verify_q("${v}_inverted") ]);
	is($r->[0], '<clean>', "$v: verify_inverted_index is clean after the writes")
	  or diag '    citus: ' . substr($r->[0], 0, 400);
	compare("$v reads after the writes", reads($v, 'after_writes'))
	  if $v eq 'ga' || $v eq 'gd' || $v eq 'gr';
	stamp("$v: writes compared");
}

# ---------------------------------------------------------------------
# Drift, verify, rebuild; the same drift on the plain server, made behind
# the triggers' back (session_replication_role = replica), and on Citus in
# the same mode, where plain writes of a table the write API keeps are
# otherwise refused
# ---------------------------------------------------------------------
sub drift
{
	my ($v) = @_;
	my $o = $V{$v};
	my $idx = "${v}_inverted";
	my $ws = $o->{ws};
	my @d = (
		# missing index rows: one partition lost
		"DELETE FROM $idx WHERE sk = ANY (write_shard_keys(" . lit("FOLLOWS#$users[0]") . ", $ws))",
		# extra index rows
		"INSERT INTO $idx (sk, pk) VALUES (write_shard_key('FOLLOWS#USER#eu#u3', 'USER#eu#ghost', $ws), 'USER#eu#ghost')",
		"INSERT INTO $idx (sk, pk) VALUES (write_shard_key('LIKES#POST#p5', 'USER#us#ghost', $ws), 'USER#us#ghost')",
		# base rows changed behind the API: deleted (the index keeps them)
		# and inserted (the index misses them)
		"DELETE FROM $v WHERE pk = " . lit($users[6]) . " AND sk ^@ 'LIKES#'",
		"INSERT INTO $v VALUES ('USER#eu#sneaky', 'FOLLOWS#USER#eu#u0', NULL), ('USER#us#sneaky', 'FRIEND#USER#eu#u7', '{\"x\": 1}')",
		# data changed behind the API (stale when the index projects it)
		"UPDATE $v SET data = '{\"drift\": 1}' WHERE pk = " . lit($users[7]) . " AND sk ^@ 'FOLLOWS#'",
	);
	push @d, "INSERT INTO ${idx}_degree (node, edge, direction, n) VALUES ('USER#eu#u3', 'FOLLOWS', 'i', 5)"
	  if $o->{counters};
	return @d;
}

for my $v (grep { !$V{$_}{broken} } qw(ga gc gd ge gr))
{
	my $idx = "${v}_inverted";
	my @d = drift($v);
	my $pe = run_batch($plain, [@d], 'SET session_replication_role = replica;');
	my $ce = run_batch($coord, [@d], 'SET session_replication_role = replica;');
	my @perr = grep { /^ERROR/ } @$pe;
	my @cerr = grep { /^ERROR/ } @$ce;
	ok(!@cerr, "$v: drift made directly on the Citus tables") or diag join("\n", @cerr);
	diag join("\n", @perr) if @perr;
	compare("$v drift", [
		[ 'verify_inverted_index reports the drift', verify_q($idx) ],
		[ 'rebuild_inverted_index repairs it', "SELECT rebuild_inverted_index('$idx')" ],
		[ 'verify_inverted_index after the rebuild', verify_q($idx) ],
		[ 'rebuild_inverted_index again', "SELECT rebuild_inverted_index('$idx')" ],
	]);
	my $r = run_batch($coord, [ verify_q($idx) ]);
	is($r->[0], '<clean>', "$v: verify_inverted_index is clean after rebuild_inverted_index")
	  or diag '    citus: ' . substr($r->[0], 0, 400);
	compare_tables("$v after drift and rebuild", $v);
	stamp("$v: drift compared");
}

# ---------------------------------------------------------------------
# Router writes and reads: how many shards one call touches
# (citus.log_remote_commands lists every command sent to a worker)
# ---------------------------------------------------------------------
sub shards_touched
{
	my ($sql) = @_;
	my ($r, $o, $e) = $c->coord_psql(
		"SET citus.log_remote_commands TO on; SET client_min_messages TO log; $sql");
	my %t;
	while ($e =~ /\b(g[a-z](?:_inverted(?:_degree)?)?)_(\d{6,})\b/g) { $t{$1}{$2} = 1; }
	return ($r, $e, { map { $_ => scalar keys %{ $t{$_} } } keys %t });
}
for my $v (grep { !$V{$_}{broken} } qw(gc gd ge))
{
	my $idx = "${v}_inverted";
	my ($r, $e, $n) = shards_touched("SELECT put_edge('$v', 'USER#eu#router1', 'FOLLOWS#USER#eu#u0', '{\"r\": 1}')");
	is($r, 0, "$v: put_edge (router check) works") or diag $e;
	ok(($n->{$v} // 0) <= 1 && ($n->{$idx} // 0) <= 1,
		"$v: put_edge sends commands to one base shard and one index shard")
	  or diag '  shards touched: ' . join(', ', map { "$_ $n->{$_}" } sort keys %$n);
	($r, $e, $n) = shards_touched("SELECT delete_edge('$v', 'USER#eu#router1', 'FOLLOWS#USER#eu#u0')");
	ok(($n->{$v} // 0) <= 1 && ($n->{$idx} // 0) <= 1,
		"$v: delete_edge sends commands to one base shard and one index shard")
	  or diag '  shards touched: ' . join(', ', map { "$_ $n->{$_}" } sort keys %$n);
	($r, $e, $n) = shards_touched("SELECT count(*) FROM neighbors('$v', 'USER#eu#u0', 'FRIEND#')");
	ok(($n->{$v} // 0) == 1 && !$n->{$idx}, "$v: neighbors reads one base shard")
	  or diag '  shards touched: ' . join(', ', map { "$_ $n->{$_}" } sort keys %$n);
	($r, $e, $n) = shards_touched("SELECT count(*) FROM reverse_neighbors('$v', 'USER#eu#u0', 'FOLLOWS#')");
	my $most = $V{$v}{ws} || 1;
	ok(!$n->{$v} && ($n->{$idx} // 0) >= 1 && ($n->{$idx} // 0) <= $most,
		"$v: reverse_neighbors reads only the index shards of its $most (sub-)partition(s)")
	  or diag '  shards touched: ' . join(', ', map { "$_ $n->{$_}" } sort keys %$n);
}

# ---------------------------------------------------------------------
# Faults: worker 1 stopped at write time
# ---------------------------------------------------------------------
# on the first variant with a distributed index, and on ga (index on the
# coordinator)
my ($fdist) = grep { !$V{$_}{broken} && is_citus_table("${_}_inverted") } qw(gc gd gb ge);
my @fault_on = grep { defined } ($fdist, $V{ga}{broken} ? undef : 'ga');
ok(@fault_on, 'a Citus variant is set up for the fault tests') or note 'no fault tests';
# the rows of two dumps that differ (for diag)
sub dump_diff
{
	my ($x, $y) = @_;
	my %x = map { $_ => 1 } split /\n/, $x;
	my %y = map { $_ => 1 } split /\n/, $y;
	my @gone = grep { !$y{$_} } sort keys %x;
	my @new = grep { !$x{$_} } sort keys %y;
	return '    gone (' . scalar(@gone) . '): ' . join(' ; ', @gone[ 0 .. ($#gone < 4 ? $#gone : 4) ])
	  . "\n    new (" . scalar(@new) . '): ' . join(' ; ', @new[ 0 .. ($#new < 4 ? $#new : 4) ]);
}

for my $fv (@fault_on)
{
	my $idx = "${fv}_inverted";
	my $deg = "${idx}_degree";
	my $ws = $V{$fv}{ws};
	my $dist_idx = is_citus_table($idx);
	my $dist_deg = $V{$fv}{counters} && is_citus_table($deg);
	note "fault tests on $fv (index " . ($dist_idx ? 'distributed' : 'on the coordinator') . ')';
	# the port of the worker holding the shard of a key
	my $port = sub {
		my ($t, $key) = @_;
		return "(SELECT p.nodeport FROM pg_dist_shard_placement p WHERE p.shardid = get_shard_id_for_distribution_column('$t', ($key)::adjkey))";
	};
	my ($w0, $w1) = @wport;
	my $tgt = 'FOLLOWS#USER#eu#u0';
	my $tgt0 = $tgt;
	if ($dist_idx && !$ws)
	{
		# without write shards every index row of a target is on one worker:
		# a target whose index rows are on w1, and one whose are on w0
		my $pick = sub {
			return 'FOLLOWS#' . $c->coord_sql("SELECT 'USER#eu#u' || j FROM generate_series(0, 500) j WHERE "
				  . $port->($idx, q{('FOLLOWS#USER#eu#u' || j)}) . " = $_[0] LIMIT 1");
		};
		$tgt = $pick->($w1);
		$tgt0 = $pick->($w0);
	}
	my $cand = q{('USER#eu#f' || i)::adjkey};
	# a new source key whose base row is on $base and, when the index is
	# distributed, whose index row (of an edge to $target) is on $index
	# (undef: anywhere)
	my $find = sub {
		my ($base, $index, $target) = @_;
		my $w = $port->($fv, $cand) . " = $base";
		$w .= ' AND ' . $port->($idx, "write_shard_key('$target', $cand, $ws)") . " = $index"
		  if $dist_idx && defined $index;
		return $c->coord_sql("SELECT $cand FROM generate_series(1, 2000) i WHERE $w LIMIT 1");
	};
	my $k_split = $dist_idx ? $find->($w0, $w1, $tgt) : '';    # base on w0, index row on w1
	my $k_w1 = $find->($w1, undef, $tgt);                        # base on w1
	my $k_w0 = $find->($w0, $w0, $tgt0);                         # base and index row on w0
	# an existing edge that needs w1: base on w0 and index row on w1, or
	# (index on the coordinator) base on w1
	my $exist = $c->coord_sql(
		"SELECT pk || ' ' || sk FROM $fv WHERE sk ^@ 'FOLLOWS#' AND "
		  . ($dist_idx
			? $port->($fv, 'pk') . " = $w0 AND " . $port->($idx, "write_shard_key(sk, pk, $ws)") . " = $w1"
			: $port->($fv, 'pk') . " = $w1")
		  . ' ORDER BY pk, sk LIMIT 1');
	my ($x_pk, $x_sk) = split / /, $exist, 2;
	# a node whose items are on w0 and which has followers on w1
	my $node = $c->coord_sql("SELECT key_tail(sk, 1) FROM $fv WHERE sk ^@ 'FOLLOWS#' AND "
		  . $port->($fv, 'pk') . " = $w1 AND " . $port->($fv, 'key_tail(sk, 1)') . " = $w0"
		  . " AND key_tail(sk, 1) <> " . lit($x_pk) . ' ORDER BY 1 LIMIT 1');
	note "keys: split '$k_split', on w1 '$k_w1', on w0 '$k_w0', existing edge $x_pk -> $x_sk, node $node";
	ok($k_w1 ne '' && $k_w0 ne '' && $x_pk ne '' && $node ne '' && (!$dist_idx || $k_split ne ''),
		"$fv: keys with the wanted shard placements found");
	my $node_q = "SELECT count(*) FROM $fv WHERE pk = " . lit($node) . ' OR sk = ' . lit("FOLLOWS#$node");
	my $node_rows = $c->coord_sql($node_q);
	my @dumps = (dump_q($fv), dump_q($idx));
	push @dumps, counts_q($deg) if $V{$fv}{counters};
	my $before = run_batch($coord, \@dumps);

	$c->stop_worker(1);
	my @must_fail = (
		[ 'put_edge, base row on the stopped worker', "SELECT put_edge('$fv', '$k_w1', '$tgt')" ],
		[ 'put_edges, one edge on the live worker, one on the stopped one',
			"SELECT put_edges('$fv', '[{\"pk\": \"$k_w0\", \"sk\": \"$tgt\"}, {\"pk\": \"$k_w1\", \"sk\": \"$tgt\"}]')" ],
		[ 'delete_edge of an edge with a row on the stopped worker',
			"SELECT delete_edge('$fv', " . lit($x_pk) . ', ' . lit($x_sk) . ')' ],
		[ 'delete_node of a node with followers on the stopped worker',
			"SELECT delete_node('$fv', " . lit($node) . ", ARRAY['FOLLOWS#'])" ],
	);
	unshift @must_fail, [ 'put_edge, base row on the live worker, index row on the stopped one',
		"SELECT put_edge('$fv', '$k_split', '$tgt', '{\"f\": 1}')" ]
	  if $dist_idx;
	for my $f (@must_fail)
	{
		my ($r, $o, $e) = $c->coord_psql($f->[1]);
		isnt($r, 0, "$fv, worker down: $f->[0] fails") or diag "  $f->[1]";
		like($e, qr/ERROR:.*(connect|connection|remote|node|worker|127\.0\.0\.1|$w1)/i,
			"$fv, worker down: $f->[0]: the error names the node") or diag "  $f->[1]\n  $e";
		note "  $f->[0]: $e";
	}
	# a write that needs only worker 0 goes on (router writes): its base
	# row, its index row and (with counters) the counter rows of both ends
	# on w0, or on the coordinator
	my ($alive_pk, $alive_sk) = ($k_w0, $tgt0);
	if ($dist_deg)
	{
		my $t0 = $c->coord_sql("SELECT 'USER#eu#t' || j FROM generate_series(1, 500) j WHERE "
			  . $port->($deg, q{'USER#eu#t' || j}) . " = $w0 LIMIT 1");
		$alive_sk = "FOLLOWS#$t0";
		$alive_pk = $c->coord_sql("SELECT $cand FROM generate_series(1, 3000) i WHERE "
			  . $port->($fv, $cand) . " = $w0 AND " . $port->($deg, $cand) . " = $w0"
			  . ($dist_idx ? ' AND ' . $port->($idx, "write_shard_key('$alive_sk', $cand, $ws)") . " = $w0" : '')
			  . ' LIMIT 1');
	}
	my $alive = "SELECT put_edge('$fv', '$alive_pk', '$alive_sk', '{\"alive\": 1}')";
	($ret, $out, $err) = $c->coord_psql($alive);
	is($ret, 0, "$fv, worker down: put_edge whose rows are all on the live worker succeeds (router writes)")
	  or diag "  $alive\n  $err";
	my $undo = "SELECT delete_edge('$fv', '$alive_pk', '$alive_sk')";
	($ret, $out, $err) = $c->coord_psql($undo);
	is($ret, 0, "$fv, worker down: delete_edge of that edge succeeds (router writes)")
	  or diag "  $undo\n  $err";
	$c->start_worker(1);
	$c->coord_sql('SELECT recover_prepared_transactions()');
	$c->coord_psql($undo);    # in case it failed above
	my $after = run_batch($coord, \@dumps);
	for my $i (0 .. $#dumps)
	{
		is($after->[$i], $before->[$i], "$fv, worker back: nothing of the failed writes is in "
			  . ('the base', 'the index', 'the counters')[$i])
		  or diag "  $dumps[$i]\n" . dump_diff($before->[$i], $after->[$i]);
	}
	is($c->coord_sql($node_q), $node_rows, "$fv, worker back: the node whose delete failed is whole");
	is(run_batch($coord, [ verify_q($idx) ])->[0], '<clean>',
		"$fv, worker back: verify_inverted_index('$idx') is clean");
	is(join(',', map { $c->worker_sql($_, 'SELECT count(*) FROM pg_prepared_xacts') } 0, 1),
		'0,0', "$fv, worker back: no prepared transaction left on the workers");
	my $k = $dist_idx ? $k_split : $k_w1;
	($ret, $out, $err) = $c->coord_psql("SELECT put_edge('$fv', '$k', '$tgt', '{\"f\": 2}')");
	is($ret, 0, "$fv, worker back: the failed put_edge now succeeds") or diag $err;
	is($c->coord_sql("SELECT count(*) FROM $fv WHERE pk = '$k' AND sk = '$tgt'") . ','
		  . $c->coord_sql("SELECT count(*) FROM $idx WHERE sk = write_shard_key('$tgt', '$k', $ws) AND pk = '$k'"),
		'1,1', "$fv, worker back: its base row and index row are both there");
	is(run_batch($coord, [ verify_q($idx) ])->[0], '<clean>', "$fv, worker back: verify clean after the retry");
	stamp("$fv: faults done");
}

# ---------------------------------------------------------------------
# drop_inverted_index
# ---------------------------------------------------------------------
for my $v (grep { !$V{$_}{broken} } qw(ga gc gd))
{
	my $idx = "${v}_inverted";
	my $rows_before = rows_of($v);
	compare("$v drop", [
		[ 'drop_inverted_index', "SELECT drop_inverted_index('$idx')" ],
		[ 'the index table is gone', "SELECT to_regclass('$idx') IS NULL AND to_regclass('${idx}_degree') IS NULL" ],
		[ 'the registration is gone', "SELECT count(*) FROM adjlist_inverted_indexes WHERE baserel = '$v'::regclass" ],
		[ 'reverse_neighbors without an index', srf("reverse_neighbors('$v', 'USER#eu#u0', 'FOLLOWS#')", @$NB) ],
		[ 'neighbors still work', srf("neighbors('$v', 'USER#eu#u0', 'FRIEND#')", @$NB) ],
	]);
	my @left = map {
		$c->worker_sql($_, "SET citus.override_table_visibility TO off; SELECT count(*) FROM pg_class WHERE relname ~ '^${idx}'")
	} 0, 1;
	is(join(',', @left), '0,0', "$v: no shard of $idx is left on the workers");
	is(rows_of($v), $rows_before, "$v: drop_inverted_index leaves the base whole");
	is($c->coord_sql("SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text ~ '^${idx}'"),
		'0', "$v: Citus's metadata has no table of $idx left");
}

stamp('done');
$c->stop;
$plain->stop;
done_testing();

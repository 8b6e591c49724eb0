#!/bin/bash
# Benchmark (not a test): adjlist on a Citus cluster, against the SQL a user
# would write on the same distributed tables, and against one plain server;
# measured side by side in one run, in interleaved rounds, medians.
#
#   bash test/bench/citus.sh                       # prints markdown tables
#   BENCH_OUT=/tmp/citus.md bash test/bench/citus.sh   # ... and writes them there
#
# Uses the adjlist and the Citus installed in the server of PG_CONFIG
# (default Debian's PostgreSQL $PGVER; make install, bash test/vendor.sh
# citus): builds and installs nothing.  Starts its own loopback cluster on
# this machine: a coordinator (port $PORT, default 56100) and two workers
# ($PORT+1, $PORT+2), and a plain server ($PORT+3), all stopped and
# removed on exit (KEEP=1 leaves them running), under
# $ADJLIST_TMP/citus_bench_*.  Tables (citus/setup.sql), the same on both
# sides: g, a graph of USERS users following DEGREE random others each
# (COPY, then create_inverted_index(mode => 'api', counters => 1), on
# Citus after create_distributed_table, SHARDS shards, Citus's default
# 32); w and b, empty, with API-mode indexes; on Citus x, without one.
# About 2.5 minutes with the defaults on a 2-core machine.
#
# Measured, in ROUNDS rounds, each variant once a round, in turn:
#  - put_edge (WRITES calls, pgbench -M prepared, one client, per-call
#    latency) vs the same two INSERTs (base row, index row, each ON
#    CONFLICT as put_edge) by hand: BEGIN; INSERT; INSERT; COMMIT from the
#    client, and the same in one PL/pgSQL call; and put_edge on the plain
#    server.  Where the time goes: the statement put_edge writes the base
#    row with, run alone on x, vs INSERT ... VALUES.
#  - put_edges of BULK edges (read with pg_read_file) vs COPY of the same
#    rows into the base and the index table in one transaction (psql
#    \timing, b emptied before each load; each load's rows checked equal).
#  - neighbors vs SELECT ... WHERE pk = $1 AND sk ^@ 'FOLLOWS#' ORDER BY sk;
#    reverse_neighbors; 3-hop reachable_count vs a PL/pgSQL level-by-level
#    BFS (one pk = ANY(frontier) statement per level), and in sessions
#    with citus.max_cached_conns_per_worker = 16; each on Citus and on the
#    plain server (READS, HOPS calls).
# Before the rounds: the answers of both sides are compared on a sample of
# start nodes (the run stops if they differ); the remote commands Citus
# sends for each write (citus.log_remote_commands) are counted, and for
# reachable_count at depth 1, 2, 3 from several starts, the statements
# adjlist runs (pg_stat_statements, track = all) and the tasks Citus sends
# to the workers.
source "$(dirname "$0")/../lib/common.sh"

ROUNDS=${ROUNDS:-5}
USERS=${USERS:-5000}
DEGREE=${DEGREE:-10}
BULK=${BULK:-20000}
SHARDS=${SHARDS:-32}
WRITES=${WRITES:-150}
READS=${READS:-300}
HOPS=${HOPS:-20}
PORT=${PORT:-56100}
DIR="$REPO/test/bench/citus"
WORK=$(mktemp -d /tmp/adjlist-citus-bench.XXXXXX)
chmod 755 "$WORK"
start_time=$(date +%s)

NODES=(citus_bench_coord citus_bench_w1 citus_bench_w2 citus_bench_plain)
declare -A NPORT=([citus_bench_coord]=$PORT [citus_bench_w1]=$((PORT + 1))
	[citus_bench_w2]=$((PORT + 2)) [citus_bench_plain]=$((PORT + 3)))
C=citus_bench_coord
P=citus_bench_plain

cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then
		echo "citus.sh: KEEP=1: the servers are left running (ports $PORT-$((PORT + 3)), data under $ADJLIST_TMP/citus_bench_*), files in $WORK" >&2
		return
	fi
	for n in "${NODES[@]}"; do
		cluster_stop "$n"
		rm -rf "$(cluster_dir "$n")"
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
[ -f "$pkglibdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ] || {
	echo "citus.sh: Citus is not installed in $pkglibdir (bash test/vendor.sh citus); nothing measured" >&2
	exit 2
}
[ -f "$sharedir/extension/adjlist.control" ] || {
	echo "citus.sh: adjlist is not installed in $sharedir (make install); nothing measured" >&2
	exit 2
}

# psql on a node: q NODE [psql args]; qa: unaligned, tuples only
q() {
	local node=$1
	shift
	"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(cluster_dir "$node")/sock" -p "${NPORT[$node]}" \
		-U postgres -d postgres "$@"
}
qa() { q "$@" -A -t; }

# ---------------------------------------------------------------------
# The servers
# ---------------------------------------------------------------------
for n in "${NODES[@]}"; do
	preload=citus,pg_stat_statements
	[ "$n" = "$P" ] && preload=pg_stat_statements
	cluster_start "$n" "${NPORT[$n]}"
	cat >>"$(cluster_dir "$n")/data/postgresql.conf" <<CONF
shared_preload_libraries = '$preload'
max_prepared_transactions = 100
max_connections = 200
shared_buffers = 128MB
CONF
	as_postgres "$PGBIN/pg_ctl" -D "$(cluster_dir "$n")/data" -l "$(cluster_dir "$n")/server.log" \
		-w restart >/dev/null
done
for n in "$C" citus_bench_w1 citus_bench_w2; do q "$n" -c 'CREATE EXTENSION citus'; done
q "$C" -c "SELECT citus_set_coordinator_host('127.0.0.1', $PORT)" \
	-c "SELECT citus_add_node('127.0.0.1', $((PORT + 1)))" \
	-c "SELECT citus_add_node('127.0.0.1', $((PORT + 2)))" >/dev/null
for n in "$C" "$P"; do q "$n" -c 'CREATE EXTENSION adjlist' -c 'CREATE EXTENSION pg_stat_statements'; done
citus_version=$(qa "$C" -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'")
pg_version=$(qa "$C" -c 'SHOW server_version')
log "Citus $citus_version on PostgreSQL $pg_version: a coordinator and 2 workers on ports $PORT-$((PORT + 2)), a plain server on $((PORT + 3))"

# ---------------------------------------------------------------------
# The data: the graph, and the bulk load (as JSON for put_edges, as the
# base table's and the index table's rows for COPY)
# ---------------------------------------------------------------------
awk -v n="$USERS" -v d="$DEGREE" 'BEGIN {
	s = 20250611	# Park-Miller: every product stays exact in a double
	for (i = 0; i < n; i++) {
		delete seen
		for (j = 0; j < d; j++) {
			do { s = (s * 16807) % 2147483647; t = int(s / 2147483647 * n) } while (t == i || (t in seen))
			seen[t] = 1
			printf "USER#%d\tFOLLOWS#USER#%d\t{\"w\": %d}\n", i, t, j
		}
	}
}' >"$WORK/g.tsv"
awk -v n="$BULK" -v dir="$WORK" 'BEGIN {
	printf "[" >(dir "/bulk.json")
	for (i = 0; i < n; i++) {
		pk = "USER#b" (i % 4000); sk = "FOLLOWS#USER#" i
		printf "%s{\"pk\": \"%s\", \"sk\": \"%s\", \"data\": {\"i\": %d}}", (i ? ", " : ""), pk, sk, i >(dir "/bulk.json")
		printf "%s\t%s\t{\"i\": %d}\n", pk, sk, i >(dir "/bulk_base.tsv")
		printf "%s\t%s\n", sk, pk >(dir "/bulk_index.tsv")
	}
	print "]" >(dir "/bulk.json")
}'
chmod 644 "$WORK"/*

log "loading $((USERS * DEGREE)) edges, on Citus ($SHARDS shards a table) and on the plain server"
q "$C" -v citus=on -v shards="$SHARDS" -v gfile="$WORK/g.tsv" -f "$DIR/setup.sql" >/dev/null 2>"$WORK/setup.err" ||
	{ cat "$WORK/setup.err" >&2; exit 1; }
q "$P" -v citus=off -v shards="$SHARDS" -v gfile="$WORK/g.tsv" -f "$DIR/setup.sql" >/dev/null
dist=$(qa "$C" -c "SELECT string_agg(logicalrelid::text, ' ' ORDER BY logicalrelid::text) FROM pg_dist_partition")
[ "$dist" = "b b_inverted g g_inverted g_inverted_degree w w_inverted x" ] ||
	{ echo "citus.sh: unexpected distributed tables: $dist" >&2; exit 1; }
for t in g_inverted; do
	bad=$(qa "$C" -c "SELECT count(*) FROM verify_inverted_index('$t')")
	[ "$bad" = 0 ] || { echo "citus.sh: verify_inverted_index('$t') reports $bad rows after loading" >&2; exit 1; }
done

# ---------------------------------------------------------------------
# Both sides give the same answers (before anything is timed)
# ---------------------------------------------------------------------
log "comparing answers"
: >"$WORK/nb.sql"; : >"$WORK/nbsql.sql"; : >"$WORK/rnb.sql"; : >"$WORK/reach.sql"; : >"$WORK/reachsql.sql"
for u in $(seq 0 $((USERS / 40)) $((USERS - 1))); do
	echo "SELECT neighbor, pk, sk, data FROM neighbors('g', 'USER#$u', 'FOLLOWS#');" >>"$WORK/nb.sql"
	echo "SELECT key_tail(sk, 1), pk, sk, data FROM g WHERE pk = 'USER#$u' AND sk ^@ 'FOLLOWS#' ORDER BY sk;" >>"$WORK/nbsql.sql"
	echo "SELECT neighbor, pk, sk, data FROM reverse_neighbors('g', 'USER#$u', 'FOLLOWS#');" >>"$WORK/rnb.sql"
	echo "SELECT reachable_count('g', 'USER#$u', 'FOLLOWS#', 3);" >>"$WORK/reach.sql"
	echo "SELECT sql_reach('USER#$u', 3);" >>"$WORK/reachsql.sql"
done
same() {	# same WHAT FILE1 FILE2
	cmp -s "$2" "$3" || { echo "citus.sh: $1 differ:" >&2; diff "$2" "$3" | head -20 >&2; exit 1; }
}
qa "$C" -f "$WORK/nb.sql" >"$WORK/nb.citus"
qa "$C" -f "$WORK/nbsql.sql" >"$WORK/nbsql.citus"
qa "$P" -f "$WORK/nb.sql" >"$WORK/nb.plain"
same 'neighbors and the SQL on Citus' "$WORK/nb.citus" "$WORK/nbsql.citus"
same 'neighbors on Citus and on the plain server' "$WORK/nb.citus" "$WORK/nb.plain"
qa "$C" -f "$WORK/rnb.sql" >"$WORK/rnb.citus"
qa "$P" -f "$WORK/rnb.sql" >"$WORK/rnb.plain"
same 'reverse_neighbors on Citus and on the plain server' "$WORK/rnb.citus" "$WORK/rnb.plain"
qa "$C" -f "$WORK/reach.sql" >"$WORK/reach.citus"
qa "$C" -f "$WORK/reachsql.sql" >"$WORK/reachsql.citus"
qa "$P" -f "$WORK/reach.sql" >"$WORK/reach.plain"
same 'reachable_count and the level-by-level SQL on Citus' "$WORK/reach.citus" "$WORK/reachsql.citus"
same 'reachable_count on Citus and on the plain server' "$WORK/reach.citus" "$WORK/reach.plain"
checked_nodes=$(wc -l <"$WORK/reach.citus")
checked_rows=$(wc -l <"$WORK/nb.citus")
checked_rrows=$(wc -l <"$WORK/rnb.citus")
# put_edge and the hand-written writes leave the same rows
q "$C" -c "SELECT put_edge('w', 'USER#chk1', 'FOLLOWS#USER#1', '{\"w\": 1}')" \
	-c "BEGIN" \
	-c "INSERT INTO w VALUES ('USER#chk2', 'FOLLOWS#USER#1', '{\"w\": 1}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data" \
	-c "INSERT INTO w_inverted VALUES ('FOLLOWS#USER#1', 'USER#chk2') ON CONFLICT DO NOTHING" \
	-c "COMMIT" \
	-c "SELECT hand_put('USER#chk3', 'FOLLOWS#USER#1', '{\"w\": 1}')" >/dev/null
rows=$(qa "$C" -c "SELECT string_agg(replace(pk::text, 'USER#chk', '') || ' ' || sk || ' ' || data, ', ' ORDER BY pk) FROM w WHERE pk::text LIKE 'USER#chk%'")
irows=$(qa "$C" -c "SELECT string_agg(replace(pk::text, 'USER#chk', '') || ' ' || sk, ', ' ORDER BY pk) FROM w_inverted WHERE sk = 'FOLLOWS#USER#1'")
[ "$rows" = '1 FOLLOWS#USER#1 {"w": 1}, 2 FOLLOWS#USER#1 {"w": 1}, 3 FOLLOWS#USER#1 {"w": 1}' ] &&
	[ "$irows" = '1 FOLLOWS#USER#1, 2 FOLLOWS#USER#1, 3 FOLLOWS#USER#1' ] ||
	{ echo "citus.sh: put_edge and the hand-written writes differ: base '$rows', index '$irows'" >&2; exit 1; }

# ---------------------------------------------------------------------
# What each call sends to the workers
# ---------------------------------------------------------------------
log "counting remote commands"
# remote commands of N calls (SQL read from stdin, one session), per call,
# by kind: "BEGIN 1.0, INSERT 2.0, ..." (Citus's own BEGIN carries
# assign_distributed_transaction_id; PREPARE and COMMIT PREPARED are 2PC)
remote_kinds() {	# the kinds of remote commands of SQL on stdin, one a line, in order
	{ echo "SET citus.log_remote_commands TO on; SET client_min_messages TO log;"; cat; } |
		q "$C" 2>&1 >/dev/null | sed -n 's/.*issuing \([A-Z]*\( PREPARED\)\{0,1\}\).*/\1/p'
}
remote() {	# remote CALLS < sql: per call, in all and by kind
	remote_kinds | sort | uniq -c |
		awk -v n="$1" 'function f(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
			{ c = $1; $1 = ""; sub(/^ /, ""); t += c; s = s sprintf("%s%s %s", (s ? ", " : ""), $0, f(c / n)) }
			END { printf "%s (%s)", f(t / n), s }'
}
rc_put=$(for i in $(seq 1 20); do echo "SELECT put_edge('w', 'USER#rc$i', 'FOLLOWS#USER#$i', '{\"w\": 1}');"; done | remote 20)
rc_hand=$(for i in $(seq 1 20); do
	echo "BEGIN;"
	echo "INSERT INTO w VALUES ('USER#rh$i', 'FOLLOWS#USER#$i', '{\"w\": 1}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;"
	echo "INSERT INTO w_inverted VALUES ('FOLLOWS#USER#$i', 'USER#rh$i') ON CONFLICT DO NOTHING;"
	echo "COMMIT;"
done | remote 20)
rc_bulk=$(echo "SELECT put_edges('w', (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#rb' || i, 'sk', 'FOLLOWS#USER#' || i)) FROM generate_series(1, 1000) i));" | remote 1)
# one call, in order (its base and index rows on different workers), and
# the hand-written transaction on the same rows
pair=$(qa "$C" -c "SELECT i FROM generate_series(100, 999) i WHERE
	(SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = get_shard_id_for_distribution_column('w', ('USER#rs' || i)::adjkey))
	<> (SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = get_shard_id_for_distribution_column('w_inverted', 'FOLLOWS#USER#1'::adjkey)) LIMIT 1")
seq_put=$(echo "SELECT put_edge('w', 'USER#rs$pair', 'FOLLOWS#USER#1', '{\"w\": 1}');" | remote_kinds | paste -sd, | sed 's/,/, /g')
seq_hand=$(printf '%s\n' "BEGIN;" \
	"INSERT INTO w VALUES ('USER#rs$pair', 'FOLLOWS#USER#1', '{\"w\": 1}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;" \
	"INSERT INTO w_inverted VALUES ('FOLLOWS#USER#1', 'USER#rs$pair') ON CONFLICT DO NOTHING;" "COMMIT;" |
	remote_kinds | paste -sd, | sed 's/,/, /g')
rc_nb=$(for i in $(seq 1 20); do echo "SELECT count(*) FROM neighbors('g', 'USER#$i', 'FOLLOWS#');"; done | remote 20)
rc_rnb=$(for i in $(seq 1 20); do echo "SELECT count(*) FROM reverse_neighbors('g', 'USER#$i', 'FOLLOWS#');"; done | remote 20)

# reachable_count: nodes reached, nodes expanded (the BFS frontiers, from
# traverse), statements adjlist ran (pg_stat_statements, nested), tasks
# Citus sent to the workers, the time of one call
bfs_rows=()
for u in 1 $((USERS / 3)) $((USERS / 2)); do
	for depth in 1 2 3; do
		out=$(q "$C" -A -t 2>&1 <<SQL
SET pg_stat_statements.track TO 'all';
SELECT pg_stat_statements_reset() IS NULL;
SET citus.log_remote_commands TO on;
SET client_min_messages TO log;
SELECT 'reached ' || reachable_count('g', 'USER#$u', 'FOLLOWS#', $depth);
RESET client_min_messages;
RESET citus.log_remote_commands;
SELECT 'stmts ' || coalesce(sum(calls), 0) || ' ' || count(*) FROM pg_stat_statements WHERE NOT toplevel AND query ~ 'ANY';
SELECT 'sql ' || sql_reach('USER#$u', $depth);
SELECT 'expanded ' || (1 + count(*) FILTER (WHERE depth < $depth)) FROM traverse('g', 'USER#$u', 'FOLLOWS#', $depth);
SQL
		)
		reached=$(echo "$out" | sed -n 's/^reached //p')
		stmts=$(echo "$out" | sed -n 's/^stmts \([0-9]*\) .*/\1/p')
		tasks=$(echo "$out" | grep -c 'issuing SELECT' || true)
		expanded=$(echo "$out" | sed -n 's/^expanded //p')
		sqlr=$(echo "$out" | sed -n 's/^sql //p')
		[ "$sqlr" = "$reached" ] || { echo "citus.sh: reachable_count $reached, SQL $sqlr (USER#$u, depth $depth)" >&2; exit 1; }
		bfs_rows+=("| USER#$u | $depth | $reached | $expanded | $stmts | $tasks |")
	done
done

# ---------------------------------------------------------------------
# The timed rounds
# ---------------------------------------------------------------------
cat >"$WORK/put.sql" <<SQL
\set a random(1, 2000000000)
\set b random(0, $((USERS - 1)))
SELECT put_edge('w', ('USER#p' || :a)::adjkey, ('FOLLOWS#USER#' || :b)::adjkey, '{"w": 1}');
SQL
cat >"$WORK/hand.sql" <<SQL
\set a random(1, 2000000000)
\set b random(0, $((USERS - 1)))
BEGIN;
INSERT INTO w VALUES (('USER#h' || :a)::adjkey, ('FOLLOWS#USER#' || :b)::adjkey, '{"w": 1}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
INSERT INTO w_inverted VALUES (('FOLLOWS#USER#' || :b)::adjkey, ('USER#h' || :a)::adjkey) ON CONFLICT DO NOTHING;
COMMIT;
SQL
cat >"$WORK/handf.sql" <<SQL
\set a random(1, 2000000000)
\set b random(0, $((USERS - 1)))
SELECT hand_put(('USER#f' || :a)::adjkey, ('FOLLOWS#USER#' || :b)::adjkey, '{"w": 1}');
SQL
# put_edge's base-row statement, alone, on x (the same text adjlist
# generates for a table with a data column), and INSERT ... VALUES
cat >"$WORK/inssel.sql" <<SQL
\set a random(1, 2000000000)
\set b random(0, $((USERS - 1)))
INSERT INTO x AS b (pk, sk, data) SELECT DISTINCT ON (u.k, u.s) u.k, u.s, u.d FROM ROWS FROM (pg_catalog.unnest(ARRAY[('USER#s' || :a)::adjkey]), pg_catalog.unnest(ARRAY[('FOLLOWS#USER#' || :b)::adjkey]), pg_catalog.unnest(ARRAY['{"w": 1}'::jsonb])) WITH ORDINALITY AS u(k, s, d, o) ORDER BY u.k, u.s, u.o DESC ON CONFLICT (pk, sk) DO UPDATE SET data = excluded.data RETURNING b.sk, b.pk, (b.xmax OPERATOR(pg_catalog.=) 0);
SQL
cat >"$WORK/insval.sql" <<SQL
\set a random(1, 2000000000)
\set b random(0, $((USERS - 1)))
INSERT INTO x AS b (pk, sk, data) VALUES (('USER#v' || :a)::adjkey, ('FOLLOWS#USER#' || :b)::adjkey, '{"w": 1}') ON CONFLICT (pk, sk) DO UPDATE SET data = excluded.data RETURNING b.sk, b.pk, (b.xmax OPERATOR(pg_catalog.=) 0);
SQL
cat >"$WORK/nb.pgb" <<SQL
\set u random(0, $((USERS - 1)))
SELECT neighbor, pk, sk, data FROM neighbors('g', ('USER#' || :u)::adjkey, 'FOLLOWS#');
SQL
cat >"$WORK/nbsql.pgb" <<SQL
\set u random(0, $((USERS - 1)))
SELECT key_tail(sk, 1), pk, sk, data FROM g WHERE pk = ('USER#' || :u)::adjkey AND sk ^@ 'FOLLOWS#' ORDER BY sk;
SQL
cat >"$WORK/rnb.pgb" <<SQL
\set u random(0, $((USERS - 1)))
SELECT neighbor, pk, sk, data FROM reverse_neighbors('g', ('USER#' || :u)::adjkey, 'FOLLOWS#');
SQL
cat >"$WORK/reach.pgb" <<SQL
\set u random(0, $((USERS - 1)))
SELECT reachable_count('g', ('USER#' || :u)::adjkey, 'FOLLOWS#', 3);
SQL
cat >"$WORK/reachsql.pgb" <<SQL
\set u random(0, $((USERS - 1)))
SELECT sql_reach(('USER#' || :u)::adjkey, 3);
SQL

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
declare -A res
# per-call latency: pgbench, one client, N transactions, the median of
# the per-transaction log (ms)
pgb() {	# pgb KEY NODE SCRIPT N ROUND [PGOPTIONS]
	local prefix="$WORK/log_$1_$5"
	(cd "$WORK" && PGOPTIONS="${6:-}" "$PGBIN/pgbench" -h "$(cluster_dir "$2")/sock" -p "${NPORT[$2]}" -U postgres -n -M prepared \
		-t "$4" -l --log-prefix="$prefix" -f "$WORK/$3" postgres >"$WORK/pgbench.out" 2>&1) ||
		{ cat "$WORK/pgbench.out" >&2; exit 1; }
	res[$1,$5]=$(cat "$prefix".* | awk '{print $3 / 1000}' | median)
	rm -f "$prefix".*
}
# a bulk load, timed by psql's \timing (every statement, summed; ms)
timed() {	# timed KEY NODE ROUND psql-args...
	local key=$1 node=$2 r=$3
	shift 3
	res[$key,$r]=$(q "$node" -c '\timing on' "$@" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{t += $1} END {print t}')
}
dump_b() { qa "$1" -c 'SELECT pk, sk, data FROM b ORDER BY pk, sk' -c 'SELECT sk, pk FROM b_inverted ORDER BY sk, pk' | md5sum; }

for r in $(seq 1 "$ROUNDS"); do
	log "round $r of $ROUNDS"
	pgb put_c "$C" put.sql "$WRITES" "$r"
	pgb hand_c "$C" hand.sql "$WRITES" "$r"
	pgb handf_c "$C" handf.sql "$WRITES" "$r"
	pgb put_p "$P" put.sql "$WRITES" "$r"
	pgb inssel_c "$C" inssel.sql "$WRITES" "$r"
	pgb insval_c "$C" insval.sql "$WRITES" "$r"
	pgb nb_c "$C" nb.pgb "$READS" "$r"
	pgb nbsql_c "$C" nbsql.pgb "$READS" "$r"
	pgb nb_p "$P" nb.pgb "$READS" "$r"
	pgb rnb_c "$C" rnb.pgb "$READS" "$r"
	pgb rnb_p "$P" rnb.pgb "$READS" "$r"
	pgb reach_c "$C" reach.pgb "$HOPS" "$r"
	pgb reachsql_c "$C" reachsql.pgb "$HOPS" "$r"
	pgb reachcc_c "$C" reach.pgb "$HOPS" "$r" '-c citus.max_cached_conns_per_worker=16'
	pgb reach_p "$P" reach.pgb "$HOPS" "$r"

	q "$C" -c 'TRUNCATE b, b_inverted'
	timed bulk_c "$C" "$r" -c "SELECT put_edges('b', pg_read_file('$WORK/bulk.json')::jsonb)"
	d1=$(dump_b "$C")
	q "$C" -c 'TRUNCATE b, b_inverted'
	timed copy_c "$C" "$r" -c 'BEGIN' -c "COPY b FROM '$WORK/bulk_base.tsv'" \
		-c "COPY b_inverted FROM '$WORK/bulk_index.tsv'" -c 'COMMIT'
	d2=$(dump_b "$C")
	q "$P" -c 'TRUNCATE b'
	timed bulk_p "$P" "$r" -c "SELECT put_edges('b', pg_read_file('$WORK/bulk.json')::jsonb)"
	d3=$(dump_b "$P")
	[ "$d1" = "$d2" ] && [ "$d1" = "$d3" ] ||
		{ echo "citus.sh: round $r: put_edges on Citus, COPY on Citus and put_edges on the plain server left different rows" >&2; exit 1; }
done
for t in w_inverted b_inverted; do
	bad=$(qa "$C" -c "SELECT count(*) FROM verify_inverted_index('$t')")
	[ "$bad" = 0 ] || { echo "citus.sh: verify_inverted_index('$t') reports $bad rows after the rounds" >&2; exit 1; }
done

# ---------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------
med() { for r in $(seq 1 "$ROUNDS"); do echo "${res[$1,$r]}"; done | median; }
range() { for r in $(seq 1 "$ROUNDS"); do echo "${res[$1,$r]}"; done | sort -g | awk 'NR == 1 {a = $1} {b = $1} END {printf "%.2f-%.2f", a, b}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
verdict() { awk -v x="$1" -v t="$2" 'BEGIN {print (x <= t) ? "met" : "missed"}'; }
fmt() { awk -v x="$1" -v d="${2:-2}" 'BEGIN {printf "%.*f", d, x}'; }
row() {	# row LABEL KEY_A KEY_B TARGET [DIGITS]
	local a b r
	a=$(med "$2"); b=$(med "$3"); r=$(ratio "$a" "$b")
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$(fmt "$a" "${5:-2}")" "$(fmt "$b" "${5:-2}")" "$r" \
		"$([ -n "$4" ] && echo "<= $4: $(verdict "$r" "$4")" || echo '-')"
}
secs() { awk -v x="$1" 'BEGIN {printf "%.2f", x / 1000}'; }
elapsed=$(($(date +%s) - start_time))
{
	echo "Citus $citus_version on PostgreSQL $pg_version; a coordinator and 2 workers and a plain server on one $(nproc)-core machine (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)); $SHARDS shards a table; graph of $USERS users x $DEGREE FOLLOWS edges; medians of $ROUNDS interleaved rounds (per round: the median of $WRITES writes, $READS reads, $HOPS 3-hop counts; one bulk load); $elapsed s in all."
	echo
	echo "| on Citus | adjlist (ms) | by hand (ms) | adjlist / by hand | target |"
	echo "|---|---:|---:|---:|---|"
	row "put_edge vs BEGIN; INSERT base; INSERT index; COMMIT" put_c hand_c 1.5
	row "put_edge vs the same two INSERTs in one PL/pgSQL call" put_c handf_c ""
	row "(where put_edge's time goes) its base-row statement alone, INSERT ... SELECT FROM ROWS FROM (unnest(...)), vs INSERT ... VALUES, both ON CONFLICT ... RETURNING" inssel_c insval_c ""
	a=$(med bulk_c); b=$(med copy_c)
	printf '| put_edges of %d edges vs COPY into base and index, one transaction | %s | %s | %s | <= 3: %s |\n' \
		"$BULK" "$(fmt "$a" 0)" "$(fmt "$b" 0)" "$(ratio "$a" "$b")" "$(verdict "$(ratio "$a" "$b")" 3)"
	row "neighbors vs SELECT ... WHERE pk = \$1 AND sk ^@ 'FOLLOWS#' ORDER BY sk" nb_c nbsql_c 1.5
	row "3-hop reachable_count vs level-by-level PL/pgSQL (pk = ANY per level)" reach_c reachsql_c ""
	echo
	echo "| adjlist call | plain server (ms) | Citus (ms) | Citus / plain |"
	echo "|---|---:|---:|---:|"
	for k in put:put_edge bulk:"put_edges of $BULK edges" nb:neighbors rnb:reverse_neighbors reach:"3-hop reachable_count"; do
		key=${k%%:*}; label=${k#*:}
		a=$(med "${key}_p"); b=$(med "${key}_c")
		printf '| %s | %s | %s | %s |\n' "$label" "$(fmt "$a")" "$(fmt "$b")" "$(ratio "$b" "$a")"
	done
	echo
	echo "BFS cost of reachable_count on Citus (one call each; nodes expanded = the start and every node reached below the last level; statements = what adjlist ran, from pg_stat_statements; tasks = the SELECTs Citus sent to the workers, at most one per shard a statement):"
	echo
	echo "| start | depth | nodes reached | nodes expanded | adjlist statements | Citus tasks |"
	echo "|---|---:|---:|---:|---:|---:|"
	printf '%s\n' "${bfs_rows[@]}"
	echo
	echo "A statement over all $SHARDS shards runs its tasks on several connections a worker, and Citus keeps only citus.max_cached_conns_per_worker (default 1) of them between statements: the same 3-hop reachable_count in sessions with citus.max_cached_conns_per_worker = 16 took $(fmt "$(med reachcc_c)") ms (default: $(fmt "$(med reach_c)") ms)."
	echo
	echo "Remote commands Citus sent per call (citus.log_remote_commands; mean of 20 calls; BEGIN is Citus's BEGIN with assign_distributed_transaction_id, COPY an intermediate result, PREPARE and COMMIT PREPARED its 2PC):"
	echo
	echo "- put_edge: $rc_put"
	echo "- BEGIN; INSERT base; INSERT index; COMMIT: $rc_hand"
	echo "- put_edges of 1000 edges: $rc_bulk"
	echo "- one put_edge whose base and index rows are on different workers, in order: $seq_put"
	echo "- the same two INSERTs by hand, in order: $seq_hand"
	echo "- neighbors: $rc_nb"
	echo "- reverse_neighbors: $rc_rnb"
	echo
	echo "Spread of the per-round medians (ms): put_edge $(range put_c), by hand $(range hand_c); put_edges $(range bulk_c), COPY $(range copy_c); neighbors $(range nb_c), SQL $(range nbsql_c); reachable_count $(range reach_c), SQL $(range reachsql_c)."
	echo
	echo "Answers compared before timing: neighbors (Citus, its SQL, the plain server; $checked_rows rows), reverse_neighbors (Citus, plain; $checked_rrows rows), 3-hop reachable_count (Citus, its SQL, plain) from $checked_nodes start nodes; every bulk load left the same rows in b and b_inverted (put_edges on Citus, COPY on Citus, put_edges on the plain server); verify_inverted_index clean on w_inverted and b_inverted after the rounds."
} | tee "${BENCH_OUT:-/dev/null}"

#!/bin/bash
# Benchmark (not a test): a hot target under many concurrent writers, with
# and without write sharding of the inverted index (create_inverted_index(
# ..., write_shards => N), DynamoDB's "TARGET#bob#0..N").
#
#   bash test/bench/hot_target.sh            # prints a markdown table
#   BENCH_OUT=/tmp/hot_target.md bash test/bench/hot_target.sh   # ... and writes it there
#
# Every measured transaction inserts one new edge USER#<new> ->
# FOLLOWS#USER#celebrity, so all index writes go to one index partition:
# without write sharding one btree range (and, sharded, one shard server);
# with write_shards => N, N sub-partitions FOLLOWS#USER#celebrity#0..N-1
# chosen by a hash of the source key.  Two source-key patterns (see
# hot_target/setup.sql): increasing keys from a sequence (every insert at
# the right end of the partition: the classic hot btree page) and scattered
# ones (a bijection of the same sequence).
#
#   A. one server: hot_plain vs hot_ws, the same table with
#      create_inverted_index(tbl) and with write_shards => N
#   B. postgres_fdw: a coordinator and two shard clusters on loopback (as in
#      sharding.sh): base table hash-partitioned by pk, index table by sk,
#      every partition a foreign table, index registered with existing =>
#      true; fdw_plain vs fdw_ws.  Also: the hot target's index rows counted
#      directly on each shard server.
#   C. reads: reverse_neighbors of the hot target (first page, lim => 100,
#      and the full list counted) on hot_plain vs hot_ws, to show what
#      merging the N sub-partitions costs, and the same on fdw_plain vs
#      fdw_ws.  Runs first, on the preloaded tables (PRELOAD followers each,
#      the same keys in all four; the results are checked to be equal).
#
# pgbench -M prepared, CLIENTS clients (JOBS threads), SECONDS_RUN s per
# write run; ROUNDS interleaved rounds (the order of the two variants
# alternates between rounds), median tps.  Reads: 1 client, READ_SECONDS s
# per run, mean latency.  synchronous_commit off on all three servers, fsync
# off (test/lib/common.sh), autovacuum off on the benchmark tables (the
# driver vacuums between rounds), a CHECKPOINT before every run.
#
# At the end the benchmark checks every table (a benchmark that loses rows
# is worthless): the base table and the index hold PRELOAD + the number of
# transactions pgbench committed, reverse_neighbors returns exactly the base
# table's followers in key order, and verify_inverted_index returns no rows.
# Any failure exits non-zero.
#
# Clusters bench_hot_coord (port BENCH_HOT_PORT, 55510; also the one server
# of A and C), bench_hot_shard1 and bench_hot_shard2 (the next two ports),
# stopped and removed on exit (KEEP_CLUSTER=1 keeps their data directories
# and logs; on failure the end of each server log is printed).  About 8
# minutes with the defaults.
#
# Knobs (environment): ROUNDS (3), SECONDS_RUN (10), CLIENTS (16), JOBS (2),
# READ_SECONDS (5), WRITE_SHARDS (8), PRELOAD (100000 followers of the hot
# target), OTHERS (100000 edges to other targets), BENCH_HOT_PORT (55510),
# BENCH_OUT, KEEP_CLUSTER.
source "$(dirname "$0")/../lib/common.sh"

ROUNDS=${ROUNDS:-3}
SECONDS_RUN=${SECONDS_RUN:-10}
CLIENTS=${CLIENTS:-16}
JOBS=${JOBS:-2}
READ_SECONDS=${READ_SECONDS:-5}
WRITE_SHARDS=${WRITE_SHARDS:-8}
PRELOAD=${PRELOAD:-100000}
OTHERS=${OTHERS:-100000}
PORT=${BENCH_HOT_PORT:-55510}
DIR="$REPO/test/bench/hot_target"
HOT="FOLLOWS#USER#celebrity"
T_START=$(date +%s)

WORK=$(mktemp -d)
cleanup() {
	local rc=$? c
	for c in bench_hot_coord bench_hot_shard1 bench_hot_shard2; do
		if [ "$rc" != 0 ] && [ -f "$(cluster_dir $c)/server.log" ]; then
			echo "--- last lines of $(cluster_dir $c)/server.log" >&2
			tail -n 20 "$(cluster_dir $c)/server.log" >&2
		fi
		cluster_stop $c
		[ -n "${KEEP_CLUSTER:-}" ] || rm -rf "$(cluster_dir $c)"
	done
	rm -rf "$WORK"
	if [ "$rc" != 0 ] && [ -n "${SO_STAMP:-}" ] && [ "$(so_stamp)" != "$SO_STAMP" ]; then
		echo "hot_target.sh: note: $SO was reinstalled during the run (another build on this machine?):" \
			"a server that maps the old file can crash" >&2
	fi
}
trap cleanup EXIT

die() { echo "hot_target.sh: $*" >&2; exit 1; }

# psql on one of the clusters: on NAME PORT [psql args]
on() {
	local name=$1 port=$2
	shift 2
	"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(cluster_dir "$name")/sock" -p "$port" \
		-U postgres -d postgres "$@"
}
coord() { on bench_hot_coord "$PORT" "$@"; }
q() { coord -A -t -c "$1"; }	# one value from the coordinator
SHARD_NAME=(bench_hot_shard1 bench_hot_shard2)
SHARD_PORT=($((PORT + 1)) $((PORT + 2)))
shard() { local i=$1; shift; on "${SHARD_NAME[$i]}" "${SHARD_PORT[$i]}" "$@"; }

ensure_base_packages
build_install
# Other builds on this machine may reinstall the library during the run
SO="$("$PG_CONFIG" --pkglibdir)/adjlist.so"
so_stamp() { stat -c '%y %s' "$SO" 2>/dev/null; }
SO_STAMP=$(so_stamp)
for i in 0 1; do
	cluster_start "${SHARD_NAME[$i]}" "${SHARD_PORT[$i]}"
	shard "$i" -f "$DIR/shard.sql"
	shard "$i" -c "ALTER DATABASE postgres SET synchronous_commit = off"
done
cluster_start bench_hot_coord "$PORT"
coord -c "ALTER DATABASE postgres SET synchronous_commit = off"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

log "loading $PRELOAD followers of $HOT and $OTHERS other edges into each of 4 tables"
t0=$(date +%s)
coord -v s1host="$(cluster_dir bench_hot_shard1)/sock" -v s1port="${SHARD_PORT[0]}" \
	-v s2host="$(cluster_dir bench_hot_shard2)/sock" -v s2port="${SHARD_PORT[1]}" \
	-v preload="$PRELOAD" -v others="$OTHERS" -v shards="$WRITE_SHARDS" \
	-f "$DIR/setup.sql" >/dev/null
log "loaded in $(( $(date +%s) - t0 ))s"

COMMIT=$(git -C "$REPO" log -1 --format=%h 2>/dev/null || echo unknown)
[ -z "$(git -C "$REPO" status --porcelain -- src sql 2>/dev/null)" ] || COMMIT="$COMMIT, src/ or sql/ modified"
PGVERSION=$(q "SELECT current_setting('server_version')")
# which of the two hash partitions (= shard servers) each index partition key falls in
part_of() { q "SELECT satisfies_hash_partition('fdw_ws_inverted'::regclass, 2, 0, '$1'::adjkey)::int"; }
PLAIN_ON=$(( 2 - $(part_of "$HOT") ))	# remainder 0 -> shard 1
SUB_ON=(0 0)
for s in $(seq 0 $((WRITE_SHARDS - 1))); do
	if [ "$(part_of "$HOT#$s")" = 1 ]; then SUB_ON[0]=$((SUB_ON[0] + 1)); else SUB_ON[1]=$((SUB_ON[1] + 1)); fi
done
log "partition $HOT is on shard $PLAIN_ON; its $WRITE_SHARDS sub-partitions: ${SUB_ON[0]} on shard 1, ${SUB_ON[1]} on shard 2"

# pgbench scripts: insert_{seq,rand}_TABLE.sql, read_{page,count}_TABLE.sql
for t in hot_plain hot_ws fdw_plain fdw_ws; do
	for s in insert_seq insert_rand read_page read_count; do
		sed "s/@TABLE@/$t/g" "$DIR/$s.sql" >"$WORK/${s}_$t.sql"
	done
done

checkpoint_all() {
	coord -c CHECKPOINT
	shard 0 -c CHECKPOINT
	shard 1 -c CHECKPOINT
}
vacuum_all() {
	coord -c "VACUUM ANALYZE hot_plain, hot_ws, hot_plain_inverted, hot_ws_inverted"
	shard 0 -c VACUUM
	shard 1 -c VACUUM
}

# bench SCRIPT CLIENTS SECONDS: prints "<tps> <transactions committed>"
bench() {
	local out tps n
	checkpoint_all
	out=$("$PGBIN/pgbench" -h "$(cluster_dir bench_hot_coord)/sock" -p "$PORT" -U postgres -n \
		-M prepared -c "$2" -j "$(( $2 < JOBS ? $2 : JOBS ))" -T "$3" -f "$WORK/$1.sql" postgres 2>&1) ||
		die "pgbench $1 failed:"$'\n'"$out"
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' <<<"$out")
	n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
	[ -n "$tps" ] && [ -n "$n" ] || die "no tps in pgbench output of $1:"$'\n'"$out"
	grep -q '^number of failed transactions: 0 ' <<<"$out" || ! grep -q '^number of failed' <<<"$out" ||
		die "pgbench $1 had failed transactions:"$'\n'"$out"
	echo "$tps $n"
}

# variants in round R: plain first in odd rounds, write-sharded first in even ones
order() { if [ $(($1 % 2)) = 1 ]; then echo "$2_plain $2_ws"; else echo "$2_ws $2_plain"; fi; }

declare -A TPS ADDED
for t in hot_plain hot_ws fdw_plain fdw_ws; do ADDED[$t]=0; done

# --------------------------------------------------------------------------
# C. reads, on the preloaded tables (the same PRELOAD followers in all four)
for layout in hot fdw; do
	same=$(q "SELECT (SELECT md5(string_agg(neighbor::text, ',' ORDER BY o)) FROM reverse_neighbors('${layout}_plain', 'USER#celebrity', 'FOLLOWS#') WITH ORDINALITY r(neighbor, pk, sk, data, o))
		= (SELECT md5(string_agg(neighbor::text, ',' ORDER BY o)) FROM reverse_neighbors('${layout}_ws', 'USER#celebrity', 'FOLLOWS#') WITH ORDINALITY r(neighbor, pk, sk, data, o))")
	[ "$same" = t ] || die "reverse_neighbors of the hot target differs between ${layout}_plain and ${layout}_ws"
done
log "C. reads: $ROUNDS rounds, 1 client, ${READ_SECONDS}s a run"
for r in $(seq 1 "$ROUNDS"); do
	for layout in hot fdw; do
		for test in read_page read_count; do
			for t in $(order "$r" "$layout"); do
				res=$(bench "${test}_$t" 1 "$READ_SECONDS")
				read -r tps _ <<<"$res"
				TPS[${test}_${t}_$r]=$tps
				printf '  round %d %-10s %-10s %10.1f tps\n' "$r" "$test" "$t" "$tps" >&2
			done
		done
	done
done

# --------------------------------------------------------------------------
# A and B. hot-target inserts
log "A, B. inserts: $ROUNDS rounds, $CLIENTS clients, ${SECONDS_RUN}s a run"
for r in $(seq 1 "$ROUNDS"); do
	for layout in hot fdw; do
		for pat in seq rand; do
			for t in $(order "$r" "$layout"); do
				res=$(bench "insert_${pat}_$t" "$CLIENTS" "$SECONDS_RUN")
				read -r tps n <<<"$res"
				TPS[${pat}_${t}_$r]=$tps
				ADDED[$t]=$(( ${ADDED[$t]} + n ))
				printf '  round %d %-4s %-10s %10.1f tps (%d rows)\n' "$r" "$pat" "$t" "$tps" "$n" >&2
			done
		done
	done
	vacuum_all
done

# --------------------------------------------------------------------------
# checks
log "checking every table and index"
HOTKEYS="sk = '$HOT' OR sk = ANY (write_shard_keys('$HOT', $WRITE_SHARDS))"
declare -A HOTROWS
fail=0
for t in hot_plain hot_ws fdw_plain fdw_ws; do
	want=$(( PRELOAD + ${ADDED[$t]} ))
	res=$(q "SELECT
		(SELECT count(*) FROM $t WHERE sk = '$HOT'),
		(SELECT count(*) FROM ${t}_inverted WHERE $HOTKEYS),
		(SELECT count(*) FROM reverse_neighbors('$t', 'USER#celebrity', 'FOLLOWS#')),
		(SELECT md5(string_agg(neighbor::text, ',' ORDER BY o)) FROM reverse_neighbors('$t', 'USER#celebrity', 'FOLLOWS#') WITH ORDINALITY r(neighbor, pk, sk, data, o))
		  = (SELECT md5(string_agg(pk::text, ',' ORDER BY pk)) FROM $t WHERE sk = '$HOT'),
		(SELECT count(*) FROM $t),
		(SELECT count(*) FROM verify_inverted_index('${t}_inverted'))")
	read -r base idx rn order_ok total drift <<<"${res//|/ }"
	HOTROWS[$t]=$idx
	printf '  %-10s hot partition: %s base rows, %s index rows, %s from reverse_neighbors (in key order: %s), expected %s; %s rows in all, expected %s; verify_inverted_index: %s rows\n' \
		"$t" "$base" "$idx" "$rn" "$order_ok" "$want" "$total" $(( PRELOAD + OTHERS + ${ADDED[$t]} )) "$drift" >&2
	if [ "$base" != "$want" ] || [ "$idx" != "$want" ] || [ "$rn" != "$want" ] || [ "$order_ok" != t ] ||
		[ "$total" != $(( PRELOAD + OTHERS + ${ADDED[$t]} )) ] || [ "$drift" != 0 ]; then
		echo "hot_target.sh: $t FAILED the check" >&2
		fail=1
	fi
done
[ "$fail" = 0 ] || coord -c "SELECT 'hot_ws' AS idx, * FROM verify_inverted_index('hot_ws_inverted') LIMIT 10" \
	-c "SELECT 'fdw_ws' AS idx, * FROM verify_inverted_index('fdw_ws_inverted') LIMIT 10" >&2 || true

# the hot target's index rows on each shard server, counted there
declare -A DIST
for v in plain ws; do
	for i in 0 1; do
		DIST[${v}_$i]=$(shard "$i" -A -t -c "SELECT count(*) || ' rows, ' || count(DISTINCT sk)
			|| CASE count(DISTINCT sk) WHEN 1 THEN ' partition key' ELSE ' partition keys' END
			FROM fdw_${v}_rev WHERE $HOTKEYS")
	done
done

# --------------------------------------------------------------------------
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
raw() { local r out=""; for r in $(seq 1 "$ROUNDS"); do out="$out ${TPS[$1_$r]}"; done; echo "${out# }"; }
rawint() { raw "$1" | awk '{ for (i = 1; i <= NF; i++) printf "%s%.0f", (i > 1 ? "/" : ""), $i }'; }
med_of() { median $(raw "$1"); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v t="$1" 'BEGIN { m = 1000 / t; printf (m < 1 ? "%.3f" : m < 100 ? "%.1f" : "%.0f"), m }'; }
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

table=$(
	echo "| hot target \`$HOT\`, pgbench -M prepared, median of $ROUNDS interleaved rounds | without write sharding | write_shards => $WRITE_SHARDS | with / without |"
	echo "|---|---:|---:|---:|"
	for layout in hot fdw; do
		case $layout in
			hot) where="A. one server";;
			fdw) where="B. postgres_fdw, 2 shards";;
		esac
		for pat in seq rand; do
			case $pat in
				seq) keys="increasing source keys";;
				rand) keys="scattered source keys";;
			esac
			a=$(med_of "${pat}_${layout}_plain"); b=$(med_of "${pat}_${layout}_ws")
			printf '| %s: insert, %s, %d clients x %ds, tps | %.0f | %.0f | %s |\n' \
				"$where" "$keys" "$CLIENTS" "$SECONDS_RUN" "$a" "$b" "$(ratio "$b" "$a")"
		done
	done
	for layout in hot fdw; do
		case $layout in
			hot) where="C. one server";;
			fdw) where="C. postgres_fdw, 2 shards";;
		esac
		for test in read_page read_count; do
			case $test in
				read_page) what="first page (lim => 100)";;
				read_count) what="all followers, counted";;
			esac
			a=$(med_of "${test}_${layout}_plain"); b=$(med_of "${test}_${layout}_ws")
			printf '| %s: reverse_neighbors of the %d preloaded followers, %s, 1 client, ms per call | %s | %s | %s |\n' \
				"$where" "$PRELOAD" "$what" "$(ms "$a")" "$(ms "$b")" "$(ratio "$a" "$b")"
		done
	done
	echo
	echo "| B. index rows of the hot target at the end, counted on each shard | shard 1 | shard 2 |"
	echo "|---|---:|---:|"
	echo "| without write sharding | ${DIST[plain_0]} | ${DIST[plain_1]} |"
	echo "| write_shards => $WRITE_SHARDS | ${DIST[ws_0]} | ${DIST[ws_1]} |"
	echo
	echo "Rows of the hot partition at the end (index rows, all sub-partitions): A ${HOTROWS[hot_plain]} without,"
	echo "${HOTROWS[hot_ws]} with write sharding; B ${HOTROWS[fdw_plain]} without, ${HOTROWS[fdw_ws]} with."
	if [ "$fail" = 0 ]; then
		echo "Every table checked: base and index row counts as committed, reverse_neighbors complete and in"
		echo "key order, verify_inverted_index() no rows for all four indexes."
	else
		echo "**CHECK FAILED**: see the log above (row counts, reverse_neighbors or verify_inverted_index)."
	fi
	echo "PostgreSQL $PGVERSION, $(nproc) CPUs, load average $LOAD_START at start, $LOAD_END at the end;"
	[ "$(so_stamp)" = "$SO_STAMP" ] ||
		echo "**Warning**: $SO was reinstalled during the run by another build: the servers may have run two builds."
	echo "adjlist at $COMMIT; fsync off, synchronous_commit off; pgbench $JOBS threads; C: mean latency, 1 client, ${READ_SECONDS}s runs."
	echo "Raw tps (rounds in order):"
	for k in seq_hot rand_hot seq_fdw rand_fdw read_page_hot read_count_hot read_page_fdw read_count_fdw; do
		echo "${k}: without $(rawint "${k}_plain"), with $(rawint "${k}_ws");"
	done
)

echo
echo "$table"
if [ -n "${BENCH_OUT:-}" ]; then
	printf '%s\n' "$table" >"$BENCH_OUT"
	log "table written to $BENCH_OUT"
fi
log "total run time $(( $(date +%s) - T_START ))s"
[ "$fail" = 0 ] || die "drift or lost rows: see above"

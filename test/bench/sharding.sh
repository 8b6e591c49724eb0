#!/bin/bash
# Benchmark (not a test): the postgres_fdw sharded layout against one
# server, as ratios measured side by side in one run.
#
#   bash test/bench/sharding.sh            # prints a markdown table
#   BENCH_OUT=/tmp/sharding.md bash test/bench/sharding.sh
#
# Three throwaway clusters on this machine: a coordinator and two shards.
# The base table is hash-partitioned by pk and its inverted index by sk,
# every partition a postgres_fdw foreign table on a shard; the single-server
# variant is the same table, local, on the coordinator.  pgbench (-M
# prepared, CLIENTS clients, SECONDS s a run, ROUNDS interleaved rounds)
# measures point reads of an edge, reverse lookups through the inverted
# index, and edge writes (insert with the index kept by the trigger).
# Everything runs on one machine, so the sharded numbers show the cost of
# the extra network hop and of routing, not the capacity of more machines.
source "$(dirname "$0")/../lib/common.sh"

N=${N:-100000}
CLIENTS=${CLIENTS:-2}
SECONDS_RUN=${SECONDS_RUN:-10}
ROUNDS=${ROUNDS:-3}
DIR="$REPO/test/bench/sharding"
WORK=$(mktemp -d)

cleanup() {
	cluster_stop bench_shard1
	cluster_stop bench_shard2
	cluster_stop bench_coord
	rm -rf "$WORK"
}
trap cleanup EXIT

ensure_base_packages
build_install
for s in 1 2; do
	cluster_start bench_shard$s $((55500 + s))
	"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -c "
		CREATE EXTENSION adjlist;
		CREATE TABLE edges_part (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
		CREATE TABLE rev_part (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));"
done
cluster_start bench_coord 55500
chmod 755 "$WORK"
log "loading $N edges, sharded and single"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres \
	-v s1host="$(cluster_dir bench_shard1)/sock" -v s1port=55501 \
	-v s2host="$(cluster_dir bench_shard2)/sock" -v s2port=55502 \
	-v n="$N" -f "$DIR/setup.sql" >/dev/null
"$PGBIN/psql" -X -q -d postgres -c "ALTER DATABASE postgres SET synchronous_commit = off"

# pgbench scripts, one per (test, table)
for t in edges single; do
	cat >"$WORK/read_$t.sql" <<SQL
\set n random(1, $N)
SELECT data FROM $t WHERE pk = ('USER#' || :n)::adjkey AND sk = ('FOLLOWS#USER#' || (:n * 7 % $N))::adjkey;
SQL
	cat >"$WORK/reverse_$t.sql" <<SQL
\set n random(0, $N - 1)
SELECT pk FROM ${t}_inverted WHERE sk = ('FOLLOWS#USER#' || :n)::adjkey;
SQL
	cat >"$WORK/write_$t.sql" <<SQL
\set a random(1, 1000000000)
\set b random(1, 1000000000)
INSERT INTO $t VALUES (('USER#w' || :a)::adjkey, ('FOLLOWS#USER#' || :b)::adjkey, NULL) ON CONFLICT DO NOTHING;
SQL
done

declare -A tps
run() {	# run TEST TABLE ROUND
	local out
	out=$(as_postgres "$PGBIN/pgbench" -h "$PGHOST" -p "$PGPORT" -U postgres -n -M prepared \
		-c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_RUN" -f "$WORK/$1_$2.sql" postgres 2>&1) ||
		{ echo "$out" >&2; exit 1; }
	tps[$1_$2_$3]=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
}
for r in $(seq 1 "$ROUNDS"); do
	for test in read reverse write; do
		for t in single edges; do
			log "round $r: $test on $t"
			run "$test" "$t" "$r"
		done
	done
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
drift=$("$PGBIN/psql" -X -At -d postgres -c "SELECT count(*) FROM verify_inverted_index('edges_inverted')")

{
	echo "| pgbench, $CLIENTS clients, median of $ROUNDS x ${SECONDS_RUN}s | single server tps | sharded tps | sharded / single |"
	echo "|---|---:|---:|---:|"
	for test in read reverse write; do
		s=(); d=()
		for r in $(seq 1 "$ROUNDS"); do s+=("${tps[${test}_single_$r]}"); d+=("${tps[${test}_edges_$r]}"); done
		ms=$(median "${s[@]}"); md=$(median "${d[@]}")
		case $test in
			read) what="point read of an edge (pk, sk)";;
			reverse) what="reverse lookup (inverted index, one partition)";;
			write) what="edge insert, index kept by the trigger";;
		esac
		printf '| %s | %.0f | %.0f | %.2f |\n' "$what" "$ms" "$md" "$(awk -v a="$md" -v b="$ms" 'BEGIN {print a / b}')"
	done
	echo
	echo "Drift of the sharded index after the run: $drift rows."
} | tee "${BENCH_OUT:-/dev/null}"

#!/bin/bash
# Benchmark (not a test): shortest_path_weighted against pgRouting's
# pgr_dijkstraCost and a hand-written Dijkstra in PL/pgSQL, on the 1M-edge
# power-law graph of test/bench/graph/setup.sql, whose edges
# carry a weight {"w": 0..99}.
#
#   bash test/bench/weighted.sh                 # prints a markdown table
#   BENCH_OUT=/tmp/weighted.md bash test/bench/weighted.sh
#
# The 12 pairs of graph.sh (bench_pairs: a median node, the largest hub and
# 10 random nodes, each with a target 3 or 4 hops away), both ways:
#   out  shortest_path_weighted('edges', a, b, 'FOLLOWS#', 'w') (the base
#        table forward, the keys-only inverted index backward, the weights
#        of in-edges read from the base rows);
#        pgr_dijkstraCost on edges_int (integer ids, cost = w), directed;
#        dijkstra_int(a, b) (graph/../weighted/dijkstra.sql) on edges_int
#   in   the same from b to a against the edges (direction => 'in';
#        pgRouting on the reversed edges; dijkstra_int(..., reverse => true))
# A recursive CTE is no fair baseline: without a priority queue it must
# enumerate paths, which on this graph does not finish.
#
# One psql session times every statement (\timing, round trip included):
# REPS interleaved rounds after an untimed warm-up round; pgRouting (which
# loads the whole edge table on every call, ~2 s) and the PL/pgSQL Dijkstra
# (a few statements per node settled, seconds) run SLOW_REPS rounds on the
# first SLOW_PAIRS pairs.  Per pair the median over rounds, then the
# median (min-max) over pairs of the per-pair ratios.  Every answer (the
# cost) of pgRouting and of the PL/pgSQL function is checked against
# adjlist's: a mismatch aborts.
#
# Runs its own throwaway cluster (bench_weighted, port $BENCH_WEIGHTED_PORT;
# fsync off) and stops it on exit.  Knobs (environment): REPS (5),
# SLOW_REPS (2), SLOW_PAIRS (4), NEDGES (1000000), NNODES (80000), SEED
# (0.4242), SHARED_BUFFERS (2GB), SKIP_BUILD (0: make install first),
# BENCH_WEIGHTED_PORT (55486), BENCH_OUT.
# Quick smoke run: NEDGES=20000 NNODES=1600 REPS=1 SLOW_REPS=1 SLOW_PAIRS=1
source "$(dirname "$0")/../lib/common.sh"

REPS=${REPS:-5}
SLOW_REPS=${SLOW_REPS:-2}
SLOW_PAIRS=${SLOW_PAIRS:-4}
NEDGES=${NEDGES:-1000000}
NNODES=${NNODES:-80000}
SEED=${SEED:-0.4242}
SHARED_BUFFERS=${SHARED_BUFFERS:-2GB}
SKIP_BUILD=${SKIP_BUILD:-0}
PORT=${BENCH_WEIGHTED_PORT:-55486}
DB=bench_weighted
PSQL="$PGBIN/psql"
T_START=$(date +%s)

WORK=$(mktemp -d)
cleanup() {
	cluster_stop bench_weighted
	rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "weighted.sh: $*" >&2; exit 1; }

ensure_base_packages
ensure_packages postgresql-$PGVER-pgrouting
if [ "$SKIP_BUILD" != 1 ]; then
	build_install || die "make install failed"
fi
cluster_start bench_weighted "$PORT"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
"$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres \
	-c "ALTER SYSTEM SET shared_buffers = '$SHARED_BUFFERS'" \
	-c "ALTER SYSTEM SET autovacuum = off" \
	-c "ALTER SYSTEM SET jit = off" \
	-c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0"
as_postgres "$PGBIN/pg_ctl" -D "$(cluster_dir bench_weighted)/data" -l "$(cluster_dir bench_weighted)/server.log" \
	-m fast -w restart >/dev/null || die "restart with shared_buffers = $SHARED_BUFFERS failed"

psql_db() { "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
q() { psql_db -A -t -c "$1"; }
median() {
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) printf "%.3f\n", a[(NR + 1) / 2];
		else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
fmt() { awk -v v="$1" 'BEGIN { if (v == "nan" || v == "") print "nan"; else if (v >= 100) printf "%.0f", v; else if (v >= 10) printf "%.1f", v; else printf "%.2f", v }'; }

log "database $DB: $NEDGES edges over $NNODES nodes"
"$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $DB"
psql_db -c 'CREATE EXTENSION adjlist' -c 'CREATE EXTENSION pg_prewarm' -c 'CREATE EXTENSION pgrouting CASCADE'
psql_db -v nedges="$NEDGES" -v nnodes="$NNODES" -v seed="$SEED" -v extras=true -f "$REPO/test/bench/graph/setup.sql"
psql_db -f "$REPO/test/bench/weighted/dijkstra.sql"
psql_db -c 'VACUUM (FREEZE, ANALYZE)'
psql_db -A -t -c "SELECT sum(pg_prewarm(c.oid)) || ' blocks prewarmed' FROM pg_class c
	WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')" >&2
log "graph built [$(( $(date +%s) - T_START ))s]"
GRAPH=$(q "SELECT format('%s edges, %s nodes; out-degree median %s, max %s; in-degree median %s, max %s',
	edges, nodes, median_out_degree, max_out_degree, median_in_degree, max_in_degree) FROM graph_info")
PGVERSION=$(q "SELECT current_setting('server_version')")
PGR_VERSION=$(q "SELECT pgr_version()")
NPAIRS=$(q "SELECT count(*) FROM bench_pairs")

# the statements: "TAG<TAB>SQL", TAG = VARIANT:ORD:ROUND
declare -A TPL
TPL[adjlist_out]="SELECT cost FROM shortest_path_weighted('edges', '@A@', '@B@', 'FOLLOWS#', 'w')"
TPL[pgr_out]="SELECT agg_cost FROM pgr_dijkstraCost('SELECT id, source, target, w AS cost FROM edges_int', @AID@, @BID@, true)"
TPL[sql_out]="SELECT dijkstra_int(@AID@, @BID@)"
TPL[adjlist_in]="SELECT cost FROM shortest_path_weighted('edges', '@B@', '@A@', 'FOLLOWS#', 'w', 'in')"
TPL[pgr_in]="SELECT agg_cost FROM pgr_dijkstraCost('SELECT id, target AS source, source AS target, w AS cost FROM edges_int', @BID@, @AID@, true)"
TPL[sql_in]="SELECT dijkstra_int(@BID@, @AID@, true)"
VARIANTS=(adjlist_out pgr_out sql_out adjlist_in pgr_in sql_in)

declare -A PAIR
for ord in $(seq 1 "$NPAIRS"); do
	PAIR[$ord]=$(q "SELECT p.a || '|' || p.b || '|' || sa.id || '|' || sb.id FROM bench_pairs p
		JOIN nodes sa ON sa.key = p.a JOIN nodes sb ON sb.key = p.b WHERE p.ord = $ord")
done
stmts=$WORK/stmts
: >"$stmts"
for rep in $(seq 0 "$REPS"); do
	for ord in $(seq 1 "$NPAIRS"); do
		IFS='|' read -r a b aid bid <<<"${PAIR[$ord]}"
		for v in "${VARIANTS[@]}"; do
			if [[ $v != adjlist_* ]]; then
				{ [ "$rep" -ge 1 ] && [ "$rep" -le "$SLOW_REPS" ] && [ "$ord" -le "$SLOW_PAIRS" ]; } || continue
			fi
			sql=${TPL[$v]}
			sql=${sql//@A@/$a}; sql=${sql//@B@/$b}; sql=${sql//@AID@/$aid}; sql=${sql//@BID@/$bid}
			printf '%s:%s:%s\t%s\n' "$v" "$ord" "$rep" "$sql" >>"$stmts"
		done
	done
done
log "$(wc -l <"$stmts") statements: $REPS rounds of adjlist over $NPAIRS pairs, $SLOW_REPS of pgRouting and PL/pgSQL over $SLOW_PAIRS [$(( $(date +%s) - T_START ))s]"
{
	echo "SET work_mem = '64MB'; SET client_min_messages = warning;"
	echo '\timing on'
	while IFS=$'\t' read -r tag sql; do printf '\\echo @@ %s\n%s;\n' "$tag" "$sql"; done <"$stmts"
} >"$stmts.psql"
psql_db -A -t -f "$stmts.psql" 2>&1 |
	awk '/^@@ / { tag = $2; res = ""; next }
		 /^Time: / { if (tag != "") print tag, $2, (res == "" ? "-" : res); tag = ""; next }
		 { if (res == "") res = $0 }
		 /ERROR/ { print "ERROR", $0; exit 1 }' >"$WORK/raw" || die "statements failed: $(tail -n 3 "$WORK/raw")"
grep -q '^ERROR' "$WORK/raw" && die "$(grep '^ERROR' "$WORK/raw")"
# warm-up round dropped
awk '{ split($1, p, ":"); if (p[3] != "0") print p[1] ":" p[2], $2, $3 }' "$WORK/raw" >"$WORK/times"

ms() { awk -v t="$1" '$1 == t { print $2 }' "$WORK/times" | median; }
answer() { awk -v t="$1" '$1 == t { print $3 }' "$WORK/times" | sort -u; }

# answers: adjlist's the same every round, the others' equal to it
for ord in $(seq 1 "$NPAIRS"); do
	for d in out in; do
		want=$(answer "adjlist_$d:$ord")
		[ "$(wc -l <<<"$want")" = 1 ] || die "adjlist_$d gave different answers for pair $ord: $want"
		for v in pgr sql; do
			got=$(answer "${v}_$d:$ord")
			[ -z "$got" ] || [ "$got" = "$want" ] || die "MISMATCH pair $ord $d: adjlist $want, $v $got"
		done
	done
done

rows=""
details=""
for d in out in; do
	declare -A R=()
	for ord in $(seq 1 "$NPAIRS"); do
		a_ms=$(ms "adjlist_$d:$ord")
		line="| $d | $ord | $(answer "adjlist_$d:$ord") | $(fmt "$a_ms")"
		for v in pgr sql; do
			v_ms=$(ms "${v}_$d:$ord")
			line="$line | $(fmt "$v_ms")"
			[ "$v_ms" != nan ] && R[$v]="${R[$v]:-} $(awk -v x="$v_ms" -v y="$a_ms" 'BEGIN { printf "%.4f", x / y }')"
		done
		R[adjlist]="${R[adjlist]:-} $a_ms"
		details="$details$line |"$'\n'
	done
	a_med=$(tr ' ' '\n' <<<"${R[adjlist]}" | grep -v '^$' | median)
	for v in pgr sql; do
		list=$(tr ' ' '\n' <<<"${R[$v]:-}" | grep -v '^$')
		rows="$rows| $d | $(fmt "$a_med") ms | $v | $(fmt "$(median <<<"$list")") ($(fmt "$(sort -g <<<"$list" | head -n 1)")-$(fmt "$(sort -g <<<"$list" | tail -n 1)")) | $(wc -l <<<"$list") |"$'\n'
	done
	unset R
done

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
report="| direction | adjlist, median over $NPAIRS pairs | compared with | ratio: its time / adjlist's, median (min-max) | pairs |
|---|---:|---|---:|---:|
${rows%$'\n'}

pgr = pgr_dijkstraCost($PGR_VERSION) on edges_int; sql = dijkstra_int() in PL/pgSQL on edges_int.
PostgreSQL $PGVERSION, $(nproc) CPUs, load average $LOAD_START at start, $LOAD_END at the end; fsync off,
shared_buffers $SHARED_BUFFERS (prewarmed), jit off. Graph: $GRAPH.
adjlist: $REPS rounds over $NPAIRS pairs; pgRouting and PL/pgSQL: $SLOW_REPS rounds over the first $SLOW_PAIRS pairs.

Per pair (median ms; answer: the cost, the same from every variant):

| direction | pair | cost | adjlist | pgr | sql |
|---|---:|---:|---:|---:|---:|
${details%$'\n'}"
echo
echo "$report"
if [ -n "${BENCH_OUT:-}" ]; then
	printf '%s\n' "$report" >"$BENCH_OUT"
	log "table written to $BENCH_OUT"
fi
log "total run time $(( $(date +%s) - T_START ))s"

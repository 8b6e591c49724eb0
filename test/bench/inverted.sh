#!/bin/bash
# Benchmark (not a test): the write cost of an adjlist inverted index.
#
#   bash test/bench/inverted.sh                      # prints a markdown table
#   BENCH_OUT=/tmp/inverted.md bash test/bench/inverted.sh   # ... and writes it there
#
# Five tables (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) that
# differ only in how the reverse direction (sk, pk) is kept (see
# inverted/setup.sql):
#   (a) nothing                  (b) a second btree index on (sk, pk)
#   (c) create_inverted_index()  (d) a PL/pgSQL row trigger into (sk, pk)
#   (e) PL/pgSQL statement triggers over transition tables (bulk COPY only)
# over a deterministic power-law follower graph of NEDGES edges (some
# targets are hubs).
#
# 1. Bulk: COPY the NEDGES edges from a CSV file (generated once) into each
#    freshly truncated table; ROUNDS interleaved rounds (a b c d e a b ...),
#    median time.  The last round leaves (a)-(d) loaded for step 2.
# 2. Single rows: pgbench, CLIENTS clients, -M prepared, synchronous_commit
#    off (set on the database), TXNS transactions per client and run.
#    Inserts of new edges (inverted/insert.sql), then deletes of exactly
#    those edges by key (inverted/delete.sql), so every round starts from
#    the same NEDGES-edge table.  Rounds interleave the variants
#    (insert a b c d, delete a b c d, VACUUM), median tps per variant, and
#    median server CPU per row: the CPU time of the run's backends, which
#    the postmaster adds to its cutime/cstime when it reaps them (Linux).
# COPY reports wall-clock time and the backend's CPU time (/proc/self/stat).
# CPU time is much less disturbed than tps by other load on the machine.
# Every run starts after a CHECKPOINT; autovacuum is off on the tables and
# the driver vacuums between rounds.  Row counts of every table and reverse
# table are checked after every run (a mismatch aborts the benchmark).
#
# Reported ratios (informational, never a pass/fail), each from tps or
# time and from CPU:
#   c/b throughput     adjlist vs a second index (target >= 0.95)
#   c/b COPY time      (target <= 1.1)
#   extra cost per row over the base table, adjlist vs PL/pgSQL trigger:
#     (1/tps_c - 1/tps_a) / (1/tps_d - 1/tps_a), for COPY (t_c - t_a) / (t_d - t_a)
#     (target <= 0.5)
#
# Runs its own throwaway cluster (bench_inv, port $BENCH_INV_PORT; fsync
# off, see test/lib/common.sh; shared_buffers $SHARED_BUFFERS), and stops
# and removes it on exit (1.2 GB with the defaults; KEEP_CLUSTER=1 keeps it).
# About 14 minutes with the defaults on 2 busy cores.
#
# Knobs (environment): ROUNDS (5), NEDGES (1000000), NUSERS (100000),
# CLIENTS (4), JOBS (2, pgbench threads), TXNS (20000 per client and run),
# WARMUP_TXNS (2000 per client, one untimed insert+delete pass per variant),
# SHARED_BUFFERS (2GB), SEED (0.4242, setseed of the graph),
# BENCH_INV_PORT (55470), KEEP_CLUSTER, BENCH_OUT.
# Quick smoke run (about a minute):
#   ROUNDS=1 NEDGES=100000 NUSERS=10000 TXNS=2000 WARMUP_TXNS=200 bash test/bench/inverted.sh
source "$(dirname "$0")/../lib/common.sh"

ROUNDS=${ROUNDS:-5}
NEDGES=${NEDGES:-1000000}
NUSERS=${NUSERS:-100000}
CLIENTS=${CLIENTS:-4}
JOBS=${JOBS:-2}
TXNS=${TXNS:-20000}
WARMUP_TXNS=${WARMUP_TXNS:-2000}
SHARED_BUFFERS=${SHARED_BUFFERS:-2GB}
SEED=${SEED:-0.4242}
PORT=${BENCH_INV_PORT:-55470}
SQLDIR="$REPO/test/bench/inverted"
DB=bench_inv
CSV="$(cluster_dir bench_inv)/edges.csv"
T_START=$(date +%s)

WORK=$(mktemp -d)
cleanup() {
	cluster_stop bench_inv
	rm -rf "$WORK"
	[ -n "${KEEP_CLUSTER:-}" ] || rm -rf "$(cluster_dir bench_inv)"
}
trap cleanup EXIT

die() { echo "inverted.sh: $*" >&2; exit 1; }

ensure_base_packages
build_install
cluster_start bench_inv "$PORT"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# Room for all the tables (about 1.2 GB with 1M edges) in shared buffers,
# so that runs measure CPU and WAL work, not reads from the OS page cache.
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres \
	-c "ALTER SYSTEM SET shared_buffers = '$SHARED_BUFFERS'"
as_postgres "$PGBIN/pg_ctl" -D "$(cluster_dir bench_inv)/data" -l "$(cluster_dir bench_inv)/server.log" \
	-m fast -w restart >/dev/null || die "restart with shared_buffers = $SHARED_BUFFERS failed"

PSQL="$PGBIN/psql"
PGBENCH="$PGBIN/pgbench"
psql_db() { "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
q() { psql_db -A -t -c "$1"; }	# one value

# timed PRE STMT: run PRE (untimed), then STMT under \timing in the same
# session.  Prints "<wall ms> <backend CPU ms or nan>".
timed() {
	local out ms cpu
	out=$(psql_db -A -t <<SQL
SET client_min_messages = warning;
$1
SELECT coalesce(backend_cpu_ms()::text, 'nan') AS cpu0 \\gset
\\timing on
$2
\\timing off
SELECT 'cpu ' || coalesce((backend_cpu_ms() - nullif(:'cpu0', 'nan')::bigint)::text, 'nan');
SQL
) || die "statement failed: $2"
	ms=$(printf '%s\n' "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1)
	cpu=$(printf '%s\n' "$out" | sed -n 's/^cpu \(.*\)$/\1/p' | tail -n 1)
	[ -n "$ms" ] || die "no timing in output of: $2"$'\n'"$out"
	echo "$ms ${cpu:-nan}"
}

median() { # numbers on stdin
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2];
		else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# extra cost per row of X over the base, relative to that of Y, from rates
extra_tps() { awk -v x="$1" -v y="$2" -v a="$3" 'BEGIN { printf "%.2f", (1/x - 1/a) / (1/y - 1/a) }'; }
# ... and from times
extra_time() { awk -v x="$1" -v y="$2" -v a="$3" 'BEGIN { printf "%.2f", (x - a) / (y - a) }'; }

declare -A REV=([a]="" [b]="" [c]=t_c_inverted [d]=t_d_rev [e]=t_e_rev)
declare -A NAME=([a]="(a) base" [b]="(b) + btree (sk, pk)" [c]="(c) + adjlist inverted"
	[d]="(d) + PL/pgSQL row trigger" [e]="(e) + PL/pgSQL stmt trigger")
tables_of() { echo "t_$1${REV[$1]:+, ${REV[$1]}}"; }
# What to TRUNCATE: t_c alone, its trigger truncates t_c_inverted (and
# "TRUNCATE t_c, t_c_inverted" fails: the trigger's TRUNCATE finds the index
# table in use by the outer statement).
truncate_of() { if [ "$1" = c ]; then echo t_c; else tables_of "$1"; fi; }

# check_rows V N: the table of variant V and its reverse table hold N rows
check_rows() {
	local v=$1 want=$2 n
	n=$(q "SELECT count(*) FROM t_$v")
	[ "$n" = "$want" ] || die "t_$v has $n rows, expected $want"
	if [ -n "${REV[$v]}" ]; then
		n=$(q "SELECT count(*) FROM ${REV[$v]}")
		[ "$n" = "$want" ] || die "${REV[$v]} has $n rows, expected $want"
	fi
}

# --------------------------------------------------------------------------
log "creating database $DB, the five tables and a $NEDGES-edge graph ($NUSERS users)"
"$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $DB"
psql_db -c "ALTER DATABASE $DB SET synchronous_commit = off" -c 'CREATE EXTENSION adjlist'
t0=$(date +%s)
psql_db -v nedges="$NEDGES" -v nusers="$NUSERS" -v seed="$SEED" -v csv="$CSV" \
	-f "$SQLDIR/setup.sql"
log "graph generated in $(( $(date +%s) - t0 ))s"
psql_db -c 'SELECT * FROM graph_info'
GRAPH=$(q "SELECT format('%s edges, %s sources, %s targets, max in-degree %s, %s%% of edges into the 100 lowest ids',
	edges, sources, targets, max_in_degree, pct_into_top100) FROM graph_info")
PGVERSION=$(q "SELECT current_setting('server_version')")
# what exactly (c) measured: the extension's triggers on t_c, and the commit
C_TRIGGERS=$(q "SELECT string_agg(tgname || ' (' || CASE WHEN tgtype & 1 = 1 THEN 'row' ELSE 'statement' END || ')', ', ' ORDER BY tgname)
	FROM pg_trigger WHERE tgrelid = 't_c'::regclass AND NOT tgisinternal")
COMMIT=$(git -C "$REPO" log -1 --format=%h 2>/dev/null || echo unknown)
[ -z "$(git -C "$REPO" status --porcelain -- src 2>/dev/null)" ] || COMMIT="$COMMIT, src/ modified"
[ "$(q 'SHOW synchronous_commit')" = off ] || die "synchronous_commit is not off in $DB"

# --------------------------------------------------------------------------
# 1. bulk COPY
BVARIANTS=(a b c d e)
declare -A COPY_MS COPY_CPU
log "bulk COPY of $NEDGES edges: $ROUNDS rounds of ${BVARIANTS[*]}"
for rep in $(seq 1 "$ROUNDS"); do
	for v in "${BVARIANTS[@]}"; do
		read -r ms cpu < <(timed "TRUNCATE $(truncate_of "$v"); CHECKPOINT;" \
			"COPY t_$v (pk, sk, data) FROM '$CSV' WITH (FORMAT csv);")
		check_rows "$v" "$NEDGES"
		COPY_MS[$v]="${COPY_MS[$v]:-} $ms"
		COPY_CPU[$v]="${COPY_CPU[$v]:-} $cpu"
		printf '  round %d %-28s %10.1f ms  (backend CPU %s ms)\n' "$rep" "${NAME[$v]}" "$ms" "$cpu" >&2
	done
done
psql_db -c "TRUNCATE t_e, t_e_rev" -c 'VACUUM ANALYZE'
# everything into shared buffers before the single-row runs
psql_db -A -t -c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm' \
	-c "SELECT sum(pg_prewarm(c.oid)) || ' blocks prewarmed' FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i') AND c.relname LIKE 't\\_%'"
psql_db -c '\dt+ t_*'

# --------------------------------------------------------------------------
# 2. single-row inserts and deletes with pgbench
VARIANTS=(a b c d)
for v in "${VARIANTS[@]}"; do
	for op in insert delete; do
		sed "s/@TABLE@/t_$v/g" "$SQLDIR/$op.sql" >"$WORK/${op}_$v.sql"
	done
done

# CPU time of the single-row runs: the backends of a pgbench run exit when
# it ends, and the postmaster, reaping them, adds their CPU time to its own
# cutime + cstime.  So the difference of those across a run is the CPU the
# run's backends used (plus a few ms of the psql sessions in between): a
# cost per row that, unlike tps, does not suffer much when other processes
# share the CPUs.  Linux only; "nan" elsewhere.
PM_PID=$(head -n 1 "$(cluster_dir bench_inv)/data/postmaster.pid")
PM_CHILDREN=$(pgrep -c -P "$PM_PID" || true)	# the auxiliary processes
children_cpu_ms() { # once every exited backend has been reaped
	local i
	for i in $(seq 1 100); do
		[ "$(pgrep -c -P "$PM_PID" || true)" -le "$PM_CHILDREN" ] && break
		sleep 0.05
	done
	sed 's/.*) //' "/proc/$PM_PID/stat" 2>/dev/null | awk '{ print ($14 + $15) * 10 }' || echo nan
}

# pgbench_run OP V TXNS: prints "<tps without connection time> <backend CPU us per transaction>"
pgbench_run() {
	local op=$1 v=$2 txns=$3 out tps cpu0 cpu1
	cpu0=$(children_cpu_ms)
	out=$("$PGBENCH" -n -M prepared -c "$CLIENTS" -j "$JOBS" -t "$txns" \
		-D n=0 -D per="$txns" -D space=$((CLIENTS * txns)) -D nusers="$NUSERS" -D seed=4242 \
		-f "$WORK/${op}_$v.sql" "$DB" 2>&1) || die "pgbench $op t_$v failed:"$'\n'"$out"
	cpu1=$(children_cpu_ms)
	grep -q "number of transactions actually processed: $((CLIENTS * txns))/" <<<"$out" ||
		die "pgbench $op t_$v did not complete:"$'\n'"$out"
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' <<<"$out")
	[ -n "$tps" ] || die "no tps in pgbench output:"$'\n'"$out"
	echo "$tps $(awk -v a="$cpu0" -v b="$cpu1" -v n=$((CLIENTS * txns)) \
		'BEGIN { if (a == "nan" || b == "nan") print "nan"; else printf "%.1f", (b - a) * 1000 / n }')"
}

vacuum_all() { psql_db -c "VACUUM $(for v in "${VARIANTS[@]}"; do printf '%s, ' "$(tables_of "$v")"; done | sed 's/, $//')"; }

if [ "$WARMUP_TXNS" -gt 0 ]; then
	log "warm-up: $WARMUP_TXNS inserts and deletes per client on each variant (untimed)"
	for v in "${VARIANTS[@]}"; do
		pgbench_run insert "$v" "$WARMUP_TXNS" >/dev/null
		check_rows "$v" $((NEDGES + CLIENTS * WARMUP_TXNS))
		pgbench_run delete "$v" "$WARMUP_TXNS" >/dev/null
		check_rows "$v" "$NEDGES"
	done
	vacuum_all
fi

declare -A TPS CPU
log "pgbench: $ROUNDS rounds of ${VARIANTS[*]}, $CLIENTS clients x $TXNS transactions"
for rep in $(seq 1 "$ROUNDS"); do
	for op in insert delete; do
		for v in "${VARIANTS[@]}"; do
			psql_db -c CHECKPOINT
			read -r tps cpu < <(pgbench_run "$op" "$v" "$TXNS")
			if [ "$op" = insert ]; then
				check_rows "$v" $((NEDGES + CLIENTS * TXNS))
			else
				check_rows "$v" "$NEDGES"
			fi
			TPS[$op$v]="${TPS[$op$v]:-} $tps"
			CPU[$op$v]="${CPU[$op$v]:-} $cpu"
			printf '  round %d %s %-28s %10.1f tps %8s us CPU/row\n' "$rep" "$op" "${NAME[$v]}" "$tps" "$cpu" >&2
		done
	done
	vacuum_all
done

# --------------------------------------------------------------------------
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
# medians: i_/d_ tps, ic_/dc_ CPU us per row, t_ COPY ms, u_ COPY CPU ms
for v in a b c d; do
	declare "i_$v=$(med "${TPS[insert$v]}")" "d_$v=$(med "${TPS[delete$v]}")" \
		"ic_$v=$(med "${CPU[insert$v]}")" "dc_$v=$(med "${CPU[delete$v]}")"
done
for v in a b c d e; do
	declare "t_$v=$(med "${COPY_MS[$v]}")" "u_$v=$(med "${COPY_CPU[$v]}")"
done
human() { awk -v n="$1" 'BEGIN { if (n % 1000000 == 0) printf "%dM", n / 1000000; else if (n % 1000 == 0) printf "%dk", n / 1000; else print n }'; }
# "value (value / base)"
rel() { awk -v x="$1" -v a="$2" 'BEGIN { printf "%s (%.2f)", x, x / a }'; }

table=$(cat <<MD
| median of $ROUNDS (ratio to base) | (a) base | (b) + btree (sk, pk) | (c) + adjlist inverted | (d) + PL/pgSQL row trigger | (e) + PL/pgSQL stmt trigger |
|---|---:|---:|---:|---:|---:|
| insert, tps | $i_a | $(rel "$i_b" "$i_a") | $(rel "$i_c" "$i_a") | $(rel "$i_d" "$i_a") | |
| insert, backend CPU us/row | $ic_a | $(rel "$ic_b" "$ic_a") | $(rel "$ic_c" "$ic_a") | $(rel "$ic_d" "$ic_a") | |
| delete, tps | $d_a | $(rel "$d_b" "$d_a") | $(rel "$d_c" "$d_a") | $(rel "$d_d" "$d_a") | |
| delete, backend CPU us/row | $dc_a | $(rel "$dc_b" "$dc_a") | $(rel "$dc_c" "$dc_a") | $(rel "$dc_d" "$dc_a") | |
| COPY $(human "$NEDGES") edges, ms | $t_a | $(rel "$t_b" "$t_a") | $(rel "$t_c" "$t_a") | $(rel "$t_d" "$t_a") | $(rel "$t_e" "$t_a") |
| COPY, backend CPU ms | $u_a | $(rel "$u_b" "$u_a") | $(rel "$u_c" "$u_a") | $(rel "$u_d" "$u_a") | $(rel "$u_e" "$u_a") |

| ratio | insert tps | insert CPU | delete tps | delete CPU | COPY time | COPY CPU | target |
|---|---:|---:|---:|---:|---:|---:|---|
| adjlist vs second index, throughput c/b | $(ratio "$i_c" "$i_b") | $(ratio "$ic_b" "$ic_c") | $(ratio "$d_c" "$d_b") | $(ratio "$dc_b" "$dc_c") | | | >= 0.95 |
| adjlist vs second index, time c/b | | | | | $(ratio "$t_c" "$t_b") | $(ratio "$u_c" "$u_b") | <= 1.1 |
| extra cost per row over (a), c vs d (PL/pgSQL row trigger) | $(extra_tps "$i_c" "$i_d" "$i_a") | $(extra_time "$ic_c" "$ic_d" "$ic_a") | $(extra_tps "$d_c" "$d_d" "$d_a") | $(extra_time "$dc_c" "$dc_d" "$dc_a") | $(extra_time "$t_c" "$t_d" "$t_a") | $(extra_time "$u_c" "$u_d" "$u_a") | <= 0.5 |
| extra cost per row over (a), c vs e (PL/pgSQL stmt trigger) | | | | | $(extra_time "$t_c" "$t_e" "$t_a") | $(extra_time "$u_c" "$u_e" "$u_a") | |
| extra cost per row over (a), c vs b (second index) | $(extra_tps "$i_c" "$i_b" "$i_a") | $(extra_time "$ic_c" "$ic_b" "$ic_a") | $(extra_tps "$d_c" "$d_b" "$d_a") | $(extra_time "$dc_c" "$dc_b" "$dc_a") | $(extra_time "$t_c" "$t_b" "$t_a") | $(extra_time "$u_c" "$u_b" "$u_a") | |

Throughput c/b: tps_c / tps_b, or CPU_b / CPU_c.  Extra cost per row of c over the base,
relative to that of x: (1/tps_c - 1/tps_a) / (1/tps_x - 1/tps_a), or (cost_c - cost_a) / (cost_x - cost_a)
for CPU and COPY time.  CPU columns: CPU time of the server backends only (from /proc), which
other load on the machine disturbs much less than tps and wall-clock time.
PostgreSQL $PGVERSION, $(nproc) CPUs, load average $LOAD_START at start, $LOAD_END at the end;
fsync off, synchronous_commit off, shared_buffers $SHARED_BUFFERS (all tables fit; prewarmed before pgbench).
adjlist at $COMMIT; triggers on t_c: $C_TRIGGERS.
Graph: $GRAPH.
pgbench: $CLIENTS clients, $JOBS threads, -M prepared, $TXNS transactions per client and run;
inserts of new edges (new source user, power-law target), then deletes of the same edges by key.
Raw tps -- insert a:${TPS[inserta]} | b:${TPS[insertb]} | c:${TPS[insertc]} | d:${TPS[insertd]}
Raw tps -- delete a:${TPS[deletea]} | b:${TPS[deleteb]} | c:${TPS[deletec]} | d:${TPS[deleted]}
Raw CPU us/row -- insert a:${CPU[inserta]} | b:${CPU[insertb]} | c:${CPU[insertc]} | d:${CPU[insertd]}
Raw CPU us/row -- delete a:${CPU[deletea]} | b:${CPU[deleteb]} | c:${CPU[deletec]} | d:${CPU[deleted]}
Raw ms -- COPY a:${COPY_MS[a]} | b:${COPY_MS[b]} | c:${COPY_MS[c]} | d:${COPY_MS[d]} | e:${COPY_MS[e]}
Raw CPU ms -- COPY a:${COPY_CPU[a]} | b:${COPY_CPU[b]} | c:${COPY_CPU[c]} | d:${COPY_CPU[d]} | e:${COPY_CPU[e]}
MD
)

echo
echo "$table"
if [ -n "${BENCH_OUT:-}" ]; then
	printf '%s\n' "$table" >"$BENCH_OUT"
	log "table written to $BENCH_OUT"
fi
log "total run time $(( $(date +%s) - T_START ))s"

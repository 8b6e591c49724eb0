#!/bin/bash
# The benchmark of adjlist (issue 13): every workload of the README's
# Performance table, adjlist against the best hand-written SQL, side by
# side in one run on a seeded R-MAT graph; prints the table (markdown) and
# writes it to $BENCH_OUT.  Not a test: ratios are reported, never asserted.
#
#   bash test/bench/run.sh                 # 1M edges, 20-30 minutes on 2 busy cores
#   BENCH_QUICK=1 bash test/bench/run.sh   # 100k edges, short runs (development, 3 min)
#   BENCH_10M=1 bash test/bench/run.sh     # then the adjlist reads again on 10M
#                                          # edges: 15-30 minutes more, so not by default
#
# It uses the adjlist installed for $PG_CONFIG (make install first, or
# BENCH_BUILD=1), starts its own cluster (bench, port 55560, run as the
# postgres OS user; fsync off, see test/lib/common.sh) and stops it on exit.
# pgRouting (Debian's postgresql-15-pgrouting, installed when missing and
# run as root) is a baseline where it can be installed.
#
# The graph (run/graph.sql): R-MAT, NEDGES FOLLOWS# edges USER#<src> ->
# FOLLOWS#USER#<dst> (scale log2(NEDGES / 8), Graph500 quadrant weights,
# ids from a hash of the edge number: the same graph on every run), plus
# FRIEND# edges both ways for mutual follows and LIKES#POST# edges, loaded
# three times:
#   adjlist   edges (pk adjkey, sk adjkey, data jsonb), inverted index
#             edges_inverted (include data: DynamoDB's ALL projection)
#   text      t_edges, the same rows as text COLLATE "C", PRIMARY KEY
#             (pk, sk) and a btree (sk, pk)
#   int       i_follows / i_friends (src bigint, dst bigint), btrees both
#             ways; pgr_edges for pgRouting
# Write benchmarks use their own tables (run/writes.sql).
#
# Workloads (issue 13's table): neighbors and reverse_neighbors (median
# node, biggest hub; with data, and keys only against an index-only scan),
# common_neighbors (against an integer and a text join), people_you_may_know
# (walk_ranked; against a GROUP BY of a two-hop join), query() (against the
# same rows by hand), 3- and 4-hop reachable_count and shortest_path
# (against recursive CTEs on the integer and on the text copy, and
# pgRouting), put_edge / delete_edge (against one statement writing both
# tables), put_edges (against a multi-row INSERT into both), single-row
# INSERT and DELETE and COPY (against a second btree on (sk, pk)),
# create_inverted_index (against CREATE TABLE AS + ADD PRIMARY KEY; and
# CALL create_inverted_index(concurrently => true) where the build has it).
#
# Method.  Every pair is first run once each side and must return the same
# rows (count and a checksum of the rows' text; integer answers mapped to
# keys): a mismatch aborts.  Then interleaved rounds, the order of the
# sides reversed every other round:
#   - short calls: pgbench -M prepared, 1 client, PGB_TIME s a run, ROUNDS
#     rounds of (adjlist, each SQL side under plan_cache_mode
#     force_custom_plan and force_generic_plan); time per call = 1 / tps;
#     per side the median over rounds; the SQL side is the side and mode of
#     the best median;
#   - traversals and paths: psql sessions of prepared statements timed with
#     \timing; 8 starts (median node, biggest out-hub, 6 by hash), each
#     with a shortest-path target at distance 3 or 4; a checking round runs
#     two SQL formulations on each copy (see lat_sql) in both plan modes
#     and keeps the faster formulation; then LAT_ROUNDS rounds; per start
#     the median, then the median over the starts; pgRouting once per start
#     on the first PGR_STARTS starts;
#   - writes: pgbench -t WRITE_TXNS single-row transactions (keys unique
#     per run, every insert deleted again by the delete runs), ROUNDS
#     rounds; put_edges and multi-row INSERTs of BATCH edges, BATCHES
#     times; COPY and create_inverted_index COPY_ROUNDS times.
# Ratio = SQL time / adjlist time (> 1: adjlist is faster), the median over
# rounds of the ratio within a round: the machine is shared, and its load
# changes between rounds more than between two runs seconds apart.  "met?"
# compares it with the targets of issue 13 / DESIGN section 7.
#
# Knobs (environment): BENCH_QUICK (0), NEDGES (1000000; quick 100000),
# SEED (42), ROUNDS (7; quick 1), PGB_TIME (1), LAT_ROUNDS (5;
# quick 1), PGR_STARTS (2; 0 skips pgRouting), WRITE_TXNS (3000; quick
# 300), BATCH (1000; quick 200), BATCHES (5; quick 2), COPY_ROUNDS (3;
# quick 1), BENCH_10M (0), BENCH_PARTS ("short lat writes": the parts to
# run), SHARED_BUFFERS (2GB; 6GB with BENCH_10M=1, so that the 10M graph,
# about 3 GB, is in shared buffers as the 1M one is), BENCH_PORT (55560),
# BENCH_BUILD (0), BENCH_OUT (a file for the table), BENCH_RAW (a directory
# for every raw number, pgbench's output and the statements), BENCH_KEEP
# (0; 1 leaves the cluster running with its graph, for profiling:
# BENCH_PARTS=none BENCH_KEEP=1 builds the graph and stops there).
source "$(dirname "$0")/../lib/common.sh"

BENCH_QUICK=${BENCH_QUICK:-0}
if [ "$BENCH_QUICK" = 1 ]; then
	NEDGES=${NEDGES:-100000}; ROUNDS=${ROUNDS:-1}; PGB_TIME=${PGB_TIME:-1}; LAT_ROUNDS=${LAT_ROUNDS:-1}
	WRITE_TXNS=${WRITE_TXNS:-300}; BATCH=${BATCH:-200}; BATCHES=${BATCHES:-2}; COPY_ROUNDS=${COPY_ROUNDS:-1}
	SHARED_BUFFERS=${SHARED_BUFFERS:-512MB}
fi
NEDGES=${NEDGES:-1000000}
SEED=${SEED:-42}
ROUNDS=${ROUNDS:-7}
PGB_TIME=${PGB_TIME:-1}
LAT_ROUNDS=${LAT_ROUNDS:-5}
PGR_STARTS=${PGR_STARTS:-2}
WRITE_TXNS=${WRITE_TXNS:-3000}
BATCH=${BATCH:-1000}
BATCHES=${BATCHES:-5}
COPY_ROUNDS=${COPY_ROUNDS:-3}
BENCH_10M=${BENCH_10M:-0}
BENCH_PARTS=${BENCH_PARTS:-short lat writes}
if [ "$BENCH_10M" = 1 ]; then SHARED_BUFFERS=${SHARED_BUFFERS:-6GB}; fi
SHARED_BUFFERS=${SHARED_BUFFERS:-2GB}
PORT=${BENCH_PORT:-55560}
BENCH_BUILD=${BENCH_BUILD:-0}
DIR="$REPO/test/bench/run"
DB=bench
DB10=bench10m
PSQL="$PGBIN/psql"
PGBENCH="$PGBIN/pgbench"
T_START=$(date +%s)

WORK=$(mktemp -d)
chmod 755 "$WORK"
cleanup() {
	local rc=$?
	if [ "$rc" != 0 ] && [ -f "$(cluster_dir bench)/server.log" ]; then
		echo "--- last lines of $(cluster_dir bench)/server.log" >&2
		tail -n 8 "$(cluster_dir bench)/server.log" >&2
		if [ -n "${SO_STAMP:-}" ] && [ "$(so_stamp)" != "$SO_STAMP" ]; then
			echo "run.sh: note: $SO was reinstalled during the run (another build on this machine?):" \
				"a server that maps the old file can crash" >&2
		fi
	fi
	if [ "${BENCH_KEEP:-0}" = 1 ] && [ "$rc" = 0 ]; then
		echo "run.sh: cluster left running: PGHOST=${PGHOST:-} PGPORT=${PGPORT:-} psql -U postgres $DB" >&2
	else
		cluster_stop bench
	fi
	if [ -n "${BENCH_RAW:-}" ]; then mkdir -p "$BENCH_RAW" && cp -r "$WORK"/. "$BENCH_RAW"/; fi
	rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "run.sh: $*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - T_START ))s"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
part() { [[ " $BENCH_PARTS " == *" $1 "* ]]; }

# other builds on this machine may reinstall the library during the run
SO="$("$PG_CONFIG" --pkglibdir)/adjlist.so"
so_stamp() { stat -c '%y' "$SO" 2>/dev/null | cut -d. -f1; }

ensure_base_packages
ensure_packages postgresql-$PGVER-pgrouting || log "pgRouting not installed: its baselines are skipped"
if [ "$BENCH_BUILD" = 1 ]; then build_install; fi
SO_STAMP=$(so_stamp)
cluster_start bench "$PORT"
CDIR=$(cluster_dir bench)
LOAD_START=$(loadavg)
UPTIME_START=$(uptime)

# Room for every table in shared buffers; serial plans; no autovacuum
# during the runs (the driver vacuums); the same settings for both sides.
"$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres \
	-c "ALTER SYSTEM SET shared_buffers = '$SHARED_BUFFERS'" \
	-c "ALTER SYSTEM SET autovacuum = off" \
	-c "ALTER SYSTEM SET jit = off" \
	-c "ALTER SYSTEM SET max_parallel_workers_per_gather = 0" \
	-c "ALTER SYSTEM SET max_parallel_maintenance_workers = 0" \
	-c "ALTER SYSTEM SET maintenance_work_mem = '512MB'" \
	-c "ALTER SYSTEM SET work_mem = '64MB'" \
	-c "ALTER SYSTEM SET synchronous_commit = off" \
	-c "ALTER SYSTEM SET max_wal_size = '8GB'" \
	-c "ALTER SYSTEM SET checkpoint_timeout = '1h'"
as_postgres "$PGBIN/pg_ctl" -D "$CDIR/data" -l "$CDIR/server.log" -m fast -w restart >/dev/null ||
	die "restart with shared_buffers = $SHARED_BUFFERS failed"

psql_on() { local db=$1; shift; "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
q_on() { psql_on "$1" -A -t -c "$2"; }
q() { q_on "$DB" "$1"; }

median() { # numbers on stdin
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) printf "%.6g\n", a[(NR + 1) / 2];
		else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b == 0) print "nan"; else printf "%.6g", a / b }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "nan" && (b == "nan" || a < b)) }'; }
fmt() { awk -v v="$1" 'BEGIN { if (v == "nan" || v == "") print "n/a"; else if (v >= 100) printf "%.0f", v;
	else if (v >= 10) printf "%.1f", v; else if (v >= 1) printf "%.2f", v; else printf "%.3f", v }'; }
fmt_ms() { # milliseconds, seconds from 10 s on
	awk -v v="$1" 'BEGIN { if (v == "nan" || v == "") print "n/a"; else if (v >= 10000) printf "%.1f s", v / 1000;
		else if (v >= 100) printf "%.0f ms", v; else if (v >= 10) printf "%.1f ms", v;
		else if (v >= 1) printf "%.2f ms", v; else printf "%.3f ms", v }'
}
fmt_ratio() { awk -v v="$1" 'BEGIN { if (v == "nan" || v == "") print "n/a"; else if (v >= 100) printf "%.0fx", v;
	else if (v >= 10) printf "%.1fx", v; else printf "%.2fx", v }'; }
meets() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "nan" || v == "") print "n/a"; else print (v >= t) ? "yes" : "**no**" }'; }
human() { awk -v n="$1" 'BEGIN { if (n % 1000000 == 0) printf "%dM", n / 1000000; else if (n % 1000 == 0) printf "%dk", n / 1000; else print n }'; }

# --------------------------------------------------------------------------
# The graph
build_graph() { # DB NEDGES FULL
	local db=$1 ne=$2 full=$3 t0
	log "database $db: R-MAT graph of $ne edges (all variants: $full) [at $(elapsed)]"
	"$PSQL" -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
	psql_on "$db" -c 'CREATE EXTENSION adjlist' -c 'CREATE EXTENSION pg_prewarm'
	if [ "$full" = true ] && [ "$PGR_STARTS" -gt 0 ] &&
		[ "$(q_on "$db" "SELECT count(*) FROM pg_available_extensions WHERE name = 'pgrouting'")" = 1 ]; then
		psql_on "$db" -c 'CREATE EXTENSION pgrouting CASCADE' 2>/dev/null ||
			log "pgRouting could not be created (PostGIS missing from this server?): its baselines are skipped"
	fi
	t0=$(date +%s)
	psql_on "$db" -v nedges="$ne" -v seed="$SEED" -v full="$full" -f "$DIR/graph.sql"
	psql_on "$db" -c 'VACUUM (FREEZE, ANALYZE)'
	all_visible "$db"
	log "graph of $db built in $(( $(date +%s) - t0 ))s"
}
# Every table's pages all-visible, on both sides, so that index-only reads
# skip the heap alike.  A database-wide VACUUM has once left the inverted
# index (built just before it) with no page all-visible: the in-edge reads
# then fetched every heap tuple.  Tables left so are vacuumed again.
all_visible() { # DB
	local t tries
	for tries in 1 2 3; do
		t=$(q_on "$1" "SELECT string_agg(format('%I', relname), ', ') FROM pg_class
			WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND relpages > 0
			  AND relallvisible < relpages")
		[ -z "$t" ] && return 0
		log "not all-visible after VACUUM: $t; vacuumed again"
		psql_on "$1" -c "VACUUM (FREEZE, ANALYZE) $t"
	done
	log "WARNING: still not all-visible: $t"
}
prewarm() { # DB: tables, indexes and visibility maps into shared buffers
	psql_on "$1" -A -t -c "SELECT sum(pg_prewarm(c.oid)) || ' blocks prewarmed' FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')" \
		-c "SELECT sum(pg_prewarm(c.oid, 'buffer', 'vm')) || ' visibility map blocks prewarmed' FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND pg_relation_size(c.oid, 'vm') > 0" >&2
}
graph_line() { # DB
	q_on "$1" "SELECT format('%s FOLLOWS# edges (R-MAT scale %s), %s nodes; out-degree median %s, max %s; in-degree median %s, max %s; %s FRIEND#, %s LIKES# edges',
		follows, scale, nodes, median_out_degree, max_out_degree, median_in_degree, max_in_degree, friends, likes) FROM graph_info"
}

build_graph "$DB" "$NEDGES" true
prewarm "$DB"
psql_on "$DB" -c 'SELECT * FROM graph_info' -c 'SELECT b.*, d.out_degree, d.in_degree FROM bench_nodes b LEFT JOIN degrees d USING (id) ORDER BY role, ord' \
	-c 'SELECT * FROM bench_starts ORDER BY ord' >&2
GRAPH=$(graph_line "$DB")
HAS_PGR=$(q "SELECT count(*) FROM pg_extension WHERE extname = 'pgrouting'")
[ "$HAS_PGR" = 1 ] || PGR_STARTS=0
PGVERSION=$(q "SELECT current_setting('server_version')")
ADJ_VERSION=$(q "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")
PGR_VERSION=$([ "$HAS_PGR" = 1 ] && q "SELECT pgr_version()" || echo "not installed")
COMMIT=$(git -C "$REPO" log -1 --format=%h 2>/dev/null || echo unknown)

id_of() { q "SELECT id FROM bench_nodes WHERE role = '$1' ORDER BY ord LIMIT 1"; }
deg_of() { q "SELECT $2 FROM degrees WHERE id = $1"; }
MED=$(id_of median); OUTHUB=$(id_of out_hub); OUTHUB2=$(id_of out_hub2)
INHUB=$(id_of in_hub); INHUB2=$(id_of in_hub2); CNB=$(id_of cn_b)
FMED=$(id_of friend_median); FHUB=$(id_of friend_hub)

# --------------------------------------------------------------------------
# Short calls with pgbench.  A case has an adjlist side and SQL sides, each
# a statement with pgbench variables (-D) and a checksum expression over
# the statement's row s (integer sides map their ids to keys there).
declare -a CASES
declare -A C_LABEL C_MIN C_TARGET C_DARGS C_SIDES C_ROWS S_SQL S_CHK TPS
def() { IFS= read -r -d '' "$1" || true; }	# def VAR <<'SQL' ... SQL
add_case() { # NAME LABEL MIN-RATIO TARGET-TEXT DARGS
	CASES+=("$1"); C_LABEL[$1]=$2; C_MIN[$1]=$3; C_TARGET[$1]=$4; C_DARGS[$1]=$5; C_SIDES[$1]=""
}
add_side() { # CASE SIDE SQL [CHECK]
	C_SIDES[$1]="${C_SIDES[$1]} $2"; S_SQL[$1:$2]=$3; S_CHK[$1:$2]=${4:-s::text}
	printf '%s;\n' "$3" >"$WORK/pgb.$1.$2.sql"
}

# check_case CASE: every side returns the same rows; C_ROWS = their number
check_case() {
	local c=$1 side sql a pv=() want="" got
	for a in ${C_DARGS[$c]}; do [ "$a" = -D ] || pv+=(-v "$a"); done
	for side in ${C_SIDES[$c]}; do
		# pgbench :var -> psql :'var'
		sql=$(sed -E "s/(^|[^:]):([a-z_]+)/\1:'\2'/g" <<<"${S_SQL[$c:$side]}")
		got=$(psql_on "$DB" "${pv[@]}" -A -t <<<"SELECT count(*) || ':' || coalesce(sum(hashtext(${S_CHK[$c:$side]}))::text, '0') FROM ($sql) s;") ||
			die "$c: $side failed"
		[ -z "$want" ] && want=$got
		[ "$got" = "$want" ] || die "MISMATCH in $c: $side returns $got (rows:checksum), ${C_SIDES[$c]%% *} $want"
		{ echo "== $c $side (custom plan)"; psql_on "$DB" "${pv[@]}" -A -t <<<"EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) $sql;"; } >>"$WORK/plans.txt"
	done
	C_ROWS[$c]=${want%%:*}
	[ "${C_ROWS[$c]}" -gt 0 ] || die "$c: no rows (the workload has no data)"
	printf '  %-12s %6s rows, same on%s\n' "$c" "${C_ROWS[$c]}" "${C_SIDES[$c]}" >&2
}

# pgb DB SCRIPT MODE SECONDS|-tN DARGS...: tps without connection time
pgb() {
	local db=$1 script=$2 mode=$3 dur=$4 out tps opts=""; shift 4
	case $mode in
		custom) opts="-c plan_cache_mode=force_custom_plan";;
		generic) opts="-c plan_cache_mode=force_generic_plan";;
	esac
	local len=(-T "$dur"); [[ $dur == -t* ]] && len=(-t "${dur#-t}")
	out=$(PGOPTIONS="$opts" "$PGBENCH" -n -M prepared -c 1 -j 1 "${len[@]}" "$@" -f "$script" "$db" 2>&1) ||
		die "pgbench $script ($mode) failed:"$'\n'"$out"
	printf '== %s %s %s %s\n%s\n' "$script" "$mode" "$dur" "$*" "$out" >>"$WORK/pgbench.log"
	if grep -q '^number of failed transactions' <<<"$out" && ! grep -q '^number of failed transactions: 0 ' <<<"$out"; then
		die "pgbench $script had failures:"$'\n'"$out"
	fi
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' <<<"$out")
	[ -n "$tps" ] || die "no tps in pgbench output:"$'\n'"$out"
	echo "$tps"
}

# modes of a side: adjlist runs as a client would (auto), SQL both ways
modes_of() { case $1 in adjlist|pgr) echo auto;; *) echo "custom generic";; esac; }

# in_order ROUND WORDS...: the words, reversed in even rounds (so that
# no side always runs first)
in_order() { local r=$1; shift; if [ $((r % 2)) = 1 ]; then echo "$@"; else printf '%s\n' "$@" | tac | tr '\n' ' '; fi; }

run_cases() { # DB CASES...: ROUNDS interleaved rounds of every side and mode
	local db=$1 c side mode r tps sm; shift
	for r in $(seq 1 "$ROUNDS"); do
		for c in "$@"; do
			for sm in $(in_order "$r" $(for side in ${C_SIDES[$c]}; do for mode in $(modes_of "$side"); do echo "$side:$mode"; done; done)); do
				side=${sm%%:*}; mode=${sm#*:}
				# shellcheck disable=SC2086
				tps=$(pgb "$db" "$WORK/pgb.$c.$side.sql" "$mode" "$PGB_TIME" ${C_DARGS[$c]})
				TPS[$c:$side:$mode]="${TPS[$c:$side:$mode]:-} $tps"
				printf '  round %d %-12s %-8s %-8s %10.1f tps\n' "$r" "$c" "$side" "$mode" "$tps" >&2
			done
		done
	done
}

# paired_ratio "A-VALUES" "B-VALUES": the median over rounds of B[r] / A[r]
paired_ratio() {
	paste -d' ' <(tr ' ' '\n' <<<"$1" | grep -v '^$') <(tr ' ' '\n' <<<"$2" | grep -v '^$') |
		awk '{ if ($1 > 0) print $2 / $1 }' | median
}

# case_result CASE [SIDES]: "adjlist-ms best-sql-ms ratio best-side:mode": ms
# = 1000 / median tps; the SQL side is the side and mode of the highest
# median tps; the ratio is the median over rounds of the ratio of tps
# within a round (sides measured a few seconds apart, so a change of the
# machine's load between rounds cancels out)
case_result() {
	local c=$1 side mode t best="" bestt=0 a
	a=$(med "${TPS[$c:adjlist:auto]}")
	for side in ${2:-${C_SIDES[$c]}}; do
		[ "$side" = adjlist ] && continue
		for mode in custom generic; do
			t=$(med "${TPS[$c:$side:$mode]:-}")
			if [ "$t" != nan ] && awk -v a="$t" -v b="$bestt" 'BEGIN { exit !(a > b) }'; then best="$side:$mode"; bestt=$t; fi
		done
	done
	echo "$(div 1000 "$a") $(div 1000 "$bestt") $(paired_ratio "${TPS[$c:$best]}" "${TPS[$c:adjlist:auto]}") $best"
}

# The read cases.  Variables: node / nid (key / id), a, b / aid, bid.
FOLLOWS_RANGE="sk >= 'FOLLOWS#' AND sk < 'FOLLOWS\$'"
def ADJ_NB <<'SQL'
SELECT neighbor, data FROM neighbors('edges', :node, 'FOLLOWS#')
SQL
def TXT_NB <<SQL
SELECT substr(sk, 9) AS neighbor, data FROM t_edges WHERE pk = :node AND $FOLLOWS_RANGE ORDER BY sk
SQL
def ADJ_NBK <<'SQL'
SELECT neighbor FROM neighbors('edges', :node, 'FOLLOWS#')
SQL
def TXT_NBK <<SQL
SELECT substr(sk, 9) AS neighbor FROM t_edges WHERE pk = :node AND $FOLLOWS_RANGE ORDER BY sk
SQL
def ADJ_REV <<'SQL'
SELECT neighbor, data FROM reverse_neighbors('edges', :node, 'FOLLOWS#')
SQL
def TXT_REV <<'SQL'
SELECT pk AS neighbor, data FROM t_edges WHERE sk = 'FOLLOWS#' || :node ORDER BY pk
SQL
def ADJ_REVK <<'SQL'
SELECT neighbor FROM reverse_neighbors('edges', :node, 'FOLLOWS#')
SQL
def TXT_REVK <<'SQL'
SELECT pk AS neighbor FROM t_edges WHERE sk = 'FOLLOWS#' || :node ORDER BY pk
SQL
def ADJ_CN <<'SQL'
SELECT n FROM common_neighbors('edges', :a, :b, 'FOLLOWS#') n
SQL
def INT_CN <<'SQL'
SELECT x.dst AS n FROM i_follows x JOIN i_follows y ON y.src = :bid AND y.dst = x.dst WHERE x.src = :aid ORDER BY x.dst
SQL
def TXT_CN <<SQL
SELECT substr(x.sk, 9) AS n FROM t_edges x JOIN t_edges y ON y.pk = :b AND y.sk = x.sk
WHERE x.pk = :a AND x.sk >= 'FOLLOWS#' AND x.sk < 'FOLLOWS\$' ORDER BY x.sk
SQL
def ADJ_CNI <<'SQL'
SELECT n FROM common_neighbors('edges', :a, :b, 'FOLLOWS#', 'in') n
SQL
def INT_CNI <<'SQL'
SELECT x.src AS n FROM i_follows x JOIN i_follows y ON y.dst = :bid AND y.src = x.src WHERE x.dst = :aid ORDER BY x.src
SQL
def TXT_CNI <<'SQL'
SELECT x.pk AS n FROM t_edges x JOIN t_edges y ON y.sk = 'FOLLOWS#' || :b AND y.pk = x.pk
WHERE x.sk = 'FOLLOWS#' || :a ORDER BY x.pk
SQL
def ADJ_PYMK <<'SQL'
SELECT node, score FROM people_you_may_know('edges', :node, 'FRIEND#', NULL)
SQL
def INT_PYMK <<'SQL'
SELECT f2.dst AS node, count(*) AS score
FROM i_friends f1 JOIN i_friends f2 ON f2.src = f1.dst
WHERE f1.src = :nid AND f2.dst <> :nid
  AND NOT EXISTS (SELECT FROM i_friends f3 WHERE f3.src = :nid AND f3.dst = f2.dst)
GROUP BY f2.dst ORDER BY score DESC, node
SQL
def TXT_PYMK <<'SQL'
SELECT substr(f2.sk, 8) AS node, count(*) AS score
FROM t_edges f1 JOIN t_edges f2 ON f2.pk = substr(f1.sk, 8) AND f2.sk >= 'FRIEND#' AND f2.sk < 'FRIEND$'
WHERE f1.pk = :node AND f1.sk >= 'FRIEND#' AND f1.sk < 'FRIEND$' AND f2.sk <> 'FRIEND#' || :node
  AND NOT EXISTS (SELECT FROM t_edges f3 WHERE f3.pk = :node AND f3.sk = f2.sk)
GROUP BY f2.sk ORDER BY score DESC, node
SQL
def ADJ_Q <<'SQL'
SELECT * FROM query('edges', :node, 'begins_with', 'FOLLOWS#')
SQL
def TXT_Q <<SQL
SELECT pk AS partition_key, sk AS sort_key, jsonb_build_object('pk', pk, 'sk', sk) AS key, to_jsonb(t) AS item
FROM t_edges t WHERE pk = :node AND $FOLLOWS_RANGE ORDER BY sk
SQL
def ADJ_QL <<'SQL'
SELECT * FROM query('edges', :node, 'begins_with', 'FOLLOWS#', lim => 100)
SQL
def TXT_QL <<SQL
SELECT pk AS partition_key, sk AS sort_key, jsonb_build_object('pk', pk, 'sk', sk) AS key, to_jsonb(t) AS item
FROM t_edges t WHERE pk = :node AND $FOLLOWS_RANGE ORDER BY sk LIMIT 100
SQL

n1() { echo "-D node=USER#$1 -D nid=$1"; }
n2() { echo "-D a=USER#$1 -D b=USER#$2 -D aid=$1 -D bid=$2"; }
add_read_cases() { # [SUFFIX [adjlist]]: the cases, named CASE SUFFIX; only adjlist sides with "adjlist"
	local x=${1:-} only=${2:-} c
	add_case nb_med$x "neighbors (neighbor, data), median node" 0.95 "≥ 0.95×" "$(n1 "$MED")"
	add_case nb_hub$x "neighbors (neighbor, data), biggest out-hub" 0.95 "≥ 0.95×" "$(n1 "$OUTHUB")"
	add_case nbk_med$x "neighbors, keys only, median node" 0.909 "within 1.1× of index-only scan" "$(n1 "$MED")"
	add_case nbk_hub$x "neighbors, keys only, biggest out-hub" 0.909 "within 1.1× of index-only scan" "$(n1 "$OUTHUB")"
	add_case rev_med$x "reverse_neighbors (neighbor, data), median node" 0.95 "≥ 0.95×" "$(n1 "$MED")"
	add_case rev_hub$x "reverse_neighbors (neighbor, data), biggest in-hub" 0.95 "≥ 0.95×" "$(n1 "$INHUB")"
	add_case revk_med$x "reverse_neighbors, keys only, median node" 0.909 "within 1.1× of index-only scan" "$(n1 "$MED")"
	add_case revk_hub$x "reverse_neighbors, keys only, biggest in-hub" 0.909 "within 1.1× of index-only scan" "$(n1 "$INHUB")"
	for c in nb_med$x nb_hub$x; do add_side $c adjlist "$ADJ_NB"; [ -n "$only" ] || add_side $c text "$TXT_NB"; done
	for c in nbk_med$x nbk_hub$x; do add_side $c adjlist "$ADJ_NBK"; [ -n "$only" ] || add_side $c text "$TXT_NBK"; done
	for c in rev_med$x rev_hub$x; do add_side $c adjlist "$ADJ_REV"; [ -n "$only" ] || add_side $c text "$TXT_REV"; done
	for c in revk_med$x revk_hub$x; do add_side $c adjlist "$ADJ_REVK"; [ -n "$only" ] || add_side $c text "$TXT_REVK"; done
	[ -n "$only" ] && return
	add_case cn_med$x "common_neighbors out, median node and a node sharing a neighbour" 1.0 "≥ 1.0× integer join" "$(n2 "$MED" "$CNB")"
	add_case cn_hub$x "common_neighbors out, two biggest out-hubs" 1.0 "≥ 1.0× integer join" "$(n2 "$OUTHUB" "$OUTHUB2")"
	add_case cni_hub$x "common_neighbors in, two biggest in-hubs" 1.0 "≥ 1.0× integer join" "$(n2 "$INHUB" "$INHUB2")"
	for c in cn_med$x cn_hub$x; do
		add_side $c adjlist "$ADJ_CN"; add_side $c int "$INT_CN" "ROW('USER#' || s.n)::text"; add_side $c text "$TXT_CN"
	done
	add_side cni_hub$x adjlist "$ADJ_CNI"; add_side cni_hub$x int "$INT_CNI" "ROW('USER#' || s.n)::text"; add_side cni_hub$x text "$TXT_CNI"
	add_case pymk_med$x "people_you_may_know (walk_ranked), FRIEND#, median node" 1.5 "≥ 1.5×" "$(n1 "$FMED")"
	add_case pymk_hub$x "people_you_may_know (walk_ranked), FRIEND#, biggest node" 1.5 "≥ 1.5×" "$(n1 "$FHUB")"
	for c in pymk_med$x pymk_hub$x; do
		add_side $c adjlist "$ADJ_PYMK"; add_side $c int "$INT_PYMK" "ROW('USER#' || s.node, s.score)::text"; add_side $c text "$TXT_PYMK"
	done
	add_case q_med$x "query(), median node, whole partition" 0.833 "within 1.2× latency" "$(n1 "$MED")"
	add_case q_hub$x "query(), biggest out-hub, lim => 100" 0.833 "within 1.2× latency" "$(n1 "$OUTHUB")"
	add_side q_med$x adjlist "$ADJ_Q"; add_side q_med$x text "$TXT_Q"
	add_side q_hub$x adjlist "$ADJ_QL"; add_side q_hub$x text "$TXT_QL"
}
add_read_cases
if part short; then
	log "checking the short calls [at $(elapsed)]"
	for c in "${CASES[@]}"; do check_case "$c"; done
	log "short calls: pgbench -M prepared, 1 client, $ROUNDS rounds of ${PGB_TIME}s [at $(elapsed)]"
	run_cases "$DB" "${CASES[@]}"
fi

# --------------------------------------------------------------------------
# Traversals and paths: prepared statements in psql sessions.  Two
# formulations of the breadth-first search in SQL, each on the integer
# and on the text copy:
#   union   a recursive CTE over (node, depth) with UNION: every node is
#           expanded once per depth it is reached at; reach counts the
#           distinct nodes; the path length is the first row that reaches
#           the target (LIMIT 1: the CTE is evaluated only that far, and
#           its rows come level by level)
#   levels  level by level: the frontier and the nodes seen as arrays,
#           each level joins the frontier to the edges and keeps what is
#           not yet seen (EXCEPT: a hashed set difference that also
#           removes duplicates); the path search stops at the level that
#           reaches the target
# The checking round runs all four (both plan modes); the faster
# formulation of each copy is then timed.
lat_step() { # TYPE SOURCE [MORE]: the edges out of the nodes u.n of SOURCE (and MORE columns)
	if [ "$1" = int ]; then
		echo "SELECT e.dst${3:-} FROM $2 JOIN i_follows e ON e.src = u.n"
	else
		echo "SELECT substr(e.sk, 9)${3:-} FROM $2 JOIN t_edges e ON e.pk = u.n AND e.sk >= 'FOLLOWS#' AND e.sk < 'FOLLOWS\$'"
	fi
}
lat_type() { if [ "$1" = int ]; then echo bigint; else echo 'text COLLATE "C"'; fi; }
lat_sql() { # W TYPE FORM: the statement, $1 the start, $2 the target
	local w=$1 ty=$2 form=$3 t step
	t=$(lat_type "$ty")
	case $form in
		union) step=$(lat_step "$ty" "r AS u" ", u.d + 1");;
		levels) step=$(lat_step "$ty" "unnest(lvl.frontier) u(n)");;
	esac
	case $w:$form in
		r?:union)
			echo "WITH RECURSIVE r(n, d) AS (SELECT \$1::$t, 0 UNION $step WHERE u.d < ${w#r}) SELECT count(DISTINCT n) - 1 FROM r";;
		r?:levels)
			echo "WITH RECURSIVE lvl(d, frontier, seen) AS (SELECT 0, ARRAY[\$1::$t], ARRAY[\$1::$t] UNION ALL SELECT lvl.d + 1, nx.f, lvl.seen || nx.f FROM lvl CROSS JOIN LATERAL (SELECT ARRAY($step EXCEPT SELECT unnest(lvl.seen)) AS f) nx WHERE lvl.d < ${w#r} AND cardinality(nx.f) > 0) SELECT max(cardinality(seen)) - 1 FROM lvl";;
		sp:union)
			echo "WITH RECURSIVE r(n, d) AS (SELECT \$1::$t, 0 UNION $step WHERE u.d < 6) SELECT d + 1 FROM r WHERE n = \$2::$t LIMIT 1";;
		sp:levels)
			echo "WITH RECURSIVE lvl(d, frontier, seen, found) AS (SELECT 0, ARRAY[\$1::$t], ARRAY[\$1::$t], \$1::$t = \$2::$t UNION ALL SELECT lvl.d + 1, nx.f, lvl.seen || nx.f, \$2::$t = ANY (nx.f) FROM lvl CROSS JOIN LATERAL (SELECT ARRAY($step EXCEPT SELECT unnest(lvl.seen)) AS f) nx WHERE NOT lvl.found AND lvl.d < 6 AND cardinality(nx.f) > 0) SELECT max(d) + 1 FROM lvl WHERE found";;
	esac
}
PGR_SQL="'SELECT id, source, target, cost FROM pgr_edges'"
SQL_FORMS="int_union int_levels text_union text_levels"

# lat_prepare VARIANT...: the PREPAREs of a latency session
lat_prepare() {
	local v w t
	echo 'SET client_min_messages = warning;'
	for v in "$@"; do
		case $v in
			adjlist)
				echo "PREPARE r3_adjlist(adjkey) AS SELECT reachable_count('edges', \$1, 'FOLLOWS#', 3);"
				echo "PREPARE r4_adjlist(adjkey) AS SELECT reachable_count('edges', \$1, 'FOLLOWS#', 4);"
				echo "PREPARE sp_adjlist(adjkey, adjkey) AS SELECT cardinality(shortest_path('edges', \$1, \$2, 'FOLLOWS#', 6));";;
			pgr)
				echo "PREPARE r3_pgr(bigint) AS SELECT count(*) FROM pgr_breadthFirstSearch($PGR_SQL, \$1, 3, true) WHERE depth > 0;"
				echo "PREPARE r4_pgr(bigint) AS SELECT count(*) FROM pgr_breadthFirstSearch($PGR_SQL, \$1, 4, true) WHERE depth > 0;"
				echo "PREPARE sp_pgr(bigint, bigint) AS SELECT count(*) FROM pgr_dijkstra($PGR_SQL, \$1, \$2, true);";;
			*)
				for w in r3 r4 sp; do
					t=bigint; [ "${v%%_*}" = int ] || t=text
					echo "PREPARE ${w}_$v($t, $t) AS $(lat_sql $w "${v%%_*}" "${v#*_}");"
				done;;
		esac
	done
}

# lat_session DB OUT FIRST-ROUND LAST-ROUND: every start, workload and
# variant of LAT_VARS[W] (pgr: round 1, the first PGR_STARTS starts);
# output lines "W:VARIANT:MODE:ORD:ROUND MS RESULT"; every answer must be
# adjlist's
declare -A LAT_VARS
lat_session() {
	local db=$1 out=$2 r0=$3 r1=$4 file r ord w v mode id node tid target args all
	file="$WORK/lat.$db.$r0.psql"
	all=$(printf '%s\n' ${LAT_VARS[r3]} ${LAT_VARS[r4]} ${LAT_VARS[sp]} | sort -u | tr '\n' ' ')
	{
		# shellcheck disable=SC2086
		lat_prepare $all
		echo '\timing on'
		for r in $(seq "$r0" "$r1"); do
			while IFS='|' read -r ord id node tid target; do
				for w in r3 r4 sp; do
					for v in ${LAT_VARS[$w]}; do
						if [ "$v" = pgr ]; then
							{ [ "$r" = 1 ] && [ "$ord" -le "$PGR_STARTS" ]; } || continue
						fi
						case $v in
							adjlist|text_*) args="'$node'"; if [ $w = sp ]; then args="'$node', '$target'"; fi;;
							*) args="$id"; if [ $w = sp ]; then args="$id, $tid"; fi;;
						esac
						case $v:$w in text_*:r?) args="$args, NULL";; int_*:r?) args="$args, NULL";; esac
						for mode in $(modes_of "$v"); do
							if [ "$mode" = auto ]; then
								printf '\\echo @@ %s:%s:%s:%s:%s\nEXECUTE %s_%s(%s);\n' "$w" "$v" "$mode" "$ord" "$r" "$w" "$v" "$args"
							else
								printf 'SET plan_cache_mode = force_%s_plan;\n\\echo @@ %s:%s:%s:%s:%s\nEXECUTE %s_%s(%s);\nRESET plan_cache_mode;\n' \
									"$mode" "$w" "$v" "$mode" "$ord" "$r" "$w" "$v" "$args"
							fi
						done
					done
				done
			done < <(q_on "$db" "SELECT ord, id, node, target_id, target FROM bench_starts ORDER BY ord")
		done
	} >"$file"
	"$PSQL" -X -q -v ON_ERROR_STOP=1 -A -t -d "$db" -f "$file" 2>&1 |
		awk '/^@@ / { tag = $2; res = ""; next }
			 /^Time: / { if (tag != "") print tag, $2, (res == "" ? "-" : res); tag = ""; next }
			 /ERROR/ { print "ERROR", $0; exit 1 }
			 { if (res == "") res = $0 }' >"$out"
	if grep -q '^ERROR' "$out"; then die "traversals: $(grep '^ERROR' "$out")"; fi
	[ -s "$out" ] || die "traversals: no output"
	# adjlist comes first for every workload and start
	bad=$(awk '{ split($1, t, ":"); k = t[1] ":" t[4]; if (t[2] == "adjlist" && !(k in w)) w[k] = $3
		   if ($3 != w[k]) { print $1, "answered", $3, "adjlist", w[k]; exit } }' "$out")
	[ -z "$bad" ] || die "MISMATCH in the traversals: $bad"
}

# lat_ms FILE W VARIANT ORD: median over the file's rounds (SQL: the faster plan mode)
lat_ms() {
	local f=$1 w=$2 v=$3 ord=$4 mode best=nan m
	for mode in auto custom generic; do
		m=$(awk -v p="$w:$v:$mode:$ord:" 'index($1, p) == 1 { print $2 }' "$f" | median)
		if lt "$m" "$best"; then best=$m; fi
	done
	echo "$best"
}
# lat_pratio FILE W VARIANT ORD: the median over rounds of VARIANT's time
# (the faster plan mode of the round) / adjlist's time in the same round
lat_pratio() {
	awk -v w="$2" -v v="$3" -v o="$4" '{ split($1, t, ":"); if (t[1] != w || t[4] != o) next
		if (t[2] == "adjlist") a[t[5]] = $2
		else if (t[2] == v && (!(t[5] in s) || $2 < s[t[5]])) s[t[5]] = $2 }
		END { for (r in s) if (r in a && a[r] > 0) print s[r] / a[r] }' "$1" | median
}
lat_answer() { awk -v p="$2:adjlist:auto:$3:" 'index($1, p) == 1 { print $3; exit }' "$1"; }

# lat_row_data FILE W VARIANT NSTARTS: "adjlist-median sql-median median-ratio min max n" over the starts that ran VARIANT
lat_row_data() {
	local f=$1 w=$2 v=$3 n=$4 ord a s as="" ss="" rs=""
	for ord in $(seq 1 "$n"); do
		s=$(lat_ms "$f" "$w" "$v" "$ord"); [ "$s" = nan ] && continue
		a=$(lat_ms "$f" "$w" adjlist "$ord")
		as="$as $a"; ss="$ss $s"; rs="$rs $(lat_pratio "$f" "$w" "$v" "$ord")"
	done
	echo "$(med "$as") $(med "$ss") $(med "$rs") $(tr ' ' '\n' <<<"$rs" | grep -v '^$' | sort -g | head -n 1) $(tr ' ' '\n' <<<"$rs" | grep -v '^$' | sort -g | tail -n 1) $(wc -w <<<"$rs")"
}

# lat_suite DB [adjlist]: the checking round (all formulations) into
# lat0.DB.txt, the choice of the faster formulation per copy and
# workload (LAT_BEST), then the timed rounds into lat.DB.txt
declare -A LAT_BEST
lat_suite() {
	local db=$1 only=${2:-} w ty v sum best bestsum n ord
	n=$(q_on "$db" "SELECT count(*) FROM bench_starts")
	for w in r3 r4 sp; do
		if [ -n "$only" ]; then LAT_VARS[$w]=adjlist; else LAT_VARS[$w]="adjlist $SQL_FORMS"; fi
	done
	lat_session "$db" "$WORK/lat0.$db.txt" 0 0
	for w in r3 r4 sp; do
		[ -n "$only" ] || LAT_VARS[$w]=adjlist
		[ -n "$only" ] && continue
		for ty in int text; do
			best=""; bestsum=""
			for v in ${ty}_union ${ty}_levels; do
				sum=0
				for ord in $(seq 1 "$n"); do sum=$(awk -v s="$sum" -v m="$(lat_ms "$WORK/lat0.$db.txt" $w $v "$ord")" 'BEGIN { print s + m }'); done
				if [ -z "$best" ] || lt "$sum" "$bestsum"; then best=$v; bestsum=$sum; fi
				printf '  %s %-12s checking round, sum over the starts %10.1f ms\n' "$w" "$v" "$sum" >&2
			done
			LAT_BEST[$w:$ty]=$best
			LAT_VARS[$w]="${LAT_VARS[$w]} $best"
		done
		if [ "$PGR_STARTS" -gt 0 ]; then LAT_VARS[$w]="${LAT_VARS[$w]} pgr"; fi
	done
	lat_session "$db" "$WORK/lat.$db.txt" 1 "$LAT_ROUNDS"
}

NSTARTS=$(q "SELECT count(*) FROM bench_starts")
[ "$(q "SELECT count(*) FROM bench_starts WHERE target IS NOT NULL AND dist >= 3")" = "$NSTARTS" ] ||
	die "a start without a target at distance 3 or 4"
if part lat; then
	log "traversals: $NSTARTS starts, a checking round, then $LAT_ROUNDS rounds (pgRouting: $PGR_STARTS starts, once) [at $(elapsed)]"
	lat_suite "$DB"
fi

# --------------------------------------------------------------------------
# Writes, on their own tables (run/writes.sql)
# timed DB STATEMENT...: one session, every statement under \timing; the times of all, in ms, one a line
timed() {
	local db=$1; shift
	{ echo 'SET client_min_messages = warning;'; echo '\timing on'; printf '%s\n' "$@"; } |
		psql_on "$db" -A -t 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}
declare -A WT	# write timings: name -> list of ms
wt_add() { WT[$1]="${WT[$1]:-} $2"; }
count_is() { # SQL WANT WHAT
	local n; n=$(q "$1"); [ "$n" = "$2" ] || die "$3: $n rows, expected $2"
}
sum_of() { q "SELECT count(*) || ':' || coalesce(sum(hashtext($1)), 0) FROM $2"; }

if part writes; then
	CSV="$CDIR/edges.csv"
	log "write tables [at $(elapsed)]"
	psql_on "$DB" -v csv="$CSV" -f "$DIR/writes.sql"
	# the non-blocking build: a procedure (CALL) or a function argument, when this build has one
	CONC_KIND=$(q "SELECT prokind FROM pg_proc WHERE proname = 'create_inverted_index' AND 'concurrently' = ANY (proargnames) ORDER BY prokind DESC LIMIT 1")
	HAS_CONC=0; [ -n "$CONC_KIND" ] && HAS_CONC=1

	# 1. COPY of the FOLLOWS# edges: adjlist inverted index vs a second btree
	log "COPY $NEDGES edges: $COPY_ROUNDS rounds [at $(elapsed)]"
	for r in $(seq 1 "$COPY_ROUNDS"); do
		for v in $(in_order "$r" w_adj w_b); do
			q "TRUNCATE $v" >/dev/null; q CHECKPOINT >/dev/null
			ms=$(timed "$DB" "COPY $v (pk, sk, data) FROM '$CSV' WITH (FORMAT csv);")
			wt_add "copy:$v" "$ms"
			count_is "SELECT count(*) FROM $v" "$NEDGES" "COPY into $v"
			printf '  round %d COPY %-6s %10.1f ms\n' "$r" "$v" "$ms" >&2
		done
	done
	count_is "SELECT count(*) FROM w_adj_inverted" "$NEDGES" "w_adj_inverted after COPY"
	[ "$(sum_of "sk::text || ' ' || pk::text" w_adj_inverted)" = "$(sum_of "sk || ' ' || pk" w_b)" ] ||
		die "MISMATCH: the inverted index after COPY differs from the rows of the second btree"
	psql_on "$DB" -c 'VACUUM (ANALYZE) w_adj, w_adj_inverted, w_b'

	# 2. create_inverted_index vs CREATE TABLE AS + ADD PRIMARY KEY, same base table
	log "create_inverted_index on $NEDGES rows: $COPY_ROUNDS rounds [at $(elapsed)]"
	CII_VARIANTS="adjlist hand"; [ "$HAS_CONC" = 1 ] && CII_VARIANTS="adjlist hand concurrently"
	for r in $(seq 1 "$COPY_ROUNDS"); do
		# shellcheck disable=SC2086
		for v in $(in_order "$r" $CII_VARIANTS); do
			q "SELECT drop_inverted_index(oid::regclass) FROM pg_class WHERE relname = 'w_cii_inverted'" >/dev/null
			q "DROP TABLE IF EXISTS h_cii" >/dev/null; q CHECKPOINT >/dev/null
			case $v in
				adjlist) ms=$(timed "$DB" "SELECT create_inverted_index('w_cii');");;
				concurrently)
				if [ "$CONC_KIND" = p ]; then
					ms=$(timed "$DB" "CALL create_inverted_index('w_cii', concurrently => true);")
				else
					ms=$(timed "$DB" "SELECT create_inverted_index('w_cii', concurrently => true);")
				fi;;
				hand) ms=$(timed "$DB" 'CREATE TABLE h_cii AS SELECT sk, pk FROM w_cii \; ALTER TABLE h_cii ADD PRIMARY KEY (sk, pk);');;
			esac
			[ "$(wc -l <<<"$ms")" = 1 ] || die "create_inverted_index $v: timing not found"
			wt_add "cii:$v" "$ms"
			printf '  round %d create index %-12s %10.1f ms\n' "$r" "$v" "$ms" >&2
			if [ "$r" = 1 ]; then
				if [ "$v" = hand ]; then
					CII_HAND_SUM=$(sum_of "sk::text || ' ' || pk::text" h_cii)
				else
					got=$(sum_of "sk::text || ' ' || pk::text" w_cii_inverted)
					[ "$got" = "$(sum_of "sk::text || ' ' || pk::text" w_cii)" ] || die "MISMATCH: w_cii_inverted ($v) is not the flipped table"
				fi
			fi
		done
	done
	[ "$CII_HAND_SUM" = "$(sum_of "sk::text || ' ' || pk::text" w_cii)" ] || die "MISMATCH: h_cii is not the flipped table"
	q "DROP TABLE IF EXISTS h_cii" >/dev/null

	# 3. single-row writes with pgbench.  Keys: pk USER#<prefix><off + n>,
	# target a power law of the graph's ids; the delete scripts compute the
	# same keys.  off is unique per run, so every run writes new keys.
	NIDS=$(q "SELECT 1 << scale FROM graph_info")
	wscript() { # NAME SQL
		printf '%s\n' '\set n :n + 1' '\set k :off + :n' \
			"\\set dst int($NIDS * pow(double(abs(hash(:k, 7)) % 1000000) / 1000000.0, 3))" "$2;" >"$WORK/w.$1.sql"
	}
	KEYS="('USER#' || :pre || :k)"
	TGT="('FOLLOWS#USER#' || :dst)"
	wscript ins_adjlist "INSERT INTO w_adj (pk, sk, data) VALUES ($KEYS, $TGT, '{\"w\": 1}')"
	wscript ins_sql "INSERT INTO w_b (pk, sk, data) VALUES ($KEYS, $TGT, '{\"w\": 1}')"
	wscript del_adjlist "DELETE FROM w_adj WHERE pk = $KEYS::adjkey AND sk = $TGT::adjkey"
	wscript del_sql "DELETE FROM w_b WHERE pk = $KEYS AND sk = $TGT"
	wscript put_adjlist "SELECT put_edge('w_adj', $KEYS::adjkey, $TGT::adjkey, '{\"w\": 1}')"
	wscript put_sql "WITH b AS (INSERT INTO h_base (pk, sk, data) VALUES ($KEYS, $TGT, '{\"w\": 1}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data RETURNING pk, sk) INSERT INTO h_rev (sk, pk) SELECT sk, pk FROM b ON CONFLICT DO NOTHING"
	wscript dele_adjlist "SELECT delete_edge('w_adj', $KEYS::adjkey, $TGT::adjkey)"
	wscript dele_sql "WITH d AS (DELETE FROM h_base WHERE pk = $KEYS AND sk = $TGT RETURNING pk, sk) DELETE FROM h_rev r USING d WHERE r.sk = d.sk AND r.pk = d.pk"
	declare -A W_BASE=([ins_adjlist]=w_adj [ins_sql]=w_b [put_adjlist]=w_adj [put_sql]=h_base)
	declare -A W_REV=([ins_adjlist]=w_adj_inverted [ins_sql]=w_b [put_adjlist]=w_adj_inverted [put_sql]=h_rev)
	declare -A W_UNDO=([ins]=del [put]=dele)
	pre_range() { # TABLE PREFIX: rows whose pk starts with USER#PREFIX (an index range)
		if [[ $1 == w_adj* ]]; then echo "$1 WHERE pk ^@ 'USER#$2'"; else echo "$1 WHERE pk >= 'USER#$2' AND pk < 'USER#$2~'"; fi
	}

	# the same writes on both sides: run each once with the same keys, compare
	# the base and reverse rows, undo, compare again (nothing left)
	log "checking the single-row writes [at $(elapsed)]"
	for op in ins put; do
		for side in adjlist sql; do
			pgb "$DB" "$WORK/w.${op}_$side.sql" generic -t50 -D n=0 -D off=0 -D pre=c >/dev/null
		done
		a_base=$(sum_of "ROW(pk, sk, data)::text" "$(pre_range "${W_BASE[${op}_adjlist]}" c)")
		s_base=$(sum_of "ROW(pk, sk, data)::text" "$(pre_range "${W_BASE[${op}_sql]}" c)")
		a_rev=$(q "SELECT count(*) || ':' || coalesce(sum(hashtext(sk::text || ' ' || pk::text)), 0) FROM ${W_REV[${op}_adjlist]} WHERE pk::text LIKE 'USER#c%'")
		s_rev=$(q "SELECT count(*) || ':' || coalesce(sum(hashtext(sk || ' ' || pk)), 0) FROM ${W_REV[${op}_sql]} WHERE pk LIKE 'USER#c%'")
		[ "$a_base" = "$s_base" ] && [ "$a_rev" = "$s_rev" ] && [ "${a_base%%:*}" = 50 ] ||
			die "MISMATCH after $op: base $a_base vs $s_base, reverse $a_rev vs $s_rev"
		for side in adjlist sql; do
			pgb "$DB" "$WORK/w.${W_UNDO[$op]}_$side.sql" generic -t50 -D n=0 -D off=0 -D pre=c >/dev/null
			count_is "SELECT count(*) FROM $(pre_range "${W_BASE[${op}_$side]}" c)" 0 "rows left after ${W_UNDO[$op]}_$side"
		done
		printf '  %-4s / %-4s same rows on adjlist and sql (%s)\n' "$op" "${W_UNDO[$op]}" "$a_base" >&2
	done

	log "single-row writes: $ROUNDS rounds of $WRITE_TXNS transactions [at $(elapsed)]"
	off=0
	for r in $(seq 1 "$ROUNDS"); do
		for op in ins put; do
			declare -A OFFS=()
			for sm in $(in_order "$r" adjlist:auto sql:custom sql:generic); do
				side=${sm%%:*}; mode=${sm#*:}
				off=$((off + 1000000)); OFFS[$sm]=$off
				tps=$(pgb "$DB" "$WORK/w.${op}_$side.sql" "$mode" "-t$WRITE_TXNS" -D n=0 -D off=$off -D pre=w)
				TPS[$op:$sm]="${TPS[$op:$sm]:-} $tps"
				printf '  round %d %-4s %-8s %-8s %10.1f tps\n' "$r" "$op" "$side" "$mode" "$tps" >&2
			done
			for side in adjlist sql; do
				count_is "SELECT count(*) FROM $(pre_range "${W_BASE[${op}_$side]}" w)" \
					$(( WRITE_TXNS * $(wc -w <<<"$(modes_of "$side")") )) "rows after ${op}_$side"
			done
			u=${W_UNDO[$op]}
			for sm in $(in_order "$r" adjlist:auto sql:custom sql:generic); do
				side=${sm%%:*}; mode=${sm#*:}
				tps=$(pgb "$DB" "$WORK/w.${u}_$side.sql" "$mode" "-t$WRITE_TXNS" -D n=0 -D off="${OFFS[$sm]}" -D pre=w)
				TPS[$u:$sm]="${TPS[$u:$sm]:-} $tps"
				printf '  round %d %-4s %-8s %-8s %10.1f tps\n' "$r" "$u" "$side" "$mode" "$tps" >&2
			done
			for side in adjlist sql; do
				count_is "SELECT count(*) FROM $(pre_range "${W_BASE[${op}_$side]}" w)" 0 "rows left after ${u}_$side"
			done
		done
		psql_on "$DB" -c 'VACUUM w_adj, w_adj_inverted, w_b, h_base, h_rev'
	done
	for t in w_adj w_adj_inverted w_b h_base h_rev; do count_is "SELECT count(*) FROM $t" "$NEDGES" "$t after the single-row writes"; done

	# 4. put_edges vs a multi-row INSERT of the same rows into both tables
	# batch J: BATCH new edges USER#b<J>_<i> -> a power law of the ids, as JSON and as VALUES
	batch_json() { # J
		awk -v j="$1" -v n="$BATCH" -v ids="$NIDS" 'BEGIN { srand(j); printf "[";
			for (i = 1; i <= n; i++) printf "%s{\"pk\": \"USER#b%d_%d\", \"sk\": \"FOLLOWS#USER#%d\", \"data\": {\"w\": %d}}",
				(i > 1 ? ", " : ""), j, i, int(ids * rand() ^ 3), i % 100; printf "]" }'
	}
	batch_values() { # J
		awk -v j="$1" -v n="$BATCH" -v ids="$NIDS" -v q="'" 'BEGIN { srand(j);
			for (i = 1; i <= n; i++) printf "%s(%sUSER#b%d_%d%s, %sFOLLOWS#USER#%d%s, %s{\"w\": %d}%s)",
				(i > 1 ? ", " : ""), q, j, i, q, q, int(ids * rand() ^ 3), q, q, i % 100, q }'
	}
	log "put_edges vs multi-row INSERT: $BATCHES batches of $BATCH edges [at $(elapsed)]"
	for j in $(seq 0 "$BATCHES"); do	# batch 0: check, untimed
		for side in $(in_order "$j" adjlist sql); do
			if [ "$side" = adjlist ]; then
				stmt="SELECT put_edges('w_adj', '$(batch_json "$j")');"
			else
				stmt="WITH b AS (INSERT INTO h_base (pk, sk, data) VALUES $(batch_values "$j") ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data RETURNING pk, sk) INSERT INTO h_rev (sk, pk) SELECT sk, pk FROM b ON CONFLICT DO NOTHING;"
			fi
			ms=$(timed "$DB" "$stmt")
			[ "$j" -gt 0 ] && wt_add "puts:$side" "$ms"
		done
		if [ "$j" = 0 ]; then
			a=$(sum_of "ROW(pk, sk, data)::text" "$(pre_range w_adj b0_)")
			s=$(sum_of "ROW(pk, sk, data)::text" "$(pre_range h_base b0_)")
			ai=$(q "SELECT count(*) || ':' || sum(hashtext(sk::text || ' ' || pk::text)) FROM w_adj_inverted WHERE pk::text LIKE 'USER#b0\\_%'")
			si=$(q "SELECT count(*) || ':' || sum(hashtext(sk || ' ' || pk)) FROM h_rev WHERE pk LIKE 'USER#b0\\_%'")
			[ "$a" = "$s" ] && [ "$ai" = "$si" ] && [ "${a%%:*}" = "$BATCH" ] || die "MISMATCH put_edges: base $a vs $s, reverse $ai vs $si"
			printf '  put_edges and the INSERTs wrote the same rows (%s)\n' "$a" >&2
		else
			printf '  batch %d put_edges %s ms, INSERT %s ms\n' "$j" "$(awk '{print $NF}' <<<"${WT[puts:adjlist]}")" "$(awk '{print $NF}' <<<"${WT[puts:sql]}")" >&2
		fi
	done
	count_is "SELECT count(*) FROM $(pre_range w_adj b)" $(( BATCH * (BATCHES + 1) )) "put_edges rows"
	psql_on "$DB" -c "DELETE FROM w_adj WHERE pk ^@ 'USER#b'" -c "DELETE FROM h_base WHERE pk >= 'USER#b' AND pk < 'USER#c'" \
		-c "DELETE FROM h_rev WHERE pk >= 'USER#b' AND pk < 'USER#c'"
	count_is "SELECT count(*) FROM w_adj_inverted" "$NEDGES" "w_adj_inverted after the batches"
	DRIFT=$(q "SELECT count(*) FROM verify_inverted_index('w_adj_inverted')")
	[ "$DRIFT" = 0 ] || die "verify_inverted_index('w_adj_inverted'): $DRIFT problems after the writes"
fi	# writes

# --------------------------------------------------------------------------
# 10M edges: the adjlist reads again, per call and per row
if [ "$BENCH_10M" = 1 ]; then
	N10=$((NEDGES * 10))
	"$PSQL" -X -q -d postgres -c "DROP DATABASE $DB WITH (FORCE)"
	build_graph "$DB10" "$N10" false
	prewarm "$DB10"
	GRAPH10=$(graph_line "$DB10")
	psql_on "$DB10" -c 'SELECT * FROM bench_starts ORDER BY ord' >&2
	DB_SAVE=$DB; DB=$DB10
	MED=$(id_of median); OUTHUB=$(id_of out_hub); INHUB=$(id_of in_hub)
	NC=${#CASES[@]}
	add_read_cases _10m adjlist
	CASES10=("${CASES[@]:$NC}"); CASES=("${CASES[@]:0:$NC}")
	for c in "${CASES10[@]}"; do check_case "$c"; done
	log "10M: short calls [at $(elapsed)]"
	run_cases "$DB10" "${CASES10[@]}"
	log "10M: traversals [at $(elapsed)]"
	lat_suite "$DB10" adjlist
	DB=$DB_SAVE
fi

# --------------------------------------------------------------------------
# The table
LOAD_END=$(loadavg)
UPTIME_END=$(uptime)
ROWS=""
row() { # LABEL ADJ-MS SQL-MS SQL-WHAT RATIO MIN-RATIO TARGET-TEXT
	local met=—; [ "$6" = - ] || met=$(meets "$5" "$6")
	ROWS="$ROWS| $1 | $(fmt_ms "$2") | $(fmt_ms "$3")${4:+ ($4)} | $(fmt_ratio "$5") | $7 | $met |"$'\n'
}
side_name() { # side:mode -> words
	local s=${1%%:*} m=${1#*:}
	case $s in int) s="integer";; text) s="text";; sql) s="SQL";; esac
	echo "$s, $m plan"
}
part short && for c in "${CASES[@]}"; do
	read -r a s r best <<<"$(case_result "$c")"
	row "${C_LABEL[$c]} (${C_ROWS[$c]} rows)" "$a" "$s" "$(side_name "$best")" "$r" "${C_MIN[$c]}" "${C_TARGET[$c]}"
done
lat_rows() { # W LABEL INT-MIN TEXT-MIN
	local w=$1 label=$2 f="$WORK/lat.$DB.txt" ty v what min n
	for ty in int text; do
		v=${LAT_BEST[$w:$ty]}
		read -r a s r rmin rmax n <<<"$(lat_row_data "$f" "$w" "$v" "$NSTARTS")"
		case $ty in int) what="integer"; min=$3;; text) what="text"; min=$4;; esac
		case $v in *_union) what="$what recursive CTE (UNION)";; *) what="$what recursive CTE (levels as arrays)";; esac
		row "$label vs $what ($n starts; per start $(fmt_ratio "$rmin")–$(fmt_ratio "$rmax"))" "$a" "$s" "" "$r" "$min" "≥ ${min}×"
	done
	if [ "$PGR_STARTS" -gt 0 ]; then
		read -r a s r rmin rmax n <<<"$(lat_row_data "$f" "$w" pgr "$NSTARTS")"
		if [ "$w" = sp ]; then what=pgr_dijkstra; else what=pgr_breadthFirstSearch; fi
		row "$label vs $what ($n starts, one call each)" "$a" "$s" "" "$r" 100 "≥ 100×"
	fi
}
if part lat; then
	lat_rows r3 "3-hop reachable_count" 1.5 3
	lat_rows r4 "4-hop reachable_count" 1.5 3
	lat_rows sp "shortest_path, distance 3–4" 10 10
fi

# writes: per-row times from tps (ms per transaction) and statement times
write_row() { # OP LABEL MIN TARGET
	local a s r best
	read -r a s r best <<<"$(case_result "$1" sql)"
	row "$2" "$a" "$s" "${best#sql:} plan" "$r" "$3" "$4"
}
if part writes; then
	write_row put "put_edge, one new edge (1 client)" 0.909 "within 1.1× latency"
	write_row dele "delete_edge, that edge" 0.909 "within 1.1× latency"
	write_row ins "single-row INSERT with an inverted index vs a second btree (sk, pk)" 0.95 "≥ 0.95× throughput"
	write_row del "single-row DELETE with an inverted index vs a second btree (sk, pk)" 0.95 "≥ 0.95× throughput"
	a=$(med "${WT[puts:adjlist]}"); s=$(med "${WT[puts:sql]}")
	row "put_edges, $BATCH edges a call ($BATCHES calls)" "$a" "$s" "multi-row INSERT into both tables" "$(paired_ratio "${WT[puts:adjlist]}" "${WT[puts:sql]}")" 0.9 "≥ 0.9× throughput"
	a=$(med "${WT[copy:w_adj]}"); s=$(med "${WT[copy:w_b]}")
	row "COPY $(human "$NEDGES") edges with an inverted index vs a second btree" "$a" "$s" "" "$(paired_ratio "${WT[copy:w_adj]}" "${WT[copy:w_b]}")" 0.909 "≤ 1.1× the time"
	a=$(med "${WT[cii:adjlist]}"); s=$(med "${WT[cii:hand]}")
	row "create_inverted_index on $(human "$NEDGES") rows" "$a" "$s" "CREATE TABLE AS + ADD PRIMARY KEY" "$(paired_ratio "${WT[cii:adjlist]}" "${WT[cii:hand]}")" 0.909 "≤ 1.1× the time"
	if [ "$HAS_CONC" = 1 ]; then
		a=$(med "${WT[cii:concurrently]}")
		row "create_inverted_index(concurrently => true) on $(human "$NEDGES") rows" "$a" "$s" "CREATE TABLE AS + ADD PRIMARY KEY" "$(paired_ratio "${WT[cii:concurrently]}" "${WT[cii:hand]}")" - "non-blocking (no target for its time)"
	else
		ROWS="$ROWS| create_inverted_index(concurrently => true) | not in this build | | | non-blocking, with progress | **no** |"$'\n'
fi
fi

# 10M: per-call and per-row cost against 1M
SCALE_TABLE=""
if [ "$BENCH_10M" = 1 ]; then
	SCALE_TABLE="| $(human "$N10") vs $(human "$NEDGES") edges, adjlist | $(human "$NEDGES"): per call | $(human "$N10"): per call | per row, $(human "$N10") / $(human "$NEDGES") | target | met? |
|---|---:|---:|---:|---|---|"$'\n'
	for c in nb_med nb_hub nbk_med nbk_hub rev_med rev_hub revk_med revk_hub; do
		a1=$(div 1000 "$(med "${TPS[$c:adjlist:auto]}")"); a10=$(div 1000 "$(med "${TPS[${c}_10m:adjlist:auto]}")")
		r=$(div "$(div "$a10" "${C_ROWS[${c}_10m]}")" "$(div "$a1" "${C_ROWS[$c]}")")
		SCALE_TABLE="$SCALE_TABLE| ${C_LABEL[$c]} | $(fmt_ms "$a1") (${C_ROWS[$c]} rows) | $(fmt_ms "$a10") (${C_ROWS[${c}_10m]} rows) | $(fmt_ratio "$r") | ≤ 1.3× | $(meets "$(div 1 "$r")" 0.769) |"$'\n'
	done
	for w in r3 r4; do
		# per start: ms per node reached; median over the starts
		per() { # FILE N
			local ord vals=""
			for ord in $(seq 1 "$2"); do vals="$vals $(div "$(lat_ms "$1" $w adjlist "$ord")" "$(lat_answer "$1" $w "$ord")")"; done
			med "$vals"
		}
		n10=$(q_on "$DB10" "SELECT count(*) FROM bench_starts")
		p1=$(per "$WORK/lat.$DB.txt" "$NSTARTS"); p10=$(per "$WORK/lat.$DB10.txt" "$n10")
		m1=$(for o in $(seq 1 "$NSTARTS"); do lat_ms "$WORK/lat.$DB.txt" $w adjlist "$o"; done | median)
		m10=$(for o in $(seq 1 "$n10"); do lat_ms "$WORK/lat.$DB10.txt" $w adjlist "$o"; done | median)
		r=$(div "$p10" "$p1")
		SCALE_TABLE="$SCALE_TABLE| ${w#r}-hop reachable_count, median of the starts | $(fmt_ms "$m1") | $(fmt_ms "$m10") | $(fmt_ratio "$r") per node reached | ≤ 1.3× | $(meets "$(div 1 "$r")" 0.769) |"$'\n'
	done
fi

CMD="bash test/bench/run.sh"
[ "$BENCH_QUICK" = 1 ] && CMD="BENCH_QUICK=1 $CMD"
[ "$BENCH_10M" = 1 ] && CMD="BENCH_10M=1 $CMD"
[ "$NEDGES" != 1000000 ] && [ "$BENCH_QUICK" != 1 ] && CMD="NEDGES=$NEDGES $CMD"
TOTAL=$(( $(date +%s) - T_START ))
TABLE=$(cat <<MD
| workload | adjlist (median) | best hand-written SQL (median) | ratio | target | met? |
|---|---:|---:|---:|---|---|
${ROWS%$'\n'}
${SCALE_TABLE:+
${SCALE_TABLE%$'\n'}
}
Reproduce: \`$CMD\` (adjlist $ADJ_VERSION, library installed $SO_STAMP; run.sh at $COMMIT; $(( TOTAL / 60 )) min $(( TOTAL % 60 )) s).
Ratio = hand-written SQL time / adjlist time (above 1 adjlist is faster), the median over rounds of the ratio within a round
(both sides measured seconds apart, so that changes of the machine's load between rounds cancel out); times are medians.
Graph: $GRAPH${GRAPH10:+; $(human "$N10") run: $GRAPH10}.
Hand-written SQL: text keys under \`COLLATE "C"\` (primary key (pk, sk) and a btree (sk, pk)), and for traversals and joins an
integer copy (bigint src, dst; btrees both ways); the SQL time is the fastest of its formulations and of plan_cache_mode
force_custom_plan / force_generic_plan. Short calls: pgbench -M prepared, 1 client, $ROUNDS interleaved rounds of ${PGB_TIME} s runs,
time per call = 1 / tps (client round trip included). Traversals: psql \\timing of prepared statements, $LAT_ROUNDS rounds per
start after a checking round that picks the faster SQL formulation; per start the median, then the median over the starts;
pgRouting $PGR_VERSION (edges loaded by every call), once per start.
Writes: pgbench -t $WRITE_TXNS, 1 client, $ROUNDS rounds, synchronous_commit off; COPY and create_inverted_index: $COPY_ROUNDS rounds.
Every pair returned the same rows (count and checksum) before it was timed; verify_inverted_index found no drift after the writes.
PostgreSQL $PGVERSION, $(nproc) CPUs, fsync off, shared_buffers $SHARED_BUFFERS (prewarmed), jit off, no parallel workers.
Machine load (other jobs share it): at start "$UPTIME_START"; at end "$UPTIME_END".$( [ "$(so_stamp)" = "$SO_STAMP" ] ||
	printf '\n**Warning**: %s was reinstalled during the run: the servers may have run two builds.' "$SO")
MD
)
RAW="Raw numbers (tps per round; ms per start):"
for k in $(printf '%s\n' "${!TPS[@]}" | sort); do RAW="$RAW
  $k:${TPS[$k]}"; done
for k in $(printf '%s\n' "${!WT[@]}" | sort); do RAW="$RAW
  $k ms:${WT[$k]}"; done
RAW="$RAW
Traversals per start (ord: answer, median ms adjlist / integer / text / pgRouting; SQL formulations: r3 ${LAT_BEST[r3:int]:-} ${LAT_BEST[r3:text]:-}, r4 ${LAT_BEST[r4:int]:-} ${LAT_BEST[r4:text]:-}, sp ${LAT_BEST[sp:int]:-} ${LAT_BEST[sp:text]:-}):"
F="$WORK/lat.$DB.txt"
part lat && for w in r3 r4 sp; do
	for ord in $(seq 1 "$NSTARTS"); do
		RAW="$RAW
  $w start $ord: $(lat_answer "$F" $w "$ord"); $(fmt_ms "$(lat_ms "$F" $w adjlist "$ord")") / $(fmt_ms "$(lat_ms "$F" $w "${LAT_BEST[$w:int]}" "$ord")") / $(fmt_ms "$(lat_ms "$F" $w "${LAT_BEST[$w:text]}" "$ord")") / $(fmt_ms "$(lat_ms "$F" $w pgr "$ord")")"
	done
done

echo
echo "$TABLE"
echo
echo "$RAW"
if [ -n "${BENCH_OUT:-}" ]; then
	printf '%s\n\n%s\n' "$TABLE" "$RAW" >"$BENCH_OUT"
	log "table written to $BENCH_OUT"
fi
log "total run time ${TOTAL}s"

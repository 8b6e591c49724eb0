#!/bin/bash
# Benchmark (not a test): adjkey against text for 1M composite keys.
#
#   bash test/bench/keys.sh                 # prints a markdown table
#   BENCH_OUT=/tmp/keys.md bash test/bench/keys.sh   # ... and writes it there
#
# One ICU database (en-US), three tables with the same keys:
#   adjkey               bytewise, adjkey_ops (sortsupport, abbreviated keys)
#   text COLLATE "C"     bytewise, text_ops
#   text (ICU en-US)     the database default collation
# Measures CREATE INDEX (serial, fixed maintenance_work_mem) and 200k
# indexed prefix lookups (one nested-loop statement), each REPS times,
# interleaved, and reports medians.  Runs its own throwaway cluster
# (bench_keys, port $BENCH_KEYS_PORT) and stops it on exit.
#
# Knobs (environment): REPS (5), NKEYS (1000000), NPREFIXES (200000),
# BENCH_KEYS_PORT (55450), BENCH_OUT (file for the table).
source "$(dirname "$0")/../lib/common.sh"

REPS=${REPS:-5}
NKEYS=${NKEYS:-1000000}
NPREFIXES=${NPREFIXES:-200000}
PORT=${BENCH_KEYS_PORT:-55450}
SQLDIR="$REPO/test/bench/keys"
DB=bench_icu
T_START=$(date +%s)

cleanup() { cluster_stop bench_keys; }
trap cleanup EXIT

ensure_base_packages
build_install
cluster_start bench_keys "$PORT"

die() { echo "keys.sh: $*" >&2; exit 1; }

psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }

# Session settings of every measured statement: serial, no JIT, fixed memory.
SESSION_SETTINGS="
SET maintenance_work_mem = '256MB';
SET max_parallel_maintenance_workers = 0;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET enable_memoize = off;  -- 200k real index probes, no result cache
SET work_mem = '64MB';
SET client_min_messages = warning;
"

# timed PRE STMT: run PRE (untimed), then STMT under \timing in the same
# session.  Prints "<ms> <first result line or ->".
timed() {
	local out ms res
	out=$(psql_db -A -t <<SQL
$SESSION_SETTINGS
$1
\\timing on
$2
SQL
) || die "statement failed: $2"
	ms=$(printf '%s\n' "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1)
	res=$(printf '%s\n' "$out" | grep -v '^Time: ' | grep -v '^$' | head -n 1 || true)
	[ -n "$ms" ] || die "no timing in output of: $2"$'\n'"$out"
	echo "$ms ${res:--}"
}

median() { # numbers on stdin
	sort -g | awk '{ a[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) printf "%.1f\n", a[(NR + 1) / 2];
		else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# --------------------------------------------------------------------------
log "creating ICU database $DB and $NKEYS keys, $NPREFIXES prefixes"
psql -X -q -v ON_ERROR_STOP=1 -d postgres <<SQL
CREATE DATABASE $DB LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8' TEMPLATE template0;
SQL
psql_db -c 'CREATE EXTENSION adjlist'
psql_db -c "SELECT version()" -c "SELECT datname, datlocprovider, daticulocale, datcollate FROM pg_database WHERE datname = current_database()"
t0=$(date +%s)
psql_db -v nkeys="$NKEYS" -v nprefixes="$NPREFIXES" -f "$SQLDIR/setup.sql"
log "data generated in $(( $(date +%s) - t0 ))s"

# --------------------------------------------------------------------------
# CREATE INDEX.  Variant D (ICU text with text_pattern_ops, the index the
# ICU lookups need) is measured too, but reported below the table.
declare -A IDX_TABLE=([adj]=t_adj [c]=t_c [icu]=t_icu [icu_pat]=t_icu)
declare -A IDX_NAME=([adj]=t_adj_k_idx [c]=t_c_k_idx [icu]=t_icu_k_idx [icu_pat]=t_icu_k_pattern_idx)
declare -A IDX_OPC=([adj]="" [c]="" [icu]="" [icu_pat]=" text_pattern_ops")
declare -A BUILD_MS LOOKUP_MS
VARIANTS=(adj c icu icu_pat)

log "CREATE INDEX: $REPS rounds of ${VARIANTS[*]}"
for rep in $(seq 1 "$REPS"); do
	for v in "${VARIANTS[@]}"; do
		out=$(timed "DROP INDEX IF EXISTS ${IDX_NAME[$v]}; CHECKPOINT;" \
			"CREATE INDEX ${IDX_NAME[$v]} ON ${IDX_TABLE[$v]} (k${IDX_OPC[$v]});")
		read -r ms _ <<<"$out"
		BUILD_MS[$v]="${BUILD_MS[$v]:-} $ms"
		printf '  round %d %-8s %10.1f ms\n' "$rep" "$v" "$ms" >&2
	done
done
# The lookups of ICU text must use the pattern index, not the collation one.
psql_db -c 'DROP INDEX t_icu_k_idx' -c 'VACUUM ANALYZE t_adj, t_c, t_icu'
psql_db -c '\di+ t_*'

# --------------------------------------------------------------------------
# 200k prefix lookups, one statement each variant.
declare -A Q
Q[adj]='SELECT sum(cnt) FROM prefixes p CROSS JOIN LATERAL
	(SELECT count(*) AS cnt FROM t_adj WHERE k ^@ p.prefix) s;'
Q[c]='SELECT sum(cnt) FROM prefixes p CROSS JOIN LATERAL
	(SELECT count(*) AS cnt FROM t_c
	 WHERE k >= p.prefix COLLATE "C" AND k < p.prefix_upper COLLATE "C") s;'
Q[icu]='SELECT sum(cnt) FROM prefixes p CROSS JOIN LATERAL
	(SELECT count(*) AS cnt FROM t_icu
	 WHERE k ~>=~ p.prefix AND k ~<~ p.prefix_upper) s;'
LVARIANTS=(adj c icu)
declare -A LOOKUP_IDX=([adj]=t_adj_k_idx [c]=t_c_k_idx [icu]=t_icu_k_pattern_idx)

for v in "${LVARIANTS[@]}"; do
	log "plan of the $v lookups"
	plan=$(psql_db -A -t <<SQL
$SESSION_SETTINGS
EXPLAIN (COSTS OFF) ${Q[$v]}
SQL
) || die "EXPLAIN failed for $v"
	printf '%s\n' "$plan"
	grep -q 'Nested Loop' <<<"$plan" || die "$v: no nested loop in the plan"
	grep -Eq "Index (Only )?Scan using ${LOOKUP_IDX[$v]}" <<<"$plan" ||
		die "$v: the lookups do not use the index"
	grep -Eq 'Index Cond: \(\(k ' <<<"$plan" || die "$v: no index condition on k"
	if [ "$v" = adj ]; then
		grep -q 'adjkey_prefix_lower(p.prefix)' <<<"$plan" &&
			grep -q 'adjkey_prefix_upper(p.prefix)' <<<"$plan" ||
			die "adj: ^@ was not turned into a range on the index"
	fi
done

log "warm-up and result check"
declare -A TOTAL
for v in "${LVARIANTS[@]}"; do
	out=$(timed "" "${Q[$v]}")
	read -r ms total <<<"$out"
	TOTAL[$v]=$total
	printf '  warm-up  %-8s %10.1f ms  total matches %s\n' "$v" "$ms" "$total" >&2
done
if [ "${TOTAL[adj]}" != "${TOTAL[c]}" ] || [ "${TOTAL[adj]}" != "${TOTAL[icu]}" ]; then
	die "MISMATCH: adjkey ${TOTAL[adj]}, text C ${TOTAL[c]}, text ICU ${TOTAL[icu]}"
fi
[ "${TOTAL[adj]}" -ge "$NPREFIXES" ] || die "only ${TOTAL[adj]} matches for $NPREFIXES prefixes of existing keys"

log "prefix lookups: $REPS rounds of ${LVARIANTS[*]}"
for rep in $(seq 1 "$REPS"); do
	for v in "${LVARIANTS[@]}"; do
		out=$(timed "" "${Q[$v]}")
		read -r ms total <<<"$out"
		[ "$total" = "${TOTAL[adj]}" ] || die "MISMATCH in round $rep: $v gave $total, expected ${TOTAL[adj]}"
		LOOKUP_MS[$v]="${LOOKUP_MS[$v]:-} $ms"
		printf '  round %d %-8s %10.1f ms\n' "$rep" "$v" "$ms" >&2
	done
done

# --------------------------------------------------------------------------
med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | median; }
b_adj=$(med "${BUILD_MS[adj]}"); b_c=$(med "${BUILD_MS[c]}"); b_icu=$(med "${BUILD_MS[icu]}")
b_pat=$(med "${BUILD_MS[icu_pat]}")
l_adj=$(med "${LOOKUP_MS[adj]}"); l_c=$(med "${LOOKUP_MS[c]}"); l_icu=$(med "${LOOKUP_MS[icu]}")
keys_h=$(awk -v n="$NKEYS" 'BEGIN { if (n % 1000000 == 0) printf "%dM", n / 1000000; else if (n % 1000 == 0) printf "%dk", n / 1000; else print n }')
pre_h=$(awk -v n="$NPREFIXES" 'BEGIN { if (n % 1000 == 0) printf "%dk", n / 1000; else print n }')

table=$(cat <<MD
| median of $REPS, ms | adjkey | text "C" | text ICU (en-US) | text "C" / adjkey | ICU / adjkey |
|---|---:|---:|---:|---:|---:|
| CREATE INDEX, $keys_h keys | $b_adj | $b_c | $b_icu | $(ratio "$b_c" "$b_adj") | $(ratio "$b_icu" "$b_adj") |
| $pre_h prefix lookups | $l_adj | $l_c | $l_icu | $(ratio "$l_c" "$l_adj") | $(ratio "$l_icu" "$l_adj") |

Ratios > 1: adjkey is faster.  CREATE INDEX: serial, maintenance_work_mem 256MB;
the ICU column is the default-collation index (ICU en-US comparisons).
Lookups: adjkey \`k ^@ p.prefix\` (planner range); text "C" \`k >= p.prefix AND
k < p.prefix_upper\` (precomputed bound); ICU text \`~>=~\`/\`~<~\` on a
text_pattern_ops index (CREATE INDEX of that one: median $b_pat ms).
All three lookups matched ${TOTAL[adj]} keys in total.
Raw ms -- build adj:${BUILD_MS[adj]} | c:${BUILD_MS[c]} | icu:${BUILD_MS[icu]} | icu_pattern_ops:${BUILD_MS[icu_pat]}
Raw ms -- lookups adj:${LOOKUP_MS[adj]} | c:${LOOKUP_MS[c]} | icu:${LOOKUP_MS[icu]}
MD
)

echo
echo "$table"
if [ -n "${BENCH_OUT:-}" ]; then
	printf '%s\n' "$table" >"$BENCH_OUT"
	log "table written to $BENCH_OUT"
fi
log "total run time $(( $(date +%s) - T_START ))s"

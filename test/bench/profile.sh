#!/bin/bash
# Profile one statement of the benchmark with perf: the backend of a
# 1-client pgbench run (or of one psql session with -1) is sampled while it
# repeats the statement, and the flat and the inclusive profiles are
# printed.  Uses the cluster that run.sh leaves running with BENCH_KEEP=1:
#
#   BENCH_PARTS=none BENCH_KEEP=1 bash test/bench/run.sh     # the graph only
#   bash test/bench/profile.sh "SELECT neighbor FROM reverse_neighbors('edges', 'USER#12345', 'FOLLOWS#')"
#   PROFILE_SECONDS=20 bash test/bench/profile.sh -1 "COPY ..."   # one statement, one session
#
# Environment: BENCH_PORT (55560), ADJLIST_TMP (/tmp/adjlist), PROFILE_SECONDS
# (8), PROFILE_OUT (a directory for perf.data and the reports; a temporary
# one by default), PGOPTIONS (e.g. -c plan_cache_mode=force_generic_plan).
# perf comes from Debian's linux-perf (installed when missing).  Symbols:
# adjlist.so is built with -g; Debian's postgres binary has exported
# symbols only, so static functions of core show as addresses.
source "$(dirname "$0")/../lib/common.sh"

ONCE=0
if [ "${1:-}" = -1 ]; then ONCE=1; shift; fi
SQL=${1:?usage: profile.sh [-1] STATEMENT}
SECS=${PROFILE_SECONDS:-8}
OUT=${PROFILE_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
PGHOST="$(cluster_dir bench)/sock"
export PGHOST PGPORT=${BENCH_PORT:-55560} PGUSER=postgres
ensure_packages linux-perf
"$PGBIN/psql" -X -q -d bench -c 'SELECT 1' >/dev/null ||
	{ echo "profile.sh: no benchmark cluster on $PGHOST:$PGPORT (run.sh with BENCH_KEEP=1 first)" >&2; exit 1; }

APP=adjlist_profile_$$
if [ "$ONCE" = 1 ]; then
	PGAPPNAME=$APP "$PGBIN/psql" -X -q -d bench -c 'SELECT pg_sleep(1)' -c '\timing on' -c "$SQL" >"$OUT/client.out" 2>&1 &
else
	printf '%s;\n' "$SQL" >"$OUT/statement.sql"
	PGAPPNAME=$APP "$PGBIN/pgbench" -n -M prepared -c 1 -j 1 -T $((SECS + 2)) -f "$OUT/statement.sql" bench >"$OUT/client.out" 2>&1 &
fi
client=$!
pid=""
for _ in $(seq 1 50); do
	pid=$("$PGBIN/psql" -X -A -t -d bench -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$APP' LIMIT 1")
	[ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || { echo "profile.sh: the client's backend did not start" >&2; cat "$OUT/client.out" >&2; exit 1; }
if [ "$ONCE" = 1 ]; then
	perf record -F 1000 -e cpu-clock -g -p "$pid" -o "$OUT/perf.data" >/dev/null 2>&1 &
	rec=$!
	wait "$client" || true
	kill -INT "$rec" 2>/dev/null || true
	wait "$rec" 2>/dev/null || true
else
	perf record -F 2000 -e cpu-clock -g -p "$pid" -o "$OUT/perf.data" -- sleep "$SECS" >/dev/null 2>&1
	wait "$client" || true
fi
grep -E '^tps|^Time|ERROR' "$OUT/client.out" || true
perf report -i "$OUT/perf.data" --no-children --stdio --percent-limit 1 -g none 2>/dev/null |
	grep -v '^#' | grep -v '^$' >"$OUT/flat.txt"
perf report -i "$OUT/perf.data" --children --stdio --percent-limit 1.5 -g none 2>/dev/null |
	grep -v '^#' | grep -v '^$' | grep -v ' 0x0000' >"$OUT/children.txt"
echo "== self time (top 25; $OUT/flat.txt)"
head -n 25 "$OUT/flat.txt"
echo "== inclusive time, adjlist and executor frames (top 40; $OUT/children.txt)"
head -n 40 "$OUT/children.txt"

#!/bin/bash
# Developer tool (slow, not part of test/check.sh): the pg_regress suites
# against a server with debug_discard_caches = 1, which throws away every
# catalog and relation cache entry at each chance; a suite that passes
# normally and fails here uses a cache entry (a Relation, a TupleDesc, a
# syscache tuple, its own cache) after an invalidation could have freed it.
#
#   bash test/discard_caches.sh [--with-random] [--discard N] [SUITE...]
#
#     SUITE...      pg_regress suites (default: the Makefile's REGRESS list
#                   but the random suites)
#     --with-random the default list with the random suites (adjkey_random,
#                   graph_random): their PL/pgSQL data generators are
#                   re-planned at every call, many hours
#     --discard N   debug_discard_caches (default 1; 0 = a plain assert run)
#
# The server is the vendored PostgreSQL 18 built with --enable-cassert
# (bash test/vendor.sh pg18 cassert; cached; debug_discard_caches exists only
# in such builds); without ../shared/vendor it prints SKIP and exits 0.
# adjlist is built from a copy of the sources ($ADJLIST_TMP/discard-build;
# the clone's objects are not touched) and installed into that server's
# prefix only.  The cluster ($ADJLIST_TMP/discard, port $DISCARD_PORT,
# default 55541) runs as the postgres OS user, is set up with the normal
# settings (initdb is not slowed down) and gets debug_discard_caches in
# postgresql.conf before the suites; it is stopped on exit.
#
# Result: pg_regress's summary; on failure the diffs
# ($ADJLIST_TMP/discard-build/regression.diffs) and any assertion failure
# or crash from the server log, status 1.
#
# Wall time on 2 busy shared cores (PostgreSQL 18.6, 2026-11): graph 2.5 min,
# ttl 4.5 min, sparse_index 9 min, create_concurrently 20 min; hours for the
# whole list.  Name the suites you touched.
source "$(dirname "$0")/lib/cassert.sh"
set +e

PORT=${DISCARD_PORT:-55541}
no_random=--no-random
discard=1
suites=()
while [ $# -gt 0 ]; do
	case $1 in
	--with-random) no_random= ;;
	--discard) discard=$2; shift ;;
	-h|--help) sed -n '2,/^source/s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
	-*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
	*) suites+=("$1") ;;
	esac
	shift
done

set -e
cassert_pg18 test/discard_caches.sh
[ ${#suites[@]} -gt 0 ] || mapfile -t suites < <(cassert_suites $no_random)
cassert_build_install discard

dir=$(cluster_dir discard)
trap 'cluster_stop discard' EXIT
cluster_start discard "$PORT"
cat >>"$dir/data/postgresql.conf" <<CONF
# test/discard_caches.sh
debug_discard_caches = $discard
log_line_prefix = '%m [%p] %a: '
# a suite runs for minutes here: autovacuum would vacuum and analyze its
# tables mid-suite and change the plans its EXPLAINs pin
autovacuum = off
CONF
as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -w reload >/dev/null
set +e
got=$("$PGBIN/psql" -X -At -d postgres -c 'SHOW debug_discard_caches')
log "debug_discard_caches = $got; pg_regress: ${suites[*]}"

start=$(date +%s)
status=0
cassert_regress "${suites[@]}" || status=1
secs=$(( $(date +%s) - start ))

if grep -E 'TRAP:|PANIC:|terminated by signal|was terminated' "$dir/server.log" >"$dir/crashes.txt"; then
	echo "discard_caches: the server log has crashes or assertion failures ($dir/server.log):" >&2
	head -n 20 "$dir/crashes.txt" >&2
	status=1
fi
if [ $status -ne 0 ]; then
	if [ -s "$ADJLIST_BUILD/regression.diffs" ]; then
		echo "discard_caches: regression diffs ($ADJLIST_BUILD/regression.diffs):" >&2
		head -n 200 "$ADJLIST_BUILD/regression.diffs" >&2
	fi
	echo "discard_caches: FAILED with debug_discard_caches = $got ($secs s)"
else
	echo "discard_caches: OK, ${#suites[@]} suites with debug_discard_caches = $got ($secs s)"
fi
exit $status

#!/bin/bash
# Fuzz every way into the server that adjlist opens (binary receive, text
# input and casts, every function PUBLIC may execute) in a UTF8, a LATIN1
# and a SQL_ASCII database, checking after each batch that the server did
# not crash, that every stored key keeps the adjkey invariant and that
# pg_dump + restore gives every key back byte for byte.  See fuzz.py.
#
#   bash test/fuzz/run.sh                      # default: about 3000 cases per target per database
#   bash test/fuzz/run.sh --seed 42            # replay a run (the seed is printed)
#   bash test/fuzz/run.sh --count 300 --dbs latin1 --targets recv
#
# The server: the one the libpq environment names (PGHOST, PGPORT, PGUSER,
# a superuser; cluster_start of test/lib/common.sh exports them).  When
# PGHOST is not set, a throwaway cluster "fuzz" is started on $FUZZ_PORT
# (default 55480) and stopped at the end.  adjlist must be installed in
# that server (make install); this script does not install it.
#
# The server log is read from $ADJLIST_FUZZ_SERVER_LOG, or, for a cluster of
# cluster_start, from $ADJLIST_TMP/<name>/server.log.  Reports go to
# $ADJLIST_FUZZ_OUT (default $ADJLIST_TMP/fuzz-out): report.txt,
# findings.json, fixture_<db>.sql (the graph the reproducers use),
# errors_<db>.txt (one statement per SQLSTATE and message).
#
# Exit status: 0 no finding, 1 findings (each printed with a reproducer),
# 2 or more: the fuzzer itself failed.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/common.sh"
set +e

PY=/usr/bin/python3		# Debian's python3, the one python3-psycopg2 is for
if ! "$PY" -c 'import psycopg2' 2>/dev/null; then
	ensure_packages python3-psycopg2 || exit 2
fi

started=
if [ -z "${PGHOST:-}" ]; then
	cluster_start fuzz "${FUZZ_PORT:-55480}" || exit 2
	started=fuzz
	trap 'cluster_stop fuzz' EXIT
fi
export PGUSER=${PGUSER:-postgres}

serverlog=${ADJLIST_FUZZ_SERVER_LOG:-}
if [ -z "$serverlog" ]; then
	case "$PGHOST" in
	"$ADJLIST_TMP"/*/sock) serverlog=${PGHOST%/sock}/server.log ;;
	esac
fi
logarg=()
if [ -n "$serverlog" ] && [ -r "$serverlog" ]; then
	logarg=(--server-log "$serverlog")
else
	echo "run.sh: no readable server log (set ADJLIST_FUZZ_SERVER_LOG); crashes are still seen by the connections" >&2
fi

if ! "$PGBIN/psql" -X -At -d postgres -c "SELECT 1 FROM pg_available_extensions WHERE name = 'adjlist'" | grep -q 1; then
	echo "run.sh: adjlist is not installed in the server at ${PGHOST}:${PGPORT:-5432} (make install)" >&2
	exit 2
fi

out=${ADJLIST_FUZZ_OUT:-$ADJLIST_TMP/fuzz-out}
mkdir -p "$out"
"$PY" "$HERE/fuzz.py" --count 3000 --out "$out" "${logarg[@]}" "$@"
rc=$?
echo "report: $out/report.txt" >&2
exit $rc

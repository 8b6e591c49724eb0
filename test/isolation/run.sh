#!/bin/bash
# Isolation tests of adjlist: concurrent sessions writing a table with an
# inverted index, run by pg_isolation_regress against a running server.
#
#   source test/lib/common.sh; cluster_start iso 55460
#   test/isolation/run.sh [SPEC...]     (default: every specs/*.spec)
#   cluster_stop iso
#
# The server is the one libpq's PGHOST, PGPORT and PGUSER name, as exported
# by cluster_start in test/lib/common.sh; adjlist must be installed in it,
# and PGUSER must be a superuser (the specs SET deadlock_timeout).
# pg_isolation_regress creates (and recreates) the database
# isolation_regression there, with CREATE EXTENSION adjlist.  Results go to
# a temporary directory; on failure regression.diffs is printed and the
# directory kept.  Exits non-zero when a test fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PGVER=${PGVER:-15}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PGVER/bin/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=pg_config
regress=$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/isolation/pg_isolation_regress
if [ ! -x "$regress" ]; then
	echo "pg_isolation_regress not found at $regress (install postgresql-server-dev-$PGVER)" >&2
	exit 2
fi

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=()
	for f in "$here"/specs/*.spec; do
		tests+=("$(basename "$f" .spec)")
	done
fi

outdir=$(mktemp -d "${TMPDIR:-/tmp}/adjlist-isolation.XXXXXX")
opts=(--inputdir="$here" --outputdir="$outdir" --load-extension=adjlist
	  --bindir="$("$PG_CONFIG" --bindir)")
[ -n "${PGHOST:-}" ] && opts+=(--host="$PGHOST")
[ -n "${PGPORT:-}" ] && opts+=(--port="$PGPORT")
[ -n "${PGUSER:-}" ] && opts+=(--user="$PGUSER")

status=0
"$regress" "${opts[@]}" "${tests[@]}" || status=$?
if [ "$status" -ne 0 ]; then
	if [ -s "$outdir/regression.diffs" ]; then
		echo "== $outdir/regression.diffs" >&2
		cat "$outdir/regression.diffs" >&2
	fi
	echo "isolation tests failed (exit $status); results kept in $outdir" >&2
	exit "$status"
fi
rm -rf "$outdir"

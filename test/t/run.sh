#!/bin/bash
# TAP tests of adjlist (test/t/*.pl) with PostgreSQL::Test::Cluster.
#
#   bash test/t/run.sh                  # every test
#   bash test/t/run.sh 002_crash.pl     # some of them (names under test/t/)
#   PROVE_FLAGS=-v bash test/t/run.sh   # verbose
#   PG_CONFIG=/path/bin/pg_config bash test/t/run.sh   # another server
#   ADJLIST_TAP_INSTALL=0 ...           # do not build adjlist when it is
#                                       # not installed (tests needing it
#                                       # skip or fail)
#
# The clusters are made by initdb, which refuses to run as root, so when
# run as root the tests run as the postgres OS user (runuser).  Nothing is
# written into the repository: TESTDIR (tmp_check with the clusters and
# the logs) is a fresh directory owned by that user, $ADJLIST_TAP_DIR
# (default $ADJLIST_TMP/tap, /tmp/adjlist/tap), kept after the run for inspection.
#
# The extension must be installed in the server (make install); if it is
# not, and we are root, it is built and installed from this repository.
# Exits non-zero when a test fails, after printing the logs of the failing
# tests.
set -euo pipefail

PGVER=${PGVER:-15}
# another server: PG_CONFIG=/path/bin/pg_config (PGBIN defaults to its bindir)
if [ -z "${PGBIN:-}" ] && [ -n "${PG_CONFIG:-}" ]; then
	PGBIN=$("$PG_CONFIG" --bindir)
fi
PGBIN=${PGBIN:-/usr/lib/postgresql/$PGVER/bin}
PG_CONFIG=${PG_CONFIG:-$PGBIN/pg_config}
PGXS_DIR=$(dirname "$("$PG_CONFIG" --pgxs)")/../..
PERL_LIB=$(cd "$PGXS_DIR/src/test/perl" && pwd)
PG_REGRESS_BIN=$(cd "$PGXS_DIR/src/test/regress" && pwd)/pg_regress
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TAP_DIR=${ADJLIST_TAP_DIR:-${ADJLIST_TMP:-/tmp/adjlist}/tap}
RUN_AS=postgres

die() { echo "run.sh: $*" >&2; exit 2; }

[ -f "$PERL_LIB/PostgreSQL/Test/Cluster.pm" ] ||
	die "PostgreSQL::Test::Cluster not found under $PERL_LIB (install postgresql-server-dev-$PGVER)"
[ -x "$PG_REGRESS_BIN" ] || die "pg_regress not found at $PG_REGRESS_BIN"
perl -MIPC::Run -e 1 2>/dev/null || die "IPC::Run is missing (install libipc-run-perl)"
command -v prove >/dev/null || die "prove is missing (install perl)"

sharedir=$("$PG_CONFIG" --sharedir)
if [ ! -f "$sharedir/extension/adjlist.control" ] && [ "${ADJLIST_TAP_INSTALL:-1}" = 0 ]; then
	echo "run.sh: adjlist is not installed in $sharedir (ADJLIST_TAP_INSTALL=0: not building it)" >&2
elif [ ! -f "$sharedir/extension/adjlist.control" ]; then
	[ "$(id -u)" -eq 0 ] || die "adjlist is not installed; run make install as root"
	echo "run.sh: adjlist is not installed; building and installing it" >&2
	make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" >/dev/null
	make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" install >/dev/null
fi

# the tests to run, as absolute paths (prove runs from $TAP_DIR)
tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		case $t in
			/*) tests+=("$t") ;;
			*/*) tests+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")") ;;
			*) tests+=("$HERE/$t") ;;
		esac
	done
else
	tests=("$HERE"/*.pl)
fi
for t in "${tests[@]}"; do [ -f "$t" ] || die "no such test: $t"; done

# a fresh TESTDIR owned by the user that runs the clusters
mkdir -p "$(dirname "$TAP_DIR")"
chmod 755 "$(dirname "$TAP_DIR")" 2>/dev/null || true
if [ "$(id -u)" -eq 0 ]; then
	rm -rf "$TAP_DIR"
elif [ -d "$TAP_DIR" ]; then
	# not root: the parent may not be ours, so empty the directory instead
	find "$TAP_DIR" -mindepth 1 -delete 2>/dev/null ||
		die "cannot empty $TAP_DIR; set ADJLIST_TAP_DIR to a directory of your own"
fi
mkdir -p "$TAP_DIR"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_AS:" "$TAP_DIR"
	as_user() { runuser -u "$RUN_AS" -- "$@"; }
else
	as_user() { "$@"; }
fi

echo "run.sh: TESTDIR=$TAP_DIR; ${#tests[@]} test(s)"
start=$(date +%s)
status=0
# shellcheck disable=SC2086
(cd "$TAP_DIR" && as_user env \
	PATH="$PGBIN:$PATH" \
	PG_REGRESS="$PG_REGRESS_BIN" \
	TESTDIR="$TAP_DIR" \
	TESTDATADIR="$TAP_DIR/tmp_check" \
	TESTLOGDIR="$TAP_DIR/tmp_check/log" \
	prove ${PROVE_FLAGS:-} -I "$PERL_LIB" -I "$HERE" "${tests[@]}") || status=$?
echo "run.sh: $(( $(date +%s) - start )) s"

if [ $status -ne 0 ]; then
	echo "run.sh: FAILED (prove exit $status); logs of the failing tests:" >&2
	for t in "${tests[@]}"; do
		name=$(basename "$t" .pl)
		reg="$TAP_DIR/tmp_check/log/regress_log_$name"
		# a test failed when its regress log records a "not ok" (other than
		# a TODO) or it died
		if [ ! -f "$reg" ] ||
			grep -E 'not ok|Looks like|died|BAIL|error running' "$reg" | grep -qv '# TODO'; then
			for f in "$reg" "$TAP_DIR"/tmp_check/log/"${name}"_*.log; do
				[ -f "$f" ] || continue
				echo "===== $f (last 300 lines)" >&2
				tail -n 300 "$f" >&2
			done
		fi
	done
fi
exit $status

#!/bin/bash
# The randomized consistency test of inverted indexes, default size: every
# scenario of test/random/consistency.py, one after the other, against the
# server that libpq's environment names (PGHOST, PGPORT, PGUSER, as
# exported by cluster_start of test/lib/common.sh).  The adjlist extension
# must be installed in that server; each scenario creates (and drops at its
# next run) a database adjrand_<scenario>.
#
#   source test/lib/common.sh; cluster_start random 55470
#   bash test/random/run.sh                      # every scenario, seed 1
#   bash test/random/run.sh --seed 7 --scenario triggers
#   bash test/random/run.sh --list               # scenarios and statement kinds
#   cluster_stop random
#
# Without PGPORT it starts a throwaway cluster of its own (port
# $RANDOM_PORT, default 55471; cluster name random_run) and stops it at the end.  Other arguments go
# to consistency.py.  Exits non-zero when a scenario fails; the last line
# is "N passed, N failed".
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# Debian's python3 (python3-psycopg2 is a Debian package; PyPI is not used)
PY=/usr/bin/python3

if ! "$PY" -c 'import psycopg2' 2>/dev/null; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "run.sh: python3-psycopg2 is missing; install it as root (apt-get install python3-psycopg2)" >&2
		exit 2
	fi
	echo "run.sh: installing python3-psycopg2" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends python3-psycopg2 >/dev/null
fi

own_cluster=
if [ -z "${PGPORT:-}" ]; then
	# shellcheck source=../lib/common.sh
	source "$REPO/test/lib/common.sh"
	own_cluster=random_run
	trap 'cluster_stop random_run' EXIT
	cluster_start random_run "${RANDOM_PORT:-55471}"
fi

# the default run: 4 sessions x 250 statements per scenario, a check every
# 25 statements per session
args=(--statements 250 --batch 25)
exec_status=0
"$PY" "$HERE/consistency.py" "${args[@]}" "$@" || exec_status=$?
exit $exec_status

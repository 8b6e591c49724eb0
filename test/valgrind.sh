#!/bin/bash
# Developer tool (slow, not part of test/check.sh): run pg_regress suites
# against a server running under valgrind memcheck and report the errors
# valgrind finds in adjlist's code.
#
#   bash test/valgrind.sh [SUITE...]    (default: every suite but the slow random ones)
#
# The server is Debian's, built without USE_VALGRIND, so memcheck sees
# palloc'd memory only at the granularity of whole blocks; what it does
# find reliably here is the use of uninitialized values and reads or writes
# outside malloc'd and shared memory.  Frames of adjlist.so in a report
# are what matters; see the log for the whole story.
source "$(dirname "$0")/lib/common.sh"
ensure_packages valgrind
build_install

PORT=${VALGRIND_PORT:-55530}
dir=$(cluster_dir valgrind)
cleanup() { cluster_stop valgrind; }
trap cleanup EXIT
cluster_start valgrind "$PORT"
cluster_stop valgrind

log "starting the server under valgrind (slow)"
as_postgres bash -c "valgrind --quiet --trace-children=yes --track-origins=yes \
	--read-var-info=no --num-callers=30 --error-limit=no \
	--log-file='$dir/valgrind.%p.log' \
	$PGBIN/postgres -D '$dir/data' >'$dir/server.log' 2>&1 &"
for i in $(seq 1 120); do
	"$PGBIN/pg_isready" -q -h "$dir/sock" -p "$PORT" && break
	sleep 1
done

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(adjkey_io adjkey_order adjkey_index adjkey_parts adjkey_encoding \
	inverted_index write_api graph graph_security graph_limits)
status=0
make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" installcheck REGRESS="${suites[*]}" || status=$?

as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
reports=$(grep -l "adjlist.so" "$dir"/valgrind.*.log 2>/dev/null || true)
if [ -n "$reports" ]; then
	echo "valgrind found errors in adjlist code:"
	for f in $reports; do
		grep -B5 -A30 "adjlist.so" "$f" | head -80
	done
	status=1
else
	echo "valgrind: no errors in adjlist code ($(ls "$dir"/valgrind.*.log | wc -l) processes checked)"
fi
exit $status

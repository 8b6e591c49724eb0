#!/bin/bash
# Developer tool (slow, not part of test/check.sh): the pg_regress suites
# (optionally the isolation specs and the fuzz test) against a server running
# under valgrind memcheck; reports the errors valgrind finds in adjlist's code.
#
#   bash test/valgrind.sh [--no-random] [--isolation] [--fuzz N] [SUITE...]
#
#     SUITE...       pg_regress suites (default: the Makefile's REGRESS list)
#     --no-random    leave out the slow random suites (adjkey_random, graph_random)
#     --isolation    also the isolation specs (test/isolation) after the suites
#     --fuzz N       also test/fuzz/run.sh with N random cases per target per
#                    database (run.sh alone does 3000; 300 is plenty here)
#
# The server is the vendored PostgreSQL 18 built with --enable-cassert,
# -O0 -g3 and -DUSE_VALGRIND (bash test/vendor.sh pg18 cassert; cached), so
# memcheck sees each palloc'd chunk as its own block: reads of freed or
# uninitialized palloc memory and overruns of a chunk are errors.  Without
# ../shared/vendor it prints SKIP and exits 0.  adjlist is built from a copy
# of the sources ($ADJLIST_TMP/valgrind-build; the clone's objects are not
# touched) and installed into that server's prefix only.
#
# The cluster ($ADJLIST_TMP/valgrind, port $VALGRIND_PORT, default 55540) runs
# as the postgres OS user under
#   valgrind --tool=memcheck --trace-children=yes --track-origins=yes
#            --error-exitcode=128 --suppressions=<PostgreSQL's src/tools/valgrind.supp>
# with valgrind's output and the server log (log_statement = all) in one
# file, server.log, so each error follows the statement that caused it.  A
# process with an error exits with status 128: the postmaster then restarts,
# which the suites and the fuzzer notice.  The cluster is stopped on exit.
#
# Result: every valgrind error whose stack has a frame of adjlist
# (adjlist/src/*.c, or adjlist.so without debug information) is printed with
# its process's test and the last statement before it, and the status is 1;
# otherwise one line "valgrind: OK ...".  Errors elsewhere are counted (and
# kept in the log).  A failed suite or fuzz run also makes the status 1.
#
# Wall time on 2 busy shared cores (PostgreSQL 18.6, 2026-11): most suites
# take 10-90 s, but adjkey_text 5.5 min, graph_limits 15 min, graph_estimate
# more than 7 min and the random suites longer: hours for the default set.
# Name the suites you touched.
source "$(dirname "$0")/lib/cassert.sh"
set +e

PORT=${VALGRIND_PORT:-55540}
no_random=
isolation=
fuzz=
fuzz_count=
suites=()
while [ $# -gt 0 ]; do
	case $1 in
	--no-random) no_random=--no-random ;;
	--isolation) isolation=1 ;;
	--fuzz) fuzz=1; fuzz_count=${2:?--fuzz needs a count}; shift ;;
	-h|--help) sed -n '2,/^source/s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
	-*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
	*) suites+=("$1") ;;
	esac
	shift
done

set -e
cassert_pg18 test/valgrind.sh
ensure_packages valgrind
[ ${#suites[@]} -gt 0 ] || mapfile -t suites < <(cassert_suites $no_random)
cassert_build_install valgrind

# PostgreSQL's own suppressions (false positives of its shared memory and
# of libc), from the vendored archive; cached next to the server.
supp=$ADJLIST_CACHE/valgrind-$(basename "$(dirname "$(dirname "$PG_CONFIG")")").supp
if [ ! -s "$supp" ]; then
	archive=$(vendor_archive "$VENDOR_PG18_ARCHIVE")
	tar -xjf "$archive" -O "$(basename "$archive" .tar.bz2)/src/tools/valgrind.supp" >"$supp.tmp"
	mv "$supp.tmp" "$supp"
fi

dir=$(cluster_dir valgrind)
export PGCTLTIMEOUT=${PGCTLTIMEOUT:-900}	# shutdown under valgrind is slow
trap 'cluster_stop valgrind' EXIT
cluster_start valgrind "$PORT"
cluster_stop valgrind
cp "$supp" "$dir/valgrind.supp"
chown postgres: "$dir/valgrind.supp" 2>/dev/null || true
cat >>"$dir/data/postgresql.conf" <<'CONF'
# test/valgrind.sh: the statements in the log with the valgrind errors
log_statement = all
log_line_prefix = '%m [%p] %a: '
log_min_messages = warning
shared_buffers = 64MB
max_connections = 30
# a suite runs for minutes here: autovacuum would vacuum and analyze its
# tables mid-suite and change the plans its EXPLAINs pin
autovacuum = off
CONF
set +e

start=$(date +%s)
log "starting the server under valgrind ($dir/server.log)"
# valgrind writes temporary files to $TMPDIR (/tmp may not be writable by
# the postgres user)
mkdir -p "$dir/vgtmp"
chown postgres: "$dir/vgtmp" 2>/dev/null || true
as_postgres bash -c "TMPDIR='$dir/vgtmp' valgrind \
	--tool=memcheck --trace-children=yes --track-origins=yes \
	--read-var-info=no --num-callers=40 --error-limit=no --leak-check=no \
	--gen-suppressions=all --suppressions='$dir/valgrind.supp' \
	--error-exitcode=128 --error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END \
	--fullpath-after= --log-fd=2 --vgdb=no \
	'$PGBIN/postgres' -D '$dir/data' >'$dir/server.log' 2>&1 </dev/null &
	echo \$! >'$dir/valgrind.pid'"
vgpid=$(cat "$dir/valgrind.pid")
for i in $(seq 1 300); do
	"$PGBIN/pg_isready" -q -t 10 -h "$dir/sock" -p "$PORT" && break
	kill -0 "$vgpid" 2>/dev/null || break
	sleep 1
done
if ! "$PGBIN/pg_isready" -q -t 60 -h "$dir/sock" -p "$PORT"; then
	echo "valgrind: the server did not start; the end of $dir/server.log:" >&2
	tail -n 30 "$dir/server.log" >&2
	exit 1
fi
log "server up after $(( $(date +%s) - start )) s"

status=0
t0=$(date +%s)
log "pg_regress under valgrind: ${suites[*]}"
if ! cassert_regress "${suites[@]}"; then
	echo "valgrind: pg_regress failed (diffs: $ADJLIST_BUILD/regression.diffs)" >&2
	status=1
fi
log "pg_regress: $(( $(date +%s) - t0 )) s"

if [ -n "$isolation" ]; then
	t0=$(date +%s)
	log "pg_isolation_regress under valgrind"
	cassert_isolation || status=1
	log "isolation: $(( $(date +%s) - t0 )) s"
fi

if [ -n "$fuzz" ]; then
	t0=$(date +%s)
	log "fuzz test under valgrind (--count $fuzz_count)"
	ADJLIST_FUZZ_OUT=$dir/fuzz-out ADJLIST_FUZZ_SERVER_LOG=$dir/server.log \
		bash "$REPO/test/fuzz/run.sh" --count "$fuzz_count" --no-minimize
	rc=$?
	[ $rc -eq 0 ] || { echo "valgrind: the fuzz test failed (status $rc, $dir/fuzz-out/report.txt)" >&2; status=1; }
	log "fuzz: $(( $(date +%s) - t0 )) s"
fi

log "stopping the server"
as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || cluster_stop valgrind
log "total under valgrind: $(( $(date +%s) - start )) s"

# Each error is the block between the markers; the statement a process ran
# last (log_statement) precedes its errors in the same file.
report=$dir/adjlist-errors.txt
awk -v report="$report" '
	function flush() {
		if (hit) {
			n++
			printf "---- error %d, process %s, %s\n", n, pid, (app[pid] == "" ? "(no application name)" : app[pid]) > report
			printf "last statement of the process:\n%s\n", (stmt[pid] == "" ? "(none logged)" : stmt[pid]) > report
			printf "%s", block > report
		}
	}
	match($0, /^==[0-9]+== /) {
		pid = substr($0, 3, RLENGTH - 5)
		line = substr($0, RLENGTH + 1)
		if (line ~ /^ERROR SUMMARY:/) { procs++; next }
		if (line ~ /^VALGRINDERROR-BEGIN/) { inerr[pid] = 1; blk[pid] = ""; hits[pid] = 0; next }
		if (line ~ /^VALGRINDERROR-END/) {
			all++
			hit = hits[pid]; block = blk[pid]
			if (!hit) other++
			flush(); inerr[pid] = 0; next
		}
		if (inerr[pid]) {
			if (line ~ /adjlist\/src\/|adjlist\.so/) hits[pid] = 1
			# the report: the paths of PostgreSQL from its source tree, at most
			# 16 frames a stack (the whole of it stays in server.log)
			sub(/\(\/[^ ]*\/postgresql-[0-9.]+\//, "(", line)
			if (line ~ /^ +at /) frames[pid] = 0
			if (line ~ /^ +(at|by) / && ++frames[pid] > 16) {
				if (frames[pid] == 17) blk[pid] = blk[pid] "     ...\n"
				next
			}
			blk[pid] = blk[pid] "  " line "\n"
		}
		cur = ""
		next
	}
	# server log: "<date> <time> <zone> [pid] app: LOG:  statement: ..."
	match($0, /^[0-9-]+ [0-9:.]+ [A-Z0-9+-]+ \[[0-9]+\] /) {
		p = $0; sub(/^[^[]*\[/, "", p); p0 = p; sub(/\].*/, "", p)
		a = p0; sub(/^[0-9]+\] /, "", a); sub(/: (LOG|ERROR|WARNING|NOTICE|FATAL|PANIC|STATEMENT|DETAIL|HINT|CONTEXT):.*/, "", a)
		app[p] = a
		if ($0 ~ /LOG:  statement: /) { s = $0; sub(/.*LOG:  statement: /, "", s); stmt[p] = s; cur = p }
		else cur = ""
		next
	}
	# continuation lines of a multi-line statement
	/^\t/ && cur != "" { stmt[cur] = stmt[cur] "\n" $0; next }
	END {
		printf "%d %d %d %d\n", procs, all, n, other
	}
' "$dir/server.log" >"$dir/valgrind-counts.txt" 2>/dev/null
read -r procs all nadj nother <"$dir/valgrind-counts.txt"
if [ "${nother:-0}" -gt 0 ]; then
	echo "valgrind: $nother error(s) outside adjlist's code (see VALGRINDERROR-BEGIN in $dir/server.log)" >&2
fi
if [ "${nadj:-0}" -gt 0 ]; then
	echo "valgrind found $nadj error(s) in adjlist code ($report; $dir/server.log):"
	cat "$report"
	exit 1
fi
if grep -E 'TRAP:|PANIC:|terminated by signal' "$dir/server.log" >"$dir/crashes.txt"; then
	echo "valgrind: the server log has crashes or assertion failures:" >&2
	head -n 20 "$dir/crashes.txt" >&2
	status=1
fi
if grep -q 'exited with exit code 128' "$dir/server.log"; then
	echo "valgrind: a server process exited with status 128 (a valgrind error) but no report names adjlist; see $dir/server.log" >&2
fi
if [ $status -eq 0 ]; then
	echo "valgrind: OK, no errors in adjlist code ($procs processes checked, $(( $(date +%s) - start )) s)"
else
	echo "valgrind: no errors in adjlist code ($procs processes checked), but a suite or the fuzz test failed (above)"
fi
exit $status

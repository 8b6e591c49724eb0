# shellcheck shell=bash
# The vendored PostgreSQL 18 built with --enable-cassert and -DUSE_VALGRIND
# (test/lib/vendor.sh, variant "cassert"), and adjlist built for it out of
# the clone's own objects.  Sourced by test/valgrind.sh and
# test/discard_caches.sh, not run.
#
#   cassert_pg18 WHAT         point PG_CONFIG and PGBIN at that server (built
#                             once, cached); without ../shared/vendor print
#                             "SKIP: WHAT ..." and exit with the skip status
#                             (ADJLIST_VENDOR_SKIP_STATUS, default 0)
#   cassert_build_install NAME
#                             copy the sources of the clone (not its objects)
#                             to $ADJLIST_TMP/NAME-build, build adjlist there
#                             and install it into that server's prefix;
#                             exports ADJLIST_BUILD (the copy, where
#                             pg_regress writes results/ and regression.diffs)
#   cassert_regress SUITE...  pg_regress those suites from ADJLIST_BUILD
#                             against $PGHOST/$PGPORT, one pg_regress a suite
#                             in the same database (waiting for the server
#                             to be ready before each); the diffs of all in
#                             $ADJLIST_BUILD/regression.diffs, the time of
#                             each in $ADJLIST_BUILD/suite-times.txt;
#                             status 1 when one failed
#   cassert_isolation [SPEC...]
#                             pg_isolation_regress those specs (default: the
#                             Makefile's ISOLATION list) from ADJLIST_BUILD
#                             against $PGHOST/$PGPORT; diffs in
#                             $ADJLIST_BUILD/output_iso/regression.diffs
#   cassert_suites [--no-random]
#                             the Makefile's REGRESS list (without the slow
#                             random suites with --no-random), one a line
#
# The install is shared by every clone and worktree on the machine: a lock
# ($ADJLIST_CACHE/.lock-adjlist-<prefix>) is held from the install to the
# end of the caller (shared; exclusive while installing), so two runs with
# different sources never swap adjlist.so under each other (the second one
# waits), and runs of the same sources share it.  The debug information is
# made independent of the build directory (-ffile-prefix-map=<copy>=adjlist):
# the same sources give the same adjlist.so, and valgrind names adjlist's
# source files "adjlist/src/<file>.c".

if ! declare -F vendor_pg18 >/dev/null; then
	# shellcheck source=vendor.sh
	source "$(dirname "${BASH_SOURCE[0]}")/vendor.sh"
fi

cassert_pg18() {
	local what=$1 pgc
	pgc=$(vendor_pg18 cassert) || { echo "$what: building the vendored PostgreSQL 18 (cassert) failed" >&2; exit 1; }
	if [ -z "$pgc" ]; then
		echo "SKIP: $what needs the vendored PostgreSQL 18.6 ($ADJLIST_VENDOR/$VENDOR_PG18_ARCHIVE not present; set ADJLIST_VENDOR)" >&2
		exit "${ADJLIST_VENDOR_SKIP_STATUS:-0}"
	fi
	PG_CONFIG=$pgc
	PGBIN=$("$pgc" --bindir)
	export PG_CONFIG PGBIN
	log "server: $("$pgc" --version), $("$pgc" --configure | grep -o "\-\-enable-cassert") $("$pgc" --cppflags | grep -o "\-DUSE_VALGRIND") ($PGBIN)"
}

# The files of an installed adjlist, relative to the build copy and their
# place in the prefix.
_cassert_install_pairs() {
	local libdir sharedir f
	libdir=$("$PG_CONFIG" --pkglibdir)
	sharedir=$("$PG_CONFIG" --sharedir)/extension
	echo "adjlist.so $libdir/adjlist.so"
	echo "adjlist.control $sharedir/adjlist.control"
	for f in "$ADJLIST_BUILD"/src/adjlist--*.sql; do
		echo "src/$(basename "$f") $sharedir/$(basename "$f")"
	done
}

_cassert_installed() {
	local src dst
	while read -r src dst; do
		cmp -s "$ADJLIST_BUILD/$src" "$dst" || return 1
	done < <(_cassert_install_pairs)
}

cassert_build_install() {
	local name=$1 build lock
	build=$ADJLIST_TMP/$name-build
	log "building adjlist for $("$PG_CONFIG" --version) in $build"
	rm -rf "$build"
	mkdir -p "$build"
	# the sources only: the clone's objects (built for Debian's server) are
	# neither used nor touched
	tar -C "$REPO" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
		--exclude=./results --exclude=./tmp_check --exclude=./output_iso --exclude=./log \
		--exclude='./regression.*' --exclude=./test -cf - . | tar -xf - -C "$build"
	# of test/, the isolation specs (the Makefile's ISOLATION list)
	mkdir -p "$build/test"
	tar -C "$REPO/test" --exclude=./isolation/output_iso -cf - ./isolation | tar -xf - -C "$build/test"
	ADJLIST_BUILD=$build
	export ADJLIST_BUILD
	if ! make -C "$build" -s -j"${VENDOR_JOBS:-2}" PG_CONFIG="$PG_CONFIG" \
			COPT="-ffile-prefix-map=$build=adjlist" >"$build/make.log" 2>&1; then
		cat "$build/make.log" >&2
		return 1
	fi
	if grep -q 'warning:' "$build/make.log"; then
		echo "compiler warnings (PostgreSQL 18, cassert):" >&2
		grep -A3 'warning:' "$build/make.log" >&2
	fi

	lock=$ADJLIST_CACHE/.lock-adjlist-$(basename "$("$PG_CONFIG" --configure | sed -n "s/.*'--prefix=\([^']*\)'.*/\1/p")")
	exec 8>"$lock"
	while :; do
		flock -s 8
		_cassert_installed && break
		# another adjlist.so (or none): install ours once no run uses the
		# one there (converting the lock is not atomic: check again after)
		if ! flock -n -x 8; then
			log "waiting for another run that uses another adjlist in $("$PG_CONFIG" --pkglibdir) (lock $lock)"
			flock -x 8
		fi
		if ! _cassert_installed; then
			make -C "$build" -s PG_CONFIG="$PG_CONFIG" install >"$build/install.log" 2>&1 ||
				{ cat "$build/install.log" >&2; return 1; }
		fi
	done
	log "installed into $("$PG_CONFIG" --pkglibdir)"
}

cassert_suites() {
	local suites
	suites=$(make -s -C "$REPO" -f - print-regress <<'MK' 2>/dev/null
include Makefile
print-regress:
	@echo $(REGRESS)
MK
	) || true
	# (the Makefile needs a pg_config for PGXS: fall back to reading it)
	[ -n "$suites" ] || suites=$(sed -n 's/^REGRESS *= *//p' "$REPO/Makefile")
	for s in $suites; do
		if [ "${1:-}" = --no-random ]; then
			case $s in *_random) continue ;; esac
		fi
		echo "$s"
	done
}

cassert_regress() {
	local - s t0 secs failed=() rc existing=
	set +e
	: >"$ADJLIST_BUILD/all.diffs"
	for s in "$@"; do
		# one pg_regress a suite: a crash (and the restart after it) shows in
		# that suite only
		cassert_wait_ready 600 || { failed+=("$s(server down)"); continue; }
		t0=$(date +%s)
		# the first makes the database; the others use it, as one pg_regress
		# of them all would (a suite may find what an earlier one left)
		make -C "$ADJLIST_BUILD" -s PG_CONFIG="$PG_CONFIG" installcheck REGRESS="$s" \
			ISOLATION= TAP_TESTS= EXTRA_REGRESS_OPTS="$existing" 2>&1 | grep -E '^(ok|not ok|# \(test process)'
		rc=${PIPESTATUS[0]}
		secs=$(( $(date +%s) - t0 ))
		echo "$s $rc $secs" >>"$ADJLIST_BUILD/suite-times.txt"
		existing=--use-existing
		if [ "$rc" -ne 0 ]; then
			failed+=("$s")
			cat "$ADJLIST_BUILD/regression.diffs" >>"$ADJLIST_BUILD/all.diffs" 2>/dev/null || true
		fi
	done
	mv "$ADJLIST_BUILD/all.diffs" "$ADJLIST_BUILD/regression.diffs"
	if [ ${#failed[@]} -gt 0 ]; then
		echo "pg_regress: ${#failed[@]} of $# suites failed: ${failed[*]} (diffs: $ADJLIST_BUILD/regression.diffs)" >&2
		return 1
	fi
	echo "pg_regress: all $# suites passed" >&2
}

cassert_isolation() {
	local - rc
	set +e
	cassert_wait_ready 600 || return 1
	if [ $# -gt 0 ]; then
		make -C "$ADJLIST_BUILD" -s PG_CONFIG="$PG_CONFIG" installcheck REGRESS= TAP_TESTS= \
			ISOLATION="$*" 2>&1 | grep -E '^(ok|not ok|# )'
	else
		make -C "$ADJLIST_BUILD" -s PG_CONFIG="$PG_CONFIG" installcheck REGRESS= TAP_TESTS= \
			2>&1 | grep -E '^(ok|not ok|# )'
	fi
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || echo "pg_isolation_regress failed (diffs: $ADJLIST_BUILD/output_iso/regression.diffs)" >&2
	return "$rc"
}

# cassert_wait_ready SECONDS: wait until $PGHOST/$PGPORT accepts connections
# (after a crash the postmaster restarts and recovers first)
cassert_wait_ready() {
	local i
	for ((i = 0; i < $1; i++)); do
		"$PGBIN/pg_isready" -q && return 0
		sleep 1
	done
	echo "the server at $PGHOST:$PGPORT is not ready after $1 s" >&2
	return 1
}

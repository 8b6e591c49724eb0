#!/bin/bash
# The test command: installs what is missing, builds, installs, starts a
# throwaway cluster and runs every test suite.  Stops the cluster on exit,
# also when a step fails.  .ci/run calls exactly this.
#
#   bash test/check.sh
#
# With ../shared/vendor beside the clone (CI), it also builds Citus for this
# server (the TAP suite then runs the Citus tests) and PostgreSQL 18.6, and
# runs every suite again against 18 in a nested run of this script; both
# builds are cached outside the clone (test/vendor.sh).  Without it, those
# parts are skipped with a message.
source "$(dirname "$0")/lib/common.sh"

CHECK_PORT=${CHECK_PORT:-55432}
failed_suites=()
passed_suites=()

cleanup() { cluster_stop check; }
trap cleanup EXIT

ensure_base_packages
# pg_cron (Debian's package, for this server only): test/t/016_ttl_cron.pl
# schedules the TTL sweep with it, and skips, saying so, without it
if [ -z "${ADJLIST_CHECK_NESTED:-}" ]; then
	ensure_packages "postgresql-$PGVER-cron" || log "pg_cron not installed: 016_ttl_cron will skip"
fi

# Citus for this server, so that the TAP suite runs the Citus tests (they
# skip without it); before adjlist, so that a failed adjlist build does not
# leave Citus out
citus_so=$(bash "$REPO/test/vendor.sh" citus "$PG_CONFIG") || citus_so=FAILED

# the build must be free of warnings: a clean build, its messages kept
log "building adjlist (warnings are a failure)"
make -C "$REPO" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
build_log=$(mktemp)
if ! make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" >/dev/null 2>"$build_log"; then
	cat "$build_log" >&2
	exit 1
fi
if grep -q "warning:" "$build_log"; then
	grep -B2 -A4 "warning:" "$build_log" >&2
	failed_suites+=(warnings)
else
	passed_suites+=(warnings)
fi
rm -f "$build_log"
build_install
cluster_start check "$CHECK_PORT"

# pg_regress writes results/ and regression.diffs next to sql/; the cluster
# user must be able to read the sources (it loads nothing from here).
run_suite() {
	local name=$1
	shift
	log "suite: $name"
	if "$@"; then
		passed_suites+=("$name")
	else
		failed_suites+=("$name")
		if [ "$name" = regress ] && [ -f "$REPO/regression.diffs" ]; then
			head -c 20000 "$REPO/regression.diffs" >&2
		fi
	fi
}

demo_suite() {
	local out
	out=$(mktemp)
	"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS adjlist_demo_check" -c "CREATE DATABASE adjlist_demo_check" >/dev/null
	"$PGBIN/psql" -X -q -d adjlist_demo_check -f "$REPO/test/demo/demo.sql" >"$out" 2>&1
	diff -u "$REPO/test/demo/demo.out" "$out" && rm -f "$out"
}

run_suite regress make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" installcheck ISOLATION= TAP_TESTS=
run_suite isolation bash "$REPO/test/isolation/run.sh"
run_suite random bash "$REPO/test/random/run.sh"
run_suite fuzz bash "$REPO/test/fuzz/run.sh"
run_suite tap bash "$REPO/test/t/run.sh"
run_suite client bash "$REPO/test/client/run.sh"
run_suite readme bash "$REPO/test/readme_examples.sh"
run_suite package bash "$REPO/test/package.sh"
run_suite upgrade bash "$REPO/test/upgrade.sh"
run_suite demo demo_suite

case $citus_so in
	FAILED) failed_suites+=(citus-build) ;;
	"") log "Citus: skipped (no ../shared/vendor); the Citus TAP tests skip" ;;
esac

# PostgreSQL 18 (../shared/vendor): every suite again, in a nested run of
# this script against the cached build, on its own port and directories.
# make clean: the objects in the clone are for one server at a time.
if [ -z "${ADJLIST_CHECK_NESTED:-}" ]; then
	cluster_stop check
	if ! pg18=$(bash "$REPO/test/vendor.sh" pg18); then
		failed_suites+=(pg18-build)
	elif [ -z "$pg18" ]; then
		log "PostgreSQL 18: skipped (no ../shared/vendor)"
	else
		make -C "$REPO" -s clean PG_CONFIG="$PG_CONFIG"
		run_suite pg18 env ADJLIST_CHECK_NESTED=1 PGBIN="$("$pg18" --bindir)" PG_CONFIG="$pg18" \
			CHECK_PORT=55433 ADJLIST_TMP="$ADJLIST_TMP-pg18" ADJLIST_TAP_DIR="$ADJLIST_TMP-pg18/tap" \
			RANDOM_PORT=55472 FUZZ_PORT=55482 UPGRADE_PORT=55442 \
			bash "$REPO/test/check.sh"
		make -C "$REPO" -s clean PG_CONFIG="$pg18"
		# leave the clone built for this server again
		make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" >/dev/null
	fi
fi

echo
echo "suites passed${ADJLIST_CHECK_NESTED:+ (PostgreSQL 18)}: ${passed_suites[*]:-none}"
echo "suites failed${ADJLIST_CHECK_NESTED:+ (PostgreSQL 18)}: ${failed_suites[*]:-none}"
echo "${#passed_suites[@]} passed, ${#failed_suites[@]} failed"
[ ${#failed_suites[@]} -eq 0 ]

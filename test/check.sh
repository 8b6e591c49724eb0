#!/bin/bash
# The test command: installs what is missing, builds, installs, starts a
# throwaway cluster and runs every test suite.  Stops the cluster on exit,
# also when a step fails.  .ci/run calls exactly this.
#
#   bash test/check.sh
source "$(dirname "$0")/lib/common.sh"

CHECK_PORT=${CHECK_PORT:-55432}
failed_suites=()
passed_suites=()

cleanup() { cluster_stop check; }
trap cleanup EXIT

ensure_base_packages
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

run_suite regress make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" installcheck
run_suite isolation bash "$REPO/test/isolation/run.sh"
run_suite tap bash "$REPO/test/t/run.sh"
run_suite client bash "$REPO/test/client/run.sh"
run_suite readme bash "$REPO/test/readme_examples.sh"
run_suite package bash "$REPO/test/package.sh"
run_suite upgrade bash "$REPO/test/upgrade.sh"
run_suite demo demo_suite

echo
echo "suites passed: ${passed_suites[*]:-none}"
echo "suites failed: ${failed_suites[*]:-none}"
echo "${#passed_suites[@]} passed, ${#failed_suites[@]} failed"
[ ${#failed_suites[@]} -eq 0 ]

#!/bin/bash
# Build the vendored test dependencies (../shared/vendor) into a cache
# outside the clone, once per archive checksum; see test/lib/vendor.sh.
#
#   bash test/vendor.sh pg18 [plain|cassert]  PostgreSQL 18.6 -> prints its pg_config
#   bash test/vendor.sh citus [PG_CONFIG]     Citus for that server (default: Debian's
#                                             PostgreSQL $PGVER), installed into it
#                                             -> prints the installed citus.so
#   bash test/vendor.sh all                   pg18 plain + cassert, Citus on Debian's
#                                             server and on pg18 plain
#   bash test/vendor.sh status                what the cache holds
#   bash test/vendor.sh prune                 drop entries no current archive makes
#
# stdout is only the result (one path a line); progress goes to stderr.
# Without the vendor directory (users of the project do not have it) every
# build command prints "SKIP: ... not present" on stderr, prints nothing on
# stdout and exits $ADJLIST_VENDOR_SKIP_STATUS (default 0): an empty result
# means skipped.  Errors (bad checksum, failed build) exit 1.
#
# Environment: ADJLIST_VENDOR (the vendor directory, default
# <clone>/../shared/vendor), ADJLIST_CACHE (default /var/cache/adjlist),
# VENDOR_JOBS (make -j, default 2), ADJLIST_CITUS_VERSION.
source "$(dirname "$0")/lib/vendor.sh"

usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2; }

skip_status=${ADJLIST_VENDOR_SKIP_STATUS:-0}
# print the result, or exit with the skip status when there is none
result() {
	if [ -n "$1" ]; then
		echo "$1"
	else
		exit "$skip_status"
	fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
start=$(date +%s)
case $cmd in
	pg18)
		out=$(vendor_pg18 "${1:-plain}")
		vlog "pg18 ${1:-plain}: $(( $(date +%s) - start )) s"
		result "$out"
		;;
	citus)
		out=$(vendor_citus "${1:-$PG_CONFIG}")
		vlog "citus: $(( $(date +%s) - start )) s"
		result "$out"
		;;
	all)
		plain=$(vendor_pg18 plain)
		[ -n "$plain" ] || exit "$skip_status"
		cassert=$(vendor_pg18 cassert)
		c15=$(vendor_citus "$PG_CONFIG")
		c18=$(vendor_citus "$plain")
		vlog "all: $(( $(date +%s) - start )) s"
		printf '%s\n' "$plain" "$cassert" "$c15" "$c18"
		;;
	status) vendor_status ;;
	prune) vendor_prune ;;
	*) usage ;;
esac

#!/bin/bash
# Client-library tests of adjlist: the extension used from real drivers.
#
#   source test/lib/common.sh; cluster_start client 55490
#   test/client/run.sh [CLIENT...]      (default: libpq psycopg2 node jdbc)
#   cluster_stop client
#
# The server is the one PGHOST, PGPORT and PGUSER name, as exported by
# cluster_start in test/lib/common.sh; adjlist must be installed in it.  JDBC
# connects over TCP: to PGHOST, or to 127.0.0.1 when PGHOST is a socket
# directory (cluster_start listens there; JDBC_HOST overrides).  The runner
# (re)creates the database adjlist_client (ADJLIST_CLIENT_DB overrides) with
# CREATE EXTENSION adjlist, installs the Debian packages that are missing
# (as root, with ensure_packages), runs every client, prints one line per
# client and then "N passed, M failed", and exits non-zero when a client
# failed.  A failed client's output is printed below its line.
#
# Clients, each a program that exits non-zero with "FAIL: ..." when a check
# fails:
#   libpq     libpq_test.c, built with gcc against libpq-dev
#   psycopg2  psycopg2_test.py, run by /usr/bin/python3 (python3-psycopg2)
#   node      node/pg_test.js: pg and pg-copy-streams from npm, installed
#             with `npm ci` into node/node_modules (package-lock.json pins them)
#   jdbc      JdbcTest.java: pgjdbc from libpostgresql-jdbc-java, JDK from
#             default-jdk-headless; skipped, with the reason, only when those
#             packages cannot be installed
#
# Each client creates its own table (<client>_graph: pk adjkey, sk adjkey,
# data jsonb, PRIMARY KEY (pk, sk)), create_inverted_index() on it, loads the
# edges of edges.tsv (pk, sk, JSON data or empty for NULL, tab-separated; some
# keys multi-byte) and 3000 filler rows in other partitions (so that an index
# scan is the right plan), and checks, computing every expected answer itself
# from edges.tsv:
#   - writes with the driver's parameters, text results in UTF-8 byte order,
#     the binary form of adjkey (version byte 1 + UTF-8 bytes);
#   - neighbors() paged with lim/after by a prepared statement until
#     exhausted (>= 6 executions) equals one unpaginated call; a plain
#     "pk = $1 AND sk ^@ $2::text AND sk > $3 ORDER BY sk LIMIT $4" statement
#     paged the same way; pg_prepared_statements shows generic plans, and
#     EXPLAIN EXECUTE shows "Index Cond" with adjkey_prefix_lower/upper($2);
#     all again under plan_cache_mode = force_generic_plan (no custom plan);
#   - reverse_neighbors() of USER#中文 (one call and paged);
#   - traverse() depth 2, out from USER#alice and in from USER#中文: node
#     count and depths against a BFS in the client;
#   - binary COPY out (parsed: every key is 0x01 + UTF-8), COPY in to another
#     table (same rows), and a bad version byte rejected with 22P03.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/common.sh
source "$here/../lib/common.sh"

DB=${ADJLIST_CLIENT_DB:-adjlist_client}
ALL_CLIENTS=(libpq psycopg2 node jdbc)
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=("${ALL_CLIENTS[@]}")
for c in "${clients[@]}"; do
	case " ${ALL_CLIENTS[*]} " in
		*" $c "*) ;;
		*) echo "unknown client '$c' (clients: ${ALL_CLIENTS[*]})" >&2; exit 2 ;;
	esac
done

ensure_packages postgresql-client-"$PGVER"
PSQL="$PGBIN/psql"
[ -x "$PSQL" ] || PSQL=psql
psql_() { "$PSQL" -X -q -v ON_ERROR_STOP=1 "$@"; }

if ! psql_ -d postgres -Atc 'SELECT 1' >/dev/null; then
	echo "no server at PGHOST=${PGHOST:-} PGPORT=${PGPORT:-} PGUSER=${PGUSER:-}" \
		 "(start one: source test/lib/common.sh; cluster_start client 55490)" >&2
	exit 2
fi
psql_ -d postgres -c "SET client_min_messages = warning" \
	  -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
	  -c "CREATE DATABASE $DB TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'"
if ! psql_ -d "$DB" -c 'CREATE EXTENSION adjlist' >/dev/null; then
	echo "CREATE EXTENSION adjlist failed: is adjlist installed in this server? (make install)" >&2
	exit 2
fi
export PGDATABASE=$DB

work=$(mktemp -d "${TMPDIR:-/tmp}/adjlist-client.XXXXXX")
trap 'rm -rf "$work"' EXIT
edges="$here/edges.tsv"

# Each prepare_X installs and builds what client X needs; it prints the
# reason and returns 1 when that fails, 3 when the client is to be skipped.
prepare_libpq() {
	ensure_packages gcc libc6-dev libpq-dev || { echo "cannot install gcc libc6-dev libpq-dev"; return 1; }
	local pgc=$PG_CONFIG
	[ -x "$pgc" ] || pgc=pg_config
	gcc -std=gnu99 -O1 -Wall -Wextra -o "$work/libpq_test" "$here/libpq_test.c" \
		-I"$("$pgc" --includedir)" -L"$("$pgc" --libdir)" -lpq
}
run_libpq() { "$work/libpq_test" "$edges"; }

prepare_psycopg2() {
	ensure_packages python3 python3-psycopg2 || { echo "cannot install python3-psycopg2"; return 1; }
	/usr/bin/python3 -c 'import psycopg2'
}
run_psycopg2() { /usr/bin/python3 "$here/psycopg2_test.py" "$edges"; }

prepare_node() {
	ensure_packages nodejs || { echo "cannot install nodejs"; return 1; }
	# nodesource's nodejs bundles npm; Debian's nodejs needs the npm package
	command -v npm >/dev/null || ensure_packages npm || { echo "cannot install npm"; return 1; }
	local stamp="$here/node/node_modules/.adjlist-lock-sha256" sum
	sum=$(sha256sum "$here/node/package-lock.json" | cut -d' ' -f1)
	if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
		(cd "$here/node" && npm ci --no-audit --no-fund --loglevel=error) || { echo "npm ci failed"; return 1; }
		echo "$sum" >"$stamp"
	fi
}
run_node() { (cd "$here/node" && node pg_test.js "$edges"); }

JDBC_JAR=/usr/share/java/postgresql.jar
prepare_jdbc() {
	if ! ensure_packages default-jdk-headless libpostgresql-jdbc-java; then
		echo "skipped: the Debian packages default-jdk-headless and libpostgresql-jdbc-java cannot be installed"
		return 3
	fi
	[ -f "$JDBC_JAR" ] || { echo "$JDBC_JAR is missing"; return 1; }
	mkdir -p "$work/jdbc"
	javac -encoding UTF-8 -d "$work/jdbc" -cp "$JDBC_JAR" "$here/JdbcTest.java"
}
run_jdbc() { java -Dfile.encoding=UTF-8 -cp "$work/jdbc:$JDBC_JAR" JdbcTest "$edges"; }

passed=0
failed=0
for c in "${clients[@]}"; do
	log="$work/$c.log"
	t0=$(date +%s%N)
	rc=0
	"prepare_$c" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 3 ]; then
		printf 'SKIP  %-9s %s\n' "$c" "$(tail -n 1 "$log")"
		head -n -1 "$log" | sed 's/^/    | /'
		continue
	fi
	if [ "$rc" -eq 0 ]; then
		"run_$c" >>"$log" 2>&1 || rc=$?
	else
		echo "FAIL: preparing the client failed" >>"$log"
	fi
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	nok=$(grep -c '^ok ' "$log" || true)
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf 'PASS  %-9s %3d checks  %5ss  (%s)\n' "$c" "$nok" "$secs" "$(grep -m1 '^# ' "$log" | cut -c3- | cut -d, -f1-2)"
	else
		failed=$((failed + 1))
		printf 'FAIL  %-9s %3d checks passed, then: %s  (%ss)\n' "$c" "$nok" \
			"$(grep -m1 '^FAIL: ' "$log" || echo "exit status $rc")" "$secs"
		sed 's/^/    | /' "$log"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

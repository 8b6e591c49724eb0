#!/bin/bash
# Client-library tests of adjlist: the extension used from real drivers.
#
#   source test/lib/common.sh; cluster_start client 55490
#   test/client/run.sh [CLIENT...]   (default: libpq psycopg2 psycopg node jdbc)
#   cluster_stop client
#
# The server is the one PGHOST, PGPORT and PGUSER name, as exported by
# cluster_start in test/lib/common.sh; adjlist must be installed in it.  JDBC
# connects over TCP: to PGHOST, or to 127.0.0.1 when PGHOST is a socket
# directory (cluster_start listens there; JDBC_HOST overrides).  The runner
# (re)creates the database adjlist_client (ADJLIST_CLIENT_DB overrides) with
# CREATE EXTENSION adjlist and the graph of the README's Getting started
# (examples/graph.sql), installs the Debian packages that are missing (as
# root, with ensure_packages), runs every client, prints one line per client
# and then "N passed, M failed", and exits non-zero when a client failed.  A
# failed client's output is printed below its line.
#
# Each client is a test program that exits non-zero with "FAIL: ..." when a
# check fails, and an example, examples/example*, that the README's section
# "Client libraries" quotes: the runner checks that README.md (or, while
# README.md has no such section, README-section.md) contains the example
# verbatim, then runs it; an example exits non-zero when an answer differs.
# Once README.md has the section, it must contain README-section.md
# verbatim too (one more line, "readme", counted like a client).
#   libpq     libpq_test.c, examples/example.c: built with gcc against libpq-dev
#   psycopg2  psycopg2_test.py, examples/example_psycopg2.py: /usr/bin/python3
#             with python3-psycopg2
#   psycopg   psycopg_test.py, examples/example_psycopg.py: psycopg 3, from
#             python3-psycopg
#   node      node/pg_test.js, examples/example.js: pg and pg-copy-streams
#             from npm, installed with `npm ci` into node/node_modules
#             (package-lock.json pins them)
#   jdbc      JdbcTest.java, examples/Example.java: pgjdbc from
#             libpostgresql-jdbc-java, JDK from default-jdk-headless; skipped,
#             with the reason, only when those packages cannot be installed
#
# Each test program creates its own table (<client>_graph: pk adjkey, sk
# adjkey, data jsonb, PRIMARY KEY (pk, sk)), create_inverted_index() on it,
# loads the edges of edges.tsv (pk, sk, JSON data or empty for NULL,
# tab-separated; keys multi-byte or with ", {, comma, backslash, space, and
# the key NULL) and 3000 filler rows in other partitions (so that an index
# scan is the right plan), and checks, computing every expected answer itself
# from edges.tsv (the Python clients share edgelist.py):
#   - writes with the driver's parameters, text results in UTF-8 byte order,
#     the binary form of adjkey (version byte 1 + UTF-8 bytes);
#   - parameters: keys sent untyped, with and without ::adjkey / ::text
#     casts, and typed text or varchar without a cast (libpq TEXTOID,
#     psycopg 3 %b, JDBC setString without stringtype=unspecified, $1::text
#     in node-postgres and psycopg2): the same rows; prepared with typed text
#     (varchar in JDBC; not in psycopg2, whose str parameters are untyped)
#     under force_generic_plan, pg_prepared_statements shows the parameter
#     types and EXPLAIN EXECUTE an "Index Cond" on pk = $1 and the
#     adjkey_prefix_lower/upper($2) range, with no Seq Scan, Filter or Sort;
#     neighbors() with a typed text (JDBC: varchar) node still needs
#     ::adjkey, 42883 without (not in psycopg2); libpq: '' untyped is 22P02,
#     typed text matches no row;
#   - neighbors() paged with lim/after by a prepared statement until
#     exhausted (>= 6 executions) equals one unpaginated call; a plain
#     "pk = $1 AND sk ^@ $2::text AND sk > $3 ORDER BY sk LIMIT $4" statement
#     paged the same way; pg_prepared_statements shows generic plans, and
#     EXPLAIN EXECUTE shows "Index Cond" with adjkey_prefix_lower/upper($2);
#     all again under plan_cache_mode = force_generic_plan (no custom plan);
#   - query() paged by exclusive_start_key => the last row's key, forward,
#     backward and on the inverted index: every row exactly once;
#   - arrays of keys sent: "pk = ANY($1)" with the driver's array, with
#     ::adjkey[], and typed text[] without a cast (libpq TEXTARRAYOID,
#     psycopg2 lists, psycopg 3 %b, JDBC createArrayOf("text"), node
#     $1::text[]): the same rows; the generic plans, adjkey[] and text[]
#     (psycopg2: PREPARE ... (text[])), keep "Index Cond: ((pk = ANY ($1))";
#     put_edges() and delete_node() with arrays;
#   - arrays of keys received: shortest_path() to keys that need quoting in
#     the array text form, and every path of traverse(with_path => true),
#     as the driver's native array of strings after the one-line setup,
#     checked hop by hop against the edges;
#   - binary mode where the driver has it (libpq, psycopg 3, node, JDBC
#     binary transfer with a PGBinaryObject), also for adjkey[];
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
ALL_CLIENTS=(libpq psycopg2 psycopg node jdbc)
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
psql_ -d "$DB" -f "$here/examples/graph.sql" >/dev/null
export PGDATABASE=$DB

work=$(mktemp -d "${TMPDIR:-/tmp}/adjlist-client.XXXXXX")
trap 'rm -rf "$work"' EXIT
edges="$here/edges.tsv"

# The README text that quotes the examples: README.md once it has the
# section, README-section.md (the section, to be pasted) until then.
readme=$REPO/README.md
grep -q '^## Client libraries$' "$readme" || readme=$here/README-section.md

# example FILE CMD...: FILE (under examples/) is quoted verbatim in $readme,
# and CMD, which runs it, succeeds
example() {
	local file=$1 text body
	shift
	text=$(<"$readme")
	body=$(<"$here/examples/$file")
	if [[ $text != *"$body"* ]]; then
		echo "FAIL: examples/$file is not quoted verbatim in ${readme#"$REPO"/}"
		return 1
	fi
	if ! "$@"; then
		echo "FAIL: examples/$file failed"
		return 1
	fi
	echo "ok - examples/$file runs as ${readme#"$REPO"/} shows it"
}

# Each prepare_X installs and builds what client X needs; it prints the
# reason and returns 1 when that fails, 3 when the client is to be skipped.
prepare_libpq() {
	ensure_packages gcc libc6-dev libpq-dev || { echo "cannot install gcc libc6-dev libpq-dev"; return 1; }
	local pgc=$PG_CONFIG
	[ -x "$pgc" ] || pgc=pg_config
	gcc -std=gnu99 -O1 -Wall -Wextra -o "$work/libpq_test" "$here/libpq_test.c" \
		-I"$("$pgc" --includedir)" -L"$("$pgc" --libdir)" -lpq &&
		gcc -std=gnu99 -O1 -Wall -Wextra -o "$work/example" "$here/examples/example.c" \
			-I"$("$pgc" --includedir)" -L"$("$pgc" --libdir)" -lpq
}
run_libpq() { "$work/libpq_test" "$edges" && example example.c "$work/example"; }

prepare_psycopg2() {
	ensure_packages python3 python3-psycopg2 || { echo "cannot install python3-psycopg2"; return 1; }
	/usr/bin/python3 -c 'import psycopg2'
}
run_psycopg2() {
	/usr/bin/python3 "$here/psycopg2_test.py" "$edges" &&
		example example_psycopg2.py /usr/bin/python3 "$here/examples/example_psycopg2.py"
}

prepare_psycopg() {
	ensure_packages python3 python3-psycopg || { echo "cannot install python3-psycopg"; return 1; }
	/usr/bin/python3 -c 'import psycopg'
}
run_psycopg() {
	/usr/bin/python3 "$here/psycopg_test.py" "$edges" &&
		example example_psycopg.py /usr/bin/python3 "$here/examples/example_psycopg.py"
}

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
run_node() {
	(cd "$here/node" && node pg_test.js "$edges") &&
		example example.js env NODE_PATH="$here/node/node_modules" node "$here/examples/example.js"
}

JDBC_JAR=/usr/share/java/postgresql.jar
prepare_jdbc() {
	if ! ensure_packages default-jdk-headless libpostgresql-jdbc-java; then
		echo "skipped: the Debian packages default-jdk-headless and libpostgresql-jdbc-java cannot be installed"
		return 3
	fi
	[ -f "$JDBC_JAR" ] || { echo "$JDBC_JAR is missing"; return 1; }
	mkdir -p "$work/jdbc"
	javac -encoding UTF-8 -d "$work/jdbc" -cp "$JDBC_JAR" "$here/JdbcTest.java" "$here/examples/Example.java"
}
run_jdbc() {
	local host=${JDBC_HOST:-${PGHOST:-127.0.0.1}}
	[[ $host != /* ]] || host=127.0.0.1
	java -Dfile.encoding=UTF-8 -cp "$work/jdbc:$JDBC_JAR" JdbcTest "$edges" &&
		example Example.java java -Dfile.encoding=UTF-8 -cp "$work/jdbc:$JDBC_JAR" Example "$host:${PGPORT:-5432}/$DB"
}

passed=0
failed=0
if [ "$readme" = "$REPO/README.md" ]; then
	if [[ $(<"$readme") == *"$(<"$here/README-section.md")"* ]]; then
		passed=$((passed + 1))
		echo "PASS  readme     README.md quotes test/client/README-section.md verbatim"
	else
		failed=$((failed + 1))
		echo "FAIL  readme     README.md does not quote test/client/README-section.md verbatim:"
		diff <(awk '/^## Client libraries$/ { f = 1 } f && /^## / && !/^## Client libraries$/ { exit } f' "$readme" |
				   sed '${/^$/d}') "$here/README-section.md" | sed 's/^/    | /' || true
	fi
fi
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

#!/bin/bash
# Runs every ```sql block of README.md, in order, in a fresh database, and
# fails on the first error: the README's examples must run as written in a
# fresh session.  Expects PGHOST/PGPORT/PGUSER of a running server.
# Blocks marked ```sql wal_level=logical (Streams) need a server with
# wal_level = logical: test/t/013_streams.pl runs those.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PSQL=${PGBIN:-/usr/lib/postgresql/15/bin}/psql
DB=adjlist_readme

sqlfile=$(mktemp)
trap 'rm -f "$sqlfile"' EXIT
awk '/^```sql$/ {on=1; n++; print "\\echo -- README sql block " n; next}
     /^```/ {on=0; next}
     on {print}' "$REPO/README.md" >"$sqlfile"
blocks=$(grep -c '^\\echo -- README sql block' "$sqlfile" || true)
if [ "$blocks" -lt 5 ]; then
	echo "readme_examples: found only $blocks sql blocks in README.md" >&2
	exit 1
fi

"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
"$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$sqlfile" >/dev/null
"$PSQL" -X -q -d postgres -c "DROP DATABASE $DB"
echo "readme_examples: $blocks sql blocks ran"

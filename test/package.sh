#!/bin/bash
# Packaging checks: a staged install (make install DESTDIR=...) puts the
# module, the control file and every install/upgrade script under DESTDIR
# and nothing elsewhere; META.json is valid and agrees with the control
# file and the scripts.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }

make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" install DESTDIR="$stage" >/dev/null
pkglib=$stage$("$PG_CONFIG" --pkglibdir)
share=$stage$("$PG_CONFIG" --sharedir)/extension
check "module staged" "[ -f '$pkglib/adjlist.so' ]"
check "control file staged" "[ -f '$share/adjlist.control' ]"
default=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$REPO/adjlist.control")
# the default version is installed by its own script, or (as contrib's
# hstore does) by a base script and the update scripts leading to it
check "the default version ($default) is reachable from a staged install script" \
	"[ -f '$share/adjlist--$default.sql' ] || ls '$share'/adjlist--*--$default.sql >/dev/null 2>&1"
for f in "$REPO"/src/adjlist--*.sql; do
	check "script $(basename "$f") staged" "[ -f '$share/$(basename "$f")' ]"
done
check "nothing staged outside the PostgreSQL directories" \
	"[ -z \"\$(find '$stage' -type f ! -path '$pkglib/*' ! -path '$share/*' ! -path '*/bitcode/*' | head -1)\" ]"
check "META.json is valid JSON naming an install script and the default version" \
	"python3 -c \"import json,sys; m=json.load(open('$REPO/META.json')); sys.exit(0 if __import__('os').path.isfile('$REPO/' + m['provides']['adjlist']['file']) and m['version'].startswith('$default') and m['provides']['adjlist']['version'].startswith('$default') else 1)\""
exit $fail

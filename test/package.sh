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
# META.json against the PGXN meta spec 1.0.0: its required keys and types
check "META.json has every key the PGXN meta spec requires" \
	"python3 -c \"import json,sys; m=json.load(open('$REPO/META.json')); req=['name','abstract','version','maintainer','license','provides','meta-spec']; ok=all(k in m for k in req) and isinstance(m['maintainer'],(list,str)) and m['meta-spec']['version']=='1.0.0' and all('file' in v and 'version' in v for v in m['provides'].values()); sys.exit(0 if ok else 1)\""
# make dist (PGXN): an archive of the committed tree that builds
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
	distdir=$(mktemp -d)
	make -C "$REPO" -s dist >/dev/null 2>&1 && mv "$REPO"/adjlist-*.zip "$distdir"/
	zip=$(ls "$distdir"/adjlist-*.zip 2>/dev/null | head -1)
	check "make dist makes adjlist-<version>.zip" "[ -n '$zip' ]"
	if [ -n "$zip" ]; then
		(cd "$distdir" && python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall('.')" "$zip")
		top=$(ls -d "$distdir"/adjlist-*/ | head -1)
		check "the archive has META.json, the Makefile and the control file at its top" \
			"[ -f '$top/META.json' ] && [ -f '$top/Makefile' ] && [ -f '$top/adjlist.control' ]"
		check "the archive builds" "make -C '$top' -s PG_CONFIG='$PG_CONFIG' >/dev/null 2>&1"
	fi
	rm -rf "$distdir"
fi
exit $fail

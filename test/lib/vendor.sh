# shellcheck shell=bash
# Builds of the vendored test dependencies (PostgreSQL 18, Citus) from the
# source archives in ../shared/vendor, cached outside the clone.  Sourced,
# not run (test/vendor.sh is the command-line driver).  Test-only: the
# extension never needs any of this at run time.
#
#   vendor_pg18 [plain|cassert]   build PostgreSQL 18 into the cache (once per
#                                 archive checksum); prints its pg_config
#   vendor_citus [PG_CONFIG]      build Citus for that server (once per archive
#                                 checksum and server) and install it into the
#                                 server's directories; prints citus.so's path
#   vendor_status                 what is cached
#   vendor_prune                  remove cache entries no current archive makes
#
# Skipping: users of the project have no ../shared/vendor.  When the vendor
# directory or the archive is absent, vendor_pg18 and vendor_citus print
# "SKIP: ... not present" on stderr, print NOTHING on stdout and return 0:
# an empty result means "skipped".  A checksum mismatch or a failed build is
# an error (non-zero).  All progress goes to stderr; stdout is the result.
#
# Settings (environment):
#   ADJLIST_VENDOR   the vendor directory (default $REPO/../shared/vendor)
#   ADJLIST_CACHE    the cache (default /var/cache/adjlist as root, else
#                    ${XDG_CACHE_HOME:-$HOME/.cache}/adjlist)
#   ADJLIST_CITUS_VERSION  force a Citus version (13.2.2 or 14.0.1)
#   VENDOR_JOBS      make -j (default 2)
#   VENDOR_PG_CONTRIB  contrib modules built with PostgreSQL 18
#
# Cache layout ($ADJLIST_CACHE):
#   pg-18.6-<sha8>/            PostgreSQL prefix (bin, lib, include, share)
#   pg-18.6-<sha8>-cassert/    the assert/debug/valgrind build
#   citus-<ver>-pg<major>-<sha8>-<server8>/
#       root/                  Citus's `make install DESTDIR=root` tree
#       MANIFEST               the files of root/, installed from there
#   */.adjlist-vendor          stamp: written last, so no stamp = no entry;
#                              its "recipe:" line names the recipe version
#   logs/                      the log of the last build of each entry
# <sha8> is the start of the archive's SHA-256, <server8> that of the target
# server's pg_config output (version, configure flags, directories): a new
# archive or a new server minor release makes a new entry.  Every entry is
# built in $ADJLIST_CACHE/.build-* and renamed into place when complete, so
# an interrupted build never leaves a half entry; a lock per entry makes two
# concurrent runs build it once.

if ! declare -F ensure_packages >/dev/null; then
	# shellcheck source=common.sh
	source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
fi

VENDOR_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vendor.sh
ADJLIST_VENDOR=${ADJLIST_VENDOR:-$REPO/../shared/vendor}
if [ -z "${ADJLIST_CACHE:-}" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		ADJLIST_CACHE=/var/cache/adjlist
	else
		ADJLIST_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/adjlist
	fi
fi
VENDOR_JOBS=${VENDOR_JOBS:-2}
VENDOR_PG18_ARCHIVE=postgresql-18.6.tar.bz2
VENDOR_SKIP=77   # internal: "skipped" between the functions here
# contrib modules installed with PostgreSQL 18 (the tests use amcheck,
# pg_prewarm, postgres_fdw and test_decoding)
VENDOR_PG_CONTRIB=${VENDOR_PG_CONTRIB:-amcheck pageinspect pg_prewarm pg_stat_statements pgstattuple postgres_fdw test_decoding}
# Bump when a build recipe below changes: an entry made by another recipe
# is rebuilt (in place of the old one) even if the archive is the same.
VENDOR_PG_RECIPE=3
VENDOR_CITUS_RECIPE=1
export ADJLIST_VENDOR ADJLIST_CACHE VENDOR_JOBS VENDOR_LIB

vlog() { printf 'vendor: %s\n' "$*" >&2; }

# The vendor directory, or nothing (status 1) when it is absent.
vendor_dir() {
	[ -f "$ADJLIST_VENDOR/SHA256SUMS" ] || return 1
	(cd "$ADJLIST_VENDOR" && pwd)
}

# vendor_archive FILE: print the archive's path after checking its SHA-256
# against SHA256SUMS.  Status VENDOR_SKIP (with a SKIP message) when the
# vendor directory or the file is absent, 1 when the checksum is wrong or
# missing from SHA256SUMS.
vendor_archive() {
	local file=$1 dir want got
	if ! dir=$(vendor_dir); then
		echo "SKIP: vendor directory $ADJLIST_VENDOR not present (needed for $file; set ADJLIST_VENDOR)" >&2
		return $VENDOR_SKIP
	fi
	if [ ! -f "$dir/$file" ]; then
		echo "SKIP: $dir/$file not present" >&2
		return $VENDOR_SKIP
	fi
	want=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$dir/SHA256SUMS")
	if [ -z "$want" ]; then
		echo "vendor: $file is not listed in $dir/SHA256SUMS" >&2
		return 1
	fi
	got=$(sha256sum "$dir/$file" | cut -d' ' -f1)
	if [ "$got" != "$want" ]; then
		echo "vendor: checksum mismatch for $dir/$file: SHA256SUMS says $want, the file is $got" >&2
		return 1
	fi
	echo "$dir/$file"
}

# The checksum of a vendored archive as SHA256SUMS records it (after
# vendor_archive has checked it).
vendor_sha() {
	awk -v f="$1" '$2 == f || $2 == "*" f { print $1 }' "$(vendor_dir)/SHA256SUMS"
}

# Run a build step in a new bash with errexit, so that a failing command
# stops it even when our caller runs us in a context where bash ignores
# set -e (`if f`, `f || x`, `$(f)`).
_vendor_strict() {
	bash -euo pipefail -c 'source "$0"; "$@"' "$VENDOR_LIB" "$@"
}

_vendor_prepare_cache() {
	if ! (umask 022 && mkdir -p "$ADJLIST_CACHE/logs"); then
		echo "vendor: cannot create $ADJLIST_CACHE; set ADJLIST_CACHE to a writable directory" >&2
		return 1
	fi
	chmod 755 "$ADJLIST_CACHE" 2>/dev/null || true
}

# _vendor_run LOG CMD...: run a build command with its output appended to
# LOG; on failure show the end of the log.
_vendor_run() {
	local logf=$1
	shift
	echo "+ $*" >>"$logf"
	if ! "$@" >>"$logf" 2>&1; then
		echo "vendor: FAILED: $* (log: $logf); its end:" >&2
		tail -n 40 "$logf" >&2
		return 1
	fi
}

# _vendor_fresh DIR RECIPE: DIR is a complete cache entry of that recipe.
_vendor_fresh() {
	[ -f "$1/.adjlist-vendor" ] && grep -qx "recipe: $2" "$1/.adjlist-vendor"
}

# The prefix of a PostgreSQL build in the cache (printed), for a variant.
_vendor_pg18_prefix() {
	local variant=$1 sha=$2 base
	base=$(basename "$VENDOR_PG18_ARCHIVE" .tar.bz2)   # postgresql-18.6
	local dir="$ADJLIST_CACHE/pg-${base#postgresql-}-${sha:0:8}"
	[ "$variant" = cassert ] && dir="$dir-cassert"
	echo "$dir"
}

# vendor_pg18 [plain|cassert]: build PostgreSQL 18 (unless cached) and print
# the path of its pg_config; also exports VENDOR_PG_CONFIG.
#   plain:   --without-llvm --enable-tap-tests, -O2
#   cassert: --enable-cassert --enable-debug --enable-tap-tests,
#            CFLAGS='-O0 -g3' CPPFLAGS=-DUSE_VALGRIND (valgrind memcheck sees
#            palloc chunks)
vendor_pg18() {
	local variant=${1:-plain} archive sha prefix rc=0
	case $variant in plain|cassert) ;; *) echo "vendor_pg18: unknown variant $variant (plain|cassert)" >&2; return 2 ;; esac
	archive=$(vendor_archive "$VENDOR_PG18_ARCHIVE") || rc=$?
	[ $rc -eq $VENDOR_SKIP ] && return 0
	[ $rc -eq 0 ] || return $rc
	sha=$(vendor_sha "$VENDOR_PG18_ARCHIVE")
	prefix=$(_vendor_pg18_prefix "$variant" "$sha")
	if _vendor_fresh "$prefix" "pg/$VENDOR_PG_RECIPE" && [ -x "$prefix/bin/pg_config" ]; then
		vlog "PostgreSQL 18 $variant: cached in $prefix"
	else
		_vendor_prepare_cache || return 1
		_vendor_strict _vendor_build_pg18 "$variant" "$archive" "$sha" "$prefix" || return 1
	fi
	VENDOR_PG_CONFIG=$prefix/bin/pg_config
	export VENDOR_PG_CONFIG
	echo "$VENDOR_PG_CONFIG"
}

_vendor_build_pg18() {
	local variant=$1 archive=$2 sha=$3 prefix=$4
	local name logf src stage start secs pgxs
	name=$(basename "$prefix")
	umask 022
	exec 9>"$ADJLIST_CACHE/.lock-$name"
	flock 9
	if _vendor_fresh "$prefix" "pg/$VENDOR_PG_RECIPE"; then
		vlog "PostgreSQL 18 $variant: built by a concurrent run in $prefix"
		return 0
	fi
	local pkgs=(build-essential bison flex libicu-dev libreadline-dev zlib1g-dev pkg-config libipc-run-perl perl)
	[ "$variant" = cassert ] && pkgs+=(valgrind)
	ensure_packages "${pkgs[@]}"

	local conf=(--prefix="$prefix" --without-llvm --enable-tap-tests)
	local cflags='-O2' cppflags=''
	if [ "$variant" = cassert ]; then
		conf+=(--enable-cassert --enable-debug)
		cflags='-O0 -g3'
		cppflags='-DUSE_VALGRIND'
	fi

	# leftovers of an interrupted build of this entry (we hold its lock)
	rm -rf "$ADJLIST_CACHE/.build-$name".*
	logf="$ADJLIST_CACHE/logs/$name.log"
	: >"$logf"
	tmp=$(mktemp -d "$ADJLIST_CACHE/.build-$name.XXXXXX")
	chmod 755 "$tmp"
	# (tmp is global: the trap runs after this function has returned)
	trap 'rm -rf "$tmp"' EXIT
	start=$(date +%s)
	vlog "PostgreSQL 18 $variant: building $(basename "$archive") into $prefix (log: $logf)"
	tar -xjf "$archive" -C "$tmp"
	src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'postgresql-*' | head -n1)
	stage=$tmp/stage
	cd "$src" || return 1
	vlog "  configure ${conf[*]} CFLAGS='$cflags' CPPFLAGS='$cppflags'"
	_vendor_run "$logf" ./configure "${conf[@]}" CFLAGS="$cflags" CPPFLAGS="$cppflags"
	vlog "  make -j$VENDOR_JOBS"
	_vendor_run "$logf" make -j"$VENDOR_JOBS"
	_vendor_run "$logf" make -j"$VENDOR_JOBS" -C src/test/isolation
	vlog "  make install (staged in $stage)"
	_vendor_run "$logf" make install DESTDIR="$stage"
	# what the PGXS test targets (installcheck, isolation, TAP) need
	_vendor_run "$logf" make -C src/test/regress install DESTDIR="$stage"
	_vendor_run "$logf" make -C src/test/isolation install DESTDIR="$stage"
	_vendor_run "$logf" make -C src/test/perl install DESTDIR="$stage"
	local m
	for m in $VENDOR_PG_CONTRIB; do
		vlog "  contrib/$m"
		_vendor_run "$logf" make -j"$VENDOR_JOBS" -C "contrib/$m" install DESTDIR="$stage"
	done
	# PostgreSQL is relocatable: the staged pg_config reports staged paths
	pgxs=$(dirname "$("$stage$prefix/bin/pg_config" --pgxs)")/../..
	local f
	for f in src/test/regress/pg_regress src/test/isolation/pg_isolation_regress \
		src/test/isolation/isolationtester src/test/perl/PostgreSQL/Test/Cluster.pm; do
		[ -e "$pgxs/$f" ] || { echo "vendor: $f is missing from the staged install ($pgxs)" >&2; return 1; }
	done
	secs=$(( $(date +%s) - start ))
	cat >"$stage$prefix/.adjlist-vendor" <<EOF
what: PostgreSQL 18 ($variant) from $(basename "$archive")
recipe: pg/$VENDOR_PG_RECIPE
sha256: $sha
configure: ${conf[*]} CFLAGS='$cflags' CPPFLAGS='$cppflags'
contrib: $VENDOR_PG_CONTRIB
built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), make -j$VENDOR_JOBS, $secs s
EOF
	cd /
	if [ -e "$prefix" ]; then
		# an entry of an older recipe, or without a stamp: replace it
		vlog "  replacing the older $prefix"
		mv "$prefix" "$tmp/old"
	fi
	mv "$stage$prefix" "$prefix"
	vlog "PostgreSQL 18 $variant: built in $secs s: $prefix"
}

# The PostgreSQL major version of a pg_config.
_vendor_pg_major() {
	"$1" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'
}

# The Citus version for a PostgreSQL major version (the archive to use).
_vendor_citus_version() {
	local major=$1
	if [ -n "${ADJLIST_CITUS_VERSION:-}" ]; then
		echo "$ADJLIST_CITUS_VERSION"
		return
	fi
	case $major in
		15) echo 13.2.2 ;;          # 13.2.2 supports 15-17
		16|17|18) echo 14.0.1 ;;    # 14.0.1 supports 16-18
		*) return 1 ;;
	esac
}

# vendor_citus [PG_CONFIG]: build Citus for that server (unless cached) and
# install it into the server's directories from the cache.  Prints the path
# of the installed citus.so.  Installing needs write access to the server's
# directories (root for Debian's).
vendor_citus() {
	local pgc=${1:-$PG_CONFIG} major ver archive sha server key cache rc=0
	[ -x "$pgc" ] || pgc=$(command -v "$pgc" 2>/dev/null) || {
		echo "vendor_citus: no pg_config at ${1:-$PG_CONFIG}" >&2
		return 1
	}
	major=$(_vendor_pg_major "$pgc")
	ver=$(_vendor_citus_version "$major") || {
		echo "SKIP: no vendored Citus supports PostgreSQL $major ($pgc)" >&2
		return 0
	}
	archive=$(vendor_archive "citus-$ver.tar.gz") || rc=$?
	[ $rc -eq $VENDOR_SKIP ] && return 0
	[ $rc -eq 0 ] || return $rc
	sha=$(vendor_sha "citus-$ver.tar.gz")
	server=$( { "$pgc" --version; "$pgc" --configure; "$pgc" --includedir-server;
		"$pgc" --pkglibdir; "$pgc" --sharedir; } | sha256sum | cut -c1-8)
	key=citus-$ver-pg$major-${sha:0:8}-$server
	cache=$ADJLIST_CACHE/$key
	if _vendor_fresh "$cache" "citus/$VENDOR_CITUS_RECIPE"; then
		vlog "Citus $ver for $("$pgc" --version): cached in $cache"
	else
		_vendor_prepare_cache || return 1
		_vendor_strict _vendor_build_citus "$pgc" "$ver" "$archive" "$sha" "$cache" || return 1
	fi
	_vendor_strict _vendor_install_tree "$cache" || return 1
	echo "$("$pgc" --pkglibdir)/citus.so"
}

_vendor_build_citus() {
	local pgc=$1 ver=$2 archive=$3 sha=$4 cache=$5
	local name logf src stage start secs hdr compat
	name=$(basename "$cache")
	umask 022
	exec 9>"$ADJLIST_CACHE/.lock-$name"
	flock 9
	if _vendor_fresh "$cache" "citus/$VENDOR_CITUS_RECIPE"; then
		vlog "Citus $ver: built by a concurrent run in $cache"
		return 0
	fi
	ensure_packages build-essential libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev \
		libssl-dev libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev autoconf flex bison

	# leftovers of an interrupted build of this entry (we hold its lock)
	rm -rf "$ADJLIST_CACHE/.build-$name".*
	logf="$ADJLIST_CACHE/logs/$name.log"
	: >"$logf"
	tmp=$(mktemp -d "$ADJLIST_CACHE/.build-$name.XXXXXX")
	chmod 755 "$tmp"
	# (tmp is global: the trap runs after this function has returned)
	trap 'rm -rf "$tmp"' EXIT
	start=$(date +%s)
	vlog "Citus $ver: building for $("$pgc" --version) ($pgc) into $cache (log: $logf)"
	tar -xzf "$archive" -C "$tmp"
	src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'citus-*' | head -n1)
	cd "$src" || return 1

	# Known snag: Citus 13.x carries a static have_createdb_privilege() for
	# PostgreSQL 15, which recent 15.x minor releases (15.20) declare and
	# export in commands/dbcommands.h ("static declaration follows
	# non-static declaration").  When the server's header declares it,
	# rename Citus's copy: the call then uses the server's function.
	hdr=$("$pgc" --includedir-server)/commands/dbcommands.h
	compat=src/include/pg_version_compat.h
	if [ -f "$compat" ] && grep -q '^have_createdb_privilege(void)' "$compat"; then
		if grep -q 'have_createdb_privilege' "$hdr" 2>/dev/null; then
			sed -i 's/^have_createdb_privilege(void)$/citus_unused_have_createdb_privilege(void)/' "$compat"
			grep -q '^citus_unused_have_createdb_privilege(void)$' "$compat"
			vlog "  $hdr declares have_createdb_privilege(): renamed Citus's static copy in $compat"
			echo "patched $compat: static have_createdb_privilege renamed (server header declares it)" >>"$logf"
		else
			vlog "  $hdr does not declare have_createdb_privilege(): Citus's copy left as is"
		fi
	fi

	# with_llvm=no: no JIT bitcode (Debian's server is built with LLVM;
	# the tests do not need Citus's bitcode, and it doubles the build)
	vlog "  configure --without-libcurl"
	_vendor_run "$logf" env PG_CONFIG="$pgc" ./configure --without-libcurl
	vlog "  make -j$VENDOR_JOBS"
	_vendor_run "$logf" make -j"$VENDOR_JOBS" with_llvm=no
	stage=$tmp/stage
	mkdir -p "$stage/root"
	_vendor_run "$logf" make install with_llvm=no DESTDIR="$stage/root"
	[ -f "$stage/root$("$pgc" --pkglibdir)/citus.so" ] ||
		{ echo "vendor: citus.so missing from the staged install" >&2; return 1; }
	(cd "$stage/root" && find . -type f -o -type l | sed 's|^\./|/|' | sort) >"$stage/MANIFEST"
	secs=$(( $(date +%s) - start ))
	cat >"$stage/.adjlist-vendor" <<EOF
what: Citus $ver from $(basename "$archive") for $("$pgc" --version)
recipe: citus/$VENDOR_CITUS_RECIPE
sha256: $sha
pg_config: $pgc
configure: --without-libcurl; make with_llvm=no
built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), make -j$VENDOR_JOBS, $secs s
EOF
	cd /
	if [ -e "$cache" ]; then
		vlog "  replacing the older $cache"
		mv "$cache" "$tmp/old"
	fi
	mv "$stage" "$cache"
	vlog "Citus $ver: built in $secs s: $cache"
}

# Copy a cached DESTDIR tree (cache/root) into place.  Files that are
# already identical are left alone; others are replaced by a new file (not
# rewritten in place: a running server may have the old .so mapped).
_vendor_install_tree() {
	local cache=$1 f n=0 same=0 dst
	# one install at a time (the entry's lock; a build holds it too)
	exec 9>"$ADJLIST_CACHE/.lock-$(basename "$cache")"
	flock 9
	while IFS= read -r f; do
		dst=$f
		if [ -f "$dst" ] && cmp -s "$cache/root$f" "$dst"; then
			same=$((same + 1))
			continue
		fi
		mkdir -p "$(dirname "$dst")" || { echo "vendor: cannot create $(dirname "$dst") (need root?)" >&2; return 1; }
		cp -P --preserve=mode,timestamps --remove-destination "$cache/root$f" "$dst" ||
			{ echo "vendor: cannot install $dst (need root?)" >&2; return 1; }
		n=$((n + 1))
	done <"$cache/MANIFEST"
	vlog "installed $(basename "$cache"): $n file(s) copied, $same already in place"
}

# What the cache holds; stale entries are those no current archive makes.
vendor_status() {
	local d dir current=() f sha
	echo "cache: $ADJLIST_CACHE"
	if dir=$(vendor_dir); then
		echo "vendor: $dir"
		while read -r sha f; do current+=("${sha:0:8}"); done <"$dir/SHA256SUMS"
	else
		echo "vendor: $ADJLIST_VENDOR (not present)"
	fi
	[ -d "$ADJLIST_CACHE" ] || { echo "(no cache)"; return 0; }
	for d in "$ADJLIST_CACHE"/*/; do
		d=${d%/}
		[ "$(basename "$d")" = logs ] && continue
		[ -d "$d" ] || continue
		local state=complete
		[ -f "$d/.adjlist-vendor" ] || state=INCOMPLETE
		if [ ${#current[@]} -gt 0 ]; then
			local hit=no s
			for s in "${current[@]}"; do [[ $(basename "$d") == *-"$s"* ]] && hit=yes; done
			[ $hit = yes ] || state="$state, stale"
		fi
		echo
		echo "$d ($state, $(du -sh "$d" 2>/dev/null | cut -f1))"
		[ -f "$d/.adjlist-vendor" ] && sed 's/^/    /' "$d/.adjlist-vendor"
		if [ -x "$d/bin/pg_config" ]; then
			echo "    PG_CONFIG=$d/bin/pg_config"
			[ -f "$("$d/bin/pg_config" --pkglibdir)/citus.so" ] && echo "    citus installed in it"
		fi
	done
	local pgc
	for pgc in /usr/lib/postgresql/*/bin/pg_config; do
		[ -x "$pgc" ] || continue
		if [ -f "$("$pgc" --pkglibdir)/citus.so" ]; then
			echo
			echo "$("$pgc" --version) ($pgc): citus installed"
		fi
	done
}

# Remove cache entries that no archive of the vendor directory makes any
# more (and leftovers of interrupted builds).  Needs the vendor directory.
vendor_prune() {
	local dir d s hit current=() sha f
	dir=$(vendor_dir) || { echo "SKIP: vendor directory $ADJLIST_VENDOR not present: nothing to compare with" >&2; return 0; }
	[ -d "$ADJLIST_CACHE" ] || return 0
	while read -r sha f; do current+=("${sha:0:8}"); done <"$dir/SHA256SUMS"
	for d in "$ADJLIST_CACHE"/.build-*; do
		[ -e "$d" ] || continue
		# only when no build holds its lock
		local name=${d#"$ADJLIST_CACHE"/.build-}
		name=${name%.*}
		if flock -n "$ADJLIST_CACHE/.lock-$name" true; then
			vlog "removing leftover $d"
			rm -rf "$d"
		fi
	done
	for d in "$ADJLIST_CACHE"/pg-* "$ADJLIST_CACHE"/citus-*; do
		[ -d "$d" ] || continue
		hit=no
		for s in "${current[@]}"; do [[ $(basename "$d") == *-"$s"* ]] && hit=yes; done
		if [ $hit = no ] || [ ! -f "$d/.adjlist-vendor" ]; then
			vlog "removing $d"
			rm -rf "$d"
		fi
	done
}

# Shared shell functions of test/demo.sh, test/check.sh and test/bench/*.
# Sourced, not run.  Everything here is idempotent: safe to run twice.
#
#   ensure_packages PKG...   install the Debian packages that are missing
#   build_install            make && make install (PG_CONFIG from $PGBIN)
#   cluster_start NAME PORT  fresh throwaway cluster run as the postgres user,
#                            data and socket under $ADJLIST_TMP/NAME; exports
#                            PGHOST, PGPORT, PGUSER for psql and pg_regress
#   cluster_stop NAME        stop it (no error when it is not running)

set -euo pipefail

PGVER=${PGVER:-15}
PGBIN=${PGBIN:-/usr/lib/postgresql/$PGVER/bin}
PG_CONFIG=${PG_CONFIG:-$PGBIN/pg_config}
ADJLIST_TMP=${ADJLIST_TMP:-/tmp/adjlist}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PGBIN PG_CONFIG REPO

log() { printf '\n== %s\n' "$*" >&2; }

ensure_packages() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing ${missing[*]}"
		if [ "$(id -u)" -ne 0 ]; then
			echo "need root to install: ${missing[*]}" >&2
			return 1
		fi
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

ensure_base_packages() {
	ensure_packages postgresql-$PGVER postgresql-server-dev-$PGVER \
		build-essential libipc-run-perl
}

build_install() {
	log "building and installing adjlist"
	make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" >/dev/null
	make -C "$REPO" -s PG_CONFIG="$PG_CONFIG" install >/dev/null
}

# Run a command as the postgres OS user (Postgres refuses to run as root).
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

cluster_dir() { echo "$ADJLIST_TMP/$1"; }

cluster_stop() {
	local dir
	dir=$(cluster_dir "$1")
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || \
			as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
}

cluster_start() {
	local name=$1 port=$2 dir
	dir=$(cluster_dir "$name")
	cluster_stop "$name"
	rm -rf "$dir"
	mkdir -p "$dir/sock"
	chmod 755 "$ADJLIST_TMP" 2>/dev/null || true
	[ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$dir"
	log "starting cluster $name on port $port ($dir)"
	as_postgres "$PGBIN/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C.UTF-8 \
		--auth=trust >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
	cat >>"$dir/data/postgresql.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/sock'
fsync = off
max_prepared_transactions = 10
shared_buffers = 256MB
CONF
	as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null || \
		{ cat "$dir/server.log" >&2; return 1; }
	export PGHOST="$dir/sock" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres
}

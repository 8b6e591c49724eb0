#!/bin/bash
# The main job: installs what is missing, builds and installs adjlist,
# starts a throwaway cluster, loads the demo graph and prints the answers
# to the README's questions.  The cluster is left running so that you can
# connect (the last lines say how); it is stopped if any step fails, and a
# second run replaces it.
#
#   bash test/demo.sh
source "$(dirname "$0")/lib/common.sh"

DEMO_PORT=${DEMO_PORT:-55400}
ok=0
on_exit() { [ "$ok" = 1 ] || cluster_stop demo; }
trap on_exit EXIT

ensure_base_packages
build_install
cluster_start demo "$DEMO_PORT"
"$PGBIN/createdb" adjlist_demo
log "demo graph"
"$PGBIN/psql" -X -q -d adjlist_demo -f "$REPO/test/demo/demo.sql"
ok=1

cat <<MSG

== The demo cluster is running.  Connect with:
   $PGBIN/psql -h $PGHOST -p $PGPORT -U postgres adjlist_demo
== Stop it with:
   runuser -u postgres -- $PGBIN/pg_ctl -D $(cluster_dir demo)/data stop
MSG

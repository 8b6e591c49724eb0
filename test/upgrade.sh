#!/bin/bash
# The upgrade path: install the previous version (0.1), ALTER EXTENSION
# adjlist UPDATE, same results as a fresh install of the default version.
#
#   bash test/upgrade.sh
#
# Inside test/check.sh it uses that suite's cluster (PGHOST, PGPORT and
# PGUSER from the environment); run alone (PGPORT unset) it starts its own
# throwaway cluster "upgrade" on port 55440 ($UPGRADE_PORT) and stops it on
# exit.  It uses the adjlist installed in the server (make install); alone
# and as root it installs it only when it is missing.  Its databases get
# unique names and are dropped at the end.
#
#   A  CREATE EXTENSION adjlist VERSION '0.1'; a graph with a trigger-mode
#      index with degree counters, a write-API index and a hash-partitioned
#      base table; writes through the new library on the 0.1 catalog; the
#      query results are saved; ALTER EXTENSION adjlist UPDATE (in a session
#      that used the extension before); the same results, byte for byte;
#      more writes; a write-sharded index, compared with an unsharded one on
#      a copy of the same table.
#   B  CREATE EXTENSION adjlist (the default version, fresh); the same data
#      and the same writes: the same results as A, and the same extension
#      objects (members, function definitions, domains, the registry table, its
#      constraints, policies and pg_extension_config_dump state).
#   C  pg_dump of A restored into a database without the extension.
#   D  0.1, then 0.2, then the default version, one update at a time, with a
#      view, a generated column, a partial index and a SQL function body
#      that depend on 0.2's operator ^@(adjkey, adjkey): the update keeps
#      it, warns and names them, and they work as before; restored from a
#      dump into E they use the new operator and the extension's objects
#      are B's; the README's steps do the same in place.
#
# Prints "ok - ..." / "not ok - ..." lines and exits non-zero on a failure;
# the outputs of a failed run (of every run with UPGRADE_KEEP=1) are kept,
# the last line says where.
source "$(dirname "$0")/lib/common.sh"
set +e		# a failed check prints "not ok" and the run goes on

FROM_VERSION=0.1
TO_VERSION=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$REPO/adjlist.control")
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

fail=0
own_cluster=0
started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/adjlist_upgrade.XXXXXX")
DB_A=adjlist_upgrade_a_$$
DB_B=adjlist_upgrade_b_$$
DB_C=adjlist_upgrade_c_$$
DB_D=adjlist_upgrade_d_$$
DB_E=adjlist_upgrade_e_$$

cleanup() {
	if [ -n "${PGPORT:-}" ]; then
		for db in "$DB_A" "$DB_B" "$DB_C" "$DB_D" "$DB_E"; do
			"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1
		done
	fi
	[ $own_cluster -eq 1 ] && cluster_stop upgrade
	if [ $fail -eq 0 ] && [ -z "${UPGRADE_KEEP:-}" ]; then
		rm -rf "$work"
	else
		echo "# outputs kept in $work" >&2
	fi
}
trap cleanup EXIT

if [ -z "${PGPORT:-}" ]; then
	if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/adjlist.control" ]; then
		[ "$(id -u)" -eq 0 ] || { echo "adjlist is not installed; run make install" >&2; exit 2; }
		build_install || exit 2
	fi
	cluster_start upgrade "${UPGRADE_PORT:-55440}" || exit 2
	own_cluster=1
fi

# ----------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; fail=1; }
indent() { sed 's/^/#   /' | head -n "${1:-60}"; }

# psql on a database; stops at the first error
q() { local db=$1; shift; "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
# one value
val() { q "$1" -At -c "$2" 2>&1; }
# a script's output as a file to compare: every statement echoed, NULL shown
run_to() {
	local db=$1 out=$2 script=$3
	shift 3
	q "$db" -a -A -P null='<null>' -f "$work/$script" "$@" >"$work/$out" 2>&1 ||
		{ tail -n 20 "$work/$out"; return 1; }
}
# a step that must succeed: prints its output when it fails
step() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name"
		printf '%s\n' "$out" | indent
		return 1
	fi
}
# ... and without which nothing after it means anything
must() { step "$@" || { echo "Bail out! $1"; exit 1; }; }
is() {
	if [ "$2" == "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		printf 'got:\n%s\nexpected:\n%s\n' "$2" "$3" | indent
	fi
}
same_files() {
	local name=$1 f1=$work/$2 f2=$work/$3
	if diff -q "$f1" "$f2" >/dev/null 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		diff -u "$f1" "$f2" | indent 80
	fi
}
# zero rows from verify_inverted_index for each index; the rows otherwise
exact() {
	local name=$1 db=$2 idx out
	shift 2
	out=""
	for idx in "$@"; do
		out+=$(val "$db" "SELECT '$idx', * FROM verify_inverted_index('$idx')")
	done
	is "$name" "$out" ""
}

# ----------------------------------------------------------------------
# the SQL, the same for every database
# ----------------------------------------------------------------------

# the tables, their indexes and the data
cat >"$work/setup.sql" <<'SQL'
-- a social graph: profiles, follows (USER#hub has 20 followers), likes
CREATE TABLE social (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO social
SELECT ('USER#' || u)::adjkey, 'PROFILE', jsonb_build_object('name', 'user ' || u)
FROM generate_series(1, 60) u;
INSERT INTO social
SELECT ('USER#' || u)::adjkey, ('FOLLOWS#USER#' || ((u * 7 + k) % 60 + 1))::adjkey,
       CASE WHEN k % 2 = 0 THEN jsonb_build_object('since', 2000 + k) END
FROM generate_series(1, 60) u, generate_series(1, 5) k;
INSERT INTO social
SELECT ('USER#' || u)::adjkey, 'FOLLOWS#USER#hub', jsonb_build_object('n', u)
FROM generate_series(3, 60, 3) u;
-- a trigger-mode index with degree counters, backfilled from the rows above
SELECT create_inverted_index('social', counters => 4);
-- rows written through the triggers
INSERT INTO social
SELECT ('USER#' || u)::adjkey, ('LIKES#POST#' || ((u * 3 + k * 11) % 40 + 1))::adjkey,
       jsonb_build_object('at', k)
FROM generate_series(1, 60) u, generate_series(1, 3) k;

-- a write-API index, written with put_edge and friends
CREATE TABLE follows_api (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('follows_api', index_name => 'follows_api_by_target',
                             include => '{data}', mode => 'api');
SELECT put_edges('follows_api',
       (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#' || u,
                                            'sk', 'FOLLOWS#USER#' || ((u * 5 + k) % 30 + 1),
                                            'data', jsonb_build_object('k', k)) ORDER BY u, k)
        FROM generate_series(1, 30) u, generate_series(1, 4) k));
SELECT put_edge('follows_api', 'USER#1', 'PROFILE', '{"name": "one"}');

-- a hash-partitioned base table
CREATE TABLE hashed (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE hashed_0 PARTITION OF hashed FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE hashed_1 PARTITION OF hashed FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO hashed SELECT * FROM social WHERE sk ^@ 'FOLLOWS#';
SELECT create_inverted_index('hashed', include => '{data}');

-- written by the session that runs the update, before and after it
CREATE TABLE warm (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO warm SELECT ('USER#a' || u)::adjkey, 'FOLLOWS#USER#b', NULL FROM generate_series(1, 10) u;
SELECT create_inverted_index('warm');
SQL

# writes after the indexes exist (in A: the 0.1 catalog, the new library)
cat >"$work/writes1.sql" <<'SQL'
INSERT INTO social VALUES ('USER#61', 'PROFILE', '{"name": "user 61"}');
INSERT INTO social VALUES ('USER#61', 'FOLLOWS#USER#1', NULL),
                          ('USER#61', 'FOLLOWS#USER#hub', '{"since": 2024}'),
                          ('USER#61', 'LIKES#POST#3', NULL);
INSERT INTO social
SELECT ('USER#' || u)::adjkey, 'FOLLOWS#USER#61', jsonb_build_object('n', u)
FROM generate_series(2, 59, 3) u;
-- an edge moves to another target, a node to another key
UPDATE social SET sk = (sk::text || 'x')::adjkey WHERE pk = 'USER#10' AND sk ^@ 'FOLLOWS#';
UPDATE social SET pk = 'USER#70' WHERE pk = 'USER#7';
UPDATE social SET data = '{"name": "renamed"}' WHERE pk = 'USER#5' AND sk = 'PROFILE';
INSERT INTO social VALUES ('USER#1', 'PROFILE', '{"name": "upserted"}'),
                          ('USER#62', 'FOLLOWS#USER#hub', NULL)
    ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
INSERT INTO social VALUES ('USER#2', 'PROFILE', NULL) ON CONFLICT DO NOTHING;
DELETE FROM social WHERE pk = 'USER#3';
DELETE FROM social WHERE sk ^@ 'LIKES#POST#7' AND pk < 'USER#4';
BEGIN;
DELETE FROM social WHERE pk = 'USER#4';
SAVEPOINT s;
DELETE FROM social WHERE pk = 'USER#8';
ROLLBACK TO s;
COMMIT;
MERGE INTO social s
USING (VALUES ('USER#9'::adjkey, 'FOLLOWS#USER#hub'::adjkey), ('USER#13', 'FOLLOWS#USER#hub')) v(pk, sk)
ON s.pk = v.pk AND s.sk = v.sk
WHEN MATCHED THEN DELETE
WHEN NOT MATCHED THEN INSERT VALUES (v.pk, v.sk, '{"merged": true}');

INSERT INTO hashed VALUES ('USER#61', 'FOLLOWS#USER#hub', '{"h": 1}');
UPDATE hashed SET pk = (pk::text || 'm')::adjkey WHERE pk IN ('USER#11', 'USER#14', 'USER#17');
UPDATE hashed SET data = '{"h": 2}' WHERE sk = 'FOLLOWS#USER#hub';
DELETE FROM hashed WHERE pk = 'USER#20';
INSERT INTO hashed VALUES ('USER#21', 'FOLLOWS#USER#hub', '{"h": 3}')
    ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;

SELECT put_edge('follows_api', 'USER#2', 'FOLLOWS#USER#12', '{"k": 99}');
SELECT delete_edge('follows_api', 'USER#2', 'FOLLOWS#USER#13');
SELECT put_edge('follows_api', 'USER#31', 'FOLLOWS#USER#7');
SELECT delete_node('follows_api', 'USER#5', ARRAY['FOLLOWS#']);
SQL

# writes after the update (in B: the same writes, the same order)
cat >"$work/writes2.sql" <<'SQL'
INSERT INTO social SELECT ('USER#' || u || 'n')::adjkey, 'FOLLOWS#USER#hub', NULL FROM generate_series(1, 30) u;
UPDATE social SET sk = 'FOLLOWS#USER#hub2' WHERE sk = 'FOLLOWS#USER#61';
UPDATE social SET pk = 'USER#71' WHERE pk = 'USER#70';
DELETE FROM social WHERE sk ^@ 'LIKES#POST#1';
INSERT INTO social VALUES ('USER#2', 'PROFILE', '{"name": "again"}')
    ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
INSERT INTO hashed SELECT ('USER#' || u || 'n')::adjkey, 'FOLLOWS#USER#hub', NULL FROM generate_series(1, 10) u;
UPDATE hashed SET pk = 'USER#22m' WHERE pk = 'USER#22';
DELETE FROM hashed WHERE sk = 'FOLLOWS#USER#1';
SELECT put_edges('follows_api', '[{"pk": "USER#40", "sk": "FOLLOWS#USER#7", "data": {"k": 7}},
                                  {"pk": "USER#41", "sk": "FOLLOWS#USER#7"}]');
SELECT delete_edge('follows_api', 'USER#40', 'FOLLOWS#USER#7');
SELECT delete_node('follows_api', 'USER#8', ARRAY['FOLLOWS#']);
SQL

# the results compared: what a 0.1 catalog can run too
cat >"$work/queries.sql" <<'SQL'
-- one hop out, with pagination
SELECT * FROM neighbors('social', 'USER#1', 'FOLLOWS#');
SELECT * FROM neighbors('social', 'USER#2', '', lim => 3);
SELECT neighbor FROM neighbors('social', 'USER#2', 'FOLLOWS#', lim => 2,
    after => (SELECT max(sk) FROM neighbors('social', 'USER#2', 'FOLLOWS#', lim => 2)));
SELECT neighbor FROM neighbors('social', 'USER#2', 'FOLLOWS#', backward => true);
-- one hop in, with pagination both ways
SELECT * FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#');
SELECT neighbor FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#', lim => 5);
SELECT neighbor FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#', lim => 5,
    after => (SELECT max(neighbor) FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#', lim => 5)));
SELECT neighbor FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#', lim => 5, backward => true);
SELECT neighbor FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#', lim => 5, backward => true,
    after => (SELECT min(neighbor) FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#', lim => 5, backward => true)));
SELECT * FROM reverse_neighbors('social', 'POST#7', 'LIKES#');
SELECT * FROM reverse_neighbors('social', 'USER#61', 'FOLLOWS#', lim => 4);
-- every in-edge of every target, in each target's order
SELECT t.e, t.n, r.neighbor, r.pk, r.sk
FROM (SELECT DISTINCT key_part(sk, 1) AS e, key_tail(sk, 1) AS n FROM social WHERE key_nparts(sk) > 1) t,
     LATERAL reverse_neighbors('social', t.n, t.e) WITH ORDINALITY r
ORDER BY t.e, t.n, r.ordinality;
-- degrees and counters
SELECT degree('social', 'USER#hub', 'FOLLOWS#', 'in') AS hub_in, degree('social', 'USER#1', 'FOLLOWS#') AS u1_out,
       degree('social', 'POST#3', 'LIKES#', 'in') AS post3_in,
       has_edge('social', 'USER#6', 'USER#hub', 'FOLLOWS#') AS yes, has_edge('social', 'USER#7', 'USER#hub', 'FOLLOWS#') AS no;
SELECT edge_count('social_inverted', 'USER#hub', 'FOLLOWS', 'in') AS hub_in,
       edge_count('social_inverted', 'USER#1', 'FOLLOWS', 'out') AS u1_out,
       edge_count('social_inverted', 'USER#61', 'FOLLOWS', 'in') AS u61_in,
       edge_count('social_inverted', 'USER#hub2', 'FOLLOWS', 'in') AS hub2_in,
       edge_count('social_inverted', 'POST#3', 'LIKES', 'in') AS post3_in,
       edge_count('social_inverted', 'USER#5', 'PROFILE', 'out') AS profile;
SELECT node, edge, direction, sum(n) FROM social_inverted_degree GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3;
-- multi-hop
SELECT * FROM traverse('social', 'USER#1', 'FOLLOWS#', 2, with_path => true);
SELECT * FROM traverse('social', 'USER#hub', 'FOLLOWS#', 2, 'in', lim => 25, with_path => true);
SELECT * FROM traverse('social', 'USER#2', 'FOLLOWS#', 2, 'both');
SELECT reachable_count('social', 'USER#1', 'FOLLOWS#', 3) AS out3, reachable_count('social', 'USER#1', 'FOLLOWS#', 2, 'in') AS in2;
SELECT shortest_path('social', 'USER#1', 'USER#hub', 'FOLLOWS#') AS p1,
       shortest_path('social', 'USER#5', 'USER#40', 'FOLLOWS#') AS p2,
       shortest_path('social', 'USER#40', 'USER#5', 'FOLLOWS#', 6, 'in') AS p3,
       shortest_path('social', 'USER#2', 'USER#50', 'FOLLOWS#', 6, 'both') AS p4,
       shortest_path('social', 'USER#1', 'USER#nobody', 'FOLLOWS#') AS none;
SELECT * FROM common_neighbors('social', 'USER#1', 'USER#9', 'FOLLOWS#');
SELECT * FROM common_neighbors('social', 'USER#1', 'USER#53', 'FOLLOWS#');
SELECT * FROM common_neighbors('social', 'USER#hub', 'USER#8', 'FOLLOWS#', 'in');
SELECT * FROM also_liked('social', 'USER#1');
SELECT to_dot('social', 'USER#61', 'FOLLOWS#');
-- DynamoDB Query on the base table and on the index table
SELECT * FROM query('social', 'USER#1');
SELECT * FROM query('social', 'USER#1', 'begins_with', 'FOLLOWS#', lim => 2);
SELECT * FROM query('social', 'USER#1', 'begins_with', 'FOLLOWS#',
                    exclusive_start_key => '{"pk": "USER#1", "sk": "FOLLOWS#USER#10"}');
SELECT * FROM query('social', 'USER#1', backward => true, lim => 3);
SELECT * FROM query('social', 'USER#1', 'between', 'FOLLOWS#', 'LIKES#~');
SELECT * FROM query('social_inverted', 'FOLLOWS#USER#hub', lim => 4);
SELECT * FROM query('social_inverted', 'FOLLOWS#USER#hub', '>', 'USER#3', backward => true);
SELECT * FROM query('social_inverted', 'FOLLOWS#USER#hub',
                    exclusive_start_key => '{"sk": "FOLLOWS#USER#hub", "pk": "USER#30"}');
SELECT * FROM query('social_inverted', 'LIKES#POST#3', 'begins_with', 'USER#1');
SELECT query_count('social', 'USER#1') AS all_items, query_count('social', 'USER#1', 'begins_with', 'LIKES#') AS likes,
       query_count('social_inverted', 'FOLLOWS#USER#hub') AS hub,
       query_count('social_inverted', 'FOLLOWS#USER#hub', '<=', 'USER#3') AS hub_le;
-- the partitioned base table (read through SQL)
SELECT * FROM reverse_neighbors('hashed', 'USER#hub', 'FOLLOWS#');
SELECT * FROM reverse_neighbors('hashed', 'USER#hub', 'FOLLOWS#', lim => 3, backward => true);
SELECT * FROM neighbors('hashed', 'USER#2', 'FOLLOWS#');
SELECT degree('hashed', 'USER#hub', 'FOLLOWS#', 'in');
SELECT * FROM traverse('hashed', 'USER#hub', 'FOLLOWS#', 2, 'in', with_path => true);
SELECT shortest_path('hashed', 'USER#5', 'USER#40', 'FOLLOWS#');
SELECT * FROM query('hashed_inverted', 'FOLLOWS#USER#hub', lim => 5);
SELECT query_count('hashed_inverted', 'FOLLOWS#USER#hub');
-- the write API
SELECT * FROM reverse_neighbors('follows_api', 'USER#7', 'FOLLOWS#');
SELECT * FROM query('follows_api_by_target', 'FOLLOWS#USER#7');
SELECT query_count('follows_api_by_target', 'FOLLOWS#USER#7');
BEGIN;
SELECT put_edge('follows_api', 'USER#9', 'FOLLOWS#USER#7', '{"new": true}');
SELECT put_edge('follows_api', 'USER#11', 'FOLLOWS#USER#12', '{"replaced": true}');
SELECT delete_edge('follows_api', 'USER#1', 'FOLLOWS#USER#7');
SELECT delete_node('follows_api', 'USER#12', ARRAY['FOLLOWS#']);
SELECT * FROM reverse_neighbors('follows_api', 'USER#7', 'FOLLOWS#');
SELECT * FROM reverse_neighbors('follows_api', 'USER#12', 'FOLLOWS#');
SELECT * FROM follows_api ORDER BY pk, sk;
SELECT * FROM follows_api_by_target ORDER BY sk, pk;
SELECT * FROM verify_inverted_index('follows_api_by_target');
ROLLBACK;
-- a trigger-mode write seen by the readers in the same transaction
BEGIN;
INSERT INTO social VALUES ('USER#99', 'FOLLOWS#USER#hub', NULL);
DELETE FROM social WHERE pk = 'USER#6';
SELECT neighbor FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#');
SELECT edge_count('social_inverted', 'USER#hub', 'FOLLOWS', 'in');
ROLLBACK;
-- the stored state
SELECT * FROM social ORDER BY pk, sk;
SELECT * FROM social_inverted ORDER BY sk, pk;
SELECT * FROM hashed_inverted ORDER BY sk, pk;
SELECT tableoid::regclass, * FROM hashed ORDER BY pk, sk;
SQL

# the registrations, the triggers and the counter tables, which the update
# brings to the form a fresh install gives (compared between A updated and
# B, not with A before the update)
cat >"$work/state.sql" <<'SQL'
SELECT indexrel::text, baserel::text, columns, nkeys, counterrel::text, counter_shards, base_key, mode
FROM adjlist_inverted_indexes WHERE baserel::text IN ('social', 'follows_api', 'hashed', 'warm') ORDER BY 1;
SELECT tgrelid::regclass::text AS tbl, tgname, pg_get_triggerdef(oid)
FROM pg_trigger WHERE NOT tgisinternal
 AND tgrelid::regclass::text ~ '^(social|follows_api|hashed(_[01])?|warm)(_inverted|_by_target)?(_degree)?$'
ORDER BY 1, 2;
SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
FROM pg_attribute a WHERE a.attrelid = 'social_inverted_degree'::regclass AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attname;
SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'social_inverted_degree'::regclass
ORDER BY 1;
SQL

# the session that updates: it used the extension before (its caches are
# warm) and goes on using it after, with a write-sharded index it creates
cat >"$work/update_session.sql" <<'SQL'
SELECT count(*) FROM reverse_neighbors('warm', 'USER#b', 'FOLLOWS#');
INSERT INTO warm VALUES ('USER#x1', 'FOLLOWS#USER#b', NULL);
SELECT count(*) FROM reverse_neighbors('social', 'USER#hub', 'FOLLOWS#');
ALTER EXTENSION adjlist UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'adjlist';
INSERT INTO warm VALUES ('USER#x2', 'FOLLOWS#USER#b', NULL);
DELETE FROM warm WHERE pk = 'USER#a1';
UPDATE warm SET sk = 'FOLLOWS#USER#c' WHERE pk = 'USER#a2';
SELECT count(*) FROM reverse_neighbors('warm', 'USER#b', 'FOLLOWS#');
CREATE TABLE warm_sharded (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('warm_sharded', write_shards => 2);
INSERT INTO warm_sharded SELECT * FROM warm;
DELETE FROM warm_sharded WHERE pk = 'USER#a3';
DELETE FROM warm WHERE pk = 'USER#a3';
SELECT (SELECT array_agg(neighbor) FROM reverse_neighbors('warm', 'USER#b', 'FOLLOWS#'))
     = (SELECT array_agg(neighbor) FROM reverse_neighbors('warm_sharded', 'USER#b', 'FOLLOWS#')) AS same_session_sharded_reads;
SELECT count(*) AS problems FROM (
    SELECT * FROM verify_inverted_index('warm_inverted')
    UNION ALL SELECT * FROM verify_inverted_index('warm_sharded_inverted')
    UNION ALL SELECT * FROM verify_inverted_index('social_inverted')) v;
SQL

# a copy of social and of follows_api, indexed with write_shards => :shards
cat >"$work/shard_setup.sql" <<'SQL'
CREATE TABLE :tbl (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO :tbl SELECT * FROM social;
SELECT create_inverted_index(:'tbl', include => '{data}', write_shards => :shards);
INSERT INTO :tbl SELECT ('USER#' || u || 'h')::adjkey, 'FOLLOWS#USER#hub', jsonb_build_object('h', u)
FROM generate_series(1, 40) u;
CREATE TABLE :api (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index(:'api', include => '{data}', mode => 'api', write_shards => :shards);
SELECT put_edges(:'api', (SELECT jsonb_agg(jsonb_build_object('pk', pk, 'sk', sk, 'data', data) ORDER BY pk, sk)
                          FROM follows_api));
SQL

cat >"$work/shard_writes.sql" <<'SQL'
INSERT INTO :tbl VALUES ('USER#90', 'FOLLOWS#USER#hub', '{"w": 1}'), ('USER#91', 'FOLLOWS#USER#hub', NULL),
                        ('USER#90', 'LIKES#POST#1', NULL);
UPDATE :tbl SET pk = 'USER#200' WHERE pk = 'USER#20';
UPDATE :tbl SET sk = (sk::text || 'z')::adjkey WHERE pk = 'USER#21' AND sk ^@ 'FOLLOWS#';
UPDATE :tbl SET data = '{"u": 2}' WHERE sk = 'FOLLOWS#USER#hub' AND pk < 'USER#3';
DELETE FROM :tbl WHERE pk = 'USER#22';
DELETE FROM :tbl WHERE sk = 'FOLLOWS#USER#hub' AND pk > 'USER#5';
INSERT INTO :tbl VALUES ('USER#1', 'FOLLOWS#USER#hub', '{"up": 1}'), ('USER#92', 'FOLLOWS#USER#hub', '{"up": 2}')
    ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data;
SELECT put_edge(:'api', 'USER#2', 'FOLLOWS#USER#12', '{"k": 98}');
SELECT put_edge(:'api', 'USER#50', 'FOLLOWS#USER#7', '{"k": 50}');
SELECT delete_edge(:'api', 'USER#1', 'FOLLOWS#USER#7');
SELECT delete_node(:'api', 'USER#7', ARRAY['FOLLOWS#']);
SQL

# what the sharded and the unsharded copies must answer alike
cat >"$work/shard_reads.sql" <<'SQL'
SELECT t.e, t.n, r.*
FROM (SELECT DISTINCT key_part(sk, 1) AS e, key_tail(sk, 1) AS n FROM :tbl WHERE key_nparts(sk) > 1) t,
     LATERAL reverse_neighbors(:'tbl', t.n, t.e) WITH ORDINALITY r
ORDER BY t.e, t.n, r.ordinality;
SELECT * FROM reverse_neighbors(:'tbl', 'USER#hub', 'FOLLOWS#', lim => 7);
SELECT * FROM reverse_neighbors(:'tbl', 'USER#hub', 'FOLLOWS#', lim => 7, after => 'USER#3');
SELECT * FROM reverse_neighbors(:'tbl', 'USER#hub', 'FOLLOWS#', lim => 7, backward => true);
SELECT * FROM reverse_neighbors(:'tbl', 'USER#hub', 'FOLLOWS#', lim => 7, backward => true, after => 'USER#3');
SELECT degree(:'tbl', 'USER#hub', 'FOLLOWS#', 'in'), degree(:'tbl', 'POST#3', 'LIKES#', 'in');
SELECT * FROM traverse(:'tbl', 'USER#hub', 'FOLLOWS#', 2, 'in', with_path => true);
SELECT reachable_count(:'tbl', 'USER#1', 'FOLLOWS#', 3, 'both');
SELECT shortest_path(:'tbl', 'USER#40', 'USER#5', 'FOLLOWS#', 6, 'in'),
       shortest_path(:'tbl', 'USER#2', 'USER#hub', 'FOLLOWS#');
SELECT * FROM common_neighbors(:'tbl', 'USER#hub', 'USER#8', 'FOLLOWS#', 'in');
SELECT * FROM query((:'tbl' || '_inverted')::regclass, 'FOLLOWS#USER#hub');
SELECT * FROM query((:'tbl' || '_inverted')::regclass, 'FOLLOWS#USER#hub', 'begins_with', 'USER#1', lim => 3);
SELECT * FROM query((:'tbl' || '_inverted')::regclass, 'FOLLOWS#USER#hub', backward => true, lim => 4,
                    exclusive_start_key => '{"sk": "FOLLOWS#USER#hub", "pk": "USER#5"}');
SELECT query_count((:'tbl' || '_inverted')::regclass, 'FOLLOWS#USER#hub'),
       query_count((:'tbl' || '_inverted')::regclass, 'FOLLOWS#USER#hub', '>', 'USER#3');
SELECT * FROM reverse_neighbors(:'api', 'USER#12', 'FOLLOWS#');
SELECT t.n, r.*
FROM (SELECT DISTINCT key_tail(sk, 1) AS n FROM :api WHERE sk ^@ 'FOLLOWS#') t,
     LATERAL reverse_neighbors(:'api', t.n, 'FOLLOWS#') WITH ORDINALITY r
ORDER BY t.n, r.ordinality;
SELECT * FROM :api ORDER BY pk, sk;
SQL

# the extension's objects
cat >"$work/objects.sql" <<'SQL'
\set ext '(SELECT oid FROM pg_extension WHERE extname = ''adjlist'')'
-- members
SELECT pg_describe_object(classid, objid, 0) AS member FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND refobjid = :ext AND deptype = 'e'
ORDER BY pg_describe_object(classid, objid, 0) COLLATE "C";
-- functions: definitions, kinds, privileges
SELECT p.oid::regprocedure::text AS function, p.prokind, p.proacl,
       CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END AS definition
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e'
ORDER BY p.oid::regprocedure::text COLLATE "C";
SELECT a.aggfnoid::regprocedure::text AS aggregate, a.aggkind, a.aggtransfn::regprocedure::text, a.aggcombinefn,
       a.aggsortop::regoperator::text, a.aggtranstype::regtype::text
FROM pg_aggregate a JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = a.aggfnoid
WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e'
ORDER BY a.aggfnoid::regprocedure::text COLLATE "C";
-- operators, operator families
SELECT o.oid::regoperator::text AS operator, o.oprcode::regprocedure::text, o.oprrest, o.oprjoin,
       o.oprcom::regoperator::text, o.oprnegate::regoperator::text, o.oprcanmerge, o.oprcanhash
FROM pg_operator o JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e'
ORDER BY o.oid::regoperator::text COLLATE "C";
SELECT * FROM (
    SELECT f.opfname::text AS family, am.amname::text AS am, ao.amopstrategy,
           ao.amoplefttype::regtype::text AS lefttype, ao.amoprighttype::regtype::text AS righttype,
           ao.amopopr::regoperator::text AS operator, ao.amoppurpose
    FROM pg_opfamily f JOIN pg_am am ON am.oid = f.opfmethod JOIN pg_amop ao ON ao.amopfamily = f.oid
    JOIN pg_depend d ON d.classid = 'pg_opfamily'::regclass AND d.objid = f.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e') s
ORDER BY family COLLATE "C", am COLLATE "C", amopstrategy, lefttype COLLATE "C", righttype COLLATE "C";
SELECT * FROM (
    SELECT f.opfname::text AS family, am.amname::text AS am, ap.amprocnum,
           ap.amproclefttype::regtype::text AS lefttype, ap.amprocrighttype::regtype::text AS righttype,
           ap.amproc::regprocedure::text AS function
    FROM pg_opfamily f JOIN pg_am am ON am.oid = f.opfmethod JOIN pg_amproc ap ON ap.amprocfamily = f.oid
    JOIN pg_depend d ON d.classid = 'pg_opfamily'::regclass AND d.objid = f.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e') s
ORDER BY family COLLATE "C", am COLLATE "C", amprocnum, lefttype COLLATE "C", righttype COLLATE "C";
SELECT t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory, t.typinput, t.typoutput,
       t.typreceive, t.typsend, t.typanalyze, t.typcollation
FROM pg_type t WHERE t.oid = 'adjkey'::regtype;
-- domains (adjkey_prefix): base type, NOT NULL, default, constraints
SELECT * FROM (
    SELECT t.typname::text AS domain, t.typbasetype::regtype::text AS base, t.typnotnull, t.typdefault,
           (SELECT string_agg(pg_get_constraintdef(c.oid), ' ' ORDER BY pg_get_constraintdef(c.oid) COLLATE "C")
            FROM pg_constraint c WHERE c.contypid = t.oid) AS constraints
    FROM pg_type t JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e'
      AND t.typtype = 'd') s
ORDER BY domain COLLATE "C";
SELECT * FROM (
    SELECT c.castsource::regtype::text AS source, c.casttarget::regtype::text AS target,
           c.castfunc::regprocedure::text AS function, c.castcontext, c.castmethod
    FROM pg_cast c JOIN pg_depend d ON d.classid = 'pg_cast'::regclass AND d.objid = c.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e') s
ORDER BY source COLLATE "C", target COLLATE "C";
SELECT evtname, evtevent, evtfoid::regprocedure::text, evtenabled, evttags FROM pg_event_trigger
ORDER BY evtname COLLATE "C";
-- comments
SELECT * FROM (
    SELECT pg_describe_object(c.classoid, c.objoid, c.objsubid) AS object, c.description
    FROM pg_description c JOIN pg_depend d ON d.classid = c.classoid AND d.objid = c.objoid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = :ext AND d.deptype = 'e') s
ORDER BY object COLLATE "C", description COLLATE "C";
-- the registry table: columns and defaults, constraints, indexes, policies, privileges
SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid) AS default
FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
WHERE a.attrelid = 'adjlist_inverted_indexes'::regclass AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;
SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid = 'adjlist_inverted_indexes'::regclass
ORDER BY conname COLLATE "C", pg_get_constraintdef(oid) COLLATE "C";
SELECT pg_get_indexdef(indexrelid) FROM pg_index
WHERE indrelid = 'adjlist_inverted_indexes'::regclass ORDER BY pg_get_indexdef(indexrelid) COLLATE "C";
SELECT polname, polcmd, polpermissive, polroles::regrole[]::text, pg_get_expr(polqual, polrelid) AS using,
       pg_get_expr(polwithcheck, polrelid) AS with_check
FROM pg_policy WHERE polrelid = 'adjlist_inverted_indexes'::regclass ORDER BY polname COLLATE "C";
SELECT relkind, relrowsecurity, relforcerowsecurity, relacl, relpersistence FROM pg_class
WHERE oid = 'adjlist_inverted_indexes'::regclass;
SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger
WHERE tgrelid = 'adjlist_inverted_indexes'::regclass ORDER BY tgname COLLATE "C";
-- the extension and its configuration tables (pg_extension_config_dump)
SELECT extname, extversion, extrelocatable, extnamespace::regnamespace FROM pg_extension WHERE extname = 'adjlist';
SELECT c.cfg::regclass::text AS config_table, c.cond AS condition
FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS c(cfg, cond)
WHERE e.extname = 'adjlist' ORDER BY c.cfg::regclass::text COLLATE "C";
SQL

# ----------------------------------------------------------------------
# A: the previous version, then the update
# ----------------------------------------------------------------------
echo "# upgrade $FROM_VERSION -> $TO_VERSION; databases $DB_A, $DB_B, $DB_C, $DB_D, $DB_E on ${PGHOST:-}:${PGPORT}"
must "A: CREATE DATABASE" q postgres -c "CREATE DATABASE $DB_A"
must "A: CREATE EXTENSION adjlist VERSION '$FROM_VERSION'" \
	q "$DB_A" -c "CREATE EXTENSION adjlist VERSION '$FROM_VERSION'"
is "A: extversion is $FROM_VERSION" "$(val "$DB_A" "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")" "$FROM_VERSION"
is "A: the $FROM_VERSION registry has no write_shards column" \
	"$(val "$DB_A" "SELECT count(*) FROM pg_attribute WHERE attrelid = 'adjlist_inverted_indexes'::regclass AND attname = 'write_shards'")" "0"
must "A: the graph (trigger index with counters, API index, hash-partitioned table) on the $FROM_VERSION catalog" \
	q "$DB_A" -f "$work/setup.sql"
step "A: inserts, updates, deletes, upserts, MERGE, put_edge, delete_node on the $FROM_VERSION catalog" \
	q "$DB_A" -f "$work/writes1.sql"
exact "A ($FROM_VERSION catalog, new library): every index is exact after the writes" "$DB_A" \
	social_inverted follows_api_by_target hashed_inverted warm_inverted
is "A ($FROM_VERSION catalog): write_shards is not there yet" \
	"$(out=$(val "$DB_A" "SELECT create_inverted_index('warm', index_name => 'w2', write_shards => 2)")
	   grep -q 'ERROR:  function create_inverted_index(.*) does not exist' <<<"$out" && echo refused)" "refused"
is "A ($FROM_VERSION catalog): counters counted" \
	"$(val "$DB_A" "SELECT edge_count('social_inverted', 'USER#hub', 'FOLLOWS', 'in') || ',' || degree('social', 'USER#hub', 'FOLLOWS#', 'in')")" \
	"$(val "$DB_A" "SELECT count(*) || ',' || count(*) FROM social WHERE sk = 'FOLLOWS#USER#hub'")"
step "A: queries before the update" run_to "$DB_A" a0.out queries.sql
# privileges changed by the user on graph functions whose arguments change
# in 0.3 (the update drops their old signatures and makes them again with
# an edge_filter): they must carry over to the new signatures
# (D makes them on 0.2; B, and E after its restore, on the new signatures)
old_grants="
	REVOKE EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean) TO pg_monitor;
	REVOKE EXECUTE ON FUNCTION shortest_path(regclass, adjkey, adjkey, text, integer, text, text, boolean) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION walk_ranked(regclass, adjkey, text[], text[], boolean, bigint, text, boolean) TO pg_monitor WITH GRANT OPTION;"
new_grants="
	REVOKE EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) TO pg_monitor;
	REVOKE EXECUTE ON FUNCTION shortest_path(regclass, adjkey, adjkey, text, integer, text, text, boolean, jsonb) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION walk_ranked(regclass, adjkey, text[], text[], boolean, bigint, text, boolean, jsonb) TO pg_monitor WITH GRANT OPTION;"
step "A: REVOKE and GRANT on neighbors, shortest_path and walk_ranked of the $FROM_VERSION catalog" \
	q "$DB_A" -c "$old_grants"

if out=$(q "$DB_A" -At -f "$work/update_session.sql" 2>&1); then
	ok "A: ALTER EXTENSION adjlist UPDATE in a session that used the extension before"
else
	not_ok "A: ALTER EXTENSION adjlist UPDATE in a session that used the extension before"
	printf '%s\n' "$out" | indent
fi
# counts before the update, extversion, counts after, the sharded index
# made in that session, its reads, its problems
is "A: the updating session goes on: writes, reads and a new write-sharded index" \
	"$(printf '%s\n' "$out" | grep -v '^warm_sharded_inverted$' | tr '\n' ' ')" \
	"10 21 $TO_VERSION 10 t 0 "
is "A: extversion is $TO_VERSION" "$(val "$DB_A" "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")" "$TO_VERSION"
is "A (updated): the privileges carried over to the signatures with an edge_filter, no old signature left" \
	"$(val "$DB_A" "SELECT string_agg(p.oid::regprocedure::text || ' ' || coalesce(p.proacl::text, 'default'), ' | ' ORDER BY p.oid::regprocedure::text)
	                FROM pg_proc p WHERE p.proname IN ('neighbors', 'shortest_path', 'walk_ranked', 'degree')")" \
	"degree(regclass,adjkey,text,text,text,boolean,jsonb) default | neighbors(regclass,adjkey,text,bigint,adjkey,boolean,text,boolean,jsonb,jsonb) {postgres=X/postgres,pg_monitor=X/postgres} | shortest_path(regclass,adjkey,adjkey,text,integer,text,text,boolean,jsonb) {postgres=X/postgres} | walk_ranked(regclass,adjkey,text[],text[],boolean,bigint,text,boolean,jsonb) {=X/postgres,postgres=X/postgres,pg_monitor=X*/postgres}"
step "A: queries after the update" run_to "$DB_A" a1.out queries.sql
same_files "A: the same results before and after the update" a0.out a1.out
exact "A (updated): every index is still exact" "$DB_A" \
	social_inverted follows_api_by_target hashed_inverted warm_inverted warm_sharded_inverted
is "A (updated): existing registrations have write_shards = 0" \
	"$(val "$DB_A" "SELECT string_agg(indexrel::text || '=' || write_shards, ' ' ORDER BY indexrel::text) FROM adjlist_inverted_indexes")" \
	"follows_api_by_target=0 hashed_inverted=0 social_inverted=0 warm_inverted=0 warm_sharded_inverted=2"
step "A (updated): more writes" q "$DB_A" -f "$work/writes2.sql"
exact "A (updated): every index is exact after more writes" "$DB_A" \
	social_inverted follows_api_by_target hashed_inverted warm_inverted warm_sharded_inverted
step "A: queries after the writes that followed the update" run_to "$DB_A" a2.out queries.sql

# a write-sharded index against an unsharded one on a copy of the same table
shard_block() {
	local db=$1 tag=$2 name
	for name in plain sharded; do
		local shards=0
		[ $name = sharded ] && shards=4
		step "$tag: copies of social and follows_api indexed with write_shards => $shards" \
			q "$db" -v tbl=${name}_t -v api=${name}_api -v shards=$shards -f "$work/shard_setup.sql"
		step "$tag: reads of the $name copy" \
			run_to "$db" "$tag.${name}_r1.out" shard_reads.sql -v tbl=${name}_t -v api=${name}_api
	done
	same_files "$tag: reverse reads through the write-sharded index equal the unsharded index's" \
		"$tag.plain_r1.out" "$tag.sharded_r1.out"
	for name in plain sharded; do
		step "$tag: writes to the $name copy" \
			q "$db" -v tbl=${name}_t -v api=${name}_api -f "$work/shard_writes.sql"
		step "$tag: reads of the $name copy after writes" \
			run_to "$db" "$tag.${name}_r2.out" shard_reads.sql -v tbl=${name}_t -v api=${name}_api
	done
	same_files "$tag: after writes, reads through the write-sharded index equal the unsharded index's" \
		"$tag.plain_r2.out" "$tag.sharded_r2.out"
	exact "$tag: the sharded and unsharded indexes are exact after writes" "$db" \
		plain_t_inverted sharded_t_inverted plain_api_inverted sharded_api_inverted
}

shard_block "$DB_A" A
is "A: the new index is registered with write_shards = 4" \
	"$(val "$DB_A" "SELECT string_agg(indexrel::text || '=' || write_shards, ' ' ORDER BY indexrel::text) FROM adjlist_inverted_indexes WHERE indexrel::text ~ '^(plain|sharded)_'")" \
	"plain_api_inverted=0 plain_t_inverted=0 sharded_api_inverted=4 sharded_t_inverted=4"
for idx in sharded_t:USER#hub sharded_api:USER#12; do
	node=${idx#*:}
	idx=${idx%%:*}
	is "A: $idx stores every partition key as key#0..#3, the shard of its source" \
		"$(val "$DB_A" "SELECT count(*) FILTER (WHERE i.sk::text !~ '#[0-3]\$'), count(*) FILTER (WHERE i.pk IS NULL),
		                       count(*) = (SELECT count(*) FROM ${idx}_inverted)
		                FROM $idx b LEFT JOIN ${idx}_inverted i ON i.pk = b.pk AND i.sk = write_shard_key(b.sk, b.pk, 4)")" \
		"0|0|t"
	is "A: $idx uses the four shards, and $node's followers are spread over more than one" \
		"$(val "$DB_A" "SELECT string_agg(DISTINCT right(sk::text, 2), ',') || '|' || (count(DISTINCT sk) FILTER (WHERE sk ^@ 'FOLLOWS#$node#') > 1) FROM ${idx}_inverted")" \
		"#0,#1,#2,#3|true"
	is "A: $idx has no unsharded partition keys" \
		"$(val "$DB_A" "SELECT count(*) FROM ${idx}_inverted i JOIN plain_${idx#sharded_}_inverted p ON p.sk = i.sk")" "0"
done

# ----------------------------------------------------------------------
# B: a fresh install of the default version
# ----------------------------------------------------------------------
must "B: CREATE DATABASE" q postgres -c "CREATE DATABASE $DB_B"
must "B: CREATE EXTENSION adjlist" q "$DB_B" -c "CREATE EXTENSION adjlist"
is "B: extversion is $TO_VERSION" "$(val "$DB_B" "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")" "$TO_VERSION"
step "B: the privileges A's user gave, on the $TO_VERSION signatures" q "$DB_B" -c "$new_grants"
must "B: the same graph, built the same way" q "$DB_B" -f "$work/setup.sql"
step "B: the same writes" q "$DB_B" -f "$work/writes1.sql"
step "B: queries" run_to "$DB_B" b1.out queries.sql
same_files "B (fresh) gives the results of A (updated)" a1.out b1.out
step "A (updated): registrations, triggers, counter tables" run_to "$DB_A" a1.state.out state.sql
step "B: registrations, triggers, counter tables" run_to "$DB_B" b1.state.out state.sql
same_files "registrations, triggers and counter tables: A (updated) = B (fresh)" a1.state.out b1.state.out
step "B: the writes that followed the update in A" q "$DB_B" -f "$work/writes2.sql"
step "B: queries after them" run_to "$DB_B" b2.out queries.sql
same_files "B (fresh) gives the results of A (updated) after more writes" a2.out b2.out
exact "B: every index is exact" "$DB_B" social_inverted follows_api_by_target hashed_inverted warm_inverted
shard_block "$DB_B" B
for f in plain_r1 sharded_r1 plain_r2 sharded_r2; do
	same_files "B: write-sharding reads ($f) equal A's" "A.$f.out" "B.$f.out"
done

step "A: the extension's objects" run_to "$DB_A" objects_a.out objects.sql
step "B: the extension's objects" run_to "$DB_B" objects_b.out objects.sql
same_files "the extension's objects, definitions, registry table and config dump: A (updated) = B (fresh)" \
	objects_a.out objects_b.out
step "the objects compared are there (a 0.2 function, the domain adjkey_prefix, the write_shards CHECK, the registry's trigger, the config dump)" \
	eval "grep -qx 'function write_shard_key(adjkey,adjkey,integer)' '$work/objects_a.out' &&
	      grep -qx 'adjkey_prefix|adjkey|f|<null>|<null>' '$work/objects_a.out' &&
	      grep -q '^adjlist_inverted_indexes_write_shards_check|c|CHECK' '$work/objects_a.out' &&
	      grep -q '^adjlist_registry_restored|' '$work/objects_a.out' &&
	      grep -qx 'adjlist_inverted_indexes|' '$work/objects_a.out'"

# ----------------------------------------------------------------------
# C: pg_dump of A (updated), restored where there is no extension
# ----------------------------------------------------------------------
step "A: queries before the dump" run_to "$DB_A" a3.out queries.sql
step "A: reads of the sharded copy before the dump" \
	run_to "$DB_A" a3.sharded.out shard_reads.sql -v tbl=sharded_t -v api=sharded_api
must "pg_dump -Fc of A" "$PGBIN/pg_dump" -Fc -d "$DB_A" -f "$work/a.dump"
must "C: CREATE DATABASE (no extension)" q postgres -c "CREATE DATABASE $DB_C TEMPLATE template0"
must "pg_restore into C" "$PGBIN/pg_restore" --exit-on-error -d "$DB_C" "$work/a.dump"
is "C: the dump created the extension, version $TO_VERSION" \
	"$(val "$DB_C" "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")" "$TO_VERSION"
is "C: the registry came back with write_shards" \
	"$(val "$DB_C" "SELECT string_agg(indexrel::text || '=' || write_shards, ' ' ORDER BY indexrel::text) FROM adjlist_inverted_indexes")" \
	"$(val "$DB_A" "SELECT string_agg(indexrel::text || '=' || write_shards, ' ' ORDER BY indexrel::text) FROM adjlist_inverted_indexes")"
exact "C: every restored index is exact" "$DB_C" social_inverted follows_api_by_target hashed_inverted \
	warm_inverted warm_sharded_inverted plain_t_inverted sharded_t_inverted plain_api_inverted sharded_api_inverted
step "C: queries" run_to "$DB_C" c3.out queries.sql
same_files "C (restored) gives A's results, reverse_neighbors included" a3.out c3.out
step "C: reads of the sharded copy" run_to "$DB_C" c3.sharded.out shard_reads.sql -v tbl=sharded_t -v api=sharded_api
same_files "C (restored): reads through the write-sharded index equal A's" a3.sharded.out c3.sharded.out
step "C: writes after the restore" q "$DB_C" -c "
	INSERT INTO sharded_t VALUES ('USER#300', 'FOLLOWS#USER#hub', NULL), ('USER#301', 'FOLLOWS#USER#hub', NULL);
	DELETE FROM sharded_t WHERE pk = 'USER#1';
	INSERT INTO social VALUES ('USER#300', 'FOLLOWS#USER#hub', NULL);
	SELECT put_edge('sharded_api', 'USER#300', 'FOLLOWS#USER#12');"
exact "C: the restored triggers and write API keep the indexes exact" "$DB_C" \
	social_inverted sharded_t_inverted sharded_api_inverted

# ----------------------------------------------------------------------
# D: 0.1 -> 0.2 -> 0.3 one step at a time, with the user's objects
# depending on 0.2's operator ^@(adjkey, adjkey): the update keeps it and
# says so; a dump restored elsewhere, or the README's steps in place, move
# those objects to 0.3's operator
# ----------------------------------------------------------------------
cat >"$work/dep_setup.sql" <<'SQL'
CREATE TABLE bills (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk),
    gsi1pk adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'BILL#' THEN sk END) STORED);
INSERT INTO bills VALUES ('INVOICE#1', 'BILL#1'), ('INVOICE#1', 'INVOICE#1#LINE#1'), ('INVOICE#2', 'BILL#1'),
                         ('INVOICE#2', 'NOTE#a'), ('INVOICE#3', 'NOTE#b'), ('INVOICE#3', 'BILL#2');
CREATE VIEW bill_items AS SELECT pk, sk FROM bills WHERE sk ^@ 'BILL#';
CREATE VIEW own_lines AS SELECT pk, sk FROM bills WHERE sk ^@ pk;
CREATE INDEX bills_notes ON bills (pk) WHERE sk ^@ 'NOTE#';
CREATE FUNCTION is_bill(k adjkey) RETURNS boolean LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT k ^@ 'BILL#'; END;
SQL
# (the partial index must serve the query in every state)
cat >"$work/dep_queries.sql" <<'SQL'
SELECT * FROM bill_items ORDER BY pk, sk;
SELECT * FROM own_lines ORDER BY pk, sk;
SELECT pk, sk, gsi1pk, is_bill(sk) FROM bills ORDER BY pk, sk;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT pk FROM bills WHERE sk ^@ 'NOTE#' ORDER BY pk;
SELECT pk FROM bills WHERE sk ^@ 'NOTE#' ORDER BY pk;
SQL
# the README's steps (Upgrading), in place, as a superuser
cat >"$work/dep_finish.sql" <<'SQL'
BEGIN;
DROP VIEW bill_items, own_lines;
DROP INDEX bills_notes;
DROP FUNCTION is_bill(adjkey);
ALTER TABLE bills DROP COLUMN gsi1pk;
ALTER EXTENSION adjlist DROP OPERATOR ^@ (adjkey, adjkey);
DROP OPERATOR ^@ (adjkey, adjkey);
ALTER TABLE bills ADD COLUMN gsi1pk adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'BILL#' THEN sk END) STORED;
CREATE VIEW bill_items AS SELECT pk, sk FROM bills WHERE sk ^@ 'BILL#';
CREATE VIEW own_lines AS SELECT pk, sk FROM bills WHERE sk ^@ pk;
CREATE INDEX bills_notes ON bills (pk) WHERE sk ^@ 'NOTE#';
CREATE FUNCTION is_bill(k adjkey) RETURNS boolean LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT k ^@ 'BILL#'; END;
COMMIT;
SQL
old_op="SELECT to_regoperator('^@(adjkey,adjkey)') IS NOT NULL"
empty_prefix="SELECT count(*) FROM bills WHERE sk ^@ ''"
must "D: CREATE DATABASE" q postgres -c "CREATE DATABASE $DB_D"
# a function in public with a closer argument type than pg_catalog's
# cardinality(anyarray): 0.1's script, before it was fixed, bound it into a
# CHECK of the registry (run as the superuser at each write of it); 0.1's
# script does not now, and the update binds pg_catalog's in an install that
# the old script made (made again here by hand)
trap_bound="SELECT count(*) FROM pg_depend WHERE refclassid = 'pg_proc'::regclass
	AND refobjid = 'public.cardinality(name[])'::regprocedure AND classid = 'pg_constraint'::regclass"
must "D: a function public.cardinality(name[])" q "$DB_D" -c \
	'CREATE FUNCTION public.cardinality(name[]) RETURNS integer LANGUAGE sql AS $$ SELECT pg_catalog.array_length($1, 1) $$'
must "D: CREATE EXTENSION adjlist VERSION '0.1'" q "$DB_D" -c "CREATE EXTENSION adjlist VERSION '0.1'"
is "D (0.1): no CHECK of the registry is bound to public.cardinality(name[])" "$(val "$DB_D" "$trap_bound")" "0"
must "D (0.1): the registry's CHECK as the unfixed script made it" q "$DB_D" -c \
	"SET search_path = public; ALTER TABLE adjlist_inverted_indexes DROP CONSTRAINT adjlist_inverted_indexes_check,
	 ADD CONSTRAINT adjlist_inverted_indexes_check CHECK (nkeys >= 2 AND nkeys <= cardinality(columns))"
is "D (0.1): the registry's CHECK is bound to public.cardinality(name[])" "$(val "$DB_D" "$trap_bound")" "1"
must "D: a view, a generated column, a partial index and a function body using ^@ on 0.1" \
	q "$DB_D" -f "$work/dep_setup.sql"
must "D: ALTER EXTENSION adjlist UPDATE TO '0.2'" q "$DB_D" -c "ALTER EXTENSION adjlist UPDATE TO '0.2'"
is "D: extversion is 0.2" "$(val "$DB_D" "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")" "0.2"
must "D: queries on 0.2" run_to "$DB_D" d0.out dep_queries.sql
step "D (0.2): the partial index serves its query" grep -q 'using bills_notes' "$work/d0.out"
step "D: A's REVOKE and GRANT on the graph functions of 0.2" q "$DB_D" -c "$old_grants"
if out=$(q "$DB_D" -c "ALTER EXTENSION adjlist UPDATE" 2>&1); then
	ok "D: ALTER EXTENSION adjlist UPDATE with objects depending on ^@(adjkey, adjkey)"
else
	not_ok "D: ALTER EXTENSION adjlist UPDATE with objects depending on ^@(adjkey, adjkey)"
	printf '%s\n' "$out" | indent
fi
is "D: the update warns that it keeps ^@(adjkey, adjkey), and names what depends on it" \
	"$(printf '%s\n' "$out" | sed -n -e 's/^\(WARNING\):  /\1: /p' -e 's/^\(DETAIL\):  \([^.]*\)\..*/\1: \2/p')" \
	"WARNING: operator ^@(adjkey, adjkey) is kept because other objects depend on it
DETAIL: Objects that depend on it: default value for column gsi1pk of table bills, function is_bill(adjkey), index bills_notes, view bill_items, view own_lines"
is "D: extversion is $TO_VERSION" "$(val "$DB_D" "SELECT extversion FROM pg_extension WHERE extname = 'adjlist'")" "$TO_VERSION"
is "D (updated): no CHECK of the registry is bound to public.cardinality(name[])" "$(val "$DB_D" "$trap_bound")" "0"
must "D: DROP FUNCTION public.cardinality(name[])" q "$DB_D" -c 'DROP FUNCTION public.cardinality(name[])'
step "D: queries after the update" run_to "$DB_D" d1.out dep_queries.sql
same_files "D: the same results, and the same plan, before and after the update" d0.out d1.out
is "D: ^@(adjkey, adjkey) is still there" "$(val "$DB_D" "$old_op")" "t"
is "D: an untyped empty prefix is still read as a key there (22P02)" \
	"$(val "$DB_D" "$empty_prefix" | grep -o 'adjkey value must not be empty')" "adjkey value must not be empty"
is "D: the empty prefix as text" "$(val "$DB_D" "SELECT count(*) FROM bills WHERE sk ^@ ''::text")" "6"
step "D: the extension's objects" run_to "$DB_D" objects_d.out objects.sql
is "D: the extension's objects are B's, and ^@(adjkey, adjkey)" \
	"$(diff "$work/objects_d.out" "$work/objects_b.out" | grep '^[<>]' | grep -v ' rows)$' | cut -c1-28)" \
	"< operator ^@(adjkey,adjkey)
< ^@(adjkey,adjkey)|begins_w"
step "D: writes go on (the generated column)" q "$DB_D" -c "INSERT INTO bills VALUES ('INVOICE#4', 'BILL#9')"
is "D: the generated column of the new row" "$(val "$DB_D" "SELECT gsi1pk FROM bills WHERE pk = 'INVOICE#4'")" "BILL#9"
must "D: DELETE the new row" q "$DB_D" -c "DELETE FROM bills WHERE pk = 'INVOICE#4'"

must "pg_dump -Fc of D" "$PGBIN/pg_dump" -Fc -d "$DB_D" -f "$work/d.dump"
must "E: CREATE DATABASE (no extension)" q postgres -c "CREATE DATABASE $DB_E TEMPLATE template0"
must "pg_restore of D into E" "$PGBIN/pg_restore" --exit-on-error -d "$DB_E" "$work/d.dump"
step "E: queries" run_to "$DB_E" e.out dep_queries.sql
# privileges the update carried over are the extension's initial ones, which
# pg_dump leaves out: given again after the restore (README, Upgrading)
is "E: the restore left the graph functions' default privileges" \
	"$(val "$DB_E" "SELECT count(*) FROM pg_proc WHERE proname IN ('neighbors', 'shortest_path', 'walk_ranked') AND proacl IS NOT NULL")" "0"
step "E: A's REVOKE and GRANT again" q "$DB_E" -c "$new_grants"
same_files "E (restored): D's results, and the partial index serves its query" d0.out e.out
is "E: no ^@(adjkey, adjkey)" "$(val "$DB_E" "$old_op")" "f"
is "E: the empty prefix matches every key" "$(val "$DB_E" "$empty_prefix")" "6"
is "E: the view's key prefix is the domain's" \
	"$(val "$DB_E" "SELECT pg_get_viewdef('own_lines') ~ 'adjkey_prefix'")" "t"
step "E: the extension's objects" run_to "$DB_E" objects_e.out objects.sql
same_files "E: the extension's objects are B's" objects_e.out objects_b.out

step "D: the README's steps move the objects to the operator of $TO_VERSION, in place" \
	q "$DB_D" -f "$work/dep_finish.sql"
step "D: queries after those steps" run_to "$DB_D" d2.out dep_queries.sql
same_files "D: the same results after those steps" d0.out d2.out
is "D: the empty prefix matches every key now" "$(val "$DB_D" "$empty_prefix")" "6"
step "D: the extension's objects after those steps" run_to "$DB_D" objects_d2.out objects.sql
same_files "D: the extension's objects are B's now" objects_d2.out objects_b.out

echo "# $(( $(date +%s) - started )) s"
exit $fail

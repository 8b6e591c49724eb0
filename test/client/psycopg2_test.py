#!/usr/bin/python3
"""adjlist from Python psycopg2 (the Debian package python3-psycopg2).

    /usr/bin/python3 test/client/psycopg2_test.py test/client/edges.tsv

The server comes from PGHOST, PGPORT, PGUSER, PGDATABASE.  Exits 0 when
every check passes; otherwise prints "FAIL: ..." and exits 1.  The checks
are the same in every client of test/client (see run.sh); the expected
answers come from edgelist.py.

psycopg2 interpolates parameters into the statement text on the client:
a str becomes an untyped literal (it resolves to adjkey), a list becomes
ARRAY['a', 'b'], which is text[]: adjkey compares with it as text
(pk = ANY(%s)), with the same rows and index use; write %s::adjkey[] where
adjkey[] is wanted.  Server-side prepared statements are PREPARE/EXECUTE.
"""
import io
import json
import sys

import psycopg2
import psycopg2.errors
import psycopg2.extensions
import psycopg2.extras

from edgelist import (LIM, PATH_TARGETS, PREFIX, START, TARGET, Fail, arcs, b, check,
                      check_binary_copy, check_path, expected_bfs, expected_in,
                      expected_out, ok, page_through, read_edges, run)

TBL = "py_graph"


def plan_counts(cur, name):
    cur.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = %s",
                (name,))
    rows = cur.fetchall()
    check(len(rows) == 1, f"prepared statement {name} not in pg_prepared_statements")
    return rows[0]


def setup(conn, cur, edges):
    cur.execute("SET client_min_messages = warning")
    cur.execute(f"DROP TABLE IF EXISTS {TBL}, {TBL}_copy, {TBL}_bad CASCADE")
    cur.execute(f"CREATE TABLE {TBL} (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))")
    cur.execute("SELECT create_inverted_index(%s)", (TBL,))
    # psycopg2 parameters (client-side literals): untyped, resolved to adjkey
    cur.executemany(f"INSERT INTO {TBL} VALUES (%s, %s, %s)",
                    [(pk, sk, json.dumps(d) if d is not None else None) for pk, sk, d in edges])
    cur.execute(f"INSERT INTO {TBL} SELECT 'NODE#' || (i % 300), 'FOLLOWS#NODE#' || i, NULL "
                "FROM generate_series(1, 3000) i")
    cur.execute(f"ANALYZE {TBL}")
    cur.execute(f"ANALYZE {TBL}_inverted")
    cur.execute(f"SELECT (SELECT count(*) FROM {TBL} WHERE pk ^@ 'USER#'::text), "
                f"(SELECT count(*) FROM {TBL}), (SELECT count(*) FROM {TBL}_inverted), "
                f"(SELECT count(*) FROM verify_inverted_index('{TBL}_inverted'))")
    nuser, nall, ninv, nproblems = cur.fetchone()
    check(nuser == len(edges), f"table has {nuser} edges, expected {len(edges)}")
    check(nall == ninv, f"inverted index has {ninv} rows, table {nall}")
    check(nproblems == 0, f"verify_inverted_index reports {nproblems} problems")
    ok("table, inverted index, edges inserted with psycopg2 parameters")


def check_text_and_binary(cur, edges, adjkey_oid):
    cur.execute(f"SELECT pk, sk, data FROM {TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk")
    check(cur.description[0].type_code == adjkey_oid and cur.description[1].type_code == adjkey_oid,
          f"result columns have type {cur.description[0].type_code}, expected adjkey {adjkey_oid}")
    rows = cur.fetchall()
    check(len(rows) == len(edges), f"{len(rows)} rows, expected {len(edges)}")
    for i, (got, want) in enumerate(zip(rows, edges)):
        check(tuple(got) == want, f"row {i}: {got!r}, expected {want!r}")
    ok("text results in UTF-8 byte order, adjkey type OID in cursor.description")

    # the binary form through adjkey_send: version byte 1 and the UTF-8 bytes
    cur.execute(f"SELECT adjkey_send(pk), adjkey_send(sk) FROM {TBL} "
                "WHERE pk ^@ 'USER#'::text ORDER BY pk, sk")
    for i, (bpk, bsk) in enumerate(cur.fetchall()):
        for got, want in ((bytes(bpk), edges[i][0]), (bytes(bsk), edges[i][1])):
            check(got[:1] == b"\x01", f"adjkey_send row {i}: version byte {got[:1]!r}")
            check(got[1:] == b(want), f"adjkey_send row {i}: {got[1:]!r}, expected {b(want)!r}")
    ok("adjkey_send: version byte 1 + UTF-8 bytes")

    # a caster on the adjkey OID
    seen = []

    def cast_adjkey(value, _cur):
        if value is not None:
            seen.append(value)
        return value

    adjkey_type = psycopg2.extensions.new_type((adjkey_oid,), "ADJKEY", cast_adjkey)
    psycopg2.extensions.register_type(adjkey_type, cur)
    cur.execute("SELECT make_key('USER', '中文')")
    check(cur.fetchone()[0] == TARGET and seen == [TARGET], f"adjkey caster saw {seen!r}")
    ok("typecaster registered on the adjkey OID")


def check_paging(cur, edges, suffix, force_generic):
    want = expected_out(edges, START, PREFIX)
    nb, sq = "nb_page" + suffix, "sql_page" + suffix
    if force_generic:
        cur.execute("SET plan_cache_mode = force_generic_plan")

    cur.execute("SELECT neighbor, sk, data FROM neighbors(%s, %s, %s)", (TBL, START, PREFIX))
    full = [tuple(r) for r in cur.fetchall()]
    check(full == [(sk[len(PREFIX):], sk, d) for _, sk, d in want],
          f"neighbors unpaginated: {full!r}")

    # neighbors() paginated by a server-side prepared statement
    cur.execute(f"PREPARE {nb}(adjkey, text, bigint, adjkey) AS "
                f"SELECT neighbor, sk, data FROM neighbors('{TBL}', $1, $2, lim => $3, after => $4)")
    pages, after, execs = [], None, 0
    while True:
        cur.execute(f"EXECUTE {nb}(%s, %s, %s, %s)", (START, PREFIX, LIM, after))
        execs += 1
        rows = [tuple(r) for r in cur.fetchall()]
        check(len(rows) <= LIM, f"page of {len(rows)} rows with lim {LIM}")
        if not rows:
            break
        pages += rows
        after = rows[-1][1]
        check(execs < 100, "neighbors paging does not end")
    check(pages == full, f"neighbors pages differ from one call: {pages!r}")
    check(execs >= 6, f"only {execs} executions of {nb}")
    generic, custom = plan_counts(cur, nb)
    check(generic >= 1, f"{nb}: no generic plan after {execs} executions (custom {custom})")
    check(not force_generic or custom == 0, f"{nb}: {custom} custom plans under force_generic_plan")
    ok(f"neighbors() paged by PREPARE/EXECUTE {nb}: {execs} executions, {generic} generic plans, "
       "equals one call")

    # plain SQL, its generic plan must keep the index range
    cur.execute(f"PREPARE {sq}(adjkey, text, adjkey, bigint) AS "
                f"SELECT sk FROM {TBL} WHERE pk = $1 AND sk ^@ $2 AND sk > $3 ORDER BY sk LIMIT $4")
    got, after, execs = [], PREFIX, 0   # no key equals the bare prefix
    while True:
        cur.execute(f"EXECUTE {sq}(%s, %s, %s, %s)", (START, PREFIX, after, LIM))
        execs += 1
        rows = [r[0] for r in cur.fetchall()]
        got += rows
        if len(rows) < LIM:
            break
        after = rows[-1]
    check(got == [sk for _, sk, _ in want], f"sql pages: {got!r}")
    check(execs >= 6, f"only {execs} executions of {sq}")
    generic, custom = plan_counts(cur, sq)
    check(generic >= 1, f"{sq}: no generic plan after {execs} executions (custom {custom})")
    check(not force_generic or custom == 0, f"{sq}: {custom} custom plans under force_generic_plan")
    cur.execute(f"EXPLAIN (COSTS OFF) EXECUTE {sq}(%s, %s, %s, %s)", (START, PREFIX, PREFIX, LIM))
    plan = [r[0] for r in cur.fetchall()]
    check(not any("Seq Scan" in line for line in plan), "generic plan is a sequential scan:\n  "
          + "\n  ".join(plan))
    check(any("Index Cond:" in line and "(sk >= adjkey_prefix_lower($2))" in line
              and "(sk < adjkey_prefix_upper($2))" in line for line in plan),
          "the generic plan has no Index Cond on sk with adjkey_prefix_lower/upper($2):\n  "
          + "\n  ".join(plan))
    check(not force_generic or plan_counts(cur, sq)[1] == 0, f"{sq}: EXPLAIN used a custom plan")
    ok(f"SQL paged by PREPARE/EXECUTE {sq} ({'force_generic_plan' if force_generic else 'auto'}): "
       f"{execs} executions, generic plan has Index Cond with adjkey_prefix_lower/upper")
    if force_generic:
        cur.execute("RESET plan_cache_mode")


def check_reverse(cur, edges):
    want = expected_in(edges, TARGET, PREFIX)
    check(len(want) >= 5, "too few in-edges in the edge list")
    cur.execute("SELECT neighbor, pk, sk FROM reverse_neighbors(%s, %s, %s)", (TBL, TARGET, PREFIX))
    rows = cur.fetchall()
    check(rows == [(s, s, PREFIX + TARGET) for s in want], f"reverse_neighbors: {rows!r}, expected {want!r}")
    got, after = [], None
    for _ in range(100):
        cur.execute("SELECT neighbor FROM reverse_neighbors(%s, %s, %s, lim => 2, after => %s)",
                    (TBL, TARGET, PREFIX, after))
        rows = [r[0] for r in cur.fetchall()]
        if not rows:
            break
        got += rows
        after = rows[-1]
    check(got == want, f"reverse pages: {got!r}")
    ok(f"reverse_neighbors of {TARGET}: sources in byte order, paged equals one call")


def check_traverse(cur, edges, start, direction, reverse):
    want = expected_bfs(edges, start, PREFIX, 2, reverse)
    cur.execute("SELECT node, depth FROM traverse(%s, %s, %s, 2, %s)", (TBL, start, PREFIX, direction))
    rows = cur.fetchall()
    got = dict(rows)
    check(len(rows) == len(want), f"traverse({start}, 2, {direction}): {len(rows)} nodes, expected {len(want)}")
    check(got == want, f"traverse({start}, 2, {direction}): {got!r}, expected {want!r}")
    ok(f"traverse({start}, depth 2, {direction}): {len(want)} nodes with their depths")


def check_copy(cur, edges):
    out = io.BytesIO()
    cur.copy_expert(f"COPY (SELECT pk, sk, data FROM {TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk) "
                    "TO STDOUT (FORMAT binary)", out)
    data = out.getvalue()
    check_binary_copy(data, edges)
    ok("COPY TO STDOUT (FORMAT binary) via copy_expert: version byte 1 + UTF-8 bytes in every key")

    cur.execute(f"CREATE TABLE {TBL}_copy (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))")
    cur.copy_expert(f"COPY {TBL}_copy FROM STDIN (FORMAT binary)", io.BytesIO(data), size=97)
    cur.execute(f"SELECT (SELECT count(*) FROM {TBL}_copy), "
                f"(SELECT count(*) FROM (SELECT pk, sk, data FROM {TBL} WHERE pk ^@ 'USER#'::text "
                f" EXCEPT SELECT pk, sk, data FROM {TBL}_copy) d), "
                f"(SELECT count(*) FROM (SELECT pk, sk, data FROM {TBL}_copy "
                f" EXCEPT SELECT pk, sk, data FROM {TBL}) d)")
    n, missing, extra = cur.fetchone()
    check((n, missing, extra) == (len(edges), 0, 0),
          f"binary COPY round trip differs: {n} rows, {missing} missing, {extra} extra")
    ok("COPY FROM STDIN (FORMAT binary) via copy_expert into another table: same rows")

    bad = bytearray(data)
    bad[19 + 2 + 4] = 2     # the version byte of the first key
    cur.execute(f"CREATE TABLE {TBL}_bad (pk adjkey, sk adjkey, data jsonb)")
    try:
        cur.copy_expert(f"COPY {TBL}_bad FROM STDIN (FORMAT binary)", io.BytesIO(bytes(bad)))
        raise Fail("binary COPY with version 2 was accepted")
    except psycopg2.Error as e:
        check(e.pgcode == "22P03", f"binary COPY with version 2: {e.pgcode} {e}, expected 22P03")
    cur.execute(f"SELECT count(*) FROM {TBL}_bad")
    check(cur.fetchone()[0] == 0, "failed binary COPY wrote rows")
    ok("binary COPY with an unknown version byte: 22P03, nothing written")



def check_params(cur, edges):
    want = [sk for _, sk, _ in expected_out(edges, START, PREFIX)]
    for sql in (f"SELECT sk FROM {TBL} WHERE pk = %s AND sk ^@ %s ORDER BY sk",
                f"SELECT sk FROM {TBL} WHERE pk = %s::adjkey AND sk ^@ %s::text ORDER BY sk",
                f"SELECT sk FROM {TBL} WHERE pk = %s::text AND sk ^@ %s::text ORDER BY sk"):
        cur.execute(sql, (START, PREFIX))
        got = [r[0] for r in cur.fetchall()]
        check(got == want, f"{sql}: {got!r}")
    ok("str parameters without casts, with ::adjkey / ::text, and as text (%s::text): the same rows")


def check_arrays_send(cur, edges):
    keys = ["USER#alice", 'USER#o"neil', TARGET, "USER#nobody"]
    want = sorted(((e[0], e[2]) for e in edges if e[0] in keys and e[1] == "PROFILE"), key=lambda r: b(r[0]))
    check(len(want) == 2, "edges.tsv has no PROFILE of USER#alice and USER#中文")
    # a list is ARRAY['k1', ...], text[]: compared with the keys as text, or cast
    sql = f"SELECT pk, data FROM {TBL} WHERE pk = ANY(%s) AND sk = 'PROFILE' ORDER BY pk"
    for cast in ("", "::adjkey[]"):
        cur.execute(sql.replace("%s", "%s" + cast), (keys,))
        check(cur.fetchall() == want, f"= ANY(%s{cast}) with a list: not {want!r}")
    cur.execute("EXPLAIN (COSTS OFF) " + sql, (keys,))
    plan = "\n  ".join(r[0] for r in cur.fetchall())
    check("Index Cond: ((pk = ANY ('{" in plan and "}'::text[])) AND (sk = 'PROFILE'::adjkey))" in plan
          and not any(w in plan for w in ("Seq Scan", "Filter:")),
          f"= ANY(%s) with a list (text[]) without the index:\n  {plan}")
    ok("a list of keys (text[]) to = ANY(%s), without and with ::adjkey[]: the same rows; "
       "Index Cond (pk = ANY ('{...}'::text[]))")

    # server-side prepared, adjkey[] or text[] parameter: generic plans keep the index
    cur.execute("SET plan_cache_mode = force_generic_plan")
    for name, typ in (("profiles", "adjkey[]"), ("profiles_text", "text[]")):
        cur.execute(f"PREPARE {name}({typ}) AS "
                    f"SELECT pk, data FROM {TBL} WHERE pk = ANY($1) AND sk = 'PROFILE' ORDER BY pk")
        cur.execute(f"EXECUTE {name}(%s)", (keys,))   # for adjkey[], text[] -> adjkey[]: an assignment cast
        check(cur.fetchall() == want, f"EXECUTE {name}: wrong rows")
        cur.execute("SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = %s", (name,))
        types = cur.fetchone()[0]
        check(types == [typ], f"{name}: parameter types {types!r}, expected {typ}")
        cur.execute(f"EXPLAIN (COSTS OFF) EXECUTE {name}(%s)", (keys,))
        plan = "\n  ".join(r[0] for r in cur.fetchall())
        check("Index Cond: ((pk = ANY ($1)) AND (sk = 'PROFILE'::adjkey))" in plan
              and not any(w in plan for w in ("Seq Scan", "Filter:")),
              f"generic plan of {name}, = ANY($1) with $1 {typ}, without the index:\n  {plan}")
        generic, custom = plan_counts(cur, name)
        check(generic >= 2 and custom == 0, f"{name}: {generic} generic, {custom} custom plans")
    cur.execute("RESET plan_cache_mode")
    ok("PREPARE (adjkey[]) and (text[]) ... pk = ANY($1), EXECUTE with a list: the same rows; "
       "generic plans have Index Cond (pk = ANY ($1))")


def check_arrays_receive(conn, cur, edges):
    sql = "SELECT shortest_path(%s, %s, %s, %s)"
    cur.execute(sql, (TBL, START, PATH_TARGETS[0], PREFIX))
    raw = cur.fetchone()[0]
    check(isinstance(raw, str) and raw.startswith("{"), f"unregistered adjkey[]: {raw!r}")

    # the one-line setup: adjkey[] as a list of str, on this connection
    cur.execute("SELECT 'adjkey[]'::regtype::oid")
    psycopg2.extensions.register_type(
        psycopg2.extensions.new_array_type((cur.fetchone()[0],), "ADJKEY[]", psycopg2.STRING), conn)

    out = arcs(edges, PREFIX)
    dist = expected_bfs(edges, START, PREFIX, 6)
    for target in PATH_TARGETS:
        cur.execute(sql, (TBL, START, target, PREFIX))
        check_path(cur.fetchone()[0], START, target, dist[target], out, f"shortest_path to {target}")
    cur.execute(sql, (TBL, START, "USER#nobody", PREFIX))
    check(cur.fetchone()[0] is None, "shortest_path to nowhere is not None")
    ok(f"adjkey[] registered (new_array_type): shortest_path() as a list of str, {len(PATH_TARGETS)} targets")

    want = expected_bfs(edges, START, PREFIX, 3)
    cur.execute("SELECT node, depth, path FROM traverse(%s, %s, %s, 3, with_path => true)", (TBL, START, PREFIX))
    rows = cur.fetchall()
    check({r[0]: r[1] for r in rows} == want and len(rows) == len(want), "traverse depth 3: wrong nodes")
    for node, depth, path in rows:
        check_path(path, START, node, depth, out, f"traverse path to {node}")
    ok(f"traverse(with_path => true): {len(rows)} paths as lists of str")


def check_write_api(cur, edges):
    node = "USER#py new"
    targets = [TARGET, 'USER#o"neil', "USER#a b"]
    items = [{"pk": node, "sk": PREFIX + t, "data": {"i": i}} for i, t in enumerate(targets)]
    cur.execute("SELECT put_edges(%s, %s)", (TBL, psycopg2.extras.Json(items)))
    check(cur.fetchone()[0] == 3, "put_edges did not write 3 rows")
    cur.execute(f"SELECT sk FROM {TBL} WHERE pk = %s AND sk = ANY(%s::adjkey[]) ORDER BY sk",
                (node, [PREFIX + t for t in targets]))
    check([r[0] for r in cur.fetchall()] == sorted((PREFIX + t for t in targets), key=b), "put_edges rows")
    cur.execute("SELECT neighbor FROM reverse_neighbors(%s, %s, %s)", (TBL, TARGET, PREFIX))
    check(node in [r[0] for r in cur.fetchall()], "the inverted index does not have the new edge")
    cur.execute("SELECT delete_node(%s, %s, %s)", (TBL, node, [PREFIX]))   # a list is text[] here
    check(cur.fetchone()[0] == 3, "delete_node did not delete 3 rows")
    cur.execute("SELECT count(*) FROM verify_inverted_index(%s)", (TBL + "_inverted",))
    check(cur.fetchone()[0] == 0, "verify_inverted_index reports problems")
    ok("put_edges(Json(list of dicts)), read back by = ANY(%s::adjkey[]), delete_node(list as text[])")


def check_query_paging(cur, edges):
    sks = [sk for _, sk, _ in expected_out(edges, START, PREFIX)]
    srcs = expected_in(edges, TARGET, PREFIX)

    def fetch(sql, *args):
        def page(last):
            # the key comes back as a dict (jsonb); Json() sends it back
            cur.execute(sql, args + (psycopg2.extras.Json(last) if last else None,))
            return cur.fetchall()
        return page

    q = "SELECT sort_key, key FROM query(%s, %s, 'begins_with', %s, backward => %s, lim => %s, " \
        "exclusive_start_key => %s)"
    n1 = page_through(fetch(q, TBL, START, PREFIX, False, LIM), LIM, sks, "query forward")
    n2 = page_through(fetch(q, TBL, START, PREFIX, True, 3), 3, sks[::-1], "query backward")
    n3 = page_through(fetch("SELECT sort_key, key FROM query(%s, %s, lim => %s, exclusive_start_key => %s)",
                            TBL + "_inverted", PREFIX + TARGET, 2), 2, srcs, "query on the inverted index")
    ok(f"query(..., exclusive_start_key => last key): forward {n1}, backward {n2}, inverted index {n3} "
       "pages, every row once")


def main():
    edges = read_edges(sys.argv[1] if len(sys.argv) > 1 else "edges.tsv")
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SHOW server_version")
    print(f"# psycopg2 {psycopg2.__version__}, libpq {psycopg2.extensions.libpq_version()}, "
          f"server {cur.fetchone()[0]}")
    cur.execute("SELECT 'adjkey'::regtype::oid")
    adjkey_oid = cur.fetchone()[0]

    setup(conn, cur, edges)
    check_text_and_binary(cur, edges, adjkey_oid)
    check_params(cur, edges)
    check_paging(cur, edges, "", False)
    check_paging(cur, edges, "_g", True)
    check_query_paging(cur, edges)
    check_arrays_send(cur, edges)
    check_arrays_receive(conn, cur, edges)
    check_write_api(cur, edges)
    check_reverse(cur, edges)
    check_traverse(cur, edges, START, "out", False)
    check_traverse(cur, edges, TARGET, "in", True)
    check_copy(cur, edges)
    conn.close()


if __name__ == "__main__":
    run(main)

#!/usr/bin/python3
"""adjlist from Python psycopg2 (the Debian package python3-psycopg2).

    /usr/bin/python3 test/client/psycopg2_test.py test/client/edges.tsv

The server comes from PGHOST, PGPORT, PGUSER, PGDATABASE.  Exits 0 when
every check passes; otherwise prints "FAIL: ..." and exits 1.  The checks
are the same in every client of test/client (see run.sh).
"""
import io
import json
import struct
import sys
import traceback

import psycopg2
import psycopg2.errors
import psycopg2.extensions

TBL = "py_graph"
START = "USER#alice"
PREFIX = "FOLLOWS#"
TARGET = "USER#中文"
LIM = 4

nchecks = 0


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def ok(what):
    global nchecks
    nchecks += 1
    print(f"ok {nchecks} - {what}", flush=True)


def b(s):
    """UTF-8 bytes: adjkey's order"""
    return s.encode("utf-8")


def read_edges(path):
    edges = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line:
                continue
            pk, sk, data = line.split("\t")
            edges.append((pk, sk, json.loads(data) if data else None))
    check(len(edges) >= 24, f"{path}: only {len(edges)} edges")
    edges.sort(key=lambda e: (b(e[0]), b(e[1])))
    return edges


def expected_out(edges, node, prefix):
    return [e for e in edges if e[0] == node and e[1].startswith(prefix)]


def expected_in(edges, node, prefix):
    return sorted((e[0] for e in edges if e[1] == prefix + node), key=b)


def expected_bfs(edges, start, prefix, max_depth, reverse):
    adj = {}
    for pk, sk, _ in edges:
        if sk.startswith(prefix):
            src, dst = (sk[len(prefix):], pk) if reverse else (pk, sk[len(prefix):])
            adj.setdefault(src, []).append(dst)
    depth = {start: 0}
    frontier = [start]
    for d in range(1, max_depth + 1):
        nxt = []
        for u in frontier:
            for v in adj.get(u, []):
                if v not in depth:
                    depth[v] = d
                    nxt.append(v)
        frontier = nxt
    del depth[start]
    return depth


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


def parse_binary_copy(data):
    check(data[:11] == b"PGCOPY\n\xff\r\n\x00", "binary COPY: bad signature")
    (ext,) = struct.unpack_from(">I", data, 15)
    pos = 19 + ext
    tuples = []
    while True:
        (nf,) = struct.unpack_from(">h", data, pos)
        pos += 2
        if nf == -1:
            break
        fields = []
        for _ in range(nf):
            (fl,) = struct.unpack_from(">i", data, pos)
            pos += 4
            if fl < 0:
                fields.append(None)
            else:
                fields.append(data[pos:pos + fl])
                pos += fl
        tuples.append(fields)
    check(pos == len(data), f"binary COPY: {len(data) - pos} trailing bytes")
    return tuples


def check_copy(cur, edges):
    out = io.BytesIO()
    cur.copy_expert(f"COPY (SELECT pk, sk, data FROM {TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk) "
                    "TO STDOUT (FORMAT binary)", out)
    data = out.getvalue()
    tuples = parse_binary_copy(data)
    check(len(tuples) == len(edges), f"binary COPY: {len(tuples)} rows, expected {len(edges)}")
    for i, (t, e) in enumerate(zip(tuples, edges)):
        check(len(t) == 3, f"binary COPY row {i}: {len(t)} fields")
        for got, want in ((t[0], e[0]), (t[1], e[1])):
            check(got[:1] == b"\x01", f"binary COPY row {i}: version byte {got[:1]!r}")
            check(got[1:] == b(want), f"binary COPY row {i}: {got[1:]!r}, expected {b(want)!r}")
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


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "edges.tsv"
    edges = read_edges(path)
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
    check_paging(cur, edges, "", False)
    check_paging(cur, edges, "_g", True)
    check_reverse(cur, edges)
    check_traverse(cur, edges, START, "out", False)
    check_traverse(cur, edges, TARGET, "in", True)
    check_copy(cur, edges)
    conn.close()
    print(f"# {nchecks} checks passed")


if __name__ == "__main__":
    try:
        main()
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # a driver or server error is a failure too
        traceback.print_exc()
        print(f"FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)

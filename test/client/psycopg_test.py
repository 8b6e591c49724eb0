#!/usr/bin/python3
"""adjlist from Python psycopg 3 (the Debian package python3-psycopg).

    /usr/bin/python3 test/client/psycopg_test.py test/client/edges.tsv

The server comes from PGHOST, PGPORT, PGUSER, PGDATABASE.  Exits 0 when
every check passes; otherwise prints "FAIL: ..." and exits 1.  The checks
are the same in every client of test/client (see run.sh); the expected
answers come from edgelist.py.

psycopg 3 sends parameters separately (the extended protocol).  In text
mode (%s) a str is untyped, so it resolves to adjkey, and so is a list of
str.  In binary mode (%b, or a cursor with binary=True) a str is text and a
list is text[], which adjkey compares with as text (pk = %b, pk = ANY(%b)),
with the same rows and index use; a graph function's adjkey argument needs
%b::adjkey (or dump keys with AdjkeyBinaryDumper).  Results: TypeInfo.register() makes adjkey[] a list;
in binary mode, adjkey's binary form is a version byte (1) and the UTF-8
bytes, which AdjkeyBinaryLoader reads (without it a key is bytes).
"""
import sys

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb

from edgelist import (LIM, PATH_TARGETS, PREFIX, START, TARGET, Fail, arcs, b, check,
                      check_binary_copy, check_path, expected_bfs, expected_in,
                      expected_out, ok, page_through, read_edges, run)

TBL = "pg3_graph"


class AdjkeyBinaryLoader(Loader):
    """adjkey's binary form, version byte 1 + UTF-8, as a str"""
    format = Format.BINARY

    def load(self, data):
        if data[:1] != b"\x01":
            raise psycopg.DataError(f"unknown adjkey binary format version {data[:1]!r}")
        return bytes(data[1:]).decode()


class AdjkeyBinaryDumper(Dumper):
    """a str as adjkey's binary form; oid is set by register_adjkey()"""
    format = Format.BINARY

    def dump(self, obj):
        return b"\x01" + obj.encode()


class Key(str):
    """a str that binary mode sends as an adjkey, not as text"""


def register_adjkey(conn):
    info = TypeInfo.fetch(conn, "adjkey")
    info.register(conn)                      # adjkey[] -> list of str (text mode)
    conn.adapters.register_loader(info.oid, AdjkeyBinaryLoader)
    dumper = type("AdjkeyDumper", (AdjkeyBinaryDumper,), {"oid": info.oid})
    conn.adapters.register_dumper(None, dumper)   # for COPY's set_types()
    conn.adapters.register_dumper(Key, dumper)
    return info


def jb(d):
    return Jsonb(d) if d is not None else None


def setup(conn, edges):
    conn.execute("SET client_min_messages = warning")
    conn.execute(f"DROP TABLE IF EXISTS {TBL}, {TBL}_copy, {TBL}_bad CASCADE")
    conn.execute(f"CREATE TABLE {TBL} (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))")
    conn.execute("SELECT create_inverted_index(%s)", [TBL])
    # even rows: str (text, untyped); odd rows: Key, sent in binary as adjkey (adjkey_recv)
    conn.cursor().executemany(f"INSERT INTO {TBL} VALUES (%s, %s, %s)",
                              [(pk, sk, jb(d)) if i % 2 == 0 else (Key(pk), Key(sk), jb(d))
                               for i, (pk, sk, d) in enumerate(edges)])
    conn.execute(f"INSERT INTO {TBL} SELECT 'NODE#' || (i % 300), 'FOLLOWS#NODE#' || i, NULL "
                 "FROM generate_series(1, 3000) i")
    conn.execute(f"ANALYZE {TBL}, {TBL}_inverted")
    got = conn.execute(f"SELECT pk, sk, data FROM {TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk").fetchall()
    check(got == edges, f"table rows differ from edges.tsv: {got!r}")
    check(conn.execute(f"SELECT count(*) FROM verify_inverted_index('{TBL}_inverted')").fetchone()[0] == 0,
          "verify_inverted_index reports problems")
    ok("edges inserted with str (text) and Key (binary adjkey) parameters, read back in byte order")


def check_params(conn, edges):
    """Keys as parameters: %s sends a str untyped (it becomes an adjkey), %b as
    text, which is compared with the keys as text (adjkey = text): the same
    rows, and a generic plan with the same index range.  A graph function's
    adjkey argument still needs %b::adjkey (42883 without: a function argument
    is converted only by an implicit cast)."""
    want = [sk for _, sk, _ in expected_out(edges, START, PREFIX)]
    q = f"SELECT sk FROM {TBL} WHERE pk = {{0}} AND sk ^@ {{1}} ORDER BY sk"
    for sql, binary, pk in ((q.format("%s", "%s"), False, START),                 # untyped text
                            (q.format("%s::adjkey", "%s::text"), False, START),
                            (q.format("%b", "%b"), True, START),                   # text, binary
                            (q.format("%b::adjkey", "%b"), True, START),
                            (q.format("%b", "%b"), True, Key(START))):            # adjkey, binary
        rows = conn.cursor(binary=binary).execute(sql, [pk, PREFIX]).fetchall()
        check([r[0] for r in rows] == want, f"{sql} (binary={binary}, {type(pk).__name__}): {rows!r}")

    conn.execute("SET plan_cache_mode = force_generic_plan")
    sql = q.format("%b", "%b") + " /* text parameters */"
    rows = conn.cursor(binary=True).execute(sql, [START, PREFIX], prepare=True).fetchall()
    check([r[0] for r in rows] == want, f"{sql} prepared: {rows!r}")
    name, generic, custom, plan, types = plan_of(conn, sql.replace("%b", "${}").format(1, 2), [START, PREFIX])
    conn.execute("RESET plan_cache_mode")
    check(types == ["text", "text"], f"{name}: parameters typed {types}, expected text")
    check(generic >= 1 and custom == 0, f"{name}: {generic} generic, {custom} custom plans")
    check("Index Cond: ((pk = $1) AND (sk >= adjkey_prefix_lower($2)) AND (sk < adjkey_prefix_upper($2)))" in plan
          and not any(w in plan for w in ("Seq Scan", "Filter:", "Sort")),
          f"the generic plan of {name} (%b, text) is not an index range scan in sk order:\n  {plan}")

    nb = f"SELECT sk FROM neighbors('{TBL}', {{}}, %b)"
    try:
        conn.execute(nb.format("%b"), [START, PREFIX])
        raise Fail("neighbors() accepted a text node")
    except psycopg.errors.UndefinedFunction:
        pass
    rows = conn.execute(nb.format("%b::adjkey"), [START, PREFIX]).fetchall()
    check([r[0] for r in rows] == want, f"neighbors(%b::adjkey): {rows!r}")
    ok("str parameters: %s (untyped) and %b (text) with and without casts, and Key, give the same rows; "
       "%b prepared: generic plan has Index Cond ((pk = $1) AND (sk >= adjkey_prefix_lower($2)) ...); "
       "neighbors() with %b: 42883 without ::adjkey")


def plan_of(conn, sql, params):
    """the server-side statement that prepare=True made of sql: its plan counts, EXPLAIN and parameter types"""
    name, generic, custom, types = conn.execute(
        "SELECT name, generic_plans, custom_plans, parameter_types::text[] FROM pg_prepared_statements "
        "WHERE NOT from_sql AND statement = %s", [sql]).fetchone()
    args = ", ".join(conn.execute("SELECT quote_nullable(%s::text)", [p]).fetchone()[0] for p in params)
    plan = [r[0] for r in conn.execute(f"EXPLAIN (COSTS OFF) EXECUTE {name}({args})")]
    return name, generic, custom, "\n  ".join(plan), types


def check_paging(conn, edges, binary, force_generic):
    want = expected_out(edges, START, PREFIX)
    mode = f"{'binary' if binary else 'text'}, {'force_generic_plan' if force_generic else 'auto'}"
    if force_generic:
        conn.execute("SET plan_cache_mode = force_generic_plan")
    cur = conn.cursor(binary=binary)
    ph = "%b" if binary else "%s"      # binary: parameters too (str as text: hence the casts)

    full = cur.execute("SELECT neighbor, sk, data FROM neighbors(%s, %s, %s)", [TBL, START, PREFIX]).fetchall()
    check(full == [(sk[len(PREFIX):], sk, d) for _, sk, d in want], f"neighbors unpaginated: {full!r}")
    nb = (f"SELECT neighbor, sk, data FROM neighbors('{TBL}', %s::adjkey, %s, lim => %s, after => %s::adjkey)"
          .replace("%s", ph) + f" /* {mode} */")
    pages = []

    def page(after):
        rows = cur.execute(nb, [START, PREFIX, LIM, after], prepare=True).fetchall()
        pages.extend(rows)
        return [(r[1], r[1]) for r in rows]
    execs = page_through(page, LIM, [r[1] for r in full], f"neighbors pages ({mode})")
    check(pages == full, "neighbors pages differ from one call")

    # plain SQL; its generic plan must keep the index range
    sq = (f"SELECT sk FROM {TBL} WHERE pk = %s::adjkey AND sk ^@ %s::text AND sk > %s::adjkey ORDER BY sk LIMIT %s"
          .replace("%s", ph) + f" /* {mode} */")
    got = page_through(lambda after: [(r[0], r[0]) for r in cur.execute(
        sq, [START, PREFIX, after or PREFIX, LIM], prepare=True).fetchall()],
        LIM, [sk for _, sk, _ in want], f"sql pages ({mode})")
    sql = sq.replace(ph, "${}").format(1, 2, 3, 4)
    name, generic, custom, plan, _ = plan_of(conn, sql, [START, PREFIX, PREFIX, LIM])
    check(generic >= 1 and (custom == 0 or not force_generic), f"{name}: {generic} generic, {custom} custom plans")
    check("Seq Scan" not in plan and "(sk >= adjkey_prefix_lower($2)) AND (sk < adjkey_prefix_upper($2))" in plan,
          f"the generic plan of {name} has no Index Cond with adjkey_prefix_lower/upper($2):\n  {plan}")
    if force_generic:
        conn.execute("RESET plan_cache_mode")
    ok(f"neighbors() ({execs} pages) and SQL ({got} pages) paged by prepare=True statements ({mode}): "
       f"generic plan of {name} has Index Cond with adjkey_prefix_lower/upper")


def check_query_paging(conn, edges):
    sks = [sk for _, sk, _ in expected_out(edges, START, PREFIX)]
    srcs = expected_in(edges, TARGET, PREFIX)
    q = ("SELECT sort_key, key FROM query(%s, %s, 'begins_with', %s, backward => %s, lim => %s, "
         "exclusive_start_key => %s)")

    def fetch(tbl, node, prefix, backward, lim):
        # the key comes back as a dict (jsonb); Jsonb() sends it back
        return lambda last: conn.execute(q, [tbl, node, prefix, backward, lim,
                                             Jsonb(last) if last else None]).fetchall()
    n1 = page_through(fetch(TBL, START, PREFIX, False, LIM), LIM, sks, "query forward")
    n2 = page_through(fetch(TBL, START, PREFIX, True, 3), 3, sks[::-1], "query backward")
    n3 = page_through(fetch(TBL + "_inverted", PREFIX + TARGET, "", False, 2), 2, srcs, "query inverted")
    ok(f"query(..., exclusive_start_key => last key): forward {n1}, backward {n2}, inverted index {n3} "
       "pages, every row once")


def check_arrays(conn, edges):
    keys = ["USER#alice", 'USER#o"neil', TARGET, "USER#nobody"]
    want = sorted(((e[0], e[2]) for e in edges if e[0] in keys and e[1] == "PROFILE"), key=lambda r: b(r[0]))
    sql = f"SELECT pk, data FROM {TBL} WHERE pk = ANY({{}}) AND sk = 'PROFILE' ORDER BY pk /* {{}} */"
    conn.execute("SET plan_cache_mode = force_generic_plan")
    for ph, binary, types, mark in (("%s", False, ["adjkey[]"], "list"), ("%s::adjkey[]", False, None, "list cast"),
                                    ("%b", True, ["text[]"], "binary list"),
                                    ("%b::adjkey[]", True, None, "binary list cast")):
        rows = conn.cursor(binary=binary).execute(sql.format(ph, mark), [keys], prepare=True).fetchall()
        check(rows == want, f"= ANY({ph}) (binary={binary}): {rows!r}, expected {want!r}")
        if types is None:
            continue
        # a list without a cast: untyped (adjkey[]) in text mode, text[] in binary mode
        name, generic, custom, plan, got = plan_of(conn, sql.format("$1", mark), ["{USER#alice}"])
        check(got == types, f"{name}: = ANY({ph}) (binary={binary}) typed {got}, expected {types}")
        check(generic >= 1 and custom == 0, f"{name}: {generic} generic, {custom} custom plans")
        check("Index Cond: ((pk = ANY ($1)) AND (sk = 'PROFILE'::adjkey))" in plan
              and not any(w in plan for w in ("Seq Scan", "Filter:")),
              f"{name}: = ANY({ph}) (binary={binary}) without the index:\n  {plan}")
    conn.execute("RESET plan_cache_mode")
    ok("a list of keys to = ANY(%s) (adjkey[]) and = ANY(%b) (text[] in binary), without and with ::adjkey[]: "
       "the same rows; generic plans without the cast have Index Cond (pk = ANY ($1))")

    out = arcs(edges, PREFIX)
    dist = expected_bfs(edges, START, PREFIX, 6)
    sp = "SELECT shortest_path(%s, %s, %s, %s)"
    for binary in (False, True):
        cur = conn.cursor(binary=binary)
        for target in PATH_TARGETS:
            path = cur.execute(sp, [TBL, START, target, PREFIX]).fetchone()[0]
            check_path(path, START, target, dist[target], out, f"shortest_path to {target} (binary={binary})")
        check(cur.execute(sp, [TBL, START, "USER#nobody", PREFIX]).fetchone()[0] is None, "no path is not None")
        want = expected_bfs(edges, START, PREFIX, 3)
        rows = cur.execute("SELECT node, depth, path FROM traverse(%s, %s, %s, 3, with_path => true)",
                           [TBL, START, PREFIX]).fetchall()
        check({r[0]: r[1] for r in rows} == want and len(rows) == len(want), "traverse depth 3: wrong nodes")
        for node, depth, path in rows:
            check_path(path, START, node, depth, out, f"traverse path to {node} (binary={binary})")
    ok(f"adjkey[] as lists of str in text and binary mode: shortest_path() to {len(PATH_TARGETS)} targets, "
       f"{len(rows)} traverse(with_path) paths")


def check_write_api(conn, edges):
    node = "USER#pg3 new"
    targets = [TARGET, 'USER#o"neil', "USER#a b"]
    items = [{"pk": node, "sk": PREFIX + t, "data": {"i": i}} for i, t in enumerate(targets)]
    check(conn.execute("SELECT put_edges(%s, %s)", [TBL, Jsonb(items)]).fetchone()[0] == 3, "put_edges")
    rows = conn.execute(f"SELECT sk FROM {TBL} WHERE pk = %s AND sk = ANY(%s) ORDER BY sk",
                        [node, [PREFIX + t for t in targets]]).fetchall()
    check([r[0] for r in rows] == sorted((PREFIX + t for t in targets), key=b), f"put_edges rows: {rows!r}")
    check(conn.execute("SELECT delete_node(%s, %s, %s)", [TBL, node, [PREFIX]]).fetchone()[0] == 3, "delete_node")
    check(conn.execute("SELECT count(*) FROM verify_inverted_index(%s)", [TBL + "_inverted"]).fetchone()[0] == 0,
          "verify_inverted_index reports problems")
    ok("put_edges(Jsonb(list of dicts)), read back by = ANY(list), delete_node(list)")


def check_reverse_traverse(conn, edges):
    want = expected_in(edges, TARGET, PREFIX)
    rows = conn.execute("SELECT neighbor FROM reverse_neighbors(%s, %s, %s)", [TBL, TARGET, PREFIX]).fetchall()
    check([r[0] for r in rows] == want, f"reverse_neighbors: {rows!r}, expected {want!r}")
    n = page_through(lambda after: [(r[0], r[0]) for r in conn.execute(
        "SELECT neighbor FROM reverse_neighbors(%s, %s, %s, lim => 2, after => %s)",
        [TBL, TARGET, PREFIX, after]).fetchall()], 2, want, "reverse_neighbors pages")
    for start, direction, reverse in ((START, "out", False), (TARGET, "in", True)):
        rows = conn.execute("SELECT node, depth FROM traverse(%s, %s, %s, 2, %s)",
                            [TBL, start, PREFIX, direction]).fetchall()
        check(dict(rows) == expected_bfs(edges, start, PREFIX, 2, reverse) and len(rows) == len(dict(rows)),
              f"traverse({start}, 2, {direction}): {rows!r}")
    ok(f"reverse_neighbors of {TARGET} (one call, {n} pages); traverse depth 2 out and in")


def check_copy(conn, edges):
    src = f"COPY (SELECT pk, sk, data FROM {TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk) TO STDOUT (FORMAT binary)"
    with conn.cursor() as cur:
        with cur.copy(src) as copy:
            data = b"".join(bytes(chunk) for chunk in copy)
        check_binary_copy(data, edges)
        with cur.copy(src) as copy:
            copy.set_types(["adjkey", "adjkey", "jsonb"])
            rows = list(copy.rows())
        check(rows == edges, f"binary COPY rows via set_types: {rows[:2]!r}...")
        ok("COPY TO STDOUT (FORMAT binary): raw (0x01 + UTF-8 keys) and as rows via set_types(adjkey)")

        cur.execute(f"CREATE TABLE {TBL}_copy (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))")
        with cur.copy(f"COPY {TBL}_copy FROM STDIN (FORMAT binary)") as copy:
            copy.set_types(["adjkey", "adjkey", "jsonb"])   # needs AdjkeyBinaryDumper
            for pk, sk, d in edges:
                copy.write_row([pk, sk, jb(d)])
        got = cur.execute(f"SELECT pk, sk, data FROM {TBL}_copy ORDER BY pk, sk").fetchall()
        check(got == edges, "binary COPY FROM STDIN with write_row: rows differ")
        ok("COPY FROM STDIN (FORMAT binary) with write_row and set_types(adjkey): same rows")

        bad = bytearray(data)
        bad[19 + 2 + 4] = 2     # the version byte of the first key
        cur.execute(f"CREATE TABLE {TBL}_bad (pk adjkey, sk adjkey, data jsonb)")
        try:
            with cur.copy(f"COPY {TBL}_bad FROM STDIN (FORMAT binary)") as copy:
                copy.write(bytes(bad))
            raise Fail("binary COPY with version 2 was accepted")
        except psycopg.Error as e:
            check(e.sqlstate == "22P03", f"binary COPY with version 2: {e.sqlstate} {e}, expected 22P03")
        check(cur.execute(f"SELECT count(*) FROM {TBL}_bad").fetchone()[0] == 0, "failed binary COPY wrote rows")
    ok("binary COPY with an unknown version byte: 22P03, nothing written")


def main():
    edges = read_edges(sys.argv[1] if len(sys.argv) > 1 else "edges.tsv")
    with psycopg.connect("", autocommit=True) as conn:
        print(f"# psycopg {psycopg.__version__} ({psycopg.pq.__impl__}), libpq {psycopg.pq.version()}, "
              f"server {conn.info.parameter_status('server_version')}")
        # before the registration: adjkey[] is a str, and binary adjkey is bytes
        raw = conn.execute("SELECT ARRAY['USER#a b']::adjkey[]").fetchone()[0]
        rawb = conn.cursor(binary=True).execute("SELECT 'USER#é'::adjkey").fetchone()[0]
        check(raw == '{"USER#a b"}' and rawb == b"\x01" + b("USER#é"), f"unregistered: {raw!r}, {rawb!r}")
        info = register_adjkey(conn)
        ok(f"unregistered adjkey[] is a str and binary adjkey bytes; registered adjkey (oid {info.oid}, "
           f"array {info.array_oid}) with TypeInfo and binary loader/dumper")

        setup(conn, edges)
        check_params(conn, edges)
        for binary in (False, True):
            for force_generic in (False, True):
                check_paging(conn, edges, binary, force_generic)
        check_query_paging(conn, edges)
        check_arrays(conn, edges)
        check_write_api(conn, edges)
        check_reverse_traverse(conn, edges)
        check_copy(conn, edges)


if __name__ == "__main__":
    run(main)

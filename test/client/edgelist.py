"""The expected answers of test/client for the Python clients (psycopg2_test.py
and psycopg_test.py), computed from edges.tsv without the server, and the
small test harness they share.  No driver is imported here."""
import json
import struct
import sys
import traceback

START = "USER#alice"
PREFIX = "FOLLOWS#"
TARGET = "USER#中文"
LIM = 4
# shortest_path() targets from START: their keys need quoting in adjkey[]'s
# text form (", {, comma, backslash, space, the word NULL) or are multi-byte
PATH_TARGETS = ['USER#{x,y}', 'NULL', 'USER#back\\slash', 'USER#a b', 'USER#zoë', 'USER#deeper']

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


def run(main):
    """Run main(); exit 1 with "FAIL: ..." on a failed check or any error."""
    try:
        main()
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # a driver or server error is a failure too
        traceback.print_exc()
        print(f"FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"# {nchecks} checks passed")


def b(s):
    """UTF-8 bytes: adjkey's order"""
    return s.encode("utf-8")


def read_edges(path):
    """(pk, sk, data) sorted as adjkey sorts: by UTF-8 bytes"""
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


def arcs(edges, prefix, reverse=False):
    """the set of (from, to) node pairs of the edges with prefix"""
    out = set()
    for pk, sk, _ in edges:
        if sk.startswith(prefix):
            t = sk[len(prefix):]
            out.add((t, pk) if reverse else (pk, t))
    return out


def expected_bfs(edges, start, prefix, max_depth, reverse=False):
    """{node: depth} of every node within max_depth, without the start"""
    adj = {}
    for u, v in sorted(arcs(edges, prefix, reverse)):
        adj.setdefault(u, []).append(v)
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


def check_path(path, start, end, depth, arcset, what):
    """path is a native list of str from start to end, of depth hops, along arcs"""
    check(isinstance(path, list) and all(isinstance(k, str) for k in path),
          f"{what}: {path!r} is not a list of str")
    check(len(path) == depth + 1 and path[0] == start and path[-1] == end,
          f"{what}: {path!r}, expected {depth} hops from {start} to {end}")
    for u, v in zip(path, path[1:]):
        check((u, v) in arcset, f"{what}: {path!r} has no edge {u} -> {v}")


def parse_binary_copy(data):
    """the tuples of COPY (FORMAT binary) output, each a list of bytes or None"""
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
                fields.append(bytes(data[pos:pos + fl]))
                pos += fl
        tuples.append(fields)
    check(pos == len(data), f"binary COPY: {len(data) - pos} trailing bytes")
    return tuples


def check_binary_copy(data, edges):
    """COPY (pk, sk, data) of the USER# rows: every key is 0x01 + UTF-8"""
    tuples = parse_binary_copy(data)
    check(len(tuples) == len(edges), f"binary COPY: {len(tuples)} rows, expected {len(edges)}")
    for i, (t, e) in enumerate(zip(tuples, edges)):
        check(len(t) == 3, f"binary COPY row {i}: {len(t)} fields")
        for got, want in ((t[0], e[0]), (t[1], e[1])):
            check(got == b"\x01" + b(want), f"binary COPY row {i}: {got!r}, expected 0x01 + {b(want)!r}")


def page_through(fetch, lim, want, what):
    """Keyset pagination: fetch(last) returns a page of at most lim rows
    (value, token), the first page for last=None; the token of a page's last
    row asks for the next page.  The pages together must be want, in order:
    every row exactly once."""
    got, last, pages = [], None, 0
    while True:
        rows = fetch(last)
        pages += 1
        check(len(rows) <= lim, f"{what}: a page of {len(rows)} rows with lim {lim}")
        got += [r[0] for r in rows]
        if len(rows) < lim:
            break
        last = rows[-1][1]
        check(pages < 1000, f"{what}: paging does not end")
    check(got == want, f"{what}: pages {got!r}, expected {want!r}")
    check(pages >= 3, f"{what}: only {pages} pages")
    return pages

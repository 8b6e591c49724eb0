# adjlist from psycopg 3 (Debian: python3-psycopg), on the graph of Getting started
import psycopg
from psycopg.adapt import Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

with psycopg.connect("") as conn:  # libpq's PGHOST, PGPORT, PGDATABASE, ...
    TypeInfo.fetch(conn, "adjkey").register(conn)  # the one-line setup: adjkey[] -> list

    # parameters: a str is sent untyped and becomes an adjkey
    rows = conn.execute("SELECT neighbor FROM neighbors('graph', %s, %s)", ["USER#alice", "FRIEND#"])
    assert rows.fetchall() == [("USER#bob",), ("USER#charlie",)]

    # arrays of keys: a list in, a list out
    rows = conn.execute("SELECT data->>'name' FROM graph WHERE pk = ANY(%s) AND sk = 'PROFILE' ORDER BY pk",
                        [["USER#alice", "USER#bob"]])
    assert rows.fetchall() == [("Alice Wonderland",), ("Bob Builder",)]
    path = conn.execute("SELECT shortest_path('graph', %s, %s, 'FRIEND#')", ["USER#alice", "USER#charlie"])
    assert path.fetchone()[0] == ["USER#alice", "USER#charlie"]

    # paging: pass the last row's key back as exclusive_start_key
    items, last = [], None
    while True:
        page = conn.execute("SELECT sort_key, key::text FROM query('graph', %s, lim => 2, exclusive_start_key => %s)",
                            ["USER#alice", last]).fetchall()
        items += [sort_key for sort_key, _ in page]
        if len(page) < 2:
            break
        last = page[-1][1]
    assert items == ["FOLLOWS#USER#bob", "FRIEND#USER#bob", "FRIEND#USER#charlie", "LIKES#POST#777", "PROFILE"]

    # binary mode: adjkey's binary form is a version byte (1) and the UTF-8 bytes
    class AdjkeyBinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            assert data[0] == 1, "unknown adjkey binary format version"
            return bytes(data[1:]).decode()

    conn.adapters.register_loader("adjkey", AdjkeyBinaryLoader)
    rows = conn.cursor(binary=True).execute("SELECT node, path FROM traverse('graph', %s::adjkey, 'FRIEND#', "
                                            "with_path => true)", ["USER#alice"])
    assert rows.fetchall() == [("USER#bob", ["USER#alice", "USER#bob"]),
                               ("USER#charlie", ["USER#alice", "USER#charlie"]),
                               ("USER#david", ["USER#alice", "USER#bob", "USER#david"])]

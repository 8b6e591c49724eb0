# adjlist from psycopg2 (Debian: python3-psycopg2), on the graph of Getting started
import psycopg2
import psycopg2.extensions as ext

conn = psycopg2.connect("")  # libpq's PGHOST, PGPORT, PGDATABASE, ...
cur = conn.cursor()
# the one-line setup: adjkey[] -> list (the array type's OID is looked up: it differs per database)
cur.execute("SELECT 'adjkey[]'::regtype::oid")
ext.register_type(ext.new_array_type((cur.fetchone()[0],), "ADJKEY[]", psycopg2.STRING), conn)

# parameters: a str becomes an untyped literal, which becomes an adjkey
cur.execute("SELECT neighbor FROM neighbors('graph', %s, %s)", ("USER#alice", "FRIEND#"))
assert cur.fetchall() == [("USER#bob",), ("USER#charlie",)]

# arrays of keys: psycopg2 sends a list as text[], compared with the keys as text;
# adjkey[] comes back as a list
cur.execute("SELECT data->>'name' FROM graph WHERE pk = ANY(%s) AND sk = 'PROFILE' ORDER BY pk",
            (["USER#alice", "USER#bob"],))
assert cur.fetchall() == [("Alice Wonderland",), ("Bob Builder",)]
cur.execute("SELECT shortest_path('graph', %s, %s, 'FRIEND#')", ("USER#alice", "USER#charlie"))
assert cur.fetchone()[0] == ["USER#alice", "USER#charlie"]

# paging: pass the last row's key back as exclusive_start_key
items, last = [], None
while True:
    cur.execute("SELECT sort_key, key::text FROM query('graph', %s, lim => 2, exclusive_start_key => %s)",
                ("USER#alice", last))
    page = cur.fetchall()
    items += [sort_key for sort_key, _ in page]
    if len(page) < 2:
        break
    last = page[-1][1]
assert items == ["FOLLOWS#USER#bob", "FRIEND#USER#bob", "FRIEND#USER#charlie", "LIKES#POST#777", "PROFILE"]
conn.close()

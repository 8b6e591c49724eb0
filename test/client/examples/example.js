// adjlist from node-postgres (npm: pg), on the graph of Getting started
const assert = require('assert')
const pg = require('pg')

async function main () {
  const client = new pg.Client() // PGHOST, PGPORT, PGDATABASE, ...
  await client.connect()
  // the one-line setup: adjkey[] parsed by text[]'s parser (the array type's OID differs per database)
  const { rows: [{ oid }] } = await client.query("SELECT 'adjkey[]'::regtype::oid::int AS oid")
  pg.types.setTypeParser(oid, pg.types.getTypeParser(1009))

  // parameters: strings are sent untyped and become adjkeys
  let r = await client.query("SELECT neighbor FROM neighbors('graph', $1, $2)", ['USER#alice', 'FRIEND#'])
  assert.deepStrictEqual(r.rows.map((row) => row.neighbor), ['USER#bob', 'USER#charlie'])

  // arrays of keys: an array in, an array out
  r = await client.query("SELECT data->>'name' AS name FROM graph WHERE pk = ANY($1) AND sk = 'PROFILE' ORDER BY pk",
    [['USER#alice', 'USER#bob']])
  assert.deepStrictEqual(r.rows.map((row) => row.name), ['Alice Wonderland', 'Bob Builder'])
  r = await client.query("SELECT shortest_path('graph', $1, $2, 'FRIEND#') AS path", ['USER#alice', 'USER#charlie'])
  assert.deepStrictEqual(r.rows[0].path, ['USER#alice', 'USER#charlie'])

  // paging: pass the last row's key back as exclusive_start_key (a named, server-side prepared query)
  const items = []
  let last = null
  for (;;) {
    r = await client.query({
      name: 'items',
      text: "SELECT sort_key, key::text FROM query('graph', $1, lim => 2, exclusive_start_key => $2)",
      values: ['USER#alice', last]
    })
    items.push(...r.rows.map((row) => row.sort_key))
    if (r.rows.length < 2) break
    last = r.rows[r.rows.length - 1].key
  }
  assert.deepStrictEqual(items, ['FOLLOWS#USER#bob', 'FRIEND#USER#bob', 'FRIEND#USER#charlie', 'LIKES#POST#777', 'PROFILE'])
  await client.end()
}

main().catch((e) => { console.error(e); process.exit(1) })

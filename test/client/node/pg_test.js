'use strict'
// adjlist from Node.js with pg (node-postgres) and pg-copy-streams from npm.
//
//   cd test/client/node && npm ci && node pg_test.js ../edges.tsv
//
// The server comes from PGHOST, PGPORT, PGUSER, PGDATABASE (PGHOST may be a
// socket directory).  Exits 0 when every check passes; otherwise prints
// "FAIL: ..." and exits 1.  The checks are the same in every client of
// test/client (see run.sh).

const fs = require('fs')
const { Readable, Writable } = require('stream')
const { pipeline } = require('stream/promises')
const pg = require('pg')
const { to: copyTo, from: copyFrom } = require('pg-copy-streams')

const TBL = 'node_graph'
const START = 'USER#alice'
const PREFIX = 'FOLLOWS#'
const TARGET = 'USER#中文'
const LIM = 4
// shortest_path() targets from START: their keys need quoting in adjkey[]'s
// text form (", {, comma, backslash, space, the word NULL) or are multi-byte
const PATH_TARGETS = ['USER#{x,y}', 'NULL', 'USER#back\\slash', 'USER#a b', 'USER#zoë', 'USER#deeper']

let nchecks = 0

class Fail extends Error {}

function check (cond, msg) {
  if (!cond) throw new Fail(msg)
}

function ok (what) {
  nchecks++
  console.log(`ok ${nchecks} - ${what}`)
}

const utf8 = (s) => Buffer.from(s, 'utf8')
// adjkey order: the UTF-8 bytes
const byBytes = (a, b) => Buffer.compare(utf8(a), utf8(b))
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)
const show = (v) => JSON.stringify(v)

function readEdges (path) {
  const edges = []
  for (const line of fs.readFileSync(path, 'utf8').split(/\r?\n/)) {
    if (!line) continue
    const f = line.split('\t')
    check(f.length === 3, `${path}: bad line ${show(line)}`)
    edges.push({ pk: f[0], sk: f[1], data: f[2] ? JSON.parse(f[2]) : null })
  }
  check(edges.length >= 24, `${path}: only ${edges.length} edges`)
  edges.sort((x, y) => byBytes(x.pk, y.pk) || byBytes(x.sk, y.sk))
  return edges
}

const expectedOut = (edges, node, prefix) =>
  edges.filter((e) => e.pk === node && e.sk.startsWith(prefix))

const expectedIn = (edges, node, prefix) =>
  edges.filter((e) => e.sk === prefix + node).map((e) => e.pk).sort(byBytes)

function expectedBfs (edges, start, prefix, maxDepth, reverse) {
  const adj = new Map()
  for (const e of edges) {
    if (!e.sk.startsWith(prefix)) continue
    const t = e.sk.slice(prefix.length)
    const [from, to] = reverse ? [t, e.pk] : [e.pk, t]
    if (!adj.has(from)) adj.set(from, [])
    adj.get(from).push(to)
  }
  const depth = new Map([[start, 0]])
  let frontier = [start]
  for (let d = 1; d <= maxDepth; d++) {
    const next = []
    for (const u of frontier) {
      for (const v of adj.get(u) || []) {
        if (!depth.has(v)) {
          depth.set(v, d)
          next.push(v)
        }
      }
    }
    frontier = next
  }
  depth.delete(start)
  return depth
}

async function planCounts (client, name) {
  const r = await client.query(
    'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1',
    [name])
  check(r.rows.length === 1, `prepared statement ${name} not in pg_prepared_statements`)
  return r.rows[0]
}

async function setup (client, edges) {
  await client.query('SET client_min_messages = warning')
  await client.query(`DROP TABLE IF EXISTS ${TBL}, ${TBL}_copy, ${TBL}_bad CASCADE`)
  await client.query(`CREATE TABLE ${TBL} (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))`)
  await client.query('SELECT create_inverted_index($1)', [TBL])
  // even rows: text parameters; odd rows: Buffers, which pg sends in binary
  // format (adjkey_recv: version byte 1 and the UTF-8 bytes)
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]
    const key = (s) => i % 2 ? Buffer.concat([Buffer.from([1]), utf8(s)]) : s
    await client.query({
      name: 'insert_edge',
      text: `INSERT INTO ${TBL} (pk, sk, data) VALUES ($1, $2, $3)`,
      values: [key(e.pk), key(e.sk), e.data === null ? null : JSON.stringify(e.data)]
    })
  }
  await client.query(`INSERT INTO ${TBL} SELECT 'NODE#' || (i % 300), 'FOLLOWS#NODE#' || i, NULL ` +
    'FROM generate_series(1, 3000) i')
  await client.query(`ANALYZE ${TBL}`)
  await client.query(`ANALYZE ${TBL}_inverted`)
  const r = await client.query(`SELECT (SELECT count(*)::int FROM ${TBL} WHERE pk ^@ 'USER#'::text) AS nuser,
    (SELECT count(*)::int FROM ${TBL}) AS nall, (SELECT count(*)::int FROM ${TBL}_inverted) AS ninv,
    (SELECT count(*)::int FROM verify_inverted_index('${TBL}_inverted')) AS nproblems`)
  const c = r.rows[0]
  check(c.nuser === edges.length, `table has ${c.nuser} edges, expected ${edges.length}`)
  check(c.nall === c.ninv, `inverted index has ${c.ninv} rows, table ${c.nall}`)
  check(c.nproblems === 0, `verify_inverted_index reports ${c.nproblems} problems`)
  ok('table, inverted index, edges inserted with text and binary (Buffer) parameters')
}

async function checkTextAndBinary (client, edges, adjkeyOid) {
  const sql = `SELECT pk, sk FROM ${TBL} WHERE pk ^@ $1::text ORDER BY pk, sk`
  let r = await client.query(`SELECT pk, sk, data FROM ${TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk`)
  check(r.fields[0].dataTypeID === adjkeyOid, `pk has type ${r.fields[0].dataTypeID}, expected adjkey ${adjkeyOid}`)
  check(r.rows.length === edges.length, `${r.rows.length} rows, expected ${edges.length}`)
  r.rows.forEach((row, i) => {
    const e = edges[i]
    check(row.pk === e.pk && row.sk === e.sk && same(row.data, e.data),
      `text row ${i}: ${show(row)}, expected ${show(e)}`)
  })
  ok('text results in UTF-8 byte order')

  // binary result format with a custom type parser on the adjkey OID.  pg
  // hands a binary field to the parser as a UTF-8-decoded string, which is
  // lossless here because adjkey's binary form (0x01 + UTF-8) is valid UTF-8.
  // (Errors are collected, not thrown: the parser runs in pg's socket handler.)
  const parsed = []
  const problems = []
  const types = {
    getTypeParser: (oid, format) => {
      if (oid !== adjkeyOid || format !== 'binary') problems.push(`column type ${oid} in format ${format}`)
      return (value) => {
        const raw = Buffer.isBuffer(value) ? value : utf8(value)
        if (raw[0] !== 1) problems.push(`binary adjkey version byte ${raw[0]}, expected 1`)
        parsed.push(raw)
        return raw.subarray(1).toString('utf8')
      }
    }
  }
  // with a parameter, so that pg uses the extended protocol (binary needs it)
  r = await client.query({ text: sql, values: ['USER#'], binary: true, types })
  check(problems.length === 0, 'binary results: ' + problems.join('; '))
  check(r.fields.every((f) => f.format === 'binary'), 'binary query returned text fields')
  check(r.rows.length === edges.length, `binary: ${r.rows.length} rows`)
  r.rows.forEach((row, i) => {
    const e = edges[i]
    check(row.pk === e.pk && row.sk === e.sk, `binary row ${i}: ${show(row)}, expected ${show(e)}`)
    check(parsed[2 * i].equals(Buffer.concat([Buffer.from([1]), utf8(e.pk)])) &&
      parsed[2 * i + 1].equals(Buffer.concat([Buffer.from([1]), utf8(e.sk)])),
    `binary row ${i}: bytes ${parsed[2 * i].toString('hex')} ${parsed[2 * i + 1].toString('hex')}`)
  })
  ok('binary results (binary: true, custom type parser): version byte 1 + UTF-8 bytes')

  // also through adjkey_send as bytea in text format
  r = await client.query(`SELECT adjkey_send(sk) AS b FROM ${TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk`)
  r.rows.forEach((row, i) => {
    check(Buffer.isBuffer(row.b) && row.b.equals(Buffer.concat([Buffer.from([1]), utf8(edges[i].sk)])),
      `adjkey_send row ${i}: ${row.b && row.b.toString('hex')}`)
  })
  ok('adjkey_send: version byte 1 + UTF-8 bytes')

  // a binary parameter with an unknown version is rejected
  let err = null
  try {
    await client.query('SELECT $1::adjkey', [Buffer.concat([Buffer.from([2]), utf8('USER#x')])])
  } catch (e) {
    err = e
  }
  check(err && err.code === '22P03', `binary adjkey with version 2: ${err ? err.code + ' ' + err.message : 'accepted'}, expected 22P03`)
  ok('binary parameter with an unknown version byte: 22P03')
}

async function checkPaging (client, edges, suffix, forceGeneric) {
  const want = expectedOut(edges, START, PREFIX)
  const nb = 'nb_page' + suffix
  const sq = 'sql_page' + suffix
  if (forceGeneric) await client.query('SET plan_cache_mode = force_generic_plan')

  let r = await client.query(`SELECT neighbor, sk, data FROM neighbors('${TBL}', $1, $2)`, [START, PREFIX])
  const full = r.rows
  check(same(full, want.map((e) => ({ neighbor: e.sk.slice(PREFIX.length), sk: e.sk, data: e.data }))),
    `neighbors unpaginated: ${show(full)}`)

  // neighbors() paginated by a named (server-side prepared) query
  let pages = []
  let after = null
  let execs = 0
  for (;;) {
    r = await client.query({
      name: nb,
      text: `SELECT neighbor, sk, data FROM neighbors('${TBL}', $1, $2, lim => $3, after => $4)`,
      values: [START, PREFIX, LIM, after]
    })
    execs++
    check(r.rows.length <= LIM, `page of ${r.rows.length} rows with lim ${LIM}`)
    if (r.rows.length === 0) break
    pages = pages.concat(r.rows)
    after = r.rows[r.rows.length - 1].sk
    check(execs < 100, 'neighbors paging does not end')
  }
  check(same(pages, full), `neighbors pages differ from one call: ${show(pages)}`)
  check(execs >= 6, `only ${execs} executions of ${nb}`)
  let pc = await planCounts(client, nb)
  check(pc.generic >= 1, `${nb}: no generic plan after ${execs} executions (custom ${pc.custom})`)
  check(!forceGeneric || pc.custom === 0, `${nb}: ${pc.custom} custom plans under force_generic_plan`)
  ok(`neighbors() paged by named query ${nb}: ${execs} executions, ${pc.generic} generic plans, equals one call`)

  // plain SQL; its generic plan must keep the index range
  const got = []
  after = PREFIX // no key equals the bare prefix
  execs = 0
  for (;;) {
    r = await client.query({
      name: sq,
      text: `SELECT sk FROM ${TBL} WHERE pk = $1 AND sk ^@ $2::text AND sk > $3 ORDER BY sk LIMIT $4`,
      values: [START, PREFIX, after, LIM]
    })
    execs++
    for (const row of r.rows) got.push(row.sk)
    if (r.rows.length < LIM) break
    after = r.rows[r.rows.length - 1].sk
  }
  check(same(got, want.map((e) => e.sk)), `sql pages: ${show(got)}`)
  check(execs >= 6, `only ${execs} executions of ${sq}`)
  pc = await planCounts(client, sq)
  check(pc.generic >= 1, `${sq}: no generic plan after ${execs} executions (custom ${pc.custom})`)
  check(!forceGeneric || pc.custom === 0, `${sq}: ${pc.custom} custom plans under force_generic_plan`)
  // a utility statement takes no parameters: literals
  const lit = (v) => client.escapeLiteral(v)
  r = await client.query(`EXPLAIN (COSTS OFF) EXECUTE ${sq}(${lit(START)}, ${lit(PREFIX)}, ${lit(PREFIX)}, ${LIM})`)
  const plan = r.rows.map((row) => row['QUERY PLAN'])
  check(!plan.some((l) => l.includes('Seq Scan')), 'generic plan is a sequential scan:\n  ' + plan.join('\n  '))
  check(plan.some((l) => l.includes('Index Cond:') && l.includes('(sk >= adjkey_prefix_lower($2))') &&
    l.includes('(sk < adjkey_prefix_upper($2))')),
  'the generic plan has no Index Cond on sk with adjkey_prefix_lower/upper($2):\n  ' + plan.join('\n  '))
  if (forceGeneric) check((await planCounts(client, sq)).custom === 0, `${sq}: EXPLAIN used a custom plan`)
  ok(`SQL paged by named query ${sq} (${forceGeneric ? 'force_generic_plan' : 'auto'}): ${execs} executions, ` +
    'generic plan has Index Cond with adjkey_prefix_lower/upper')
  if (forceGeneric) await client.query('RESET plan_cache_mode')
}

async function checkReverse (client, edges) {
  const want = expectedIn(edges, TARGET, PREFIX)
  check(want.length >= 5, 'too few in-edges in the edge list')
  let r = await client.query(`SELECT neighbor, pk, sk FROM reverse_neighbors('${TBL}', $1, $2)`, [TARGET, PREFIX])
  check(same(r.rows, want.map((s) => ({ neighbor: s, pk: s, sk: PREFIX + TARGET }))),
    `reverse_neighbors: ${show(r.rows)}, expected ${show(want)}`)
  const got = []
  let after = null
  for (let i = 0; i < 100; i++) {
    r = await client.query({
      name: 'rev_page',
      text: `SELECT neighbor FROM reverse_neighbors('${TBL}', $1, $2, lim => 2, after => $3)`,
      values: [TARGET, PREFIX, after]
    })
    if (r.rows.length === 0) break
    for (const row of r.rows) got.push(row.neighbor)
    after = got[got.length - 1]
  }
  check(same(got, want), `reverse pages: ${show(got)}`)
  ok(`reverse_neighbors of ${TARGET}: sources in byte order, paged equals one call`)
}

async function checkTraverse (client, edges, start, direction, reverse) {
  const want = expectedBfs(edges, start, PREFIX, 2, reverse)
  const r = await client.query(`SELECT node, depth FROM traverse('${TBL}', $1, $2, 2, $3)`,
    [start, PREFIX, direction])
  check(r.rows.length === want.size, `traverse(${start}, 2, ${direction}): ${r.rows.length} nodes, expected ${want.size}`)
  for (const row of r.rows) {
    check(want.get(row.node) === row.depth,
      `traverse(${start}, 2, ${direction}): ${row.node} at depth ${row.depth}, expected ${want.get(row.node)}`)
  }
  ok(`traverse(${start}, depth 2, ${direction}): ${want.size} nodes with their depths`)
}

function parseBinaryCopy (data) {
  check(data.subarray(0, 11).equals(Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')), 'binary COPY: bad signature')
  let pos = 19 + data.readUInt32BE(15)
  const tuples = []
  for (;;) {
    const nf = data.readInt16BE(pos)
    pos += 2
    if (nf === -1) break
    const fields = []
    for (let i = 0; i < nf; i++) {
      const fl = data.readInt32BE(pos)
      pos += 4
      if (fl < 0) {
        fields.push(null)
      } else {
        fields.push(data.subarray(pos, pos + fl))
        pos += fl
      }
    }
    tuples.push(fields)
  }
  check(pos === data.length, `binary COPY: ${data.length - pos} trailing bytes`)
  return tuples
}

async function copyIn (client, sql, data) {
  const pieces = []
  for (let off = 0; off < data.length; off += 97) pieces.push(data.subarray(off, off + 97))
  await pipeline(Readable.from(pieces), client.query(copyFrom(sql)))
}

async function checkCopy (client, edges) {
  const chunks = []
  await pipeline(
    client.query(copyTo(`COPY (SELECT pk, sk, data FROM ${TBL} WHERE pk ^@ 'USER#'::text ORDER BY pk, sk) ` +
      'TO STDOUT (FORMAT binary)')),
    new Writable({ write (chunk, _enc, cb) { chunks.push(chunk); cb() } }))
  const data = Buffer.concat(chunks)
  const tuples = parseBinaryCopy(data)
  check(tuples.length === edges.length, `binary COPY: ${tuples.length} rows, expected ${edges.length}`)
  tuples.forEach((t, i) => {
    check(t.length === 3, `binary COPY row ${i}: ${t.length} fields`)
    for (const [got, want] of [[t[0], edges[i].pk], [t[1], edges[i].sk]]) {
      check(got[0] === 1, `binary COPY row ${i}: version byte ${got[0]}`)
      check(got.subarray(1).equals(utf8(want)), `binary COPY row ${i}: ${got.subarray(1).toString('hex')}, expected ${want}`)
    }
  })
  ok('COPY TO STDOUT (FORMAT binary) via pg-copy-streams: version byte 1 + UTF-8 bytes in every key')

  await client.query(`CREATE TABLE ${TBL}_copy (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))`)
  await copyIn(client, `COPY ${TBL}_copy FROM STDIN (FORMAT binary)`, data)
  const r = await client.query(`SELECT (SELECT count(*)::int FROM ${TBL}_copy) AS n,
    (SELECT count(*)::int FROM (SELECT pk, sk, data FROM ${TBL} WHERE pk ^@ 'USER#'::text
      EXCEPT SELECT pk, sk, data FROM ${TBL}_copy) d) AS missing,
    (SELECT count(*)::int FROM (SELECT pk, sk, data FROM ${TBL}_copy
      EXCEPT SELECT pk, sk, data FROM ${TBL}) d) AS extra`)
  const c = r.rows[0]
  check(c.n === edges.length && c.missing === 0 && c.extra === 0,
    `binary COPY round trip differs: ${c.n} rows, ${c.missing} missing, ${c.extra} extra`)
  ok('COPY FROM STDIN (FORMAT binary) via pg-copy-streams into another table: same rows')

  const bad = Buffer.from(data)
  bad[19 + 2 + 4] = 2 // the version byte of the first key
  await client.query(`CREATE TABLE ${TBL}_bad (pk adjkey, sk adjkey, data jsonb)`)
  let err = null
  try {
    await copyIn(client, `COPY ${TBL}_bad FROM STDIN (FORMAT binary)`, bad)
  } catch (e) {
    err = e
  }
  check(err && err.code === '22P03', `binary COPY with version 2: ${err ? err.code + ' ' + err.message : 'accepted'}, expected 22P03`)
  const n = (await client.query(`SELECT count(*)::int AS n FROM ${TBL}_bad`)).rows[0].n
  check(n === 0, 'failed binary COPY wrote rows')
  ok('binary COPY with an unknown version byte: 22P03, nothing written')
}

// the set of "from\u0000to" pairs of the edges with prefix
function arcs (edges, prefix) {
  const out = new Set()
  for (const e of edges) if (e.sk.startsWith(prefix)) out.add(e.pk + '\u0000' + e.sk.slice(prefix.length))
  return out
}

// path is a native array of strings from start to end, of depth hops, along arcs
function checkPath (path, start, end, depth, arcSet, what) {
  check(Array.isArray(path) && path.every((k) => typeof k === 'string'), `${what}: ${show(path)} is not an array of strings`)
  check(path.length === depth + 1 && path[0] === start && path[path.length - 1] === end,
    `${what}: ${show(path)}, expected ${depth} hops from ${start} to ${end}`)
  for (let i = 1; i < path.length; i++) check(arcSet.has(path[i - 1] + '\u0000' + path[i]), `${what}: no edge ${path[i - 1]} -> ${path[i]}`)
}

// keyset pagination: fetch(last) gives a page of at most lim rows [value, token];
// the pages together must be want, in order: every row exactly once
async function pageThrough (fetch, lim, want, what) {
  const got = []
  let last = null
  let pages = 0
  for (;;) {
    const rows = await fetch(last)
    pages++
    check(rows.length <= lim, `${what}: a page of ${rows.length} rows with lim ${lim}`)
    for (const r of rows) got.push(r[0])
    if (rows.length < lim) break
    last = rows[rows.length - 1][1]
    check(pages < 1000, `${what}: paging does not end`)
  }
  check(same(got, want), `${what}: pages ${show(got)}, expected ${show(want)}`)
  check(pages >= 3, `${what}: only ${pages} pages`)
  return pages
}

// EXPLAIN EXECUTE of a named statement; a utility statement takes no parameters: literals
async function explainExecute (client, name, args) {
  const r = await client.query(`EXPLAIN (COSTS OFF) EXECUTE ${name}(${args.map((a) => client.escapeLiteral(a)).join(', ')})`)
  return r.rows.map((row) => row['QUERY PLAN']).join('\n  ')
}

// the generic plan of the named statement, executed under force_generic_plan
// (no custom plan): its parameter types, and EXPLAIN EXECUTE has indexCond,
// no Seq Scan, no Filter, and no Sort when sorted (the index gives the order)
async function checkGenericIndex (client, name, args, types, indexCond, sorted) {
  const r = await client.query('SELECT generic_plans::int AS generic, custom_plans::int AS custom, ' +
    'parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = $1', [name])
  check(r.rows.length === 1, `prepared statement ${name} not in pg_prepared_statements`)
  const { generic, custom } = r.rows[0]
  check(same(r.rows[0].types, types), `${name}: parameters typed ${show(r.rows[0].types)}, expected ${show(types)}`)
  check(generic >= 1 && custom === 0, `${name}: ${generic} generic, ${custom} custom plans`)
  const plan = await explainExecute(client, name, args)
  check(plan.includes(indexCond) && !['Seq Scan', 'Filter:'].concat(sorted ? ['Sort'] : []).some((w) => plan.includes(w)),
    `the generic plan of ${name} is not an index scan with ${indexCond}:\n  ${plan}`)
}

// Keys as parameters: node-postgres sends strings untyped (they become
// adjkeys); $1::text makes the parameter text, which is compared with the
// keys as text (adjkey = text): the same rows, and a generic plan with the
// same index range.  A graph function's adjkey argument still needs
// ::adjkey (42883 without: a function argument is converted only by an
// implicit cast).
async function checkParams (client, edges) {
  const want = expectedOut(edges, START, PREFIX).map((e) => e.sk)
  const sql = (c1, c2) => `SELECT sk FROM ${TBL} WHERE pk = $1${c1} AND sk ^@ $2${c2} ORDER BY sk`
  for (const [c1, c2] of [['', ''], ['::adjkey', '::text'], ['::text', '::text'], ['::varchar', '::varchar']]) {
    const r = await client.query(sql(c1, c2), [START, PREFIX])
    check(same(r.rows.map((row) => row.sk), want), `${sql(c1, c2)}: ${show(r.rows)}`)
  }
  await client.query('SET plan_cache_mode = force_generic_plan')
  const r = await client.query({ name: 'out_text', text: sql('::text', '::text'), values: [START, PREFIX] })
  check(same(r.rows.map((row) => row.sk), want), `out_text: ${show(r.rows)}`)
  await checkGenericIndex(client, 'out_text', [START, PREFIX], ['text', 'text'],
    'Index Cond: ((pk = $1) AND (sk >= adjkey_prefix_lower($2)) AND (sk < adjkey_prefix_upper($2)))', true)
  await client.query('RESET plan_cache_mode')

  let err = null
  try {
    await client.query(`SELECT sk FROM neighbors('${TBL}', $1::text, $2)`, [START, PREFIX])
  } catch (e) {
    err = e
  }
  check(err && err.code === '42883', `neighbors(tbl, $1::text, $2): ${err ? err.code : 'accepted'}, expected 42883`)
  ok('string parameters untyped, with ::adjkey / ::text casts, as ::text and ::varchar: the same rows; ' +
    'typed text, named: generic plan has Index Cond ((pk = $1) AND (sk >= adjkey_prefix_lower($2)) ...); ' +
    'neighbors() with $1::text: 42883')
}

async function checkArraysSend (client, edges) {
  const keys = ['USER#alice', 'USER#o"neil', TARGET, 'USER#nobody']
  const want = edges.filter((e) => keys.includes(e.pk) && e.sk === 'PROFILE').map((e) => ({ pk: e.pk, data: e.data }))
  check(want.length === 2, 'edges.tsv has no PROFILE of USER#alice and USER#中文')
  const sql = (cast) => `SELECT pk, data FROM ${TBL} WHERE pk = ANY($1${cast}) AND sk = 'PROFILE' ORDER BY pk`
  await client.query('SET plan_cache_mode = force_generic_plan')
  for (const [cast, name, types] of [['', 'profiles', ['adjkey[]']], ['::adjkey[]', 'profiles_cast', null],
    ['::text[]', 'profiles_text', ['text[]']]]) {
    const r = await client.query({ name, text: sql(cast), values: [keys] })
    check(same(r.rows, want), `= ANY($1${cast}): ${show(r.rows)}, expected ${show(want)}`)
    if (types) {
      await checkGenericIndex(client, name, ['{USER#alice}'], types,
        "Index Cond: ((pk = ANY ($1)) AND (sk = 'PROFILE'::adjkey))", false)
    }
  }
  await client.query('RESET plan_cache_mode')
  ok('an array of keys to = ANY($1) as it is (adjkey[]), with ::adjkey[] and as ::text[]: the same rows; ' +
    'generic plans, adjkey[] and text[], have Index Cond (pk = ANY ($1))')
}

async function checkArraysReceive (client, edges) {
  const sp = `SELECT shortest_path('${TBL}', $1, $2, $3) AS path`
  const raw = (await client.query(sp, [START, PATH_TARGETS[0], PREFIX])).rows[0].path
  check(typeof raw === 'string' && raw.startsWith('{'), `unregistered adjkey[]: ${show(raw)}`)

  // the one-line setup: parse adjkey[] as text[] is parsed (pg.types is global)
  const arrayOid = (await client.query("SELECT 'adjkey[]'::regtype::oid::int AS oid")).rows[0].oid
  pg.types.setTypeParser(arrayOid, pg.types.getTypeParser(1009))

  const out = arcs(edges, PREFIX)
  const dist = expectedBfs(edges, START, PREFIX, 6, false)
  for (const target of PATH_TARGETS) {
    const path = (await client.query(sp, [START, target, PREFIX])).rows[0].path
    checkPath(path, START, target, dist.get(target), out, `shortest_path to ${target}`)
  }
  check((await client.query(sp, [START, 'USER#nobody', PREFIX])).rows[0].path === null, 'shortest_path to nowhere is not null')
  ok(`adjkey[] registered (setTypeParser with text[]'s parser): shortest_path() as arrays of strings, ${PATH_TARGETS.length} targets`)

  const want = expectedBfs(edges, START, PREFIX, 3, false)
  const r = await client.query(`SELECT node, depth, path FROM traverse('${TBL}', $1, $2, 3, with_path => true)`, [START, PREFIX])
  check(r.rows.length === want.size, `traverse depth 3: ${r.rows.length} nodes, expected ${want.size}`)
  for (const row of r.rows) {
    check(want.get(row.node) === row.depth, `traverse: ${row.node} at depth ${row.depth}`)
    checkPath(row.path, START, row.node, row.depth, out, `traverse path to ${row.node}`)
  }
  ok(`traverse(with_path => true): ${r.rows.length} paths as arrays of strings`)
}

async function checkWriteApi (client) {
  const node = 'USER#node new'
  const targets = [TARGET, 'USER#o"neil', 'USER#a b']
  const items = targets.map((t, i) => ({ pk: node, sk: PREFIX + t, data: { i } }))
  // JSON.stringify: pg would send a JS array as a Postgres array, not as JSON
  let r = await client.query('SELECT put_edges($1, $2)::int AS n', [TBL, JSON.stringify(items)])
  check(r.rows[0].n === 3, `put_edges wrote ${r.rows[0].n} rows`)
  r = await client.query(`SELECT sk FROM ${TBL} WHERE pk = $1 AND sk = ANY($2) ORDER BY sk`, [node, targets.map((t) => PREFIX + t)])
  check(same(r.rows.map((row) => row.sk), targets.map((t) => PREFIX + t).sort(byBytes)), `put_edges rows: ${show(r.rows)}`)
  r = await client.query('SELECT delete_node($1, $2, $3)::int AS n', [TBL, node, [PREFIX]])
  check(r.rows[0].n === 3, `delete_node deleted ${r.rows[0].n} rows`)
  r = await client.query('SELECT count(*)::int AS n FROM verify_inverted_index($1)', [TBL + '_inverted'])
  check(r.rows[0].n === 0, 'verify_inverted_index reports problems')
  ok('put_edges(JSON.stringify(items)), read back by = ANY(array), delete_node(array as text[])')
}

async function checkQueryPaging (client, edges) {
  const sks = expectedOut(edges, START, PREFIX).map((e) => e.sk)
  const srcs = expectedIn(edges, TARGET, PREFIX)
  const q = 'SELECT sort_key, key FROM query($1, $2, \'begins_with\', $3, backward => $4, lim => $5, exclusive_start_key => $6)'
  // the key comes back as an object (jsonb); pg sends an object back as JSON
  const fetch = (tbl, node, prefix, backward, lim) => async (last) =>
    (await client.query({ text: q, values: [tbl, node, prefix, backward, lim, last], rowMode: 'array' })).rows
  const n1 = await pageThrough(fetch(TBL, START, PREFIX, false, LIM), LIM, sks, 'query forward')
  const n2 = await pageThrough(fetch(TBL, START, PREFIX, true, 3), 3, [...sks].reverse(), 'query backward')
  const n3 = await pageThrough(fetch(TBL + '_inverted', PREFIX + TARGET, '', false, 2), 2, srcs, 'query inverted')
  ok(`query(..., exclusive_start_key => last key): forward ${n1}, backward ${n2}, inverted index ${n3} pages, every row once`)
}

async function main () {
  const edges = readEdges(process.argv[2] || '../edges.tsv')
  const client = new pg.Client() // PGHOST, PGPORT, PGUSER, PGDATABASE
  await client.connect()
  try {
    const v = await client.query('SHOW server_version')
    console.log(`# node ${process.version}, pg ${require('pg/package.json').version}, ` +
      `pg-copy-streams ${require('pg-copy-streams/package.json').version}, server ${v.rows[0].server_version}`)
    const adjkeyOid = (await client.query("SELECT 'adjkey'::regtype::oid::int AS oid")).rows[0].oid

    await setup(client, edges)
    await checkTextAndBinary(client, edges, adjkeyOid)
    await checkPaging(client, edges, '', false)
    await checkPaging(client, edges, '_g', true)
    await checkParams(client, edges)
    await checkQueryPaging(client, edges)
    await checkArraysSend(client, edges)
    await checkArraysReceive(client, edges)
    await checkWriteApi(client)
    await checkReverse(client, edges)
    await checkTraverse(client, edges, START, 'out', false)
    await checkTraverse(client, edges, TARGET, 'in', true)
    await checkCopy(client, edges)
  } finally {
    await client.end()
  }
  console.log(`# ${nchecks} checks passed`)
}

main().catch((e) => {
  if (!(e instanceof Fail)) console.error(e)
  console.error(`FAIL: ${e instanceof Fail ? '' : (e.code ? e.code + ' ' : '')}${e.message}`)
  process.exit(1)
})

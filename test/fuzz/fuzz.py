#!/usr/bin/python3
"""Seeded fuzzer of the adjlist extension's ways into the server.

Promised invariant: a stored adjkey is never empty, is valid UTF-8 without
zero bytes, at most 2048 bytes, representable in the database encoding, and
survives pg_dump + restore.  No input may crash the server.

Targets, each run in three databases (UTF8, LATIN1, SQL_ASCII) it creates:

  recv   raw byte strings (random version byte + body) as the binary form of
         adjkey, one binary COPY per value into t(k)
  text   random strings through every text way in: 'lit'::adjkey,
         adjkey(text), text::adjkey, adjkey_in(cstring), CAST(varchar),
         assignment from text, jsonb ->> text, COPY text format; both as
         client-encoding UTF8 strings and as raw bytes in the database
         encoding (so SQL_ASCII and LATIN1 get any byte but NUL)
  funcs  every function of the extension (pg_proc + pg_depend deptype 'e')
         that PUBLIC may execute, with random arguments of the right types,
         run as an unprivileged role; every adjkey / adjkey[] result is
         stored into stored(k) with the call that made it, plus begins_with
         (^@) queries with constant and generic-plan prefixes

After every target batch, per database: the server did not restart and the
connections are alive, the server log has no TRAP / PANIC / "terminated by
signal" line, every key of every adjkey / adjkey[] column of every table
satisfies the invariant (checked here, from adjkey_send bytes), and
pg_dump -Fc | pg_restore and pg_dump | psql reproduce every key byte for byte.

Every finding gets a reproducer; findings are minimised (fewer/shorter
arguments) when possible.  Exit status 1 when anything was found.

Usage (libpq environment: PGHOST, PGPORT, PGUSER = a superuser):
  fuzz.py [--seed N] [--count N] [--dbs utf8,latin1,sqlascii]
          [--server-log FILE] [--out DIR]
"""
import argparse
import collections
import io
import json
import os
import random
import re
import struct
import subprocess
import sys
import time

import psycopg2
import psycopg2.extensions

PGBIN = os.environ.get('PGBIN', '/usr/lib/postgresql/15/bin')
ROLE = 'adjlist_fuzz'
MAX = 2048

DBS = {
    # short name: (encoding, locale, python codec for representability)
    'utf8': ('UTF8', 'C.UTF-8', None),
    'latin1': ('LATIN1', 'C', 'latin-1'),
    'sqlascii': ('SQL_ASCII', 'C', None),
}

# ---------------------------------------------------------------------------
# Interesting material
# ---------------------------------------------------------------------------

ASCII = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 _-.:/@!~|$%&*+=,;'\"`()[]{}<>?"
CTRL = ['\x01', '\x1f', '\x7f', '\t', '\n', '\r']
SNIPPETS = ['#', '#', '#', '\\', '\\#', '\\\\', '##', '\\\\#', '#\\', 'USER#',
            'FOLLOWS#', 'FRIEND#USER#', 'LIKES#POST#', '\\.', "'", '%']
LATIN1_MB = ['é', 'ÿ', '\x80', '\x9f', '\xa0', 'ß', 'Ø', '\xad', 'Ö']
OTHER_MB = ['€', 'Ā', '\u07ff', '\u0800', '中', '\ufffd', '\ufeff', '\ud7ff',
            '\ue000', '\uffff', '😀', '\U00010000', '𝄞', '\U0010ffff']
FOUR_BYTE = ['😀', '\U00010000', '𝄞', '\U0010ffff']
INVALID = [b'\x80', b'\xbf', b'\xc0\x80', b'\xc1\xbf', b'\xe0\x80\x80',
           b'\xe0\x9f\xbf', b'\xf0\x80\x80\x80', b'\xf0\x8f\xbf\xbf',
           b'\xed\xa0\x80', b'\xed\xbf\xbf', b'\xf4\x90\x80\x80',
           b'\xf5\x80\x80\x80', b'\xf8\x88\x80\x80\x80', b'\xfe', b'\xff',
           b'\xe2\x82', b'\xf0\x9f\x98', b'\xc3', b'\x00', b'\x00\x00',
           b'\xc3\x00', b'\xe2\x82\x00']
LENGTHS = [0, 1, 2, 3, 4, 5, 1023, 1024, 1025, 2044, 2045, 2046, 2047, 2048,
           2049, 2050, 2051, 2052, 4096, 8200]
INTS = [0, 1, -1, 2, 3, 5, 6, 100, 255, 256, 257, 1024, 1025, 2048, 2147483647,
        -2147483648]
BIGINTS = INTS + [9223372036854775807, -9223372036854775808, 4294967296]


def u8len(s):
    return len(s.encode('utf-8', 'surrogatepass'))


class Charset:
    """Where random strings draw characters from, for one database."""

    def __init__(self, enc, nonascii_ok):
        self.enc = enc
        if enc == 'LATIN1':
            self.good_mb = LATIN1_MB
            self.bad_mb = OTHER_MB
        elif enc == 'SQL_ASCII' and not nonascii_ok:
            self.good_mb = []
            self.bad_mb = LATIN1_MB + OTHER_MB
        else:
            self.good_mb = LATIN1_MB + OTHER_MB
            self.bad_mb = []
        four = [c for c in self.good_mb if u8len(c) == 4]
        self.straddlers = four or [c for c in self.good_mb if u8len(c) > 1] or ['a']

    def straddler(self, rng, bad_rate=0.1):
        if self.bad_mb and rng.random() < bad_rate:
            return rng.choice(FOUR_BYTE)
        return rng.choice(self.straddlers)

    def piece(self, rng, bad_rate=0.1):
        r = rng.random()
        if r < 0.45:
            return rng.choice(ASCII)
        if r < 0.6:
            return rng.choice(SNIPPETS)
        if r < 0.65:
            return rng.choice(CTRL)
        if self.bad_mb and (not self.good_mb or rng.random() < bad_rate):
            return rng.choice(self.bad_mb)
        if self.good_mb:
            return rng.choice(self.good_mb)
        return rng.choice(ASCII)

    def filler(self, rng, bad_rate=0.1):
        opts = ['a', 'x', '#', '\\', 'Z']
        if self.good_mb:
            opts += [rng.choice(self.good_mb)] * 3
        if self.bad_mb and rng.random() < bad_rate * 3:
            opts = [rng.choice(self.bad_mb)]
        return rng.choice(opts)


def pick_len(rng):
    r = rng.random()
    if r < 0.45:
        return rng.randint(0, 12)
    if r < 0.6:
        return rng.randint(13, 80)
    return rng.choice(LENGTHS)


def truncate_bytes(s, n):
    """s cut to at most n UTF-8 bytes, at a character boundary."""
    return s.encode('utf-8')[:n].decode('utf-8', 'ignore')


def gen_str(rng, cs, bad_rate=0.1, length=None):
    """A random (valid Unicode, NUL-free) string, biased toward key syntax."""
    L = pick_len(rng) if length is None else length
    parts = []
    n = 0
    if L > 40:
        f = cs.filler(rng, bad_rate)
        k = max(0, (L - rng.randint(0, 12)) // u8len(f))
        parts.append(f * k)
        n += k * u8len(f)
    while n < L:
        p = cs.piece(rng, bad_rate)
        parts.append(p)
        n += u8len(p)
    s = ''.join(parts)
    if L > 8 and rng.random() < 0.3:
        # shuffle some structure into a long string: separators, escapes
        for _ in range(rng.randint(1, 4)):
            i = rng.randint(0, len(s))
            s = s[:i] + rng.choice(SNIPPETS) + s[i:]
    mode = rng.random()
    if mode < 0.25 and L >= 4:
        # a multi-byte (4-byte when allowed) character straddling the length L
        c = cs.straddler(rng, bad_rate)
        d = rng.randint(1, max(1, u8len(c) - 1))
        s = truncate_bytes(s, L - d)
        s += 'a' * (L - d - u8len(s)) + c
    elif mode < 0.6:
        # exactly L bytes
        s = truncate_bytes(s, L)
        s += 'a' * (L - u8len(s))
    if rng.random() < 0.1 and s:
        s += rng.choice(['#', '\\', '#\\', '##'])     # trailing separators
    return s


def gen_bytes(rng, cs):
    """A random byte string, about half of them not valid UTF-8."""
    r = rng.random()
    if r < 0.45:
        return gen_str(rng, cs, bad_rate=0.3).encode('utf-8')
    if r < 0.75:
        # a valid string with one or a few bad sequences spliced in
        b = gen_str(rng, cs, bad_rate=0.3).encode('utf-8')
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            i = rng.randint(0, len(b))
            b = b[:i] + rng.choice(INVALID) + b[i:]
        return b
    L = pick_len(rng)
    out = bytearray()
    if L > 40:
        out += rng.choice([b'a', b'\x80', b'\xc3\xa9', b'\xe2\x82\xac']) * (L // 2)
    while len(out) < L or (L == 0 and rng.random() < 0.5 and not out):
        x = rng.random()
        if x < 0.35:
            out += rng.choice(INVALID)
        elif x < 0.5:
            out.append(rng.randrange(256))
        else:
            out += cs.piece(rng, 0.3).encode('utf-8')
        if L == 0:
            break
    if rng.random() < 0.5 and L >= 4:
        out = out[:L]
    return bytes(out)


# ---------------------------------------------------------------------------
# The oracle
# ---------------------------------------------------------------------------

def violation(utf8, enc, nonascii_ok):
    """Why utf8 (the key's bytes) may not be stored, or None."""
    if len(utf8) == 0:
        return 'empty key'
    if len(utf8) > MAX:
        return 'too long (%d bytes)' % len(utf8)
    if b'\x00' in utf8:
        return 'zero byte'
    try:
        s = utf8.decode('utf-8')
    except UnicodeDecodeError:
        return 'invalid UTF-8'
    if enc == 'LATIN1':
        try:
            s.encode('latin-1')
        except UnicodeEncodeError:
            return 'not representable in LATIN1'
    if enc == 'SQL_ASCII' and not nonascii_ok and not s.isascii():
        return 'not representable in SQL_ASCII (ASCII only)'
    return None


def send_violation(send, enc, nonascii_ok):
    """violation() of the bytes adjkey_send() returned."""
    if len(send) < 1 or send[0] != 1:
        return 'adjkey_send gives version byte %r' % send[:1]
    return violation(send[1:], enc, nonascii_ok)


def reason_class(reason):
    return re.sub(r'\(\d+ bytes\)', '(N bytes)', reason or '')


# ---------------------------------------------------------------------------
# Rendering reproducers
# ---------------------------------------------------------------------------

def _printable(c):
    return c.isprintable() and c not in '\x7f'


def sql_lit(s):
    """A SQL expression for the text s, readable: long runs of one character
    as repeat(), characters that do not print as chr() (ASCII) or
    convert_from(bytes, 'UTF8') (other)."""
    out = []
    buf = ''

    def flush():
        nonlocal buf
        if buf:
            out.append("'" + buf.replace("'", "''") + "'")
            buf = ''

    def one(c):
        if c.isascii():
            return 'chr(%d)' % ord(c)
        return "convert_from('\\x%s'::bytea, 'UTF8')" % c.encode('utf-8').hex()

    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        c = s[i]
        if j - i >= 16 or (not _printable(c)):
            flush()
            item = ("'" + c.replace("'", "''") + "'") if _printable(c) else one(c)
            out.append(item if j - i == 1 else 'repeat(%s, %d)' % (item, j - i))
        else:
            buf += s[i:j]
        i = j
    flush()
    if not out:
        return "''"
    if len(out) == 1:
        return out[0]
    return '(' + ' || '.join(out) + ')'


def text_lit(s, enc):
    """A string literal (so that the value goes through the type input
    function): E'' escapes for characters that do not print."""
    if all(_printable(c) for c in s):
        return "'" + s.replace("'", "''") + "'"
    out = ''
    for c in s:
        if c == '\\':
            out += '\\\\'
        elif c == "'":
            out += "''"
        elif _printable(c):
            out += c
        elif c.isascii():
            out += '\\x%02x' % ord(c)
        elif enc != 'SQL_ASCII':
            out += ('\\u%04x' % ord(c)) if ord(c) < 0x10000 else ('\\U%08x' % ord(c))
        else:
            out += c
    return "E'" + out + "'"


def bytes_expr(b):
    """A compact Python expression for the bytes b."""
    parts = []
    i = 0
    buf = b''
    while i < len(b):
        j = i
        while j < len(b) and b[j] == b[i]:
            j += 1
        if j - i >= 12:
            if buf:
                parts.append(repr(buf))
                buf = b''
            parts.append('%r*%d' % (b[i:i + 1], j - i))
        else:
            buf += b[i:j]
        i = j
    if buf or not parts:
        parts.append(repr(buf))
    return '+'.join(parts)


def shell_sql(sql, dbname, client_encoding=None):
    """A shell command running sql: str (client encoding UTF8), or bytes in
    client_encoding."""
    if isinstance(sql, str) and all(_printable(c) or c == '\n' for c in sql):
        if sql.isascii() and '\n' not in sql and not any(c in sql for c in '"$`\\!'):
            return 'psql -X -d %s -c "%s"' % (dbname, sql)
        if not sql.rstrip().endswith(';'):
            sql = sql.rstrip() + ';'
        return "%spsql -X -d %s <<'SQL'\n%s\nSQL" % (
            '' if sql.isascii() else 'PGCLIENTENCODING=UTF8 ', dbname, sql)
    raw = sql if isinstance(sql, bytes) else sql.encode('utf-8')
    client_encoding = client_encoding or 'UTF8'
    pre = ("SET client_encoding = '%s';\n" % client_encoding).encode()
    esc = ''
    for c in pre + raw + b'\n':
        ch = chr(c)
        if 32 <= c < 127 and ch not in "'\\%":
            esc += ch
        elif ch == '%':
            esc += '%%'
        else:
            esc += '\\%03o' % c
    return "printf '%s' | psql -X -d %s" % (esc, dbname)


def copy_binary_stream(payload):
    head = b'PGCOPY\n\xff\r\n\x00' + struct.pack('!ii', 0, 0)
    if payload is None:
        row = struct.pack('!hi', 1, -1)
    else:
        row = struct.pack('!hi', 1, len(payload)) + payload
    return head + row + struct.pack('!h', -1)


def recv_repro(payload, dbname):
    if payload is None:
        return 'binary COPY of a NULL adjkey'
    return ("python3 -c \"import io,struct,psycopg2; p=%s; c=psycopg2.connect(dbname='%s'); "
            "c.cursor().copy_expert('COPY t (k) FROM STDIN (FORMAT binary)', io.BytesIO("
            "b'PGCOPY\\\\n\\\\xff\\\\r\\\\n\\\\0'+bytes(8)+struct.pack('!hi',1,len(p))+p+struct.pack('!h',-1))); "
            "c.commit()\"" % (bytes_expr(payload).replace('"', '\\"'), dbname))


# ---------------------------------------------------------------------------
# Findings
# ---------------------------------------------------------------------------

class Findings:
    def __init__(self):
        self.items = collections.OrderedDict()

    def add(self, db, target, kind, what, repro, detail='', minimize=None):
        """One finding; the same (db, target, kind, what) is counted once,
        keeping the shortest reproducer."""
        key = (db, target, kind, what)
        f = self.items.get(key)
        if f is None:
            self.items[key] = {'db': db, 'target': target, 'kind': kind, 'what': what,
                               'repro': repro, 'detail': detail, 'count': 1,
                               'minimize': minimize}
            print('  FINDING [%s %s] %s: %s' % (db, target, kind, what), flush=True)
        else:
            f['count'] += 1
            if len(repro) < len(f['repro']):
                f['repro'] = repro
                f['detail'] = detail
                f['minimize'] = minimize

    def __len__(self):
        return len(self.items)


# ---------------------------------------------------------------------------
# Database helpers
# ---------------------------------------------------------------------------

class Lost(Exception):
    """The connection died: the server probably crashed."""


def connect(dbname, client_encoding='UTF8', as_role=False, timeout='15s'):
    c = psycopg2.connect(dbname=dbname, application_name='adjlist-fuzz')
    c.autocommit = True
    c.set_client_encoding(client_encoding)
    cur = c.cursor()
    cur.execute("SET statement_timeout = %s; SET lock_timeout = '5s'", (timeout,))
    if as_role:
        cur.execute('SET SESSION AUTHORIZATION %s' % ROLE)
    return c


class Result:
    __slots__ = ('ok', 'rows', 'state', 'msg')

    def __init__(self, ok, rows=None, state=None, msg=None):
        self.ok, self.rows, self.state, self.msg = ok, rows, state, msg


def run_sql(conn, sql, fetch=True, copy=None):
    """Run one statement; errors come back as a Result, a lost connection
    raises Lost."""
    try:
        cur = conn.cursor()
        if copy is not None:
            cur.copy_expert(sql, io.BytesIO(copy))
            return Result(True, [])
        cur.execute(sql)
        rows = cur.fetchall() if (fetch and cur.description is not None) else []
        return Result(True, rows)
    except psycopg2.Error as e:
        state = getattr(e, 'pgcode', None)
        if conn.closed or isinstance(e, (psycopg2.OperationalError, psycopg2.InterfaceError)) and state is None:
            raise Lost(str(e).strip())
        msg = (getattr(e, 'pgerror', None) or str(e) or '').strip()
        if state is None:
            state = 'client:' + type(e).__name__
        return Result(False, None, state, msg)
    except (UnicodeError, ValueError) as e:
        # client-side: a result the client cannot decode, NUL in a string
        return Result(False, None, 'client:' + type(e).__name__, str(e))


def wait_for_server(dbname, seconds=90):
    """Wait until the server takes connections again (after a crash it
    first kills every backend, then recovers)."""
    time.sleep(1)
    t0 = time.time()
    while time.time() - t0 < seconds:
        try:
            c = psycopg2.connect(dbname=dbname)
            c.cursor().execute('SELECT 1')
            c.close()
            return True
        except psycopg2.Error:
            time.sleep(0.5)
    return False


# SQL objects the checks need, made by the superuser in schema fuzz.
HELPERS = r"""
CREATE SCHEMA fuzz;
GRANT USAGE ON SCHEMA fuzz TO {role};
-- why a stored key breaks the invariant, or NULL (same rules as fuzz.py,
-- for attributing a bad key to the statement that stored it)
CREATE FUNCTION fuzz.bad_reason(k adjkey) RETURNS text
	LANGUAGE plpgsql SET search_path = public, pg_catalog AS $$
DECLARE
	b bytea;
	r bytea;
BEGIN
	IF k IS NULL THEN RETURN NULL; END IF;
	b := adjkey_send(k);
	IF get_byte(b, 0) <> 1 THEN RETURN 'adjkey_send gives a bad version byte'; END IF;
	IF octet_length(b) < 2 THEN RETURN 'empty key'; END IF;
	IF octet_length(b) > {max1} THEN RETURN format('too long (%s bytes)', octet_length(b) - 1); END IF;
	IF position('\x00'::bytea IN substr(b, 2)) > 0 THEN RETURN 'zero byte'; END IF;
	BEGIN
		PERFORM convert_from(substr(b, 2), 'UTF8');
	EXCEPTION WHEN others THEN
		IF SQLSTATE = '22021' THEN RETURN 'invalid UTF-8'; END IF;
		RETURN 'not representable in ' || current_setting('server_encoding');
	END;
	{ascii_check}
	BEGIN
		r := adjkey_send(adjkey_in(adjkey_out(k)));
		IF r IS DISTINCT FROM b THEN RETURN 'text output + input changes the key'; END IF;
	EXCEPTION WHEN others THEN
		RETURN 'text output + input fails: ' || SQLSTATE;
	END;
	RETURN NULL;
END $$;
-- the bad keys written since transaction id x, in every adjkey column
CREATE FUNCTION fuzz.new_bad(x bigint)
	RETURNS TABLE (tbl text, col text, hex text, reason text)
	LANGUAGE plpgsql SET search_path = public, pg_catalog AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT c.oid::regclass AS rel, a.attname, a.atttypid = 'adjkey'::regtype AS scalar
			   FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			   JOIN pg_namespace n ON n.oid = c.relnamespace
			  WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
				AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'fuzz')
				AND a.atttypid IN ('adjkey'::regtype, 'adjkey[]'::regtype)
	LOOP
		RETURN QUERY EXECUTE format(
			'SELECT %L::text, %L::text, encode(adjkey_send(v), ''hex''), fuzz.bad_reason(v)
			   FROM (SELECT %s FROM %s WHERE xmin::text::bigint >= $1) s(v)
			  WHERE fuzz.bad_reason(v) IS NOT NULL',
			r.rel::text, r.attname,
			CASE WHEN r.scalar THEN quote_ident(r.attname) ELSE 'unnest(' || quote_ident(r.attname) || ')' END,
			r.rel) USING x;
	END LOOP;
END $$;
"""

# adjkey / adjkey[] columns of every user table
KEY_COLUMNS_SQL = """
SELECT c.oid::regclass::text, quote_ident(a.attname), a.atttypid = 'adjkey'::regtype
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
   AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'fuzz')
   AND a.atttypid IN ('adjkey'::regtype, 'adjkey[]'::regtype)
 ORDER BY 1, 2
"""

GRAPH_TABLES = [
    # table, create_inverted_index options
    ('g', ''),
    ('gc', ', counters => 4'),
    ('gw', ', write_shards => 4'),
    ('ga', ", mode => 'api'"),
]


def fixture_rows(enc, nonascii_ok):
    """The graph every database gets: deterministic, so that reproducers can
    rely on it; includes edge cases of key shapes and lengths."""
    rng = random.Random(4711)
    users = ['alice', 'bob', 'carol', 'dave', 'eve', 'frank', 'a', 'b', 'a\\#b',
             'x#y', 'Zoë', 'ÿ', 'naïve']
    if enc != 'LATIN1' and (enc != 'SQL_ASCII' or nonascii_ok):
        users += ['€uro', '中文', '😀', '\U0010ffff', '\U0010ffff\U0010ffff']
    if enc == 'SQL_ASCII' and not nonascii_ok:
        users = [u for u in users if u.isascii()]
    rows = []
    for u in users:
        rows.append(('USER#' + u, 'PROFILE', '{"name": %s}' % json.dumps(u)))
    for _ in range(120):
        a, b = rng.choice(users), rng.choice(users)
        e = rng.choice(['FOLLOWS', 'FRIEND', 'FRIEND', 'LIKES', 'TAGGED'])
        tgt = ('USER#' + b) if e in ('FOLLOWS', 'FRIEND') else rng.choice(['POST#1', 'POST#2', 'TAG#x'])
        src = ('USER#' + a) if e != 'TAGGED' else rng.choice(['POST#1', 'POST#2', 'POST#3'])
        rows.append((src, e + '#' + tgt, None))
    long_ch = 'é' if enc != 'SQL_ASCII' or nonascii_ok else 'e'
    rows += [
        ('USER#alice', 'FOLLOWS#', None),                      # the edge prefix alone
        ('USER#alice', 'FOLLOWS#' + 'x' * (MAX - 8), None),    # 2048 bytes
        ('USER#alice', 'FRIEND#USER#' + 'y' * (MAX - 12), None),
        ('USER#' + 'z' * (MAX - 5), 'FOLLOWS#USER#alice', None),
        ('USER#bob', 'FOLLOWS#USER#' + long_ch * ((MAX - 13) // len(long_ch.encode()))
         , None),
        ('X#', 'Y#', None),                                    # trailing separators
        ('#', '#', None),
        ('\\', '\\#', None),
        ('USER#alice', 'FOLLOWS#USER#', None),
        ('USER#alice', 'FOLLOWS##', None),
        ('USER#bob', 'FOLLOWS#USER#alice', '{"since": 2020}'),
        ('USER#carol', 'FOLLOWS#USER#alice', None),
    ]
    out = []
    seen = set()
    for r in rows:
        if (r[0], r[1]) in seen:
            continue
        if violation(r[0].encode(), enc, nonascii_ok) or violation(r[1].encode(), enc, nonascii_ok):
            continue
        seen.add((r[0], r[1]))
        out.append(r)
    return out


def fixture_sql(enc, nonascii_ok):
    lines = ['SET client_encoding = UTF8;',
             'SET SESSION AUTHORIZATION %s;' % ROLE,
             'CREATE TABLE t (k adjkey);',
             'CREATE TABLE stored (id bigserial PRIMARY KEY, k adjkey, call integer);']
    for tbl, opts in GRAPH_TABLES:
        lines.append('CREATE TABLE %s (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));' % tbl)
        lines.append("SELECT create_inverted_index('%s'%s);" % (tbl, opts))
    rows = fixture_rows(enc, nonascii_ok)
    for tbl, _ in GRAPH_TABLES:
        for pk, sk, data in rows:
            lines.append('INSERT INTO %s VALUES (%s, %s, %s) ON CONFLICT DO NOTHING;' % (
                tbl, sql_lit(pk), sql_lit(sk), sql_lit(data) if data else 'NULL'))
    lines.append('ANALYZE;')
    lines.append('RESET SESSION AUTHORIZATION;')
    return '\n'.join(lines) + '\n'


# ---------------------------------------------------------------------------
# The fuzzer of one database
# ---------------------------------------------------------------------------

class DBFuzzer:
    def __init__(self, short, args, findings, log):
        self.short = short
        self.enc, self.locale, _ = DBS[short]
        self.dbname = 'adjfuzz_' + short
        self.args = args
        self.F = findings
        self.log = log
        self.states = collections.defaultdict(collections.Counter)
        self.ncases = collections.Counter()
        self.call_sql = {}          # call number -> SQL (stored.call)
        self.ncall = 0
        self.produced = []          # keys (str) functions returned
        self.funcs = []
        self.nonascii_ok = True
        self.explained = set()      # adjkey_send hex of bad keys already reported
        self.error_samples = {}     # (target, SQLSTATE, message) -> first statement

    # -- connections --------------------------------------------------------

    def open(self):
        for attempt in range(60):
            try:
                return self._open()
            except psycopg2.OperationalError:
                time.sleep(1)
        raise SystemExit('cannot connect to %s any more' % self.dbname)

    def _open(self):
        self.admin = connect(self.dbname)
        self.fz = connect(self.dbname, as_role=True)
        raw_enc = 'UTF8' if self.enc == 'UTF8' else self.enc
        self.raw = connect(self.dbname, client_encoding=raw_enc, as_role=True)
        self.start_time = run_sql(self.admin, 'SELECT pg_postmaster_start_time()::text').rows[0][0]
        self.pids = {}
        for name in ('admin', 'fz', 'raw'):
            self.pids[name] = getattr(self, name).get_backend_pid()

    def close(self):
        for name in ('admin', 'fz', 'raw'):
            try:
                getattr(self, name).close()
            except Exception:
                pass

    def lost(self, target, sql, err, repro=None):
        """A connection died while running sql."""
        self.F.add(self.enc, target, 'server crash / connection lost',
                   'connection lost: %s' % err.split('\n')[0],
                   repro or shell_sql(sql, self.dbname), detail=err)
        self.close()
        if not wait_for_server(self.dbname):
            print('server did not come back', file=sys.stderr)
            sys.exit(3)
        self.open()

    def run(self, target, conn, sql, fetch=True, copy=None, repro=None, count=True):
        """run_sql + SQLSTATE accounting + internal-error findings."""
        try:
            r = run_sql(conn, sql, fetch=fetch, copy=copy)
        except Lost as e:
            self.lost(target, sql, str(e), repro)
            return Result(False, None, 'lost', str(e))
        if count:
            self.states[target]['ok' if r.ok else r.state] += 1
            if not r.ok:
                key = (target, r.state, norm_msg(r.msg)[:60])
                if key not in self.error_samples:
                    self.error_samples[key] = sql if isinstance(sql, str) else sql.decode('utf-8', 'replace')
        if not r.ok and (r.state.startswith('XX') or r.state.startswith('58')):
            self.F.add(self.enc, target, 'internal error %s' % r.state,
                       norm_msg(r.msg), repro or shell_sql(sql, self.dbname), detail=r.msg)
        elif not r.ok and r.state in ('57014', '53200', '54001', '53100'):
            self.F.add(self.enc, target, 'resource error %s' % r.state,
                       norm_msg(r.msg), repro or shell_sql(sql, self.dbname), detail=r.msg)
        return r

    # -- setup --------------------------------------------------------------

    def setup(self):
        adm = connect('postgres')
        cur = adm.cursor()
        for suffix in ('', '_r', '_p'):
            cur.execute('DROP DATABASE IF EXISTS %s WITH (FORCE)' % (self.dbname + suffix))
        cur.execute("""DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '%s') THEN
                CREATE ROLE %s LOGIN;
            END IF; END $$""" % (ROLE, ROLE))
        cur.execute("CREATE DATABASE %s ENCODING '%s' LC_COLLATE '%s' LC_CTYPE '%s' TEMPLATE template0"
                    % (self.dbname, self.enc, self.locale, self.locale))
        adm.close()
        c = connect(self.dbname)
        cur = c.cursor()
        cur.execute('CREATE EXTENSION adjlist')
        cur.execute('GRANT CREATE ON SCHEMA public TO %s' % ROLE)
        # does text input take non-ASCII characters in this database?  (In
        # SQL_ASCII that decides what "representable" means.)
        r = run_sql(c, "SELECT 'é'::adjkey")
        self.nonascii_ok = r.ok
        if self.enc == 'SQL_ASCII' and self.args.sql_ascii != 'probe':
            self.nonascii_ok = self.args.sql_ascii == 'utf8'
        self.charset = Charset(self.enc, self.nonascii_ok)
        ascii_check = '' if self.nonascii_ok else (
            "IF convert_from(substr(b, 2), 'UTF8') ~ '[^[:ascii:]]' THEN "
            "RETURN 'not representable in SQL_ASCII (ASCII only)'; END IF;")
        cur.execute(HELPERS.format(role=ROLE, max1=MAX + 1, ascii_check=ascii_check))
        self.fixture = fixture_sql(self.enc, self.nonascii_ok)
        path = os.path.join(self.args.out, 'fixture_%s.sql' % self.short)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(self.fixture)
        for stmt in self.fixture.split(';\n'):
            if stmt.strip():
                r = run_sql(c, stmt)
                if not r.ok and not stmt.startswith('INSERT'):
                    raise SystemExit('fixture failed: %s\n%s' % (stmt, r.msg))
        c.close()
        self.open()
        self.load_functions()
        self.log_pos = self.log.size()

    def load_functions(self):
        rows = run_sql(self.admin, """
            SELECT p.oid::regprocedure::text, quote_ident(n.nspname) || '.' || quote_ident(p.proname),
                   p.proname, p.prokind, p.proretset, p.prorettype::regtype::text,
                   coalesce(p.proargtypes::regtype[]::text[], '{}'),
                   coalesce(p.proallargtypes::regtype[]::text[], p.proargtypes::regtype[]::text[]),
                   coalesce(p.proargmodes::text[], '{}'), coalesce(p.proargnames, '{}'),
                   p.pronargs, p.pronargdefaults, p.provariadic <> 0, p.provolatile,
                   has_function_privilege('public', p.oid, 'EXECUTE')
              FROM pg_proc p
              JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
              JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
              JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE e.extname = 'adjlist'
             ORDER BY 1""").rows
        self.funcs = []
        self.skipped = []
        for (sig, qname, name, kind, retset, rettype, argtypes, allargtypes, modes, names,
             nargs, ndefaults, variadic, volatile, public) in rows:
            inargs = list(argtypes)
            if modes:
                innames = [nm for nm, md in zip(names, modes) if md in ('i', 'b', 'v')]
                outcols = [(nm, ty) for nm, ty, md in zip(names, allargtypes, modes)
                           if md in ('o', 't', 'b')]
            else:
                innames = list(names[:nargs]) if names else []
                outcols = []
            innames += [''] * (len(inargs) - len(innames))
            why = None
            if not public:
                why = 'not executable by PUBLIC'
            elif any(t in ('internal', '"any"', 'anyelement') for t in inargs):
                why = 'takes internal'
            elif rettype in ('trigger', 'event_trigger', 'internal'):
                why = 'returns %s' % rettype
            if why:
                self.skipped.append((sig, why))
                continue
            self.funcs.append({
                'sig': sig, 'qname': qname, 'name': name, 'kind': kind, 'retset': retset,
                'rettype': rettype, 'args': list(zip(innames, inargs)), 'outcols': outcols,
                'ndefaults': ndefaults, 'variadic': variadic, 'volatile': volatile == 'v'})
        for f in self.funcs:
            types = [t for _, t in f['args']]
            w = 1.0
            if 'regclass' in types and 'adjkey' in types:
                w += 3                      # graph functions: most code
            if f['rettype'] in ('adjkey', 'adjkey[]') or any(t in ('adjkey', 'adjkey[]') for _, t in f['outcols']):
                w += 2                      # they make keys
            if f['name'] in ('create_inverted_index', 'drop_inverted_index', 'rebuild_inverted_index',
                             'adjlist_install_triggers'):
                w = 0.3
            f['weight'] = w
        self.key_makers = [f for f in self.funcs if f['rettype'] == 'adjkey' and not f['retset']
                           and f['kind'] == 'f' and not f['volatile']]

    # -- checks after a batch -------------------------------------------------

    def check(self, target):
        t0 = time.time()
        # 1. the server did not restart, the connections are alive
        try:
            st = run_sql(self.admin, 'SELECT pg_postmaster_start_time()::text').rows[0][0]
            if st != self.start_time:
                self.F.add(self.enc, target, 'server restart',
                           'pg_postmaster_start_time changed', 'see server log')
                self.start_time = st
        except (Lost, Exception) as e:
            self.F.add(self.enc, target, 'server crash / connection lost',
                       'admin connection dead after batch', 'see server log', detail=str(e))
            self.close()
            wait_for_server(self.dbname)
            self.open()
        for name in ('fz', 'raw'):
            conn = getattr(self, name)
            try:
                run_sql(conn, 'SELECT 1')
                if conn.get_backend_pid() != self.pids[name]:
                    raise Lost('backend pid changed')
            except Lost as e:
                self.F.add(self.enc, target, 'server crash / connection lost',
                           'connection %s dead after batch' % name, 'see server log', detail=str(e))
                self.close()
                wait_for_server(self.dbname)
                self.open()
                break
        # 2. the server log
        for line in self.log.new_lines(self):
            self.F.add(self.enc, target, 'server log', re.sub(r'\d+', 'N', line)[:160],
                       'see server log', detail=line)
        # 3. the invariant, from adjkey_send bytes, in every adjkey column
        bad = self.scan_keys(self.admin)
        for (rel, col), keys in bad[1].items():
            for hexkey, reason, call in keys:
                if hexkey in self.explained:
                    continue
                repro = self.call_sql.get(call) if call is not None else None
                self.F.add(self.enc, target, 'bad stored key',
                           '%s in %s.%s' % (reason_class(reason), rel, col),
                           repro or ('key 0x%s in table %s (source not recorded)' % (hexkey[:80], rel)),
                           detail='adjkey_send = %s' % hexkey[:200])
        # 4. dump + restore
        self.dump_check(target, bad[0])
        # 5. remove the bad keys so that the next batch's dump check is its own
        self.purge(bad[1])
        print('  [%s] checks after %s: %.1fs' % (self.enc, target, time.time() - t0), flush=True)

    def scan_keys(self, conn, db_for_scan=None):
        """Every key of every adjkey column: ({(rel, col): sorted hex list},
        {(rel, col): [(hex, reason, call)]})."""
        allkeys = {}
        bad = collections.defaultdict(list)
        cols = run_sql(conn, KEY_COLUMNS_SQL)
        for rel, col, scalar in (cols.rows or []):
            expr = col if scalar else 'unnest(%s)' % col
            callcol = 'call' if (rel == 'stored' and scalar) else 'NULL::int'
            r = run_sql(conn, "SELECT encode(adjkey_send(v), 'hex'), c FROM (SELECT %s, %s FROM %s) s(v, c) "
                              "WHERE v IS NOT NULL" % (expr, callcol, rel))
            if not r.ok:
                self.F.add(self.enc, 'check', 'scan failed', '%s.%s: %s' % (rel, col, norm_msg(r.msg)),
                           'SELECT adjkey_send(%s) FROM %s' % (col, rel), detail=r.msg)
                continue
            keys = []
            for hexkey, call in r.rows:
                keys.append(hexkey)
                why = send_violation(bytes.fromhex(hexkey), self.enc, self.nonascii_ok)
                if why:
                    bad[(rel, col)].append((hexkey, why, call))
            allkeys[(rel, col)] = sorted(keys)
        return allkeys, bad

    def dump_check(self, target, before):
        out = self.args.out
        env = dict(os.environ)
        fc = os.path.join(out, '%s_%s.dump' % (self.dbname, target))
        for suffix, mode in (('_r', 'custom'), ('_p', 'plain')):
            rdb = self.dbname + suffix
            adm = connect('postgres')
            run_sql(adm, 'DROP DATABASE IF EXISTS %s WITH (FORCE)' % rdb)
            run_sql(adm, "CREATE DATABASE %s ENCODING '%s' LC_COLLATE '%s' LC_CTYPE '%s' TEMPLATE template0"
                    % (rdb, self.enc, self.locale, self.locale))
            adm.close()
            if mode == 'custom':
                p = subprocess.run([os.path.join(PGBIN, 'pg_dump'), '-Fc', '-d', self.dbname, '-f', fc],
                                   capture_output=True, env=env)
                if p.returncode != 0:
                    self.F.add(self.enc, target, 'pg_dump fails', dump_err(p.stderr),
                               'pg_dump -Fc -d %s >/dev/null' % self.dbname,
                               detail=p.stderr.decode('utf-8', 'replace')[:2000])
                    return
                p = subprocess.run([os.path.join(PGBIN, 'pg_restore'), '-d', rdb, fc],
                                   capture_output=True, env=env)
                errs = p.stderr.decode('utf-8', 'replace')
                if p.returncode != 0:
                    self.F.add(self.enc, target, 'pg_restore fails', dump_err(p.stderr),
                               'pg_dump -Fc -d %s -f x.dump && createdb -E %s --locale=%s -T template0 %s '
                               '&& pg_restore -d %s x.dump' % (self.dbname, self.enc, self.locale, rdb, rdb),
                               detail=errs[:3000])
            else:
                dump = subprocess.run([os.path.join(PGBIN, 'pg_dump'), '-d', self.dbname],
                                      capture_output=True, env=env)
                if dump.returncode != 0:
                    self.F.add(self.enc, target, 'pg_dump (plain) fails', dump_err(dump.stderr),
                               'pg_dump -d %s >/dev/null' % self.dbname,
                               detail=dump.stderr.decode('utf-8', 'replace')[:2000])
                    return
                p = subprocess.run([os.path.join(PGBIN, 'psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=0',
                                    '-d', rdb], input=dump.stdout, capture_output=True, env=env)
                errs = [l for l in p.stderr.decode('utf-8', 'replace').splitlines() if 'ERROR' in l]
                if errs or p.returncode != 0:
                    self.F.add(self.enc, target, 'plain restore fails', dump_err(errs[0].encode() if errs else p.stderr),
                               'pg_dump -d %s | psql -X -d %s  (a fresh %s database)' % (self.dbname, rdb, self.enc),
                               detail='\n'.join(errs[:20]))
            c = connect(rdb)
            try:
                after, _ = self.scan_keys(c)
            finally:
                c.close()
            diffs = []
            for rc in sorted(set(before) | set(after)):
                a, b = before.get(rc, []), after.get(rc, [])
                if a != b:
                    ca, cb = collections.Counter(a), collections.Counter(b)
                    lost = list((ca - cb).elements())
                    extra = list((cb - ca).elements())
                    nvalid = sum(1 for x in lost if not send_violation(bytes.fromhex(x), self.enc, self.nonascii_ok))
                    diffs.append('%s.%s: %d keys lost (%d of them valid: collateral of a failed COPY), %d new%s' % (
                        rc[0], rc[1], len(lost), nvalid, len(extra),
                        ('; e.g. lost %s' % lost[0][:60]) if lost else ('; e.g. new %s' % extra[0][:60])))
            if diffs:
                self.F.add(self.enc, target, 'dump/restore loses or changes keys (%s)' % mode,
                           'keys differ after restore',
                           'pg_dump%s -d %s | restore into a fresh %s database; compare the keys'
                           % (' -Fc' if mode == 'custom' else '', self.dbname, self.enc),
                           detail='\n'.join(diffs))

    def purge(self, bad):
        if not bad:
            return
        run_sql(self.admin, "SET session_replication_role = replica")
        for (rel, col), keys in bad.items():
            scalar = True
            r = run_sql(self.admin, "SELECT atttypid = 'adjkey'::regtype FROM pg_attribute "
                                    "WHERE attrelid = '%s'::regclass AND quote_ident(attname) = '%s'" % (rel, col))
            if r.ok and r.rows:
                scalar = r.rows[0][0]
            for hexkey, _, _ in keys:
                if scalar:
                    cond = "encode(adjkey_send(%s), 'hex') = '%s'" % (col, hexkey)
                else:
                    cond = "EXISTS (SELECT 1 FROM unnest(%s) u WHERE encode(adjkey_send(u), 'hex') = '%s')" % (col, hexkey)
                run_sql(self.admin, 'DELETE FROM %s WHERE %s' % (rel, cond))
        run_sql(self.admin, "RESET session_replication_role")

    # -- target: binary receive -----------------------------------------------

    def recv_once(self, payload, target='recv', in_xact=False):
        """COPY one value; (accepted, stored send bytes, Result)."""
        conn = self.fz
        if in_xact:
            run_sql(conn, 'BEGIN')
        r = self.run(target, conn, 'COPY t (k) FROM STDIN (FORMAT binary)', copy=copy_binary_stream(payload),
                     repro=recv_repro(payload, self.dbname), count=not in_xact)
        if in_xact:
            run_sql(conn, 'ROLLBACK')
        return r

    def target_recv(self, n):
        rng = random.Random('%s/recv/%s' % (self.args.seed, self.short))
        bytes_cs = Charset('UTF8', True)
        for i in range(n):
            cs = self.charset if rng.random() < 0.5 else bytes_cs
            if rng.random() < 0.03:
                payload = b''
            else:
                ver = 1 if rng.random() < 0.88 else rng.choice([0, 2, 0x7f, 0x80, 0xff, rng.randrange(256)])
                payload = bytes([ver]) + gen_bytes(rng, cs)
            self.ncases['recv'] += 1
            r = self.recv_once(payload)
            if r.state == 'lost':
                continue
            expect = (payload[:1] == b'\x01') and violation(payload[1:], self.enc, self.nonascii_ok) is None
            if r.ok and not expect:
                why = 'bad version byte %r' % payload[:1] if payload[:1] != b'\x01' else \
                    violation(payload[1:], self.enc, self.nonascii_ok)
                self.explained.add(payload.hex())
                self.F.add(self.enc, 'recv', 'binary receive accepts a bad key', reason_class(why),
                           recv_repro(payload, self.dbname), detail='payload %s' % bytes_expr(payload)[:300],
                           minimize=('recv', payload, reason_class(why)))
            elif not r.ok and expect:
                self.F.add(self.enc, 'recv', 'binary receive rejects a valid key',
                           '%s %s' % (r.state, norm_msg(r.msg)), recv_repro(payload, self.dbname),
                           detail=r.msg, minimize=('recv-rej', payload, r.state))
        # NULL is fine too
        self.recv_once(None)

    # -- target: text input ------------------------------------------------------

    TEXT_FORMS = [
        "INSERT INTO stored (k, call) VALUES ({lit}::adjkey, {n}) RETURNING encode(adjkey_send(k), 'hex')",
        "INSERT INTO stored (k, call) VALUES (adjkey({lit}::text), {n}) RETURNING encode(adjkey_send(k), 'hex')",
        "INSERT INTO stored (k, call) VALUES ({lit}::text::adjkey, {n}) RETURNING encode(adjkey_send(k), 'hex')",
        "INSERT INTO stored (k, call) VALUES (adjkey_in({lit}::cstring), {n}) RETURNING encode(adjkey_send(k), 'hex')",
        "INSERT INTO stored (k, call) VALUES (CAST({lit}::varchar AS adjkey), {n}) RETURNING encode(adjkey_send(k), 'hex')",
        "INSERT INTO stored (k, call) VALUES ({lit}::text, {n}) RETURNING encode(adjkey_send(k), 'hex')",
        "INSERT INTO stored (k, call) SELECT (jsonb_build_object('k', {lit}::text) ->> 'k')::adjkey, {n} "
        "RETURNING encode(adjkey_send(k), 'hex')",
        "COPY",
    ]

    def text_once(self, s, raw, form, n, count=True):
        """One text input case.  s: str (client encoding UTF8) or bytes (raw,
        in the database encoding).  Returns (Result, sql-or-bytes, hex)."""
        conn = self.raw if raw else self.fz
        if form == 'COPY':
            if raw:
                data = s.replace(b'\\', b'\\\\').replace(b'\n', b'\\n').replace(b'\r', b'\\r').replace(b'\t', b'\\t')
                data += b'\t%d\n' % n
            else:
                data = (s.replace('\\', '\\\\').replace('\n', '\\n').replace('\r', '\\r').replace('\t', '\\t')
                        + '\t%d\n' % n).encode('utf-8')
            sql = 'COPY stored (k, call) FROM STDIN'
            repro_sql = (b'COPY stored (k, call) FROM STDIN;\n' + data + b'\\.\n')
            r = self.run('text', conn, sql, copy=data, count=count,
                         repro=shell_sql(repro_sql, self.dbname, self.enc if raw else 'UTF8'))
            if r.ok:
                rr = run_sql(conn, "SELECT encode(adjkey_send(k), 'hex') FROM stored WHERE call = %d" % n)
                r.rows = rr.rows
            return r, repro_sql
        tmpl = self.TEXT_FORMS[form]
        if raw:
            lit = b"'" + s.replace(b"'", b"''") + b"'"
            sql = tmpl.replace('{n}', str(n)).encode('ascii').replace(b'{lit}', lit)
            repro = shell_sql(sql, self.dbname, self.enc)
        else:
            sql = tmpl.replace('{n}', str(n)).replace('{lit}', text_lit(s, self.enc))
            repro = shell_sql(sql, self.dbname)
        r = self.run('text', conn, sql, count=count, repro=repro)
        return r, sql

    def expected_text(self, s, raw):
        """(utf8 bytes the key should have, or None when the input is not a
        valid string in the client encoding; violation or None)."""
        if not raw:
            b = s.encode('utf-8')
            return b, violation(b, self.enc, self.nonascii_ok)
        if self.enc == 'LATIN1':
            b = s.decode('latin-1').encode('utf-8')
            return b, violation(b, self.enc, self.nonascii_ok)
        # UTF8 and SQL_ASCII: the bytes are the key's bytes, if UTF-8
        return s, violation(s, self.enc, self.nonascii_ok)

    def gen_text_case(self, rng):
        raw = rng.random() < 0.4
        if not raw:
            s = gen_str(rng, self.charset, bad_rate=0.1)
        elif self.enc == 'LATIN1':
            if rng.random() < 0.5:
                s = gen_str(rng, Charset('LATIN1', True), bad_rate=0).encode('latin-1')
            else:
                s = bytes(rng.randrange(1, 256) for _ in range(pick_len(rng)))
        else:
            s = gen_bytes(rng, Charset('UTF8', True)).replace(b'\x00', b'')
        form = rng.choice(range(len(self.TEXT_FORMS)))
        if self.TEXT_FORMS[form] == 'COPY':
            form = 'COPY'
        return s, raw, form

    def check_text_result(self, s, raw, form, r, sqlrepr, n):
        if r.state == 'lost':
            return
        want, why = self.expected_text(s, raw)
        repro = shell_sql(sqlrepr, self.dbname, self.enc if raw else 'UTF8')
        formname = form if form == 'COPY' else re.sub(r'\s+RETURNING.*', '', self.TEXT_FORMS[form])
        mini = ('text', s, raw, form)
        if r.ok:
            got = bytes.fromhex(r.rows[0][0])[1:] if r.rows else None
            self.call_sql[n] = repro
            if why:
                if got is not None:
                    self.explained.add(r.rows[0][0])
                self.F.add(self.enc, 'text', 'text input accepts a bad key', '%s via %s' % (reason_class(why), formname),
                           repro, minimize=mini + (reason_class(why),))
            elif got != want:
                self.F.add(self.enc, 'text', 'text input stores other bytes', 'via %s' % formname, repro,
                           detail='want %s got %s' % (want.hex()[:100], (got or b'').hex()[:100]))
        elif not why:
            self.F.add(self.enc, 'text', 'text input rejects a valid key',
                       '%s %s via %s' % (r.state, norm_msg(r.msg), formname), repro, detail=r.msg)

    def target_text(self, n):
        rng = random.Random('%s/text/%s' % (self.args.seed, self.short))
        for i in range(n):
            s, raw, form = self.gen_text_case(rng)
            self.ncases['text'] += 1
            self.ncall += 1
            r, sqlrepr = self.text_once(s, raw, form, self.ncall)
            self.check_text_result(s, raw, form, r, sqlrepr, self.ncall)

    # -- target: functions ---------------------------------------------------

    def fixture_keys(self):
        if not hasattr(self, '_fixkeys'):
            rows = fixture_rows(self.enc, self.nonascii_ok)
            ks = set()
            for pk, sk, _ in rows:
                ks.add(pk)
                ks.add(sk)
                if sk.startswith('FOLLOWS#') or sk.startswith('FRIEND#'):
                    ks.add(sk.split('#', 1)[1])
            self._fixkeys = sorted(ks)
        return self._fixkeys

    def fixture_nodes(self):
        if not hasattr(self, '_fixnodes'):
            self._fixnodes = sorted({pk for pk, _, _ in fixture_rows(self.enc, self.nonascii_ok)})
        return self._fixnodes

    def special_keys(self):
        """Valid keys at the edges of the successor and length rules."""
        if not hasattr(self, '_special'):
            cands = ['\U0010ffff', '\U0010ffff' * 3, 'a\U0010ffff', 'ÿ', 'USER#ÿ', '\x7f', 'a' * (MAX - 1) + '\x7f',
                     'a' * (MAX - 1) + 'ÿ', 'a' * (MAX - 3) + '\uffff', 'a' * (MAX - 3) + '\ud7ff',
                     'a' * (MAX - 4) + '\U0010ffff', '\U0010ffff' * (MAX // 4), 'a' * MAX, '#' * MAX,
                     '\\' * MAX, 'é' * (MAX // 2), '#', '\\', '\\#', 'a#', '#a', '##', 'USER#', '\uffff', '\ud7ff',
                     'FOLLOWS#', 'FOLLOWS#' + 'x' * (MAX - 8), 'FOLLOWS#USER#\U0010ffff']
            self._special = [c for c in cands if not violation(c.encode(), self.enc, self.nonascii_ok)]
        return self._special

    def valid_key(self, rng):
        for _ in range(20):
            s = gen_str(rng, self.charset, bad_rate=0)
            if not violation(s.encode('utf-8'), self.enc, self.nonascii_ok):
                return s
        return 'USER#alice'

    def gen_key_arg(self, rng, depth=0):
        r = rng.random()
        if r < 0.4:
            return Arg.lit(rng.choice(self.fixture_keys()), 'adjkey')
        if r < 0.5:
            return Arg.lit(rng.choice(self.special_keys()), 'adjkey')
        if r < 0.65:
            return Arg.lit(self.valid_key(rng), 'adjkey')
        if r < 0.8 and self.produced:
            return Arg.lit(rng.choice(self.produced), 'adjkey')
        if r < 0.95 and depth < 2 and self.key_makers:
            f = rng.choice(self.key_makers)
            return self.gen_call(rng, f, depth + 1)
        return Arg.lit(gen_str(rng, self.charset), 'text::adjkey')

    def gen_text(self, rng, name):
        name = name or ''
        r = rng.random()
        if name in ('direction',) and r < 0.8:
            return rng.choice(['out', 'in', 'both'])
        if name == 'format' and r < 0.8:
            return rng.choice(['dot', 'mermaid'])
        if name == 'mode' and r < 0.8:
            return rng.choice(['trigger', 'api'])
        if name in ('edge_prefix', 'edge', 'prefix') and r < 0.75:
            return rng.choice(['FOLLOWS#', 'FRIEND#', 'LIKES#', 'TAGGED#', 'FOLLOWS', '', '#', 'USER#',
                               'FOLLOWS#USER#', 'FRIEND'])
        if name == 'target_prefix' and r < 0.8:
            return rng.choice(['', '', 'USER#', 'POST#', '#', 'x' * rng.choice([1, 1000, 2040, 2047, 2048]),
                               'é' * 1024, '\U0010ffff'])
        if name in ('sort_op',) and r < 0.8:
            return rng.choice(['=', '<', '<=', '>', '>=', 'begins_with', 'between', '^@', 'BEGINS_WITH'])
        if name in ('base_alias', 'l', 'r') and r < 0.7:
            return rng.choice(['b', 'i', 'o', 'x'])
        if name == 'base_where' and r < 0.7:
            return rng.choice(['true', 'false', 'b.pk = $1',
                               'b.pk OPERATOR(public.=) $1 AND b.sk OPERATOR(public.=) $2'])
        if r < 0.9:
            return rng.choice(self.special_keys()) if r < 0.3 else gen_str(rng, self.charset, bad_rate=0.05)
        return gen_str(rng, self.charset, bad_rate=0.05)

    def gen_int(self, rng, name, big=False):
        if rng.random() < 0.6:
            if name in ('lim',):
                return rng.choice([1, 2, 5, 10, 100, 0, -1])
            if name in ('max_depth', 'depth'):
                return rng.choice([0, 1, 2, 3, 6, -1, 50])
            if name in ('n',):
                return rng.choice([1, 2, 3, -1, -2, 0, 100])
            if name in ('shards',):
                return rng.choice([0, 1, 2, 4, 16, 256, 257, -1])
            if name in ('partitions', 'counters', 'write_shards'):
                return rng.choice([0, 2, 4, 1, -1, 257, 1025])
            if name == 'strategy':
                return rng.choice([1, 2, 3, 4, 5, 0, 6])
        return rng.choice(BIGINTS if big else INTS)

    REGCLASSES = ['g'] * 8 + ['gc'] * 3 + ['gw'] * 3 + ['ga'] * 2 + [
        'g_inverted', 'gc_inverted', 'gw_inverted', 'ga_inverted', 'gc_inverted_degree',
        'stored', 't', 'pg_class', 'adjlist_inverted_indexes']

    def gen_arg(self, rng, name, typ, depth):
        if rng.random() < 0.06:
            return Arg.lit(None, typ)
        if typ == 'adjkey':
            if name in ('node', 'start', 'from_node', 'to_node', 'a', 'b', 'item', 'partition_value') \
                    and rng.random() < 0.6:
                return Arg.lit(rng.choice(self.fixture_nodes()), 'adjkey')
            return self.gen_key_arg(rng, depth)
        if typ == 'adjkey[]':
            return Arg.array([self.gen_key_arg(rng, depth) for _ in range(rng.randint(0, 3))], typ)
        if typ in ('text', 'cstring', 'character varying'):
            return Arg.lit(self.gen_text(rng, name), typ)
        if typ == 'name':
            return Arg.lit(rng.choice(['pk', 'sk', 'data', 'k', 'call', 'nope', 'x' * 70,
                                       gen_str(rng, self.charset)]), 'name')
        if typ in ('text[]', 'name[]'):
            et = typ[:-2]
            if name == 'directions':
                items = [Arg.lit(rng.choice(['out', 'in', 'both', 'sideways']), et) for _ in range(rng.randint(0, 4))]
            elif typ == 'name[]':
                items = [Arg.lit(rng.choice(['pk', 'sk', 'data', 'nope']), et) for _ in range(rng.randint(0, 3))]
            else:
                items = [Arg.lit(self.gen_text(rng, 'edge_prefix' if 'prefix' in name else name), et)
                         for _ in range(rng.randint(0, 4))]
            if items and rng.random() < 0.1:
                items[rng.randrange(len(items))] = Arg.lit(None, et)
            return Arg.array(items, typ)
        if typ == 'integer':
            return Arg.raw('%d' % self.gen_int(rng, name))
        if typ == 'smallint':
            return Arg.raw('%d::smallint' % rng.choice([0, 1, -1, 32767]))
        if typ == 'bigint':
            return Arg.raw('%d::bigint' % self.gen_int(rng, name, big=True))
        if typ == 'boolean':
            return Arg.raw(rng.choice(['true', 'false']))
        if typ == 'regclass':
            return Arg.lit(rng.choice(self.REGCLASSES), 'regclass')
        if typ == 'regtype':
            return Arg.lit(rng.choice(['adjkey', 'text', 'integer', 'adjkey[]', 'jsonb', 'bytea']), 'regtype')
        if typ == 'jsonb':
            return Arg.lit(self.gen_json(rng, name), 'jsonb')
        return Arg.lit(None, typ)

    def gen_json(self, rng, name):
        def key():
            r = rng.random()
            if r < 0.5:
                return rng.choice(self.fixture_keys())
            if r < 0.6:
                return rng.choice(self.special_keys())
            return gen_str(rng, self.charset, bad_rate=0.05)
        if name == 'edges':
            items = []
            for _ in range(rng.randint(0, 3)):
                e = {}
                if rng.random() < 0.95:
                    e['pk'] = key()
                if rng.random() < 0.95:
                    e['sk'] = key()
                if rng.random() < 0.5:
                    e['data'] = {'x': rng.randint(0, 9)}
                items.append(e)
            return json.dumps(items if rng.random() < 0.95 else {'pk': key()}, ensure_ascii=False)
        return json.dumps({'pk': key(), 'sk': key()} if rng.random() < 0.8 else [key()], ensure_ascii=False)

    def gen_call(self, rng, f, depth=0):
        """A call of f (an Arg of kind 'call') with random arguments."""
        if f['kind'] == 'a':
            return Arg.call(f, [self.gen_key_arg(rng, depth) for _ in range(rng.randint(1, 4))])
        args = f['args']
        nreq = len(args) - f['ndefaults']
        nargs = len(args) if rng.random() < 0.7 else rng.randint(nreq, len(args))
        return Arg.call(f, [self.gen_arg(rng, nm, ty, depth) for nm, ty in args[:nargs]])

    def store_sql(self, call):
        """The statement that runs call and stores the keys it returns, and
        whether it stores anything."""
        f = call.f
        ret = f['rettype']
        tail = " RETURNING encode(adjkey_send(k), 'hex'), fuzz.bad_reason(k)"
        if f['kind'] == 'a':
            vals = ', '.join('(%s)' % a.render() for a in call.args)
            return ('INSERT INTO stored (k, call) SELECT r, {n} FROM (SELECT %s(x) AS r FROM (VALUES %s) v(x)) s '
                    'WHERE r IS NOT NULL' % (f['qname'], vals)) + tail, True
        c = call.render()
        if ret == 'adjkey' and not f['retset']:
            return 'INSERT INTO stored (k, call) SELECT r, {n} FROM (SELECT %s AS r) s WHERE r IS NOT NULL' % c + tail, True
        if ret == 'adjkey[]' and not f['retset']:
            return 'INSERT INTO stored (k, call) SELECT u, {n} FROM unnest(%s) u WHERE u IS NOT NULL' % c + tail, True
        if ret == 'adjkey' and f['retset']:
            return ('INSERT INTO stored (k, call) SELECT u, {n} FROM (SELECT * FROM %s LIMIT 500) x(u) '
                    'WHERE u IS NOT NULL' % c) + tail, True
        keycols = [(nm, ty) for nm, ty in f['outcols'] if ty in ('adjkey', 'adjkey[]')]
        if f['retset'] and keycols:
            sel = ' UNION ALL '.join(('SELECT x.%s' if ty == 'adjkey' else 'SELECT unnest(x.%s)') % quote_ident(nm)
                                     for nm, ty in keycols)
            return ('INSERT INTO stored (k, call) SELECT v, {n} FROM (SELECT * FROM %s LIMIT 500) x '
                    'CROSS JOIN LATERAL (%s) v(v) WHERE v IS NOT NULL' % (c, sel)) + tail, True
        if f['retset']:
            return 'SELECT * FROM %s LIMIT 500' % c, False
        if ret == 'cstring':
            return 'SELECT %s::text' % c, False
        return 'SELECT %s' % c, False

    def user_sql(self, call):
        """What a user would type: the call itself."""
        if call.f['kind'] == 'a':
            return 'SELECT %s(x) FROM (VALUES %s) v(x)' % (call.f['qname'], ', '.join(
                '(%s)' % a.render() for a in call.args))
        if call.f['retset']:
            return 'SELECT * FROM %s' % call.render()
        return 'SELECT %s' % call.render()

    def call_once(self, call, n, probe=False):
        """Run one call; returns (list of (kind, what, detail, hex), Result).
        probe: in a transaction rolled back, no accounting."""
        f = call.f
        sql, stores = self.store_sql(call)
        sql = sql.replace('{n}', str(n))
        sigs = []
        conn = self.fz
        repro = self.repro(self.user_sql(call), call)
        if f['volatile'] or probe:
            run_sql(conn, 'BEGIN')
            x = run_sql(conn, 'SELECT pg_current_xact_id()::text').rows[0][0]
            r = run_sql(conn, sql) if probe else self.run('funcs', conn, sql, repro=repro)
            if r.ok:
                nb = run_sql(conn, 'SELECT * FROM fuzz.new_bad(%s)' % x)
                for tbl, col, hexkey, reason in (nb.rows or []):
                    if tbl == 'stored' and stores:
                        continue            # reported as returned below
                    sigs.append(('bad key stored', '%s: %s into %s.%s' % (f['sig'], reason_class(reason), tbl, col),
                                 'adjkey_send = %s' % hexkey[:200], hexkey))
            if not conn.closed:
                run_sql(conn, 'ROLLBACK' if (probe or not r.ok) else 'COMMIT')
        else:
            r = self.run('funcs', conn, sql, repro=repro)
        if r.ok and stores:
            for hexkey, reason in r.rows:
                if reason:
                    sigs.append(('bad key returned', '%s: %s' % (f['sig'], reason_class(reason)),
                                 'adjkey_send = %s' % hexkey[:200], hexkey))
                elif not probe and len(self.produced) < 400:
                    try:
                        self.produced.append(bytes.fromhex(hexkey)[1:].decode('utf-8'))
                    except UnicodeDecodeError:
                        pass
        if probe and not r.ok and r.state and (r.state.startswith('XX') or r.state.startswith('58')):
            sigs.append(('internal error %s' % r.state, norm_msg(r.msg), r.msg, None))
        if r.ok and not probe:
            self.call_sql[n] = repro
        return sigs, r

    def repro(self, sql, call=None, fixture=False):
        needs_fixture = fixture or (call is not None and call.uses_fixture())
        return shell_sql(sql, self.dbname) + (
            '\n            (fixture: psql -d DB -f %s/fixture_%s.sql)' % (self.args.out, self.short)
            if needs_fixture else '')

    def blame(self, call):
        """The innermost nested call among call's arguments that itself
        returns a bad key, or None: a function handed a bad key by another
        is not the culprit."""
        for a in call.walk_calls():
            if a is call or a.f['kind'] == 'a' or a.f['rettype'] != 'adjkey' or a.f['retset']:
                continue
            r = run_sql(self.fz, 'SELECT fuzz.bad_reason(%s), encode(adjkey_send(%s), \'hex\')'
                        % (a.render(), a.render()))
            if r.ok and r.rows and r.rows[0][0]:
                inner = self.blame(a)
                return inner or (a, r.rows[0][0], r.rows[0][1])
        return None

    def report_sigs(self, call, sigs, target='funcs'):
        for kind, what, detail, hexkey in sigs:
            if hexkey:
                self.explained.add(hexkey)
            if kind.startswith('bad key'):
                b = self.blame(call)
                if b:
                    inner, reason, h = b
                    self.explained.add(h)
                    self.F.add(self.enc, target, 'bad key returned', '%s: %s' % (inner.f['sig'], reason_class(reason)),
                               self.repro('SELECT %s' % inner.render(), inner), detail='adjkey_send = %s' % h[:200],
                               minimize=('func', inner, ('bad key returned', '%s: %s' % (
                                   inner.f['sig'], reason_class(reason)))))
                    continue
            self.F.add(self.enc, target, kind, what, self.repro(self.user_sql(call), call), detail=detail,
                       minimize=('func', call, (kind, what)))

    TYPICAL_TEXT = {'direction': 'out', 'format': 'dot', 'mode': 'trigger', 'edge_prefix': 'FOLLOWS#',
                    'edge': 'FOLLOWS', 'target_prefix': '', 'sort_op': '=', 'base_alias': 'b',
                    'base_where': 'true', 'l': 'i', 'r': 'o', 'sort_value': 'FOLLOWS#USER#bob'}
    TYPICAL_INT = {'lim': 10, 'max_depth': 2, 'depth': 2, 'n': 1, 'shards': 4, 'strategy': 3,
                   'partitions': 0, 'counters': 0, 'write_shards': 0}

    def typical_arg(self, name, typ):
        if name == 'after':
            return Arg.lit(None, typ)
        if typ == 'regclass':
            return Arg.lit('g', 'regclass')
        if typ == 'adjkey':
            if name in ('to_node', 'b'):
                return Arg.lit('USER#bob', 'adjkey')
            if name in ('node', 'start', 'from_node', 'a', 'item', 'partition_value', 'source', 'partition_key'):
                return Arg.lit('USER#alice', 'adjkey')
            return Arg.lit('FOLLOWS#USER#bob', 'adjkey')
        if typ in ('text', 'cstring', 'character varying'):
            return Arg.lit(self.TYPICAL_TEXT.get(name, 'USER#alice'), typ)
        if typ in ('integer', 'bigint', 'smallint'):
            return Arg.raw('%d::%s' % (self.TYPICAL_INT.get(name, 1), typ))
        if typ == 'boolean':
            return Arg.raw('false')
        if typ == 'text[]':
            v = ['out', 'out'] if name == 'directions' else ['FOLLOWS#', 'FOLLOWS#']
            return Arg.array([Arg.lit(x, 'text') for x in v], typ)
        if typ == 'name':
            return Arg.lit('sk', 'name')
        if typ == 'regtype':
            return Arg.lit('adjkey', 'regtype')
        if typ == 'adjkey[]':
            return Arg.array([Arg.lit('USER#alice', 'adjkey')], typ)
        if typ == 'jsonb' and name == 'edges':
            return Arg.lit('[{"pk": "USER#alice", "sk": "FOLLOWS#USER#bob"}]', 'jsonb')
        return Arg.lit(None, typ)

    def edge_values(self, typ):
        if typ == 'adjkey':
            return [Arg.lit(k, 'adjkey') for k in self.special_keys()]
        if typ in ('text', 'cstring'):
            vals = ['', '#', '\\', 'ÿ', '\U0010ffff', '\U0010ffff' * 2, '\uffff', 'x' * 2040, 'x' * MAX,
                    'x' * (MAX + 1), 'é' * (MAX // 2 + 1), 'a' * (MAX - 1) + '\x7f', 'a' * (MAX - 3) + '\uffff',
                    'FOLLOWS#', 'USER#']
            return [Arg.lit(v, typ) for v in vals if not violation((v or 'a').encode(), self.enc, self.nonascii_ok)
                    or violation((v or 'a').encode(), self.enc, self.nonascii_ok).startswith('too long')]
        if typ == 'integer':
            return [Arg.raw(x) for x in ('0', '-1', '2147483647', '-2147483648')]
        if typ == 'bigint':
            return [Arg.raw(x + '::bigint') for x in ('0', '-1', '9223372036854775807')]
        return []

    def sweep(self):
        """Every function, one argument at a time set to each edge value,
        the others typical: systematic bugs show up whatever the seed."""
        skip = {'create_inverted_index', 'drop_inverted_index', 'rebuild_inverted_index',
                'adjlist_install_triggers'}
        # read-only functions first: the writers delete the fixture's nodes
        for f in sorted(self.funcs, key=lambda f: f['volatile']):
            if f['name'] in skip:
                continue
            if f['kind'] == 'a':
                base = [Arg.lit('USER#alice', 'adjkey')]
                cands = [[v] for v in self.edge_values('adjkey')]
            else:
                base = [self.typical_arg(nm, ty) for nm, ty in f['args']]
                cands = []
                for i, (nm, ty) in enumerate(f['args']):
                    for v in self.edge_values(ty):
                        cands.append(base[:i] + [v] + base[i + 1:])
            for args in [base] + cands:
                call = Arg.call(f, args)
                self.ncases['funcs'] += 1
                self.ncall += 1
                sigs, _ = self.call_once(call, self.ncall)
                self.report_sigs(call, sigs)
        # the triggers (index rows, degree counters): each edge key written
        # and deleted again
        for tbl, _ in GRAPH_TABLES[:3]:
            for k in self.special_keys():
                for pk, sk in (('USER#alice', k), (k, 'FOLLOWS#USER#alice')):
                    ins = ('INSERT INTO %s (pk, sk) VALUES (%s::adjkey, %s::adjkey) ON CONFLICT DO NOTHING'
                           % (tbl, sql_lit(pk), sql_lit(sk)))
                    dele = 'DELETE FROM %s WHERE pk = %s::adjkey AND sk = %s::adjkey' % (tbl, sql_lit(pk), sql_lit(sk))
                    self.ncases['funcs'] += 2
                    self.write_checked(ins, 'trigger of %s' % tbl)
                    self.write_checked(dele, 'trigger of %s' % tbl, repro_pre=ins + ';\n')
        self.refill()

    def refill(self):
        """Put the fixture's rows back (the write functions delete some)."""
        stmts = ['SET client_encoding = UTF8'] + [
            l.rstrip(';') for l in self.fixture.split('\n') if l.startswith('INSERT INTO')]
        run_sql(self.fz, ';\n'.join(stmts))

    def target_funcs(self, n):
        rng = random.Random('%s/funcs/%s' % (self.args.seed, self.short))
        if not self.funcs:
            return
        t0 = time.time()
        self.sweep()
        print('  [%s] funcs: sweep of edge values, %d calls in %.1fs' % (self.enc, self.ncases['funcs'],
                                                                       time.time() - t0), flush=True)
        ddl = {'create_inverted_index', 'drop_inverted_index', 'rebuild_inverted_index',
               'adjlist_install_triggers'}
        for i in range(n):
            if i % 500 == 499:
                self.refill()
            r = rng.random()
            self.ncases['funcs'] += 1
            if r < 0.08:
                self.prefix_query(rng)
                continue
            if r < 0.12:
                self.dml(rng)
                continue
            f = rng.choices(self.funcs, weights=[x['weight'] for x in self.funcs])[0]
            call = self.gen_call(rng, f)
            self.ncall += 1
            sigs, res = self.call_once(call, self.ncall)
            self.report_sigs(call, sigs)
            if f['name'] in ddl:
                self.repair()
        self.repair()

    def repair(self):
        """Put back the fixture's inverted indexes if a fuzzed DDL call dropped them."""
        for tbl, opts in GRAPH_TABLES:
            r = run_sql(self.fz, "SELECT count(*) FROM adjlist_inverted_indexes WHERE baserel = '%s'::regclass "
                                 "AND indexrel = to_regclass('%s_inverted')" % (tbl, tbl))
            if r.ok and r.rows[0][0] == 0:
                run_sql(self.fz, "SELECT drop_inverted_index(indexrel) FROM adjlist_inverted_indexes "
                                 "WHERE indexrel = to_regclass('%s_inverted')" % tbl)
                run_sql(self.fz, "DROP TABLE IF EXISTS %s_inverted" % tbl)
                run_sql(self.fz, "SELECT create_inverted_index('%s'%s)" % (tbl, opts))

    def prefix_query(self, rng):
        """begins_with through the planner: constant and generic-plan prefixes,
        index path against sequential scan."""
        tbl = rng.choice(['g', 'gc', 'gw', 'g_inverted', 'stored'])
        col = 'k' if tbl == 'stored' else 'sk'
        pk = None if tbl == 'stored' else sql_lit(rng.choice(self.fixture_keys()))
        pfx = rng.choice(['FOLLOWS#', 'FRIEND#USER#', '', '#', 'USER#\U0010ffff', '\U0010ffff', 'ÿ', 'é', '\x7f',
                          '\uffff', '\ud7ff', 'FOLLOWS#' + 'x' * 2040, gen_str(rng, self.charset, bad_rate=0.05)])
        ptype = rng.choice(['text', 'adjkey'])
        cond = ('pk = %s::adjkey AND ' % pk) if pk else ''
        generic = rng.random() < 0.5
        conn = self.fz
        if generic:
            stmts = ['BEGIN', "SET LOCAL plan_cache_mode = force_generic_plan",
                     'PREPARE fz_p(%s) AS SELECT count(*) FROM %s WHERE %s%s ^@ $1' % (ptype, tbl, cond, col),
                     'EXECUTE fz_p(%s)' % sql_lit(pfx)]
        else:
            stmts = ['BEGIN', 'SELECT count(*) FROM %s WHERE %s%s ^@ %s::%s' % (tbl, cond, col, sql_lit(pfx), ptype)]
        seq = ['SET LOCAL enable_indexscan = off', 'SET LOCAL enable_bitmapscan = off',
               'SET LOCAL enable_indexonlyscan = off',
               'SELECT count(*) FROM %s WHERE %s%s ^@ %s::%s' % (tbl, cond, col, sql_lit(pfx), ptype)]
        script = ';\n'.join(stmts + seq) + ';\nROLLBACK;\nDEALLOCATE ALL;'
        counts = []
        r = None
        for s in stmts:
            r = self.run('funcs', conn, s, repro=self.repro(script))
            if not r.ok:
                break
        else:
            counts.append(r.rows[0][0])
            for s in seq:
                r = self.run('funcs', conn, s, repro=self.repro(script))
                if not r.ok:
                    break
            else:
                counts.append(r.rows[0][0])
        if not self.fz.closed:
            run_sql(self.fz, 'ROLLBACK')
            run_sql(self.fz, 'DEALLOCATE ALL')
        if len(counts) == 2 and counts[0] != counts[1]:
            self.F.add(self.enc, 'funcs', 'begins_with: index path differs from sequential scan',
                       '%s (%s prefix)' % (tbl, 'generic' if generic else 'constant'),
                       self.repro(script), detail='index %s, seqscan %s' % tuple(counts))

    def dml(self, rng):
        """Direct writes to the graph tables (their triggers write the index
        and counter tables)."""
        tbl = rng.choice(['g', 'gc', 'gw'])
        k1 = self.gen_key_arg(rng, 1)
        k2 = self.gen_key_arg(rng, 1)
        op = rng.random()
        if op < 0.6:
            sql = 'INSERT INTO %s (pk, sk) VALUES (%s, %s) ON CONFLICT DO NOTHING' % (tbl, k1.render(), k2.render())
        elif op < 0.8:
            sql = 'UPDATE %s SET sk = %s WHERE pk = %s' % (tbl, k2.render(), k1.render())
        else:
            sql = 'DELETE FROM %s WHERE pk = %s' % (tbl, k1.render())
        self.write_checked(sql, 'trigger of %s' % tbl, (k1, k2))

    def write_checked(self, sql, what, keyargs=(), repro_pre=''):
        """Run a write and look for bad keys it stored anywhere."""
        conn = self.fz
        run_sql(conn, 'BEGIN')
        x = run_sql(conn, 'SELECT pg_current_xact_id()::text').rows[0][0]
        r = self.run('funcs', conn, sql, repro=self.repro(repro_pre + sql, fixture=True))
        if r.ok:
            nb = run_sql(conn, 'SELECT * FROM fuzz.new_bad(%s)' % x)
            for t, col, hexkey, reason in (nb.rows or []):
                self.explained.add(hexkey)
                culprit = None
                for a in keyargs:
                    if a.kind == 'call':
                        culprit = self.blame(Arg.call(None, [a]))
                        if culprit:
                            break
                if culprit:
                    inner, why, h = culprit
                    self.F.add(self.enc, 'funcs', 'bad key returned', '%s: %s' % (inner.f['sig'], reason_class(why)),
                               self.repro('SELECT %s' % inner.render(), inner), detail='adjkey_send = %s' % h[:200])
                    continue
                self.F.add(self.enc, 'funcs', 'bad key stored', '%s: %s into %s.%s'
                           % (what, reason_class(reason), t, col), self.repro(repro_pre + sql + ';', fixture=True),
                           detail='adjkey_send = %s' % hexkey[:200])
        if not conn.closed:
            run_sql(conn, 'COMMIT' if r.ok else 'ROLLBACK')

    # -- minimising --------------------------------------------------------------

    def minimize_all(self, budget=80):
        for f in self.F.items.values():
            m = f.get('minimize')
            if not m or f['db'] != self.enc:
                continue
            try:
                if m[0] == 'recv':
                    self.minimize_recv(f, m[1], m[2], budget)
                elif m[0] == 'func':
                    self.minimize_func(f, m[1], m[2], budget)
                elif m[0] == 'text':
                    self.minimize_text(f, m[1], m[2], m[3], m[4], budget)
            except Lost:
                self.close()
                wait_for_server(self.dbname)
                self.open()
            f['minimize'] = None

    def minimize_recv(self, f, payload, reason, budget):
        def still(p):
            if p[:1] != b'\x01':
                return False
            why = violation(p[1:], self.enc, self.nonascii_ok)
            if reason_class(why) != reason:
                return False
            return self.recv_once(p, in_xact=True).ok
        body = payload[1:]
        for alt in (b'a' * len(body), b'a' * (MAX + 1)):
            if len(alt) < len(body) or (alt != body and len(alt) == len(body)):
                if still(b'\x01' + alt):
                    body = alt
                    break
        body = shrink_bytes(body, lambda b: still(b'\x01' + b), budget)
        f['repro'] = recv_repro(b'\x01' + body, self.dbname)
        f['detail'] = 'payload %s' % bytes_expr(b'\x01' + body)[:300]

    def minimize_text(self, f, s, raw, form, reason, budget):
        conn = self.raw if raw else self.fz

        def still(v):
            _, why = self.expected_text(v, raw)
            if reason_class(why) != reason:
                return False
            run_sql(conn, 'BEGIN')
            r, _ = self.text_once(v, raw, form, 0, count=False)
            if not conn.closed:
                run_sql(conn, 'ROLLBACK')
            return r.ok
        if isinstance(s, bytes):
            for alt in (b'a' * len(s), b'a' * (MAX + 1)):
                if alt != s and len(alt) <= len(s) and still(alt):
                    s = alt
                    break
            s = shrink_bytes(s, still, budget)
        else:
            for alt in ('a' * len(s), 'a' * (MAX + 1)):
                if alt != s and len(alt) <= len(s) and still(alt):
                    s = alt
                    break
            s = shrink_str(s, still, budget)
        run_sql(conn, 'BEGIN')
        _, sqlrepr = self.text_once(s, raw, form, 0, count=False)
        if not conn.closed:
            run_sql(conn, 'ROLLBACK')
        f['repro'] = shell_sql(sqlrepr, self.dbname, self.enc if raw else 'UTF8')

    def minimize_func(self, f, call, sig, budget):
        n = [0]

        def still(c):
            if n[0] >= budget:
                return False
            n[0] += 1
            sigs, _ = self.call_once(c, 0, probe=True)
            return any(s[0] == sig[0] and s[1] == sig[1] for s in sigs)
        call = minimize_call(call, still)
        f['repro'] = self.repro(self.user_sql(call), call)


class Arg:
    """One argument expression: a literal (value and cast), an array, a
    nested call of an extension function, or raw SQL."""

    def __init__(self, kind, value=None, cast=None, f=None, args=None):
        self.kind, self.value, self.cast, self.f, self.args = kind, value, cast, f, args or []

    @staticmethod
    def lit(value, cast):
        return Arg('lit', value=value, cast=cast)

    @staticmethod
    def raw(sql):
        return Arg('raw', value=sql)

    @staticmethod
    def array(items, cast):
        return Arg('array', cast=cast, args=items)

    @staticmethod
    def call(f, args):
        return Arg('call', f=f, args=args)

    def render(self):
        if self.kind == 'lit':
            if self.value is None:
                return 'NULL::%s' % self.cast
            return '%s::%s' % (sql_lit(self.value), self.cast)
        if self.kind == 'raw':
            return self.value
        if self.kind == 'array':
            return 'ARRAY[%s]::%s' % (', '.join(a.render() for a in self.args), self.cast)
        ps = [a.render() for a in self.args]
        if self.f['variadic'] and ps and len(ps) == len(self.f['args']):
            ps[-1] = 'VARIADIC ' + ps[-1]
        return '%s(%s)' % (self.f['qname'], ', '.join(ps))

    def walk_calls(self):
        """Nested calls, outermost first."""
        if self.kind == 'call' and self.f is not None:
            yield self
        for a in self.args:
            yield from a.walk_calls()

    def uses_fixture(self):
        if self.kind == 'lit' and self.cast == 'regclass':
            return True
        return any(a.uses_fixture() for a in self.args)

    def replace(self, i, new):
        args = list(self.args)
        args[i] = new
        return Arg(self.kind, self.value, self.cast, self.f, args)


def simpler(a):
    """Simpler replacements of one argument, simplest first."""
    out = []
    if a.kind == 'lit' and isinstance(a.value, str) and a.cast not in ('regclass', 'regtype', 'jsonb'):
        v = a.value
        n = u8len(v)
        for c in ['', v[:1], 'a', 'USER#alice', 'x' * n, 'x' * (MAX + 1), 'x' * MAX, v[:len(v) // 2]]:
            if c != v and (len(c) < len(v) or (c == 'x' * n and len(set(v)) > 1)):
                out.append(Arg.lit(c, a.cast))
    elif a.kind == 'raw' and re.match(r'^-?\d+(::\w+)?$', a.value):
        cast = re.sub(r'^-?\d+', '', a.value)
        out += [Arg.raw(x + cast) for x in ('0', '1', '-1') if x + cast != a.value]
    elif a.kind == 'array':
        out += [Arg.array(a.args[:i] + a.args[i + 1:], a.cast) for i in range(len(a.args))]
    elif a.kind == 'call':
        # the call replaced by one of its own adjkey arguments
        out += [x for x in a.args if x.kind == 'lit' and x.cast == 'adjkey']
        out.append(Arg.lit('USER#alice', 'adjkey'))
    return out


def minimize_call(call, still):
    """Simplify the arguments of call while still(call) holds."""
    if not still(call):
        return call
    changed = True
    rounds = 0
    while changed and rounds < 3:
        changed = False
        rounds += 1
        for i in range(len(call.args)):
            a = call.args[i]
            for alt in simpler(a):
                cand = call.replace(i, alt)
                if still(cand):
                    call = cand
                    changed = True
                    break
            a = call.args[i]
            if a.kind == 'lit' and isinstance(a.value, str) and len(a.value) > 1:
                v = shrink_str(a.value, lambda s: still(call.replace(i, Arg.lit(s, a.cast))), 30)
                if v != a.value:
                    call = call.replace(i, Arg.lit(v, a.cast))
                    changed = True
            elif a.kind == 'call':
                inner = minimize_call(a, lambda c: still(call.replace(i, c)))
                if inner is not a:
                    call = call.replace(i, inner)
        # drop trailing defaulted arguments
        if call.f and call.f['kind'] != 'a':
            nreq = len(call.f['args']) - call.f['ndefaults']
            while len(call.args) > nreq and still(Arg.call(call.f, call.args[:-1])):
                call = Arg.call(call.f, call.args[:-1])
                changed = True
    return call


def shrink_str(s, still, budget):
    """Remove chunks of characters from s while still(s) holds."""
    n = 0
    chunk = max(1, len(s) // 2)
    while chunk >= 1 and n < budget:
        i = 0
        changed = False
        while i < len(s) and n < budget:
            cand = s[:i] + s[i + chunk:]
            n += 1
            if still(cand):
                s = cand
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return s


def quote_ident(s):
    return s if re.match(r'^[a-z_][a-z0-9_]*$', s) else '"' + s.replace('"', '""') + '"'

def shrink_bytes(b, still, budget):
    """ddmin-like: remove chunks of b while still(b) holds."""
    n = 0
    chunk = max(1, len(b) // 2)
    while chunk >= 1 and n < budget:
        i = 0
        changed = False
        while i < len(b) and n < budget:
            cand = b[:i] + b[i + chunk:]
            n += 1
            if still(cand):
                b = cand
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return b


def norm_msg(msg):
    m = (msg or '').split('\n')[0]
    m = re.sub(r'^(ERROR|FATAL|PANIC):\s+', '', m)
    m = re.sub(r'\d+', 'N', m)
    m = re.sub(r'"[^"]*"', '"…"', m)
    m = re.sub(r'0x[0-9a-f]{2}( 0x[0-9a-f]{2})*', '0x…', m)
    return m[:140]


def dump_err(stderr):
    text = stderr.decode('utf-8', 'replace') if isinstance(stderr, bytes) else stderr
    lines = [l for l in text.splitlines() if 'error' in l.lower()] or text.splitlines() or ['(no message)']
    return norm_msg(lines[0])


class ServerLog:
    PAT = re.compile(r'TRAP:|PANIC:|terminated by signal|was terminated by|exited with exit code [1-9]|'
                     r'server process .* was terminated')

    def __init__(self, path):
        self.path = path
        self.pos = self.size()

    def size(self):
        try:
            return os.path.getsize(self.path) if self.path else 0
        except OSError:
            return 0

    def new_lines(self, owner):
        if not self.path:
            return []
        try:
            with open(self.path, 'rb') as f:
                f.seek(self.pos)
                data = f.read()
                self.pos = f.tell()
        except OSError:
            return []
        lines = data.decode('utf-8', 'replace').splitlines()
        out = []
        for i, l in enumerate(lines):
            if self.PAT.search(l):
                ctx = ' | '.join(x.strip() for x in lines[i + 1:i + 3] if 'DETAIL' in x or 'Failed process' in x)
                out.append(l.strip() + ((' | ' + ctx) if ctx else ''))
        return out


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--count', type=int, default=3000, help='random cases per target per database')
    ap.add_argument('--dbs', default='utf8,latin1,sqlascii')
    ap.add_argument('--targets', default='recv,text,funcs')
    ap.add_argument('--server-log', default=None)
    ap.add_argument('--out', default='/tmp/adjlist/fuzz-out')
    ap.add_argument('--no-minimize', action='store_true')
    ap.add_argument('--sql-ascii', choices=['probe', 'ascii', 'utf8'], default='probe',
                    help='what a SQL_ASCII database can represent: what its text input takes (probe, the '
                         'default), ASCII only, or any UTF-8')
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), 'big') % 1000000
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    print('adjlist fuzz: seed %d, %d cases per target per database, databases %s'
          % (args.seed, args.count, args.dbs), flush=True)
    F = Findings()
    log = ServerLog(args.server_log)
    if not args.server_log:
        print('warning: no --server-log; the server log is not checked', file=sys.stderr)
    fuzzers = []
    for short in args.dbs.split(','):
        fz = DBFuzzer(short, args, F, log)
        fuzzers.append(fz)
        print('== %s database %s' % (fz.enc, fz.dbname), flush=True)
        fz.setup()
        if fz.enc == 'SQL_ASCII':
            print('  SQL_ASCII: keys may hold %s (--sql-ascii %s)'
                  % ('any UTF-8 character' if fz.nonascii_ok else 'ASCII only', args.sql_ascii))
        print('  %d functions to call, %d skipped (%s)' % (
            len(fz.funcs), len(fz.skipped), ', '.join('%s: %s' % s for s in fz.skipped)), flush=True)
        for target in args.targets.split(','):
            t1 = time.time()
            try:
                getattr(fz, 'target_' + target)(args.count)
            except Lost as e:
                fz.lost(target, '(between statements)', str(e), 'see the server log')
            print('  [%s] %s: %d cases in %.1fs; SQLSTATEs %s' % (
                fz.enc, target, fz.ncases[target], time.time() - t1,
                dict(sorted(fz.states[target].items(), key=lambda kv: -kv[1]))), flush=True)
            fz.check(target)
        if not args.no_minimize:
            fz.minimize_all()
        fz.close()
        with open(os.path.join(args.out, 'errors_%s.txt' % short), 'w', encoding='utf-8') as fh:
            for (t, st, msg), sql in sorted(fz.error_samples.items()):
                fh.write('%s %s %s\n    %s\n' % (t, st, msg, sql[:400]))
    report(F, fuzzers, args, time.time() - t0)
    sys.exit(1 if len(F) else 0)


def report(F, fuzzers, args, elapsed):
    lines = []
    lines.append('')
    lines.append('=' * 78)
    lines.append('adjlist fuzz report: seed %d, --count %d, %.0fs' % (args.seed, args.count, elapsed))
    lines.append('rerun: bash test/fuzz/run.sh --seed %d --count %d' % (args.seed, args.count))
    for fz in fuzzers:
        lines.append('%-9s database %s: %s' % (fz.enc, fz.dbname, ', '.join(
            '%s %d cases' % (t, n) for t, n in fz.ncases.items())))
        for t, c in fz.states.items():
            lines.append('    %-6s SQLSTATE counts: %s' % (t, ', '.join(
                '%s=%d' % kv for kv in sorted(c.items(), key=lambda kv: -kv[1]))))
    lines.append('')
    if not len(F):
        lines.append('no findings')
    else:
        lines.append('%d FINDINGS (reproducers assume the fuzz databases, or: createdb with the encoding,'
                     % len(F))
        lines.append('CREATE EXTENSION adjlist, then psql -f %s/fixture_<db>.sql)' % args.out)
    for i, f in enumerate(F.items.values(), 1):
        lines.append('')
        lines.append('[%d] %s / %s: %s  (x%d)' % (i, f['db'], f['target'], f['kind'], f['count']))
        lines.append('    %s' % f['what'])
        if f['detail']:
            lines.append('    detail: %s' % f['detail'].replace('\n', '\n            ')[:600])
        lines.append('    repro:  %s' % f['repro'][:1500].replace('\n', '\n            '))
    text = '\n'.join(lines)
    print(text)
    with open(os.path.join(args.out, 'report.txt'), 'w', encoding='utf-8') as fh:
        fh.write(text + '\n')
    with open(os.path.join(args.out, 'findings.json'), 'w', encoding='utf-8') as fh:
        json.dump([{k: v for k, v in f.items() if k != 'minimize'} for f in F.items.values()], fh,
                  indent=1, ensure_ascii=False)


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Seeded randomized consistency test of adjlist's inverted indexes.

Four sessions (threads, one psycopg2 connection each) run seeded random
statement streams against a base table with one or more inverted indexes,
each transaction at a random isolation level, retrying whole transactions on
40001 / 40P01 / 55P03 as an application would.  After every batch (all
sessions joined) the oracle checks every index:

  (a) verify_inverted_index() returns no rows;
  (b) independently of the product, the index table's rows equal what the
      index definition computes from the base table's rows (partition key,
      sort key, rest of the base primary key, projected columns, all by
      their text form; write-sharded partition keys get '#' || FNV-1a-32 of
      the source key mod N);
  (c) for counted indexes, edge_count() for every (node, edge, direction)
      computed in Python, some that must be 0, and the trailing-separator
      spelling of edge names.

Scenarios run one after the other, each in its own database, and print one
summary line each.  A failure prints the seed, scenario, batch, the last
statements of every session and a minimal diff, tries to reduce it to a
short sequential SQL script, and makes the exit status non-zero.

  consistency.py                      # every scenario, seed 1
  consistency.py --seed 7 --scenario triggers
  consistency.py --statements 500     # per session and scenario
  consistency.py --soak 30            # fresh seeds for 30 minutes
  consistency.py --exclude swap,truncate   # leave statement kinds out (bisecting)

Connection: libpq's environment (PGHOST, PGPORT, PGUSER, ...).
"""

import argparse
import collections
import csv
import io
import os
import random
import re
import sys
import threading
import time
import traceback

import psycopg2
import psycopg2.extensions

ISOLATION = ['READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE']
ISO_SHORT = {'READ COMMITTED': 'RC', 'REPEATABLE READ': 'RR', 'SERIALIZABLE': 'SER'}
RETRY_CODES = {'40001', '40P01', '55P03'}
MAX_RETRIES = 12
DB_PREFIX = 'adjrand_'

# ---------------------------------------------------------------------------
# key spaces: small, so that sessions collide on the same keys all the time

PKS = ['USER#u0', 'USER#u1', 'USER#u2', 'USER#u3', 'USER#ü', 'USER#中',
       'USER#a\\#b', 'ITEM#1', 'POST#😀', 'ORG']
TARGETS = ['USER#u0', 'USER#u1', 'USER#ü', 'USER#a\\#b', 'POST#😀']
SKS = ['FOLLOWS#USER#u0', 'FOLLOWS#USER#u1', 'FOLLOWS#USER#ü', 'FOLLOWS#',
       'PROFILE', 'LIKES#POST#😀', 'LIKES#POST#1', 'TAG#x\\#y',
       'X\\#Y#USER#u1', 'FRIEND#USER#中', 'FOLLOWS#USER#a\\#b',
       'Follows#User#U2', 'FOLLOWS#USER#u1#EXTRA', 'ÉDGE#ORG']
GSKS = ['G#1', 'G#2', 'GSI#USER#u1', 'PROFILE', 'G#é']


KEY_FEATURES = {
    'key_trailing_sep': lambda k: k.endswith('#') and not k.endswith('\\#'),
    'key_escaped': lambda k: '\\' in k,
    'key_multibyte': lambda k: any(ord(c) > 127 for c in k),
    'key_single_part': lambda k: split_first(k)[1] == '',
}


def key_excluded(k, exclude):
    return any(f in exclude and KEY_FEATURES[f](k) for f in KEY_FEATURES)


def fnv1a32(s):
    h = 2166136261
    for b in s.encode('utf-8'):
        h ^= b
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def split_first(key):
    """(first part, rest) of a key, raw (escapes kept); '\\#' and '\\\\'
    do not split."""
    i = 0
    n = len(key)
    while i < n:
        c = key[i]
        if c == '\\' and i + 1 < n and key[i + 1] in '#\\':
            i += 2
            continue
        if c == '#':
            return key[:i], key[i + 1:]
        i += 1
    return key, ''


def q(v):
    """SQL literal of a Python value (None -> NULL)."""
    if v is None:
        return 'NULL'
    return "'" + str(v).replace("'", "''") + "'"


# ---------------------------------------------------------------------------
# scenarios


class IndexSpec:
    def __init__(self, name, base='g', partition_key='sk', sort_key='pk', include=(),
                 partitions=0, counters=0, write_shards=0, dynamic=False, predicate=None):
        # predicate: (SQL, a function of a row as a dict of column -> value)
        self.predicate = predicate
        self.name = name
        self.base = base
        self.partition_key = partition_key
        self.sort_key = sort_key
        self.include = list(include)
        self.partitions = partitions
        self.counters = counters
        self.write_shards = write_shards
        self.dynamic = dynamic  # created by the stream (may not exist)

    def create_sql(self):
        inc = '{' + ','.join(self.include) + '}'
        return ("SELECT create_inverted_index(%s::regclass, partition_key => %s, sort_key => %s, "
                "include => %s, index_name => %s, partitions => %d, counters => %d, "
                "write_shards => %d, predicate => %s)" % (
                    q(self.base), q(self.partition_key), q(self.sort_key), q(inc), q(self.name),
                    self.partitions, self.counters, self.write_shards,
                    q(self.predicate[0]) if self.predicate else 'NULL'))

    def describe(self):
        return ('%s(%s <- %s, include %s%s%s%s%s)' % (
            self.name, self.partition_key, self.sort_key, self.include or '{}',
            ', partitions %d' % self.partitions if self.partitions else '',
            ', counters %d' % self.counters if self.counters else '',
            ', write_shards %d' % self.write_shards if self.write_shards else '',
            ', where %s' % self.predicate[0] if self.predicate else ''))


USER_TRIGGERS_SQL = r"""
CREATE FUNCTION g_before_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.note = 'lower' THEN
        NEW.sk := lower(NEW.sk::text);  NEW.note := 'lowered';
    ELSIF NEW.note = 'append' THEN
        NEW.data := coalesce(NEW.data, '{}'::jsonb) || '{"t": 1}';  NEW.note := 'appended';
    ELSIF NEW.note = 'skappend' THEN
        IF NEW.sk::text NOT LIKE '%#t' THEN NEW.sk := NEW.sk::text || '#t'; END IF;
        NEW.note := 'skappended';
    ELSIF NEW.note = 'pkupper' THEN
        NEW.pk := upper(NEW.pk::text);  NEW.note := 'pkuppered';
    ELSIF NEW.note = 'skip' THEN
        RETURN NULL;                      -- the update of this row does not happen
    END IF;
    RETURN NEW;
END $$;
CREATE FUNCTION g_before_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.note = 'ins_lower' THEN
        NEW.sk := lower(NEW.sk::text);  NEW.note := 'ins_lowered';
    ELSIF NEW.note = 'ins_data' THEN
        NEW.data := jsonb_build_object('rewritten', NEW.data);  NEW.note := 'ins_rewritten';
    ELSIF NEW.note = 'ins_skip' THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER g_bu BEFORE UPDATE ON g FOR EACH ROW EXECUTE FUNCTION g_before_update();
CREATE TRIGGER g_bi BEFORE INSERT ON g FOR EACH ROW EXECUTE FUNCTION g_before_insert();
"""

# AFTER triggers that write the row they fired for, so that their statements'
# index triggers fire before the outer statement's (out of step): delete the
# row and put its old version back (row trigger, and a statement trigger named
# to fire before adjlist_sync_upd), or update it again
USER_AFTER_TRIGGERS_SQL = r"""
CREATE FUNCTION g_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.note = 'undo' THEN
        DELETE FROM g WHERE pk = NEW.pk AND sk = NEW.sk;
        INSERT INTO g SELECT (OLD).*;
    ELSIF NEW.note = 'again' THEN
        UPDATE g SET data = coalesce(data, '{}'::jsonb) || '{"again": 1}', note = 'agained'
        WHERE pk = NEW.pk AND sk = NEW.sk;
    END IF;
    RETURN NULL;
END $$;
CREATE FUNCTION g_after_update_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM g USING newt n WHERE n.note = 'sundo' AND g.pk = n.pk AND g.sk = n.sk;
    INSERT INTO g SELECT o.* FROM oldt o JOIN newt n USING (pk, sk) WHERE n.note = 'sundo';
    RETURN NULL;
END $$;
CREATE TRIGGER g_au AFTER UPDATE ON g FOR EACH ROW EXECUTE FUNCTION g_after_update();
CREATE TRIGGER a_g_undo AFTER UPDATE ON g REFERENCING OLD TABLE AS oldt NEW TABLE AS newt
    FOR EACH STATEMENT EXECUTE FUNCTION g_after_update_stmt();
"""

# statement kinds and their weights in the common stream
COMMON_WEIGHTS = {
    'insert': 10, 'insert_multi': 6, 'insert_select': 4, 'upsert_nothing': 6,
    'upsert_update': 6, 'upsert_key': 2, 'update_key': 8, 'update_key_bulk': 2,
    'update_projected': 6, 'update_unindexed': 4, 'delete': 6, 'delete_prefix': 3,
    'delete_range': 1, 'merge': 4, 'merge_key': 2, 'copy': 2, 'wcte_move': 2,
    'swap': 2, 'truncate': 0.4,
}


class Scenario:
    name = None
    stream = None            # name the random streams are seeded with (default: name)

    doc = ''
    deferrable = False
    partitioned = False
    triggers = False
    after_triggers = False   # USER_AFTER_TRIGGERS_SQL, statement kind trig_after
    ddl_session = False      # session 0 issues DDL
    extra_weights = {}
    nparts = 4
    partition_by = 'HASH (pk)'
    ddl_ops = ('detach', 'attach', 'index_detached')

    def post_load_sql(self):
        """Run after the initial rows, before the indexes are created."""
        return ''

    def part_bound(self, i):
        return 'FOR VALUES WITH (MODULUS %d, REMAINDER %d)' % (self.nparts, i)

    def __init__(self):
        self.indexes = self.make_indexes()

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['data'])]

    def table_sql(self):
        pkey = 'PRIMARY KEY (pk, sk)' + (' DEFERRABLE INITIALLY IMMEDIATE' if self.deferrable else '')
        sql = ('CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, note text, gsk adjkey, %s)%s;\n'
               % (pkey, ' PARTITION BY %s' % self.partition_by if self.partitioned else ''))
        if self.partitioned:
            for i in range(self.nparts):
                sql += 'CREATE TABLE g_p%d PARTITION OF g %s;\n' % (i, self.part_bound(i))
        if self.triggers:
            sql += USER_TRIGGERS_SQL
        if self.after_triggers:
            sql += USER_AFTER_TRIGGERS_SQL
        return sql

    def weights(self):
        w = dict(COMMON_WEIGHTS)
        w.update(self.extra_weights)
        return w


class PlainScenario(Scenario):
    name = 'plain'
    doc = 'plain base table, index projecting data'


class TriggersScenario(Scenario):
    name = 'triggers'
    doc = ('user BEFORE UPDATE / BEFORE INSERT triggers rewriting sk, pk and data; AFTER UPDATE '
           'triggers that undo an update (delete + insert of the old row) or update the row again')
    triggers = True
    after_triggers = True
    extra_weights = {'trig_update': 8, 'trig_insert': 6, 'trig_after': 6}


class PartitionedScenario(Scenario):
    name = 'partitioned'
    doc = 'base hash-partitioned by pk (4), index table partitioned (4); direct partition writes'
    partitioned = True
    extra_weights = {'part_write': 6, 'truncate_partition': 1}

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['data'], partitions=4)]


class RangeScenario(PartitionedScenario):
    name = 'partitioned_range'
    doc = 'base partitioned by RANGE (pk) with a DEFAULT partition; key updates move rows between partitions'
    partition_by = 'RANGE (pk)'
    extra_weights = {'part_write': 4, 'truncate_partition': 1}

    def part_bound(self, i):
        return ["FOR VALUES FROM (MINVALUE) TO ('ORG')", "FOR VALUES FROM ('ORG') TO ('USER#u2')",
                "FOR VALUES FROM ('USER#u2') TO ('USER#ü')", 'DEFAULT'][i]

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['*'])]


class DetachScenario(PartitionedScenario):
    name = 'detach'
    doc = 'hash-partitioned base: DETACH [CONCURRENTLY] / ATTACH (also of an indexed table) from session 0'
    ddl_session = True
    extra_weights = {'part_write': 6, 'ddl_partition': 8}


class AttachScenario(PartitionedScenario):
    name = 'attach'
    doc = ('hash-partitioned base whose partitions 2 and 3 start detached, with rows: ATTACH them '
           '(sometimes after indexing them on their own) from session 0; no DETACH')
    ddl_session = True
    ddl_ops = ('attach', 'index_detached')
    extra_weights = {'part_write': 6, 'ddl_partition': 8}

    def post_load_sql(self):
        return 'ALTER TABLE g DETACH PARTITION g_p2; ALTER TABLE g DETACH PARTITION g_p3;'


class InheritScenario(Scenario):
    name = 'inherit'
    doc = 'inheritance children of the base table (CREATE ... INHERITS, ALTER ... INHERIT / NO INHERIT)'
    ddl_session = True
    extra_weights = {'child_write': 6, 'ddl_inherit': 8}


class ShardedScenario(Scenario):
    name = 'sharded'
    doc = 'write-sharded index (write_shards => 4)'

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['data'], write_shards=4)]


class CountedScenario(Scenario):
    name = 'counted'
    doc = 'degree counters (counters => 4)'

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['data'], counters=4)]


class CountedBaselineScenario(Scenario):
    name = 'counted_baseline'
    stream = 'counted'
    doc = ('the statement stream of counted (same seeds) on the same index without counters: '
           'compare the 40001 retries of the two summary lines')


class MultiScenario(Scenario):
    name = 'multi'
    doc = ('four indexes: keys only; {*} partitioned; sparse on gsk; sparse by a predicate on the sort '
           'key and the data, with counters')
    extra_weights = {'update_gsk': 6}

    def make_indexes(self):
        return [IndexSpec('g_keys'),
                IndexSpec('g_all', include=['*'], partitions=2),
                IndexSpec('g_by_gsk', partition_key='gsk', sort_key='pk', include=['data']),
                IndexSpec('g_follows', include=['data'], counters=1,
                          predicate=("sk ^@ 'FOLLOWS#' AND data IS NOT NULL",
                                     lambda r: r['sk'].startswith('FOLLOWS#') and r['data'] is not None))]


class MultiSqlScenario(Scenario):
    name = 'multi_sql'
    doc = 'three indexes, two of them written through SQL (a partitioned index table; counters), one write-sharded'

    def make_indexes(self):
        return [IndexSpec('g_part', include=['data'], partitions=2),
                IndexSpec('g_cnt', counters=2),
                IndexSpec('g_ws', include=['*'], write_shards=4)]


class DeferrableScenario(Scenario):
    name = 'deferrable'
    doc = ('DEFERRABLE primary key: key swaps in one statement, deferred duplicates; AFTER UPDATE '
           'triggers that undo an update or update the row again')
    deferrable = True
    after_triggers = True
    extra_weights = {'swap': 10, 'deferred_dup': 4, 'trig_after': 4,
                     # ON CONFLICT cannot use a deferrable primary key
                     'upsert_nothing': 0, 'upsert_update': 0, 'upsert_key': 0}


class CounterConflictScenario(Scenario):
    """Not a stream scenario: pairs of transactions run with a fixed
    interleaving against two identical tables, with and without counters."""
    name = 'counter_conflicts'
    doc = ('the same transaction pairs (T2 snapshot, T1 commits, T2 writes) with and without '
           'counters: a 40001 only with counters is a failure')

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['data'], counters=4)]


class SelfTestScenario(Scenario):
    """Not a stream scenario: corrupts the index behind the triggers' back
    and requires the oracle's own checks (b) and (c) to notice."""
    name = 'oracle_selftest'
    doc = ('corrupts indexes behind the triggers\' back (session_replication_role = replica, direct '
           'writes to the index table, a wrong write shard): the oracle\'s own checks must see each one')

    def make_indexes(self):
        return [IndexSpec('g_inv', include=['data'], counters=4),
                IndexSpec('g_ws', include=['data'], write_shards=4)]


SCENARIOS = [PlainScenario, TriggersScenario, PartitionedScenario, RangeScenario, DetachScenario, AttachScenario,
             InheritScenario, ShardedScenario, CountedScenario, CountedBaselineScenario, MultiScenario, MultiSqlScenario,
             DeferrableScenario, CounterConflictScenario, SelfTestScenario]
SCENARIO_BY_NAME = {s.name: s for s in SCENARIOS}

# ---------------------------------------------------------------------------
# statements and transactions


class Stmt:
    """One statement of a stream.  sql is a string, or a function
    (session, cursor) -> (sql, copy_data) or None, resolved when run (used
    for statements that depend on the catalog, such as DDL on partitions)."""

    def __init__(self, kind, sql, copy_data=None, wrap=False, refusable=False, dynamic=False,
                 autocommit=False):
        self.kind = kind
        self.sql = sql
        self.copy_data = copy_data
        self.wrap = wrap            # run inside SAVEPOINT w, rolled back on an expected error
        self.refusable = refusable  # DDL the product may refuse
        self.dynamic = dynamic      # names tables that may have gone (42P01 expected)
        self.autocommit = autocommit


class Ctl:
    """SAVEPOINT / ROLLBACK TO / RELEASE inside a transaction."""

    def __init__(self, sql):
        self.sql = sql
        self.kind = 'ctl'


class Txn:
    def __init__(self, items, end='COMMIT', iso='READ COMMITTED', autocommit=False):
        self.items = items
        self.end = end
        self.iso = iso
        self.autocommit = autocommit   # one statement, no BEGIN (DETACH CONCURRENTLY)

    def nstatements(self):
        return sum(1 for i in self.items if isinstance(i, Stmt))


class Gen:
    """Seeded generator of statements for one session."""

    def __init__(self, scenario, rng, session_no, state):
        self.sc = scenario
        self.rng = rng
        self.session_no = session_no
        self.state = state
        w = scenario.weights()
        self.kinds = [k for k in w if w[k] > 0 and k not in state.exclude]
        self.kw = [w[k] for k in self.kinds]
        # key features can be left out too (--exclude key_trailing_sep, ...)
        self.pks = [k for k in PKS if not key_excluded(k, state.exclude)] or ['USER#u0']
        self.sks = [k for k in SKS if not key_excluded(k, state.exclude)] or ['FOLLOWS#USER#u0']

    # values
    def pk(self):
        return self.rng.choice(self.pks)

    def sk(self):
        r = self.rng.random()
        if r < 0.06 and 'key_lowercase' not in self.state.exclude:
            return self.rng.choice(self.sks).lower()
        return self.rng.choice(self.sks)

    def data(self):
        r = self.rng.random()
        if r < 0.2:
            return None
        if r < 0.3:
            return '{}'
        if r < 0.35:
            return '[1, 2.0, "é"]'
        if r < 0.4:
            return '1.0'
        return '{"v": %d%s}' % (self.rng.randrange(20), ', "s": "ü😀"' if self.rng.random() < 0.2 else '')

    def note(self):
        return self.rng.choice([None, None, 'n1', 'n2', 'x'])

    def gsk(self):
        if self.sc.name == 'multi' and self.rng.random() < 0.5:
            return self.rng.choice(GSKS)
        return None

    def row(self, pk=None, sk=None, note=None):
        return (pk or self.pk(), sk or self.sk(), self.data(), note if note is not None else self.note(), self.gsk())

    @staticmethod
    def values(rows):
        return ', '.join('(%s, %s, %s::jsonb, %s, %s)' % tuple(q(v) for v in r) for r in rows)

    def where_key(self, alias=''):
        a = alias + '.' if alias else ''
        return '%spk = %s AND %ssk = %s' % (a, q(self.pk()), a, q(self.sk()))

    def stmt(self, kind):
        st = self._stmt(kind)
        if self.sc.deferrable and isinstance(st.sql, str):
            # ON CONFLICT cannot use a deferrable constraint as its arbiter
            st.sql = re.sub(r' ON CONFLICT (DO NOTHING|\(pk, sk\) DO UPDATE SET .*)$', '', st.sql)
        return st

    # one statement of a kind
    def _stmt(self, kind):
        r = self.rng
        cols = '(pk, sk, data, note, gsk)'
        if kind == 'insert':
            return Stmt(kind, 'INSERT INTO g %s VALUES %s' % (cols, self.values([self.row()])))
        if kind == 'insert_multi':
            rows = [self.row() for _ in range(r.randint(2, 5))]
            tail = ' ON CONFLICT DO NOTHING' if r.random() < 0.6 else ''
            return Stmt(kind, 'INSERT INTO g %s VALUES %s%s' % (cols, self.values(rows), tail))
        if kind == 'insert_select':
            if r.random() < 0.5:
                # copy every in-edge of one target to another target
                return Stmt(kind, 'INSERT INTO g %s SELECT pk, %s, data, note, gsk FROM g WHERE sk = %s '
                                  'ON CONFLICT DO NOTHING' % (cols, q(self.sk()), q(self.sk())))
            return Stmt(kind, "INSERT INTO g %s SELECT ('USER#u' || i)::adjkey, %s, jsonb_build_object('i', i), "
                              "NULL, NULL FROM generate_series(0, %d) i ON CONFLICT DO NOTHING"
                        % (cols, q(self.sk()), r.randint(0, 3)))
        if kind == 'upsert_nothing':
            return Stmt(kind, 'INSERT INTO g %s VALUES %s ON CONFLICT DO NOTHING' % (cols, self.values([self.row()])))
        if kind == 'upsert_update':
            setl = r.choice(['data = EXCLUDED.data', 'data = g.data', 'note = EXCLUDED.note',
                             'data = EXCLUDED.data, note = EXCLUDED.note'])
            rows = [self.row() for _ in range(r.randint(1, 2))]
            return Stmt(kind, 'INSERT INTO g %s VALUES %s ON CONFLICT (pk, sk) DO UPDATE SET %s'
                        % (cols, self.values(rows), setl))
        if kind == 'upsert_key':
            return Stmt(kind, 'INSERT INTO g %s VALUES %s ON CONFLICT (pk, sk) DO UPDATE SET sk = %s, data = EXCLUDED.data'
                        % (cols, self.values([self.row()]), q(self.sk())))
        if kind == 'update_key':
            c = r.random()
            if c < 0.4:
                s = 'sk = %s' % q(self.sk())
            elif c < 0.7:
                s = 'pk = %s' % q(self.pk())
            else:
                s = 'pk = %s, sk = %s' % (q(self.pk()), q(self.sk()))
            return Stmt(kind, 'UPDATE g SET %s WHERE %s' % (s, self.where_key()))
        if kind == 'update_key_bulk':
            if r.random() < 0.5:
                return Stmt(kind, 'UPDATE g SET pk = %s WHERE pk = %s' % (q(self.pk()), q(self.pk())))
            return Stmt(kind, "UPDATE g SET sk = ('LIKES#POST#' || key_part(sk, -1))::adjkey "
                              "WHERE pk = %s AND sk ^@ 'FOLLOWS#USER#'" % q(self.pk()))
        if kind == 'update_projected':
            c = r.random()
            if c < 0.5:
                return Stmt(kind, 'UPDATE g SET data = %s WHERE %s' % (q(self.data()), self.where_key()))
            if c < 0.7:
                return Stmt(kind, 'UPDATE g SET data = data WHERE pk = %s' % q(self.pk()))
            if c < 0.85:
                return Stmt(kind, 'UPDATE g SET data = NULL WHERE sk = %s' % q(self.sk()))
            return Stmt(kind, "UPDATE g SET data = coalesce(data, '{}') || jsonb_build_object('n', %d) "
                              "WHERE pk = %s" % (r.randrange(9), q(self.pk())))
        if kind == 'update_unindexed':
            return Stmt(kind, 'UPDATE g SET note = %s WHERE pk = %s' % (q(r.choice(['n1', 'n2', 'n3'])), q(self.pk())))
        if kind == 'update_gsk':
            v = q(r.choice(GSKS)) if r.random() < 0.6 else 'NULL'
            return Stmt(kind, 'UPDATE g SET gsk = %s WHERE %s' % (v, r.choice(
                [self.where_key(), 'pk = %s' % q(self.pk())])))
        if kind == 'delete':
            return Stmt(kind, 'DELETE FROM g WHERE %s' % self.where_key())
        if kind == 'delete_prefix':
            pref = r.choice(['FOLLOWS#', 'LIKES#', 'F', 'X\\#', 'TAG#'])
            return Stmt(kind, 'DELETE FROM g WHERE pk = %s AND sk ^@ %s' % (q(self.pk()), q(pref)))
        if kind == 'delete_range':
            a, b = sorted([self.pk(), self.pk()])
            return Stmt(kind, 'DELETE FROM g WHERE pk >= %s AND pk < %s' % (q(a), q(b)))
        if kind == 'merge':
            rows = [self.row() for _ in range(r.randint(1, 3))]
            seen = set()
            rows = [x for x in rows if (x[0], x[1]) not in seen and not seen.add((x[0], x[1]))]
            return Stmt(kind,
                        'MERGE INTO g USING (VALUES %s) AS v(pk, sk, data, note, gsk) '
                        'ON g.pk = v.pk::adjkey AND g.sk = v.sk::adjkey '
                        'WHEN MATCHED AND v.data IS NULL THEN DELETE '
                        'WHEN MATCHED THEN UPDATE SET data = v.data, note = v.note '
                        'WHEN NOT MATCHED THEN INSERT VALUES (v.pk::adjkey, v.sk::adjkey, v.data, v.note, v.gsk::adjkey)'
                        % self.values(rows))
        if kind == 'merge_key':
            return Stmt(kind,
                        'MERGE INTO g USING (VALUES (%s::adjkey, %s::adjkey, %s::adjkey)) AS v(pk, sk, nsk) '
                        'ON g.pk = v.pk AND g.sk = v.sk '
                        'WHEN MATCHED THEN UPDATE SET sk = v.nsk '
                        'WHEN NOT MATCHED THEN INSERT (pk, sk) VALUES (v.pk, v.nsk)'
                        % (q(self.pk()), q(self.sk()), q(self.sk())))
        if kind == 'copy':
            rows = {}
            for _ in range(r.randint(1, 6)):
                x = self.row()
                rows[(x[0], x[1])] = x
            buf = io.StringIO()
            for x in rows.values():
                buf.write(','.join('' if v is None else '"' + str(v).replace('"', '""') + '"' for v in x) + '\n')
            return Stmt(kind, 'COPY g (pk, sk, data, note, gsk) FROM STDIN WITH (FORMAT csv)',
                        copy_data=buf.getvalue())
        if kind == 'wcte_move':
            return Stmt(kind, 'WITH d AS (DELETE FROM g WHERE %s RETURNING *) '
                              'INSERT INTO g SELECT d.pk, %s, d.data, d.note, d.gsk FROM d ON CONFLICT DO NOTHING'
                        % (self.where_key(), q(self.sk())))
        if kind == 'swap':
            p = self.pk()
            a, b = r.sample(self.sks, 2)
            return Stmt(kind, 'UPDATE g SET sk = CASE WHEN sk = %s THEN %s::adjkey ELSE %s::adjkey END '
                              'WHERE pk = %s AND sk IN (%s, %s)' % (q(a), q(b), q(a), q(p), q(a), q(b)))
        if kind == 'truncate':
            return Stmt(kind, 'TRUNCATE g')
        if kind == 'trig_update':
            mark = r.choice(['lower', 'append', 'skappend', 'pkupper', 'skip'])
            c = r.random()
            if c < 0.5:
                return Stmt(kind, 'UPDATE g SET note = %s WHERE %s' % (q(mark), r.choice(
                    [self.where_key(), 'pk = %s' % q(self.pk())])))
            if c < 0.8:
                return Stmt(kind, 'UPDATE g SET note = %s, sk = %s WHERE %s' % (q(mark), q(self.sk()), self.where_key()))
            return Stmt(kind, 'UPDATE g SET note = %s, data = %s WHERE %s' % (q(mark), q(self.data()), self.where_key()))
        if kind == 'trig_after':
            mark = r.choice(['undo', 'sundo', 'again'])
            where = r.choice([self.where_key(), 'pk = %s' % q(self.pk())])
            if r.random() < 0.5:
                return Stmt(kind, 'UPDATE g SET note = %s, data = %s WHERE %s' % (q(mark), q(self.data()), where))
            return Stmt(kind, 'UPDATE g SET note = %s WHERE %s' % (q(mark), where))
        if kind == 'trig_insert':
            mark = r.choice(['ins_lower', 'ins_data', 'ins_skip'])
            tail = r.choice(['', ' ON CONFLICT DO NOTHING', ' ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data'])
            return Stmt(kind, 'INSERT INTO g %s VALUES %s%s' % (cols, self.values([self.row(note=mark)]), tail))
        if kind == 'part_write':
            return self.part_write()
        if kind == 'truncate_partition':
            return Stmt(kind, 'TRUNCATE g_p%d' % r.randrange(self.sc.nparts), dynamic=True)
        if kind == 'child_write':
            return self.child_write()
        if kind == 'ddl_partition':
            return Stmt(kind, self.ddl_partition, refusable=True)
        if kind == 'ddl_inherit':
            return Stmt(kind, self.ddl_inherit, refusable=True)
        raise ValueError(kind)

    # writes straight into a partition (attached or detached); keys chosen
    # so that they belong to that partition
    def part_write(self):
        r = self.rng
        i = r.randrange(self.sc.nparts)
        pks = self.state.part_pks.get(i) or [self.pk()]
        p = r.choice(pks)
        c = r.random()
        t = 'g_p%d' % i
        if c < 0.45:
            return Stmt('part_write', 'INSERT INTO %s (pk, sk, data, note, gsk) VALUES %s ON CONFLICT DO NOTHING'
                        % (t, self.values([self.row(pk=p)])), dynamic=True)
        if c < 0.65:
            return Stmt('part_write', 'UPDATE %s SET data = %s WHERE pk = %s' % (t, q(self.data()), q(p)), dynamic=True)
        if c < 0.8:
            return Stmt('part_write', 'UPDATE %s SET sk = %s WHERE pk = %s AND sk = %s'
                        % (t, q(self.sk()), q(p), q(self.sk())), dynamic=True)
        return Stmt('part_write', 'DELETE FROM %s WHERE pk = %s AND sk = %s' % (t, q(p), q(self.sk())), dynamic=True)

    def child_write(self):
        gen = self

        def resolve(session, cur):
            cur.execute("SELECT c.relname FROM pg_class c WHERE c.relname LIKE 'g\\_child%' AND c.relkind = 'r' "
                        "ORDER BY 1")
            names = [x[0] for x in cur.fetchall()]
            if not names:
                return None
            t = gen.rng.choice(names)
            c = gen.rng.random()
            if c < 0.5:
                return ('INSERT INTO %s (pk, sk, data, note, gsk) VALUES %s ON CONFLICT DO NOTHING'
                        % (t, gen.values([gen.row()])), None)
            if c < 0.75:
                return ('UPDATE %s SET sk = %s WHERE pk = %s' % (t, q(gen.sk()), q(gen.pk())), None)
            return ('DELETE FROM %s WHERE pk = %s' % (t, q(gen.pk())), None)
        return Stmt('child_write', resolve, dynamic=True)

    # session 0 only: DETACH / ATTACH partitions, index a detached table
    def ddl_partition(self, session, cur):
        r = self.rng
        n = self.sc.nparts
        cur.execute("SELECT c.relname, i.inhdetachpending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                    "WHERE i.inhparent = 'g'::regclass")
        attached = {}
        for name, pending in cur.fetchall():
            attached[name] = pending
        for name, pending in attached.items():
            if pending:
                return ('ALTER TABLE g DETACH PARTITION %s FINALIZE' % name, None, False)
        detached = [i for i in range(n) if 'g_p%d' % i not in attached]
        ops = self.sc.ddl_ops
        if detached and ('detach' not in ops or r.random() < 0.6 or len(attached) <= 2):
            i = r.choice(detached)
            t = 'g_p%d' % i
            cur.execute("SELECT 1 FROM adjlist_inverted_indexes WHERE baserel = %s::regclass", (t,))
            indexed = cur.fetchone() is not None
            c = r.random()
            if not indexed and c < 0.35 and 'index_detached' in ops:
                # make the detached table an indexed table of its own, to attach it later
                spec = IndexSpec('g_p%d_inv' % i, base=t, include=['data'], dynamic=True)
                self.state.add_dynamic_index(spec)
                return (spec.create_sql(), None, False)
            if indexed and c < 0.4:
                return ("SELECT drop_inverted_index('g_p%d_inv')" % i, None, False)
            # a refusal is accepted only for a table that has an inverted index of its own
            return ('ALTER TABLE g ATTACH PARTITION %s %s' % (t, self.sc.part_bound(i)), None, indexed)
        if 'detach' not in ops:
            return None
        i = int(r.choice(sorted(attached))[3:])
        conc = r.random() < 0.4
        if conc:
            session.want_autocommit = True
        # a refusal is accepted for DETACH ... CONCURRENTLY only
        return ('ALTER TABLE g DETACH PARTITION g_p%d%s' % (i, ' CONCURRENTLY' if conc else ''), None, conc)

    # session 0 only: inheritance children
    def ddl_inherit(self, session, cur):
        r = self.rng
        cur.execute("SELECT c.relname, EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid) "
                    "FROM pg_class c WHERE c.relname LIKE 'g\\_child%' AND c.relkind = 'r' ORDER BY 1")
        tables = cur.fetchall()
        c = r.random()
        if not tables or (len(tables) < 3 and c < 0.4):
            name = 'g_child%d' % r.randrange(3)
            if any(t[0] == name for t in tables):
                name = 'g_child%d' % r.randrange(3, 6)
            if any(t[0] == name for t in tables):
                return None
            if r.random() < 0.5:
                return ('CREATE TABLE %s () INHERITS (g)' % name, None, True)
            # a table with rows that becomes a child later
            return ('CREATE TABLE %s (LIKE g); INSERT INTO %s VALUES %s'
                    % (name, name, self.values([self.row() for _ in range(3)])), None, False)
        if not tables:
            return None
        name, inherits = r.choice(tables)
        c = r.random()
        if not inherits and c < 0.6:
            return ('ALTER TABLE %s INHERIT g' % name, None, True)
        if inherits and c < 0.4:
            return ('ALTER TABLE %s NO INHERIT g' % name, None, False)
        if c < 0.8:
            return ('DROP TABLE %s' % name, None, False)
        return ('ALTER TABLE %s ADD COLUMN IF NOT EXISTS extra int' % name, None, False)

    # one transaction
    def txn(self):
        r = self.rng
        iso = r.choice(ISOLATION)
        ddl_kinds = {'ddl_partition', 'ddl_inherit'}
        kind = self.pick()
        if kind in ddl_kinds:
            if self.session_no != 0:
                kind = self.pick(exclude=ddl_kinds)
            else:
                return Txn([self.stmt(kind)], iso='READ COMMITTED')
        if kind == 'truncate' or kind == 'truncate_partition':
            return Txn([self.stmt(kind)], iso=iso)
        if kind == 'deferred_dup':
            return self.deferred_dup_txn(iso)
        if kind == 'copy':
            # delete the copied keys first, or most COPYs would hit the primary key
            st = self.stmt('copy')
            keys = [line for line in st.copy_data.splitlines()]
            dels = []
            for line in keys:
                vals = next(csv.reader([line]))
                dels.append('(pk = %s AND sk = %s)' % (q(vals[0]), q(vals[1])))
            return Txn([Stmt('delete', 'DELETE FROM g WHERE ' + ' OR '.join(dels)), st], iso=iso)
        shape = r.random()
        first = self.stmt(kind)
        if shape < 0.5:
            return Txn([first], iso=iso)
        items = [first]
        n = r.randint(1, 3)
        for _ in range(n):
            items.append(self.stmt(self.pick(exclude=ddl_kinds | {'truncate', 'truncate_partition', 'deferred_dup'})))
        for it in items:
            if r.random() < 0.3:
                it.wrap = True
        if shape < 0.75:
            return Txn(items, iso=iso)
        if shape < 0.88:
            # a savepoint rolled back in the middle
            k = r.randint(0, len(items) - 1)
            extra = [self.stmt(self.pick(exclude=ddl_kinds | {'truncate', 'truncate_partition', 'deferred_dup', 'copy'}))
                     for _ in range(r.randint(1, 2))]
            for e in extra:
                e.wrap = False
            items = items[:k] + [Ctl('SAVEPOINT s')] + extra + [Ctl('ROLLBACK TO SAVEPOINT s')] + items[k:]
            return Txn(items, iso=iso)
        return Txn(items, end='ROLLBACK', iso=iso)

    def deferred_dup_txn(self, iso):
        # a duplicate key that lives until a later statement of the
        # transaction resolves it (only legal with a deferred primary key)
        p, s = self.pk(), self.sk()
        s2 = self.sk()
        r = self.rng.random()
        items = [Stmt('deferred_dup', 'SET CONSTRAINTS ALL DEFERRED'),
                 Stmt('deferred_dup', 'INSERT INTO g (pk, sk, data) VALUES (%s, %s, NULL), (%s, %s, %s)'
                      % (q(p), q(s), q(p), q(s), q(self.data())))]
        if r < 0.5:
            items.append(Stmt('deferred_dup', 'UPDATE g SET sk = %s WHERE ctid = (SELECT max(ctid) FROM g '
                                              'WHERE pk = %s AND sk = %s)' % (q(s2), q(p), q(s))))
        else:
            items.append(Stmt('deferred_dup', 'DELETE FROM g WHERE ctid = (SELECT max(ctid) FROM g '
                                              'WHERE pk = %s AND sk = %s)' % (q(p), q(s))))
        if self.rng.random() < 0.5:
            items.append(Stmt('deferred_dup', 'SET CONSTRAINTS ALL IMMEDIATE'))
        return Txn(items, iso=iso)

    def pick(self, exclude=()):
        while True:
            k = self.rng.choices(self.kinds, self.kw)[0]
            if k not in exclude:
                return k


# ---------------------------------------------------------------------------
# running


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.statements = 0
        self.executions = 0
        self.txns = 0
        self.commits = 0
        self.rollbacks = 0
        self.retries = collections.Counter()
        self.gave_up = collections.Counter()
        self.aborted = collections.Counter()
        self.refusals = collections.Counter()
        self.refusal_examples = {}
        self.wrapped_errors = collections.Counter()
        self.by_iso_40001 = collections.Counter()


class RunState:
    """What the sessions of one scenario share."""

    def __init__(self, scenario, seed, exclude):
        self.sc = scenario
        self.seed = seed
        self.exclude = set(exclude)
        self.stats = Stats()
        self.lock = threading.Lock()
        self.indexes = list(scenario.indexes)
        self.failures = []          # (batch, text)
        self.soft_failures = []     # failures that do not stop the scenario
        self.history = []           # attempts in the order they ended
        self.seq = 0
        self.part_pks = {}
        self.index_tables = set()   # names of tables that belong to indexes
        self.batch = 0

    def add_dynamic_index(self, spec):
        with self.lock:
            if not any(s.name == spec.name for s in self.indexes):
                self.indexes.append(spec)

    def fail(self, text):
        with self.lock:
            self.failures.append((self.batch, text))


def classify_error(e, refusable=False, dynamic=False):
    """retry, refusal, expected (the application's own error) or unexpected
    (the product's fault)."""
    code = e.pgcode
    if code in RETRY_CODES:
        return 'retry'
    if code is None or code.startswith('XX') or code.startswith('58'):
        return 'unexpected'
    if code == '23505':
        t = getattr(e.diag, 'table_name', None)
        # a duplicate in a base table (g, its partitions, its children) is
        # the application's; one in an index table is the product's
        if t and not re.match(r'^(g|g_p\d+|g_child\d+)$', t):
            return 'unexpected'
    if refusable:
        return 'refusal'
    if code in ('23505', '23514', '21000'):
        return 'expected'
    if code in ('42P01', '42P07') and dynamic:
        return 'expected'
    return 'unexpected'


def connect(dbname, app='adjrand'):
    conn = psycopg2.connect(dbname=dbname, application_name=app)
    conn.autocommit = True
    return conn


class Session:
    def __init__(self, state, dbname, no):
        self.state = state
        self.no = no
        self.conn = connect(dbname, 'adjrand-s%d' % no)
        self.cur = self.conn.cursor()
        self.cur.execute("SET deadlock_timeout = '50ms'; SET lock_timeout = '20s'; "
                         "SET statement_timeout = '120s'")
        self.rng = random.Random('%s/%s/%d' % (state.seed, state.sc.stream or state.sc.name, no))
        self.gen = Gen(state.sc, self.rng, no, state)
        self.log = collections.deque(maxlen=25)
        self.attempt = None
        self.want_autocommit = False
        self.dbname = dbname

    def x(self, sql, copy_data=None):
        self.attempt.append((sql, copy_data))
        if copy_data is not None:
            self.cur.copy_expert(sql, io.StringIO(copy_data))
        else:
            self.cur.execute(sql)

    def classify(self, e, item):
        return classify_error(e, getattr(item, 'refusable', False), getattr(item, 'dynamic', False))

    def run_batch(self, nstatements, deadline):
        done = 0
        while done < nstatements:
            if time.time() > deadline:
                self.state.fail('session %d: batch took too long (deadline)' % self.no)
                return
            txn = self.gen.txn()
            n = txn.nstatements()
            with self.state.stats.lock:
                self.state.stats.statements += n
                self.state.stats.txns += 1
            self.run_txn(txn)
            done += max(n, 1)

    def record(self, txn, outcome):
        with self.state.lock:
            self.state.seq += 1
            self.state.history.append((self.state.seq, self.no, txn.iso, list(self.attempt), outcome,
                                       self.state.batch))
        short = ' ; '.join(s for s, _ in self.attempt)
        if len(short) > 600:
            short = short[:600] + ' ...'
        self.log.append('[%s] %s -> %s' % (ISO_SHORT.get(txn.iso, txn.iso), short, outcome))

    def run_txn(self, txn):
        st = self.state.stats
        for attempt_no in range(MAX_RETRIES + 1):
            self.attempt = []
            item = None
            autocommit = False
            try:
                resolved = []
                # statements whose SQL depends on the catalog are resolved first
                for it in txn.items:
                    if isinstance(it, Stmt) and callable(it.sql):
                        self.want_autocommit = False
                        res = it.sql(self, self.cur)
                        if res is None:
                            continue
                        if len(res) > 2:
                            # the resolver says whether the product may refuse this one
                            it = Stmt(it.kind, res[0], res[1], wrap=it.wrap, refusable=res[2],
                                      dynamic=it.dynamic)
                        resolved.append((it, res[0], res[1]))
                        autocommit = autocommit or self.want_autocommit
                    elif isinstance(it, Stmt):
                        resolved.append((it, it.sql, it.copy_data))
                    else:
                        resolved.append((it, it.sql, None))
                if not any(isinstance(it, Stmt) for it, _, _ in resolved):
                    return
                if not autocommit:
                    self.x('BEGIN ISOLATION LEVEL %s' % txn.iso)
                for it, sql, data in resolved:
                    item = it
                    if isinstance(it, Ctl):
                        self.x(sql)
                        continue
                    with st.lock:
                        st.executions += 1
                    if it.wrap:
                        self.x('SAVEPOINT w')
                        try:
                            self.x(sql, data)
                        except psycopg2.Error as e:
                            if self.classify(e, it) == 'expected':
                                self.x('ROLLBACK TO SAVEPOINT w')
                                with st.lock:
                                    st.wrapped_errors[e.pgcode] += 1
                                continue
                            raise
                        self.x('RELEASE SAVEPOINT w')
                    else:
                        self.x(sql, data)
                item = None
                if not autocommit:
                    self.x(txn.end)
                with st.lock:
                    if txn.end == 'COMMIT' or autocommit:
                        st.commits += 1
                    else:
                        st.rollbacks += 1
                self.record(txn, 'ok' if txn.end == 'COMMIT' else 'rolled back')
                return
            except psycopg2.Error as e:
                code = e.pgcode
                msg = (e.pgerror or str(e)).strip().replace('\n', ' | ')
                if self.attempt:
                    s, d = self.attempt[-1]
                    self.attempt[-1] = (s + '  -- ERROR %s' % code, d)
                try:
                    if not self.conn.closed:
                        self.cur.execute('ROLLBACK')
                except psycopg2.Error:
                    pass
                if self.conn.closed or code is None:
                    self.record(txn, 'connection lost: %s' % msg)
                    self.state.fail('session %d: connection lost: %s' % (self.no, msg))
                    self.reconnect()
                    return
                cls = self.classify(e, item)
                self.record(txn, 'ERROR %s %s' % (code, msg[:200]))
                if cls == 'retry':
                    with st.lock:
                        st.retries[code] += 1
                        if code == '40001':
                            st.by_iso_40001[txn.iso] += 1
                    if attempt_no < MAX_RETRIES:
                        time.sleep(self.rng.random() * 0.003 * (attempt_no + 1))
                        continue
                    with st.lock:
                        st.gave_up[code] += 1
                    return
                if cls == 'refusal':
                    with st.lock:
                        st.refusals[code] += 1
                        st.refusal_examples.setdefault(code, '%s: %s' % (self.attempt[-1][0][:200], msg[:200]))
                    return
                if cls == 'expected':
                    with st.lock:
                        st.aborted[code] += 1
                    return
                stmt_sql = self.attempt[-1][0] if self.attempt else '?'
                self.state.fail('session %d: unexpected error %s in [%s] %s\n    %s'
                                % (self.no, code, ISO_SHORT.get(txn.iso), stmt_sql[:400], msg[:400]))
                return

    def reconnect(self):
        try:
            self.conn.close()
        except Exception:
            pass
        for _ in range(50):
            try:
                self.conn = connect(self.dbname, 'adjrand-s%d' % self.no)
                self.cur = self.conn.cursor()
                return
            except psycopg2.Error:
                time.sleep(0.2)

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass


# ---------------------------------------------------------------------------
# the oracle


def table_columns(cur, table):
    cur.execute("SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum", (table,))
    return [x[0] for x in cur.fetchall()]


def fetch_rows(cur, table, cols):
    cur.execute('SELECT %s FROM %s' % (', '.join('%s::text' % psycopg2.extensions.quote_ident(c, cur)
                                                  for c in cols), table))
    return cur.fetchall()


def expected_index(spec, base_cols, base_rows, idx_cols):
    """The index rows the definition computes, as a Counter of tuples over
    idx_cols; also the logical (partition key, sort key) pairs."""
    pos = {c: i for i, c in enumerate(base_cols)}
    exp = collections.Counter()
    logical = []
    for row in base_rows:
        pkv = row[pos[spec.partition_key]]
        skv = row[pos[spec.sort_key]]
        if pkv is None or skv is None:
            continue
        if spec.predicate and not spec.predicate[1](dict(zip(base_cols, row))):
            continue
        logical.append((pkv, skv))
        out = []
        for c in idx_cols:
            if c == spec.partition_key:
                v = pkv
                if spec.write_shards:
                    v = '%s#%d' % (pkv, fnv1a32(skv) % spec.write_shards)
                out.append(v)
            elif c in pos:
                out.append(row[pos[c]])
            else:
                out.append(None)
        exp[tuple(out)] += 1
    return exp, logical


def expected_counts(logical):
    cnt = collections.Counter()
    for p, s in logical:
        edge, rest = split_first(p)
        if edge == '':
            continue
        cnt[(s, edge, 'out')] += 1
        if rest != '':
            cnt[(rest, edge, 'in')] += 1
    return cnt


def key_len(spec, idx_cols):
    keys = [spec.partition_key, spec.sort_key] + [c for c in ('pk', 'sk') if c not in (spec.partition_key, spec.sort_key)]
    return [idx_cols.index(k) for k in keys if k in idx_cols]


def diff_rows(exp, act, keypos, limit=12):
    def bykey(c):
        d = collections.defaultdict(list)
        for t, n in c.items():
            for _ in range(n):
                d[tuple(t[i] for i in keypos)].append(t)
        return d
    e, a = bykey(exp), bykey(act)
    out = []
    for k in sorted(set(e) | set(a), key=lambda k: tuple('' if v is None else v for v in k)):
        ev, av = sorted(e.get(k, []), key=str), sorted(a.get(k, []), key=str)
        if ev == av:
            continue
        if not av:
            out.append('missing %s' % (ev,))
        elif not ev:
            out.append('extra   %s' % (av,))
        else:
            out.append('stale   expected %s actual %s' % (ev, av))
    n = len(out)
    return n, out[:limit]


def oracle(conn, state, rng, label):
    """Check every index; returns a list of problem texts."""
    problems = []
    cur = conn.cursor()
    cur.execute('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    try:
        base_cache = {}
        for spec in list(state.indexes):
            cur.execute('SELECT to_regclass(%s), to_regclass(%s)', (spec.name, spec.base))
            ir, br = cur.fetchone()
            if ir is None:
                if not spec.dynamic:
                    problems.append('%s: index table is gone' % spec.name)
                continue
            if br is None:
                continue
            if spec.base not in base_cache:
                bc = table_columns(cur, spec.base)
                base_cache[spec.base] = (bc, fetch_rows(cur, spec.base, bc))
            base_cols, base_rows = base_cache[spec.base]
            # (a) the product's own verify
            cur.execute('SAVEPOINT c')
            try:
                cur.execute('SELECT problem, key::text, expected::text, actual::text '
                            'FROM verify_inverted_index(%s::regclass)', (spec.name,))
                vrows = cur.fetchall()
                cur.execute('RELEASE SAVEPOINT c')
                if vrows:
                    problems.append('%s: verify_inverted_index returned %d rows:\n%s' % (
                        spec.name, len(vrows), '\n'.join('      %s' % (r,) for r in vrows[:12])))
            except psycopg2.Error as e:
                cur.execute('ROLLBACK TO SAVEPOINT c')
                problems.append('%s: verify_inverted_index failed: %s %s' % (spec.name, e.pgcode, (e.pgerror or '').strip()))
            # (b) independent comparison
            idx_cols = table_columns(cur, spec.name)
            act = collections.Counter(fetch_rows(cur, spec.name, idx_cols))
            exp, logical = expected_index(spec, base_cols, base_rows, idx_cols)
            if exp != act:
                n, lines = diff_rows(exp, act, key_len(spec, idx_cols))
                problems.append('%s: index rows differ from the definition (%d keys; columns %s):\n%s' % (
                    spec.name, n, idx_cols, '\n'.join('      ' + l for l in lines)))
            # (c) counters
            if spec.counters:
                problems += check_counts(cur, spec, logical, rng, state.exclude, state)
        cur.execute('COMMIT')
    except psycopg2.Error as e:
        cur.execute('ROLLBACK')
        problems.append('oracle query failed: %s %s' % (e.pgcode, (e.pgerror or '').strip()))
    return problems


def check_counts(cur, spec, logical, rng, exclude=(), state=None):
    cnt = expected_counts(logical)
    probes = list(cnt.keys())
    # some that must be 0
    nodes = sorted(set(PKS + TARGETS + [split_first(s)[1] for s in SKS if split_first(s)[1]] + ['NOBODY']))
    edges = sorted(set(split_first(s)[0] for s in SKS) | {'NOPE', 'follows'})
    zeros = [(n, e, d) for n in nodes for e in edges for d in ('out', 'in') if (n, e, d) not in cnt]
    probes += rng.sample(zeros, min(len(zeros), 80))
    # the trailing-separator spelling of the edge name must mean the same
    # (a check of its own: --exclude edge_spelling leaves it out)
    variants = []
    if 'edge_spelling' not in exclude:
        variants = [(n, e + '#', d) for (n, e, d) in rng.sample(probes, min(len(probes), 40))]
    allp = probes + variants
    cur.execute('SAVEPOINT cc')
    try:
        cur.execute('SELECT n, e, d, edge_count(%s::regclass, n::adjkey, e, d) '
                    'FROM unnest(%s::text[], %s::text[], %s::text[]) AS t(n, e, d)',
                    (spec.name, [p[0] for p in allp], [p[1] for p in allp], [p[2] for p in allp]))
        got = cur.fetchall()
        cur.execute('RELEASE SAVEPOINT cc')
    except psycopg2.Error as e:
        cur.execute('ROLLBACK TO SAVEPOINT cc')
        return ['%s: edge_count failed: %s %s' % (spec.name, e.pgcode, (e.pgerror or '').strip())]
    bad = []
    spelling = []
    for i, (n, e, d, c) in enumerate(got):
        ename = e[:-1] if i >= len(probes) else e
        want = cnt.get((n, ename, d), 0)
        if c != want:
            line = "edge_count(%s, %s, %s, %s) = %s, expected %d" % (spec.name, q(n), q(e), q(d), c, want)
            (spelling if i >= len(probes) else bad).append(line)
    out = []
    if bad:
        out.append('%s: %d edge_count mismatches (of %d probes):\n%s' % (
            spec.name, len(bad), len(probes), '\n'.join('      ' + b for b in bad[:15])))
    if spelling and state is not None:
        # reported once, then left out, so that it does not hide drift
        with state.lock:
            state.soft_failures.append(
                'batch %d: %s: the edge name spelled with a trailing separator (\'FOLLOWS#\') does not count '
                'as the bare name (\'FOLLOWS\'): %d of %d probes differ:\n%s'
                % (state.batch, spec.name, len(spelling), len(variants),
                   '\n'.join('      ' + b for b in spelling[:8])))
            state.exclude.add('edge_spelling')
    return out


# ---------------------------------------------------------------------------
# setup, replay and reduction


def admin_conn():
    return connect(os.environ.get('PGDATABASE', 'postgres'), 'adjrand-admin')


def fresh_db(dbname):
    conn = admin_conn()
    cur = conn.cursor()
    cur.execute('DROP DATABASE IF EXISTS %s WITH (FORCE)' % dbname)
    cur.execute('CREATE DATABASE %s' % dbname)
    conn.close()


def drop_db(dbname):
    conn = admin_conn()
    conn.cursor().execute('DROP DATABASE IF EXISTS %s WITH (FORCE)' % dbname)
    conn.close()


def setup_db(dbname, sc, initial_rows, indexes=None, with_ext_retry=True):
    """Create the scenario's schema, load initial rows (before the indexes:
    the indexes backfill them) and create the indexes."""
    fresh_db(dbname)
    conn = connect(dbname)
    cur = conn.cursor()
    for attempt in range(30):
        try:
            cur.execute('CREATE EXTENSION adjlist')
            break
        except psycopg2.Error as e:
            if not with_ext_retry or attempt == 29:
                raise
            sys.stderr.write('CREATE EXTENSION adjlist failed (%s); retrying in 10 s\n' % (e.pgerror or e).strip())
            time.sleep(10)
    cur.execute(sc.table_sql())
    if initial_rows:
        cur.execute('INSERT INTO g (pk, sk, data, note, gsk) VALUES %s' % Gen.values(initial_rows))
    if sc.post_load_sql():
        cur.execute(sc.post_load_sql())
    for spec in (indexes if indexes is not None else sc.indexes):
        cur.execute(spec.create_sql())
    return conn


def initial_rows(sc, seed, exclude=()):
    r = random.Random('%s/%s/initial' % (seed, sc.stream or sc.name))
    g = Gen(sc, r, -1, RunState(sc, seed, exclude))
    rows = {}
    for _ in range(30):
        x = g.row(note=r.choice([None, 'n1']))
        rows[(x[0], x[1])] = x
    return list(rows.values())


def script_of(sc, rows, attempts):
    out = ['-- adjlist consistency repro (scenario %s)' % sc.name,
           'CREATE EXTENSION IF NOT EXISTS adjlist;', sc.table_sql().strip()]
    if rows:
        out.append('INSERT INTO g (pk, sk, data, note, gsk) VALUES %s;' % Gen.values(rows))
    if sc.post_load_sql():
        out.append(sc.post_load_sql())
    for spec in sc.indexes:
        out.append(spec.create_sql() + ';')
    for a in attempts:
        seq, sess, iso, cmds, outcome, batch = a
        for sql, data in cmds:
            s = sql.split('  -- ERROR')[0]
            if data is not None:
                out.append(s + ';\n' + data + '\\.')
            else:
                out.append(s + ';')
        if outcome.startswith('ERROR') or outcome.startswith('connection'):
            out.append('ROLLBACK;  -- originally: %s' % outcome[:120])
    for spec in sc.indexes:
        out.append("SELECT * FROM verify_inverted_index('%s');" % spec.name)
    return '\n'.join(out)


def replay(dbname, sc, rows, attempts, rng):
    """Run attempts one after the other in one session; return the oracle's
    problems (or None when the setup itself failed)."""
    try:
        conn = setup_db(dbname, sc, rows, with_ext_retry=False)
    except psycopg2.Error:
        return None
    cur = conn.cursor()
    cur.execute("SET statement_timeout = '20s'")
    unexpected = []
    for a in attempts:
        cmds = a[3]
        in_txn = False
        for k, (sql, data) in enumerate(cmds):
            s = sql.split('  -- ERROR')[0]
            try:
                if data is not None:
                    cur.copy_expert(s, io.StringIO(data))
                else:
                    cur.execute(s)
                if s.startswith('BEGIN'):
                    in_txn = True
                if s in ('COMMIT', 'ROLLBACK'):
                    in_txn = False
            except psycopg2.Error as e:
                ddl = bool(re.match(r'^(ALTER|CREATE|DROP|SELECT (create|drop)_inverted)', s))
                if classify_error(e, ddl, True) == 'unexpected':
                    unexpected.append('unexpected error %s in %s: %s' % (
                        e.pgcode, s[:300], (e.pgerror or '').strip().split('\n')[0]))
                if k + 1 < len(cmds) and cmds[k + 1][0] == 'ROLLBACK TO SAVEPOINT w':
                    continue
                try:
                    cur.execute('ROLLBACK')
                except psycopg2.Error:
                    pass
                in_txn = False
                break
        if in_txn:
            try:
                cur.execute('ROLLBACK')
            except psycopg2.Error:
                pass
    st = RunState(sc, 0, ('edge_spelling',))
    probs = unexpected + oracle(conn, st, rng, 'replay')
    conn.close()
    return probs


def ddmin(items, test, deadline):
    """Delta debugging: a 1-minimal sublist for which test() is true (as far
    as the deadline allows)."""
    n = 2
    while len(items) >= 2 and time.time() < deadline:
        chunk = max(1, len(items) // n)
        subsets = [items[i:i + chunk] for i in range(0, len(items), chunk)]
        reduced = False
        for i in range(len(subsets)):
            if time.time() > deadline:
                break
            complement = [x for j, s in enumerate(subsets) if j != i for x in s]
            if test(complement):
                items = complement
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(n * 2, len(items))
    return items


def reduce_failure(sc, state, last_good_rows, batch, budget):
    """Replay the failing batch sequentially from the last good base rows and
    shrink it.  Returns the repro script or a sentence saying why not."""
    dbname = DB_PREFIX + sc.name + '_reduce'
    attempts = [a for a in state.history if a[5] == batch]
    rng = random.Random(0)
    deadline = time.time() + budget
    if sc.ddl_session:
        # the catalog changed in earlier batches: replay everything
        probs = []
    else:
        probs = replay(dbname, sc, last_good_rows, attempts, rng)
        if probs is None:
            return 'not reduced: the setup of the replay failed'
    if not probs:
        # also try the whole history from the start
        attempts = list(state.history)
        last_good_rows = initial_rows(sc, state.seed, state.exclude)
        probs = replay(dbname, sc, last_good_rows, attempts, rng)
        if not probs:
            drop_db(dbname)
            return ('not reduced: replaying the statements one session at a time does not reproduce it '
                    '(depends on the interleaving of the sessions)')

    def test_attempts(sub):
        p = replay(dbname, sc, last_good_rows, sub, rng)
        return bool(p)
    attempts = ddmin(attempts, test_attempts, deadline)
    # then the statements inside the remaining attempts (keeping BEGIN/COMMIT)
    flat = []
    for ai, a in enumerate(attempts):
        for ci, c in enumerate(a[3]):
            flat.append((ai, ci))

    def rebuild(sel):
        keep = set(sel)
        out = []
        for ai, a in enumerate(attempts):
            cmds = [c for ci, c in enumerate(a[3])
                    if (ai, ci) in keep or c[0].startswith('BEGIN') or c[0] in ('COMMIT', 'ROLLBACK')]
            out.append(a[:3] + (cmds,) + a[4:])
        return out
    movable = [f for f in flat if not (attempts[f[0]][3][f[1]][0].startswith('BEGIN')
                                       or attempts[f[0]][3][f[1]][0] in ('COMMIT', 'ROLLBACK'))]
    movable = ddmin(movable, lambda sub: test_attempts(rebuild(sub)), deadline)
    attempts = rebuild(movable)
    rows = ddmin(list(last_good_rows), lambda sub: bool(replay(dbname, sc, sub, attempts, rng)), deadline)
    if not replay(dbname, sc, rows, attempts, rng):
        rows = last_good_rows
    final = replay(dbname, sc, rows, attempts, rng) or []
    drop_db(dbname)
    return script_of(sc, rows, attempts) + '\n-- the oracle says:\n' + '\n'.join(
        '-- ' + l for p in final for l in p.splitlines())


# ---------------------------------------------------------------------------
# the counter conflict probe


def run_counter_conflicts(sc, seed, pairs, args):
    """Run the same pairs of transactions, with a fixed interleaving, on a
    table with counters and on one without; a 40001 that only happens with
    counters is a failure."""
    t0 = time.time()
    with_c = DB_PREFIX + sc.name + '_with'
    without = DB_PREFIX + sc.name + '_without'
    rows0 = initial_rows(sc, seed, args.exclude)
    nocount = [IndexSpec('g_inv', include=['data'], counters=0)]
    conns = {}
    conns[with_c] = (setup_db(with_c, sc, rows0), connect(with_c), connect(with_c))
    conns[without] = (setup_db(without, sc, rows0, indexes=nocount), connect(without), connect(without))
    rng = random.Random('%s/%s/pairs' % (seed, sc.name))
    st = RunState(sc, seed, set(args.exclude) | {'truncate', 'copy'})
    gen = Gen(sc, rng, 1, st)
    results = collections.Counter()
    failures = []
    dml_only = {'truncate', 'copy', 'deferred_dup', 'swap'}

    def txn_stmts():
        out = []
        for _ in range(rng.randint(1, 2)):
            k = gen.pick(exclude=dml_only)
            out.append(gen.stmt(k).sql)
        return out

    def run(db, iso1, t1, iso2, t2, rows):
        setup, c1, c2 = conns[db]
        cur = setup.cursor()
        cur.execute('TRUNCATE g')
        cur.execute('INSERT INTO g (pk, sk, data, note, gsk) VALUES %s' % Gen.values(rows))
        k1, k2 = c1.cursor(), c2.cursor()
        k2.execute('BEGIN ISOLATION LEVEL %s' % iso2)
        k2.execute('SELECT 1')            # T2's snapshot predates T1
        try:
            k1.execute('BEGIN ISOLATION LEVEL %s' % iso1)
            for s in t1:
                k1.execute(s)
            k1.execute('COMMIT')
            r1 = 'ok'
        except psycopg2.Error as e:
            k1.execute('ROLLBACK')
            r1 = e.pgcode
        try:
            for s in t2:
                k2.execute(s)
            k2.execute('COMMIT')
            r2 = 'ok'
        except psycopg2.Error as e:
            k2.execute('ROLLBACK')
            r2 = e.pgcode
        return r1, r2

    for i in range(pairs):
        rows = rng.sample(rows0, rng.randint(5, len(rows0)))
        iso1 = rng.choice(ISOLATION)
        iso2 = rng.choice(['REPEATABLE READ', 'SERIALIZABLE'])
        # T1 and T2 write edges with the same targets from different sources
        # often, the textbook hot-counter case
        if rng.random() < 0.5:
            tgt = rng.choice(['FOLLOWS#USER#u0', 'FOLLOWS#USER#u1', 'FOLLOWS#USER#ü'])
            srcs = rng.sample(PKS, 5)
            t1 = ['INSERT INTO g (pk, sk) VALUES %s ON CONFLICT DO NOTHING'
                  % ', '.join('(%s, %s)' % (q(s), q(tgt)) for s in srcs[:4])]
            t2 = ['INSERT INTO g (pk, sk) VALUES (%s, %s) ON CONFLICT DO NOTHING' % (q(srcs[4]), q(tgt))]
            if rng.random() < 0.5:
                t2 = ['DELETE FROM g WHERE pk = %s AND sk = %s' % (q(srcs[4]), q(tgt))] + t2
        else:
            t1, t2 = txn_stmts(), txn_stmts()
        a = run(with_c, iso1, t1, iso2, t2, rows)
        b = run(without, iso1, t1, iso2, t2, rows)
        results['pairs'] += 1
        results['T2 40001 with counters'] += a[1] == '40001'
        results['T2 40001 without counters'] += b[1] == '40001'
        if a != b:
            results['outcomes differ'] += 1
            text = ('pair %d: outcomes with counters %s, without %s\n    T1 [%s]: %s\n    T2 [%s] '
                    '(snapshot taken before T1): %s' % (i, a, b, ISO_SHORT[iso1], ' ; '.join(t1),
                                                        ISO_SHORT[iso2], ' ; '.join(t2)))
            failures.append(text)
    problems = []
    for db in (with_c, without):
        st2 = RunState(sc, seed, ())
        if db == without:
            st2.indexes = nocount
        problems += oracle(conns[db][0], st2, rng, 'final')
        problems += st2.soft_failures
    for db in conns:
        for c in conns[db]:
            c.close()
    ok = not failures and not problems
    line = ('scenario=%s seed=%s pairs=%d T2_40001_with_counters=%d T2_40001_without=%d '
            'counter_only_failures=%d oracle_failures=%d time=%.1fs %s'
            % (sc.name, seed, results['pairs'], results['T2 40001 with counters'],
               results['T2 40001 without counters'], len(failures), len(problems), time.time() - t0,
               'PASS' if ok else 'FAIL'))
    detail = []
    if failures:
        detail.append('FAILURE scenario=%s seed=%s: %d transaction pairs failed only because of the counters '
                      '(first %d):' % (sc.name, seed, len(failures), min(len(failures), 6)))
        detail += ['  ' + f for f in failures[:6]]
    if problems:
        detail.append('FAILURE scenario=%s seed=%s: oracle after the pairs:' % (sc.name, seed))
        detail += ['  ' + p for p in problems]
    return ok, line, detail


# ---------------------------------------------------------------------------
# one scenario


def run_selftest(sc, seed, args):
    t0 = time.time()
    dbname = DB_PREFIX + sc.name
    exclude = {'key_trailing_sep', 'key_lowercase', 'edge_spelling'}
    rows0 = initial_rows(sc, seed, exclude)
    conn = setup_db(dbname, sc, rows0)
    cur = conn.cursor()
    state = RunState(sc, seed, exclude)
    rng = random.Random(seed)
    results = []
    failures = []

    def own(probs):
        # which of the oracle's own checks saw something
        return {'b' if 'index rows differ' in p else 'c' if 'edge_count mismatches' in p
                else 'a' if 'verify_inverted_index' in p else '?' for p in probs}

    base = oracle(conn, state, rng, 'selftest')
    if base:
        failures.append('the freshly built indexes are not clean: %s' % base)
    cases = [
        ('base row inserted with triggers off',
         ["SET session_replication_role = replica",
          "INSERT INTO g (pk, sk, data) VALUES ('SELF#1', 'FOLLOWS#USER#u0', '{\"self\": 1}')",
          "RESET session_replication_role"], {'b', 'c'}),
        ('projected column changed with triggers off',
         ["SET session_replication_role = replica",
          "UPDATE g SET data = '{\"self\": 2}' WHERE ctid = (SELECT min(ctid) FROM g)",
          "RESET session_replication_role"], {'b'}),
        ('key changed with triggers off',
         ["SET session_replication_role = replica",
          "UPDATE g SET sk = 'SELF#' || sk WHERE ctid = (SELECT max(ctid) FROM g)",
          "RESET session_replication_role"], {'b', 'c'}),
        ('index row deleted directly', ["DELETE FROM g_inv WHERE ctid = (SELECT min(ctid) FROM g_inv)"], {'b'}),
        ('extra index row written directly',
         ["INSERT INTO g_inv (sk, pk, data) VALUES ('SELF#X', 'USER#u0', NULL)"], {'b'}),
        ('projected value changed in the index', ["UPDATE g_inv SET data = '{\"self\": 3}' "
                                                  "WHERE ctid = (SELECT min(ctid) FROM g_inv)"], {'b'}),
        ('write-sharded row moved to the wrong shard',
         ["UPDATE g_ws SET sk = (left(sk::text, -1) || ((right(sk::text, 1)::int + 1) % 4))::adjkey "
          "WHERE ctid = (SELECT min(ctid) FROM g_ws)"], {'b'}),
    ]
    for name, sqls, want in cases:
        try:
            for q_ in sqls:
                cur.execute(q_)
        except psycopg2.Error as e:
            cur.execute('RESET session_replication_role')
            results.append('%s: could not corrupt (%s %s)' % (name, e.pgcode, (e.pgerror or '').strip()[:100]))
            continue
        probs = oracle(conn, state, rng, 'selftest')
        seen = own(probs)
        if not want <= seen:
            failures.append('%s: the oracle\'s own checks saw %s, expected %s' % (name, sorted(seen), sorted(want)))
        results.append('%s: seen by %s' % (name, ','.join(sorted(seen))))
        # repair: the base table is the truth; put it back as it was and rebuild
        cur.execute("SET session_replication_role = replica")
        cur.execute("DELETE FROM g WHERE pk ^@ 'SELF#' OR sk ^@ 'SELF#'")
        cur.execute('TRUNCATE g')
        cur.execute('INSERT INTO g (pk, sk, data, note, gsk) VALUES %s' % Gen.values(rows0))
        cur.execute('RESET session_replication_role')
        for spec in sc.indexes:
            cur.execute('SELECT rebuild_inverted_index(%s::regclass)', (spec.name,))
        after = oracle(conn, state, rng, 'selftest')
        if after:
            failures.append('%s: rebuild_inverted_index did not repair it: %s' % (name, after))
    conn.close()
    ok = not failures
    line = ('scenario=%s seed=%s cases=%d failures=%d time=%.1fs %s'
            % (sc.name, seed, len(cases), len(failures), time.time() - t0, 'PASS' if ok else 'FAIL'))
    detail = ['  ' + r for r in results] + ['FAILURE scenario=%s seed=%s: %s' % (sc.name, seed, f) for f in failures]
    return ok, line, detail


def run_scenario(sc, seed, args):
    if isinstance(sc, SelfTestScenario):
        return run_selftest(sc, seed, args)
    if isinstance(sc, CounterConflictScenario):
        return run_counter_conflicts(sc, seed, max(20, args.statements // 4), args)
    t0 = time.time()
    dbname = DB_PREFIX + sc.name
    state = RunState(sc, seed, args.exclude)
    rows0 = initial_rows(sc, seed, args.exclude)
    setup = setup_db(dbname, sc, rows0)
    cur = setup.cursor()
    # which table names belong to the indexes (a unique violation there is a product bug)
    cur.execute("SELECT c.relname FROM pg_class c WHERE c.relname ~ '(_inv|_keys|_all|_by_gsk|_part|_cnt|_ws)' AND c.relkind IN ('r', 'p')")
    state.index_tables = {x[0] for x in cur.fetchall()}
    if sc.partitioned:
        # which partition each pk goes to: ask the server (inserts rolled back)
        if sc.partition_by.startswith('HASH'):
            for i in range(sc.nparts):
                cur.execute("SELECT array_agg(k) FROM unnest(%s::text[]) k "
                            "WHERE satisfies_hash_partition('g'::regclass, %s, %s, k::adjkey)", (PKS, sc.nparts, i))
                state.part_pks[i] = cur.fetchone()[0] or []
        else:
            cur.execute('BEGIN')
            for k in PKS:
                cur.execute("INSERT INTO g (pk, sk) VALUES (%s, 'PROBE') RETURNING tableoid::regclass::text", (k,))
                part = cur.fetchone()[0]
                state.part_pks.setdefault(int(part[3:]), []).append(k)
            cur.execute('ROLLBACK')
    # the write-shard rule of the oracle against the product's own function
    for spec in sc.indexes:
        if spec.write_shards:
            cur.execute('SELECT k, write_shard(k::adjkey, %s) FROM unnest(%s::text[]) k', (spec.write_shards, PKS))
            for k, s in cur.fetchall():
                if fnv1a32(k) % spec.write_shards != s:
                    state.fail('write_shard(%s, %d) = %d, FNV-1a-32 mod %d = %d'
                               % (q(k), spec.write_shards, s, spec.write_shards, fnv1a32(k) % spec.write_shards))
    checker = connect(dbname, 'adjrand-oracle')
    orng = random.Random('%s/%s/oracle' % (seed, sc.name))
    sessions = [Session(state, dbname, i) for i in range(args.sessions)]
    nbatches = max(1, (args.statements + args.batch - 1) // args.batch)
    problems = oracle(checker, state, orng, 'initial')
    last_good = None
    failed_batch = None
    if problems:
        failed_batch = 0
        report_failure(sc, seed, 0, state, sessions, problems)
    else:
        last_good = snapshot_base(checker)
    b = 0
    while failed_batch is None and b < nbatches:
        b += 1
        state.batch = b
        deadline = time.time() + args.batch_timeout
        threads = [threading.Thread(target=s.run_batch, args=(args.batch, deadline)) for s in sessions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        problems = oracle(checker, state, orng, 'batch %d' % b)
        batch_failures = [f for bb, f in state.failures if bb == b]
        if problems or batch_failures:
            failed_batch = b
            report_failure(sc, seed, b, state, sessions, problems + batch_failures)
            break
        last_good = snapshot_base(checker)
        # forget the history of good batches (the reducer starts from
        # last_good), unless DDL makes the base rows alone not enough
        if not sc.ddl_session:
            with state.lock:
                state.history = [h for h in state.history if h[5] > b]
    for s in sessions:
        s.close()
    checker.close()
    setup.close()
    stt = state.stats
    nfail = len(state.failures) + (1 if failed_batch is not None and not state.failures else 0)
    ok = failed_batch is None and not state.failures and not state.soft_failures
    nfail += len(state.soft_failures)
    repro = None
    if not ok and args.reduce_seconds > 0 and last_good is not None and failed_batch:
        repro = reduce_failure(sc, state, last_good, failed_batch, args.reduce_seconds)
    line = ('scenario=%s seed=%s statements=%d executions=%d txns=%d commits=%d rollbacks=%d '
            'retries=%s gave_up=%s aborted=%s refusals=%s failures=%d batches=%d/%d time=%.1fs %s'
            % (sc.name, seed, stt.statements, stt.executions, stt.txns, stt.commits, stt.rollbacks,
               fmt(stt.retries), fmt(stt.gave_up), fmt(stt.aborted), fmt(stt.refusals), nfail,
               b, nbatches, time.time() - t0, 'PASS' if ok else 'FAIL (batch %s)' % failed_batch))
    detail = []
    for f in state.soft_failures:
        detail.append('FAILURE scenario=%s seed=%s (did not stop the scenario) %s' % (sc.name, seed, f))
    if stt.refusals:
        detail.append('refused DDL in scenario %s (SQLSTATE: example):' % sc.name)
        detail += ['  %s: %s' % (k, v) for k, v in sorted(stt.refusal_examples.items())]
    if stt.by_iso_40001:
        detail.append('40001 by isolation level: %s' % fmt(stt.by_iso_40001))
    if repro:
        detail.append('reduced (one session, sequential replay; then shrunk):')
        detail.append(repro)
    return ok, line, detail


def snapshot_base(conn):
    cur = conn.cursor()
    cur.execute('SELECT pk::text, sk::text, data::text, note, gsk::text FROM g')
    rows = cur.fetchall()
    return rows


def fmt(c):
    if not c:
        return '{}'
    return '{' + ','.join('%s:%d' % (k, v) for k, v in sorted(c.items())) + '}'


def report_failure(sc, seed, batch, state, sessions, problems):
    out = ['', '=' * 78,
           'FAILURE scenario=%s seed=%s batch=%d' % (sc.name, seed, batch),
           '  indexes: %s' % '; '.join(s.describe() for s in state.indexes),
           '  replay: consistency.py --scenario %s --seed %s --statements %s%s'
           % (sc.name, seed, ARGS.statements, (' --exclude ' + ','.join(sorted(state.exclude))) if state.exclude else '')]
    groups = collections.OrderedDict()
    for p in problems:
        lines = p.split('\n')
        if ': unexpected error ' in lines[0] and len(lines) > 1:
            code = lines[0].split(': unexpected error ')[1].split()[0]
            sig = code + ' ' + lines[1].strip().split(' | ')[0]
            groups.setdefault(sig, []).append(p)
        else:
            groups.setdefault(p, []).append(p)
    for sig, ps in groups.items():
        if len(ps) > 1:
            out.append('  - %d times: %s; first ones:' % (len(ps), sig))
            for p in ps[:3]:
                out.append('      ' + p.replace('\n', '\n      '))
        else:
            out.append('  - ' + ps[0].replace('\n', '\n    '))
    for s in sessions:
        out.append('  last statements of session %d:' % s.no)
        for l in list(s.log)[-8:]:
            out.append('    ' + l)
    out.append('=' * 78)
    print('\n'.join(out), flush=True)


# ---------------------------------------------------------------------------


ARGS = None


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=None, help='default 1 (with --soak: a fresh one)')
    ap.add_argument('--statements', type=int, default=150, help='statements per session and scenario')
    ap.add_argument('--batch', type=int, default=50, help='statements per session between two checks')
    ap.add_argument('--sessions', type=int, default=4)
    ap.add_argument('--scenario', action='append', help='run only these (repeatable, or comma-separated)')
    ap.add_argument('--exclude', default='', help='statement kinds to leave out, comma-separated')
    ap.add_argument('--soak', type=float, default=0, help='minutes: keep going with fresh seeds')
    ap.add_argument('--reduce-seconds', type=float, default=60, help='time to spend shrinking a failure (0: none)')
    ap.add_argument('--batch-timeout', type=float, default=300)
    ap.add_argument('--list', action='store_true', help='list scenarios and statement kinds')
    args = ap.parse_args()
    args.exclude = [x for x in args.exclude.split(',') if x]
    ARGS = args
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 10 ** 9) if args.soak else 1
    if args.list:
        for s in SCENARIOS:
            print('%-18s %s' % (s.name, s.doc))
        print('statement kinds (for --exclude): %s' % ', '.join(sorted(set(COMMON_WEIGHTS) | {
            k for s in SCENARIOS for k in s.extra_weights})))
        print('key features (for --exclude): %s, key_lowercase' % ', '.join(sorted(KEY_FEATURES)))
        print('checks (for --exclude): edge_spelling')
        return 0
    names = []
    for s in args.scenario or []:
        names += [x for x in s.split(',') if x]
    for n in names:
        if n not in SCENARIO_BY_NAME:
            ap.error('unknown scenario %s (known: %s)' % (n, ', '.join(SCENARIO_BY_NAME)))
    classes = [SCENARIO_BY_NAME[n] for n in names] if names else SCENARIOS

    conn = admin_conn()
    cur = conn.cursor()
    cur.execute('SELECT version()')
    ver = cur.fetchone()[0]
    cur.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'adjlist'")
    ext = cur.fetchone()
    conn.close()
    print('adjlist consistency test: %s; adjlist %s available; seed %s; %d sessions x %d statements per scenario'
          % (ver.split(',')[0], ext[0] if ext else 'NOT', args.seed, args.sessions, args.statements), flush=True)

    t0 = time.time()
    summary = []
    all_ok = True
    seed = args.seed
    retries40001 = {}
    while True:
        round_errors = 0
        for cls in classes:
            sc = cls()
            try:
                ok, line, detail = run_scenario(sc, seed, args)
            except psycopg2.Error as e:
                # the setup (CREATE EXTENSION, create_inverted_index, ...) failed
                msg = (e.pgerror or str(e)).strip().replace('\n', ' | ')
                ok, line, detail = False, 'scenario=%s seed=%s ERROR %s in the setup: %s' % (
                    sc.name, seed, e.pgcode, msg[:300]), []
                round_errors += 1
            except Exception:
                ok, line, detail = False, 'scenario=%s seed=%s ERROR (test harness exception)' % (sc.name, seed), \
                    [traceback.format_exc()]
                round_errors += 1
            for d in detail:
                print(d)
            print(line, flush=True)
            summary.append(line)
            all_ok = all_ok and ok
            m = re.search(r'executions=(\d+).*retries=\{([^}]*)\}', line)
            if m:
                r = re.search(r'40001:(\d+)', m.group(2))
                retries40001[sc.name] = (int(r.group(1)) if r else 0, int(m.group(1)))
        if 'counted' in retries40001 and 'counted_baseline' in retries40001:
            (a, na), (b, nb) = retries40001['counted'], retries40001['counted_baseline']
            summary.append('note: 40001 retries per 1000 statements run: %.1f with counters (counted, %d run), '
                           '%.1f without (counted_baseline, %d run), seed %s'
                           % (1000.0 * a / max(na, 1), na, 1000.0 * b / max(nb, 1), nb, seed))
            print(summary[-1])
        retries40001 = {}
        if not args.soak or time.time() - t0 > args.soak * 60:
            break
        if round_errors == len(classes):
            print('soak: every scenario of this round failed to run; stopping')
            all_ok = False
            break
        seed = random.SystemRandom().randrange(1, 10 ** 9)
    print()
    print('summary:')
    for l in summary:
        print('  ' + l)
    npass = sum(1 for l in summary if l.endswith('PASS'))
    nfail = sum(1 for l in summary if l.startswith('scenario=') and not l.endswith('PASS'))
    print('total time %.1fs' % (time.time() - t0))
    print('%d passed, %d failed' % (npass, nfail))
    return 0 if all_ok else 1


if __name__ == '__main__':
    sys.exit(main())

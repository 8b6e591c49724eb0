-- Write sharding of inverted index partitions (DynamoDB's TARGET#bob#0..N).
-- Two identical tables, one indexed plainly and one with write_shards:
-- every reader must give the same answers through both.
SET client_min_messages = warning;

-- the key functions
SELECT write_shard_keys('FOLLOWS#USER#bob', 3);
SELECT write_shard_keys('FOLLOWS#USER#bob', 0);
SELECT write_shard_key('FOLLOWS#USER#bob', 'USER#alice', 0);
SELECT write_shard_key('FOLLOWS#USER#bob', 'USER#alice', 8),
       write_shard('USER#alice', 8);
-- the shard depends on the source key only, and is stable across platforms (FNV-1a)
SELECT k, write_shard(k::adjkey, 8) FROM unnest('{USER#alice,USER#bob,USER#carol,"USER#Zoë"}'::text[]) k;
SELECT write_shard('USER#alice', 0);
SELECT write_shard('USER#alice', 257);
SELECT write_shard_keys('X', -1);
-- the suffix cannot push a key over the limit
SELECT length(write_shard_key(repeat('a', 2046)::adjkey, 'USER#alice', 8)::text);
SELECT write_shard_key(repeat('a', 2047)::adjkey, 'USER#alice', 8);

CREATE TABLE ws_plain (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
-- bob, the celebrity: 200 followers
INSERT INTO ws_plain
SELECT 'USER#u' || lpad(i::text, 3, '0'), 'FOLLOWS#USER#bob', jsonb_build_object('n', i)
  FROM generate_series(1, 200) i;
-- everyone follows two others
INSERT INTO ws_plain
SELECT 'USER#u' || lpad(i::text, 3, '0'), 'FOLLOWS#USER#u' || lpad(((i * m) % 200 + 1)::text, 3, '0'),
       jsonb_build_object('n', i, 'm', m)
  FROM generate_series(1, 200) i, (VALUES (7), (13)) v(m)
 WHERE (i * m) % 200 + 1 <> i
ON CONFLICT DO NOTHING;
INSERT INTO ws_plain VALUES
	('USER#bob', 'FOLLOWS#USER#u001', '{}'), ('USER#bob', 'FOLLOWS#USER#u100', '{}'),
	('USER#bob', 'PROFILE', '{"name": "Bob"}');
INSERT INTO ws_plain
SELECT 'USER#u' || lpad(i::text, 3, '0'), 'LIKES#POST#' || (i % 10), jsonb_build_object('at', i)
  FROM generate_series(1, 200) i;
CREATE TABLE ws_shard (LIKE ws_plain INCLUDING ALL);
INSERT INTO ws_shard SELECT * FROM ws_plain;

SELECT create_inverted_index('ws_plain', include => '{data}');
SELECT create_inverted_index('ws_shard', include => '{data}', write_shards => 4, counters => 2);
SELECT indexrel, write_shards, counter_shards FROM adjlist_inverted_indexes
 WHERE baserel IN ('ws_plain'::regclass, 'ws_shard'::regclass) ORDER BY 1::text;
SELECT write_shards FROM adjlist_inverted_indexes WHERE indexrel = 'ws_plain_inverted'::regclass;

-- the celebrity's partition is spread over four stored partitions
SELECT sk, count(*) FROM ws_shard_inverted WHERE sk ^@ 'FOLLOWS#USER#bob#' GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM ws_shard_inverted WHERE sk = 'FOLLOWS#USER#bob';
-- every row is stored under the shard of its source key
SELECT count(*) AS misplaced FROM ws_shard_inverted
 WHERE sk <> write_shard_key(key_prefix(sk, key_nparts(sk) - 1), pk, 4);

-- Compare a query on both tables ($T is the table's name): the same rows,
-- in the same order.
CREATE FUNCTION ws_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text[];
	b text[];
BEGIN
	EXECUTE format('SELECT array_agg(x::text) FROM (%s) x', replace(q, '$T', 'ws_plain')) INTO a;
	EXECUTE format('SELECT array_agg(x::text) FROM (%s) x', replace(q, '$T', 'ws_shard')) INTO b;
	IF a IS DISTINCT FROM b THEN
		RETURN format('DIFFERENT: plain %s, sharded %s', a, b);
	END IF;
	RETURN format('same, %s rows', coalesce(cardinality(a), 0));
END $$;

-- Page through the reverse neighbors of a node, pages of n.
CREATE FUNCTION ws_pages(tbl regclass, node adjkey, n int, back boolean)
RETURNS SETOF adjkey LANGUAGE plpgsql AS $$
DECLARE
	last adjkey;
	k adjkey;
	got int;
BEGIN
	LOOP
		got := 0;
		FOR k IN SELECT neighbor FROM reverse_neighbors(tbl, node, 'FOLLOWS#', lim => n,
														  after => last, backward => back)
		LOOP
			RETURN NEXT k;
			last := k;
			got := got + 1;
		END LOOP;
		EXIT WHEN got < n;
	END LOOP;
END $$;

CREATE FUNCTION ws_compare_reads() RETURNS TABLE (what text, result text) LANGUAGE sql AS $$
	VALUES
	('reverse_neighbors', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#')$q$)),
	('reverse_neighbors lim', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10)$q$)),
	('reverse_neighbors huge lim', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10000000000)$q$)),
	('reverse_neighbors lim 1', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 1, backward => true)$q$)),
	('reverse_neighbors after', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, after => 'USER#u050')$q$)),
	('reverse_neighbors backward', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, backward => true)$q$)),
	('reverse_neighbors backward after', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, after => 'USER#u150', backward => true)$q$)),
	('pages of 13', ws_same($q$SELECT * FROM ws_pages('$T', 'USER#bob', 13, false)$q$)),
	('pages of 13 backward', ws_same($q$SELECT * FROM ws_pages('$T', 'USER#bob', 13, true)$q$)),
	('small node', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#u005', 'FOLLOWS#')$q$)),
	('likes with data', ws_same($q$SELECT * FROM reverse_neighbors('$T', 'POST#3', 'LIKES#')$q$)),
	('degree in', ws_same($q$SELECT degree('$T', 'USER#bob', 'FOLLOWS#', 'in')$q$)),
	('traverse in', ws_same($q$SELECT * FROM traverse('$T', 'USER#bob', 'FOLLOWS#', 2, 'in', with_path => true)$q$)),
	('reachable_count in', ws_same($q$SELECT reachable_count('$T', 'USER#u001', 'FOLLOWS#', 3, 'in')$q$)),
	('shortest_path', ws_same($q$SELECT shortest_path('$T', 'USER#u003', 'USER#bob', 'FOLLOWS#')$q$)),
	('shortest_path in', ws_same($q$SELECT shortest_path('$T', 'USER#bob', 'USER#u077', 'FOLLOWS#', 6, 'in')$q$)),
	('common_neighbors in', ws_same($q$SELECT * FROM common_neighbors('$T', 'USER#u001', 'USER#bob', 'FOLLOWS#', 'in')$q$)),
	('walk_ranked', ws_same($q$SELECT * FROM walk_ranked('$T', 'USER#u010', '{FOLLOWS#,FOLLOWS#}', '{out,in}')$q$)),
	('query', ws_same($q$SELECT * FROM query('$T_inverted', 'FOLLOWS#USER#bob')$q$)),
	('query begins_with lim', ws_same($q$SELECT * FROM query('$T_inverted', 'FOLLOWS#USER#bob', 'begins_with', 'USER#u1', lim => 7)$q$)),
	('query backward', ws_same($q$SELECT * FROM query('$T_inverted', 'FOLLOWS#USER#bob', backward => true, lim => 5)$q$)),
	('query between', ws_same($q$SELECT * FROM query('$T_inverted', 'FOLLOWS#USER#bob', 'between', 'USER#u020', 'USER#u030')$q$)),
	('query exclusive_start_key', ws_same($q$SELECT * FROM query('$T_inverted', 'FOLLOWS#USER#bob', lim => 5,
			exclusive_start_key => '{"pk": "USER#u042", "sk": "FOLLOWS#USER#bob"}')$q$)),
	('query_count', ws_same($q$SELECT query_count('$T_inverted', 'FOLLOWS#USER#bob')$q$)),
	('query_count begins_with', ws_same($q$SELECT query_count('$T_inverted', 'FOLLOWS#USER#bob', 'begins_with', 'USER#u1')$q$))
$$;
SELECT * FROM ws_compare_reads();

SELECT shortest_path('ws_shard', 'USER#u003', 'USER#bob', 'FOLLOWS#') AS to_bob,
       shortest_path('ws_shard', 'USER#bob', 'USER#u077', 'FOLLOWS#', 6, 'in') AS back_from_u077;
-- what callers see is the logical partition, never a shard's key
SELECT * FROM query('ws_shard_inverted', 'FOLLOWS#USER#bob', lim => 2);
SELECT * FROM reverse_neighbors('ws_shard', 'USER#bob', 'FOLLOWS#', lim => 3);

-- query() reads the shards as one ordered stream: a Merge Append of index scans
SELECT regexp_replace(l, 'ws_shard_inverted_pkey.*', 'ws_shard_inverted_pkey ...') AS plan
FROM explain_query('ws_shard_inverted', 'FOLLOWS#USER#bob', lim => 10) l
WHERE l ~ 'Merge Append|Limit|Index';

-- writes keep the sharded index exact: the same changes to both tables
CREATE FUNCTION ws_write(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	-- delete, move an edge to another target, change projected data
	EXECUTE format('DELETE FROM %s WHERE pk BETWEEN ''USER#u010'' AND ''USER#u019'' AND sk = ''FOLLOWS#USER#bob''', tbl);
	EXECUTE format('UPDATE %s SET sk = ''FOLLOWS#USER#carol'' WHERE pk BETWEEN ''USER#u020'' AND ''USER#u024'' AND sk = ''FOLLOWS#USER#bob''', tbl);
	EXECUTE format('UPDATE %s SET data = data || ''{"x": 1}'' WHERE pk BETWEEN ''USER#u030'' AND ''USER#u039'' AND sk = ''FOLLOWS#USER#bob''', tbl);
	-- a multi-row insert (the statement trigger's batch), an upsert
	EXECUTE format('INSERT INTO %s SELECT ''USER#n'' || i, ''FOLLOWS#USER#bob'', ''{}'' FROM generate_series(1, 50) i', tbl);
	EXECUTE format('INSERT INTO %s VALUES (''USER#u001'', ''FOLLOWS#USER#bob'', ''{"up": 1}'') '
				   'ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data', tbl);
	EXECUTE format('INSERT INTO %s VALUES (''USER#u002'', ''FOLLOWS#USER#bob'', ''{}'') ON CONFLICT DO NOTHING', tbl);
	-- the source key changes: the row moves to another shard
	EXECUTE format('UPDATE %s SET pk = ''USER#moved'' WHERE pk = ''USER#u003'' AND sk = ''FOLLOWS#USER#bob''', tbl);
END $$;
SELECT ws_write('ws_plain'), ws_write('ws_shard');
COPY ws_plain FROM stdin;
USER#c1	FOLLOWS#USER#bob	{"copy": 1}
USER#c2	FOLLOWS#USER#bob	{"copy": 2}
USER#c3	FOLLOWS#USER#carol	{"copy": 3}
\.
COPY ws_shard FROM stdin;
USER#c1	FOLLOWS#USER#bob	{"copy": 1}
USER#c2	FOLLOWS#USER#bob	{"copy": 2}
USER#c3	FOLLOWS#USER#carol	{"copy": 3}
\.
SELECT * FROM verify_inverted_index('ws_shard_inverted');
SELECT * FROM verify_inverted_index('ws_plain_inverted');
SELECT * FROM ws_compare_reads();
SELECT ws_same($q$SELECT * FROM reverse_neighbors('$T', 'USER#carol', 'FOLLOWS#')$q$) AS carol;
-- counters count logical edges, not stored partitions
SELECT edge_count('ws_shard_inverted', 'USER#bob', 'FOLLOWS', 'in') AS counted,
       degree('ws_shard', 'USER#bob', 'FOLLOWS#', 'in') AS scanned;
SELECT edge_count('ws_shard_inverted', 'USER#u005', 'FOLLOWS', 'out') AS counted_out;

-- a rolled-back write leaves no trace in any shard
BEGIN;
INSERT INTO ws_shard VALUES ('USER#ghost', 'FOLLOWS#USER#bob', '{}');
SELECT count(*) FROM reverse_neighbors('ws_shard', 'USER#bob', 'FOLLOWS#') WHERE neighbor = 'USER#ghost';
ROLLBACK;
SELECT count(*) FROM ws_shard_inverted WHERE pk = 'USER#ghost';

-- drift: a lost row and a row under the wrong shard; verify finds both,
-- rebuild mends exactly those
SET session_replication_role = replica;
DELETE FROM ws_shard_inverted WHERE pk = 'USER#u050' AND sk ^@ 'FOLLOWS#USER#bob#';
UPDATE ws_shard_inverted SET sk = 'FOLLOWS#USER#bob'
 WHERE pk = 'USER#u060' AND sk ^@ 'FOLLOWS#USER#bob#';
RESET session_replication_role;
SELECT problem, key FROM verify_inverted_index('ws_shard_inverted') ORDER BY problem, key::text;
SELECT rebuild_inverted_index('ws_shard_inverted');
SELECT count(*) FROM verify_inverted_index('ws_shard_inverted');

-- row-level security: the SQL path merges the shards too, and filters
CREATE ROLE ws_reader;
GRANT SELECT ON ws_plain, ws_shard TO ws_reader;
ALTER TABLE ws_plain ENABLE ROW LEVEL SECURITY;
ALTER TABLE ws_shard ENABLE ROW LEVEL SECURITY;
CREATE POLICY odd ON ws_plain USING (key_part(pk, 2) !~ '[02468]$');
CREATE POLICY odd ON ws_shard USING (key_part(pk, 2) !~ '[02468]$');
SET ROLE ws_reader;
SELECT ws_same(q) FROM (VALUES
	($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#')$q$),
	($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, after => 'USER#u050')$q$),
	($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, backward => true)$q$),
	($q$SELECT * FROM ws_pages('$T', 'USER#bob', 13, false)$q$),
	($q$SELECT * FROM ws_pages('$T', 'USER#bob', 7, true)$q$),
	($q$SELECT * FROM traverse('$T', 'USER#bob', 'FOLLOWS#', 2, 'in')$q$)) v(q);
SELECT count(*) FROM reverse_neighbors('ws_shard', 'USER#bob', 'FOLLOWS#')
 WHERE key_part(neighbor, 2) ~ '[02468]$';
RESET ROLE;
ALTER TABLE ws_plain DISABLE ROW LEVEL SECURITY;
ALTER TABLE ws_shard DISABLE ROW LEVEL SECURITY;

-- a partitioned index table (the SQL path, as over foreign partitions)
CREATE TABLE ws_plain_p (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE ws_plain_p_0 PARTITION OF ws_plain_p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE ws_plain_p_1 PARTITION OF ws_plain_p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE ws_shard_p (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE ws_shard_p_0 PARTITION OF ws_shard_p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE ws_shard_p_1 PARTITION OF ws_shard_p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO ws_plain_p SELECT * FROM ws_plain;
SELECT create_inverted_index('ws_plain_p', partitions => 2);
SELECT create_inverted_index('ws_shard_p', partitions => 2, write_shards => 4);
INSERT INTO ws_shard_p SELECT * FROM ws_plain;		-- through the row triggers
DELETE FROM ws_shard_p WHERE pk = 'USER#u077';
DELETE FROM ws_plain_p WHERE pk = 'USER#u077';
SELECT count(*) FROM verify_inverted_index('ws_shard_p_inverted');
-- the celebrity's partitions land in both partitions of the index table
SELECT tableoid::regclass, count(*) FROM ws_shard_p_inverted
 WHERE sk = ANY (write_shard_keys('FOLLOWS#USER#bob', 4)) GROUP BY 1 ORDER BY 1;
SELECT ws_same(replace(q, '$T', '$T_p')) FROM (VALUES
	($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#')$q$),
	($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, after => 'USER#u050')$q$),
	($q$SELECT * FROM reverse_neighbors('$T', 'USER#bob', 'FOLLOWS#', lim => 10, backward => true)$q$),
	($q$SELECT * FROM ws_pages('$T', 'USER#bob', 13, false)$q$),
	($q$SELECT * FROM traverse('$T', 'USER#bob', 'FOLLOWS#', 2, 'in')$q$),
	($q$SELECT * FROM query('$T_inverted', 'FOLLOWS#USER#bob', lim => 20)$q$)) v(q);

-- the write API stores and finds index rows under their shard
CREATE TABLE ws_api (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('ws_api', mode => 'api', write_shards => 3);
SELECT put_edges('ws_api', (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#a' || i, 'sk', 'FOLLOWS#USER#bob'))
							  FROM generate_series(1, 20) i));
SELECT put_edge('ws_api', 'USER#bob', 'FOLLOWS#USER#a1', '{"back": true}');
SELECT count(DISTINCT sk) AS stored_partitions FROM ws_api_inverted WHERE sk ^@ 'FOLLOWS#USER#bob#';
SELECT delete_edge('ws_api', 'USER#a2', 'FOLLOWS#USER#bob');
SELECT count(*) FROM reverse_neighbors('ws_api', 'USER#bob', 'FOLLOWS#');
SELECT delete_node('ws_api', 'USER#bob', '{FOLLOWS#}');
SELECT count(*) AS left_in_base FROM ws_api;
SELECT count(*) AS left_in_index FROM ws_api_inverted;
SELECT count(*) FROM verify_inverted_index('ws_api_inverted');

-- bad settings
SELECT create_inverted_index('ws_api', index_name => 'x', write_shards => 1);
SELECT create_inverted_index('ws_api', index_name => 'x', write_shards => -2);
SELECT create_inverted_index('ws_api', index_name => 'x', write_shards => 257);
SELECT create_inverted_index('ws_api', index_name => 'x', write_shards => NULL);
-- a key too long for its role (a sort key of more than 1024 bytes) is refused,
-- and nothing is written
INSERT INTO ws_shard VALUES ('USER#long', repeat('x', 2047), '{}');
SELECT count(*) FROM ws_shard WHERE pk = 'USER#long';

DROP TABLE ws_plain, ws_shard, ws_plain_p, ws_shard_p, ws_api;
DROP FUNCTION ws_same, ws_pages, ws_compare_reads, ws_write;
DROP ROLE ws_reader;

--
-- The write API: put_edge, put_edges, delete_edge and delete_node write the
-- table and its inverted indexes in one transaction.  On a local table the
-- triggers keep every index whatever its mode, so plain writes are indexed
-- as well; mode 'api' matters where no trigger runs (Citus), where the API
-- writes the index rows itself.  Also an index table the caller made
-- (existing => true) on a table without a primary key (base_key => ...), as
-- with foreign partitions.
--
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.drift(idx regclass) RETURNS bigint LANGUAGE sql AS
	$$ SELECT count(*) FROM verify_inverted_index(idx) $$;

CREATE TABLE api (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO api VALUES ('USER#alice', 'FOLLOWS#USER#bob', NULL);
SELECT create_inverted_index('api', include => '{data}', mode => 'api');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'api'::regclass ORDER BY 1;
-- plain writes are indexed
INSERT INTO api VALUES ('USER#zed', 'FOLLOWS#USER#bob', NULL);
UPDATE api SET data = '{"plain": true}' WHERE pk = 'USER#zed';
SELECT * FROM api_inverted WHERE pk = 'USER#zed';
MERGE INTO api a USING (VALUES ('USER#zed'::adjkey)) v(pk) ON a.pk = v.pk WHEN MATCHED THEN DELETE;
SELECT count(*) AS rows FROM api;
SELECT pg_temp.drift('api_inverted');
SELECT mode, base_key FROM adjlist_inverted_indexes WHERE indexrel = 'api_inverted'::regclass;

SELECT put_edge('api', 'USER#carol', 'FOLLOWS#USER#bob', '{"since": 2024}');
SELECT put_edge('api', 'USER#carol', 'FOLLOWS#USER#bob', '{"since": 2025}');	-- replaces
SELECT put_edges('api', '[{"pk": "USER#dave", "sk": "FOLLOWS#USER#bob"},
						  {"pk": "USER#dave", "sk": "FOLLOWS#USER#carol", "data": {"x": 1}},
						  {"pk": "USER#bob", "sk": "FOLLOWS#USER#carol"}]');
SELECT * FROM api_inverted ORDER BY 1, 2;
SELECT pg_temp.drift('api_inverted');
SELECT delete_edge('api', 'USER#dave', 'FOLLOWS#USER#bob') AS deleted,
	   delete_edge('api', 'USER#dave', 'FOLLOWS#USER#bob') AS again;
SELECT pg_temp.drift('api_inverted');
-- a node and every edge pointing at it
SELECT delete_node('api', 'USER#carol', ARRAY['FOLLOWS#']);
SELECT * FROM api ORDER BY 1, 2;
SELECT * FROM api_inverted ORDER BY 1, 2;
SELECT pg_temp.drift('api_inverted');
-- one transaction: a failure leaves nothing behind
BEGIN;
SELECT put_edge('api', 'USER#erin', 'FOLLOWS#USER#bob');
SELECT put_edge('api', 'USER#erin', NULL);
ROLLBACK;
SELECT count(*) FROM api_inverted WHERE pk = 'USER#erin';
SELECT put_edge('api', 'USER#erin', 'FOLLOWS#USER#bob', '{}');
-- put_edges: member names in any case, and the last of a repeated key wins
SELECT put_edges('api', '[{"PK": "USER#fay", "Sk": "FOLLOWS#USER#bob", "Data": {"v": 1}},
						  {"pk": "USER#fay", "sk": "FOLLOWS#USER#bob", "data": {"v": 2}}]');
SELECT data FROM api WHERE pk = 'USER#fay';
SELECT pg_temp.drift('api_inverted');
SELECT put_edges('api', '{"pk": "USER#x"}');
SELECT put_edges('api', '[{"sk": "FOLLOWS#USER#bob"}]');
SELECT put_edges('api', '[]');
-- TRUNCATE empties the index as well
BEGIN;
TRUNCATE api;
SELECT count(*) AS index_rows FROM api_inverted;
ROLLBACK;
SELECT put_edge('nowhere', 'USER#erin', 'FOLLOWS#USER#bob');
CREATE TABLE api_noidx (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT put_edge('api_noidx', 'USER#erin', 'FOLLOWS#USER#bob');
SELECT create_inverted_index('api', mode => 'sometimes', index_name => 'x');

-- a table without a primary key, and an index table made by the caller
CREATE TABLE nopk (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb);
CREATE TABLE nopk_rev (sk adjkey NOT NULL, pk adjkey NOT NULL);	-- no unique index either
INSERT INTO nopk VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
SELECT create_inverted_index('nopk');
SELECT create_inverted_index('nopk', base_key => '{pk,nope}', index_name => 'nopk_rev', existing => true);
-- the base key must be unique in the table: a primary key or unique index
-- on its columns (or some of them), valid, without WHERE or expressions
-- (42P10), whether the index table is new or the caller's; before, the
-- index was made, and two rows of one key then shared one index row
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'nopk_rev', existing => true);
\set VERBOSITY sqlstate
SELECT create_inverted_index('nopk', base_key => '{pk,sk}');
CREATE UNIQUE INDEX nopk_partial ON nopk (pk, sk) WHERE data IS NULL;
CREATE UNIQUE INDEX nopk_expr ON nopk (pk, (sk::text));
CREATE UNIQUE INDEX nopk_wider ON nopk (pk, sk, data);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}');
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'nopk_rev', existing => true);
\set VERBOSITY default
DROP INDEX nopk_partial, nopk_expr, nopk_wider;
ALTER TABLE nopk ADD CONSTRAINT nopk_key UNIQUE (pk, sk);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'nopk_x', existing => true);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'nopk_rev', existing => true);
-- a repeated key is the table's own unique violation, not an index error
\set VERBOSITY sqlstate
INSERT INTO nopk VALUES ('USER#f', 'FOLLOWS#USER#g', NULL), ('USER#f', 'FOLLOWS#USER#g', NULL);
-- and the key stays while the index needs it (2BP01)
ALTER TABLE nopk DROP CONSTRAINT nopk_key;
\set VERBOSITY default
SELECT * FROM nopk_rev;
INSERT INTO nopk VALUES ('USER#c', 'FOLLOWS#USER#b', NULL), ('USER#c', 'FOLLOWS#USER#d', NULL);
UPDATE nopk SET sk = 'FOLLOWS#USER#e' WHERE pk = 'USER#c' AND sk = 'FOLLOWS#USER#d';
DELETE FROM nopk WHERE pk = 'USER#a';
SELECT * FROM nopk_rev ORDER BY 1, 2;
SELECT pg_temp.drift('nopk_rev');
CREATE TABLE wrong_rev (sk text, pk adjkey);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'wrong_rev', existing => true);
-- graph functions read a table without a primary key by its registered key
SELECT neighbor FROM neighbors('nopk', 'USER#c', 'FOLLOWS#');
SELECT neighbor FROM reverse_neighbors('nopk', 'USER#b', 'FOLLOWS#');
SELECT shortest_path('nopk', 'USER#c', 'USER#e', 'FOLLOWS#');
-- a table may have indexes of both modes: plain writes and the API keep both
CREATE TABLE mixed (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('mixed');
SELECT create_inverted_index('mixed', index_name => 'mixed_api', mode => 'api');
INSERT INTO mixed VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
SELECT put_edge('mixed', 'USER#c', 'FOLLOWS#USER#b');
SELECT (SELECT count(*) FROM mixed_inverted) AS by_trigger, (SELECT count(*) FROM mixed_api) AS by_api;
SELECT pg_temp.drift('mixed_inverted'), pg_temp.drift('mixed_api');
-- API mode keeps degree counters too
SELECT create_inverted_index('api', index_name => 'api_counted', mode => 'api', counters => 1);
SELECT put_edge('api', 'USER#gus', 'FOLLOWS#USER#bob');
SELECT put_edge('api', 'USER#gus', 'FOLLOWS#USER#bob', '{"again": true}');	-- not a new edge
SELECT edge_count('api_counted', 'USER#bob', 'FOLLOWS', 'in') AS bob_in,
	   (SELECT count(*) FROM api WHERE sk = 'FOLLOWS#USER#bob') AS recount;
SELECT delete_edge('api', 'USER#gus', 'FOLLOWS#USER#bob');
SELECT edge_count('api_counted', 'USER#bob', 'FOLLOWS', 'in') AS bob_in;
SELECT pg_temp.drift('api_counted');
-- a table Citus distributes: trigger mode is refused, API mode is not.
-- Citus is not installable here; its catalog table is imitated (what
-- adjlist_is_citus_table() reads: pg_dist_partition.logicalrelid).
CREATE TABLE distributed (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass);
RESET allow_system_table_mods;
INSERT INTO pg_catalog.pg_dist_partition VALUES ('distributed');
\set VERBOSITY default
SELECT create_inverted_index('distributed');
\set VERBOSITY terse
SELECT create_inverted_index('distributed', mode => 'api');
SELECT put_edge('distributed', 'USER#a', 'FOLLOWS#USER#b');
SELECT neighbor FROM reverse_neighbors('distributed', 'USER#b', 'FOLLOWS#');
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;

-- Replacing items under indexes keyed by other columns than the base key:
-- status is generated from data (a put moves the item's index row), tag
-- is a plain column (a put resets it to its default, here a new value each
-- time), bill is generated from sk alone (never moves); with projections,
-- write shards and counters.  The same writes on a local table (the
-- triggers keep every index) and on tables Citus would distribute
-- (imitated: no trigger, the write API writes the index rows from the old
-- and new versions), with a unique key, without one, and with a deferrable
-- one: every index exact, counters equal to a recount, the same index rows.
CREATE FUNCTION pg_temp.moves_table(tbl text, keydef text, citus boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE SEQUENCE %I', tbl || '_seq');
	EXECUTE format($f$CREATE TABLE %I (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb,
		tag adjkey DEFAULT adjkey('TAG#' || nextval(%L) %% 3),
		status adjkey GENERATED ALWAYS AS (adjkey('STATUS#' || (data->>'status'))) STORED,
		bill adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'BILL#' THEN sk END) STORED %s)$f$,
		tbl, tbl || '_seq', keydef);
	IF citus THEN
		INSERT INTO pg_catalog.pg_dist_partition VALUES (tbl::regclass);
	END IF;
	PERFORM create_inverted_index(tbl::regclass, partition_key => 'status', sort_key => 'pk',
		include => '{data}', index_name => tbl || '_by_status', counters => 1,
		base_key => '{pk,sk}', mode => 'api');
	PERFORM create_inverted_index(tbl::regclass, partition_key => 'tag', sort_key => 'pk',
		index_name => tbl || '_by_tag', counters => 1, write_shards => 2, base_key => '{pk,sk}',
		mode => 'api');
	PERFORM create_inverted_index(tbl::regclass, partition_key => 'bill', include => '{data}',
		index_name => tbl || '_by_bill', base_key => '{pk,sk}', mode => 'api');
	PERFORM create_inverted_index(tbl::regclass, include => '{*}', index_name => tbl || '_flip',
		counters => 1, write_shards => 4, base_key => '{pk,sk}', mode => 'api');
END $$;
CREATE FUNCTION pg_temp.moves(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text[] := '{}';
BEGIN
	PERFORM put_edge(tbl, 'ORDER#1', 'META', '{"status": "new", "v": 1}');
	PERFORM put_edge(tbl, 'ORDER#1', 'META', '{"status": "paid", "v": 2}');	-- moves
	PERFORM put_edge(tbl, 'ORDER#1', 'META', '{"v": 3}');		-- leaves the status index
	PERFORM put_edge(tbl, 'ORDER#1', 'META', '{"status": "new", "v": 4}');	-- comes back
	PERFORM put_edge(tbl, 'ORDER#1', 'BILL#7', '{"status": "new"}');
	PERFORM put_edge(tbl, 'ORDER#1', 'BILL#7', '{"status": "paid", "amount": 5}');
	-- new items, replaced ones, and keys given twice (the last wins)
	PERFORM put_edges(tbl, '[{"pk": "ORDER#2", "sk": "META", "data": {"status": "new", "v": 1}},
		{"pk": "ORDER#1", "sk": "META", "data": {"status": "shipped", "v": 5}},
		{"pk": "ORDER#2", "sk": "META", "data": {"status": "paid", "v": 2}},
		{"pk": "ORDER#1", "sk": "BILL#7"},
		{"pk": "ORDER#3", "sk": "FOLLOWS#ORDER#1", "data": {"status": "new"}},
		{"pk": "ORDER#1", "sk": "META", "data": {"status": "paid", "v": 6}}]');
	PERFORM put_edges(tbl, '[{"pk": "ORDER#1", "sk": "META", "data": {"status": "new", "v": 7}},
		{"pk": "ORDER#1", "sk": "BILL#7", "data": {"status": "new", "amount": 6}},
		{"pk": "ORDER#1", "sk": "META", "data": {"v": 8}},
		{"pk": "ORDER#3", "sk": "FOLLOWS#ORDER#1", "data": {"status": "paid"}},
		{"pk": "ORDER#3", "sk": "FOLLOWS#ORDER#2", "data": {"status": "paid"}}]');
	r := r || put_edge_if(tbl, 'ORDER#2', 'META', '{"status": "shipped", "v": 3}', '{"v": 2}')::text;
	r := r || put_edge_if(tbl, 'ORDER#2', 'META', '{"status": "lost", "v": 9}', '{"v": 2}')::text;
	r := r || put_edge_if_absent(tbl, 'ORDER#4', 'META', '{"status": "new"}')::text;
	r := r || put_edge_if_absent(tbl, 'ORDER#4', 'META', '{"status": "paid"}')::text;
	r := r || delete_edge_if(tbl, 'ORDER#4', 'META', '{"status": "paid"}')::text;
	r := r || put_edge_if(tbl, 'ORDER#4', 'META', '{"status": "paid"}', '{}')::text;
	r := r || delete_edge(tbl, 'ORDER#1', 'BILL#7')::text;
	r := r || delete_node(tbl, 'ORDER#1', ARRAY['FOLLOWS#'])::text;
	PERFORM put_edges(tbl, '[{"pk": "ORDER#5", "sk": "BILL#8", "data": {"status": "new"}},
		{"pk": "ORDER#6", "sk": "META", "data": {"status": "new"}},
		{"pk": "ORDER#5", "sk": "BILL#8", "data": {"status": "paid"}},
		{"pk": "ORDER#7", "sk": "META", "data": {"status": "lost"}},
		{"pk": "ORDER#2", "sk": "META", "data": {"status": "paid", "v": 4}},
		{"pk": "ORDER#6", "sk": "META", "data": {"status": "shipped"}}]');
	RETURN array_to_string(r, ' ');
END $$;
-- the problems verify_inverted_index finds in every index of the tables
CREATE FUNCTION pg_temp.moves_problems(VARIADIC tbls text[]) RETURNS TABLE (index regclass, problems bigint)
	LANGUAGE sql AS $$
	SELECT i.indexrel::regclass, (SELECT count(*) FROM verify_inverted_index(i.indexrel))
	FROM adjlist_inverted_indexes i WHERE i.baserel::regclass::text = ANY (tbls)
	ORDER BY i.indexrel::regclass::text
$$;
-- in-edges of each status counted, and recounted from the base table
CREATE FUNCTION pg_temp.moves_counts(tbl regclass) RETURNS TABLE (status text, counted bigint, recount bigint)
	LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($f$SELECT s, edge_count(%L, adjkey(s), 'STATUS', 'in'),
		(SELECT count(*) FROM %s b WHERE b.status = adjkey('STATUS#' || s))
		FROM unnest(ARRAY['new', 'paid', 'shipped', 'lost']) s ORDER BY s$f$,
		tbl::text || '_by_status', tbl);
END $$;
-- the index rows (but for tag, whose values come from each table's
-- sequence) are the same as the triggers wrote on the local table
CREATE FUNCTION pg_temp.moves_same(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	v record;
	differ boolean;
BEGIN
	FOR v IN SELECT * FROM (VALUES ('_by_status', 'status, pk, sk, data'), ('_by_bill', 'bill, pk, sk, data'),
								   ('_flip', 'sk, pk, data, status, bill'), ('', 'pk, sk, data, status, bill')) x(ix, cols)
	LOOP
		EXECUTE format('SELECT EXISTS ((SELECT %3$s FROM %1$I EXCEPT ALL SELECT %3$s FROM %2$I)
								UNION ALL (SELECT %3$s FROM %2$I EXCEPT ALL SELECT %3$s FROM %1$I))',
					   a || v.ix, b || v.ix, v.cols) INTO differ;
		IF differ THEN
			RETURN false;
		END IF;
	END LOOP;
	RETURN true;
END $$;
SELECT pg_temp.moves_table('moves_local', ', PRIMARY KEY (pk, sk)', false);
-- (no primary key: a deferred unique key, which no upsert can name, as
-- the base key must have one)
SELECT pg_temp.moves_table('moves_local_nokey', ', UNIQUE (pk, sk) DEFERRABLE INITIALLY DEFERRED', false);
SELECT pg_temp.moves_table('moves_local_deferrable', ', PRIMARY KEY (pk, sk) DEFERRABLE', false);
SELECT tgname FROM pg_trigger WHERE tgrelid = 'moves_local'::regclass ORDER BY 1;
SELECT pg_temp.moves('moves_local') AS local;
SELECT pg_temp.moves('moves_local_nokey') AS local_nokey;
SELECT pg_temp.moves('moves_local_deferrable') AS local_deferrable;
SELECT * FROM pg_temp.moves_problems('moves_local', 'moves_local_nokey', 'moves_local_deferrable');
SELECT * FROM pg_temp.moves_counts('moves_local');
SELECT status, pk, sk, data FROM moves_local_by_status ORDER BY 1, 2, 3;
SELECT bill, pk, data FROM moves_local_by_bill ORDER BY 1, 2;
SELECT t, pg_temp.moves_same('moves_local', t) AS same_as_local
	FROM unnest(ARRAY['moves_local_nokey', 'moves_local_deferrable']) t;
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass);
RESET allow_system_table_mods;
SELECT pg_temp.moves_table('moves_api', ', PRIMARY KEY (pk, sk)', true);
SELECT pg_temp.moves_table('moves_nokey', ', UNIQUE (pk, sk) DEFERRABLE INITIALLY DEFERRED', true);
SELECT pg_temp.moves_table('moves_deferrable', ', PRIMARY KEY (pk, sk) DEFERRABLE', true);
SELECT count(*) AS triggers FROM pg_trigger WHERE NOT tgisinternal
	AND tgrelid IN ('moves_api'::regclass, 'moves_nokey'::regclass, 'moves_deferrable'::regclass);
SELECT pg_temp.moves('moves_api') AS api;
SELECT pg_temp.moves('moves_nokey') AS nokey;
SELECT pg_temp.moves('moves_deferrable') AS deferrable;
SELECT * FROM pg_temp.moves_problems('moves_api', 'moves_nokey', 'moves_deferrable');
SELECT * FROM pg_temp.moves_counts('moves_api');
SELECT * FROM pg_temp.moves_counts('moves_nokey');
SELECT * FROM pg_temp.moves_counts('moves_deferrable');
SELECT t, pg_temp.moves_same('moves_local', t) AS same_as_local
	FROM unnest(ARRAY['moves_api', 'moves_nokey', 'moves_deferrable']) t;
-- row-level security as on a local table: an item the caller may not
-- update, or not even see, is refused with the same error; others move
CREATE ROLE regress_api_writer;
CREATE FUNCTION pg_temp.moves_rls(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
	EXECUTE format('CREATE POLICY s ON %s FOR SELECT USING (data->>''secret'' IS NULL)', tbl);
	EXECUTE format('CREATE POLICY i ON %s FOR INSERT WITH CHECK (true)', tbl);
	EXECUTE format('CREATE POLICY u ON %s FOR UPDATE USING (data->>''locked'' IS NULL)', tbl);
	EXECUTE format('GRANT SELECT, INSERT, UPDATE ON %s TO regress_api_writer', tbl);
	EXECUTE format('GRANT USAGE ON SEQUENCE %s TO regress_api_writer', tbl::text || '_seq');
	PERFORM put_edge(tbl, 'ORDER#8', 'META', '{"status": "new", "locked": true}');
	PERFORM put_edge(tbl, 'ORDER#9', 'META', '{"status": "new", "secret": true}');
END $$;
SELECT pg_temp.moves_rls('moves_local'), pg_temp.moves_rls('moves_api');
SET ROLE regress_api_writer;
SELECT put_edge('moves_local', 'ORDER#8', 'META', '{"status": "paid"}');
SELECT put_edge('moves_api', 'ORDER#8', 'META', '{"status": "paid"}');
SELECT put_edge('moves_local', 'ORDER#9', 'META', '{"status": "paid"}');
SELECT put_edge('moves_api', 'ORDER#9', 'META', '{"status": "paid"}');
SELECT put_edges('moves_api', '[{"pk": "ORDER#7", "sk": "META", "data": {"status": "new"}},
								{"pk": "ORDER#10", "sk": "META", "data": {"status": "new"}}]');
RESET ROLE;
SELECT * FROM pg_temp.moves_problems('moves_api');
SELECT status, pk FROM moves_api_by_status WHERE pk IN ('ORDER#7', 'ORDER#8', 'ORDER#9', 'ORDER#10') ORDER BY 2;
SELECT (SELECT count(*) FROM moves_api_by_status) AS status_rows,
	   (SELECT count(*) FROM moves_api_by_bill) AS bill_rows,
	   (SELECT count(*) FROM moves_api_by_tag) AS tag_rows,
	   (SELECT count(*) FROM moves_api_flip) AS flip_rows,
	   (SELECT count(*) FROM moves_api) AS items;
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;
DROP OWNED BY regress_api_writer;
DROP ROLE regress_api_writer;

-- A sparse index whose predicate reads data, with counters, projecting the
-- expiry column (set_ttl), on a table Citus would distribute (imitated)
-- and on a local one: a put that makes the predicate false removes the
-- item's index row, one that makes it true puts it back, the counters
-- follow, and the index rows (the expiry projected) are the local table's.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass);
RESET allow_system_table_mods;
CREATE FUNCTION pg_temp.sparse_run(tbl text, citus boolean) RETURNS TABLE (drift bigint, vip_in bigint, recount bigint)
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($f$CREATE TABLE %I (pk adjkey, sk adjkey, data jsonb,
		expires timestamptz DEFAULT '2100-01-01 00:00+00', PRIMARY KEY (pk, sk))$f$, tbl);
	IF citus THEN
		INSERT INTO pg_catalog.pg_dist_partition VALUES (tbl::regclass);
	END IF;
	PERFORM set_ttl(tbl::regclass, 'expires');
	PERFORM create_inverted_index(tbl::regclass, index_name => tbl || '_vip', include => '{data}',
		predicate => $p$data @> '{"vip": true}'$p$, counters => 1, mode => 'api');
	PERFORM put_edge(tbl::regclass, 'USER#a', 'FOLLOWS#USER#b', '{"vip": true}');
	PERFORM put_edge(tbl::regclass, 'USER#a', 'FOLLOWS#USER#b', '{"vip": false}');	-- leaves
	PERFORM put_edge(tbl::regclass, 'USER#c', 'FOLLOWS#USER#b', '{"vip": true}');
	PERFORM put_edges(tbl::regclass, '[{"pk": "USER#a", "sk": "FOLLOWS#USER#b", "data": {"vip": true}},
		{"pk": "USER#c", "sk": "FOLLOWS#USER#b", "data": {"vip": false}},
		{"pk": "USER#d", "sk": "FOLLOWS#USER#b", "data": {"vip": true}},
		{"pk": "USER#e", "sk": "FOLLOWS#USER#b"}]');
	PERFORM put_edge_if(tbl::regclass, 'USER#d', 'FOLLOWS#USER#b', '{"vip": false, "v": 2}', '{"vip": true}');
	PERFORM put_edge_if(tbl::regclass, 'USER#e', 'FOLLOWS#USER#b', '{"vip": true}', '{}');
	RETURN QUERY EXECUTE format($f$SELECT (SELECT count(*) FROM verify_inverted_index(%L)),
		edge_count(%L, 'USER#b', 'FOLLOWS', 'in'),
		(SELECT count(*) FROM %I WHERE sk = 'FOLLOWS#USER#b' AND data @> '{"vip": true}')$f$,
		tbl || '_vip', tbl || '_vip', tbl);
END $$;
SELECT * FROM pg_temp.sparse_run('sparse_local', false);
SELECT * FROM pg_temp.sparse_run('sparse_api', true);
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'sparse_api'::regclass AND NOT tgisinternal;
SELECT sk, pk, data, expires FROM sparse_api_vip ORDER BY 1, 2;
SELECT NOT EXISTS ((SELECT * FROM sparse_api_vip EXCEPT SELECT * FROM sparse_local_vip)
	UNION ALL (SELECT * FROM sparse_local_vip EXCEPT SELECT * FROM sparse_api_vip)) AS same_as_local;
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;

-- The payload column (set_payload_column): the write API writes and
-- compares the column it names, here attrs on tables without a column
-- data.  The same writes on a local table, a partitioned one and one Citus
-- would distribute (imitated: the write API writes the index rows, and an
-- index projecting attrs must get them from it), each with an expiry
-- column, indexes projecting attrs (the flip, counted; by a status
-- generated from attrs, which moves; a sparse index whose predicate reads
-- attrs, counted): every index exact, counters equal to recounts, the
-- same rows everywhere.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass);
RESET allow_system_table_mods;
CREATE FUNCTION pg_temp.pay_table(tbl text, kind text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($f$CREATE TABLE %I (pk adjkey, sk adjkey, attrs jsonb,
		expires timestamptz DEFAULT '2100-01-01 00:00+00',
		status adjkey GENERATED ALWAYS AS (adjkey('STATUS#' || (attrs->>'status'))) STORED,
		PRIMARY KEY (pk, sk)) %s$f$, tbl, CASE WHEN kind = 'part' THEN 'PARTITION BY HASH (pk)' ELSE '' END);
	IF kind = 'part' THEN
		EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES WITH (MODULUS 2, REMAINDER 0)', tbl || '_0', tbl);
		EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES WITH (MODULUS 2, REMAINDER 1)', tbl || '_1', tbl);
	END IF;
	IF kind = 'citus' THEN
		INSERT INTO pg_catalog.pg_dist_partition VALUES (tbl::regclass);
	END IF;
	PERFORM set_payload_column(tbl::regclass, 'attrs');
	PERFORM set_ttl(tbl::regclass, 'expires');
	PERFORM create_inverted_index(tbl::regclass, include => '{attrs}', counters => 1, mode => 'api',
		index_name => tbl || '_flip');
	PERFORM create_inverted_index(tbl::regclass, partition_key => 'status', sort_key => 'pk',
		include => '{attrs}', counters => 1, base_key => '{pk,sk}', mode => 'api',
		index_name => tbl || '_by_status');
	PERFORM create_inverted_index(tbl::regclass, predicate => $p$attrs @> '{"vip": true}'$p$,
		counters => 1, mode => 'api', index_name => tbl || '_vip');
END $$;
CREATE FUNCTION pg_temp.pay_writes(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text[] := '{}';
BEGIN
	PERFORM put_edge(tbl, 'USER#a', 'FOLLOWS#USER#b', '{"vip": true, "status": "new"}');
	PERFORM put_edge(tbl, 'USER#a', 'FOLLOWS#USER#b', '{"vip": false, "status": "paid"}');
	-- the payload column's name, put_edge's, and the key columns in any case
	r := r || put_edges(tbl, '[{"pk": "USER#c", "sk": "FOLLOWS#USER#b", "attrs": {"vip": true}},
		{"PK": "USER#d", "SK": "FOLLOWS#USER#b", "Data": {"vip": true, "status": "new"}},
		{"pk": "USER#a", "sk": "FOLLOWS#USER#b", "ATTRS": {"vip": true, "status": "new", "v": 1}},
		{"pk": "USER#e", "sk": "FOLLOWS#USER#b"}]')::text;
	r := r || put_edge_if_absent(tbl, 'USER#f', 'FOLLOWS#USER#b', '{"vip": true, "v": 1}')::text;
	r := r || put_edge_if_absent(tbl, 'USER#f', 'FOLLOWS#USER#b', '{"v": 9}')::text;
	-- the conditions compare attrs
	r := r || put_edge_if(tbl, 'USER#a', 'FOLLOWS#USER#b', '{"vip": false, "status": "shipped", "v": 2}', '{"v": 1}')::text;
	r := r || put_edge_if(tbl, 'USER#a', 'FOLLOWS#USER#b', '{"v": 3}', '{"v": 1}')::text;
	r := r || put_edge_if(tbl, 'USER#d', 'FOLLOWS#USER#b', '{"vip": false}', '{"vip": true}')::text;
	r := r || delete_edge_if(tbl, 'USER#f', 'FOLLOWS#USER#b', '{"v": 2}')::text;
	r := r || delete_edge_if(tbl, 'USER#f', 'FOLLOWS#USER#b', '{"v": 1}')::text;
	r := r || import_dynamodb(tbl, $i$
{"Item":{"pk":{"S":"USER#g"},"sk":{"S":"FOLLOWS#USER#b"},"vip":{"BOOL":true},"status":{"S":"new"}}}
{"Item":{"pk":{"S":"USER#h"},"sk":{"S":"FOLLOWS#USER#b"}}}
{"Item":{"pk":{"S":"USER#e"},"sk":{"S":"FOLLOWS#USER#b"},"vip":{"BOOL":true}}}
$i$)::text;
	r := r || delete_edge(tbl, 'USER#c', 'FOLLOWS#USER#b')::text;
	RETURN array_to_string(r, ' ');
END $$;
-- each index clean, each counter equal to a recount of the base table
CREATE FUNCTION pg_temp.pay_check(tbl text) RETURNS TABLE (drift bigint, flip_in bigint, items bigint,
	vip_in bigint, vips bigint, new_in bigint, news bigint) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($f$SELECT
		(SELECT count(*) FROM verify_inverted_index(%1$L)) + (SELECT count(*) FROM verify_inverted_index(%2$L))
			+ (SELECT count(*) FROM verify_inverted_index(%3$L)),
		edge_count(%1$L, 'USER#b', 'FOLLOWS', 'in'), (SELECT count(*) FROM %4$I WHERE sk = 'FOLLOWS#USER#b'),
		edge_count(%3$L, 'USER#b', 'FOLLOWS', 'in'),
		(SELECT count(*) FROM %4$I WHERE sk = 'FOLLOWS#USER#b' AND attrs @> '{"vip": true}'),
		edge_count(%2$L, 'new', 'STATUS', 'in'), (SELECT count(*) FROM %4$I WHERE status = 'STATUS#new')$f$,
		tbl || '_flip', tbl || '_by_status', tbl || '_vip', tbl);
END $$;
-- the rows of a table and of its indexes equal the local table's
CREATE FUNCTION pg_temp.pay_same(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	ix text;
	differ boolean;
BEGIN
	FOREACH ix IN ARRAY ARRAY['', '_flip', '_by_status', '_vip'] LOOP
		EXECUTE format('SELECT EXISTS ((SELECT * FROM %1$I EXCEPT ALL SELECT * FROM %2$I)
								UNION ALL (SELECT * FROM %2$I EXCEPT ALL SELECT * FROM %1$I))',
					   a || ix, b || ix) INTO differ;
		IF differ THEN
			RETURN false;
		END IF;
	END LOOP;
	RETURN true;
END $$;
SELECT pg_temp.pay_table('pay_local', 'local'), pg_temp.pay_table('pay_part', 'part'),
	   pg_temp.pay_table('pay_api', 'citus');
SELECT columns FROM adjlist_inverted_indexes WHERE indexrel = 'pay_api_flip'::regclass;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'pay_api'::regclass AND NOT tgisinternal;
SELECT pg_temp.pay_writes('pay_local') AS local;
SELECT pg_temp.pay_writes('pay_part') AS partitioned;
SELECT pg_temp.pay_writes('pay_api') AS api;
SELECT pk, sk, attrs, status FROM pay_api ORDER BY 1, 2;
SELECT sk, pk, attrs, expires FROM pay_api_flip ORDER BY 1, 2;
SELECT t, c.* FROM unnest(ARRAY['pay_local', 'pay_part', 'pay_api']) t, pg_temp.pay_check(t) c;
SELECT t, pg_temp.pay_same('pay_local', t) AS same_as_local FROM unnest(ARRAY['pay_part', 'pay_api']) t;
SELECT * FROM export_dynamodb('pay_api');
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;

-- a table with a column data that is not its payload column: the write
-- API leaves data alone (a replacement resets it to its default, as any
-- other column)
CREATE TABLE pay_both (pk adjkey, sk adjkey, attrs jsonb, data jsonb DEFAULT '{"default": true}',
	PRIMARY KEY (pk, sk));
SELECT set_payload_column('pay_both', 'attrs');
SELECT create_inverted_index('pay_both', include => '{attrs}');
SELECT put_edge('pay_both', 'USER#a', 'FOLLOWS#USER#b', '{"v": 1}');
SELECT put_edges('pay_both', '[{"pk": "USER#c", "sk": "FOLLOWS#USER#b", "data": {"v": 2}},
							   {"pk": "USER#d", "sk": "FOLLOWS#USER#b", "attrs": {"v": 3}}]');
SELECT put_edge_if('pay_both', 'USER#a', 'FOLLOWS#USER#b', '{"v": 4}', '{"v": 1}') AS replaced;
SELECT pk, attrs, data FROM pay_both ORDER BY 1;
SELECT pk, attrs FROM pay_both_inverted ORDER BY 2;

-- errors name their SQLSTATE
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- a table with neither a column data nor a payload column: its items have
-- no attributes, and data other than NULL is refused (42703)
CREATE TABLE pay_none (pk adjkey, sk adjkey, n int, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('pay_none');
SELECT q AS call, pg_temp.err(q) AS outcome FROM (VALUES
	($$SELECT put_edge('pay_none', 'USER#a', 'FOLLOWS#USER#b')$$),
	($$SELECT put_edge('pay_none', 'USER#a', 'FOLLOWS#USER#b', '{"v": 1}')$$),
	($$SELECT put_edges('pay_none', '[{"pk": "USER#c", "sk": "FOLLOWS#USER#b", "data": null}]')$$),
	($$SELECT put_edges('pay_none', '[{"pk": "USER#c", "sk": "FOLLOWS#USER#b", "data": {"v": 1}}]')$$),
	($$SELECT put_edge_if_absent('pay_none', 'USER#d', 'FOLLOWS#USER#b', '{"v": 1}')$$),
	($$SELECT put_edge_if('pay_none', 'USER#a', 'FOLLOWS#USER#b', NULL, '{}')$$),
	($$SELECT delete_edge_if('pay_none', 'USER#a', 'FOLLOWS#USER#b', '{}')$$),
	($$SELECT import_dynamodb('pay_none', '{"Item":{"pk":{"S":"USER#e"},"sk":{"S":"X"},"v":{"N":"1"}}}')$$),
	($$SELECT import_dynamodb('pay_none', '{"Item":{"pk":{"S":"USER#e"},"sk":{"S":"X"}}}')$$)) v(q);
SELECT pk, sk FROM pay_none ORDER BY 1, 2;
SELECT pg_temp.drift('pay_none_inverted');

-- put_edges spells the members as put_edge's parameters (pk, sk, data) or
-- as the table's columns (its key columns, its payload column): first a
-- column's name as it is, then a parameter's, then either in any case
CREATE TABLE kd ("PK" adjkey, "SK" adjkey, data jsonb, PRIMARY KEY ("PK", "SK"));
SELECT create_inverted_index('kd', partition_key => 'SK', sort_key => 'PK', include => '{data}');
SELECT put_edges('kd', '[{"PK": "USER#a", "SK": "FOLLOWS#USER#b", "data": {"as": "columns"}},
						 {"pk": "USER#c", "sk": "FOLLOWS#USER#b", "data": {"as": "parameters"}},
						 {"Pk": "USER#d", "sK": "FOLLOWS#USER#b", "DATA": {"as": "any case"}}]');
SELECT * FROM kd_inverted ORDER BY 1, 2;
CREATE TABLE se (source adjkey, edge adjkey, attrs jsonb, PRIMARY KEY (source, edge));
SELECT set_payload_column('se', 'attrs');
SELECT create_inverted_index('se', partition_key => 'edge', sort_key => 'source', include => '{attrs}');
SELECT put_edges('se', '[{"source": "USER#a", "edge": "FOLLOWS#USER#b", "attrs": {"as": "columns"}},
						 {"pk": "USER#c", "sk": "FOLLOWS#USER#b", "data": {"as": "parameters"}},
						 {"Source": "USER#d", "EDGE": "FOLLOWS#USER#b", "Attrs": {"as": "any case"}}]');
SELECT * FROM se_inverted ORDER BY 1, 2;
SELECT pg_temp.drift('kd_inverted'), pg_temp.drift('se_inverted');
-- a table keyed by (sk, pk): "sk" is its partition key (a column's name
-- first), "pk" its sort key, and "SK" could be either
CREATE TABLE rev (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
SELECT create_inverted_index('rev', partition_key => 'pk', sort_key => 'sk');
SELECT put_edges('rev', '[{"sk": "FOLLOWS#USER#b", "pk": "USER#a"}]');
SELECT * FROM rev;
SELECT q AS call, pg_temp.err(q) AS outcome FROM (VALUES
	($$SELECT put_edges('se', '[{"source": "USER#x", "edge": "E", "weight": 1}]')$$),
	($$SELECT put_edges('se', '[{"source": "USER#x", "edge": "E", "attrs": {}, "data": {}}]')$$),
	($$SELECT put_edges('se', '[{"source": "USER#x", "pk": "USER#y", "edge": "E"}]')$$),
	($$SELECT put_edges('se', '[{"edge": "E"}]')$$),
	($$SELECT put_edges('kd', '[{"PK": "USER#x", "pk": "USER#y", "SK": "E"}]')$$),
	($$SELECT put_edges('kd', '[{"PK": "USER#x", "SK": "E", "Payload": {}}]')$$),
	($$SELECT put_edges('rev', '[{"SK": "E", "pk": "USER#x"}]')$$)) v(q);
\set VERBOSITY default
SELECT put_edges('se', '[{"source": "USER#x", "edge": "E", "weight": 1}]');
SELECT put_edges('rev', '[{"SK": "E", "pk": "USER#x"}]');
\set VERBOSITY terse

-- The privileges each write function needs (README, The write API): a put
-- is an upsert that reads back its row (INSERT, UPDATE, SELECT), a put if
-- absent INSERT and SELECT, a delete DELETE and SELECT; less is 42501,
-- and a role that may only INSERT writes with plain INSERT, indexed all
-- the same.
CREATE TABLE grants (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('grants');
CREATE ROLE regress_grant_i;
CREATE ROLE regress_grant_is;
CREATE ROLE regress_grant_ius;
CREATE ROLE regress_grant_ds;
GRANT INSERT ON grants TO regress_grant_i;
GRANT INSERT, SELECT ON grants TO regress_grant_is;
GRANT INSERT, UPDATE, SELECT ON grants TO regress_grant_ius;
GRANT DELETE, SELECT ON grants TO regress_grant_ds;
GRANT EXECUTE ON FUNCTION pg_temp.err(text) TO PUBLIC;
CREATE FUNCTION pg_temp.as_role(r text, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text;
BEGIN
	EXECUTE format('SET LOCAL ROLE %I', r);
	res := pg_temp.err(q);
	RESET ROLE;
	RETURN res;
END $$;
SELECT r AS role, q AS call, pg_temp.as_role(r, q) AS outcome FROM (VALUES
	('regress_grant_i', $$INSERT INTO grants VALUES ('USER#a', 'F#USER#1')$$),
	('regress_grant_i', $$SELECT put_edge_if_absent('grants', 'USER#a', 'F#USER#2')$$),
	('regress_grant_is', $$SELECT put_edge_if_absent('grants', 'USER#a', 'F#USER#2')$$),
	('regress_grant_is', $$SELECT put_edge('grants', 'USER#a', 'F#USER#3')$$),
	('regress_grant_ius', $$SELECT put_edge('grants', 'USER#a', 'F#USER#3')$$),
	('regress_grant_ius', $$SELECT put_edge_if('grants', 'USER#a', 'F#USER#3', '{"v": 1}', '{}')$$),
	('regress_grant_ius', $$SELECT put_edges('grants', '[{"pk": "USER#a", "sk": "F#USER#4"}]')$$),
	('regress_grant_ius', $$SELECT delete_edge('grants', 'USER#a', 'F#USER#4')$$),
	('regress_grant_ds', $$SELECT delete_edge('grants', 'USER#a', 'F#USER#4')$$),
	('regress_grant_ds', $$SELECT delete_edge_if('grants', 'USER#a', 'F#USER#3', '{"v": 1}')$$)) v(r, q);
SELECT sk FROM grants ORDER BY sk;
SELECT count(*) AS drift FROM verify_inverted_index('grants_inverted');
DROP TABLE grants;
DROP ROLE regress_grant_i, regress_grant_is, regress_grant_ius, regress_grant_ds;
-- delete_edge deletes without RETURNING where the triggers keep every
-- index and the key is all it would return (its WHERE reads the key
-- already): the same privileges and policies either way.  SELECT on the key
-- columns is needed, on the projected columns too where an index projects
-- others; a row the caller may not see is not deleted; DELETE is needed.
CREATE TABLE de_bare (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('de_bare');
CREATE TABLE de_incl (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('de_incl', include => '{data}');
INSERT INTO de_bare VALUES ('USER#a', 'F#1', '{}'), ('USER#a', 'F#2', '{"secret": true}'),
	('USER#a', 'F#3', NULL), ('USER#a', 'F#4', NULL);
INSERT INTO de_incl SELECT * FROM de_bare;
CREATE ROLE regress_de_keys;
CREATE ROLE regress_de_all;
CREATE ROLE regress_de_sel;
GRANT DELETE, SELECT (pk, sk) ON de_bare, de_incl TO regress_de_keys;
GRANT DELETE, SELECT ON de_bare, de_incl TO regress_de_all;
GRANT SELECT ON de_bare, de_incl TO regress_de_sel;
ALTER TABLE de_bare ENABLE ROW LEVEL SECURITY;
ALTER TABLE de_incl ENABLE ROW LEVEL SECURITY;
CREATE POLICY s ON de_bare FOR SELECT USING (data->>'secret' IS NULL);
CREATE POLICY d ON de_bare FOR DELETE USING (sk <> 'F#4');
CREATE POLICY s ON de_incl FOR SELECT USING (data->>'secret' IS NULL);
CREATE POLICY d ON de_incl FOR DELETE USING (sk <> 'F#4');
SELECT r AS role, q AS call, pg_temp.as_role(r, q) AS outcome FROM (VALUES
	('regress_de_keys', $$SELECT delete_edge('de_bare', 'USER#a', 'F#1')$$),
	('regress_de_keys', $$SELECT delete_edge('de_incl', 'USER#a', 'F#1')$$),
	('regress_de_all', $$SELECT delete_edge('de_incl', 'USER#a', 'F#1')$$),
	('regress_de_all', $$SELECT delete_edge('de_bare', 'USER#a', 'F#2')$$),
	('regress_de_all', $$SELECT delete_edge('de_incl', 'USER#a', 'F#2')$$),
	('regress_de_all', $$SELECT delete_edge('de_bare', 'USER#a', 'F#4')$$),
	('regress_de_all', $$SELECT delete_edge('de_incl', 'USER#a', 'F#4')$$),
	('regress_de_sel', $$SELECT delete_edge('de_bare', 'USER#a', 'F#3')$$),
	('regress_de_sel', $$SELECT delete_edge('de_incl', 'USER#a', 'F#3')$$),
	('regress_de_all', $$SELECT delete_edge('de_bare', 'USER#a', 'F#3')$$),
	('regress_de_all', $$SELECT delete_edge('de_incl', 'USER#a', 'F#3')$$),
	('regress_de_all', $$SELECT delete_edge('de_bare', 'USER#a', 'F#3')$$)) v(r, q);
SELECT 'bare' AS t, sk FROM de_bare UNION ALL SELECT 'incl', sk FROM de_incl ORDER BY 1, 2;
SELECT (SELECT count(*) FROM verify_inverted_index('de_bare_inverted')) AS bare_drift,
	   (SELECT count(*) FROM verify_inverted_index('de_incl_inverted')) AS incl_drift;
DROP TABLE de_bare, de_incl;
DROP ROLE regress_de_keys, regress_de_all, regress_de_sel;

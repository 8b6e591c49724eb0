/* adjlist 0.1 -> 0.2: write sharding of inverted index partitions */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION adjlist UPDATE TO '0.2'" to load this file. \quit

-- =====================================================================
-- Write sharding (DynamoDB's "TARGET#bob#0..N")
-- =====================================================================

-- How many sub-partitions each partition key of an index is spread over;
-- 0: none.  An index row is stored under write_shard_key(partition key,
-- sort key, write_shards).
ALTER TABLE adjlist_inverted_indexes
	ADD COLUMN write_shards integer NOT NULL DEFAULT 0
	CHECK (write_shards = 0 OR write_shards BETWEEN 2 AND 256);

CREATE FUNCTION write_shard(source adjkey, shards integer) RETURNS integer
	AS 'MODULE_PATHNAME', 'adjlist_write_shard'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard(adjkey, integer) IS
	'the write shard (0 .. shards-1) of a source key: FNV-1a of its UTF-8 bytes, modulo shards';

CREATE FUNCTION write_shard_key(partition_key adjkey, source adjkey, shards integer) RETURNS adjkey
	AS 'MODULE_PATHNAME', 'adjlist_write_shard_key'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard_key(adjkey, adjkey, integer) IS
	'the partition key an index row is stored under: partition_key#shard, or partition_key itself when shards is 0';

CREATE FUNCTION write_shard_keys(partition_key adjkey, shards integer) RETURNS adjkey[]
	AS 'MODULE_PATHNAME', 'adjlist_write_shard_keys'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION write_shard_keys(adjkey, integer) IS
	'every stored partition key of a logical partition: partition_key#0 .. #shards-1, or {partition_key}';

-- The write shards of a registered index table; 0 for any other table.
CREATE FUNCTION adjlist_index_write_shards(tbl regclass) RETURNS integer
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce((SELECT r.write_shards FROM @extschema@.adjlist_inverted_indexes r
					 WHERE r.indexrel = tbl), 0)
$$;
COMMENT ON FUNCTION adjlist_index_write_shards(regclass) IS
	'internal: the number of write shards of an inverted index table, 0 for other tables';

-- The SELECT list that computes index rows from the base table: the
-- partition key under its write shard.
CREATE OR REPLACE FUNCTION adjlist_index_select(idx regclass, base_alias text DEFAULT 'b') RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT format('SELECT %s FROM %s %I WHERE %I.%I IS NOT NULL AND %I.%I IS NOT NULL',
				  string_agg(CASE WHEN ord = 1 AND r.write_shards > 0
								  THEN format('@extschema@.write_shard_key(%I.%I, %I.%I, %s) AS %I',
											  base_alias, col, base_alias, r.columns[2],
											  r.write_shards, col)
								  ELSE format('%I.%I', base_alias, col) END,
							 ', ' ORDER BY ord),
				  @extschema@.adjlist_qualified(r.baserel), base_alias,
				  base_alias, r.columns[1], base_alias, r.columns[2])
	FROM @extschema@.adjlist_inverted_indexes r, unnest(r.columns) WITH ORDINALITY u(col, ord)
	WHERE r.indexrel = idx
	GROUP BY r.baserel, r.columns, r.write_shards
$$;

-- create_inverted_index gains write_shards (its privileges are carried
-- over to the new signature below)
SELECT pg_catalog.set_config('adjlist_update.acl',
	coalesce((SELECT p.proacl::text FROM pg_catalog.pg_proc p
			  WHERE p.oid = 'create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text)'::regprocedure), ''),
	true);
DROP FUNCTION create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text);
CREATE FUNCTION create_inverted_index(
	tbl regclass,
	partition_key name DEFAULT 'sk',
	sort_key name DEFAULT 'pk',
	include name[] DEFAULT '{}',
	index_name text DEFAULT NULL,
	partitions integer DEFAULT 0,
	counters integer DEFAULT 0,
	base_key name[] DEFAULT NULL,
	existing boolean DEFAULT false,
	mode text DEFAULT 'trigger',
	write_shards integer DEFAULT 0)
RETURNS regclass
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	base_ns name;
	base_name name;
	base_owner oid;
	base_kind "char";
	pkcols name[];
	cols name[];
	inc name[];
	col name;
	keytype oid := '@extschema@.adjkey'::regtype;
	idx_name text;
	idx regclass;
	cnt regclass;
	qidx text;
	coldefs text;
	pages bigint;
	chunks int;
	done bigint := 0;
	n bigint;
BEGIN
	IF tbl IS NULL OR partition_key IS NULL OR sort_key IS NULL OR include IS NULL
	   OR partitions IS NULL OR counters IS NULL OR existing IS NULL OR mode IS NULL
	   OR write_shards IS NULL THEN
		RAISE EXCEPTION 'arguments of create_inverted_index must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	PERFORM @extschema@.adjlist_require_read_committed('create_inverted_index');
	SELECT n.nspname, c.relname, c.relowner, c.relkind
	  INTO base_ns, base_name, base_owner, base_kind
	  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE c.oid = tbl;
	IF mode NOT IN ('trigger', 'api') THEN
		RAISE EXCEPTION 'mode must be ''trigger'' or ''api'', not %', quote_literal(mode)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF write_shards < 0 OR write_shards = 1 OR write_shards > 256 THEN
		RAISE EXCEPTION 'write_shards must be 0 (none) or between 2 and 256, not %', write_shards
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF base_kind NOT IN ('r', 'p', 'f') THEN
		RAISE EXCEPTION '"%" is not a table', base_name
			USING ERRCODE = 'wrong_object_type';
	END IF;
	IF NOT pg_has_role(base_owner, 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of table %', base_name
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	-- Citus refuses triggers that write a table distributed by another key
	IF mode = 'trigger' AND @extschema@.adjlist_is_citus_table(tbl) THEN
		RAISE EXCEPTION 'table "%" is distributed by Citus: trigger mode cannot keep its index', base_name
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Use mode => ''api'' and write with put_edge(), delete_edge() and delete_node().';
	END IF;
	-- writers wait from here on; the backfill below sees all they committed
	EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', @extschema@.adjlist_qualified(tbl));

	-- the key columns exist and are adjkey
	FOREACH col IN ARRAY ARRAY[partition_key, sort_key] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_attribute
					   WHERE attrelid = tbl AND attname = col AND attnum > 0 AND NOT attisdropped) THEN
			RAISE EXCEPTION 'column "%" of table "%" does not exist', col, base_name
				USING ERRCODE = 'undefined_column';
		END IF;
		IF (SELECT atttypid FROM pg_attribute WHERE attrelid = tbl AND attname = col) <> keytype THEN
			RAISE EXCEPTION 'column "%" of table "%" is of type %, not adjkey', col, base_name,
				(SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = tbl AND attname = col)
				USING ERRCODE = 'datatype_mismatch',
					  HINT = 'The partition and sort keys of an inverted index must be adjkey columns.';
		END IF;
	END LOOP;
	IF partition_key = sort_key THEN
		RAISE EXCEPTION 'the partition key and the sort key must be different columns'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	-- the base table's primary key, or the key we are told (a partitioned
	-- table with foreign partitions can have no primary key)
	IF base_key IS NOT NULL THEN
		IF cardinality(base_key) = 0 THEN
			RAISE EXCEPTION 'base_key must name at least one column'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		FOREACH col IN ARRAY base_key LOOP
			IF NOT EXISTS (SELECT 1 FROM pg_attribute
						   WHERE attrelid = tbl AND attname = col AND attnum > 0 AND NOT attisdropped) THEN
				RAISE EXCEPTION 'column "%" of table "%" does not exist', col, base_name
					USING ERRCODE = 'undefined_column';
			END IF;
		END LOOP;
		pkcols := base_key;
	ELSE
		SELECT array_agg(a.attname ORDER BY k.ord)
		  INTO pkcols
		  FROM pg_index i
		  CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
		  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		 WHERE i.indrelid = tbl AND i.indisprimary;
	END IF;
	IF pkcols IS NULL THEN
		RAISE EXCEPTION 'table "%" has no primary key', base_name
			USING ERRCODE = 'invalid_table_definition',
				  HINT = 'An inverted index maps each row by its primary key, for example PRIMARY KEY (pk, sk); '
						 'a table that cannot have one (foreign partitions) names its key with base_key => ''{pk,sk}''.';
	END IF;

	-- the key: partition key, sort key, then the rest of the primary key
	cols := ARRAY[partition_key, sort_key];
	FOREACH col IN ARRAY pkcols LOOP
		IF NOT col = ANY (cols) THEN
			cols := cols || col;
		END IF;
	END LOOP;

	-- projected columns; '*' projects every column (DynamoDB's ALL)
	IF include = ARRAY['*']::name[] THEN
		SELECT coalesce(array_agg(attname ORDER BY attnum), '{}') INTO inc
		  FROM pg_attribute
		 WHERE attrelid = tbl AND attnum > 0 AND NOT attisdropped AND NOT attname = ANY (cols);
	ELSE
		inc := '{}';
		FOREACH col IN ARRAY include LOOP
			IF NOT EXISTS (SELECT 1 FROM pg_attribute
						   WHERE attrelid = tbl AND attname = col AND attnum > 0 AND NOT attisdropped) THEN
				RAISE EXCEPTION 'column "%" of table "%" does not exist', col, base_name
					USING ERRCODE = 'undefined_column';
			END IF;
			IF col = ANY (cols) OR col = ANY (inc) THEN
				CONTINUE;	-- already in the index table
			END IF;
			inc := inc || col;
		END LOOP;
	END IF;

	-- the index table: same schema, same owner, the base table's columns
	idx_name := coalesce(index_name, base_name || '_inverted');
	IF existing THEN
		-- a table the caller made (for example hash-partitioned over foreign
		-- partitions on other servers): it must have the columns, same types
		idx := to_regclass(format('%I.%I', base_ns, idx_name));
		IF idx IS NULL THEN
			RAISE EXCEPTION 'relation "%" does not exist', idx_name
				USING ERRCODE = 'undefined_table',
					  HINT = 'With existing => true, create the index table in the schema of the base table first.';
		END IF;
		FOREACH col IN ARRAY cols || inc LOOP
			IF NOT EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_attribute b
							 ON b.attrelid = tbl AND b.attname = a.attname AND b.atttypid = a.atttypid
						   WHERE a.attrelid = idx AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped) THEN
				RAISE EXCEPTION 'table "%" has no column "%" of the type it has in "%"', idx_name, col, base_name
					USING ERRCODE = 'datatype_mismatch';
			END IF;
		END LOOP;
		IF NOT pg_has_role((SELECT relowner FROM pg_class WHERE oid = idx), 'USAGE') THEN
			RAISE EXCEPTION 'must be owner of table %', idx_name
				USING ERRCODE = 'insufficient_privilege';
		END IF;
		IF partitions <> 0 THEN
			RAISE EXCEPTION 'partitions cannot be given with existing => true'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		qidx := @extschema@.adjlist_qualified(idx);
		EXECUTE format('DELETE FROM %s', qidx);		-- the backfill below fills it
	ELSIF to_regclass(format('%I.%I', base_ns, idx_name)) IS NOT NULL THEN
		RAISE EXCEPTION 'relation "%" already exists', idx_name
			USING ERRCODE = 'duplicate_table',
				  HINT = 'Pass index_name to choose another name, or drop_inverted_index() the old one.';
	END IF;
	IF NOT existing THEN
		SELECT string_agg(format('%I %s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
								 CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
									  THEN ' COLLATE ' || a.attcollation::regcollation::text ELSE '' END,
								 CASE WHEN u.ord <= cardinality(cols) THEN ' NOT NULL' ELSE '' END),
						  ', ' ORDER BY u.ord)
		  INTO coldefs
		  FROM unnest(cols || inc) WITH ORDINALITY u(col, ord)
		  JOIN pg_attribute a ON a.attrelid = tbl AND a.attname = u.col
		  JOIN pg_type t ON t.oid = a.atttypid;
		IF partitions < 0 OR partitions = 1 OR partitions > 1024 THEN
			RAISE EXCEPTION 'partitions must be 0 (a plain table) or between 2 and 1024'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		EXECUTE format('CREATE TABLE %I.%I (%s, PRIMARY KEY (%s))%s', base_ns, idx_name, coldefs,
					   (SELECT string_agg(format('%I', c), ', ') FROM unnest(cols) c),
					   CASE WHEN partitions > 0 THEN format(' PARTITION BY HASH (%I)', partition_key) ELSE '' END);
		idx := format('%I.%I', base_ns, idx_name)::regclass;
		FOR i IN 0 .. partitions - 1 LOOP
			EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
						   base_ns, idx_name || '_' || i, @extschema@.adjlist_qualified(idx), partitions, i);
			EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', base_ns, idx_name || '_' || i,
						   pg_get_userbyid(base_owner));
		END LOOP;
		qidx := @extschema@.adjlist_qualified(idx);
		EXECUTE format('ALTER TABLE %s OWNER TO %I', qidx, pg_get_userbyid(base_owner));
		EXECUTE format('COMMENT ON TABLE %s IS %L', qidx,
					   format('adjlist inverted index of %s (partition key %s, sort key %s)',
							  @extschema@.adjlist_qualified(tbl), partition_key, sort_key));
	END IF;

	-- degree counters, spread over several rows per node and edge
	IF counters < 0 OR counters > 1024 THEN
		RAISE EXCEPTION 'counters must be between 0 (none) and 1024'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF counters > 0 AND mode = 'api' THEN
		RAISE EXCEPTION 'degree counters are kept by triggers only'
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Use mode => ''trigger'', or count with degree().';
	END IF;
	IF counters > 0 THEN
		IF to_regclass(format('%I.%I', base_ns, idx_name || '_degree')) IS NOT NULL THEN
			RAISE EXCEPTION 'relation "%" already exists', idx_name || '_degree'
				USING ERRCODE = 'duplicate_table';
		END IF;
		EXECUTE format('CREATE TABLE %I.%I (node @extschema@.adjkey NOT NULL, edge text NOT NULL, '
					   'direction "char" NOT NULL CHECK (direction IN (''o'', ''i'')), '
					   'shard smallint NOT NULL, n bigint NOT NULL, '
					   'PRIMARY KEY (node, edge, direction, shard))',
					   base_ns, idx_name || '_degree');
		cnt := format('%I.%I', base_ns, idx_name || '_degree')::regclass;
		EXECUTE format('ALTER TABLE %s OWNER TO %I', @extschema@.adjlist_qualified(cnt),
					   pg_get_userbyid(base_owner));
		EXECUTE format('COMMENT ON TABLE %s IS %L', @extschema@.adjlist_qualified(cnt),
					   format('adjlist degree counters of %s', qidx));
	END IF;

	INSERT INTO @extschema@.adjlist_inverted_indexes (indexrel, baserel, columns, nkeys,
													  counterrel, counter_shards, base_key, mode,
													  write_shards)
	VALUES (idx, tbl, cols || inc, cardinality(cols), cnt, counters, pkcols, mode, write_shards);
	PERFORM @extschema@.adjlist_install_triggers(tbl);

	-- backfill; a large plain table is read in chunks of blocks, with progress
	pages := CASE WHEN base_kind = 'r' THEN pg_relation_size(tbl) / current_setting('block_size')::int ELSE 0 END;
	IF pages < 1000 THEN
		EXECUTE format('INSERT INTO %s %s', qidx, @extschema@.adjlist_index_select(idx));
	ELSE
		chunks := 10;
		FOR i IN 0 .. chunks - 1 LOOP
			EXECUTE format('INSERT INTO %s %s AND b.ctid >= %L::tid %s', qidx,
						   @extschema@.adjlist_index_select(idx),
						   format('(%s,0)', pages * i / chunks),
						   CASE WHEN i < chunks - 1
								THEN format('AND b.ctid < %L::tid', format('(%s,0)', pages * (i + 1) / chunks))
								ELSE '' END);
			GET DIAGNOSTICS n = ROW_COUNT;
			done := done + n;
			RAISE NOTICE 'create_inverted_index: backfilled % rows (% %%)', done, (i + 1) * 100 / chunks;
		END LOOP;
	END IF;
	IF cnt IS NOT NULL THEN
		EXECUTE format('INSERT INTO %s %s', @extschema@.adjlist_qualified(cnt),
					   @extschema@.adjlist_degree_select(idx));
	END IF;
	EXECUTE format('ANALYZE %s', qidx);
	RETURN idx;
END $$;
COMMENT ON FUNCTION create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer) IS
	'create an inverted index (a DynamoDB GSI) of a table, kept in sync by triggers';
DO $$
DECLARE
	acl text := pg_catalog.current_setting('adjlist_update.acl');
	f regprocedure := 'create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer)'::regprocedure;
	a record;
BEGIN
	IF acl <> '' THEN
		EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		FOR a IN SELECT * FROM pg_catalog.aclexplode(acl::pg_catalog.aclitem[]) LOOP
			EXECUTE pg_catalog.format('GRANT %s ON FUNCTION %s TO %s%s', a.privilege_type, f,
				CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
				CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
		END LOOP;
	END IF;
END $$;

-- query() and query_count() (through the SQL they run) merge the shards of a
-- write-sharded index
CREATE OR REPLACE FUNCTION adjlist_query_sql(
	tbl regclass, sort_op text, sort_value text, sort_value2 text,
	backward boolean, lim bigint, exclusive_start_key jsonb, count_only boolean)
RETURNS text
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cols name[];
	types regtype[];
	keytype regtype := '@extschema@.adjkey'::regtype;
	q text;
	cond text := '';
	keyset text := '';
	ord text := '';
	i int;
	p text;
	s text;
	shards int;
	lim_sql text := CASE WHEN lim IS NOT NULL THEN format(' LIMIT %s', greatest(lim, 0)) ELSE '' END;
BEGIN
	IF tbl IS NULL THEN
		RAISE EXCEPTION 'table must not be null' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT array_agg(a.attname ORDER BY k.ord), array_agg(a.atttypid::regtype ORDER BY k.ord)
	  INTO cols, types
	  FROM pg_index x
	  CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
	  JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
	 WHERE x.indrelid = tbl AND x.indisprimary;
	IF cols IS NULL THEN
		-- an inverted index table that can have no primary key (over
		-- foreign partitions): the key it was registered with
		SELECT array_agg(a.attname ORDER BY k.ord), array_agg(a.atttypid::regtype ORDER BY k.ord)
		  INTO cols, types
		  FROM @extschema@.adjlist_inverted_indexes r
		  CROSS JOIN LATERAL unnest(r.columns[1:r.nkeys]) WITH ORDINALITY k(col, ord)
		  JOIN pg_attribute a ON a.attrelid = tbl AND a.attname = k.col AND NOT a.attisdropped
		 WHERE r.indexrel = tbl;
	END IF;
	IF cols IS NULL OR cardinality(cols) < 2 OR types[1] <> keytype OR types[2] <> keytype THEN
		RAISE EXCEPTION 'table % needs a primary key whose first two columns are adjkey', tbl
			USING ERRCODE = 'invalid_table_definition',
				  HINT = 'query() reads a partition by its primary key, for example PRIMARY KEY (pk, sk).';
	END IF;
	p := format('t.%I', cols[1]);
	s := format('t.%I', cols[2]);
	-- a write-sharded inverted index: the partition $1 is spread over the
	-- keys write_shard_keys($1, shards), read one by one and merged in key
	-- order (the immutable call on a parameter folds to constants)
	shards := @extschema@.adjlist_index_write_shards(tbl);

	-- the sort-key condition
	IF sort_op IS NOT NULL THEN
		IF sort_value IS NULL THEN
			RAISE EXCEPTION 'sort condition % needs a value', sort_op
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		CASE lower(sort_op)
			WHEN '=', '<', '<=', '>', '>=' THEN
				cond := format(' AND %s %s $2::%s', s,
							   @extschema@.adjlist_btree_operator(keytype,
								   CASE sort_op WHEN '<' THEN 1 WHEN '<=' THEN 2 WHEN '=' THEN 3
												WHEN '>=' THEN 4 ELSE 5 END),
							   keytype);
			WHEN 'between' THEN
				IF sort_value2 IS NULL THEN
					RAISE EXCEPTION 'between needs two values' USING ERRCODE = 'invalid_parameter_value';
				END IF;
				IF sort_value::@extschema@.adjkey OPERATOR(@extschema@.>) sort_value2::@extschema@.adjkey THEN
					RAISE EXCEPTION 'invalid between condition: the low bound % is greater than the high bound %',
						quote_literal(sort_value), quote_literal(sort_value2)
						USING ERRCODE = 'invalid_parameter_value',
							  HINT = 'DynamoDB rejects this too (ValidationException); swap the bounds.';
				END IF;
				cond := format(' AND %1$s OPERATOR(%3$s.>=) $2::%2$s AND %1$s OPERATOR(%3$s.<=) $3::%2$s',
							   s, keytype, quote_ident('@extschema@'));
			WHEN 'begins_with' THEN
				cond := format(' AND %s OPERATOR(%s.^@) $2::text', s, quote_ident('@extschema@'));
			ELSE
				RAISE EXCEPTION 'unknown sort condition %', quote_literal(sort_op)
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Use =, <, <=, >, >=, between or begins_with.';
		END CASE;
	END IF;

	-- keyset pagination: rows strictly after the exclusive start key, in
	-- the scan's order; the key must name every key column after the first
	IF exclusive_start_key IS NOT NULL THEN
		FOR i IN REVERSE cardinality(cols) .. 2 LOOP
			IF NOT exclusive_start_key ? cols[i] THEN
				RAISE EXCEPTION 'exclusive_start_key lacks the key column %', cols[i]
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Pass the key of the last row of the previous page.';
			END IF;
			keyset := format('(t.%1$I %2$s ($4 ->> %3$L)::%4$s%5$s)',
							 cols[i],
							 @extschema@.adjlist_btree_operator(types[i], CASE WHEN backward THEN 1 ELSE 5 END),
							 cols[i], types[i],
							 CASE WHEN keyset = '' THEN ''
								  ELSE format(' OR (t.%I %s ($4 ->> %L)::%s AND %s)', cols[i],
											  @extschema@.adjlist_btree_operator(types[i], 3),
											  cols[i], types[i], keyset) END);
		END LOOP;
		keyset := ' AND ' || keyset;
	END IF;

	IF count_only AND shards > 0 THEN
		RETURN format('SELECT count(*) FROM %s t WHERE %s %s ANY (@extschema@.write_shard_keys($1, %s))%s',
					  @extschema@.adjlist_qualified(tbl), p,
					  @extschema@.adjlist_btree_operator(keytype, 3), shards, cond);
	ELSIF count_only THEN
		RETURN format('SELECT count(*) FROM %s t WHERE %s %s $1%s',
					  @extschema@.adjlist_qualified(tbl), p,
					  @extschema@.adjlist_btree_operator(keytype, 3), cond);
	END IF;

	FOR i IN 2 .. cardinality(cols) LOOP
		ord := ord || CASE WHEN i > 2 THEN ', ' ELSE '' END
			|| format('t.%I USING %s', cols[i],
					  @extschema@.adjlist_btree_operator(types[i], CASE WHEN backward THEN 5 ELSE 1 END));
	END LOOP;
	IF shards > 0 THEN
		-- callers see the partition they asked for, not the shard's key
		RETURN format('SELECT $1, %s, jsonb_build_object(%s), to_jsonb(t) || jsonb_build_object(%L, $1) '
					  'FROM (%s) t ORDER BY %s%s',
					  s,
					  (SELECT string_agg(CASE WHEN c = cols[1] THEN format('%L, $1', c)
											  ELSE format('%L, t.%I', c, c) END, ', ')
						 FROM unnest(cols) c),
					  cols[1],
					  (SELECT string_agg(format('(SELECT * FROM %s t WHERE %s %s '
												'(@extschema@.write_shard_keys($1, %s))[%s]%s%s ORDER BY %s%s)',
												@extschema@.adjlist_qualified(tbl), p,
												@extschema@.adjlist_btree_operator(keytype, 3),
												shards, g.shard, cond, keyset, ord, lim_sql),
										 ' UNION ALL ' ORDER BY g.shard)
						 FROM generate_series(1, shards) g(shard)),
					  ord, lim_sql);
	END IF;
	RETURN format('SELECT %s, %s, jsonb_build_object(%s), to_jsonb(t) FROM %s t '
				  'WHERE %s %s $1%s%s ORDER BY %s%s',
				  p, s,
				  (SELECT string_agg(format('%L, t.%I', c, c), ', ') FROM unnest(cols) c),
				  @extschema@.adjlist_qualified(tbl),
				  p, @extschema@.adjlist_btree_operator(keytype, 3), cond, keyset, ord, lim_sql);
END $$;
COMMENT ON FUNCTION adjlist_query_sql(regclass, text, text, text, boolean, bigint, jsonb, boolean) IS
	'internal: the SQL of query() and query_count()';

-- the write API stores and finds index rows under their write shard
CREATE OR REPLACE FUNCTION adjlist_api_unindex(tbl regclass, base_where text, v1 adjkey, v2 adjkey)
RETURNS void
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM @extschema@.adjlist_inverted_indexes
			  WHERE baserel = tbl AND mode = 'api' ORDER BY indexrel::oid
	LOOP
		IF r.counterrel IS NOT NULL THEN
			RAISE EXCEPTION 'degree counters are kept by triggers only'
				USING ERRCODE = 'feature_not_supported';
		END IF;
		-- the index rows the base rows have: adjlist_index_select computes
		-- them (under their write shard) as adjlist_api_index writes them
		EXECUTE format('DELETE FROM %s i USING (%s AND %s) o WHERE %s',
					   @extschema@.adjlist_qualified(r.indexrel),
					   @extschema@.adjlist_index_select(r.indexrel, 'b'), base_where,
					   @extschema@.adjlist_key_match(r.indexrel, 'i', 'o'))
			USING v1, v2;
	END LOOP;
END $$;
COMMENT ON FUNCTION adjlist_api_unindex(regclass, text, adjkey, adjkey) IS
	'internal: delete the index rows of base rows (write API)';

CREATE OR REPLACE FUNCTION delete_node(tbl regclass, node adjkey, edge_prefixes text[] DEFAULT '{}')
RETURNS bigint
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k name[];
	p text;
	src @extschema@.adjkey;
	n bigint := 0;
	m bigint;
	idx regclass;
BEGIN
	IF tbl IS NULL OR node IS NULL OR edge_prefixes IS NULL THEN
		RAISE EXCEPTION 'delete_node needs a table, a node and edge prefixes'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT base_key INTO k FROM @extschema@.adjlist_inverted_indexes
	 WHERE baserel = tbl ORDER BY created LIMIT 1;
	PERFORM @extschema@.adjlist_api_key_where(tbl);		-- checks k
	-- the edges pointing at the node
	SELECT indexrel INTO idx FROM @extschema@.adjlist_inverted_indexes
	 WHERE baserel = tbl AND columns[1] = k[2] AND columns[2] = k[1] ORDER BY created LIMIT 1;
	FOREACH p IN ARRAY edge_prefixes LOOP
		IF idx IS NULL THEN
			RAISE EXCEPTION 'table % has no inverted index on (%, %)', tbl, k[2], k[1]
				USING ERRCODE = 'undefined_object';
		END IF;
		FOR src IN EXECUTE format('SELECT %I FROM %s WHERE %I OPERATOR(@extschema@.=) ANY ($1)',
								  k[1], @extschema@.adjlist_qualified(idx), k[2])
			USING @extschema@.write_shard_keys((p || node::text)::@extschema@.adjkey,
											   @extschema@.adjlist_index_write_shards(idx))
		LOOP
			IF @extschema@.delete_edge(tbl, src, (p || node::text)::@extschema@.adjkey) THEN
				n := n + 1;
			END IF;
		END LOOP;
	END LOOP;
	-- the item collection
	PERFORM @extschema@.adjlist_api_unindex(tbl, format('b.%I OPERATOR(@extschema@.=) $1', k[1]), node, NULL);
	EXECUTE format('DELETE FROM %s b WHERE b.%I OPERATOR(@extschema@.=) $1',
				   @extschema@.adjlist_qualified(tbl), k[1]) USING node;
	GET DIAGNOSTICS m = ROW_COUNT;
	RETURN n + m;
END $$;
COMMENT ON FUNCTION delete_node(regclass, adjkey, text[]) IS
	'delete a node''s item collection and every edge pointing at it; returns the rows deleted';

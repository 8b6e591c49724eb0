--
-- One cursor for every paged function: neighbors() and reverse_neighbors()
-- take exclusive_start_key, the last row's key as jsonb ({"<pk column>":
-- pk, "<sk column>": sk} of the base-table edge), as query() does; after
-- (the last sk, or the last source) is its alias.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- bob follows u01..u12 and is followed by them; a profile row; carol
-- follows u03 and is followed by u05
CREATE TABLE pg_plain (pk adjkey, sk adjkey, data jsonb, secret boolean DEFAULT false,
					   PRIMARY KEY (pk, sk));
INSERT INTO pg_plain
SELECT 'USER#bob'::adjkey, ('FOLLOWS#USER#u' || lpad(i::text, 2, '0'))::adjkey, jsonb_build_object('n', i), i % 4 = 0
  FROM generate_series(1, 12) i
UNION ALL
SELECT ('USER#u' || lpad(i::text, 2, '0'))::adjkey, 'FOLLOWS#USER#bob'::adjkey, jsonb_build_object('n', i), i % 3 = 0
  FROM generate_series(1, 12) i
UNION ALL
VALUES ('USER#bob'::adjkey, 'PROFILE'::adjkey, '{"name": "Bob"}'::jsonb, false),
	   ('USER#carol', 'FOLLOWS#USER#u03', NULL, false),
	   ('USER#u05', 'FOLLOWS#USER#carol', NULL, false);
SELECT create_inverted_index('pg_plain');
-- the same, its index write-sharded
CREATE TABLE pg_sharded (LIKE pg_plain INCLUDING ALL);
INSERT INTO pg_sharded SELECT * FROM pg_plain;
SELECT create_inverted_index('pg_sharded', write_shards => 3);
-- the same, keyed by other column names
CREATE TABLE "PgCols" ("PK" adjkey, "SK" adjkey, data jsonb, secret boolean DEFAULT false,
					   PRIMARY KEY ("PK", "SK"));
INSERT INTO "PgCols" SELECT * FROM pg_plain;
SELECT create_inverted_index('"PgCols"', partition_key => 'SK', sort_key => 'PK');

-- Every page of a node's out- or in-edges, read with the cursor built from
-- the previous page's last row (or with after): "page:neighbor" in order.
CREATE FUNCTION pages(tbl regclass, node adjkey, rev boolean, back boolean, size bigint,
					  use_after boolean, pkn text DEFAULT 'pk', skn text DEFAULT 'sk')
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	esk jsonb;
	aft adjkey;
	r record;
	n bigint;
	page int := 0;
BEGIN
	LOOP
		page := page + 1;
		n := 0;
		FOR r IN SELECT * FROM neighbors(tbl, node, 'FOLLOWS#', size, aft, back, '', false, NULL, esk)
				 WHERE NOT rev
				 UNION ALL
				 SELECT * FROM reverse_neighbors(tbl, node, 'FOLLOWS#', size, aft, back, '', false, NULL, esk)
				 WHERE rev
		LOOP
			n := n + 1;
			RETURN NEXT page || ':' || r.neighbor;
			IF use_after THEN
				aft := CASE WHEN rev THEN r.pk ELSE r.sk END;
			ELSE
				esk := jsonb_build_object(pkn, r.pk, skn, r.sk);
			END IF;
		END LOOP;
		EXIT WHEN n < size OR page > 50;
	END LOOP;
END $$;

-- all of them, in one call
CREATE FUNCTION whole(tbl regclass, node adjkey, rev boolean, back boolean)
RETURNS text[] LANGUAGE sql AS $$
	SELECT array_agg(neighbor::text ORDER BY ord)
	FROM (SELECT neighbor, ord FROM neighbors(tbl, node, 'FOLLOWS#', NULL, NULL, back)
			WITH ORDINALITY AS x(neighbor, pk, sk, data, ord) WHERE NOT rev
		  UNION ALL
		  SELECT neighbor, ord FROM reverse_neighbors(tbl, node, 'FOLLOWS#', NULL, NULL, back)
			WITH ORDINALITY AS x(neighbor, pk, sk, data, ord) WHERE rev) s
$$;

-- the cursor of neighbors() is the last row's key
SELECT neighbor, pk, sk FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 3);
SELECT neighbor, pk, sk FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 3,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}');
SELECT neighbor, pk, sk FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 3, backward => true,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u10"}');
-- and of reverse_neighbors(): the source is pk, the edge to the node sk
SELECT neighbor, pk, sk FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 3);
SELECT neighbor, pk, sk FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 3,
	exclusive_start_key => '{"pk": "USER#u03", "sk": "FOLLOWS#USER#bob"}');
SELECT neighbor, pk, sk FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 3, backward => true,
	exclusive_start_key => '{"pk": "USER#u10", "sk": "FOLLOWS#USER#bob"}');
-- a member other than the key columns does not match the key, as in
-- DynamoDB (a whole row's jsonb is no key); its key columns are
SELECT neighbor FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => (SELECT to_jsonb(t) FROM pg_plain t
							WHERE pk = 'USER#bob' AND sk = 'FOLLOWS#USER#u10'));
SELECT neighbor FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => (SELECT jsonb_build_object('pk', pk, 'sk', sk) FROM pg_plain t
							WHERE pk = 'USER#bob' AND sk = 'FOLLOWS#USER#u10'));

-- page by page, 5 at a time, forward and backward
SELECT * FROM pages('pg_plain', 'USER#bob', false, false, 5, false);
SELECT * FROM pages('pg_plain', 'USER#bob', true, true, 5, false);

-- every table, direction, order and page size: the pages, concatenated,
-- are the whole answer, and the same pages as after gives
SELECT t, rev, back, size,
	   array_agg(split_part(p, ':', 2)) = whole(t, 'USER#bob', rev, back) AS whole,
	   array_agg(p) = (SELECT array_agg(q) FROM pages(t, 'USER#bob', rev, back, size, true) q) AS same_as_after,
	   count(*) AS n, max(split_part(p, ':', 1)::int) AS pages
FROM (VALUES ('pg_plain'::regclass, 'pk', 'sk'), ('pg_sharded', 'pk', 'sk'), ('"PgCols"', 'PK', 'SK')) v(t, pkn, skn),
	 (VALUES (false), (true)) r(rev), (VALUES (false), (true)) b(back), (VALUES (1::bigint), (5), (12), (100)) s(size),
	 LATERAL pages(t, 'USER#bob', rev, back, size, false, pkn, skn) p
GROUP BY t, rev, back, size
ORDER BY t::text COLLATE "C", rev, back, size;
-- carol (one edge each way) and a node without edges
SELECT * FROM pages('pg_sharded', 'USER#carol', false, false, 1, false);
SELECT * FROM pages('pg_sharded', 'USER#carol', true, false, 1, false);
SELECT * FROM pages('pg_sharded', 'USER#nobody', true, false, 1, false);

-- through row-level security: the reader does not see the secret edges,
-- and pages through what it sees
CREATE ROLE regress_paging_reader;
GRANT SELECT ON pg_plain, pg_sharded, "PgCols" TO regress_paging_reader;
ALTER TABLE pg_plain ENABLE ROW LEVEL SECURITY;
ALTER TABLE pg_sharded ENABLE ROW LEVEL SECURITY;
CREATE POLICY not_secret ON pg_plain FOR SELECT TO regress_paging_reader USING (NOT secret);
CREATE POLICY not_secret ON pg_sharded FOR SELECT TO regress_paging_reader USING (NOT secret);
SET ROLE regress_paging_reader;
SELECT * FROM pages('pg_plain', 'USER#bob', false, false, 4, false);
SELECT * FROM pages('pg_sharded', 'USER#bob', true, true, 4, false);
SELECT t, rev, back, size,
	   array_agg(split_part(p, ':', 2)) = whole(t, 'USER#bob', rev, back) AS whole,
	   array_agg(p) = (SELECT array_agg(q) FROM pages(t, 'USER#bob', rev, back, size, true) q) AS same_as_after,
	   count(*) AS n
FROM (VALUES ('pg_plain'::regclass), ('pg_sharded')) v(t),
	 (VALUES (false), (true)) r(rev), (VALUES (false), (true)) b(back), (VALUES (1::bigint), (4)) s(size),
	 LATERAL pages(t, 'USER#bob', rev, back, size, false) p
GROUP BY t, rev, back, size
ORDER BY t::text COLLATE "C", rev, back, size;
-- a cursor naming a row the reader cannot see still pages after it
SELECT neighbor FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u04"}');
RESET ROLE;

-- errors, with their SQLSTATE
CREATE FUNCTION err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	DECLARE
		d text;
	BEGIN
		GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
		RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(d, '') || ')', '');
	END;
END $$;
SELECT err(q) FROM (VALUES
	-- both the cursor and its alias
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'FOLLOWS#USER#u01',
		exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u01"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'USER#u01',
		exclusive_start_key => '{"pk": "USER#u01", "sk": "FOLLOWS#USER#bob"}')$$),
	-- another partition
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#carol", "sk": "FOLLOWS#USER#u03"}')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": 5, "sk": "FOLLOWS#USER#u03"}')$$),
	-- outside the edge prefix
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "sk": "PROFILE"}')$$),
	-- null members
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "sk": null}')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": null, "sk": "FOLLOWS#USER#u03"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": null, "sk": "FOLLOWS#USER#bob"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#u01", "sk": null}')$$),
	-- absent members
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"sk": "FOLLOWS#USER#u03"}')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"sk": "FOLLOWS#USER#bob"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#u01"}')$$),
	-- the key columns' names, not pk and sk, on "PgCols"
	($$SELECT * FROM neighbors('"PgCols"', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}')$$),
	($$SELECT * FROM reverse_neighbors('"PgCols"', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#u01", "sk": "FOLLOWS#USER#bob"}')$$),
	-- not an object
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, exclusive_start_key => '["USER#bob"]')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, exclusive_start_key => '"USER#u01"')$$),
	-- reverse: sk is not the edge to the node (nor its stored shard key)
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#u05", "sk": "FOLLOWS#USER#carol"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_sharded', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#u01", "sk": "FOLLOWS#USER#bob#0"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_plain', 'USER#bob', 'LIKES#', 2, target_prefix => 'ITEM#',
		exclusive_start_key => '{"pk": "USER#u01", "sk": "LIKES#bob"}')$$),
	-- query() reads the same members: a number or an object is no key (keys
	-- are strings), nor is a member that is not a key column
	($$SELECT * FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": 5}')$$),
	($$SELECT * FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": {"s": "x"}}')$$),
	($$SELECT * FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": true}')$$),
	($$SELECT * FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u01", "x": 1}')$$),
	($$SELECT * FROM query_count_page('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u01", "data": {}}')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u01", "secret": false}')$$),
	($$SELECT * FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": null}')$$),
	($$SELECT * FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob"}')$$)
) v(q);
-- the same start key with only the key columns is valid
SELECT count(*) FROM query('pg_plain', 'USER#bob', exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u01"}');

DROP TABLE pg_plain, pg_sharded, "PgCols";
DROP FUNCTION pages, whole, err;
DROP OWNED BY regress_paging_reader;
DROP ROLE regress_paging_reader;

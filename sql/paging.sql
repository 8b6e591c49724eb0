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
-- and by names other than pk and sk in any case
CREATE TABLE pg_named (source adjkey, edge adjkey, data jsonb, secret boolean DEFAULT false,
					   PRIMARY KEY (source, edge));
INSERT INTO pg_named SELECT * FROM pg_plain;
SELECT create_inverted_index('pg_named', partition_key => 'edge', sort_key => 'source');

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

-- the functions' rows name the key pk and sk whatever the table calls
-- its key columns: their key ({"pk": pk, "sk": sk}) is the cursor of any
-- table, as batch_get() takes it; so is one of the table's own names (in
-- any case), or a mix of the two
SELECT neighbor, pk, sk FROM neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => (SELECT jsonb_build_object('pk', pk, 'sk', sk)
							FROM neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 3) OFFSET 2));
SELECT neighbor FROM neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"source": "USER#bob", "edge": "FOLLOWS#USER#u03"}');
-- a table keyed (node, sk): "sk" is its own column and "pk" still names
-- the first, so the rows' key is its cursor too (neighbors and query())
CREATE TABLE pg_half (node adjkey, sk adjkey, data jsonb, PRIMARY KEY (node, sk));
INSERT INTO pg_half SELECT pk, sk, data FROM pg_plain WHERE pk = 'USER#bob' AND sk ^@ 'FOLLOWS#';
SELECT create_inverted_index('pg_half', partition_key => 'sk', sort_key => 'node');
SELECT neighbor FROM neighbors('pg_half', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => (SELECT jsonb_build_object('pk', pk, 'sk', sk)
							FROM neighbors('pg_half', 'USER#bob', 'FOLLOWS#', 3) OFFSET 2));
SELECT key FROM query('pg_half', 'USER#bob', 'begins_with', 'FOLLOWS#', lim => 2,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}');
DROP TABLE pg_half;
SELECT neighbor FROM neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"Source": "USER#bob", "SK": "FOLLOWS#USER#u03"}');
SELECT neighbor FROM neighbors_keys('pg_named', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}');
SELECT neighbor FROM reverse_neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"pk": "USER#u03", "sk": "FOLLOWS#USER#bob"}');
SELECT neighbor FROM reverse_neighbors_nodes('pg_named', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"pk": "USER#u03", "sk": "FOLLOWS#USER#bob"}');
-- and on "PgCols" ("PK", "SK"), pk and sk are its columns in another case
SELECT neighbor FROM neighbors('"PgCols"', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}');
SELECT neighbor FROM reverse_neighbors('"PgCols"', 'USER#bob', 'FOLLOWS#', 2,
	exclusive_start_key => '{"pk": "USER#u03", "sk": "FOLLOWS#USER#bob"}');
-- query() takes the same names; its rows' key names the table's columns
SELECT sort_key, key FROM query('pg_named', 'USER#bob', 'begins_with', 'FOLLOWS#', lim => 1,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}');
SELECT * FROM query_count_page('pg_named', 'USER#bob', lim => 2,
	exclusive_start_key => '{"PK": "USER#bob", "edge": "FOLLOWS#USER#u03"}');
SELECT sort_key, key FROM query('pg_named', 'USER#bob', lim => 1, backward => true,
	exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#USER#u03"}');
SELECT count(*) FROM query('pg_named', 'USER#bob', 'between', 'FOLLOWS#', 'FOLLOWS#USER#u06',
	exclusive_start_key => '{"Source": "USER#bob", "SK": "FOLLOWS#USER#u03"}');
SELECT query_count('pg_named', 'USER#bob', exclusive_start_key => '{"sk": "FOLLOWS#USER#u10"}');
SELECT sort_key, key FROM query('pg_named_inverted', 'FOLLOWS#USER#bob', lim => 1,
	exclusive_start_key => '{"edge": "FOLLOWS#USER#bob", "source": "USER#u03"}');
-- and with a key column after the two (typed): {"pk", "sk", "v"}
CREATE TABLE pg_wide (source adjkey, edge adjkey, v int, PRIMARY KEY (source, edge, v));
INSERT INTO pg_wide VALUES ('A', 'B', 1), ('A', 'B', 2), ('A', 'C', 1);
SELECT key FROM query('pg_wide', 'A', lim => 1, exclusive_start_key => '{"pk": "A", "sk": "B", "v": 1}');
SELECT key FROM query('pg_wide', 'A', exclusive_start_key => '{"pk": "A", "sk": "B", "V": 2}');
SELECT key FROM query('pg_wide', 'A', backward => true, exclusive_start_key => '{"sk": "C", "v": 1}');
DROP TABLE pg_wide;
-- with sk_is_target, the edge prefix alone is an edge (its sort key is
-- the neighbor): a start key of it is valid
INSERT INTO pg_plain VALUES ('USER#dan', 'FOLLOWS#', NULL), ('USER#dan', 'FOLLOWS#USER#bob', NULL);
SELECT neighbor FROM neighbors('pg_plain', 'USER#dan', 'FOLLOWS#', sk_is_target => true);
SELECT neighbor FROM neighbors('pg_plain', 'USER#dan', 'FOLLOWS#', sk_is_target => true,
	exclusive_start_key => '{"pk": "USER#dan", "sk": "FOLLOWS#"}');
SELECT neighbor FROM neighbors('pg_plain', 'USER#dan', 'FOLLOWS#', sk_is_target => true, after => 'FOLLOWS#');
DELETE FROM pg_plain WHERE pk = 'USER#dan';

-- page by page, 5 at a time, forward and backward
SELECT * FROM pages('pg_plain', 'USER#bob', false, false, 5, false);
SELECT * FROM pages('pg_plain', 'USER#bob', true, true, 5, false);

-- every table, direction, order and page size: the pages, concatenated,
-- are the whole answer, and the same pages as after gives
SELECT t, rev, back, size,
	   array_agg(split_part(p, ':', 2)) = whole(t, 'USER#bob', rev, back) AS whole,
	   array_agg(p) = (SELECT array_agg(q) FROM pages(t, 'USER#bob', rev, back, size, true) q) AS same_as_after,
	   count(*) AS n, max(split_part(p, ':', 1)::int) AS pages
FROM (VALUES ('pg_plain'::regclass, 'pk', 'sk'), ('pg_sharded', 'pk', 'sk'), ('"PgCols"', 'PK', 'SK'),
			 ('pg_named', 'source', 'edge'), ('pg_named', 'pk', 'sk')) v(t, pkn, skn),
	 (VALUES (false), (true)) r(rev), (VALUES (false), (true)) b(back), (VALUES (1::bigint), (5), (12), (100)) s(size),
	 LATERAL pages(t, 'USER#bob', rev, back, size, false, pkn, skn) p
GROUP BY t, pkn, rev, back, size
ORDER BY t::text COLLATE "C", pkn COLLATE "C", rev, back, size;
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
	-- the edge prefix alone, which is no edge
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "sk": "FOLLOWS#"}')$$),
	-- too long to name a neighbor with the target prefix
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, target_prefix => 'PERSON#LONG#',
		exclusive_start_key => jsonb_build_object('pk', 'USER#bob', 'sk', 'FOLLOWS#' || repeat('x', 2040)))$$),
	-- after is checked as the start key is: the same errors
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'PROFILE')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'AAA')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'FOLLOWS#')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'LIKES#POST#777')$$),
	($$SELECT * FROM neighbors_keys('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'PROFILE')$$),
	($$SELECT * FROM neighbors_nodes('pg_plain', 'USER#bob', 'FOLLOWS#', 2, after => 'FOLLOWS#')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2, target_prefix => 'PERSON#LONG#',
		after => ('FOLLOWS#' || repeat('x', 2040))::adjkey)$$),
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
	-- a key column named twice (its name and pk or sk, or in two cases)
	($$SELECT * FROM neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "source": "USER#bob", "sk": "FOLLOWS#USER#u03"}')$$),
	($$SELECT * FROM reverse_neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#u01", "sk": "FOLLOWS#USER#bob", "EDGE": "FOLLOWS#USER#bob"}')$$),
	($$SELECT * FROM neighbors('pg_plain', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob", "PK": "USER#bob", "sk": "FOLLOWS#USER#u03"}')$$),
	($$SELECT * FROM query('pg_named', 'USER#bob',
		exclusive_start_key => '{"Sk": "FOLLOWS#USER#u03", "edge": "FOLLOWS#USER#u03"}')$$),
	-- missing: the error names the table's column
	($$SELECT * FROM neighbors('pg_named', 'USER#bob', 'FOLLOWS#', 2,
		exclusive_start_key => '{"pk": "USER#bob"}')$$),
	-- on the index table, whose key columns are named sk and pk, these
	-- are its columns: the partition (sk) must be the one queried
	($$SELECT * FROM query('pg_plain_inverted', 'FOLLOWS#USER#bob',
		exclusive_start_key => '{"pk": "FOLLOWS#USER#bob", "sk": "USER#u03"}')$$),
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

DROP TABLE pg_plain, pg_sharded, "PgCols", pg_named;
DROP FUNCTION pages, whole, err;
DROP OWNED BY regress_paging_reader;
DROP ROLE regress_paging_reader;

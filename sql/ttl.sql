--
-- Time to live and the payload column (table_options.c): set_ttl() names a
-- table's expiry column, reads skip expired items, sweep_expired() deletes
-- them with their index rows; set_payload_column() names the jsonb column
-- of an item's attributes.  Each kind of expiry column, NULL expiries,
-- rows other sessions hold, the index projecting the expiry, the DDL that
-- would lose a column, who may set them, and what a dropped table leaves.
--
SET client_min_messages = warning;
CREATE SCHEMA ttl;
SET search_path = ttl, public;

CREATE TABLE sessions (pk adjkey, sk adjkey, data jsonb, expires timestamptz,
	PRIMARY KEY (pk, sk));
SELECT set_ttl('sessions', 'expires');
SELECT create_inverted_index('sessions', include => '{data}');
-- the index projects the expiry column by itself
SELECT columns FROM adjlist_inverted_indexes WHERE indexrel = 'sessions_inverted'::regclass;
INSERT INTO sessions VALUES
	('USER#a', 'SESSION#1', '{"n": 1}', now() - interval '1 hour'),
	('USER#a', 'SESSION#2', '{"n": 2}', now() + interval '1 hour'),
	('USER#a', 'SESSION#3', '{"n": 3}', NULL),
	('USER#b', 'SESSION#1', '{"n": 4}', now() - interval '1 second');
-- reads skip the expired items: query() on the table and on its index,
-- query_count(), its pages, batch_get(), export
SELECT sort_key, item ->> 'data' AS data FROM query('sessions', 'USER#a');
SELECT query_count('sessions', 'USER#a') AS a, query_count('sessions', 'USER#b') AS b;
SELECT * FROM query_count_page('sessions', 'USER#a', lim => 10);
SELECT partition_key, sort_key FROM query('sessions_inverted', 'SESSION#1');
SELECT pk, sk, data FROM batch_get('sessions', '[{"pk": "USER#a", "sk": "SESSION#1"},
	{"pk": "USER#a", "sk": "SESSION#2"}, {"pk": "USER#b", "sk": "SESSION#1"}]');
-- (the expiry is written as its attribute, in epoch seconds: an hour from now)
SELECT regexp_replace(x, '"expires":\{"N":"([0-9.]+)"\}', '"expires":{"N":"<epoch>"}') AS export,
	   (regexp_match(x, '"expires":\{"N":"([0-9.]+)"\}'))[1]::numeric
		   = (SELECT extract(epoch FROM expires) FROM sessions s WHERE x LIKE '%' || s.sk::text || '%') AS exact
FROM export_dynamodb('sessions') x;
-- until swept, the rows are there: a plain SELECT sees them
SELECT count(*) AS rows FROM sessions;
-- the sweep deletes them in bounded batches, with their index rows
SELECT sweep_expired('sessions', 1) AS first, sweep_expired('sessions') AS rest,
	   sweep_expired('sessions') AS nothing_left;
SELECT count(*) AS rows, (SELECT count(*) FROM sessions_inverted) AS index_rows FROM sessions;
SELECT count(*) AS drift FROM verify_inverted_index('sessions_inverted');

-- epoch seconds (DynamoDB's format), of each numeric type; a timestamp
-- without time zone; a date
CREATE TABLE epochs (pk adjkey, sk adjkey, i4 integer, i8 bigint, num numeric, f8 double precision,
	ts timestamp, d date, PRIMARY KEY (pk, sk));
INSERT INTO epochs
SELECT 'E', 'past', e - 60, e - 60, e - 60.5, e - 60.5, localtimestamp - interval '1 minute', current_date - 1
FROM (SELECT extract(epoch FROM now())::bigint AS e) x;
INSERT INTO epochs
SELECT 'E', 'future', e + 3600, e + 3600, e + 3600.5, e + 3600.5, localtimestamp + interval '1 hour', current_date + 1
FROM (SELECT extract(epoch FROM now())::bigint AS e) x;
-- (an option takes effect from the next statement, as DDL does)
CREATE FUNCTION live_with(c name) RETURNS adjkey[] LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_ttl('epochs', c);
	RETURN ARRAY(SELECT sort_key FROM query('epochs', 'E'));
END $$;
SELECT c AS expiry_column, live_with(c::name) AS live
FROM unnest(ARRAY['i4', 'i8', 'num', 'f8', 'ts', 'd']) c ORDER BY c;

-- refused: an expiry column of another type, or none; a table whose index
-- lacks the column; an index table; a caller who does not own the table
\set VERBOSITY sqlstate
SELECT set_ttl('sessions', 'data');
SELECT set_ttl('sessions', 'nope');
SELECT set_ttl('sessions_inverted', 'expires');
SELECT sweep_expired('epochs', 0);
CREATE TABLE plain (pk adjkey, sk adjkey, data jsonb, expires timestamptz, PRIMARY KEY (pk, sk));
SELECT sweep_expired('plain');
SELECT create_inverted_index('plain');
SELECT set_ttl('plain', 'expires');
SELECT set_payload_column('plain', 'expires');
\set VERBOSITY default
CREATE ROLE regress_ttl_other;
GRANT USAGE ON SCHEMA ttl TO regress_ttl_other;
GRANT SELECT, UPDATE, DELETE ON sessions TO regress_ttl_other;
SET ROLE regress_ttl_other;
SELECT set_ttl('sessions', NULL);
-- who may delete the rows (and lock them: UPDATE) may sweep them
SELECT sweep_expired('sessions');
RESET ROLE;

-- DDL that would lose an option's column is refused while it is set
ALTER TABLE sessions RENAME COLUMN expires TO expiry;
ALTER TABLE sessions ALTER COLUMN expires TYPE text;
-- (the hint names the table as a literal that works whatever its name)
CREATE TABLE "Ttl ""Odd""" (pk adjkey, sk adjkey, exp timestamptz, PRIMARY KEY (pk, sk));
SELECT set_ttl('"Ttl ""Odd"""', 'exp');
ALTER TABLE "Ttl ""Odd""" DROP COLUMN exp;
DROP TABLE "Ttl ""Odd""";
SELECT set_ttl('sessions', NULL);
SELECT * FROM adjlist_table_options WHERE tbl::text LIKE 'ttl.%' ORDER BY 1;

-- the payload column: batch_get and export read the one named
CREATE TABLE items (pk adjkey, sk adjkey, attrs jsonb, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO items VALUES ('I', '1', '{"from": "attrs"}', '{"from": "data"}');
SELECT data FROM batch_get('items', '[{"pk": "I", "sk": "1"}]');
SELECT set_payload_column('items', 'attrs');
SELECT data FROM batch_get('items', '[{"pk": "I", "sk": "1"}]');
SELECT * FROM export_dynamodb('items');
ALTER TABLE items DROP COLUMN attrs;
-- a dropped table leaves no options behind
DROP TABLE items, epochs;
SELECT tbl FROM adjlist_table_options WHERE tbl::text LIKE 'ttl.%' ORDER BY 1;

DROP SCHEMA ttl CASCADE;
DROP ROLE regress_ttl_other;

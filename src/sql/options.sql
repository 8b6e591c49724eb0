-- adjlist install and update script, part: what a table says about its
-- items beyond its keys (table_options.c).  The table is new in 0.3, for a
-- fresh install and an update alike.

-- One row per table with an option set; written by set_payload_column()
-- and set_ttl() (as the extension's owner, for the table's owner) and by
-- pg_restore, which dumps the rows as extension configuration.
CREATE TABLE adjlist_table_options (
	tbl regclass PRIMARY KEY,
	-- the jsonb column of an item's attributes; NULL: "data"
	payload name,
	-- the column that says when an item expires; NULL: items never expire
	ttl name
);
COMMENT ON TABLE adjlist_table_options IS
	'what a table says about its items: their payload column and their expiry column';
SELECT pg_catalog.pg_extension_config_dump('adjlist_table_options', '');
REVOKE ALL ON adjlist_table_options FROM PUBLIC;
GRANT SELECT ON adjlist_table_options TO PUBLIC;

CREATE OR REPLACE FUNCTION set_payload_column(tbl regclass, col name) RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_set_payload_column'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION set_payload_column(regclass, name) IS
	'the jsonb column that holds an item''s attributes (NULL: "data"), for the graph functions, query() and the write API';

CREATE OR REPLACE FUNCTION set_ttl(tbl regclass, col name) RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_set_ttl'
	LANGUAGE C VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION set_ttl(regclass, name) IS
	'the column that says when an item expires (NULL: never); reads skip expired items, sweep_expired() deletes them';

CREATE OR REPLACE FUNCTION sweep_expired(tbl regclass, lim integer DEFAULT 1000) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_sweep_expired'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION sweep_expired(regclass, integer) IS
	'delete up to lim expired items of a table with their index rows, skipping rows others hold; returns how many';

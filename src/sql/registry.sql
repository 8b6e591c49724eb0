-- adjlist install script, part: the registry of inverted indexes
-- (fresh installs; the update scripts alter it)

-- =====================================================================
-- Inverted indexes (DynamoDB global secondary indexes)
-- =====================================================================

-- The registry of inverted indexes.  It is extension configuration, so
-- pg_dump dumps its rows; regclass columns survive dump and restore by name.
-- adjlist's functions write it (as its owner, after checking that the
-- caller owns the tables); everyone may read it.  Anyone may INSERT a row
-- for tables of their own, which is how pg_restore brings registrations
-- back: adjlist_registry_restored() checks such a row like a registration
-- (index_restore.c) and rebuilds the index when its table's triggers are
-- already there (a data-only restore).
--
-- Its CHECK constraints are bound while this script runs, as the
-- bootstrap superuser with the extension's schema first on the
-- search_path, a schema the installing database owner may create
-- functions in: every function is written with its schema, or a function
-- of the owner's with a closer argument type (cardinality(name[]) beats
-- pg_catalog's cardinality(anyarray)) would be bound instead and run as the
-- superuser at every write of the registry.  Operators on built-in types
-- need no schema: pg_catalog, searched first, has them with the exact
-- argument types.
CREATE TABLE adjlist_inverted_indexes (
	indexrel regclass PRIMARY KEY,
	baserel regclass NOT NULL,
	-- the index table's columns, in order: the partition key, the sort key,
	-- the rest of the base table's primary key, then projected columns
	columns name[] NOT NULL CHECK (pg_catalog.array_position(columns, NULL) IS NULL),
	-- how many leading columns form the index table's primary key
	nkeys integer NOT NULL CHECK (nkeys >= 2 AND nkeys <= pg_catalog.cardinality(columns)),
	-- the degree counter table, or NULL; counter_shards is 1 when there is one
	counterrel regclass,
	counter_shards integer NOT NULL DEFAULT 0 CHECK (counter_shards >= 0),
	-- the columns that identify a row of the base table (its primary key,
	-- or what create_inverted_index was told where it has none)
	base_key name[] NOT NULL
		CHECK (pg_catalog.array_position(base_key, NULL) IS NULL AND pg_catalog.cardinality(base_key) >= 1),
	-- 'trigger': kept by triggers; 'api': kept by put_edge() and friends
	mode text NOT NULL DEFAULT 'trigger' CHECK (mode IN ('trigger', 'api')),
	created timestamptz NOT NULL DEFAULT pg_catalog.now(),
	-- how many sub-partitions each partition key is spread over; 0: none
	write_shards integer NOT NULL DEFAULT 0
		CHECK (write_shards = 0 OR write_shards BETWEEN 2 AND 256),
	-- false while CALL create_inverted_index(..., concurrently => true) builds
	-- it, or after such a build failed: writers keep it, readers refuse it
	ready boolean NOT NULL DEFAULT true,
	-- a sparse index's predicate (rows for which it is true are indexed):
	-- the text of its bound form (adjlist_index_predicates), every object
	-- outside pg_catalog written with its schema; NULL: every row
	predicate text,
	CHECK ((counterrel IS NULL) = (counter_shards = 0))
);
CREATE INDEX ON adjlist_inverted_indexes (baserel);
COMMENT ON TABLE adjlist_inverted_indexes IS
	'inverted indexes kept in sync by adjlist; one row per index table, written by adjlist and by pg_restore';
SELECT pg_catalog.pg_extension_config_dump('adjlist_inverted_indexes', '');

-- The predicates of sparse indexes, bound (index_predicate.c): the
-- transformed expression, which names the functions, operators, types and
-- collations it calls by OID, as pg_index.indpred does; the index and
-- counter tables depend on them in pg_depend.  Not extension configuration:
-- OIDs do not survive pg_dump, which carries the registry's text, bound
-- again by the restore (index_restore.c).  Nor do the OIDs of functions and
-- operators survive pg_upgrade, which copies this table's file as it is:
-- each expression says which cluster it was bound in (its system
-- identifier, as pg_control_system() shows it), and one bound in another
-- is bound again from the text (index_predicate_rebind()).  Only adjlist
-- writes it, as its owner.
CREATE TABLE adjlist_index_predicates (
	indexrel regclass PRIMARY KEY,
	expr pg_node_tree NOT NULL,
	system_identifier bigint NOT NULL
);
COMMENT ON TABLE adjlist_index_predicates IS
	'the predicates of sparse inverted indexes, bound to the objects they name; written by adjlist';

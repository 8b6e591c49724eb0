-- adjlist install and update script, part: the write API (CREATE OR REPLACE)

-- ---------------------------------------------------------------------
-- The write API: base table and inverted indexes in one transaction,
-- without triggers (Citus, or any engine where triggers cannot write
-- another table).  Indexes in trigger mode are left to their triggers.
-- ---------------------------------------------------------------------

CREATE OR REPLACE FUNCTION put_edge(tbl regclass, pk adjkey, sk adjkey, data jsonb DEFAULT NULL)
RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_put_edge'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION put_edge(regclass, adjkey, adjkey, jsonb) IS
	'write an item (insert or replace, last writer wins) and its inverted index rows in one transaction';

CREATE OR REPLACE FUNCTION put_edges(tbl regclass, edges jsonb) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_put_edges'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION put_edges(regclass, jsonb) IS
	'put_edge for each element of a JSON array of {"pk", "sk", "data"}, in one statement; returns how many';

CREATE OR REPLACE FUNCTION delete_edge(tbl regclass, pk adjkey, sk adjkey) RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_delete_edge'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_edge(regclass, adjkey, adjkey) IS
	'delete an item and its inverted index rows in one transaction; true if it existed';

CREATE OR REPLACE FUNCTION delete_node(tbl regclass, node adjkey, edge_prefixes text[] DEFAULT '{}')
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_delete_node'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_node(regclass, adjkey, text[]) IS
	'delete a node''s item collection and every edge pointing at it; returns the rows deleted';

-- ---------------------------------------------------------------------
-- Conditional writes (DynamoDB's ConditionExpression): true when the write
-- applied, false when its condition did not hold
-- ---------------------------------------------------------------------

CREATE OR REPLACE FUNCTION put_edge_if_absent(tbl regclass, pk adjkey, sk adjkey, data jsonb DEFAULT NULL)
RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_put_edge_if_absent'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION put_edge_if_absent(regclass, adjkey, adjkey, jsonb) IS
	'put_edge only if no item has the key (attribute_not_exists); true if it was inserted';

CREATE OR REPLACE FUNCTION put_edge_if(tbl regclass, pk adjkey, sk adjkey, data jsonb, expected jsonb)
RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_put_edge_if'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION put_edge_if(regclass, adjkey, adjkey, jsonb, jsonb) IS
	'replace an item only if it exists and its data contains expected (optimistic locking); true if it was replaced';

CREATE OR REPLACE FUNCTION delete_edge_if(tbl regclass, pk adjkey, sk adjkey, expected jsonb)
RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_delete_edge_if'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION delete_edge_if(regclass, adjkey, adjkey, jsonb) IS
	'delete an item only if its data contains expected; true if it was deleted';

-- ---------------------------------------------------------------------
-- DynamoDB JSON: the typed lines of a DynamoDB table export
-- ---------------------------------------------------------------------

CREATE OR REPLACE FUNCTION import_dynamodb(tbl regclass, items text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_import_dynamodb'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_dynamodb(regclass, text) IS
	'put the items of DynamoDB JSON lines ({"Item": {...}}) into a table with its indexes; returns how many';

CREATE OR REPLACE FUNCTION export_dynamodb(tbl regclass) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'adjlist_export_dynamodb'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION export_dynamodb(regclass) IS
	'the items of a table as DynamoDB JSON lines ({"Item": {...}}), in key order';

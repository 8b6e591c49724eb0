-- adjlist 0.2 -> 0.3, first part: what 0.3 no longer has, and the
-- registry brought to its 0.3 form.  The rest of the script is the install
-- script's own text (bounds, index, access, events, graph, write_api),
-- which creates or replaces; the last part brings the user's tables along.

-- The SQL helpers of 0.1/0.2 that C does now
DROP FUNCTION adjlist_api_index(regclass, text, adjkey, adjkey);
DROP FUNCTION adjlist_api_key_where(regclass);
DROP FUNCTION adjlist_api_unindex(regclass, text, adjkey, adjkey);
DROP FUNCTION adjlist_btree_operator(regtype, integer);
DROP FUNCTION adjlist_degree_diff(regclass);
DROP FUNCTION adjlist_degree_select(regclass);
DROP FUNCTION adjlist_eq_operator(regtype);
DROP FUNCTION adjlist_index_select(regclass, text);
DROP FUNCTION adjlist_index_write_shards(regclass);
DROP FUNCTION adjlist_install_triggers(regclass);
DROP FUNCTION adjlist_is_citus_table(regclass);
DROP FUNCTION adjlist_key_match(regclass, text, text);
DROP FUNCTION adjlist_qualified(regclass);
DROP FUNCTION adjlist_query_sql(regclass, text, text, text, boolean, bigint, jsonb, boolean);
DROP FUNCTION adjlist_require_read_committed(text);

-- Functions made again, whose privileges the last part gives back: the
-- bounds of begins_with ranges are bytea now (bounds.sql makes them again,
-- with the same arguments), and the graph functions take an edge_filter
-- jsonb as their last argument, neighbors and reverse_neighbors then an
-- exclusive_start_key jsonb (graph.sql; CREATE OR REPLACE cannot add an
-- argument, it would make an overload).  The setting maps each function
-- as it will be (regprocedure text) to the privileges it had.
SELECT pg_catalog.set_config('adjlist_update.acl',
	coalesce((SELECT pg_catalog.json_object_agg(f.newsig, f.acl)
			  FROM (SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text AS newsig,
						   p.proacl::pg_catalog.text AS acl
					FROM pg_catalog.pg_proc p
					WHERE p.oid IN ('adjkey_prefix_lower(text)'::pg_catalog.regprocedure,
									'adjkey_prefix_upper(text)'::pg_catalog.regprocedure,
									'adjkey_prefix_upper(adjkey)'::pg_catalog.regprocedure)
					  AND p.proacl IS NOT NULL
					UNION ALL
					SELECT pg_catalog.regexp_replace(p.oid::pg_catalog.regprocedure::pg_catalog.text,
													 '\)$', ',jsonb,jsonb)'),
						   p.proacl::pg_catalog.text
					FROM pg_catalog.pg_proc p
					WHERE p.oid IN (
							'neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean)'::pg_catalog.regprocedure,
							'reverse_neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean)'::pg_catalog.regprocedure)
					  AND p.proacl IS NOT NULL
					UNION ALL
					SELECT pg_catalog.regexp_replace(p.oid::pg_catalog.regprocedure::pg_catalog.text,
													 '\)$', ',jsonb)'),
						   p.proacl::pg_catalog.text
					FROM pg_catalog.pg_proc p
					WHERE p.oid IN (
							'degree(regclass, adjkey, text, text, text, boolean)'::pg_catalog.regprocedure,
							'has_edge(regclass, adjkey, adjkey, text, text, boolean)'::pg_catalog.regprocedure,
							'traverse(regclass, adjkey, text, integer, text, bigint, boolean, text, boolean)'::pg_catalog.regprocedure,
							'reachable_count(regclass, adjkey, text, integer, text, text, boolean)'::pg_catalog.regprocedure,
							'shortest_path(regclass, adjkey, adjkey, text, integer, text, text, boolean)'::pg_catalog.regprocedure,
							'common_neighbors(regclass, adjkey, adjkey, text, text, text, boolean)'::pg_catalog.regprocedure,
							'walk_ranked(regclass, adjkey, text[], text[], boolean, bigint, text, boolean)'::pg_catalog.regprocedure)
					  AND p.proacl IS NOT NULL) f)::pg_catalog.text, '{}'),
	true);
DROP FUNCTION adjkey_prefix_lower(text);
DROP FUNCTION adjkey_prefix_upper(text);
DROP FUNCTION adjkey_prefix_upper(adjkey);
-- (a view or function of the user's that calls one of these by its 0.2
-- signature stops the update here: drop it before and make it again after)
DROP FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean);
DROP FUNCTION reverse_neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean);
DROP FUNCTION degree(regclass, adjkey, text, text, text, boolean);
DROP FUNCTION has_edge(regclass, adjkey, adjkey, text, text, boolean);
DROP FUNCTION traverse(regclass, adjkey, text, integer, text, bigint, boolean, text, boolean);
DROP FUNCTION reachable_count(regclass, adjkey, text, integer, text, text, boolean);
DROP FUNCTION shortest_path(regclass, adjkey, adjkey, text, integer, text, text, boolean);
DROP FUNCTION common_neighbors(regclass, adjkey, adjkey, text, text, text, boolean);
DROP FUNCTION walk_ranked(regclass, adjkey, text[], text[], boolean, bigint, text, boolean);

-- Functions whose arguments changed: dropped here (CREATE OR REPLACE would
-- add an overload next to them), made again by the shared parts; the last
-- part gives the new ones the privileges of the old (adjlist_update.acl,
-- keyed by the new signature)
SELECT pg_catalog.set_config('adjlist_update.acl',
	(pg_catalog.current_setting('adjlist_update.acl')::pg_catalog.jsonb OPERATOR(pg_catalog.||)
	 coalesce((SELECT pg_catalog.jsonb_object_agg(c.new_sig, p.proacl::text)
			   FROM (VALUES ('create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer)',
							 'create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer, text)'),
							('query_count(regclass, adjkey, text, text, text)',
							 'query_count(regclass, adjkey, text, text, text, boolean, bigint, jsonb)'))
					AS c(old_sig, new_sig)
			   JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) c.old_sig::pg_catalog.regprocedure
			   WHERE p.proacl IS NOT NULL), '{}'))::text,
	true);
DROP FUNCTION create_inverted_index(regclass, name, name, name[], text, integer, integer, name[], boolean, text, integer);
-- (query_count takes query_count_page's paging arguments now; a view or
-- function of the user's that calls it stops the update here, as above)
DROP FUNCTION query_count(regclass, adjkey, text, text, text);

-- ^@ with a key as the prefix is adjkey ^@ adjkey_prefix now (text_ops.sql
-- says why).  adjkey ^@ adjkey goes, unless something of the user's
-- depends on it (a view, a generated column, a partial index, a function
-- body...): DROP would fail and CASCADE would drop the user's objects, so
-- then it stays, working as in 0.2, and a WARNING says what keeps it (a
-- NOTICE would not be seen: extension scripts run with client_min_messages
-- at least WARNING).  Such a database reads an untyped prefix after ^@ as
-- a key, as 0.2 did; a dump restored into a new database binds the same
-- objects to the new operator.  Later update scripts must not assume
-- either state.
DO $$
DECLARE
	op pg_catalog.oid := pg_catalog.to_regoperator('^@(adjkey, adjkey)');
	users text;
BEGIN
	IF op IS NULL THEN
		RETURN;
	END IF;
	SELECT pg_catalog.string_agg(o.what, ', ' ORDER BY o.what COLLATE "C") INTO users
	FROM (SELECT DISTINCT CASE WHEN r.rulename OPERATOR(pg_catalog.=) '_RETURN'
							   THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, r.ev_class, 0)
							   ELSE pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) END AS what
		  FROM pg_catalog.pg_depend d
		  LEFT JOIN pg_catalog.pg_rewrite r
			ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
		   AND r.oid OPERATOR(pg_catalog.=) d.objid
		  WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
			AND d.refobjid OPERATOR(pg_catalog.=) op) o;
	IF users IS NULL THEN
		DROP OPERATOR ^@ (adjkey, adjkey);
	ELSE
		RAISE WARNING 'operator ^@(adjkey, adjkey) is kept because other objects depend on it'
			USING DETAIL = pg_catalog.format('Objects that depend on it: %s.  In this database an '
				'untyped prefix after ^@ is still read as a key, as in adjlist 0.2, so sk ^@ '''' '
				'is still an error; everything else is as in 0.3.', users),
			HINT = 'Write sk ^@ ''''::text or begins_with(sk, ''''). The README (Upgrading) says '
				'how to move those objects to the operator of 0.3.';
	END IF;
END $$;

-- The event triggers come back from events.sql, with a third one
DROP EVENT TRIGGER adjlist_sql_drop;
DROP EVENT TRIGGER adjlist_ddl_end;

-- The registry: only adjlist writes it, and restores through a checked
-- INSERT (access.sql); no row-level security, whose policies kept the
-- table owner's pg_dump from reading it
DROP POLICY owner_only ON adjlist_inverted_indexes;
DROP POLICY owner_delete ON adjlist_inverted_indexes;
ALTER TABLE adjlist_inverted_indexes DISABLE ROW LEVEL SECURITY;
-- Functions in its constraints are written with their schema (registry.sql
-- says why); the one of 0.1 is made again so, in case a function of the
-- database owner's was bound in its place when 0.1 was installed.
ALTER TABLE adjlist_inverted_indexes
	DROP CONSTRAINT adjlist_inverted_indexes_check,
	ADD CONSTRAINT adjlist_inverted_indexes_check
		CHECK (nkeys >= 2 AND nkeys <= pg_catalog.cardinality(columns)),
	ADD CONSTRAINT adjlist_inverted_indexes_columns_check
		CHECK (pg_catalog.array_position(columns, NULL) IS NULL),
	ADD CONSTRAINT adjlist_inverted_indexes_base_key_check
		CHECK (pg_catalog.array_position(base_key, NULL) IS NULL AND pg_catalog.cardinality(base_key) >= 1);
-- indexes built concurrently are registered before they are ready
ALTER TABLE adjlist_inverted_indexes ADD COLUMN ready boolean NOT NULL DEFAULT true;
-- sparse indexes have a predicate
ALTER TABLE adjlist_inverted_indexes ADD COLUMN predicate text;
-- and it is bound (registry.sql); a 0.2 registry has no predicates, so there
-- is nothing to bind yet
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
-- counters are one table of deltas now, whatever their shards were
UPDATE adjlist_inverted_indexes SET counter_shards = 1 WHERE counterrel IS NOT NULL;
COMMENT ON TABLE adjlist_inverted_indexes IS
	'inverted indexes kept in sync by adjlist; one row per index table, written by adjlist and by pg_restore';

-- adjlist 0.2 -> 0.3, last part: the privileges of the functions that were
-- dropped and made again (see the first part), then the user's indexes in
-- the form of 0.3 (index_update.c): counter tables of deltas, the triggers
-- of 0.3.
DO $$
DECLARE
	f text;
	acl text;
	a record;
BEGIN
	FOR f, acl IN SELECT key, value
		FROM pg_catalog.json_each_text(pg_catalog.current_setting('adjlist_update.acl')::pg_catalog.json)
	LOOP
		EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f::pg_catalog.regprocedure);
		FOR a IN SELECT * FROM pg_catalog.aclexplode(acl::pg_catalog.aclitem[]) LOOP
			EXECUTE pg_catalog.format('GRANT %s ON FUNCTION %s TO %s%s', a.privilege_type,
				f::pg_catalog.regprocedure,
				CASE WHEN a.grantee = 0 THEN 'PUBLIC'
					 ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
				CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
		END LOOP;
	END LOOP;
END $$;
-- The procedure create_inverted_index (new in 0.3) may be called by whoever
-- may call the function of the same name.
DO $$
DECLARE
	acl pg_catalog.aclitem[];
	a record;
	proc pg_catalog.regprocedure := 'create_inverted_index(pg_catalog.regclass, pg_catalog.bool, pg_catalog.name, pg_catalog.name, pg_catalog.name[], pg_catalog.text, pg_catalog.int4, pg_catalog.int4, pg_catalog.name[], pg_catalog.bool, pg_catalog.text, pg_catalog.int4, pg_catalog.text)';
BEGIN
	SELECT p.proacl INTO acl FROM pg_catalog.pg_proc p
	WHERE p.oid OPERATOR(pg_catalog.=) 'create_inverted_index(pg_catalog.regclass, pg_catalog.name, pg_catalog.name, pg_catalog.name[], pg_catalog.text, pg_catalog.int4, pg_catalog.int4, pg_catalog.name[], pg_catalog.bool, pg_catalog.text, pg_catalog.int4, pg_catalog.text)'::pg_catalog.regprocedure;
	IF acl IS NOT NULL THEN
		EXECUTE pg_catalog.format('REVOKE ALL ON PROCEDURE %s FROM PUBLIC', proc);
		FOR a IN SELECT * FROM pg_catalog.aclexplode(acl) LOOP
			EXECUTE pg_catalog.format('GRANT %s ON PROCEDURE %s TO %s%s', a.privilege_type, proc,
				CASE WHEN a.grantee = 0 THEN 'PUBLIC'
					 ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
				CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
		END LOOP;
	END IF;
END $$;
CREATE FUNCTION adjlist_update_to_0_3() RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_update_to_0_3' LANGUAGE C;
SELECT adjlist_update_to_0_3();
DROP FUNCTION adjlist_update_to_0_3();

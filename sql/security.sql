--
-- security: no role gains a right through adjlist, and no input crashes
-- the server.  Every attempt either does what its role may do or fails
-- cleanly; an internal error (XX000) is reported with its message.
--
-- Roles:
--   regress_adjsec_owner   owns schema adjsec and its indexed tables
--   regress_adjsec_reader  SELECT on adjsec.g
--   regress_adjsec_writer  SELECT, INSERT, UPDATE, DELETE on adjsec.g;
--                          CREATE in schema adjsec_shared (its own tables)
--   regress_adjsec_temp    nothing but TEMP on the database
--   regress_adjsec_nobody  nothing at all (TEMP is revoked from PUBLIC)
--   regress_adjsec_other   owns a victim table in adjsec_shared
--   regress_adjsec_member  a member of regress_adjsec_owner
--
-- Outcomes are printed as classes (ok, denied = 42501, refused = any other
-- clean error, or the SQLSTATE and message of an internal error), so that
-- the expected output says what each role may do, not how a refusal is
-- worded.  TEMP on this database is revoked from PUBLIC until section 11.
-- The cases that crashed the server when this suite was written come last
-- (section 12): a crash there loses only the cleanup, which the next run
-- does first.  test/t/007_security_forged.pl runs them one by one.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET client_min_messages = error;
-- roles left by an earlier run that did not get to its end
DO $$
DECLARE
	r name;
BEGIN
	FOR r IN SELECT rolname FROM pg_roles WHERE rolname LIKE 'regress\_adjsec\_%' LOOP
		EXECUTE format('DROP OWNED BY %I CASCADE', r);
		EXECUTE format('DROP ROLE %I', r);
	END LOOP;
END $$;
CREATE ROLE regress_adjsec_owner;
CREATE ROLE regress_adjsec_reader;
CREATE ROLE regress_adjsec_writer;
CREATE ROLE regress_adjsec_temp;
CREATE ROLE regress_adjsec_nobody;
CREATE ROLE regress_adjsec_other;
CREATE ROLE regress_adjsec_member IN ROLE regress_adjsec_owner;
DO $$
BEGIN
	EXECUTE format('REVOKE TEMP ON DATABASE %I FROM PUBLIC', current_database());
	EXECUTE format('GRANT TEMP ON DATABASE %I TO regress_adjsec_owner, regress_adjsec_reader, '
				   'regress_adjsec_writer, regress_adjsec_temp, regress_adjsec_other, '
				   'regress_adjsec_member', current_database());
END $$;
CREATE SCHEMA adjsec AUTHORIZATION regress_adjsec_owner;
GRANT USAGE ON SCHEMA adjsec TO regress_adjsec_reader, regress_adjsec_writer, regress_adjsec_other;
CREATE SCHEMA adjsec_shared;
GRANT USAGE, CREATE ON SCHEMA adjsec_shared TO regress_adjsec_writer, regress_adjsec_reader,
	regress_adjsec_other, regress_adjsec_owner;

-- Helpers, run by the superuser.  try(role, sql) runs sql as role in a
-- subtransaction that is always rolled back and says how it went: ok,
-- denied (42501), refused (any other clean error) or the internal error.
CREATE SCHEMA adjsec_util;
GRANT USAGE ON SCHEMA adjsec_util TO PUBLIC;
CREATE FUNCTION adjsec_util.outcome(st text, msg text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN st = 'AS000' THEN 'ok'
				WHEN st = '42501' THEN 'denied'
				WHEN st LIKE 'XX%' OR st LIKE '58%' THEN st || ' ' || msg
				ELSE 'refused' END
$$;
CREATE FUNCTION adjsec_util.try(r name, sql text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	BEGIN
		IF r IS NOT NULL THEN
			EXECUTE format('SET LOCAL ROLE %I', r);
		END IF;
		EXECUTE sql;
		RAISE SQLSTATE 'AS000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	END;
	RETURN adjsec_util.outcome(st, msg);
END $$;
-- the same, with the SQLSTATE of a refusal
CREATE FUNCTION adjsec_util.trys(r name, sql text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	BEGIN
		IF r IS NOT NULL THEN
			EXECUTE format('SET LOCAL ROLE %I', r);
		END IF;
		EXECUTE sql;
		RAISE SQLSTATE 'AS000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	END;
	RETURN CASE WHEN st = 'AS000' THEN 'ok' WHEN st LIKE 'XX%' THEN st || ' ' || msg ELSE st END;
END $$;
-- clean when it did what it may or failed cleanly: for attempts where
-- either is right
CREATE FUNCTION adjsec_util.clean(r name, sql text) RETURNS text
LANGUAGE sql AS $$
	SELECT CASE WHEN o IN ('ok', 'refused', 'denied') THEN 'clean' ELSE o END
	FROM adjsec_util.try(r, sql) o
$$;

-- The graph every role is pointed at, with an inverted index that projects
-- data and has degree counters.
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adjsec.g VALUES
	('USER#a', 'FOLLOWS#USER#b', '{"n": 1}'), ('USER#a', 'FOLLOWS#USER#c', '{"n": 2}'),
	('USER#b', 'FOLLOWS#USER#c', '{"n": 3}'), ('USER#c', 'FOLLOWS#USER#a', '{"n": 4}'),
	('USER#a', 'LIKES#ITEM#1', NULL), ('USER#b', 'LIKES#ITEM#1', NULL),
	('USER#b', 'LIKES#ITEM#2', NULL), ('ITEM#1', 'TAGGED#TAG#x', NULL),
	('ITEM#2', 'TAGGED#TAG#x', NULL);
SELECT create_inverted_index('adjsec.g', include => '{data}', counters => 2);
GRANT SELECT ON adjsec.g TO regress_adjsec_reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON adjsec.g TO regress_adjsec_writer;
RESET ROLE;
-- another owner's tables, in a schema where attackers may create tables
SET ROLE regress_adjsec_other;
CREATE TABLE adjsec_shared.victim (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adjsec_shared.victim VALUES ('USER#v', 'FOLLOWS#USER#w', '{"secret": 1}');
SELECT create_inverted_index('adjsec_shared.victim', include => '{data}');
CREATE TABLE adjsec_shared.victim_idx (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb,
									   PRIMARY KEY (sk, pk));
RESET ROLE;
-- the writer's own tables there
SET ROLE regress_adjsec_writer;
CREATE TABLE adjsec_shared.atk (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE adjsec_shared.atk_idx (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb,
									PRIMARY KEY (sk, pk));
CREATE VIEW adjsec_shared.atk_view AS SELECT sk, pk, data FROM adjsec_shared.atk;
CREATE MATERIALIZED VIEW adjsec_shared.atk_mv AS SELECT sk, pk, data FROM adjsec_shared.atk;
CREATE SEQUENCE adjsec_shared.atk_seq;
CREATE TYPE adjsec_shared.atk_type AS (sk adjkey, pk adjkey, data jsonb);
CREATE TABLE adjsec_shared.atk_parent (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb);
CREATE TABLE adjsec_shared.atk_child () INHERITS (adjsec_shared.atk_parent);
CREATE TABLE adjsec_shared.atk_part (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb)
	PARTITION BY HASH (sk);
CREATE TABLE adjsec_shared.atk_part_0 PARTITION OF adjsec_shared.atk_part
	FOR VALUES WITH (MODULUS 1, REMAINDER 0);
RESET ROLE;

--
-- What must not change: roles, memberships, the database's and schemas'
-- privileges, the owner, privileges and row security of every table that
-- exists now, every function's owner and privileges, the event triggers,
-- the extension and its registry rows.
--
CREATE TABLE adjsec_util.snap (phase text, kind text, key text, val text);
CREATE FUNCTION adjsec_util.take_snapshot(ph text) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO adjsec_util.snap
	SELECT ph, 'role', rolname,
		   format('super=%s inherit=%s createrole=%s createdb=%s login=%s repl=%s bypassrls=%s conn=%s until=%s config=%s',
				  rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin,
				  rolreplication, rolbypassrls, rolconnlimit, rolvaliduntil, rolconfig)
	FROM pg_catalog.pg_roles
	UNION ALL
	SELECT ph, 'member', format('%s in %s', member::regrole, roleid::regrole),
		   format('admin=%s by %s', admin_option, grantor::regrole)
	FROM pg_catalog.pg_auth_members
	UNION ALL
	SELECT ph, 'database', datname, format('owner=%s acl=%s', datdba::regrole, datacl)
	FROM pg_catalog.pg_database WHERE datname = current_database()
	UNION ALL
	SELECT ph, 'schema', nspname, format('owner=%s acl=%s', nspowner::regrole, nspacl)
	FROM pg_catalog.pg_namespace WHERE nspname !~ '^pg_(toast_)?temp_'
	UNION ALL
	SELECT ph, 'relation', format('%s.%s', n.nspname, c.relname),
		   format('kind=%s owner=%s acl=%s rls=%s force=%s', c.relkind, c.relowner::regrole,
				  c.relacl, c.relrowsecurity, c.relforcerowsecurity)
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname !~ '^pg_(toast|temp|toast_temp)'
	UNION ALL
	SELECT ph, 'function', p.oid::regprocedure::text,
		   format('owner=%s acl=%s secdef=%s config=%s', p.proowner::regrole, p.proacl,
				  p.prosecdef, p.proconfig)
	FROM pg_catalog.pg_proc p
	UNION ALL
	SELECT ph, 'event trigger', evtname,
		   format('%s %s owner=%s', evtevent, evtenabled, evtowner::regrole)
	FROM pg_catalog.pg_event_trigger
	UNION ALL
	SELECT ph, 'extension', extname, format('owner=%s schema=%s config=%s', extowner::regrole,
										   extnamespace::regnamespace, extconfig::regclass[])
	FROM pg_catalog.pg_extension
	UNION ALL
	SELECT ph, 'policy', format('%s on %s', polname, polrelid::regclass),
		   format('%s %s %s', polcmd, polpermissive, polroles::regrole[])
	FROM pg_catalog.pg_policy
	UNION ALL
	SELECT ph, 'default acl', format('%s %s', defaclrole::regrole, defaclnamespace),
		   defaclacl::text
	FROM pg_catalog.pg_default_acl
	UNION ALL
	SELECT ph, 'registry', indexrel::text,
		   format('of %s %s nkeys=%s counters=%s/%s key=%s mode=%s shards=%s',
				  baserel, columns, nkeys, counterrel, counter_shards, base_key, mode, write_shards)
	FROM adjlist_inverted_indexes
$$;
SELECT adjsec_util.take_snapshot('before');

--
-- 1. Every function of the extension, called by every role.  The list is
-- read from pg_depend, so a new function shows up here by itself; its
-- arguments come from the samples below (by parameter name and type, or
-- by type), and a function whose argument has no sample says so.  Only
-- the arguments without defaults are passed, plus the extra named
-- arguments of adjsec_util.extra_args.  The targets are adjsec.g and its
-- index adjsec.g_inverted.
--
CREATE TABLE adjsec_util.samples (argname text, argtype regtype, val text);
INSERT INTO adjsec_util.samples VALUES
	('tbl', 'regclass', '%BASE%'), ('index', 'regclass', '%INDEX%'),
	('sk', 'adjkey', '''FOLLOWS#USER#b'''), ('partition_key', 'adjkey', '''FOLLOWS#USER#b'''),
	('key', 'adjkey', '''FOLLOWS#USER#b'''), ('b', 'adjkey', '''USER#b'''),
	('to_node', 'adjkey', '''USER#b'''), ('pk', 'adjkey', '''USER#z'''),
	(NULL, 'adjkey', '''USER#a'''), (NULL, 'adjkey_prefix', '''USER#'''),
	('edge_prefix', 'text', '''FOLLOWS#'''), ('edge', 'text', '''FOLLOWS'''),
	('direction', 'text', '''out'''), ('format', 'text', '''dot'''),
	('target_prefix', 'text', ''''''), (NULL, 'text', '''USER#'''),
	('edge_prefixes', 'text[]', '''{FOLLOWS#,FOLLOWS#}'''),
	('directions', 'text[]', '''{out,out}'''),
	('parts', 'text[]', 'VARIADIC ARRAY[''USER'', ''a'']'),
	('depth', 'integer', '1'), ('max_depth', 'integer', '2'), ('shards', 'integer', '4'),
	(NULL, 'integer', '1'), (NULL, 'bigint', '10'), (NULL, 'boolean', 'false'),
	('edges', 'jsonb', '''[{"pk": "USER#z", "sk": "FOLLOWS#USER#a"}]'''),
	('keys', 'jsonb', '''[{"pk": "USER#a", "sk": "FOLLOWS#USER#b"}]'''),
	('items', 'text', '''{"Item": {"pk": {"S": "USER#z"}, "sk": {"S": "FOLLOWS#USER#a"}}}'''),
	('col', 'name', 'NULL'),
	(NULL, 'jsonb', '''{}'''), (NULL, 'bytea', '''\x55534552'''),
	('weight', 'text', '''n'''), (NULL, 'double precision', '10'),
	(NULL, 'cstring', '''USER#a''::cstring');
CREATE TABLE adjsec_util.extra_args (fn name, extra text);
INSERT INTO adjsec_util.extra_args VALUES
	('create_inverted_index', 'index_name => ''g_second'''),
	('shortest_path_weighted', 'weight => ''n'''),
	('reverse_neighbors', 'edge_filter => ''{"n": 3}'''),
	('traverse', 'edge_filter => ''{}''');

-- the statement that calls function f, or why there is none
CREATE FUNCTION adjsec_util.call_sql(f regprocedure) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	p pg_proc;
	args text[] := '{}';
	v text;
	nreq int;
	call text;
BEGIN
	SELECT * INTO p FROM pg_proc WHERE oid = f;
	nreq := p.pronargs - p.pronargdefaults;
	FOR i IN 0 .. nreq - 1 LOOP
		IF p.proargtypes[i] IN ('internal'::regtype, 'trigger'::regtype, 'event_trigger'::regtype) THEN
			RETURN 'not callable from SQL: takes ' || format_type(p.proargtypes[i], NULL);
		END IF;
		SELECT s.val INTO v FROM adjsec_util.samples s
		WHERE s.argtype = p.proargtypes[i]
		  AND (s.argname = p.proargnames[i + 1] OR s.argname IS NULL)
		ORDER BY s.argname IS NULL LIMIT 1;
		IF v IS NULL THEN
			RETURN format('no sample for argument %s %s', p.proargnames[i + 1],
						  format_type(p.proargtypes[i], NULL));
		END IF;
		args := args || replace(replace(v,
			'%BASE%', format('%s::oid::regclass', 'adjsec.g'::regclass::oid)),
			'%INDEX%', format('%s::oid::regclass', 'adjsec.g_inverted'::regclass::oid));
	END LOOP;
	args := args || ARRAY(SELECT e.extra FROM adjsec_util.extra_args e WHERE e.fn = p.proname);
	call := format('%s(%s)', f::oid::regproc, array_to_string(args, ', '));
	IF p.prokind = 'p' THEN
		RETURN 'CALL ' || call;
	ELSIF p.prokind = 'a' THEN
		RETURN format('SELECT %s(x) FROM (VALUES (%s)) v(x)', p.proname, args[1]);
	ELSIF p.prorettype = 'record'::regtype AND p.proallargtypes IS NULL THEN
		-- SETOF record: the columns of the sample index table
		RETURN format('SELECT count(*) FROM %s AS t(%s)', call,
					  (SELECT string_agg(format('%I %s', attname, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum)
					   FROM pg_attribute WHERE attrelid = 'adjsec.g_inverted'::regclass
					   AND attnum > 0 AND NOT attisdropped));
	ELSIF p.proretset THEN
		RETURN format('SELECT count(*) FROM %s', call);
	END IF;
	RETURN 'SELECT ' || call;
END $$;

CREATE VIEW adjsec_util.extension_functions AS
SELECT p.oid::regprocedure AS f
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'adjlist';

SELECT f AS function,
	   CASE WHEN s ~ '^(SELECT|CALL) ' THEN adjsec_util.try('regress_adjsec_owner', s) ELSE s END AS owner,
	   CASE WHEN s ~ '^(SELECT|CALL) ' THEN adjsec_util.try('regress_adjsec_reader', s) END AS reader,
	   CASE WHEN s ~ '^(SELECT|CALL) ' THEN adjsec_util.try('regress_adjsec_writer', s) END AS writer,
	   CASE WHEN s ~ '^(SELECT|CALL) ' THEN adjsec_util.try('regress_adjsec_temp', s) END AS temp,
	   CASE WHEN s ~ '^(SELECT|CALL) ' THEN adjsec_util.try('regress_adjsec_nobody', s) END AS nobody
FROM (SELECT f, adjsec_util.call_sql(f) AS s FROM adjsec_util.extension_functions) c
ORDER BY f::text COLLATE "C";

--
-- 2. Registering, altering and dropping indexes, and the registry, by
-- every role.  Each statement runs in a subtransaction that is rolled back.
--
CREATE TABLE adjsec_util.attempts (n serial, what text, sql text);
INSERT INTO adjsec_util.attempts (what, sql) VALUES
	-- existing => true pointing at what must not become an index table
	('existing: another role''s table',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'victim_idx')$$),
	('existing: another role''s registered index',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'victim_inverted')$$),
	('existing: another role''s base table',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'victim')$$),
	('existing: a view',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_view')$$),
	('existing: a materialized view',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_mv')$$),
	('existing: a sequence',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_seq')$$),
	('existing: a composite type',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_type')$$),
	('existing: a btree index',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_idx_pkey')$$),
	('existing: the base table itself',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk')$$),
	('existing: an inheritance parent',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_parent')$$),
	('existing: an inheritance child',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_child')$$),
	('existing: a partition',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_part_0')$$),
	('existing: a catalog by name',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'pg_authid')$$),
	('existing: the writer''s own index table',
	 $$SELECT create_inverted_index('adjsec_shared.atk', existing => true, index_name => 'atk_idx')$$),
	('existing: a table already registered',
	 $$SELECT create_inverted_index('adjsec.g', existing => true, index_name => 'g_inverted')$$),
	('existing: a counter table',
	 $$SELECT create_inverted_index('adjsec.g', existing => true, index_name => 'g_inverted_degree')$$),
	('existing: a temporary table',
	 $$CREATE TEMP TABLE tb (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	   CREATE TEMP TABLE tb_idx (sk adjkey NOT NULL, pk adjkey NOT NULL, PRIMARY KEY (sk, pk));
	   SELECT create_inverted_index('pg_temp.tb', existing => true, index_name => 'tb_idx')$$),
	-- bases that cannot be
	('base: pg_authid', $$SELECT create_inverted_index('pg_authid')$$),
	('base: pg_auth_members', $$SELECT create_inverted_index('pg_auth_members')$$),
	('base: the registry', $$SELECT create_inverted_index('adjlist_inverted_indexes')$$),
	('base: a view', $$SELECT create_inverted_index('adjsec_shared.atk_view')$$),
	('base: a temporary table',
	 $$CREATE TEMP TABLE tb (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
	   SELECT create_inverted_index('pg_temp.tb')$$),
	('base: another role''s table', $$SELECT create_inverted_index('adjsec_shared.victim', index_name => 'mine')$$),
	('base: the owner''s table', $$SELECT create_inverted_index('adjsec.g', index_name => 'g_second')$$),
	('base: the owner''s table, api mode', $$SELECT create_inverted_index('adjsec.g', index_name => 'g_api', mode => 'api')$$),
	('base: an index table', $$SELECT create_inverted_index('adjsec.g_inverted', index_name => 'g_inv_inv')$$),
	-- dropping
	('drop_inverted_index: another role''s', $$SELECT drop_inverted_index('adjsec_shared.victim_inverted')$$),
	('drop_inverted_index: the owner''s', $$SELECT drop_inverted_index('adjsec.g_inverted')$$),
	('drop_inverted_index: a base table', $$SELECT drop_inverted_index('adjsec.g')$$),
	('drop_inverted_index: a catalog', $$SELECT drop_inverted_index('pg_authid')$$),
	('drop_inverted_index: a temporary table of that name',
	 $$CREATE TEMP TABLE g_inverted (sk adjkey, pk adjkey); SELECT drop_inverted_index('pg_temp.g_inverted')$$),
	-- the registry
	('registry: SELECT', $$SELECT count(*) FROM adjlist_inverted_indexes$$),
	('registry: INSERT', $$INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
						   VALUES ('pg_authid', 'adjsec_shared.atk', '{sk,pk}', 2, '{pk,sk}')$$),
	('registry: UPDATE', $$UPDATE adjlist_inverted_indexes SET mode = 'api'$$),
	('registry: DELETE', $$DELETE FROM adjlist_inverted_indexes$$),
	('registry: TRUNCATE', $$TRUNCATE adjlist_inverted_indexes$$),
	('registry: SELECT FOR UPDATE', $$SELECT 1 FROM adjlist_inverted_indexes FOR UPDATE$$),
	('registry: LOCK ACCESS EXCLUSIVE', $$LOCK adjlist_inverted_indexes IN ACCESS EXCLUSIVE MODE$$),
	('registry: ALTER TABLE', $$ALTER TABLE adjlist_inverted_indexes DISABLE ROW LEVEL SECURITY$$),
	('registry: CREATE POLICY', $$CREATE POLICY p ON adjlist_inverted_indexes USING (true)$$),
	('registry: CREATE TRIGGER', $$CREATE TRIGGER t BEFORE INSERT ON adjlist_inverted_indexes
								   FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()$$),
	('registry: CREATE RULE', $$CREATE RULE r AS ON INSERT TO adjlist_inverted_indexes DO INSTEAD NOTHING$$),
	('registry: CREATE INDEX', $$CREATE INDEX ON adjlist_inverted_indexes (mode)$$),
	('registry: DROP TABLE', $$DROP TABLE adjlist_inverted_indexes$$),
	('registry: COPY FROM', $$COPY adjlist_inverted_indexes FROM '/dev/null'$$),
	-- the extension and its event triggers
	('ALTER EVENT TRIGGER adjlist_ddl_end DISABLE', $$ALTER EVENT TRIGGER adjlist_ddl_end DISABLE$$),
	('DROP EVENT TRIGGER adjlist_sql_drop', $$DROP EVENT TRIGGER adjlist_sql_drop$$),
	('CREATE EVENT TRIGGER with adjlist_on_ddl_end', $$CREATE EVENT TRIGGER x ON sql_drop EXECUTE FUNCTION adjlist_on_ddl_end()$$),
	('ALTER EXTENSION adjlist DROP TABLE registry', $$ALTER EXTENSION adjlist DROP TABLE adjlist_inverted_indexes$$),
	('DROP EXTENSION adjlist', $$DROP EXTENSION adjlist CASCADE$$),
	('CREATE OR REPLACE FUNCTION neighbors', $$CREATE OR REPLACE FUNCTION neighbors(regclass, adjkey, text) RETURNS int LANGUAGE sql AS 'SELECT 1'$$),
	('SET session_replication_role = replica', $$SET LOCAL session_replication_role = replica$$),
	-- the owner's tables
	('SELECT index table', $$SELECT count(*) FROM adjsec.g_inverted$$),
	('INSERT index table', $$INSERT INTO adjsec.g_inverted VALUES ('FOLLOWS#USER#x', 'USER#forged')$$),
	('TRUNCATE index table', $$TRUNCATE adjsec.g_inverted$$),
	('INSERT counter table', $$INSERT INTO adjsec.g_inverted_degree VALUES ('USER#x', 'FOLLOWS', 'i', 100)$$),
	('TRUNCATE base table', $$TRUNCATE adjsec.g$$),
	('DROP TABLE index table', $$DROP TABLE adjsec.g_inverted$$),
	('DROP TABLE counter table', $$DROP TABLE adjsec.g_inverted_degree$$),
	('DROP TABLE base table', $$DROP TABLE adjsec.g$$),
	('ALTER base ADD COLUMN', $$ALTER TABLE adjsec.g ADD COLUMN extra int$$),
	('ALTER base DROP COLUMN data (projected)', $$ALTER TABLE adjsec.g DROP COLUMN data$$),
	('ALTER base RENAME COLUMN sk', $$ALTER TABLE adjsec.g RENAME COLUMN sk TO sk2$$),
	('ALTER base ALTER COLUMN data TYPE', $$ALTER TABLE adjsec.g ALTER COLUMN data TYPE text$$),
	('ALTER base OWNER TO writer', $$ALTER TABLE adjsec.g OWNER TO regress_adjsec_writer$$),
	('ALTER base DISABLE TRIGGER USER', $$ALTER TABLE adjsec.g DISABLE TRIGGER USER$$),
	('ALTER index ADD COLUMN', $$ALTER TABLE adjsec.g_inverted ADD COLUMN extra int$$),
	('ALTER index DROP COLUMN data', $$ALTER TABLE adjsec.g_inverted DROP COLUMN data$$),
	('ALTER index RENAME COLUMN pk', $$ALTER TABLE adjsec.g_inverted RENAME COLUMN pk TO pk2$$),
	('ALTER index ALTER COLUMN pk TYPE', $$ALTER TABLE adjsec.g_inverted ALTER COLUMN pk TYPE text$$),
	('ALTER index OWNER TO writer', $$ALTER TABLE adjsec.g_inverted OWNER TO regress_adjsec_writer$$),
	('ALTER index OWNER TO member', $$ALTER TABLE adjsec.g_inverted OWNER TO regress_adjsec_member$$),
	('ALTER counters ALTER COLUMN n TYPE', $$ALTER TABLE adjsec.g_inverted_degree ALTER COLUMN n TYPE integer$$),
	('ALTER counters DROP COLUMN direction', $$ALTER TABLE adjsec.g_inverted_degree DROP COLUMN direction$$),
	('ALTER counters RENAME COLUMN node', $$ALTER TABLE adjsec.g_inverted_degree RENAME COLUMN node TO n0$$),
	('ALTER counters OWNER TO member', $$ALTER TABLE adjsec.g_inverted_degree OWNER TO regress_adjsec_member$$),
	('CREATE TABLE INHERITS base', $$CREATE TABLE adjsec.g_child () INHERITS (adjsec.g)$$),
	('CREATE TABLE INHERITS index table', $$CREATE TABLE adjsec.g_child () INHERITS (adjsec.g_inverted)$$),
	('ALTER TABLE INHERIT base', $$CREATE TABLE adjsec.g_child (pk adjkey, sk adjkey, data jsonb);
								   ALTER TABLE adjsec.g_child INHERIT adjsec.g$$),
	('CREATE TRIGGER on base with adjlist_sync_trigger',
	 $$CREATE TRIGGER t AFTER TRUNCATE ON adjsec.g EXECUTE FUNCTION adjlist_sync_trigger()$$),
	('DROP OWNED BY owner', $$DROP OWNED BY regress_adjsec_owner$$),
	('REASSIGN OWNED BY owner TO writer', $$REASSIGN OWNED BY regress_adjsec_owner TO regress_adjsec_writer$$),
	('REASSIGN OWNED BY other TO owner', $$REASSIGN OWNED BY regress_adjsec_other TO regress_adjsec_owner$$);

SELECT what,
	   adjsec_util.try('regress_adjsec_owner', sql) AS owner,
	   adjsec_util.try('regress_adjsec_reader', sql) AS reader,
	   adjsec_util.try('regress_adjsec_writer', sql) AS writer,
	   adjsec_util.try('regress_adjsec_temp', sql) AS temp,
	   adjsec_util.try('regress_adjsec_nobody', sql) AS nobody
FROM adjsec_util.attempts ORDER BY n;

--
-- 3. DDL that a role is allowed to do is never blocked, and what follows
-- from it is right; DDL that breaks an index is refused.  Each case runs
-- in a transaction that is rolled back.
--
CREATE FUNCTION adjsec_util.state(base text) RETURNS TABLE (rel text, owner text, registered text)
LANGUAGE sql AS $$
	SELECT c.relname::text, c.relowner::regrole::text,
		   (SELECT string_agg(CASE WHEN r.indexrel = c.oid THEN 'index of ' || r.baserel::text
								   ELSE 'counters of ' || r.indexrel::text END, ', ')
			FROM adjlist_inverted_indexes r WHERE r.indexrel = c.oid OR r.counterrel = c.oid)
	FROM pg_class c
	WHERE c.relnamespace = 'adjsec'::regnamespace AND c.relkind IN ('r', 'p')
	  AND c.relname::text LIKE base || '%'
	ORDER BY 1
$$;
-- dropping the counter table leaves the index without counters
BEGIN;
SET ROLE regress_adjsec_owner;
DROP TABLE adjsec.g_inverted_degree;
SET ROLE regress_adjsec_writer;
INSERT INTO adjsec.g VALUES ('USER#w', 'FOLLOWS#USER#a', NULL);
RESET ROLE;
SELECT * FROM adjsec_util.state('g');
SELECT count(*) AS drift FROM verify_inverted_index('adjsec.g_inverted');
ROLLBACK;
-- dropping the index table unregisters it; writes go on
BEGIN;
SET ROLE regress_adjsec_owner;
DROP TABLE adjsec.g_inverted;
SET ROLE regress_adjsec_writer;
INSERT INTO adjsec.g VALUES ('USER#w', 'FOLLOWS#USER#a', NULL);
RESET ROLE;
SELECT * FROM adjsec_util.state('g');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'adjsec.g'::regclass;
ROLLBACK;
-- dropping the base table drops its index and counter tables
BEGIN;
SET ROLE regress_adjsec_owner;
DROP TABLE adjsec.g;
RESET ROLE;
SELECT * FROM adjsec_util.state('g');
SELECT count(*) AS registered FROM adjlist_inverted_indexes WHERE indexrel::text LIKE 'adjsec.g%';
ROLLBACK;
-- DROP OWNED BY the owner, as the owner and as the superuser
BEGIN;
SET ROLE regress_adjsec_owner;
DROP OWNED BY regress_adjsec_owner;
RESET ROLE;
SELECT count(*) AS registered FROM adjlist_inverted_indexes WHERE indexrel::text LIKE 'adjsec.%';
ROLLBACK;
BEGIN;
DROP OWNED BY regress_adjsec_owner, regress_adjsec_other;
SELECT count(*) AS registered FROM adjlist_inverted_indexes WHERE indexrel::text LIKE 'adjsec%';
ROLLBACK;
-- REASSIGN OWNED moves base, index and counter tables together; writes and
-- reads go on
BEGIN;
REASSIGN OWNED BY regress_adjsec_owner TO regress_adjsec_other;
SELECT * FROM adjsec_util.state('g');
SET ROLE regress_adjsec_writer;
INSERT INTO adjsec.g VALUES ('USER#w', 'FOLLOWS#USER#a', NULL);
SELECT neighbor FROM reverse_neighbors('adjsec.g', 'USER#a', 'FOLLOWS#');
RESET ROLE;
SELECT count(*) AS drift FROM verify_inverted_index('adjsec.g_inverted');
ROLLBACK;
-- ALTER TABLE base OWNER TO r moves the index and counter tables too: by
-- the superuser, and by a member of the owner giving the table to itself
BEGIN;
ALTER TABLE adjsec.g OWNER TO regress_adjsec_other;
SELECT * FROM adjsec_util.state('g');
SET ROLE regress_adjsec_writer;
INSERT INTO adjsec.g VALUES ('USER#w', 'FOLLOWS#USER#a', NULL);
RESET ROLE;
SELECT count(*) AS drift FROM verify_inverted_index('adjsec.g_inverted');
ROLLBACK;
BEGIN;
SET ROLE regress_adjsec_member;
ALTER TABLE adjsec.g OWNER TO regress_adjsec_member;
RESET ROLE;
SELECT * FROM adjsec_util.state('g');
ROLLBACK;
-- the same without counters
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.h (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('adjsec.h', partitions => 2);
RESET ROLE;
BEGIN;
ALTER TABLE adjsec.h OWNER TO regress_adjsec_other;
SELECT * FROM adjsec_util.state('h');
INSERT INTO adjsec.h VALUES ('USER#w', 'FOLLOWS#USER#a');
SELECT count(*) AS drift FROM verify_inverted_index('adjsec.h_inverted');
ROLLBACK;
-- giving the index or counter table (or an index partition) another owner
-- is refused, also to the superuser
SELECT adjsec_util.trys(NULL, 'ALTER TABLE adjsec.g_inverted OWNER TO regress_adjsec_other') AS index_table,
	   adjsec_util.trys(NULL, 'ALTER TABLE adjsec.g_inverted_degree OWNER TO regress_adjsec_other') AS counter_table,
	   adjsec_util.trys(NULL, 'ALTER TABLE adjsec.h_inverted_0 OWNER TO regress_adjsec_other') AS index_partition;

-- a partitioned base table: partitions follow, DETACH ... CONCURRENTLY is
-- refused, an indexed table cannot become anybody's partition or parent
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.p (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE adjsec.p_0 PARTITION OF adjsec.p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE adjsec.p_1 PARTITION OF adjsec.p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO adjsec.p VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#b', 'FOLLOWS#USER#a', NULL);
SELECT create_inverted_index('adjsec.p');
ALTER TABLE adjsec.p DETACH PARTITION adjsec.p_1 CONCURRENTLY;
CREATE TABLE adjsec.q (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
SELECT adjsec_util.trys(NULL, 'ALTER TABLE adjsec.q ATTACH PARTITION adjsec.g FOR VALUES WITH (MODULUS 1, REMAINDER 0)') AS attach_base,
	   adjsec_util.trys(NULL, 'ALTER TABLE adjsec.q ATTACH PARTITION adjsec.g_inverted FOR VALUES WITH (MODULUS 1, REMAINDER 0)') AS attach_index,
	   adjsec_util.trys(NULL, 'CREATE TABLE adjsec.p_child () INHERITS (adjsec.p_0)') AS inherit_partition,
	   adjsec_util.trys(NULL, 'SELECT create_inverted_index(''adjsec.p_0'')') AS index_a_partition;
BEGIN;
ALTER TABLE adjsec.p DETACH PARTITION adjsec.p_1;
SELECT count(*) AS drift FROM verify_inverted_index('adjsec.p_inverted');
SELECT count(*) AS p_1_triggers FROM pg_trigger WHERE tgrelid = 'adjsec.p_1'::regclass;
ROLLBACK;
RESET ROLE;

-- PostgreSQL 15 can still turn an empty table without indexes into a view
-- (CREATE RULE "_RETURN"), keeping its OID: a registered index table that
-- became a view is found out at use, and DROP VIEW unregisters it
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.vb (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
CREATE TABLE adjsec.vb_idx (sk adjkey NOT NULL, pk adjkey NOT NULL);
SELECT create_inverted_index('adjsec.vb', existing => true, index_name => 'vb_idx');
-- (the owner may not drop the guard of its own index table: a superuser
-- does, with adjlist's event triggers off)
RESET ROLE;
BEGIN;
ALTER EVENT TRIGGER adjlist_ddl_start DISABLE;
DO $$
DECLARE
	t name;
BEGIN
	FOR t IN SELECT tgname FROM pg_trigger WHERE tgrelid = 'adjsec.vb_idx'::regclass LOOP
		EXECUTE format('DROP TRIGGER %I ON adjsec.vb_idx', t);
	END LOOP;
END $$;
ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;
COMMIT;
SET ROLE regress_adjsec_owner;
VACUUM adjsec.vb_idx;	-- which clears relhastriggers
CREATE RULE "_RETURN" AS ON SELECT TO adjsec.vb_idx
	DO INSTEAD SELECT 'FOLLOWS#USER#b'::adjkey AS sk, 'USER#forged'::adjkey AS pk;
INSERT INTO adjsec.vb VALUES ('USER#a', 'FOLLOWS#USER#b');
SELECT * FROM reverse_neighbors('adjsec.vb', 'USER#b', 'FOLLOWS#');
DROP VIEW adjsec.vb_idx;
SELECT count(*) AS registered FROM adjlist_inverted_indexes WHERE baserel = 'adjsec.vb'::regclass;
INSERT INTO adjsec.vb VALUES ('USER#c', 'FOLLOWS#USER#b');
DROP TABLE adjsec.vb;
RESET ROLE;

--
-- 4. Row-level security with extra primary-key columns.  A restricted role
-- (and the owner under FORCE ROW LEVEL SECURITY) must get from every graph
-- function, in every direction, exactly what plain SQL over the rows it
-- may SELECT gives: nothing hidden returned, counted or walked through,
-- also through the inverted index, which is read as its owner.
-- Table e is plain; table ep is hash-partitioned with a write-sharded
-- index.  Rows are hidden from the reader by v (v = 1) and by pk
-- (USER#e, and rows whose data says hide), from the owner by v (v = 3).
--
CREATE SCHEMA adjsec_rls AUTHORIZATION regress_adjsec_owner;
GRANT USAGE ON SCHEMA adjsec_rls TO regress_adjsec_reader;
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec_rls.e (pk adjkey, sk adjkey, v int, data jsonb, PRIMARY KEY (pk, sk, v));
INSERT INTO adjsec_rls.e
SELECT 'USER#' || a, 'FOLLOWS#USER#' || b, v,
	   jsonb_build_object('v', v, 'hide', CASE WHEN (ascii(a) + ascii(b) + v) % 7 = 0 THEN 'yes' END)
FROM unnest('{a,b,c,d,e,f}'::text[]) a, unnest('{a,b,c,d,e,f}'::text[]) b, generate_series(1, 3) v
WHERE a <> b AND (ascii(a) * 3 + ascii(b) * 5 + v * 7) % 4 < 2;
INSERT INTO adjsec_rls.e
SELECT 'USER#' || a, 'LIKES#ITEM#' || i, v, NULL
FROM unnest('{a,b,c,d,e,f}'::text[]) a, generate_series(1, 4) i, generate_series(1, 3) v
WHERE (ascii(a) + i * 3 + v) % 3 = 0;
INSERT INTO adjsec_rls.e
SELECT 'ITEM#' || i, 'TAGGED#TAG#' || t, v, NULL
FROM generate_series(1, 4) i, unnest('{x,y,z}'::text[]) t, generate_series(1, 3) v
WHERE (i + ascii(t) + v) % 2 = 0;
SELECT create_inverted_index('adjsec_rls.e', include => '{data}');
CREATE TABLE adjsec_rls.ep (pk adjkey, sk adjkey, v int, data jsonb, PRIMARY KEY (pk, sk, v))
	PARTITION BY HASH (pk);
CREATE TABLE adjsec_rls.ep_0 PARTITION OF adjsec_rls.ep FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE adjsec_rls.ep_1 PARTITION OF adjsec_rls.ep FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO adjsec_rls.ep SELECT * FROM adjsec_rls.e;
SELECT create_inverted_index('adjsec_rls.ep', include => '{data}', write_shards => 3);
SELECT count(*) AS rows, count(DISTINCT (pk, sk)) AS distinct_keys FROM adjsec_rls.e;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['adjsec_rls.e', 'adjsec_rls.ep'] LOOP
		EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
		EXECUTE format('CREATE POLICY by_v ON %s FOR SELECT TO regress_adjsec_reader USING (v <> 1)', t);
		EXECUTE format('CREATE POLICY by_pk ON %s AS RESTRICTIVE FOR SELECT TO regress_adjsec_reader '
					   'USING (pk <> ''USER#e'' AND (data ->> ''hide'') IS DISTINCT FROM ''yes'')', t);
		EXECUTE format('CREATE POLICY owner_v ON %s FOR ALL TO regress_adjsec_owner '
					   'USING (v <> 3) WITH CHECK (true)', t);
		EXECUTE format('GRANT SELECT ON %s TO regress_adjsec_reader', t);
	END LOOP;
END $$;
RESET ROLE;

-- The oracle, in plain SQL, run as the role being checked.  nbrs() is the
-- multiset of neighbors of u along edges of prefix p (one per row).
CREATE FUNCTION adjsec_util.nbrs(t regclass, u text, p text, dir text) RETURNS SETOF text
LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF dir IN ('out', 'both') THEN
		RETURN QUERY EXECUTE format('SELECT substr(sk::text, length($2) + 1) FROM %s '
									'WHERE pk::text = $1 AND left(sk::text, length($2)) = $2 '
									'AND length(sk::text) > length($2)', t) USING u, p;
	END IF;
	IF dir IN ('in', 'both') THEN
		RETURN QUERY EXECUTE format('SELECT pk::text FROM %s WHERE sk::text = $2 || $1', t) USING u, p;
	END IF;
END $$;
-- breadth-first depths from s (s itself excluded)
CREATE FUNCTION adjsec_util.bfs(t regclass, s text, p text, maxd int, dir text)
RETURNS TABLE (node text, depth int)
LANGUAGE sql STABLE AS $$
	WITH RECURSIVE r(node, depth) AS (
		SELECT s, 0
		UNION
		SELECT n, r.depth + 1 FROM r, adjsec_util.nbrs(t, r.node, p, dir) n WHERE r.depth < maxd)
	SELECT node, min(depth)::int FROM r WHERE node <> s GROUP BY node
$$;
-- ranked walks: the number of walks along the hops that reach each node
CREATE FUNCTION adjsec_util.walks(t regclass, s text, ps text[], dirs text[], excl boolean, lim int)
RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
	lvl jsonb := jsonb_build_object(s, 1);
	first_hop text[];
	nxt jsonb;
	result text;
BEGIN
	FOR h IN 1 .. cardinality(ps) LOOP
		SELECT coalesce(jsonb_object_agg(n, w), '{}') INTO nxt
		FROM (SELECT n, sum(e.value::bigint) AS w
			  FROM jsonb_each_text(lvl) e, adjsec_util.nbrs(t, e.key, ps[h], dirs[h]) n
			  GROUP BY n) x;
		IF h = 1 THEN
			first_hop := ARRAY(SELECT jsonb_object_keys(nxt));
		END IF;
		lvl := nxt;
	END LOOP;
	SELECT string_agg(key || ':' || value, ' ' ORDER BY value::bigint DESC, key COLLATE "C") INTO result
	FROM (SELECT key, value FROM jsonb_each_text(lvl)
		  WHERE key <> s AND NOT (excl AND key = ANY (first_hop))
		  ORDER BY value::bigint DESC, key COLLATE "C" LIMIT lim) x;
	RETURN result;
END $$;
-- a path is a shortest one: the right ends, the right length, real edges
CREATE FUNCTION adjsec_util.path_ok(t regclass, path adjkey[], a text, b text, p text, maxd int, dir text)
RETURNS boolean
LANGUAGE sql STABLE AS $$
	SELECT CASE
		WHEN path IS NULL THEN NOT EXISTS (SELECT FROM adjsec_util.bfs(t, a, p, maxd, dir) WHERE node = b)
		ELSE path[1]::text = a AND path[cardinality(path)]::text = b
			 AND cardinality(path) - 1 = (SELECT depth FROM adjsec_util.bfs(t, a, p, maxd, dir) WHERE node = b)
			 AND (SELECT bool_and(path[i + 1]::text IN (SELECT adjsec_util.nbrs(t, path[i]::text, p, dir)))
				  FROM generate_series(1, cardinality(path) - 1) i)
	END
$$;

-- Every graph function against its oracle, as the current role: one row
-- per function with the number of calls compared and the first difference.
CREATE FUNCTION adjsec_util.rls_report(t regclass)
RETURNS TABLE (fn text, calls bigint, differ bigint, first_difference text)
LANGUAGE plpgsql AS $$
DECLARE
	checks text[][] := ARRAY[
	-- fn, the cases (u, w, p, dir), got, want
	['neighbors', 'users_items × prefixes',
	 $q$(SELECT string_agg(concat_ws('|', neighbor, pk, sk, data), ' ' ORDER BY concat_ws('|', neighbor, pk, sk, data) COLLATE "C")
		 FROM neighbors(%2$s, u::adjkey, p))$q$,
	 $q$(SELECT string_agg(concat_ws('|', substr(sk::text, length(p) + 1), pk, sk, data), ' '
						   ORDER BY concat_ws('|', substr(sk::text, length(p) + 1), pk, sk, data) COLLATE "C")
		 FROM %1$s WHERE pk::text = u AND left(sk::text, length(p)) = p AND length(sk::text) > length(p))$q$],
	['reverse_neighbors', 'users_items × prefixes',
	 $q$(SELECT string_agg(concat_ws('|', neighbor, pk, sk, data), ' ' ORDER BY concat_ws('|', neighbor, pk, sk, data) COLLATE "C")
		 FROM reverse_neighbors(%2$s, u::adjkey, p))$q$,
	 $q$(SELECT string_agg(concat_ws('|', pk, pk, sk, data), ' ' ORDER BY concat_ws('|', pk, pk, sk, data) COLLATE "C")
		 FROM %1$s WHERE sk::text = p || u)$q$],
	['reverse_neighbors lim 1 backward', 'users_items × prefixes',
	 $q$(SELECT string_agg(neighbor::text, ' ') FROM reverse_neighbors(%2$s, u::adjkey, p, lim => 1, backward => true))$q$,
	 $q$(SELECT max(pk::text COLLATE "C") FROM %1$s WHERE sk::text = p || u)$q$],
	['degree out', 'users_items × prefixes',
	 $q$degree(%2$s, u::adjkey, p, 'out')$q$,
	 $q$(SELECT count(*) FROM adjsec_util.nbrs(%2$s, u, p, 'out'))$q$],
	['degree in', 'users_items × prefixes',
	 $q$degree(%2$s, u::adjkey, p, 'in')$q$,
	 $q$(SELECT count(*) FROM adjsec_util.nbrs(%2$s, u, p, 'in'))$q$],
	['has_edge', 'user pairs',
	 $q$has_edge(%2$s, u::adjkey, w::adjkey, p)$q$,
	 $q$(w IN (SELECT adjsec_util.nbrs(%2$s, u, p, 'out')))$q$],
	['traverse', 'users × directions',
	 $q$(SELECT string_agg(node || ':' || depth, ' ' ORDER BY node) FROM traverse(%2$s, u::adjkey, p, 3, dir))$q$,
	 $q$(SELECT string_agg(node || ':' || depth, ' ' ORDER BY node::adjkey) FROM adjsec_util.bfs(%2$s, u, p, 3, dir))$q$],
	['reachable_count', 'users × directions',
	 $q$reachable_count(%2$s, u::adjkey, p, 3, dir)$q$,
	 $q$(SELECT count(*) FROM adjsec_util.bfs(%2$s, u, p, 3, dir))$q$],
	['shortest_path', 'user pairs × directions',
	 $q$adjsec_util.path_ok(%2$s, shortest_path(%2$s, u::adjkey, w::adjkey, p, 4, dir), u, w, p, 4, dir)$q$,
	 $q$true$q$],
	['common_neighbors', 'user pairs × directions',
	 $q$(SELECT string_agg(c::text, ' ' ORDER BY c) FROM common_neighbors(%2$s, u::adjkey, w::adjkey, p, dir) c)$q$,
	 $q$(SELECT string_agg(n, ' ' ORDER BY n::adjkey) FROM (SELECT adjsec_util.nbrs(%2$s, u, p, dir)
		 INTERSECT SELECT adjsec_util.nbrs(%2$s, w, p, dir)) x(n))$q$],
	['walk_ranked', 'users × directions',
	 $q$(SELECT string_agg(node || ':' || score, ' ') FROM walk_ranked(%2$s, u::adjkey, ARRAY[p, p], ARRAY[dir, 'in'], true))$q$,
	 $q$adjsec_util.walks(%2$s, u, ARRAY[p, p], ARRAY[dir, 'in'], true, NULL)$q$],
	['walk_ranked 3 hops', 'users × directions',
	 $q$(SELECT string_agg(node || ':' || score, ' ') FROM walk_ranked(%2$s, u::adjkey, ARRAY[p, p, p], ARRAY['out', dir, 'out'], false))$q$,
	 $q$adjsec_util.walks(%2$s, u, ARRAY[p, p, p], ARRAY['out', dir, 'out'], false, NULL)$q$],
	['people_you_may_know', 'users',
	 $q$(SELECT string_agg(node || ':' || score, ' ') FROM people_you_may_know(%2$s, u::adjkey, p))$q$,
	 $q$adjsec_util.walks(%2$s, u, ARRAY[p, p], ARRAY['out', 'out'], true, 10)$q$],
	['also_liked', 'users',
	 $q$(SELECT string_agg(node || ':' || score, ' ') FROM also_liked(%2$s, u::adjkey))$q$,
	 $q$adjsec_util.walks(%2$s, u, '{LIKES#,LIKES#,LIKES#}', '{out,in,out}', true, 10)$q$],
	['related_items', 'items',
	 $q$(SELECT string_agg(node || ':' || score, ' ') FROM related_items(%2$s, u::adjkey))$q$,
	 $q$adjsec_util.walks(%2$s, u, '{TAGGED#,TAGGED#}', '{out,in}', false, 10)$q$],
	['query', 'users_items',
	 $q$(SELECT string_agg(concat_ws('|', partition_key, sort_key, key, item), ' ' ORDER BY sort_key, key::text) FROM query(%2$s, u::adjkey))$q$,
	 $q$(SELECT string_agg(concat_ws('|', pk, sk, jsonb_build_object('pk', pk, 'sk', sk, 'v', v), to_jsonb(x)), ' '
						   ORDER BY sk, jsonb_build_object('pk', pk, 'sk', sk, 'v', v)::text)
		 FROM %1$s x WHERE pk::text = u)$q$],
	['query_count begins_with', 'users_items × prefixes',
	 $q$query_count(%2$s, u::adjkey, 'begins_with', p)$q$,
	 $q$(SELECT count(*) FROM %1$s WHERE pk::text = u AND left(sk::text, length(p)) = p)$q$]];
	cases text;
	r record;
BEGIN
	FOR i IN 1 .. array_length(checks, 1) LOOP
		cases := CASE checks[i][2]
			WHEN 'users_items × prefixes' THEN
				$c$SELECT u, NULL::text AS w, p, NULL::text AS dir
				   FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f,ITEM#1,ITEM#2,ITEM#3,TAG#x}'::text[]) u,
						unnest('{FOLLOWS#,LIKES#,TAGGED#,USER#,LIKES#ITEM#}'::text[]) p$c$
			WHEN 'users_items' THEN
				$c$SELECT u, NULL::text AS w, NULL::text AS p, NULL::text AS dir
				   FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f,ITEM#1,ITEM#2,ITEM#3,TAG#x}'::text[]) u$c$
			WHEN 'user pairs' THEN
				$c$SELECT u, w, 'FOLLOWS#'::text AS p, NULL::text AS dir
				   FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) u,
						unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) w WHERE u <> w$c$
			WHEN 'user pairs × directions' THEN
				$c$SELECT u, w, 'FOLLOWS#'::text AS p, dir
				   FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) u,
						unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) w,
						unnest('{out,in,both}'::text[]) dir WHERE u <> w$c$
			WHEN 'users × directions' THEN
				$c$SELECT u, NULL::text AS w, 'FOLLOWS#'::text AS p, dir
				   FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) u,
						unnest('{out,in,both}'::text[]) dir$c$
			WHEN 'users' THEN
				$c$SELECT u, NULL::text AS w, 'FOLLOWS#'::text AS p, NULL::text AS dir
				   FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) u$c$
			WHEN 'items' THEN
				$c$SELECT u, NULL::text AS w, NULL::text AS p, NULL::text AS dir
				   FROM unnest('{ITEM#1,ITEM#2,ITEM#3,ITEM#4}'::text[]) u$c$
		END;
		EXECUTE format('SELECT count(*) AS calls, count(*) FILTER (WHERE got IS DISTINCT FROM want) AS differ, '
					   'min(CASE WHEN got IS DISTINCT FROM want THEN concat_ws('' '', u, w, p, dir) '
					   '|| '': got '' || coalesce(got, ''NULL'') || '', want '' || coalesce(want, ''NULL'') END) AS first '
					   'FROM (%s) c, LATERAL (SELECT (%s)::text AS got, (%s)::text AS want) x',
					   cases, format(checks[i][3], t, quote_literal(t::text) || '::regclass'), format(checks[i][4], t, quote_literal(t::text) || '::regclass'))
			INTO r;
		fn := checks[i][1];
		calls := r.calls;
		differ := r.differ;
		first_difference := r.first;
		RETURN NEXT;
	END LOOP;
END $$;

-- the reader: one row per function, then the first difference of each
-- function that differs
SET ROLE regress_adjsec_reader;
SELECT count(*) AS visible_rows FROM adjsec_rls.e;
CREATE TEMP TABLE rls_reader_e AS SELECT * FROM adjsec_util.rls_report('adjsec_rls.e');
CREATE TEMP TABLE rls_reader_ep AS SELECT * FROM adjsec_util.rls_report('adjsec_rls.ep');
RESET ROLE;
SELECT e.fn, e.calls, e.differ AS differ_e, ep.differ AS differ_ep
FROM rls_reader_e e JOIN rls_reader_ep ep USING (fn) ORDER BY e.fn;
SELECT 'e' AS t, fn, first_difference FROM rls_reader_e WHERE differ > 0
UNION ALL
SELECT 'ep', fn, first_difference FROM rls_reader_ep WHERE differ > 0 ORDER BY 1, 2;
-- the owner, under FORCE ROW LEVEL SECURITY
ALTER TABLE adjsec_rls.e FORCE ROW LEVEL SECURITY;
ALTER TABLE adjsec_rls.ep FORCE ROW LEVEL SECURITY;
SET ROLE regress_adjsec_owner;
SELECT count(*) AS visible_rows FROM adjsec_rls.e;
CREATE TEMP TABLE rls_owner_e AS SELECT * FROM adjsec_util.rls_report('adjsec_rls.e');
CREATE TEMP TABLE rls_owner_ep AS SELECT * FROM adjsec_util.rls_report('adjsec_rls.ep');
RESET ROLE;
SELECT e.fn, e.calls, e.differ AS differ_e, ep.differ AS differ_ep
FROM rls_owner_e e JOIN rls_owner_ep ep USING (fn) ORDER BY e.fn;
SELECT 'e' AS t, fn, first_difference FROM rls_owner_e WHERE differ > 0
UNION ALL
SELECT 'ep', fn, first_difference FROM rls_owner_ep WHERE differ > 0 ORDER BY 1, 2;
DISCARD TEMP;

-- to_dot and to_mermaid: the same picture as the superuser draws from a
-- copy of exactly the rows the role can see
CREATE FUNCTION adjsec_util.pictures(t regclass)
RETURNS TABLE (u text, dir text, depth int, dot text, mermaid text)
LANGUAGE sql AS $$
	SELECT u, dir, depth, to_dot(t, u::adjkey, 'FOLLOWS#', depth, dir),
		   to_mermaid(t, u::adjkey, 'FOLLOWS#', depth, dir)
	FROM unnest('{USER#a,USER#b,USER#c,USER#d,USER#e,USER#f}'::text[]) u,
		 unnest('{out,in,both}'::text[]) dir, generate_series(1, 2) depth
$$;
CREATE FUNCTION adjsec_util.compare_pictures(r name) RETURNS TABLE (calls bigint, differ bigint, first_difference text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SET LOCAL ROLE %I', r);
	CREATE TEMP TABLE vis AS SELECT * FROM adjsec_rls.e;
	CREATE TEMP TABLE pics AS SELECT * FROM adjsec_util.pictures('adjsec_rls.e');
	RESET ROLE;
	CREATE TABLE adjsec_rls.copy (pk adjkey, sk adjkey, v int, data jsonb, PRIMARY KEY (pk, sk, v));
	INSERT INTO adjsec_rls.copy SELECT * FROM pg_temp.vis;
	PERFORM create_inverted_index('adjsec_rls.copy');
	RETURN QUERY
	SELECT count(*), count(*) FILTER (WHERE p.dot IS DISTINCT FROM c.dot OR p.mermaid IS DISTINCT FROM c.mermaid),
		   min(CASE WHEN p.dot IS DISTINCT FROM c.dot OR p.mermaid IS DISTINCT FROM c.mermaid
					THEN concat_ws(' ', p.u, p.dir, p.depth) END)
	FROM pg_temp.pics p JOIN adjsec_util.pictures('adjsec_rls.copy') c USING (u, dir, depth);
	DROP TABLE adjsec_rls.copy, pg_temp.vis, pg_temp.pics;
END $$;
SELECT 'reader' AS role, * FROM adjsec_util.compare_pictures('regress_adjsec_reader')
UNION ALL
SELECT 'owner (forced)', * FROM adjsec_util.compare_pictures('regress_adjsec_owner');

-- row_security = off is an error for a role that policies apply to, never
-- a way around them
SET ROLE regress_adjsec_reader;
SET row_security = off;
SELECT adjsec_util.trys(NULL, $$SELECT count(*) FROM reverse_neighbors('adjsec_rls.e', 'USER#a', 'FOLLOWS#')$$) AS reverse_neighbors,
	   adjsec_util.trys(NULL, $$SELECT count(*) FROM traverse('adjsec_rls.e', 'USER#a', 'FOLLOWS#', 3, 'both')$$) AS traverse,
	   adjsec_util.trys(NULL, $$SELECT count(*) FROM walk_ranked('adjsec_rls.e', 'USER#a', '{FOLLOWS#,FOLLOWS#}', '{in,in}')$$) AS walk_ranked,
	   adjsec_util.trys(NULL, $$SELECT query_count('adjsec_rls.e', 'USER#a')$$) AS query_count;
RESET row_security;
RESET ROLE;

--
-- 5. A hostile search_path: the writer puts its own schema (and pg_temp)
-- before pg_catalog, with same-named operators, functions, aggregates,
-- types and tables.  Everything they do raises SQLSTATE HJ001 with the role
-- that ran them; nothing adjlist runs may resolve to them, least of all as
-- the table owner.
--
CREATE OR REPLACE FUNCTION adjsec_util.outcome(st text, msg text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN st = 'AS000' THEN 'ok'
				WHEN st = '42501' THEN 'denied'
				WHEN st = 'HJ001' THEN msg
				WHEN st LIKE 'XX%' OR st LIKE '58%' THEN st || ' ' || msg
				ELSE 'refused' END
$$;
SET ROLE regress_adjsec_owner;
-- tables whose index is written through SQL: a deferrable key (multiset
-- writes), a partitioned index table, a decorated index table
CREATE TABLE adjsec.d (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk) DEFERRABLE);
INSERT INTO adjsec.d SELECT pk, sk, data FROM adjsec.g;
SELECT create_inverted_index('adjsec.d', include => '{data}', counters => 1);
CREATE TABLE adjsec.dp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adjsec.dp SELECT pk, sk, data FROM adjsec.g;
SELECT create_inverted_index('adjsec.dp', include => '{data}', partitions => 2, write_shards => 2);
CREATE TABLE adjsec.dc (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adjsec.dc SELECT pk, sk, data FROM adjsec.g;
CREATE TABLE adjsec.dc_idx (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb,
							CHECK (data IS NULL OR data <> '{"forbidden": true}'), PRIMARY KEY (sk, pk));
SELECT create_inverted_index('adjsec.dc', include => '{data}', existing => true, index_name => 'dc_idx');
CREATE TABLE adjsec.da (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adjsec.da SELECT pk, sk, data FROM adjsec.g;
SELECT create_inverted_index('adjsec.da', include => '{data}', mode => 'api');
GRANT SELECT, INSERT, UPDATE, DELETE ON adjsec.d, adjsec.dp, adjsec.dc, adjsec.da TO regress_adjsec_writer;
RESET ROLE;

SET ROLE regress_adjsec_writer;
CREATE FUNCTION adjsec_shared.hijack() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RAISE SQLSTATE 'HJ001' USING MESSAGE = 'HIJACKED: ran as ' || current_user;
END $$;
DO $$
DECLARE
	t text;
	op text;
BEGIN
	-- operators on every type adjlist compares
	FOREACH t IN ARRAY ARRAY['adjkey', 'text', 'oid', 'tid', 'bigint', 'integer', '"char"', 'name',
							 'regclass', 'jsonb', 'bytea', 'boolean'] LOOP
		EXECUTE format('CREATE FUNCTION adjsec_shared.evil_op(%1$s, %1$s) RETURNS boolean '
					   'LANGUAGE sql AS ''SELECT adjsec_shared.hijack()''', t);
		FOREACH op IN ARRAY ARRAY['=', '<>', '<', '<=', '>', '>=', '^@'] LOOP
			EXECUTE format('CREATE OPERATOR adjsec_shared.%s (LEFTARG = %s, RIGHTARG = %2$s, '
						   'FUNCTION = adjsec_shared.evil_op)', op, t);
		END LOOP;
	END LOOP;
END $$;
CREATE FUNCTION adjsec_shared.evil_op(adjkey, text) RETURNS boolean LANGUAGE sql AS 'SELECT adjsec_shared.hijack()';
CREATE OPERATOR adjsec_shared.^@ (LEFTARG = adjkey, RIGHTARG = text, FUNCTION = adjsec_shared.evil_op);
CREATE FUNCTION adjsec_shared.evil_op(xid, integer) RETURNS boolean LANGUAGE sql AS 'SELECT adjsec_shared.hijack()';
CREATE OPERATOR adjsec_shared.= (LEFTARG = xid, RIGHTARG = integer, FUNCTION = adjsec_shared.evil_op);
CREATE FUNCTION adjsec_shared.evil_text(jsonb, text) RETURNS text LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::text';
CREATE OPERATOR adjsec_shared.->> (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = adjsec_shared.evil_text);
CREATE FUNCTION adjsec_shared.evil_jsonb(jsonb, jsonb) RETURNS jsonb LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::text::jsonb';
CREATE OPERATOR adjsec_shared.|| (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = adjsec_shared.evil_jsonb);
-- functions and aggregates of pg_catalog that SQL might call unqualified
CREATE FUNCTION adjsec_shared.unnest(anyarray) RETURNS SETOF anyelement LANGUAGE sql AS 'SELECT NULL::anyelement WHERE adjsec_shared.hijack()';
CREATE FUNCTION adjsec_shared.to_jsonb(anyelement) RETURNS jsonb LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::text::jsonb';
CREATE FUNCTION adjsec_shared.now() RETURNS timestamptz LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::text::timestamptz';
CREATE FUNCTION adjsec_shared.cardinality(anyarray) RETURNS integer LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::int';
CREATE FUNCTION adjsec_shared.array_position(anycompatiblearray, anycompatible) RETURNS integer LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::int';
CREATE FUNCTION adjsec_shared.evil_sfunc(bigint, anyelement) RETURNS bigint LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::int::bigint';
CREATE AGGREGATE adjsec_shared.count(anyelement) (SFUNC = adjsec_shared.evil_sfunc, STYPE = bigint);
CREATE AGGREGATE adjsec_shared.sum(bigint) (SFUNC = adjsec_shared.evil_sfunc, STYPE = bigint);
CREATE FUNCTION adjsec_shared.evil_append(anyarray, anyelement) RETURNS anyarray LANGUAGE sql AS 'SELECT NULL::anyarray WHERE adjsec_shared.hijack()';
CREATE AGGREGATE adjsec_shared.array_agg(anyelement) (SFUNC = adjsec_shared.evil_append, STYPE = anyarray);
CREATE FUNCTION adjsec_shared.adjkey(text) RETURNS adjkey LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::text::public.adjkey';
CREATE FUNCTION adjsec_shared.write_shard_key(adjkey, adjkey, integer) RETURNS adjkey LANGUAGE sql AS 'SELECT adjsec_shared.hijack()::text::public.adjkey';
CREATE FUNCTION adjsec_shared.adjlist_index_rows(regclass) RETURNS SETOF record LANGUAGE sql AS 'SELECT NULL::record WHERE adjsec_shared.hijack()';
-- same-named tables, with forged rows
CREATE TABLE adjsec_shared.adjlist_inverted_indexes (LIKE public.adjlist_inverted_indexes INCLUDING DEFAULTS);
INSERT INTO adjsec_shared.adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
	VALUES ('adjsec_shared.atk', 'adjsec.g', '{sk,pk}', 2, '{pk,sk}');
CREATE TABLE adjsec_shared.g_inverted (sk adjkey, pk adjkey, data jsonb);
CREATE TABLE adjsec_shared.g (pk adjkey, sk adjkey, data jsonb);
CREATE TEMP TABLE g_inverted (sk adjkey, pk adjkey, data jsonb);
CREATE TEMP TABLE adjlist_inverted_indexes (LIKE public.adjlist_inverted_indexes INCLUDING DEFAULTS);
INSERT INTO pg_temp.adjlist_inverted_indexes SELECT * FROM adjsec_shared.adjlist_inverted_indexes;
CREATE TEMP TABLE pg_class (oid oid, relname name);
CREATE TEMP TABLE adjkey (x int);			-- a type pg_temp.adjkey
GRANT USAGE ON SCHEMA adjsec_shared TO PUBLIC;
RESET ROLE;

CREATE TABLE adjsec_util.hostile (n serial, who name, sql text);
INSERT INTO adjsec_util.hostile (who, sql) VALUES
	('regress_adjsec_writer', $$INSERT INTO adjsec.g VALUES ('USER#h1', 'FOLLOWS#USER#a', '{"h": 1}')$$),
	('regress_adjsec_writer', $$INSERT INTO adjsec.g SELECT 'USER#h' || i, 'FOLLOWS#USER#b', NULL FROM generate_series(2, 5) i$$),
	('regress_adjsec_writer', $$UPDATE adjsec.g SET data = '{"u": 1}' WHERE pk OPERATOR(public.=) 'USER#a'$$),
	('regress_adjsec_writer', $$UPDATE adjsec.g SET sk = 'FOLLOWS#USER#z' WHERE pk OPERATOR(public.=) 'USER#b' AND sk OPERATOR(public.=) 'FOLLOWS#USER#c'$$),
	('regress_adjsec_writer', $$DELETE FROM adjsec.g WHERE pk OPERATOR(public.=) 'USER#c'$$),
	('regress_adjsec_writer', $$INSERT INTO adjsec.g VALUES ('USER#a', 'FOLLOWS#USER#b', '{}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data$$),
	('regress_adjsec_writer', $$INSERT INTO adjsec.d VALUES ('USER#h1', 'FOLLOWS#USER#a', '{"h": 1}')$$),
	('regress_adjsec_writer', $$UPDATE adjsec.d SET data = '{"u": 1}' WHERE pk OPERATOR(public.=) 'USER#a'$$),
	('regress_adjsec_writer', $$UPDATE adjsec.d SET sk = 'FOLLOWS#USER#z' WHERE pk OPERATOR(public.=) 'USER#b' AND sk OPERATOR(public.=) 'FOLLOWS#USER#c'$$),
	('regress_adjsec_writer', $$DELETE FROM adjsec.d WHERE pk OPERATOR(public.=) 'USER#c'$$),
	('regress_adjsec_writer', $$INSERT INTO adjsec.dp VALUES ('USER#h1', 'FOLLOWS#USER#a', '{"h": 1}')$$),
	('regress_adjsec_writer', $$UPDATE adjsec.dp SET sk = 'FOLLOWS#USER#z' WHERE pk OPERATOR(public.=) 'USER#b' AND sk OPERATOR(public.=) 'FOLLOWS#USER#c'$$),
	('regress_adjsec_writer', $$DELETE FROM adjsec.dp WHERE pk OPERATOR(public.=) 'USER#c'$$),
	('regress_adjsec_writer', $$INSERT INTO adjsec.dc VALUES ('USER#h1', 'FOLLOWS#USER#a', '{"h": 1}')$$),
	('regress_adjsec_writer', $$UPDATE adjsec.dc SET sk = 'FOLLOWS#USER#z' WHERE pk OPERATOR(public.=) 'USER#b' AND sk OPERATOR(public.=) 'FOLLOWS#USER#c'$$),
	('regress_adjsec_writer', $$DELETE FROM adjsec.dc WHERE pk OPERATOR(public.=) 'USER#c'$$),
	('regress_adjsec_writer', $$SELECT put_edge('adjsec.da', 'USER#h1', 'FOLLOWS#USER#a', '{"h": 1}')$$),
	('regress_adjsec_writer', $$SELECT put_edges('adjsec.da', '[{"pk": "USER#a", "sk": "FOLLOWS#USER#b", "data": {"p": 2}}]')$$),
	('regress_adjsec_writer', $$SELECT delete_edge('adjsec.da', 'USER#a', 'FOLLOWS#USER#b')$$),
	('regress_adjsec_writer', $$SELECT delete_node('adjsec.da', 'USER#c', '{FOLLOWS#}')$$),
	('regress_adjsec_writer', $$SELECT put_edge('adjsec.dp', 'USER#h1', 'FOLLOWS#USER#a', '{"h": 1}')$$),
	('regress_adjsec_writer', $$SELECT delete_node('adjsec.dp', 'USER#c', '{FOLLOWS#}')$$),
	('regress_adjsec_writer', $$SELECT count(*) FROM neighbors('adjsec.g', 'USER#a', 'FOLLOWS#')$$),
	('regress_adjsec_writer', $$SELECT count(*) FROM reverse_neighbors('adjsec.dp', 'USER#a', 'FOLLOWS#', lim => 1)$$),
	('regress_adjsec_writer', $$SELECT count(*) FROM traverse('adjsec.dp', 'USER#a', 'FOLLOWS#', 3, 'both')$$),
	('regress_adjsec_writer', $$SELECT count(*) FROM walk_ranked('adjsec.dp', 'USER#a', '{FOLLOWS#,FOLLOWS#}', '{in,both}')$$),
	('regress_adjsec_writer', $$SELECT shortest_path('adjsec.d', 'USER#a', 'USER#c', 'FOLLOWS#', 4, 'both')$$),
	('regress_adjsec_writer', $$SELECT count(*) FROM query('adjsec.dp', 'USER#a', 'begins_with', 'FOLLOWS#', exclusive_start_key => '{"pk": "USER#a", "sk": "FOLLOWS#USER#b"}')$$),
	('regress_adjsec_writer', $$SELECT query_count('adjsec.g', 'USER#a', 'between', 'A', 'Z')$$),
	('regress_adjsec_writer', $$SELECT to_mermaid('adjsec.dp', 'USER#a', 'FOLLOWS#', 2)$$),
	('regress_adjsec_reader', $$SELECT count(*) FROM reverse_neighbors('adjsec_rls.ep', 'USER#a', 'FOLLOWS#')$$),
	('regress_adjsec_reader', $$SELECT count(*) FROM walk_ranked('adjsec_rls.ep', 'USER#a', '{FOLLOWS#,FOLLOWS#}', '{in,both}')$$),
	('regress_adjsec_owner', $$SELECT count(*) FROM verify_inverted_index('adjsec.d_inverted')$$),
	('regress_adjsec_owner', $$SELECT rebuild_inverted_index('adjsec.dp_inverted')$$),
	('regress_adjsec_owner', $$SELECT compact_counters('adjsec.d_inverted')$$),
	('regress_adjsec_owner', $$SELECT edge_count('adjsec.d_inverted', 'USER#b', 'FOLLOWS', 'in')$$),
	('regress_adjsec_owner', $$TRUNCATE adjsec.d$$),
	('regress_adjsec_owner', $$SELECT create_inverted_index('adjsec.d', index_name => 'd_again', include => '{*}', counters => 2)$$),
	('regress_adjsec_owner', $$SELECT drop_inverted_index('adjsec.dp_inverted')$$),
	('regress_adjsec_owner', $$ALTER TABLE adjsec.d OWNER TO regress_adjsec_owner$$),
	('regress_adjsec_owner', $$DROP TABLE adjsec.dc$$);
-- each under three search paths, then the indexes are still exact
SELECT h.n, h.who, left(h.sql, 60) AS statement,
	   adjsec_util.try(h.who, 'SET LOCAL search_path = adjsec_shared, pg_catalog, public; ' || h.sql) AS own_schema_first,
	   adjsec_util.try(h.who, 'SET LOCAL search_path = pg_temp, adjsec_shared, pg_catalog, public; ' || h.sql) AS temp_first,
	   adjsec_util.try(h.who, 'SET LOCAL search_path = adjsec_shared, public; ' || h.sql) AS catalog_implicit
FROM adjsec_util.hostile h ORDER BY h.n;
DISCARD TEMP;
SELECT i.indexrel, (SELECT count(*) FROM verify_inverted_index(i.indexrel)) AS drift
FROM adjlist_inverted_indexes i WHERE i.indexrel::text LIKE 'adjsec.%' ORDER BY i.indexrel::text;
SELECT (SELECT count(*) FROM adjsec_shared.g_inverted) AS rows_in_evil_index,
	   (SELECT count(*) FROM adjsec_shared.adjlist_inverted_indexes) AS rows_in_evil_registry;

-- Code its owner adds to an index table later (a row trigger whose
-- function looks an operator up by name) also runs with search_path
-- pinned, in a session that wrote the table before it had any: what an
-- index table can run is cached per session until the table changes.
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.cc (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('adjsec.cc', include => '{data}');
GRANT SELECT, INSERT, UPDATE, DELETE ON adjsec.cc TO regress_adjsec_writer;
CREATE FUNCTION adjsec.cc_ok() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.data IS NULL OR NEW.data <> '{"no": 1}'::jsonb THEN
		RETURN NEW;
	END IF;
	RETURN NULL;
END $$;
RESET ROLE;
SELECT adjsec_util.try('regress_adjsec_writer', 'SET LOCAL search_path = adjsec_shared, pg_catalog, public; ' ||
	$$INSERT INTO adjsec.cc VALUES ('USER#a', 'FOLLOWS#USER#b', '{"n": 1}')$$) AS before_check;
-- a row that stays (try() rolls back what it ran)
INSERT INTO adjsec.cc VALUES ('USER#a', 'FOLLOWS#USER#b', '{"n": 1}');
SET ROLE regress_adjsec_owner;
CREATE TRIGGER cc_ok BEFORE INSERT OR UPDATE ON adjsec.cc_inverted
	FOR EACH ROW EXECUTE FUNCTION adjsec.cc_ok();
RESET ROLE;
SELECT adjsec_util.try('regress_adjsec_writer', 'SET LOCAL search_path = adjsec_shared, pg_catalog, public; ' ||
	$$INSERT INTO adjsec.cc VALUES ('USER#b', 'FOLLOWS#USER#c', '{"n": 2}')$$) AS after_check,
	   adjsec_util.try('regress_adjsec_writer', 'SET LOCAL search_path = adjsec_shared, pg_catalog, public; ' ||
	$$UPDATE adjsec.cc SET data = '{"n": 3}'$$) AS update_after_check;
SELECT sk, pk, data FROM adjsec.cc_inverted ORDER BY sk, pk;
SELECT count(*) AS drift FROM verify_inverted_index('adjsec.cc_inverted');

--
-- 6. SECURITY DEFINER wrappers: graph functions act as the current user
-- (the definer), not the session user, for privileges and row security.
--
SET ROLE regress_adjsec_reader;
CREATE FUNCTION adjsec_shared.reader_view(u adjkey) RETURNS text
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
	SELECT string_agg(neighbor::text, ' ' ORDER BY neighbor) FROM reverse_neighbors('adjsec_rls.e', u, 'FOLLOWS#')
$$;
REVOKE ALL ON FUNCTION adjsec_shared.reader_view(adjkey) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION adjsec_shared.reader_view(adjkey) TO regress_adjsec_nobody;
CREATE FUNCTION adjsec_shared.reader_view_no_rls(u adjkey) RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET row_security = off AS $$
	SELECT count(*) FROM public.reverse_neighbors('adjsec_rls.e', u, 'FOLLOWS#')
$$;
SELECT string_agg(pk::text, ' ' ORDER BY pk) AS reader_sees FROM adjsec_rls.e WHERE sk = 'FOLLOWS#USER#a';
RESET ROLE;
SET ROLE regress_adjsec_temp;
DO $$
BEGIN
	EXECUTE format('CREATE FUNCTION pg_temp.temp_peek() RETURNS bigint LANGUAGE sql SECURITY DEFINER '
				   'AS ''SELECT count(*) FROM public.reverse_neighbors(%s::oid::regclass, ''''USER#c'''', ''''FOLLOWS#'''')''',
				   (SELECT c.oid FROM pg_class c WHERE c.relname = 'g' AND c.relnamespace =
					(SELECT oid FROM pg_namespace WHERE nspname = 'adjsec')));
END $$;
RESET ROLE;
GRANT USAGE ON SCHEMA adjsec_shared TO regress_adjsec_nobody;
-- the superuser session calls them: the definers' rights apply
SELECT adjsec_shared.reader_view('USER#a') AS as_reader,
	   adjsec_util.trys(NULL, 'SELECT adjsec_shared.reader_view_no_rls(''USER#a'')') AS reader_without_rls,
	   adjsec_util.trys(NULL, 'SELECT pg_temp.temp_peek()') AS as_temp_role;
SET ROLE regress_adjsec_nobody;
SELECT adjsec_shared.reader_view('USER#a') AS nobody_through_reader;
RESET ROLE;
REVOKE USAGE ON SCHEMA adjsec_shared FROM regress_adjsec_nobody;
DISCARD TEMP;

--
-- 7. Trigger functions: called directly, attached by users to their own
-- tables, attached twice by an owner.  Never a crash or an internal error.
--
SET ROLE regress_adjsec_writer;
CREATE TABLE adjsec_shared.own (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE VIEW adjsec_shared.own_view AS SELECT * FROM adjsec_shared.own;
RESET ROLE;
SELECT t AS trigger, s AS statement, adjsec_util.clean('regress_adjsec_writer', t || '; ' || s) AS outcome
FROM unnest(ARRAY[
	'CREATE TRIGGER x AFTER INSERT OR UPDATE OR DELETE ON adjsec_shared.own FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x BEFORE INSERT OR UPDATE OR DELETE ON adjsec_shared.own FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger(''a'', ''b'')',
	'CREATE TRIGGER x AFTER INSERT ON adjsec_shared.own REFERENCING NEW TABLE AS adjlist_new FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x AFTER TRUNCATE ON adjsec_shared.own FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x BEFORE INSERT ON adjsec_shared.own FOR EACH STATEMENT EXECUTE FUNCTION adjlist_api_guard()',
	'CREATE TRIGGER x INSTEAD OF INSERT ON adjsec_shared.own_view FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()'
]) WITH ORDINALITY t(t, i), unnest(ARRAY[
	$$INSERT INTO adjsec_shared.own VALUES ('USER#a', 'FOLLOWS#USER#b')$$,
	$$INSERT INTO adjsec_shared.own_view VALUES ('USER#a', 'FOLLOWS#USER#b')$$,
	$$TRUNCATE adjsec_shared.own$$]) WITH ORDINALITY s(s, j)
WHERE (t LIKE '%own_view%') = (s LIKE '%own_view%')
ORDER BY i, j;
-- an owner adding a second sync trigger to an indexed table
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.tt (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO adjsec.tt VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
SELECT create_inverted_index('adjsec.tt', include => '{data}', counters => 1);
RESET ROLE;
SELECT t AS trigger, s AS statement, adjsec_util.clean('regress_adjsec_owner', t || '; ' || s) AS outcome
FROM unnest(ARRAY[
	'CREATE TRIGGER x AFTER INSERT OR UPDATE OR DELETE ON adjsec.tt FOR EACH ROW EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x AFTER INSERT ON adjsec.tt REFERENCING NEW TABLE AS adjlist_new FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x AFTER INSERT ON adjsec.tt REFERENCING NEW TABLE AS adjlist_old FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x AFTER UPDATE ON adjsec.tt REFERENCING OLD TABLE AS adjlist_new NEW TABLE AS adjlist_old FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()',
	'CREATE TRIGGER x AFTER DELETE ON adjsec.tt REFERENCING OLD TABLE AS adjlist_new FOR EACH STATEMENT EXECUTE FUNCTION adjlist_sync_trigger()'
]) WITH ORDINALITY t(t, i), unnest(ARRAY[
	$$INSERT INTO adjsec.tt VALUES ('USER#n', 'FOLLOWS#USER#a', NULL)$$,
	$$UPDATE adjsec.tt SET sk = 'FOLLOWS#USER#z'$$,
	$$DELETE FROM adjsec.tt$$]) WITH ORDINALITY s(s, j)
ORDER BY i, j;
-- adjlist's event trigger functions under events they were not made for
-- (only a superuser can attach them)
BEGIN;
CREATE EVENT TRIGGER x1 ON ddl_command_start EXECUTE FUNCTION adjlist_on_sql_drop();
SELECT adjsec_util.clean(NULL, 'CREATE TABLE adjsec_shared.evt (a int)') AS sql_drop_at_start;
DROP EVENT TRIGGER x1;
CREATE EVENT TRIGGER x2 ON sql_drop EXECUTE FUNCTION adjlist_on_ddl_end();
SELECT adjsec_util.clean(NULL, 'DROP TABLE adjsec.tt') AS ddl_end_at_sql_drop;
DROP EVENT TRIGGER x2;
CREATE EVENT TRIGGER x3 ON table_rewrite EXECUTE FUNCTION adjlist_on_ddl_start();
SELECT adjsec_util.clean(NULL, 'ALTER TABLE adjsec.tt ALTER COLUMN data TYPE json') AS ddl_start_at_rewrite;
DROP EVENT TRIGGER x3;
ROLLBACK;

--
-- 8. Names: quoted, mixed-case, with dots, quotes and multibyte letters,
-- and as long as PostgreSQL allows.
--
CREATE SCHEMA "Adj Sec ""Q"".é" AUTHORIZATION regress_adjsec_owner;
GRANT USAGE ON SCHEMA "Adj Sec ""Q"".é" TO regress_adjsec_writer;
SET ROLE regress_adjsec_owner;
CREATE TABLE "Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé" (
	"Pk Col" adjkey, "Sk ""Col""" adjkey, data jsonb, "Ç" int DEFAULT 1,
	PRIMARY KEY ("Pk Col", "Sk ""Col"""));
INSERT INTO "Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"
	VALUES ('USER#a', 'FOLLOWS#USER#b', '{"n": 1}'), ('USER#b', 'FOLLOWS#USER#a', NULL);
SELECT create_inverted_index('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', partition_key => 'Sk "Col"',
							 sort_key => 'Pk Col', include => '{*}', counters => 2, write_shards => 2,
							 index_name => repeat('x', 56));
SELECT create_inverted_index('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', partition_key => 'Sk "Col"',
							 sort_key => 'Pk Col', index_name => 'Ünïcødé ' || repeat('ü', 24), partitions => 3);
-- partition names one byte too long: refused or made unique, never truncated
-- onto each other
SELECT adjsec_util.trys('regress_adjsec_owner', format('SELECT create_inverted_index(%L, partition_key => %L, sort_key => %L, index_name => %L, partitions => 2)',
		'"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'Sk "Col"', 'Pk Col', repeat('z', 62))) AS partitions_too_long;
SELECT adjsec_util.trys(NULL, format('SELECT create_inverted_index(%L, partition_key => %L, sort_key => %L, index_name => %L)',
		'"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'Sk "Col"', 'Pk Col', repeat('y', 64))) AS name_too_long,
	   adjsec_util.trys(NULL, format('SELECT create_inverted_index(%L, partition_key => %L, sort_key => %L, index_name => %L, counters => 1)',
		'"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'Sk "Col"', 'Pk Col', repeat('y', 57))) AS counters_too_long,
	   adjsec_util.trys(NULL, format('SELECT create_inverted_index(%L)', '"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"')) AS no_such_columns;
GRANT SELECT, INSERT, UPDATE, DELETE ON "Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé" TO regress_adjsec_writer;
RESET ROLE;
SELECT relname, octet_length(relname) AS bytes, pg_get_userbyid(relowner) AS owner
FROM pg_class WHERE relnamespace = '"Adj Sec ""Q"".é"'::regnamespace AND relkind IN ('r', 'p') ORDER BY 1;
SET ROLE regress_adjsec_writer;
INSERT INTO "Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé" VALUES ('USER#c', 'FOLLOWS#USER#a', NULL);
UPDATE "Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé" SET "Sk ""Col""" = 'FOLLOWS#USER#c' WHERE "Pk Col" = 'USER#b';
SELECT put_edge('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'USER#d', 'FOLLOWS#USER#a', '{"p": 1}');
SELECT neighbor, data FROM reverse_neighbors('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'USER#a', 'FOLLOWS#');
SELECT node, depth FROM traverse('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'USER#a', 'FOLLOWS#', 3, 'both');
SELECT shortest_path('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'USER#d', 'USER#c', 'FOLLOWS#', 4, 'both');
SELECT sort_key, key FROM query('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'USER#a');
SELECT to_dot('"Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé"', 'USER#a', 'FOLLOWS#');
DELETE FROM "Adj Sec ""Q"".é"."Edges.Of ""Graph"" Ünïcødé" WHERE "Pk Col" = 'USER#c';
RESET ROLE;
SELECT i.indexrel, (SELECT count(*) FROM verify_inverted_index(i.indexrel)) AS drift,
	   edge_count(i.indexrel, 'USER#a', 'FOLLOWS', 'in') AS followers_of_a
FROM adjlist_inverted_indexes i WHERE i.counterrel IS NOT NULL AND i.baserel::text LIKE '"Adj Sec%' ORDER BY i.indexrel::text;
SELECT sort_key, item FROM query(format('%I.%I', 'Adj Sec "Q".é', repeat('x', 56))::regclass, 'FOLLOWS#USER#a');
-- renaming everything keeps the indexes (registered by OID)
ALTER SCHEMA "Adj Sec ""Q"".é" RENAME TO "ADJ.SEC";
ALTER TABLE "ADJ.SEC"."Edges.Of ""Graph"" Ünïcødé" RENAME TO "E";
SELECT adjsec_util.try('regress_adjsec_writer', $$INSERT INTO "ADJ.SEC"."E" VALUES ('USER#x', 'FOLLOWS#USER#a', NULL)$$) AS insert_after_rename;
SELECT adjsec_util.trys('regress_adjsec_owner', $$ALTER TABLE "ADJ.SEC"."E" RENAME COLUMN "Pk Col" TO pk$$) AS rename_key_column;
DROP SCHEMA "ADJ.SEC" CASCADE;
SELECT count(*) AS left_registered FROM adjlist_inverted_indexes WHERE baserel::text LIKE '"ADJ%';

--
-- 9. Inputs: NULL in every argument of every function that is not STRICT
-- (the other arguments from the samples), malicious JSON, hostile binary
-- input.  Never a crash or an internal error.
--
INSERT INTO adjsec_util.samples VALUES
	(NULL, 'name', '''sk'''), (NULL, 'name[]', '''{}'''), ('mode', 'text', '''trigger'''),
	('sort_op', 'text', '''begins_with'''), ('index_name', 'text', '''g_third''');
CREATE FUNCTION adjsec_util.null_calls(f regprocedure) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	p pg_proc;
	args text[];
	v text;
	call text;
BEGIN
	SELECT * INTO p FROM pg_proc WHERE oid = f;
	FOR k IN 0 .. p.pronargs - 1 LOOP
		args := '{}';
		FOR i IN 0 .. p.pronargs - 1 LOOP
			IF i = k THEN
				v := format('NULL::%s', format_type(p.proargtypes[i], NULL));
			ELSE
				SELECT s.val INTO v FROM adjsec_util.samples s
				WHERE s.argtype = p.proargtypes[i]
				  AND (s.argname = p.proargnames[i + 1] OR s.argname IS NULL)
				ORDER BY s.argname IS NULL LIMIT 1;
				IF v IS NULL THEN
					RETURN NEXT format('%s: no sample for argument %s %s', f, p.proargnames[i + 1],
									   format_type(p.proargtypes[i], NULL));
					CONTINUE;
				END IF;
				v := replace(replace(v,
					'%BASE%', format('%s::oid::regclass', 'adjsec.g'::regclass::oid)),
					'%INDEX%', format('%s::oid::regclass', 'adjsec.g_inverted'::regclass::oid));
			END IF;
			args := args || (CASE WHEN p.provariadic <> 0 AND i = p.pronargs - 1 AND i <> k THEN '' ELSE '' END || v);
		END LOOP;
		call := format('%s(%s)', f::oid::regproc, array_to_string(args, ', '));
		IF p.prokind = 'p' THEN
			call := 'CALL ' || call;
		ELSIF p.prokind = 'a' THEN
			call := format('SELECT %s(x) FROM (VALUES (%s)) v(x)', p.proname, args[1]);
		ELSIF p.proretset THEN
			call := 'SELECT count(*) FROM ' || call;
		ELSE
			call := 'SELECT ' || call;
		END IF;
		RETURN NEXT call;
	END LOOP;
END $$;
SELECT count(*) AS calls,
	   string_agg(c || ' => ' || o, E'\n') FILTER (WHERE o NOT IN ('ok', 'denied', 'refused')) AS not_clean
FROM (SELECT c, adjsec_util.try('regress_adjsec_owner', c) AS o
	  FROM adjsec_util.extension_functions e, adjsec_util.null_calls(e.f) c
	  JOIN pg_proc p ON true
	  WHERE p.oid = e.f AND NOT p.proisstrict AND p.pronargs > 0) x;

-- the write API and query() with malicious JSON, as the writer
SELECT x AS call, adjsec_util.trys('regress_adjsec_writer', x) AS outcome FROM (VALUES
	($$SELECT put_edges('adjsec.g', '[{"pk": 1, "sk": "FOLLOWS#USER#b"}]')$$),
	($$SELECT put_edges('adjsec.g', '[{"pk": {"a": [1]}, "sk": "FOLLOWS#USER#b"}]')$$),
	($$SELECT put_edges('adjsec.g', '[{"pk": "USER#x"}]')$$),
	($$SELECT put_edges('adjsec.g', '[{"pk": "USER#x", "sk": null}]')$$),
	($$SELECT put_edges('adjsec.g', '[{"pk": "", "sk": "x"}]')$$),
	($$SELECT put_edges('adjsec.g', '[{"pk": "USER#x", "sk": "x", "data": "a string"}]')$$),
	($$SELECT put_edges('adjsec.g', '[1, 2, 3]')$$),
	($$SELECT put_edges('adjsec.g', '{"pk": "USER#x", "sk": "x"}')$$),
	($$SELECT put_edges('adjsec.g', 'null')$$),
	($$SELECT put_edges('adjsec.g', '[[{"pk": "USER#x", "sk": "x"}]]')$$),
	($$SELECT put_edges('adjsec.g', '[{"pk": "USER#x", "sk": "x", "pk": "USER#y"}]')$$),
	($$SELECT put_edges('adjsec.g', jsonb_build_array(jsonb_build_object('pk', repeat('x', 2049), 'sk', 'y')))$$),
	($$SELECT put_edges('adjsec.g', jsonb_build_array(jsonb_build_object('pk', repeat('é', 1025), 'sk', 'y')))$$),
	($$SELECT put_edges('adjsec.g', (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#' || i, 'sk', 'FOLLOWS#USER#a')) FROM generate_series(1, 2000) i))$$),
	($$SELECT put_edge('adjsec.g', 'USER#x', 'y', (SELECT ('[' || repeat('[', 5000) || repeat(']', 5000) || ']')::jsonb))$$),
	($$SELECT put_edge('adjsec.g', 'USER#x', 'y', jsonb_build_object('big', repeat('z', 1000000)))$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', exclusive_start_key => '{"pk": {"a": [1]}, "sk": 5}')$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', exclusive_start_key => '{"pk": "USER#a", "sk": {"x": 1}}')$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', exclusive_start_key => '[1, 2]')$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', exclusive_start_key => '{"pk": "USER#a", "sk": ""}')$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', exclusive_start_key => '{"pk": "USER#a", "sk": null}')$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', exclusive_start_key => jsonb_build_object('pk', 'USER#a', 'sk', repeat('s', 3000)))$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', 'between', 'b', 'a')$$),
	($$SELECT * FROM query('adjsec.g', 'USER#a', lim => 0)$$),
	($$SELECT * FROM walk_ranked('adjsec.g', 'USER#a', '{{a,b},{c,d}}', '{{out,out},{out,out}}')$$),
	($$SELECT * FROM walk_ranked('adjsec.g', 'USER#a', '[0:1]={FOLLOWS#,FOLLOWS#}', '{out,out}')$$),
	($$SELECT * FROM walk_ranked('adjsec.g', 'USER#a', ARRAY['FOLLOWS#', NULL], '{out,out}')$$),
	($$SELECT delete_node('adjsec.g', 'USER#a', '{{a},{b}}')$$),
	($$SELECT * FROM neighbors('adjsec.g', 'USER#a', repeat('x', 5000))$$),
	($$SELECT * FROM neighbors('adjsec.g', 'USER#a', '', target_prefix => repeat('y', 5000))$$),
	($$SELECT * FROM traverse('adjsec.g', 'USER#a', 'FOLLOWS#', 2147483647, 'both')$$),
	($$SELECT adjlist_export('adjsec.g', 'USER#a', 'FOLLOWS#', 1, 'both', 'svg', '', false)$$)
) t(x);

-- binary input: COPY FROM a file written from bytea (the superuser)
CREATE TABLE adjsec_util.keys (k adjkey);
CREATE TABLE adjsec_util.raw (b bytea);
SELECT label, adjsec_util.trys(NULL, format(
	$$COPY (SELECT %s::bytea) TO '/tmp/adjsec_security_recv.bin' (FORMAT binary);
	  COPY adjsec_util.raw FROM '/tmp/adjsec_security_recv.bin' (FORMAT binary);
	  TRUNCATE adjsec_util.raw;
	  COPY adjsec_util.keys FROM '/tmp/adjsec_security_recv.bin' (FORMAT binary)$$, '(' || bytes || ')')) AS outcome
FROM (VALUES
	('valid', $$'\x0155534552'$$),
	('version only (empty key)', $$'\x01'$$),
	('no version byte', $$''$$),
	('version 2', $$'\x0255534552'$$),
	('invalid UTF-8', $$'\x01ff41'$$),
	('zero byte', $$'\x014100'$$),
	('2048 bytes', $$'\x01' || repeat('41', 2048)$$),
	('2049 bytes', $$'\x01' || repeat('41', 2049)$$),
	('surrogate', $$'\x01eda080'$$)) v(label, bytes);

-- every key stored anywhere in this database is a valid key
CREATE FUNCTION adjsec_util.bad_keys() RETURNS TABLE (relation regclass, attname name, bad bigint)
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	n bigint;
BEGIN
	FOR r IN SELECT a.attrelid::regclass AS rel, a.attname
			 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			 WHERE a.atttypid = 'adjkey'::regtype AND c.relkind IN ('r', 'm') AND NOT a.attisdropped
			   AND c.relpersistence <> 't' LOOP
		EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL AND NOT ('
					   'octet_length(adjkey_send(%2$I)) BETWEEN 2 AND 2049 '
					   'AND get_byte(adjkey_send(%2$I), 0) = 1 '
					   'AND position(''\x00''::bytea IN adjkey_send(%2$I)) = 0 '
					   'AND convert_to(%2$I::text, ''UTF8'') = substr(adjkey_send(%2$I), 2))', r.rel, r.attname)
			INTO n;
		IF n > 0 THEN
			relation := r.rel;
			attname := r.attname;
			bad := n;
			RETURN NEXT;
		END IF;
	END LOOP;
END $$;
SELECT * FROM adjsec_util.bad_keys();

--
-- 10. Forged index tables.  The superuser disables adjlist's DDL event
-- triggers and changes an index table (or its base or counter table) in
-- ways the triggers would refuse; or the owner registers, with existing =>
-- true, an index table of its own making.  Then writes (as the writer),
-- graph reads (as the reader), maintenance and drops (as the owner): each
-- works or fails cleanly; a broken definition is reported naming the
-- index.  Each forgery runs in a transaction that is rolled back.
--
CREATE TABLE adjsec_util.forged_ops (n serial, kind text, who name, sql text);
INSERT INTO adjsec_util.forged_ops (kind, who, sql) VALUES
	('write', 'regress_adjsec_writer', $$INSERT INTO adjsec.g VALUES ('USER#n', 'FOLLOWS#USER#b', '{"n": 5}')$$),
	('write', 'regress_adjsec_writer', $$INSERT INTO adjsec.g SELECT 'USER#m' || i, 'FOLLOWS#USER#b', NULL FROM generate_series(1, 3) i$$),
	('write', 'regress_adjsec_writer', $$UPDATE adjsec.g SET data = '{"n": 9}' WHERE pk = 'USER#a'$$),
	('write', 'regress_adjsec_writer', $$UPDATE adjsec.g SET sk = 'FOLLOWS#USER#z' WHERE pk = 'USER#b' AND sk = 'FOLLOWS#USER#c'$$),
	('write', 'regress_adjsec_writer', $$DELETE FROM adjsec.g WHERE pk = 'USER#c'$$),
	('write', 'regress_adjsec_writer', $$INSERT INTO adjsec.g VALUES ('USER#a', 'FOLLOWS#USER#b', '{}') ON CONFLICT (pk, sk) DO UPDATE SET data = EXCLUDED.data$$),
	('write', 'regress_adjsec_owner', $$TRUNCATE adjsec.g$$),
	('read', 'regress_adjsec_reader', $$SELECT count(*) FROM neighbors('adjsec.g', 'USER#a', 'FOLLOWS#')$$),
	('read', 'regress_adjsec_reader', $$SELECT count(*) FROM reverse_neighbors('adjsec.g', 'USER#c', 'FOLLOWS#')$$),
	('read', 'regress_adjsec_reader', $$SELECT degree('adjsec.g', 'USER#c', 'FOLLOWS#', 'in')$$),
	('read', 'regress_adjsec_reader', $$SELECT has_edge('adjsec.g', 'USER#a', 'USER#b', 'FOLLOWS#')$$),
	('read', 'regress_adjsec_reader', $$SELECT count(*) FROM traverse('adjsec.g', 'USER#a', 'FOLLOWS#', 3, 'both')$$),
	('read', 'regress_adjsec_reader', $$SELECT reachable_count('adjsec.g', 'USER#a', 'FOLLOWS#', 3, 'in')$$),
	('read', 'regress_adjsec_reader', $$SELECT shortest_path('adjsec.g', 'USER#b', 'USER#a', 'FOLLOWS#', 4, 'both')$$),
	('read', 'regress_adjsec_reader', $$SELECT count(*) FROM common_neighbors('adjsec.g', 'USER#a', 'USER#b', 'FOLLOWS#', 'in')$$),
	('read', 'regress_adjsec_reader', $$SELECT count(*) FROM walk_ranked('adjsec.g', 'USER#a', '{FOLLOWS#,FOLLOWS#}', '{out,in}')$$),
	('read', 'regress_adjsec_reader', $$SELECT count(*) FROM also_liked('adjsec.g', 'USER#a')$$),
	('read', 'regress_adjsec_reader', $$SELECT to_dot('adjsec.g', 'USER#a', 'FOLLOWS#', 2)$$),
	('read', 'regress_adjsec_owner', $$SELECT count(*) FROM query('%IDX%', 'FOLLOWS#USER#c')$$),
	('read', 'regress_adjsec_owner', $$SELECT query_count('%IDX%', 'FOLLOWS#USER#c')$$),
	('maintenance', 'regress_adjsec_owner', $$SELECT count(*) FROM verify_inverted_index('%IDX%')$$),
	('maintenance', 'regress_adjsec_owner', $$SELECT rebuild_inverted_index('%IDX%')$$),
	('maintenance', 'regress_adjsec_owner', $$SELECT compact_counters('%IDX%')$$),
	('maintenance', 'regress_adjsec_owner', $$SELECT edge_count('%IDX%', 'USER#c', 'FOLLOWS', 'in')$$),
	('write API', 'regress_adjsec_writer', $$SELECT put_edge('adjsec.g', 'USER#q', 'FOLLOWS#USER#b')$$),
	('write API', 'regress_adjsec_writer', $$SELECT delete_edge('adjsec.g', 'USER#a', 'FOLLOWS#USER#b')$$),
	('write API', 'regress_adjsec_writer', $$SELECT delete_node('adjsec.g', 'USER#b', '{FOLLOWS#}')$$),
	('drop', 'regress_adjsec_owner', $$SELECT drop_inverted_index('%IDX%')$$),
	('drop', 'regress_adjsec_owner', $$DROP TABLE %IDX%$$),
	('drop', 'regress_adjsec_owner', $$DROP TABLE adjsec.g$$);

-- Run every operation after a forgery; per kind of operation, what came of
-- it, and whether every refusal by adjlist's check at use named the index.
CREATE FUNCTION adjsec_util.after_forgery(forgery text, idx text DEFAULT 'adjsec.g_inverted',
										  by_owner boolean DEFAULT false)
RETURNS TABLE (forged text, ops bigint, clean boolean, names_index boolean, drops_not_blocked boolean, not_clean text)
LANGUAGE plpgsql AS $$
DECLARE
	o record;
	st text;
	msg text;
	res text[] := '{}';
	kinds text[] := '{}';
	sqls text[] := '{}';
	named boolean[] := '{}';
BEGIN
	-- the forgery alone
	BEGIN
		IF by_owner THEN
			SET LOCAL ROLE regress_adjsec_owner;
			EXECUTE forgery;
			RESET ROLE;
		ELSE
			ALTER EVENT TRIGGER adjlist_ddl_start DISABLE;
			ALTER EVENT TRIGGER adjlist_ddl_end DISABLE;
			EXECUTE forgery;
		END IF;
		RAISE SQLSTATE 'AS000';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	END;
	IF st <> 'AS000' THEN
		forged := adjsec_util.outcome(st, msg);
		RETURN NEXT;
		RETURN;
	END IF;
	FOR o IN SELECT * FROM adjsec_util.forged_ops ORDER BY n LOOP
		BEGIN
			IF by_owner THEN
				SET LOCAL ROLE regress_adjsec_owner;
				EXECUTE forgery;
				RESET ROLE;
			ELSE
				ALTER EVENT TRIGGER adjlist_ddl_start DISABLE;
				ALTER EVENT TRIGGER adjlist_ddl_end DISABLE;
				EXECUTE forgery;
				ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;
				ALTER EVENT TRIGGER adjlist_ddl_end ENABLE ALWAYS;
			END IF;
			EXECUTE format('SET LOCAL ROLE %I', o.who);
			EXECUTE replace(o.sql, '%IDX%', idx);
			RAISE SQLSTATE 'AS000';
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		END;
		kinds := kinds || o.kind;
		sqls := sqls || o.sql;
		res := res || adjsec_util.outcome(st, msg);
		named := named || (st <> '55000' OR msg LIKE '%"' || split_part(idx, '.', 2) || '%"%');
	END LOOP;
	RETURN QUERY
	SELECT 'ok', count(*), bool_and(r IN ('ok', 'denied', 'refused')), bool_and(nm),
		   bool_and(k <> 'drop' OR r <> 'refused'),
		   string_agg(s || ' => ' || r, '; ') FILTER (WHERE r NOT IN ('ok', 'denied', 'refused'))
	FROM unnest(kinds, res, named, sqls) u(k, r, nm, s);
END $$;
SELECT f.forgery, a.*
FROM unnest(ARRAY[
	'ALTER TABLE adjsec.g_inverted ALTER COLUMN sk TYPE text',
	'ALTER TABLE adjsec.g_inverted ALTER COLUMN data TYPE text',
	'ALTER TABLE adjsec.g_inverted DROP COLUMN pk',
	'ALTER TABLE adjsec.g_inverted DROP COLUMN data',
	'ALTER TABLE adjsec.g_inverted RENAME COLUMN pk TO pk2',
	'ALTER TABLE adjsec.g_inverted ADD COLUMN extra int',
	'ALTER TABLE adjsec.g_inverted ADD COLUMN extra int NOT NULL DEFAULT 7',
	'ALTER TABLE adjsec.g_inverted OWNER TO regress_adjsec_other',
	'ALTER TABLE adjsec.g_inverted DROP CONSTRAINT g_inverted_pkey',
	'ALTER TABLE adjsec.g_inverted DROP CONSTRAINT g_inverted_pkey, ADD PRIMARY KEY (pk, sk)',
	'ALTER TABLE adjsec.g_inverted RENAME COLUMN pk TO tmp; ALTER TABLE adjsec.g_inverted RENAME COLUMN sk TO pk; ALTER TABLE adjsec.g_inverted RENAME COLUMN tmp TO sk',
	'ALTER TABLE adjsec.g_inverted DROP COLUMN sk; ALTER TABLE adjsec.g_inverted ADD COLUMN sk adjkey',
	'ALTER TABLE adjsec.g_inverted_degree ALTER COLUMN n TYPE integer',
	'ALTER TABLE adjsec.g_inverted_degree DROP COLUMN direction',
	'ALTER TABLE adjsec.g_inverted_degree OWNER TO regress_adjsec_other',
	'ALTER TABLE adjsec.g ALTER COLUMN data TYPE text',
	'ALTER TABLE adjsec.g DROP COLUMN data',
	'ALTER TABLE adjsec.g RENAME COLUMN sk TO sk2',
	'ALTER TABLE adjsec.g OWNER TO regress_adjsec_other'
]) WITH ORDINALITY f(forgery, n), adjsec_util.after_forgery(f.forgery) a
ORDER BY f.n;

-- index tables of the owner's own making, registered with existing => true
-- (in place of g's index)
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.index_writers (who name, session_who name);
CREATE FUNCTION adjsec.log_writer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO adjsec.index_writers VALUES (current_user, session_user);
	RETURN NEW;
END $$;
RESET ROLE;
SELECT f.what, a.*
FROM (VALUES
	('key columns of other types', 'CREATE TABLE adjsec.x (sk text, pk text, data jsonb)'),
	('fewer columns', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey)'),
	('an extra NOT NULL column', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, extra int NOT NULL)'),
	('an extra column with a default', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, extra int NOT NULL DEFAULT 7, PRIMARY KEY (sk, pk))'),
	('a CHECK constraint', $$CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, CHECK (pk::text <> 'USER#m2'), PRIMARY KEY (sk, pk))$$),
	('a trigger of its own', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk));
		CREATE TRIGGER log BEFORE INSERT OR UPDATE ON adjsec.x FOR EACH ROW EXECUTE FUNCTION adjsec.log_writer()'),
	('a GIN index on the projected jsonb', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk));
		CREATE INDEX ON adjsec.x USING gin (data)'),
	('an exclusion constraint', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, EXCLUDE USING hash (pk WITH =))'),
	('no primary key', 'CREATE TABLE adjsec.x (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb)'),
	('a unique index instead', 'CREATE TABLE adjsec.x (sk adjkey NOT NULL, pk adjkey NOT NULL, data jsonb); CREATE UNIQUE INDEX ON adjsec.x (sk, pk)'),
	('the primary key reversed', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (pk, sk))'),
	('a deferrable primary key', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk) DEFERRABLE INITIALLY DEFERRED)'),
	('partitioned', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk)) PARTITION BY HASH (sk);
		CREATE TABLE adjsec.x_0 PARTITION OF adjsec.x FOR VALUES WITH (MODULUS 2, REMAINDER 0);
		CREATE TABLE adjsec.x_1 PARTITION OF adjsec.x FOR VALUES WITH (MODULUS 2, REMAINDER 1)'),
	('a generated column', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, h int GENERATED ALWAYS AS (length(pk::text)) STORED, PRIMARY KEY (sk, pk))'),
	('forced row security', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk));
		ALTER TABLE adjsec.x ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY'),
	('a rule', 'CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk));
		CREATE RULE r AS ON INSERT TO adjsec.x DO INSTEAD NOTHING'),
	('unlogged', 'CREATE UNLOGGED TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk))')
) f(what, ddl),
LATERAL adjsec_util.after_forgery(f.ddl || $$; DROP TABLE adjsec.g_inverted;
	SELECT create_inverted_index('adjsec.g', include => '{data}', existing => true, index_name => 'x')$$,
	'adjsec.x', true) a
ORDER BY f.what;
-- a trigger of the index table runs as the index table's owner, whoever
-- writes the base table
BEGIN;
SET ROLE regress_adjsec_owner;
DROP TABLE adjsec.g_inverted;
CREATE TABLE adjsec.x (sk adjkey, pk adjkey, data jsonb, PRIMARY KEY (sk, pk));
CREATE TRIGGER log BEFORE INSERT OR UPDATE ON adjsec.x FOR EACH ROW EXECUTE FUNCTION adjsec.log_writer();
SELECT create_inverted_index('adjsec.g', include => '{data}', existing => true, index_name => 'x');
SET ROLE regress_adjsec_writer;
INSERT INTO adjsec.g VALUES ('USER#w', 'FOLLOWS#USER#a', NULL);
UPDATE adjsec.g SET data = '{"w": 1}' WHERE pk = 'USER#w';
SELECT put_edge('adjsec.g', 'USER#w2', 'FOLLOWS#USER#a');
RESET ROLE;
SELECT who, session_who, count(*) FROM adjsec.index_writers GROUP BY 1, 2;
ROLLBACK;

--
-- 11. What must not have changed did not: roles and memberships, privileges
-- and owners of everything that existed before the attacks, event
-- triggers, the extension and its registry rows.
--
SELECT adjsec_util.take_snapshot('after');
SELECT b.kind, b.key, b.val AS before, a.val AS after
FROM (SELECT * FROM adjsec_util.snap WHERE phase = 'before') b
LEFT JOIN (SELECT * FROM adjsec_util.snap WHERE phase = 'after') a USING (kind, key)
WHERE a.val IS DISTINCT FROM b.val
UNION ALL
SELECT a.kind, a.key, NULL, a.val
FROM (SELECT * FROM adjsec_util.snap WHERE phase = 'after') a
LEFT JOIN (SELECT * FROM adjsec_util.snap WHERE phase = 'before') b USING (kind, key)
WHERE b.key IS NULL AND a.kind IN ('role', 'member', 'database', 'event trigger', 'extension', 'default acl')
ORDER BY 1, 2;
-- the superuser's rights were never needed: nothing adjlist made is a
-- SECURITY DEFINER function or owned by anybody but the extension's owner
SELECT count(*) FILTER (WHERE p.prosecdef) AS security_definer,
	   count(*) FILTER (WHERE p.proowner <> e.extowner) AS other_owner
FROM adjsec_util.extension_functions f JOIN pg_proc p ON p.oid = f.f
CROSS JOIN pg_extension e WHERE e.extname = 'adjlist';
DO $$
BEGIN
	EXECUTE format('GRANT TEMP ON DATABASE %I TO PUBLIC', current_database());
END $$;

--
-- 12. NULL keys where adjlist reads rows through SQL.  A base table without
-- a primary key (registered with base_key; its unique key lets NULLs in)
-- takes a row with a NULL sort key from a role allowed to write it; an
-- index table of the owner's
-- making (existing => true, no NOT NULL) holds a row with a NULL key; a
-- forged index table whose key column was dropped and added again holds
-- NULLs.  Reading them must work (a NULL key is no edge) or fail cleanly;
-- a crash here ends this test.
--
SET ROLE regress_adjsec_owner;
CREATE TABLE adjsec.nokey (pk adjkey, sk adjkey, data jsonb, UNIQUE (pk, sk));
SELECT create_inverted_index('adjsec.nokey', base_key => '{pk,sk}');
GRANT SELECT, INSERT ON adjsec.nokey TO regress_adjsec_writer;
GRANT SELECT ON adjsec.nokey TO regress_adjsec_reader;
CREATE TABLE adjsec.nn (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE adjsec.nn_idx (sk adjkey, pk adjkey);
SELECT create_inverted_index('adjsec.nn', existing => true, index_name => 'nn_idx');
INSERT INTO adjsec.nn VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
-- (the owner may not switch off the guard of its own index table: a
-- superuser writes behind it, in replica mode)
RESET ROLE;
SET session_replication_role = replica;
INSERT INTO adjsec.nn_idx VALUES ('FOLLOWS#USER#b', NULL), (NULL, 'USER#x');
RESET session_replication_role;
SET ROLE regress_adjsec_owner;
GRANT SELECT ON adjsec.nn TO regress_adjsec_reader;
RESET ROLE;
SET ROLE regress_adjsec_writer;
INSERT INTO adjsec.nokey VALUES ('USER#a', 'FOLLOWS#USER#b', NULL), ('USER#a', NULL, NULL),
	(NULL, 'FOLLOWS#USER#b', NULL);
RESET ROLE;
SELECT x AS call, adjsec_util.clean('regress_adjsec_reader', x) AS outcome FROM (VALUES
	($$SELECT count(*) FROM neighbors('adjsec.nokey', 'USER#a', 'FOLLOWS#')$$),
	($$SELECT count(*) FROM neighbors('adjsec.nokey', 'USER#a', '')$$),
	($$SELECT count(*) FROM neighbors('adjsec.nokey', 'USER#a', '', sk_is_target => true)$$),
	($$SELECT degree('adjsec.nokey', 'USER#a', '')$$),
	($$SELECT count(*) FROM traverse('adjsec.nokey', 'USER#a', '', 2, 'both')$$),
	($$SELECT count(*) FROM walk_ranked('adjsec.nokey', 'USER#a', '{"",""}', '{out,out}')$$),
	($$SELECT to_dot('adjsec.nokey', 'USER#a', '', 1, 'both')$$),
	($$SELECT count(*) FROM query('adjsec.nokey', 'USER#a')$$),
	($$SELECT count(*) FROM reverse_neighbors('adjsec.nn', 'USER#b', 'FOLLOWS#')$$),
	($$SELECT degree('adjsec.nn', 'USER#b', 'FOLLOWS#', 'in')$$),
	($$SELECT count(*) FROM traverse('adjsec.nn', 'USER#b', 'FOLLOWS#', 2, 'in')$$),
	($$SELECT shortest_path('adjsec.nn', 'USER#a', 'USER#b', 'FOLLOWS#', 3, 'both')$$),
	($$SELECT count(*) FROM walk_ranked('adjsec.nn', 'USER#b', '{FOLLOWS#,FOLLOWS#}', '{in,out}')$$)
) t(x);
SELECT x AS call, adjsec_util.clean('regress_adjsec_owner', x) AS outcome FROM (VALUES
	($$SELECT count(*) FROM verify_inverted_index('adjsec.nn_idx')$$),
	($$SELECT rebuild_inverted_index('adjsec.nn_idx')$$),
	($$SELECT count(*) FROM query('adjsec.nn_idx', 'FOLLOWS#USER#b')$$),
	($$SELECT delete_node('adjsec.nn', 'USER#b', '{FOLLOWS#}')$$)
) t(x);
SELECT adjsec_util.clean(NULL, $$
	ALTER EVENT TRIGGER adjlist_ddl_end DISABLE;
	ALTER TABLE adjsec.g_inverted DROP COLUMN pk;
	ALTER TABLE adjsec.g_inverted ADD COLUMN pk adjkey;
	ALTER EVENT TRIGGER adjlist_ddl_end ENABLE ALWAYS;
	SET LOCAL ROLE regress_adjsec_reader;
	SELECT count(*) FROM reverse_neighbors('adjsec.g', 'USER#c', 'FOLLOWS#');
	SELECT degree('adjsec.g', 'USER#c', 'FOLLOWS#', 'in');
	SELECT count(*) FROM traverse('adjsec.g', 'USER#c', 'FOLLOWS#', 2, 'both');
$$) AS forged_key_column_readded;

--
-- 13. Cache memory under a nested call.  query() and its relatives keep the
-- key of their table while user code runs: the input function of an extra
-- key column's type, here a domain whose CHECK calls a function of the
-- caller's.  That function invalidates the table's cached entry (a GRANT
-- on it, a schema created and dropped) or fills the cache past its
-- bound (256 tables) and calls query() again, which builds the entry again
-- and frees what the outer call held.  Each call must return its rows; a
-- crash here ends this test.  A role with nothing but TEMP can do all of
-- it but the schema (CREATE on the database, granted for that case only).
--
SET ROLE regress_adjsec_temp;
CREATE FUNCTION pg_temp.nest(int) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	how text := current_setting('adjsec.nest', true);
BEGIN
	IF coalesce(how, '') = '' THEN
		RETURN true;
	END IF;
	PERFORM set_config('adjsec.nest', '', false);
	IF how = 'alter' THEN
		GRANT SELECT ON pg_temp.qt TO PUBLIC;	-- (ALTER TABLE: refused, in use)
	ELSIF how = 'schema' THEN
		CREATE SCHEMA adjsec_nest;
		DROP SCHEMA adjsec_nest;
	ELSIF how = 'flood' THEN
		FOR i IN 1..260 LOOP
			PERFORM count(*) FROM query(format('pg_temp.qf%s', i)::regclass, 'A');
		END LOOP;
	END IF;
	PERFORM count(*) FROM query('pg_temp.qt', 'A', '>=', 'B');	-- builds it again
	PERFORM count(*) FROM query('pg_temp.qt2', 'A', '>=', 'B');	-- reuses the memory
	RETURN true;
END $$;
CREATE DOMAIN pg_temp.nestd AS int CHECK (pg_temp.nest(VALUE));
CREATE TEMP TABLE qt (pk adjkey, sk adjkey, v pg_temp.nestd, PRIMARY KEY (pk, sk, v));
CREATE TEMP TABLE qt2 (a adjkey, b adjkey, c text, e text, PRIMARY KEY (a, b, c, e));
INSERT INTO qt VALUES ('A', 'B', 1), ('A', 'C', 2), ('A', 'D', 3);
DO $$
BEGIN
	FOR i IN 1..260 LOOP
		EXECUTE format('CREATE TEMP TABLE qf%s (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk))', i);
	END LOOP;
END $$;
SELECT count(*) AS cached FROM query('pg_temp.qt', 'A', '>=', 'B');
SELECT set_config('adjsec.nest', 'alter', false) AS nest;
SELECT sort_key, key FROM query('pg_temp.qt', 'A', '>=', 'B', NULL, false, 10, '{"pk":"A","sk":"B","v":1}');
SELECT set_config('adjsec.nest', 'alter', false) AS nest;
SELECT * FROM query_count_page('pg_temp.qt', 'A', '>=', 'B', NULL, false, 1, '{"pk":"A","sk":"B","v":1}');
SELECT set_config('adjsec.nest', 'alter', false) AS nest;
SELECT query_count('pg_temp.qt', 'A', '>=', 'B', NULL, false, NULL, '{"pk":"A","sk":"B","v":1}');
SELECT set_config('adjsec.nest', 'alter', false) AS nest;
SELECT count(*) AS plan_lines FROM explain_query('pg_temp.qt', 'A', '>=', 'B', NULL, true, 10, '{"pk":"A","sk":"D","v":3}');
SELECT set_config('adjsec.nest', 'flood', false) AS nest;
SELECT sort_key, key FROM query('pg_temp.qt', 'A', '>=', 'B', NULL, true, 10, '{"pk":"A","sk":"D","v":3}');
SELECT set_config('adjsec.nest', 'flood', false) AS nest;
SELECT * FROM query_count_page('pg_temp.qt', 'A', NULL, NULL, NULL, false, 1, '{"pk":"A","sk":"B","v":1}');
RESET ROLE;
DO $$
BEGIN
	EXECUTE format('GRANT CREATE ON DATABASE %I TO regress_adjsec_temp', current_database());
END $$;
SET ROLE regress_adjsec_temp;
SELECT set_config('adjsec.nest', 'schema', false) AS nest;
SELECT sort_key, key FROM query('pg_temp.qt', 'A', '>=', 'B', NULL, false, 10, '{"pk":"A","sk":"B","v":1}');
SELECT set_config('adjsec.nest', 'schema', false) AS nest;
SELECT query_count('pg_temp.qt', 'A', '>=', 'B', NULL, false, 5, '{"pk":"A","sk":"B","v":1}');
RESET ROLE;
DO $$
BEGIN
	EXECUTE format('REVOKE CREATE ON DATABASE %I FROM regress_adjsec_temp', current_database());
END $$;
SELECT count(*) AS nest_schema_left FROM pg_namespace WHERE nspname = 'adjsec_nest';

--
-- Cleanup
--
DROP SCHEMA adjsec, adjsec_shared, adjsec_rls CASCADE;
DROP SCHEMA adjsec_util CASCADE;
SELECT count(*) AS left_registered FROM adjlist_inverted_indexes WHERE indexrel::text LIKE 'adjsec%' OR baserel::text LIKE 'adjsec%';
DROP OWNED BY regress_adjsec_owner, regress_adjsec_reader, regress_adjsec_writer, regress_adjsec_temp,
	regress_adjsec_nobody, regress_adjsec_other, regress_adjsec_member;
DROP ROLE regress_adjsec_member;
DROP ROLE regress_adjsec_owner;
DROP ROLE regress_adjsec_reader;
DROP ROLE regress_adjsec_writer;
DROP ROLE regress_adjsec_temp;
DROP ROLE regress_adjsec_nobody;
DROP ROLE regress_adjsec_other;

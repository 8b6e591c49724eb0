-- adjlist install and update script, part: the event triggers (the update
-- drops the old ones first).  ALTER TYPE: ... CASCADE alters the columns of
-- the type's typed tables (CREATE TABLE ... OF) as ALTER TABLE would.  DROP
-- INDEX: the unique key of a base key stays (DROP INDEX CONCURRENTLY commits
-- before sql_drop could refuse it).  The renames and drops of what a sparse
-- index's predicate may name: after pg_upgrade, its predicate is bound again
-- from its text first, while the text still names what it calls, and its
-- pg_depend entries written (index_predicate.c).

CREATE EVENT TRIGGER adjlist_ddl_start ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'DROP TABLE', 'DROP FOREIGN TABLE',
				'DROP TRIGGER', 'ALTER TRIGGER', 'ALTER TYPE', 'DROP INDEX',
				'ALTER SCHEMA', 'ALTER FUNCTION', 'ALTER ROUTINE', 'ALTER OPERATOR',
				'ALTER DOMAIN', 'ALTER COLLATION', 'ALTER EXTENSION', 'DROP SCHEMA',
				'DROP FUNCTION', 'DROP ROUTINE', 'DROP OPERATOR', 'DROP TYPE', 'DROP DOMAIN',
				'DROP COLLATION', 'DROP OWNED')
	EXECUTE FUNCTION adjlist_on_ddl_start();
-- (renames and moves of what a sparse index's predicate may name: its text
-- is written again, index_predicate.c; an adjlist_sync_replica trigger
-- made in a form that would miss changes is refused, index_sync_check.c;
-- CREATE SCHEMA: the tables it creates, PARTITION OF or INHERITS, as
-- CREATE TABLE's; DROP TABLE: the partitions whose rows its start took
-- out of their index must be gone, index_guard.c)
CREATE EVENT TRIGGER adjlist_ddl_end ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'CREATE TABLE', 'CREATE FOREIGN TABLE',
				'CREATE INDEX', 'ALTER SCHEMA', 'ALTER FUNCTION', 'ALTER ROUTINE', 'ALTER OPERATOR',
				'ALTER TYPE', 'ALTER DOMAIN', 'ALTER COLLATION', 'ALTER EXTENSION',
				'CREATE TRIGGER', 'CREATE SCHEMA', 'DROP TABLE', 'DROP FOREIGN TABLE',
				'ALTER TRIGGER', 'DROP TRIGGER', 'DROP INDEX')
	EXECUTE FUNCTION adjlist_on_ddl_end();
CREATE EVENT TRIGGER adjlist_sql_drop ON sql_drop
	EXECUTE FUNCTION adjlist_on_sql_drop();
-- They fire in every session_replication_role: an event trigger is created
-- ENABLE ORIGIN, which a session in replica mode (a superuser's, or a bulk
-- load tool's) does not fire, and DDL made there would go unchecked and
-- unfollowed (a sync trigger dropped, a registration naming a dropped
-- table).  Replica mode lets writes bypass the sync triggers, which
-- verify_inverted_index() finds; it must not let DDL bypass the guards.
-- (pg_dump leaves an extension's event triggers out: CREATE EXTENSION
-- makes them again, so.)
ALTER EVENT TRIGGER adjlist_ddl_start ENABLE ALWAYS;
ALTER EVENT TRIGGER adjlist_ddl_end ENABLE ALWAYS;
ALTER EVENT TRIGGER adjlist_sql_drop ENABLE ALWAYS;

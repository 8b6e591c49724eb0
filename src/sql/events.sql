-- adjlist install and update script, part: the event triggers (the update
-- drops the old ones first).  ALTER TYPE: ... CASCADE alters the columns of
-- the type's typed tables (CREATE TABLE ... OF) as ALTER TABLE would.  DROP
-- INDEX: the unique key of a base key stays (DROP INDEX CONCURRENTLY commits
-- before sql_drop could refuse it).

CREATE EVENT TRIGGER adjlist_ddl_start ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'DROP TABLE', 'DROP FOREIGN TABLE',
				'DROP TRIGGER', 'ALTER TRIGGER', 'ALTER TYPE', 'DROP INDEX')
	EXECUTE FUNCTION adjlist_on_ddl_start();
-- (renames and moves of what a sparse index's predicate may name: its text
-- is written again, index_predicate.c)
CREATE EVENT TRIGGER adjlist_ddl_end ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER FOREIGN TABLE', 'CREATE TABLE', 'CREATE FOREIGN TABLE',
				'CREATE INDEX', 'ALTER SCHEMA', 'ALTER FUNCTION', 'ALTER ROUTINE', 'ALTER OPERATOR',
				'ALTER TYPE', 'ALTER DOMAIN', 'ALTER COLLATION', 'ALTER EXTENSION')
	EXECUTE FUNCTION adjlist_on_ddl_end();
CREATE EVENT TRIGGER adjlist_sql_drop ON sql_drop
	EXECUTE FUNCTION adjlist_on_sql_drop();

-- adjlist install and update script, part: who may use the registry

REVOKE ALL ON adjlist_inverted_indexes FROM PUBLIC;
GRANT SELECT ON adjlist_inverted_indexes TO PUBLIC;
CREATE TRIGGER adjlist_registry_restored AFTER INSERT ON adjlist_inverted_indexes
	FOR EACH ROW EXECUTE FUNCTION adjlist_registry_restored();
GRANT SELECT ON inverted_index_progress TO PUBLIC;

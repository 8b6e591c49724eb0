-- adjlist 0.2 -> 0.3, last part: the user's indexes in the form of 0.3
-- (index_update.c): counter tables of deltas, the triggers of 0.3.
CREATE FUNCTION adjlist_update_to_0_3() RETURNS void
	AS 'MODULE_PATHNAME', 'adjlist_update_to_0_3' LANGUAGE C;
SELECT adjlist_update_to_0_3();
DROP FUNCTION adjlist_update_to_0_3();

/*-------------------------------------------------------------------------
 *
 * registry_write.c
 *	  Writing the registry of inverted indexes (adjlist_inverted_indexes)
 *	  and the bound predicates beside it (adjlist_index_predicates): a new
 *	  registration, its predicate (bound, or as text after a rename), its
 *	  readiness, a dropped counter table forgotten, a registration deleted.
 *
 * The registry decides which table the sync triggers write, and as whom
 * (registry.c's header says why that is safe): so these are the only
 * writes of it, each one statement run through SPI as the registry's
 * owner (registry_exec()) with every name schema-qualified, after the
 * caller has made its checks (that the caller owns the tables, that the
 * row conflicts with no other: registry_row_conflict()).  While one runs,
 * registry_written_by_adjlist() is true, so the registry's own trigger
 * (index_restore.c) tells these rows from those a restore brings, which it
 * must check and bind.  Every write invalidates the
 * registry's relcache entry, so writers of the base table, in this session
 * and the others, see the change at once (registry.c).
 *
 * A registry of an older version (0.1, 0.2) lacks the ready and predicate
 * columns and the bound predicates: a row written there is ready and has
 * no predicate.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "registry.h"

static Datum
names_datum(char **names, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		Name		nm = palloc0(NAMEDATALEN);

		namestrcpy(nm, names[i]);
		elems[i] = NameGetDatum(nm);
	}
	return PointerGetDatum(construct_array(elems, n, NAMEOID, NAMEDATALEN, false,
										   TYPALIGN_CHAR));
}

/* Raised while adjlist writes the registry itself. */
static int	writing_depth = 0;

bool
registry_written_by_adjlist(void)
{
	return writing_depth > 0;
}

void
registry_invalidate(Oid baserel)
{
	CacheInvalidateRelcacheByRelid(adjlist_catalog()->registry);
	if (OidIsValid(baserel))
		CacheInvalidateRelcacheByRelid(baserel);
}

/* Run one statement on the registry as its owner. */
static void
registry_exec(const char *sql, int nargs, Oid *types, Datum *values,
			  const char *nulls, int expected)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	AdjlistRoleSwitch save;
	int			ret;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(cat->registry_owner, &save);
	writing_depth++;
	PG_TRY();
	{
		ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	}
	PG_FINALLY();
	{
		writing_depth--;
	}
	PG_END_TRY();
	adjlist_unbecome(&save);
	if (ret != expected)
		elog(ERROR, "registry update failed: %s", SPI_result_code_string(ret));
	SPI_finish();
	/* writers of the base table must see the change at once */
	CacheInvalidateRelcacheByRelid(cat->registry);
}

void
registry_insert(const RegistryRow *row)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[10] = {OIDOID, OIDOID, NAMEARRAYOID, INT4OID, OIDOID,
	NAMEARRAYOID, TEXTOID, INT4OID, BOOLOID, TEXTOID};
	Datum		values[10];
	char		nulls[10] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	char	   *sql;
	bool		new_columns = !row->ready || row->predicate != NULL;

	values[0] = ObjectIdGetDatum(row->indexrel);
	values[1] = ObjectIdGetDatum(row->baserel);
	values[2] = names_datum(row->colnames, row->ncols);
	values[3] = Int32GetDatum(row->nkeys);
	values[4] = ObjectIdGetDatum(row->counterrel);
	if (!OidIsValid(row->counterrel))
		nulls[4] = 'n';
	values[5] = names_datum(row->base_key, row->nbasekey);
	values[6] = CStringGetTextDatum(row->mode == INDEX_MODE_API ? "api" : "trigger");
	values[7] = Int32GetDatum(row->write_shards);
	values[8] = BoolGetDatum(row->ready);
	values[9] = row->predicate ? CStringGetTextDatum(row->predicate) : (Datum) 0;
	if (row->predicate == NULL)
		nulls[9] = 'n';
	/* (the registry of 0.1 and 0.2 has neither column: ready, no predicate) */
	sql = psprintf("INSERT INTO %s.adjlist_inverted_indexes "
				   "(indexrel, baserel, columns, nkeys, counterrel, counter_shards, "
				   "base_key, mode, write_shards%s) "
				   "VALUES ($1::pg_catalog.regclass, $2::pg_catalog.regclass, $3, $4, "
				   "$5::pg_catalog.regclass, "
				   "CASE WHEN $5 IS NULL THEN 0 ELSE 1 END, $6, $7, $8%s)",
				   cat->nspname, new_columns ? ", ready, predicate" : "",
				   new_columns ? ", $9, $10" : "");
	registry_exec(sql, new_columns ? 10 : 8, types, values, nulls, SPI_OK_INSERT);
	if (row->predicate_expr != NULL)
		registry_bind_predicate(row->indexrel, row->predicate_expr);
	CacheInvalidateRelcacheByRelid(row->baserel);
}

void
registry_bind_predicate(Oid indexrel, const char *bound)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[3] = {OIDOID, PG_NODE_TREEOID, INT8OID};
	Datum		values[3];

	values[0] = ObjectIdGetDatum(indexrel);
	values[1] = CStringGetTextDatum(bound);
	values[2] = Int64GetDatum((int64) GetSystemIdentifier());
	registry_exec(psprintf("DELETE FROM %s.adjlist_index_predicates "
						   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
						   cat->nspname), 1, types, values, NULL, SPI_OK_DELETE);
	registry_exec(psprintf("INSERT INTO %s.adjlist_index_predicates "
						   "(indexrel, expr, system_identifier) "
						   "VALUES ($1::pg_catalog.regclass, $2, $3)", cat->nspname),
				  3, types, values, NULL, SPI_OK_INSERT);
}

void
registry_set_predicate_text(Oid indexrel, const char *text)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];

	values[0] = ObjectIdGetDatum(indexrel);
	values[1] = CStringGetTextDatum(text);
	registry_exec(psprintf("UPDATE %s.adjlist_inverted_indexes SET predicate = $2 "
						   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
						   cat->nspname), 2, types, values, NULL, SPI_OK_UPDATE);
}

/* Run a statement whose one parameter ($1) is relid, as registry_exec(). */
static void
registry_exec_on(const char *sql, Oid relid, int expected)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1];

	values[0] = ObjectIdGetDatum(relid);
	registry_exec(sql, 1, types, values, NULL, expected);
}

void
registry_delete(Oid indexrel)
{
	const AdjlistCatalog *cat = adjlist_catalog();

	registry_exec_on(psprintf("DELETE FROM %s.adjlist_inverted_indexes "
							  "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  cat->nspname), indexrel, SPI_OK_DELETE);
	/* (a registry of 0.1 or 0.2 has no bound predicates) */
	if (OidIsValid(get_relname_relid("adjlist_index_predicates", cat->namespace)))
		registry_exec_on(psprintf("DELETE FROM %s.adjlist_index_predicates "
								  "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
								  cat->nspname), indexrel, SPI_OK_DELETE);
}

void
registry_set_ready(Oid indexrel, bool ready)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			base = registry_base_of_index(indexrel);

	registry_exec_on(psprintf("UPDATE %s.adjlist_inverted_indexes SET ready = %s "
							  "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass "
							  "AND ready OPERATOR(pg_catalog.<>) %s",
							  cat->nspname, ready ? "true" : "false", ready ? "true" : "false"),
					 indexrel, SPI_OK_UPDATE);
	if (OidIsValid(base))
		CacheInvalidateRelcacheByRelid(base);
}

void
registry_forget_counters(Oid counterrel)
{
	registry_exec_on(psprintf("UPDATE %s.adjlist_inverted_indexes "
							  "SET counterrel = NULL, counter_shards = 0 "
							  "WHERE counterrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  adjlist_catalog()->nspname), counterrel, SPI_OK_UPDATE);
}

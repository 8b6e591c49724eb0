/*-------------------------------------------------------------------------
 *
 * registry_check.c
 *	  Checking a registered inverted index against the catalogs: what
 *	  registry.c's header calls the re-check at use.  The index table
 *	  exists, is a user table with the base table's owner, has every
 *	  registered column with the type that column has in the base table,
 *	  a primary key that fits the index's key, a bound predicate over
 *	  columns that still exist, and a counter table of the right shape.
 *
 * A failed check is an IndexProblem: the message a reader or writer raises
 * (naming the index), and for a column the base table lost, the message
 * the DDL that dropped or renamed it is refused with (registry_check_ddl()).
 * registry.c caches the outcome with the entry, so a check runs once per
 * invalidation, not per row.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_predicate.h"
#include "registry.h"
#include "registry_int.h"

#define DDL_COLUMN_DETAIL "A column that an inverted index uses (a key, projected, expiry or predicate column) cannot be dropped or renamed."

static bool
problem(IndexProblem *p, char *msg, char *detail)
{
	p->msg = msg;
	p->detail = detail;
	return false;
}

/*
 * problem() for column colname of the base table, which the table does not
 * have: after DDL, the DDL dropped or renamed a column the index uses.
 */
static bool
column_problem(IndexProblem *p, char *msg, char *detail, char *ddl_msg, const char *ddl_detail)
{
	p->ddl_msg = ddl_msg;
	p->ddl_detail = detail ? psprintf("%s %s", ddl_detail, detail) : pstrdup(ddl_detail);
	return problem(p, msg, detail);
}

/* A user table adjlist may write: not a catalog, not in a system schema. */
static bool
is_user_table(Oid relid, Form_pg_class c)
{
	return relid >= FirstNormalObjectId &&
		!IsCatalogNamespace(c->relnamespace) &&
		!IsToastNamespace(c->relnamespace) &&
		(c->relkind == RELKIND_RELATION ||
		 c->relkind == RELKIND_PARTITIONED_TABLE ||
		 c->relkind == RELKIND_FOREIGN_TABLE);
}

/* The owner of a table that adjlist may write, or InvalidOid. */
Oid
registry_table_owner(Oid relid, char **name)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class c;
	Oid			owner = InvalidOid;

	*name = NULL;
	if (!HeapTupleIsValid(tp))
		return InvalidOid;
	c = (Form_pg_class) GETSTRUCT(tp);
	*name = pstrdup(NameStr(c->relname));
	if (is_user_table(relid, c))
		owner = c->relowner;
	ReleaseSysCache(tp);
	return owner;
}

/* The type of a live column, or InvalidOid. */
static Oid
column_type(Oid relid, const char *col)
{
	AttrNumber	a = get_attnum(relid, col);

	return a > 0 ? get_atttype(relid, a) : InvalidOid;
}

/* "(a, b)": the key columns of an index, by name. */
static char *
index_columns_text(Oid relid, Form_pg_index idx)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	for (int i = 0; i < idx->indnkeyatts; i++)
	{
		AttrNumber	a = idx->indkey.values[i];

		appendStringInfo(&buf, "%s%s", i ? ", " : "",
						 a > 0 ? quote_identifier(get_attname(relid, a, false)) : "an expression");
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

static char *
names_text(char *const *names, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(names[i]));
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/*
 * registry_key_problem() for one table: the index table or one of its
 * partitions.  Read from pg_index (no lock on the table needed).
 */
static char *
table_key_problem(Oid relid, char *const *colnames, int nkeys, char **detail)
{
	Relation	pgindex = table_open(IndexRelationId, AccessShareLock);
	AttrNumber *keyatt = palloc(sizeof(AttrNumber) * nkeys);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *msg = NULL;

	for (int i = 0; i < nkeys; i++)
		keyatt[i] = get_attnum(relid, colnames[i]);
	ScanKeyInit(&key, Anum_pg_index_indrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(pgindex, IndexIndrelidIndexId, true, NULL, 1, &key);
	while (msg == NULL && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_index idx = (Form_pg_index) GETSTRUCT(tup);
		bool		ok = true;

		if (idx->indisprimary)
		{
			ok = idx->indnkeyatts == nkeys;
			for (int i = 0; ok && i < nkeys; i++)
				ok = idx->indkey.values[i] == keyatt[i];
			if (!ok)
			{
				msg = psprintf("the primary key of table \"%s\" is not the key of its inverted index",
							   get_rel_name(relid));
				*detail = psprintf("The primary key is %s; an index table's primary key, when it has one, is %s, in that order.",
								   index_columns_text(relid, idx), names_text(colnames, nkeys));
			}
			continue;
		}
		if (idx->indisexclusion)
		{
			msg = psprintf("table \"%s\" has an exclusion constraint", get_rel_name(relid));
			*detail = psprintf("Index rows with different keys %s could conflict in constraint \"%s\".",
							   names_text(colnames, nkeys), get_rel_name(idx->indexrelid));
			continue;
		}
		if (!idx->indisunique)
			continue;
		for (int i = 0; ok && i < nkeys; i++)
		{
			ok = false;
			for (int j = 0; !ok && j < idx->indnkeyatts; j++)
				ok = idx->indkey.values[j] == keyatt[i];
		}
		if (!ok)
		{
			msg = psprintf("unique index \"%s\" of table \"%s\" does not include every key column of its inverted index",
						   get_rel_name(idx->indexrelid), get_rel_name(relid));
			*detail = psprintf("It is on %s; index rows with different keys %s could conflict in it.",
							   index_columns_text(relid, idx), names_text(colnames, nkeys));
		}
	}
	systable_endscan(scan);
	table_close(pgindex, AccessShareLock);
	return msg;
}

char *
registry_key_problem(Oid indexrel, char *const *colnames, int nkeys, char **detail)
{
	List	   *tables;
	ListCell   *lc;

	*detail = NULL;
	if (get_rel_relkind(indexrel) != RELKIND_PARTITIONED_TABLE)
		return table_key_problem(indexrel, colnames, nkeys, detail);
	tables = find_all_inheritors(indexrel, NoLock, NULL);
	foreach(lc, tables)
	{
		char	   *msg = table_key_problem(lfirst_oid(lc), colnames, nkeys, detail);

		if (msg != NULL)
			return msg;
	}
	return NULL;
}

/*
 * A sparse index's predicate: bound, and every column it reads still there
 * with its name and type (a renamed, dropped or retyped column: the DDL
 * that did it is refused).
 */
static bool
check_predicate(const IndexDef *d, const char *idxname, const char *basename, IndexProblem *p)
{
	ListCell   *lc;

	foreach(lc, index_predicate_columns(d->predicate))
		if (!OidIsValid(column_type(d->baserel, (char *) lfirst(lc))))
			return column_problem(p, psprintf("the predicate of inverted index \"%s\" uses column \"%s\", which table \"%s\" does not have",
											  idxname, (char *) lfirst(lc), basename),
								  psprintf("The predicate is: %s", d->predicate),
								  psprintf("the predicate of inverted index \"%s\" uses column \"%s\" of table \"%s\"",
										   idxname, (char *) lfirst(lc), basename),
								  DDL_COLUMN_DETAIL);
	if (d->predicate_expr == NULL)
		return problem(p, psprintf("the predicate of inverted index \"%s\" is not bound to the objects it names",
								   idxname),
					   pstrdup("Its registry row was restored without adjlist's triggers (pg_restore --disable-triggers)."));
	if (index_predicate_columns_changed(d->baserel, d->predicate_expr))
		return problem(p, psprintf("a column that the predicate of inverted index \"%s\" reads changed its type",
								   idxname),
					   psprintf("The predicate is: %s", d->predicate));
	return true;
}

bool
registry_check_index(IndexDef *d, Oid base_owner, const char *basename, IndexProblem *p)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	char	   *idxname;
	Oid			owner = registry_table_owner(d->indexrel, &idxname);
	char	   *msg;
	char	   *detail;

	if (idxname == NULL)
		return problem(p, psprintf("the index table of an inverted index of table \"%s\" does not exist",
								   basename), NULL);
	if (!OidIsValid(owner))
		return problem(p, psprintf("\"%s\" cannot be an inverted index", idxname),
					   pstrdup("An inverted index must be a table of a user schema."));
	if (owner != base_owner)
		return problem(p, psprintf("inverted index \"%s\" is not owned by the owner of table \"%s\"",
								   idxname, basename),
					   pstrdup("An index table must have the owner of its base table."));
	if (get_rel_relkind(d->indexrel) == RELKIND_PARTITIONED_TABLE)
	{
		List	   *parts = find_all_inheritors(d->indexrel, NoLock, NULL);
		ListCell   *lc;

		foreach(lc, parts)
		{
			char	   *partname;

			if (registry_table_owner(lfirst_oid(lc), &partname) != base_owner)
				return problem(p, psprintf("partition \"%s\" of inverted index \"%s\" is not owned by the owner of table \"%s\"",
										   partname ? partname : "?", idxname, basename),
							   pstrdup("An index table and its partitions must have the owner of its base table."));
		}
	}
	for (int i = 0; i < d->ncols; i++)
	{
		Oid			bt = column_type(d->baserel, d->colnames[i]);
		Oid			it = column_type(d->indexrel, d->colnames[i]);

		if (!OidIsValid(bt))
			return column_problem(p, psprintf("inverted index \"%s\" uses column \"%s\", which table \"%s\" does not have",
											  idxname, d->colnames[i], basename), NULL,
								  psprintf("inverted index \"%s\" uses column \"%s\" of table \"%s\"",
										   idxname, d->colnames[i], basename),
								  DDL_COLUMN_DETAIL);
		if (!OidIsValid(it))
			return problem(p, psprintf("inverted index \"%s\" has no column \"%s\"",
									   idxname, d->colnames[i]), NULL);
		if (bt != it)
			return problem(p, psprintf("column \"%s\" of inverted index \"%s\" does not have the type it has in table \"%s\"",
									   d->colnames[i], idxname, basename),
						   psprintf("It is %s in the index and %s in the table.",
									format_type_be(it), format_type_be(bt)));
		if (i < 2 && bt != cat->keytype)
			return problem(p, psprintf("key column \"%s\" of inverted index \"%s\" is not of type adjkey",
									   d->colnames[i], idxname), NULL);
		d->coltypes[i] = bt;
		get_typlenbyval(bt, &d->typlens[i], &d->typbyvals[i]);
	}
	if ((msg = registry_key_problem(d->indexrel, d->colnames, d->nkeys, &detail)) != NULL)
		return problem(p, msg, detail);
	for (int i = 0; i < d->nbasekey; i++)
		if (!OidIsValid(column_type(d->baserel, d->base_key[i])))
			return column_problem(p, psprintf("table \"%s\" has no column \"%s\" of its registered key",
											  basename, d->base_key[i]), NULL,
								  psprintf("inverted index \"%s\" uses column \"%s\" of table \"%s\"",
										   idxname, d->base_key[i], basename),
								  "A column of the key registered for a table's inverted indexes cannot be dropped or renamed.");
	if (d->predicate != NULL && !check_predicate(d, idxname, basename, p))
		return false;
	if (OidIsValid(d->counterrel))
	{
		char	   *cntname;
		Oid			cowner = registry_table_owner(d->counterrel, &cntname);

		if (cntname == NULL || cowner != base_owner)
			return problem(p, psprintf("the degree counters of inverted index \"%s\" are missing or not owned by the owner of table \"%s\"",
									   idxname, basename), NULL);
		d->counter_legacy = (column_type(d->counterrel, "shard") == INT2OID);
		if (column_type(d->counterrel, "node") != cat->keytype ||
			column_type(d->counterrel, "edge") != TEXTOID ||
			column_type(d->counterrel, "direction") != CHAROID ||
			column_type(d->counterrel, "n") != INT8OID)
			return problem(p, psprintf("degree counter table \"%s\" does not have the columns node adjkey, edge text, direction \"char\" and n bigint",
									   cntname), NULL);
	}
	return true;
}

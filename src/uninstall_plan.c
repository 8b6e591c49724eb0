/*-------------------------------------------------------------------------
 *
 * uninstall_plan.c
 *	  adjlist_uninstall(): everything that depends on the extension, found
 *	  and sorted before anything is changed.
 *
 * DROP EXTENSION refuses while an object outside the extension depends
 * (pg_depend, normal dependency) on one inside it.  The plan reads those
 * dependents the way it does -- every member, its array types and
 * operator-family entries included -- plus what depends on the adjkey
 * columns themselves (ALTER COLUMN ... TYPE refuses under a view or a
 * generated column), and sorts each into:
 *
 *	  - gone with the inverted indexes (index and counter tables, their
 *		triggers, the sync triggers of the base tables): nothing to do;
 *	  - an adjkey column of a table: becomes text, with the indexes and
 *		constraints PostgreSQL rebuilds itself on a type change; of a
 *		foreign table: ALTER FOREIGN TABLE, no USING clause (PostgreSQL
 *		refuses one there), the remote table untouched;
 *	  - a column default, a CHECK constraint, a partial index's predicate
 *		or a view: rewritten to text (uninstall_rewrite.c) and re-created
 *		after the type change, under the same name, from the rewritten
 *		tree -- a view with its options, owner, grants and comments, and
 *		the views over it, dropped and re-created in dependency order; a
 *		foreign key between key columns: dropped and added again as it was;
 *	  - anything else (a generated column, a function or trigger that uses
 *		adjlist, a domain over adjkey, an expression that has no exact text
 *		equivalent, a table partitioned by a key column -- PostgreSQL cannot
 *		change a partition key's type, and rebuilding the table and moving
 *		its rows, or its foreign partitions' routing, is the owner's call):
 *		refused.
 *
 * Every refusal is collected before the first error, so that one 2BP01
 * lists them all; adjlist_uninstall() changes nothing until the plan is
 * complete.  The statements are written here, from the catalogs as they
 * are before the change, schema-qualified where a name is not visible.
 *
 * Each statement runs as the owner of the table or view it changes
 * (uninstall.c), so the plan also checks, before anything changes, that
 * this owner can run it: that it has the privileges of the owner of every
 * partition and inheritance child ALTER TABLE recurses into, CREATE on the
 * schema of a view or partial index it re-creates, and REFERENCES on the
 * columns a foreign key it adds again refers to.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/dependency.h"
#include "catalog/index.h"
#include "catalog/objectaddress.h"
#include "catalog/partition.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_rewrite.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "rewrite/rewriteHandler.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "catalog.h"
#include "compat.h"
#include "registry.h"
#include "uninstall.h"

/* A partial index re-created on text. */
typedef struct PlanIndex
{
	Oid			oid;
	int			depth;			/* partition ancestors: leaves are created first */
	bool		has_parent;		/* dropped with its parent index */
	Oid			owner;			/* its table's, who re-creates it */
	char	   *qname;
	char	   *create;
} PlanIndex;

/* A view re-created on text. */
typedef struct PlanView
{
	Oid			oid;
	char	   *qname;
	char	   *create;
	Oid			owner;			/* who re-creates it */
	bool		emitted;
} PlanView;

typedef struct UninstallState
{
	UninstallPlan *plan;
	UninstallTypes types;
	Oid		   *indexes;		/* registrations: dropped by adjlist_uninstall */
	Oid		   *bases;
	Oid		   *counters;
	int			nreg;
	List	   *refused;		/* char *: one line of the error's detail each */
	List	   *refused_keys;	/* char *: the object of each line */
	List	   *done;			/* char *: "classid/objid/objsubid" classified */
	List	   *views;			/* Oid, in the order found */
	List	   *view_after;		/* Oid pairs (view, a view it reads) */
	List	   *view_before;
	List	   *plan_indexes;	/* PlanIndex */
	bool		partition_keys; /* a table partitioned by a key is refused */
} UninstallState;

/*
 * The objects outside the extension that depend on one inside it (kind 1),
 * and those that depend on an adjkey column of a table (kind 2); one row
 * each, with one of the objects it depends on.  The extension's objects
 * are its members and what goes with them (deptype internal or auto: array
 * types, operator-family entries, the columns and triggers of its tables).
 */
#define MEMBERS_CTE \
	"WITH RECURSIVE m(classid, objid) AS (" \
	" SELECT classid, objid FROM pg_catalog.pg_depend" \
	" WHERE refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass" \
	" AND refobjid OPERATOR(pg_catalog.=) $1 AND deptype OPERATOR(pg_catalog.=) 'e'" \
	" UNION SELECT d.classid, d.objid FROM pg_catalog.pg_depend d JOIN m" \
	" ON d.refclassid OPERATOR(pg_catalog.=) m.classid AND d.refobjid OPERATOR(pg_catalog.=) m.objid" \
	" WHERE d.deptype OPERATOR(pg_catalog.=) ANY ('{i,a}'::pg_catalog.\"char\"[])) "
#define DEPENDENTS_SQL \
	"SELECT DISTINCT ON (d.classid, d.objid, d.objsubid) 1, d.classid, d.objid, d.objsubid," \
	" d.refclassid, d.refobjid, d.refobjsubid" \
	" FROM pg_catalog.pg_depend d JOIN m" \
	" ON d.refclassid OPERATOR(pg_catalog.=) m.classid AND d.refobjid OPERATOR(pg_catalog.=) m.objid" \
	" WHERE d.deptype OPERATOR(pg_catalog.=) 'n' AND NOT EXISTS (SELECT FROM m m2" \
	" WHERE m2.classid OPERATOR(pg_catalog.=) d.classid AND m2.objid OPERATOR(pg_catalog.=) d.objid)" \
	" ORDER BY d.classid, d.objid, d.objsubid," \
	" d.refclassid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_type'::pg_catalog.regclass, d.refobjid"
#define COLUMN_DEPENDENTS_SQL \
	"SELECT DISTINCT ON (d.classid, d.objid, d.objsubid) 2, d.classid, d.objid, d.objsubid," \
	" d.refclassid, d.refobjid, d.refobjsubid" \
	" FROM pg_catalog.pg_attribute a" \
	" JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid" \
	" JOIN pg_catalog.pg_depend d ON d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass" \
	" AND d.refobjid OPERATOR(pg_catalog.=) a.attrelid AND d.refobjsubid OPERATOR(pg_catalog.=) a.attnum" \
	" WHERE a.atttypid OPERATOR(pg_catalog.=) ANY ($2) AND a.attnum OPERATOR(pg_catalog.>) 0" \
	" AND NOT a.attisdropped AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,f}'::pg_catalog.\"char\"[])" \
	" AND d.classid OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.pg_rewrite'::pg_catalog.regclass," \
	" 'pg_catalog.pg_attrdef'::pg_catalog.regclass, 'pg_catalog.pg_policy'::pg_catalog.regclass," \
	" 'pg_catalog.pg_trigger'::pg_catalog.regclass]::pg_catalog.oid[])" \
	" ORDER BY d.classid, d.objid, d.objsubid, d.refobjid, d.refobjsubid"

static char *
describe(Oid classid, Oid objid, int32 objsubid)
{
	ObjectAddress addr;

	addr.classId = classid;
	addr.objectId = objid;
	addr.objectSubId = objsubid;
	return getObjectDescription(&addr, false);
}

/* one line of the refusal, once per object (key) */
static void
refuse_once(UninstallState *ps, const char *key, char *line)
{
	ListCell   *lc;

	foreach(lc, ps->refused_keys)
		if (strcmp((char *) lfirst(lc), key) == 0)
			return;
	ps->refused_keys = lappend(ps->refused_keys, pstrdup(key));
	ps->refused = lappend(ps->refused, line);
}

/* "what depends on ref" */
static void
refuse_dependent(UninstallState *ps, const char *what, const char *ref)
{
	refuse_once(ps, what, psprintf("%s depends on %s", what, ref));
}

/* "what: why" */
static void
refuse(UninstallState *ps, const char *what, const char *why)
{
	refuse_once(ps, what, psprintf("%s: %s", what, why));
}

static void
step(List **steps, Oid owner, char *sql, char *action, char *object)
{
	UninstallStep *s = palloc(sizeof(UninstallStep));

	s->owner = owner;
	s->sql = sql;
	s->action = action;
	s->object = object;
	*steps = lappend(*steps, s);
}

static bool
oid_in(Oid oid, const Oid *oids, int n)
{
	for (int i = 0; i < n; i++)
		if (oids[i] == oid)
			return true;
	return false;
}

/* rel, or a partition ancestor of it, is one of oids */
static bool
rel_or_ancestor_in(Oid rel, const Oid *oids, int n)
{
	ListCell   *lc;
	List	   *ancestors;

	if (oid_in(rel, oids, n))
		return true;
	if (!get_rel_relispartition(rel))
		return false;
	ancestors = get_partition_ancestors(rel);
	foreach(lc, ancestors)
		if (oid_in(lfirst_oid(lc), oids, n))
			return true;
	return false;
}

/* dropped with the inverted indexes, or one of the extension's own tables */
static bool
rel_goes_away(UninstallState *ps, Oid rel)
{
	return rel_or_ancestor_in(rel, ps->indexes, ps->nreg) ||
		rel_or_ancestor_in(rel, ps->counters, ps->nreg) ||
		getExtensionOfObject(RelationRelationId, rel) == ps->types.extension;
}

static void
require_owner(Oid rel, const char *what)
{
	if (!adjlist_rel_ownercheck(rel, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of %s %s to %s",
						get_rel_relkind(rel) == RELKIND_VIEW ? "view" : "table",
						get_rel_name(rel), what),
				 errhint("Run adjlist_uninstall() as a superuser, or as a role that owns every table and view it changes.")));
}

/*
 * The role the statements that change rel run as: its owner.  ALTER TABLE
 * recurses into the partitions and inheritance children, asks that role to
 * own each, and re-checks their constraints (functions of their owners') as
 * that role: a member is refused, before anything changes, unless the two
 * owners have each other's privileges (are the same role, most often), so
 * that nobody's function runs with rights its owner does not have.
 */
static Oid
statement_owner(Oid rel)
{
	Oid			owner = adjlist_rel_owner(rel);
	List	   *members;
	ListCell   *lc;

	if (!has_subclass(rel))
		return owner;
	members = find_all_inheritors(rel, NoLock, NULL);
	foreach(lc, members)
	{
		Oid			member = lfirst_oid(lc);
		Oid			member_owner = adjlist_rel_owner(member);

		if (!has_privs_of_role(owner, member_owner) || !has_privs_of_role(member_owner, owner))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("%s %s is owned by role \"%s\", and table %s by role \"%s\"",
							get_rel_relispartition(member) ? "partition" : "inheritance child",
							adjlist_qualified_name(member), GetUserNameFromId(member_owner, false),
							adjlist_qualified_name(rel), GetUserNameFromId(owner, false)),
					 errdetail("adjlist_uninstall() changes a table, with its partitions and inheritance children, as the table's owner, so that no function of an owner's runs with another role's rights."),
					 errhint("Give the table and its partitions or children one owner (ALTER TABLE ... OWNER TO), then run adjlist_uninstall() again. Nothing was changed.")));
	}
	return owner;
}

/* CREATE on rel's schema, which re-creating a view or an index as owner needs */
static void
require_create(Oid rel, Oid owner, const char *what)
{
	Oid			nsp = get_rel_namespace(rel);
	AclResult	acl;

#if PG_VERSION_NUM >= 160000
	acl = object_aclcheck(NamespaceRelationId, nsp, owner, ACL_CREATE);
#else
	acl = pg_namespace_aclcheck(nsp, owner, ACL_CREATE);
#endif
	if (acl != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("role \"%s\" may not create objects in schema %s, and adjlist_uninstall() re-creates its %s there as that role",
						GetUserNameFromId(owner, false), quote_identifier(get_namespace_name(nsp)), what),
				 errhint("GRANT CREATE ON SCHEMA %s TO %s (for the time of adjlist_uninstall()), then run it again. Nothing was changed.",
						 quote_identifier(get_namespace_name(nsp)),
						 quote_identifier(GetUserNameFromId(owner, false)))));
}

/*
 * Run a catalog query whose one parameter ($1) is an OID (at most limit
 * rows; 0: all), read-only unless it must see this transaction's latest
 * changes; the rows are in SPI_tuptable.  Returns how many.
 */
static uint64
catalog_rows(const char *sql, Oid oid, long limit, bool read_only)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1] = {ObjectIdGetDatum(oid)};

	if (SPI_execute_with_args(sql, 1, argtypes, args, NULL, read_only, limit) != SPI_OK_SELECT)
		elog(ERROR, "could not read the catalog: %s", sql);
	return SPI_processed;
}

/* one row of a catalog query by OID, or NULL; the values as text */
static char **
catalog_row(const char *sql, Oid oid, int ncols)
{
	char	  **vals;

	if (catalog_rows(sql, oid, 1, true) == 0)
		return NULL;
	vals = palloc(sizeof(char *) * ncols);
	for (int i = 0; i < ncols; i++)
		vals[i] = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1);
	return vals;
}

/* sql, and the statement that puts back the comment of an object it re-creates */
static char *
with_comment(char *sql, Oid oid, const char *catalog, const char *target)
{
	char	  **row = catalog_row(psprintf("SELECT pg_catalog.obj_description($1, %s)",
										   quote_literal_cstr(catalog)), oid, 1);

	if (row == NULL || row[0] == NULL)
		return sql;
	return psprintf("%s;\nCOMMENT ON %s IS %s", sql, target, quote_literal_cstr(row[0]));
}

static Oid
oid_value(const char *s)
{
	return s == NULL ? InvalidOid : (Oid) strtoul(s, NULL, 10);
}

/* an expression of rel rewritten and deparsed, or NULL (refused, with why) */
static char *
rewritten_sql(UninstallState *ps, Oid rel, const char *nodetext, char *what)
{
	const char *problem;
	Node	   *expr = uninstall_rewrite(stringToNode(nodetext), &problem);

	if (expr == NULL)
	{
		refuse(ps, what, problem);
		return NULL;
	}
	return deparse_expression(expr, deparse_context_for(get_rel_name(rel), rel), false, false);
}

/* a column default (not a generated column's) */
static void
plan_default(UninstallState *ps, Oid attrdef, char *ref, bool of_column)
{
	char	  **row = catalog_row("SELECT adrelid, adnum, adbin FROM pg_catalog.pg_attrdef"
								  " WHERE oid OPERATOR(pg_catalog.=) $1", attrdef, 3);
	Oid			rel;
	AttrNumber	attnum;
	char	   *col;
	char	   *qrel;
	char	   *sql;
	Oid			owner;

	if (row == NULL || rel_goes_away(ps, (rel = oid_value(row[0]))))
		return;
	attnum = (AttrNumber) atoi(row[1]);
	col = get_attname(rel, attnum, false);
	qrel = adjlist_qualified_name(rel);
	if (get_attgenerated(rel, attnum) != '\0')
	{
		refuse(ps, psprintf("generated column %s of table %s", quote_identifier(col), qrel),
			   psprintf("%s, and PostgreSQL cannot change %s (ALTER TABLE %s ALTER COLUMN %s DROP EXPRESSION keeps its values as a plain column)",
						psprintf(of_column ? "it is computed from %s" : "it uses %s", ref),
						of_column ? "the type of a column a generated column uses" : "a generation expression",
						qrel, quote_identifier(col)));
		return;
	}
	if (of_column)
		return;					/* its own column's: found as kind 1 if it uses keys */
	if (get_rel_relkind(rel) == RELKIND_VIEW)
	{
		refuse_dependent(ps, describe(AttrDefaultRelationId, attrdef, 0), ref);
		return;
	}
	require_owner(rel, "rewrite its column defaults");
	sql = rewritten_sql(ps, rel, row[2], describe(AttrDefaultRelationId, attrdef, 0));
	if (sql == NULL)
		return;
	owner = statement_owner(rel);
	step(&ps->plan->before, owner, psprintf("ALTER TABLE ONLY %s ALTER COLUMN %s DROP DEFAULT",
											qrel, quote_identifier(col)), NULL, NULL);
	step(&ps->plan->after, owner, psprintf("ALTER TABLE ONLY %s ALTER COLUMN %s SET DEFAULT %s",
										   qrel, quote_identifier(col), sql),
		 "re-created column default", psprintf("%s.%s DEFAULT %s", qrel, quote_identifier(col), sql));
}

/* a constraint of a table: CHECK rewritten, FOREIGN KEY added again as it is */
static void
plan_constraint(UninstallState *ps, Oid con, char *ref)
{
	char	  **row = catalog_row("SELECT conrelid, contype, conname, coninhcount, conislocal,"
								  " connoinherit, convalidated, conparentid, conbin, confrelid,"
								  " (SELECT pg_catalog.bool_and(pg_catalog.has_column_privilege(c.relowner,"
								  "  confrelid, a, 'REFERENCES')) FROM pg_catalog.unnest(confkey) a)"
								  " FROM pg_catalog.pg_constraint LEFT JOIN pg_catalog.pg_class c"
								  " ON c.oid OPERATOR(pg_catalog.=) conrelid"
								  " WHERE pg_catalog.pg_constraint.oid OPERATOR(pg_catalog.=) $1", con, 11);
	Oid			rel;
	Oid			owner;
	char	   *qrel;
	char	   *sql;
	char	   *drop;

	if (row == NULL || !OidIsValid(rel = oid_value(row[0])))
	{
		refuse_dependent(ps, describe(ConstraintRelationId, con, 0), ref);
		return;
	}
	if (rel_goes_away(ps, rel) || OidIsValid(oid_value(row[7])) ||
		(atoi(row[3]) > 0 && row[4][0] == 'f') || row[1][0] == 'p' || row[1][0] == 'u')
		return;					/* its parent's, or rebuilt by the type change */
	qrel = adjlist_qualified_name(rel);
	drop = psprintf("ALTER TABLE %s DROP CONSTRAINT %s", qrel, quote_identifier(row[2]));
	if (row[1][0] == 'f')
	{
		require_owner(rel, "add its foreign keys again");
		owner = statement_owner(rel);
		if (row[10] == NULL || row[10][0] != 't')
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("role \"%s\", the owner of table %s, may not reference table %s, and adjlist_uninstall() adds foreign key %s again as that role",
							GetUserNameFromId(owner, false), qrel,
							adjlist_qualified_name(oid_value(row[9])), quote_identifier(row[2])),
					 errhint("GRANT REFERENCES ON %s TO %s, then run adjlist_uninstall() again. Nothing was changed.",
							 adjlist_qualified_name(oid_value(row[9])),
							 quote_identifier(GetUserNameFromId(owner, false)))));
		step(&ps->plan->before, owner, drop, NULL, NULL);
		step(&ps->plan->after, owner,
			 with_comment(pg_get_constraintdef_command(con), con, "pg_constraint",
						  psprintf("CONSTRAINT %s ON %s", quote_identifier(row[2]), qrel)),
			 "added foreign key again", psprintf("%s ON %s", quote_identifier(row[2]), qrel));
		return;
	}
	if (row[1][0] != 'c' || atoi(row[3]) > 0)
	{
		refuse_dependent(ps, describe(ConstraintRelationId, con, 0), ref);
		return;
	}
	require_owner(rel, "rewrite its CHECK constraints");
	sql = rewritten_sql(ps, rel, row[8], describe(ConstraintRelationId, con, 0));
	if (sql == NULL)
		return;
	owner = statement_owner(rel);
	step(&ps->plan->before, owner, drop, NULL, NULL);
	step(&ps->plan->after, owner,
		 with_comment(psprintf("ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s)%s%s",
							   qrel, quote_identifier(row[2]), sql,
							   row[5][0] == 't' ? " NO INHERIT" : "",
							   row[6][0] == 't' ? "" : " NOT VALID"),
					  con, "pg_constraint", psprintf("CONSTRAINT %s ON %s", quote_identifier(row[2]), qrel)),
		 "re-created check constraint", psprintf("%s ON %s CHECK %s", quote_identifier(row[2]), qrel, sql));
}

/*
 * An index: left to the type change (which rebuilds it from its
 * definition) unless its predicate uses keys, then re-created with the
 * predicate rewritten; one whose key expressions would change is refused.
 */
static void
plan_index(UninstallState *ps, Oid idx)
{
	char	  **row = catalog_row("SELECT indrelid, indisexclusion, indexprs, indpred"
								  " FROM pg_catalog.pg_index WHERE indexrelid OPERATOR(pg_catalog.=) $1", idx, 4);
	Oid			rel = oid_value(row[0]);
	char	   *what = describe(RelationRelationId, idx, 0);
	List	   *context = deparse_context_for(get_rel_name(rel), rel);
	char	   *def;
	char	   *suffix;
	char	   *pred;
	const char *problem;
	PlanIndex  *pi;

	if (rel_goes_away(ps, rel))
		return;
	if (row[1][0] == 't')
	{
		refuse(ps, what, "it backs an exclusion constraint on keys");
		return;
	}
	if (row[2] != NULL)
	{
		Node	   *exprs = stringToNode(row[2]);
		Node	   *rewritten = uninstall_rewrite(exprs, &problem);

		if (rewritten == NULL ||
			strcmp(deparse_expression(exprs, context, false, false),
				   deparse_expression(rewritten, context, false, false)) != 0)
		{
			refuse(ps, what, "its key expressions use adjlist's types, functions or operators");
			return;
		}
	}
	if (row[3] == NULL)
		return;
	pred = rewritten_sql(ps, rel, row[3], what);
	if (pred == NULL)
		return;
	def = pg_get_indexdef_string(idx);
	suffix = psprintf(" WHERE %s", deparse_expression(stringToNode(row[3]),
													  context, false, false));
	if (strlen(def) <= strlen(suffix) || strcmp(def + strlen(def) - strlen(suffix), suffix) != 0)
		elog(ERROR, "unexpected definition of %s: %s", what, def);
	require_owner(rel, "re-create its partial indexes");
	pi = palloc0(sizeof(PlanIndex));
	pi->oid = idx;
	pi->owner = statement_owner(rel);
	require_create(rel, pi->owner, psprintf("index %s", quote_identifier(get_rel_name(idx))));
	pi->depth = get_rel_relispartition(idx) ? list_length(get_partition_ancestors(idx)) : 0;
	pi->has_parent = pi->depth > 0;
	pi->qname = adjlist_qualified_name(idx);
	def[strlen(def) - strlen(suffix)] = '\0';
	pi->create = psprintf("%s WHERE %s", def, pred);
	ps->plan_indexes = lappend(ps->plan_indexes, pi);
}

/* leaves first, so that creating a partitioned index attaches them by name */
static void
emit_indexes(UninstallState *ps)
{
	int			maxdepth = 0;
	ListCell   *lc;

	foreach(lc, ps->plan_indexes)
	{
		PlanIndex  *pi = lfirst(lc);

		maxdepth = Max(maxdepth, pi->depth);
		if (!pi->has_parent)
			step(&ps->plan->before, pi->owner, psprintf("DROP INDEX %s", pi->qname), NULL, NULL);
	}
	for (int depth = maxdepth; depth >= 0; depth--)
		foreach(lc, ps->plan_indexes)
		{
			PlanIndex  *pi = lfirst(lc);

			if (pi->depth == depth)
				step(&ps->plan->after, pi->owner,
					 with_comment(pi->create, pi->oid, "pg_class", psprintf("INDEX %s", pi->qname)),
					 "re-created partial index", pi->create);
		}
}

/* a rule: a view's query (the view is re-created), else refused */
static void
plan_rule(UninstallState *ps, Oid rule, char *ref)
{
	char	  **row = catalog_row("SELECT ev_class, rulename FROM pg_catalog.pg_rewrite"
								  " WHERE oid OPERATOR(pg_catalog.=) $1", rule, 2);
	Oid			rel = oid_value(row[0]);

	if (rel_goes_away(ps, rel))
		return;
	if (get_rel_relkind(rel) == RELKIND_VIEW && strcmp(row[1], "_RETURN") == 0)
		ps->views = list_append_unique_oid(ps->views, rel);
	else
		refuse_once(ps, describe(RelationRelationId, rel, 0),
					psprintf("%s depends on %s", describe(RewriteRelationId, rule, 0), ref));
}

/* a trigger: gone with the inverted indexes if it is theirs, else refused */
static void
plan_trigger(UninstallState *ps, Oid trig, char *ref)
{
	char	  **row = catalog_row("SELECT tgrelid, tgfoid FROM pg_catalog.pg_trigger"
								  " WHERE oid OPERATOR(pg_catalog.=) $1", trig, 2);
	Oid			rel = oid_value(row[0]);

	if (rel_goes_away(ps, rel))
		return;
	if (getExtensionOfObject(ProcedureRelationId, oid_value(row[1])) == ps->types.extension &&
		rel_or_ancestor_in(rel, ps->bases, ps->nreg))
		return;
	refuse_dependent(ps, describe(TriggerRelationId, trig, 0), ref);
}

/* a relation or a column of one */
static void
plan_relation(UninstallState *ps, Oid rel, int32 subid, char *ref)
{
	char		relkind = get_rel_relkind(rel);

	if (rel_goes_away(ps, rel))
		return;
	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
	{
		if (!rel_goes_away(ps, IndexGetRelation(rel, false)))
			plan_index(ps, rel);
		return;
	}
	if (relkind == RELKIND_VIEW)
	{
		ps->views = list_append_unique_oid(ps->views, rel);
		return;
	}
	if (subid > 0 && (relkind == RELKIND_RELATION || relkind == RELKIND_PARTITIONED_TABLE ||
					  relkind == RELKIND_FOREIGN_TABLE) &&
		uninstall_is_key_type(&ps->types, get_atttype(rel, (AttrNumber) subid)))
		return;					/* becomes text */
	refuse_once(ps, describe(RelationRelationId, rel, 0),
				psprintf("%s depends on %s", describe(RelationRelationId, rel, subid), ref));
}

/* one dependent, once */
static void
plan_dependent(UninstallState *ps, int kind, Oid classid, Oid objid, int32 subid, char *ref)
{
	char	   *key = psprintf("%d/%u/%u/%d", kind, classid, objid, subid);
	ListCell   *lc;

	foreach(lc, ps->done)
		if (strcmp((char *) lfirst(lc), key) == 0)
			return;
	ps->done = lappend(ps->done, key);
	if (classid == RelationRelationId && kind == 1)
		plan_relation(ps, objid, subid, ref);
	else if (classid == AttrDefaultRelationId)
		plan_default(ps, objid, ref, kind == 2);
	else if (classid == ConstraintRelationId)
		plan_constraint(ps, objid, ref);
	else if (classid == RewriteRelationId)
		plan_rule(ps, objid, ref);
	else if (classid == TriggerRelationId)
		plan_trigger(ps, objid, ref);
	else
		refuse_dependent(ps, describe(classid, objid, subid), ref);
}

/*
 * What depends on the index and counter tables of the inverted indexes
 * (a view over one, a foreign key to one), which DROP TABLE would refuse:
 * refused here, unless it goes away with them.
 */
static void
plan_index_table_dependents(UninstallState *ps)
{
	Oid			argtypes[1] = {OIDARRAYOID};
	Datum		args[1];
	Datum	   *rels = palloc(sizeof(Datum) * (2 * ps->nreg + 1));
	int			nrels = 0;
	SPITupleTable *tt;
	uint64		n;

	for (int i = 0; i < ps->nreg; i++)
	{
		rels[nrels++] = ObjectIdGetDatum(ps->indexes[i]);
		if (OidIsValid(ps->counters[i]))
			rels[nrels++] = ObjectIdGetDatum(ps->counters[i]);
	}
	args[0] = PointerGetDatum(construct_array(rels, nrels, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	if (SPI_execute_with_args("SELECT d.classid, d.objid, d.objsubid, d.refobjid, d.refobjsubid,"
							  " CASE d.classid"
							  " WHEN 'pg_catalog.pg_class'::pg_catalog.regclass THEN d.objid"
							  " WHEN 'pg_catalog.pg_rewrite'::pg_catalog.regclass THEN (SELECT ev_class"
							  "  FROM pg_catalog.pg_rewrite WHERE oid OPERATOR(pg_catalog.=) d.objid)"
							  " WHEN 'pg_catalog.pg_constraint'::pg_catalog.regclass THEN (SELECT conrelid"
							  "  FROM pg_catalog.pg_constraint WHERE oid OPERATOR(pg_catalog.=) d.objid)"
							  " WHEN 'pg_catalog.pg_trigger'::pg_catalog.regclass THEN (SELECT tgrelid"
							  "  FROM pg_catalog.pg_trigger WHERE oid OPERATOR(pg_catalog.=) d.objid)"
							  " WHEN 'pg_catalog.pg_attrdef'::pg_catalog.regclass THEN (SELECT adrelid"
							  "  FROM pg_catalog.pg_attrdef WHERE oid OPERATOR(pg_catalog.=) d.objid)"
							  " END FROM pg_catalog.pg_depend d"
							  " WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " AND d.refobjid OPERATOR(pg_catalog.=) ANY ($1)"
							  " AND d.deptype OPERATOR(pg_catalog.=) 'n'"
							  " ORDER BY 1, 2, 3",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not list the objects that depend on the inverted index tables");
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		v[6];
		bool		owner_null;

		for (int c = 0; c < 5; c++)
			v[c] = SPI_getbinval(tt->vals[i], tt->tupdesc, c + 1, &isnull);
		v[5] = SPI_getbinval(tt->vals[i], tt->tupdesc, 6, &owner_null);
		if (!owner_null && rel_goes_away(ps, DatumGetObjectId(v[5])))
			continue;
		refuse_dependent(ps, DatumGetObjectId(v[0]) == RewriteRelationId && !owner_null ?
						 describe(RelationRelationId, DatumGetObjectId(v[5]), 0) :
						 describe(DatumGetObjectId(v[0]), DatumGetObjectId(v[1]), DatumGetInt32(v[2])),
						 psprintf("%s, which adjlist_uninstall() drops with its inverted index",
								  describe(RelationRelationId, DatumGetObjectId(v[3]), DatumGetInt32(v[4]))));
	}
}

/* The key types as an oid[]: adjkey, adjkey[], and adjkey_prefix(, []) when there. */
static Datum
key_types_array(UninstallState *ps)
{
	Datum		keytypes[4];
	int			ntypes = 0;

	keytypes[ntypes++] = ObjectIdGetDatum(ps->types.keytype);
	keytypes[ntypes++] = ObjectIdGetDatum(ps->types.keyarraytype);
	if (OidIsValid(ps->types.prefixtype))
	{
		keytypes[ntypes++] = ObjectIdGetDatum(ps->types.prefixtype);
		keytypes[ntypes++] = ObjectIdGetDatum(ps->types.prefixarraytype);
	}
	return PointerGetDatum(construct_array(keytypes, ntypes, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
}

/* the dependents (kind 1) and the column dependents (kind 2), all planned */
static void
plan_dependents(UninstallState *ps)
{
	Oid			argtypes[2] = {OIDOID, OIDARRAYOID};
	Datum		args[2];
	SPITupleTable *tt;
	uint64		n;

	args[0] = ObjectIdGetDatum(ps->types.extension);
	args[1] = key_types_array(ps);
	if (SPI_execute_with_args(MEMBERS_CTE "(" DEPENDENTS_SQL ") UNION ALL (" COLUMN_DEPENDENTS_SQL
							  ") ORDER BY 1, 2, 3, 4",
							  2, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not list the objects that depend on adjlist");
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		v[7];

		for (int c = 0; c < 7; c++)
			v[c] = SPI_getbinval(tt->vals[i], tt->tupdesc, c + 1, &isnull);
		plan_dependent(ps, DatumGetInt32(v[0]), DatumGetObjectId(v[1]), DatumGetObjectId(v[2]),
					   DatumGetInt32(v[3]),
					   describe(DatumGetObjectId(v[4]), DatumGetObjectId(v[5]), DatumGetInt32(v[6])));
	}
}

/*
 * What a view is besides its query, as statements to run after CREATE
 * VIEW: its grants and comments (it is created by its owner), and its
 * options.
 */
#define VIEW_EXTRAS_SQL \
	"SELECT pg_catalog.concat_ws(E';\\n'," \
	" CASE WHEN c.relacl IS NOT NULL THEN pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC, %I', $2," \
	"  pg_catalog.pg_get_userbyid(c.relowner)) END," \
	" (SELECT pg_catalog.string_agg(pg_catalog.format('GRANT %s ON %s TO %s%s', a.privilege_type, $2," \
	"  CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'" \
	"  ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END," \
	"  CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E';\\n')" \
	"  FROM pg_catalog.aclexplode(c.relacl) a)," \
	" (SELECT pg_catalog.string_agg(CASE WHEN d.objsubid OPERATOR(pg_catalog.=) 0" \
	"  THEN pg_catalog.format('COMMENT ON VIEW %s IS %L', $2, d.description)" \
	"  ELSE pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', $2, a.attname, d.description) END, E';\\n')" \
	"  FROM pg_catalog.pg_description d LEFT JOIN pg_catalog.pg_attribute a" \
	"  ON a.attrelid OPERATOR(pg_catalog.=) d.objoid AND a.attnum OPERATOR(pg_catalog.=) d.objsubid" \
	"  WHERE d.objoid OPERATOR(pg_catalog.=) c.oid" \
	"  AND d.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass))," \
	" (SELECT pg_catalog.string_agg(pg_catalog.format('%I=%L', o.option_name, o.option_value), ', ')" \
	"  FROM pg_catalog.pg_options_to_table(c.reloptions) o)" \
	" FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) $1"

/* the other objects that depend on a view: views (re-created after it), else refused */
static void
plan_view_dependents(UninstallState *ps, Oid view)
{
	SPITupleTable *tt;
	uint64		n;

	n = catalog_rows("SELECT d.classid, d.objid, d.objsubid, r.ev_class, r.rulename OPERATOR(pg_catalog.=) '_RETURN'"
							  " FROM pg_catalog.pg_depend d LEFT JOIN pg_catalog.pg_rewrite r"
							  " ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
							  " AND r.oid OPERATOR(pg_catalog.=) d.objid"
							  " WHERE (d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " AND d.refobjid OPERATOR(pg_catalog.=) $1"
							  " OR d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass"
							  " AND d.refobjid OPERATOR(pg_catalog.=) (SELECT reltype FROM pg_catalog.pg_class WHERE oid OPERATOR(pg_catalog.=) $1))"
							  " AND d.deptype OPERATOR(pg_catalog.<>) 'i'",
							  view, 0, true);
	tt = SPI_tuptable;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Oid			classid = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
		Oid			objid = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &isnull));
		int32		subid = DatumGetInt32(SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull));
		Oid			evclass = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 4, &isnull));
		bool		isreturn = !isnull && DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 5, &isnull));

		if (classid == RewriteRelationId && evclass == view && isreturn)
			continue;			/* its own query */
		if (classid == RewriteRelationId && isreturn && get_rel_relkind(evclass) == RELKIND_VIEW)
		{
			ps->views = list_append_unique_oid(ps->views, evclass);
			ps->view_after = lappend_oid(ps->view_after, evclass);
			ps->view_before = lappend_oid(ps->view_before, view);
			continue;
		}
		refuse_dependent(ps, describe(classid, objid, subid),
						 psprintf("%s, which adjlist_uninstall() must re-create",
								  describe(RelationRelationId, view, 0)));
	}
}

/* false (and refused) if the view reads a table that goes away */
static bool
plan_view_reads(UninstallState *ps, Oid view, const char *what)
{
	SPITupleTable *tt;
	uint64		n;
	bool		ok = true;

	n = catalog_rows("SELECT DISTINCT d.refobjid FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_depend d"
							  " ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
							  " AND d.objid OPERATOR(pg_catalog.=) r.oid"
							  " AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " WHERE r.ev_class OPERATOR(pg_catalog.=) $1"
							  " AND d.refobjid OPERATOR(pg_catalog.<>) $1",
							  view, 0, true);
	tt = SPI_tuptable;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Oid			rel = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));

		if (rel_goes_away(ps, rel))
		{
			refuse(ps, what,
				   psprintf("it reads %s, which goes away with the extension or its inverted indexes",
							adjlist_qualified_name(rel)));
			ok = false;
		}
	}
	return ok;
}

/*
 * A view: its query rewritten to text, and the statements that re-create
 * it as it was.  Those that read an inverted index table are refused (the
 * table is dropped).
 */
static PlanView *
plan_view(UninstallState *ps, Oid view)
{
	char	   *what = describe(RelationRelationId, view, 0);
	Relation	rel;
	Query	   *query;
	Node	   *rewritten;
	const char *problem;
	ListCell   *lc;
	int			attno = 0;
	Oid			argtypes[2] = {OIDOID, TEXTOID};
	Datum		args[2];
	char	   *extras;
	char	   *options;
	PlanView   *pv;

	require_owner(view, "re-create it");
	plan_view_dependents(ps, view);
	if (!plan_view_reads(ps, view, what))
		return NULL;
	rel = relation_open(view, AccessShareLock);
	query = copyObject(get_view_query(rel));
	/* the view's column names now (a renamed column keeps its old resname) */
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (!tle->resjunk && attno < RelationGetDescr(rel)->natts)
			tle->resname = pstrdup(NameStr(TupleDescAttr(RelationGetDescr(rel), attno++)->attname));
	}
	relation_close(rel, AccessShareLock);
	rewritten = uninstall_rewrite((Node *) query, &problem);
	if (rewritten == NULL)
	{
		refuse(ps, what, problem);
		return NULL;
	}
	pv = palloc0(sizeof(PlanView));
	pv->oid = view;
	pv->qname = adjlist_qualified_name(view);
	pv->owner = adjlist_rel_owner(view);
	require_create(view, pv->owner, psprintf("view %s", quote_identifier(get_rel_name(view))));
	args[0] = ObjectIdGetDatum(view);
	args[1] = CStringGetTextDatum(pv->qname);
	if (SPI_execute_with_args(VIEW_EXTRAS_SQL, 2, argtypes, args, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the definition of %s", what);
	extras = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	options = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	pv->create = psprintf("CREATE VIEW %s%s%s%s AS %s%s%s", pv->qname,
						  options ? " WITH (" : "", options ? options : "", options ? ")" : "",
						  pg_get_querydef((Query *) rewritten, false),
						  extras && extras[0] ? ";\n" : "", extras ? extras : "");
	return pv;
}

/* every view found (the list grows with the views over them), in dependency order */
static void
emit_views(UninstallState *ps)
{
	List	   *planned = NIL;
	List	   *order = NIL;
	ListCell   *lc;
	bool		progress = true;

	for (int i = 0; i < list_length(ps->views); i++)
	{
		PlanView   *pv = plan_view(ps, list_nth_oid(ps->views, i));

		if (pv != NULL)
			planned = lappend(planned, pv);
	}
	if (ps->refused != NIL)
		return;
	/* a view after every view it reads */
	while (progress)
	{
		progress = false;
		foreach(lc, planned)
		{
			PlanView   *pv = lfirst(lc);
			bool		ready = !pv->emitted;

			for (int e = 0; ready && e < list_length(ps->view_after); e++)
				if (list_nth_oid(ps->view_after, e) == pv->oid)
				{
					ListCell   *lc2;

					foreach(lc2, planned)
						if (((PlanView *) lfirst(lc2))->oid == list_nth_oid(ps->view_before, e) &&
							!((PlanView *) lfirst(lc2))->emitted)
							ready = false;
				}
			if (ready)
			{
				pv->emitted = true;
				order = lappend(order, pv);
				progress = true;
			}
		}
	}
	foreach(lc, order)
	{
		PlanView   *pv = lfirst(lc);

		step(&ps->plan->after, pv->owner, pv->create, "re-created view", pv->qname);
	}
	/* dropped in the reverse order, before everything else */
	foreach(lc, order)
	{
		UninstallStep *s = palloc(sizeof(UninstallStep));

		s->owner = ((PlanView *) lfirst(lc))->owner;
		s->sql = psprintf("DROP VIEW %s", ((PlanView *) lfirst(lc))->qname);
		s->action = NULL;
		s->object = NULL;
		ps->plan->before = lcons(s, ps->plan->before);
	}
}

/*
 * A table partitioned by a key column (or by an expression over one): the
 * partition key would have to change type, which PostgreSQL refuses, and
 * the bounds of its partitions are keys.  Refused with the other objects
 * (keyed as plan_relation() keys the table's dependency on adjkey's
 * operator class, so that it is listed once), with the way out in the hint.
 */
static void
refuse_partition_key(UninstallState *ps, Oid rel, const char *col)
{
	refuse(ps, describe(RelationRelationId, rel, 0),
		   psprintf("its partition key uses its key column %s, and PostgreSQL cannot change the type of a column a partition key uses (create a table partitioned by the column as text, move the rows into it and drop this one)",
					quote_identifier(col)));
	ps->partition_keys = true;
}

/* a foreign table among rel's partitions or inheritance children */
static bool
has_foreign_member(Oid rel)
{
	ListCell   *lc;

	if (!has_subclass(rel))
		return false;
	foreach(lc, find_all_inheritors(rel, NoLock, NULL))
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			return true;
	return false;
}

/*
 * The statement that makes col text.  A foreign table's column has no rows
 * here to convert, and PostgreSQL refuses a USING clause on one (also when
 * ALTER TABLE recurses into it as a partition or child): there, and on a
 * table with such members, the change relies on adjkey's assignment cast
 * to text, the function USING would call.  The remote table is not touched.
 */
static char *
column_statement(UninstallColumn *col)
{
	char	   *qrel = adjlist_qualified_name(col->rel);
	const char *type = col->array ? "pg_catalog.text[]" : "pg_catalog.text";
	const char *qcol = quote_identifier(col->name);

	if (get_rel_relkind(col->rel) == RELKIND_FOREIGN_TABLE)
		return psprintf("ALTER FOREIGN TABLE %s ALTER COLUMN %s TYPE %s", qrel, qcol, type);
	if (has_foreign_member(col->rel))
		return psprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s", qrel, qcol, type);
	return psprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s USING %s::%s", qrel, qcol, type, qcol, type);
}

/*
 * The adjkey (adjkey[], adjkey_prefix) columns of tables, each changed
 * where it is defined (ALTER TABLE changes it in the inheritance children
 * and partitions too).  A column in the partition key of any table, a
 * partition too, is refused: partattrs names a plain key column, and a
 * column an expression of the key uses depends internally on its own table
 * (StorePartitionKey()), which nothing else records.
 */
static void
plan_columns(UninstallState *ps)
{
	Oid			argtypes[1] = {OIDARRAYOID};
	Datum		args[1];
	SPITupleTable *tt;
	uint64		ncols;

	args[0] = key_types_array(ps);
	if (SPI_execute_with_args("SELECT *, pg_catalog.bool_or(partkey) OVER (PARTITION BY oid) FROM ("
							  "SELECT c.oid, a.attname::pg_catalog.text, a.atttypid,"
							  " c.relkind OPERATOR(pg_catalog.=) 'p' AND (EXISTS (SELECT"
							  " FROM pg_catalog.pg_partitioned_table p WHERE p.partrelid OPERATOR(pg_catalog.=) c.oid"
							  " AND a.attnum OPERATOR(pg_catalog.=) ANY (p.partattrs::pg_catalog.int2[]))"
							  " OR EXISTS (SELECT FROM pg_catalog.pg_depend d"
							  " WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " AND d.objid OPERATOR(pg_catalog.=) c.oid AND d.objsubid OPERATOR(pg_catalog.=) a.attnum"
							  " AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
							  " AND d.refobjid OPERATOR(pg_catalog.=) c.oid AND d.refobjsubid OPERATOR(pg_catalog.=) 0"
							  " AND d.deptype OPERATOR(pg_catalog.=) 'i')) AS partkey,"
							  " a.attinhcount OPERATOR(pg_catalog.=) 0 AND NOT c.relispartition, a.attnum"
							  " FROM pg_catalog.pg_attribute a"
							  " JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid"
							  " WHERE a.atttypid OPERATOR(pg_catalog.=) ANY ($1)"
							  " AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped"
							  " AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,f}'::pg_catalog.\"char\"[])) s"
							  " ORDER BY oid, attnum",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not list the adjkey columns");
	tt = SPI_tuptable;
	ncols = SPI_processed;
	for (uint64 i = 0; i < ncols; i++)
	{
		bool		isnull;
		Oid			rel = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
		UninstallColumn *col;

		if (rel_goes_away(ps, rel))
			continue;
		if (DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 4, &isnull)))
		{
			refuse_partition_key(ps, rel, SPI_getvalue(tt->vals[i], tt->tupdesc, 2));
			continue;
		}
		if (!DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 5, &isnull)) ||
			DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 7, &isnull)))
			continue;			/* changed with its parent, or its table refused */
		col = palloc(sizeof(UninstallColumn));
		col->rel = rel;
		col->name = SPI_getvalue(tt->vals[i], tt->tupdesc, 2);
		col->array = get_element_type(DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull))) != InvalidOid;
		if (!adjlist_rel_ownercheck(rel, GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be owner of table %s to change its column \"%s\"",
							get_rel_name(rel), col->name),
					 errhint("Run adjlist_uninstall() as a superuser, or as a role that owns every table with adjkey columns.")));
		col->owner = statement_owner(rel);
		col->sql = column_statement(col);
		ps->plan->columns = lappend(ps->plan->columns, col);
	}
}

static int
compare_lines(const ListCell *a, const ListCell *b)
{
	return strcmp((const char *) lfirst(a), (const char *) lfirst(b));
}

static void
refuse_all(UninstallState *ps)
{
	StringInfoData detail;
	ListCell   *lc;

	if (ps->refused == NIL)
		return;
	list_sort(ps->refused, compare_lines);
	initStringInfo(&detail);
	foreach(lc, ps->refused)
		appendStringInfo(&detail, "%s%s", detail.len > 0 ? "\n" : "", (char *) lfirst(lc));
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("cannot uninstall adjlist: %d object%s depend%s on it in a way adjlist_uninstall() cannot rewrite",
					list_length(ps->refused), list_length(ps->refused) == 1 ? "" : "s",
					list_length(ps->refused) == 1 ? "s" : ""),
			 errdetail("%s", detail.data),
			 errhint("Drop these objects, or redefine them without adjlist's types, functions and operators, then call adjlist_uninstall() again.%s Nothing was changed.",
					 ps->partition_keys ?
					 " A table partitioned by a key column cannot be changed in place: create a copy partitioned by the column as text (CREATE TABLE t_text (pk text, ...) PARTITION BY HASH (pk), and its partitions), INSERT INTO t_text SELECT * FROM t, DROP TABLE t, ALTER TABLE t_text RENAME TO t." : "")));
}

UninstallPlan *
uninstall_plan(void)
{
	UninstallState ps;

	memset(&ps, 0, sizeof(ps));
	ps.plan = palloc0(sizeof(UninstallPlan));
	uninstall_types_init(&ps.types);
	ps.nreg = registry_all(&ps.indexes, &ps.bases, &ps.counters);
	plan_columns(&ps);
	plan_index_table_dependents(&ps);
	plan_dependents(&ps);
	emit_views(&ps);
	emit_indexes(&ps);
	refuse_all(&ps);
	return ps.plan;
}

List *
uninstall_dependents(void)
{
	List	   *found = NIL;
	SPITupleTable *tt;
	uint64		n;

	n = catalog_rows(MEMBERS_CTE DEPENDENTS_SQL, adjlist_catalog()->extension, 0, false);
	tt = SPI_tuptable;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;
		Datum		v[7];
		char	   *line;

		for (int c = 0; c < 7; c++)
			v[c] = SPI_getbinval(tt->vals[i], tt->tupdesc, c + 1, &isnull);
		line = psprintf("%s depends on %s",
						describe(DatumGetObjectId(v[1]), DatumGetObjectId(v[2]), DatumGetInt32(v[3])),
						describe(DatumGetObjectId(v[4]), DatumGetObjectId(v[5]), DatumGetInt32(v[6])));
		found = lappend(found, line);
	}
	return found;
}

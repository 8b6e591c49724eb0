/* adjlist from libpq (C), on the graph of Getting started:
 *   cc example.c -I$(pg_config --includedir) -lpq && ./a.out    (PGHOST, PGPORT, PGDATABASE, ...) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>

static PGconn *conn;

/* parameters as text, untyped (paramTypes NULL): a key becomes an adjkey */
static PGresult *
run(const char *sql, int n, const char *const *params)
{
	PGresult   *res = PQexecParams(conn, sql, n, NULL, params, NULL, NULL, 0);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		fprintf(stderr, "%s", PQerrorMessage(conn));
		exit(1);
	}
	return res;
}

/* the first column of every row, joined by '|', must be want */
static void
expect(PGresult *res, const char *want)
{
	char		got[1024] = "";

	for (int i = 0; i < PQntuples(res); i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? "|" : "", PQgetvalue(res, i, 0));
	if (strcmp(got, want) != 0)
	{
		fprintf(stderr, "got %s, expected %s\n", got, want);
		exit(1);
	}
	PQclear(res);
}

int
main(void)
{
	conn = PQconnectdb("");
	if (PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "%s", PQerrorMessage(conn));
		return 1;
	}

	/* parameters */
	const char *p1[] = {"USER#alice", "FRIEND#"};
	expect(run("SELECT neighbor FROM neighbors('graph', $1, $2)", 2, p1), "USER#bob|USER#charlie");

	/* arrays of keys: send an array's text form; receive one key a row with unnest */
	const char *p2[] = {"{USER#alice,USER#bob}"};
	expect(run("SELECT data->>'name' FROM graph WHERE pk = ANY($1) AND sk = 'PROFILE' ORDER BY pk", 1, p2),
		   "Alice Wonderland|Bob Builder");
	const char *p3[] = {"USER#alice", "USER#charlie"};
	expect(run("SELECT key FROM unnest(shortest_path('graph', $1, $2, 'FRIEND#')) WITH ORDINALITY AS p(key, i) "
			   "ORDER BY i", 2, p3), "USER#alice|USER#charlie");

	/* paging: pass the last row's key back as exclusive_start_key */
	char		items[1024] = "",
				last[1024] = "";
	int			n;

	do
	{
		const char *p4[] = {"USER#alice", last[0] ? last : NULL};
		PGresult   *res = run("SELECT sort_key, key::text FROM query('graph', $1, lim => 2, exclusive_start_key => $2)",
							  2, p4);

		n = PQntuples(res);
		for (int i = 0; i < n; i++)
			snprintf(items + strlen(items), sizeof items - strlen(items), "%s ", PQgetvalue(res, i, 0));
		if (n > 0)
			snprintf(last, sizeof last, "%s", PQgetvalue(res, n - 1, 1));
		PQclear(res);
	} while (n == 2);
	if (strcmp(items, "FOLLOWS#USER#bob FRIEND#USER#bob FRIEND#USER#charlie LIKES#POST#777 PROFILE ") != 0)
	{
		fprintf(stderr, "query pages: %s\n", items);
		return 1;
	}
	PQfinish(conn);
	return 0;
}

/*
 * adjlist from libpq: text and binary formats, parameters with and without
 * types and casts, prepared statements under generic plans, arrays of keys
 * both ways (adjkey[] parsed from its binary form), keyset pagination,
 * graph functions, the write API, binary COPY.
 *
 *   gcc -o libpq_test libpq_test.c -I$(pg_config --includedir) -lpq
 *   ./libpq_test test/client/edges.tsv     (server from PGHOST, PGPORT, ...)
 *
 * Exits 0 when every check passes; otherwise prints "FAIL: ..." and exits 1.
 * The checks are the same in every client of test/client (see run.sh).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#define TBL		"libpq_graph"
#define START	"USER#alice"
#define PREFIX	"FOLLOWS#"
#define TARGET	"USER#中文"
#define LIM		4
#define MAXE	256

typedef struct Edge
{
	char	   *pk;
	char	   *sk;
	char	   *data;			/* NULL for SQL NULL */
} Edge;

static PGconn *conn;
static Edge edges[MAXE];
static int	nedges;
static int	nchecks;

static void
fail(const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (conn)
		PQfinish(conn);
	exit(1);
}

static void
ok(const char *what)
{
	nchecks++;
	printf("ok %d - %s\n", nchecks, what);
	fflush(stdout);
}

static void
check_res(PGresult *res, ExecStatusType want, const char *what)
{
	if (PQresultStatus(res) != want)
		fail("%s: %s (%s)", what, PQresStatus(PQresultStatus(res)),
			 PQresultErrorMessage(res));
}

static PGresult *
q(const char *sql)
{
	PGresult   *res = PQexec(conn, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
		fail("%s: %s", sql, PQresultErrorMessage(res));
	return res;
}

static void
cmd(const char *sql)
{
	PQclear(q(sql));
}

static char *
xstrdup(const char *s)
{
	char	   *r = strdup(s);

	if (!r)
		fail("out of memory");
	return r;
}

static int
starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* byte order of UTF-8 (strcmp compares as unsigned char), like adjkey */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static int
cmp_edge(const void *a, const void *b)
{
	const Edge *x = a,
			   *y = b;
	int			c = strcmp(x->pk, y->pk);

	return c ? c : strcmp(x->sk, y->sk);
}

static void
read_edges(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		line[4096];

	if (!f)
		fail("cannot open %s", path);
	while (fgets(line, sizeof line, f))
	{
		char	   *t1,
				   *t2;

		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0')
			continue;
		t1 = strchr(line, '\t');
		t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t1 || !t2)
			fail("%s: bad line '%s'", path, line);
		*t1 = *t2 = '\0';
		if (nedges == MAXE)
			fail("too many edges");
		edges[nedges].pk = xstrdup(line);
		edges[nedges].sk = xstrdup(t1 + 1);
		edges[nedges].data = t2[1] ? xstrdup(t2 + 1) : NULL;
		nedges++;
	}
	fclose(f);
	if (nedges < 24)
		fail("%s: only %d edges", path, nedges);
}

/* --- the expected answers, computed here from the edge list --- */

/* out-edges of node with prefix, in sk byte order: indexes into edges[] */
static int
expected_out(const char *node, const char *prefix, int *idx)
{
	int			n = 0;

	for (int i = 0; i < nedges; i++)
		if (strcmp(edges[i].pk, node) == 0 && starts_with(edges[i].sk, prefix))
			idx[n++] = i;
	/* edges[] is sorted by (pk, sk) already */
	return n;
}

/* sources of in-edges of node with prefix, in byte order */
static int
expected_in(const char *node, const char *prefix, char **out)
{
	int			n = 0;

	for (int i = 0; i < nedges; i++)
		if (starts_with(edges[i].sk, prefix) &&
			strcmp(edges[i].sk + strlen(prefix), node) == 0)
			out[n++] = edges[i].pk;
	qsort(out, n, sizeof(char *), cmp_str);
	return n;
}

/* BFS to max_depth; nodes[] and depths[] exclude the start; returns count */
static int
expected_bfs(const char *start, const char *prefix, int max_depth, int reverse,
			 char **nodes, int *depths)
{
	char	   *seen[MAXE * 2];
	int			seendepth[MAXE * 2];
	int			nseen = 0,
				head = 0,
				nout = 0;
	size_t		plen = strlen(prefix);

	seen[nseen] = (char *) start;
	seendepth[nseen++] = 0;
	while (head < nseen)
	{
		char	   *u = seen[head];
		int			d = seendepth[head++];

		if (d == max_depth)
			continue;
		for (int i = 0; i < nedges; i++)
		{
			const char *from,
					   *to;
			int			known = 0;

			if (!starts_with(edges[i].sk, prefix))
				continue;
			from = reverse ? edges[i].sk + plen : edges[i].pk;
			to = reverse ? edges[i].pk : edges[i].sk + plen;
			if (strcmp(from, u) != 0)
				continue;
			for (int j = 0; j < nseen; j++)
				if (strcmp(seen[j], to) == 0)
					known = 1;
			if (known)
				continue;
			seen[nseen] = (char *) to;
			seendepth[nseen++] = d + 1;
			nodes[nout] = (char *) to;
			depths[nout++] = d + 1;
		}
	}
	return nout;
}

/* --- helpers on results --- */

static const char *
val(PGresult *res, int r, int c)
{
	return PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
}

static int
same_json(const char *a, const char *b)
{
	PGresult   *res;
	const char *params[2] = {a, b};
	int			same;

	if (!a || !b)
		return !a && !b;
	res = PQexecParams(conn, "SELECT $1::jsonb = $2::jsonb", 2, NULL, params,
					   NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "compare jsonb");
	same = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	return same;
}

static void
plan_counts(const char *name, long *generic, long *custom)
{
	const char *params[1] = {name};
	PGresult   *res = PQexecParams(conn,
								   "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1",
								   1, NULL, params, NULL, NULL, 0);

	check_res(res, PGRES_TUPLES_OK, "pg_prepared_statements");
	if (PQntuples(res) != 1)
		fail("prepared statement %s not in pg_prepared_statements", name);
	*generic = atol(PQgetvalue(res, 0, 0));
	*custom = atol(PQgetvalue(res, 0, 1));
	PQclear(res);
}

static Oid
adjkey_oid(void)
{
	PGresult   *res = q("SELECT 'adjkey'::regtype::oid");
	Oid			oid = (Oid) strtoul(PQgetvalue(res, 0, 0), NULL, 10);

	PQclear(res);
	return oid;
}

/* --- the checks --- */

static Oid	ADJKEY;

/* the binary form of a key: version byte 1 and the UTF-8 bytes */
static char *
binkey(const char *key, int *len)
{
	size_t		n = strlen(key);
	char	   *b = malloc(n + 1);

	if (!b)
		fail("out of memory");
	b[0] = 1;
	memcpy(b + 1, key, n);
	*len = (int) n + 1;
	return b;
}

static void
setup(void)
{
	const char *ins = "INSERT INTO " TBL " (pk, sk, data) VALUES ($1, $2, $3::jsonb)";
	PGresult   *res;
	char		buf[256];

	cmd("SET client_min_messages = warning");
	cmd("DROP TABLE IF EXISTS " TBL ", " TBL "_copy, " TBL "_bad CASCADE");
	cmd("CREATE TABLE " TBL " (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))");
	cmd("SELECT create_inverted_index('" TBL "')");
	ADJKEY = adjkey_oid();

	/* even rows: text parameters; odd rows: binary adjkey parameters */
	for (int i = 0; i < nedges; i++)
	{
		if (i % 2 == 0)
		{
			const char *params[3] = {edges[i].pk, edges[i].sk, edges[i].data};

			res = PQexecParams(conn, ins, 3, NULL, params, NULL, NULL, 0);
		}
		else
		{
			Oid			types[3] = {ADJKEY, ADJKEY, 0};
			int			l1,
						l2;
			char	   *b1 = binkey(edges[i].pk, &l1),
					   *b2 = binkey(edges[i].sk, &l2);
			const char *params[3] = {b1, b2, edges[i].data};
			int			lens[3] = {l1, l2, 0};
			int			fmts[3] = {1, 1, 0};

			res = PQexecParams(conn, ins, 3, types, params, lens, fmts, 0);
			free(b1);
			free(b2);
		}
		snprintf(buf, sizeof buf, "insert edge %d", i);
		check_res(res, PGRES_COMMAND_OK, buf);
		PQclear(res);
	}
	/* filler in other partitions, so that an index scan is the right plan */
	cmd("INSERT INTO " TBL " SELECT 'NODE#' || (i % 300), 'FOLLOWS#NODE#' || i, NULL "
		"FROM generate_series(1, 3000) i");
	cmd("ANALYZE " TBL);
	cmd("ANALYZE " TBL "_inverted");

	res = q("SELECT (SELECT count(*) FROM " TBL " WHERE pk ^@ 'USER#'::text), "
			"(SELECT count(*) FROM " TBL "), (SELECT count(*) FROM " TBL "_inverted), "
			"(SELECT count(*) FROM verify_inverted_index('" TBL "_inverted'))");
	if (atoi(PQgetvalue(res, 0, 0)) != nedges)
		fail("table has %s edges, expected %d", PQgetvalue(res, 0, 0), nedges);
	if (strcmp(PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2)) != 0)
		fail("inverted index has %s rows, table %s", PQgetvalue(res, 0, 2), PQgetvalue(res, 0, 1));
	if (strcmp(PQgetvalue(res, 0, 3), "0") != 0)
		fail("verify_inverted_index reports %s problems", PQgetvalue(res, 0, 3));
	PQclear(res);
	ok("table, inverted index, edges inserted with text and binary parameters");
}

static void
check_text_and_binary(void)
{
	const char *sql = "SELECT pk, sk, data FROM " TBL " WHERE pk ^@ 'USER#'::text ORDER BY pk, sk";
	PGresult   *res;
	int			l;
	char	   *b;

	/* text format, in adjkey order = UTF-8 byte order */
	res = PQexecParams(conn, sql, 0, NULL, NULL, NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "text select");
	if (PQntuples(res) != nedges)
		fail("text select: %d rows, expected %d", PQntuples(res), nedges);
	for (int i = 0; i < nedges; i++)
	{
		if (strcmp(val(res, i, 0), edges[i].pk) != 0 || strcmp(val(res, i, 1), edges[i].sk) != 0)
			fail("text row %d: got (%s, %s), expected (%s, %s)", i,
				 val(res, i, 0), val(res, i, 1), edges[i].pk, edges[i].sk);
		if (!same_json(val(res, i, 2), edges[i].data))
			fail("text row %d: data %s, expected %s", i,
				 val(res, i, 2) ? val(res, i, 2) : "NULL", edges[i].data ? edges[i].data : "NULL");
	}
	PQclear(res);
	ok("text results in UTF-8 byte order");

	/* binary format: version byte 1 and the UTF-8 bytes */
	res = PQexecParams(conn, sql, 0, NULL, NULL, NULL, NULL, 1);
	check_res(res, PGRES_TUPLES_OK, "binary select");
	if (PQntuples(res) != nedges)
		fail("binary select: %d rows", PQntuples(res));
	if (PQftype(res, 0) != ADJKEY || PQftype(res, 1) != ADJKEY || PQfformat(res, 0) != 1)
		fail("binary select: column type %u format %d, expected adjkey (%u) binary",
			 PQftype(res, 0), PQfformat(res, 0), ADJKEY);
	for (int i = 0; i < nedges; i++)
		for (int c = 0; c < 2; c++)
		{
			const char *want = c == 0 ? edges[i].pk : edges[i].sk;
			const char *got = PQgetvalue(res, i, c);
			int			len = PQgetlength(res, i, c);

			if (len < 1 || got[0] != 1)
				fail("binary row %d col %d: version byte %d, expected 1", i, c,
					 len ? (unsigned char) got[0] : -1);
			if ((size_t) len != strlen(want) + 1 || memcmp(got + 1, want, len - 1) != 0)
				fail("binary row %d col %d: bytes '%.*s', expected '%s'", i, c, len - 1, got + 1, want);
		}
	PQclear(res);
	ok("binary results: version byte 1 + UTF-8 bytes");

	/* binary output does not depend on client_encoding; text output does */
	cmd("SET client_encoding = 'LATIN1'");
	{
		const char *params[1];
		int			lens[1],
					fmts[1] = {1};
		Oid			types[1];
		const char *latin1 = "FOLLOWS#USER#\xe9";	/* é in LATIN1 */

		types[0] = ADJKEY;
		b = binkey("FOLLOWS#USER#é", &l);
		params[0] = b;
		lens[0] = l;
		res = PQexecParams(conn, "SELECT sk, sk FROM " TBL " WHERE pk = 'USER#alice' AND sk = $1",
						   1, types, params, lens, fmts, 1);
		check_res(res, PGRES_TUPLES_OK, "binary select under LATIN1");
		if (PQntuples(res) != 1 || PQgetlength(res, 0, 0) != l || memcmp(PQgetvalue(res, 0, 0), b, l) != 0)
			fail("binary adjkey under client_encoding LATIN1 is not the UTF-8 form");
		PQclear(res);
		res = PQexecParams(conn, "SELECT sk FROM " TBL " WHERE pk = 'USER#alice' AND sk = $1",
						   1, types, params, lens, fmts, 0);
		check_res(res, PGRES_TUPLES_OK, "text select under LATIN1");
		if (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), latin1) != 0)
			fail("text adjkey under client_encoding LATIN1 is not converted");
		PQclear(res);
		free(b);
	}
	cmd("RESET client_encoding");
	ok("binary format is UTF-8 whatever client_encoding; text is converted");

	/* a binary key with an unknown version is rejected */
	{
		Oid			types[1];
		const char *params[1] = {"\x02USER#x"};
		int			lens[1] = {7},
					fmts[1] = {1};
		const char *state;

		types[0] = ADJKEY;
		res = PQexecParams(conn, "SELECT $1", 1, types, params, lens, fmts, 0);
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (PQresultStatus(res) != PGRES_FATAL_ERROR || !state || strcmp(state, "22P03") != 0)
			fail("binary adjkey with version 2: expected error 22P03, got %s %s",
				 PQresStatus(PQresultStatus(res)), state ? state : "");
		PQclear(res);
		params[0] = "\x01USER#\xff";
		res = PQexecParams(conn, "SELECT $1", 1, types, params, lens, fmts, 0);
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (PQresultStatus(res) != PGRES_FATAL_ERROR || !state || strcmp(state, "22021") != 0)
			fail("binary adjkey with invalid UTF-8: expected error 22021, got %s %s",
				 PQresStatus(PQresultStatus(res)), state ? state : "");
		PQclear(res);
	}
	ok("binary input: bad version 22P03, bad UTF-8 22021");
}

static void
check_plan(const char *explain_sql)
{
	PGresult   *res = q(explain_sql);
	int			found = 0;

	for (int i = 0; i < PQntuples(res); i++)
	{
		const char *line = PQgetvalue(res, i, 0);

		if (strstr(line, "Seq Scan"))
			fail("generic plan is a sequential scan: %s", line);
		if (strstr(line, "Index Cond:") &&
			strstr(line, "(sk >= adjkey_prefix_lower($2))") &&
			strstr(line, "(sk < adjkey_prefix_upper($2))"))
			found = 1;
	}
	if (!found)
	{
		fprintf(stderr, "plan of %s:\n", explain_sql);
		for (int i = 0; i < PQntuples(res); i++)
			fprintf(stderr, "  %s\n", PQgetvalue(res, i, 0));
		fail("the generic plan has no Index Cond on sk with adjkey_prefix_lower/upper($2)");
	}
	PQclear(res);
}

/*
 * Page through the out-edges of START twice with prepared statements:
 * neighbors() with lim/after, and plain SQL with sk ^@ $2::text; compare
 * with one unpaginated call; check the plans went generic and keep the
 * index range.
 */
static void
check_paging(const char *suffix, int force_generic)
{
	int			idx[MAXE],
				n = expected_out(START, PREFIX, idx);
	char		nb[64],
				sq[64],
				buf[512];
	PGresult   *full,
			   *res;
	int			got = 0,
				execs = 0;
	char		after[1024];
	long		generic,
				custom;
	char		limtxt[16];

	snprintf(limtxt, sizeof limtxt, "%d", LIM);
	snprintf(nb, sizeof nb, "nb_page%s", suffix);
	snprintf(sq, sizeof sq, "sql_page%s", suffix);
	if (force_generic)
		cmd("SET plan_cache_mode = force_generic_plan");

	/* unpaginated */
	{
		const char *params[2] = {START, PREFIX};

		full = PQexecParams(conn, "SELECT neighbor, sk, data FROM neighbors('" TBL "', $1, $2)",
							2, NULL, params, NULL, NULL, 0);
		check_res(full, PGRES_TUPLES_OK, "neighbors unpaginated");
	}
	if (PQntuples(full) != n)
		fail("neighbors: %d rows, expected %d", PQntuples(full), n);
	for (int i = 0; i < n; i++)
	{
		const Edge *e = &edges[idx[i]];

		if (strcmp(val(full, i, 1), e->sk) != 0 ||
			strcmp(val(full, i, 0), e->sk + strlen(PREFIX)) != 0 ||
			!same_json(val(full, i, 2), e->data))
			fail("neighbors row %d: (%s, %s), expected (%s, %s)", i,
				 val(full, i, 0), val(full, i, 1), e->sk + strlen(PREFIX), e->sk);
	}

	/* neighbors() paginated by a prepared statement */
	res = PQprepare(conn, nb,
					"SELECT neighbor, sk, data FROM neighbors('" TBL "', $1, $2, lim => $3, after => $4)",
					4, NULL);
	check_res(res, PGRES_COMMAND_OK, "prepare neighbors page");
	PQclear(res);
	after[0] = '\0';
	for (;;)
	{
		const char *params[4] = {START, PREFIX, limtxt, after[0] ? after : NULL};
		int			rows;

		res = PQexecPrepared(conn, nb, 4, params, NULL, NULL, 0);
		check_res(res, PGRES_TUPLES_OK, "execute neighbors page");
		execs++;
		rows = PQntuples(res);
		if (rows > LIM)
			fail("neighbors page of %d rows with lim %d", rows, LIM);
		for (int i = 0; i < rows; i++, got++)
		{
			if (got >= n)
				fail("neighbors pages return more than %d rows", n);
			if (strcmp(val(res, i, 0), val(full, got, 0)) != 0 ||
				strcmp(val(res, i, 1), val(full, got, 1)) != 0 ||
				!same_json(val(res, i, 2), val(full, got, 2)))
				fail("neighbors page row %d: %s, expected %s", got, val(res, i, 1), val(full, got, 1));
		}
		if (rows > 0)
			snprintf(after, sizeof after, "%s", val(res, rows - 1, 1));
		PQclear(res);
		if (rows == 0)
			break;
		if (execs > 100)
			fail("neighbors paging does not end");
	}
	if (got != n)
		fail("neighbors pages returned %d rows, expected %d", got, n);
	if (execs < 6)
		fail("only %d executions of %s", execs, nb);
	plan_counts(nb, &generic, &custom);
	if (generic < 1)
		fail("%s: no generic plan after %d executions (custom %ld)", nb, execs, custom);
	if (force_generic && custom != 0)
		fail("%s: %ld custom plans under force_generic_plan", nb, custom);
	snprintf(buf, sizeof buf, "neighbors() paged by prepared %s: %d executions, %ld generic plans, equals one call",
			 nb, execs, generic);
	ok(buf);

	/* plain SQL paginated by a prepared statement; its plan must keep the index */
	res = PQprepare(conn, sq,
					"SELECT sk FROM " TBL " WHERE pk = $1 AND sk ^@ $2::text AND sk > $3 "
					"ORDER BY sk LIMIT $4", 4, NULL);
	check_res(res, PGRES_COMMAND_OK, "prepare sql page");
	PQclear(res);
	snprintf(after, sizeof after, "%s", PREFIX);	/* no key equals the bare prefix */
	got = execs = 0;
	for (;;)
	{
		const char *params[4] = {START, PREFIX, after, limtxt};
		int			rows;

		res = PQexecPrepared(conn, sq, 4, params, NULL, NULL, 0);
		check_res(res, PGRES_TUPLES_OK, "execute sql page");
		execs++;
		rows = PQntuples(res);
		for (int i = 0; i < rows; i++, got++)
			if (got >= n || strcmp(val(res, i, 0), edges[idx[got]].sk) != 0)
				fail("sql page row %d: %s", got, val(res, i, 0));
		if (rows > 0)
			snprintf(after, sizeof after, "%s", val(res, rows - 1, 0));
		PQclear(res);
		if (rows < LIM)
			break;
	}
	if (got != n || execs < 6)
		fail("sql paging: %d rows in %d executions, expected %d rows in >= 6", got, execs, n);
	plan_counts(sq, &generic, &custom);
	if (generic < 1)
		fail("%s: no generic plan after %d executions (custom %ld)", sq, execs, custom);
	if (force_generic && custom != 0)
		fail("%s: %ld custom plans under force_generic_plan", sq, custom);
	snprintf(buf, sizeof buf, "EXPLAIN (COSTS OFF) EXECUTE %s('" START "', '" PREFIX "', '" PREFIX "', %d)",
			 sq, LIM);
	check_plan(buf);
	plan_counts(sq, &generic, &custom);
	if (force_generic && custom != 0)
		fail("%s: EXPLAIN used a custom plan", sq);
	snprintf(buf, sizeof buf, "SQL paged by prepared %s (%s): %d executions, generic plan has Index Cond with adjkey_prefix_lower/upper",
			 sq, force_generic ? "force_generic_plan" : "auto", execs);
	ok(buf);

	PQclear(full);
	if (force_generic)
		cmd("RESET plan_cache_mode");
}

static void
check_reverse(void)
{
	char	   *want[MAXE];
	int			n = expected_in(TARGET, PREFIX, want),
				got = 0,
				execs = 0;
	PGresult   *res;
	char		after[1024] = "";

	{
		const char *params[2] = {TARGET, PREFIX};

		res = PQexecParams(conn, "SELECT neighbor, pk, sk FROM reverse_neighbors('" TBL "', $1, $2)",
						   2, NULL, params, NULL, NULL, 0);
	}
	check_res(res, PGRES_TUPLES_OK, "reverse_neighbors");
	if (PQntuples(res) != n || n < 5)
		fail("reverse_neighbors: %d rows, expected %d", PQntuples(res), n);
	for (int i = 0; i < n; i++)
		if (strcmp(val(res, i, 0), want[i]) != 0 || strcmp(val(res, i, 1), want[i]) != 0 ||
			strcmp(val(res, i, 2), PREFIX TARGET) != 0)
			fail("reverse_neighbors row %d: %s, expected %s", i, val(res, i, 0), want[i]);
	PQclear(res);

	/* paginated, after = the last source */
	res = PQprepare(conn, "rev_page",
					"SELECT neighbor FROM reverse_neighbors('" TBL "', $1, $2, lim => 2, after => $3)", 3, NULL);
	check_res(res, PGRES_COMMAND_OK, "prepare reverse page");
	PQclear(res);
	for (;;)
	{
		const char *params[3] = {TARGET, PREFIX, after[0] ? after : NULL};
		int			rows;

		res = PQexecPrepared(conn, "rev_page", 3, params, NULL, NULL, 0);
		check_res(res, PGRES_TUPLES_OK, "reverse page");
		rows = PQntuples(res);
		for (int i = 0; i < rows; i++, got++)
			if (got >= n || strcmp(val(res, i, 0), want[got]) != 0)
				fail("reverse page row %d: %s", got, val(res, i, 0));
		if (rows)
			snprintf(after, sizeof after, "%s", val(res, rows - 1, 0));
		PQclear(res);
		if (rows == 0 || ++execs > 100)
			break;
	}
	if (got != n)
		fail("reverse pages: %d rows, expected %d", got, n);
	ok("reverse_neighbors of " TARGET ": sources in byte order, paged equals one call");
}

static void
check_traverse(const char *start, const char *dir, int reverse)
{
	char	   *nodes[MAXE * 2];
	int			depths[MAXE * 2];
	int			n = expected_bfs(start, PREFIX, 2, reverse, nodes, depths);
	const char *params[3] = {start, PREFIX, dir};
	PGresult   *res = PQexecParams(conn,
								   "SELECT node, depth FROM traverse('" TBL "', $1, $2, 2, $3)",
								   3, NULL, params, NULL, NULL, 0);
	char		buf[256];

	check_res(res, PGRES_TUPLES_OK, "traverse");
	if (PQntuples(res) != n)
		fail("traverse(%s, depth 2, %s): %d nodes, expected %d", start, dir, PQntuples(res), n);
	for (int i = 0; i < PQntuples(res); i++)
	{
		int			found = 0;

		for (int j = 0; j < n; j++)
			if (strcmp(nodes[j], val(res, i, 0)) == 0)
			{
				if (depths[j] != atoi(val(res, i, 1)))
					fail("traverse: %s at depth %s, expected %d", nodes[j], val(res, i, 1), depths[j]);
				found = 1;
			}
		if (!found)
			fail("traverse: unexpected node %s", val(res, i, 0));
	}
	PQclear(res);
	snprintf(buf, sizeof buf, "traverse(%s, depth 2, %s): %d nodes with their depths", start, dir, n);
	ok(buf);
}

/* --- binary COPY --- */

static unsigned
get32(const unsigned char *p)
{
	return ((unsigned) p[0] << 24) | ((unsigned) p[1] << 16) | ((unsigned) p[2] << 8) | p[3];
}

static void
copy_in(const char *sql, const char *data, int len)
{
	PGresult   *res = PQexec(conn, sql);

	check_res(res, PGRES_COPY_IN, sql);
	PQclear(res);
	/* in odd-sized pieces, so rows span messages */
	for (int off = 0; off < len; off += 97)
		if (PQputCopyData(conn, data + off, len - off < 97 ? len - off : 97) != 1)
			fail("PQputCopyData: %s", PQerrorMessage(conn));
	if (PQputCopyEnd(conn, NULL) != 1)
		fail("PQputCopyEnd: %s", PQerrorMessage(conn));
}

static void
check_copy(void)
{
	const char *out = "COPY (SELECT pk, sk, data FROM " TBL " WHERE pk ^@ 'USER#'::text ORDER BY pk, sk) "
		"TO STDOUT (FORMAT binary)";
	PGresult   *res = PQexec(conn, out);
	char	   *data = NULL,
			   *buf;
	int			len = 0,
				n,
				row = 0;
	const unsigned char *p,
			   *end;
	static const char sig[] = "PGCOPY\n\377\r\n\0";

	check_res(res, PGRES_COPY_OUT, "COPY TO STDOUT");
	PQclear(res);
	while ((n = PQgetCopyData(conn, &buf, 0)) > 0)
	{
		data = realloc(data, len + n);
		if (!data)
			fail("out of memory");
		memcpy(data + len, buf, n);
		len += n;
		PQfreemem(buf);
	}
	if (n != -1)
		fail("PQgetCopyData: %s", PQerrorMessage(conn));
	res = PQgetResult(conn);
	check_res(res, PGRES_COMMAND_OK, "end of COPY TO STDOUT");
	PQclear(res);
	while ((res = PQgetResult(conn)) != NULL)
		PQclear(res);

	/* parse: signature, flags, header extension, tuples, trailer */
	p = (const unsigned char *) data;
	end = p + len;
	if (len < 21 || memcmp(p, sig, 11) != 0)
		fail("binary COPY: bad signature");
	p += 15;
	p += 4 + get32(p);
	for (;;)
	{
		int			nf;

		if (p + 2 > end)
			fail("binary COPY: truncated");
		nf = (p[0] << 8) | p[1];
		p += 2;
		if (nf == 0xffff)
			break;
		if (nf != 3)
			fail("binary COPY: tuple with %d fields", nf);
		if (row >= nedges)
			fail("binary COPY: more than %d rows", nedges);
		for (int c = 0; c < 3; c++)
		{
			int			fl = (int) get32(p);

			p += 4;
			if (c < 2)
			{
				const char *want = c == 0 ? edges[row].pk : edges[row].sk;

				if (fl < 1 || p[0] != 1)
					fail("binary COPY row %d col %d: version byte %d, expected 1", row, c, fl > 0 ? p[0] : -1);
				if ((size_t) fl != strlen(want) + 1 || memcmp(p + 1, want, fl - 1) != 0)
					fail("binary COPY row %d col %d: '%.*s', expected '%s'", row, c, fl - 1, p + 1, want);
			}
			if (fl > 0)
				p += fl;
		}
		row++;
	}
	if (row != nedges || p != end)
		fail("binary COPY: %d rows, expected %d (%ld trailing bytes)", row, nedges, (long) (end - p));
	ok("COPY TO STDOUT (FORMAT binary): version byte 1 + UTF-8 bytes in every key");

	cmd("CREATE TABLE " TBL "_copy (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))");
	copy_in("COPY " TBL "_copy FROM STDIN (FORMAT binary)", data, len);
	res = PQgetResult(conn);
	check_res(res, PGRES_COMMAND_OK, "COPY FROM STDIN");
	if (strcmp(PQcmdTuples(res), "") != 0 && atoi(PQcmdTuples(res)) != nedges)
		fail("COPY FROM STDIN copied %s rows", PQcmdTuples(res));
	PQclear(res);
	while ((res = PQgetResult(conn)) != NULL)
		PQclear(res);
	res = q("SELECT (SELECT count(*) FROM " TBL "_copy), "
			"(SELECT count(*) FROM (SELECT pk, sk, data FROM " TBL " WHERE pk ^@ 'USER#'::text "
			" EXCEPT SELECT pk, sk, data FROM " TBL "_copy) d), "
			"(SELECT count(*) FROM (SELECT pk, sk, data FROM " TBL "_copy "
			" EXCEPT SELECT pk, sk, data FROM " TBL ") d)");
	if (atoi(PQgetvalue(res, 0, 0)) != nedges || strcmp(PQgetvalue(res, 0, 1), "0") != 0 ||
		strcmp(PQgetvalue(res, 0, 2), "0") != 0)
		fail("binary COPY round trip differs: %s rows, %s missing, %s extra",
			 PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2));
	PQclear(res);
	ok("COPY FROM STDIN (FORMAT binary) into another table: same rows");

	/* a key with a bad version byte in binary COPY input is rejected */
	{
		/* first key of the first tuple: 19 header bytes, 2 field count, 4 length */
		const char *state;

		data[19 + 2 + 4] = 2;
		cmd("CREATE TABLE " TBL "_bad (pk adjkey, sk adjkey, data jsonb)");
		copy_in("COPY " TBL "_bad FROM STDIN (FORMAT binary)", data, len);
		res = PQgetResult(conn);
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (PQresultStatus(res) != PGRES_FATAL_ERROR || !state || strcmp(state, "22P03") != 0)
			fail("binary COPY with version 2: expected 22P03, got %s %s",
				 PQresStatus(PQresultStatus(res)), state ? state : "");
		PQclear(res);
		while ((res = PQgetResult(conn)) != NULL)
			PQclear(res);
		res = q("SELECT count(*) FROM " TBL "_bad");
		if (strcmp(PQgetvalue(res, 0, 0), "0") != 0)
			fail("failed binary COPY wrote rows");
		PQclear(res);
	}
	ok("binary COPY with an unknown version byte: 22P03, nothing written");
	free(data);
}

/* --- parameters, arrays of keys, query() paging --- */

#define TEXTOID			25
#define TEXTARRAYOID	1009

/* shortest_path() targets from START: their keys need quoting in adjkey[]'s
 * text form (", {, comma, backslash, space, the word NULL) or are multi-byte */
static const char *const path_targets[] = {"USER#{x,y}", "NULL", "USER#back\\slash", "USER#a b", "USER#zoë", "USER#deeper"};
#define NTARGETS ((int) (sizeof path_targets / sizeof path_targets[0]))

/* the SQLSTATE of a failed statement, NULL when it succeeded */
static const char *
sqlstate(PGresult *res)
{
	static char state[6];
	const char *s = PQresultErrorField(res, PG_DIAG_SQLSTATE);

	if (PQresultStatus(res) == PGRES_TUPLES_OK || PQresultStatus(res) == PGRES_COMMAND_OK || !s)
		return NULL;
	snprintf(state, sizeof state, "%s", s);
	return state;
}

/* the text form of an array of keys: {"k1","k2"}, with " and \ escaped */
static char *
array_literal(const char *const *keys, int n)
{
	size_t		size = 3;
	char	   *s,
			   *p;

	for (int i = 0; i < n; i++)
		size += 2 * strlen(keys[i]) + 3;
	s = p = malloc(size);
	if (!s)
		fail("out of memory");
	*p++ = '{';
	for (int i = 0; i < n; i++)
	{
		if (i)
			*p++ = ',';
		*p++ = '"';
		for (const char *c = keys[i]; *c; c++)
		{
			if (*c == '"' || *c == '\\')
				*p++ = '\\';
			*p++ = *c;
		}
		*p++ = '"';
	}
	*p++ = '}';
	*p = '\0';
	return s;
}

/*
 * The keys of an adjkey[] result in binary format (array_send): number of
 * dimensions, a has-nulls flag, the element type; per dimension its size and
 * lower bound; per element its length and its binary form, which for adjkey
 * is the version byte 1 and the UTF-8 bytes.  Returns -1 for NULL.
 */
static int
binary_keys(PGresult *res, int row, int col, char **keys, int max)
{
	const unsigned char *p = (const unsigned char *) PQgetvalue(res, row, col),
			   *end = p + PQgetlength(res, row, col);
	int			n;

	if (PQgetisnull(res, row, col))
		return -1;
	if (PQfformat(res, col) != 1 || PQgetlength(res, row, col) < 12)
		fail("binary adjkey[]: not a binary array");
	if (get32(p) == 0)
		return 0;
	if (get32(p) != 1 || get32(p + 8) != ADJKEY)
		fail("binary adjkey[]: %u dimensions, element type %u", get32(p), get32(p + 8));
	n = (int) get32(p + 12);
	if (n > max)
		fail("binary adjkey[]: %d elements", n);
	p += 20;
	for (int i = 0; i < n; i++)
	{
		int			len = (int) get32(p);

		p += 4;
		if (len < 1 || p + len > end || p[0] != 1)
			fail("binary adjkey[] element %d: length %d, version byte %d", i, len, len > 0 ? p[0] : -1);
		keys[i] = malloc(len);
		if (!keys[i])
			fail("out of memory");
		memcpy(keys[i], p + 1, len - 1);
		keys[i][len - 1] = '\0';
		p += len;
	}
	if (p != end)
		fail("binary adjkey[]: %ld trailing bytes", (long) (end - p));
	return n;
}

/* path (n keys) goes from start to end in depth hops along edges with PREFIX */
static void
check_path(char **path, int n, const char *start, const char *end, int depth, const char *what)
{
	if (n < 1 || n != depth + 1)
		fail("%s: %d keys, expected %d hops from %s to %s", what, n, depth, start, end);
	if (strcmp(path[0], start) != 0 || strcmp(path[n - 1], end) != 0)
		fail("%s: from %s to %s, expected from %s to %s", what, path[0], path[n - 1], start, end);
	for (int i = 1; i < n; i++)
	{
		int			found = 0;

		for (int j = 0; j < nedges && !found; j++)
			found = strcmp(edges[j].pk, path[i - 1]) == 0 && starts_with(edges[j].sk, PREFIX) &&
				strcmp(edges[j].sk + strlen(PREFIX), path[i]) == 0;
		if (!found)
			fail("%s: no edge %s -> %s", what, path[i - 1], path[i]);
	}
	for (int i = 0; i < n; i++)
		free(path[i]);
}

static int
bfs_depth(char **nodes, int *depths, int n, const char *node)
{
	for (int i = 0; i < n; i++)
		if (strcmp(nodes[i], node) == 0)
			return depths[i];
	return -1;
}

/*
 * The generic plan of the prepared statement name (executed at least once
 * under force_generic_plan, none custom): its parameters are typed types
 * (pg_prepared_statements.parameter_types), and EXPLAIN EXECUTE name(args)
 * has a line with index_cond, no Seq Scan, no Filter, and no Sort when
 * sorted (the index gives the order).
 */
static void
check_generic_index(const char *name, const char *args, const char *types,
					const char *index_cond, int sorted)
{
	const char *params[1] = {name};
	char		sql[512];
	PGresult   *res;
	long		generic,
				custom;
	int			found = 0,
				bad = 0;

	plan_counts(name, &generic, &custom);
	if (generic < 1 || custom != 0)
		fail("%s: %ld generic, %ld custom plans under force_generic_plan", name, generic, custom);
	res = PQexecParams(conn, "SELECT parameter_types::text[]::text FROM pg_prepared_statements WHERE name = $1",
					   1, NULL, params, NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "parameter_types");
	if (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), types) != 0)
		fail("%s: parameters typed %s, expected %s", name, PQntuples(res) ? PQgetvalue(res, 0, 0) : "?", types);
	PQclear(res);
	snprintf(sql, sizeof sql, "EXPLAIN (COSTS OFF) EXECUTE %s(%s)", name, args);
	res = q(sql);
	for (int i = 0; i < PQntuples(res); i++)
	{
		const char *line = PQgetvalue(res, i, 0);

		found |= strstr(line, index_cond) != NULL;
		bad |= strstr(line, "Seq Scan") || strstr(line, "Filter:") || (sorted && strstr(line, "Sort"));
	}
	if (!found || bad)
	{
		fprintf(stderr, "plan of %s:\n", sql);
		for (int i = 0; i < PQntuples(res); i++)
			fprintf(stderr, "  %s\n", PQgetvalue(res, i, 0));
		fail("the generic plan of %s is not an index scan with %s%s", name, index_cond,
			 sorted ? " (and no Seq Scan, Filter or Sort)" : " (and no Seq Scan or Filter)");
	}
	PQclear(res);
	plan_counts(name, &generic, &custom);
	if (custom != 0)
		fail("%s: EXPLAIN used a custom plan", name);
}

/* the rows of res are the sk of edges idx[0..n) */
static void
check_sks(PGresult *res, const int *idx, int n, const char *what)
{
	check_res(res, PGRES_TUPLES_OK, what);
	if (PQntuples(res) != n)
		fail("%s: %d rows, expected %d", what, PQntuples(res), n);
	for (int i = 0; i < n; i++)
		if (strcmp(PQgetvalue(res, i, 0), edges[idx[i]].sk) != 0)
			fail("%s: row %d is %s, expected %s", what, i, PQgetvalue(res, i, 0), edges[idx[i]].sk);
}

/*
 * Keys as parameters: untyped (paramTypes NULL) they become adjkeys; typed
 * text (TEXTOID) they are compared as text, adjkey = text, with the same
 * rows, and a generic plan with the same index range.  A graph function's
 * adjkey argument is different: a typed text parameter there needs
 * $1::adjkey (a function argument is converted only by an implicit cast).
 */
static void
check_params(void)
{
	int			idx[MAXE],
				n = expected_out(START, PREFIX, idx);
	const char *params[2] = {START, PREFIX};
	Oid			text2[2] = {TEXTOID, TEXTOID};
	const char *plain = "SELECT sk FROM " TBL " WHERE pk = $1 AND sk ^@ $2 ORDER BY sk",
			   *cast = "SELECT sk FROM " TBL " WHERE pk = $1::adjkey AND sk ^@ $2::text ORDER BY sk",
			   *nb = "SELECT sk FROM neighbors('" TBL "', $1, $2)",
			   *nbcast = "SELECT sk FROM neighbors('" TBL "', $1::adjkey, $2)";
	const char *empty[1] = {""};
	PGresult   *res;
	char		what[256];

	for (int t = 0; t < 4; t++)
	{
		snprintf(what, sizeof what, "%s with parameters %s", t % 2 ? cast : plain, t < 2 ? "untyped" : "typed text");
		res = PQexecParams(conn, t % 2 ? cast : plain, 2, t < 2 ? NULL : text2, params, NULL, NULL, 0);
		check_sks(res, idx, n, what);
		PQclear(res);
	}

	/* '' is no key: untyped it is the error 22P02, typed text no row */
	res = PQexecParams(conn, "SELECT count(*) FROM " TBL " WHERE pk = $1", 1, NULL, empty, NULL, NULL, 0);
	if (!sqlstate(res) || strcmp(sqlstate(res), "22P02") != 0)
		fail("pk = $1 with $1 '' untyped: %s, expected 22P02", PQresultErrorMessage(res));
	PQclear(res);
	res = PQexecParams(conn, "SELECT count(*) FROM " TBL " WHERE pk = $1", 1, text2, empty, NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "pk = $1 with $1 '' typed text");
	if (strcmp(PQgetvalue(res, 0, 0), "0") != 0)
		fail("pk = $1 with $1 '' typed text: %s rows", PQgetvalue(res, 0, 0));
	PQclear(res);

	/* a prepared statement with typed text parameters, under a generic plan */
	cmd("SET plan_cache_mode = force_generic_plan");
	res = PQprepare(conn, "out_text", plain, 2, text2);
	check_res(res, PGRES_COMMAND_OK, "prepare out_text");
	PQclear(res);
	res = PQexecPrepared(conn, "out_text", 2, params, NULL, NULL, 0);
	check_sks(res, idx, n, "EXECUTE out_text");
	PQclear(res);
	check_generic_index("out_text", "'" START "', '" PREFIX "'", "{text,text}",
						"Index Cond: ((pk = $1) AND (sk >= adjkey_prefix_lower($2)) AND (sk < adjkey_prefix_upper($2)))", 1);
	cmd("RESET plan_cache_mode");

	/* graph functions: typed text needs ::adjkey */
	res = PQexecParams(conn, nb, 2, text2, params, NULL, NULL, 0);
	if (!sqlstate(res) || strcmp(sqlstate(res), "42883") != 0)
		fail("neighbors(tbl, $1, $2) with $1 typed text: %s, expected 42883", PQresultErrorMessage(res));
	PQclear(res);
	for (int t = 0; t < 2; t++)
	{
		snprintf(what, sizeof what, "%s with parameters %s", t ? nbcast : nb, t ? "typed text" : "untyped");
		res = PQexecParams(conn, t ? nbcast : nb, 2, t ? text2 : NULL, params, NULL, NULL, 0);
		check_sks(res, idx, n, what);
		PQclear(res);
	}
	ok("key parameters untyped and typed text (TEXTOID), with and without casts: the same rows; "
	   "typed text prepared: generic plan has Index Cond ((pk = $1) AND (sk >= adjkey_prefix_lower($2)) ...); "
	   "'' untyped 22P02, typed text no row; neighbors() with typed text: 42883 without $1::adjkey");
}

static void
check_arrays(void)
{
	const char *keys[] = {"USER#alice", "USER#o\"neil", TARGET, "USER#nobody"};
	char	   *lit = array_literal(keys, 4);
	const char *params[1] = {lit};
	Oid			textarr[1] = {TEXTARRAYOID};
	const char *any = "SELECT pk FROM " TBL " WHERE pk = ANY($1) AND sk = 'PROFILE' ORDER BY pk";
	const char *anycast = "SELECT pk FROM " TBL " WHERE pk = ANY($1::adjkey[]) AND sk = 'PROFILE' ORDER BY pk";
	PGresult   *res;
	char	   *nodes[MAXE * 2],
			   *path[MAXE];
	int			depths[MAXE * 2],
				ndist,
				n;
	char		buf[256];

	/* sending: an untyped array literal, typed text[] with and without a cast */
	for (int t = 0; t < 3; t++)
	{
		res = PQexecParams(conn, t == 1 ? anycast : any, 1, t == 0 ? NULL : textarr, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 2 ||
			strcmp(PQgetvalue(res, 0, 0), "USER#alice") != 0 || strcmp(PQgetvalue(res, 1, 0), TARGET) != 0)
			fail("= ANY(%s) %s: %s %d rows", lit, t == 0 ? "untyped" : t == 1 ? "typed text[], ::adjkey[]" : "typed text[]",
				 PQresultErrorMessage(res), PQntuples(res));
		PQclear(res);
	}
	/* generic plans, untyped (adjkey[]) and typed text[]: the same index condition */
	cmd("SET plan_cache_mode = force_generic_plan");
	for (int t = 0; t < 2; t++)
	{
		const char *name = t ? "profiles_text" : "profiles";

		res = PQprepare(conn, name, any, 1, t ? textarr : NULL);
		check_res(res, PGRES_COMMAND_OK, "prepare profiles");
		PQclear(res);
		res = PQexecPrepared(conn, name, 1, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 2 ||
			strcmp(PQgetvalue(res, 0, 0), "USER#alice") != 0 || strcmp(PQgetvalue(res, 1, 0), TARGET) != 0)
			fail("EXECUTE %s: %s %d rows", name, PQresultErrorMessage(res), PQntuples(res));
		PQclear(res);
		check_generic_index(name, "'{USER#alice}'", t ? "{text[]}" : "{adjkey[]}",
							"Index Cond: ((pk = ANY ($1)) AND (sk = 'PROFILE'::adjkey))", 0);
	}
	cmd("RESET plan_cache_mode");
	free(lit);
	ok("keys to = ANY($1) as an untyped array literal, typed text[] (TEXTARRAYOID) with and without $1::adjkey[]: "
	   "the same rows; generic plans, untyped and typed text[], have Index Cond (pk = ANY ($1))");

	/* receiving: adjkey[] in binary, parsed; in text, one key a row by unnest */
	ndist = expected_bfs(START, PREFIX, 6, 0, nodes, depths);
	for (int t = 0; t < NTARGETS; t++)
	{
		const char *p4[4] = {TBL, START, path_targets[t], PREFIX};
		int			d = bfs_depth(nodes, depths, ndist, path_targets[t]);

		res = PQexecParams(conn, "SELECT shortest_path($1, $2, $3, $4)", 4, NULL, p4, NULL, NULL, 1);
		check_res(res, PGRES_TUPLES_OK, "shortest_path in binary");
		n = binary_keys(res, 0, 0, path, MAXE);
		check_path(path, n, START, path_targets[t], d, "binary shortest_path");
		PQclear(res);
		res = PQexecParams(conn, "SELECT key FROM unnest(shortest_path($1, $2, $3, $4)) WITH ORDINALITY AS p(key, i) "
						   "ORDER BY i", 4, NULL, p4, NULL, NULL, 0);
		check_res(res, PGRES_TUPLES_OK, "unnest(shortest_path)");
		for (int i = 0; i < PQntuples(res) && i < MAXE; i++)
			path[i] = xstrdup(PQgetvalue(res, i, 0));
		check_path(path, PQntuples(res), START, path_targets[t], d, "unnest(shortest_path)");
		PQclear(res);
	}
	{
		const char *p4[4] = {TBL, START, "USER#nobody", PREFIX};

		res = PQexecParams(conn, "SELECT shortest_path($1, $2, $3, $4)", 4, NULL, p4, NULL, NULL, 1);
		check_res(res, PGRES_TUPLES_OK, "shortest_path to nowhere");
		if (binary_keys(res, 0, 0, path, MAXE) != -1)
			fail("shortest_path to nowhere is not NULL");
		PQclear(res);
	}
	snprintf(buf, sizeof buf, "adjkey[] in binary (parsed) and by unnest() WITH ORDINALITY: shortest_path() to %d targets",
			 NTARGETS);
	ok(buf);

	ndist = expected_bfs(START, PREFIX, 3, 0, nodes, depths);
	{
		const char *p3[3] = {TBL, START, PREFIX};

		res = PQexecParams(conn, "SELECT node, depth, path FROM traverse($1, $2, $3, 3, with_path => true)",
						   3, NULL, p3, NULL, NULL, 1);
	}
	check_res(res, PGRES_TUPLES_OK, "traverse with_path in binary");
	if (PQntuples(res) != ndist)
		fail("traverse depth 3: %d nodes, expected %d", PQntuples(res), ndist);
	for (int i = 0; i < PQntuples(res); i++)
	{
		char		node[1024];
		int			depth = (int) get32((const unsigned char *) PQgetvalue(res, i, 1));

		/* node: adjkey in binary */
		snprintf(node, sizeof node, "%.*s", PQgetlength(res, i, 0) - 1, PQgetvalue(res, i, 0) + 1);
		if (bfs_depth(nodes, depths, ndist, node) != depth)
			fail("traverse: %s at depth %d", node, depth);
		check_path(path, binary_keys(res, i, 2, path, MAXE), START, node, depth, "traverse path");
	}
	snprintf(buf, sizeof buf, "traverse(with_path => true) in binary: %d paths", PQntuples(res));
	PQclear(res);
	ok(buf);
}

static void
check_write_api(void)
{
	const char *sks[] = {PREFIX TARGET, PREFIX "USER#o\"neil", PREFIX "USER#a b"};
	char	   *lit = array_literal(sks, 3);
	const char *params[3] = {TBL, "USER#libpq new", lit};
	PGresult   *res;

	/* the edges as JSON built by the server from an array parameter */
	res = PQexecParams(conn, "SELECT put_edges($1, (SELECT jsonb_agg(jsonb_build_object('pk', $2::text, 'sk', sk)) "
					   "FROM unnest($3::text[]) sk))", 3, NULL, params, NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "put_edges");
	if (strcmp(PQgetvalue(res, 0, 0), "3") != 0)
		fail("put_edges wrote %s rows", PQgetvalue(res, 0, 0));
	PQclear(res);
	res = PQexecParams(conn, "SELECT count(*) FROM " TBL " WHERE pk = $1 AND sk = ANY($2)",
					   2, NULL, params + 1, NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "put_edges rows");
	if (strcmp(PQgetvalue(res, 0, 0), "3") != 0)
		fail("put_edges: %s rows found", PQgetvalue(res, 0, 0));
	PQclear(res);
	params[2] = "{" PREFIX "}";
	res = PQexecParams(conn, "SELECT delete_node($1, $2, $3)", 3, NULL, params, NULL, NULL, 0);
	check_res(res, PGRES_TUPLES_OK, "delete_node");
	if (strcmp(PQgetvalue(res, 0, 0), "3") != 0)
		fail("delete_node deleted %s rows", PQgetvalue(res, 0, 0));
	PQclear(res);
	res = q("SELECT count(*) FROM verify_inverted_index('" TBL "_inverted')");
	if (strcmp(PQgetvalue(res, 0, 0), "0") != 0)
		fail("verify_inverted_index reports %s problems", PQgetvalue(res, 0, 0));
	PQclear(res);
	free(lit);
	ok("put_edges(jsonb from an array parameter), read back by = ANY($1), delete_node('{FOLLOWS#}')");
}

/*
 * query() paged by exclusive_start_key = the key (jsonb, as text) of the
 * last row; the pages together must be want[0..nwant): every row once.
 */
static int
page_query(const char *tbl, const char *node, const char *prefix, int backward, int lim,
		   char **want, int nwant, const char *what)
{
	char		limtxt[16],
				last[2048] = "";
	int			got = 0,
				pages = 0;

	snprintf(limtxt, sizeof limtxt, "%d", lim);
	for (;;)
	{
		const char *params[6] = {tbl, node, prefix, backward ? "true" : "false", limtxt, last[0] ? last : NULL};
		PGresult   *res = PQexecParams(conn, "SELECT sort_key, key FROM query($1, $2, 'begins_with', $3, "
									   "backward => $4, lim => $5, exclusive_start_key => $6)",
									   6, NULL, params, NULL, NULL, 0);
		int			rows;

		check_res(res, PGRES_TUPLES_OK, what);
		rows = PQntuples(res);
		pages++;
		if (rows > lim)
			fail("%s: a page of %d rows with lim %d", what, rows, lim);
		for (int i = 0; i < rows; i++, got++)
			if (got >= nwant || strcmp(PQgetvalue(res, i, 0), want[got]) != 0)
				fail("%s: row %d is %s, expected %s", what, got, PQgetvalue(res, i, 0), got < nwant ? want[got] : "none");
		if (rows == lim)
			snprintf(last, sizeof last, "%s", PQgetvalue(res, rows - 1, 1));
		PQclear(res);
		if (rows < lim)
			break;
		if (pages > 1000)
			fail("%s: paging does not end", what);
	}
	if (got != nwant || pages < 3)
		fail("%s: %d rows in %d pages, expected %d rows in 3 or more", what, got, pages, nwant);
	return pages;
}

static void
check_query_paging(void)
{
	int			idx[MAXE],
				n = expected_out(START, PREFIX, idx),
				nin,
				n1,
				n2,
				n3;
	char	   *fwd[MAXE],
			   *bwd[MAXE],
			   *in[MAXE],
				buf[256];

	for (int i = 0; i < n; i++)
		fwd[i] = bwd[n - 1 - i] = edges[idx[i]].sk;
	nin = expected_in(TARGET, PREFIX, in);
	n1 = page_query(TBL, START, PREFIX, 0, LIM, fwd, n, "query forward");
	n2 = page_query(TBL, START, PREFIX, 1, 3, bwd, n, "query backward");
	n3 = page_query(TBL "_inverted", PREFIX TARGET, "", 0, 2, in, nin, "query inverted");
	snprintf(buf, sizeof buf, "query(..., exclusive_start_key => last key): forward %d, backward %d, "
			 "inverted index %d pages, every row once", n1, n2, n3);
	ok(buf);
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "edges.tsv";

	read_edges(path);
	qsort(edges, nedges, sizeof(Edge), cmp_edge);

	conn = PQconnectdb("");
	if (PQstatus(conn) != CONNECTION_OK)
		fail("connection: %s", PQerrorMessage(conn));
	printf("# libpq %d, server %d\n", PQlibVersion(), PQserverVersion(conn));

	setup();
	check_text_and_binary();
	check_paging("", 0);
	check_paging("_g", 1);
	check_params();
	check_query_paging();
	check_arrays();
	check_write_api();
	check_reverse();
	check_traverse(START, "out", 0);
	check_traverse(TARGET, "in", 1);
	check_copy();

	PQfinish(conn);
	printf("# %d checks passed\n", nchecks);
	return 0;
}

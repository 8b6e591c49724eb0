/*-------------------------------------------------------------------------
 *
 * graph_export.c
 *	  The neighborhood of a node as text a diagram tool draws: Graphviz DOT
 *	  or Mermaid.
 *
 * A breadth-first search to the given depth, a level at a time
 * (graph_nodes.c); every edge met is printed once, labelled with the edge
 * prefix, every node once.  Keys are escaped for the format, so a key with
 * quotes or backslashes cannot break out of its label.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_export);

typedef struct ExportState
{
	NodeSet    *nodes;
	NodeSet    *edges;			/* "from>to" keys, to print each edge once */
	StringInfo	out;
	bool		mermaid;
	int32		depth;
	int32		base;			/* id of the level's first node */
	const char *label;
	int			labellen;
} ExportState;

/* Would Mermaid read s[i..] as an entity code ("#quot;", "#9829;")? */
static bool
starts_entity(const char *s, int len, int i)
{
	int			j = i + 1;

	while (j < len && (isalnum((unsigned char) s[j]) || s[j] == '_'))
		j++;
	return s[i] == '#' && j > i + 1 && j < len && s[j] == ';';
}

/*
 * A key inside a quoted label.  Mermaid: characters its parser or its HTML
 * rendering would read as markup, control characters, and a '#' that would
 * start an entity code, as entity codes, so 'A#quot;' stays itself and
 * 'USER#alice' reads as it is.  DOT: quote and backslash escaped, a
 * newline as \n.
 */
static void
append_escaped(StringInfo out, const char *s, int len, bool mermaid)
{
	for (int i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (mermaid && (c < 0x20 || c == 0x7f || strchr("\"<>&|", c) != NULL ||
						starts_entity(s, len, i)))
			appendStringInfo(out, "#%d;", c);
		else if (!mermaid && c == '\n')
			appendStringInfoString(out, "\\n");
		else
		{
			if (!mermaid && (c == '"' || c == '\\'))
				appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, c);
		}
	}
}

static void
append_node_ref(ExportState *st, GNode *n)
{
	if (st->mermaid)
		appendStringInfo(st->out, "n%d", n->id);
	else
	{
		appendStringInfoChar(st->out, '"');
		append_escaped(st->out, n->key.data, n->key.len, false);
		appendStringInfoChar(st->out, '"');
	}
}

static void
append_node_decl(ExportState *st, GNode *n)
{
	if (!st->mermaid)
		return;					/* DOT declares a node by naming it */
	appendStringInfo(st->out, "    n%d[\"", n->id);
	append_escaped(st->out, n->key.data, n->key.len, true);
	appendStringInfoString(st->out, "\"]\n");
}

static bool
export_visit(void *arg, const char *nb, int nblen, int origin, bool reverse,
			 const GraphEdge *edge)
{
	ExportState *st = (ExportState *) arg;
	GNode	   *from = st->nodes->byid[st->base + origin];
	bool		isnew;
	GNode	   *node = nodeset_add(st->nodes, nb, nblen, &isnew);
	GNode	   *src = reverse ? node : from;
	GNode	   *dst = reverse ? from : node;
	char		ekey[32];

	if (isnew)
	{
		node->depth = st->depth;
		node->parent = from->id;
		append_node_decl(st, node);
	}
	snprintf(ekey, sizeof(ekey), "%d>%d", src->id, dst->id);
	nodeset_add(st->edges, ekey, strlen(ekey), &isnew);
	if (!isnew)
		return true;
	appendStringInfoString(st->out, "    ");
	append_node_ref(st, src);
	if (st->mermaid)
	{
		appendStringInfoString(st->out, " -->|\"");
		append_escaped(st->out, st->label, st->labellen, true);
		appendStringInfoString(st->out, "\"| ");
		append_node_ref(st, dst);
		appendStringInfoChar(st->out, '\n');
	}
	else
	{
		appendStringInfoString(st->out, " -> ");
		append_node_ref(st, dst);
		appendStringInfoString(st->out, " [label=\"");
		append_escaped(st->out, st->label, st->labellen, false);
		appendStringInfoString(st->out, "\"];\n");
	}
	return true;
}

/*
 * adjlist_export(tbl, node, edge_prefix, depth, direction, format,
 *				  target_prefix, sk_is_target) RETURNS text
 */
Datum
adjlist_export(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		nodes;
	NodeSet		edges;
	ExportState st;
	StringInfoData out;
	struct varlena *start = PG_GETARG_ADJKEY_PP(1);
	int32		max_depth = graph_check_depth(PG_GETARG_INT32(3));
	char	   *format = text_to_cstring(PG_GETARG_TEXT_PP(5));
	bool		isnew;
	GNode	   *root;
	int32		begin = 0;
	int32		end;
	text	   *result;

	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(6),
							   PG_GETARG_BOOL(7));
	dir = graph_parse_direction(PG_GETARG_TEXT_PP(4), true);
	if (strcmp(format, "dot") != 0 && strcmp(format, "mermaid") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("format must be \"dot\" or \"mermaid\", not \"%s\"", format)));
	/* allocated before SPI_connect(): it must outlive SPI_finish() */
	initStringInfo(&out);
	g = graph_open(PG_GETARG_OID(0), dir, false);
	rd = graph_reader_begin(g);

	nodeset_init(&nodes, CurrentMemoryContext, "export");
	nodeset_init(&edges, CurrentMemoryContext, "export");
	memset(&st, 0, sizeof(st));
	st.nodes = &nodes;
	st.edges = &edges;
	st.out = &out;
	st.mermaid = (strcmp(format, "mermaid") == 0);
	/* the edge label: the prefix without its trailing separator */
	st.label = conv.edge_prefix;
	st.labellen = adjkey_ends_in_separator(conv.edge_prefix, conv.eplen)
		? conv.eplen - 1 : conv.eplen;

	if (st.mermaid)
		appendStringInfoString(&out, "graph LR\n");
	else
		appendStringInfoString(&out, "digraph adjlist {\n    node [shape=box];\n");
	root = nodeset_add(&nodes, ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew);
	if (st.mermaid)
		append_node_decl(&st, root);
	else
	{
		appendStringInfoString(&out, "    ");
		append_node_ref(&st, root);
		appendStringInfoString(&out, " [style=bold];\n");
	}
	end = nodes.n;
	for (int32 depth = 1; depth <= max_depth && begin < end; depth++)
	{
		st.depth = depth;
		st.base = begin;
		graph_expand_level(rd, &conv, dir, nodes.byid + begin, end - begin, export_visit, &st);
		begin = end;
		end = nodes.n;
	}
	if (!st.mermaid)
		appendStringInfoString(&out, "}\n");
	graph_reader_end(rd);
	SPI_finish();
	result = cstring_to_text_with_len(out.data, out.len);
	PG_RETURN_TEXT_P(result);
}

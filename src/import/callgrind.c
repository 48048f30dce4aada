#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * Callgrind (valgrind --tool=callgrind, also written by xdebug, and
 * others): a header ("events:" required), then blocks of context lines
 * (ob=, fl=, fi=/fe=, fn=) and cost lines "position cost cost ...", self
 * costs of the current function; "calls=N target" makes the next cost
 * line the inclusive cost of a call to the callee named by cob=/cfi=/
 * cfl=/cfn=, charged to the caller. Names may be compressed: "fn=(12)
 * name" defines id 12, "fn=(12)" uses it, with one id space each for
 * files, functions and objects.
 *
 * Every number of a cost line may be given as "*" (the same as the one
 * before in that column), "+n"/"-n" (relative to it), decimal or 0x hex.
 * The format says so of positions only; costs are read the same way,
 * which changes nothing for files that never compress them.
 *
 * This is a call graph, not stacks, and a weighted call graph does not
 * determine a flame graph: f called from a and from b may spend all its
 * time in g when called from a and in h when called from b, and the
 * graph cannot tell. The tree is built as speedscope builds it, assuming
 * that every call of a function divides its cost among its callees in
 * the same proportions as all its calls together:
 *
 *  - a function's total is its self cost plus the inclusive cost of the
 *    calls it makes; its weight as a root is its total less the cost of
 *    the calls made to it (roots are the functions left with a positive
 *    weight), so the roots add up to the cost of every function's self,
 *    the file's summary;
 *  - a node of weight w for function f splits w between f's self cost
 *    and one child per callee g in the proportions of f's self cost and
 *    of cost(f->g), by largest remainder (builder_apportion()), so
 *    weights add up exactly and no share is biased;
 *  - a call to a function already on the path (recursion, such as
 *    fib'2 -> fib'2 under valgrind's default --separate-recs) is left
 *    out of the split: its cost is inside the cost of the outer call
 *    already, and the other shares absorb it;
 *  - shares of 0 are dropped, and past MAX_NODES nodes per event no node
 *    is expanded further (a warning says so), since a graph with many
 *    shared callees can unfold into a huge tree.
 *
 * The tree is an approximation; the file's own numbers per function go
 * beside it as figures (struct func_figure), which the function tables
 * show: the self cost, and the inclusive cost as callgrind_annotate
 * --inclusive=yes gives it, with recursion counted once (add_figures()).
 * callgrind_annotate adds the cost of every call made to a function,
 * also from inside its own recursion, and shows fib'2 at six times the
 * program's cost.
 *
 * The expansion uses an explicit stack, never recursion.
 */

#define CALLGRIND_FORMAT "callgrind"
/* Nodes of the unfolded tree, per event, before expansion stops. */
#define MAX_NODES (4u * 1024 * 1024)
/* Position columns ("positions: instr line" has two) and events at most. */
#define MAX_COLUMNS 64
/* Compressed name ids at most: they are small counters in practice. */
#define MAX_NAME_ID (1u << 24)
#define EXCERPT_BYTES 40

enum name_kind { KIND_FILE, KIND_FN, KIND_OB, NR_KINDS };

/* A function of the graph: object, file and name. */
struct cg_node {
	str_id ob, file, name;
	uint32_t first_edge, nr_edges; /* in the sorted edges, once built */
};

/* A call from one function to another, with its inclusive costs. */
struct cg_edge {
	uint32_t from, to;
};

struct cg {
	struct profile_set *ps;
	const struct import_options *opts;

	/* the header */
	size_t nr_events, nr_pos;
	str_id events[MAX_COLUMNS];
	bool have_events;
	int64_t pid;

	/* name compression: ids of each kind to names */
	str_id *names[NR_KINDS];
	size_t alloc_names[NR_KINDS];

	/* context */
	str_id ob, fl, fi, fn;
	str_id cob, cfi, cfn;
	bool have_cfi, have_cob, have_fn;
	bool call_pending;      /* the next cost line is a call's */
	uint64_t prev[2 * MAX_COLUMNS]; /* last value of each column */

	/* the graph */
	struct cg_node *nodes;
	uint32_t nr_nodes, alloc_nodes;
	uint64_t *node_slots;   /* (hash32 << 32) | (index + 1) */
	uint32_t node_mask;
	uint64_t *totals;       /* nr_nodes * nr_events: self + calls made */
	size_t alloc_totals;
	uint64_t *selfs;        /* nr_nodes * nr_events: self costs */
	size_t alloc_selfs;
	struct cg_edge *edges;
	uint32_t nr_edges, alloc_edges;
	uint64_t *edge_slots;
	uint32_t edge_mask;
	uint64_t *edge_costs;   /* nr_edges * nr_events */
	size_t alloc_edge_costs;

	uint64_t nr_bad, first_bad;
	struct strbuf bad_excerpt;
};

static void
cg_release(struct cg *cg)
{
	for (int k = 0; k < NR_KINDS; k++)
		free(cg->names[k]);
	free(cg->nodes);
	free(cg->node_slots);
	free(cg->totals);
	free(cg->selfs);
	free(cg->edges);
	free(cg->edge_slots);
	free(cg->edge_costs);
	strbuf_release(&cg->bad_excerpt);
}

/* ------------------------------------------------------------- the graph */

static uint64_t
node_hash(str_id ob, str_id file, str_id name)
{
	return hash_mix(hash_mix((uint64_t)ob << 32 | file, 0x9e3779b97f4a7c15ULL) ^ name,
			0xff51afd7ed558ccdULL);
}

static void
slots_grow(uint64_t **slots, uint32_t *mask, uint32_t n)
{
	uint32_t size = *mask ? (*mask + 1) * 2 : 64;
	uint64_t *ns;

	while (size < 2 * n)
		size *= 2;
	ns = xcalloc(size, sizeof(*ns));
	for (uint32_t i = 0; *mask && i <= *mask; i++) {
		uint64_t s = (*slots)[i];
		uint32_t j;

		if (!s)
			continue;
		for (j = (uint32_t)(s >> 32) & (size - 1); ns[j]; j = (j + 1) & (size - 1))
			;
		ns[j] = s;
	}
	free(*slots);
	*slots = ns;
	*mask = size - 1;
}

static uint32_t
node_get(struct cg *cg, str_id ob, str_id file, str_id name)
{
	uint32_t h = (uint32_t)node_hash(ob, file, name), j;
	struct cg_node *n;

	if (2 * (cg->nr_nodes + 1) > cg->node_mask)
		slots_grow(&cg->node_slots, &cg->node_mask, cg->nr_nodes + 1);
	for (j = h & cg->node_mask; cg->node_slots[j]; j = (j + 1) & cg->node_mask) {
		uint64_t s = cg->node_slots[j];

		n = &cg->nodes[(uint32_t)s - 1];
		if ((uint32_t)(s >> 32) == h && n->ob == ob && n->file == file && n->name == name)
			return (uint32_t)s - 1;
	}
	ALLOC_GROW(cg->nodes, cg->nr_nodes, cg->alloc_nodes);
	n = &cg->nodes[cg->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->ob = ob;
	n->file = file;
	n->name = name;
	ALLOC_GROW_BY(cg->totals, (size_t)cg->nr_nodes * cg->nr_events, cg->nr_events,
		      cg->alloc_totals);
	memset(cg->totals + (size_t)cg->nr_nodes * cg->nr_events, 0,
	       cg->nr_events * sizeof(uint64_t));
	ALLOC_GROW_BY(cg->selfs, (size_t)cg->nr_nodes * cg->nr_events, cg->nr_events,
		      cg->alloc_selfs);
	memset(cg->selfs + (size_t)cg->nr_nodes * cg->nr_events, 0,
	       cg->nr_events * sizeof(uint64_t));
	cg->node_slots[j] = (uint64_t)h << 32 | (cg->nr_nodes + 1);
	return cg->nr_nodes++;
}

static uint32_t
edge_get(struct cg *cg, uint32_t from, uint32_t to)
{
	uint32_t h = (uint32_t)hash_mix((uint64_t)from << 32 | to, 0x9e3779b97f4a7c15ULL), j;

	if (2 * (cg->nr_edges + 1) > cg->edge_mask)
		slots_grow(&cg->edge_slots, &cg->edge_mask, cg->nr_edges + 1);
	for (j = h & cg->edge_mask; cg->edge_slots[j]; j = (j + 1) & cg->edge_mask) {
		uint64_t s = cg->edge_slots[j];
		const struct cg_edge *e = &cg->edges[(uint32_t)s - 1];

		if ((uint32_t)(s >> 32) == h && e->from == from && e->to == to)
			return (uint32_t)s - 1;
	}
	ALLOC_GROW(cg->edges, cg->nr_edges, cg->alloc_edges);
	cg->edges[cg->nr_edges].from = from;
	cg->edges[cg->nr_edges].to = to;
	ALLOC_GROW_BY(cg->edge_costs, (size_t)cg->nr_edges * cg->nr_events, cg->nr_events,
		      cg->alloc_edge_costs);
	memset(cg->edge_costs + (size_t)cg->nr_edges * cg->nr_events, 0,
	       cg->nr_events * sizeof(uint64_t));
	cg->edge_slots[j] = (uint64_t)h << 32 | (cg->nr_edges + 1);
	return cg->nr_edges++;
}

/* Add with saturation: costs of a huge run never wrap around. */
static void
add_sat(uint64_t *a, uint64_t b)
{
	*a = b > UINT64_MAX - *a ? UINT64_MAX : *a + b;
}

/* ---------------------------------------------------------------- parsing */

static bool
is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void
bad_line(struct cg *cg, const char *line, size_t len, uint64_t lineno)
{
	if (!cg->nr_bad++) {
		cg->first_bad = lineno;
		strbuf_add(&cg->bad_excerpt, line, len < EXCERPT_BYTES ? len : EXCERPT_BYTES);
		if (len > EXCERPT_BYTES)
			strbuf_addstr(&cg->bad_excerpt, "...");
	}
}

/*
 * A name value: "(id) name" defines id, "(id)" uses it, "name" is just a
 * name. Returns 0, or -1 with err set for a use of an undefined id.
 */
static int
parse_name(struct cg *cg, enum name_kind kind, const char *p, const char *end,
	   uint64_t lineno, str_id *out, struct tf_error *err)
{
	uint64_t id = 0;
	const char *q = p + 1;

	if (p < end && *p == '(') {
		while (q < end && *q >= '0' && *q <= '9' && id < MAX_NAME_ID)
			id = id * 10 + (uint64_t)(*q++ - '0');
		if (q < end && *q == ')' && q > p + 1 && id < MAX_NAME_ID) {
			const char *name = q + 1;

			while (name < end && is_space(*name))
				name++;
			if (name == end) {
				if (id >= cg->alloc_names[kind] || !cg->names[kind][id])
					return tf_error_set_at(err, NULL, lineno,
							       "name id (%" PRIu64 ") used before it was defined",
							       id);
				*out = cg->names[kind][id];
				return 0;
			}
			if (id >= cg->alloc_names[kind]) {
				size_t n = cg->alloc_names[kind] ? cg->alloc_names[kind] : 64;

				while (n <= id)
					n *= 2;
				cg->names[kind] = xreallocarray(cg->names[kind], n, sizeof(str_id));
				/* STR_EMPTY marks an id not defined: a definition has a name. */
				memset(cg->names[kind] + cg->alloc_names[kind], 0,
				       (n - cg->alloc_names[kind]) * sizeof(str_id));
				cg->alloc_names[kind] = n;
			}
			*out = ps_str(cg->ps, name, (size_t)(end - name));
			cg->names[kind][id] = *out;
			return 0;
		}
	}
	*out = ps_str(cg->ps, p, (size_t)(end - p));
	return 0;
}

/*
 * One number of a cost line into column col: "*", "+n", "-n", decimal or
 * 0x hex. Returns false if the token is not a number.
 */
static bool
parse_num(struct cg *cg, size_t col, const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int sign = 0;
	bool hex = false;

	if (end - p == 1 && *p == '*') {
		*out = cg->prev[col];
		return true;
	}
	if (*p == '+' || *p == '-') {
		sign = *p == '+' ? 1 : -1;
		p++;
	}
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		hex = true;
		p += 2;
	}
	if (p == end)
		return false;
	for (; p < end; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (hex && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
			return false;
		v = v * (hex ? 16 : 10) + d;
	}
	if (sign > 0)
		v = cg->prev[col] + v;
	else if (sign < 0)
		v = v > cg->prev[col] ? 0 : cg->prev[col] - v;
	cg->prev[col] = v;
	*out = v;
	return true;
}

/* A cost line: self cost of the function, or a call's inclusive cost. */
static int
cost_line(struct cg *cg, const char *p, const char *end, uint64_t lineno, struct tf_error *err)
{
	uint64_t costs[MAX_COLUMNS];
	size_t col = 0;
	uint32_t from, to = 0;
	uint64_t *dst;

	if (!cg->have_events)
		return tf_error_set_at(err, NULL, lineno, "cost line before the events: header");
	memset(costs, 0, sizeof(costs));
	while (p < end) {
		const char *tok = p;
		uint64_t v;

		while (p < end && !is_space(*p))
			p++;
		if (col >= cg->nr_pos + cg->nr_events)
			break; /* more costs than events: ignore the rest */
		if (!parse_num(cg, col, tok, p, &v))
			return 1;
		if (col >= cg->nr_pos)
			costs[col - cg->nr_pos] = v;
		col++;
		while (p < end && is_space(*p))
			p++;
	}
	if (col < cg->nr_pos)
		return 1;
	from = node_get(cg, cg->ob, cg->fl, cg->fn);
	if (cg->call_pending) {
		uint32_t e;

		to = node_get(cg, cg->have_cob ? cg->cob : cg->ob,
			      cg->have_cfi ? cg->cfi : cg->fi, cg->cfn);
		e = edge_get(cg, from, to);
		dst = cg->edge_costs + (size_t)e * cg->nr_events;
		for (size_t i = 0; i < cg->nr_events; i++)
			add_sat(&dst[i], costs[i]);
		/* cob/cfi/cfl name the callee of one call only. */
		cg->call_pending = false;
		cg->have_cfi = cg->have_cob = false;
	} else {
		dst = cg->selfs + (size_t)from * cg->nr_events;
		for (size_t i = 0; i < cg->nr_events; i++)
			add_sat(&dst[i], costs[i]);
	}
	dst = cg->totals + (size_t)from * cg->nr_events;
	for (size_t i = 0; i < cg->nr_events; i++)
		add_sat(&dst[i], costs[i]);
	return 0;
}

static int
events_line(struct cg *cg, const char *p, const char *end, uint64_t lineno,
	    struct tf_error *err)
{
	str_id ev[MAX_COLUMNS];
	size_t n = 0;

	while (p < end) {
		const char *tok;

		while (p < end && is_space(*p))
			p++;
		tok = p;
		while (p < end && !is_space(*p))
			p++;
		if (p == tok)
			break;
		if (n == MAX_COLUMNS)
			return tf_error_set_at(err, NULL, lineno, "more than %d events", MAX_COLUMNS);
		ev[n++] = ps_str(cg->ps, tok, (size_t)(p - tok));
	}
	if (!n)
		return tf_error_set_at(err, NULL, lineno, "no event names after events:");
	if (cg->have_events) {
		/* A file of several parts repeats its header. */
		if (n == cg->nr_events && !memcmp(ev, cg->events, n * sizeof(str_id)))
			return 0;
		return tf_error_set_at(err, NULL, lineno, "events: differs from the first one");
	}
	memcpy(cg->events, ev, n * sizeof(str_id));
	cg->nr_events = n;
	cg->have_events = true;
	return 0;
}

static bool
key_is(const char *k, size_t len, const char *lit)
{
	return len == strlen(lit) && !memcmp(k, lit, len);
}

/* A "key: value" header line; false if line is not one. */
static int
header_line(struct cg *cg, const char *line, const char *end, uint64_t lineno,
	    struct tf_error *err)
{
	const char *p = line, *v;
	size_t klen;

	while (p < end && (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9')))
		p++;
	if (p == line || p == end || *p != ':')
		return 1;
	klen = (size_t)(p - line);
	v = p + 1;
	while (v < end && is_space(*v))
		v++;
	if (key_is(line, klen, "events"))
		return events_line(cg, v, end, lineno, err);
	if (key_is(line, klen, "positions")) {
		size_t n = 0;

		for (const char *q = v; q < end;) {
			while (q < end && is_space(*q))
				q++;
			if (q < end)
				n++;
			while (q < end && !is_space(*q))
				q++;
		}
		if (!n || n > MAX_COLUMNS)
			return tf_error_set_at(err, NULL, lineno, "bad positions: line");
		cg->nr_pos = n;
		return 0;
	}
	if (key_is(line, klen, "pid")) {
		int64_t pid = 0;

		for (const char *q = v; q < end && *q >= '0' && *q <= '9' && pid < INT32_MAX; q++)
			pid = pid * 10 + (*q - '0');
		cg->pid = pid;
	}
	/* version, creator, cmd, part, desc, summary, totals, ...: nothing to keep */
	return 0;
}

/* A "key=value" line; 1 if the line is not one. */
static int
assign_line(struct cg *cg, const char *line, const char *end, uint64_t lineno,
	    struct tf_error *err)
{
	const char *eq = memchr(line, '=', (size_t)(end - line));
	const char *v;
	size_t klen;

	if (!eq)
		return 1;
	klen = (size_t)(eq - line);
	v = eq + 1;
	if (key_is(line, klen, "fn")) {
		/* A new function: its file is the last fl=, not an inlined fi=. */
		cg->fi = cg->fl;
		cg->have_fn = true;
		return parse_name(cg, KIND_FN, v, end, lineno, &cg->fn, err);
	}
	if (key_is(line, klen, "fl")) {
		if (parse_name(cg, KIND_FILE, v, end, lineno, &cg->fl, err))
			return -1;
		cg->fi = cg->fl;
		return 0;
	}
	if (key_is(line, klen, "fi") || key_is(line, klen, "fe"))
		return parse_name(cg, KIND_FILE, v, end, lineno, &cg->fi, err);
	if (key_is(line, klen, "ob"))
		return parse_name(cg, KIND_OB, v, end, lineno, &cg->ob, err);
	if (key_is(line, klen, "cob")) {
		cg->have_cob = true;
		return parse_name(cg, KIND_OB, v, end, lineno, &cg->cob, err);
	}
	if (key_is(line, klen, "cfi") || key_is(line, klen, "cfl")) {
		cg->have_cfi = true;
		return parse_name(cg, KIND_FILE, v, end, lineno, &cg->cfi, err);
	}
	if (key_is(line, klen, "cfn"))
		return parse_name(cg, KIND_FN, v, end, lineno, &cg->cfn, err);
	if (key_is(line, klen, "calls")) {
		cg->call_pending = true;
		return 0;
	}
	/* jump=, jcnd=, jfi=, jfn= and the like: not part of the call graph */
	for (size_t i = 0; i < klen; i++)
		if (!((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z')))
			return 1;
	return 0;
}

static int
parse_line(struct cg *cg, const char *line, size_t len, uint64_t lineno, struct tf_error *err)
{
	const char *p = line, *end = line + len;
	int r;

	while (end > p && is_space(end[-1]))
		end--;
	while (p < end && is_space(*p))
		p++;
	if (p == end || *p == '#')
		return 0;
	if ((*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '*') {
		r = cost_line(cg, p, end, lineno, err);
	} else {
		r = assign_line(cg, p, end, lineno, err);
		if (r > 0)
			r = header_line(cg, p, end, lineno, err);
	}
	if (r < 0)
		return -1;
	if (r > 0)
		bad_line(cg, line, len, lineno);
	return 0;
}

/* -------------------------------------------------------------- the tree */

/* One node of the unfolded tree on the explicit stack. */
struct visit {
	uint32_t node;
	uint32_t next;     /* the next of its edges to look at */
	size_t shares;     /* its children's weights, per edge, at shares[] */
};

/* Sort the edges by caller, keeping their order of appearance per caller. */
static uint32_t *
edges_by_caller(struct cg *cg)
{
	uint32_t *order = xreallocarray(NULL, cg->nr_edges ? cg->nr_edges : 1, sizeof(*order));
	uint32_t *pos = xcalloc((size_t)cg->nr_nodes + 1, sizeof(*pos));

	for (uint32_t e = 0; e < cg->nr_edges; e++)
		pos[cg->edges[e].from + 1]++;
	for (uint32_t n = 0; n < cg->nr_nodes; n++) {
		cg->nodes[n].first_edge = pos[n];
		cg->nodes[n].nr_edges = pos[n + 1];
		pos[n + 1] += pos[n];
	}
	for (uint32_t e = 0; e < cg->nr_edges; e++)
		order[pos[cg->edges[e].from]++] = e;
	free(pos);
	return order;
}

/* The unfolding of one event. */
struct unfold {
	struct cg *cg;
	size_t ev;
	uint32_t *order;
	const frame_id *frames;
	struct profile *p;
	thread_id thread;
	struct builder b;
	struct visit *stack;
	size_t depth, alloc;
	/*
	 * The weights of the children of the nodes on the path, one run per
	 * node, as the split gave them: part 0 of a run is the node's self
	 * weight, then one per edge. Popped with the node.
	 */
	uint64_t *shares, *parts;
	size_t nr_shares, alloc_shares, alloc_parts;
	bool *on_path;
	uint64_t nodes;
	bool capped;
};

static uint64_t
cost(const struct cg *cg, const uint64_t *table, size_t i, size_t ev)
{
	return table[i * cg->nr_events + ev];
}

/* Whether the split of w into k parts at out gave w out (every share was 0: no). */
static bool
w_split(const uint64_t *out, size_t k, uint64_t w)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < k; i++)
		sum += out[i];
	return sum == w;
}

/*
 * Enter node with weight w: push it, split w between its self cost and
 * its calls to functions not on the path, and add its sample, the self
 * part (all of w when it is not expanded).
 */
static int
enter(struct unfold *u, uint32_t node, uint64_t w, struct tf_error *err)
{
	const struct cg *cg = u->cg;
	const struct cg_node *n = &cg->nodes[node];
	size_t k = (size_t)n->nr_edges + 1;
	bool expand = u->nodes < MAX_NODES;
	struct visit *v;
	uint64_t *out;

	ALLOC_GROW(u->stack, u->depth, u->alloc);
	v = &u->stack[u->depth++];
	*v = (struct visit){ node, 0, u->nr_shares };
	u->on_path[node] = true;
	u->nodes++;
	ALLOC_GROW_BY(u->shares, u->nr_shares, k, u->alloc_shares);
	ALLOC_GROW_BY(u->parts, 0, k, u->alloc_parts);
	out = u->shares + u->nr_shares;
	u->nr_shares += k;
	u->parts[0] = cost(cg, cg->selfs, node, u->ev);
	for (uint32_t i = 0; i < n->nr_edges; i++) {
		uint32_t e = u->order[n->first_edge + i];

		/* Recursion: its cost is inside the outer call's already. */
		u->parts[i + 1] = u->on_path[cg->edges[e].to] ? 0 : cost(cg, cg->edge_costs, e, u->ev);
	}
	builder_apportion(w, u->parts, k, out);
	/*
	 * No share at all (no self cost, every call recursive): the node
	 * keeps its weight. Past the budget, it keeps its callees' too.
	 */
	if (!expand) {
		for (size_t i = 1; i < k; i++)
			u->capped |= out[i] > 0;
	}
	if (!expand || !w_split(out, k, w)) {
		memset(out + 1, 0, (k - 1) * sizeof(*out));
		out[0] = w;
	}
	if (!out[0])
		return 0;
	builder_begin_sample(&u->b, u->p, u->thread, out[0], 0, false);
	for (size_t d = 0; d < u->depth; d++)
		builder_push_frame(&u->b, u->frames[u->stack[d].node]);
	return builder_end_sample(&u->b, BUILDER_ROOT_FIRST, err);
}

/*
 * Unfold the graph for event ev into samples of profile p, one per tree
 * node with self weight, depth first, its path pushed root first.
 */
static int
unfold(struct unfold *u, struct tf_error *err)
{
	struct cg *cg = u->cg;
	size_t E = cg->nr_events;
	uint64_t *incoming = xcalloc(cg->nr_nodes ? cg->nr_nodes : 1, sizeof(*incoming));
	int ret = 0;

	for (uint32_t e = 0; e < cg->nr_edges; e++)
		add_sat(&incoming[cg->edges[e].to], cg->edge_costs[(size_t)e * E + u->ev]);
	for (uint32_t root = 0; root < cg->nr_nodes && !ret; root++) {
		uint64_t t = cg->totals[(size_t)root * E + u->ev];

		/* A root's weight: the part of its total no caller accounts for. */
		if (t <= incoming[root])
			continue;
		ret = enter(u, root, t - incoming[root], err);
		while (u->depth && !ret) {
			struct visit *v = &u->stack[u->depth - 1];
			const struct cg_node *n = &cg->nodes[v->node];
			bool pushed = false;

			while (v->next < n->nr_edges) {
				uint32_t i = v->next++;
				uint32_t e = u->order[n->first_edge + i];
				uint64_t w = u->shares[v->shares + 1 + i];

				if (!w)
					continue;
				ret = enter(u, cg->edges[e].to, w, err);
				pushed = true;
				break;
			}
			if (!pushed) {
				u->on_path[v->node] = false;
				u->nr_shares = v->shares;
				u->depth--;
			}
		}
	}
	for (size_t k = 0; k < u->depth; k++)
		u->on_path[u->stack[k].node] = false;
	u->depth = 0;
	u->nr_shares = 0;
	free(incoming);
	return ret;
}

/*
 * The strongly connected components of the call graph (the cycles of
 * mutual recursion), as comp[node]: Tarjan's algorithm with an explicit
 * stack, never recursion. Edges must be sorted (u->order).
 */
static uint32_t *
components(const struct unfold *u)
{
	const struct cg *cg = u->cg;
	size_t n = cg->nr_nodes ? cg->nr_nodes : 1;
	uint32_t *comp = xmalloc(sizeof(*comp) * n), *index = xmalloc(sizeof(*index) * n);
	uint32_t *low = xmalloc(sizeof(*low) * n), *next = xcalloc(n, sizeof(*next));
	uint32_t *stk = xmalloc(sizeof(*stk) * n), *call = xmalloc(sizeof(*call) * n);
	bool *on = xcalloc(n, sizeof(*on));
	uint32_t nr_stk = 0, nr_comp = 0, counter = 0;

	for (uint32_t i = 0; i < cg->nr_nodes; i++)
		index[i] = UINT32_MAX;
	for (uint32_t r = 0; r < cg->nr_nodes; r++) {
		size_t depth = 0;

		if (index[r] != UINT32_MAX)
			continue;
		call[depth++] = r;
		index[r] = low[r] = counter++;
		stk[nr_stk++] = r;
		on[r] = true;
		while (depth) {
			uint32_t v = call[depth - 1];
			const struct cg_node *nd = &cg->nodes[v];

			if (next[v] < nd->nr_edges) {
				uint32_t w = cg->edges[u->order[nd->first_edge + next[v]++]].to;

				if (index[w] == UINT32_MAX) {
					index[w] = low[w] = counter++;
					stk[nr_stk++] = w;
					on[w] = true;
					call[depth++] = w;
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				uint32_t w;

				do {
					w = stk[--nr_stk];
					on[w] = false;
					comp[w] = nr_comp;
				} while (w != v);
				nr_comp++;
			}
			depth--;
			if (depth && low[v] < low[call[depth - 1]])
				low[call[depth - 1]] = low[v];
		}
	}
	free(index);
	free(low);
	free(next);
	free(stk);
	free(call);
	free(on);
	return comp;
}

/*
 * The file's own figures for event ev (see the top): the self cost, and
 * as the inclusive cost, what callgrind_annotate --inclusive=yes shows
 * (the cost of the calls made to the function; for a function nobody
 * calls, its self cost and its calls) with recursion counted once:
 *
 *  - a call from outside the function's cycle of mutual recursion (its
 *    strongly connected component) is never inside another activation
 *    of the function, else the caller would be on the cycle, so when
 *    there are such calls, they are the inclusive cost, exactly;
 *  - a function called from its own cycle only (is_odd'2 called by
 *    is_even'2) gets the calls made to it, whose nested calls count more
 *    than once, capped at the cost of the calls into its cycle, inside
 *    which all its activations run;
 *  - calls of a function to itself are inside its outer call: never
 *    counted, also for a function that nobody else calls.
 */
static void
add_figures(struct unfold *u)
{
	struct cg *cg = u->cg;
	size_t n = cg->nr_nodes ? cg->nr_nodes : 1;
	uint32_t *comp = components(u);
	uint64_t *outside = xcalloc(n, sizeof(*outside)), *inside = xcalloc(n, sizeof(*inside));
	uint64_t *out = xcalloc(n, sizeof(*out)), *into_comp = xcalloc(n, sizeof(*into_comp));
	bool *called = xcalloc(n, sizeof(*called)), *called_out = xcalloc(n, sizeof(*called_out));

	for (uint32_t e = 0; e < cg->nr_edges; e++) {
		const struct cg_edge *ed = &cg->edges[e];
		uint64_t c = cost(cg, cg->edge_costs, e, u->ev);

		if (ed->from == ed->to)
			continue;
		called[ed->to] = true;
		add_sat(&out[ed->from], c);
		if (comp[ed->from] == comp[ed->to]) {
			add_sat(&inside[ed->to], c);
		} else {
			called_out[ed->to] = true;
			add_sat(&outside[ed->to], c);
			add_sat(&into_comp[comp[ed->to]], c);
		}
	}
	for (uint32_t i = 0; i < cg->nr_nodes; i++) {
		uint64_t self = cost(cg, cg->selfs, i, u->ev), total;

		if (called_out[i]) {
			total = outside[i];
		} else if (called[i]) {
			total = inside[i];
			if (into_comp[comp[i]] && total > into_comp[comp[i]])
				total = into_comp[comp[i]];
		} else {
			total = self;
			add_sat(&total, out[i]);
		}
		if (!self && !total)
			continue;
		profile_add_figure(u->p, u->frames[i], self, total > self ? total : self);
	}
	free(comp);
	free(outside);
	free(inside);
	free(out);
	free(into_comp);
	free(called);
	free(called_out);
}

static enum weight_unit
event_unit(const char *name)
{
	size_t n = strlen(name);

	if (n >= 7 && !strcmp(name + n - 7, "(bytes)"))
		return UNIT_BYTES;
	return UNIT_EVENTS;
}

static int
build_profiles(struct cg *cg, struct tf_error *err)
{
	frame_id *frames = xreallocarray(NULL, cg->nr_nodes ? cg->nr_nodes : 1, sizeof(*frames));
	struct unfold u;
	int ret = 0;

	memset(&u, 0, sizeof(u));
	u.cg = cg;
	u.order = edges_by_caller(cg);
	u.frames = frames;
	u.thread = profile_set_thread(cg->ps, cg->pid ? cg->pid : -1, -1, STR_EMPTY);
	u.on_path = xcalloc(cg->nr_nodes ? cg->nr_nodes : 1, sizeof(*u.on_path));
	builder_init(&u.b, cg->ps);
	u.b.max_samples = cg->opts ? cg->opts->max_samples : 0;
	for (uint32_t n = 0; n < cg->nr_nodes; n++) {
		struct frame f = { 0 };

		f.name = cg->nodes[n].name;
		f.file = cg->nodes[n].file;
		f.module = cg->nodes[n].ob;
		frames[n] = profile_set_frame(cg->ps, &f);
	}
	for (size_t ev = 0; ev < cg->nr_events && !ret; ev++) {
		const char *name = ps_get(cg->ps, cg->events[ev]);

		u.ev = ev;
		u.nodes = 0;
		u.p = profile_set_profile(cg->ps, cg->events[ev], event_unit(name));
		/* A tree rebuilt from the call graph's costs, not samples. */
		u.p->no_samples = true;
		ret = unfold(&u, err);
		if (!ret)
			add_figures(&u);
	}
	if (u.capped)
		profile_set_warn(cg->ps, 0, "call tree cut off at %u nodes per event; "
				 "the rest stays with the callers", MAX_NODES);
	builder_release(&u.b);
	free(u.stack);
	free(u.shares);
	free(u.parts);
	free(u.on_path);
	free(u.order);
	free(frames);
	return ret;
}

int
callgrind_parse_lines(struct line_reader *lr, const struct import_options *opts,
		      struct profile_set *ps, struct tf_error *err)
{
	struct cg cg;
	const char *line;
	size_t len;
	int r, ret = -1;

	memset(&cg, 0, sizeof(cg));
	cg.ps = ps;
	cg.opts = opts;
	cg.nr_pos = 1;
	strbuf_init(&cg.bad_excerpt, 0);
	ps->format = CALLGRIND_FORMAT;
	cg.ob = cg.fl = cg.fi = cg.fn = cg.cfn = STR_EMPTY;
	while ((r = line_reader_next(lr, &line, &len, err)) > 0)
		if (parse_line(&cg, line, len, lr->lineno, err))
			goto out;
	if (r < 0)
		goto out;
	if (!cg.have_events) {
		tf_error_set_at(err, NULL, 0, "no events: header in callgrind input");
		goto out;
	}
	if (cg.nr_bad)
		profile_set_warn(ps, cg.first_bad, "%" PRIu64 " line%s not understood, first: %s",
				 cg.nr_bad, cg.nr_bad == 1 ? "" : "s", cg.bad_excerpt.buf);
	ret = build_profiles(&cg, err);
out:
	cg_release(&cg);
	return ret;
}

static int
callgrind_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	       struct tf_error *err)
{
	struct line_reader lr;
	int ret;

	line_reader_init(&lr, in);
	ret = callgrind_parse_lines(&lr, opts, ps, err);
	line_reader_release(&lr);
	return ret;
}

/* ------------------------------------------------------------------ probe */

/*
 * Sure on "# callgrind format" first; else the header must hold an
 * "events:" line, and a fn= or fl= line, or a callgrind creator/version
 * line, must back it.
 */
static int
callgrind_probe(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	bool events = false, context = false, header = false;

	if (!len || memchr(data, '\0', len))
		return 0;
	if (text_starts(data, len, "# callgrind format"))
		return 100;
	for (int n = 0; p < end && n < 200; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);

		if (text_starts(p, l, "events:"))
			events = true;
		else if (text_starts(p, l, "version:") || text_starts(p, l, "creator:") ||
			 text_starts(p, l, "positions:"))
			header = true;
		else if (text_starts(p, l, "fn=") || text_starts(p, l, "fl="))
			context = true;
		if (!nl)
			break;
		p = nl + 1;
	}
	if (events && context)
		return 90;
	if (events && header)
		return 60;
	return 0;
}

static const char *const callgrind_names[] = { "callgrind.out*", NULL };

const struct importer importer_callgrind = {
	.name = "callgrind",
	.description = "callgrind",
	.probe = callgrind_probe,
	.load = callgrind_load,
	.names = callgrind_names,
};

#include "config.h"

#include "tflame/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/bsearch.h"
#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/json_reader.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * GHC's profiling report as JSON (+RTS -pj, the .prof file):
 *
 *	{"program": NAME, "tick_interval": µs, "total_ticks": N, ...,
 *	 "cost_centres": [{id, label, module, src_loc, is_caf}, ...],
 *	 "profile": {"id": CC, "entries": N, "ticks": N, "alloc": BYTES,
 *		     "children": [nodes...]}}
 *
 * The profile is GHC's cost-centre tree, recursion already collapsed,
 * with each node's own ticks and allocation. It gives two profiles, as
 * speedscope reads it (which calls them "PROGRAM time" and "PROGRAM
 * allocation"): "time", every node a sample of its path weighing its
 * ticks times the tick interval (in ns; speedscope shows a tick as 1 ms,
 * which is the default interval), and "allocation", weighing its bytes. A frame is "Module.label", with src_loc as its file
 * unless it is a "<built-in>" sort of place.
 *
 * The JSON nesting is the tree: the reader is allowed
 * JSON_READER_TREE_DEPTH levels, open nodes are a stack of indexes, and
 * the nodes are recorded first and become samples at the end, so that
 * cost_centres may come before or after the tree.
 */

#define GHC_FORMAT "GHC profile"
/* GHC's default tick, and what speedscope assumes a tick is. */
#define DEFAULT_TICK_US 1000

struct ghc_node {
	int64_t cc;             /* cost centre id, -1 until read */
	uint64_t ticks, alloc;
};

struct ghc_cc {
	int64_t id;
	frame_id frame;
};

struct ghc {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct tf_error *err;
	uint64_t reported;

	struct strbuf program;
	int64_t tick_us;        /* 0 when not given */
	struct ghc_cc *ccs;
	size_t nr_ccs, alloc_ccs;
	struct ghc_node *nodes;
	struct builder_tree_node *tree; /* per node: parent, and the cc's frame */
	size_t nr_nodes, alloc_nodes, alloc_tree;
	bool has_profile;
};

static bool
tok_uint(struct ghc *g, enum json_token tok, uint64_t *v)
{
	int64_t x;

	if (tok != JSON_NUMBER ||
	    !json_reader_int(g->jr, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

/* One cost centre (begun). */
static int
read_cc(struct ghc *g)
{
	struct strbuf label = STRBUF_INIT, module = STRBUF_INIT, loc = STRBUF_INIT;
	enum json_token tok;
	bool has_id = false;
	uint64_t id = 0;
	struct frame f;
	int ret = -1;

	while ((tok = json_reader_next(g->jr, g->err)) == JSON_KEY) {
		const char *key = json_reader_text(g->jr);
		struct strbuf *sb = !strcmp(key, "label") ? &label : !strcmp(key, "module") ? &module
				  : !strcmp(key, "src_loc") ? &loc : NULL;
		bool is_id = !strcmp(key, "id");

		tok = json_reader_next(g->jr, g->err);
		if (sb && tok == JSON_STRING) {
			strbuf_add(sb, json_reader_text(g->jr), json_reader_len(g->jr));
		} else if (is_id && tok > JSON_TRUNCATED) {
			if (!tok_uint(g, tok, &id) || id > INT64_MAX) {
				json_reader_badf(g->jr, g->err, "a cost centre id is not a number");
				goto out;
			}
			has_id = true;
		} else if (json_reader_skip_value(g->jr, tok, g->err)) {
			goto out;
		}
	}
	if (tok != JSON_OBJECT_END) {
		json_reader_fail(g->jr, tok, g->err);
		goto out;
	}
	if (!has_id) {
		json_reader_badf(g->jr, g->err, "a cost centre has no id");
		goto out;
	}
	memset(&f, 0, sizeof(f));
	strbuf_addf(&module, ".%s", label.len ? label.buf : "");
	f.name = ps_str(g->ps, module.buf, module.len);
	f.module = STR_EMPTY;
	/* Not "<built-in>", "<entire-module>", "<no location info>". */
	f.file = loc.len && loc.buf[0] != '<' ? ps_str(g->ps, loc.buf, loc.len) : STR_EMPTY;
	ALLOC_GROW(g->ccs, g->nr_ccs, g->alloc_ccs);
	g->ccs[g->nr_ccs].id = (int64_t)id;
	g->ccs[g->nr_ccs].frame = profile_set_frame(g->ps, &f);
	g->nr_ccs++;
	ret = 0;
out:
	strbuf_release(&label);
	strbuf_release(&module);
	strbuf_release(&loc);
	return ret;
}

static int
read_ccs(struct ghc *g)
{
	enum json_token tok;

	while ((tok = json_reader_next(g->jr, g->err)) == JSON_OBJECT_BEGIN)
		if (read_cc(g))
			return -1;
	if (tok == JSON_ARRAY_END)
		return 0;
	if (tok <= JSON_TRUNCATED)
		return json_reader_fail(g->jr, tok, g->err);
	return json_reader_badf(g->jr, g->err, "a cost centre is not an object");
}

static void
node_begin(void *ctx, int64_t parent, int64_t node)
{
	struct ghc *g = ctx;

	(void)node;
	if (g->nr_nodes >= UINT32_MAX - 1)
		die("out of memory (profile tree of 2^32 nodes)");
	ALLOC_GROW(g->nodes, g->nr_nodes, g->alloc_nodes);
	ALLOC_GROW(g->tree, g->nr_nodes, g->alloc_tree);
	g->tree[g->nr_nodes].parent = (uint32_t)(parent + 1);
	g->tree[g->nr_nodes].frame = FRAME_NONE;
	g->nodes[g->nr_nodes].cc = -1;
	g->nodes[g->nr_nodes].ticks = 0;
	g->nodes[g->nr_nodes].alloc = 0;
	g->nr_nodes++;
}

static int
node_member(void *ctx, int64_t node, const char *key, enum json_token tok)
{
	struct ghc *g = ctx;
	struct ghc_node *n = &g->nodes[node];
	int which = !strcmp(key, "id") ? 1 : !strcmp(key, "ticks") ? 2 : !strcmp(key, "alloc") ? 3 : 0;
	uint64_t v;

	if (!which || tok <= JSON_TRUNCATED)
		return json_reader_skip_value(g->jr, tok, g->err);
	if (!tok_uint(g, tok, &v) || (which == 1 && v > INT64_MAX))
		return json_reader_badf(g->jr, g->err, "%s of a profile node is not a number", key);
	if (which == 1)
		n->cc = (int64_t)v;
	else if (which == 2)
		n->ticks = v;
	else
		n->alloc = v;
	return 0;
}

static int
node_end(void *ctx, int64_t node)
{
	struct ghc *g = ctx;

	if (g->nodes[node].cc < 0)
		return json_reader_badf(g->jr, g->err, "a profile node has no id");
	return json_reader_progress(g->jr, g->opts->progress, &g->reported, g->err);
}

static const struct json_tree_ops tree_ops = {
	.begin = node_begin,
	.member = node_member,
	.end = node_end,
};

/* The tree (the root node has begun). */
static int
read_tree(struct ghc *g)
{
	if (g->has_profile)
		return json_reader_badf(g->jr, g->err, "a second profile");
	g->has_profile = true;
	return json_reader_tree(g->jr, "children", "a profile node", &tree_ops, g, g->err);
}

static int
read_document(struct ghc *g)
{
	enum json_token tok = json_reader_next(g->jr, g->err);

	if (tok != JSON_OBJECT_BEGIN) {
		if (tok <= JSON_TRUNCATED)
			return json_reader_fail(g->jr, tok, g->err);
		return json_reader_badf(g->jr, g->err, "not a GHC profile: expected an object");
	}
	while ((tok = json_reader_next(g->jr, g->err)) == JSON_KEY) {
		char key[64];
		int which;
		uint64_t v;

		snprintf(key, sizeof(key), "%s", json_reader_text(g->jr));
		which = !strcmp(key, "program") ? 1
		      : !strcmp(key, "tick_interval") ? 2
		      : !strcmp(key, "cost_centres") ? 3
		      : !strcmp(key, "profile") ? 4
		      : 0;

		tok = json_reader_next(g->jr, g->err);
		if (which == 1 && tok == JSON_STRING) {
			strbuf_setlen(&g->program, 0);
			strbuf_add(&g->program, json_reader_text(g->jr), json_reader_len(g->jr));
		} else if (which == 2 && tok_uint(g, tok, &v)) {
			g->tick_us = v > INT64_MAX ? 0 : (int64_t)v;
		} else if (which == 3 && tok == JSON_ARRAY_BEGIN) {
			if (read_ccs(g))
				return -1;
		} else if (which == 4 && tok == JSON_OBJECT_BEGIN) {
			if (read_tree(g))
				return -1;
		} else if (which > 2 && tok > JSON_TRUNCATED) {
			return json_reader_badf(g->jr, g->err, "%s has the wrong type", key);
		} else if (json_reader_skip_value(g->jr, tok, g->err)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_reader_fail(g->jr, tok, g->err);
	tok = json_reader_next(g->jr, g->err);
	if (tok != JSON_END)
		return json_reader_fail(g->jr, tok, g->err);
	if (!g->has_profile)
		return tf_error_set(g->err, "no profile tree: not a GHC -pj profile");
	return 0;
}

/* ---------------------------------------------------------------- building */

static int
cmp_cc(const void *a, const void *b)
{
	const struct ghc_cc *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static bool
cc_before(const void *elem, const void *key)
{
	return ((const struct ghc_cc *)elem)->id < *(const int64_t *)key;
}

/* The frame of cost centre id, or FRAME_NONE. */
static frame_id
cc_frame(const struct ghc *g, int64_t id)
{
	size_t i = bsearch_first(g->ccs, g->nr_ccs, sizeof(*g->ccs), &id, cc_before);

	return i < g->nr_ccs && g->ccs[i].id == id ? g->ccs[i].frame : FRAME_NONE;
}

static int
build(struct ghc *g)
{
	struct profile *time, *alloc;
	/* The program, as the process of the samples. */
	thread_id th = profile_set_thread(g->ps, -1, -1, ps_str(g->ps, g->program.buf ? g->program.buf : "",
								  g->program.len));
	uint64_t tick_ns = (uint64_t)(g->tick_us ? g->tick_us : DEFAULT_TICK_US) * 1000;
	stack_id *memo, s;
	struct builder b;
	int ret = 0;

	if (!g->tick_us)
		profile_set_warn(g->ps, 0, "no tick_interval: a tick is taken as %d us",
				 DEFAULT_TICK_US);
	if (g->nr_ccs) /* qsort() wants an array, even of none */
		qsort(g->ccs, g->nr_ccs, sizeof(*g->ccs), cmp_cc);
	time = profile_set_profile(g->ps, ps_str(g->ps, "time", 4), UNIT_NANOSECONDS);
	alloc = profile_set_profile(g->ps, ps_str(g->ps, "allocation", 10), UNIT_BYTES);
	/* One sample per node of the cost-centre tree. */
	time->no_samples = alloc->no_samples = true;

	/* Every node's frame first: a node names its cost centre by id. */
	for (size_t i = 0; i < g->nr_nodes; i++) {
		g->tree[i].frame = cc_frame(g, g->nodes[i].cc);
		if (g->tree[i].frame == FRAME_NONE)
			return tf_error_set(g->err, "profile node %zu names cost centre %lld, which "
						    "cost_centres does not list", i,
					    (long long)g->nodes[i].cc);
	}
	memo = xcalloc(g->nr_nodes ? g->nr_nodes : 1, sizeof(*memo));
	builder_init(&b, g->ps);
	b.max_samples = g->opts->max_samples;
	for (size_t i = 0; i < g->nr_nodes && !ret && !builder_stopped(&b); i++) {
		const struct ghc_node *n = &g->nodes[i];
		uint64_t w;

		if (!n->ticks && !n->alloc)
			continue;
		s = builder_tree_stack(&b, g->tree, memo, i);
		if (n->ticks) {
			if (__builtin_mul_overflow(n->ticks, tick_ns, &w)) {
				ret = tf_error_set(g->err, "ticks of profile node %zu overflow", i);
				break;
			}
			ret = builder_add_stack_sample(&b, time, th, w, 0, false, s, g->err);
		}
		if (n->alloc && !ret)
			ret = builder_add_stack_sample(&b, alloc, th, n->alloc, 0, false, s, g->err);
	}
	free(memo);
	builder_release(&b);
	return ret;
}

int
ghc_parse(struct json_reader *jr, const struct import_options *opts,
	  struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct ghc g;
	int ret;

	memset(&g, 0, sizeof(g));
	g.jr = jr;
	g.ps = ps;
	g.opts = opts ? opts : &defaults;
	g.err = err;
	strbuf_init(&g.program, 0);
	ps->format = GHC_FORMAT;
	jr->max_depth = JSON_READER_TREE_DEPTH;

	ret = read_document(&g);
	if (!ret)
		ret = build(&g);
	json_reader_progress_end(jr, g.opts->progress, &g.reported);
	strbuf_release(&g.program);
	free(g.ccs);
	free(g.nodes);
	free(g.tree);
	return ret;
}

static int
ghc_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	 struct tf_error *err)
{
	return json_reader_load(in, ghc_parse, opts, ps, err);
}

/* GHC writes "program", the RTS fields, then "cost_centres" and "profile". */
static int
ghc_probe(const char *data, size_t len)
{
	if (json_first_byte(data, len) != '{')
		return 0;
	if (json_probe_has_key(data, len, "cost_centres"))
		return json_probe_has_key(data, len, "program") ? 95 : 60;
	if (json_probe_has_key(data, len, "program") && json_probe_has_key(data, len, "rts_arguments"))
		return 60;
	return 0;
}

static const char *const ghc_names[] = { ".prof", NULL };

const struct importer importer_ghc = {
	.name = "ghc",
	.description = GHC_FORMAT,
	.probe = ghc_probe,
	.load = ghc_load,
	.names = ghc_names,
};

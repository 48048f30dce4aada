#include "config.h"

#include "tflame/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/json_reader.h"
#include "tflame/jsframes.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * V8's sampling heap profile, as Chrome DevTools ("Allocation sampling")
 * and node --heap-prof save it (.heapprofile):
 *
 *	{"head": {"callFrame": {functionName, url, lineNumber, ...},
 *		  "selfSize": BYTES, "id": N, "children": [nodes...]},
 *	 "samples": [{size, nodeId, ordinal}, ...]}
 *
 * The tree is the call tree of the allocations still alive when the
 * profile was taken, and selfSize the bytes each call path allocated
 * itself. As speedscope does, every node is a sample of its own path
 * weighing its selfSize, "(root)" included, and "samples" (newer files)
 * is not read: its sizes add up to the same selfSizes. Functions are
 * named as in a .cpuprofile (jsframes.h): a function is its name, url,
 * line and column, one with no name "(anonymous) FILE:LINE:COL", so that
 * the anonymous functions of a program are not one row.
 *
 * The JSON nesting is the tree, as deep as the stacks: the reader is
 * allowed JSON_READER_TREE_DEPTH levels and the open nodes are a stack
 * of indexes here, never recursion. Nodes are recorded (parent, frame,
 * size) and become samples at the end, so that key order does not matter.
 */

#define HEAP_FORMAT "V8 heap profile"


struct heapprofile {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct tf_error *err;
	uint64_t reported;

	/*
	 * per node: its parent and frame, its size; the frame is a call
	 * frame of jf (FRAME_NONE until read) until build() names them
	 */
	struct builder_tree_node *nodes;
	struct js_frames jf;
	uint64_t *sizes;
	size_t nr_nodes, alloc_nodes, alloc_sizes;
	bool has_head;
};

/* A callFrame object (begun). */
static int
read_call_frame(struct heapprofile *h, frame_id *out)
{
	struct strbuf name = STRBUF_INIT, url = STRBUF_INIT;
	enum json_token tok;
	int64_t line = -1, col = -1;
	int ret = -1;

	while ((tok = json_reader_next(h->jr, h->err)) == JSON_KEY) {
		const char *key = json_reader_text(h->jr);
		int which = !strcmp(key, "functionName") ? 1 : !strcmp(key, "url") ? 2
			  : !strcmp(key, "lineNumber") ? 3 : !strcmp(key, "columnNumber") ? 4 : 0;

		tok = json_reader_next(h->jr, h->err);
		if (which && which < 3 && tok == JSON_STRING)
			strbuf_add(which == 1 ? &name : &url, json_reader_text(h->jr),
				   json_reader_len(h->jr));
		else if (which >= 3 && tok == JSON_NUMBER &&
			 json_reader_int(h->jr, which == 3 ? &line : &col))
			;
		else if (json_reader_skip_value(h->jr, tok, h->err))
			goto out;
	}
	if (tok != JSON_OBJECT_END) {
		json_reader_fail(h->jr, tok, h->err);
		goto out;
	}
	*out = js_frames_add(&h->jf, h->ps, name.buf, name.len, url.buf, url.len, line, col);
	ret = 0;
out:
	strbuf_release(&name);
	strbuf_release(&url);
	return ret;
}

static void
node_begin(void *ctx, int64_t parent, int64_t node)
{
	struct heapprofile *h = ctx;

	(void)node;
	if (h->nr_nodes >= UINT32_MAX - 1)
		die("out of memory (heap profile of 2^32 nodes)");
	ALLOC_GROW(h->nodes, h->nr_nodes, h->alloc_nodes);
	ALLOC_GROW(h->sizes, h->nr_nodes, h->alloc_sizes);
	h->nodes[h->nr_nodes].parent = (uint32_t)(parent + 1);
	h->nodes[h->nr_nodes].frame = FRAME_NONE;
	h->sizes[h->nr_nodes] = 0;
	h->nr_nodes++;
}

static int
node_member(void *ctx, int64_t node, const char *key, enum json_token tok)
{
	struct heapprofile *h = ctx;
	int64_t v;

	if (!strcmp(key, "callFrame") && tok == JSON_OBJECT_BEGIN)
		return read_call_frame(h, &h->nodes[node].frame);
	if (!strcmp(key, "selfSize") && tok == JSON_NUMBER) {
		if (!json_reader_int(h->jr, &v) || v < 0)
			return json_reader_badf(h->jr, h->err, "selfSize %s is not a size in bytes",
					       json_reader_text(h->jr));
		h->sizes[node] = (uint64_t)v;
		return 0;
	}
	if ((!strcmp(key, "callFrame") || !strcmp(key, "selfSize")) && tok > JSON_TRUNCATED)
		return json_reader_badf(h->jr, h->err, "%s has the wrong type", key);
	return json_reader_skip_value(h->jr, tok, h->err);
}

static int
node_end(void *ctx, int64_t node)
{
	struct heapprofile *h = ctx;

	(void)node;
	return json_reader_progress(h->jr, h->opts->progress, &h->reported, h->err);
}

static const struct json_tree_ops tree_ops = {
	.begin = node_begin,
	.member = node_member,
	.end = node_end,
};

/* The head node (begun) and all below it. */
static int
read_tree(struct heapprofile *h)
{
	if (h->has_head)
		return json_reader_badf(h->jr, h->err, "a second head");
	h->has_head = true;
	return json_reader_tree(h->jr, "children", "a node of the tree", &tree_ops, h, h->err);
}

static int
read_document(struct heapprofile *h)
{
	enum json_token tok = json_reader_next(h->jr, h->err);

	if (tok != JSON_OBJECT_BEGIN) {
		if (tok <= JSON_TRUNCATED)
			return json_reader_fail(h->jr, tok, h->err);
		return json_reader_badf(h->jr, h->err, "not a heap profile: expected an object");
	}
	while ((tok = json_reader_next(h->jr, h->err)) == JSON_KEY) {
		bool head = !strcmp(json_reader_text(h->jr), "head");

		tok = json_reader_next(h->jr, h->err);
		if (head && tok == JSON_OBJECT_BEGIN) {
			if (read_tree(h))
				return -1;
		} else if (head && tok > JSON_TRUNCATED) {
			return json_reader_badf(h->jr, h->err, "head is not an object");
		} else if (json_reader_skip_value(h->jr, tok, h->err)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_reader_fail(h->jr, tok, h->err);
	tok = json_reader_next(h->jr, h->err);
	if (tok != JSON_END)
		return json_reader_fail(h->jr, tok, h->err);
	if (!h->has_head)
		return tf_error_set(h->err, "no head: not a heap profile");
	return 0;
}

/* Every node that allocated is a sample of its path. */
static int
build(struct heapprofile *h)
{
	struct profile *p = profile_set_profile(h->ps, ps_str(h->ps, "heap", 4), UNIT_BYTES);
	thread_id th = profile_set_thread(h->ps, -1, -1, STR_EMPTY);
	stack_id *memo = xcalloc(h->nr_nodes ? h->nr_nodes : 1, sizeof(*memo));
	frame_id unknown = FRAME_NONE;
	struct builder b;
	int ret = 0;

	/* One sample per node of the tree. */
	p->no_samples = true;

	js_frames_finish(&h->jf, h->ps);
	for (size_t i = 0; i < h->nr_nodes; i++) {
		if (h->nodes[i].frame != FRAME_NONE) {
			h->nodes[i].frame = js_frames_frame(&h->jf, h->nodes[i].frame);
			continue;
		}
		if (unknown == FRAME_NONE) {
			struct frame uf = { .name = ps_str(h->ps, "[unknown]", 9) };

			unknown = profile_set_frame(h->ps, &uf);
		}
		h->nodes[i].frame = unknown;
	}
	builder_init(&b, h->ps);
	b.max_samples = h->opts->max_samples;
	for (size_t i = 0; i < h->nr_nodes && !ret && !builder_stopped(&b); i++)
		if (h->sizes[i])
			ret = builder_add_stack_sample(&b, p, th, h->sizes[i], 0, false,
						 builder_tree_stack(&b, h->nodes, memo, i), h->err);
	builder_release(&b);
	free(memo);
	return ret;
}

int
heapprofile_parse(struct json_reader *jr, const struct import_options *opts,
		  struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct heapprofile h;
	int ret;

	memset(&h, 0, sizeof(h));
	h.jr = jr;
	h.ps = ps;
	h.opts = opts ? opts : &defaults;
	h.err = err;
	ps->format = HEAP_FORMAT;
	jr->max_depth = JSON_READER_TREE_DEPTH;
	js_frames_init(&h.jf);

	ret = read_document(&h);
	if (!ret)
		ret = build(&h);
	json_reader_progress_end(jr, h.opts->progress, &h.reported);
	free(h.nodes);
	free(h.sizes);
	js_frames_release(&h.jf);
	return ret;
}

static int
heapprofile_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
		 struct tf_error *err)
{
	return json_reader_load(in, heapprofile_parse, opts, ps, err);
}

/*
 * {"head": {"callFrame": ..., "selfSize": ...}}: above the Chrome importer,
 * which reads an old .cpuprofile's head (with hitCount, not selfSize).
 */
static int
heapprofile_probe(const char *data, size_t len)
{
	if (json_first_byte(data, len) != '{' || !json_probe_has_key(data, len, "head"))
		return 0;
	if (!json_probe_has_key(data, len, "selfSize"))
		return 0;
	return json_probe_has_key(data, len, "hitCount") ? 30 : 95;
}

static const char *const heapprofile_names[] = { ".heapprofile", NULL };

const struct importer importer_heapprofile = {
	.name = "heapprofile",
	.description = HEAP_FORMAT,
	.probe = heapprofile_probe,
	.load = heapprofile_load,
	.names = heapprofile_names,
};

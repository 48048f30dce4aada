#include "config.h"

#include "tflame/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/json_reader.h"
#include "tflame/jsframes.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Chrome and Node profiles, all JSON:
 *
 *  - .cpuprofile: {nodes: [{id, callFrame, children}], samples: [ids],
 *    timeDeltas: [µs], startTime, endTime}, or the old {head: {callFrame,
 *    children: [nested nodes]}} form;
 *  - Trace Event Format: [events] or {traceEvents: [events]}, with B/E/X
 *    events nesting per pid/tid, M events naming processes and threads,
 *    and CPU profiles in ph:"P" Profile / ProfileChunk events;
 *  - the sampled trace of Hermes and others: {traceEvents, samples: [{ts,
 *    tid, sf}], stackFrames: {id: {name, parent}}}.
 *
 * Nothing here needs the document in memory. Events are kept compactly (a
 * few words each) because B/E/X events must be sorted per thread before
 * they nest: an X event is written when it ends, after its children. Each
 * thread's events become intervals, the intervals a sweep of samples of
 * the open stack, dated and weighted in ns, so Time Order is real time.
 * Trace events and CPU profiles go into profiles of their own ("trace
 * events", "cpu"): their weights mean different things.
 */

#define CHROME_FORMAT "Chrome/Node"

struct ch_thread {
	int64_t pid, tid;
	char *name;             /* from thread_name, owned */
};

struct ch_process {
	int64_t pid;
	char *name;             /* from process_name, owned */
};

/* A B, E or X event. */
struct ch_event {
	int64_t ts;             /* ns */
	int64_t end;            /* ns, X only */
	uint32_t cf;            /* call frame (js_frames); CF_NONE for an E without a name */
	uint32_t thread;        /* index in threads */
	uint32_t seq;           /* input order, to keep sorts stable */
	char ph;
};

/* A node of a CPU profile or a stack frame of a sampled trace. */
struct ch_node {
	int64_t id;
	int64_t parent;         /* id, or -1 */
	uint32_t cf;            /* call frame (js_frames), CF_NONE until read */
	uint32_t resolved;      /* index of the parent node + 1, 0 for none */
	/* positionTicks: ch_cpu's ticks[first_tick, first_tick + nr_ticks) */
	uint32_t first_tick, nr_ticks;
};

#define CF_NONE UINT32_MAX

/* A line of a node's positionTicks: the samples of the node that were there. */
struct ch_tick {
	uint32_t line;          /* 1-based, as V8 writes positionTicks */
	uint32_t ticks;
};

/* A CPU profile: a .cpuprofile, or the Profile + ProfileChunks of one id. */
struct ch_cpu {
	char *id;               /* trace id, or NULL */
	int64_t pid, tid;
	/*
	 * ns; endTime is not read: the last sample ends the profile, as
	 * speedscope weighs it.
	 */
	int64_t start;
	bool has_start;
	struct ch_node *nodes;
	size_t nr_nodes, alloc_nodes;
	int64_t *samples;       /* node ids */
	size_t nr_samples, alloc_samples;
	int64_t *times;         /* µs deltas as read, then ns times */
	size_t nr_times, alloc_times;
	bool absolute_times;    /* old form: timestamps, not deltas */
	struct ch_tick *ticks;  /* the nodes' positionTicks */
	size_t nr_ticks, alloc_ticks;
};

/* A sample of a sampled trace. */
struct ch_sample {
	int64_t ts;
	int64_t sf;
	uint32_t thread;
	uint64_t weight;
};

struct chrome {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct tf_error *err;
	struct builder b;
	struct js_frames jf;    /* every call frame, named once all are read */

	struct ch_thread *threads;
	size_t nr_threads, alloc_threads, last_thread;
	struct ch_process *procs;
	size_t nr_procs, alloc_procs;

	struct ch_event *events;
	size_t nr_events, alloc_events;

	struct ch_cpu *cpus;
	size_t nr_cpus, alloc_cpus;

	struct ch_node *frames; /* stackFrames of a sampled trace */
	size_t nr_frames, alloc_frames;
	struct ch_sample *tsamples;
	size_t nr_tsamples, alloc_tsamples;

	bool truncated;         /* the trace lacked its end */
	uint64_t bad_events, first_bad_line;
	char *first_bad;
	uint64_t reported;
};

/* ---------------------------------------------------------------- reading */

static int cmp_node_id(const void *a, const void *b);
static ssize_t find_node(const struct ch_node *nodes, size_t n, int64_t id);

/*
 * Children lists, as (child, parent) id pairs, give the nodes their
 * parents. The nodes are sorted by id for it, which keeps this
 * O(n log n) on profiles of many nodes.
 */
static void
apply_children(struct ch_cpu *cpu, const int64_t *kids, size_t nr_kids)
{
	if (!nr_kids)
		return;
	if (cpu->nr_nodes)
		qsort(cpu->nodes, cpu->nr_nodes, sizeof(*cpu->nodes), cmp_node_id);
	for (size_t k = 0; k + 1 < nr_kids; k += 2) {
		ssize_t n = find_node(cpu->nodes, cpu->nr_nodes, kids[k]);

		if (n >= 0)
			cpu->nodes[n].parent = kids[k + 1];
	}
}

JSON_READER_SHORTHANDS(struct chrome)

static int
progress(struct chrome *c)
{
	return json_reader_progress(c->jr, c->opts->progress, &c->reported, c->err);
}

static bool
is_scalar(enum json_token tok)
{
	return tok == JSON_NUMBER || tok == JSON_STRING;
}

/* An integer field, as a number or a string ("tid": "7695"). */
static bool
tok_int(struct chrome *c, enum json_token tok, int64_t *v)
{
	return is_scalar(tok) && json_parse_int(json_reader_text(c->jr),
						json_reader_len(c->jr), v);
}

/* A time in µs (number or string, maybe fractional) as ns. */
static bool
tok_time(struct chrome *c, enum json_token tok, int64_t *ns)
{
	return is_scalar(tok) && json_parse_scaled(json_reader_text(c->jr),
						   json_reader_len(c->jr), 3, ns);
}

/* An event we could not use: counted, reported once as a warning. */
static void
bad_event(struct chrome *c, const char *why)
{
	if (!c->bad_events++) {
		c->first_bad_line = c->jr->tok_line;
		c->first_bad = xstrdup(why);
	}
}

static uint32_t
thread_index(struct chrome *c, int64_t pid, int64_t tid)
{
	struct ch_thread *t;

	if (c->last_thread < c->nr_threads && c->threads[c->last_thread].pid == pid &&
	    c->threads[c->last_thread].tid == tid)
		return (uint32_t)c->last_thread;
	for (size_t i = 0; i < c->nr_threads; i++) {
		if (c->threads[i].pid == pid && c->threads[i].tid == tid) {
			c->last_thread = i;
			return (uint32_t)i;
		}
	}
	ALLOC_GROW(c->threads, c->nr_threads, c->alloc_threads);
	t = &c->threads[c->nr_threads];
	t->pid = pid;
	t->tid = tid;
	t->name = NULL;
	c->last_thread = c->nr_threads;
	return (uint32_t)c->nr_threads++;
}

/*
 * The call frame of a function (see jsframes.h for its name): a URL and a
 * 0-based line and column (-1: unknown).
 */
static uint32_t
call_frame(struct chrome *c, const char *name, size_t len, const char *url, size_t url_len,
	   int64_t line0, int64_t col0)
{
	return js_frames_add(&c->jf, c->ps, name, len, url, url_len, line0, col0);
}

/* A callFrame object (begun): its function, url, line and column. */
static int
read_call_frame(struct chrome *c, uint32_t *cf)
{
	struct strbuf name = STRBUF_INIT, url = STRBUF_INIT;
	int64_t line = -1, col = -1;
	enum json_token tok;

	while ((tok = next(c)) == JSON_KEY) {
		const char *key = json_reader_text(c->jr);
		int which = !strcmp(key, "functionName") ? 1 : !strcmp(key, "url") ? 2
			  : !strcmp(key, "lineNumber") ? 3 : !strcmp(key, "columnNumber") ? 4 : 0;

		tok = next(c);
		if (which == 1 && tok == JSON_STRING)
			strbuf_add(&name, json_reader_text(c->jr), json_reader_len(c->jr));
		else if (which == 2 && tok == JSON_STRING)
			strbuf_add(&url, json_reader_text(c->jr), json_reader_len(c->jr));
		else if (which == 3 && tok_int(c, tok, &line))
			;
		else if (which == 4 && tok_int(c, tok, &col))
			;
		else if (skip(c, tok))
			goto fail;
	}
	if (tok != JSON_OBJECT_END) {
		json_fail(c, tok);
		goto fail;
	}
	*cf = call_frame(c, name.buf, name.len, url.buf, url.len, line, col);
	strbuf_release(&name);
	strbuf_release(&url);
	return 0;
fail:
	strbuf_release(&name);
	strbuf_release(&url);
	return -1;
}

static struct ch_node *
add_node(struct ch_cpu *cpu, int64_t id, int64_t parent, uint32_t cf)
{
	struct ch_node *n;

	ALLOC_GROW(cpu->nodes, cpu->nr_nodes, cpu->alloc_nodes);
	n = &cpu->nodes[cpu->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->id = id;
	n->parent = parent;
	n->cf = cf;
	return n;
}

/*
 * positionTicks (the array has begun): [{line, ticks}], appended to
 * cpu->ticks; *first and *nr say where. An entry that is not a line and
 * a count is skipped, as a profile without them shows the function's
 * own line.
 */
static int
read_position_ticks(struct chrome *c, struct ch_cpu *cpu, uint32_t *first, uint32_t *nr)
{
	enum json_token tok;

	*first = (uint32_t)cpu->nr_ticks;
	while ((tok = next(c)) == JSON_OBJECT_BEGIN) {
		int64_t line = -1, ticks = -1;

		while ((tok = next(c)) == JSON_KEY) {
			const char *key = json_reader_text(c->jr);
			int which = !strcmp(key, "line") ? 1 : !strcmp(key, "ticks") ? 2 : 0;

			tok = next(c);
			if (which == 1 && tok_int(c, tok, &line))
				continue;
			if (which == 2 && tok_int(c, tok, &ticks))
				continue;
			if (skip(c, tok))
				return -1;
		}
		if (tok != JSON_OBJECT_END)
			return json_fail(c, tok);
		if (line < 1 || line > UINT32_MAX || ticks < 1 || ticks > UINT32_MAX)
			continue;
		if (cpu->nr_ticks >= UINT32_MAX - 1)
			return bad(c, "too many positionTicks");
		ALLOC_GROW(cpu->ticks, cpu->nr_ticks, cpu->alloc_ticks);
		cpu->ticks[cpu->nr_ticks].line = (uint32_t)line;
		cpu->ticks[cpu->nr_ticks++].ticks = (uint32_t)ticks;
	}
	if (tok != JSON_ARRAY_END)
		return tok <= JSON_TRUNCATED ? json_fail(c, tok)
					     : bad(c, "a position tick is not an object");
	*nr = (uint32_t)(cpu->nr_ticks - *first);
	return 0;
}

/*
 * nodes: [{id, callFrame, parent?, children?}] (the array has begun). A
 * child list gives parents too: children are recorded as (child, parent)
 * pairs and resolved when the profile is built.
 */
static int
read_nodes(struct chrome *c, struct ch_cpu *cpu, int64_t **kids, size_t *nr_kids,
	   size_t *alloc_kids)
{
	enum json_token tok;

	while ((tok = next(c)) == JSON_OBJECT_BEGIN) {
		int64_t id = -1, parent = -1;
		uint32_t cf = CF_NONE, first_tick = 0, nr_ticks = 0;
		struct ch_node *n;

		while ((tok = next(c)) == JSON_KEY) {
			const char *key = json_reader_text(c->jr);
			int which = !strcmp(key, "id") ? 1 : !strcmp(key, "parent") ? 2
				  : !strcmp(key, "callFrame") ? 3 : !strcmp(key, "children") ? 4
				  : !strcmp(key, "positionTicks") ? 5 : 0;

			tok = next(c);
			if (which == 1 && tok_int(c, tok, &id))
				continue;
			if (which == 2 && tok_int(c, tok, &parent))
				continue;
			if (which == 3 && tok == JSON_OBJECT_BEGIN) {
				if (read_call_frame(c, &cf))
					return -1;
				continue;
			}
			if (which == 5 && tok == JSON_ARRAY_BEGIN) {
				if (read_position_ticks(c, cpu, &first_tick, &nr_ticks))
					return -1;
				continue;
			}
			if (which == 4 && tok == JSON_ARRAY_BEGIN) {
				/* The parent's id may come after its children: -1 for now. */
				size_t first = *nr_kids;
				int64_t kid;

				while ((tok = next(c)) != JSON_ARRAY_END) {
					if (!tok_int(c, tok, &kid))
						return tok <= JSON_TRUNCATED ? json_fail(c, tok)
									     : bad(c, "a child is not a node id");
					ALLOC_GROW_BY(*kids, *nr_kids, 2, *alloc_kids);
					(*kids)[(*nr_kids)++] = kid;
					(*kids)[(*nr_kids)++] = -1;
				}
				for (size_t k = first; k < *nr_kids; k += 2)
					(*kids)[k + 1] = INT64_MIN; /* filled below */
				continue;
			}
			if (skip(c, tok))
				return -1;
		}
		if (tok != JSON_OBJECT_END)
			return json_fail(c, tok);
		if (id < 0)
			return bad(c, "a profile node has no id");
		for (size_t k = *nr_kids; k >= 2 && (*kids)[k - 1] == INT64_MIN; k -= 2)
			(*kids)[k - 1] = id;
		if (cf == CF_NONE)
			cf = call_frame(c, "", 0, NULL, 0, -1, -1);
		n = add_node(cpu, id, parent, cf);
		n->first_tick = first_tick;
		n->nr_ticks = nr_ticks;
	}
	if (tok != JSON_ARRAY_END)
		return tok <= JSON_TRUNCATED ? json_fail(c, tok) : bad(c, "a profile node is not an object");
	return 0;
}

static int
read_int_array(struct chrome *c, int64_t **v, size_t *nr, size_t *alloc, bool times)
{
	enum json_token tok;

	while ((tok = next(c)) != JSON_ARRAY_END) {
		int64_t x;

		if (!(times ? tok_time(c, tok, &x) : tok_int(c, tok, &x)))
			return tok <= JSON_TRUNCATED ? json_fail(c, tok) : bad(c, "expected an integer");
		ALLOC_GROW(*v, *nr, *alloc);
		(*v)[(*nr)++] = x;
	}
	return 0;
}

/*
 * The members of a CPU profile object (begun): nodes, samples,
 * timeDeltas, startTime. Children lists are resolved into
 * parents at the end.
 */
static int
read_cpu_profile(struct chrome *c, struct ch_cpu *cpu)
{
	int64_t *kids = NULL;
	size_t nr_kids = 0, alloc_kids = 0;
	enum json_token tok;
	int ret = -1;

	while ((tok = next(c)) == JSON_KEY) {
		const char *key = json_reader_text(c->jr);
		int which = !strcmp(key, "nodes") ? 1 : !strcmp(key, "samples") ? 2
			  : !strcmp(key, "timeDeltas") ? 3 : !strcmp(key, "startTime") ? 4 : 0;

		tok = next(c);
		if (which == 1 && tok == JSON_ARRAY_BEGIN) {
			if (read_nodes(c, cpu, &kids, &nr_kids, &alloc_kids))
				goto out;
		} else if (which == 2 && tok == JSON_ARRAY_BEGIN) {
			if (read_int_array(c, &cpu->samples, &cpu->nr_samples, &cpu->alloc_samples,
					   false))
				goto out;
		} else if (which == 3 && tok == JSON_ARRAY_BEGIN) {
			if (read_int_array(c, &cpu->times, &cpu->nr_times, &cpu->alloc_times, true))
				goto out;
		} else if (which == 4 && tok_time(c, tok, &cpu->start)) {
			cpu->has_start = true;
		} else if (skip(c, tok)) {
			goto out;
		}
	}
	if (tok != JSON_OBJECT_END) {
		json_fail(c, tok);
		goto out;
	}
	apply_children(cpu, kids, nr_kids);
	ret = 0;
out:
	free(kids);
	return ret;
}

/*
 * The old .cpuprofile form: {head: {callFrame, hitCount, children: [...]}},
 * nested as deep as the stacks. The JSON nesting is the tree, so the
 * reader's depth gives each node its parent: a stack of open node indexes,
 * never recursion. Its samples name nodes by their "id", which V8 wrote
 * after the children: nodes are numbered in reading order first, and take
 * the file's ids at the end if every node has one. (Its startTime and
 * endTime are in seconds, unlike its timestamps, but the timestamps alone
 * date the samples.)
 */
/*
 * Give the nodes from first on (numbered 1.. in reading order, from first
 * + 1) the ids the file gave them, parents included, if it gave every one.
 */
static void
apply_head_ids(struct ch_cpu *cpu, size_t first, const int64_t *ids)
{
	for (size_t k = first; k < cpu->nr_nodes; k++)
		if (ids[k - first] < 0)
			return;
	for (size_t k = first; k < cpu->nr_nodes; k++) {
		struct ch_node *n = &cpu->nodes[k];

		if (n->parent > (int64_t)first)
			n->parent = ids[n->parent - 1 - (int64_t)first];
		n->id = ids[k - first];
	}
}

static int
read_head(struct chrome *c, struct ch_cpu *cpu, int64_t **hits, size_t *nr_hits,
	  size_t *alloc_hits, bool *heap)
{
	size_t *open = NULL, nr_open = 0, alloc_open = 0;
	/* Per open node: the oldest form has no callFrame, only these. */
	struct old_frame {
		struct strbuf name, url;
		int64_t line, col;
	} *old = NULL;
	size_t alloc_old = 0;
	size_t base = json_reader_depth(c->jr), first = cpu->nr_nodes;
	int64_t *ids = NULL;    /* per node from first: its id in the file, or -1 */
	size_t alloc_ids = 0;
	enum json_token tok = JSON_OBJECT_BEGIN;
	int ret = -1;

	/* The head object has begun: treat it as the first node. */
	for (;;) {
		if (tok == JSON_OBJECT_BEGIN) {
			int64_t parent = nr_open ? cpu->nodes[open[nr_open - 1]].id : -1;

			ALLOC_GROW(open, nr_open, alloc_open);
			if (nr_open >= alloc_old) {
				old = xreallocarray(old, alloc_open, sizeof(*old));
				for (size_t k = alloc_old; k < alloc_open; k++) {
					strbuf_init(&old[k].name, 0);
					strbuf_init(&old[k].url, 0);
				}
				alloc_old = alloc_open;
			}
			strbuf_setlen(&old[nr_open].name, 0);
			strbuf_setlen(&old[nr_open].url, 0);
			old[nr_open].line = old[nr_open].col = -1;
			open[nr_open++] = cpu->nr_nodes;
			ALLOC_GROW(ids, cpu->nr_nodes - first, alloc_ids);
			ids[cpu->nr_nodes - first] = -1;
			add_node(cpu, (int64_t)cpu->nr_nodes + 1, parent, CF_NONE);
			ALLOC_GROW(*hits, *nr_hits, *alloc_hits);
			(*hits)[(*nr_hits)++] = 0;
		}
		tok = next(c);
		if (tok == JSON_KEY) {
			struct ch_node *n = &cpu->nodes[open[nr_open - 1]];
			const char *key = json_reader_text(c->jr);
			int which = !strcmp(key, "callFrame") ? 1 : !strcmp(key, "children") ? 2
				  : !strcmp(key, "hitCount") ? 3 : !strcmp(key, "id") ? 4
				  : !strcmp(key, "selfSize") ? 5 : !strcmp(key, "functionName") ? 6
				  : !strcmp(key, "url") ? 7 : !strcmp(key, "lineNumber") ? 8
				  : !strcmp(key, "columnNumber") ? 9 : 0;
			struct old_frame *of = &old[nr_open - 1];
			int64_t v;

			tok = next(c);
			if ((which == 6 || which == 7) && tok == JSON_STRING) {
				strbuf_add(which == 6 ? &of->name : &of->url, json_reader_text(c->jr),
					   json_reader_len(c->jr));
			} else if (which == 8 && tok_int(c, tok, &v)) {
				of->line = v;
			} else if (which == 9 && tok_int(c, tok, &v)) {
				of->col = v;
			} else if (which == 1 && tok == JSON_OBJECT_BEGIN) {
				if (read_call_frame(c, &n->cf))
					goto out;
			} else if (which == 2 && tok == JSON_ARRAY_BEGIN) {
				tok = next(c);
				if (tok == JSON_ARRAY_END)
					continue;
				if (tok != JSON_OBJECT_BEGIN)
					goto unexpected;
				continue; /* a child node begins */
			} else if (which == 3 && tok_int(c, tok, &v)) {
				(*hits)[open[nr_open - 1]] = v;
			} else if (which == 4 && tok_int(c, tok, &v) && v >= 0) {
				ids[open[nr_open - 1] - first] = v;
			} else if (which == 5) {
				*heap = true;
				if (skip(c, tok))
					goto out;
			} else if (skip(c, tok)) {
				goto out;
			}
			tok = JSON_KEY;
			continue;
		}
		if (tok == JSON_OBJECT_END) {
			struct ch_node *n = &cpu->nodes[open[--nr_open]];
			struct old_frame *of = &old[nr_open];

			if (n->cf == CF_NONE)
				n->cf = call_frame(c, of->name.buf, of->name.len, of->url.buf,
						   of->url.len, of->line, of->col);
			if (json_reader_depth(c->jr) < base)
				break;
			/* After a child: another child, or the end of the list. */
			tok = next(c);
			if (tok == JSON_ARRAY_END) {
				tok = JSON_KEY;
				continue;
			}
			if (tok == JSON_OBJECT_BEGIN)
				continue;
		}
unexpected:
		if (tok <= JSON_TRUNCATED)
			json_fail(c, tok);
		else
			bad(c, "unexpected value in a profile node");
		goto out;
	}
	apply_head_ids(cpu, first, ids);
	ret = 0;
out:
	free(ids);
	for (size_t k = 0; k < alloc_old; k++) {
		strbuf_release(&old[k].name);
		strbuf_release(&old[k].url);
	}
	free(old);
	free(open);
	return ret;
}

/* args.data of a trace event (begun): what a Profile or ProfileChunk holds. */
static int
read_event_data(struct chrome *c, struct ch_cpu *cpu)
{
	enum json_token tok;

	while ((tok = next(c)) == JSON_KEY) {
		const char *key = json_reader_text(c->jr);
		int which = !strcmp(key, "cpuProfile") ? 1 : !strcmp(key, "timeDeltas") ? 2
			  : !strcmp(key, "startTime") ? 3 : 0;

		tok = next(c);
		if (which == 1 && tok == JSON_OBJECT_BEGIN) {
			if (read_cpu_profile(c, cpu))
				return -1;
		} else if (which == 2 && tok == JSON_ARRAY_BEGIN) {
			if (read_int_array(c, &cpu->times, &cpu->nr_times, &cpu->alloc_times, true))
				return -1;
		} else if (which == 3 && tok_time(c, tok, &cpu->start)) {
			cpu->has_start = true;
		} else if (skip(c, tok)) {
			return -1;
		}
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(c, tok);
}

/* An event's args (begun): args.name, and args.data for profiles. */
static int
read_args(struct chrome *c, struct strbuf *name, struct ch_cpu *cpu)
{
	enum json_token tok;

	while ((tok = next(c)) == JSON_KEY) {
		const char *key = json_reader_text(c->jr);
		bool is_name = !strcmp(key, "name"), is_data = !strcmp(key, "data");

		tok = next(c);
		if (is_name && tok == JSON_STRING) {
			strbuf_add(name, json_reader_text(c->jr), json_reader_len(c->jr));
		} else if (is_data && tok == JSON_OBJECT_BEGIN) {
			if (read_event_data(c, cpu))
				return -1;
		} else if (skip(c, tok)) {
			return -1;
		}
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(c, tok);
}

static void
cpu_release(struct ch_cpu *cpu)
{
	free(cpu->id);
	free(cpu->nodes);
	free(cpu->samples);
	free(cpu->times);
	free(cpu->ticks);
	memset(cpu, 0, sizeof(*cpu));
}

/* Append the nodes, samples and deltas of chunk to cpu (chunk is emptied). */
static void
cpu_append(struct ch_cpu *cpu, struct ch_cpu *chunk)
{
	for (size_t i = 0; i < chunk->nr_nodes; i++) {
		struct ch_node *n = add_node(cpu, chunk->nodes[i].id, chunk->nodes[i].parent,
					     chunk->nodes[i].cf);

		n->first_tick = chunk->nodes[i].first_tick + (uint32_t)cpu->nr_ticks;
		n->nr_ticks = chunk->nodes[i].nr_ticks;
	}
	for (size_t i = 0; i < chunk->nr_ticks; i++) {
		ALLOC_GROW(cpu->ticks, cpu->nr_ticks, cpu->alloc_ticks);
		cpu->ticks[cpu->nr_ticks++] = chunk->ticks[i];
	}
	for (size_t i = 0; i < chunk->nr_samples; i++) {
		ALLOC_GROW(cpu->samples, cpu->nr_samples, cpu->alloc_samples);
		cpu->samples[cpu->nr_samples++] = chunk->samples[i];
	}
	for (size_t i = 0; i < chunk->nr_times; i++) {
		ALLOC_GROW(cpu->times, cpu->nr_times, cpu->alloc_times);
		cpu->times[cpu->nr_times++] = chunk->times[i];
	}
	if (chunk->has_start && !cpu->has_start) {
		cpu->start = chunk->start;
		cpu->has_start = true;
	}
	cpu_release(chunk);
}

/* The CPU profile of trace id (and pid), created if new. */
static struct ch_cpu *
cpu_of(struct chrome *c, const char *id, int64_t pid, int64_t tid)
{
	for (size_t i = 0; i < c->nr_cpus; i++)
		if (c->cpus[i].id && !strcmp(c->cpus[i].id, id) && c->cpus[i].pid == pid)
			return &c->cpus[i];
	ALLOC_GROW(c->cpus, c->nr_cpus, c->alloc_cpus);
	memset(&c->cpus[c->nr_cpus], 0, sizeof(c->cpus[0]));
	c->cpus[c->nr_cpus].id = xstrdup(id);
	c->cpus[c->nr_cpus].pid = pid;
	c->cpus[c->nr_cpus].tid = tid;
	return &c->cpus[c->nr_cpus++];
}

static void
set_name(char **slot, const struct strbuf *name)
{
	free(*slot);
	*slot = xstrndup(name->buf, name->len);
}

/* One trace event (its object has begun). */
static int
read_event(struct chrome *c)
{
	struct strbuf name = STRBUF_INIT, argname = STRBUF_INIT, id = STRBUF_INIT;
	struct ch_cpu chunk;
	int64_t pid = -1, tid = -1, ts = 0, dur = -1, tdur = -1;
	bool has_ts = false, has_name = false;
	char ph = 0;
	enum json_token tok;
	int ret = -1;

	memset(&chunk, 0, sizeof(chunk));
	while ((tok = next(c)) == JSON_KEY) {
		const char *key = json_reader_text(c->jr);
		int which = 0;

		switch (key[0]) {
		case 'p':
			which = !strcmp(key, "ph") ? 1 : !strcmp(key, "pid") ? 2 : 0;
			break;
		case 't':
			which = !strcmp(key, "tid") ? 3 : !strcmp(key, "ts") ? 4
			      : !strcmp(key, "tdur") ? 9 : 0;
			break;
		case 'd':
			which = !strcmp(key, "dur") ? 5 : 0;
			break;

		case 'n':
			which = !strcmp(key, "name") ? 6 : 0;
			break;
		case 'a':
			which = !strcmp(key, "args") ? 7 : 0;
			break;
		case 'i':
			which = !strcmp(key, "id") ? 8 : 0;
			break;
		}
		tok = next(c);
		if (which == 1 && tok == JSON_STRING && json_reader_len(c->jr) == 1)
			ph = json_reader_text(c->jr)[0];
		else if (which == 2 && tok_int(c, tok, &pid))
			;
		else if (which == 3 && tok_int(c, tok, &tid))
			;
		else if (which == 4 && tok_time(c, tok, &ts))
			has_ts = true;
		else if (which == 5 && tok_time(c, tok, &dur))
			;
		else if (which == 9 && tok_time(c, tok, &tdur))
			;
		else if (which == 6 && tok == JSON_STRING) {
			strbuf_add(&name, json_reader_text(c->jr), json_reader_len(c->jr));
			has_name = true;
		} else if (which == 7 && tok == JSON_OBJECT_BEGIN) {
			if (read_args(c, &argname, &chunk))
				goto out;
		} else if (which == 8 && is_scalar(tok)) {
			strbuf_add(&id, json_reader_text(c->jr), json_reader_len(c->jr));
		} else if (tok <= JSON_TRUNCATED) {
			json_fail(c, tok);
			goto out;
		} else if (skip(c, tok)) {
			goto out;
		}
	}
	if (tok != JSON_OBJECT_END) {
		json_fail(c, tok);
		goto out;
	}

	switch (ph) {
	case 'B':
	case 'E':
	case 'X': {
		struct ch_event *ev;

		if (!has_ts) {
			bad_event(c, "an event has no ts");
			break;
		}
		/* Without dur, the thread time is the best duration there is. */
		if (ph == 'X' && dur < 0)
			dur = tdur;
		if (ph == 'X' && dur < 0) {
			bad_event(c, "an X event has no dur");
			break;
		}
		ALLOC_GROW(c->events, c->nr_events, c->alloc_events);
		ev = &c->events[c->nr_events];
		ev->ph = ph;
		ev->ts = ts;
		ev->end = ph == 'X' ? ts + dur : 0;
		ev->thread = thread_index(c, pid, tid);
		ev->seq = (uint32_t)c->nr_events;
		ev->cf = ph == 'E' && !has_name ? CF_NONE
		       : call_frame(c, name.buf, name.len, NULL, 0, -1, -1);
		c->nr_events++;
		break;
	}
	case 'M':
		if (!strcmp(name.buf, "thread_name")) {
			uint32_t t = thread_index(c, pid, tid);

			set_name(&c->threads[t].name, &argname);
		} else if (!strcmp(name.buf, "process_name")) {
			size_t i;

			for (i = 0; i < c->nr_procs && c->procs[i].pid != pid; i++)
				;
			if (i == c->nr_procs) {
				ALLOC_GROW(c->procs, c->nr_procs, c->alloc_procs);
				c->procs[c->nr_procs].pid = pid;
				c->procs[c->nr_procs++].name = NULL;
			}
			set_name(&c->procs[i].name, &argname);
		}
		break;
	case 'P':
		if (!strcmp(name.buf, "Profile") || !strcmp(name.buf, "ProfileChunk")) {
			struct ch_cpu *cpu = cpu_of(c, id.buf, pid, tid);

			if (!strcmp(name.buf, "Profile") && !chunk.has_start && has_ts) {
				chunk.start = ts;
				chunk.has_start = true;
			}
			cpu_append(cpu, &chunk);
		}
		break;
	}
	ret = 0;
out:
	cpu_release(&chunk);
	strbuf_release(&name);
	strbuf_release(&argname);
	strbuf_release(&id);
	return ret;
}

/*
 * The events array (begun). A file cut off inside it keeps every complete
 * event: traces are often written without their closing bracket.
 */
static int
read_events(struct chrome *c)
{
	enum json_token tok;

	while ((tok = next(c)) == JSON_OBJECT_BEGIN) {
		size_t nr = c->nr_events, bad_before = c->bad_events;
		int r = read_event(c);

		if (r && c->jr->done && json_reader_next(c->jr, c->err) == JSON_TRUNCATED) {
			/* Cut inside this event: drop what it added. */
			c->nr_events = nr;
			c->bad_events = bad_before;
			c->truncated = true;
			tf_error_release(c->err);
			return 0;
		}
		if (r)
			return -1;
		if (progress(c))
			return -1;
	}
	if (tok == JSON_TRUNCATED) {
		c->truncated = true;
		return 0;
	}
	if (tok != JSON_ARRAY_END)
		return tok == JSON_ERROR ? -1 : bad(c, "an event is not an object");
	return 0;
}

/* stackFrames: {"1": {name, parent}} (begun). */
static int
read_stack_frames(struct chrome *c)
{
	enum json_token tok;

	while ((tok = next(c)) == JSON_KEY) {
		struct strbuf name = STRBUF_INIT;
		int64_t id, parent = -1;

		if (!json_parse_int(json_reader_text(c->jr), json_reader_len(c->jr), &id))
			return bad(c, "a stack frame id is not an integer");
		tok = next(c);
		if (tok != JSON_OBJECT_BEGIN)
			return tok <= JSON_TRUNCATED ? json_fail(c, tok) : bad(c, "a stack frame is not an object");
		while ((tok = next(c)) == JSON_KEY) {
			const char *key = json_reader_text(c->jr);
			bool is_name = !strcmp(key, "name"), is_parent = !strcmp(key, "parent");

			tok = next(c);
			if (is_name && tok == JSON_STRING)
				strbuf_add(&name, json_reader_text(c->jr), json_reader_len(c->jr));
			else if (is_parent && tok_int(c, tok, &parent))
				;
			else if (skip(c, tok)) {
				strbuf_release(&name);
				return -1;
			}
		}
		if (tok != JSON_OBJECT_END) {
			strbuf_release(&name);
			return json_fail(c, tok);
		}
		ALLOC_GROW(c->frames, c->nr_frames, c->alloc_frames);
		c->frames[c->nr_frames].id = id;
		c->frames[c->nr_frames].parent = parent;
		c->frames[c->nr_frames].resolved = 0;
		c->frames[c->nr_frames].first_tick = c->frames[c->nr_frames].nr_ticks = 0;
		c->frames[c->nr_frames++].cf = call_frame(c, name.buf, name.len, NULL, 0, -1, -1);
		strbuf_release(&name);
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(c, tok);
}

/* samples of a sampled trace: [{ts, pid, tid, sf, weight}] (begun, first object begun). */
static int
read_trace_samples(struct chrome *c, enum json_token tok)
{
	for (; tok == JSON_OBJECT_BEGIN; tok = next(c)) {
		struct ch_sample s = { 0, -1, 0, 1 };
		int64_t pid = -1, tid = -1, w;

		while ((tok = next(c)) == JSON_KEY) {
			const char *key = json_reader_text(c->jr);
			int which = !strcmp(key, "ts") ? 1 : !strcmp(key, "pid") ? 2
				  : !strcmp(key, "tid") ? 3 : !strcmp(key, "sf") ? 4
				  : !strcmp(key, "weight") ? 5 : 0;

			tok = next(c);
			if (which == 1 && tok_time(c, tok, &s.ts))
				;
			else if (which == 2 && tok_int(c, tok, &pid))
				;
			else if (which == 3 && tok_int(c, tok, &tid))
				;
			else if (which == 4 && tok_int(c, tok, &s.sf))
				;
			else if (which == 5 && tok_int(c, tok, &w) && w >= 0)
				s.weight = (uint64_t)w;
			else if (skip(c, tok))
				return -1;
		}
		if (tok != JSON_OBJECT_END)
			return json_fail(c, tok);
		s.thread = thread_index(c, pid, tid);
		ALLOC_GROW(c->tsamples, c->nr_tsamples, c->alloc_tsamples);
		c->tsamples[c->nr_tsamples++] = s;
	}
	if (tok != JSON_ARRAY_END)
		return tok <= JSON_TRUNCATED ? json_fail(c, tok) : bad(c, "a sample is not an object");
	return 0;
}

/* The top-level object (begun): a .cpuprofile, or a trace with members. */
static int
read_object(struct chrome *c, bool *heap)
{
	struct ch_cpu cpu;
	int64_t *kids = NULL, *hits = NULL;
	size_t nr_kids = 0, alloc_kids = 0, nr_hits = 0, alloc_hits = 0;
	bool is_cpu = false;
	enum json_token tok;
	int ret = -1;

	memset(&cpu, 0, sizeof(cpu));
	while ((tok = next(c)) == JSON_KEY) {
		const char *key = json_reader_text(c->jr);
		int which = !strcmp(key, "traceEvents") ? 1 : !strcmp(key, "nodes") ? 2
			  : !strcmp(key, "samples") ? 3 : !strcmp(key, "timeDeltas") ? 4
			  : !strcmp(key, "startTime") ? 5
			  : !strcmp(key, "head") ? 7 : !strcmp(key, "stackFrames") ? 8
			  : !strcmp(key, "timestamps") ? 9 : 0;

		tok = next(c);
		if (which == 1 && tok == JSON_ARRAY_BEGIN) {
			if (read_events(c))
				goto out;
			if (c->truncated) {
				ret = 0;
				goto out;
			}
		} else if (which == 2 && tok == JSON_ARRAY_BEGIN) {
			is_cpu = true;
			if (read_nodes(c, &cpu, &kids, &nr_kids, &alloc_kids))
				goto out;
		} else if (which == 3 && tok == JSON_ARRAY_BEGIN) {
			/* Node ids in a .cpuprofile, objects in a sampled trace. */
			tok = next(c);
			if (tok == JSON_OBJECT_BEGIN) {
				if (read_trace_samples(c, tok))
					goto out;
				continue;
			}
			while (tok != JSON_ARRAY_END) {
				int64_t v;

				if (!tok_int(c, tok, &v)) {
					if (tok <= JSON_TRUNCATED)
						json_fail(c, tok);
					else
						bad(c, "a sample is not a node id");
					goto out;
				}
				ALLOC_GROW(cpu.samples, cpu.nr_samples, cpu.alloc_samples);
				cpu.samples[cpu.nr_samples++] = v;
				tok = next(c);
			}
		} else if ((which == 4 || which == 9) && tok == JSON_ARRAY_BEGIN) {
			cpu.absolute_times = which == 9;
			if (read_int_array(c, &cpu.times, &cpu.nr_times, &cpu.alloc_times, true))
				goto out;
		} else if (which == 5 && tok_time(c, tok, &cpu.start)) {
			cpu.has_start = true;
		} else if (which == 7 && tok == JSON_OBJECT_BEGIN) {
			is_cpu = true;
			if (read_head(c, &cpu, &hits, &nr_hits, &alloc_hits, heap))
				goto out;
		} else if (which == 8 && tok == JSON_OBJECT_BEGIN) {
			if (read_stack_frames(c))
				goto out;
		} else if (tok <= JSON_TRUNCATED) {
			json_fail(c, tok);
			goto out;
		} else if (skip(c, tok)) {
			goto out;
		}
	}
	if (tok != JSON_OBJECT_END) {
		json_fail(c, tok);
		goto out;
	}
	apply_children(&cpu, kids, nr_kids);
	/* Old profiles without samples: each node's hitCount is its weight. */
	if (is_cpu && !cpu.nr_samples && nr_hits) {
		for (size_t n = 0; n < nr_hits; n++)
			for (int64_t h = 0; h < hits[n] && h < INT32_MAX; h++) {
				ALLOC_GROW(cpu.samples, cpu.nr_samples, cpu.alloc_samples);
				cpu.samples[cpu.nr_samples++] = cpu.nodes[n].id;
			}
		free(cpu.times);
		cpu.times = NULL;
		cpu.nr_times = cpu.alloc_times = 0;
	}
	if (is_cpu) {
		ALLOC_GROW(c->cpus, c->nr_cpus, c->alloc_cpus);
		c->cpus[c->nr_cpus++] = cpu;
		memset(&cpu, 0, sizeof(cpu));
	}
	tok = next(c);
	if (tok != JSON_END) {
		json_fail(c, tok);
		goto out;
	}
	ret = 0;
out:
	cpu_release(&cpu);
	free(kids);
	free(hits);
	return ret;
}

/* ---------------------------------------------------------------- building */

static int
cmp_event(const void *a, const void *b)
{
	const struct ch_event *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An interval of a thread: [start, end) of frame. */
struct ch_interval {
	int64_t start, end;
	uint32_t cf;
	uint32_t seq;
};

static int
cmp_interval(const void *a, const void *b)
{
	const struct ch_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* The outer of two intervals that start together is the longer. */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static thread_id
thread_id_of(struct chrome *c, uint32_t t)
{
	const struct ch_thread *th = &c->threads[t];
	const char *name = th->name;

	for (size_t i = 0; !name && i < c->nr_procs; i++)
		if (c->procs[i].pid == th->pid)
			name = c->procs[i].name;
	return profile_set_thread(c->ps, th->pid, th->tid,
				  name ? ps_str(c->ps, name, strlen(name)) : STR_EMPTY);
}

/*
 * A sample of the open intervals from..to. The profile is made by the
 * first sample, so that a trace of only instant events adds no empty one.
 */
static int
emit(struct chrome *c, struct profile **pp, thread_id th, const struct ch_interval *iv,
     const size_t *open, size_t nr_open, int64_t from, int64_t to)
{
	if (to <= from || !nr_open)
		return 0;
	if (!*pp) {
		*pp = profile_set_profile(c->ps, ps_str(c->ps, "trace events", 12),
					  c->opts->weight == WEIGHT_SAMPLES ? UNIT_SAMPLES
									   : UNIT_NANOSECONDS);
		/* An event lasts from its start to its end, not an instant. */
		(*pp)->spans = (*pp)->unit == UNIT_NANOSECONDS;
	}
	builder_begin_sample(&c->b, *pp, th, c->opts->weight == WEIGHT_SAMPLES ? 1
					 : (uint64_t)(to - from), from, true);
	for (size_t k = 0; k < nr_open; k++)
		builder_push_frame(&c->b, js_frames_frame(&c->jf, iv[open[k]].cf));
	return builder_end_sample(&c->b, BUILDER_ROOT_FIRST, c->err);
}

/*
 * One thread's intervals (sorted) as samples: a sweep with a stack of
 * open intervals. A child that outlives its parent is cut at its parent's
 * end (warned once): speedscope does the same.
 */
static int
sweep(struct chrome *c, struct profile **p, thread_id th, struct ch_interval *iv, size_t n,
      uint64_t *clipped)
{
	size_t *open = NULL, nr_open = 0, alloc_open = 0;
	int64_t t = n ? iv[0].start : 0;
	int ret = -1;

	for (size_t i = 0; i <= n; i++) {
		int64_t at = i < n ? iv[i].start : INT64_MAX;

		while (nr_open && iv[open[nr_open - 1]].end <= at) {
			int64_t end = iv[open[nr_open - 1]].end;

			if (emit(c, p, th, iv, open, nr_open, t, end))
				goto out;
			if (end > t)
				t = end;
			nr_open--;
		}
		if (i == n)
			break;
		if (emit(c, p, th, iv, open, nr_open, t, at))
			goto out;
		if (at > t)
			t = at;
		if (nr_open && iv[i].end > iv[open[nr_open - 1]].end) {
			iv[i].end = iv[open[nr_open - 1]].end;
			(*clipped)++;
		}
		ALLOC_GROW(open, nr_open, alloc_open);
		open[nr_open++] = i;
	}
	ret = 0;
out:
	free(open);
	return ret;
}

/*
 * B/E/X events to intervals, per thread. An E closes the innermost open B
 * of its name (an E without a name, the innermost); Bs above it are closed
 * with it. An E that matches nothing is skipped, a B never closed ends at
 * the thread's last event; both are warned about.
 */
static int
build_events(struct chrome *c)
{
	struct ch_interval *iv = NULL;
	size_t nr_iv = 0, alloc_iv = 0;
	size_t *open = NULL, nr_open = 0, alloc_open = 0;
	uint64_t unmatched = 0, unclosed = 0, clipped = 0;
	struct profile *p = NULL;
	int ret = -1;

	if (!c->nr_events)
		return 0;
	if (c->nr_events)
		qsort(c->events, c->nr_events, sizeof(*c->events), cmp_event);
	for (size_t i = 0; i < c->nr_events;) {
		uint32_t thread = c->events[i].thread;
		int64_t last = c->events[i].ts;

		nr_iv = nr_open = 0;
		for (; i < c->nr_events && c->events[i].thread == thread; i++) {
			const struct ch_event *ev = &c->events[i];

			if (ev->ts > last)
				last = ev->ts;
			if (ev->ph == 'X') {
				ALLOC_GROW(iv, nr_iv, alloc_iv);
				iv[nr_iv++] =
					(struct ch_interval){ ev->ts, ev->end, ev->cf, ev->seq };
				if (ev->end > last)
					last = ev->end;
			} else if (ev->ph == 'B') {
				ALLOC_GROW(open, nr_open, alloc_open);
				open[nr_open++] = i;
			} else {
				size_t k = nr_open;

				while (k > 0 && ev->cf != CF_NONE &&
				       c->events[open[k - 1]].cf != ev->cf)
					k--;
				if (!k) {
					unmatched++;
					continue;
				}
				while (nr_open >= k) {
					const struct ch_event *b = &c->events[open[--nr_open]];

					ALLOC_GROW(iv, nr_iv, alloc_iv);
					iv[nr_iv].start = b->ts;
					iv[nr_iv].end = ev->ts;
					iv[nr_iv].cf = b->cf;
					iv[nr_iv++].seq = b->seq;
					if (nr_open < k)
						break;
				}
			}
		}
		unclosed += nr_open;
		while (nr_open) {
			const struct ch_event *b = &c->events[open[--nr_open]];

			ALLOC_GROW(iv, nr_iv, alloc_iv);
			iv[nr_iv++] = (struct ch_interval){ b->ts, last, b->cf, b->seq };
		}
		/* A thread with no interval has nothing to sort (and iv may be NULL). */
		if (nr_iv)
			qsort(iv, nr_iv, sizeof(*iv), cmp_interval);
		if (sweep(c, &p, thread_id_of(c, thread), iv, nr_iv, &clipped))
			goto out;
	}
	if (unmatched)
		profile_set_warn(c->ps, 0, "%llu E event%s matched no open B event and %s skipped",
				 (unsigned long long)unmatched, unmatched == 1 ? "" : "s",
				 unmatched == 1 ? "was" : "were");
	if (unclosed)
		profile_set_warn(c->ps, 0, "%llu B event%s never ended: closed at the thread's last event",
				 (unsigned long long)unclosed, unclosed == 1 ? "" : "s");
	if (clipped)
		profile_set_warn(c->ps, 0, "%llu event%s outlived %s parent: cut at its end",
				 (unsigned long long)clipped, clipped == 1 ? "" : "s",
				 clipped == 1 ? "its" : "their");
	ret = 0;
out:
	free(iv);
	free(open);
	return ret;
}

static int
cmp_node_id(const void *a, const void *b)
{
	const struct ch_node *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Index of the node with id in nodes (sorted by id), or -1. */
static ssize_t
find_node(const struct ch_node *nodes, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nodes[mid].id == id)
			return (ssize_t)mid;
		if (nodes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Resolve parents and push the frames of node n, leaf first; the walk is
 * bounded by the number of nodes, so a cycle cannot loop forever.
 */
static int
push_node_stack(struct chrome *c, struct ch_node *nodes, size_t nr, size_t n)
{
	for (size_t steps = 0; steps <= nr; steps++) {
		builder_push_frame(&c->b, js_frames_frame(&c->jf, nodes[n].cf));
		if (!nodes[n].resolved) {
			ssize_t p = nodes[n].parent >= 0 ? find_node(nodes, nr, nodes[n].parent) : -1;

			nodes[n].resolved = p < 0 ? UINT32_MAX : (uint32_t)p + 1;
		}
		if (nodes[n].resolved == UINT32_MAX)
			return 0;
		n = nodes[n].resolved - 1;
	}
	return tf_error_set(c->err, "the profile's nodes form a cycle");
}

/* Whether a frame is V8's root, which no stack shows. */
static bool
is_root_frame(struct chrome *c, frame_id f)
{
	return !strcmp(ps_get(c->ps, ps_frame(c->ps, f)->name), "(root)");
}

/*
 * Source positions from positionTicks. V8 counts, per node, the samples
 * taken at each line of its function; which sample was where it does not
 * say. So the k-th sample of a node goes to the line of the node that is
 * furthest behind its share, ticks * (k + 1) / all ticks less the samples
 * put there so far (the first such line on a tie): every line gets as
 * many samples as it had ticks, spread over the node's time rather than
 * in a block. Its callers are at their functions' own lines, as source.h
 * derives the positions of a profile without ticks; those chains are
 * made once per stack (memo[stack], 0 until made).
 */
struct ch_positions {
	src_id *memo;
	size_t alloc_memo;
	stack_id *path;
	size_t alloc_path;
	uint32_t *placed;       /* per tick of the cpu: samples put at its line */
};

/* The position of stack s at its frames' own lines (0 for none), made once. */
static src_id
stack_position(struct profile_set *ps, struct ch_positions *pos, stack_id s)
{
	size_t n = 0;
	stack_id t;
	src_id src;

	if (ps->nr_stacks > pos->alloc_memo) {
		size_t old = pos->alloc_memo;

		pos->alloc_memo = ps->nr_stacks * 2;
		pos->memo = xreallocarray(pos->memo, pos->alloc_memo, sizeof(*pos->memo));
		memset(pos->memo + old, 0, (pos->alloc_memo - old) * sizeof(*pos->memo));
	}
	for (t = s; t != STACK_ROOT && !pos->memo[t]; t = ps->stacks[t].parent) {
		ALLOC_GROW(pos->path, n, pos->alloc_path);
		pos->path[n++] = t;
	}
	src = t == STACK_ROOT ? SRC_ROOT : pos->memo[t];
	while (n--) {
		const struct frame *f = ps_frame(ps, ps->stacks[pos->path[n]].frame);
		bool lined = f->flags & FRAME_HAS_LINE;

		src = profile_set_src(ps, src, pos->path[n], lined ? f->file : STR_EMPTY,
				      lined ? f->line : 0);
		pos->memo[pos->path[n]] = src;
	}
	return src;
}

/* The line of node's positionTicks for its next sample (see above). */
static uint32_t
tick_line(const struct ch_cpu *cpu, const struct ch_node *node, uint32_t *placed)
{
	uint64_t all = 0, done = 0;
	double best = 0;
	uint32_t pick = node->first_tick;

	for (uint32_t j = node->first_tick; j < node->first_tick + node->nr_ticks; j++) {
		all += cpu->ticks[j].ticks;
		done += placed[j];
	}
	for (uint32_t j = node->first_tick; j < node->first_tick + node->nr_ticks; j++) {
		double behind = (double)cpu->ticks[j].ticks * (double)(done + 1) / (double)all -
				(double)placed[j];

		if (j == node->first_tick || behind > best) {
			best = behind;
			pick = j;
		}
	}
	placed[pick]++;
	return cpu->ticks[pick].line;
}

/* Give the sample just added (p's last, of node) its position. */
static void
place_sample(struct chrome *c, struct ch_positions *pos, const struct ch_cpu *cpu,
	     struct profile *p, const struct ch_node *node)
{
	stack_id s = p->stack[p->nr_samples - 1];
	const struct frame *f;
	uint32_t line;

	if (s == STACK_ROOT)
		return;
	f = ps_frame(c->ps, c->ps->stacks[s].frame);
	if (f->file == STR_EMPTY)
		return;
	line = tick_line(cpu, node, pos->placed);
	p->src[p->nr_samples - 1] = profile_set_src(c->ps,
		stack_position(c->ps, pos, c->ps->stacks[s].parent), s, f->file, line);
}

/*
 * Whether the samples have times: a delta or a timestamp each, or for the
 * old form one timestamp more, which node 10 wrote. Like speedscope, only
 * a timestamp a sample is read: the last sample weighs nothing either way.
 */
static bool
cpu_timed(const struct ch_cpu *cpu)
{
	return cpu->nr_samples && (cpu->nr_times == cpu->nr_samples ||
				   (cpu->absolute_times && cpu->nr_times == cpu->nr_samples + 1));
}

static int
build_cpu(struct chrome *c, struct ch_cpu *cpu, struct profile *p, uint64_t *missing)
{
	thread_id th = cpu->id ? thread_id_of(c, thread_index(c, cpu->pid, cpu->tid))
			       : profile_set_thread(c->ps, -1, -1, STR_EMPTY);
	bool timed = cpu_timed(cpu);
	int64_t raw = cpu->has_start ? cpu->start : 0, t = INT64_MIN;
	struct ch_positions pos;
	int ret = -1;

	if (cpu->nr_nodes)
		qsort(cpu->nodes, cpu->nr_nodes, sizeof(*cpu->nodes), cmp_node_id);
	/*
	 * Deltas (or the old form's timestamps) to times. A delta may be
	 * negative; as speedscope does, the time then stays where it was
	 * until the sum of the deltas passes it again, so that no interval
	 * is counted twice and the weights add up to last - first.
	 */
	for (size_t i = 0; timed && i < cpu->nr_samples; i++) {
		if (cpu->absolute_times)
			raw = cpu->times[i];
		else if (__builtin_add_overflow(raw, cpu->times[i], &raw))
			raw = cpu->times[i] < 0 ? INT64_MIN : INT64_MAX;
		if (raw > t)
			t = raw;
		cpu->times[i] = t;
	}
	memset(&pos, 0, sizeof(pos));
	if (cpu->nr_ticks) {
		profile_keep_positions(p);
		pos.placed = xcalloc(cpu->nr_ticks, sizeof(*pos.placed));
	}
	for (size_t i = 0; i < cpu->nr_samples; i++) {
		ssize_t n = find_node(cpu->nodes, cpu->nr_nodes, cpu->samples[i]);
		uint64_t w = 1;
		int64_t when = 0;
		bool kept;

		/* Chunks of a trace started mid-profile lack early nodes. */
		if (n < 0) {
			(*missing)++;
			continue;
		}
		if (timed) {
			/*
			 * A sample lasts until the next one, and the last one
			 * not at all: speedscope's weights, which add up to
			 * the time from the first sample to the last. (Chrome's
			 * DevTools give the last one the mean interval.)
			 */
			when = cpu->times[i];
			w = i + 1 < cpu->nr_samples ? (uint64_t)cpu->times[i + 1] - (uint64_t)when
						    : 0;
			if (c->opts->weight == WEIGHT_SAMPLES)
				w = 1;
		}
		builder_begin_sample(&c->b, p, th, w, when, timed);
		if (push_node_stack(c, cpu->nodes, cpu->nr_nodes, (size_t)n))
			goto out;
		/* V8's (root) is above every stack: leave it out. */
		if (c->b.nr_frames > 1 && is_root_frame(c, c->b.frames[c->b.nr_frames - 1]))
			c->b.nr_frames--;
		kept = !builder_full(&c->b);
		if (builder_end_sample(&c->b, BUILDER_LEAF_FIRST, c->err))
			goto out;
		if (kept && cpu->nodes[n].nr_ticks)
			place_sample(c, &pos, cpu, p, &cpu->nodes[n]);
	}
	ret = 0;
out:
	free(pos.memo);
	free(pos.path);
	free(pos.placed);
	return ret;
}

static int
build_trace_samples(struct chrome *c)
{
	struct profile *p;

	if (!c->nr_tsamples)
		return 0;
	p = profile_set_profile(c->ps, ps_str(c->ps, "samples", 7),
				c->opts->weight == WEIGHT_SAMPLES ? UNIT_SAMPLES : UNIT_NONE);
	if (c->nr_frames)
		qsort(c->frames, c->nr_frames, sizeof(*c->frames), cmp_node_id);
	for (size_t i = 0; i < c->nr_tsamples; i++) {
		const struct ch_sample *s = &c->tsamples[i];
		ssize_t n = find_node(c->frames, c->nr_frames, s->sf);
		uint64_t w = c->opts->weight == WEIGHT_SAMPLES ? 1 : s->weight;

		builder_begin_sample(&c->b, p, thread_id_of(c, s->thread), w, s->ts, true);
		if (n >= 0 && push_node_stack(c, c->frames, c->nr_frames, (size_t)n))
			return -1;
		if (builder_end_sample(&c->b, BUILDER_LEAF_FIRST, c->err))
			return -1;
	}
	return 0;
}

static int
build(struct chrome *c)
{
	struct profile *cpu_profile = NULL;
	uint64_t missing = 0;

	js_frames_finish(&c->jf, c->ps);
	if (build_events(c))
		return -1;
	for (size_t i = 0; i < c->nr_cpus; i++) {
		if (!c->cpus[i].nr_samples)
			continue;
		if (!cpu_profile) {
			cpu_profile = profile_set_profile(c->ps, ps_str(c->ps, "cpu", 3),
				c->opts->weight == WEIGHT_SAMPLES || !cpu_timed(&c->cpus[i])
				? UNIT_SAMPLES : UNIT_NANOSECONDS);
			/* A timed sample lasts until the next one. */
			cpu_profile->spans = cpu_profile->unit == UNIT_NANOSECONDS;
		}
		if (build_cpu(c, &c->cpus[i], cpu_profile, &missing))
			return -1;
	}
	if (missing)
		profile_set_warn(c->ps, 0, "%llu CPU profile sample%s named no known node and %s skipped",
				 (unsigned long long)missing, missing == 1 ? "" : "s",
				 missing == 1 ? "was" : "were");
	if (build_trace_samples(c))
		return -1;
	if (c->truncated)
		profile_set_warn(c->ps, c->jr->line, "the trace is cut off: kept the complete events");
	if (c->bad_events)
		profile_set_warn(c->ps, c->first_bad_line, "%llu event%s skipped, first: %s",
				 (unsigned long long)c->bad_events, c->bad_events == 1 ? "" : "s",
				 c->first_bad);
	return 0;
}

int
chrome_parse(struct json_reader *jr, const struct import_options *opts,
	     struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct chrome c;
	bool heap = false;
	enum json_token tok;
	int ret;

	memset(&c, 0, sizeof(c));
	c.jr = jr;
	c.ps = ps;
	c.opts = opts ? opts : &defaults;
	c.err = err;
	builder_init(&c.b, ps);
	c.b.max_samples = c.opts->max_samples;
	js_frames_init(&c.jf);
	ps->format = CHROME_FORMAT;

	tok = next(&c);
	if (tok == JSON_ARRAY_BEGIN)
		ret = read_events(&c);
	else if (tok == JSON_OBJECT_BEGIN)
		ret = read_object(&c, &heap);
	else
		ret = tok == JSON_ERROR ? -1 : bad(&c, "not a Chrome or Node profile: expected "
						       "an array or an object");
	if (!ret && tok == JSON_ARRAY_BEGIN && !c.truncated) {
		tok = next(&c);
		if (tok != JSON_END)
			ret = json_fail(&c, tok);
	}
	if (!ret && heap && !c.nr_events) {
		bool any = false;

		for (size_t i = 0; i < c.nr_cpus; i++)
			any |= c.cpus[i].nr_samples > 0;
		if (!any)
			ret = tf_error_set(err, "a heap profile (.heapprofile), not a CPU profile: "
						"--format=heapprofile reads it");
	}
	if (!ret)
		ret = build(&c);
	json_reader_progress_end(jr, c.opts->progress, &c.reported);

	for (size_t i = 0; i < c.nr_threads; i++)
		free(c.threads[i].name);
	for (size_t i = 0; i < c.nr_procs; i++)
		free(c.procs[i].name);
	for (size_t i = 0; i < c.nr_cpus; i++)
		cpu_release(&c.cpus[i]);
	free(c.threads);
	free(c.procs);
	free(c.cpus);
	free(c.events);
	free(c.frames);
	free(c.tsamples);
	free(c.first_bad);
	js_frames_release(&c.jf);
	builder_release(&c.b);
	return ret;
}

static int
chrome_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	    struct tf_error *err)
{
	struct json_reader jr;
	int ret;

	json_reader_init(&jr, in);
	ret = chrome_parse(&jr, opts, ps, err);
	json_reader_release(&jr);
	return ret;
}

/*
 * By the first keys: a .cpuprofile starts {"nodes" or {"head"; a trace is
 * an array of objects with "ph" (or "pid", "ts"), or has "traceEvents".
 */
static int
chrome_probe(const char *data, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", data[i]))
		i++;
	if (i + 3 <= len && !memcmp(data + i, "\xef\xbb\xbf", 3))
		i += 3;
	if (i >= len)
		return 0;
	if (data[i] == '[') {
		for (i++; i < len && strchr(" \t\r\n", data[i]); i++)
			;
		if (i < len && data[i] == ']')
			return 30;
		if (i >= len || data[i] != '{')
			return 0;
		if (memmem(data, len, "\"ph\"", 4))
			return 90;
		return memmem(data, len, "\"ts\"", 4) && memmem(data, len, "\"pid\"", 5) ? 60 : 0;
	}
	if (data[i] != '{')
		return 0;
	if (memmem(data, len, "\"traceEvents\"", 13))
		return 90;
	if ((memmem(data, len, "\"callFrame\"", 11) || memmem(data, len, "\"functionName\"", 14)) &&
	    (memmem(data, len, "\"nodes\"", 7) || memmem(data, len, "\"head\"", 6)))
		return 90;
	if (memmem(data, len, "\"stackFrames\"", 13) && memmem(data, len, "\"samples\"", 9))
		return 70;
	return 0;
}

static const char *const chrome_names[] = { ".cpuprofile", NULL };

const struct importer importer_chrome = {
	.name = "chrome",
	.description = CHROME_FORMAT,
	.probe = chrome_probe,
	.load = chrome_load,
	.names = chrome_names,
};

#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * Papyrus script and stack profiling logs (Skyrim, Fallout 4): a line per
 * event, fields split by ':', times in ms:
 *
 *	Script_abc_example_quest log opened (PC)
 *	500:PUSH:3053:1:abcExampleQuest (24021278):abc_example_quest..exampleFunction1
 *	1500:POP:3053:1:abcExampleQuest (24021278):abc_example_quest..exampleFunction1
 *	Log closed
 *
 * Fields: time, event, stack id, depth, form, function. tflame reads them
 * as speedscope does, so that the numbers agree:
 *  - times count from the first event line; what is still open at the end
 *    closes at the last line's time;
 *  - a function runs under a frame "STACK n" for its stack id; a "STACK n"
 *    at the bottom stays open between functions of that stack, and closes
 *    (at the last event's time) when a function of another stack starts;
 *    one above the bottom closes with the function it holds;
 *  - after a PUSH, a POP of the same function and stack at the same time
 *    is taken at once, wherever it is among that time's lines;
 *  - a POP of a function that is not innermost is ignored, unless nothing
 *    has happened since the first time, when the function is taken to
 *    have run from the start;
 *  - QUEUE_PUSH, QUEUE_POP, START and STOP lines weigh nothing.
 * A function is known by its name alone. The profile is evented: each
 * stretch of time with one innermost frame is a sample lasting that long.
 */

#define PAPYRUS_FORMAT "papyrus log"
/* A time past this many ms would not fit in ns. */
#define MAX_MS (INT64_MAX / 1000000 / 2)

enum ev_kind {
	EV_OTHER, /* START, QUEUE_PUSH, ...: weighs nothing */
	EV_PUSH,
	EV_POP,
	EV_DONE,  /* a POP already taken by a look-ahead */
};

struct event {
	int64_t at;       /* ms since the first event line */
	int64_t stack;
	str_id name;
	uint64_t lineno;
	enum ev_kind kind;
};

struct open_frame {
	frame_id frame;
	stack_id stack_id; /* the open frames up to this one */
	str_id name;
	int64_t stack;   /* for a STACK frame: its id */
	bool is_stack;
	ssize_t top_stack; /* index of the innermost STACK frame at or below */
};

struct papyrus {
	struct profile_set *ps;
	struct builder b;
	thread_id thread;
	struct profile *prof;

	/*
	 * The events of one time, since the last event of another time or
	 * line with no fields: a PUSH's look-ahead never goes further.
	 */
	struct event *ev;
	size_t nr_ev, alloc_ev;
	uint64_t nr_seen;      /* event lines read */
	int64_t start;         /* the first event's time, absolute */
	int64_t last_at;       /* the last event's, from start */
	uint64_t none_at_end;  /* line of a last line with no fields, or 0 */

	struct open_frame *open;
	size_t depth, alloc_open;
	int64_t last;      /* when the open frames last changed */
	int64_t last_event; /* speedscope's lastEventAt */

	struct name_frames frames;

	uint64_t ignored, first_ignored;
	uint64_t bad, first_bad;
};

/* The stretch since the last change, as a sample of the open frames. */
static int
flush(struct papyrus *pp, int64_t at, struct tf_error *err)
{
	/* The open frames' stack is at hand: no walk down a deep path. */
	if (at > pp->last && pp->depth &&
	    builder_add_stack_sample(&pp->b, pp->prof, pp->thread,
				     (uint64_t)(at - pp->last) * 1000000, pp->last * 1000000, true,
				     pp->open[pp->depth - 1].stack_id, err))
		return -1;
	if (at > pp->last)
		pp->last = at;
	return 0;
}

static int
push(struct papyrus *pp, str_id name, bool is_stack, int64_t stack, int64_t at,
     struct tf_error *err)
{
	struct open_frame *f;

	if (flush(pp, at, err))
		return -1;
	ALLOC_GROW(pp->open, pp->depth + 1, pp->alloc_open);
	f = &pp->open[pp->depth];
	f->frame = name_frames_get(&pp->frames, pp->ps, name, STR_EMPTY);
	f->stack_id = profile_set_stack(pp->ps, pp->depth ? pp->open[pp->depth - 1].stack_id
							  : STACK_ROOT, f->frame);
	f->name = name;
	f->is_stack = is_stack;
	f->stack = stack;
	f->top_stack = is_stack ? (ssize_t)pp->depth
				: pp->depth ? pp->open[pp->depth - 1].top_stack : -1;
	pp->depth++;
	pp->last_event = at;
	return 0;
}

/* speedscope's leaveFrame(): a STACK frame left on top above the bottom goes too. */
static int
leave(struct papyrus *pp, int64_t at, struct tf_error *err)
{
	if (flush(pp, at, err))
		return -1;
	pp->depth--;
	if (pp->depth > 1 && pp->open[pp->depth - 1].is_stack)
		pp->depth--;
	pp->last_event = at;
	return 0;
}

static int
enter(struct papyrus *pp, const struct event *e, int64_t at, struct tf_error *err)
{
	ssize_t top = pp->depth ? pp->open[pp->depth - 1].top_stack : -1;

	if (top < 0 || pp->open[top].stack != e->stack) {
		char name[32];
		int n;

		if (pp->depth == 1 && leave(pp, pp->last_event, err))
			return -1;
		n = snprintf(name, sizeof(name), "STACK %" PRId64, e->stack);
		if (push(pp, ps_str(pp->ps, name, (size_t)n), true, e->stack, at, err))
			return -1;
	}
	return push(pp, e->name, false, e->stack, at, err);
}

static int
try_leave(struct papyrus *pp, const struct event *e, struct tf_error *err)
{
	if (pp->depth && pp->open[pp->depth - 1].name == e->name)
		return leave(pp, e->at, err);
	if (pp->last_event == 0)
		return enter(pp, e, 0, err) || leave(pp, e->at, err) ? -1 : 0;
	if (!pp->ignored++)
		pp->first_ignored = e->lineno;
	return 0;
}

/* Read an integer field; false if it is not one. */
static bool
parse_int(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	int64_t v = 0;

	while (i < len && s[i] == ' ')
		i++;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == len || s[i] < '0' || s[i] > '9')
		return false;
	/* Like parseInt(): digits, then anything. */
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > MAX_MS)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return true;
}

/*
 * Split a line at ':' into up to 7 fields, the function (the 6th) ending
 * at the next ':' as speedscope's split() has it; returns how many.
 * Fields are a few bytes: one pass over them beats a memchr() call each.
 */
static size_t
split(const char *line, size_t len, const char **f, size_t *flen)
{
	size_t n = 0, from = 0;

	for (size_t i = 0; i < len && n < 6; i++) {
		if (line[i] == ':') {
			f[n] = line + from;
			flen[n++] = i - from;
			from = i + 1;
		}
	}
	/* The rest: the last field, or what follows the function's ':'. */
	f[n] = line + from;
	flen[n] = len - from;
	return n + 1;
}

/* The profile, made at the header or the first event, evented in ns. */
static void
ensure_profile(struct papyrus *pp, str_id name)
{
	if (pp->prof)
		return;
	pp->prof = profile_set_profile(pp->ps, name, UNIT_NANOSECONDS);
	pp->prof->spans = true;
}

/* Run the batch of events, as speedscope's importer walks its lines. */
static int
run_batch(struct papyrus *pp, struct tf_error *err)
{
	uint64_t lineno = 0;

	for (size_t i = 0; i < pp->nr_ev; i++) {
		struct event *e = &pp->ev[i];

		lineno = e->lineno;
		if (e->kind == EV_POP) {
			if (try_leave(pp, e, err))
				goto fail;
			continue;
		}
		if (e->kind != EV_PUSH)
			continue;
		if (e->at < pp->last)
			return tf_error_set_at(err, NULL, e->lineno, "time goes back "
					       "(%" PRId64 " ms after %" PRId64 ")", e->at, pp->last);
		if (enter(pp, e, e->at, err))
			goto fail;
		/* A POP of it at the same time is taken now, wherever it is. */
		for (size_t j = i + 1; j < pp->nr_ev; j++) {
			struct event *x = &pp->ev[j];

			if (x->kind == EV_POP && x->name == e->name && x->stack == e->stack) {
				lineno = x->lineno;
				if (try_leave(pp, x, err))
					goto fail;
				x->kind = EV_DONE;
				break;
			}
		}
	}
	pp->nr_ev = 0;
	return 0;
fail:
	err->line = lineno;
	return -1;
}

static void
bad_line(struct papyrus *pp, uint64_t lineno)
{
	if (!pp->bad++)
		pp->first_bad = lineno;
}

static int
read_line(void *ctx, const char *line, size_t len, uint64_t lineno, struct tf_error *err)
{
	struct papyrus *pp = ctx;
	const char *f[7];
	size_t fl[7], n;
	struct event e;
	int64_t at;

	while (len && line[len - 1] == '\r')
		len--;
	if (!len || (len == 10 && !memcmp(line, "Log closed", 10)))
		return 0;
	/* Event lines start with their time: only others can be the header. */
	if ((*line < '0' || *line > '9') && memmem(line, len, "log opened", 10)) {
		const char *o = memmem(line, len, " log opened", 11);

		if (o)
			ensure_profile(pp, ps_str(pp->ps, line, (size_t)(o - line)));
		return 0;
	}
	memset(&e, 0, sizeof(e));
	e.lineno = lineno;
	n = split(line, len, f, fl);
	if (n < 3) {
		if (!pp->nr_seen)
			return tf_error_set_at(err, NULL, lineno, "not a papyrus log line: "
					       "no \"time:event:stack\" fields");
		/* It ends the look-ahead of the PUSHes before it. */
		bad_line(pp, lineno);
		pp->none_at_end = lineno;
		return run_batch(pp, err);
	} else {
		if (!parse_int(f[0], fl[0], &at) || !parse_int(f[2], fl[2], &e.stack))
			return tf_error_set_at(err, NULL, lineno, "%s is not a number",
					       parse_int(f[0], fl[0], &at) ? "the stack id"
									   : "the time");
		if (!pp->nr_seen)
			pp->start = at;
		e.at = at - pp->start;
		if (e.at < -MAX_MS || e.at > MAX_MS)
			return tf_error_set_at(err, NULL, lineno, "time out of range");
		e.kind = EV_OTHER;
		if ((fl[1] == 4 && !memcmp(f[1], "PUSH", 4)) ||
		    (fl[1] == 3 && !memcmp(f[1], "POP", 3))) {
			if (n < 6) {
				bad_line(pp, lineno);
			} else {
				e.kind = fl[1] == 4 ? EV_PUSH : EV_POP;
				e.name = ps_str(pp->ps, f[5], fl[5]);
			}
		}
	}
	ensure_profile(pp, STR_EMPTY);
	if (pp->nr_ev && pp->ev[0].at != e.at && run_batch(pp, err))
		return -1;
	pp->nr_seen++;
	pp->last_at = e.at;
	pp->none_at_end = 0;
	ALLOC_GROW(pp->ev, pp->nr_ev + 1, pp->alloc_ev);
	pp->ev[pp->nr_ev++] = e;
	return 0;
}

int
papyrus_parse_lines(struct line_reader *lr, const struct import_options *opts,
		    struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct papyrus pp;
	int ret = -1;

	if (!opts)
		opts = &defaults;
	memset(&pp, 0, sizeof(pp));
	pp.ps = ps;
	builder_init(&pp.b, ps);
	pp.b.max_samples = opts->max_samples;
	pp.thread = profile_set_thread(ps, -1, -1, STR_EMPTY);
	ps->format = PAPYRUS_FORMAT;

	if (line_reader_each(lr, opts->progress, &pp.b, read_line, &pp, err))
		goto out;
	if (!pp.nr_seen) {
		tf_error_set(err, "no papyrus events");
		goto out;
	}
	if (pp.none_at_end) {
		tf_error_set_at(err, NULL, pp.none_at_end,
				"not a papyrus log line: no \"time:event:stack\" fields");
		goto out;
	}
	if (run_batch(&pp, err))
		goto out;
	/* What is still open closes at the last line's time. */
	if (flush(&pp, pp.last_at > pp.last ? pp.last_at : pp.last, err))
		goto out;
	if (pp.ignored)
		profile_set_warn(ps, pp.first_ignored, "%" PRIu64 " POP line%s of a function "
				 "not innermost ignored", pp.ignored, pp.ignored == 1 ? "" : "s");
	if (pp.bad)
		profile_set_warn(ps, pp.first_bad, "%" PRIu64 " line%s not understood, skipped",
				 pp.bad, pp.bad == 1 ? "" : "s");
	ret = 0;
out:
	builder_release(&pp.b);
	free(pp.ev);
	free(pp.open);
	name_frames_release(&pp.frames);
	return ret;
}

static int
papyrus_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	     struct tf_error *err)
{
	return line_reader_load(in, papyrus_parse_lines, opts, ps, err);
}

/* "NAME log opened (PC)" first, then "time:PUSH:..." lines. */
static int
papyrus_probe(const char *data, size_t len)
{
	const char *nl = memchr(data, '\n', len), *p;
	size_t l;
	int64_t v;

	if (!nl || memchr(data, '\0', len))
		return 0;
	l = (size_t)(nl - data);
	if (!memmem(data, l, " log opened", 11))
		return 0;
	p = nl + 1;
	l = (size_t)(data + len - p);
	if (!parse_int(p, l, &v))
		return 20;
	p = memchr(p, ':', l);
	if (!p)
		return 20;
	l = (size_t)(data + len - p);
	if (text_starts(p, l, ":PUSH:") || text_starts(p, l, ":POP:") ||
	    text_starts(p, l, ":START:") || text_starts(p, l, ":QUEUE_PUSH:") ||
	    text_starts(p, l, ":QUEUE_POP:"))
		return 95;
	return 20;
}

const struct importer importer_papyrus = {
	.name = "papyrus",
	.description = PAPYRUS_FORMAT,
	.probe = papyrus_probe,
	.load = papyrus_load,
};

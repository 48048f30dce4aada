#include "config.h"

#include "tflame/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/json_reader.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * speedscope's own JSON format (https://www.speedscope.app/file-format-schema.json):
 *
 *	{"$schema": "...", "shared": {"frames": [{name, file?, line?, col?}]},
 *	 "profiles": [{type: "sampled", name, unit, samples: [[0, 1]], weights: [3]},
 *		      {type: "evented", name, unit, events: [{type: "O", frame, at}]}]}
 *
 * Members may come in any order: py-spy writes "profiles" before "shared",
 * and sorted-key writers put "events" before "type" and "unit". So a
 * profile's numbers are kept compactly (4 bytes per frame index, a decimal
 * per weight or event time) until its unit and the frames are known, then
 * replayed into the builder and dropped. When shared.frames comes first,
 * which is what speedscope itself writes, only one profile is held at a
 * time.
 *
 * A file's profiles are mostly its threads (py-spy and tflame write one
 * per thread), so the profiles of one kind of unit become the threads of
 * one struct profile, named after the kind: "time" (any unit of time),
 * "bytes" or "weight" (none, or a unit speedscope does not know). Each
 * thread is named after its profile and numbered in its order among them.
 * Profiles of different kinds stay apart, as different events do; the
 * one of activeProfileIndex (the profile speedscope shows first) comes
 * first. Times are converted to ns exactly (a decimal times a power of
 * ten, rounded only below 1 ns), on one axis for all threads; other
 * units keep up to 6 decimals exactly through weight_decimals.
 */

#define SPEEDSCOPE_FORMAT "speedscope"
/* Decimals kept for weights in units that are not times. */
#define MAX_DECIMALS 6

/* A number as written: m * 10^e, exact for up to 18 significant digits. */
struct decimal {
	int64_t m;
	int32_t e;
};

struct sp_event {
	struct decimal at;
	uint32_t frame;
	bool open;
};

enum sp_type {
	SP_UNKNOWN,
	SP_SAMPLED,
	SP_EVENTED,
};

/* A profile as read, waiting for its unit and the frames. */
struct sp_profile {
	char *name;
	char *unit;
	enum sp_type type;
	uint64_t line;          /* where its object starts, for messages */
	struct decimal start;
	bool has_start;

	uint32_t *idx;          /* the frames of each sample past those shared */
	size_t nr_idx, alloc_idx;
	uint32_t *len;          /* per sample: depth, then frames shared with the last */
	size_t nr_len, alloc_len;
	struct decimal *weights;
	size_t nr_weights, alloc_weights;
	struct sp_event *events;
	size_t nr_events, alloc_events;
	bool has_samples, has_weights, has_events;
};

/* The kinds of unit, each a profile of the set; the names are theirs. */
enum sp_kind {
	KIND_TIME,
	KIND_BYTES,
	KIND_WEIGHT,
	NR_KINDS
};

static const char *const kind_names[NR_KINDS] = {
	[KIND_TIME] = "time",
	[KIND_BYTES] = "bytes",
	[KIND_WEIGHT] = "weight",
};

struct speedscope {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct builder b;
	struct tf_error *err;

	frame_id *frames;       /* shared.frames[i] */
	size_t nr_frames, alloc_frames;
	bool frames_done;       /* shared.frames was read */

	struct sp_profile *pending; /* read before the frames */
	size_t nr_pending, alloc_pending;
	size_t nr_profiles;     /* profiles built so far */
	uint32_t nr_threads[NR_KINDS]; /* profiles built into each kind's */
	struct profile **built; /* per profile of the file: the one it went into */
	size_t alloc_built;
	int64_t active;         /* activeProfileIndex, -1 if none */
	uint8_t *thread_kinds;  /* per thread id: the kinds it has a profile in, bits */
	size_t alloc_kinds;

	uint64_t reported;      /* progress published */
};

/* ---------------------------------------------------------------- numbers */

/* Parse a JSON number's text as a decimal; false if it does not fit. */
static bool
parse_decimal(const char *s, size_t len, struct decimal *d)
{
	uint64_t m = 0;
	int64_t e = 0;
	size_t i = 0, sig = 0;
	bool neg = false, frac = false;

	if (i < len && s[i] == '-') {
		neg = true;
		i++;
	}
	for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
		if (s[i] == '.') {
			frac = true;
			continue;
		}
		if (sig >= 18) {
			/* Digits past 18 are dropped: they are below any unit we keep. */
			if (!frac)
				e++;
			continue;
		}
		if (frac)
			e--;
		m = m * 10 + (uint64_t)(s[i] - '0');
		if (m)
			sig++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		int64_t x = 0;
		bool xneg = false;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			xneg = s[i++] == '-';
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (x < 100000)
				x = x * 10 + (s[i] - '0');
		e += xneg ? -x : x;
	}
	if (i != len)
		return false;
	while (m && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (!m)
		e = 0;
	if (e > 100000 || e < -100000)
		return false;
	d->m = neg ? -(int64_t)m : (int64_t)m;
	d->e = (int32_t)e;
	return true;
}

/*
 * d * 10^shift rounded to an integer (halves away from zero); false on
 * overflow.
 */
static bool
decimal_scale(struct decimal d, int shift, int64_t *out)
{
	int64_t e = (int64_t)d.e + shift;
	uint64_t m = d.m < 0 ? 0 - (uint64_t)d.m : (uint64_t)d.m;

	if (e < 0) {
		uint64_t rem = 0, div = 1;

		if (e < -19) {
			*out = 0;
			return true;
		}
		for (int64_t k = e; k < 0; k++)
			div *= 10;
		rem = m % div;
		m /= div;
		if (rem >= div / 2 + div % 2 && div > 1)
			m++;
	} else {
		for (int64_t k = 0; k < e && m; k++) {
			if (m > UINT64_MAX / 10)
				return false;
			m *= 10;
		}
	}
	if (m > INT64_MAX)
		return false;
	*out = d.m < 0 ? -(int64_t)m : (int64_t)m;
	return true;
}

/* a - b, exactly; false on overflow. */
static bool
decimal_sub(struct decimal a, struct decimal b, struct decimal *d)
{
	int32_t e = a.e < b.e ? a.e : b.e;
	int64_t x, y;

	if (!decimal_scale((struct decimal){ a.m, a.e - e }, 0, &x) ||
	    !decimal_scale((struct decimal){ b.m, b.e - e }, 0, &y))
		return false;
	if ((y < 0 && x > INT64_MAX + y) || (y > 0 && x < INT64_MIN + y))
		return false;
	d->m = x - y;
	d->e = e;
	return true;
}

/* ---------------------------------------------------------------- reading */

JSON_READER_SHORTHANDS(struct speedscope)

static int
progress(struct speedscope *s)
{
	return json_reader_progress(s->jr, s->opts->progress, &s->reported, s->err);
}

/* A number token (tok) as an index; -1 with err set if it is not one. */
static int
read_index(struct speedscope *s, enum json_token tok, const char *what, uint32_t *v)
{
	int64_t n;

	if (tok != JSON_NUMBER || !json_parse_int(json_reader_text(s->jr),
						  json_reader_len(s->jr), &n) ||
	    n < 0 || n >= UINT32_MAX) {
		char msg[80];

		snprintf(msg, sizeof(msg), "%s is not a frame index", what);
		return tok <= JSON_TRUNCATED ? json_fail(s, tok) : bad(s, msg);
	}
	*v = (uint32_t)n;
	return 0;
}

static int
read_decimal(struct speedscope *s, enum json_token tok, const char *what,
	     struct decimal *d)
{
	if (tok != JSON_NUMBER || !parse_decimal(json_reader_text(s->jr),
						 json_reader_len(s->jr), d)) {
		char msg[80];

		snprintf(msg, sizeof(msg), "%s is not a number", what);
		return tok <= JSON_TRUNCATED ? json_fail(s, tok) : bad(s, msg);
	}
	return 0;
}

/* A string value (or null), copied; *out is NULL for null. */
static int
read_string(struct speedscope *s, const char *what, char **out)
{
	enum json_token tok = next(s);

	free(*out);
	*out = NULL;
	if (tok == JSON_STRING) {
		*out = xstrndup(json_reader_text(s->jr), json_reader_len(s->jr));
		return 0;
	}
	if (tok == JSON_NULL)
		return 0;
	if (tok <= JSON_TRUNCATED)
		return json_fail(s, tok);
	{
		char msg[80];

		snprintf(msg, sizeof(msg), "%s is not a string", what);
		return bad(s, msg);
	}
}

/* shared.frames[]: the array has begun. */
static int
read_frames(struct speedscope *s)
{
	struct strbuf name = STRBUF_INIT, file = STRBUF_INIT;
	enum json_token tok;
	int ret = -1;

	while ((tok = next(s)) == JSON_OBJECT_BEGIN) {
		struct frame f;
		int64_t line = -1;

		strbuf_setlen(&name, 0);
		strbuf_setlen(&file, 0);
		while ((tok = next(s)) == JSON_KEY) {
			const char *key = json_reader_text(s->jr);
			bool is_name = !strcmp(key, "name"), is_file = !strcmp(key, "file");
			bool is_line = !strcmp(key, "line");

			tok = next(s);
			if ((is_name || is_file) && tok == JSON_STRING) {
				strbuf_add(is_name ? &name : &file, json_reader_text(s->jr),
					   json_reader_len(s->jr));
			} else if (is_line && tok == JSON_NUMBER) {
				if (!json_parse_int(json_reader_text(s->jr),
						    json_reader_len(s->jr), &line))
					line = -1;
			} else if (skip(s, tok)) {
				goto out;
			}
		}
		if (tok != JSON_OBJECT_END)
			goto fail_tok;
		memset(&f, 0, sizeof(f));
		if (!name.len)
			strbuf_addstr(&name, "(anonymous)");
		f.name = ps_str(s->ps, name.buf, name.len);
		f.module = STR_EMPTY;
		f.file = STR_EMPTY;
		if (line >= 0 && line <= UINT32_MAX) {
			f.line = (uint32_t)line;
			f.flags |= FRAME_HAS_LINE;
			if (file.len)
				f.file = ps_str(s->ps, file.buf, file.len);
		} else if (file.len) {
			/*
			 * A file with no line is a binary: speedscope's perf
			 * importer and tflame's export put a frame's module
			 * there. As the module, it keeps two functions of one
			 * name in two binaries apart.
			 */
			f.module = ps_str(s->ps, file.buf, file.len);
		}
		ALLOC_GROW(s->frames, s->nr_frames, s->alloc_frames);
		s->frames[s->nr_frames++] = profile_set_frame(s->ps, &f);
	}
	if (tok != JSON_ARRAY_END) {
fail_tok:
		if (tok <= JSON_TRUNCATED)
			json_fail(s, tok);
		else
			bad(s, "a frame is not an object");
		goto out;
	}
	s->frames_done = true;
	ret = 0;
out:
	strbuf_release(&name);
	strbuf_release(&file);
	return ret;
}

static int
read_shared(struct speedscope *s)
{
	enum json_token tok;

	while ((tok = next(s)) == JSON_KEY) {
		bool frames = !strcmp(json_reader_text(s->jr), "frames");

		tok = next(s);
		if (frames && tok == JSON_ARRAY_BEGIN) {
			if (read_frames(s))
				return -1;
		} else if (frames) {
			return tok <= JSON_TRUNCATED ? json_fail(s, tok)
						     : bad(s, "shared.frames is not an array");
		} else if (skip(s, tok)) {
			return -1;
		}
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(s, tok);
}

/*
 * samples: [[0, 1], [0, 2]]; the outer array has begun. Consecutive
 * samples share most of their stack, so each is kept as its depth, the
 * length of the prefix it shares with the sample before, and the rest.
 */
static int
read_samples(struct speedscope *s, struct sp_profile *sp)
{
	uint32_t *prev = NULL;
	size_t nr_prev = 0, alloc_prev = 0;
	enum json_token tok;
	int ret = -1;

	sp->has_samples = true;
	while ((tok = next(s)) == JSON_ARRAY_BEGIN) {
		size_t depth = 0, shared = 0;
		bool same = true;

		while ((tok = next(s)) != JSON_ARRAY_END) {
			uint32_t v;

			if (read_index(s, tok, "a sample's frame", &v))
				goto out;
			if (same && depth < nr_prev && prev[depth] == v) {
				shared++;
			} else {
				same = false;
				ALLOC_GROW(sp->idx, sp->nr_idx, sp->alloc_idx);
				sp->idx[sp->nr_idx++] = v;
				ALLOC_GROW(prev, depth, alloc_prev);
				prev[depth] = v;
			}
			depth++;
		}
		nr_prev = depth;
		if (depth > UINT32_MAX) {
			bad(s, "a sample is too deep");
			goto out;
		}
		ALLOC_GROW_BY(sp->len, sp->nr_len, 2, sp->alloc_len);
		sp->len[sp->nr_len++] = (uint32_t)depth;
		sp->len[sp->nr_len++] = (uint32_t)shared;
		if (progress(s))
			goto out;
	}
	if (tok != JSON_ARRAY_END) {
		if (tok <= JSON_TRUNCATED)
			json_fail(s, tok);
		else
			bad(s, "a sample is not an array");
		goto out;
	}
	ret = 0;
out:
	free(prev);
	return ret;
}

static int
read_weights(struct speedscope *s, struct sp_profile *sp)
{
	enum json_token tok;

	sp->has_weights = true;
	while ((tok = next(s)) != JSON_ARRAY_END) {
		struct decimal d;

		if (read_decimal(s, tok, "a weight", &d))
			return -1;
		ALLOC_GROW(sp->weights, sp->nr_weights, sp->alloc_weights);
		sp->weights[sp->nr_weights++] = d;
	}
	return 0;
}

static int
read_events(struct speedscope *s, struct sp_profile *sp)
{
	enum json_token tok;

	sp->has_events = true;
	while ((tok = next(s)) == JSON_OBJECT_BEGIN) {
		struct sp_event ev;
		bool has_type = false, has_frame = false, has_at = false;

		memset(&ev, 0, sizeof(ev));
		while ((tok = next(s)) == JSON_KEY) {
			const char *key = json_reader_text(s->jr);
			int which = !strcmp(key, "type") ? 1 : !strcmp(key, "frame") ? 2
				  : !strcmp(key, "at") ? 3 : 0;

			tok = next(s);
			if (which == 1) {
				const char *t = json_reader_text(s->jr);

				if (tok != JSON_STRING || (strcmp(t, "O") && strcmp(t, "C")))
					return tok <= JSON_TRUNCATED ? json_fail(s, tok)
						: bad(s, "an event's type is not \"O\" or \"C\"");
				ev.open = t[0] == 'O';
				has_type = true;
			} else if (which == 2) {
				if (read_index(s, tok, "an event's frame", &ev.frame))
					return -1;
				has_frame = true;
			} else if (which == 3) {
				if (read_decimal(s, tok, "an event's time", &ev.at))
					return -1;
				has_at = true;
			} else if (skip(s, tok)) {
				return -1;
			}
		}
		if (tok != JSON_OBJECT_END)
			return json_fail(s, tok);
		if (!has_type || !has_frame || !has_at)
			return bad(s, "an event lacks its type, frame or at");
		ALLOC_GROW(sp->events, sp->nr_events, sp->alloc_events);
		sp->events[sp->nr_events++] = ev;
		if (progress(s))
			return -1;
	}
	if (tok != JSON_ARRAY_END)
		return tok <= JSON_TRUNCATED ? json_fail(s, tok) : bad(s, "an event is not an object");
	return 0;
}

/* One member of profiles[]; its object has begun. */
static int
read_profile(struct speedscope *s, struct sp_profile *sp)
{
	enum json_token tok;

	while ((tok = next(s)) == JSON_KEY) {
		const char *key = json_reader_text(s->jr);
		char *type = NULL;
		int r;

		if (!strcmp(key, "name"))
			r = read_string(s, "a profile's name", &sp->name);
		else if (!strcmp(key, "unit"))
			r = read_string(s, "a profile's unit", &sp->unit);
		else if (!strcmp(key, "type")) {
			r = read_string(s, "a profile's type", &type);
			if (!r && type && !strcmp(type, "sampled"))
				sp->type = SP_SAMPLED;
			else if (!r && type && !strcmp(type, "evented"))
				sp->type = SP_EVENTED;
			else if (!r)
				r = bad(s, "a profile's type is not \"sampled\" or \"evented\"");
			free(type);
		} else if (!strcmp(key, "startValue")) {
			r = read_decimal(s, next(s), "startValue", &sp->start);
			sp->has_start = true;
		} else {
			bool samples = !strcmp(key, "samples"), weights = !strcmp(key, "weights");
			bool events = !strcmp(key, "events");

			tok = next(s);
			if ((samples || weights || events) && tok != JSON_ARRAY_BEGIN)
				r = tok <= JSON_TRUNCATED ? json_fail(s, tok) : bad(s, "expected an array");
			else if (samples)
				r = read_samples(s, sp);
			else if (weights)
				r = read_weights(s, sp);
			else if (events)
				r = read_events(s, sp);
			else
				r = skip(s, tok);
		}
		if (r)
			return -1;
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(s, tok);
}

/* ---------------------------------------------------------------- building */

static void
sp_profile_release(struct sp_profile *sp)
{
	free(sp->name);
	free(sp->unit);
	free(sp->idx);
	free(sp->len);
	free(sp->weights);
	free(sp->events);
	memset(sp, 0, sizeof(*sp));
}

/* The power of ten that turns a value in unit into ns, or -1 if not a time. */
static int
unit_shift(const char *unit, enum weight_unit *wu)
{
	static const struct {
		const char *name;
		int shift;
		enum weight_unit unit;
	} units[] = {
		{ "nanoseconds", 0, UNIT_NANOSECONDS },
		{ "microseconds", 3, UNIT_NANOSECONDS },
		{ "milliseconds", 6, UNIT_NANOSECONDS },
		{ "seconds", 9, UNIT_NANOSECONDS },
		{ "bytes", -1, UNIT_BYTES },
		{ "none", -1, UNIT_NONE },
	};

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(unit, units[i].name)) {
			*wu = units[i].unit;
			return units[i].shift;
		}
	}
	*wu = UNIT_NONE;
	return -1;
}

/* What the profile's numbers are turned into. */
struct conv {
	struct profile *p;
	int shift;     /* to ns, or -1 for a unit that is not a time */
};

/*
 * The weight of a value (a time difference or a weight) in p's scale.
 * Values of other units than time keep up to MAX_DECIMALS decimals, by
 * raising p's weight_decimals when one needs more.
 */
static int
convert_weight(struct speedscope *s, struct conv *c, struct decimal d, uint64_t *w,
	       uint64_t line)
{
	int64_t v;

	if (c->shift < 0 && d.e < 0) {
		unsigned need = d.e < -MAX_DECIMALS ? MAX_DECIMALS : (unsigned)-d.e;

		if (need > c->p->weight_decimals && profile_set_decimals(c->p, need, s->err))
			return -1;
	}
	if (!decimal_scale(d, c->shift >= 0 ? c->shift : (int)c->p->weight_decimals, &v))
		return tf_error_set_at(s->err, NULL, line, "weight too large");
	if (v < 0)
		return tf_error_set_at(s->err, NULL, line, "negative weight");
	*w = (uint64_t)v;
	return 0;
}

static int
frame_of(struct speedscope *s, const struct sp_profile *sp, uint32_t idx, frame_id *f)
{
	if (idx >= s->nr_frames)
		return tf_error_set_at(s->err, NULL, sp->line,
				       "profile '%s' refers to frame %u, but there are %zu frames",
				       sp->name ? sp->name : "", idx, s->nr_frames);
	*f = s->frames[idx];
	return 0;
}

static int
build_sampled(struct speedscope *s, struct sp_profile *sp, struct conv *c, thread_id th)
{
	frame_id *cur = NULL;
	size_t alloc_cur = 0, pos = 0, nr = sp->nr_len / 2;
	int64_t t = 0;
	bool timed = c->shift >= 0;
	int ret = -1;

	if (sp->nr_weights && sp->nr_weights != nr)
		return tf_error_set_at(s->err, NULL, sp->line,
				       "profile '%s' has %zu samples but %zu weights",
				       sp->name ? sp->name : "", nr, sp->nr_weights);
	if (timed && sp->has_start && !decimal_scale(sp->start, c->shift, &t))
		t = 0;
	for (size_t i = 0; i < nr; i++) {
		uint32_t depth = sp->len[2 * i], shared = sp->len[2 * i + 1];
		uint64_t w = 1, span = 0;

		/* Counted samples still follow each other in time. */
		if (sp->nr_weights && (s->opts->weight != WEIGHT_SAMPLES || timed) &&
		    convert_weight(s, c, sp->weights[i], &span, sp->line))
			goto out;
		if (sp->nr_weights && s->opts->weight != WEIGHT_SAMPLES)
			w = span;
		if (depth > alloc_cur) {
			alloc_cur = depth * 2;
			cur = xreallocarray(cur, alloc_cur, sizeof(*cur));
		}
		for (uint32_t k = shared; k < depth; k++)
			if (frame_of(s, sp, sp->idx[pos++], &cur[k]))
				goto out;
		/* Samples follow each other: a sample starts where the last ended. */
		builder_begin_sample(&s->b, c->p, th, w, t, timed);
		for (uint32_t k = 0; k < depth; k++)
			builder_push_frame(&s->b, cur[k]);
		if (builder_end_sample(&s->b, BUILDER_ROOT_FIRST, s->err))
			goto out;
		if (timed)
			t = profile_span_end(t, span);
	}
	ret = 0;
out:
	free(cur);
	return ret;
}

/*
 * Evented: a stack of open frames; the time between two events is a sample
 * of the stack open over it, dated at its start, so Time Order shows the
 * real times. Events must nest: a close names the innermost open frame.
 *
 * The times are rounded (to ns, or to the decimals kept for other units),
 * not the intervals: rounding each interval on its own would let the
 * errors add up over thousands of them. So the weights add up to the
 * rounded last time minus the rounded first (less the gaps with nothing
 * open), and a frame's total is the sum of its rounded close minus open.
 */
static int
build_evented(struct speedscope *s, struct sp_profile *sp, struct conv *c, thread_id th)
{
	frame_id *open = NULL;
	uint32_t *open_idx = NULL;
	size_t nr_open = 0, alloc_open = 0, alloc_idx = 0;
	struct decimal last = { 0, 0 };
	int64_t last_at = 0;
	int scale = c->shift, ret = -1;
	const char *pname = sp->name ? sp->name : "";

	if (scale < 0) {
		unsigned need = 0;

		for (size_t i = 0; i < sp->nr_events; i++)
			if (sp->events[i].at.e < 0 && (unsigned)-sp->events[i].at.e > need)
				need = (unsigned)-sp->events[i].at.e;
		if (need > MAX_DECIMALS)
			need = MAX_DECIMALS;
		if (s->opts->weight != WEIGHT_SAMPLES && profile_set_decimals(c->p, need, s->err))
			goto out;
		scale = (int)c->p->weight_decimals;
	}
	for (size_t i = 0; i < sp->nr_events; i++) {
		const struct sp_event *ev = &sp->events[i];
		struct decimal d = { 0, 0 };
		int64_t at;

		if ((i && !decimal_sub(ev->at, last, &d)) || !decimal_scale(ev->at, scale, &at)) {
			tf_error_set_at(s->err, NULL, sp->line, "profile '%s': time too large", pname);
			goto out;
		}
		/* Exactly, before rounding: two times may round together. */
		if (d.m < 0) {
			tf_error_set_at(s->err, NULL, sp->line,
					"profile '%s': event %zu goes back in time", pname, i + 1);
			goto out;
		}
		if (nr_open && d.m > 0) {
			uint64_t w = s->opts->weight == WEIGHT_SAMPLES ? 1
				   : (uint64_t)at - (uint64_t)last_at;

			builder_begin_sample(&s->b, c->p, th, w, last_at, c->shift >= 0);
			for (size_t k = 0; k < nr_open; k++)
				builder_push_frame(&s->b, open[k]);
			if (builder_end_sample(&s->b, BUILDER_ROOT_FIRST, s->err))
				goto out;
		}
		last_at = at;
		last = ev->at;
		if (ev->open) {
			ALLOC_GROW(open, nr_open, alloc_open);
			ALLOC_GROW(open_idx, nr_open, alloc_idx);
			if (frame_of(s, sp, ev->frame, &open[nr_open]))
				goto out;
			open_idx[nr_open++] = ev->frame;
		} else if (!nr_open || open_idx[nr_open - 1] != ev->frame) {
			if (ev->frame < s->nr_frames && nr_open)
				tf_error_set_at(s->err, NULL, sp->line,
						"profile '%s': event %zu closes '%s', but '%s' is open",
						pname, i + 1,
						ps_get(s->ps, ps_frame(s->ps, s->frames[ev->frame])->name),
						ps_get(s->ps, ps_frame(s->ps, open[nr_open - 1])->name));
			else
				tf_error_set_at(s->err, NULL, sp->line,
						"profile '%s': event %zu closes frame %u, which is not open",
						pname, i + 1, ev->frame);
			goto out;
		} else {
			nr_open--;
		}
	}
	if (nr_open) {
		tf_error_set_at(s->err, NULL, sp->line,
				"profile '%s': %zu frame%s never closed, innermost '%s'", pname,
				nr_open, nr_open == 1 ? " is" : "s are",
				ps_get(s->ps, ps_frame(s->ps, open[nr_open - 1])->name));
		goto out;
	}
	ret = 0;
out:
	free(open);
	free(open_idx);
	return ret;
}

/* Digits ending at end (exclusive) of s, back to *start; false if none or too many. */
static bool
number_before(const char *s, size_t end, size_t *start, int64_t *v)
{
	size_t i = end;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == end || end - i > 18)
		return false;
	*v = 0;
	for (size_t k = i; k < end; k++)
		*v = *v * 10 + (s[k] - '0');
	*start = i;
	return true;
}

/*
 * Whether name ends in "LABEL: N" (label "pid" or "tid") at end; then
 * *end moves back to where that part starts, before its space.
 */
static bool
labelled_number(const char *name, size_t *end, const char *label, int64_t *v)
{
	size_t start, n = strlen(label);
	int64_t num;

	if (!number_before(name, *end, &start, &num) || start < n + 2 ||
	    memcmp(name + start - n - 2, label, n) || name[start - 2] != ':' ||
	    name[start - 1] != ' ')
		return false;
	start -= n + 2;
	if (start && name[start - 1] != ' ')
		return false;
	*end = start ? start - 1 : 0;
	*v = num;
	return true;
}

/*
 * The thread of a profile called name, of the given kind. A name that
 * ends in "pid: P tid: T" (either part alone will do), as speedscope
 * names the threads of a perf profile and tflame's export writes them,
 * is that thread of the comm before it. Any other name, or one such
 * thread twice, is a thread of its own, numbered in the order of the
 * kind's profiles, so that two profiles are never one thread (py-spy
 * 0.1 names every profile "py-spy").
 */
static thread_id
profile_thread(struct speedscope *s, enum sp_kind kind, const char *name)
{
	size_t len = strlen(name), end = len;
	int64_t pid = -1, tid = -1;
	uint32_t index = s->nr_threads[kind]++;
	thread_id th = THREAD_NONE;

	labelled_number(name, &end, "tid", &tid);
	labelled_number(name, &end, "pid", &pid);
	if (end < len) {
		th = profile_set_thread(s->ps, pid, tid, ps_str(s->ps, name, end));
		if (th < s->alloc_kinds && s->thread_kinds[th] & 1u << kind)
			th = THREAD_NONE;
	}
	if (th == THREAD_NONE)
		th = profile_set_thread(s->ps, -1, index, ps_str(s->ps, name, len));
	if (th >= s->alloc_kinds) {
		size_t n = s->alloc_kinds;

		s->alloc_kinds = th + 64;
		s->thread_kinds = xrealloc(s->thread_kinds, s->alloc_kinds);
		memset(s->thread_kinds + n, 0, s->alloc_kinds - n);
	}
	s->thread_kinds[th] |= 1u << kind;
	return th;
}

/*
 * Add a profile read to the set, as one thread of its kind's profile;
 * frames are known.
 */
static int
build_profile(struct speedscope *s, struct sp_profile *sp)
{
	const char *name = sp->name ? sp->name : "";
	enum weight_unit wu;
	enum sp_kind kind;
	struct conv c;
	thread_id th;
	str_id kind_name;

	c.shift = unit_shift(sp->unit, &wu);
	kind = wu == UNIT_NANOSECONDS ? KIND_TIME : wu == UNIT_BYTES ? KIND_BYTES : KIND_WEIGHT;
	if (sp->type == SP_UNKNOWN)
		sp->type = sp->has_events ? SP_EVENTED : SP_SAMPLED;
	if (s->opts->weight == WEIGHT_SAMPLES)
		wu = UNIT_SAMPLES;
	kind_name = ps_str(s->ps, kind_names[kind], strlen(kind_names[kind]));
	c.p = profile_set_profile(s->ps, kind_name, wu);
	/* Evented intervals and timed samples last their weight. */
	c.p->spans = wu == UNIT_NANOSECONDS;
	th = profile_thread(s, kind, name);
	ALLOC_GROW(s->built, s->nr_profiles, s->alloc_built);
	s->built[s->nr_profiles] = c.p;
	if (sp->type == SP_EVENTED)
		return build_evented(s, sp, &c, th);
	return build_sampled(s, sp, &c, th);
}

static int
read_profiles(struct speedscope *s)
{
	enum json_token tok;

	while ((tok = next(s)) == JSON_OBJECT_BEGIN) {
		struct sp_profile sp;

		memset(&sp, 0, sizeof(sp));
		sp.line = s->jr->tok_line;
		if (read_profile(s, &sp)) {
			sp_profile_release(&sp);
			return -1;
		}
		/* Pending profiles go first, to keep the file's order. */
		if (s->frames_done && !s->nr_pending) {
			int r = build_profile(s, &sp);

			s->nr_profiles++;
			sp_profile_release(&sp);
			if (r)
				return -1;
		} else {
			ALLOC_GROW(s->pending, s->nr_pending, s->alloc_pending);
			s->pending[s->nr_pending++] = sp;
		}
	}
	if (tok != JSON_ARRAY_END)
		return tok <= JSON_TRUNCATED ? json_fail(s, tok) : bad(s, "a profile is not an object");
	return 0;
}

static int
read_document(struct speedscope *s)
{
	enum json_token tok = next(s);

	if (tok != JSON_OBJECT_BEGIN)
		return tok == JSON_ERROR ? -1 : bad(s, "not a speedscope file: expected an object");
	while ((tok = next(s)) == JSON_KEY) {
		const char *key = json_reader_text(s->jr);
		bool shared = !strcmp(key, "shared"), profiles = !strcmp(key, "profiles");
		bool active = !strcmp(key, "activeProfileIndex");

		tok = next(s);
		if (active && tok == JSON_NUMBER) {
			/* Not an index (a fraction, a negative): speedscope's default, 0. */
			if (!json_parse_int(json_reader_text(s->jr), json_reader_len(s->jr),
					    &s->active) || s->active < 0)
				s->active = -1;
		} else if (shared && tok == JSON_OBJECT_BEGIN) {
			if (read_shared(s))
				return -1;
		} else if (profiles && tok == JSON_ARRAY_BEGIN) {
			if (read_profiles(s))
				return -1;
		} else if (shared || profiles) {
			return tok <= JSON_TRUNCATED ? json_fail(s, tok)
				: bad(s, shared ? "shared is not an object" : "profiles is not an array");
		} else if (skip(s, tok)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_fail(s, tok);
	tok = next(s);
	if (tok != JSON_END)
		return json_fail(s, tok);
	if (!s->frames_done && s->nr_pending)
		return tf_error_set(s->err, "no shared.frames: the profiles name no frames");
	for (size_t i = 0; i < s->nr_pending; i++) {
		int r = build_profile(s, &s->pending[i]);

		s->nr_profiles++;
		sp_profile_release(&s->pending[i]);
		if (r)
			return -1;
	}
	/* The kind of the profile speedscope would show first is shown first. */
	if (s->active >= 0 && (uint64_t)s->active < s->nr_profiles)
		profile_set_put_first(s->ps, s->built[s->active]);
	return 0;
}

int
speedscope_parse(struct json_reader *jr, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct speedscope s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.jr = jr;
	s.ps = ps;
	s.opts = opts ? opts : &defaults;
	s.err = err;
	s.active = -1;
	builder_init(&s.b, ps);
	s.b.max_samples = s.opts->max_samples;
	ps->format = SPEEDSCOPE_FORMAT;
	ret = read_document(&s);
	json_reader_progress_end(jr, s.opts->progress, &s.reported);
	for (size_t i = 0; i < s.nr_pending; i++)
		sp_profile_release(&s.pending[i]);
	free(s.pending);
	free(s.frames);
	free(s.built);
	free(s.thread_kinds);
	builder_release(&s.b);
	return ret;
}

static int
speedscope_load(struct input *in, const struct import_options *opts,
		struct profile_set *ps, struct tf_error *err)
{
	struct json_reader jr;
	int ret;

	json_reader_init(&jr, in);
	ret = speedscope_parse(&jr, opts, ps, err);
	json_reader_release(&jr);
	return ret;
}

/*
 * Certain with the schema URL; likely with an object that has "profiles"
 * and "shared" near the start (files written without $schema).
 */
static int
speedscope_probe(const char *data, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", data[i]))
		i++;
	if (i + 3 <= len && !memcmp(data + i, "\xef\xbb\xbf", 3))
		i += 3;
	if (i >= len || data[i] != '{')
		return 0;
	if (memmem(data, len, "speedscope.app/file-format-schema", 33))
		return 100;
	if (memmem(data, len, "\"profiles\"", 10) && memmem(data, len, "\"shared\"", 8) &&
	    (memmem(data, len, "\"sampled\"", 9) || memmem(data, len, "\"evented\"", 9)))
		return 80;
	return 0;
}

static const char *const speedscope_names[] = { ".speedscope.json", ".speedscope", NULL };

const struct importer importer_speedscope = {
	.name = "speedscope",
	.description = SPEEDSCOPE_FORMAT,
	.probe = speedscope_probe,
	.load = speedscope_load,
	.names = speedscope_names,
};

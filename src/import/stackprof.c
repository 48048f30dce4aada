#include "config.h"

#include "tflame/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/json_reader.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Ruby's stackprof, as `stackprof --json` (or StackProf.results dumped as
 * JSON) writes it:
 *
 *	{"mode": "cpu" | "wall" | "object", "interval": N,
 *	 "frames": {"ID": {"name", "file", "line", ...}, ...},
 *	 "raw": [HEIGHT, ID..., COUNT, HEIGHT, ID..., COUNT, ...],
 *	 "raw_timestamp_deltas": [µs, ...], ...}
 *
 * raw lists stacks, root first, each followed by how many consecutive
 * samples had it. The weights are speedscope's: in object mode a stack
 * weighs its count (allocated objects); in cpu and wall mode the sum of
 * its samples' raw_timestamp_deltas (the µs since the sample before),
 * which is real time rather than count x interval. A stack of the lone
 * frame "(garbage collection)" is stackprof's GC sample: it goes on top of
 * the stack before it, where the program was when GC ran.
 *
 * raw and the deltas are kept (as read, 8 bytes a number) until the whole
 * document is read: frames may come after raw, and the deltas do.
 */

#define STACKPROF_FORMAT "stackprof"
#define GC_FRAME "(garbage collection)"

enum sp_mode { MODE_TIME, MODE_OBJECT };

struct stackprof {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct tf_error *err;
	struct builder b;
	uint64_t reported;

	struct strbuf mode;
	int64_t interval;       /* µs, 0 when not given */

	/* frames: stackprof id -> frame, open addressing (val FRAME_NONE: empty) */
	uint64_t *keys;
	frame_id *vals;
	size_t mask, nr_frames;
	frame_id unknown;       /* "[unknown]", made when first needed */
	str_id gc;              /* the name GC_FRAME */

	uint64_t *raw;
	size_t nr_raw, alloc_raw;
	uint64_t raw_line, raw_offset; /* where raw began */
	uint64_t *deltas;
	size_t nr_deltas, alloc_deltas;
	bool has_deltas;
	uint64_t negative;      /* deltas below 0, counted as 0 */
};

/* ---------------------------------------------------------------- frames */

static size_t
slot_of(const struct stackprof *s, uint64_t id)
{
	size_t i = hash_u64(id) & s->mask;

	while (s->vals[i] != FRAME_NONE && s->keys[i] != id)
		i = (i + 1) & s->mask;
	return i;
}

static void
frames_grow(struct stackprof *s)
{
	size_t old = s->keys ? s->mask + 1 : 0, cap = old ? old * 2 : 64;
	uint64_t *keys = s->keys;
	frame_id *vals = s->vals;

	s->keys = xcalloc(cap, sizeof(*s->keys));
	s->vals = xmalloc(cap * sizeof(*s->vals));
	for (size_t i = 0; i < cap; i++)
		s->vals[i] = FRAME_NONE;
	s->mask = cap - 1;
	for (size_t i = 0; i < old; i++) {
		if (vals[i] != FRAME_NONE) {
			size_t j = slot_of(s, keys[i]);

			s->keys[j] = keys[i];
			s->vals[j] = vals[i];
		}
	}
	free(keys);
	free(vals);
}

static frame_id
find_frame(const struct stackprof *s, uint64_t id)
{
	return s->keys ? s->vals[slot_of(s, id)] : FRAME_NONE;
}

static bool
is_uint(const char *text, size_t len, uint64_t *v)
{
	int64_t x;

	if (!json_parse_int(text, len, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

/* One member of frames (its value has begun): {name, file, line}. */
static int
read_frame(struct stackprof *s, uint64_t id)
{
	struct strbuf name = STRBUF_INIT, file = STRBUF_INIT;
	struct frame f;
	enum json_token tok;
	int64_t line = -1;
	size_t slot;
	int ret = -1;

	while ((tok = json_reader_next(s->jr, s->err)) == JSON_KEY) {
		const char *key = json_reader_text(s->jr);
		int which = !strcmp(key, "name") ? 1 : !strcmp(key, "file") ? 2
			  : !strcmp(key, "line") ? 3 : 0;

		tok = json_reader_next(s->jr, s->err);
		if (which == 1 && tok == JSON_STRING)
			strbuf_add(&name, json_reader_text(s->jr), json_reader_len(s->jr));
		else if (which == 2 && tok == JSON_STRING)
			strbuf_add(&file, json_reader_text(s->jr), json_reader_len(s->jr));
		else if (which == 3 && tok == JSON_NUMBER &&
			 json_reader_int(s->jr, &line))
			;
		else if (json_reader_skip_value(s->jr, tok, s->err))
			goto out;
	}
	if (tok != JSON_OBJECT_END) {
		json_reader_fail(s->jr, tok, s->err);
		goto out;
	}
	memset(&f, 0, sizeof(f));
	/* speedscope shows such a frame as "undefined". */
	f.name = name.len ? ps_str(s->ps, name.buf, name.len) : ps_str(s->ps, "[unknown]", 9);
	f.module = STR_EMPTY;
	f.file = file.len ? ps_str(s->ps, file.buf, file.len) : STR_EMPTY;
	if (line >= 0 && line <= UINT32_MAX) {
		f.line = (uint32_t)line;
		f.flags = FRAME_HAS_LINE;
	}
	if (!s->keys || (s->nr_frames + 1) * 2 > s->mask + 1)
		frames_grow(s);
	slot = slot_of(s, id);
	if (s->vals[slot] == FRAME_NONE)
		s->nr_frames++;
	s->keys[slot] = id;
	s->vals[slot] = profile_set_frame(s->ps, &f);
	ret = 0;
out:
	strbuf_release(&name);
	strbuf_release(&file);
	return ret;
}

/* frames (the object has begun). */
static int
read_frames(struct stackprof *s)
{
	enum json_token tok;

	while ((tok = json_reader_next(s->jr, s->err)) == JSON_KEY) {
		uint64_t id;

		if (!is_uint(json_reader_text(s->jr), json_reader_len(s->jr), &id))
			return json_reader_badf(s->jr, s->err, "frame id '%s' is not a number",
					       json_reader_text(s->jr));
		tok = json_reader_next(s->jr, s->err);
		if (tok != JSON_OBJECT_BEGIN) {
			if (tok <= JSON_TRUNCATED)
				return json_reader_fail(s->jr, tok, s->err);
			return json_reader_badf(s->jr, s->err, "frame %llu is not an object",
					       (unsigned long long)id);
		}
		if (read_frame(s, id))
			return -1;
		if (json_reader_progress(s->jr, s->opts->progress, &s->reported, s->err))
			return -1;
	}
	return tok == JSON_OBJECT_END ? 0 : json_reader_fail(s->jr, tok, s->err);
}

/*
 * An array of integers (begun) into *v. Deltas may be negative (a clock
 * that went back): they count as 0, as a sample cannot weigh less.
 */
static int
read_numbers(struct stackprof *s, uint64_t **v, size_t *nr, size_t *alloc, bool deltas,
	     const char *what)
{
	enum json_token tok;

	while ((tok = json_reader_next(s->jr, s->err)) == JSON_NUMBER) {
		int64_t x;

		if (!json_reader_int(s->jr, &x) ||
		    (x < 0 && !deltas))
			return json_reader_badf(s->jr, s->err, "%s: '%s' is not a count or frame id",
					       what, json_reader_text(s->jr));
		if (x < 0) {
			s->negative++;
			x = 0;
		}
		ALLOC_GROW(*v, *nr, *alloc);
		(*v)[(*nr)++] = (uint64_t)x;
		if ((*nr & 0xffff) == 0 &&
		    json_reader_progress(s->jr, s->opts->progress, &s->reported, s->err))
			return -1;
	}
	if (tok == JSON_ARRAY_END)
		return 0;
	if (tok <= JSON_TRUNCATED)
		return json_reader_fail(s->jr, tok, s->err);
	return json_reader_badf(s->jr, s->err, "%s: not a number", what);
}

static int
read_document(struct stackprof *s)
{
	enum json_token tok = json_reader_next(s->jr, s->err);

	if (tok != JSON_OBJECT_BEGIN) {
		if (tok <= JSON_TRUNCATED)
			return json_reader_fail(s->jr, tok, s->err);
		return json_reader_badf(s->jr, s->err, "not a stackprof profile: expected an object");
	}
	while ((tok = json_reader_next(s->jr, s->err)) == JSON_KEY) {
		char key[64];
		int which;

		snprintf(key, sizeof(key), "%s", json_reader_text(s->jr));
		which = !strcmp(key, "mode") ? 1 : !strcmp(key, "interval") ? 2
			  : !strcmp(key, "frames") ? 3 : !strcmp(key, "raw") ? 4
			  : !strcmp(key, "raw_timestamp_deltas") ? 5 : 0;
		tok = json_reader_next(s->jr, s->err);
		if (which == 1 && tok == JSON_STRING) {
			strbuf_setlen(&s->mode, 0);
			strbuf_add(&s->mode, json_reader_text(s->jr), json_reader_len(s->jr));
		} else if (which == 2 && tok == JSON_NUMBER) {
			if (!json_reader_int(s->jr, &s->interval) || s->interval < 0)
				s->interval = 0;
		} else if (which == 3 && tok == JSON_OBJECT_BEGIN) {
			if (read_frames(s))
				return -1;
		} else if (which == 4 && tok == JSON_ARRAY_BEGIN) {
			s->raw_line = s->jr->tok_line;
			s->raw_offset = s->jr->tok_offset;
			s->nr_raw = 0;
			if (read_numbers(s, &s->raw, &s->nr_raw, &s->alloc_raw, false, "raw"))
				return -1;
		} else if (which == 5 && tok == JSON_ARRAY_BEGIN) {
			s->has_deltas = true;
			s->nr_deltas = 0;
			if (read_numbers(s, &s->deltas, &s->nr_deltas, &s->alloc_deltas, true,
					 "raw_timestamp_deltas"))
				return -1;
		} else if (which && tok > JSON_TRUNCATED && tok != JSON_NULL) {
			return json_reader_badf(s->jr, s->err, "%s has the wrong type", key);
		} else if (json_reader_skip_value(s->jr, tok, s->err)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_reader_fail(s->jr, tok, s->err);
	tok = json_reader_next(s->jr, s->err);
	return tok == JSON_END ? 0 : json_reader_fail(s->jr, tok, s->err);
}

/* ---------------------------------------------------------------- building */

static int
raw_error(struct stackprof *s, size_t at, const char *what)
{
	return tf_error_set_at(s->err, NULL, s->raw_line, "raw[%zu]: %s (raw begins at byte %llu)",
			       at, what, (unsigned long long)s->raw_offset);
}

static int
build(struct stackprof *s)
{
	bool object = !strcmp(s->mode.buf, "object");
	struct profile *p;
	thread_id th = profile_set_thread(s->ps, -1, -1, STR_EMPTY);
	frame_id *prev = NULL, *cur = NULL;
	size_t nr_prev = 0, alloc_prev = 0, nr_cur = 0, alloc_cur = 0;
	size_t d = 0;
	uint64_t now = 0;     /* µs since the first sample's delta began */
	bool timed = !object && s->has_deltas;
	int ret = -1;

	if (!object && !s->has_deltas && !s->interval)
		return tf_error_set(s->err, "no raw_timestamp_deltas and no interval: "
					    "the samples have no weight");
	if (!object && !s->has_deltas)
		profile_set_warn(s->ps, 0, "no raw_timestamp_deltas: every sample weighs "
					   "the interval (%lld us)", (long long)s->interval);
	if (s->negative)
		profile_set_warn(s->ps, 0, "%llu raw_timestamp_deltas below 0 counted as 0",
				 (unsigned long long)s->negative);
	p = profile_set_profile(s->ps, ps_str(s->ps, s->mode.len ? s->mode.buf : "stackprof",
					      s->mode.len ? s->mode.len : 9),
				object ? UNIT_OBJECTS : UNIT_NANOSECONDS);
	p->spans = timed;

	for (size_t i = 0; i < s->nr_raw;) {
		size_t at = i;
		uint64_t h = s->raw[i++], n, w;

		if (h > s->nr_raw - i || s->nr_raw - i - h < 1) {
			raw_error(s, at, "the stack and its count run past the end of raw");
			goto out;
		}
		nr_cur = 0;
		for (uint64_t j = 0; j < h; j++, i++) {
			frame_id f = find_frame(s, s->raw[i]);

			if (f == FRAME_NONE) {
				char msg[80];

				snprintf(msg, sizeof(msg), "frame %llu is not in frames",
					 (unsigned long long)s->raw[i]);
				raw_error(s, i, msg);
				goto out;
			}
			ALLOC_GROW(cur, nr_cur, alloc_cur);
			cur[nr_cur++] = f;
		}
		n = s->raw[i++];
		/* GC on top of where the program was (speedscope does so too). */
		if (nr_cur == 1 && ps_frame(s->ps, cur[0])->name == s->gc) {
			ALLOC_GROW(prev, nr_prev, alloc_prev);
			prev[nr_prev++] = cur[0];
		} else {
			frame_id *t = prev;
			size_t ta = alloc_prev;

			prev = cur;
			alloc_prev = alloc_cur;
			nr_prev = nr_cur;
			cur = t;
			alloc_cur = ta;
		}
		if (object) {
			w = n;
		} else if (s->has_deltas) {
			if (n > s->nr_deltas - d) {
				raw_error(s, at, "more samples than raw_timestamp_deltas");
				goto out;
			}
			w = 0;
			for (uint64_t k = 0; k < n; k++) {
				if (__builtin_add_overflow(w, s->deltas[d++], &w))
					goto overflow;
			}
		} else if (__builtin_mul_overflow(n, (uint64_t)s->interval, &w)) {
			goto overflow;
		}
		/* µs to ns */
		if (!object && __builtin_mul_overflow(w, (uint64_t)1000, &w))
			goto overflow;
		if (timed && now > (uint64_t)INT64_MAX / 1000)
			goto overflow;
		builder_begin_sample(&s->b, p, th, w, (int64_t)now * 1000, timed);
		for (size_t j = 0; j < nr_prev; j++)
			builder_push_frame(&s->b, prev[j]);
		if (builder_end_sample(&s->b, BUILDER_ROOT_FIRST, s->err))
			goto out;
		if (timed && __builtin_add_overflow(now, w / 1000, &now))
			goto overflow;
		if (builder_stopped(&s->b))
			break;
	}
	if (s->has_deltas && !object && d < s->nr_deltas && !builder_stopped(&s->b))
		profile_set_warn(s->ps, 0, "%zu raw_timestamp_deltas more than samples in raw",
				 s->nr_deltas - d);
	ret = 0;
	goto out;
overflow:
	tf_error_set_at(s->err, NULL, s->raw_line, "weights overflow 64 bits");
out:
	free(prev);
	free(cur);
	return ret;
}

int
stackprof_parse(struct json_reader *jr, const struct import_options *opts,
		struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct stackprof s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.jr = jr;
	s.ps = ps;
	s.opts = opts ? opts : &defaults;
	s.err = err;
	s.gc = ps_str(ps, GC_FRAME, strlen(GC_FRAME));
	strbuf_init(&s.mode, 0);
	builder_init(&s.b, ps);
	s.b.max_samples = s.opts->max_samples;
	ps->format = STACKPROF_FORMAT;

	ret = read_document(&s);
	if (!ret)
		ret = build(&s);
	json_reader_progress_end(jr, s.opts->progress, &s.reported);

	builder_release(&s.b);
	strbuf_release(&s.mode);
	free(s.keys);
	free(s.vals);
	free(s.raw);
	free(s.deltas);
	return ret;
}

static int
stackprof_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	       struct tf_error *err)
{
	return json_reader_load(in, stackprof_parse, opts, ps, err);
}

/* An object with "mode" and "frames" and "raw" (keys stackprof writes first). */
static int
stackprof_probe(const char *data, size_t len)
{
	if (json_first_byte(data, len) != '{')
		return 0;
	if (!json_probe_has_key(data, len, "frames") || !json_probe_has_key(data, len, "mode"))
		return 0;
	return json_probe_has_key(data, len, "raw") || json_probe_has_key(data, len, "interval") ? 95 : 40;
}

static const char *const stackprof_names[] = { ".stackprof", ".stackprof.json", NULL };

const struct importer importer_stackprof = {
	.name = "stackprof",
	.description = STACKPROF_FORMAT,
	.probe = stackprof_probe,
	.load = stackprof_load,
	.names = stackprof_names,
};

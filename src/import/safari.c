#include "config.h"

#include "tflame/import.h"

#include <stdatomic.h>
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
 * Safari's Web Inspector timeline recordings (Export in the Timelines
 * tab, "...-recording.json"):
 *
 *	{"version": 1, "recording": {"displayName": "...",
 *	 "sampleStackTraces": [{"timestamp": 4.47, "stackFrames":
 *		[{"name": "f", "url": "a.js", "line": 2, "column": 10}, ...]}],
 *	 "sampleDurations": [0.001, ...], "records": [...], ...}}
 *
 * A sample's frames are leaf first; its timestamp (s) is when it ended
 * and its duration (s) how long it lasted. As speedscope reads it, each
 * sample weighs its duration, and a gap of more than 2 ms between the end
 * of one sample and the start of the next is a sample of its own with no
 * frames (Safari's times and durations do not quite line up, so shorter
 * gaps are noise). A function without a name is "(anonymous FILE:LINE)",
 * FILE the last part of its URL. The profile is named after the
 * recording.
 *
 * sampleStackTraces and sampleDurations may come in either order, so the
 * samples are kept (frames as ids, times in ns) until both are read.
 */

#define SAFARI_FORMAT "Safari recording"
/* Seconds are read in ns. */
#define S_SHIFT 9
/* speedscope's threshold for a gap to count as idle time, ns. */
#define IDLE_GAP 2000000

struct sf_sample {
	int64_t end;            /* ns */
	size_t first, nr;       /* its frames in frames[], leaf first */
};

struct safari {
	struct json_reader *jr;
	struct profile_set *ps;
	const struct import_options *opts;
	struct tf_error *err;

	struct sf_sample *samples;
	size_t nr_samples, alloc_samples;
	frame_id *frames;
	size_t nr_frames, alloc_frames;
	int64_t *durations;
	size_t nr_durations, alloc_durations;
	bool has_traces, has_durations;
	char *name;
	uint64_t traces_line;

	uint64_t reported;
};

JSON_READER_SHORTHANDS(struct safari)

static bool
is(struct safari *s, const char *key)
{
	return !strcmp(json_reader_text(s->jr), key);
}

static int
progress(struct safari *s)
{
	return json_reader_progress(s->jr, s->opts->progress, &s->reported, s->err);
}

/* A time in seconds to ns; what names it in a message. */
static int
read_seconds(struct safari *s, enum json_token tok, const char *what, int64_t *v)
{
	char msg[80];

	if (tok == JSON_NUMBER &&
	    json_parse_scaled(json_reader_text(s->jr), json_reader_len(s->jr), S_SHIFT, v))
		return 0;
	if (tok <= JSON_TRUNCATED)
		return json_fail(s, tok);
	snprintf(msg, sizeof(msg), "%s is not a number of seconds", what);
	return bad(s, msg);
}

/* One of stackFrames, its object begun. */
static int
read_frame(struct safari *s, struct strbuf *name, struct strbuf *url)
{
	enum json_token tok;
	int64_t line = -1;
	struct frame f;

	strbuf_setlen(name, 0);
	strbuf_setlen(url, 0);
	while ((tok = next(s)) == JSON_KEY) {
		bool is_name = is(s, "name"), is_url = is(s, "url"), is_line = is(s, "line");

		tok = next(s);
		if ((is_name || is_url) && tok == JSON_STRING) {
			strbuf_add(is_name ? name : url, json_reader_text(s->jr), json_reader_len(s->jr));
		} else if (is_line && tok == JSON_NUMBER) {
			if (!json_parse_int(json_reader_text(s->jr), json_reader_len(s->jr), &line))
				line = -1;
		} else if (skip(s, tok)) {
			return -1;
		}
	}
	if (tok != JSON_OBJECT_END)
		return json_fail(s, tok);
	memset(&f, 0, sizeof(f));
	if (!name->len) {
		const char *base = strrchr(url->buf, '/');

		/* speedscope's name for an anonymous function. */
		if (url->len)
			strbuf_addf(name, "(anonymous %s:%lld)", base ? base + 1 : url->buf,
				    (long long)(line < 0 ? 0 : line));
		else
			strbuf_addstr(name, "(anonymous)");
	}
	f.name = ps_str(s->ps, name->buf, name->len);
	f.module = STR_EMPTY;
	f.file = url->len ? ps_str(s->ps, url->buf, url->len) : STR_EMPTY;
	if (line >= 0 && line <= UINT32_MAX) {
		f.line = (uint32_t)line;
		f.flags |= FRAME_HAS_LINE;
	}
	ALLOC_GROW(s->frames, s->nr_frames, s->alloc_frames);
	s->frames[s->nr_frames++] = profile_set_frame(s->ps, &f);
	return 0;
}

/* sampleStackTraces, the array begun. */
static int
read_traces(struct safari *s)
{
	struct strbuf name = STRBUF_INIT, url = STRBUF_INIT;
	enum json_token tok;
	int ret = -1;

	s->traces_line = s->jr->tok_line;
	while ((tok = next(s)) == JSON_OBJECT_BEGIN) {
		struct sf_sample sm = { 0, s->nr_frames, 0 };
		uint64_t line = s->jr->tok_line, at = s->jr->tok_offset;
		bool timed = false;

		while ((tok = next(s)) == JSON_KEY) {
			if (is(s, "timestamp")) {
				if (read_seconds(s, next(s), "a timestamp", &sm.end))
					goto out;
				timed = true;
			} else if (is(s, "stackFrames")) {
				/* A second list replaces the first. */
				s->nr_frames = sm.first;
				if ((tok = next(s)) != JSON_ARRAY_BEGIN) {
					if (tok <= JSON_TRUNCATED)
						json_fail(s, tok);
					else
						bad(s, "stackFrames is not an array");
					goto out;
				}
				while ((tok = next(s)) == JSON_OBJECT_BEGIN)
					if (read_frame(s, &name, &url))
						goto out;
				if (tok != JSON_ARRAY_END) {
					if (tok <= JSON_TRUNCATED)
						json_fail(s, tok);
					else
						bad(s, "a stack frame is not an object");
					goto out;
				}
			} else if (skip(s, next(s))) {
				goto out;
			}
		}
		if (tok != JSON_OBJECT_END) {
			json_fail(s, tok);
			goto out;
		}
		if (!timed) {
			tf_error_set_at(s->err, NULL, line, "a sample has no timestamp (at byte %llu)",
					(unsigned long long)at);
			goto out;
		}
		sm.nr = s->nr_frames - sm.first;
		ALLOC_GROW(s->samples, s->nr_samples, s->alloc_samples);
		s->samples[s->nr_samples++] = sm;
		if (progress(s))
			goto out;
	}
	if (tok != JSON_ARRAY_END) {
		if (tok <= JSON_TRUNCATED)
			json_fail(s, tok);
		else
			bad(s, "a sample is not an object");
		goto out;
	}
	s->has_traces = true;
	ret = 0;
out:
	strbuf_release(&name);
	strbuf_release(&url);
	return ret;
}

static int
read_durations(struct safari *s)
{
	enum json_token tok;

	while ((tok = next(s)) != JSON_ARRAY_END) {
		int64_t v;

		if (read_seconds(s, tok, "a sample duration", &v))
			return -1;
		ALLOC_GROW(s->durations, s->nr_durations, s->alloc_durations);
		s->durations[s->nr_durations++] = v;
	}
	s->has_durations = true;
	return 0;
}

static int
read_recording(struct safari *s)
{
	enum json_token tok;

	while ((tok = next(s)) == JSON_KEY) {
		if (is(s, "sampleStackTraces") || is(s, "sampleDurations")) {
			bool traces = is(s, "sampleStackTraces");

			if ((tok = next(s)) != JSON_ARRAY_BEGIN)
				return tok <= JSON_TRUNCATED ? json_fail(s, tok)
					: bad(s, traces ? "sampleStackTraces is not an array"
							: "sampleDurations is not an array");
			if (traces ? read_traces(s) : read_durations(s))
				return -1;
		} else if (is(s, "displayName")) {
			if ((tok = next(s)) == JSON_STRING) {
				free(s->name);
				s->name = xstrndup(json_reader_text(s->jr), json_reader_len(s->jr));
			} else if (skip(s, tok)) {
				return -1;
			}
		} else if (skip(s, next(s))) {
			return -1;
		}
	}
	return tok == JSON_OBJECT_END ? 0 : json_fail(s, tok);
}

static int
build(struct safari *s)
{
	struct builder b;
	struct profile *p;
	thread_id th = profile_set_thread(s->ps, -1, -1, STR_EMPTY);
	bool samples = s->opts->weight == WEIGHT_SAMPLES;
	const char *pname = s->name && *s->name ? s->name : "samples";
	int64_t prev_end = INT64_MAX;
	int ret = -1;

	if (s->nr_durations != s->nr_samples)
		return tf_error_set_at(s->err, NULL, s->traces_line,
				       "%zu samples but %zu sample durations", s->nr_samples,
				       s->nr_durations);
	builder_init(&b, s->ps);
	b.max_samples = s->opts->max_samples;
	p = profile_set_profile(s->ps, ps_str(s->ps, pname, strlen(pname)),
				samples ? UNIT_SAMPLES : UNIT_NANOSECONDS);
	/* A sample lasts from its start for its duration. */
	p->spans = !samples;
	for (size_t i = 0; i < s->nr_samples && !builder_stopped(&b); i++) {
		const struct sf_sample *sm = &s->samples[i];
		int64_t dur = s->durations[i] < 0 ? 0 : s->durations[i];
		int64_t start, gap;

		/* A hostile file's times may be anything: no overflow. */
		if (__builtin_sub_overflow(sm->end, dur, &start))
			start = INT64_MIN;
		if (!samples && prev_end != INT64_MAX &&
		    !__builtin_sub_overflow(start, prev_end, &gap) && gap > IDLE_GAP) {
			builder_begin_sample(&b, p, th, (uint64_t)gap, prev_end, true);
			if (builder_end_sample(&b, BUILDER_LEAF_FIRST, s->err))
				goto out;
		}
		builder_begin_sample(&b, p, th, samples ? 1 : (uint64_t)dur, start, true);
		for (size_t k = 0; k < sm->nr; k++)
			builder_push_frame(&b, s->frames[sm->first + k]);
		if (builder_end_sample(&b, BUILDER_LEAF_FIRST, s->err))
			goto out;
		prev_end = sm->end;
	}
	ret = 0;
out:
	builder_release(&b);
	return ret;
}

int
safari_parse(struct json_reader *jr, const struct import_options *opts, struct profile_set *ps,
	     struct tf_error *err)
{
	static const struct import_options defaults;
	struct safari s;
	enum json_token tok;
	bool recording = false;
	int ret = -1;

	memset(&s, 0, sizeof(s));
	s.jr = jr;
	s.ps = ps;
	s.opts = opts ? opts : &defaults;
	s.err = err;
	ps->format = SAFARI_FORMAT;

	tok = next(&s);
	if (tok != JSON_OBJECT_BEGIN) {
		if (tok != JSON_ERROR)
			bad(&s, "not a Safari recording: expected an object");
		goto out;
	}
	while ((tok = next(&s)) == JSON_KEY) {
		if (is(&s, "recording")) {
			if ((tok = next(&s)) != JSON_OBJECT_BEGIN) {
				if (tok <= JSON_TRUNCATED)
					json_fail(&s, tok);
				else
					bad(&s, "recording is not an object");
				goto out;
			}
			if (read_recording(&s))
				goto out;
			recording = true;
		} else if (skip(&s, next(&s))) {
			goto out;
		}
	}
	if (tok != JSON_OBJECT_END) {
		json_fail(&s, tok);
		goto out;
	}
	if ((tok = next(&s)) != JSON_END) {
		if (tok <= JSON_TRUNCATED)
			json_fail(&s, tok);
		else
			bad(&s, "more after the recording");
		goto out;
	}
	if (!recording || !s.has_traces) {
		tf_error_set_at(err, NULL, jr->line, "not a Safari recording: no %s",
				recording ? "recording.sampleStackTraces" : "recording");
		goto out;
	}
	ret = build(&s);
out:
	if (s.opts->progress)
		atomic_fetch_add(&s.opts->progress->bytes_done, jr->base + jr->pos - s.reported);
	free(s.samples);
	free(s.frames);
	free(s.durations);
	free(s.name);
	return ret;
}

static int
safari_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	    struct tf_error *err)
{
	return json_reader_load(in, safari_parse, opts, ps, err);
}

/*
 * By its first keys, {"version": 1, "recording": {"displayName": ...},
 * and what only a recording has: sampleStackTraces (often far down,
 * after the records), instrumentTypes, "timeline-record-type-".
 */
static int
safari_probe(const char *data, size_t len)
{
	if (json_first_byte(data, len) != '{' || !memmem(data, len, "\"recording\"", 11))
		return 0;
	if (memmem(data, len, "\"sampleStackTraces\"", 19))
		return 90;
	if (memmem(data, len, "\"instrumentTypes\"", 17) ||
	    memmem(data, len, "timeline-record-type-", 21))
		return 80;
	return 0;
}

const struct importer importer_safari = {
	.name = "safari",
	.description = SAFARI_FORMAT,
	.probe = safari_probe,
	.load = safari_load,
};

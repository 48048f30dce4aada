#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/intern.h"
#include "tflame/profile.h"
#include "tflame/xalloc.h"

/*
 * pprof: a protobuf perftools.profiles.Profile, usually gzipped (input.c
 * undoes the gzip, so this file only ever sees protobuf bytes).
 *
 * The decoder is a small reader of varints and length-delimited fields
 * over the whole message in memory, not a generated one: the schema is
 * six small messages, and a generated decoder (protobuf-c) would unpack
 * every sample into its own heap objects, several times the size of the
 * input, where this reader keeps only the input and the profile built from
 * it. Every length is checked against the end of its enclosing message;
 * nothing recurses, as the nesting is fixed (Profile > Location > Line).
 *
 * Fields may come in any order (Go writes samples before the locations they
 * name), so there are two passes over the top level: the first fills the
 * tables (strings, mappings, functions, locations, sample types), the
 * second turns each sample into one sample per sample type.
 *
 * A frame is a function: its name (or system name), its file and its
 * start_line, so that one function is one node whatever line of it was
 * running, as in speedscope. A location's Line entries are innermost
 * first; all but the last are inlined into the next one.
 */

#define PPROF_FORMAT "pprof"
/* Progress is published after this many bytes of samples. */
#define PROGRESS_STEP (4 * 1024 * 1024)
/*
 * Sample types a profile may have: real ones have a handful (Go's heap
 * profile four). Each becomes a profile, found by name, so thousands would
 * take quadratic time to set up.
 */
#define MAX_SAMPLE_TYPES 256

enum wire {
	WIRE_VARINT = 0,
	WIRE_I64 = 1,
	WIRE_LEN = 2,
	WIRE_I32 = 5,
};

/* A reader over [p, end) of buf; offsets in messages are from buf. */
struct pb {
	const uint8_t *buf, *p, *end;
};

/* One field: its number, wire type and value. */
struct pb_field {
	uint32_t num;
	enum wire wire;
	uint64_t v;            /* WIRE_VARINT, WIRE_I64, WIRE_I32 */
	const uint8_t *data;   /* WIRE_LEN */
	size_t len;
	size_t offset;         /* of the key, for messages */
};

static void
pb_init(struct pb *r, const uint8_t *buf, const uint8_t *p, size_t len)
{
	r->buf = buf;
	r->p = p;
	r->end = p + len;
}

static bool
pb_more(const struct pb *r)
{
	return r->p < r->end;
}

static int
pb_fail(const struct pb *r, const uint8_t *at, struct tf_error *err, const char *what)
{
	if (err)
		tf_error_set_at(err, NULL, 0, "byte %zu: %s", (size_t)(at - r->buf), what);
	return -1;
}

/* A varint; -1 (err set if err) when it runs past the end or over 10 bytes. */
static int
pb_varint(struct pb *r, uint64_t *out, struct tf_error *err)
{
	const uint8_t *start = r->p;
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (r->p >= r->end)
			return pb_fail(r, start, err, "truncated varint");
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return pb_fail(r, start, err, "varint longer than 10 bytes");
}

/* The next field of the message; -1 (err set if err) if it is malformed. */
static int
pb_next(struct pb *r, struct pb_field *f, struct tf_error *err)
{
	const uint8_t *start = r->p;
	uint64_t key, len;

	f->offset = (size_t)(start - r->buf);
	if (pb_varint(r, &key, err))
		return -1;
	if (key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return pb_fail(r, start, err, "bad field number");
	f->num = (uint32_t)(key >> 3);
	f->wire = (enum wire)(key & 7);
	switch (key & 7) {
	case WIRE_VARINT:
		return pb_varint(r, &f->v, err);
	case WIRE_I64:
	case WIRE_I32: {
		size_t n = (key & 7) == WIRE_I64 ? 8 : 4;

		if ((size_t)(r->end - r->p) < n)
			return pb_fail(r, start, err, "fixed-size field past the end of its message");
		f->v = 0;
		for (size_t i = 0; i < n; i++)
			f->v |= (uint64_t)r->p[i] << (8 * i);
		r->p += n;
		return 0;
	}
	case WIRE_LEN:
		if (pb_varint(r, &len, err))
			return -1;
		if (len > (uint64_t)(r->end - r->p))
			return pb_fail(r, start, err, "length past the end of its message");
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 0;
	default:
		/* Groups (3, 4) were never part of this schema. */
		return pb_fail(r, start, err, "unsupported wire type");
	}
}

/*
 * Calls for each number of a repeated integer field, packed (WIRE_LEN) or
 * not: a cursor over one field's values.
 */
struct pb_nums {
	struct pb r;
	bool single;
	uint64_t v;
};

static void
pb_nums_init(struct pb_nums *n, const struct pb *parent, const struct pb_field *f)
{
	if (f->wire == WIRE_LEN) {
		pb_init(&n->r, parent->buf, f->data, f->len);
		n->single = false;
	} else {
		pb_init(&n->r, parent->buf, parent->p, 0);
		n->single = true;
		n->v = f->v;
	}
}

/* 1 and *out set, 0 at the end, -1 with err set. */
static int
pb_nums_next(struct pb_nums *n, uint64_t *out, struct tf_error *err)
{
	if (n->single) {
		n->single = false;
		*out = n->v;
		return 1;
	}
	if (!pb_more(&n->r))
		return 0;
	return pb_varint(&n->r, out, err) ? -1 : 1;
}

/* A field that must be a number (varint or fixed), else an error. */
static int
want_num(const struct pb *r, const struct pb_field *f, struct tf_error *err)
{
	if (f->wire == WIRE_LEN)
		return pb_fail(r, r->buf + f->offset, err, "expected a number, found a length-delimited field");
	return 0;
}

static int
want_len(const struct pb *r, const struct pb_field *f, struct tf_error *err)
{
	if (f->wire != WIRE_LEN)
		return pb_fail(r, r->buf + f->offset, err, "expected a message or string");
	return 0;
}

/* ---------------------------------------------------------------- tables */

struct pp_string {
	const uint8_t *p;
	size_t len;
};

struct pp_mapping {
	uint64_t id;
	uint64_t filename;  /* string index */
};

struct pp_function {
	uint64_t id;
	uint64_t name, system_name, filename; /* string indexes */
	int64_t start_line;
};

struct pp_line {
	uint64_t function_id;
};

struct pp_location {
	uint64_t id;
	uint64_t mapping_id;
	uint64_t address;
	size_t first_line, nr_lines; /* in pprof.lines */
	size_t first_frame, nr_frames; /* in pprof.loc_frames, once resolved */
};

/*
 * Ids are usually 1..n in order, so an id maps to its index through a
 * direct table when they are dense, else by binary search of the sorted
 * ids.
 */
struct id_index {
	uint32_t *direct;  /* direct[id] = index + 1, 0 if none */
	uint64_t nr_direct;
	uint64_t *sorted_ids; /* else: ids in order, with their index */
	uint32_t *sorted_idx;
	size_t nr;
};

struct pp_sample_type {
	uint64_t type, unit; /* string indexes */
};

struct pprof {
	const uint8_t *buf;
	size_t len;
	const struct import_options *opts;
	struct profile_set *ps;

	struct pp_string *strings;
	size_t nr_strings, alloc_strings;
	struct pp_mapping *mappings;
	size_t nr_mappings, alloc_mappings;
	struct pp_function *functions;
	size_t nr_functions, alloc_functions;
	struct pp_location *locations;
	size_t nr_locations, alloc_locations;
	struct pp_line *lines;
	size_t nr_lines, alloc_lines;
	struct pp_sample_type *types;
	size_t nr_types, alloc_types;
	struct id_index map_idx, fn_idx, loc_idx;

	frame_id *loc_frames;
	size_t nr_loc_frames, alloc_loc_frames;
	frame_id *sample_frames; /* of the sample being read, leaf first */
	size_t nr_sample_frames, alloc_sample_frames;

	uint64_t default_type; /* string index, 0 if none */
	int64_t time_nanos, duration_nanos, period;

	struct profile **prof; /* per sample type */
	uint64_t *scale;       /* per sample type: to the profile's unit */
	thread_id thread;
	uint64_t nr_negative, nr_missing_loc;
};

static void
pprof_release(struct pprof *pp)
{
	free(pp->strings);
	free(pp->mappings);
	free(pp->functions);
	free(pp->locations);
	free(pp->lines);
	free(pp->types);
	free(pp->map_idx.direct);
	free(pp->map_idx.sorted_ids);
	free(pp->map_idx.sorted_idx);
	free(pp->fn_idx.direct);
	free(pp->fn_idx.sorted_ids);
	free(pp->fn_idx.sorted_idx);
	free(pp->loc_idx.direct);
	free(pp->loc_idx.sorted_ids);
	free(pp->loc_idx.sorted_idx);
	free(pp->loc_frames);
	free(pp->sample_frames);
	free(pp->prof);
	free(pp->scale);
}

struct id_pair {
	uint64_t id;
	uint32_t idx;
};

static int
cmp_pair(const void *a, const void *b)
{
	const struct id_pair *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Index n ids, read from base with stride bytes between them (the id is
 * the first member of each struct). Duplicate ids: the first one wins.
 */
static void
id_index_build(struct id_index *ix, const void *base, size_t stride, size_t n)
{
	uint64_t max = 0;

	ix->nr = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t id = *(const uint64_t *)((const char *)base + i * stride);

		if (id > max)
			max = id;
	}
	if (n < UINT32_MAX && max < 4 * (uint64_t)n + 1024) {
		ix->nr_direct = max + 1;
		ix->direct = xcalloc(max + 1, sizeof(*ix->direct));
		for (size_t i = 0; i < n; i++) {
			uint64_t id = *(const uint64_t *)((const char *)base + i * stride);

			if (!ix->direct[id])
				ix->direct[id] = (uint32_t)i + 1;
		}
		return;
	}
	struct id_pair *pairs = xreallocarray(NULL, n ? n : 1, sizeof(*pairs));

	for (size_t i = 0; i < n; i++) {
		pairs[i].id = *(const uint64_t *)((const char *)base + i * stride);
		pairs[i].idx = (uint32_t)i;
	}
	/* qsort is not stable: sort on (id, index) so the first one wins. */
	qsort(pairs, n, sizeof(*pairs), cmp_pair);
	ix->sorted_ids = xreallocarray(NULL, n ? n : 1, sizeof(*ix->sorted_ids));
	ix->sorted_idx = xreallocarray(NULL, n ? n : 1, sizeof(*ix->sorted_idx));
	for (size_t i = 0; i < n; i++) {
		ix->sorted_ids[i] = pairs[i].id;
		ix->sorted_idx[i] = pairs[i].idx;
	}
	free(pairs);
}

/* The index of id, or -1. */
static int64_t
id_index_find(const struct id_index *ix, uint64_t id)
{
	size_t lo = 0, hi = ix->nr;

	if (ix->direct)
		return id < ix->nr_direct ? (int64_t)ix->direct[id] - 1 : -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->sorted_ids[mid] < id) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	/* Among equal ids the lowest index wins, as in the direct table. */
	if (lo < ix->nr && ix->sorted_ids[lo] == id) {
		uint32_t best = ix->sorted_idx[lo];

		for (size_t i = lo + 1; i < ix->nr && ix->sorted_ids[i] == id; i++)
			if (ix->sorted_idx[i] < best)
				best = ix->sorted_idx[i];
		return best;
	}
	return -1;
}

/* ---------------------------------------------------------------- pass 1 */

static int
parse_value_type(struct pprof *pp, const struct pb *top, const struct pb_field *f,
		 struct pp_sample_type *vt, struct tf_error *err)
{
	struct pb r;
	struct pb_field g;

	pb_init(&r, top->buf, f->data, f->len);
	vt->type = vt->unit = 0;
	while (pb_more(&r)) {
		if (pb_next(&r, &g, err))
			return -1;
		if ((g.num == 1 || g.num == 2) && want_num(&r, &g, err))
			return -1;
		if (g.num == 1)
			vt->type = g.v;
		else if (g.num == 2)
			vt->unit = g.v;
	}
	(void)pp;
	return 0;
}

static int
parse_mapping(struct pprof *pp, const struct pb *top, const struct pb_field *f,
	      struct tf_error *err)
{
	struct pp_mapping m = { 0, 0 };
	struct pb r;
	struct pb_field g;

	pb_init(&r, top->buf, f->data, f->len);
	while (pb_more(&r)) {
		if (pb_next(&r, &g, err))
			return -1;
		if ((g.num == 1 || g.num == 5) && want_num(&r, &g, err))
			return -1;
		if (g.num == 1)
			m.id = g.v;
		else if (g.num == 5)
			m.filename = g.v;
	}
	ALLOC_GROW(pp->mappings, pp->nr_mappings, pp->alloc_mappings);
	pp->mappings[pp->nr_mappings++] = m;
	return 0;
}

static int
parse_function(struct pprof *pp, const struct pb *top, const struct pb_field *f,
	       struct tf_error *err)
{
	struct pp_function fn = { 0, 0, 0, 0, 0 };
	struct pb r;
	struct pb_field g;

	pb_init(&r, top->buf, f->data, f->len);
	while (pb_more(&r)) {
		if (pb_next(&r, &g, err))
			return -1;
		if (g.num >= 1 && g.num <= 5 && want_num(&r, &g, err))
			return -1;
		switch (g.num) {
		case 1:
			fn.id = g.v;
			break;
		case 2:
			fn.name = g.v;
			break;
		case 3:
			fn.system_name = g.v;
			break;
		case 4:
			fn.filename = g.v;
			break;
		case 5:
			fn.start_line = (int64_t)g.v;
			break;
		}
	}
	ALLOC_GROW(pp->functions, pp->nr_functions, pp->alloc_functions);
	pp->functions[pp->nr_functions++] = fn;
	return 0;
}

static int
parse_location(struct pprof *pp, const struct pb *top, const struct pb_field *f,
	       struct tf_error *err)
{
	struct pp_location loc;
	struct pb r;
	struct pb_field g;

	memset(&loc, 0, sizeof(loc));
	loc.first_line = pp->nr_lines;
	pb_init(&r, top->buf, f->data, f->len);
	while (pb_more(&r)) {
		if (pb_next(&r, &g, err))
			return -1;
		if (g.num >= 1 && g.num <= 3 && want_num(&r, &g, err))
			return -1;
		if (g.num == 1) {
			loc.id = g.v;
		} else if (g.num == 2) {
			loc.mapping_id = g.v;
		} else if (g.num == 3) {
			loc.address = g.v;
		} else if (g.num == 4) {
			struct pp_line line = { 0 };
			struct pb lr;
			struct pb_field h;

			if (want_len(&r, &g, err))
				return -1;
			pb_init(&lr, top->buf, g.data, g.len);
			while (pb_more(&lr)) {
				if (pb_next(&lr, &h, err))
					return -1;
				if (h.num == 1 && want_num(&lr, &h, err))
					return -1;
				if (h.num == 1)
					line.function_id = h.v;
			}
			ALLOC_GROW(pp->lines, pp->nr_lines, pp->alloc_lines);
			pp->lines[pp->nr_lines++] = line;
		}
	}
	loc.nr_lines = pp->nr_lines - loc.first_line;
	ALLOC_GROW(pp->locations, pp->nr_locations, pp->alloc_locations);
	pp->locations[pp->nr_locations++] = loc;
	return 0;
}

static int
pass_tables(struct pprof *pp, struct tf_error *err)
{
	struct pb r;
	struct pb_field f;

	pb_init(&r, pp->buf, pp->buf, pp->len);
	while (pb_more(&r)) {
		if (pb_next(&r, &f, err))
			return -1;
		switch (f.num) {
		case 1:
			if (want_len(&r, &f, err))
				return -1;
			if (pp->nr_types == MAX_SAMPLE_TYPES)
				return tf_error_set_at(err, NULL, 0,
						       "byte %zu: more than %d sample types",
						       f.offset, MAX_SAMPLE_TYPES);
			ALLOC_GROW(pp->types, pp->nr_types, pp->alloc_types);
			if (parse_value_type(pp, &r, &f, &pp->types[pp->nr_types], err))
				return -1;
			pp->nr_types++;
			break;
		case 2:
			if (want_len(&r, &f, err))
				return -1;
			break; /* samples: the second pass */
		case 3:
			if (want_len(&r, &f, err) || parse_mapping(pp, &r, &f, err))
				return -1;
			break;
		case 4:
			if (want_len(&r, &f, err) || parse_location(pp, &r, &f, err))
				return -1;
			break;
		case 5:
			if (want_len(&r, &f, err) || parse_function(pp, &r, &f, err))
				return -1;
			break;
		case 6:
			if (want_len(&r, &f, err))
				return -1;
			ALLOC_GROW(pp->strings, pp->nr_strings, pp->alloc_strings);
			pp->strings[pp->nr_strings].p = f.data;
			pp->strings[pp->nr_strings].len = f.len;
			pp->nr_strings++;
			break;
		case 9:
		case 10:
		case 12:
		case 14:
			if (want_num(&r, &f, err))
				return -1;
			if (f.num == 9)
				pp->time_nanos = (int64_t)f.v;
			else if (f.num == 10)
				pp->duration_nanos = (int64_t)f.v;
			else if (f.num == 12)
				pp->period = (int64_t)f.v;
			else
				pp->default_type = f.v;
			break;
		default:
			break; /* drop_frames, keep_frames, period_type, comment, ... */
		}
	}
	return 0;
}

/* ------------------------------------------------------------- resolving */

/* String i, or an error naming the bad index. */
static int
get_str(const struct pprof *pp, uint64_t i, const char *what, struct pp_string *out,
	struct tf_error *err)
{
	if (i >= pp->nr_strings) {
		if (err)
			tf_error_set(err, "%s refers to string %" PRIu64 " of %zu", what, i,
				     pp->nr_strings);
		return -1;
	}
	*out = pp->strings[i];
	return 0;
}

static bool
str_is(const struct pp_string *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->p, lit, s->len);
}

static str_id
intern_pp(struct pprof *pp, const struct pp_string *s)
{
	return ps_str(pp->ps, (const char *)s->p, s->len);
}

/* The frames of every location, leaf (innermost inlined) first. */
static int
resolve_locations(struct pprof *pp, struct tf_error *err)
{
	id_index_build(&pp->map_idx, pp->mappings, sizeof(*pp->mappings), pp->nr_mappings);
	id_index_build(&pp->fn_idx, pp->functions, sizeof(*pp->functions), pp->nr_functions);
	id_index_build(&pp->loc_idx, pp->locations, sizeof(*pp->locations), pp->nr_locations);

	for (size_t i = 0; i < pp->nr_locations; i++) {
		struct pp_location *loc = &pp->locations[i];
		struct frame fr;
		struct pp_string s;
		int64_t mi = loc->mapping_id ? id_index_find(&pp->map_idx, loc->mapping_id) : -1;

		memset(&fr, 0, sizeof(fr));
		fr.module = STR_EMPTY;
		if (mi >= 0) {
			if (get_str(pp, pp->mappings[mi].filename, "a mapping's filename", &s, err))
				return -1;
			fr.module = intern_pp(pp, &s);
		}
		loc->first_frame = pp->nr_loc_frames;
		for (size_t l = 0; l < loc->nr_lines; l++) {
			int64_t fi = id_index_find(&pp->fn_idx, pp->lines[loc->first_line + l].function_id);
			const struct pp_function *fn;

			if (fi < 0)
				continue; /* a line with no function says nothing */
			fn = &pp->functions[fi];
			if (get_str(pp, fn->name, "a function's name", &s, err))
				return -1;
			if (!s.len && get_str(pp, fn->system_name, "a function's system name", &s, err))
				return -1;
			fr.name = s.len ? intern_pp(pp, &s) : ps_str(pp->ps, "[unknown]", 9);
			if (get_str(pp, fn->filename, "a function's filename", &s, err))
				return -1;
			fr.file = intern_pp(pp, &s);
			fr.line = 0;
			fr.flags = 0;
			if (fn->start_line > 0 && fn->start_line <= UINT32_MAX) {
				fr.line = (uint32_t)fn->start_line;
				fr.flags |= FRAME_HAS_LINE;
			}
			if (l + 1 < loc->nr_lines)
				fr.flags |= FRAME_INLINED;
			ALLOC_GROW(pp->loc_frames, pp->nr_loc_frames, pp->alloc_loc_frames);
			pp->loc_frames[pp->nr_loc_frames++] = profile_set_frame(pp->ps, &fr);
		}
		if (pp->nr_loc_frames == loc->first_frame) {
			/* No symbols: the address is all there is. */
			char name[32];
			int n = snprintf(name, sizeof(name), "0x%" PRIx64, loc->address);

			fr.name = ps_str(pp->ps, name, (size_t)n);
			fr.file = STR_EMPTY;
			fr.line = 0;
			fr.flags = 0;
			ALLOC_GROW(pp->loc_frames, pp->nr_loc_frames, pp->alloc_loc_frames);
			pp->loc_frames[pp->nr_loc_frames++] = profile_set_frame(pp->ps, &fr);
		}
		loc->nr_frames = pp->nr_loc_frames - loc->first_frame;
	}
	return 0;
}

/*
 * The unit of a sample type, and the factor that brings its values to it
 * (times are kept in ns, which every coarser unit converts to exactly).
 */
static enum weight_unit
map_unit(const struct pp_string *u, uint64_t *scale)
{
	*scale = 1;
	if (str_is(u, "nanoseconds"))
		return UNIT_NANOSECONDS;
	if (str_is(u, "microseconds")) {
		*scale = 1000;
		return UNIT_NANOSECONDS;
	}
	if (str_is(u, "milliseconds")) {
		*scale = 1000 * 1000;
		return UNIT_NANOSECONDS;
	}
	if (str_is(u, "seconds")) {
		*scale = 1000 * 1000 * 1000;
		return UNIT_NANOSECONDS;
	}
	if (str_is(u, "bytes"))
		return UNIT_BYTES;
	if (str_is(u, "count") || str_is(u, "samples"))
		return UNIT_SAMPLES;
	return UNIT_NONE;
}

/* Whether a profile of ps is called name (len bytes). */
static bool
profile_named(const struct profile_set *ps, const char *name, size_t len)
{
	int64_t id = intern_find(&ps->strings, name, len);

	for (size_t i = 0; id >= 0 && i < ps->nr_profiles; i++)
		if (ps->profiles[i]->name == (str_id)id)
			return true;
	return false;
}

/*
 * One profile per sample type, "type/unit", the default one first (the
 * explorer opens the first profile): default_sample_type, else the last
 * sample type, as pprof itself does.
 */
static int
make_profiles(struct pprof *pp, struct tf_error *err)
{
	size_t def = pp->nr_types - 1;

	pp->prof = xcalloc(pp->nr_types, sizeof(*pp->prof));
	pp->scale = xcalloc(pp->nr_types, sizeof(*pp->scale));
	if (pp->default_type) {
		for (size_t i = 0; i < pp->nr_types; i++) {
			if (pp->types[i].type == pp->default_type) {
				def = i;
				break;
			}
		}
	}
	for (size_t k = 0; k < pp->nr_types; k++) {
		/* def first, then the others in file order */
		size_t i = k == 0 ? def : (k <= def ? k - 1 : k);
		struct pp_string type, unit;
		enum weight_unit wu;
		char *name;
		size_t n;

		if (get_str(pp, pp->types[i].type, "a sample type", &type, err) ||
		    get_str(pp, pp->types[i].unit, "a sample unit", &unit, err))
			return -1;
		wu = map_unit(&unit, &pp->scale[i]);
		if (pp->opts->weight == WEIGHT_SAMPLES) {
			wu = UNIT_SAMPLES;
			pp->scale[i] = 1;
		}
		n = type.len + 1 + unit.len;
		name = xmalloc(n + 16);
		memcpy(name, type.p, type.len);
		name[type.len] = '/';
		memcpy(name + type.len + 1, unit.p, unit.len);
		name[n] = '\0';
		/*
		 * Two sample types of one name would share a profile: number
		 * them. The name is looked up by length: it may hold a NUL.
		 */
		for (unsigned dup = 2; profile_named(pp->ps, name, n); dup++)
			n = (size_t)snprintf(name + type.len + 1 + unit.len, 16, " (%u)", dup) +
			    type.len + 1 + unit.len;
		pp->prof[i] = profile_set_profile(pp->ps, ps_str(pp->ps, name, n), wu);
		/*
		 * A pprof Sample is a distinct stack (and labels) with its
		 * values, not a sample: counting them counts stacks. The
		 * sample count is a sample type of its own (samples/count).
		 */
		pp->prof[i]->no_samples = true;
		free(name);
	}
	return 0;
}

/* ---------------------------------------------------------------- pass 2 */

static int
add_sample(struct pprof *pp, struct builder *b, const struct pb *top,
	   const struct pb_field *f, int64_t *values, struct tf_error *err)
{
	struct pb r;
	struct pb_field g;
	size_t nr_values = 0;
	bool missing = false;

	pp->nr_sample_frames = 0;
	pb_init(&r, top->buf, f->data, f->len);
	while (pb_more(&r)) {
		struct pb_nums nums;
		uint64_t v;
		int got;

		if (pb_next(&r, &g, err))
			return -1;
		if (g.num != 1 && g.num != 2)
			continue; /* labels, and anything newer */
		pb_nums_init(&nums, &r, &g);
		while ((got = pb_nums_next(&nums, &v, err)) > 0) {
			if (g.num == 1) {
				int64_t li = id_index_find(&pp->loc_idx, v);
				const struct pp_location *loc;

				if (li < 0) {
					missing = true;
					continue;
				}
				loc = &pp->locations[li];
				ALLOC_GROW_BY(pp->sample_frames, pp->nr_sample_frames, loc->nr_frames,
					      pp->alloc_sample_frames);
				memcpy(pp->sample_frames + pp->nr_sample_frames,
				       pp->loc_frames + loc->first_frame,
				       loc->nr_frames * sizeof(frame_id));
				pp->nr_sample_frames += loc->nr_frames;
			} else if (nr_values < pp->nr_types) {
				values[nr_values++] = (int64_t)v;
			}
		}
		if (got < 0)
			return -1;
	}
	if (missing)
		pp->nr_missing_loc++;
	for (size_t i = 0; i < pp->nr_types; i++) {
		int64_t v = i < nr_values ? values[i] : 0;
		uint64_t w;

		if (v < 0) {
			pp->nr_negative++;
			continue;
		}
		if (v == 0)
			continue;
		if (pp->opts->weight == WEIGHT_SAMPLES) {
			w = 1;
		} else {
			if ((uint64_t)v > UINT64_MAX / pp->scale[i])
				return tf_error_set_at(err, NULL, 0, "byte %zu: sample value overflows",
						       f->offset);
			w = (uint64_t)v * pp->scale[i];
		}
		builder_begin_sample(b, pp->prof[i], pp->thread, w, 0, false);
		for (size_t k = 0; k < pp->nr_sample_frames; k++)
			builder_push_frame(b, pp->sample_frames[k]);
		if (builder_end_sample(b, BUILDER_LEAF_FIRST, err))
			return -1;
	}
	return 0;
}

static int
pass_samples(struct pprof *pp, struct tf_error *err)
{
	struct builder b;
	struct pb r;
	struct pb_field f;
	int64_t *values = xcalloc(pp->nr_types, sizeof(*values));
	struct import_progress *prog = pp->opts->progress;
	size_t reported = 0;
	int ret = 0;

	builder_init(&b, pp->ps);
	b.max_samples = pp->opts->max_samples;
	pb_init(&r, pp->buf, pp->buf, pp->len);
	while (pb_more(&r)) {
		if (pb_next(&r, &f, err)) {
			ret = -1;
			break;
		}
		if (f.num != 2)
			continue;
		if (add_sample(pp, &b, &r, &f, values, err)) {
			ret = -1;
			break;
		}
		if (prog && (size_t)(r.p - r.buf) - reported >= PROGRESS_STEP) {
			atomic_fetch_add(&prog->bytes_done, (size_t)(r.p - r.buf) - reported);
			reported = (size_t)(r.p - r.buf);
			if (atomic_load(&prog->cancel)) {
				ret = tf_error_set(err, "cancelled");
				break;
			}
		}
	}
	if (!ret && prog)
		atomic_fetch_add(&prog->bytes_done, pp->len - reported);
	builder_release(&b);
	free(values);
	return ret;
}

int
pprof_parse_buffer(const void *data, size_t len, const struct import_options *opts,
		   struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct pprof pp;
	int ret = -1;

	memset(&pp, 0, sizeof(pp));
	pp.buf = data;
	pp.len = len;
	pp.opts = opts ? opts : &defaults;
	pp.ps = ps;
	ps->format = PPROF_FORMAT;
	if (pass_tables(&pp, err))
		goto out;
	if (!pp.nr_types) {
		tf_error_set_at(err, NULL, 0, "no sample types in pprof profile");
		goto out;
	}
	pp.thread = profile_set_thread(ps, -1, -1, STR_EMPTY);
	if (make_profiles(&pp, err) || resolve_locations(&pp, err) || pass_samples(&pp, err))
		goto out;
	if (pp.nr_negative)
		profile_set_warn(ps, 0, "%" PRIu64 " negative sample values skipped",
				 pp.nr_negative);
	if (pp.nr_missing_loc)
		profile_set_warn(ps, 0, "%" PRIu64 " samples name locations that are not defined",
				 pp.nr_missing_loc);
	ret = 0;
out:
	pprof_release(&pp);
	return ret;
}

static int
pprof_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	   struct tf_error *err)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (input_read_all(in, &buf, &len, err))
		return -1;
	ret = pprof_parse_buffer(buf, len, opts, ps, err);
	free(buf);
	return ret;
}

/* ------------------------------------------------------------------ probe */

/* Whether the fields of a message all parse, with numbers 1..max. */
static bool
probe_message(const uint8_t *p, size_t len, uint32_t max)
{
	struct pb r;
	struct pb_field f;

	pb_init(&r, p, p, len);
	while (pb_more(&r)) {
		if (pb_next(&r, &f, NULL) || f.num > max)
			return false;
	}
	return true;
}

/*
 * Protobuf has no magic, so the start of the input must decode as a
 * Profile: every top-level field a known one of the right wire type (or a
 * newer one, numbered past the last known, after the first field), every
 * message among them well formed, and a sample type, sample or string seen.
 * Text fails at once: its bytes make field numbers that are unknown, wire
 * types that are groups, or lengths that run past the end. Only the last
 * field may be cut off by the end of the probe window.
 */
static int
pprof_probe(const char *data, size_t len)
{
	const uint8_t *p = (const uint8_t *)data;
	struct pb r;
	struct pb_field f;
	unsigned known = 0;

	if (len < 2)
		return 0;
	pb_init(&r, p, p, len);
	while (pb_more(&r)) {
		const uint8_t *start = r.p;

		if (pb_next(&r, &f, NULL)) {
			/* A field cut off by the probe window is fine if it began well. */
			uint64_t key;
			struct pb k;

			pb_init(&k, p, start, (size_t)(r.end - start));
			if (len < IMPORT_PROBE_BYTES || pb_varint(&k, &key, NULL) ||
			    (key & 7) != WIRE_LEN || (key >> 3) < 1 || (key >> 3) > 6)
				return 0;
			break;
		}
		switch (f.num) {
		case 1:
		case 11:
			if (f.wire != WIRE_LEN || !probe_message(f.data, f.len, 2))
				return 0;
			break;
		case 2:
		case 3:
		case 4:
		case 5:
			if (f.wire != WIRE_LEN || !probe_message(f.data, f.len, 16))
				return 0;
			break;
		case 6:
			if (f.wire != WIRE_LEN)
				return 0;
			break;
		case 7:
		case 8:
		case 9:
		case 10:
		case 12:
		case 14:
			if (f.wire != WIRE_VARINT)
				return 0;
			break;
		case 13:
			if (f.wire != WIRE_VARINT && f.wire != WIRE_LEN)
				return 0;
			break;
		default:
			/* A newer field, but never the first: text would start so. */
			if (f.offset == 0 || f.num < 15)
				return 0;
			break;
		}
		if (f.num == 1 || f.num == 2 || f.num == 6)
			known++;
	}
	return known ? 80 : 0;
}

static const char *const pprof_names[] = { ".pb.gz", ".pprof", ".pb", NULL };

const struct importer importer_pprof = {
	.name = "pprof",
	.description = "pprof",
	.probe = pprof_probe,
	.load = pprof_load,
	.names = pprof_names,
};

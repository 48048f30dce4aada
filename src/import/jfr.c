#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/bsearch.h"
#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/input.h"
#include "tflame/intern.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Java Flight Recorder (.jfr), as the JDK (11 and later) writes it.
 *
 * A recording is one or more chunks. A chunk is a 68-byte big-endian
 * header ("FLR\0", version, size, the offsets of its last checkpoint and
 * of its metadata, start time and tick rate), then events. Every event is
 * its size, its type id and its fields, all integers LEB128-compressed
 * (up to nine bytes, the ninth taken whole). Event 0 is the metadata: a
 * string table and a tree of elements that declares every type, its
 * fields in order, which fields are arrays and which are references into
 * a constant pool. Events of type 1 are checkpoints: constant pools, each
 * a type and a list of (key, value). Stack traces, methods, classes,
 * symbols and threads live in those pools, and an event names them by key.
 *
 * So the importer reads, per chunk: the header; the metadata, into a
 * table of types; then every event once (pass 1) to index the constant
 * pool entries by (type, key) -> byte offset, skipping their values with
 * the metadata's help, as nothing else says where one ends; then every
 * event again (pass 2), turning those of the types below into samples and
 * resolving what they name, once per key (cached). Other events are
 * skipped by their size. Checkpoints are read in file order rather than
 * through the chain of deltas from the header, which could loop. A file
 * is read a chunk at a time (jfr_load()), and a last chunk cut short, as
 * a JVM that died leaves it, is dropped with a warning.
 *
 * Everything in the file is untrusted: every size, count and offset is
 * checked against the end of what holds it, and errors name the byte.
 * Nothing recurses: values that nest (a stack trace holds an array of
 * frames, which are structs) are walked with an explicit stack of bounded
 * depth, and a struct type that could hold no bytes, which would let a
 * loop spin without reading, is refused where it is used.
 *
 * Profiles, one per event type, named after it (speedscope reads the
 * first two; allocations weigh what JMC weighs them by):
 *  - jdk.ExecutionSample, jdk.NativeMethodSample: 1 per sample;
 *  - jdk.ObjectAllocationInNewTLAB: the size of the new TLAB (bytes);
 *  - jdk.ObjectAllocationOutsideTLAB: the size of the allocation (bytes);
 *  - jdk.ObjectAllocationSample: its weight (bytes).
 * An allocation's stack ends with a frame for the class allocated. A
 * frame is a method, "package.Class.method": one function whatever line
 * ran, as in speedscope. Threads are the Java threads, by name and Java
 * thread id; the JVM's own threads by their OS name and id.
 */

#define JFR_FORMAT "jfr"
#define CHUNK_HEADER_SIZE 68
/* Inline structs nest this deep at most (the JDK's nest two deep). */
#define MAX_NEST 32
/* Fields of a struct that read_struct() hands back; later ones are skipped. */
#define MAX_VALS 16
/* Bytes of a chunk read at a time. */
#define READ_STEP (16 * 1024 * 1024)
/* Progress is published after this many bytes of events. */
#define PROGRESS_STEP (4 * 1024 * 1024)
#define UNRESOLVED UINT32_MAX
#define NONE UINT32_MAX

enum kind {
	K_STRUCT,
	K_BYTE,    /* boolean, byte: one byte */
	K_VARINT,  /* char, short, int, long */
	K_FLOAT,   /* four bytes */
	K_DOUBLE,  /* eight bytes */
	K_STRING,  /* java.lang.String: an encoding byte, then the string */
};

enum string_encoding {
	STR_NULL = 0,
	STR_EMPTY_STRING = 1,
	STR_POOL = 2,
	STR_UTF8 = 3,
	STR_CHARS = 4,
	STR_LATIN1 = 5,
};

struct jfr_field {
	const char *name;
	uint64_t type_id;  /* as the metadata says */
	uint32_t type;     /* index in jfr.types, once resolved */
	bool array, pool;
};

struct jfr_type {
	const char *name;
	uint64_t id;
	uint32_t first_field, nr_fields;
	enum kind kind;
	uint32_t min_size; /* bytes a value takes at least, for the loop guard */
	bool indexed;      /* its pools are indexed: the importer reads them */
};

struct type_id {
	uint64_t id;
	uint32_t idx;      /* in jfr.types */
};

/* The event types that become profiles, in the order of the profiles. */
enum ev {
	EV_EXECUTION,
	EV_NATIVE,
	EV_TLAB,
	EV_OUTSIDE_TLAB,
	EV_ALLOC_SAMPLE,
	NR_EV,
};

static const char *const ev_names[NR_EV] = {
	"jdk.ExecutionSample",
	"jdk.NativeMethodSample",
	"jdk.ObjectAllocationInNewTLAB",
	"jdk.ObjectAllocationOutsideTLAB",
	"jdk.ObjectAllocationSample",
};

/* The field of each event type that holds its weight, NULL for 1. */
static const char *const ev_weight_field[NR_EV] = {
	NULL, NULL, "tlabSize", "allocationSize", "weight",
};

/* Where a known type keeps what the importer reads: field indexes or NONE. */
struct schema {
	uint32_t ev_type[NR_EV];       /* type index, NONE if not declared */
	uint32_t ev_time[NR_EV], ev_thread[NR_EV], ev_stack[NR_EV];
	uint32_t ev_class[NR_EV], ev_weight[NR_EV];
	uint32_t trace, trace_truncated, trace_frames;
	uint32_t frame_method;
	uint32_t method, method_class, method_name;
	uint32_t class_, class_name;
	uint32_t symbol, symbol_string;
	uint32_t thread, thread_os_name, thread_os_id, thread_java_name, thread_java_id;
	uint32_t string;               /* the pool of java.lang.String */
};

/*
 * A constant pool entry and what it became, once resolved. Where its value
 * is sits apart (jfr.pool_off, by slot): only resolving reads it, while
 * every event looks entries up, and small slots miss the cache less.
 */
struct pool_entry {
	uint64_t key;
	uint32_t type;     /* type index; NONE for an empty slot */
	uint32_t resolved; /* frame_id (a method, or an allocated class),
			    * thread_id or stack_id (a trace) */
};

/*
 * The entries of a type whose keys are dense (the JVM numbers stack traces
 * and threads in order) sit in an array by key as well: every event looks
 * up its thread and stack trace, and a small array misses the cache far
 * less than the whole pool's table.
 */
struct cell {
	uint32_t resolved; /* as in struct pool_entry */
	uint32_t slot;     /* in jfr.pool, + 1; 0 for no entry */
};

struct dense {
	uint64_t min, span; /* keys min .. min + span - 1 */
	struct cell *cells; /* NULL when the keys are not dense */
};

/* A field's value as read_struct() saw it. */
struct val {
	uint64_t u;        /* number, pool key, array length, string encoding */
	size_t at;         /* where the value starts (an array: its first element) */
	bool set;
};

struct cur {
	size_t p, end;     /* offsets in jfr.buf */
};

/* A struct (or one field) being walked by skip_fields(). */
struct walk {
	const struct jfr_field *fields;
	uint32_t nr, i;    /* fields, and the next one */
	uint64_t left;     /* elements left of the array field i */
	bool in_array;     /* field i's length has been read */
};

struct jfr {
	const uint8_t *buf;        /* the chunks in memory: one, or all of them */
	size_t len;
	uint64_t base;             /* where buf starts in the file, for messages */
	const struct import_options *opts;
	struct profile_set *ps;
	struct tf_error *err;
	struct builder b;

	/* Per chunk: */
	size_t chunk, chunk_end;
	int64_t start_nanos, start_ticks;
	double ticks_per_ns;
	char **strings;            /* the metadata's string table, decoded */
	size_t nr_strings;
	struct jfr_type *types;
	size_t nr_types, alloc_types;
	struct jfr_field *fields;
	size_t nr_fields, alloc_fields;
	struct type_id *by_id;     /* the types in order of id, then index */
	struct schema s;
	struct pool_entry *pool;   /* open addressing on (type, key) */
	size_t *pool_off;          /* per slot: where the value is */
	struct dense *dense;       /* per type, after pass 1 */
	size_t pool_mask, nr_pool;
	frame_id *trace_frames;    /* of the trace being read, leaf first */
	size_t nr_trace_frames, alloc_trace_frames;
	uint64_t ev_count[NR_EV];

	/* The whole load: */
	struct profile *prof[NR_EV];
	struct strbuf sb;
	struct walk stack[MAX_NEST + 1];
	uint64_t nr_missing_stacks, nr_missing_methods, nr_truncated, nr_chunks;
	uint64_t reported;         /* bytes of the file given to progress */
	bool stop;                 /* the last chunk was cut: no more to read */
};

static int
fail_at(struct jfr *j, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
fail_at(struct jfr *j, size_t at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	tf_error_set_at(j->err, NULL, 0, "byte %" PRIu64 ": %s", j->base + at, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* ------------------------------------------------------------- reading */

static uint64_t
be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A LEB128 integer of at most nine bytes, the ninth taken whole. */
static int
rd_varint(struct jfr *j, struct cur *c, uint64_t *out)
{
	const uint8_t *p = j->buf + c->p;
	size_t avail = c->end - c->p;
	uint64_t v = 0;

	for (unsigned i = 0; i < 9; i++) {
		if (i >= avail)
			return fail_at(j, c->p, "integer runs past the end of its %s",
				       c->end == j->chunk_end ? "chunk" : "event");
		if (i == 8) {
			v |= (uint64_t)p[i] << 56;
			c->p += 9;
			*out = v;
			return 0;
		}
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			c->p += i + 1;
			*out = v;
			return 0;
		}
	}
	return -1; /* not reached */
}

static int
rd_skip(struct jfr *j, struct cur *c, uint64_t n, const char *what)
{
	if (n > c->end - c->p)
		return fail_at(j, c->p, "%s of %" PRIu64 " bytes runs past the end of its %s", what,
			       n, c->end == j->chunk_end ? "chunk" : "event");
	c->p += (size_t)n;
	return 0;
}

/* A count of things of at least one byte each: no more than there are bytes. */
static int
rd_count(struct jfr *j, struct cur *c, uint64_t *n, const char *what)
{
	size_t at = c->p;

	if (rd_varint(j, c, n))
		return -1;
	if (*n > c->end - c->p)
		return fail_at(j, at, "%s count %" PRIu64 " is more than the %zu bytes left", what,
			       *n, c->end - c->p);
	return 0;
}

/*
 * Append the UTF-8 of the string at c (after its encoding byte enc) to sb;
 * a pooled string is looked up. The cursor moves past it.
 */
static int lookup_pooled_string(struct jfr *j, uint64_t key, struct strbuf *sb, size_t at);

static void
add_utf8(struct strbuf *sb, uint32_t cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xc0 | cp >> 6));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (char)(0xe0 | cp >> 12));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (char)(0xf0 | cp >> 18));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	}
}

static int
rd_string(struct jfr *j, struct cur *c, struct strbuf *sb, bool allow_pool)
{
	size_t at = c->p;
	uint64_t n, key;
	uint8_t enc;

	if (c->p >= c->end)
		return fail_at(j, at, "string runs past the end of its %s",
			       c->end == j->chunk_end ? "chunk" : "event");
	enc = j->buf[c->p++];
	switch (enc) {
	case STR_NULL:
	case STR_EMPTY_STRING:
		return 0;
	case STR_POOL:
		if (rd_varint(j, c, &key))
			return -1;
		if (!allow_pool)
			return fail_at(j, at, "a pooled string where none may be");
		return lookup_pooled_string(j, key, sb, at);
	case STR_UTF8:
	case STR_LATIN1:
		if (rd_varint(j, c, &n))
			return -1;
		if (n > c->end - c->p)
			return fail_at(j, at, "string of %" PRIu64 " bytes runs past the end of its %s",
				       n, c->end == j->chunk_end ? "chunk" : "event");
		if (enc == STR_UTF8) {
			strbuf_add(sb, j->buf + c->p, (size_t)n);
		} else {
			for (size_t i = 0; i < n; i++)
				add_utf8(sb, j->buf[c->p + i]);
		}
		c->p += (size_t)n;
		return 0;
	case STR_CHARS: {
		uint32_t high = 0;

		if (rd_count(j, c, &n, "string character"))
			return -1;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t ch;

			if (rd_varint(j, c, &ch))
				return -1;
			ch &= 0xffff;
			/* UTF-16: join surrogate pairs; a lone one becomes U+FFFD. */
			if (ch >= 0xd800 && ch < 0xdc00) {
				if (high)
					add_utf8(sb, 0xfffd);
				high = (uint32_t)ch;
				continue;
			}
			if (ch >= 0xdc00 && ch < 0xe000 && high) {
				add_utf8(sb, 0x10000 + ((high - 0xd800) << 10) + ((uint32_t)ch - 0xdc00));
				high = 0;
				continue;
			}
			if (high)
				add_utf8(sb, 0xfffd);
			high = 0;
			add_utf8(sb, ch >= 0xdc00 && ch < 0xe000 ? 0xfffd : (uint32_t)ch);
		}
		if (high)
			add_utf8(sb, 0xfffd);
		return 0;
	}
	default:
		return fail_at(j, at, "unknown string encoding %u", enc);
	}
}

/* ---------------------------------------------------------- metadata */

static bool
type_id_before(const void *elem, const void *key)
{
	return ((const struct type_id *)elem)->id < *(const uint64_t *)key;
}

/* The index of the type with id id, by binary search of j->by_id. */
static uint32_t
type_index(const struct jfr *j, uint64_t id)
{
	size_t i = bsearch_first(j->by_id, j->nr_types, sizeof(*j->by_id), &id, type_id_before);

	/* Among equal ids the first declared wins: the sort is by index next. */
	return i < j->nr_types && j->by_id[i].id == id ? j->by_id[i].idx : NONE;
}

static const char *
meta_string(struct jfr *j, uint64_t i, size_t at, int *bad)
{
	if (i >= j->nr_strings) {
		fail_at(j, at, "metadata names string %" PRIu64 " of %zu", i, j->nr_strings);
		*bad = 1;
		return "";
	}
	return j->strings[i];
}

enum elem {
	EL_ROOT,
	EL_METADATA,
	EL_CLASS,
	EL_FIELD,
	EL_OTHER,
};

/*
 * The metadata event at the chunk's metadata offset: its string table,
 * then the element tree, walked with an explicit stack. Only
 * root > metadata > class > field matters here.
 */
static int
read_metadata(struct jfr *j, size_t off)
{
	struct cur c = { off, j->chunk_end };
	uint64_t size, type, v, nr;
	struct {
		enum elem kind;
		uint64_t left;
	} *st = NULL;
	size_t sp = 0, alloc_st = 0;
	int bad = 0, ret = -1;

	if (rd_varint(j, &c, &size))
		return -1;
	if (size < 2 || size > j->chunk_end - off)
		return fail_at(j, off, "metadata event size %" PRIu64 " does not fit its chunk", size);
	c.end = off + (size_t)size;
	if (rd_varint(j, &c, &type))
		return -1;
	if (type != 0)
		return fail_at(j, off, "metadata offset points at an event of type %" PRIu64
			       ", not the metadata (0)", type);
	/* start time, duration, metadata id */
	for (int i = 0; i < 3; i++)
		if (rd_varint(j, &c, &v))
			return -1;
	if (rd_count(j, &c, &nr, "metadata string"))
		return -1;
	j->strings = xcalloc(nr ? nr : 1, sizeof(*j->strings));
	for (uint64_t i = 0; i < nr; i++) {
		strbuf_reset(&j->sb);
		if (rd_string(j, &c, &j->sb, false))
			return -1;
		j->strings[j->nr_strings++] = strbuf_detach(&j->sb, NULL);
	}

	/* The tree: push the root as one child of a virtual parent. */
	ALLOC_GROW(st, sp, alloc_st);
	st[sp].kind = EL_OTHER;
	st[sp++].left = 1;
	while (sp) {
		enum elem parent = st[sp - 1].kind, kind = EL_OTHER;
		size_t at = c.p;
		uint64_t name, nattr, nkids;
		const char *ename;
		struct jfr_type *t = NULL;
		struct jfr_field *f = NULL;

		if (!st[sp - 1].left) {
			sp--;
			continue;
		}
		st[sp - 1].left--;
		if (rd_varint(j, &c, &name))
			goto out;
		ename = meta_string(j, name, at, &bad);
		if (bad)
			goto out;
		if (sp == 1)
			kind = EL_ROOT;
		else if (parent == EL_ROOT && !strcmp(ename, "metadata"))
			kind = EL_METADATA;
		else if (parent == EL_METADATA && !strcmp(ename, "class"))
			kind = EL_CLASS;
		else if (parent == EL_CLASS && !strcmp(ename, "field"))
			kind = EL_FIELD;
		if (kind == EL_CLASS) {
			ALLOC_GROW(j->types, j->nr_types, j->alloc_types);
			t = &j->types[j->nr_types++];
			memset(t, 0, sizeof(*t));
			t->name = "";
			t->id = UINT64_MAX;
			t->first_field = (uint32_t)j->nr_fields;
		} else if (kind == EL_FIELD) {
			ALLOC_GROW(j->fields, j->nr_fields, j->alloc_fields);
			f = &j->fields[j->nr_fields++];
			memset(f, 0, sizeof(*f));
			f->name = "";
			f->type_id = UINT64_MAX;
			j->types[j->nr_types - 1].nr_fields++;
		}
		if (rd_count(j, &c, &nattr, "metadata attribute"))
			goto out;
		for (uint64_t a = 0; a < nattr; a++) {
			uint64_t k, val;
			const char *key, *value;
			char *end;

			at = c.p;
			if (rd_varint(j, &c, &k) || rd_varint(j, &c, &val))
				goto out;
			key = meta_string(j, k, at, &bad);
			value = meta_string(j, val, at, &bad);
			if (bad)
				goto out;
			if (t && !strcmp(key, "name")) {
				t->name = value;
			} else if (t && !strcmp(key, "id")) {
				t->id = strtoull(value, &end, 10);
				if (end == value || *end) {
					fail_at(j, at, "type id '%s' is not a number", value);
					goto out;
				}
			} else if (f && !strcmp(key, "name")) {
				f->name = value;
			} else if (f && !strcmp(key, "class")) {
				f->type_id = strtoull(value, &end, 10);
				if (end == value || *end) {
					fail_at(j, at, "field type '%s' is not a number", value);
					goto out;
				}
			} else if (f && !strcmp(key, "dimension")) {
				if (strcmp(value, "0") && strcmp(value, "1")) {
					fail_at(j, at, "field %s has dimension %s (only 0 and 1 exist)",
						f->name, value);
					goto out;
				}
				f->array = !strcmp(value, "1");
			} else if (f && !strcmp(key, "constantPool")) {
				f->pool = !strcmp(value, "true");
			}
		}
		if (rd_count(j, &c, &nkids, "metadata element"))
			goto out;
		if (nkids) {
			ALLOC_GROW(st, sp, alloc_st);
			st[sp].kind = kind;
			st[sp++].left = nkids;
		}
	}
	ret = 0;
out:
	free(st);
	return ret;
}

static enum kind
primitive_kind(const char *name)
{
	if (!strcmp(name, "boolean") || !strcmp(name, "byte"))
		return K_BYTE;
	if (!strcmp(name, "char") || !strcmp(name, "short") || !strcmp(name, "int") ||
	    !strcmp(name, "long"))
		return K_VARINT;
	if (!strcmp(name, "float"))
		return K_FLOAT;
	if (!strcmp(name, "double"))
		return K_DOUBLE;
	if (!strcmp(name, "java.lang.String"))
		return K_STRING;
	return K_STRUCT;
}

static uint32_t
field_min_size(const struct jfr *j, const struct jfr_field *f)
{
	if (f->array || f->pool)
		return 1;
	return j->types[f->type].min_size;
}

static uint32_t
field_named(const struct jfr *j, uint32_t type, const char *name)
{
	const struct jfr_type *t;

	if (type == NONE)
		return NONE;
	t = &j->types[type];
	for (uint32_t i = 0; i < t->nr_fields; i++)
		if (!strcmp(j->fields[t->first_field + i].name, name))
			return i < MAX_VALS ? i : NONE;
	return NONE;
}

static uint32_t
type_named(const struct jfr *j, const char *name)
{
	for (size_t i = 0; i < j->nr_types; i++)
		if (!strcmp(j->types[i].name, name))
			return (uint32_t)i;
	return NONE;
}

static int
cmp_type_id(const void *a, const void *b)
{
	const struct type_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Index the pools of type, one the importer resolves; NONE: no such type. */
static void
mark_indexed(struct jfr *j, uint32_t type)
{
	if (type != NONE)
		j->types[type].indexed = true;
}

/*
 * Resolve field types, give each type its kind and least size, and find
 * the types and fields the importer reads.
 */
static int
link_types(struct jfr *j, size_t meta_off)
{
	struct schema *s = &j->s;
	bool changed = true;

	for (size_t i = 0; i < j->nr_types; i++) {
		struct jfr_type *t = &j->types[i];

		if (t->id == UINT64_MAX)
			return fail_at(j, meta_off, "metadata: type %s has no id", t->name);
		t->kind = primitive_kind(t->name);
		switch (t->kind) {
		case K_FLOAT:
			t->min_size = 4;
			break;
		case K_DOUBLE:
			t->min_size = 8;
			break;
		case K_STRUCT:
			t->min_size = 0;
			break;
		default:
			t->min_size = 1;
			break;
		}
	}
	free(j->by_id);
	j->by_id = xreallocarray(NULL, j->nr_types ? j->nr_types : 1, sizeof(*j->by_id));
	for (size_t i = 0; i < j->nr_types; i++) {
		j->by_id[i].id = j->types[i].id;
		j->by_id[i].idx = (uint32_t)i;
	}
	qsort(j->by_id, j->nr_types, sizeof(*j->by_id), cmp_type_id);
	for (size_t i = 0; i < j->nr_fields; i++) {
		struct jfr_field *f = &j->fields[i];

		f->type = type_index(j, f->type_id);
		if (f->type == NONE)
			return fail_at(j, meta_off, "metadata: field %s is of type %" PRIu64
				       ", which is not declared", f->name, f->type_id);
	}
	/*
	 * Least sizes, to a fixed point: a struct takes what its fields take.
	 * A round settles one more level of nesting; values nest MAX_NEST
	 * deep at most, so more rounds would only serve types that cannot be
	 * read anyway (and cost quadratic time on hostile metadata). A cycle
	 * of inline structs grows each round and stops at the cap.
	 */
	for (size_t round = 0; changed && round <= MAX_NEST + 1; round++) {
		changed = false;
		for (size_t i = 0; i < j->nr_types; i++) {
			struct jfr_type *t = &j->types[i];
			uint64_t sum = 0;

			if (t->kind != K_STRUCT)
				continue;
			for (uint32_t k = 0; k < t->nr_fields; k++)
				sum += field_min_size(j, &j->fields[t->first_field + k]);
			if (sum > (1u << 20))
				sum = 1u << 20;
			if (sum != t->min_size) {
				t->min_size = (uint32_t)sum;
				changed = true;
			}
		}
	}

	for (int e = 0; e < NR_EV; e++) {
		uint32_t t = type_named(j, ev_names[e]);

		s->ev_type[e] = t;
		s->ev_time[e] = field_named(j, t, "startTime");
		s->ev_thread[e] = field_named(j, t, e <= EV_NATIVE ? "sampledThread" : "eventThread");
		s->ev_stack[e] = field_named(j, t, "stackTrace");
		s->ev_class[e] = e <= EV_NATIVE ? NONE : field_named(j, t, "objectClass");
		s->ev_weight[e] = ev_weight_field[e] ? field_named(j, t, ev_weight_field[e]) : NONE;
		/* Without a stack or (for allocations) a size, there is no sample. */
		if (t != NONE && (s->ev_stack[e] == NONE || (ev_weight_field[e] && s->ev_weight[e] == NONE)))
			s->ev_type[e] = NONE;
	}
	s->trace = type_named(j, "jdk.types.StackTrace");
	s->trace_truncated = field_named(j, s->trace, "truncated");
	s->trace_frames = field_named(j, s->trace, "frames");
	s->frame_method = NONE;
	if (s->trace_frames != NONE) {
		const struct jfr_field *f = &j->fields[j->types[s->trace].first_field + s->trace_frames];

		if (f->array && !f->pool && j->types[f->type].kind == K_STRUCT)
			s->frame_method = field_named(j, f->type, "method");
	}
	s->method = type_named(j, "jdk.types.Method");
	s->method_class = field_named(j, s->method, "type");
	s->method_name = field_named(j, s->method, "name");
	s->class_ = type_named(j, "java.lang.Class");
	s->class_name = field_named(j, s->class_, "name");
	s->symbol = type_named(j, "jdk.types.Symbol");
	s->symbol_string = field_named(j, s->symbol, "string");
	s->thread = type_named(j, "java.lang.Thread");
	s->thread_os_name = field_named(j, s->thread, "osName");
	s->thread_os_id = field_named(j, s->thread, "osThreadId");
	s->thread_java_name = field_named(j, s->thread, "javaName");
	s->thread_java_id = field_named(j, s->thread, "javaThreadId");
	s->string = type_named(j, "java.lang.String");
	mark_indexed(j, s->trace);
	mark_indexed(j, s->method);
	mark_indexed(j, s->class_);
	mark_indexed(j, s->symbol);
	mark_indexed(j, s->thread);
	mark_indexed(j, s->string);
	return 0;
}

/* --------------------------------------------------------------- values */

/*
 * Read one value of each field in [fields, fields + nr), as the metadata
 * lays them out, and leave c after them. Nested inline structs and arrays
 * go on j->stack rather than the C stack.
 */
static int
skip_fields(struct jfr *j, struct cur *c, const struct jfr_field *fields, uint32_t nr)
{
	size_t sp = 0;

	j->stack[sp].fields = fields;
	j->stack[sp].nr = nr;
	j->stack[sp].i = 0;
	j->stack[sp].in_array = false;
	sp++;
	while (sp) {
		struct walk *fr = &j->stack[sp - 1];
		const struct jfr_field *f;
		const struct jfr_type *t;
		uint64_t v;

		if (fr->i == fr->nr) {
			sp--;
			continue;
		}
		f = &fr->fields[fr->i];
		if (f->array) {
			if (!fr->in_array) {
				if (rd_count(j, c, &fr->left, "array element"))
					return -1;
				fr->in_array = true;
			}
			if (!fr->left) {
				fr->in_array = false;
				fr->i++;
				continue;
			}
			fr->left--;
		} else {
			fr->i++;
		}
		if (f->pool) {
			if (rd_varint(j, c, &v))
				return -1;
			continue;
		}
		t = &j->types[f->type];
		switch (t->kind) {
		case K_BYTE:
			if (rd_skip(j, c, 1, "value"))
				return -1;
			break;
		case K_VARINT:
			if (rd_varint(j, c, &v))
				return -1;
			break;
		case K_FLOAT:
		case K_DOUBLE:
			if (rd_skip(j, c, t->min_size, "value"))
				return -1;
			break;
		case K_STRING: {
			size_t at = c->p;
			uint8_t enc;

			if (c->p >= c->end)
				return rd_skip(j, c, 1, "string");
			enc = j->buf[c->p++];
			if (enc == STR_POOL) {
				if (rd_varint(j, c, &v))
					return -1;
			} else if (enc == STR_UTF8 || enc == STR_LATIN1) {
				if (rd_varint(j, c, &v) || rd_skip(j, c, v, "string"))
					return -1;
			} else if (enc == STR_CHARS) {
				if (rd_count(j, c, &v, "string character"))
					return -1;
				for (uint64_t k = 0; k < v; k++) {
					uint64_t ch;

					if (rd_varint(j, c, &ch))
						return -1;
				}
			} else if (enc != STR_NULL && enc != STR_EMPTY_STRING) {
				return fail_at(j, at, "unknown string encoding %u", enc);
			}
			break;
		}
		case K_STRUCT:
			if (!t->min_size)
				return fail_at(j, c->p, "field %s is of type %s, which holds no data",
					       f->name, t->name);
			if (sp > MAX_NEST)
				return fail_at(j, c->p, "values nest more than %d deep (type %s)",
					       MAX_NEST, t->name);
			j->stack[sp].fields = &j->fields[t->first_field];
			j->stack[sp].nr = t->nr_fields;
			j->stack[sp].i = 0;
			j->stack[sp].in_array = false;
			sp++;
			break;
		}
	}
	return 0;
}

/*
 * Read a struct of type at c, noting in vals[i] where field i (i <
 * MAX_VALS) is and its number, pool key, length or encoding. With
 * upto < nr_fields, stop after field upto - 1 (an event, whose end is
 * known anyway); else c ends after the struct.
 */
static int
read_struct(struct jfr *j, struct cur *c, uint32_t type, struct val *vals, uint32_t upto)
{
	const struct jfr_type *t = &j->types[type];
	uint32_t n = upto < t->nr_fields ? upto : t->nr_fields;

	for (uint32_t i = 0; i < MAX_VALS; i++)
		vals[i].set = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct jfr_field *f = &j->fields[t->first_field + i];
		struct val *v = i < MAX_VALS ? &vals[i] : NULL;
		enum kind k = j->types[f->type].kind;

		if (v) {
			v->at = c->p;
			v->set = true;
			v->u = 0;
		}
		/* The common cases inline: numbers and references. */
		if (!f->array && (f->pool || k == K_VARINT)) {
			uint64_t x;

			if (rd_varint(j, c, &x))
				return -1;
			if (v)
				v->u = x;
			continue;
		}
		if (v && f->array) {
			struct cur peek = *c;

			if (rd_varint(j, &peek, &v->u))
				return -1;
			v->at = peek.p;
		} else if (v && k == K_STRING && c->p < c->end) {
			v->u = j->buf[c->p];
		} else if (v && k == K_BYTE && c->p < c->end) {
			v->u = j->buf[c->p];
		}
		if (skip_fields(j, c, f, 1))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- pools */

static size_t
pool_slot(const struct jfr *j, uint32_t type, uint64_t key)
{
	return (size_t)hash_pair(type, key) & j->pool_mask;
}

static struct pool_entry *
pool_find(struct jfr *j, uint32_t type, uint64_t key)
{
	if (!j->pool)
		return NULL;
	for (size_t i = pool_slot(j, type, key);; i = (i + 1) & j->pool_mask) {
		struct pool_entry *e = &j->pool[i];

		if (e->type == NONE)
			return NULL;
		if (e->type == type && e->key == key)
			return e;
	}
}

static void
pool_add(struct jfr *j, uint32_t type, uint64_t key, size_t off)
{
	size_t i;

	if ((j->nr_pool + 1) * 2 > j->pool_mask + 1 || !j->pool) {
		size_t n = j->pool ? (j->pool_mask + 1) * 2 : 1024;
		struct pool_entry *old = j->pool;
		size_t *old_off = j->pool_off;
		size_t old_n = j->pool ? j->pool_mask + 1 : 0;

		j->pool = xreallocarray(NULL, n, sizeof(*j->pool));
		j->pool_off = xreallocarray(NULL, n, sizeof(*j->pool_off));
		for (i = 0; i < n; i++)
			j->pool[i].type = NONE;
		j->pool_mask = n - 1;
		for (size_t k = 0; k < old_n; k++) {
			if (old[k].type == NONE)
				continue;
			for (i = pool_slot(j, old[k].type, old[k].key); j->pool[i].type != NONE;
			     i = (i + 1) & j->pool_mask)
				;
			j->pool[i] = old[k];
			j->pool_off[i] = old_off[k];
		}
		free(old);
		free(old_off);
	}
	for (i = pool_slot(j, type, key);; i = (i + 1) & j->pool_mask) {
		struct pool_entry *e = &j->pool[i];

		if (e->type == type && e->key == key)
			return; /* the first definition stands */
		if (e->type == NONE) {
			e->type = type;
			e->key = key;
			e->resolved = UNRESOLVED;
			j->pool_off[i] = off;
			j->nr_pool++;
			return;
		}
	}
}

/*
 * After pass 1: an array by key for each type whose keys are dense (at
 * least half the keys from the least to the greatest are used).
 */
static void
build_dense(struct jfr *j)
{
	struct { uint64_t min, max, n; } *st = xcalloc(j->nr_types ? j->nr_types : 1, sizeof(*st));
	size_t slots = j->pool ? j->pool_mask + 1 : 0;

	j->dense = xcalloc(j->nr_types ? j->nr_types : 1, sizeof(*j->dense));
	for (size_t i = 0; i < slots; i++) {
		const struct pool_entry *e = &j->pool[i];

		if (e->type == NONE)
			continue;
		if (!st[e->type].n || e->key < st[e->type].min)
			st[e->type].min = e->key;
		if (!st[e->type].n || e->key > st[e->type].max)
			st[e->type].max = e->key;
		st[e->type].n++;
	}
	for (size_t t = 0; t < j->nr_types; t++) {
		if (st[t].n < 64 || st[t].max - st[t].min >= 2 * st[t].n)
			continue;
		j->dense[t].min = st[t].min;
		j->dense[t].span = st[t].max - st[t].min + 1;
		j->dense[t].cells = xcalloc(j->dense[t].span, sizeof(struct cell));
	}
	for (size_t i = 0; i < slots; i++) {
		const struct pool_entry *e = &j->pool[i];
		struct dense *d;

		if (e->type == NONE || !(d = &j->dense[e->type])->cells)
			continue;
		d->cells[e->key - d->min].resolved = UNRESOLVED;
		d->cells[e->key - d->min].slot = (uint32_t)i + 1;
	}
	free(st);
}

/*
 * What the entry of (type, key) resolved to, for reading and writing
 * (UNRESOLVED until then), and *slot its slot for pool_cursor(); NULL if
 * there is no such entry (type NONE: the metadata has no such type).
 */
static uint32_t *
pool_ref(struct jfr *j, uint32_t type, uint64_t key, size_t *slot)
{
	struct pool_entry *e;

	if (type == NONE)
		return NULL;
	if (j->dense && j->dense[type].cells) {
		struct dense *d = &j->dense[type];
		struct cell *cell;

		if (key < d->min || key - d->min >= d->span)
			return NULL;
		cell = &d->cells[key - d->min];
		if (!cell->slot)
			return NULL;
		*slot = cell->slot - 1;
		return &cell->resolved;
	}
	e = pool_find(j, type, key);
	if (!e)
		return NULL;
	*slot = (size_t)(e - j->pool);
	return &e->resolved;
}

/* c on the value in slot. */
static void
pool_cursor(const struct jfr *j, size_t slot, struct cur *c)
{
	c->p = j->pool_off[slot];
	c->end = j->chunk_end;
}

/* Whether (type, key) has an entry; if so, c on its value. */
static bool
pool_open(struct jfr *j, uint32_t type, uint64_t key, struct cur *c)
{
	size_t slot;

	if (!pool_ref(j, type, key, &slot))
		return false;
	pool_cursor(j, slot, c);
	return true;
}

/* How many fields to read to see each of idx[0..n) that is not NONE. */
static uint32_t
fields_upto(const uint32_t *idx, size_t n)
{
	uint32_t upto = 0;

	for (size_t i = 0; i < n; i++)
		if (idx[i] != NONE && idx[i] + 1 > upto)
			upto = idx[i] + 1;
	return upto;
}

/* A checkpoint event: index every entry of every pool in it. */
static int
read_checkpoint(struct jfr *j, struct cur *c)
{
	uint64_t v, npools;

	/* start time, duration, delta to the previous checkpoint */
	for (int i = 0; i < 3; i++)
		if (rd_varint(j, c, &v))
			return -1;
	if (rd_skip(j, c, 1, "checkpoint type") || rd_count(j, c, &npools, "constant pool"))
		return -1;
	for (uint64_t p = 0; p < npools; p++) {
		size_t at = c->p;
		uint64_t id, n;
		uint32_t type;
		struct jfr_field whole;

		if (rd_varint(j, c, &id))
			return -1;
		type = type_index(j, id);
		if (type == NONE)
			return fail_at(j, at, "constant pool of type %" PRIu64 ", which the metadata "
				       "does not declare", id);
		if (rd_count(j, c, &n, "constant"))
			return -1;
		/* A pool's values are whole values of its type. */
		memset(&whole, 0, sizeof(whole));
		whole.name = j->types[type].name;
		whole.type = type;
		for (uint64_t k = 0; k < n; k++) {
			uint64_t key;

			if (rd_varint(j, c, &key))
				return -1;
			/* Other pools (modules, thread groups...) are only walked. */
			if (j->types[type].indexed)
				pool_add(j, type, key, c->p);
			if (skip_fields(j, c, &whole, 1))
				return -1;
		}
	}
	return 0;
}

static int
lookup_pooled_string(struct jfr *j, uint64_t key, struct strbuf *sb, size_t at)
{
	struct cur c;

	if (!pool_open(j, j->s.string, key, &c))
		return fail_at(j, at, "string %" PRIu64 " is in no constant pool", key);
	/* A pooled string is a plain one: no chain to follow. */
	return rd_string(j, &c, sb, false);
}

/* The field (index idx of type) of a struct that vals were read from. */
static const struct jfr_field *
field_of(const struct jfr *j, uint32_t type, uint32_t idx)
{
	return &j->fields[j->types[type].first_field + idx];
}

/*
 * The string in field idx of a struct read into vals, appended to
 * j->sb; a reference to a Symbol (or a String pool) is followed.
 */
static int
struct_string(struct jfr *j, uint32_t type, const struct val *vals, uint32_t idx)
{
	const struct jfr_field *f;
	struct cur c;

	if (idx == NONE || !vals[idx].set)
		return 0;
	f = field_of(j, type, idx);
	if (f->array)
		return 0;
	if (f->pool) {
		struct val sv[MAX_VALS];

		if (!pool_open(j, f->type, vals[idx].u, &c))
			return 0; /* null, or missing: no name */
		if (j->types[f->type].kind == K_STRING)
			return rd_string(j, &c, &j->sb, true);
		/* A Symbol: its one string field. */
		if (f->type != j->s.symbol || j->s.symbol_string == NONE)
			return 0;
		if (read_struct(j, &c, f->type, sv, j->s.symbol_string + 1))
			return -1;
		if (field_of(j, f->type, j->s.symbol_string)->pool ||
		    j->types[field_of(j, f->type, j->s.symbol_string)->type].kind != K_STRING)
			return 0;
		c.p = sv[j->s.symbol_string].at;
		return rd_string(j, &c, &j->sb, true);
	}
	if (j->types[f->type].kind != K_STRING)
		return 0;
	c.p = vals[idx].at;
	c.end = j->chunk_end;
	return rd_string(j, &c, &j->sb, true);
}

static frame_id
plain_frame(struct jfr *j, const char *name, size_t len)
{
	struct frame fr;

	memset(&fr, 0, sizeof(fr));
	fr.name = ps_str(j->ps, name, len);
	fr.module = STR_EMPTY;
	fr.file = STR_EMPTY;
	return profile_set_frame(j->ps, &fr);
}

/*
 * Append the name of the class with pool key key to j->sb as Java writes
 * it: "java.util.HashMap", "int[]"; *found is false if there is none.
 */
static int
class_name(struct jfr *j, uint64_t key, bool *found)
{
	struct val vals[MAX_VALS];
	struct cur c;
	size_t start = j->sb.len, dims = 0;

	*found = false;
	if (!pool_open(j, j->s.class_, key, &c) || j->s.class_name == NONE)
		return 0;
	if (read_struct(j, &c, j->s.class_, vals, j->s.class_name + 1) ||
	    struct_string(j, j->s.class_, vals, j->s.class_name))
		return -1;
	*found = j->sb.len > start;
	/* Array classes are descriptors: "[I", "[Ljava/lang/String;". */
	while (start + dims < j->sb.len && j->sb.buf[start + dims] == '[')
		dims++;
	if (dims) {
		static const char *const prim[] = {
			"B", "byte", "C", "char", "D", "double", "F", "float", "I", "int",
			"J", "long", "S", "short", "Z", "boolean",
		};
		char *elem = xstrdup(j->sb.buf + start + dims);
		size_t n = strlen(elem);
		const char *name = elem;

		if (n >= 2 && elem[0] == 'L' && elem[n - 1] == ';') {
			elem[n - 1] = '\0';
			name = elem + 1;
		} else {
			for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i += 2)
				if (!strcmp(elem, prim[i]))
					name = prim[i + 1];
		}
		strbuf_setlen(&j->sb, start);
		strbuf_addstr(&j->sb, name);
		for (size_t i = 0; i < dims; i++)
			strbuf_addstr(&j->sb, "[]");
		free(elem);
	}
	for (size_t i = start; i < j->sb.len; i++)
		if (j->sb.buf[i] == '/')
			j->sb.buf[i] = '.';
	return 0;
}


/*
 * The frame of the class allocated, with pool key key: its name, cached
 * in the class's entry (which nothing else caches in).
 */
static int
allocated_class(struct jfr *j, uint64_t key, frame_id *out)
{
	size_t slot;
	uint32_t *res = pool_ref(j, j->s.class_, key, &slot);
	bool found;

	if (res && *res != UNRESOLVED) {
		*out = *res;
		return 0;
	}
	strbuf_reset(&j->sb);
	if (class_name(j, key, &found))
		return -1;
	*out = found ? plain_frame(j, j->sb.buf, j->sb.len) : plain_frame(j, "[unknown class]", 15);
	if (res)
		*res = *out;
	return 0;
}

/* The frame of the method with pool key key: "package.Class.method". */
static int
method_frame(struct jfr *j, uint64_t key, frame_id *out)
{
	struct schema *s = &j->s;
	struct cur c;
	size_t slot;
	uint32_t *res = pool_ref(j, s->method, key, &slot);
	struct val vals[MAX_VALS];
	uint32_t want[] = { s->method_class, s->method_name };
	bool found = false;

	if (!res) {
		j->nr_missing_methods++;
		*out = plain_frame(j, "[unknown method]", 16);
		return 0;
	}
	if (*res != UNRESOLVED) {
		*out = *res;
		return 0;
	}
	pool_cursor(j, slot, &c);
	if (read_struct(j, &c, s->method, vals, fields_upto(want, 2)))
		return -1;
	strbuf_reset(&j->sb);
	if (s->method_class != NONE && vals[s->method_class].set &&
	    field_of(j, s->method, s->method_class)->pool &&
	    class_name(j, vals[s->method_class].u, &found))
		return -1;
	if (found)
		strbuf_addch(&j->sb, '.');
	if (struct_string(j, s->method, vals, s->method_name))
		return -1;
	if (!j->sb.len)
		strbuf_addstr(&j->sb, "[unknown method]");
	*out = *res = plain_frame(j, j->sb.buf, j->sb.len);
	return 0;
}

/*
 * The stack of the stack trace with pool key key, as *out; *found is false
 * if there is no such trace.
 */
static int
stack_trace(struct jfr *j, uint64_t key, stack_id *out, bool *found)
{
	struct schema *s = &j->s;
	struct cur c;
	size_t slot;
	uint32_t *res = pool_ref(j, s->trace, key, &slot);
	struct val vals[MAX_VALS];
	uint32_t want[] = { s->trace_frames, s->trace_truncated };
	const struct jfr_field *ff;
	stack_id stack = STACK_ROOT;

	*found = res != NULL;
	*out = STACK_ROOT;
	if (!res)
		return 0;
	if (*res != UNRESOLVED) {
		*out = *res;
		return 0;
	}
	pool_cursor(j, slot, &c);
	j->nr_trace_frames = 0;
	if (read_struct(j, &c, s->trace, vals, fields_upto(want, 2)))
		return -1;
	if (s->trace_truncated != NONE && vals[s->trace_truncated].set &&
	    vals[s->trace_truncated].u)
		j->nr_truncated++;
	if (s->frame_method != NONE && vals[s->trace_frames].set) {
		uint64_t n = vals[s->trace_frames].u;
		uint32_t ftype;

		ff = field_of(j, s->trace, s->trace_frames);
		ftype = ff->type;
		c.p = vals[s->trace_frames].at;
		for (uint64_t i = 0; i < n; i++) {
			struct val fv[MAX_VALS];
			frame_id fid;

			/* The whole frame, to find the next one. */
			if (read_struct(j, &c, ftype, fv, UINT32_MAX))
				return -1;
			if (!field_of(j, ftype, s->frame_method)->pool)
				continue;
			if (method_frame(j, fv[s->frame_method].u, &fid))
				return -1;
			ALLOC_GROW(j->trace_frames, j->nr_trace_frames, j->alloc_trace_frames);
			j->trace_frames[j->nr_trace_frames++] = fid;
		}
	}
	/*
	 * Interned once here, from the root: samples of a trace then cost
	 * no walk, where consecutive samples seldom share a path.
	 */
	for (size_t i = j->nr_trace_frames; i > 0; i--)
		stack = profile_set_stack(j->ps, stack, j->trace_frames[i - 1]);
	*out = *res = stack;
	return 0;
}

/* The thread with pool key key, as *out. */
static int
thread_of(struct jfr *j, uint64_t key, thread_id *out)
{
	struct schema *s = &j->s;
	struct cur c;
	size_t slot;
	uint32_t *res = pool_ref(j, s->thread, key, &slot);
	struct val vals[MAX_VALS];
	int64_t tid = -1;
	str_id comm;

	if (!res) {
		*out = profile_set_thread(j->ps, -1, -1, STR_EMPTY);
		return 0;
	}
	if (*res != UNRESOLVED) {
		*out = *res;
		return 0;
	}
	pool_cursor(j, slot, &c);
	strbuf_reset(&j->sb);
	if (read_struct(j, &c, s->thread, vals, UINT32_MAX) ||
	    struct_string(j, s->thread, vals, s->thread_java_name))
		return -1;
	if (s->thread_java_id != NONE && vals[s->thread_java_id].set && vals[s->thread_java_id].u)
		tid = (int64_t)vals[s->thread_java_id].u;
	/* Threads of the JVM itself (GC, compiler) have only an OS name. */
	if (!j->sb.len && struct_string(j, s->thread, vals, s->thread_os_name))
		return -1;
	if (tid < 0 && s->thread_os_id != NONE && vals[s->thread_os_id].set)
		tid = (int64_t)vals[s->thread_os_id].u;
	comm = j->sb.len ? ps_str(j->ps, j->sb.buf, j->sb.len) : STR_EMPTY;
	*out = *res = profile_set_thread(j->ps, -1, tid, comm);
	return 0;
}

/* --------------------------------------------------------------- events */

static int64_t
ticks_to_ns(const struct jfr *j, uint64_t ticks)
{
	/* The difference wraps rather than overflows: ticks are untrusted. */
	double d = (double)(int64_t)(ticks - (uint64_t)j->start_ticks) / j->ticks_per_ns;
	int64_t ns;

	/* What the JDK's TimeConverter does, saturated. */
	if (d > 4e18)
		d = 4e18;
	if (d < -4e18)
		d = -4e18;
	ns = (int64_t)d;
	if (ns > 0 && j->start_nanos > INT64_MAX - ns)
		return INT64_MAX;
	if (ns < 0 && j->start_nanos < INT64_MIN - ns)
		return INT64_MIN;
	return j->start_nanos + ns;
}

static int
add_event(struct jfr *j, enum ev e, struct cur *c)
{
	struct schema *s = &j->s;
	struct val vals[MAX_VALS];
	uint32_t idx[] = { s->ev_time[e], s->ev_thread[e], s->ev_stack[e], s->ev_class[e],
			   s->ev_weight[e] };
	uint64_t weight = 1;
	thread_id thread;
	int64_t time = 0;
	bool has_time = false;
	frame_id cls = FRAME_NONE;
	stack_id stack = STACK_ROOT;

	if (read_struct(j, c, s->ev_type[e], vals, fields_upto(idx, sizeof(idx) / sizeof(idx[0]))))
		return -1;
	if (s->ev_weight[e] != NONE && j->opts->weight != WEIGHT_SAMPLES) {
		weight = vals[s->ev_weight[e]].u;
		if (!weight)
			return 0;
	}
	if (s->ev_time[e] != NONE) {
		time = ticks_to_ns(j, vals[s->ev_time[e]].u);
		has_time = true;
	}
	if (s->ev_thread[e] != NONE && field_of(j, s->ev_type[e], s->ev_thread[e])->pool) {
		if (thread_of(j, vals[s->ev_thread[e]].u, &thread))
			return -1;
	} else {
		thread = profile_set_thread(j->ps, -1, -1, STR_EMPTY);
	}
	if (field_of(j, s->ev_type[e], s->ev_stack[e])->pool) {
		uint64_t key = vals[s->ev_stack[e]].u;
		bool found;

		if (stack_trace(j, key, &stack, &found))
			return -1;
		/* Key 0 is no stack at all: a JVM thread's allocation, say. */
		if (!found && key) {
			j->nr_missing_stacks++;
			stack = profile_set_stack(j->ps, STACK_ROOT,
						  plain_frame(j, "[missing stack trace]", 21));
		}
	}
	if (s->ev_class[e] != NONE && field_of(j, s->ev_type[e], s->ev_class[e])->pool &&
	    allocated_class(j, vals[s->ev_class[e]].u, &cls))
		return -1;
	if (cls != FRAME_NONE)
		stack = profile_set_stack(j->ps, stack, cls);
	return builder_add_stack_sample(&j->b, j->prof[e], thread, weight, time, has_time, stack,
					j->err);
}

/*
 * Walk the events of the chunk: pass 1 indexes the constant pools and
 * counts the events wanted, pass 2 adds them.
 */
static int
walk_events(struct jfr *j, int pass)
{
	struct import_progress *prog = j->opts->progress;
	size_t p = j->chunk + CHUNK_HEADER_SIZE;
	uint64_t ids[NR_EV];

	for (int e = 0; e < NR_EV; e++)
		ids[e] = j->s.ev_type[e] == NONE ? UINT64_MAX : j->types[j->s.ev_type[e]].id;
	while (p < j->chunk_end) {
		struct cur c = { p, j->chunk_end };
		uint64_t size, type;
		int e;

		if (rd_varint(j, &c, &size))
			return -1;
		if (size < 2 || size > j->chunk_end - p)
			return fail_at(j, p, "event size %" PRIu64 " does not fit its chunk "
				       "(%zu bytes left)", size, j->chunk_end - p);
		c.end = p + (size_t)size;
		if (rd_varint(j, &c, &type))
			return -1;
		for (e = 0; e < NR_EV && ids[e] != type; e++)
			;
		if (pass == 1) {
			if (type == 1 && read_checkpoint(j, &c))
				return -1;
			if (e < NR_EV)
				j->ev_count[e]++;
		} else if (e < NR_EV) {
			if (add_event(j, (enum ev)e, &c))
				return -1;
			if (builder_stopped(&j->b))
				return 0;
		}
		p += (size_t)size;
		if (pass == 2 && prog && j->base + p - j->reported >= PROGRESS_STEP) {
			atomic_fetch_add(&prog->bytes_done, j->base + p - j->reported);
			j->reported = j->base + p;
			if (atomic_load(&prog->cancel))
				return tf_error_set(j->err, "cancelled");
		}
	}
	return 0;
}

static void
chunk_release(struct jfr *j)
{
	for (size_t i = 0; i < j->nr_strings; i++)
		free(j->strings[i]);
	free(j->strings);
	j->strings = NULL;
	j->nr_strings = 0;
	for (size_t t = 0; j->dense && t < j->nr_types; t++)
		free(j->dense[t].cells);
	free(j->dense);
	j->dense = NULL;
	j->nr_types = j->nr_fields = 0;
	free(j->pool);
	free(j->pool_off);
	j->pool = NULL;
	j->pool_off = NULL;
	j->nr_pool = j->pool_mask = 0;
	j->nr_trace_frames = 0;
	memset(j->ev_count, 0, sizeof(j->ev_count));
}

static int
read_chunk(struct jfr *j, size_t at, size_t *next)
{
	const uint8_t *h = j->buf + at;
	uint64_t size, meta;
	unsigned major, minor;
	int64_t tps;

	if (j->len - at < CHUNK_HEADER_SIZE && j->nr_chunks) {
		profile_set_warn(j->ps, 0, "byte %" PRIu64 ": the last chunk's header is cut "
				 "short (%zu of %d bytes); kept the %" PRIu64 " chunks before it",
				 j->base + at, j->len - at, CHUNK_HEADER_SIZE, j->nr_chunks);
		j->stop = true;
		return 0;
	}
	if (j->len - at < CHUNK_HEADER_SIZE)
		return fail_at(j, at, "chunk header cut short (%zu of %d bytes)", j->len - at,
			       CHUNK_HEADER_SIZE);
	if (memcmp(h, "FLR", 4))
		return fail_at(j, at, "no chunk starts here (no FLR magic)");
	major = (unsigned)h[4] << 8 | h[5];
	minor = (unsigned)h[6] << 8 | h[7];
	if (major != 1 && major != 2)
		return fail_at(j, at, "JFR version %u.%u; only 1.x and 2.x are known", major, minor);
	size = be64(h + 8);
	meta = be64(h + 24);
	j->start_nanos = (int64_t)be64(h + 32);
	j->start_ticks = (int64_t)be64(h + 48);
	tps = (int64_t)be64(h + 56);
	/*
	 * A JVM that died mid-recording leaves its last chunk unfinished:
	 * keep the chunks before it.
	 */
	if ((size == 0 || size > j->len - at) && j->nr_chunks) {
		profile_set_warn(j->ps, 0, "byte %" PRIu64 ": the last chunk is %s; kept the %"
				 PRIu64 " chunks before it", j->base + at,
				 size ? "cut short" : "unfinished (size 0)", j->nr_chunks);
		j->stop = true;
		return 0;
	}
	if (size == 0)
		return fail_at(j, at, "chunk is still being written (its size is 0)");
	if (size < CHUNK_HEADER_SIZE || size > j->len - at)
		return fail_at(j, at, "chunk size %" PRIu64 " does not fit the file (%zu bytes "
			       "left)", size, j->len - at);
	if (meta < CHUNK_HEADER_SIZE || meta >= size)
		return fail_at(j, at, "metadata offset %" PRIu64 " is outside its chunk of %"
			       PRIu64 " bytes", meta, size);
	if (tps <= 0)
		return fail_at(j, at, "%" PRId64 " ticks per second", tps);
	j->ticks_per_ns = (double)tps / 1e9;
	j->chunk = at;
	j->chunk_end = at + (size_t)size;
	*next = j->chunk_end;
	if (read_metadata(j, at + (size_t)meta) || link_types(j, at + (size_t)meta) ||
	    walk_events(j, 1))
		return -1;
	build_dense(j);
	for (int e = 0; e < NR_EV; e++)
		if (j->ev_count[e] && !j->prof[e])
			j->prof[e] = profile_set_profile(j->ps, ps_str(j->ps, ev_names[e],
								       strlen(ev_names[e])),
							 ev_weight_field[e] && j->opts->weight != WEIGHT_SAMPLES
								 ? UNIT_BYTES : UNIT_SAMPLES);
	j->nr_chunks++;
	return walk_events(j, 2);
}

static struct jfr *
jfr_new(const struct import_options *opts, struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct jfr *j = xcalloc(1, sizeof(*j));

	j->opts = opts ? opts : &defaults;
	j->ps = ps;
	j->err = err;
	strbuf_init(&j->sb, 0);
	builder_init(&j->b, ps);
	j->b.max_samples = j->opts->max_samples;
	ps->format = JFR_FORMAT;
	return j;
}

/* Say what was skipped or cut, and free j. */
static void
jfr_finish(struct jfr *j, bool ok)
{
	struct profile_set *ps = j->ps;

	if (ok && j->nr_truncated)
		profile_set_warn(ps, 0, "%" PRIu64 " stack traces were cut short by the JVM "
				 "(-XX:FlightRecorderOptions:stackdepth=N records deeper ones)",
				 j->nr_truncated);
	if (ok && j->nr_missing_stacks)
		profile_set_warn(ps, 0, "%" PRIu64 " events name stack traces that are in no "
				 "constant pool", j->nr_missing_stacks);
	if (ok && j->nr_missing_methods)
		profile_set_warn(ps, 0, "%" PRIu64 " stack frames name methods that are in no "
				 "constant pool", j->nr_missing_methods);
	chunk_release(j);
	free(j->types);
	free(j->fields);
	free(j->by_id);
	free(j->trace_frames);
	strbuf_release(&j->sb);
	builder_release(&j->b);
	free(j);
}

int
jfr_parse_buffer(const void *data, size_t len, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err)
{
	struct jfr *j = jfr_new(opts, ps, err);
	size_t at = 0;

	j->buf = data;
	j->len = len;
	if (!len) {
		jfr_finish(j, false);
		return tf_error_set_at(err, NULL, 0, "empty JFR recording");
	}
	while (at < len && !builder_stopped(&j->b) && !j->stop) {
		size_t next = len;

		chunk_release(j);
		if (read_chunk(j, at, &next)) {
			jfr_finish(j, false);
			return -1;
		}
		at = next;
	}
	jfr_finish(j, true);
	return 0;
}

/* Read up to n bytes; fewer only at the end of the input. */
static ssize_t
read_full(struct input *in, uint8_t *buf, size_t n, struct tf_error *err)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = input_read(in, buf + got, n - got, err);

		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/*
 * One chunk at a time: a chunk is all a parse needs (its own metadata and
 * pools), so a long recording costs the memory of its largest chunk, not
 * of the file. The buffer grows with what is read, never with what a
 * header claims.
 */
static int
jfr_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	 struct tf_error *err)
{
	struct jfr *j = jfr_new(opts, ps, err);
	uint8_t *buf = NULL;
	size_t alloc = 0;
	uint64_t base = 0;
	int ret = -1;

	while (!builder_stopped(&j->b) && !j->stop) {
		size_t len, next;
		uint64_t size;
		ssize_t r;

		ALLOC_GROW_BY(buf, 0, CHUNK_HEADER_SIZE, alloc);
		r = read_full(in, buf, CHUNK_HEADER_SIZE, err);
		if (r < 0)
			goto out;
		if (r == 0 && base)
			break;
		len = (size_t)r;
		size = len == CHUNK_HEADER_SIZE ? be64(buf + 8) : 0;
		/* Read what the header says is the chunk, as far as there is one. */
		while (len < size) {
			size_t want = size - len < READ_STEP ? (size_t)(size - len) : READ_STEP;

			ALLOC_GROW_BY(buf, len, want, alloc);
			r = read_full(in, buf + len, want, err);
			if (r < 0)
				goto out;
			len += (size_t)r;
			if ((size_t)r < want)
				break;
		}
		j->buf = buf;
		j->len = len;
		j->base = base;
		chunk_release(j);
		if (read_chunk(j, 0, &next))
			goto out;
		base += len;
	}
	if (j->opts->progress)
		atomic_fetch_add(&j->opts->progress->bytes_done, base - j->reported);
	ret = 0;
out:
	jfr_finish(j, ret == 0);
	free(buf);
	return ret;
}

/* The chunk magic and a version the JDK writes. */
static int
jfr_probe(const char *data, size_t len)
{
	if (len < 8 || memcmp(data, "FLR", 4))
		return 0;
	if (data[4] != 0 || (data[5] != 1 && data[5] != 2))
		return 0;
	return 100;
}

static const char *const jfr_names[] = { ".jfr", NULL };

const struct importer importer_jfr = {
	.name = "jfr",
	.description = "Java Flight Recorder",
	.probe = jfr_probe,
	.load = jfr_load,
	.names = jfr_names,
};

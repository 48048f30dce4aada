#include "config.h"

#include "tflame/import.h"

#include <stdlib.h>

#include "test_util.h"
#include "tflame/strbuf.h"

/*
 * The JFR importer on recordings written here byte by byte: a chunk
 * header, a metadata event declaring a small set of types the way the
 * JDK declares them, a checkpoint with the constant pools, and events.
 * Each case changes one piece, so it shows the bytes it is about.
 */

static const struct import_options default_opts;

/* Type ids, as a JVM numbers them (any numbers do). */
enum {
	T_LONG = 1,
	T_INT = 2,
	T_BOOLEAN = 3,
	T_STRING = 4,
	T_THREAD = 20,
	T_TRACE = 21,
	T_METHOD = 22,
	T_CLASS = 23,
	T_SYMBOL = 24,
	T_FRAME = 30,
	T_LOOP = 40,    /* an inline struct holding itself: no real JDK type */
	T_EXEC = 101,
	T_ALLOC = 102,
};

struct tfield {
	const char *name;
	unsigned type;
	bool array, pool;
};

struct ttype {
	unsigned id;
	const char *name, *super;
	struct tfield f[6];
};

/* A field: plain, an array, or a reference into a constant pool. */
#define F(n, t) { n, t, false, false }
#define A(n, t) { n, t, true, false }
#define P(n, t) { n, t, false, true }
#define END { NULL, 0, false, false }

static const struct ttype std_types[] = {
	{ T_LONG, "long", NULL, { END } },
	{ T_INT, "int", NULL, { END } },
	{ T_BOOLEAN, "boolean", NULL, { END } },
	{ T_STRING, "java.lang.String", NULL, { END } },
	{ T_THREAD, "java.lang.Thread", NULL,
	  { F("osName", T_STRING), F("osThreadId", T_LONG), F("javaName", T_STRING),
	    F("javaThreadId", T_LONG), END } },
	{ T_TRACE, "jdk.types.StackTrace", NULL,
	  { F("truncated", T_BOOLEAN), A("frames", T_FRAME), END } },
	{ T_FRAME, "jdk.types.StackFrame", NULL,
	  { P("method", T_METHOD), F("lineNumber", T_INT), F("bytecodeIndex", T_INT), END } },
	{ T_METHOD, "jdk.types.Method", NULL,
	  { P("type", T_CLASS), P("name", T_SYMBOL), END } },
	{ T_CLASS, "java.lang.Class", NULL, { P("name", T_SYMBOL), END } },
	{ T_SYMBOL, "jdk.types.Symbol", NULL, { F("string", T_STRING), END } },
	{ T_LOOP, "Loop", NULL, { F("next", T_LOOP), END } },
	{ T_EXEC, "jdk.ExecutionSample", "jdk.jfr.Event",
	  { F("startTime", T_LONG), P("sampledThread", T_THREAD), P("stackTrace", T_TRACE),
	    END } },
	{ T_ALLOC, "jdk.ObjectAllocationSample", "jdk.jfr.Event",
	  { F("startTime", T_LONG), P("eventThread", T_THREAD), P("stackTrace", T_TRACE),
	    P("objectClass", T_CLASS), F("weight", T_LONG), END } },
};

static void
put_varint(struct strbuf *sb, uint64_t v)
{
	do {
		unsigned char b = v & 0x7f;

		v >>= 7;
		strbuf_addch(sb, v ? b | 0x80 : b);
	} while (v);
}

static void
put_be(struct strbuf *sb, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		strbuf_addch(sb, (int)(v >> (8 * i) & 0xff));
}

/* A UTF-8 string (encoding 3); NULL is the null string (encoding 0). */
static void
put_string(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_addch(sb, 0);
		return;
	}
	strbuf_addch(sb, 3);
	put_varint(sb, strlen(s));
	strbuf_addstr(sb, s);
}

/* An event: its size as the JVM writes it, padded to four bytes, then body. */
static void
put_event(struct strbuf *out, const struct strbuf *body)
{
	uint64_t size = body->len + 4;

	strbuf_addch(out, (int)(0x80 | (size & 0x7f)));
	strbuf_addch(out, (int)(0x80 | (size >> 7 & 0x7f)));
	strbuf_addch(out, (int)(0x80 | (size >> 14 & 0x7f)));
	strbuf_addch(out, (int)(size >> 21 & 0x7f));
	strbuf_add(out, body->buf, body->len);
}

/* The metadata's string table, as it is being built. */
struct meta {
	const char *s[256];
	size_t n;
};

static uint64_t
meta_str(struct meta *m, const char *s)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->s[i], s))
			return i;
	assert_true(m->n < 256);
	m->s[m->n] = s;
	return m->n++;
}

/* An element: name, attributes (key, value pairs), then its child count. */
static void
put_element(struct strbuf *sb, struct meta *m, const char *name, size_t nkids,
	    const char *const *attrs, size_t nattrs)
{
	put_varint(sb, meta_str(m, name));
	put_varint(sb, nattrs);
	for (size_t i = 0; i < nattrs; i++) {
		put_varint(sb, meta_str(m, attrs[2 * i]));
		put_varint(sb, meta_str(m, attrs[2 * i + 1]));
	}
	put_varint(sb, nkids);
}

/* The metadata event declaring types. */
static void
put_metadata(struct strbuf *out, const struct ttype *types, size_t nr)
{
	struct strbuf tree = STRBUF_INIT, body = STRBUF_INIT;
	struct meta m = { { NULL }, 0 };
	char ids[64][24], fids[64][8][24];

	assert_true(nr <= 64);
	put_element(&tree, &m, "root", 2, NULL, 0);
	put_element(&tree, &m, "metadata", nr, NULL, 0);
	for (size_t i = 0; i < nr; i++) {
		const struct ttype *t = &types[i];
		const char *attrs[6];
		size_t na = 0, nf = 0;

		while (t->f[nf].name)
			nf++;
		snprintf(ids[i], sizeof(ids[i]), "%u", t->id);
		attrs[na++] = "name";
		attrs[na++] = t->name;
		attrs[na++] = "id";
		attrs[na++] = ids[i];
		if (t->super) {
			attrs[na++] = "superType";
			attrs[na++] = t->super;
		}
		put_element(&tree, &m, "class", nf, attrs, na / 2);
		for (size_t k = 0; k < nf; k++) {
			const char *fa[8];
			size_t fn = 0;

			snprintf(fids[i][k], sizeof(fids[i][k]), "%u", t->f[k].type);
			fa[fn++] = "name";
			fa[fn++] = t->f[k].name;
			fa[fn++] = "class";
			fa[fn++] = fids[i][k];
			if (t->f[k].array) {
				fa[fn++] = "dimension";
				fa[fn++] = "1";
			}
			if (t->f[k].pool) {
				fa[fn++] = "constantPool";
				fa[fn++] = "true";
			}
			put_element(&tree, &m, "field", 0, fa, fn / 2);
		}
	}
	put_element(&tree, &m, "region", 0, NULL, 0);

	put_varint(&body, 0);  /* type: metadata */
	put_varint(&body, 0);  /* start */
	put_varint(&body, 0);  /* duration */
	put_varint(&body, 1);  /* metadata id */
	put_varint(&body, m.n);
	for (size_t i = 0; i < m.n; i++)
		put_string(&body, m.s[i]);
	strbuf_add(&body, tree.buf, tree.len);
	put_event(out, &body);
	strbuf_release(&tree);
	strbuf_release(&body);
}

/* A chunk being written: where it starts, and where its metadata is. */
struct chunk {
	size_t start, meta;
};

#define START_NANOS 1700000000000000000ULL
#define START_TICKS 1000

static void
begin_chunk(struct strbuf *out, struct chunk *c)
{
	c->start = out->len;
	c->meta = 0;
	strbuf_add(out, "FLR\0", 4);
	put_be(out, 2, 2);
	put_be(out, 1, 2);
	put_be(out, 0, 8);             /* size: end_chunk() */
	put_be(out, 0, 8);             /* constant pool offset: not read */
	put_be(out, 0, 8);             /* metadata offset: end_chunk() */
	put_be(out, START_NANOS, 8);
	put_be(out, 0, 8);             /* duration */
	put_be(out, START_TICKS, 8);
	put_be(out, 1000000000, 8);    /* ticks per second: ticks are ns */
	put_be(out, 0, 4);
}

static void
end_chunk(struct strbuf *out, struct chunk *c)
{
	struct strbuf h = STRBUF_INIT;

	put_be(&h, out->len - c->start, 8);
	put_be(&h, c->meta, 8);
	memcpy(out->buf + c->start + 8, h.buf, 8);
	memcpy(out->buf + c->start + 24, h.buf + 8, 8);
	strbuf_release(&h);
}

static void
chunk_metadata(struct strbuf *out, struct chunk *c, const struct ttype *types, size_t nr)
{
	c->meta = out->len - c->start;
	put_metadata(out, types, nr);
}

/* A checkpoint holding the pools already written into pools (count first). */
static void
put_checkpoint(struct strbuf *out, const struct strbuf *pools, size_t nr_pools)
{
	struct strbuf body = STRBUF_INIT;

	put_varint(&body, 1);  /* type: checkpoint */
	put_varint(&body, 0);  /* start */
	put_varint(&body, 0);  /* duration */
	put_varint(&body, 0);  /* delta to the previous one */
	strbuf_addch(&body, 0);
	put_varint(&body, nr_pools);
	strbuf_add(&body, pools->buf, pools->len);
	put_event(out, &body);
	strbuf_release(&body);
}

/*
 * The usual pools: threads 1 "main" (Java thread 1) and 2 (a JVM thread
 * with only an OS name); symbols; classes 1 com/example/App and 2 [I;
 * methods 1 main, 2 work, 3 leaf; stack traces 1 main > work and
 * 2 main > work > leaf (truncated).
 */
static size_t
put_std_pools(struct strbuf *p)
{
	static const char *const sym[] = { NULL, "com/example/App", "main", "work", "[I", "leaf" };

	put_varint(p, T_THREAD);
	put_varint(p, 2);
	put_varint(p, 1);
	put_string(p, "main-os");
	put_varint(p, 100);
	put_string(p, "main");
	put_varint(p, 1);
	put_varint(p, 2);
	put_string(p, "GC Thread#0");
	put_varint(p, 101);
	put_string(p, NULL);
	put_varint(p, 0);

	put_varint(p, T_SYMBOL);
	put_varint(p, 5);
	for (unsigned i = 1; i <= 5; i++) {
		put_varint(p, i);
		put_string(p, sym[i]);
	}

	put_varint(p, T_CLASS);
	put_varint(p, 2);
	put_varint(p, 1);
	put_varint(p, 1);
	put_varint(p, 2);
	put_varint(p, 4);

	put_varint(p, T_METHOD);
	put_varint(p, 3);
	put_varint(p, 1);  /* main */
	put_varint(p, 1);
	put_varint(p, 2);
	put_varint(p, 2);  /* work */
	put_varint(p, 1);
	put_varint(p, 3);
	put_varint(p, 3);  /* leaf */
	put_varint(p, 1);
	put_varint(p, 5);

	put_varint(p, T_TRACE);
	put_varint(p, 2);
	put_varint(p, 1);
	strbuf_addch(p, 0);  /* not truncated */
	put_varint(p, 2);    /* frames, leaf first */
	put_varint(p, 2);
	put_varint(p, 10);
	put_varint(p, 3);
	put_varint(p, 1);
	put_varint(p, 5);
	put_varint(p, 0);
	put_varint(p, 2);
	strbuf_addch(p, 1);  /* truncated */
	put_varint(p, 3);
	put_varint(p, 3);
	put_varint(p, 1);
	put_varint(p, 0);
	put_varint(p, 2);
	put_varint(p, 10);
	put_varint(p, 3);
	put_varint(p, 1);
	put_varint(p, 5);
	put_varint(p, 0);
	return 5;
}

#define NR_STD (sizeof(std_types) / sizeof(std_types[0]))

/* sb becomes one chunk of the usual types and the nr pools in pools. */
static void
pools_chunk(struct strbuf *sb, const struct strbuf *pools, size_t nr)
{
	struct chunk c;

	strbuf_reset(sb);
	begin_chunk(sb, &c);
	put_checkpoint(sb, pools, nr);
	chunk_metadata(sb, &c, std_types, NR_STD);
	end_chunk(sb, &c);
}

static void
put_exec(struct strbuf *out, uint64_t ticks, uint64_t thread, uint64_t trace)
{
	struct strbuf b = STRBUF_INIT;

	put_varint(&b, T_EXEC);
	put_varint(&b, ticks);
	put_varint(&b, thread);
	put_varint(&b, trace);
	put_event(out, &b);
	strbuf_release(&b);
}

static void
put_alloc(struct strbuf *out, uint64_t ticks, uint64_t thread, uint64_t trace, uint64_t cls,
	  uint64_t weight)
{
	struct strbuf b = STRBUF_INIT;

	put_varint(&b, T_ALLOC);
	put_varint(&b, ticks);
	put_varint(&b, thread);
	put_varint(&b, trace);
	put_varint(&b, cls);
	put_varint(&b, weight);
	put_event(out, &b);
	strbuf_release(&b);
}

/* A chunk of the usual types and pools, then events (written by fn). */
static void
make_chunk(struct strbuf *out, void (*events)(struct strbuf *))
{
	struct strbuf pools = STRBUF_INIT;
	struct chunk c;
	size_t n;

	begin_chunk(out, &c);
	events(out);
	n = put_std_pools(&pools);
	put_checkpoint(out, &pools, n);
	chunk_metadata(out, &c, std_types, NR_STD);
	end_chunk(out, &c);
	strbuf_release(&pools);
}

static int
parse(const struct strbuf *sb, const struct import_options *opts, struct profile_set **out,
      struct tf_error *err)
{
	*out = profile_set_new();
	return jfr_parse_buffer(sb->buf, sb->len, opts ? opts : &default_opts, *out, err);
}

static struct profile_set *
parse_ok(const struct strbuf *sb, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps;

	if (parse(sb, opts, &ps, &err))
		fail_msg("jfr_parse_buffer: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(ps);
	return ps;
}

/* The parse fails with a message that contains want. */
static void
parse_fails(const struct strbuf *sb, const char *want)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps;

	assert_int_equal(parse(sb, NULL, &ps, &err), -1);
	if (!strstr(tf_error_text(&err), want))
		fail_msg("error '%s' does not contain '%s'", tf_error_text(&err), want);
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
}

static void
events_basic(struct strbuf *out)
{
	put_exec(out, START_TICKS + 500, 1, 1);
	put_exec(out, START_TICKS + 1500, 2, 2);
	put_alloc(out, START_TICKS + 2000, 1, 1, 2, 4096);
	put_alloc(out, START_TICKS + 2500, 1, 1, 1, 0); /* weightless: dropped */
}

static void
test_basic(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p, *a;
	const struct thread *t;
	char buf[256];

	(void)state;
	make_chunk(&sb, events_basic);
	ps = parse_ok(&sb, NULL);
	assert_string_equal(ps->format, "jfr");
	assert_int_equal(ps->nr_profiles, 2);
	p = ps->profiles[0];
	a = ps->profiles[1];
	assert_string_equal(ps_get(ps, p->name), "jdk.ExecutionSample");
	assert_int_equal(p->unit, UNIT_SAMPLES);
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(p->total_weight, 2);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)),
			    "com.example.App.main;com.example.App.work");
	assert_string_equal(stack_text(ps, p->stack[1], buf, sizeof(buf)),
			    "com.example.App.main;com.example.App.work;com.example.App.leaf");
	assert_true(p->has_time);
	assert_int_equal(p->time[0], (int64_t)START_NANOS + 500);
	assert_int_equal(p->time[1], (int64_t)START_NANOS + 1500);
	/* Threads: the Java one by name and id, the JVM's by its OS name and id. */
	t = &ps->threads[p->thread[0]];
	assert_string_equal(ps_get(ps, t->comm), "main");
	assert_int_equal(t->tid, 1);
	t = &ps->threads[p->thread[1]];
	assert_string_equal(ps_get(ps, t->comm), "GC Thread#0");
	assert_int_equal(t->tid, 101);
	/* Allocations: bytes, the class allocated as the leaf. */
	assert_string_equal(ps_get(ps, a->name), "jdk.ObjectAllocationSample");
	assert_int_equal(a->unit, UNIT_BYTES);
	assert_int_equal(a->nr_samples, 1);
	assert_int_equal(a->total_weight, 4096);
	assert_string_equal(stack_text(ps, a->stack[0], buf, sizeof(buf)),
			    "com.example.App.main;com.example.App.work;int[]");
	/* One truncated trace, said once. */
	assert_int_equal(ps->nr_diags, 1);
	assert_non_null(strstr(ps->diags[0].msg, "1 stack traces were cut short"));
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_weight_samples(void **state)
{
	struct import_options opts = { .weight = WEIGHT_SAMPLES };
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	make_chunk(&sb, events_basic);
	ps = parse_ok(&sb, &opts);
	assert_int_equal(ps->profiles[1]->unit, UNIT_SAMPLES);
	/* Both allocations count now, the weightless one too. */
	assert_int_equal(ps->profiles[1]->total_weight, 2);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
events_none(struct strbuf *out)
{
	(void)out;
}

static void
test_empty(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	parse_fails(&sb, "empty JFR recording");
	/* A chunk with no events: no profile, and no error here. */
	make_chunk(&sb, events_none);
	ps = parse_ok(&sb, NULL);
	assert_int_equal(ps->nr_profiles, 0);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
events_missing(struct strbuf *out)
{
	put_exec(out, START_TICKS, 7, 99);  /* no such thread, no such trace */
	put_exec(out, START_TICKS, 1, 0);   /* no stack at all */
	put_alloc(out, START_TICKS, 1, 0, 9, 8); /* no such class */
}

static void
test_missing_names(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	char buf[256];

	(void)state;
	make_chunk(&sb, events_missing);
	ps = parse_ok(&sb, NULL);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 2);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)),
			    "[missing stack trace]");
	assert_int_equal(ps->threads[p->thread[0]].tid, -1);
	assert_int_equal(p->stack[1], STACK_ROOT);
	assert_string_equal(stack_text(ps, ps->profiles[1]->stack[0], buf, sizeof(buf)),
			    "[unknown class]");
	assert_int_equal(ps->nr_diags, 1);
	assert_non_null(strstr(ps->diags[0].msg, "1 events name stack traces that are in no"));
	profile_set_free(ps);
	strbuf_release(&sb);
}

/* A stack of 20,000 frames: method 2 over and over, and method 1 at the root. */
static void
test_deep_stack(void **state)
{
	struct strbuf sb = STRBUF_INIT, pools = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	struct chunk c;
	const uint32_t depth = 20000;
	size_t n;

	(void)state;
	begin_chunk(&sb, &c);
	put_exec(&sb, START_TICKS, 1, 7);
	n = put_std_pools(&pools);
	put_varint(&pools, T_TRACE);
	put_varint(&pools, 1);
	put_varint(&pools, 7);
	strbuf_addch(&pools, 0);
	put_varint(&pools, depth);
	for (uint32_t i = 0; i < depth; i++) {
		put_varint(&pools, i + 1 < depth ? 2 : 1);
		put_varint(&pools, i);
		put_varint(&pools, 0);
	}
	put_checkpoint(&sb, &pools, n + 1);
	chunk_metadata(&sb, &c, std_types, NR_STD);
	end_chunk(&sb, &c);
	ps = parse_ok(&sb, NULL);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(ps->stacks[p->stack[0]].depth, depth);
	assert_string_equal(frame_name(ps, ps->stacks[p->stack[0]].frame), "com.example.App.work");
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&pools);
}

/* Strings as char arrays (UTF-16, a surrogate pair) and Latin-1. */
static void
test_string_encodings(void **state)
{
	struct strbuf sb = STRBUF_INIT, pools = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	const char *name;
	struct chunk c;

	(void)state;
	begin_chunk(&sb, &c);
	put_exec(&sb, START_TICKS, 3, 0);
	put_varint(&pools, T_THREAD);
	put_varint(&pools, 1);
	put_varint(&pools, 3);
	strbuf_addch(&pools, 5);        /* Latin-1 "caf\xe9" */
	put_varint(&pools, 4);
	strbuf_add(&pools, "caf\xe9", 4);
	put_varint(&pools, 9);
	strbuf_addch(&pools, 4);        /* chars "é𝄞" */
	put_varint(&pools, 3);
	put_varint(&pools, 0xe9);
	put_varint(&pools, 0xd834);
	put_varint(&pools, 0xdd1e);
	put_varint(&pools, 3);
	put_checkpoint(&sb, &pools, 1);
	chunk_metadata(&sb, &c, std_types, NR_STD);
	end_chunk(&sb, &c);
	ps = parse_ok(&sb, NULL);
	p = ps->profiles[0];
	name = ps_get(ps, ps->threads[p->thread[0]].comm);
	assert_string_equal(name, "\xc3\xa9\xf0\x9d\x84\x9e");
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&pools);
}

static void
events_one(struct strbuf *out)
{
	put_exec(out, START_TICKS, 1, 1);
}

/*
 * Two chunks whose pools give the same keys other meanings: each chunk is
 * read with its own pools.
 */
static void
test_two_chunks(void **state)
{
	struct strbuf sb = STRBUF_INIT, pools = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	struct chunk c;
	char buf[256];

	(void)state;
	make_chunk(&sb, events_one);
	begin_chunk(&sb, &c);
	put_exec(&sb, START_TICKS + 10, 1, 1);
	put_varint(&pools, T_SYMBOL);
	put_varint(&pools, 2);
	put_varint(&pools, 1);
	put_string(&pools, "Other");
	put_varint(&pools, 2);
	put_string(&pools, "run");
	put_varint(&pools, T_CLASS);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	put_varint(&pools, T_METHOD);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	put_varint(&pools, 2);
	put_varint(&pools, T_TRACE);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	strbuf_addch(&pools, 0);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	put_varint(&pools, 0);
	put_varint(&pools, 0);
	put_checkpoint(&sb, &pools, 4);
	chunk_metadata(&sb, &c, std_types, NR_STD);
	end_chunk(&sb, &c);
	ps = parse_ok(&sb, NULL);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 2);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)),
			    "com.example.App.main;com.example.App.work");
	assert_string_equal(stack_text(ps, p->stack[1], buf, sizeof(buf)), "Other.run");
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&pools);
}

/* Overwrite 8 bytes big-endian at off. */
static void
poke_be64(struct strbuf *sb, size_t off, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		sb->buf[off + i] = (char)(v >> (8 * (7 - i)));
}

static void
test_bad_header(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_chunk(&sb, events_one);
	poke_be64(&sb, 8, sb.len + 1);
	parse_fails(&sb, "byte 0: chunk size");
	poke_be64(&sb, 8, sb.len);
	poke_be64(&sb, 24, sb.len + 5);
	parse_fails(&sb, "byte 0: metadata offset");
	poke_be64(&sb, 24, 68);  /* the first event, not the metadata */
	parse_fails(&sb, "byte 68: metadata offset points at an event of type 101");
	strbuf_reset(&sb);
	make_chunk(&sb, events_one);
	sb.buf[5] = 9;
	parse_fails(&sb, "byte 0: JFR version 9.1");
	strbuf_reset(&sb);
	strbuf_add(&sb, "FLR\0\0\2\0\1\0\0", 10);
	parse_fails(&sb, "byte 0: chunk header cut short (10 of 68 bytes)");
	strbuf_release(&sb);
}

/*
 * A recording whose last chunk is cut (a JVM that died): the chunks
 * before it are kept, with a warning naming the byte.
 */
static void
test_cut_last_chunk(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	size_t first;
	char want[128];

	(void)state;
	make_chunk(&sb, events_one);
	first = sb.len;
	strbuf_add(&sb, "FLR\0\0\2\0\1\0\0", 10);
	ps = parse_ok(&sb, NULL);
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	snprintf(want, sizeof(want), "byte %zu: the last chunk's header is cut short (10 of 68 "
		 "bytes); kept the 1 chunks before it", first);
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, want);
	profile_set_free(ps);

	/* The whole second chunk but its last byte. */
	strbuf_setlen(&sb, first);
	make_chunk(&sb, events_one);
	strbuf_setlen(&sb, sb.len - 1);
	ps = parse_ok(&sb, NULL);
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	snprintf(want, sizeof(want), "byte %zu: the last chunk is cut short; kept the 1 chunks "
		 "before it", first);
	assert_string_equal(ps->diags[0].msg, want);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_bad_event(void **state)
{
	struct strbuf sb = STRBUF_INIT, body = STRBUF_INIT, pools = STRBUF_INIT;
	struct chunk c;
	char want[64];
	size_t at;

	(void)state;
	/* An event whose size runs past the chunk. */
	begin_chunk(&sb, &c);
	at = sb.len;
	put_varint(&sb, 100000);
	put_varint(&sb, T_EXEC);
	chunk_metadata(&sb, &c, std_types, NR_STD);
	end_chunk(&sb, &c);
	snprintf(want, sizeof(want), "byte %zu: event size 100000 does not fit", at);
	parse_fails(&sb, want);

	/* A pool of a type the metadata does not declare. */
	put_varint(&pools, 77);
	put_varint(&pools, 1);
	pools_chunk(&sb, &pools, 1);
	parse_fails(&sb, "constant pool of type 77, which the metadata does not declare");

	/* An array length far past the event's end. */
	strbuf_reset(&pools);
	put_varint(&pools, T_TRACE);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	strbuf_addch(&pools, 0);
	put_varint(&pools, 1u << 30);
	pools_chunk(&sb, &pools, 1);
	parse_fails(&sb, "array element count 1073741824 is more than the");

	/* A value of a type that holds itself inline: refused, no loop. */
	strbuf_reset(&pools);
	put_varint(&pools, T_LOOP);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	pools_chunk(&sb, &pools, 1);
	parse_fails(&sb, "field Loop is of type Loop, which holds no data");

	/* A string of an unknown encoding. */
	strbuf_reset(&pools);
	put_varint(&pools, T_SYMBOL);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	strbuf_addch(&pools, 9);
	pools_chunk(&sb, &pools, 1);
	parse_fails(&sb, "unknown string encoding 9");

	/* A truncated integer at the end of an event. */
	strbuf_reset(&sb);
	begin_chunk(&sb, &c);
	strbuf_reset(&body);
	put_varint(&body, T_EXEC);
	strbuf_addch(&body, 0x80);
	put_event(&sb, &body);
	chunk_metadata(&sb, &c, std_types, NR_STD);
	end_chunk(&sb, &c);
	parse_fails(&sb, "integer runs past the end of its event");
	strbuf_release(&sb);
	strbuf_release(&body);
	strbuf_release(&pools);
}

/* Metadata naming a type that is not declared, or strings that are not there. */
static void
test_bad_metadata(void **state)
{
	static const struct ttype bad[] = {
		{ T_EXEC, "jdk.ExecutionSample", "jdk.jfr.Event",
		  { F("startTime", 555), END } },
	};
	struct strbuf sb = STRBUF_INIT, body = STRBUF_INIT;
	struct chunk c;

	(void)state;
	begin_chunk(&sb, &c);
	chunk_metadata(&sb, &c, bad, 1);
	end_chunk(&sb, &c);
	parse_fails(&sb, "field startTime is of type 555, which is not declared");

	strbuf_reset(&sb);
	begin_chunk(&sb, &c);
	c.meta = sb.len - c.start;
	put_varint(&body, 0);
	put_varint(&body, 0);
	put_varint(&body, 0);
	put_varint(&body, 1);
	put_varint(&body, 1);   /* one string */
	put_string(&body, "root");
	put_varint(&body, 3);   /* the root is string 3 */
	put_event(&sb, &body);
	end_chunk(&sb, &c);
	parse_fails(&sb, "metadata names string 3 of 1");
	strbuf_release(&sb);
	strbuf_release(&body);
}

/*
 * Many stack traces with dense keys (looked up in an array by key): the
 * usual 1 and 2, then 3 to 102 but 50, trace k one frame, method 1 or 2
 * by parity. A key in the gap and keys past the range have no trace.
 */
static void
test_dense_keys(void **state)
{
	static const uint64_t keys[] = { 3, 102, 4, 50, 103, 200 };
	struct strbuf sb = STRBUF_INIT, pools = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	struct chunk c;
	char buf[256];
	size_t n;

	(void)state;
	begin_chunk(&sb, &c);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		put_exec(&sb, START_TICKS + i, 1, keys[i]);
	n = put_std_pools(&pools);
	put_varint(&pools, T_TRACE);
	put_varint(&pools, 99);
	for (uint64_t k = 3; k <= 102; k++) {
		if (k == 50)
			continue;
		put_varint(&pools, k);
		strbuf_addch(&pools, 0);
		put_varint(&pools, 1);
		put_varint(&pools, k % 2 ? 2 : 1);
		put_varint(&pools, 0);
		put_varint(&pools, 0);
	}
	put_checkpoint(&sb, &pools, n + 1);
	chunk_metadata(&sb, &c, std_types, NR_STD);
	end_chunk(&sb, &c);
	ps = parse_ok(&sb, NULL);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 6);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "com.example.App.work");
	assert_string_equal(stack_text(ps, p->stack[1], buf, sizeof(buf)), "com.example.App.main");
	assert_string_equal(stack_text(ps, p->stack[2], buf, sizeof(buf)), "com.example.App.main");
	for (int i = 3; i < 6; i++)
		assert_string_equal(stack_text(ps, p->stack[i], buf, sizeof(buf)),
				    "[missing stack trace]");
	assert_non_null(strstr(ps->diags[0].msg, "3 events name stack traces that are in no"));
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&pools);
}

/*
 * Inline structs 40 deep (each a number and the next one): refused past
 * the nesting limit, with no recursion to get there.
 */
static void
test_deep_nesting(void **state)
{
	struct ttype types[NR_STD + 40];
	char names[40][16];
	struct strbuf sb = STRBUF_INIT, pools = STRBUF_INIT;
	struct chunk c;

	(void)state;
	memcpy(types, std_types, sizeof(std_types));
	for (unsigned i = 0; i < 40; i++) {
		struct ttype *t = &types[NR_STD + i];

		memset(t, 0, sizeof(*t));
		snprintf(names[i], sizeof(names[i]), "Nest%u", i);
		t->id = 200 + i;
		t->name = names[i];
		t->f[0] = (struct tfield)F("x", T_INT);
		if (i < 39)
			t->f[1] = (struct tfield)F("next", 201 + i);
	}
	put_varint(&pools, 200);
	put_varint(&pools, 1);
	put_varint(&pools, 1);
	for (unsigned i = 0; i < 40; i++)
		put_varint(&pools, i);
	begin_chunk(&sb, &c);
	put_checkpoint(&sb, &pools, 1);
	chunk_metadata(&sb, &c, types, NR_STD + 40);
	end_chunk(&sb, &c);
	parse_fails(&sb, "values nest more than 32 deep");
	strbuf_release(&sb);
	strbuf_release(&pools);
}

static void
test_max_samples(void **state)
{
	struct import_options opts = { .max_samples = 1 };
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	make_chunk(&sb, events_basic);
	ps = parse_ok(&sb, &opts);
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_probe(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_chunk(&sb, events_one);
	assert_int_equal(importer_jfr.probe(sb.buf, sb.len), 100);
	assert_int_equal(importer_jfr.probe("FLR\0\0\2", 6), 0);
	assert_int_equal(importer_jfr.probe("FLR\0\0\7\0\0", 8), 0);
	assert_int_equal(importer_jfr.probe("FLRX\0\2\0\0", 8), 0);
	assert_int_equal(importer_jfr.probe("a;b 1\n", 6), 0);
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_weight_samples),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_missing_names),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_string_encodings),
		cmocka_unit_test(test_two_chunks),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_cut_last_chunk),
		cmocka_unit_test(test_bad_event),
		cmocka_unit_test(test_bad_metadata),
		cmocka_unit_test(test_dense_keys),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_max_samples),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

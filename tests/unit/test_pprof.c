#include "config.h"

#include "tflame/import.h"

#include <stdlib.h>

#include "test_util.h"
#include "tflame/strbuf.h"

/*
 * The pprof importer on protobuf written here byte by byte, so each case
 * shows the wire form it tests: packed or not, fields out of order,
 * inlined lines, lengths that run past the end.
 */

static const struct import_options default_opts;

static void
put_varint(struct strbuf *sb, uint64_t v)
{
	do {
		unsigned char b = v & 0x7f;

		v >>= 7;
		strbuf_addch(sb, v ? b | 0x80 : b);
	} while (v);
}

/* A varint field. */
static void
put_int(struct strbuf *sb, unsigned num, uint64_t v)
{
	put_varint(sb, (uint64_t)num << 3);
	put_varint(sb, v);
}

/* A length-delimited field holding the bytes of body. */
static void
put_len(struct strbuf *sb, unsigned num, const struct strbuf *body)
{
	put_varint(sb, (uint64_t)num << 3 | 2);
	put_varint(sb, body->len);
	strbuf_add(sb, body->buf, body->len);
}

static void
put_str(struct strbuf *sb, const char *s)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_addstr(&b, s);
	put_len(sb, 6, &b);
	strbuf_release(&b);
}

/* ValueType{type, unit} as field num. */
static void
put_value_type(struct strbuf *sb, unsigned num, uint64_t type, uint64_t unit)
{
	struct strbuf b = STRBUF_INIT;

	put_int(&b, 1, type);
	put_int(&b, 2, unit);
	put_len(sb, num, &b);
	strbuf_release(&b);
}

/* Function{id, name, system_name, filename, start_line}. */
static void
put_function(struct strbuf *sb, uint64_t id, uint64_t name, uint64_t file, uint64_t line)
{
	struct strbuf b = STRBUF_INIT;

	put_int(&b, 1, id);
	put_int(&b, 2, name);
	put_int(&b, 3, name);
	put_int(&b, 4, file);
	put_int(&b, 5, line);
	put_len(sb, 5, &b);
	strbuf_release(&b);
}

/* Location{id, mapping_id, address, line[function_id...]}: innermost first. */
static void
put_location(struct strbuf *sb, uint64_t id, uint64_t mapping, const uint64_t *funcs,
	     size_t nr_funcs)
{
	struct strbuf b = STRBUF_INIT, l = STRBUF_INIT;

	put_int(&b, 1, id);
	if (mapping)
		put_int(&b, 2, mapping);
	put_int(&b, 3, 0x1000 + id);
	for (size_t i = 0; i < nr_funcs; i++) {
		strbuf_reset(&l);
		put_int(&l, 1, funcs[i]);
		put_int(&l, 2, 10 + i);
		put_len(&b, 4, &l);
	}
	put_len(sb, 4, &b);
	strbuf_release(&b);
	strbuf_release(&l);
}

/* Sample{location_id..., value...}, packed or one field per number. */
static void
put_sample(struct strbuf *sb, const uint64_t *locs, size_t nr_locs, const int64_t *vals,
	   size_t nr_vals, bool packed)
{
	struct strbuf b = STRBUF_INIT, p = STRBUF_INIT, label = STRBUF_INIT;

	if (packed) {
		for (size_t i = 0; i < nr_locs; i++)
			put_varint(&p, locs[i]);
		put_len(&b, 1, &p);
		strbuf_reset(&p);
		for (size_t i = 0; i < nr_vals; i++)
			put_varint(&p, (uint64_t)vals[i]);
		put_len(&b, 2, &p);
	} else {
		/* Values before locations, and a label between: order is free. */
		for (size_t i = 0; i < nr_vals; i++)
			put_int(&b, 2, (uint64_t)vals[i]);
		put_int(&label, 1, 1);
		put_int(&label, 3, 42);
		put_len(&b, 3, &label);
		for (size_t i = 0; i < nr_locs; i++)
			put_int(&b, 1, locs[i]);
	}
	put_len(sb, 2, &b);
	strbuf_release(&b);
	strbuf_release(&p);
	strbuf_release(&label);
}

/*
 * Strings: 0 "", 1 samples, 2 count, 3 cpu, 4 nanoseconds, 5 main, 6 work,
 * 7 inner, 8 main.go, 9 /bin/app.
 */
static void
put_strings(struct strbuf *sb)
{
	static const char *const s[] = { "", "samples", "count", "cpu", "nanoseconds",
					 "main", "work", "inner", "main.go", "/bin/app" };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		put_str(sb, s[i]);
}

static void
put_tables(struct strbuf *sb)
{
	static const uint64_t l1[] = { 1 }, l2[] = { 3, 2 };
	struct strbuf m = STRBUF_INIT;

	put_int(&m, 1, 1);
	put_int(&m, 5, 9);
	put_len(sb, 3, &m);
	put_function(sb, 1, 5, 8, 3);
	put_function(sb, 2, 6, 8, 20);
	put_function(sb, 3, 7, 8, 30);
	put_location(sb, 1, 1, l1, 1);     /* main */
	put_location(sb, 2, 1, l2, 2);     /* inner inlined into work */
	put_location(sb, 3, 0, NULL, 0);   /* no symbols */
	strbuf_release(&m);
}

/*
 * A profile with two samples: main > work > inner (inner inlined), and
 * main > 0x1003.
 */
static void
make_profile(struct strbuf *sb, bool packed, bool strings_first, bool with_default)
{
	static const uint64_t s1[] = { 2, 1 }, s2[] = { 3, 1 };
	static const int64_t v1[] = { 3, 30000 }, v2[] = { 1, 10000 };

	if (strings_first) {
		put_strings(sb);
		put_tables(sb);
	}
	put_value_type(sb, 1, 1, 2);
	put_value_type(sb, 1, 3, 4);
	put_sample(sb, s1, 2, v1, 2, packed);
	put_sample(sb, s2, 2, v2, 2, packed);
	if (!strings_first) {
		put_tables(sb);
		put_strings(sb);
	}
	put_int(sb, 9, 1700000000000000000ULL);
	put_int(sb, 10, 2000000000);
	put_value_type(sb, 11, 3, 4);
	put_int(sb, 12, 10000000);
	if (with_default)
		put_int(sb, 14, 1);
}

static struct profile_set *
parse(const struct strbuf *sb, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	if (pprof_parse_buffer(sb->buf, sb->len, opts, ps, &err))
		fail_msg("pprof_parse_buffer: %s", tf_error_text(&err));
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

static void
parse_fail(const struct strbuf *sb, const char *want)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	assert_int_equal(pprof_parse_buffer(sb->buf, sb->len, &default_opts, ps, &err), -1);
	assert_string_equal(tf_error_text(&err), want);
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
}

/* The two samples of make_profile(), whatever the wire form. */
static void
check_samples(const struct profile_set *ps, const struct profile *p, uint64_t w1,
	      uint64_t w2)
{
	char buf[256];

	assert_int_equal(p->nr_samples, 2);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "main;work;inner");
	assert_string_equal(stack_text(ps, p->stack[1], buf, sizeof(buf)), "main;0x1003");
	assert_int_equal(p->weight[0], w1);
	assert_int_equal(p->weight[1], w2);
}

static void
test_basic(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;

	(void)state;
	make_profile(&sb, true, true, false);
	ps = parse(&sb, &default_opts);
	assert_string_equal(ps->format, "pprof");
	assert_int_equal(ps->nr_profiles, 2);
	/* No default_sample_type: the last one comes first. */
	p = ps->profiles[0];
	assert_string_equal(ps_get(ps, p->name), "cpu/nanoseconds");
	assert_int_equal(p->unit, UNIT_NANOSECONDS);
	check_samples(ps, p, 30000, 10000);
	p = ps->profiles[1];
	assert_string_equal(ps_get(ps, p->name), "samples/count");
	assert_int_equal(p->unit, UNIT_SAMPLES);
	check_samples(ps, p, 3, 1);
	assert_false(p->has_time);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_default_type(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	make_profile(&sb, true, true, true);
	ps = parse(&sb, &default_opts);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "samples/count");
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "cpu/nanoseconds");
	profile_set_free(ps);
	strbuf_release(&sb);
}

/* Unpacked numbers, samples before the tables they name, a label. */
static void
test_unpacked_out_of_order(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	make_profile(&sb, false, false, false);
	ps = parse(&sb, &default_opts);
	assert_int_equal(ps->nr_profiles, 2);
	check_samples(ps, ps->profiles[0], 30000, 10000);
	check_samples(ps, ps->profiles[1], 3, 1);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_frames(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	const struct stack_node *leaf, *mid, *root;
	const struct frame *f;

	(void)state;
	make_profile(&sb, true, true, false);
	ps = parse(&sb, &default_opts);
	p = ps->profiles[0];
	leaf = ps_stack(ps, p->stack[0]);
	mid = ps_stack(ps, leaf->parent);
	root = ps_stack(ps, mid->parent);

	f = ps_frame(ps, leaf->frame);
	assert_string_equal(ps_get(ps, f->name), "inner");
	assert_true(f->flags & FRAME_INLINED);
	assert_string_equal(ps_get(ps, f->file), "main.go");
	assert_int_equal(f->line, 30);
	assert_true(f->flags & FRAME_HAS_LINE);
	assert_string_equal(ps_get(ps, f->module), "/bin/app");

	f = ps_frame(ps, mid->frame);
	assert_string_equal(ps_get(ps, f->name), "work");
	assert_false(f->flags & FRAME_INLINED);
	assert_int_equal(f->line, 20);

	f = ps_frame(ps, root->frame);
	assert_string_equal(ps_get(ps, f->name), "main");
	assert_int_equal(f->line, 3);

	/* The location with no symbols and no mapping. */
	f = ps_frame(ps, ps_stack(ps, p->stack[1])->frame);
	assert_string_equal(ps_get(ps, f->name), "0x1003");
	assert_int_equal(f->module, STR_EMPTY);
	assert_false(f->flags & FRAME_HAS_LINE);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_weight_samples(void **state)
{
	static const struct import_options opts = { .weight = WEIGHT_SAMPLES };
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	make_profile(&sb, true, true, false);
	ps = parse(&sb, &opts);
	check_samples(ps, ps->profiles[0], 1, 1);
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	profile_set_free(ps);
	strbuf_release(&sb);
}

/* Unknown fields of every wire type are skipped; negative values warned about. */
static void
test_unknown_fields(void **state)
{
	static const uint64_t locs[] = { 1 };
	static const int64_t vals[] = { -5, 7 };
	struct strbuf sb = STRBUF_INIT, b = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	put_int(&sb, 100, 12345);               /* unknown varint */
	strbuf_addstr(&b, "hello");
	put_len(&sb, 99, &b);                   /* unknown bytes */
	put_varint(&sb, 98 << 3 | 1);           /* unknown fixed64 */
	strbuf_add(&sb, "12345678", 8);
	put_varint(&sb, 97 << 3 | 5);           /* unknown fixed32 */
	strbuf_add(&sb, "1234", 4);
	make_profile(&sb, true, true, false);
	put_sample(&sb, locs, 1, vals, 2, true);
	ps = parse(&sb, &default_opts);
	/* The negative value is dropped from its profile only. */
	assert_int_equal(ps->profiles[0]->nr_samples, 3);
	assert_int_equal(ps->profiles[1]->nr_samples, 2);
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "1 negative sample values skipped");
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&b);
}

static void
test_length_past_end(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	put_str(&sb, "");
	/* A string of 100 bytes with 3 present, at byte 2. */
	put_varint(&sb, 6 << 3 | 2);
	put_varint(&sb, 100);
	strbuf_addstr(&sb, "abc");
	parse_fail(&sb, "byte 2: length past the end of its message");

	/* A Line inside a Location that claims more than its Location holds. */
	strbuf_reset(&sb);
	strbuf_add(&sb, "\x22\x04\x08\x01\x22\x09", 6);
	parse_fail(&sb, "byte 4: length past the end of its message");
	strbuf_release(&sb);
}

static void
test_bad_input(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add(&sb, "\x08\xff\xff", 3);
	parse_fail(&sb, "byte 1: truncated varint");
	strbuf_reset(&sb);
	strbuf_add(&sb, "\x0b", 1);
	parse_fail(&sb, "byte 0: unsupported wire type");
	strbuf_reset(&sb);
	put_int(&sb, 1, 5);
	parse_fail(&sb, "byte 0: expected a message or string");
	strbuf_reset(&sb);
	put_str(&sb, "");
	parse_fail(&sb, "no sample types in pprof profile");
	strbuf_reset(&sb);
	put_value_type(&sb, 1, 1, 7);
	put_str(&sb, "");
	put_str(&sb, "samples");
	parse_fail(&sb, "a sample unit refers to string 7 of 2");
	strbuf_release(&sb);
}

/*
 * Sample types whose names differ only after a NUL byte: numbered apart,
 * not in an endless search for a free name (a fuzzer's find).
 */
static void
test_type_names_with_nul(void **state)
{
	struct strbuf sb = STRBUF_INIT, nul = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	strbuf_add(&nul, "a\0b", 3);
	put_str(&sb, "");
	put_len(&sb, 6, &nul);
	put_str(&sb, "a");
	put_value_type(&sb, 1, 2, 2);
	put_value_type(&sb, 1, 1, 1);
	put_value_type(&sb, 1, 1, 1);
	ps = parse(&sb, &default_opts);
	assert_int_equal(ps->nr_profiles, 3);
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&nul);
}

/* Each sample type is a profile: past a few hundred, the file is refused. */
static void
test_too_many_types(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	put_strings(&sb);
	for (int i = 0; i < 256; i++)
		put_value_type(&sb, 1, 3, 4);
	ps = parse(&sb, &default_opts);
	assert_int_equal(ps->nr_profiles, 256);
	assert_string_equal(ps_get(ps, ps->profiles[255]->name), "cpu/nanoseconds (256)");
	profile_set_free(ps);
	put_value_type(&sb, 1, 3, 4);
	parse_fail(&sb, "byte 1610: more than 256 sample types");
	strbuf_release(&sb);
}

/*
 * Every prefix of a valid profile either loads or fails with a message:
 * never a read past the buffer (the sanitizer build checks that).
 */
static void
test_truncated(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_profile(&sb, true, false, true);
	for (size_t n = 0; n < sb.len; n++) {
		struct tf_error err = TF_ERROR_INIT;
		struct profile_set *ps = profile_set_new();
		char *copy = malloc(n ? n : 1);

		memcpy(copy, sb.buf, n);
		if (pprof_parse_buffer(copy, n, &default_opts, ps, &err))
			assert_non_null(err.msg);
		check_profile_set(ps);
		profile_set_free(ps);
		tf_error_release(&err);
		free(copy);
	}
	strbuf_release(&sb);
}

static int
probe(const char *data, size_t len)
{
	const struct importer *imp = importer_find("pprof");

	assert_non_null(imp);
	return imp->probe(data, len);
}

static void
test_probe(void **state)
{
	static const char *const not_pprof[] = {
		"java 12688 [002] 6544038.708352: 235 cpu-clock:\n\t7f00 main (/bin/app)\n\n",
		"main;work;inner 12\nmain;other 3\n",
		"{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\"}",
		"[{\"name\":\"a\",\"ph\":\"B\",\"ts\":1}]",
		"# callgrind format\nevents: Ir\n",
		"",
		"\x08",
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_profile(&sb, true, false, false);
	assert_true(probe(sb.buf, sb.len) >= 50);
	strbuf_reset(&sb);
	make_profile(&sb, false, true, true);
	assert_true(probe(sb.buf, sb.len) >= 50);
	for (size_t i = 0; i < sizeof(not_pprof) / sizeof(not_pprof[0]); i++)
		assert_int_equal(probe(not_pprof[i], strlen(not_pprof[i])), 0);
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_type_names_with_nul),
		cmocka_unit_test(test_too_many_types),
		cmocka_unit_test(test_default_type),
		cmocka_unit_test(test_unpacked_out_of_order),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_weight_samples),
		cmocka_unit_test(test_unknown_fields),
		cmocka_unit_test(test_length_past_end),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

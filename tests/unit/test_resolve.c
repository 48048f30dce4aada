#include "config.h"

#include "tflame/resolve.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tflame/error.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Symbolizing a whole set (resolve.h) against tests/data/symbols/tiny, the
 * committed build of prog.c (see test_symbols.c for its addresses): 0x11a4
 * is in inner() inlined through middle() into outer(), 0x11fc is the return
 * address in driver() after its call to outer(), 0x10a4 is in _start.
 */

static char *
data_path(const char *name)
{
	return test_data_path("symbols", name);
}

static char *
tiny_path(void)
{
	return data_path("tiny");
}

/* A frame as perf gives it: a name (NULL: unnamed), the module, an address. */
struct pframe {
	const char *name;
	uint64_t addr;
	uint32_t flags;
};

/* Add one sample of weight w whose frames are fr[0] (root) .. fr[n - 1]. */
static stack_id
add_sample(struct profile_set *ps, const char *module, const struct pframe *fr, size_t n,
	   uint64_t w)
{
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct tf_error err = TF_ERROR_INIT;
	thread_id t = profile_set_thread(ps, 1, 1, ps_str(ps, "prog", 4));
	stack_id s = STACK_ROOT;

	for (size_t i = 0; i < n; i++) {
		struct frame f = { 0 };

		if (fr[i].name) {
			f.name = ps_str(ps, fr[i].name, strlen(fr[i].name));
		} else {
			f.name = ps_str(ps, "[tiny]", 6);
			f.flags |= FRAME_UNNAMED;
		}
		f.module = ps_str(ps, module, strlen(module));
		f.addr = fr[i].addr;
		f.flags |= fr[i].flags;
		s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
	}
	assert_int_equal(profile_add_sample(p, s, w, 0, false, t, &err), 0);
	tf_error_release(&err);
	return s;
}

/* The names of stack s, root first, joined with ';'. */
static const char *
names(const struct profile_set *ps, stack_id s, struct strbuf *sb)
{
	stack_id path[64];
	size_t n = 0;

	strbuf_setlen(sb, 0);
	for (; s != STACK_ROOT && n < 64; s = ps->stacks[s].parent)
		path[n++] = s;
	while (n--)
		strbuf_addf(sb, "%s%s", sb->len ? ";" : "",
			    ps_get(ps, ps->frames[ps->stacks[path[n]].frame].name));
	return sb->buf;
}

static void
check_set(const struct profile_set *ps)
{
	struct tf_error err = TF_ERROR_INIT;

	if (profile_set_check(ps, &err))
		fail_msg("%s", tf_error_text(&err));
	tf_error_release(&err);
}

/*
 * perf's names win where perf named the frame; an unnamed frame takes the
 * module's name; inline frames come either way; nothing keeps an address.
 */
static void
test_perf_names_win(void **state)
{
	char *tiny = tiny_path();
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	const struct pframe a[] = {
		{ "driver", 0x11fc, FRAME_RETADDR },
		/* perf's own alias for outer(): kept */
		{ "outer_alias", 0x11a4, 0 },
	}, b[] = {
		{ "driver", 0x11fc, FRAME_RETADDR },
		{ NULL, 0x11a4, 0 }, /* [tiny]: the module names it */
	};
	struct profile *p;

	(void)state;
	add_sample(ps, tiny, a, 2, 3);
	add_sample(ps, tiny, b, 2, 4);
	assert_int_equal(profile_set_symbolize(ps, 0, 2, NULL), 2);
	check_set(ps);
	p = ps->profiles[0];
	assert_string_equal(names(ps, p->stack[0], &sb), "driver;outer_alias;middle;inner");
	assert_string_equal(names(ps, p->stack[1], &sb), "driver;outer;middle;inner");
	for (uint32_t f = 0; f < ps->nr_frames; f++) {
		assert_int_equal(ps->frames[f].addr, 0);
		assert_false(ps->frames[f].flags & (FRAME_RETADDR | FRAME_UNNAMED));
	}
	/* Where each frame runs: inner's loop, called from outer's line. */
	assert_non_null(p->src);
	assert_int_equal(ps->srcs[p->src[1]].line, 27);
	assert_int_equal(p->total_weight, 7);
	profile_set_free(ps);

	/* Without line tables: the same frames, their own file:line, no positions. */
	ps = profile_set_new();
	add_sample(ps, tiny, a, 2, 3);
	add_sample(ps, tiny, b, 2, 4);
	assert_int_equal(profile_set_symbolize(ps, SYMBOLS_NO_LINES, 1, NULL), 2);
	check_set(ps);
	p = ps->profiles[0];
	assert_string_equal(names(ps, p->stack[0], &sb), "driver;outer_alias;middle;inner");
	assert_string_equal(names(ps, p->stack[1], &sb), "driver;outer;middle;inner");
	assert_null(p->src);
	assert_int_equal(ps->nr_srcs, 1);
	{
		const struct frame *f = &ps->frames[ps->stacks[p->stack[1]].frame];

		assert_true(f->flags & FRAME_HAS_LINE);
		assert_int_equal(f->line, 24); /* inner() is defined there */
	}
	strbuf_release(&sb);
	profile_set_free(ps);
	free(tiny);
}

/*
 * A frame as perf's parser leaves a real function perf script printed
 * "(inlined)": its debug info name, an address, no module. The symbolizer
 * finds its module among the frames around it, and names it by the ELF
 * symbol perf report gives it. tests/data/inline/inl: sortrec.constprop.0
 * (debug info: sortrec) has a return address at 0x1395 and calls cmp();
 * 0x14c3 is in work (debug info: work_impl); 0x1106 is main's return
 * address after its call of sortrec.constprop.0; 0x12e6 is in cmp(), mix()
 * inlined there.
 */
struct mframe {
	const char *name;
	const char *module; /* NULL: none */
	uint64_t addr;
	uint32_t flags;
};

static void
add_msample(struct profile_set *ps, const struct mframe *fr, size_t n)
{
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct tf_error err = TF_ERROR_INIT;
	thread_id t = profile_set_thread(ps, 1, 1, ps_str(ps, "inl", 3));
	stack_id s = STACK_ROOT;

	for (size_t i = 0; i < n; i++) {
		struct frame f = { 0 };

		f.name = ps_str(ps, fr[i].name, strlen(fr[i].name));
		if (fr[i].module)
			f.module = ps_str(ps, fr[i].module, strlen(fr[i].module));
		f.addr = fr[i].addr;
		f.flags = fr[i].flags;
		s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
	}
	assert_int_equal(profile_add_sample(p, s, 1, 0, false, t, &err), 0);
	tf_error_release(&err);
}

static void
test_module_of_real_inlined(void **state)
{
	char *inl = test_data_path("inline", "inl");
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	const struct mframe a[] = {
		{ "main", inl, 0x1106, FRAME_RETADDR },
		{ "sortrec", NULL, 0x1395, FRAME_RETADDR },
		{ "sortrec", NULL, 0x1395, FRAME_RETADDR },
		{ "cmp", inl, 0x12e6, 0 },
	}, b[] = {
		{ "main", inl, 0x1106, FRAME_RETADDR },
		{ "work_impl", NULL, 0x14c3, 0 }, /* a leaf: any module below */
	}, c[] = {
		{ "main", inl, 0x1106, FRAME_RETADDR },
		{ "not_here", NULL, 0x1395, FRAME_RETADDR }, /* no module has it */
		{ "cmp", inl, 0x12e6, 0 },
	}, d[] = {
		{ "sortrec", NULL, 0x1395, FRAME_RETADDR }, /* no module in its stack */
		{ "sortrec", NULL, 0x13f2, 0 },
	};
	struct profile *p;

	(void)state;
	add_msample(ps, a, 4);
	add_msample(ps, b, 2);
	add_msample(ps, c, 3);
	add_msample(ps, d, 2);
	profile_set_symbolize(ps, 0, 2, NULL);
	check_set(ps);
	p = ps->profiles[0];
	assert_string_equal(names(ps, p->stack[0], &sb),
			    "main;sortrec.constprop.0;sortrec.constprop.0;cmp;mix");
	{
		/* sortrec.constprop.0's frame: in inl now. */
		stack_id s = p->stack[0];

		while (ps->stacks[s].depth > 2)
			s = ps->stacks[s].parent;
		assert_string_equal(ps_get(ps, ps->frames[ps->stacks[s].frame].module), inl);
		assert_false(ps->frames[ps->stacks[s].frame].flags & FRAME_INLINED);
	}
	assert_string_equal(names(ps, p->stack[1], &sb), "main;work");
	assert_string_equal(ps_get(ps, ps->frames[ps->stacks[p->stack[1]].frame].module), inl);
	assert_string_equal(names(ps, p->stack[2], &sb), "main;not_here;cmp;mix");
	assert_string_equal(names(ps, p->stack[3], &sb),
			    "sortrec.constprop.0;sortrec.constprop.0");
	for (uint32_t f = 0; f < ps->nr_frames; f++)
		assert_int_equal(ps->frames[f].addr, 0);
	/* The guesses in the wrong modules are no addresses left unresolved. */
	assert_int_equal(ps->nr_diags, 0);
	strbuf_release(&sb);
	profile_set_free(ps);
	free(inl);
}

/*
 * An inline frame that is the function around it under an alias folds
 * into it: perf named tiny's outer() "__GI_middle" (as glibc's own names
 * go), so middle(), inlined into it, is that function again.
 */
static void
test_fold_alias(void **state)
{
	char *tiny = tiny_path();
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	const struct pframe a[] = {
		{ "driver", 0x11fc, FRAME_RETADDR },
		{ "__GI_middle", 0x11a4, 0 },
	};
	struct profile *p;

	(void)state;
	add_sample(ps, tiny, a, 2, 1);
	assert_int_equal(profile_set_symbolize(ps, 0, 1, NULL), 2);
	check_set(ps);
	p = ps->profiles[0];
	assert_string_equal(names(ps, p->stack[0], &sb), "driver;__GI_middle;inner");
	/* inner's loop is where the sample is, under the folded frame. */
	assert_non_null(p->src);
	assert_int_equal(ps->srcs[p->src[0]].line, 27);
	strbuf_release(&sb);
	profile_set_free(ps);
	free(tiny);
}

/*
 * profile_set_symbolize() rewrites the samples' arrays in place (they go
 * to the result); a cancel leaves the set as it was, addresses and all.
 */
static void
test_symbolize_cancelled(void **state)
{
	char *tiny = tiny_path();
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	const struct pframe a[] = {
		{ "driver", 0x11fc, FRAME_RETADDR },
		{ "outer", 0x11a4, 0 },
	};
	_Atomic int cancel = 1;
	struct rewrite_opts o = { .cancel = &cancel };
	stack_id s0;
	uint32_t nframes;

	(void)state;
	s0 = add_sample(ps, tiny, a, 2, 3);
	nframes = ps->nr_frames;
	assert_int_equal(profile_set_symbolize(ps, 0, 2, &o), 0);
	check_set(ps);
	assert_int_equal(ps->profiles[0]->stack[0], s0);
	assert_string_equal(names(ps, s0, &sb), "driver;outer");
	assert_int_equal(ps->nr_frames, nframes);
	assert_int_equal(ps->frames[ps->stacks[s0].frame].addr, 0x11a4);

	cancel = 0;
	assert_int_equal(profile_set_symbolize(ps, 0, 2, &o), 2);
	check_set(ps);
	assert_string_equal(names(ps, ps->profiles[0]->stack[0], &sb), "driver;outer;middle;inner");
	strbuf_release(&sb);
	profile_set_free(ps);
	free(tiny);
}

/*
 * The explorer's way: perf's names at once (two addresses of one function
 * are one box again), the job on the side, a map from the stacks shown to
 * the resolved ones, progress up to its total.
 */
static void
test_job_show_now(void **state)
{
	char *tiny = tiny_path();
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	const struct pframe a[] = {
		{ "driver", 0x11fc, FRAME_RETADDR },
		{ "outer", 0x11a4, 0 },
	}, b[] = {
		{ "driver", 0x11fc, FRAME_RETADDR },
		{ "outer", 0x11d1, 0 }, /* outer's last instruction: no inlining */
	};
	_Atomic uint64_t done = 0, total = 0;
	_Atomic int cancel = 0;
	struct rewrite_opts o = { .done = &done, .total = &total, .cancel = &cancel };
	struct symbols_job *job;
	struct profile *p;
	stack_id shown, *map;

	(void)state;
	add_sample(ps, tiny, a, 2, 1);
	add_sample(ps, tiny, b, 2, 2);
	job = symbols_job_new(ps, SYMBOLS_SHOW_NOW, 1);
	assert_non_null(job);
	check_set(ps);
	p = ps->profiles[0];
	/* Shown now: one call path, perf's names, no addresses. */
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_string_equal(names(ps, p->stack[0], &sb), "driver;outer");
	shown = p->stack[0];

	assert_true(symbols_job_run(job, &o));
	assert_true(total > 0);
	assert_int_equal(done, total);
	/* Still perf's names until the job is applied. */
	assert_string_equal(names(ps, p->stack[0], &sb), "driver;outer");
	assert_int_equal(symbols_job_apply(job, ps, &map), 3);
	check_set(ps);
	assert_string_equal(names(ps, p->stack[0], &sb), "driver;outer;middle;inner");
	assert_string_equal(names(ps, p->stack[1], &sb), "driver;outer");
	/* The box shown goes on as the real function, not its inlined callees. */
	assert_string_equal(names(ps, map[shown], &sb), "driver;outer");
	assert_int_equal(map[shown], p->stack[1]);
	free(map);
	symbols_job_free(job);

	/* A cancelled job leaves the set shown as it was. */
	ps = (profile_set_free(ps), profile_set_new());
	add_sample(ps, tiny, a, 2, 1);
	job = symbols_job_new(ps, SYMBOLS_SHOW_NOW, 1);
	cancel = 1;
	assert_false(symbols_job_run(job, &o));
	symbols_job_free(job);
	check_set(ps);
	assert_string_equal(names(ps, ps->profiles[0]->stack[0], &sb), "driver;outer");
	/* A set without addresses needs no job. */
	assert_null(symbols_job_new(ps, SYMBOLS_SHOW_NOW, 1));

	strbuf_release(&sb);
	profile_set_free(ps);
	free(tiny);
}

/*
 * The rebuilt-module check: one or two of perf's names found elsewhere
 * are not enough to distrust a module (a frame of register_tm_clones
 * made a fresh recording "changed"); three, more than agree, are.
 */
static void
test_module_check(void **state)
{
	char *tiny = tiny_path();
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	char want[80];
	/* Each name is a function of tiny, at another's address. */
	const struct pframe one[] = { { "driver", 0x11a4, 0 } };
	const struct pframe two[] = { { "outer", 0x11fc, FRAME_RETADDR } };
	const struct pframe three[] = { { "main", 0x10a4, 0 } };
	const struct pframe ok[] = { { "_start", 0x10a4, 0 } };

	(void)state;
	add_sample(ps, tiny, one, 1, 1);
	add_sample(ps, tiny, two, 1, 1);
	add_sample(ps, tiny, ok, 1, 1);
	profile_set_symbolize(ps, SYMBOLS_VERBOSE, 2, NULL);
	check_set(ps);
	/*
	 * Trusted: no warning but --verbose's timing (one module: one worker),
	 * and the inline frames came.
	 */
	assert_int_equal(ps->nr_diags, 1);
	assert_non_null(strstr(ps->diags[0].msg, "symbols: 3 addresses in 1 module looked up in "));
	/* The root and one stack per sample, then as many as the set has now. */
	snprintf(want, sizeof(want), "(1 thread), 4 stacks rebuilt as %u in ", ps->nr_stacks);
	assert_non_null(strstr(ps->diags[0].msg, want));
	assert_true(ps->nr_stacks > 4);
	assert_string_equal(names(ps, ps->profiles[0]->stack[0], &sb), "driver;middle;inner");
	profile_set_free(ps);

	ps = profile_set_new();
	add_sample(ps, tiny, one, 1, 1);
	add_sample(ps, tiny, two, 1, 1);
	add_sample(ps, tiny, three, 1, 1);
	profile_set_symbolize(ps, SYMBOLS_VERBOSE, 2, NULL);
	check_set(ps);
	assert_int_equal(ps->nr_diags, 2);
	assert_non_null(strstr(ps->diags[0].msg, "1 module changed since the recording"));
	/* The rejected module's frames stay as they were: as many stacks. */
	assert_non_null(strstr(ps->diags[1].msg, "4 stacks rebuilt as 4 in "));
	/* --verbose names the frames that disagreed. */
	assert_non_null(strstr(ps->diags[0].msg, "perf's driver at 0x11a4 is not there"));
	assert_non_null(strstr(ps->diags[0].msg, "perf's main at 0x10a4 is not there"));
	/* Left alone: perf's names, nothing inlined. */
	assert_string_equal(names(ps, ps->profiles[0]->stack[0], &sb), "driver");
	strbuf_release(&sb);
	profile_set_free(ps);
	free(tiny);
}

/*
 * A module with more addresses than RESOLVE_SPLIT is split between the
 * workers: 2 threads give what 1 does, stack for stack, with the same
 * warnings; a module found rebuilt is rejected by every worker, and the
 * frames that disagreed are named once. Most addresses lie past tiny's
 * code (unresolved, perf's [tiny] kept); a few are outer()'s and
 * driver()'s.
 */
#define SPLIT_ADDRS 10000

static struct profile_set *
split_set(const char *tiny, bool rebuilt)
{
	struct profile_set *ps = profile_set_new();
	const struct pframe good[] = { { "driver", 0x11fc, FRAME_RETADDR }, { "outer", 0x11a4, 0 } };
	const struct pframe bad[] = { { "driver", 0x11a4, 0 }, { "outer", 0x11fc, FRAME_RETADDR },
				      { "main", 0x10a4, 0 } };

	for (uint64_t i = 0; i < SPLIT_ADDRS; i++) {
		struct pframe fr[2] = { { "driver", 0x11fc, FRAME_RETADDR }, { NULL, 0, 0 } };

		/* tiny's code, then far past it; in no order. */
		fr[1].addr = i % 7 ? 0x10000 + (i * 7919) % SPLIT_ADDRS : 0x1100 + i % 0x100;
		add_sample(ps, tiny, fr, 2, 1 + i % 3);
	}
	add_sample(ps, tiny, good, 2, 5);
	if (rebuilt)
		for (size_t i = 0; i < 3; i++)
			add_sample(ps, tiny, &bad[i], 1, 1);
	return ps;
}

/* ps's warnings, with the milliseconds and the threads taken out. */
static void
split_warnings(const struct profile_set *ps, struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
	for (size_t i = 0; i < ps->nr_diags; i++) {
		const char *m = ps->diags[i].msg, *cut = strstr(m, " looked up in ");

		strbuf_add(sb, m, cut ? (size_t)(cut - m) : strlen(m));
		if (cut) {
			const char *from = strstr(cut, " stacks rebuilt as "), *to = from;

			/* ... up to its last " in N ms". */
			for (const char *in = from; (in = strstr(in + 1, " in "));)
				to = in;
			strbuf_add(sb, from, (size_t)(to - from));
		}
		strbuf_addch(sb, '\n');
	}
}

static void
test_split_module(void **state)
{
	char *tiny = tiny_path();
	struct strbuf sb = STRBUF_INIT, w1 = STRBUF_INIT, w2 = STRBUF_INIT, n1 = STRBUF_INIT;

	(void)state;
	for (int rebuilt = 0; rebuilt < 2; rebuilt++) {
		struct profile_set *one = split_set(tiny, rebuilt), *two = split_set(tiny, rebuilt);
		const char *details;

		profile_set_symbolize(one, SYMBOLS_VERBOSE, 1, NULL);
		profile_set_symbolize(two, SYMBOLS_VERBOSE, 2, NULL);
		check_set(one);
		check_set(two);
		assert_int_equal(one->nr_stacks, two->nr_stacks);
		assert_int_equal(one->profiles[0]->nr_samples, two->profiles[0]->nr_samples);
		for (size_t i = 0; i < one->profiles[0]->nr_samples; i++) {
			names(one, one->profiles[0]->stack[i], &n1);
			assert_string_equal(names(two, two->profiles[0]->stack[i], &sb), n1.buf);
		}
		split_warnings(one, &w1);
		split_warnings(two, &w2);
		assert_string_equal(w2.buf, w1.buf);
		/* Two threads did split it: the module was read twice. */
		assert_non_null(strstr(two->diags[two->nr_diags - 1].msg, "(2 threads)"));
		assert_non_null(strstr(w1.buf, " addresses in 1 module"));
		details = strstr(w2.buf, "perf's driver at 0x11a4 is not there");
		if (rebuilt) {
			assert_non_null(strstr(w2.buf, "1 module changed since the recording"));
			assert_non_null(details);
			assert_null(strstr(details + 1, "perf's driver at 0x11a4"));
			/* Left alone: perf's names, nothing inlined. */
			names(two, two->profiles[0]->stack[SPLIT_ADDRS], &sb);
			assert_string_equal(sb.buf, "driver;outer");
		} else {
			assert_null(details);
			names(two, two->profiles[0]->stack[SPLIT_ADDRS], &sb);
			assert_string_equal(sb.buf, "driver;outer;middle;inner");
			/* Past tiny's code: [tiny] stays. */
			names(two, two->profiles[0]->stack[1], &sb);
			assert_string_equal(sb.buf, "driver;[tiny]");
		}
		profile_set_free(one);
		profile_set_free(two);
	}
	strbuf_release(&sb);
	strbuf_release(&w1);
	strbuf_release(&w2);
	strbuf_release(&n1);
	free(tiny);
}

/*
 * A module whose only table is .dynsym (tests/data/symbols/stripped, see
 * test_symbols.c) tells nothing perf did not: perf's names stand, even
 * where .dynsym has none (frame_dummy came from a .symtab perf saw) or
 * another (three names at the wrong places, which would reject a module
 * that is asked); nothing is checked, so no warning says it changed. The
 * frame perf left unnamed is the one address not resolved.
 */
static void
test_defer_to_perf(void **state)
{
	char *stripped = data_path("stripped");
	struct profile_set *ps = profile_set_new();
	struct strbuf sb = STRBUF_INIT;
	const struct pframe a[] = {
		{ "outer", 0x11c0, 0 },
		{ "frame_dummy", 0x1185, 0 },
		{ NULL, 0x10d5, 0 },
	};
	const struct pframe wrong[] = {
		{ "outer", 0x1230, 0 }, { "weak_fn", 0x11a0, 0 }, { "_start", 0x1190, 0 },
	};

	(void)state;
	add_sample(ps, stripped, a, 3, 2);
	for (size_t i = 0; i < ARRAY_SIZE(wrong); i++)
		add_sample(ps, stripped, &wrong[i], 1, 1);
	profile_set_symbolize(ps, 0, 2, NULL);
	check_set(ps);
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "symbols: 1 address not resolved");
	assert_string_equal(names(ps, ps->profiles[0]->stack[0], &sb), "outer;frame_dummy;[tiny]");
	assert_string_equal(names(ps, ps->profiles[0]->stack[1], &sb), "outer");
	assert_string_equal(names(ps, ps->profiles[0]->stack[2], &sb), "weak_fn");
	assert_string_equal(names(ps, ps->profiles[0]->stack[3], &sb), "_start");
	profile_set_free(ps);

	/*
	 * As the parser gives such a module (symbols_beyond_dynsym() false):
	 * the frame perf named has no address, the one it left unnamed has
	 * one, which .dynsym could name. perf named a frame of the module, so
	 * perf read its .dynsym: the unnamed frame stays unnamed.
	 */
	{
		const struct pframe b[] = { { "outer", 0, 0 }, { NULL, 0x11c0, 0 } };

		ps = profile_set_new();
		add_sample(ps, stripped, b, 2, 1);
		profile_set_symbolize(ps, 0, 2, NULL);
		check_set(ps);
		assert_int_equal(ps->nr_diags, 1);
		assert_string_equal(ps->diags[0].msg, "symbols: 1 address not resolved");
		assert_string_equal(names(ps, ps->profiles[0]->stack[0], &sb), "outer;[tiny]");
		profile_set_free(ps);
	}
	strbuf_release(&sb);
	free(stripped);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_names_win),
		cmocka_unit_test(test_module_of_real_inlined),
		cmocka_unit_test(test_fold_alias),
		cmocka_unit_test(test_symbolize_cancelled),
		cmocka_unit_test(test_job_show_now),
		cmocka_unit_test(test_module_check),
		cmocka_unit_test(test_split_module),
		cmocka_unit_test(test_defer_to_perf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

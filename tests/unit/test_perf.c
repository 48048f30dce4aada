#include "config.h"

#include "test_util.h"

#include <stdlib.h>
#include <unistd.h>

#include "tflame/import.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* ---------------------------------------------------------------- helpers */

static int
parse_len(const char *text, size_t len, const struct import_options *opts,
	  struct profile_set *ps, struct tf_error *err)
{
	struct line_reader lr;
	int ret;

	line_reader_init_mem(&lr, text, len);
	ret = perf_parse_lines(&lr, opts, ps, err);
	line_reader_release(&lr);
	return ret;
}

/* Parse text, which must succeed; the set is checked. */
static struct profile_set *
parse_opts(const char *text, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	if (parse_len(text, strlen(text), opts, ps, &err))
		fail_msg("perf_parse_lines: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(ps);
	assert_string_equal(ps->format, "perf script");
	return ps;
}

static struct profile_set *
parse(const char *text)
{
	struct import_options opts = { 0 };

	return parse_opts(text, &opts);
}

static struct profile *
prof(const struct profile_set *ps, const char *name)
{
	struct profile *p = profile_set_find_profile(ps, name);

	if (!p)
		fail_msg("no profile named \"%s\"", name);
	return p;
}

static const char *
stack_of(const struct profile_set *ps, const struct profile *p, size_t i, char *buf,
	 size_t size)
{
	assert_true(i < p->nr_samples);
	return stack_text(ps, p->stack[i], buf, size);
}

/* The frame at depth d (0 = root) of sample i. */
static const struct frame *
frame_at(const struct profile_set *ps, const struct profile *p, size_t i, uint32_t d)
{
	stack_id s = p->stack[i];

	assert_true(d < ps_stack(ps, s)->depth);
	while (ps_stack(ps, s)->depth > d + 1)
		s = ps_stack(ps, s)->parent;
	return ps_frame(ps, ps_stack(ps, s)->frame);
}

static const struct frame *
leaf(const struct profile_set *ps, const struct profile *p, size_t i)
{
	return ps_frame(ps, ps_stack(ps, p->stack[i])->frame);
}

static const struct thread *
thread_of(const struct profile_set *ps, const struct profile *p, size_t i)
{
	return &ps->threads[p->thread[i]];
}

/* --------------------------------------------------------------- headers */

/*
 * Old perf (3.x) printed callchains without indent, and a header without
 * cpu or time: a line at the first column that reads as a frame and not
 * as a header goes on the open sample.
 */
static void
test_unindented_frames(void **state)
{
	struct profile_set *ps = parse(
		"\n"
		"java 4711 cycles:\n"
		"ffffffff816647de call_function_single_interrupt ([kernel.kallsyms])\n"
		"7f3a2d119786 Ljava/util/HashMap;::getNode (/tmp/perf-4710.map)\n"
		"7f3a432b4e9a start_thread (/lib/libpthread-2.15.so)\n"
		"\n"
		"sshd 912 cycles:\n"
		"4005d0 main (/usr/sbin/sshd)\n"
		"sshd 913 cycles:\n"
		"4005d0 main (/usr/sbin/sshd)\n"
		"this is no frame\n"
		"4005d0 main (/usr/sbin/sshd)\n");
	struct profile *p = prof(ps, "cycles");
	char buf[256];

	(void)state;
	/* A header ends the sample before it even with no blank line. */
	assert_int_equal(p->nr_samples, 3);
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)),
			    "java;start_thread;Ljava/util/HashMap;::getNode;"
			    "call_function_single_interrupt");
	assert_int_equal(thread_of(ps, p, 0)->tid, 4711);
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "sshd;main");
	assert_string_equal(stack_of(ps, p, 2, buf, sizeof(buf)), "sshd;main");
	/* What is neither ends the sample; a frame after it has none to join. */
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 11);
	assert_non_null(strstr(ps->diags[0].msg, "2 lines not understood, first: this is no"));
	profile_set_free(ps);
}

static void
test_pid_tid(void **state)
{
	struct profile_set *ps = parse(
		"xz 3728/3731 [001]   159.920822:     250000 cycles:u: \n"
		"\t    7f3a1c2b4c55 lzma_mf_bt4_find+0x95 (/usr/lib/liblzma.so.5)\n"
		"\t    55d1c2a20f10 main+0x1f0 (/usr/bin/xz)\n"
		"\n"
		"xz 3728   159.921070:     250000 cycles:u: \n"
		"\t    55d1c2a20f10 main+0x1f0 (/usr/bin/xz)\n"
		"\n");
	struct profile *p = prof(ps, "cycles:u");
	char buf[256];

	(void)state;
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(thread_of(ps, p, 0)->pid, 3728);
	assert_int_equal(thread_of(ps, p, 0)->tid, 3731);
	assert_string_equal(ps_get(ps, thread_of(ps, p, 0)->comm), "xz");
	assert_int_equal(thread_of(ps, p, 1)->pid, -1);
	assert_int_equal(thread_of(ps, p, 1)->tid, 3728);
	assert_int_equal(ps->nr_threads, 2);
	/* A process known by its pid and one by its comm: two, with roots. */
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "xz;main;lzma_mf_bt4_find");
	assert_string_equal(ps_get(ps, leaf(ps, p, 0)->module), "/usr/lib/liblzma.so.5");
	assert_int_equal(leaf(ps, p, 0)->addr, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_cpu_and_time(void **state)
{
	struct profile_set *ps = parse(
		"a 1 [003] 159.920822: 1 cycles:\n\n"         /* µs */
		"a 1 [012] 159.920822123: 1 cycles:\n\n"      /* ns */
		"a 1 7.5: 1 cycles:\n\n"                      /* no cpu, one digit */
		"a 1 8.: 1 cycles:\n\n"                       /* no fraction */
		"a 1 [000] 1 cycles:\n\n");                   /* no time */
	struct profile *p = prof(ps, "cycles");

	(void)state;
	assert_int_equal(p->nr_samples, 5);
	assert_int_equal(p->time[0], INT64_C(159920822000));
	assert_int_equal(p->time[1], INT64_C(159920822123));
	assert_int_equal(p->time[2], INT64_C(7500000000));
	assert_int_equal(p->time[3], INT64_C(8000000000));
	assert_int_equal(p->time[4], 0);
	assert_true(p->has_time);
	assert_int_equal(p->time_min, INT64_C(7500000000));
	assert_int_equal(p->time_max, INT64_C(159920822123));
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_period_and_units(void **state)
{
	struct profile_set *ps = parse(
		"java 12688 [002] 6544038.708352: 235 cpu-clock:\n"
		"\t 7f00 main+0x1 (/bin/java)\n\n"
		"java 12688 [002] 6544038.708353: 1000 cycles:\n"
		"\t 7f00 main+0x1 (/bin/java)\n\n"
		"java 12688 [002] 6544038.708354: 7 cycles:\n"
		"\t 7f00 main+0x1 (/bin/java)\n\n"
		"java 12688 [002] 6544038.708355: page-faults:\n"
		"\t 7f00 main+0x1 (/bin/java)\n\n"
		"java 12688 [002] 6544038.708356: 16949152 task-clock:ppp:\n"
		"\t 7f00 main+0x1 (/bin/java)\n\n");
	struct profile *clk = prof(ps, "cpu-clock"), *cyc = prof(ps, "cycles");
	struct profile *pf = prof(ps, "page-faults"), *task = prof(ps, "task-clock:ppp");

	(void)state;
	assert_int_equal(clk->unit, UNIT_NANOSECONDS);
	assert_int_equal(clk->total_weight, 235);
	assert_int_equal(cyc->unit, UNIT_EVENTS);
	assert_int_equal(cyc->nr_samples, 2);
	assert_int_equal(cyc->weight[0], 1000);
	assert_int_equal(cyc->weight[1], 7);
	assert_int_equal(cyc->total_weight, 1007);
	/* No period: each sample weighs 1. */
	assert_int_equal(pf->unit, UNIT_SAMPLES);
	assert_int_equal(pf->weight[0], 1);
	assert_int_equal(task->unit, UNIT_NANOSECONDS);
	assert_int_equal(task->total_weight, 16949152);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_event_modifiers_and_padding(void **state)
{
	struct profile_set *ps = parse(
		"stress 2001 [000]   10.000100:     200000      cycles: \n"
		"\t          401136 hot+0x16 (/usr/local/bin/stress)\n\n"
		"stress 2001 [000]   10.000150:       5000 cache-misses: \n"
		"\t          401140 hot+0x20 (/usr/local/bin/stress)\n\n"
		"stress 2001 [000]   10.000300:     200000      cycles: \n"
		"\t          401180 cold+0x10 (/usr/local/bin/stress)\n\n"
		"sh 9515 826.597760: 1001001 cpu-clock:pppH: \n"
		"\t          401180 cold+0x10 (/usr/local/bin/stress)\n\n"
		"stress 2001 [000]   10.000400:     300000 instructions:u: \n"
		"\t          401136 hot+0x16 (/usr/local/bin/stress)\n\n");

	(void)state;
	/* One profile per event, in order of first appearance. */
	assert_int_equal(ps->nr_profiles, 4);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "cycles");
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "cache-misses");
	assert_string_equal(ps_get(ps, ps->profiles[2]->name), "cpu-clock:pppH");
	assert_string_equal(ps_get(ps, ps->profiles[3]->name), "instructions:u");
	assert_int_equal(ps->profiles[0]->nr_samples, 2);
	assert_int_equal(ps->profiles[0]->total_weight, 400000);
	assert_int_equal(ps->profiles[1]->total_weight, 5000);
	assert_int_equal(ps->profiles[2]->unit, UNIT_NANOSECONDS);
	assert_int_equal(ps->profiles[3]->unit, UNIT_EVENTS);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_tracepoint_args(void **state)
{
	struct profile_set *ps = parse(
		"sh 12063   447.545241:     250000          cpu-clock: \n"
		"\tffffffff8158c1fc next_uptodate_folio+0x9c ([kernel.kallsyms])\n\n"
		"sh 12063 [000]   447.545459: sched:sched_switch: prev_comm=sh prev_pid=12063 "
		"prev_prio=120 prev_state=S ==> next_comm=sh next_pid=12065 next_prio=120\n"
		"\tffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])\n"
		"\t           d3bd3 __GI___wait4+0x13 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n");
	struct profile *tp = prof(ps, "sched:sched_switch");
	char buf[256];

	(void)state;
	assert_int_equal(ps->nr_profiles, 2);
	assert_int_equal(tp->nr_samples, 1);
	assert_int_equal(tp->weight[0], 1);
	assert_int_equal(tp->unit, UNIT_SAMPLES);
	assert_int_equal(tp->time[0], INT64_C(447545459000));
	assert_string_equal(stack_of(ps, tp, 0, buf, sizeof(buf)), "__GI___wait4;__schedule");
	assert_true(leaf(ps, tp, 0)->flags & FRAME_KERNEL);
	assert_false(frame_at(ps, tp, 0, 0)->flags & FRAME_KERNEL);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);

	/*
	 * Without -g, perf -F ...,ip,sym puts the frame after the arguments.
	 * Two processes: every stack starts with its process.
	 */
	ps = parse(
		"           sleep 17496  1469.976699: sched:sched_switch: prev_comm=sleep "
		"prev_pid=17496 prev_prio=120 prev_state=S ==> next_comm=rcu_preempt "
		"next_pid=15 next_prio=120 ffffffff821f5618 __schedule+0x618 ([kernel.kallsyms])\n"
		"           dd 17 1.5: block:block_rq_issue: 8,0 W 4096 () 123 + 8 [dd] "
		"ffffffff81 blk mq cafe (/lib/modules/x/blk.ko)\n"
		"           dd 17 1.6: probe:do_sys_open: (ffffffff812a7460)\n");
	tp = prof(ps, "sched:sched_switch");
	assert_string_equal(stack_of(ps, tp, 0, buf, sizeof(buf)), "sleep;__schedule");
	assert_true(leaf(ps, tp, 0)->flags & FRAME_KERNEL);
	tp = prof(ps, "block:block_rq_issue");
	/* Numbers in the arguments are not taken for the address. */
	assert_string_equal(stack_of(ps, tp, 0, buf, sizeof(buf)), "dd;blk mq cafe");
	tp = prof(ps, "probe:do_sys_open");
	/* No frame but its process's. */
	assert_string_equal(stack_of(ps, tp, 0, buf, sizeof(buf)), "dd");
	assert_true(leaf(ps, tp, 0)->flags & FRAME_PROCESS);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_single_line(void **state)
{
	/*
	 * perf script without -g: comm right-aligned, no blank lines. Several
	 * processes: each stack starts with its process.
	 */
	struct profile_set *ps = parse(
		"              sh  9515   826.597760:    1001001 cpu-clock:pppH:      "
		"55eec6990e95 [unknown] (/usr/bin/dash)\n"
		"              sh  9515   826.598759:    1001001 cpu-clock:pppH:      "
		"55eec6986350 malloc@plt+0x0 (/usr/bin/dash)\n"
		"             cc1  9520   826.602771:    1001001 cpu-clock:pppH:      "
		"ffffffff81c0b12a clear_page_erms+0xa ([kernel.kallsyms])\n"
		"  dash[4350]\n"
		"gnome-shell-cal  9530   826.603770:    1001001 cpu-clock:pppH:      "
		"7f95c99600ce __strpbrk_sse42+0xbe (/usr/lib/libc.so.6)\n"
		"perf 1 [000] 2.0: 5 cycles:  ffff81 f+0x1 ([kernel.kallsyms])\n");
	struct profile *p = prof(ps, "cpu-clock:pppH"), *c = prof(ps, "cycles");
	char buf[256];

	(void)state;
	assert_int_equal(p->nr_samples, 4);
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "sh;[dash]");
	assert_string_equal(ps_get(ps, leaf(ps, p, 0)->module), "/usr/bin/dash");
	assert_int_equal(leaf(ps, p, 0)->flags, FRAME_UNNAMED);
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "sh;malloc@plt");
	/* "cc1" reads as a hex number, but the line is a header. */
	assert_string_equal(ps_get(ps, thread_of(ps, p, 2)->comm), "cc1");
	assert_string_equal(stack_of(ps, p, 2, buf, sizeof(buf)), "cc1;clear_page_erms");
	assert_true(leaf(ps, p, 2)->flags & FRAME_KERNEL);
	/* A srcline after a single-line sample belongs to its frame. */
	assert_string_equal(ps_get(ps, leaf(ps, p, 2)->file), "dash[4350]");
	assert_string_equal(ps_get(ps, thread_of(ps, p, 3)->comm), "gnome-shell-cal");
	assert_int_equal(p->weight[3], 1001001);
	assert_int_equal(c->weight[0], 5);
	assert_string_equal(stack_of(ps, c, 0, buf, sizeof(buf)), "perf;f");
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_comm_with_spaces(void **state)
{
	struct profile_set *ps = parse(
		"V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:\n"
		"\t 7f00 v8::internal::Heap::Scavenge+0x1 (/usr/bin/node)\n\n"
		/* the shortest prefix would be "Web Content" with tid 2 */
		"Web Content 2 1234/1235 [001] 94564.109300: 100 cycles:\n"
		"\t 7f00 main+0x1 (/usr/lib/firefox/firefox)\n\n"
		"func_ab 15294 cpu-clock:\n"
		"\t 7f00 func_ab+0x1 (/tmp/func_ab)\n\n");
	struct profile *p = prof(ps, "cycles"), *clk = prof(ps, "cpu-clock");

	(void)state;
	assert_string_equal(ps_get(ps, thread_of(ps, p, 0)->comm), "V8 WorkerThread");
	assert_int_equal(thread_of(ps, p, 0)->pid, 24636);
	assert_int_equal(thread_of(ps, p, 0)->tid, 25607);
	assert_string_equal(ps_get(ps, thread_of(ps, p, 1)->comm), "Web Content 2");
	assert_int_equal(thread_of(ps, p, 1)->pid, 1234);
	assert_int_equal(thread_of(ps, p, 1)->tid, 1235);
	assert_string_equal(ps_get(ps, thread_of(ps, clk, 0)->comm), "func_ab");
	assert_int_equal(thread_of(ps, clk, 0)->tid, 15294);
	assert_false(clk->has_time);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * perf prints ":-1" and -1 for a thread it could not place (seen in
 * system-wide recordings): one unknown thread, not the period taken for a
 * tid with the whole header as its comm.
 */
static void
test_unknown_thread(void **state)
{
	struct profile_set *ps = parse(
		":-1    -1 [000]     1.000001:     250000 cpu-clock:pppH:\n"
		"\tffffffff81000000 native_safe_halt+0x0 ([kernel.kallsyms])\n\n"
		":-1    -1 [001]     1.000002:     250000 cpu-clock:pppH:\n"
		"\tffffffff81000000 native_safe_halt+0x0 ([kernel.kallsyms])\n\n"
		":-1 -1/-1 [001]     1.000003:     250000 cpu-clock:pppH:\n"
		"\tffffffff81000000 native_safe_halt+0x0 ([kernel.kallsyms])\n\n");
	struct profile *p = prof(ps, "cpu-clock:pppH");

	(void)state;
	assert_int_equal(p->nr_samples, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(ps_get(ps, thread_of(ps, p, i)->comm), ":-1");
		assert_int_equal(thread_of(ps, p, i)->tid, -1);
		assert_int_equal(thread_of(ps, p, i)->pid, -1);
		assert_int_equal(p->weight[i], 250000);
	}
	assert_int_equal(p->time[2], 1000003000);
	assert_int_equal(ps->nr_threads, 1);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_one_char_comm(void **state)
{
	struct profile_set *ps = parse(
		"X 4242 [000] 100.000100:     100000 cycles: \n"
		"\t          401136 busy+0x16 (/usr/local/bin/X)\n\n"
		"0 7 1.0: 1 cycles:\n\n");
	struct profile *p = prof(ps, "cycles");

	(void)state;
	assert_int_equal(p->nr_samples, 2);
	assert_string_equal(ps_get(ps, thread_of(ps, p, 0)->comm), "X");
	assert_int_equal(thread_of(ps, p, 0)->tid, 4242);
	assert_string_equal(ps_get(ps, thread_of(ps, p, 1)->comm), "0");
	assert_int_equal(thread_of(ps, p, 1)->tid, 7);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_no_event(void **state)
{
	/* perf script -F comm,tid,ip,sym,dso: no time, no event. */
	struct profile_set *ps = parse(
		"bash 77\n"
		"\t 7f00 main+0x1 (/bin/bash)\n\n");

	(void)state;
	assert_int_equal(ps->nr_profiles, 1);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "");
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* ----------------------------------------------------------------- frames */

static void
test_frame_forms(void **state)
{
	struct profile_set *ps = parse(
		"a 1 1.0: 1 cycles:\n"
		"\t 10 f(int)+0x10 (/bin/a)\n"          /* parentheses in the name */
		"\t 11 g+0x1+0x2 (/bin/a)\n"            /* only one offset goes */
		"\t 12 h+0xzz (/bin/a)\n"               /* not an offset */
		"\t 13 k(int)\n"                        /* no module group */
		"\t 14 m\n"                             /* no module at all */
		"\t 15\n"                               /* an address only */
		"\t 16 operator() (/bin/a)\n"
		"\t 17 q (/bin/x (y) z)\n"              /* nested groups */
		"\t\t  18   spaced+0x2   (/bin/a)  \n"  /* extra blanks */
		"\n");
	struct profile *p = prof(ps, "cycles");

	(void)state;
	assert_int_equal(ps_stack(ps, p->stack[0])->depth, 9);
	/* Leaf first: the first frame line is the deepest. */
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 8)->name), "f(int)");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 8)->module), "/bin/a");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 7)->name), "g+0x1");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 6)->name), "h+0xzz");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 5)->name), "k(int)");
	assert_int_equal(frame_at(ps, p, 0, 5)->module, STR_EMPTY);
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 4)->name), "m");
	assert_int_equal(frame_at(ps, p, 0, 4)->module, STR_EMPTY);
	/* An address only: a frame perf did not name, of no module. */
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 3)->name), "[unknown]");
	assert_int_equal(frame_at(ps, p, 0, 3)->flags, FRAME_UNNAMED);
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 2)->name), "operator()");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 1)->name), "q");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 1)->module), "/bin/x (y) z");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 0)->name), "spaced");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 0)->module), "/bin/a");
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_inlined(void **state)
{
	struct profile_set *ps = parse(
		"python3  4493   168.981440:    6090112 cycles: \n"
		"\t           d4353 arch_fork+0x23 (inlined)\n"
		"\t           d4353 __GI__Fork+0x23 (inlined)\n"
		"\t           d4353 __libc_fork+0x23 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\t          27b1c4 os_fork+0x84 (/usr/bin/python3.11)\n\n");
	struct profile *p = prof(ps, "cycles");
	char buf[256];

	(void)state;
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)),
			    "os_fork;__libc_fork;__GI__Fork;arch_fork");
	assert_int_equal(leaf(ps, p, 0)->module, STR_EMPTY);
	assert_int_equal(leaf(ps, p, 0)->flags, FRAME_INLINED);
	assert_int_equal(frame_at(ps, p, 0, 2)->flags, FRAME_INLINED);
	assert_int_equal(frame_at(ps, p, 0, 1)->flags, 0);
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 1)->module),
			    "/usr/lib/x86_64-linux-gnu/libc.so.6");
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * perf 6.x prints a real function "(inlined)", with no line of its module,
 * where its debug info names it otherwise than its symbol: the last line
 * of such a chain is a real frame. A run at a return address repeats the
 * chain once per level of recursion; the leaf's is one chain. An inline
 * frame that is the function around it under an alias folds into it.
 */
static const char inline_chains_text[] =
	"t 1 1.000000: 1 cycles: \n"
	"\t           83275 __GI__IO_default_xsputn+0xf5 (inlined)\n"
	"\t           83275 __GI__IO_default_xsputn+0xf5 (inlined)\n"
	"\t           5cf75 outstring_func+0xb75 (inlined)\n"
	"\t           5cf75 __vfprintf_internal+0xb75 (/lib/libc.so.6)\n"
	"\t           58ca1 __GI___snprintf+0x91 (inlined)\n"
	"\t            1241 cmp+0x41 (/bin/t)\n"
	"\t           3f9a3 msort_with_tmp+0x43 (inlined)\n"
	"\t           3f9a3 msort_with_tmp+0x43 (inlined)\n"
	"\t           3f9a3 msort_with_tmp+0x43 (inlined)\n"
	"\t           3fd35 msort_with_tmp+0xb5 (inlined)\n"
	"\t           3fd35 __GI___qsort_r+0xb5 (/lib/libc.so.6)\n"
	"\t           27304 __libc_start_main_impl+0x84 (inlined)\n"
	"\t            1130 _start+0x20 (/bin/t)\n"
	"\n"
	"t 1 2.000000: 1 cycles: \n"
	"\t            4000 g+0x1 (inlined)\n"
	"\t            5000 g+0x1 (inlined)\n"
	"\t            5000 f+0x1 (inlined)\n"
	"\t            5000 g+0x1 (inlined)\n"
	"\t            5000 f+0x1 (inlined)\n"
	"\t              10 main+0x1 (/bin/t)\n"
	"\n"
	"t 1 3.000000: 1 cycles: \n"
	"\t               7 __GI_memcpy+0x1 (inlined)\n"
	"\t               7 memcpy+0x1 (/lib/libc.so.6)\n"
	"\t              10 main+0x1 (/bin/t)\n"
	"\n";

static void
test_inline_real_frames(void **state)
{
	struct import_options opts = { 0 };
	struct profile_set *ps = parse(inline_chains_text);
	struct profile *p = prof(ps, "cycles");
	const struct frame *f;
	char buf[512];

	(void)state;
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)),
			    "_start;__libc_start_main_impl;__GI___qsort_r;msort_with_tmp;"
			    "msort_with_tmp;msort_with_tmp;msort_with_tmp;cmp;__GI___snprintf;"
			    "__vfprintf_internal;outstring_func;__GI__IO_default_xsputn");
	/* Real functions: no longer inlined, and no module to tell. */
	for (uint32_t d = 1; d < 12; d++) {
		static const uint32_t inlined[] = { 3, 10 };
		bool inl = d == inlined[0] || d == inlined[1];

		f = frame_at(ps, p, 0, d);
		assert_int_equal(f->flags, inl ? FRAME_INLINED : 0);
		assert_int_equal(f->addr, 0);
	}
	assert_int_equal(leaf(ps, p, 0)->flags, 0);
	assert_int_equal(leaf(ps, p, 0)->module, STR_EMPTY);
	/* A chain of two, twice: f is real, g inlined into it, each time. */
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "main;f;g;f;g;g");
	assert_int_equal(frame_at(ps, p, 1, 1)->flags, 0);
	assert_int_equal(frame_at(ps, p, 1, 2)->flags, FRAME_INLINED);
	assert_int_equal(frame_at(ps, p, 1, 3)->flags, 0);
	assert_int_equal(frame_at(ps, p, 1, 4)->flags, FRAME_INLINED);
	assert_int_equal(leaf(ps, p, 1)->flags, 0);
	/* memcpy's own body, inlined under an alias: one frame. */
	assert_string_equal(stack_of(ps, p, 2, buf, sizeof(buf)), "main;memcpy");
	check_profile_set(ps);
	profile_set_free(ps);

	/* For the symbolizer: the address, a return address but at the leaf. */
	opts.symbols = SYMBOLS_RESOLVE;
	ps = parse_opts(inline_chains_text, &opts);
	p = prof(ps, "cycles");
	f = leaf(ps, p, 0);
	assert_string_equal(ps_get(ps, f->name), "__GI__IO_default_xsputn");
	assert_int_equal(f->addr, 0x83275);
	assert_int_equal(f->flags, 0);
	assert_int_equal(f->module, STR_EMPTY);
	f = frame_at(ps, p, 0, 8);
	assert_string_equal(ps_get(ps, f->name), "__GI___snprintf");
	assert_int_equal(f->addr, 0x58ca1);
	assert_int_equal(f->flags, FRAME_RETADDR);
	f = frame_at(ps, p, 0, 10);
	assert_string_equal(ps_get(ps, f->name), "outstring_func");
	assert_int_equal(f->addr, 0);
	assert_int_equal(f->flags, FRAME_INLINED);
	check_profile_set(ps);
	profile_set_free(ps);

	/* With -F +srcline perf says "(inlined)" after the line, not the module. */
	ps = parse("t 1 4.000000: 1 cycles: \n"
		   "\t            12e6 mix+0x16\n"
		   "  inl.c:14 (inlined)\n"
		   "\t            12e6 cmp+0x16 (/bin/t)\n"
		   "  inl.c:21\n"
		   "\t           27304 __libc_start_main_impl+0x84\n"
		   "  libc-start.c:360 (inlined)\n"
		   "\t            1200 _start+0x20 (/bin/t)\n"
		   "  start.S:115\n\n");
	p = prof(ps, "cycles");
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)),
			    "_start;__libc_start_main_impl;cmp;mix");
	f = leaf(ps, p, 0);
	assert_int_equal(f->flags, FRAME_INLINED | FRAME_HAS_LINE);
	assert_string_equal(ps_get(ps, f->file), "inl.c");
	assert_int_equal(f->line, 14);
	f = frame_at(ps, p, 0, 1);
	assert_int_equal(f->flags, FRAME_HAS_LINE);
	assert_string_equal(ps_get(ps, f->file), "libc-start.c");
	assert_int_equal(f->line, 360);
	check_profile_set(ps);
	profile_set_free(ps);

	/* collapse reads every line as stackcollapse-perf.pl does. */
	opts.symbols = SYMBOLS_OFF;
	opts.collapse_compat = true;
	ps = parse_opts(inline_chains_text, &opts);
	p = prof(ps, "cycles");
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "main;f;g;f;g;g");
	assert_int_equal(frame_at(ps, p, 1, 1)->flags, FRAME_INLINED);
	assert_string_equal(stack_of(ps, p, 2, buf, sizeof(buf)), "main;memcpy;__GI_memcpy");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_deleted(void **state)
{
	struct profile_set *ps = parse(
		"firefox 2101/2150 [003] 5201.102030:     400000 cycles: \n"
		"\t    7f20c4a1b2c3 js::RunScript+0x123 (/usr/lib/firefox/libxul.so (deleted))\n"
		"\t    7f20c3f00f00 main+0x300 (/usr/lib/firefox/firefox)\n\n");
	struct profile *p = prof(ps, "cycles");

	(void)state;
	assert_string_equal(ps_get(ps, leaf(ps, p, 0)->name), "js::RunScript");
	assert_string_equal(ps_get(ps, leaf(ps, p, 0)->module),
			    "/usr/lib/firefox/libxul.so (deleted)");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_module_flags(void **state)
{
	static const struct {
		const char *module;
		uint32_t flags;
	} cases[] = {
		{ "[kernel.kallsyms]", FRAME_KERNEL },
		{ "[kernel.vmlinux]", FRAME_KERNEL },
		{ "[nf_conntrack]", FRAME_KERNEL },
		{ "/boot/vmlinux", FRAME_KERNEL },
		{ "/lib/modules/6.1/kernel/fs/xfs/xfs.ko", FRAME_KERNEL },
		{ "[unknown]", 0 },
		{ "[vdso]", 0 },
		{ "[vsyscall]", 0 },
		{ "[heap]", 0 },
		{ "[stack]", 0 },
		{ "[anon:libc_malloc]", 0 },
		{ "/tmp/perf-123.map", FRAME_JIT },
		{ "/tmp/perf-.map", 0 },
		{ "/tmp/perf-12a.map", 0 },
		{ "/root/.debug/jit/java-jit-20240101.XX/jitted-5150-12.so", FRAME_JIT },
		{ "/tmp/jitted-5150-x.so", 0 },
		{ "/usr/lib/libc.so.6", 0 },
		{ "", 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		struct profile_set *ps;
		struct profile *p;

		strbuf_addf(&sb, "a 1 1.0: 1 cycles:\n\t 1234 f+0x1 (%s)\n", cases[i].module);
		ps = parse(sb.buf);
		p = prof(ps, "cycles");
		if (leaf(ps, p, 0)->flags != cases[i].flags)
			fail_msg("module \"%s\": flags %u, want %u", cases[i].module,
				 leaf(ps, p, 0)->flags, cases[i].flags);
		assert_string_equal(ps_get(ps, leaf(ps, p, 0)->module), cases[i].module);
		check_profile_set(ps);
		profile_set_free(ps);
		strbuf_release(&sb);
	}
}

static void
test_srcline(void **state)
{
	struct profile_set *ps = parse(
		"demo 11193   978.964349:    1001001 cpu-clock:pppH: \n"
		"\t            11c6 spin+0x1d (/tmp/demo/demo)\n"
		"  /src/demo.c:40\n"
		"\t            11c8 spin+0x1f (/tmp/demo/demo)\n"
		"  /src/demo.c:41\n"
		"\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n"
		"  libc.so.6[2724a]\n"
		"\tffffffff814f9302 clear_page_erms+0x12 ([kernel.kallsyms])\n"
		"  [kernel.kallsyms][ffffffff814f9302]\n"
		"\t            13fe main+0x51 (/tmp/demo/demo)\n"
		"  ??:0\n"
		"\t            13ff nosrc+0x1 (/tmp/demo/demo)\n"
		"  c:\\src\\x.c:99999999999\n"
		"\n");
	struct profile *p = prof(ps, "cpu-clock:pppH");
	const struct frame *f;

	(void)state;
	assert_int_equal(ps_stack(ps, p->stack[0])->depth, 6);
	f = frame_at(ps, p, 0, 5);
	assert_string_equal(ps_get(ps, f->name), "spin");
	assert_string_equal(ps_get(ps, f->file), "/src/demo.c");
	assert_int_equal(f->line, 40);
	assert_true(f->flags & FRAME_HAS_LINE);
	/* The same function at another line is another frame. */
	f = frame_at(ps, p, 0, 4);
	assert_string_equal(ps_get(ps, f->name), "spin");
	assert_int_equal(f->line, 41);
	assert_true(frame_at(ps, p, 0, 4) != frame_at(ps, p, 0, 5));
	f = frame_at(ps, p, 0, 3);
	assert_string_equal(ps_get(ps, f->file), "libc.so.6[2724a]");
	assert_false(f->flags & FRAME_HAS_LINE);
	f = frame_at(ps, p, 0, 2);
	assert_string_equal(ps_get(ps, f->file), "[kernel.kallsyms][ffffffff814f9302]");
	assert_int_equal(f->flags, FRAME_KERNEL);
	f = frame_at(ps, p, 0, 1);
	assert_string_equal(ps_get(ps, f->file), "??");
	assert_int_equal(f->line, 0);
	assert_true(f->flags & FRAME_HAS_LINE);
	/* A line number that overflows leaves the text whole. */
	f = frame_at(ps, p, 0, 0);
	assert_string_equal(ps_get(ps, f->file), "c:\\src\\x.c:99999999999");
	assert_false(f->flags & FRAME_HAS_LINE);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_keep_unknown_addrs(void **state)
{
	const char *text =
		"perf  5790 [000]   178.584133:          1   cycles: \n"
		"\t          147bc2 [unknown] (/usr/bin/perf)\n"
		"\t           9f189 [unknown] (/usr/bin/perf)\n"
		"\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n\n";
	struct import_options opts = { 0 };
	struct profile_set *ps = parse(text);
	struct profile *p = prof(ps, "cycles");

	(void)state;
	/* Without the option the two unknown frames are one frame. */
	assert_true(frame_at(ps, p, 0, 1) == frame_at(ps, p, 0, 2));
	assert_int_equal(frame_at(ps, p, 0, 2)->addr, 0);
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 2)->name), "[perf]");
	assert_int_equal(ps->nr_frames, 2);
	check_profile_set(ps);
	profile_set_free(ps);

	/* The address is in the name, so that the frames read apart. */
	opts.keep_unknown_addrs = true;
	ps = parse_opts(text, &opts);
	p = prof(ps, "cycles");
	assert_int_equal(ps->nr_frames, 3);
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 2)->name), "[perf+0x147bc2]");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 1)->name), "[perf+0x9f189]");
	assert_int_equal(frame_at(ps, p, 0, 1)->flags, FRAME_UNNAMED);
	assert_int_equal(frame_at(ps, p, 0, 1)->addr, 0);
	check_profile_set(ps);
	profile_set_free(ps);

	/* collapse --addrs prints it from the frame's address. */
	opts.collapse_compat = true;
	ps = parse_opts(text, &opts);
	p = prof(ps, "cycles");
	assert_int_equal(ps->nr_frames, 3);
	assert_int_equal(frame_at(ps, p, 0, 2)->addr, 0x147bc2);
	assert_int_equal(frame_at(ps, p, 0, 1)->addr, 0x9f189);
	/* Named frames never carry an address. */
	assert_int_equal(frame_at(ps, p, 0, 0)->addr, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* The name, flags and address of the leaf of sample i. */
static void
assert_leaf(const struct profile_set *ps, const struct profile *p, size_t i,
	    const char *name, uint32_t flags, uint64_t addr)
{
	const struct frame *f = leaf(ps, p, i);

	assert_string_equal(ps_get(ps, f->name), name);
	assert_int_equal(f->flags, flags);
	assert_int_equal(f->addr, addr);
}

/* tests/data/symbols/NAME (make check sets top_srcdir); free() it. */
static char *
symbols_data(const char *name)
{
	return test_data_path("symbols", name);
}

static void
test_unnamed_frames(void **state)
{
	const char *text =
		"xz 10 [000] 1.0: 1 cycles:\n\t 7f01 [unknown] (/usr/lib/liblzma.so.5.4.1)\n\n"
		"xz 10 [000] 1.1: 1 cycles:\n\t 7f02 [unknown] (/usr/lib/liblzma.so.5.4.1)\n\n"
		"ls 11 [001] 1.2: 1 cycles:\n\t 7f03 [unknown] (/usr/lib/libc.so.6)\n\n"
		/* no symbol at all: unnamed too */
		"ls 11 [001] 1.3: 1 cycles:\n\t 7f04 (/usr/lib/libc.so.6)\n\n"
		/* bracketed modules are not bracketed twice */
		"ls 11 [001] 1.4: 1 cycles:\n\tffffffff81000001 [unknown] ([kernel.kallsyms])\n\n"
		"ls 11 [001] 1.5: 1 cycles:\n\t 7ffd01 [unknown] ([vdso])\n\n"
		/* no module perf knew: nothing to name it by */
		"ls 11 [001] 1.6: 1 cycles:\n\t 5a5a [unknown] ([unknown])\n\n"
		"ls 11 [001] 1.7: 1 cycles:\n\t 5a5b [unknown]\n\n"
		/* a module with blanks, and a directory with no base name */
		"ls 11 [001] 1.8: 1 cycles:\n\t 7f05 [unknown] (/opt/a b/x.so (deleted))\n\n"
		"ls 11 [001] 1.9: 1 cycles:\n\t 7f06 [unknown] (/opt/)\n\n"
		/* a function perf named "[libc.so.6]" is not an unnamed frame */
		"ls 11 [001] 2.0: 1 cycles:\n\t 7f07 [libc.so.6]+0x3 (/usr/lib/libc.so.6)\n\n";
	struct import_options opts = { 0 };
	struct profile_set *ps;
	struct profile *p;

	(void)state;
	/* The address goes in the name, not in the frame (but for collapse). */
	for (int addrs = 0; addrs < 2; addrs++) {
		opts.keep_unknown_addrs = addrs;
		ps = parse_opts(text, &opts);
		p = prof(ps, "cycles");
		assert_int_equal(p->nr_samples, 11);
		assert_leaf(ps, p, 0, addrs ? "[liblzma.so.5.4.1+0x7f01]" : "[liblzma.so.5.4.1]",
			    FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 1, addrs ? "[liblzma.so.5.4.1+0x7f02]" : "[liblzma.so.5.4.1]",
			    FRAME_UNNAMED, 0);
		assert_int_equal(leaf(ps, p, 0) == leaf(ps, p, 1), !addrs);
		assert_leaf(ps, p, 2, addrs ? "[libc.so.6+0x7f03]" : "[libc.so.6]",
			    FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 3, addrs ? "[libc.so.6+0x7f04]" : "[libc.so.6]",
			    FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 4,
			    addrs ? "[kernel.kallsyms+0xffffffff81000001]" : "[kernel.kallsyms]",
			    FRAME_UNNAMED | FRAME_KERNEL, 0);
		assert_string_equal(ps_get(ps, leaf(ps, p, 4)->module), "[kernel.kallsyms]");
		assert_leaf(ps, p, 5, addrs ? "[vdso+0x7ffd01]" : "[vdso]", FRAME_UNNAMED, 0);
		/* An address of no module names nothing. */
		assert_leaf(ps, p, 6, "[unknown]", FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 7, "[unknown]", FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 8, addrs ? "[x.so (deleted)+0x7f05]" : "[x.so (deleted)]",
			    FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 9, addrs ? "[/opt/+0x7f06]" : "[/opt/]", FRAME_UNNAMED, 0);
		assert_leaf(ps, p, 10, "[libc.so.6]", 0, 0);
		assert_true(leaf(ps, p, 10) != leaf(ps, p, 2));
		check_profile_set(ps);
		profile_set_free(ps);
	}

	/* collapse --addrs keeps the address of every unnamed frame. */
	opts.keep_unknown_addrs = true;
	opts.collapse_compat = true;
	ps = parse_opts(text, &opts);
	p = prof(ps, "cycles");
	assert_leaf(ps, p, 0, "[liblzma.so.5.4.1+0x7f01]", FRAME_UNNAMED, 0x7f01);
	assert_leaf(ps, p, 4, "[kernel.kallsyms+0xffffffff81000001]",
		    FRAME_UNNAMED | FRAME_KERNEL, 0xffffffff81000001);
	assert_leaf(ps, p, 6, "[unknown]", FRAME_UNNAMED, 0x5a5a);
	assert_leaf(ps, p, 7, "[unknown]", FRAME_UNNAMED, 0x5a5b);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_unnamed_srcline_and_symbols(void **state)
{
	/*
	 * A srcline line after an unnamed frame keeps the frame's name, with
	 * its address under --addrs; SYMBOLS_RESOLVE keeps the address of an
	 * unnamed frame of a readable module for the symbolizer, and its
	 * name stays the module's.
	 */
	const char *text =
		"sh 10 [000] 1.0: 1 cycles:\n"
		"\t 7f01 [unknown] (/bin/sh)\n"
		"  ??:0\n"
		"\t 7f02 [unknown] (/bin/sh)\n\n";
	struct import_options opts = { .keep_unknown_addrs = true };
	struct profile_set *ps = parse_opts(text, &opts);
	struct profile *p = prof(ps, "cycles");
	const struct frame *f;

	(void)state;
	f = frame_at(ps, p, 0, 1);
	assert_string_equal(ps_get(ps, f->name), "[sh+0x7f01]");
	assert_string_equal(ps_get(ps, f->file), "??");
	assert_int_equal(f->flags, FRAME_UNNAMED | FRAME_HAS_LINE);
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 0)->name), "[sh+0x7f02]");
	check_profile_set(ps);
	profile_set_free(ps);

	if (access("/bin/sh", R_OK))
		skip();
	opts.symbols = SYMBOLS_RESOLVE;
	ps = parse_opts(text, &opts);
	p = prof(ps, "cycles");
	/* The caller's address is a return address, for the symbolizer. */
	f = frame_at(ps, p, 0, 0);
	assert_string_equal(ps_get(ps, f->name), "[sh+0x7f02]");
	assert_int_equal(f->addr, 0x7f02);
	assert_int_equal(f->flags, FRAME_UNNAMED | FRAME_RETADDR);
	f = frame_at(ps, p, 0, 1);
	assert_string_equal(ps_get(ps, f->name), "[sh+0x7f01]");
	assert_int_equal(f->addr, 0);
	check_profile_set(ps);
	profile_set_free(ps);

	opts.keep_unknown_addrs = false;
	ps = parse_opts(text, &opts);
	p = prof(ps, "cycles");
	f = frame_at(ps, p, 0, 0);
	assert_string_equal(ps_get(ps, f->name), "[sh]");
	assert_int_equal(f->addr, 0x7f02);
	assert_int_equal(f->flags, FRAME_UNNAMED | FRAME_RETADDR);
	/* A srcline line says perf placed it: no address left to resolve. */
	f = frame_at(ps, p, 0, 1);
	assert_string_equal(ps_get(ps, f->name), "[sh]");
	assert_int_equal(f->addr, 0);
	assert_int_equal(f->flags, FRAME_UNNAMED | FRAME_HAS_LINE);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * A frame line that keeps its address for the symbolizer reuses the frame
 * its text made before (perf.c's line cache): that frame must be the one
 * of this line's address and place, never of another line's.
 */
static void
test_addr_frame_memo(void **state)
{
	struct import_options opts = { .symbols = SYMBOLS_RESOLVE };
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	struct profile *p;
	const struct frame *f;
	/* named frames keep addresses in a module with a .symtab */
	char *m = symbols_data("tiny");
	/* Enough pairs that some consecutive lines share a cache entry. */
	enum { PAIRS = 20000 };

	(void)state;
	/* 0: first user frame; 1: the same line as a caller; 2: again, first */
	strbuf_addf(&sb, "sh 10 [000] 1.0: 1 cycles:\n\t 7f10 main+0x10 (%s)\n\n"
			 "sh 10 [000] 1.1: 1 cycles:\n\t 7f20 leaf+0x1 (%s)\n"
			 "\t 7f10 main+0x10 (%s)\n\n"
			 "sh 10 [000] 1.2: 1 cycles:\n\t 7f10 main+0x10 (%s)\n\n"
			 /* 3: the same text at another address; 4: back */
			 "sh 10 [000] 1.3: 1 cycles:\n\t 7f30 main+0x10 (%s)\n\n"
			 "sh 10 [000] 1.4: 1 cycles:\n\t 7f10 main+0x10 (%s)\n\n"
			 /* 5: with a srcline: perf placed it, no address to keep */
			 "sh 10 [000] 1.5: 1 cycles:\n\t 7f10 main+0x10 (%s)\n"
			 "  main.c:7\n\n", m, m, m, m, m, m, m);
	/*
	 * Then pairs of lines at one address under different names, and each
	 * pair's second line again on its own: where the second line took the
	 * first one's cache entry, the first one's frame must not be noted
	 * under it.
	 */
	for (int i = 0; i < PAIRS; i++)
		strbuf_addf(&sb,
			    "sh 10 [000] 2.0: 1 cycles:\n\t 7f40 f%d+0x4 (%s)\n"
			    "\t 7f40 g%d+0x4 (%s)\n\n"
			    "sh 10 [000] 2.0: 1 cycles:\n\t 7f40 g%d+0x4 (%s)\n\n",
			    i, m, i, m, i, m);
	ps = parse_opts(sb.buf, &opts);
	p = prof(ps, "cycles");
	assert_int_equal(p->nr_samples, 6 + 2 * PAIRS);
	assert_leaf(ps, p, 0, "main", 0, 0x7f10);
	f = frame_at(ps, p, 1, 0);
	assert_string_equal(ps_get(ps, f->name), "main");
	assert_int_equal(f->addr, 0x7f10);
	assert_int_equal(f->flags, FRAME_RETADDR);
	assert_leaf(ps, p, 1, "leaf", 0, 0x7f20);
	assert_true(leaf(ps, p, 2) == leaf(ps, p, 0));
	assert_leaf(ps, p, 3, "main", 0, 0x7f30);
	assert_true(leaf(ps, p, 4) == leaf(ps, p, 0));
	assert_leaf(ps, p, 5, "main", FRAME_HAS_LINE, 0);
	assert_string_equal(ps_get(ps, leaf(ps, p, 5)->file), "main.c");
	for (int i = 0; i < PAIRS; i++) {
		char want[16];
		size_t k = 6 + 2 * (size_t)i;

		snprintf(want, sizeof(want), "g%d", i);
		f = frame_at(ps, p, k, 0);
		assert_string_equal(ps_get(ps, f->name), want);
		assert_int_equal(f->flags, FRAME_RETADDR);
		assert_leaf(ps, p, k + 1, want, 0, 0x7f40);
		snprintf(want, sizeof(want), "f%d", i);
		assert_leaf(ps, p, k, want, 0, 0x7f40);
	}
	profile_set_free(ps);
	strbuf_release(&sb);
	free(m);
}

/*
 * A text too long for the line cache's key, at two addresses in turns,
 * between frames of a module that cannot be read: each line's frame is
 * its own address's (perf.c's amap), and only the readable module's
 * frames keep addresses, however the modules alternate.
 */
static void
test_long_line_addrs(void **state)
{
	struct import_options opts = { .symbols = SYMBOLS_RESOLVE };
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	struct profile_set *ps;
	struct profile *p;
	char *m = symbols_data("tiny");
	enum { ROUNDS = 40 };

	(void)state;
	while (name.len < 200)
		strbuf_addstr(&name, "long_function_name_");
	for (int i = 0; i < ROUNDS; i++)
		strbuf_addf(&sb,
			    "sh 10 [000] 1.0: 1 cycles:\n\t %x %s+0x1 (%s)\n"
			    "\t 99 lost+0x2 (/nonexistent/lib.so)\n\n",
			    i % 2 ? 0x7f60 : 0x7f50, name.buf, m);
	ps = parse_opts(sb.buf, &opts);
	p = prof(ps, "cycles");
	assert_int_equal(p->nr_samples, ROUNDS);
	for (size_t k = 0; k < ROUNDS; k++) {
		const struct frame *f = frame_at(ps, p, k, 0);

		assert_leaf(ps, p, k, name.buf, 0, k % 2 ? 0x7f60 : 0x7f50);
		assert_string_equal(ps_get(ps, f->name), "lost");
		assert_int_equal(f->addr, 0);
		if (k >= 2)
			assert_true(p->stack[k] == p->stack[k - 2]);
	}
	assert_true(p->stack[0] != p->stack[1]);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&name);
	free(m);
}

/*
 * An unnamed frame on a sample's header line keeps no address for the
 * symbolizer (it is the IP as the process saw it), only in its --addrs
 * name; the same line at the same address as a callchain's leaf keeps
 * it. Whichever comes first, neither takes the other's frame from
 * perf.c's address map.
 */
static void
test_header_frame_addr(void **state)
{
	struct import_options opts = { .symbols = SYMBOLS_RESOLVE, .keep_unknown_addrs = true };
	struct strbuf sb = STRBUF_INIT;
	char *m = test_data_path("symbols", "tiny");

	(void)state;
	for (int chain_first = 0; chain_first < 2; chain_first++) {
		struct profile_set *ps;
		struct profile *p;
		size_t head = chain_first ? 1 : 0, chain = chain_first ? 0 : 1;

		strbuf_reset(&sb);
		for (int i = 0; i < 2; i++) {
			if ((i == 0) == !chain_first)
				strbuf_addf(&sb, "t 10 [000] 1.0: 1 cycles:  7f10 [unknown] (%s)\n\n",
					    m);
			else
				strbuf_addf(&sb, "t 10 [000] 1.0: 1 cycles:\n\t 7f10 [unknown] (%s)\n\n",
					    m);
		}
		ps = parse_opts(sb.buf, &opts);
		p = prof(ps, "cycles");
		assert_int_equal(p->nr_samples, 2);
		assert_leaf(ps, p, head, "[tiny+0x7f10]", FRAME_UNNAMED, 0);
		assert_leaf(ps, p, chain, "[tiny+0x7f10]", FRAME_UNNAMED, 0x7f10);
		check_profile_set(ps);
		profile_set_free(ps);
	}
	strbuf_release(&sb);
	free(m);
}

/*
 * In a module with nothing beyond .dynsym (tests/data/symbols/stripped),
 * perf's names are final (symbols_beyond_dynsym()): the frames perf named
 * keep no address, those it left unnamed keep theirs. In the same file
 * with a .symtab (tiny), both keep them.
 */
static void
test_dynsym_only_addrs(void **state)
{
	struct import_options opts = { .symbols = SYMBOLS_RESOLVE };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (int symtab = 0; symtab < 2; symtab++) {
		char *m = symbols_data(symtab ? "tiny" : "stripped");
		struct profile_set *ps;
		struct profile *p;
		const struct frame *f;

		strbuf_reset(&sb);
		strbuf_addf(&sb, "t 10 [000] 1.0: 1 cycles:\n\t 1150 leaf+0x4 (%s)\n"
				 "\t 1180 [unknown] (%s)\n\t 1190 main+0x8 (%s)\n\n", m, m, m);
		ps = parse_opts(sb.buf, &opts);
		p = prof(ps, "cycles");
		assert_leaf(ps, p, 0, "leaf", 0, symtab ? 0x1150 : 0);
		f = frame_at(ps, p, 0, 1);
		assert_int_equal(f->addr, 0x1180);
		assert_int_equal(f->flags, FRAME_UNNAMED | FRAME_RETADDR);
		f = frame_at(ps, p, 0, 0);
		assert_string_equal(ps_get(ps, f->name), "main");
		assert_int_equal(f->addr, symtab ? 0x1190 : 0);
		assert_int_equal(f->flags, symtab ? FRAME_RETADDR : 0);
		check_profile_set(ps);
		profile_set_free(ps);
		free(m);
	}
	strbuf_release(&sb);
}

/* f is /bin/sh's unnamed frame at addr: named by it with --addrs (names). */
static void
check_unnamed_sh(const struct profile_set *ps, const struct frame *f, bool names,
		 uint64_t addr, uint32_t flags, struct strbuf *want)
{
	strbuf_reset(want);
	if (names)
		strbuf_addf(want, "[sh+0x%llx]", (unsigned long long)addr);
	else
		strbuf_addstr(want, "[sh]");
	assert_string_equal(ps_get(ps, f->name), want->buf);
	assert_int_equal(f->addr, addr);
	assert_int_equal(f->flags, flags);
}

/*
 * Unnamed lines keep their addresses under one line of text: their
 * frames come from a table of their own (perf.c's amap) when the line
 * cache remembers another address. Many addresses, enough that the table
 * grows, each as a leaf and as a caller (a return address), in turns and
 * then again: every frame is its line's, by address and place, named by
 * the address under --addrs, and one frame per address and place.
 */
static void
test_unnamed_addr_memo(void **state)
{
	struct import_options opts = { .symbols = SYMBOLS_RESOLVE };
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	enum { ADDRS = 3000 };

	(void)state;
	if (access("/bin/sh", R_OK))
		skip();
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < ADDRS; i++)
			strbuf_addf(&sb,
				    "sh 10 [000] 1.0: 1 cycles:\n\t %x [unknown] (/bin/sh)\n"
				    "\t %x [unknown] (/bin/sh)\n\n",
				    0x1000 + 16 * i, 0x1000 + 16 * ((i * 7 + 1) % ADDRS));
	for (int names = 0; names < 2; names++) {
		struct profile_set *ps;
		struct profile *p;

		opts.keep_unknown_addrs = names;
		ps = parse_opts(sb.buf, &opts);
		p = prof(ps, "cycles");
		assert_int_equal(p->nr_samples, 2 * ADDRS);
		for (size_t k = 0; k < 2 * ADDRS; k++) {
			unsigned i = (unsigned)(k % ADDRS);
			uint64_t at = 0x1000 + 16 * i, from = 0x1000 + 16 * ((i * 7 + 1) % ADDRS);
			check_unnamed_sh(ps, frame_at(ps, p, k, 0), names, from,
					 FRAME_UNNAMED | FRAME_RETADDR, &want);
			check_unnamed_sh(ps, leaf(ps, p, k), names, at, FRAME_UNNAMED, &want);
			if (k >= ADDRS)
				assert_true(p->stack[k] == p->stack[k - ADDRS]);
		}
		/* One frame per address and place, and the process frame. */
		assert_true(ps->nr_frames <= 2 * ADDRS + 2);
		check_profile_set(ps);
		profile_set_free(ps);
	}
	strbuf_release(&sb);
	strbuf_release(&want);
}

/* ----------------------------------------------------------------- layout */

static void
test_comments_crlf_and_last_sample(void **state)
{
	struct profile_set *ps = parse(
		"# ========\r\n"
		"# cmdline : /usr/bin/perf record -g ./demo\r\n"
		"#\r\n"
		"demo 11193   978.964349:    1001001 cpu-clock: \r\n"
		"\t            11c6 spin+0x1d (/tmp/demo/demo)\r\n"
		"\t            13fe main+0x51 (/tmp/demo/demo)\r\n"
		"\r\n"
		"# a comment between samples\r\n"
		"demo 11193   978.965383:    1001001 cpu-clock: \r\n"
		"\t            1203 fib+0x21 (/tmp/demo/demo)\r\n"
		"\t            13fe main+0x51 (/tmp/demo/demo)");
	struct profile *p = prof(ps, "cpu-clock");
	char buf[256];

	(void)state;
	assert_int_equal(p->nr_samples, 2);
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "main;spin");
	/* The last sample counts without its blank line. */
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "main;fib");
	assert_string_equal(ps_get(ps, leaf(ps, p, 1)->module), "/tmp/demo/demo");
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_header_ends_sample(void **state)
{
	/* No blank lines; whitespace-only lines count as blank. */
	struct profile_set *ps = parse(
		"a 1 1.0: 1 cycles:\n"
		"\t 10 f (/bin/a)\n"
		"a 1 2.0: 2 cycles:\n"
		"\t 11 g (/bin/a)\n"
		" \t \n"
		"a 1 3.0: 3 cycles:\n");
	struct profile *p = prof(ps, "cycles");
	char buf[64];

	(void)state;
	assert_int_equal(p->nr_samples, 3);
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "f");
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "g");
	/* An empty callchain is the empty stack. */
	assert_int_equal(p->stack[2], STACK_ROOT);
	assert_int_equal(p->weight[2], 3);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_weight_samples(void **state)
{
	struct import_options opts = { .weight = WEIGHT_SAMPLES };
	struct profile_set *ps = parse_opts(
		"a 1 1.0: 250000 cpu-clock:\n\t 10 f (/bin/a)\n\n"
		"a 1 2.0: 1000 cycles:\n\t 10 f (/bin/a)\n\n"
		"a 1 3.0: 1000 cycles:\n\t 10 f (/bin/a)\n\n", &opts);

	(void)state;
	assert_int_equal(prof(ps, "cpu-clock")->unit, UNIT_SAMPLES);
	assert_int_equal(prof(ps, "cpu-clock")->total_weight, 1);
	assert_int_equal(prof(ps, "cycles")->unit, UNIT_SAMPLES);
	assert_int_equal(prof(ps, "cycles")->total_weight, 2);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_collapse_compat(void **state)
{
	struct import_options opts = { .collapse_compat = true };
	struct profile_set *ps = parse_opts(
		/* readable: period 235 */
		"java 12688 [002] 6544038.708352: 235 cpu-clock:\n\t 10 f (/bin/a)\n\n"
		/* readable, no period: 1 */
		"java 12688/12690 6544038.708353: cpu-clock:\n\t 10 f (/bin/a)\n\n"
		/* readable, period 0: 1 */
		"java 12688 6544038.708354: 0 cpu-clock:\n\t 10 f (/bin/a)\n\n"
		/* a tracepoint with arguments: unreadable */
		"sh 12063 [000] 447.545459: sched:sched_switch: prev_comm=sh prev_pid=1\n"
		"\t 10 f (/bin/a)\n\n"
		/* no time field: unreadable */
		"func_ab 15294 cpu-clock:\n\t 10 f (/bin/a)\n\n"
		/* a tracepoint with no arguments reads */
		"sh 12063 [000] 447.545460: sched:sched_wakeup: \n\t 10 f (/bin/a)\n\n"
		/* single-line samples are always read */
		"              sh  9515   826.597760:    1001001 cpu-clock:pppH:      "
		"55eec6990e95 [unknown] (/usr/bin/dash)\n", &opts);
	struct profile *clk = prof(ps, "cpu-clock"), *none = prof(ps, "");
	struct profile *pppH = prof(ps, "cpu-clock:pppH");

	(void)state;
	assert_int_equal(ps->nr_profiles, 4);
	assert_int_equal(clk->nr_samples, 3);
	assert_int_equal(clk->weight[0], 235);
	assert_int_equal(clk->weight[1], 1);
	assert_int_equal(clk->weight[2], 1);
	assert_int_equal(none->nr_samples, 2);
	assert_int_equal(none->total_weight, 2);
	assert_int_equal(none->unit, UNIT_SAMPLES);
	/* Threads and times are read as usual. */
	assert_string_equal(ps_get(ps, thread_of(ps, none, 0)->comm), "sh");
	assert_int_equal(none->time[0], INT64_C(447545459000));
	assert_int_equal(thread_of(ps, none, 1)->tid, 15294);
	assert_int_equal(prof(ps, "sched:sched_wakeup")->nr_samples, 1);
	assert_int_equal(pppH->weight[0], 1001001);
	check_profile_set(ps);
	profile_set_free(ps);

	/* Without the flag, the same input has no "" profile. */
	opts.collapse_compat = false;
	ps = parse_opts("func_ab 15294 cpu-clock:\n\t 10 f (/bin/a)\n\n", &opts);
	assert_null(profile_set_find_profile(ps, ""));
	assert_int_equal(prof(ps, "cpu-clock")->nr_samples, 1);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_deep_stack(void **state)
{
	const int depth = 100000;
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	struct profile *p;

	(void)state;
	strbuf_addstr(&sb, "deep 1 [000] 1.0: 1 cycles:\n");
	for (int i = 0; i < depth; i++)
		strbuf_addf(&sb, "\t %x f%d+0x4 (/bin/deep)\n", 0x400000 + i, i);
	strbuf_addstr(&sb, "\ndeep 1 [000] 2.0: 1 cycles:\n\t 1 f99999+0x1 (/bin/deep)\n");
	ps = parse(sb.buf);
	p = prof(ps, "cycles");
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(ps_stack(ps, p->stack[0])->depth, depth);
	assert_string_equal(ps_get(ps, leaf(ps, p, 0)->name), "f0");
	assert_string_equal(ps_get(ps, frame_at(ps, p, 0, 0)->name), "f99999");
	/* The root of the deep stack is the whole second stack. */
	assert_int_equal(ps_stack(ps, p->stack[1])->depth, 1);
	assert_true(frame_at(ps, p, 0, 0) == leaf(ps, p, 1));
	assert_int_equal(ps->nr_frames, depth);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&sb);
}

/* ----------------------------------------------------------------- errors */

static void
test_garbage_lines(void **state)
{
	struct profile_set *ps = parse(
		"\t 10 orphan (/bin/a)\n"            /* line 1: a frame with no sample */
		"a 1 1.0: 1 cycles:\n"
		"\t 10 f (/bin/a)\n"
		"\n"
		"\tnot a frame\x01\x1b[31m\n"        /* line 5: not after a frame */
		"Warning: something odd\n"           /* line 6: no tid: not a header */
		"\t 11 g (/bin/a)\n"                 /* line 7: a frame with no sample */
		"\n"
		"a 1 2.0: 1 cycles:\n"
		"\t 12 h (/bin/a)\n");
	struct profile *p = prof(ps, "cycles");
	const char *msg;

	(void)state;
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 1);
	msg = ps->diags[0].msg;
	assert_non_null(strstr(msg, "4 lines not understood"));
	assert_non_null(strstr(msg, "orphan"));
	for (const char *c = msg; *c; c++)
		assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
	check_profile_set(ps);
	profile_set_free(ps);

	/* The excerpt escapes control bytes and names the first bad line. */
	ps = parse("a 1 1.0: 1 cycles:\n\t 10 f (/bin/a)\n\n\tx\x01y\x7f\n");
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 4);
	assert_non_null(strstr(ps->diags[0].msg, "1 line not understood, first: \\x09x\\x01y\\x7f"));
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_no_samples(void **state)
{
	static const char *const inputs[] = {
		"",
		"# only a comment\n\n",
		"\n\n \n",
		"garbage\nmore garbage\n",
		"\t 10 f (/bin/a)\n",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(inputs); i++) {
		struct import_options opts = { 0 };
		struct tf_error err = TF_ERROR_INIT;
		struct profile_set *ps = profile_set_new();

		assert_int_equal(parse_len(inputs[i], strlen(inputs[i]), &opts, ps, &err), -1);
		assert_non_null(err.msg);
		assert_non_null(strstr(err.msg, "no samples found"));
		/* Garbage is located at its first line; silence at none. */
		assert_int_equal(err.line, i >= 3 ? 1 : 0);
		check_profile_set(ps);
		profile_set_free(ps);
		tf_error_release(&err);
	}
}

static void
test_overflow(void **state)
{
	struct profile_set *ps = parse(
		/* tid */
		"a 99999999999999999999 [000] 1.0: 1 cycles:\n\n"
		/* period: past the most a sample may be split into */
		"a 1 [000] 1.0: 295147905179352825841 cycles:\n\n"
		/* time: more seconds than int64 ns can hold */
		"a 1 [000] 9223372037.0: 1 cycles:\n\n"
		/* time: finer than a ns */
		"a 1 [000] 1.0123456789: 1 cycles:\n\n"
		/* address: 17 hex digits */
		"a 1 [000] 1.0: 1 cycles:\n"
		"\t 1ffffffffffffffff f (/bin/a)\n\n"
		/* the biggest values that fit */
		"a 9223372036854775807 [000] 9223372036.854775807: "
		"18446744073709551615 big:\n"
		"\t ffffffffffffffff f (/bin/a)\n\n");
	struct profile *p = prof(ps, "cycles"), *big = prof(ps, "big");

	(void)state;
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(p->stack[0], STACK_ROOT);
	assert_int_equal(thread_of(ps, big, 0)->tid, INT64_MAX);
	assert_int_equal(big->time[0], INT64_MAX);
	assert_int_equal(big->weight[0], UINT64_MAX);
	assert_int_equal(ps_stack(ps, big->stack[0])->depth, 1);
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 1);
	assert_non_null(strstr(ps->diags[0].msg, "5 lines not understood"));
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * A total past 64 bits is summed exactly, and a period past them is
 * split into samples of its stack: 2^64 + 2^64 - 1 + 1 + 5.
 */
static void
test_total_weight_wide(void **state)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	const char *text =
		"a 1 1.0: 18446744073709551615 cycles:\n\n"
		"a 1 2.0: 1 cycles:\n\t 10 f (/bin/a)\n\n"
		"a 1 3.0: 18446744073709551621 cycles:\n\t 10 f (/bin/a)\n\n";
	struct profile *p;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(parse_len(text, strlen(text), &opts, ps, &err), 0);
	p = prof(ps, "cycles");
	assert_int_equal(p->nr_samples, 4);
	assert_int_equal(p->weight[2], UINT64_MAX);
	assert_int_equal(p->weight[3], 6);
	assert_int_equal(p->stack[2], p->stack[3]);
	assert_int_equal(p->time[2], p->time[3]);
	profile_format_weight_sum(p, p->total_weight, &sb);
	assert_string_equal(sb.buf, "36893488147419103237");
	assert_non_null(strstr(ps->diags[ps->nr_diags - 1].msg, "1 sample weight past 64 bits"));
	check_profile_set(ps);
	strbuf_release(&sb);
	profile_set_free(ps);
	tf_error_release(&err);
}

static void
test_progress_and_cancel(void **state)
{
	struct import_progress prog = { 0 };
	struct import_options opts = { .progress = &prog };
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps = profile_set_new();

	(void)state;
	for (int i = 0; i < 40000; i++)
		strbuf_addf(&sb, "a %d 1.0: 1 cycles:\n\t 10 f+0x1 (/bin/a)\n\n", i % 7);
	assert_int_equal(parse_len(sb.buf, sb.len, &opts, ps, &err), 0);
	assert_int_equal(atomic_load(&prog.bytes_done), sb.len);
	check_profile_set(ps);
	profile_set_free(ps);

	ps = profile_set_new();
	atomic_store(&prog.cancel, 1);
	assert_int_equal(parse_len(sb.buf, sb.len, &opts, ps, &err), -1);
	assert_string_equal(err.msg, "cancelled");
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
	strbuf_release(&sb);
}

/* ------------------------------------------------------------------ probe */

static void
test_probe(void **state)
{
	static const char callchain[] =
		"perf-exec  3728   159.920822:          1 cycles: \n"
		"\tffffffff81565d40 perf_ctx_unlock+0x0 ([kernel.kallsyms])\n"
		"\tffffffff8157a64a perf_event_exec+0x44a ([kernel.kallsyms])\n";
	static const char flat[] =
		"              sh  9515   826.597760:    1001001 cpu-clock:pppH:      "
		"55eec6990e95 [unknown] (/usr/bin/dash)\n"
		"              sh  9515   826.598759:    1001001 cpu-clock:pppH:      "
		"55eec6986350 malloc@plt+0x0 (/usr/bin/dash)\n"
		"              sh  9515   826.601776:    1001001 cpu-clock:pppH:      "
		"7f95c99600ce __strpbrk_sse42+0xbe (/usr/lib/libc.so.6)\n";
	static const char header_comments[] =
		"# ========\n# captured on: Wed Aug 15 16:01:24 2018\n# ========\n#\n";
	static const char folded[] = "main;foo;bar 12\nmain;baz 3\n";
	static const char json[] =
		"{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\"}\n";
	static const char binary[] = "a 1 1.0: 1 cycles:\n\t 10 f (/bin/a)\n\0\0";
	/* perf 3.x: no time in the header, no indent before the frames */
	static const char old_perf[] =
		"\njava 19983 cycles:\n"
		"ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
		"7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/opt/jdk/libjvm.so)\n"
		"7f72432b4e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.15.so)\n\n";

	(void)state;
	assert_true(importer_perf.probe(callchain, strlen(callchain)) >= 95);
	/* Cut anywhere after the first frame line, it is still sure. */
	assert_true(importer_perf.probe(callchain, strlen(callchain) - 7) >= 95);
	assert_true(importer_perf.probe(flat, strlen(flat)) >= 80);
	assert_true(importer_perf.probe(flat, strlen(flat)) < 95);
	assert_true(importer_perf.probe(header_comments, strlen(header_comments)) > 0);
	assert_true(importer_perf.probe(header_comments, strlen(header_comments)) < 50);
	assert_int_equal(importer_perf.probe(folded, strlen(folded)), 0);
	assert_int_equal(importer_perf.probe(json, strlen(json)), 0);
	assert_int_equal(importer_perf.probe(binary, sizeof(binary) - 1), 0);
	assert_int_equal(importer_perf.probe("", 0), 0);
	assert_true(importer_perf.probe(old_perf, strlen(old_perf)) >= 95);
	assert_string_equal(importer_perf.name, "perf");
	assert_string_equal(importer_perf.description, "perf script");
}

/* -------------------------------------------------------------- processes */

/* Whether some frame of ps is a process frame. */
static bool
has_process_frames(const struct profile_set *ps)
{
	for (uint32_t i = 0; i < ps->nr_frames; i++)
		if (ps->frames[i].flags & FRAME_PROCESS)
			return true;
	return false;
}

/*
 * Every sample of ps starts with a process frame named after its
 * thread's comm (or name when given), and nothing else is one.
 */
static void
assert_process_roots(const struct profile_set *ps, const char *name)
{
	for (size_t pi = 0; pi < ps->nr_profiles; pi++) {
		const struct profile *p = ps->profiles[pi];

		for (size_t i = 0; i < p->nr_samples; i++) {
			const struct frame *f = frame_at(ps, p, i, 0);
			stack_id s = p->stack[i];

			assert_int_equal(f->flags, FRAME_PROCESS);
			assert_int_equal(f->module, STR_EMPTY);
			assert_int_equal(f->addr, 0);
			assert_string_equal(ps_get(ps, f->name),
					    name ? name : ps_get(ps, thread_of(ps, p, i)->comm));
			for (; ps_stack(ps, s)->depth > 1; s = ps_stack(ps, s)->parent)
				assert_false(ps_frame(ps, ps_stack(ps, s)->frame)->flags &
					     FRAME_PROCESS);
		}
	}
	assert_true(test_stacks_all_used(ps));
}

static void
test_one_process_no_roots(void **state)
{
	/* Threads of one pid, with comms of their own, over two events. */
	struct profile_set *ps = parse(
		"app 100/100 [000] 1.0: 5 cycles:\n"
		"\t1 f+0x1 (/bin/app)\n\t2 main+0x2 (/bin/app)\n\n"
		"worker 100/101 [001] 1.1: 5 cycles:\n"
		"\t1 f+0x1 (/bin/app)\n\t2 main+0x2 (/bin/app)\n\n"
		"worker 100/101 [001] 1.2: sched:sched_switch: prev_comm=worker\n"
		"\t3 __schedule+0x1 ([kernel.kallsyms])\n\n");
	char buf[256];

	(void)state;
	assert_false(has_process_frames(ps));
	assert_string_equal(stack_of(ps, prof(ps, "cycles"), 1, buf, sizeof(buf)), "main;f");
	assert_string_equal(stack_of(ps, prof(ps, "sched:sched_switch"), 0, buf, sizeof(buf)),
			    "__schedule");
	profile_set_free(ps);

	/* No pids: one comm over several tids is one process. */
	ps = parse("app 100 [000] 1.0: 5 cycles:\n\t1 f+0x1 (/bin/app)\n\n"
		   "app 101 [001] 1.1: 5 cycles:\n\t1 f+0x1 (/bin/app)\n\n");
	assert_false(has_process_frames(ps));
	assert_int_equal(ps->nr_stacks, 2);
	profile_set_free(ps);
}

static void
test_processes_get_roots(void **state)
{
	/*
	 * No pids: the comms tell processes apart. python3 comes only in
	 * the second event, after samples of xz in both: all of them get
	 * their process, the first ones too.
	 */
	struct profile_set *ps = parse(
		"xz 10 [000] 1.0: 5 cycles:\n"
		"\t1 lzma_mf+0x1 (/lib/liblzma.so.5)\n\t2 [unknown] ([unknown])\n\n"
		"xz 11 [000] 1.1: 5 cycles:\n"
		"\t1 lzma_mf+0x1 (/lib/liblzma.so.5)\n\t2 [unknown] ([unknown])\n\n"
		"xz 10 [000] 1.2: sched:sched_switch: prev_comm=xz\n"
		"\t3 __schedule+0x1 ([kernel.kallsyms])\n\n"
		"python3 20 [001] 1.3: sched:sched_switch: prev_comm=python3\n"
		"\t3 __schedule+0x1 ([kernel.kallsyms])\n"
		"\t4 _PyEval_EvalFrameDefault+0x2 (/usr/bin/python3.11)\n\n"
		"python3 20 [001] 1.4: 7 cycles:\n\n"
		"xz 10 [000] 1.5: 5 cycles:\n"
		"\t1 lzma_mf+0x1 (/lib/liblzma.so.5)\n\t2 [unknown] ([unknown])\n\n");
	struct profile *c = prof(ps, "cycles"), *sw = prof(ps, "sched:sched_switch");
	char buf[256];

	(void)state;
	assert_int_equal(c->nr_samples, 4);
	assert_string_equal(stack_of(ps, c, 0, buf, sizeof(buf)), "xz;[unknown];lzma_mf");
	/* Two threads of xz, before and after python3: one stack. */
	assert_int_equal(c->stack[1], c->stack[0]);
	assert_int_equal(c->stack[3], c->stack[0]);
	/* A sample without frames has its process. */
	assert_string_equal(stack_of(ps, c, 2, buf, sizeof(buf)), "python3");
	assert_int_equal(leaf(ps, c, 2)->flags, FRAME_PROCESS);
	assert_string_equal(stack_of(ps, sw, 0, buf, sizeof(buf)), "xz;__schedule");
	assert_string_equal(stack_of(ps, sw, 1, buf, sizeof(buf)),
			    "python3;_PyEval_EvalFrameDefault;__schedule");
	assert_process_roots(ps, NULL);
	check_profile_set(ps);
	profile_set_free(ps);

	/* With pids: the pids do, whatever the comms. */
	ps = parse("sh 7/7 [000] 1.0: 1 cycles:\n\t1 f+0x1 (/bin/sh)\n\n"
		   "sh 8/8 [000] 1.1: 1 cycles:\n\t1 f+0x1 (/bin/sh)\n\n");
	assert_process_roots(ps, "sh");
	assert_int_equal(prof(ps, "cycles")->stack[0], prof(ps, "cycles")->stack[1]);
	profile_set_free(ps);
}

/*
 * perf names a thread it saw no comm for ":TID": its process frame says
 * "[pid N]" when the header gives the pid, "[unknown process]" if not.
 */
static void
test_process_without_comm(void **state)
{
	struct profile_set *ps = parse(
		":4321 4321/4321 [000] 1.0: 1 cycles:\n\t1 f+0x1 (/bin/a)\n\n"
		"b 5/5 [000] 1.1: 1 cycles:\n\t1 f+0x1 (/bin/a)\n\n"
		":x 6/6 [000] 1.2: 1 cycles:\n\t1 f+0x1 (/bin/a)\n\n");
	struct profile *p = prof(ps, "cycles");
	char buf[256];

	(void)state;
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "[pid 4321];f");
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "b;f");
	/* Not perf's placeholder: a comm like any other. */
	assert_string_equal(stack_of(ps, p, 2, buf, sizeof(buf)), ":x;f");
	assert_int_equal(frame_at(ps, p, 0, 0)->flags, FRAME_PROCESS);
	profile_set_free(ps);

	ps = parse(":77 77 [000] 1.0: 1 cycles:\n\t1 f+0x1 (/bin/a)\n\n"
		   "c 8 [000] 1.1: 1 cycles:\n\t1 f+0x1 (/bin/a)\n\n");
	p = prof(ps, "cycles");
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "[unknown process];f");
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "c;f");
	profile_set_free(ps);
}

/*
 * collapse gets the process roots too, so that a transform's call path
 * (xz;f) means in collapse what it means in report and the explorer;
 * it writes each root once, as the comm it names itself.
 */
static void
test_collapse_process_roots(void **state)
{
	struct import_options opts = { .collapse_compat = true };
	struct profile_set *ps = parse_opts(
		"xz 10 [000] 1.0: 5 cycles:\n\t1 f+0x1 (/bin/xz)\n\n"
		"ls 20 [000] 1.1: 5 cycles:\n\t1 g+0x1 (/bin/ls)\n\n", &opts);
	const struct profile *p = prof(ps, "cycles");
	char buf[64];

	(void)state;
	assert_true(has_process_frames(ps));
	assert_string_equal(stack_of(ps, p, 0, buf, sizeof(buf)), "xz;f");
	assert_string_equal(stack_of(ps, p, 1, buf, sizeof(buf)), "ls;g");
	profile_set_free(ps);
}

/* ------------------------------------------------------ files and threads */

/* Whether a and b hold the same samples, frames and threads, as text. */
static void
assert_same_sets(const struct profile_set *a, const struct profile_set *b)
{
	assert_int_equal(a->nr_profiles, b->nr_profiles);
	assert_int_equal(a->nr_frames, b->nr_frames);
	assert_int_equal(a->nr_stacks, b->nr_stacks);
	assert_int_equal(a->nr_threads, b->nr_threads);
	for (size_t pi = 0; pi < a->nr_profiles; pi++) {
		const struct profile *pa = a->profiles[pi], *pb = b->profiles[pi];

		assert_string_equal(ps_get(a, pa->name), ps_get(b, pb->name));
		assert_int_equal(pa->unit, pb->unit);
		assert_int_equal(pa->nr_samples, pb->nr_samples);
		assert_int_equal(pa->total_weight, pb->total_weight);
		assert_int_equal(pa->time_min, pb->time_min);
		assert_int_equal(pa->time_max, pb->time_max);
		for (size_t i = 0; i < pa->nr_samples; i++) {
			const struct thread *ta = &a->threads[pa->thread[i]];
			const struct thread *tb = &b->threads[pb->thread[i]];
			stack_id sa = pa->stack[i], sb = pb->stack[i];

			assert_int_equal(pa->weight[i], pb->weight[i]);
			assert_int_equal(pa->time[i], pb->time[i]);
			assert_int_equal(ta->pid, tb->pid);
			assert_int_equal(ta->tid, tb->tid);
			assert_string_equal(ps_get(a, ta->comm), ps_get(b, tb->comm));
			assert_int_equal(a->stacks[sa].depth, b->stacks[sb].depth);
			while (sa != STACK_ROOT) {
				const struct frame *fa = ps_frame(a, a->stacks[sa].frame);
				const struct frame *fb = ps_frame(b, b->stacks[sb].frame);

				assert_string_equal(ps_get(a, fa->name), ps_get(b, fb->name));
				assert_string_equal(ps_get(a, fa->module), ps_get(b, fb->module));
				assert_string_equal(ps_get(a, fa->file), ps_get(b, fb->file));
				assert_int_equal(fa->line, fb->line);
				assert_int_equal(fa->flags, fb->flags);
				assert_int_equal(fa->addr, fb->addr);
				sa = a->stacks[sa].parent;
				sb = b->stacks[sb].parent;
			}
		}
	}
	assert_int_equal(a->nr_diags, b->nr_diags);
	for (size_t i = 0; i < a->nr_diags; i++) {
		assert_int_equal(a->diags[i].line, b->diags[i].line);
		assert_string_equal(a->diags[i].msg, b->diags[i].msg);
	}
}

/*
 * Load path with threads parser threads, in ranges of range_bytes (0 for
 * the default: one a thread for the files here).
 */
static struct profile_set *
load_file_ranges(const char *path, int threads, bool keep_addrs, uint64_t range_bytes)
{
	struct import_options opts = { .threads = threads, .keep_unknown_addrs = keep_addrs,
				       .range_bytes = range_bytes };
	struct import_progress prog = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct input in;

	opts.progress = &prog;
	if (input_open(&in, path, &err))
		fail_msg("input_open: %s", tf_error_text(&err));
	if (importer_perf.load(&in, &opts, ps, &err))
		fail_msg("load %s with %d threads: %s", path, threads, tf_error_text(&err));
	assert_int_equal(atomic_load(&prog.bytes_done), in.size);
	input_close(&in);
	tf_error_release(&err);
	check_profile_set(ps);
	return ps;
}

static struct profile_set *
load_file(const char *path, int threads, bool keep_addrs)
{
	return load_file_ranges(path, threads, keep_addrs, 0);
}

/* Write text to a new temporary file; returns its path (free it). */
static char *
temp_file(const struct strbuf *text)
{
	const char *dir = getenv("TMPDIR");
	struct strbuf path = STRBUF_INIT;
	int fd;

	strbuf_addf(&path, "%s/test_perf.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path.buf);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text->buf, text->len), (ssize_t)text->len);
	assert_int_equal(close(fd), 0);
	return strbuf_detach(&path, NULL);
}

/*
 * A generated file of over 16 MiB, so that load() splits it. It mixes
 * events, threads, [unknown] frames (of a module and of none), srclines,
 * comments and some garbage in the second half, so that line numbers must
 * be shifted right.
 */
static void
make_big(struct strbuf *sb, bool flat, uint64_t *garbage_line)
{
	static const char *const syms[] = { "main", "parse", "[unknown]", "lex",
					    "std::vector<int>::push_back(int const&)",
					    "hash", "(anonymous namespace)::run" };
	uint64_t line = 0;
	unsigned seed = 12345;

	*garbage_line = 0;
	for (int i = 0; sb->len < ((size_t)17 << 20); i++) {
		int tid = 100 + i % 13, depth;
		const char *ev = i % 5 == 0 ? "instructions" : "cycles";

		seed = seed * 1103515245 + 12345;
		depth = 1 + (int)((seed >> 16) % 12);
		if (!*garbage_line && sb->len > ((size_t)12 << 20)) {
			strbuf_addstr(sb, "this line is garbage\n");
			*garbage_line = ++line;
		}
		if (i % 1000 == 0) {
			strbuf_addstr(sb, "# a comment\n");
			line++;
		}
		if (flat) {
			strbuf_addf(sb, "%16s %5d [%03d] %d.%06d: %d %s:  %x %s+0x%x (/bin/prog)\n",
				    i % 3 ? "prog" : "cc1", tid, i % 4, 1000 + i / 1000000,
				    i % 1000000, 1000 + i % 7, ev, 0x400000 + i % 97,
				    syms[i % 7], i % 16);
			line++;
			if (i % 11 == 0) {
				strbuf_addf(sb, "  prog.c:%d\n", i % 300);
				line++;
			}
			continue;
		}
		strbuf_addf(sb, "prog %d/%d [%03d] %d.%06d: %d %s:\n", 99, tid, i % 4,
			    1000 + i / 1000000, i % 1000000, 1000 + i % 7, ev);
		line++;
		for (int d = 0; d < depth; d++) {
			int s = (int)((seed >> (d % 16)) % 7);

			strbuf_addf(sb, "\t%16x %s+0x%x (%s)\n", 0x400000 + (i * 7 + d) % 4093,
				    syms[s], d,
				    s != 2 ? "/bin/prog" : i % 2 ? "[unknown]" : "/lib/libx.so.1");
			line++;
			if (i % 17 == 0 && d == 0) {
				strbuf_addf(sb, "  prog.c:%d\n", 10 + s);
				line++;
			}
		}
		strbuf_addch(sb, '\n');
		line++;
	}
}

static void
check_parallel(bool flat)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t garbage_line;
	struct profile_set *one, *two, *three, *many;
	char *path;

	make_big(&sb, flat, &garbage_line);
	path = temp_file(&sb);
	one = load_file(path, 1, true);
	two = load_file(path, 2, true);
	three = load_file(path, 3, true);
	/* Many ranges, more than threads, merged as they come. */
	many = load_file_ranges(path, 3, true, (uint64_t)1 << 20);
	assert_same_sets(one, many);
	check_profile_set(many);
	profile_set_free(many);
	assert_int_equal(one->nr_profiles, 2);
	assert_string_equal(ps_get(one, one->profiles[0]->name), "instructions");
	assert_true(one->profiles[0]->nr_samples + one->profiles[1]->nr_samples > 40000);
	assert_int_equal(one->nr_diags, 1);
	assert_int_equal(one->diags[0].line, garbage_line);
	assert_non_null(strstr(one->diags[0].msg, "1 line not understood, first: this line"));
	assert_same_sets(one, two);
	assert_same_sets(one, three);
	/*
	 * Each profile's arrays were sized from its share of the bytes read,
	 * of the file, rather than doubled to the next power of two.
	 */
	for (size_t i = 0; i < 2; i++) {
		const struct profile *p1 = one->profiles[i], *p2 = two->profiles[i];

		assert_true(p1->alloc_samples >= p1->nr_samples);
		assert_true(p1->alloc_samples <= p1->nr_samples + p1->nr_samples / 2);
		assert_true(p2->alloc_samples <= p2->nr_samples + p2->nr_samples / 2);
	}
	/* Flat, two comms and no pids: two processes; else one pid. */
	if (flat)
		assert_process_roots(two, NULL);
	else
		assert_false(has_process_frames(two));
	assert_true(test_stacks_all_used(three));
	check_profile_set(one);
	check_profile_set(two);
	check_profile_set(three);
	profile_set_free(one);
	profile_set_free(two);
	profile_set_free(three);
	unlink(path);
	free(path);
	strbuf_release(&sb);
}

/*
 * Frames without indent: a range must not start at one, though it is a
 * line at the first column, or its sample would lose its frames.
 */
static void
test_parallel_unindented(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *one, *two, *three;
	uint64_t frames = 0, samples = 0;
	struct profile *p;
	char *path;

	(void)state;
	for (int i = 0; sb.len < ((size_t)17 << 20); i++, samples++) {
		strbuf_addf(&sb, "java %d cycles:\n", 100 + i % 7);
		for (int d = 0; d <= i % 9; d++, frames++)
			strbuf_addf(&sb, "%x f%d (/bin/java)\n", 0x400 + d, (i + d) % 11);
		strbuf_addch(&sb, '\n');
	}
	path = temp_file(&sb);
	one = load_file(path, 1, false);
	two = load_file(path, 2, false);
	three = load_file_ranges(path, 3, false, (uint64_t)1 << 20);
	assert_int_equal(one->nr_diags, 0);
	assert_int_equal(two->nr_diags, 0);
	assert_int_equal(three->nr_diags, 0);
	p = prof(three, "cycles");
	assert_int_equal(p->nr_samples, samples);
	for (size_t i = 0; i < p->nr_samples; i++)
		frames -= ps_stack(three, p->stack[i])->depth;
	assert_int_equal(frames, 0);
	assert_same_sets(one, two);
	assert_same_sets(one, three);
	profile_set_free(one);
	profile_set_free(two);
	profile_set_free(three);
	unlink(path);
	free(path);
	strbuf_release(&sb);
}

static void
test_parallel(void **state)
{
	(void)state;
	check_parallel(false);
}

static void
test_parallel_flat(void **state)
{
	/* No blank lines at all: ranges must start at header lines. */
	(void)state;
	check_parallel(true);
}

/*
 * Deep stacks, each sample's own below a shared trunk (a dwarf call graph):
 * a range makes more stacks than samples, so the ranges merge loose and
 * the load interns them at its end. The result is the one-thread load's,
 * stack ids included, with no loose stack left.
 */
static void
test_parallel_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *one, *many;
	char *path;

	(void)state;
	for (int i = 0; sb.len < ((size_t)17 << 20); i++) {
		strbuf_addf(&sb, "prog 7/%d [000] %d.%06d: 1000 cycles:\n", 7 + i % 3,
			    100 + i / 1000000, i % 1000000);
		/* 40 frames of the sample's own, then the trunk. */
		for (int d = 0; d < 40; d++)
			strbuf_addf(&sb, "\t%x leaf%d_%d+0x1 (/bin/prog)\n", 0x1000 + d, i % 5000, d);
		strbuf_addstr(&sb, "\t400 run+0x1 (/bin/prog)\n\t300 main+0x1 (/bin/prog)\n\n");
	}
	path = temp_file(&sb);
	one = load_file(path, 1, false);
	many = load_file_ranges(path, 3, false, (uint64_t)1 << 20);
	assert_int_equal(one->nr_loose, 0);
	assert_int_equal(many->nr_loose, 0);
	assert_true(one->nr_stacks > one->profiles[0]->nr_samples);
	assert_same_sets(one, many);
	for (size_t i = 0; i < one->profiles[0]->nr_samples; i++)
		assert_int_equal(one->profiles[0]->stack[i], many->profiles[0]->stack[i]);
	check_profile_set(many);
	profile_set_free(one);
	profile_set_free(many);
	unlink(path);
	free(path);
	strbuf_release(&sb);
}

/*
 * Processes one after the other: each range of a parallel load sees one
 * process only, but the file holds two, so every range gets its process
 * frames when the ranges are put together, as one pass gives them.
 */
static void
test_parallel_processes(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *one, *two, *three;
	char *path;

	(void)state;
	for (int i = 0; sb.len < ((size_t)17 << 20); i++) {
		bool second = sb.len > ((size_t)14 << 20);

		strbuf_addf(&sb, "%s %d [000] %d.%06d: 1000 cycles:\n", second ? "beta" : "alpha",
			    second ? 20 + i % 3 : 10 + i % 3, 1000 + i / 1000000, i % 1000000);
		for (int d = i % 5; d >= 0; d--)
			strbuf_addf(&sb, "\t%x f%d+0x1 (/bin/%s)\n", 0x400 + d, (i + d) % 9,
				    second ? "beta" : "alpha");
		strbuf_addch(&sb, '\n');
	}
	path = temp_file(&sb);
	one = load_file(path, 1, false);
	two = load_file(path, 2, false);
	three = load_file_ranges(path, 3, false, (uint64_t)1 << 20);
	assert_process_roots(one, NULL);
	assert_process_roots(two, NULL);
	assert_process_roots(three, NULL);
	assert_same_sets(one, two);
	assert_same_sets(one, three);
	profile_set_free(one);
	profile_set_free(two);
	profile_set_free(three);

	/* One process all along: none, however it is cut. */
	strbuf_reset(&sb);
	for (int i = 0; sb.len < ((size_t)17 << 20); i++)
		strbuf_addf(&sb, "alpha %d [000] %d.%06d: 1000 cycles:\n\t%x f%d+0x1 (/bin/a)\n\n",
			    10 + i % 3, 1000 + i / 1000000, i % 1000000, 0x400 + i % 7, i % 7);
	assert_int_equal(unlink(path), 0);
	free(path);
	path = temp_file(&sb);
	two = load_file(path, 2, false);
	assert_false(has_process_frames(two));
	profile_set_free(two);
	two = load_file_ranges(path, 2, false, (uint64_t)1 << 20);
	assert_false(has_process_frames(two));
	profile_set_free(two);
	unlink(path);
	free(path);
	strbuf_release(&sb);
}

/*
 * Two processes in the first range, then one (of those two) in every
 * later range: the load knows there are several processes once the
 * first range is parsed and merges the later ones as they come, each
 * with its process frames added first; the result is that of one pass,
 * however many ranges and threads.
 */
static void
test_parallel_processes_decided_early(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *one, *two, *three;
	char *path;

	(void)state;
	for (int i = 0; sb.len < ((size_t)17 << 20); i++) {
		bool mixed = sb.len < ((size_t)1 << 20);
		const char *comm = mixed && i % 2 ? "beta" : "alpha";

		strbuf_addf(&sb, "%s %d [000] %d.%06d: 1000 cycles:\n", comm,
			    (comm[0] == 'b' ? 20 : 10) + i % 3, 1000 + i / 1000000, i % 1000000);
		for (int d = i % 5; d >= 0; d--)
			strbuf_addf(&sb, "\t%x f%d+0x1 (/bin/%s)\n", 0x400 + d, (i + d) % 9, comm);
		strbuf_addch(&sb, '\n');
	}
	path = temp_file(&sb);
	one = load_file(path, 1, false);
	two = load_file_ranges(path, 2, false, (uint64_t)1 << 20);
	three = load_file_ranges(path, 3, false, (uint64_t)1 << 20);
	assert_process_roots(one, NULL);
	assert_process_roots(two, NULL);
	assert_process_roots(three, NULL);
	assert_same_sets(one, two);
	assert_same_sets(one, three);
	profile_set_free(one);
	profile_set_free(two);
	profile_set_free(three);
	unlink(path);
	free(path);
	strbuf_release(&sb);
}

/*
 * Weights past 64 bits near the end of a file cut in ranges: every split
 * of the work gives the same exact total and the same samples.
 */
static void
test_parallel_wide_total(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t garbage_line;
	char *path;

	(void)state;
	make_big(&sb, false, &garbage_line);
	strbuf_addstr(&sb, "big 1 [000] 9.0: 18446744073709551615 huge:\n\n"
			   "big 1 [000] 9.1: 36893488147419103231 huge:\n\n");
	path = temp_file(&sb);
	for (int threads = 1; threads <= 3; threads++) {
		/* Three: many ranges, as many as 1 MiB ones make. */
		struct import_options opts = { .threads = threads,
					       .range_bytes = threads == 3 ? (uint64_t)1 << 20 : 0 };
		struct tf_error err = TF_ERROR_INIT;
		struct profile_set *ps = profile_set_new();
		struct strbuf total = STRBUF_INIT;
		struct profile *p;
		struct input in;

		assert_int_equal(input_open(&in, path, &err), 0);
		assert_int_equal(importer_perf.load(&in, &opts, ps, &err), 0);
		p = prof(ps, "huge");
		/* 2^64 - 1, then 2^65 - 1 as two of 2^64 - 1 and one of 1. */
		assert_int_equal(p->nr_samples, 4);
		profile_format_weight_sum(p, p->total_weight, &total);
		assert_string_equal(total.buf, "55340232221128654846");
		check_profile_set(ps);
		input_close(&in);
		strbuf_release(&total);
		tf_error_release(&err);
		profile_set_free(ps);
	}
	unlink(path);
	free(path);
	strbuf_release(&sb);
}

static void
test_data_files(void **state)
{
	static const char *const files[] = {
		"anon-ns", "arrow-inline", "crlf", "deleted", "go", "inlined", "java",
		"kernel-jit", "multi-event", "no-final-blank", "one-char-comm", "pidtid",
		"processes", "quotes", "semicolon", "single-line", "srcline", "tracepoint",
		"tracepoint-flat", "unknown",
	};
	const char *top = getenv("top_srcdir");
	struct strbuf path = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	if (!top)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/tests/data/perf/%s.txt", top, files[i]);
		ps = load_file(path.buf, 0, false);
		if (ps->nr_diags)
			fail_msg("%s: %s", files[i], ps->diags[0].msg);
		assert_true(ps->profiles[0]->nr_samples >= 1);
		check_profile_set(ps);
		profile_set_free(ps);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/data/sample.perf.txt", top);
	ps = load_file(path.buf, 0, false);
	assert_int_equal(ps->nr_diags, 0);
	assert_int_equal(ps->nr_threads, 2);
	assert_true(ps->profiles[0]->nr_samples > 1000);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_tid),
		cmocka_unit_test(test_unindented_frames),
		cmocka_unit_test(test_cpu_and_time),
		cmocka_unit_test(test_period_and_units),
		cmocka_unit_test(test_event_modifiers_and_padding),
		cmocka_unit_test(test_tracepoint_args),
		cmocka_unit_test(test_single_line),
		cmocka_unit_test(test_comm_with_spaces),
		cmocka_unit_test(test_one_char_comm),
		cmocka_unit_test(test_no_event),
		cmocka_unit_test(test_frame_forms),
		cmocka_unit_test(test_inlined),
		cmocka_unit_test(test_inline_real_frames),
		cmocka_unit_test(test_deleted),
		cmocka_unit_test(test_module_flags),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_keep_unknown_addrs),
		cmocka_unit_test(test_unnamed_frames),
		cmocka_unit_test(test_unnamed_srcline_and_symbols),
		cmocka_unit_test(test_addr_frame_memo),
		cmocka_unit_test(test_unnamed_addr_memo),
		cmocka_unit_test(test_long_line_addrs),
		cmocka_unit_test(test_dynsym_only_addrs),
		cmocka_unit_test(test_header_frame_addr),
		cmocka_unit_test(test_comments_crlf_and_last_sample),
		cmocka_unit_test(test_header_ends_sample),
		cmocka_unit_test(test_unknown_thread),
		cmocka_unit_test(test_weight_samples),
		cmocka_unit_test(test_collapse_compat),
		cmocka_unit_test(test_one_process_no_roots),
		cmocka_unit_test(test_processes_get_roots),
		cmocka_unit_test(test_process_without_comm),
		cmocka_unit_test(test_collapse_process_roots),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_garbage_lines),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_total_weight_wide),
		cmocka_unit_test(test_progress_and_cancel),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_parallel_unindented),
		cmocka_unit_test(test_parallel_flat),
		cmocka_unit_test(test_parallel_deep),
		cmocka_unit_test(test_parallel_wide_total),
		cmocka_unit_test(test_parallel_processes),
		cmocka_unit_test(test_parallel_processes_decided_early),
		cmocka_unit_test(test_data_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

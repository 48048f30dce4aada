#include "config.h"

#include "tflame/perfdata_read.h"

#include <stdlib.h>

#include "test_util.h"
#include "tflame/import.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The native perf.data reader: on small recordings made with perf record
 * (tests/data/perfdata/native-*.data: fp, pipe, -z, two events, dwarf)
 * and on files written here byte by byte, in the pipe format and the
 * file format, for the order of records, every sample field, address
 * spaces, and hostile sizes and offsets.
 */

static const struct import_options default_opts;

/* ------------------------------------------------------------ files */

static uint8_t *
read_file(const char *name, size_t *len)
{
	char *path = test_data_path("perfdata", name);
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	free(path);
	*len = (size_t)n;
	return buf;
}

/* Read a recording into a new set; info filled; fails the test on an error. */
static struct profile_set *
load(const char *name, struct perfdata_info *info)
{
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	size_t len;
	uint8_t *data = read_file(name, &len);

	if (perfdata_read_buffer(data, len, &default_opts, ps, info, &err))
		fail_msg("%s: %s", name, tf_error_text(&err));
	free(data);
	check_profile_set(ps);
	return ps;
}

static uint64_t
set_samples(const struct profile_set *ps)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ps->nr_profiles; i++)
		n += ps->profiles[i]->nr_samples;
	return n;
}

static bool
has_warning(const struct profile_set *ps, const char *part)
{
	for (size_t i = 0; i < ps->nr_diags; i++)
		if (strstr(ps->diags[i].msg, part))
			return true;
	return false;
}

/* Whether some frame has a module ending in suffix (and flags, if any). */
static bool
has_frame_module(const struct profile_set *ps, const char *suffix, uint32_t flags)
{
	size_t n = strlen(suffix);

	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		const char *m = ps_get(ps, ps->frames[i].module);
		size_t len = strlen(m);

		if (len >= n && !strcmp(m + len - n, suffix) &&
		    (ps->frames[i].flags & flags) == flags)
			return true;
	}
	return false;
}

static void
check_recorded_common(const struct profile_set *ps, const struct perfdata_info *info)
{
	assert_non_null(info->hostname);
	assert_non_null(info->os_release);
	assert_non_null(info->version);
	assert_non_null(info->arch);
	assert_non_null(info->cmdline);
	assert_non_null(strstr(info->cmdline, "record"));
	assert_true(info->nr_cpus_online >= 1);
	assert_true(info->nr_cpus_avail >= info->nr_cpus_online);
	assert_true(info->nr_events >= 1);
	assert_true(info->samples > 0);
	assert_int_equal(set_samples(ps), info->samples);
	assert_int_equal(info->bad, 0);
	assert_false(info->cut);
	for (size_t i = 0; i < ps->nr_profiles; i++)
		assert_true(ps->profiles[i]->has_time);
}

static void
test_recorded_fp(void **state)
{
	struct perfdata_info info;
	struct profile_set *ps = load("native-fp.data", &info);

	(void)state;
	check_recorded_common(ps, &info);
	assert_false(info.pipe);
	assert_string_equal(info.events[0].name, "cpu-clock:ppp");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "cpu-clock:ppp");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	assert_true(info.nr_build_ids >= 2);
	/* the program's frames are in its own module, its thread named by its comm */
	assert_true(has_frame_module(ps, "/loop", 0));
	assert_true(has_frame_module(ps, "libc.so.6", 0));
	assert_int_equal(ps->nr_threads, 1);
	assert_string_equal(ps_get(ps, ps->threads[0].comm), "loop");
	assert_true(ps->threads[0].pid == ps->threads[0].tid);
	/* one process: no process frames */
	for (uint32_t i = 0; i < ps->nr_frames; i++)
		assert_false(ps->frames[i].flags & FRAME_PROCESS);
	/* perf's order: times never go back */
	for (size_t i = 1; i < ps->profiles[0]->nr_samples; i++)
		assert_true(ps->profiles[0]->time[i - 1] <= ps->profiles[0]->time[i]);
	perfdata_info_release(&info);
	profile_set_free(ps);
}

static void
test_recorded_pipe(void **state)
{
	struct perfdata_info info;
	struct profile_set *ps = load("native-pipe.data", &info);

	(void)state;
	check_recorded_common(ps, &info);
	assert_true(info.pipe);
	assert_string_equal(info.events[0].name, "cpu-clock:ppp");
	assert_true(has_frame_module(ps, "/loop", 0));
	perfdata_info_release(&info);
	profile_set_free(ps);
}

static void
test_recorded_compressed(void **state)
{
	struct perfdata_info info;
	struct profile_set *ps = load("native-z.data", &info);
	bool process_frames = false;

	(void)state;
	check_recorded_common(ps, &info);
	assert_true(info.compressed > 0);
	/* a program that forks: two processes, so stacks under process frames */
	assert_true(ps->nr_threads >= 2);
	for (uint32_t i = 0; i < ps->nr_frames; i++)
		if (ps->frames[i].flags & FRAME_PROCESS)
			process_frames = true;
	assert_true(process_frames);
	/* the system calls' kernel frames */
	assert_true(has_frame_module(ps, "[kernel.kallsyms]", FRAME_KERNEL));
	perfdata_info_release(&info);
	profile_set_free(ps);
}

static void
test_recorded_two_events(void **state)
{
	struct perfdata_info info;
	struct profile_set *ps = load("native-two.data", &info);

	(void)state;
	check_recorded_common(ps, &info);
	assert_int_equal(info.nr_events, 2);
	assert_int_equal(ps->nr_profiles, 2);
	assert_non_null(profile_set_find_profile(ps, "cpu-clock"));
	assert_non_null(profile_set_find_profile(ps, "task-clock"));
	assert_int_equal(info.events[0].nr_samples + info.events[1].nr_samples, info.samples);
	perfdata_info_release(&info);
	profile_set_free(ps);
}

static void
test_recorded_dwarf(void **state)
{
	struct perfdata_info info;
	struct profile_set *ps = load("native-dwarf.data", &info);

	(void)state;
	check_recorded_common(ps, &info);
	assert_int_equal(info.dwarf_samples, info.samples);
	assert_true(has_warning(ps, "--call-graph dwarf"));
	/* the leaf from the user registers */
	assert_true(has_frame_module(ps, "/loop2", 0));
	perfdata_info_release(&info);
	profile_set_free(ps);
}

/*
 * A recording cut anywhere: an error naming a byte, or the records
 * before the cut with a warning. Never a crash, never more samples.
 */
static void
test_recorded_cut(void **state)
{
	const char *const names[] = { "native-fp.data", "native-pipe.data", "native-z.data" };

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		size_t len;
		uint8_t *data = read_file(names[k], &len);
		struct perfdata_info full;
		struct profile_set *ps = load(names[k], &full);

		profile_set_free(ps);
		for (size_t cut = 0; cut < len; cut += 37) {
			struct perfdata_info info;
			struct tf_error err = TF_ERROR_INIT;
			uint8_t *copy = malloc(cut ? cut : 1);

			memcpy(copy, data, cut);
			ps = profile_set_new();
			if (perfdata_read_buffer(copy, cut, &default_opts, ps, &info, &err)) {
				assert_non_null(strstr(err.msg, "byte "));
			} else {
				check_profile_set(ps);
				assert_true(info.samples <= full.samples);
				/* a pipe cut between two records cannot tell */
				if (info.samples < full.samples && !info.pipe)
					assert_true(info.cut);
				if (info.cut)
					assert_true(has_warning(ps, "cut"));
			}
			tf_error_release(&err);
			perfdata_info_release(&info);
			profile_set_free(ps);
			free(copy);
		}
		perfdata_info_release(&full);
		free(data);
	}
}

/* ------------------------------------------------------------ written here */

#define S_IP (1u << 0)
#define S_TID (1u << 1)
#define S_TIME (1u << 2)
#define S_ADDR (1u << 3)
#define S_READ (1u << 4)
#define S_CALLCHAIN (1u << 5)
#define S_ID (1u << 6)
#define S_CPU (1u << 7)
#define S_PERIOD (1u << 8)
#define S_STREAM_ID (1u << 9)
#define S_RAW (1u << 10)
#define S_BRANCH_STACK (1u << 11)
#define S_REGS_USER (1u << 12)
#define S_STACK_USER (1u << 13)
#define S_WEIGHT (1u << 14)
#define S_DATA_SRC (1u << 15)
#define S_IDENTIFIER (1u << 16)
#define S_TRANSACTION (1u << 17)
#define S_REGS_INTR (1u << 18)
#define S_PHYS_ADDR (1u << 19)
#define S_AUX (1u << 20)
#define S_CGROUP (1u << 21)
#define S_DATA_PAGE_SIZE (1u << 22)
#define S_CODE_PAGE_SIZE (1u << 23)

#define SAMPLE_ID_ALL ((uint64_t)1 << 18)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)

/* The sample_type of the simple files: what perf record -g writes. */
#define BASIC (S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD)

/* A file being written. */
struct w {
	struct strbuf sb;
	size_t rec;      /* where the open record starts */
	uint64_t st;     /* the sample_type of its trailers */
	bool id_all;
};

static void
put(struct w *w, const void *p, size_t n)
{
	strbuf_add(&w->sb, p, n);
}

static void
put64(struct w *w, uint64_t v)
{
	put(w, &v, 8);
}

static void
put32(struct w *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put16(struct w *w, uint16_t v)
{
	put(w, &v, 2);
}

static void
set64(struct w *w, size_t at, uint64_t v)
{
	memcpy(w->sb.buf + at, &v, 8);
}

static void
rec_begin(struct w *w, uint32_t type, uint16_t misc)
{
	w->rec = w->sb.len;
	put32(w, type);
	put16(w, misc);
	put16(w, 0);
}

static void
rec_end(struct w *w)
{
	uint16_t size;

	while ((w->sb.len - w->rec) % 8)
		strbuf_addch(&w->sb, '\0');
	size = (uint16_t)(w->sb.len - w->rec);
	memcpy(w->sb.buf + w->rec + 6, &size, 2);
}

/* A sample_id_all trailer of TID and TIME (w->st's bits of them). */
static void
trailer(struct w *w, uint32_t pid, uint64_t time)
{
	if (!w->id_all)
		return;
	if (w->st & S_TID) {
		put32(w, pid);
		put32(w, pid);
	}
	if (w->st & S_TIME)
		put64(w, time);
}

/* A perf_event_attr of 120 bytes (VER6). */
static void
put_attr(struct w *w, uint32_t type, uint64_t config, uint64_t sample_type,
	 uint64_t read_format, uint64_t flags, uint64_t branch_type, uint64_t regs_user,
	 uint64_t regs_intr)
{
	size_t at = w->sb.len;

	strbuf_addchars(&w->sb, 0, 120);
	memcpy(w->sb.buf + at, &type, 4);
	memcpy(w->sb.buf + at + 4, &(uint32_t){ 120 }, 4);
	set64(w, at + 8, config);
	set64(w, at + 24, sample_type);
	set64(w, at + 32, read_format);
	set64(w, at + 40, flags);
	set64(w, at + 72, branch_type);
	set64(w, at + 80, regs_user);
	set64(w, at + 96, regs_intr);
}

/* A pipe file's start: the header, an attr of sample_type st with id 7. */
static void
pipe_begin(struct w *w, uint64_t st)
{
	strbuf_init(&w->sb, 0);
	w->st = st;
	w->id_all = true;
	put(w, "PERFILE2", 8);
	put64(w, 16);
	rec_begin(w, 64, 0);
	put_attr(w, 1, 0, st, 0, SAMPLE_ID_ALL, 0, 0, 0);
	put64(w, 7);
	rec_end(w);
}

static void
put_comm(struct w *w, uint32_t pid, uint32_t tid, const char *comm, bool exec, uint64_t time)
{
	rec_begin(w, 3, exec ? 1 << 13 : 0);
	put32(w, pid);
	put32(w, tid);
	put(w, comm, strlen(comm) + 1);
	while ((w->sb.len - w->rec) % 8)
		strbuf_addch(&w->sb, '\0');
	trailer(w, pid, time);
	rec_end(w);
}

static void
put_mmap2(struct w *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	  const char *path, uint64_t time)
{
	rec_begin(w, 10, 2);
	put32(w, pid);
	put32(w, pid);
	put64(w, start);
	put64(w, len);
	put64(w, pgoff);
	strbuf_addchars(&w->sb, 0, 24); /* maj, min, ino, generation */
	put32(w, 5);                    /* prot */
	put32(w, 2);                    /* flags */
	put(w, path, strlen(path) + 1);
	while ((w->sb.len - w->rec) % 8)
		strbuf_addch(&w->sb, '\0');
	trailer(w, pid, time);
	rec_end(w);
}

static void
put_fork(struct w *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	rec_begin(w, 7, 0);
	put32(w, pid);
	put32(w, ppid);
	put32(w, tid);
	put32(w, ptid);
	put64(w, time);
	trailer(w, pid, time);
	rec_end(w);
}

/* A BASIC sample of pid at time, period, with a callchain of n ips. */
static void
put_sample(struct w *w, uint32_t pid, uint64_t time, uint64_t period, const uint64_t *ips,
	   size_t n)
{
	rec_begin(w, 9, 2);
	put64(w, ips[0] >= (uint64_t)-4095 ? ips[1] : ips[0]);
	put32(w, pid);
	put32(w, pid);
	put64(w, time);
	put64(w, period);
	put64(w, n);
	for (size_t i = 0; i < n; i++)
		put64(w, ips[i]);
	rec_end(w);
}

static void
put_round(struct w *w)
{
	rec_begin(w, 68, 0);
	rec_end(w);
}

/* Read w's bytes; returns the result of perfdata_read_buffer(). */
static int
read_w(struct w *w, struct profile_set *ps, struct perfdata_info *info, struct tf_error *err)
{
	int ret = perfdata_read_buffer(w->sb.buf, w->sb.len, &default_opts, ps, info, err);

	check_profile_set(ps);
	return ret;
}

static const char *
sample_stack(const struct profile_set *ps, const struct profile *p, size_t i, char *buf,
	     size_t size)
{
	return stack_text(ps, p->stack[i], buf, size);
}

static const char *
sample_comm(const struct profile_set *ps, const struct profile *p, size_t i)
{
	return ps_get(ps, ps->threads[p->thread[i]].comm);
}

/*
 * perf's order: records wait for their round. Samples written out of
 * order come out in time order, and each gets the comm and mappings that
 * were current at its time, though written after it.
 */
static void
test_rounds(void **state)
{
	struct w w;
	struct profile_set *ps = profile_set_new();
	struct perfdata_info info;
	struct tf_error err = TF_ERROR_INIT;
	const struct profile *p;
	uint64_t a[] = { CTX_USER, 0x401010, 0x402020 };
	char buf[256];

	(void)state;
	pipe_begin(&w, BASIC);
	put_comm(&w, 10, 10, "first", false, 100);
	put_mmap2(&w, 10, 0x400000, 0x10000, 0, "/nonexistent/app", 100);
	/* written first, but it happens after the exec below */
	put_sample(&w, 10, 400, 5, a, 3);
	put_sample(&w, 10, 200, 3, a, 3);
	put_comm(&w, 10, 10, "second", true, 300);
	put_round(&w);
	put_mmap2(&w, 10, 0x400000, 0x10000, 0x1000, "/nonexistent/other", 350);
	/* after the round but older than the max of the one before: still in order */
	put_sample(&w, 10, 250, 7, a, 3);
	put_round(&w);
	put_sample(&w, 10, 500, 11, a, 3);
	assert_int_equal(read_w(&w, ps, &info, &err), 0);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 4);
	assert_int_equal(p->time[0], 200);
	assert_int_equal(p->time[1], 250);
	assert_int_equal(p->time[2], 400);
	assert_int_equal(p->time[3], 500);
	assert_int_equal(p->weight[0], 3);
	assert_int_equal(p->weight[2], 5);
	assert_string_equal(sample_comm(ps, p, 0), "first");
	assert_string_equal(sample_comm(ps, p, 1), "first");
	assert_string_equal(sample_comm(ps, p, 2), "second");
	/* before the exec: app; after it and its new mapping: other */
	assert_string_equal(sample_stack(ps, p, 0, buf, sizeof(buf)), "[app];[app]");
	assert_string_equal(sample_stack(ps, p, 2, buf, sizeof(buf)), "[other];[other]");
	/* a caller's frame is not the leaf's, though both are unnamed alike */
	assert_int_equal(ps->frames[ps->stacks[p->stack[0]].frame].flags & FRAME_UNNAMED,
			 FRAME_UNNAMED);
	assert_string_equal(info.events[0].name, "cpu-clock");
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
	strbuf_release(&w.sb);
}

/*
 * Address spaces: a forked process starts with its parent's mappings and
 * the parent's comm; an exec keeps them (as perf does) until a new mapping
 * replaces one; a kernel address goes to [kernel.kallsyms]; an address in
 * no mapping is [unknown].
 */
static void
test_address_spaces(void **state)
{
	struct w w;
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;
	const struct profile *p;
	uint64_t user[] = { CTX_USER, 0x401000, 0x7f0000001000 };
	uint64_t kern[] = { CTX_KERNEL, 0xffffffff81000000ull, CTX_USER, 0x401000 };
	char buf[256];

	(void)state;
	pipe_begin(&w, BASIC);
	put_comm(&w, 1, 1, "parent", false, 10);
	put_mmap2(&w, 1, 0x400000, 0x10000, 0, "/nonexistent/app", 10);
	put_mmap2(&w, 1, 0x7f0000000000, 0x10000, 0, "/nonexistent/libc.so.6", 10);
	put_fork(&w, 2, 1, 2, 1, 20);
	put_sample(&w, 2, 30, 1, user, 3);
	put_comm(&w, 2, 2, "child", true, 40);
	put_mmap2(&w, 2, 0x400000, 0x10000, 0, "/nonexistent/new", 45);
	put_sample(&w, 2, 50, 1, user, 3);
	put_sample(&w, 2, 55, 1, user + 1, 1);
	put_sample(&w, 1, 60, 1, kern, 4);
	assert_int_equal(read_w(&w, ps, &info, &err), 0);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 4);
	/* two processes: each stack under its process frame */
	assert_string_equal(sample_stack(ps, p, 0, buf, sizeof(buf)),
			    "parent;[libc.so.6];[app]");
	assert_string_equal(sample_comm(ps, p, 0), "parent");
	assert_string_equal(sample_stack(ps, p, 1, buf, sizeof(buf)),
			    "child;[libc.so.6];[new]");
	assert_string_equal(sample_comm(ps, p, 1), "child");
	/* no context marker: user mode, as perf walks it */
	assert_string_equal(sample_stack(ps, p, 2, buf, sizeof(buf)), "child;[new]");
	/* 0xffffffff81000000 is named from kallsyms only for this host's own recordings */
	assert_true(ps->frames[ps->stacks[p->stack[3]].frame].flags & FRAME_KERNEL);
	assert_string_equal(ps_get(ps, ps->frames[ps->stacks[p->stack[3]].frame].module),
			    "[kernel.kallsyms]");
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
	strbuf_release(&w.sb);
}

/*
 * Names as perf gives them, from a module's ELF symbols
 * (tests/data/symbols/stripped: .dynsym only, with weak aliases, and a
 * PLT): the alias perf keeps, "name@plt" for PLT entries as perf
 * synthesizes them, the module's name where no symbol covers an address.
 */
static void
test_names_from_elf(void **state)
{
	const uint64_t base = 0x555555554000ull;
	char *path = test_data_path("symbols", "stripped");
	uint64_t chain[] = { CTX_USER, base + 0x1040, base + 0x11a5, base + 0x1064 };
	uint64_t weak[] = { CTX_USER, base + 0x1230, base + 0x1030 };
	uint64_t none[] = { CTX_USER, base + 0x4800 };
	struct w w;
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;
	const struct profile *p;
	char buf[256];

	(void)state;
	pipe_begin(&w, BASIC);
	put_mmap2(&w, 4, base, 0x5000, 0, path, 1);
	put_sample(&w, 4, 10, 1, chain, 4);
	put_sample(&w, 4, 20, 1, weak, 3);
	put_sample(&w, 4, 30, 1, none, 2);
	assert_int_equal(read_w(&w, ps, &info, &err), 0);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 3);
	assert_string_equal(sample_stack(ps, p, 0, buf, sizeof(buf)), "main;outer;strtoul@plt");
	/* strong_name, not its weak alias weak_fn */
	assert_string_equal(sample_stack(ps, p, 1, buf, sizeof(buf)), "printf@plt;strong_name");
	assert_string_equal(sample_stack(ps, p, 2, buf, sizeof(buf)), "[stripped]");
	assert_string_equal(ps_get(ps, ps->frames[ps->stacks[p->stack[0]].frame].module), path);
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
	strbuf_release(&w.sb);
	free(path);
}

/*
 * Every sample field perf writes, in the kernel's order, each with a
 * value of its own size: a reader that reads one of them wrong reads the
 * period, the time or the callchain wrong after it, or the next sample.
 */
static void
test_every_field(void **state)
{
	const uint64_t st = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_STREAM_ID |
			    S_CPU | S_PERIOD | S_READ | S_CALLCHAIN | S_RAW | S_BRANCH_STACK |
			    S_REGS_USER | S_STACK_USER | S_WEIGHT | S_DATA_SRC |
			    S_TRANSACTION | S_REGS_INTR | S_PHYS_ADDR | S_CGROUP |
			    S_DATA_PAGE_SIZE | S_CODE_PAGE_SIZE | S_AUX;
	/* read_format: TOTAL_TIME_ENABLED | ID | GROUP | LOST */
	const uint64_t rf = 1 | 4 | 8 | 16;
	struct w w;
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;
	const struct profile *p;
	char buf[256];

	(void)state;
	strbuf_init(&w.sb, 0);
	w.st = st;
	w.id_all = false;
	put(&w, "PERFILE2", 8);
	put64(&w, 16);
	rec_begin(&w, 64, 0);
	/* branch hw_idx, 3 user registers (ip is register 8), 2 interrupt ones */
	put_attr(&w, 0, 0, st, rf, 0, (uint64_t)1 << 17, (1u << 8) | 3, 6);
	put64(&w, 7);
	rec_end(&w);
	rec_begin(&w, 80, 0); /* HEADER_FEATURE: arch, so the user ip is found */
	put64(&w, 6);
	put32(&w, 8);
	put(&w, "x86_64\0\0", 8);
	rec_end(&w);
	put_mmap2(&w, 5, 0x400000, 0x1000, 0, "/nonexistent/app", 0);
	for (int k = 0; k < 2; k++) {
		rec_begin(&w, 9, 2);
		put64(&w, 7);                   /* identifier */
		put64(&w, 0x400100);            /* ip */
		put32(&w, 5);                   /* pid */
		put32(&w, 5);                   /* tid */
		put64(&w, 1000 + (uint64_t)k);  /* time */
		put64(&w, 0xdead);              /* addr */
		put64(&w, 7);                   /* id */
		put64(&w, 9);                   /* stream id */
		put32(&w, 1);                   /* cpu */
		put32(&w, 0);
		put64(&w, 42 + (uint64_t)k);    /* period */
		put64(&w, 2);                   /* read: nr, time enabled, 2 x (value, id, lost) */
		put64(&w, 77);
		for (int i = 0; i < 6; i++)
			put64(&w, 1);
		put64(&w, 2);                   /* callchain: the kernel's part */
		put64(&w, CTX_KERNEL);
		put64(&w, 0xffffffff81000100ull);
		put32(&w, 12);                  /* raw: 4 + 12 bytes */
		strbuf_addchars(&w.sb, 'r', 12);
		put64(&w, 1);                   /* branch stack: nr, hw_idx, 1 x 3 */
		put64(&w, 0);
		put64(&w, 1);
		put64(&w, 2);
		put64(&w, 3);
		put64(&w, 2);                   /* user regs: abi, 3 regs */
		put64(&w, 0);
		put64(&w, 0);
		put64(&w, 0x400300);
		put64(&w, 16);                  /* user stack: size, 16 bytes, dyn size */
		strbuf_addchars(&w.sb, 's', 16);
		put64(&w, 8);
		put64(&w, 5);                   /* weight */
		put64(&w, 6);                   /* data src */
		put64(&w, 7);                   /* transaction */
		put64(&w, 2);                   /* intr regs: abi, 2 regs */
		put64(&w, 0);
		put64(&w, 0);
		put64(&w, 0x1234);              /* phys addr */
		put64(&w, 1);                   /* cgroup */
		put64(&w, 4096);                /* data page size */
		put64(&w, 4096);                /* code page size */
		put64(&w, 8);                   /* aux: size, 8 bytes */
		strbuf_addchars(&w.sb, 'a', 8);
		rec_end(&w);
	}
	assert_int_equal(read_w(&w, ps, &info, &err), 0);
	assert_int_equal(info.bad, 0);
	assert_int_equal(info.samples, 2);
	assert_int_equal(info.dwarf_samples, 2);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(p->weight[0], 42);
	assert_int_equal(p->weight[1], 43);
	assert_int_equal(p->time[0], 1000);
	assert_int_equal(p->time[1], 1001);
	assert_string_equal(ps_get(ps, p->name), "cycles");
	/* the kernel's chain, then the user leaf from the registers (a dwarf sample) */
	assert_string_equal(sample_stack(ps, p, 0, buf, sizeof(buf)), "[app];[kernel.kallsyms]");
	assert_int_equal(ps->threads[p->thread[0]].tid, 5);
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
	strbuf_release(&w.sb);
}

/* LOST and LOST_SAMPLES are counted and said; AUX records are named. */
static void
test_lost(void **state)
{
	struct w w;
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;
	uint64_t a[] = { CTX_USER, 0x401000 };

	(void)state;
	pipe_begin(&w, BASIC);
	put_sample(&w, 1, 10, 1, a, 2);
	rec_begin(&w, 2, 0); /* LOST: id, lost */
	put64(&w, 7);
	put64(&w, 12);
	trailer(&w, 1, 20);
	rec_end(&w);
	rec_begin(&w, 13, 0); /* LOST_SAMPLES */
	put64(&w, 5);
	trailer(&w, 1, 30);
	rec_end(&w);
	rec_begin(&w, 11, 0); /* AUX */
	put64(&w, 0);
	put64(&w, 64);
	put64(&w, 0);
	trailer(&w, 1, 40);
	rec_end(&w);
	assert_int_equal(read_w(&w, ps, &info, &err), 0);
	assert_int_equal(info.lost, 12);
	assert_int_equal(info.lost_samples, 5);
	assert_int_equal(info.aux, 1);
	assert_true(has_warning(ps, "lost 12 events"));
	assert_true(has_warning(ps, "lost 5 samples"));
	assert_true(has_warning(ps, "AUX trace"));
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
	strbuf_release(&w.sb);
}

/* Expect w's bytes to fail with a message containing part. */
static void
expect_error(struct w *w, const char *part)
{
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;

	if (!read_w(w, ps, &info, &err))
		fail_msg("read, though it should fail with '%s'", part);
	if (!strstr(err.msg, part))
		fail_msg("'%s' does not say '%s'", err.msg, part);
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
}

/* Expect w's bytes to load, with a warning containing part. */
static void
expect_warning(struct w *w, const char *part, uint64_t samples)
{
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;

	if (read_w(w, ps, &info, &err))
		fail_msg("%s", err.msg);
	if (!has_warning(ps, part))
		fail_msg("no warning saying '%s'", part);
	assert_int_equal(set_samples(ps), samples);
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);
}

static void
test_hostile_pipe(void **state)
{
	struct w w;
	uint64_t a[] = { CTX_USER, 0x401000 };
	size_t at;

	(void)state;
	/* a record of size 0 would loop forever */
	pipe_begin(&w, BASIC);
	put_sample(&w, 1, 10, 1, a, 2);
	at = w.sb.len;
	put64(&w, 9);
	expect_error(&w, "has a size of 0 bytes");
	{
		char want[64];

		snprintf(want, sizeof(want), "byte %zu:", at);
		expect_error(&w, want);
	}
	strbuf_release(&w.sb);

	/* a callchain that claims more than its record holds */
	pipe_begin(&w, BASIC);
	put_sample(&w, 1, 10, 1, a, 2);
	at = w.sb.len;
	put_sample(&w, 1, 20, 1, a, 2);
	set64(&w, at + 40, (uint64_t)1 << 60);
	put_sample(&w, 1, 30, 1, a, 2);
	expect_warning(&w, "callchain runs past its end", 2);
	strbuf_release(&w.sb);

	/* cut inside the last record: the ones before it */
	pipe_begin(&w, BASIC);
	put_sample(&w, 1, 10, 1, a, 2);
	put_sample(&w, 1, 20, 1, a, 2);
	strbuf_setlen(&w.sb, w.sb.len - 5);
	expect_warning(&w, "cut inside a record", 1);
	strbuf_release(&w.sb);

	/* an attribute record whose attr is bigger than the record */
	pipe_begin(&w, BASIC);
	memcpy(w.sb.buf + 16 + 8 + 4, &(uint32_t){ 4000 }, 4);
	expect_error(&w, "attribute of 4000 bytes");
	strbuf_release(&w.sb);

	/* a sample before any attribute */
	strbuf_init(&w.sb, 0);
	w.id_all = false;
	put(&w, "PERFILE2", 8);
	put64(&w, 16);
	put_sample(&w, 1, 10, 1, a, 2);
	expect_error(&w, "before any event attribute");
	strbuf_release(&w.sb);

	/* the other byte order, an old magic, no magic, too short */
	strbuf_init(&w.sb, 0);
	put(&w, "2ELIFREP", 8);
	put64(&w, 16);
	expect_error(&w, "big-endian");
	memcpy(w.sb.buf, "PERFFILE", 8);
	expect_error(&w, "PERFFILE");
	memcpy(w.sb.buf, "PERFXXXX", 8);
	expect_error(&w, "no PERFILE2 magic");
	strbuf_setlen(&w.sb, 10);
	expect_error(&w, "too short");
	strbuf_release(&w.sb);

	/* a compressed record that is not zstd */
	pipe_begin(&w, BASIC);
	put_sample(&w, 1, 10, 1, a, 2);
	rec_begin(&w, 81, 0);
	put64(&w, 0x0123456789abcdefull);
	rec_end(&w);
	expect_warning(&w, "compressed records", 1);
	strbuf_release(&w.sb);
}

/*
 * The file format: a header, one attr entry with its ids, the data, and
 * a hostname feature. Offsets of the header are then broken one by one.
 */
static void
file_build(struct w *w)
{
	uint64_t a[] = { CTX_USER, 0x401000 };
	size_t attrs_at = 104, ids_at, data_at, data_end, feat_at, host_at;

	strbuf_init(&w->sb, 0);
	w->st = BASIC;
	w->id_all = true;
	put(w, "PERFILE2", 8);
	strbuf_addchars(&w->sb, 0, 96);
	set64(w, 8, 104);
	set64(w, 16, 120 + 16);
	put_attr(w, 1, 0, BASIC, 0, SAMPLE_ID_ALL, 0, 0, 0);
	ids_at = w->sb.len + 16;
	put64(w, ids_at);
	put64(w, 8);
	put64(w, 7);
	data_at = w->sb.len;
	put_comm(w, 3, 3, "prog", false, 5);
	put_sample(w, 3, 10, 4, a, 2);
	put_sample(w, 3, 20, 6, a, 2);
	data_end = w->sb.len;
	feat_at = data_end;
	host_at = feat_at + 16;
	put64(w, host_at);
	put64(w, 4 + 8);
	put32(w, 8);
	put(w, "machine\0", 8);
	set64(w, 24, attrs_at);
	set64(w, 32, 120 + 16);
	set64(w, 40, data_at);
	set64(w, 48, data_end - data_at);
	w->sb.buf[72] = 1 << 3; /* HEADER_HOSTNAME */
}

static void
test_file_format(void **state)
{
	struct w w;
	struct profile_set *ps = profile_set_new();
	struct tf_error err = TF_ERROR_INIT;
	struct perfdata_info info;

	(void)state;
	file_build(&w);
	assert_int_equal(read_w(&w, ps, &info, &err), 0);
	assert_false(info.pipe);
	assert_string_equal(info.hostname, "machine");
	assert_int_equal(set_samples(ps), 2);
	assert_int_equal(ps->profiles[0]->total_weight, 10);
	assert_string_equal(ps_get(ps, ps->threads[0].comm), "prog");
	tf_error_release(&err);
	perfdata_info_release(&info);
	profile_set_free(ps);

	/* the attribute section past the end */
	set64(&w, 24, 1 << 20);
	expect_error(&w, "byte 24: attribute section");
	set64(&w, 24, 104);
	/* an attr entry size perf never writes */
	set64(&w, 16, 3);
	expect_error(&w, "byte 16: attribute entry size 3");
	set64(&w, 16, 136);
	/* ids outside the file */
	set64(&w, 104 + 120, (uint64_t)-8);
	expect_error(&w, "ids of event 0");
	set64(&w, 104 + 120, 104 + 136);
	/* the feature section outside the file: a warning, the samples stay */
	{
		uint64_t feat_at;

		memcpy(&feat_at, w.sb.buf + 40, 8);
		{
			uint64_t size;

			memcpy(&size, w.sb.buf + 48, 8);
			feat_at += size;
		}
		set64(&w, (size_t)feat_at, (uint64_t)1 << 40);
		expect_warning(&w, "1 feature sections", 2);
		set64(&w, (size_t)feat_at, feat_at + 16);
	}
	/* the data section starts past the end */
	set64(&w, 40, 1 << 20);
	expect_error(&w, "byte 40: data section");
	set64(&w, 40, 248);
	/* the data section runs past the end: cut, the records before it */
	strbuf_setlen(&w.sb, 248 + 40 + 64 + 10);
	expect_warning(&w, "cut", 1);
	/* perf record killed before it wrote the header: data size 0 */
	set64(&w, 48, 0);
	strbuf_setlen(&w.sb, 248 + 40 + 64);
	expect_warning(&w, "data size of 0", 1);
	strbuf_release(&w.sb);
}

/* The header's features can be any size; an empty file of attrs fails. */
static void
test_file_no_attrs(void **state)
{
	struct w w;

	(void)state;
	file_build(&w);
	set64(&w, 32, 0);
	expect_error(&w, "no event attributes");
	strbuf_release(&w.sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_fp),
		cmocka_unit_test(test_recorded_pipe),
		cmocka_unit_test(test_recorded_compressed),
		cmocka_unit_test(test_recorded_two_events),
		cmocka_unit_test(test_recorded_dwarf),
		cmocka_unit_test(test_recorded_cut),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_address_spaces),
		cmocka_unit_test(test_names_from_elf),
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_hostile_pipe),
		cmocka_unit_test(test_file_format),
		cmocka_unit_test(test_file_no_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

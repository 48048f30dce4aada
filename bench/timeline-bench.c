/*
 * timeline-bench: what Time Order's lanes cost on a big multi-threaded
 * profile: the time to build them for a new thread selection, and their
 * memory per sample.
 *
 * usage: bench/timeline-bench [FILE]
 *
 * Without FILE it generates, in memory, 3 M samples of 128 threads
 * interleaved in time as perf records them: each thread samples every
 * ~1 ms while it runs, sleeps now and then (gaps Time Order shows), and
 * keeps most of its previous stack from one sample to the next, as in
 * layout-bench. With FILE it loads that profile and uses its largest
 * profile. It then times timeline_build() for all threads and for half of
 * them, and timeline_merged(), and prints medians and bytes per sample.
 * Targets (issue 13): a new selection in <= 300 ms, <= 16 bytes per sample.
 *
 * Built by `make bench`, never by `make` or `make check`.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/chart.h"
#include "tflame/error.h"
#include "tflame/import.h"
#include "tflame/profile.h"
#include "tflame/xalloc.h"

#include "bench.h"

#define NR_NAMES 50000u
#define NR_SAMPLES 3000000u
#define NR_THREADS 128u
#define MAX_DEPTH 64

struct gen_thread {
	thread_id id;
	stack_id path[MAX_DEPTH + 1];
	uint32_t depth;
	int64_t next;    /* time of its next sample */
};

static struct profile_set *
generate(void)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cpu-clock", 9), UNIT_SAMPLES);
	frame_id *frames = xmalloc(sizeof(*frames) * NR_NAMES);
	struct gen_thread *th = xcalloc(NR_THREADS, sizeof(*th));
	uint64_t seed = 1;
	char name[32];

	for (uint32_t i = 0; i < NR_NAMES; i++) {
		struct frame f = { 0 };
		int n = snprintf(name, sizeof(name), "function_%u", i);

		f.name = ps_str(ps, name, (size_t)n);
		frames[i] = profile_set_frame(ps, &f);
	}
	for (uint32_t i = 0; i < NR_THREADS; i++) {
		th[i].id = profile_set_thread(ps, 100, 100 + i, ps_str(ps, "bench", 5));
		th[i].next = 1000000000 + rnd(&seed) % 1000000;
	}
	for (uint32_t i = 0; i < NR_SAMPLES; i++) {
		/* The thread due first: samples come in time order. */
		struct gen_thread *g = &th[0];
		uint32_t target = 8 + rnd(&seed) % 25, pop = 1;

		for (uint32_t k = 1; k < NR_THREADS; k++)
			if (th[k].next < g->next)
				g = &th[k];
		while (pop < 12 && rnd(&seed) % 100 < 60)
			pop++;
		if (rnd(&seed) % 100 < 2)
			pop = g->depth;
		g->depth = g->depth > pop ? g->depth - pop : 0;
		while (g->depth < target) {
			stack_id parent = g->path[g->depth];
			uint32_t r = rnd(&seed) % 100, f;
			uint32_t usual = r < 92 ? 0 : r < 97 ? 1 : r < 99 ? 2 : 3;

			if (usual < 3)
				f = (uint32_t)((parent * 2654435761u + usual * 40503u) % NR_NAMES);
			else
				f = rnd(&seed) % NR_NAMES;
			g->path[++g->depth] = profile_set_stack(ps, parent, frames[f]);
		}
		if (profile_add_sample(p, g->path[g->depth], 1, g->next, true, g->id, NULL))
			die("weights overflow");
		/* ~1 ms apart while running; one time in 50, a sleep of up to 50 ms. */
		g->next += 950000 + rnd(&seed) % 100000;
		if (rnd(&seed) % 50 == 0)
			g->next += rnd(&seed) % 50000000;
	}
	free(th);
	free(frames);
	return ps;
}

static struct profile_set *
load(const char *file)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps;

	if (import_file(file, NULL, &opts, &ps, &err))
		die("%s", tf_error_text(&err));
	return ps;
}

static uint64_t
boxes(const struct timeline *tl)
{
	uint64_t n = 0;

	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		n += tl->lanes[l].nr_boxes;
	return n;
}

int
main(int argc, char **argv)
{
	struct profile_set *ps;
	struct profile *p;
	struct timeline tl;
	struct sample_filter half;
	bool *keep;
	double ms[5], merged[5], t0;
	size_t lanes_mem;

	t0 = now_ms();
	ps = argc > 1 ? load(argv[1]) : generate();
	p = ps->profiles[0];
	for (size_t i = 1; i < ps->nr_profiles; i++)
		if (ps->profiles[i]->nr_samples > p->nr_samples)
			p = ps->profiles[i];
	printf("profile: %zu samples, %u threads, %u stacks (%s in %.0f ms)\n", p->nr_samples,
	       ps->nr_threads, ps->nr_stacks, argc > 1 ? argv[1] : "generated", now_ms() - t0);

	for (int i = 0; i < 5; i++) {
		t0 = now_ms();
		timeline_build(&tl, ps, p, NULL);
		ms[i] = now_ms() - t0;
		lanes_mem = timeline_memory(&tl);
		t0 = now_ms();
		timeline_merged(&tl);
		merged[i] = now_ms() - t0;
		if (i < 4)
			timeline_release(&tl);
	}
	printf("all threads: %u lanes, %llu boxes (%.2f per sample), period %llu ns\n",
	       tl.nr_lanes, (unsigned long long)boxes(&tl),
	       (double)boxes(&tl) / (double)(p->nr_samples + !p->nr_samples),
	       (unsigned long long)tl.axis.period);
	printf("  lanes: median %.1f ms, %.1f bytes per sample\n", median(ms, 5),
	       (double)lanes_mem / (double)(p->nr_samples + !p->nr_samples));
	printf("  merged chart: median %.1f ms more, %.1f bytes per sample more\n",
	       median(merged, 5),
	       (double)(timeline_memory(&tl) - lanes_mem) / (double)(p->nr_samples + !p->nr_samples));
	timeline_release(&tl);

	keep = xcalloc(ps->nr_threads + 1, sizeof(*keep));
	for (thread_id t = 0; t < ps->nr_threads; t += 2)
		keep[t] = true;
	half.threads = keep;
	for (int i = 0; i < 5; i++) {
		t0 = now_ms();
		timeline_build(&tl, ps, p, &half);
		ms[i] = now_ms() - t0;
		t0 = now_ms();
		timeline_merged(&tl);
		merged[i] = now_ms() - t0;
		timeline_release(&tl);
	}
	printf("half the threads: lanes median %.1f ms, merged chart %.1f ms more\n",
	       median(ms, 5), median(merged, 5));
	free(keep);
	profile_set_free(ps);
	return 0;
}

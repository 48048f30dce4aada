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
#include "tflame/layout.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/xalloc.h"

#include "bench.h"

/* The stack of box i of c. */
#define BOX_STACK(c, i) chart_stack(c, i)

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

static uint64_t
boxes(const struct timeline *tl)
{
	uint64_t n = 0;

	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		n += tl->lanes[l].nr_boxes;
	return n;
}

/*
 * One redraw of c over [x0, x1) at width x rows: the layout, and the
 * frame of every box it shows, which painting looks up for the label.
 */
static size_t
redraw(struct layout *l, const struct chart *c, uint64_t x0, uint64_t x1, uint32_t width,
       uint32_t rows, uint64_t *sink)
{
	struct view v = { x0, x1, width, 0, rows, true };

	layout_chart(l, c, &v);
	for (size_t b = 0; b < l->nr; b++)
		*sink += c->ps->stacks[BOX_STACK(c, l->boxes[b].node)].frame;
	return l->nr;
}

/* Median redraw times of c at several zooms, and of chart_find() probes. */
static void
time_redraws(const char *name, const struct chart *c)
{
	enum { RUNS = 101, PROBES = 1000 };
	static const uint64_t parts[] = { 1, 16, 1024, 65536 };
	double ms[RUNS];
	struct layout l;
	uint64_t sink = 0, seed = 7;

	layout_init(&l);
	for (size_t z = 0; z < sizeof(parts) / sizeof(parts[0]); z++) {
		uint64_t span = c->total / parts[z], x0 = (c->total - span) / 2;
		size_t nr = 0;

		for (int r = 0; r < RUNS; r++) {
			double t0 = now_ms();

			nr = redraw(&l, c, x0, x0 + span, 200, 60, &sink);
			ms[r] = now_ms() - t0;
		}
		printf("  redraw %-6s 200x60, 1/%-5llu of x: %5zu boxes, median %6.3f ms\n", name,
		       (unsigned long long)parts[z], nr, median(ms, RUNS));
	}
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();

		for (int k = 0; k < PROBES; k++) {
			uint32_t row = c->nr_rows ? rnd(&seed) % (c->nr_rows < 24 ? c->nr_rows : 24) : 0;

			sink += chart_find(c, row, (uint64_t)rnd(&seed) * c->total >> 32);
		}
		ms[r] = now_ms() - t0;
	}
	printf("  %d chart_find on rows 0-23 of %s: median %.3f ms (%llu)\n", PROBES, name,
	       median(ms, RUNS), (unsigned long long)(sink & 1));
	layout_release(&l);
}

int
main(int argc, char **argv)
{
	enum { CHANGES = 9 };
	struct profile_set *ps;
	struct profile *p;
	struct timeline tl;
	struct sample_filter half = { 0 };
	struct model m;
	bool *keep, *masks[3];
	double ms[CHANGES], merged[5], t0;
	size_t lanes_mem, mem;
	uint64_t nr_samples;

	/* malloc()'s heaps in huge pages, as tflame's main() has them */
	xheap_huge_pages();
	t0 = now_ms();
	ps = argc > 1 ? bench_load(argv[1]) : generate();
	p = ps->profiles[0];
	for (size_t i = 1; i < ps->nr_profiles; i++)
		if (ps->profiles[i]->nr_samples > p->nr_samples)
			p = ps->profiles[i];
	nr_samples = p->nr_samples + !p->nr_samples;
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
	mem = timeline_memory(&tl);
	printf("all threads: %u lanes, %llu boxes (%.2f per sample), period %llu ns\n",
	       tl.nr_lanes, (unsigned long long)boxes(&tl),
	       (double)boxes(&tl) / (double)nr_samples, (unsigned long long)tl.axis.period);
	printf("  lanes: median %.1f ms, %.1f bytes per sample\n", median(ms, 5),
	       (double)lanes_mem / (double)nr_samples);
	printf("  merged chart: median %.1f ms more, %.1f bytes per sample more\n",
	       median(merged, 5), (double)(mem - lanes_mem) / (double)nr_samples);
	printf("  memory: %.1f bytes per sample in all\n", (double)mem / (double)nr_samples);
	time_redraws("merged", timeline_merged(&tl));
	time_redraws("lane 0", &tl.lanes[0]);
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
	printf("half the threads, from scratch: lanes median %.1f ms, merged chart %.1f ms more\n",
	       median(ms, 5), median(merged, 5));

	/*
	 * A selection change as the UI makes it: the model's chart for
	 * half the threads, the other half, a quarter, and all of them,
	 * round and round, after a first Time Order of all threads.
	 */
	for (int k = 0; k < 3; k++) {
		masks[k] = xcalloc(ps->nr_threads + 1, sizeof(bool));
		for (thread_id t = 0; t < ps->nr_threads; t++)
			masks[k][t] = k == 0 ? !(t % 2) : k == 1 ? t % 2 : !(t % 4);
	}
	model_init(&m, ps);
	for (size_t i = 0; i < ps->nr_profiles; i++)
		if (ps->profiles[i] == p)
			model_set_profile(&m, i);
	t0 = now_ms();
	model_chart(&m);
	printf("model, first Time Order of all threads: %.1f ms\n", now_ms() - t0);
	for (int i = 0; i < CHANGES; i++) {
		model_set_threads(&m, i % 4 == 3 ? NULL : masks[i % 4]);
		t0 = now_ms();
		model_chart(&m);
		ms[i] = now_ms() - t0;
	}
	t0 = 0;
	for (int i = 0; i < CHANGES; i++)
		t0 = ms[i] > t0 ? ms[i] : t0;
	printf("model, selection change (half, other half, quarter, all): median %.1f ms, "
	       "max %.1f ms\n", median(ms, CHANGES), t0);
	model_release(&m);
	for (int k = 0; k < 3; k++)
		free(masks[k]);
	free(keep);
	return 0;
}

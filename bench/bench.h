#ifndef TFLAME_BENCH_H
#define TFLAME_BENCH_H

/*
 * Helpers shared by the benchmark programs (built by `make bench`): a
 * monotonic clock in milliseconds, the page faults so far, a
 * deterministic pseudo-random generator so every run measures the same
 * input, the median of a set of runs, and a profile read from a file
 * given on the command line.
 */

#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "tflame/clock.h"
#include "tflame/error.h"
#include "tflame/import.h"
#include "tflame/profile.h"
#include "tflame/xalloc.h"

static inline double
now_ms(void)
{
	return clock_ms();
}

/* Minor page faults of the process so far: fresh memory touched for the first time. */
static inline long
bench_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* A 64-bit LCG: the next number of the sequence seeded in *s. */
static inline uint32_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v). */
static inline double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

/* The profile in file, as tflame reads it; dies on an error. */
static inline struct profile_set *
bench_load(const char *file)
{
	struct import_options opts = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps;

	if (import_file(file, NULL, &opts, &ps, &err))
		die("%s", tf_error_text(&err));
	return ps;
}

#endif /* TFLAME_BENCH_H */

#ifndef TFLAME_BENCH_H
#define TFLAME_BENCH_H

/*
 * Helpers shared by the benchmark programs (built by `make bench`): a
 * monotonic clock in milliseconds, a deterministic pseudo-random generator
 * so every run measures the same input, and the median of a set of runs.
 */

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

#endif /* TFLAME_BENCH_H */

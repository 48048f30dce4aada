/*
 * The program behind data/sample.perf.txt: a few functions of different
 * cost, some recursion and two threads, so that every pane of tflame has
 * something to show.
 *
 * Build and record:
 *	cc -O1 -fno-omit-frame-pointer -g -pthread -o demo data/demo.c
 *	perf record -F 999 -g -o demo.data ./demo
 *	perf script -i demo.data > data/sample.perf.txt
 */

#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* volatile sinks keep -O1 from deleting the work */
static volatile uint64_t sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A tight arithmetic loop: pure self time. */
static __attribute__((noinline)) uint64_t
spin(unsigned n)
{
	uint64_t x = 88172645463325252ULL;

	for (unsigned i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* Recursion with a little work per level: deep, repetitive stacks. */
static __attribute__((noinline)) uint64_t
fib(unsigned n)
{
	if (n < 2)
		return spin(40) & 1;
	return fib(n - 1) + fib(n - 2);
}

/* Memory traffic: time spent in libc. */
static __attribute__((noinline)) void
shuffle(char *buf, size_t len)
{
	for (int i = 0; i < 64; i++) {
		memset(buf, i, len);
		memmove(buf + 1, buf, len - 1);
	}
	sink += (unsigned char)buf[len / 2];
}

static __attribute__((noinline)) void
parse_config(void)
{
	sink += spin(200000);
}

static __attribute__((noinline)) void
render_frame(char *buf, size_t len)
{
	shuffle(buf, len);
	sink += fib(18);
	sink += spin(50000);
}

static __attribute__((noinline)) void
compress_block(unsigned depth)
{
	/* Direct recursion of varying depth. */
	if (depth)
		compress_block(depth - 1);
	sink += spin(20000 * (depth + 1));
}

static void *
worker(void *arg)
{
	double end = *(const double *)arg;

	/* Its own comm, so that the thread filter has two names to show. */
	pthread_setname_np(pthread_self(), "compressor");
	while (now() < end)
		for (unsigned d = 0; d < 6; d++)
			compress_block(d);
	return NULL;
}

int
main(void)
{
	static char buf[256 * 1024];
	double end = now() + 1.5;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &end))
		return 1;
	parse_config();
	while (now() < end)
		render_frame(buf, sizeof(buf));
	pthread_join(t, NULL);
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}

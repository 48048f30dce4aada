#ifndef TFLAME_CLOCK_H
#define TFLAME_CLOCK_H

/* The one monotonic clock that timings and progress read. */

#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC: only differences mean anything. */
static inline double
clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif

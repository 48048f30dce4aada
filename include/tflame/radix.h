#ifndef TFLAME_RADIX_H
#define TFLAME_RADIX_H

/*
 * One radix sort for the whole tree, instead of a hand-written one per
 * array: records of any size, sorted by an unsigned 64-bit key in them.
 *
 * A least significant digit sort, stable, O(n) a pass: a digit of bits
 * bits a pass, skipping the digits in which no two keys differ (the high
 * bits of weights, most of an address's in one module), so real keys
 * take two or three passes. Fewer than RADIX_SMALL records take an
 * insertion sort: a count array would cost more than they do.
 *
 * It is static inline and always inlined: with the record's size and the
 * key's place constants at the call, the copies and reads compile to
 * plain moves, as fast as the hand-written loops it replaced.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/xalloc.h"

#define RADIX_SMALL 32
#define RADIX_RECORD_MAX 64 /* the insertion sort's; larger records always take passes */

static inline uint64_t
radix_key(const char *rec, size_t key_off)
{
	uint64_t k;

	memcpy(&k, rec + key_off, sizeof(k));
	return k;
}

/*
 * Sort the n records of size bytes at base by the uint64_t at byte
 * key_off in each, stably, bits (1 to 16) bits a pass; tmp is room for
 * as many records. Returns base or tmp, whichever holds the result; the
 * other is left in any order.
 */
static inline __attribute__((always_inline)) void *
radix_sort(void *base, void *tmp, size_t n, size_t size, size_t key_off, unsigned bits)
{
	char *src = base, *dst = tmp, *swap;
	size_t buckets = (size_t)1 << bits, *count;
	uint64_t k0, differ = 0, mask = buckets - 1;

	if (n < RADIX_SMALL && size <= RADIX_RECORD_MAX) {
		char rec[RADIX_RECORD_MAX];

		for (size_t i = 1; i < n; i++) {
			uint64_t k = radix_key(src + i * size, key_off);
			size_t j = i;

			if (radix_key(src + (i - 1) * size, key_off) <= k)
				continue;
			memcpy(rec, src + i * size, size);
			for (; j > 0 && radix_key(src + (j - 1) * size, key_off) > k; j--)
				memcpy(src + j * size, src + (j - 1) * size, size);
			memcpy(src + j * size, rec, size);
		}
		return base;
	}
	k0 = radix_key(src, key_off);
	for (size_t i = 1; i < n; i++)
		differ |= radix_key(src + i * size, key_off) ^ k0;
	count = xmalloc(sizeof(*count) * buckets);
	for (unsigned shift = 0; shift < 64; shift += bits) {
		size_t sum = 0;

		if (!(differ >> shift & mask))
			continue;
		memset(count, 0, sizeof(*count) * buckets);
		for (size_t i = 0; i < n; i++)
			count[radix_key(src + i * size, key_off) >> shift & mask]++;
		for (size_t b = 0; b < buckets; b++) {
			size_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			const char *rec = src + i * size;

			memcpy(dst + count[radix_key(rec, key_off) >> shift & mask]++ * size, rec,
			       size);
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	free(count);
	return src;
}

#endif

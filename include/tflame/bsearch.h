#ifndef TFLAME_BSEARCH_H
#define TFLAME_BSEARCH_H

/*
 * One binary search for the whole tree, instead of a hand-written loop per
 * sorted array.
 *
 * A sorted array is split by the key into a prefix of elements that come
 * before it and the rest: bsearch_first() finds where the rest begins, as
 * C++'s std::partition_point does. Both bounds come out of it:
 *
 *	lower bound (first element >= key): before = "elem < key"
 *	upper bound (first element > key):  before = "elem <= key"
 *
 * and "the last element <= key", the usual question for sorted ranges
 * [start, end), is the upper bound less one (none when it is 0).
 *
 * It is static inline: with a before() the compiler can see, the call is
 * inlined and the loop is as fast as a hand-written one.
 */

#include <stdbool.h>
#include <stddef.h>

/* Does elem come before key? Must be true for a prefix of the array only. */
typedef bool bsearch_before_fn(const void *elem, const void *key);

/*
 * The index of the first of the nr elements of size bytes at base for
 * which before(elem, key) is false; nr when it is true for every one.
 * O(log nr) calls of before(); base may be NULL when nr is 0.
 */
static inline size_t
bsearch_first(const void *base, size_t nr, size_t size, const void *key,
	      bsearch_before_fn *before)
{
	const char *p = base;
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(p + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* TFLAME_BSEARCH_H */

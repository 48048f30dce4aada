#ifndef TFLAME_XALLOC_H
#define TFLAME_XALLOC_H

/*
 * Allocation that never returns NULL, and the one way out of the program.
 *
 * Out of memory is not an error tflame recovers from: xmalloc() and friends
 * call die(), which first runs the hook registered with set_die_hook() (the
 * TUI registers one that restores the terminal) and then exits with status
 * 3. Library code never calls exit() directly.
 */

#include <stddef.h>
#include <stdnoreturn.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
/*
 * xcalloc() for hash tables: zeroed by writing every byte. calloc() leaves
 * a large block's pages unmapped; a lookup's read maps each to the shared
 * zero page, and the insert's write after it then takes a copy-on-write
 * fault that flushes the TLB of every CPU running one of our threads (an
 * IPI each). Writing the zeros first maps the pages once, for writing.
 */
void *xzalloc_table(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/*
 * Ask for transparent huge pages on the block p of size bytes, as
 * xmalloc() and xcalloc() do for a big one (4 MiB or more), which xrealloc()
 * does not: for a block reallocated to the size it keeps. Returns p.
 */
void *xalloc_huge(void *p, size_t size);
/* xrealloc() of nmemb * size bytes, dying on overflow of the product. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
/*
 * Fresh memory for n elements of size bytes, dying on overflow: from
 * least bytes on, a block aligned on and rounded up to 2 MiB huge pages
 * that asks for transparent huge pages (one fault for 2 MiB where 4 KiB
 * pages fault 512 times); under least, xmalloc(). For an array written
 * soon after; freed with free(), and xrealloc() works on it (without the
 * alignment).
 */
void *xmalloc_huge(size_t n, size_t size, size_t least);
/*
 * An array that a rebuild grows to a new size, such as a call tree's
 * per-stack arrays: nmemb elements of size bytes, room for old before
 * (0 with ptr NULL: a new one). From 4 MiB on, it is mapped pages of its
 * own, 2 MiB-aligned in transparent huge pages, and growing moves them
 * by mremap(), contents and all, without touching them: only the new
 * end is fresh memory, or pages xfree_pages() let go before, with what
 * they held (never zeroed). Under that, xreallocarray(). Free it with
 * xfree_pages() and the room it has, never with free().
 */
void *xgrow_pages(void *ptr, size_t old, size_t nmemb, size_t size);
void xfree_pages(void *ptr, size_t nmemb, size_t size);
/*
 * Ask for transparent huge pages in the malloc() heap the calling thread
 * allocates from (see xalloc.c): once at the start of the program and of
 * each thread that allocates much. Cheap when the heap was advised before.
 */
void xheap_huge_pages(void);
/* Bytes mapped by xgrow_pages() and not freed yet, for the benchmarks. */
size_t xpages_held(void);
/*
 * Bytes xfree_pages() let go and keeps for the next xgrow_pages() (see
 * xalloc.c): still the process's memory.
 */
size_t xpages_pooled(void);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xmalloc()/memcpy() of exactly n bytes. */
void *xmemdup(const void *p, size_t n);

/*
 * Print "tflame: <message>" on stderr, run the die hook, exit(3).
 * Safe to call from any thread; the hook runs at most once.
 */
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

typedef void die_hook_fn(void);
/* Register the function die() runs before exiting (NULL removes it). */
void set_die_hook(die_hook_fn *fn);

/* A programmer error: report where and abort (after the die hook). */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Grow an array so that it holds at least nr + 1 elements: x = the pointer,
 * nr = elements in use, alloc = elements allocated. Doubles the capacity, so
 * appending n elements costs O(n) in all.
 */
#define ALLOC_GROW(x, nr, alloc) \
	do { \
		if ((nr) >= (alloc)) { \
			(alloc) = (alloc) ? (alloc) * 2 : 16; \
			if ((alloc) <= (nr)) \
				(alloc) = (nr) + 1; \
			(x) = xreallocarray((x), (alloc), sizeof(*(x))); \
		} \
	} while (0)

/* Like ALLOC_GROW, for room for n more elements at once. */
#define ALLOC_GROW_BY(x, nr, n, alloc) \
	do { \
		if ((nr) + (n) > (alloc)) { \
			(alloc) = (alloc) ? (alloc) * 2 : 16; \
			if ((alloc) < (nr) + (n)) \
				(alloc) = (nr) + (n); \
			(x) = xreallocarray((x), (alloc), sizeof(*(x))); \
		} \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* TFLAME_XALLOC_H */

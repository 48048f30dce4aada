#ifndef TFLAME_INTERN_H
#define TFLAME_INTERN_H

/*
 * String interning: every distinct byte string is stored once, in an arena,
 * and named by a small integer id.
 *
 * Ids are dense, starting at 0, and id 0 is always the empty string
 * (STR_EMPTY), so a zeroed struct means "no name". Strings are stored with a
 * terminating NUL and may contain NUL bytes of their own; intern_len() gives
 * the real length. A pointer from intern_get() stays valid until
 * intern_release(): the arena never moves a string.
 *
 * Lookups use an open-addressing table that keeps 32 bits of each hash
 * beside the id, so a probe rarely touches the string itself.
 */

#include <stddef.h>
#include <stdint.h>

struct tf_error;

typedef uint32_t str_id;
#define STR_EMPTY ((str_id)0)

struct intern {
	const char **strs;   /* id -> string in the arena */
	uint32_t *lens;      /* id -> length, without the NUL */
	uint32_t nr, alloc;  /* ids in use / allocated */

	uint64_t *slots;     /* (hash32 << 32) | (id + 1); 0 is an empty slot */
	uint32_t mask;       /* slot count - 1 (a power of two) */

	char **chunks;       /* arena chunks, freed by intern_release() */
	size_t nr_chunks, alloc_chunks;
	char *cur;           /* free space in the newest chunk */
	size_t cur_left;
	size_t arena_bytes;  /* bytes allocated for the arena */
};

void intern_init(struct intern *in);
void intern_release(struct intern *in);
/*
 * Make dst (not initialised) a copy of src in which every id names the
 * same string, with an arena of its own: the two then grow apart. src is
 * only read, so another thread may read it meanwhile.
 */
void intern_copy(struct intern *dst, const struct intern *src);

/*
 * The id of the len bytes at s, adding them if new. Dies on out of memory
 * or when more than 2^32 - 2 strings or 4 GiB in one string are asked for.
 */
str_id intern_str(struct intern *in, const char *s, size_t len);
/* As intern_str(), with the hash already computed by intern_hash(). */
str_id intern_str_hashed(struct intern *in, const char *s, size_t len,
			 uint64_t hash);
/* The hash intern_str() uses for s. */
uint64_t intern_hash(const char *s, size_t len);
/* The id of s if it was interned, else -1. */
int64_t intern_find(const struct intern *in, const char *s, size_t len);

static inline const char *
intern_get(const struct intern *in, str_id id)
{
	return in->strs[id];
}

static inline uint32_t
intern_len(const struct intern *in, str_id id)
{
	return in->lens[id];
}

static inline uint32_t
intern_count(const struct intern *in)
{
	return in->nr;
}

/* Bytes held by the table, the arrays and the arena. */
size_t intern_memory(const struct intern *in);

/*
 * Check the invariants (every id findable under its own hash, lengths,
 * NULs, id 0 empty, no duplicates). Returns 0, or -1 with err set.
 */
int intern_check(const struct intern *in, struct tf_error *err);

#endif /* TFLAME_INTERN_H */

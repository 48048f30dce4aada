#include "config.h"

#include "tflame/intern.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/xalloc.h"

#define CHUNK_SIZE (256 * 1024)
#define MAX_IDS (UINT32_MAX - 2)

uint64_t
intern_hash(const char *s, size_t len)
{
	return hash_bytes(s, len, 0);
}

static void
rehash(struct intern *in, uint32_t nslots)
{
	uint64_t *slots = xzalloc_table(nslots, sizeof(*slots));
	uint32_t mask = nslots - 1;

	for (uint32_t i = 0; i <= in->mask && in->slots; i++) {
		uint64_t e = in->slots[i];
		uint32_t pos;

		if (!e)
			continue;
		pos = (uint32_t)(e >> 32) & mask;
		while (slots[pos])
			pos = (pos + 1) & mask;
		slots[pos] = e;
	}
	free(in->slots);
	in->slots = slots;
	in->mask = mask;
}

void
intern_init(struct intern *in)
{
	memset(in, 0, sizeof(*in));
	rehash(in, 1024);
	intern_str(in, "", 0);
}

void
intern_release(struct intern *in)
{
	for (size_t i = 0; i < in->nr_chunks; i++)
		free(in->chunks[i]);
	free(in->chunks);
	free(in->strs);
	free(in->lens);
	free(in->slots);
	memset(in, 0, sizeof(*in));
}

static char *arena_alloc(struct intern *in, size_t size);

void
intern_copy(struct intern *dst, const struct intern *src)
{
	size_t bytes = 0;
	char *p;

	memset(dst, 0, sizeof(*dst));
	for (uint32_t id = 0; id < src->nr; id++)
		bytes += (size_t)src->lens[id] + 1;
	dst->alloc = src->alloc;
	dst->nr = src->nr;
	dst->strs = xreallocarray(NULL, dst->alloc, sizeof(*dst->strs));
	dst->lens = xmemdup(src->lens, sizeof(*src->lens) * dst->alloc);
	dst->mask = src->mask;
	dst->slots = xmemdup(src->slots, sizeof(*src->slots) * ((size_t)src->mask + 1));
	/* Every string in one chunk, copied in id order. */
	p = arena_alloc(dst, bytes ? bytes : 1);
	for (uint32_t id = 0; id < src->nr; id++) {
		memcpy(p, src->strs[id], (size_t)src->lens[id] + 1);
		dst->strs[id] = p;
		p += src->lens[id] + 1;
	}
}

static char *
arena_alloc(struct intern *in, size_t size)
{
	char *p;

	if (size > in->cur_left) {
		size_t chunk = size > CHUNK_SIZE / 4 ? size : CHUNK_SIZE;

		ALLOC_GROW(in->chunks, in->nr_chunks, in->alloc_chunks);
		p = xmalloc(chunk);
		in->chunks[in->nr_chunks++] = p;
		in->arena_bytes += chunk;
		if (chunk == size)
			return p; /* a big string gets a chunk of its own */
		in->cur = p;
		in->cur_left = chunk;
	}
	p = in->cur;
	in->cur += size;
	in->cur_left -= size;
	return p;
}

int64_t
intern_find(const struct intern *in, const char *s, size_t len)
{
	uint64_t hash = intern_hash(s, len);
	uint32_t h32 = (uint32_t)hash;
	uint32_t pos = h32 & in->mask;

	for (;; pos = (pos + 1) & in->mask) {
		uint64_t e = in->slots[pos];
		uint32_t id;

		if (!e)
			return -1;
		if ((uint32_t)(e >> 32) != h32)
			continue;
		id = (uint32_t)e - 1;
		if (in->lens[id] == len && !memcmp(in->strs[id], s, len))
			return id;
	}
}

str_id
intern_str_hashed(struct intern *in, const char *s, size_t len, uint64_t hash)
{
	uint32_t h32 = (uint32_t)hash;
	uint32_t pos = h32 & in->mask;
	uint32_t id;
	char *copy;

	for (;; pos = (pos + 1) & in->mask) {
		uint64_t e = in->slots[pos];

		if (!e)
			break;
		if ((uint32_t)(e >> 32) != h32)
			continue;
		id = (uint32_t)e - 1;
		if (in->lens[id] == len && !memcmp(in->strs[id], s, len))
			return id;
	}

	if (in->nr >= MAX_IDS)
		die("too many distinct strings (%u)", in->nr);
	if (len >= UINT32_MAX)
		die("string of %zu bytes is too long", len);
	copy = arena_alloc(in, len + 1);
	if (len)
		memcpy(copy, s, len);
	copy[len] = '\0';

	if (in->nr >= in->alloc) {
		in->alloc = in->alloc ? in->alloc * 2 : 1024;
		in->strs = xreallocarray(in->strs, in->alloc, sizeof(*in->strs));
		in->lens = xreallocarray(in->lens, in->alloc, sizeof(*in->lens));
	}
	id = in->nr++;
	in->strs[id] = copy;
	in->lens[id] = (uint32_t)len;
	in->slots[pos] = ((uint64_t)h32 << 32) | (id + 1);
	/* Keep the load factor under 1/2. */
	if ((uint64_t)in->nr * 2 > (uint64_t)in->mask + 1)
		rehash(in, (in->mask + 1) * 2);
	return id;
}

str_id
intern_str(struct intern *in, const char *s, size_t len)
{
	return intern_str_hashed(in, s, len, intern_hash(s, len));
}

size_t
intern_memory(const struct intern *in)
{
	return in->arena_bytes + (size_t)in->alloc * (sizeof(*in->strs) + sizeof(*in->lens)) +
	       ((size_t)in->mask + 1) * sizeof(*in->slots) +
	       in->alloc_chunks * sizeof(*in->chunks);
}

int
intern_check(const struct intern *in, struct tf_error *err)
{
	uint32_t used = 0;

	if (in->nr < 1 || in->lens[0] != 0 || in->strs[0][0] != '\0')
		return tf_error_set(err, "intern: id 0 is not the empty string");
	if (((in->mask + 1) & in->mask) != 0)
		return tf_error_set(err, "intern: slot count %u is not a power of two",
				    in->mask + 1);
	for (uint32_t i = 0; i <= in->mask; i++) {
		uint64_t e = in->slots[i];

		if (!e)
			continue;
		used++;
		if ((uint32_t)e - 1 >= in->nr)
			return tf_error_set(err, "intern: slot %u names id %u of %u", i,
					    (uint32_t)e - 1, in->nr);
	}
	if (used != in->nr)
		return tf_error_set(err, "intern: %u slots used for %u strings", used, in->nr);
	for (uint32_t id = 0; id < in->nr; id++) {
		if (in->strs[id][in->lens[id]] != '\0')
			return tf_error_set(err, "intern: string %u is not terminated", id);
		if (intern_find(in, in->strs[id], in->lens[id]) != (int64_t)id)
			return tf_error_set(err, "intern: string %u is not found under its hash",
					    id);
	}
	return 0;
}

#ifndef TFLAME_HASH_H
#define TFLAME_HASH_H

/*
 * Fast non-cryptographic hashing for the interning tables.
 *
 * hash_bytes() reads eight bytes at a time and mixes with a 64x64->128 bit
 * multiply; it is not seeded per process, so never use it where an attacker
 * controls the keys and a flood of collisions would matter more than speed
 * (the tables here grow and stay O(1) on average for profile data).
 */

#include <stdint.h>
#include <string.h>

__extension__ typedef unsigned __int128 hash_u128;

static inline uint64_t
hash_mix(uint64_t a, uint64_t b)
{
	hash_u128 r = (hash_u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t
hash_load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

#define HASH_K0 0xa0761d6478bd642fULL
#define HASH_K1 0xe7037ed1a0b428dbULL
#define HASH_K2 0x8ebc6af09c88c6e3ULL

/* Hash len bytes at p, starting from seed (0 is fine). */
static inline uint64_t
hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ HASH_K0 ^ (len * HASH_K2);
	while (len >= 8) {
		h = hash_mix(h ^ hash_load64(p), HASH_K1);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = 0;
		memcpy(&v, p, len);
		h = hash_mix(h ^ v ^ ((uint64_t)len << 56), HASH_K1);
	}
	return hash_mix(h, HASH_K2);
}

/* Hash one or two integers (table keys made of ids). */
static inline uint64_t
hash_u64(uint64_t a)
{
	return hash_mix(a ^ HASH_K0, HASH_K1);
}

static inline uint64_t
hash_pair(uint64_t a, uint64_t b)
{
	return hash_mix(a ^ HASH_K0, b ^ HASH_K1);
}

#endif /* TFLAME_HASH_H */

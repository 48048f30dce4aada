#ifndef TFLAME_STRBUF_H
#define TFLAME_STRBUF_H

/*
 * A growable, always NUL-terminated byte buffer, after git's strbuf.
 *
 * sb.buf is never NULL: an empty strbuf points at a shared "" until the
 * first write, so it can be printed or compared at any time. sb.len is the
 * number of bytes in use, not counting the NUL. The buffer may hold NUL
 * bytes of its own.
 *
 * Lifetimes: strbuf_init()/strbuf_release() for a strbuf embedded in
 * something else; strbuf_detach() hands the malloc()ed buffer to the caller
 * and leaves the strbuf empty.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Return the buffer (to be free()d by the caller); sb becomes empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
/* Make room for at least extra more bytes (plus the NUL). */
void strbuf_grow(struct strbuf *sb, size_t extra);
/* Set the length (len <= alloc) and write the NUL. */
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addchars(struct strbuf *sb, int c, size_t n);
/* Append v in decimal: strbuf_addf("%llu") without the format's cost. */
void strbuf_add_uint(struct strbuf *sb, uint64_t v);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

#endif /* TFLAME_STRBUF_H */

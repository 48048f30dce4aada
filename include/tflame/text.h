#ifndef TFLAME_TEXT_H
#define TFLAME_TEXT_H

/*
 * Text from profiles, made safe for a terminal.
 *
 * Profiles are untrusted: a frame name can carry ESC, BEL, backspace, C1
 * controls, bidi overrides or invalid UTF-8, any of which would corrupt a
 * terminal or mislead the reader. Everything taken from a profile goes
 * through text_escape() before it is printed or drawn.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct strbuf;

/*
 * Decode the UTF-8 sequence at s (len > 0 bytes available): returns its
 * length (1-4) and sets *cp, or returns 0 if it is not valid UTF-8
 * (overlong forms, surrogates and code points past U+10FFFF are invalid).
 */
size_t text_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/*
 * Append s to out with every control character escaped: C0 controls and
 * DEL as \t, \n, \r, \e or \xNN, C1 controls and bidi/format controls
 * (U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) as \u{XXXX}, invalid UTF-8
 * bytes as \xNN, and a backslash as \\. Valid printable UTF-8 is kept.
 */
void text_escape(struct strbuf *out, const char *s, size_t len);

/* text_escape() of a NUL-terminated string. */
void text_escape_str(struct strbuf *out, const char *s);

/*
 * Append len bytes of data to out in base64 (RFC 4648, with '=' padding):
 * how bytes travel inside a terminal escape, such as OSC 52's.
 */
void text_base64(struct strbuf *out, const void *data, size_t len);

/* Whether the len bytes at s start with the string lit. */
static inline bool
text_starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && !memcmp(s, lit, n);
}

#endif /* TFLAME_TEXT_H */

#include "config.h"

#include "tflame/text.h"

#include <stdint.h>
#include <string.h>

#include "tflame/strbuf.h"

size_t
text_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static int
is_format_control(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x061c || cp == 0xfeff;
}

void
text_escape(struct strbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t n;

		if (c >= 0x20 && c < 0x7f) {
			if (c == '\\')
				strbuf_addch(out, '\\');
			strbuf_addch(out, c);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\t':
				strbuf_addstr(out, "\\t");
				break;
			case '\n':
				strbuf_addstr(out, "\\n");
				break;
			case '\r':
				strbuf_addstr(out, "\\r");
				break;
			case 0x1b:
				strbuf_addstr(out, "\\e");
				break;
			default:
				strbuf_addf(out, "\\x%02x", c);
			}
			i++;
			continue;
		}
		n = text_utf8_decode(s + i, len - i, &cp);
		if (!n) {
			strbuf_addf(out, "\\x%02x", c);
			i++;
		} else if (is_format_control(cp)) {
			strbuf_addf(out, "\\u{%04x}", (unsigned)cp);
			i += n;
		} else {
			strbuf_add(out, s + i, n);
			i += n;
		}
	}
}

void
text_escape_str(struct strbuf *out, const char *s)
{
	text_escape(out, s, strlen(s));
}

void
text_base64(struct strbuf *out, const void *data, size_t len)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;

		if (n > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (n > 2)
			v |= p[i + 2];
		strbuf_addch(out, digits[v >> 18]);
		strbuf_addch(out, digits[v >> 12 & 63]);
		strbuf_addch(out, n > 1 ? digits[v >> 6 & 63] : '=');
		strbuf_addch(out, n > 2 ? digits[v & 63] : '=');
	}
}

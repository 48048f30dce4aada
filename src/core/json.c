#include "config.h"

#include "tflame/json.h"

#include <math.h>
#include <string.h>

#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

void
json_init(struct json_writer *jw, FILE *out)
{
	memset(jw, 0, sizeof(*jw));
	jw->out = out;
	jw->first[0] = true;
}

void
json_finish(struct json_writer *jw)
{
	if (jw->depth)
		BUG("json_finish() inside an open object or array");
	fputc('\n', jw->out);
}

static void
indent(struct json_writer *jw)
{
	fputc('\n', jw->out);
	for (int i = 0; i < jw->depth; i++)
		fputs("  ", jw->out);
}

/* Before any value or key: the comma and newline it needs. */
static void
before_item(struct json_writer *jw)
{
	if (jw->after_key) {
		jw->after_key = false;
		return;
	}
	if (!jw->first[jw->depth])
		fputc(',', jw->out);
	if (jw->depth)
		indent(jw);
	jw->first[jw->depth] = false;
}

static void
open_level(struct json_writer *jw, int c)
{
	before_item(jw);
	fputc(c, jw->out);
	if (jw->depth + 1 >= JSON_MAX_DEPTH)
		BUG("JSON nested deeper than %d", JSON_MAX_DEPTH);
	jw->first[++jw->depth] = true;
}

static void
close_level(struct json_writer *jw, int c)
{
	bool empty = jw->first[jw->depth];

	if (jw->depth <= 0)
		BUG("JSON close without open");
	jw->depth--;
	if (!empty)
		indent(jw);
	fputc(c, jw->out);
}

void
json_object_begin(struct json_writer *jw)
{
	open_level(jw, '{');
}

void
json_object_end(struct json_writer *jw)
{
	close_level(jw, '}');
}

void
json_array_begin(struct json_writer *jw)
{
	open_level(jw, '[');
}

void
json_array_end(struct json_writer *jw)
{
	close_level(jw, ']');
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t
utf8_seq(const unsigned char *s, size_t len)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void
json_quote(struct strbuf *sb, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	strbuf_addch(sb, '"');
	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		switch (c) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			i++;
			continue;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			i++;
			continue;
		case '\n':
			strbuf_addstr(sb, "\\n");
			i++;
			continue;
		case '\t':
			strbuf_addstr(sb, "\\t");
			i++;
			continue;
		case '\r':
			strbuf_addstr(sb, "\\r");
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7f) {
			strbuf_addf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_seq(s + i, len - i);
		if (!n) {
			strbuf_addstr(sb, "\\ufffd");
			i++;
			continue;
		}
		strbuf_add(sb, s + i, n);
		i += n;
	}
	strbuf_addch(sb, '"');
}

void
json_key(struct json_writer *jw, const char *key)
{
	struct strbuf sb = STRBUF_INIT;

	before_item(jw);
	json_quote(&sb, key, strlen(key));
	fputs(sb.buf, jw->out);
	fputs(": ", jw->out);
	strbuf_release(&sb);
	jw->after_key = true;
}

void
json_string_len(struct json_writer *jw, const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	before_item(jw);
	json_quote(&sb, s, len);
	fwrite(sb.buf, 1, sb.len, jw->out);
	strbuf_release(&sb);
}

void
json_string(struct json_writer *jw, const char *s)
{
	json_string_len(jw, s, strlen(s));
}

void
json_uint(struct json_writer *jw, uint64_t v)
{
	before_item(jw);
	fprintf(jw->out, "%llu", (unsigned long long)v);
}

void
json_int(struct json_writer *jw, int64_t v)
{
	before_item(jw);
	fprintf(jw->out, "%lld", (long long)v);
}

void
json_raw_number(struct json_writer *jw, const char *text)
{
	before_item(jw);
	fputs(text, jw->out);
}

void
json_double(struct json_writer *jw, double v)
{
	before_item(jw);
	if (!isfinite(v))
		fputs("null", jw->out);
	else
		fprintf(jw->out, "%.6g", v);
}

void
json_bool(struct json_writer *jw, bool v)
{
	before_item(jw);
	fputs(v ? "true" : "false", jw->out);
}

void
json_null(struct json_writer *jw)
{
	before_item(jw);
	fputs("null", jw->out);
}

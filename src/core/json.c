#include "config.h"

#include "tflame/json.h"

#include <math.h>
#include <string.h>

#include "tflame/strbuf.h"
#include "tflame/text.h"
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

void
json_quote(struct strbuf *sb, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	strbuf_addch(sb, '"');
	while (i < len) {
		unsigned char c = s[i];
		uint32_t cp;
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
		n = text_utf8_decode(s + i, len - i, &cp);
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

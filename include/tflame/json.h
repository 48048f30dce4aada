#ifndef TFLAME_JSON_H
#define TFLAME_JSON_H

/*
 * A small streaming JSON writer for `--json` output.
 *
 * Calls nest like the document: json_object_begin(), json_key(), a value,
 * ..., json_object_end(). Commas and two-space indentation are handled
 * here. Strings are written as valid UTF-8 JSON whatever the input bytes:
 * control characters are escaped and invalid UTF-8 becomes U+FFFD, so a
 * hostile frame name cannot break a consumer. Nesting deeper than
 * JSON_MAX_DEPTH is a BUG.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct strbuf;

#define JSON_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this level */
	bool after_key;             /* a key was written, its value comes next */
};

void json_init(struct json_writer *jw, FILE *out);
/* Finish the document with a newline. */
void json_finish(struct json_writer *jw);

void json_object_begin(struct json_writer *jw);
void json_object_end(struct json_writer *jw);
void json_array_begin(struct json_writer *jw);
void json_array_end(struct json_writer *jw);
void json_key(struct json_writer *jw, const char *key);

void json_string(struct json_writer *jw, const char *s);
void json_string_len(struct json_writer *jw, const char *s, size_t len);
void json_uint(struct json_writer *jw, uint64_t v);
void json_int(struct json_writer *jw, int64_t v);
/* A number written exactly as given (it must be valid JSON number text). */
void json_raw_number(struct json_writer *jw, const char *text);
void json_double(struct json_writer *jw, double v);
void json_bool(struct json_writer *jw, bool v);
void json_null(struct json_writer *jw);

/* Append s as a quoted JSON string to sb (the escaping json_string uses). */
void json_quote(struct strbuf *sb, const char *s, size_t len);

#endif /* TFLAME_JSON_H */

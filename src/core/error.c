#include "config.h"

#include "tflame/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tflame/strbuf.h"
#include "tflame/xalloc.h"


void
tf_error_init(struct tf_error *err)
{
	err->file = NULL;
	err->line = 0;
	err->msg = NULL;
	err->text = NULL;
}

void
tf_error_release(struct tf_error *err)
{
	free(err->file);
	free(err->msg);
	free(err->text);
	tf_error_init(err);
}

static void
set_msg(struct tf_error *err, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	free(err->msg);
	err->msg = strbuf_detach(&sb, NULL);
}

int
tf_error_set(struct tf_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	set_msg(err, fmt, ap);
	va_end(ap);
	err->line = 0;
	return -1;
}

int
tf_error_set_at(struct tf_error *err, const char *file, uint64_t line,
		const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	set_msg(err, fmt, ap);
	va_end(ap);
	if (file) {
		free(err->file);
		err->file = xstrdup(file);
	}
	err->line = line;
	return -1;
}

void
tf_error_set_file(struct tf_error *err, const char *file)
{
	if (err && !err->file && file)
		err->file = xstrdup(file);
}

void
tf_error_shift_line(struct tf_error *err, uint64_t delta)
{
	if (err && err->line)
		err->line += delta;
}

void
tf_error_move(struct tf_error *dst, struct tf_error *src)
{
	tf_error_release(dst);
	*dst = *src;
	tf_error_init(src);
}

const char *
tf_error_text(struct tf_error *err)
{
	struct strbuf sb = STRBUF_INIT;

	if (!err || !err->msg)
		return "";
	if (err->file) {
		strbuf_addstr(&sb, err->file);
		if (err->line)
			strbuf_addf(&sb, ":%llu", (unsigned long long)err->line);
		strbuf_addstr(&sb, ": ");
	}
	strbuf_addstr(&sb, err->msg);
	free(err->text);
	err->text = strbuf_detach(&sb, NULL);
	return err->text;
}

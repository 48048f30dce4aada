#include "config.h"

#include "tflame/xalloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static die_hook_fn *die_hook;
static atomic_flag die_hook_ran = ATOMIC_FLAG_INIT;

void
set_die_hook(die_hook_fn *fn)
{
	die_hook = fn;
}

static void
run_die_hook(void)
{
	if (die_hook && !atomic_flag_test_and_set(&die_hook_ran))
		die_hook();
}

noreturn void
die(const char *fmt, ...)
{
	va_list ap;

	run_die_hook();
	fputs("tflame: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

noreturn void
bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	run_die_hook();
	fprintf(stderr, "tflame: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu bytes)", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu x %zu bytes)", nmemb, size);
	return p;
}

void *
xzalloc_table(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		die("out of memory (allocating %zu x %zu bytes)", nmemb, size);
	p = xmalloc(nmemb * size);
	memset(p, 0, nmemb * size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		die("out of memory (allocating %zu bytes)", size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die("out of memory (%zu x %zu bytes overflows)", nmemb, size);
	return xrealloc(ptr, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xmemdup(s, strlen(s) + 1);
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void *
xmemdup(const void *p, size_t n)
{
	void *q = xmalloc(n);

	if (n)
		memcpy(q, p, n);
	return q;
}

#include "config.h"

#include "tflame/demangle.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * <libiberty/demangle.h> pulls in <libiberty/libiberty.h>, whose xmalloc
 * family and ARRAY_SIZE clash with ours and which the demangler's
 * declarations do not need: its include guard keeps it out.
 */
#define LIBIBERTY_H
#include <libiberty/demangle.h>

#include "tflame/intern.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* libiberty's options for the two C++ forms; see enum demangle_flags. */
#define CXX_FULL (DMGL_PARAMS | DMGL_ANSI)
#define CXX_NAME DMGL_NO_OPTS

/* cplus_demangle_v3_callback() and rust_demangle_callback() alike. */
typedef int iberty_demangle_fn(const char *mangled, int options,
			       demangle_callbackref callback, void *opaque);

/*
 * Where libiberty's output goes. Its printers cannot be stopped, and a name
 * of a few hundred bytes can reprint one back-referenced subtree 2^30
 * times, so the sink counts what it is given and, past DEMANGLE_MAX_OUT,
 * longjmp()s out of the demangler. That is safe with the callback entry
 * points: the C++ one keeps its tables on the stack and allocates nothing;
 * the Rust one can lose a decoded punycode identifier if the cut falls
 * while it prints one, which takes a hostile name.
 */
struct sink {
	struct strbuf *out;
	size_t start;      /* out->len before the demangler ran */
	jmp_buf too_long;
};

static void
sink_add(const char *s, size_t n, void *opaque)
{
	struct sink *sink = opaque;

	if (n > DEMANGLE_MAX_OUT - (sink->out->len - sink->start))
		longjmp(sink->too_long, 1);
	strbuf_add(sink->out, s, n);
}

/*
 * Run fn on the NUL-terminated sym and append what it prints to out.
 * Returns true if it demangled sym; otherwise out is as it was.
 */
static bool
run(iberty_demangle_fn *fn, const char *sym, int options, struct strbuf *out)
{
	struct sink sink;

	sink.out = out;
	sink.start = out->len;
	/* setjmp() may only be a whole controlling expression, hence two ifs. */
	if (setjmp(sink.too_long)) {
		strbuf_setlen(out, sink.start);
		return false;
	}
	if (!fn(sym, options, sink_add, &sink)) {
		strbuf_setlen(out, sink.start);
		return false;
	}
	return true;
}

/*
 * C++: only a name libiberty parses whole with its parameters counts (the
 * form without them reads no further than the function name). The form
 * without parameters then gets the clone annotations back: the full form
 * of sym is the full form of the part before the first '.' followed by
 * " [clone .cold]" and the like, since '.' appears in no Itanium mangling.
 */
static bool
demangle_cxx(char *sym, unsigned flags, struct strbuf *out)
{
	struct strbuf full = STRBUF_INIT, head = STRBUF_INIT;
	char *dot;
	bool ok = false;

	if (!run(cplus_demangle_v3_callback, sym, CXX_FULL, &full))
		goto done;
	if (flags & DEMANGLE_PARAMS) {
		strbuf_add(out, full.buf, full.len);
		ok = true;
		goto done;
	}
	if (!run(cplus_demangle_v3_callback, sym, CXX_NAME, out))
		goto done;
	ok = true;
	dot = strchr(sym, '.');
	if (dot) {
		*dot = '\0';
		if (run(cplus_demangle_v3_callback, sym, CXX_FULL, &head) &&
		    head.len <= full.len && !memcmp(full.buf, head.buf, head.len))
			strbuf_add(out, full.buf + head.len, full.len - head.len);
	}
done:
	strbuf_release(&full);
	strbuf_release(&head);
	return ok;
}

bool
demangle_maybe_mangled(const char *name, size_t len)
{
	if (len >= 4 && name[0] == '_' && name[1] == '_') {
		name++;
		len--;
	}
	return len >= 3 && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

bool
demangle_name(const char *name, size_t len, unsigned flags, struct strbuf *out)
{
	const char *at;
	size_t base;
	char *sym;
	bool ok = false;

	if (len > DEMANGLE_MAX_NAME || !demangle_maybe_mangled(name, len) ||
	    memchr(name, '\0', len))
		return false;
	if (name[1] == '_') {
		/* Mach-O's extra underscore. */
		name++;
		len--;
	}
	/* A version or "@plt" is not part of the mangled name. */
	at = memchr(name, '@', len);
	base = at ? (size_t)(at - name) : len;
	sym = xstrndup(name, base);

	/* Legacy Rust names are valid C++ too: Rust has the first word. */
	if (sym[1] == 'R' || sym[2] == 'N')
		ok = run(rust_demangle_callback, sym, DMGL_NO_OPTS, out);
	if (!ok && sym[1] == 'Z')
		ok = demangle_cxx(sym, flags, out);
	if (ok)
		strbuf_add(out, name + base, len - base);
	free(sym);
	return ok;
}

/* In demangle_pass.renamed: a name that was not looked at. */
#define NAME_UNSEEN ((str_id)UINT32_MAX)

struct demangle_pass {
	str_id *renamed;    /* old name -> new name (itself if kept), or NAME_UNSEEN */
	uint32_t nr_names;  /* strings in ps before the pass */
	struct frame frame; /* the answer to profile_set_rewrite() */
};

static void
demangle_frame(void *ctx, struct profile_set *ps, const struct frame *old,
	       struct frame_rewrite *out)
{
	struct demangle_pass *pass = ctx;

	(void)ps;
	pass->frame = *old;
	if (old->name < pass->nr_names && pass->renamed[old->name] != NAME_UNSEEN)
		pass->frame.name = pass->renamed[old->name];
	out->frames = &pass->frame;
	out->file = NULL;
	out->line = NULL;
	out->nr = 1;
}

void
profile_set_demangle(struct profile_set *ps)
{
	struct demangle_pass pass;
	struct strbuf sb = STRBUF_INIT;
	uint32_t f, changed = 0;

	for (f = 0; f < ps->nr_frames; f++) {
		str_id n = ps->frames[f].name;

		if (demangle_maybe_mangled(ps_get(ps, n), intern_len(&ps->strings, n)))
			break;
	}
	if (f == ps->nr_frames)
		return;

	/* Each distinct name once; the frames before f have none to change. */
	pass.nr_names = intern_count(&ps->strings);
	pass.renamed = xmalloc(sizeof(*pass.renamed) * pass.nr_names);
	memset(pass.renamed, 0xff, sizeof(*pass.renamed) * pass.nr_names);
	for (; f < ps->nr_frames; f++) {
		str_id n = ps->frames[f].name;

		if (pass.renamed[n] != NAME_UNSEEN)
			continue;
		pass.renamed[n] = n;
		strbuf_reset(&sb);
		/* The arena never moves a string, so ps_get() survives ps_str(). */
		if (demangle_name(ps_get(ps, n), intern_len(&ps->strings, n), 0, &sb)) {
			pass.renamed[n] = ps_str(ps, sb.buf, sb.len);
			changed++;
		}
	}
	strbuf_release(&sb);
	if (changed)
		profile_set_rewrite(ps, demangle_frame, &pass);
	free(pass.renamed);
}

#include "config.h"

#include "tflame/resolve.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/intern.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/symbols.h"
#include "tflame/xalloc.h"

struct resolve_ctx {
	struct symbolizer *sym;
	str_id unknown;        /* "[unknown]" */
	struct frame *out;     /* the answer being built, outermost first */
	str_id *file;          /* with its positions */
	uint32_t *line;
	size_t alloc;
	unsigned long resolved;
};

static str_id
intern_c(struct profile_set *ps, const char *s)
{
	return s ? ps_str(ps, s, strlen(s)) : STR_EMPTY;
}

static void
grow_answer(struct resolve_ctx *c, size_t n)
{
	if (n <= c->alloc)
		return;
	c->alloc = n * 2;
	c->out = xreallocarray(c->out, c->alloc, sizeof(*c->out));
	c->file = xreallocarray(c->file, c->alloc, sizeof(*c->file));
	c->line = xreallocarray(c->line, c->alloc, sizeof(*c->line));
}

static void
resolve_frame(void *vctx, struct profile_set *ps, const struct frame *old,
	      struct frame_rewrite *rw)
{
	struct resolve_ctx *c = vctx;
	struct sym_result r = { NULL, 0 };
	uint64_t addr = old->addr;

	if (!addr && !(old->flags & FRAME_RETADDR))
		return; /* nothing to resolve: unchanged */
	/* A return address: the call is the instruction before it. */
	if (addr && (old->flags & FRAME_RETADDR))
		addr--;
	grow_answer(c, 1);
	rw->frames = c->out;
	rw->nr = 1;
	c->out[0] = *old;
	c->out[0].addr = 0;
	c->out[0].flags &= ~(uint32_t)FRAME_RETADDR;
	if (!addr || old->module == STR_EMPTY ||
	    !symbolizer_resolve(c->sym, ps_get(ps, old->module), addr, &r))
		return; /* perf's name, without the address */

	c->resolved++;
	grow_answer(c, r.nr_frames);
	for (size_t i = 0; i < r.nr_frames; i++) {
		/* frames[0] is the innermost; the answer goes outermost first. */
		const struct sym_frame *sf = &r.frames[r.nr_frames - 1 - i];
		struct frame *f = &c->out[i];

		memset(f, 0, sizeof(*f));
		/*
		 * The module's name for it, even where perf had one: perf names
		 * a function by one of its ELF aliases ("__GI___libc_read",
		 * "__libc_start_main@@GLIBC_2.34"), DWARF by its own name.
		 */
		f->name = intern_c(ps, sf->function ? sf->function : "??");
		f->module = old->module;
		f->flags = old->flags & ~(uint32_t)(FRAME_RETADDR | FRAME_HAS_LINE);
		if (i)
			f->flags |= FRAME_INLINED;
		if (sf->decl_file) {
			f->file = intern_c(ps, sf->decl_file);
			f->line = sf->decl_line;
			f->flags |= FRAME_HAS_LINE;
		}
		c->file[i] = intern_c(ps, sf->file);
		c->line[i] = sf->line;
	}
	rw->frames = c->out; /* grow_answer() may have moved it */
	rw->nr = r.nr_frames;
	rw->file = c->file;
	rw->line = c->line;
	rw->absorbs_inlined = r.nr_frames > 1;
}

/*
 * A module rebuilt since the recording would give wrong answers: check up
 * to MODULE_CHECKS of perf's names in each module against its symbols,
 * and reject the modules where more disagree than agree.
 */
#define MODULE_CHECKS 8

static void
check_modules(struct profile_set *ps, struct resolve_ctx *c)
{
	uint32_t nstr = intern_count(&ps->strings);
	uint8_t *agree = xcalloc(nstr, 1), *disagree = xcalloc(nstr, 1);

	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		const struct frame *f = &ps->frames[i];
		uint64_t addr = f->addr;
		int r;

		if (!addr || f->module == STR_EMPTY || f->name == c->unknown ||
		    agree[f->module] + disagree[f->module] >= MODULE_CHECKS)
			continue;
		if (f->flags & FRAME_RETADDR)
			addr--;
		r = symbolizer_name_at(c->sym, ps_get(ps, f->module), addr,
				       ps_get(ps, f->name));
		if (r > 0)
			agree[f->module]++;
		else if (r == 0)
			disagree[f->module]++;
	}
	for (uint32_t m = 0; m < nstr; m++)
		if (disagree[m] > agree[m])
			symbolizer_reject_module(c->sym, ps_get(ps, m));
	free(agree);
	free(disagree);
}

unsigned long
profile_set_symbolize(struct profile_set *ps)
{
	struct resolve_ctx c;
	struct strbuf sb = STRBUF_INIT;
	uint32_t i;

	for (i = 0; i < ps->nr_frames; i++)
		if (ps->frames[i].addr || (ps->frames[i].flags & FRAME_RETADDR))
			break;
	if (i == ps->nr_frames)
		return 0; /* nothing kept an address: leave the set alone */

	memset(&c, 0, sizeof(c));
	c.sym = symbolizer_new();
	c.unknown = ps_str(ps, "[unknown]", 9);
	check_modules(ps, &c);
	profile_set_rewrite(ps, resolve_frame, &c);
	if (symbolizer_summary(c.sym, &sb))
		profile_set_warn(ps, 0, "%s", sb.buf);
	strbuf_release(&sb);
	symbolizer_free(c.sym);
	free(c.out);
	free(c.file);
	free(c.line);
	return c.resolved;
}

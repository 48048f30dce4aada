#include "config.h"

#include "tflame/collapse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* ------------------------------------------------------------ frame names */

static bool
has_str(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(s + i, needle, n))
			return true;
	return false;
}

/* The script's test for a Go method name: /\.\(.*\)\./ */
static bool
looks_like_go_method(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] != '.' || s[i + 1] != '(')
			continue;
		for (size_t j = i + 2; j + 1 < len; j++)
			if (s[j] == ')' && s[j + 1] == '.')
				return true;
		return false;
	}
	return false;
}

/* The module text the script sees between the last " (" and ")". */
static const char *
script_module(const struct profile_set *ps, const struct frame *f)
{
	return (f->flags & FRAME_INLINED) ? "inlined" : ps_get(ps, f->module);
}

static void
append_srcline(const struct profile_set *ps, const struct frame *f, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	const char *s;
	size_t start = 0, end;

	strbuf_addstr(&text, ps_get(ps, f->file));
	if (f->flags & FRAME_HAS_LINE)
		strbuf_addf(&text, ":%u", f->line);
	/* s/\[.*?\]//g, then trim. */
	s = text.buf;
	{
		struct strbuf kept = STRBUF_INIT;

		for (size_t i = 0; i < text.len; i++) {
			const char *close;

			if (s[i] == '[' && (close = memchr(s + i, ']', text.len - i))) {
				i = (size_t)(close - s);
				continue;
			}
			strbuf_addch(&kept, s[i]);
		}
		strbuf_release(&text);
		text = kept;
	}
	end = text.len;
	while (start < end && (text.buf[start] == ' ' || text.buf[start] == '\t'))
		start++;
	while (end > start && (text.buf[end - 1] == ' ' || text.buf[end - 1] == '\t'))
		end--;
	if (end > start) {
		strbuf_addch(out, ':');
		strbuf_add(out, text.buf + start, end - start);
	}
	strbuf_release(&text);
}

/* One piece of a name split on "->", tidied and annotated, appended to out. */
static void
tidy_piece(const struct profile_set *ps, const struct frame *f, const char *piece,
	   size_t len, size_t index, const struct collapse_options *opts, bool java,
	   struct strbuf *out)
{
	const char *mod = script_module(ps, f);
	struct strbuf func = STRBUF_INIT;
	bool is_unknown = false;
	size_t cut;

	if (len == 9 && !memcmp(piece, "[unknown]", 9)) {
		const char *base = mod, *paren;
		int blen;

		if (strcmp(mod, "[unknown]")) {
			const char *slash = strrchr(mod, '/');

			if (opts->ignore_module)
				base = "unknown";
			else if (slash)
				base = slash + 1;
		} else {
			base = "unknown";
			is_unknown = true;
		}
		/*
		 * A module of parentheses of its own ("x.so (deleted)") is named
		 * without them: the cut at "(" below would take the "]" too.
		 */
		paren = strstr(base, " (");
		blen = (int)(paren ? (size_t)(paren - base) : strlen(base));
		if (opts->addrs)
			strbuf_addf(&func, "[%.*s <%llx>]", blen, base, (unsigned long long)f->addr);
		else
			strbuf_addf(&func, "[%.*s]", blen, base);
	} else {
		strbuf_add(&func, piece, len);
	}

	for (size_t i = 0; i < func.len; i++)
		if (func.buf[i] == ';')
			func.buf[i] = ':';
	if (!looks_like_go_method(func.buf, func.len)) {
		for (cut = 0; cut < func.len; cut++) {
			static const char anon[] = "anonymous namespace)";

			if (func.buf[cut] == '(' &&
			    strncmp(func.buf + cut + 1, anon, sizeof(anon) - 1))
				break;
		}
		strbuf_setlen(&func, cut);
	}
	cut = 0;
	for (size_t i = 0; i < func.len; i++)
		if (func.buf[i] != '"' && func.buf[i] != '\'')
			func.buf[cut++] = func.buf[i];
	strbuf_setlen(&func, cut);
	if (java && func.len && func.buf[0] == 'L' && memchr(func.buf, '/', func.len)) {
		memmove(func.buf, func.buf + 1, func.len - 1);
		strbuf_setlen(&func, func.len - 1);
	}

	if (index > 0) {
		if (!has_str(func.buf, func.len, "_[i]"))
			strbuf_addstr(&func, "_[i]");
	} else if (opts->kernel && (mod[0] == '[' || (strlen(mod) >= 7 &&
				     !strcmp(mod + strlen(mod) - 7, "vmlinux"))) &&
		   !strstr(mod, "unknown")) {
		strbuf_addstr(&func, "_[k]");
	} else if (opts->jit) {
		const char *m = strstr(mod, "/tmp/perf-");

		while (m) {
			const char *d = m + 10;

			while (*d >= '0' && *d <= '9')
				d++;
			if (d > m + 10 && !strncmp(d, ".map", 4))
				break;
			m = strstr(m + 1, "/tmp/perf-");
		}
		if (m && !has_str(func.buf, func.len, "_[j]"))
			strbuf_addstr(&func, "_[j]");
	}
	if (opts->srcline && !is_unknown && (f->file != STR_EMPTY))
		append_srcline(ps, f, &func);

	strbuf_add(out, func.buf, func.len);
	strbuf_release(&func);
}

bool
collapse_tidy_frame(const struct profile_set *ps, const struct frame *f,
		    const struct collapse_options *opts, bool java, struct strbuf *out)
{
	const char *name = ps_get(ps, f->name);
	size_t len = intern_len(&ps->strings, f->name), start = 0, index = 0;

	/*
	 * The importer named it after its module; the script reads perf's
	 * "[unknown]" and makes its own name of it (tidy_piece()).
	 */
	if (f->flags & FRAME_UNNAMED) {
		name = "[unknown]";
		len = 9;
	}
	if (name[0] == '(')
		return false;
	/* A frame line with no "(module)" is one the script does not read. */
	if (f->module == STR_EMPTY && !(f->flags & FRAME_INLINED))
		return false;
	for (;;) {
		size_t end = start;

		while (end < len && !(name[end] == '-' && end + 1 < len && name[end + 1] == '>'))
			end++;
		if (index)
			strbuf_addch(out, ';');
		tidy_piece(ps, f, name + start, end - start, index, opts, java, out);
		index++;
		if (end >= len)
			break;
		start = end + 2;
	}
	return true;
}

/* ---------------------------------------------------------- aggregation */

/*
 * Lines are aggregated on (root name, stack id) first, which is cheap, and
 * only then turned into text; different stacks can still tidy to the same
 * text, so equal texts are merged again after sorting.
 */
struct entry {
	uint32_t root;     /* index of the root frame text, or UINT32_MAX */
	stack_id stack;
	weight_sum weight[2]; /* exact past 64 bits */
	size_t text, len;  /* in the text arena */
};

struct agg {
	struct entry *entries;
	size_t nr, alloc;
	uint64_t *slots;   /* entry index + 1 */
	size_t mask;
};

static void
agg_init(struct agg *a)
{
	memset(a, 0, sizeof(*a));
	a->mask = 1023;
	a->slots = xzalloc_table(a->mask + 1, sizeof(*a->slots));
}

static void
agg_release(struct agg *a)
{
	free(a->entries);
	free(a->slots);
}

static void
agg_grow(struct agg *a)
{
	size_t n = (a->mask + 1) * 2;
	uint64_t *s = xzalloc_table(n, sizeof(*s));

	for (size_t i = 0; i < a->nr; i++) {
		size_t pos = hash_pair(a->entries[i].root, a->entries[i].stack) & (n - 1);

		while (s[pos])
			pos = (pos + 1) & (n - 1);
		s[pos] = i + 1;
	}
	free(a->slots);
	a->slots = s;
	a->mask = n - 1;
}

static void
agg_add(struct agg *a, uint32_t root, stack_id stack, int which, uint64_t w)
{
	size_t pos = hash_pair(root, stack) & a->mask;
	struct entry *e;

	for (; a->slots[pos]; pos = (pos + 1) & a->mask) {
		e = &a->entries[a->slots[pos] - 1];
		if (e->root == root && e->stack == stack) {
			e->weight[which] += w;
			return;
		}
	}
	ALLOC_GROW(a->entries, a->nr, a->alloc);
	e = &a->entries[a->nr];
	memset(e, 0, sizeof(*e));
	e->root = root;
	e->stack = stack;
	e->weight[which] = w;
	a->slots[pos] = ++a->nr;
	if (a->nr * 2 > a->mask + 1)
		agg_grow(a);
}

/* Sorting by text, in plain byte order as Perl's cmp does. */
static int
cmp_entry(const void *pa, const void *pb, void *arena)
{
	const struct entry *a = pa, *b = pb;
	const char *text = arena;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(text + a->text, text + b->text, n);

	if (c)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

/* Reverse the bytes of [s, e). */
static void
reverse_bytes(char *s, char *e)
{
	while (s < e) {
		char c = *s;

		*s++ = *--e;
		*e = c;
	}
}

/*
 * Turn a line's frames around, "a;b;c" to "c;b;a", in place: the whole
 * line reversed, then each frame back. Frames are what ';' separates, as
 * for every reader of folded stacks, so an inline chain turns around too.
 */
static void
reverse_frames(char *s, size_t len)
{
	char *end = s + len, *from = s;

	reverse_bytes(s, end);
	for (char *p = s; p <= end; p++) {
		if (p == end || *p == ';') {
			reverse_bytes(from, p);
			from = p + 1;
		}
	}
}

static int
write_entries(struct agg *a, struct strbuf *arena, const struct profile *p0,
	      const struct profile *p1, bool inverted, FILE *out, struct collapse_result *res,
	      struct tf_error *err)
{
	struct strbuf line = STRBUF_INIT;
	size_t i = 0;

	/* Leaf first, then merged and sorted as any other line. */
	for (size_t k = 0; inverted && k < a->nr; k++)
		reverse_frames(arena->buf + a->entries[k].text, a->entries[k].len);
	qsort_r(a->entries, a->nr, sizeof(*a->entries), cmp_entry, arena->buf);
	while (i < a->nr) {
		struct entry *e = &a->entries[i];
		weight_sum w0 = e->weight[0], w1 = e->weight[1];
		size_t j = i + 1;

		while (j < a->nr && a->entries[j].len == e->len &&
		       !memcmp(arena->buf + a->entries[j].text, arena->buf + e->text, e->len)) {
			w0 += a->entries[j].weight[0];
			w1 += a->entries[j].weight[1];
			j++;
		}
		strbuf_reset(&line);
		strbuf_add(&line, arena->buf + e->text, e->len);
		strbuf_addch(&line, ' ');
		profile_format_weight_sum(p0, w0, &line);
		if (p1) {
			strbuf_addch(&line, ' ');
			profile_format_weight_sum(p1, w1, &line);
		}
		strbuf_addch(&line, '\n');
		if (fwrite(line.buf, 1, line.len, out) != line.len) {
			strbuf_release(&line);
			return tf_error_set(err, "cannot write output: %s", strerror(errno));
		}
		res->lines++;
		i = j;
	}
	strbuf_release(&line);
	return 0;
}

/* Frames of stack s, root first, into *frames (grown as needed). */
static size_t
stack_frames(const struct profile_set *ps, stack_id s, frame_id **frames, size_t *alloc)
{
	size_t depth = ps->stacks[s].depth;

	if (depth > *alloc) {
		*alloc = depth;
		*frames = xreallocarray(*frames, depth, sizeof(**frames));
	}
	for (size_t i = depth; i > 0; i--) {
		(*frames)[i - 1] = ps->stacks[s].frame;
		s = ps->stacks[s].parent;
	}
	return depth;
}

/* ------------------------------------------------------------ perf input */

struct tidy_cache {
	size_t *off;   /* frame -> offset in text, SIZE_MAX not yet done */
	uint32_t *len; /* UINT32_MAX: the frame is skipped */
	struct strbuf text;
};

static void
tidy_cache_init(struct tidy_cache *c, size_t nr_frames)
{
	c->off = xmalloc(sizeof(*c->off) * (nr_frames + 1));
	c->len = xmalloc(sizeof(*c->len) * (nr_frames + 1));
	for (size_t i = 0; i < nr_frames; i++)
		c->off[i] = SIZE_MAX;
	strbuf_init(&c->text, 0);
}

static void
tidy_cache_release(struct tidy_cache *c)
{
	free(c->off);
	free(c->len);
	strbuf_release(&c->text);
}

void
collapse_root_name(const struct profile_set *ps, const struct thread *t, bool with_pid,
		   bool with_tid, struct strbuf *out)
{
	size_t start = out->len;
	char pid[32];
	long long tid = (long long)t->tid;

	strbuf_addstr(out, ps_get(ps, t->comm));
	/*
	 * The reference takes a tid of 0 ("swapper 0/0", the idle task) for
	 * none shown, as Perl's truth has it: the pid then reads "?" and
	 * stands as the tid.
	 */
	if (t->pid >= 0 && t->tid != 0) {
		snprintf(pid, sizeof(pid), "%lld", (long long)t->pid);
	} else {
		if (t->pid >= 0)
			tid = (long long)t->pid;
		strcpy(pid, "?");
	}
	if (with_tid)
		strbuf_addf(out, "-%s/%lld", pid, tid);
	else if (with_pid)
		strbuf_addf(out, "-%s", pid);
	for (size_t i = start; i < out->len; i++)
		if (out->buf[i] == ' ')
			out->buf[i] = '_';
}

static int
collapse_perf(const struct profile_set *ps, const struct collapse_options *opts, FILE *out,
	      struct collapse_result *res, struct tf_error *err)
{
	const struct profile *kept = NULL, *unread = NULL;
	struct tidy_cache cache[2];
	struct strbuf roots = STRBUF_INIT, arena = STRBUF_INIT;
	size_t *root_off, *root_len;
	uint32_t *thread_root;
	bool *root_java;
	uint32_t nr_roots = 0;
	frame_id *frames = NULL;
	size_t frames_alloc = 0;
	struct agg a;
	int ret;

	for (size_t i = 0; i < ps->nr_profiles; i++) {
		const struct profile *p = ps->profiles[i];
		const char *name = ps_get(ps, p->name);

		if (!*name)
			unread = p;
		else if (opts->event_filter ? !strcmp(name, opts->event_filter) : !kept)
			kept = p;
	}
	/*
	 * Samples whose event the script cannot read pass any filter, so a
	 * filter that names only those still has output, as in the script.
	 */
	if (opts->event_filter && !kept && !(unread && unread->nr_samples)) {
		struct strbuf names = STRBUF_INIT;

		for (size_t i = 0; i < ps->nr_profiles; i++) {
			const char *name = ps_get(ps, ps->profiles[i]->name);

			if (*name)
				strbuf_addf(&names, "%s%s", names.len ? ", " : "", name);
		}
		ret = tf_error_set(err, "no samples of event %s (events: %s)",
				   opts->event_filter, names.len ? names.buf : "none named");
		strbuf_release(&names);
		return ret;
	}
	res->kept = kept;
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		const struct profile *p = ps->profiles[i];

		if (p != kept && p != unread) {
			res->skipped_samples += p->nr_samples;
			res->skipped_events++;
		}
	}

	/* Root names: one per distinct text, shared by threads. */
	thread_root = xmalloc(sizeof(*thread_root) * ((size_t)ps->nr_threads + 1));
	root_off = xmalloc(sizeof(*root_off) * ((size_t)ps->nr_threads + 1));
	root_len = xmalloc(sizeof(*root_len) * ((size_t)ps->nr_threads + 1));
	root_java = xmalloc(sizeof(*root_java) * ((size_t)ps->nr_threads + 1));
	for (uint32_t t = 0; t < ps->nr_threads; t++) {
		size_t start = roots.len;
		uint32_t r;

		collapse_root_name(ps, &ps->threads[t], opts->pid, opts->tid, &roots);
		for (r = 0; r < nr_roots; r++)
			if (root_len[r] == roots.len - start &&
			    !memcmp(roots.buf + root_off[r], roots.buf + start, root_len[r]))
				break;
		if (r < nr_roots) {
			strbuf_setlen(&roots, start);
		} else {
			root_off[r] = start;
			root_len[r] = roots.len - start;
			root_java[r] = root_len[r] >= 4 && !memcmp(roots.buf + start, "java", 4);
			nr_roots++;
		}
		thread_root[t] = r;
	}

	agg_init(&a);
	for (int k = 0; k < 2; k++) {
		const struct profile *p = k ? unread : kept;

		for (size_t i = 0; p && i < p->nr_samples; i++)
			agg_add(&a, thread_root[p->thread[i]], p->stack[i], 0, p->weight[i]);
	}

	tidy_cache_init(&cache[0], ps->nr_frames);
	tidy_cache_init(&cache[1], ps->nr_frames);
	for (size_t i = 0; i < a.nr; i++) {
		struct entry *e = &a.entries[i];
		bool java = root_java[e->root];
		struct tidy_cache *c = &cache[java];
		size_t depth = stack_frames(ps, e->stack, &frames, &frames_alloc);

		e->text = arena.len;
		strbuf_add(&arena, roots.buf + root_off[e->root], root_len[e->root]);
		for (size_t d = 0; d < depth; d++) {
			frame_id f = frames[d];

			/* A lens's process frame (--by-process): the root, written above. */
			if (ps->frames[f].flags & FRAME_PROCESS)
				continue;
			if (c->off[f] == SIZE_MAX) {
				c->off[f] = c->text.len;
				c->len[f] = (opts->inline_frames && opts->expand &&
					     opts->expand(opts->expand_data, ps, &ps->frames[f],
							  opts->context, &c->text)) ||
						    collapse_tidy_frame(ps, &ps->frames[f], opts,
									java, &c->text)
						    ? (uint32_t)(c->text.len - c->off[f])
						    : UINT32_MAX;
			}
			if (c->len[f] == UINT32_MAX)
				continue;
			strbuf_addch(&arena, ';');
			strbuf_add(&arena, c->text.buf + c->off[f], c->len[f]);
		}
		e->len = arena.len - e->text;
	}

	ret = write_entries(&a, &arena, kept ? kept : unread, NULL, opts->inverted, out, res,
			    err);

	free(frames);
	tidy_cache_release(&cache[0]);
	tidy_cache_release(&cache[1]);
	agg_release(&a);
	strbuf_release(&arena);
	strbuf_release(&roots);
	free(thread_root);
	free(root_off);
	free(root_len);
	free(root_java);
	return ret;
}

/* ----------------------------------------------------------- other input */

static int
collapse_plain(const struct profile_set *ps, const struct collapse_options *opts,
	       FILE *out, struct collapse_result *res, struct tf_error *err)
{
	const struct profile *p0 = profile_set_find_profile(ps, "before");
	const struct profile *p1 = profile_set_find_profile(ps, "after");
	struct strbuf arena = STRBUF_INIT;
	frame_id *frames = NULL;
	size_t frames_alloc = 0;
	struct agg a;
	int ret;

	if (!p0 || !p1) {
		p1 = NULL;
		p0 = opts->event_filter ? profile_set_find_profile(ps, opts->event_filter)
					: (ps->nr_profiles ? ps->profiles[0] : NULL);
		if (!p0)
			return tf_error_set(err, "no profile named %s",
					    opts->event_filter ? opts->event_filter : "");
	}
	res->kept = p0;
	agg_init(&a);
	for (int k = 0; k < 2; k++) {
		const struct profile *p = k ? p1 : p0;

		for (size_t i = 0; p && i < p->nr_samples; i++)
			agg_add(&a, 0, p->stack[i], k, p->weight[i]);
	}
	for (size_t i = 0; i < a.nr; i++) {
		struct entry *e = &a.entries[i];
		size_t depth = stack_frames(ps, e->stack, &frames, &frames_alloc);

		e->text = arena.len;
		for (size_t d = 0; d < depth; d++) {
			const struct frame *f = &ps->frames[frames[d]];

			if (d)
				strbuf_addch(&arena, ';');
			strbuf_add(&arena, ps_get(ps, f->name), intern_len(&ps->strings, f->name));
		}
		e->len = arena.len - e->text;
	}
	ret = write_entries(&a, &arena, p0, p1, opts->inverted, out, res, err);
	free(frames);
	agg_release(&a);
	strbuf_release(&arena);
	return ret;
}

int
collapse_write(const struct profile_set *ps, const struct collapse_options *opts,
	       FILE *out, struct collapse_result *res, struct tf_error *err)
{
	memset(res, 0, sizeof(*res));
	/* No samples at all (import.h: allow_empty): no lines, whatever the filter. */
	if (!ps->nr_profiles)
		return 0;
	if (ps->perf_script)
		return collapse_perf(ps, opts, out, res, err);
	return collapse_plain(ps, opts, out, res, err);
}

#include "config.h"

#include "tflame/diff.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/bsearch.h"
#include "tflame/error.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

uint64_t
diff_scale(uint64_t w, uint64_t from, uint64_t to)
{
	__extension__ unsigned __int128 x;

	if (!from)
		return w;
	x = (unsigned __int128)w * to / from;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t
diff_same_decimals(uint64_t w, const struct profile *from, const struct profile *to)
{
	for (unsigned d = from->weight_decimals; d < to->weight_decimals; d++)
		w = w > UINT64_MAX / 10 ? UINT64_MAX : w * 10;
	for (unsigned d = to->weight_decimals; d < from->weight_decimals; d++)
		w /= 10;
	return w;
}

/* A function of one side, for the join. */
struct diff_key {
	const char *name, *module;
	int side;         /* 0 base, 1 new */
	uint64_t self, total;
};

static int
cmp_key(const void *a, const void *b)
{
	const struct diff_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

static size_t
add_keys(struct diff_key *k, const struct diff_side *s, int side, unsigned flags)
{
	size_t n = 0;

	for (func_id f = 0; f < s->ft->nr_funcs; f++) {
		if (s->ft->process[f] || (!s->stats[f].self && !s->stats[f].total))
			continue;
		k[n].name = ps_get(s->ps, s->ft->funcs[f].name);
		k[n].module = (flags & DIFF_IGNORE_MODULE) ? ""
							   : ps_get(s->ps, s->ft->funcs[f].module);
		k[n].side = side;
		k[n].self = s->stats[f].self;
		k[n].total = s->stats[f].total;
		n++;
	}
	return n;
}

size_t
diff_functions(const struct diff_side *base, const struct diff_side *new_side, unsigned flags,
	       struct diff_row **out)
{
	size_t nk = (size_t)base->ft->nr_funcs + new_side->ft->nr_funcs;
	struct diff_key *k = xreallocarray(NULL, nk ? nk : 1, sizeof(*k));
	struct diff_row *rows;
	size_t n, nr = 0;

	n = add_keys(k, base, 0, flags);
	n += add_keys(k + n, new_side, 1, flags);
	qsort(k, n, sizeof(*k), cmp_key);
	rows = xcalloc(n ? n : 1, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		struct diff_row *r;

		if (!nr || cmp_key(&k[i], &k[i - 1])) {
			r = &rows[nr++];
			r->name = k[i].name;
			r->module = k[i].module;
		} else {
			r = &rows[nr - 1];
		}
		if (k[i].side) {
			r->new_self += k[i].self;
			r->new_total += k[i].total;
		} else {
			r->base_self += k[i].self;
			r->base_total += k[i].total;
		}
	}
	if (flags & DIFF_NORMALIZE) {
		for (size_t i = 0; i < nr; i++) {
			rows[i].base_self = diff_scale(rows[i].base_self, base->total, new_side->total);
			rows[i].base_total = diff_scale(rows[i].base_total, base->total,
							new_side->total);
		}
	}
	free(k);
	*out = rows;
	return nr;
}

/* ------------------------------------------------------------- overlap */

static int
cmp_key_name(const void *a, const void *b)
{
	return strcmp(((const struct diff_key *)a)->name, ((const struct diff_key *)b)->name);
}

/*
 * The sum over functions (k sorted by cmp, which says what one function
 * is) of the smaller of its two self shares.
 */
static double
shared_share(struct diff_key *k, size_t n, const double tot[2],
	     int (*cmp)(const void *, const void *))
{
	double sum = 0;

	qsort(k, n, sizeof(*k), cmp);
	for (size_t i = 0; i < n;) {
		double w[2] = { 0, 0 }, a, b;
		size_t j = i;

		for (; j < n && !cmp(&k[j], &k[i]); j++)
			w[k[j].side] += (double)k[j].self;
		a = tot[0] > 0 ? w[0] / tot[0] : 0;
		b = tot[1] > 0 ? w[1] / tot[1] : 0;
		sum += a < b ? a : b;
		i = j;
	}
	return sum;
}

/* Both overlaps of keys k (self weights of both sides), which it reorders. */
static void
overlap_of(struct diff_key *k, size_t n, struct diff_overlap *out)
{
	double tot[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++)
		tot[k[i].side] += (double)k[i].self;
	out->by_module = shared_share(k, n, tot, cmp_key);
	out->by_name = shared_share(k, n, tot, cmp_key_name);
}

void
diff_side_overlap(const struct diff_side *base, const struct diff_side *new_side,
		  struct diff_overlap *out)
{
	size_t nk = (size_t)base->ft->nr_funcs + new_side->ft->nr_funcs, n;
	struct diff_key *k = xreallocarray(NULL, nk ? nk : 1, sizeof(*k));

	n = add_keys(k, base, 0, 0);
	n += add_keys(k + n, new_side, 1, 0);
	overlap_of(k, n, out);
	free(k);
}

/* The self weight of each frame of ps's profile p, as keys of side. */
static size_t
add_frame_keys(struct diff_key *k, const struct profile_set *ps, const struct profile *p,
	       int side)
{
	uint64_t *self = xcalloc(ps->nr_frames ? ps->nr_frames : 1, sizeof(*self));
	size_t n = 0;

	for (size_t i = 0; p && i < p->nr_samples; i++) {
		stack_id s = p->stack[i];
		uint64_t *w;

		if (s == STACK_ROOT)
			continue;
		w = &self[ps->stacks[s].frame];
		*w = *w > UINT64_MAX - p->weight[i] ? UINT64_MAX : *w + p->weight[i];
	}
	for (frame_id f = 0; f < ps->nr_frames; f++) {
		if (!self[f] || (ps->frames[f].flags & FRAME_PROCESS))
			continue;
		k[n].name = ps_get(ps, ps->frames[f].name);
		k[n].module = ps_get(ps, ps->frames[f].module);
		k[n].side = side;
		k[n].self = self[f];
		k[n].total = 0;
		n++;
	}
	free(self);
	return n;
}

void
diff_set_overlap(const struct profile_set *base, const struct profile_set *new_set,
		 struct diff_overlap *out)
{
	size_t nk = (size_t)base->nr_frames + new_set->nr_frames, n;
	struct diff_key *k = xreallocarray(NULL, nk ? nk : 1, sizeof(*k));
	const struct profile *bp = base->nr_profiles ? base->profiles[diff_first_profile(base)]
						     : NULL;
	const struct profile *np = new_set->nr_profiles
					   ? new_set->profiles[diff_first_profile(new_set)]
					   : NULL;

	n = add_frame_keys(k, base, bp, 0);
	n += add_frame_keys(k + n, new_set, np, 1);
	overlap_of(k, n, out);
	free(k);
}

bool
diff_overlap_by_name(const struct diff_overlap *o)
{
	return o->by_module < 0.5 && o->by_name > 0.5;
}

void
diff_overlap_note(const struct diff_overlap *o, struct strbuf *out)
{
	strbuf_addf(out, "functions matched by name alone (as --ignore-module): the sides share "
			 "%.0f%% of their weight by module and name, %.0f%% by name (two builds "
			 "at different paths?)",
		    100 * o->by_module, 100 * o->by_name);
}

enum diff_change
diff_change(uint64_t base, uint64_t now)
{
	if (base == now)
		return DIFF_SAME;
	if (!base)
		return DIFF_NEW;
	if (!now)
		return DIFF_GONE;
	return now > base ? DIFF_GREW : DIFF_SHRANK;
}

enum diff_change
diff_box_change(uint64_t base_total, uint64_t now_total, uint64_t base_self, uint64_t now_self)
{
	if (!base_total && now_total)
		return DIFF_NEW;
	if (base_total && !now_total)
		return DIFF_GONE;
	if (base_self == now_self)
		return DIFF_SAME;
	return now_self > base_self ? DIFF_GREW : DIFF_SHRANK;
}

const char *
diff_change_sign(enum diff_change c)
{
	static const char *const signs[] = {
		[DIFF_SAME] = "=", [DIFF_GREW] = "+", [DIFF_SHRANK] = "-",
		[DIFF_NEW] = "new", [DIFF_GONE] = "gone",
	};

	return signs[c];
}

void
diff_format_delta(struct strbuf *sb, const struct profile *p, int64_t d)
{
	if (d)
		strbuf_addch(sb, d > 0 ? '+' : '-');
	profile_format_amount_short(p, d < 0 ? -(uint64_t)d : (uint64_t)d, sb);
}

void
diff_format_change(struct strbuf *sb, uint64_t base, uint64_t now)
{
	if (!base && !now)
		strbuf_addstr(sb, "0%");
	else if (!base)
		strbuf_addstr(sb, "new");
	else if (!now)
		strbuf_addstr(sb, "gone");
	else
		strbuf_addf(sb, "%+.1f%%", 100.0 * ((double)now - (double)base) / (double)base);
}

int64_t
diff_delta(uint64_t base, uint64_t now)
{
	if (now >= base)
		return now - base > INT64_MAX ? INT64_MAX : (int64_t)(now - base);
	return base - now > INT64_MAX ? -INT64_MAX : -(int64_t)(base - now);
}

static const char *
unit_phrase(const struct profile *p)
{
	return p->unit == UNIT_NONE ? "(no unit)" : weight_unit_name(p->unit);
}

int
diff_check_units(const struct profile_set *ps, const struct profile *p, const char *base,
		 const char *path, struct tf_error *err)
{
	const struct profile *o = diff_other(ps, p);

	if (!o || o->unit == p->unit)
		return 0;
	return tf_error_set(err, "%s weighs in %s and %s in %s: nothing to compare (choose an "
				 "event of the same unit with --event)",
			    base, unit_phrase(o), path, unit_phrase(p));
}

size_t
diff_first_profile(const struct profile_set *ps)
{
	const struct profile *after = profile_set_find_profile(ps, "after");

	if (after && diff_other(ps, after)) {
		int i = profile_set_profile_index(ps, after);

		return i < 0 ? 0 : (size_t)i;
	}
	return 0;
}

double
diff_share_change(const struct diff_row *r, uint64_t base_total, uint64_t new_total)
{
	double b = base_total ? 100.0 * (double)r->base_total / (double)base_total : 0;
	double n = new_total ? 100.0 * (double)r->new_total / (double)new_total : 0;

	return n - b;
}

/* ------------------------------------------------------------ folded */

/* A folded line of one side: its stack text and its count. */
struct folded_line {
	const char *stack;
	size_t len;
	long double count;
	int side;
};

static int
cmp_folded(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->stack, y->stack, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->side - y->side;
}

/*
 * The stack and count of a line as difffolded.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/
 * reads it: a number at the end, after a blank; the stack is everything
 * before that blank. False for a line without.
 */
static bool
split_line(const char *p, size_t len, struct folded_line *out)
{
	size_t end = len, dot = len, start;
	char buf[64];

	/* A CR line end is dropped (the script would skip the line). */
	if (end && p[end - 1] == '\r')
		end--;
	start = end;
	while (start && (isdigit((unsigned char)p[start - 1]) || p[start - 1] == '.')) {
		if (p[start - 1] == '.')
			dot = start - 1;
		start--;
	}
	/* Digits first, at most one dot: "5", "5.", "5.25". */
	while (start < end && p[start] == '.')
		start++;
	if (start == end || dot < start || !start || !isspace((unsigned char)p[start - 1]))
		return false;
	for (size_t i = start; i < end; i++)
		if (p[i] == '.' && i != dot)
			return false;
	if (end - start >= sizeof(buf))
		return false;
	memcpy(buf, p + start, end - start);
	buf[end - start] = '\0';
	out->stack = p;
	out->len = start - 1;
	out->count = strtold(buf, NULL);
	return true;
}

static size_t
read_folded(const char *text, size_t len, int side, struct folded_line **lines, size_t *nr,
	    size_t *alloc, long double *total)
{
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
		struct folded_line fl;

		if (split_line(text + i, l, &fl)) {
			fl.side = side;
			ALLOC_GROW(*lines, *nr, *alloc);
			(*lines)[(*nr)++] = fl;
			*total += fl.count;
			n++;
		}
		i += l + 1;
	}
	return n;
}

/* c rounded towards 0 (no libm for truncl()). */
static long double
whole(long double c)
{
	return c < 1.8e19L ? (long double)(unsigned long long)c : c;
}

static void
add_count(struct strbuf *sb, long double c)
{
	if (c == whole(c))
		strbuf_addf(sb, "%.0Lf", c);
	else
		strbuf_addf(sb, "%.15Lg", c);
}

int
diff_folded_write(const char *base, size_t base_len, const char *new_text, size_t new_len,
		  unsigned flags, FILE *out, struct tf_error *err)
{
	struct folded_line *lines = NULL;
	size_t nr = 0, alloc = 0;
	long double totals[2] = { 0, 0 };
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	read_folded(base, base_len, 0, &lines, &nr, &alloc, &totals[0]);
	read_folded(new_text, new_len, 1, &lines, &nr, &alloc, &totals[1]);
	if (nr)
		qsort(lines, nr, sizeof(*lines), cmp_folded);
	for (size_t i = 0; i < nr && !ret;) {
		long double c[2] = { 0, 0 };
		size_t k;

		for (k = i; k < nr && lines[k].len == lines[i].len &&
			    !memcmp(lines[k].stack, lines[i].stack, lines[i].len); k++)
			c[lines[k].side] += lines[k].count;
		if ((flags & DIFF_NORMALIZE) && totals[0] != totals[1] && totals[0] > 0)
			c[0] = whole(c[0] * totals[1] / totals[0]);
		strbuf_reset(&sb);
		strbuf_add(&sb, lines[i].stack, lines[i].len);
		strbuf_addch(&sb, ' ');
		add_count(&sb, c[0]);
		strbuf_addch(&sb, ' ');
		add_count(&sb, c[1]);
		strbuf_addch(&sb, '\n');
		if (fwrite(sb.buf, 1, sb.len, out) != sb.len)
			ret = tf_error_set(err, "cannot write output");
		i = k;
	}
	strbuf_release(&sb);
	free(lines);
	return ret;
}

/* ---------------------------------------------------------------- join */

/* What a frame's function is, for matching across sets. */
#define DIFF_KIND (FRAME_KERNEL | FRAME_JIT | FRAME_INLINED | FRAME_UNNAMED | FRAME_PROCESS)

struct join_key {
	str_id name, module;
	uint32_t kind;
	frame_id frame;
};

static int
cmp_join_key(const struct join_key *a, const struct join_key *b)
{
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->module != b->module)
		return a->module < b->module ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static int
qsort_join_key(const void *a, const void *b)
{
	return cmp_join_key(a, b);
}

static bool
join_key_before(const void *elem, const void *key)
{
	return cmp_join_key(elem, key) < 0;
}

static struct join_key
key_of(const struct frame *f, unsigned flags)
{
	struct join_key k;

	k.name = f->name;
	k.module = (flags & DIFF_IGNORE_MODULE) ? STR_EMPTY : f->module;
	k.kind = f->flags & DIFF_KIND;
	k.frame = 0; /* the lowest frame id of the key, in a search */
	return k;
}

int
diff_join(struct profile_set *ps, const struct profile_set *base, unsigned flags,
	  struct tf_error *err)
{
	uint32_t nr_strings = intern_count(&base->strings);
	uint32_t nr_keys = ps->nr_frames;
	str_id *smap = xmalloc(sizeof(*smap) * (nr_strings ? nr_strings : 1));
	frame_id *fmap = xmalloc(sizeof(*fmap) * (base->nr_frames ? base->nr_frames : 1));
	stack_id *kmap = xmalloc(sizeof(*kmap) * (base->nr_stacks ? base->nr_stacks : 1));
	thread_id *tmap = xmalloc(sizeof(*tmap) * (base->nr_threads ? base->nr_threads : 1));
	struct join_key *keys = xmalloc(sizeof(*keys) * (nr_keys ? nr_keys : 1));
	struct strbuf name = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < base->nr_profiles; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s%s", DIFF_BASE_PREFIX, ps_get(base, base->profiles[i]->name));
		if (profile_set_find_profile(ps, name.buf)) {
			ret = tf_error_set(err, "the set has a profile named %s already", name.buf);
			goto out;
		}
	}
	for (uint32_t i = 0; i < nr_strings; i++)
		smap[i] = ps_str(ps, intern_get(&base->strings, i), intern_len(&base->strings, i));
	/* ps's functions, to look base's frames up in. */
	for (uint32_t f = 0; f < nr_keys; f++) {
		keys[f] = key_of(&ps->frames[f], flags);
		keys[f].frame = f;
	}
	qsort(keys, nr_keys, sizeof(*keys), qsort_join_key);
	ps->diff_flags = flags & (DIFF_IGNORE_MODULE | DIFF_NAMES_AUTO);
	for (uint32_t f = 0; f < base->nr_frames; f++) {
		struct frame fr = base->frames[f];
		struct join_key k;
		size_t at;

		fr.name = smap[fr.name];
		fr.module = smap[fr.module];
		fr.file = smap[fr.file];
		k = key_of(&fr, flags);
		at = bsearch_first(keys, nr_keys, sizeof(*keys), &k, join_key_before);
		if (at < nr_keys && keys[at].name == k.name && keys[at].module == k.module &&
		    keys[at].kind == k.kind)
			fmap[f] = keys[at].frame;
		else
			fmap[f] = profile_set_frame(ps, &fr);
	}
	/* Parents precede children: one pass. */
	kmap[STACK_ROOT] = STACK_ROOT;
	for (uint32_t s = 1; s < base->nr_stacks; s++)
		kmap[s] = profile_set_stack(ps, kmap[base->stacks[s].parent],
					    fmap[base->stacks[s].frame]);
	for (uint32_t t = 0; t < base->nr_threads; t++)
		tmap[t] = profile_set_thread(ps, base->threads[t].pid, base->threads[t].tid,
					     smap[base->threads[t].comm]);
	for (size_t i = 0; i < base->nr_profiles && !ret; i++) {
		const struct profile *bp = base->profiles[i];
		struct profile *p;

		strbuf_reset(&name);
		strbuf_addf(&name, "%s%s", DIFF_BASE_PREFIX, ps_get(base, bp->name));
		p = profile_set_profile(ps, ps_str(ps, name.buf, name.len), bp->unit);
		p->spans = bp->spans;
		p->no_samples = bp->no_samples;
		if (bp->weight_decimals && profile_set_decimals(p, bp->weight_decimals, err)) {
			ret = -1;
			break;
		}
		for (size_t k = 0; k < bp->nr_samples && !ret; k++)
			ret = profile_add_sample(p, kmap[bp->stack[k]], bp->weight[k], bp->time[k],
						 bp->has_time, tmap[bp->thread[k]], err);
	}
out:
	strbuf_release(&name);
	free(keys);
	free(smap);
	free(fmap);
	free(kmap);
	free(tmap);
	return ret;
}

/*
 * Without a profile of the same name: the other side's profile when each
 * side has one, as BASE and NEW of two formats (a folded file's profile
 * has no name, perf's is its event), or NULL.
 */
static struct profile *
only_other(const struct profile_set *ps, const struct profile *p)
{
	size_t n = strlen(DIFF_BASE_PREFIX), nr[2] = { 0, 0 };
	struct profile *last[2] = { NULL, NULL };
	bool mine = false;

	for (size_t i = 0; i < ps->nr_profiles; i++) {
		int base = !strncmp(ps_get(ps, ps->profiles[i]->name), DIFF_BASE_PREFIX, n);

		nr[base]++;
		last[base] = ps->profiles[i];
		if (ps->profiles[i] == p)
			mine = base;
	}
	if (nr[0] != 1 || nr[1] != 1)
		return NULL;
	return last[!mine];
}

struct profile *
diff_other(const struct profile_set *ps, const struct profile *p)
{
	const char *name = ps_get(ps, p->name);
	size_t n = strlen(DIFF_BASE_PREFIX);
	struct strbuf sb = STRBUF_INIT;
	struct profile *other;

	if (!strcmp(name, "after"))
		return profile_set_find_profile(ps, "before");
	if (!strcmp(name, "before"))
		return profile_set_find_profile(ps, "after");
	if (!strncmp(name, DIFF_BASE_PREFIX, n))
		strbuf_addstr(&sb, name + n);
	else
		strbuf_addf(&sb, "%s%s", DIFF_BASE_PREFIX, name);
	other = profile_set_find_profile(ps, sb.buf);
	strbuf_release(&sb);
	if (!other)
		other = only_other(ps, p);
	return other == p ? NULL : other;
}

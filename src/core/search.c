#include "config.h"

#include "tflame/search.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tflame/error.h"
#include "tflame/radix.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Subjects are symbol names: UTF-8 in the main, but nothing guarantees it.
 * PCRE2_MATCH_INVALID_UTF (10.34) lets a UTF pattern match the valid parts
 * of any byte string; without it the regex works on bytes.
 *
 * A pattern that is plain ASCII and names no code point or property is
 * compiled for bytes instead: it finds the same names, except that `.` or
 * [^x] stands for one byte of a multi-byte character rather than the whole
 * character. In return caseless matching folds ASCII only (UTF mode also
 * folds s to U+017F and k to the Kelvin sign, which makes PCRE2's JIT try
 * every position: three times slower on a million names).
 */
#ifdef PCRE2_MATCH_INVALID_UTF
#define TF_PCRE2_UTF (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)
#else
#define TF_PCRE2_UTF 0
#endif

struct search_re {
	pcre2_code *code;
	pcre2_match_data *md;
	bool jit;      /* JIT-compiled: use pcre2_jit_match() */
	bool caseless; /* what smart case chose */
	char *pattern; /* owned, NUL-terminated */
};

/* ------------------------------------------------------------ smart case */

/* Skip from p[i] to just past the first `close`, or to the end. */
static size_t
skip_past(const char *p, size_t len, size_t i, char close)
{
	while (i < len && p[i] != close)
		i++;
	return i < len ? i + 1 : len;
}

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * An escape at p[i] (the byte after the backslash): the index past it.
 * Letters of escapes never stand for themselves, nor do the names and
 * numbers in braces after \p, \x, \N, \g, \k and \o; \Q...\E quotes text,
 * which is copied to out; an escaped non-alphanumeric byte is a literal.
 */
static size_t
skip_escape(const char *p, size_t len, size_t i, struct strbuf *out)
{
	char e = p[i++];
	unsigned char u = (unsigned char)e;

	if (e == 'Q') {
		for (; i < len; i++) {
			if (p[i] == '\\' && i + 1 < len && p[i + 1] == 'E')
				return i + 2;
			strbuf_addch(out, p[i]);
		}
		return len;
	}
	if (e == 'c')
		return i < len ? i + 1 : len;
	if (strchr("pPxoNgk", e) && e && i < len) {
		if (p[i] == '{')
			return skip_past(p, len, i + 1, '}');
		if (p[i] == '<' && (e == 'g' || e == 'k'))
			return skip_past(p, len, i + 1, '>');
		if (p[i] == '\'' && (e == 'g' || e == 'k'))
			return skip_past(p, len, i + 1, '\'');
		/* \pL: a one-letter property. */
		if (e == 'p' || e == 'P')
			return i + 1;
		/* \xAB: up to two hex digits, which are no letters to match. */
		for (int d = 0; e == 'x' && d < 2 && i < len && is_hex(p[i]); d++)
			i++;
		return i;
	}
	if (u >= 0x80 || !((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') ||
			   (u >= 'A' && u <= 'Z')))
		strbuf_addch(out, e);
	return i;
}

/*
 * A group at p[i] = '(' followed by '?' or '*': the index past what names
 * or configures it. Verbs and start-of-pattern options ((*UTF),
 * (*MARK:NAME)) go to their ')'; names of groups and references, option
 * letters ((?J), (?U-i:...)), conditions and callouts are skipped too.
 */
static size_t
skip_group_head(const char *p, size_t len, size_t i)
{
	size_t j = i + 2;

	if (p[i + 1] == '*')
		return skip_past(p, len, j, ')');
	if (j >= len)
		return len;
	switch (p[j]) {
	case '<':
		if (j + 1 < len && (p[j + 1] == '=' || p[j + 1] == '!'))
			return j + 2;
		return skip_past(p, len, j + 1, '>');
	case '\'':
		return skip_past(p, len, j + 1, '\'');
	case 'P':
		if (j + 1 < len && p[j + 1] == '<')
			return skip_past(p, len, j + 2, '>');
		return skip_past(p, len, j + 1, ')');
	case '&':
	case '(':
	case 'C':
	case '#':
	case 'R':
		return skip_past(p, len, j + 1, ')');
	}
	while (j < len && strchr("imnsxJUX^-", p[j]) && p[j])
		j++;
	return j;
}

/* Whether text (valid UTF-8 or not) has a Unicode upper-case or title-case letter. */
static bool
has_upper(const char *s, size_t len)
{
	bool ascii = true;
	pcre2_code *code;
	pcre2_match_data *md;
	int rc, ec;
	PCRE2_SIZE eo;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 'A' && c <= 'Z')
			return true;
		if (c >= 0x80)
			ascii = false;
	}
	if (ascii || !TF_PCRE2_UTF)
		return false;
	code = pcre2_compile((PCRE2_SPTR) "[\\p{Lu}\\p{Lt}]", PCRE2_ZERO_TERMINATED, TF_PCRE2_UTF,
			     &ec, &eo, NULL);
	if (!code)
		BUG("cannot compile the upper-case pattern: error %d", ec);
	md = pcre2_match_data_create(1, NULL);
	if (!md)
		die("out of memory");
	rc = pcre2_match(code, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(code);
	return rc >= 0;
}

bool
search_smart_caseless(const char *p, size_t len)
{
	struct strbuf text;
	bool upper;

	strbuf_init(&text, len);
	for (size_t i = 0; i < len;) {
		if (p[i] == '\\' && i + 1 < len) {
			i = skip_escape(p, len, i + 1, &text);
			continue;
		}
		if (p[i] == '(' && i + 1 < len && (p[i + 1] == '?' || p[i + 1] == '*')) {
			i = skip_group_head(p, len, i);
			continue;
		}
		strbuf_addch(&text, p[i]);
		i++;
	}
	upper = has_upper(text.buf, text.len);
	strbuf_release(&text);
	return !upper;
}

/* ------------------------------------------------------------- the regex */

/* Whether the pattern needs UTF mode: non-ASCII text, code points or properties. */
static bool
needs_utf(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)p[i] >= 0x80)
			return true;
		if (p[i] == '\\' && i + 1 < len && strchr("xoNpPX", p[i + 1]) && p[i + 1])
			return true;
	}
	return false;
}

struct search_re *
search_re_new(const char *pattern, size_t len, size_t *err_offset, struct tf_error *err)
{
	struct search_re *re;
	bool caseless = search_smart_caseless(pattern, len);
	uint32_t opts = (needs_utf(pattern, len) ? TF_PCRE2_UTF : 0) |
			(caseless ? PCRE2_CASELESS : 0);
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *code;

	code = pcre2_compile((PCRE2_SPTR)pattern, len, opts, &ec, &eo, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(ec, msg, sizeof(msg)) < 0)
			strcpy((char *)msg, "bad regular expression");
		if (err_offset)
			*err_offset = eo;
		tf_error_set(err, "%s at offset %zu", (const char *)msg, (size_t)eo);
		return NULL;
	}
	re = xcalloc(1, sizeof(*re));
	re->code = code;
	re->caseless = caseless;
	re->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
	re->md = pcre2_match_data_create(1, NULL);
	if (!re->md)
		die("out of memory");
	re->pattern = xmalloc(len + 1);
	memcpy(re->pattern, pattern, len);
	re->pattern[len] = '\0';
	return re;
}

void
search_re_free(struct search_re *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	free(re->pattern);
	free(re);
}

/* Match with the given match block: the code is shared, md is the thread's own. */
static bool
re_match_md(const struct search_re *re, pcre2_match_data *md, const char *s, size_t len)
{
	int rc;

	if (re->jit) {
		rc = pcre2_jit_match(re->code, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
		/* Deep backtracking outgrew the JIT stack: the interpreter uses the heap. */
		if (rc != PCRE2_ERROR_JIT_STACKLIMIT)
			return rc >= 0;
	}
	rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
	return rc >= 0;
}

bool
search_re_match(struct search_re *re, const char *s, size_t len)
{
	return re_match_md(re, re->md, s, len);
}

const char *
search_re_pattern(const struct search_re *re)
{
	return re->pattern;
}

bool
search_re_caseless(const struct search_re *re)
{
	return re->caseless;
}

/* ------------------------------------------------------- frames matched */

static size_t
words(uint32_t bits)
{
	return ((size_t)bits + 63) / 64 + 1;
}

static void
set_bit(uint64_t *bits, uint32_t i)
{
	bits[i >> 6] |= (uint64_t)1 << (i & 63);
}

static void
search_alloc(struct search *s, const struct profile_set *ps, const struct func_table *ft)
{
	memset(s, 0, sizeof(*s));
	s->nr_frames = ps->nr_frames;
	s->nr_funcs = ft->nr_funcs;
	s->frame_bits = xcalloc(words(s->nr_frames), sizeof(uint64_t));
	s->func_bits = xcalloc(words(s->nr_funcs), sizeof(uint64_t));
}

/* Set the bit of frame f, and of its function; count both once. */
static void
search_mark(struct search *s, const struct func_table *ft, frame_id f)
{
	func_id fn = ft->frame_func[f];

	set_bit(s->frame_bits, f);
	s->frames_matched++;
	if (!search_func(s, fn)) {
		set_bit(s->func_bits, fn);
		s->funcs_matched++;
	}
}

/* One thread's share of the distinct names. */
struct match_job {
	const struct search_re *re;
	const struct profile_set *ps;
	const str_id *names;
	uint32_t lo, hi;
	uint8_t *seen; /* per string: 1 no match, 2 match; each job its own names */
	pthread_t thread;
	bool started;
};

static void *
match_job_run(void *arg)
{
	struct match_job *job = arg;
	const struct profile_set *ps = job->ps;
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);

	if (!md)
		die("out of memory");
	for (uint32_t i = job->lo; i < job->hi; i++) {
		str_id name = job->names[i];

		job->seen[name] = re_match_md(job->re, md, ps_get(ps, name),
					      intern_len(&ps->strings, name)) ? 2 : 1;
	}
	pcre2_match_data_free(md);
	return NULL;
}

/* Threads for nr names: one per CPU, up to 8, each with 64 Ki names at least. */
static uint32_t
match_threads(uint32_t nr)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n > 8)
		n = 8;
	if (n > (long)(nr / 65536))
		n = (long)(nr / 65536);
	return n < 1 ? 1 : (uint32_t)n;
}

/*
 * The regex runs once per distinct name: the names are gathered first,
 * in order of their first frame, and split between threads, each writing
 * only its own names' bytes of seen[]. A thread that cannot be started
 * has its share run here.
 */
void
search_init(struct search *s, struct search_re *re, const struct profile_set *ps,
	    const struct func_table *ft)
{
	uint8_t *seen = xcalloc(intern_count(&ps->strings) + 1, 1);
	str_id *names = xmalloc(sizeof(*names) * ((size_t)ps->nr_frames + 1));
	uint32_t nr = 0, nt;
	struct match_job *jobs;

	search_alloc(s, ps, ft);
	for (frame_id f = 0; f < ps->nr_frames; f++) {
		str_id name = ps->frames[f].name;

		if (!seen[name]) {
			seen[name] = 1;
			names[nr++] = name;
		}
	}
	s->names_tried = nr;
	nt = match_threads(nr);
	jobs = xcalloc(nt, sizeof(*jobs));
	for (uint32_t i = 0; i < nt; i++) {
		jobs[i].re = re;
		jobs[i].ps = ps;
		jobs[i].names = names;
		jobs[i].lo = (uint32_t)((uint64_t)nr * i / nt);
		jobs[i].hi = (uint32_t)((uint64_t)nr * (i + 1) / nt);
		jobs[i].seen = seen;
	}
	for (uint32_t i = 1; i < nt; i++)
		jobs[i].started = !pthread_create(&jobs[i].thread, NULL, match_job_run, &jobs[i]);
	match_job_run(&jobs[0]);
	for (uint32_t i = 1; i < nt; i++) {
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
		else
			match_job_run(&jobs[i]);
	}
	free(jobs);
	free(names);

	for (frame_id f = 0; f < ps->nr_frames; f++)
		if (seen[ps->frames[f].name] == 2)
			search_mark(s, ft, f);
	free(seen);
}

void
search_init_func(struct search *s, const struct profile_set *ps, const struct func_table *ft,
		 func_id func)
{
	search_alloc(s, ps, ft);
	for (frame_id f = 0; f < ps->nr_frames; f++)
		if (ft->frame_func[f] == func)
			search_mark(s, ft, f);
}

void
search_release(struct search *s)
{
	free(s->frame_bits);
	free(s->func_bits);
	memset(s, 0, sizeof(*s));
}

static uint32_t
popcount_bits(const uint64_t *bits, uint32_t n)
{
	uint32_t c = 0;

	for (size_t i = 0; i < words(n); i++)
		c += (uint32_t)__builtin_popcountll(bits[i]);
	return c;
}

int
search_check(const struct search *s, const struct profile_set *ps, const struct func_table *ft,
	     struct tf_error *err)
{
	uint64_t *want;
	int ret = 0;

	if (s->nr_frames != ps->nr_frames || s->nr_funcs != ft->nr_funcs)
		return tf_error_set(err, "search over %u frames and %u functions, not %u and %u",
				    s->nr_frames, s->nr_funcs, ps->nr_frames, ft->nr_funcs);
	/* Bits past the end would be counted by popcount_bits(): none may be set. */
	if (popcount_bits(s->frame_bits, s->nr_frames) != s->frames_matched)
		return tf_error_set(err, "%u frames matched, %u bits set", s->frames_matched,
				    popcount_bits(s->frame_bits, s->nr_frames));
	if (popcount_bits(s->func_bits, s->nr_funcs) != s->funcs_matched)
		return tf_error_set(err, "%u functions matched, %u bits set", s->funcs_matched,
				    popcount_bits(s->func_bits, s->nr_funcs));
	/* A function matches exactly when its frames do: they share a name. */
	want = xcalloc(words(s->nr_funcs), sizeof(uint64_t));
	for (frame_id f = 0; f < ps->nr_frames; f++)
		if (search_frame(s, f))
			set_bit(want, ft->frame_func[f]);
	for (frame_id f = 0; f < ps->nr_frames && !ret; f++)
		if (search_frame(s, f) != search_func(s, ft->frame_func[f]))
			ret = tf_error_set(err, "frame %u and its function %u disagree", f,
					   ft->frame_func[f]);
	if (!ret && memcmp(want, s->func_bits, words(s->nr_funcs) * sizeof(uint64_t)))
		ret = tf_error_set(err, "a function matches with none of its frames");
	free(want);
	return ret;
}

/* ---------------------------------------------- a search over one pane */

/* A span or hit waiting to be sorted by x: key x0, and where it came from. */
struct sort_item {
	uint64_t key;
	uint32_t node;
	uint32_t row;
};

/*
 * Sorting by x without comparisons: the radix sort of radix.h, 16-bit
 * digits (8-bit ones for short lists, whose counts would cost more than
 * the items): two or three passes for the weights of real profiles. Then,
 * for hits, a counting sort by row, also stable, so that rows come in
 * order and x within a row.
 */
static void
sort_by_key(struct sort_item **items, size_t n)
{
	struct sort_item *tmp = xmalloc(sizeof(*tmp) * (n + 1)), *sorted;

	sorted = radix_sort(*items, tmp, n, sizeof(*tmp), offsetof(struct sort_item, key),
			    n >= 65536 ? 16 : 8);
	free(sorted == tmp ? *items : tmp);
	*items = sorted;
}

static void
sort_by_row(struct sort_item **items, size_t n, uint32_t max_row)
{
	size_t *count = xcalloc((size_t)max_row + 2, sizeof(*count));
	struct sort_item *src = *items, *dst = xmalloc(sizeof(*dst) * (n + 1));
	size_t sum = 0;

	for (size_t i = 0; i < n; i++)
		count[src[i].row]++;
	for (size_t r = 0; r <= max_row; r++) {
		size_t c = count[r];

		count[r] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[src[i].row]++] = src[i];
	free(src);
	free(count);
	*items = dst;
}

static void
add_item(struct sort_item **items, size_t *nr, size_t *alloc, uint64_t key, uint32_t node,
	 uint32_t row)
{
	ALLOC_GROW(*items, *nr, *alloc);
	(*items)[*nr].key = key;
	(*items)[*nr].node = node;
	(*items)[*nr].row = row;
	(*nr)++;
}

static void
make_prefix(struct search_index *ix)
{
	ix->prefix = xmalloc(sizeof(*ix->prefix) * ((size_t)ix->nr_spans + 1));
	ix->prefix[0] = 0;
	for (uint32_t i = 0; i < ix->nr_spans; i++)
		ix->prefix[i + 1] = ix->prefix[i] + (ix->spans[i].x1 - ix->spans[i].x0);
}

static bool
tree_node_matches(const struct search *s, const struct calltree *t, stack_id n)
{
	return search_frame(s, t->ps->stacks[n].frame);
}

static bool
box_matches(const struct search *s, const struct chart *c, const stack_id *stack, uint32_t b)
{
	return search_frame(s, c->ps->stacks[stack[b]].frame);
}

/*
 * Sort the gathered spans and hits (unless the hits came in layout order)
 * and store them in ix, with the x range of each.
 */
static void
index_finish(struct search_index *ix, struct sort_item *spans, size_t nr_spans,
	     struct sort_item *hits, size_t nr_hits, uint32_t max_row, bool hits_sorted,
	     void (*range)(const struct search_index *, uint32_t, uint64_t *, uint64_t *))
{
	sort_by_key(&spans, nr_spans);
	ix->spans = xmalloc(sizeof(*ix->spans) * (nr_spans + 1));
	for (size_t i = 0; i < nr_spans; i++)
		range(ix, spans[i].node, &ix->spans[i].x0, &ix->spans[i].x1);
	ix->nr_spans = (uint32_t)nr_spans;
	make_prefix(ix);
	free(spans);

	if (!hits_sorted) {
		sort_by_key(&hits, nr_hits);
		sort_by_row(&hits, nr_hits, max_row);
	}
	ix->hits = xmalloc(sizeof(*ix->hits) * (nr_hits + 1));
	for (size_t i = 0; i < nr_hits; i++) {
		ix->hits[i].row = hits[i].row;
		ix->hits[i].node = hits[i].node;
		range(ix, hits[i].node, &ix->hits[i].x0, &ix->hits[i].x1);
	}
	ix->nr_hits = (uint32_t)nr_hits;
	free(hits);
}

static void
tree_range(const struct search_index *ix, uint32_t n, uint64_t *x0, uint64_t *x1)
{
	*x0 = ix->tree->x0[n];
	*x1 = ix->tree->x0[n] + ix->tree->total[n];
}

static void
chart_range(const struct search_index *ix, uint32_t b, uint64_t *x0, uint64_t *x1)
{
	*x0 = chart_x0(ix->chart, b);
	*x1 = chart_x1(ix->chart, b);
}

/*
 * One forward pass over the stacks, as parents precede children: a node
 * is under a match when it or an ancestor matches. The outermost matching
 * nodes are the spans (their subtrees are exactly the matched samples, and
 * they are disjoint); every matching node is a hit. Both are then sorted
 * by x without comparisons, so a search costs that pass plus time linear
 * in what it finds, whatever the shape of the tree.
 */
void
search_index_tree(struct search_index *ix, const struct search *s, const struct calltree *t)
{
	const struct profile_set *ps = t->ps;
	struct sort_item *spans = NULL, *hits = NULL;
	size_t nr_spans = 0, alloc_spans = 0, nr_hits = 0, alloc_hits = 0;
	uint32_t max_row = 0;
	uint8_t *under;

	memset(ix, 0, sizeof(*ix));
	ix->tree = t;
	ix->total = t->nr_nodes ? t->total[STACK_ROOT] : 0;
	under = xcalloc((size_t)t->nr_nodes + 1, 1);
	for (stack_id n = 1; n < t->nr_nodes && ix->total; n++) {
		const struct stack_node *sn = &ps->stacks[n];

		if (!t->total[n])
			continue;
		if (!search_frame(s, sn->frame)) {
			under[n] = under[sn->parent];
			continue;
		}
		under[n] = 1;
		if (!under[sn->parent])
			add_item(&spans, &nr_spans, &alloc_spans, t->x0[n], n, 0);
		add_item(&hits, &nr_hits, &alloc_hits, t->x0[n], n, sn->depth - 1);
		if (sn->depth - 1 > max_row)
			max_row = sn->depth - 1;
	}
	free(under);
	index_finish(ix, spans, nr_spans, hits, nr_hits, max_row, false, tree_range);
}

/*
 * Boxes are stored by row, then x, so parents come before their children
 * as in the tree, and the same pass finds spans and hits; the hits come
 * out in layout order already. Boxes name stacks in no order, so which
 * stacks match is worked out first, in one pass over them: a bit per
 * stack is small enough to stay in cache where the stack table is not.
 */
void
search_index_chart(struct search_index *ix, const struct search *s, const struct chart *c)
{
	const struct profile_set *ps = c->ps;
	struct sort_item *spans = NULL, *hits = NULL;
	size_t nr_spans = 0, alloc_spans = 0, nr_hits = 0, alloc_hits = 0;
	uint32_t max_row = 0;
	uint8_t *under = xcalloc((size_t)c->nr_boxes + 1, 1);
	uint32_t *parent = xmalloc(sizeof(*parent) * ((size_t)c->nr_boxes + 1));
	stack_id *stack = xmalloc(sizeof(*stack) * ((size_t)c->nr_boxes + 1));
	uint64_t *stack_bits = xcalloc((size_t)ps->nr_stacks / 64 + 1, sizeof(uint64_t));

	for (stack_id n = 1; n < ps->nr_stacks; n++)
		if (search_frame(s, ps->stacks[n].frame))
			set_bit(stack_bits, n);

	memset(ix, 0, sizeof(*ix));
	ix->chart = c;
	ix->total = c->total;
	chart_parents(c, parent);
	/* Boxes do not store their stacks: all of them at once, in one walk. */
	chart_stacks(c, stack);
	for (uint32_t b = 0, depth = 0; b < c->nr_boxes; b++) {
		stack_id st = stack[b];
		bool above = parent[b] != CHART_NONE && under[parent[b]];

		while (b >= c->row_start[depth + 1])
			depth++;
		if (!(stack_bits[st >> 6] >> (st & 63) & 1)) {
			under[b] = above;
			continue;
		}
		under[b] = 1;
		if (!above)
			add_item(&spans, &nr_spans, &alloc_spans, chart_x0(c, b), b, 0);
		add_item(&hits, &nr_hits, &alloc_hits, chart_x0(c, b), b, depth);
		if (depth > max_row)
			max_row = depth;
	}
	free(stack);
	free(parent);
	free(under);
	free(stack_bits);
	index_finish(ix, spans, nr_spans, hits, nr_hits, max_row, true, chart_range);
}

void
search_index_release(struct search_index *ix)
{
	free(ix->spans);
	free(ix->prefix);
	free(ix->hits);
	memset(ix, 0, sizeof(*ix));
}

/* The first span in [lo, hi) ending after x, or hi. */
static uint32_t
span_ending_after(const struct search_index *ix, uint32_t lo, uint32_t hi, uint64_t x)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ix->spans[mid].x1 > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first span in [lo, hi) starting at or after x, or hi. */
static uint32_t
span_starting_from(const struct search_index *ix, uint32_t lo, uint32_t hi, uint64_t x)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ix->spans[mid].x0 >= x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint64_t
search_index_matched(const struct search_index *ix, uint64_t x0, uint64_t x1)
{
	uint32_t i, j;
	uint64_t sum;

	if (x1 <= x0 || !ix->nr_spans)
		return 0;
	i = span_ending_after(ix, 0, ix->nr_spans, x0);
	j = span_starting_from(ix, i, ix->nr_spans, x1);
	if (i >= j)
		return 0;
	sum = ix->prefix[j] - ix->prefix[i];
	if (ix->spans[i].x0 < x0)
		sum -= x0 - ix->spans[i].x0;
	if (ix->spans[j - 1].x1 > x1)
		sum -= ix->spans[j - 1].x1 - x1;
	return sum;
}

/* ------------------------------------------------------------ next, prev */

/* Where node is in layout order; false if it is not in the pane. */
static bool
node_key(const struct search_index *ix, uint32_t node, uint32_t *row, uint64_t *x0)
{
	if (node == SEARCH_NONE)
		return false;
	if (ix->tree) {
		const struct calltree *t = ix->tree;

		if (node == STACK_ROOT || node >= t->nr_nodes || !t->total[node])
			return false;
		*row = t->ps->stacks[node].depth - 1;
		*x0 = t->x0[node];
		return true;
	}
	if (!ix->chart || node >= ix->chart->nr_boxes)
		return false;
	*row = chart_depth(ix->chart, node);
	*x0 = chart_x0(ix->chart, node);
	return true;
}

static int
hit_cmp_key(const struct search_hit *h, uint32_t row, uint64_t x0)
{
	if (h->row != row)
		return h->row < row ? -1 : 1;
	return h->x0 < x0 ? -1 : h->x0 > x0;
}

/* The first hit whose key is above (row, x0), or at it when !strict. */
static uint32_t
hit_bound(const struct search_index *ix, uint32_t row, uint64_t x0, bool strict)
{
	uint32_t lo = 0, hi = ix->nr_hits;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = hit_cmp_key(&ix->hits[mid], row, x0);

		if (c > 0 || (!strict && c == 0))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* One past the last hit of row, searching from i (a hit of that row). */
static uint32_t
row_end(const struct search_index *ix, uint32_t i)
{
	uint32_t row = ix->hits[i].row, lo = i, hi = ix->nr_hits;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ix->hits[mid].row > row)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first hit of the row of hit i. */
static uint32_t
row_begin(const struct search_index *ix, uint32_t i)
{
	uint32_t row = ix->hits[i].row, lo = 0, hi = i;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ix->hits[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The hits of one row are disjoint, so sorted by x0 they are sorted by x1
 * too: the first one in the view is found by binary search, and a row with
 * nothing in view is crossed in one step.
 */
static uint32_t
find_forward(const struct search_index *ix, uint32_t i, uint64_t x0, uint64_t x1)
{
	while (i < ix->nr_hits) {
		uint32_t end = row_end(ix, i), lo = i, hi = end;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (ix->hits[mid].x1 > x0)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo < end && ix->hits[lo].x0 < x1)
			return lo;
		i = end;
	}
	return SEARCH_NONE;
}

/* The last hit at or before i in view, or SEARCH_NONE. */
static uint32_t
find_backward(const struct search_index *ix, uint32_t i, uint64_t x0, uint64_t x1)
{
	while (i != SEARCH_NONE) {
		uint32_t begin = row_begin(ix, i), lo = begin, hi = i + 1;

		/* The first hit in [begin, i] starting at or after x1; the one before it. */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (ix->hits[mid].x0 >= x1)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo > begin && ix->hits[lo - 1].x1 > x0)
			return lo - 1;
		i = begin ? begin - 1 : SEARCH_NONE;
	}
	return SEARCH_NONE;
}

uint32_t
search_index_next(const struct search_index *ix, uint32_t node, uint64_t x0, uint64_t x1)
{
	uint32_t row, start = 0, i;
	uint64_t nx0;

	if (!ix->nr_hits || x1 <= x0)
		return SEARCH_NONE;
	if (node_key(ix, node, &row, &nx0))
		start = hit_bound(ix, row, nx0, true);
	i = find_forward(ix, start, x0, x1);
	if (i == SEARCH_NONE && start)
		i = find_forward(ix, 0, x0, x1);
	return i == SEARCH_NONE ? SEARCH_NONE : ix->hits[i].node;
}

uint32_t
search_index_prev(const struct search_index *ix, uint32_t node, uint64_t x0, uint64_t x1)
{
	uint32_t row, start = ix->nr_hits, i = SEARCH_NONE;
	uint64_t nx0;

	if (!ix->nr_hits || x1 <= x0)
		return SEARCH_NONE;
	if (node_key(ix, node, &row, &nx0))
		start = hit_bound(ix, row, nx0, false);
	if (start)
		i = find_backward(ix, start - 1, x0, x1);
	if (i == SEARCH_NONE && start < ix->nr_hits)
		i = find_backward(ix, ix->nr_hits - 1, x0, x1);
	return i == SEARCH_NONE ? SEARCH_NONE : ix->hits[i].node;
}

/* ----------------------------------------------------------------- check */

static int
check_lists(const struct search_index *ix, struct tf_error *err)
{
	for (uint32_t i = 0; i < ix->nr_spans; i++) {
		const struct search_span *sp = &ix->spans[i];

		if (sp->x1 <= sp->x0 || sp->x1 > ix->total)
			return tf_error_set(err, "span %u: [%llu, %llu) in a total of %llu", i,
					    (unsigned long long)sp->x0, (unsigned long long)sp->x1,
					    (unsigned long long)ix->total);
		if (i && sp->x0 < sp[-1].x1)
			return tf_error_set(err, "span %u overlaps or precedes span %u", i, i - 1);
		if (ix->prefix[i + 1] != ix->prefix[i] + (sp->x1 - sp->x0))
			return tf_error_set(err, "span %u: wrong prefix sum", i);
	}
	if (ix->prefix[0])
		return tf_error_set(err, "prefix sums start at %llu",
				    (unsigned long long)ix->prefix[0]);
	for (uint32_t i = 0; i < ix->nr_hits; i++) {
		const struct search_hit *h = &ix->hits[i];

		if (h->x1 <= h->x0 || h->x1 > ix->total)
			return tf_error_set(err, "hit %u: empty or past the end", i);
		if (i && hit_cmp_key(&h[-1], h->row, h->x0) >= 0)
			return tf_error_set(err, "hits %u and %u out of order", i - 1, i);
		if (i && h[-1].row == h->row && h[-1].x1 > h->x0)
			return tf_error_set(err, "hits %u and %u overlap on row %u", i - 1, i,
					    h->row);
	}
	return 0;
}

/* Recount the tree's matches a second way: a forward pass over its stacks. */
static int
check_tree(const struct search_index *ix, const struct search *s, struct tf_error *err)
{
	const struct calltree *t = ix->tree;
	const struct profile_set *ps = t->ps;
	uint8_t *under = xcalloc((size_t)t->nr_nodes + 1, 1);
	uint64_t matched = 0;
	uint32_t outer = 0, hits = 0, h = 0;
	int ret = 0;

	if (ix->total != (t->nr_nodes ? t->total[STACK_ROOT] : 0))
		ret = tf_error_set(err, "index total %llu, tree total differs",
				   (unsigned long long)ix->total);
	for (stack_id n = 1; n < t->nr_nodes && !ret; n++) {
		bool m = tree_node_matches(s, t, n);

		under[n] = m || under[ps->stacks[n].parent];
		if (!t->total[n])
			continue;
		if (under[n])
			matched += t->self[n];
		if (m && !under[ps->stacks[n].parent])
			outer++;
		if (m)
			hits++;
		if (m) {
			uint32_t i = hit_bound(ix, ps->stacks[n].depth - 1, t->x0[n], false);

			if (i >= ix->nr_hits || ix->hits[i].node != n)
				ret = tf_error_set(err, "matching node %u is not a hit", n);
		}
	}
	for (; !ret && h < ix->nr_hits; h++)
		if (!tree_node_matches(s, t, ix->hits[h].node))
			ret = tf_error_set(err, "hit %u: node %u does not match", h,
					   ix->hits[h].node);
	if (!ret && (outer != ix->nr_spans || hits != ix->nr_hits))
		ret = tf_error_set(err, "%u spans and %u hits, want %u and %u", ix->nr_spans,
				   ix->nr_hits, outer, hits);
	if (!ret && matched != ix->prefix[ix->nr_spans])
		ret = tf_error_set(err, "spans cover %llu, matched samples weigh %llu",
				   (unsigned long long)ix->prefix[ix->nr_spans],
				   (unsigned long long)matched);
	free(under);
	return ret;
}

static int
check_chart(const struct search_index *ix, const struct search *s, struct tf_error *err)
{
	const struct chart *c = ix->chart;
	uint32_t hits = 0, outer = 0, h = 0;
	uint64_t covered = 0;
	uint8_t *under = xcalloc((size_t)c->nr_boxes + 1, 1);
	uint32_t *parent = xmalloc(sizeof(*parent) * ((size_t)c->nr_boxes + 1));
	stack_id *stack = xmalloc(sizeof(*stack) * ((size_t)c->nr_boxes + 1));
	int ret = 0;

	chart_parents(c, parent);
	chart_stacks(c, stack);
	if (ix->total != c->total)
		ret = tf_error_set(err, "index total %llu, chart total %llu",
				   (unsigned long long)ix->total, (unsigned long long)c->total);
	for (uint32_t b = 0; b < c->nr_boxes && !ret; b++) {
		bool above = parent[b] != CHART_NONE && under[parent[b]];

		if (!box_matches(s, c, stack, b)) {
			under[b] = above;
			continue;
		}
		under[b] = 1;
		if (h >= ix->nr_hits || ix->hits[h].node != b)
			ret = tf_error_set(err, "matching box %u is not hit %u", b, h);
		h++;
		hits++;
		if (!above) {
			outer++;
			covered += chart_x1(c, b) - chart_x0(c, b);
		}
	}
	if (!ret && (hits != ix->nr_hits || outer != ix->nr_spans))
		ret = tf_error_set(err, "%u spans and %u hits, want %u and %u", ix->nr_spans,
				   ix->nr_hits, outer, hits);
	if (!ret && covered != ix->prefix[ix->nr_spans])
		ret = tf_error_set(err, "spans cover %llu, matching boxes %llu",
				   (unsigned long long)ix->prefix[ix->nr_spans],
				   (unsigned long long)covered);
	free(stack);
	free(parent);
	free(under);
	return ret;
}

int
search_index_check(const struct search_index *ix, const struct search *s, struct tf_error *err)
{
	if (!ix->tree == !ix->chart)
		return tf_error_set(err, "an index of %s", ix->tree ? "a tree and a chart" : "nothing");
	if (check_lists(ix, err))
		return -1;
	return ix->tree ? check_tree(ix, s, err) : check_chart(ix, s, err);
}

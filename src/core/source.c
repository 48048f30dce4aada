#include "config.h"

#include "tflame/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

#define POS_NONE UINT32_MAX
#define LINE_UNSET UINT32_MAX
#define LINE_NONE (UINT32_MAX - 1)

/*
 * The positions, in one id space: the set's recorded positions first
 * (when it has any), then one derived position per stack for the samples
 * without a recorded one (when any sample needs them). Within each part
 * a parent has a lower id than its children, and each part has a root of
 * its own (src 0, and stack 0) at no line.
 */
struct pos_space {
	const struct profile_set *ps;
	uint32_t nr_srcs;   /* recorded positions in the space: 0 or ps->nr_srcs */
	uint32_t nr;        /* all positions */
	str_id file;        /* the one file asked for, or SOURCE_ALL_FILES */
};

static uint32_t
pos_parent(const struct pos_space *sp, uint32_t i)
{
	stack_id s;

	if (i < sp->nr_srcs)
		return i == SRC_ROOT ? POS_NONE : sp->ps->srcs[i].parent;
	s = i - sp->nr_srcs;
	return s == STACK_ROOT ? POS_NONE : sp->nr_srcs + sp->ps->stacks[s].parent;
}

static stack_id
pos_stack(const struct pos_space *sp, uint32_t i)
{
	return i < sp->nr_srcs ? sp->ps->srcs[i].stack : i - sp->nr_srcs;
}

/* The file and line of position i; false when it is at no line. */
static bool
pos_place(const struct pos_space *sp, uint32_t i, str_id *file, uint32_t *line)
{
	if (i < sp->nr_srcs) {
		*file = sp->ps->srcs[i].file;
		*line = sp->ps->srcs[i].line;
	} else {
		stack_id s = i - sp->nr_srcs;
		const struct frame *f;

		if (s == STACK_ROOT)
			return false;
		f = ps_frame(sp->ps, sp->ps->stacks[s].frame);
		if (!(f->flags & FRAME_HAS_LINE))
			return false;
		*file = f->file;
		*line = f->line;
	}
	return *file != STR_EMPTY && *line > 0 &&
	       (sp->file == SOURCE_ALL_FILES || *file == sp->file);
}

/* (file, line) -> index into sl->lines; an open-addressing table of index + 1. */
struct line_table {
	uint32_t *slots;
	uint32_t mask;
};

static uint32_t
line_hash(str_id file, uint32_t line)
{
	return (uint32_t)hash_pair(file, line);
}

static uint32_t
line_intern(struct source_lines *sl, struct line_table *lt, str_id file, uint32_t line)
{
	uint32_t pos = line_hash(file, line) & lt->mask;

	for (; lt->slots[pos]; pos = (pos + 1) & lt->mask) {
		const struct source_line *l = &sl->lines[lt->slots[pos] - 1];

		if (l->file == file && l->line == line)
			return lt->slots[pos] - 1;
	}
	ALLOC_GROW(sl->lines, sl->nr, sl->alloc);
	sl->lines[sl->nr] = (struct source_line){ file, line, 0, 0, FRAME_NONE };
	lt->slots[pos] = ++sl->nr;
	if ((uint64_t)sl->nr * 2 > (uint64_t)lt->mask + 1) {
		uint32_t n = (lt->mask + 1) * 2, m = n - 1;
		uint32_t *s = xcalloc(n, sizeof(*s));

		for (uint32_t i = 0; i < sl->nr; i++) {
			uint32_t p = line_hash(sl->lines[i].file, sl->lines[i].line) & m;

			while (s[p])
				p = (p + 1) & m;
			s[p] = i + 1;
		}
		free(lt->slots);
		lt->slots = s;
		lt->mask = m;
	}
	return sl->nr - 1;
}

/*
 * One position during source_lines_compute(), packed so that a visit
 * touches one cache line: the positions are walked in an order the ids
 * do not follow.
 */
struct pnode {
	uint64_t w;      /* weight at it; then of its subtree */
	uint32_t parent; /* POS_NONE for a root */
	uint32_t first;  /* first child with weight, or POS_NONE */
	uint32_t next;   /* next sibling with weight, or POS_NONE */
	uint32_t line;   /* index into sl->lines, LINE_NONE, or LINE_UNSET */
};

/* The line of position i (an index into sl->lines, or LINE_NONE), cached. */
static uint32_t
pos_line(const struct pos_space *sp, struct source_lines *sl, struct line_table *lt,
	 struct pnode *nd, uint32_t i)
{
	str_id file;
	uint32_t line;

	if (nd[i].line == LINE_UNSET)
		nd[i].line = pos_place(sp, i, &file, &line) ? line_intern(sl, lt, file, line)
							  : LINE_NONE;
	return nd[i].line;
}

static int
cmp_line(const void *pa, const void *pb)
{
	const struct source_line *a = pa, *b = pb;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/*
 * Counting a line once per sample: a sample's total goes to a line if the
 * line is anywhere on its position path, so a line's total is the sum of
 * the subtree weights of its *outermost* positions, those with no
 * ancestor at the same line. Subtree weights come from one backward pass
 * over the ids, since parents precede children. Which positions are
 * outermost takes a depth-first walk that counts, per line, how many
 * times it is on the current path; the walk goes through first-child /
 * next-sibling links, not recursion, and only through positions with
 * weight, so a thread filter that keeps little makes it short.
 */
void
source_lines_compute(struct source_lines *sl, const struct profile_set *ps,
		     const struct profile *p, const struct sample_filter *filter, str_id file)
{
	const bool *keep = filter ? filter->threads : NULL;
	struct pos_space sp = { ps, 0, 0, file };
	struct line_table lt;
	bool recorded = ps->nr_srcs > 1 && p->src, need_stacks = !recorded;
	struct pnode *nd;
	uint32_t *on_path, lined = 0; /* lines on the walk's path */
	uint64_t *best;

	memset(sl, 0, sizeof(*sl));
	sl->recorded = ps->nr_srcs > 1;
	if (recorded) {
		for (size_t i = 0; i < p->nr_samples && !need_stacks; i++)
			need_stacks = p->src[i] == SRC_ROOT && (!keep || keep[p->thread[i]]);
		sp.nr_srcs = ps->nr_srcs;
	}
	sp.nr = sp.nr_srcs + (need_stacks ? ps->nr_stacks : 0);

	nd = xmalloc(sizeof(*nd) * ((size_t)sp.nr + 1));
	for (uint32_t i = 0; i < sp.nr; i++)
		nd[i] = (struct pnode){ 0, pos_parent(&sp, i), POS_NONE, POS_NONE, LINE_UNSET };
	/* The weight of the samples at each position. */
	for (size_t i = 0; i < p->nr_samples; i++) {
		uint32_t at;

		if (keep && !keep[p->thread[i]])
			continue;
		if (filter && filter->timed &&
		    (p->time[i] < filter->t0 || p->time[i] >= filter->t1))
			continue;
		at = recorded && p->src[i] != SRC_ROOT ? p->src[i] : sp.nr_srcs + p->stack[i];
		nd[at].w += p->weight[i];
		sl->all += p->weight[i];
	}

	lt.mask = 63;
	lt.slots = xzalloc_table(lt.mask + 1, sizeof(*lt.slots));
	/* Self: where the samples are; then w becomes the subtree weights. */
	for (uint32_t i = 0; i < sp.nr; i++) {
		uint32_t l;

		if (nd[i].w && (l = pos_line(&sp, sl, &lt, nd, i)) != LINE_NONE)
			sl->lines[l].self += nd[i].w;
	}
	for (uint32_t i = sp.nr; i-- > 0;)
		if (nd[i].parent != POS_NONE)
			nd[nd[i].parent].w += nd[i].w;
	/*
	 * Every position with weight gets its line now, so the walk has them
	 * all, and a link: pushed in descending order, siblings come out in
	 * id order.
	 */
	for (uint32_t i = sp.nr; i-- > 0;) {
		uint32_t up = nd[i].parent;

		if (!nd[i].w)
			continue;
		pos_line(&sp, sl, &lt, nd, i);
		if (up != POS_NONE) {
			nd[i].next = nd[up].first;
			nd[up].first = i;
		}
	}

	on_path = xcalloc((size_t)sl->nr + 1, sizeof(*on_path));
	best = xcalloc((size_t)sl->nr + 1, sizeof(*best));
	for (int part = 0; part < 2; part++) {
		uint32_t root = part ? sp.nr_srcs : SRC_ROOT, n;

		if (part == 0 ? !sp.nr_srcs : !need_stacks)
			continue;
		n = nd[root].first;
		while (n != POS_NONE) {
			uint32_t l = nd[n].line;

			if (l != LINE_NONE) {
				struct source_line *at = &sl->lines[l];

				/* The first line on the path: the sample has a place. */
				if (!lined)
					sl->placed += nd[n].w;
				lined++;
				if (!on_path[l]) {
					at->total += nd[n].w;
					if (nd[n].w > best[l]) {
						best[l] = nd[n].w;
						at->frame = ps->stacks[pos_stack(&sp, n)].frame;
					}
				}
				on_path[l]++;
			}
			if (nd[n].first != POS_NONE) {
				n = nd[n].first;
				continue;
			}
			/* Leave n, and every ancestor whose children are all done. */
			while (n != root) {
				if (nd[n].line != LINE_NONE) {
					on_path[nd[n].line]--;
					lined--;
				}
				if (nd[n].next != POS_NONE) {
					n = nd[n].next;
					break;
				}
				n = nd[n].parent;
			}
			if (n == root)
				break;
		}
	}

	if (sl->nr)
		qsort(sl->lines, sl->nr, sizeof(*sl->lines), cmp_line);
	free(nd);
	free(on_path);
	free(best);
	free(lt.slots);
}

void
source_lines_release(struct source_lines *sl)
{
	free(sl->lines);
	memset(sl, 0, sizeof(*sl));
}

/* The index of the first line of sl at or after file:line. */
static uint32_t
lower_bound(const struct source_lines *sl, str_id file, uint32_t line)
{
	uint32_t lo = 0, hi = sl->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct source_line *l = &sl->lines[mid];

		if (l->file < file || (l->file == file && l->line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t
source_lines_of_file(const struct source_lines *sl, str_id file, uint32_t *nr)
{
	uint32_t first = lower_bound(sl, file, 0), end = first;

	while (end < sl->nr && sl->lines[end].file == file)
		end++;
	*nr = end - first;
	return first;
}

const struct source_line *
source_lines_find(const struct source_lines *sl, str_id file, uint32_t line)
{
	uint32_t i = lower_bound(sl, file, line);

	if (i < sl->nr && sl->lines[i].file == file && sl->lines[i].line == line)
		return &sl->lines[i];
	return NULL;
}

/* For qsort_r-less sorting: the lines and the set travel with the indexes. */
struct top_key {
	const struct source_line *l;
	const char *file;
	uint32_t index;
};

static int
cmp_top(const void *pa, const void *pb)
{
	const struct top_key *a = pa, *b = pb;
	int c;

	if (a->l->self != b->l->self)
		return a->l->self < b->l->self ? 1 : -1;
	if (a->l->total != b->l->total)
		return a->l->total < b->l->total ? 1 : -1;
	if ((c = strcmp(a->file, b->file)))
		return c;
	return (a->l->line > b->l->line) - (a->l->line < b->l->line);
}

uint32_t *
source_lines_top(const struct source_lines *sl, const struct profile_set *ps)
{
	struct top_key *keys = xmalloc(sizeof(*keys) * ((size_t)sl->nr + 1));
	uint32_t *order = xmalloc(sizeof(*order) * ((size_t)sl->nr + 1));

	for (uint32_t i = 0; i < sl->nr; i++) {
		keys[i].l = &sl->lines[i];
		keys[i].file = ps_get(ps, sl->lines[i].file);
		keys[i].index = i;
	}
	if (sl->nr)
		qsort(keys, sl->nr, sizeof(*keys), cmp_top);
	for (uint32_t i = 0; i < sl->nr; i++)
		order[i] = keys[i].index;
	free(keys);
	return order;
}

str_id
source_func_file(const struct source_lines *sl, const struct profile_set *ps,
		 const func_id *frame_func, func_id func)
{
	str_id best = STR_EMPTY;
	uint64_t best_w = 0;

	(void)ps;
	/* Lines are grouped by file: sum each group's lines of func. */
	for (uint32_t i = 0; i < sl->nr;) {
		str_id file = sl->lines[i].file;
		uint64_t sum = 0;

		for (; i < sl->nr && sl->lines[i].file == file; i++)
			if (sl->lines[i].frame != FRAME_NONE &&
			    frame_func[sl->lines[i].frame] == func)
				sum += sl->lines[i].total;
		if (sum > best_w) {
			best_w = sum;
			best = file;
		}
	}
	return best;
}

int
source_lines_check(const struct source_lines *sl, const struct profile_set *ps,
		   struct tf_error *err)
{
	if (sl->placed > sl->all)
		return tf_error_set(err, "placed weight %llu above the total %llu",
				    (unsigned long long)sl->placed, (unsigned long long)sl->all);
	for (uint32_t i = 0; i < sl->nr; i++) {
		const struct source_line *l = &sl->lines[i];

		if (l->file == STR_EMPTY || l->file >= intern_count(&ps->strings) || !l->line)
			return tf_error_set(err, "line %u: no file or no line", i);
		if (l->frame >= ps->nr_frames)
			return tf_error_set(err, "line %u: frame %u of %u", i, l->frame,
					    ps->nr_frames);
		if (!l->total || l->self > l->total || l->total > sl->placed)
			return tf_error_set(err, "line %u: self %llu, total %llu, placed %llu", i,
					    (unsigned long long)l->self,
					    (unsigned long long)l->total,
					    (unsigned long long)sl->placed);
		if (i && cmp_line(&sl->lines[i - 1], l) >= 0)
			return tf_error_set(err, "line %u: out of order or twice", i);
	}
	return 0;
}

/* ------------------------------------------------------------- the files */

/* Why a candidate was not shown, from the most telling to the least. */
enum miss {
	MISS_NONE,      /* nothing tried yet */
	MISS_NOENT,     /* not there */
	MISS_FOUND_BAD, /* there, but not something to show: that says more */
};

struct finder {
	struct source_file *sf;
	enum miss miss;
	struct strbuf why; /* the first telling reason */
};

static void
miss(struct finder *fd, enum miss m, const char *fmt, const char *path, const char *extra)
{
	if (m <= fd->miss)
		return;
	fd->miss = m;
	strbuf_reset(&fd->why);
	strbuf_addf(&fd->why, fmt, path, extra ? extra : "");
}

/* Read all of fd into sf->data: 0, or -1 with errno set. */
static int
read_all(int fd, struct source_file *sf, size_t size)
{
	size_t cap = size + 1;

	sf->data = xmalloc(cap + 1);
	sf->len = 0;
	for (;;) {
		ssize_t n;

		if (sf->len == cap) {
			if (cap > SOURCE_MAX_BYTES) {
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			sf->data = xrealloc(sf->data, cap + 1);
		}
		n = read(fd, sf->data + sf->len, cap - sf->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		sf->len += (size_t)n;
	}
	sf->data[sf->len] = '\0';
	return 0;
}

static void
split_lines(struct source_file *sf)
{
	size_t alloc = 0, nr = 0;

	ALLOC_GROW(sf->starts, nr + 1, alloc);
	sf->starts[nr++] = 0;
	for (size_t i = 0; i < sf->len; i++) {
		if (sf->data[i] != '\n')
			continue;
		ALLOC_GROW(sf->starts, nr + 1, alloc);
		sf->starts[nr++] = i + 1;
	}
	/* A last line with no newline is a line too. */
	if (sf->len && sf->data[sf->len - 1] != '\n') {
		ALLOC_GROW(sf->starts, nr + 1, alloc);
		sf->starts[nr++] = sf->len;
	}
	sf->nr_lines = (uint32_t)(nr - 1);
}

/* Try one candidate: true when it was read into fd->sf. */
static bool
try_path(struct finder *fd, const char *path)
{
	struct source_file *sf = fd->sf;
	struct stat st;
	int f;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	f = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (f < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)
			miss(fd, MISS_NOENT, "no such file: %s%s", path, NULL);
		else if (errno == EACCES || errno == EPERM)
			miss(fd, MISS_FOUND_BAD, "permission denied: %s%s", path, NULL);
		else
			miss(fd, MISS_FOUND_BAD, "cannot open %s: %s", path, strerror(errno));
		return false;
	}
	if (fstat(f, &st) || !S_ISREG(st.st_mode)) {
		miss(fd, MISS_FOUND_BAD, "not a regular file: %s%s", path, NULL);
		close(f);
		return false;
	}
	if ((uint64_t)st.st_size > SOURCE_MAX_BYTES) {
		miss(fd, MISS_FOUND_BAD, "too large: %s (%s)", path,
		     "more than 16 MiB");
		close(f);
		return false;
	}
	if (read_all(f, sf, (size_t)st.st_size)) {
		if (errno == EFBIG)
			miss(fd, MISS_FOUND_BAD, "too large: %s (%s)", path, "more than 16 MiB");
		else
			miss(fd, MISS_FOUND_BAD, "cannot read %s: %s", path, strerror(errno));
		close(f);
		free(sf->data);
		sf->data = NULL;
		return false;
	}
	close(f);
	if (memchr(sf->data, '\0', sf->len)) {
		miss(fd, MISS_FOUND_BAD, "binary file: %s%s", path, NULL);
		free(sf->data);
		sf->data = NULL;
		return false;
	}
	sf->path = xstrdup(path);
	split_lines(sf);
	return true;
}

/* DIR/PATH and DIR with the shorter tails of PATH, longest first. */
static bool
try_dir(struct finder *fd, const char *dir, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *tail = path;
	bool found = false;

	while (*tail == '/')
		tail++;
	while (*tail && !found) {
		const char *slash;

		strbuf_reset(&sb);
		strbuf_addstr(&sb, dir);
		if (sb.len && sb.buf[sb.len - 1] != '/')
			strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, tail);
		found = try_path(fd, sb.buf);
		slash = strchr(tail, '/');
		if (!slash)
			break;
		tail = slash + 1;
		while (*tail == '/')
			tail++;
	}
	strbuf_release(&sb);
	return found;
}

static int
hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * The local path of a file: URL (file:///a/b%20c.js, file://localhost/x),
 * percent escapes decoded, into out; false for anything else. A %00 or a
 * host other than localhost names no local file: false too.
 */
static bool
file_url_path(const char *url, struct strbuf *out)
{
	const char *p;

	if (strncmp(url, "file://", 7))
		return false;
	p = url + 7;
	if (!strncmp(p, "localhost/", 10))
		p += 9;
	if (*p != '/')
		return false;
	for (; *p && *p != '?' && *p != '#'; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hex_digit(p[1])) >= 0 && (lo = hex_digit(p[2])) >= 0) {
			if (!hi && !lo)
				return false;
			strbuf_addch(out, (char)(hi << 4 | lo));
			p += 2;
		} else {
			strbuf_addch(out, *p);
		}
	}
	return true;
}

int
source_file_load(struct source_file *sf, const char *path,
		 const struct source_search *where, struct tf_error *err)
{
	struct finder fd = { sf, MISS_NONE, STRBUF_INIT };
	struct strbuf local = STRBUF_INIT;
	const char *recorded = path;
	bool found = false;
	int ret = 0;

	memset(sf, 0, sizeof(*sf));
	/* addr2line says ?? for a file it does not know. */
	if (!path || !*path || !strcmp(path, "??"))
		return tf_error_set(err, "not recorded");
	/* A script of a JS profile: its file: URL is a path; node's own are no file. */
	if (!strncmp(path, "node:", 5))
		return tf_error_set(err, "built into node, not a file: %s", path);
	if (file_url_path(path, &local))
		path = local.buf;
	for (size_t i = 0; where && i < where->nr_dirs && !found; i++)
		found = try_dir(&fd, where->dirs[i], path);
	if (!found)
		found = try_path(&fd, path);
	if (!found && path[0] != '/' && where && where->profile_dir) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s/%s", where->profile_dir, path);
		found = try_path(&fd, sb.buf);
		strbuf_release(&sb);
	}
	if (!found) {
		/* Not there anywhere: name the file as recorded, not the last guess. */
		if (fd.miss == MISS_NOENT) {
			strbuf_reset(&fd.why);
			strbuf_addf(&fd.why, "no such file: %s", recorded);
		}
		ret = tf_error_set(err, "%s", fd.why.buf);
	}
	strbuf_release(&fd.why);
	strbuf_release(&local);
	return ret;
}

void
source_file_release(struct source_file *sf)
{
	free(sf->path);
	free(sf->data);
	free(sf->starts);
	memset(sf, 0, sizeof(*sf));
}

void
source_file_line(const struct source_file *sf, uint32_t n, struct strbuf *out)
{
	const char *s, *end;
	unsigned col = 0;

	if (!n || n > sf->nr_lines)
		return;
	s = sf->data + sf->starts[n - 1];
	end = sf->data + sf->starts[n];
	if (end > s && end[-1] == '\n')
		end--;
	if (end > s && end[-1] == '\r')
		end--;
	/*
	 * Tabs become spaces to the next stop and a backslash stays one (in
	 * code it is common, and doubling it would misquote the source);
	 * everything between goes through text_escape().
	 */
	while (s < end) {
		const char *q = s;

		size_t at = out->len;

		while (q < end && *q != '\t' && *q != '\\')
			q++;
		text_escape(out, s, (size_t)(q - s));
		col += render_width(out->buf + at, out->len - at);
		if (q == end)
			break;
		if (*q == '\\') {
			strbuf_addch(out, '\\');
			col++;
		} else {
			strbuf_addchars(out, ' ', 8 - col % 8);
			col += 8 - col % 8;
		}
		s = q + 1;
	}
}

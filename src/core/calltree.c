#include "config.h"

#include "tflame/calltree.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

/*
 * Sibling order: heaviest first, then by frame name (bytes, a shorter name
 * before a longer one it prefixes), then by stack id, so that the order is
 * total and the same on every run. Returns < 0 when a comes first.
 */
static int
kid_cmp(const struct calltree *t, stack_id a, stack_id b)
{
	const struct profile_set *ps = t->ps;
	str_id na, nb;
	uint32_t la, lb;
	int c;

	if (t->total[a] != t->total[b])
		return t->total[a] > t->total[b] ? -1 : 1;
	na = ps->frames[ps->stacks[a].frame].name;
	nb = ps->frames[ps->stacks[b].frame].name;
	if (na != nb) {
		la = intern_len(&ps->strings, na);
		lb = intern_len(&ps->strings, nb);
		c = memcmp(ps_get(ps, na), ps_get(ps, nb), la < lb ? la : lb);
		if (c)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	return a < b ? -1 : a > b;
}

/*
 * qsort() has no context argument and qsort_r() is not portable, so the
 * children are sorted here: insertion sort for the short lists that make up
 * most of a tree, heapsort (in place, no recursion, O(n log n) worst case)
 * for the long ones, such as a root with a million callees.
 */
static void
sift_down(const struct calltree *t, stack_id *a, uint32_t root, uint32_t n)
{
	for (;;) {
		uint32_t child = 2 * root + 1;
		stack_id tmp;

		if (child >= n)
			return;
		/* A max-heap of the sort order: the node that goes last on top. */
		if (child + 1 < n && kid_cmp(t, a[child], a[child + 1]) < 0)
			child++;
		if (kid_cmp(t, a[root], a[child]) >= 0)
			return;
		tmp = a[root];
		a[root] = a[child];
		a[child] = tmp;
		root = child;
	}
}

static void
kids_sort(const struct calltree *t, stack_id *a, uint32_t n)
{
	if (n <= 16) {
		for (uint32_t i = 1; i < n; i++) {
			stack_id v = a[i];
			uint32_t j = i;

			for (; j > 0 && kid_cmp(t, a[j - 1], v) > 0; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(t, a, i, n);
	for (uint32_t end = n - 1; end > 0; end--) {
		stack_id tmp = a[0];

		a[0] = a[end];
		a[end] = tmp;
		sift_down(t, a, 0, end);
	}
}

/*
 * Fill t's weights (arrays allocated for ps->nr_stacks nodes, any
 * content) from w: self, total, nr_kids, height and deepest. Everything
 * is written, so a rebuild gives the tree a fresh build would.
 */
static void
fill_sums(struct calltree *t, const struct profile_set *ps, const uint64_t *w)
{
	uint32_t n = ps->nr_stacks;

	memcpy(t->self, w, sizeof(*w) * n);
	memcpy(t->total, w, sizeof(*w) * n);
	memset(t->nr_kids, 0, sizeof(*t->nr_kids) * n);
	memset(t->height, 0, sizeof(*t->height) * n);
	memset(t->deepest, 0, sizeof(*t->deepest) * n);

	/*
	 * Parents precede children, so one backward pass sums every subtree:
	 * a node's total is final when the pass reaches it, and it counts as
	 * its parent's child if it has weight.
	 */
	for (uint32_t i = n; i-- > 1;) {
		if (t->total[i]) {
			stack_id p = ps->stacks[i].parent;

			t->total[p] += t->total[i];
			t->nr_kids[p]++;
			if (!t->deepest[p] || t->height[p] < t->height[i] + 1) {
				t->height[p] = t->height[i] + 1;
				t->deepest[p] = i;
			}
		}
	}
}

/* Then the children's lists, each heaviest first, and x0. */
static void
fill_order(struct calltree *t)
{
	const struct profile_set *ps = t->ps;
	uint32_t n = t->nr_nodes, nr = 0;

	memset(t->x0, 0, sizeof(*t->x0) * n);
	/* first[] is used as a fill cursor, then moved back to the start. */
	for (uint32_t i = 0; i < n; i++) {
		t->first[i] = nr;
		nr += t->nr_kids[i];
	}
	if (nr + 1 > t->alloc_kids || !t->kids) {
		t->kids = xgrow_pages(t->kids, t->alloc_kids, nr + 1, sizeof(*t->kids));
		t->alloc_kids = nr + 1;
	}
	for (uint32_t i = 1; i < n; i++)
		if (t->total[i])
			t->kids[t->first[ps->stacks[i].parent]++] = i;
	for (uint32_t i = 0; i < n; i++)
		t->first[i] -= t->nr_kids[i];

	/*
	 * Order each family, then place it from its parent's left edge. A
	 * parent's x0 is final before its own id comes up, as it precedes
	 * its children.
	 */
	for (uint32_t i = 0; i < n; i++) {
		stack_id *k = t->kids + t->first[i];
		uint64_t x = t->x0[i];

		if (!t->nr_kids[i])
			continue;
		kids_sort(t, k, t->nr_kids[i]);
		for (uint32_t j = 0; j < t->nr_kids[i]; j++) {
			t->x0[k[j]] = x;
			x += t->total[k[j]];
		}
	}
}

/*
 * The per-node arrays grown to room for n nodes: in place of their pages
 * (xgrow_pages()), so that a tree rebuilt for a bigger set, such as the
 * first group by process, writes most of itself in memory it has
 * touched before.
 */
static void
nodes_grow(struct calltree *t, uint32_t n)
{
	size_t had = t->alloc_nodes;

	t->self = xgrow_pages(t->self, had, n, sizeof(*t->self));
	t->total = xgrow_pages(t->total, had, n, sizeof(*t->total));
	t->first = xgrow_pages(t->first, had, n, sizeof(*t->first));
	t->nr_kids = xgrow_pages(t->nr_kids, had, n, sizeof(*t->nr_kids));
	t->x0 = xgrow_pages(t->x0, had, n, sizeof(*t->x0));
	t->height = xgrow_pages(t->height, had, n, sizeof(*t->height));
	t->deepest = xgrow_pages(t->deepest, had, n, sizeof(*t->deepest));
	t->alloc_nodes = n;
}

void
calltree_build(struct calltree *t, const struct profile_set *ps, const uint64_t *w)
{
	memset(t, 0, sizeof(*t));
	calltree_rebuild(t, ps, w);
}

void
calltree_rebuild_sums(struct calltree *t, const struct profile_set *ps, const uint64_t *w)
{
	/* A node at least, as before: a set always has its root. */
	uint32_t n = ps->nr_stacks ? ps->nr_stacks : 1;

	if (t->alloc_nodes < n || !t->self)
		nodes_grow(t, n > t->alloc_nodes ? n : t->alloc_nodes);
	t->ps = ps;
	t->nr_nodes = ps->nr_stacks;
	fill_sums(t, ps, w);
}

void
calltree_rebuild_order(struct calltree *t)
{
	fill_order(t);
}

void
calltree_rebuild(struct calltree *t, const struct profile_set *ps, const uint64_t *w)
{
	calltree_rebuild_sums(t, ps, w);
	calltree_rebuild_order(t);
}

void
calltree_release(struct calltree *t)
{
	size_t n = t->alloc_nodes;

	xfree_pages(t->self, n, sizeof(*t->self));
	xfree_pages(t->total, n, sizeof(*t->total));
	xfree_pages(t->first, n, sizeof(*t->first));
	xfree_pages(t->nr_kids, n, sizeof(*t->nr_kids));
	xfree_pages(t->kids, t->alloc_kids, sizeof(*t->kids));
	xfree_pages(t->x0, n, sizeof(*t->x0));
	xfree_pages(t->height, n, sizeof(*t->height));
	xfree_pages(t->deepest, n, sizeof(*t->deepest));
	memset(t, 0, sizeof(*t));
}

/* Check the children of p and add up their totals into *sum. */
static int
check_kids(const struct calltree *t, stack_id p, uint32_t nr, uint8_t *seen, uint64_t *sum,
	   struct tf_error *err)
{
	const struct profile_set *ps = t->ps;
	const stack_id *k = t->kids + t->first[p];
	uint64_t x = t->x0[p];
	uint32_t height = 0;

	if (!t->total[p])
		return tf_error_set(err, "node %u has no weight but %u children", p,
				    t->nr_kids[p]);
	if ((uint64_t)t->first[p] + t->nr_kids[p] > nr)
		return tf_error_set(err, "node %u: children past the end", p);
	for (uint32_t j = 0; j < t->nr_kids[p]; j++) {
		stack_id c = k[j];

		if (c == STACK_ROOT || c >= t->nr_nodes || ps->stacks[c].parent != p)
			return tf_error_set(err, "node %u lists %u, not its child", p, c);
		if (!t->total[c] || seen[c])
			return tf_error_set(err, "node %u: child %u %s", p, c,
					    seen[c] ? "listed twice" : "has no weight");
		if (j && kid_cmp(t, k[j - 1], c) >= 0)
			return tf_error_set(err, "node %u: children %u and %u out of order", p,
					    k[j - 1], c);
		if (t->x0[c] != x)
			return tf_error_set(err, "node %u: child %u at x %llu, not %llu", p, c,
					    (unsigned long long)t->x0[c], (unsigned long long)x);
		seen[c] = 1;
		*sum += t->total[c];
		x += t->total[c];
		if (t->height[c] + 1 > height)
			height = t->height[c] + 1;
	}
	if (t->height[p] != height)
		return tf_error_set(err, "node %u: height %u, its children make %u", p,
				    t->height[p], height);
	if (ps->stacks[t->deepest[p]].parent != p || t->height[t->deepest[p]] + 1 != height)
		return tf_error_set(err, "node %u: %u is not its deepest child", p,
				    t->deepest[p]);
	return 0;
}

int
calltree_check(const struct calltree *t, struct tf_error *err)
{
	const struct profile_set *ps = t->ps;
	uint32_t n = t->nr_nodes, nr = 0, placed = 0;
	uint8_t *seen;
	int ret = 0;

	if (!ps || n != ps->nr_stacks)
		return tf_error_set(err, "tree has %u nodes for %u stacks", n,
				    ps ? ps->nr_stacks : 0);
	if (t->x0[STACK_ROOT])
		return tf_error_set(err, "the root starts at x %llu, not 0",
				    (unsigned long long)t->x0[STACK_ROOT]);
	for (uint32_t i = 1; i < n; i++)
		if (t->total[i])
			nr++;
	seen = xcalloc((size_t)n + 1, 1);
	for (uint32_t p = 0; p < n && !ret; p++) {
		uint64_t sum = 0;

		if (t->nr_kids[p] && check_kids(t, p, nr, seen, &sum, err))
			ret = -1;
		else if (!t->nr_kids[p] && (t->height[p] || t->deepest[p]))
			ret = tf_error_set(err, "node %u: no children, height %u", p, t->height[p]);
		else if (t->self[p] > t->total[p] || t->total[p] - t->self[p] != sum)
			ret = tf_error_set(err, "node %u: total %llu, self %llu, children %llu", p,
					   (unsigned long long)t->total[p],
					   (unsigned long long)t->self[p], (unsigned long long)sum);
		placed += t->nr_kids[p];
	}
	if (!ret && placed != nr)
		ret = tf_error_set(err, "%u nodes with weight, %u of them placed", nr, placed);
	free(seen);
	return ret;
}

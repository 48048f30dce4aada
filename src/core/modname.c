#include "config.h"

#include "tflame/modname.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/bsearch.h"
#include "tflame/xalloc.h"

void
module_names_init(struct module_names *mn)
{
	memset(mn, 0, sizeof(*mn));
}

void
module_names_release(struct module_names *mn)
{
	for (size_t i = 0; i < mn->nr; i++) {
		free(mn->v[i].path);
		free(mn->v[i].shown);
	}
	free(mn->v);
	module_names_init(mn);
}

const char *
module_file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	/* A name an importer made short already ("json/__init__.py") is whole. */
	if (path[0] != '/' && strncmp(path, "./", 2) && strncmp(path, "../", 3) &&
	    !strstr(path, "://"))
		return path;
	return slash && slash[1] ? slash + 1 : path;
}

void
module_names_add(struct module_names *mn, const char *path)
{
	if (!*path)
		return;
	ALLOC_GROW(mn->v, mn->nr, mn->alloc);
	mn->v[mn->nr].path = xstrdup(path);
	mn->v[mn->nr].shown = NULL;
	mn->nr++;
	mn->built = false;
}

void
module_names_add_set(struct module_names *mn, const struct profile_set *ps)
{
	bool *seen = xcalloc(intern_count(&ps->strings) + 1, sizeof(*seen));

	for (uint32_t f = 0; f < ps->nr_frames; f++) {
		str_id m = ps->frames[f].module;

		if (m != STR_EMPTY && !seen[m]) {
			seen[m] = true;
			module_names_add(mn, ps_get(ps, m));
		}
	}
	free(seen);
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct module_name *)a)->path, ((const struct module_name *)b)->path);
}

/* Modules by file name, then path: those of one file name are together. */
static int
cmp_file_name(const void *a, const void *b)
{
	const struct module_name *x = *(const struct module_name *const *)a;
	const struct module_name *y = *(const struct module_name *const *)b;
	int c = strcmp(module_file_name(x->path), module_file_name(y->path));

	return c ? c : strcmp(x->path, y->path);
}

/* The last k components of path ("a/libc.so.6" for k 2), or path when it has no more. */
static const char *
tail(const char *path, unsigned k)
{
	const char *p = path + strlen(path);

	/* A final '/' belongs to the last component. */
	if (p > path && p[-1] == '/')
		p--;
	while (p > path) {
		if (p[-1] == '/' && !--k)
			return p;
		p--;
	}
	return path;
}

/*
 * The names of n modules of one file name: each the fewest components
 * from the end that no other one has there too.
 */
static void
name_group(struct module_name **g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *t;

		for (unsigned k = 2;; k++) {
			bool unique = true;

			t = tail(g[i]->path, k);
			for (size_t j = 0; j < n && unique; j++)
				unique = j == i || strcmp(t, tail(g[j]->path, k));
			if (unique || t == g[i]->path)
				break;
		}
		free(g[i]->shown);
		g[i]->shown = xstrdup(t);
	}
}

void
module_names_build(struct module_names *mn)
{
	struct module_name **by_name;
	size_t n = 0;

	if (mn->nr) /* v is NULL when there are none: qsort() must not see it */
		qsort(mn->v, mn->nr, sizeof(*mn->v), cmp_path);
	for (size_t i = 0; i < mn->nr; i++) {
		if (n && !strcmp(mn->v[n - 1].path, mn->v[i].path)) {
			free(mn->v[i].path);
			free(mn->v[i].shown);
			continue;
		}
		mn->v[n++] = mn->v[i];
	}
	mn->nr = n;
	by_name = xmalloc(sizeof(*by_name) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		by_name[i] = &mn->v[i];
	qsort(by_name, n, sizeof(*by_name), cmp_file_name);
	for (size_t i = 0; i < n;) {
		const char *file = module_file_name(by_name[i]->path);
		size_t j = i + 1;

		while (j < n && !strcmp(module_file_name(by_name[j]->path), file))
			j++;
		if (j - i > 1) {
			name_group(by_name + i, j - i);
		} else {
			free(by_name[i]->shown);
			by_name[i]->shown = xstrdup(file);
		}
		i = j;
	}
	free(by_name);
	mn->built = true;
}

static bool
path_before(const void *elem, const void *key)
{
	return strcmp(((const struct module_name *)elem)->path, key) < 0;
}

const char *
module_names_get(const struct module_names *mn, const char *path)
{
	size_t nr = mn->built ? mn->nr : 0;
	size_t at = bsearch_first(mn->v, nr, sizeof(*mn->v), path, path_before);

	if (at < nr && !strcmp(mn->v[at].path, path))
		return mn->v[at].shown;
	return module_file_name(path);
}

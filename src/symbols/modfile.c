#include "config.h"

#include "tflame/modfile.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tflame/debugcache.h"
#include "tflame/xalloc.h"

/* What one module path is here. */
struct modfile {
	str_id module;
	const char *path;
	bool readable;
	dev_t dev;
	ino_t ino;
	unsigned char id[64]; /* its GNU build-id, id_len bytes */
	size_t id_len;
	str_id canon;         /* the module it is one with (itself if none) */
};

/* The last component of path. */
static const char *
file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static int
cmp_file_name(const void *a, const void *b)
{
	const struct modfile *x = a, *y = b;
	int c = strcmp(file_name(x->path), file_name(y->path));

	return c ? c : strcmp(x->path, y->path);
}

/* Read what m->path is: its device and inode, and its build-id if ELF. */
static void
read_modfile(struct modfile *m)
{
	struct stat st;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		const unsigned char *id;
		size_t len;

		m->readable = true;
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		elf_version(EV_CURRENT);
		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (elf && elf_kind(elf) == ELF_K_ELF && (len = elf_build_id(elf, &id)) &&
		    len <= sizeof(m->id)) {
			memcpy(m->id, id, len);
			m->id_len = len;
		}
		if (elf)
			elf_end(elf);
	}
	close(fd);
}

static bool
same_file(const struct modfile *a, const struct modfile *b)
{
	if (!a->readable || !b->readable)
		return false;
	if (a->id_len && b->id_len)
		return a->id_len == b->id_len && !memcmp(a->id, b->id, a->id_len);
	return a->dev == b->dev && a->ino == b->ino;
}

/* Which of two paths names the module: the shorter, then the first in byte order. */
static bool
names_first(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return la != lb ? la < lb : strcmp(a, b) < 0;
}

struct rename_ctx {
	struct frame f;      /* the frame being given */
	const str_id *canon; /* per string of the set: the module it stands for */
};

static void
rename_module(void *vctx, struct profile_set *ps, const struct frame *old,
	      struct frame_rewrite *out)
{
	struct rename_ctx *c = vctx;

	(void)ps;
	c->f = *old;
	if (old->module != STR_EMPTY)
		c->f.module = c->canon[old->module];
	out->frames = &c->f;
	out->file = NULL;
	out->line = NULL;
	out->nr = 1;
	out->absorbs_inlined = false;
}

uint32_t
profile_set_unify_modules(struct profile_set *ps)
{
	uint32_t nr_strings = intern_count(&ps->strings), merged = 0;
	bool *seen = xcalloc(nr_strings + 1, sizeof(*seen));
	struct modfile *m = NULL;
	size_t nr = 0, alloc = 0;

	for (uint32_t f = 0; f < ps->nr_frames; f++) {
		str_id mod = ps->frames[f].module;

		if (mod == STR_EMPTY || seen[mod] || ps_get(ps, mod)[0] != '/')
			continue;
		seen[mod] = true;
		ALLOC_GROW(m, nr, alloc);
		memset(&m[nr], 0, sizeof(m[nr]));
		m[nr].module = m[nr].canon = mod;
		m[nr].path = ps_get(ps, mod);
		nr++;
	}
	free(seen);
	if (!nr)
		return 0;
	qsort(m, nr, sizeof(*m), cmp_file_name);
	for (size_t i = 0; i < nr;) {
		const char *file = file_name(m[i].path);
		size_t j = i + 1;

		while (j < nr && !strcmp(file_name(m[j].path), file))
			j++;
		/* Alone in its file name, nothing to read. */
		for (size_t k = i; j - i > 1 && k < j; k++)
			read_modfile(&m[k]);
		for (size_t k = i; j - i > 1 && k < j; k++) {
			size_t first = k;

			for (size_t l = i; l < j; l++)
				if (same_file(&m[k], &m[l]) &&
				    names_first(m[l].path, m[first].path))
					first = l;
			m[k].canon = m[first].module;
			merged += first != k;
		}
		i = j;
	}
	if (merged) {
		str_id *canon = xmalloc(sizeof(*canon) * (nr_strings + 1));
		struct rename_ctx c = { .canon = canon };

		for (uint32_t s = 0; s <= nr_strings; s++)
			canon[s] = s;
		for (size_t i = 0; i < nr; i++)
			canon[m[i].module] = m[i].canon;
		profile_set_rewrite(ps, rename_module, &c);
		free(canon);
	}
	free(m);
	return merged;
}

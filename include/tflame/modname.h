#ifndef TFLAME_MODNAME_H
#define TFLAME_MODNAME_H

/*
 * What a module is called where room is short: a column of Sandwich,
 * report and dump. A module shows as its file name, the last component
 * of its path ("libc.so.6" of "/usr/lib/x86_64-linux-gnu/libc.so.6"), as
 * perf report shows it; but where two modules of one profile have the same
 * file name (two copies of libc, two builds of cc1), each shows the
 * shortest tail of its path that no other module of that name ends in
 * ("a/libc.so.6" and "b/libc.so.6"; "x/a/libc.so.6" beside "y/a/libc.so.6"
 * and "b/libc.so.6"), up to its whole path, so that no two rows read
 * alike. A name that is no path ("[kernel.kallsyms]", "[vdso]") shows as
 * it is.
 *
 * The names are worked out once for a set of modules (module_names_add()
 * each, then module_names_build()); the display names are the table's own
 * copies, valid until module_names_release(). O(m log m) for m modules,
 * plus the modules that share a file name with each other, pairwise.
 * The model keeps one table per profile set (model.h:
 * model_module_name()); report --diff makes one of both sides' modules.
 */

#include <stddef.h>

#include "tflame/profile.h"

struct module_name {
	char *path;  /* owned copy */
	char *shown; /* owned */
};

struct module_names {
	struct module_name *v; /* sorted by path after module_names_build() */
	size_t nr, alloc;
	bool built;
};

#define MODULE_NAMES_INIT { NULL, 0, 0, false }

void module_names_init(struct module_names *mn);
void module_names_release(struct module_names *mn);

/* Add a module (a path as the profile names it); the empty name is left out. */
void module_names_add(struct module_names *mn, const char *path);
/* Add every module of ps's frames. */
void module_names_add_set(struct module_names *mn, const struct profile_set *ps);
/* Work out every module's name; adding more afterwards needs another build. */
void module_names_build(struct module_names *mn);

/*
 * The name to show for module path: the table's, or for a module it does
 * not have, its file name. "" for "". The pointer is the table's or into
 * path.
 */
const char *module_names_get(const struct module_names *mn, const char *path);

/*
 * The last path component of path ("" stays ""; "/dir/" is itself), of
 * an absolute path, a "./" or "../" one or a URL; a relative name an
 * importer made short for the column is its own file name, whole
 * (cProfile's "json/__init__.py", a node package's "lodash/index.js",
 * "node:internal/streams/writable").
 */
const char *module_file_name(const char *path);

#endif /* TFLAME_MODNAME_H */

#ifndef TFLAME_MODFILE_H
#define TFLAME_MODFILE_H

/*
 * One file is one module. A profile names a module by the path it was
 * mapped from, and one library can be mapped from several: /lib/... and
 * /usr/lib/... on a merged /usr, or two copies of one build (a
 * container's layer and the host's). Such paths would make two rows of
 * one function, "libc.so.6 _int_malloc" twice.
 *
 * profile_set_unify_modules() looks at the modules of a set that share a
 * file name (only those can be mistaken for each other) and reads each one
 * here: two with the same GNU build-id, or, when either has none, that are
 * the same file (device and inode), are one module, named by the path
 * that sorts first (the shortest, then in byte order). Modules it cannot
 * read stay as they are, and so do modules of one file name with
 * different build-ids (different builds): modname.h names those apart.
 * Like the symbols, this reads the files of this machine: import_file()
 * runs it unless symbols are off (--no-symbols, TFLAME_NO_SYMBOLS).
 */

#include "tflame/profile.h"

/*
 * Give every module of ps that is one file with another the one path,
 * rewriting the frames (profile_set_rewrite(): frames that become equal
 * merge). Returns how many modules were merged into another, 0 when
 * nothing changed (then ps is not touched).
 */
uint32_t profile_set_unify_modules(struct profile_set *ps);

#endif /* TFLAME_MODFILE_H */

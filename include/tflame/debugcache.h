#ifndef TFLAME_DEBUGCACHE_H
#define TFLAME_DEBUGCACHE_H

/*
 * A cache of separate debug files with their DWARF inflated.
 *
 * Distributions compress the sections of their debug files (libc6-dbg's
 * libc: 4 MB stored, 10 MB inflated), and libdw 0.188 inflates every one
 * of them whenever it opens the file: 30 ms of CPU for libc on every run,
 * most of what symbols cost on a 100 MB profile. The first run writes an
 * inflated copy, named by build-id, under $XDG_CACHE_HOME/tflame/debug
 * (else ~/.cache/tflame/debug); later runs hand that to libdw instead.
 * A copy is only written for a file found by its build-id that has
 * compressed debug sections, and only used when its build-id is the one
 * asked for.
 * TFLAME_NO_DEBUG_CACHE=1 turns the cache off; deleting the directory
 * is always safe.
 */

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/*
 * The inflated copy of the debug file of build-id id, opened: from the
 * cache, or written there from /usr/lib/debug/.build-id/ when that file
 * has compressed debug sections. Sets *path (malloc'd, freed first) to
 * its name. Returns -1 when there is none to give: then libdwfl's own
 * search goes on as usual. Safe to call from several threads.
 */
int debugcache_find(const unsigned char *id, size_t id_len, char **path);
/*
 * The GNU build-id of an ELF file, from its note sections: its length,
 * with *id pointing into the file's data; 0 if it has none.
 */
size_t elf_build_id(Elf *elf, const unsigned char **id);
/*
 * Append where distributions put the debug file of build-id id,
 * /usr/lib/debug/.build-id/ab/cdef....debug; false (nothing appended)
 * for an id too short to name one.
 */
bool debug_file_path(const unsigned char *id, size_t id_len, struct strbuf *sb);
/* The same for the debug file at debug_path (debugcache_find()'s step). */
int debugcache_get(const char *debug_path, const unsigned char *id, size_t id_len, char **path);

#endif

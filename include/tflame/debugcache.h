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

/*
 * Would libdebuginfod look anything up? Only when DEBUGINFOD_URLS names a
 * server: without one, debuginfod_find_debuginfo() returns -ENOSYS at once
 * (elfutils 0.188), though libdwfl loads the library (libcurl, TLS: some
 * 20 ms of CPU) and begins a client for every module it asks about.
 */
bool debuginfod_wanted(void);
/*
 * Could libdwfl's search on this machine (dwfl_standard_find_debuginfo()
 * less debuginfod) find a separate debug file for the ELF file at
 * file_name, whose .gnu_debuglink names debuglink (NULL when it has none)
 * and whose build-id is id (id_len 0: none)? False only when no file
 * exists at any place the search opens: the build-id path, and for the
 * debug link (or, without one, "NAME.debug" and "NAME") the file's
 * directory, its .debug/ and the tails of that directory under
 * /usr/lib/debug, for file_name and for its real path. A file there that
 * the search would reject (a wrong CRC or build-id) counts: true then
 * means "maybe". A debuglink with a slash in it (a dwz file's name)
 * gives true. A few access() calls; safe from several threads.
 */
bool debug_file_may_exist(const char *file_name, const char *debuglink, const unsigned char *id,
			  size_t id_len);

#endif

#include "config.h"

#include "tflame/debugcache.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* Numbers the files being written, so that no two threads share one. */
static atomic_uint tmp_seq;

#ifndef DEBUGCACHE_DEBUG_DIR
#define DEBUGCACHE_DEBUG_DIR "/usr/lib/debug"
#endif

/* The cache directory, created (0700) if need be; false if there is none. */
static bool
cache_dir(struct strbuf *dir)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	size_t i;

	if (xdg && *xdg == '/')
		strbuf_addf(dir, "%s/tflame/debug", xdg);
	else if (home && *home == '/')
		strbuf_addf(dir, "%s/.cache/tflame/debug", home);
	else
		return false;
	/* mkdir -p, one component at a time. */
	for (i = 1; i <= dir->len; i++) {
		if (i < dir->len && dir->buf[i] != '/')
			continue;
		dir->buf[i] = '\0';
		if (mkdir(dir->buf, 0700) != 0 && errno != EEXIST) {
			dir->buf[i] = i < dir->len ? '/' : '\0';
			return false;
		}
		if (i < dir->len)
			dir->buf[i] = '/';
	}
	return true;
}

/* Does the ELF file have a compressed .debug_ section? */
static bool
has_compressed_debug(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && !strncmp(name, ".debug_", 7))
			return true;
	}
	return false;
}

size_t
elf_build_id(Elf *elf, const unsigned char **id)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
				*id = (const unsigned char *)d->d_buf + desc_off;
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* Is id the build-id of the ELF file? */
static bool
build_id_is(Elf *elf, const unsigned char *id, size_t len)
{
	const unsigned char *have;

	return elf_build_id(elf, &have) == len && !memcmp(have, id, len);
}

/*
 * Write src to out with every compressed section inflated: the same
 * headers, sections and order (so every index and link holds), laid out
 * anew by libelf.
 */
static bool
write_inflated(Elf *src, int out)
{
	Elf *dst = elf_begin(out, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum;
	bool ok = false;

	if (!dst || !gelf_getehdr(src, &eh) || elf_getphdrnum(src, &phnum) != 0 ||
	    !gelf_newehdr(dst, gelf_getclass(src)))
		goto done;
	if (phnum) {
		if (!gelf_newphdr(dst, phnum))
			goto done;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
				goto done;
		}
	}
	while ((scn = elf_nextscn(src, scn))) {
		Elf_Scn *to = elf_newscn(dst);
		Elf_Data *d = NULL, *td;
		GElf_Shdr sh;

		if (!to || !gelf_getshdr(scn, &sh))
			goto done;
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh))
				goto done;
		}
		while ((d = elf_getdata(scn, d))) {
			if (!(td = elf_newdata(to)))
				goto done;
			td->d_buf = d->d_buf;
			td->d_size = d->d_size;
			td->d_type = d->d_type;
			td->d_align = d->d_align;
			td->d_version = d->d_version;
			td->d_off = d->d_off;
		}
		if (!gelf_update_shdr(to, &sh))
			goto done;
	}
	eh.e_phoff = 0; /* placed by the layout */
	if (!gelf_update_ehdr(dst, &eh) || elf_update(dst, ELF_C_NULL) < 0)
		goto done;
	/*
	 * The layout moved the sections; a segment that started at a section
	 * (PT_NOTE at the build-id note, which libdwfl reads through it) now
	 * starts where that section went.
	 */
	for (size_t i = 0; i < phnum; i++) {
		Elf_Scn *from = NULL, *to = NULL;
		GElf_Phdr ph;

		if (!gelf_getphdr(dst, (int)i, &ph))
			goto done;
		while ((from = elf_nextscn(src, from))) {
			GElf_Shdr a, b;

			to = elf_nextscn(dst, to);
			if (!to || !gelf_getshdr(from, &a) || !gelf_getshdr(to, &b))
				break;
			if (a.sh_type != SHT_NOBITS && a.sh_size && a.sh_offset == ph.p_offset) {
				ph.p_offset = b.sh_offset;
				break;
			}
		}
		if (!gelf_update_phdr(dst, (int)i, &ph))
			goto done;
	}
	ok = elf_update(dst, ELF_C_WRITE) >= 0;
done:
	if (dst)
		elf_end(dst);
	return ok;
}

/* Open path if it is an ELF file with build-id id; -1 if not. */
static int
open_cached(const char *path, const unsigned char *id, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	bool ok;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL); /* its headers and one note: no mapping */
	ok = elf && elf_kind(elf) == ELF_K_ELF && build_id_is(elf, id, len) &&
	     !has_compressed_debug(elf);
	if (elf)
		elf_end(elf);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

int
debugcache_get(const char *debug_path, const unsigned char *id, size_t id_len, char **path)
{
	const char *off = getenv("TFLAME_NO_DEBUG_CACHE");
	struct strbuf file = STRBUF_INIT, tmp = STRBUF_INIT;
	Elf *src = NULL;
	int fd = -1, cfd = -1, out = -1;
	bool ok;

	if (!id || !id_len || (off && *off && strcmp(off, "0")))
		return -1;
	elf_version(EV_CURRENT);
	if (!cache_dir(&file))
		goto done;
	strbuf_addch(&file, '/');
	for (size_t i = 0; i < id_len; i++)
		strbuf_addf(&file, "%02x", id[i]);
	strbuf_addstr(&file, ".debug");
	cfd = open_cached(file.buf, id, id_len);
	if (cfd >= 0)
		goto done;
	fd = open(debug_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto done;
	src = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!src || elf_kind(src) != ELF_K_ELF || !has_compressed_debug(src) ||
	    !build_id_is(src, id, id_len))
		goto done;
	/*
	 * Written aside and renamed: a reader never sees half a file. Two
	 * workers may write the same one (libc.so.6 by two paths): each has
	 * a name of its own.
	 */
	strbuf_addf(&tmp, "%s.%ld.%u.tmp", file.buf, (long)getpid(),
		    atomic_fetch_add(&tmp_seq, 1u));
	out = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		goto done;
	ok = write_inflated(src, out);
	if (close(out) != 0)
		ok = false;
	out = -1;
	if (!ok || rename(tmp.buf, file.buf) != 0) {
		unlink(tmp.buf);
		goto done;
	}
	cfd = open_cached(file.buf, id, id_len);
done:
	if (src)
		elf_end(src);
	if (fd >= 0)
		close(fd);
	if (cfd >= 0) {
		free(*path);
		*path = strbuf_detach(&file, NULL);
	}
	strbuf_release(&file);
	strbuf_release(&tmp);
	return cfd;
}

bool
debug_file_path(const unsigned char *id, size_t id_len, struct strbuf *sb)
{
	if (!id || id_len < 2)
		return false;
	strbuf_addf(sb, "%s/.build-id/%02x/", DEBUGCACHE_DEBUG_DIR, id[0]);
	for (size_t i = 1; i < id_len; i++)
		strbuf_addf(sb, "%02x", id[i]);
	strbuf_addstr(sb, ".debug");
	return true;
}

int
debugcache_find(const unsigned char *id, size_t id_len, char **path)
{
	struct strbuf debug = STRBUF_INIT;
	int fd;

	if (!debug_file_path(id, id_len, &debug))
		return -1;
	fd = debugcache_get(debug.buf, id, id_len, path);
	strbuf_release(&debug);
	return fd;
}

bool
debuginfod_wanted(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && *urls;
}

/* Does dir/[sub/]name exist ([sub/]name in the working directory without dir)? */
static bool
exists_in(struct strbuf *sb, const char *dir, size_t dirlen, const char *sub,
	  const char *name)
{
	strbuf_reset(sb);
	if (dir)
		strbuf_addf(sb, "%.*s/", (int)dirlen, dir);
	if (sub)
		strbuf_addf(sb, "%s/", sub);
	strbuf_addstr(sb, name);
	return access(sb->buf, F_OK) == 0;
}

/*
 * The places libdwfl's path search (find_debuginfo_in_path(), elfutils
 * 0.188) tries for the debug file of file_name, named link, or also
 * base when link was made up from it: the file's directory (link only),
 * its .debug/ subdirectory, and the debug directory followed by each
 * tail of the file's absolute directory ("usr/bin", "bin", none).
 */
static bool
path_candidate_exists(const char *file_name, const char *link, const char *base, struct strbuf *sb)
{
	const char *slash = strrchr(file_name, '/');
	size_t dirlen = slash ? (size_t)(slash - file_name) : 0;
	const char *dir = slash ? file_name : NULL; /* NULL: the working directory */
	const char *names[2] = { link, base };
	size_t nr_names = base ? 2 : 1;

	if (exists_in(sb, dir, dirlen, NULL, link))
		return true;
	for (size_t i = 0; i < nr_names; i++)
		if (exists_in(sb, dir, dirlen, ".debug", names[i]))
			return true;
	if (!dirlen || file_name[0] != '/')
		return false;
	for (const char *tail = file_name + 1;; tail++) {
		for (size_t i = 0; i < nr_names; i++) {
			strbuf_reset(sb);
			strbuf_addf(sb, "%s/%.*s%s%s", DEBUGCACHE_DEBUG_DIR,
				    (int)(file_name + dirlen - tail), tail,
				    tail < file_name + dirlen ? "/" : "", names[i]);
			if (access(sb->buf, F_OK) == 0)
				return true;
		}
		if (tail >= file_name + dirlen)
			return false;
		tail = memchr(tail, '/', (size_t)(file_name + dirlen - tail));
		if (!tail)
			tail = file_name + dirlen - 1; /* the debug directory itself next */
	}
}

bool
debug_file_may_exist(const char *file_name, const char *debuglink, const unsigned char *id,
		     size_t id_len)
{
	struct strbuf sb = STRBUF_INIT, made = STRBUF_INIT;
	const char *base;
	char *canon = NULL;
	bool found = true;

	/* A name with a directory is a dwz file's (or unusual): not guessed at. */
	if (!file_name || (debuglink && strchr(debuglink, '/')))
		goto done;
	if (debug_file_path(id, id_len, &sb) && access(sb.buf, F_OK) == 0)
		goto done;
	base = strrchr(file_name, '/');
	base = base ? base + 1 : file_name;
	if (!debuglink) {
		strbuf_addf(&made, "%s.debug", base);
		debuglink = made.buf;
	}
	if (path_candidate_exists(file_name, debuglink, made.len ? base : NULL, &sb))
		goto done;
	/* libdwfl tries again by the file's real name. */
	canon = realpath(file_name, NULL);
	if (canon && strcmp(canon, file_name)) {
		base = strrchr(canon, '/') + 1;
		if (made.len) {
			strbuf_reset(&made);
			strbuf_addf(&made, "%s.debug", base);
			debuglink = made.buf;
		}
		if (path_candidate_exists(canon, debuglink, made.len ? base : NULL, &sb))
			goto done;
	}
	found = false;
done:
	free(canon);
	strbuf_release(&sb);
	strbuf_release(&made);
	return found;
}


#include "config.h"

#include "tflame/debugcache.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_tmpdir.h"
#include "test_util.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The debug file of tests/data/symbols/tiny, as distributions ship one:
 * objcopy --only-keep-debug --compress-debug-sections. Its build-id is
 * read into id.
 */
struct fixture {
	void *td;
	char *compressed;   /* the debug file, compressed */
	char *plain;        /* the same, not compressed */
	unsigned char id[64];
	size_t id_len;
};

static size_t
read_build_id(const char *path, unsigned char *id, size_t max)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t len = 0;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		const unsigned char *b;

		len = elf_build_id(elf, &b);
		if (len > max)
			len = 0;
		if (len)
			memcpy(id, b, len);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return len;
}

/* Sections of the ELF file with SHF_COMPRESSED; -1 if it is not one. */
static int
compressed_sections(const char *path)
{
	int fd = open(path, O_RDONLY), n = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		n = -1;
	while (n >= 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			n++;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

/* The names of the CUs' DIEs and their functions, as libdw reads them. */
static void
dwarf_summary(int fd, struct strbuf *sb)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off off = 0, next;
	size_t hsize;

	assert_non_null(dw);
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;

		assert_non_null(dwarf_offdie(dw, off + hsize, &cu));
		strbuf_addf(sb, "cu %s:", dwarf_diename(&cu) ? dwarf_diename(&cu) : "?");
		if (dwarf_child(&cu, &die) == 0) {
			do {
				if (dwarf_tag(&die) == DW_TAG_subprogram && dwarf_diename(&die))
					strbuf_addf(sb, " %s", dwarf_diename(&die));
			} while (dwarf_siblingof(&die, &die) == 0);
		}
		strbuf_addch(sb, '\n');
		off = next;
	}
	dwarf_end(dw);
}

static int
setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	const char *top = getenv("top_srcdir");
	struct strbuf cmd = STRBUF_INIT;
	int rc;

	if (!top || tmpdir_setup(&fx->td))
		return -1;
	fx->compressed = xstrdup(tmpdir_path(&fx->td, "tiny.debug"));
	fx->plain = xstrdup(tmpdir_path(&fx->td, "tiny.plain.debug"));
	strbuf_addf(&cmd,
		    "objcopy --only-keep-debug --compress-debug-sections=zlib "
		    "'%s/tests/data/symbols/tiny' '%s' && "
		    "objcopy --decompress-debug-sections '%s' '%s'",
		    top, fx->compressed, fx->compressed, fx->plain);
	rc = system(cmd.buf);
	strbuf_release(&cmd);
	if (rc != 0)
		return -1;
	elf_version(EV_CURRENT);
	fx->id_len = read_build_id(fx->compressed, fx->id, sizeof(fx->id));
	if (!fx->id_len)
		return -1;
	/* Every test has a cache of its own. */
	setenv("XDG_CACHE_HOME", tmpdir_path(&fx->td, "cache"), 1);
	unsetenv("TFLAME_NO_DEBUG_CACHE");
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	free(fx->compressed);
	free(fx->plain);
	tmpdir_teardown(&fx->td);
	free(fx);
	return 0;
}

/*
 * The first call writes the inflated copy, the second finds it: both give
 * a file with no compressed section, the same build-id and the same DWARF
 * as the compressed file; the cache is named by build-id.
 */
static void
test_inflated_copy(void **state)
{
	struct fixture *fx = *state;
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT, name = STRBUF_INIT;
	unsigned char id[64];
	char *path = xstrdup("old");
	struct stat st1, st2;
	int fd, plain;

	strbuf_addf(&name, "%s/tflame/debug/", getenv("XDG_CACHE_HOME"));
	for (size_t i = 0; i < fx->id_len; i++)
		strbuf_addf(&name, "%02x", fx->id[i]);
	strbuf_addstr(&name, ".debug");
	assert_true(compressed_sections(fx->compressed) > 0);
	fd = debugcache_get(fx->compressed, fx->id, fx->id_len, &path);
	assert_true(fd >= 0);
	assert_string_equal(path, name.buf);
	assert_int_equal(compressed_sections(path), 0);
	assert_int_equal(read_build_id(path, id, sizeof(id)), fx->id_len);
	assert_memory_equal(id, fx->id, fx->id_len);
	plain = open(fx->plain, O_RDONLY);
	assert_true(plain >= 0);
	dwarf_summary(plain, &want);
	dwarf_summary(fd, &got);
	assert_non_null(strstr(want.buf, " outer"));
	assert_string_equal(got.buf, want.buf);
	close(plain);
	close(fd);
	assert_int_equal(stat(name.buf, &st1), 0);

	/* Found again, not written again. */
	fd = debugcache_get(fx->compressed, fx->id, fx->id_len, &path);
	assert_true(fd >= 0);
	assert_int_equal(stat(name.buf, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(st1.st_mtime, st2.st_mtime);
	close(fd);
	free(path);
	strbuf_release(&want);
	strbuf_release(&got);
	strbuf_release(&name);
}

/* elf_build_id() reads what readelf -n prints. */
static void
test_build_id(void **state)
{
	struct fixture *fx = *state;
	struct strbuf cmd = STRBUF_INIT, hex = STRBUF_INIT;
	char line[256] = "";
	FILE *f;

	strbuf_addf(&cmd, "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", fx->compressed);
	f = popen(cmd.buf, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	line[strcspn(line, "\n")] = '\0';
	for (size_t i = 0; i < fx->id_len; i++)
		strbuf_addf(&hex, "%02x", fx->id[i]);
	assert_int_equal(fx->id_len, 20);
	assert_string_equal(hex.buf, line);
	strbuf_release(&cmd);
	strbuf_release(&hex);
}

/*
 * Nothing to give: another build-id, a file not compressed, no file,
 * TFLAME_NO_DEBUG_CACHE; and a cached file of another build-id is not
 * taken for this one.
 */
static void
test_nothing_to_give(void **state)
{
	struct fixture *fx = *state;
	unsigned char other[64];
	char *path = xstrdup("kept");
	struct strbuf dir = STRBUF_INIT;
	int fd;

	memcpy(other, fx->id, fx->id_len);
	other[0] ^= 0xff;
	assert_int_equal(debugcache_get(fx->compressed, other, fx->id_len, &path), -1);
	assert_int_equal(debugcache_get(fx->plain, fx->id, fx->id_len, &path), -1);
	assert_int_equal(debugcache_get(tmpdir_path(&fx->td, "missing.debug"), fx->id,
					fx->id_len, &path),
			 -1);
	setenv("TFLAME_NO_DEBUG_CACHE", "1", 1);
	assert_int_equal(debugcache_get(fx->compressed, fx->id, fx->id_len, &path), -1);
	unsetenv("TFLAME_NO_DEBUG_CACHE");
	assert_string_equal(path, "kept");
	/* Nothing was written for any of them. */
	strbuf_addf(&dir, "%s/tflame/debug", getenv("XDG_CACHE_HOME"));
	assert_int_equal(rmdir(dir.buf), 0);

	/* A file under this build-id's name that is another one's: not used. */
	fd = debugcache_get(fx->compressed, fx->id, fx->id_len, &path);
	assert_true(fd >= 0);
	close(fd);
	strbuf_addch(&dir, '/');
	for (size_t i = 0; i < fx->id_len; i++)
		strbuf_addf(&dir, "%02x", other[i]);
	strbuf_addstr(&dir, ".debug");
	assert_int_equal(rename(path, dir.buf), 0);
	free(path);
	path = xstrdup("kept");
	assert_int_equal(debugcache_get(tmpdir_path(&fx->td, "missing.debug"), other,
					fx->id_len, &path),
			 -1);
	assert_string_equal(path, "kept");
	free(path);
	strbuf_release(&dir);
}

/* Create (content NULL: remove) the file td/rel, and its directories. */
static void
put(void **td, const char *rel, const char *content)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "mkdir -p \"$(dirname '%s')\"", tmpdir_path(td, rel));
	assert_int_equal(system(sb.buf), 0);
	if (content)
		tmpdir_put(td, rel, content, strlen(content));
	else
		assert_int_equal(unlink(tmpdir_path(td, rel)), 0);
	strbuf_release(&sb);
}

/*
 * debug_file_may_exist() says yes for a file at each place libdwfl's path
 * search opens, by debug link or by the made-up name, and through a
 * symbolic link to the program; no when nothing is there.
 */
static void
test_may_exist(void **state)
{
	struct fixture *fx = *state;
	static const char *const with_link[] = { "bin/prog.dbg", "bin/.debug/prog.dbg" };
	static const char *const made_up[] = { "bin/prog.debug", "bin/.debug/prog.debug",
					       "bin/.debug/prog" };
	unsigned char id[20];
	char *prog, *alias;

	memset(id, 0xfe, sizeof(id)); /* no such build-id under /usr/lib/debug */
	put(&fx->td, "bin/prog", "not an ELF file: never opened");
	prog = xstrdup(tmpdir_path(&fx->td, "bin/prog"));
	alias = xstrdup(tmpdir_path(&fx->td, "alias"));
	assert_int_equal(symlink(prog, alias), 0);
	assert_false(debug_file_may_exist(prog, "prog.dbg", id, sizeof(id)));
	assert_false(debug_file_may_exist(prog, NULL, id, sizeof(id)));
	assert_false(debug_file_may_exist(prog, NULL, NULL, 0));
	assert_false(debug_file_may_exist(alias, NULL, id, sizeof(id)));
	for (size_t i = 0; i < ARRAY_SIZE(with_link); i++) {
		put(&fx->td, with_link[i], "debug");
		assert_true(debug_file_may_exist(prog, "prog.dbg", id, sizeof(id)));
		assert_true(debug_file_may_exist(alias, "prog.dbg", id, sizeof(id)));
		assert_false(debug_file_may_exist(prog, NULL, id, sizeof(id)));
		put(&fx->td, with_link[i], NULL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(made_up); i++) {
		put(&fx->td, made_up[i], "debug");
		assert_true(debug_file_may_exist(prog, NULL, id, sizeof(id)));
		/* By the real name's directory: the alias is in another. */
		assert_true(debug_file_may_exist(alias, NULL, id, sizeof(id)));
		assert_false(debug_file_may_exist(prog, "prog.dbg", id, sizeof(id)));
		put(&fx->td, made_up[i], NULL);
	}
	/* A dwz file's name is not guessed at. */
	assert_true(debug_file_may_exist(prog, "/nonexistent/.dwz/prog.debug", id, sizeof(id)));
	assert_false(debug_file_may_exist(prog, NULL, id, sizeof(id)));
	free(prog);
	free(alias);
}

/* debuginfod is wanted only when DEBUGINFOD_URLS names something. */
static void
test_debuginfod_wanted(void **state)
{
	char *old = getenv("DEBUGINFOD_URLS") ? xstrdup(getenv("DEBUGINFOD_URLS")) : NULL;

	(void)state;
	unsetenv("DEBUGINFOD_URLS");
	assert_false(debuginfod_wanted());
	setenv("DEBUGINFOD_URLS", "", 1);
	assert_false(debuginfod_wanted());
	setenv("DEBUGINFOD_URLS", "https://debuginfod.example", 1);
	assert_true(debuginfod_wanted());
	if (old)
		setenv("DEBUGINFOD_URLS", old, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
	free(old);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inflated_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_give, setup, teardown),
		cmocka_unit_test_setup_teardown(test_may_exist, setup, teardown),
		cmocka_unit_test(test_debuginfod_wanted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

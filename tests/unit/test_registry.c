#include "config.h"

#include "tflame/import.h"

#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "test_tmpdir.h"
#include "test_util.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

static const struct import_options default_opts;



static const char *
put_str(void **state, const char *name, const char *text)
{
	return tmpdir_put(state, name, text, strlen(text));
}

/* Import path; the result must be a consistent set. */
static struct profile_set *
import_ok(const char *path, const char *format, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = NULL;

	if (import_file(path, format, opts, &ps, &err))
		fail_msg("import_file: %s", tf_error_text(&err));
	assert_non_null(ps);
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

/* Import path, which must fail with the error text want. */
static void
import_fails(const char *path, const char *format, const char *want)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set dummy, *ps = &dummy; /* must come back NULL */

	assert_int_equal(import_file(path, format, &default_opts, &ps, &err), -1);
	assert_null(ps);
	assert_string_equal(tf_error_text(&err), want);
	tf_error_release(&err);
}

/* "file: " + text, the way errors name the file. */
static const char *
named(const char *path, const char *text)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s: %s", path, text);
	return sb.buf;
}

/* "perf script, folded stacks": what the registry tried, in order. */
static const char *
tried(void)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	for (size_t i = 0; importers[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", importers[i]->description);
	return sb.buf;
}

static void
test_table(void **state)
{
	size_t n = 0;

	(void)state;
	/* perf first: it is the format tflame is for. */
	assert_ptr_equal(importers[0], &importer_perf);
	assert_ptr_equal(importers[1], &importer_folded);
	for (; importers[n]; n++) {
		assert_non_null(importers[n]->name);
		assert_non_null(importers[n]->description);
		assert_non_null(importers[n]->probe);
		assert_non_null(importers[n]->load);
		assert_ptr_equal(importer_find(importers[n]->name), importers[n]);
	}
	/* perf and folded, then the importers of other formats */
	assert_true(n > 2);
	assert_ptr_equal(importer_find("folded"), &importer_folded);
	assert_ptr_equal(importer_find("pprof"), &importer_pprof);
	assert_ptr_equal(importer_find("callgrind"), &importer_callgrind);
	assert_ptr_equal(importer_find("speedscope"), &importer_speedscope);
	assert_ptr_equal(importer_find("chrome"), &importer_chrome);
	assert_ptr_equal(importer_find("cprofile"), &importer_cprofile);
	assert_ptr_equal(importer_find("perf"), &importer_perf);
	assert_null(importer_find("Folded"));
	assert_null(importer_find(""));
	assert_true(!strncmp(tried(), "perf script, folded stacks, ", 28));
}

static void
test_probe_folded(void **state)
{
	const char *path = put_str(state, "stacks.txt", "main;a;b 3\nmain;a;c 4\nmain;d 1\n");
	struct profile_set *ps = import_ok(path, NULL, &default_opts);

	assert_string_equal(ps->format, "folded stacks");
	assert_int_equal(ps->nr_profiles, 1);
	assert_int_equal(ps->profiles[0]->nr_samples, 3);
	assert_int_equal(ps->profiles[0]->total_weight, 8);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_probe_perf(void **state)
{
	static const char perf[] =
		"java 12688 [002] 6544038.708352: 235 cpu-clock:\n"
		"\t    7f0c2c2b5e1d Interpreter+0x1d (/tmp/perf-12688.map)\n"
		"\t    7f0c3c4ba0fd call_stub+0x11 (/usr/lib/jvm/libjvm.so)\n"
		"\n"
		"java 12688 [002] 6544038.718352: 235 cpu-clock:\n"
		"\t    7f0c2c2b5e1d Interpreter+0x1d (/tmp/perf-12688.map)\n"
		"\n";
	const char *path = put_str(state, "perf.txt", perf);
	struct profile_set *ps;

	/* Only the perf importer may claim perf script text. */
	assert_int_equal(importer_folded.probe(perf, sizeof(perf) - 1), 0);
	assert_true(importer_perf.probe(perf, sizeof(perf) - 1) >= 20);
	ps = import_ok(path, NULL, &default_opts);
	assert_string_equal(ps->format, "perf script");
	assert_true(ps->perf_script);
	assert_true(ps->nr_profiles >= 1);
	assert_int_equal(ps->profiles[0]->nr_samples, 2);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_probe_json(void **state)
{
	static const char speedscope[] =
		"{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
		" \"shared\": {\"frames\": [{\"name\": \"main\"}]},\n"
		" \"profiles\": [{\"type\": \"sampled\", \"name\": \"t\", \"unit\": \"none\",\n"
		"   \"samples\": [[0]], \"weights\": [2]}]}\n";
	static const char trace[] =
		"[{\"ph\": \"X\", \"name\": \"main\", \"ts\": 0, \"dur\": 3, \"pid\": 1, \"tid\": 1}]\n";
	static const char folded[] = "main;a;b 3\nmain;a;c 4\n";
	struct profile_set *ps;

	/* Content picks the importer, whatever the file is called. */
	ps = import_ok(put_str(state, "trace.txt", speedscope), NULL, &default_opts);
	assert_string_equal(ps->format, "speedscope");
	profile_set_free(ps);
	ps = import_ok(put_str(state, "profile.speedscope.json", trace), NULL, &default_opts);
	assert_string_equal(ps->format, "Chrome/Node");
	assert_int_equal(ps->profiles[0]->total_weight, 3000);
	profile_set_free(ps);
	ps = import_ok(put_str(state, "stacks.json", folded), NULL, &default_opts);
	assert_string_equal(ps->format, "folded stacks");
	profile_set_free(ps);
	/* And the JSON importers never claim text. */
	assert_int_equal(importer_speedscope.probe(folded, sizeof(folded) - 1), 0);
	assert_int_equal(importer_chrome.probe(folded, sizeof(folded) - 1), 0);
	assert_int_equal(importer_folded.probe(trace, sizeof(trace) - 1), 0);
	assert_int_equal(importer_perf.probe(trace, sizeof(trace) - 1), 0);
}

static void
test_binary(void **state)
{
	unsigned char junk[4096];
	uint32_t x = 99;
	const char *path;
	struct strbuf want = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245 + 12345;
		junk[i] = (unsigned char)(x >> 16);
	}
	junk[7] = 0;
	path = tmpdir_put(state, "junk.bin", junk, sizeof(junk));
	strbuf_addf(&want, "binary data, not a profile (tried %s)", tried());
	import_fails(path, NULL, named(path, want.buf));

	/* Control characters without a NUL are binary too. */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i % 3 ? 'a' + i % 20 : 1 + i % 7);
	path = tmpdir_put(state, "ctrl.bin", junk, sizeof(junk));
	import_fails(path, NULL, named(path, want.buf));
	strbuf_release(&want);
}

static void
test_unknown_text(void **state)
{
	const char *path = put_str(state, "prose.txt",
				   "This is a README.\nIt has lines of words,\n"
				   "and no stacks; none at all.\n");
	struct strbuf want = STRBUF_INIT;

	/* It says what the file most resembles, and where that fails. */
	strbuf_addf(&want, "%s:1: unknown format (tried %s); most like folded stacks, which "
		    "fails at line 1: no valid folded stack line (3 bad), first: missing "
		    "count: \"This is a README.\"", path, tried());
	assert_non_null(strstr(want.buf, "unknown format (tried perf script, folded stacks, "));
	import_fails(path, NULL, want.buf);
	strbuf_reset(&want);
	/* Weak folded text that loads when forced: --format says how. */
	path = put_str(state, "weak.txt", "x y z\nhello 5\nfoo bar\nbaz qux\n");
	strbuf_addf(&want, "unknown format (tried %s); most like folded stacks, which "
		    "--format=folded reads", tried());
	import_fails(path, NULL, named(path, want.buf));
	strbuf_reset(&want);
	/* JSON that is no profile: a JSON importer says what it missed. */
	path = put_str(state, "x.json", "{\"a\": [1, 2]}");
	strbuf_addf(&want, "unknown format (tried %s); most like speedscope, which fails: "
		    "no samples found", tried());
	import_fails(path, NULL, named(path, want.buf));
	strbuf_reset(&want);
	/* The same under a name Chrome's writers give: the name says what it resembles. */
	path = put_str(state, "x.cpuprofile", "{\"a\": [1, 2]}");
	strbuf_addf(&want, "unknown format (tried %s); most like Chrome/Node, which fails: "
		    "no samples found",
		    tried());
	import_fails(path, NULL, named(path, want.buf));
	/* Compressed, the name is read without .gz. */
	path = put_str(state, "x.cpuprofile.gz", "{\"a\": [1, 2]}");
	import_fails(path, NULL, named(path, want.buf));
	strbuf_release(&want);
}

/* The content decides; a file name its writers give only adds to a probe. */
static void
test_name_hint(void **state)
{
	struct profile_set *ps;
	const char *path;

	/* Folded stacks named as a JFR recording are still folded stacks. */
	path = put_str(state, "stacks.jfr", "main;work 5\nmain;idle 2\n");
	ps = import_ok(path, NULL, &default_opts);
	assert_string_equal(ps->format, importer_folded.description);
	profile_set_free(ps);
	/*
	 * Text too weak to call folded stacks on its own (test_unknown_text)
	 * is read as such under the name its writers give.
	 */
	path = put_str(state, "weak.folded", "x y z\nhello 5\nfoo bar\nbaz qux\n");
	ps = import_ok(path, NULL, &default_opts);
	assert_string_equal(ps->format, importer_folded.description);
	assert_int_equal(ps->profiles[0]->total_weight, 5);
	profile_set_free(ps);
	/* And a Chrome profile named .folded is Chrome's. */
	path = put_str(state, "p.folded",
		       "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\","
		       "\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},"
		       "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"f\","
		       "\"scriptId\":\"1\",\"url\":\"a.js\",\"lineNumber\":1,\"columnNumber\":1}}],"
		       "\"startTime\":0,\"endTime\":10,\"samples\":[2,2],\"timeDeltas\":[1,1]}");
	ps = import_ok(path, NULL, &default_opts);
	assert_string_equal(ps->format, importer_chrome.description);
	profile_set_free(ps);
}

static void
test_format_forced(void **state)
{
	/* Weak evidence (one frame per stack, mostly bad lines) forced. */
	const char *path = put_str(state, "weak.txt", "x y z\nhello 5\nfoo bar\nbaz qux\n");
	struct profile_set *ps;

	ps = import_ok(path, "folded", &default_opts);
	assert_string_equal(ps->format, "folded stacks");
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	assert_int_equal(ps->profiles[0]->total_weight, 5);
	assert_int_equal(ps->nr_diags, 1);
	check_profile_set(ps);
	profile_set_free(ps);

	path = put_str(state, "prose.txt", "no stacks\nat all\n");
	/* Forced on text with no folded line: the importer's error, at file:line. */
	{
		struct tf_error err = TF_ERROR_INIT;
		struct profile_set *out = NULL;
		struct strbuf want = STRBUF_INIT;

		assert_int_equal(import_file(path, "folded", &default_opts, &out, &err), -1);
		assert_int_equal(err.line, 1);
		assert_string_equal(err.file, path);
		strbuf_addf(&want, "%s:1: no valid folded stack line (2 bad), first: "
				   "missing count: \"no stacks\"", path);
		assert_string_equal(tf_error_text(&err), want.buf);
		strbuf_release(&want);
		tf_error_release(&err);
	}

	/* An unknown --format is refused before the file is even opened. */
	{
		struct strbuf want = STRBUF_INIT;

		strbuf_addstr(&want, "unknown format 'nope' (valid: ");
		for (size_t i = 0; importers[i]; i++)
			strbuf_addf(&want, "%s%s", i ? ", " : "", importers[i]->name);
		strbuf_addch(&want, ')');
		import_fails("/nonexistent/file", "nope", want.buf);
		strbuf_release(&want);
	}
}

static void
test_gzip(void **state)
{
	struct tmpdir *fx = *state;
	struct strbuf path = STRBUF_INIT;
	struct profile_set *ps;
	gzFile gz;

	strbuf_addf(&path, "%s/stacks.txt.gz", fx->dir);
	gz = gzopen(path.buf, "wb");
	assert_non_null(gz);
	assert_true(gzputs(gz, "a;b 1\na;c 2.5\nd 3\n") > 0);
	assert_int_equal(gzclose(gz), Z_OK);
	ps = import_ok(path.buf, NULL, &default_opts);
	assert_string_equal(ps->format, "folded stacks");
	assert_int_equal(ps->profiles[0]->nr_samples, 3);
	assert_int_equal(ps->profiles[0]->weight_decimals, 1);
	assert_int_equal(ps->profiles[0]->total_weight, 65);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&path);
}

static void
test_utf16(void **state)
{
	static const char le[] = "\xff\xfe" "a\0;\0b\0 \0" "1\0\r\0\n\0" "a\0;\0c\0 \0" "2\0";
	const char *path = tmpdir_put(state, "utf16.txt", le, sizeof(le) - 1);
	struct profile_set *ps = import_ok(path, NULL, &default_opts);

	assert_string_equal(ps->format, "folded stacks");
	assert_int_equal(ps->profiles[0]->nr_samples, 2);
	assert_int_equal(ps->profiles[0]->total_weight, 3);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_file_errors(void **state)
{
	struct tmpdir *fx = *state;
	struct strbuf want = STRBUF_INIT, path = STRBUF_INIT;
	const char *p;

	strbuf_addf(&path, "%s/missing.txt", fx->dir);
	strbuf_addf(&want, "cannot open %s: No such file or directory", path.buf);
	import_fails(path.buf, NULL, want.buf);
	import_fails(path.buf, "folded", want.buf);

	p = put_str(state, "empty.txt", "");
	import_fails(p, NULL, named(p, "file is empty"));

	/* Only blank lines: text, but nothing in it. */
	p = put_str(state, "blank.txt", "\n\n  \n");
	strbuf_reset(&want);
	strbuf_addf(&want, "unknown format (tried %s); most like folded stacks, which fails: "
		    "no samples found", tried());
	import_fails(p, NULL, named(p, want.buf));
	import_fails(p, "folded", named(p, "no samples found"));

	import_fails(fx->dir, NULL, named(fx->dir, "is a directory"));

	/*
	 * A gzip file cut after its first byte of data, "a": too little to
	 * probe, and no whole line to read. Either error says where it ends.
	 */
	{
		static const unsigned char gz[] = { 0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 3,
						    0x4b, 0x54 };

		p = tmpdir_put(state, "cut.gz", gz, sizeof(gz));
		strbuf_reset(&want);
		strbuf_addf(&want, "unknown format (tried %s); most like folded stacks, which "
			    "fails: no samples found (truncated gzip data: the file ends at byte 12, "
			    "inside the compressed stream; kept the 0 complete lines before the "
			    "cut and dropped the partial line 1 (1 byte))", tried());
		import_fails(p, NULL, named(p, want.buf));
		import_fails(p, "folded",
			     named(p, "no samples found (truncated gzip data: the file ends at "
				      "byte 12, inside the compressed stream; kept the 0 complete "
				      "lines before the cut and dropped the partial line 1 (1 byte))"));
	}
	strbuf_release(&want);
	strbuf_release(&path);
}

/* What import_foreign_format() calls data (a string), and its hint. */
static const char *
foreign(const char *data, size_t len, bool want_hint)
{
	const char *hint = "unset";
	const char *name = import_foreign_format(data, len, &hint);

	if (want_hint)
		assert_non_null(hint);
	else
		assert_null(hint);
	return name ? name : "(none)";
}

#define FOREIGN(lit, hint) foreign(lit, sizeof(lit) - 1, hint)

static void
test_foreign(void **state)
{
	struct tmpdir *fx = *state;
	struct strbuf dir = STRBUF_INIT;
	const char *p;

	/* Binary signatures. */
	/* JFR is read now: no longer foreign. */
	assert_string_equal(FOREIGN("FLR\0\0\2\0\0", false), "(none)");
	assert_string_equal(FOREIGN("JAVA PROFILE 1.0.2\0\0\0\4", false),
			    "a Java heap dump (hprof)");
	assert_string_equal(FOREIGN("go 1.22 trace\0\0\0", true), "a Go execution trace");
	assert_string_equal(FOREIGN("gmon\0\0\0\1\0\0\0\0\0\0\0\0\0\0\0\0", false),
			    "a gprof gmon.out file");
	assert_string_equal(FOREIGN("Nettrace\0\0\0\x14!FastSerialization.1", true),
			    "a .NET EventPipe trace (nettrace)");
	assert_string_equal(FOREIGN("\x04\x08{\x0a:\x09modeI\":\x0b" "frames{", false),
			    "a stackprof profile (Ruby Marshal data)");
	/* JSON ones, by their keys (not by a word in a string). */
	assert_string_equal(FOREIGN("{\"name\": \"meta threads interval\"}", false), "(none)");
	assert_string_equal(FOREIGN("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\"]}},"
				    "\"nodes\":[]}", false),
			    "a Chrome/V8 heap snapshot");
	/* Text ones. */
	assert_string_equal(FOREIGN("v8-version,11,3,244,8,0,0\nshared-library,\"node\"\n", true),
			    "a V8 tick log (node --prof)");
	assert_string_equal(FOREIGN("desc: (none)\ncmd: ./a.out\ntime_unit: i\n#---\n"
				    "snapshot=0\nmem_heap_B=0\n", false),
			    "a Valgrind massif profile");
	assert_string_equal(FOREIGN("# To display the perf.data header info\n#\n"
				    "# Samples: 1K of event 'cycles'\n", true),
			    "perf report output");
	assert_string_equal(FOREIGN("Analysis of sampling prog (pid 12) every 1 millisecond\n",
				    false),
			    "macOS sample output");
	/* Instruments deep copies are read now: no longer foreign. */
	assert_string_equal(FOREIGN("Weight\tSelf Weight\t\tSymbol Name\n1.0 s  100.0%\tmain\n",
				    false),
			    "(none)");
	/* Nothing else. */
	assert_string_equal(FOREIGN("a;b 1\n", false), "(none)");
	assert_string_equal(FOREIGN("{\"a\": 1}", false), "(none)");
	assert_string_equal(FOREIGN("", false), "(none)");
	assert_string_equal(FOREIGN("FLR", false), "(none)");

	/* Through import_file: the error names the file and the format. */
	p = tmpdir_put(state, "rec.jfr", "FLR\0\0\2\0\0", 8);
	import_fails(p, NULL, named(p, "byte 0: chunk header cut short (8 of 68 bytes)"));
	p = put_str(state, "report.txt", "# Samples: 12 of event 'cycles'\n\n  50.00%  a  a  main\n");
	import_fails(p, NULL, named(p, "looks like perf report output, which tflame does not "
				       "read yet; give tflame the perf.data file, or perf "
				       "script's output"));
	/* An Instruments .trace is a directory; forcing a format still opens it. */
	strbuf_addf(&dir, "%s/Run.trace", fx->dir);
	assert_int_equal(mkdir(dir.buf, 0700), 0);
	assert_null(import_foreign_dir(dir.buf));
	import_fails(dir.buf, NULL, named(dir.buf, "is a directory"));
	put_str(state, "Run.trace/form.template", "bplist00");
	assert_string_equal(import_foreign_dir(dir.buf), "an Instruments trace (.trace)");
	import_fails(dir.buf, NULL, named(dir.buf, "looks like an Instruments trace (.trace), "
						"which tflame does not read yet"));
	import_fails(dir.buf, "perf", named(dir.buf, "is a directory"));
	strbuf_release(&dir);
}

static void
test_options(void **state)
{
	struct import_options opts = { .weight = WEIGHT_SAMPLES };
	const char *path = put_str(state, "w.txt", "a;b 10\na;c 20\n");
	struct profile_set *ps = import_ok(path, NULL, &opts);

	/* The options reach the importer. */
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	assert_int_equal(ps->profiles[0]->total_weight, 2);
	check_profile_set(ps);
	profile_set_free(ps);

	/* NULL options are the defaults. */
	ps = import_ok(path, NULL, NULL);
	assert_int_equal(ps->profiles[0]->total_weight, 30);
	check_profile_set(ps);
	profile_set_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test_setup_teardown(test_probe_folded, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_probe_perf, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_probe_json, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_binary, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_unknown_text, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_name_hint, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_format_forced, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_gzip, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_utf16, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_file_errors, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_options, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_foreign, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

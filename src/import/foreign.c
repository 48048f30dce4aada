#include "config.h"

#include "tflame/import.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "tflame/json_reader.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"

/*
 * Profile formats tflame does not read, told by their signatures, so that
 * "unknown format" can say what the file is instead. Each test looks at
 * the probe window only and never parses: a wrong guess costs a message,
 * not a profile, and runs only after every importer declined the file.
 */

static bool
has(const char *data, size_t len, const char *s)
{
	return memmem(data, len, s, strlen(s)) != NULL;
}

/* The first non-blank byte after an optional UTF-8 BOM, or 0. */
static char
first_byte(const char *data, size_t len)
{
	return json_first_byte(data, len);
}

/* Whether a JSON text has the object key name (with its quotes) anywhere. */
static bool
has_key(const char *data, size_t len, const char *name)
{
	return json_probe_has_key(data, len, name);
}

/* Whether the text has a line that starts with s. */
static bool
has_line(const char *data, size_t len, const char *s)
{
	const char *p = data, *end = data + len;
	size_t n = strlen(s);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if ((size_t)(end - p) >= n && !memcmp(p, s, n))
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

const char *
import_foreign_format(const char *data, size_t len, const char **hint)
{
	bool json = first_byte(data, len) == '{';

	*hint = NULL;
	/* Binary formats, by their magic. */
	if (text_starts(data, len, "JAVA PROFILE 1.0."))
		return "a Java heap dump (hprof)";
	if (text_starts(data, len, "go 1.") && has(data, len < 16 ? len : 16, " trace")) {
		*hint = "go tool trace -pprof=sched (or net, sync, syscall) writes a pprof "
			"profile, which tflame reads";
		return "a Go execution trace";
	}
	if (text_starts(data, len, "gmon") && len >= 20)
		return "a gprof gmon.out file";
	if (text_starts(data, len, "Nettrace") && has(data, len, "!FastSerialization")) {
		*hint = "dotnet-trace convert --format Speedscope writes a speedscope file, "
			"which tflame reads";
		return "a .NET EventPipe trace (nettrace)";
	}
	/* Ruby's Marshal format: version 4.8, then a hash. */
	if (text_starts(data, len, "\x04\x08{") && has(data, len, "mode") && has(data, len, "frames"))
		return "a stackprof profile (Ruby Marshal data)";

	if (json) {
		if (has_key(data, len, "snapshot") && has_key(data, len, "node_fields"))
			return "a Chrome/V8 heap snapshot";
		return NULL;
	}

	/* Text formats. */
	if (text_starts(data, len, "v8-version,")) {
		*hint = "node --prof-process --preprocess turns it into JSON, which tflame "
			"reads";
		return "a V8 tick log (node --prof)";
	}
	if (has_line(data, len, "desc:") && has_line(data, len, "time_unit:") &&
	    has(data, len, "mem_heap_B="))
		return "a Valgrind massif profile";
	if (has_line(data, len, "# Samples: ") || has_line(data, len, "# Overhead")) {
		*hint = "give tflame the perf.data file, or perf script's output";
		return "perf report output";
	}
	if (has_line(data, len, "Analysis of sampling "))
		return "macOS sample output";
	return NULL;
}

const char *
import_foreign_dir(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	bool trace;

	/* Instruments saves a run as a directory with its form.template. */
	strbuf_addf(&sb, "%s/form.template", path);
	trace = stat(sb.buf, &st) == 0 && S_ISREG(st.st_mode);
	strbuf_release(&sb);
	return trace ? "an Instruments trace (.trace)" : NULL;
}

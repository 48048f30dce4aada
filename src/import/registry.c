#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/demangle.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/modfile.h"
#include "tflame/perfdata_read.h"
#include "tflame/profile.h"
#include "tflame/resolve.h"
#include "tflame/strbuf.h"

/* Below this score no importer is trusted to read the input. */
#define MIN_SCORE 20

const struct importer *const importers[] = {
	&importer_perf,
	&importer_folded,
	&importer_speedscope,
	&importer_chrome,
	&importer_gecko,
	&importer_safari,
	&importer_cprofile,
	&importer_perfdata,
	&importer_pprof,
	&importer_callgrind,
	&importer_jfr,
	&importer_instruments,
	&importer_pmcstat,
	&importer_papyrus,
	&importer_stackprof,
	&importer_heapprofile,
	&importer_ghc,
	&importer_v8log,
	NULL,
};

const struct importer *
importer_find(const char *name)
{
	for (size_t i = 0; importers[i]; i++)
		if (!strcmp(importers[i]->name, name))
			return importers[i];
	/* not probed, so not in the list: asked for by name only */
	if (!strcmp(importer_perfdata_native.name, name))
		return &importer_perfdata_native;
	return NULL;
}

void
importer_list_names(struct strbuf *sb, bool names)
{
	for (size_t i = 0; importers[i]; i++) {
		if (i)
			strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, names ? importers[i]->name : importers[i]->description);
	}
}

/*
 * Whether data is plainly not text: a NUL byte, or many control
 * characters. UTF-16 (which is full of NULs) is text if it has a BOM.
 */
static bool
looks_binary(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t ctrl = 0;

	if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff)))
		return false;
	if (memchr(data, '\0', len))
		return true;
	for (size_t i = 0; i < len; i++)
		if ((p[i] < 0x20 && !strchr("\t\n\v\f\r\033", p[i])) || p[i] == 0x7f)
			ctrl++;
	return ctrl * 20 > len;
}

static bool
has_samples(const struct profile_set *ps)
{
	for (size_t i = 0; i < ps->nr_profiles; i++)
		if (ps->profiles[i]->nr_samples)
			return true;
	return false;
}

/*
 * The importer a file that none reads most resembles: the one whose probe
 * came nearest, else, by its first byte, a JSON or a plain text one whose
 * errors say what it missed.
 */
static const struct importer *
closest_importer(const struct importer *best, const char *data, size_t len)
{
	size_t i = 0;

	if (best)
		return best;
	if (looks_binary(data, len))
		return NULL;
	while (i < len && strchr(" \t\r\n", data[i]))
		i++;
	if (i < len && (data[i] == '{' || data[i] == '['))
		return &importer_speedscope;
	return &importer_folded;
}

/* What a probe that saw something gains from a name its format's writers give. */
#define NAME_HINT 15

static bool
ends_with(const char *s, size_t len, const char *end)
{
	size_t n = strlen(end);

	return len >= n && !memcmp(s + len - n, end, n);
}

/* Whether path's base name is one that imp's writers give (struct importer.names). */
static bool
name_suggests(const struct importer *imp, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	/* The compression is the input layer's business, not the format's. */
	if (ends_with(base, len, ".gz"))
		len -= 3;
	else if (ends_with(base, len, ".zst"))
		len -= 4;
	for (size_t i = 0; imp->names && imp->names[i]; i++) {
		const char *n = imp->names[i];
		size_t k = strlen(n);

		if (k && n[k - 1] == '*' ? len >= k - 1 && !memcmp(base, n, k - 1)
					  : ends_with(base, len, n))
			return true;
	}
	return false;
}

static const struct importer *
pick_importer(const struct input *in, const char *data, size_t len,
	      const struct importer **closest, struct tf_error *err)
{
	const struct importer *best = NULL;
	int best_score = 0;
	const char *foreign, *hint;
	struct strbuf sb = STRBUF_INIT;

	*closest = NULL;
	for (size_t i = 0; importers[i]; i++) {
		int score = importers[i]->probe(data, len);

		if (score > 0 && name_suggests(importers[i], in->name))
			score += NAME_HINT;

		/* Ties go to the earlier importer: the list is in probing order. */
		if (score > best_score) {
			best_score = score;
			best = importers[i];
		}
	}
	if (best && best_score >= MIN_SCORE)
		return best;

	foreign = import_foreign_format(data, len, &hint);
	if (foreign) {
		tf_error_set_at(err, in->name, 0, "looks like %s, which tflame does not read yet%s%s",
				foreign, hint ? "; " : "", hint ? hint : "");
		return NULL;
	}
	strbuf_addstr(&sb, looks_binary(data, len) ? "binary data, not a profile (tried "
						   : "unknown format (tried ");
	importer_list_names(&sb, false);
	strbuf_addstr(&sb, ")");
	/* Nothing is sure: a name its writers give says which it resembles. */
	for (size_t i = 0; importers[i] && !best && !looks_binary(data, len); i++)
		if (name_suggests(importers[i], in->name))
			best = importers[i];
	*closest = closest_importer(best, data, len);
	if (!*closest)
		tf_error_set_at(err, in->name, 0, "%s", sb.buf);
	else
		tf_error_set_at(err, in->name, 0, "%s; use --format to force one", sb.buf);
	strbuf_release(&sb);
	return NULL;
}

/*
 * Say why the file is not in the format it most resembles: load it as
 * that and add the importer's own error, with its line, to err (an
 * "unknown format" error). If the load works, say that --format does it.
 */
static void
explain_closest(struct input *in, const struct importer *imp, struct tf_error *err)
{
	struct import_options opts = { .threads = 1 };
	struct profile_set *ps = profile_set_new();
	struct tf_error why = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	/* err's message ends "; use --format to force one": drop that. */
	const char *cut = strstr(err->msg, "; use --format");

	strbuf_add(&sb, err->msg, cut ? (size_t)(cut - err->msg) : strlen(err->msg));
	if (imp->load(in, &opts, ps, &why) == 0 && has_samples(ps)) {
		strbuf_addf(&sb, "; most like %s, which --format=%s reads", imp->description,
			    imp->name);
	} else {
		strbuf_addf(&sb, "; most like %s, which fails", imp->description);
		if (why.line)
			strbuf_addf(&sb, " at line %" PRIu64, why.line);
		strbuf_addf(&sb, ": %s", why.msg ? why.msg : "no samples found");
	}
	tf_error_set_at(err, in->name, why.line, "%s", sb.buf);
	strbuf_release(&sb);
	tf_error_release(&why);
	profile_set_free(ps);
}


/*
 * A load that failed on a truncated input: the cut is likely the reason
 * (a binary format missing its end), so the message says so too.
 */
static void
add_cut_to_error(const struct input *in, struct tf_error *err)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s (", err->msg);
	input_describe_cut(in, &sb);
	strbuf_addch(&sb, ')');
	/* Only the message changes: the file and line stay as they are. */
	free(err->msg);
	err->msg = strbuf_detach(&sb, NULL);
}

/*
 * A total past 64 bits is exact in the profile, collapse, folded export
 * and report's totals, while the views add weights scaled to fit 64 bits
 * (model_profile()) and print their amounts rounded: say so.
 */
static void
warn_wide_totals(struct profile_set *ps)
{
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		const struct profile *p = ps->profiles[i];
		struct strbuf sb = STRBUF_INIT;

		if (p->total_weight <= UINT64_MAX)
			continue;
		profile_format_weight_sum(p, p->total_weight, &sb);
		profile_set_warn(ps, 0, "the total weight%s%s, %s, is past 64 bits: collapse, "
				 "folded export and report's total are exact; the views count "
				 "to 64 significant bits and show amounts rounded (~)",
				 *ps_get(ps, p->name) ? " of " : "", ps_get(ps, p->name), sb.buf);
		strbuf_release(&sb);
	}
}

/* Whether text holds only blank lines and '#' comments, as perf script's header. */
static bool
only_comments(const char *data, size_t len)
{
	bool line_start = true, comment = false;

	for (size_t i = 0; i < len; i++) {
		char c = data[i];

		if (c == '\n') {
			line_start = true;
			comment = false;
		} else if (line_start && c == '#') {
			comment = true;
			line_start = false;
		} else if (!comment && c != ' ' && c != '\t' && c != '\r') {
			return false;
		} else {
			line_start = line_start && !comment;
		}
	}
	return true;
}

int
import_file(const char *path, const char *format, const struct import_options *opts,
	    struct profile_set **out, struct tf_error *err)
{
	static const struct import_options defaults;
	const struct importer *imp = NULL, *closest;
	struct profile_set *ps = NULL;
	struct input in;
	const char *data;
	size_t len;
	bool empty;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	/* A bad --format is the user's mistake, whatever the file holds. */
	if (format && !(imp = importer_find(format))) {
		struct strbuf sb = STRBUF_INIT;

		importer_list_names(&sb, true);
		tf_error_set(err, "unknown format '%s' (valid: %s)", format, sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	/* A directory is no profile, but an Instruments trace is one. */
	if (!imp && strcmp(path, "-")) {
		const char *foreign = import_foreign_dir(path);

		if (foreign) {
			tf_error_set_at(err, path, 0, "looks like %s, which tflame does not read yet",
					foreign);
			return -1;
		}
	}
	if (input_open_any(&in, path, &empty, err))
		return -1;
	if (empty && !opts->allow_empty) {
		tf_error_set_at(err, in.name, 0, "%s is empty",
				in.regular || strcmp(path, "-") ? "file" : "input");
		goto fail;
	}
	if (opts->allow_empty) {
		if (empty || (!input_peek(&in, IMPORT_PROBE_BYTES, &data, &len, NULL) &&
			      len < IMPORT_PROBE_BYTES && only_comments(data, len))) {
			ps = profile_set_new();
			ps->format = (imp ? imp : &importer_perf)->description;
			ps->perf_script = !imp || imp == &importer_perf;
			profile_set_warn(ps, 0, "no samples (%s): nothing to collapse",
					 empty ? "the input is empty" : "only comments");
			input_close(&in);
			*out = ps;
			return 0;
		}
	}
	if (!imp) {
		if (input_peek(&in, IMPORT_PROBE_BYTES, &data, &len, err))
			goto fail;
		imp = pick_importer(&in, data, len, &closest, err);
		if (!imp) {
			if (closest)
				explain_closest(&in, closest, err);
			if (in.truncated)
				add_cut_to_error(&in, err);
			goto fail;
		}
	}

	/* TFLAME_PERFDATA=native: the reader of perfdata_read.h, not perf script */
	if (imp == &importer_perfdata && perfdata_native_wanted())
		imp = &importer_perfdata_native;
	ps = profile_set_new();
	if (imp->load(&in, opts, ps, err)) {
		tf_error_set_file(err, in.name);
		if (in.truncated)
			add_cut_to_error(&in, err);
		goto fail;
	}
	if (!has_samples(ps)) {
		tf_error_set_at(err, in.name, 0, "no samples found");
		if (in.truncated)
			add_cut_to_error(&in, err);
		goto fail;
	}
	if (in.truncated) {
		struct strbuf sb = STRBUF_INIT;

		input_describe_cut(&in, &sb);
		profile_set_warn(ps, 0, "%s", sb.buf);
		strbuf_release(&sb);
	}
	if (!ps->format)
		ps->format = imp->description;
	input_close(&in);
	warn_wide_totals(ps);
	/* One file is one module, like the symbols read from this machine's files. */
	if (opts->symbols != SYMBOLS_OFF)
		profile_set_unify_modules(ps);
	if (opts->symbols == SYMBOLS_RESOLVE && !opts->symbols_later) {
		struct import_progress *pr = opts->progress;
		struct rewrite_opts ro = { .done = pr ? &pr->work_done : NULL,
					   .total = pr ? &pr->work_total : NULL,
					   .cancel = pr ? &pr->cancel : NULL };

		if (pr)
			atomic_store(&pr->phase, IMPORT_SYMBOLS);
		profile_set_symbolize(ps, (opts->demangle ? SYMBOLS_DEMANGLE : 0) |
						  (opts->verbose ? SYMBOLS_VERBOSE : 0) |
						  (opts->no_lines ? SYMBOLS_NO_LINES : 0),
				      opts->threads, &ro);
		if (pr && atomic_load(&pr->cancel)) {
			tf_error_set(err, "cancelled");
			profile_set_free(ps);
			return -1;
		}
		/* The resolving interned any loose stacks (import.h); none may leave. */
		profile_set_intern_loose(ps);
	} else if (opts->demangle && !opts->symbols_later) {
		profile_set_demangle(ps);
	}
	*out = ps;
	return 0;

fail:
	profile_set_free(ps);
	input_close(&in);
	return -1;
}

#include "config.h"

#include "tflame/import.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/profile.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * FreeBSD pmcstat call graphs (pmcstat -R FILE -G OUT): per event, the
 * functions samples landed in, each followed by its callers, one more
 * space of indent per level:
 *
 *	@ inst_retired.any [35705 samples]
 *
 *	20.86%  [7447]     zfs_lz4_compress @ /boot/kernel/zfs.ko
 *	 100.0%  [7447]      zio_compress_data
 *	  100.0%  [7447]       zio_write_compress
 *
 * The count in brackets is the samples under that caller chain. As
 * speedscope reads it, every chain that ends (a line whose next line is
 * not deeper) is one stack, leaf first, weighing its last count; samples
 * a node has beyond its printed callers are not counted (pmcstat leaves
 * out callers below its threshold), and tflame warns how many. A function
 * is known by its name alone, and its image ("@ /boot/kernel/zfs.ko",
 * which stays in force for the lines after it) is the one of its first
 * line. Each "@ EVENT" section is a profile of its own.
 */

#define PMCSTAT_FORMAT "pmcstat call graph"

struct chain_node {
	frame_id frame;
	uint64_t count;
	uint64_t callers; /* the counts of its callers so far */
	bool has_callers; /* a chain goes on past it: it ends none */
};

struct pmcstat {
	struct profile_set *ps;
	struct builder b;
	thread_id thread;
	struct profile *prof;
	str_id image;        /* the last "@ image", in force */

	struct name_frames frames;

	struct chain_node *chain; /* the open chain, leaf first */
	size_t depth, alloc_chain;

	uint64_t bad, first_bad;
	uint64_t lost, first_lost;
};

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * Close the chain down to depth: the deepest node, if it has no callers,
 * ends a stack; a node with fewer samples under its callers than its own
 * count loses the rest.
 */
static int
close_chain(struct pmcstat *pc, size_t depth, uint64_t lineno, struct tf_error *err)
{
	while (pc->depth > depth) {
		struct chain_node *n = &pc->chain[pc->depth - 1];

		if (!n->has_callers && n->count) {
			builder_begin_sample(&pc->b, pc->prof, pc->thread, n->count, 0, false);
			for (size_t i = 0; i < pc->depth; i++)
				builder_push_frame(&pc->b, pc->chain[i].frame);
			if (builder_end_sample(&pc->b, BUILDER_LEAF_FIRST, err)) {
				err->line = lineno;
				return -1;
			}
		} else if (n->callers < n->count) {
			if (!pc->lost)
				pc->first_lost = lineno;
			pc->lost += n->count - n->callers;
		}
		pc->depth--;
		if (pc->depth) {
			struct chain_node *up = &pc->chain[pc->depth - 1];
			uint64_t c = n->callers > n->count ? n->callers : n->count;

			up->callers = c > UINT64_MAX - up->callers ? UINT64_MAX : up->callers + c;
			up->has_callers = true;
		}
	}
	return 0;
}

/* "@ inst_retired.any [35705 samples]": a new profile. */
static int
event_line(struct pmcstat *pc, const char *line, size_t len, uint64_t lineno,
	   struct tf_error *err)
{
	const char *p = line + 2, *end = line + len, *name_end;

	if (close_chain(pc, 0, lineno, err))
		return -1;
	while (p < end && is_blank(*p))
		p++;
	name_end = p;
	while (name_end < end && !is_blank(*name_end))
		name_end++;
	pc->prof = profile_set_profile(pc->ps, ps_str(pc->ps, p, (size_t)(name_end - p)),
				       UNIT_SAMPLES);
	return 0;
}

/*
 * Read "   12.5%  [1234]   name @ image" into its indent, count, name and
 * image (NULL when there is none). Returns false if the line is not one.
 */
static bool
parse_entry(const char *line, size_t len, size_t *indent, uint64_t *count,
	    const char **name, size_t *nlen, const char **image, size_t *ilen)
{
	const char *p = line, *end = line + len, *at = NULL, *digits;

	while (p < end && *p == ' ')
		p++;
	*indent = (size_t)(p - line);
	digits = p;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '.'))
		p++;
	if (p == digits || !text_starts(p, (size_t)(end - p), "%  ["))
		return false;
	p += 4;
	digits = p;
	*count = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*count > (UINT64_MAX - 9) / 10)
			return false;
		*count = *count * 10 + (uint64_t)(*p - '0');
	}
	if (p == digits || p == end || *p != ']')
		return false;
	for (p++; p < end && is_blank(*p); p++)
		;
	while (end > p && is_blank(end[-1]))
		end--;
	if (p == end)
		return false;
	/* The image follows the last " @ ": a name may hold an "@" of its own. */
	for (const char *q = p; (q = memchr(q, '@', (size_t)(end - q))); q++)
		if (q > p && q[-1] == ' ' && q + 1 < end && q[1] == ' ')
			at = q;
	*image = NULL;
	*ilen = 0;
	if (at) {
		*image = at + 2;
		*ilen = (size_t)(end - *image);
		end = at - 1;
		while (end > p && is_blank(end[-1]))
			end--;
	}
	*name = p;
	*nlen = (size_t)(end - p);
	return *nlen > 0;
}

static int
parse_line(void *ctx, const char *line, size_t len, uint64_t lineno, struct tf_error *err)
{
	struct pmcstat *pc = ctx;
	const char *name, *image;
	size_t indent, nlen, ilen, k;
	uint64_t count;

	for (k = 0; k < len && is_blank(line[k]); k++)
		;
	if (k == len)
		return 0;
	if (text_starts(line, len, "@ "))
		return event_line(pc, line, len, lineno, err);
	if (!parse_entry(line, len, &indent, &count, &name, &nlen, &image, &ilen)) {
		if (!pc->bad++)
			pc->first_bad = lineno;
		return 0;
	}
	if (indent > pc->depth)
		return tf_error_set_at(err, NULL, lineno, "caller at depth %zu under a line "
				       "at depth %zu: a level is missing", indent,
				       pc->depth ? pc->depth - 1 : 0);
	if (close_chain(pc, indent, lineno, err))
		return -1;
	if (!pc->prof)
		pc->prof = profile_set_profile(pc->ps, STR_EMPTY, UNIT_SAMPLES);
	if (image)
		pc->image = ps_str(pc->ps, image, ilen);
	ALLOC_GROW(pc->chain, pc->depth + 1, pc->alloc_chain);
	pc->chain[pc->depth++] = (struct chain_node){
		.frame = name_frames_get(&pc->frames, pc->ps, ps_str(pc->ps, name, nlen),
					 pc->image),
		.count = count,
	};
	return 0;
}

int
pmcstat_parse_lines(struct line_reader *lr, const struct import_options *opts,
		    struct profile_set *ps, struct tf_error *err)
{
	static const struct import_options defaults;
	struct pmcstat pc;
	int ret = -1;

	if (!opts)
		opts = &defaults;
	memset(&pc, 0, sizeof(pc));
	pc.ps = ps;
	pc.image = STR_EMPTY;
	builder_init(&pc.b, ps);
	pc.b.max_samples = opts->max_samples;
	pc.thread = profile_set_thread(ps, -1, -1, STR_EMPTY);
	ps->format = PMCSTAT_FORMAT;

	if (line_reader_each(lr, opts->progress, &pc.b, parse_line, &pc, err) ||
	    close_chain(&pc, 0, lr->lineno, err))
		goto out;
	if (!pc.prof) {
		if (pc.bad)
			tf_error_set_at(err, NULL, pc.first_bad, "no pmcstat call graph line "
					"(\"12.5%%  [42]  function\"), %" PRIu64 " other%s",
					pc.bad, pc.bad == 1 ? "" : "s");
		else
			tf_error_set(err, "no samples found");
		goto out;
	}
	if (pc.bad)
		profile_set_warn(ps, pc.first_bad, "%" PRIu64 " line%s not understood, skipped",
				 pc.bad, pc.bad == 1 ? "" : "s");
	if (pc.lost)
		profile_set_warn(ps, pc.first_lost, "%" PRIu64 " sample%s under callers pmcstat "
				 "did not print, left out", pc.lost, pc.lost == 1 ? "" : "s");
	ret = 0;
out:
	builder_release(&pc.b);
	name_frames_release(&pc.frames);
	free(pc.chain);
	return ret;
}

static int
pmcstat_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	     struct tf_error *err)
{
	return line_reader_load(in, pmcstat_parse_lines, opts, ps, err);
}

/*
 * An "@ EVENT [N samples]" line first is sure; call graph lines alone,
 * a few of them, nearly.
 */
static int
pmcstat_probe(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	size_t good = 0, other = 0;
	bool event = false;

	if (memchr(data, '\0', len))
		return 0;
	for (int n = 0; p < end && n < 50; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p), indent, nlen, ilen;
		const char *name, *image;
		uint64_t count;

		if (!nl && len >= IMPORT_PROBE_BYTES)
			break; /* cut */
		if (text_starts(p, l, "@ ") && memmem(p, l, " samples]", 9))
			event = true;
		else if (parse_entry(p, l, &indent, &count, &name, &nlen, &image, &ilen))
			good++;
		else if (l && !(l == 1 && *p == '\r'))
			other++;
		if (!nl)
			break;
		p = nl + 1;
	}
	if (event && good)
		return 95;
	if (good >= 3 && good > other * 4)
		return 70;
	return good ? 15 : 0;
}

const struct importer importer_pmcstat = {
	.name = "pmcstat",
	.description = PMCSTAT_FORMAT,
	.probe = pmcstat_probe,
	.load = pmcstat_load,
};

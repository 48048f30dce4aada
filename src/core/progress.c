#include "config.h"

#include "tflame/progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"

#define PROGRESS_PREFIX "tflame: "
/* The path keeps this many columns (or all it has) before a part goes. */
#define NAME_MIN 16
/* ... and this many after the ellipsis before it goes itself. */
#define NAME_TINY 4
/* A shortened path starts at a '/' if that costs at most this many columns. */
#define SNAP_MAX 8

/*
 * The levels of detail, each dropping one more part of the line: the
 * speed (and, for symbols, the --no-symbols hint), "(Ctrl-C cancels)",
 * then the size of the input (for a pipe, the word "read").
 */
enum {
	LEVEL_ALL,
	LEVEL_NO_SPEED,
	LEVEL_NO_HINT,
	LEVEL_NO_SIZE,
	NR_LEVELS
};

static void
add_size(struct strbuf *out, uint64_t bytes)
{
	if (bytes >= 1000000000)
		strbuf_addf(out, "%.1f GB", (double)bytes / 1e9);
	else if (bytes >= 1000000)
		strbuf_addf(out, "%.1f MB", (double)bytes / 1e6);
	else
		strbuf_addf(out, "%.0f kB", (double)bytes / 1e3);
}

static void
add_rate(struct strbuf *out, double bytes_per_second)
{
	if (bytes_per_second >= 1e9)
		strbuf_addf(out, "%.1f GB/s", bytes_per_second / 1e9);
	else if (bytes_per_second >= 1e6)
		strbuf_addf(out, "%.0f MB/s", bytes_per_second / 1e6);
	else
		strbuf_addf(out, "%.0f kB/s", bytes_per_second / 1e3);
}

static unsigned
percent(uint64_t done, uint64_t total)
{
	if (done >= total)
		return 100;
	if (done <= UINT64_MAX / 100)
		return (unsigned)(done * 100 / total);
	return (unsigned)((double)done * 100 / (double)total);
}

/* Append what follows the name, at the given level of detail. */
static void
add_body(struct strbuf *out, const struct progress_info *pi, int level)
{
	if (pi->phase == IMPORT_SYMBOLS) {
		strbuf_addstr(out, "symbols");
		if (pi->work_total)
			strbuf_addf(out, " %u%%", percent(pi->work_done, pi->work_total));
		if (level < LEVEL_NO_HINT)
			strbuf_addstr(out, level < LEVEL_NO_SPEED
					   ? " (Ctrl-C cancels, --no-symbols skips this)"
					   : " (Ctrl-C cancels)");
		return;
	}
	if (pi->bytes_total) {
		strbuf_addf(out, "%u%%", percent(pi->bytes_done, pi->bytes_total));
		if (level < LEVEL_NO_SIZE) {
			strbuf_addstr(out, " of ");
			add_size(out, pi->bytes_total);
		}
	} else {
		/* Nothing to take a percentage of: the bytes read are the news. */
		add_size(out, pi->bytes_done);
		if (level < LEVEL_NO_SIZE)
			strbuf_addstr(out, " read");
	}
	if (level < LEVEL_NO_SPEED && pi->seconds > 0) {
		strbuf_addstr(out, ", ");
		add_rate(out, (double)pi->bytes_done / pi->seconds);
	}
	if (level < LEVEL_NO_HINT)
		strbuf_addstr(out, " (Ctrl-C cancels)");
}

/* Length and columns of the character at s (escaped text: valid UTF-8). */
static size_t
char_at(const char *s, size_t len, unsigned *cols)
{
	uint32_t cp;
	size_t n = text_utf8_decode((const unsigned char *)s, len, &cp);

	if (!n)
		n = 1;
	*cols = render_width(s, n);
	return n;
}

/*
 * Append the escaped name in at most room columns: whole if it fits,
 * else an ellipsis and as much of its end as fits, starting at a '/' when
 * that is close ("…/out/perf.txt" rather than "…ch/out/perf.txt"). room
 * leaves at least one column after the ellipsis.
 */
static void
add_name_tail(struct strbuf *out, const char *name, size_t len, unsigned width,
	      unsigned room, bool utf8)
{
	const char *ellipsis = utf8 ? "\xe2\x80\xa6" : "...";
	unsigned keep = room - (utf8 ? 1 : 3), cols, skipped = 0;
	const char *slash;
	size_t i = 0;

	if (width <= room) {
		strbuf_add(out, name, len);
		return;
	}
	while (i < len && width > keep) {
		i += char_at(name + i, len - i, &cols);
		width -= cols;
	}
	/* A tail that starts a component whole needs no snapping. */
	slash = name[i - 1] == '/' ? NULL : memchr(name + i, '/', len - i);
	if (slash && slash + 1 < name + len) {
		size_t j = i;

		while (j < (size_t)(slash - name)) {
			j += char_at(name + j, len - j, &cols);
			skipped += cols;
		}
		if (skipped <= SNAP_MAX)
			i = j;
	}
	strbuf_addstr(out, ellipsis);
	strbuf_add(out, name + i, len - i);
}

/*
 * Find the most detailed line that fits in max columns: fill body with
 * what follows the name and set *name_room to the columns the name gets
 * (0: no name). Returns false if not even the tersest line fits; body
 * then holds the tersest.
 */
static bool
choose_layout(const struct progress_info *pi, unsigned max, unsigned name_w, bool utf8,
	      struct strbuf *body, unsigned *name_room)
{
	/* Least the name may keep: a fair share, a glimpse, nothing at all. */
	const unsigned name_mins[] = { NAME_MIN, (utf8 ? 1 : 3) + NAME_TINY, 0 };
	const unsigned prefix_w = (unsigned)strlen(PROGRESS_PREFIX);

	for (size_t m = 0; m < sizeof(name_mins) / sizeof(name_mins[0]); m++) {
		unsigned want = name_mins[m] < name_w ? name_mins[m] : name_w;
		unsigned name_need = name_mins[m] ? want + 2 : 0; /* "name: " */

		for (int level = LEVEL_ALL; level < NR_LEVELS; level++) {
			unsigned body_w;

			strbuf_reset(body);
			add_body(body, pi, level);
			body_w = render_width(body->buf, body->len);
			if (prefix_w + name_need + body_w <= max) {
				*name_room = name_mins[m] ? max - prefix_w - 2 - body_w : 0;
				return true;
			}
		}
	}
	*name_room = 0;
	return false;
}

unsigned
progress_format(struct strbuf *out, const struct progress_info *pi, unsigned width, bool utf8)
{
	struct strbuf name = STRBUF_INIT, body = STRBUF_INIT, line = STRBUF_INIT;
	unsigned name_w, name_room, used;

	if (width < 2)
		return 0;
	if (!strcmp(pi->name, "-"))
		strbuf_addstr(&name, "standard input");
	else
		text_escape_str(&name, pi->name);
	name_w = render_width(name.buf, name.len);

	strbuf_addstr(&line, PROGRESS_PREFIX);
	if (choose_layout(pi, width - 1, name_w, utf8, &body, &name_room) && name_room) {
		add_name_tail(&line, name.buf, name.len, name_w, name_room, utf8);
		strbuf_addstr(&line, ": ");
	}
	strbuf_add(&line, body.buf, body.len);
	/* A no-op unless not even "tflame: 45%" fits. */
	used = render_cut(out, line.buf, line.len, width - 1, utf8);
	strbuf_release(&name);
	strbuf_release(&body);
	strbuf_release(&line);
	return used;
}

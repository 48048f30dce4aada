#ifndef TFLAME_PALETTE_H
#define TFLAME_PALETTE_H

/*
 * Box colours: which colour a frame's box takes, the same in the explorer
 * (display.c paints it) and in an exported SVG (export.c writes it), so a
 * flame graph handed on looks like the screen it came from.
 *
 * A colour is a family (by the colour mode) and a shade within it chosen
 * by a hash of the name (or module) bytes, never of an id, so that one
 * function keeps its colour across files and events. The shades are
 * colours of the xterm 256-colour cube.
 */

#include <stdint.h>

#include "tflame/profile.h"

/*
 * Families of box colours. FLAME_HOT is the FlameGraph palette of reds,
 * oranges and yellows; the others tell kinds of code apart in the
 * kernel/JIT/user colour mode.
 */
enum flame_family {
	FLAME_HOT,
	FLAME_USER,
	FLAME_KERNEL,
	FLAME_JIT,
	FLAME_INLINED,
	FLAME_NR_FAMILIES
};

/* What a box's colour says (the explorer's c key). */
enum color_mode {
	COLOR_BY_FUNCTION, /* the hash of the function's name */
	COLOR_BY_MODULE,   /* the hash of its module */
	COLOR_BY_KIND,     /* kernel, JIT, inlined or user code */
	COLOR_NR_MODES
};

/* The mode's name as options take it: "function", "module", "kind". */
const char *palette_mode_name(enum color_mode mode);

/* The shades of family as xterm colour numbers: *n of them (static). */
const short *palette_shades(enum flame_family family, unsigned *n);

/* The family of frame fr in mode, and in *hash what picks its shade. */
enum flame_family palette_hue(const struct profile_set *ps, const struct frame *fr,
			      enum color_mode mode, uint32_t *hash);

/* The xterm shade palette_hue() gives fr in mode. */
short palette_xterm(const struct profile_set *ps, const struct frame *fr, enum color_mode mode);

/*
 * Diff colours (tflame BASE NEW): a box's change against the base, as
 * flamegraph.pl's differential graphs show it: red grew, blue shrank, the
 * more the stronger. Like its color_scale(), the strength is linear in
 * the change over the largest change on show (max_delta), here in
 * PALETTE_DIFF_LEVELS steps; a change under a twentieth of the largest
 * is level 0, about unchanged (grey, where flamegraph.pl has white). A
 * box wholly new (base 0) is the strongest red, one wholly gone (new 0)
 * the strongest blue, whatever their size.
 */
#define PALETTE_DIFF_LEVELS 5

/*
 * The level of a box weighing base before and now after: 1 to
 * PALETTE_DIFF_LEVELS grew, the negatives shrank, 0 about unchanged.
 */
int palette_diff_level(uint64_t base, uint64_t now, uint64_t max_delta);
/*
 * The same for a box of Left Heavy, coloured as flamegraph.pl does (see
 * diff_box_change()): wholly new or gone by its totals, else by the change
 * of its self weight over the largest change of any box's self.
 */
int palette_box_level(uint64_t base_total, uint64_t now_total, uint64_t base_self,
		      uint64_t now_self, uint64_t max_self_delta);

/* The xterm background of level (clamped to the levels): black text reads on it. */
short palette_diff_xterm(int level);

/* An xterm colour number (0-255) as 0xRRGGBB, as xterm shows it. */
uint32_t palette_xterm_rgb(short color);

#endif /* TFLAME_PALETTE_H */

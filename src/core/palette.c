#include "config.h"

#include "tflame/palette.h"

#include "tflame/hash.h"
#include "tflame/intern.h"
#include "tflame/xalloc.h"

/*
 * Box backgrounds in the xterm 256-colour cube (16 + 36r + 6g + b). The
 * hot family follows FlameGraph's palette: red high, green anywhere, blue
 * low, so everything is red, orange or yellow and black text stays
 * readable on it.
 */
static const short hot256[] = {
	196, 202, 208, 214, 220, 160, 166, 172, 178, 184,
	203, 209, 215, 221, 227, 167, 173, 179, 185,
};
static const short user256[] = { 196, 160, 203, 167, 197, 161, 204 };
static const short kernel256[] = { 214, 220, 178, 221, 184, 227 };
static const short jit256[] = { 70, 76, 112, 114, 148, 150 };
static const short inlined256[] = { 73, 79, 80, 115, 116, 152 };

static const struct {
	const short *c;
	unsigned n;
} shades[FLAME_NR_FAMILIES] = {
	[FLAME_HOT] = { hot256, ARRAY_SIZE(hot256) },
	[FLAME_USER] = { user256, ARRAY_SIZE(user256) },
	[FLAME_KERNEL] = { kernel256, ARRAY_SIZE(kernel256) },
	[FLAME_JIT] = { jit256, ARRAY_SIZE(jit256) },
	[FLAME_INLINED] = { inlined256, ARRAY_SIZE(inlined256) },
};

const char *
palette_mode_name(enum color_mode mode)
{
	static const char *const names[COLOR_NR_MODES] = {
		[COLOR_BY_FUNCTION] = "function",
		[COLOR_BY_MODULE] = "module",
		[COLOR_BY_KIND] = "kind",
	};

	return mode < COLOR_NR_MODES ? names[mode] : "";
}

const short *
palette_shades(enum flame_family family, unsigned *n)
{
	*n = shades[family].n;
	return shades[family].c;
}

enum flame_family
palette_hue(const struct profile_set *ps, const struct frame *fr, enum color_mode mode,
	    uint32_t *hash)
{
	enum flame_family family = FLAME_HOT;
	str_id key = fr->name;

	switch (mode) {
	case COLOR_BY_MODULE:
		key = fr->module;
		break;
	case COLOR_BY_KIND:
		family = fr->flags & FRAME_KERNEL	 ? FLAME_KERNEL
			 : fr->flags & FRAME_JIT     ? FLAME_JIT
			 : fr->flags & FRAME_INLINED ? FLAME_INLINED
						     : FLAME_USER;
		break;
	case COLOR_BY_FUNCTION:
	case COLOR_NR_MODES:
		break;
	}
	/* The name's bytes, not its id: ids differ between files and events. */
	*hash = (uint32_t)hash_bytes(ps_get(ps, key), intern_len(&ps->strings, key), 0x7f1a);
	return family;
}

short
palette_xterm(const struct profile_set *ps, const struct frame *fr, enum color_mode mode)
{
	uint32_t h;
	enum flame_family family = palette_hue(ps, fr, mode, &h);

	return shades[family].c[h % shades[family].n];
}

/* The level of a change from base to now, by its size alone. */
static int
delta_level(uint64_t base, uint64_t now, uint64_t max_delta)
{
	uint64_t d = now > base ? now - base : base - now;
	int level;

	/* d / max <= 1: the level is ceil(LEVELS * d / max), in 128 bits. */
	if (!max_delta || (unsigned __int128)d * 20 < max_delta)
		return 0;
	level = (int)(((unsigned __int128)d * PALETTE_DIFF_LEVELS + max_delta - 1) / max_delta);
	if (level > PALETTE_DIFF_LEVELS)
		level = PALETTE_DIFF_LEVELS;
	return now > base ? level : -level;
}

int
palette_diff_level(uint64_t base, uint64_t now, uint64_t max_delta)
{
	if (!base && now)
		return PALETTE_DIFF_LEVELS;
	if (base && !now)
		return -PALETTE_DIFF_LEVELS;
	return delta_level(base, now, max_delta);
}

int
palette_box_level(uint64_t base_total, uint64_t now_total, uint64_t base_self,
		  uint64_t now_self, uint64_t max_self_delta)
{
	if (!base_total && now_total)
		return PALETTE_DIFF_LEVELS;
	if (base_total && !now_total)
		return -PALETTE_DIFF_LEVELS;
	return delta_level(base_self, now_self, max_self_delta);
}

short
palette_diff_xterm(int level)
{
	/* Pale to strong: pinks to pure red, lavenders to a mid blue. */
	static const short grew[PALETTE_DIFF_LEVELS] = { 224, 217, 210, 203, 196 };
	static const short shrank[PALETTE_DIFF_LEVELS] = { 189, 153, 111, 75, 33 };

	if (level > PALETTE_DIFF_LEVELS)
		level = PALETTE_DIFF_LEVELS;
	if (level < -PALETTE_DIFF_LEVELS)
		level = -PALETTE_DIFF_LEVELS;
	if (level > 0)
		return grew[level - 1];
	if (level < 0)
		return shrank[-level - 1];
	return 250;
}

uint32_t
palette_xterm_rgb(short color)
{
	static const uint32_t ansi[16] = {
		0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
		0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
	};
	/* The cube's steps, as xterm's 256colres.h. */
	static const uint32_t step[6] = { 0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff };
	unsigned c = (unsigned)color & 0xff;

	if (c < 16)
		return ansi[c];
	if (c >= 232) {
		uint32_t g = 8 + 10 * (c - 232);

		return g << 16 | g << 8 | g;
	}
	c -= 16;
	return step[c / 36] << 16 | step[c / 6 % 6] << 8 | step[c % 6];
}

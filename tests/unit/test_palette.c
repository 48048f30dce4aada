#include "config.h"

#include "tflame/palette.h"

#include "test_util.h"

/*
 * The diff colours' levels (palette_diff_level()), as flamegraph.pl's
 * color_scale() scales its differential colours: linear in the change
 * over the largest change, here in PALETTE_DIFF_LEVELS steps, a change
 * under a twentieth of the largest about unchanged.
 */
static void
test_diff_levels_scale(void **state)
{
	(void)state;
	/* The largest change takes the strongest colour, either way. */
	assert_int_equal(palette_diff_level(100, 200, 100), 5);
	assert_int_equal(palette_diff_level(200, 100, 100), -5);
	/* ceil(5 * d / max): 21/100 is a little over one step. */
	assert_int_equal(palette_diff_level(100, 121, 100), 2);
	assert_int_equal(palette_diff_level(100, 120, 100), 1);
	assert_int_equal(palette_diff_level(100, 160, 100), 3);
	assert_int_equal(palette_diff_level(160, 100, 100), -3);
	/* Under a twentieth of the largest: about the same; a twentieth: the palest. */
	assert_int_equal(palette_diff_level(100, 104, 100), 0);
	assert_int_equal(palette_diff_level(100, 96, 100), 0);
	assert_int_equal(palette_diff_level(100, 105, 100), 1);
	assert_int_equal(palette_diff_level(105, 100, 100), -1);
	assert_int_equal(palette_diff_level(7, 7, 100), 0);
	/* No change anywhere: all the same. */
	assert_int_equal(palette_diff_level(7, 7, 0), 0);
	/* Past the largest (a caller's mistake): still the strongest. */
	assert_int_equal(palette_diff_level(0 + 1, 1000, 10), 5);
	/* No overflow near 64 bits. */
	assert_int_equal(palette_diff_level(0x1000, UINT64_MAX, UINT64_MAX - 0x1000), 5);
	assert_int_equal(palette_diff_level(UINT64_MAX / 2, UINT64_MAX, UINT64_MAX), 3);
}

/*
 * Left Heavy's boxes (palette_box_level()): by the change of their self
 * weight over the largest change of a self, but wholly new or gone by
 * their totals.
 */
static void
test_box_levels(void **state)
{
	(void)state;
	/* tokenize 40 -> 90 is the largest change of a self: the strongest red. */
	assert_int_equal(palette_box_level(40, 90, 40, 90, 50), 5);
	/* parse 50 -> 100, its own 10 -> 10: about the same, whatever its total. */
	assert_int_equal(palette_box_level(50, 100, 10, 10, 50), 0);
	/* paint 20 -> 5: ceil(5 * 15 / 50) = 2 steps of blue. */
	assert_int_equal(palette_box_level(20, 5, 20, 5, 50), -2);
	/* A self from 0 in a box the base had is a change, not new. */
	assert_int_equal(palette_box_level(12, 20, 0, 20, 50), 2);
	/* A box the base lacks: the strongest red though its self is 0. */
	assert_int_equal(palette_box_level(0, 25, 0, 0, 50), 5);
	assert_int_equal(palette_box_level(15, 0, 0, 0, 50), -5);
	/* No self changed anywhere: all the same. */
	assert_int_equal(palette_box_level(5, 9, 3, 3, 0), 0);
}

static void
test_diff_new_and_gone(void **state)
{
	(void)state;
	/* Wholly new: the strongest red, however small; gone: the strongest blue. */
	assert_int_equal(palette_diff_level(0, 1, 1000), 5);
	assert_int_equal(palette_diff_level(1, 0, 1000), -5);
	assert_int_equal(palette_diff_level(0, 0, 1000), 0);
}

static void
test_diff_shades(void **state)
{
	short last = -1;

	(void)state;
	assert_int_equal(palette_diff_xterm(0), 250);
	/* Pale to strong, red, then blue; each level its own shade. */
	assert_int_equal(palette_diff_xterm(5), 196);
	assert_int_equal(palette_diff_xterm(-5), 33);
	for (int l = -PALETTE_DIFF_LEVELS; l <= PALETTE_DIFF_LEVELS; l++) {
		uint32_t rgb = palette_xterm_rgb(palette_diff_xterm(l));
		unsigned r = rgb >> 16, g = rgb >> 8 & 0xff, b = rgb & 0xff;

		assert_int_not_equal(palette_diff_xterm(l), last);
		last = palette_diff_xterm(l);
		if (l > 0)
			assert_true(r > g && r > b); /* red */
		if (l < 0)
			assert_true(b > r); /* blue */
		if (!l)
			assert_true(r == g && g == b); /* grey */
	}
	/* Stronger is less white: green and blue fall as red grows. */
	for (int l = 1; l < PALETTE_DIFF_LEVELS; l++)
		assert_true((palette_xterm_rgb(palette_diff_xterm(l)) >> 8 & 0xff) >
			    (palette_xterm_rgb(palette_diff_xterm(l + 1)) >> 8 & 0xff));
	/* Out of range clamps. */
	assert_int_equal(palette_diff_xterm(9), 196);
	assert_int_equal(palette_diff_xterm(-9), 33);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_levels_scale),
		cmocka_unit_test(test_diff_new_and_gone),
		cmocka_unit_test(test_box_levels),
		cmocka_unit_test(test_diff_shades),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

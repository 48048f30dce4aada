#ifndef TFLAME_DIFF_H
#define TFLAME_DIFF_H

/*
 * Comparing two profiles, BASE (before) and NEW (after).
 *
 * Functions match by name and module (struct func), or by name alone with
 * DIFF_IGNORE_MODULE, for binaries at different paths. Stacks match as
 * folded lines do: frame names joined by ';', the same text on both sides.
 *
 * Normalising scales BASE to NEW's total, each weight on its own, rounded
 * down, as difffolded.pl -n does: floor(w * new_total / base_total), in
 * exact integers here where the script uses floating point.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tflame/functions.h"
#include "tflame/profile.h"

struct tf_error;

enum diff_flags {
	DIFF_IGNORE_MODULE = 1 << 0,
	DIFF_NORMALIZE = 1 << 1, /* scale BASE's weights to NEW's total */
	/*
	 * With DIFF_IGNORE_MODULE: not asked for, but chosen because the
	 * sides share so little by module (diff_overlap_by_name()).
	 */
	DIFF_NAMES_AUTO = 1 << 2,
};

/* One side: a profile, its function table and the figures of the lens. */
struct diff_side {
	const struct profile_set *ps;
	const struct func_table *ft;
	const struct func_stats *stats; /* ft->nr_funcs of them */
	uint64_t total;                 /* the weight of the samples the lens keeps */
};

/* A function on either side. Names point into the sides' strings. */
struct diff_row {
	const char *name;
	const char *module;   /* "" with DIFF_IGNORE_MODULE */
	uint64_t base_self, base_total; /* scaled with DIFF_NORMALIZE */
	uint64_t new_self, new_total;
};

/* floor(w * to / from) exactly; w when from is 0. */
uint64_t diff_scale(uint64_t w, uint64_t from, uint64_t to);
/*
 * A weight w of profile from in the decimals of profile to (profile.h:
 * weight_decimals), so that 3.5 before and 3.5 after are the same
 * amount; saturated, rounded down.
 */
uint64_t diff_same_decimals(uint64_t w, const struct profile *from, const struct profile *to);

/*
 * Every function with weight on either side (process frames aside), in no
 * particular order: *out is a new array (free() it) of the returned count.
 * With DIFF_IGNORE_MODULE, the functions of one name in several modules of
 * a side add up (their totals may then count a sample twice).
 */
size_t diff_functions(const struct diff_side *base, const struct diff_side *new_side,
		      unsigned flags, struct diff_row **out);

/*
 * How much of their weight two sides have in common, function by
 * function: the sum over functions of the smaller of the function's two
 * self shares (its self weight over its side's total), from 0 (no
 * function in common) to 1 (every function the same share). by_module
 * takes a function as its name and module, by_name as its name alone: two
 * builds of one program at two paths share most by name, little by
 * module, as every frame of their own code has a module of its own.
 */
struct diff_overlap {
	double by_module;
	double by_name;
};
/* The overlap of two sides as their function tables and figures say. */
void diff_side_overlap(const struct diff_side *base, const struct diff_side *new_side,
		       struct diff_overlap *out);
/*
 * The same for two sets as loaded, from the self weight of each frame of
 * each one's first profile (diff_first_profile()). O(frames + samples).
 */
void diff_set_overlap(const struct profile_set *base, const struct profile_set *new_set,
		      struct diff_overlap *out);
/*
 * Whether to match by name alone though not asked: the sides share under
 * half their weight by module and name, but over half by name.
 */
bool diff_overlap_by_name(const struct diff_overlap *o);
/* Append what was done and why, for a warning or report's header. */
struct strbuf;
void diff_overlap_note(const struct diff_overlap *o, struct strbuf *out);

/*
 * How a weight changed from base to now, for the colour of a box or row
 * (red grew, blue shrank, as flamegraph.pl's differential graphs) and its
 * sign in text: "+", "-", "new" (nothing before), "gone" (nothing now), "=".
 */
enum diff_change {
	DIFF_SAME,
	DIFF_GREW,
	DIFF_SHRANK,
	DIFF_NEW,
	DIFF_GONE,
};
enum diff_change diff_change(uint64_t base, uint64_t now);
/*
 * A box of a differential flame graph, as flamegraph.pl colours it: by
 * the change of its self weight (the samples ending in it), so that the
 * colour points at the frames that changed rather than at every caller
 * of them; but a box wholly new (its total 0 in the base) is DIFF_NEW
 * and one wholly gone DIFF_GONE, whatever their self.
 */
enum diff_change diff_box_change(uint64_t base_total, uint64_t now_total, uint64_t base_self,
				 uint64_t now_self);
const char *diff_change_sign(enum diff_change c);
/* Append "+1.20 s", "-5", "0": a signed amount d of p's unit, for columns. */
struct strbuf;
void diff_format_delta(struct strbuf *sb, const struct profile *p, int64_t d);
/* Append the change from base to now relative to base: "+66.7%", "new", "gone", "0%". */
void diff_format_change(struct strbuf *sb, uint64_t base, uint64_t now);
/* now - base, saturated to int64_t. */
int64_t diff_delta(uint64_t base, uint64_t now);

/*
 * Whether p can be compared with its counterpart (diff_other()): 0 when
 * it has none or one of the same unit, else -1 with err saying so, base
 * and path naming the two files ("BASE weighs in ns and NEW in events").
 */
int diff_check_units(const struct profile_set *ps, const struct profile *p, const char *base,
		     const char *path, struct tf_error *err);

/*
 * The profile to show first: "after" of a differential folded file (whose
 * "before" comes first in the set), else the first.
 */
size_t diff_first_profile(const struct profile_set *ps);

/* The change of a row's total share, in percentage points (NEW minus BASE). */
double diff_share_change(const struct diff_row *r, uint64_t base_total, uint64_t new_total);

/*
 * difffolded.pl: read the folded stacks of base and new (text, "stack
 * count" per line, the count last after a blank) and write every stack of
 * either as "stack base_count new_count", sorted by stack, a count 0 where
 * the stack is missing; with DIFF_NORMALIZE, base counts scaled. Lines
 * without a count are skipped, as the script skips them. Returns 0, or -1
 * with err set (a write error, a count out of range).
 */
int diff_folded_write(const char *base, size_t base_len, const char *new_text, size_t new_len,
		      unsigned flags, FILE *out, struct tf_error *err);

/*
 * For the views of NEW compared with BASE: put base's samples into ps
 * (NEW's set), so that a call path both have is one stack whose weights
 * on the two sides a view reads from two profiles. Each frame of base goes
 * to ps's frame of the same function, where ps has one: the same name, the
 * same module (any, with DIFF_IGNORE_MODULE), the same kind (kernel, JIT,
 * inlined, unnamed, process); file, line and address may differ, as they
 * do between two builds. Base's threads join ps's (a filter by comm keeps
 * both sides' threads of that comm), and each of its profiles becomes one
 * of ps named DIFF_BASE_PREFIX and its name, with its unit and decimals
 * and its samples (not its recorded figures). ps->diff_flags keeps the
 * matching flags (DIFF_IGNORE_MODULE, DIFF_NAMES_AUTO). base is not changed.
 * Returns 0, or -1 with err set (a total weight past 64 bits; base's
 * profiles there already).
 */
#define DIFF_BASE_PREFIX "base: "
int diff_join(struct profile_set *ps, const struct profile_set *base, unsigned flags,
	      struct tf_error *err);

/*
 * The profile p is compared with: for a profile of NEW the one diff_join()
 * made of BASE's of the same name, and the other way round (so that
 * showing the base profile swaps the sides), or when none has its name
 * and each side has one profile, that one (a folded file's has no name,
 * perf's is its event); for the "after" profile of a differential folded
 * file its "before", and back. NULL when p has none.
 */
struct profile *diff_other(const struct profile_set *ps, const struct profile *p);

#endif /* TFLAME_DIFF_H */

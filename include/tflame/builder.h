#ifndef TFLAME_BUILDER_H
#define TFLAME_BUILDER_H

/*
 * The builder: how importers add samples to a profile set.
 *
 *	builder_begin_sample(&b, profile, thread, weight, time, has_time);
 *	builder_push_frame(&b, frame);   ... once per frame ...
 *	builder_end_sample(&b, BUILDER_LEAF_FIRST, &err);
 *
 * Frames are pushed in the order the input lists them and end_sample() is
 * told which order that was; the builder turns them into a stack id by
 * walking from the root, so importers never build trees themselves. A sample
 * with no frames has stack STACK_ROOT.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/profile.h"

struct tf_error;

enum builder_order {
	BUILDER_ROOT_FIRST, /* folded stacks, speedscope */
	BUILDER_LEAF_FIRST, /* perf script, pprof */
};

/* A sample's path, root first: its frames and the stack id at each depth. */
struct builder_path {
	frame_id *frames;
	stack_id *stacks;
	size_t len, alloc;
};

/* How many paths under other outermost frames the builder keeps. */
#define BUILDER_OTHER_PATHS 16

struct builder {
	struct profile_set *ps;
	struct profile *profile; /* of the open sample, NULL if none open */
	thread_id thread;
	uint64_t weight;
	weight_sum weight_rest;  /* beyond weight: builder_begin_sample_sum() */
	uint64_t nr_split;       /* samples split so; builder_release() warns */
	int64_t time;
	bool has_time;
	frame_id *frames;        /* of the open sample, in push order */
	size_t nr_frames, alloc_frames;
	/*
	 * The path of the last sample, and of the last one under each of a
	 * few other outermost frames (by its hash, evicting). Consecutive
	 * samples mostly share a long prefix with the last sample of the
	 * same root, even where roots interleave (the processes of a
	 * system-wide perf profile), and reusing it skips most stack lookups.
	 */
	struct builder_path path;
	struct builder_path other[BUILDER_OTHER_PATHS];
	/*
	 * Samples to keep at most, 0 for no limit: set it after builder_init()
	 * (from import_options.max_samples). Past it, end_sample() drops the
	 * sample, and the first dropped one adds the warning "stopped after N
	 * samples (--max-samples)" to the set.
	 */
	uint64_t max_samples;
	uint64_t nr_samples;     /* ended so far, kept or dropped */
	uint32_t *chain;         /* builder_tree_stack()'s nodes to intern */
	size_t alloc_chain;
};

void builder_init(struct builder *b, struct profile_set *ps);
void builder_release(struct builder *b);

/* Open a sample; an open sample that was not ended is discarded. */
void builder_begin_sample(struct builder *b, struct profile *p, thread_id thread,
			  uint64_t weight, int64_t time, bool has_time);
/*
 * builder_begin_sample() with a weight that may pass 64 bits (at most
 * BUILDER_MAX_WEIGHT): a sample weighs 64 bits at most (profile.h), so
 * builder_end_sample() adds such a sample as several of the same stack,
 * thread and time, each of at most WEIGHT_MAX, whose weights add up to
 * it exactly. The profile's samples then count the pieces, and
 * builder_release() adds a warning saying how many were split.
 */
void builder_begin_sample_sum(struct builder *b, struct profile *p, thread_id thread,
			      weight_sum weight, int64_t time, bool has_time);
/*
 * The most builder_begin_sample_sum() takes: 16 samples of WEIGHT_MAX, so
 * that a line of input makes at most 16 samples (a count past that is
 * 2.9 * 10^20, nine thousand years in ns).
 */
#define BUILDER_MAX_PIECES 16
#define BUILDER_MAX_WEIGHT ((weight_sum)WEIGHT_MAX * BUILDER_MAX_PIECES)

void builder_push_frame(struct builder *b, frame_id frame);

/*
 * Add a sample whose stack the importer already holds, as a begin, push,
 * end of that stack's frames would (max_samples included): for a format
 * that names whole stacks (a JFR stack trace) and interns each once with
 * profile_set_stack(), rather than pushing its frames for every sample.
 * No sample may be open. Returns 0, or -1 with err set (total weight
 * overflow).
 */
int builder_add_stack_sample(struct builder *b, struct profile *p, thread_id thread,
			     uint64_t weight, int64_t time, bool has_time, stack_id stack,
			     struct tf_error *err);

/* Drop the frames pushed so far (the sample stays open). */
static inline void
builder_clear_frames(struct builder *b)
{
	b->nr_frames = 0;
}

/*
 * Close the open sample and add it to its profile (or drop it, past
 * max_samples). Returns 0, or -1 with err set (total weight overflow).
 * Calling it with no open sample is a BUG.
 */
int builder_end_sample(struct builder *b, enum builder_order order,
		       struct tf_error *err);

/*
 * Whether a sample has been dropped for max_samples (and the warning
 * given): the importer may stop reading, since no more will be kept.
 */
static inline bool
builder_stopped(const struct builder *b)
{
	return b->max_samples && b->nr_samples > b->max_samples;
}

/* Whether a sample is open. */
static inline bool
builder_in_sample(const struct builder *b)
{
	return b->profile != NULL;
}

/* Whether builder_end_sample() would drop the open sample (max_samples). */
static inline bool
builder_full(const struct builder *b)
{
	return b->max_samples && b->nr_samples >= b->max_samples;
}

/*
 * A call tree that an importer read node by node (a heap profile, GHC's
 * cost-centre tree), for samples of its nodes' paths: each node's parent
 * (index + 1; 0 for a root) comes before it, and has its frame.
 */
struct builder_tree_node {
	uint32_t parent;
	frame_id frame;
};

/*
 * The stack of node i's path. memo[n] remembers node n's stack once
 * interned (STACK_ROOT: not yet; the caller zeroes memo, one entry per
 * node), so a whole tree costs O(nodes) however deep it is, where
 * pushing each path's frames would cost its depth; only the paths of
 * the nodes asked for are interned (for builder_add_stack_sample()). No
 * recursion.
 */
stack_id builder_tree_stack(struct builder *b, const struct builder_tree_node *nodes,
			    stack_id *memo, size_t i);

/* The outermost frame to give a sample of thread (builder_add_roots()). */
typedef frame_id builder_root_fn(void *ctx, thread_id thread);

/*
 * Give every sample of b's set one frame more above its outermost:
 * root(ctx, t) for a sample of thread t. It is for an importer that
 * learns only after some samples that every sample needs such a frame
 * (perf's process frames), and then pushes it itself for the samples
 * after. The stack trie is built again from the samples' stacks
 * (profile_set_clear_stacks()), so the set must be b's alone and hold no
 * source positions; stack ids taken before mean nothing after, and no
 * stack is left that no sample goes through. O(samples + stacks), no
 * recursion.
 */
void builder_add_roots(struct builder *b, builder_root_fn *root, void *ctx);

/*
 * The same into a trie of one's own, for a lens that groups by process
 * (lens.h): the stacks of p's samples, given by old (the trie they are
 * of), each under root(ctx, thread) in out, whose stack ids go to dst[i]
 * (which may be p->stack). With replace (old's frames) an outermost
 * FRAME_PROCESS frame is dropped, the new root taking its place, so a
 * perf profile's process frames are not doubled. r remembers the stacks
 * made, for every profile over one out, and is made for old's nr_old
 * stacks. O(samples + stacks), no recursion.
 */
struct builder_roots;
struct builder_roots *builder_roots_new(uint32_t nr_old);
void builder_roots_free(struct builder_roots *r);
void builder_roots_profile(struct builder_roots *r, const struct stack_node *old,
			   const struct frame *replace, struct profile_set *out,
			   const struct profile *p, stack_id *dst, builder_root_fn *root,
			   void *ctx);

/*
 * Split w into n parts in the proportions of share[0..n): out[i] is
 * w * share[i] / sum(share) rounded down, and the units that rounding
 * leaves over go one each to the parts with the largest remainders
 * (ties to the lower index), so the parts add up to w exactly and no
 * part is biased up or down by more than one unit. An importer that
 * rebuilds a tree from a call graph splits a node's weight this way
 * among its own time and its callees. All zeros when every share is 0.
 * O(n log n); exact integer arithmetic.
 */
void builder_apportion(uint64_t w, const uint64_t *share, size_t n, uint64_t *out);

/*
 * Frames known by their name alone, for formats whose functions have no
 * other identity (pmcstat, papyrus): a name's frame is made at its first
 * sight, with the module given then, and found again by the name's str_id
 * without hashing the frame. Zero-initialise; release with
 * name_frames_release().
 */
struct name_frames {
	uint32_t *frame_of; /* str_id -> frame_id + 1, 0 for none yet */
	size_t alloc;
};

frame_id name_frames_get(struct name_frames *nf, struct profile_set *ps, str_id name,
			 str_id module);
void name_frames_release(struct name_frames *nf);

#endif /* TFLAME_BUILDER_H */

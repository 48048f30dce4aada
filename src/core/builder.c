#include "config.h"

#include "tflame/builder.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

void
builder_init(struct builder *b, struct profile_set *ps)
{
	memset(b, 0, sizeof(*b));
	b->ps = ps;
	b->thread = THREAD_NONE;
}

void
builder_release(struct builder *b)
{
	free(b->frames);
	free(b->path_frames);
	free(b->path_stacks);
	memset(b, 0, sizeof(*b));
}

void
builder_begin_sample(struct builder *b, struct profile *p, thread_id thread,
		     uint64_t weight, int64_t time, bool has_time)
{
	b->profile = p;
	b->thread = thread;
	b->weight = weight;
	b->time = time;
	b->has_time = has_time;
	b->nr_frames = 0;
}

void
builder_push_frame(struct builder *b, frame_id frame)
{
	ALLOC_GROW(b->frames, b->nr_frames, b->alloc_frames);
	b->frames[b->nr_frames++] = frame;
}

int
builder_end_sample(struct builder *b, enum builder_order order, struct tf_error *err)
{
	stack_id s = STACK_ROOT;
	struct profile *p = b->profile;
	size_t n = b->nr_frames, i = 0;

	if (!p)
		BUG("builder_end_sample() with no open sample");
	if (b->max_samples && b->nr_samples >= b->max_samples) {
		if (b->nr_samples++ == b->max_samples)
			profile_set_warn(b->ps, 0, "stopped after %" PRIu64 " samples (--max-samples)",
					 b->max_samples);
		b->profile = NULL;
		b->nr_frames = 0;
		return 0;
	}
	b->nr_samples++;
	if (n > b->path_alloc) {
		b->path_alloc = n > 2 * b->path_alloc ? n : 2 * b->path_alloc;
		b->path_frames = xreallocarray(b->path_frames, b->path_alloc, sizeof(frame_id));
		b->path_stacks = xreallocarray(b->path_stacks, b->path_alloc, sizeof(stack_id));
	}
	for (; i < n; i++) {
		frame_id f = b->frames[order == BUILDER_ROOT_FIRST ? i : n - 1 - i];

		if (i < b->path_len && b->path_frames[i] == f) {
			s = b->path_stacks[i];
			continue;
		}
		/* Past the shared prefix: intern, and remember for the next sample. */
		b->path_len = i;
		s = profile_set_stack(b->ps, s, f);
		b->path_frames[i] = f;
		b->path_stacks[i] = s;
	}
	b->path_len = n;
	b->profile = NULL;
	b->nr_frames = 0;
	return profile_add_sample(p, s, b->weight, b->time, b->has_time, b->thread, err);
}

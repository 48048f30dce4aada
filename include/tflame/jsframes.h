#ifndef TFLAME_JSFRAMES_H
#define TFLAME_JSFRAMES_H

/*
 * JavaScript functions for the V8 importers (.cpuprofile, trace CPU
 * profiles, .heapprofile), one frame per function as Chrome DevTools and
 * speedscope key a call frame: by name, script URL, line and column.
 *
 *	struct js_frames jf;
 *	js_frames_init(&jf);
 *	i = js_frames_add(&jf, ps, name, name_len, url, url_len, line0, col0);
 *	...               every call frame of the file, in any order ...
 *	js_frames_finish(&jf, ps);
 *	frame = js_frames_frame(&jf, i);
 *	js_frames_release(&jf);
 *
 * The names are given once every call frame is known, because whether a
 * named function needs its position depends on the others:
 *
 *  - a function with no name is "(anonymous) BASE:LINE:COL", BASE being
 *    the last part of its URL and LINE:COL 1-based, as DevTools prints a
 *    position ("(anonymous) app.js:7:28"), so that node's module wrapper,
 *    a sort comparator and every callback are rows of their own; with no
 *    URL it is "(anonymous)";
 *  - a named function keeps its name, unless another call frame of the
 *    same name and module lies elsewhere (two classes' "get" in one
 *    script, "e" all over a minified bundle): then each gets " BASE:LINE:COL"
 *    after its name;
 *  - the module is the script: its URL's last part, a "node:" URL whole
 *    ("node:internal/streams/writable"), and a file under node_modules from
 *    its package on ("lodash/sortBy.js"); none without a URL;
 *  - the frame's file is the URL and its line the function's 1-based line
 *    (FRAME_HAS_LINE), where the URL has one.
 *
 * Lines and columns come 0-based as V8 writes them, -1 (any negative)
 * for unknown. Nothing here recurses; memory is a few words per distinct
 * call frame.
 */

#include <stddef.h>
#include <stdint.h>

#include "tflame/profile.h"

struct js_call_frame {
	str_id name;   /* as the file gives it; STR_EMPTY for anonymous */
	str_id url;    /* STR_EMPTY when none */
	int32_t line;  /* 0-based, -1 unknown */
	int32_t col;   /* 0-based, -1 unknown */
};

struct js_frames {
	struct js_call_frame *cf;
	uint32_t nr, alloc;
	uint64_t *slots;    /* (hash32 << 32) | (index + 1) */
	uint32_t mask;
	frame_id *frames;   /* per call frame, once finished; NULL before */
};

void js_frames_init(struct js_frames *jf);
void js_frames_release(struct js_frames *jf);

/*
 * The index of the call frame (name, url, line0, col0), added if new.
 * The strings are copied into ps. An index stays valid for the life of
 * jf. Calling it after js_frames_finish() is a BUG.
 */
uint32_t js_frames_add(struct js_frames *jf, struct profile_set *ps, const char *name,
		       size_t name_len, const char *url, size_t url_len, int64_t line0,
		       int64_t col0);

/* Name every call frame added (see the top) and make its frame in ps. */
void js_frames_finish(struct js_frames *jf, struct profile_set *ps);

/* The frame of call frame i, after js_frames_finish(). */
static inline frame_id
js_frames_frame(const struct js_frames *jf, uint32_t i)
{
	return jf->frames[i];
}

/*
 * Append the module a script URL names (see the top) to out: nothing
 * for an empty URL.
 */
struct strbuf;
void js_script_module(const char *url, size_t len, struct strbuf *out);

#endif /* TFLAME_JSFRAMES_H */

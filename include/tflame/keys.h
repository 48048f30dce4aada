#ifndef TFLAME_KEYS_H
#define TFLAME_KEYS_H

/*
 * Requests and keys: one table, after tig's request table.
 *
 * REQ_INFO below is the only list of what a user can ask for. It expands
 * into the request enum, the default key bindings the handler looks keys
 * up in, and the help screen, so a key cannot be handled without being
 * documented, or documented without being handled.
 *
 *   GROUP(title)                a heading on the help screen
 *   REQ(id, help, key, ...)     request REQ_<id>, its help line and its
 *                               default keys (curses key codes, or the
 *                               KEYS_* mouse codes below)
 *
 * Requests whose help starts with LATER are reserved for a later version:
 * they are listed so their keys stay free, and the UI says they are not
 * there yet.
 *
 * PICKER_REQ_INFO is the same for the thread picker's own requests: their
 * default keys go to the picker's keymap, not the generic one.
 *
 * A request's name in the config file is its id in lower case with '-'
 * for '_': REQ_ZOOM_RESET is "zoom-reset".
 */

#include <curses.h>
#include <stdbool.h>

struct strbuf;
struct tf_error;

/*
 * Mouse events become key codes past the curses ones, so that they go
 * through the same table and can be rebound like keys.
 */
#define KEYS_CLICK (KEY_MAX + 1)
#define KEYS_DOUBLE_CLICK (KEY_MAX + 2)
#define KEYS_WHEEL_UP (KEY_MAX + 3)
#define KEYS_WHEEL_DOWN (KEY_MAX + 4)
#define KEYS_LIMIT (KEY_MAX + 5) /* every key code is below this */

#define KEYS_CTRL(c) ((c) & 0x1f)
#define KEYS_ESC 27

#define LATER "(later version) "

#define REQ_INFO(GROUP, REQ) \
	GROUP("Panes and profiles") \
	REQ(LEFT_HEAVY, "Left Heavy: the call tree, heaviest callees first", '1') \
	REQ(TIME_ORDER, "Time Order: the call stacks as they happened", '2') \
	REQ(SANDWICH, "Sandwich: every function, and the callers and callees of one", '3') \
	REQ(NEXT_PANE, "next pane; in Sandwich, the focus to the next of table, callers " \
		       "and callees", '\t') \
	REQ(PREV_PANE, "previous pane; in Sandwich, the focus back", KEY_BTAB) \
	REQ(NEXT_EVENT, "next profile (perf event), when there are several; a thread " \
			"filter keeps the same threads there", 'e') \
	REQ(COUNT_SAMPLES, "weigh by sample counts or back by the weights, where there " \
			   "are samples", 'p') \
	REQ(THREADS, "choose the threads to show: a page that lists them", 't') \
	GROUP("Moving (the same in every flame pane; in a table, by rows)") \
	REQ(MOVE_UP, "up a row: the caller (icicle) or a callee (flipped)", 'k', KEY_UP) \
	REQ(MOVE_DOWN, "down a row: the heaviest callee on screen, or the one just left " \
		       "(icicle); the caller (flipped)", 'j', KEY_DOWN) \
	REQ(MOVE_LEFT, "the box on the left (in Time Order, the one before in time, across " \
		       "gaps); when zoomed in with + and the box runs off the screen, pan " \
		       "left to its edge first", 'h', KEY_LEFT) \
	REQ(MOVE_RIGHT, "the box on the right; pans first like h", 'l', KEY_RIGHT) \
	REQ(PAN_LEFT, "pan the view left, keeping the selection if it is still shown", \
	    'H', '<') \
	REQ(PAN_RIGHT, "pan the view right", 'L', '>') \
	REQ(PAGE_UP, "scroll the rows of a deep stack up a page", KEY_PPAGE, \
	    KEYS_CTRL('b')) \
	REQ(PAGE_DOWN, "scroll the rows down a page", KEY_NPAGE, KEYS_CTRL('f'), ' ') \
	REQ(TOP, "to the outermost frame above the selection; a table's first row", 'g', \
	    KEY_HOME) \
	REQ(BOTTOM, "down the heaviest callees to a leaf; a table's last row", 'G', KEY_END) \
	GROUP("Zoom") \
	REQ(ZOOM, "zoom: the selected box spans the width; in Sandwich's table, back " \
		  "to the flame pane with the function's boxes marked", '\n', '\r', KEY_ENTER) \
	REQ(BACK, "zoom out one step; when not zoomed, clear the search or the marks, " \
		  "then the time range", \
	    KEYS_ESC, KEY_BACKSPACE, 127, '\b') \
	REQ(ZOOM_RESET, "zoom out all the way", '0') \
	REQ(ZOOM_IN, "zoom in 2x around the selection", '+', '=') \
	REQ(ZOOM_OUT, "zoom out 2x around the selection", '-', '_') \
	GROUP("Time Order: threads as lanes") \
	REQ(LANE_PREV, "focus the lane above in the overview (the previous thread) and " \
		       "show its chart, on the same time range", '[') \
	REQ(LANE_NEXT, "focus the lane below and show its chart; a click on a lane " \
		       "does the same", ']') \
	REQ(LANE_MERGED, "the chart of the focused lane, or of all the selected threads " \
			 "merged", 'm') \
	GROUP("Mouse") \
	REQ(CLICK, "select the box under the pointer; in Time Order, a drag across the " \
		   "chart counts only the time it covers, as r", KEYS_CLICK) \
	REQ(CLICK_ZOOM, "zoom into the box under the pointer", KEYS_DOUBLE_CLICK) \
	REQ(WHEEL_UP, "scroll the rows up", KEYS_WHEEL_UP) \
	REQ(WHEEL_DOWN, "scroll the rows down", KEYS_WHEEL_DOWN) \
	GROUP("Showing") \
	REQ(DETAILS, "every detail of the selected frame, on a page of its own", 'd') \
	REQ(WARNINGS, "the warnings of reading the file and the config, on a page (they " \
		      "are printed when tflame exits too)", 'W') \
	REQ(SOURCE, "the source of the selected function, each line with its self and " \
		    "total weight; n N go to the lines with weight, Esc back", 'o') \
	REQ(INVERT, "invert Left Heavy (bottom-up): the frames that ran on row 0, " \
		    "heaviest first, and their callers below them; again: back", 'i') \
	REQ(FLIP, "flip the flame panes: root at the top (icicle) or at the bottom", 'f') \
	REQ(COLORS, "colour boxes by function, by module, or kernel/JIT/user; neighbours " \
		    "of one colour take two shades", 'c') \
	REQ(SEARCH, "search frame names with a regular expression (PCRE2; case matters " \
		    "only if it has a capital): matches lit, the rest dimmed", '/') \
	REQ(FIND_NEXT, "select the next match (of the search, or the marked function), " \
		       "row by row", 'n') \
	REQ(FIND_PREV, "select the previous match", 'N') \
	GROUP("Transforms: reshape the stacks in every pane (a, then a key below)") \
	REQ(TRANSFORM, "transform the stacks by the selected box or function: a, then " \
		       "one of the keys of the next group", 'a') \
	REQ(UNDO, "undo the last transform: its breadcrumb in the tab bar goes; with none, " \
		  "drop the time range of --time", 'u') \
	REQ(REDO, "apply again the transform undone last", 'U', KEYS_CTRL('r')) \
	REQ(WRITE_LENS, "write the transforms to tflame.lens, for --lens=FILE", 'w') \
	REQ(TIME_RANGE, "Time Order: count only the time range on screen (zoom to it " \
			"first) in Left Heavy, Sandwich and the search, keeping the zoom; " \
			"u drops it", 'r') \
	REQ(BY_PROCESS, "group by process: every stack under its process, comm-PID, " \
			"below the transforms (a system-wide profile); again: back", 'P') \
	GROUP("After a: the transforms (the Firefox Profiler's keys)") \
	REQ(TX_FOCUS_SUBTREE, "focus on the selected box: only its subtree, it the root", \
	    'f') \
	REQ(TX_FOCUS_FUNCTION, "focus on the function: only its calls, each a root", 'F') \
	REQ(TX_FOCUS_INVERTED, "focus on the function's callers: stacks cut below its " \
			       "innermost call", 'i') \
	REQ(TX_MERGE_FUNCTION, "merge the function: its frames go, their weight to their " \
			       "callers", 'm') \
	REQ(TX_MERGE_CALL_NODE, "merge the selected box only", 'M') \
	REQ(TX_DROP_FUNCTION, "drop the samples with the function on their stack", 'd') \
	REQ(TX_COLLAPSE_SUBTREE, "collapse the function: it keeps the weight of all it " \
				 "calls", 'c') \
	REQ(TX_COLLAPSE_MODULE, "collapse the function's module: each run of its frames " \
				"one frame, [module]", 'C') \
	REQ(TX_COLLAPSE_RECURSION, "collapse the function's recursion, direct or not", 'r') \
	REQ(TX_COLLAPSE_DIRECT, "collapse the function's direct recursion only", 'R') \
	REQ(TX_CANCEL, "no transform after all", KEYS_ESC) \
	GROUP("Sandwich") \
	REQ(SHOW_SANDWICH, "show the function of the selected box in Sandwich, and mark " \
			   "all its boxes", 's') \
	REQ(SORT_TOTAL, "sort the table by total weight (again: reverse)", 'T') \
	REQ(SORT_SELF, "sort the table by self weight (again: reverse)", 'S') \
	REQ(SORT_NAME, "sort the table by function name (again: reverse)", 'F') \
	REQ(SORT_DELTA_TOTAL, "comparing: sort by the change of total against the base, " \
			      "the most grown first (again: the most shrunk first)", 'C') \
	REQ(SORT_DELTA_SELF, "comparing: sort by the change of self (again: reverse)", 'V') \
	GROUP("Comparing two profiles (tflame BASE NEW): red grew, blue shrank (Left " \
	      "Heavy: the samples ending in a box, as flamegraph.pl)") \
	REQ(DIFF_NORMALIZE, "scale the base to the total of the profile shown (as " \
			    "difffolded.pl -n), or back to its raw weights", 'D') \
	REQ(DIFF_SWAP, "swap the sides: show the base, compared with the new profile; " \
		       "what only one side has shows as wholly new or gone", 'b') \
	GROUP("The source view (o)") \
	REQ(SOURCE_DECL, "the line that declares the function (the view opens on its " \
			 "hottest line); again, back to the hottest", 'd') \
	GROUP("Sharing") \
	REQ(COPY_NAME, "copy the selected frame's name to the clipboard (OSC 52: over SSH " \
		       "and in tmux with set-clipboard on); where the terminal does not " \
		       "take it, to a file, and say where", 'y') \
	REQ(COPY_STACK, "copy the selected box's call stack, root first, one frame a line", \
	    'Y') \
	REQ(EXPORT, "export what the panes show (profile, threads, zoom) to a file: folded " \
		    "stacks, speedscope JSON or SVG; Tab changes the format; asks before " \
		    "overwriting", 'x') \
	GROUP("Other") \
	REQ(HELP, "this help; q, Esc or ? closes it", '?', KEY_F(1)) \
	REQ(REDRAW, "redraw the screen", KEYS_CTRL('l')) \
	REQ(SUSPEND, "suspend tflame (fg resumes it), from the prompts and the picker too", \
	    KEYS_CTRL('z')) \
	REQ(QUIT, "quit (closes this help first)", 'q') \
	REQ(INTERRUPT, "quit at once", KEYS_CTRL('c'))

/*
 * The thread picker (picker.h). Letters, digits and the editing keys type
 * into its filter, so only other keys are bound here by default.
 */
#define PICKER_REQ_INFO(GROUP, REQ) \
	GROUP("The thread picker (t)") \
	REQ(PICKER_UP, "the line above", KEY_UP) \
	REQ(PICKER_DOWN, "the line below", KEY_DOWN) \
	REQ(PICKER_PAGE_UP, "a page up", KEY_PPAGE) \
	REQ(PICKER_PAGE_DOWN, "a page down", KEY_NPAGE) \
	REQ(PICKER_SCROLL_UP, "three lines up", KEYS_WHEEL_UP) \
	REQ(PICKER_SCROLL_DOWN, "three lines down", KEYS_WHEEL_DOWN) \
	REQ(PICKER_TICK, "tick or untick the line (a process: all its threads); a " \
			 "click, the line under the pointer", ' ', KEYS_CLICK, KEYS_DOUBLE_CLICK) \
	REQ(PICKER_TICK_SHOWN, "tick every thread the filter shows", KEYS_CTRL('a')) \
	REQ(PICKER_UNTICK_SHOWN, "untick every thread the filter shows", KEYS_CTRL('x')) \
	REQ(PICKER_ONLY_SHOWN, "tick the threads the filter shows and untick all " \
			       "others", KEYS_CTRL('o')) \
	REQ(PICKER_INVERT_SHOWN, "invert the ticks of the threads the filter shows", \
	    KEYS_CTRL('r')) \
	REQ(PICKER_APPLY, "show the ticked threads in every pane", '\n', '\r', KEY_ENTER) \
	REQ(PICKER_CANCEL, "close, changing nothing (so do Ctrl-C and Ctrl-G)", KEYS_ESC)

#define KEYS_ENUM_GROUP_(title)
#define KEYS_ENUM_REQ_(id, help, ...) REQ_##id,
enum request {
	REQ_NONE,
	REQ_INFO(KEYS_ENUM_GROUP_, KEYS_ENUM_REQ_)
	PICKER_REQ_INFO(KEYS_ENUM_GROUP_, KEYS_ENUM_REQ_)
	REQ_COUNT,
};
#undef KEYS_ENUM_GROUP_
#undef KEYS_ENUM_REQ_

/*
 * Keymaps, after tig's: a key is looked up in the keymap of what is on
 * screen, then, but for the picker's, in the generic one. A binding to
 * REQ_NONE in a keymap hides the generic binding of its key.
 */
#define KEYMAP_INFO(K) \
	K(GENERIC, "generic", "every pane and page, unless their keymap binds the key") \
	K(LEFT_HEAVY, "left-heavy", "the Left Heavy pane") \
	K(TIME_ORDER, "time-order", "the Time Order pane") \
	K(SANDWICH, "sandwich", "the Sandwich pane") \
	K(PAGE, "page", "the help and details pages") \
	K(SOURCE, "source", "the source page (o)") \
	K(TRANSFORM, "transform", "the key after a; no fallback: any other key cancels") \
	K(PICKER, "picker", "the thread picker (t); no fallback: other keys type into " \
			    "its filter")

#define KEYS_ENUM_MAP_(id, name, help) KEYMAP_##id,
enum keymap {
	KEYMAP_INFO(KEYS_ENUM_MAP_)
	KEYMAP_NR
};
#undef KEYS_ENUM_MAP_

struct key_binding {
	int key;
	enum request req; /* REQ_NONE: unbound, hiding the generic binding */
};

/* The bindings of one keymap, looked up in order. */
struct keymap_bindings {
	struct key_binding *b;
	size_t nr, alloc;
	size_t nr_user; /* the first nr_user came from the config file */
};

/* Every keymap's bindings: embedded, keys_init() / keys_release(). */
struct keys {
	struct keymap_bindings maps[KEYMAP_NR];
};

/* The default bindings: REQ_INFO's keys in generic, the picker's in picker. */
void keys_init(struct keys *k);
void keys_release(struct keys *k);

/*
 * Check the invariants: every key once per keymap, nr_user <= nr, known
 * requests, and only picker requests (or REQ_NONE) in the picker's keymap
 * and none elsewhere. Returns 0, or -1 with err saying what is wrong.
 */
int keys_check(const struct keys *k, struct tf_error *err);

/*
 * Bind key in keymap km to req (REQ_NONE unbinds it there). Bindings made
 * this way come before the defaults, in the order they were made, so that
 * hints show a key the user chose.
 */
void keys_bind(struct keys *k, enum keymap km, int key, enum request req);

/*
 * The request of key (a curses key code or KEYS_*) in km, falling back to
 * the generic keymap (but for the picker); REQ_NONE if none.
 */
enum request keys_request(const struct keys *k, enum keymap km, int key);

/*
 * The keys that ask for req in km, fallback included, in lookup order:
 * up to max of them into out. Returns how many there are in all.
 */
size_t keys_of(const struct keys *k, enum keymap km, enum request req, int *out, size_t max);

/* Whether req belongs to the picker's keymap (PICKER_REQ_INFO). */
bool keys_is_picker(enum request req);
/*
 * Whether req's default keys go to the source view's keymap (its group
 * in REQ_INFO) rather than the generic one.
 */
bool keys_is_source(enum request req);
/* Whether req is one of the keys after a (KEYMAP_TRANSFORM's). */
bool keys_is_transform(enum request req);
/*
 * Whether req does something bound in km: the picker's requests only in
 * its keymap, the transforms only after a, Sandwich's sorts not in the
 * flame panes' keymaps nor the source's, Time Order's lanes and range not
 * in Left Heavy's, Sandwich's or the source's. REQ_NONE goes anywhere.
 */
bool keys_map_has(enum keymap km, enum request req);

/* Append req's name ("zoom-reset"; "none" for REQ_NONE) to out. */
void keys_req_name(struct strbuf *out, enum request req);
/* The request named name ("none": REQ_NONE); false if there is none. */
bool keys_req_find(const char *name, enum request *out);
/* The keymap's name, and the keymap of a name (false if none). */
const char *keys_map_name(enum keymap km);
const char *keys_map_help(enum keymap km);
bool keys_map_find(const char *name, enum keymap *out);

/*
 * The key codes a key name stands for, as keys_name() writes them or as
 * tig's config does: "j", "Enter", "Ctrl-C", "^C", "<Ctrl-C>", "PgDn",
 * "F5", "Hash" ('#', which starts a comment), "wheel-up". Names of more
 * than one character ignore case. Up to max codes into out (Enter is
 * '\n', '\r' and KEY_ENTER); returns how many, 0 for an unknown name.
 */
size_t keys_parse(const char *name, int *out, size_t max);

/*
 * Append the name of key as a config file takes it back (keys_parse()):
 * keys_name() without arrows, "Hash" for '#', "wheel-up".
 */
void keys_config_name(struct strbuf *out, int key);

/* The request's help line, without the LATER mark; "" for REQ_NONE. */
const char *keys_help(enum request req);
/* True if the request is reserved for a later version. */
bool keys_is_later(enum request req);

/*
 * Append the name of key to out as a person writes it: "j", "Enter",
 * "Ctrl-C", "Up" or (utf8) an arrow, "PgDn", "click", "wheel-up".
 */
void keys_name(struct strbuf *out, int key, bool utf8);

/*
 * The help screen, from the bindings in k as they are in keymap km (the
 * pane's): append one line per table entry (a heading, or the keys of a
 * request padded to a column and its help) to out, each ending with '\n',
 * then the picker's requests, and the keys the page and source keymaps
 * bind themselves. Headings start with "# " so the pager can show them
 * bold. A request with no key says "(no key)".
 */
void keys_help_text(struct strbuf *out, const struct keys *k, enum keymap km, bool utf8);

/*
 * A status line hint: the first key of each of up to four requests, then
 * a label: "h j k l move". An item whose requests have no key is left
 * out.
 */
struct key_hint {
	enum request req[4]; /* REQ_NONE-terminated, unless all four are used */
	const char *label;
};

/* Append the hints to out, two spaces apart. */
void keys_hints(struct strbuf *out, const struct keys *k, enum keymap km,
		const struct key_hint *hints, size_t nr, bool utf8);

/* Append the name of the first key of req in km, or "(no key)" if none. */
void keys_first_name(struct strbuf *out, const struct keys *k, enum keymap km,
		     enum request req, bool utf8);

#endif /* TFLAME_KEYS_H */

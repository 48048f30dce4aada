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
 */

#include <curses.h>
#include <stdbool.h>

struct strbuf;

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
	REQ(NEXT_EVENT, "next profile (perf event), when there are several", 'e') \
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
	REQ(BACK, "zoom out one step; when not zoomed, clear the search or the marks", \
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
	REQ(CLICK, "select the box under the pointer", KEYS_CLICK) \
	REQ(CLICK_ZOOM, "zoom into the box under the pointer", KEYS_DOUBLE_CLICK) \
	REQ(WHEEL_UP, "scroll the rows up", KEYS_WHEEL_UP) \
	REQ(WHEEL_DOWN, "scroll the rows down", KEYS_WHEEL_DOWN) \
	GROUP("Showing") \
	REQ(DETAILS, "every detail of the selected frame, on a page of its own", 'd') \
	REQ(SOURCE, "the source of the selected function, each line with its self and " \
		    "total weight; n N go to the lines with weight, Esc back", 'o') \
	REQ(FLIP, "flip the flame panes: root at the top (icicle) or at the bottom", 'f') \
	REQ(COLORS, "colour boxes by function, by module, or kernel/JIT/user; neighbours " \
		    "of one colour take two shades", 'c') \
	REQ(SEARCH, "search frame names with a regular expression (PCRE2; case matters " \
		    "only if it has a capital): matches lit, the rest dimmed", '/') \
	REQ(FIND_NEXT, "select the next match (of the search, or the marked function), " \
		       "row by row", 'n') \
	REQ(FIND_PREV, "select the previous match", 'N') \
	GROUP("Sandwich") \
	REQ(SHOW_SANDWICH, "show the function of the selected box in Sandwich, and mark " \
			   "all its boxes", 's') \
	REQ(SORT_TOTAL, "sort the table by total weight (again: reverse)", 'T') \
	REQ(SORT_SELF, "sort the table by self weight (again: reverse)", 'S') \
	REQ(SORT_NAME, "sort the table by function name (again: reverse)", 'F') \
	GROUP("Other") \
	REQ(HELP, "this help; q, Esc or ? closes it", '?', KEY_F(1)) \
	REQ(REDRAW, "redraw the screen", KEYS_CTRL('l')) \
	REQ(SUSPEND, "suspend tflame (fg resumes it)", KEYS_CTRL('z')) \
	REQ(QUIT, "quit (closes this help first)", 'q') \
	REQ(INTERRUPT, "quit at once", KEYS_CTRL('c'))

#define KEYS_ENUM_GROUP_(title)
#define KEYS_ENUM_REQ_(id, help, ...) REQ_##id,
enum request {
	REQ_NONE,
	REQ_INFO(KEYS_ENUM_GROUP_, KEYS_ENUM_REQ_)
	REQ_COUNT,
};
#undef KEYS_ENUM_GROUP_
#undef KEYS_ENUM_REQ_

/* The request bound to key (a curses key code or KEYS_*), or REQ_NONE. */
enum request keys_request(int key);

/* The request's help line, without the LATER mark; "" for REQ_NONE. */
const char *keys_help(enum request req);
/* True if the request is reserved for a later version. */
bool keys_is_later(enum request req);

/*
 * Append the name of key to out as a person writes it: "j", "Enter",
 * "Ctrl-C", "Up" or (utf8) an arrow, "PgDn", "click".
 */
void keys_name(struct strbuf *out, int key, bool utf8);

/*
 * The help screen: append one line per table entry (a heading, or the
 * keys of a request padded to a column and its help) to out, each ending
 * with '\n'. Headings start with "# " so the pager can show them bold.
 */
void keys_help_text(struct strbuf *out, bool utf8);

#endif /* TFLAME_KEYS_H */

#include "config.h"

#include "tflame/conf.h"

#include "tflame/keys.h"
#include "tflame/strbuf.h"

#include "test_tmpdir.h"
#include "test_util.h"

/* Fail unless the bindings keep their invariants. */
static void
check_keys(const struct keys *k)
{
	struct tf_error err = TF_ERROR_INIT;

	if (keys_check(k, &err))
		fail_msg("keys_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

/* Parse text as file "cfg" into a fresh c; returns the number of warnings. */
static size_t
parse(struct conf *c, const char *text)
{
	conf_init(c);
	return conf_parse(c, "cfg", text, strlen(text));
}

/* ------------------------------------------------------------- good lines */

static void
test_good_lines(void **state)
{
	struct conf c;

	(void)state;
	assert_int_equal(parse(&c, "# a comment\n"
				   "\n"
				   "   bind generic x zoom-reset   # trailing comment\n"
				   "bind left-heavy <Ctrl-Y> quit\n"
				   "bind generic \"#\" help\n"
				   "bind picker 'F5' picker-apply\n"
				   "color status red default bold underline\n"
				   "color row-selected color123 17\n"
				   "set color-mode = kind\n"
				   "set orientation = flame\n"
				   "set weight = samples\n"
				   "set symbols = no\n"
				   "set demangle = no\r\n"),
			 0);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'x'), REQ_ZOOM_RESET);
	/* The default key of zoom-reset stays. */
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, '0'), REQ_ZOOM_RESET);
	assert_int_equal(keys_request(&c.keys, KEYMAP_LEFT_HEAVY, KEYS_CTRL('y')), REQ_QUIT);
	assert_int_equal(keys_request(&c.keys, KEYMAP_TIME_ORDER, KEYS_CTRL('y')), REQ_NONE);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, '#'), REQ_HELP);
	assert_int_equal(keys_request(&c.keys, KEYMAP_PICKER, KEY_F(5)), REQ_PICKER_APPLY);
	assert_true(c.colors[DISPLAY_STATUS].set);
	assert_int_equal(c.colors[DISPLAY_STATUS].fg, COLOR_RED);
	assert_int_equal(c.colors[DISPLAY_STATUS].bg, -1);
	assert_int_equal(c.colors[DISPLAY_STATUS].attr, A_BOLD | A_UNDERLINE);
	assert_int_equal(c.colors[DISPLAY_ROW_SELECTED].fg, 123);
	assert_int_equal(c.colors[DISPLAY_ROW_SELECTED].bg, 17);
	assert_false(c.colors[DISPLAY_TAB_BAR].set);
	assert_int_equal(c.color_mode, COLOR_BY_KIND);
	assert_true(c.flip);
	assert_int_equal(c.weight, WEIGHT_SAMPLES);
	assert_false(c.symbols);
	assert_false(c.demangle);
	check_keys(&c.keys);
	conf_release(&c);
}

static void
test_defaults(void **state)
{
	struct conf c;

	(void)state;
	assert_int_equal(parse(&c, ""), 0);
	assert_int_equal(c.color_mode, COLOR_BY_FUNCTION);
	assert_false(c.flip);
	assert_int_equal(c.weight, WEIGHT_DEFAULT);
	assert_true(c.symbols);
	assert_true(c.demangle);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'q'), REQ_QUIT);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, '\r'), REQ_ZOOM);
	assert_int_equal(keys_request(&c.keys, KEYMAP_PICKER, ' '), REQ_PICKER_TICK);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, ' '), REQ_PAGE_DOWN);
	check_keys(&c.keys);
	conf_release(&c);
}

/* -------------------------------------------------------------- bad lines */

static void
test_bad_lines(void **state)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "frobnicate x", "cfg:2: unknown command 'frobnicate' (valid: bind, color, set)" },
		{ "bind generic j", "cfg:2: bind takes a keymap, a key and an action: bind generic "
				    "j move-down" },
		{ "bind main j move-down", "cfg:2: unknown keymap 'main' (valid: generic, "
					   "left-heavy, time-order, sandwich, page, source, "
					   "transform, picker)" },
		{ "bind generic Foo quit", "cfg:2: unknown key 'Foo' (a character, or a name "
					   "such as Enter, Ctrl-X, F5, Hash)" },
		{ "bind generic Ctrl-1 quit", "cfg:2: unknown key 'Ctrl-1' (a character, or a "
					      "name such as Enter, Ctrl-X, F5, Hash)" },
		{ "bind generic x explode", "cfg:2: unknown action 'explode' (tflame "
					    "--dump-config lists them)" },
		{ "bind generic x picker-tick", "cfg:2: the generic keymap has no action "
						"'picker-tick' (it works in: picker)" },
		{ "bind picker x quit", "cfg:2: the picker keymap has no action 'quit' (it "
					"works in: generic, left-heavy, time-order, sandwich, "
					"page, source)" },
		/* An action the named pane does not have. */
		{ "bind left-heavy x sort-total", "cfg:2: the left-heavy keymap has no action "
						  "'sort-total' (it works in: generic, "
						  "sandwich, page)" },
		{ "bind sandwich x lane-next", "cfg:2: the sandwich keymap has no action "
					       "'lane-next' (it works in: generic, time-order, "
					       "page)" },
		{ "bind source x sort-name", "cfg:2: the source keymap has no action 'sort-name' "
					     "(it works in: generic, sandwich, page)" },
		{ "bind generic x tx-merge-function", "cfg:2: the generic keymap has no action "
						      "'tx-merge-function' (it works in: "
						      "transform)" },
		{ "bind transform x zoom", "cfg:2: the transform keymap has no action 'zoom' (it "
					   "works in: generic, left-heavy, time-order, sandwich, "
					   "page, source)" },
		{ "bind left-heavy x source-decl", "cfg:2: the left-heavy keymap has no action "
						   "'source-decl' (it works in: generic, "
						   "source)" },
		{ "bind generic 'x quit", "cfg:2: no closing '" },
		{ "color status red", "cfg:2: color takes an area, a foreground, a background "
				      "and attributes: color status white default bold" },
		{ "color statusbar red blue", "cfg:2: unknown area 'statusbar' (valid: tab-bar, "
					      "tab-active, tab-off, tab-info, status, message, "
					      "name, label, rule, merged, heading, dimmed, "
					      "match-dots, error, row-selected, row-unfocused, "
					      "grew, shrank)" },
		{ "color status pink blue", "cfg:2: unknown colour 'pink' (a name such as red, "
					    "default, or 0-255)" },
		{ "color status red 256", "cfg:2: unknown colour '256' (a name such as red, "
					  "default, or 0-255)" },
		{ "color status red blue shiny", "cfg:2: unknown attribute 'shiny' (bold, dim, "
						 "reverse, underline...)" },
		{ "set orientation flame", "cfg:2: set takes a name, '=' and a value: set "
					   "orientation = flame" },
		{ "set orientation = sideways", "cfg:2: orientation takes icicle or flame, not "
						"'sideways'" },
		{ "set color-mode = rainbow", "cfg:2: color-mode takes function, module or kind, "
					      "not 'rainbow'" },
		{ "set symbols = maybe", "cfg:2: symbols takes no or yes, not 'maybe'" },
		{ "set speed = 11", "cfg:2: unknown setting 'speed' (valid: color-mode, "
				    "orientation, weight, symbols, demangle)" },
		{ "bind generic \x1b[2J quit", "cfg:2: unknown key '\\e[2J' (a character, or "
					       "a name such as Enter, Ctrl-X, F5, Hash)" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf text = STRBUF_INIT;
		struct conf c;

		/* A good line around it: the bad one is skipped, the rest applies. */
		strbuf_addf(&text, "# first\n%s\nbind generic z quit\n", cases[i].line);
		assert_int_equal(parse(&c, text.buf), 1);
		assert_int_equal(c.nr_warnings, 1);
		assert_string_equal(c.warnings[0], cases[i].msg);
		assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'z'), REQ_QUIT);
		/* Nothing of the bad line was applied. */
		assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'x'), REQ_EXPORT);
		assert_false(c.colors[DISPLAY_STATUS].set);
		assert_false(c.flip);
		check_keys(&c.keys);
		conf_release(&c);
		strbuf_release(&text);
	}
}

static void
test_duplicate_key(void **state)
{
	struct conf c;

	(void)state;
	assert_int_equal(parse(&c, "bind generic x quit\n"
				   "bind sandwich x help\n"
				   "bind generic <x> zoom\n"
				   "bind generic Return help\n"
				   "bind generic '\n"
				   "bind generic ^M quit\n"),
			 3);
	assert_string_equal(c.warnings[0], "cfg:3: key x is bound twice in keymap generic "
					   "(line 1 too); this line wins");
	assert_string_equal(c.warnings[1], "cfg:5: no closing '");
	/* ^M is '\r', one of Enter's codes. */
	assert_string_equal(c.warnings[2], "cfg:6: key Enter is bound twice in keymap generic "
					   "(line 4 too); this line wins");
	/* The later line wins; the other keymap is not a repeat. */
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'x'), REQ_ZOOM);
	assert_int_equal(keys_request(&c.keys, KEYMAP_SANDWICH, 'x'), REQ_HELP);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, '\r'), REQ_QUIT);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, '\n'), REQ_HELP);
	check_keys(&c.keys);
	conf_release(&c);
}

/* ---------------------------------------------------------------- lookup */

static void
test_keymap_fallback(void **state)
{
	struct conf c;
	int keys[4];

	(void)state;
	assert_int_equal(parse(&c, "bind left-heavy j none\n"
				   "bind sandwich j sort-name\n"
				   "bind source q none\n"
				   "bind time-order x time-range\n"),
			 0);
	/* An action of the pane's own, bound in its keymap. */
	assert_int_equal(keys_request(&c.keys, KEYMAP_TIME_ORDER, 'x'), REQ_TIME_RANGE);
	/* none hides the generic binding in its keymap only. */
	assert_int_equal(keys_request(&c.keys, KEYMAP_LEFT_HEAVY, 'j'), REQ_NONE);
	assert_int_equal(keys_request(&c.keys, KEYMAP_LEFT_HEAVY, KEY_DOWN), REQ_MOVE_DOWN);
	assert_int_equal(keys_request(&c.keys, KEYMAP_TIME_ORDER, 'j'), REQ_MOVE_DOWN);
	assert_int_equal(keys_request(&c.keys, KEYMAP_SANDWICH, 'j'), REQ_SORT_NAME);
	assert_int_equal(keys_request(&c.keys, KEYMAP_PAGE, 'j'), REQ_MOVE_DOWN);
	assert_int_equal(keys_request(&c.keys, KEYMAP_SOURCE, 'q'), REQ_NONE);
	assert_int_equal(keys_request(&c.keys, KEYMAP_SOURCE, 'j'), REQ_MOVE_DOWN);
	/* The picker falls back to nothing: letters type into its filter. */
	assert_int_equal(keys_request(&c.keys, KEYMAP_PICKER, 'q'), REQ_NONE);
	assert_int_equal(keys_request(&c.keys, KEYMAP_PICKER, KEY_DOWN), REQ_PICKER_DOWN);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 0), REQ_NONE);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, KEYS_LIMIT), REQ_NONE);
	/* keys_of() leaves out what the keymap hides. */
	assert_int_equal(keys_of(&c.keys, KEYMAP_LEFT_HEAVY, REQ_MOVE_DOWN, keys, 4), 1);
	assert_int_equal(keys[0], KEY_DOWN);
	assert_int_equal(keys_of(&c.keys, KEYMAP_TIME_ORDER, REQ_MOVE_DOWN, keys, 4), 2);
	assert_int_equal(keys[0], 'j');
	assert_int_equal(keys_of(&c.keys, KEYMAP_SOURCE, REQ_QUIT, keys, 4), 0);
	check_keys(&c.keys);
	conf_release(&c);
}

static void
test_rebind_moves_and_orders(void **state)
{
	struct keys k;
	int keys[8];

	(void)state;
	keys_init(&k);
	/* A key bound by the user comes first, in the order bound. */
	keys_bind(&k, KEYMAP_GENERIC, 'x', REQ_QUIT);
	keys_bind(&k, KEYMAP_GENERIC, 'y', REQ_QUIT);
	assert_int_equal(keys_of(&k, KEYMAP_GENERIC, REQ_QUIT, keys, 8), 3);
	assert_int_equal(keys[0], 'x');
	assert_int_equal(keys[1], 'y');
	assert_int_equal(keys[2], 'q');
	/* Rebinding a default key takes it from its old request. */
	keys_bind(&k, KEYMAP_GENERIC, 'q', REQ_HELP);
	assert_int_equal(keys_of(&k, KEYMAP_GENERIC, REQ_QUIT, keys, 8), 2);
	assert_int_equal(keys_request(&k, KEYMAP_GENERIC, 'q'), REQ_HELP);
	/* Rebinding a user key keeps one binding. */
	keys_bind(&k, KEYMAP_GENERIC, 'x', REQ_ZOOM);
	assert_int_equal(k.maps[KEYMAP_GENERIC].nr_user, 3);
	assert_int_equal(keys_of(&k, KEYMAP_GENERIC, REQ_QUIT, keys, 8), 1);
	assert_int_equal(keys[0], 'y');
	check_keys(&k);
	keys_release(&k);
}

/* ------------------------------------------------------------ key names */

static void
test_key_names(void **state)
{
	static const struct {
		const char *name;
		int code;
	} one[] = {
		{ "j", 'j' }, { "J", 'J' }, { "Ctrl-C", 3 }, { "ctrl-c", 3 }, { "<Ctrl-C>", 3 },
		{ "^C", 3 }, { "^c", 3 }, { "Tab", '\t' }, { "<Tab>", '\t' }, { "Esc", KEYS_ESC },
		{ "escape", KEYS_ESC }, { "Up", KEY_UP }, { "PgDn", KEY_NPAGE },
		{ "PageDown", KEY_NPAGE }, { "F1", KEY_F(1) }, { "F12", KEY_F(12) },
		{ "Hash", '#' }, { "#", '#' }, { "Space", ' ' }, { "<", '<' }, { ">", '>' },
		{ "Shift-Tab", KEY_BTAB }, { "wheel-up", KEYS_WHEEL_UP }, { "click", KEYS_CLICK },
		{ "Delete", KEY_DC },
	};
	static const char *const bad[] = {
		"", "Foo", "F0", "F25", "Ctrl-", "Ctrl-12", "^1", "\xc3\xa9", "<>", "Space bar",
	};
	int codes[4];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(one); i++) {
		if (keys_parse(one[i].name, codes, 4) != 1 || codes[0] != one[i].code)
			fail_msg("key name '%s'", one[i].name);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (keys_parse(bad[i], codes, 4))
			fail_msg("bad key name '%s' parsed", bad[i]);
	assert_int_equal(keys_parse("Enter", codes, 4), 3);
	assert_int_equal(codes[0], '\n');
	assert_int_equal(codes[1], '\r');
	assert_int_equal(codes[2], KEY_ENTER);
	assert_int_equal(keys_parse("<backspace>", codes, 4), 3);
	/* Every key code's config name reads back as the same key. */
	for (int key = 1; key < KEYS_LIMIT; key++) {
		struct strbuf sb = STRBUF_INIT;
		size_t n;
		bool found = false;

		keys_config_name(&sb, key);
		n = keys_parse(sb.buf, codes, 4);
		for (size_t i = 0; i < n; i++)
			found |= codes[i] == key;
		/* Codes without a name ("key 345") are the only ones that may not. */
		if (!found && strncmp(sb.buf, "key ", 4))
			fail_msg("key %d is named '%s', which reads back otherwise", key, sb.buf);
		strbuf_release(&sb);
	}
}

static void
test_request_names(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	enum request req;

	(void)state;
	keys_req_name(&sb, REQ_ZOOM_RESET);
	assert_string_equal(sb.buf, "zoom-reset");
	assert_true(keys_req_find("move-up", &req));
	assert_int_equal(req, REQ_MOVE_UP);
	assert_true(keys_req_find("none", &req));
	assert_int_equal(req, REQ_NONE);
	assert_false(keys_req_find("MOVE-UP", &req));
	assert_false(keys_req_find("move_up", &req));
	/* Every request has a name that finds it again, and only picker-* are the picker's. */
	for (int r = REQ_NONE + 1; r < REQ_COUNT; r++) {
		strbuf_reset(&sb);
		keys_req_name(&sb, (enum request)r);
		assert_true(keys_req_find(sb.buf, &req));
		assert_int_equal(req, r);
		assert_int_equal(keys_is_picker((enum request)r), !strncmp(sb.buf, "picker-", 7));
	}
	strbuf_release(&sb);
}

/* ------------------------------------------------------------------ help */

/* The help line of a request: the line that ends with its help text. */
static const char *
help_line(const struct strbuf *help, enum request req, struct strbuf *line)
{
	const char *want = keys_help(req), *s = help->buf;

	strbuf_reset(line);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = (size_t)(nl - s), wl = strlen(want);

		if (len >= wl && !memcmp(s + len - wl, want, wl)) {
			strbuf_add(line, s, len);
			return line->buf;
		}
		s = nl + 1;
	}
	fail_msg("no help line for request %d", (int)req);
	return NULL;
}

static void
test_help_from_bindings(void **state)
{
	struct strbuf help = STRBUF_INIT, line = STRBUF_INIT;
	struct conf c;

	(void)state;
	assert_int_equal(parse(&c, "bind generic x zoom-reset\n"
				   "bind generic 0 none\n"
				   "bind generic F5 redraw\n"
				   "bind time-order Ctrl-R zoom-reset\n"
				   "bind generic s none\n"
				   "bind picker Ctrl-T picker-tick\n"
				   "bind source w move-up\n"),
			 0);
	keys_help_text(&help, &c.keys, KEYMAP_LEFT_HEAVY, false);
	assert_non_null(strstr(help_line(&help, REQ_ZOOM_RESET, &line), "  x  "));
	assert_null(strstr(line.buf, " 0 "));
	assert_non_null(strstr(help_line(&help, REQ_REDRAW, &line), "  F5 Ctrl-L  "));
	assert_non_null(strstr(help_line(&help, REQ_SHOW_SANDWICH, &line), "(no key)"));
	assert_non_null(strstr(help_line(&help, REQ_PICKER_TICK, &line),
			       "  Ctrl-T Space click double-click  "));
	/* The source keymap's own binding gets a section of its own. */
	assert_non_null(strstr(help.buf, "\n# Keys of the source page (o)\n  w "));
	assert_null(strstr(help.buf, "# Keys of the help and details pages"));
	/* In Time Order, its keymap's binding comes first. */
	strbuf_reset(&help);
	keys_help_text(&help, &c.keys, KEYMAP_TIME_ORDER, false);
	assert_non_null(strstr(help_line(&help, REQ_ZOOM_RESET, &line), "  Ctrl-R x  "));
	strbuf_release(&help);
	strbuf_release(&line);
	check_keys(&c.keys);
	conf_release(&c);
}

static void
test_hints_from_bindings(void **state)
{
	static const struct key_hint hints[] = {
		{ { REQ_HELP }, "help" },
		{ { REQ_MOVE_LEFT, REQ_MOVE_DOWN, REQ_MOVE_UP, REQ_MOVE_RIGHT }, "move" },
		{ { REQ_SHOW_SANDWICH }, "Sandwich" },
		{ { REQ_QUIT }, "quit" },
	};
	struct strbuf sb = STRBUF_INIT;
	struct conf c;

	(void)state;
	parse(&c, "");
	keys_hints(&sb, &c.keys, KEYMAP_LEFT_HEAVY, hints, ARRAY_SIZE(hints), false);
	assert_string_equal(sb.buf, "? help  h j k l move  s Sandwich  q quit");
	conf_release(&c);
	assert_int_equal(parse(&c, "bind generic F2 help\n"
				   "bind left-heavy s none\n"
				   "bind left-heavy Left move-left\n"
				   "bind generic x quit\n"),
			 0);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "prefix:");
	keys_hints(&sb, &c.keys, KEYMAP_LEFT_HEAVY, hints, ARRAY_SIZE(hints), false);
	/* An item with no key goes; the user's key comes first. */
	assert_string_equal(sb.buf, "prefix:F2 help  Left j k l move  x quit");
	strbuf_reset(&sb);
	keys_hints(&sb, &c.keys, KEYMAP_LEFT_HEAVY, hints + 1, 1, true);
	assert_string_equal(sb.buf, "\xe2\x86\x90 j k l move");
	check_keys(&c.keys);
	conf_release(&c);
	strbuf_release(&sb);
}

/* ----------------------------------------------------------------- dump */

static void
test_dump_round_trip(void **state)
{
	struct strbuf dump = STRBUF_INIT;
	struct conf def, back;

	(void)state;
	conf_dump_defaults(&dump);
	conf_init(&def);
	assert_int_equal(parse(&back, dump.buf), 0);
	for (size_t km = 0; km < KEYMAP_NR; km++)
		for (int key = 1; key < KEYS_LIMIT; key++)
			if (keys_request(&def.keys, (enum keymap)km, key) !=
			    keys_request(&back.keys, (enum keymap)km, key))
				fail_msg("keymap %s, key %d differs", keys_map_name((enum keymap)km),
					 key);
	/* The same order too: the same hints and help. */
	for (int r = REQ_NONE + 1; r < REQ_COUNT; r++) {
		int a[8], b[8];
		size_t na = keys_of(&def.keys, KEYMAP_GENERIC, (enum request)r, a, 8);
		size_t nb = keys_of(&back.keys, KEYMAP_GENERIC, (enum request)r, b, 8);

		assert_int_equal(na, nb);
		assert_memory_equal(a, b, (na < 8 ? na : 8) * sizeof(*a));
	}
	assert_int_equal(back.color_mode, def.color_mode);
	assert_int_equal(back.flip, def.flip);
	assert_int_equal(back.weight, def.weight);
	assert_int_equal(back.symbols, def.symbols);
	assert_int_equal(back.demangle, def.demangle);
	for (size_t i = 0; i < DISPLAY_NR_COLORS; i++)
		assert_true(back.colors[i].set);
	assert_non_null(strstr(dump.buf, "\nbind generic Enter zoom\n"));
	assert_non_null(strstr(dump.buf, "\nbind picker Space picker-tick\n"));
	assert_non_null(strstr(dump.buf, "\ncolor tab-active 16 214 bold\n"));
	check_keys(&back.keys);
	conf_release(&def);
	conf_release(&back);
	strbuf_release(&dump);
}

/* ---------------------------------------------------------------- files */

static void
test_load_user(void **state)
{
	struct conf c;
	const char *path;

	/* $XDG_CONFIG_HOME/tflame/config */
	path = tmpdir_path(state, "tflame");
	assert_int_equal(mkdir(path, 0700), 0);
	tmpdir_put(state, "tflame/config", "bind generic x quit\nbogus\n", 26);
	unsetenv("TFLAME_CONFIG");
	setenv("XDG_CONFIG_HOME", tmpdir_path(state, ""), 1);
	conf_init(&c);
	assert_int_equal(conf_load_user(&c), 1);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'x'), REQ_QUIT);
	assert_non_null(strstr(c.warnings[0], "/tflame/config:2: unknown command 'bogus'"));
	conf_release(&c);

	/* TFLAME_CONFIG= empty: no file at all. */
	setenv("TFLAME_CONFIG", "", 1);
	conf_init(&c);
	assert_int_equal(conf_load_user(&c), 0);
	assert_int_equal(keys_request(&c.keys, KEYMAP_GENERIC, 'x'), REQ_EXPORT);
	conf_release(&c);

	/* TFLAME_CONFIG=FILE must exist; the default one need not. */
	setenv("TFLAME_CONFIG", tmpdir_path(state, "missing"), 1);
	conf_init(&c);
	assert_int_equal(conf_load_user(&c), 1);
	assert_non_null(strstr(c.warnings[0], "/missing: cannot open the config file: No such "
					      "file or directory"));
	conf_release(&c);
	unsetenv("TFLAME_CONFIG");
	setenv("XDG_CONFIG_HOME", tmpdir_path(state, "nowhere"), 1);
	conf_init(&c);
	assert_int_equal(conf_load_user(&c), 0);
	check_keys(&c.keys);
	conf_release(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lines),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_keymap_fallback),
		cmocka_unit_test(test_rebind_moves_and_orders),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_request_names),
		cmocka_unit_test(test_help_from_bindings),
		cmocka_unit_test(test_hints_from_bindings),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test_setup_teardown(test_load_user, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

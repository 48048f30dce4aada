#include "config.h"

#include "tflame/display.h"

#include <term.h>
#include <unistd.h>

#include "tflame/error.h"

/*
 * Looked up before newterm() does it: newterm() leaks its screen when the
 * type is unknown, and accepts a type that cannot address the cursor
 * ("dumb", "unknown"), on which a full-screen program draws garbage.
 */
int
display_terminal_check(const char *term, struct tf_error *err)
{
	const char *cup;
	int found;

	if (setupterm(term, STDOUT_FILENO, &found) != OK)
		return tf_error_set(err, "cannot use terminal type '%s': %s", term,
				    found < 0 ? "no terminfo database"
					      : "not in the terminfo database");
	cup = tigetstr("cup");
	del_curterm(cur_term);
	if (!cup || cup == (const char *)-1)
		return tf_error_set(err, "cannot use terminal type '%s': it cannot move the cursor",
				    term);
	return 0;
}

bool
display_terminal_has_clipboard(void)
{
	const char *ms = tigetstr("Ms");

	return ms && ms != (const char *)-1;
}

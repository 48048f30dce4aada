#ifndef TFLAME_EXITCODE_H
#define TFLAME_EXITCODE_H

/*
 * The process's exit statuses, for the commands and the explorer alike;
 * documented in tflame(1):
 *     0  success
 *     1  bad input: unreadable, unknown format, corrupt or empty data
 *     2  bad usage: unknown option, missing or invalid argument
 *     3  fatal: out of memory
 *     4  report --diff --fail-above: a function grew past the threshold
 *   130  interrupted: the load was cancelled with Ctrl-C (128 + SIGINT)
 */

enum exit_code {
	EXIT_OK = 0,
	EXIT_INPUT = 1,
	EXIT_USAGE = 2,
	EXIT_FATAL = 3,
	EXIT_REGRESSION = 4,
	EXIT_INTERRUPTED = 130,
};

#endif /* TFLAME_EXITCODE_H */

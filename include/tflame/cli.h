#ifndef TFLAME_CLI_H
#define TFLAME_CLI_H

/*
 * The command line: parses arguments, runs a subcommand and returns the
 * process exit status:
 *   0 success, 1 bad input (unreadable, unknown format, corrupt data),
 *   2 bad usage (unknown option, missing argument), 3 fatal (out of memory).
 */

enum exit_code {
	EXIT_OK = 0,
	EXIT_INPUT = 1,
	EXIT_USAGE = 2,
	EXIT_FATAL = 3,
};

int cli_main(int argc, char **argv);

#endif /* TFLAME_CLI_H */

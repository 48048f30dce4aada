#ifndef TFLAME_CMD_H
#define TFLAME_CMD_H

/*
 * The commands main.c runs, one src/cmd_*.c each: argv[0] is the
 * command's name, and each returns the process's exit status
 * (exitcode.h). They share cli.h's helpers; none calls main.c.
 */

#include <stdbool.h>

/*
 * tflame [OPTIONS] FILE, or BASE NEW: the explorer (cmd_ui.c). diff is
 * tflame diff's, which takes two files only.
 */
int cmd_ui(int argc, char **argv, bool diff);
/* The explorer's --help text, which tflame --help prints too. */
const char *cmd_ui_usage(void);
int cmd_collapse(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* tflame __complete: the words of the shell completions (cmd_complete.c). */
int cmd_complete(int argc, char **argv);

/*
 * The getopt_long tables of the explorer and the subcommands, ended by a
 * zero entry; static, for the completions.
 */
struct option;
const struct option *cmd_ui_options(void);
const struct option *cmd_collapse_options(void);
const struct option *cmd_dump_options(void);
const struct option *cmd_export_options(void);
const struct option *cmd_report_options(void);

#endif /* TFLAME_CMD_H */

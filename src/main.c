#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/conf.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* Run the command argv[1] names, or the explorer; return the exit status. */
static int
run_command(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return cli_usage_error(NULL, "no profile given");
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(cmd_ui_usage(), stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("tflame %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--dump-config")) {
		struct strbuf sb = STRBUF_INIT;

		if (argc > 2)
			return cli_usage_error(NULL, "--dump-config takes no arguments");
		conf_dump_defaults(&sb);
		fwrite(sb.buf, 1, sb.len, stdout);
		strbuf_release(&sb);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "collapse"))
		return cmd_collapse(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "__complete"))
		return cmd_complete(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return cmd_ui(argc - 1, argv + 1, true);
	return cmd_ui(argc, argv, false);
}

int
main(int argc, char **argv)
{
	/* The main heap in huge pages (xalloc.c). */
	xheap_huge_pages();
	return run_command(argc, argv);
}

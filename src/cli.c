#include "config.h"
#include "tflame/cli.h"
int
cli_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

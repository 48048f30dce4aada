#include "config.h"

#include "tflame/cli.h"
#include "tflame/xalloc.h"

int
main(int argc, char **argv)
{
	/* The main heap in huge pages (xalloc.c). */
	xheap_huge_pages();
	return cli_main(argc, argv);
}

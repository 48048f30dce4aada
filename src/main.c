#include "config.h"

#include "tflame/cli.h"
#include "tflame/xalloc.h"

int
main(int argc, char **argv)
{
	/* Before any thread: the main heap, and the size of the threads' heaps. */
	xheap_huge_pages();
	return cli_main(argc, argv);
}

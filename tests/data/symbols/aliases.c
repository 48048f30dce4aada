/*
 * prog.c with aliases and symbols of no size, for the ELF symbol index:
 * built with -rdynamic and stripped into "stripped" (see README), so that
 * only .dynsym names them. tests/unit/test_symbols.c reads the addresses
 * off that file.
 */
#include "prog.c"

/* A weak alias of outer(): outer, GLOBAL, is the name shown. */
extern __typeof(outer) outer_weak __attribute__((weak, alias("outer")));

/* A weak function with a GLOBAL alias: the alias is the name shown. */
__attribute__((weak, noinline)) unsigned long
weak_fn(unsigned long x)
{
	return x * 7 + sink;
}
extern __typeof(weak_fn) strong_name __attribute__((alias("weak_fn")));

/*
 * Assembly symbols with no size: nosize_fn reaches to the next symbol,
 * tail_fn alone in its section only to the section's end.
 */
__asm__(".text\n"
	".globl nosize_fn\n"
	".type nosize_fn, @function\n"
	"nosize_fn:\n"
	"\tret\n"
	".section .text_tail, \"ax\", @progbits\n"
	".globl tail_fn\n"
	".type tail_fn, @function\n"
	"tail_fn:\n"
	"\tret\n"
	".text\n");

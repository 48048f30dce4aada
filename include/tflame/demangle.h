#ifndef TFLAME_DEMANGLE_H
#define TFLAME_DEMANGLE_H

/*
 * Demangling: C++ (Itanium ABI, "_Z...") and Rust (legacy "_ZN...E" and
 * v0 "_R...") symbol names made readable with libiberty, the demangler of
 * binutils, gdb and perf.
 *
 * What is recognised:
 *  - "_Z..." C++ and "_ZN...17h<16 hex>E" legacy Rust (the hash is dropped,
 *    as libiberty does unless asked to be verbose), and "_R..." Rust v0
 *    (crate disambiguators dropped likewise): what `perf report` shows,
 *    "busy::spin" and "busy::spin::<u64>";
 *  - the same with the extra leading underscore of Mach-O ("__Z...",
 *    "__R..."), which macOS tools sometimes leave in;
 *  - a symbol version or PLT suffix from the first '@' on ("@plt",
 *    "@@GLIBC_2.2.5"): the part before it is demangled and the suffix is
 *    put back verbatim, as binutils' bfd_demangle() does ("foo(int)@plt");
 *  - GCC clone suffixes (".cold", ".isra.0", ".constprop.0", ".part.0",
 *    ".lto_priv.0") on C++ names, shown in libiberty's words
 *    ("foo(int) [clone .cold]"). libiberty's form without parameters drops
 *    them, and so does `perf report`; we keep them ("foo [clone .cold]"),
 *    so that the cold part or a specialised copy of a function stays a
 *    frame of its own;
 *  - Rust's ".llvm.<digits>" suffix, which libiberty drops.
 *
 * A name is demangled only if libiberty parses all of it with parameters:
 * its form without parameters checks nothing after the function name, so
 * "_Z3foo!!" would otherwise pass for "foo". Anything else ("main",
 * "_start", "_Zfoo", an empty name) is left alone.
 *
 * Hostile names are bounded three ways. Names over DEMANGLE_MAX_NAME bytes
 * are not tried. libiberty keeps its default recursion limit (we never pass
 * DMGL_NO_RECURSE_LIMIT), which also makes it refuse any C++ name of about
 * 1 KiB or more: it sizes tables on the stack by the name's length. And
 * since back-references let a few hundred bytes ask for gigabytes of
 * output, a demangling that would print more than DEMANGLE_MAX_OUT bytes is
 * cut short and the name left alone.
 *
 * Nothing here keeps state between calls: it is safe from any thread.
 */

#include <stdbool.h>
#include <stddef.h>

struct strbuf;
struct profile_set;

/* Longest name demangle_name() tries. */
#define DEMANGLE_MAX_NAME ((size_t)64 * 1024)
/* Longest demangled form it produces; longer ones leave the name alone. */
#define DEMANGLE_MAX_OUT ((size_t)256 * 1024)

enum demangle_flags {
	/*
	 * Show C++ parameter lists, cv-qualifiers and template return types,
	 * as `addr2line -C` and `c++filt` do: "int max<int>(int, int)",
	 * "A::get() const". Without it, the name alone, as `perf report`
	 * prints it by default: "max<int>", "A::get". Rust symbols carry no
	 * parameters and look the same either way.
	 */
	DEMANGLE_PARAMS = 1 << 0,
};

/*
 * True when name (len bytes, not necessarily NUL-terminated) starts like a
 * mangled name this module knows ("_Z", "_R", "__Z", "__R"): a cheap test
 * to skip the names that cannot demangle. demangle_name() may still say
 * no.
 */
bool demangle_maybe_mangled(const char *name, size_t len);

/*
 * Demangle name (len bytes, not necessarily NUL-terminated; a NUL inside
 * it makes it not mangled). flags are enum demangle_flags. Returns true
 * and appends the demangled form to out when name is a mangled name that
 * libiberty accepts; otherwise returns false and leaves out as it was.
 * Never fails otherwise: out-of-memory dies, as everywhere.
 */
bool demangle_name(const char *name, size_t len, unsigned flags, struct strbuf *out);

/*
 * Give every frame of ps whose name demangles the demangled name, in the
 * form without parameters, through profile_set_rewrite(): each frame
 * becomes one frame with the new name and everything else kept, and frames
 * that become equal are merged (two overloads of a C++ function in one
 * module become one frame, as they are one function in `perf report`).
 * The demangled names are added to ps's strings; the old ones stay.
 *
 * When no frame name looks mangled (one pass over the frames) or none
 * demangles, ps is left untouched: no frame or stack id changes. Otherwise
 * frame and stack ids change as profile_set_rewrite() says, and the source
 * positions it drops are gone: run this before anything adds them.
 */
void profile_set_demangle(struct profile_set *ps);

#endif /* TFLAME_DEMANGLE_H */

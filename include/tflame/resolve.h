#ifndef TFLAME_RESOLVE_H
#define TFLAME_RESOLVE_H

/*
 * Symbolizing a loaded profile: the frames a perf import kept addresses
 * for (import_options.symbols = SYMBOLS_RESOLVE) become what the module's
 * ELF and DWARF say is there (symbols.h):
 *  - the function, named as the module's DWARF (or ELF symbols) name it,
 *    which also names perf's [unknown] frames;
 *  - the functions inlined at that address, innermost last, as frames of
 *    their own flagged FRAME_INLINED (perf's own "(inlined)" frames for the
 *    same address are dropped: the chain says it again);
 *  - on every such frame, the file and line where the function is defined
 *    (FRAME_HAS_LINE);
 *  - for every sample, source positions (profile.h): the line each frame
 *    of its stack was executing, or calling from.
 *
 * A caller's frame holds a return address: it is looked up one byte back,
 * inside the call, as perf report and pprof do. Frames no module answers
 * for keep perf's name; one warning on the set says how many addresses and
 * modules could not be resolved. Afterwards no frame carries an address.
 */

struct profile_set;

/*
 * Resolve ps's addressed frames in place, with one symbolizer (one module
 * opened once, each address asked once). Returns how many distinct
 * addresses were resolved.
 */
unsigned long profile_set_symbolize(struct profile_set *ps);

#endif /* TFLAME_RESOLVE_H */

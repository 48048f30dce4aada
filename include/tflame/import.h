#ifndef TFLAME_IMPORT_H
#define TFLAME_IMPORT_H

/*
 * Importers: one per input format, each in src/import/<name>.c, listed in a
 * registry that probes the start of the content to pick one.
 *
 * An importer reads a struct input and calls the builder (builder.h) on a
 * profile set; it never prints, exits or touches the terminal. A fatal
 * problem is returned as -1 with err set as "line: message" (the caller
 * adds the file name); problems it can skip are counted and reported once
 * with profile_set_warn(), naming the first line they were seen on.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct input;
struct profile_set;
struct tf_error;

enum weight_mode {
	WEIGHT_DEFAULT, /* what the format says: perf's period, folded counts */
	WEIGHT_SAMPLES, /* every sample weighs 1 */
};

/*
 * Shared with a thread that shows progress: importers add the bytes they
 * have parsed to bytes_done and stop with "cancelled" when cancel is set.
 */
enum import_phase {
	IMPORT_READING,   /* parsing the input: bytes_done grows */
	IMPORT_SYMBOLS,   /* resolving symbols (import_file()) */
};

struct import_progress {
	_Atomic uint64_t bytes_done;
	_Atomic int cancel;
	_Atomic int phase; /* enum import_phase */
	/*
	 * IMPORT_SYMBOLS: units of work done of work_total (0 while not
	 * known), for a percentage; the units mean nothing else.
	 */
	_Atomic uint64_t work_done, work_total;
};

/* What the perf importer does with the addresses of frames. */
enum symbol_mode {
	SYMBOLS_OFF,     /* drop them: frames are perf's names */
	/*
	 * Keep the address of every frame in a readable ELF file (not kernel,
	 * not JIT) and, once loaded, resolve them with libdw: names for
	 * perf's [unknown] (FRAME_UNNAMED), inline chains as frames of
	 * their own, file:line and source positions (resolve.h).
	 * import_file() does this. Unless symbols_later, an importer's load
	 * may leave loose stacks (profile.h), which the resolving interns.
	 */
	SYMBOLS_RESOLVE,
	/*
	 * Keep the address as printed of every frame whose module is what
	 * stackcollapse-perf.pl's --inline hands to addr2line; resolve
	 * nothing (collapse --inline does it as it writes).
	 */
	SYMBOLS_KEEP,
};

struct import_options {
	enum weight_mode weight;
	enum symbol_mode symbols;
	/* demangle C++ and Rust names once loaded (import_file()) */
	bool demangle;
	/*
	 * SYMBOLS_RESOLVE: import_file() leaves the addresses, and the
	 * demangling, to the caller, which resolves them when it likes
	 * (symbols_job_new(), resolve.h): the explorer shows perf's names
	 * first.
	 */
	bool symbols_later;
	/* say more about what was found: which frames a module check rejected */
	bool verbose;
	/*
	 * SYMBOLS_RESOLVE for a caller that shows no source lines: no line
	 * tables are read (the costliest part of DWARF), so no source
	 * positions; names, inline frames and file:line of functions stay.
	 */
	bool no_lines;
	/*
	 * perf: tell apart by address the frames perf could not name
	 * (FRAME_UNNAMED, perf's "[unknown]"): one of a known module is
	 * named "[libfoo.so+0x1a2b]" rather than "[libfoo.so]", one of no
	 * known module stays "[unknown]". With collapse_compat every such
	 * frame also keeps the address itself, for collapse --addrs.
	 */
	bool keep_unknown_addrs;
	/*
	 * perf: read sample headers the way stackcollapse-perf.pl does (see
	 * collapse.h): a header whose event part it cannot read goes to a
	 * profile named "" with weight 1.
	 */
	bool collapse_compat;
	/*
	 * An input with nothing to read, empty or only blank lines and '#'
	 * comments (perf script's header), loads as a set with no profile
	 * and a warning rather than failing: collapse, as
	 * stackcollapse-perf.pl writes nothing for it and succeeds.
	 */
	bool allow_empty;
	/* parser threads; 0 means one per online CPU */
	int threads;
	/*
	 * perf: the least bytes of a range of a parallel load, 0 for the
	 * default (32 MiB), which cuts a file under 128 MiB in one range a
	 * thread; tests set less, to cut small files in many ranges.
	 */
	uint64_t range_bytes;
	/*
	 * Keep at most this many samples (0: all), the first ones in the
	 * file, and warn once if there were more (builder.h).
	 */
	uint64_t max_samples;
	/* may be NULL */
	struct import_progress *progress;
};

struct importer {
	const char *name;        /* the --format value: "perf", "folded" */
	const char *description; /* for messages and report: "perf script" */
	/*
	 * How sure it is that data (the first len bytes of the input, which
	 * may end mid-line) is this format: 0 no, 100 certain.
	 */
	int (*probe)(const char *data, size_t len);
	/* Read all of in into ps. Returns 0, or -1 with err set. */
	int (*load)(struct input *in, const struct import_options *opts,
		    struct profile_set *ps, struct tf_error *err);
	/*
	 * File names the format's writers give (NULL-terminated, or NULL):
	 * an ending such as ".jfr", or a beginning ending in '*' such as
	 * "callgrind.out*", matched on the base name without a ".gz" or
	 * ".zst". The content decides; a name only adds to a probe that saw
	 * something (import_file()).
	 */
	const char *const *names;
};

/* Each importer, defined in src/import/<name>.c. */
extern const struct importer importer_perf;
extern const struct importer importer_folded;
extern const struct importer importer_pprof;
extern const struct importer importer_callgrind;
extern const struct importer importer_speedscope;
extern const struct importer importer_chrome;
extern const struct importer importer_cprofile;
extern const struct importer importer_perfdata;
extern const struct importer importer_jfr;
extern const struct importer importer_gecko;
extern const struct importer importer_safari;
extern const struct importer importer_instruments;
extern const struct importer importer_pmcstat;
extern const struct importer importer_papyrus;
extern const struct importer importer_stackprof;
extern const struct importer importer_heapprofile;
extern const struct importer importer_ghc;
extern const struct importer importer_v8log;

/*
 * The text importers' parsers on their own, for the unit tests and for
 * callers that already have lines (lines.h): they read every line of lr
 * into ps, exactly as load() does for a whole file, on one thread.
 */
struct line_reader;
int perf_parse_lines(struct line_reader *lr, const struct import_options *opts,
		     struct profile_set *ps, struct tf_error *err);
int folded_parse_lines(struct line_reader *lr, const struct import_options *opts,
		       struct profile_set *ps, struct tf_error *err);

/*
 * The cProfile importer on a whole pstats file in memory (len bytes at
 * data, which need not be NUL-terminated): for the unit tests and the
 * fuzzer. Errors name the byte offset they are about.
 */
int cprofile_parse(const char *data, size_t len, const struct import_options *opts,
		   struct profile_set *ps, struct tf_error *err);

/*
 * The JSON importers' parsers on their own, for the unit tests: they read
 * the document of jr (json_reader.h) into ps, exactly as load() does.
 */
struct json_reader;
int speedscope_parse(struct json_reader *jr, const struct import_options *opts,
		     struct profile_set *ps, struct tf_error *err);
int chrome_parse(struct json_reader *jr, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err);
int gecko_parse(struct json_reader *jr, const struct import_options *opts,
		struct profile_set *ps, struct tf_error *err);
int safari_parse(struct json_reader *jr, const struct import_options *opts,
		 struct profile_set *ps, struct tf_error *err);
int stackprof_parse(struct json_reader *jr, const struct import_options *opts,
		    struct profile_set *ps, struct tf_error *err);
int heapprofile_parse(struct json_reader *jr, const struct import_options *opts,
		      struct profile_set *ps, struct tf_error *err);
int ghc_parse(struct json_reader *jr, const struct import_options *opts,
	      struct profile_set *ps, struct tf_error *err);
int v8log_parse(struct json_reader *jr, const struct import_options *opts,
		struct profile_set *ps, struct tf_error *err);

int callgrind_parse_lines(struct line_reader *lr, const struct import_options *opts,
			  struct profile_set *ps, struct tf_error *err);
int instruments_parse_lines(struct line_reader *lr, const struct import_options *opts,
			    struct profile_set *ps, struct tf_error *err);
int pmcstat_parse_lines(struct line_reader *lr, const struct import_options *opts,
			struct profile_set *ps, struct tf_error *err);
int papyrus_parse_lines(struct line_reader *lr, const struct import_options *opts,
			struct profile_set *ps, struct tf_error *err);

/*
 * The pprof decoder on its own, for the unit tests: reads the protobuf
 * Profile in data (not gzipped) into ps, as load() does.
 */
int pprof_parse_buffer(const void *data, size_t len, const struct import_options *opts,
		       struct profile_set *ps, struct tf_error *err);

/*
 * The JFR decoder on its own, for the unit tests and the fuzzer: reads
 * the recording in data (len bytes, every chunk) into ps, as load() does.
 * Errors name the byte offset they are about.
 */
int jfr_parse_buffer(const void *data, size_t len, const struct import_options *opts,
		     struct profile_set *ps, struct tf_error *err);

/* The importers, NULL-terminated, in probing order. */
extern const struct importer *const importers[];

struct strbuf;
/*
 * Append "a, b, c": every importer's --format name (names true) or
 * description (false), in probing order, for messages.
 */
void importer_list_names(struct strbuf *sb, bool names);

/* The importer called name, or NULL. */
const struct importer *importer_find(const char *name);

/*
 * Open path ("-" for stdin), pick the importer (format NULL: probe the
 * content; else the importer of that name) and load it. On success *out is
 * a new profile set (free with profile_set_free()) with at least one
 * sample. On failure returns -1 with err naming the file, and, for an
 * unknown format, the formats that were tried.
 */
int import_file(const char *path, const char *format, const struct import_options *opts,
		struct profile_set **out, struct tf_error *err);

/*
 * What a file that no importer reads looks like, for the error: the
 * name of a profile format tflame does not read ("a Firefox Profiler
 * profile") whose signature data (the probe window) has, or NULL. *hint
 * is set to a way to a format tflame reads, or NULL. Static strings.
 */
const char *import_foreign_format(const char *data, size_t len, const char **hint);
/* The same for a directory: an Instruments .trace bundle, or NULL. */
const char *import_foreign_dir(const char *path);

/* How many bytes of the input the registry peeks at to probe. */
#define IMPORT_PROBE_BYTES (64 * 1024)

#endif /* TFLAME_IMPORT_H */

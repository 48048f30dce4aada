#ifndef TFLAME_PERFDATA_READ_H
#define TFLAME_PERFDATA_READ_H

/*
 * perf.data read natively: the file `perf record` writes (and the pipe
 * format of `perf record -o -`) decoded without the perf binary.
 *
 * What it reads: the header, the event attributes with their ids, the
 * feature sections that say where the recording comes from (build ids,
 * event names, hostname, os release, perf version, arch, cpus, command
 * line), and the records: MMAP/MMAP2 (per-process address spaces, which
 * FORK copies; an exec keeps them, as perf does, until the new
 * program's mappings replace them), COMM, FORK, EXIT, SAMPLE (every
 * sample_type field perf writes, in the kernel's order), LOST and
 * LOST_SAMPLES (counted; a warning says how many), THROTTLE/UNTHROTTLE
 * (counted), KSYMBOL, COMPRESSED (`perf record -z`, zstd), and in the pipe
 * format the HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA,
 * HEADER_BUILD_ID and HEADER_FEATURE records. Every other record is
 * skipped by its size; AUX traces are named in a warning.
 *
 * Order: records are delivered as perf's ordered_events delivers them. A
 * timed record waits in a queue; at each FINISHED_ROUND, everything up to
 * the highest time seen before the previous FINISHED_ROUND leaves the
 * queue in (time, arrival) order, and the rest at the end. So a sample's
 * comm and mappings are the ones perf would give it.
 *
 * Stacks: frame-pointer callchains with perf's context markers. A user
 * address is looked up in its process's mappings and becomes the module's
 * path with perf's map-relative address (ip - start + pgoff, what `perf
 * script` prints and symbols.h takes); a kernel address goes to
 * [kernel.kallsyms] or to its module. Names are perf's: a user frame's
 * from its module's ELF symbol table (symbolizer_set_dwarf(): perf's
 * choice among aliases, "name@plt" for PLT entries), a kernel frame's from
 * /proc/kallsyms when the recording is of the running kernel (its build
 * id, or its release, matches); a frame no symbol covers is named after
 * its module, "[libfoo.so]", as the perf script importer names perf's
 * [unknown]. With import_options.symbols == SYMBOLS_RESOLVE the frames
 * also keep their addresses (callers flagged FRAME_RETADDR) for the
 * symbolizer, exactly as the perf script importer leaves them. The user
 * registers and stack copy of `--call-graph dwarf` samples are parsed and
 * checked but not unwound yet: such a sample keeps its kernel frames and
 * the user leaf its registers name.
 *
 * Output: one profile per event that has samples, named as perf report
 * names it ("cycles", "cpu-clock:ppp", "sched:sched_switch"), with each
 * sample's pid, tid, comm, time and period; stacks under a process frame
 * when more than one process has samples, as the perf script importer
 * does.
 *
 * Trust: no size, count or offset of the file is believed before it is
 * checked against what holds it. A broken file is an error naming the
 * byte offset and what is wrong ("byte 4120: record of 3 bytes"); a file
 * cut short keeps the records before the cut, with a warning; a record
 * whose fields do not fit is skipped and counted in a warning.
 *
 * Not read: perf.data from a machine of the other byte order (an error
 * says so), the directory format (`perf record --threads`).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct import_options;
struct profile_set;
struct tf_error;

/* An event of the recording (an attribute of the header or the pipe). */
struct perfdata_event {
	char *name;           /* as perf report names it; owned */
	uint32_t type;        /* perf_event_attr.type */
	uint64_t config;
	uint64_t sample_type; /* PERF_SAMPLE_* bits */
	uint64_t nr_ids;      /* ids that name it in records */
	uint64_t nr_samples;  /* samples read (kept or not) */
};

/* A build id of the HEADER_BUILD_ID section or record. */
struct perfdata_build_id {
	int32_t pid;       /* -1 for the kernel and its modules */
	bool kernel;       /* recorded as kernel code */
	uint8_t size;      /* bytes of id used, up to 20 */
	uint8_t id[20];
	char *path;        /* owned */
};

/* What a read found beside the samples, for tests and for `report`'s header. */
struct perfdata_info {
	bool pipe;                 /* the pipe format of `perf record -o -` */
	char *hostname, *os_release, *version, *arch, *cpudesc; /* or NULL; owned */
	char *cmdline;             /* its words joined by spaces, or NULL; owned */
	uint32_t nr_cpus_online, nr_cpus_avail;
	struct perfdata_event *events;
	size_t nr_events;
	struct perfdata_build_id *build_ids;
	size_t nr_build_ids;

	uint64_t records;          /* records read, compressed ones' inner ones included */
	uint64_t samples;          /* SAMPLE records read */
	uint64_t lost;             /* events lost (LOST records' counts) */
	uint64_t lost_samples;     /* LOST_SAMPLES records' counts */
	uint64_t throttles, unthrottles;
	uint64_t compressed;       /* COMPRESSED records */
	uint64_t unordered;        /* records older than what was delivered already */
	uint64_t aux;              /* AUX and AUXTRACE records (not decoded) */
	uint64_t bad;              /* records skipped because their fields did not fit */
	uint64_t dwarf_samples;    /* samples with a user stack copy (not unwound yet) */
	bool cut;                  /* the file ended inside a record or section */
};

/*
 * Read the perf.data in data (len bytes, file or pipe format, not
 * compressed) into ps: samples through the builder (builder.h), warnings
 * with profile_set_warn(). info (may be NULL) is filled with what the file
 * says; release it with perfdata_info_release() whatever is returned. name
 * is only for messages (may be NULL). Returns 0, or -1 with err set to
 * "byte N: problem" for a file it cannot read.
 */
int perfdata_read_buffer(const void *data, size_t len, const struct import_options *opts,
			 struct profile_set *ps, struct perfdata_info *info,
			 struct tf_error *err);

/* Free what info owns and zero it. NULL is allowed. */
void perfdata_info_release(struct perfdata_info *info);

/*
 * Whether the native reader is asked for (TFLAME_PERFDATA=native in the
 * environment) rather than `perf script`, today's default.
 */
bool perfdata_native_wanted(void);

/*
 * The importer: "perf.data-native", not probed (it is not in importers[]);
 * import_file() uses it for a perf.data when perfdata_native_wanted(), and
 * --format=perf.data-native asks for it by name.
 */
struct importer;
extern const struct importer importer_perfdata_native;

#endif /* TFLAME_PERFDATA_READ_H */

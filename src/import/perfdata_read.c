#include "config.h"

#include "tflame/perfdata_read.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "tflame/builder.h"
#include "tflame/error.h"
#include "tflame/hash.h"
#include "tflame/import.h"
#include "tflame/input.h"
#include "tflame/profile.h"
#include "tflame/strbuf.h"
#include "tflame/symbols.h"
#include "tflame/xalloc.h"

/*
 * The layout facts below are perf's (tools/perf/Documentation/
 * perf.data-file-format.txt) and the kernel's (include/uapi/linux/
 * perf_event.h). Every number read from the file is little-endian; the
 * file is read in place (mapped, or in one buffer), with memcpy() for
 * every field, so nothing depends on alignment.
 */

/* perf_event_header.type: the kernel's records */
enum {
	REC_MMAP = 1,
	REC_LOST = 2,
	REC_COMM = 3,
	REC_EXIT = 4,
	REC_THROTTLE = 5,
	REC_UNTHROTTLE = 6,
	REC_FORK = 7,
	REC_READ = 8,
	REC_SAMPLE = 9,
	REC_MMAP2 = 10,
	REC_AUX = 11,
	REC_LOST_SAMPLES = 13,
	REC_KSYMBOL = 17,
	REC_KERNEL_MAX = 64,
};

/* perf_event_header.type: perf's own records */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_EVENT_TYPE = 65,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* perf_event_attr.sample_type */
enum {
	S_IP = 1 << 0,
	S_TID = 1 << 1,
	S_TIME = 1 << 2,
	S_ADDR = 1 << 3,
	S_READ = 1 << 4,
	S_CALLCHAIN = 1 << 5,
	S_ID = 1 << 6,
	S_CPU = 1 << 7,
	S_PERIOD = 1 << 8,
	S_STREAM_ID = 1 << 9,
	S_RAW = 1 << 10,
	S_BRANCH_STACK = 1 << 11,
	S_REGS_USER = 1 << 12,
	S_STACK_USER = 1 << 13,
	S_WEIGHT = 1 << 14,
	S_DATA_SRC = 1 << 15,
	S_IDENTIFIER = 1 << 16,
	S_TRANSACTION = 1 << 17,
	S_REGS_INTR = 1 << 18,
	S_PHYS_ADDR = 1 << 19,
	S_AUX = 1 << 20,
	S_CGROUP = 1 << 21,
	S_DATA_PAGE_SIZE = 1 << 22,
	S_CODE_PAGE_SIZE = 1 << 23,
	S_WEIGHT_STRUCT = 1 << 24,
};

/* perf_event_attr.read_format */
enum {
	RF_TOTAL_TIME_ENABLED = 1 << 0,
	RF_TOTAL_TIME_RUNNING = 1 << 1,
	RF_ID = 1 << 2,
	RF_GROUP = 1 << 3,
	RF_LOST = 1 << 4,
};

/* The bit of perf_event_attr's flags word for sample_id_all. */
#define ATTR_SAMPLE_ID_ALL ((uint64_t)1 << 18)
/* branch_sample_type: each branch stack starts with hw_idx */
#define BRANCH_HW_INDEX ((uint64_t)1 << 17)

/* perf_event_header.misc */
#define MISC_CPUMODE_MASK 7
#define MISC_KERNEL 1
#define MISC_USER 2
#define MISC_HYPERVISOR 3
#define MISC_GUEST_KERNEL 4
#define MISC_GUEST_USER 5
#define MISC_MMAP_DATA (1 << 13)
#define MISC_MMAP_BUILD_ID (1 << 14)

/* Callchain context markers, all >= (u64)-4095. */
#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)
#define CONTEXT_GUEST ((uint64_t)-2048)
#define CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define CONTEXT_GUEST_USER ((uint64_t)-2560)
#define CONTEXT_MAX ((uint64_t)-4095)

/* Feature bits of the header (HEADER_*), those read here. */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_BITS = 256,
};

#define FILE_HEADER_SIZE 104 /* struct perf_file_header */
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0 64    /* the first perf_event_attr */
#define BUILD_ID_FILENAME 36 /* offset of the file name in a build id record */
/* perf's name of the kernel's own mapping */
#define KERNEL_MODULE "[kernel.kallsyms]"

/* ------------------------------------------------------------ reading */

static inline uint16_t
get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t
get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A bounded cursor over the bytes of one record or section. */
struct cursor {
	const uint8_t *p, *end;
	bool bad; /* a read ran past end: every later read gives 0 */
};

static inline bool
cur_has(struct cursor *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return false;
	}
	return true;
}

static inline uint64_t
cur64(struct cursor *c)
{
	uint64_t v;

	if (!cur_has(c, 8))
		return 0;
	v = get64(c->p);
	c->p += 8;
	return v;
}

static inline uint32_t
cur32(struct cursor *c)
{
	uint32_t v;

	if (!cur_has(c, 4))
		return 0;
	v = get32(c->p);
	c->p += 4;
	return v;
}

static inline const uint8_t *
cur_skip(struct cursor *c, uint64_t n)
{
	const uint8_t *at = c->p;

	if (!cur_has(c, n))
		return NULL;
	c->p += n;
	return at;
}

/* A new NUL-terminated copy of the n bytes at p. */
static char *
dupz(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* A perf_header_string (u32 length, then that many bytes): a new string, or NULL. */
static char *
cur_string(struct cursor *c)
{
	uint32_t len = cur32(c);
	const uint8_t *s = cur_skip(c, len);

	if (!s)
		return NULL;
	return dupz(s, strnlen((const char *)s, len));
}

/* ------------------------------------------------------------ the reader */

struct pd_attr {
	uint32_t type;
	uint64_t config, sample_type, read_format, flags, branch_sample_type;
	uint64_t regs_user, regs_intr; /* register masks */
	uint32_t nr_regs_user, nr_regs_intr;
	char *name;                    /* or NULL until known; owned */
	struct profile *profile;       /* at its first sample */
	uint64_t nr_samples;
	uint64_t nr_ids;
};

/* An open-addressing map from u64 to u32, for ids, tids and pids. */
struct u64map {
	uint64_t *keys;
	uint32_t *vals; /* value + 1; 0 for an empty slot */
	uint32_t mask, nr;
};

static void
u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static uint32_t *
u64map_slot(struct u64map *m, uint64_t key, bool add);

static void
u64map_grow(struct u64map *m)
{
	struct u64map old = *m;
	uint32_t n = old.mask ? (old.mask + 1) * 2 : 64;

	m->keys = xcalloc(n, sizeof(*m->keys));
	m->vals = xcalloc(n, sizeof(*m->vals));
	m->mask = n - 1;
	m->nr = 0;
	for (uint32_t i = 0; old.mask && i <= old.mask; i++)
		if (old.vals[i])
			*u64map_slot(m, old.keys[i], true) = old.vals[i];
	free(old.keys);
	free(old.vals);
}

/* The slot of key (add: made if missing, holding 0), or NULL. */
static uint32_t *
u64map_slot(struct u64map *m, uint64_t key, bool add)
{
	uint32_t i;

	if (!m->mask) {
		if (!add)
			return NULL;
		u64map_grow(m);
	}
	for (i = (uint32_t)hash_u64(key) & m->mask;; i = (i + 1) & m->mask) {
		if (!m->vals[i])
			break;
		if (m->keys[i] == key)
			return &m->vals[i];
	}
	if (!add)
		return NULL;
	if ((m->nr + 1) * 2 > m->mask + 1) {
		u64map_grow(m);
		return u64map_slot(m, key, true);
	}
	m->nr++;
	m->keys[i] = key;
	return &m->vals[i];
}

/* The value of key, or UINT32_MAX. */
static inline uint32_t
u64map_get(struct u64map *m, uint64_t key)
{
	uint32_t *s = u64map_slot(m, key, false);

	return s && *s ? *s - 1 : UINT32_MAX;
}

static inline void
u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	*u64map_slot(m, key, true) = val + 1;
}

/* A module: a mapped file (or perf's bracketed name for one). */
struct pd_module {
	str_id path;     /* as perf names it: the file, "[kernel.kallsyms]", "[xfs]" */
	str_id unnamed;  /* its frames' name where no symbol covers them */
	uint32_t flags;  /* FRAME_KERNEL, FRAME_JIT */
	bool is_file;    /* a path to an ELF file to read symbols from */
	int8_t keep;     /* SYMBOLS_RESOLVE: 0 none, 1 unnamed frames' addresses, 2 all; -1 unknown */
};

struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t module;
};

/* The address space of a process (or the kernel's, pid -1). */
struct pd_space {
	struct pd_map *maps; /* sorted by start, not overlapping */
	size_t nr, alloc;
	size_t last;         /* the map the last lookup found */
};

struct pd_thread {
	int64_t pid;
	str_id comm; /* STR_EMPTY until known */
};

/* A record waiting in the queue for its turn (struct reader.queue). */
struct pd_event {
	uint64_t time, seq;
	const uint8_t *rec;
	uint32_t buf;  /* the decompressed buffer holding it, or UINT32_MAX */
	uint32_t attr;
};

/* Bytes of COMPRESSED records' inner records (refcounted by the queue). */
struct pd_buf {
	uint8_t *data;
	size_t len;
	uint32_t refs;
};

/* A cached frame: (module, address, caller or not) -> frame. */
struct pd_fkey {
	uint64_t addr;
	uint32_t module; /* module index * 2 + is a caller */
	frame_id frame;  /* FRAME_NONE: empty slot */
};

/* A kernel symbol of /proc/kallsyms. */
struct pd_ksym {
	uint64_t addr;
	uint32_t name;  /* offset in kallsyms.names, in the file's order */
};

/*
 * The running kernel's symbols, for kernel frames of a recording of this
 * very kernel (its build id, or without one its release, matches).
 */
struct pd_kallsyms {
	bool tried;            /* loaded (or found unusable) already */
	struct pd_ksym *syms;  /* by address, one per address (perf's alias) */
	size_t nr, alloc;
	struct strbuf names;
};

struct reader {
	const uint8_t *base; /* the whole file */
	size_t len;
	const struct import_options *opts;
	struct profile_set *ps;
	struct perfdata_info *info;
	struct tf_error *err;
	struct builder b;
	struct symbolizer *sym;
	struct strbuf sb;

	struct pd_attr *attrs;
	size_t nr_attrs, alloc_attrs;
	struct u64map ids;        /* sample id -> attr */

	struct pd_module *modules;
	size_t nr_modules, alloc_modules;
	struct u64map module_of;  /* path str_id -> module */
	struct pd_space *spaces;  /* [0] the kernel's */
	size_t nr_spaces, alloc_spaces;
	struct u64map space_of;   /* pid -> space */
	struct pd_thread *threads;
	size_t nr_threads, alloc_threads;
	struct u64map thread_of;  /* tid -> thread */

	struct pd_fkey *fcache;
	uint32_t fcache_mask, fcache_nr;
	struct pd_kallsyms ksyms;
	uint32_t unknown_module;  /* "[unknown]" */
	uint32_t kernel_module;   /* "[kernel.kallsyms]" */

	struct pd_event *queue;
	size_t nr_queue, alloc_queue;
	uint64_t seq, max_time, next_flush, last_flush;
	struct pd_buf *bufs;
	size_t nr_bufs, alloc_bufs;
	ZSTD_DCtx *zd;
	uint8_t *leftover;        /* a record cut between two COMPRESSED records */
	size_t nr_leftover;

	/* process frames, as the perf script importer gives them */
	enum { PROC_NONE, PROC_ONE, PROC_MANY } proc_state;
	int64_t proc_pid;
	frame_id *proc_frames;    /* by thread_id, FRAME_NONE until made */
	size_t nr_proc_frames;

	uint64_t first_bad;       /* offset of the first record skipped */
	char *bad_why;            /* and why; owned */
	uint64_t unknown_ids, first_aux;
	uint64_t progress_at;     /* bytes of the file added to the progress */
	bool mapped;              /* base is a private file mapping (release_pages()) */
	size_t released;          /* bytes of it given back so far */
	bool stopped;             /* max_samples reached: read no more */
};

static int fail(struct reader *r, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fail at byte at of the file; returns -1. */
static int
fail(struct reader *r, uint64_t at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	tf_error_set(r->err, "byte %" PRIu64 ": %s", at, sb.buf);
	strbuf_release(&sb);
	return -1;
}

static void bad_record(struct reader *r, const uint8_t *rec, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Skip a record whose fields do not fit: counted, and the first one named
 * in the warning at the end.
 */
static void
bad_record(struct reader *r, const uint8_t *rec, const char *fmt, ...)
{
	va_list ap;

	if (!r->info->bad++) {
		struct strbuf sb = STRBUF_INIT;

		/* Inside a compressed record there is no file offset to give. */
		r->first_bad = rec >= r->base && rec < r->base + r->len
			       ? (uint64_t)(rec - r->base) : UINT64_MAX;
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
		r->bad_why = strbuf_detach(&sb, NULL);
	}
}

/* The offset of rec in the file, for messages, or 0 inside a compressed record. */
static uint64_t
offset_of(const struct reader *r, const uint8_t *rec)
{
	return rec >= r->base && rec < r->base + r->len ? (uint64_t)(rec - r->base) : 0;
}

/* ------------------------------------------------------------ attributes */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* The name of an event no event description named, from its type and config. */
static void
attr_default_name(const struct pd_attr *a, struct strbuf *sb)
{
	if (a->type == 0 && a->config < ARRAY_SIZE(hw_names))
		strbuf_addstr(sb, hw_names[a->config]);
	else if (a->type == 1 && a->config < ARRAY_SIZE(sw_names))
		strbuf_addstr(sb, sw_names[a->config]);
	else if (a->type == 2)
		strbuf_addf(sb, "tracepoint:%" PRIu64, a->config);
	else
		strbuf_addf(sb, "raw:%" PRIu32 ":0x%" PRIx64, a->type, a->config);
}

static unsigned
popcount64(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

/*
 * Read a perf_event_attr of size bytes at p (its own size field may say
 * less, or more than this reader knows: what both have is read). Returns
 * the new attr's index.
 */
static size_t
attr_add(struct reader *r, const uint8_t *p, uint64_t size)
{
	struct pd_attr *a;
	uint8_t buf[136] = { 0 };
	uint64_t n = size < sizeof(buf) ? size : sizeof(buf);

	memcpy(buf, p, n);
	ALLOC_GROW(r->attrs, r->nr_attrs, r->alloc_attrs);
	a = &r->attrs[r->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->type = get32(buf);
	a->config = get64(buf + 8);
	a->sample_type = get64(buf + 24);
	a->read_format = get64(buf + 32);
	a->flags = get64(buf + 40);
	a->branch_sample_type = get64(buf + 72);
	a->regs_user = get64(buf + 80);
	a->regs_intr = get64(buf + 96);
	a->nr_regs_user = popcount64(a->regs_user);
	a->nr_regs_intr = popcount64(a->regs_intr);
	return r->nr_attrs++;
}

static void
attr_add_id(struct reader *r, size_t attr, uint64_t id)
{
	u64map_put(&r->ids, id, (uint32_t)attr);
	r->attrs[attr].nr_ids++;
}

/* ------------------------------------------------------------ features */

static void
set_string(char **dst, char *s)
{
	if (!s)
		return;
	free(*dst);
	*dst = s;
}

static void
add_build_id(struct reader *r, const uint8_t *rec, uint16_t size)
{
	struct perfdata_info *info = r->info;
	struct perfdata_build_id *b;
	uint16_t misc = get16(rec + 6);

	if (size < BUILD_ID_FILENAME)
		return;
	info->build_ids = xreallocarray(info->build_ids, info->nr_build_ids + 1,
					sizeof(*info->build_ids));
	b = &info->build_ids[info->nr_build_ids++];
	b->pid = (int32_t)get32(rec + 8);
	b->kernel = (misc & MISC_CPUMODE_MASK) == MISC_KERNEL;
	memcpy(b->id, rec + 12, 20);
	/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is meaningful */
	b->size = (misc & (1 << 15)) && rec[32] <= 20 ? rec[32] : 20;
	b->path = dupz(rec + BUILD_ID_FILENAME,
			   strnlen((const char *)rec + BUILD_ID_FILENAME,
				   size - BUILD_ID_FILENAME));
}

/*
 * The event descriptions: each attr again with its ids and its name.
 * Names go to the attrs that have those ids (or, with none, the attr at
 * that place).
 */
static void
read_event_desc(struct reader *r, struct cursor *c)
{
	uint32_t nr = cur32(c), sz = cur32(c);

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		uint32_t nr_ids;
		char *name;
		size_t attr = i;
		const uint8_t *ids;

		if (!cur_skip(c, sz))
			break;
		nr_ids = cur32(c);
		name = cur_string(c);
		ids = cur_skip(c, (uint64_t)nr_ids * 8);
		if (!name || !ids) {
			free(name);
			break;
		}
		if (nr_ids) {
			uint32_t a = u64map_get(&r->ids, get64(ids));

			attr = a == UINT32_MAX ? i : a;
		}
		if (attr < r->nr_attrs)
			set_string(&r->attrs[attr].name, name);
		else
			free(name);
	}
}

/* One feature section (file) or HEADER_FEATURE record's body (pipe). */
static void
read_feature(struct reader *r, unsigned feat, const uint8_t *p, uint64_t len)
{
	struct perfdata_info *info = r->info;
	struct cursor c = { p, p + len, false };

	switch (feat) {
	case FEAT_BUILD_ID:
		while (!c.bad && c.end - c.p >= 8) {
			uint16_t size = get16(c.p + 6);

			if (size < 8 || !cur_has(&c, size))
				break;
			add_build_id(r, c.p, size);
			c.p += size;
		}
		break;
	case FEAT_HOSTNAME:
		set_string(&info->hostname, cur_string(&c));
		break;
	case FEAT_OSRELEASE:
		set_string(&info->os_release, cur_string(&c));
		break;
	case FEAT_VERSION:
		set_string(&info->version, cur_string(&c));
		break;
	case FEAT_ARCH:
		set_string(&info->arch, cur_string(&c));
		break;
	case FEAT_CPUDESC:
		set_string(&info->cpudesc, cur_string(&c));
		break;
	case FEAT_NRCPUS:
		info->nr_cpus_avail = cur32(&c);
		info->nr_cpus_online = cur32(&c);
		break;
	case FEAT_CMDLINE: {
		uint32_t nr = cur32(&c);
		struct strbuf sb = STRBUF_INIT;

		for (uint32_t i = 0; i < nr && !c.bad; i++) {
			char *s = cur_string(&c);

			if (!s)
				break;
			if (i)
				strbuf_addch(&sb, ' ');
			strbuf_addstr(&sb, s);
			free(s);
		}
		if (sb.len) {
			free(info->cmdline);
			info->cmdline = strbuf_detach(&sb, NULL);
		}
		strbuf_release(&sb);
		break;
	}
	case FEAT_EVENT_DESC:
		read_event_desc(r, &c);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ address spaces */

/* The module of path (len bytes), made at first sight. */
static uint32_t
module_get(struct reader *r, const char *path, size_t len)
{
	str_id id = ps_str(r->ps, path, len);
	uint32_t m = u64map_get(&r->module_of, id);
	struct pd_module *mod;
	const char *base = path;
	size_t blen = len;

	if (m != UINT32_MAX)
		return m;
	ALLOC_GROW(r->modules, r->nr_modules, r->alloc_modules);
	m = (uint32_t)r->nr_modules++;
	mod = &r->modules[m];
	memset(mod, 0, sizeof(*mod));
	mod->path = id;
	mod->keep = -1;
	for (size_t i = len; i > 0; i--) {
		if (path[i - 1] == '/') {
			base = path + i;
			blen = len - i;
			break;
		}
	}
	if (len > 2 && path[0] == '[' && path[len - 1] == ']') {
		mod->unnamed = id;
		if (!strcmp(path, KERNEL_MODULE) || (len > 6 && !memcmp(path, "[guest", 6)))
			mod->flags = FRAME_KERNEL;
	} else if (len && blen) {
		strbuf_reset(&r->sb);
		strbuf_addch(&r->sb, '[');
		strbuf_add(&r->sb, base, blen);
		strbuf_addch(&r->sb, ']');
		mod->unnamed = ps_str(r->ps, r->sb.buf, r->sb.len);
		mod->is_file = path[0] == '/' && !memchr(path, '\0', len);
		if (blen > 9 && !memcmp(base, "perf-", 5) && !strcmp(base + blen - 4, ".map"))
			mod->flags = FRAME_JIT;
		else if (blen > 10 && !memcmp(base, "jitted-", 7) &&
			 !strcmp(base + blen - 3, ".so"))
			mod->flags = FRAME_JIT;
		if (mod->flags)
			mod->is_file = false;
	} else {
		mod->unnamed = id;
	}
	u64map_put(&r->module_of, id, m);
	return m;
}

/* The address space of pid (-1: the kernel's), made empty at first sight. */
static struct pd_space *
space_get(struct reader *r, int64_t pid)
{
	uint32_t s = u64map_get(&r->space_of, (uint64_t)pid);

	if (s == UINT32_MAX) {
		ALLOC_GROW(r->spaces, r->nr_spaces, r->alloc_spaces);
		s = (uint32_t)r->nr_spaces++;
		memset(&r->spaces[s], 0, sizeof(r->spaces[s]));
		u64map_put(&r->space_of, (uint64_t)pid, s);
	}
	return &r->spaces[s];
}

/*
 * Add a mapping to sp: it replaces what it overlaps, as perf's
 * maps__fixup_overlappings() does (a map cut in two keeps both ends).
 */
static void
space_map(struct pd_space *sp, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t module)
{
	struct pd_map nm = { start, end, pgoff, module };
	size_t lo = 0, hi = sp->nr, i;

	if (end <= start)
		return;
	/* the first map that ends after start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->maps[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	/* A map around the new one in both directions is cut in two. */
	if (i < sp->nr && sp->maps[i].start < start && sp->maps[i].end > end) {
		struct pd_map tail = sp->maps[i];

		tail.pgoff += end - tail.start;
		tail.start = end;
		sp->maps[i].end = start;
		ALLOC_GROW(sp->maps, sp->nr + 1, sp->alloc);
		memmove(&sp->maps[i + 2], &sp->maps[i + 1], (sp->nr - i - 1) * sizeof(*sp->maps));
		sp->maps[i + 1] = tail;
		sp->nr++;
		i++;
	} else if (i < sp->nr && sp->maps[i].start < start) {
		sp->maps[i].end = start;
		i++;
	}
	/* maps from i on start at or after start: drop those inside, trim the last */
	{
		size_t j = i;

		while (j < sp->nr && sp->maps[j].end <= end)
			j++;
		if (j < sp->nr && sp->maps[j].start < end) {
			sp->maps[j].pgoff += end - sp->maps[j].start;
			sp->maps[j].start = end;
		}
		if (j > i) {
			memmove(&sp->maps[i], &sp->maps[j], (sp->nr - j) * sizeof(*sp->maps));
			sp->nr -= j - i;
		}
	}
	ALLOC_GROW(sp->maps, sp->nr + 1, sp->alloc);
	memmove(&sp->maps[i + 1], &sp->maps[i], (sp->nr - i) * sizeof(*sp->maps));
	sp->maps[i] = nm;
	sp->nr++;
	sp->last = 0;
}

/* The map of sp holding addr, or NULL. */
static const struct pd_map *
space_find(struct pd_space *sp, uint64_t addr)
{
	size_t lo = 0, hi = sp->nr;

	if (sp->last < sp->nr && sp->maps[sp->last].start <= addr &&
	    addr < sp->maps[sp->last].end)
		return &sp->maps[sp->last];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sp->nr && sp->maps[lo].start <= addr) {
		sp->last = lo;
		return &sp->maps[lo];
	}
	return NULL;
}

/* The thread tid, made at first sight with no comm. */
static struct pd_thread *
thread_get(struct reader *r, int64_t pid, int64_t tid)
{
	uint32_t t = u64map_get(&r->thread_of, (uint64_t)tid);

	if (t == UINT32_MAX) {
		ALLOC_GROW(r->threads, r->nr_threads, r->alloc_threads);
		t = (uint32_t)r->nr_threads++;
		r->threads[t].pid = pid;
		r->threads[t].comm = STR_EMPTY;
		u64map_put(&r->thread_of, (uint64_t)tid, t);
	}
	return &r->threads[t];
}

/* ------------------------------------------------------------ kallsyms */

/*
 * The build id of the running kernel, from the ELF notes of
 * /sys/kernel/notes. Returns its size, 0 when unknown.
 */
static size_t
running_kernel_build_id(uint8_t id[20])
{
	uint8_t buf[4096];
	size_t len = 0, off = 0;
	FILE *f = fopen("/sys/kernel/notes", "rb");

	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off + 12 <= len) {
		uint32_t namesz = get32(buf + off), descsz = get32(buf + off + 4);
		uint32_t type = get32(buf + off + 8);
		size_t name_at = off + 12, desc_at = name_at + ((namesz + 3u) & ~3u);

		if (desc_at > len || descsz > len - desc_at)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_at, "GNU", 4)) {
			size_t n = descsz < 20 ? descsz : 20;

			memcpy(id, buf + desc_at, n);
			return n;
		}
		off = desc_at + ((descsz + 3u) & ~3u);
	}
	return 0;
}

/* Whether the recording is of the kernel this machine runs. */
static bool
kernel_is_running(const struct reader *r)
{
	const struct perfdata_info *info = r->info;
	uint8_t id[20];
	size_t n;

	for (size_t i = 0; i < info->nr_build_ids; i++) {
		const struct perfdata_build_id *b = &info->build_ids[i];

		if (strcmp(b->path, KERNEL_MODULE))
			continue;
		n = running_kernel_build_id(id);
		return n && n == b->size && !memcmp(id, b->id, n);
	}
	/* no build id recorded: the release will do */
	if (info->os_release) {
		FILE *f = fopen("/proc/sys/kernel/osrelease", "r");
		char rel[256];
		bool same = false;

		if (!f)
			return false;
		if (fgets(rel, sizeof(rel), f)) {
			rel[strcspn(rel, "\n")] = '\0';
			same = !strcmp(rel, info->os_release);
		}
		fclose(f);
		return same;
	}
	return false;
}

static int
ksym_cmp(const void *va, const void *vb)
{
	const struct pd_ksym *a = va, *b = vb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/*
 * Load /proc/kallsyms the way perf reads it (text, weak, data and bss
 * symbols; each ends where the next begins). Of the symbols at one
 * address perf keeps the last in the file: it sets the ends before it
 * drops duplicates, so every alias but the last has size 0, and a sized
 * symbol wins (symbols__fixup_end(), then choose_best_symbol()). Nothing
 * when the recording is of another kernel or the addresses are hidden
 * (kptr_restrict).
 */
static void
kallsyms_load(struct reader *r)
{
	struct pd_kallsyms *k = &r->ksyms;
	char *line = NULL;
	size_t cap = 0, out = 0;
	ssize_t n;
	FILE *f;

	k->tried = true;
	strbuf_init(&k->names, 0);
	if (!kernel_is_running(r) || !(f = fopen("/proc/kallsyms", "r")))
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *p = line, *end;
		uint64_t addr = strtoull(p, &end, 16);
		char type, *name, *name_end;

		if (end == p || *end != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = end + 3;
		name_end = name + strcspn(name, "\t\n");
		if (name_end == name || !strchr("TtWwDdBb", type) || !addr)
			continue;
		ALLOC_GROW(k->syms, k->nr, k->alloc);
		k->syms[k->nr].addr = addr;
		k->syms[k->nr].name = (uint32_t)k->names.len;
		*name_end = '\0';
		strbuf_add(&k->names, name, (size_t)(name_end - name) + 1);
		k->nr++;
	}
	free(line);
	fclose(f);
	qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
	/* one per address, the last in the file (sorted by name offset on a tie) */
	for (size_t i = 0; i < k->nr; i++) {
		if (out && k->syms[out - 1].addr == k->syms[i].addr)
			out--;
		k->syms[out++] = k->syms[i];
	}
	k->nr = out;
}

/* The name of kernel address addr, or NULL. */
static const char *
kallsyms_name(struct reader *r, uint64_t addr)
{
	struct pd_kallsyms *k = &r->ksyms;
	size_t lo = 0, hi;

	if (!k->tried)
		kallsyms_load(r);
	hi = k->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last symbol has no next one to end it: perf leaves it open too */
	return lo ? k->names.buf + k->syms[lo - 1].name : NULL;
}

/* ------------------------------------------------------------ frames */

static void
fcache_grow(struct reader *r)
{
	struct pd_fkey *old = r->fcache;
	uint32_t old_n = old ? r->fcache_mask + 1 : 0;
	uint32_t n = old_n ? old_n * 2 : 1024;

	r->fcache = xmalloc((size_t)n * sizeof(*r->fcache));
	for (uint32_t i = 0; i < n; i++)
		r->fcache[i].frame = FRAME_NONE;
	r->fcache_mask = n - 1;
	for (uint32_t i = 0; i < old_n; i++) {
		uint32_t s;

		if (old[i].frame == FRAME_NONE)
			continue;
		s = (uint32_t)hash_pair(old[i].addr, old[i].module) & r->fcache_mask;
		while (r->fcache[s].frame != FRAME_NONE)
			s = (s + 1) & r->fcache_mask;
		r->fcache[s] = old[i];
	}
	free(old);
}

/* Whether the symbolizer should get module m's addresses (as perf.c decides). */
static int
module_keep(struct reader *r, struct pd_module *m)
{
	if (m->keep < 0) {
		const char *path = ps_get(r->ps, m->path);
		struct stat st;

		m->keep = 0;
		if (m->is_file && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(path, R_OK) == 0)
			m->keep = symbols_beyond_dynsym(path) ? 2 : 1;
	}
	return m->keep;
}

/*
 * The frame of addr (map-relative for a file, as is for the kernel) in
 * module m; caller says it is a return address. Made at first sight:
 * named from the module's ELF symbols (perf's names), else after the
 * module, and with the address kept for the symbolizer as the perf
 * script importer keeps it.
 */
static frame_id
frame_of(struct reader *r, uint32_t m, uint64_t addr, bool caller)
{
	uint32_t key = m * 2 + caller;
	uint32_t s = (uint32_t)hash_pair(addr, key) & r->fcache_mask;
	struct pd_module *mod = &r->modules[m];
	struct frame f = { 0 };
	struct sym_result res;
	const char *kname;
	int keep;

	for (; r->fcache[s].frame != FRAME_NONE; s = (s + 1) & r->fcache_mask)
		if (r->fcache[s].addr == addr && r->fcache[s].module == key)
			return r->fcache[s].frame;

	f.module = mod->path;
	f.flags = mod->flags;
	if ((mod->flags & FRAME_KERNEL) && (kname = kallsyms_name(r, addr))) {
		f.name = ps_str(r->ps, kname, strlen(kname));
	} else if (mod->is_file &&
		   symbolizer_resolve(r->sym, ps_get(r->ps, mod->path), addr, &res)) {
		const char *fn = res.frames[res.nr_frames - 1].function;

		f.name = ps_str(r->ps, fn, strlen(fn));
	} else {
		f.flags |= FRAME_UNNAMED;
		f.name = mod->unnamed;
		if (r->opts->keep_unknown_addrs && m != r->unknown_module) {
			const char *n = ps_get(r->ps, mod->unnamed);

			strbuf_reset(&r->sb);
			strbuf_add(&r->sb, n, strlen(n) - 1);
			strbuf_addf(&r->sb, "+0x%" PRIx64 "]", addr);
			f.name = ps_str(r->ps, r->sb.buf, r->sb.len);
		}
	}
	if (r->opts->symbols == SYMBOLS_RESOLVE && mod->is_file) {
		keep = module_keep(r, mod);
		if (keep == 2 || (keep == 1 && (f.flags & FRAME_UNNAMED))) {
			f.addr = addr;
			if (caller)
				f.flags |= FRAME_RETADDR;
		}
	}
	r->fcache[s].addr = addr;
	r->fcache[s].module = key;
	r->fcache[s].frame = profile_set_frame(r->ps, &f);
	if (++r->fcache_nr * 2 > r->fcache_mask + 1) {
		frame_id id = r->fcache[s].frame;

		fcache_grow(r);
		return id;
	}
	return r->fcache[s].frame;
}

/*
 * The frame of ip, in cpumode, for a sample of pid; user_before says
 * whether a user frame came before it in the chain (so ip is a return
 * address).
 */
static frame_id
ip_frame(struct reader *r, struct pd_space *sp, unsigned cpumode, uint64_t ip,
	 bool user_before)
{
	const struct pd_map *map;

	if (cpumode == MISC_KERNEL) {
		map = space_find(&r->spaces[0], ip);
		/* perf's kernel map reaches past the modules to the end */
		if (!map || map->module == r->kernel_module)
			return frame_of(r, r->kernel_module, ip, false);
		return frame_of(r, map->module, ip, false);
	}
	if (cpumode != MISC_USER || !sp || !(map = space_find(sp, ip)))
		return frame_of(r, r->unknown_module, ip, false);
	if (r->modules[map->module].flags & FRAME_KERNEL)
		return frame_of(r, map->module, ip, false);
	return frame_of(r, map->module, ip - map->start + map->pgoff, user_before);
}

/* The process frame of thread t: its comm, or "[pid N]" (as perf.c names it). */
static frame_id
process_frame(struct reader *r, thread_id t)
{
	const struct thread *th;
	struct frame f = { 0 };
	const char *comm;

	if (t >= r->nr_proc_frames) {
		size_t n = r->nr_proc_frames ? r->nr_proc_frames : 64;

		while (n <= t)
			n *= 2;
		r->proc_frames = xreallocarray(r->proc_frames, n, sizeof(*r->proc_frames));
		for (size_t i = r->nr_proc_frames; i < n; i++)
			r->proc_frames[i] = FRAME_NONE;
		r->nr_proc_frames = n;
	}
	if (r->proc_frames[t] != FRAME_NONE)
		return r->proc_frames[t];
	th = &r->ps->threads[t];
	comm = ps_get(r->ps, th->comm);
	if (*comm && comm[0] != ':') {
		f.name = th->comm;
	} else {
		strbuf_reset(&r->sb);
		strbuf_addf(&r->sb, "[pid %" PRId64 "]", th->pid);
		f.name = ps_str(r->ps, r->sb.buf, r->sb.len);
	}
	f.module = STR_EMPTY;
	f.flags = FRAME_PROCESS;
	r->proc_frames[t] = profile_set_frame(r->ps, &f);
	return r->proc_frames[t];
}

static frame_id
process_root(void *vr, thread_id t)
{
	return process_frame(vr, t);
}

/* ------------------------------------------------------------ samples */

struct pd_sample {
	uint64_t id, ip, time, addr, period, stream_id;
	uint32_t pid, tid, cpu;
	uint64_t nr_chain;
	const uint8_t *chain;   /* nr_chain u64s */
	uint64_t user_abi, user_stack_size, user_stack_dyn;
	const uint8_t *user_regs, *user_stack;
};

/* Read sample_type's fields of a SAMPLE record (body: after its header). */
static bool
parse_sample(const struct pd_attr *a, const uint8_t *body, const uint8_t *end,
	     struct pd_sample *s, const char **why)
{
	struct cursor c = { body, end, false };
	uint64_t t = a->sample_type, n;

	memset(s, 0, sizeof(*s));
	s->period = 1;
	if (t & S_IDENTIFIER)
		s->id = cur64(&c);
	if (t & S_IP)
		s->ip = cur64(&c);
	if (t & S_TID) {
		s->pid = cur32(&c);
		s->tid = cur32(&c);
	}
	if (t & S_TIME)
		s->time = cur64(&c);
	if (t & S_ADDR)
		s->addr = cur64(&c);
	if (t & S_ID)
		s->id = cur64(&c);
	if (t & S_STREAM_ID)
		s->stream_id = cur64(&c);
	if (t & S_CPU) {
		s->cpu = cur32(&c);
		cur32(&c);
	}
	if (t & S_PERIOD)
		s->period = cur64(&c);
	if (t & S_READ) {
		uint64_t rf = a->read_format;

		if (rf & RF_GROUP) {
			n = cur64(&c);
			if (rf & RF_TOTAL_TIME_ENABLED)
				cur64(&c);
			if (rf & RF_TOTAL_TIME_RUNNING)
				cur64(&c);
			/* each: value, then id and lost when asked */
			if (n > (uint64_t)(c.end - c.p) / 8 ||
			    !cur_skip(&c, n * 8 * (1 + !!(rf & RF_ID) + !!(rf & RF_LOST)))) {
				*why = "its read values run past its end";
				return false;
			}
		} else {
			cur64(&c);
			if (rf & RF_TOTAL_TIME_ENABLED)
				cur64(&c);
			if (rf & RF_TOTAL_TIME_RUNNING)
				cur64(&c);
			if (rf & RF_ID)
				cur64(&c);
			if (rf & RF_LOST)
				cur64(&c);
		}
	}
	if (t & S_CALLCHAIN) {
		n = cur64(&c);
		if (n > (uint64_t)(c.end - c.p) / 8) {
			*why = "its callchain runs past its end";
			return false;
		}
		s->nr_chain = n;
		s->chain = cur_skip(&c, n * 8);
	}
	if (t & S_RAW) {
		if (!cur_skip(&c, cur32(&c))) {
			*why = "its raw data runs past its end";
			return false;
		}
	}
	if (t & S_BRANCH_STACK) {
		n = cur64(&c);
		if (a->branch_sample_type & BRANCH_HW_INDEX)
			cur64(&c);
		if (n > (uint64_t)(c.end - c.p) / 24 || !cur_skip(&c, n * 24)) {
			*why = "its branch stack runs past its end";
			return false;
		}
	}
	if (t & S_REGS_USER) {
		s->user_abi = cur64(&c);
		if (s->user_abi)
			s->user_regs = cur_skip(&c, (uint64_t)a->nr_regs_user * 8);
	}
	if (t & S_STACK_USER) {
		n = cur64(&c);
		s->user_stack_size = n;
		s->user_stack = cur_skip(&c, n);
		if (n)
			s->user_stack_dyn = cur64(&c);
		if (s->user_stack_dyn > n) {
			*why = "its user stack's dynamic size is more than its size";
			return false;
		}
	}
	if (t & (S_WEIGHT | S_WEIGHT_STRUCT))
		cur64(&c);
	if (t & S_DATA_SRC)
		cur64(&c);
	if (t & S_TRANSACTION)
		cur64(&c);
	if (t & S_REGS_INTR) {
		if (cur64(&c))
			cur_skip(&c, (uint64_t)a->nr_regs_intr * 8);
	}
	if (t & S_PHYS_ADDR)
		cur64(&c);
	if (t & S_CGROUP)
		cur64(&c);
	if (t & S_DATA_PAGE_SIZE)
		cur64(&c);
	if (t & S_CODE_PAGE_SIZE)
		cur64(&c);
	if (t & S_AUX)
		cur_skip(&c, cur64(&c));
	if (c.bad) {
		*why = "its fields run past its end";
		return false;
	}
	return true;
}

/*
 * The user program counter of a sample's user registers (x86-64's ip,
 * register 8; AArch64's pc, register 32), where the unwinding of a
 * --call-graph dwarf sample starts. False when the sample has none.
 */
static bool
user_pc(const struct reader *r, const struct pd_attr *a, const struct pd_sample *s,
	uint64_t *pc)
{
	const char *arch = r->info->arch ? r->info->arch : "";
	unsigned reg;

	if (!strcmp(arch, "x86_64"))
		reg = 8;
	else if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		reg = 32;
	else
		return false;
	if (!s->user_regs || !(a->regs_user & ((uint64_t)1 << reg)))
		return false;
	*pc = get64(s->user_regs + 8 * popcount64(a->regs_user & (((uint64_t)1 << reg) - 1)));
	return true;
}

/* The thread id of the set for a sample's pid and tid, with the comm it has now. */
static thread_id
sample_thread(struct reader *r, const struct pd_sample *s)
{
	struct pd_thread *th = thread_get(r, (int32_t)s->pid, (int32_t)s->tid);
	str_id comm = th->comm;

	if (comm == STR_EMPTY) {
		strbuf_reset(&r->sb);
		strbuf_addf(&r->sb, ":%" PRId32, (int32_t)s->tid);
		comm = ps_str(r->ps, r->sb.buf, r->sb.len);
	}
	return profile_set_thread(r->ps, (int32_t)s->pid, (int32_t)s->tid, comm);
}

static struct profile *
attr_profile(struct reader *r, struct pd_attr *a)
{
	enum weight_unit unit = UNIT_SAMPLES;
	const char *name;

	if (a->profile)
		return a->profile;
	if (!a->name) {
		strbuf_reset(&r->sb);
		attr_default_name(a, &r->sb);
		a->name = xstrdup(r->sb.buf);
	}
	name = a->name;
	if ((a->sample_type & S_PERIOD) && r->opts->weight != WEIGHT_SAMPLES) {
		size_t base = strcspn(name, ":");

		if ((base == 9 && !memcmp(name, "cpu-clock", 9)) ||
		    (base == 10 && !memcmp(name, "task-clock", 10)))
			unit = UNIT_NANOSECONDS;
		else
			unit = UNIT_EVENTS;
	}
	a->profile = profile_set_profile(r->ps, ps_str(r->ps, name, strlen(name)), unit);
	return a->profile;
}

/* A SAMPLE record of attr a, in its turn. */
static int
deliver_sample(struct reader *r, const uint8_t *rec, struct pd_attr *a)
{
	uint16_t size = get16(rec + 6), misc = get16(rec + 4);
	struct pd_sample s;
	const char *why = NULL;
	struct pd_space *sp;
	thread_id t;
	unsigned cpumode = misc & MISC_CPUMODE_MASK;
	bool user_before = false;
	uint64_t weight;

	if (!parse_sample(a, rec + 8, rec + size, &s, &why)) {
		bad_record(r, rec, "sample: %s", why);
		return 0;
	}
	r->info->samples++;
	a->nr_samples++;
	if (s.user_stack_size)
		r->info->dwarf_samples++;
	if (r->stopped)
		return 0;
	t = sample_thread(r, &s);
	{
		uint32_t si = u64map_get(&r->space_of, (uint64_t)(int32_t)s.pid);

		sp = si == UINT32_MAX ? NULL : &r->spaces[si];
	}
	weight = r->opts->weight == WEIGHT_SAMPLES || !(a->sample_type & S_PERIOD) ? 1 : s.period;
	builder_begin_sample(&r->b, attr_profile(r, a), t, weight, (int64_t)s.time,
			     (a->sample_type & S_TIME) != 0);
	if (a->sample_type & S_CALLCHAIN) {
		/* perf's walk: user mode until a context marker says otherwise */
		unsigned mode = MISC_USER;

		for (uint64_t i = 0; i < s.nr_chain; i++) {
			uint64_t ip = get64(s.chain + i * 8);

			if (ip >= CONTEXT_MAX) {
				if (ip == CONTEXT_KERNEL) {
					mode = MISC_KERNEL;
				} else if (ip == CONTEXT_USER) {
					mode = MISC_USER;
				} else if (ip == CONTEXT_HV) {
					mode = MISC_HYPERVISOR;
				} else if (ip == CONTEXT_GUEST_KERNEL) {
					mode = MISC_GUEST_KERNEL;
				} else if (ip == CONTEXT_GUEST_USER || ip == CONTEXT_GUEST) {
					mode = MISC_GUEST_USER;
				} else {
					/* perf drops a chain with a marker it does not know */
					builder_clear_frames(&r->b);
					break;
				}
				continue;
			}
			builder_push_frame(&r->b, ip_frame(r, sp, mode, ip, user_before));
			if (mode != MISC_KERNEL)
				user_before = true;
		}
		/*
		 * --call-graph dwarf: the kernel gives no user frames (perf
		 * unwinds them from the stack copy); until that is done here,
		 * the user leaf is the one frame the registers name.
		 */
		if (!user_before && s.user_stack_size) {
			uint64_t pc;

			if (user_pc(r, a, &s, &pc))
				builder_push_frame(&r->b, ip_frame(r, sp, MISC_USER, pc, false));
		}
	} else if (a->sample_type & S_IP) {
		builder_push_frame(&r->b, ip_frame(r, sp, cpumode, s.ip, false));
	}
	if (!builder_full(&r->b)) {
		int64_t pid = (int32_t)s.pid;

		if (r->proc_state == PROC_NONE) {
			r->proc_state = PROC_ONE;
			r->proc_pid = pid;
		} else if (r->proc_state == PROC_ONE && pid != r->proc_pid) {
			r->proc_state = PROC_MANY;
			builder_add_roots(&r->b, process_root, r);
		}
		if (r->proc_state == PROC_MANY)
			builder_push_frame(&r->b, process_frame(r, t));
	}
	if (builder_end_sample(&r->b, BUILDER_LEAF_FIRST, r->err))
		return fail(r, offset_of(r, rec), "%s", r->err->msg);
	if (builder_stopped(&r->b))
		r->stopped = true;
	return 0;
}

/* ------------------------------------------------------------ records */

/*
 * The attr of a kernel record: for a sample by its id (IDENTIFIER first,
 * else ID at its place), for any other by the id of its sample_id_all
 * trailer (IDENTIFIER last). Returns UINT32_MAX for an id no attr has.
 */
static uint32_t
record_attr(struct reader *r, const uint8_t *rec, uint16_t size, uint32_t type)
{
	uint64_t st = r->attrs[0].sample_type, id;
	size_t pos;

	if (r->nr_attrs == 1)
		return 0;
	if (type == REC_SAMPLE) {
		if (st & S_IDENTIFIER) {
			pos = 8;
		} else if (st & S_ID) {
			pos = 8 + 8 * (!!(st & S_IP) + !!(st & S_TID) + !!(st & S_TIME) +
				       !!(st & S_ADDR));
		} else {
			return 0;
		}
	} else {
		if (!(r->attrs[0].flags & ATTR_SAMPLE_ID_ALL))
			return 0;
		if (st & S_IDENTIFIER)
			pos = (size_t)size - 8;
		else if (st & S_ID)
			pos = (size_t)size - 8 * (!!(st & S_ID) + !!(st & S_STREAM_ID) +
						  !!(st & S_CPU));
		else
			return 0;
	}
	if (pos < 8 || pos + 8 > size)
		return UINT32_MAX;
	id = get64(rec + pos);
	/* perf takes the first event for id 0 */
	if (!id)
		return 0;
	return u64map_get(&r->ids, id);
}

/* Bytes of a sample_id_all trailer of sample_type st. */
static size_t
trailer_size(uint64_t st)
{
	return 8 * (!!(st & S_TID) + !!(st & S_TIME) + !!(st & S_ID) + !!(st & S_STREAM_ID) +
		    !!(st & S_CPU) + !!(st & S_IDENTIFIER));
}

/*
 * The time of a kernel record: a sample's TIME field, another record's
 * from its trailer. False when it has none (delivered at once, as perf
 * does).
 */
static bool
record_time(const struct reader *r, const uint8_t *rec, uint16_t size, uint32_t type,
	    const struct pd_attr *a, uint64_t *time)
{
	uint64_t st = a->sample_type;
	size_t pos;

	if (!(st & S_TIME))
		return false;
	if (type == REC_SAMPLE) {
		pos = 8 + 8 * (!!(st & S_IDENTIFIER) + !!(st & S_IP) + !!(st & S_TID));
	} else {
		size_t tr = trailer_size(st);

		if (!(a->flags & ATTR_SAMPLE_ID_ALL) || tr + 8 > size)
			return false;
		pos = (size_t)size - tr + 8 * !!(st & S_TID);
	}
	(void)r;
	if (pos + 8 > size)
		return false;
	*time = get64(rec + pos);
	return true;
}

/* The end of a non-sample record's own fields (its trailer cut off). */
static const uint8_t *
body_end(const struct reader *r, const uint8_t *rec, uint16_t size, const struct pd_attr *a)
{
	size_t tr = (a->flags & ATTR_SAMPLE_ID_ALL) ? trailer_size(a->sample_type) : 0;

	(void)r;
	return rec + (tr + 8 <= size ? size - tr : 8);
}

/* The kernel module's name as perf gives it: "[nf_conntrack]" for .../nf-conntrack.ko.xz. */
static uint32_t
kmodule_get(struct reader *r, const char *path, size_t len)
{
	const char *base = path, *dot;
	size_t blen;

	for (size_t i = len; i > 0; i--) {
		if (path[i - 1] == '/') {
			base = path + i;
			break;
		}
	}
	blen = len - (size_t)(base - path);
	dot = memchr(base, '.', blen);
	if (dot)
		blen = (size_t)(dot - base);
	strbuf_reset(&r->sb);
	strbuf_addch(&r->sb, '[');
	for (size_t i = 0; i < blen; i++)
		strbuf_addch(&r->sb, base[i] == '-' ? '_' : base[i]);
	strbuf_addch(&r->sb, ']');
	{
		/* module_get() reuses r->sb */
		char *name = dupz(r->sb.buf, r->sb.len);
		uint32_t m = module_get(r, name, strlen(name));

		r->modules[m].flags = FRAME_KERNEL;
		r->modules[m].is_file = false;
		free(name);
		return m;
	}
}

/* MMAP and MMAP2: a mapping of pid's address space (or the kernel's). */
static void
deliver_mmap(struct reader *r, const uint8_t *rec, const struct pd_attr *a, uint32_t type)
{
	uint16_t size = get16(rec + 6), misc = get16(rec + 4);
	const uint8_t *end = body_end(r, rec, size, a);
	size_t name_at = type == REC_MMAP ? 40 : 72;
	int32_t pid;
	uint64_t start, len, pgoff;
	const char *name;
	size_t nlen;
	uint32_t m;
	bool kernel = (misc & MISC_CPUMODE_MASK) == MISC_KERNEL;

	if (rec + name_at > end) {
		bad_record(r, rec, "mapping record of %u bytes", size);
		return;
	}
	pid = (int32_t)get32(rec + 8);
	start = get64(rec + 16);
	len = get64(rec + 24);
	pgoff = get64(rec + 32);
	name = (const char *)rec + name_at;
	nlen = strnlen(name, (size_t)(end - (const uint8_t *)name));
	/* data mappings (perf record -d) hold no code */
	if (misc & MISC_MMAP_DATA)
		return;
	if (start + len < start)
		len = UINT64_MAX - start;
	if (kernel) {
		if (nlen >= strlen(KERNEL_MODULE) && !memcmp(name, KERNEL_MODULE, strlen(KERNEL_MODULE)))
			m = r->kernel_module;
		else if (nlen && name[0] == '/')
			m = kmodule_get(r, name, nlen);
		else
			m = module_get(r, name, nlen);
		space_map(&r->spaces[0], start, start + len, pgoff, m);
		return;
	}
	if (!nlen) {
		m = r->unknown_module;
	} else if (!strncmp(name, "//anon", 6) || !strncmp(name, "/dev/zero", 9) ||
		   !strncmp(name, "/anon_hugepage", 14)) {
		m = module_get(r, "//anon", 6);
	} else {
		m = module_get(r, name, nlen);
	}
	space_map(space_get(r, pid), start, start + len, pgoff, m);
}

/*
 * COMM: a thread's name. An exec (the flag) keeps the process's mappings,
 * as perf keeps them: the new program's MMAP records replace what they
 * overlap, and a sample still in execve() has the old program's stack.
 */
static void
deliver_comm(struct reader *r, const uint8_t *rec, const struct pd_attr *a)
{
	uint16_t size = get16(rec + 6);
	const uint8_t *end = body_end(r, rec, size, a);
	int32_t pid, tid;
	struct pd_thread *th;
	const char *comm;

	if (rec + 16 > end) {
		bad_record(r, rec, "comm record of %u bytes", size);
		return;
	}
	pid = (int32_t)get32(rec + 8);
	tid = (int32_t)get32(rec + 12);
	comm = (const char *)rec + 16;
	th = thread_get(r, pid, tid);
	th->pid = pid;
	th->comm = ps_str(r->ps, comm, strnlen(comm, (size_t)(end - (const uint8_t *)comm)));
}

/* FORK: a new thread (its parent's comm), or a new process (a copy of its maps). */
static void
deliver_fork(struct reader *r, const uint8_t *rec, const struct pd_attr *a)
{
	uint16_t size = get16(rec + 6);
	const uint8_t *end = body_end(r, rec, size, a);
	int32_t pid, ppid, tid, ptid;
	struct pd_thread *th;
	str_id comm = STR_EMPTY;
	uint32_t pt;

	if (rec + 24 > end) {
		bad_record(r, rec, "fork record of %u bytes", size);
		return;
	}
	pid = (int32_t)get32(rec + 8);
	ppid = (int32_t)get32(rec + 12);
	tid = (int32_t)get32(rec + 16);
	ptid = (int32_t)get32(rec + 20);
	pt = u64map_get(&r->thread_of, (uint64_t)(int64_t)ptid);
	if (pt != UINT32_MAX)
		comm = r->threads[pt].comm;
	th = thread_get(r, pid, tid);
	th->pid = pid;
	th->comm = comm;
	if (pid != ppid) {
		uint32_t ps = u64map_get(&r->space_of, (uint64_t)(int64_t)ppid);
		struct pd_space *sp = space_get(r, pid);

		sp->nr = 0;
		sp->last = 0;
		if (ps != UINT32_MAX && r->spaces[ps].nr) {
			/* space_get() may have moved the spaces */
			const struct pd_space *parent = &r->spaces[ps];

			sp->alloc = parent->nr;
			sp->maps = xreallocarray(sp->maps, sp->alloc, sizeof(*sp->maps));
			memcpy(sp->maps, parent->maps, parent->nr * sizeof(*sp->maps));
			sp->nr = parent->nr;
		}
	}
}

/* A kernel record (type < 64) in its turn. */
static int
deliver(struct reader *r, const uint8_t *rec, uint32_t ai)
{
	uint32_t type = get32(rec);
	struct pd_attr *a = &r->attrs[ai];
	uint16_t size = get16(rec + 6);
	const uint8_t *end;

	switch (type) {
	case REC_SAMPLE:
		return deliver_sample(r, rec, a);
	case REC_MMAP:
	case REC_MMAP2:
		deliver_mmap(r, rec, a, type);
		break;
	case REC_COMM:
		deliver_comm(r, rec, a);
		break;
	case REC_FORK:
		deliver_fork(r, rec, a);
		break;
	case REC_LOST:
		end = body_end(r, rec, size, a);
		if (rec + 24 <= end)
			r->info->lost += get64(rec + 16);
		else
			bad_record(r, rec, "lost record of %u bytes", size);
		break;
	case REC_LOST_SAMPLES:
		end = body_end(r, rec, size, a);
		if (rec + 16 <= end)
			r->info->lost_samples += get64(rec + 8);
		else
			bad_record(r, rec, "lost samples record of %u bytes", size);
		break;
	case REC_THROTTLE:
		r->info->throttles++;
		break;
	case REC_UNTHROTTLE:
		r->info->unthrottles++;
		break;
	case REC_AUX:
		if (!r->info->aux++)
			r->first_aux = offset_of(r, rec);
		break;
	case REC_KSYMBOL: {
		/* BPF programs and trampolines: kernel code of their own name */
		uint64_t addr, len;
		uint32_t m;

		end = body_end(r, rec, size, a);
		if (rec + 24 > end) {
			bad_record(r, rec, "ksymbol record of %u bytes", size);
			break;
		}
		addr = get64(rec + 8);
		len = get32(rec + 16);
		/* flags bit 0: unregistered */
		if (get16(rec + 22) & 1 || addr + len < addr)
			break;
		/* BPF programs: kernel code, named by their module for now */
		m = module_get(r, "[bpf_prog]", 10);
		r->modules[m].flags = FRAME_KERNEL;
		space_map(&r->spaces[0], addr, addr + len, 0, m);
		break;
	}
	default:
		/* EXIT, READ, SWITCH, NAMESPACES, CGROUP, ...: nothing to do */
		break;
	}
	return 0;
}

/* ------------------------------------------------------------ the queue */

static int
event_cmp(const void *va, const void *vb)
{
	const struct pd_event *a = va, *b = vb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void
buf_unref(struct reader *r, uint32_t b)
{
	if (b == UINT32_MAX)
		return;
	if (!--r->bufs[b].refs) {
		free(r->bufs[b].data);
		r->bufs[b].data = NULL;
	}
}

/*
 * Deliver the queued records with time <= limit, in (time, arrival)
 * order; the rest stay queued.
 */
static int
flush(struct reader *r, uint64_t limit)
{
	size_t i = 0, n = r->nr_queue;
	bool sorted = true;

	for (size_t k = 1; k < n && sorted; k++)
		if (event_cmp(&r->queue[k - 1], &r->queue[k]) > 0)
			sorted = false;
	if (!sorted)
		qsort(r->queue, n, sizeof(*r->queue), event_cmp);
	for (; i < n && r->queue[i].time <= limit; i++) {
		struct pd_event *e = &r->queue[i];

		if (deliver(r, e->rec, e->attr)) {
			/* free what is still queued: buffers go at the end */
			return -1;
		}
		r->last_flush = e->time;
		buf_unref(r, e->buf);
	}
	if (i && i < n)
		memmove(r->queue, r->queue + i, (n - i) * sizeof(*r->queue));
	r->nr_queue = n - i;
	return 0;
}

/* ------------------------------------------------------------ the stream */

static int read_records(struct reader *r, const uint8_t *p, const uint8_t *end, uint32_t buf,
			const uint8_t **stop);

/*
 * A COMPRESSED record: its zstd frame holds records, the last of which
 * may go on in the next COMPRESSED record (perf cuts where its buffer is
 * full), so an incomplete tail waits in r->leftover.
 */
static int
read_compressed(struct reader *r, const uint8_t *rec, uint16_t size, uint32_t type)
{
	const uint8_t *data = rec + 8;
	size_t dlen = size - 8u;
	struct pd_buf *b;
	uint32_t bi;
	size_t cap, out_len;
	const uint8_t *stop;
	ZSTD_inBuffer in;

	if (type == REC_COMPRESSED2) {
		uint64_t n;

		if (size < 16)
			return fail(r, offset_of(r, rec), "compressed record of %u bytes", size);
		n = get64(rec + 8);
		data = rec + 16;
		dlen = n < size - 16u ? (size_t)n : size - 16u;
	}
	r->info->compressed++;
	if (!r->zd)
		r->zd = ZSTD_createDCtx();
	if (!r->zd)
		die("out of memory");
	cap = r->nr_leftover + (dlen < 4096 ? 65536 : dlen * 8);
	ALLOC_GROW(r->bufs, r->nr_bufs, r->alloc_bufs);
	bi = (uint32_t)r->nr_bufs++;
	b = &r->bufs[bi];
	b->data = xmalloc(cap);
	b->refs = 1;
	if (r->nr_leftover)
		memcpy(b->data, r->leftover, r->nr_leftover);
	out_len = r->nr_leftover;
	r->nr_leftover = 0;
	in.src = data;
	in.size = dlen;
	in.pos = 0;
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t ret;

		if (cap - out_len < 65536) {
			cap *= 2;
			b->data = xrealloc(b->data, cap);
		}
		out.dst = b->data;
		out.size = cap;
		out.pos = out_len;
		ret = ZSTD_decompressStream(r->zd, &out, &in);
		out_len = out.pos;
		if (ZSTD_isError(ret)) {
			ZSTD_DCtx_reset(r->zd, ZSTD_reset_session_only);
			bad_record(r, rec, "compressed records: %s", ZSTD_getErrorName(ret));
			buf_unref(r, bi);
			return 0;
		}
		if (!ret && in.pos == in.size)
			break;
		if (out.pos < out.size && in.pos == in.size)
			break;
	}
	b->len = out_len;
	if (read_records(r, b->data, b->data + out_len, bi, &stop)) {
		buf_unref(r, bi);
		return -1;
	}
	/* a record cut between two compressed ones */
	if (stop < b->data + out_len) {
		r->nr_leftover = (size_t)(b->data + out_len - stop);
		r->leftover = xrealloc(r->leftover, r->nr_leftover);
		memcpy(r->leftover, stop, r->nr_leftover);
	}
	buf_unref(r, bi);
	return 0;
}

/*
 * Give back the pages of a mapped file that no record needs any more:
 * those before both rec (records are read in order) and every queued
 * record. A big file then does not stay whole in memory as it is read
 * (the page cache keeps it; reading it again costs no disk).
 */
static void
release_pages(struct reader *r, const uint8_t *rec)
{
	const uint8_t *low = rec;
	long page = sysconf(_SC_PAGESIZE);
	size_t upto;

	if (!r->mapped || rec < r->base || rec >= r->base + r->len || page <= 0)
		return;
	for (size_t i = 0; i < r->nr_queue; i++)
		if (r->queue[i].buf == UINT32_MAX && r->queue[i].rec < low)
			low = r->queue[i].rec;
	upto = (size_t)(low - r->base) / (size_t)page * (size_t)page;
	/* in steps of 16 MiB at least, not a system call a round */
	if (upto < r->released + ((size_t)16 << 20))
		return;
	madvise((void *)(uintptr_t)(r->base + r->released), upto - r->released, MADV_DONTNEED);
	r->released = upto;
}

/* perf's own record (type >= 64), taken at once. *skip: bytes after it to skip too. */
static int
read_user_record(struct reader *r, const uint8_t *rec, uint16_t size, uint32_t type,
		 uint32_t buf, uint64_t *skip)
{
	*skip = 0;
	switch (type) {
	case REC_HEADER_ATTR: {
		uint32_t asize;
		size_t a;

		if (size < 8 + ATTR_SIZE_VER0)
			return fail(r, offset_of(r, rec), "attribute record of %u bytes", size);
		asize = get32(rec + 12);
		if (asize < ATTR_SIZE_VER0 || asize > size - 8u)
			return fail(r, offset_of(r, rec), "attribute of %" PRIu32
				    " bytes in a record of %u", asize, size);
		a = attr_add(r, rec + 8, asize);
		for (size_t off = 8u + asize; off + 8 <= size; off += 8)
			attr_add_id(r, a, get64(rec + off));
		break;
	}
	case REC_HEADER_TRACING_DATA:
		if (size < 12)
			return fail(r, offset_of(r, rec), "tracing data record of %u bytes", size);
		*skip = get32(rec + 8);
		break;
	case REC_HEADER_BUILD_ID:
		add_build_id(r, rec, size);
		break;
	case REC_HEADER_FEATURE:
		if (size >= 16 && get64(rec + 8) < FEAT_BITS)
			read_feature(r, (unsigned)get64(rec + 8), rec + 16, size - 16u);
		break;
	case REC_FINISHED_ROUND:
		if (flush(r, r->next_flush))
			return -1;
		r->next_flush = r->max_time;
		if (buf == UINT32_MAX)
			release_pages(r, rec);
		break;
	case REC_AUXTRACE:
		/* its trace follows it, outside its size */
		if (size < 16)
			return fail(r, offset_of(r, rec), "auxtrace record of %u bytes", size);
		*skip = get64(rec + 8);
		if (!r->info->aux++)
			r->first_aux = offset_of(r, rec);
		break;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (buf != UINT32_MAX) {
			bad_record(r, rec, "compressed record inside a compressed record");
			break;
		}
		return read_compressed(r, rec, size, type);
	default:
		/* HEADER_EVENT_TYPE, ID_INDEX, THREAD_MAP, STAT, TIME_CONV, ... */
		break;
	}
	return 0;
}

/*
 * Read the records from p to end (buf: the decompressed buffer they are
 * in, or UINT32_MAX for the file). *stop is where reading stopped: end,
 * or the start of a record that does not fit (a cut).
 */
static int
read_records(struct reader *r, const uint8_t *p, const uint8_t *end, uint32_t buf,
	     const uint8_t **stop)
{
	const struct import_options *o = r->opts;
	while (p < end) {
		uint32_t type;
		uint16_t size;
		uint64_t skip = 0, time;
		uint32_t ai;

		if (end - p < 8)
			break;
		type = get32(p);
		size = get16(p + 6);
		if (size < 8) {
			if (buf != UINT32_MAX) {
				bad_record(r, p, "record of %u bytes in compressed data", size);
				*stop = end;
				return 0;
			}
			return fail(r, offset_of(r, p), "record of type %" PRIu32 " has a size of %u bytes",
				    type, size);
		}
		if (size > end - p)
			break;
		r->info->records++;
		if (type >= REC_KERNEL_MAX) {
			if (read_user_record(r, p, size, type, buf, &skip))
				return -1;
			p += size;
			if (skip > (uint64_t)(end - p)) {
				p -= size;
				break;
			}
			p += skip;
			continue;
		}
		if (!r->nr_attrs) {
			if (buf == UINT32_MAX)
				return fail(r, offset_of(r, p), "a record of type %" PRIu32
					    " comes before any event attribute", type);
			bad_record(r, p, "record before any event attribute");
			p += size;
			continue;
		}
		ai = record_attr(r, p, size, type);
		if (ai == UINT32_MAX) {
			if (!r->unknown_ids++ && !r->info->bad)
				bad_record(r, p, "record of an id no event has");
			else
				r->info->bad++;
			p += size;
			continue;
		}
		if (record_time(r, p, size, type, &r->attrs[ai], &time)) {
			struct pd_event *e;

			if (time < r->last_flush)
				r->info->unordered++;
			if (time > r->max_time)
				r->max_time = time;
			ALLOC_GROW(r->queue, r->nr_queue, r->alloc_queue);
			e = &r->queue[r->nr_queue++];
			e->time = time;
			e->seq = r->seq++;
			e->rec = p;
			e->attr = ai;
			e->buf = buf;
			if (buf != UINT32_MAX)
				r->bufs[buf].refs++;
		} else if (deliver(r, p, ai)) {
			return -1;
		}
		p += size;
		if (o->progress && buf == UINT32_MAX &&
		    (uint64_t)(p - r->base) - r->progress_at >= ((uint64_t)1 << 20)) {
			uint64_t now = (uint64_t)(p - r->base);

			atomic_fetch_add(&o->progress->bytes_done, now - r->progress_at);
			r->progress_at = now;
			if (atomic_load(&o->progress->cancel))
				return tf_error_set(r->err, "cancelled");
		}
	}
	*stop = p;
	return 0;
}

/* ------------------------------------------------------------ the file */

/* The header of the file format: attrs, data section, features. */
static int
read_file_header(struct reader *r, uint64_t *data_off, uint64_t *data_size)
{
	const uint8_t *h = r->base;
	uint64_t hsize, attr_size, attrs_off, attrs_size, feat_off;
	uint64_t nr;

	if (r->len < FILE_HEADER_SIZE)
		return fail(r, r->len, "file ends inside its %d-byte header", FILE_HEADER_SIZE);
	hsize = get64(h + 8);
	attr_size = get64(h + 16);
	attrs_off = get64(h + 24);
	attrs_size = get64(h + 32);
	*data_off = get64(h + 40);
	*data_size = get64(h + 48);
	if (hsize < FILE_HEADER_SIZE)
		return fail(r, 8, "header size %" PRIu64 " is less than %d", hsize,
			    FILE_HEADER_SIZE);
	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 65536)
		return fail(r, 16, "attribute entry size %" PRIu64 " is not one perf writes",
			    attr_size);
	if (attrs_off > r->len || attrs_size > r->len - attrs_off)
		return fail(r, 24, "attribute section (%" PRIu64 " bytes at byte %" PRIu64
			    ") is outside the file of %zu bytes", attrs_size, attrs_off, r->len);
	if (*data_off > r->len)
		return fail(r, 40, "data section at byte %" PRIu64
			    " is outside the file of %zu bytes", *data_off, r->len);
	nr = attrs_size / attr_size;
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *e = r->base + attrs_off + i * attr_size;
		uint64_t asize = attr_size - 16, ids_off, ids_size;
		size_t a;

		/* perf's own attr size is in the entry; the ids section follows it */
		ids_off = get64(e + asize);
		ids_size = get64(e + asize + 8);
		a = attr_add(r, e, asize);
		if (ids_off > r->len || ids_size > r->len - ids_off)
			return fail(r, attrs_off + i * attr_size + asize,
				    "ids of event %" PRIu64 " (%" PRIu64 " bytes at byte %" PRIu64
				    ") are outside the file", i, ids_size, ids_off);
		for (uint64_t k = 0; k + 8 <= ids_size; k += 8)
			attr_add_id(r, a, get64(r->base + ids_off + k));
	}
	if (!r->nr_attrs)
		return fail(r, 24, "the file has no event attributes");

	/* features: a section each, in bit order, after the data */
	feat_off = *data_off + *data_size;
	if (*data_size > r->len - *data_off) {
		/* the data runs past the end: cut, so no features either */
		return 0;
	}
	{
		unsigned nfeat = 0, outside = 0;
		uint64_t first_outside = 0;

		for (unsigned bit = 0; bit < FEAT_BITS; bit++) {
			const uint8_t *sec;
			uint64_t off, size;

			if (!(h[72 + bit / 8] & (1u << (bit % 8))))
				continue;
			if (feat_off + (nfeat + 1) * 16ull > r->len) {
				profile_set_warn(r->ps, 0, "byte %" PRIu64 ": the file is cut "
						 "inside its list of feature sections",
						 (uint64_t)r->len);
				break;
			}
			sec = r->base + feat_off + nfeat * 16ull;
			nfeat++;
			off = get64(sec);
			size = get64(sec + 8);
			if (off > r->len || size > r->len - off) {
				if (!outside++)
					first_outside = (uint64_t)(sec - r->base);
				continue;
			}
			read_feature(r, bit, r->base + off, size);
		}
		/* one warning: a cut file has them all outside */
		if (outside)
			profile_set_warn(r->ps, 0, "byte %" PRIu64 ": %u feature sections "
					 "(event names, build ids, host) are outside the file",
					 first_outside, outside);
	}
	return 0;
}

static void
reader_release(struct reader *r)
{
	builder_release(&r->b);
	symbolizer_free(r->sym);
	strbuf_release(&r->sb);
	for (size_t i = 0; i < r->nr_attrs; i++)
		free(r->attrs[i].name);
	free(r->attrs);
	u64map_release(&r->ids);
	free(r->modules);
	u64map_release(&r->module_of);
	for (size_t i = 0; i < r->nr_spaces; i++)
		free(r->spaces[i].maps);
	free(r->spaces);
	u64map_release(&r->space_of);
	free(r->threads);
	u64map_release(&r->thread_of);
	free(r->fcache);
	free(r->ksyms.syms);
	if (r->ksyms.tried)
		strbuf_release(&r->ksyms.names);
	free(r->queue);
	for (size_t i = 0; i < r->nr_bufs; i++)
		free(r->bufs[i].data);
	free(r->bufs);
	ZSTD_freeDCtx(r->zd);
	free(r->leftover);
	free(r->proc_frames);
	free(r->bad_why);
}

/* The events of the file, for info. */
static void
fill_events(struct reader *r)
{
	struct perfdata_info *info = r->info;

	info->events = xcalloc(r->nr_attrs ? r->nr_attrs : 1, sizeof(*info->events));
	info->nr_events = r->nr_attrs;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		struct pd_attr *a = &r->attrs[i];
		struct perfdata_event *e = &info->events[i];

		if (!a->name) {
			strbuf_reset(&r->sb);
			attr_default_name(a, &r->sb);
			a->name = xstrdup(r->sb.buf);
		}
		e->name = xstrdup(a->name);
		e->type = a->type;
		e->config = a->config;
		e->sample_type = a->sample_type;
		e->nr_ids = a->nr_ids;
		e->nr_samples = a->nr_samples;
	}
}

/* The warnings of a read, given once each at the end. */
static void
warn_counts(struct reader *r)
{
	struct perfdata_info *info = r->info;

	if (info->lost)
		profile_set_warn(r->ps, 0, "perf lost %" PRIu64 " events (LOST records)",
				 info->lost);
	if (info->lost_samples)
		profile_set_warn(r->ps, 0, "perf lost %" PRIu64 " samples (LOST_SAMPLES records)",
				 info->lost_samples);
	if (info->aux)
		profile_set_warn(r->ps, 0, "byte %" PRIu64 ": %" PRIu64 " AUX trace records "
				 "(Intel PT, CoreSight, SPE) are not decoded", r->first_aux,
				 info->aux);
	if (info->bad) {
		if (r->first_bad == UINT64_MAX)
			profile_set_warn(r->ps, 0, "%" PRIu64 " records skipped, the first in "
					 "compressed data: %s", info->bad, r->bad_why);
		else
			profile_set_warn(r->ps, 0, "%" PRIu64 " records skipped, the first at "
					 "byte %" PRIu64 ": %s", info->bad, r->first_bad,
					 r->bad_why);
	}
	if (info->dwarf_samples)
		profile_set_warn(r->ps, 0, "%" PRIu64 " samples were recorded with "
				 "--call-graph dwarf, which this reader does not unwind yet: "
				 "their user stacks stop at the leaf (use perf script, the "
				 "default, for whole stacks)", info->dwarf_samples);
}

/* perfdata_read_buffer(), with mapped: data is a private mapping of the file. */
static int
read_buffer(const void *data, size_t len, bool mapped, const struct import_options *opts,
	    struct profile_set *ps, struct perfdata_info *info, struct tf_error *err)
{
	static const struct import_options defaults;
	struct perfdata_info scratch;
	struct reader r;
	const uint8_t *p, *end, *stop;
	uint64_t data_off = 0, data_size = 0;
	int ret = -1;

	if (!opts)
		opts = &defaults;
	if (!info)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	memset(&r, 0, sizeof(r));
	r.base = data;
	r.len = len;
	r.mapped = mapped;
	r.opts = opts;
	r.ps = ps;
	r.info = info;
	r.err = err;
	strbuf_init(&r.sb, 0);
	builder_init(&r.b, ps);
	r.b.max_samples = opts->max_samples;
	r.sym = symbolizer_new();
	symbolizer_set_lines(r.sym, false);
	symbolizer_set_dwarf(r.sym, false);
	fcache_grow(&r);
	space_get(&r, -1); /* spaces[0]: the kernel */
	r.unknown_module = module_get(&r, "[unknown]", 9);
	r.kernel_module = module_get(&r, KERNEL_MODULE, strlen(KERNEL_MODULE));
	ps->format = "perf.data";

	if (len < 16) {
		fail(&r, 0, "file of %zu bytes is too short for a perf.data header", len);
		goto out;
	}
	if (!memcmp(r.base, "2ELIFREP", 8)) {
		fail(&r, 0, "perf.data written on a big-endian machine is not read yet");
		goto out;
	}
	if (memcmp(r.base, "PERFILE2", 8)) {
		fail(&r, 0, memcmp(r.base, "PERFFILE", 8) ? "not a perf.data file (no PERFILE2 magic)"
			    : "perf.data of perf before Linux 2.6.36 (PERFFILE) is not read");
		goto out;
	}
	if (get64(r.base + 8) == PIPE_HEADER_SIZE) {
		info->pipe = true;
		p = r.base + PIPE_HEADER_SIZE;
		end = r.base + len;
	} else {
		if (read_file_header(&r, &data_off, &data_size))
			goto out;
		p = r.base + data_off;
		if (!data_size && len > data_off) {
			/* perf record stopped before it wrote its header's sizes */
			profile_set_warn(ps, 0, "byte 48: the header gives a data size of 0 "
					 "(perf record did not finish?): read to the end of "
					 "the file");
			end = r.base + len;
		} else if (data_size > len - data_off) {
			info->cut = true;
			end = r.base + len;
		} else {
			end = p + data_size;
		}
	}
	if (read_records(&r, p, end, UINT32_MAX, &stop))
		goto out;
	if (stop < end) {
		info->cut = true;
		profile_set_warn(ps, 0, "byte %" PRIu64 ": the file is cut inside a record; "
				 "read the %" PRIu64 " records before it",
				 (uint64_t)(stop - r.base), info->records);
	} else if (info->cut) {
		profile_set_warn(ps, 0, "byte %zu: the file is cut inside its data section "
				 "(%" PRIu64 " bytes from byte %" PRIu64 "); read the %" PRIu64
				 " records before the cut", len, data_size, data_off, info->records);
	}
	if (r.nr_leftover)
		profile_set_warn(ps, 0, "the compressed records end inside a record of "
				 "%zu bytes", r.nr_leftover);
	if (flush(&r, UINT64_MAX))
		goto out;
	if (!r.nr_attrs) {
		fail(&r, PIPE_HEADER_SIZE, "the pipe holds no event attributes");
		goto out;
	}
	warn_counts(&r);
	if (opts->progress)
		atomic_fetch_add(&opts->progress->bytes_done, len - r.progress_at);
	ret = 0;
out:
	fill_events(&r);
	reader_release(&r);
	if (info == &scratch)
		perfdata_info_release(&scratch);
	return ret;
}

int
perfdata_read_buffer(const void *data, size_t len, const struct import_options *opts,
		     struct profile_set *ps, struct perfdata_info *info,
		     struct tf_error *err)
{
	return read_buffer(data, len, false, opts, ps, info, err);
}

void
perfdata_info_release(struct perfdata_info *info)
{
	if (!info)
		return;
	free(info->hostname);
	free(info->os_release);
	free(info->version);
	free(info->arch);
	free(info->cpudesc);
	free(info->cmdline);
	for (size_t i = 0; i < info->nr_events; i++)
		free(info->events[i].name);
	free(info->events);
	for (size_t i = 0; i < info->nr_build_ids; i++)
		free(info->build_ids[i].path);
	free(info->build_ids);
	memset(info, 0, sizeof(*info));
}

bool
perfdata_native_wanted(void)
{
	const char *v = getenv("TFLAME_PERFDATA");

	return v && !strcmp(v, "native");
}

/* ------------------------------------------------------------ the importer */

static int
native_load(struct input *in, const struct import_options *opts, struct profile_set *ps,
	    struct tf_error *err)
{
	uint8_t *buf = NULL;
	void *map = MAP_FAILED;
	const void *data;
	size_t len;
	int ret;

	/* a plain file is read in place; anything else is read whole first */
	if (in->compression == INPUT_PLAIN && in->regular && in->size &&
	    in->size <= SIZE_MAX && strcmp(in->name, "<stdin>"))
		map = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (map != MAP_FAILED) {
		data = map;
		len = (size_t)in->size;
	} else {
		if (input_read_all(in, &buf, &len, err))
			return -1;
		data = buf;
	}
	ret = read_buffer(data, len, map != MAP_FAILED, opts, ps, NULL, err);
	if (map != MAP_FAILED)
		munmap(map, (size_t)in->size);
	free(buf);
	return ret;
}

static int
native_probe(const char *data, size_t len)
{
	(void)data;
	(void)len;
	return 0;
}

const struct importer importer_perfdata_native = {
	.name = "perf.data-native",
	.description = "perf.data",
	.probe = native_probe,
	.load = native_load,
	.names = NULL,
};

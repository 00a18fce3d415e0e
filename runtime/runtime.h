/*
 * runtime: the context, .npy I/O, atomic output files, the reference
 * interpreter and the CUDA driver (cuda.c). The public API
 * (include/slicegen.h) is implemented here on top of the stage functions,
 * which report through sg_error.
 */
#ifndef SG_RUNTIME_H
#define SG_RUNTIME_H

#include <pthread.h>

#include "../planner/planner.h"

struct sg_context {
    sg_error last;                   /* last failure; status SG_OK and "" when none */
    pthread_mutex_t lock;            /* guards `last`, `kernels`, `pool` and `cuda` */
    struct sg_kernel_cache *kernels; /* kernel.c; made at the first compile */
    struct sg_pool *pool;            /* pool.c; made at the first threaded run */
    struct sg_cuda_state *cuda;      /* cuda.c; made at the first CUDA call that needs a device */
};

/* The thread pool (pool.c): workers start on first need and live until
 * sg_pool_destroy. sg_pool_run calls task(arg, part) for every part in
 * [0, parts) on up to `parts` threads, the caller included, and returns when
 * all have finished. While another thread's job runs on the same pool, the
 * caller runs its parts itself. */
typedef struct sg_pool sg_pool;
sg_pool *sg_pool_create(void);
void sg_pool_destroy(sg_pool *pool);
void sg_pool_run(sg_pool *pool, int parts, void (*task)(void *arg, int part), void *arg);
/* pthread_create for the library's own threads (pool.c): they start with
 * every signal that comes from outside the process blocked (all but SIGBUS,
 * SIGFPE, SIGILL, SIGSEGV and SIGTRAP), so that SIGINT or SIGTERM reach a
 * thread of the program, whose handler may then run sg_remove_temporary_files. */
int sg_thread_start(pthread_t *thread, void *(*start)(void *), void *arg);

/* Copies err into the context's last error and returns err->status. */
sg_status sg_context_report(sg_context *ctx, const sg_error *err);

/* ---- compile options (options.c) -------------------------------------------------
 *
 * The fields of sg_compile_options after `size`, in order, each with the
 * calls that read it: the one list the reader and the layout table
 * (layout.c) go by. A field appended to the struct is a row here. */
typedef enum sg_option_reader {
    SG_READ_JIT = 1,  /* sg_kernel_compile_with */
    SG_READ_IR = 2,   /* sg_kernel_ir_with */
    SG_READ_AOT = 4,  /* sg_aot_write_with, sg_aot_kernel_name_with */
    SG_READ_CUDA = 8, /* sg_cuda_kernel_compile_with */
} sg_option_reader;
#define SG_COMPILE_OPTIONS(X)                                                                                \
    X(opt_level, SG_READ_JIT | SG_READ_IR | SG_READ_AOT | SG_READ_CUDA)                                      \
    X(stores, SG_READ_JIT | SG_READ_IR | SG_READ_AOT)                                                        \
    X(target, SG_READ_AOT)                                                                                   \
    X(cpu, SG_READ_AOT)                                                                                      \
    X(no_cf_protection, SG_READ_AOT)                                                                         \
    X(prefix, SG_READ_AOT)                                                                                   \
    X(command, SG_READ_AOT)                                                                                  \
    X(progress, SG_READ_AOT)                                                                                 \
    X(progress_arg, SG_READ_AOT)                                                                             \
    X(model, SG_READ_AOT)                                                                                    \
    X(device, SG_READ_CUDA)

/* The options a call of `reader` compiles with: given's (NULL: the
 * defaults) by the size rule of include/slicegen.h, every field past
 * given->size at its default; o->size is then sizeof(sg_compile_options).
 * SG_ERR_USAGE, "failed to <what>: ...", for a size out of the rule or a
 * field reader does not read set to other than its default. The values of
 * opt_level and stores are the caller's to check. */
sg_status sg_compile_options_read(const sg_compile_options *given, sg_option_reader reader, const char *what,
                                  sg_compile_options *o, sg_error *err);

/* ---- the kernel caches (cache.c) -------------------------------------------------
 *
 * The one mechanism under the CPU kernels' cache (kernel.c) and the CUDA
 * kernels' (cuda.c): a hash table of entries keyed by bytes (the canonical
 * nest, codegen.h's sg_nest_key) and two numbers that tell kernels of one
 * nest apart (the optimization level and stores; the input size, and the
 * device with the optimization level). A
 * kernel type embeds an sg_cache_entry as its first member; the entry owns
 * its key bytes (malloc'd), which the type's free function frees.
 *
 * sg_cache_get finds a key's entry and takes a reference: READY, it is a
 * hit; COMPILING in another thread, it waits on `done` (the context's lock
 * released meanwhile) for the outcome; FAILED, it returns that compile's
 * error. Not there, it makes the kernel: an entry of the kind's size,
 * inserted (COMPILING, one reference, serial = the count of compiles),
 * filled by the kind's init under the lock and by its build outside it, then
 * published (the waiters woken; a failed entry leaves the table, and is
 * freed once nobody holds it). So each kernel compiles once however many
 * threads ask for it.
 * Released entries stay, idle, until more than idle_max are idle; then
 * the least recently released are taken out of the table and returned
 * (linked by `next`) for the caller to free outside the lock. All but
 * init, fini and publish are called with the context's lock held. */
typedef enum sg_cache_state { SG_CACHE_COMPILING, SG_CACHE_READY, SG_CACHE_FAILED } sg_cache_state;

typedef struct sg_cache_entry {
    struct sg_cache_entry *next;                  /* hash chain; the list of victims */
    struct sg_cache_entry *idle_prev, *idle_next; /* idle list, while refs == 0 */
    uint8_t *key;
    size_t len;
    uint64_t hash, variant[2];
    uint64_t serial; /* 1, 2, ...: the cache's compiles when it was inserted */
    int refs;
    sg_cache_state state;
    sg_error error; /* FAILED: why, for the waiters */
} sg_cache_entry;

typedef struct sg_cache {
    pthread_cond_t done; /* some compile finished */
    sg_cache_entry **buckets;
    size_t nbuckets, count;
    sg_cache_entry *idle_first, *idle_last; /* least recently released first */
    size_t nidle, idle_max;
    uint64_t compiles, hits;
} sg_cache;

sg_status sg_cache_init(sg_cache *c, size_t idle_max, sg_error *err);
/* Frees every entry with free_entry, then the table. */
void sg_cache_fini(sg_cache *c, void (*free_entry)(sg_cache_entry *entry));
/* What the cache holds: kernels of `size` bytes (the sg_cache_entry
 * first), `what` in messages ("kernel", "CUDA kernel"). init sets a new
 * entry's fields from the caller's arg, under the lock; build compiles it,
 * outside the lock (sg_error as usual); free_entry frees an entry, its key
 * bytes included. */
typedef struct sg_cache_kind {
    size_t size;
    const char *what;
    void (*init)(sg_cache_entry *entry, const void *arg);
    sg_status (*build)(sg_cache_entry *entry, const void *arg, sg_error *err);
    void (*free_entry)(sg_cache_entry *entry);
} sg_cache_kind;

/* The kernel of key and variant, found or made as above, in *out with a
 * reference held. Takes key's bytes: the entry keeps them, or they are
 * freed. Called without the lock. */
struct sg_nest_key;
sg_status sg_cache_get(sg_cache *c, pthread_mutex_t *lock, const sg_cache_kind *kind,
                       const struct sg_nest_key *key, const uint64_t variant[2], const void *arg,
                       sg_cache_entry **out, sg_error *err);
sg_cache_entry *sg_cache_release(sg_cache *c, sg_cache_entry *entry);
sg_cache_entry *sg_cache_set_idle_max(sg_cache *c, size_t idle_max);

/* The kernel cache (kernel.c). Kernels are keyed by the canonical nest
 * (codegen.h: sg_nest_key) and the optimization level; the target is the
 * host, fixed per context. A kernel whose last reference is released stays
 * cached, idle, so that compiling it again is a hit; once more than
 * `idle_max` kernels are idle (SG_KERNEL_IDLE_MAX by default) the least
 * recently released one is unloaded. sg_context_destroy unloads all. */
#define SG_KERNEL_IDLE_MAX 1024
void sg_kernel_cache_destroy(sg_context *ctx);

typedef struct sg_kernel_stats {
    uint64_t compiles; /* kernels compiled (cache misses) */
    uint64_t hits;     /* sg_kernel_compile_with calls served from the cache */
    uint64_t cached;   /* kernels loaded now (in use or idle) */
    uint64_t idle;     /* of which no reference is held */
} sg_kernel_stats;
void sg_kernel_cache_stats(sg_context *ctx, sg_kernel_stats *stats);
void sg_kernel_cache_set_idle_max(sg_context *ctx, size_t idle_max);

/* The size of the last-level cache one core of this machine sees; 0 if
 * unknown (codegen/target.c, where it decides the streaming stores of
 * kernels; the benchmark prints it). */
uint64_t sg_host_llc_bytes(void);
/* --stores auto's threshold derived from this machine's last-level cache
 * (codegen.h, sg_codegen_stream_threshold): what objects for --cpu native
 * use, and what the JIT uses when nothing was measured. */
int64_t sg_host_stream_threshold(void);
/* --stores auto's threshold for the JIT's static kernels on this machine:
 * the output bytes above which they stream. SLICEGEN_STREAM_THRESHOLD when
 * set, else measured the first time it is asked (a few hundred
 * milliseconds, once; runtime/stores_probe.c): a copy of rows of 8 KiB
 * compiled cached and streaming, run in turn on one thread at outputs of
 * 32 MiB, then halved down to SG_STREAM_PROBE_MIN, until the cached
 * median is below the streamed one at a size S, then once more at 3/2 S.
 * The threshold is the larger of the two where cached stores won (where
 * they won at 32 MiB, the larger of it and the derived threshold);
 * SG_STREAM_PROBE_MIN when streaming won at every size; the derived one
 * when the probe fails. Outputs of at most
 * SG_STREAM_PROBE_MIN bytes are never streamed by auto and ask nothing.
 * figures (may be NULL) receives what was decided and from what. */
#define SG_STREAM_PROBE_MIN ((int64_t)1 << 20)
enum { SG_THRESHOLD_PROBE_SIZES = 8 };
typedef struct sg_threshold_probe {
    int64_t setting;   /* SLICEGEN_STREAM_THRESHOLD, or -1 when unset */
    int64_t derived;   /* half the last-level cache (sg_host_stream_threshold) */
    bool measured;     /* the probe ran to its end */
    int64_t threshold; /* the decision */
    int nsizes;        /* the sizes measured: from the largest down, halving */
    bool refined;      /* ... and the last one 3/2 of the one before */
    uint64_t output_bytes[SG_THRESHOLD_PROBE_SIZES];
    double cached_s[SG_THRESHOLD_PROBE_SIZES], streaming_s[SG_THRESHOLD_PROBE_SIZES]; /* medians */
} sg_threshold_probe;
int64_t sg_host_measured_stream_threshold(sg_threshold_probe *figures);
/* Whether --stores auto streams kernels whose rows are short pieces
 * (codegen.h, SG_AUTO_SHORT_ROWS) in this process: SLICEGEN_STREAM_SHORT_ROWS
 * when it is 0 or 1, else measured the first time it is asked (tens of
 * milliseconds, once; runtime/stores_probe.c): such a kernel of an output
 * past the cache compiled cached and streaming, run in turn on one thread,
 * streaming taken when its median time is at most the cached one's.
 * figures (may be NULL) receives what was decided and from what. */
typedef struct sg_short_rows_probe {
    int setting;                  /* SLICEGEN_STREAM_SHORT_ROWS: 0, 1, or -1 when unset */
    bool measured;                /* the probe ran to its end (false: it failed, and nothing streams) */
    bool streams;                 /* the decision */
    uint64_t output_bytes;        /* the probe kernel's output */
    double cached_s, streaming_s; /* its median times */
} sg_short_rows_probe;
bool sg_host_short_rows_stream(sg_short_rows_probe *figures);

/* The reference interpreter (see sg_run_reference). */
void sg_interpret(const sg_plan *plan, const void *in, void *out);

/* .npy I/O (see sg_npy_read, sg_npy_read_header and sg_npy_write).
 * sg_npy_load reads data of less than SG_NPY_MAP_MIN bytes into malloc'd
 * memory and maps larger data read-only; sg_npy_load_map does the same with
 * another threshold (0 maps every non-empty file; tests use it). Where the
 * file system cannot map a file, it is read. */
#define SG_NPY_MAP_MIN ((uint64_t)1 << 20)
sg_status sg_npy_load(const char *path, sg_tensor *tensor, sg_error *err);
sg_status sg_npy_load_map(const char *path, uint64_t map_min, sg_tensor *tensor, sg_error *err);
sg_status sg_npy_load_header(const char *path, sg_tensor *tensor, sg_error *err);
sg_status sg_npy_store(const char *path, const sg_tensor *tensor, sg_error *err);
/* sg_tensor_destroy: frees or unmaps the data. */
void sg_npy_release(sg_tensor *tensor);

/* Writes the `nparts` buffers (parts[i], sizes[i] bytes) to path atomically:
 * a temporary file in the same folder, named after path with the suffix
 * SG_TEMP_SUFFIX (its last name cut short, at a UTF-8 character boundary,
 * where the name with the suffix would be longer than the folder takes:
 * pathconf's _PC_NAME_MAX, or 255), fsync'd, then renamed over path. A last
 * name longer than the folder takes fails before anything is written.
 * On any failure the temporary file is removed and path is untouched. While
 * it exists the temporary file is listed in a process-wide registry (the one
 * global of the library: signal handlers cannot reach a context), from
 * which sg_remove_temporary_files removes it. */
#define SG_TEMP_SUFFIX ".slicegen-tmp-XXXXXX"
sg_status sg_write_file_atomic(const char *path, const void *const *parts, const size_t *sizes, size_t nparts,
                               sg_error *err);

/* The same in two steps: sg_file_stage writes and syncs the temporary
 * file, sg_file_commit renames it over path, sg_file_discard removes what
 * is left (a staged file not committed) and frees the record. A record
 * made by a failed stage, or zeroed, may be discarded. Symbolic links are
 * followed (the file they name is replaced, the link stays); a special
 * file (device, FIFO) is written directly by sg_file_stage and never
 * replaced. */
typedef struct sg_staged_file {
    char *path, *tmp;
    int slot; /* 1 + its index in the registry of temporary files; 0: none */
} sg_staged_file;
sg_status sg_file_stage(const char *path, const void *const *parts, const size_t *sizes, size_t nparts,
                        sg_staged_file *staged, sg_error *err);
sg_status sg_file_commit(sg_staged_file *staged, sg_error *err);
/* Commits count staged files in order, stopping at the first failure; no
 * signal is taken between the renames, so an interrupted command replaces
 * all its outputs or none. Records zeroed or of special files are skipped. */
sg_status sg_file_commit_all(sg_staged_file *staged, size_t count, sg_error *err);
void sg_file_discard(sg_staged_file *staged);

/* Whether two output paths name one file, so that writing both would leave
 * only the second: symbolic links are followed as sg_file_stage follows
 * them; then two existing files are the same when their device and inode
 * are (hard links too), an existing file and a missing one never are, and
 * two missing files are when their folders' real paths and their last
 * names are. Paths that cannot be resolved are compared as they are
 * (writing them fails anyway). Fails only when out of memory. */
sg_status sg_same_file(const char *a, const char *b, bool *same, sg_error *err);

/* ---- CUDA (cuda.c) ---------------------------------------------------------------
 *
 * The CUDA driver API, loaded with dlopen("libcuda.so.1") and initialised
 * (cuInit) once per process; the loaded entry points are the one other
 * process-wide state of the library, written once under pthread_once. No
 * driver, a driver that does not start or no device: SG_ERR_USAGE, "failed
 * to use CUDA: ...". A driver call failing later: SG_ERR_INTERNAL (or
 * SG_ERR_NOMEM for CUDA_ERROR_OUT_OF_MEMORY), "failed to <verb> <object>:
 * CUDA_ERROR_X: <the driver's words>".
 *
 * Per context (ctx->cuda): the primary context of each device used,
 * retained at its first use and released by sg_cuda_destroy, and the cache
 * of CUDA kernels, keyed by the canonical nest, the input size, the
 * device ordinal and the optimization level. Released kernels stay loaded, idle, until more than
 * SG_CUDA_IDLE_MAX are idle; then the least recently released is unloaded.
 * Device pointers are CUdeviceptr values (uint64_t), streams CUstream
 * values (void *, NULL for the legacy default stream); every call below
 * makes the device's primary context current around its driver calls. */
#define SG_CUDA_IDLE_MAX 256

/* Unloads every CUDA kernel of ctx and releases its primary contexts
 * (sg_context_destroy). */
void sg_cuda_destroy(sg_context *ctx);

/* The name and compute capability of a device, and the GPU name the code
 * generator compiles for (sg_gpu_cpu_for; NULL if too old). */
typedef struct sg_cuda_device_info {
    char name[256];
    int major, minor;
    const char *cpu;
} sg_cuda_device_info;
sg_status sg_cuda_device_describe(int device, sg_cuda_device_info *info, sg_error *err);

/* Device memory of `device` (at least 1 byte; aligned to 256). */
sg_status sg_cuda_alloc(sg_context *ctx, int device, uint64_t bytes, uint64_t *ptr, sg_error *err);
/* Accepts 0. */
void sg_cuda_free(sg_context *ctx, int device, uint64_t ptr);
/* Synchronous copies between the host and the device. */
sg_status sg_cuda_copy_to_device(sg_context *ctx, int device, uint64_t dst, const void *src, uint64_t bytes,
                                 sg_error *err);
sg_status sg_cuda_copy_to_host(sg_context *ctx, int device, void *dst, uint64_t src, uint64_t bytes,
                               sg_error *err);
/* Enqueues a copy of `bytes` from src to dst (device memory) on stream. */
sg_status sg_cuda_copy_on_device(sg_context *ctx, int device, uint64_t dst, uint64_t src, uint64_t bytes,
                                 void *stream, sg_error *err);
/* Waits for everything queued on stream. */
sg_status sg_cuda_synchronize(sg_context *ctx, int device, void *stream, sg_error *err);

/* Times work queued on a stream of its own with two CUDA events: start
 * records the first, stop the second, waits for it and returns the time
 * between them. */
typedef struct sg_cuda_timer sg_cuda_timer;
sg_status sg_cuda_timer_create(sg_context *ctx, int device, sg_cuda_timer **timer, sg_error *err);
void *sg_cuda_timer_stream(const sg_cuda_timer *timer);
sg_status sg_cuda_timer_start(sg_cuda_timer *timer, sg_error *err);
sg_status sg_cuda_timer_stop(sg_cuda_timer *timer, double *seconds, sg_error *err);
/* Accepts NULL. */
void sg_cuda_timer_destroy(sg_cuda_timer *timer);

/* What a kernel's compile cost: the code generator making its PTX, and the
 * driver loading that PTX (cuModuleLoadDataEx, which compiles it for the
 * device) with cuModuleGetFunction. */
void sg_cuda_kernel_times(const sg_cuda_kernel *kernel, double *codegen_s, double *load_s);

typedef struct sg_cuda_stats {
    uint64_t compiles; /* kernels compiled and loaded (cache misses) */
    uint64_t hits;     /* sg_cuda_kernel_compile_with calls served from the cache */
    uint64_t cached;   /* kernels loaded now (in use or idle) */
    uint64_t idle;     /* of which no reference is held */
} sg_cuda_stats;
void sg_cuda_cache_stats(sg_context *ctx, sg_cuda_stats *stats);

#endif /* SG_RUNTIME_H */

/*
 * bench's own parts, shared by its files and private to bench/ (bench.h is
 * what the rest of slicegen sees): the state of one run of `slicegen bench`
 * and what each file exports to the others.
 *
 *   bench.c    the suite, timing, running the cases, the table and the
 *              progress line, sg_bench_run
 *   cuda.c     the suite's cases as CUDA kernels (--device cuda)
 *   compile.c  compile latency: medians over distinct plans, JIT creation,
 *              a cache hit, the `slicegen emit` process, ahead-of-time
 *              output of many kernels
 *   values.c   runtime values: each case's symbolic kernel against its
 *              static one, the cost of a prepared call, a decode loop
 *   report.c   the output files: checking their paths, text buffers, the
 *              JSON text, the gnuplot chart, writing both atomically
 *   process.c  the temporary folder, running a program, finding one on PATH
 */
#ifndef SG_BENCH_INTERNAL_H
#define SG_BENCH_INTERNAL_H

#include <limits.h>

#include "bench.h"

#if defined(__GNUC__)
#define SG_BENCH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SG_BENCH_PRINTF(f, a)
#endif

/* The most steps a program case is also run as (bench_case.separate). */
enum { SG_BENCH_MAX_STEPS = 3 };

/* One slice of the suite. */
typedef struct bench_case {
    const char *name;
    sg_dtype dtype;
    size_t rank;
    int64_t shape[4];
    int64_t quick_shape[4]; /* --quick; all zero: the same as shape */
    const char *expr;       /* a NumPy expression; NULL for TrtSlice */
    sg_trt_mode mode;       /* TrtSlice: start, size (size[0] is the input's shape[0]) */
    int64_t start[3], size[3];
    bool tiny;             /* also reported in ns per call */
    int64_t cuda_shape[4]; /* --device cuda without --quick; all zero: the same as shape */
    /* expr is a NumPy program (docs/programs.md): one kernel of parts, no
     * runtime values, no GPU kernel (both skipped with a note) */
    bool program;
    /* A program that is also timed as its steps, each a kernel of its own
     * on the output of the step before (the first on the case's input),
     * into temporaries: NumPy expressions, NULL after the last; NULL: none */
    const char *separate[SG_BENCH_MAX_STEPS + 1];
} bench_case;

/* How long and how often things are timed (--quick or not). */
typedef struct timing {
    int warmup;                   /* calls before any is timed */
    int min_samples, max_samples; /* max_samples <= SG_BENCH_MAX_SAMPLES */
    double target_s;              /* samples are taken until about this much time is spent */
    double sample_s;              /* a sample is a batch of calls lasting at least this */
    double interp_once_s;         /* an interpreter run this long is timed once */
    int compile_plans;            /* plans per compile median */
    int contexts;                 /* fresh contexts for JIT creation */
    int hits;                     /* cache hits averaged */
    int processes;                /* emit processes */
    int aot_layers;               /* the smallest of the three aot outputs, in kernels */
    int decode_steps;             /* steps of the decode loop: t = 1..decode_steps */
    int64_t decode_length;        /* the length of its KV cache */
} timing;

enum { SG_BENCH_MAX_SAMPLES = 1001 };

/* One timed operation; it records a failure in `status`. An operation
 * that needs more embeds an op as its first member and casts back. */
typedef struct op {
    sg_context *ctx;
    const sg_kernel *kernel;
    const sg_plan *plan;
    const void *in;
    void *out;
    uint64_t bytes;
    int threads;
    sg_status status;
} op;

/* An operation to time: calls per sample (a batch long enough for the
 * clock), and the samples' seconds per call. */
typedef struct timed {
    void (*fn)(op *);
    op *o;
    long batch;
    double v[SG_BENCH_MAX_SAMPLES];
} timed;

/* The figures of one case. */
typedef struct case_result {
    const bench_case *c;
    char *spec; /* command-line form; malloc'd */
    int64_t shape[4];
    size_t out_rank;
    int64_t out_shape[SG_MAX_RANK];
    uint64_t bytes, in_bytes, traffic;
    double kernel_s, threads_s, memcpy_s, limit_s, interp_s;
    /* the streaming copy of the output bytes (non-temporal stores); the
     * limit is taken from the faster of it and memcpy. --device cuda: 0 */
    double stream_s;
    /* the kernel compiled with --stores cached and streaming, timed in
     * turn with the one of --stores auto (kernel_s), and whether auto
     * chose streaming. --device cuda: 0 */
    double cached_s, streaming_s;
    bool auto_streams;
    int samples, interp_runs;
    /* --device cuda: memcpy_s is the device-to-device copy; threads_s and
     * interp_s stay 0 */
    double codegen_s, load_s; /* PTX made by the code generator, loaded by the driver */
    uint32_t grid, block;
    /* a program: its parts; with steps run apart (bench_case.separate):
     * their specs in command-line form (malloc'd) and output shapes, and
     * the steps' kernels back to back on 1 thread, timed in turn with the
     * program's kernel (kernel_fused_s: its time in that pairing) */
    size_t nparts;
    int nsteps;
    char *step_spec[SG_BENCH_MAX_STEPS];
    size_t step_rank[SG_BENCH_MAX_STEPS];
    int64_t step_shape[SG_BENCH_MAX_STEPS][SG_MAX_RANK];
    double separate_s, fused_s;
    int separate_samples;
} case_result;

/* One compile figure. */
typedef struct compile_result {
    const char *name; /* one of bench.compile_names */
    double seconds;
    int samples;
} compile_result;

/* The compile figures, in the order they are measured and reported: the
 * aot figures are sg_aot_write_with of 1, 2 and 4 times timing.aot_layers
 * kernels. */
enum {
    COMPILE_JIT,
    COMPILE_O0,
    COMPILE_DEFAULT_LEVEL,
    COMPILE_CACHE_HIT,
    COMPILE_EMIT,
    COMPILE_AOT,
    COMPILE_AOT_LAST = COMPILE_AOT + 2,
    NCOMPILE
};

/* The runtime-values figures: one per case of the suite and the decode
 * loop. */
enum { SG_BENCH_MAX_VALUES = 48, SG_BENCH_MAX_NAMED = 16 };

/* A symbolic form of a case's spec (values.c): its integers named v0, v1,
 * ..., and the symbolic kernel's times. */
typedef struct values_form {
    char *spec; /* command-line form; malloc'd */
    int nvalues;
    int64_t values[SG_BENCH_MAX_NAMED]; /* of v0, v1, ... */
    /* sg_kernel_run_args of values prepared once, on 1 and on N threads
     * (tiny: the prepare and kernel functions called directly, 1 thread) */
    double s, threads_s;
    double compile_s; /* its JIT compile at the default level, a cache miss (the best of 2) */
} values_form;

/* One runtime-values figure (values.c). */
typedef struct values_result {
    char name[48];       /* "values: <case>" or "values: decode" */
    const bench_case *c; /* NULL for the decode loop */
    char *spec;          /* the static spec, command-line form; malloc'd */
    size_t rank;
    int64_t shape[4];          /* the input's */
    int64_t symbolic_shape[4]; /* the symbolic plans' input: -1 for a dimension known at run time */
    uint64_t bytes;            /* output bytes (decode: at the last step) */
    int samples;
    /* A case: its static kernel on 1 and on N threads (tiny: its function
     * called directly, 1 thread), and two symbolic forms: every integer a
     * value but the steps (or strides), and every integer (the first again
     * when the spec has no step). Decode: bounds.spec is the spec with t. */
    double static_s, static_threads_s;
    double static_compile_s; /* the static kernel's JIT compile at the default level, as compile_s */
    values_form bounds, steps;
    /* Decode: totals over decode_steps steps, t = 1..decode_steps; the
     * dynamic kernel and memcpy are medians of `rounds` loops each. */
    int rounds;
    uint64_t compiles; /* cache misses of the static kernels */
    double dynamic_s, jit_s, compile_s, memcpy_s;
} values_result;

/* One run of `slicegen bench`. */
typedef struct bench {
    const sg_bench_options *o;
    const timing *t;
    int threads; /* the N of the N-thread runs */
    /* --device cuda: the device's name, compute capability and GPU name */
    char device_name[256];
    int cc_major, cc_minor;
    const char *gpu;
    compile_result compiles[NCOMPILE];
    int ncompiles;
    char compile_names[NCOMPILE][96];
    char *tmpdir;     /* for the emit process and gnuplot; NULL until needed */
    char *gnuplot;    /* its path when --plot */
    int shown, total; /* progress: the case being measured, of how many */
    bool showing;     /* a progress line is on the terminal */
    int nvalues;
    values_result values[SG_BENCH_MAX_VALUES];
    int nresults;
    case_result results[]; /* one per case of the suite */
} bench;

/* A growing string; after a failed allocation `failed` is set and it stays
 * as it was. Zero-initialized is empty; s is malloc'd. */
typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

/* ---- bench.c ------------------------------------------------------------- */

/* The suite, in the order it runs; *count cases. */
const bench_case *sg_bench_cases(int *count);
/* The shape of case c's input on the CPU (its quick shape with --quick). */
const int64_t *sg_bench_cpu_shape(const bench *b, const bench_case *c);
/* The plan of case c on an input of `shape`, and its spec in command-line
 * form (*spec_text, malloc'd). On failure *plan is NULL; the message names
 * the case. */
sg_status sg_bench_case_plan(sg_context *ctx, const bench_case *c, const int64_t *shape, sg_plan **plan,
                             char **spec_text, sg_error *err);
/* The plan of case c on an input of `shape`, and *r started: the case, its
 * shapes, its spec in command-line form (malloc'd; sg_bench_run frees it),
 * its output and input bytes and its traffic. On failure *plan is NULL. */
sg_status sg_bench_case_prepare(bench *b, sg_context *ctx, const bench_case *c, const int64_t *shape,
                                case_result *r, sg_plan **plan, sg_error *err);
/* A 64-byte aligned buffer of at least n bytes, every page written: with a
 * pseudo-random pattern, or zeros. NULL when out of memory; free() it. */
void *sg_bench_buffer(uint64_t n, bool pattern);
/* A case's buffers (sg_bench_buffer): the input, a pattern, large enough
 * for memcpy of the output's bytes from it (at least `bytes`: TensorRT
 * borders make the output larger), and the output, zeros. SG_ERR_NOMEM
 * naming the case `name`, both NULL, when out of memory. */
sg_status sg_bench_buffers(const char *name, uint64_t in_bytes, uint64_t bytes, void **in, void **out,
                           sg_error *err);
/* A digest of a buffer, to compare outputs without keeping two. */
uint64_t sg_bench_digest(const void *data, uint64_t n);
/* Records "failed to benchmark 'NAME': <ctx's last error>" with status st. */
sg_status sg_bench_from_context(sg_context *ctx, sg_status st, sg_error *err, const char *name);
/* n bytes as the table shows them ("1.50 MiB"); returns buf. */
const char *sg_bench_format_bytes(char buf[32], uint64_t n);
/* What follows the table: notes, TensorRT modes against strict, the tiny
 * case per call. */
void sg_bench_print_notes(bench *b);

/* The monotonic clock in seconds. */
double sg_bench_now(void);
/* The median of n > 0 values, which it sorts in place. */
double sg_bench_median(double *v, int n);
/* Seconds per call of each of n operations (1 to 3), the medians of their
 * samples, taken in turn so that all see the same conditions (other
 * processes, clock speed) and their ratio is steadier than either time.
 * *samples: how many each got. */
void sg_bench_measure_together(const timing *t, timed *x, int n, double *seconds, int *samples);
/* sg_kernel_run of o->kernel on o->threads threads. */
void sg_bench_op_kernel(op *o);
/* memcpy, called through a pointer the compiler cannot see through, so
 * that a batch of the same copy is not folded into one. */
extern void *(*volatile sg_bench_copy)(void *, const void *, size_t);
/* Whether --case selects the case or compile figure called `name`. */
bool sg_bench_selected(const bench *b, const char *name);
/* A new context in *ctx; SG_ERR_NOMEM with the message if none can be made
 * (*ctx is then NULL). */
sg_status sg_bench_new_context(sg_context **ctx, sg_error *err);
/* Shows "[shown/total] <message>" on the progress line (when there is one),
 * replacing what it showed. */
void sg_bench_progress(bench *b, const char *fmt, ...) SG_BENCH_PRINTF(2, 3);
/* Writes a line of the table (fmt ends in a newline) on options->out,
 * after clearing the progress line. */
void sg_bench_say(bench *b, const char *fmt, ...) SG_BENCH_PRINTF(2, 3);
/* s seconds as the table shows them ("12.3 us"); returns buf. */
const char *sg_bench_format_time(char buf[32], double s);
/* The trt-strict result a TensorRT case of another mode is compared with
 * (the same output shape); NULL for the other cases or when trt-strict was
 * not run. */
const case_result *sg_bench_strict_baseline(const bench *b, const case_result *r);

/* ---- cuda.c -------------------------------------------------------------- */

/* --device cuda: the title, then each selected case on CUDA device 0 of
 * ctx, a table line for each as soon as it is measured, then the notes.
 * A driver or device that cannot be used is SG_ERR_USAGE (before anything
 * is measured); a kernel whose output differs from the reference
 * interpreter's SG_ERR_INTERNAL. */
sg_status sg_bench_run_cuda(bench *b, sg_context *ctx, sg_error *err);

/* ---- compile.c ----------------------------------------------------------- */

/* Fills b->compile_names, which depend on b->t. */
void sg_bench_name_compiles(bench *b);
/* How many compile figures --case selects. */
int sg_bench_compiles_selected(const bench *b);
/* Measures the selected compile figures on contexts of its own, each
 * appended to b->compiles and said as a table line when measured. */
sg_status sg_bench_run_compiles(bench *b, sg_error *err);

/* ---- values.c ------------------------------------------------------------ */

/* How many runtime-values figures --case selects: "values: <case>" for each
 * case of the suite, "values: decode". */
int sg_bench_values_selected(const bench *b);
/* Measures them on a context of its own (the decode loop on another),
 * each appended to b->values and said when measured, after a title line;
 * a selected program case gets a line saying it is skipped.
 * A symbolic kernel whose output differs from the static kernel's, or
 * from memcpy of the same rows, is SG_ERR_INTERNAL. */
sg_status sg_bench_run_values(bench *b, sg_error *err);

/* ---- report.c ------------------------------------------------------------ */

/* Appends printf-style text to t (nothing once t->failed). */
void sg_bench_put(text *t, const char *fmt, ...) SG_BENCH_PRINTF(2, 3);
/* The checks of --json and --plot before anything is measured: sets
 * b->gnuplot when --plot; SG_ERR_USAGE without gnuplot on PATH or when no
 * case of the table (`any_case`) is selected to plot, SG_ERR_IO for a path that cannot
 * be written (see sg_bench_run). */
sg_status sg_bench_check_outputs(bench *b, bool any_case, sg_error *err);
/* Writes the --json and --plot files from b's figures, both or neither
 * (each to a temporary file, renamed only once both are complete). */
sg_status sg_bench_write_outputs(bench *b, sg_error *err);

/* ---- process.c ----------------------------------------------------------- */

/* Makes b->tmpdir, a new folder in $TMPDIR or /tmp, unless it exists. */
sg_status sg_bench_make_tmpdir(bench *b, sg_error *err);
/* The path of the file `name` of b->tmpdir, in buf; returns buf. */
const char *sg_bench_tmp_path(const bench *b, char buf[PATH_MAX], const char *name);
/* Removes b->tmpdir and its files, if it was made. */
void sg_bench_remove_tmpdir(bench *b);
/* Runs argv[0] (a path) with argv, its stdout to /dev/null and its stderr
 * to the file `stderr_name` of b->tmpdir (which must exist), and waits.
 * SG_ERR_IO if it cannot be started; SG_ERR_INTERNAL "<failure> exited with
 * status N (<the first line of its stderr>)" if it exits with N != 0 (128 +
 * the signal that killed it). */
sg_status sg_bench_run_program(const bench *b, char *const argv[], const char *stderr_name,
                               const char *failure, sg_error *err);
/* An executable named `name` on PATH, malloc'd; NULL if none. */
char *sg_bench_find_program(const char *name);

#endif /* SG_BENCH_INTERNAL_H */

/* `slicegen bench`: the suite of slices, how each is timed, the table,
 * the JSON and PNG outputs, and compile latency. */
#define _XOPEN_SOURCE 700 /* realpath */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ---- the suite ------------------------------------------------------------------- */

typedef struct bench_case {
    const char *name;
    sg_dtype dtype;
    size_t rank;
    int64_t shape[4];
    int64_t quick_shape[4]; /* --quick; all zero: the same as shape */
    const char *expr;       /* a NumPy expression; NULL for TrtSlice */
    sg_trt_mode mode;       /* TrtSlice: start, size (size[0] is the input's shape[0]) */
    int64_t start[3], size[3];
    bool tiny; /* also reported in ns per call */
} bench_case;

/* clang-format off */
#define TRT(name, mode, d, s, b) \
    {name, SG_F32, 3, {64, d, d}, {8, d, d}, NULL, mode, {0, b, b}, {0, s, s}, false}

static const bench_case suite[] = {
    {"crop-rows", SG_F32, 4, {1, 3, 1024, 1024}, {0}, "[:, :, 100:900, 100:900]", 0, {0}, {0}, false},
    {"rgb-bgr", SG_F32, 4, {1, 3, 1024, 1024}, {0}, "[:, ::-1]", 0, {0}, {0}, false},
    {"col-stride2", SG_F32, 2, {4096, 4096}, {1024, 1024}, "[:, ::2]", 0, {0}, {0}, false},
    {"col-reverse", SG_F32, 2, {4096, 4096}, {1024, 1024}, "[:, ::-1]", 0, {0}, {0}, false},
    {"rev-rows-odd-cols", SG_F32, 2, {4096, 4096}, {1024, 1024}, "[::-1, 1::2]", 0, {0}, {0}, false},
    {"subsample-2x2", SG_F32, 4, {1, 64, 512, 512}, {1, 16, 256, 256}, "[:, :, ::2, ::2]", 0, {0}, {0}, false},
    {"one-block", SG_F32, 3, {64, 256, 256}, {16, 256, 256}, "[7]", 0, {0}, {0}, false},
    {"image-crop", SG_U8, 3, {1080, 1920, 3}, {0}, "[100:980, 200:1800, :]", 0, {0}, {0}, false},
    {"image-mirror", SG_U8, 3, {2048, 2048, 3}, {1024, 1024, 3}, "[:, ::-1]", 0, {0}, {0}, false},
    {"f16-stride3", SG_F16, 2, {4096, 4096}, {1024, 1024}, "[::3, 1::3]", 0, {0}, {0}, false},
    {"inner-crop", SG_F32, 4, {16, 64, 128, 128}, {2, 64, 128, 128}, "[:, :, 8:-8, 8:-8]", 0, {0}, {0}, false},
    {"tiny", SG_I64, 2, {8, 16}, {0}, "[1:7, ::3]", 0, {0}, {0}, true},
    TRT("trt-strict", SG_TRT_STRICT, 288, 272, 8),
    TRT("trt-wrap", SG_TRT_WRAP, 256, 272, -8),
    TRT("trt-clamp", SG_TRT_CLAMP, 256, 272, -8),
    TRT("trt-reflect", SG_TRT_REFLECT, 256, 272, -8),
    TRT("trt-fill", SG_TRT_FILL, 256, 272, -8),
    {"col-stride2-in-cache", SG_F32, 2, {256, 256}, {0}, "[:, ::2]", 0, {0}, {0}, false},
    {"col-reverse-in-cache", SG_F32, 2, {256, 256}, {0}, "[:, ::-1]", 0, {0}, {0}, false},
};
/* clang-format on */
enum { NCASES = sizeof suite / sizeof suite[0] };
static const char trt_fill_value[] = "0.5";

/* ---- timing ---------------------------------------------------------------------- */

enum { MAX_SAMPLES = 1001 };

typedef struct timing {
    int warmup;                   /* calls before any is timed */
    int min_samples, max_samples; /* max_samples <= MAX_SAMPLES */
    double target_s;              /* samples are taken until about this much time is spent */
    double sample_s;              /* a sample is a batch of calls lasting at least this */
    double interp_once_s;         /* an interpreter run this long is timed once */
    int compile_plans;            /* plans per compile median */
    int contexts;                 /* fresh contexts for JIT creation */
    int hits;                     /* cache hits averaged */
    int processes;                /* emit processes */
} timing;

static const timing full_timing = {2, 11, 1001, 0.3, 0.002, 0.05, 100, 7, 100000, 7};
static const timing quick_timing = {1, 5, 101, 0.02, 0.0005, 0.005, 20, 3, 10000, 3};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of n values (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One timed operation; it records a failure in `status`. */
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

/* A memcpy the compiler cannot see through, so a batch of the same copy is
 * not folded into one. */
static void *(*volatile copy_bytes)(void *, const void *, size_t) = memcpy;

static void op_kernel(op *o)
{
    sg_status st = sg_kernel_run(o->ctx, o->kernel, o->in, o->out, o->threads);
    if (st != SG_OK)
        o->status = st;
}

static void op_memcpy(op *o)
{
    copy_bytes(o->out, o->in, (size_t)o->bytes);
}

static void op_interp(op *o)
{
    sg_status st = sg_run_reference(o->ctx, o->plan, o->in, o->out);
    if (st != SG_OK)
        o->status = st;
}

/* Seconds per call, the median of samples; each sample is a batch of calls
 * long enough for the clock. *samples: how many were taken. */
static double measure(const timing *t, void (*fn)(op *), op *o, int *samples)
{
    for (int i = 0; i < t->warmup; i++)
        fn(o);
    double t0 = now();
    fn(o);
    double one = now() - t0;
    if (one < 1e-9)
        one = 1e-9;
    double batch_d = ceil(t->sample_s / one);
    long batch = batch_d > 1e6 ? 1000000 : batch_d < 1 ? 1 : (long)batch_d;
    double n_d = ceil(t->target_s / (one * (double)batch));
    int n = n_d < t->min_samples ? t->min_samples : n_d > t->max_samples ? t->max_samples : (int)n_d;
    double v[MAX_SAMPLES];
    for (int s = 0; s < n; s++) {
        t0 = now();
        for (long b = 0; b < batch; b++)
            fn(o);
        v[s] = (now() - t0) / (double)batch;
    }
    *samples = n;
    return median(v, n);
}

/* A digest of a buffer, to compare outputs without keeping two. */
static uint64_t digest(const void *data, uint64_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15u ^ n, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3u;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* ---- results ------------------------------------------------------------------- */

typedef struct case_result {
    const bench_case *c;
    char *spec; /* command-line form; malloc'd */
    int64_t shape[4];
    size_t out_rank;
    int64_t out_shape[SG_MAX_RANK];
    uint64_t bytes, in_bytes, traffic;
    double kernel_s, threads_s, memcpy_s, limit_s, interp_s;
    int samples, interp_runs;
} case_result;

typedef struct compile_result {
    char name[96];
    double seconds;
    int samples;
} compile_result;

enum { NCOMPILE = 5 };

typedef struct bench {
    const sg_bench_options *o;
    const timing *t;
    int threads;
    case_result results[NCASES];
    int nresults;
    compile_result compiles[NCOMPILE];
    int ncompiles;
    char compile_names[NCOMPILE][96];
    char *tmpdir;     /* for the emit process and gnuplot; NULL until needed */
    char *gnuplot;    /* its path when --plot */
    int shown, total; /* progress: the case being measured, of how many */
    bool showing;     /* a progress line is on the terminal */
} bench;

static bool selected(const bench *b, const char *name)
{
    return b->o->filter == NULL || strstr(name, b->o->filter) != NULL;
}

/* ---- progress ------------------------------------------------------------------ */

static void progress(bench *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void progress(bench *b, const char *fmt, ...)
{
    if (b->o->progress == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(b->o->progress, "\r\033[K[%d/%d] ", b->shown, b->total);
    vfprintf(b->o->progress, fmt, ap);
    fflush(b->o->progress);
    va_end(ap);
    b->showing = true;
}

static void progress_clear(bench *b)
{
    if (b->showing) {
        fputs("\r\033[K", b->o->progress);
        fflush(b->o->progress);
        b->showing = false;
    }
}

/* A table line, after clearing the progress line. */
static void say(bench *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void say(bench *b, const char *fmt, ...)
{
    progress_clear(b);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->o->out, fmt, ap);
    va_end(ap);
    fflush(b->o->out);
}

/* ---- formatting ------------------------------------------------------------------ */

static const char *fmt_time(char buf[32], double s)
{
    if (s < 1e-6)
        snprintf(buf, 32, "%.1f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, 32, "%.1f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, 32, "%.2f ms", s * 1e3);
    else
        snprintf(buf, 32, "%.2f s", s);
    return buf;
}

static const char *fmt_bytes(char buf[32], uint64_t n)
{
    if (n < 1024)
        snprintf(buf, 32, "%" PRIu64 " B", n);
    else if (n < 1024 * 1024)
        snprintf(buf, 32, "%.1f KiB", (double)n / 1024);
    else
        snprintf(buf, 32, "%.2f MiB", (double)n / 1048576);
    return buf;
}

/* ---- one case -------------------------------------------------------------------- */

static sg_status from_ctx(sg_context *ctx, sg_status st, sg_error *err, const char *name)
{
    return sg_fail(err, st, "failed to benchmark '%s': %s", name, sg_context_last_error(ctx));
}

static sg_status make_case_plan(sg_context *ctx, const bench_case *c, const int64_t *shape, sg_plan **plan,
                                char **spec_text, sg_error *err)
{
    sg_spec *spec = NULL;
    sg_status st;
    if (c->expr != NULL) {
        st = sg_spec_numpy(ctx, c->expr, &spec);
    } else {
        int64_t size[3] = {shape[0], c->size[1], c->size[2]};
        sg_scalar fill;
        if ((st = sg_scalar_parse(ctx, trt_fill_value, &fill)) == SG_OK)
            st = sg_spec_trt_slice(ctx, 3, c->start, size, NULL, c->mode,
                                   c->mode == SG_TRT_FILL ? &fill : NULL, &spec);
    }
    if (st == SG_OK)
        st = sg_plan_create(ctx, spec, c->rank, shape, c->dtype, plan);
    if (st != SG_OK) {
        sg_spec_destroy(spec);
        return from_ctx(ctx, st, err, c->name);
    }
    *spec_text = sg_spec_to_text(spec);
    sg_spec_destroy(spec);
    if (*spec_text == NULL) {
        sg_plan_destroy(*plan);
        *plan = NULL;
        return sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", c->name);
    }
    return SG_OK;
}

/* A 64-byte aligned buffer of at least n bytes, every page written. */
static void *buffer(uint64_t n, bool pattern)
{
    size_t size = (size_t)((n + 63) / 64 * 64);
    unsigned char *p = aligned_alloc(64, size ? size : 64);
    if (p == NULL)
        return NULL;
    if (!pattern) {
        memset(p, 0, size ? size : 64);
        return p;
    }
    uint64_t x = 0x2545f4914f6cdd1du;
    for (size_t i = 0; i < size; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(p + i, &x, 8);
    }
    return p;
}

static sg_status run_case(bench *b, sg_context *ctx, const bench_case *c, case_result *r, sg_error *err)
{
    const timing *t = b->t;
    const int64_t *shape = b->o->quick && c->quick_shape[0] != 0 ? c->quick_shape : c->shape;
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    void *in = NULL, *out = NULL;
    sg_status st;
    op o = {ctx, NULL, NULL, NULL, NULL, 0, 1, SG_OK};
    int samples;

    *r = (case_result){.c = c};
    memcpy(r->shape, shape, sizeof r->shape);
    if ((st = make_case_plan(ctx, c, shape, &plan, &r->spec, err)) != SG_OK)
        return st;
    r->out_rank = sg_plan_output_rank(plan);
    memcpy(r->out_shape, sg_plan_output_shape(plan), r->out_rank * sizeof *r->out_shape);
    r->bytes = sg_plan_output_bytes(plan);
    r->in_bytes = sg_plan_input_bytes(plan);
    progress(b, "%s: counting traffic", c->name);
    if ((st = sg_bench_traffic(plan, &r->traffic, err)) != SG_OK)
        goto done;
    /* memcpy copies the output's bytes from the input buffer, which may be smaller (TensorRT borders). */
    in = buffer(r->in_bytes > r->bytes ? r->in_bytes : r->bytes, true);
    out = buffer(r->bytes, false);
    if (in == NULL || out == NULL) {
        st = sg_fail(err, SG_ERR_NOMEM,
                     "failed to benchmark '%s': out of memory for %" PRIu64 " + %" PRIu64 " bytes", c->name,
                     r->in_bytes, r->bytes);
        goto done;
    }
    if ((st = sg_kernel_compile(ctx, plan, SG_DEFAULT_OPT_LEVEL, &kernel)) != SG_OK) {
        st = from_ctx(ctx, st, err, c->name);
        goto done;
    }
    o = (op){ctx, kernel, plan, in, out, r->bytes, 1, SG_OK};
    progress(b, "%s: kernel, 1 thread", c->name);
    r->kernel_s = measure(t, op_kernel, &o, &r->samples);
    uint64_t want = digest(out, r->bytes);
    progress(b, "%s: kernel, %d threads", c->name, b->threads);
    o.threads = b->threads;
    r->threads_s = measure(t, op_kernel, &o, &samples);
    if (o.status != SG_OK) {
        st = from_ctx(ctx, o.status, err, c->name);
        goto done;
    }
    if (digest(out, r->bytes) != want) {
        st = sg_fail(err, SG_ERR_INTERNAL,
                     "failed to benchmark '%s': the kernel's output on %d threads "
                     "differs from its output on one",
                     c->name, b->threads);
        goto done;
    }
    progress(b, "%s: memcpy", c->name);
    r->memcpy_s = measure(t, op_memcpy, &o, &samples);
    r->limit_s = r->memcpy_s * (double)r->traffic / (2.0 * (double)r->bytes);

    /* The interpreter: slow on large cases, where one run is timed. */
    progress(b, "%s: interpreter", c->name);
    double t0 = now();
    op_interp(&o);
    r->interp_s = now() - t0;
    r->interp_runs = 1;
    if (r->interp_s < t->interp_once_s) {
        timing ti = *t;
        ti.min_samples = t->min_samples < 5 ? t->min_samples : 5;
        ti.max_samples = 11;
        ti.target_s = t->interp_once_s;
        r->interp_s = measure(&ti, op_interp, &o, &r->interp_runs);
    }
    if (o.status != SG_OK) {
        st = from_ctx(ctx, o.status, err, c->name);
        goto done;
    }
    if (digest(out, r->bytes) != want)
        st = sg_fail(err, SG_ERR_INTERNAL,
                     "failed to benchmark '%s': the kernel's output differs from the "
                     "reference interpreter's",
                     c->name);
done:
    sg_kernel_release(kernel);
    sg_plan_destroy(plan);
    free(in);
    free(out);
    return st;
}

static void print_header(bench *b)
{
    char t[32];
    snprintf(t, sizeof t, "%d-thr", b->threads);
    say(b, "%-20s %-4s %10s %10s %6s %7s %8s %10s %7s %9s\n", "case", "type", "output", "kernel", "GB/s",
        "k/limit", "k/memcpy", t, "speedup", "interp/k");
}

static void print_row(bench *b, const case_result *r)
{
    char out[32], k[32], kt[32], interp[32];
    snprintf(interp, sizeof interp, "%.1fx%s", r->interp_s / r->kernel_s, r->interp_runs == 1 ? "*" : "");
    say(b, "%-20s %-4s %10s %10s %6.2f %7.2f %8.2f %10s %6.2fx %9s\n", r->c->name, sg_dtype_name(r->c->dtype),
        fmt_bytes(out, r->bytes), fmt_time(k, r->kernel_s), (double)r->bytes / r->kernel_s / 1e9,
        r->kernel_s / r->limit_s, r->kernel_s / r->memcpy_s, fmt_time(kt, r->threads_s),
        r->kernel_s / r->threads_s, interp);
}

static const case_result *find_result(const bench *b, const char *name)
{
    for (int i = 0; i < b->nresults; i++)
        if (strcmp(b->results[i].c->name, name) == 0)
            return &b->results[i];
    return NULL;
}

/* ---- compile latency -------------------------------------------------------------- */

/* The i-th of many distinct plans: strided, reversed, contiguous and
 * TensorRT slices over varying shapes, so that each is a cache miss. */
static sg_status distinct_plan(sg_context *ctx, int i, sg_plan **plan, sg_error *err)
{
    static const char *const exprs[] = {"[1:, ::2]", "[::-1, 1:]", "[:, 1:-1]", "[..., ::3]",
                                        "[None, 1:-1:2, ::-1]"};
    int64_t shape[3] = {8 + i, 33 + i % 7, 5};
    sg_spec *spec = NULL;
    sg_status st;
    if (i % 6 == 5) {
        int64_t start[3] = {-2, -1, 0}, size[3] = {12 + i, 40, 5};
        st = sg_spec_trt_slice(ctx, 3, start, size, NULL, (sg_trt_mode)(1 + i % 4), NULL, &spec);
    } else {
        st = sg_spec_numpy(ctx, exprs[i % 5], &spec);
    }
    if (st == SG_OK)
        st = sg_plan_create(ctx, spec, 3, shape, i % 2 ? SG_F32 : SG_I16, plan);
    sg_spec_destroy(spec);
    return st == SG_OK ? SG_OK
                       : sg_fail(err, st, "failed to make a plan to compile: %s", sg_context_last_error(ctx));
}

/* Compiles the plan, timing it; the kernel is released. *missed: whether it
 * was compiled rather than found in the cache. */
static sg_status timed_compile(sg_context *ctx, const sg_plan *plan, int level, double *seconds, bool *missed,
                               sg_error *err)
{
    sg_kernel_stats before, after;
    sg_kernel *k;
    sg_kernel_cache_stats(ctx, &before);
    double t0 = now();
    sg_status st = sg_kernel_compile(ctx, plan, level, &k);
    *seconds = now() - t0;
    if (st != SG_OK)
        return sg_fail(err, st, "failed to compile a kernel: %s", sg_context_last_error(ctx));
    sg_kernel_release(k);
    sg_kernel_cache_stats(ctx, &after);
    *missed = after.compiles == before.compiles + 1;
    return SG_OK;
}

/* The median compile time of n distinct plans at `level`; *next numbers them. */
static sg_status compile_median(sg_context *ctx, int level, int n, int *next, double *seconds, sg_error *err)
{
    double *v = malloc(sizeof *v * (size_t)n);
    if (v == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to time compiles: out of memory");
    sg_status st = SG_OK;
    for (int got = 0; got < n && st == SG_OK;) {
        sg_plan *plan;
        bool missed = false;
        if ((st = distinct_plan(ctx, (*next)++, &plan, err)) != SG_OK)
            break;
        st = timed_compile(ctx, plan, level, &v[got], &missed, err);
        got += missed;
        sg_plan_destroy(plan);
    }
    if (st == SG_OK)
        *seconds = median(v, n);
    free(v);
    return st;
}

static sg_status make_tmpdir(bench *b, sg_error *err)
{
    if (b->tmpdir != NULL)
        return SG_OK;
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    size_t len = strlen(base) + sizeof "/slicegen-bench-XXXXXX";
    b->tmpdir = malloc(len);
    if (b->tmpdir == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make a temporary folder: out of memory");
    snprintf(b->tmpdir, len, "%s/slicegen-bench-XXXXXX", base);
    if (mkdtemp(b->tmpdir) == NULL) {
        int e = errno;
        sg_fail(err, SG_ERR_IO, "failed to make a temporary folder in '%s': %s", base, strerror(e));
        free(b->tmpdir);
        b->tmpdir = NULL;
        return err->status;
    }
    return SG_OK;
}

/* A file of the temporary folder: its path in buf. */
static const char *tmp_path(const bench *b, char buf[PATH_MAX], const char *name)
{
    snprintf(buf, PATH_MAX, "%s/%s", b->tmpdir, name);
    return buf;
}

static void remove_tmpdir(bench *b)
{
    static const char *const names[] = {"kernel.o", "emit.err", "plot.dat",
                                        "plot.gp",  "plot.png", "gnuplot.err"};
    char path[PATH_MAX];
    if (b->tmpdir == NULL)
        return;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(tmp_path(b, path, names[i]));
    rmdir(b->tmpdir);
    free(b->tmpdir);
    b->tmpdir = NULL;
}

/* The first line of a file, for messages (at most 200 characters). */
static void first_line(const char *path, char line[256])
{
    line[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(line, 201, f) == NULL)
        line[0] = '\0';
    line[strcspn(line, "\n")] = '\0';
    fclose(f);
}

/* Runs argv[0] (a path) with argv, stdout to /dev/null and stderr to
 * err_path, and waits. The exit status, or -1 with errno set when it could
 * not be started; 128 + the signal when one killed it. */
static int run_process(char *const argv[], const char *err_path)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int rc;
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
        errno = rc;
        return -1;
    }
    rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (rc == 0)
        rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `slicegen emit` of one kernel as a whole process. */
static sg_status time_emit(bench *b, int n, double *seconds, sg_error *err)
{
    char out[PATH_MAX], errs[PATH_MAX], line[256];
    const char *program = b->o->program ? b->o->program : "/proc/self/exe";
    sg_status st = make_tmpdir(b, err);
    if (st != SG_OK)
        return st;
    /* clang-format off */
    char *argv[] = {(char *)program, "emit", "[1:, ::2]", "--shape", "64,64", "--dtype", "f32", "-o",
                    (char *)tmp_path(b, out, "kernel.o"), NULL};
    /* clang-format on */
    tmp_path(b, errs, "emit.err");
    double v[16];
    if (n > 16)
        n = 16;
    for (int i = 0; i < n; i++) {
        double t0 = now();
        int rc = run_process(argv, errs);
        v[i] = now() - t0;
        if (rc < 0)
            return sg_fail(err, SG_ERR_IO, "failed to start '%s': %s", program, strerror(errno));
        if (rc != 0) {
            first_line(errs, line);
            return sg_fail(err, SG_ERR_INTERNAL,
                           "failed to time 'slicegen emit': it exited with status %d (%s)", rc, line);
        }
    }
    *seconds = median(v, n);
    return SG_OK;
}

static void compile_names(bench *b)
{
    int n = b->t->compile_plans;
    snprintf(b->compile_names[0], 96, "compile: JIT creation");
    snprintf(b->compile_names[1], 96, "compile: -O0 kernel (median of %d plans)", n);
    snprintf(b->compile_names[2], 96, "compile: default level kernel, -O%d (median of %d plans)",
             SG_DEFAULT_OPT_LEVEL, n);
    snprintf(b->compile_names[3], 96, "compile: cache hit");
    snprintf(b->compile_names[4], 96, "compile: slicegen emit process");
}

static void add_compile(bench *b, int which, double seconds, int samples)
{
    compile_result *r = &b->compiles[b->ncompiles++];
    memcpy(r->name, b->compile_names[which], sizeof r->name);
    r->seconds = seconds;
    r->samples = samples;
    char s[32];
    say(b, "%-58s %10s\n", r->name, fmt_time(s, seconds));
}

static sg_status run_compile(bench *b, sg_error *err)
{
    const timing *t = b->t;
    sg_context *ctx = NULL;
    sg_plan *plan = NULL;
    sg_status st = SG_OK;
    int next = 0;
    double s;
    bool missed;

    /* LLVM's process-wide setup, paid once, before anything is timed. */
    if (sg_context_create(&ctx) != SG_OK)
        return sg_fail(err, SG_ERR_NOMEM, "failed to create a context: out of memory");
    if ((st = distinct_plan(ctx, 100000, &plan, err)) != SG_OK ||
        (st = timed_compile(ctx, plan, 0, &s, &missed, err)) != SG_OK)
        goto done;
    sg_plan_destroy(plan);
    plan = NULL;
    sg_context_destroy(ctx);
    ctx = NULL;

    if (selected(b, b->compile_names[0])) {
        /* A context's first compile creates its JIT: the first of four
         * compiles of similar plans in a fresh context, less the median of
         * the other three; the median over several contexts, 0 if the
         * difference is lost in the noise. */
        progress(b, "compile: JIT creation");
        double v[16];
        int n = t->contexts < 16 ? t->contexts : 16;
        for (int i = 0; i < n && st == SG_OK; i++) {
            double c[4] = {0};
            if (sg_context_create(&ctx) != SG_OK) {
                st = sg_fail(err, SG_ERR_NOMEM, "failed to create a context: out of memory");
                break;
            }
            for (int k = 0; k < 4 && st == SG_OK; k++) {
                if ((st = distinct_plan(ctx, 200000 + 4 * i + k, &plan, err)) == SG_OK)
                    st = timed_compile(ctx, plan, 0, &c[k], &missed, err);
                sg_plan_destroy(plan);
                plan = NULL;
            }
            sg_context_destroy(ctx);
            ctx = NULL;
            v[i] = c[0] - median(c + 1, 3);
        }
        if (st != SG_OK)
            goto done;
        s = median(v, n);
        add_compile(b, 0, s > 0 ? s : 0, n);
    }

    if (sg_context_create(&ctx) != SG_OK)
        return sg_fail(err, SG_ERR_NOMEM, "failed to create a context: out of memory");
    /* The JIT exists before anything below is timed. */
    if ((st = distinct_plan(ctx, 300000, &plan, err)) != SG_OK ||
        (st = timed_compile(ctx, plan, 0, &s, &missed, err)) != SG_OK)
        goto done;
    for (int which = 1; which <= 2; which++) {
        if (!selected(b, b->compile_names[which]))
            continue;
        progress(b, "%s", b->compile_names[which]);
        int level = which == 1 ? 0 : SG_DEFAULT_OPT_LEVEL;
        if ((st = compile_median(ctx, level, t->compile_plans, &next, &s, err)) != SG_OK)
            goto done;
        add_compile(b, which, s, t->compile_plans);
    }
    if (selected(b, b->compile_names[3])) {
        progress(b, "compile: cache hit");
        sg_kernel *k;
        double t0 = now();
        for (int i = 0; i < t->hits && st == SG_OK; i++) {
            if ((st = sg_kernel_compile(ctx, plan, 0, &k)) != SG_OK)
                st = sg_fail(err, st, "failed to compile a kernel: %s", sg_context_last_error(ctx));
            else
                sg_kernel_release(k);
        }
        s = (now() - t0) / t->hits;
        if (st != SG_OK)
            goto done;
        add_compile(b, 3, s, t->hits);
    }
    if (selected(b, b->compile_names[4])) {
        progress(b, "compile: slicegen emit process");
        if ((st = time_emit(b, t->processes, &s, err)) != SG_OK)
            goto done;
        add_compile(b, 4, s, t->processes);
    }
done:
    sg_plan_destroy(plan);
    sg_context_destroy(ctx);
    return st;
}

/* ---- output files ---------------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

static void put(text *t, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->failed)
        return;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap : 4096) * 2 + (size_t)n;
        char *s = realloc(t->s, cap);
        if (s == NULL) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* A JSON string. */
static void put_string(text *t, const char *s)
{
    put(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(t, "\\%c", c);
        else if (c < 0x20)
            put(t, "\\u%04x", c);
        else
            put(t, "%c", c);
    }
    put(t, "\"");
}

static void json(const bench *b, text *t)
{
    const case_result *strict = find_result(b, "trt-strict");
    put(t, "[");
    const char *sep = "\n";
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i];
        put(t, "%s  {\"case\": ", sep);
        put_string(t, r->c->name);
        put(t, ", \"dtype\": \"%s\", \"shape\": [", sg_dtype_name(r->c->dtype));
        for (size_t d = 0; d < r->c->rank; d++)
            put(t, "%s%" PRId64, d ? ", " : "", r->shape[d]);
        put(t, "], \"output_shape\": [");
        for (size_t d = 0; d < r->out_rank; d++)
            put(t, "%s%" PRId64, d ? ", " : "", r->out_shape[d]);
        put(t, "], \"spec\": ");
        put_string(t, r->spec);
        put(t,
            ",\n   \"bytes\": %" PRIu64 ", \"input_bytes\": %" PRIu64 ", \"traffic_bytes\": %" PRIu64
            ", \"threads\": %d,\n",
            r->bytes, r->in_bytes, r->traffic, b->threads);
        put(t,
            "   \"kernel_s\": %.9g, \"kernel_threads_s\": %.9g, \"memcpy_s\": %.9g, \"limit_s\": %.9g, "
            "\"interp_s\": %.9g,\n   \"samples\": %d, \"interp_runs\": %d",
            r->kernel_s, r->threads_s, r->memcpy_s, r->limit_s, r->interp_s, r->samples, r->interp_runs);
        if (r->c->tiny)
            put(t, ", \"ns_per_call\": %.4g", r->kernel_s * 1e9);
        if (r->c->expr == NULL && r->c->mode != SG_TRT_STRICT && strict != NULL)
            put(t, ", \"ratio_to_strict\": %.4g", r->kernel_s / strict->kernel_s);
        put(t, "}");
        sep = ",\n";
    }
    for (int i = 0; i < b->ncompiles; i++) {
        put(t, "%s  {\"case\": ", sep);
        put_string(t, b->compiles[i].name);
        put(t, ", \"seconds\": %.9g, \"samples\": %d}", b->compiles[i].seconds, b->compiles[i].samples);
        sep = ",\n";
    }
    put(t, "\n]\n");
}

/* Reads a whole file into *data (malloc'd). */
static sg_status read_file(const char *path, char **data, size_t *size, sg_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sg_fail(err, SG_ERR_IO, "failed to read '%s': %s", path, strerror(errno));
    text t = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (t.len + n >= t.cap) {
            size_t cap = (t.cap + n) * 2;
            char *s = realloc(t.s, cap);
            if (s == NULL) {
                t.failed = true;
                break;
            }
            t.s = s;
            t.cap = cap;
        }
        memcpy(t.s + t.len, chunk, n);
        t.len += n;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (t.failed || bad || t.len == 0) {
        free(t.s);
        return sg_fail(err, t.failed ? SG_ERR_NOMEM : SG_ERR_IO, "failed to read '%s': %s", path,
                       t.failed ? "out of memory"
                       : bad    ? "read error"
                                : "the file is empty");
    }
    *data = t.s;
    *size = t.len;
    return SG_OK;
}

/* The chart: GB/s of output bytes per case on a log scale, bars for the
 * kernel, the traffic limit, memcpy and the interpreter. */
static sg_status plot(bench *b, char **png, size_t *png_size, sg_error *err)
{
    char data[PATH_MAX], script[PATH_MAX], image[PATH_MAX], errs[PATH_MAX], line[256];
    sg_status st = make_tmpdir(b, err);
    if (st != SG_OK)
        return st;
    tmp_path(b, data, "plot.dat");
    tmp_path(b, script, "plot.gp");
    tmp_path(b, image, "plot.png");
    tmp_path(b, errs, "gnuplot.err");
    text d = {0}, g = {0};
    int width = 300 + 75 * b->nresults < 960 ? 960 : 300 + 75 * b->nresults;
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i];
        double gb = (double)r->bytes / 1e9;
        put(&d, "\"%s\" %.6g %.6g %.6g %.6g\n", r->c->name, gb / r->kernel_s, gb / r->limit_s,
            gb / r->memcpy_s, gb / r->interp_s);
    }
    put(&g,
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "  set terminal pngcairo size %d,720 noenhanced font ',10'\n"
        "} else {\n"
        "  set terminal png size %d,720 noenhanced\n"
        "}\n",
        width, width);
    put(&g, "set output '%s'\n", image);
    put(&g, "set title 'slicegen bench%s: GB/s of output bytes, one thread (log scale; higher is faster)'\n",
        b->o->quick ? " --quick" : "");
    put(&g, "set style data histograms\n"
            "set style histogram clustered gap 1\n"
            "set style fill solid 0.9 border -1\n"
            "set boxwidth 0.9\n"
            "set logscale y\n"
            "set grid ytics\n"
            "set ylabel 'GB/s'\n"
            "set xtics rotate by -35 scale 0 nomirror\n"
            "set key outside bottom center horizontal\n"
            "set rmargin 10\n");
    put(&g,
        "plot '%s' using 2:xtic(1) title 'kernel' lc rgb '#1f77b4', "
        "'' using 3 title 'traffic limit' lc rgb '#2ca02c', "
        "'' using 4 title 'memcpy of the output bytes' lc rgb '#7f7f7f', "
        "'' using 5 title 'reference interpreter' lc rgb '#d62728'\n",
        data);
    if (d.failed || g.failed) {
        st = sg_fail(err, SG_ERR_NOMEM, "failed to plot: out of memory");
        goto done;
    }
    const void *dp = d.s, *gp = g.s;
    if ((st = sg_write_file_atomic(data, &dp, &d.len, 1, err)) != SG_OK ||
        (st = sg_write_file_atomic(script, &gp, &g.len, 1, err)) != SG_OK)
        goto done;
    char *argv[] = {b->gnuplot, script, NULL};
    int rc = run_process(argv, errs);
    if (rc < 0) {
        st = sg_fail(err, SG_ERR_IO, "failed to start '%s': %s", b->gnuplot, strerror(errno));
        goto done;
    }
    if (rc != 0) {
        first_line(errs, line);
        st = sg_fail(err, SG_ERR_INTERNAL, "failed to plot: gnuplot exited with status %d (%s)", rc, line);
        goto done;
    }
    st = read_file(image, png, png_size, err);
done:
    free(d.s);
    free(g.s);
    return st;
}

static sg_status write_outputs(bench *b, sg_error *err)
{
    text t = {0};
    char *png = NULL;
    size_t png_size = 0;
    sg_staged_file staged[2] = {{0}, {0}};
    sg_status st = SG_OK;
    if (b->o->json_path != NULL) {
        json(b, &t);
        if (t.failed) {
            st = sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", b->o->json_path);
            goto done;
        }
    }
    if (b->o->plot_path != NULL) {
        progress(b, "plot");
        if ((st = plot(b, &png, &png_size, err)) != SG_OK)
            goto done;
    }
    const void *jp = t.s, *pp = png;
    if ((b->o->json_path &&
         (st = sg_file_stage(b->o->json_path, &jp, &t.len, 1, &staged[0], err)) != SG_OK) ||
        (b->o->plot_path &&
         (st = sg_file_stage(b->o->plot_path, &pp, &png_size, 1, &staged[1], err)) != SG_OK))
        goto done;
    st = sg_file_commit_all(staged, 2, err);
done:
    sg_file_discard(&staged[0]);
    sg_file_discard(&staged[1]);
    free(t.s);
    free(png);
    return st;
}

/* ---- checks before anything is measured --------------------------------------- */

/* An executable named `name` on PATH, malloc'd; NULL if none. */
static char *find_program(const char *name)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return NULL;
    while (*path) {
        size_t len = strcspn(path, ":");
        char *full = malloc(len + strlen(name) + 3);
        if (full == NULL)
            return NULL;
        snprintf(full, len + strlen(name) + 3, "%.*s/%s", (int)len, len ? path : ".", name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
            return full;
        free(full);
        path += len + (path[len] == ':');
    }
    return NULL;
}

/* The output's folder exists and can be written (or the output is a file
 * that can be written). */
static sg_status check_output(const char *option, const char *path, sg_error *err)
{
    struct stat st;
    if (path[0] == '\0')
        return sg_fail(err, SG_ERR_IO, "failed to write %s '': the path is empty", option);
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return sg_fail(err, SG_ERR_IO, "failed to write %s '%s': %s (the path names a folder)", option,
                           path, strerror(EISDIR));
        if (!S_ISREG(st.st_mode))
            return access(path, W_OK) == 0 ? SG_OK
                                           : sg_fail(err, SG_ERR_IO, "failed to write %s '%s': %s", option,
                                                     path, strerror(errno));
    }
    char *real = realpath(path, NULL); /* follows a link to the file it names */
    const char *p = real ? real : path;
    const char *slash = strrchr(p, '/');
    char dir[PATH_MAX];
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == p ? 1 : (int)(slash - p), p);
    sg_status s = SG_OK;
    if (access(dir, W_OK | X_OK) != 0)
        s = sg_fail(err, SG_ERR_IO, "failed to write %s '%s': %s (folder '%s')", option, path,
                    strerror(errno), dir);
    free(real);
    return s;
}

static sg_status check_options(bench *b, sg_error *err)
{
    const sg_bench_options *o = b->o;
    int cases = 0, compiles = 0;
    for (int i = 0; i < NCASES; i++)
        cases += selected(b, suite[i].name);
    for (int i = 0; i < NCOMPILE; i++)
        compiles += selected(b, b->compile_names[i]);
    if (cases + compiles == 0) {
        text t = {0};
        for (int i = 0; i < NCASES; i++)
            put(&t, "%s, ", suite[i].name);
        for (int i = 0; i < NCOMPILE; i++)
            put(&t, "'%s'%s", b->compile_names[i], i + 1 < NCOMPILE ? ", " : "");
        sg_fail(err, SG_ERR_USAGE, "--case '%s' matches no case (the cases: %s)", o->filter,
                t.failed ? "?" : t.s);
        free(t.s);
        return err->status;
    }
    if (o->plot_path != NULL) {
        if ((b->gnuplot = find_program("gnuplot")) == NULL)
            return sg_fail(err, SG_ERR_USAGE, "--plot needs gnuplot (Debian: gnuplot-nox)");
        if (cases == 0)
            return sg_fail(err, SG_ERR_USAGE,
                           "--plot: --case '%s' selects only compile figures, which are not "
                           "plotted",
                           o->filter);
    }
    sg_status st;
    if (o->json_path && (st = check_output("--json", o->json_path, err)) != SG_OK)
        return st;
    if (o->plot_path && (st = check_output("--plot", o->plot_path, err)) != SG_OK)
        return st;
    b->total = cases + (compiles > 0);
    return SG_OK;
}

/* ---- the run ---------------------------------------------------------------------- */

/* The size of the last-level cache as Linux describes CPU 0's caches; 0 if
 * unknown. */
static uint64_t last_level_cache(void)
{
    uint64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[96], text[64];
        int level = 0;
        unsigned long long size = 0;
        char unit = 'K';
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            break;
        if (fgets(text, sizeof text, f) != NULL)
            level = atoi(text);
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        if (fgets(text, sizeof text, f) == NULL || sscanf(text, "%llu%c", &size, &unit) < 1)
            size = 0;
        fclose(f);
        size *= unit == 'M' ? 1048576 : unit == 'G' ? 1073741824 : unit == 'K' ? 1024 : 1;
        if (level > best_level && size > 0) {
            best_level = level;
            best = size;
        }
    }
    return best;
}

sg_status sg_bench_run(const sg_bench_options *options, sg_error *err)
{
    bench *b = calloc(1, sizeof *b);
    sg_context *ctx = NULL;
    sg_status st = SG_OK;
    if (b == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to run the benchmark: out of memory");
    b->o = options;
    b->t = options->quick ? &quick_timing : &full_timing;
    b->threads = options->threads;
    if (b->threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        b->threads = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
    }
    compile_names(b);
    if ((st = check_options(b, err)) != SG_OK)
        goto done;
    if (sg_context_create(&ctx) != SG_OK) {
        st = sg_fail(err, SG_ERR_NOMEM, "failed to create a context: out of memory");
        goto done;
    }

    char llc[48] = "";
    uint64_t llc_bytes = last_level_cache();
    if (llc_bytes > 0)
        snprintf(llc, sizeof llc, ", last-level cache %" PRIu64 " %s",
                 llc_bytes % 1048576 ? llc_bytes >> 10 : llc_bytes >> 20,
                 llc_bytes % 1048576 ? "KiB" : "MiB");
    say(b, "slicegen bench%s: slicegen %s, LLVM %s, %d threads%s; times are medians of %d or more runs\n",
        options->quick ? " --quick" : "", SG_VERSION_STRING, sg_llvm_version(), b->threads, llc,
        b->t->min_samples);
    bool header = false;
    for (int i = 0; i < NCASES; i++) {
        if (!selected(b, suite[i].name))
            continue;
        if (!header) {
            print_header(b);
            header = true;
        }
        b->shown++;
        case_result *r = &b->results[b->nresults];
        st = run_case(b, ctx, &suite[i], r, err);
        b->nresults++; /* its spec is freed below either way */
        if (st != SG_OK)
            goto done;
        print_row(b, r);
    }
    /* What follows the table: notes, TensorRT modes against strict, the tiny case per call. */
    bool once = false;
    for (int i = 0; i < b->nresults; i++)
        once |= b->results[i].interp_runs == 1;
    if (once)
        say(b, "* interpreter timed on one run (slow on large cases), not a median\n");
    const case_result *strict = find_result(b, "trt-strict");
    if (strict != NULL) {
        for (int i = 0; i < b->nresults; i++) {
            const case_result *r = &b->results[i];
            if (r->c->expr == NULL && r != strict)
                say(b, "%s: %.2fx the time of trt-strict (the same output shape)\n", r->c->name,
                    r->kernel_s / strict->kernel_s);
        }
    }
    const case_result *tiny = find_result(b, "tiny");
    if (tiny != NULL)
        say(b, "tiny: %.1f ns per call (sg_kernel_run of a cached kernel, 1 thread); memcpy %.1f ns\n",
            tiny->kernel_s * 1e9, tiny->memcpy_s * 1e9);

    sg_context_destroy(ctx);
    ctx = NULL;
    bool compiles = false;
    for (int i = 0; i < NCOMPILE; i++)
        compiles |= selected(b, b->compile_names[i]);
    if (compiles) {
        b->shown++;
        if ((st = run_compile(b, err)) != SG_OK)
            goto done;
    }
    st = write_outputs(b, err);
done:
    progress_clear(b);
    sg_context_destroy(ctx);
    remove_tmpdir(b);
    for (int i = 0; i < b->nresults; i++)
        free(b->results[i].spec);
    free(b->gnuplot);
    free(b);
    return st;
}

/* `slicegen bench`: the suite of slices, how each case is timed and
 * checked, the table, and sg_bench_run, which runs the whole benchmark.
 * Exports (bench_internal.h) the clock and the median, timing operations
 * in turn, a case's shape, plan and buffers, --case selection, a new
 * context, the progress line and table lines, times as the table shows
 * them, and the trt-strict baseline. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf */

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SG_BENCH_X86 1
#endif

/* ---- the suite ------------------------------------------------------------------- */

/* clang-format off */
#define TRT(name, mode, d, s, b) \
    {name, SG_F32, 3, {64, d, d}, {8, d, d}, NULL, mode, {0, b, b}, {0, s, s}, false, {256, d, d}, false, {NULL}}

static const bench_case suite[] = {
    {"crop-rows", SG_F32, 4, {1, 3, 1024, 1024}, {0}, "[:, :, 100:900, 100:900]", 0, {0}, {0}, false, {6, 3, 1024, 1024}, false, {NULL}},
    {"rgb-bgr", SG_F32, 4, {1, 3, 1024, 1024}, {0}, "[:, ::-1]", 0, {0}, {0}, false, {6, 3, 1024, 1024}, false, {NULL}},
    {"col-stride2", SG_F32, 2, {4096, 4096}, {1024, 1024}, "[:, ::2]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"col-reverse", SG_F32, 2, {4096, 4096}, {1024, 1024}, "[:, ::-1]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"rev-rows-odd-cols", SG_F32, 2, {4096, 4096}, {1024, 1024}, "[::-1, 1::2]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"subsample-2x2", SG_F32, 4, {1, 64, 512, 512}, {1, 16, 256, 256}, "[:, :, ::2, ::2]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"one-block", SG_F32, 3, {64, 256, 256}, {16, 256, 256}, "[7]", 0, {0}, {0}, false, {64, 1024, 256}, false, {NULL}},
    {"image-crop", SG_U8, 3, {1080, 1920, 3}, {0}, "[100:980, 200:1800, :]", 0, {0}, {0}, false, {4320, 7680, 3}, false, {NULL}},
    {"image-mirror", SG_U8, 3, {2048, 2048, 3}, {1024, 1024, 3}, "[:, ::-1]", 0, {0}, {0}, false, {4320, 7680, 3}, false, {NULL}},
    {"f16-stride3", SG_F16, 2, {4096, 4096}, {1024, 1024}, "[::3, 1::3]", 0, {0}, {0}, false, {8192, 4096}, false, {NULL}},
    {"inner-crop", SG_F32, 4, {16, 64, 128, 128}, {2, 64, 128, 128}, "[:, :, 8:-8, 8:-8]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"tiny", SG_I64, 2, {8, 16}, {0}, "[1:7, ::3]", 0, {0}, {0}, true, {0}, false, {NULL}},
    TRT("trt-strict", SG_TRT_STRICT, 288, 272, 8),
    TRT("trt-wrap", SG_TRT_WRAP, 256, 272, -8),
    TRT("trt-clamp", SG_TRT_CLAMP, 256, 272, -8),
    TRT("trt-reflect", SG_TRT_REFLECT, 256, 272, -8),
    TRT("trt-fill", SG_TRT_FILL, 256, 272, -8),
    /* pads whose rows are short pieces: borders of 3 before rows of 400 bytes, odd row lengths, f16 */
    {"trt-reflect-short", SG_F32, 3, {1024, 100, 100}, {128, 100, 100}, NULL, SG_TRT_REFLECT, {0, -3, -3}, {0, 106, 106}, false, {0}, false, {NULL}},
    {"trt-crop-odd", SG_F32, 3, {128, 300, 301}, {16, 300, 301}, NULL, SG_TRT_STRICT, {0, 2, 5}, {0, 296, 290}, false, {0}, false, {NULL}},
    {"trt-clamp-f16", SG_F16, 3, {32, 512, 1000}, {4, 512, 1000}, NULL, SG_TRT_CLAMP, {0, -1, -12}, {0, 514, 1024}, false, {0}, false, {NULL}},
    {"trt-reflect-small", SG_F32, 3, {4, 64, 64}, {0}, NULL, SG_TRT_REFLECT, {0, -8, -8}, {0, 80, 80}, false, {0}, false, {NULL}},
    {"col-stride2-in-cache", SG_F32, 2, {256, 256}, {0}, "[:, ::2]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"col-reverse-in-cache", SG_F32, 2, {256, 256}, {0}, "[:, ::-1]", 0, {0}, {0}, false, {0}, false, {NULL}},
    /* NumPy programs: one kernel of parts each (docs/programs.md) */
    {.name = "focus", .dtype = SG_F32, .rank = 4, .shape = {4, 3, 640, 640}, .quick_shape = {1, 3, 640, 640},
     .program = true,
     .expr = "np.concatenate([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], axis=1)"},
    {.name = "roll", .dtype = SG_F32, .rank = 2, .shape = {4096, 4096}, .quick_shape = {1024, 1024},
     .program = true, .expr = "np.roll(x, 1000, axis=1)"},
    {.name = "crop-reflect-pad", .dtype = SG_F32, .rank = 2, .shape = {4096, 4096}, .quick_shape = {1024, 1024},
     .program = true, .expr = "np.pad(x[16:-16, 16:-16], 16, mode='reflect')",
     .separate = {"x[16:-16, 16:-16]", "np.pad(x, 16, mode='reflect')", NULL}},
    {.name = "np-pad-reflect", .dtype = SG_F32, .rank = 3, .shape = {96, 224, 224}, .quick_shape = {12, 224, 224},
     .program = true, .expr = "np.pad(x, ((0, 0), (1, 1), (1, 1)), mode='reflect')"},
    {.name = "np-pad-u8", .dtype = SG_U8, .rank = 3, .shape = {2160, 3840, 3}, .quick_shape = {540, 960, 3},
     .program = true, .expr = "np.pad(x, ((2, 2), (2, 2), (0, 0)))"},
    /* DRAM-sized: outputs of 152-272 MiB, run only when --case names "dram" */
    {"dram-block", SG_F32, 3, {3, 8192, 8192}, {3, 2048, 2048}, "[1]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"dram-crop", SG_F32, 2, {8448, 8448}, {2304, 2304}, "[128:-128, 128:-128]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"dram-reverse", SG_F32, 2, {8192, 8192}, {2048, 2048}, "[:, ::-1]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"dram-stride2", SG_F32, 2, {8192, 16384}, {2048, 4096}, "[:, ::2]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"dram-nchw-crop", SG_F32, 4, {16, 64, 288, 288}, {1, 64, 288, 288}, "[:, :, 16:-16, 16:-16]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"dram-rgb-mirror", SG_U8, 3, {8192, 8192, 3}, {2048, 2048, 3}, "[:, ::-1]", 0, {0}, {0}, false, {0}, false, {NULL}},
    {"dram-reflect-pad", SG_F32, 3, {64, 1024, 1024}, {4, 1024, 1024}, NULL, SG_TRT_REFLECT, {0, -16, -16}, {64, 1056, 1056}, false, {0}, false, {NULL}},
    {"dram-fill-pad", SG_F32, 3, {64, 1024, 1024}, {4, 1024, 1024}, NULL, SG_TRT_FILL, {0, -16, -16}, {64, 1056, 1056}, false, {0}, false, {NULL}},
    {"dram-reflect-short", SG_F32, 3, {4096, 100, 100}, {256, 100, 100}, NULL, SG_TRT_REFLECT, {0, -3, -3}, {0, 106, 106}, false, {0}, false, {NULL}},
    {.name = "dram-np-pad", .dtype = SG_F32, .rank = 3, .shape = {768, 224, 224}, .quick_shape = {48, 224, 224},
     .program = true, .expr = "np.pad(x, ((0, 0), (2, 2), (2, 2)))"},
};
/* clang-format on */
enum { NCASES = sizeof suite / sizeof suite[0] };
_Static_assert(NCASES + 1 <= SG_BENCH_MAX_VALUES,
               "a runtime-values figure for each case and the decode loop");
static const char trt_fill_value[] = "0.5";

const bench_case *sg_bench_cases(int *count)
{
    *count = NCASES;
    return suite;
}

/* ---- timing ---------------------------------------------------------------------- */

static const timing full_timing = {2, 11, 1001, 0.3, 0.002, 0.05, 100, 7, 100000, 7, 1000, 1000, 4096};
static const timing quick_timing = {1, 5, 101, 0.02, 0.0005, 0.005, 20, 3, 10000, 3, 100, 50, 1024};

double sg_bench_now(void)
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

double sg_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void *(*volatile sg_bench_copy)(void *, const void *, size_t) = memcpy;

void sg_bench_op_kernel(op *o)
{
    sg_status st = sg_kernel_run(o->ctx, o->kernel, o->in, o->out, o->threads);
    if (st != SG_OK)
        o->status = st;
}

static void op_memcpy(op *o)
{
    sg_bench_copy(o->out, o->in, (size_t)o->bytes);
}

/* ---- the streaming copy ------------------------------------------------------------ */

/* A copy with non-temporal (streaming) stores: the bytes go to memory
 * without first reading the destination's lines into the cache, which
 * memcpy does below its own non-temporal threshold. The widest vectors the
 * CPU has (AVX-512, AVX, SSE2 on x86-64), picked at run time; elsewhere it
 * is memcpy. The ragged ends are copied with memcpy so that the streaming
 * stores are aligned to 64 bytes. */
#if SG_BENCH_X86
__attribute__((target("avx512f"))) static void stream_512(char *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 128) {
        __m512i a = _mm512_loadu_si512((const void *)(s + i)),
                b = _mm512_loadu_si512((const void *)(s + i + 64));
        _mm512_stream_si512((void *)(d + i), a);
        _mm512_stream_si512((void *)(d + i + 64), b);
    }
}

__attribute__((target("avx"))) static void stream_256(char *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 128)
        for (size_t k = 0; k < 128; k += 32)
            _mm256_stream_si256((__m256i *)(void *)(d + i + k),
                                _mm256_loadu_si256((const __m256i *)(const void *)(s + i + k)));
}

static void stream_128(char *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 128)
        for (size_t k = 0; k < 128; k += 16)
            _mm_stream_si128((__m128i *)(void *)(d + i + k),
                             _mm_loadu_si128((const __m128i *)(const void *)(s + i + k)));
}
#endif

static void *stream_copy(void *dst, const void *src, size_t n)
{
#if SG_BENCH_X86
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 63);
    head = head > n ? n : head;
    memcpy(d, s, head);
    size_t body = (n - head) & ~(size_t)127;
    if (__builtin_cpu_supports("avx512f"))
        stream_512(d + head, s + head, body);
    else if (__builtin_cpu_supports("avx"))
        stream_256(d + head, s + head, body);
    else
        stream_128(d + head, s + head, body);
    memcpy(d + head + body, s + head + body, n - head - body);
    _mm_sfence();
    return dst;
#else
    return memcpy(dst, src, n);
#endif
}

/* Which streaming copy stream_copy makes on this CPU, for the notes. */
static const char *stream_kind(void)
{
#if SG_BENCH_X86
    return __builtin_cpu_supports("avx512f") ? "AVX-512" : __builtin_cpu_supports("avx") ? "AVX" : "SSE2";
#else
    return "memcpy (no streaming copy on this architecture)";
#endif
}

static void *(*volatile stream_bytes)(void *, const void *, size_t) = stream_copy;

static void op_stream(op *o)
{
    stream_bytes(o->out, o->in, (size_t)o->bytes);
}

static void op_interp(op *o)
{
    sg_status st = sg_run_reference(o->ctx, o->plan, o->in, o->out);
    if (st != SG_OK)
        o->status = st;
}

/* Warms the operation up and sizes its batch; returns the seconds of one call. */
static double prepare(const timing *t, timed *x)
{
    for (int i = 0; i < t->warmup; i++)
        x->fn(x->o);
    double t0 = sg_bench_now();
    x->fn(x->o);
    double one = sg_bench_now() - t0;
    if (one < 1e-9)
        one = 1e-9;
    double batch = ceil(t->sample_s / one);
    x->batch = batch > 1e6 ? 1000000 : batch < 1 ? 1 : (long)batch;
    return one;
}

/* One sample of x, after an untimed batch of x itself: operations timed
 * in turn each find the caches as they leave them, not as the one before
 * left them. After a batch of the streaming copy (which evicts the output
 * from the cache), a kernel writing 7 MiB of output into the cache took
 * 1.37x memcpy's time, 1.21-1.24x after one call of its own and 1.05x
 * after four, against 1.14x timed without the streaming copy. */
static void sample(timed *x, int s)
{
    for (long b = 0; b < x->batch; b++)
        x->fn(x->o);
    double t0 = sg_bench_now();
    for (long b = 0; b < x->batch; b++)
        x->fn(x->o);
    x->v[s] = (sg_bench_now() - t0) / (double)x->batch;
}

void sg_bench_measure_together(const timing *t, timed *x, int n, double *seconds, int *samples)
{
    double longest = 0;
    for (int k = 0; k < n; k++) {
        double one = prepare(t, &x[k]) * (double)x[k].batch;
        longest = one > longest ? one : longest;
    }
    double count = ceil(t->target_s / ((double)n * longest));
    int m = count < t->min_samples ? t->min_samples : count > t->max_samples ? t->max_samples : (int)count;
    for (int s = 0; s < m; s++)
        for (int k = 0; k < n; k++)
            sample(&x[k], s);
    for (int k = 0; k < n; k++)
        seconds[k] = sg_bench_median(x[k].v, m);
    *samples = m;
}

static double measure(const timing *t, void (*fn)(op *), op *o, int *samples)
{
    timed x = {fn, o, 0, {0}};
    double seconds;
    sg_bench_measure_together(t, &x, 1, &seconds, samples);
    return seconds;
}

uint64_t sg_bench_digest(const void *data, uint64_t n)
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

/* The DRAM-sized cases (and their runtime-values figures) need 1.6 GiB and
 * most of a minute: they run only when --case names "dram". */
bool sg_bench_selected(const bench *b, const char *name)
{
    const char *filter = b->o->filter;
    if (strstr(name, "dram") != NULL)
        return filter != NULL && strstr(filter, "dram") != NULL && strstr(name, filter) != NULL;
    return filter == NULL || strstr(name, filter) != NULL;
}

sg_status sg_bench_new_context(sg_context **ctx, sg_error *err)
{
    if (sg_context_create(ctx) != SG_OK) {
        *ctx = NULL;
        return sg_fail(err, SG_ERR_NOMEM, "failed to create a context: out of memory");
    }
    return SG_OK;
}

/* ---- progress and the table -------------------------------------------------- */

void sg_bench_progress(bench *b, const char *fmt, ...)
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

void sg_bench_say(bench *b, const char *fmt, ...)
{
    progress_clear(b);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->o->out, fmt, ap);
    va_end(ap);
    fflush(b->o->out);
}

const char *sg_bench_format_time(char buf[32], double s)
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

const char *sg_bench_format_bytes(char buf[32], uint64_t n)
{
    if (n < 1024)
        snprintf(buf, 32, "%" PRIu64 " B", n);
    else if (n < 1024 * 1024)
        snprintf(buf, 32, "%.1f KiB", (double)n / 1024);
    else
        snprintf(buf, 32, "%.2f MiB", (double)n / 1048576);
    return buf;
}

/* The first line: the versions, the threads, the cache, the samples. */
static void print_title(bench *b)
{
    char llc[48] = "";
    uint64_t llc_bytes = sg_host_llc_bytes();
    if (llc_bytes > 0)
        snprintf(llc, sizeof llc, ", last-level cache %" PRIu64 " %s",
                 llc_bytes % 1048576 ? llc_bytes >> 10 : llc_bytes >> 20,
                 llc_bytes % 1048576 ? "KiB" : "MiB");
    sg_bench_say(b,
                 "slicegen bench%s: slicegen %s, LLVM %s, %d threads%s; times are medians of %d or more "
                 "runs\n",
                 b->o->quick ? " --quick" : "", SG_VERSION_STRING, sg_llvm_version(), b->threads, llc,
                 b->t->min_samples);
}

static void print_header(bench *b)
{
    char t[32];
    snprintf(t, sizeof t, "%d-thr", b->threads);
    sg_bench_say(b, "%-20s %-4s %10s %10s %6s %7s %8s %8s %10s %7s %9s\n", "case", "type", "output", "kernel",
                 "GB/s", "k/limit", "k/memcpy", "k/stream", t, "speedup", "interp/k");
}

static void print_row(bench *b, const case_result *r)
{
    char out[32], k[32], kt[32], interp[32];
    snprintf(interp, sizeof interp, "%.1fx%s", r->interp_s / r->kernel_s, r->interp_runs == 1 ? "*" : "");
    sg_bench_say(b, "%-20s %-4s %10s %10s %6.2f %7.2f %8.2f %8.2f %10s %6.2fx %9s\n", r->c->name,
                 sg_dtype_name(r->c->dtype), sg_bench_format_bytes(out, r->bytes),
                 sg_bench_format_time(k, r->kernel_s), (double)r->bytes / r->kernel_s / 1e9,
                 r->kernel_s / r->limit_s, r->kernel_s / r->memcpy_s, r->kernel_s / r->stream_s,
                 sg_bench_format_time(kt, r->threads_s), r->kernel_s / r->threads_s, interp);
}

/* The store strategies side by side: each case's kernel compiled with
 * cached and with streaming stores whatever the output's size, timed in
 * turn, and which of the two --stores auto chose (the table's `kernel`:
 * the same function); a case where auto's choice takes more than
 * STORES_NOISE times the better of the two is marked. */
#define STORES_NOISE 1.05
static void print_stores(bench *b)
{
    if (b->nresults == 0 || b->o->cuda)
        return;
    sg_short_rows_probe probe;
    sg_threshold_probe ladder;
    int64_t threshold = sg_host_measured_stream_threshold(&ladder);
    bool short_rows = sg_host_short_rows_stream(&probe);
    sg_bench_say(
        b,
        "stores: each kernel also compiled with --stores cached and --stores streaming, timed in turn "
        "with auto's (auto streams above %" PRId64 " output bytes: rows of long pieces, and rows of "
        "short pieces %s)\n",
        threshold, short_rows ? "too" : "not");
    if (ladder.measured) {
        char line[512], out[32], c[32], st[32];
        size_t n = 0;
        for (int k = 0; k < ladder.nsizes && n < sizeof line; k++)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %s/%s", k ? ", " : "",
                                  sg_bench_format_bytes(out, ladder.output_bytes[k]),
                                  sg_bench_format_time(c, ladder.cached_s[k]),
                                  sg_bench_format_time(st, ladder.streaming_s[k]));
        sg_bench_say(
            b,
            "stores: threshold: this machine's probe (a copy of rows of 8 KiB, cached/streaming at "
            "each output size, from the largest down): %s; half the last-level cache would be %" PRId64 "\n",
            line, ladder.derived);
    } else {
        sg_bench_say(b, "stores: threshold: %s\n",
                     ladder.setting >= 0 ? "SLICEGEN_STREAM_THRESHOLD"
                                         : "half the last-level cache (the probe failed)");
    }
    if (probe.measured) {
        char out[32], c[32], st[32];
        sg_bench_say(
            b,
            "stores: rows of short pieces: this machine's probe (NumPy's reflect pad, f32 rows of 1088 "
            "bytes, %s) took %s cached, %s streaming: they %s\n",
            sg_bench_format_bytes(out, probe.output_bytes), sg_bench_format_time(c, probe.cached_s),
            sg_bench_format_time(st, probe.streaming_s), short_rows ? "stream" : "stay cached");
    } else {
        sg_bench_say(b, "stores: rows of short pieces: %s\n",
                     probe.setting == 1   ? "streamed (SLICEGEN_STREAM_SHORT_ROWS=1)"
                     : probe.setting == 0 ? "cached (SLICEGEN_STREAM_SHORT_ROWS=0)"
                                          : "cached (the probe failed)");
    }
    sg_bench_say(b, "stores: %-20s %10s %10s %10s %10s %9s %s\n", "case", "output", "auto", "cached",
                 "streaming", "auto/best", "auto chose");
    int losses = 0;
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i];
        char out[32], a[32], c[32], st[32];
        /* auto's kernel is one of the two (the same function): its time is that one's */
        double best = r->cached_s < r->streaming_s ? r->cached_s : r->streaming_s;
        double chosen = r->auto_streams ? r->streaming_s : r->cached_s;
        bool loses = chosen > STORES_NOISE * best;
        losses += loses;
        sg_bench_say(b, "stores: %-20s %10s %10s %10s %10s %8.2fx %s%s\n", r->c->name,
                     sg_bench_format_bytes(out, r->bytes), sg_bench_format_time(a, chosen),
                     sg_bench_format_time(c, r->cached_s), sg_bench_format_time(st, r->streaming_s),
                     chosen / best, r->auto_streams ? "streaming" : "cached", loses ? "  !" : "");
    }
    if (losses > 0)
        sg_bench_say(b,
                     "stores: ! auto took more than %.2fx the better of cached and streaming (%d case%s)\n",
                     STORES_NOISE, losses, losses == 1 ? "" : "s");
}

static const case_result *find_result(const bench *b, const char *name)
{
    for (int i = 0; i < b->nresults; i++)
        if (strcmp(b->results[i].c->name, name) == 0)
            return &b->results[i];
    return NULL;
}

const case_result *sg_bench_strict_baseline(const bench *b, const case_result *r)
{
    if (r->c->expr != NULL || r->c->mode == SG_TRT_STRICT)
        return NULL;
    const case_result *strict = find_result(b, "trt-strict");
    bool same = strict != NULL && strict->out_rank == r->out_rank && strict->c->dtype == r->c->dtype &&
                memcmp(strict->out_shape, r->out_shape, r->out_rank * sizeof *r->out_shape) == 0;
    return same ? strict : NULL;
}

void sg_bench_print_notes(bench *b)
{
    bool once = false;
    for (int i = 0; i < b->nresults; i++)
        once |= b->results[i].interp_runs == 1;
    if (once)
        sg_bench_say(b, "* interpreter timed on one run (slow on large cases), not a median\n");
    if (b->nresults > 0 && !b->o->cuda)
        sg_bench_say(
            b,
            "stream: a copy with %s streaming stores; the limit is taken from the faster of it and memcpy\n",
            stream_kind());
    print_stores(b);
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i], *strict = sg_bench_strict_baseline(b, r);
        if (strict != NULL)
            sg_bench_say(b, "%s: %.2fx the time of trt-strict (the same output shape)\n", r->c->name,
                         r->kernel_s / strict->kernel_s);
    }
    text parts = {0};
    for (int i = 0; i < b->nresults; i++)
        if (b->results[i].c->program)
            sg_bench_put(&parts, "%s%s %zu", parts.len ? ", " : "", b->results[i].c->name,
                         b->results[i].nparts);
    if (parts.len > 0 && !parts.failed)
        sg_bench_say(b, "programs: one kernel each, made of parts: %s\n", parts.s);
    free(parts.s);
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i];
        if (r->nsteps == 0)
            continue;
        text t = {0};
        char f[32], sep[32];
        for (int k = 0; k < r->nsteps; k++) {
            sg_bench_put(&t, "%s%s", k ? ", then " : "", r->step_spec[k]);
            if (k + 1 < r->nsteps) {
                sg_bench_put(&t, " into a temporary %s [", sg_dtype_name(r->c->dtype));
                for (size_t d = 0; d < r->step_rank[k]; d++)
                    sg_bench_put(&t, "%s%" PRId64, d ? ", " : "", r->step_shape[k][d]);
                sg_bench_put(&t, "]");
            }
        }
        sg_bench_say(b, "%s: one kernel %s, its %d steps as kernels of their own %s (%s): %.2fx the time\n",
                     r->c->name, sg_bench_format_time(f, r->fused_s), r->nsteps,
                     sg_bench_format_time(sep, r->separate_s), t.failed ? "?" : t.s,
                     r->separate_s / r->fused_s);
        free(t.s);
    }
    const case_result *tiny = find_result(b, "tiny");
    if (tiny != NULL && b->o->cuda)
        sg_bench_say(b,
                     "tiny: %.1f ns per launch (back-to-back launches of a cached kernel on one stream); "
                     "device-to-device copy %.1f ns\n",
                     tiny->kernel_s * 1e9, tiny->memcpy_s * 1e9);
    else if (tiny != NULL)
        sg_bench_say(b,
                     "tiny: %.1f ns per call (sg_kernel_run of a cached kernel, 1 thread); memcpy %.1f ns\n",
                     tiny->kernel_s * 1e9, tiny->memcpy_s * 1e9);
}

/* ---- one case -------------------------------------------------------------------- */

sg_status sg_bench_from_context(sg_context *ctx, sg_status st, sg_error *err, const char *name)
{
    return sg_fail(err, st, "failed to benchmark '%s': %s", name, sg_context_last_error(ctx));
}

sg_status sg_bench_case_plan(sg_context *ctx, const bench_case *c, const int64_t *shape, sg_plan **plan,
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
        return sg_bench_from_context(ctx, st, err, c->name);
    }
    *spec_text = sg_spec_to_text(spec);
    sg_spec_destroy(spec);
    if (*spec_text == NULL) {
        sg_plan_destroy(*plan);
        *plan = NULL;
        return sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", c->name);
    }
    if (c->program != ((*plan)->op == SG_OP_PROGRAM)) {
        sg_plan_destroy(*plan);
        *plan = NULL;
        free(*spec_text);
        *spec_text = NULL;
        return sg_fail(err, SG_ERR_INTERNAL,
                       "failed to benchmark '%s': the suite says it is %sa program, '%s' is %s", c->name,
                       c->program ? "" : "not ", c->expr, c->program ? "not" : "one");
    }
    return SG_OK;
}

sg_status sg_bench_case_prepare(bench *b, sg_context *ctx, const bench_case *c, const int64_t *shape,
                                case_result *r, sg_plan **plan, sg_error *err)
{
    sg_status st;
    *r = (case_result){.c = c};
    memcpy(r->shape, shape, sizeof r->shape);
    if ((st = sg_bench_case_plan(ctx, c, shape, plan, &r->spec, err)) != SG_OK)
        return st;
    r->out_rank = sg_plan_output_rank(*plan);
    memcpy(r->out_shape, sg_plan_output_shape(*plan), r->out_rank * sizeof *r->out_shape);
    r->bytes = sg_plan_output_bytes(*plan);
    r->in_bytes = sg_plan_input_bytes(*plan);
    r->nparts = (*plan)->op == SG_OP_PROGRAM ? (*plan)->nparts : 0;
    sg_bench_progress(b, "%s: counting traffic", c->name);
    if ((st = sg_bench_traffic(*plan, &r->traffic, err)) != SG_OK) {
        sg_plan_destroy(*plan);
        *plan = NULL;
    }
    return st;
}

const int64_t *sg_bench_cpu_shape(const bench *b, const bench_case *c)
{
    return b->o->quick && c->quick_shape[0] != 0 ? c->quick_shape : c->shape;
}

void *sg_bench_buffer(uint64_t n, bool pattern)
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

sg_status sg_bench_buffers(const char *name, uint64_t in_bytes, uint64_t bytes, void **in, void **out,
                           sg_error *err)
{
    *in = sg_bench_buffer(in_bytes > bytes ? in_bytes : bytes, true);
    *out = sg_bench_buffer(bytes, false);
    if (*in != NULL && *out != NULL)
        return SG_OK;
    free(*in);
    free(*out);
    *in = *out = NULL;
    return sg_fail(err, SG_ERR_NOMEM,
                   "failed to benchmark '%s': out of memory for %" PRIu64 " + %" PRIu64 " bytes", name,
                   in_bytes, bytes);
}

/* ---- a program's steps run apart ------------------------------------------------- */

/* The steps of a program case (bench_case.separate) as kernels of their
 * own: step k reads buf[k] and writes buf[k + 1] (buf[0], the case's
 * input, and buf[n], the output, are not theirs). */
typedef struct steps {
    op o; /* first: an op* is a steps* (o.in, o.out: the case's buffers) */
    int n;
    sg_plan *plan[SG_BENCH_MAX_STEPS];
    sg_kernel *kernel[SG_BENCH_MAX_STEPS];
    void *buf[SG_BENCH_MAX_STEPS + 1];
} steps;

/* The steps' kernels one after the other, each on 1 thread. */
static void op_steps(op *o)
{
    steps *s = (steps *)o;
    for (int k = 0; k < s->n && o->status == SG_OK; k++) {
        const void *in = k == 0 ? o->in : s->buf[k];
        void *out = k + 1 == s->n ? o->out : s->buf[k + 1];
        sg_status st = sg_kernel_run(o->ctx, s->kernel[k], in, out, 1);
        if (st != SG_OK)
            o->status = st;
    }
}

static void steps_free(steps *s)
{
    for (int k = 0; k < SG_BENCH_MAX_STEPS; k++) {
        sg_kernel_destroy(s->kernel[k]);
        sg_plan_destroy(s->plan[k]);
        free(s->buf[k + 1]);
    }
}

/* Plans, compiles and allocates the steps of case c into *s and r (their
 * specs and output shapes): the first on the case's input, each next one
 * on the output of the one before; the last must give the program's
 * output shape. */
static sg_status steps_prepare(sg_context *ctx, const bench_case *c, case_result *r, steps *s, sg_error *err)
{
    size_t rank = c->rank;
    const int64_t *shape = r->shape;
    for (int k = 0; k < SG_BENCH_MAX_STEPS && c->separate[k] != NULL; k++) {
        sg_spec *spec = NULL;
        sg_status st = sg_spec_numpy(ctx, c->separate[k], &spec);
        if (st == SG_OK)
            st = sg_plan_create(ctx, spec, rank, shape, c->dtype, &s->plan[k]);
        if (st == SG_OK && (r->step_spec[k] = sg_spec_to_text(spec)) == NULL)
            st = sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", c->name);
        else if (st != SG_OK)
            st = sg_bench_from_context(ctx, st, err, c->name);
        sg_spec_destroy(spec);
        s->n = r->nsteps = k + 1;
        if (st != SG_OK)
            return st;
        if ((st = sg_kernel_compile_with(ctx, s->plan[k], NULL, &s->kernel[k])) != SG_OK)
            return sg_bench_from_context(ctx, st, err, c->name);
        rank = r->step_rank[k] = sg_plan_output_rank(s->plan[k]);
        memcpy(r->step_shape[k], sg_plan_output_shape(s->plan[k]), rank * sizeof *shape);
        shape = r->step_shape[k];
        bool last = k + 1 == SG_BENCH_MAX_STEPS || c->separate[k + 1] == NULL;
        if (!last && (s->buf[k + 1] = sg_bench_buffer(sg_plan_output_bytes(s->plan[k]), false)) == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory for step %d", c->name,
                           k + 1);
    }
    if (rank != r->out_rank || memcmp(shape, r->out_shape, rank * sizeof *shape) != 0)
        return sg_fail(err, SG_ERR_INTERNAL,
                       "failed to benchmark '%s': its steps run apart do not give the program's output shape",
                       c->name);
    return SG_OK;
}

/* A program run as its steps (c->separate): the steps' kernels back to
 * back on 1 thread, in turn with the program's kernel `fused` (on 1
 * thread); the steps' output must be `want`, the digest of the kernel's. */
static sg_status time_steps(bench *b, sg_context *ctx, const bench_case *c, case_result *r, op *fused,
                            uint64_t want, sg_error *err)
{
    steps s = {.o = *fused};
    s.o.status = SG_OK;
    sg_status st = steps_prepare(ctx, c, r, &s, err);
    if (st == SG_OK) {
        timed pair[2] = {{sg_bench_op_kernel, fused, 0, {0}}, {op_steps, &s.o, 0, {0}}};
        double seconds[2];
        fused->threads = 1;
        sg_bench_progress(b, "%s: the program's kernel and its %d steps run apart, in turn", c->name, s.n);
        sg_bench_measure_together(b->t, pair, 2, seconds, &r->separate_samples);
        r->fused_s = seconds[0], r->separate_s = seconds[1];
        memset(s.o.out, 0, (size_t)r->bytes);
        op_steps(&s.o);
        if (fused->status != SG_OK || s.o.status != SG_OK)
            st =
                sg_bench_from_context(ctx, fused->status != SG_OK ? fused->status : s.o.status, err, c->name);
        else if (sg_bench_digest(s.o.out, r->bytes) != want)
            st = sg_fail(err, SG_ERR_INTERNAL,
                         "failed to benchmark '%s': its steps run apart give another output than its kernel",
                         c->name);
    }
    steps_free(&s);
    return st;
}

static sg_status run_case(bench *b, sg_context *ctx, const bench_case *c, case_result *r, sg_error *err)
{
    const timing *t = b->t;
    const int64_t *shape = sg_bench_cpu_shape(b, c);
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL, *cached = NULL, *streamed = NULL;
    void *in = NULL, *out = NULL;
    sg_status st;
    op o = {ctx, NULL, NULL, NULL, NULL, 0, 1, SG_OK};
    int samples;

    if ((st = sg_bench_case_prepare(b, ctx, c, shape, r, &plan, err)) != SG_OK)
        return st;
    if ((st = sg_bench_buffers(c->name, r->in_bytes, r->bytes, &in, &out, err)) != SG_OK)
        goto done;
    /* the kernel as --stores auto makes it, and with each store strategy forced */
    sg_compile_options cached_stores, streaming_stores;
    sg_compile_options_init(&cached_stores);
    sg_compile_options_init(&streaming_stores);
    cached_stores.stores = SG_STORES_CACHED;
    streaming_stores.stores = SG_STORES_STREAMING;
    if ((st = sg_kernel_compile_with(ctx, plan, NULL, &kernel)) != SG_OK ||
        (st = sg_kernel_compile_with(ctx, plan, &cached_stores, &cached)) != SG_OK ||
        (st = sg_kernel_compile_with(ctx, plan, &streaming_stores, &streamed)) != SG_OK) {
        st = sg_bench_from_context(ctx, st, err, c->name);
        goto done;
    }
    r->auto_streams = sg_kernel_function(kernel) == sg_kernel_function(streamed);
    o = (op){ctx, kernel, plan, in, out, r->bytes, 1, SG_OK};
    op copy = o, with_cached = o, with_streaming = o;
    with_cached.kernel = cached, with_streaming.kernel = streamed;
    timed five[5] = {{op_memcpy, &copy, 0, {0}},
                     {op_stream, &copy, 0, {0}},
                     {sg_bench_op_kernel, &o, 0, {0}},
                     {sg_bench_op_kernel, &with_cached, 0, {0}},
                     {sg_bench_op_kernel, &with_streaming, 0, {0}}};
    double seconds[5];
    sg_bench_progress(b,
                      "%s: kernel on 1 thread (stores auto, cached, streaming), memcpy and the streaming "
                      "copy, in turn",
                      c->name);
    sg_bench_measure_together(t, five, 5, seconds, &r->samples);
    r->memcpy_s = seconds[0], r->stream_s = seconds[1], r->kernel_s = seconds[2];
    r->cached_s = seconds[3], r->streaming_s = seconds[4];
    double best = r->stream_s < r->memcpy_s ? r->stream_s : r->memcpy_s;
    r->limit_s = best * (double)r->traffic / (2.0 * (double)r->bytes);
    if (with_cached.status != SG_OK || with_streaming.status != SG_OK) {
        st = sg_bench_from_context(
            ctx, with_cached.status != SG_OK ? with_cached.status : with_streaming.status, err, c->name);
        goto done;
    }
    sg_bench_op_kernel(&with_streaming);
    uint64_t streamed_digest = sg_bench_digest(out, r->bytes);
    sg_bench_op_kernel(&with_cached);
    uint64_t cached_digest = sg_bench_digest(out, r->bytes);
    sg_bench_op_kernel(&o); /* after memcpy: the kernel's output */
    uint64_t want = sg_bench_digest(out, r->bytes);
    if (cached_digest != want || streamed_digest != want) {
        st = sg_fail(err, SG_ERR_INTERNAL,
                     "failed to benchmark '%s': its %s kernel's output differs from --stores auto's", c->name,
                     cached_digest != want ? "cached" : "streaming");
        goto done;
    }
    sg_bench_progress(b, "%s: kernel, %d threads", c->name, b->threads);
    o.threads = b->threads;
    r->threads_s = measure(t, sg_bench_op_kernel, &o, &samples);
    if (o.status != SG_OK) {
        st = sg_bench_from_context(ctx, o.status, err, c->name);
        goto done;
    }
    if (sg_bench_digest(out, r->bytes) != want) {
        st = sg_fail(err, SG_ERR_INTERNAL,
                     "failed to benchmark '%s': the kernel's output on %d threads "
                     "differs from its output on one",
                     c->name, b->threads);
        goto done;
    }

    /* The interpreter: slow on large cases, where one run is timed. */
    sg_bench_progress(b, "%s: interpreter", c->name);
    double t0 = sg_bench_now();
    op_interp(&o);
    r->interp_s = sg_bench_now() - t0;
    r->interp_runs = 1;
    if (r->interp_s < t->interp_once_s) {
        timing ti = *t;
        ti.min_samples = t->min_samples < 5 ? t->min_samples : 5;
        ti.max_samples = 11;
        ti.target_s = t->interp_once_s;
        r->interp_s = measure(&ti, op_interp, &o, &r->interp_runs);
    }
    if (o.status != SG_OK) {
        st = sg_bench_from_context(ctx, o.status, err, c->name);
        goto done;
    }
    if (sg_bench_digest(out, r->bytes) != want) {
        st = sg_fail(err, SG_ERR_INTERNAL,
                     "failed to benchmark '%s': the kernel's output differs from the "
                     "reference interpreter's",
                     c->name);
        goto done;
    }
    if (c->separate[0] != NULL)
        st = time_steps(b, ctx, c, r, &o, want, err);
done:
    sg_kernel_destroy(kernel);
    sg_kernel_destroy(cached);
    sg_kernel_destroy(streamed);
    sg_plan_destroy(plan);
    free(in);
    free(out);
    return st;
}

/* Runs the selected cases on ctx, a table line for each as soon as it is
 * measured; b->results holds every case started. */
static sg_status run_cases(bench *b, sg_context *ctx, sg_error *err)
{
    bool header = false;
    for (int i = 0; i < NCASES; i++) {
        if (!sg_bench_selected(b, suite[i].name))
            continue;
        if (!header) {
            print_header(b);
            header = true;
        }
        b->shown++;
        case_result *r = &b->results[b->nresults];
        sg_status st = run_case(b, ctx, &suite[i], r, err);
        b->nresults++; /* its spec is freed by sg_bench_run either way */
        if (st != SG_OK)
            return st;
        print_row(b, r);
    }
    return SG_OK;
}

/* ---- the run ---------------------------------------------------------------------- */

/* The checks before anything is measured (see sg_bench_run); sets b->total. */
static sg_status check_options(bench *b, sg_error *err)
{
    /* The compile and runtime-values figures are the CPU's JIT: not part of --device cuda. */
    int cases = 0, compiles = b->o->cuda ? 0 : sg_bench_compiles_selected(b);
    int values = b->o->cuda ? 0 : sg_bench_values_selected(b);
    int measured = 0; /* the cases measured: with --device cuda, programs are skipped with a note */
    for (int i = 0; i < NCASES; i++) {
        cases += sg_bench_selected(b, suite[i].name);
        measured += sg_bench_selected(b, suite[i].name) && !(b->o->cuda && suite[i].program);
    }
    if (cases + compiles + values == 0) {
        text t = {0};
        int dram = 0;
        for (int i = 0; i < NCASES; i++)
            dram += strncmp(suite[i].name, "dram-", 5) == 0;
        for (int i = 0; i < NCASES; i++)
            if (strncmp(suite[i].name, "dram-", 5) != 0)
                sg_bench_put(&t, "%s, ", suite[i].name);
        sg_bench_put(&t, "%d dram-...%s", dram, b->o->cuda ? "" : ", ");
        /* the compile figures by their prefix alone: the message holds 511 bytes */
        if (!b->o->cuda)
            sg_bench_put(&t, "'values: CASE' for each case, 'values: decode', 'compile: ...'");
        sg_fail(err, SG_ERR_USAGE, "--case '%s' matches no case (the cases: %s)", b->o->filter,
                t.failed ? "?" : t.s);
        free(t.s);
        return err->status;
    }
    if (b->o->plot_path != NULL && cases > 0 && measured == 0)
        return sg_fail(err, SG_ERR_USAGE,
                       "--plot: --case '%s' selects only programs, whose GPU kernels are not made yet",
                       b->o->filter);
    sg_status st = sg_bench_check_outputs(b, measured > 0, err);
    if (st != SG_OK)
        return st;
    b->total = measured + (compiles > 0) + values;
    return SG_OK;
}

sg_status sg_bench_run(const sg_bench_options *options, sg_error *err)
{
    bench *b = calloc(1, sizeof *b + NCASES * sizeof *b->results);
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
    sg_bench_name_compiles(b);
    if ((st = check_options(b, err)) != SG_OK || (st = sg_bench_new_context(&ctx, err)) != SG_OK)
        goto done;
    if (options->cuda) {
        if ((st = sg_bench_run_cuda(b, ctx, err)) == SG_OK)
            st = sg_bench_write_outputs(b, err);
        goto done;
    }
    print_title(b);
    if ((st = run_cases(b, ctx, err)) != SG_OK)
        goto done;
    sg_bench_print_notes(b);
    sg_context_destroy(ctx);
    ctx = NULL;
    if (sg_bench_compiles_selected(b) > 0) {
        b->shown++;
        if ((st = sg_bench_run_compiles(b, err)) != SG_OK)
            goto done;
    }
    if (sg_bench_values_selected(b) > 0 &&
        (st = sg_bench_run_values(b, err)) != SG_OK)
        goto done;
    st = sg_bench_write_outputs(b, err);
done:
    progress_clear(b);
    sg_context_destroy(ctx);
    sg_bench_remove_tmpdir(b);
    for (int i = 0; i < b->nresults; i++) {
        free(b->results[i].spec);
        for (int k = 0; k < SG_BENCH_MAX_STEPS; k++)
            free(b->results[i].step_spec[k]);
    }
    for (int i = 0; i < b->nvalues; i++) {
        free(b->values[i].spec);
        free(b->values[i].bounds.spec);
        free(b->values[i].steps.spec);
    }
    free(b->gnuplot);
    free(b);
    return st;
}

/* What --stores auto needs to know of this machine, measured once per
 * process the first time the JIT needs it: the output size above which
 * streaming stores pay (sg_host_measured_stream_threshold), and whether
 * they pay for kernels whose rows are short pieces (codegen.h,
 * SG_AUTO_SHORT_ROWS; sg_host_short_rows_stream). */
#define _DEFAULT_SOURCE /* clock_gettime, madvise */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../codegen/codegen.h"
#include "runtime.h"

/* The probe: NumPy's reflect pad of f32 [n, 256, 256] by 8 on each side
 * of the last two axes, a program of nine parts (rows of 1088 bytes
 * meeting 32-byte borders stored apart, every target's rows of short
 * pieces: the kernels whose streamed time differs most between machines), n making the
 * output about twice the streaming threshold, at least PROBE_MIN_BYTES and
 * at most PROBE_MAX_BYTES (past the cache, without a long probe). */
enum { PROBE_SIDE = 256, PROBE_BORDER = 8, PROBE_ROUNDS = 9 };
#define PROBE_MIN_BYTES ((uint64_t)24 << 20)
#define PROBE_MAX_BYTES ((uint64_t)48 << 20)

static sg_short_rows_probe probe_result;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A buffer of at least `bytes` in huge pages where the system gives them:
 * first touching tens of MiB of small pages can take longer than the
 * probe's runs together. */
static void *probe_buffer(uint64_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    size_t size = ((size_t)bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, size);
#ifdef MADV_HUGEPAGE
    if (p != NULL)
        madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return v[n / 2];
}

/* Compiles plan cached and streaming and times the two in turn on in and
 * out, `rounds` samples each; their medians into times[0] (cached) and
 * times[1]. As slicegen bench does, each sample of a kernel follows an
 * untimed batch of that kernel, so that it finds the cache as it leaves it
 * (the other kernel's streaming stores evict the output), and a batch
 * takes at least PROBE_SAMPLE_S. False if anything fails (no memory, a
 * compile error). */
#define PROBE_SAMPLE_S 5e-4
static bool time_stores(sg_context *ctx, const sg_plan *plan, const void *in, void *out, int rounds,
                        double times[2])
{
    enum { MAX_ROUNDS = 15, MAX_BATCH = 64 };
    sg_kernel *kernels[2] = {NULL, NULL}; /* cached, streaming */
    double t[2][MAX_ROUNDS];
    int batch[2] = {1, 1};
    sg_compile_options cached, streaming;
    sg_compile_options_init(&cached);
    sg_compile_options_init(&streaming);
    cached.stores = SG_STORES_CACHED;
    streaming.stores = SG_STORES_STREAMING;
    bool ok = rounds <= MAX_ROUNDS && sg_kernel_compile_with(ctx, plan, &cached, &kernels[0]) == SG_OK &&
              sg_kernel_compile_with(ctx, plan, &streaming, &kernels[1]) == SG_OK;
    for (int k = 0; ok && k < 2; k++) { /* the batch from one warm run */
        ok = sg_kernel_run(ctx, kernels[k], in, out, 1) == SG_OK;
        double t0 = now_s();
        ok = ok && sg_kernel_run(ctx, kernels[k], in, out, 1) == SG_OK;
        double one = now_s() - t0;
        batch[k] = one >= PROBE_SAMPLE_S               ? 1
                   : one * MAX_BATCH <= PROBE_SAMPLE_S ? MAX_BATCH
                                                       : (int)(PROBE_SAMPLE_S / one) + 1;
    }
    for (int round = 0; ok && round < rounds; round++)
        for (int k = 0; ok && k < 2; k++) {
            for (int b = 0; ok && b < batch[k]; b++)
                ok = sg_kernel_run(ctx, kernels[k], in, out, 1) == SG_OK;
            double t0 = now_s();
            for (int b = 0; ok && b < batch[k]; b++)
                ok = sg_kernel_run(ctx, kernels[k], in, out, 1) == SG_OK;
            t[k][round] = (now_s() - t0) / batch[k];
        }
    if (ok) {
        times[0] = median(t[0], rounds);
        times[1] = median(t[1], rounds);
    }
    sg_kernel_destroy(kernels[0]);
    sg_kernel_destroy(kernels[1]);
    return ok;
}

/* The short-rows probe's two kernels timed (sg_short_rows_probe). */
static bool measure(sg_short_rows_probe *r)
{
    const int64_t padded = PROBE_SIDE + 2 * PROBE_BORDER;
    const uint64_t out_per_n = (uint64_t)padded * padded * sizeof(float);
    uint64_t want = 2 * (uint64_t)sg_host_stream_threshold();
    want = want < PROBE_MIN_BYTES ? PROBE_MIN_BYTES : want > PROBE_MAX_BYTES ? PROBE_MAX_BYTES : want;
    int64_t n = (int64_t)((want + out_per_n - 1) / out_per_n); /* at least PROBE_MIN_BYTES */
    if ((uint64_t)n * out_per_n > PROBE_MAX_BYTES)
        n--;
    const int64_t shape[3] = {n, PROBE_SIDE, PROBE_SIDE};
    char pad[80];
    snprintf(pad, sizeof pad, "np.pad(x, ((0, 0), (%d, %d), (%d, %d)), mode='reflect')", PROBE_BORDER,
             PROBE_BORDER, PROBE_BORDER, PROBE_BORDER);

    bool ok = false;
    sg_context *ctx = NULL;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    void *in = NULL, *out = NULL;
    double times[2];
    if (sg_context_create(&ctx) != SG_OK || sg_spec_numpy(ctx, pad, &spec) != SG_OK ||
        sg_plan_create(ctx, spec, 3, shape, SG_F32, &plan) != SG_OK)
        goto done;
    in = probe_buffer(sg_plan_input_bytes(plan));
    out = probe_buffer(sg_plan_output_bytes(plan));
    if (in == NULL || out == NULL)
        goto done;
    memset(in, 1, sg_plan_input_bytes(plan));
    if (!time_stores(ctx, plan, in, out, PROBE_ROUNDS, times))
        goto done;
    r->output_bytes = sg_plan_output_bytes(plan);
    r->cached_s = times[0];
    r->streaming_s = times[1];
    r->streams = r->streaming_s <= r->cached_s;
    ok = true;
done:
    free(in);
    free(out);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    sg_context_destroy(ctx);
    return ok;
}

static void probe(void)
{
    sg_short_rows_probe r = {.setting = sg_codegen_short_rows()};
    if (r.setting >= 0)
        r.streams = r.setting == 1;
    else
        r.measured = measure(&r);
    probe_result = r;
}

bool sg_host_short_rows_stream(sg_short_rows_probe *figures)
{
    pthread_once(&probe_once, probe);
    if (figures != NULL)
        *figures = probe_result;
    return probe_result.streams;
}

/* ---- the threshold ------------------------------------------------------------------------ */

/* The threshold probe: a crop of rows of 8 KiB ([:, 8:-8] of f32 [n, 2064],
 * long rows: the kernels that stream first), its output 32 MiB, then
 * halved down to 1 MiB (SG_STREAM_PROBE_MIN), until cached stores win at
 * a size S; then once more at 3/2 S (between S and the size above it,
 * where streaming won). Small outputs take more rounds: their times are
 * short. */
enum { LADDER_COLUMNS = 2048, LADDER_BORDER = 8, LADDER_ROUNDS = 3, LADDER_SMALL_ROUNDS = 9 };
#define LADDER_TOP_BYTES ((int64_t)32 << 20)

static sg_threshold_probe threshold_result;
static pthread_once_t threshold_once = PTHREAD_ONCE_INIT;

/* The probe's crop with an output of about `bytes` (whole rows) timed
 * into the next entry of r's figures; returns whether cached stores won
 * there (-1: something failed). */
static int ladder_rung(sg_context *ctx, const sg_spec *spec, const void *in, void *out, int64_t bytes,
                       sg_threshold_probe *r)
{
    const int64_t row_in = LADDER_COLUMNS + 2 * LADDER_BORDER, row_out = LADDER_COLUMNS * sizeof(float);
    const int64_t shape[2] = {bytes / row_out, row_in};
    sg_plan *plan = NULL;
    double times[2];
    int rounds = bytes <= 4 * SG_STREAM_PROBE_MIN ? LADDER_SMALL_ROUNDS : LADDER_ROUNDS;
    bool timed = r->nsizes < SG_THRESHOLD_PROBE_SIZES &&
                 sg_plan_create(ctx, spec, 2, shape, SG_F32, &plan) == SG_OK &&
                 time_stores(ctx, plan, in, out, rounds, times);
    sg_plan_destroy(plan);
    if (!timed)
        return -1;
    int k = r->nsizes++;
    r->output_bytes[k] = (uint64_t)(shape[0] * row_out);
    r->cached_s[k] = times[0];
    r->streaming_s[k] = times[1];
    return times[0] < times[1];
}

/* Walks the ladder (sg_threshold_probe); false if anything fails. */
static bool measure_threshold(sg_threshold_probe *r)
{
    const int64_t row_in = LADDER_COLUMNS + 2 * LADDER_BORDER, row_out = LADDER_COLUMNS * sizeof(float);
    const int64_t top_rows = LADDER_TOP_BYTES / row_out;
    const int64_t start = LADDER_BORDER, stop = -LADDER_BORDER, step = 1, axis = 1;
    bool ok = false;
    sg_context *ctx = NULL;
    sg_spec *spec = NULL;
    void *in = probe_buffer((uint64_t)(top_rows * row_in) * sizeof(float));
    void *out = probe_buffer((uint64_t)LADDER_TOP_BYTES);
    if (in == NULL || out == NULL || sg_context_create(&ctx) != SG_OK ||
        sg_spec_slice(ctx, 1, &start, &stop, &step, &axis, &spec) != SG_OK)
        goto done;
    memset(in, 1, (size_t)(top_rows * row_in) * sizeof(float));
    r->threshold = SG_STREAM_PROBE_MIN; /* streaming won at every size */
    for (int64_t bytes = LADDER_TOP_BYTES; bytes >= SG_STREAM_PROBE_MIN; bytes /= 2) {
        int cached_wins = ladder_rung(ctx, spec, in, out, bytes, r);
        if (cached_wins < 0)
            goto done;
        if (!cached_wins)
            continue;
        /* stream only above this size */
        r->threshold = bytes == LADDER_TOP_BYTES && r->derived > bytes ? r->derived : bytes;
        if (bytes < LADDER_TOP_BYTES) {
            r->refined = true;
            if ((cached_wins = ladder_rung(ctx, spec, in, out, bytes / 2 * 3, r)) < 0)
                goto done;
            if (cached_wins)
                r->threshold = (int64_t)r->output_bytes[r->nsizes - 1];
        }
        break;
    }
    ok = true;
done:
    free(in);
    free(out);
    sg_spec_destroy(spec);
    sg_context_destroy(ctx);
    return ok;
}

static void probe_threshold(void)
{
    sg_threshold_probe r = {.setting = sg_codegen_threshold_setting(), .derived = sg_host_stream_threshold()};
    if (r.setting >= 0)
        r.threshold = r.setting;
    else if (!(r.measured = measure_threshold(&r)))
        r.threshold = r.derived;
    threshold_result = r;
}

int64_t sg_host_measured_stream_threshold(sg_threshold_probe *figures)
{
    pthread_once(&threshold_once, probe_threshold);
    if (figures != NULL)
        *figures = threshold_result;
    return threshold_result.threshold;
}

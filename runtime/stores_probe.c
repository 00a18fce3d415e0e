/* Whether streaming stores pay on this machine for kernels whose rows are
 * short pieces (codegen.h, SG_AUTO_SHORT_ROWS): measured once per process,
 * on the kernel such rows make, the first time the JIT needs to know. */
#define _DEFAULT_SOURCE /* clock_gettime, madvise */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../codegen/codegen.h"
#include "runtime.h"

/* The probe: a TensorRT REFLECT pad of f32 [n, 256, 256] by 8 on each side
 * of the last two axes (rows of 1088 bytes meeting 32-byte borders, the
 * kernels whose streamed time differs most between machines), n making the
 * output about twice the streaming threshold, at least PROBE_MIN_BYTES and
 * at most PROBE_MAX_BYTES (past the cache, without a long probe). */
enum { PROBE_SIDE = 256, PROBE_BORDER = 8, PROBE_ROUNDS = 3 };
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

/* Times the two kernels in turn, PROBE_ROUNDS each after one untimed run
 * of each; false if anything fails (no memory, a compile error). */
static bool measure(sg_short_rows_probe *r)
{
    const int64_t padded = PROBE_SIDE + 2 * PROBE_BORDER;
    const uint64_t out_per_n = (uint64_t)padded * padded * sizeof(float);
    uint64_t want = 2 * (uint64_t)sg_host_stream_threshold();
    want = want < PROBE_MIN_BYTES ? PROBE_MIN_BYTES : want > PROBE_MAX_BYTES ? PROBE_MAX_BYTES : want;
    const int64_t n = (int64_t)(want / out_per_n);
    const int64_t shape[3] = {n, PROBE_SIDE, PROBE_SIDE};
    const int64_t start[3] = {0, -PROBE_BORDER, -PROBE_BORDER}, size[3] = {n, padded, padded};

    bool ok = false;
    sg_context *ctx = NULL;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_kernel *kernels[2] = {NULL, NULL}; /* cached, streaming */
    void *in = NULL, *out = NULL;
    if (sg_context_create(&ctx) != SG_OK ||
        sg_spec_trt_slice(ctx, 3, start, size, NULL, SG_TRT_REFLECT, NULL, &spec) != SG_OK ||
        sg_plan_create(ctx, spec, 3, shape, SG_F32, &plan) != SG_OK ||
        sg_kernel_compile_stores(ctx, plan, SG_DEFAULT_OPT_LEVEL, SG_STORES_CACHED, &kernels[0]) != SG_OK ||
        sg_kernel_compile_stores(ctx, plan, SG_DEFAULT_OPT_LEVEL, SG_STORES_STREAMING, &kernels[1]) != SG_OK)
        goto done;
    in = probe_buffer(sg_plan_input_bytes(plan));
    out = probe_buffer(sg_plan_output_bytes(plan));
    if (in == NULL || out == NULL)
        goto done;
    memset(in, 1, sg_plan_input_bytes(plan));
    double times[2][PROBE_ROUNDS];
    for (int round = -1; round < PROBE_ROUNDS; round++)
        for (int k = 0; k < 2; k++) {
            double t0 = now_s();
            if (sg_kernel_run(ctx, kernels[k], in, out, 1) != SG_OK)
                goto done;
            if (round >= 0)
                times[k][round] = now_s() - t0;
        }
    r->output_bytes = sg_plan_output_bytes(plan);
    r->cached_s = median(times[0], PROBE_ROUNDS);
    r->streaming_s = median(times[1], PROBE_ROUNDS);
    r->streams = r->streaming_s <= r->cached_s;
    ok = true;
done:
    free(in);
    free(out);
    sg_kernel_release(kernels[0]);
    sg_kernel_release(kernels[1]);
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

/*
 * slicegen-bench: generated kernels against memcpy of the same output
 * bytes and against the reference interpreter, and compile latency (JIT
 * creation, per-kernel compile at -O0 and -O2, cache hit). Prints tables;
 * no thresholds. Times are the best of several repetitions.
 *
 *   slicegen-bench [--quick]     (--quick: 16 MiB inputs, fewer plans)
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runtime/runtime.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

_Noreturn static void die(sg_context *ctx, const char *what)
{
    fprintf(stderr, "slicegen-bench: %s: %s\n", what, ctx ? sg_context_last_error(ctx) : "");
    exit(1);
}

static sg_plan *plan_of(sg_context *ctx, const char *expr, size_t rank, const int64_t *shape, sg_dtype dtype)
{
    sg_spec *spec;
    sg_plan *plan;
    if (sg_spec_numpy(ctx, expr, &spec) != SG_OK ||
        sg_plan_create(ctx, spec, rank, shape, dtype, &plan) != SG_OK)
        die(ctx, expr);
    sg_spec_destroy(spec);
    return plan;
}

/* ---- throughput -------------------------------------------------------------------- */

typedef struct row {
    const char *name, *expr;
} row;

static double best_of(int reps, void (*fn)(void *), void *arg)
{
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        fn(arg);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    return best;
}

typedef struct job {
    sg_context *ctx;
    sg_plan *plan;
    sg_kernel *kernel;
    const void *in;
    void *out;
    size_t bytes;
    int threads;
} job;

static void run_kernel(void *arg)
{
    job *j = arg;
    if (sg_kernel_run(j->ctx, j->kernel, j->in, j->out, j->threads) != SG_OK)
        die(j->ctx, "run kernel");
}

static void run_memcpy(void *arg)
{
    job *j = arg;
    memcpy(j->out, j->in, j->bytes);
}

static void run_reference(void *arg)
{
    job *j = arg;
    if (sg_run_reference(j->ctx, j->plan, j->in, j->out) != SG_OK)
        die(j->ctx, "run reference");
}

static void throughput(sg_context *ctx, int64_t rows, int64_t cols, int reps)
{
    static const row cases[] = {
        {"contiguous rows", "[1:-1, 1:-1]"},
        {"contiguous block", "[1:-1]"},
        {"stride 2", "[:, ::2]"},
        {"reversed", "[:, ::-1]"},
        {"stride 2, reversed rows", "[::-1, 1::2]"},
        {"every 4th column", "[:, ::4]"},
    };
    int64_t shape[2] = {rows, cols};
    size_t in_bytes = (size_t)(rows * cols) * 4;
    unsigned char *in = malloc(in_bytes), *out = malloc(in_bytes);
    if (!in || !out)
        die(NULL, "out of memory");
    for (size_t i = 0; i < in_bytes; i++)
        in[i] = (unsigned char)(i * 131 + 7);
    memset(out, 0, in_bytes);
    printf("\nthroughput: f32 input [%" PRId64 ", %" PRId64 "] (%.0f MiB), best of %d, GB/s of output\n",
           rows, cols, in_bytes / 1048576.0, reps);
    printf("%-26s %9s %9s %9s %9s %9s %9s %9s\n", "slice", "out MiB", "memcpy", "kernel", "kern/mc",
           "kernel O0", "2 threads", "reference");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sg_plan *plan = plan_of(ctx, cases[c].expr, 2, shape, SG_F32);
        job j = {ctx, plan, NULL, in, out, sg_plan_output_bytes(plan), 1};
        double gb = (double)j.bytes / 1e9, t_ref = 0;
        double t_mc = best_of(reps, run_memcpy, &j);
        if (sg_kernel_compile(ctx, plan, 0, &j.kernel) != SG_OK)
            die(ctx, "compile");
        double t_o0 = best_of(reps, run_kernel, &j);
        sg_kernel_release(j.kernel);
        if (sg_kernel_compile(ctx, plan, SG_DEFAULT_OPT_LEVEL, &j.kernel) != SG_OK)
            die(ctx, "compile");
        double t_k = best_of(reps, run_kernel, &j);
        j.threads = 2;
        double t_k2 = best_of(reps, run_kernel, &j);
        if (c < 3 || reps > 1)
            t_ref = best_of(1, run_reference, &j);
        printf("%-26s %9.1f %9.2f %9.2f %8.2fx %9.2f %9.2f %9.2f\n", cases[c].name,
               (double)j.bytes / 1048576.0, gb / t_mc, gb / t_k, t_k / t_mc, gb / t_o0, gb / t_k2,
               t_ref > 0 ? gb / t_ref : 0.0);
        sg_kernel_release(j.kernel);
        sg_plan_destroy(plan);
    }
    free(in);
    free(out);
}

/* Threads for a small slice: per-call thread creation against one thread. */
static void small_threads(sg_context *ctx)
{
    int64_t shape[2] = {256, 256};
    sg_plan *plan = plan_of(ctx, "[:, ::2]", 2, shape, SG_F32);
    unsigned char *in = calloc(256 * 256, 4), *out = calloc(256 * 256, 4);
    job j = {ctx, plan, NULL, in, out, sg_plan_output_bytes(plan), 1};
    if (!in || !out || sg_kernel_compile(ctx, plan, SG_DEFAULT_OPT_LEVEL, &j.kernel) != SG_OK)
        die(ctx, "compile");
    printf("\nsmall slice [:, ::2] of f32 [256, 256] (128 KiB out), per call:\n");
    for (int threads = 1; threads <= 4; threads *= 2) {
        j.threads = threads;
        double t = 0;
        for (int k = 0; k < 5; k++) {
            double t0 = now();
            for (int i = 0; i < 200; i++)
                run_kernel(&j);
            double tk = (now() - t0) / 200;
            t = k == 0 || tk < t ? tk : t;
        }
        printf("  %d thread%s %8.1f us\n", threads, threads > 1 ? "s" : " ", t * 1e6);
    }
    sg_kernel_release(j.kernel);
    sg_plan_destroy(plan);
    free(in);
    free(out);
}

/* ---- compile latency ---------------------------------------------------------------- */

/* The i-th of many distinct plans: a mix of strided, reversed, contiguous
 * and TensorRT slices over varying shapes. */
static sg_plan *distinct_plan(sg_context *ctx, int i)
{
    static const char *const exprs[] = {"[1:, ::2]", "[::-1, 1:]", "[:, 1:-1]", "[..., ::3]",
                                        "[None, 1:-1:2, ::-1]"};
    int64_t shape[3] = {8 + i, 33 + i % 7, 5};
    if (i % 6 == 5) {
        int64_t start[3] = {-2, -1, 0}, size[3] = {12 + i, 40, 5}, stride[3] = {1, 1, 1};
        sg_spec *spec;
        sg_plan *plan;
        sg_trt_mode mode = (sg_trt_mode)(1 + i % 4);
        if (sg_spec_trt_slice(ctx, 3, start, size, stride, mode, NULL, &spec) != SG_OK ||
            sg_plan_create(ctx, spec, 3, shape, SG_F32, &plan) != SG_OK)
            die(ctx, "TrtSlice");
        sg_spec_destroy(spec);
        return plan;
    }
    return plan_of(ctx, exprs[i % 5], 3, shape, i % 2 ? SG_F32 : SG_I16);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void compile_latency(int n)
{
    sg_context *ctx;
    sg_kernel *k;
    if (sg_context_create(&ctx) != SG_OK)
        die(NULL, "context");
    sg_plan *first = distinct_plan(ctx, 1000);
    double t1 = now();
    if (sg_kernel_compile(ctx, first, 0, &k) != SG_OK)
        die(ctx, "compile");
    double t_first = now() - t1;
    sg_kernel_release(k);

    double *times = malloc(sizeof(double) * (size_t)n);
    printf("\ncompile latency (%d distinct plans per level):\n", n);
    double per_level[4] = {0};
    for (int level = 0; level <= 3; level++) {
        for (int i = 0; i < n; i++) {
            sg_plan *plan = distinct_plan(ctx, i);
            double t = now();
            if (sg_kernel_compile(ctx, plan, level, &k) != SG_OK)
                die(ctx, "compile");
            times[i] = now() - t;
            sg_kernel_release(k);
            sg_plan_destroy(plan);
        }
        qsort(times, (size_t)n, sizeof *times, compare_double);
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += times[i];
        per_level[level] = times[n / 2];
        printf("  -O%d: median %7.3f ms, mean %7.3f ms, max %7.3f ms\n", level, times[n / 2] * 1e3,
               sum / n * 1e3, times[n - 1] * 1e3);
    }
    printf("  first kernel in a new context (-O0, creates the LLJIT): %.3f ms; JIT creation ~ %.3f ms\n",
           t_first * 1e3, (t_first - per_level[0]) * 1e3);

    int hits = 100000;
    if (sg_kernel_compile(ctx, first, 0, &k) != SG_OK) /* cached again if evicted meanwhile */
        die(ctx, "compile");
    sg_kernel_release(k);
    double t = now();
    for (int i = 0; i < hits; i++) {
        if (sg_kernel_compile(ctx, first, 0, &k) != SG_OK)
            die(ctx, "compile");
        sg_kernel_release(k);
    }
    printf("  cache hit (compile + release of a cached kernel): %.0f ns\n", (now() - t) / hits * 1e9);
    sg_kernel_stats st;
    sg_kernel_cache_stats(ctx, &st);
    printf("  cache: %" PRIu64 " compiles, %" PRIu64 " hits\n", st.compiles, st.hits);
    free(times);
    sg_plan_destroy(first);
    sg_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    sg_context *ctx;
    if (sg_context_create(&ctx) != SG_OK)
        die(NULL, "context");
    printf("slicegen-bench %s, LLVM %s\n", SG_VERSION_STRING, sg_llvm_version());
    compile_latency(quick ? 50 : 300);
    throughput(ctx, 4096, quick ? 1024 : 4096, quick ? 3 : 7);
    small_threads(ctx);
    sg_context_destroy(ctx);
    return 0;
}

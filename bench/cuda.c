/* `slicegen bench --device cuda`: the suite's cases as CUDA kernels on
 * device 0. Each kernel is timed with CUDA events on a stream of its own,
 * in turn with a device-to-device copy of the same output bytes (the GPU's
 * memcpy), and its output is checked against the reference interpreter.
 * Exports (bench_internal.h) sg_bench_run_cuda. See docs/bench.md. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX in bench_internal.h */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

enum { MAX_BATCH = 10000 };

/* What is timed: the kernel, or the copy, on the timer's stream. */
typedef struct gpu_op {
    sg_context *ctx;
    const sg_cuda_kernel *kernel;
    uint64_t in, out, bytes;
    sg_cuda_timer *timer;
} gpu_op;

static sg_status call(const gpu_op *o, bool kernel, sg_error *err)
{
    void *stream = sg_cuda_timer_stream(o->timer);
    if (!kernel)
        return sg_cuda_copy_on_device(o->ctx, 0, o->out, o->in, o->bytes, stream, err);
    sg_status st = sg_cuda_kernel_launch(o->ctx, o->kernel, o->in, o->out, stream);
    return st == SG_OK ? SG_OK : sg_fail(err, st, "%s", sg_context_last_error(o->ctx));
}

/* Seconds per call of `batch` calls queued back to back between two events. */
static sg_status time_batch(const gpu_op *o, bool kernel, long batch, double *seconds, sg_error *err)
{
    double s = 0;
    if (sg_cuda_timer_start(o->timer, err) != SG_OK)
        return err->status;
    for (long i = 0; i < batch; i++)
        if (call(o, kernel, err) != SG_OK)
            return err->status;
    if (sg_cuda_timer_stop(o->timer, &s, err) != SG_OK)
        return err->status;
    *seconds = s / (double)batch;
    return SG_OK;
}

/* The copy ([0]) and the kernel ([1]): warmed up, a batch each long enough
 * for the events, then samples taken in turn; their medians. */
static sg_status measure(const timing *t, const gpu_op *o, double seconds[2], int *samples, sg_error *err)
{
    double v[2][SG_BENCH_MAX_SAMPLES];
    long batch[2];
    double longest = 0;
    for (int k = 0; k < 2; k++) {
        double one = 0;
        for (int i = 0; i < t->warmup; i++)
            if (call(o, k, err) != SG_OK)
                return err->status;
        if (time_batch(o, k, 1, &one, err) != SG_OK)
            return err->status;
        double n = ceil(t->sample_s / (one > 1e-7 ? one : 1e-7));
        batch[k] = n < 1 ? 1 : n > MAX_BATCH ? MAX_BATCH : (long)n;
        longest = fmax(longest, one * (double)batch[k]);
    }
    double count = ceil(t->target_s / (2 * fmax(longest, 1e-9)));
    int m = count < t->min_samples ? t->min_samples : count > t->max_samples ? t->max_samples : (int)count;
    for (int s = 0; s < m; s++)
        for (int k = 0; k < 2; k++)
            if (time_batch(o, k, batch[k], &v[k][s], err) != SG_OK)
                return err->status;
    for (int k = 0; k < 2; k++)
        seconds[k] = sg_bench_median(v[k], m);
    *samples = m;
    return SG_OK;
}

static const int64_t *case_shape(const bench *b, const bench_case *c)
{
    if (b->o->quick)
        return c->quick_shape[0] != 0 ? c->quick_shape : c->shape;
    return c->cuda_shape[0] != 0 ? c->cuda_shape : c->shape;
}

static sg_status run_case(bench *b, sg_context *ctx, const bench_case *c, case_result *r, sg_error *err)
{
    const int64_t *shape = case_shape(b, c);
    sg_plan *plan = NULL;
    sg_cuda_kernel *kernel = NULL;
    gpu_op o = {ctx, NULL, 0, 0, 0, NULL};
    unsigned char *in = NULL, *want = NULL, *got = NULL;
    sg_status st;

    if ((st = sg_bench_case_prepare(b, ctx, c, shape, r, &plan, err)) != SG_OK)
        return st;
    /* The copy reads the output's bytes from the input buffer, which may be smaller (TensorRT borders). */
    uint64_t in_room = r->in_bytes > r->bytes ? r->in_bytes : r->bytes;
    in = sg_bench_buffer(in_room, true);
    want = sg_bench_buffer(r->bytes, false);
    got = sg_bench_buffer(r->bytes, false);
    if (in == NULL || want == NULL || got == NULL) {
        st = sg_fail(err, SG_ERR_NOMEM,
                     "failed to benchmark '%s': out of memory for %" PRIu64 " + 2 x %" PRIu64 " bytes",
                     c->name, in_room, r->bytes);
        goto done;
    }
    sg_bench_progress(b, "%s: reference interpreter", c->name);
    if ((st = sg_run_reference(ctx, plan, in, want)) != SG_OK) {
        st = sg_bench_from_context(ctx, st, err, c->name);
        goto done;
    }
    sg_bench_progress(b, "%s: compiling and loading the kernel", c->name);
    if ((st = sg_cuda_kernel_compile_with(ctx, plan, NULL, &kernel)) != SG_OK) {
        st = sg_bench_from_context(ctx, st, err, c->name);
        goto done;
    }
    sg_cuda_kernel_times(kernel, &r->codegen_s, &r->load_s);
    sg_cuda_kernel_geometry(kernel, &r->grid, &r->block);
    o = (gpu_op){ctx, kernel, 0, 0, r->bytes, NULL};
    if ((st = sg_cuda_alloc(ctx, 0, in_room, &o.in, err)) != SG_OK ||
        (st = sg_cuda_alloc(ctx, 0, r->bytes, &o.out, err)) != SG_OK ||
        (st = sg_cuda_copy_to_device(ctx, 0, o.in, in, in_room, err)) != SG_OK ||
        (st = sg_cuda_timer_create(ctx, 0, &o.timer, err)) != SG_OK)
        goto done;
    sg_bench_progress(b, "%s: kernel and device-to-device copy, in turn", c->name);
    double seconds[2] = {0, 0};
    if ((st = measure(b->t, &o, seconds, &r->samples, err)) != SG_OK)
        goto done;
    r->memcpy_s = seconds[0], r->kernel_s = seconds[1];
    r->limit_s = r->memcpy_s * (double)r->traffic / (2.0 * (double)r->bytes);
    /* After the copy: the kernel's output alone. */
    if ((st = call(&o, true, err)) != SG_OK ||
        (st = sg_cuda_synchronize(ctx, 0, sg_cuda_timer_stream(o.timer), err)) != SG_OK ||
        (st = sg_cuda_copy_to_host(ctx, 0, got, o.out, r->bytes, err)) != SG_OK)
        goto done;
    if (sg_bench_digest(got, r->bytes) != sg_bench_digest(want, r->bytes))
        st = sg_fail(err, SG_ERR_INTERNAL,
                     "failed to benchmark '%s': the CUDA kernel's output differs from the reference "
                     "interpreter's",
                     c->name);
done:
    if (st != SG_OK && err->message[0] != '\0' && strncmp(err->message, "failed to benchmark", 19) != 0) {
        sg_error inner = *err;
        *err = (sg_error){0};
        sg_fail(err, inner.status, "failed to benchmark '%s': %s", c->name, inner.message);
    }
    sg_cuda_timer_destroy(o.timer);
    sg_cuda_free(ctx, 0, o.out);
    sg_cuda_free(ctx, 0, o.in);
    sg_cuda_kernel_destroy(kernel);
    sg_plan_destroy(plan);
    free(in);
    free(want);
    free(got);
    return st;
}

static void print_row(bench *b, const case_result *r)
{
    char out[32], k[32], cg[32], ld[32];
    sg_bench_say(b, "%-20s %-4s %10s %10s %7.1f %7.2f %7.2f %10s %10s\n", r->c->name,
                 sg_dtype_name(r->c->dtype), sg_bench_format_bytes(out, r->bytes),
                 sg_bench_format_time(k, r->kernel_s), (double)r->bytes / r->kernel_s / 1e9,
                 r->kernel_s / r->limit_s, r->kernel_s / r->memcpy_s, sg_bench_format_time(cg, r->codegen_s),
                 sg_bench_format_time(ld, r->load_s));
}

sg_status sg_bench_run_cuda(bench *b, sg_context *ctx, sg_error *err)
{
    int ncases;
    sg_status st;
    sg_cuda_device_info info;
    if ((st = sg_cuda_device_describe(0, &info, err)) != SG_OK) /* no driver, no device: SG_ERR_USAGE */
        return st;
    snprintf(b->device_name, sizeof b->device_name, "%s", info.name);
    b->cc_major = info.major;
    b->cc_minor = info.minor;
    b->gpu = info.cpu;
    sg_bench_say(b,
                 "slicegen bench --device cuda%s: slicegen %s, LLVM %s, %s (compute capability %d.%d, %s); "
                 "times are medians of %d or more samples (CUDA events)\n",
                 b->o->quick ? " --quick" : "", SG_VERSION_STRING, sg_llvm_version(), info.name, info.major,
                 info.minor, info.cpu ? info.cpu : "too old for NVPTX", b->t->min_samples);
    const bench_case *suite = sg_bench_cases(&ncases);
    bool header = false;
    for (int i = 0; i < ncases; i++) {
        if (!sg_bench_selected(b, suite[i].name))
            continue;
        if (suite[i].program) {
            sg_bench_say(b, "%s: skipped: GPU kernels of programs are not made yet (docs/programs.md)\n",
                         suite[i].name);
            continue;
        }
        if (!header) {
            sg_bench_say(b, "%-20s %-4s %10s %10s %7s %7s %7s %10s %10s\n", "case", "type", "output",
                         "kernel", "GB/s", "k/limit", "k/copy", "codegen", "PTX load");
            header = true;
        }
        b->shown++;
        case_result *r = &b->results[b->nresults];
        st = run_case(b, ctx, &suite[i], r, err);
        b->nresults++; /* its spec is freed by sg_bench_run either way */
        if (st != SG_OK)
            return st;
        print_row(b, r);
    }
    sg_bench_print_notes(b);
    return SG_OK;
}

/* Compile latency: JIT creation, the median compile of distinct plans at
 * -O0 and at the default level, a cache hit, `slicegen emit` as a whole
 * process, and ahead-of-time output of 1, 2 and 4 times N kernels (how its
 * time grows with the kernels). Exports (bench_internal.h) the names of these figures,
 * how many --case selects, and sg_bench_run_compiles, which measures them. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

void sg_bench_name_compiles(bench *b)
{
    int n = b->t->compile_plans;
    snprintf(b->compile_names[COMPILE_JIT], 96, "compile: JIT creation");
    snprintf(b->compile_names[COMPILE_O0], 96, "compile: -O0 kernel (median of %d plans)", n);
    snprintf(b->compile_names[COMPILE_DEFAULT_LEVEL], 96,
             "compile: default level kernel, -O%d (median of %d plans)", SG_DEFAULT_OPT_LEVEL, n);
    snprintf(b->compile_names[COMPILE_CACHE_HIT], 96, "compile: cache hit");
    snprintf(b->compile_names[COMPILE_EMIT], 96, "compile: slicegen emit process");
    for (int i = 0; COMPILE_AOT + i <= COMPILE_AOT_LAST; i++)
        snprintf(b->compile_names[COMPILE_AOT + i], 96, "compile: aot of %d layers", b->t->aot_layers << i);
}

int sg_bench_compiles_selected(const bench *b)
{
    int n = 0;
    for (int i = 0; i < NCOMPILE; i++)
        n += sg_bench_selected(b, b->compile_names[i]);
    return n;
}

/* Records a figure and says its table line. */
static void add_compile(bench *b, int which, double seconds, int samples)
{
    compile_result *r = &b->compiles[b->ncompiles++];
    *r = (compile_result){b->compile_names[which], seconds, samples};
    char s[32];
    sg_bench_say(b, "%-58s %10s\n", r->name, sg_bench_format_time(s, seconds));
}

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
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = level;
    sg_kernel_cache_stats(ctx, &before);
    double t0 = sg_bench_now();
    sg_status st = sg_kernel_compile_with(ctx, plan, &o, &k);
    *seconds = sg_bench_now() - t0;
    if (st != SG_OK)
        return sg_fail(err, st, "failed to compile a kernel: %s", sg_context_last_error(ctx));
    sg_kernel_destroy(k);
    sg_kernel_cache_stats(ctx, &after);
    *missed = after.compiles == before.compiles + 1;
    return SG_OK;
}

/* Compiles the i-th distinct plan at -O0, timing it; the plan is
 * destroyed, its kernel stays in the cache. */
static sg_status compile_distinct(sg_context *ctx, int i, double *seconds, sg_error *err)
{
    sg_plan *plan = NULL;
    bool missed;
    sg_status st = distinct_plan(ctx, i, &plan, err);
    if (st == SG_OK)
        st = timed_compile(ctx, plan, 0, seconds, &missed, err);
    sg_plan_destroy(plan);
    return st;
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
        *seconds = sg_bench_median(v, n);
    free(v);
    return st;
}

/* LLVM's process-wide setup, paid once, before anything is timed: one
 * compile in a context of its own. */
static sg_status warm_up(sg_error *err)
{
    sg_context *ctx;
    double s;
    sg_status st = sg_bench_new_context(&ctx, err);
    if (st == SG_OK)
        st = compile_distinct(ctx, 100000, &s, err);
    sg_context_destroy(ctx);
    return st;
}

/* A context's first compile creates its JIT: the first of four compiles
 * of similar plans in a fresh context, less the median of the other three;
 * the median over several contexts, 0 if the difference is lost in the
 * noise. */
static sg_status time_jit_creation(bench *b, sg_error *err)
{
    sg_bench_progress(b, "compile: JIT creation");
    double v[16];
    int n = b->t->contexts < 16 ? b->t->contexts : 16;
    sg_status st = SG_OK;
    for (int i = 0; i < n && st == SG_OK; i++) {
        double c[4] = {0};
        sg_context *ctx;
        if ((st = sg_bench_new_context(&ctx, err)) != SG_OK)
            break;
        for (int k = 0; k < 4 && st == SG_OK; k++)
            st = compile_distinct(ctx, 200000 + 4 * i + k, &c[k], err);
        sg_context_destroy(ctx);
        v[i] = c[0] - sg_bench_median(c + 1, 3);
    }
    if (st != SG_OK)
        return st;
    double s = sg_bench_median(v, n);
    add_compile(b, COMPILE_JIT, s > 0 ? s : 0, n);
    return SG_OK;
}

/* The median compiles of distinct plans at -O0 and at the default level,
 * in ctx, whose JIT exists. */
static sg_status time_compile_levels(bench *b, sg_context *ctx, sg_error *err)
{
    int next = 0;
    for (int which = COMPILE_O0; which <= COMPILE_DEFAULT_LEVEL; which++) {
        if (!sg_bench_selected(b, b->compile_names[which]))
            continue;
        sg_bench_progress(b, "%s", b->compile_names[which]);
        int level = which == COMPILE_O0 ? 0 : SG_DEFAULT_OPT_LEVEL;
        double s = 0;
        sg_status st = compile_median(ctx, level, b->t->compile_plans, &next, &s, err);
        if (st != SG_OK)
            return st;
        add_compile(b, which, s, b->t->compile_plans);
    }
    return SG_OK;
}

/* The mean time of compiling `plan`, already compiled at -O0 in ctx. */
static sg_status time_cache_hit(bench *b, sg_context *ctx, const sg_plan *plan, sg_error *err)
{
    sg_bench_progress(b, "compile: cache hit");
    int hits = b->t->hits;
    sg_status st = SG_OK;
    sg_kernel *k;
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = 0;
    double t0 = sg_bench_now();
    for (int i = 0; i < hits && st == SG_OK; i++) {
        if ((st = sg_kernel_compile_with(ctx, plan, &o, &k)) != SG_OK)
            st = sg_fail(err, st, "failed to compile a kernel: %s", sg_context_last_error(ctx));
        else
            sg_kernel_destroy(k);
    }
    double s = (sg_bench_now() - t0) / hits;
    if (st != SG_OK)
        return st;
    add_compile(b, COMPILE_CACHE_HIT, s, hits);
    return SG_OK;
}

/* `slicegen emit` of one kernel as a whole process: the median of up to 16
 * runs. */
static sg_status time_emit(bench *b, sg_error *err)
{
    char out[PATH_MAX];
    char *program = (char *)(b->o->program ? b->o->program : "/proc/self/exe");
    sg_bench_progress(b, "compile: slicegen emit process");
    sg_status st = sg_bench_make_tmpdir(b, err);
    if (st != SG_OK)
        return st;
    /* clang-format off */
    char *argv[] = {program, "emit", "[1:, ::2]", "--shape", "64,64", "--dtype", "f32", "-o",
                    (char *)sg_bench_tmp_path(b, out, "kernel.o"), NULL};
    /* clang-format on */
    double v[16];
    int n = b->t->processes < 16 ? b->t->processes : 16;
    for (int i = 0; i < n; i++) {
        double t0 = sg_bench_now();
        st = sg_bench_run_program(b, argv, "emit.err", "failed to time 'slicegen emit': it", err);
        v[i] = sg_bench_now() - t0;
        if (st != SG_OK)
            return st;
    }
    add_compile(b, COMPILE_EMIT, sg_bench_median(v, n), b->t->processes);
    return SG_OK;
}

/* Model layer k of the aot figures: row k of f32 [layers, 64], every
 * (1 + k % 3)-th column, as `slicegen aot` compiles the layers of a model:
 * every kernel its own (each row is another loop nest). */
static sg_status aot_layer(sg_context *ctx, int k, int layers, sg_plan **plan, sg_error *err)
{
    char expr[64];
    int64_t shape[2] = {layers, 64};
    sg_spec *spec = NULL;
    snprintf(expr, sizeof expr, "[%d, ::%d]", k, 1 + k % 3);
    sg_status st = sg_spec_numpy(ctx, expr, &spec);
    if (st == SG_OK)
        st = sg_plan_create(ctx, spec, 2, shape, SG_F32, plan);
    sg_spec_destroy(spec);
    return st == SG_OK ? SG_OK : sg_bench_from_context(ctx, st, err, "compile: aot");
}

/* sg_aot_write_with of `layers` kernels with their table and header, as
 * `slicegen aot` writes a model's (the default target and CPU, the
 * default level), into the temporary folder; the plans are made before
 * the clock starts. */
static sg_status time_aot(bench *b, int which, int layers, double *seconds, sg_error *err)
{
    char object[PATH_MAX], header[PATH_MAX];
    sg_context *ctx = NULL;
    sg_plan **plans = calloc((size_t)layers, sizeof *plans);
    sg_aot_kernel *kernels = calloc((size_t)layers, sizeof *kernels);
    enum { NAME = 24 }; /* "layer_" and any int */
    char *names = malloc((size_t)layers * NAME);
    sg_status st = plans && kernels && names ? sg_bench_make_tmpdir(b, err)
                                             : sg_fail(err, SG_ERR_NOMEM, "failed to time aot: out of memory");
    sg_bench_progress(b, "%s", b->compile_names[which]);
    if (st == SG_OK)
        st = sg_bench_new_context(&ctx, err);
    for (int k = 0; k < layers && st == SG_OK; k++) {
        snprintf(names + NAME * k, NAME, "layer_%d", k);
        st = aot_layer(ctx, k, layers, &plans[k], err);
        kernels[k] = (sg_aot_kernel){.plan = plans[k], .name = names + NAME * k, .layer = names + NAME * k,
                                     .layer_id = k};
    }
    if (st == SG_OK) {
        sg_compile_options o;
        sg_compile_options_init(&o);
        o.prefix = "bench";
        double t0 = sg_bench_now();
        st = sg_aot_write_with(ctx, kernels, (size_t)layers, &o, sg_bench_tmp_path(b, object, "aot.o"),
                               sg_bench_tmp_path(b, header, "aot.h"));
        *seconds = sg_bench_now() - t0;
        if (st != SG_OK)
            sg_bench_from_context(ctx, st, err, b->compile_names[which]);
        remove(object);
        remove(header);
    }
    for (int k = 0; k < layers && plans; k++)
        sg_plan_destroy(plans[k]);
    sg_context_destroy(ctx);
    free(plans);
    free(kernels);
    free(names);
    return st;
}

/* The aot figures selected, and when all three are: each one's time per
 * layer over the first's (1.00 where time grows as the layers). An output
 * of one kernel first pays what the first output pays once (every target
 * of LLVM initialised). */
static sg_status time_aot_scaling(bench *b, sg_error *err)
{
    double per_layer[3] = {0};
    int measured = 0;
    bool any = false;
    for (int which = COMPILE_AOT; which <= COMPILE_AOT_LAST; which++)
        any = any || sg_bench_selected(b, b->compile_names[which]);
    sg_status st = any ? time_aot(b, COMPILE_AOT, 1, &per_layer[0], err) : SG_OK;
    for (int i = 0; st == SG_OK && COMPILE_AOT + i <= COMPILE_AOT_LAST; i++) {
        int which = COMPILE_AOT + i, layers = b->t->aot_layers << i;
        double s = 0;
        if (!sg_bench_selected(b, b->compile_names[which]))
            continue;
        if ((st = time_aot(b, which, layers, &s, err)) != SG_OK)
            break;
        add_compile(b, which, s, 1);
        per_layer[measured++] = s / layers;
    }
    if (st == SG_OK && measured == 3) {
        char s[32];
        sg_bench_say(b, "aot: %s per layer at %d layers; time per layer x%.2f at %d, x%.2f at %d\n",
                     sg_bench_format_time(s, per_layer[0]), b->t->aot_layers, per_layer[1] / per_layer[0],
                     2 * b->t->aot_layers, per_layer[2] / per_layer[0], 4 * b->t->aot_layers);
    }
    return st;
}

sg_status sg_bench_run_compiles(bench *b, sg_error *err)
{
    sg_context *ctx = NULL;
    sg_plan *plan = NULL;
    double s;
    bool missed;
    sg_status st;
    if ((st = warm_up(err)) != SG_OK)
        return st;
    if (sg_bench_selected(b, b->compile_names[COMPILE_JIT]) && (st = time_jit_creation(b, err)) != SG_OK)
        return st;
    /* One context for the rest; its JIT exists before anything is timed,
     * and `plan` stays compiled in it for the cache hit. */
    if ((st = sg_bench_new_context(&ctx, err)) != SG_OK ||
        (st = distinct_plan(ctx, 300000, &plan, err)) != SG_OK ||
        (st = timed_compile(ctx, plan, 0, &s, &missed, err)) != SG_OK ||
        (st = time_compile_levels(b, ctx, err)) != SG_OK)
        goto done;
    if (sg_bench_selected(b, b->compile_names[COMPILE_CACHE_HIT]) &&
        (st = time_cache_hit(b, ctx, plan, err)) != SG_OK)
        goto done;
    if (sg_bench_selected(b, b->compile_names[COMPILE_EMIT]) && (st = time_emit(b, err)) != SG_OK)
        goto done;
    st = time_aot_scaling(b, err);
done:
    sg_plan_destroy(plan);
    sg_context_destroy(ctx);
    return st;
}

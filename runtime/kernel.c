/* Generated kernels: the public API of the "generated kernels" section of
 * slicegen.h over the code generator, and the per-context kernel cache.
 *
 * The cache (cache.c) is keyed by (nest key, opt level) and guarded by
 * ctx->lock: a miss inserts a COMPILING entry and compiles outside the
 * lock; callers asking for the same kernel meanwhile wait, so each kernel
 * compiles once. Released kernels stay cached, idle, until more than
 * idle_max are idle (runtime.h); a loaded kernel costs about 5-10 KB.
 *
 * sg_kernel_run splits the outer range over the context's thread pool
 * (pool.c). */
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "runtime.h"

enum { MAX_THREADS = 256 };

_Static_assert(sizeof(sg_args) == SG_ARG_COUNT * sizeof(int64_t), "sg_args holds the prologue's slots");

struct sg_kernel {
    sg_cache_entry entry; /* first: the cache's entry is the kernel */
    sg_context *ctx;
    int opt_level;
    int stores; /* SG_STORES_CACHED or SG_STORES_STREAMING: what AUTO chose (AUTO: per call, symbolic) */
    sg_kernel_fn fn;
    int64_t outer_extent;
    /* a symbolic kernel: its functions, and its own plan for the messages
     * of refused calls (NULL for a static kernel) */
    sg_prepare_fn prepare;
    sg_kernel_args_fn fn_args;
    sg_plan *plan;
    bool reads; /* the nest reads the input */
    sg_jit *jit;
    void *code; /* sg_jit resource */
};

typedef struct sg_kernel_cache {
    sg_jit *jit;
    sg_cache cache;
} sg_kernel_cache;

static sg_status get_cache(sg_context *ctx, sg_kernel_cache **out, sg_error *err)
{
    sg_kernel_cache *c = ctx->kernels;
    if (c == NULL) {
        if ((c = calloc(1, sizeof *c)) == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to create kernel cache: out of memory");
        if (sg_cache_init(&c->cache, SG_KERNEL_IDLE_MAX, err) != SG_OK) {
            free(c);
            return err->status;
        }
        if (sg_jit_create(&c->jit, err) != SG_OK) {
            sg_cache_fini(&c->cache, NULL);
            free(c);
            return err->status;
        }
        ctx->kernels = c;
    }
    *out = c;
    return SG_OK;
}

static void free_kernel(sg_cache_entry *entry)
{
    sg_kernel *k = (sg_kernel *)entry;
    if (k->code)
        sg_jit_free(k->jit, k->code);
    sg_plan_free(k->plan);
    free(k->entry.key);
    free(k);
}

static void free_victims(sg_cache_entry *victims)
{
    for (sg_cache_entry *next; victims; victims = next) {
        next = victims->next;
        free_kernel(victims);
    }
}

/* ---- compiling ---------------------------------------------------------------------------- */

/* Whether any byte of the input is read: not when a segmented loop fills
 * every iteration. */
static bool nest_reads(const sg_plan *p)
{
    if (p->out_count == 0)
        return false;
    for (size_t i = 0; i < p->nloops; i++) {
        bool copies = p->loops[i].nseg == 0;
        for (size_t k = p->loops[i].seg0; k < p->loops[i].seg0 + p->loops[i].nseg; k++)
            copies = copies || !p->segs[k].fill;
        if (!copies)
            return false;
    }
    return true;
}

/* What a compile needs besides the cache: the kernel's plan and settings. */
typedef struct kernel_job {
    sg_context *ctx;
    sg_jit *jit;
    const sg_plan *plan;
    int opt_level, stores;
    int64_t stream_threshold; /* a symbolic kernel's under AUTO: this machine's (0: none measured) */
} kernel_job;

static void init_kernel(sg_cache_entry *entry, const void *arg)
{
    const kernel_job *job = arg;
    sg_kernel *k = (sg_kernel *)entry;
    k->ctx = job->ctx;
    k->opt_level = job->opt_level;
    k->stores = job->stores;
    k->outer_extent = sg_nest_outer_extent(job->plan); /* -1 for a symbolic plan */
    k->reads = nest_reads(job->plan);
    k->jit = job->jit;
}

/* Compiles and links the kernel; a symbolic one with its prologue and its
 * own plan (for the messages of refused calls). */
static sg_status build_kernel(sg_cache_entry *entry, const void *arg, sg_error *err)
{
    const kernel_job *job = arg;
    const sg_plan *plan = job->plan;
    sg_kernel *k = (sg_kernel *)entry;
    char base[SG_SYMBOL_MAX], symbol[SG_SYMBOL_MAX + 32];
    sg_nest_key key = {.hash = entry->hash};
    sg_codegen_symbol(plan, &key, base);
    /* Unique in the JIT even if two keys ever share a hash. */
    snprintf(symbol, sizeof symbol, "%s_O%d_%llu", base, k->opt_level, (unsigned long long)entry->serial);
    if (sg_jit_compile_stores(k->jit, plan, k->opt_level, k->stores, job->stream_threshold, symbol, &k->fn,
                              &k->code, err) != SG_OK ||
        plan->sym == NULL)
        return err->status;
    char *name = sg_prepare_symbol(symbol);
    void *prepare = NULL;
    if (name == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel: out of memory");
    sg_jit_lookup(k->jit, name, &prepare, err);
    free(name);
    k->prepare = (sg_prepare_fn)(uintptr_t)prepare;
    k->fn_args = (sg_kernel_args_fn)(uintptr_t)k->fn;
    k->fn = NULL;
    if (err->status == SG_OK)
        sg_plan_build(plan->sym->spec, plan->in_rank, plan->in_shape, plan->dtype, &k->plan, err);
    return err->status;
}

static const sg_cache_kind kernel_kind = {sizeof(sg_kernel), "kernel", init_kernel, build_kernel,
                                          free_kernel};

static sg_status compile(sg_context *ctx, const sg_plan *plan, int opt_level, sg_stores stores,
                         sg_kernel **out, sg_error *err)
{
    sg_nest_key key = {0};
    sg_kernel_cache *c = NULL;
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernel: optimization level %d (0..3)",
                       opt_level);
    if (stores != SG_STORES_AUTO && stores != SG_STORES_CACHED && stores != SG_STORES_STREAMING)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to compile kernel: stores %d (auto 0, cached 1, streaming 2)", (int)stores);
    pthread_mutex_lock(&ctx->lock);
    sg_status have = get_cache(ctx, &c, err);
    pthread_mutex_unlock(&ctx->lock);
    if (have != SG_OK || sg_nest_key_make(plan, &key, err) != SG_OK)
        return err->status;
    /* AUTO resolved here, so that it shares the kernel of what it chose; a
     * symbolic kernel chooses per call, its calls streaming above the
     * threshold this machine was measured to have, as the static kernel
     * of the call's shape would; outputs above it stream, and rows of
     * short pieces where it was measured to gain by it. */
    int chosen = stores;
    int64_t sym_threshold =
        stores == SG_STORES_AUTO && plan->sym ? sg_host_measured_stream_threshold(NULL) : 0;
    if (stores == SG_STORES_AUTO && !plan->sym) {
        int64_t threshold = plan->out_bytes > (uint64_t)SG_STREAM_PROBE_MIN
                                ? sg_host_measured_stream_threshold(NULL)
                                : SG_STREAM_PROBE_MIN;
        sg_auto_stores a = sg_jit_auto_stores(c->jit, plan, threshold);
        bool streams = a == SG_AUTO_STREAMS || (a == SG_AUTO_SHORT_ROWS && sg_host_short_rows_stream(NULL));
        chosen = streams ? SG_STORES_STREAMING : SG_STORES_CACHED;
    }
    const uint64_t variant[2] = {(uint64_t)opt_level, (uint64_t)chosen};
    kernel_job job = {ctx, c->jit, plan, opt_level, chosen, sym_threshold};
    sg_cache_entry *entry = NULL;
    if (sg_cache_get(&c->cache, &ctx->lock, &kernel_kind, &key, variant, &job, &entry, err) == SG_OK)
        *out = (sg_kernel *)entry;
    return err->status;
}

/* ---- the public API ------------------------------------------------------------------------- */

sg_status sg_kernel_compile_with(sg_context *ctx, const sg_plan *plan, const sg_compile_options *options,
                                 sg_kernel **kernel)
{
    sg_error err = {0};
    sg_compile_options o;
    if (sg_compile_options_read(options, SG_READ_JIT, "compile kernel", &o, &err) == SG_OK)
        compile(ctx, plan, o.opt_level, o.stores, kernel, &err);
    return sg_context_report(ctx, &err);
}

sg_status sg_kernel_compile(sg_context *ctx, const sg_plan *plan, int opt_level, sg_kernel **kernel)
{
    return sg_kernel_compile_stores(ctx, plan, opt_level, SG_STORES_AUTO, kernel);
}

sg_status sg_kernel_compile_stores(sg_context *ctx, const sg_plan *plan, int opt_level, sg_stores stores,
                                   sg_kernel **kernel)
{
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = opt_level;
    o.stores = stores;
    return sg_kernel_compile_with(ctx, plan, &o, kernel);
}

void sg_kernel_destroy(sg_kernel *kernel)
{
    if (kernel == NULL)
        return;
    sg_context *ctx = kernel->ctx;
    pthread_mutex_lock(&ctx->lock);
    sg_cache_entry *victims = sg_cache_release(&ctx->kernels->cache, &kernel->entry);
    pthread_mutex_unlock(&ctx->lock);
    free_victims(victims);
}

void sg_kernel_release(sg_kernel *kernel)
{
    sg_kernel_destroy(kernel);
}

sg_kernel_fn sg_kernel_function(const sg_kernel *kernel)
{
    return kernel->fn;
}

sg_prepare_fn sg_kernel_prepare_function(const sg_kernel *kernel)
{
    return kernel->prepare;
}

sg_kernel_args_fn sg_kernel_args_function(const sg_kernel *kernel)
{
    return kernel->fn_args;
}

size_t sg_kernel_value_count(const sg_kernel *kernel)
{
    return kernel->plan ? kernel->plan->sym->nvalues : 0;
}

int64_t sg_kernel_outer_extent(const sg_kernel *kernel)
{
    return kernel->outer_extent;
}

/* One threaded run: part i runs [i * extent / parts, (i + 1) * extent / parts)
 * of fn, or of fn_args with args. */
typedef struct range_job {
    sg_kernel_fn fn;
    sg_kernel_args_fn fn_args;
    const sg_args *args;
    const void *in;
    void *out;
    int64_t extent, parts;
} range_job;

/* i * extent / n without overflow (n <= MAX_THREADS). */
static int64_t split(int64_t extent, int64_t n, int64_t i)
{
    return i * (extent / n) + i * (extent % n) / n;
}

static void run_part(void *arg, int part)
{
    const range_job *job = arg;
    int64_t begin = split(job->extent, job->parts, part), end = split(job->extent, job->parts, part + 1);
    if (job->fn_args)
        job->fn_args(job->in, job->out, job->args, begin, end);
    else
        job->fn(job->in, job->out, begin, end);
}

static sg_pool *context_pool(sg_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    if (ctx->pool == NULL)
        ctx->pool = sg_pool_create();
    sg_pool *pool = ctx->pool;
    pthread_mutex_unlock(&ctx->lock);
    return pool;
}

/* Runs job (fn or fn_args, in, out, extent set) over `threads` threads. */
static sg_status run_job(sg_context *ctx, range_job *job, bool reads, int threads)
{
    sg_error err = {0};
    if (threads < 1) {
        sg_fail(&err, SG_ERR_USAGE, "failed to run kernel: %d threads (at least 1)", threads);
        return sg_context_report(ctx, &err);
    }
    if ((job->in == NULL && reads) || (job->out == NULL && job->extent > 0)) {
        sg_fail(&err, SG_ERR_USAGE, "failed to run kernel: the %s buffer is NULL",
                job->in == NULL && reads ? "input" : "output");
        return sg_context_report(ctx, &err);
    }
    int64_t n = threads < MAX_THREADS ? threads : MAX_THREADS;
    n = n < job->extent ? n : job->extent;
    sg_pool *pool = n > 1 ? context_pool(ctx) : NULL;
    job->parts = pool ? n : 1; /* one thread, or no memory for a pool */
    if (pool == NULL && job->extent > 0)
        run_part(job, 0);
    else if (pool != NULL)
        sg_pool_run(pool, (int)n, run_part, job);
    return SG_OK;
}

static sg_status wrong_kind(sg_context *ctx, const sg_kernel *kernel)
{
    sg_error err = {0};
    sg_fail(&err, SG_ERR_USAGE,
            kernel->plan
                ? "failed to run kernel: it takes runtime values (%zu) and the input's shape: give them"
                : "failed to run kernel: it takes no runtime values (%zu)",
            sg_kernel_value_count(kernel));
    return sg_context_report(ctx, &err);
}

sg_status sg_kernel_run(sg_context *ctx, const sg_kernel *kernel, const void *in, void *out, int threads)
{
    if (kernel->plan)
        return wrong_kind(ctx, kernel);
    range_job job = {.fn = kernel->fn, .in = in, .out = out, .extent = kernel->outer_extent};
    return run_job(ctx, &job, kernel->reads, threads);
}

sg_status sg_kernel_prepare(sg_context *ctx, const sg_kernel *kernel, const int64_t *in_shape,
                            const int64_t *values, sg_args *args)
{
    if (kernel->plan == NULL)
        return wrong_kind(ctx, kernel);
    if (kernel->prepare(args, in_shape, values) == 0)
        return SG_OK;
    sg_error err = {0};
    int code;
    sg_args unused;
    if (sg_plan_prepare(kernel->plan, in_shape, values, (int64_t *)&unused, &code, &err) == SG_OK)
        sg_fail(&err, SG_ERR_INTERNAL,
                "failed to run kernel: its prologue refused a call the planner accepts");
    return sg_context_report(ctx, &err);
}

sg_status sg_kernel_run_args(sg_context *ctx, const sg_kernel *kernel, const void *in, void *out,
                             const sg_args *args, int threads)
{
    if (kernel->plan == NULL)
        return wrong_kind(ctx, kernel);
    range_job job = {
        .fn_args = kernel->fn_args, .args = args, .in = in, .out = out, .extent = args->outer_extent};
    return run_job(ctx, &job, args->input_bytes > 0 && args->output_bytes > 0, threads);
}

sg_status sg_kernel_run_values(sg_context *ctx, const sg_kernel *kernel, const void *in,
                               const int64_t *in_shape, const int64_t *values, void *out, int threads)
{
    sg_args args;
    sg_status st = sg_kernel_prepare(ctx, kernel, in_shape, values, &args);
    return st != SG_OK ? st : sg_kernel_run_args(ctx, kernel, in, out, &args, threads);
}

sg_status sg_kernel_ir_with(sg_context *ctx, const sg_plan *plan, const sg_compile_options *options,
                            char **text)
{
    sg_error err = {0};
    sg_compile_options o;
    if (sg_compile_options_read(options, SG_READ_IR, "print kernel IR", &o, &err) == SG_OK)
        sg_codegen_ir_text(plan, o.opt_level, o.stores, text, &err);
    return sg_context_report(ctx, &err);
}

sg_status sg_kernel_ir(sg_context *ctx, const sg_plan *plan, int opt_level, char **text)
{
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = opt_level;
    return sg_kernel_ir_with(ctx, plan, &o, text);
}

void sg_llvm_exit_on_fatal_error(void)
{
    sg_codegen_exit_on_fatal_error();
}

const char *sg_llvm_version(void)
{
    return sg_codegen_llvm_version();
}

/* ---- internal ---------------------------------------------------------------------------- */

void sg_kernel_cache_stats(sg_context *ctx, sg_kernel_stats *stats)
{
    pthread_mutex_lock(&ctx->lock);
    const sg_kernel_cache *c = ctx->kernels;
    *stats = c ? (sg_kernel_stats){c->cache.compiles, c->cache.hits, c->cache.count, c->cache.nidle}
               : (sg_kernel_stats){0};
    pthread_mutex_unlock(&ctx->lock);
}

void sg_kernel_cache_set_idle_max(sg_context *ctx, size_t idle_max)
{
    sg_error err = {0};
    sg_kernel_cache *c = NULL;
    pthread_mutex_lock(&ctx->lock);
    sg_cache_entry *victims =
        get_cache(ctx, &c, &err) == SG_OK ? sg_cache_set_idle_max(&c->cache, idle_max) : NULL;
    pthread_mutex_unlock(&ctx->lock);
    free_victims(victims);
}

void sg_kernel_cache_destroy(sg_context *ctx)
{
    sg_kernel_cache *c = ctx->kernels;
    if (c == NULL)
        return;
    sg_cache_fini(&c->cache, free_kernel);
    sg_jit_destroy(c->jit);
    free(c);
    ctx->kernels = NULL;
}

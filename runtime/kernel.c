/* Generated kernels: the public API of the "generated kernels" section of
 * slicegen.h over the code generator, and the per-context kernel cache.
 *
 * The cache is a hash table of entries keyed by (nest key, opt level),
 * guarded by ctx->lock. A miss inserts a COMPILING entry and compiles
 * outside the lock; callers asking for the same kernel meanwhile wait on
 * `done`, so each kernel compiles once. Released kernels stay in the table,
 * on the idle list, until more than idle_max are idle (runtime.h); a
 * loaded kernel costs about 5-10 KB.
 *
 * sg_kernel_run splits the outer range over the context's thread pool
 * (pool.c). */
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "runtime.h"

enum { MAX_THREADS = 256 };

typedef enum state { COMPILING, READY, FAILED } state;

struct sg_kernel {
    sg_context *ctx;
    sg_kernel *next;                  /* hash chain */
    sg_kernel *idle_prev, *idle_next; /* idle list, while refs == 0 */
    sg_nest_key key;
    int opt_level;
    int refs;
    state state;
    sg_error error; /* FAILED: why, for the waiters */
    sg_kernel_fn fn;
    int64_t outer_extent;
    bool reads; /* the nest reads the input */
    void *code; /* sg_jit resource */
};

typedef struct sg_kernel_cache {
    sg_jit *jit;
    pthread_cond_t done; /* some compile finished */
    sg_kernel **buckets;
    size_t nbuckets, count;
    sg_kernel *idle_first, *idle_last; /* least recently released first */
    size_t nidle, idle_max;
    uint64_t compiles, hits, serial;
} sg_kernel_cache;

/* ---- the table (ctx->lock held) --------------------------------------------------- */

static sg_status get_cache(sg_context *ctx, sg_kernel_cache **out, sg_error *err)
{
    sg_kernel_cache *c = ctx->kernels;
    if (c == NULL) {
        c = calloc(1, sizeof *c);
        if (c == NULL || (c->buckets = calloc(64, sizeof *c->buckets)) == NULL) {
            free(c);
            return sg_fail(err, SG_ERR_NOMEM, "failed to create kernel cache: out of memory");
        }
        if (sg_jit_create(&c->jit, err) != SG_OK) {
            free(c->buckets);
            free(c);
            return err->status;
        }
        pthread_cond_init(&c->done, NULL);
        c->nbuckets = 64;
        c->idle_max = SG_KERNEL_IDLE_MAX;
        ctx->kernels = c;
    }
    *out = c;
    return SG_OK;
}

static sg_kernel **slot(sg_kernel_cache *c, const sg_nest_key *key, int opt_level)
{
    sg_kernel **at = &c->buckets[(key->hash ^ (uint64_t)opt_level) & (c->nbuckets - 1)];
    for (; *at; at = &(*at)->next) {
        const sg_kernel *k = *at;
        if (k->opt_level == opt_level && k->key.hash == key->hash && k->key.len == key->len &&
            memcmp(k->key.bytes, key->bytes, key->len) == 0)
            break;
    }
    return at;
}

static void grow(sg_kernel_cache *c)
{
    size_t n = c->nbuckets * 2;
    sg_kernel **buckets = calloc(n, sizeof *buckets);
    if (buckets == NULL)
        return; /* longer chains, still correct */
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (sg_kernel *k = c->buckets[i], *next; k; k = next) {
            next = k->next;
            sg_kernel **head = &buckets[(k->key.hash ^ (uint64_t)k->opt_level) & (n - 1)];
            k->next = *head;
            *head = k;
        }
    }
    free(c->buckets);
    c->buckets = buckets;
    c->nbuckets = n;
}

static void unlink_entry(sg_kernel_cache *c, sg_kernel *k)
{
    sg_kernel **at = slot(c, &k->key, k->opt_level);
    if (*at == k) {
        *at = k->next;
        c->count--;
    }
}

static void idle_remove(sg_kernel_cache *c, sg_kernel *k)
{
    *(k->idle_prev ? &k->idle_prev->idle_next : &c->idle_first) = k->idle_next;
    *(k->idle_next ? &k->idle_next->idle_prev : &c->idle_last) = k->idle_prev;
    k->idle_prev = k->idle_next = NULL;
    c->nidle--;
}

static void idle_append(sg_kernel_cache *c, sg_kernel *k)
{
    k->idle_prev = c->idle_last;
    k->idle_next = NULL;
    *(c->idle_last ? &c->idle_last->idle_next : &c->idle_first) = k;
    c->idle_last = k;
    c->nidle++;
}

/* Takes the idle kernels over the limit out of the table; the caller frees
 * them (sg_jit_free) after dropping the lock. */
static sg_kernel *evict(sg_kernel_cache *c)
{
    sg_kernel *victims = NULL;
    while (c->nidle > c->idle_max) {
        sg_kernel *k = c->idle_first;
        idle_remove(c, k);
        unlink_entry(c, k);
        k->next = victims;
        victims = k;
    }
    return victims;
}

static void free_kernel(sg_jit *jit, sg_kernel *k)
{
    sg_jit_free(jit, k->code);
    sg_nest_key_free(&k->key);
    free(k);
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

/* Compiles the COMPILING entry k outside the lock and publishes it. */
static sg_status compile_entry(sg_context *ctx, sg_kernel_cache *c, sg_kernel *k, const sg_plan *plan,
                               uint64_t serial, sg_error *err)
{
    char base[SG_SYMBOL_MAX], symbol[SG_SYMBOL_MAX + 32];
    sg_kernel_fn fn = NULL;
    void *code = NULL;
    sg_codegen_symbol(plan, &k->key, base);
    /* Unique in the JIT even if two keys ever share a hash. */
    snprintf(symbol, sizeof symbol, "%s_O%d_%llu", base, k->opt_level, (unsigned long long)serial);
    sg_status status = sg_jit_compile(c->jit, plan, k->opt_level, symbol, &fn, &code, err);

    pthread_mutex_lock(&ctx->lock);
    if (status == SG_OK) {
        k->fn = fn;
        k->code = code;
        k->state = READY;
    } else {
        k->state = FAILED;
        k->error = *err;
        unlink_entry(c, k);
        k->refs--;
    }
    pthread_cond_broadcast(&c->done);
    bool orphan = status != SG_OK && k->refs == 0;
    pthread_mutex_unlock(&ctx->lock);
    if (orphan)
        free_kernel(c->jit, k);
    return status;
}

static sg_status compile(sg_context *ctx, const sg_plan *plan, int opt_level, sg_kernel **out, sg_error *err)
{
    sg_nest_key key = {0};
    sg_kernel_cache *c;
    sg_kernel *k = NULL;
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernel: optimization level %d (0..3)",
                       opt_level);
    if (sg_nest_key_make(plan, &key, err) != SG_OK)
        return err->status;

    pthread_mutex_lock(&ctx->lock);
    if (get_cache(ctx, &c, err) != SG_OK)
        goto unlock;
    sg_kernel **at = slot(c, &key, opt_level);
    if ((k = *at) != NULL) { /* cached, or being compiled by another thread */
        if (k->refs++ == 0 && k->state == READY)
            idle_remove(c, k);
        while (k->state == COMPILING)
            pthread_cond_wait(&c->done, &ctx->lock);
        if (k->state == READY) {
            c->hits++;
            *out = k;
        } else {
            sg_fail(err, k->error.status, "%s", k->error.message);
            if (--k->refs == 0) /* the compiling thread has unlinked it */
                free_kernel(NULL, k);
        }
        goto unlock;
    }
    k = calloc(1, sizeof *k);
    if (k == NULL) {
        sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel: out of memory");
        goto unlock;
    }
    *k = (sg_kernel){.ctx = ctx,
                     .key = key,
                     .opt_level = opt_level,
                     .refs = 1,
                     .state = COMPILING,
                     .outer_extent = sg_nest_outer_extent(plan),
                     .reads = nest_reads(plan)};
    key = (sg_nest_key){0}; /* owned by k */
    *at = k;
    if (++c->count > 2 * c->nbuckets)
        grow(c);
    c->compiles++;
    uint64_t serial = ++c->serial;
    pthread_mutex_unlock(&ctx->lock);
    if (compile_entry(ctx, c, k, plan, serial, err) == SG_OK)
        *out = k;
    return err->status;
unlock:
    pthread_mutex_unlock(&ctx->lock);
    sg_nest_key_free(&key);
    return err->status;
}

/* ---- the public API ------------------------------------------------------------------------- */

sg_status sg_kernel_compile(sg_context *ctx, const sg_plan *plan, int opt_level, sg_kernel **kernel)
{
    sg_error err = {0};
    compile(ctx, plan, opt_level, kernel, &err);
    return sg_context_report(ctx, &err);
}

void sg_kernel_release(sg_kernel *kernel)
{
    if (kernel == NULL)
        return;
    sg_context *ctx = kernel->ctx;
    sg_kernel_cache *c = ctx->kernels;
    pthread_mutex_lock(&ctx->lock);
    sg_kernel *victims = NULL;
    if (--kernel->refs == 0) {
        idle_append(c, kernel);
        victims = evict(c);
    }
    pthread_mutex_unlock(&ctx->lock);
    for (sg_kernel *next; victims; victims = next) {
        next = victims->next;
        free_kernel(c->jit, victims);
    }
}

sg_kernel_fn sg_kernel_function(const sg_kernel *kernel)
{
    return kernel->fn;
}

int64_t sg_kernel_outer_extent(const sg_kernel *kernel)
{
    return kernel->outer_extent;
}

/* One threaded run: part i runs [i * extent / parts, (i + 1) * extent / parts). */
typedef struct range_job {
    sg_kernel_fn fn;
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
    job->fn(job->in, job->out, split(job->extent, job->parts, part), split(job->extent, job->parts, part + 1));
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

sg_status sg_kernel_run(sg_context *ctx, const sg_kernel *kernel, const void *in, void *out, int threads)
{
    sg_error err = {0};
    int64_t extent = kernel->outer_extent;
    if (threads < 1) {
        sg_fail(&err, SG_ERR_USAGE, "failed to run kernel: %d threads (at least 1)", threads);
        return sg_context_report(ctx, &err);
    }
    if ((in == NULL && kernel->reads) || (out == NULL && extent > 0)) {
        sg_fail(&err, SG_ERR_USAGE, "failed to run kernel: the %s buffer is NULL",
                in == NULL && kernel->reads ? "input" : "output");
        return sg_context_report(ctx, &err);
    }
    int64_t n = threads < MAX_THREADS ? threads : MAX_THREADS;
    n = n < extent ? n : extent;
    sg_pool *pool = n > 1 ? context_pool(ctx) : NULL;
    if (pool == NULL) { /* one thread, or no memory for a pool */
        if (extent > 0)
            kernel->fn(in, out, 0, extent);
        return SG_OK;
    }
    range_job job = {kernel->fn, in, out, extent, n};
    sg_pool_run(pool, (int)n, run_part, &job);
    return SG_OK;
}

sg_status sg_kernel_ir(sg_context *ctx, const sg_plan *plan, int opt_level, char **text)
{
    sg_error err = {0};
    sg_codegen_ir_text(plan, opt_level, text, &err);
    return sg_context_report(ctx, &err);
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
    *stats = c ? (sg_kernel_stats){c->compiles, c->hits, c->count, c->nidle} : (sg_kernel_stats){0};
    pthread_mutex_unlock(&ctx->lock);
}

void sg_kernel_cache_set_idle_max(sg_context *ctx, size_t idle_max)
{
    sg_error err = {0};
    sg_kernel_cache *c = NULL;
    pthread_mutex_lock(&ctx->lock);
    sg_kernel *victims = NULL;
    if (get_cache(ctx, &c, &err) == SG_OK) {
        c->idle_max = idle_max;
        victims = evict(c);
    }
    pthread_mutex_unlock(&ctx->lock);
    for (sg_kernel *next; victims; victims = next) {
        next = victims->next;
        free_kernel(c->jit, victims);
    }
}

void sg_kernel_cache_destroy(sg_context *ctx)
{
    sg_kernel_cache *c = ctx->kernels;
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (sg_kernel *k = c->buckets[i], *next; k; k = next) {
            next = k->next;
            free_kernel(c->jit, k);
        }
    }
    sg_jit_destroy(c->jit);
    pthread_cond_destroy(&c->done);
    free(c->buckets);
    free(c);
    ctx->kernels = NULL;
}

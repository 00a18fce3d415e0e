/*
 * The kernel cache: a repeated compile is a hit returning the same kernel;
 * plans with identical nests (Slice and StridedSlice, i32 and f32) share a
 * kernel; opt levels do not; released kernels stay cached until the idle
 * limit evicts them; 8 threads compiling, running and releasing the same and
 * different plans at once on one context get correct kernels, one compile
 * per kernel; 8 contexts used in parallel by 8 threads, some also writing
 * ahead-of-time objects, stay independent. Also the kernel API's errors. Prints failed checks, then "cache: N
 * passed, M failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <unistd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../codegen/codegen.h"
#include "../../runtime/runtime.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
} suite;

static sg_plan *numpy_plan(sg_context *ctx, const char *expr, size_t rank, const int64_t *shape,
                           sg_dtype dtype)
{
    sg_spec *spec;
    sg_plan *plan = NULL;
    if (sg_spec_numpy(ctx, expr, &spec) == SG_OK) {
        sg_plan_create(ctx, spec, rank, shape, dtype, &plan);
        sg_spec_destroy(spec);
    }
    return plan;
}

static sg_kernel_stats stats(sg_context *ctx)
{
    sg_kernel_stats st;
    sg_kernel_cache_stats(ctx, &st);
    return st;
}

/* Runs kernel and the reference on a patterned input; 1 if they agree. */
static int agrees(sg_context *ctx, const sg_plan *plan, const sg_kernel *kernel, int threads)
{
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    unsigned char *in = malloc(in_bytes + 1), *want = malloc(out_bytes + 1), *got = malloc(out_bytes + 1);
    int ok = in && want && got;
    if (ok) {
        for (uint64_t i = 0; i < in_bytes; i++)
            in[i] = (unsigned char)(i * 37 + i / 251);
        memset(want, 1, out_bytes);
        memset(got, 2, out_bytes);
        ok = sg_run_reference(ctx, plan, in, want) == SG_OK &&
             sg_kernel_run(ctx, kernel, in, got, threads) == SG_OK && memcmp(want, got, out_bytes) == 0;
    }
    free(in);
    free(want);
    free(got);
    return ok;
}

static void repeated(suite *s)
{
    sg_context *ctx;
    sg_context_create(&ctx);
    int64_t shape[2] = {10, 12};
    sg_plan *plan = numpy_plan(ctx, "[1:, ::-2]", 2, shape, SG_F32);
    sg_kernel *a = NULL, *b = NULL, *c = NULL;
    CHECK(s, stats(ctx).compiles == 0, "a new context has compiled nothing");
    CHECK(s, sg_kernel_compile(ctx, plan, 0, &a) == SG_OK, "compile: %s", sg_context_last_error(ctx));
    CHECK(s, sg_kernel_compile(ctx, plan, 0, &b) == SG_OK, "compile again");
    sg_kernel_stats st = stats(ctx);
    CHECK(s, a == b && sg_kernel_function(a) == sg_kernel_function(b), "a repeat is the same kernel");
    CHECK(s, st.compiles == 1 && st.hits == 1, "one compile, one hit (%" PRIu64 ", %" PRIu64 ")", st.compiles,
          st.hits);
    CHECK(s, sg_kernel_compile(ctx, plan, 2, &c) == SG_OK && c != a, "another opt level, another kernel");
    CHECK(s, stats(ctx).compiles == 2, "two compiles");
    CHECK(s, sg_kernel_outer_extent(a) == 9, "outer extent 9 (%" PRId64 ")", sg_kernel_outer_extent(a));
    CHECK(s, agrees(ctx, plan, a, 1) && agrees(ctx, plan, c, 3), "kernels agree with the reference");
    sg_kernel_release(a);
    sg_kernel_release(b);
    sg_kernel_release(c);
    st = stats(ctx);
    CHECK(s, st.cached == 2 && st.idle == 2, "released kernels stay cached (%" PRIu64 " idle)", st.idle);
    CHECK(s, sg_kernel_compile(ctx, plan, 0, &a) == SG_OK && stats(ctx).compiles == 2,
          "a released kernel is still a hit");
    CHECK(s, stats(ctx).idle == 1, "a hit takes it off the idle list");
    sg_kernel_release(a);
    sg_plan_destroy(plan);
    sg_context_destroy(ctx);
}

/* Different plans, one nest. */
static void shared(suite *s)
{
    sg_context *ctx;
    sg_context_create(&ctx);
    int64_t shape[3] = {6, 7, 8}, start[2] = {1, -1}, stop[2] = {5, 0}, step[2] = {2, -1}, axes[2] = {0, 2};
    int64_t begin[3] = {1, 0, -1}, end[3] = {5, 0, 0}, stride[3] = {2, 1, -1}, ends[3] = {0, 1, 0};
    sg_strided_slice_args args = {
        .len = 3, .begin = begin, .end = end, .stride = stride, .end_mask = {ends, 3}};
    sg_spec *slice = NULL, *strided = NULL;
    sg_plan *p[4] = {NULL};
    sg_kernel *k[4] = {NULL};
    if (sg_spec_slice(ctx, 2, start, stop, step, axes, &slice) == SG_OK &&
        sg_spec_strided_slice(ctx, &args, &strided) == SG_OK) {
        sg_plan_create(ctx, slice, 3, shape, SG_I32, &p[0]);
        sg_plan_create(ctx, strided, 3, shape, SG_I32, &p[1]);
        sg_plan_create(ctx, strided, 3, shape, SG_F32, &p[2]);
    }
    p[3] = numpy_plan(ctx, "[1:5:2, :, :0:-1]", 3, shape, SG_U32);
    for (int i = 0; i < 4; i++)
        CHECK(s, p[i] && sg_kernel_compile(ctx, p[i], 1, &k[i]) == SG_OK, "plan %d compiles: %s", i,
              sg_context_last_error(ctx));
    CHECK(s, k[0] && k[0] == k[1] && k[1] == k[2] && k[2] == k[3],
          "Slice, StridedSlice (i32, f32) and NumPy (u32) share one kernel");
    sg_kernel_stats st = stats(ctx);
    CHECK(s, st.compiles == 1 && st.hits == 3, "one compile, three hits (%" PRIu64 ", %" PRIu64 ")",
          st.compiles, st.hits);
    for (int i = 0; i < 4; i++)
        if (p[i] && k[i])
            CHECK(s, agrees(ctx, p[i], k[i], 2), "plan %d agrees with the reference", i);
    for (int i = 0; i < 4; i++) {
        sg_kernel_release(k[i]);
        sg_plan_destroy(p[i]);
    }
    sg_spec_destroy(slice);
    sg_spec_destroy(strided);
    sg_context_destroy(ctx);
}

static void eviction(suite *s)
{
    sg_context *ctx;
    sg_context_create(&ctx);
    sg_kernel_cache_set_idle_max(ctx, 2);
    sg_plan *p[5];
    sg_kernel *k[5] = {NULL};
    for (int i = 0; i < 5; i++) {
        int64_t shape[1] = {10 + i};
        p[i] = numpy_plan(ctx, "[::-1]", 1, shape, SG_I8);
        CHECK(s, p[i] && sg_kernel_compile(ctx, p[i], 0, &k[i]) == SG_OK, "compile %d", i);
    }
    CHECK(s, stats(ctx).cached == 5, "five kernels in use are all cached");
    for (int i = 0; i < 5; i++)
        sg_kernel_release(k[i]);
    sg_kernel_stats st = stats(ctx);
    CHECK(s, st.cached == 2 && st.idle == 2, "idle limit 2 keeps the 2 last released (%" PRIu64 ")",
          st.cached);
    CHECK(s, sg_kernel_compile(ctx, p[4], 0, &k[4]) == SG_OK && stats(ctx).compiles == 5,
          "the last released is a hit");
    CHECK(s, sg_kernel_compile(ctx, p[0], 0, &k[0]) == SG_OK && stats(ctx).compiles == 6,
          "the first released was evicted and compiles again");
    CHECK(s, agrees(ctx, p[0], k[0], 1) && agrees(ctx, p[4], k[4], 1), "kernels after eviction agree");
    sg_kernel_release(k[0]);
    sg_kernel_release(k[4]);
    for (int i = 0; i < 5; i++)
        sg_plan_destroy(p[i]);
    sg_context_destroy(ctx); /* frees the cached ones */
}

/* ---- threads ------------------------------------------------------------------------------- */

enum { WORKERS = 8, PLANS = 12, ROUNDS = 3 };

typedef struct shared_state {
    suite *s;
    sg_context *ctx;
    sg_plan *plans[PLANS];
    pthread_barrier_t start;
    sg_kernel *first[WORKERS]; /* each worker's kernel for plans[0] */
} shared_state;

typedef struct worker {
    shared_state *sh;
    int id;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    shared_state *sh = w->sh;
    pthread_barrier_wait(&sh->start);
    for (int round = 0; round < ROUNDS; round++) {
        for (int j = 0; j < PLANS; j++) {
            int i = (j * (w->id + 1) + round) % PLANS; /* each worker its own order */
            sg_kernel *k;
            if (!CHECK(sh->s, sg_kernel_compile(sh->ctx, sh->plans[i], i % 2 ? 2 : 0, &k) == SG_OK,
                       "worker %d plan %d: %s", w->id, i, sg_context_last_error(sh->ctx)))
                continue;
            CHECK(sh->s, agrees(sh->ctx, sh->plans[i], k, 1 + (i + w->id) % 3),
                  "worker %d plan %d agrees with the reference", w->id, i);
            if (i == 0 && sh->first[w->id] == NULL)
                sh->first[w->id] = k; /* released at the end */
            else
                sg_kernel_release(k);
        }
    }
    return NULL;
}

/* Distinct (nest, opt level) pairs among the plans, as the workers use them. */
static uint64_t distinct_kernels(sg_plan *const *plans)
{
    sg_nest_key keys[PLANS];
    uint64_t n = 0;
    for (int i = 0; i < PLANS; i++) {
        sg_error err = {0};
        sg_nest_key_make(plans[i], &keys[i], &err);
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = i % 2 == j % 2 && keys[i].len == keys[j].len &&
                   memcmp(keys[i].bytes, keys[j].bytes, keys[i].len) == 0;
        n += !seen;
    }
    for (int i = 0; i < PLANS; i++)
        sg_nest_key_free(&keys[i]);
    return n;
}

static void concurrent(suite *s)
{
    static const char *const exprs[PLANS] = {"[::2]",          "[1:, ::-1]",  "[:, 1:-1]",    "[::-1, ::3]",
                                             "[..., None, 2]", "[3:1:-1, :]", "[::2]",        "[1:, ::-1]",
                                             "[:, :, ::2]",    "[-1]",        "[::-2, ::-2]", "[1:2, 3:]"};
    shared_state sh = {.s = s};
    sg_context_create(&sh.ctx);
    for (int i = 0; i < PLANS; i++) {
        int64_t shape[3] = {9 + i % 6, 40, 6}; /* plans 0 and 6 (and 1 and 7) share a nest */
        sh.plans[i] = numpy_plan(sh.ctx, exprs[i], 3, shape, i % 3 ? SG_F32 : SG_I16);
        if (!CHECK(s, sh.plans[i] != NULL, "plan %s", exprs[i]))
            goto done;
    }
    pthread_barrier_init(&sh.start, NULL, WORKERS);
    pthread_t ids[WORKERS];
    worker ws[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        ws[i] = (worker){&sh, i};
        pthread_create(&ids[i], NULL, work, &ws[i]);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(ids[i], NULL);
    pthread_barrier_destroy(&sh.start);
    sg_kernel_stats st = stats(sh.ctx);
    CHECK(s, st.compiles == distinct_kernels(sh.plans),
          "one compile per distinct kernel (%" PRIu64 " for %" PRIu64 ")", st.compiles,
          distinct_kernels(sh.plans));
    CHECK(s, st.compiles + st.hits == (uint64_t)WORKERS * PLANS * ROUNDS, "every call a compile or a hit");
    for (int i = 1; i < WORKERS; i++)
        CHECK(s, sh.first[i] == sh.first[0], "worker %d got the same kernel for plan 0", i);
    for (int i = 0; i < WORKERS; i++)
        sg_kernel_release(sh.first[i]);
    st = stats(sh.ctx);
    CHECK(s, st.idle == st.cached, "all released (%" PRIu64 " idle of %" PRIu64 ")", st.idle, st.cached);

    /* A brand-new plan compiled by 4 threads at once: one compile. */
    uint64_t before = stats(sh.ctx).compiles;
    int64_t shape[2] = {33, 17};
    sg_plan_destroy(sh.plans[0]);
    sh.plans[0] = numpy_plan(sh.ctx, "[::-3, 1::2]", 2, shape, SG_F64);
    for (int i = 0; i < WORKERS; i++)
        sh.first[i] = NULL;
    pthread_barrier_init(&sh.start, NULL, WORKERS);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&ids[i], NULL, work, &ws[i]);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(ids[i], NULL);
    pthread_barrier_destroy(&sh.start);
    CHECK(s, stats(sh.ctx).compiles == before + 1, "a new plan raced by %d threads compiles once", WORKERS);
    for (int i = 0; i < WORKERS; i++) {
        CHECK(s, sh.first[i] && sh.first[i] == sh.first[0], "worker %d shares the new kernel", i);
        sg_kernel_release(sh.first[i]);
    }
done:
    for (int i = 0; i < PLANS; i++)
        sg_plan_destroy(sh.plans[i]);
    sg_context_destroy(sh.ctx);
}

/* Thread `id` of parallel_contexts: a context of its own, every plan
 * compiled (both levels), run on 2 threads, checked and released; odd ids
 * also write the plans as one object ahead of time. */
typedef struct own_context {
    suite *s;
    sg_plan *const *plans;
    int id;
} own_context;

static void *use_own_context(void *arg)
{
    own_context *o = arg;
    sg_context *ctx;
    if (!CHECK(o->s, sg_context_create(&ctx) == SG_OK, "context %d", o->id))
        return NULL;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < PLANS; i++) {
            sg_kernel *k;
            if (CHECK(o->s, sg_kernel_compile(ctx, o->plans[i], (i + round) % 2 ? 2 : 0, &k) == SG_OK,
                      "context %d plan %d: %s", o->id, i, sg_context_last_error(ctx))) {
                CHECK(o->s, agrees(ctx, o->plans[i], k, 2), "context %d plan %d agrees", o->id, i);
                sg_kernel_release(k);
            }
        }
    }
    if (o->id % 2) {
        char path[64], names[PLANS][16];
        sg_aot_kernel kernels[PLANS];
        for (int i = 0; i < PLANS; i++) {
            snprintf(names[i], sizeof names[i], "k%d", i);
            kernels[i] = (sg_aot_kernel){.plan = o->plans[i], .name = names[i], .layer_id = -1};
        }
        snprintf(path, sizeof path, "/tmp/slicegen-cache-test-%ld-%d.o", (long)getpid(), o->id);
        sg_aot_options options = {.opt_level = 1};
        CHECK(o->s, sg_aot_write(ctx, kernels, PLANS, &options, path, NULL) == SG_OK, "context %d emits: %s",
              o->id, sg_context_last_error(ctx));
        unlink(path);
    }
    sg_context_destroy(ctx);
    return NULL;
}

static void parallel_contexts(suite *s)
{
    static const char *const exprs[PLANS] = {"[::2]",    "[1:, ::-1]", "[:, 1:-1]", "[::-1, ::3]",
                                             "[..., 2]", "[3:1:-1]",   "[::3]",     "[None, 1:]",
                                             "[:, ::2]", "[-1]",       "[::-2]",    "[1:2, 3:]"};
    sg_context *ctx;
    sg_plan *plans[PLANS] = {0};
    sg_context_create(&ctx);
    for (int i = 0; i < PLANS; i++) {
        int64_t shape[3] = {7 + i, 30, 5};
        plans[i] = numpy_plan(ctx, exprs[i], 3, shape, i % 2 ? SG_U8 : SG_F64);
        if (!CHECK(s, plans[i] != NULL, "plan %s", exprs[i]))
            goto done;
    }
    pthread_t ids[WORKERS];
    own_context os[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        os[i] = (own_context){s, plans, i};
        pthread_create(&ids[i], NULL, use_own_context, &os[i]);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(ids[i], NULL);
done:
    for (int i = 0; i < PLANS; i++)
        sg_plan_destroy(plans[i]);
    sg_context_destroy(ctx);
}

/* ---- the API's edges ------------------------------------------------------------------------ */

static void edges(suite *s)
{
    sg_context *ctx;
    sg_context_create(&ctx);
    int64_t shape[2] = {4, 5}, empty[2] = {4, 0};
    sg_plan *one = numpy_plan(ctx, "[1, 2:4]", 2, shape, SG_BF16); /* no loops: extent 1 */
    sg_plan *none = numpy_plan(ctx, "[1:, :]", 2, empty, SG_F32);  /* empty output: extent 0 */
    sg_kernel *k = NULL, *z = NULL;
    CHECK(s, sg_kernel_compile(ctx, one, 7, &k) == SG_ERR_USAGE && k == NULL, "opt level 7: usage error");
    CHECK(s, strstr(sg_context_last_error(ctx), "optimization level 7") != NULL, "message: %s",
          sg_context_last_error(ctx));
    CHECK(s, sg_kernel_compile(ctx, one, 0, &k) == SG_OK && sg_kernel_outer_extent(k) == 1,
          "a run without loops has outer extent 1");
    CHECK(s, k && agrees(ctx, one, k, 4), "extent 1 on 4 threads");
    CHECK(s, sg_kernel_compile(ctx, none, 2, &z) == SG_OK && sg_kernel_outer_extent(z) == 0,
          "an empty output has outer extent 0");
    CHECK(s, z && sg_kernel_run(ctx, z, NULL, NULL, 2) == SG_OK, "an empty kernel runs without buffers");
    unsigned char in[40] = {0}, out[4];
    CHECK(s, k && sg_kernel_run(ctx, k, in, out, 0) == SG_ERR_USAGE, "0 threads: usage error");
    CHECK(s, k && sg_kernel_run(ctx, k, in, NULL, 1) == SG_ERR_USAGE, "NULL output: usage error");
    CHECK(s, k && sg_kernel_run(ctx, k, NULL, out, 1) == SG_ERR_USAGE, "NULL input: usage error");
    CHECK(s, strstr(sg_context_last_error(ctx), "input") != NULL, "message: %s", sg_context_last_error(ctx));
    const char *v = sg_llvm_version();
    CHECK(s, v && v[0] >= '1' && v[0] <= '9' && strchr(v, '.'), "LLVM version \"%s\"", v ? v : "");
    sg_kernel_release(k);
    sg_kernel_release(z);
    sg_kernel_release(NULL);
    sg_plan_destroy(one);
    sg_plan_destroy(none);
    sg_context_destroy(ctx);
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT};
    repeated(&s);
    shared(&s);
    eviction(&s);
    concurrent(&s);
    parallel_contexts(&s);
    edges(&s);
    return finish("cache", &s.counts);
}

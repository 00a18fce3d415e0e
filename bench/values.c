/* Runtime values: what a kernel compiled once for every shape and index
 * costs against kernels compiled for one. Each case of the suite is
 * compiled once more with every input dimension -1 and every integer of
 * its spec a named value, and timed against its static kernel on the same
 * buffers; on the tiny case, the cost of preparing a call; and a decode
 * loop over a KV cache: one kernel for every length, a kernel compiled per
 * length, and memcpy of the same rows. Exports (bench_internal.h) how many
 * of these figures --case selects and sg_bench_run_values, which measures
 * them. See docs/bench.md. */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

/* The decode loop: f16 [1, 32, ?, 128], `[:, :, :t]`. */
#define DECODE_SPEC "[:, :, :t]"
enum { DECODE_HEADS = 32, DECODE_ROW = 128, DECODE_ROUNDS = 3, DECODE_CHECK_EVERY = 10 };

/* ---- the figures and their names ---------------------------------------------- */

/* The name of figure i: "values: <case i>", or "values: decode" after the
 * suite's cases. */
static const char *figure_name(int i, char name[48])
{
    int ncases;
    const bench_case *suite = sg_bench_cases(&ncases);
    snprintf(name, 48, "values: %s", i < ncases ? suite[i].name : "decode");
    return name;
}

int sg_bench_values_selected(const bench *b)
{
    int ncases, n = 0;
    char name[48];
    sg_bench_cases(&ncases);
    for (int i = 0; i <= ncases; i++)
        n += sg_bench_selected(b, figure_name(i, name));
    return n;
}

/* ---- the symbolic spec of a case ------------------------------------------------ */

static bool identifier_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* What a text holds whose integers name_literals names. */
typedef enum literals { NUMPY_TEXT, NUMBER_LIST, STEP_LIST } literals;

/* Appends s[0, len) to out with integer literals (an optional '-' and
 * digits, not part of an identifier or of a decimal number) replaced by
 * the next name v<f->nvalues>, their values recorded in f: every literal
 * when `steps`, else all but the steps. The steps: every item of a
 * STEP_LIST (--stride, --step), and in a NumPy expression each literal
 * after the second ':' of its index. False when f has no room for another
 * value. */
static bool name_literals(text *out, const char *s, size_t len, literals kind, bool steps, values_form *f)
{
    int colons = 0;
    for (size_t i = 0; i < len;) {
        size_t digits = i + (s[i] == '-'), end = digits;
        while (end < len && isdigit((unsigned char)s[end]))
            end++;
        bool literal = end > digits && (i == 0 || (!identifier_char(s[i - 1]) && s[i - 1] != '.')) &&
                       (end == len || (!identifier_char(s[end]) && s[end] != '.'));
        bool step = kind == STEP_LIST || (kind == NUMPY_TEXT && colons == 2);
        if (!literal || (step && !steps)) {
            size_t n = end > i ? end - i : 1;
            if (n == 1)
                colons = s[i] == ':' ? colons + 1 : s[i] == ',' || s[i] == '[' ? 0 : colons;
            sg_bench_put(out, "%.*s", (int)n, s + i);
            i += n;
            continue;
        }
        if (f->nvalues == SG_BENCH_MAX_NAMED)
            return false;
        f->values[f->nvalues] = strtoll(s + i, NULL, 10);
        sg_bench_put(out, "v%d", f->nvalues++);
        i = end;
    }
    return true;
}

/* What the word s[0, len) says of the word after it: the option of a
 * list of numbers (NUMBER_LIST, STEP_LIST), or neither (NUMPY_TEXT). */
static literals word_kind(const char *s, size_t len)
{
    static const char *const lists[] = {"--begin", "--end",    "--start", "--stop",
                                        "--size",  "--stride", "--step"};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
        if (strlen(lists[k]) == len && strncmp(s, lists[k], len) == 0)
            return k < 5 ? NUMBER_LIST : STEP_LIST;
    return NUMPY_TEXT;
}

/* f->spec: r->spec with its integers named (f->values), every one when
 * `steps`, else all but the steps: the literals of a NumPy expression, the
 * items of the number lists of `--op` words. */
static sg_status name_spec(const values_result *r, bool steps, values_form *f, sg_error *err)
{
    text t = {0};
    bool room = true;
    if (strncmp(r->spec, "--op", 4) != 0) {
        room = name_literals(&t, r->spec, strlen(r->spec), NUMPY_TEXT, steps, f);
    } else {
        literals list = NUMPY_TEXT; /* the word is no list */
        for (const char *w = r->spec; *w && room;) {
            size_t len = strcspn(w, " ");
            if (list != NUMPY_TEXT)
                room = name_literals(&t, w, len, list, steps, f);
            else
                sg_bench_put(&t, "%.*s", (int)len, w);
            list = word_kind(w, len);
            w += len;
            if (*w == ' ')
                sg_bench_put(&t, "%c", *w++);
        }
    }
    if (!room || t.failed) {
        free(t.s);
        return room ? sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", r->name)
                    : sg_fail(err, SG_ERR_INTERNAL, "failed to benchmark '%s': more than %d integers in '%s'",
                              r->name, SG_BENCH_MAX_NAMED, r->spec);
    }
    f->spec = t.s;
    return SG_OK;
}

/* The spec of form f of r: a NumPy expression, or `--op` words between
 * single spaces. */
static sg_status parse_spec(sg_context *ctx, const values_result *r, const values_form *f, sg_spec **spec,
                            sg_error *err)
{
    sg_status st;
    if (strncmp(f->spec, "--op", 4) != 0) {
        st = sg_spec_numpy(ctx, f->spec, spec);
    } else {
        char *copy = strdup(f->spec), *words[64], *save = NULL;
        int n = 0;
        if (copy == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", r->name);
        for (char *w = strtok_r(copy, " ", &save); w != NULL && n < 64; w = strtok_r(NULL, " ", &save))
            words[n++] = w;
        st = sg_spec_from_words(ctx, n, words, spec);
        free(copy);
    }
    return st == SG_OK ? SG_OK : sg_bench_from_context(ctx, st, err, r->name);
}

/* The symbolic plan of form f of r on an input of r->symbolic_shape, and
 * its kernel at the default level. */
enum { COMPILE_SAMPLES = 2 };

/* The best of COMPILE_SAMPLES JIT compiles of plan at the default level,
 * each in a context of its own whose JIT has compiled a kernel before (a
 * cache miss, JIT creation aside). */
static sg_status time_compile(const char *name, const sg_plan *plan, double *seconds, sg_error *err)
{
    *seconds = INFINITY;
    for (int k = 0; k < COMPILE_SAMPLES; k++) {
        sg_context *ctx = NULL;
        sg_spec *spec = NULL;
        sg_plan *warm = NULL;
        sg_kernel *kernel = NULL;
        const int64_t shape[1] = {4};
        sg_status st = sg_bench_new_context(&ctx, err);
        if (st != SG_OK)
            return st;
        if ((st = sg_spec_numpy(ctx, "[1:]", &spec)) == SG_OK &&
            (st = sg_plan_create(ctx, spec, 1, shape, SG_U8, &warm)) == SG_OK &&
            (st = sg_kernel_compile_with(ctx, warm, NULL, &kernel)) == SG_OK) {
            sg_kernel_destroy(kernel);
            double t0 = sg_bench_now();
            st = sg_kernel_compile_with(ctx, plan, NULL, &kernel);
            double t = sg_bench_now() - t0;
            *seconds = t < *seconds ? t : *seconds;
            if (st == SG_OK)
                sg_kernel_destroy(kernel);
        }
        if (st != SG_OK)
            st = sg_bench_from_context(ctx, st, err, name);
        sg_plan_destroy(warm);
        sg_spec_destroy(spec);
        sg_context_destroy(ctx);
        if (st != SG_OK)
            return st;
    }
    return SG_OK;
}

/* f's plan of r's symbolic shape and its kernel, compiled at the default
 * level; the compile's time (time_compile) in *compile_s unless NULL. */
static sg_status compile_symbolic(sg_context *ctx, const values_result *r, const values_form *f,
                                  sg_dtype dtype, sg_plan **plan, sg_kernel **kernel, double *compile_s,
                                  sg_error *err)
{
    sg_spec *spec = NULL;
    sg_status st = parse_spec(ctx, r, f, &spec, err);
    if (st != SG_OK)
        return st;
    st = sg_plan_create(ctx, spec, r->rank, r->symbolic_shape, dtype, plan);
    sg_spec_destroy(spec);
    if (st == SG_OK)
        st = sg_kernel_compile_with(ctx, *plan, NULL, kernel);
    if (st != SG_OK)
        return sg_bench_from_context(ctx, st, err, r->name);
    return compile_s != NULL ? time_compile(r->name, *plan, compile_s, err) : SG_OK;
}

/* ---- calls of a case's kernels ------------------------------------------------- */

/* A call of one of a case's kernels (its op first, so that an op* is a
 * call*): the static kernel through the library (sg_bench_op_kernel) or
 * its function called directly (fn, extent); a symbolic one through the
 * library with prepared args (op_args), or, as a runtime calls a kernel,
 * through its prepare and kernel functions (op_prepared_direct). */
typedef struct call {
    op o;
    sg_args args;
    int64_t values[SG_BENCH_MAX_NAMED]; /* in the plan's order */
    const int64_t *shape;
    sg_prepare_fn prepare;
    sg_kernel_args_fn run;
    sg_kernel_fn fn;
    int64_t extent;
} call;

/* sg_kernel_run_args of the prepared args on o.threads threads. */
static void op_args(op *o)
{
    sg_status st = sg_kernel_run_args(o->ctx, o->kernel, o->in, o->out, &((call *)o)->args, o->threads);
    if (st != SG_OK)
        o->status = st;
}

/* The static kernel's function, called directly. */
static void op_static_direct(op *o)
{
    const call *c = (const call *)o;
    c->fn(o->in, o->out, 0, c->extent);
}

/* The symbolic kernel's prepare and kernel functions, called directly. */
static void op_prepared_direct(op *o)
{
    call *c = (call *)o;
    if (c->prepare(&c->args, c->shape, c->values) != 0) {
        o->status = SG_ERR_SLICE;
        return;
    }
    c->run(o->in, o->out, &c->args, 0, c->args.outer_extent);
}

/* Whether `second` writes the bytes `first` writes into the same output
 * buffer: first's output digested, the buffer zeroed, then second's. */
static bool same_output(void (*first)(op *), op *a, void (*second)(op *), op *b)
{
    first(a);
    uint64_t want = sg_bench_digest(a->out, a->bytes);
    memset(b->out, 0, (size_t)b->bytes);
    second(b);
    return a->status == SG_OK && b->status == SG_OK && sg_bench_digest(b->out, b->bytes) == want;
}

/* ---- a case ------------------------------------------------------------------------ */

/* The symbolic kernel of form f of case r in *plan, *kernel and *c, its
 * call prepared for r's input (which must give the static output's
 * r->bytes bytes). */
static sg_status symbolic_call(sg_context *ctx, const values_result *r, values_form *f, sg_plan **plan,
                               sg_kernel **kernel, call *c, sg_error *err)
{
    sg_status st = compile_symbolic(ctx, r, f, r->c->dtype, plan, kernel, &f->compile_s, err);
    if (st != SG_OK)
        return st;
    /* The plan orders its values by first appearance; name_spec named them v0, v1, ... */
    for (size_t k = 0; k < sg_plan_value_count(*plan); k++)
        c->values[k] = f->values[atoi(sg_plan_value_name(*plan, k) + 1)];
    c->o = (op){ctx, *kernel, *plan, NULL, NULL, r->bytes, 1, SG_OK};
    c->shape = r->shape;
    c->prepare = sg_kernel_prepare_function(*kernel);
    c->run = sg_kernel_args_function(*kernel);
    if ((st = sg_kernel_prepare(ctx, *kernel, r->shape, c->values, &c->args)) != SG_OK)
        return sg_bench_from_context(ctx, st, err, r->name);
    if ((uint64_t)c->args.output_bytes != r->bytes)
        return sg_fail(err, SG_ERR_INTERNAL,
                       "failed to benchmark '%s': the output of '%s' has %" PRId64
                       " bytes, the static kernel's %" PRIu64,
                       r->name, f->spec, c->args.output_bytes, r->bytes);
    return SG_OK;
}

/* The static kernel (calls[0]) and the n - 1 symbolic forms in turn, on 1
 * and on N threads; the tiny case: their functions called directly, 1
 * thread. Each form's output must be the static kernel's. */
static sg_status time_case(bench *b, values_result *r, call *calls, int n, sg_error *err)
{
    bool tiny = r->c->tiny;
    void (*fs)(op *) = tiny ? op_static_direct : sg_bench_op_kernel;
    void (*fa)(op *) = tiny ? op_prepared_direct : op_args;
    for (int pass = 0; pass < (tiny ? 1 : 2); pass++) {
        int threads = pass ? b->threads : 1;
        timed x[3];
        double seconds[3];
        for (int k = 0; k < n; k++) {
            calls[k].o.threads = threads;
            x[k] = (timed){k ? fa : fs, &calls[k].o, 0, {0}};
        }
        sg_bench_progress(b, "%s: the static and the symbolic kernels on %d thread%s, in turn", r->name,
                          threads, threads > 1 ? "s" : "");
        sg_bench_measure_together(b->t, x, n, seconds, &r->samples);
        for (int k = 1; k < n; k++) {
            if (same_output(fs, &calls[0].o, fa, &calls[k].o))
                continue;
            sg_status st = calls[0].o.status != SG_OK ? calls[0].o.status : calls[k].o.status;
            if (st != SG_OK)
                return sg_bench_from_context(calls[0].o.ctx, st, err, r->name);
            return sg_fail(
                err, SG_ERR_INTERNAL,
                "failed to benchmark '%s': the output of '%s' on %d thread%s differs from the static "
                "kernel's",
                r->name, (k == 1 ? &r->bounds : &r->steps)->spec, threads, threads > 1 ? "s" : "");
        }
        *(pass ? &r->static_threads_s : &r->static_s) = seconds[0];
        *(pass ? &r->bounds.threads_s : &r->bounds.s) = seconds[1];
        *(pass ? &r->steps.threads_s : &r->steps.s) = seconds[n - 1];
    }
    return SG_OK;
}

/* Case r->c: its static kernel and its symbolic forms (one when its spec
 * has no step), on the same buffers. */
static sg_status run_case(bench *b, sg_context *ctx, values_result *r, sg_error *err)
{
    sg_plan *plans[3] = {NULL, NULL, NULL};
    sg_kernel *kernels[3] = {NULL, NULL, NULL};
    call calls[3];
    void *in = NULL, *out = NULL;
    int n = 0;
    sg_status st;

    r->rank = r->c->rank;
    memcpy(r->shape, sg_bench_cpu_shape(b, r->c), sizeof r->shape);
    for (size_t d = 0; d < r->rank; d++)
        r->symbolic_shape[d] = -1;
    sg_bench_progress(b, "%s: compiling the static and the symbolic kernels", r->name);
    if ((st = sg_bench_case_plan(ctx, r->c, r->shape, &plans[0], &r->spec, err)) != SG_OK)
        goto done;
    r->bytes = sg_plan_output_bytes(plans[0]);
    if ((st = time_compile(r->name, plans[0], &r->static_compile_s, err)) != SG_OK)
        goto done;
    if ((st = sg_kernel_compile_with(ctx, plans[0], NULL, &kernels[0])) != SG_OK) {
        st = sg_bench_from_context(ctx, st, err, r->name);
        goto done;
    }
    calls[0] = (call){.o = {ctx, kernels[0], plans[0], NULL, NULL, r->bytes, 1, SG_OK},
                      .fn = sg_kernel_function(kernels[0]),
                      .extent = sg_kernel_outer_extent(kernels[0])};
    if (r->c->program) { /* its dimensions -1, its numbers as written (a program's are not all indices) */
        if ((r->bounds.spec = strdup(r->spec)) == NULL || (r->steps.spec = strdup(r->spec)) == NULL) {
            st = sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", r->name);
            goto done;
        }
    } else if ((st = name_spec(r, false, &r->bounds, err)) != SG_OK ||
               (st = name_spec(r, true, &r->steps, err)) != SG_OK) {
        goto done;
    }
    n = strcmp(r->bounds.spec, r->steps.spec) != 0 ? 3 : 2;
    for (int k = 1; k < n; k++)
        if ((st = symbolic_call(ctx, r, k == 1 ? &r->bounds : &r->steps, &plans[k], &kernels[k], &calls[k],
                                err)) != SG_OK)
            goto done;
    if ((st = sg_bench_buffers(r->name, sg_plan_input_bytes(plans[0]), r->bytes, &in, &out, err)) != SG_OK)
        goto done;
    for (int k = 0; k < n; k++)
        calls[k].o.in = in, calls[k].o.out = out;
    st = time_case(b, r, calls, n, err);
done:
    for (int k = 0; k < 3; k++) {
        sg_kernel_destroy(kernels[k]);
        sg_plan_destroy(plans[k]);
    }
    free(in);
    free(out);
    return st;
}

/* ---- the decode loop ---------------------------------------------------------------- */

/* The loop's state: the cache in, three outputs (the dynamic kernel's,
 * memcpy's, the static kernels'), each room for the last step. */
typedef struct decode {
    sg_context *ctx;
    const values_result *r;
    sg_kernel *kernel; /* the dynamic kernel */
    const sg_plan *plan;
    const unsigned char *in;
    unsigned char *out[3];
    uint64_t row; /* bytes of one row: DECODE_ROW elements */
    int64_t rows; /* rows of the cache per head: its length */
    sg_status status;
} decode;

/* Step t of the dynamic kernel into out: prepare, then run on 1 thread. */
static void dynamic_step(decode *d, int64_t t, void *out)
{
    sg_args args;
    sg_status st = sg_kernel_prepare(d->ctx, d->kernel, d->r->shape, &t, &args);
    if (st == SG_OK)
        st = sg_kernel_run_args(d->ctx, d->kernel, d->in, out, &args, 1);
    if (st != SG_OK)
        d->status = st;
}

/* Step t as memcpy: the first t rows of each head. */
static void copy_step(const decode *d, int64_t t, unsigned char *out)
{
    size_t run = (size_t)t * d->row;
    for (int h = 0; h < DECODE_HEADS; h++)
        sg_bench_copy(out + (size_t)h * run, d->in + (uint64_t)h * (uint64_t)d->rows * d->row, run);
}

/* Seconds for steps t = 1..steps of the dynamic kernel (copy false) or of
 * memcpy, into their own outputs. */
static double loop(decode *d, bool copy, int steps)
{
    double t0 = sg_bench_now();
    for (int64_t t = 1; t <= steps; t++) {
        if (copy)
            copy_step(d, t, d->out[1]);
        else
            dynamic_step(d, t, d->out[0]);
    }
    return sg_bench_now() - t0;
}

/* Whether step t is checked against memcpy: every DECODE_CHECK_EVERY-th and the last. */
static bool checked(int64_t t, int steps)
{
    return t % DECODE_CHECK_EVERY == 1 || t == steps;
}

/* Whether out (of kernel `which`) holds step t's rows: memcpy's made into d->out[1]. */
static sg_status check_step(decode *d, int64_t t, const unsigned char *out, const char *which, sg_error *err)
{
    copy_step(d, t, d->out[1]);
    if (memcmp(out, d->out[1], (size_t)t * DECODE_HEADS * d->row) == 0)
        return SG_OK;
    return sg_fail(err, SG_ERR_INTERNAL,
                   "failed to benchmark '%s': the %s kernel's output at t = %" PRId64
                   " differs from memcpy of the same rows",
                   d->r->name, which, t);
}

/* A static kernel per step: the plan of t (sg_plan_specialize), its
 * compile and its run, timed, the compile apart; a kernel is released
 * after its step (it stays cached, unused). */
static sg_status jit_loop(decode *d, values_result *r, bench *b, int steps, sg_error *err)
{
    sg_kernel_stats before, after;
    sg_kernel_cache_stats(d->ctx, &before);
    for (int64_t t = 1; t <= steps; t++) {
        sg_plan *plan = NULL;
        sg_kernel *kernel = NULL;
        if (t % 50 == 1)
            sg_bench_progress(b, "%s: a static kernel compiled per t (t = %" PRId64 " of %d)", r->name, t,
                              steps);
        double t0 = sg_bench_now();
        sg_status st = sg_plan_specialize(d->ctx, d->plan, r->shape, &t, &plan);
        double t1 = sg_bench_now();
        if (st == SG_OK)
            st = sg_kernel_compile_with(d->ctx, plan, NULL, &kernel);
        double t2 = sg_bench_now();
        if (st == SG_OK)
            st = sg_kernel_run(d->ctx, kernel, d->in, d->out[2], 1);
        r->jit_s += sg_bench_now() - t0;
        r->compile_s += t2 - t1;
        sg_kernel_destroy(kernel);
        sg_plan_destroy(plan);
        if (st != SG_OK)
            return sg_bench_from_context(d->ctx, st, err, r->name);
        if (checked(t, steps) && (st = check_step(d, t, d->out[2], "static", err)) != SG_OK)
            return st;
    }
    sg_kernel_cache_stats(d->ctx, &after);
    r->compiles = after.compiles - before.compiles;
    return SG_OK;
}

/* The dynamic kernel and memcpy over every step, checked, then in turn
 * DECODE_ROUNDS times each (medians); then a static kernel per step. */
static sg_status run_decode_loops(bench *b, decode *d, values_result *r, sg_error *err)
{
    int steps = b->t->decode_steps;
    sg_bench_progress(b, "%s: checking the dynamic kernel", r->name);
    for (int64_t t = 1; t <= steps; t++) {
        if (!checked(t, steps))
            continue;
        dynamic_step(d, t, d->out[0]);
        if (d->status != SG_OK)
            return sg_bench_from_context(d->ctx, d->status, err, r->name);
        sg_status st = check_step(d, t, d->out[0], "dynamic", err);
        if (st != SG_OK)
            return st;
    }
    double dynamic[DECODE_ROUNDS], copy[DECODE_ROUNDS];
    for (int k = 0; k < DECODE_ROUNDS; k++) {
        sg_bench_progress(b, "%s: dynamic kernel and memcpy, in turn (round %d of %d)", r->name, k + 1,
                          DECODE_ROUNDS);
        dynamic[k] = loop(d, false, steps);
        copy[k] = loop(d, true, steps);
    }
    if (d->status != SG_OK)
        return sg_bench_from_context(d->ctx, d->status, err, r->name);
    r->rounds = DECODE_ROUNDS;
    r->dynamic_s = sg_bench_median(dynamic, DECODE_ROUNDS);
    r->memcpy_s = sg_bench_median(copy, DECODE_ROUNDS);
    return jit_loop(d, r, b, steps, err);
}

/* The decode loop on a context of its own, where every static kernel is a
 * cache miss. */
static sg_status run_decode(bench *b, values_result *r, sg_error *err)
{
    int64_t steps = b->t->decode_steps;
    const int64_t shape[4] = {1, DECODE_HEADS, b->t->decode_length, DECODE_ROW};
    decode d = {.r = r, .row = DECODE_ROW * sg_dtype_size(SG_F16), .rows = shape[2]};
    sg_plan *plan = NULL;
    void *in = NULL, *out = NULL;
    sg_status st;

    r->rank = 4;
    memcpy(r->shape, shape, sizeof r->shape);
    memcpy(r->symbolic_shape, shape, sizeof r->shape);
    r->symbolic_shape[2] = -1;
    r->bytes = (uint64_t)steps * DECODE_HEADS * d.row;
    r->spec = strdup(DECODE_SPEC);
    r->bounds.spec = strdup(DECODE_SPEC);
    if (r->spec == NULL || r->bounds.spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", r->name);
    if ((st = sg_bench_new_context(&d.ctx, err)) != SG_OK)
        return st;
    sg_bench_progress(b, "%s: compiling the dynamic kernel", r->name);
    if ((st = compile_symbolic(d.ctx, r, &r->bounds, SG_F16, &plan, &d.kernel, NULL, err)) != SG_OK)
        goto done;
    d.plan = plan;
    if ((st = sg_bench_buffers(r->name, (uint64_t)shape[2] * DECODE_HEADS * d.row, r->bytes, &in, &out,
                               err)) != SG_OK)
        goto done;
    d.in = in;
    d.out[0] = out;
    for (int k = 1; k < 3; k++)
        if ((d.out[k] = sg_bench_buffer(r->bytes, false)) == NULL)
            st = sg_fail(err, SG_ERR_NOMEM, "failed to benchmark '%s': out of memory", r->name);
    if (st == SG_OK)
        st = run_decode_loops(b, &d, r, err);
done:
    sg_kernel_destroy(d.kernel);
    sg_plan_destroy(plan);
    sg_context_destroy(d.ctx);
    free(in);
    for (int k = 0; k < 3; k++)
        free(d.out[k]);
    return st;
}

/* ---- the section --------------------------------------------------------------------- */

/* "SPEC = V0, V1, ..." of form f, or SPEC alone when it names no value. */
static void put_form(text *t, const values_form *f)
{
    sg_bench_put(t, "%s", f->spec);
    for (int k = 0; k < f->nvalues; k++)
        sg_bench_put(t, "%s%" PRId64, k ? ", " : " = ", f->values[k]);
}

/* Whether r's spec has steps, and so a second symbolic form. */
static bool has_steps(const values_result *r)
{
    return strcmp(r->bounds.spec, r->steps.spec) != 0;
}

static void say_case(bench *b, const values_result *r)
{
    char s[32], a[32], w[32] = "-", wr[32] = "-", st[32], wt[32] = "-", cs[32], cb[32];
    text forms = {0};
    put_form(&forms, &r->bounds);
    if (has_steps(r)) {
        sg_bench_put(&forms, "; ");
        put_form(&forms, &r->steps);
        sg_bench_format_time(w, r->steps.s);
        snprintf(wr, sizeof wr, "%.2fx", r->steps.s / r->static_s);
        snprintf(wt, sizeof wt, "%.2fx", r->steps.threads_s / r->static_threads_s);
    }
    const char *spec = forms.failed ? "?" : forms.s;
    if (r->c->tiny)
        sg_bench_say(
            b,
            "%s: prepare + call %.1f ns%s%s%s, static call %.1f ns: %+.1f ns per call (the functions "
            "called directly, 1 thread; %s)\n",
            r->name, r->bounds.s * 1e9, has_steps(r) ? " (" : "", has_steps(r) ? w : "",
            has_steps(r) ? " with the step a value too)" : "", r->static_s * 1e9,
            (r->bounds.s - r->static_s) * 1e9, spec);
    else
        sg_bench_say(
            b, "%-32s %10s %10s %6.2fx %10s %7s %12s %6.2fx %7s %10s %10s %6.2fx  %s\n", r->name,
            sg_bench_format_time(s, r->static_s), sg_bench_format_time(a, r->bounds.s),
            r->bounds.s / r->static_s, w, wr, sg_bench_format_time(st, r->static_threads_s),
            r->bounds.threads_s / r->static_threads_s, wt, sg_bench_format_time(cs, r->static_compile_s),
            sg_bench_format_time(cb, r->bounds.compile_s), r->bounds.compile_s / r->static_compile_s, spec);
    free(forms.s);
}

static void say_decode(bench *b, const values_result *r)
{
    int steps = b->t->decode_steps;
    char p[3][32], t[3][32], c[32];
    double total[3] = {r->dynamic_s, r->jit_s, r->memcpy_s};
    for (int k = 0; k < 3; k++) {
        sg_bench_format_time(p[k], total[k] / steps);
        sg_bench_format_time(t[k], total[k]);
    }
    sg_bench_say(b,
                 "%s: f16 [1, %d, %" PRId64 ", %d] '%s' for t = 1..%d, one step each, 1 thread "
                 "(the kernel over [1, %d, ?, %d])\n",
                 r->name, DECODE_HEADS, r->shape[2], DECODE_ROW, r->spec, steps, DECODE_HEADS, DECODE_ROW);
    sg_bench_say(b, "  dynamic kernel, prepare + run     %10s per step %10s in all  %6.2fx memcpy\n", p[0],
                 t[0], r->dynamic_s / r->memcpy_s);
    sg_bench_say(b,
                 "  static kernel per t, JIT          %10s per step %10s in all  (compile %s, %" PRIu64
                 " compiles)\n",
                 p[1], t[1], sg_bench_format_time(c, r->compile_s), r->compiles);
    sg_bench_say(b, "  memcpy of the same rows           %10s per step %10s in all\n", p[2], t[2]);
}

/* The geometric mean and the largest of the cases' 1-thread ratios, of
 * each symbolic form. */
static void say_summary(bench *b)
{
    for (int steps = 0; steps < 3; steps++) { /* 2: the compile times of the first form */
        double log_sum = 0, worst = 0;
        int n = 0;
        const char *worst_name = NULL;
        for (int i = 0; i < b->nvalues; i++) {
            const values_result *r = &b->values[i];
            if (r->c == NULL || r->c->tiny)
                continue;
            double ratio = steps == 2 ? r->bounds.compile_s / r->static_compile_s
                                      : (steps ? r->steps.s : r->bounds.s) / r->static_s;
            log_sum += log(ratio);
            n++;
            if (ratio > worst)
                worst = ratio, worst_name = r->name;
        }
        if (n > 1)
            sg_bench_say(b, "values: symbolic%s over static, %s: geometric mean %.2fx, largest %.2fx (%s)\n",
                         steps == 1 ? " with steps" : "",
                         steps == 2 ? "the JIT's compile at the default level" : "1 thread", exp(log_sum / n),
                         worst, worst_name);
    }
}

sg_status sg_bench_run_values(bench *b, sg_error *err)
{
    int ncases;
    const bench_case *suite = sg_bench_cases(&ncases);
    sg_context *ctx = NULL;
    sg_status st = sg_bench_new_context(&ctx, err);
    /* The stores probes run once per process, at the first compile that
     * needs them: now, so that no kernel's compile time holds them. */
    sg_host_measured_stream_threshold(NULL);
    sg_host_short_rows_stream(NULL);
    bool header = false;
    char threads[32];
    snprintf(threads, sizeof threads, "%d-thr static", b->threads);
    if (sg_bench_values_selected(b) > 0) /* not for notes alone */
        sg_bench_say(
            b,
            "runtime values: each case compiled once with every input dimension -1 and every integer of "
            "its spec a value (v0, v1, ...) but the steps, then the steps too (programs: with their numbers "
            "as written); sg_kernel_run_args of values prepared once, in turn with the static kernel on the "
            "same buffers\n");
    for (int i = 0; i <= ncases && st == SG_OK; i++) {
        values_result *r = &b->values[b->nvalues];
        *r = (values_result){.c = i < ncases ? &suite[i] : NULL};
        if (i == ncases)
            say_summary(b);
        if (!sg_bench_selected(b, figure_name(i, r->name)))
            continue;
        if (r->c != NULL && !r->c->tiny && !header) {
            sg_bench_say(b, "%-32s %10s %10s %7s %10s %7s %12s %7s %7s %10s %10s %7s  %s\n", "values: case",
                         "static", "symbolic", "ratio", "+steps", "ratio", threads, "ratio", "ratio",
                         "compile", "sym comp", "ratio", "symbolic spec = values");
            header = true;
        }
        b->shown++;
        b->nvalues++; /* its strings are freed by sg_bench_run either way */
        if (r->c != NULL && (st = run_case(b, ctx, r, err)) == SG_OK)
            say_case(b, r);
        else if (r->c == NULL && (st = run_decode(b, r, err)) == SG_OK)
            say_decode(b, r);
    }
    sg_context_destroy(ctx);
    return st;
}

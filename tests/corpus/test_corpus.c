/* The test corpus runner. Each file in tests/corpus holds cases such as
 *
 *     case slice8-example-3
 *     spec --op Slice --start 1 --stop 8 --step 2 --axes 0
 *     input i32 [10] iota
 *     output [4] 1 3 5 7
 *
 * `spec` takes command-line SPEC words ('' is the empty word, '...' quotes).
 * `input DTYPE [SHAPE] iota|VALUES|shape-only`: iota numbers the elements
 * 0, 1, 2, ...; shape-only plans without running (for huge shapes).
 * `output [SHAPE] [VALUES]`: the expected shape and, if given, values
 * (numbers converted to the type, or 0x... raw bit patterns).
 * `error KIND TEXT`: the spec or plan must fail with status KIND (usage,
 * spec, slice) and a message containing TEXT.
 *
 * Every case runs on every engine against the same expected output, and
 * its spec printed by sg_spec_print must make the same plan again. With
 * `--cli PATH` every case also runs through the slicegen program: errors
 * must exit 2 with the same message on one line and leave no output file.
 * With `--aot-runner tests/support/aot_runner.c` every case also runs as an
 * ahead-of-time object (aot_batch.h), for the host or, with --aot-target,
 * --aot-cc and --aot-exec, for another architecture; `--only-aot` then
 * leaves out the JIT and the command line. With `--gpu` every case also
 * runs as a GPU kernel emulated on the host (gpu_engine.h), and every
 * case's kernel, shape-only ones included, goes into one PTX file that
 * ptxas must accept; with `--symbolize` too, the symbolized kernels
 * instead (gpu_values: emulated on the prepared call, and into the PTX).
 * With `--symbolize` every case that has numbers (a program's when it
 * chains indices, np.flip, np.roll and np.pad, or concatenates such
 * chains) runs symbolized (symbolize.h: each number a
 * runtime value, each dimension `?`) instead of on the JIT and the command
 * line: compiled once, prepared with its numbers and shape, run on 1 and
 * 3 threads, and with an AOT runner as a call of the AOT object (for the
 * host or another target).
 * With `--device cuda` every case runs on CUDA device 0 instead of the JIT
 * (the reference interpreter still makes the expectation): the output
 * buffer on the device has 64 canary bytes before and after it, which must
 * stay as they were. Without a usable driver or device it prints
 * `corpus: skipped: no CUDA device (...)` and exits 77.
 * Usage: test_corpus [--cli PATH] [--aot-... VALUE] [--only-aot] [--gpu] [--symbolize] [--device cuda] FILE...
 * Prints `corpus: N passed, M failed`. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../runtime/runtime.h"
#include "../support/aot_batch.h"
#include "../support/gpu_engine.h"
#include "symbolize.h"

#define MAX_WORDS 64

typedef struct test_case {
    char name[128];
    const char *file;
    int line;
    int nspec;
    char *spec[MAX_WORDS];
    sg_dtype dtype;
    size_t in_rank, out_rank;
    int64_t in_shape[SG_MAX_RANK + 8], out_shape[SG_MAX_RANK + 8]; /* room for too-large ranks */
    bool iota, shape_only, has_output, has_values;
    char *in_values, *out_values;  /* whitespace-separated scalars */
    const char *error_kind;
    char *error_text;
} test_case;

static int passed, failed;
static const char *cli_path;  /* --cli: the slicegen program */
static aot_config aot;        /* --aot-...: the AOT engine, when aot.runner is set */
static aot_batch *batch;      /* the cases it runs, once all files are read */
static bool only_aot;         /* --only-aot: the reference and AOT engines only */
static gpu_engine *gpu;       /* --gpu: the GPU engine */
static bool on_cuda;          /* --device cuda: the reference and CUDA device 0 only */
static bool symbolic;         /* --symbolize: the reference and the symbolized spec's kernel only */
static int symbolized_count;  /* cases run symbolized */
static int symbolized_refused; /* chains the planner refuses with runtime values (symbolize.h) */
static int symbolized_not_gpu; /* concatenates, whose GPU kernels of runtime values are refused (not yet) */
static char work_dir[] = "/tmp/slicegen-corpus-XXXXXX";

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail_case(const test_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s (%s:%d): ", c->name, c->file, c->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failed++;
}

/* Splits s in place into words; '...' quotes (possibly empty). */
static int split_words(char *s, char **words, int max)
{
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || n == max)
            break;
        if (*s == '\'') {
            char *end = strchr(s + 1, '\'');
            if (!end)
                return -1;
            *end = '\0';
            words[n++] = s + 1;
            s = end + 1;
            continue;
        }
        words[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
    return n;
}

/* "[2,3,4]" -> shape; returns the rest of the text after ']' or NULL. */
static char *parse_shape(char *s, int64_t *shape, size_t *rank)
{
    while (*s == ' ')
        s++;
    if (*s != '[')
        return NULL;
    char *end = strchr(s, ']');
    if (!end)
        return NULL;
    *end = '\0';
    *rank = 0;
    for (char *p = s + 1; *p;) {
        char *next;
        if (*rank == SG_MAX_RANK + 8)
            return NULL;
        shape[(*rank)++] = strtoll(p, &next, 10);
        if (next == p)
            return NULL;
        p = *next == ',' ? next + 1 : next;
    }
    return end + 1;
}

/* Writes `count` elements of dtype from whitespace-separated scalars. */
static bool fill_values(const test_case *c, const char *text, sg_dtype dtype, int64_t count,
                        uint8_t *out)
{
    size_t elem = sg_dtype_size(dtype);
    char *copy = strdup(text), *save = NULL;
    int64_t k = 0;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save), k++) {
        uint8_t bytes[8];
        sg_error err = {0};
        sg_scalar v;
        if (k == count)
            break;
        if (strncmp(w, "0x", 2) == 0) {
            uint64_t bits = strtoull(w + 2, NULL, 16);
            memcpy(bytes, &bits, 8);
        } else if (sg_scalar_from_text(w, &v, &err) != SG_OK ||
                   sg_scalar_to_bytes(&v, dtype, bytes, &err) != SG_OK) {
            fail_case(c, "bad value '%s': %s", w, err.message);
            free(copy);
            return false;
        }
        memcpy(out + k * (int64_t)elem, bytes, elem);
    }
    free(copy);
    if (k != count) {
        fail_case(c, "%lld values given, %lld expected", (long long)k, (long long)count);
        return false;
    }
    return true;
}

static void make_iota(sg_dtype dtype, int64_t count, uint8_t *out)
{
    size_t elem = sg_dtype_size(dtype);
    for (int64_t k = 0; k < count; k++) {
        sg_scalar v = {.kind = SG_SCALAR_INT, .i = dtype == SG_BOOL ? k % 2 : k};
        uint8_t bytes[8];
        if (dtype >= SG_F16 || dtype == SG_BOOL) {
            sg_scalar_to_bytes(&v, dtype, bytes, NULL);
        } else {
            uint64_t bits = (uint64_t)k; /* integers wrap */
            memcpy(bytes, &bits, 8);
        }
        memcpy(out + k * (int64_t)elem, bytes, elem);
    }
}

/* ---- engines ---------------------------------------------------------------- */

typedef struct engine {
    const char *name;
    int opt_level; /* -1: the reference interpreter */
    int threads;
} engine;

static const engine engines[] = {
    {"ref", -1, 1},
    {"jit -O0", 0, 1},
    {"jit -O2", SG_DEFAULT_OPT_LEVEL, 1},
    {"jit -O3 with 3 threads", 3, 3},
};

static sg_status run_engine(sg_context *ctx, const engine *e, const sg_plan *plan, const void *in,
                            void *out)
{
    if (e->opt_level < 0)
        return sg_run_reference(ctx, plan, in, out);
    sg_kernel *kernel = NULL;
    sg_status st = sg_kernel_compile(ctx, plan, e->opt_level, &kernel);
    if (st == SG_OK)
        st = sg_kernel_run(ctx, kernel, in, out, e->threads);
    sg_kernel_release(kernel);
    return st;
}

static int64_t product(const int64_t *shape, size_t rank)
{
    int64_t n = 1;
    for (size_t i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* ---- CUDA device 0 ---------------------------------------------------------- */

enum { CANARY = 64 };

static uint8_t canary(uint64_t i)
{
    return (uint8_t)(0xc3 ^ (i * 29));
}

/* The case on the GPU: the output goes CANARY bytes into a device buffer
 * CANARY bytes longer than it at both ends, filled with canary() first. */
static void run_cuda(sg_context *ctx, const test_case *c, const sg_plan *plan, const uint8_t *in,
                     const uint8_t *expected)
{
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    uint64_t room = out_bytes + 2 * CANARY, din = 0, dout = 0;
    sg_cuda_kernel *kernel = NULL;
    sg_error err = {0};
    uint8_t *host = malloc(room);
    for (uint64_t i = 0; i < room; i++)
        host[i] = canary(i);
    if (sg_cuda_kernel_compile(ctx, plan, 0, &kernel) != SG_OK) {
        fail_case(c, "cuda: %s", sg_context_last_error(ctx));
        goto done;
    }
    if (sg_cuda_alloc(ctx, 0, in_bytes, &din, &err) != SG_OK || sg_cuda_alloc(ctx, 0, room, &dout, &err) != SG_OK ||
        sg_cuda_copy_to_device(ctx, 0, din, in, in_bytes, &err) != SG_OK ||
        sg_cuda_copy_to_device(ctx, 0, dout, host, room, &err) != SG_OK) {
        fail_case(c, "cuda: %s", err.message);
        goto done;
    }
    if (sg_cuda_kernel_launch(ctx, kernel, din, dout + CANARY, NULL) != SG_OK) {
        fail_case(c, "cuda: %s", sg_context_last_error(ctx));
        goto done;
    }
    if (sg_cuda_synchronize(ctx, 0, NULL, &err) != SG_OK ||
        sg_cuda_copy_to_host(ctx, 0, host, dout, room, &err) != SG_OK) {
        fail_case(c, "cuda: %s", err.message);
        goto done;
    }
    for (uint64_t i = 0; i < room; i++) {
        bool in_output = i >= CANARY && i < CANARY + out_bytes;
        if (!in_output && host[i] != canary(i)) {
            fail_case(c, "cuda: the kernel wrote %s the output (byte %lld)", i < CANARY ? "before" : "after",
                      i < CANARY ? (long long)i - CANARY : (long long)(i - CANARY - out_bytes));
            goto done;
        }
        if (in_output && host[i] != expected[i - CANARY]) {
            fail_case(c, "cuda: output differs first at byte %llu (element %llu)",
                      (unsigned long long)(i - CANARY),
                      (unsigned long long)((i - CANARY) / sg_dtype_size(c->dtype)));
            goto done;
        }
    }
    passed++;
done:
    sg_cuda_free(ctx, 0, dout);
    sg_cuda_free(ctx, 0, din);
    sg_cuda_kernel_release(kernel);
    free(host);
}

/* ---- the command line as one more engine -------------------------------- */

/* Runs argv with stdout discarded and stderr in `err_path`; the exit status. */
static int run_program(char *const *argv, const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
        dup2(err, 2);
        dup2(null, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The case through the program: `plan` for shape-only inputs, else `run`. */
static void run_cli(sg_context *ctx, const test_case *c, const uint8_t *in, uint64_t in_bytes,
                    const sg_plan *plan, const uint8_t *expected)
{
    char in_path[64], out_path[64], err_path[64], shape[SG_MAX_RANK * 21 + 1] = "";
    char *argv[MAX_WORDS + 10];
    int n = 0;
    snprintf(in_path, sizeof in_path, "%s/in.npy", work_dir);
    snprintf(out_path, sizeof out_path, "%s/out.npy", work_dir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", work_dir);
    for (size_t i = 0, len = 0; i < c->in_rank; i++)
        len += (size_t)snprintf(shape + len, sizeof shape - len, "%s%lld", i ? "," : "", (long long)c->in_shape[i]);
    argv[n++] = (char *)cli_path;
    argv[n++] = c->shape_only ? "plan" : "run";
    for (int i = 0; i < c->nspec; i++)
        argv[n++] = c->spec[i];
    if (c->shape_only) {
        argv[n++] = "--shape", argv[n++] = shape;
        argv[n++] = "--dtype", argv[n++] = (char *)sg_dtype_name(c->dtype);
    } else {
        sg_tensor t = {.dtype = c->dtype, .rank = c->in_rank, .data = (void *)in, .bytes = in_bytes};
        memcpy(t.shape, c->in_shape, c->in_rank * sizeof *t.shape);
        if (sg_npy_write(ctx, in_path, &t) != SG_OK) {
            fail_case(c, "cli: cannot write the input: %s", sg_context_last_error(ctx));
            return;
        }
        argv[n++] = "--in", argv[n++] = in_path;
        argv[n++] = "--out", argv[n++] = out_path;
    }
    argv[n] = NULL;
    unlink(out_path);
    int status = run_program(argv, err_path);
    char message[1024] = "";
    FILE *f = fopen(err_path, "r");
    int lines = 0;
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f))
            if (lines++ == 0)
                snprintf(message, sizeof message, "%s", line);
        fclose(f);
    }
    bool out_exists = access(out_path, F_OK) == 0;
    if (c->error_kind) {
        if (status != 2 || lines != 1 || strncmp(message, "slicegen: error: ", 17) != 0 ||
            strstr(message, c->error_text) == NULL || out_exists)
            fail_case(c, "cli: expected exit 2 and one line with '%s', no output; got exit %d, %d lines: %s%s",
                      c->error_text, status, lines, message, out_exists ? " (output file left behind)" : "");
        return;
    }
    if (status != 0) {
        fail_case(c, "cli: exit %d: %s", status, message);
        return;
    }
    if (c->shape_only)
        return;
    sg_tensor got = {0};
    if (sg_npy_read(ctx, out_path, &got) != SG_OK) {
        fail_case(c, "cli: %s", sg_context_last_error(ctx));
        return;
    }
    bool same = got.dtype == c->dtype && got.rank == sg_plan_output_rank(plan) &&
                got.bytes == sg_plan_output_bytes(plan) &&
                memcmp(got.shape, sg_plan_output_shape(plan), got.rank * sizeof *got.shape) == 0 &&
                memcmp(got.data, expected, got.bytes) == 0;
    if (!same)
        fail_case(c, "cli: the output file differs from the expected output");
    sg_tensor_release(&got);
}

/* The spec as sg_spec_print writes it must make the same plan again. */
static bool printed_spec_plans_alike(sg_context *ctx, const test_case *c, const sg_spec *spec,
                                     const sg_plan *plan)
{
    char *text = NULL, *words[2 * MAX_WORDS];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return false;
    sg_spec_print(spec, f);
    fclose(f);
    char *copy = strdup(text);
    bool expression = strncmp(text, "--", 2) != 0; /* an index expression or a program: one word */
    int n = expression ? 1 : split_words(copy, words, 2 * MAX_WORDS);
    if (expression)
        words[0] = copy;
    sg_spec *again = NULL;
    sg_plan *replan = NULL;
    bool same = n >= 0 && sg_spec_from_words(ctx, n, words, &again) == SG_OK &&
                sg_plan_create(ctx, again, c->in_rank, c->in_shape, c->dtype, &replan) == SG_OK &&
                sg_plan_equal(plan, replan);
    if (!same)
        fail_case(c, "the printed spec '%s' does not make the same plan", text);
    sg_plan_destroy(replan);
    sg_spec_destroy(again);
    free(copy);
    free(text);
    return same;
}

/* The case symbolized (symbolize.h): its kernel, prepared with the case's
 * numbers and input shape, must write `expected`; with an AOT batch the
 * call goes there too. True when it ran (or was added to the batch). */
static bool run_symbolized(sg_context *ctx, const test_case *c, const sg_spec *given, const uint8_t *in,
                           uint64_t in_bytes, const uint8_t *expected, uint64_t out_bytes)
{
    symbolized s;
    const char *why;
    if (!symbolizable(given)) /* programs but chains take no runtime values */
        return false;
    if (!symbolize(ctx, c->nspec, c->spec, c->dtype, &s, &why) && c->in_rank == 0)
        return false; /* nothing to make a runtime value of */
    int64_t unknown[SG_MAX_RANK];
    for (size_t i = 0; i < c->in_rank; i++)
        unknown[i] = -1;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    uint8_t *out = malloc(out_bytes + 1);
    bool ran = false;
    int nwords = s.nwords ? s.nwords : c->nspec; /* no numbers: the dimensions alone */
    char *const *words = s.nwords ? s.words : c->spec;
    sg_args args;
    sg_status st = SG_OK;
    if (out == NULL || sg_spec_from_words(ctx, nwords, words, &spec) != SG_OK ||
        (st = sg_plan_create(ctx, spec, c->in_rank, unknown, c->dtype, &plan)) != SG_OK) {
        if (st == SG_ERR_USAGE && given->op == SG_OP_PROGRAM) /* a form a chain lacks yet: refused, counted */
            symbolized_refused++;
        else
            fail_case(c, "symbolized: %s", sg_context_last_error(ctx));
        goto done;
    }
    if (sg_plan_value_count(plan) != s.nvalues) {
        fail_case(c, "symbolized: %zu values, the plan has %zu", s.nvalues, sg_plan_value_count(plan));
        goto done;
    }
    ran = true;
    symbolized_count++;
    if (!only_aot) {
        if (sg_kernel_compile_with(ctx, plan, NULL, &kernel) != SG_OK ||
            sg_kernel_prepare(ctx, kernel, c->in_shape, s.values, &args) != SG_OK) {
            fail_case(c, "symbolized: %s", sg_context_last_error(ctx));
            goto done;
        }
        bool same = (size_t)args.out_rank == c->out_rank || !c->has_output;
        for (size_t i = 0; same && c->has_output && i < c->out_rank; i++)
            same = args.out_shape[i] == c->out_shape[i];
        if (!same || (uint64_t)args.output_bytes != out_bytes) {
            fail_case(c, "symbolized: the prepared call's output shape differs");
            goto done;
        }
        for (int threads = 1; threads <= 3; threads += 2) {
            memset(out, 0xA5, out_bytes);
            if (sg_kernel_run_args(ctx, kernel, in, out, &args, threads) != SG_OK) {
                fail_case(c, "symbolized: %s", sg_context_last_error(ctx));
                goto done;
            }
            if (memcmp(out, expected, out_bytes) != 0) {
                fail_case(c, "symbolized on %d thread%s: the output differs", threads, threads > 1 ? "s" : "");
                goto done;
            }
        }
    }
    if (gpu && plan->op == SG_OP_PROGRAM) { /* a concatenate: refused on GPUs yet, saying so */
        const char *why = NULL;
        gpu_values *k = gpu_values_compile(gpu, plan, SG_DEFAULT_OPT_LEVEL, &why);
        if (k != NULL || why == NULL || strstr(why, "not supported on GPUs yet") == NULL)
            fail_case(c, "symbolized, engine gpu: a concatenate's kernel: %s", why ? why : "compiled");
        gpu_values_destroy(gpu, k);
        symbolized_not_gpu++;
    } else if (gpu) { /* the GPU kernel of the symbolized plan, on the same call */
        enum { GUARD = 64 };
        const char *what = NULL;
        long at = -1;
        uint64_t cuts[4] = {(uint64_t)c->line, (uint64_t)c->line * 7919u, (uint64_t)c->line * 104729u, 1};
        uint8_t *want = malloc(out_bytes + 2 * GUARD);
        gpu_values *k = NULL;
        sg_args call;
        if (want == NULL)
            what = "out of memory";
        else if (sg_plan_prepare(plan, c->in_shape, s.values, (int64_t *)&call, &(int){0}, &(sg_error){0}) !=
                 SG_OK)
            what = "the planner refuses the call";
        else if ((k = gpu_values_compile(gpu, plan, SG_DEFAULT_OPT_LEVEL, &what)) != NULL) {
            memset(want, 0xA5, out_bytes + 2 * GUARD);
            memcpy(want + GUARD, expected, out_bytes);
            what = gpu_values_check(gpu, k, in, &call, want, GUARD, cuts, &at);
        }
        gpu_values_destroy(gpu, k);
        free(want);
        gpu_engine_keep(gpu, plan);
        if (what) {
            fail_case(c, "symbolized, engine gpu: %s (byte %ld)", what, at);
            goto done;
        }
    }
    if (batch) { /* judged when the batch runs */
        char label[256];
        snprintf(label, sizeof label, "%s, symbolized (%s:%d)", c->name, c->file, c->line);
        aot_batch_add_call(batch, label, plan, c->in_shape, s.values, 0, in, in_bytes, expected, out_bytes);
        plan = NULL;
    } else {
        passed++;
    }
done:
    sg_kernel_release(kernel);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    free(out);
    symbolized_free(&s);
    return ran;
}

static void run_case(sg_context *ctx, test_case *c)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    uint8_t *in = NULL, *expected = NULL, *out = NULL;
    sg_status st = sg_spec_from_words(ctx, c->nspec, c->spec, &spec);
    if (st == SG_OK)
        st = sg_plan_create(ctx, spec, c->in_rank, c->in_shape, c->dtype, &plan);
    if (c->error_kind) {
        sg_error keep = {.status = st}; /* the API's message, kept across the CLI run */
        snprintf(keep.message, sizeof keep.message, "%s", sg_context_last_error(ctx));
        const char *msg = keep.message;
        int failures = failed;
        if (cli_path) {
            int64_t count = c->shape_only ? 0 : product(c->in_shape, c->in_rank);
            size_t bytes = (size_t)count * sg_dtype_size(c->dtype);
            in = calloc(1, bytes + 1);
            if (c->iota)
                make_iota(c->dtype, count, in);
            else if (!c->shape_only && !fill_values(c, c->in_values ? c->in_values : "", c->dtype, count, in))
                goto done;
            run_cli(ctx, c, in, bytes, NULL, NULL);
            if (failed != failures)
                goto done;
        }
        if (st == SG_OK)
            fail_case(c, "expected a %s error containing '%s', got success", c->error_kind, c->error_text);
        else if (strcmp(sg_status_name(st), c->error_kind) != 0 || strstr(msg, c->error_text) == NULL)
            fail_case(c, "expected a %s error containing '%s', got %s: %s", c->error_kind, c->error_text,
                      sg_status_name(st), msg);
        else
            passed++;
        goto done;
    }
    if (st != SG_OK) {
        fail_case(c, "unexpected failure: %s", sg_context_last_error(ctx));
        goto done;
    }
    if (!printed_spec_plans_alike(ctx, c, spec, plan))
        goto done;
    if (c->has_output) {
        bool same = sg_plan_output_rank(plan) == c->out_rank;
        for (size_t i = 0; same && i < c->out_rank; i++)
            same = sg_plan_output_shape(plan)[i] == c->out_shape[i];
        if (!same) {
            fprintf(stderr, "got shape [");
            for (size_t i = 0; i < sg_plan_output_rank(plan); i++)
                fprintf(stderr, "%s%lld", i ? "," : "", (long long)sg_plan_output_shape(plan)[i]);
            fprintf(stderr, "]\n");
            fail_case(c, "output shape differs");
            goto done;
        }
    }
    if (gpu && !symbolic)
        gpu_engine_keep(gpu, plan);
    if (c->shape_only) {
        if (cli_path)
            run_cli(ctx, c, NULL, 0, plan, NULL);
        passed++;
        goto done;
    }
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    int64_t in_count = product(c->in_shape, c->in_rank);
    in = calloc(1, in_bytes + 1);
    out = calloc(1, out_bytes + 1);
    expected = calloc(1, out_bytes + 1);
    if (c->iota)
        make_iota(c->dtype, in_count, in);
    else if (!fill_values(c, c->in_values ? c->in_values : "", c->dtype, in_count, in))
        goto done;
    if (c->has_values && !fill_values(c, c->out_values, c->dtype,
                                      (int64_t)(out_bytes / sg_dtype_size(c->dtype)), expected))
        goto done;
    for (size_t e = 0; e < (only_aot || on_cuda || symbolic ? 1 : sizeof engines / sizeof engines[0]); e++) {
        memset(out, 0xA5, out_bytes);
        if ((st = run_engine(ctx, &engines[e], plan, in, out)) != SG_OK) {
            fail_case(c, "engine %s failed: %s", engines[e].name, sg_context_last_error(ctx));
            goto done;
        }
        if (!c->has_values) { /* the reference result is the expectation */
            memcpy(expected, out, out_bytes);
            c->has_values = true;
        } else if (memcmp(out, expected, out_bytes) != 0) {
            for (uint64_t b = 0; b < out_bytes; b++) {
                if (out[b] != expected[b]) {
                    fail_case(c, "engine %s: output differs first at byte %llu (element %llu)",
                              engines[e].name, (unsigned long long)b,
                              (unsigned long long)(b / sg_dtype_size(c->dtype)));
                    break;
                }
            }
            goto done;
        }
    }
    if (gpu && !symbolic) {
        enum { GUARD = 64 };
        uint8_t *want = malloc(out_bytes + 2 * GUARD);
        uint64_t cuts[4] = {(uint64_t)c->line, (uint64_t)c->line * 7919u, (uint64_t)c->line * 104729u, 3};
        long at = -1;
        const char *what = want ? NULL : "out of memory";
        if (want) {
            memset(want, 0xA5, out_bytes + 2 * GUARD);
            memcpy(want + GUARD, expected, out_bytes);
            what = gpu_engine_check(gpu, plan, SG_DEFAULT_OPT_LEVEL, in, want, GUARD, cuts, &at);
        }
        free(want);
        if (what) {
            fail_case(c, "engine gpu: %s (byte %ld)", what, at);
            goto done;
        }
    }
    if (symbolic) { /* counts the case, or adds it to the batch */
        int failures = failed;
        if (!run_symbolized(ctx, c, spec, in, in_bytes, expected, out_bytes) && failed == failures)
            passed++; /* nothing to symbolize: the reference's result stands */
        goto done;
    }
    if (cli_path && !only_aot) {
        int failures = failed;
        run_cli(ctx, c, in, in_bytes, plan, expected);
        if (failed != failures)
            goto done;
    }
    if (on_cuda) { /* counts the case */
        run_cuda(ctx, c, plan, in, expected);
        goto done;
    }
    if (batch) { /* judged when the batch runs */
        char label[256];
        snprintf(label, sizeof label, "%s (%s:%d)", c->name, c->file, c->line);
        aot_batch_add(batch, label, plan, in, expected);
        plan = NULL;
        goto done;
    }
    passed++;
done:
    free(in);
    free(out);
    free(expected);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
}

/* ---- the corpus file -------------------------------------------------------- */

static void run_file(sg_context *ctx, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "FAIL cannot open %s\n", path);
        failed++;
        return;
    }
    char *lines[4096];
    int nlines = 0;
    char buf[8192];
    while (nlines < 4096 && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        lines[nlines++] = strdup(buf);
    }
    fclose(f);
    test_case c;
    bool open = false;
    for (int i = 0; i <= nlines; i++) {
        char *l = i < nlines ? lines[i] : NULL;
        while (l && (*l == ' ' || *l == '\t'))
            l++;
        if (l && (*l == '\0' || *l == '#'))
            continue;
        if ((l == NULL || strncmp(l, "case ", 5) == 0) && open) {
            run_case(ctx, &c);
            open = false;
        }
        if (l == NULL)
            break;
        char *rest = strchr(l, ' ');
        rest = rest ? rest + 1 : l + strlen(l);
        if (strncmp(l, "case ", 5) == 0) {
            memset(&c, 0, sizeof c);
            snprintf(c.name, sizeof c.name, "%s", rest);
            c.file = path;
            c.line = i + 1;
            open = true;
        } else if (!open) {
            fprintf(stderr, "FAIL %s:%d: text before the first case\n", path, i + 1);
            failed++;
        } else if (strncmp(l, "spec ", 5) == 0 || strcmp(l, "spec") == 0) {
            c.nspec = split_words(rest, c.spec, MAX_WORDS);
        } else if (strncmp(l, "input ", 6) == 0) {
            char *sp = strchr(rest, ' ');
            if (sp)
                *sp = '\0';
            char *values = sp ? parse_shape(sp + 1, c.in_shape, &c.in_rank) : NULL;
            if (!sg_dtype_parse(rest, &c.dtype) || values == NULL) {
                fprintf(stderr, "FAIL %s:%d: bad input line\n", path, i + 1);
                failed++;
                open = false;
                continue;
            }
            while (*values == ' ')
                values++;
            c.iota = strcmp(values, "iota") == 0;
            c.shape_only = strcmp(values, "shape-only") == 0;
            c.in_values = values;
        } else if (strncmp(l, "output ", 7) == 0) {
            char *values = parse_shape(rest, c.out_shape, &c.out_rank);
            if (values == NULL) {
                fprintf(stderr, "FAIL %s:%d: bad output line\n", path, i + 1);
                failed++;
                open = false;
                continue;
            }
            c.has_output = true;
            c.out_values = values;
            c.has_values = strspn(values, " ") != strlen(values);
        } else if (strncmp(l, "error ", 6) == 0) {
            char *sp = strchr(rest, ' ');
            c.error_kind = rest;
            c.error_text = sp ? sp + 1 : "";
            if (sp)
                *sp = '\0';
        } else {
            fprintf(stderr, "FAIL %s:%d: unknown line '%s'\n", path, i + 1, l);
            failed++;
        }
    }
    for (int i = 0; i < nlines; i++)
        free(lines[i]);
}

int main(int argc, char **argv)
{
    sg_context *ctx;
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    aot.opt_level = SG_DEFAULT_OPT_LEVEL;
    int first = 1; /* argv[1..first) become the corpus files */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc) {
            cli_path = argv[++i];
        } else if (strcmp(argv[i], "--only-aot") == 0) {
            only_aot = true;
        } else if (strcmp(argv[i], "--symbolize") == 0) {
            symbolic = true;
        } else if (strcmp(argv[i], "--gpu") == 0) {
            if (gpu == NULL && (gpu = gpu_engine_create(ctx, 1L << 20)) == NULL)
                return 1;
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc && strcmp(argv[i + 1], "cuda") == 0) {
            on_cuda = true;
            i++;
        } else if (!aot_config_option(&aot, argc, argv, &i)) {
            argv[first++] = argv[i]; /* a corpus file */
        }
    }
    if (on_cuda) {
        int devices = 0;
        sg_cuda_device_info info;
        sg_error err = {0};
        if (sg_cuda_device_count(ctx, &devices) != SG_OK || devices == 0) {
            printf("corpus: skipped: no CUDA device (%s)\n",
                   devices == 0 && sg_context_last_error(ctx)[0] == '\0' ? "the driver lists none"
                                                                          : sg_context_last_error(ctx));
            sg_context_destroy(ctx);
            return 77;
        }
        if (sg_cuda_device_describe(0, &info, &err) != SG_OK) {
            printf("corpus: FAIL %s\n", err.message);
            sg_context_destroy(ctx);
            return 1;
        }
        printf("corpus: on CUDA device 0, %s (compute capability %d.%d, %s)\n", info.name, info.major, info.minor,
               info.cpu ? info.cpu : "too old");
    }
    if (cli_path && mkdtemp(work_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    if (aot.runner)
        batch = aot_batch_create();
    for (int i = 1; i < first; i++)
        run_file(ctx, argv[i]);
    if (batch) {
        printf("corpus: %zu cases as one AOT object for %s\n", aot_batch_size(batch),
               aot.target ? aot.target : "the host");
        aot_batch_run(batch, ctx, &aot, &passed, &failed);
        aot_batch_destroy(batch);
    }
    if (gpu) {
        failed += gpu_engine_check_ptx(gpu);
        gpu_engine_destroy(gpu);
    }
    if (cli_path) {
        char path[64];
        const char *names[] = {"in.npy", "out.npy", "stderr.txt"};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", work_dir, names[i]);
            unlink(path);
        }
        rmdir(work_dir);
    }
    sg_context_destroy(ctx);
    if (symbolic)
        printf("corpus: %d cases symbolized (%d chains refused with runtime values; %d concatenates, whose "
               "GPU kernels are refused yet, on the CPU only)\n",
               symbolized_count, symbolized_refused, symbolized_not_gpu);
    printf("corpus: %d passed, %d failed\n", passed, failed);
    return failed != 0 || passed == 0;
}

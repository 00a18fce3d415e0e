/*
 * ONNX models against ONNX Runtime, byte for byte.
 *
 *     test_onnx [--cli SLICEGEN] [--aot-runner FILE [--aot-target T] [--aot-cc CC]
 *               [--aot-exec WORDS]] [--only-aot] CASEDIR
 *
 * CASEDIR is what tests/onnx/setup.sh leaves (the fixture onnx-ort-setup):
 * random one-node models mNNNNN.onnx (Slice, Pad, Split, Gather), their
 * inputs mNNNNN.in.npy, ONNX Runtime's outputs mNNNNN.out<k>.npy and
 * results.txt, one line per model (tests/onnx/ort_run.js). For each model:
 * sg_model_read, which must list one layer per output of the node, in
 * output order. Where ONNX Runtime ran the model, each layer's data input
 * is the model's input (rank, shape, element type), its spec plans to the
 * output ONNX Runtime gave (shape and bytes), and the reference
 * interpreter and the JIT kernel (-O0 and the default level in turn, 1 or
 * 3 threads, 64 guard bytes around the output) write exactly ONNX
 * Runtime's bytes; a string model's layer is skipped with a reason. Where
 * ONNX Runtime refused it, slicegen must refuse every layer: the read, a
 * skip, the plan or the run fails.
 *
 * A subset also goes through `slicegen run SPEC_TEXT --in --out` (--cli;
 * exit 0 and ONNX Runtime's output, or exit 2, one line and no output
 * file) and, with --aot-runner, as one ahead-of-time object (aot_batch.h;
 * --aot-target and friends for another architecture under qemu-user);
 * --only-aot runs the object alone. SLICEGEN_ONNX_CLI (default 150) and
 * SLICEGEN_ONNX_AOT (default 300) set the subsets' sizes.
 *
 * Prints the generator's seed (SLICEGEN_SEED reproduces the models), one
 * line per failure with the seed, the model file, its node and the bytes,
 * the counts per operator, opset and element type, and last "onnx-ort: N
 * passed, M failed". Exit 77 (skipped) when SLICEGEN_SKIP_ONNX is set.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/aot_batch.h"
#include "../support/check.h"
#include "slicegen.h"

enum { GUARD = 64, MAX_FAILURES = 40, MAX_WORDS = 64, OPS = 4, OPSETS = 20 };

static const char *const op_names[OPS] = {"Slice", "Pad", "Split", "Gather"};

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
    const char *dir, *cli;
    char seed[32], work[64];
    aot_config aot;
    aot_batch *batch;
    bool only_aot;
    long cli_every, aot_every, aot_max, cli_runs;
    /* compared layers and refused models per operator, opset and element type */
    long compared[OPS][OPSETS][SG_DTYPE_COUNT + 1], refused[OPS][OPSETS][SG_DTYPE_COUNT + 1];
    long refused_by[4]; /* the read, a skip, the plan, the run */
    long skipped_strings;
} suite;

/* One line of results.txt. */
typedef struct model_case {
    char name[16], op[16], dtype[16];
    int opset, outputs, op_index, dtype_index; /* dtype_index SG_DTYPE_COUNT: string */
    bool ort_ok;
    const char *desc, *message;
    char path[512];
    long index;
} model_case;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
fail(suite *s, const model_case *m, int layer, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    CHECK(s, 0, "FAIL seed %s model %s layer %d (%s-%d %s: %s; ONNX Runtime: %s): %s", s->seed, m->path,
          layer, m->op, m->opset, m->dtype, m->desc, m->ort_ok ? "ran it" : m->message, text);
}

static void pass(suite *s)
{
    CHECK(s, 1, "%s", "passed");
}

/* "at byte N: expected 0x.., got 0x.." or "" when a and b are equal. */
static bool same_bytes(const void *want, const void *got, size_t n, char *why, size_t cap)
{
    long at = first_difference(want, got, n);
    if (at >= 0)
        snprintf(why, cap, "differs first at byte %ld of %zu: expected 0x%02x, got 0x%02x", at, n,
                 ((const unsigned char *)want)[at], ((const unsigned char *)got)[at]);
    return at < 0;
}

static void path_of(char *out, size_t cap, const suite *s, const model_case *m, const char *suffix)
{
    snprintf(out, cap, "%s/%s%s", s->dir, m->name, suffix);
}

/* ---- the command line ---------------------------------------------------------------- */

/* spec_text split into the command's words: an `--op` spec at spaces ('' is an empty word),
 * an expression as one word. */
static int spec_words(char *text, char **words)
{
    int n = 0;
    if (strncmp(text, "--op", 4) != 0) {
        words[n++] = text;
        return n;
    }
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w && n < MAX_WORDS;
         w = strtok_r(NULL, " ", &save))
        words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
    return n;
}

/* `slicegen run` on the layer: exit 0 and want (its shape and bytes), or, want NULL, exit 2 with
 * one line and no output file. */
static void run_cli(suite *s, const model_case *m, int layer, const char *spec_text, const sg_tensor *want)
{
    char in[600], out[128], err[128], *text = strdup(spec_text), *argv[MAX_WORDS + 8];
    path_of(in, sizeof in, s, m, ".in.npy");
    snprintf(out, sizeof out, "%s/out.npy", s->work);
    snprintf(err, sizeof err, "%s/stderr.txt", s->work);
    int n = 0;
    argv[n++] = (char *)s->cli, argv[n++] = "run";
    n += spec_words(text, argv + n);
    argv[n++] = "--in", argv[n++] = in, argv[n++] = "--out", argv[n++] = out, argv[n] = NULL;
    unlink(out);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
        dup2(e, 2), dup2(null, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = -1, lines = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid)
        status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    char message[1024] = "", line[1024];
    FILE *f = fopen(err, "r");
    while (f && fgets(line, sizeof line, f))
        if (lines++ == 0)
            snprintf(message, sizeof message, "%s", line);
    if (f)
        fclose(f);
    message[strcspn(message, "\n")] = 0;
    s->cli_runs++;
    sg_tensor got = {0};
    char why[160] = "";
    if (want == NULL) {
        if (status != 2 || lines != 1 || access(out, F_OK) == 0)
            fail(s, m, layer, "slicegen run: expected exit 2, one line, no output; got exit %d, %d lines: %s",
                 status, lines, message);
        else
            pass(s);
    } else if (status != 0) {
        fail(s, m, layer, "slicegen run: exit %d: %s", status, message);
    } else if (sg_npy_read(s->ctx, out, &got) != SG_OK) {
        fail(s, m, layer, "slicegen run: %s", sg_context_last_error(s->ctx));
    } else if (got.dtype != want->dtype || got.rank != want->rank ||
               memcmp(got.shape, want->shape, want->rank * sizeof *want->shape) != 0 ||
               got.bytes != want->bytes) {
        fail(s, m, layer, "slicegen run: the output's type or shape differs from ONNX Runtime's");
    } else {
        if (!same_bytes(want->data, got.data, want->bytes, why, sizeof why))
            fail(s, m, layer, "slicegen run: output %s", why);
        else
            pass(s);
    }
    sg_tensor_release(&got);
    free(text);
}

/* ---- one layer --------------------------------------------------------------------- */

/* The JIT kernel's output at -O0 or the default level on 1 or 3 threads, between guard bytes. */
static void run_jit(suite *s, const model_case *m, int layer, const sg_plan *plan, const sg_tensor *in,
                    const sg_tensor *want)
{
    int opt = m->index % 2 ? 0 : SG_DEFAULT_OPT_LEVEL, threads = m->index % 3 ? 1 : 3;
    sg_kernel *kernel = NULL;
    unsigned char *buf = malloc(want->bytes + 2 * GUARD);
    char why[160];
    if (buf == NULL) {
        fail(s, m, layer, "out of memory");
        return;
    }
    memset(buf, 0xA5, want->bytes + 2 * GUARD);
    if (sg_kernel_compile(s->ctx, plan, opt, &kernel) != SG_OK ||
        sg_kernel_run(s->ctx, kernel, in->data, buf + GUARD, threads) != SG_OK) {
        fail(s, m, layer, "jit -O%d: %s", opt, sg_context_last_error(s->ctx));
    } else if (!same_bytes(want->data, buf + GUARD, want->bytes, why, sizeof why)) {
        fail(s, m, layer, "jit -O%d, %d threads: output %s", opt, threads, why);
    } else {
        bool guards = true;
        for (size_t i = 0; i < GUARD; i++)
            guards &= buf[i] == 0xA5 && buf[GUARD + want->bytes + i] == 0xA5;
        if (!guards)
            fail(s, m, layer, "jit -O%d: the kernel wrote outside its output", opt);
        else
            pass(s);
    }
    sg_kernel_release(kernel);
    free(buf);
}

/* A layer of a model ONNX Runtime ran: its input, plan and every engine against output k. */
static void check_layer(suite *s, const model_case *m, int k, const sg_model_layer *layer,
                        const sg_tensor *in)
{
    char path[600], why[160];
    sg_tensor want = {0};
    sg_plan *plan = NULL;
    path_of(path, sizeof path, s, m, "");
    snprintf(path + strlen(path), sizeof path - strlen(path), ".out%d.npy", k);
    if (layer->spec == NULL) {
        fail(s, m, k, "skipped (%s) where ONNX Runtime ran it", layer->skip_reason);
        return;
    }
    if (sg_npy_read(s->ctx, path, &want) != SG_OK) {
        fail(s, m, k, "ONNX Runtime's output: %s", sg_context_last_error(s->ctx));
        return;
    }
    if (layer->dtype != in->dtype || layer->rank != in->rank ||
        memcmp(layer->shape, in->shape, in->rank * sizeof *in->shape) != 0) {
        fail(s, m, k, "the layer's data input (%s, rank %zu) is not the model's input (%s, rank %zu)",
             sg_dtype_name(layer->dtype), layer->rank, sg_dtype_name(in->dtype), in->rank);
    } else if (sg_plan_create(s->ctx, layer->spec, layer->rank, layer->shape, layer->dtype, &plan) != SG_OK) {
        fail(s, m, k, "refused (%s) where ONNX Runtime ran it", sg_context_last_error(s->ctx));
    } else if (sg_plan_output_rank(plan) != want.rank ||
               memcmp(sg_plan_output_shape(plan), want.shape, want.rank * sizeof *want.shape) != 0 ||
               sg_plan_output_bytes(plan) != want.bytes || sg_plan_is_symbolic(plan)) {
        char got[256] = "", exp[256] = "";
        for (size_t a = 0, g = 0, e = 0; a < SG_MAX_RANK; a++) {
            if (a < sg_plan_output_rank(plan))
                g += (size_t)snprintf(got + g, sizeof got - g, "%s%" PRId64, a ? "," : "",
                                      sg_plan_output_shape(plan)[a]);
            if (a < want.rank)
                e += (size_t)snprintf(exp + e, sizeof exp - e, "%s%" PRId64, a ? "," : "", want.shape[a]);
        }
        fail(s, m, k, "output shape [%s], ONNX Runtime's [%s] (spec %s)", got, exp, layer->spec_text);
    } else {
        s->compared[m->op_index][m->opset][m->dtype_index]++;
        if (!s->only_aot) {
            unsigned char *out = malloc(want.bytes + 1);
            if (out == NULL || sg_run_reference(s->ctx, plan, in->data, out) != SG_OK)
                fail(s, m, k, "reference: %s", out ? sg_context_last_error(s->ctx) : "out of memory");
            else if (!same_bytes(want.data, out, want.bytes, why, sizeof why))
                fail(s, m, k, "reference output %s (spec %s)", why, layer->spec_text);
            else
                pass(s);
            free(out);
            run_jit(s, m, k, plan, in, &want);
            if (s->cli && m->index % s->cli_every == 0)
                run_cli(s, m, k, layer->spec_text, &want);
        }
    }
    if (plan && s->batch && m->index % s->aot_every == 0 && (long)aot_batch_size(s->batch) < s->aot_max) {
        char label[700];
        snprintf(label, sizeof label, "seed %s %s layer %d (%s-%d %s)", s->seed, m->path, k, m->op, m->opset,
                 m->dtype);
        aot_batch_add(s->batch, label, plan, in->data, want.data);
        plan = NULL;
    }
    sg_plan_destroy(plan);
    sg_tensor_release(&want);
}

/* A layer of a model ONNX Runtime refused: 0 when slicegen ran it, else what refused it
 * (1 the skip, 2 the plan, 3 the run). */
static int refusal(suite *s, const model_case *m, int k, const sg_model_layer *layer, const sg_tensor *in)
{
    sg_plan *plan = NULL;
    if (layer->spec == NULL)
        return 1;
    if (sg_plan_create(s->ctx, layer->spec, layer->rank, layer->shape, layer->dtype, &plan) != SG_OK)
        return 2;
    unsigned char *out = malloc(sg_plan_output_bytes(plan) + 1);
    int by = out == NULL || sg_plan_input_bytes(plan) != in->bytes ||
                     sg_run_reference(s->ctx, plan, in->data, out) != SG_OK
                 ? 3
                 : 0;
    if (by == 0) {
        char shape[256] = "";
        for (size_t a = 0, n = 0; a < sg_plan_output_rank(plan); a++)
            n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%" PRId64, a ? "," : "",
                                  sg_plan_output_shape(plan)[a]);
        fail(s, m, k, "slicegen ran it (spec %s, output shape [%s]) where ONNX Runtime refused",
             layer->spec_text, shape);
    }
    free(out);
    sg_plan_destroy(plan);
    return by;
}

/* ---- one model ---------------------------------------------------------------------- */

static void check_model(suite *s, model_case *m)
{
    sg_model *model = NULL;
    sg_tensor in = {0};
    char in_path[600];
    path_of(in_path, sizeof in_path, s, m, ".in.npy");
    if (m->dtype_index < SG_DTYPE_COUNT && sg_npy_read(s->ctx, in_path, &in) != SG_OK) {
        fail(s, m, -1, "its input: %s", sg_context_last_error(s->ctx));
        return;
    }
    if (sg_model_read(s->ctx, m->path, NULL, &model) != SG_OK) {
        if (m->ort_ok)
            fail(s, m, -1, "sg_model_read refused a model ONNX Runtime ran: %s",
                 sg_context_last_error(s->ctx));
        else
            s->refused_by[0]++, s->refused[m->op_index][m->opset][m->dtype_index]++, pass(s);
        sg_tensor_release(&in);
        return;
    }
    size_t count = sg_model_layer_count(model);
    if (count != (size_t)m->outputs && (m->ort_ok || count == 0))
        fail(s, m, -1, "%zu layers for a node of %d outputs", count, m->outputs);
    int worst = 4; /* the weakest refusal of any layer */
    for (size_t k = 0; k < count; k++) {
        const sg_model_layer *layer = sg_model_layer_at(model, k);
        if (strcmp(layer->type, m->op) != 0) {
            fail(s, m, (int)k, "layer type %s", layer->type);
        } else if (m->dtype_index == SG_DTYPE_COUNT) { /* string: slicegen lacks the type */
            if (layer->spec != NULL)
                fail(s, m, (int)k, "a string layer not skipped (spec %s)", layer->spec_text);
            else
                s->skipped_strings++, pass(s);
        } else if (m->ort_ok) {
            check_layer(s, m, (int)k, layer, &in);
        } else {
            int by = refusal(s, m, (int)k, layer, &in);
            worst = by < worst ? by : worst;
            if (by && s->cli && !s->only_aot && m->index % s->cli_every == 0 && layer->spec)
                run_cli(s, m, (int)k, layer->spec_text, NULL);
        }
    }
    if (!m->ort_ok && m->dtype_index < SG_DTYPE_COUNT && count > 0 && worst > 0)
        s->refused_by[worst]++, s->refused[m->op_index][m->opset][m->dtype_index]++, pass(s);
    sg_model_destroy(model);
    sg_tensor_release(&in);
}

/* Parses "NAME OP OPSET DTYPE OUTPUTS ok|refused\tDESC[\tMESSAGE]" in place; false if malformed. */
static bool parse_line(suite *s, char *line, model_case *m)
{
    char verdict[16];
    line[strcspn(line, "\n")] = 0;
    char *tab = strchr(line, '\t');
    if (tab == NULL || sscanf(line, "%15s %15s %d %15s %d %15s", m->name, m->op, &m->opset, m->dtype,
                              &m->outputs, verdict) != 6)
        return false;
    *tab = 0;
    m->desc = tab + 1;
    char *tab2 = strchr(m->desc, '\t');
    if (tab2)
        *tab2 = 0;
    m->message = tab2 ? tab2 + 1 : "";
    m->ort_ok = strcmp(verdict, "ok") == 0;
    m->op_index = -1;
    for (int i = 0; i < OPS; i++)
        if (strcmp(op_names[i], m->op) == 0)
            m->op_index = i;
    sg_dtype dtype;
    m->dtype_index = strcmp(m->dtype, "string") == 0    ? SG_DTYPE_COUNT
                     : sg_dtype_parse(m->dtype, &dtype) ? (int)dtype
                                                        : -1;
    snprintf(m->path, sizeof m->path, "%s/%s.onnx", s->dir, m->name);
    return m->op_index >= 0 && m->dtype_index >= 0 && m->opset > 0 && m->opset < OPSETS && m->outputs > 0;
}

/* The generator's seed, from manifest.json. */
static void read_seed(suite *s)
{
    char path[600], text[256] = "";
    snprintf(path, sizeof path, "%s/manifest.json", s->dir);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    const char *at = strstr(text, "\"seed\":");
    snprintf(s->seed, sizeof s->seed, "%" PRId64, at ? (int64_t)strtoll(at + 7, NULL, 10) : (int64_t)-1);
    if (f)
        fclose(f);
}

static void print_counts(const suite *s)
{
    for (int o = 0; o < OPS; o++)
        for (int v = 0; v < OPSETS; v++) {
            long c = 0, r = 0;
            for (int d = 0; d <= SG_DTYPE_COUNT; d++)
                c += s->compared[o][v][d], r += s->refused[o][v][d];
            if (c + r == 0)
                continue;
            printf("  %s-%d: %ld layers compared, %ld models refused as ONNX Runtime does;", op_names[o], v,
                   c, r);
            for (int d = 0; d < SG_DTYPE_COUNT; d++)
                if (s->compared[o][v][d] + s->refused[o][v][d])
                    printf(" %s %ld/%ld", sg_dtype_name((sg_dtype)d), s->compared[o][v][d],
                           s->refused[o][v][d]);
            printf("\n");
        }
}

static long env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    return v && atol(v) > 0 ? atol(v) : fallback;
}

int main(int argc, char **argv)
{
    static suite s = {.counts = CHECK_COUNTS_INIT, .aot = {.opt_level = SG_DEFAULT_OPT_LEVEL}};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc) {
            s.cli = argv[++i];
        } else if (strcmp(argv[i], "--only-aot") == 0) {
            s.only_aot = true;
        } else if (aot_config_option(&s.aot, argc, argv, &i)) {
            continue;
        } else if (s.dir == NULL && argv[i][0] != '-') {
            s.dir = argv[i];
        } else {
            s.dir = NULL;
            break;
        }
    }
    if (s.dir == NULL) {
        fprintf(stderr, "usage: test_onnx [--cli SLICEGEN] [--aot-runner FILE [--aot-target T] [--aot-cc CC] "
                        "[--aot-exec WORDS]] [--only-aot] CASEDIR\n");
        return 2;
    }
    if (getenv("SLICEGEN_SKIP_ONNX")) {
        printf("onnx-ort skipped: SLICEGEN_SKIP_ONNX is set\n");
        return 77;
    }
    char results[600];
    snprintf(results, sizeof results, "%s/results.txt", s.dir);
    FILE *f = fopen(results, "r");
    if (f == NULL) {
        printf("failed to read %s: the fixture onnx-ort-setup did not run or failed (see its output)\n",
               results);
        return 1;
    }
    read_seed(&s);
    snprintf(s.work, sizeof s.work, "/tmp/slicegen-onnx-XXXXXX");
    if (sg_context_create(&s.ctx) != SG_OK || mkdtemp(s.work) == NULL)
        return 1;
    s.cli_every = s.aot_every = 1;
    s.aot_max = env_long("SLICEGEN_ONNX_AOT", 300);
    if (s.aot.runner)
        s.batch = aot_batch_create();
    char *line = NULL;
    size_t cap = 0;
    model_case *cases = NULL;
    long n = 0;
    /* first the lines, to spread the subsets over all models */
    for (; getline(&line, &cap, f) > 0; n++) {
        cases = realloc(cases, (size_t)(n + 1) * sizeof *cases);
        if (cases == NULL || !parse_line(&s, line, &cases[n])) {
            printf("failed to read %s: line %ld is malformed\n", results, n + 1);
            return 1;
        }
        cases[n].desc = strdup(cases[n].desc), cases[n].message = strdup(cases[n].message);
        cases[n].index = n;
    }
    fclose(f);
    free(line);
    s.cli_every = n / env_long("SLICEGEN_ONNX_CLI", 150) + 1;
    s.aot_every = n / s.aot_max + 1;
    printf("onnx-ort: seed %s (SLICEGEN_SEED=%s reproduces the models), %ld models from %s, LLVM %s%s%s\n",
           s.seed, s.seed, n, s.dir, sg_llvm_version(), s.batch ? ", objects for " : "",
           s.batch ? (s.aot.target ? s.aot.target : "the host") : "");
    for (long i = 0; i < n && s.counts.failed < MAX_FAILURES; i++)
        check_model(&s, &cases[i]);
    if (s.counts.failed >= MAX_FAILURES)
        printf("stopping after %d failures\n", MAX_FAILURES);
    if (s.batch) {
        int passed = 0, failed = 0;
        printf("onnx-ort: %zu layers as one object for %s\n", aot_batch_size(s.batch),
               s.aot.target ? s.aot.target : "the host");
        aot_batch_run(s.batch, s.ctx, &s.aot, &passed, &failed);
        s.counts.passed += passed, s.counts.failed += failed;
        aot_batch_destroy(s.batch);
    }
    print_counts(&s);
    printf("onnx-ort: refused as ONNX Runtime does: %ld by sg_model_read, %ld by a skipped layer, %ld by the "
           "plan, "
           "%ld by the run; %ld string layers skipped; %ld slicegen run commands\n",
           s.refused_by[0], s.refused_by[1], s.refused_by[2], s.refused_by[3], s.skipped_strings, s.cli_runs);
    for (long i = 0; i < n; i++)
        free((char *)cases[i].desc), free((char *)cases[i].message);
    free(cases);
    char leftover[128];
    snprintf(leftover, sizeof leftover, "%s/out.npy", s.work), unlink(leftover);
    snprintf(leftover, sizeof leftover, "%s/stderr.txt", s.work), unlink(leftover);
    rmdir(s.work);
    sg_context_destroy(s.ctx);
    return finish("onnx-ort", &s.counts);
}

/* See aot_batch.h. Files live in a temporary folder, removed afterwards:
 * batch.o and batch.h (the kernels, table prefix "batch"), in.bin, the
 * runner program, out.bin and log.txt (what the compiler or runner said). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aot_batch.h"

typedef struct aot_case {
    char *label;
    sg_plan *plan;
    unsigned char *in, *expected;
    size_t in_bytes, out_bytes;
    /* a call of a kernel with runtime values: what its prologue is given
     * and must return */
    bool call;
    int code;
    int64_t in_shape[SG_MAX_RANK], values[SG_MAX_VALUES];
} aot_case;

struct aot_batch {
    aot_case *cases;
    size_t n, cap;
};

bool aot_config_option(aot_config *config, int argc, char **argv, int *i)
{
    static const char *const names[] = {"--aot-target", "--aot-cpu", "--aot-cc", "--aot-exec", "--aot-runner"};
    const char **slots[] = {&config->target, &config->cpu, &config->cc, &config->exec, &config->runner};
    for (int k = 0; k < 5; k++) {
        if (strcmp(argv[*i], names[k]) == 0 && *i + 1 < argc) {
            *slots[k] = argv[*i + 1];
            *i += 1;
            return true;
        }
    }
    return false;
}

aot_batch *aot_batch_create(void)
{
    return calloc(1, sizeof(aot_batch));
}

static void *copy(const void *p, size_t n)
{
    void *c = malloc(n ? n : 1);
    if (c == NULL) {
        fprintf(stderr, "aot batch: out of memory\n");
        exit(1);
    }
    return n ? memcpy(c, p, n) : c;
}

static aot_case *grow(aot_batch *b)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->cases = realloc(b->cases, b->cap * sizeof *b->cases);
        if (b->cases == NULL) {
            fprintf(stderr, "aot batch: out of memory\n");
            exit(1);
        }
    }
    return &b->cases[b->n++];
}

void aot_batch_add(aot_batch *b, const char *label, sg_plan *plan, const void *in, const void *expected)
{
    *grow(b) = (aot_case){
        .label = copy(label, strlen(label) + 1),
        .plan = plan,
        .in = copy(in, sg_plan_input_bytes(plan)),
        .expected = copy(expected, sg_plan_output_bytes(plan)),
        .in_bytes = sg_plan_input_bytes(plan),
        .out_bytes = sg_plan_output_bytes(plan),
    };
}

void aot_batch_add_call(aot_batch *b, const char *label, sg_plan *plan, const int64_t *in_shape,
                        const int64_t *values, int code, const void *in, size_t in_bytes, const void *expected,
                        size_t out_bytes)
{
    aot_case *c = grow(b);
    *c = (aot_case){
        .label = copy(label, strlen(label) + 1),
        .plan = plan,
        .in = copy(in, in_bytes),
        .expected = copy(expected, out_bytes),
        .in_bytes = in_bytes,
        .out_bytes = out_bytes,
        .call = true,
        .code = code,
    };
    memcpy(c->in_shape, in_shape, sg_plan_input_rank(plan) * sizeof *in_shape);
    memcpy(c->values, values, sg_plan_value_count(plan) * sizeof *values);
}

size_t aot_batch_size(const aot_batch *b)
{
    return b->n;
}

void aot_batch_destroy(aot_batch *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->n; i++) {
        free(b->cases[i].label);
        sg_plan_destroy(b->cases[i].plan);
        free(b->cases[i].in);
        free(b->cases[i].expected);
    }
    free(b->cases);
    free(b);
}

/* Runs argv with stdout and stderr appended to `log`; the exit status, or
 * -1 if it could not be run or was killed. */
static int run(char *const *argv, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s\n", argv[0]);
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static void show_log(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    for (int n = 0; f && n < 20 && fgets(line, sizeof line, f); n++)
        fprintf(stderr, "    %s", line);
    if (f)
        fclose(f);
}

/* Splits `words` (spaces) into argv slots; returns the count. */
static int split(char *words, char **argv, int max)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    return n;
}

/* in.bin: the inputs; calls.bin: per call, its code, input bytes, input
 * shape and values (int64 each). */
static bool write_inputs(const aot_batch *b, const char *path, const char *calls_path)
{
    FILE *f = fopen(path, "wb"), *calls = fopen(calls_path, "wb");
    bool ok = f != NULL && calls != NULL;
    for (size_t i = 0; ok && i < b->n; i++) {
        const aot_case *c = &b->cases[i];
        ok = fwrite(c->in, 1, c->in_bytes, f) == c->in_bytes;
        if (ok && c->call) {
            int64_t head[2] = {c->code, (int64_t)c->in_bytes};
            size_t rank = sg_plan_input_rank(c->plan), nvalues = sg_plan_value_count(c->plan);
            ok = fwrite(head, sizeof head, 1, calls) == 1 &&
                 fwrite(c->in_shape, sizeof(int64_t), rank, calls) == rank &&
                 fwrite(c->values, sizeof(int64_t), nvalues, calls) == nvalues;
        }
    }
    bool closed = f == NULL || fclose(f) == 0;
    closed = (calls == NULL || fclose(calls) == 0) && closed; /* both files closed either way */
    return ok && closed;
}

void aot_batch_run(aot_batch *b, sg_context *ctx, const aot_config *config, int *passed, int *failed)
{
    const char *where = config->target ? config->target : "the host";
    char dir[] = "/tmp/slicegen-aot-XXXXXX", object[64], header[64], input[64], program[64], output[64],
         log[64], calls[64];
    if (b->n == 0)
        return;
    if (mkdtemp(dir) == NULL) {
        perror("aot batch: mkdtemp");
        (*failed)++;
        return;
    }
    snprintf(object, sizeof object, "%s/batch.o", dir);
    snprintf(header, sizeof header, "%s/batch.h", dir);
    snprintf(input, sizeof input, "%s/in.bin", dir);
    snprintf(program, sizeof program, "%s/runner", dir);
    snprintf(output, sizeof output, "%s/out.bin", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    snprintf(calls, sizeof calls, "%s/calls.bin", dir);

    sg_aot_kernel *kernels = calloc(b->n, sizeof *kernels);
    char(*names)[32] = calloc(b->n, sizeof *names);
    FILE *out = NULL;
    for (size_t i = 0; i < b->n; i++) {
        snprintf(names[i], sizeof names[i], "case_%zu", i);
        kernels[i] = (sg_aot_kernel){.plan = b->cases[i].plan,
                                     .name = names[i],
                                     .spec = b->cases[i].label,
                                     .layer = b->cases[i].label,
                                     .layer_id = (int64_t)i};
    }
    sg_aot_options options = {
        .target = config->target, .cpu = config->cpu, .opt_level = config->opt_level, .prefix = "batch"};
    if (sg_aot_write(ctx, kernels, b->n, &options, object, header) != SG_OK) {
        fprintf(stderr, "FAIL aot (%s): %s\n", where, sg_context_last_error(ctx));
        (*failed)++;
        goto done;
    }
    if (!write_inputs(b, input, calls)) {
        fprintf(stderr, "FAIL aot (%s): cannot write %s\n", where, input);
        (*failed)++;
        goto done;
    }
    char include[80];
    snprintf(include, sizeof include, "-I%s", dir);
    char *cc[] = {(char *)(config->cc ? config->cc : "cc"),
                  "-std=c11",
                  "-O1",
                  "-Wall",
                  "-Wextra",
                  "-Werror",
                  include,
                  (char *)config->runner,
                  object,
                  "-o",
                  program,
                  NULL};
    if (run(cc, log) != 0) {
        fprintf(stderr, "FAIL aot (%s): the runner did not build:\n", where);
        show_log(log);
        (*failed)++;
        goto done;
    }
    char exec_words[512], *argv[16];
    snprintf(exec_words, sizeof exec_words, "%s", config->exec ? config->exec : "");
    int n = split(exec_words, argv, 13);
    argv[n++] = program, argv[n++] = dir, argv[n] = NULL;
    if (run(argv, log) != 0) {
        fprintf(stderr, "FAIL aot (%s): the runner failed:\n", where);
        show_log(log);
        (*failed)++;
        goto done;
    }
    out = fopen(output, "rb");
    for (size_t i = 0; i < b->n; i++) {
        const aot_case *c = &b->cases[i];
        size_t bytes = c->out_bytes;
        unsigned char *got = malloc(bytes ? bytes : 1);
        if (out == NULL || got == NULL || fread(got, 1, bytes, out) != bytes) {
            fprintf(stderr, "FAIL aot (%s): %s: output missing\n", where, c->label);
            (*failed)++;
        } else if (memcmp(got, c->expected, bytes) != 0) {
            size_t at = 0;
            while (got[at] == c->expected[at])
                at++;
            fprintf(stderr, "FAIL aot (%s): %s: output differs first at byte %zu\n", where, c->label, at);
            (*failed)++;
        } else {
            (*passed)++;
        }
        free(got);
    }
done:
    if (out)
        fclose(out);
    free(kernels);
    free(names);
    const char *files[] = {object, header, input, program, output, log, calls};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(files[i]);
    rmdir(dir);
}

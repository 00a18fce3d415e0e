/*
 * The ONNX reader through the public API (sg_model_read on .onnx files):
 * tests/frontend/make_onnx_models.py writes good models for every operator and
 * opset the reader takes (Slice 1/10/11/13, Pad 1/2/11/13/18/19, Split
 * 2/11/13/18, Gather 1/11/13), every element type, runtime values and
 * dimensions, packed and unpacked repeated fields, external data, and the
 * layer each should give (name, id, type, element type, shape, and the spec
 * printed as text or a piece of the skip reason); this test reads each
 * model and compares every layer. Then the malformed models: each fails
 * with SG_ERR_IO and its expected message, and --weights with an ONNX
 * model is SG_ERR_USAGE. Exits 77 (skipped) when /usr/bin/python3 or its
 * onnx package is missing.
 *
 * usage: test_onnx_reader SOURCE_DIR
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/check.h"
#include "slicegen.h"

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
    char dir[512];
} suite;

/* Runs make_onnx_models.py DIR: its exit status (127: no interpreter). */
static int generate(const char *src, const char *dir)
{
    char script[600];
    snprintf(script, sizeof script, "%s/tests/frontend/make_onnx_models.py", src);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl("/usr/bin/python3", "python3", script, dir, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Splits line at tabs into at most max fields (the line is modified). */
static size_t split_tabs(char *line, char **fields, size_t max)
{
    size_t n = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; n < max;) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (tab == NULL)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

static void shape_text(const sg_model_layer *l, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t d = 0; d < l->rank && n < size; d++)
        n += (size_t)snprintf(out + n, size - n, "%s%lld", d ? "," : "", (long long)l->shape[d]);
}

/* One expected layer: model, index, id, name, type, dtype, shape, spec or
 * "skip:" + a piece of the reason. The model is read once per line. */
static void check_layer(suite *s, char **f)
{
    char path[1100], shape[512];
    sg_model *model = NULL;
    if (!CHECK(s, snprintf(path, sizeof path, "%s/good/%s", s->dir, f[0]) < (int)sizeof path, "%s: path too long",
               f[0]) ||
        !CHECK(s, sg_model_read(s->ctx, path, NULL, &model) == SG_OK, "%s: %s", f[0],
               sg_context_last_error(s->ctx)))
        return;
    size_t index = (size_t)atol(f[1]);
    const sg_model_layer *l = sg_model_layer_at(model, index);
    if (CHECK(s, l != NULL, "%s: no layer %zu (%zu layers)", f[0], index, sg_model_layer_count(model))) {
        shape_text(l, shape, sizeof shape);
        CHECK(s, l->id == atoll(f[2]), "%s layer %zu: id %lld, expected %s", f[0], index, (long long)l->id,
              f[2]);
        CHECK(s, strcmp(l->name, f[3]) == 0, "%s layer %zu: name '%s', expected '%s'", f[0], index, l->name,
              f[3]);
        CHECK(s, strcmp(l->type, f[4]) == 0, "%s layer %zu: type '%s', expected '%s'", f[0], index, l->type,
              f[4]);
        CHECK(s, strcmp(sg_dtype_name(l->dtype), f[5]) == 0, "%s layer %zu: dtype %s, expected %s", f[0],
              index, sg_dtype_name(l->dtype), f[5]);
        CHECK(s, strcmp(shape, f[6]) == 0, "%s layer %zu: shape '%s', expected '%s'", f[0], index, shape,
              f[6]);
        if (strncmp(f[7], "skip:", 5) == 0)
            CHECK(s, l->spec == NULL && l->skip_reason != NULL && strstr(l->skip_reason, f[7] + 5) != NULL,
                  "%s layer %zu: expected a skip reason with '%s', got spec '%s' reason '%s'", f[0], index,
                  f[7] + 5, l->spec_text ? l->spec_text : "", l->skip_reason ? l->skip_reason : "");
        else
            CHECK(s, l->spec != NULL && l->skip_reason == NULL && strcmp(l->spec_text, f[7]) == 0,
                  "%s layer %zu: spec '%s', expected '%s' (reason '%s')", f[0], index,
                  l->spec_text ? l->spec_text : "", f[7], l->skip_reason ? l->skip_reason : "");
    }
    sg_model_destroy(model);
}

/* Every layer of every good model is listed: counts per model. */
static void check_counts_of(suite *s, const char *model, size_t expected)
{
    char path[1100];
    sg_model *m = NULL;
    snprintf(path, sizeof path, "%s/good/%s", s->dir, model);
    if (sg_model_read(s->ctx, path, NULL, &m) != SG_OK)
        return; /* check_layer reported it */
    CHECK(s, sg_model_layer_count(m) == expected, "%s: %zu layers, expected %zu", model,
          sg_model_layer_count(m), expected);
    sg_model_destroy(m);
}

static void check_bad(suite *s, char **f, size_t n)
{
    char path[1100];
    sg_model *model = NULL;
    if (!CHECK(s, snprintf(path, sizeof path, "%s/bad/%s", s->dir, f[0]) < (int)sizeof path, "%s: path too long",
               f[0]))
        return;
    sg_status st = sg_model_read(s->ctx, path, NULL, &model);
    const char *message = sg_context_last_error(s->ctx);
    if (!CHECK(s, st == SG_ERR_IO && model == NULL, "%s: status %d, expected SG_ERR_IO (%s)", f[0], (int)st,
               message))
        return;
    CHECK(s,
          strstr(message, "failed to read ONNX model '") == message && strstr(message, f[0]) != NULL &&
              strchr(message, '\n') == NULL,
          "%s: the message does not name the file on one line: %s", f[0], message);
    for (size_t i = 1; i < n; i++)
        CHECK(s, strstr(message, f[i]) != NULL, "%s: '%s' missing from: %s", f[0], f[i], message);
}

static FILE *open_expected(const suite *s, const char *kind)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s/expected.txt", s->dir, kind);
    return fopen(path, "r");
}

int main(int argc, char **argv)
{
    suite s = {.counts = CHECK_COUNTS_INIT};
    if (argc != 2) {
        fprintf(stderr, "usage: test_onnx_reader SOURCE_DIR\n");
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/sg-onnx-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(s.dir) == NULL) {
        printf("onnx-reader: cannot make a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    int status = generate(argv[1], s.dir);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", s.dir);
    if (status == 77 || status == 127) {
        printf("onnx-reader: skipped: /usr/bin/python3 with the onnx package is needed\n");
        (void)!system(rm);
        return 77;
    }
    if (status != 0 || sg_context_create(&s.ctx) != SG_OK) {
        printf("onnx-reader: make_onnx_models.py failed (exit status %d)\n", status);
        (void)!system(rm);
        return 1;
    }

    char line[4096], *f[16], last[256] = "";
    size_t lines = 0, per_model = 0;
    FILE *good = open_expected(&s, "good");
    while (good && fgets(line, sizeof line, good)) {
        size_t n = split_tabs(line, f, 16);
        if (n != 8)
            continue;
        if (strcmp(last, f[0]) != 0) {
            if (last[0] != '\0')
                check_counts_of(&s, last, per_model);
            if (!CHECK(&s, snprintf(last, sizeof last, "%s", f[0]) < (int)sizeof last, "model name %s too long",
                       f[0]))
                break;
            per_model = 0;
        }
        per_model++;
        lines++;
        check_layer(&s, f);
    }
    if (last[0] != '\0')
        check_counts_of(&s, last, per_model);
    if (good)
        fclose(good);
    CHECK(&s, lines >= 60, "only %zu expected layers", lines);

    size_t bad = 0;
    FILE *bad_list = open_expected(&s, "bad");
    while (bad_list && fgets(line, sizeof line, bad_list)) {
        size_t n = split_tabs(line, f, 16);
        if (n >= 2) {
            check_bad(&s, f, n);
            bad++;
        }
    }
    if (bad_list)
        fclose(bad_list);
    CHECK(&s, bad >= 25, "only %zu malformed models", bad);

    /* --weights is for OpenVINO models. */
    char path[1100];
    sg_model *model = NULL;
    snprintf(path, sizeof path, "%s/good/slice13.onnx", s.dir);
    CHECK(&s, sg_model_read(s.ctx, path, "w.bin", &model) == SG_ERR_USAGE && model == NULL,
          "a weights file with an ONNX model is accepted");

    sg_context_destroy(s.ctx);
    (void)!system(rm);
    return finish("onnx-reader", &s.counts);
}

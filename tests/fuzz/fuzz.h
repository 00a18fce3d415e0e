/*
 * What the libFuzzer targets of tests/fuzz share: a cursor that decodes
 * fuzz bytes into small numbers, NUL-terminated copies, text captured from
 * a printer, files written under one temporary folder per process, and the
 * one context every run uses.
 *
 * Everything here is deterministic: the same bytes decode to the same
 * values, and a missing byte reads as zero.
 */
#ifndef SG_FUZZ_H
#define SG_FUZZ_H

#define _GNU_SOURCE /* open_memstream, mkdtemp */

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stops the fuzzer with a message: libFuzzer reports the abort as a crash
 * and writes the input that caused it. */
#define FUZZ_FAIL(...)                                                                                       \
    do {                                                                                                     \
        fprintf(stderr, "fuzz failure at %s:%d: ", __FILE__, __LINE__);                                      \
        fprintf(stderr, __VA_ARGS__);                                                                        \
        fputc('\n', stderr);                                                                                 \
        abort();                                                                                             \
    } while (0)

/* ---- decoding bytes -------------------------------------------------------------------------------- */

typedef struct fuzz_bytes {
    const uint8_t *p;
    size_t n;
} fuzz_bytes;

/* The next byte, or 0 when none is left. */
static inline uint8_t fuzz_u8(fuzz_bytes *b)
{
    if (b->n == 0)
        return 0;
    b->n--;
    return *b->p++;
}

/* Values a slice is most likely to get wrong near the ends of int64. */
/* clang-format off */
static const int64_t fuzz_extremes[16] = {
    INT64_MIN, INT64_MIN + 1, -(INT64_C(1) << 62), -(INT64_C(1) << 32), -(INT64_C(1) << 31) - 1,
    -1000000, -256, 255, 256, 1000000,
    INT64_C(1) << 31, INT64_C(1) << 32, INT64_C(1) << 62, INT64_MAX - 1, INT64_MAX,
    0 /* not used: 0xff is 8 raw bytes */,
};
/* clang-format on */

/* One byte: 0x00-0xef is -120..119; 0xf0-0xfe an extreme value; 0xff the
 * next 8 bytes, little-endian. */
static inline int64_t fuzz_int(fuzz_bytes *b)
{
    uint8_t c = fuzz_u8(b);
    if (c < 0xf0)
        return (int64_t)c - 120;
    if (c < 0xff)
        return fuzz_extremes[c - 0xf0];
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)fuzz_u8(b) << (8 * i);
    return (int64_t)u;
}

/* The bytes as a NUL-terminated string (cut at the first NUL); free() it. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A 64-bit FNV-1a hash, to derive values (a shape) from a whole input. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    return h;
}

/* ---- runtime values ------------------------------------------------------------------------------- */

/* The spec with its runtime values bound to numbers -3..3 taken from h
 * (sg_spec_bind); NULL when the numbers make it invalid (a zero stride).
 * The bound spec must name no value. */
static inline sg_spec *fuzz_bind(const sg_spec *spec, uint64_t h)
{
    int64_t values[SG_MAX_VALUES];
    sg_spec *bound = NULL;
    sg_error err = {0};
    for (size_t k = 0; k < spec->nvalues; k++)
        values[k] = (int64_t)((h >> (k % 61)) % 7) - 3;
    if (sg_spec_bind(spec, values, &bound, &err) != SG_OK) {
        if (err.status != SG_ERR_SPEC)
            FUZZ_FAIL("binding runtime values failed with %s: %s", sg_status_name(err.status), err.message);
        return NULL;
    }
    if (bound->nvalues != 0)
        FUZZ_FAIL("a bound spec still names %zu runtime values", bound->nvalues);
    return bound;
}

/* ---- text of printers ------------------------------------------------------------------------------ */

/* What sg_plan_print and sg_spec_print write (sg_plan_to_text,
 * sg_spec_to_text), malloc'd; free() it. Out of memory aborts. */
static inline char *fuzz_text_of_plan(const sg_plan *plan)
{
    char *text = sg_plan_to_text(plan);
    if (text == NULL)
        abort();
    return text;
}

static inline char *fuzz_text_of_spec(const sg_spec *spec)
{
    char *text = sg_spec_to_text(spec);
    if (text == NULL)
        abort();
    return text;
}

/* ---- the context ----------------------------------------------------------------------------------- */

static sg_context *fuzz_context_;

static inline void fuzz_context_destroy(void)
{
    sg_context_destroy(fuzz_context_);
    fuzz_context_ = NULL;
}

/* One context for every run of the process (its kernel cache included),
 * destroyed at exit. */
static inline sg_context *fuzz_context(void)
{
    if (fuzz_context_ == NULL) {
        if (sg_context_create(&fuzz_context_) != SG_OK)
            abort();
        atexit(fuzz_context_destroy);
    }
    return fuzz_context_;
}

/* ---- temporary files ------------------------------------------------------------------------------- */

static char fuzz_dir_[4096];

static inline void fuzz_dir_remove(void)
{
    DIR *d = opendir(fuzz_dir_);
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    rmdir(fuzz_dir_);
}

/* A folder of this process, made at the first call under $TMPDIR, else
 * /dev/shm, else /tmp, and removed at exit. */
static inline const char *fuzz_dir(void)
{
    if (fuzz_dir_[0] != '\0')
        return fuzz_dir_;
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (base == NULL || base[0] == '\0')
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                                                                                                  : "/tmp";
    snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/slicegen-fuzz-XXXXXX", base);
    if (mkdtemp(fuzz_dir_) == NULL) {
        perror(fuzz_dir_);
        abort();
    }
    atexit(fuzz_dir_remove);
    return fuzz_dir_;
}

/* Writes size bytes to the file `name` in the process's folder, replacing
 * what a previous run wrote there, and its path to path[cap]. */
static inline void fuzz_write_file(const char *name, const void *data, size_t size, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", fuzz_dir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, (const char *)data + done, size - done);
        if (w <= 0) {
            perror(path);
            abort();
        }
        done += (size_t)w;
    }
    close(fd);
}

/* A layer of a model that reads (sg_model_read) must be consistent: a
 * name, a type, and either a spec with its text and shape or a skip
 * reason. A layer with a spec is planned on its shape and type (-1 for a
 * dynamic dimension), and its spec_text, split into command-line words at
 * spaces (`''` is the empty word) or, when it does not start with "--", a
 * NumPy expression or program (a Gather of an index array), must make a
 * spec that plans the same (equal plans with the same runtime values in
 * the same order, or the same status). */
#define FUZZ_MAX_WORDS 64
static inline void fuzz_check_layer(sg_context *ctx, const sg_model_layer *l, size_t index)
{
    if (l->name == NULL || l->type == NULL || (l->spec == NULL) == (l->skip_reason == NULL))
        FUZZ_FAIL("layer %zu: name, type, spec or skip reason missing", index);
    if (l->spec == NULL)
        return;
    if (l->spec_text == NULL || l->rank > SG_MAX_RANK || (l->rank > 0 && l->shape == NULL) ||
        sg_dtype_size(l->dtype) == 0)
        FUZZ_FAIL("layer %zu ('%s'): spec text, shape or type missing", index, l->name);

    sg_plan *plan = NULL, *again = NULL;
    sg_spec *spec = NULL;
    sg_status st = sg_plan_create(ctx, l->spec, l->rank, l->shape, l->dtype, &plan);

    char *copy = fuzz_cstr((const uint8_t *)l->spec_text, strlen(l->spec_text));
    char *words[FUZZ_MAX_WORDS];
    int n = 0;
    for (char *w = strtok(copy, " "); w != NULL && n < FUZZ_MAX_WORDS; w = strtok(NULL, " "))
        words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
    sg_status made = strncmp(l->spec_text, "--", 2) == 0 ? sg_spec_from_words(ctx, n, words, &spec)
                                                         : sg_spec_numpy(ctx, l->spec_text, &spec);
    if (made != SG_OK)
        FUZZ_FAIL("layer %zu ('%s'): spec text '%s' does not make a spec: %s", index, l->name, l->spec_text,
                  sg_context_last_error(ctx));
    sg_status again_st = sg_plan_create(ctx, spec, l->rank, l->shape, l->dtype, &again);
    if (st != again_st || (st == SG_OK && !sg_plan_equal(plan, again)))
        FUZZ_FAIL("layer %zu ('%s'): spec text '%s' plans differently from the spec (status %s and %s)",
                  index, l->name, l->spec_text, sg_status_name(st), sg_status_name(again_st));
    size_t nvalues = st == SG_OK ? sg_plan_value_count(plan) : 0;
    if (st == SG_OK && sg_plan_value_count(again) != nvalues)
        FUZZ_FAIL("layer %zu ('%s'): spec text '%s' names %zu runtime values, the spec %zu", index, l->name,
                  l->spec_text, sg_plan_value_count(again), nvalues);
    for (size_t v = 0; v < nvalues; v++)
        if (strcmp(sg_plan_value_name(plan, v), sg_plan_value_name(again, v)) != 0)
            FUZZ_FAIL("layer %zu ('%s'): runtime value %zu is '%s' in the spec, '%s' in its text", index, l->name,
                      v, sg_plan_value_name(plan, v), sg_plan_value_name(again, v));
    sg_plan_destroy(plan);
    sg_plan_destroy(again);
    sg_spec_destroy(spec);
    free(copy);
}

/* The model's fusions (aot --fuse): each names layers of the model in
 * order, and its program's text reads back into a spec that plans as the
 * program does over the fusion's input (`?` dimensions included). */
static inline void fuzz_check_fusions(sg_context *ctx, sg_model *model)
{
    size_t count = 0;
    const sg_model_fusion *fusions = NULL;
    if (sg_model_fusions(ctx, model, &count, &fusions) != SG_OK)
        return; /* out of memory */
    for (size_t k = 0; k < count; k++) {
        const sg_model_fusion *fu = &fusions[k];
        for (size_t i = 0; i < fu->nlayers; i++)
            if (fu->layers[i] >= sg_model_layer_count(model) || (i > 0 && fu->layers[i] <= fu->layers[i - 1]))
                FUZZ_FAIL("fusion %zu ('%s'): layer %zu is %zu of %zu", k, fu->name, i, fu->layers[i],
                          sg_model_layer_count(model));
        sg_spec *spec = NULL;
        sg_plan *plan = NULL, *again = NULL;
        if (sg_spec_numpy(ctx, fu->spec_text, &spec) != SG_OK)
            FUZZ_FAIL("fusion %zu ('%s'): its text '%s' does not read: %s", k, fu->name, fu->spec_text,
                      sg_context_last_error(ctx));
        sg_status st = sg_plan_create(ctx, fu->spec, fu->rank, fu->shape, fu->dtype, &plan);
        sg_status again_st = sg_plan_create(ctx, spec, fu->rank, fu->shape, fu->dtype, &again);
        if (st != again_st || (st == SG_OK && !sg_plan_equal(plan, again)))
            FUZZ_FAIL("fusion %zu ('%s'): its text '%s' plans differently from its program (status %s and %s)", k,
                      fu->name, fu->spec_text, sg_status_name(st), sg_status_name(again_st));
        sg_plan_destroy(plan);
        sg_plan_destroy(again);
        sg_spec_destroy(spec);
    }
}

#endif /* SG_FUZZ_H */

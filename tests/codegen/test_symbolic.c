/*
 * Runtime values: a random differential test of symbolic kernels.
 *
 * Each case is a random spec of one of the seven sources, a NumPy
 * program that chains indices, np.flip, np.roll and np.pad, an
 * np.concatenate of such chains, or a program of model layers (an `aot
 * --fuse` chain, its numbers constants), whose numbers
 * are, at random, written in or named (`[v0:, ::v1]`, `--end 2,v0`; the
 * axes of Slice, OnnxSlice and Pad, the sizes of Split, the fill value
 * of TrtSlice and Pad, given as any 64 bits), over an
 * input whose dimensions are, at random, fixed or `?`. Its plan is compiled
 * once; then for many calls, each with its own input shape (the `?`
 * dimensions drawn anew) and values (in range, negative, out of range,
 * huge: +-2^62, INT64_MIN/MAX, zero strides), the kernel's prologue and
 * the kernel run, and the result is compared with the reference
 * interpreter on the same spec with the numbers written in
 * (sg_plan_specialize): the same output bytes and shape, or both refuse.
 * The prologue's numbers are also compared with the planner's own
 * evaluation of the plan (sg_plan_prepare), and a refused call must leave
 * args as they were; the prologue's in_shape, values and args end at
 * PROT_NONE pages. Inputs end at a PROT_NONE page, outputs are framed by
 * guard bytes and end at one too; calls run on 1-3 threads (those whose
 * input or output exceeds 4 MiB are prepared, not run).
 *
 * Each case's GPU kernel (gpu_engine.h: emulated on the host, and run on
 * a CUDA device where there is one) runs every call the CPU kernel ran,
 * and up to 200 of the cases' kernels go into one PTX file that ptxas must
 * accept (without --aot-runner).
 *
 * SLICEGEN_SEED=N reproduces a run (the seed is printed first);
 * SLICEGEN_SYMBOLIC_CASES=N sets the number of specs (default 300).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../runtime/runtime.h"
#include "../support/aot_batch.h"
#include "../support/check.h"
#include "../support/gpu_engine.h"

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
    uint64_t rng;
    int calls, refused, both_refused, invalid;
    int beyond_parts; /* calls the reference cannot plan for its limit of parts (SG_MAX_PARTS), not NumPy's */
    int layer_kernels; /* programs of model layers (make_layers) compiled */
    int concat_kernels; /* ... and concatenates (make_concat) */
    int gpu_refused; /* concatenates the GPU kernels refuse (not supported yet) */
    /* with --aot-runner: calls also made of objects (aot_batch.h) */
    aot_config aot;
    aot_batch *batch;
    const sg_spec *spec; /* the case's, for the batch's own plans */
    /* without --aot-runner: each case's GPU kernel too */
    gpu_engine *gpu;
    gpu_values *gpu_kernel; /* the case's */
    int gpu_calls;
} suite;

enum { AOT_CALLS = 4 }; /* calls per case made of objects */

/* A call for the object batch: the case's plan made anew (the batch takes it). */
static void add_call(suite *s, const sg_plan *plan, const char *where, const int64_t *shape,
                     const int64_t *values, int code, const void *in, size_t in_bytes, const void *expected,
                     size_t out_bytes)
{
    sg_plan *own = NULL;
    if (CHECK(s, sg_plan_create(s->ctx, s->spec, plan->in_rank, plan->in_shape, plan->dtype, &own) == SG_OK,
              "%s: plan again: %s", where, sg_context_last_error(s->ctx)))
        aot_batch_add_call(s->batch, where, own, shape, values, code, in, in_bytes, expected, out_bytes);
}

static uint64_t next(suite *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

static int64_t pick(suite *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next(s) % (uint64_t)(hi - lo + 1));
}

/* What a name stands for, which its values are drawn as. */
enum { NAME_NUMBER, NAME_STRIDE, NAME_AXIS, NAME_SIZE, NAME_FILL };

/* A value for a name: mostly small, sometimes extreme; an axis of an input
 * of `rank` mostly in range, a split size mostly not negative. */
static int64_t draw_value(suite *s, int kind, size_t rank)
{
    bool stride = kind == NAME_STRIDE;
    if (kind == NAME_FILL) /* any bits: the element of the low ones */
        return next(s) % 4 ? (int64_t)next(s) : pick(s, -3, 3);
    if (kind == NAME_AXIS && next(s) % 8 != 0)
        return pick(s, -(int64_t)rank, (int64_t)rank - 1);
    if (kind == NAME_AXIS)
        return pick(s, 0, 1) ? pick(s, -(int64_t)rank - 2, (int64_t)rank + 1) : INT64_MIN;
    if (kind == NAME_SIZE && next(s) % 8 != 0)
        return pick(s, 0, 5);
    switch (next(s) % 16) {
    case 0:
        return INT64_MIN;
    case 1:
        return INT64_MAX;
    case 2:
        return (int64_t)1 << 62;
    case 3:
        return -((int64_t)1 << 62);
    case 4:
        return 0;
    case 5:
        return stride ? pick(s, 1, 2) : pick(s, 16, 80); /* long rows: vector code */
    default:
        return stride ? (pick(s, 0, 1) ? pick(s, 1, 4) : -pick(s, 1, 4)) : pick(s, -9, 9);
    }
}

/* ---- specs with names ---------------------------------------------------------- */

typedef struct gen_spec {
    char text[1024]; /* NumPy expression, or the words joined by \x1f */
    bool numpy;
    int nnames;
    int kind[64]; /* what name k stands for (NAME_*) */
    /* a Split: its axis, and for each size the name it is (-1: a number);
     * or parts (rule 1, --parts) or chunks (rule 2, --chunks) of nsizes */
    bool split;
    int split_rule;
    int64_t split_axis;
    int nsizes, size_name[8];
    int64_t sizes[8];
    bool numbers_only; /* no names (make_layers: a fused layer's numbers are constants) */
    int border;        /* make_op's border mode, 1 + Pad's (constant, edge, reflect, wrap); 0: any */
} gen_spec;

/* Appends a number or a new name (of kind `kind`) to out; the name's index, or -1. */
static int number_of_kind(suite *s, gen_spec *g, char *out, size_t size, int64_t v, int kind, bool allow_name)
{
    size_t len = strlen(out);
    if (allow_name && !g->numbers_only && g->nnames < 8 && next(s) % 2 == 0) {
        g->kind[g->nnames] = kind;
        snprintf(out + len, size - len, "v%d", g->nnames++);
        return g->nnames - 1;
    }
    snprintf(out + len, size - len, "%" PRId64, v);
    return -1;
}

/* Appends a number or a new name to out. */
static void number(suite *s, gen_spec *g, char *out, size_t size, int64_t v, bool stride, bool allow_name)
{
    size_t len = strlen(out);
    if (allow_name && !g->numbers_only && g->nnames < 8 && next(s) % 2 == 0) {
        g->kind[g->nnames] = stride ? NAME_STRIDE : NAME_NUMBER;
        snprintf(out + len, size - len, "v%d", g->nnames++);
    } else {
        snprintf(out + len, size - len, "%" PRId64, v);
    }
}

static void make_numpy(suite *s, gen_spec *g, size_t rank)
{
    char *t = g->text;
    size_t size = sizeof g->text;
    strcpy(t, "[");
    size_t n = (size_t)pick(s, 0, (int64_t)rank + 1);
    bool ellipsis = false;
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(t, ", ");
        int kind = (int)pick(s, 0, 9);
        if (kind == 0) {
            strcat(t, "None");
        } else if (kind == 1 && !ellipsis) {
            strcat(t, "...");
            ellipsis = true;
        } else if (kind == 2) { /* an index, sometimes one out of range for every size */
            int64_t v = pick(s, 0, 7) ? pick(s, -3, 3) : pick(s, 0, 1) ? INT64_MAX : INT64_MIN;
            number(s, g, t, size, v, false, true);
        } else {
            if (pick(s, 0, 2))
                number(s, g, t, size, pick(s, -5, 5), false, true);
            strcat(t, ":");
            if (pick(s, 0, 2))
                number(s, g, t, size, pick(s, -5, 7), false, true);
            if (pick(s, 0, 1)) {
                strcat(t, ":");
                number(s, g, t, size, pick(s, 0, 1) ? pick(s, 1, 3) : -pick(s, 1, 3), true, true);
            }
        }
    }
    strcat(t, n == 0 ? "...]" : "]");
    g->numpy = true;
}

/* A NumPy program: a chain of two or three indices of x, each as
 * make_numpy's, what comes before an index flipped, rolled or padded now
 * and then (np.flip over every axis, the first or the last; np.roll of the
 * first or the last axis, or both, by a shift that may exceed them or be
 * named; np.pad of every axis in the chain's one mode, wrap where it
 * rolls). */
static void make_chain(suite *s, gen_spec *g, size_t rank)
{
    char chain[sizeof g->text] = "x", wrapped[sizeof g->text];
    static const char *const axes[] = {"", ", axis=0", ", axis=-1"};
    static const char *const rolls[] = {"axis=0", "axis=-1", "axis=(0, -1)"};
    /* one border mode a chain (infer.c): a roll's wrap, or a pad's */
    static const char *const modes[] = {"mode='wrap'", "", "constant_values=7", "mode='edge'", "mode='reflect'"};
    int64_t mode = pick(s, 0, 4);
    for (int k = 0, n = (int)pick(s, 2, 3); k < n; k++) {
        int64_t form = pick(s, 0, 6);
        if (form == 0) {
            snprintf(wrapped, sizeof wrapped, "np.flip(%s%s)", chain, axes[pick(s, 0, 2)]);
            strcpy(chain, wrapped);
        } else if (form == 1 && mode == 0) {
            char shift[32] = "";
            number(s, g, shift, sizeof shift, pick(s, -9, 9), false, true);
            snprintf(wrapped, sizeof wrapped, "np.roll(%s, %s, %s)", chain, shift, rolls[pick(s, 0, 2)]);
            strcpy(chain, wrapped);
        } else if (form == 2) { /* every axis, by one width or a (before, after) pair, named now
                                   and then (reflect: numbers, at most 1, as wider ones need axes
                                   of more, or are refused per call) */
            int64_t most = mode == 4 ? 1 : 4;
            char widths[32] = "";
            bool pair = pick(s, 0, 1);
            strcat(widths, pair ? "(" : "");
            number_of_kind(s, g, widths, sizeof widths, pick(s, 0, most), NAME_SIZE, mode != 4);
            strcat(widths, pair ? ", " : "");
            if (pair) {
                number_of_kind(s, g, widths, sizeof widths, pick(s, 0, most), NAME_SIZE, mode != 4);
                strcat(widths, ")");
            }
            snprintf(wrapped, sizeof wrapped, "np.pad(%s, %s%s%s)", chain, widths, mode == 1 ? "" : ", ",
                     modes[mode]);
            strcpy(chain, wrapped);
        }
        make_numpy(s, g, rank);
        if (strlen(chain) + strlen(g->text) < sizeof chain)
            strcat(chain, g->text);
    }
    strcpy(g->text, chain);
}

/* np.concatenate of two or three arrays along an axis (negative now and
 * then): mostly one chain (make_chain's) sliced along that axis by numbers
 * named at random, the others' dimensions matching for every call; now and
 * then chains of their own, whose dimensions match for some calls. */
static void make_concat(suite *s, gen_spec *g, size_t rank)
{
    char base[sizeof g->text], all[sizeof g->text] = "np.concatenate([";
    int64_t axis = rank ? pick(s, 0, (int64_t)rank - 1) : 0;
    bool shared = pick(s, 0, 3) != 0;
    make_chain(s, g, rank);
    strcpy(base, g->text);
    for (int k = 0, n = (int)pick(s, 2, 3); k < n; k++) {
        char part[sizeof g->text];
        if (k == 0 || shared) {
            char cut[96] = "";
            for (int64_t i = 0; i < axis; i++)
                strcat(cut, ":, ");
            if (pick(s, 0, 2))
                number(s, g, cut, sizeof cut, pick(s, -5, 5), false, true);
            strcat(cut, ":");
            if (pick(s, 0, 2))
                number(s, g, cut, sizeof cut, pick(s, -5, 7), false, true);
            if (pick(s, 0, 2) == 0) {
                strcat(cut, ":");
                number(s, g, cut, sizeof cut, pick(s, 0, 1) ? pick(s, 1, 3) : -pick(s, 1, 3), true, true);
            }
            if (strlen(base) + strlen(cut) + 3 > sizeof part)
                continue;
            strcpy(part, base);
            strcat(part, "[");
            strcat(part, cut);
            strcat(part, "]");
        } else {
            make_chain(s, g, rank);
            strcpy(part, g->text);
        }
        if (strlen(all) + strlen(part) + 40 > sizeof all) /* (room for the axis) */
            continue;
        strcat(all, k ? ", " : "");
        strcat(all, part);
    }
    size_t len = strlen(all);
    snprintf(all + len, sizeof all - len, "], axis=%" PRId64 ")",
             pick(s, 0, 1) ? axis : axis - (int64_t)rank);
    strcpy(g->text, all);
    g->numpy = true;
}

/* Words "--op Split --split L --axis A --output K" joined by \x1f: sizes
 * that add up to a small axis, named at random; or --parts N, --chunks N. */
static void make_split(suite *s, gen_spec *g, size_t rank)
{
    char *t = g->text;
    g->split = true;
    g->split_axis = pick(s, -(int64_t)rank, (int64_t)rank - 1);
    g->nsizes = (int)pick(s, 1, 4);
    g->split_rule = pick(s, 0, 2) ? 0 : (int)pick(s, 1, 2);
    if (g->split_rule != 0)
        snprintf(t, sizeof g->text, "--op\x1fSplit\x1f%s\x1f%d", g->split_rule == 1 ? "--parts" : "--chunks",
                 g->nsizes);
    else
        strcpy(t, "--op\x1fSplit\x1f--split\x1f");
    for (int i = 0; i < g->nsizes && g->split_rule == 0; i++) {
        if (i)
            strcat(t, ",");
        g->sizes[i] = pick(s, 0, 3);
        g->size_name[i] = number_of_kind(s, g, t, sizeof g->text, g->sizes[i], NAME_SIZE, true);
    }
    size_t len = strlen(t);
    snprintf(t + len, sizeof g->text - len, "\x1f--axis\x1f%" PRId64 "\x1f--output\x1f%d", g->split_axis,
             (int)pick(s, 0, g->nsizes - 1));
}

/* Words "--op X --begin L ..." joined by \x1f of op 0-4: StridedSlice,
 * Slice, TrtSlice, OnnxSlice (ends of INT32_MAX and INT64_MAX among
 * them), Pad (axes of Slice, OnnxSlice and Pad named at random too). */
static void make_op(suite *s, gen_spec *g, size_t rank, int op)
{
    char *t = g->text;
    size_t size = sizeof g->text, n;
    static const char *const lists[5][3] = {{"--begin", "--end", "--stride"},
                                            {"--start", "--stop", "--step"},
                                            {"--start", "--size", "--stride"},
                                            {"--start", "--stop", "--step"},
                                            {"--pads-begin", "--pads-end", NULL}};
    static const char *const names[5] = {"StridedSlice", "Slice", "TrtSlice", "OnnxSlice", "Pad"};
    n = op == 2 ? rank : (size_t)pick(s, 0, (int64_t)rank);
    snprintf(t, size, "--op\x1f%s", names[op]);
    for (int l = 0; l < 3 && lists[op][l]; l++) {
        strcat(t, "\x1f");
        strcat(t, lists[op][l]);
        strcat(t, "\x1f");
        for (size_t i = 0; i < n; i++) {
            if (i)
                strcat(t, ",");
            bool stride = l == 2;
            int64_t v = stride              ? (pick(s, 0, 1) ? pick(s, 1, 3) : -pick(s, 1, 3))
                        : op == 2 && l == 1 ? (pick(s, 0, 3) ? pick(s, 0, 4) : pick(s, 16, 80))
                        : op == 3 && l == 1 && pick(s, 0, 1) ? (pick(s, 0, 1) ? INT32_MAX : INT64_MAX)
                                                             : pick(s, -6, 6);
            if (op == 2 && stride && v < 0 && pick(s, 0, 1))
                v = -v;
            number(s, g, t, size, v, stride, true);
        }
    }
    if (op == 0) {
        static const char *const masks[] = {"--begin-mask", "--end-mask", "--new-axis-mask",
                                            "--shrink-axis-mask", "--ellipsis-mask"};
        for (int m = 0; m < 5; m++) {
            if (pick(s, 0, 1))
                continue;
            strcat(t, "\x1f");
            strcat(t, masks[m]);
            strcat(t, "\x1f");
            for (size_t i = 0; i < n; i++)
                strcat(t, i ? (pick(s, 0, 3) ? ",0" : ",1") : (pick(s, 0, 3) ? "0" : "1"));
        }
    } else if (op == 1 || op == 3 || op == 4) {
        strcat(t, "\x1f--axes\x1f");
        bool used[8] = {false};
        for (size_t i = 0; i < n; i++) {
            int64_t a;
            do
                a = pick(s, 0, (int64_t)rank - 1);
            while (used[a]);
            used[a] = true;
            if (i)
                strcat(t, ",");
            number_of_kind(s, g, t, size, pick(s, 0, 1) ? a : a - (int64_t)rank, NAME_AXIS, pick(s, 0, 2) == 0);
        }
        if (op == 4) {
            static const char *const modes[] = {"constant", "edge", "reflect", "wrap"};
            int mode = g->border ? g->border - 1 : (int)pick(s, 0, 3);
            strcat(t, "\x1f--mode\x1f");
            strcat(t, modes[mode]);
            if (mode == 0 && pick(s, 0, 1)) {
                strcat(t, "\x1f--value\x1f");
                number_of_kind(s, g, t, size, 7, NAME_FILL, true);
            }
        }
    } else {
        static const char *const modes[] = {"strict", "wrap", "clamp", "fill", "reflect"};
        static const int of_border[] = {3, 2, 4, 1}; /* Pad's constant, edge, reflect, wrap */
        int mode = g->border && pick(s, 0, 1) ? of_border[g->border - 1] : g->border ? 0 : (int)pick(s, 0, 4);
        strcat(t, "\x1f--mode\x1f");
        strcat(t, modes[mode]);
        if (mode == 3 && pick(s, 0, 1)) {
            strcat(t, "\x1f--fill\x1f");
            number_of_kind(s, g, t, size, 7, NAME_FILL, true);
        }
    }
}

/* make_op's words, or Split's (make_split). */
static void make_words(suite *s, gen_spec *g, size_t rank)
{
    int op = (int)pick(s, 0, rank ? 5 : 4);
    if (op == 5)
        make_split(s, g, rank);
    else
        make_op(s, g, rank, op);
}

/* A program of model layers, what `aot --fuse` makes of a chain: two or
 * three of make_op's Slice, TrtSlice, OnnxSlice and Pad, each of the rank
 * it keeps, in one border mode (TrtSlice's strict mode besides), written
 * OP(operand, "WORDS"), their numbers written in (a
 * fused layer's are constants): over `?` dimensions, a kernel of runtime
 * values, each layer with its own semantics and checks (infer.c,
 * chain_layer) against the static planner's (program.c). */
static void make_layers(suite *s, gen_spec *g, size_t rank)
{
    static const char *const names[5] = {"StridedSlice", "Slice", "TrtSlice", "OnnxSlice", "Pad"};
    char chain[sizeof g->text] = "x", wrapped[sizeof g->text], words[sizeof g->text];
    g->numbers_only = true;
    g->border = (int)pick(s, 1, 4); /* a chain has one (infer.c) */
    for (int k = 0, n = (int)pick(s, 2, 3); k < n; k++) {
        int op = (int)pick(s, 1, 4);
        make_op(s, g, rank, op);
        /* the words after "--op OP", spaced, an empty list as '' */
        const char *w = g->text + strlen("--op\x1f") + strlen(names[op]);
        words[0] = '\0';
        for (const char *p = w; *p == '\x1f';) {
            const char *end = strchr(p + 1, '\x1f');
            size_t len = end ? (size_t)(end - p - 1) : strlen(p + 1);
            size_t at = strlen(words);
            snprintf(words + at, sizeof words - at, "%s%.*s", at ? " " : "", len ? (int)len : 2,
                     len ? p + 1 : "''");
            p = end ? end : p + 1 + len;
        }
        if (snprintf(wrapped, sizeof wrapped, "%s(%s, \"%s\")", names[op], chain, words) < (int)sizeof wrapped)
            strcpy(chain, wrapped);
    }
    strcpy(g->text, chain);
    g->numbers_only = false;
    g->border = 0;
    g->numpy = true;
}

static sg_status parse(suite *s, const gen_spec *g, sg_spec **spec)
{
    if (g->numpy)
        return sg_spec_numpy(s->ctx, g->text, spec);
    char copy[sizeof g->text], *words[64];
    int n = 0;
    strcpy(copy, g->text);
    words[n++] = copy;
    for (char *p = copy; *p && n < 64; p++)
        if (*p == '\x1f') {
            *p = '\0';
            words[n++] = p + 1; /* may be empty: an empty list */
        }
    return sg_spec_from_words(s->ctx, n, words, spec);
}

/* ---- buffers ------------------------------------------------------------------------ */

enum { GUARD = 64, MAX_RUN_BYTES = 4 << 20 };

/* `bytes` bytes ending at a PROT_NONE page; *map and *map_len for munmap. */
static unsigned char *fenced(size_t bytes, void **map, size_t *map_len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + GUARD + page - 1) / page * page;
    *map_len = span + page;
    *map = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*map == MAP_FAILED)
        return NULL;
    mprotect((unsigned char *)*map + span, page, PROT_NONE);
    return (unsigned char *)*map + span - bytes;
}

static void text_of(const gen_spec *g, char *out, size_t size)
{
    snprintf(out, size, "%s", g->text);
    for (char *p = out; *p; p++)
        *p = *p == '\x1f' ? ' ' : *p;
}

/* Whether two args hold the same numbers in every slot the plan's prologue writes. */
static bool same_slots(const sg_plan *plan, const sg_args *a, const sg_args *b)
{
    sg_val vals[SG_ARG_COUNT];
    int slots[SG_ARG_COUNT];
    size_t n = sg_sym_slots(plan, vals, slots);
    for (size_t i = 0; i < n; i++)
        if (((const int64_t *)a)[slots[i]] != ((const int64_t *)b)[slots[i]])
            return false;
    return true;
}

/* One call of kernel (of plan, of spec g) on an input of `shape` with
 * `values`, against the reference. */
static void check_call(suite *s, const gen_spec *g, const sg_plan *plan, const sg_kernel *kernel, int call,
                       const int64_t *shape, const int64_t *values)
{
    size_t rank = plan->in_rank, nvalues = sg_plan_value_count(plan);
    char spec_text[1100], vals[256] = "";
    text_of(g, spec_text, sizeof spec_text);
    for (size_t i = 0; i < nvalues; i++)
        snprintf(vals + strlen(vals), sizeof vals - strlen(vals), " %s=%" PRId64, sg_plan_value_name(plan, i),
                 values[i]);
    char where[1600];
    snprintf(where, sizeof where, "%s, shape [", spec_text);
    for (size_t i = 0; i < rank; i++)
        snprintf(where + strlen(where), sizeof where - strlen(where), "%s%" PRId64, i ? "," : "", shape[i]);
    snprintf(where + strlen(where), sizeof where - strlen(where), "],%s (call %d)", vals, call);

    sg_plan *bound = NULL;
    sg_status want = sg_plan_specialize(s->ctx, plan, shape, values, &bound);
    char want_error[512];
    snprintf(want_error, sizeof want_error, "%s", sg_context_last_error(s->ctx));
    if (want != SG_OK && strstr(want_error, " parts (a pad much wider than its axis") != NULL) {
        s->beyond_parts++; /* a chain's pad needs no parts: nothing to compare with */
        return;
    }
    sg_args args, before;
    memset(&args, 0x5a, sizeof args);
    before = args;
    /* the prologue's arguments flush against PROT_NONE pages: it reads and
     * writes nothing past them */
    void *maps[3];
    size_t lens[3];
    sg_args *fenced_args = (sg_args *)fenced(sizeof args, &maps[0], &lens[0]);
    int64_t *fenced_shape = (int64_t *)fenced(rank * sizeof *shape, &maps[1], &lens[1]);
    int64_t *fenced_values = (int64_t *)fenced(nvalues * sizeof *values, &maps[2], &lens[2]);
    *fenced_args = args;
    memcpy(fenced_shape, shape, rank * sizeof *shape);
    memcpy(fenced_values, values, nvalues * sizeof *values);
    sg_status got = sg_kernel_prepare(s->ctx, kernel, fenced_shape, fenced_values, fenced_args);
    args = *fenced_args;
    for (int i = 0; i < 3; i++)
        munmap(maps[i], lens[i]);
    s->calls++;
    if (want != SG_OK || got != SG_OK) {
        s->refused += want != SG_OK;
        s->both_refused += want != SG_OK && got != SG_OK;
        CHECK(s, (want == SG_OK) == (got == SG_OK), "%s: the reference %s (%s), the prologue %s (%s)", where,
              want == SG_OK ? "accepts" : "refuses", want == SG_OK ? "" : want_error,
              got == SG_OK ? "accepts" : "refuses", got == SG_OK ? "" : sg_context_last_error(s->ctx));
        if (got != SG_OK)
            CHECK(s, memcmp(&args, &before, sizeof args) == 0, "%s: a refused call wrote args", where);
        sg_args unused;
        sg_error err = {0};
        int code = 0;
        sg_plan_prepare(plan, shape, values, (int64_t *)&unused, &code, &err);
        if (s->batch && call < AOT_CALLS && want != SG_OK && got != SG_OK)
            add_call(s, plan, where, shape, values, code, "", 0, "", 0);
        sg_plan_destroy(bound);
        return;
    }
    /* the planner's evaluation of the same plan */
    sg_args c_args;
    sg_error err = {0};
    int code;
    CHECK(s,
          sg_plan_prepare(plan, shape, values, (int64_t *)&c_args, &code, &err) == SG_OK &&
              same_slots(plan, &c_args, &args),
          "%s: the prologue's numbers differ from the planner's%s%s", where, err.message[0] ? ": " : "",
          err.message);
    bool same_shape =
        (size_t)args.out_rank == bound->out_rank && (uint64_t)args.output_bytes == bound->out_bytes;
    for (size_t i = 0; same_shape && i < bound->out_rank; i++)
        same_shape = args.out_shape[i] == bound->out_shape[i];
    if (!CHECK(s, same_shape, "%s: output shape or size differs from the reference's", where)) {
        sg_plan_destroy(bound);
        return;
    }
    size_t in_bytes = bound->in_bytes, out_bytes = bound->out_bytes;
    if (in_bytes > MAX_RUN_BYTES || out_bytes > MAX_RUN_BYTES) { /* planned, not run */
        sg_plan_destroy(bound);
        return;
    }
    void *in_map, *out_map;
    size_t in_len, out_len;
    unsigned char *in = fenced(in_bytes, &in_map, &in_len), *out = fenced(out_bytes, &out_map, &out_len);
    unsigned char *expected = malloc(out_bytes + 1);
    for (size_t i = 0; i < in_bytes; i++)
        in[i] = (unsigned char)next(s);
    memset(out - GUARD, 0xa5, out_bytes + GUARD);
    sg_run_reference(s->ctx, bound, in, expected);
    int threads = (int)pick(s, 1, 3);
    got = sg_kernel_run_args(s->ctx, kernel, in, out, &args, threads);
    long diff = first_difference(out, expected, out_bytes);
    bool guard = true;
    for (int i = 0; i < GUARD; i++)
        guard = guard && out[i - GUARD] == 0xa5;
    CHECK(s, got == SG_OK && diff < 0 && guard, "%s: %s on %d threads", where,
          got != SG_OK ? sg_context_last_error(s->ctx)
          : !guard     ? "wrote before the output"
                       : "output differs",
          threads);
    if (s->batch && call < AOT_CALLS)
        add_call(s, plan, where, shape, values, 0, in, in_bytes, expected, out_bytes);
    if (s->gpu_kernel) {
        unsigned char *want = malloc(out_bytes + 2 * GUARD);
        memset(want, 0xA5, out_bytes + 2 * GUARD);
        memcpy(want + GUARD, expected, out_bytes);
        uint64_t cuts[4] = {next(s), next(s), next(s), next(s)};
        long at;
        const char *failed = gpu_values_check(s->gpu, s->gpu_kernel, in, &args, want, GUARD, cuts, &at);
        CHECK(s, failed == NULL, "%s: GPU kernel: %s at output byte %ld", where, failed, at);
        s->gpu_calls++;
        free(want);
    }
    free(expected);
    munmap(in_map, in_len);
    munmap(out_map, out_len);
    sg_plan_destroy(bound);
}

/* The index among the plan's values of name v<k>. */
static size_t value_index(const sg_plan *plan, int k)
{
    for (size_t i = 0; i < sg_plan_value_count(plan); i++)
        if (atoi(sg_plan_value_name(plan, i) + 1) == k)
            return i;
    return 0;
}

/* Makes a Split's sizes add up to its axis: the axis a `?` dimension of
 * their sum, or else the first named size what the axis leaves (sums
 * wrap: the sizes drawn may be extreme, and are then refused). */
static void fit_split(suite *s, const gen_spec *g, const sg_plan *plan, int64_t *shape, int64_t *values)
{
    size_t axis = (size_t)(g->split_axis < 0 ? g->split_axis + (int64_t)plan->in_rank : g->split_axis);
    if (g->split_rule != 0) { /* parts: a multiple of them; chunks: more than (n - 1) ceil(d / n) */
        if (plan->in_shape[axis] < 0)
            shape[axis] = g->nsizes * pick(s, 0, 3) + (g->split_rule == 2 ? pick(s, 0, g->nsizes - 1) : 0);
        return;
    }
    uint64_t sum = 0;
    int free_name = -1;
    for (int i = 0; i < g->nsizes; i++) {
        int k = g->size_name[i];
        if (k >= 0 && free_name < 0 && (plan->in_shape[axis] >= 0 || pick(s, 0, 1)))
            free_name = i;
        else
            sum += (uint64_t)(k >= 0 ? values[value_index(plan, k)] : g->sizes[i]);
    }
    if (free_name >= 0)
        values[value_index(plan, g->size_name[free_name])] = (int64_t)((uint64_t)shape[axis] - sum);
    else if (plan->in_shape[axis] < 0)
        shape[axis] = (int64_t)sum;
}

/* One call: shape and values drawn, kernel against reference. */
static void one_call(suite *s, const gen_spec *g, const sg_plan *plan, const sg_kernel *kernel, int call)
{
    size_t rank = plan->in_rank, nvalues = sg_plan_value_count(plan);
    int64_t shape[8], values[8];
    size_t long_axis = rank ? (size_t)pick(s, 0, (int64_t)rank - 1) : 0; /* long rows: vector code */
    bool long_rows = pick(s, 0, 2) == 0;
    for (size_t i = 0; i < rank; i++)
        shape[i] = plan->in_shape[i] >= 0        ? plan->in_shape[i]
                   : next(s) % 32 == 0           ? -pick(s, 1, 3)
                   : i == long_axis && long_rows ? pick(s, 16, 100)
                                                 : pick(s, 0, 6);
    for (size_t i = 0; i < nvalues; i++) {
        int named = atoi(sg_plan_value_name(plan, i) + 1);
        values[i] = draw_value(s, g->kind[named], rank);
    }
    if (g->split && pick(s, 0, 3)) /* mostly sizes that add up: the axis, or a named size, made to fit */
        fit_split(s, g, plan, shape, values);
    check_call(s, g, plan, kernel, call, shape, values);
}

/* The GPU kernel of plan, where the suite emulates GPU kernels, which
 * check_call then runs too (`what` and `index` name the case); gpu_end
 * drops it. */
static void gpu_begin(suite *s, const sg_plan *plan, int level, const char *what, int index)
{
    const char *why = NULL;
    if (s->gpu == NULL)
        return;
    s->gpu_kernel = gpu_values_compile(s->gpu, plan, level, &why);
    if (plan->op == SG_OP_PROGRAM) { /* a concatenate: refused, saying so */
        s->gpu_refused++;
        CHECK(s, s->gpu_kernel == NULL && why && strstr(why, "not supported on GPUs yet"),
              "%s %d: a concatenate's GPU kernel: %s", what, index, why ? why : "compiled");
        gpu_values_destroy(s->gpu, s->gpu_kernel);
        s->gpu_kernel = NULL;
        return;
    }
    CHECK(s, s->gpu_kernel != NULL, "%s %d: GPU kernel: %s", what, index, why);
    gpu_engine_keep(s->gpu, plan);
}

static void gpu_end(suite *s)
{
    gpu_values_destroy(s->gpu, s->gpu_kernel);
    s->gpu_kernel = NULL;
}

/* Calls that once went wrong, each on the shapes and values given. */
static void regressions(suite *s)
{
    static const struct {
        const char *words; /* separated by spaces */
        int64_t dims[3];   /* -1: ? */
        int64_t call[3];
        int64_t values[2];
        size_t rank;
        sg_dtype dtype;
    } cases[] = {
        /* a zero stride (a broadcast) over an empty interior: its element,
         * far outside the empty input, must not be read */
        {"--op TrtSlice --start -2147483648 --size 5 --stride 0 --mode fill --fill 7",
         {-1},
         {0},
         {0},
         1,
         SG_U8},
        {"--op TrtSlice --start 0,v0 --size 3,40 --stride 1,0 --mode fill", {2, -1}, {2, 0}, {5}, 2, SG_F32},
        /* a GPU kernel's 16-byte chunks of a mapped loop over an outer
         * axis (a column of a chain's rolled rows): element by element,
         * not one copy of the elements after the first */
        {"np.roll(x,0,axis=0)[:,v0]", {-1, 8}, {9, 8}, {2}, 2, SG_F32},
        {"np.pad(x[:,::v0],(0,1),mode='edge')", {-1, -1}, {3, 40}, {2}, 2, SG_U8},
        /* the dimensions a mode leaves whole are the run: pixels of 3 bytes
         * (an edge's border no pattern of one store), of a count known per
         * call (the interior copied as such) */
        {"--op Pad --pads-begin 1,2,0 --pads-end 2,1,0 --mode edge", {-1, -1, 3}, {4, 5, 3}, {0}, 3, SG_U8},
        {"--op Pad --pads-begin 0,v0,0 --pads-end 1,2,0 --mode reflect", {-1, -1, -1}, {2, 6, 5}, {3}, 3, SG_I16},
        {"--op Pad --pads-begin v0,2,0 --pads-end 0,1,0 --value 7", {-1, -1, -1}, {3, 4, 6}, {1}, 3, SG_F32},
        /* a layer by a border mode with an empty output dimension: the
         * static program planner (the reference) read a piece of it */
        {"TrtSlice(x, \"--start 3,-3 --size 4,0 --stride 2,1 --mode wrap\")", {-1, -1}, {5, 3}, {0}, 2, SG_U8},
        /* a concatenate in lockstep over blocks of 64 of its 300 steps, and
         * one laid end to end (parts of other outer ranges) */
        {"np.concatenate([x[:,::2],x[:,1::2]],axis=1)", {-1, -1}, {300, 64}, {0}, 2, SG_F32},
        {"np.concatenate([x[:,::2],x[::-1,1::2],x[:v0,::2]],axis=0)", {-1, -1}, {300, 64}, {77}, 2, SG_U8},
        /* a Pad layer's crop then reflect, of a reversed view (chain_layer) */
        {"Pad(OnnxSlice(x, \"--start -1 --stop -9223372036854775807 --step -1 --axes 1\"), \"--pads-begin 0,2 "
         "--pads-end -1,3 --mode reflect\")",
         {-1, -1},
         {3, 7},
         {0},
         2,
         SG_F32},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gen_spec g = {0};
        snprintf(g.text, sizeof g.text, "%s", cases[k].words);
        g.numpy = cases[k].words[0] != '-';
        for (char *p = g.text; *p && !g.numpy; p++)
            *p = *p == ' ' ? '\x1f' : *p;
        sg_spec *spec = NULL;
        sg_plan *plan = NULL;
        sg_kernel *kernel = NULL;
        if (CHECK(s,
                  parse(s, &g, &spec) == SG_OK &&
                      sg_plan_create(s->ctx, spec, cases[k].rank, cases[k].dims, cases[k].dtype, &plan) ==
                          SG_OK &&
                      sg_kernel_compile(s->ctx, plan, 2, &kernel) == SG_OK,
                  "regression %zu: %s", k, sg_context_last_error(s->ctx))) {
            s->spec = spec;
            gpu_begin(s, plan, 2, "regression", (int)k);
            check_call(s, &g, plan, kernel, (int)k, cases[k].call, cases[k].values);
            gpu_end(s);
        }
        s->spec = NULL;
        sg_kernel_release(kernel);
        sg_plan_destroy(plan);
        sg_spec_destroy(spec);
    }
}

static void one_case(suite *s, int index)
{
    gen_spec g = {0};
    size_t rank = (size_t)pick(s, 0, 4);
    int64_t shape[8];
    for (size_t i = 0; i < rank; i++)
        shape[i] = pick(s, 0, 2) ? -1 : pick(s, 0, 6);
    int64_t form = pick(s, 0, 6); /* 2 in 7 an index, 1 a chain, 1 layers, 1 a concatenate, 2 words */
    if (form < 2)
        make_numpy(s, &g, rank);
    else if (form == 2)
        make_chain(s, &g, rank);
    else if (form == 3)
        make_layers(s, &g, rank);
    else if (form == 4)
        make_concat(s, &g, rank);
    else
        make_words(s, &g, rank);
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    sg_dtype dtypes[] = {SG_U8, SG_I16, SG_F32, SG_F64};
    sg_dtype dtype = dtypes[pick(s, 0, 3)];
    s->spec = NULL;
    if (parse(s, &g, &spec) != SG_OK) { /* the generator's masks may be invalid (two ellipses) */
        s->invalid++;
        return;
    }
    if (sg_plan_create(s->ctx, spec, rank, shape, dtype, &plan) == SG_OK && !sg_plan_is_symbolic(plan)) {
        sg_plan_destroy(plan); /* every number known: other tests' business */
        plan = NULL;
    }
    s->spec = spec;
    if (plan != NULL) {
        int level = (int)pick(s, 0, 2);
        s->layer_kernels += form == 3;
        s->concat_kernels += form == 4;
        gpu_begin(s, plan, level, "case", index);
        if (CHECK(s, sg_kernel_compile(s->ctx, plan, level, &kernel) == SG_OK, "case %d: compile: %s", index,
                  sg_context_last_error(s->ctx)))
            for (int call = 0; call < 24; call++)
                one_call(s, &g, plan, kernel, call);
        gpu_end(s);
    }
    sg_kernel_release(kernel);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
}

/* The API around symbolic plans and kernels, case by case. */
static void api_checks(suite *s)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL, *again = NULL, *parsed = NULL;
    sg_kernel *kernel = NULL, *fixed = NULL;
    int64_t shape[2] = {-1, 6}, call[2] = {4, 6}, values[1] = {2};
    if (!CHECK(s,
               sg_spec_numpy(s->ctx, "[:, :t]", &spec) == SG_OK &&
                   sg_plan_create(s->ctx, spec, 2, shape, SG_F32, &plan) == SG_OK &&
                   sg_plan_create(s->ctx, spec, 2, shape, SG_F32, &again) == SG_OK,
               "api: plan [:, :t] on [?, 6]: %s", sg_context_last_error(s->ctx)))
        return;
    CHECK(s,
          sg_plan_is_symbolic(plan) && sg_plan_value_count(plan) == 1 &&
              strcmp(sg_plan_value_name(plan, 0), "t") == 0 && sg_plan_value_name(plan, 1) == NULL,
          "api: values of the plan");
    CHECK(s,
          sg_plan_output_shape(plan)[0] == -1 && sg_plan_output_shape(plan)[1] == -1 &&
              sg_plan_input_shape(plan)[0] == -1 && sg_plan_input_rank(plan) == 2,
          "api: shapes of the plan");
    CHECK(s, sg_plan_equal(plan, again), "api: two plans of one spec are equal");
    char *text = sg_plan_to_text(plan);
    CHECK(s, text && sg_plan_parse(s->ctx, text, &parsed) == SG_OK && sg_plan_is_symbolic(parsed) &&
                 sg_plan_equal(plan, parsed),
          "api: a symbolic plan's text reads back by its spec: %s", sg_context_last_error(s->ctx));
    free(text);
    float in[24] = {0}, out[24];
    CHECK(s, sg_run_reference(s->ctx, plan, in, out) == SG_ERR_USAGE,
          "api: the reference needs a static plan");
    sg_args args;
    if (CHECK(s, sg_kernel_compile(s->ctx, plan, 1, &kernel) == SG_OK, "api: compile: %s",
              sg_context_last_error(s->ctx))) {
        CHECK(s,
              sg_kernel_function(kernel) == NULL && sg_kernel_outer_extent(kernel) == -1 &&
                  sg_kernel_prepare_function(kernel) != NULL && sg_kernel_args_function(kernel) != NULL &&
                  sg_kernel_value_count(kernel) == 1,
              "api: a symbolic kernel's functions");
        CHECK(s,
              sg_kernel_run(s->ctx, kernel, in, out, 1) == SG_ERR_USAGE &&
                  strstr(sg_context_last_error(s->ctx), "takes runtime values") != NULL,
              "api: sg_kernel_run refuses a symbolic kernel: %s", sg_context_last_error(s->ctx));
        CHECK(s, sg_kernel_run_values(s->ctx, kernel, in, call, values, out, 2) == SG_OK,
              "api: run_values: %s", sg_context_last_error(s->ctx));
        call[1] = 7;
        CHECK(s,
              sg_kernel_prepare(s->ctx, kernel, call, values, &args) == SG_ERR_USAGE &&
                  strstr(sg_context_last_error(s->ctx), "input dimension 1 has size 7, the kernel's has 6"),
              "api: a fixed dimension that differs: %s", sg_context_last_error(s->ctx));
        sg_kernel *hit = NULL;
        CHECK(s, sg_kernel_compile(s->ctx, again, 1, &hit) == SG_OK && hit == kernel,
              "api: an equal symbolic plan is a cache hit");
        sg_kernel_release(hit);
    }
    shape[0] = 4;
    sg_plan *static_plan = NULL;
    sg_spec *typed = NULL;
    if (sg_spec_numpy(s->ctx, "[:, :2]", &typed) == SG_OK &&
        sg_plan_create(s->ctx, typed, 2, shape, SG_F32, &static_plan) == SG_OK &&
        sg_kernel_compile(s->ctx, static_plan, 1, &fixed) == SG_OK)
        CHECK(s,
              sg_kernel_prepare(s->ctx, fixed, call, values, &args) == SG_ERR_USAGE &&
                  sg_kernel_prepare_function(fixed) == NULL,
              "api: a static kernel takes no values");
    sg_kernel_release(fixed);
    sg_plan_destroy(static_plan);
    sg_spec_destroy(typed);
    sg_kernel_release(kernel);
    sg_plan_destroy(parsed);
    sg_plan_destroy(again);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
}

/* Calls large enough for the per-call choices: the outer range of the two
 * outermost loops (an output of 256 KiB or more under a short outer loop),
 * streaming stores above the threshold (SLICEGEN_STREAM_THRESHOLD), row
 * prefetching; on 1-3 threads against the reference. Run twice: with the
 * threshold this machine has, and with SLICEGEN_STREAM_THRESHOLD=0 in a
 * context of its own, where every call of long runs takes the streamed
 * body (which has no bodies for short runs). */
static void large_checks_once(suite *s);

/* A spec of command-line words (text starting with "--", split at
 * spaces) or a NumPy expression. */
static sg_status words_or_numpy(sg_context *ctx, const char *text, sg_spec **spec)
{
    if (strncmp(text, "--", 2) != 0)
        return sg_spec_numpy(ctx, text, spec);
    char copy[128], *words[32];
    int n = 0;
    snprintf(copy, sizeof copy, "%s", text);
    for (char *w = strtok(copy, " "); w != NULL && n < 32; w = strtok(NULL, " "))
        words[n++] = w;
    return sg_spec_from_words(ctx, n, words, spec);
}

static void large_checks(suite *s)
{
    large_checks_once(s);
    const char *saved = getenv("SLICEGEN_STREAM_THRESHOLD");
    char *copy = saved ? strdup(saved) : NULL;
    sg_context *ctx = s->ctx, *streamed = NULL;
    setenv("SLICEGEN_STREAM_THRESHOLD", "0", 1);
    if (CHECK(s, sg_context_create(&streamed) == SG_OK, "large checks, streamed: no context")) {
        s->ctx = streamed;
        large_checks_once(s);
        s->ctx = ctx;
        sg_context_destroy(streamed);
    }
    if (copy != NULL)
        setenv("SLICEGEN_STREAM_THRESHOLD", copy, 1);
    else
        unsetenv("SLICEGEN_STREAM_THRESHOLD");
    free(copy);
}

static void large_checks_once(suite *s)
{
    /* the TensorRT pads: mapped nests, streamed where every piece is (u8
     * and f16 on x86 where the call's rows are whole 4-byte pieces: the
     * clamp of f16 and the first reflect of u8, not the second) */
    static const char *const specs[] = {"[:, 1:, ::2]",
                                        "[:, a:b, ::-1]",
                                        "[i, :, c:]",
                                        "[:, :, :t]",
                                        "--op TrtSlice --start 0,-8,-8 --size 4,a,b --mode reflect",
                                        "--op TrtSlice --start 0,-5,-3 --size 4,a,b --mode wrap",
                                        "--op TrtSlice --start 0,-2,-12 --size 4,a,b --mode clamp",
                                        "--op TrtSlice --start 0,-4,-4 --size 4,a,b --mode reflect",
                                        "--op TrtSlice --start 0,-3,-3 --size 4,a,b --mode reflect"};
    static const int64_t shapes[][4] = {{3, 300, 400, 0},  {2, 500, 301, 0}, {4, 200, 2000, 0},
                                        {1, 32, 512, 128}, {4, 256, 256, 0}, {4, 256, 256, 0},
                                        {8, 512, 1000, 0}, {16, 512, 512, 0}, {16, 512, 512, 0}};
    static const size_t ranks[] = {3, 3, 3, 4, 3, 3, 3, 3, 3};
    static const int64_t values[][2] = {{0, 0},     {-400, 480}, {2, 7},     {300, 0},  {272, 272},
                                        {270, 263}, {516, 1024}, {520, 520}, {518, 518}};
    static const sg_dtype dtypes[] = {SG_F32, SG_F32, SG_F32, SG_F32, SG_F32, SG_F32, SG_F16, SG_U8, SG_U8};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sg_spec *spec = NULL;
        sg_plan *plan = NULL, *bound = NULL;
        sg_kernel *kernel = NULL;
        int64_t dims[4];
        for (size_t i = 0; i < ranks[k]; i++)
            dims[i] = i == 0 ? shapes[k][i] : -1;
        if (!CHECK(s,
                   words_or_numpy(s->ctx, specs[k], &spec) == SG_OK &&
                       sg_plan_create(s->ctx, spec, ranks[k], dims, dtypes[k], &plan) == SG_OK &&
                       sg_kernel_compile(s->ctx, plan, 2, &kernel) == SG_OK &&
                       sg_plan_specialize(s->ctx, plan, shapes[k], values[k], &bound) == SG_OK,
                   "large %s: %s", specs[k], sg_context_last_error(s->ctx)))
            continue;
        size_t in_bytes = sg_plan_input_bytes(bound), out_bytes = sg_plan_output_bytes(bound);
        unsigned char *in = malloc(in_bytes), *want = malloc(out_bytes), *got = malloc(out_bytes);
        for (size_t i = 0; i < in_bytes; i++)
            in[i] = (unsigned char)next(s);
        sg_run_reference(s->ctx, bound, in, want);
        for (int threads = 1; threads <= 3; threads++) {
            memset(got, 0xa5, out_bytes);
            CHECK(s,
                  sg_kernel_run_values(s->ctx, kernel, in, shapes[k], values[k], got, threads) == SG_OK &&
                      memcmp(got, want, out_bytes) == 0,
                  "large %s on %d threads: %s", specs[k], threads,
                  first_difference(got, want, out_bytes) >= 0 ? "output differs"
                                                              : sg_context_last_error(s->ctx));
        }
        free(in);
        free(want);
        free(got);
        sg_kernel_release(kernel);
        sg_plan_destroy(bound);
        sg_plan_destroy(plan);
        sg_spec_destroy(spec);
    }
}

int main(int argc, char **argv)
{
    suite s = {.counts = CHECK_COUNTS_INIT, .aot = {.opt_level = 1}};
    for (int i = 1; i < argc; i++) {
        if (!aot_config_option(&s.aot, argc, argv, &i)) {
            fprintf(stderr,
                    "usage: test_symbolic [--aot-runner FILE [--aot-target T] [--aot-cpu C] [--aot-cc CC] "
                    "[--aot-exec WORDS]]\n");
            return 2;
        }
    }
    if (s.aot.runner)
        s.batch = aot_batch_create();
    uint64_t seed =
        getenv("SLICEGEN_SEED") ? strtoull(getenv("SLICEGEN_SEED"), NULL, 10) : (uint64_t)time(NULL);
    long cases = getenv("SLICEGEN_SYMBOLIC_CASES") ? atol(getenv("SLICEGEN_SYMBOLIC_CASES")) : 300;
    printf("test_symbolic: seed %" PRIu64 " (SLICEGEN_SEED=%" PRIu64 " reproduces it), %ld cases\n", seed,
           seed, cases);
    s.rng = seed * 0x9e3779b97f4a7c15u | 1;
    if (sg_context_create(&s.ctx) != SG_OK)
        return 1;
    if (!s.batch && (s.gpu = gpu_engine_create(s.ctx, 200)) == NULL)
        CHECK(&s, false, "the GPU engine");
    api_checks(&s);
    large_checks(&s);
    regressions(&s);
    for (long i = 0; i < cases; i++)
        one_case(&s, (int)i);
    printf("test_symbolic: %d calls, %d refused by the reference (%d by both), %d beyond its parts; %d of %ld "
           "specs invalid; %d kernels of programs of layers, %d of concatenates\n",
           s.calls, s.refused, s.both_refused, s.beyond_parts, s.invalid, cases, s.layer_kernels,
           s.concat_kernels);
    CHECK(&s, s.invalid * 4 < cases, "most specs are valid");
    if (s.gpu) {
        const char *why;
        printf("test_symbolic: %d concatenates refused by the GPU kernels (not supported yet)\n", s.gpu_refused);
        printf("test_symbolic: %d calls of GPU kernels emulated%s%s\n", s.gpu_calls,
               gpu_engine_has_device(s.gpu, &why) ? " and run on the CUDA device" : "; no CUDA device: ",
               gpu_engine_has_device(s.gpu, &why) ? "" : why);
        s.counts.failed += gpu_engine_check_ptx(s.gpu);
        gpu_engine_destroy(s.gpu);
    }
    if (s.batch) {
        printf("test_symbolic: %zu calls of objects for %s\n", aot_batch_size(s.batch),
               s.aot.target ? s.aot.target : "the host");
        aot_batch_run(s.batch, s.ctx, &s.aot, &s.counts.passed, &s.counts.failed);
        aot_batch_destroy(s.batch);
    }
    sg_context_destroy(s.ctx);
    return finish("test_symbolic", &s.counts);
}

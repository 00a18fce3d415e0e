/* Seeded property tests over random slices (reference engine):
 *   - a StridedSlice, the equivalent NumPy expression and (for plain
 *     slices) the equivalent Slice-8 give the same output, except where
 *     docs/semantics.md says NumPy differs (a reverse begin below -d);
 *   - the output byte count equals the product of the inferred shape;
 *   - a plan printed, read back and printed again is the same plan; so is
 *     a plan of runtime values and a program's, read by its spec, and
 *     every golden plan (test_props GOLDEN_DIR: tests/golden).
 * SLICEGEN_SEED=N reproduces a run; the seed is always printed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/runtime.h"
#include "../support/seeded.h"

static int passed, failed;
static uint64_t seed;

typedef struct item {
    enum { SLICE, INDEX, NEW_AXIS, ELLIPSIS } kind;
    bool has_begin, has_end;
    int64_t begin, end, stride;
} item;

/* Prints the plan to a string (caller frees). (Not inlined: gcc 12 then
 * takes the text for a pointer to the local the stream wrote it through.) */
__attribute__((noinline)) static char *plan_text(const sg_plan *plan)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sg_plan_print(plan, f);
    fclose(f);
    return buf;
}

static void report(int k, const char *what, const char *expr)
{
    fprintf(stderr, "FAIL case %d (seed %llu): %s; expression %s\n", k, (unsigned long long)seed, what, expr);
    failed++;
}

/* Plans and runs spec on `in`; returns the malloc'd output or NULL. */
static uint8_t *run(sg_context *ctx, const sg_spec *spec, size_t rank, const int64_t *shape,
                    const void *in, sg_plan **plan_out)
{
    sg_plan *plan;
    if (sg_plan_create(ctx, spec, rank, shape, SG_I32, &plan) != SG_OK)
        return NULL;
    uint8_t *out = malloc(sg_plan_output_bytes(plan) + 1);
    sg_run_reference(ctx, plan, in, out);
    *plan_out = plan;
    return out;
}

static void check_round_trip(sg_context *ctx, const sg_plan *plan, int k, const char *expr)
{
    char *text = plan_text(plan);
    sg_plan *back = NULL;
    if (sg_plan_parse(ctx, text, &back) != SG_OK) {
        report(k, sg_context_last_error(ctx), expr);
    } else {
        char *again = plan_text(back);
        if (!sg_plan_equal(plan, back) || strcmp(text, again) != 0) {
            report(k, "plan text does not round-trip", expr);
            fprintf(stderr, "%s---\n%s", text, again);
        }
        free(again);
    }
    sg_plan_destroy(back);
    free(text);
    int64_t count = 1;
    for (size_t i = 0; i < sg_plan_output_rank(plan); i++)
        count *= sg_plan_output_shape(plan)[i];
    if (sg_plan_output_bytes(plan) != (uint64_t)count * sg_dtype_size(sg_plan_dtype(plan)))
        report(k, "output bytes differ from the product of the shape", expr);
}

static void one_case(sg_context *ctx, int k)
{
    size_t rank = (size_t)between(0, 4), nitems = 0;
    int64_t shape[8], count = 1;
    for (size_t i = 0; i < rank; i++)
        count *= shape[i] = between(0, 6);
    item items[8];
    bool ellipsis = false, only_slices = true, numpy_empty = false;
    size_t consumed = 0;
    while (nitems < 6 && rnd() % 5 != 0) {
        item it = {.kind = SLICE, .stride = 1};
        int pick = (int)(rnd() % 10);
        if (pick == 0 && !ellipsis) {
            it.kind = ELLIPSIS;
            ellipsis = true;
        } else if (pick == 1) {
            it.kind = NEW_AXIS;
        } else if (pick == 2 && consumed < rank && shape[consumed] > 0) {
            it.kind = INDEX;
            it.begin = between(-shape[consumed], shape[consumed] - 1);
        } else {
            it.has_begin = rnd() % 3 != 0;
            it.has_end = rnd() % 3 != 0;
            it.begin = between(-9, 9);
            it.end = between(-9, 9);
            do
                it.stride = between(-4, 4);
            while (it.stride == 0);
        }
        bool consumes = it.kind == INDEX || it.kind == SLICE;
        if (consumes && consumed == rank)
            break;
        consumed += consumes;
        only_slices &= it.kind == SLICE;
        items[nitems++] = it;
    }
    /* Build the three forms. */
    int64_t b[8], e[8], s[8], bm[8], em[8], nm[8], sm[8], xm[8], start[8], stop[8], axes[8];
    char expr[512];
    size_t len = 0;
    len += (size_t)snprintf(expr + len, sizeof expr - len, "x[");
    for (size_t i = 0; i < nitems; i++) {
        const item *it = &items[i];
        b[i] = it->begin, e[i] = it->end, s[i] = it->stride;
        bm[i] = !it->has_begin, em[i] = !it->has_end;
        nm[i] = it->kind == NEW_AXIS, sm[i] = it->kind == INDEX, xm[i] = it->kind == ELLIPSIS;
        if (i)
            len += (size_t)snprintf(expr + len, sizeof expr - len, ", ");
        if (it->kind == NEW_AXIS)
            len += (size_t)snprintf(expr + len, sizeof expr - len, "None");
        else if (it->kind == ELLIPSIS)
            len += (size_t)snprintf(expr + len, sizeof expr - len, "...");
        else if (it->kind == INDEX)
            len += (size_t)snprintf(expr + len, sizeof expr - len, "%lld", (long long)it->begin);
        else {
            if (it->has_begin)
                len += (size_t)snprintf(expr + len, sizeof expr - len, "%lld", (long long)it->begin);
            len += (size_t)snprintf(expr + len, sizeof expr - len, ":");
            if (it->has_end)
                len += (size_t)snprintf(expr + len, sizeof expr - len, "%lld", (long long)it->end);
            len += (size_t)snprintf(expr + len, sizeof expr - len, ":%lld", (long long)it->stride);
        }
        /* Slice-8: omitted bounds become the extreme values, which clamp. */
        start[i] = it->has_begin ? it->begin : it->stride > 0 ? INT64_MIN : INT64_MAX;
        stop[i] = it->has_end ? it->end : it->stride > 0 ? INT64_MAX : INT64_MIN;
        axes[i] = (int64_t)i - (rnd() % 2 ? (int64_t)rank : 0);
    }
    snprintf(expr + len, sizeof expr - len, "]");
    /* docs/semantics.md, "StridedSlice-1 and Slice-8": a reverse begin below -d empties the
     * NumPy form only. Find the input axis of each slice item. */
    for (size_t i = 0, axis = 0; i < nitems; i++) {
        const item *it = &items[i];
        if (it->kind == ELLIPSIS)
            axis += rank - consumed;
        if (it->kind == SLICE && it->has_begin && it->stride < 0 && shape[axis] > 0 &&
            it->begin + shape[axis] < 0)
            numpy_empty = true;
        axis += it->kind == SLICE || it->kind == INDEX;
    }
    if (nitems == 0)
        snprintf(expr, sizeof expr, "x[...]");

    int32_t *in = malloc((size_t)count * 4 + 4);
    for (int64_t i = 0; i < count; i++)
        in[i] = (int32_t)i;
    sg_strided_slice_args a = {nitems, b, e, s, {bm, nitems}, {em, nitems}, {nm, nitems}, {sm, nitems}, {xm, nitems}};
    sg_spec *ss = NULL, *np = NULL, *sl = NULL;
    sg_plan *p_ss = NULL, *p_np = NULL, *p_sl = NULL;
    uint8_t *o_ss = NULL, *o_np = NULL, *o_sl = NULL;
    if (sg_spec_strided_slice(ctx, &a, &ss) != SG_OK || sg_spec_numpy(ctx, expr, &np) != SG_OK) {
        report(k, sg_context_last_error(ctx), expr);
        goto done;
    }
    o_ss = run(ctx, ss, rank, shape, in, &p_ss);
    o_np = run(ctx, np, rank, shape, in, &p_np);
    if (!o_ss || !o_np) {
        if (o_ss || o_np)
            report(k, "only one of StridedSlice and NumPy rejected the slice", expr);
        else
            passed++;
        goto done;
    }
    check_round_trip(ctx, p_ss, k, expr);
    check_round_trip(ctx, p_np, k, expr);
    if (numpy_empty) {
        if (sg_plan_output_bytes(p_np) != 0)
            report(k, "NumPy form should be empty (reverse begin below -d)", expr);
    } else if (sg_plan_output_rank(p_ss) != sg_plan_output_rank(p_np) ||
               memcmp(sg_plan_output_shape(p_ss), sg_plan_output_shape(p_np),
                      sg_plan_output_rank(p_ss) * sizeof(int64_t)) != 0 ||
               memcmp(o_ss, o_np, sg_plan_output_bytes(p_ss)) != 0) {
        report(k, "StridedSlice and NumPy forms differ", expr);
        goto done;
    }
    if (only_slices && nitems <= rank && nitems > 0) {
        if (sg_spec_slice(ctx, nitems, start, stop, s, axes, &sl) != SG_OK ||
            (o_sl = run(ctx, sl, rank, shape, in, &p_sl)) == NULL) {
            report(k, sg_context_last_error(ctx), expr);
            goto done;
        }
        check_round_trip(ctx, p_sl, k, expr);
        if (sg_plan_output_bytes(p_sl) != sg_plan_output_bytes(p_ss) ||
            memcmp(o_sl, o_ss, sg_plan_output_bytes(p_ss)) != 0) {
            report(k, "Slice-8 and StridedSlice forms differ", expr);
            goto done;
        }
    }
    passed++;
done:
    free(in);
    free(o_ss), free(o_np), free(o_sl);
    sg_plan_destroy(p_ss), sg_plan_destroy(p_np), sg_plan_destroy(p_sl);
    sg_spec_destroy(ss), sg_spec_destroy(np), sg_spec_destroy(sl);
}

/* Random TensorRT slices: the plan round-trips and its byte count is right. */
static void trt_case(sg_context *ctx, int k)
{
    size_t rank = (size_t)between(1, 3);
    int64_t shape[3], start[3], size[3], stride[3];
    for (size_t i = 0; i < rank; i++) {
        shape[i] = between(0, 7);
        start[i] = between(-20, 20);
        size[i] = between(0, 9);
        stride[i] = between(-9, 9);
    }
    sg_trt_mode mode = (sg_trt_mode)between(SG_TRT_WRAP, SG_TRT_REFLECT);
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_scalar fill = {.kind = SG_SCALAR_INT, .i = -7};
    if (sg_spec_trt_slice(ctx, rank, start, size, stride, mode, &fill, &spec) == SG_OK &&
        sg_plan_create(ctx, spec, rank, shape, SG_F64, &plan) == SG_OK)
        check_round_trip(ctx, plan, k, "(TrtSlice)");
    passed++;
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
}

/* A spec from words written as one string with '|' between them. */
static sg_status from_words(sg_context *ctx, char *text, sg_spec **spec)
{
    char *words[32];
    int n = 0;
    words[n++] = text;
    for (char *p = text; *p && n < 32; p++)
        if (*p == '|') {
            *p = '\0';
            words[n++] = p + 1;
        }
    return sg_spec_from_words(ctx, n, words, spec);
}

/* Random Pads (crops among the pads, each mode): the plan round-trips. */
static void pad_case(sg_context *ctx, int k)
{
    static const char *const modes[] = {"constant", "edge", "reflect", "wrap"};
    size_t rank = (size_t)between(1, 3);
    int64_t shape[3];
    char text[256];
    int mode = (int)between(0, 3);
    int at = snprintf(text, sizeof text, "--op|Pad|--mode|%s%s", modes[mode], mode == 0 ? "|--value|-7" : "");
    for (int list = 0; list < 2; list++) {
        at += snprintf(text + at, sizeof text - (size_t)at, list ? "|--pads-end|" : "|--pads-begin|");
        for (size_t i = 0; i < rank; i++)
            at += snprintf(text + at, sizeof text - (size_t)at, "%s%d", i ? "," : "", (int)between(-8, 8));
    }
    for (size_t i = 0; i < rank; i++)
        shape[i] = between(0, 7);
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    if (from_words(ctx, text, &spec) != SG_OK) {
        report(k, "Pad words refused", sg_context_last_error(ctx));
        return;
    }
    if (sg_plan_create(ctx, spec, rank, shape, SG_I16, &plan) == SG_OK)
        check_round_trip(ctx, plan, k, "(Pad)");
    passed++;
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
}

/* Plan texts the reader must refuse, with a part of the message; the
 * first ones were found by fuzzing (tests/fuzz/regress). */
#define PLAN_64X33                                                                                           \
    "op NumPy\ndtype u8\ninput [64,33]\noutput [64,16]\ndim 0 axis 0 start 63 step -1 count 64\n"            \
    "dim 1 axis 1 start 1 step 2 count 16\n"
static void plan_rejections(sg_context *ctx)
{
    static const char *const cases[][2] = {
        {"op TrtSlice\ndtype u8\nmode wrap\ninput [3]\noutput [2]\ndim 0 axis 0 start 0 step 1 count 2 crop 1 0\n"
         "base 1\nrun 2\n",
         "output dimension 0: crops 1 and 0 of an axis of size 3"},
        {"op Pad\ndtype u8\nmode wrap\ninput [3]\noutput [2]\ndim 0 axis 0 start 0 step 1 count 2 crop 2 2\n"
         "base 2\nrun 2\n",
         "output dimension 0: crops 2 and 2 of an axis of size 3"},
        {"op Pad\ndtype u8\nmode clamp\ninput [3]\noutput [2]\ndim 0 axis 0 start 0 step 1 count 2 crop 1 2\n"
         "base 1\nrun 2\n",
         "clamp mode on an empty axis or window"},
        {"op NumPy\ndtype i32\ninput [1]\noutput [1]\ndim 0 axis 0 start 0 step 1 count 1\n"
         "base 9223372036854775807\nrun 4\n",
         "reads 4-byte runs at offsets 9223372036854775807..9223372036854775807 of an input of 4 bytes"},
        {"op TrtSlice\ndtype u8\nmode clamp\nfill 0x5\ninput [2]\noutput [3]\n"
         "dim 0 axis 0 start -1 step 1 count 3\nbase 0\nloop extent 3 out 1 segments 2\n"
         "  segment count 2 in 0 step 0\n  segment count 1 in 1 step 0\nrun 1\n",
         "a fill value without fill mode"},
        {"op TrtSlice\ndtype i32\nmode fill\nfill 0x100000002\ninput [0]\noutput [3]\n"
         "dim 0 axis 0 start -1 step 1 count 3\nbase 0\nloop extent 3 out 4 segments 1\n"
         "  segment count 3 fill\nrun 4\n",
         "the fill value is wider than an element"},
        {"op TrtSlice\ndtype i32\nmode fill\nfill 0x00000007\ninput [0,1099511627776,1099511627776]\n"
         "output [2,1,1]\ndim 0 axis 0 start -1 step 1 count 2\ndim 1 axis 1 start 0 step 1 count 1\n"
         "dim 2 axis 2 start 0 step 1 count 1\nbase 0\nloop extent 2 out 4 segments 1\n"
         "  segment count 2 fill\nrun 4\n",
         "shape too large"},
        {"op TrtSlice\ndtype u8\nmode wrap\ninput [3]\noutput [6]\ndim 0 axis 0 start 0 step 1 count 6\n"
         "base 0\nloop extent 6 out 1 segments 1 period 6\n  segment count 6 in 0 step 1\nrun 1\n",
         "period 6, extent 6"},
        {"op TrtSlice\ndtype u8\nmode wrap\ninput [3]\noutput [6]\ndim 0 axis 0 start 0 step 1 count 6\n"
         "base 0\nloop extent 6 out 1 segments 1 period 2\n  segment count 3 in 0 step 1\nrun 1\n",
         "segments count 3 iterations, extent 6, period 2"},
        /* Nests inside the input that do not follow from their dim lines
         * (slicegen plan '[::-1, 1::2]' --shape 64,33 --dtype u8, changed):
         * the kernel would disagree with the interpreter. */
        {PLAN_64X33 "base 2080\nloop extent 64 in -33 out 16\nloop extent 16 in 1 out 1\nrun 1\n",
         "line 9: loop 1 in is 1, but the dim and fixed lines fold to 2"},
        {PLAN_64X33 "base 2079\nloop extent 64 in -33 out 16\nloop extent 16 in 2 out 1\nrun 1\n",
         "line 7: base is 2079, but the dim and fixed lines fold to 2080"},
        {PLAN_64X33 "base 2080\nloop extent 32 in -66 out 32\nloop extent 32 in 1 out 1\nrun 1\n",
         "line 8: loop 0 extent is 32, but the dim and fixed lines fold to 64"},
        {PLAN_64X33 "base 2080\nloop extent 64 in -33 out 8\nloop extent 16 in 2 out 1\nrun 1\n",
         "loop 0: extent 64, out stride 8, expected 16"},
        {PLAN_64X33
         "base 2080\nloop extent 64 in -33 out 16\nloop extent 16 in 2 out 1\nloop extent 1 in 5 out 1\n"
         "run 1\n",
         "line 10: the number of loops is 3, but the dim and fixed lines fold to 2"},
        {"op NumPy\ndtype f32\ninput [4,4]\noutput [3,4]\ndim 0 axis 0 start 1 step 1 count 3\n"
         "dim 1 axis 1 start 0 step 1 count 4\nbase 16\nloop extent 3 in 16 out 16\nrun 16\n",
         "line 8: the number of loops is 1, but the dim and fixed lines fold to 0"},
        {"op NumPy\ndtype f32\ninput [4,4]\noutput [3,4]\ndim 0 axis 0 start 1 step 1 count 3\n"
         "dim 1 axis 1 start 0 step 1 count 4\nbase 0\nrun 48\n",
         "line 7: base is 0, but the dim and fixed lines fold to 16"},
        {"op TrtSlice\ndtype u8\nmode clamp\ninput [3]\noutput [5]\ndim 0 axis 0 start -1 step 1 count 5\n"
         "base 0\nloop extent 5 out 1 segments 3\n  segment count 1 in 0 step 0\n"
         "  segment count 3 in 1 step 0\n  segment count 1 in 2 step 0\nrun 1\n",
         "line 10: segment 1 of loop 0: in is 1, but the dim and fixed lines fold to 0"},
        {"op TrtSlice\ndtype u8\nmode clamp\ninput [3]\noutput [5]\ndim 0 axis 0 start -1 step 1 count 5\n"
         "base 0\nloop extent 5 in 0 out 1\nrun 1\n",
         "line 8: loop 0 segments (0: a plain loop) is 0, but the dim and fixed lines fold to 3"},
        /* thousands of segments, none read: folding stops early */
        {"op TrtSlice\ndtype u8\nmode wrap\ninput [10007]\noutput [10000]\n"
         "dim 0 axis 0 start 0 step 5000 count 10000\nbase 0\nloop extent 10000 in 0 out 1\nrun 1\n",
         "the dim and fixed lines fold to more than 1024 segments, 0 were read"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sg_plan *plan = NULL;
        if (sg_plan_parse(ctx, cases[i][0], &plan) == SG_OK) {
            printf("FAIL plan text %zu was accepted\n", i);
            failed++;
        } else if (strstr(sg_context_last_error(ctx), cases[i][1]) == NULL) {
            printf("FAIL plan text %zu: '%s' lacks '%s'\n", i, sg_context_last_error(ctx), cases[i][1]);
            failed++;
        } else {
            passed++;
        }
        sg_plan_destroy(plan);
    }
}

/* Plans of runtime values and programs' plans are read by their spec
 * (planner/text.c): printed, read back, equal and printed alike; a text
 * that is not what its spec plans, or lacks what reading needs, is refused
 * naming why. */
static void read_by_spec(sg_context *ctx)
{
    static const struct {
        const char *spec; /* NumPy when it does not start with "--" */
        int64_t shape[3];
        size_t rank;
        sg_dtype dtype;
    } plans[] = {
        {"[a:, ::s]", {-1, 6}, 2, SG_F32},
        {"--op Slice --start s --stop 100 --step k --axes -1", {4, -1}, 2, SG_U8},
        {"--op TrtSlice --start p,0 --size 5,7 --mode fill --fill f", {-1, 3}, 2, SG_I16},
        {"--op Pad --pads-begin 1,p --pads-end 2,0 --axes a,b --mode reflect", {-1, -1}, 2, SG_F64},
        {"--op Split --split a,b,c --axis 1 --output 1", {2, -1, 3}, 3, SG_F32},
        {"np.pad(x[t:, ::-1], ((1, 2), (3, 0)), mode='edge')[:, 1:]", {-1, -1}, 2, SG_F32},
        {"Pad(OnnxSlice(x, \"--start 1 --stop 9 --step 1 --axes 0\"), \"--pads-begin 0,1 --pads-end 0,2 --mode wrap\")",
         {-1, 8},
         2,
         SG_U8},
        {"np.concatenate([x[:, ::2], x[:, 1::2]], axis=0)", {4, 6}, 2, SG_F32},
        {"[1:, ::-1]", {4, 6}, 2, SG_F32},
    };
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        sg_spec *spec = NULL;
        sg_plan *plan = NULL, *back = NULL;
        char copy[256], *words[32];
        int n = 0;
        snprintf(copy, sizeof copy, "%s", plans[i].spec);
        for (char *w = strtok(copy, " "); w && n < 32; w = strtok(NULL, " "))
            words[n++] = w;
        sg_status st = strncmp(plans[i].spec, "--", 2) == 0 ? sg_spec_from_words(ctx, n, words, &spec)
                                                            : sg_spec_numpy(ctx, plans[i].spec, &spec);
        if (st != SG_OK ||
            sg_plan_create(ctx, spec, plans[i].rank, plans[i].shape, plans[i].dtype, &plan) != SG_OK) {
            report((int)i, sg_context_last_error(ctx), plans[i].spec);
            sg_spec_destroy(spec);
            continue;
        }
        char *text = plan_text(plan), *again = NULL;
        if (sg_plan_parse(ctx, text, &back) != SG_OK)
            report((int)i, sg_context_last_error(ctx), plans[i].spec);
        else if (!sg_plan_equal(plan, back) || strcmp(text, again = plan_text(back)) != 0)
            report((int)i, "a plan read by its spec does not round-trip", plans[i].spec);
        else
            passed++;
        free(again);
        sg_plan_destroy(back);
        back = NULL;
        /* the third line after the spec's altered: not what the spec plans */
        const char *spec_line = strstr(text, "\nspec ") ? strstr(text, "\nspec ") : strstr(text, "\nprogram ");
        size_t at = spec_line ? (size_t)(spec_line - text) : 0;
        for (int k = 0; spec_line && k < 3 && at < strlen(text); k++)
            at += strcspn(text + at + 1, "\n") + 1;
        if (spec_line && at + 1 < strlen(text)) {
            text[at + 1] = text[at + 1] == 'x' ? 'y' : 'x';
            if (sg_plan_parse(ctx, text, &back) == SG_OK ||
                strstr(sg_context_last_error(ctx), "is not its spec's plan") == NULL)
                report((int)i, "an altered line was read", plans[i].spec);
            else
                passed++;
            sg_plan_destroy(back);
            back = NULL;
        }
        free(text);
        sg_plan_destroy(plan);
        sg_spec_destroy(spec);
    }
    static const char *const refused[][2] = {
        {"op NumPy\ndtype f32\nvalues t\ninput [?]\n", "has no spec line"},
        {"op NumPy\ndtype f32\nspec [:t]\n", "needs its input line"},
        {"op NumPy\nspec [:t]\ninput [?]\n", "needs its dtype line"},
        {"op NumPy\ndtype f32\nspec [:t]\ninput [?,??]\n", "line 4: expected a shape such as [2,?]"},
        {"op NumPy\ndtype f32\nspec [:t, 1]\ninput [?]\n", "its spec does not plan: "},
        {"op NumPy\ndtype f32\nspec [:t]\nvalues t\n# a comment\ninput [?]\n", "it ends where its spec's plan has 'output [?]'"},
        {"op NumPy\ndtype f32\nspec [:t]\ninput [4]\n", "line 4 is not its spec's plan (which has 'values t')"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        sg_plan *plan = NULL;
        if (sg_plan_parse(ctx, refused[i][0], &plan) == SG_OK ||
            strstr(sg_context_last_error(ctx), refused[i][1]) == NULL) {
            printf("FAIL plan text by spec %zu: '%s' lacks '%s'\n", i, sg_context_last_error(ctx), refused[i][1]);
            failed++;
        } else {
            passed++;
        }
        sg_plan_destroy(plan);
    }
}

/* Every golden plan (the .plan files of tests/golden: the command on its first line,
 * then what `slicegen plan` prints) reads back and prints as it is. */
static void read_golden(sg_context *ctx, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        printf("FAIL cannot open %s\n", dir);
        failed++;
        return;
    }
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".plan") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        char *text = NULL, *again = NULL;
        size_t cap = 0;
        ssize_t got = f ? getdelim(&text, &cap, '\0', f) : -1;
        if (f)
            fclose(f);
        const char *body = got > 0 ? strchr(text, '\n') : NULL;
        sg_plan *plan = NULL;
        files++;
        if (body == NULL || sg_plan_parse(ctx, body + 1, &plan) != SG_OK) {
            printf("FAIL golden %s: %s\n", e->d_name, body ? sg_context_last_error(ctx) : "unreadable");
            failed++;
        } else if (strcmp(again = plan_text(plan), body + 1) != 0) {
            printf("FAIL golden %s prints otherwise once read:\n%s", e->d_name, again);
            failed++;
        } else {
            passed++;
        }
        free(again);
        free(text);
        sg_plan_destroy(plan);
    }
    closedir(d);
    if (files == 0) {
        printf("FAIL no golden plans in %s\n", dir);
        failed++;
    }
}

int main(int argc, char **argv)
{
    seed = seed_rnd("props");
    sg_context *ctx;
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    if (argc > 1)
        read_golden(ctx, argv[1]);
    for (int k = 0; k < 20000; k++)
        one_case(ctx, k);
    for (int k = 0; k < 5000; k++)
        trt_case(ctx, k);
    for (int k = 0; k < 5000; k++)
        pad_case(ctx, k);
    plan_rejections(ctx);
    read_by_spec(ctx);
    sg_context_destroy(ctx);
    printf("props: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}

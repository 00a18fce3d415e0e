/*
 * Random differential test of the JIT against the reference interpreter.
 *
 * Each case draws an element type, an input shape (rank 0-6, empty
 * dimensions included) and a slice through the public API: StridedSlice
 * (every mask, ellipsis, new axis, shrink), Slice-8 (axes, negative ones),
 * a NumPy expression string, TrtSlice in all five modes, ONNX Slice, Pad
 * in its four modes (through command-line words), or a NumPy program
 * (docs/programs.md: chains, np.concatenate, np.roll, np.flip, np.pad,
 * nested). Values include
 * negative, out-of-range and extreme begin/end/stride. Cases the frontend or
 * the planner rejects are counted, not run. Every other case runs the
 * reference interpreter and the JIT kernel (-O0 and the default level in
 * turn, sometimes on 2-3 threads, sometimes as direct calls over a random
 * split of the outer range) and compares the outputs byte for byte. The
 * input sits against a PROT_NONE page (after it or before it, in turn) so a
 * kernel reading outside it faults; the output has 64 guard bytes on each
 * side that must stay untouched.
 *
 * Stores: each case compiles with the default (auto), with streaming or
 * cached stores forced, or with auto and SLICEGEN_STREAM_THRESHOLD set just
 * below or just above the case's output bytes (so that auto chooses
 * streaming, or not, by one byte; SLICEGEN_STREAM_THRESHOLD=0 in the
 * environment makes every auto case stream); the output starts at a random offset
 * from a 64-byte boundary, so streaming parts meet every misalignment.
 *
 * Every 4th case is a directed case for the kernels' fast paths
 * (make_fast_path: run lengths 1..4096 bytes of every element size, inline
 * copies, shuffles of runs and pixels, large outputs with short outer
 * loops). Every 50th case is directed instead: a plan built as text
 * (sg_plan_read_any_nest, as sg_plan_parse would refuse it: its dim lines
 * fold to another nest) with a loop nest the planner does not produce today:
 * segmented loops with many FILL segments (segment tables with fills),
 * segmented loops nested four deep, tens of thousands of segments. Their
 * oracle is a walker of the loop-nest semantics of planner.h.
 *
 * SLICEGEN_SEED=N reproduces a run (the seed is always printed first);
 * SLICEGEN_CASES=N changes the 20000 compared cases (with --gpu and no CUDA
 * device, 6000: the GPU kernels emulated on the host); SLICEGEN_SOAK_SECONDS=N
 * runs for N seconds instead. A failure prints the seed, the case index,
 * the spec and the plan. The last line is "jit: N passed, M failed".
 *
 * With --aot-runner tests/support/aot_runner.c (and --aot-target, --aot-cpu,
 * --aot-cc, --aot-exec for another architecture or CPU) the engine is an ahead-of-time
 * object instead (aot_batch.h): SLICEGEN_AOT_CASES=N random cases (default
 * 1000, inputs and outputs up to 64 KiB) compiled into one object, run by
 * the runner and compared with the interpreter; the last line is then
 * "aot: N passed, M failed".
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L

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
#include "../support/nest_walk.h"

enum { GUARD = 64, MAX_ELEMS = 1 << 15, MAX_FAILURES = 10 };

/* With --gpu, the engine every case runs on instead of the JIT. */
static gpu_engine *gpu;

/* ---- random numbers -------------------------------------------------------------- */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t next(rng *r) /* splitmix64 */
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t range(rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next(r) % ((uint64_t)hi - (uint64_t)lo + 1));
}

static int chance(rng *r, int percent)
{
    return (int)(next(r) % 100) < percent;
}

static const int64_t extremes[] = {INT64_MIN,        INT64_MIN + 1, -(INT64_C(1) << 62),
                                   INT64_C(1) << 62, INT64_MAX - 1, INT64_MAX};

/* A begin/end value for an axis of size d: mostly near the axis, sometimes
 * far outside it or extreme. */
static int64_t bound(rng *r, int64_t d)
{
    if (chance(r, 8))
        return extremes[range(r, 0, 5)];
    if (chance(r, 15))
        return range(r, -1, 0);
    return range(r, -d - 3, d + 3);
}

static int64_t stride(rng *r, int64_t d)
{
    if (chance(r, 4))
        return extremes[range(r, 0, 5)];
    if (chance(r, 8))
        return (chance(r, 50) ? 1 : -1) * range(r, d + 1, d + 10);
    int64_t s = range(r, -4, 4);
    return s ? s : 1;
}

/* ---- cases ---------------------------------------------------------------------- */

typedef struct tcase {
    sg_dtype dtype;
    size_t rank;
    int64_t shape[8];
    char text[2048]; /* NumPy expressions and programs */
} tcase;

static const sg_dtype dtypes[] = {SG_BOOL, SG_I8,  SG_U8,  SG_I16, SG_U16, SG_F16, SG_BF16,
                                  SG_I32,  SG_U32, SG_F32, SG_I64, SG_U64, SG_F64};

static void draw_shape(rng *r, tcase *t)
{
    t->dtype = dtypes[range(r, 0, sizeof dtypes / sizeof *dtypes - 1)];
    t->rank = (size_t)range(r, 0, 6);
    int64_t budget = MAX_ELEMS;
    for (size_t a = 0; a < t->rank; a++) {
        int64_t d = chance(r, 5) ? 0 : chance(r, 20) ? range(r, 8, 200) : range(r, 1, 7);
        if (d > budget)
            d = budget > 1 ? range(r, 1, budget) : 1;
        budget /= d ? d : 1;
        t->shape[a] = d;
    }
}

/* The input axis each of n steps reads (-1: none), given their new-axis and
 * ellipsis flags: the axes before the ellipsis, then the ones after it
 * counted from the end. */
static void step_axes(const tcase *t, size_t n, const int64_t *new_axis, const int64_t *ellipsis,
                      int64_t *axis)
{
    size_t consuming = 0, at = 0, first_ellipsis = n;
    for (size_t i = 0; i < n; i++) {
        if (ellipsis[i] && first_ellipsis == n)
            first_ellipsis = i;
        consuming += !new_axis[i] && !ellipsis[i];
    }
    for (size_t i = 0; i < n; i++) {
        if (i == first_ellipsis)
            at += t->rank > consuming ? t->rank - consuming : 0;
        axis[i] = new_axis[i] || ellipsis[i] || at >= t->rank ? -1 : (int64_t)at++;
    }
}

static int64_t dim_of(const tcase *t, int64_t axis)
{
    return axis >= 0 ? t->shape[axis] : 4;
}

static sg_status make_strided_slice(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    size_t n = (size_t)range(r, 0, (int64_t)t->rank + 2);
    int64_t begin[10], end[10], step[10], axis[10];
    int64_t bm[10] = {0}, em[10] = {0}, nm[10] = {0}, sm[10] = {0}, elm[10] = {0};
    for (size_t i = 0; i < n; i++) {
        bm[i] = chance(r, 25);
        em[i] = chance(r, 25);
        nm[i] = chance(r, 10);
        sm[i] = chance(r, 20);
        elm[i] = chance(r, 8);
    }
    step_axes(t, n, nm, elm, axis);
    for (size_t i = 0; i < n; i++) {
        int64_t d = dim_of(t, axis[i]);
        begin[i] = sm[i] && chance(r, 80) && d > 0 ? range(r, -d, d - 1) : bound(r, d);
        end[i] = bound(r, d);
        step[i] = stride(r, d);
    }
    sg_strided_slice_args args = {
        .len = n,
        .begin = begin,
        .end = end,
        .stride = chance(r, 15) ? NULL : step,
        .begin_mask = {bm, (size_t)range(r, 0, (int64_t)n)},
        .end_mask = {em, n},
        .new_axis_mask = {nm, n},
        .shrink_axis_mask = {sm, n},
        .ellipsis_mask = {elm, n},
    };
    return sg_spec_strided_slice(ctx, &args, spec);
}

static sg_status make_slice(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    size_t n = (size_t)range(r, 0, (int64_t)t->rank);
    int64_t start[8], stop[8], step[8], axes[8], order[8];
    for (size_t a = 0; a < t->rank; a++)
        order[a] = (int64_t)a;
    for (size_t a = t->rank; a > 1; a--) { /* shuffle */
        size_t b = (size_t)range(r, 0, (int64_t)a - 1);
        int64_t x = order[a - 1];
        order[a - 1] = order[b];
        order[b] = x;
    }
    bool given = chance(r, 85);
    for (size_t i = 0; i < n; i++) {
        int64_t axis = given ? order[i] : (int64_t)i, d = t->shape[axis];
        axes[i] = chance(r, 30) ? axis - (int64_t)t->rank : axis;
        if (chance(r, 3))
            axes[i] = axes[0]; /* a repeated axis: rejected */
        start[i] = bound(r, d);
        stop[i] = bound(r, d);
        step[i] = chance(r, 2) ? 0 : stride(r, d);
    }
    return sg_spec_slice(ctx, n, start, stop, chance(r, 15) ? NULL : step, given ? axes : NULL, spec);
}

static sg_status make_numpy(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    size_t n = (size_t)range(r, 1, (int64_t)t->rank + 2);
    int64_t kind[10], new_axis[10] = {0}, ellipsis[10] = {0}, axis[10];
    bool have_ellipsis = false;
    for (size_t i = 0; i < n; i++) {
        kind[i] = range(r, 0, 99); /* <15 integer, <25 None, <33 ..., else a slice */
        if (kind[i] >= 25 && kind[i] < 33 && have_ellipsis && chance(r, 90))
            kind[i] = 50;
        have_ellipsis = have_ellipsis || (kind[i] >= 25 && kind[i] < 33);
        new_axis[i] = kind[i] >= 15 && kind[i] < 25;
        ellipsis[i] = kind[i] >= 25 && kind[i] < 33;
    }
    step_axes(t, n, new_axis, ellipsis, axis);
    size_t len = 0;
    len += (size_t)snprintf(t->text + len, sizeof t->text - len, "%s[", chance(r, 20) ? "x" : "");
    for (size_t i = 0; i < n && len < sizeof t->text - 100; i++) {
        int64_t d = dim_of(t, axis[i]);
        char item[100] = "";
        if (kind[i] < 15)
            snprintf(item, sizeof item, "%" PRId64,
                     d > 0 && chance(r, 80) ? range(r, -d, d - 1) : bound(r, d));
        else if (kind[i] < 25)
            snprintf(item, sizeof item, "%s", chance(r, 80) ? "None" : "np.newaxis");
        else if (kind[i] < 33)
            snprintf(item, sizeof item, "...");
        else {
            size_t k = 0;
            if (chance(r, 60))
                k += (size_t)snprintf(item + k, sizeof item - k, "%" PRId64, bound(r, d));
            k += (size_t)snprintf(item + k, sizeof item - k, ":");
            if (chance(r, 60))
                k += (size_t)snprintf(item + k, sizeof item - k, "%" PRId64, bound(r, d));
            if (chance(r, 50)) {
                k += (size_t)snprintf(item + k, sizeof item - k, ":");
                if (chance(r, 80))
                    snprintf(item + k, sizeof item - k, "%" PRId64, chance(r, 2) ? 0 : stride(r, d));
            }
        }
        len += (size_t)snprintf(t->text + len, sizeof t->text - len, "%s%s", i ? ", " : "", item);
    }
    snprintf(t->text + len, sizeof t->text - len, "%s]", n == 1 && chance(r, 20) ? "," : "");
    return sg_spec_numpy(ctx, t->text, spec);
}

static sg_scalar fill_value(rng *r, sg_dtype dtype)
{
    static const double floats[] = {0.0, -0.0, 1.5, -2.25, 1e30, 65504.0, 0.1, -1.0};
    switch (dtype) {
    case SG_BOOL:
        return (sg_scalar){.kind = SG_SCALAR_BOOL, .i = range(r, 0, 1)};
    case SG_F16:
    case SG_BF16:
    case SG_F32:
    case SG_F64:
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = floats[range(r, 0, 7)]};
    case SG_U8:
    case SG_U16:
    case SG_U32:
    case SG_U64:
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = chance(r, 30) ? 0 : range(r, 1, 255)};
    default:
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = chance(r, 30) ? -1 : range(r, -128, 127)};
    }
}

static sg_status make_trt(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    sg_trt_mode mode = (sg_trt_mode)range(r, 0, 4);
    int64_t start[8], size[8], step[8], budget = MAX_ELEMS;
    for (size_t a = 0; a < t->rank; a++) {
        int64_t d = t->shape[a];
        if (mode == SG_TRT_STRICT) { /* a box inside the input */
            step[a] = range(r, -3, 3);
            size[a] = d == 0 ? 0 : range(r, chance(r, 10) ? 0 : 1, 6);
            int64_t mag = step[a] < 0 ? -step[a] : step[a];
            if (size[a] > 1 && mag > 0 && (size[a] - 1) * mag > d - 1)
                size[a] = (d - 1) / mag + 1;
            int64_t span = size[a] > 0 ? (size[a] - 1) * step[a] : 0;
            int64_t lo = span < 0 ? -span : 0, hi = d - 1 - (span > 0 ? span : 0);
            start[a] = hi >= lo ? range(r, lo, hi) : 0;
        } else {
            start[a] = chance(r, 5) ? range(r, -1000, 1000) : range(r, -2 * d - 3, 2 * d + 3);
            size[a] = chance(r, 10) ? range(r, 8, 60) : range(r, 0, 7);
            step[a] = chance(r, 5) ? range(r, -3 * d - 2, 3 * d + 2) : range(r, -5, 5);
        }
        if (size[a] > budget)
            size[a] = budget;
        budget /= size[a] ? size[a] : 1;
    }
    sg_scalar value = fill_value(r, t->dtype);
    return sg_spec_trt_slice(ctx, t->rank, start, size, chance(r, 10) ? NULL : step, mode,
                             chance(r, 10) ? NULL : &value, spec);
}

/* A spec from command-line words written as one string with '|' between
 * them (an empty word: an empty list). */
static sg_status from_words(sg_context *ctx, char *text, sg_spec **spec)
{
    char *words[64];
    int n = 0;
    words[n++] = text;
    for (char *p = text; *p && n < 64; p++)
        if (*p == '|') {
            *p = '\0';
            words[n++] = p + 1;
        }
    return sg_spec_from_words(ctx, n, words, spec);
}

/* Appends "|OPTION|v0,v1,..." to text (size bytes). */
static void append_list(char *text, size_t size, const char *option, const int64_t *v, size_t n)
{
    size_t len = strlen(text);
    len += (size_t)snprintf(text + len, size - len, "|%s|", option);
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(text + len, size - len, "%s%" PRId64, i ? "," : "", v[i]);
}

/* n distinct axes of t in random order, some written from the end. */
static void draw_axes(rng *r, const tcase *t, size_t n, int64_t *axes)
{
    int64_t order[8];
    for (size_t a = 0; a < t->rank; a++)
        order[a] = (int64_t)a;
    for (size_t a = t->rank; a > 1; a--) { /* shuffle */
        size_t b = (size_t)range(r, 0, (int64_t)a - 1);
        int64_t x = order[a - 1];
        order[a - 1] = order[b];
        order[b] = x;
    }
    for (size_t i = 0; i < n; i++)
        axes[i] = chance(r, 30) ? order[i] - (int64_t)t->rank : order[i];
}

/* ONNX Slice: Slice-8's draws, with ends of INT32_MAX and INT64_MAX. */
static sg_status make_onnx_slice(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    size_t n = (size_t)range(r, 0, (int64_t)t->rank);
    int64_t start[8], stop[8], step[8], axes[8];
    char text[1024] = "--op|OnnxSlice";
    draw_axes(r, t, n, axes);
    for (size_t i = 0; i < n; i++) {
        int64_t d = t->shape[axes[i] < 0 ? axes[i] + (int64_t)t->rank : axes[i]];
        start[i] = bound(r, d);
        stop[i] = chance(r, 30) ? (chance(r, 50) ? INT32_MAX : INT64_MAX) : bound(r, d);
        step[i] = stride(r, d);
    }
    append_list(text, sizeof text, "--start", start, n);
    append_list(text, sizeof text, "--stop", stop, n);
    append_list(text, sizeof text, "--step", step, n);
    append_list(text, sizeof text, "--axes", axes, n);
    return from_words(ctx, text, spec);
}

/* Pad in each mode: pads near the axis (crops and pads), sometimes many
 * periods or extreme; the output within MAX_ELEMS where the pads allow. */
static sg_status make_pad(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    static const char *const modes[] = {"constant", "edge", "reflect", "wrap"};
    int mode = (int)range(r, 0, 3);
    size_t n = (size_t)range(r, 0, (int64_t)t->rank);
    int64_t begin[8], end[8], axes[8], budget = MAX_ELEMS / 2;
    char text[1024];
    draw_axes(r, t, n, axes);
    for (size_t a = 0; a < t->rank; a++) /* the axes left whole */
        budget /= t->shape[a] > 1 ? t->shape[a] : 1;
    for (size_t i = 0; i < n; i++) {
        int64_t d = t->shape[axes[i] < 0 ? axes[i] + (int64_t)t->rank : axes[i]],
                *pad[2] = {&begin[i], &end[i]};
        for (int k = 0; k < 2; k++) {
            *pad[k] = chance(r, 3)   ? extremes[range(r, 0, 5)]
                      : chance(r, 8) ? range(r, d, 4 * d + 9)
                      : mode == 2    ? range(r, -d / 2 - 1, d / 2)
                                     : range(r, -d - 1, d + 2);
            int64_t grown = *pad[k] > 0 && *pad[k] < MAX_ELEMS ? *pad[k] : 0;
            if (grown > budget)
                *pad[k] = budget;
            budget -= grown < budget ? grown : budget;
        }
    }
    snprintf(text, sizeof text, "--op|Pad|--mode|%s", modes[mode]);
    if (mode == 0 && chance(r, 50))
        snprintf(text + strlen(text), sizeof text - strlen(text), "|--value|%d", (int)range(r, -128, 127));
    append_list(text, sizeof text, "--pads-begin", begin, n);
    append_list(text, sizeof text, "--pads-end", end, n);
    if (chance(r, 80))
        append_list(text, sizeof text, "--axes", axes, n);
    return from_words(ctx, text, spec);
}

/* Directed cases for the kernels' fast paths (every 4th case): runs of
 * 1..4096 bytes of every element size, copied inline (contiguous in rows),
 * gathered (strides -4..4), reversed as pixels of up to 16 bytes or with
 * their channels reversed; and
 * outputs over 256 KiB whose outer loops are short, where the kernel's
 * outer range takes loops together or cuts one block in pieces (TensorRT
 * border modes among them: GPU kernels read their interior by window). */
static sg_status make_fast_path(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    static const sg_dtype by_log_size[] = {SG_U8, SG_I16, SG_F32, SG_F64};
    int64_t run = chance(r, 50) ? range(r, 1, 256) : range(r, 1, 4096), log_e = range(r, 0, 3);
    while (run % (1 << log_e) != 0)
        log_e--;
    int64_t e = 1 << log_e, n = run / e, rows = range(r, 1, 6);
    t->dtype = by_log_size[log_e];
    t->rank = 2;
    switch (range(r, 0, 3)) {
    case 0: { /* contiguous runs of n elements inside rows */
        int64_t cols = n + range(r, 1, 9), at = range(r, 0, cols - n);
        t->shape[0] = rows, t->shape[1] = cols;
        snprintf(t->text, sizeof t->text, "[:, %" PRId64 ":%" PRId64 "]", at, at + n);
        break;
    }
    case 1: { /* pixels of 1-16 bytes, reversed or strided along rows, or their channels reversed */
        static const char *const exprs[] = {"[:, ::-1]", "[:, ::-2]",   "[::-1, 1::3]",
                                            "[:, ::2]",  "[:, -2::-4]", "[..., ::-1]"};
        int64_t c = range(r, 1, 16 >> log_e);
        t->rank = 3;
        t->shape[0] = rows,
        t->shape[1] = range(r, 1, MAX_ELEMS / (rows * c) < 300 ? MAX_ELEMS / (rows * c) : 300);
        t->shape[2] = c;
        snprintf(t->text, sizeof t->text, "%s", exprs[range(r, 0, 5)]);
        break;
    }
    case 2: { /* elements gathered with a stride of -4..4 from rows of run bytes */
        int64_t step = range(r, -4, 3);
        step += step >= 0;
        t->shape[0] = rows, t->shape[1] = n * (step < 0 ? -step : step) + range(r, 0, 3);
        snprintf(t->text, sizeof t->text, "[:, %s::%" PRId64 "]", step < 0 ? "-1" : "", step);
        break;
    }
    default: { /* over 256 KiB out, short outer loops: a few rows, planes or one block */
        static const char *const exprs[] = {"[:, ::2]", "[:, ::-1]",       "[1:-1]",
                                            "[1]",      "[:, 1:-1, ::-3]", "[::-1]"};
        int64_t k = range(r, 0, 5), lead = range(r, k == 3 ? 2 : 1, 4);
        t->rank = k == 4 ? 3 : 2;
        t->shape[0] = k == 2 ? 3 : lead;
        t->shape[1] = k == 4 ? 3 : range(r, (600 << 10) / e, (1400 << 10) / e) / t->shape[0];
        t->shape[2] = k == 4 ? range(r, (300 << 10) / e, (500 << 10) / e) / 3 / lead : 0;
        if (k == 5 && chance(r, 50)) { /* TensorRT modes over a long row, often of whole 16-byte chunks */
            int64_t start[2] = {0, -range(r, 1, 5000)},
                    size[2] = {t->shape[0], t->shape[1] + range(r, 0, 9000)};
            if (chance(r, 50))
                size[1] -= size[1] % (16 / e);
            sg_scalar value = fill_value(r, t->dtype);
            return sg_spec_trt_slice(ctx, 2, start, size, NULL, (sg_trt_mode)range(r, 0, 4), &value, spec);
        }
        snprintf(t->text, sizeof t->text, "%s", exprs[k]);
    }
    }
    return sg_spec_numpy(ctx, t->text, spec);
}

/* A random part of a program over an array of `rank` dimensions, written
 * to out; *rank becomes its result's. Depth bounds the nesting. Shapes are
 * not tracked: a program NumPy would refuse (an index out of range,
 * concatenated shapes that differ) is a rejected case. */
static void program_node(rng *r, int depth, size_t *rank, FILE *out)
{
    int kind = depth > 2 ? 0 : (int)range(r, 0, 6);
    if (kind == 0) {
        fputs("x", out);
        return;
    }
    char *a = NULL; /* the operand's text */
    size_t len = 0, ra = *rank;
    FILE *f = open_memstream(&a, &len);
    if (f == NULL)
        abort();
    program_node(r, depth + 1, &ra, f);
    fclose(f);
    int axis = ra ? (int)range(r, -(int64_t)ra, (int64_t)ra - 1) : 0;
    if (ra == 0 && (kind == 3 || kind > 4))
        kind = 2; /* a roll or concatenate of a 0-d array: a flip instead */
    switch (kind) {
    case 1: { /* slices, an integer, None */
        fprintf(out, "%s[", a);
        size_t n = ra ? (size_t)range(r, 1, (int64_t)ra) : 1;
        for (size_t i = 0; i < n; i++) {
            int k = (int)range(r, 0, 9);
            fputs(i ? ", " : "", out);
            if (k == 0 && ra > 0) {
                fprintf(out, "%d", (int)range(r, -1, 1));
                ra--;
            } else if (k == 1) {
                fputs("None", out);
                ra++;
            } else {
                int64_t step = range(r, -3, 3);
                fprintf(out, "%d:%d:%d", (int)range(r, -4, 4), (int)range(r, -4, 9), (int)(step ? step : 1));
            }
        }
        fputs("]", out);
        break;
    }
    case 2:
        fprintf(out, "np.flip(%s, axis=%s)", a, ra && chance(r, 50) ? "0" : "None");
        break;
    case 3:
        fprintf(out, "np.roll(%s, %d, axis=%d)", a, (int)range(r, -9, 9), axis);
        break;
    case 4: {
        static const char *const modes[] = {"constant", "edge", "reflect", "symmetric", "wrap"};
        fprintf(out, "np.pad(%s, (", a);
        for (size_t i = 0; i < ra; i++)
            fprintf(out, "(%d, %d), ", (int)range(r, 0, 4), (int)range(r, 0, 6));
        fprintf(out, "%s), mode='%s')", ra ? "" : "0,", modes[range(r, 0, 4)]);
        break;
    }
    default: /* a concatenate of a part and the same part flipped, rolled, reversed, or its halves */
        switch ((int)range(r, 0, 3)) {
        case 0:
            fprintf(out, "np.concatenate([%s, np.flip(%s, axis=%d)], axis=%d)", a, a, axis, axis);
            break;
        case 1:
            fprintf(out, "np.concatenate([%s, np.roll(%s, %d, axis=0)], axis=%d)", a, a, (int)range(r, -3, 3),
                    axis);
            break;
        case 2:
            fprintf(out, "np.concatenate([%s, %s[::-1]], axis=%d)", a, a, axis);
            break;
        default: /* Focus-like: even and odd elements along the last axis */
            fprintf(out, "np.concatenate([%s[..., ::2], %s[..., 1::2]], axis=%d)", a, a, axis);
        }
    }
    free(a);
    *rank = ra;
}

/* A NumPy program of the input (docs/programs.md). */
static sg_status make_program(rng *r, sg_context *ctx, tcase *t, sg_spec **spec)
{
    size_t rank = t->rank, len = 0;
    char *text = NULL;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        abort();
    program_node(r, 1, &rank, f);
    fclose(f);
    snprintf(t->text, sizeof t->text, "%s", strcmp(text, "x") == 0 ? "np.flip(x)" : text);
    free(text);
    return sg_spec_numpy(ctx, t->text, spec);
}

/* ---- running ---------------------------------------------------------------------------- */

/* An input buffer against a PROT_NONE page: after it (at_end) or before it. */
typedef struct guarded {
    unsigned char *map, *data;
    size_t map_bytes;
} guarded;

static int guarded_alloc(guarded *g, uint64_t bytes, bool at_end)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (size_t)(bytes + page - 1) / page;
    g->map_bytes = (pages + 2) * page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED)
        return 0;
    mprotect(g->map, page, PROT_NONE);
    mprotect(g->map + (pages + 1) * page, page, PROT_NONE);
    g->data = g->map + page + (at_end ? pages * page - bytes : 0);
    return 1;
}

static void guarded_free(guarded *g)
{
    munmap(g->map, g->map_bytes);
}

typedef struct stats {
    long passed, failed, rejected, too_big, directed, periodic;
    long by_op[8]; /* StridedSlice, Slice, NumPy, TrtSlice, OnnxSlice, Pad, fast paths, programs */
} stats;

/* The stores of the case being run, for report(). */
static char case_stores[96] = "auto";

static void report(uint64_t seed, long index, const char *what, const sg_spec *spec, const sg_plan *plan,
                   int opt, int threads, long offset)
{
    printf("FAIL seed %" PRIu64 " case %ld: %s (opt %d, threads %d, byte %ld, stores %s)\n  spec: ", seed,
           index, what, opt, threads, offset, case_stores);
    sg_spec_print(spec, stdout);
    printf("\n  plan:\n");
    sg_plan_print(plan, stdout);
    fflush(stdout);
}

/* Runs one planned case on both engines; 1 if they agree. */
static int run_case(rng *r, sg_context *ctx, uint64_t seed, long index, const sg_spec *spec,
                    const sg_plan *plan)
{
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    int opt = index % 2 ? SG_DEFAULT_OPT_LEVEL : 0;
    int threads = chance(r, 20) ? (int)range(r, 2, 3) : 1;
    bool split = threads == 1 && chance(r, 15);
    guarded in = {0};
    /* got: at a random offset from the allocation's (16-byte aligned) start */
    unsigned char *want = malloc(out_bytes + 2 * GUARD), *got_mem = malloc(out_bytes + 2 * GUARD + 64);
    unsigned char *got = got_mem ? got_mem + range(r, 0, 63) : NULL;
    sg_kernel *kernel = NULL;
    int ok = 0;
    int pick = (int)range(r, 0, 9);
    sg_stores stores = pick < 2 ? SG_STORES_STREAMING : pick < 3 ? SG_STORES_CACHED : SG_STORES_AUTO;
    if (!want || !got || !guarded_alloc(&in, in_bytes, index % 4 < 2)) {
        printf("FAIL seed %" PRIu64 " case %ld: out of memory\n", seed, index);
        goto done;
    }
    for (uint64_t i = 0; i < in_bytes; i++)
        in.data[i] = (unsigned char)next(r);
    memset(want, 0xA5, out_bytes + 2 * GUARD);
    memset(got, 0xA5, GUARD);
    memset(got + GUARD, 0x3C, out_bytes);
    memset(got + GUARD + out_bytes, 0xA5, GUARD);
    if (gpu) {
        uint64_t cuts[4] = {next(r), next(r), next(r), next(r)};
        long at = -1;
        const char *what = sg_run_reference(ctx, plan, in.data, want + GUARD) != SG_OK
                               ? sg_context_last_error(ctx)
                               : gpu_engine_check(gpu, plan, opt, in.data, want, GUARD, cuts, &at);
        if (what)
            report(seed, index, what, spec, plan, opt, 1, at);
        else
            gpu_engine_keep(gpu, plan);
        ok = what == NULL;
        goto done;
    }
    snprintf(case_stores, sizeof case_stores, "%s, output at 64n+%d",
             stores == SG_STORES_STREAMING ? "streaming"
             : stores == SG_STORES_CACHED  ? "cached"
                                           : "auto",
             (int)((uintptr_t)(got + GUARD) % 64));
    /* the environment's threshold, restored after the compile (a run may set one for every case) */
    const char *env_threshold = getenv("SLICEGEN_STREAM_THRESHOLD");
    char saved[32] = "";
    if (env_threshold != NULL)
        snprintf(saved, sizeof saved, "%s", env_threshold);
    if (pick == 3 || pick == 4) { /* auto, the threshold one byte below or at the output's size */
        char threshold[32];
        uint64_t t = out_bytes > 0 && pick == 3 ? out_bytes - 1 : out_bytes;
        snprintf(threshold, sizeof threshold, "%" PRIu64, t);
        setenv("SLICEGEN_STREAM_THRESHOLD", threshold, 1);
        snprintf(case_stores, sizeof case_stores, "auto, SLICEGEN_STREAM_THRESHOLD=%s, output at 64n+%d",
                 threshold, (int)((uintptr_t)(got + GUARD) % 64));
    }
    sg_status compiled = sg_run_reference(ctx, plan, in.data, want + GUARD);
    if (compiled == SG_OK)
        compiled = sg_kernel_compile_stores(ctx, plan, opt, stores, &kernel);
    if (env_threshold != NULL)
        setenv("SLICEGEN_STREAM_THRESHOLD", saved, 1);
    else
        unsetenv("SLICEGEN_STREAM_THRESHOLD");
    if (compiled != SG_OK) {
        report(seed, index, sg_context_last_error(ctx), spec, plan, opt, threads, -1);
        goto done;
    }
    int64_t extent = sg_kernel_outer_extent(kernel);
    if ((extent == 0) != (out_bytes == 0)) {
        report(seed, index, "outer extent disagrees with output size", spec, plan, opt, threads, extent);
        goto done;
    }
    if (split) { /* direct calls over a random split, in random order */
        int64_t cut[5] = {0, range(r, 0, extent), range(r, 0, extent), range(r, 0, extent), extent};
        sort_cuts(cut + 1, 3);
        int first = (int)range(r, 0, 3);
        for (int i = 0; i < 4; i++) {
            int k = (first + i) % 4;
            sg_kernel_function(kernel)(in.data, got + GUARD, cut[k], cut[k + 1]);
        }
    } else if (sg_kernel_run(ctx, kernel, in.data, got + GUARD, threads) != SG_OK) {
        report(seed, index, sg_context_last_error(ctx), spec, plan, opt, threads, -1);
        goto done;
    }
    long at = first_difference(want, got, out_bytes + 2 * GUARD);
    if (at >= 0) {
        const char *what = at < GUARD                      ? "wrote before the output"
                           : at >= GUARD + (long)out_bytes ? "wrote after the output"
                                                           : "output differs";
        report(seed, index, what, spec, plan, opt, split ? -1 : threads, at - GUARD);
        goto done;
    }
    ok = 1;
done:
    sg_kernel_release(kernel);
    if (in.map)
        guarded_free(&in);
    free(want);
    free(got_mem);
    return ok;
}

/* ---- directed nests ----------------------------------------------------------------- */

/* A random TrtSlice FILL plan as text: `levels` loops, each plain (stride
 * -2..3 elements) or segmented (`segs` segments, some FILL, steps -1..2
 * elements), every read inside the input. */
static void directed_text(rng *r, int levels, int segs, char *text, size_t cap)
{
    static const sg_dtype types[] = {SG_I8, SG_I16, SG_F32, SG_F64};
    sg_dtype dtype = types[range(r, 0, 3)];
    int64_t e = (int64_t)sg_dtype_size(dtype), d[4], extent[4], axis[4], base = 0;
    int nseg[4] = {0};
    int64_t period[4] = {0};
    char loops[4][96], *seg_text[4] = {NULL};
    for (int a = 0; a < levels; a++)
        d[a] = range(r, 2, a == levels - 1 ? 40 : 6);
    axis[levels - 1] = e;
    for (int a = levels - 1; a > 0; a--)
        axis[a - 1] = axis[a] * d[a];
    for (int a = 0; a < levels; a++) {
        if (segs == 0 || chance(r, 25)) { /* a plain loop */
            int64_t st = range(r, -2, 3), mag = st < 0 ? -st : st;
            st = st == 0 || st == 1 ? 2 : st;
            mag = st < 0 ? -st : st;
            extent[a] = range(r, 1, (d[a] - 1) / mag + 1);
            base += (st < 0 ? d[a] - 1 : 0) * axis[a];
            snprintf(loops[a], sizeof loops[a], "loop extent %" PRId64 " in %" PRId64, extent[a],
                     st * axis[a]);
            continue;
        }
        /* Outer levels get fewer, shorter segments: the output stays small. */
        bool outer = a < levels - 1 && levels > 2;
        nseg[a] = outer && segs > 10 ? 10 : segs;
        size_t len = 0, size = (size_t)nseg[a] * 64 + 1;
        if ((seg_text[a] = malloc(size)) == NULL)
            abort();
        extent[a] = 0;
        for (int k = 0; k < nseg[a]; k++) {
            int64_t count = range(r, 1, outer ? 3 : 5);
            if (chance(r, 30)) {
                len += (size_t)snprintf(seg_text[a] + len, size - len, "segment count %" PRId64 " fill\n",
                                        count);
            } else {
                int64_t st = range(r, -1, 2), first = range(r, 0, d[a] - 1), mag = st < 0 ? -st : st;
                int64_t room = st > 0 ? (d[a] - 1 - first) / mag : st < 0 ? first / mag : count;
                count = count - 1 > room ? room + 1 : count;
                len += (size_t)snprintf(seg_text[a] + len, size - len,
                                        "segment count %" PRId64 " in %" PRId64 " step %" PRId64 "\n", count,
                                        first * axis[a], count > 1 ? st * axis[a] : 0);
            }
            extent[a] += count;
        }
        if (chance(r, 30)) { /* periodic: the segments repeat, the last time in part */
            period[a] = extent[a];
            extent[a] = range(r, 2, 4) * period[a] + range(r, 0, period[a] - 1);
        }
        snprintf(loops[a], sizeof loops[a], "loop extent %" PRId64, extent[a]);
    }
    uint64_t fill = next(r) & (e == 8 ? ~0ull : (1ull << (8 * e)) - 1);
    size_t n = (size_t)snprintf(text, cap, "op TrtSlice\ndtype %s\nmode fill\nfill 0x%0*" PRIx64 "\ninput [",
                                sg_dtype_name(dtype), (int)(2 * e), fill);
    for (int a = 0; a < levels; a++)
        n += (size_t)snprintf(text + n, cap - n, "%s%" PRId64, a ? "," : "", d[a]);
    n += (size_t)snprintf(text + n, cap - n, "]\noutput [");
    for (int a = 0; a < levels; a++)
        n += (size_t)snprintf(text + n, cap - n, "%s%" PRId64, a ? "," : "", extent[a]);
    n += (size_t)snprintf(text + n, cap - n, "]\n");
    for (int a = 0; a < levels; a++)
        n += (size_t)snprintf(text + n, cap - n, "dim %d axis %d start 0 step 1 count %" PRId64 "\n", a, a,
                              extent[a]);
    n += (size_t)snprintf(text + n, cap - n, "base %" PRId64 "\n", base);
    for (int a = 0; a < levels; a++) {
        int64_t out = e;
        for (int b = a + 1; b < levels; b++)
            out *= extent[b];
        if (seg_text[a] && period[a])
            n += (size_t)snprintf(text + n, cap - n, "%s out %" PRId64 " segments %d period %" PRId64 "\n%s",
                                  loops[a], out, nseg[a], period[a], seg_text[a]);
        else if (seg_text[a])
            n += (size_t)snprintf(text + n, cap - n, "%s out %" PRId64 " segments %d\n%s", loops[a], out,
                                  nseg[a], seg_text[a]);
        else
            n += (size_t)snprintf(text + n, cap - n, "%s out %" PRId64 "\n", loops[a], out);
        free(seg_text[a]);
    }
    snprintf(text + n, cap - n, "run %" PRId64 "\n", e);
}

/* Runs a hand-written plan's kernel against nest_walk(); 1 if they agree. */
static int run_directed(rng *r, sg_context *ctx, uint64_t seed, long index, const char *text)
{
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    unsigned char *in = NULL, *want = NULL, *got = NULL;
    int opt = index % 2 ? SG_DEFAULT_OPT_LEVEL : 0, ok = 0;
    sg_error err = {0};
    if (sg_plan_read_any_nest(text, &plan, &err) != SG_OK) {
        printf("FAIL seed %" PRIu64 " directed %ld: %s\n%s", seed, index, err.message, text);
        return 0;
    }
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    in = malloc(in_bytes);
    want = malloc(out_bytes + 2 * GUARD);
    got = malloc(out_bytes + 2 * GUARD);
    if (!in || !want || !got)
        goto done;
    for (uint64_t i = 0; i < in_bytes; i++)
        in[i] = (unsigned char)next(r);
    memset(want, 0xA5, out_bytes + 2 * GUARD);
    memset(got, 0xA5, out_bytes + 2 * GUARD);
    nest_walk(plan, 0, in + plan->base, want + GUARD);
    if (gpu) {
        uint64_t cuts[4] = {next(r), next(r), next(r), next(r)};
        long at = -1;
        const char *what = gpu_engine_check(gpu, plan, opt, in, want, GUARD, cuts, &at);
        if (what)
            printf("FAIL seed %" PRIu64 " directed %ld: %s, byte %ld (opt %d)\n%s", seed, index, what, at,
                   opt, text);
        ok = what == NULL;
        goto done;
    }
    int threads = (int)range(r, 1, 3);
    if (sg_kernel_compile(ctx, plan, opt, &kernel) != SG_OK ||
        sg_kernel_run(ctx, kernel, in, got + GUARD, threads) != SG_OK) {
        printf("FAIL seed %" PRIu64 " directed %ld: %s\n%s", seed, index, sg_context_last_error(ctx), text);
        goto done;
    }
    long at = first_difference(want, got, out_bytes + 2 * GUARD);
    if (at >= 0) {
        printf("FAIL seed %" PRIu64 " directed %ld: byte %ld differs (opt %d, threads %d)\n%s", seed, index,
               at - GUARD, opt, threads, text);
        goto done;
    }
    ok = 1;
done:
    sg_kernel_release(kernel);
    sg_plan_destroy(plan);
    free(in);
    free(want);
    free(got);
    return ok;
}

/* One directed case: nests 1-4 deep, mostly segment tables; case 0 has
 * one loop of 50000 segments. text holds TEXT_CAP bytes. */
enum { TEXT_CAP = 8 << 20 };

static int directed_case(rng *r, sg_context *ctx, uint64_t seed, long index, char *text)
{
    int levels = (int)range(r, 1, 4), segs = chance(r, 20) ? (int)range(r, 1, 8) : (int)range(r, 9, 40);
    if (index == 0)
        levels = 1, segs = 50000;
    directed_text(r, levels, segs, text, TEXT_CAP);
    return run_directed(r, ctx, seed, index, text);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One random slice: shape, source (*op: 0 StridedSlice, 1 Slice, 2 NumPy,
 * 3 TrtSlice, 4 OnnxSlice, 5 Pad, 6 a fast path, 7 a NumPy program), spec
 * and plan; a failure means the frontend or the planner rejected it. */
static sg_status draw_case(rng *r, sg_context *ctx, long index, tcase *t, int *op, sg_spec **spec,
                           sg_plan **plan)
{
    draw_shape(r, t);
    *op = (int)range(r, 0, 6);
    *op = *op == 6 ? 7 : *op;
    sg_status status = index % 4 == 3 ? make_fast_path(r, ctx, t, spec)
                       : *op == 7     ? make_program(r, ctx, t, spec)
                       : *op == 0     ? make_strided_slice(r, ctx, t, spec)
                       : *op == 1     ? make_slice(r, ctx, t, spec)
                       : *op == 2     ? make_numpy(r, ctx, t, spec)
                       : *op == 3     ? make_trt(r, ctx, t, spec)
                       : *op == 4     ? make_onnx_slice(r, ctx, t, spec)
                                      : make_pad(r, ctx, t, spec);
    if (index % 4 == 3)
        *op = 6;
    return status == SG_OK ? sg_plan_create(ctx, *spec, t->rank, t->shape, t->dtype, plan) : status;
}

/* The same random slices as one ahead-of-time object for config's target. */
static int run_aot(sg_context *ctx, uint64_t seed, const aot_config *config)
{
    long cases = getenv("SLICEGEN_AOT_CASES") ? atol(getenv("SLICEGEN_AOT_CASES")) : 1000;
    aot_batch *batch = aot_batch_create();
    rng r = {seed};
    int passed = 0, failed = 0;
    long by_op[8] = {0}, by_mode[5] = {0}, by_size[9] = {0};
    for (long index = 0; (long)aot_batch_size(batch) < cases && index < 50 * cases; index++) {
        tcase t = {0};
        sg_spec *spec = NULL;
        sg_plan *plan = NULL;
        int op;
        if (draw_case(&r, ctx, index, &t, &op, &spec, &plan) == SG_OK &&
            sg_plan_input_bytes(plan) <= (64u << 10) && sg_plan_output_bytes(plan) <= (64u << 10)) {
            uint64_t in_bytes = sg_plan_input_bytes(plan);
            unsigned char *in = malloc(in_bytes + 1), *want = malloc(sg_plan_output_bytes(plan) + 1);
            char *label = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&label, &len);
            if (in == NULL || want == NULL || f == NULL) {
                printf("FAIL out of memory\n");
                return 1;
            }
            fprintf(f, "seed %" PRIu64 " case %ld: %s %s [", seed, index, sg_dtype_name(t.dtype),
                    sg_op_name(spec->op));
            for (size_t a = 0; a < t.rank; a++)
                fprintf(f, "%s%" PRId64, a ? "," : "", t.shape[a]);
            fputs("] ", f);
            sg_spec_print(spec, f);
            fclose(f);
            for (uint64_t i = 0; i < in_bytes; i++)
                in[i] = (unsigned char)next(&r);
            sg_run_reference(ctx, plan, in, want);
            by_op[op]++;
            by_size[sg_dtype_size(t.dtype)]++;
            if (spec->op == SG_OP_TRT_SLICE || spec->op == SG_OP_PAD)
                by_mode[spec->mode]++;
            aot_batch_add(batch, label, plan, in, want);
            plan = NULL;
            free(in);
            free(want);
            free(label);
        }
        sg_plan_destroy(plan);
        sg_spec_destroy(spec);
    }
    printf("aot: seed %" PRIu64 ", %zu random cases as one object for %s (cpu %s): StridedSlice %ld, Slice "
           "%ld, NumPy %ld, TrtSlice %ld, OnnxSlice %ld, Pad %ld, fast paths %ld, programs %ld (TensorRT and "
           "Pad "
           "modes: strict %ld, wrap %ld, clamp %ld, fill %ld, reflect %ld); element sizes 1: %ld, 2: %ld, 4: "
           "%ld, "
           "8: %ld\n",
           seed, aot_batch_size(batch), config->target ? config->target : "the host",
           config->cpu ? config->cpu : "default", by_op[0], by_op[1], by_op[2], by_op[3], by_op[4], by_op[5],
           by_op[6], by_op[7], by_mode[0], by_mode[1], by_mode[2], by_mode[3], by_mode[4], by_size[1],
           by_size[2], by_size[4], by_size[8]);
    aot_batch_run(batch, ctx, config, &passed, &failed);
    aot_batch_destroy(batch);
    printf("aot: %d passed, %d failed\n", passed, failed);
    return failed != 0 || passed == 0;
}

int main(int argc, char **argv)
{
    const char *env = getenv("SLICEGEN_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    long cases = getenv("SLICEGEN_CASES") ? atol(getenv("SLICEGEN_CASES")) : 20000;
    double soak = getenv("SLICEGEN_SOAK_SECONDS") ? atof(getenv("SLICEGEN_SOAK_SECONDS")) : 0;
    printf("jit: seed %" PRIu64 " (SLICEGEN_SEED=%" PRIu64 " reproduces), LLVM %s\n", seed, seed,
           sg_llvm_version());
    fflush(stdout);

    sg_context *ctx;
    aot_config aot = {.opt_level = SG_DEFAULT_OPT_LEVEL};
    bool gpu_wanted = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gpu") == 0) {
            gpu_wanted = true;
        } else if (!aot_config_option(&aot, argc, argv, &i)) {
            fprintf(
                stderr,
                "usage: test_jit [--gpu | --aot-runner FILE [--aot-target T] [--aot-cpu CPU] [--aot-cc CC] "
                "[--aot-exec WORDS]]\n");
            return 2;
        }
    }
    if (aot.runner) {
        if (sg_context_create(&ctx) != SG_OK)
            return 1;
        int rc = run_aot(ctx, seed, &aot);
        sg_context_destroy(ctx);
        return rc;
    }
    char *text = malloc(TEXT_CAP);
    if (text == NULL || sg_context_create(&ctx) != SG_OK)
        return 1;
    const char *engine = "jit";
    if (gpu_wanted) {
        long ptx_cases = getenv("SLICEGEN_PTX_CASES") ? atol(getenv("SLICEGEN_PTX_CASES")) : 3000;
        const char *why;
        if ((gpu = gpu_engine_create(ctx, ptx_cases)) == NULL)
            return 1;
        engine = "gpu";
        /* Emulated alone, 6,000 cases by default; 20,000 with a CUDA device. */
        if (!getenv("SLICEGEN_CASES") && !gpu_engine_has_device(gpu, &why))
            cases = 6000;
        printf("gpu: GPU kernels emulated on the host%s%s; up to %ld of them assembled as PTX\n",
               gpu_engine_has_device(gpu, &why) ? " and run on the CUDA device" : "; no CUDA device: ",
               gpu_engine_has_device(gpu, &why) ? "" : why, ptx_cases);
    }
    rng r = {seed};
    stats st = {0};
    double start = now();
    for (long index = 0;; index++) {
        if (soak > 0 ? now() - start >= soak : st.passed + st.failed >= cases)
            break;
        if (st.failed >= MAX_FAILURES) {
            printf("stopping after %d failures\n", MAX_FAILURES);
            break;
        }
        if (index % 50 == 0) { /* every 50th case a directed nest */
            if (directed_case(&r, ctx, seed, index, text))
                st.passed++, st.directed++;
            else
                st.failed++;
            continue;
        }
        tcase t = {0};
        sg_spec *spec = NULL;
        sg_plan *plan = NULL;
        int op;
        if (draw_case(&r, ctx, index, &t, &op, &spec, &plan) != SG_OK) {
            st.rejected++;
        } else if (sg_plan_output_bytes(plan) > (8u << 20) || sg_plan_input_bytes(plan) > (8u << 20)) {
            st.too_big++;
        } else if (run_case(&r, ctx, seed, index, spec, plan)) {
            st.passed++;
            st.by_op[op]++;
            for (size_t i = 0; i < plan->nloops; i++)
                st.periodic += plan->loops[i].period > 0;
        } else {
            st.failed++;
        }
        sg_plan_destroy(plan);
        sg_spec_destroy(spec);
    }
    if (gpu) {
        st.failed += gpu_engine_check_ptx(gpu);
        gpu_engine_destroy(gpu);
    }
    sg_kernel_stats ks;
    sg_kernel_cache_stats(ctx, &ks);
    printf("%s: %.1f s; compared %ld (StridedSlice %ld, Slice %ld, NumPy %ld, TrtSlice %ld, OnnxSlice %ld, "
           "Pad %ld, "
           "%ld periodic loops, programs %ld, fast paths %ld, directed nests %ld), rejected %ld, too big "
           "%ld; %" PRIu64 " compiles, %" PRIu64 " cache hits\n",
           engine, now() - start, st.passed + st.failed, st.by_op[0], st.by_op[1], st.by_op[2], st.by_op[3],
           st.by_op[4], st.by_op[5], st.periodic, st.by_op[7], st.by_op[6], st.directed, st.rejected,
           st.too_big, ks.compiles, ks.hits);
    sg_context_destroy(ctx);
    free(text);
    printf("%s: %ld passed, %ld failed\n", engine, st.passed, st.failed);
    return st.failed != 0;
}

/*
 * Fusing a model's slice layers (`slicegen aot --fuse`, sg_model_fusions),
 * on models this test writes in OpenVINO IR and in ONNX (with value_info
 * for every intermediate tensor), each pattern alone and all of them in one
 * model (the table `patterns` below):
 *   - fused: Focus (four strided slices of one input, Concat on axis 1);
 *     roll (two slices, Concat on axis -1, the slices in the other order in
 *     the model); a crop then a reflect Pad (Pad-12 / ONNX Pad); a chain of
 *     three slices (negative steps; StridedSlice and Slice-8); a chain
 *     through a Gather of a scalar (negative) index, and a Concat of two
 *     Gathers; a Concat of a chain, a slice and an edge Pad that crops,
 *     then sliced again (that slice alone); empty slices in a Concat; a
 *     chain down to rank 0; a constant Pad, a slice of it and a reflect Pad
 *     (fill in the reflected parts); reflect Pads of reflect Pads; a Concat
 *     of one slice; slices of a Split's output into a Concat (which reads
 *     that output); (ONNX only) a wrap Pad wider than its axis;
 *   - not fused: a Concat one of whose slices is also a model output (its
 *     slices keep their kernels), where a chain after such a slice is fused
 *     from it on; a Concat of slices of two tensors (the chain feeding it
 *     is fused) and one that reads a slice twice; a Concat of a Split's
 *     outputs; a Concat whose slices' shapes do not match (listed, but its
 *     program does not plan); a skipped layer (a symmetric Pad).
 * Checks:
 *   - sg_model_fusions: the fusions, in the order of their last layers:
 *     name, id, input rank, shape and type, the layers (indices into
 *     sg_model_layer_at, in model order) and the names (then the Concat's);
 *   - each fusion's program, planned and run (the reference interpreter,
 *     the JIT at -O0 and -O2 on 1 and 3 threads, guard bytes around the
 *     output) on a random input, equals byte for byte what the unfused
 *     layers give one by one: each layer's own spec planned on its own
 *     input (whose shape and type must be the producer's) through
 *     sg_run_reference, a Concat by copying its parts along its axis; and
 *     each layer's output shape is the one the model declares;
 *   - with --cli SLICEGEN --cc CC --runner fuse_runner.c: `slicegen aot
 *     --fuse` on the model of all patterns, in both formats: exit 0, the
 *     summary line with the fused counts, the "not fusing" line for the
 *     Concat that does not plan and the skip line; the header declares the
 *     fused kernels and none of the layers they replace; the object linked
 *     with tests/frontend/fuse_runner.c lists its table (name, layer, id, version 5,
 *     fused_count and fused_layers) as expected and every kernel's output is
 *     the unfused layers'; without --fuse the table is one kernel per slice
 *     layer, none fused, and so are the outputs; `--fuse` given to `slicegen
 *     emit` or `run` is bad usage (exit 2, one line, no output).
 *   - with --ort-js ort_run.js --ort ONNXRUNTIME_NODE_DIR (only that): the
 *     ONNX models of the fused patterns run in ONNX Runtime
 *     (tests/onnx/ort_run.js, from the onnx-ort fixture); every model output
 *     must equal the unfused layers' result and the fused kernel's.
 *
 * Usage: test_fuse [--cli SLICEGEN --cc CC --runner FUSE_RUNNER_C]
 *                  [--ort-js ORT_RUN_JS --ort ONNXRUNTIME_NODE_DIR]
 * Prints the seed (SLICEGEN_SEED reproduces the inputs), one line per
 * failed check and "fuse: N passed, M failed"; exit 77 (skipped) for
 * --ort when SLICEGEN_SKIP_ONNX is set.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/check.h"
#include "../support/model_writer.h"
#include "../support/seeded.h"
#include "slicegen.h"

enum { MAX_NODES = 16, MAX_IN = 4, RANK = 6, MAX_FUSIONS = 3, GUARD = 64, PATTERNS = 17, MAX_KERNELS = 128 };

/* A bound left out: the whole axis in the step's direction. */
#define NONE INT64_MIN

/* ---- the patterns, described once for both formats --------------------------- */

typedef enum kind { INPUT = 1, SLICE, PAD, GATHER, SPLIT, CONCAT, OUTPUT } kind;

/* One node of a pattern. Its output tensor has its name (a Split's
 * outputs NAME:0, NAME:1, ...), which the model prefixes with the
 * pattern's name and '/', as it does the node's. */
typedef struct node {
    kind kind;
    const char *name;
    const char *in[MAX_IN]; /* the tensors read */
    /* INPUT: the shape */
    int rank;
    int64_t shape[RANK];
    /* SLICE: axes[0..n) from begin to end (NONE: left out) by step; in
     * OpenVINO IR a StridedSlice of every axis when strided, else a Slice-8 */
    int n;
    int64_t axes[RANK], begin[RANK], end[RANK], step[RANK];
    bool strided;
    /* PAD: the mode, pads per axis (negative: crops) */
    const char *mode;
    int64_t pads_begin[RANK], pads_end[RANK];
    /* GATHER (with index), SPLIT (into parts), CONCAT: the axis */
    int64_t axis, index;
    int parts;
} node;

/* A fusion sg_model_fusions must find. */
typedef struct want {
    const char *name;              /* its last node: the Concat, or the chain's last layer */
    const char *input;             /* the tensor its first layers read */
    const char *layers[MAX_NODES]; /* the slice layers it replaces, in model order */
    bool unplannable;              /* its layers' shapes do not compose */
} want;

typedef struct pattern {
    const char *name;
    sg_dtype dtype;
    bool ort; /* run in ONNX Runtime too */
    node nodes[MAX_NODES];
    want fusions[MAX_FUSIONS];
} pattern;

#define IN(...)    .in = {__VA_ARGS__}
#define AXES(...)  .axes = {__VA_ARGS__}
#define BEGIN(...) .begin = {__VA_ARGS__}
#define END(...)   .end = {__VA_ARGS__}
#define STEP(...)  .step = {__VA_ARGS__}

static const pattern patterns[PATTERNS] = {
    {"focus",
     SG_F32,
     true,
     {{INPUT, "x", .rank = 4, .shape = {2, 3, 6, 8}},
      {SLICE, "s0", IN("x"), .n = 2, AXES(2, 3), BEGIN(0, 0), END(NONE, NONE), STEP(2, 2), .strided = true},
      {SLICE, "s1", IN("x"), .n = 2, AXES(2, 3), BEGIN(1, 0), END(NONE, NONE), STEP(2, 2), .strided = true},
      {SLICE, "s2", IN("x"), .n = 2, AXES(2, 3), BEGIN(0, 1), END(NONE, NONE), STEP(2, 2), .strided = true},
      {SLICE, "s3", IN("x"), .n = 2, AXES(2, 3), BEGIN(1, 1), END(NONE, NONE), STEP(2, 2), .strided = true},
      {CONCAT, "cat", IN("s0", "s1", "s2", "s3"), .axis = 1},
      {OUTPUT, "out", IN("cat")}},
     {{"cat", "x", {"s0", "s1", "s2", "s3"}, false}}},
    {"roll",
     SG_U8,
     true,
     {{INPUT, "x", .rank = 3, .shape = {3, 5, 7}},
      {SLICE, "b", IN("x"), .n = 1, AXES(-1), BEGIN(0), END(4), STEP(1)},
      {SLICE, "a", IN("x"), .n = 1, AXES(2), BEGIN(4), END(NONE), STEP(1)},
      {CONCAT, "cat", IN("a", "b"), .axis = -1},
      {OUTPUT, "out", IN("cat")}},
     {{"cat", "x", {"b", "a"}, false}}},
    {"croppad",
     SG_F32,
     true,
     {{INPUT, "x", .rank = 3, .shape = {2, 9, 10}},
      {SLICE, "crop", IN("x"), .n = 2, AXES(1, 2), BEGIN(1, 2), END(-1, -1), STEP(1, 1), .strided = true},
      {PAD, "pad", IN("crop"), .mode = "reflect", .pads_begin = {0, 2, 3}, .pads_end = {1, 1, 0}},
      {OUTPUT, "out", IN("pad")}},
     {{"pad", "x", {"crop", "pad"}, false}}},
    {"chain3",
     SG_I16,
     true,
     {{INPUT, "x", .rank = 3, .shape = {5, 6, 7}},
      {SLICE, "c1", IN("x"), .n = 2, AXES(0, 1), BEGIN(1, NONE), END(NONE, NONE), STEP(1, -1),
       .strided = true},
      {SLICE, "c2", IN("c1"), .n = 2, AXES(2, 0), BEGIN(1, -1), END(6, NONE), STEP(2, -2)},
      {SLICE, "c3", IN("c2"), .n = 1, AXES(1), BEGIN(4), END(0), STEP(-2), .strided = true},
      {OUTPUT, "out", IN("c3")}},
     {{"c3", "x", {"c1", "c2", "c3"}, false}}},
    {"gather",
     SG_F64,
     true,
     {{INPUT, "x", .rank = 3, .shape = {4, 5, 6}},
      {SLICE, "g1", IN("x"), .n = 1, AXES(0), BEGIN(1), END(3), STEP(1), .strided = true},
      {GATHER, "g2", IN("g1"), .axis = 2, .index = -2},
      {SLICE, "g3", IN("g2"), .n = 1, AXES(1), BEGIN(NONE), END(NONE), STEP(-2)},
      {OUTPUT, "out", IN("g3")},
      {GATHER, "h0", IN("x"), .axis = 1, .index = 0},
      {GATHER, "h1", IN("x"), .axis = -2, .index = -1},
      {CONCAT, "hcat", IN("h0", "h1"), .axis = 1},
      {OUTPUT, "out2", IN("hcat")}},
     {{"g3", "x", {"g1", "g2", "g3"}, false}, {"hcat", "x", {"h0", "h1"}, false}}},
    {"catchain",
     SG_I32,
     true,
     {{INPUT, "x", .rank = 2, .shape = {6, 5}},
      {SLICE, "a1", IN("x"), .n = 1, AXES(0), BEGIN(2), END(NONE), STEP(1), .strided = true},
      {SLICE, "a2", IN("a1"), .n = 1, AXES(1), BEGIN(NONE), END(NONE), STEP(-1)},
      {SLICE, "b1", IN("x"), .n = 1, AXES(0), BEGIN(0), END(3), STEP(1)},
      {PAD, "c1", IN("x"), .mode = "edge", .pads_begin = {1, 0}, .pads_end = {-2, 0}},
      {CONCAT, "cat", IN("a2", "b1", "c1"), .axis = 0},
      {OUTPUT, "out", IN("cat")},
      {SLICE, "tail", IN("cat"), .n = 1, AXES(0), BEGIN(1), END(NONE), STEP(3)},
      {OUTPUT, "out2", IN("tail")}},
     {{"cat", "x", {"a1", "a2", "b1", "c1"}, false}}},
    {"shared",
     SG_F16,
     false,
     {{INPUT, "x", .rank = 2, .shape = {4, 8}},
      {SLICE, "s0", IN("x"), .n = 1, AXES(1), BEGIN(0), END(NONE), STEP(2), .strided = true},
      {SLICE, "s1", IN("x"), .n = 1, AXES(1), BEGIN(1), END(NONE), STEP(2), .strided = true},
      {CONCAT, "cat", IN("s0", "s1"), .axis = 0},
      {OUTPUT, "out", IN("cat")},
      {OUTPUT, "out2", IN("s0")},
      {SLICE, "t1", IN("x"), .n = 1, AXES(0), BEGIN(1), END(NONE), STEP(1)},
      {SLICE, "t2", IN("t1"), .n = 1, AXES(1), BEGIN(NONE), END(NONE), STEP(-1), .strided = true},
      {SLICE, "t3", IN("t2"), .n = 1, AXES(0), BEGIN(NONE), END(NONE), STEP(2)},
      {OUTPUT, "out3", IN("t3")},
      {OUTPUT, "out4", IN("t1")}},
     {{"t3", "t1", {"t2", "t3"}, false}}},
    {"twoin",
     SG_BF16,
     false,
     {{INPUT, "x", .rank = 2, .shape = {3, 4}},
      {INPUT, "y", .rank = 2, .shape = {3, 4}},
      {SLICE, "a0", IN("x"), .n = 1, AXES(0), BEGIN(NONE), END(NONE), STEP(-1)},
      {SLICE, "a", IN("a0"), .n = 1, AXES(1), BEGIN(NONE), END(2), STEP(1), .strided = true},
      {SLICE, "b", IN("y"), .n = 1, AXES(1), BEGIN(2), END(NONE), STEP(1), .strided = true},
      {CONCAT, "cat", IN("a", "b"), .axis = 1},
      {OUTPUT, "out", IN("cat")},
      {SLICE, "d", IN("x"), .n = 1, AXES(1), BEGIN(NONE), END(NONE), STEP(2)},
      {CONCAT, "twice", IN("d", "d"), .axis = 0},
      {OUTPUT, "out2", IN("twice")}},
     {{"a", "x", {"a0", "a"}, false}}},
    {"split",
     SG_F32,
     false,
     {{INPUT, "x", .rank = 2, .shape = {2, 6}},
      {SPLIT, "sp", IN("x"), .axis = 1, .parts = 2},
      {CONCAT, "cat", IN("sp:1", "sp:0"), .axis = 1},
      {OUTPUT, "out", IN("cat")},
      {SLICE, "a", IN("sp:1"), .n = 1, AXES(0), BEGIN(NONE), END(NONE), STEP(-1)},
      {SLICE, "b", IN("sp:1"), .n = 1, AXES(1), BEGIN(NONE), END(NONE), STEP(2), .strided = true},
      {CONCAT, "cat2", IN("a", "b"), .axis = 1},
      {OUTPUT, "out2", IN("cat2")}},
     {{"cat2", "sp:1", {"a", "b"}, false}}},
    {"badcat",
     SG_F32,
     false,
     {{INPUT, "x", .rank = 2, .shape = {4, 6}},
      {SLICE, "a", IN("x"), .n = 2, AXES(0, 1), BEGIN(0, 0), END(2, 3), STEP(1, 1), .strided = true},
      {SLICE, "b", IN("x"), .n = 2, AXES(0, 1), BEGIN(0, 3), END(3, 6), STEP(1, 1), .strided = true},
      {CONCAT, "cat", IN("a", "b"), .axis = 1},
      {OUTPUT, "out", IN("cat")}},
     {{"cat", "x", {"a", "b"}, true}}},
    {"empty",
     SG_I64,
     true,
     {{INPUT, "x", .rank = 2, .shape = {3, 4}},
      {SLICE, "e", IN("x"), .n = 1, AXES(1), BEGIN(4), END(NONE), STEP(1), .strided = true},
      {SLICE, "f", IN("x"), .n = 1, AXES(1), BEGIN(NONE), END(NONE), STEP(-1)},
      {SLICE, "g", IN("x"), .n = 1, AXES(1), BEGIN(1), END(1), STEP(1)},
      {CONCAT, "cat", IN("e", "f", "g"), .axis = 1},
      {OUTPUT, "out", IN("cat")}},
     {{"cat", "x", {"e", "f", "g"}, false}}},
    {"scalar",
     SG_U16,
     true,
     {{INPUT, "x", .rank = 1, .shape = {7}},
      {SLICE, "s", IN("x"), .n = 1, AXES(0), BEGIN(NONE), END(NONE), STEP(-2), .strided = true},
      {GATHER, "g", IN("s"), .axis = 0, .index = -1},
      {OUTPUT, "out", IN("g")}},
     {{"g", "x", {"s", "g"}, false}}},
    {"fill",
     SG_I8,
     true,
     {{INPUT, "x", .rank = 2, .shape = {3, 5}},
      {PAD, "p1", IN("x"), .mode = "constant", .pads_begin = {2, 0}, .pads_end = {0, 1}},
      {SLICE, "s", IN("p1"), .n = 2, AXES(0, 1), BEGIN(NONE, NONE), END(NONE, NONE), STEP(2, -1)},
      {PAD, "p2", IN("s"), .mode = "reflect", .pads_begin = {1, 0}, .pads_end = {0, 2}},
      {OUTPUT, "out", IN("p2")}},
     {{"p2", "x", {"p1", "s", "p2"}, false}}},
    {"single",
     SG_U32,
     true,
     {{INPUT, "x", .rank = 2, .shape = {4, 6}},
      {SLICE, "s", IN("x"), .n = 2, AXES(0, 1), BEGIN(1, 2), END(NONE, NONE), STEP(1, 1)},
      {CONCAT, "cat", IN("s"), .axis = 0},
      {OUTPUT, "out", IN("cat")}},
     {{"cat", "x", {"s"}, false}}},
    {"reflect2",
     SG_F32,
     true,
     {{INPUT, "x", .rank = 1, .shape = {3}},
      {PAD, "p1", IN("x"), .mode = "reflect", .pads_begin = {2}, .pads_end = {2}},
      {PAD, "p2", IN("p1"), .mode = "reflect", .pads_begin = {6}, .pads_end = {5}},
      {SLICE, "s", IN("p2"), .n = 1, AXES(0), BEGIN(-2), END(1), STEP(-3)},
      {PAD, "p3", IN("s"), .mode = "edge", .pads_begin = {3}, .pads_end = {2}},
      {OUTPUT, "out", IN("p3")}},
     {{"p3", "x", {"p1", "p2", "s", "p3"}, false}}},
    {"wrap", /* ONNX only: OpenVINO's Pad has no wrap */
     SG_F32,
     false,
     {{INPUT, "x", .rank = 2, .shape = {3, 4}},
      {SLICE, "c", IN("x"), .n = 1, AXES(0), BEGIN(1), END(NONE), STEP(1)},
      {PAD, "p", IN("c"), .mode = "wrap", .pads_begin = {5, 0}, .pads_end = {4, 9}},
      {OUTPUT, "out", IN("p")}},
     {{"p", "x", {"c", "p"}, false}}},
    {"skipped",
     SG_F32,
     false,
     {{INPUT, "x", .rank = 2, .shape = {4, 4}},
      {PAD, "p", IN("x"), .mode = "symmetric", .pads_begin = {1, 1}, .pads_end = {1, 1}},
      {OUTPUT, "out", IN("p")}},
     {{0}}},
};

static size_t node_count(const pattern *p)
{
    size_t n = 0;
    while (n < MAX_NODES && p->nodes[n].kind != 0)
        n++;
    return n;
}

static size_t fusion_count(const pattern *p)
{
    size_t n = 0;
    while (n < MAX_FUSIONS && p->fusions[n].name != NULL)
        n++;
    return n;
}

/* ---- shapes ---------------------------------------------------------------------- */

typedef struct shape {
    int rank;
    int64_t d[RANK];
    bool ok; /* false: the inputs of a Concat do not match */
} shape;

static int64_t normal_axis(int64_t axis, int rank)
{
    return axis < 0 ? axis + rank : axis;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The length of begin:end:step of an axis of d elements (NumPy's rules). */
static int64_t slice_length(int64_t d, int64_t begin, int64_t end, int64_t step)
{
    if (step > 0) {
        int64_t b = begin == NONE ? 0 : clamp(begin < 0 ? begin + d : begin, 0, d);
        int64_t e = end == NONE ? d : clamp(end < 0 ? end + d : end, 0, d);
        return e > b ? (e - b + step - 1) / step : 0;
    }
    int64_t b = begin == NONE ? d - 1 : clamp(begin < 0 ? begin + d : begin, -1, d - 1);
    int64_t e = end == NONE ? -1 : clamp(end < 0 ? end + d : end, -1, d - 1);
    return b > e ? (b - e - step - 1) / -step : 0;
}

/* The shape of node n's output (each of a Split's) from those of its inputs. */
static shape output_shape(const node *n, const shape *in, size_t nin)
{
    shape s = in[0];
    s.ok = true;
    switch (n->kind) {
    case INPUT:
        s.rank = n->rank;
        memcpy(s.d, n->shape, sizeof s.d);
        break;
    case SLICE:
        for (int k = 0; k < n->n; k++) {
            int64_t a = normal_axis(n->axes[k], s.rank);
            s.d[a] = slice_length(in[0].d[a], n->begin[k], n->end[k], n->step[k]);
        }
        break;
    case PAD:
        for (int a = 0; a < s.rank; a++)
            s.d[a] += n->pads_begin[a] + n->pads_end[a];
        break;
    case GATHER: {
        int64_t a = normal_axis(n->axis, s.rank);
        memmove(s.d + a, s.d + a + 1, (size_t)(s.rank - a - 1) * sizeof *s.d);
        s.rank--;
        break;
    }
    case SPLIT:
        s.d[normal_axis(n->axis, s.rank)] /= n->parts;
        break;
    case CONCAT: {
        int64_t a = normal_axis(n->axis, s.rank);
        for (size_t k = 1; k < nin; k++) {
            for (int i = 0; i < s.rank; i++)
                s.ok = s.ok && in[k].rank == s.rank && (i == a || in[k].d[i] == s.d[i]);
            s.d[a] += in[k].d[a];
        }
        break;
    }
    case OUTPUT:
        break;
    }
    return s;
}

static void dims_text(const shape *s, char *text, size_t cap)
{
    size_t n = 0;
    text[0] = '\0';
    for (int a = 0; a < s->rank && n < cap; a++)
        n += (size_t)snprintf(text + n, cap - n, "%s%lld", a ? "," : "", (long long)s->d[a]);
}

/* ---- the suite -------------------------------------------------------------------- */

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
    char dir[256];
    const char *cli, *cc, *runner, *ort_js, *ort;
} suite;

/* One tensor of a pattern: its name (unprefixed), shape and, once the
 * layers have run, its data. */
typedef struct tensor {
    char name[32];
    shape shape;
    unsigned char *data;
    size_t bytes;
} tensor;

/* A pattern in a model: its tensors, and the ids of its nodes' layers
 * (ONNX: node indices) as written. */
typedef struct placed {
    const pattern *p;
    tensor t[MAX_NODES * 2];
    size_t nt;
    int64_t ids[MAX_NODES];
} placed;

static tensor *find_tensor(placed *pl, const char *name)
{
    for (size_t i = 0; i < pl->nt; i++)
        if (strcmp(pl->t[i].name, name) == 0)
            return &pl->t[i];
    return NULL;
}

/* The node making tensor `name` (NAME:k: output k of a Split). */
static size_t find_node(const pattern *p, const char *name)
{
    size_t n = node_count(p), len = strcspn(name, ":");
    for (size_t i = 0; i < n; i++)
        if (strlen(p->nodes[i].name) == len && strncmp(p->nodes[i].name, name, len) == 0)
            return i;
    printf("test_fuse: pattern %s has no node %s\n", p->name, name);
    exit(1);
}

/* The name of output k of node n: its own, NAME:k for a Split's. */
static void output_name(const node *n, int k, char *name, size_t cap)
{
    if (n->kind == SPLIT)
        snprintf(name, cap, "%s:%d", n->name, k);
    else
        snprintf(name, cap, "%s", n->name);
}

/* The shapes of every tensor of the pattern (no data yet). */
static void place(placed *pl, const pattern *p)
{
    *pl = (placed){.p = p};
    for (size_t i = 0; i < node_count(p); i++) {
        const node *n = &p->nodes[i];
        shape in[MAX_IN] = {{0}};
        size_t nin = 0;
        for (; nin < MAX_IN && n->in[nin] != NULL; nin++) {
            tensor *t = find_tensor(pl, n->in[nin]);
            if (t == NULL) {
                printf("test_fuse: %s/%s reads %s, which comes later\n", p->name, n->name, n->in[nin]);
                exit(1);
            }
            in[nin] = t->shape;
        }
        if (n->kind == OUTPUT)
            continue;
        shape out = output_shape(n, in, nin);
        for (int k = 0; k < (n->kind == SPLIT ? n->parts : 1); k++) {
            tensor *t = &pl->t[pl->nt++];
            output_name(n, k, t->name, sizeof t->name);
            t->shape = out;
        }
    }
}

static void unplace(placed *pl)
{
    for (size_t i = 0; i < pl->nt; i++)
        free(pl->t[i].data);
}

static size_t elements(const shape *s)
{
    size_t n = 1;
    for (int a = 0; a < s->rank; a++)
        n *= (size_t)s->d[a];
    return n;
}

/* ---- writing the models --------------------------------------------------------- */

static const char *const precisions[SG_DTYPE_COUNT] = {"BOOL", "I8",  "U8",   "I16",  "U16",  "I32", "U32",
                                                       "I64",  "U64", "FP16", "BF16", "FP32", "FP64"};
static const int onnx_types[SG_DTYPE_COUNT] = {
    ONNX_BOOL,  ONNX_INT8,   ONNX_UINT8,   ONNX_INT16,    ONNX_UINT16, ONNX_INT32, ONNX_UINT32,
    ONNX_INT64, ONNX_UINT64, ONNX_FLOAT16, ONNX_BFLOAT16, ONNX_FLOAT,  ONNX_DOUBLE};

/* begin and end of a slice as ONNX and Slice-8 take them: a bound left
 * out is the extreme in the step's direction. */
static int64_t onnx_begin(int64_t begin, int64_t step)
{
    return begin != NONE ? begin : step > 0 ? 0 : INT64_MAX;
}

static int64_t onnx_end(int64_t end, int64_t step)
{
    return end != NONE ? end : step > 0 ? INT64_MAX : INT64_MIN;
}

typedef struct ir_writer {
    ir m;
    int next; /* the next layer id */
} ir_writer;

/* The count of input ports of node n's layer: its outputs' ports follow. */
static int ir_inputs(const node *n)
{
    int k = 0;
    while (k < MAX_IN && n->in[k] != NULL)
        k++;
    switch (n->kind) {
    case SLICE:
        return n->strided ? 4 : 5;
    case PAD:
    case GATHER:
        return 3;
    case SPLIT:
        return 2;
    default:
        return k;
    }
}

/* The shape of node n's (first) output. */
static const shape *node_shape(placed *pl, const node *n)
{
    char name[40];
    output_name(n, 0, name, sizeof name);
    return &find_tensor(pl, name)->shape;
}

/* A Const of n values (scalar: rank 0) into port `port` of layer `to`. */
static void ir_index(ir_writer *w, const int64_t *values, size_t n, bool scalar, int to, int port)
{
    int id = w->next++;
    ir_const(&w->m, id, values, n, scalar);
    ir_edge(&w->m, id, 0, to, port);
}

/* "v0,v1,..." of n ints. */
static void ints_text(const int *v, int n, char *text, size_t cap)
{
    size_t at = 0;
    text[0] = '\0';
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(text + at, cap - at, "%s%d", i ? "," : "", v[i]);
}

/* A StridedSlice of every axis: the axes the node leaves out, and its
 * bounds left out, masked. */
static void ir_strided(ir_writer *w, const node *n, int id, const char *name, const char **ins,
                       const char *out, const char *precision, int rank)
{
    int64_t begin[RANK] = {0}, end[RANK] = {0}, stride[RANK] = {1, 1, 1, 1, 1, 1};
    int begin_mask[RANK] = {1, 1, 1, 1, 1, 1}, end_mask[RANK] = {1, 1, 1, 1, 1, 1};
    for (int k = 0; k < n->n; k++) {
        int64_t a = normal_axis(n->axes[k], rank);
        begin[a] = n->begin[k] == NONE ? 0 : n->begin[k];
        end[a] = n->end[k] == NONE ? 0 : n->end[k];
        begin_mask[a] = n->begin[k] == NONE;
        end_mask[a] = n->end[k] == NONE;
        stride[a] = n->step[k];
    }
    char b[32], e[32], data[96];
    ints_text(begin_mask, rank, b, sizeof b);
    ints_text(end_mask, rank, e, sizeof e);
    snprintf(data, sizeof data, "begin_mask=\"%s\" end_mask=\"%s\"", b, e);
    ir_layer(&w->m, id, name, "StridedSlice", "opset1", data, ins, (const char *[]){out, NULL}, precision);
    ir_index(w, begin, (size_t)rank, false, id, 1);
    ir_index(w, end, (size_t)rank, false, id, 2);
    ir_index(w, stride, (size_t)rank, false, id, 3);
}

/* A Slice-8 of the node's axes. */
static void ir_slice8(ir_writer *w, const node *n, int id, const char *name, const char **ins,
                      const char *out, const char *precision)
{
    int64_t start[RANK], stop[RANK];
    for (int j = 0; j < n->n; j++) {
        start[j] = onnx_begin(n->begin[j], n->step[j]);
        stop[j] = onnx_end(n->end[j], n->step[j]);
    }
    ir_layer(&w->m, id, name, "Slice", "opset8", NULL, ins, (const char *[]){out, NULL}, precision);
    ir_index(w, start, (size_t)n->n, false, id, 1);
    ir_index(w, stop, (size_t)n->n, false, id, 2);
    ir_index(w, n->step, (size_t)n->n, false, id, 3);
    ir_index(w, n->axes, (size_t)n->n, false, id, 4);
}

/* The pattern's nodes into an IR model; pl->ids their layers' ids. */
static void ir_pattern(ir_writer *w, placed *pl)
{
    const pattern *p = pl->p;
    const char *precision = precisions[p->dtype];
    for (size_t i = 0; i < node_count(p); i++) {
        const node *n = &p->nodes[i];
        char name[80], dims[MAX_IN][80], out[80], data[64], r[8], k[8];
        snprintf(name, sizeof name, "%s/%s", p->name, n->name);
        int id = w->next++, rank = 0;
        pl->ids[i] = id;
        const char *ins[MAX_IN + 4] = {NULL};
        size_t nin = 0;
        for (; nin < MAX_IN && n->in[nin] != NULL; nin++) {
            const shape *s = &find_tensor(pl, n->in[nin])->shape;
            dims_text(s, dims[nin], sizeof dims[nin]);
            ins[nin] = dims[nin];
            rank = nin == 0 ? s->rank : rank;
        }
        if (n->kind != OUTPUT)
            dims_text(node_shape(pl, n), out, sizeof out);
        snprintf(r, sizeof r, "%d", rank);
        snprintf(k, sizeof k, "%d", n->n);
        switch (n->kind) {
        case INPUT:
            ir_parameter(&w->m, id, name, out, precision);
            break;
        case OUTPUT:
            ir_layer(&w->m, id, name, "Result", "opset1", NULL, ins, NULL, NULL);
            break;
        case SLICE:
            ins[1] = ins[2] = ins[3] = n->strided ? r : k;
            ins[4] = n->strided ? NULL : k;
            if (n->strided)
                ir_strided(w, n, id, name, ins, out, precision, rank);
            else
                ir_slice8(w, n, id, name, ins, out, precision);
            break;
        case PAD:
            snprintf(data, sizeof data, "pad_mode=\"%s\"", n->mode);
            ins[1] = ins[2] = r;
            ir_layer(&w->m, id, name, "Pad", "opset12", data, ins, (const char *[]){out, NULL}, precision);
            ir_index(w, n->pads_begin, (size_t)rank, false, id, 1);
            ir_index(w, n->pads_end, (size_t)rank, false, id, 2);
            break;
        case GATHER:
            ins[1] = ins[2] = "";
            ir_layer(&w->m, id, name, "Gather", "opset8", "batch_dims=\"0\"", ins,
                     (const char *[]){out, NULL}, precision);
            ir_index(w, &n->index, 1, true, id, 1);
            ir_index(w, &n->axis, 1, true, id, 2);
            break;
        case SPLIT: {
            const char *outs[MAX_IN + 1] = {NULL};
            for (int j = 0; j < n->parts && j < MAX_IN; j++)
                outs[j] = out;
            snprintf(data, sizeof data, "num_splits=\"%d\"", n->parts);
            ins[1] = "";
            ir_layer(&w->m, id, name, "Split", "opset1", data, ins, outs, precision);
            ir_index(w, &n->axis, 1, true, id, 1);
            break;
        }
        case CONCAT:
            snprintf(data, sizeof data, "axis=\"%lld\"", (long long)n->axis);
            ir_layer(&w->m, id, name, "Concat", "opset1", data, ins, (const char *[]){out, NULL}, precision);
            break;
        }
        for (size_t j = 0; j < nin; j++) { /* the data inputs' edges */
            const char *t = n->in[j], *colon = strchr(t, ':');
            size_t from = find_node(p, t);
            ir_edge(&w->m, (int)pl->ids[from], ir_inputs(&p->nodes[from]) + (colon ? atoi(colon + 1) : 0), id,
                    (int)j);
        }
    }
}

/* The pattern's nodes into an ONNX graph (opset 13), every tensor a node
 * makes with its type and shape (as graph output or value_info); pl->ids
 * the nodes' indices. */
static void onnx_pattern(onnx *m, placed *pl)
{
    const pattern *p = pl->p;
    int type = onnx_types[p->dtype];
    bool output[MAX_NODES * 2] = {false};
    for (size_t i = 0; i < node_count(p); i++) {
        const node *n = &p->nodes[i];
        char name[80], ins[MAX_IN + 4][96], outs[MAX_IN][96], index[MAX_IN][96];
        const char *in_names[MAX_IN + 5] = {NULL}, *out_names[MAX_IN + 1] = {NULL};
        snprintf(name, sizeof name, "%s/%s", p->name, n->name);
        size_t nin = 0;
        for (; nin < MAX_IN && n->in[nin] != NULL; nin++) {
            snprintf(ins[nin], sizeof ins[nin], "%s/%s", p->name, n->in[nin]);
            in_names[nin] = ins[nin];
        }
        int nout = n->kind == SPLIT ? n->parts : 1;
        for (int k = 0; k < nout; k++) {
            char own[40];
            output_name(n, k, own, sizeof own);
            snprintf(outs[k], sizeof outs[k], "%s/%s", p->name, own);
            out_names[k] = outs[k];
        }
        onnx_attr attr = NO_ATTR;
        int rank = nin ? find_tensor(pl, n->in[0])->shape.rank : 0;
        const char *op = "";
        switch (n->kind) {
        case INPUT: {
            const shape *s = node_shape(pl, n);
            onnx_value(m, ONNX_GRAPH_INPUT, name, type, s->d, (size_t)s->rank);
            continue;
        }
        case OUTPUT: {
            const tensor *t = find_tensor(pl, n->in[0]);
            onnx_value(m, ONNX_GRAPH_OUTPUT, ins[0], type, t->shape.d, (size_t)t->shape.rank);
            output[t - pl->t] = true;
            continue;
        }
        case SLICE: {
            static const char *const parts[] = {"starts", "ends", "axes", "steps"};
            int64_t v[4][RANK];
            for (int j = 0; j < n->n; j++) {
                v[0][j] = onnx_begin(n->begin[j], n->step[j]);
                v[1][j] = onnx_end(n->end[j], n->step[j]);
                v[2][j] = n->axes[j];
                v[3][j] = n->step[j];
            }
            for (int j = 0; j < 4; j++) {
                snprintf(index[j], sizeof index[j], "%s/%s", name, parts[j]);
                onnx_ints(m, index[j], v[j], (size_t)n->n);
                in_names[1 + j] = index[j];
            }
            op = "Slice";
            break;
        }
        case PAD: {
            int64_t pads[2 * RANK];
            memcpy(pads, n->pads_begin, (size_t)rank * sizeof *pads);
            memcpy(pads + rank, n->pads_end, (size_t)rank * sizeof *pads);
            snprintf(index[0], sizeof index[0], "%s/pads", name);
            onnx_ints(m, index[0], pads, 2 * (size_t)rank);
            in_names[1] = index[0];
            attr = attr_string("mode", n->mode);
            op = "Pad";
            break;
        }
        case GATHER:
            snprintf(index[0], sizeof index[0], "%s/indices", name);
            onnx_int_scalar(m, index[0], n->index);
            in_names[1] = index[0];
            attr = attr_int("axis", n->axis);
            op = "Gather";
            break;
        case SPLIT:
            attr = attr_int("axis", n->axis);
            op = "Split";
            break;
        case CONCAT:
            attr = attr_int("axis", n->axis);
            op = "Concat";
            break;
        }
        pl->ids[i] = onnx_node(m, name, op, in_names, out_names, attr);
    }
    for (size_t i = 0; i < pl->nt; i++) { /* value_info of the tensors nodes make */
        const tensor *t = &pl->t[i];
        if (output[i] || p->nodes[find_node(p, t->name)].kind == INPUT)
            continue;
        char name[96];
        snprintf(name, sizeof name, "%s/%s", p->name, t->name);
        onnx_value(m, ONNX_VALUE_INFO, name, type, t->shape.d, (size_t)t->shape.rank);
    }
}

/* ---- the unfused layers, one by one ------------------------------------------------ */

static bool same_shape(size_t rank, const int64_t *dims, const shape *s)
{
    return (int)rank == s->rank && memcmp(dims, s->d, rank * sizeof *dims) == 0;
}

/* Whether node n is a layer the readers skip (no slicegen mode). */
static bool skipped_node(const node *n)
{
    return n->kind == PAD && strcmp(n->mode, "symmetric") == 0;
}

/* The model's k-th layer named "PATTERN/NAME" (a Split has one per
 * output), its index into *index; NULL when there is none. */
static const sg_model_layer *layer_named(const sg_model *model, const char *pattern, const char *name, int k,
                                         size_t *index)
{
    char full[96];
    snprintf(full, sizeof full, "%s/%s", pattern, name);
    for (size_t i = 0; i < sg_model_layer_count(model); i++) {
        const sg_model_layer *l = sg_model_layer_at(model, i);
        if (strcmp(l->name, full) == 0 && k-- == 0) {
            if (index)
                *index = i;
            return l;
        }
    }
    return NULL;
}

static void *alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        printf("test_fuse: out of memory\n");
        exit(1);
    }
    return p;
}

/* A Concat's parts copied along its axis. */
static void concat(const node *n, placed *pl, tensor *out)
{
    int64_t a = normal_axis(n->axis, out->shape.rank);
    size_t outer = 1, esize = out->bytes / (elements(&out->shape) ? elements(&out->shape) : 1), at = 0;
    for (int64_t i = 0; i < a; i++)
        outer *= (size_t)out->shape.d[i];
    for (size_t o = 0; o < outer; o++)
        for (size_t k = 0; k < MAX_IN && n->in[k] != NULL; k++) {
            const tensor *t = find_tensor(pl, n->in[k]);
            size_t chunk = elements(&t->shape) / (outer ? outer : 1) * esize;
            if (chunk)
                memcpy(out->data + at, t->data + o * chunk, chunk);
            at += chunk;
        }
}

/* Every tensor of the pattern in the model: the inputs random, each
 * layer's output from its own spec and plan through the reference
 * interpreter, each Concat's by copying. Checks that each layer reads the
 * shape and type its producer makes and makes the shape the model says. */
static void run_layers(suite *s, const char *what, const sg_model *model, placed *pl)
{
    const pattern *p = pl->p;
    size_t esize = sg_dtype_size(p->dtype);
    for (size_t i = 0; i < node_count(p); i++) {
        const node *n = &p->nodes[i];
        if (n->kind == OUTPUT)
            continue;
        tensor *in = n->in[0] ? find_tensor(pl, n->in[0]) : NULL;
        for (int k = 0; k < (n->kind == SPLIT ? n->parts : 1); k++) {
            char name[40];
            output_name(n, k, name, sizeof name);
            tensor *out = find_tensor(pl, name);
            out->bytes = elements(&out->shape) * esize;
            if (n->kind == INPUT) {
                out->data = alloc(out->bytes);
                for (size_t b = 0; b < out->bytes; b++)
                    out->data[b] = (unsigned char)rnd();
                continue;
            }
            if (n->kind == CONCAT) {
                bool ready = out->shape.ok;
                for (size_t j = 0; j < MAX_IN && n->in[j] != NULL; j++)
                    ready = ready && find_tensor(pl, n->in[j])->data != NULL;
                if (ready) {
                    out->data = alloc(out->bytes);
                    concat(n, pl, out);
                }
                continue;
            }
            const sg_model_layer *l = layer_named(model, p->name, n->name, k, NULL);
            if (!CHECK(s, l != NULL, "%s: no layer %s/%s (output %d)", what, p->name, n->name, k) ||
                !CHECK(s, (l->spec == NULL) == skipped_node(n), "%s: layer %s %s", what, l->name,
                       l->spec ? "not skipped" : l->skip_reason) ||
                l->spec == NULL || in->data == NULL)
                continue;
            CHECK(s, same_shape(l->rank, l->shape, &in->shape) && l->dtype == p->dtype,
                  "%s: layer %s reads rank %zu, %s, not its producer's", what, l->name, l->rank,
                  sg_dtype_name(l->dtype));
            sg_plan *plan = NULL;
            if (!CHECK(s, sg_plan_create(s->ctx, l->spec, l->rank, l->shape, l->dtype, &plan) == SG_OK,
                       "%s: layer %s (%s): %s", what, l->name, l->spec_text, sg_context_last_error(s->ctx)))
                continue;
            if (CHECK(s,
                      same_shape(sg_plan_output_rank(plan), sg_plan_output_shape(plan), &out->shape) &&
                          sg_plan_input_bytes(plan) == in->bytes,
                      "%s: layer %s (%s) gives another shape than the model says", what, l->name,
                      l->spec_text)) {
                out->data = alloc(out->bytes);
                CHECK(s, sg_run_reference(s->ctx, plan, in->data, out->data) == SG_OK, "%s: layer %s: %s",
                      what, l->name, sg_context_last_error(s->ctx));
            }
            sg_plan_destroy(plan);
        }
    }
}

/* ---- the fusions -------------------------------------------------------------------- */

/* The fusion's program planned, run by the reference interpreter and the
 * JIT (-O0, -O2; 1 and 3 threads, guard bytes around the output) on `in`:
 * each output must be `expected` (the shape of `out`). */
static void run_fusion(suite *s, const char *what, const sg_model_fusion *f, const tensor *in,
                       const tensor *out, const unsigned char *expected)
{
    sg_plan *plan = NULL;
    if (!CHECK(s, sg_plan_create(s->ctx, f->spec, f->rank, f->shape, f->dtype, &plan) == SG_OK,
               "%s: fusion %s (%s): %s", what, f->name, f->spec_text, sg_context_last_error(s->ctx)))
        return;
    if (!CHECK(s,
               same_shape(sg_plan_output_rank(plan), sg_plan_output_shape(plan), &out->shape) &&
                   sg_plan_output_bytes(plan) == out->bytes && sg_plan_input_bytes(plan) == in->bytes,
               "%s: fusion %s gives another shape than its last layer", what, f->name)) {
        sg_plan_destroy(plan);
        return;
    }
    unsigned char *buf = alloc(out->bytes + 2 * GUARD);
    long at;
    memset(buf, 0xA5, out->bytes + 2 * GUARD);
    CHECK(s, sg_run_reference(s->ctx, plan, in->data, buf + GUARD) == SG_OK, "%s: fusion %s: reference: %s",
          what, f->name, sg_context_last_error(s->ctx));
    at = first_difference(expected, buf + GUARD, out->bytes);
    CHECK(s, at < 0, "%s: fusion %s: the reference interpreter differs from the layers at byte %ld of %zu",
          what, f->name, at, out->bytes);
    for (int opt = 0; opt <= 2; opt += 2) {
        sg_kernel *kernel = NULL;
        if (!CHECK(s, sg_kernel_compile(s->ctx, plan, opt, &kernel) == SG_OK, "%s: fusion %s -O%d: %s", what,
                   f->name, opt, sg_context_last_error(s->ctx)))
            continue;
        for (int threads = 1; threads <= 3; threads += 2) {
            memset(buf, 0xA5, out->bytes + 2 * GUARD);
            bool guards = true;
            CHECK(s, sg_kernel_run(s->ctx, kernel, in->data, buf + GUARD, threads) == SG_OK,
                  "%s: fusion %s -O%d: %s", what, f->name, opt, sg_context_last_error(s->ctx));
            for (size_t g = 0; g < GUARD; g++)
                guards = guards && buf[g] == 0xA5 && buf[GUARD + out->bytes + g] == 0xA5;
            CHECK(s, guards, "%s: fusion %s -O%d, %d threads: writes outside its output", what, f->name, opt,
                  threads);
            at = first_difference(expected, buf + GUARD, out->bytes);
            CHECK(s, at < 0,
                  "%s: fusion %s -O%d, %d threads: differs from the layers at byte %ld of %zu (spec %s)",
                  what, f->name, opt, threads, at, out->bytes, f->spec_text);
        }
        sg_kernel_release(kernel);
    }
    free(buf);
    sg_plan_destroy(plan);
}

/* Fusion f is the one w describes, of pattern pl; run: run its program. */
static void check_fusion(suite *s, const char *what, const sg_model *model, placed *pl, const want *w,
                         const sg_model_fusion *f, bool run)
{
    const pattern *p = pl->p;
    char name[96];
    size_t last = find_node(p, w->name), nlayers = 0;
    bool is_concat = p->nodes[last].kind == CONCAT;
    snprintf(name, sizeof name, "%s/%s", p->name, w->name);
    if (!CHECK(s, strcmp(f->name, name) == 0, "%s: fusion %s, expected %s", what, f->name, name))
        return;
    CHECK(s, f->id == pl->ids[last], "%s: fusion %s has id %lld, expected %lld", what, name, (long long)f->id,
          (long long)pl->ids[last]);
    while (nlayers < MAX_NODES && w->layers[nlayers] != NULL)
        nlayers++;
    if (CHECK(s, f->nlayers == nlayers && f->nnames == nlayers + is_concat,
              "%s: fusion %s of %zu layers and %zu names, expected %zu and %zu", what, name, f->nlayers,
              f->nnames, nlayers, nlayers + is_concat)) {
        for (size_t i = 0; i < nlayers; i++) {
            char layer[96];
            snprintf(layer, sizeof layer, "%s/%s", p->name, w->layers[i]);
            const sg_model_layer *l =
                f->layers[i] < sg_model_layer_count(model) ? sg_model_layer_at(model, f->layers[i]) : NULL;
            CHECK(s, l != NULL && strcmp(l->name, layer) == 0, "%s: fusion %s: layer %zu is %s, expected %s",
                  what, name, i, l ? l->name : "out of range", layer);
            CHECK(s, i == 0 || f->layers[i] > f->layers[i - 1], "%s: fusion %s: layers not in model order",
                  what, name);
            CHECK(s, strcmp(f->names[i], layer) == 0, "%s: fusion %s: name %zu is %s, expected %s", what,
                  name, i, f->names[i], layer);
        }
        CHECK(s, !is_concat || strcmp(f->names[nlayers], name) == 0,
              "%s: fusion %s: its last name is %s, not the Concat's", what, name, f->names[nlayers]);
    }
    const tensor *in = find_tensor(pl, w->input), *out = find_tensor(pl, w->name);
    CHECK(s, same_shape(f->rank, f->shape, &in->shape) && f->dtype == p->dtype,
          "%s: fusion %s reads rank %zu, %s, not the shape and type of %s", what, name, f->rank,
          sg_dtype_name(f->dtype), w->input);
    if (!CHECK(s, f->spec != NULL && f->spec_text != NULL, "%s: fusion %s has no program", what, name) ||
        !run)
        return;
    if (w->unplannable) {
        sg_plan *plan = NULL;
        CHECK(s, sg_plan_create(s->ctx, f->spec, f->rank, f->shape, f->dtype, &plan) != SG_OK,
              "%s: fusion %s of mismatched shapes plans", what, name);
        sg_plan_destroy(plan);
    } else if (CHECK(s, in->data != NULL && out->data != NULL, "%s: fusion %s: the layers did not run", what,
                     name)) {
        run_fusion(s, what, f, in, out, out->data);
    }
}

/* The model's fusions are those of its patterns pls[0..n), in order. */
static void check_fusions(suite *s, const char *what, sg_model *model, placed *pls, size_t n, bool run)
{
    const sg_model_fusion *fusions = NULL;
    size_t count = 0, expected = 0, k = 0;
    if (!CHECK(s, sg_model_fusions(s->ctx, model, &count, &fusions) == SG_OK, "%s: %s", what,
               sg_context_last_error(s->ctx)))
        return;
    for (size_t j = 0; j < n; j++)
        expected += fusion_count(pls[j].p);
    CHECK(s, count == expected, "%s: %zu fusions, expected %zu", what, count, expected);
    for (size_t j = 0; j < n; j++)
        for (size_t w = 0; w < fusion_count(pls[j].p) && k < count; w++)
            check_fusion(s, what, model, &pls[j], &pls[j].p->fusions[w], &fusions[k++], run);
}

/* Writes the patterns pls[0..n) as one model `name` in `format` ("IR" or
 * "ONNX") into the suite's folder; path receives the model's path. */
static void write_model(suite *s, const char *format, const char *name, placed *pls, size_t n, char *path,
                        size_t cap)
{
    if (strcmp(format, "IR") == 0) {
        ir_writer w = {0};
        char bin[512];
        for (size_t j = 0; j < n; j++)
            ir_pattern(&w, &pls[j]);
        ir_write(&w.m, s->dir, name, path, bin, cap < sizeof bin ? cap : sizeof bin);
    } else {
        onnx m = {0};
        for (size_t j = 0; j < n; j++)
            onnx_pattern(&m, &pls[j]);
        onnx_write(&m, s->dir, name, 13, path, cap);
    }
}

/* Reads the model at path; NULL (a failed check) when it fails. */
static sg_model *read_model(suite *s, const char *what, const char *path)
{
    sg_model *model = NULL;
    CHECK(s, sg_model_read(s->ctx, path, NULL, &model) == SG_OK, "%s: %s", what,
          sg_context_last_error(s->ctx));
    return model;
}

/* Each pattern alone: its fusions and their programs. */
/* Whether pattern p can be written in format ("IR" or "ONNX"): OpenVINO's
 * Pad has no wrap mode. */
static bool in_format(const pattern *p, const char *format)
{
    for (size_t i = 0; i < node_count(p) && strcmp(format, "IR") == 0; i++)
        if (p->nodes[i].kind == PAD && strcmp(p->nodes[i].mode, "wrap") == 0)
            return false;
    return true;
}

static void test_patterns(suite *s, const char *format)
{
    for (size_t j = 0; j < PATTERNS; j++) {
        if (!in_format(&patterns[j], format))
            continue;
        placed pl;
        char path[512], what[64];
        snprintf(what, sizeof what, "%s %s", format, patterns[j].name);
        place(&pl, &patterns[j]);
        write_model(s, format, patterns[j].name, &pl, 1, path, sizeof path);
        sg_model *model = read_model(s, what, path);
        if (model != NULL) {
            run_layers(s, what, model, &pl);
            check_fusions(s, what, model, &pl, 1, true);
        }
        sg_model_destroy(model);
        unplace(&pl);
    }
}

/* ---- the command line ----------------------------------------------------------------- */

/* Runs argv (NULL-terminated) with stdout and stderr into the files
 * out and err; its exit status (-1: it did not run to an end). */
static int run_command(char *const *argv, const char *out, const char *err)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
            e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = -1;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The whole file (NUL-terminated), or NULL; its size into *size. */
static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = alloc((size_t)n + 1);
        if (fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        } else {
            data[n] = '\0';
            if (size)
                *size = (size_t)n;
        }
    }
    if (f)
        fclose(f);
    return data;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; text && *text; text++)
        n += *text == '\n';
    return n;
}

static bool is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether text holds identifier `name` as a whole word. */
static bool has_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = text; at && (at = strstr(at, name)) != NULL; at++)
        if ((at == text || !is_word_char(at[-1])) && !is_word_char(at[n]))
            return true;
    return false;
}

/* One kernel the table of `slicegen aot` must hold. */
typedef struct kernel_row {
    char base[96];     /* what its name is made from */
    const char *layer; /* NAME_info.layer */
    int64_t id;
    const sg_model_fusion *fusion; /* NULL: one layer's */
    const tensor *in, *out;
    char *name; /* from sg_aot_layer_names */
} kernel_row;

/* The pattern and node of layer l ("PATTERN/NODE"), and its tensors in, out. */
static bool layer_tensors(placed *pls, size_t n, const sg_model_layer *l, int k, const tensor **in,
                          const tensor **out)
{
    size_t len = strcspn(l->name, "/");
    for (size_t j = 0; j < n; j++) {
        const pattern *p = pls[j].p;
        if (strlen(p->name) != len || strncmp(p->name, l->name, len) != 0)
            continue;
        const node *nd = &p->nodes[find_node(p, l->name + len + 1)];
        char name[40];
        output_name(nd, k, name, sizeof name);
        *in = find_tensor(&pls[j], nd->in[0]);
        *out = find_tensor(&pls[j], name);
        return true;
    }
    return false;
}

/* The want of fusion f among the patterns, or NULL. */
static const want *want_of(placed *pls, size_t n, const sg_model_fusion *f, placed **where)
{
    for (size_t j = 0; j < n; j++)
        for (size_t w = 0; w < fusion_count(pls[j].p); w++) {
            char name[96];
            snprintf(name, sizeof name, "%s/%s", pls[j].p->name, pls[j].p->fusions[w].name);
            if (strcmp(name, f->name) == 0) {
                *where = &pls[j];
                return &pls[j].p->fusions[w];
            }
        }
    return NULL;
}

/* The kernels of the model's table, in order: fusions (when fuse) at their
 * last layer, else one per layer not skipped. Returns the count. */
static size_t expected_table(suite *s, sg_model *model, placed *pls, size_t n, bool fuse, const char *prefix,
                             kernel_row *rows)
{
    const sg_model_fusion *fusions = NULL;
    size_t nfusions = 0, count = 0, layers = sg_model_layer_count(model);
    if (fuse)
        sg_model_fusions(s->ctx, model, &nfusions, &fusions);
    for (size_t i = 0; i < layers && count < MAX_KERNELS; i++) {
        const sg_model_layer *l = sg_model_layer_at(model, i);
        const sg_model_fusion *f = NULL;
        for (size_t k = 0; k < nfusions && f == NULL; k++) {
            placed *pl = NULL;
            const want *w = want_of(pls, n, &fusions[k], &pl);
            for (size_t j = 0; w && !w->unplannable && j < fusions[k].nlayers; j++)
                if (fusions[k].layers[j] == i)
                    f = &fusions[k];
        }
        kernel_row *r = &rows[count];
        *r = (kernel_row){.layer = l->name, .id = l->id};
        if (f != NULL) {
            if (f->layers[f->nlayers - 1] != i)
                continue;
            placed *pl = NULL;
            const want *w = want_of(pls, n, f, &pl);
            *r = (kernel_row){.layer = f->name,
                              .id = f->id,
                              .fusion = f,
                              .in = find_tensor(pl, w->input),
                              .out = find_tensor(pl, w->name)};
            snprintf(r->base, sizeof r->base, "%s", f->name);
        } else if (l->spec == NULL) {
            continue;
        } else {
            int k = 0; /* which output of a Split */
            while (k < (int)i && strcmp(sg_model_layer_at(model, i - (size_t)k - 1)->name, l->name) == 0)
                k++;
            bool several =
                k > 0 || (i + 1 < layers && strcmp(sg_model_layer_at(model, i + 1)->name, l->name) == 0);
            snprintf(r->base, sizeof r->base, several ? "%s_out%d" : "%s", l->name, k);
            layer_tensors(pls, n, l, k, &r->in, &r->out);
        }
        count++;
    }
    const char *bases[MAX_KERNELS];
    char *names[MAX_KERNELS] = {NULL};
    for (size_t k = 0; k < count; k++)
        bases[k] = rows[k].base;
    CHECK(s, sg_aot_layer_names(s->ctx, prefix, count, bases, names) == SG_OK, "kernel names: %s",
          sg_context_last_error(s->ctx));
    for (size_t k = 0; k < count; k++)
        rows[k].name = names[k];
    return count;
}

static void free_table(kernel_row *rows, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free(rows[k].name);
}

/* The line fuse_runner prints for the row. */
static void runner_line(const kernel_row *r, char *line, size_t cap)
{
    size_t at = (size_t)snprintf(line, cap, "kernel %s layer %s id %lld version 5 fused %zu", r->name,
                                 r->layer, (long long)r->id, r->fusion ? r->fusion->nnames : 0);
    for (size_t i = 0; r->fusion && i < r->fusion->nnames && at < cap; i++)
        at += (size_t)snprintf(line + at, cap - at, " %s", r->fusion->names[i]);
}

/* Checks that the stderr line at `at` starts with `line`; the text after it. */
static const char *next_stderr_line(suite *s, const char *what, const char *at, const char *line)
{
    char shown[512];
    size_t n = strcspn(at, "\n"), m = n < sizeof shown ? n : sizeof shown - 1;
    memcpy(shown, at, m);
    shown[m] = '\0';
    CHECK(s, strncmp(at, line, strlen(line)) == 0, "%s: stderr '%s', expected '%s...'", what, shown, line);
    return at + n + (at[n] == '\n');
}

/* `slicegen aot [--fuse]` on the model of all patterns (in `format`, at
 * model_path): its summary and other lines, header, table and outputs. */
static void test_aot(suite *s, const char *format, const char *model_path, sg_model *model, placed *pls,
                     size_t n, bool fuse)
{
    const char *prefix = fuse ? "fz" : "plain";
    char what[64], obj[600], header[600], out[600], err[600], runner[600];
    snprintf(what, sizeof what, "%s aot%s", format, fuse ? " --fuse" : "");
    snprintf(obj, sizeof obj, "%s/%s.o", s->dir, prefix);
    snprintf(header, sizeof header, "%s/%s.h", s->dir, prefix);
    snprintf(out, sizeof out, "%s/stdout.txt", s->dir);
    snprintf(err, sizeof err, "%s/stderr.txt", s->dir);
    char *argv[16] = {(char *)s->cli, "aot",  (char *)model_path, "-o",          obj,
                      "--header",     header, "--prefix",         (char *)prefix};
    if (fuse)
        argv[9] = "--fuse";
    int rc = run_command(argv, out, err);
    char *said = read_all(out, NULL), *errors = read_all(err, NULL);
    if (!CHECK(s, rc == 0, "%s: exit %d: %s", what, rc, errors ? errors : "")) {
        free(said);
        free(errors);
        return;
    }
    /* the summary line */
    kernel_row rows[MAX_KERNELS];
    size_t nrows = expected_table(s, model, pls, n, fuse, prefix, rows), layers = sg_model_layer_count(model);
    size_t skipped = 0, fused = 0, kernels = 0, unfused = 0;
    for (size_t i = 0; i < layers; i++)
        skipped += sg_model_layer_at(model, i)->spec == NULL;
    for (size_t k = 0; k < nrows; k++)
        if (rows[k].fusion)
            fused += rows[k].fusion->nlayers, kernels++;
    char line[2048], fused_text[96] = "";
    struct stat st;
    if (kernels)
        snprintf(fused_text, sizeof fused_text, "; %zu fused into %zu kernel%s", fused, kernels,
                 kernels == 1 ? "" : "s");
    snprintf(line, sizeof line,
             "slicegen: compiled %zu of %zu slice layers (%zu skipped%s) into %s (%lld bytes) and %s\n",
             layers - skipped, layers, skipped, fused_text, obj,
             stat(obj, &st) == 0 ? (long long)st.st_size : -1LL, header);
    CHECK(s, said && strcmp(said, line) == 0, "%s: said '%s', expected '%s'", what, said ? said : "", line);
    /* stderr: the fusion that does not plan, then the skipped layer */
    const char *at = errors ? errors : "";
    if (fuse) {
        const sg_model_fusion *fusions = NULL;
        size_t nfusions = 0;
        sg_model_fusions(s->ctx, model, &nfusions, &fusions);
        for (size_t k = 0; k < nfusions; k++) {
            placed *pl = NULL;
            const want *w = want_of(pls, n, &fusions[k], &pl);
            if (w == NULL || !w->unplannable)
                continue;
            unfused++;
            snprintf(line, sizeof line,
                     "slicegen: not fusing '%s' (id %lld, %zu slice layers): ", fusions[k].name,
                     (long long)fusions[k].id, fusions[k].nlayers);
            at = next_stderr_line(s, what, at, line);
        }
    }
    for (size_t i = 0; i < layers; i++) {
        const sg_model_layer *l = sg_model_layer_at(model, i);
        if (l->spec != NULL)
            continue;
        snprintf(line, sizeof line, "slicegen: skipping layer '%s' (id %lld, %s): ", l->name,
                 (long long)l->id, l->type);
        at = next_stderr_line(s, what, at, line);
    }
    CHECK(s, count_lines(errors) == unfused + skipped, "%s: %zu lines on stderr, expected %zu: %s", what,
          count_lines(errors), unfused + skipped, errors ? errors : "");
    free(said);
    free(errors);
    /* the header: the table's kernels, and not the layers fused */
    char *text = read_all(header, NULL);
    CHECK(s, text != NULL, "%s: no header %s", what, header);
    for (size_t k = 0; text && k < nrows; k++) {
        char info[160], fn[160];
        snprintf(info, sizeof info, "extern const slicegen_kernel_info %s_info;", rows[k].name);
        snprintf(fn, sizeof fn, "void %s(const void *in, void *out, int64_t begin, int64_t end);",
                 rows[k].name);
        CHECK(s, strstr(text, info) && strstr(text, fn), "%s: the header does not declare %s", what,
              rows[k].name);
    }
    if (fuse && text) {
        kernel_row alone[MAX_KERNELS];
        size_t nalone = expected_table(s, model, pls, n, false, prefix, alone);
        for (size_t k = 0; k < nalone; k++) {
            bool kept = false;
            for (size_t j = 0; j < nrows; j++)
                kept = kept || strcmp(rows[j].name, alone[k].name) == 0;
            if (!kept) {
                char info[160];
                snprintf(info, sizeof info, "%s_info", alone[k].name);
                CHECK(s, !has_word(text, alone[k].name) && !has_word(text, info),
                      "%s: the header declares %s, a layer fused", what, alone[k].name);
            }
        }
        free_table(alone, nalone);
    }
    free(text);
    /* the table and the outputs, through fuse_runner linked with the object */
    char table[128], count[128], listing[600];
    snprintf(runner, sizeof runner, "%s/runner-%s", s->dir, prefix);
    snprintf(table, sizeof table, "-DTABLE=%s_kernels", prefix);
    snprintf(count, sizeof count, "-DCOUNT=%s_kernel_count", prefix);
    snprintf(listing, sizeof listing, "%s/listing.txt", s->dir);
    char *cc[] = {(char *)s->cc,     "-std=c11", "-include", header, table, count,
                  (char *)s->runner, obj,        "-o",       runner, NULL};
    rc = run_command(cc, out, err);
    errors = read_all(err, NULL);
    if (!CHECK(s, rc == 0, "%s: %s cannot build the runner: %s", what, s->cc, errors ? errors : "")) {
        free(errors);
        free_table(rows, nrows);
        return;
    }
    free(errors);
    for (size_t k = 0; k < nrows; k++) {
        if (rows[k].in == NULL || rows[k].in->data == NULL)
            continue;
        char file[128], path[600];
        snprintf(file, sizeof file, "%s.in", rows[k].name);
        write_file(s->dir, file, &(buf){.b = rows[k].in->data, .len = rows[k].in->bytes}, path, sizeof path);
    }
    rc = run_command((char *[]){runner, s->dir, NULL}, listing, err);
    errors = read_all(err, NULL);
    char *list = read_all(listing, NULL);
    CHECK(s, rc == 0, "%s: the runner: exit %d: %s", what, rc, errors ? errors : "");
    const char *row = list ? list : "";
    for (size_t k = 0; k < nrows; k++) {
        runner_line(&rows[k], line, sizeof line);
        size_t len = strcspn(row, "\n");
        CHECK(s, strlen(line) == len && strncmp(row, line, len) == 0,
              "%s: table row %zu is '%.*s', expected '%s'", what, k, (int)len, row, line);
        row += len + (row[len] == '\n');
        if (rows[k].out == NULL || rows[k].out->data == NULL)
            continue;
        char path[600];
        size_t size = 0;
        snprintf(path, sizeof path, "%s/%s.out", s->dir, rows[k].name);
        char *got = read_all(path, &size);
        long diff = got && size == rows[k].out->bytes
                        ? first_difference(rows[k].out->data, (unsigned char *)got, size)
                        : 0;
        CHECK(s, got && size == rows[k].out->bytes && diff < 0,
              "%s: kernel %s: output of %zu bytes differs from the layers' (%zu bytes) at byte %ld", what,
              rows[k].name, size, rows[k].out->bytes, diff);
        free(got);
    }
    CHECK(s, *row == '\0', "%s: the table has more rows: %s", what, row);
    free(list);
    free(errors);
    free_table(rows, nrows);
}

/* `--fuse` is an option of `slicegen aot` alone. */
static void test_usage(suite *s)
{
    char out[600], err[600], obj[600], npy[600], result[600];
    snprintf(out, sizeof out, "%s/stdout.txt", s->dir);
    snprintf(err, sizeof err, "%s/stderr.txt", s->dir);
    snprintf(obj, sizeof obj, "%s/emitted.o", s->dir);
    snprintf(npy, sizeof npy, "%s/in.npy", s->dir);
    snprintf(result, sizeof result, "%s/out.npy", s->dir);
    float data[4] = {1, 2, 3, 4};
    sg_tensor t = {.dtype = SG_F32, .rank = 1, .shape = {4}, .data = data, .bytes = sizeof data};
    CHECK(s, sg_npy_write(s->ctx, npy, &t) == SG_OK, "in.npy: %s", sg_context_last_error(s->ctx));
    char *emit[] = {(char *)s->cli, "emit", "x[1:]", "--shape", "4", "--dtype",
                    "f32",          "-o",   obj,     "--fuse",  NULL};
    char *run[] = {(char *)s->cli, "run", "x[1:]", "--in", npy, "--out", result, "--fuse", NULL};
    char **commands[] = {emit, run};
    const char *outputs[] = {obj, result};
    for (int c = 0; c < 2; c++) {
        int rc = run_command(commands[c], out, err);
        char *errors = read_all(err, NULL);
        CHECK(s,
              rc == 2 && count_lines(errors) == 1 && strstr(errors, "--fuse") != NULL &&
                  access(outputs[c], F_OK) != 0,
              "slicegen %s --fuse: exit %d (expected 2), stderr '%s'", commands[c][1], rc,
              errors ? errors : "");
        free(errors);
    }
}

/* All patterns in one model, in both formats: the fusions, and (with --cli)
 * `slicegen aot` with and without --fuse. */
static void test_all(suite *s, const char *format)
{
    placed pls[PATTERNS];
    char path[512], what[64];
    size_t n = 0;
    snprintf(what, sizeof what, "%s all", format);
    for (size_t j = 0; j < PATTERNS; j++)
        if (in_format(&patterns[j], format))
            place(&pls[n++], &patterns[j]);
    write_model(s, format, "all", pls, n, path, sizeof path);
    sg_model *model = read_model(s, what, path);
    if (model != NULL) {
        for (size_t j = 0; j < n; j++)
            run_layers(s, what, model, &pls[j]);
        check_fusions(s, what, model, pls, n, false);
        if (s->cli) {
            test_aot(s, format, path, model, pls, n, true);
            test_aot(s, format, path, model, pls, n, false);
        }
    }
    sg_model_destroy(model);
    for (size_t j = 0; j < n; j++)
        unplace(&pls[j]);
}

/* ---- ONNX Runtime ---------------------------------------------------------------- */

/* The ONNX models of the patterns marked ort, run in ONNX Runtime through
 * tests/onnx/ort_run.js: every output of the model must be the layers'
 * result, and the fused kernel's where a fusion makes it. */
static void test_ort(suite *s)
{
    placed pls[PATTERNS];
    size_t n = 0;
    buf manifest = {0};
    char path[600], results[600], err[600];
    putf(&manifest, "{\"seed\": 0, \"models\": [");
    for (size_t j = 0; j < PATTERNS; j++) {
        const pattern *p = &patterns[j];
        if (!p->ort)
            continue;
        placed *pl = &pls[n];
        place(pl, p);
        write_model(s, "ONNX", p->name, pl, 1, path, sizeof path);
        sg_model *model = read_model(s, p->name, path);
        if (model != NULL)
            run_layers(s, p->name, model, pl);
        sg_model_destroy(model);
        const tensor *x = find_tensor(pl, "x");
        sg_tensor t = {.dtype = p->dtype, .rank = (size_t)x->shape.rank, .data = x->data, .bytes = x->bytes};
        memcpy(t.shape, x->shape.d, sizeof x->shape.d);
        snprintf(path, sizeof path, "%s/%s.in.npy", s->dir, p->name);
        CHECK(s, x->data && sg_npy_write(s->ctx, path, &t) == SG_OK, "%s: %s", path,
              sg_context_last_error(s->ctx));
        size_t outputs = 0;
        for (size_t i = 0; i < node_count(p); i++)
            outputs += p->nodes[i].kind == OUTPUT;
        putf(&manifest,
             "%s{\"name\": \"%s\", \"op\": \"fused\", \"opset\": 13, \"dtype\": \"%s\", \"shape\": [",
             n ? ", " : "", p->name, sg_dtype_name(p->dtype));
        for (int a = 0; a < x->shape.rank; a++)
            putf(&manifest, "%s%lld", a ? ", " : "", (long long)x->shape.d[a]);
        putf(&manifest, "], \"outputs\": %zu, \"desc\": \"%s\", \"ort_model\": \"%s.onnx\"}", outputs,
             p->name, p->name);
        n++;
    }
    putf(&manifest, "]}\n");
    write_file(s->dir, "manifest.json", &manifest, path, sizeof path);
    free(manifest.b);
    snprintf(results, sizeof results, "%s/ort-stdout.txt", s->dir);
    snprintf(err, sizeof err, "%s/ort-stderr.txt", s->dir);
    int rc = run_command((char *[]){"node", (char *)s->ort_js, (char *)s->ort, s->dir, NULL}, results, err);
    char *said = read_all(results, NULL), *errors = read_all(err, NULL);
    printf("%s", said ? said : "");
    CHECK(s, rc == 0, "node %s: exit %d: %s", s->ort_js, rc, errors ? errors : "");
    free(said);
    free(errors);
    snprintf(results, sizeof results, "%s/results.txt", s->dir);
    char *lines = read_all(results, NULL);
    for (size_t j = 0; j < n; j++) {
        placed *pl = &pls[j];
        const pattern *p = pl->p;
        char head[64];
        snprintf(head, sizeof head, "%s fused 13 %s ", p->name, sg_dtype_name(p->dtype));
        const char *line = lines ? strstr(lines, head) : NULL;
        const char *tab = line ? strchr(line, '\t') : NULL;
        if (!CHECK(s, tab != NULL && tab - line >= 3 && strncmp(tab - 3, " ok", 3) == 0,
                   "ONNX Runtime refused %s: %.*s", p->name, line ? (int)strcspn(line, "\n") : 0,
                   line ? line : ""))
            continue;
        sg_model *model = NULL;
        const sg_model_fusion *fusions = NULL;
        size_t nfusions = 0, k = 0;
        snprintf(path, sizeof path, "%s/%s.onnx", s->dir, p->name);
        if ((model = read_model(s, p->name, path)) == NULL ||
            !CHECK(s, sg_model_fusions(s->ctx, model, &nfusions, &fusions) == SG_OK, "%s: %s", p->name,
                   sg_context_last_error(s->ctx))) {
            sg_model_destroy(model);
            continue;
        }
        for (size_t i = 0; i < node_count(p); i++) { /* output k of the model */
            const node *nd = &p->nodes[i];
            if (nd->kind != OUTPUT)
                continue;
            const tensor *t = find_tensor(pl, nd->in[0]);
            sg_tensor got = {0};
            char what[96];
            snprintf(what, sizeof what, "ONNX Runtime %s output %zu (%s)", p->name, k, nd->in[0]);
            snprintf(path, sizeof path, "%s/%s.out%zu.npy", s->dir, p->name, k++);
            if (!CHECK(s, sg_npy_read(s->ctx, path, &got) == SG_OK, "%s: %s", what,
                       sg_context_last_error(s->ctx)))
                continue;
            bool same =
                same_shape(got.rank, got.shape, &t->shape) && got.bytes == t->bytes && t->data != NULL;
            long at = same ? first_difference(got.data, t->data, t->bytes) : -1;
            CHECK(s, same, "%s: another shape or type than the layers'", what);
            CHECK(s, at < 0, "%s: the layers' result differs at byte %ld of %zu", what, at, t->bytes);
            for (size_t f = 0; f < nfusions; f++) {
                placed *where = NULL;
                const want *w = want_of(pl, 1, &fusions[f], &where);
                if (w != NULL && strcmp(w->name, nd->in[0]) == 0 && got.bytes == t->bytes)
                    run_fusion(s, what, &fusions[f], find_tensor(pl, w->input), t, got.data);
            }
            sg_tensor_release(&got);
        }
        sg_model_destroy(model);
    }
    free(lines);
    for (size_t j = 0; j < n; j++)
        unplace(&pls[j]);
}

int main(int argc, char **argv)
{
    static suite s = {.counts = CHECK_COUNTS_INIT, .cc = "cc"};
    for (int i = 1; i < argc; i++) {
        const char **slot = strcmp(argv[i], "--cli") == 0      ? &s.cli
                            : strcmp(argv[i], "--cc") == 0     ? &s.cc
                            : strcmp(argv[i], "--runner") == 0 ? &s.runner
                            : strcmp(argv[i], "--ort-js") == 0 ? &s.ort_js
                            : strcmp(argv[i], "--ort") == 0    ? &s.ort
                                                               : NULL;
        if (slot == NULL || i + 1 == argc) {
            fprintf(stderr, "usage: test_fuse [--cli SLICEGEN --cc CC --runner FUSE_RUNNER_C] "
                            "[--ort-js ORT_RUN_JS --ort ONNXRUNTIME_NODE_DIR]\n");
            return 2;
        }
        *slot = argv[++i];
    }
    if ((s.cli != NULL) != (s.runner != NULL) || (s.ort != NULL) != (s.ort_js != NULL)) {
        fprintf(stderr, "test_fuse: --cli goes with --runner, --ort with --ort-js\n");
        return 2;
    }
    if (s.ort && getenv("SLICEGEN_SKIP_ONNX")) {
        printf("fuse-ort skipped: SLICEGEN_SKIP_ONNX is set\n");
        return 77;
    }
    const char *name = s.ort ? "fuse-ort" : "fuse";
    seed_rnd(name);
    const char *tmp = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/sg-fuse-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (sg_context_create(&s.ctx) != SG_OK || mkdtemp(s.dir) == NULL) {
        printf("%s: cannot make a context or a temporary folder: %s\n", name, strerror(errno));
        return 1;
    }
    if (s.ort) {
        test_ort(&s);
    } else {
        test_patterns(&s, "IR");
        test_patterns(&s, "ONNX");
        test_all(&s, "IR");
        test_all(&s, "ONNX");
        if (s.cli)
            test_usage(&s);
    }
    run_command((char *[]){"rm", "-rf", s.dir, NULL}, "/dev/null", "/dev/null");
    sg_context_destroy(s.ctx);
    return finish(name, &s.counts);
}

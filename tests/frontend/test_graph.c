/*
 * Shape inference over model graphs (frontend/graph_infer.c), on graphs
 * this test builds by hand with graph.c's builders:
 *   - the transformer idiom Shape -> Gather -> Unsqueeze -> Concat ->
 *     Reshape with a symbol N: the values of each step, the target's -1
 *     divided exactly, shape arithmetic marked and nothing else;
 *   - Conv with pads and strides, and with SAME_UPPER; MaxPool's ceil mode;
 *   - broadcasting: a 1 against a symbol, two symbols (whichever is not 1),
 *     and shapes that do not broadcast (the output unknown: a model's
 *     faults are not slicegen's to refuse, but for what it states);
 *   - Slice of a Shape (the values), Slice bounds from shape arithmetic,
 *     integer division of a possibly negative value, Range of a symbol;
 *   - If with a constant condition, with one from the shape (the symbols
 *     choose) and with one known only at run time (a fresh symbol), every
 *     node of both branches inferred;
 *   - Loop: a state that grows becomes a fresh symbol, a scan output takes
 *     the trip count;
 *   - what the file states: a conflict fails naming both shapes; an
 *     operator without a rule takes the stated shape, and what follows it
 *     is inferred from that; a wrong attribute kind leaves the output
 *     unknown;
 *   - sg_graph_has_rule; a graph of 100,000 nodes;
 *   - OpenVINO IR models written here, read with sg_openvino_read_graph: a
 *     Parameter's dynamic dimensions ("?", a range) are symbols named
 *     after it, inferred through the layers that read them where the file
 *     leaves their ports dynamic; a port no rule tells keeps its own
 *     symbol; shape arithmetic (ShapeOf, Gather, ReduceProd, Concat) gives
 *     a Reshape's target; a port that contradicts its layer fails naming
 *     both shapes.
 * Every symbolic result is evaluated (sg_exprs_eval) at two sizes of its
 * symbols and compared with the numbers ONNX gives.
 *
 * And random graphs for 2 seconds (seeded by SLICEGEN_SEED, else the clock;
 * the seed is printed): random operators of the table (ONNX's, and
 * OpenVINO's with attributes as IR writes them) with random attributes of
 * every kind, inputs of random types, ranks (past the
 * largest), dimensions and values, subgraphs, stated shapes; inference
 * must succeed or fail with one line, and leave every tensor well formed
 * (run it under AddressSanitizer: nothing may be read out of bounds).
 *
 * Usage: test_graph [--random SECONDS] (only the random graphs, that
 * long). Prints one line per failed check and then "graph: N passed, M
 * failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../frontend/graph.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
} suite;

/* ---- building graphs ---- */

/* A tensor of scope `scope` with type and dims (each "N"-like: a symbol,
 * else a number); rank -1: unknown. */
static int32_t tensor(sg_graph *g, int32_t scope, const char *name, int type, int rank,
                      const char *const *dims)
{
    int32_t t = sg_graph_add_tensor(g, name, scope);
    sg_val d[8];
    for (int i = 0; i < rank; i++)
        d[i] = (dims[i][0] >= 'A') ? sg_graph_symbol(g, dims[i]) : sg_const(strtoll(dims[i], NULL, 10));
    sg_graph_set_shape(g, t, type, rank, d);
    return t;
}

static int32_t input(sg_graph *g, int32_t scope, const char *name, int type, int rank,
                     const char *const *dims)
{
    int32_t t = tensor(g, scope, name, type, rank, dims);
    sg_graph_scope_add(g, scope, 1, t);
    return t;
}

/* An i64 constant of n values: a scalar (rank 0) or 1-D. */
static int32_t ints(sg_graph *g, int32_t scope, const char *name, int rank, int n, const int64_t *v)
{
    int32_t t = sg_graph_add_tensor(g, name, scope);
    sg_val d = sg_const(n), vals[16];
    for (int i = 0; i < n; i++)
        vals[i] = sg_const(v[i]);
    sg_graph_set_shape(g, t, SG_I64, rank, &d);
    sg_graph_set_values(g, t, n, vals);
    g->tensors[t].constant = true;
    g->tensors[t].count = n;
    return t;
}

/* A node reading ins and making new tensors named outs; its index. */
static int32_t node(sg_graph *g, int32_t scope, const char *name, const char *op, int64_t version, size_t nin,
                    const int32_t *ins, size_t nout, const char *const *outs, size_t nattrs)
{
    int32_t n = sg_graph_add_node(g, name, "", op, version, scope, nin, nout, nattrs);
    for (size_t i = 0; i < nin; i++)
        g->nodes[n].in[i] = ins[i];
    for (size_t k = 0; k < nout; k++) {
        int32_t t = sg_graph_add_tensor(g, outs[k], scope);
        g->tensors[t].producer = n;
        g->nodes[n].out[k] = t;
    }
    sg_graph_scope_add(g, scope, 0, n);
    return n;
}

static int32_t out(const sg_graph *g, int32_t n, size_t k)
{
    return g->nodes[n].out[k];
}

static sg_gattr *attr(sg_graph *g, int32_t n, size_t k, const char *name, sg_gattr_kind kind)
{
    sg_gattr *a = &g->nodes[n].attrs[k];
    a->name = malloc(strlen(name) + 1);
    strcpy(a->name, name);
    a->kind = kind;
    return a;
}

static void attr_int(sg_graph *g, int32_t n, size_t k, const char *name, int64_t v)
{
    attr(g, n, k, name, SG_GATTR_INT)->i = v;
}

static void attr_ints(sg_graph *g, int32_t n, size_t k, const char *name, size_t count, const int64_t *v)
{
    sg_gattr *a = attr(g, n, k, name, SG_GATTR_INTS);
    a->ints = malloc(count * sizeof *v);
    memcpy(a->ints, v, count * sizeof *v);
    a->count = count;
}

static void attr_string(sg_graph *g, int32_t n, size_t k, const char *name, const char *s)
{
    sg_gattr *a = attr(g, n, k, name, SG_GATTR_STRING);
    a->s = malloc(strlen(s) + 1);
    strcpy(a->s, s);
}

static void attr_graph(sg_graph *g, int32_t n, size_t k, const char *name, int32_t scope)
{
    attr(g, n, k, name, SG_GATTR_GRAPH)->scope = scope;
}

/* ---- checking ---- */

static bool is_const_k(sg_val v, int64_t k)
{
    return sg_is_const(v) && v.k == k;
}

/* v evaluated with the symbols named in `names` set to `values` (others 0). */
static int64_t eval(const sg_graph *g, sg_val v, const char *const *names, const int64_t *values, int n)
{
    if (sg_is_const(v))
        return v.k;
    int64_t *dims = calloc(g->nsymbols + 1, sizeof *dims), *nodes = calloc(g->ex.n + 1, sizeof *nodes),
            none = 0;
    for (size_t k = 0; k < g->nsymbols; k++)
        for (int i = 0; i < n; i++)
            if (strcmp(g->symbols[k], names[i]) == 0)
                dims[k] = values[i];
    int code;
    sg_error err = {0};
    sg_exprs_eval(&g->ex, dims, &none, nodes, &code, &err);
    int64_t r = sg_val_of(v, nodes);
    free(dims);
    free(nodes);
    return r;
}

/* Tensor t has type and dims `want` (rank entries) when the symbols are `values`. */
#define SHAPE(s, g, t, type, rank, want, names, values, n)                                                   \
    check_shape(s, __FILE__, __LINE__, g, t, type, rank, want, names, values, n)
static void check_shape(suite *s, const char *file, int line, const sg_graph *g, int32_t t, int type,
                        int rank, const int64_t *want, const char *const *names, const int64_t *values, int n)
{
    const sg_gtensor *x = &g->tensors[t];
    char got[256] = "", exp[256] = "";
    bool ok = x->type == type && x->rank == rank;
    for (int i = 0; i < rank && i < 16; i++) {
        int64_t d = i < x->rank ? eval(g, x->dims[i], names, values, n) : -99;
        ok = ok && d == want[i];
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", i ? ", " : "", (long long)d);
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%s%lld", i ? ", " : "", (long long)want[i]);
    }
    check_at(&s->counts, file, line, ok, "%s: type %d rank %d [%s], expected type %d rank %d [%s] (%s=%lld)",
             x->name, x->type, x->rank, got, type, rank, exp, n ? names[0] : "-",
             n ? (long long)values[0] : 0);
}

/* Tensor t's values are `want` when the symbols are `values`. */
#define VALUES(s, g, t, count, want, names, values, n)                                                       \
    check_values(s, __FILE__, __LINE__, g, t, count, want, names, values, n)
static void check_values(suite *s, const char *file, int line, const sg_graph *g, int32_t t, int64_t count,
                         const int64_t *want, const char *const *names, const int64_t *values, int n)
{
    const sg_gtensor *x = &g->tensors[t];
    bool ok = x->nvalues == count;
    char got[256] = "";
    for (int64_t i = 0; ok && i < count; i++) {
        int64_t v = eval(g, x->values[i], names, values, n);
        ok = v == want[i];
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", i ? ", " : "", (long long)v);
    }
    check_at(&s->counts, file, line, ok, "%s: %lld values [%s], expected %lld", x->name,
             (long long)x->nvalues, got, (long long)count);
}

static sg_status infer(sg_graph *g, sg_error *err)
{
    memset(err, 0, sizeof *err);
    return sg_graph_infer(g, err);
}

/* ---- the cases ---- */

static const char *const N1[] = {"N"};

static void test_shape_chain(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t x = input(&g, sc, "x", SG_F32, 3, (const char *const[]){"N", "12", "4"});
    int32_t zero = ints(&g, sc, "zero", 0, 1, (int64_t[]){0});
    int32_t ax = ints(&g, sc, "ax", 1, 1, (int64_t[]){0});
    int32_t tail = ints(&g, sc, "tail", 1, 2, (int64_t[]){-1, 6});
    int32_t sh = node(&g, sc, "shape", "Shape", 13, 1, &x, 1, (const char *const[]){"s"}, 0);
    int32_t ga = node(&g, sc, "gather", "Gather", 13, 2, (int32_t[]){out(&g, sh, 0), zero}, 1,
                      (const char *const[]){"n"}, 1);
    attr_int(&g, ga, 0, "axis", 0);
    int32_t un = node(&g, sc, "unsq", "Unsqueeze", 13, 2, (int32_t[]){out(&g, ga, 0), ax}, 1,
                      (const char *const[]){"nu"}, 0);
    int32_t co = node(&g, sc, "concat", "Concat", 13, 2, (int32_t[]){out(&g, un, 0), tail}, 1,
                      (const char *const[]){"t"}, 1);
    attr_int(&g, co, 0, "axis", 0);
    int32_t re = node(&g, sc, "reshape", "Reshape", 13, 2, (int32_t[]){x, out(&g, co, 0)}, 1,
                      (const char *const[]){"y"}, 0);
    CHECK(s, infer(&g, &err) == SG_OK, "shape chain: %s", err.message);
    for (int64_t n = 2; n <= 7; n += 5) {
        VALUES(s, &g, out(&g, sh, 0), 3, ((int64_t[]){n, 12, 4}), N1, &n, 1);
        VALUES(s, &g, out(&g, ga, 0), 1, ((int64_t[]){n}), N1, &n, 1);
        SHAPE(s, &g, out(&g, ga, 0), SG_I64, 0, NULL, N1, &n, 1);
        VALUES(s, &g, out(&g, co, 0), 3, ((int64_t[]){n, -1, 6}), N1, &n, 1);
        SHAPE(s, &g, out(&g, re, 0), SG_F32, 3, ((int64_t[]){n, 8, 6}), N1, &n, 1);
    }
    const sg_gtensor *y = &g.tensors[out(&g, re, 0)];
    CHECK(s, y->rank == 3 && sg_is_const(y->dims[1]) && y->dims[1].k == 8, "the -1 is the constant 8");
    CHECK(s, y->rank == 3 && sg_same(y->dims[0], sg_graph_symbol(&g, "N")),
          "y's first dimension is N itself");
    CHECK(s,
          g.tensors[out(&g, sh, 0)].shape_arith && g.tensors[out(&g, co, 0)].shape_arith && !y->shape_arith,
          "Shape, Gather, Concat are shape arithmetic, the reshaped data is not");
    sg_graph_free(&g);
}

static void test_conv(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t x = input(&g, sc, "x", SG_F32, 4, (const char *const[]){"N", "3", "H", "W"});
    int32_t w = tensor(&g, sc, "w", SG_F32, 4, (const char *const[]){"8", "3", "3", "3"});
    int32_t cv = node(&g, sc, "conv", "Conv", 11, 2, (int32_t[]){x, w}, 1, (const char *const[]){"y"}, 2);
    attr_ints(&g, cv, 0, "pads", 4, (int64_t[]){1, 1, 1, 1});
    attr_ints(&g, cv, 1, "strides", 2, (int64_t[]){2, 2});
    int32_t same = node(&g, sc, "same", "Conv", 11, 2, (int32_t[]){x, w}, 1, (const char *const[]){"z"}, 2);
    attr_string(&g, same, 0, "auto_pad", "SAME_UPPER");
    attr_ints(&g, same, 1, "strides", 2, (int64_t[]){3, 2});
    int32_t mp = node(&g, sc, "pool", "MaxPool", 12, 1, &x, 2, (const char *const[]){"p", "pi"}, 4);
    attr_ints(&g, mp, 0, "kernel_shape", 2, (int64_t[]){2, 2});
    attr_ints(&g, mp, 1, "strides", 2, (int64_t[]){2, 2});
    attr_ints(&g, mp, 2, "pads", 4, (int64_t[]){0, 0, 1, 1});
    attr_int(&g, mp, 3, "ceil_mode", 1);
    CHECK(s, infer(&g, &err) == SG_OK, "conv: %s", err.message);
    const char *const nhw[] = {"N", "H", "W"};
    /* floor((H + 2 - 3) / 2) + 1; ceil(H / 3); ceil mode drops a window starting in the padding */
    SHAPE(s, &g, out(&g, cv, 0), SG_F32, 4, ((int64_t[]){2, 8, 4, 5}), nhw, ((int64_t[]){2, 7, 10}), 3);
    SHAPE(s, &g, out(&g, cv, 0), SG_F32, 4, ((int64_t[]){1, 8, 4, 2}), nhw, ((int64_t[]){1, 8, 3}), 3);
    SHAPE(s, &g, out(&g, same, 0), SG_F32, 4, ((int64_t[]){2, 8, 3, 5}), nhw, ((int64_t[]){2, 7, 10}), 3);
    SHAPE(s, &g, out(&g, mp, 0), SG_F32, 4, ((int64_t[]){2, 3, 4, 5}), nhw, ((int64_t[]){2, 7, 10}), 3);
    SHAPE(s, &g, out(&g, mp, 0), SG_F32, 4, ((int64_t[]){2, 3, 2, 3}), nhw, ((int64_t[]){2, 4, 5}), 3);
    SHAPE(s, &g, out(&g, mp, 1), SG_I64, 4, ((int64_t[]){2, 3, 2, 3}), nhw, ((int64_t[]){2, 4, 5}), 3);
    sg_graph_free(&g);
}

static void test_broadcast(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t a = input(&g, sc, "a", SG_F32, 3, (const char *const[]){"N", "1", "5"});
    int32_t b = input(&g, sc, "b", SG_F32, 2, (const char *const[]){"3", "1"});
    int32_t c = input(&g, sc, "c", SG_F32, 1, (const char *const[]){"N"});
    int32_t d = input(&g, sc, "d", SG_F32, 1, (const char *const[]){"M"});
    int32_t ab = node(&g, sc, "ab", "Add", 13, 2, (int32_t[]){a, b}, 1, (const char *const[]){"ab"}, 0);
    int32_t cd = node(&g, sc, "cd", "Mul", 13, 2, (int32_t[]){c, d}, 1, (const char *const[]){"cd"}, 0);
    int32_t eq = node(&g, sc, "eq", "Equal", 13, 2, (int32_t[]){c, c}, 1, (const char *const[]){"eq"}, 0);
    CHECK(s, infer(&g, &err) == SG_OK, "broadcast: %s", err.message);
    const char *const nm[] = {"N", "M"};
    SHAPE(s, &g, out(&g, ab, 0), SG_F32, 3, ((int64_t[]){4, 3, 5}), nm, ((int64_t[]){4, 1}), 2);
    /* two symbols: whichever is not 1 */
    SHAPE(s, &g, out(&g, cd, 0), SG_F32, 1, ((int64_t[]){4}), nm, ((int64_t[]){1, 4}), 2);
    SHAPE(s, &g, out(&g, cd, 0), SG_F32, 1, ((int64_t[]){6}), nm, ((int64_t[]){6, 1}), 2);
    SHAPE(s, &g, out(&g, cd, 0), SG_F32, 1, ((int64_t[]){3}), nm, ((int64_t[]){3, 3}), 2);
    SHAPE(s, &g, out(&g, eq, 0), SG_BOOL, 1, ((int64_t[]){3}), nm, ((int64_t[]){3, 3}), 2);
    sg_graph_free(&g);

    /* shapes that do not broadcast: not slicegen's to refuse, the output is
     * unknown (and so is what follows) */
    memset(&g, 0, sizeof g);
    sc = sg_graph_add_scope(&g, "", -1, -1);
    a = input(&g, sc, "a", SG_F32, 2, (const char *const[]){"2", "3"});
    b = input(&g, sc, "b", SG_F32, 2, (const char *const[]){"4", "3"});
    int32_t bad = node(&g, sc, "Add_3", "Add", 13, 2, (int32_t[]){a, b}, 1, (const char *const[]){"y"}, 0);
    int32_t after =
        node(&g, sc, "relu", "Relu", 13, 1, (int32_t[]){out(&g, bad, 0)}, 1, (const char *const[]){"r"}, 0);
    CHECK(s, infer(&g, &err) == SG_OK && err.message[0] == '\0', "shapes that do not broadcast: %s",
          err.message);
    CHECK(s, g.tensors[out(&g, bad, 0)].rank == -1 && g.tensors[out(&g, after, 0)].rank == -1,
          "shapes that do not broadcast leave the output unknown");
    sg_graph_free(&g);
}

static void test_slice_values(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t x = input(&g, sc, "x", SG_F32, 3, (const char *const[]){"N", "H", "3"});
    int32_t one = ints(&g, sc, "one", 1, 1, (int64_t[]){1});
    int32_t one0 = ints(&g, sc, "one0", 0, 1, (int64_t[]){1});
    int32_t big = ints(&g, sc, "big", 1, 1, (int64_t[]){INT64_MAX});
    int32_t m1 = ints(&g, sc, "m1", 1, 1, (int64_t[]){-1});
    int32_t m10 = ints(&g, sc, "m10", 0, 1, (int64_t[]){-1});
    int32_t min = ints(&g, sc, "min", 1, 1, (int64_t[]){INT64_MIN});
    int32_t zero = ints(&g, sc, "zero", 1, 1, (int64_t[]){0});
    int32_t zero0 = ints(&g, sc, "zero0", 0, 1, (int64_t[]){0});
    int32_t two = ints(&g, sc, "two", 0, 1, (int64_t[]){2});
    int32_t five = ints(&g, sc, "five", 0, 1, (int64_t[]){5});
    int32_t sh = node(&g, sc, "shape", "Shape", 13, 1, &x, 1, (const char *const[]){"s"}, 0);
    int32_t sv = out(&g, sh, 0);
    int32_t tl =
        node(&g, sc, "tail", "Slice", 13, 3, (int32_t[]){sv, one, big}, 1, (const char *const[]){"hw"}, 0);
    int32_t rv = node(&g, sc, "rev", "Slice", 13, 5, (int32_t[]){sv, m1, min, zero, m1}, 1,
                      (const char *const[]){"rev"}, 0);
    int32_t m2 = ints(&g, sc, "m2", 1, 1, (int64_t[]){-2});
    int32_t rv2 = node(&g, sc, "rev2", "Slice", 13, 5, (int32_t[]){sv, big, min, zero, m2}, 1,
                       (const char *const[]){"rev2"}, 0);
    int32_t rx = node(&g, sc, "revx", "Slice", 13, 5, (int32_t[]){x, big, min, one, m2}, 1,
                      (const char *const[]){"revx"}, 0);
    /* H - 5 from the shape, negative when H < 5; x[:, H - 5:] */
    int32_t gh = node(&g, sc, "gh", "Gather", 13, 2, (int32_t[]){sv, one0}, 1, (const char *const[]){"h"}, 0);
    int32_t sb = node(&g, sc, "sub", "Sub", 13, 2, (int32_t[]){out(&g, gh, 0), five}, 1,
                      (const char *const[]){"h5"}, 0);
    int32_t dv = node(&g, sc, "div", "Div", 13, 2, (int32_t[]){out(&g, sb, 0), two}, 1,
                      (const char *const[]){"half"}, 0);
    int32_t un = node(&g, sc, "un", "Unsqueeze", 13, 2, (int32_t[]){out(&g, sb, 0), zero}, 1,
                      (const char *const[]){"h5u"}, 0);
    int32_t sx = node(&g, sc, "slx", "Slice", 13, 4, (int32_t[]){x, out(&g, un, 0), big, one}, 1,
                      (const char *const[]){"xs"}, 0);
    int32_t rg = node(&g, sc, "range", "Range", 11, 3, (int32_t[]){out(&g, gh, 0), zero0, m10}, 1,
                      (const char *const[]){"r"}, 0);
    CHECK(s, infer(&g, &err) == SG_OK, "slice values: %s", err.message);
    const char *const nh[] = {"N", "H"};
    for (int64_t h = 2; h <= 9; h += 7) {
        int64_t sizes[] = {4, h};
        VALUES(s, &g, out(&g, tl, 0), 2, ((int64_t[]){h, 3}), nh, sizes, 2);
        VALUES(s, &g, out(&g, rv, 0), 3, ((int64_t[]){3, h, 4}), nh, sizes, 2);
        VALUES(s, &g, out(&g, rv2, 0), 2, ((int64_t[]){3, 4}), nh, sizes, 2);
        /* x[:, ::-2]: H - 1, H - 3, ... down to index 0 */
        SHAPE(s, &g, out(&g, rx, 0), SG_F32, 3, ((int64_t[]){4, (h + 1) / 2, 3}), nh, sizes, 2);
        /* ONNX's integer division truncates: (2 - 5) / 2 is -1, (9 - 5) / 2 is 2 */
        VALUES(s, &g, out(&g, dv, 0), 1, ((int64_t[]){(h - 5) / 2}), nh, sizes, 2);
        /* x[:, H - 5:]: from the end when negative, clamped */
        SHAPE(s, &g, out(&g, sx, 0), SG_F32, 3,
              ((int64_t[]){4,
                           h >= 5       ? 5
                           : 2 * h >= 5 ? 5 - h
                                        : h,
                           3}),
              nh, sizes, 2);
        SHAPE(s, &g, out(&g, rg, 0), SG_I64, 1, ((int64_t[]){h}), nh, sizes, 2);
    }
    CHECK(s, g.tensors[out(&g, rg, 0)].nvalues == -1, "Range of a symbol keeps no values");
    sg_graph_free(&g);
}

/* An If's branch scope: Identity of x (then) or x[:, 1:3] (else). */
static int32_t branch(sg_graph *g, int32_t owner, const char *path, int32_t x, bool slice, const char *name)
{
    int32_t sc = sg_graph_add_scope(g, path, 0, owner);
    int32_t n;
    if (slice) {
        int32_t a = ints(g, sc, "", 1, 1, (int64_t[]){1}), b = ints(g, sc, "", 1, 1, (int64_t[]){3});
        int32_t ax = ints(g, sc, "", 1, 1, (int64_t[]){1});
        n = node(g, sc, name, "Slice", 13, 4, (int32_t[]){x, a, b, ax}, 1, (const char *const[]){name}, 0);
    } else {
        n = node(g, sc, name, "Identity", 13, 1, &x, 1, (const char *const[]){name}, 0);
    }
    sg_graph_scope_add(g, sc, 2, out(g, n, 0));
    return sc;
}

static void test_if(suite *s)
{
    const char *const nh[] = {"N", "H"};
    for (int mode = 0; mode < 4; mode++) { /* condition: true, false, from the shape, at run time */
        sg_graph g = {0};
        sg_error err;
        int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
        int32_t x = input(&g, sc, "x", SG_F32, 2, (const char *const[]){"N", "H"});
        int32_t cond;
        if (mode < 2) {
            cond = ints(&g, sc, "c", 0, 1, (int64_t[]){mode == 0});
            g.tensors[cond].type = SG_BOOL;
        } else if (mode == 2) {
            int32_t sh = node(&g, sc, "shape", "Shape", 13, 1, &x, 1, (const char *const[]){"s"}, 0);
            int32_t i0 = ints(&g, sc, "i0", 0, 1, (int64_t[]){0}),
                    three = ints(&g, sc, "three", 0, 1, (int64_t[]){3});
            int32_t ga = node(&g, sc, "g", "Gather", 13, 2, (int32_t[]){out(&g, sh, 0), i0}, 1,
                              (const char *const[]){"n"}, 0);
            int32_t gt = node(&g, sc, "gt", "Greater", 13, 2, (int32_t[]){out(&g, ga, 0), three}, 1,
                              (const char *const[]){"c"}, 0);
            cond = out(&g, gt, 0);
        } else {
            cond = input(&g, sc, "c", SG_BOOL, 0, NULL);
        }
        int32_t n = node(&g, sc, "if", "If", 13, 1, &cond, 1, (const char *const[]){"y"}, 2);
        int32_t then = branch(&g, n, "if/then_branch", x, false, "t");
        int32_t other = branch(&g, n, "if/else_branch", x, true, "e");
        attr_graph(&g, n, 0, "then_branch", then);
        attr_graph(&g, n, 1, "else_branch", other);
        CHECK(s, infer(&g, &err) == SG_OK, "If %d: %s", mode, err.message);
        int32_t y = out(&g, n, 0), t = g.scopes[then].outputs[0], e = g.scopes[other].outputs[0];
        for (int64_t k = 2; k <= 5; k += 3) {
            int64_t sizes[] = {k, 7};
            SHAPE(s, &g, t, SG_F32, 2, ((int64_t[]){k, 7}), nh, sizes, 2);
            SHAPE(s, &g, e, SG_F32, 2, ((int64_t[]){k, 2}), nh, sizes, 2);
            if (mode < 3)
                SHAPE(s, &g, y, SG_F32, 2, ((int64_t[]){k, mode == 0 || (mode == 2 && k > 3) ? 7 : 2}), nh,
                      sizes, 2);
        }
        if (mode == 3) {
            const sg_gtensor *yt = &g.tensors[y];
            char buf[64];
            CHECK(s, yt->rank == 2 && sg_same(yt->dims[0], sg_graph_symbol(&g, "N")), "If: N kept");
            CHECK(s, yt->rank == 2 && strcmp(sg_graph_val_text(&g, yt->dims[1], buf), "y_dim1") == 0,
                  "If: a fresh symbol where the branches differ (%s)", yt->rank == 2 ? buf : "-");
        }
        sg_graph_free(&g);
    }
}

static void test_loop(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t x = input(&g, sc, "x", SG_F32, 2, (const char *const[]){"N", "3"});
    int32_t g0 = input(&g, sc, "g0", SG_F32, 1, (const char *const[]){"2"});
    int32_t m = ints(&g, sc, "m", 0, 1, (int64_t[]){4});
    int32_t n = node(&g, sc, "loop", "Loop", 13, 4, (int32_t[]){m, -1, x, g0}, 3,
                     (const char *const[]){"a", "gr", "sc"}, 1);
    int32_t body = sg_graph_add_scope(&g, "loop/body", 0, n);
    attr_graph(&g, n, 0, "body", body);
    int32_t it = tensor(&g, body, "i", SG_I64, 0, NULL), cond = tensor(&g, body, "cond", SG_BOOL, 0, NULL);
    int32_t acc = tensor(&g, body, "acc", SG_GTYPE_UNKNOWN, -1, NULL);
    int32_t grow = tensor(&g, body, "grow", SG_GTYPE_UNKNOWN, -1, NULL);
    int32_t one = tensor(&g, body, "one", SG_F32, 1, (const char *const[]){"1"});
    sg_graph_scope_add(&g, body, 1, it);
    sg_graph_scope_add(&g, body, 1, cond);
    sg_graph_scope_add(&g, body, 1, acc);
    sg_graph_scope_add(&g, body, 1, grow);
    int32_t add =
        node(&g, body, "add", "Add", 13, 2, (int32_t[]){acc, x}, 1, (const char *const[]){"acc2"}, 0);
    int32_t cat =
        node(&g, body, "cat", "Concat", 13, 2, (int32_t[]){grow, one}, 1, (const char *const[]){"grow2"}, 1);
    attr_int(&g, cat, 0, "axis", 0);
    int32_t id = node(&g, body, "id", "Identity", 13, 1, &cond, 1, (const char *const[]){"cond2"}, 0);
    sg_graph_scope_add(&g, body, 2, out(&g, id, 0));
    sg_graph_scope_add(&g, body, 2, out(&g, add, 0));
    sg_graph_scope_add(&g, body, 2, out(&g, cat, 0));
    sg_graph_scope_add(&g, body, 2, out(&g, add, 0));
    CHECK(s, infer(&g, &err) == SG_OK, "Loop: %s", err.message);
    for (int64_t k = 2; k <= 5; k += 3) {
        SHAPE(s, &g, out(&g, n, 0), SG_F32, 2, ((int64_t[]){k, 3}), N1, &k, 1);
        SHAPE(s, &g, out(&g, n, 2), SG_F32, 3, ((int64_t[]){4, k, 3}), N1, &k, 1);
    }
    char buf[64];
    const sg_gtensor *gr = &g.tensors[out(&g, n, 1)];
    CHECK(s, gr->rank == 1 && strcmp(sg_graph_val_text(&g, gr->dims[0], buf), "grow_dim0") == 0,
          "Loop: a growing state is a fresh symbol (%s)", gr->rank == 1 ? buf : "-");
    sg_graph_free(&g);
}

static void test_stated(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t x = input(&g, sc, "x", SG_F32, 2, (const char *const[]){"3", "6"});
    int32_t r = node(&g, sc, "relu", "Relu", 13, 1, &x, 1, (const char *const[]){"y"}, 0);
    sg_gtensor *y = &g.tensors[out(&g, r, 0)];
    y->stated = "value_info of";
    y->stated_type = SG_F32;
    y->stated_rank = 2;
    y->stated_dims = malloc(2 * sizeof *y->stated_dims);
    y->stated_dims[0] = y->stated_dims[1] = sg_const(100);
    CHECK(s, infer(&g, &err) == SG_ERR_IO, "a stated shape that conflicts fails");
    CHECK(s,
          strcmp(err.message, "node 'relu' (Relu): value_info of 'y' gives f32 [100, 100] but the node makes "
                              "f32 [3, 6]") == 0,
          "message: %s", err.message);
    sg_graph_free(&g);

    /* an operator without a rule takes what is stated; what follows is inferred from it */
    memset(&g, 0, sizeof g);
    sc = sg_graph_add_scope(&g, "", -1, -1);
    x = input(&g, sc, "x", SG_F32, 2, (const char *const[]){"N", "6"});
    int32_t cu = sg_graph_add_node(&g, "custom", "com.example", "Mystery", 1, sc, 1, 1, 0);
    g.nodes[cu].in[0] = x;
    int32_t m = sg_graph_add_tensor(&g, "m", sc);
    g.nodes[cu].out[0] = m;
    sg_graph_scope_add(&g, sc, 0, cu);
    g.tensors[m].stated = "value_info of";
    g.tensors[m].stated_type = SG_F32;
    g.tensors[m].stated_rank = 3;
    g.tensors[m].stated_dims = malloc(3 * sizeof(sg_val));
    g.tensors[m].stated_dims[0] = sg_graph_symbol(&g, "N");
    g.tensors[m].stated_dims[1] = sg_const(2);
    g.tensors[m].stated_dims[2] = sg_const(3);
    int32_t tr = node(&g, sc, "tr", "Transpose", 13, 1, &m, 1, (const char *const[]){"t"}, 0);
    int32_t ga = node(&g, sc, "ga", "Gather", 13, 2, (int32_t[]){x, x}, 1, (const char *const[]){"g"}, 1);
    attr(&g, ga, 0, "axis", SG_GATTR_FLOAT)->f = 1;
    CHECK(s, infer(&g, &err) == SG_OK, "a float axis: %s", err.message);
    CHECK(s, g.tensors[out(&g, ga, 0)].rank == -1, "a float axis leaves the output unknown");
    for (int64_t k = 2; k <= 5; k += 3)
        SHAPE(s, &g, out(&g, tr, 0), SG_F32, 3, ((int64_t[]){3, 2, k}), N1, &k, 1);
    CHECK(s, !sg_graph_has_rule("com.example", "Mystery"), "no rule for a custom operator");
    sg_graph_free(&g);

    /* what no rule can tell (NonZero's count) takes the file's symbol; a
     * dimension the inputs tell keeps it, whatever the file says */
    memset(&g, 0, sizeof g);
    sc = sg_graph_add_scope(&g, "", -1, -1);
    x = input(&g, sc, "x", SG_F32, 2, (const char *const[]){"N", "6"});
    int32_t nz = node(&g, sc, "nz", "NonZero", 13, 1, &x, 1, (const char *const[]){"idx"}, 0);
    int32_t rl = node(&g, sc, "rl", "Relu", 13, 1, &x, 1, (const char *const[]){"r"}, 0);
    sg_gtensor *ts[2] = {&g.tensors[out(&g, nz, 0)], &g.tensors[out(&g, rl, 0)]};
    for (int i = 0; i < 2; i++) {
        ts[i]->stated = "value_info of";
        ts[i]->stated_type = i ? SG_F32 : SG_I64;
        ts[i]->stated_rank = 2;
        ts[i]->stated_dims = malloc(2 * sizeof(sg_val));
        ts[i]->stated_dims[0] = i ? sg_const(1) : sg_const(2);
        ts[i]->stated_dims[1] = i ? sg_const(6) : sg_graph_symbol(&g, "K");
    }
    CHECK(s, infer(&g, &err) == SG_OK, "stated symbols: %s", err.message);
    ts[0] = &g.tensors[out(&g, nz, 0)], ts[1] = &g.tensors[out(&g, rl, 0)];
    CHECK(s,
          ts[0]->rank == 2 && is_const_k(ts[0]->dims[0], 2) &&
              sg_same(ts[0]->dims[1], sg_graph_symbol(&g, "K")),
          "NonZero's count takes the stated symbol");
    CHECK(s, ts[1]->rank == 2 && sg_same(ts[1]->dims[0], sg_graph_symbol(&g, "N")),
          "a dimension of the inputs' symbols keeps it over a stated constant");
    sg_graph_free(&g);
}

static void test_rules(suite *s)
{
    static const char *const ops[] = {"Abs",
                                      "Add",
                                      "ArgMax",
                                      "AveragePool",
                                      "BatchNormalization",
                                      "Cast",
                                      "Clip",
                                      "Concat",
                                      "Constant",
                                      "ConstantOfShape",
                                      "Conv",
                                      "ConvTranspose",
                                      "CumSum",
                                      "DepthToSpace",
                                      "DequantizeLinear",
                                      "Div",
                                      "Dropout",
                                      "Einsum",
                                      "Equal",
                                      "Expand",
                                      "Flatten",
                                      "GRU",
                                      "Gather",
                                      "GatherElements",
                                      "Gemm",
                                      "GlobalAveragePool",
                                      "Identity",
                                      "If",
                                      "InstanceNormalization",
                                      "LSTM",
                                      "LayerNormalization",
                                      "Loop",
                                      "MatMul",
                                      "Max",
                                      "MaxPool",
                                      "NonZero",
                                      "OneHot",
                                      "Pad",
                                      "QuantizeLinear",
                                      "RNN",
                                      "Range",
                                      "ReduceMean",
                                      "ReduceSum",
                                      "Relu",
                                      "Reshape",
                                      "Resize",
                                      "Scan",
                                      "Shape",
                                      "Size",
                                      "Slice",
                                      "Softmax",
                                      "SpaceToDepth",
                                      "Split",
                                      "Squeeze",
                                      "Tile",
                                      "TopK",
                                      "Transpose",
                                      "Trilu",
                                      "Unsqueeze",
                                      "Upsample",
                                      "Where",
                                      "Xor"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        CHECK(s, sg_graph_has_rule("", ops[i]) && sg_graph_has_rule("ai.onnx", ops[i]), "a rule for %s",
              ops[i]);
    CHECK(s,
          !sg_graph_has_rule("", "SequenceAt") && !sg_graph_has_rule("com.microsoft", "Gelu") &&
              !sg_graph_has_rule("", "relu"),
          "no rule for what has none");
}

/* 100,000 nodes: the reshape idiom over and over, with a symbol. */
static void test_large(suite *s)
{
    sg_graph g = {0};
    sg_error err;
    int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
    int32_t x = input(&g, sc, "x", SG_F32, 3, (const char *const[]){"N", "S", "64"});
    int32_t zero = ints(&g, sc, "zero", 0, 1, (int64_t[]){0}), ax = ints(&g, sc, "ax", 1, 1, (int64_t[]){0});
    int32_t tail = ints(&g, sc, "tail", 1, 2, (int64_t[]){4, -1});
    char names[5][32];
    for (int i = 0; i < 20000; i++) {
        for (int k = 0; k < 5; k++)
            snprintf(names[k], sizeof names[k], "t%d_%d", i, k);
        int32_t sh = node(&g, sc, "", "Shape", 13, 1, &x, 1, (const char *const[]){names[0]}, 0);
        int32_t ga = node(&g, sc, "", "Gather", 13, 2, (int32_t[]){out(&g, sh, 0), zero}, 1,
                          (const char *const[]){names[1]}, 0);
        int32_t un = node(&g, sc, "", "Unsqueeze", 13, 2, (int32_t[]){out(&g, ga, 0), ax}, 1,
                          (const char *const[]){names[2]}, 0);
        int32_t co = node(&g, sc, "", "Concat", 13, 2, (int32_t[]){out(&g, un, 0), tail}, 1,
                          (const char *const[]){names[3]}, 1);
        attr_int(&g, co, 0, "axis", 0);
        int32_t re = node(&g, sc, "", "Reshape", 13, 2, (int32_t[]){x, out(&g, co, 0)}, 1,
                          (const char *const[]){names[4]}, 0);
        x = node(&g, sc, "", "Reshape", 13, 2, (int32_t[]){out(&g, re, 0), out(&g, sh, 0)}, 1,
                 (const char *const[]){"back"}, 0);
        x = out(&g, x, 0);
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK(s, infer(&g, &err) == SG_OK, "large: %s", err.message);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    const char *const ns[] = {"N", "S"};
    SHAPE(s, &g, x, SG_F32, 3, ((int64_t[]){2, 3, 64}), ns, ((int64_t[]){2, 3}), 2);
    SHAPE(s, &g, x - 1, SG_F32, 3, ((int64_t[]){2, 4, 48}), ns, ((int64_t[]){2, 3}), 2);
    CHECK(s, secs < 10, "%zu nodes inferred in %.2f s", g.nnodes, secs);
    printf("graph: %zu nodes inferred in %.3f s (%zu expressions)\n", g.nnodes, secs, g.ex.n);
    sg_graph_free(&g);
}

/* ---- OpenVINO IR ---- */

/* Writes dir/name.xml, IR v11 of the layers and edges (lines, NULL at the
 * end), and dir/name.bin, the n little-endian i64 of bin; the .xml's path
 * into xml. */
static void write_ir(const char *dir, const char *name, const char *const *lines, const int64_t *bin,
                     size_t n, char xml[512])
{
    char path[512];
    snprintf(xml, 512, "%s/%s.xml", dir, name);
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(xml, "w"), *b = fopen(path, "wb");
    if (f == NULL || b == NULL) {
        printf("graph: cannot write %s\n", xml);
        exit(1);
    }
    fprintf(f, "<?xml version=\"1.0\"?>\n<net name=\"%s\" version=\"11\">\n", name);
    for (; *lines != NULL; lines++)
        fprintf(f, "%s\n", *lines);
    fprintf(f, "</net>\n");
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            fputc((int)(((uint64_t)bin[i] >> (8 * k)) & 0xff), b);
    fclose(f);
    fclose(b);
}

static int32_t tensor_named(const sg_graph *g, const char *name)
{
    for (size_t i = 0; i < g->ntensors; i++)
        if (strcmp(g->tensors[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* Tensor `name` has type and dims `want` (a symbol's name, or a number). */
static void check_ir_shape(suite *s, const sg_graph *g, const char *name, int type, int rank,
                           const char *const *want)
{
    int32_t t = tensor_named(g, name);
    char text[64];
    if (!CHECK(s, t >= 0, "IR: no tensor '%s'", name))
        return;
    const sg_gtensor *x = &g->tensors[t];
    CHECK(s, x->type == type && x->rank == rank, "IR: '%s' has type %d and rank %d, not %d and %d", name,
          x->type, x->rank, type, rank);
    for (int i = 0; i < rank && x->rank == rank; i++)
        CHECK(s, strcmp(sg_graph_val_text(g, x->dims[i], text), want[i]) == 0,
              "IR: '%s' dimension %d is %s, not %s", name, i, text, want[i]);
}

/* symbols: tokens [?, 16] and x [1..10, 4]; act, a Relu of x, and crop,
 * tokens[:, 0:8], leave their ports dynamic; no rule tells mystery's */
static const char *const ir_symbols[] = {
    "<layers>",
    "<layer id='0' name='tokens' type='Parameter' version='opset1'><data shape='?,16' element_type='i64'/>",
    " <output><port id='0' precision='I64'><dim>?</dim><dim>16</dim></port></output></layer>",
    "<layer id='1' name='x' type='Parameter' version='opset1'><data shape='1..10,4' element_type='f32'/>",
    " <output><port id='0' precision='FP32'><dim>1..10</dim><dim>4</dim></port></output></layer>",
    "<layer id='2' name='act' type='Relu' version='opset1'>",
    " <input><port id='0'><dim>-1</dim><dim>4</dim></port></input>",
    " <output><port id='1' precision='FP32'><dim>-1</dim><dim>-1</dim></port></output></layer>",
    "<layer id='3' name='begin' type='Const' version='opset1'><data element_type='i64' shape='2' offset='0' "
    "size='16'/>",
    " <output><port id='0' precision='I64'><dim>2</dim></port></output></layer>",
    "<layer id='4' name='end' type='Const' version='opset1'><data element_type='i64' shape='2' offset='16' "
    "size='16'/>",
    " <output><port id='0' precision='I64'><dim>2</dim></port></output></layer>",
    "<layer id='5' name='crop' type='StridedSlice' version='opset1'><data begin_mask='1,0' end_mask='1,0'/>",
    " <input><port id='0'><dim>-1</dim><dim>16</dim></port><port id='1'><dim>2</dim></port>",
    "  <port id='2'><dim>2</dim></port></input>",
    " <output><port id='3' precision='I64'><dim>?</dim><dim>?</dim></port></output></layer>",
    "<layer id='6' name='mystery' type='Interpolate' version='opset11'>",
    " <input><port id='0'><dim>-1</dim><dim>4</dim></port></input>",
    " <output><port id='1' precision='FP32'><dim>?</dim><dim>8</dim></port></output></layer>",
    "</layers>",
    "<edges><edge from-layer='1' from-port='0' to-layer='2' to-port='0'/>",
    "<edge from-layer='0' from-port='0' to-layer='5' to-port='0'/>",
    "<edge from-layer='3' from-port='0' to-layer='5' to-port='1'/>",
    "<edge from-layer='4' from-port='0' to-layer='5' to-port='2'/>",
    "<edge from-layer='2' from-port='1' to-layer='6' to-port='0'/></edges>",
    NULL};

/* shape arithmetic: flat = Reshape(x, Concat(-1, ReduceProd(Gather(ShapeOf(x), [1, 2])))) */
static const char *const ir_arith[] = {
    "<layers>",
    "<layer id='0' name='x' type='Parameter' version='opset1'><data shape='2,3,4' element_type='f32'/>",
    " <output><port id='0' precision='FP32'><dim>2</dim><dim>3</dim><dim>4</dim></port></output></layer>",
    "<layer id='1' name='shape' type='ShapeOf' version='opset3'><data output_type='i64'/>",
    " <input><port id='0'><dim>2</dim><dim>3</dim><dim>4</dim></port></input>",
    " <output><port id='1' precision='I64'><dim>3</dim></port></output></layer>",
    "<layer id='2' name='indices' type='Const' version='opset1'><data element_type='i64' shape='2' "
    "offset='0' "
    "size='16'/>",
    " <output><port id='0' precision='I64'><dim>2</dim></port></output></layer>",
    "<layer id='3' name='axis' type='Const' version='opset1'><data element_type='i64' shape='' offset='16' "
    "size='8'/>",
    " <output><port id='0' precision='I64'/></output></layer>",
    "<layer id='4' name='tail' type='Gather' version='opset8'>",
    " <input><port id='0'><dim>3</dim></port><port id='1'><dim>2</dim></port><port id='2'/></input>",
    " <output><port id='3' precision='I64'><dim>2</dim></port></output></layer>",
    "<layer id='5' name='axes' type='Const' version='opset1'><data element_type='i64' shape='1' offset='24' "
    "size='8'/>",
    " <output><port id='0' precision='I64'><dim>1</dim></port></output></layer>",
    "<layer id='6' name='size' type='ReduceProd' version='opset1'><data keep_dims='true'/>",
    " <input><port id='0'><dim>2</dim></port><port id='1'><dim>1</dim></port></input>",
    " <output><port id='2' precision='I64'><dim>1</dim></port></output></layer>",
    "<layer id='7' name='rest' type='Const' version='opset1'><data element_type='i64' shape='1' offset='32' "
    "size='8'/>",
    " <output><port id='0' precision='I64'><dim>1</dim></port></output></layer>",
    "<layer id='8' name='target' type='Concat' version='opset1'><data axis='0'/>",
    " <input><port id='0'><dim>1</dim></port><port id='1'><dim>1</dim></port></input>",
    " <output><port id='2' precision='I64'><dim>2</dim></port></output></layer>",
    "<layer id='9' name='flat' type='Reshape' version='opset1'><data special_zero='false'/>",
    " <input><port id='0'><dim>2</dim><dim>3</dim><dim>4</dim></port><port "
    "id='1'><dim>2</dim></port></input>",
    " <output><port id='2' precision='FP32'><dim>?</dim><dim>?</dim></port></output></layer>",
    "</layers>",
    "<edges><edge from-layer='0' from-port='0' to-layer='1' to-port='0'/>",
    "<edge from-layer='1' from-port='1' to-layer='4' to-port='0'/>",
    "<edge from-layer='2' from-port='0' to-layer='4' to-port='1'/>",
    "<edge from-layer='3' from-port='0' to-layer='4' to-port='2'/>",
    "<edge from-layer='4' from-port='3' to-layer='6' to-port='0'/>",
    "<edge from-layer='5' from-port='0' to-layer='6' to-port='1'/>",
    "<edge from-layer='7' from-port='0' to-layer='8' to-port='0'/>",
    "<edge from-layer='6' from-port='2' to-layer='8' to-port='1'/>",
    "<edge from-layer='0' from-port='0' to-layer='9' to-port='0'/>",
    "<edge from-layer='8' from-port='2' to-layer='9' to-port='1'/></edges>",
    NULL};

static void test_openvino(suite *s)
{
    char dir[256], xml[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sg-graph-ir-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!CHECK(s, mkdtemp(dir) != NULL, "IR: cannot make a temporary folder"))
        return;
    sg_graph g = {0};
    sg_error err = {0};

    write_ir(dir, "symbols", ir_symbols, (int64_t[]){0, 0, 0, 8}, 4, xml);
    if (CHECK(s, sg_openvino_read_graph(xml, NULL, &g, &err) == SG_OK, "IR symbols: %s", err.message)) {
        check_ir_shape(s, &g, "tokens:0", SG_I64, 2, (const char *const[]){"tokens_dim0", "16"});
        check_ir_shape(s, &g, "x:0", SG_F32, 2, (const char *const[]){"x_dim0", "4"});
        check_ir_shape(s, &g, "act:1", SG_F32, 2, (const char *const[]){"x_dim0", "4"});
        check_ir_shape(s, &g, "crop:3", SG_I64, 2, (const char *const[]){"tokens_dim0", "8"});
        check_ir_shape(s, &g, "mystery:1", SG_F32, 2, (const char *const[]){"mystery:1_dim0", "8"});
        CHECK(s, g.nnodes == 7 && strcmp(g.nodes[0].domain, "openvino") == 0,
              "IR: 7 nodes of the domain openvino");
    }
    sg_graph_free(&g);

    write_ir(dir, "arith", ir_arith, (int64_t[]){1, 2, 0, 0, -1}, 5, xml);
    if (CHECK(s, sg_openvino_read_graph(xml, NULL, &g, &err) == SG_OK, "IR arithmetic: %s", err.message) &&
        CHECK(s,
              tensor_named(&g, "tail:3") >= 0 && tensor_named(&g, "size:2") >= 0 &&
                  tensor_named(&g, "target:2") >= 0,
              "IR arithmetic: tensors named after their layers and ports")) {
        static const int64_t tail[] = {3, 4}, size[] = {12}, target[] = {-1, 12};
        check_values(s, __FILE__, __LINE__, &g, tensor_named(&g, "tail:3"), 2, tail, NULL, NULL, 0);
        check_values(s, __FILE__, __LINE__, &g, tensor_named(&g, "size:2"), 1, size, NULL, NULL, 0);
        check_values(s, __FILE__, __LINE__, &g, tensor_named(&g, "target:2"), 2, target, NULL, NULL, 0);
        check_ir_shape(s, &g, "flat:2", SG_F32, 2, (const char *const[]){"2", "12"});
        CHECK(s, g.tensors[tensor_named(&g, "target:2")].shape_arith, "IR: the target is shape arithmetic");
    }
    sg_graph_free(&g);

    /* a port that contradicts its layer: its shape, its element type */
    static const char *const conflicts[][2] = {
        {"<port id='1' precision='FP32'><dim>2</dim><dim>4</dim></port>",
         "node 'act' (Relu): output port 'act:1' gives f32 [2, 4] but the node makes f32 [2, 3]"},
        {"<port id='1' precision='FP16'><dim>2</dim><dim>3</dim></port>",
         "node 'act' (Relu): output port 'act:1' gives f16 [2, 3] but the node makes f32 [2, 3]"},
    };
    for (size_t k = 0; k < 2; k++) {
        char want[1024];
        const char *lines[] = {
            "<layers><layer id='0' name='x' type='Parameter' version='opset1'>",
            " <data shape='2,3' element_type='f32'/>",
            " <output><port id='0' precision='FP32'><dim>2</dim><dim>3</dim></port></output></layer>",
            "<layer id='1' name='act' type='Relu' version='opset1'>",
            " <input><port id='0'><dim>2</dim><dim>3</dim></port></input>",
            " <output>",
            conflicts[k][0],
            " </output></layer></layers>",
            "<edges><edge from-layer='0' from-port='0' to-layer='1' to-port='0'/></edges>",
            NULL};
        write_ir(dir, "conflict", lines, NULL, 0, xml);
        snprintf(want, sizeof want, "failed to read model '%s': %s", xml, conflicts[k][1]);
        err = (sg_error){0};
        CHECK(s, sg_openvino_read_graph(xml, NULL, &g, &err) == SG_ERR_IO && strcmp(err.message, want) == 0,
              "IR conflict %zu: %s", k, err.message);
        CHECK(s, g.ntensors == 0 && g.nnodes == 0, "IR conflict %zu: the graph is left empty", k);
        sg_graph_free(&g);
    }
    CHECK(s,
          sg_graph_has_rule("openvino", "StridedSlice") && sg_graph_has_rule("openvino", "Gather") &&
              !sg_graph_has_rule("openvino", "Interpolate") && !sg_graph_has_rule("", "StridedSlice"),
          "OpenVINO's rules are of the domain openvino");

    static const char *const files[] = {"symbols.xml", "symbols.bin",  "arith.xml",
                                        "arith.bin",   "conflict.xml", "conflict.bin"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- random graphs: nothing the file controls crashes inference ---- */

static uint64_t rnd_state;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13, rnd_state ^= rnd_state >> 7, rnd_state ^= rnd_state << 17;
    return rnd_state;
}
static int64_t pick(int64_t n)
{
    return (int64_t)(rnd() % (uint64_t)n);
}

static const char *const random_ops[] = {"Abs",
                                         "Add",
                                         "And",
                                         "ArgMax",
                                         "AveragePool",
                                         "BatchNormalization",
                                         "Cast",
                                         "CastLike",
                                         "Clip",
                                         "Compress",
                                         "Concat",
                                         "Constant",
                                         "ConstantOfShape",
                                         "Conv",
                                         "ConvInteger",
                                         "ConvTranspose",
                                         "CumSum",
                                         "DepthToSpace",
                                         "DequantizeLinear",
                                         "Det",
                                         "Div",
                                         "Dropout",
                                         "DynamicQuantizeLinear",
                                         "Einsum",
                                         "Equal",
                                         "Expand",
                                         "EyeLike",
                                         "Flatten",
                                         "GRU",
                                         "Gather",
                                         "GatherElements",
                                         "GatherND",
                                         "Gemm",
                                         "GlobalAveragePool",
                                         "Greater",
                                         "GridSample",
                                         "Identity",
                                         "If",
                                         "IsNaN",
                                         "LSTM",
                                         "LayerNormalization",
                                         "Loop",
                                         "MatMul",
                                         "MatMulInteger",
                                         "Max",
                                         "MaxPool",
                                         "MaxUnpool",
                                         "Mean",
                                         "Min",
                                         "Mod",
                                         "Mul",
                                         "Neg",
                                         "NonMaxSuppression",
                                         "NonZero",
                                         "Not",
                                         "OneHot",
                                         "Pad",
                                         "Pow",
                                         "QLinearConv",
                                         "QLinearMatMul",
                                         "QuantizeLinear",
                                         "RNN",
                                         "RandomNormal",
                                         "RandomNormalLike",
                                         "Range",
                                         "ReduceMax",
                                         "ReduceMean",
                                         "ReduceProd",
                                         "ReduceSum",
                                         "Relu",
                                         "Reshape",
                                         "Resize",
                                         "RoiAlign",
                                         "Scan",
                                         "Shape",
                                         "Sign",
                                         "Size",
                                         "Slice",
                                         "Softmax",
                                         "SpaceToDepth",
                                         "Split",
                                         "Squeeze",
                                         "Sub",
                                         "Sum",
                                         "Tile",
                                         "TopK",
                                         "Transpose",
                                         "Unique",
                                         "Unsqueeze",
                                         "Upsample",
                                         "Where",
                                         "Xor",
                                         "Unknown"};
static const char *const random_attrs[] = {"axis",
                                           "axes",
                                           "perm",
                                           "pads",
                                           "strides",
                                           "dilations",
                                           "kernel_shape",
                                           "group",
                                           "auto_pad",
                                           "ceil_mode",
                                           "keepdims",
                                           "split",
                                           "num_outputs",
                                           "starts",
                                           "ends",
                                           "to",
                                           "value",
                                           "shape",
                                           "allowzero",
                                           "transA",
                                           "blocksize",
                                           "equation",
                                           "hidden_size",
                                           "direction",
                                           "layout",
                                           "k",
                                           "scales",
                                           "noop_with_empty_axes",
                                           "output_shape",
                                           "output_padding",
                                           "then_branch",
                                           "else_branch",
                                           "body",
                                           "num_scan_inputs",
                                           "scan_input_axes",
                                           "scan_output_axes",
                                           "start",
                                           "end",
                                           "value_int",
                                           "value_ints",
                                           "batch_dims",
                                           "dtype",
                                           "fmod",
                                           "paddings",
                                           "height_scale",
                                           "keep_aspect_ratio_policy",
                                           "output_height",
                                           "stash_type"};
static const char *const random_strings[] = {
    "NOTSET",  "SAME_UPPER",    "SAME_LOWER", "VALID",     "x",        "",
    "forward", "bidirectional", "reverse",    "ij,jk->ik", "...ii->i", "a,b",
    "->",      "ij->k",         "stretch",    "...",       "i..j,..."};
static const int64_t random_ints[] = {0, 1, -1, 2, 3, -2, 4, 5, 64, -64, INT64_MAX, INT64_MIN, 1000000007};
/* OpenVINO's operators, and their attributes as IR writes them: strings. */
static const char *const random_ov_ops[] = {"Add",
                                            "Broadcast",
                                            "Concat",
                                            "Const",
                                            "Convert",
                                            "ConvertLike",
                                            "Convolution",
                                            "Divide",
                                            "Equal",
                                            "Gather",
                                            "GroupConvolution",
                                            "MatMul",
                                            "MaxPool",
                                            "Mod",
                                            "Pad",
                                            "Parameter",
                                            "Range",
                                            "ReduceProd",
                                            "ReduceSum",
                                            "Reshape",
                                            "Result",
                                            "Select",
                                            "ShapeOf",
                                            "Slice",
                                            "Split",
                                            "Squeeze",
                                            "StridedSlice",
                                            "Tile",
                                            "TopK",
                                            "Transpose",
                                            "Unsqueeze",
                                            "VariadicSplit",
                                            "Unknown"};
static const char *const random_ov_attrs[] = {"axis",          "begin_mask",         "end_mask",
                                              "new_axis_mask", "shrink_axis_mask",   "ellipsis_mask",
                                              "num_splits",    "special_zero",       "destination_type",
                                              "output_type",   "auto_broadcast",     "mode",
                                              "strides",       "dilations",          "pads_begin",
                                              "pads_end",      "auto_pad",           "kernel",
                                              "rounding_type", "keep_dims",          "batch_dims",
                                              "transpose_a",   "index_element_type", "m_pythondiv"};
static const char *const random_ov_strings[] = {"0",
                                                "1",
                                                "-1",
                                                "2",
                                                "1,0",
                                                "0,1,1",
                                                "1, 0, 1, 0",
                                                "",
                                                "true",
                                                "false",
                                                "i64",
                                                "f32",
                                                "boolean",
                                                "u4",
                                                "numpy",
                                                "pdpd",
                                                "none",
                                                "bidirectional",
                                                "explicit",
                                                "same_upper",
                                                "valid",
                                                "ceil",
                                                "floor",
                                                "64",
                                                "9223372036854775807",
                                                "-9223372036854775808",
                                                "x",
                                                "1,1",
                                                "2,2",
                                                "0,0",
                                                "1,1,1,1,1,1,1,1,1"};

/* A random tensor: a type, a rank (or none), dimensions constant or
 * symbolic, sometimes values. */
static int32_t random_tensor(sg_graph *g, int32_t scope, const char *name)
{
    int32_t t = sg_graph_add_tensor(g, name, scope);
    static const int types[] = {SG_F32, SG_I64, SG_BOOL,          SG_I32,
                                SG_U8,  SG_F16, SG_GTYPE_UNKNOWN, SG_GTYPE_OTHER};
    int type = types[pick(8)], rank = (int)pick(7) - 1;
    sg_val d[8];
    for (int i = 0; i < rank; i++)
        d[i] = pick(4) == 0 ? sg_graph_symbol(g, pick(2) ? "N" : "M")
                            : sg_const(pick(8) ? pick(5) : random_ints[pick(13)]);
    if (pick(10) == 0)
        rank = 70; /* more than slicegen's largest rank */
    if (rank > 8) {
        sg_val *big = calloc((size_t)rank, sizeof *big);
        for (int i = 0; i < rank; i++)
            big[i] = sg_const(1);
        sg_graph_set_shape(g, t, type, rank, big);
        free(big);
        return t;
    }
    sg_graph_set_shape(g, t, type, rank, d);
    int64_t count = 1;
    for (int i = 0; i < rank; i++)
        count = sg_is_const(d[i]) && d[i].k >= 0 && d[i].k < 100 && count < 100 ? count * d[i].k : 1000;
    if (rank >= 0 && count <= SG_GRAPH_MAX_VALUES && pick(2)) {
        sg_val v[SG_GRAPH_MAX_VALUES];
        for (int64_t i = 0; i < count; i++)
            v[i] = pick(5) == 0 ? sg_graph_symbol(g, "N") : sg_const(random_ints[pick(13)]);
        sg_graph_set_values(g, t, count, v);
    }
    return t;
}

static void random_node(sg_graph *g, int32_t scope, int32_t *pool, size_t *npool, int k)
{
    size_t nin = (size_t)pick(6), nout = (size_t)pick(5), nattrs = (size_t)pick(5);
    char name[32];
    snprintf(name, sizeof name, "n%d", k);
    int domain = (int)pick(20); /* 0: a custom domain, 1-5: OpenVINO's, else ONNX's */
    bool ov = domain >= 1 && domain <= 5;
    int32_t n = sg_graph_add_node(g, name,
                                  domain == 0 ? "com.x"
                                  : ov        ? "openvino"
                                              : "",
                                  ov ? random_ov_ops[pick(sizeof random_ov_ops / sizeof *random_ov_ops)]
                                     : random_ops[pick(sizeof random_ops / sizeof *random_ops)],
                                  pick(22), scope, nin, nout, nattrs);
    for (size_t i = 0; i < nin; i++)
        g->nodes[n].in[i] = pick(8) ? pool[pick((int64_t)*npool)] : -1;
    for (size_t i = 0; i < nattrs; i++) {
        sg_gattr *a = attr(g, n, i, random_attrs[pick(sizeof random_attrs / sizeof *random_attrs)],
                           (sg_gattr_kind)pick(SG_GATTR_OTHER + 1));
        a->i = random_ints[pick(13)];
        a->f = pick(2) ? 0.5 : 3.0;
        a->count = (size_t)pick(7);
        a->ints = malloc(8 * sizeof *a->ints);
        a->floats = malloc(8 * sizeof *a->floats);
        for (int j = 0; j < 8; j++)
            a->ints[j] = pick(3) ? pick(7) - 3 : random_ints[pick(13)], a->floats[j] = pick(2) ? 2.0 : 0.7;
        const char *str = random_strings[pick(sizeof random_strings / sizeof *random_strings)];
        if (ov) {
            free(a->name);
            str = random_ov_attrs[pick(sizeof random_ov_attrs / sizeof *random_ov_attrs)];
            a->name = malloc(strlen(str) + 1);
            strcpy(a->name, str);
            a->kind = pick(8) ? SG_GATTR_STRING : (sg_gattr_kind)pick(SG_GATTR_OTHER + 1);
            str = random_ov_strings[pick(sizeof random_ov_strings / sizeof *random_ov_strings)];
        }
        a->s = malloc(strlen(str) + 1);
        strcpy(a->s, str);
        a->tensor = (int32_t)pick((int64_t)g->ntensors + 2) - 1;
        a->scope = (int32_t)pick((int64_t)g->nscopes + 2) - 1;
    }
    for (size_t k2 = 0; k2 < nout; k2++) {
        if (pick(6) == 0)
            continue;
        snprintf(name, sizeof name, "n%d_%zu", k, k2);
        int32_t t = sg_graph_add_tensor(g, name, scope);
        g->tensors[t].producer = n;
        g->nodes[n].out[k2] = t;
        if (pick(8) == 0) {
            g->tensors[t].stated = "value_info";
            g->tensors[t].stated_type = SG_F32;
            g->tensors[t].stated_rank = (int)pick(3);
            g->tensors[t].stated_dims = malloc(3 * sizeof(sg_val));
            for (int j = 0; j < 3; j++)
                g->tensors[t].stated_dims[j] = pick(2) ? sg_const(pick(4)) : sg_graph_symbol(g, "N");
        }
        pool[(*npool)++] = t;
    }
    sg_graph_scope_add(g, scope, 0, n);
}

static void test_random(suite *s, double seconds)
{
    const char *env = getenv("SLICEGEN_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    rnd_state = seed * 2654435761u + 1;
    printf("graph: random graphs with seed %llu (SLICEGEN_SEED)\n", (unsigned long long)seed);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int graphs = 0, failed = 0;
    do {
        sg_graph g = {0};
        sg_error err;
        int32_t pool[512];
        size_t npool = 0;
        int32_t sc = sg_graph_add_scope(&g, "", -1, -1);
        for (int i = 0; i < 12; i++) {
            char name[32];
            snprintf(name, sizeof name, "t%d", i);
            pool[npool++] = random_tensor(&g, sc, name);
        }
        /* subgraph scopes, with inputs and outputs of their own */
        int nsub = (int)pick(4);
        for (int k = 0; k < nsub; k++) {
            int32_t sub = sg_graph_add_scope(&g, "sub", 0, -1);
            for (int i = 0; i < (int)pick(4); i++) {
                char name[32];
                snprintf(name, sizeof name, "s%d_%d", k, i);
                int32_t t = random_tensor(&g, sub, name);
                sg_graph_scope_add(&g, sub, 1, t);
                pool[npool++] = t;
            }
            for (int i = 0; i < 3; i++)
                random_node(&g, sub, pool, &npool, 100 * (k + 1) + i);
            for (int i = 0; i < (int)pick(4); i++)
                sg_graph_scope_add(&g, sub, 2, pool[pick((int64_t)npool)]);
        }
        for (int i = 0; i < 16 && npool < 480; i++)
            random_node(&g, sc, pool, &npool, i);
        sg_status st = infer(&g, &err);
        bool ok = st == SG_OK || (st == SG_ERR_IO && err.message[0] != '\0' && !strchr(err.message, '\n'));
        for (size_t i = 0; ok && i < g.ntensors; i++) {
            const sg_gtensor *t = &g.tensors[i];
            ok = t->rank >= -1 && (t->rank <= 0 || t->dims != NULL) && t->nvalues >= -1 &&
                 t->nvalues <= SG_GRAPH_MAX_VALUES && (t->nvalues <= 0 || t->values != NULL);
        }
        if (!ok && failed++ < 5)
            CHECK(s, false, "random graph %d (seed %llu): status %d, '%s'", graphs, (unsigned long long)seed,
                  st, err.message);
        sg_graph_free(&g);
        graphs++;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
    CHECK(s, failed == 0, "%d of %d random graphs broke an invariant (seed %llu)", failed, graphs,
          (unsigned long long)seed);
    printf("graph: %d random graphs\n", graphs);
}

int main(int argc, char **argv)
{
    suite s = {CHECK_COUNTS_INIT};
    if (argc == 3 && strcmp(argv[1], "--random") == 0) {
        test_random(&s, strtod(argv[2], NULL));
        return finish("graph", &s.counts);
    }
    test_shape_chain(&s);
    test_conv(&s);
    test_broadcast(&s);
    test_slice_values(&s);
    test_if(&s);
    test_loop(&s);
    test_stated(&s);
    test_rules(&s);
    test_large(&s);
    test_openvino(&s);
    test_random(&s, 2.0);
    return finish("graph", &s.counts);
}

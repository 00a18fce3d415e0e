/*
 * What the two files of shape inference share (graph_infer.c: the walk,
 * the helpers and ONNX's operators; graph_infer_openvino.c: OpenVINO's
 * operators): the node being inferred, small accessors of its inputs and
 * outputs (inline, below), and the cores of rules that operators of both
 * formats are made of. Only those two files include it.
 */
#ifndef SG_GRAPH_RULES_H
#define SG_GRAPH_RULES_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

enum {
    MAXR = SG_MAX_RANK,         /* the largest rank a rule works on */
    MAXV = SG_GRAPH_MAX_VALUES, /* the most values propagated */
    MAXVR = 8,                  /* the largest rank values are propagated for */
    MAX_DEPTH = 64              /* subgraphs nested deeper fail */
};

/* A shape being inferred: rank -1 when not known. */
typedef struct shp {
    int type;
    int rank;
    sg_val d[MAXR];
} shp;

typedef struct ctx {
    sg_graph *g;
    sg_error *err;
    const sg_gnode *n; /* the node being inferred */
    int32_t node;
    int arg;              /* the rule's row argument */
    size_t nsym0;         /* symbols before inference: those at or past it are fresh */
    unsigned char *state; /* per scope: 0 not inferred, 1 being inferred, 2 done */
    int depth;
    int64_t work; /* node inferences left (bounds the Loops' and Scans' passes) */
    /* a failure that fails the model (a stated shape contradicted, a bound
     * passed); any other failure of a node's rule only leaves its outputs
     * unknown */
    bool fatal;
} ctx;

#define TRY(x)                                                                                               \
    do {                                                                                                     \
        sg_status try_status_ = (x);                                                                         \
        if (try_status_ != SG_OK)                                                                            \
            return try_status_;                                                                              \
    } while (0)

/* ---- the table of rules ---------------------------------------------------------- */

/* shape_arith: which inputs make the outputs shape arithmetic (the data
 * input, any input, always, or any input but the first: Where's and
 * Select's branches). */
enum { SA_NONE, SA_DATA, SA_ANY, SA_ALWAYS, SA_BRANCHES };

/* A row: the operator of a domain, its rule and the rule's argument. A
 * rule that is `preset` finds its outputs set by the reader (a constant, a
 * graph input) and keeps them. */
typedef struct sg_gi_rule {
    const char *domain, *op;
    sg_status (*fn)(ctx *c);
    int arg;
    int shape_arith;
    bool preset;
} sg_gi_rule;

/* OpenVINO's rows (graph_infer_openvino.c), of the domain "openvino",
 * sorted by operator (strcmp order). */
extern const sg_gi_rule sg_gi_openvino_rules[];
extern const size_t sg_gi_openvino_nrules;

/* What an elementwise operator computes on values (the rows' argument of
 * sg_gi_same and sg_gi_elementwise). */
enum {
    V_NONE,
    V_ID,
    V_NEG,
    V_ABS,
    V_NOT,
    V_SIGN,
    B_ADD,
    B_SUB,
    B_MUL,
    B_DIV,      /* integers: truncated toward zero */
    B_FLOORDIV, /* integers: floored (Python's //) */
    B_MOD,
    B_POW,
    B_MIN,
    B_MAX,
    B_SUM,
    B_MEAN,
    B_OTHER, /* no values are propagated */
    B_EQ,
    B_NE,
    B_LT,
    B_GT,
    B_LE,
    B_GE,
    B_AND,
    B_OR,
    B_XOR,
    B_BITAND,
    B_BITOR,
    B_BITXOR,
    B_SHIFT,
    OUT_BOOL = 0x100, /* sg_gi_same: the output is bool (IsNaN, IsInf) */
    FMOD = 0x200      /* sg_gi_elementwise's B_MOD: the sign of the dividend, as C's % */
};

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

/* The window of a convolution or pooling over n spatial axes: kernel k,
 * strides s, dilations d, pads pb before and pe after each axis. */
typedef struct window {
    int n;
    int pad;
    sg_val k[MAXR];
    int64_t s[MAXR], d[MAXR];
    int64_t pb[MAXR], pe[MAXR];
} window;

/* ---- exported by graph_infer.c ---------------------------------------------------- */

/* The message of fail() below, from a va_list. */
sg_status sg_gi_vfail(ctx *c, const char *fmt, va_list ap);
/* "f32 [2, N, 3]" (a type of SG_GTYPE_UNKNOWN left out; "of unknown rank"
 * for rank -1) into buf. */
const char *sg_gi_shape_text(ctx *c, int type, int rank, const sg_val *d, char *buf, size_t size);
/* A fresh symbol "<base>_dim<dim>" (an existing one of that name). */
sg_val sg_gi_fresh_named(ctx *c, const char *base, int dim);
/* o = the multidirectional (NumPy) broadcast of a and b (o may be a);
 * fails when two constants differ and neither is 1. */
sg_status sg_gi_bcast(ctx *c, const shp *a, const shp *b, shp *o);
/* out[i] = src[idx] where output axis a takes element map[a][i_a] of
 * source axis a (the source's dims sd, rank r <= MAXVR; the output's od). */
void sg_gi_pick_vals(const sg_val *src, const int64_t *sd, int r, int64_t map[][MAXV], const int64_t *od,
                     int64_t count, sg_val *out);
/* n axes normalized against rank into flags[]; fails on a repeated one. */
sg_status sg_gi_axis_flags(ctx *c, const int64_t *axes, int64_t n, int rank, bool *flags);
/* Output size of spatial axis i of a convolution or pooling of `in`. */
sg_status sg_gi_window_out(ctx *c, const window *w, int i, sg_val in, bool ceil_mode, sg_val *out);
/* The product of a and b as MatMul broadcasts them (rank -1: unknown). */
sg_status sg_gi_matmul_shape(ctx *c, const shp *a, const shp *b, shp *o);

/* Cores of rules: each infers the node's outputs from its inputs and the
 * numbers given, which the caller read from its format's attributes. */

/* Unary operators that keep the shape and the type (or make bool), arg
 * V_* (| OUT_BOOL): a row's rule. */
sg_status sg_gi_same(ctx *c);
/* Elementwise operators of any number of inputs (`op` B_*, | FMOD),
 * NumPy broadcasting. */
sg_status sg_gi_elementwise(ctx *c, int op);
/* Where(condition, X, Y): a row's rule. */
sg_status sg_gi_where(ctx *c);
/* Input 0 as element type `to`. */
sg_status sg_gi_cast(ctx *c, int to);
/* Every input concatenated along `axis` (as given). */
sg_status sg_gi_concat(ctx *c, int64_t axis);
/* Input 0 reshaped to target[0, n) (0 copies the input's dimension unless
 * allowzero, one -1 takes the rest); n -1: the target's values are not
 * known (its length, input 1's, gives the rank). */
sg_status sg_gi_reshape(ctx *c, const sg_val *target, int64_t n, bool allowzero);
/* Squeeze and Unsqueeze of axes[0, n); n -1: absent (Squeeze: every
 * dimension of 1), -2: not known. */
sg_status sg_gi_squeeze(ctx *c, const int64_t *axes, int64_t n);
sg_status sg_gi_unsqueeze(ctx *c, const int64_t *axes, int64_t n);
/* Input 0's axes in the order perm[0, np) (NULL: reversed). */
sg_status sg_gi_transpose(ctx *c, const int64_t *perm, size_t np);
/* A reduction over axes[0, n) (n -1: absent, every axis unless noop; -2:
 * not known), keeping them as 1 when keep; arg is the row's. */
sg_status sg_gi_reduce(ctx *c, const int64_t *axes, int64_t n, bool keep, bool noop);
/* Slice of input 0 by inputs starts, ends (1, 2), axes and steps (ONNX:
 * 3 and 4; OpenVINO's Slice-8 when arg is 1: steps 3, axes 4): a row's
 * rule. */
sg_status sg_gi_slice(ctx *c);
/* v (a start or an end) made an index of a dimension d, clamped as NumPy
 * clamps, and the count of a slice of d with a constant step. */
sg_val sg_gi_slice_len(ctx *c, sg_val d, sg_val start, sg_val end, int64_t step, sg_val *first);
/* Range(start, limit, delta) of element type `type`. */
sg_status sg_gi_range(ctx *c, int type);
/* Gather of input 1's indices along `axis` of input 0, the first
 * batch_dims dimensions of both a batch; an index out of range fails when
 * `strict`, else gives no values. */
sg_status sg_gi_gather(ctx *c, int64_t axis, int64_t batch_dims, bool strict);
/* Output k of a split of x along axis a (in range) is sz[k] long. */
sg_status sg_gi_split_parts(ctx *c, const shp *x, int a, const sg_val *sz);
/* Input 0 broadcast to shape o (and its values). */
sg_status sg_gi_broadcast_to(ctx *c, const shp *o);
/* The shape that input i's values give: *known false when they are not
 * known (s->rank is then their count when that is known, else -1). */
sg_status sg_gi_shape_input(ctx *c, size_t i, shp *s, bool *known);
/* Input 0 (of the rank of reps) repeated reps[i] times along each axis. */
sg_status sg_gi_tile(ctx *c, const shp *x, const sg_val *reps);
/* The dimensions [start, end) of input 0 (clamped as Shape clamps), as a
 * 1-D tensor of `type` with those values. */
sg_status sg_gi_shape(ctx *c, int type, int64_t start, int64_t end);
/* TopK along `axis` of *k (NULL: not known, a fresh symbol): values, and
 * indices of `index_type`. */
sg_status sg_gi_topk(ctx *c, int64_t axis, const sg_val *k, int index_type);

/* ---- the node, its inputs and outputs (inline) ------------------------------------- */

/* bool or an integer type */
static inline bool is_int(int type)
{
    return type >= 0 && type < SG_DTYPE_COUNT && !sg_dtype_is_float(type);
}

static inline bool is_float(int type)
{
    return sg_dtype_is_float(type);
}

/* v as an element of `type` (two's complement wrap, as ONNX Runtime's
 * integer arithmetic), for a constant result. */
static inline int64_t wrap(int type, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (type) {
    case SG_BOOL:
        return v != 0;
    case SG_I8:
        return (int64_t)((u & 0xffu) ^ 0x80u) - 0x80;
    case SG_U8:
        return (int64_t)(u & 0xffu);
    case SG_I16:
        return (int64_t)((u & 0xffffu) ^ 0x8000u) - 0x8000;
    case SG_U16:
        return (int64_t)(u & 0xffffu);
    case SG_I32:
        return (int64_t)((u & 0xffffffffu) ^ 0x80000000u) - 0x80000000LL;
    case SG_U32:
        return (int64_t)(u & 0xffffffffu);
    default:
        return v;
    }
}

static inline sg_exprs *EX(ctx *c)
{
    return &c->g->ex;
}

static inline int64_t lo_of(ctx *c, sg_val v)
{
    return v.node ? c->g->ex.nodes[v.node - 1].lo : v.k;
}

static inline bool is_k(sg_val v, int64_t k)
{
    return sg_is_const(v) && v.k == k;
}

/* floor(a / b), for a >= 0 and b > 0 (as expressions: ceil((a - b + 1) / b)). */
static inline sg_val floor_div(ctx *c, sg_val a, sg_val b)
{
    if (sg_is_const(a) && sg_is_const(b) && b.k > 0)
        return sg_const(a.k >= 0 ? a.k / b.k : 0);
    if (is_k(b, 1))
        return a;
    return sg_x(EX(c), SG_X_CDIV, sg_x_add(EX(c), sg_x_sub(EX(c), a, b), sg_const(1)), b);
}

static inline sg_val product(ctx *c, const sg_val *d, int from, int to)
{
    sg_val p = sg_const(1);
    for (int i = from; i < to; i++)
        p = sg_x_mul(EX(c), p, d[i]);
    return p;
}

static inline const char *node_name(ctx *c)
{
    const sg_gnode *n = c->n;
    if (n->name != NULL && n->name[0] != '\0')
        return n->name;
    if (n->nout > 0 && n->out[0] >= 0 && (size_t)n->out[0] < c->g->ntensors)
        return c->g->tensors[n->out[0]].name;
    return "";
}

/* Records "node '<name>' (<op>): <why>" (SG_ERR_IO), the node's scope's
 * path before its name in a subgraph; returns SG_ERR_IO. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline sg_status
fail(ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sg_status st = sg_gi_vfail(c, fmt, ap);
    va_end(ap);
    return st;
}

static inline sg_status nomem(ctx *c)
{
    return sg_fail(c->err, SG_ERR_NOMEM, "failed to infer the model's shapes: out of memory");
}

static inline const sg_gtensor *in_t(ctx *c, size_t i)
{
    if (i >= c->n->nin || c->n->in[i] < 0 || (size_t)c->n->in[i] >= c->g->ntensors)
        return NULL;
    return &c->g->tensors[c->n->in[i]];
}

static inline int32_t out_i(ctx *c, size_t k)
{
    if (k >= c->n->nout || c->n->out[k] < 0 || (size_t)c->n->out[k] >= c->g->ntensors)
        return -1;
    return c->n->out[k];
}

static inline int in_type(ctx *c, size_t i)
{
    const sg_gtensor *t = in_t(c, i);
    return t ? t->type : SG_GTYPE_UNKNOWN;
}

static inline bool t_shape(const sg_gtensor *t, shp *s)
{
    s->type = t ? t->type : SG_GTYPE_UNKNOWN;
    s->rank = -1;
    if (t == NULL || t->rank < 0 || t->rank > MAXR || (t->rank > 0 && t->dims == NULL))
        return false;
    s->rank = t->rank;
    for (int i = 0; i < t->rank; i++)
        s->d[i] = t->dims[i];
    return true;
}

/* Input i's type and shape: false (rank -1) when absent or not known. */
static inline bool in_shape(ctx *c, size_t i, shp *s)
{
    return t_shape(in_t(c, i), s);
}

/* Elements of a tensor whose dimensions are all constants; -1 otherwise. */
static inline int64_t t_count(const sg_gtensor *t)
{
    if (t == NULL || t->rank < 0 || (t->rank > 0 && t->dims == NULL))
        return -1;
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        if (!sg_is_const(t->dims[i]) || t->dims[i].k < 0 || __builtin_mul_overflow(n, t->dims[i].k, &n))
            return -1;
    return n;
}

static inline bool known_vals(const sg_gtensor *t)
{
    return t != NULL && t->nvalues >= 0 && t->nvalues <= MAXV && (t->nvalues == 0 || t->values != NULL) &&
           t_count(t) == t->nvalues;
}

/* Input i's values (at most MAXV): false when not known. */
static inline bool in_vals(ctx *c, size_t i, sg_val *v, int64_t *n)
{
    const sg_gtensor *t = in_t(c, i);
    *n = -1;
    if (!known_vals(t))
        return false;
    *n = t->nvalues;
    for (int64_t k = 0; k < t->nvalues; k++)
        v[k] = t->values[k];
    return true;
}

/* Input i's values when every one is a constant. */
static inline bool in_ints(ctx *c, size_t i, int64_t *v, int64_t *n)
{
    sg_val s[MAXV];
    if (!in_vals(c, i, s, n))
        return false;
    for (int64_t k = 0; k < *n; k++) {
        if (!sg_is_const(s[k]))
            return false;
        v[k] = s[k].k;
    }
    return true;
}

static inline bool in_scalar(ctx *c, size_t i, sg_val *v)
{
    sg_val s[MAXV];
    int64_t n;
    if (!in_vals(c, i, s, &n) || n != 1)
        return false;
    *v = s[0];
    return true;
}

/* An axis in [-rank, rank) made non-negative. */
static inline sg_status norm_axis(ctx *c, int64_t axis, int rank, int *out)
{
    *out = 0;
    if (axis < -(int64_t)rank || axis >= rank)
        return fail(c, "axis %" PRId64 " is out of range for rank %d", axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return SG_OK;
}

static inline const char *dims_text(ctx *c, const shp *s, char *buf, size_t size)
{
    return sg_gi_shape_text(c, SG_GTYPE_UNKNOWN, s->rank, s->d, buf, size);
}

static inline sg_val fresh(ctx *c, size_t k, int dim)
{
    int32_t o = out_i(c, k);
    return sg_gi_fresh_named(c, o >= 0 ? c->g->tensors[o].name : node_name(c), dim);
}

/* A shape of the given rank, every dimension fresh for output k. */
static inline void fresh_shape(ctx *c, size_t k, int rank, shp *s)
{
    s->rank = rank;
    for (int i = 0; i < rank && i < MAXR; i++)
        s->d[i] = fresh(c, k, i);
}

static inline sg_status set_out(ctx *c, size_t k, const shp *s)
{
    int32_t o = out_i(c, k);
    if (o < 0)
        return SG_OK;
    if (!sg_graph_set_shape(c->g, o, s->type, s->rank < 0 ? -1 : s->rank, s->rank > 0 ? s->d : NULL))
        return nomem(c);
    return SG_OK;
}

static inline sg_status set_unknown(ctx *c, size_t k, int type)
{
    shp s = {.type = type, .rank = -1};
    return set_out(c, k, &s);
}

/* Output k's values: kept when its type is an integer or bool, n matches
 * its shape and n <= MAXV. */
static inline sg_status set_vals(ctx *c, size_t k, int64_t n, const sg_val *v)
{
    int32_t o = out_i(c, k);
    if (o < 0 || n < 0 || n > MAXV)
        return SG_OK;
    const sg_gtensor *t = &c->g->tensors[o];
    if (!is_int(t->type) || t_count(t) != n)
        return SG_OK;
    sg_val w[MAXV];
    for (int64_t i = 0; i < n; i++)
        w[i] = sg_is_const(v[i]) ? sg_const(wrap(t->type, v[i].k)) : v[i];
    if (!sg_graph_set_values(c->g, o, n, w))
        return nomem(c);
    return SG_OK;
}

/* The constant dimensions of s (rank <= MAXVR) and its element count, or
 * false. */
static inline bool const_dims(const shp *s, int64_t *dims, int64_t *count)
{
    if (s->rank < 0 || s->rank > MAXVR)
        return false;
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) {
        if (!sg_is_const(s->d[i]) || s->d[i].k < 0 || __builtin_mul_overflow(n, s->d[i].k, &n))
            return false;
        dims[i] = s->d[i].k;
    }
    *count = n;
    return true;
}

/* The source element of output element `flat` of a broadcast (out dims od,
 * rank r) from a tensor of rank ir and dims id. */
static inline int64_t bcast_source(int64_t flat, const int64_t *od, int r, const int64_t *id, int ir)
{
    int64_t src = 0, stride = 1;
    for (int i = r - 1; i >= 0; i--) {
        int64_t x = od[i] ? flat % od[i] : 0;
        flat = od[i] ? flat / od[i] : 0;
        int j = i - (r - ir);
        if (j >= 0) {
            if (id[j] != 1)
                src += x * stride;
            stride *= id[j];
        }
    }
    return src;
}

/* Output 0's values are input 0's (the shape changed, not the elements). */
static inline sg_status keep_vals(ctx *c)
{
    const sg_gtensor *t = in_t(c, 0);
    if (!known_vals(t))
        return SG_OK;
    return set_vals(c, 0, t->nvalues, t->values);
}

#endif

/* Shape inference over a model graph (graph.h): one table of operator
 * rules, scope 0's nodes in order, subgraphs (If, Loop, Scan) where their
 * owners are inferred, then any scope no rule reached. A rule sets every
 * output's element type, rank and dimensions (sg_vals of the graph's
 * expressions), and for small integer tensors their values (data
 * propagation: shape arithmetic folds or becomes an expression of the
 * model's symbols). After each node, what the file states about its
 * outputs is checked against what was inferred, and fills what was not.
 *
 * Semantics are ONNX's, and where ONNX leaves it open, ONNX Runtime's CPU
 * build (pooling in ceil mode drops a last window that starts in the right
 * padding; Split's num_outputs gives the remainder to the last output).
 * A dimension no rule can tell is a fresh symbol named after its tensor
 * ("y_dim1"); a dimension that is one of two symbols, whichever is not 1
 * (broadcasting), is the exact expression of both. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_rules.h"

/* ---- element types ---------------------------------------------------------------- */

/* An ONNX TensorProto.DataType as an element type of the graph. */
static int onnx_type(int64_t t)
{
    int type = t > 0 && t < 64 ? sg_dtype_from_onnx((int32_t)t) : -1;
    return type >= 0 ? type : t > 0 && t < 64 ? SG_GTYPE_OTHER : SG_GTYPE_UNKNOWN;
}

static const char *type_text(int type)
{
    if (type == SG_GTYPE_UNKNOWN)
        return "unknown";
    if (type == SG_GTYPE_OTHER)
        return "other";
    const char *s = type >= 0 && type < SG_DTYPE_COUNT ? sg_dtype_name((sg_dtype)type) : NULL;
    return s ? s : "unknown";
}

/* ---- expressions ------------------------------------------------------------------ */

/* The symbol v is (max(DIM k, 0), as sg_graph_symbol makes it), or -1. */
static int64_t symbol_of(const sg_graph *g, sg_val v)
{
    if (sg_is_const(v))
        return -1;
    const sg_xnode *x = &g->ex.nodes[v.node - 1];
    if (x->op != SG_X_MAX || sg_is_const(x->a) || !is_k(x->b, 0))
        return -1;
    const sg_xnode *d = &g->ex.nodes[x->a.node - 1];
    return d->op == SG_X_DIM && (size_t)d->k < g->nsymbols ? d->k : -1;
}

/* a / b truncated toward zero (C's and ONNX's integer division), for b
 * known positive: floor division of |a|, the sign put back. */
static sg_val trunc_div(ctx *c, sg_val a, sg_val b)
{
    sg_exprs *e = EX(c);
    if (lo_of(c, a) >= 0)
        return floor_div(c, a, b);
    sg_val neg = sg_x_sub(e, sg_const(0), floor_div(c, sg_x_sub(e, sg_const(0), a), b));
    return sg_x_select(e, sg_x_lt(e, a, sg_const(0)), neg, floor_div(c, a, b));
}

/* A product as a constant times its other factors. */
typedef struct factors {
    int64_t k;
    int n;
    sg_val f[32];
} factors;

static bool factor(ctx *c, sg_val v, factors *f)
{
    if (sg_is_const(v))
        return !__builtin_mul_overflow(f->k, v.k, &f->k);
    const sg_xnode *x = &c->g->ex.nodes[v.node - 1];
    if (x->op == SG_X_MUL) {
        sg_val a = x->a, b = x->b;
        return factor(c, a, f) && factor(c, b, f);
    }
    if (f->n == 32)
        return false;
    f->f[f->n++] = v;
    return true;
}

/* a / b when b divides a as products (the same factors, a constant that
 * divides): true and *q; false when that cannot be told. */
static bool exact_div(ctx *c, sg_val a, sg_val b, sg_val *q)
{
    factors fa = {1, 0, {{0, 0}}}, fb = {1, 0, {{0, 0}}};
    if (!factor(c, a, &fa) || !factor(c, b, &fb) || fb.k == 0 || fa.k % fb.k != 0)
        return false;
    bool used[32] = {false};
    for (int i = 0; i < fb.n; i++) {
        int j = 0;
        while (j < fa.n && (used[j] || !sg_same(fa.f[j], fb.f[i])))
            j++;
        if (j == fa.n)
            return false;
        used[j] = true;
    }
    sg_val r = sg_const(fa.k / fb.k);
    for (int j = 0; j < fa.n; j++)
        if (!used[j])
            r = sg_x_mul(EX(c), r, fa.f[j]);
    *q = r;
    return true;
}

/* ---- the node, its inputs and attributes ------------------------------------------ */

sg_status sg_gi_vfail(ctx *c, const char *fmt, va_list ap)
{
    char why[400], name[SG_QUOTE_BUF(24)], op[SG_QUOTE_BUF(12)], path[SG_QUOTE_BUF(12)];
    vsnprintf(why, sizeof why, fmt, ap);
    const char *nm = node_name(c), *o = c->n->op ? c->n->op : "";
    sg_quote(nm, strlen(nm), 0, 24, name);
    sg_quote(o, strlen(o), 0, 12, op);
    const char *p =
        c->n->scope > 0 && (size_t)c->n->scope < c->g->nscopes ? c->g->scopes[c->n->scope].path : "";
    if (p != NULL && p[0] != '\0') {
        sg_quote(p, strlen(p), strlen(p), 12, path);
        return sg_fail(c->err, SG_ERR_IO, "node '%s/%s' (%s): %s", path, name, op, why);
    }
    return sg_fail(c->err, SG_ERR_IO, "node '%s' (%s): %s", name, op, why);
}

/* A constant tensor's elements as doubles (float types from its bytes,
 * integers from its values), at most MAXV. */
static bool t_floats(const sg_gtensor *t, double *v, int64_t *n)
{
    if (t == NULL)
        return false;
    if (known_vals(t)) {
        for (int64_t k = 0; k < t->nvalues; k++) {
            if (!sg_is_const(t->values[k]))
                return false;
            v[k] = t->type == SG_U64 ? (double)(uint64_t)t->values[k].k : (double)t->values[k].k;
        }
        *n = t->nvalues;
        return true;
    }
    int64_t count = t_count(t);
    if (!t->constant || t->raw == NULL || !is_float(t->type) || t->count > MAXV || t->count < 0 ||
        (count >= 0 && count != t->count))
        return false;
    const unsigned char *p = t->raw;
    size_t size = sg_dtype_size((sg_dtype)t->type);
    for (int64_t k = 0; k < t->count; k++) {
        uint64_t bits = 0;
        memcpy(&bits, p + size * (size_t)k, size); /* little-endian hosts */
        v[k] = sg_float_bits_to_f64((sg_dtype)t->type, bits);
    }
    *n = t->count;
    return true;
}

static bool in_floats(ctx *c, size_t i, double *v, int64_t *n)
{
    return t_floats(in_t(c, i), v, n);
}

static const sg_gattr *attr(ctx *c, const char *name)
{
    return sg_gnode_attr(c->n, name);
}

static const char *kind_text(sg_gattr_kind k)
{
    static const char *const names[] = {"an int",   "a float",  "ints",   "floats",
                                        "a string", "a tensor", "a graph"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "of another kind";
}

static sg_status wrong_kind(ctx *c, const sg_gattr *a, const char *want)
{
    return fail(c, "attribute '%s' is %s, not %s", a->name, kind_text(a->kind), want);
}

/* An int attribute, or def when absent. */
static sg_status a_int(ctx *c, const char *name, int64_t def, int64_t *v)
{
    const sg_gattr *a = attr(c, name);
    *v = def;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_INT)
        return wrong_kind(c, a, "an int");
    *v = a->i;
    return SG_OK;
}

static sg_status a_float(ctx *c, const char *name, double def, double *v)
{
    const sg_gattr *a = attr(c, name);
    *v = def;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_FLOAT)
        return wrong_kind(c, a, "a float");
    *v = a->f;
    return SG_OK;
}

/* An ints attribute: *v NULL (and *n 0) when absent. */
static sg_status a_ints(ctx *c, const char *name, const int64_t **v, size_t *n)
{
    const sg_gattr *a = attr(c, name);
    *v = NULL, *n = 0;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_INTS)
        return wrong_kind(c, a, "ints");
    static const int64_t none[1] = {0};
    *v = a->ints ? a->ints : none;
    *n = a->ints ? a->count : 0;
    return SG_OK;
}

static sg_status a_floats(ctx *c, const char *name, const double **v, size_t *n)
{
    const sg_gattr *a = attr(c, name);
    *v = NULL, *n = 0;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_FLOATS)
        return wrong_kind(c, a, "floats");
    static const double none[1] = {0};
    *v = a->floats ? a->floats : none;
    *n = a->floats ? a->count : 0;
    return SG_OK;
}

static sg_status a_string(ctx *c, const char *name, const char *def, const char **v)
{
    const sg_gattr *a = attr(c, name);
    *v = def;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_STRING)
        return wrong_kind(c, a, "a string");
    *v = a->s ? a->s : "";
    return SG_OK;
}

/* A graph attribute's scope (-1 when absent). */
static sg_status a_graph(ctx *c, const char *name, int32_t *scope)
{
    const sg_gattr *a = attr(c, name);
    *scope = -1;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_GRAPH)
        return wrong_kind(c, a, "a graph");
    if (a->scope < 0 || (size_t)a->scope >= c->g->nscopes)
        return fail(c, "attribute '%s' names no subgraph", name);
    *scope = a->scope;
    return SG_OK;
}

/* ---- text ------------------------------------------------------------------------- */

const char *sg_gi_shape_text(ctx *c, int type, int rank, const sg_val *d, char *buf, size_t size)
{
    size_t at = 0;
    char v[64];
    if (type != SG_GTYPE_UNKNOWN)
        at += (size_t)snprintf(buf, size, "%s ", type_text(type));
    if (rank < 0) {
        snprintf(buf + (at < size ? at : size - 1), size - (at < size ? at : size - 1), "of unknown rank");
        return buf;
    }
    at += (size_t)snprintf(buf + (at < size ? at : size - 1), size - (at < size ? at : size - 1), "[");
    for (int i = 0; i < rank && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "", sg_graph_val_text(c->g, d[i], v));
    if (at < size)
        snprintf(buf + at, size - at, "]");
    return buf;
}

/* ---- outputs ---------------------------------------------------------------------- */

/* A fresh symbol for dimension `dim` of output k: "<tensor>_dim<dim>". */
sg_val sg_gi_fresh_named(ctx *c, const char *base, int dim)
{
    size_t len = strlen(base) + 24;
    char *name = malloc(len);
    if (name == NULL) {
        c->g->ex.nomem = true;
        return sg_const(0);
    }
    snprintf(name, len, "%s_dim%d", base, dim);
    sg_val v = sg_graph_symbol(c->g, name);
    free(name);
    return v;
}

/* ---- broadcasting ----------------------------------------------------------------- */

/* The broadcast of two dimensions; *bad when two constants differ and
 * neither is 1. */
static sg_val bdim(ctx *c, sg_val a, sg_val b, bool *bad)
{
    if (is_k(a, 1))
        return b;
    if (is_k(b, 1) || sg_same(a, b))
        return a;
    if (sg_is_const(a) && sg_is_const(b)) {
        *bad = true;
        return a;
    }
    if (sg_is_const(a))
        return a;
    if (sg_is_const(b))
        return b;
    if (lo_of(c, a) >= 2)
        return a;
    if (lo_of(c, b) >= 2)
        return b;
    /* whichever is not 1: exact for every pair that broadcasts */
    return sg_x_select(EX(c), sg_x_eq(EX(c), a, sg_const(1)), b, a);
}

/* o = the multidirectional broadcast of a and b (o may be a). */
sg_status sg_gi_bcast(ctx *c, const shp *a, const shp *b, shp *o)
{
    if (a->rank < 0 || b->rank < 0) {
        o->rank = -1;
        return SG_OK;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    shp t;
    bool bad = false;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        sg_val da = ia >= 0 ? a->d[ia] : sg_const(1), db = ib >= 0 ? b->d[ib] : sg_const(1);
        t.d[i] = bdim(c, da, db, &bad);
    }
    if (bad) {
        char x[256], y[256];
        return fail(c, "shapes %s and %s do not broadcast", dims_text(c, a, x, sizeof x),
                    dims_text(c, b, y, sizeof y));
    }
    o->rank = r;
    memcpy(o->d, t.d, (size_t)r * sizeof *t.d);
    return SG_OK;
}

/* ---- values ----------------------------------------------------------------------- */

/* out[i] = src[idx] where each output axis a takes element map[a][i_a] of
 * source axis a (the source's dims sd, rank r <= MAXVR). */
void sg_gi_pick_vals(const sg_val *src, const int64_t *sd, int r, int64_t map[][MAXV], const int64_t *od,
                     int64_t count, sg_val *out)
{
    for (int64_t f = 0; f < count; f++) {
        int64_t rest = f, s = 0, stride = 1;
        for (int a = r - 1; a >= 0; a--) {
            int64_t i = rest % od[a];
            rest /= od[a];
            s += map[a][i] * stride;
            stride *= sd[a];
        }
        out[f] = src[s];
    }
}

/* ---- elementwise operators -------------------------------------------------------- */

static bool un_val(ctx *c, int op, sg_val a, sg_val *r)
{
    sg_exprs *e = EX(c);
    switch (op) {
    case V_ID:
        *r = a;
        return true;
    case V_NEG:
        *r = sg_x_sub(e, sg_const(0), a);
        return true;
    case V_ABS:
        *r = lo_of(c, a) >= 0 ? a : sg_x_max(e, a, sg_x_sub(e, sg_const(0), a));
        return true;
    case V_NOT:
        *r = sg_x_not(e, a);
        return true;
    case V_SIGN:
        *r = sg_x_sub(e, sg_x_lt(e, sg_const(0), a), sg_x_lt(e, a, sg_const(0)));
        return true;
    default:
        return false;
    }
}

/* a ** b for b >= 0, by squaring; false when it overflows. */
static bool pow_const(int64_t a, int64_t b, int64_t *r)
{
    if (b < 0)
        return false;
    int64_t p = 1;
    while (b > 0) {
        if ((b & 1) && __builtin_mul_overflow(p, a, &p))
            return false;
        b >>= 1;
        if (b > 0 && __builtin_mul_overflow(a, a, &a))
            return false;
    }
    *r = p;
    return true;
}

/* a op b on values; false when it cannot be expressed. */
static bool bin_val(ctx *c, int op, bool fmod, sg_val a, sg_val b, sg_val *r)
{
    sg_exprs *e = EX(c);
    bool k = sg_is_const(a) && sg_is_const(b);
    switch (op) {
    case B_ADD:
    case B_SUM:
        *r = sg_x_add(e, a, b);
        return true;
    case B_SUB:
        *r = sg_x_sub(e, a, b);
        return true;
    case B_MUL:
        *r = sg_x_mul(e, a, b);
        return true;
    case B_MIN:
        *r = sg_x_min(e, a, b);
        return true;
    case B_MAX:
        *r = sg_x_max(e, a, b);
        return true;
    case B_EQ:
        *r = sg_x_eq(e, a, b);
        return true;
    case B_NE:
        *r = sg_x_not(e, sg_x_eq(e, a, b));
        return true;
    case B_LT:
        *r = sg_x_lt(e, a, b);
        return true;
    case B_GT:
        *r = sg_x_lt(e, b, a);
        return true;
    case B_LE:
        *r = sg_x_not(e, sg_x_lt(e, b, a));
        return true;
    case B_GE:
        *r = sg_x_not(e, sg_x_lt(e, a, b));
        return true;
    case B_AND:
        *r = sg_x_and(e, a, b);
        return true;
    case B_OR:
        *r = sg_x_or(e, a, b);
        return true;
    case B_XOR:
        *r = sg_x_not(e, sg_x_eq(e, sg_x_not(e, a), sg_x_not(e, b)));
        return true;
    case B_DIV: /* integer division truncates */
        if (k) {
            if (b.k == 0 || (a.k == INT64_MIN && b.k == -1))
                return false;
            *r = sg_const(a.k / b.k);
            return true;
        }
        if (lo_of(c, b) > 0) {
            *r = trunc_div(c, a, b);
            return true;
        }
        if (sg_is_const(b) && b.k < 0 && b.k != INT64_MIN) {
            *r = sg_x_sub(EX(c), sg_const(0), trunc_div(c, a, sg_const(-b.k)));
            return true;
        }
        return false;
    case B_FLOORDIV: /* integer division floors */
        if (k) {
            if (b.k == 0 || (a.k == INT64_MIN && b.k == -1))
                return false;
            int64_t q = a.k / b.k;
            *r = sg_const(q - (q * b.k != a.k && (a.k < 0) != (b.k < 0)));
            return true;
        }
        if (lo_of(c, a) >= 0 && lo_of(c, b) > 0) {
            *r = floor_div(c, a, b);
            return true;
        }
        return false;
    case B_MOD:
        if (k) {
            if (b.k == 0)
                return false;
            int64_t m = b.k == -1 ? 0 : a.k % b.k;
            if (!fmod && m != 0 && (m < 0) != (b.k < 0))
                m += b.k;
            *r = sg_const(m);
            return true;
        }
        if (lo_of(c, b) > 0 && (!fmod || lo_of(c, a) >= 0)) {
            *r = sg_x(e, SG_X_SREM, a, b);
            return true;
        }
        return false;
    case B_POW: {
        int64_t p;
        if (!k || !pow_const(a.k, b.k, &p))
            return false;
        *r = sg_const(p);
        return true;
    }
    case B_BITAND:
    case B_BITOR:
    case B_BITXOR:
        if (!k)
            return false;
        *r = sg_const(op == B_BITAND ? (a.k & b.k) : op == B_BITOR ? (a.k | b.k) : (a.k ^ b.k));
        return true;
    default:
        return false;
    }
}

/* Unary operators that keep the shape (and the type, or make bool). */
sg_status sg_gi_same(ctx *c)
{
    shp s;
    in_shape(c, 0, &s);
    if (c->arg & OUT_BOOL)
        s.type = SG_BOOL;
    TRY(set_out(c, 0, &s));
    int op = c->arg & 0xff;
    sg_val v[MAXV];
    int64_t n;
    if (op == V_NONE || !in_vals(c, 0, v, &n))
        return SG_OK;
    for (int64_t i = 0; i < n; i++)
        if (!un_val(c, op, v[i], &v[i]))
            return SG_OK;
    return set_vals(c, 0, n, v);
}

static bool bool_result(int op)
{
    return op >= B_EQ && op <= B_XOR;
}

sg_status sg_gi_elementwise(ctx *c, int op_flags)
{
    int op = op_flags & 0xff;
    bool variadic = op == B_SUM || op == B_MEAN || op == B_MIN || op == B_MAX;
    size_t nin = variadic ? c->n->nin : (c->n->nin < 2 ? c->n->nin : 2);
    shp o = {.type = SG_GTYPE_UNKNOWN, .rank = 0}, s;
    bool first = true, known = true;
    for (size_t i = 0; i < nin; i++) {
        if (in_t(c, i) == NULL)
            continue;
        if (!in_shape(c, i, &s))
            known = false;
        if (o.type == SG_GTYPE_UNKNOWN)
            o.type = s.type;
        if (known && first)
            o = s;
        else if (known)
            TRY(sg_gi_bcast(c, &o, &s, &o));
        first = false;
    }
    if (!known || first)
        o.rank = -1;
    if (bool_result(op))
        o.type = SG_BOOL;
    TRY(set_out(c, 0, &o));
    /* values */
    int64_t od[MAXVR], count, fm;
    if (!is_int(o.type) || !const_dims(&o, od, &count) || count > MAXV || first || op == B_MEAN)
        return SG_OK;
    TRY(a_int(c, "fmod", 0, &fm));
    fm = fm || (op_flags & FMOD);
    sg_val acc[MAXV];
    bool started = false;
    for (size_t i = 0; i < nin; i++) {
        const sg_gtensor *t = in_t(c, i);
        if (t == NULL)
            continue;
        int64_t id[MAXVR], ic;
        shp is;
        if (!known_vals(t) || !t_shape(t, &is) || !const_dims(&is, id, &ic))
            return SG_OK;
        for (int64_t f = 0; f < count; f++) {
            sg_val x = t->values[bcast_source(f, od, o.rank, id, is.rank)];
            if (!started)
                acc[f] = x;
            else if (!bin_val(c, op, fm != 0, acc[f], x, &acc[f]))
                return SG_OK;
        }
        started = true;
    }
    return set_vals(c, 0, count, acc);
}

/* Elementwise operators of ONNX: the row's op. */
static sg_status r_bcast(ctx *c)
{
    return sg_gi_elementwise(c, c->arg);
}

/* Where(condition, X, Y): three-way broadcast, X's type. */
sg_status sg_gi_where(ctx *c)
{
    shp a, b, s;
    bool known = in_shape(c, 0, &a); /* each fills its shape, known or not */
    known = in_shape(c, 1, &b) && known;
    known = in_shape(c, 2, &s) && known;
    int type = b.type != SG_GTYPE_UNKNOWN ? b.type : s.type;
    if (known) {
        TRY(sg_gi_bcast(c, &a, &b, &a));
        TRY(sg_gi_bcast(c, &a, &s, &a));
    } else {
        a.rank = -1;
    }
    a.type = type;
    TRY(set_out(c, 0, &a));
    int64_t od[MAXVR], count;
    if (!is_int(type) || !const_dims(&a, od, &count) || count > MAXV)
        return SG_OK;
    const sg_gtensor *t[3] = {in_t(c, 0), in_t(c, 1), in_t(c, 2)};
    int64_t id[3][MAXVR], ic;
    int ir[3];
    for (int i = 0; i < 3; i++) {
        shp is;
        if (!known_vals(t[i]) || !t_shape(t[i], &is) || !const_dims(&is, id[i], &ic))
            return SG_OK;
        ir[i] = is.rank;
    }
    sg_val v[MAXV];
    for (int64_t f = 0; f < count; f++)
        v[f] = sg_x_select(EX(c), t[0]->values[bcast_source(f, od, a.rank, id[0], ir[0])],
                           t[1]->values[bcast_source(f, od, a.rank, id[1], ir[1])],
                           t[2]->values[bcast_source(f, od, a.rank, id[2], ir[2])]);
    return set_vals(c, 0, count, v);
}

sg_status sg_gi_cast(ctx *c, int to)
{
    shp s;
    in_shape(c, 0, &s);
    int from = s.type;
    s.type = to;
    TRY(set_out(c, 0, &s));
    sg_val v[MAXV];
    int64_t n;
    if (!is_int(from) || !is_int(s.type) || !in_vals(c, 0, v, &n))
        return SG_OK;
    if (s.type == SG_BOOL)
        for (int64_t i = 0; i < n; i++)
            v[i] = sg_x_not(EX(c), sg_x_not(EX(c), v[i]));
    return set_vals(c, 0, n, v);
}

/* Cast (to), CastLike (input 1's type). */
static sg_status r_cast(ctx *c)
{
    if (c->arg)
        return sg_gi_cast(c, in_type(c, 1));
    int64_t to;
    if (attr(c, "to") == NULL)
        return fail(c, "attribute 'to' is missing");
    TRY(a_int(c, "to", 0, &to));
    return sg_gi_cast(c, onnx_type(to));
}

/* Identity: the shape, the values. */
static sg_status r_identity(ctx *c)
{
    const sg_gtensor *t = in_t(c, 0);
    shp s;
    t_shape(t, &s);
    TRY(set_out(c, 0, &s));
    if (known_vals(t))
        return set_vals(c, 0, t->nvalues, t->values);
    return SG_OK;
}

/* ---- convolution, pooling, normalization, products --------------------------------- */

/* An ints attribute of n values (each > 0 when positive), or all def. */
static sg_status window_ints(ctx *c, const char *name, int n, int64_t def, bool positive, int64_t *out)
{
    const int64_t *v;
    size_t count;
    TRY(a_ints(c, name, &v, &count));
    for (int i = 0; i < n; i++)
        out[i] = v ? v[i < (int)count ? i : 0] : def;
    if (v != NULL && count != (size_t)n)
        return fail(c, "attribute '%s' has %zu values for %d spatial axes", name, count, n);
    for (int i = 0; positive && i < n; i++)
        if (out[i] <= 0)
            return fail(c, "attribute '%s' has %" PRId64 ", not a positive number", name, out[i]);
    return SG_OK;
}

/* kernel: the weights' spatial dimensions (NULL: kernel_shape is required). */
static sg_status read_window(ctx *c, int n, const sg_val *kernel, window *w)
{
    const int64_t *ks;
    size_t count;
    const char *pad;
    w->n = n;
    TRY(a_ints(c, "kernel_shape", &ks, &count));
    if (ks != NULL && count != (size_t)n)
        return fail(c, "attribute 'kernel_shape' has %zu values for %d spatial axes", count, n);
    if (ks == NULL && kernel == NULL)
        return fail(c, "attribute 'kernel_shape' is missing");
    for (int i = 0; i < n; i++) {
        w->k[i] = ks ? sg_const(ks[i]) : kernel[i];
        if (ks && ks[i] <= 0)
            return fail(c, "attribute 'kernel_shape' has %" PRId64 ", not a positive number", ks[i]);
    }
    TRY(window_ints(c, "strides", n, 1, true, w->s));
    TRY(window_ints(c, "dilations", n, 1, true, w->d));
    int64_t pads[2 * MAXR];
    TRY(window_ints(c, "pads", 2 * n, 0, false, pads));
    for (int i = 0; i < n; i++)
        w->pb[i] = pads[i], w->pe[i] = pads[n + i];
    TRY(a_string(c, "auto_pad", "NOTSET", &pad));
    if (strcmp(pad, "NOTSET") == 0 || pad[0] == '\0')
        w->pad = PAD_NOTSET;
    else if (strcmp(pad, "SAME_UPPER") == 0)
        w->pad = PAD_SAME_UPPER;
    else if (strcmp(pad, "SAME_LOWER") == 0)
        w->pad = PAD_SAME_LOWER;
    else if (strcmp(pad, "VALID") == 0)
        w->pad = PAD_VALID;
    else
        return fail(c, "attribute 'auto_pad' is '%s', not NOTSET, SAME_UPPER, SAME_LOWER or VALID", pad);
    return SG_OK;
}

/* Output size of spatial axis i of a convolution or pooling of `in`. */
sg_status sg_gi_window_out(ctx *c, const window *w, int i, sg_val in, bool ceil_mode, sg_val *out)
{
    sg_exprs *e = EX(c);
    sg_val s = sg_const(w->s[i]);
    sg_val ek = sg_x_add(e, sg_x_mul(e, sg_x_sub(e, w->k[i], sg_const(1)), sg_const(w->d[i])), sg_const(1));
    if (w->pad == PAD_SAME_UPPER || w->pad == PAD_SAME_LOWER) {
        *out = sg_x(e, SG_X_CDIV, in, s);
        return SG_OK;
    }
    sg_val pads = w->pad == PAD_VALID ? sg_const(0) : sg_const(w->pb[i] + w->pe[i]);
    sg_val x = sg_x_sub(e, sg_x_add(e, in, pads), ek);
    if (sg_is_const(x) && x.k < 0) {
        char a[64], b[64];
        return fail(c, "the window (%s with dilations) is larger than spatial axis %d (%s with padding)",
                    sg_graph_val_text(c->g, ek, a), i, sg_graph_val_text(c->g, sg_x_add(e, in, pads), b));
    }
    if (!ceil_mode || w->pad == PAD_VALID) {
        *out = sg_x(e, SG_X_CDIV, sg_x_add(e, x, sg_const(1)), s);
        return SG_OK;
    }
    /* ceil, less a last window that would start in the right padding */
    sg_val o = sg_x(e, SG_X_CDIV, sg_x_add(e, x, s), s);
    sg_val start = sg_x_mul(e, sg_x_sub(e, o, sg_const(1)), s);
    sg_val inside = sg_x_lt(e, start, sg_x_add(e, in, sg_const(w->pb[i])));
    *out = sg_x_sub(e, o, sg_x_not(e, inside));
    return SG_OK;
}

/* Conv (arg 0), ConvInteger (1), QLinearConv (2). */
static sg_status r_conv(ctx *c)
{
    size_t wi = c->arg == 2 ? 3 : 1;
    shp x, wt, o;
    bool known = in_shape(c, 0, &x);
    bool wk = in_shape(c, wi, &wt);
    o.type = c->arg == 0 ? x.type : c->arg == 1 ? SG_I32 : in_type(c, 7);
    if (!known)
        return set_unknown(c, 0, o.type);
    if (x.rank < 3)
        return fail(c, "the input has rank %d, less than 3", x.rank);
    int n = x.rank - 2;
    if (wk && wt.rank != x.rank)
        return fail(c, "the weights have rank %d for an input of rank %d", wt.rank, x.rank);
    window w;
    TRY(read_window(c, n, wk ? wt.d + 2 : NULL, &w));
    o.rank = x.rank;
    o.d[0] = x.d[0];
    o.d[1] = wk ? wt.d[0] : fresh(c, 0, 1);
    for (int i = 0; i < n; i++)
        TRY(sg_gi_window_out(c, &w, i, x.d[2 + i], false, &o.d[2 + i]));
    return set_out(c, 0, &o);
}

static sg_status r_conv_transpose(ctx *c)
{
    shp x, wt, o;
    bool known = in_shape(c, 0, &x);
    bool wk = in_shape(c, 1, &wt);
    o.type = x.type;
    if (!known)
        return set_unknown(c, 0, o.type);
    if (x.rank < 3)
        return fail(c, "the input has rank %d, less than 3", x.rank);
    int n = x.rank - 2;
    if (wk && wt.rank != x.rank)
        return fail(c, "the weights have rank %d for an input of rank %d", wt.rank, x.rank);
    window w;
    int64_t group, op[MAXR];
    const int64_t *os;
    size_t nos;
    TRY(read_window(c, n, wk ? wt.d + 2 : NULL, &w));
    TRY(a_int(c, "group", 1, &group));
    TRY(window_ints(c, "output_padding", n, 0, false, op));
    TRY(a_ints(c, "output_shape", &os, &nos));
    if (os != NULL && nos != (size_t)n)
        return fail(c, "attribute 'output_shape' has %zu values for %d spatial axes", nos, n);
    sg_exprs *e = EX(c);
    o.rank = x.rank;
    o.d[0] = x.d[0];
    o.d[1] = wk ? sg_x_mul(e, wt.d[1], sg_const(group)) : fresh(c, 0, 1);
    for (int i = 0; i < n; i++) {
        sg_val s = sg_const(w.s[i]);
        if (os != NULL) {
            o.d[2 + i] = sg_const(os[i]);
        } else if (w.pad == PAD_SAME_UPPER || w.pad == PAD_SAME_LOWER) {
            o.d[2 + i] = sg_x_mul(e, x.d[2 + i], s);
        } else {
            sg_val ek =
                sg_x_add(e, sg_x_mul(e, sg_x_sub(e, w.k[i], sg_const(1)), sg_const(w.d[i])), sg_const(1));
            sg_val v = sg_x_mul(e, sg_x_sub(e, x.d[2 + i], sg_const(1)), s);
            v = sg_x_add(e, sg_x_add(e, v, sg_const(op[i])), ek);
            if (w.pad == PAD_NOTSET)
                v = sg_x_sub(e, v, sg_const(w.pb[i] + w.pe[i]));
            o.d[2 + i] = v;
        }
        if (sg_is_const(o.d[2 + i]) && o.d[2 + i].k < 0)
            return fail(c, "spatial axis %d of the output would be %" PRId64, i, o.d[2 + i].k);
    }
    return set_out(c, 0, &o);
}

/* MaxPool, AveragePool, LpPool; MaxPool's Indices (i64). */
static sg_status r_pool(ctx *c)
{
    shp x;
    if (!in_shape(c, 0, &x)) {
        TRY(set_unknown(c, 0, x.type));
        return set_unknown(c, 1, SG_I64);
    }
    if (x.rank < 3)
        return fail(c, "the input has rank %d, less than 3", x.rank);
    window w;
    int64_t ceil_mode;
    TRY(read_window(c, x.rank - 2, NULL, &w));
    TRY(a_int(c, "ceil_mode", 0, &ceil_mode));
    for (int i = 0; i < w.n; i++)
        TRY(sg_gi_window_out(c, &w, i, x.d[2 + i], ceil_mode != 0, &x.d[2 + i]));
    TRY(set_out(c, 0, &x));
    x.type = SG_I64;
    return set_out(c, 1, &x);
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, 1, ...]. */
static sg_status r_global_pool(ctx *c)
{
    shp x;
    if (in_shape(c, 0, &x)) {
        if (x.rank < 2)
            return fail(c, "the input has rank %d, less than 2", x.rank);
        for (int i = 2; i < x.rank; i++)
            x.d[i] = sg_const(1);
    }
    return set_out(c, 0, &x);
}

/* BatchNormalization: Y as X; the running and saved statistics [C]. */
static sg_status r_batch_norm(ctx *c)
{
    shp x, m;
    bool known = in_shape(c, 0, &x);
    TRY(set_out(c, 0, &x));
    m.type = in_type(c, 1) != SG_GTYPE_UNKNOWN ? in_type(c, 1) : x.type;
    m.rank = -1;
    if (known && x.rank >= 2) {
        m.rank = 1;
        m.d[0] = x.d[1];
    } else if (in_shape(c, 1, &m)) {
        m.type = in_type(c, 1);
    }
    for (size_t k = 1; k < c->n->nout; k++)
        TRY(set_out(c, k, &m));
    return SG_OK;
}

/* LayerNormalization: Y as X; Mean and InvStdDev with the normalized axes 1. */
static sg_status r_layer_norm(ctx *c)
{
    shp x;
    int64_t axis, stash;
    bool known = in_shape(c, 0, &x);
    TRY(set_out(c, 0, &x));
    TRY(a_int(c, "axis", -1, &axis));
    TRY(a_int(c, "stash_type", 1, &stash));
    x.type = onnx_type(stash);
    if (known) {
        int a;
        TRY(norm_axis(c, axis, x.rank, &a));
        for (int i = a; i < x.rank; i++)
            x.d[i] = sg_const(1);
    }
    TRY(set_out(c, 1, &x));
    return set_out(c, 2, &x);
}

/* The product of a and b as MatMul broadcasts them. */
sg_status sg_gi_matmul_shape(ctx *c, const shp *a, const shp *b, shp *o)
{
    if (a->rank < 0 || b->rank < 0) {
        o->rank = -1;
        return SG_OK;
    }
    if (a->rank == 0 || b->rank == 0)
        return fail(c, "an input is a scalar");
    shp A = *a, B = *b;
    if (A.rank == 1)
        A.d[1] = A.d[0], A.d[0] = sg_const(1), A.rank = 2;
    if (B.rank == 1)
        B.d[1] = sg_const(1), B.rank = 2;
    sg_val ka = A.d[A.rank - 1], kb = B.d[B.rank - 2];
    if (sg_is_const(ka) && sg_is_const(kb) && ka.k != kb.k) {
        char x[256], y[256];
        return fail(c, "shapes %s and %s do not multiply (%" PRId64 " and %" PRId64 ")",
                    dims_text(c, a, x, sizeof x), dims_text(c, b, y, sizeof y), ka.k, kb.k);
    }
    shp ba = A, bb = B;
    ba.rank -= 2, bb.rank -= 2;
    TRY(sg_gi_bcast(c, &ba, &bb, o));
    if (a->rank > 1)
        o->d[o->rank++] = A.d[A.rank - 2];
    if (b->rank > 1)
        o->d[o->rank++] = B.d[B.rank - 1];
    return SG_OK;
}

/* MatMul (arg 0), MatMulInteger (1), QLinearMatMul (2). */
static sg_status r_matmul(ctx *c)
{
    shp a, b, o;
    size_t bi = c->arg == 2 ? 3 : 1;
    in_shape(c, 0, &a);
    in_shape(c, bi, &b);
    TRY(sg_gi_matmul_shape(c, &a, &b, &o));
    o.type = c->arg == 0 ? a.type : c->arg == 1 ? SG_I32 : in_type(c, 7);
    if (o.rank > MAXR)
        o.rank = -1;
    return set_out(c, 0, &o);
}

static sg_status r_gemm(ctx *c)
{
    shp a, b, o;
    int64_t ta, tb;
    bool known = in_shape(c, 0, &a); /* each fills its shape, known or not */
    known = in_shape(c, 1, &b) && known;
    TRY(a_int(c, "transA", 0, &ta));
    TRY(a_int(c, "transB", 0, &tb));
    o.type = a.type;
    o.rank = -1;
    if (known) {
        if (a.rank != 2 || b.rank != 2)
            return fail(c, "the inputs have ranks %d and %d, not 2", a.rank, b.rank);
        sg_val ka = a.d[ta ? 0 : 1], kb = b.d[tb ? 1 : 0];
        if (sg_is_const(ka) && sg_is_const(kb) && ka.k != kb.k)
            return fail(c, "the inner dimensions %" PRId64 " and %" PRId64 " differ", ka.k, kb.k);
        o.rank = 2;
        o.d[0] = a.d[ta ? 1 : 0];
        o.d[1] = b.d[tb ? 0 : 1];
    } else {
        o.rank = 2;
        o.d[0] = a.rank == 2 ? a.d[ta ? 1 : 0] : fresh(c, 0, 0);
        o.d[1] = b.rank == 2 ? b.d[tb ? 0 : 1] : fresh(c, 0, 1);
    }
    return set_out(c, 0, &o);
}

/* ---- shapes: Reshape, Flatten, Transpose, Squeeze, Unsqueeze ------------------------ */

sg_status sg_gi_reshape(ctx *c, const sg_val *v, int64_t n, bool allowzero)
{
    shp x, o;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    if (n < 0) {
        /* the target's length alone gives the rank */
        shp t;
        if (in_shape(c, 1, &t) && t.rank == 1 && sg_is_const(t.d[0]) && t.d[0].k <= MAXR)
            fresh_shape(c, 0, (int)t.d[0].k, &o);
        else
            o.rank = -1;
        return set_out(c, 0, &o);
    }
    if (n > MAXR)
        return set_unknown(c, 0, o.type);
    sg_exprs *e = EX(c);
    int minus = -1;
    sg_val others = sg_const(1);
    o.rank = (int)n;
    for (int i = 0; i < o.rank; i++) {
        sg_val d = v[i];
        if (is_k(d, -1)) {
            if (minus >= 0)
                return fail(c, "the target shape has -1 at %d and %d", minus, i);
            minus = i;
            continue;
        }
        if (is_k(d, 0) && !allowzero) {
            if (known && i >= x.rank)
                return fail(c, "the target shape copies dimension %d of an input of rank %d", i, x.rank);
            d = known ? x.d[i] : fresh(c, 0, i);
        } else if (sg_is_const(d) && d.k < 0) {
            return fail(c, "the target shape has %" PRId64 " at %d", d.k, i);
        }
        o.d[i] = d;
        others = sg_x_mul(e, others, d);
    }
    if (minus >= 0 && is_k(others, 0) && allowzero)
        return fail(c, "the target shape has both -1 and 0");
    sg_val total = known ? product(c, x.d, 0, x.rank) : sg_const(-1);
    char a[256], b[256];
    if (minus >= 0) {
        sg_val q;
        if (!known) {
            q = fresh(c, 0, minus);
        } else if (sg_is_const(total) && sg_is_const(others)) {
            if (others.k == 0 || total.k % others.k != 0) {
                o.d[minus] = sg_const(-1);
                return fail(c, "an input of shape %s cannot be reshaped to %s", dims_text(c, &x, a, sizeof a),
                            dims_text(c, &o, b, sizeof b));
            }
            q = sg_const(total.k / others.k);
        } else if (!exact_div(c, total, others, &q)) {
            q = floor_div(c, total, others);
        }
        o.d[minus] = q;
    } else if (known && sg_is_const(total) && sg_is_const(others) && total.k != others.k) {
        return fail(c, "an input of shape %s cannot be reshaped to %s", dims_text(c, &x, a, sizeof a),
                    dims_text(c, &o, b, sizeof b));
    }
    TRY(set_out(c, 0, &o));
    return keep_vals(c);
}

static sg_status r_reshape(ctx *c)
{
    sg_val v[MAXV];
    int64_t n, allowzero;
    TRY(a_int(c, "allowzero", 0, &allowzero));
    if (c->n->version < 5) {
        const int64_t *s;
        size_t ns;
        TRY(a_ints(c, "shape", &s, &ns));
        if (s == NULL)
            return fail(c, "attribute 'shape' is missing");
        n = (int64_t)(ns <= MAXV ? ns : MAXV + 1);
        for (int64_t i = 0; i < n && i < MAXV; i++)
            v[i] = sg_const(s[i]);
    } else if (!in_vals(c, 1, v, &n)) {
        n = -1;
    }
    return sg_gi_reshape(c, v, n, allowzero != 0);
}

static sg_status r_flatten(ctx *c)
{
    shp x, o;
    int64_t axis;
    bool known = in_shape(c, 0, &x);
    TRY(a_int(c, "axis", 1, &axis));
    o.type = x.type;
    o.rank = 2;
    if (!known) {
        fresh_shape(c, 0, 2, &o);
        return set_out(c, 0, &o);
    }
    if (axis < -(int64_t)x.rank || axis > x.rank)
        return fail(c, "axis %" PRId64 " is out of range for rank %d", axis, x.rank);
    int a = (int)(axis < 0 ? axis + x.rank : axis);
    o.d[0] = product(c, x.d, 0, a);
    o.d[1] = product(c, x.d, a, x.rank);
    TRY(set_out(c, 0, &o));
    return keep_vals(c);
}

sg_status sg_gi_transpose(ctx *c, const int64_t *perm, size_t np)
{
    shp x, o;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    o.rank = -1;
    if (!known) {
        if (perm != NULL && np <= MAXR)
            fresh_shape(c, 0, (int)np, &o);
        return set_out(c, 0, &o);
    }
    int p[MAXR];
    bool seen[MAXR] = {false};
    if (perm != NULL && np != (size_t)x.rank)
        return fail(c, "the permutation has %zu values for rank %d", np, x.rank);
    for (int i = 0; i < x.rank; i++) {
        int64_t a = perm ? perm[i] : x.rank - 1 - i;
        if (a < 0 || a >= x.rank || seen[a])
            return fail(c, "the permutation is not one of the %d axes", x.rank);
        seen[a] = true;
        p[i] = (int)a;
    }
    o.rank = x.rank;
    for (int i = 0; i < x.rank; i++)
        o.d[i] = x.d[p[i]];
    TRY(set_out(c, 0, &o));
    const sg_gtensor *t = in_t(c, 0);
    int64_t sd[MAXVR], od[MAXVR], count;
    if (!known_vals(t) || !const_dims(&x, sd, &count) || !const_dims(&o, od, &count) || count == 0)
        return SG_OK;
    int64_t stride[MAXVR], s = 1;
    for (int i = x.rank - 1; i >= 0; i--)
        stride[i] = s, s *= sd[i];
    sg_val v[MAXV];
    for (int64_t f = 0; f < count; f++) {
        int64_t rest = f, src = 0;
        for (int i = o.rank - 1; i >= 0; i--) {
            src += (rest % od[i]) * stride[p[i]];
            rest /= od[i];
        }
        v[f] = t->values[src];
    }
    return set_vals(c, 0, count, v);
}

static sg_status r_transpose(ctx *c)
{
    const int64_t *perm;
    size_t np;
    TRY(a_ints(c, "perm", &perm, &np));
    return sg_gi_transpose(c, perm, np);
}

/* The axes of Squeeze, Unsqueeze and the reductions: an attribute before
 * opset `since`, input 1 from it on. *n -1: absent; -2: an input whose
 * values are not known. */
static sg_status read_axes(ctx *c, int64_t since, size_t input, int64_t *axes, int64_t *n)
{
    *n = -1;
    if (c->n->version < since) {
        const int64_t *a;
        size_t na;
        TRY(a_ints(c, "axes", &a, &na));
        if (a == NULL) {
            *n = -1;
            return SG_OK;
        }
        if (na > MAXV)
            return fail(c, "attribute 'axes' has %zu values", na);
        for (size_t i = 0; i < na; i++)
            axes[i] = a[i];
        *n = (int64_t)na;
        return SG_OK;
    }
    if (in_t(c, input) == NULL) {
        *n = -1;
        return SG_OK;
    }
    if (!in_ints(c, input, axes, n))
        *n = -2;
    return SG_OK;
}

/* Normalizes n axes against rank into flags[]; fails on a repeated one. */
sg_status sg_gi_axis_flags(ctx *c, const int64_t *axes, int64_t n, int rank, bool *flags)
{
    memset(flags, 0, (size_t)(rank > 0 ? rank : 1) * sizeof *flags);
    for (int64_t i = 0; i < n; i++) {
        int a;
        TRY(norm_axis(c, axes[i], rank, &a));
        if (flags[a])
            return fail(c, "axis %" PRId64 " is repeated", axes[i]);
        flags[a] = true;
    }
    return SG_OK;
}

sg_status sg_gi_squeeze(ctx *c, const int64_t *axes, int64_t n)
{
    shp x, o;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    o.rank = -1;
    if (!known || n == -2)
        return set_out(c, 0, &o);
    bool flags[MAXR];
    if (n > 0) {
        TRY(sg_gi_axis_flags(c, axes, n, x.rank, flags));
    } else { /* no axes, or none (as ONNX Runtime): every dimension of 1 */
        for (int i = 0; i < x.rank; i++) {
            if (!sg_is_const(x.d[i]))
                return set_out(c, 0, &o); /* which dimensions are 1 is not known */
            flags[i] = x.d[i].k == 1;
        }
    }
    o.rank = 0;
    for (int i = 0; i < x.rank; i++) {
        if (!flags[i]) {
            o.d[o.rank++] = x.d[i];
        } else if (sg_is_const(x.d[i]) && x.d[i].k != 1) {
            char a[256];
            return fail(c, "axis %d of shape %s is not 1", i, dims_text(c, &x, a, sizeof a));
        }
    }
    TRY(set_out(c, 0, &o));
    return keep_vals(c);
}

sg_status sg_gi_unsqueeze(ctx *c, const int64_t *axes, int64_t n)
{
    shp x, o;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    o.rank = -1;
    if (n == -1)
        return fail(c, "the axes are missing");
    if (!known || n == -2 || x.rank + n > MAXR)
        return set_out(c, 0, &o);
    bool flags[MAXR];
    o.rank = x.rank + (int)n;
    TRY(sg_gi_axis_flags(c, axes, n, o.rank, flags));
    for (int i = 0, j = 0; i < o.rank; i++)
        o.d[i] = flags[i] ? sg_const(1) : x.d[j++];
    TRY(set_out(c, 0, &o));
    return keep_vals(c);
}

static sg_status r_squeeze(ctx *c)
{
    int64_t axes[MAXV], n;
    TRY(read_axes(c, 13, 1, axes, &n));
    return sg_gi_squeeze(c, axes, n);
}

static sg_status r_unsqueeze(ctx *c)
{
    int64_t axes[MAXV], n;
    TRY(read_axes(c, 13, 1, axes, &n));
    return sg_gi_unsqueeze(c, axes, n);
}

/* ---- Concat, Split, Slice, Pad ------------------------------------------------------ */

sg_status sg_gi_concat(ctx *c, int64_t axis)
{
    shp o = {.type = SG_GTYPE_UNKNOWN, .rank = -1}, s, first;
    bool all = true;
    int a = 0;
    size_t fi = 0;
    char x[256], y[256];
    for (size_t i = 0; i < c->n->nin; i++) {
        if (in_t(c, i) == NULL)
            continue;
        bool known = in_shape(c, i, &s);
        if (o.type == SG_GTYPE_UNKNOWN)
            o.type = s.type;
        if (!known) {
            all = false;
            continue;
        }
        if (o.rank < 0) {
            int type = o.type;
            TRY(norm_axis(c, axis, s.rank, &a));
            o = first = s;
            o.type = type;
            fi = i;
            continue;
        }
        if (s.rank != o.rank)
            return fail(c, "inputs %zu and %zu have ranks %d and %d", fi, i, o.rank, s.rank);
        for (int k = 0; k < o.rank; k++) {
            if (k == a) {
                o.d[k] = sg_x_add(EX(c), o.d[k], s.d[k]);
            } else if (sg_is_const(o.d[k]) && sg_is_const(s.d[k]) && o.d[k].k != s.d[k].k) {
                return fail(c, "inputs %zu and %zu have shapes %s and %s, which differ outside axis %d", fi,
                            i, dims_text(c, &first, x, sizeof x), dims_text(c, &s, y, sizeof y), a);
            } else if (!sg_is_const(o.d[k]) && sg_is_const(s.d[k])) {
                o.d[k] = s.d[k];
            }
        }
    }
    if (!all && o.rank >= 0)
        o.d[a] = fresh(c, 0, a);
    TRY(set_out(c, 0, &o));
    /* values */
    int64_t od[MAXVR], count;
    if (!all || !is_int(o.type) || !const_dims(&o, od, &count) || count > MAXV)
        return SG_OK;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < a; k++)
        outer *= od[k];
    for (int k = a + 1; k < o.rank; k++)
        inner *= od[k];
    sg_val v[MAXV];
    int64_t at = 0;
    for (int64_t q = 0; q < outer; q++) {
        for (size_t i = 0; i < c->n->nin; i++) {
            const sg_gtensor *t = in_t(c, i);
            if (t == NULL)
                continue;
            if (!known_vals(t))
                return SG_OK;
            int64_t block = t->dims[a].k * inner;
            for (int64_t j = 0; j < block && at < count; j++)
                v[at++] = t->values[q * block + j];
        }
    }
    return set_vals(c, 0, count, v);
}

static sg_status r_concat(ctx *c)
{
    int64_t axis;
    if (attr(c, "axis") == NULL && c->n->version >= 4)
        return fail(c, "attribute 'axis' is missing");
    TRY(a_int(c, "axis", 1, &axis));
    return sg_gi_concat(c, axis);
}

static sg_status r_split(ctx *c)
{
    shp x;
    int64_t axis, nsplit = -1, num;
    sg_val sz[MAXV];
    size_t nout = c->n->nout;
    bool known = in_shape(c, 0, &x);
    TRY(a_int(c, "axis", 0, &axis));
    TRY(a_int(c, "num_outputs", 0, &num));
    if (c->n->version < 13) {
        const int64_t *s;
        size_t ns;
        TRY(a_ints(c, "split", &s, &ns));
        if (s != NULL) {
            if (ns > MAXV)
                return fail(c, "attribute 'split' has %zu values", ns);
            for (size_t i = 0; i < ns; i++)
                sz[i] = sg_const(s[i]);
            nsplit = (int64_t)ns;
        }
    } else if (in_t(c, 1) != NULL && !in_vals(c, 1, sz, &nsplit)) {
        nsplit = -2;
    }
    if (!known) {
        for (size_t k = 0; k < nout; k++)
            TRY(set_unknown(c, k, x.type));
        return SG_OK;
    }
    int a;
    TRY(norm_axis(c, axis, x.rank, &a));
    sg_val d = x.d[a];
    sg_exprs *e = EX(c);
    if (nout > MAXV)
        return fail(c, "%zu outputs", nout);
    if (nsplit >= 0) {
        if ((size_t)nsplit != nout)
            return fail(c, "%" PRId64 " split sizes for %zu outputs", nsplit, nout);
        sg_val sum = sg_const(0);
        for (size_t k = 0; k < nout; k++) {
            if (sg_is_const(sz[k]) && sz[k].k < 0)
                return fail(c, "split size %" PRId64 " is negative", sz[k].k);
            sum = sg_x_add(e, sum, sz[k]);
        }
        if (sg_is_const(sum) && sg_is_const(d) && sum.k != d.k)
            return fail(c, "the split sizes add up to %" PRId64 ", not %" PRId64 " (axis %d)", sum.k, d.k, a);
    } else if (nsplit == -2) {
        for (size_t k = 0; k < nout; k++)
            sz[k] = fresh(c, k, a);
    } else {
        if (num != 0 && (size_t)num != nout)
            return fail(c, "attribute 'num_outputs' is %" PRId64 " for %zu outputs", num, nout);
        if (nout == 0)
            return SG_OK;
        sg_val parts = sg_const((int64_t)nout);
        if (num != 0 && c->n->version >= 18) {
            /* ceil(d / n) each, the rest to the last */
            sg_val chunk = sg_x(e, SG_X_CDIV, d, parts);
            for (size_t k = 0; k + 1 < nout; k++)
                sz[k] = chunk;
            sz[nout - 1] = sg_x_sub(e, d, sg_x_mul(e, chunk, sg_const((int64_t)nout - 1)));
            /* ONNX Runtime refuses a last part left empty */
            if (sg_is_const(sz[nout - 1]) && (sz[nout - 1].k < 0 || (sz[nout - 1].k == 0 && !is_k(chunk, 0))))
                return fail(c, "axis %d of size %" PRId64 " does not split into %zu parts", a, d.k, nout);
        } else {
            if (sg_is_const(d) && d.k % (int64_t)nout != 0)
                return fail(c, "axis %d of size %" PRId64 " does not split into %zu equal parts", a, d.k,
                            nout);
            for (size_t k = 0; k < nout; k++)
                sz[k] = sg_x(e, SG_X_CDIV, d, parts);
        }
    }
    return sg_gi_split_parts(c, &x, a, sz);
}

sg_status sg_gi_split_parts(ctx *c, const shp *x, int a, const sg_val *sz)
{
    const sg_gtensor *t = in_t(c, 0);
    size_t nout = c->n->nout;
    int64_t sd[MAXVR], count, off = 0;
    bool vals = known_vals(t) && const_dims(x, sd, &count);
    for (size_t k = 0; k < nout; k++)
        vals = vals && sg_is_const(sz[k]);
    for (size_t k = 0; k < nout; k++) {
        shp o = *x;
        o.d[a] = sz[k];
        TRY(set_out(c, k, &o));
        int64_t od[MAXVR], oc, map[MAXVR][MAXV];
        if (vals && const_dims(&o, od, &oc) && oc > 0 && oc <= MAXV) {
            for (int i = 0; i < o.rank; i++)
                for (int64_t j = 0; j < od[i]; j++)
                    map[i][j] = i == a ? off + j : j;
            sg_val v[MAXV];
            sg_gi_pick_vals(t->values, sd, x->rank, map, od, oc, v);
            TRY(set_vals(c, k, oc, v));
        }
        off += vals ? sz[k].k : 0;
    }
    return SG_OK;
}

/* v (a start or an end of Slice) made an index of a dimension d: from
 * the end when negative, then clamped to [lo, hi]. */
static sg_val slice_index(ctx *c, sg_val v, sg_val d, sg_val lo, sg_val hi)
{
    sg_exprs *e = EX(c);
    sg_val neg = sg_x_max(e, sg_x_add(e, v, d), lo), pos = sg_x_min(e, v, hi);
    if (sg_is_const(v))
        return v.k < 0 ? neg : pos;
    return sg_x_select(e, sg_x_lt(e, v, sg_const(0)), neg, pos);
}

/* Slice's count along a dimension d, and its first index. */
sg_val sg_gi_slice_len(ctx *c, sg_val d, sg_val start, sg_val end, int64_t step, sg_val *first)
{
    sg_exprs *e = EX(c);
    if (step > 0) {
        sg_val s = slice_index(c, start, d, sg_const(0), d), t = slice_index(c, end, d, sg_const(0), d);
        *first = s;
        return sg_x(e, SG_X_CDIV, sg_x_sub(e, t, s), sg_const(step));
    }
    sg_val last = sg_x_sub(e, d, sg_const(1));
    sg_val s = slice_index(c, start, d, sg_const(0), last), t = slice_index(c, end, d, sg_const(-1), last);
    *first = s;
    if (step == INT64_MIN)
        return sg_x_lt(e, t, s);
    return sg_x(e, SG_X_CDIV, sg_x_sub(e, s, t), sg_const(-step));
}

sg_status sg_gi_slice(ctx *c)
{
    shp x, o;
    sg_val st[MAXV], en[MAXV], sp[MAXV];
    int64_t axes[MAXV], n = -1, ne = -1, na = -1, nst = -1;
    bool bounds = true, axes_known = true, steps_known = true;
    bool known = in_shape(c, 0, &x);
    size_t axes_in = c->arg == 1 ? 4 : 3, steps_in = c->arg == 1 ? 3 : 4;
    if (c->arg == 0 && c->n->version < 10) {
        const int64_t *s, *t, *a;
        size_t ns, nt, nx;
        TRY(a_ints(c, "starts", &s, &ns));
        TRY(a_ints(c, "ends", &t, &nt));
        TRY(a_ints(c, "axes", &a, &nx));
        if (s == NULL || t == NULL)
            return fail(c, "attribute '%s' is missing", s == NULL ? "starts" : "ends");
        if (ns > MAXV || nt > MAXV || nx > MAXV)
            return fail(c, "more than %d axes", MAXV);
        for (size_t i = 0; i < ns; i++)
            st[i] = sg_const(s[i]);
        for (size_t i = 0; i < nt; i++)
            en[i] = sg_const(t[i]);
        for (size_t i = 0; a && i < nx; i++)
            axes[i] = a[i];
        n = (int64_t)ns, ne = (int64_t)nt, na = a ? (int64_t)nx : -1;
    } else {
        bounds = in_vals(c, 1, st, &n); /* each fills its count, known or not */
        bounds = in_vals(c, 2, en, &ne) && bounds;
        if (in_t(c, axes_in) != NULL)
            axes_known = in_ints(c, axes_in, axes, &na);
        if (in_t(c, steps_in) != NULL)
            steps_known = in_vals(c, steps_in, sp, &nst);
    }
    o.type = x.type;
    if (!known)
        return set_unknown(c, 0, x.type);
    if (!bounds || !axes_known) {
        /* the sliced axes (when known) take fresh dimensions */
        bool flags[MAXR];
        if (axes_known && na >= 0)
            TRY(sg_gi_axis_flags(c, axes, na, x.rank, flags));
        o = x;
        for (int i = 0; i < x.rank; i++)
            if (!axes_known || na < 0 || flags[i])
                o.d[i] = fresh(c, 0, i);
        return set_out(c, 0, &o);
    }
    if (n != ne)
        return fail(c, "%" PRId64 " starts and %" PRId64 " ends", n, ne);
    if (na >= 0 && na != n)
        return fail(c, "%" PRId64 " axes for %" PRId64 " starts", na, n);
    if (nst >= 0 && nst != n)
        return fail(c, "%" PRId64 " steps for %" PRId64 " starts", nst, n);
    if (n > x.rank)
        return fail(c, "%" PRId64 " starts for rank %d", n, x.rank);
    if (na < 0)
        for (int64_t i = 0; i < n; i++)
            axes[i] = i;
    bool flags[MAXR];
    TRY(sg_gi_axis_flags(c, axes, n, x.rank, flags));
    o = x;
    sg_val first[MAXR];
    int64_t step[MAXR];
    bool vals = true;
    for (int i = 0; i < x.rank; i++)
        first[i] = sg_const(0), step[i] = 1;
    for (int64_t i = 0; i < n; i++) {
        int a = (int)(axes[i] < 0 ? axes[i] + x.rank : axes[i]);
        sg_val s = steps_known ? (nst >= 0 ? sp[i] : sg_const(1)) : sg_const(0);
        if (!steps_known || !sg_is_const(s)) {
            o.d[a] = fresh(c, 0, a);
            vals = false;
            continue;
        }
        if (s.k == 0)
            return fail(c, "step 0 on axis %d", a);
        step[a] = s.k;
        o.d[a] = sg_gi_slice_len(c, x.d[a], st[i], en[i], s.k, &first[a]);
        vals = vals && sg_is_const(first[a]);
    }
    TRY(set_out(c, 0, &o));
    const sg_gtensor *t = in_t(c, 0);
    int64_t sd[MAXVR], od[MAXVR], count, oc;
    if (!vals || !known_vals(t) || !const_dims(&x, sd, &count) || !const_dims(&o, od, &oc) || oc == 0)
        return SG_OK;
    int64_t map[MAXVR][MAXV];
    for (int i = 0; i < o.rank; i++)
        for (int64_t j = 0; j < od[i]; j++)
            map[i][j] = first[i].k + j * step[i];
    sg_val v[MAXV];
    sg_gi_pick_vals(t->values, sd, x.rank, map, od, oc, v);
    return set_vals(c, 0, oc, v);
}

static sg_status r_pad(ctx *c)
{
    shp x;
    sg_val p[MAXV];
    int64_t np = -1, axes[MAXV], na = -1;
    bool known = in_shape(c, 0, &x), pads = true;
    if (c->n->version < 11) {
        const int64_t *v;
        size_t nv;
        TRY(a_ints(c, c->n->version < 2 ? "paddings" : "pads", &v, &nv));
        if (v == NULL)
            return fail(c, "attribute 'pads' is missing");
        if (nv > MAXV)
            return fail(c, "attribute 'pads' has %zu values", nv);
        for (size_t i = 0; i < nv; i++)
            p[i] = sg_const(v[i]);
        np = (int64_t)nv;
    } else {
        pads = in_vals(c, 1, p, &np);
        if (c->n->version >= 18 && in_t(c, 3) != NULL && !in_ints(c, 3, axes, &na))
            pads = false;
    }
    if (!known)
        return set_out(c, 0, &x);
    if (!pads) {
        fresh_shape(c, 0, x.rank, &x);
        return set_out(c, 0, &x);
    }
    if (na < 0)
        for (int i = 0; i < x.rank; i++)
            axes[i] = i;
    int64_t nax = na < 0 ? x.rank : na;
    bool flags[MAXR];
    TRY(sg_gi_axis_flags(c, axes, nax, x.rank, flags));
    if (np != 2 * nax)
        return fail(c, "%" PRId64 " pads for %" PRId64 " axes", np, nax);
    sg_exprs *e = EX(c);
    for (int64_t i = 0; i < nax; i++) {
        int a = (int)(axes[i] < 0 ? axes[i] + x.rank : axes[i]);
        sg_val d = sg_x_add(e, sg_x_add(e, x.d[a], p[i]), p[nax + i]);
        if (sg_is_const(d) && d.k < 0)
            return fail(c, "the pads leave axis %d a size of %" PRId64, a, d.k);
        x.d[a] = d;
    }
    return set_out(c, 0, &x);
}

/* ---- Gather, Expand, Tile ------------------------------------------------------------ */

sg_status sg_gi_gather(ctx *c, int64_t axis, int64_t batch_dims, bool strict)
{
    shp x, ind, o;
    int64_t idx[MAXV], ni = 0;
    bool known = in_shape(c, 0, &x); /* each fills its shape, known or not */
    known = in_shape(c, 1, &ind) && known;
    o.type = x.type;
    o.rank = -1;
    if (!known || x.rank - 1 + ind.rank > MAXR)
        return set_out(c, 0, &o);
    int a;
    int64_t b = batch_dims < 0 ? batch_dims + ind.rank : batch_dims;
    TRY(norm_axis(c, axis, x.rank, &a));
    if (b < 0 || b > ind.rank || b > a)
        return fail(c, "batch_dims %" PRId64 " for indices of rank %d and axis %d", batch_dims, ind.rank, a);
    o.rank = 0;
    for (int i = 0; i < a; i++)
        o.d[o.rank++] = x.d[i];
    for (int i = (int)b; i < ind.rank; i++)
        o.d[o.rank++] = ind.d[i];
    for (int i = a + 1; i < x.rank; i++)
        o.d[o.rank++] = x.d[i];
    bool ints = b == 0 && in_ints(c, 1, idx, &ni);
    for (int64_t i = 0; ints && sg_is_const(x.d[a]) && x.d[a].k >= 0 && i < ni; i++) {
        if (idx[i] < -x.d[a].k || idx[i] >= x.d[a].k) {
            if (strict)
                return fail(c, "index %" PRId64 " is out of range for axis %d of size %" PRId64, idx[i], a,
                            x.d[a].k);
            ints = false;
        }
        idx[i] = idx[i] < 0 ? idx[i] + x.d[a].k : idx[i];
    }
    TRY(set_out(c, 0, &o));
    const sg_gtensor *t = in_t(c, 0);
    int64_t sd[MAXVR], pd[MAXVR], count;
    if (!ints || !known_vals(t) || !const_dims(&x, sd, &count) || ni == 0 || count == 0)
        return SG_OK;
    int64_t map[MAXVR][MAXV], oc = 1;
    for (int i = 0; i < x.rank; i++) {
        pd[i] = i == a ? ni : sd[i];
        oc *= pd[i];
        for (int64_t j = 0; j < pd[i]; j++)
            map[i][j] = i == a ? idx[j] : j;
    }
    if (oc > MAXV)
        return SG_OK;
    sg_val v[MAXV];
    sg_gi_pick_vals(t->values, sd, x.rank, map, pd, oc, v);
    return set_vals(c, 0, oc, v);
}

static sg_status r_gather(ctx *c)
{
    int64_t axis;
    TRY(a_int(c, "axis", 0, &axis));
    return sg_gi_gather(c, axis, 0, true);
}

static sg_status r_gather_elements(ctx *c)
{
    shp x, ind;
    bool known = in_shape(c, 0, &x); /* each fills its shape, known or not */
    known = in_shape(c, 1, &ind) && known;
    if (known && x.rank != ind.rank)
        return fail(c, "the data has rank %d and the indices rank %d", x.rank, ind.rank);
    ind.type = x.type;
    return set_out(c, 0, &ind);
}

static sg_status r_gather_nd(ctx *c)
{
    shp x, ind, o;
    int64_t b;
    bool known = in_shape(c, 0, &x); /* each fills its shape, known or not */
    known = in_shape(c, 1, &ind) && known;
    TRY(a_int(c, "batch_dims", 0, &b));
    o.type = x.type;
    o.rank = -1;
    if (!known || ind.rank < 1 || !sg_is_const(ind.d[ind.rank - 1]))
        return set_out(c, 0, &o);
    int64_t last = ind.d[ind.rank - 1].k;
    if (b < 0 || last < 0 || b > x.rank || last > x.rank - b || b >= ind.rank)
        return fail(c, "indices of shape [..., %" PRId64 "] with batch_dims %" PRId64 " for data of rank %d",
                    last, b, x.rank);
    o.rank = 0;
    for (int i = 0; i < ind.rank - 1; i++)
        o.d[o.rank++] = ind.d[i];
    for (int64_t i = b + last; i < x.rank && o.rank < MAXR; i++)
        o.d[o.rank++] = x.d[i];
    return set_out(c, 0, &o);
}

/* The shape given as input i's values (Expand, ConstantOfShape...): false
 * when not known; s->rank is then the length when known, else -1. */
sg_status sg_gi_shape_input(ctx *c, size_t i, shp *s, bool *known)
{
    sg_val v[MAXV];
    int64_t n;
    shp t;
    *known = false;
    s->rank = -1;
    if (in_vals(c, i, v, &n)) {
        if (n > MAXR)
            return SG_OK;
        for (int64_t k = 0; k < n; k++) {
            if (sg_is_const(v[k]) && v[k].k < 0)
                return fail(c, "the shape has %" PRId64, v[k].k);
            s->d[k] = v[k];
        }
        s->rank = (int)n;
        *known = true;
    } else if (in_shape(c, i, &t) && t.rank == 1 && sg_is_const(t.d[0]) && t.d[0].k <= MAXR) {
        s->rank = (int)t.d[0].k;
    } else if (in_shape(c, i, &t) && t.rank == 0) {
        s->rank = 0;
        *known = true;
    }
    return SG_OK;
}

sg_status sg_gi_broadcast_to(ctx *c, const shp *o)
{
    const sg_gtensor *t = in_t(c, 0);
    shp x;
    int64_t od[MAXVR], id[MAXVR], count, ic;
    TRY(set_out(c, 0, o));
    if (!known_vals(t) || !t_shape(t, &x) || !const_dims(&x, id, &ic) || !const_dims(o, od, &count) ||
        count > MAXV || (ic == 0 && count > 0))
        return SG_OK;
    sg_val v[MAXV];
    for (int64_t f = 0; f < count; f++)
        v[f] = t->values[bcast_source(f, od, o->rank, id, x.rank)];
    return set_vals(c, 0, count, v);
}

static sg_status r_expand(ctx *c)
{
    shp x, s, o;
    bool known = in_shape(c, 0, &x), sk;
    TRY(sg_gi_shape_input(c, 1, &s, &sk));
    o.type = x.type;
    o.rank = -1;
    if (!known || s.rank < 0)
        return set_out(c, 0, &o);
    if (!sk) {
        fresh_shape(c, 0, x.rank > s.rank ? x.rank : s.rank, &o);
        return set_out(c, 0, &o);
    }
    TRY(sg_gi_bcast(c, &x, &s, &o));
    return sg_gi_broadcast_to(c, &o);
}

sg_status sg_gi_tile(ctx *c, const shp *x, const sg_val *r)
{
    shp o = *x;
    for (int i = 0; i < x->rank; i++) {
        if (sg_is_const(r[i]) && r[i].k < 0)
            return fail(c, "repeat %" PRId64 " is negative", r[i].k);
        o.d[i] = sg_x_mul(EX(c), x->d[i], r[i]);
    }
    TRY(set_out(c, 0, &o));
    const sg_gtensor *t = in_t(c, 0);
    int64_t id[MAXVR], od[MAXVR], ic, count;
    if (!known_vals(t) || !const_dims(x, id, &ic) || !const_dims(&o, od, &count) || count > MAXV)
        return SG_OK;
    sg_val v[MAXV];
    for (int64_t f = 0; f < count; f++) {
        int64_t rest = f, src = 0, stride = 1;
        for (int i = o.rank - 1; i >= 0; i--) {
            src += ((rest % od[i]) % id[i]) * stride;
            rest /= od[i];
            stride *= id[i];
        }
        v[f] = t->values[src];
    }
    return set_vals(c, 0, count, v);
}

static sg_status r_tile(ctx *c)
{
    shp x;
    sg_val r[MAXV];
    int64_t n;
    bool known = in_shape(c, 0, &x);
    if (!known)
        return set_out(c, 0, &x);
    if (!in_vals(c, 1, r, &n)) {
        fresh_shape(c, 0, x.rank, &x);
        return set_out(c, 0, &x);
    }
    if (n != x.rank)
        return fail(c, "%" PRId64 " repeats for rank %d", n, x.rank);
    return sg_gi_tile(c, &x, r);
}

/* ---- Range, ConstantOfShape, Constant, Shape, Size ----------------------------------- */

sg_status sg_gi_range(ctx *c, int type)
{
    shp o = {.type = type, .rank = 1};
    sg_val a, b, d;
    sg_exprs *e = EX(c);
    if (is_int(in_type(c, 0)) && in_scalar(c, 0, &a) && in_scalar(c, 1, &b) && in_scalar(c, 2, &d)) {
        if (is_k(d, 0))
            return fail(c, "delta is 0");
        sg_val n;
        if (sg_is_const(d) && d.k > 0)
            n = sg_x(e, SG_X_CDIV, sg_x_sub(e, b, a), d);
        else if (sg_is_const(d) && d.k != INT64_MIN)
            n = sg_x(e, SG_X_CDIV, sg_x_sub(e, a, b), sg_const(-d.k));
        else
            n = fresh(c, 0, 0);
        o.d[0] = n;
        TRY(set_out(c, 0, &o));
        if (!sg_is_const(n) || n.k > MAXV)
            return SG_OK;
        sg_val v[MAXV];
        for (int64_t i = 0; i < n.k; i++)
            v[i] = sg_x_add(e, a, sg_x_mul(e, sg_const(i), d));
        return set_vals(c, 0, n.k, v);
    }
    double f[3][MAXV];
    int64_t nf[3];
    if (in_floats(c, 0, f[0], &nf[0]) && in_floats(c, 1, f[1], &nf[1]) && in_floats(c, 2, f[2], &nf[2]) &&
        nf[0] == 1 && nf[1] == 1 && nf[2] == 1) {
        if (f[2][0] == 0)
            return fail(c, "delta is 0");
        double n = ceil((f[1][0] - f[0][0]) / f[2][0]);
        if (n == n && n < 9007199254740992.0) {
            o.d[0] = sg_const(n > 0 ? (int64_t)n : 0);
            return set_out(c, 0, &o);
        }
    }
    o.d[0] = fresh(c, 0, 0);
    return set_out(c, 0, &o);
}

static sg_status r_range(ctx *c)
{
    return sg_gi_range(c, in_type(c, 0));
}

/* The tensor of a tensor attribute (NULL when absent). */
static sg_status a_tensor(ctx *c, const char *name, const sg_gtensor **t)
{
    const sg_gattr *a = attr(c, name);
    *t = NULL;
    if (a == NULL)
        return SG_OK;
    if (a->kind != SG_GATTR_TENSOR)
        return wrong_kind(c, a, "a tensor");
    if (a->tensor < 0 || (size_t)a->tensor >= c->g->ntensors)
        return fail(c, "attribute '%s' names no tensor", name);
    *t = &c->g->tensors[a->tensor];
    return SG_OK;
}

static sg_status r_constant_of_shape(ctx *c)
{
    shp o;
    bool known;
    const sg_gtensor *value;
    TRY(a_tensor(c, "value", &value));
    TRY(sg_gi_shape_input(c, 0, &o, &known));
    o.type = value ? value->type : SG_F32;
    if (o.rank >= 0 && !known)
        fresh_shape(c, 0, o.rank, &o);
    TRY(set_out(c, 0, &o));
    int64_t od[MAXVR], count;
    if (value == NULL || !known_vals(value) || value->nvalues != 1 || !const_dims(&o, od, &count) ||
        count > MAXV)
        return SG_OK;
    sg_val v[MAXV];
    for (int64_t i = 0; i < count; i++)
        v[i] = value->values[0];
    return set_vals(c, 0, count, v);
}

/* Constant: what the reader set, else the attribute's value. */
static sg_status r_constant(ctx *c)
{
    int32_t o = out_i(c, 0);
    if (o < 0)
        return SG_OK;
    const sg_gtensor *out = &c->g->tensors[o];
    if (out->rank >= 0 || out->constant)
        return SG_OK;
    const sg_gtensor *t;
    const sg_gattr *a;
    TRY(a_tensor(c, "value", &t));
    shp s = {.type = SG_GTYPE_UNKNOWN, .rank = -1};
    sg_val v[MAXV];
    int64_t n = -1;
    if (t != NULL) {
        t_shape(t, &s);
        if (known_vals(t) && t->nvalues > 0)
            memcpy(v, t->values, (size_t)t->nvalues * sizeof *v);
        n = known_vals(t) ? t->nvalues : -1;
    } else if ((a = attr(c, "value_int")) != NULL) {
        if (a->kind != SG_GATTR_INT)
            return wrong_kind(c, a, "an int");
        s = (shp){.type = SG_I64, .rank = 0};
        v[0] = sg_const(a->i), n = 1;
    } else if ((a = attr(c, "value_ints")) != NULL) {
        if (a->kind != SG_GATTR_INTS)
            return wrong_kind(c, a, "ints");
        s = (shp){.type = SG_I64, .rank = 1};
        s.d[0] = sg_const((int64_t)a->count);
        if (a->count <= MAXV && (a->ints != NULL || a->count == 0)) {
            n = (int64_t)a->count;
            for (int64_t i = 0; i < n; i++)
                v[i] = sg_const(a->ints[i]);
        }
    } else if ((a = attr(c, "value_float")) != NULL) {
        s = (shp){.type = SG_F32, .rank = 0};
    } else if ((a = attr(c, "value_floats")) != NULL) {
        if (a->kind != SG_GATTR_FLOATS)
            return wrong_kind(c, a, "floats");
        s = (shp){.type = SG_F32, .rank = 1};
        s.d[0] = sg_const((int64_t)a->count);
    } else if ((a = attr(c, "value_string")) != NULL) {
        s = (shp){.type = SG_GTYPE_OTHER, .rank = 0};
    } else if ((a = attr(c, "value_strings")) != NULL) {
        s = (shp){.type = SG_GTYPE_OTHER, .rank = 1};
        s.d[0] = sg_const((int64_t)a->count);
    }
    TRY(set_out(c, 0, &s));
    return n >= 0 ? set_vals(c, 0, n, v) : SG_OK;
}

sg_status sg_gi_shape(ctx *c, int type, int64_t start, int64_t end)
{
    shp x, o = {.type = type, .rank = 1};
    bool known = in_shape(c, 0, &x);
    if (!known) {
        o.d[0] = fresh(c, 0, 0);
        return set_out(c, 0, &o);
    }
    int64_t r = x.rank;
    start = start < 0 ? (start + r < 0 ? 0 : start + r) : (start > r ? r : start);
    end = end < 0 ? (end + r < 0 ? 0 : end + r) : (end > r ? r : end);
    int64_t n = end > start ? end - start : 0;
    o.d[0] = sg_const(n);
    TRY(set_out(c, 0, &o));
    return set_vals(c, 0, n, x.d + start);
}

static sg_status r_shape(ctx *c)
{
    int64_t start, end;
    TRY(a_int(c, "start", 0, &start));
    TRY(a_int(c, "end", INT64_MAX, &end));
    return sg_gi_shape(c, SG_I64, start, end);
}

static sg_status r_size(ctx *c)
{
    shp x, o = {.type = SG_I64, .rank = 0};
    TRY(set_out(c, 0, &o));
    if (!in_shape(c, 0, &x))
        return SG_OK;
    sg_val n = product(c, x.d, 0, x.rank);
    return set_vals(c, 0, 1, &n);
}

/* ---- reductions, ArgMax, TopK ---------------------------------------------------------- */

/* A reduction (the node's operator); the values of ReduceSum,
 * ReduceProd, ReduceMax and ReduceMin are folded. */
sg_status sg_gi_reduce(ctx *c, const int64_t *axes, int64_t n, bool keep, bool noop)
{
    shp x, o;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    o.rank = -1;
    if (!known)
        return set_out(c, 0, &o);
    if ((n == -1 || n == 0) && noop) {
        TRY(set_out(c, 0, &x));
        return keep_vals(c);
    }
    if (n == -2) {
        if (keep) {
            o = x;
            for (int i = 0; i < x.rank; i++)
                if (!is_k(x.d[i], 1))
                    o.d[i] = fresh(c, 0, i);
        }
        return set_out(c, 0, &o);
    }
    bool flags[MAXR];
    if (n <= 0) {
        for (int i = 0; i < x.rank; i++)
            flags[i] = true;
    } else {
        TRY(sg_gi_axis_flags(c, axes, n, x.rank, flags));
    }
    o.rank = 0;
    for (int i = 0; i < x.rank; i++)
        if (!flags[i])
            o.d[o.rank++] = x.d[i];
        else if (keep)
            o.d[o.rank++] = sg_const(1);
    TRY(set_out(c, 0, &o));
    /* values */
    const char *op = c->n->op;
    int fold = strcmp(op, "ReduceSum") == 0    ? B_ADD
               : strcmp(op, "ReduceProd") == 0 ? B_MUL
               : strcmp(op, "ReduceMax") == 0  ? B_MAX
               : strcmp(op, "ReduceMin") == 0  ? B_MIN
                                               : V_NONE;
    const sg_gtensor *t = in_t(c, 0);
    int64_t sd[MAXVR], count, od[MAXVR], oc;
    if (fold == V_NONE || !known_vals(t) || !const_dims(&x, sd, &count) || !const_dims(&o, od, &oc) ||
        count == 0)
        return SG_OK;
    sg_val v[MAXV];
    bool set[MAXV] = {false};
    for (int64_t f = 0; f < count; f++) {
        int64_t rest = f, dst = 0, stride = 1;
        for (int i = x.rank - 1; i >= 0; i--) {
            int64_t k = rest % sd[i];
            rest /= sd[i];
            if (!flags[i]) {
                dst += k * stride;
                stride *= sd[i];
            }
        }
        if (!set[dst])
            v[dst] = t->values[f], set[dst] = true;
        else if (!bin_val(c, fold, false, v[dst], t->values[f], &v[dst]))
            return SG_OK;
    }
    return set_vals(c, 0, oc, v);
}

/* The reductions: arg is the opset from which the axes are an input. */
static sg_status r_reduce(ctx *c)
{
    int64_t axes[MAXV], n, keep, noop;
    TRY(read_axes(c, c->arg, 1, axes, &n));
    TRY(a_int(c, "keepdims", 1, &keep));
    TRY(a_int(c, "noop_with_empty_axes", 0, &noop));
    return sg_gi_reduce(c, axes, n, keep != 0, noop != 0 && c->n->version >= c->arg);
}

static sg_status r_argminmax(ctx *c)
{
    shp x;
    int64_t axis, keep;
    bool known = in_shape(c, 0, &x);
    TRY(a_int(c, "axis", 0, &axis));
    TRY(a_int(c, "keepdims", 1, &keep));
    x.type = SG_I64;
    if (known) {
        int a;
        TRY(norm_axis(c, axis, x.rank, &a));
        if (keep) {
            x.d[a] = sg_const(1);
        } else {
            memmove(x.d + a, x.d + a + 1, (size_t)(x.rank - a - 1) * sizeof *x.d);
            x.rank--;
        }
    }
    return set_out(c, 0, &x);
}

sg_status sg_gi_topk(ctx *c, int64_t axis, const sg_val *k, int index_type)
{
    shp x;
    bool known = in_shape(c, 0, &x);
    if (known) {
        int a;
        TRY(norm_axis(c, axis, x.rank, &a));
        sg_val kv = k != NULL ? *k : fresh(c, 0, a);
        if (sg_is_const(kv) && (kv.k < 0 || (sg_is_const(x.d[a]) && kv.k > x.d[a].k)))
            return fail(c, "k %" PRId64 " is out of range for axis %d of size %s", kv.k, a,
                        sg_graph_val_text(c->g, x.d[a], (char[64]){0}));
        x.d[a] = kv;
    }
    TRY(set_out(c, 0, &x));
    x.type = index_type;
    return set_out(c, 1, &x);
}

static sg_status r_topk(ctx *c)
{
    int64_t axis, k;
    sg_val kv;
    TRY(a_int(c, "axis", -1, &axis));
    if (c->n->version < 10) {
        if (attr(c, "k") == NULL)
            return fail(c, "attribute 'k' is missing");
        TRY(a_int(c, "k", 0, &k));
        kv = sg_const(k);
        return sg_gi_topk(c, axis, &kv, SG_I64);
    }
    return sg_gi_topk(c, axis, in_scalar(c, 1, &kv) ? &kv : NULL, SG_I64);
}

/* ---- Resize, Upsample --------------------------------------------------------------- */

/* floor(d * scale) as ONNX Runtime computes it (in float); an expression
 * when the scale is an integer or a fraction of a power of two, else a
 * fresh symbol for dimension i of output 0. */
static sg_val scaled(ctx *c, int i, sg_val d, double scale)
{
    if (!(scale >= 0) || scale > 1e15)
        return fresh(c, 0, i);
    if (sg_is_const(d)) {
        float p = (float)d.k * (float)scale;
        if (!(p >= 0) || p >= 9.2e18f)
            return fresh(c, 0, i);
        return sg_const((int64_t)floorf(p));
    }
    for (int m = 0; m <= 20; m++) {
        double q = ldexp(1.0, m), p = scale * q;
        if (p == floor(p) && p < 1e9)
            return floor_div(c, sg_x_mul(EX(c), d, sg_const((int64_t)p)), sg_const((int64_t)q));
    }
    return fresh(c, 0, i);
}

/* The output of resizing x: sizes (values) or scales, on nax axes. */
static sg_status resize_axes(ctx *c, shp *x, const int64_t *axes, int64_t nax, size_t si, size_t zi)
{
    bool flags[MAXR];
    TRY(sg_gi_axis_flags(c, axes, nax, x->rank, flags));
    const sg_gtensor *tz = in_t(c, zi), *ts = in_t(c, si);
    shp zs;
    if (tz != NULL && t_shape(tz, &zs) && zs.rank == 1 && is_k(zs.d[0], 0))
        tz = NULL; /* an empty sizes */
    sg_val sz[MAXV];
    double sc[MAXV];
    int64_t n;
    const char *policy;
    TRY(a_string(c, "keep_aspect_ratio_policy", "stretch", &policy));
    if (tz != NULL) {
        bool known = in_vals(c, zi, sz, &n) && strcmp(policy, "stretch") == 0;
        if (known && n != nax)
            return fail(c, "%" PRId64 " sizes for %" PRId64 " axes", n, nax);
        for (int64_t k = 0; k < nax; k++) {
            int a = (int)(axes[k] < 0 ? axes[k] + x->rank : axes[k]);
            x->d[a] = known ? sz[k] : fresh(c, 0, a);
        }
        return SG_OK;
    }
    if (ts == NULL)
        return fail(c, "neither scales nor sizes are given");
    bool known = in_floats(c, si, sc, &n);
    if (known && n != nax)
        return fail(c, "%" PRId64 " scales for %" PRId64 " axes", n, nax);
    for (int64_t k = 0; k < nax; k++) {
        int a = (int)(axes[k] < 0 ? axes[k] + x->rank : axes[k]);
        x->d[a] = known ? scaled(c, a, x->d[a], sc[k]) : fresh(c, 0, a);
    }
    return SG_OK;
}

static sg_status r_resize(ctx *c)
{
    shp x;
    int64_t axes[MAXR];
    const int64_t *ax;
    size_t nax;
    if (!in_shape(c, 0, &x))
        return set_out(c, 0, &x);
    TRY(a_ints(c, "axes", &ax, &nax));
    if (ax != NULL && c->n->version >= 18) {
        if (nax > MAXR)
            return fail(c, "attribute 'axes' has %zu values", nax);
        memcpy(axes, ax, nax * sizeof *ax);
    } else {
        nax = (size_t)x.rank;
        for (int i = 0; i < x.rank; i++)
            axes[i] = i;
    }
    if (c->n->version < 11)
        TRY(resize_axes(c, &x, axes, (int64_t)nax, 1, SIZE_MAX));
    else
        TRY(resize_axes(c, &x, axes, (int64_t)nax, 2, 3));
    return set_out(c, 0, &x);
}

static sg_status r_upsample(ctx *c)
{
    shp x;
    if (!in_shape(c, 0, &x))
        return set_out(c, 0, &x);
    int64_t axes[MAXR];
    for (int i = 0; i < x.rank; i++)
        axes[i] = i;
    if (c->n->version >= 9) {
        TRY(resize_axes(c, &x, axes, x.rank, 1, SIZE_MAX));
        return set_out(c, 0, &x);
    }
    const double *s;
    size_t ns;
    double hw[2];
    if (c->n->version < 7) {
        TRY(a_float(c, "height_scale", 1, &hw[0]));
        TRY(a_float(c, "width_scale", 1, &hw[1]));
        if (x.rank != 4)
            return fail(c, "the input has rank %d, not 4", x.rank);
        x.d[2] = scaled(c, 2, x.d[2], hw[0]);
        x.d[3] = scaled(c, 3, x.d[3], hw[1]);
        return set_out(c, 0, &x);
    }
    TRY(a_floats(c, "scales", &s, &ns));
    if (s == NULL)
        return fail(c, "attribute 'scales' is missing");
    if (ns != (size_t)x.rank)
        return fail(c, "%zu scales for rank %d", ns, x.rank);
    for (int i = 0; i < x.rank; i++)
        x.d[i] = scaled(c, i, x.d[i], s[i]);
    return set_out(c, 0, &x);
}

/* ---- recurrent layers ---------------------------------------------------------------- */

/* RNN, GRU, LSTM: Y, Y_h (and LSTM's Y_c). */
static sg_status r_rnn(ctx *c)
{
    shp x, r, y, h;
    int64_t hidden, layout;
    const char *dir;
    bool known = in_shape(c, 0, &x);
    TRY(a_int(c, "hidden_size", -1, &hidden));
    TRY(a_int(c, "layout", 0, &layout));
    TRY(a_string(c, "direction", "forward", &dir));
    int64_t nd = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    if (nd == 1 && strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0)
        return fail(c, "attribute 'direction' is '%s', not forward, reverse or bidirectional", dir);
    if (known && x.rank != 3)
        return fail(c, "the input has rank %d, not 3", x.rank);
    sg_val hs = hidden >= 0 ? sg_const(hidden) : in_shape(c, 2, &r) && r.rank == 3 ? r.d[2] : fresh(c, 1, 2);
    sg_val seq = known ? x.d[layout ? 1 : 0] : fresh(c, 0, layout ? 1 : 0);
    sg_val batch = known ? x.d[layout ? 0 : 1] : fresh(c, 1, layout ? 0 : 1);
    y.type = h.type = x.type;
    y.rank = 4, h.rank = 3;
    if (layout) {
        y.d[0] = batch, y.d[1] = seq, y.d[2] = sg_const(nd), y.d[3] = hs;
        h.d[0] = batch, h.d[1] = sg_const(nd), h.d[2] = hs;
    } else {
        y.d[0] = seq, y.d[1] = sg_const(nd), y.d[2] = batch, y.d[3] = hs;
        h.d[0] = sg_const(nd), h.d[1] = batch, h.d[2] = hs;
    }
    TRY(set_out(c, 0, &y));
    TRY(set_out(c, 1, &h));
    return set_out(c, 2, &h);
}

/* ---- data-dependent sizes ------------------------------------------------------------ */

static sg_status r_nonzero(ctx *c)
{
    shp x, o = {.type = SG_I64, .rank = 2};
    bool known = in_shape(c, 0, &x);
    o.d[0] = known ? sg_const(x.rank) : fresh(c, 0, 0);
    o.d[1] = fresh(c, 0, 1);
    const sg_gtensor *t = in_t(c, 0);
    int64_t xd[MAXVR], count, idx[MAXV], nz = 0;
    if (known && known_vals(t) && const_dims(&x, xd, &count)) {
        bool all = true;
        for (int64_t f = 0; f < count; f++) {
            all = all && sg_is_const(t->values[f]);
            if (all && t->values[f].k != 0)
                idx[nz++] = f;
        }
        if (all) {
            o.d[1] = sg_const(nz);
            TRY(set_out(c, 0, &o));
            if (nz * x.rank > MAXV)
                return SG_OK;
            sg_val v[MAXV];
            for (int64_t j = 0; j < nz; j++) {
                int64_t rest = idx[j];
                for (int i = x.rank - 1; i >= 0; i--) {
                    v[i * nz + j] = sg_const(rest % xd[i]);
                    rest /= xd[i];
                }
            }
            return set_vals(c, 0, nz * x.rank, v);
        }
    }
    return set_out(c, 0, &o);
}

static sg_status r_onehot(ctx *c)
{
    shp x, o;
    int64_t axis, n;
    sg_val depth;
    double f[MAXV];
    bool known = in_shape(c, 0, &x);
    TRY(a_int(c, "axis", -1, &axis));
    o.type = in_type(c, 2);
    o.rank = -1;
    if (!known || x.rank + 1 > MAXR)
        return set_out(c, 0, &o);
    int a;
    TRY(norm_axis(c, axis, x.rank + 1, &a));
    if (!is_int(in_type(c, 1)) || !in_scalar(c, 1, &depth)) {
        if (in_floats(c, 1, f, &n) && n == 1 && f[0] > -1e18 && f[0] < 1e18)
            depth = sg_const((int64_t)f[0]);
        else
            depth = fresh(c, 0, a);
    }
    if (sg_is_const(depth) && depth.k < 1)
        return fail(c, "depth %" PRId64 " is not positive", depth.k);
    o.rank = x.rank + 1;
    for (int i = 0, j = 0; i < o.rank; i++)
        o.d[i] = i == a ? depth : x.d[j++];
    return set_out(c, 0, &o);
}

static sg_status r_nms(ctx *c)
{
    shp o = {.type = SG_I64, .rank = 2};
    o.d[0] = fresh(c, 0, 0);
    o.d[1] = sg_const(3);
    return set_out(c, 0, &o);
}

static sg_status r_compress(ctx *c)
{
    shp x, o;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    o.rank = -1;
    if (!known)
        return set_out(c, 0, &o);
    if (attr(c, "axis") == NULL) {
        o.rank = 1;
        o.d[0] = fresh(c, 0, 0);
        return set_out(c, 0, &o);
    }
    int64_t axis;
    int a;
    TRY(a_int(c, "axis", 0, &axis));
    TRY(norm_axis(c, axis, x.rank, &a));
    o = x;
    o.d[a] = fresh(c, 0, a);
    return set_out(c, 0, &o);
}

/* Unique: Y, indices, inverse_indices, counts. */
static sg_status r_unique(ctx *c)
{
    shp x, y, k;
    bool known = in_shape(c, 0, &x);
    y.type = x.type;
    y.rank = -1;
    k.type = SG_I64;
    k.rank = 1;
    if (!known) {
        TRY(set_out(c, 0, &y));
        k.d[0] = fresh(c, 0, 0);
        TRY(set_out(c, 1, &k));
        k.d[0] = fresh(c, 2, 0);
        TRY(set_out(c, 2, &k));
        k.d[0] = fresh(c, 0, 0);
        return set_out(c, 3, &k);
    }
    sg_val u, inv;
    if (attr(c, "axis") == NULL) {
        y.rank = 1;
        u = y.d[0] = fresh(c, 0, 0);
        inv = product(c, x.d, 0, x.rank);
    } else {
        int64_t axis;
        int a;
        TRY(a_int(c, "axis", 0, &axis));
        TRY(norm_axis(c, axis, x.rank, &a));
        y = x;
        u = y.d[a] = fresh(c, 0, a);
        inv = x.d[a];
    }
    TRY(set_out(c, 0, &y));
    k.d[0] = u;
    TRY(set_out(c, 1, &k));
    TRY(set_out(c, 3, &k));
    k.d[0] = inv;
    return set_out(c, 2, &k);
}

/* ---- the rest -------------------------------------------------------------------------- */

static sg_status r_einsum(ctx *c)
{
    const char *eq;
    TRY(a_string(c, "equation", NULL, &eq));
    shp o = {.type = in_type(c, 0), .rank = -1};
    if (eq == NULL)
        return fail(c, "attribute 'equation' is missing");
    sg_val dim[128];
    int count[128] = {0};
    shp ell = {.rank = 0};
    bool any_ell = false;
    size_t term = 0;
    const char *p = eq;
    for (;; term++) {
        shp x;
        if (term >= c->n->nin || !in_shape(c, term, &x))
            return set_out(c, 0, &o);
        int letters = 0, at = 0, ell_at = -1;
        const char *q;
        for (q = p; *q && *q != ',' && *q != '-'; q++) {
            if (*q == '.' && q[1] == '.' && q[2] == '.' && ell_at < 0) {
                ell_at = letters;
                q += 2;
            } else if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
                letters++;
            } else if (*q != ' ') {
                return fail(c, "the equation '%s' is not of letters, commas, '...' and '->'", eq);
            }
        }
        int ne = x.rank - letters;
        if (ne < 0 || (ell_at < 0 && ne != 0))
            return fail(c, "term %zu of '%s' has %d letters for rank %d", term, eq, letters, x.rank);
        if (ell_at >= 0) {
            shp e = {.rank = ne};
            memcpy(e.d, x.d + ell_at, (size_t)ne * sizeof *e.d);
            if (any_ell)
                TRY(sg_gi_bcast(c, &ell, &e, &ell));
            else
                ell = e;
            any_ell = true;
        }
        for (const char *r = p; r < q; r++) {
            if (*r == '.') {
                at += ne;
                r += 2;
                continue;
            }
            if (*r == ' ')
                continue;
            int l = (unsigned char)*r & 127;
            sg_val d = x.d[at++];
            if (count[l]++ == 0 || is_k(dim[l], 1))
                dim[l] = d;
            else if (!is_k(d, 1) && sg_is_const(dim[l]) && sg_is_const(d) && dim[l].k != d.k)
                return fail(c, "'%c' is %" PRId64 " and %" PRId64 " in '%s'", *r, dim[l].k, d.k, eq);
            else if (!sg_is_const(dim[l]) && sg_is_const(d) && !is_k(d, 1))
                dim[l] = d;
        }
        p = q;
        if (*p != ',')
            break;
        p++;
    }
    if (term + 1 != c->n->nin)
        return fail(c, "the equation '%s' has %zu terms for %zu inputs", eq, term + 1, c->n->nin);
    o.rank = 0;
    if (p[0] == '-' && p[1] == '>') {
        for (const char *r = p + 2; *r; r++) {
            if (*r == '.' && r[1] == '.' && r[2] == '.') {
                for (int i = 0; i < ell.rank && o.rank < MAXR; i++)
                    o.d[o.rank++] = ell.d[i];
                r += 2;
            } else if (*r != ' ') {
                int l = (unsigned char)*r & 127;
                if (count[l] == 0)
                    return fail(c, "'%c' of the output of '%s' is in no input", *r, eq);
                if (o.rank == MAXR)
                    return set_unknown(c, 0, o.type);
                o.d[o.rank++] = dim[l];
            }
        }
    } else if (*p != '\0') {
        return fail(c, "the equation '%s' is not of letters, commas, '...' and '->'", eq);
    } else {
        for (int i = 0; i < ell.rank; i++)
            o.d[o.rank++] = ell.d[i];
        for (int l = 'A'; l <= 'z' && o.rank < MAXR; l++)
            if (count[l] == 1)
                o.d[o.rank++] = dim[l];
    }
    return set_out(c, 0, &o);
}

/* DepthToSpace (arg 0), SpaceToDepth (1). */
static sg_status r_depth_space(ctx *c)
{
    shp x;
    int64_t b;
    bool known = in_shape(c, 0, &x);
    TRY(a_int(c, "blocksize", 0, &b));
    if (b <= 0 || b > 65536)
        return fail(c, "attribute 'blocksize' is %" PRId64, b);
    if (!known)
        return set_out(c, 0, &x);
    if (x.rank != 4)
        return fail(c, "the input has rank %d, not 4", x.rank);
    sg_exprs *e = EX(c);
    sg_val bb = sg_const(b * b), bk = sg_const(b);
    int from = c->arg ? 2 : 1;
    for (int i = from; i < (c->arg ? 4 : 2); i++)
        if (sg_is_const(x.d[i]) && x.d[i].k % (i == 1 ? b * b : b) != 0)
            return fail(c, "axis %d of size %" PRId64 " does not divide by %" PRId64, i, x.d[i].k,
                        i == 1 ? b * b : b);
    if (c->arg == 0) {
        x.d[1] = sg_x(e, SG_X_CDIV, x.d[1], bb);
        x.d[2] = sg_x_mul(e, x.d[2], bk);
        x.d[3] = sg_x_mul(e, x.d[3], bk);
    } else {
        x.d[1] = sg_x_mul(e, x.d[1], bb);
        x.d[2] = sg_x(e, SG_X_CDIV, x.d[2], bk);
        x.d[3] = sg_x(e, SG_X_CDIV, x.d[3], bk);
    }
    return set_out(c, 0, &x);
}

static sg_status r_quantize(ctx *c)
{
    shp x;
    int64_t dt;
    in_shape(c, 0, &x);
    TRY(a_int(c, "output_dtype", 0, &dt));
    x.type = dt ? onnx_type(dt) : in_t(c, 2) ? in_type(c, 2) : SG_U8;
    return set_out(c, 0, &x);
}

static sg_status r_dequantize(ctx *c)
{
    shp x;
    in_shape(c, 0, &x);
    x.type = in_type(c, 1);
    return set_out(c, 0, &x);
}

static sg_status r_dynamic_quantize(ctx *c)
{
    shp x, s = {.type = SG_F32, .rank = 0};
    in_shape(c, 0, &x);
    x.type = SG_U8;
    TRY(set_out(c, 0, &x));
    TRY(set_out(c, 1, &s));
    s.type = SG_U8;
    return set_out(c, 2, &s);
}

static sg_status r_dropout(ctx *c)
{
    shp x;
    in_shape(c, 0, &x);
    TRY(set_out(c, 0, &x));
    if (c->n->version >= 10)
        x.type = SG_BOOL;
    return set_out(c, 1, &x);
}

static sg_status r_roi_align(ctx *c)
{
    shp x, r, o = {.type = in_type(c, 0), .rank = 4};
    int64_t h, w;
    bool known = in_shape(c, 0, &x), rk = in_shape(c, 1, &r);
    TRY(a_int(c, "output_height", 1, &h));
    TRY(a_int(c, "output_width", 1, &w));
    o.d[0] = rk && r.rank == 2 ? r.d[0] : fresh(c, 0, 0);
    o.d[1] = known && x.rank == 4 ? x.d[1] : fresh(c, 0, 1);
    o.d[2] = sg_const(h);
    o.d[3] = sg_const(w);
    return set_out(c, 0, &o);
}

static sg_status r_grid_sample(ctx *c)
{
    shp x, g, o = {.type = in_type(c, 0), .rank = -1};
    if (in_shape(c, 0, &x) && in_shape(c, 1, &g) && x.rank >= 3 && g.rank == x.rank) {
        o = x;
        for (int i = 2; i < x.rank; i++)
            o.d[i] = g.d[i - 1];
    }
    return set_out(c, 0, &o);
}

/* RandomNormal, RandomUniform: the shape attribute, dtype (f32). */
static sg_status r_random(ctx *c)
{
    const int64_t *s;
    size_t n;
    int64_t dt;
    TRY(a_ints(c, "shape", &s, &n));
    TRY(a_int(c, "dtype", 1, &dt));
    if (s == NULL)
        return fail(c, "attribute 'shape' is missing");
    shp o = {.type = onnx_type(dt), .rank = n <= MAXR ? (int)n : -1};
    for (int i = 0; i < o.rank; i++)
        o.d[i] = sg_const(s[i]);
    return set_out(c, 0, &o);
}

/* RandomNormalLike, RandomUniformLike, Bernoulli, EyeLike: the input's
 * shape, dtype (else the input's type). */
static sg_status r_like(ctx *c)
{
    shp x;
    int64_t dt;
    in_shape(c, 0, &x);
    TRY(a_int(c, "dtype", 0, &dt));
    if (dt != 0)
        x.type = onnx_type(dt);
    return set_out(c, 0, &x);
}

static sg_status r_det(ctx *c)
{
    shp x;
    if (in_shape(c, 0, &x)) {
        if (x.rank < 2)
            return fail(c, "the input has rank %d, less than 2", x.rank);
        x.rank -= 2;
    }
    return set_out(c, 0, &x);
}

static sg_status r_max_unpool(ctx *c)
{
    shp x, o;
    bool known = in_shape(c, 0, &x), sk;
    TRY(sg_gi_shape_input(c, 2, &o, &sk));
    o.type = x.type;
    if (in_t(c, 2) != NULL) {
        if (!sk && o.rank >= 0)
            fresh_shape(c, 0, o.rank, &o);
        return set_out(c, 0, &o);
    }
    if (!known || x.rank < 3)
        return set_out(c, 0, &x);
    window w;
    TRY(read_window(c, x.rank - 2, NULL, &w));
    sg_exprs *e = EX(c);
    for (int i = 0; i < w.n; i++) {
        sg_val v = sg_x_mul(e, sg_x_sub(e, x.d[2 + i], sg_const(1)), sg_const(w.s[i]));
        x.d[2 + i] = sg_x_sub(e, sg_x_add(e, v, w.k[i]), sg_const(w.pb[i] + w.pe[i]));
    }
    return set_out(c, 0, &x);
}

/* ---- subgraphs: If, Loop, Scan ------------------------------------------------------- */

static sg_status infer_scope(ctx *c, int32_t s);

static const sg_gtensor *scope_tensor(ctx *c, int32_t t)
{
    return t >= 0 && (size_t)t < c->g->ntensors ? &c->g->tensors[t] : NULL;
}

/* A subgraph's input takes s, or where s is not known what the file states. */
static sg_status set_body_input(ctx *c, int32_t ti, const shp *s)
{
    if (ti < 0 || (size_t)ti >= c->g->ntensors)
        return SG_OK;
    sg_gtensor *t = &c->g->tensors[ti];
    shp u = *s;
    if (u.rank < 0 && t->stated != NULL && t->stated_rank >= 0 && t->stated_rank <= MAXR &&
        (t->stated_rank == 0 || t->stated_dims != NULL)) {
        u.rank = t->stated_rank;
        memcpy(u.d, t->stated_dims, (size_t)u.rank * sizeof *u.d);
    }
    if (u.type == SG_GTYPE_UNKNOWN && t->stated != NULL)
        u.type = t->stated_type;
    t->shape_arith = false;
    if (!sg_graph_set_shape(c->g, ti, u.type, u.rank, u.d) || !sg_graph_set_values(c->g, ti, -1, NULL))
        return nomem(c);
    return SG_OK;
}

static sg_status r_if(ctx *c)
{
    int32_t st, se;
    TRY(a_graph(c, "then_branch", &st));
    TRY(a_graph(c, "else_branch", &se));
    if (st < 0 || se < 0)
        return fail(c, "attribute '%s' is missing", st < 0 ? "then_branch" : "else_branch");
    TRY(infer_scope(c, st));
    TRY(infer_scope(c, se));
    const sg_gscope *then = &c->g->scopes[st], *other = &c->g->scopes[se];
    size_t nout = c->n->nout;
    if (then->noutputs != nout || other->noutputs != nout)
        return fail(c, "the branches have %zu and %zu outputs for %zu", then->noutputs, other->noutputs,
                    nout);
    sg_val cond;
    bool kc = in_scalar(c, 0, &cond);
    for (size_t k = 0; k < nout; k++) {
        const sg_gtensor *a = scope_tensor(c, then->outputs[k]), *b = scope_tensor(c, other->outputs[k]);
        shp sa, sb, o;
        bool ka = t_shape(a, &sa), kb = t_shape(b, &sb);
        if (kc && sg_is_const(cond)) {
            const sg_gtensor *t = cond.k ? a : b;
            t_shape(t, &o);
            TRY(set_out(c, k, &o));
            if (known_vals(t))
                TRY(set_vals(c, k, t->nvalues, t->values));
            continue;
        }
        o.type = sa.type == sb.type            ? sa.type
                 : sa.type == SG_GTYPE_UNKNOWN ? sb.type
                 : sb.type == SG_GTYPE_UNKNOWN ? sa.type
                                               : SG_GTYPE_UNKNOWN;
        o.rank = -1;
        if (ka && kb && sa.rank == sb.rank) {
            o.rank = sa.rank;
            for (int i = 0; i < o.rank; i++)
                o.d[i] = sg_same(sa.d[i], sb.d[i]) ? sa.d[i]
                         : kc                      ? sg_x_select(EX(c), cond, sa.d[i], sb.d[i])
                                                   : fresh(c, k, i);
        }
        TRY(set_out(c, k, &o));
        if (kc && known_vals(a) && known_vals(b) && a->nvalues == b->nvalues) {
            sg_val v[MAXV];
            for (int64_t i = 0; i < a->nvalues; i++)
                v[i] = sg_x_select(EX(c), cond, a->values[i], b->values[i]);
            TRY(set_vals(c, k, a->nvalues, v));
        }
    }
    return SG_OK;
}

/* Infers a body whose inputs ins[j] carry cur[j] to its outputs outs[j]
 * (a Loop's or Scan's state), again until they agree: a dimension the
 * body changes becomes a fresh symbol named after the body's input. cur
 * ends as the shapes the state keeps through every iteration. A failure
 * counts only in the last pass (a first pass may see sizes that only the
 * first iteration has). */
static sg_status carried_passes(ctx *c, int32_t scope, const int32_t *ins, const int32_t *outs, size_t n,
                                shp *cur)
{
    for (int pass = 0;; pass++) {
        for (size_t j = 0; j < n; j++)
            TRY(set_body_input(c, ins[j], &cur[j]));
        sg_error local = {SG_OK, ""}, *saved = c->err;
        bool fatal = c->fatal;
        c->err = &local;
        sg_status st = infer_scope(c, scope);
        c->err = saved;
        if (st == SG_ERR_NOMEM)
            return sg_fail(c->err, st, "%s", local.message);
        bool changed = false;
        for (size_t j = 0; j < n; j++) {
            shp o;
            const sg_gtensor *in = scope_tensor(c, ins[j]);
            bool known = t_shape(scope_tensor(c, outs[j]), &o);
            if (cur[j].type == SG_GTYPE_UNKNOWN)
                cur[j].type = o.type;
            for (int i = 0; i < cur[j].rank; i++) {
                if (known && o.rank == cur[j].rank && sg_same(o.d[i], cur[j].d[i]) && pass < 4)
                    continue;
                sg_val f = sg_gi_fresh_named(c, in ? in->name : node_name(c), i);
                if (!sg_same(f, cur[j].d[i]))
                    cur[j].d[i] = f, changed = true;
            }
        }
        if (!changed)
            return st == SG_OK ? SG_OK : sg_fail(c->err, st, "%s", local.message);
        c->fatal = fatal; /* a pass done again: its failure does not count */
    }
}

static sg_status body_scope(ctx *c, int32_t *b)
{
    TRY(a_graph(c, "body", b));
    if (*b < 0)
        return fail(c, "attribute 'body' is missing");
    return SG_OK;
}

static sg_status r_loop(ctx *c)
{
    int32_t b;
    TRY(body_scope(c, &b));
    const sg_gscope *body = &c->g->scopes[b];
    size_t n = c->n->nin >= 2 ? c->n->nin - 2 : 0;
    if (body->ninputs != n + 2)
        return fail(c, "the body has %zu inputs for %zu loop-carried values", body->ninputs, n);
    if (body->noutputs < n + 1)
        return fail(c, "the body has %zu outputs for %zu loop-carried values", body->noutputs, n);
    size_t k = body->noutputs - 1 - n;
    if (c->n->nout > n + k)
        return fail(c, "%zu outputs for %zu loop-carried values and %zu scan outputs", c->n->nout, n, k);
    shp it = {.type = SG_I64, .rank = 0}, cond = {.type = SG_BOOL, .rank = 0};
    TRY(set_body_input(c, body->inputs[0], &it));
    TRY(set_body_input(c, body->inputs[1], &cond));
    /* the body runs only while the condition holds: in it, the condition is true */
    sg_val one = sg_const(1);
    if (body->inputs[1] >= 0 && (size_t)body->inputs[1] < c->g->ntensors &&
        !sg_graph_set_values(c->g, body->inputs[1], 1, &one))
        return nomem(c);
    shp *cur = malloc((n ? n : 1) * sizeof *cur);
    if (cur == NULL)
        return nomem(c);
    for (size_t j = 0; j < n; j++)
        in_shape(c, 2 + j, &cur[j]);
    sg_status st = carried_passes(c, b, body->inputs + 2, body->outputs + 1, n, cur);
    for (size_t j = 0; st == SG_OK && j < n; j++)
        st = set_out(c, j, &cur[j]);
    free(cur);
    TRY(st);
    /* scan outputs: one more leading dimension, the trip count when the
     * loop cannot end before it */
    sg_val trips, v;
    bool count = in_t(c, 0) != NULL && in_scalar(c, 0, &trips);
    const sg_gtensor *cond_out = scope_tensor(c, body->outputs[0]);
    bool whole = (in_t(c, 1) == NULL || (in_scalar(c, 1, &v) && is_k(v, 1))) && known_vals(cond_out) &&
                 cond_out->nvalues == 1 && is_k(cond_out->values[0], 1);
    for (size_t j = 0; j < k && n + j < c->n->nout; j++) {
        shp s, o;
        o.type = SG_GTYPE_UNKNOWN;
        o.rank = -1;
        if (t_shape(scope_tensor(c, body->outputs[1 + n + j]), &s) && s.rank < MAXR) {
            o.rank = s.rank + 1;
            o.d[0] = count && whole ? sg_x_max(EX(c), trips, sg_const(0)) : fresh(c, n + j, 0);
            memcpy(o.d + 1, s.d, (size_t)s.rank * sizeof *s.d);
        }
        o.type = s.type;
        TRY(set_out(c, n + j, &o));
    }
    return SG_OK;
}

static sg_status r_scan(ctx *c)
{
    int32_t b;
    int64_t m;
    const int64_t *in_axes, *out_axes;
    size_t nia, noa;
    TRY(body_scope(c, &b));
    if (attr(c, "num_scan_inputs") == NULL)
        return fail(c, "attribute 'num_scan_inputs' is missing");
    TRY(a_int(c, "num_scan_inputs", 0, &m));
    TRY(a_ints(c, "scan_input_axes", &in_axes, &nia));
    TRY(a_ints(c, "scan_output_axes", &out_axes, &noa));
    bool v8 = c->n->version < 9;
    size_t first = v8 ? 1 : 0;
    const sg_gscope *body = &c->g->scopes[b];
    if (m < 1 || (size_t)m + first > c->n->nin)
        return fail(c, "attribute 'num_scan_inputs' is %" PRId64 " for %zu inputs", m, c->n->nin);
    size_t n = c->n->nin - first - (size_t)m;
    if (body->ninputs != n + (size_t)m || body->noutputs < n)
        return fail(c, "the body has %zu inputs and %zu outputs for %zu states and %" PRId64 " scan inputs",
                    body->ninputs, body->noutputs, n, m);
    size_t k = body->noutputs - n;
    if (c->n->nout > n + k)
        return fail(c, "%zu outputs for %zu states and %zu scan outputs", c->n->nout, n, k);
    if ((in_axes && nia != (size_t)m) || (out_axes && noa != k))
        return fail(c, "the scan axes do not match the %" PRId64 " scan inputs and %zu scan outputs", m, k);
    /* the scan inputs, less their scan axis (Scan 8: less the batch and sequence axes) */
    sg_val seq = sg_const(-1), batch = sg_const(-1);
    bool have_seq = false, have_batch = false;
    for (size_t i = 0; i < (size_t)m; i++) {
        shp x;
        if (in_shape(c, first + n + i, &x)) {
            int lead = v8 ? 2 : 1, a = 0;
            if (x.rank < lead)
                return fail(c, "scan input %zu has rank %d", i, x.rank);
            if (!v8)
                TRY(norm_axis(c, in_axes ? in_axes[i] : 0, x.rank, &a));
            else
                a = 1;
            if (!have_seq)
                seq = x.d[a], have_seq = true;
            if (v8 && !have_batch)
                batch = x.d[0], have_batch = true;
            memmove(x.d + a, x.d + a + 1, (size_t)(x.rank - a - 1) * sizeof *x.d);
            x.rank--;
            if (v8) {
                memmove(x.d, x.d + 1, (size_t)(x.rank - 1) * sizeof *x.d);
                x.rank--;
            }
        }
        TRY(set_body_input(c, body->inputs[n + i], &x));
    }
    shp *cur = malloc((n ? n : 1) * sizeof *cur);
    if (cur == NULL)
        return nomem(c);
    for (size_t j = 0; j < n; j++) {
        if (in_shape(c, first + j, &cur[j]) && v8) {
            if (cur[j].rank < 1) {
                free(cur);
                return fail(c, "state %zu has rank 0", j);
            }
            if (!have_batch)
                batch = cur[j].d[0], have_batch = true;
            memmove(cur[j].d, cur[j].d + 1, (size_t)(cur[j].rank - 1) * sizeof *cur[j].d);
            cur[j].rank--;
        }
    }
    sg_status st = carried_passes(c, b, body->inputs, body->outputs, n, cur);
    for (size_t j = 0; st == SG_OK && j < n; j++) {
        if (v8 && cur[j].rank >= 0) {
            memmove(cur[j].d + 1, cur[j].d, (size_t)cur[j].rank * sizeof *cur[j].d);
            cur[j].d[0] = have_batch ? batch : fresh(c, j, 0);
            cur[j].rank++;
        }
        st = set_out(c, j, &cur[j]);
    }
    free(cur);
    TRY(st);
    for (size_t j = 0; j < k && n + j < c->n->nout; j++) {
        shp s, o;
        o.rank = -1;
        if (t_shape(scope_tensor(c, body->outputs[n + j]), &s) && s.rank + 2 <= MAXR) {
            int a = 0;
            if (!v8)
                TRY(norm_axis(c, out_axes ? out_axes[j] : 0, s.rank + 1, &a));
            o.rank = 0;
            if (v8)
                o.d[o.rank++] = have_batch ? batch : fresh(c, n + j, 0);
            for (int i = 0; i <= s.rank; i++) {
                if (i == a) {
                    sg_val d = have_seq ? seq : fresh(c, n + j, o.rank);
                    o.d[o.rank++] = d;
                }
                if (i < s.rank)
                    o.d[o.rank++] = s.d[i];
            }
        }
        o.type = s.type;
        TRY(set_out(c, n + j, &o));
    }
    return SG_OK;
}

/* ---- the table of rules, and the walk ------------------------------------------------ */

/* ONNX's rows, of the default domain "", sorted by operator (strcmp
 * order). */
static const sg_gi_rule rules[] = {
    {"", "Abs", sg_gi_same, V_ABS, SA_DATA, false},
    {"", "Acos", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Acosh", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Add", r_bcast, B_ADD, SA_ANY, false},
    {"", "And", r_bcast, B_AND, SA_ANY, false},
    {"", "ArgMax", r_argminmax, 0, SA_NONE, false},
    {"", "ArgMin", r_argminmax, 0, SA_NONE, false},
    {"", "Asin", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Asinh", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Atan", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Atanh", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "AveragePool", r_pool, 0, SA_NONE, false},
    {"", "BatchNormalization", r_batch_norm, 0, SA_NONE, false},
    {"", "Bernoulli", r_like, 0, SA_NONE, false},
    {"", "BitShift", r_bcast, B_SHIFT, SA_ANY, false},
    {"", "BitwiseAnd", r_bcast, B_BITAND, SA_ANY, false},
    {"", "BitwiseNot", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "BitwiseOr", r_bcast, B_BITOR, SA_ANY, false},
    {"", "BitwiseXor", r_bcast, B_BITXOR, SA_ANY, false},
    {"", "Cast", r_cast, 0, SA_DATA, false},
    {"", "CastLike", r_cast, 1, SA_DATA, false},
    {"", "Ceil", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Celu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Clip", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Compress", r_compress, 0, SA_NONE, false},
    {"", "Concat", r_concat, 0, SA_ANY, false},
    {"", "Constant", r_constant, 0, SA_NONE, true},
    {"", "ConstantOfShape", r_constant_of_shape, 0, SA_NONE, false},
    {"", "Conv", r_conv, 0, SA_NONE, false},
    {"", "ConvInteger", r_conv, 1, SA_NONE, false},
    {"", "ConvTranspose", r_conv_transpose, 0, SA_NONE, false},
    {"", "Cos", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Cosh", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "CumSum", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "DepthToSpace", r_depth_space, 0, SA_NONE, false},
    {"", "DequantizeLinear", r_dequantize, 0, SA_NONE, false},
    {"", "Det", r_det, 0, SA_NONE, false},
    {"", "Div", r_bcast, B_DIV, SA_ANY, false},
    {"", "Dropout", r_dropout, 0, SA_NONE, false},
    {"", "DynamicQuantizeLinear", r_dynamic_quantize, 0, SA_NONE, false},
    {"", "Einsum", r_einsum, 0, SA_NONE, false},
    {"", "Elu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Equal", r_bcast, B_EQ, SA_ANY, false},
    {"", "Erf", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Exp", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Expand", r_expand, 0, SA_DATA, false},
    {"", "EyeLike", r_like, 0, SA_NONE, false},
    {"", "Flatten", r_flatten, 0, SA_DATA, false},
    {"", "Floor", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "GRU", r_rnn, 0, SA_NONE, false},
    {"", "Gather", r_gather, 0, SA_DATA, false},
    {"", "GatherElements", r_gather_elements, 0, SA_NONE, false},
    {"", "GatherND", r_gather_nd, 0, SA_NONE, false},
    {"", "Gelu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Gemm", r_gemm, 0, SA_NONE, false},
    {"", "GlobalAveragePool", r_global_pool, 0, SA_NONE, false},
    {"", "GlobalLpPool", r_global_pool, 0, SA_NONE, false},
    {"", "GlobalMaxPool", r_global_pool, 0, SA_NONE, false},
    {"", "Greater", r_bcast, B_GT, SA_ANY, false},
    {"", "GreaterOrEqual", r_bcast, B_GE, SA_ANY, false},
    {"", "GridSample", r_grid_sample, 0, SA_NONE, false},
    {"", "GroupNormalization", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "HardSigmoid", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "HardSwish", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Hardmax", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Identity", r_identity, 0, SA_DATA, false},
    {"", "If", r_if, 0, SA_NONE, false},
    {"", "InstanceNormalization", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "IsInf", sg_gi_same, OUT_BOOL, SA_NONE, false},
    {"", "IsNaN", sg_gi_same, OUT_BOOL, SA_NONE, false},
    {"", "LRN", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "LSTM", r_rnn, 0, SA_NONE, false},
    {"", "LayerNormalization", r_layer_norm, 0, SA_NONE, false},
    {"", "LeakyRelu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Less", r_bcast, B_LT, SA_ANY, false},
    {"", "LessOrEqual", r_bcast, B_LE, SA_ANY, false},
    {"", "Log", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "LogSoftmax", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Loop", r_loop, 0, SA_NONE, false},
    {"", "LpNormalization", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "LpPool", r_pool, 0, SA_NONE, false},
    {"", "MatMul", r_matmul, 0, SA_NONE, false},
    {"", "MatMulInteger", r_matmul, 1, SA_NONE, false},
    {"", "Max", r_bcast, B_MAX, SA_ANY, false},
    {"", "MaxPool", r_pool, 0, SA_NONE, false},
    {"", "MaxUnpool", r_max_unpool, 0, SA_NONE, false},
    {"", "Mean", r_bcast, B_MEAN, SA_ANY, false},
    {"", "MeanVarianceNormalization", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Min", r_bcast, B_MIN, SA_ANY, false},
    {"", "Mish", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Mod", r_bcast, B_MOD, SA_ANY, false},
    {"", "Mul", r_bcast, B_MUL, SA_ANY, false},
    {"", "Neg", sg_gi_same, V_NEG, SA_DATA, false},
    {"", "NonMaxSuppression", r_nms, 0, SA_NONE, false},
    {"", "NonZero", r_nonzero, 0, SA_NONE, false},
    {"", "Not", sg_gi_same, V_NOT, SA_DATA, false},
    {"", "OneHot", r_onehot, 0, SA_NONE, false},
    {"", "Or", r_bcast, B_OR, SA_ANY, false},
    {"", "PRelu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Pad", r_pad, 0, SA_NONE, false},
    {"", "Pow", r_bcast, B_POW, SA_ANY, false},
    {"", "QLinearConv", r_conv, 2, SA_NONE, false},
    {"", "QLinearMatMul", r_matmul, 2, SA_NONE, false},
    {"", "QuantizeLinear", r_quantize, 0, SA_NONE, false},
    {"", "RNN", r_rnn, 0, SA_NONE, false},
    {"", "RandomNormal", r_random, 0, SA_NONE, false},
    {"", "RandomNormalLike", r_like, 0, SA_NONE, false},
    {"", "RandomUniform", r_random, 0, SA_NONE, false},
    {"", "RandomUniformLike", r_like, 0, SA_NONE, false},
    {"", "Range", r_range, 0, SA_ANY, false},
    {"", "Reciprocal", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "ReduceL1", r_reduce, 18, SA_NONE, false},
    {"", "ReduceL2", r_reduce, 18, SA_NONE, false},
    {"", "ReduceLogSum", r_reduce, 18, SA_NONE, false},
    {"", "ReduceLogSumExp", r_reduce, 18, SA_NONE, false},
    {"", "ReduceMax", r_reduce, 18, SA_DATA, false},
    {"", "ReduceMean", r_reduce, 18, SA_NONE, false},
    {"", "ReduceMin", r_reduce, 18, SA_DATA, false},
    {"", "ReduceProd", r_reduce, 18, SA_DATA, false},
    {"", "ReduceSum", r_reduce, 13, SA_DATA, false},
    {"", "ReduceSumSquare", r_reduce, 18, SA_NONE, false},
    {"", "Relu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Reshape", r_reshape, 0, SA_DATA, false},
    {"", "Resize", r_resize, 0, SA_NONE, false},
    {"", "ReverseSequence", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "RoiAlign", r_roi_align, 0, SA_NONE, false},
    {"", "Round", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Scan", r_scan, 0, SA_NONE, false},
    {"", "Scatter", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "ScatterElements", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "ScatterND", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Selu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Shape", r_shape, 0, SA_ALWAYS, false},
    {"", "Shrink", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Sigmoid", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Sign", sg_gi_same, V_SIGN, SA_DATA, false},
    {"", "Sin", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Sinh", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Size", r_size, 0, SA_ALWAYS, false},
    {"", "Slice", sg_gi_slice, 0, SA_DATA, false},
    {"", "Softmax", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Softplus", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Softsign", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "SpaceToDepth", r_depth_space, 1, SA_NONE, false},
    {"", "Split", r_split, 0, SA_DATA, false},
    {"", "Sqrt", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Squeeze", r_squeeze, 0, SA_DATA, false},
    {"", "Sub", r_bcast, B_SUB, SA_ANY, false},
    {"", "Sum", r_bcast, B_SUM, SA_ANY, false},
    {"", "Tan", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Tanh", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "ThresholdedRelu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Tile", r_tile, 0, SA_DATA, false},
    {"", "TopK", r_topk, 0, SA_NONE, false},
    {"", "Transpose", r_transpose, 0, SA_DATA, false},
    {"", "Trilu", sg_gi_same, V_NONE, SA_NONE, false},
    {"", "Unique", r_unique, 0, SA_NONE, false},
    {"", "Unsqueeze", r_unsqueeze, 0, SA_DATA, false},
    {"", "Upsample", r_upsample, 0, SA_NONE, false},
    {"", "Where", sg_gi_where, 0, SA_BRANCHES, false},
    {"", "Xor", r_bcast, B_XOR, SA_ANY, false},
};

/* The rule of (domain, op), or NULL: ONNX's ("" and "ai.onnx") or
 * OpenVINO's ("openvino"). */
static const sg_gi_rule *find_rule(const char *domain, const char *op)
{
    const sg_gi_rule *table = rules;
    size_t lo = 0, hi = sizeof rules / sizeof *rules;
    if (domain == NULL || op == NULL)
        return NULL;
    if (strcmp(domain, "openvino") == 0)
        table = sg_gi_openvino_rules, hi = sg_gi_openvino_nrules;
    else if (domain[0] != '\0' && strcmp(domain, "ai.onnx") != 0)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(op, table[mid].op);
        if (d == 0)
            return &table[mid];
        if (d < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

bool sg_graph_has_rule(const char *domain, const char *op)
{
    return find_rule(domain, op) != NULL;
}

/* What the file states about output tensor ti, against what was inferred:
 * a conflict fails; what was not known is taken from the statement. */
static sg_status check_stated(ctx *c, int32_t ti)
{
    sg_graph *g = c->g;
    sg_gtensor *t = &g->tensors[ti];
    if (t->stated == NULL)
        return SG_OK;
    int srank =
        t->stated_rank <= MAXR && (t->stated_rank <= 0 || t->stated_dims != NULL) ? t->stated_rank : -1;
    bool bad = t->type != SG_GTYPE_UNKNOWN && t->stated_type != SG_GTYPE_UNKNOWN && t->type != t->stated_type;
    if (t->rank >= 0 && srank >= 0) {
        bad = bad || t->rank != srank;
        for (int i = 0; !bad && i < srank; i++)
            bad = sg_is_const(t->dims[i]) && sg_is_const(t->stated_dims[i]) &&
                  t->dims[i].k != t->stated_dims[i].k;
    }
    if (bad) {
        c->fatal = true;
        char a[200], b[200], name[SG_QUOTE_BUF(24)];
        return fail(c, "%s '%s' gives %s but the node makes %s",
                    t->stated, /* "value_info of", "graph output" */
                    sg_quote(t->name, strlen(t->name), 0, 24, name),
                    sg_gi_shape_text(c, t->stated_type, srank, t->stated_dims, a, sizeof a),
                    sg_gi_shape_text(c, t->type, t->rank, t->dims, b, sizeof b));
    }
    if (t->type == SG_GTYPE_UNKNOWN)
        t->type = t->stated_type;
    if (t->rank < 0 && srank >= 0) {
        if (!sg_graph_set_shape(g, ti, t->type, srank, t->stated_dims))
            return nomem(c);
    } else if (t->rank >= 0 && srank >= 0) {
        /* a dimension no rule could tell (a fresh symbol) takes the stated
         * one; one inferred from the inputs' symbols stays (the file may
         * state a size it was exported with) */
        for (int i = 0; i < srank; i++) {
            int64_t k = symbol_of(g, t->dims[i]);
            if (k >= 0 && (size_t)k >= c->nsym0)
                t->dims[i] = t->stated_dims[i];
        }
    }
    return SG_OK;
}

static sg_status infer_node(ctx *c, int32_t ni)
{
    sg_graph *g = c->g;
    if (--c->work < 0) {
        c->fatal = true;
        return sg_fail(c->err, SG_ERR_IO,
                       "subgraphs nested too deeply to infer (Loop or Scan bodies inferred "
                       "again and again)");
    }
    const sg_gnode *saved = c->n;
    int32_t saved_node = c->node;
    int saved_arg = c->arg;
    const sg_gnode *n = c->n = &g->nodes[ni];
    c->node = ni;
    const sg_gi_rule *r = find_rule(n->domain, n->op);
    bool preset = r != NULL && r->preset;
    for (size_t k = 0; k < n->nout; k++) {
        int32_t o = out_i(c, k);
        if (o < 0 || preset)
            continue;
        g->tensors[o].shape_arith = false;
        if (!sg_graph_set_shape(g, o, SG_GTYPE_UNKNOWN, -1, NULL) || !sg_graph_set_values(g, o, -1, NULL))
            g->ex.nomem = true;
    }
    sg_status st = SG_OK;
    if (r != NULL && !g->ex.nomem) {
        c->arg = r->arg;
        st = r->fn(c);
        /* inputs its operator cannot take (a bad attribute, shapes that do
         * not broadcast): not slicegen's to refuse; its outputs stay unknown,
         * and a slice reading them says so (a slice node's own faults are
         * the reader's to report, in its words) */
        if (st == SG_ERR_IO && !c->fatal) {
            *c->err = (sg_error){0};
            st = SG_OK;
            for (size_t k = 0; k < n->nout; k++) {
                int32_t o = out_i(c, k);
                if (o >= 0 && (!sg_graph_set_shape(g, o, SG_GTYPE_UNKNOWN, -1, NULL) ||
                               !sg_graph_set_values(g, o, -1, NULL)))
                    g->ex.nomem = true;
            }
        }
    }
    bool sa = r != NULL && r->shape_arith == SA_ALWAYS;
    for (size_t i = 0; st == SG_OK && r != NULL && !sa && i < n->nin; i++) {
        const sg_gtensor *t = in_t(c, i);
        if (r->shape_arith == SA_ANY || (r->shape_arith == SA_DATA && i == 0) ||
            (r->shape_arith == SA_BRANCHES && i > 0))
            sa = t != NULL && t->shape_arith;
    }
    for (size_t k = 0; st == SG_OK && k < n->nout; k++) {
        int32_t o = out_i(c, k);
        if (o < 0)
            continue;
        if (sa)
            g->tensors[o].shape_arith = true;
        st = check_stated(c, o);
    }
    if (st == SG_OK && g->ex.nomem)
        st = nomem(c);
    c->n = saved, c->node = saved_node, c->arg = saved_arg;
    return st;
}

static sg_status infer_scope(ctx *c, int32_t s)
{
    sg_graph *g = c->g;
    if (s < 0 || (size_t)s >= g->nscopes)
        return SG_OK;
    if (c->state[s] == 1) {
        c->fatal = true;
        return sg_fail(c->err, SG_ERR_IO, "subgraph '%s' contains itself", g->scopes[s].path);
    }
    if (c->depth >= MAX_DEPTH) {
        c->fatal = true;
        return sg_fail(c->err, SG_ERR_IO, "subgraphs nested more than %d deep", MAX_DEPTH);
    }
    c->depth++;
    c->state[s] = 1;
    sg_status st = SG_OK;
    const sg_gscope *scope = &g->scopes[s];
    for (size_t i = 0; st == SG_OK && i < scope->nnodes; i++)
        if (scope->nodes[i] >= 0 && (size_t)scope->nodes[i] < g->nnodes)
            st = infer_node(c, scope->nodes[i]);
    c->state[s] = 2;
    c->depth--;
    return st;
}

/* Small integer constants the reader left without values get them from
 * their bytes. */
static bool constant_values(sg_graph *g)
{
    for (size_t i = 0; i < g->ntensors; i++) {
        sg_gtensor *t = &g->tensors[i];
        int64_t n = t_count(t);
        if (!t->constant || t->raw == NULL || t->nvalues >= 0 || !is_int(t->type) || n < 0 || n > MAXV ||
            t->count != n)
            continue;
        sg_val v[MAXV];
        size_t size = sg_dtype_size((sg_dtype)t->type);
        for (int64_t k = 0; k < n; k++) {
            const unsigned char *p = (const unsigned char *)t->raw + (size_t)k * size;
            uint64_t u = 0;
            for (size_t b = 0; b < size; b++)
                u |= (uint64_t)p[b] << (8 * b);
            int64_t x = (int64_t)u;
            if (size < 8 && t->type != SG_U8 && t->type != SG_U16 && t->type != SG_U32 &&
                (u >> (8 * size - 1)))
                x = (int64_t)(u | ~(uint64_t)0 << (8 * size));
            v[k] = sg_const(t->type == SG_BOOL ? x != 0 : x);
        }
        if (!sg_graph_set_values(g, (int32_t)i, n, v))
            return false;
    }
    return true;
}

sg_status sg_graph_infer(sg_graph *g, sg_error *err)
{
    for (size_t i = 1; i < sizeof rules / sizeof *rules; i++)
        if (strcmp(rules[i].op, rules[i - 1].op) <= 0)
            return sg_fail(err, SG_ERR_INTERNAL, "the table of shape rules is not sorted at '%s'",
                           rules[i].op);
    for (size_t i = 1; i < sg_gi_openvino_nrules; i++)
        if (strcmp(sg_gi_openvino_rules[i].op, sg_gi_openvino_rules[i - 1].op) <= 0)
            return sg_fail(err, SG_ERR_INTERNAL, "the table of OpenVINO's shape rules is not sorted at '%s'",
                           sg_gi_openvino_rules[i].op);
    if (g->nscopes == 0)
        return SG_OK;
    ctx c = {.g = g, .err = err, .nsym0 = g->nsymbols};
    c.work = (int64_t)(g->nnodes < INT32_MAX ? g->nnodes : INT32_MAX) * 16 + 1000000;
    c.state = calloc(g->nscopes, 1);
    if (c.state == NULL || !constant_values(g)) {
        free(c.state);
        return sg_fail(err, SG_ERR_NOMEM, "failed to infer the model's shapes: out of memory");
    }
    sg_status st = infer_scope(&c, 0);
    /* subgraphs no rule reached (their owner has none) */
    for (size_t s = 1; st == SG_OK && s < g->nscopes; s++)
        if (c.state[s] == 0)
            st = infer_scope(&c, (int32_t)s);
    free(c.state);
    return st;
}

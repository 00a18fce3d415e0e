/*
 * Lowering a model graph's nodes to specs, once for both formats (see
 * lower.h): the table of rows below, the reading of a node's inputs by
 * role over the graph's tensors (a constant's elements, shape arithmetic
 * folded to constants, runtime values named role_0, role_1, ... whose
 * expressions of the model's symbols are kept where shape arithmetic gives
 * them), attributes from sg_gnode_attr, and the model's layers
 * (sg_model_from_graph).
 *
 * A row's lowering function reads its attributes and inputs, in the
 * operator's order, and makes one spec (one per output for a split) or
 * records the first skip reason. What a format may refuse in an input is
 * a fact (sg_lower_fault) its sg_lower_format words; what an operator
 * refuses is worded here, as that operator's format words it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "openvino_graph.h"

/* ---- nodes being lowered ------------------------------------------------------ */

typedef struct lnode lnode;

typedef struct role {
    const char *name;
    sg_lower_how how;
    bool required;
} role;

/* A row: the nodes of `domain` and `op` whose version (the largest of
 * `versions` not above the node's) the row names. */
typedef struct row {
    const char *domain, *op;
    int versions[8]; /* ascending, 0-terminated; {0}: every version */
    size_t nroles;
    role roles[5];   /* by input position */
    bool per_output; /* one layer per output, not one per node */
    sg_status (*lower)(lnode *n);
} row;

/* An input as read (read_input). */
typedef struct input {
    bool given;   /* present, and its numbers read */
    bool runtime; /* its elements are runtime values: refs */
    size_t len;
    int64_t *v;     /* len numbers (runtime values: zeros); malloc'd */
    uint16_t *refs; /* runtime values: len refs into lnode.values; malloc'd */
    size_t rank;    /* SG_IN_INDICES: its shape */
    int64_t dims[SG_MAX_RANK];
    bool have_fill; /* SG_IN_FILL: its element */
    sg_scalar fill;
    uint16_t fill_ref; /* SG_IN_FILL not constant: its element, the runtime value role_0 */
} input;

struct lnode {
    const sg_graph *g;
    const sg_lower_format *f;
    const sg_gnode *gn;
    const row *row;
    int version; /* of the row's versions; 0 for a row of every version */
    char who[SG_LOWER_WHO];
    sg_error *err;
    /* the data input */
    bool have_shape, have_dtype;
    size_t rank;
    int64_t shape[SG_MAX_RANK]; /* -1: known only at run time */
    sg_dtype dtype;
    input in[5];
    sg_value_table values;
    /* value k of `values` as shape arithmetic gives it (an expression of
     * the model's symbols in g), where known[k] */
    sg_val value_exprs[SG_MAX_VALUES];
    bool known[SG_MAX_VALUES];
    size_t nspecs; /* one per layer the node makes */
    sg_spec **specs;
    char reason[448]; /* the first skip reason */
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
skip(lnode *n, const char *fmt, ...)
{
    if (n->reason[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->reason, sizeof n->reason, fmt, ap);
    va_end(ap);
}

static bool skipped(const lnode *n)
{
    return n->reason[0] != '\0';
}

/* A malformed model: "<what>: <rule>". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static sg_status
bad(lnode *n, const char *fmt, ...)
{
    char text[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return sg_fail(n->err, SG_ERR_IO, "%s: %s", n->f->what, text);
}

static sg_status nomem_of(const sg_lower_format *f, sg_error *err)
{
    return sg_fail(err, SG_ERR_NOMEM, "%s: out of memory", f->what);
}

static sg_status nomem(lnode *n)
{
    return nomem_of(n->f, n->err);
}

static const char *show(const lnode *n, const char *text, char buf[SG_LOWER_SHOW])
{
    return n->f->show(text ? text : "", buf);
}

/* A constructor's failure is a skip reason, but for lack of memory. */
static sg_status made(lnode *n, const sg_error *lerr)
{
    if (lerr->status == SG_ERR_NOMEM)
        return nomem(n);
    if (lerr->status != SG_OK)
        skip(n, "%s", lerr->message);
    return SG_OK;
}

/* The tensor of input pos; -1 when absent. */
static int32_t in_tensor(const lnode *n, size_t pos)
{
    return pos < n->gn->nin ? n->gn->in[pos] : -1;
}

/* Fact `fault` about input pos, worded by the format: *refused when it
 * is a skip reason (the first one kept) or an error (returned). */
static sg_status say(lnode *n, sg_lower_fault fault, size_t pos, int64_t a, int64_t b, const char *text,
                     bool *refused)
{
    const role *r = pos < n->row->nroles ? &n->row->roles[pos] : NULL;
    sg_lower_fact fact = {fault,
                          n->gn,
                          n->who,
                          pos,
                          r ? r->name : "",
                          r ? r->how : SG_IN_DATA,
                          in_tensor(n, pos),
                          a,
                          b,
                          text,
                          n->have_dtype ? (int)n->dtype : SG_GTYPE_UNKNOWN};
    char reason[sizeof n->reason] = "";
    sg_status st = n->f->say(n->f->ctx, n->g, &fact, reason, sizeof reason, n->err);
    if (refused != NULL)
        *refused = st != SG_OK || reason[0] != '\0';
    if (st == SG_OK && reason[0] != '\0')
        skip(n, "%s", reason);
    return st;
}

/* ---- attributes ------------------------------------------------------------------ */

/* Attribute `name` (NULL when absent) of the type `type` names ("INT",
 * "INTS", "FLOAT", "STRING"); one the file gives another type, or gives
 * twice, is malformed. A typeless attribute (early writers made them)
 * counts as that type. */
static sg_status attr_of(lnode *n, const char *name, const char *type, const sg_gattr **out)
{
    *out = NULL;
    for (size_t i = 0; i < n->gn->nattrs; i++) {
        const sg_gattr *a = &n->gn->attrs[i];
        if (a->name == NULL || strcmp(a->name, name) != 0)
            continue;
        if (*out != NULL)
            return bad(n, "%s: attribute '%s' is given twice", n->who, name);
        *out = a;
    }
    if (*out != NULL && (*out)->file_type != NULL && strcmp((*out)->file_type, type) != 0)
        return bad(n, "%s: attribute '%s' must be of type %s (it is of type %s)", n->who, name, type,
                   (*out)->file_type);
    return SG_OK;
}

static sg_status attr_int(lnode *n, const char *name, int64_t fallback, int64_t *value, bool *given)
{
    const sg_gattr *a;
    sg_status st = attr_of(n, name, "INT", &a);
    *value = a ? a->i : fallback;
    if (given != NULL)
        *given = a != NULL;
    return st;
}

/* An ints attribute into l (l->given when present). */
static sg_status attr_ints(lnode *n, const char *name, bool required, input *l)
{
    const sg_gattr *a;
    if (attr_of(n, name, "INTS", &a) != SG_OK)
        return n->err->status;
    if (a == NULL && required)
        return bad(n, "%s: attribute '%s' is required", n->who, name);
    if (a == NULL)
        return SG_OK;
    size_t count = a->kind == SG_GATTR_INTS ? a->count : 0;
    l->given = true;
    l->len = count;
    if ((l->v = malloc(count ? count * sizeof *l->v : 1)) == NULL)
        return nomem(n);
    if (count)
        memcpy(l->v, a->ints, count * sizeof *l->v);
    return SG_OK;
}

/* The text of attribute `name` as the file writes it; NULL when absent. */
static const char *attr_text(const lnode *n, const char *name)
{
    const sg_gattr *a = sg_gnode_attr(n->gn, name);
    return a != NULL && a->kind == SG_GATTR_STRING ? (a->s ? a->s : "") : NULL;
}

/* ---- inputs ----------------------------------------------------------------------- */

/* Why tensor t of the graph has no known type or shape: the node that
 * makes it, or the first node before it with no shape rule. */
static const char *unknown_why(const lnode *n, int32_t t, char *buf, size_t size)
{
    const sg_graph *g = n->g;
    char shown[SG_LOWER_SHOW];
    for (int hops = 0; hops < 64 && t >= 0; hops++) {
        int32_t p = g->tensors[t].producer;
        if (p < 0)
            break;
        const sg_gnode *m = &g->nodes[p];
        const char *who = m->name[0] ? m->name : m->nout && m->out[0] >= 0 ? g->tensors[m->out[0]].name : "";
        if (!sg_graph_has_rule(m->domain, m->op)) {
            snprintf(buf, size, "node '%s' (%s%s%s) makes it, and slicegen has no shape rule for %s",
                     show(n, who, shown), m->domain, m->domain[0] ? "." : "", m->op, m->op);
            return buf;
        }
        int32_t next = -1; /* an input of unknown shape: the cause is further up */
        for (size_t i = 0; i < m->nin && next < 0; i++)
            if (m->in[i] >= 0 &&
                (g->tensors[m->in[i]].rank < 0 || g->tensors[m->in[i]].type == SG_GTYPE_UNKNOWN))
                next = m->in[i];
        if (next < 0) {
            snprintf(buf, size, "node '%s' (%s) makes it, from inputs that do not tell", show(n, who, shown),
                     m->op);
            return buf;
        }
        t = next;
    }
    snprintf(buf, size, "no graph input, value_info or output gives it");
    return buf;
}

/* Whether input pos of a node of the main graph reads a tensor nothing
 * makes (no producer, no constant, no graph input): malformed. */
static sg_status check_defined(lnode *n, size_t pos)
{
    int32_t t = in_tensor(n, pos);
    const sg_gtensor *x = &n->g->tensors[t];
    if (n->gn->scope != 0 || x->producer >= 0 || x->constant)
        return SG_OK;
    const sg_gscope *s = &n->g->scopes[0];
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i] == t)
            return SG_OK;
    return say(n, SG_LF_UNDEFINED, pos, 0, 0, NULL, NULL);
}

/* The data input (input 0): its element type and shape as shape inference
 * gives them (a file's statements included); what is not known, a rank
 * past SG_MAX_RANK or a type slicegen lacks are the format's facts. */
static sg_status read_data(lnode *n)
{
    int32_t t = in_tensor(n, 0);
    if (t < 0)
        return SG_OK; /* refused as required */
    if (check_defined(n, 0) != SG_OK)
        return n->err->status;
    const sg_gtensor *x = &n->g->tensors[t];
    char why[SG_LOWER_WHO + 64];
    if (x->type == SG_GTYPE_UNKNOWN || x->rank < 0)
        return say(n, SG_LF_DATA_UNKNOWN, 0, x->type == SG_GTYPE_UNKNOWN ? 0 : 1, 0,
                   unknown_why(n, t, why, sizeof why), NULL);
    if (x->rank > SG_MAX_RANK)
        return say(n, SG_LF_DATA_RANK, 0, x->rank, 0, NULL, NULL);
    n->have_shape = true;
    n->rank = (size_t)x->rank;
    for (int d = 0; d < x->rank; d++)
        n->shape[d] = sg_is_const(x->dims[d]) && x->dims[d].k >= 0 ? x->dims[d].k : -1;
    if (x->type == SG_GTYPE_OTHER)
        return say(n, SG_LF_DATA_TYPE, 0, 0, 0, NULL, NULL);
    n->have_dtype = true;
    n->dtype = (sg_dtype)x->type;
    return SG_OK;
}

static bool is_index_type(int type)
{
    return type == SG_I32 || type == SG_I64;
}

/* Whether x's elements are all known constants of an index type. */
static bool folded(const sg_gtensor *x)
{
    if (x->nvalues < 0 || x->rank < 0 || !is_index_type(x->type))
        return false;
    for (int64_t k = 0; k < x->nvalues; k++)
        if (!sg_is_const(x->values[k]))
            return false;
    return true;
}

/* The elements of constant tensor t (the format's), or of folded values. */
static sg_status constant_values(lnode *n, int32_t t, input *in)
{
    const sg_gtensor *x = &n->g->tensors[t];
    size_t count = x->constant ? (size_t)x->count : (size_t)x->nvalues;
    in->len = count;
    if ((in->v = malloc(count ? count * sizeof *in->v : 1)) == NULL)
        return nomem(n);
    if (!x->constant) {
        for (size_t k = 0; k < count; k++)
            in->v[k] = x->values[k].k;
        return SG_OK;
    }
    sg_scalar *values = NULL;
    if (n->f->constant(n->f->ctx, n->g, t, &values, n->err) != SG_OK)
        return n->err->status;
    for (size_t k = 0; k < count; k++)
        in->v[k] = values[k].kind == SG_SCALAR_UINT ? (int64_t)values[k].u : values[k].i;
    free(values);
    return SG_OK;
}

/* Element e of input pos, not constant, as the runtime value role_e in
 * *ref, with its expression of the model's symbols where shape arithmetic
 * gives it: SG_OK, or SG_ERR_NOMEM, or the value table's refusal (*why). */
static sg_status runtime_value(lnode *n, size_t pos, size_t e, uint16_t *ref, const char **why)
{
    const sg_gtensor *x = &n->g->tensors[in_tensor(n, pos)];
    char name[SG_VALUE_NAME_MAX + 1];
    int k = snprintf(name, sizeof name, "%s_%zu", n->row->roles[pos].name, e);
    sg_status st = sg_value_table_ref(&n->values, name, (size_t)k, ref, why);
    if (st == SG_OK && (int64_t)e < x->nvalues) { /* shape arithmetic: it follows from the symbols */
        n->value_exprs[*ref - 1] = x->values[e];
        n->known[*ref - 1] = true;
    }
    return st;
}

/* Input pos, not constant, as runtime values named role_0, role_1, ...,
 * one per element of its 1-D index type of known length. */
static sg_status read_runtime(lnode *n, size_t pos, input *in)
{
    const sg_gtensor *x = &n->g->tensors[in_tensor(n, pos)];
    bool refused = false;
    sg_status st = SG_OK;
    if (x->rank != 1)
        return say(n, SG_LF_RUNTIME_RANK, pos, x->rank, 0, NULL, NULL);
    if (!sg_is_const(x->dims[0]) || x->dims[0].k < 0)
        return say(n, SG_LF_RUNTIME_LENGTH, pos, 0, 0, NULL, NULL);
    if (!is_index_type(x->type))
        return say(n, SG_LF_RUNTIME_TYPE, pos, x->type, 0, NULL, NULL);
    if (x->dims[0].k > SG_MAX_VALUES &&
        ((st = say(n, SG_LF_RUNTIME_MANY, pos, x->dims[0].k, 0, NULL, &refused)) != SG_OK || refused))
        return st; /* a format that takes them leaves them to the value table */
    size_t len = (size_t)x->dims[0].k;
    in->len = len;
    in->v = calloc(len ? len : 1, sizeof *in->v);
    in->refs = calloc(len ? len : 1, sizeof *in->refs);
    if (in->v == NULL || in->refs == NULL)
        return nomem(n);
    for (size_t e = 0; e < len; e++) {
        const char *why = NULL;
        st = runtime_value(n, pos, e, &in->refs[e], &why);
        if (st == SG_ERR_NOMEM)
            return nomem(n);
        if (st != SG_OK) {
            free(in->v);
            free(in->refs);
            in->v = NULL, in->refs = NULL, in->len = 0;
            return say(n, SG_LF_RUNTIME_TABLE, pos, (int64_t)len, 0, why, NULL);
        }
    }
    in->runtime = true;
    return SG_OK;
}

/* Input pos, a fill value that is not constant, as the runtime value
 * role_0: one element (rank 0, or 1-D of one) of the data's type. */
static sg_status read_runtime_fill(lnode *n, size_t pos, input *in)
{
    const sg_gtensor *x = &n->g->tensors[in_tensor(n, pos)];
    bool refused = false;
    sg_status st = SG_OK;
    int64_t count = x->rank == 0 ? 1 : x->rank == 1 && sg_is_const(x->dims[0]) ? x->dims[0].k : -1;
    if (x->rank < 0 || x->rank > 1 || count != 1)
        return say(n, SG_LF_CONST_SHAPE, pos, x->rank, count, NULL, NULL);
    if (n->have_dtype && x->type != (int)n->dtype)
        st = say(n, SG_LF_CONST_TYPE, pos, 0, 0, NULL, &refused);
    if (st != SG_OK || refused || !n->have_dtype)
        return st;
    const char *why = NULL;
    st = runtime_value(n, pos, 0, &in->fill_ref, &why);
    if (st == SG_ERR_NOMEM)
        return nomem(n);
    if (st != SG_OK)
        return say(n, SG_LF_RUNTIME_TABLE, pos, 1, 0, why, NULL);
    return SG_OK;
}

/* Input pos read as its role says, into n->in[pos]: numbers (in->v), a
 * fill (in->fill), runtime values, a skip reason or a malformed model.
 * An absent input leaves in->given false. */
static sg_status read_input(lnode *n, size_t pos)
{
    input *in = &n->in[pos];
    int32_t t = in_tensor(n, pos);
    sg_lower_how how = n->row->roles[pos].how;
    bool refused = false;
    if (t < 0)
        return SG_OK;
    if (check_defined(n, pos) != SG_OK)
        return n->err->status;
    in->given = true;
    const sg_gtensor *x = &n->g->tensors[t];
    bool list = how == SG_IN_LIST || how == SG_IN_CONST_LIST;
    bool value = folded(x) && ((list && x->rank == 1) || how == SG_IN_INDICES ||
                               ((how == SG_IN_AXIS || how == SG_IN_FILL) && x->rank <= 1 && x->nvalues == 1));
    if (!x->constant && !value)
        return how == SG_IN_LIST   ? read_runtime(n, pos, in)
               : how == SG_IN_FILL ? read_runtime_fill(n, pos, in)
                                   : say(n, SG_LF_NOT_CONSTANT, pos, 0, 0, NULL, NULL);
    int64_t count = x->constant ? x->count : x->nvalues;
    sg_status st = SG_OK;
    if (how == SG_IN_FILL) {
        if (x->rank != 0 && (st = say(n, SG_LF_CONST_SHAPE, pos, x->rank, count, NULL, &refused)) != SG_OK)
            return st;
        if (!refused && n->have_dtype && x->type != (int)n->dtype)
            st = say(n, SG_LF_CONST_TYPE, pos, 0, 0, NULL, &refused);
        if (st != SG_OK || refused || !n->have_dtype || count != 1)
            return st;
        if (!x->constant) {
            in->have_fill = true;
            in->fill = (sg_scalar){.kind = SG_SCALAR_INT, .i = x->values[0].k};
            return SG_OK;
        }
        sg_scalar *values = NULL;
        if (n->f->constant(n->f->ctx, n->g, t, &values, n->err) != SG_OK)
            return n->err->status;
        in->have_fill = true;
        in->fill = values[0];
        free(values);
        return SG_OK;
    }
    if (!is_index_type(x->type))
        return say(n, SG_LF_CONST_TYPE, pos, 0, 0, NULL, NULL);
    if ((list && x->rank != 1) || (how == SG_IN_AXIS && (x->rank > 1 || x->rank < 0 || count != 1)))
        return say(n, SG_LF_CONST_SHAPE, pos, x->rank, count, NULL, NULL);
    if (count < 0 || count > SG_LOWER_LIST_MAX) {
        if ((st = say(n, SG_LF_CONST_LONG, pos, count, 0, NULL, &refused)) != SG_OK || refused || count < 0)
            return st;
    }
    if (how == SG_IN_INDICES) {
        in->rank = x->rank >= 0 ? (size_t)x->rank : SG_MAX_RANK + 1; /* past SG_MAX_RANK: refused */
        for (size_t d = 0; d < in->rank && d < SG_MAX_RANK; d++)
            in->dims[d] = sg_is_const(x->dims[d]) ? x->dims[d].k : -1;
    }
    return constant_values(n, t, in);
}

/* Every input of the row, in position order. */
static sg_status read_inputs(lnode *n, size_t from)
{
    for (size_t i = from; i < n->row->nroles; i++)
        if (read_input(n, i) != SG_OK)
            return n->err->status;
    return SG_OK;
}

/* ---- ONNX ------------------------------------------------------------------------ */

/* axis in [-rank, rank), made non-negative; else a skip reason. */
static int64_t onnx_axis(lnode *n, int64_t axis)
{
    if (axis < -(int64_t)n->rank || axis >= (int64_t)n->rank) {
        skip(n, "axis %lld is out of range for rank %zu", (long long)axis, n->rank);
        return 0;
    }
    return axis < 0 ? axis + (int64_t)n->rank : axis;
}

/* Slice-1 (attributes starts, ends, axes); Slice-10/11/13 (inputs data,
 * starts, ends, axes, steps; each of them may be runtime values). */
static sg_status onnx_slice(lnode *n)
{
    static const char *const roles[4] = {"starts", "ends", "axes", "steps"};
    input attrs[4] = {{0}}, *l = n->in + 1; /* starts, ends, axes, steps */
    sg_status st = SG_OK;
    if (n->version < 10) {
        for (int i = 0; i < 3 && st == SG_OK; i++)
            st = attr_ints(n, roles[i], i < 2, &attrs[i]);
        l = attrs;
    } else {
        st = read_inputs(n, 1); /* in input order: the values of starts, then ends, then steps */
    }
    for (int i = 1; i < 4 && st == SG_OK && !skipped(n); i++)
        if (l[i].given && l[i].len != l[0].len)
            skip(n, "inputs 'starts' and '%s' must have the same length (%zu and %zu)", roles[i], l[0].len,
                 l[i].len);
    if (st == SG_OK && !skipped(n)) {
        sg_error lerr = {0};
        sg_value_refs values = {{l[0].refs, l[1].refs, l[3].refs, l[2].refs}, 0, &n->values};
        sg_spec_make_onnx_slice(l[0].len, l[0].v, l[1].v, l[3].v, l[2].v, &values, &n->specs[0], &lerr);
        st = made(n, &lerr);
    }
    for (int i = 0; i < 3; i++)
        free(attrs[i].v);
    return st;
}

/* Pad-1 (attribute paddings), Pad-2 (pads, mode, value), Pad-11/13
 * (inputs data, pads, constant_value), Pad-18 (+ axes), Pad-19 (+ mode
 * wrap, which ONNX Runtime takes under every version). pads are
 * [x1_begin, x2_begin, ..., x1_end, x2_end, ...]. */
static sg_status onnx_pad(lnode *n)
{
    input attr = {0}, *pads = &n->in[1], *axes = &n->in[3];
    sg_scalar fill = {.kind = SG_SCALAR_FLOAT, .f = 0};
    sg_trt_mode mode = SG_TRT_FILL;
    const sg_gattr *a;
    char shown[SG_LOWER_SHOW];
    sg_status st = attr_of(n, "mode", "STRING", &a);
    if (st == SG_OK && a != NULL) {
        char text[16] = "";
        snprintf(text, sizeof text, "%s", a->s ? a->s : "");
        if (!sg_pad_mode_parse(a->s ? a->s : "", &mode))
            skip(n, "mode '%s' is not constant, edge, reflect or wrap", show(n, text, shown));
    }
    if (st == SG_OK && n->version < 11) {
        st = attr_ints(n, n->version < 2 ? "paddings" : "pads", true, &attr);
        pads = &attr;
        const sg_gattr *value;
        if (st == SG_OK && (st = attr_of(n, "value", "FLOAT", &value)) == SG_OK && value != NULL)
            fill.f = value->f;
    } else if (st == SG_OK) {
        if ((st = read_input(n, 1)) == SG_OK && n->version >= 18)
            st = read_input(n, 3);
        /* a constant_value of another mode than constant is checked if constant, else ignored */
        bool ignored = mode != SG_TRT_FILL && in_tensor(n, 2) >= 0 && !n->g->tensors[in_tensor(n, 2)].constant &&
                       !folded(&n->g->tensors[in_tensor(n, 2)]);
        if (st == SG_OK && !ignored && (st = read_input(n, 2)) == SG_OK && n->in[2].have_fill)
            fill = n->in[2].fill;
    }
    size_t half = pads->len / 2;
    if (st == SG_OK && !skipped(n)) {
        if (pads->len % 2 != 0)
            skip(n, "pads must have an even length (%zu)", pads->len);
        else if (axes->given && axes->len != half)
            skip(n, "pads must have two entries per axis (%zu pads for %zu axes)", pads->len, axes->len);
        else if (!axes->given && half != n->rank)
            skip(n, "pads must have two entries per dimension (%zu pads for rank %zu)", pads->len, n->rank);
    }
    if (st == SG_OK && !skipped(n)) {
        sg_error lerr = {0};
        sg_value_refs values = {{pads->refs, pads->refs ? pads->refs + half : NULL, NULL, axes->refs},
                                n->in[2].fill_ref, &n->values};
        sg_spec_make_pad(half, pads->v, pads->v + half, axes->v, mode, mode == SG_TRT_FILL ? &fill : NULL,
                         &values, &n->specs[0], &lerr);
        st = made(n, &lerr);
    }
    free(attr.v);
    return st;
}

/* Gather of one index on axis `axis` (counted from 0): a StridedSlice of
 * whole ranges before the axis and a shrink step on it; the index is the
 * runtime value `ref` where that is not 0. */
static sg_status gather_one(lnode *n, size_t axis, int64_t index, uint16_t ref)
{
    int64_t begin[SG_MAX_RANK] = {0}, end[SG_MAX_RANK] = {0}, masks[SG_MAX_RANK], shrink[SG_MAX_RANK] = {0};
    uint16_t begin_refs[SG_MAX_RANK] = {0};
    begin_refs[axis] = ref;
    for (size_t a = 0; a < axis; a++)
        masks[a] = 1;
    masks[axis] = 0;
    begin[axis] = index;
    end[axis] = index == INT64_MAX ? index : index + 1; /* ignored by the shrink step */
    shrink[axis] = 1;
    sg_strided_slice_args args = {
        .len = axis + 1,
        .begin = begin,
        .end = end,
        .begin_mask = {masks, axis + 1},
        .end_mask = {masks, axis + 1},
        .shrink_axis_mask = {shrink, axis + 1},
    };
    sg_error lerr = {0};
    sg_value_refs values = {{begin_refs, NULL, NULL}, 0, &n->values};
    sg_spec_make_strided_slice(&args, ref ? &values : NULL, &n->specs[0], &lerr);
    return made(n, &lerr);
}

/* Gather of an index tensor of rank 1 or more: a program of slices
 * (sg_gather_program); `role` names the indices in its reasons. */
static sg_status gather_program(lnode *n, size_t axis, const char *role)
{
    const input *in = &n->in[1];
    sg_error lerr = {0};
    if (sg_gather_program(n->rank, n->shape, (int64_t)axis, in->rank, in->dims, in->v, in->len, role,
                          &n->specs[0], n->reason, sizeof n->reason, &lerr) != SG_OK) {
        n->reason[0] = '\0'; /* out of memory: no reason, the error */
        return nomem(n);
    }
    return SG_OK;
}

/* Gather-1/11/13 with a constant index: of rank 0, one index
 * (gather_one); of a higher rank, a program. A scalar index known only at
 * run time is the runtime value indices_0 (ONNX Runtime refuses one out
 * of range, as the shrink step does). */
static sg_status onnx_gather(lnode *n)
{
    int64_t axis = 0;
    int32_t t = in_tensor(n, 1);
    const sg_gtensor *x = t >= 0 ? &n->g->tensors[t] : NULL;
    bool runtime = x != NULL && !x->constant && !folded(x) && x->rank == 0 && is_index_type(x->type);
    uint16_t ref = 0;
    if (attr_int(n, "axis", 0, &axis, NULL) != SG_OK)
        return n->err->status;
    if (runtime) {
        const char *why = NULL;
        sg_status st = check_defined(n, 1);
        if (st == SG_OK && (st = runtime_value(n, 1, 0, &ref, &why)) == SG_ERR_NOMEM)
            return nomem(n);
        if (st != SG_OK)
            return n->err->status != SG_OK ? n->err->status : say(n, SG_LF_RUNTIME_TABLE, 1, 1, 0, why, NULL);
    } else if (read_input(n, 1) != SG_OK) {
        return n->err->status;
    }
    axis = onnx_axis(n, axis);
    if (skipped(n))
        return SG_OK;
    if (!runtime && n->in[1].rank != 0)
        return gather_program(n, (size_t)axis, "input 'indices'");
    return gather_one(n, (size_t)axis, runtime ? 0 : n->in[1].v[0], ref);
}

/* The slices of a split of axis `axis` (given as `given`) into n->nspecs
 * parts of `sizes`: one Slice-8 spec each. */
static sg_status split_specs(lnode *n, int64_t given, const int64_t *sizes, const int64_t *starts)
{
    for (size_t k = 0; k < n->nspecs && !skipped(n); k++) {
        int64_t start = starts[k], stop = start + sizes[k], step = 1;
        sg_error lerr = {0};
        sg_spec_make_slice(1, &start, &stop, &step, &given, NULL, &n->specs[k], &lerr);
        if (made(n, &lerr) != SG_OK)
            return n->err->status;
    }
    return SG_OK;
}

/* The outputs of a split of n->nspecs sizes, runtime values where refs
 * says (NULL: none), or of an axis known only at run time: one Split spec
 * each, the sizes checked when a call is prepared. */
static sg_status split_sizes_specs(lnode *n, int64_t axis, const int64_t *sizes, const uint16_t *refs)
{
    sg_value_refs values = {{refs}, 0, &n->values};
    for (size_t k = 0; k < n->nspecs && !skipped(n); k++) {
        sg_error lerr = {0};
        sg_spec_make_split(n->nspecs, sizes, axis, k, refs ? &values : NULL, &n->specs[k], &lerr);
        if (made(n, &lerr) != SG_OK)
            return n->err->status;
    }
    return SG_OK;
}

/* The outputs of a split without sizes of an axis known only at run time:
 * one Split spec of `rule` each, the axis checked when a call is
 * prepared. */
static sg_status runtime_parts_specs(lnode *n, int64_t axis, sg_split_rule rule)
{
    for (size_t k = 0; k < n->nspecs && !skipped(n); k++) {
        sg_error lerr = {0};
        sg_spec_make_split_parts((int64_t)n->nspecs, rule, axis, k, &n->specs[k], &lerr);
        if (made(n, &lerr) != SG_OK)
            return n->err->status;
    }
    return SG_OK;
}

/* Split-1/2/11 (attribute split), 13 (input split), 18 (input split or
 * attribute num_outputs: pieces of ceil(dim / n), the last one smaller):
 * one Slice-8 spec per output; with sizes known only at run time (input
 * split not a constant), or none for an axis known only at run time, one
 * Split spec per output. */
static sg_status onnx_split(lnode *n)
{
    size_t outputs = n->nspecs;
    int64_t axis = 0, num_outputs = -1;
    input attr = {0}, *split = &n->in[1];
    bool given = false;
    sg_status st = attr_int(n, "axis", 0, &axis, NULL);
    if (st == SG_OK && n->version >= 18 &&
        (st = attr_int(n, "num_outputs", -1, &num_outputs, &given)) == SG_OK && !given)
        num_outputs = -1;
    if (st == SG_OK && (n->version >= 13 || n->version == 1))
        st = read_input(n, 1);
    if (st == SG_OK && n->version < 13 && !split->given) {
        st = attr_ints(n, "split", false, &attr);
        split = &attr;
    }
    if (st != SG_OK || skipped(n)) {
        free(attr.v);
        return st;
    }
    axis = onnx_axis(n, axis);
    int64_t dim = skipped(n) ? 0 : n->shape[axis];
    if (split->given && num_outputs != -1)
        skip(n, "both input 'split' and attribute 'num_outputs' are given");
    else if (n->version >= 18 && !split->given && num_outputs == -1)
        skip(n, "neither input 'split' nor attribute 'num_outputs' is given");
    else if (num_outputs != -1 && num_outputs != (int64_t)outputs)
        skip(n, "attribute 'num_outputs' is %lld, the node has %zu outputs", (long long)num_outputs, outputs);
    else if (split->given && split->len != outputs)
        skip(n, "input 'split' has %zu sizes, the node has %zu outputs", split->len, outputs);
    else if (!split->given && dim < 0) { /* parts of an axis known only at run time */
        free(attr.v);
        return runtime_parts_specs(n, axis, num_outputs != -1 ? SG_SPLIT_CHUNKS : SG_SPLIT_PARTS);
    } else if (num_outputs >= 1 && (dim / num_outputs + (dim % num_outputs != 0)) * (num_outputs - 1) >= dim)
        skip(n, /* num_outputs 1 of a dimension 0 included */
             "attribute 'num_outputs' %lld leaves the last output of dimension %lld empty or negative, which "
             "ONNX Runtime refuses",
             (long long)num_outputs, (long long)dim);
    else if (!split->given && num_outputs == -1 && dim % (int64_t)outputs != 0)
        skip(n, "dimension %lld does not split evenly into %zu outputs", (long long)dim, outputs);
    if (!skipped(n) && split->runtime) {
        free(attr.v);
        return split_sizes_specs(n, axis, split->v, split->refs);
    }
    int64_t *sizes = malloc(outputs * sizeof *sizes), *starts = malloc(outputs * sizeof *starts);
    if (sizes == NULL || starts == NULL) {
        free(sizes);
        free(starts);
        free(attr.v);
        return nomem(n);
    }
    int64_t piece = skipped(n) ? 0 : dim / (int64_t)outputs + (dim % (int64_t)outputs != 0), sum = 0;
    for (size_t k = 0; k < outputs; k++)
        sizes[k] = skipped(n)        ? 0
                   : split->given    ? split->v[k]
                   : k + 1 < outputs ? piece
                                     : dim - piece * (int64_t)(outputs - 1);
    for (size_t k = 0; k < outputs && !skipped(n); k++)
        if (sizes[k] < 0)
            skip(n, "split sizes must not be negative (split[%zu] = %lld)", k, (long long)sizes[k]);
        else if (__builtin_add_overflow(sum, sizes[k], &sum))
            skip(n, "split sizes overflow 64 bits");
    if (!skipped(n) && dim >= 0 && sum != dim)
        skip(n, "split sizes add up to %lld, the dimension is %lld", (long long)sum, (long long)dim);
    for (size_t k = 0, start = 0; k < outputs && !skipped(n); start += (size_t)sizes[k], k++)
        starts[k] = (int64_t)start;
    st = skipped(n) ? SG_OK : split_specs(n, axis, sizes, starts);
    free(sizes);
    free(starts);
    free(attr.v);
    return st;
}

/* ---- OpenVINO -------------------------------------------------------------------- */

static const char *const mask_names[5] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                                          "ellipsis_mask"};

/* An axis of the data (rank n->rank), as given, counted from 0 in *axis;
 * a skip reason when out of range. */
static bool ir_axis(lnode *n, const char *op, int64_t given, size_t *axis)
{
    int64_t rank = (int64_t)n->rank;
    if (given < -rank || given >= rank) {
        skip(n, "failed to make %s: axis %lld is out of range for data of rank %lld", op, (long long)given,
             (long long)rank);
        return false;
    }
    *axis = (size_t)(given < 0 ? given + rank : given);
    return true;
}

/* Index inputs 1.. given must have the length of input 1. */
static bool same_lengths(lnode *n)
{
    for (size_t i = 2; i < n->row->nroles; i++)
        if (n->in[i].given && n->in[i].len != n->in[1].len) {
            skip(n, "failed to make %s: %s and %s must have the same length (%zu and %zu)", n->row->op,
                 n->row->roles[1].name, n->row->roles[i].name, n->in[1].len, n->in[i].len);
            return false;
        }
    return true;
}

/* StridedSlice-1: masks from the attributes (begin_mask and end_mask
 * required), begin, end and stride from inputs 1-3. */
static sg_status ir_strided_slice(lnode *n)
{
    int64_t *masks[5] = {NULL};
    size_t mask_len[5] = {0};
    char shown[SG_LOWER_SHOW];
    sg_status st = SG_OK;
    for (int m = 0; m < 5 && st == SG_OK; m++) {
        const char *text = attr_text(n, mask_names[m]);
        sg_error lerr = {0};
        if (text == NULL && m < 2)
            st = bad(n, "missing attribute of StridedSlice (%s, attribute %s)", n->who, mask_names[m]);
        else if (text != NULL &&
                 sg_parse_mask_list(text, mask_names[m], &masks[m], &mask_len[m], &lerr) != SG_OK)
            st = lerr.status == SG_ERR_NOMEM ? nomem(n)
                                             : bad(n, "mask values must be 0 or 1 (%s, attribute %s = '%s')",
                                                   n->who, mask_names[m], show(n, text, shown));
    }
    if (st == SG_OK)
        st = read_inputs(n, 1);
    if (st == SG_OK && !skipped(n) && same_lengths(n)) {
        const input *in = n->in;
        sg_strided_slice_args a = {
            .len = in[1].len,
            .begin = in[1].v,
            .end = in[2].v,
            .stride = in[3].given ? in[3].v : NULL,
            .begin_mask = {masks[0], mask_len[0]},
            .end_mask = {masks[1], mask_len[1]},
            .new_axis_mask = {masks[2], mask_len[2]},
            .shrink_axis_mask = {masks[3], mask_len[3]},
            .ellipsis_mask = {masks[4], mask_len[4]},
        };
        sg_value_refs values = {{in[1].refs, in[2].refs, in[3].refs}, 0, &n->values};
        sg_error lerr = {0};
        sg_spec_make_strided_slice(&a, &values, &n->specs[0], &lerr);
        st = made(n, &lerr);
    }
    for (int m = 0; m < 5; m++)
        free(masks[m]);
    return st;
}

/* Slice-8: start, stop, step from inputs 1-3, axes from input 4 (each
 * may be runtime values). */
static sg_status ir_slice(lnode *n)
{
    if (read_inputs(n, 1) != SG_OK)
        return n->err->status;
    if (skipped(n) || !same_lengths(n))
        return SG_OK;
    const input *in = n->in;
    sg_value_refs values = {{in[1].refs, in[2].refs, in[3].refs, in[4].refs}, 0, &n->values};
    sg_error lerr = {0};
    sg_spec_make_slice(in[1].len, in[1].v, in[2].v, in[3].v, in[4].given ? in[4].v : NULL, &values,
                       &n->specs[0], &lerr);
    return made(n, &lerr);
}

/* Whether pads b and e of opposite signs crop an axis of n >= 0 elements
 * whole (n + min(b, 0) + min(e, 0) <= 0) and still pad it (n + b + e > 0);
 * no sum below can overflow. */
static bool crops_whole_and_pads(int64_t n, int64_t b, int64_t e)
{
    int64_t cut = b < 0 ? b : e, pad = b < 0 ? e : b;
    return (b < 0) != (e < 0) && n + cut <= 0 && pad + (n + cut) > 0;
}

/* Pad-1 and Pad-12: pad_mode, pads_begin and pads_end, pad_value (read
 * for constant only), as OpenVINO runs them. Its reference implementation
 * reads output element y of an axis from input element y - pads_begin of
 * the whole axis (clamped for edge, mirrored for reflect), while
 * slicegen's Pad crops negative pads first and pads what is left: the two
 * agree except for reflect with pads of opposite signs on one axis, and
 * edge with an axis cropped away whole but padded; those, and reflect with
 * pads known only at run time (Pad-12), are skip reasons. */
static sg_status ir_pad(lnode *n)
{
    const char *text = attr_text(n, "pad_mode");
    char shown[SG_LOWER_SHOW];
    sg_trt_mode mode = SG_TRT_STRICT;
    if (text == NULL)
        return bad(n, "missing attribute of Pad (%s, attribute pad_mode)", n->who);
    bool symmetric = strcmp(text, "symmetric") == 0;
    if (!sg_pad_mode_parse(text, &mode) || mode == SG_TRT_WRAP) /* OpenVINO's Pad has no wrap */
        mode = SG_TRT_STRICT;
    if (mode == SG_TRT_STRICT && !symmetric)
        return bad(n,
                   "unknown pad_mode (%s, attribute pad_mode = '%s'; expected constant, edge, reflect or "
                   "symmetric)",
                   n->who, show(n, text, shown));
    if (read_input(n, 1) != SG_OK || read_input(n, 2) != SG_OK ||
        (mode == SG_TRT_FILL && read_input(n, 3) != SG_OK))
        return n->err->status;
    const input *in = n->in;
    const int64_t *begin = in[1].v, *end = in[2].v;
    bool runtime = in[1].runtime || in[2].runtime;
    if (skipped(n))
        return SG_OK;
    if (symmetric) {
        skip(n, "pad_mode symmetric has no slicegen mode (constant, edge and reflect do)");
        return SG_OK;
    }
    if (in[1].len != n->rank || in[2].len != n->rank) {
        skip(n,
             "failed to make Pad: pads_begin and pads_end must have one element per data axis (%zu and %zu "
             "for rank %zu)",
             in[1].len, in[2].len, n->rank);
        return SG_OK;
    }
    if (n->version == 12 && mode == SG_TRT_REFLECT && runtime) {
        skip(n,
             "Pad-12 reflect with pads known only at run time: OpenVINO reflects pads of opposite signs off "
             "the uncropped axis, which slicegen's Pad cannot express");
        return SG_OK;
    }
    for (size_t a = 0; a < n->rank; a++) {
        int64_t b = begin[a], e = end[a], len = n->shape[a]; /* runtime values: 0 */
        const char *which = b < 0 ? "pads_begin" : "pads_end";
        if (n->version == 1 && (b < 0 || e < 0)) {
            skip(n, "Pad-1 takes no negative pads (%s[%zu] = %lld); Pad-12 crops", which, a,
                 (long long)(b < 0 ? b : e));
            return SG_OK;
        }
        if (mode == SG_TRT_REFLECT && ((b < 0 && e > 0) || (b > 0 && e < 0))) {
            skip(n,
                 "Pad-12 reflect with pads of opposite signs (axis %zu: pads_begin %lld, pads_end %lld): "
                 "OpenVINO reflects off the uncropped axis, which slicegen's Pad cannot express",
                 a, (long long)b, (long long)e);
            return SG_OK;
        }
        if (mode == SG_TRT_CLAMP && len >= 0 && crops_whole_and_pads(len, b, e)) {
            skip(n,
                 "Pad-12 edge that crops axis %zu of %lld elements whole and pads it (pads_begin %lld, "
                 "pads_end %lld): OpenVINO pads with the uncropped edge, which slicegen's Pad cannot express",
                 a, (long long)len, (long long)b, (long long)e);
            return SG_OK;
        }
    }
    sg_value_refs values = {{in[1].refs, in[2].refs, NULL}, in[3].fill_ref, &n->values};
    sg_error lerr = {0};
    sg_spec_make_pad(n->rank, begin, end, NULL, mode,
                     mode == SG_TRT_FILL && in[3].have_fill ? &in[3].fill : NULL, &values, &n->specs[0],
                     &lerr);
    return made(n, &lerr);
}

/* Gather-1/7/8: indices from input 1 (one index: gather_one, an array: a
 * program), the axis from input 2. Indices out of range of a static axis
 * are a skip reason (Gather-8 gives zeros there), as are negative ones
 * before Gather-8 and a batch_dims other than 0. */
static sg_status ir_gather(lnode *n)
{
    const char *text = attr_text(n, "batch_dims");
    char shown[SG_LOWER_SHOW];
    int64_t batch_dims = 0;
    size_t axis;
    if (n->version >= 7 && text != NULL && !sg_parse_int64(text, &batch_dims))
        return bad(n, "attribute is not an integer (%s, attribute batch_dims = '%s')", n->who,
                   show(n, text, shown));
    if (read_inputs(n, 1) != SG_OK)
        return n->err->status;
    const input *in = n->in;
    if (skipped(n) || !ir_axis(n, "Gather", in[2].v[0], &axis))
        return SG_OK;
    if (in[1].rank > 0) {
        if (n->version >= 7 && batch_dims != 0) {
            skip(n, "failed to make Gather: batch_dims must be 0 for an index array (batch_dims = %lld)",
                 (long long)batch_dims);
            return SG_OK;
        }
        for (size_t k = 0; n->version < 8 && k < in[1].len; k++)
            if (in[1].v[k] < 0) {
                skip(n, "Gather-%d takes no negative index (indices[%zu] = %lld); Gather-8 does", n->version,
                     k, (long long)in[1].v[k]);
                return SG_OK;
            }
        return gather_program(n, axis, "input 1 (indices)");
    }
    int64_t index = in[1].v[0], len = n->shape[axis];
    if (n->version >= 7 && batch_dims != 0)
        skip(n, "failed to make Gather: batch_dims must be 0 for a scalar index (batch_dims = %lld)",
             (long long)batch_dims);
    else if (n->version < 8 && index < 0)
        skip(n, "Gather-%d takes no negative index (indices = %lld); Gather-8 does", n->version,
             (long long)index);
    else if (len >= 0 && (index >= len || index < -len))
        skip(n, "failed to make Gather: index %lld is out of range for axis %zu of %lld elements",
             (long long)index, axis, (long long)len);
    return skipped(n) ? SG_OK : gather_one(n, axis, index, 0);
}

/* Split-1 (attribute num_splits: equal parts) and VariadicSplit-1
 * (split_lengths, one -1 for the rest): a Slice-8 of its part of the axis
 * per output port; on an axis of dynamic length a Split spec of equal
 * parts or of the lengths, checked when a call is prepared. An axis out
 * of range, an uneven Split, split_lengths with more than one -1 (or one
 * on a dynamic axis), another negative length or a sum other than the
 * axis's length is a skip reason. */
static sg_status ir_split(lnode *n)
{
    bool variadic = strcmp(n->row->op, "VariadicSplit") == 0;
    int64_t parts = (int64_t)n->nspecs, known = 0;
    size_t axis, unknown = SIZE_MAX, nout = n->nspecs;
    if (!variadic) {
        const char *text = attr_text(n, "num_splits");
        char shown[SG_LOWER_SHOW];
        int64_t num_splits = 0;
        sg_ir_count count = sg_ir_parse_count(text, &num_splits);
        if (count != SG_IR_COUNT_OK) {
            char message[256];
            sg_ir_count_message(count, n->who, "num_splits", show(n, text, shown), message, sizeof message);
            return bad(n, "%s", message);
        }
        if (num_splits == 0 || (uint64_t)num_splits != nout)
            return bad(n,
                       "num_splits must be the number of output ports (%s, attribute num_splits = %lld, %zu "
                       "output ports)",
                       n->who, (long long)num_splits, nout);
    }
    if (read_inputs(n, 1) != SG_OK)
        return n->err->status;
    const input *in = n->in;
    if (variadic && in[2].given && !in[2].runtime && in[2].v != NULL && in[2].len != nout)
        return bad(n,
                   "split_lengths must have one element per output port (%s has %zu output ports, "
                   "split_lengths %zu elements)",
                   n->who, nout, in[2].len);
    if (skipped(n) || !ir_axis(n, n->row->op, in[1].v[0], &axis))
        return SG_OK;
    int64_t len = n->shape[axis];
    if (len < 0 && !variadic) /* equal parts of a dynamic axis, checked when a call is prepared */
        return runtime_parts_specs(n, (int64_t)axis, SG_SPLIT_PARTS);
    bool rest = false; /* a -1 among split_lengths */
    for (size_t i = 0; variadic && i < nout; i++)
        rest = rest || in[2].v[i] == -1;
    if (len < 0 && !rest) /* lengths of a dynamic axis, checked to add up when a call is prepared */
        return split_sizes_specs(n, (int64_t)axis, in[2].v, NULL);
    if (len < 0) {
        skip(n,
             "failed to make %s: axis %zu has a dynamic dimension, so the part of the -1 in split_lengths is known "
             "only at run time",
             n->row->op, axis);
        return SG_OK;
    }
    if (!variadic && len % parts != 0) {
        skip(n, "failed to make Split: axis %zu of %lld elements does not split into %lld equal parts", axis,
             (long long)len, (long long)parts);
        return SG_OK;
    }
    const int64_t *lengths = in[2].v;
    for (size_t i = 0; variadic && i < nout; i++) {
        if (lengths[i] == -1 && unknown == SIZE_MAX) {
            unknown = i;
        } else if (lengths[i] < 0) {
            skip(n,
                 "failed to make VariadicSplit: split_lengths may hold one -1 and no other negative length "
                 "(split_lengths[%zu] = %lld)",
                 i, (long long)lengths[i]);
            return SG_OK;
        } else if (__builtin_add_overflow(known, lengths[i], &known)) {
            known = INT64_MAX;
        }
    }
    if (variadic && (unknown == SIZE_MAX ? known != len : known > len)) {
        skip(n, "failed to make VariadicSplit: split_lengths add up to %lld%s, axis %zu has %lld elements",
             (long long)known, unknown == SIZE_MAX ? "" : " besides the -1", axis, (long long)len);
        return SG_OK;
    }
    int64_t *sizes = malloc(nout * sizeof *sizes), *starts = malloc(nout * sizeof *starts);
    sg_status st = SG_OK;
    if (sizes == NULL || starts == NULL) {
        st = nomem(n);
    } else {
        for (size_t k = 0, start = 0; k < nout; start += (size_t)sizes[k], k++) { /* no sum passes len */
            sizes[k] = !variadic ? len / parts : k == unknown ? len - known : lengths[k];
            starts[k] = (int64_t)start;
        }
        st = split_specs(n, in[1].v[0], sizes, starts);
    }
    free(sizes);
    free(starts);
    return st;
}

/* ---- the table --------------------------------------------------------------------- */

#define DATA                                                                                                 \
    {                                                                                                        \
        "data", SG_IN_DATA, true                                                                             \
    }
#define OV SG_OPENVINO_DOMAIN

/* clang-format off */
static const row rows[] = {
    {"", "Slice", {1}, 1, {DATA}, false, onnx_slice},
    {"", "Slice", {10, 11, 13}, 5,
     {DATA, {"starts", SG_IN_LIST, true}, {"ends", SG_IN_LIST, true}, {"axes", SG_IN_LIST, false},
      {"steps", SG_IN_LIST, false}}, false, onnx_slice},
    {"", "Pad", {1, 2}, 1, {DATA}, false, onnx_pad},
    {"", "Pad", {11, 13}, 3, {DATA, {"pads", SG_IN_LIST, true}, {"constant_value", SG_IN_FILL, false}}, false,
     onnx_pad},
    {"", "Pad", {18, 19}, 4,
     {DATA, {"pads", SG_IN_LIST, true}, {"constant_value", SG_IN_FILL, false}, {"axes", SG_IN_LIST, false}},
     false, onnx_pad},
    {"", "Split", {1, 2, 11, 13, 18}, 2, {DATA, {"split", SG_IN_LIST, false}}, true, onnx_split},
    {"", "Gather", {1, 11, 13}, 2, {DATA, {"indices", SG_IN_INDICES, true}}, false, onnx_gather},
    {OV, "StridedSlice", {0}, 4,
     {DATA, {"begin", SG_IN_LIST, true}, {"end", SG_IN_LIST, true}, {"stride", SG_IN_LIST, false}}, false,
     ir_strided_slice},
    {OV, "Slice", {0}, 5,
     {DATA, {"start", SG_IN_LIST, true}, {"stop", SG_IN_LIST, true}, {"step", SG_IN_LIST, true},
      {"axes", SG_IN_LIST, false}}, false, ir_slice},
    {OV, "Pad", {1, 12}, 4,
     {DATA, {"pads_begin", SG_IN_LIST, true}, {"pads_end", SG_IN_LIST, true}, {"pad_value", SG_IN_FILL, false}},
     false, ir_pad},
    {OV, "Gather", {1, 7, 8}, 3, {DATA, {"indices", SG_IN_INDICES, true}, {"axis", SG_IN_AXIS, true}}, false,
     ir_gather},
    {OV, "Split", {0}, 2, {DATA, {"axis", SG_IN_AXIS, true}}, true, ir_split},
    {OV, "VariadicSplit", {0}, 3,
     {DATA, {"axis", SG_IN_AXIS, true}, {"split_lengths", SG_IN_CONST_LIST, true}}, true, ir_split},
};
/* clang-format on */

#undef DATA
#undef OV

/* The row of node n and its version there (*version 0: the row is of
 * every version, or n's is below all of the operator's, *versioned
 * false); NULL when no row lowers n. */
static const row *find_row(const sg_gnode *n, int *version, bool *versioned)
{
    const row *found = NULL;
    *version = 0;
    *versioned = true;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        if (strcmp(r->domain, n->domain) != 0 || strcmp(r->op, n->op) != 0)
            continue;
        if (r->versions[0] == 0)
            return r;
        if (found == NULL)
            found = r; /* the first: for a version below them all */
        for (const int *v = r->versions; *v; v++)
            if (*v <= n->version && *v > *version)
                *version = *v, found = r;
    }
    if (found != NULL && *version == 0)
        *versioned = false, *version = found->versions[0];
    return found;
}

/* ---- layers ----------------------------------------------------------------------- */

static char *copy_text(const char *text)
{
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    return copy ? memcpy(copy, text, n) : NULL;
}

/* Layer `out`, for output k of node n: its name (a subgraph's node after
 * its path: "If_0/then_branch/Slice_3"), id, type, data and spec (taken;
 * NULL when skipped) or reason; its numbers. */
static sg_status fill_layer(lnode *n, size_t k, sg_model_layer *out, sg_layer_numbers *numbers)
{
    const sg_gnode *gn = n->gn;
    const char *name = gn->name;
    if (name[0] == '\0' && n->f->unnamed_by_output && gn->nout > 0 && gn->out[0] >= 0)
        name = n->g->tensors[gn->out[0]].name;
    const char *path = n->g->scopes[gn->scope].path;
    char *full = malloc(strlen(path) + strlen(name) + 2);
    if (full != NULL)
        sprintf(full, "%s%s%s", path, path[0] ? "/" : "", name);
    out->name = full;
    out->id = gn->id;
    out->type = copy_text(gn->op);
    out->rank = n->have_shape ? n->rank : 0;
    out->dtype = n->have_dtype ? n->dtype : SG_BOOL;
    if (n->have_shape && n->rank > 0 && (out->shape = malloc(n->rank * sizeof *out->shape)) != NULL)
        memcpy((int64_t *)out->shape, n->shape, n->rank * sizeof *out->shape);
    sg_spec *spec = skipped(n) ? NULL : n->specs[k];
    if (spec != NULL) {
        n->specs[k] = NULL;
        out->spec = spec;
        out->spec_text = sg_spec_to_text(spec);
    } else {
        out->skip_reason = copy_text(n->reason[0] ? n->reason : "no spec");
    }
    if (out->name == NULL || out->type == NULL || (n->have_shape && n->rank > 0 && out->shape == NULL) ||
        (spec != NULL && out->spec_text == NULL) || (spec == NULL && out->skip_reason == NULL))
        return nomem(n);
    const sg_gtensor *data = gn->nin > 0 && gn->in[0] >= 0 ? &n->g->tensors[gn->in[0]] : NULL;
    if (spec != NULL && !sg_layer_numbers_make(numbers, n->g, data, out->rank, out->shape, spec, &n->values,
                                               n->value_exprs, n->known))
        return nomem(n);
    return SG_OK;
}

/* The faults of a node before its inputs: too many inputs, no output for
 * a node of one layer per output, a required input absent, a version of
 * none of the row's. */
static sg_status check_node(lnode *n, bool versioned)
{
    if (n->gn->nin > n->row->nroles &&
        say(n, SG_LF_TOO_MANY, 0, (int64_t)n->gn->nin, (int64_t)n->row->nroles, NULL, NULL) != SG_OK)
        return n->err->status;
    if (n->row->per_output && n->gn->nout == 0 && say(n, SG_LF_NO_OUTPUT, 0, 0, 0, NULL, NULL) != SG_OK)
        return n->err->status;
    for (size_t i = 0; i < n->row->nroles; i++)
        if (n->row->roles[i].required && in_tensor(n, i) < 0)
            return say(n, SG_LF_REQUIRED, i, 0, 0, NULL, NULL);
    return versioned ? SG_OK : say(n, SG_LF_NO_VERSION, 0, 0, 0, NULL, NULL);
}

/* Lowers graph node x (row r) into m's next layers: one, or one per
 * output. */
static sg_status lower_node(const sg_graph *g, const sg_lower_format *f, int32_t x, sg_model *m,
                            sg_error *err)
{
    lnode *n = calloc(1, sizeof *n);
    if (n == NULL)
        return nomem_of(f, err);
    *n = (lnode){.g = g, .f = f, .gn = &g->nodes[x], .err = err};
    bool versioned;
    n->row = find_row(n->gn, &n->version, &versioned);
    n->nspecs = n->row->per_output ? n->gn->nout : 1;
    f->who(f->ctx, g, n->gn, n->who);
    sg_status st = SG_OK;
    if ((n->specs = calloc(n->nspecs ? n->nspecs : 1, sizeof *n->specs)) == NULL)
        st = nomem(n);
    if (st == SG_OK && (st = check_node(n, versioned)) == SG_OK && (st = read_data(n)) == SG_OK)
        st = n->row->lower(n);
    for (size_t k = 0; k < n->nspecs && st == SG_OK; k++) {
        size_t at = m->nlayers++; /* counted first: sg_model_free frees what fill_layer made */
        st = fill_layer(n, k, &m->layers[at], &m->numbers[at]);
        if (st == SG_OK && f->check != NULL)
            st = f->check(f->ctx, g, n->gn, k, &m->layers[at], err);
    }
    for (size_t k = 0; n->specs != NULL && k < n->nspecs; k++)
        sg_spec_free(n->specs[k]);
    free(n->specs);
    for (size_t i = 0; i < 5; i++) {
        free(n->in[i].v);
        free(n->in[i].refs);
    }
    sg_value_table_free(&n->values);
    free(n);
    return st;
}

/* The row that makes node x a layer; NULL for no layer: another operator,
 * or one whose data input is shape arithmetic (*folded: folded into the
 * numbers of the kernels it feeds, not compiled). */
static const row *layer_row(const sg_graph *g, int32_t x, bool *folded)
{
    const sg_gnode *gn = &g->nodes[x];
    int version;
    bool versioned;
    const row *r = find_row(gn, &version, &versioned);
    *folded = r != NULL && gn->nin > 0 && gn->in[0] >= 0 && g->tensors[gn->in[0]].shape_arith;
    return *folded ? NULL : r;
}

typedef struct ordered {
    size_t file_index;
    int32_t node;
} ordered;

static int by_file_index(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    return (x->file_index > y->file_index) - (x->file_index < y->file_index);
}

sg_status sg_model_from_graph(const sg_graph *g, const sg_lower_format *f, sg_model **model, sg_error *err)
{
    size_t count = 0, nfolded = 0, most = 1;
    bool is_folded;
    for (size_t x = 0; x < g->nnodes; x++) {
        const row *r = layer_row(g, (int32_t)x, &is_folded);
        count += r == NULL ? 0 : r->per_output ? g->nodes[x].nout : 1;
        nfolded += is_folded;
    }
    for (size_t s = 0; s < g->nscopes; s++)
        most = g->scopes[s].nnodes > most ? g->scopes[s].nnodes : most;
    sg_model *m = calloc(1, sizeof *m);
    int32_t *layer_node = malloc((count ? count : 1) * sizeof *layer_node);
    ordered *order = malloc(most * sizeof *order);
    if (m == NULL || layer_node == NULL || order == NULL ||
        (m->layers = calloc(count ? count : 1, sizeof *m->layers)) == NULL ||
        (m->numbers = calloc(count ? count : 1, sizeof *m->numbers)) == NULL ||
        !sg_model_take_symbols(m, g)) {
        free(layer_node);
        free(order);
        sg_model_free(m);
        return nomem_of(f, err);
    }
    m->folded = nfolded;
    sg_status st = SG_OK;
    /* the main graph's nodes in the file's order, then each subgraph's */
    for (size_t s = 0; s < g->nscopes && st == SG_OK; s++) {
        const sg_gscope *scope = &g->scopes[s];
        for (size_t i = 0; i < scope->nnodes; i++)
            order[i] = (ordered){g->nodes[scope->nodes[i]].file_index, scope->nodes[i]};
        qsort(order, scope->nnodes, sizeof *order, by_file_index);
        for (size_t i = 0; i < scope->nnodes && st == SG_OK; i++) {
            size_t first = m->nlayers;
            if (layer_row(g, order[i].node, &is_folded) != NULL)
                st = lower_node(g, f, order[i].node, m, err);
            for (size_t k = first; k < m->nlayers; k++)
                layer_node[k] = order[i].node;
        }
    }
    if (st == SG_OK && !sg_model_read_flow(m, g, layer_node))
        st = nomem_of(f, err);
    free(layer_node);
    free(order);
    if (st != SG_OK) {
        sg_model_free(m);
        return st;
    }
    sg_model_keep_symbols(m);
    *model = m;
    return SG_OK;
}

sg_scalar sg_scalar_from_bits(sg_dtype dtype, uint64_t bits)
{
    size_t size = sg_dtype_size(dtype);
    switch (sg_dtype_kind_of(dtype)) {
    case SG_KIND_BOOL:
        return (sg_scalar){.kind = SG_SCALAR_BOOL, .i = bits != 0};
    case SG_KIND_FLOAT:
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = sg_float_bits_to_f64(dtype, bits)};
    case SG_KIND_SINT: { /* sign-extended: (u ^ sign) - sign, without overflow */
        uint64_t sign = (uint64_t)1 << (8 * size - 1);
        int64_t v = (bits & sign) ? -(int64_t)((sign - 1) - (bits & (sign - 1))) - 1 : (int64_t)bits;
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = v};
    }
    default: /* unsigned */
        if (bits > INT64_MAX)
            return (sg_scalar){.kind = SG_SCALAR_UINT, .u = bits};
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = (int64_t)bits};
    }
}

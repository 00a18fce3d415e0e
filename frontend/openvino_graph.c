/*
 * OpenVINO IR models as a model graph (graph.h): sg_openvino_decode_graph
 * decodes the layers openvino_ir.c parsed and checked (ids, ports, edges,
 * no cycle, Consts inside the weights) into an sg_graph, then runs shape
 * inference over it; OpenVINO's operators have their rules in
 * graph_infer_openvino.c.
 *
 * Every output port is a tensor that states the port's precision and
 * dimensions, which inference checks (a Parameter's are its input shape);
 * a dynamic dimension ("-1", "?", a range) is a symbol named after the
 * tensor ("conv:3_dim2"), or for a Parameter after the Parameter
 * ("image_dim2"), as ONNX's unnamed dimensions are. Layers become nodes
 * in an order where each comes after those it reads (the document's order
 * is free in IR).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openvino_graph.h"

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool same_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower((unsigned char)*a) != lower((unsigned char)*b))
            return false;
    return *a == *b;
}

int sg_ir_graph_type(const char *text)
{
    if (text == NULL)
        return SG_GTYPE_UNKNOWN;
    int type = sg_dtype_from_ir(text);
    if (type >= 0)
        return type;
    static const char *const unknown[] = {"dynamic", "unspecified", "undefined"}; /* any case */
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        if (same_nocase(text, unknown[i]))
            return SG_GTYPE_UNKNOWN;
    return SG_GTYPE_OTHER;
}

sg_ir_count sg_ir_parse_count(const char *text, int64_t *value)
{
    if (text == NULL)
        return SG_IR_COUNT_MISSING;
    const char *p = text;
    bool negative = *p == '-';
    p += negative;
    if (*p == '\0')
        return SG_IR_COUNT_NOT_NUMBER;
    int64_t v = 0;
    bool range = false;
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return SG_IR_COUNT_NOT_NUMBER;
        range = range || __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v);
    }
    if (negative)
        return SG_IR_COUNT_NEGATIVE;
    if (range)
        return SG_IR_COUNT_RANGE;
    *value = v;
    return SG_IR_COUNT_OK;
}

void sg_ir_count_message(sg_ir_count status, const char *where, const char *name, const char *shown,
                         char *buf, size_t size)
{
    switch (status) {
    case SG_IR_COUNT_OK:
    case SG_IR_COUNT_MISSING:
        snprintf(buf, size, "missing attribute (%s, attribute %s)", where, name);
        return;
    case SG_IR_COUNT_NOT_NUMBER:
        snprintf(buf, size, "attribute is not a non-negative integer (%s, attribute %s = '%s')", where, name,
                 shown);
        return;
    case SG_IR_COUNT_NEGATIVE:
        snprintf(buf, size, "attribute must not be negative (%s, attribute %s = '%s')", where, name, shown);
        return;
    case SG_IR_COUNT_RANGE:
        snprintf(buf, size, "attribute is out of range (%s, attribute %s = '%s', above 9223372036854775807)",
                 where, name, shown);
        return;
    }
}

static sg_status nomem(sg_error *err)
{
    return sg_fail(err, SG_ERR_NOMEM, "out of memory");
}

/* Output port k of layer l, tensor t: its name, and what it states. */
static bool state_port(sg_graph *g, const sg_ir_layer *l, size_t k, int32_t t)
{
    const sg_ir_port *p = &l->out[k];
    sg_gtensor *x = &g->tensors[t];
    bool parameter = strcmp(l->type, "Parameter") == 0;
    x->stated = "output port";
    x->stated_type = p->type;
    x->stated_rank = p->rank <= SG_MAX_RANK ? (int)p->rank : -1;
    if (x->stated_rank <= 0)
        return true;
    if ((x->stated_dims = malloc(p->rank * sizeof *x->stated_dims)) == NULL)
        return false;
    for (size_t d = 0; d < p->rank; d++) {
        if (p->dims[d] >= 0) {
            x->stated_dims[d] = sg_const(p->dims[d]);
            continue;
        }
        const char *base = parameter ? l->name : x->name;
        size_t n = strlen(base) + 32;
        char *name = malloc(n);
        if (name == NULL)
            return false;
        snprintf(name, n, "%s_dim%zu", base, d);
        x->stated_dims[d] = sg_graph_symbol(g, name);
        free(name);
    }
    return !g->ex.nomem;
}

/* The tensors of layer l's output ports, from tensor `first` on. */
static bool add_tensors(sg_graph *g, const sg_ir_layer *l, int32_t *first)
{
    *first = (int32_t)g->ntensors;
    for (size_t k = 0; k < l->nout; k++) {
        size_t n = strlen(l->name) + 32;
        char *name = malloc(n);
        if (name == NULL)
            return false;
        snprintf(name, n, "%s:%lld", l->name, (long long)l->out[k].id);
        int32_t t = sg_graph_add_tensor(g, name, 0);
        free(name);
        if (t < 0 || !state_port(g, l, k, t))
            return false;
    }
    return true;
}

/* Layer l as node `node`: its inputs, outputs and attributes; a
 * Parameter's output the graph's input, a Const's a constant, a Result's
 * input the graph's output. */
static bool add_node(sg_graph *g, const sg_ir_layer *l, size_t index, const int32_t *first)
{
    int32_t x =
        sg_graph_add_node(g, l->name, SG_OPENVINO_DOMAIN, l->type, l->version, 0, l->nin, l->nout, l->nattrs);
    if (x < 0 || !sg_graph_scope_add(g, 0, 0, x))
        return false;
    sg_gnode *n = &g->nodes[x];
    n->file_index = index;
    n->id = l->id;
    for (size_t i = 0; i < l->nin; i++)
        n->in[i] = l->in[i].layer == SIZE_MAX ? -1 : first[l->in[i].layer] + (int32_t)l->in[i].output;
    for (size_t k = 0; k < l->nout; k++) {
        n->out[k] = first[index] + (int32_t)k;
        g->tensors[n->out[k]].producer = x;
    }
    for (size_t a = 0; a < l->nattrs; a++) {
        const char *name = l->attrs[2 * a], *value = l->attrs[2 * a + 1];
        sg_gattr *out = &n->attrs[a];
        out->kind = SG_GATTR_STRING;
        if ((out->name = malloc(strlen(name) + 1)) == NULL || (out->s = malloc(strlen(value) + 1)) == NULL)
            return false;
        strcpy(out->name, name);
        strcpy(out->s, value);
    }
    if (strcmp(l->type, "Result") == 0 && l->nin == 1 && n->in[0] >= 0)
        return sg_graph_scope_add(g, 0, 2, n->in[0]);
    if (l->nout == 0)
        return true;
    int32_t t = n->out[0];
    const sg_gtensor *s = &g->tensors[t];
    if (strcmp(l->type, "Parameter") == 0) {
        int type = s->stated_type != SG_GTYPE_UNKNOWN ? s->stated_type : l->data_type;
        return sg_graph_scope_add(g, 0, 1, t) &&
               sg_graph_set_shape(g, t, type, s->stated_rank, s->stated_dims);
    }
    if (strcmp(l->type, "Const") == 0) {
        sg_val dims[SG_MAX_RANK];
        int rank = l->const_rank <= SG_MAX_RANK ? (int)l->const_rank : -1;
        for (int d = 0; d < rank; d++)
            dims[d] = sg_const(l->const_shape[d]);
        if (!sg_graph_set_shape(g, t, l->data_type, rank, dims))
            return false;
        g->tensors[t].constant = true;
        g->tensors[t].count = l->const_count;
        g->tensors[t].raw = l->raw;
    }
    return true;
}

sg_status sg_openvino_decode_graph(const sg_ir_layer *layers, size_t nlayers, const size_t *order,
                                   sg_graph *g, sg_error *err)
{
    int32_t *first = malloc((nlayers ? nlayers : 1) * sizeof *first);
    bool ok = first != NULL && sg_graph_add_scope(g, "", -1, -1) == 0;
    for (size_t i = 0; ok && i < nlayers; i++)
        ok = add_tensors(g, &layers[i], &first[i]);
    for (size_t i = 0; ok && i < nlayers; i++)
        ok = add_node(g, &layers[order[i]], order[i], first);
    free(first);
    if (!ok || g->ex.nomem)
        return nomem(err);
    return sg_graph_infer(g, err);
}

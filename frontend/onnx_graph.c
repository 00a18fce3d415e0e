/*
 * ONNX models as a model graph (graph.h): sg_onnx_decode_graph decodes a
 * model that onnx.c has unpacked and checked (wire format, initializers,
 * Constants, producers, node order) into an sg_graph, the main graph and
 * every subgraph of its nodes' attributes (If's branches, Loop's and
 * Scan's bodies), then runs shape inference over it. With onnx.c, the only
 * file that includes protobuf-c's code.
 *
 * Names: a node reads the tensor of that name that its own scope defines
 * (an input, an initializer, an earlier node's output), else the nearest
 * enclosing scope's, as ONNX resolves a subgraph's references to outer
 * values. A name nothing defines is a tensor of unknown type and shape
 * (onnx.c refuses a node of the main graph that reads a later node's
 * output, and a slice layer reading a name nothing makes).
 * Dimensions: dim_value a constant; dim_param a symbol of that name; a
 * dimension with neither a symbol named after its tensor ("x_dim2").
 * Small integer constants (initializers, Constant nodes) carry their
 * elements as values.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "onnx_graph.h"

/* Subgraphs nest at most this deep (the wire check bounds the file). */
enum { SCOPE_DEPTH_MAX = SG_ONNX_SUBGRAPH_DEPTH };

static const char *str(const char *s)
{
    return s ? s : "";
}

static bool default_domain(const char *domain)
{
    return domain == NULL || domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

/* ONNX's element type code as a graph type. */
static int graph_type(int32_t code)
{
    if (code <= 0)
        return SG_GTYPE_UNKNOWN;
    int type = sg_dtype_from_onnx(code);
    return type >= 0 ? type : SG_GTYPE_OTHER;
}

/* ONNX's name of an AttributeType ("INTS"), for messages. */
static const char *attribute_type_name(int type)
{
    static const char *const names[] = {"UNDEFINED",      "FLOAT",      "INT",        "STRING",
                                        "TENSOR",         "GRAPH",      "FLOATS",     "INTS",
                                        "STRINGS",        "TENSORS",    "GRAPHS",     "SPARSE_TENSOR",
                                        "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    return type >= 0 && type < 15 ? names[type] : "UNKNOWN";
}

/* ---- names ------------------------------------------------------------------- */

/* Every defined name, hashed: entries of one name chain, newest first. */
typedef struct name_entry {
    const char *name; /* the graph tensor's own copy */
    int32_t tensor, scope;
    int32_t next; /* the next entry of the same bucket, -1 at the end */
} name_entry;

typedef struct decoder {
    const Onnx__ModelProto *model;
    sg_graph *g;
    sg_error *err;
    int64_t opset;
    name_entry *names;
    size_t nnames, name_cap;
    int32_t *buckets;
    size_t nbuckets; /* a power of two */
} decoder;

static uint64_t hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

static sg_status nomem(decoder *d)
{
    return sg_fail(d->err, SG_ERR_NOMEM, "out of memory");
}

static bool rehash(decoder *d)
{
    size_t n = d->nbuckets ? 2 * d->nbuckets : 1024;
    int32_t *b = malloc(n * sizeof *b);
    if (b == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        b[i] = -1;
    for (size_t i = 0; i < d->nnames; i++) {
        size_t k = hash(d->names[i].name) & (n - 1);
        d->names[i].next = b[k];
        b[k] = (int32_t)i;
    }
    free(d->buckets);
    d->buckets = b;
    d->nbuckets = n;
    return true;
}

/* A new tensor `name` defined in `scope`. */
static int32_t define(decoder *d, const char *name, int32_t scope)
{
    int32_t t = sg_graph_add_tensor(d->g, name, scope);
    if (t < 0)
        return -1;
    if (name[0] == '\0')
        return t; /* unnamed: nobody reads it */
    if (d->nnames == d->name_cap) {
        size_t cap = d->name_cap ? 2 * d->name_cap : 1024;
        name_entry *p = realloc(d->names, cap * sizeof *p);
        if (p == NULL)
            return -1;
        d->names = p;
        d->name_cap = cap;
    }
    if (2 * d->nnames >= d->nbuckets && !rehash(d))
        return -1;
    size_t k = hash(name) & (d->nbuckets - 1);
    d->names[d->nnames] = (name_entry){d->g->tensors[t].name, t, scope, d->buckets[k]};
    d->buckets[k] = (int32_t)d->nnames++;
    return t;
}

/* Whether scope `inner` is `outer` or lies inside it. */
static bool within(const sg_graph *g, int32_t inner, int32_t outer)
{
    for (int32_t s = inner; s >= 0; s = g->scopes[s].parent)
        if (s == outer)
            return true;
    return false;
}

/* The tensor `name` as scope `scope` sees it, or -1. */
static int32_t resolve(const decoder *d, const char *name, int32_t scope)
{
    if (d->nbuckets == 0)
        return -1;
    int32_t best = -1, best_scope = -1;
    for (int32_t e = d->buckets[hash(name) & (d->nbuckets - 1)]; e >= 0; e = d->names[e].next) {
        const name_entry *n = &d->names[e];
        if (strcmp(n->name, name) != 0 || !within(d->g, scope, n->scope))
            continue;
        if (best < 0 || within(d->g, n->scope, best_scope)) /* the nearest scope's */
            best = n->tensor, best_scope = n->scope;
    }
    return best;
}

/* ---- tensors ------------------------------------------------------------------ */

/* The dimensions of a stated shape: constants, symbols of dim_params, or
 * symbols named after the tensor. */
static bool stated_dims(decoder *d, const char *tensor, const Onnx__TensorShapeProto *shape, sg_val *dims)
{
    for (size_t i = 0; i < shape->n_dim && i < SG_MAX_RANK; i++) {
        const Onnx__TensorShapeProto__Dimension *dim = shape->dim[i];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value >= 0) {
            dims[i] = sg_const(dim->dim_value);
        } else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                   str(dim->dim_param)[0] != '\0') {
            dims[i] = sg_graph_symbol(d->g, dim->dim_param);
        } else {
            char name[256];
            snprintf(name, sizeof name, "%s_dim%zu", tensor, i);
            dims[i] = sg_graph_symbol(d->g, name);
        }
    }
    return !d->g->ex.nomem;
}

/* What a ValueInfoProto states of tensor t (`list` names where). A graph
 * or subgraph input takes it as its type and shape. */
static sg_status state(decoder *d, int32_t t, const Onnx__ValueInfoProto *v, const char *list, bool input)
{
    const Onnx__TypeProto *type = v->type;
    if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || type->tensor_type == NULL)
        return SG_OK; /* a sequence, map or optional, or nothing: not stated */
    const Onnx__TypeProto__Tensor *tt = type->tensor_type;
    sg_gtensor *x = &d->g->tensors[t];
    int gtype = tt->has_elem_type ? graph_type(tt->elem_type) : SG_GTYPE_UNKNOWN;
    int rank = tt->shape != NULL && tt->shape->n_dim <= SG_MAX_RANK ? (int)tt->shape->n_dim : -1;
    sg_val dims[SG_MAX_RANK];
    if (rank > 0 && !stated_dims(d, x->name, tt->shape, dims))
        return nomem(d);
    if (x->stated == NULL) {
        x->stated = list;
        x->stated_type = gtype;
        x->stated_rank = rank;
        if (rank > 0) {
            if ((x->stated_dims = malloc((size_t)rank * sizeof *dims)) == NULL)
                return nomem(d);
            memcpy(x->stated_dims, dims, (size_t)rank * sizeof *dims);
        }
    }
    if (input && x->type == SG_GTYPE_UNKNOWN && !sg_graph_set_shape(d->g, t, gtype, rank, dims))
        return nomem(d);
    return SG_OK;
}

/* Element k of an integer tensor's data, when the file holds it in the
 * model (raw_data, int32_data or int64_data); false when not. */
static bool int_element(const Onnx__TensorProto *t, int type, size_t k, int64_t *v)
{
    size_t size = sg_dtype_size((sg_dtype)type);
    if (t->has_raw_data) {
        if (t->raw_data.len < (k + 1) * size)
            return false;
        const uint8_t *p = t->raw_data.data + k * size;
        uint64_t u = 0;
        for (size_t b = 0; b < size; b++)
            u |= (uint64_t)p[b] << (8 * b);
        bool sign = type == SG_I8 || type == SG_I16 || type == SG_I32 || type == SG_I64;
        if (sign && size < 8 && (u >> (8 * size - 1)) & 1)
            u |= ~(uint64_t)0 << (8 * size);
        *v = (int64_t)u; /* u64 above INT64_MAX wraps: such an index is out of every range anyway */
        return true;
    }
    if (type == SG_I64 && k < t->n_int64_data)
        return *v = t->int64_data[k], true;
    if (type == SG_U64 || type == SG_U32)
        return false; /* uint64_data: not read here */
    if (k < t->n_int32_data)
        return *v = t->int32_data[k], true;
    return false;
}

/* A constant tensor (an initializer, a Constant's value) into tensor t:
 * its type and shape, and its elements when it is a small integer one.
 * onnx.c checked the main graph's constants; a subgraph's are checked
 * here: no negative dimension, raw_data of the bytes its elements need. */
static sg_status constant(decoder *d, int32_t t, const Onnx__TensorProto *c)
{
    int type = graph_type(c->data_type);
    sg_val dims[SG_MAX_RANK];
    int64_t count = 1;
    const char *path = d->g->scopes[d->g->tensors[t].scope].path;
    if (c->n_dims > SG_MAX_RANK)
        return sg_graph_set_shape(d->g, t, type, -1, NULL) ? SG_OK : nomem(d);
    for (size_t i = 0; i < c->n_dims; i++) {
        if (c->dims[i] < 0) /* the main graph's constants: onnx.c refused this first */
            return sg_fail(d->err, SG_ERR_IO,
                           "%s: constant '%.64s': a dimension is negative (dims[%zu] = %lld)", path,
                           str(c->name), i, (long long)c->dims[i]);
        dims[i] = sg_const(c->dims[i]);
        count = count >= 0 && count <= INT64_MAX / (c->dims[i] ? c->dims[i] : 1) ? count * c->dims[i] : -1;
    }
    size_t size = type >= 0 ? sg_dtype_size((sg_dtype)type) : 0;
    if (c->has_raw_data && size > 0 &&
        (count < 0 || (uint64_t)count > SIZE_MAX / size || c->raw_data.len != (size_t)count * size))
        return sg_fail(d->err, SG_ERR_IO,
                       "%s: constant '%.64s': raw_data has %zu bytes, not those of its %lld elements", path,
                       str(c->name), c->raw_data.len, (long long)count);
    if (!sg_graph_set_shape(d->g, t, type, (int)c->n_dims, dims))
        return nomem(d);
    sg_gtensor *x = &d->g->tensors[t];
    x->constant = true;
    x->count = count;
    x->raw = c->has_raw_data && size > 0 ? c->raw_data.data : NULL;
    x->source = c;
    bool integer =
        type >= 0 && (type == SG_BOOL || type == SG_I8 || type == SG_U8 || type == SG_I16 || type == SG_U16 ||
                      type == SG_I32 || type == SG_U32 || type == SG_I64 || type == SG_U64);
    if (!integer || count < 0 || count > SG_GRAPH_MAX_VALUES)
        return SG_OK;
    sg_val values[SG_GRAPH_MAX_VALUES];
    for (int64_t k = 0; k < count; k++) {
        int64_t v;
        if (!int_element(c, type, (size_t)k, &v))
            return SG_OK; /* external data, or not in the model: no values */
        values[k] = sg_const(type == SG_BOOL ? v != 0 : v);
    }
    return sg_graph_set_values(d->g, t, count, values) ? SG_OK : nomem(d);
}

/* A Constant node's value_int(s) or value_float(s) into tensor t. */
static sg_status constant_attribute(decoder *d, int32_t t, const Onnx__AttributeProto *a)
{
    const char *name = str(a->name);
    bool ints = strcmp(name, "value_ints") == 0, floats = strcmp(name, "value_floats") == 0;
    bool one_int = strcmp(name, "value_int") == 0, one_float = strcmp(name, "value_float") == 0;
    if (!ints && !floats && !one_int && !one_float)
        return SG_OK;
    int64_t n = ints ? (int64_t)a->n_ints : floats ? (int64_t)a->n_floats : 1;
    sg_val dims[1] = {sg_const(n)};
    if (!sg_graph_set_shape(d->g, t, ints || one_int ? SG_I64 : SG_F32, ints || floats, dims))
        return nomem(d);
    d->g->tensors[t].constant = true;
    d->g->tensors[t].count = n;
    if (floats || one_float || n > SG_GRAPH_MAX_VALUES)
        return SG_OK;
    sg_val values[SG_GRAPH_MAX_VALUES];
    for (int64_t k = 0; k < n; k++)
        values[k] = sg_const(ints ? a->ints[k] : a->i);
    return sg_graph_set_values(d->g, t, n, values) ? SG_OK : nomem(d);
}

/* ---- graphs ------------------------------------------------------------------- */

static sg_status decode_scope(decoder *d, const Onnx__GraphProto *graph, int32_t scope, unsigned depth);

/* Node `file_index` of a graph into scope `scope`. */
static sg_status decode_node(decoder *d, const Onnx__NodeProto *n, size_t file_index, int32_t scope,
                             unsigned depth)
{
    sg_graph *g = d->g;
    const char *domain = default_domain(n->domain) ? "" : n->domain;
    int64_t version = d->opset;
    if (domain[0] != '\0') {
        version = 1;
        for (size_t i = 0; i < d->model->n_opset_import; i++)
            if (strcmp(str(d->model->opset_import[i]->domain), domain) == 0)
                version = d->model->opset_import[i]->version;
    }
    int32_t x = sg_graph_add_node(g, str(n->name), domain, str(n->op_type), version, scope, n->n_input,
                                  n->n_output, n->n_attribute);
    if (x < 0 || !sg_graph_scope_add(g, scope, 0, x))
        return nomem(d);
    g->nodes[x].file_index = file_index;
    g->nodes[x].id = scope == 0 ? (int64_t)file_index : (int64_t)d->model->graph->n_node + x;
    g->nodes[x].source = n;
    for (size_t i = 0; i < n->n_input; i++) {
        const char *name = str(n->input[i]);
        if (name[0] == '\0')
            continue; /* an optional input left out */
        int32_t t = resolve(d, name, scope);
        if (t < 0 && (t = define(d, name, scope)) < 0) /* made by nothing: a tensor nothing tells of */
            return nomem(d);
        g->nodes[x].in[i] = t;
    }
    for (size_t a = 0; a < n->n_attribute; a++) {
        const Onnx__AttributeProto *attr = n->attribute[a];
        sg_gattr *out = &g->nodes[x].attrs[a];
        size_t len = strlen(str(attr->name)) + 1;
        if ((out->name = malloc(len)) == NULL)
            return nomem(d);
        memcpy(out->name, str(attr->name), len);
        out->kind = SG_GATTR_OTHER;
        out->i = attr->i;
        out->f = attr->f;
        out->file_type = attr->has_type ? attribute_type_name(attr->type) : NULL;
        if (attr->g != NULL) {
            char path[512];
            snprintf(path, sizeof path, "%s%s%s/%s", g->scopes[scope].path,
                     g->scopes[scope].path[0] ? "/" : "",
                     str(n->name)[0] ? n->name
                     : n->n_output   ? str(n->output[0])
                                     : str(n->op_type),
                     out->name);
            int32_t sub = sg_graph_add_scope(g, path, scope, x);
            if (sub < 0)
                return nomem(d);
            out->kind = SG_GATTR_GRAPH;
            out->scope = sub;
            sg_status st = decode_scope(d, attr->g, sub, depth + 1);
            if (st != SG_OK)
                return st;
        } else if (attr->t != NULL) {
            int32_t t = sg_graph_add_tensor(g, "", scope);
            if (t < 0)
                return nomem(d);
            sg_status st = constant(d, t, attr->t);
            if (st != SG_OK)
                return st;
            out->kind = SG_GATTR_TENSOR;
            out->tensor = t;
        } else if (attr->n_ints > 0 ||
                   (attr->has_type && attr->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)) {
            out->kind = SG_GATTR_INTS;
            out->count = attr->n_ints;
            if ((out->ints = malloc(attr->n_ints ? attr->n_ints * sizeof *out->ints : 1)) == NULL)
                return nomem(d);
            if (attr->n_ints)
                memcpy(out->ints, attr->ints, attr->n_ints * sizeof *out->ints);
        } else if (attr->n_floats > 0 ||
                   (attr->has_type && attr->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)) {
            out->kind = SG_GATTR_FLOATS;
            out->count = attr->n_floats;
            if ((out->floats = malloc(attr->n_floats ? attr->n_floats * sizeof *out->floats : 1)) == NULL)
                return nomem(d);
            for (size_t k = 0; k < attr->n_floats; k++)
                out->floats[k] = attr->floats[k];
        } else if (attr->has_s) {
            out->kind = SG_GATTR_STRING;
            if ((out->s = malloc(attr->s.len + 1)) == NULL)
                return nomem(d);
            if (attr->s.len)
                memcpy(out->s, attr->s.data, attr->s.len);
            out->s[attr->s.len] = '\0';
        } else if (attr->has_f) {
            out->kind = SG_GATTR_FLOAT;
            out->f = attr->f;
        } else if (attr->has_i ||
                   (attr->has_type && attr->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)) {
            out->kind = SG_GATTR_INT;
            out->i = attr->i;
        }
    }
    for (size_t o = 0; o < n->n_output; o++) {
        const char *name = str(n->output[o]);
        if (name[0] == '\0')
            continue;
        int32_t t = define(d, name, scope);
        if (t < 0)
            return nomem(d);
        g->tensors[t].producer = x;
        g->nodes[x].out[o] = t;
    }
    /* a Constant's outputs are known now */
    if (strcmp(str(n->op_type), "Constant") == 0 && domain[0] == '\0' && n->n_output >= 1 &&
        g->nodes[x].out[0] >= 0 && n->n_attribute == 1) {
        const Onnx__AttributeProto *a = n->attribute[0];
        sg_status st = a->t != NULL ? constant(d, g->nodes[x].out[0], a->t)
                                    : constant_attribute(d, g->nodes[x].out[0], a);
        if (st != SG_OK)
            return st;
    }
    return SG_OK;
}

static sg_status decode_scope(decoder *d, const Onnx__GraphProto *graph, int32_t scope, unsigned depth)
{
    sg_graph *g = d->g;
    if (depth > SCOPE_DEPTH_MAX)
        return sg_fail(d->err, SG_ERR_IO, "%s: subgraphs nest deeper than %d levels", g->scopes[scope].path,
                       SCOPE_DEPTH_MAX);
    for (size_t i = 0; i < graph->n_initializer; i++) {
        const Onnx__TensorProto *c = graph->initializer[i];
        int32_t t = define(d, str(c->name), scope);
        sg_status st = t < 0 ? nomem(d) : constant(d, t, c);
        if (st != SG_OK)
            return st;
    }
    for (size_t i = 0; i < graph->n_input; i++) {
        const Onnx__ValueInfoProto *v = graph->input[i];
        int32_t t = resolve(d, str(v->name), scope);
        if (t < 0 || d->g->tensors[t].scope != scope || !d->g->tensors[t].constant) /* not its default */
            t = define(d, str(v->name), scope);
        if (t < 0 || !sg_graph_scope_add(g, scope, 1, t))
            return nomem(d);
        sg_status st = state(d, t, v, scope == 0 ? "graph input" : "subgraph input", true);
        if (st != SG_OK)
            return st;
    }
    for (size_t i = 0; i < graph->n_node; i++) {
        sg_status st = decode_node(d, graph->node[i], i, scope, depth);
        if (st != SG_OK)
            return st;
    }
    for (size_t i = 0; i < graph->n_value_info; i++) {
        int32_t t = resolve(d, str(graph->value_info[i]->name), scope);
        sg_status st = t < 0 ? SG_OK : state(d, t, graph->value_info[i], "value_info of", false);
        if (st != SG_OK)
            return st;
    }
    for (size_t i = 0; i < graph->n_output; i++) {
        int32_t t = resolve(d, str(graph->output[i]->name), scope);
        if (t < 0)
            return sg_fail(d->err, SG_ERR_IO, "%s%sgraph output '%.64s' is made by nothing",
                           g->scopes[scope].path, g->scopes[scope].path[0] ? ": " : "",
                           str(graph->output[i]->name));
        if (!sg_graph_scope_add(g, scope, 2, t))
            return nomem(d);
        sg_status st = state(d, t, graph->output[i], scope == 0 ? "graph output" : "subgraph output", false);
        if (st != SG_OK)
            return st;
    }
    return g->ex.nomem ? nomem(d) : SG_OK;
}

sg_status sg_onnx_decode_graph(const Onnx__ModelProto *model, int64_t opset, sg_graph *g, sg_error *err)
{
    decoder d = {.model = model, .g = g, .err = err, .opset = opset};
    sg_status st = sg_graph_add_scope(g, "", -1, -1) < 0 ? nomem(&d) : decode_scope(&d, model->graph, 0, 0);
    free(d.names);
    free(d.buckets);
    if (st == SG_OK)
        st = sg_graph_infer(g, err);
    return st;
}

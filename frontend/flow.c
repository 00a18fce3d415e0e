/*
 * The data flow around a model's slice layers (struct sg_model: flow,
 * ntensors, readers, concats), for `aot --fuse`, from the graph a reader
 * decoded: one definition for ONNX and OpenVINO IR.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "graph.h"
#include "openvino_graph.h"

/* A Concat the flow lists: of the default domain or OpenVINO's, every
 * input connected, a first output, and an integer axis (*axis, as
 * written): an ONNX attribute of type INT given once (ONNX Concat-1
 * without one: axis 1), an IR <data axis> that reads as an integer. Any
 * other Concat is left out, and fails nothing: it is no slice layer. */
static bool listed_concat(const sg_gnode *n, int64_t *axis)
{
    bool onnx = n->domain[0] == '\0', ir = strcmp(n->domain, SG_OPENVINO_DOMAIN) == 0;
    if (!(onnx || ir) || strcmp(n->op, "Concat") != 0 || n->nin == 0 || n->nout == 0 || n->out[0] < 0)
        return false;
    for (size_t i = 0; i < n->nin; i++)
        if (n->in[i] < 0)
            return false;
    const sg_gattr *found = NULL;
    for (size_t a = 0; a < n->nattrs; a++) {
        if (strcmp(n->attrs[a].name, "axis") != 0)
            continue;
        if (found != NULL)
            return false;
        found = &n->attrs[a];
    }
    if (found == NULL) {
        *axis = 1;
        return onnx && n->version < 4;
    }
    if (found->kind == SG_GATTR_INT) {
        *axis = found->i;
        return true;
    }
    return ir && found->kind == SG_GATTR_STRING && sg_parse_int64(found->s, axis);
}

/* An input of a node, a reader of its tensor; an IR Result reads the
 * graph's output, which counts as such. */
static bool counts_readers(const sg_gnode *n)
{
    return !(strcmp(n->domain, SG_OPENVINO_DOMAIN) == 0 && strcmp(n->op, "Result") == 0);
}

/* A node of the main graph and its place in the file. */
typedef struct placed {
    size_t file_index;
    int32_t node;
} placed;

static int by_file_index(const void *a, const void *b)
{
    size_t x = ((const placed *)a)->file_index, y = ((const placed *)b)->file_index;
    return (x > y) - (x < y);
}

/* The main graph's node indices in the file's order (OpenVINO IR's graph
 * lists them in the order of the edges). */
static int32_t *file_order(const sg_graph *g, size_t *count)
{
    const sg_gscope *main = &g->scopes[0];
    size_t n = main->nnodes;
    int32_t *order = malloc((n ? n : 1) * sizeof *order);
    placed *p = malloc((n ? n : 1) * sizeof *p);
    if (order == NULL || p == NULL) {
        free(order);
        free(p);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (placed){g->nodes[main->nodes[i]].file_index, main->nodes[i]};
    if (n > 1)
        qsort(p, n, sizeof *p, by_file_index);
    for (size_t i = 0; i < n; i++)
        order[i] = p[i].node;
    free(p);
    *count = n;
    return order;
}

bool sg_model_read_flow(sg_model *m, const sg_graph *g, const int32_t *layer_node)
{
    size_t nnodes = 0, nconcats = 0;
    int64_t axis;
    int64_t *number = calloc(g->ntensors ? g->ntensors : 1, sizeof *number); /* graph tensor -> model tensor + 1 */
    int32_t *order = g->nscopes > 0 ? file_order(g, &nnodes) : calloc(1, sizeof *order);
    bool ok = number != NULL && order != NULL;
    /* The tensors: those a node reads, the graphs' outputs (the main
     * graph's and each subgraph's), and what a layer or a listed Concat
     * writes, numbered in the graph's order. */
    for (size_t x = 0; ok && x < g->nnodes; x++)
        for (size_t i = 0; i < g->nodes[x].nin; i++)
            if (g->nodes[x].in[i] >= 0)
                number[g->nodes[x].in[i]] = 1;
    for (size_t sc = 0; ok && sc < g->nscopes; sc++)
        for (size_t i = 0; i < g->scopes[sc].noutputs; i++)
            number[g->scopes[sc].outputs[i]] = 1;
    for (size_t i = 0; ok && i < m->nlayers; i++) {
        const sg_gnode *n = &g->nodes[layer_node[i]];
        for (size_t k = 0; k < n->nout; k++)
            if (n->out[k] >= 0)
                number[n->out[k]] = 1;
    }
    for (size_t i = 0; ok && i < nnodes; i++)
        if (listed_concat(&g->nodes[order[i]], &axis)) {
            number[g->nodes[order[i]].out[0]] = 1;
            nconcats++;
        }
    m->ntensors = 0;
    for (size_t t = 0; ok && t < g->ntensors; t++)
        if (number[t])
            number[t] = (int64_t)++m->ntensors;
    ok = ok && sg_model_flow_alloc(m, nconcats);

    for (size_t x = 0; ok && x < g->nnodes; x++)
        for (size_t i = 0; counts_readers(&g->nodes[x]) && i < g->nodes[x].nin; i++)
            if (g->nodes[x].in[i] >= 0)
                m->readers[number[g->nodes[x].in[i]] - 1]++;
    /* a graph's output, the main graph's or a subgraph's (what its owner,
     * an If or a Loop, gives on), is read once as such */
    for (size_t sc = 0; ok && sc < g->nscopes; sc++)
        for (size_t i = 0; i < g->scopes[sc].noutputs; i++)
            m->readers[number[g->scopes[sc].outputs[i]] - 1]++;
    /* A layer reads its node's first input and writes output k, its k-th
     * among the node's layers (a Split's, one per output), in its node's
     * graph. */
    for (size_t i = 0, k = 0; ok && i < m->nlayers; i++) {
        k = i > 0 && layer_node[i - 1] == layer_node[i] ? k + 1 : 0;
        const sg_gnode *n = &g->nodes[layer_node[i]];
        m->flow[i] = (sg_model_flow){n->nin > 0 && n->in[0] >= 0 ? number[n->in[0]] - 1 : -1,
                                     k < n->nout && n->out[k] >= 0 ? number[n->out[k]] - 1 : -1, n->scope};
    }
    for (size_t i = 0; ok && i < nnodes; i++) {
        const sg_gnode *n = &g->nodes[order[i]];
        if (!listed_concat(n, &axis))
            continue;
        const char *name = n->name[0] != '\0' ? n->name : g->tensors[n->out[0]].name;
        sg_model_concat *c = &m->concats[m->nconcats++];
        *c = (sg_model_concat){.name = malloc(strlen(name) + 1),
                               .id = n->id,
                               .axis = axis,
                               .ninputs = n->nin,
                               .inputs = malloc(n->nin * sizeof *c->inputs),
                               .out = number[n->out[0]] - 1};
        ok = c->name != NULL && c->inputs != NULL;
        if (c->name != NULL)
            strcpy(c->name, name);
        for (size_t k = 0; ok && k < n->nin; k++)
            c->inputs[k] = number[n->in[k]] - 1;
    }
    free(number);
    free(order);
    return ok;
}

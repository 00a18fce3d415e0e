/* The model graph (graph.h): building it, looking things up in it,
 * freeing it. Shape inference over it is graph_infer.c. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static char *copy(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *c = malloc(n);
    if (c != NULL)
        memcpy(c, s ? s : "", n);
    return c;
}

/* Room for one more of `size` bytes in *items (count n, room *cap). */
static bool grow(void **items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t room = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, room * size);
    if (p == NULL)
        return false;
    memset((char *)p + *cap * size, 0, (room - *cap) * size);
    *items = p;
    *cap = room;
    return true;
}

static int32_t failed(sg_graph *g)
{
    g->ex.nomem = true;
    return -1;
}

int32_t sg_graph_add_scope(sg_graph *g, const char *path, int32_t parent, int32_t owner)
{
    if (!grow((void **)&g->scopes, g->nscopes, &g->cap[2], sizeof *g->scopes))
        return failed(g);
    sg_gscope *s = &g->scopes[g->nscopes];
    if ((s->path = copy(path)) == NULL)
        return failed(g);
    s->parent = parent;
    s->owner = owner;
    return (int32_t)g->nscopes++;
}

int32_t sg_graph_add_tensor(sg_graph *g, const char *name, int32_t scope)
{
    if (!grow((void **)&g->tensors, g->ntensors, &g->cap[0], sizeof *g->tensors))
        return failed(g);
    sg_gtensor *t = &g->tensors[g->ntensors];
    if ((t->name = copy(name)) == NULL)
        return failed(g);
    t->type = SG_GTYPE_UNKNOWN;
    t->rank = -1;
    t->nvalues = -1;
    t->stated_type = SG_GTYPE_UNKNOWN;
    t->stated_rank = -1;
    t->scope = scope;
    t->producer = -1;
    return (int32_t)g->ntensors++;
}

int32_t sg_graph_add_node(sg_graph *g, const char *name, const char *domain, const char *op, int64_t version,
                          int32_t scope, size_t nin, size_t nout, size_t nattrs)
{
    if (!grow((void **)&g->nodes, g->nnodes, &g->cap[1], sizeof *g->nodes))
        return failed(g);
    sg_gnode *n = &g->nodes[g->nnodes];
    n->name = copy(name);
    n->domain = copy(domain);
    n->op = copy(op);
    n->in = malloc((nin ? nin : 1) * sizeof *n->in);
    n->out = malloc((nout ? nout : 1) * sizeof *n->out);
    n->attrs = calloc(nattrs ? nattrs : 1, sizeof *n->attrs);
    n->version = version;
    n->scope = scope;
    n->nin = nin;
    n->nout = nout;
    n->nattrs = nattrs;
    g->nnodes++; /* freed with the graph even when incomplete */
    if (n->name == NULL || n->domain == NULL || n->op == NULL || n->in == NULL || n->out == NULL ||
        n->attrs == NULL)
        return failed(g);
    for (size_t i = 0; i < nin; i++)
        n->in[i] = -1;
    for (size_t i = 0; i < nout; i++)
        n->out[i] = -1;
    for (size_t i = 0; i < nattrs; i++)
        n->attrs[i].tensor = n->attrs[i].scope = -1;
    return (int32_t)(g->nnodes - 1);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

/* The slot of `name` in g->symbol_index: its symbol's, or the empty one
 * where it would go. */
static size_t symbol_slot(const sg_graph *g, const char *name)
{
    size_t mask = g->symbol_slots - 1, i = (size_t)name_hash(name) & mask;
    while (g->symbol_index[i] != 0 && strcmp(g->symbols[g->symbol_index[i] - 1], name) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Room for one more symbol in the index. */
static bool index_room(sg_graph *g)
{
    if (2 * (g->nsymbols + 1) <= g->symbol_slots)
        return true;
    size_t slots = g->symbol_slots ? 2 * g->symbol_slots : 64;
    int32_t *index = calloc(slots, sizeof *index), *old = g->symbol_index;
    if (index == NULL)
        return false;
    g->symbol_index = index;
    g->symbol_slots = slots;
    for (size_t k = 0; k < g->nsymbols; k++)
        index[symbol_slot(g, g->symbols[k])] = (int32_t)k + 1;
    free(old);
    return true;
}

sg_val sg_graph_symbol(sg_graph *g, const char *name)
{
    if (!index_room(g)) {
        g->ex.nomem = true;
        return sg_const(0);
    }
    size_t slot = symbol_slot(g, name);
    if (g->symbol_index[slot] != 0)
        return sg_x_dim(&g->ex, (size_t)g->symbol_index[slot] - 1);
    char *c = copy(name);
    if (c == NULL || !grow((void **)&g->symbols, g->nsymbols, &g->cap[3], sizeof *g->symbols)) {
        free(c);
        g->ex.nomem = true;
        return sg_const(0);
    }
    g->symbols[g->nsymbols] = c;
    g->symbol_index[slot] = (int32_t)g->nsymbols + 1;
    return sg_x_dim(&g->ex, g->nsymbols++);
}

bool sg_graph_scope_add(sg_graph *g, int32_t scope, int which, int32_t index)
{
    sg_gscope *s = &g->scopes[scope];
    int32_t **list = which == 0 ? &s->nodes : which == 1 ? &s->inputs : &s->outputs;
    size_t *n = which == 0 ? &s->nnodes : which == 1 ? &s->ninputs : &s->noutputs;
    if (!grow((void **)list, *n, &s->cap[which], sizeof **list))
        return failed(g), false;
    (*list)[(*n)++] = index;
    return true;
}

bool sg_graph_set_shape(sg_graph *g, int32_t tensor, int type, int rank, const sg_val *dims)
{
    sg_gtensor *t = &g->tensors[tensor];
    t->type = type;
    sg_val *d = NULL;
    if (rank > 0) {
        if ((d = malloc((size_t)rank * sizeof *d)) == NULL)
            return failed(g), false;
        memcpy(d, dims, (size_t)rank * sizeof *d);
    }
    free(t->dims);
    t->dims = d;
    t->rank = rank;
    return true;
}

bool sg_graph_set_values(sg_graph *g, int32_t tensor, int64_t n, const sg_val *values)
{
    sg_gtensor *t = &g->tensors[tensor];
    sg_val *v = NULL;
    if (n > SG_GRAPH_MAX_VALUES)
        n = -1;
    if (n > 0) {
        if ((v = malloc((size_t)n * sizeof *v)) == NULL)
            return failed(g), false;
        memcpy(v, values, (size_t)n * sizeof *v);
    }
    free(t->values);
    t->values = v;
    t->nvalues = n;
    return true;
}

const sg_gattr *sg_gnode_attr(const sg_gnode *n, const char *name)
{
    for (size_t i = 0; i < n->nattrs; i++)
        if (n->attrs[i].name != NULL && strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

const char *sg_graph_val_text(const sg_graph *g, sg_val v, char buf[64])
{
    if (sg_is_const(v)) {
        snprintf(buf, 64, "%" PRId64, v.k);
        return buf;
    }
    /* a symbol: max(DIM k, 0) */
    const sg_xnode *x = &g->ex.nodes[v.node - 1];
    if (x->op == SG_X_MAX && !sg_is_const(x->a) && sg_is_const(x->b) && x->b.k == 0) {
        const sg_xnode *d = &g->ex.nodes[x->a.node - 1];
        if (d->op == SG_X_DIM && (size_t)d->k < g->nsymbols) {
            snprintf(buf, 64, "%s", g->symbols[d->k]);
            return buf;
        }
    }
    snprintf(buf, 64, "?");
    return buf;
}

void sg_graph_free(sg_graph *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->ntensors; i++) {
        sg_gtensor *t = &g->tensors[i];
        free(t->name);
        free(t->dims);
        free(t->values);
        free(t->stated_dims);
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        sg_gnode *n = &g->nodes[i];
        free(n->name);
        free(n->domain);
        free(n->op);
        free(n->in);
        free(n->out);
        for (size_t k = 0; n->attrs != NULL && k < n->nattrs; k++) {
            free(n->attrs[k].name);
            free(n->attrs[k].ints);
            free(n->attrs[k].floats);
            free(n->attrs[k].s);
        }
        free(n->attrs);
    }
    for (size_t i = 0; i < g->nscopes; i++) {
        free(g->scopes[i].path);
        free(g->scopes[i].nodes);
        free(g->scopes[i].inputs);
        free(g->scopes[i].outputs);
    }
    for (size_t i = 0; i < g->nsymbols; i++)
        free(g->symbols[i]);
    free(g->tensors);
    free(g->nodes);
    free(g->scopes);
    free(g->symbols);
    free(g->symbol_index);
    sg_exprs_free(&g->ex);
    memset(g, 0, sizeof *g);
}

/* Fusing a model's slice layers (`slicegen aot --fuse`): from the data
 * flow the readers record (sg_model.flow, readers, concats), the chains of
 * slice layers whose intermediate results nothing else reads, and the
 * Concats of such chains of one tensor, each as one program (sg_prog with
 * layer nodes) over the chains' common input. See sg_model_fusion. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

/* Whether layer i can be part of a fusion: compiled, every number known
 * (its input's dimensions may be `?`), one output (not a Split's), and
 * its data flow recorded. */
static bool fusable(const sg_model *m, size_t i)
{
    const sg_model_layer *l = &m->layers[i];
    return l->spec != NULL && l->spec->nvalues == 0 && l->spec->op != SG_OP_PROGRAM && m->flow[i].in >= 0 &&
           m->flow[i].out >= 0 && m->flow[i].in < (int64_t)m->ntensors && m->flow[i].out < (int64_t)m->ntensors &&
           strcmp(l->type, "Split") != 0 && strcmp(l->type, "VariadicSplit") != 0;
}


typedef struct fuser {
    sg_model *m;
    sg_error *err;
    int64_t *producer; /* per tensor: the fusable layer writing it, or -1 */
    int64_t *prev;     /* per layer: the fusable layer it continues (reads alone), or -1 */
    bool *taken;       /* per layer: part of a fusion */
} fuser;

/* The layer that tensor t comes from when t is read once, by a fusion. */
static int64_t feeder(const fuser *f, int64_t t)
{
    return t >= 0 && t < (int64_t)f->m->ntensors && f->m->readers[t] == 1 ? f->producer[t] : -1;
}

/* The first layer of the chain ending at layer i. */
static size_t chain_head(const fuser *f, size_t i)
{
    while (f->prev[i] >= 0)
        i = (size_t)f->prev[i];
    return i;
}

/* The program node of the chain ending at layer i (NULL: out of memory). */
static sg_prog *chain_node(const fuser *f, size_t i)
{
    sg_prog *node = calloc(1, sizeof *node);
    if (node == NULL)
        return NULL;
    node->column = 1;
    node->kind = SG_PROG_LAYER;
    node->nargs = 1;
    node->args = calloc(1, sizeof *node->args);
    sg_error err = {0};
    if (node->args == NULL || sg_spec_copy(f->m->layers[i].spec, &node->index, &err) != SG_OK) {
        sg_prog_free(node);
        return NULL;
    }
    if (f->prev[i] >= 0) {
        node->args[0] = chain_node(f, (size_t)f->prev[i]);
    } else if ((node->args[0] = calloc(1, sizeof *node->args[0])) != NULL) {
        node->args[0]->kind = SG_PROG_INPUT;
        node->args[0]->column = 1;
    }
    if (node->args[0] == NULL) {
        sg_prog_free(node);
        return NULL;
    }
    return node;
}

static int by_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Adds the fusion of the chains ending at tails[0..n) (a Concat's inputs
 * when concat is not NULL, else one chain); takes no ownership. */
static sg_status add_fusion(fuser *f, const size_t *tails, size_t n, const sg_model_concat *concat)
{
    sg_model *m = f->m;
    size_t count = 0;
    for (size_t k = 0; k < n; k++)
        for (int64_t i = (int64_t)tails[k]; i >= 0; i = f->prev[i])
            count++;
    sg_model_fusion *grown = realloc(m->fusions, (m->nfusions + 1) * sizeof *grown);
    if (grown == NULL)
        return sg_fail(f->err, SG_ERR_NOMEM, "failed to fuse layers: out of memory");
    m->fusions = grown;
    sg_model_fusion *fu = &m->fusions[m->nfusions];
    *fu = (sg_model_fusion){0};
    size_t *layers = malloc(count * sizeof *layers);
    const char **names = malloc((count + 1) * sizeof *names);
    sg_prog *prog = calloc(1, sizeof *prog);
    if (layers == NULL || names == NULL || prog == NULL)
        goto nomem;
    size_t at = 0;
    for (size_t k = 0; k < n; k++)
        for (int64_t i = (int64_t)tails[k]; i >= 0; i = f->prev[i])
            layers[at++] = (size_t)i;
    qsort(layers, count, sizeof *layers, by_index);
    for (size_t k = 0; k < count; k++)
        names[k] = m->layers[layers[k]].name;
    if (concat) {
        names[count] = concat->name;
        prog->kind = SG_PROG_CONCAT;
        prog->column = 1;
        prog->axis = concat->axis;
        prog->nargs = n;
        if ((prog->args = calloc(n, sizeof *prog->args)) == NULL)
            goto nomem;
        for (size_t k = 0; k < n; k++)
            if ((prog->args[k] = chain_node(f, tails[k])) == NULL)
                goto nomem;
    } else {
        free(prog);
        if ((prog = chain_node(f, tails[0])) == NULL)
            goto nomem;
    }
    sg_spec *spec = NULL;
    sg_status st = sg_spec_make_program(prog, "x", &spec, f->err); /* takes prog */
    prog = NULL;
    if (st != SG_OK)
        goto fail;
    const sg_model_layer *first = &m->layers[chain_head(f, tails[0])], *last = &m->layers[tails[n - 1]];
    int64_t *shape = malloc((first->rank ? first->rank : 1) * sizeof *shape);
    char *text = sg_spec_to_text(spec);
    if (shape == NULL || text == NULL) {
        free(shape);
        free(text);
        sg_spec_free(spec);
        goto nomem;
    }
    memcpy(shape, first->shape, first->rank * sizeof *shape);
    *fu = (sg_model_fusion){
        .name = concat ? concat->name : last->name,
        .id = concat ? concat->id : last->id,
        .spec = spec,
        .spec_text = text,
        .rank = first->rank,
        .shape = shape,
        .dtype = first->dtype,
        .nlayers = count,
        .layers = layers,
        .nnames = count + (concat != NULL),
        .names = names,
    };
    m->nfusions++;
    for (size_t k = 0; k < count; k++)
        f->taken[layers[k]] = true;
    return SG_OK;
nomem:
    sg_fail(f->err, SG_ERR_NOMEM, "failed to fuse layers: out of memory");
fail:
    sg_prog_free(prog);
    free(layers);
    free(names);
    return f->err->status;
}

/* A Concat whose every input comes, read once, from a fusable layer, the
 * chains of all of them starting at one tensor of one element type, in the
 * main graph. */
static sg_status fuse_concat(fuser *f, const sg_model_concat *c)
{
    const sg_model *m = f->m;
    if (c->ninputs == 0 || c->out < 0)
        return SG_OK;
    size_t *tails = malloc(c->ninputs * sizeof *tails);
    if (tails == NULL)
        return sg_fail(f->err, SG_ERR_NOMEM, "failed to fuse layers: out of memory");
    bool ok = true;
    for (size_t k = 0; k < c->ninputs && ok; k++) {
        int64_t i = feeder(f, c->inputs[k]);
        ok = i >= 0 && !f->taken[i];
        for (int64_t j = i; ok && j >= 0; j = f->prev[j]) /* (Concats are the main graph's) */
            ok = m->flow[j].scope == 0;
        if (ok) {
            tails[k] = (size_t)i;
            const sg_model_layer *head = &m->layers[chain_head(f, (size_t)i)];
            const sg_model_layer *first = &m->layers[chain_head(f, tails[0])];
            ok = m->flow[head - m->layers].in == m->flow[first - m->layers].in && head->dtype == first->dtype;
        }
    }
    for (size_t k = 0; k < c->ninputs && ok; k++) /* one input read twice is not read once */
        for (size_t j = 0; j < k && ok; j++)
            ok = tails[j] != tails[k];
    sg_status st = ok ? add_fusion(f, tails, c->ninputs, c) : SG_OK;
    free(tails);
    return st;
}

/* Orders the fusions by their last layer, as the layers are ordered. */
static int by_last_layer(const void *a, const void *b)
{
    const sg_model_fusion *x = a, *y = b;
    size_t p = x->layers[x->nlayers - 1], q = y->layers[y->nlayers - 1];
    return p < q ? -1 : p > q;
}

sg_status sg_model_fuse(sg_model *m, sg_error *err)
{
    if (m->fused)
        return SG_OK;
    fuser f = {.m = m, .err = err};
    if (m->flow == NULL || m->ntensors == 0) { /* nothing recorded: nothing fuses */
        m->fused = true;
        return SG_OK;
    }
    f.producer = malloc(m->ntensors * sizeof *f.producer);
    f.prev = malloc((m->nlayers ? m->nlayers : 1) * sizeof *f.prev);
    f.taken = calloc(m->nlayers ? m->nlayers : 1, sizeof *f.taken);
    sg_status st = SG_OK;
    if (f.producer == NULL || f.prev == NULL || f.taken == NULL) {
        st = sg_fail(err, SG_ERR_NOMEM, "failed to fuse layers: out of memory");
        goto done;
    }
    for (size_t t = 0; t < m->ntensors; t++)
        f.producer[t] = -1;
    for (size_t i = 0; i < m->nlayers; i++)
        if (fusable(m, i))
            f.producer[m->flow[i].out] = (int64_t)i;
    /* each fusable layer continues the one it reads alone in its graph (never itself:
     * a layer reading its own output is a malformed graph) */
    for (size_t i = 0; i < m->nlayers; i++) {
        int64_t p = fusable(m, i) ? feeder(&f, m->flow[i].in) : -1;
        f.prev[i] = p != (int64_t)i && p >= 0 && m->flow[p].scope == m->flow[i].scope ? p : -1;
    }
    /* a cycle of layers reading each other (a malformed graph) fuses nothing */
    for (size_t i = 0; i < m->nlayers; i++) {
        size_t steps = 0;
        for (int64_t k = f.prev[i]; k >= 0 && steps <= m->nlayers; k = f.prev[k])
            steps++;
        if (steps > m->nlayers)
            goto done;
    }
    for (size_t c = 0; c < m->nconcats && st == SG_OK; c++)
        st = fuse_concat(&f, &m->concats[c]);
    /* the chains of two or more layers left: those whose last layer no
     * fusable layer continues */
    bool *continued = calloc(m->nlayers ? m->nlayers : 1, sizeof *continued);
    if (continued == NULL && st == SG_OK)
        st = sg_fail(err, SG_ERR_NOMEM, "failed to fuse layers: out of memory");
    for (size_t i = 0; continued && i < m->nlayers; i++)
        if (f.prev[i] >= 0)
            continued[f.prev[i]] = true;
    for (size_t i = 0; continued && st == SG_OK && i < m->nlayers; i++)
        if (f.prev[i] >= 0 && !continued[i] && !f.taken[i])
            st = add_fusion(&f, &i, 1, NULL);
    free(continued);
    if (st == SG_OK && m->nfusions > 1)
        qsort(m->fusions, m->nfusions, sizeof *m->fusions, by_last_layer);
done:
    m->fused = st == SG_OK;
    free(f.producer);
    free(f.prev);
    free(f.taken);
    return st;
}

bool sg_model_flow_alloc(sg_model *m, size_t nconcats)
{
    m->readers = calloc(m->ntensors ? m->ntensors : 1, sizeof *m->readers);
    m->flow = calloc(m->nlayers ? m->nlayers : 1, sizeof *m->flow);
    m->concats = calloc(nconcats ? nconcats : 1, sizeof *m->concats);
    return m->readers != NULL && m->flow != NULL && m->concats != NULL;
}

void sg_model_fusions_free(sg_model *m)
{
    for (size_t k = 0; k < m->nfusions; k++) {
        sg_model_fusion *fu = &m->fusions[k];
        sg_spec_free((sg_spec *)fu->spec);
        free((void *)fu->spec_text);
        free((void *)fu->shape);
        free((void *)fu->layers);
        free((void *)fu->names);
    }
    free(m->fusions);
    m->fusions = NULL;
    m->nfusions = 0;
    m->fused = false;
}

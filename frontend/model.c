/* What every model reader makes, whatever the format: the model's layers
 * and their release (sg_model_free), its symbols, and how each layer's
 * numbers follow from them (graph.h, sg_layer_numbers). */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static char *copy_text(const char *text)
{
    size_t n = strlen(text) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, text, n) : NULL;
}

/* The symbol v is (graph.h: max(dimension leaf k, 0)), or -1. */
static int64_t symbol_of(const sg_exprs *ex, sg_val v)
{
    if (v.node == 0)
        return -1;
    const sg_xnode *x = &ex->nodes[v.node - 1];
    if (x->op != SG_X_MAX || x->a.node == 0 || x->b.node != 0 || x->b.k != 0)
        return -1;
    const sg_xnode *leaf = &ex->nodes[x->a.node - 1];
    return leaf->op == SG_X_DIM ? leaf->k : -1;
}

bool sg_model_take_symbols(sg_model *m, const sg_graph *g)
{
    if (g->nsymbols == 0)
        return true;
    if ((m->symbols = calloc(g->nsymbols, sizeof *m->symbols)) == NULL)
        return false;
    m->nsymbols = g->nsymbols;
    for (size_t k = 0; k < g->nsymbols; k++) {
        m->symbols[k] = (sg_model_symbol){.name = copy_text(g->symbols[k]), .dim = -1};
        if (m->symbols[k].name == NULL)
            return false;
    }
    const sg_gscope *main = &g->scopes[0];
    for (size_t i = 0; i < main->ninputs; i++) {
        const sg_gtensor *x = &g->tensors[main->inputs[i]];
        const sg_val *dims = x->stated ? x->stated_dims : x->dims;
        int rank = x->stated ? x->stated_rank : x->rank;
        for (int d = 0; d < rank; d++) {
            int64_t k = symbol_of(&g->ex, dims[d]);
            if (k < 0 || m->symbols[k].input != NULL)
                continue;
            /* the input as the file names it: an OpenVINO Parameter's name, not its port's */
            const char *input = x->producer >= 0 ? g->nodes[x->producer].name : x->name;
            if ((m->symbols[k].input = copy_text(input)) == NULL)
                return false;
            m->symbols[k].dim = d;
        }
    }
    return true;
}

void sg_model_keep_symbols(sg_model *m)
{
    size_t *renumber =
        calloc(m->nsymbols ? m->nsymbols : 1, sizeof *renumber); /* new index + 1, 0: dropped */
    if (renumber == NULL)
        return; /* every symbol kept: as correct, only longer */
    for (size_t k = 0; k < m->nsymbols; k++)
        renumber[k] = m->symbols[k].input != NULL;
    for (size_t i = 0; m->numbers && i < m->nlayers; i++)
        for (size_t x = 0; x < m->numbers[i].ex.n; x++)
            if (m->numbers[i].ex.nodes[x].op == SG_X_DIM)
                renumber[m->numbers[i].ex.nodes[x].k] = 1;
    size_t kept = 0;
    for (size_t k = 0; k < m->nsymbols; k++) {
        if (renumber[k]) {
            m->symbols[kept] = m->symbols[k];
            renumber[k] = ++kept;
        } else {
            free((void *)m->symbols[k].name);
            free((void *)m->symbols[k].input);
        }
    }
    m->nsymbols = kept;
    for (size_t i = 0; m->numbers && i < m->nlayers; i++) /* the expressions are not built on again */
        for (size_t x = 0; x < m->numbers[i].ex.n; x++)
            if (m->numbers[i].ex.nodes[x].op == SG_X_DIM)
                m->numbers[i].ex.nodes[x].k = (int64_t)renumber[m->numbers[i].ex.nodes[x].k] - 1;
    free(renumber);
}

bool sg_layer_numbers_make(sg_layer_numbers *out, const sg_graph *g, const sg_gtensor *data, size_t rank,
                           const int64_t *shape, const sg_spec *spec, const sg_value_table *values,
                           const sg_val *value_exprs, const bool *known)
{
    size_t nvalues = spec ? spec->nvalues : 0;
    sg_val roots[SG_MAX_RANK + SG_MAX_VALUES];
    *out = (sg_layer_numbers){.rank = rank, .nvalues = nvalues};
    out->values = calloc(nvalues ? nvalues : 1, sizeof *out->values);
    out->given = calloc(nvalues ? nvalues : 1, sizeof *out->given);
    if (out->values == NULL || out->given == NULL)
        return false;
    bool from_data = data != NULL && data->rank == (int)rank;
    for (size_t d = 0; d < rank; d++)
        roots[d] = shape[d] >= 0 || !from_data ? sg_const(shape[d]) : data->dims[d];
    for (size_t i = 0; i < nvalues; i++) {
        roots[rank + i] = sg_const(0);
        for (size_t k = 0; k < values->count; k++)
            if (known[k] && strcmp(spec->values[i], values->names[k]) == 0) {
                roots[rank + i] = value_exprs[k];
                out->given[i] = true;
            }
    }
    sg_val copied[SG_MAX_RANK + SG_MAX_VALUES];
    if (!sg_exprs_import(&out->ex, &g->ex, roots, rank + nvalues, copied))
        return false;
    memcpy(out->dims, copied, rank * sizeof *copied);
    memcpy(out->values, copied + rank, nvalues * sizeof *copied);
    for (size_t i = 0; i < rank + nvalues; i++)
        out->symbolic = out->symbolic || !sg_is_const(copied[i]);
    return true;
}

sg_status sg_model_numbers_eval(const sg_model *model, size_t index, const int64_t *symbols,
                                int64_t *in_shape, int64_t *values, uint8_t *given, sg_error *err)
{
    if (model == NULL || index >= model->nlayers)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to compute a layer's numbers: no layer %zu (the model has %zu)", index,
                       model ? model->nlayers : 0);
    const sg_model_layer *l = &model->layers[index];
    if (l->spec == NULL)
        return sg_fail(err, SG_ERR_USAGE, "failed to compute a layer's numbers: layer '%s' is skipped (%s)",
                       l->name, l->skip_reason);
    const sg_layer_numbers *n = model->numbers ? &model->numbers[index] : NULL;
    if (n == NULL || !n->symbolic) {
        for (size_t d = 0; d < l->rank; d++)
            if (l->shape[d] < 0)
                return sg_fail(
                    err, SG_ERR_USAGE,
                    "failed to compute a layer's numbers: dimension %zu of layer '%s' follows from no "
                    "symbol of the model",
                    d, l->name);
        memcpy(in_shape, l->shape, l->rank * sizeof *in_shape);
        for (size_t i = 0; given && i < l->spec->nvalues; i++)
            given[i] = n != NULL && n->given[i];
        for (size_t i = 0; n && i < n->nvalues; i++)
            if (n->given[i])
                values[i] = n->values[i].k;
        return SG_OK;
    }
    int64_t *nodes = malloc((n->ex.n ? n->ex.n : 1) * sizeof *nodes);
    if (nodes == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to compute a layer's numbers: out of memory");
    int code;
    sg_exprs_eval(&n->ex, symbols, NULL, nodes, &code, err);
    for (size_t d = 0; d < n->rank; d++)
        in_shape[d] = sg_val_of(n->dims[d], nodes);
    for (size_t i = 0; i < n->nvalues; i++) {
        if (n->given[i])
            values[i] = sg_val_of(n->values[i], nodes);
        if (given)
            given[i] = n->given[i];
    }
    free(nodes);
    return SG_OK;
}

void sg_model_free(sg_model *model)
{
    if (model == NULL)
        return;
    sg_model_fusions_free(model);
    for (size_t i = 0; i < model->nlayers; i++) {
        sg_model_layer *l = &model->layers[i];
        free((void *)l->name);
        free((void *)l->type);
        sg_spec_free((sg_spec *)l->spec);
        free((void *)l->spec_text);
        free((void *)l->shape);
        free((void *)l->skip_reason);
        if (model->numbers) {
            sg_exprs_free(&model->numbers[i].ex);
            free(model->numbers[i].values);
            free(model->numbers[i].given);
        }
    }
    free(model->layers);
    free(model->numbers);
    for (size_t k = 0; k < model->nsymbols; k++) {
        free((void *)model->symbols[k].name);
        free((void *)model->symbols[k].input);
    }
    free(model->symbols);
    free(model->flow);
    free(model->readers);
    for (size_t i = 0; i < model->nconcats; i++) {
        free(model->concats[i].name);
        free(model->concats[i].inputs);
    }
    free(model->concats);
    free(model);
}

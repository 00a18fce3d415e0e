/*
 * The model graph of an ONNX or OpenVINO IR model as slicegen infers it,
 * one line per tensor, for tests/graph/infer_vs_ort.py (and people):
 *
 *     graph_dump MODEL.onnx|MODEL.xml [SYMBOL=VALUE ...] [-- SYMBOL=VALUE ... ...]
 *
 * reads MODEL.onnx with sg_onnx_read_graph, MODEL.xml (its weights
 * MODEL.bin) with sg_openvino_read_graph (both run sg_graph_infer) and
 * prints every named tensor of every scope, the main graph's first, as
 *
 *     NAME TYPE [D0, D1, ...]
 *     NAME TYPE [D0, ...] values V0,V1,...
 *
 * NAME is the tensor's name, prefixed with its scope's path and ':' in a
 * subgraph ("If_0/then_branch:y"); TYPE the element type's name (i64,
 * f32...), "unknown" or "other"; the dimensions (and the values, for a
 * small integer tensor whose values are known) evaluated for the symbol
 * values given as arguments. A dimension that depends on a symbol given no
 * value prints as the symbol's name (or "?" for an expression of it); a
 * tensor of unknown rank prints "?" for its shape. A trailing " shape"
 * marks shape arithmetic. Each further set of symbol values after "--"
 * prints every tensor again, each set after a line "# set K". Exit status 0, or 2 with one line
 * "graph_dump: error: ..." when the model cannot be read.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../frontend/graph.h"

/* Values for the symbols nobody gave: two probes tell what depends on them. */
static const int64_t probe[2] = {1000003, 2000029};

static void print_val(const sg_graph *g, sg_val v, const int64_t *const nodes[2])
{
    int64_t a = sg_val_of(v, nodes[0]), b = sg_val_of(v, nodes[1]);
    if (a == b) {
        printf("%" PRId64, a);
    } else {
        char buf[64];
        printf("%s", sg_graph_val_text(g, v, buf));
    }
}

/* Every tensor, its dimensions and values evaluated for the n symbol
 * values of args. */
static bool print_set(const sg_graph *g, char **args, int n, int64_t *dims[2], int64_t *nodes[2])
{
    for (int p = 0; p < 2; p++) {
        for (size_t k = 0; k < g->nsymbols; k++)
            dims[p][k] = probe[p];
        for (int i = 0; i < n; i++) {
            const char *eq = strchr(args[i], '=');
            if (eq == NULL) {
                printf("graph_dump: error: '%s' is not SYMBOL=VALUE\n", args[i]);
                return false;
            }
            for (size_t k = 0; k < g->nsymbols; k++)
                if (strlen(g->symbols[k]) == (size_t)(eq - args[i]) &&
                    strncmp(g->symbols[k], args[i], (size_t)(eq - args[i])) == 0)
                    dims[p][k] = strtoll(eq + 1, NULL, 10);
        }
        int code;
        sg_error e = {0};
        int64_t none = 0;
        sg_exprs_eval(&g->ex, dims[p], &none, nodes[p], &code, &e);
    }
    const int64_t *const cn[2] = {nodes[0], nodes[1]};
    for (size_t s = 0; s < g->nscopes; s++) {
        for (size_t i = 0; i < g->ntensors; i++) {
            const sg_gtensor *t = &g->tensors[i];
            if ((size_t)t->scope != s || t->name[0] == '\0')
                continue;
            if (s > 0)
                printf("%s:", g->scopes[s].path);
            const char *type = t->type == SG_GTYPE_UNKNOWN ? "unknown"
                               : t->type == SG_GTYPE_OTHER ? "other"
                                                           : sg_dtype_name((sg_dtype)t->type);
            printf("%s %s ", t->name, type ? type : "unknown");
            if (t->rank < 0) {
                printf("?");
            } else {
                printf("[");
                for (int d = 0; d < t->rank; d++) {
                    printf("%s", d ? ", " : "");
                    print_val(g, t->dims[d], cn);
                }
                printf("]");
            }
            if (t->nvalues >= 0) {
                printf(" values ");
                for (int64_t k = 0; k < t->nvalues; k++) {
                    printf("%s", k ? "," : "");
                    print_val(g, t->values[k], cn);
                }
            }
            printf("%s\n", t->shape_arith ? " shape" : "");
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: graph_dump MODEL.onnx|MODEL.xml [SYMBOL=VALUE ...]\n");
        return 2;
    }
    sg_graph g = {0};
    sg_error err = {0};
    sg_status st = sg_model_is_onnx(argv[1]) ? sg_onnx_read_graph(argv[1], &g, &err)
                                             : sg_openvino_read_graph(argv[1], NULL, &g, &err);
    if (st != SG_OK) {
        printf("graph_dump: error: %s\n", err.message);
        sg_graph_free(&g);
        return 2;
    }
    size_t ns = g.nsymbols ? g.nsymbols : 1, nn = g.ex.n ? g.ex.n : 1;
    int64_t *dims[2] = {malloc(ns * sizeof(int64_t)), malloc(ns * sizeof(int64_t))};
    int64_t *nodes[2] = {malloc(nn * sizeof(int64_t)), malloc(nn * sizeof(int64_t))};
    if (!dims[0] || !dims[1] || !nodes[0] || !nodes[1]) {
        printf("graph_dump: error: out of memory\n");
        return 2;
    }
    for (int at = 2, set = 0; at <= argc; set++) {
        int end = at;
        while (end < argc && strcmp(argv[end], "--") != 0)
            end++;
        if (set > 0 || end < argc)
            printf("# set %d\n", set);
        if (!print_set(&g, argv + at, end - at, dims, nodes))
            return 2;
        at = end + 1;
    }
    for (int p = 0; p < 2; p++)
        free(dims[p]), free(nodes[p]);
    sg_graph_free(&g);
    return 0;
}

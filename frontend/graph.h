/*
 * A model as a format-neutral graph, and shape inference over it.
 *
 * A reader (onnx_graph.c, openvino_graph.c) decodes a model into an
 * sg_graph: every tensor of every scope in one table, the nodes of the
 * main graph and of each subgraph (an If's branches, a Loop's or Scan's
 * body) each in their own sg_gscope, referring to tensors by index. Names are resolved when the
 * graph is decoded: a subgraph's node that reads a name its own scope does
 * not define reads the enclosing scope's tensor of that name.
 *
 * sg_graph_infer then gives every tensor its element type, rank and
 * dimensions, in node order, scope by scope (graph_infer.c's table of
 * operator rules). A dimension is an sg_val of the graph's expressions (planner/
 * expr.h): a constant, or an expression of the model's symbols, each
 * symbol an SG_X_DIM leaf whose k indexes graph->symbols. Every dim_param
 * is a symbol (one name used twice is one symbol), and so is every
 * dynamic dimension a file leaves unnamed (named after its tensor:
 * "x_dim2") and every dimension no rule can tell (named after the tensor
 * too). Small integer tensors (shape arithmetic: Shape, Gather, Concat,
 * Reshape's target...) also carry their elements as sg_vals, so that an
 * index computed from a shape folds to a constant, or becomes an
 * expression of the symbols.
 *
 * What the file states (graph inputs, value_info, graph outputs; an IR
 * model's output ports) is taken as given for inputs, and checked against
 * what is inferred for the rest:
 * a conflict of element type, of rank or of a fixed dimension fails the
 * model, naming both.
 */
#ifndef SG_GRAPH_H
#define SG_GRAPH_H

#include "../planner/expr.h"

/* The most elements a tensor's values are propagated for. */
enum { SG_GRAPH_MAX_VALUES = 64 };

/* An element type: an sg_dtype, or one of these. */
enum {
    SG_GTYPE_UNKNOWN = -1, /* not known (no rule, or a file that does not say) */
    SG_GTYPE_OTHER = -2    /* a type slicegen has no sg_dtype for (string, complex, ...) */
};

typedef struct sg_gtensor {
    char *name;
    int type;     /* an sg_dtype or SG_GTYPE_* */
    int rank;     /* -1: not known */
    sg_val *dims; /* rank entries (malloc'd) */
    /* The elements (row-major) of an integer or bool tensor of at most
     * SG_GRAPH_MAX_VALUES elements whose every element is known as an
     * sg_val; nvalues -1 otherwise. A float tensor's values are never
     * kept. */
    int64_t nvalues;
    sg_val *values;
    /* The tensor's constant data (an initializer, a Constant's value), as
     * the reader found it: raw little-endian bytes of `count` elements of
     * `type`; NULL when not a constant or when the reader kept no bytes. */
    bool constant;
    const void *raw;
    int64_t count;
    const void *source; /* the reader's record of a constant (ONNX: its TensorProto); NULL: none */
    /* Where a file stated the type and shape (graph input, value_info,
     * graph output): `stated` names the list ("graph input", ...), and
     * stated_rank/stated_dims hold it (a dimension the file leaves
     * dynamic is a symbol). NULL: nothing stated. */
    const char *stated;
    int stated_type;
    int stated_rank;
    sg_val *stated_dims;
    /* The scope (index into graph->scopes) that defines the tensor, and its
     * producer: node index into graph->nodes, or -1 (graph input,
     * initializer, a subgraph's input) */
    int32_t scope;
    int32_t producer;
    /* derived from a Shape or Size: the tensor is shape arithmetic */
    bool shape_arith;
} sg_gtensor;

typedef enum sg_gattr_kind {
    SG_GATTR_INT,
    SG_GATTR_FLOAT,
    SG_GATTR_INTS,
    SG_GATTR_FLOATS,
    SG_GATTR_STRING,
    SG_GATTR_TENSOR, /* `tensor`: index of a constant tensor of the graph */
    SG_GATTR_GRAPH,  /* `scope`: index of a subgraph's scope */
    SG_GATTR_OTHER   /* a kind no rule reads (sparse tensors, lists of graphs...) */
} sg_gattr_kind;

typedef struct sg_gattr {
    char *name;
    sg_gattr_kind kind;
    int64_t i;
    double f;
    int64_t *ints;
    double *floats;
    size_t count; /* of ints or floats */
    char *s;
    int32_t tensor;
    int32_t scope;
    /* The type the file declares ("INT", "INTS", "STRINGS": ONNX's
     * AttributeType names), for the checks of the lowering (lower.c);
     * NULL when it declares none (any field may then be read: i and f are
     * always the file's, zero when absent). */
    const char *file_type;
} sg_gattr;

typedef struct sg_gnode {
    char *name;   /* as in the file; "" when it has none */
    char *domain; /* "" for the default domain (ONNX's "ai.onnx" too) */
    char *op;
    int64_t version; /* the opset of its domain */
    size_t nin, nout;
    int32_t *in, *out; /* tensor indices; -1: an optional input or output left out */
    size_t nattrs;
    sg_gattr *attrs;
    int32_t scope;      /* the scope it belongs to */
    size_t file_index;  /* its index in its scope's list of nodes, as in the file */
    int64_t id;         /* the id of the model's layers it makes (sg_model_layer.id): ONNX its
                           file_index in the main graph, past the main graph's count in a
                           subgraph; IR its layer id */
    const void *source; /* the reader's own record of the node (ONNX: its NodeProto) */
} sg_gnode;

/* A graph's scope: the main graph (scope 0) or a subgraph of a node. */
typedef struct sg_gscope {
    char *path;     /* "" for the main graph; "If_0/then_branch" for a subgraph:
                       the owner's path and name, then the attribute's name */
    int32_t parent; /* the enclosing scope; -1 for the main graph */
    int32_t owner;  /* the node whose attribute it is; -1 for the main graph */
    size_t nnodes;
    int32_t *nodes; /* node indices, in the file's order */
    size_t ninputs, noutputs;
    int32_t *inputs, *outputs; /* tensor indices */
    size_t cap[3];             /* room of nodes, inputs, outputs */
} sg_gscope;

typedef struct sg_graph {
    size_t ntensors, nnodes, nscopes;
    sg_gtensor *tensors;
    sg_gnode *nodes;
    sg_gscope *scopes;
    sg_exprs ex; /* the dimensions' and values' expressions */
    size_t nsymbols;
    char **symbols;        /* symbol k (an SG_X_DIM leaf with k) is named symbols[k] */
    size_t cap[4];         /* room of tensors, nodes, scopes, symbols */
    int32_t *symbol_index; /* open addressing over the symbols' names: k + 1, 0 empty */
    size_t symbol_slots;   /* a power of two, at least twice nsymbols */
} sg_graph;

void sg_graph_free(sg_graph *g);

/* Building a graph (the readers). Each returns the new entry's index, or
 * -1 when out of memory (g->ex.nomem is then set). Strings are copied. */
int32_t sg_graph_add_scope(sg_graph *g, const char *path, int32_t parent, int32_t owner);
int32_t sg_graph_add_tensor(sg_graph *g, const char *name, int32_t scope);
int32_t sg_graph_add_node(sg_graph *g, const char *name, const char *domain, const char *op, int64_t version,
                          int32_t scope, size_t nin, size_t nout, size_t nattrs);
/* The symbol named `name`: the existing one, or a new one. */
sg_val sg_graph_symbol(sg_graph *g, const char *name);
/* Appends to a scope's lists (false when out of memory). */
bool sg_graph_scope_add(sg_graph *g, int32_t scope, int which /* 0 node, 1 input, 2 output */, int32_t index);
/* Sets a tensor's type and shape (rank -1: unknown; dims copied). */
bool sg_graph_set_shape(sg_graph *g, int32_t tensor, int type, int rank, const sg_val *dims);
/* Sets a tensor's values (n elements copied; n -1 drops them). */
bool sg_graph_set_values(sg_graph *g, int32_t tensor, int64_t n, const sg_val *values);

/* How a model layer's numbers follow from the model's symbols
 * (struct sg_model.numbers): its data input's dimensions and each runtime
 * value of its spec that shape arithmetic gives, as expressions in its own
 * `ex` whose SG_X_DIM leaf k is symbol k (graph->symbols). A value no
 * symbol gives (index data) has given[i] false. */
typedef struct sg_layer_numbers {
    sg_exprs ex;
    size_t rank;
    sg_val dims[SG_MAX_RANK];
    size_t nvalues; /* the spec's */
    sg_val *values;
    bool *given;
    bool symbolic; /* a dimension or value is not a constant */
} sg_layer_numbers;

/* The numbers of a layer (model.c): `data` the tensor of its data input
 * (NULL: unknown), `shape` the layer's (rank entries, -1 dynamic: those
 * dimensions are taken from data), and its spec's values, value k of the
 * reader's table `values` being value_exprs[k] (a graph expression) where
 * known[k]. Copies what it needs out of g->ex. False when out of memory. */
bool sg_layer_numbers_make(sg_layer_numbers *out, const sg_graph *g, const sg_gtensor *data, size_t rank,
                           const int64_t *shape, const sg_spec *spec, const sg_value_table *values,
                           const sg_val *value_exprs, const bool *known);
/* The model's symbols from g: names, and the first graph input (of the
 * main graph) dimension that is each one. False when out of memory. */
bool sg_model_take_symbols(struct sg_model *m, const sg_graph *g);
/* After the layers: drops the symbols that neither a graph input gives
 * nor any layer's numbers use (dimensions inside the graph no shape rule
 * could tell), renumbering the layers' expressions. */
void sg_model_keep_symbols(struct sg_model *m);

/* The data flow around m's layers (struct sg_model: flow, ntensors,
 * readers, concats; fuse.c), after them: layer_node[i] is the node of g
 * that layer i comes from (a Split's layers, one per output, in a row).
 * A model tensor is a graph tensor that a node reads, an output of the
 * main graph, or what a layer of the main graph or a listed Concat (of
 * the main graph, with an integer axis and every input connected) writes,
 * numbered in the graph's order. Each input of a node, of any scope (a
 * subgraph reading a tensor of the main graph included), is one reader of
 * its tensor, and each output of the main graph one more (an IR Result
 * is that output). A subgraph's layers are not in the flow (-1, -1).
 * Concats are listed in the file's order. False when out of memory. */
bool sg_model_read_flow(struct sg_model *m, const sg_graph *g, const int32_t *layer_node);

/* A node's attribute by name, or NULL. */
const sg_gattr *sg_gnode_attr(const sg_gnode *n, const char *name);

/* Shape inference over the whole graph (see above). Fails with
 * SG_ERR_IO, "<where>: <rule> (<values>)" into err's message (the reader
 * puts its own "failed to read ... model '<file>': " before it), for a
 * stated shape that conflicts with the inferred one, or subgraphs past
 * the bounds of inference. A node whose inputs its operator cannot take (a
 * rank or dimensions that do not broadcast, an axis out of range, a
 * missing attribute) and an operator with no rule (sg_graph_has_rule)
 * leave the node's outputs unknown: refusing other operators' faults is
 * not slicegen's job, and a slice reading such an output is skipped with
 * a reason. */
sg_status sg_graph_infer(sg_graph *g, sg_error *err);

/* The operators sg_graph_infer has a rule for: true when (domain, op) has
 * one. */
bool sg_graph_has_rule(const char *domain, const char *op);

/* A dimension or value as text: the constant, the symbol's name, or "?"
 * for an expression; into buf. */
const char *sg_graph_val_text(const sg_graph *g, sg_val v, char buf[64]);

#endif

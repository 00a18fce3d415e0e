/*
 * Lowering a model graph's nodes to specs (lower.c), once for both model
 * formats: one table of rows (domain, operator, versions, input roles,
 * lowering function) over sg_gnode and the graph's tensors and constants,
 * and the model's layers made from them (sg_model_from_graph).
 *
 * A reader decodes its file into a graph (graph.h), then hands it here
 * with an sg_lower_format: how its messages name a node, the words of
 * what an input of a node may lack (the same fact is worded as each
 * format's documents word it), the elements of its constants, and a check
 * of each made layer against what the file states. Everything else (which
 * inputs are read and how, attributes, runtime values, shape arithmetic
 * folded to constants, layer names and ids, the data flow) is the table's.
 */
#ifndef SG_LOWER_H
#define SG_LOWER_H

#include "frontend.h"
#include "graph.h"

/* Room for a message's quoted name, and for who a node is. */
enum { SG_LOWER_SHOW = 64, SG_LOWER_WHO = 160 };
/* The longest index list (starts, pads, indices, ...) read from a constant. */
enum { SG_LOWER_LIST_MAX = 4096 };

/* How an input of a row is read. */
typedef enum sg_lower_how {
    SG_IN_DATA,       /* the data: its type and shape */
    SG_IN_LIST,       /* a 1-D i32 or i64 list: constant, else one runtime value per element */
    SG_IN_CONST_LIST, /* a 1-D i32 or i64 list that must be constant */
    SG_IN_INDICES,    /* a constant i32 or i64 tensor of any rank (Gather's indices) */
    SG_IN_AXIS,       /* a constant i32 or i64 of one element, rank 0 or 1 */
    SG_IN_FILL        /* a constant scalar of the data's element type */
} sg_lower_how;

/* What reading a node's input found that a format may refuse
 * (sg_lower_format.say). a, b and text as listed. */
typedef enum sg_lower_fault {
    SG_LF_REQUIRED,       /* a required input is absent */
    SG_LF_UNDEFINED,      /* an input of the main graph that nothing makes */
    SG_LF_TOO_MANY,       /* more inputs than roles (a: the inputs, b: the roles) */
    SG_LF_NO_OUTPUT,      /* a node of one layer per output has none */
    SG_LF_NO_VERSION,     /* no version of the row's (the node's version is none of them) */
    SG_LF_DATA_UNKNOWN,   /* the data's type (a 0) or shape (a 1) is not known; text: why */
    SG_LF_DATA_TYPE,      /* the data's element type is one slicegen lacks */
    SG_LF_DATA_RANK,      /* the data's rank (a) is past SG_MAX_RANK */
    SG_LF_NOT_CONSTANT,   /* an input that must be constant is not */
    SG_LF_CONST_TYPE,     /* a constant of an element type the input does not take */
    SG_LF_CONST_SHAPE,    /* a constant of a shape the input does not take (a: rank, b: count) */
    SG_LF_CONST_LONG,     /* a constant of a elements, more than SG_LOWER_LIST_MAX */
    SG_LF_RUNTIME_RANK,   /* a runtime list not 1-D (a: its rank, -1 unknown) */
    SG_LF_RUNTIME_LENGTH, /* a runtime list whose length is not known */
    SG_LF_RUNTIME_TYPE,   /* a runtime list of no integer type (its type unknown: SG_GTYPE_UNKNOWN) */
    SG_LF_RUNTIME_MANY,   /* a runtime list of a elements, more than SG_MAX_VALUES */
    SG_LF_RUNTIME_TABLE   /* a runtime list of a elements the value table refuses; text: why */
} sg_lower_fault;

typedef struct sg_lower_fact {
    sg_lower_fault fault;
    const sg_gnode *node;
    const char *who;  /* the node, as sg_lower_format.who words it */
    size_t pos;       /* the input's position */
    const char *role; /* its name ("starts", "begin") */
    sg_lower_how how;
    int32_t tensor; /* the input's tensor; -1 when absent */
    int64_t a, b;
    const char *text;
    int data_type; /* the data's element type (a graph type) */
} sg_lower_fact;

typedef struct sg_lower_format {
    void *ctx;
    /* The head of an error: "failed to read ONNX model 'm.onnx'". */
    const char *what;
    /* A layer without a name is named after its node's first output. */
    bool unnamed_by_output;
    /* A name as messages show it. */
    const char *(*show)(const char *text, char buf[SG_LOWER_SHOW]);
    /* Who node n is in messages: "node 'x' (index 3)", "layer 'x' id 3". */
    const char *(*who)(void *ctx, const sg_graph *g, const sg_gnode *n, char buf[SG_LOWER_WHO]);
    /* Fact f as the format words it: a skip reason into reason (SG_OK), a
     * malformed model (err, SG_ERR_IO, or SG_ERR_NOMEM), or nothing
     * (SG_OK, reason left empty): the format takes what f says. */
    sg_status (*say)(void *ctx, const sg_graph *g, const sg_lower_fact *f, char *reason, size_t size,
                     sg_error *err);
    /* The elements of constant tensor t as scalars of its element type
     * (*values malloc'd, g->tensors[t].count of them). Fails into err. */
    sg_status (*constant)(void *ctx, const sg_graph *g, int32_t t, sg_scalar **values, sg_error *err);
    /* Checks layer l, made from output k of node n, against the file;
     * NULL: no check. Fails into err. */
    sg_status (*check)(void *ctx, const sg_graph *g, const sg_gnode *n, size_t k, const sg_model_layer *l,
                       sg_error *err);
} sg_lower_format;

/* The model's layers from g: each node, scope by scope (the main graph
 * first), in the file's order, that a row lowers becomes one layer (one
 * per output for Split and VariadicSplit) with its spec or a skip reason;
 * one whose data input is shape arithmetic is folded instead
 * (sg_model.folded). Then the model's symbols and the data flow. A
 * malformed model fails with SG_ERR_IO, "<f->what>: <rule>". */
sg_status sg_model_from_graph(const sg_graph *g, const sg_lower_format *f, sg_model **model, sg_error *err);

/* An element's little-endian bits as a scalar, exactly: integers by
 * their sign, floats widened to double, bool false or true. */
sg_scalar sg_scalar_from_bits(sg_dtype dtype, uint64_t bits);

#endif

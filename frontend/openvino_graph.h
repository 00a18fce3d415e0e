/*
 * The OpenVINO IR reader's two files (openvino_ir.c, openvino_graph.c):
 * what the graph decoder takes from the parsed and checked IR, as plain
 * values (libxml2 stays in openvino_ir.c), and the element types of IR
 * text, which OpenVINO's shape rules (graph_infer_openvino.c) read too.
 */
#ifndef SG_OPENVINO_GRAPH_H
#define SG_OPENVINO_GRAPH_H

#include "graph.h"

/* The domain of the graph's OpenVINO nodes. */
#define SG_OPENVINO_DOMAIN "openvino"

/* An element type as IR writes it, any case: a port precision ("FP32",
 * "I64", "BOOL") or an element_type ("f32", "i64", "boolean"), as a graph
 * type: an sg_dtype, SG_GTYPE_UNKNOWN for "dynamic", "undefined" and
 * "unspecified" (or NULL), SG_GTYPE_OTHER for any other ("u4", "string"). */
int sg_ir_graph_type(const char *text);

/* A count as IR writes it: a whole non-negative decimal integer that fits
 * int64, digits only (text NULL: missing). */
typedef enum sg_ir_count {
    SG_IR_COUNT_OK,
    SG_IR_COUNT_MISSING,
    SG_IR_COUNT_NOT_NUMBER,
    SG_IR_COUNT_NEGATIVE,
    SG_IR_COUNT_RANGE
} sg_ir_count;
sg_ir_count sg_ir_parse_count(const char *text, int64_t *value);
/* The message of a count that is not SG_IR_COUNT_OK, into buf: "missing
 * attribute (<where>, attribute <name>)", "attribute must not be negative
 * (<where>, attribute <name> = '<shown>')", ...; `shown` is the text as
 * messages show it. */
void sg_ir_count_message(sg_ir_count status, const char *where, const char *name, const char *shown,
                         char *buf, size_t size);

/* An output port: its id, element type (a graph type) and dimensions,
 * rank of them (-1 for a dynamic one: "-1", "?" or a range "1..10"); dims
 * NULL when rank is past SG_MAX_RANK. */
typedef struct sg_ir_port {
    int64_t id;
    int type;
    size_t rank;
    const int64_t *dims;
} sg_ir_port;

/* What feeds an input: output position `output` (in the producer's
 * <output> list) of layer `layer`; layer SIZE_MAX when unconnected. */
typedef struct sg_ir_source {
    size_t layer, output;
} sg_ir_source;

/* A layer, with its <data> attributes as name and value pairs. A Const's
 * element type, shape (rank entries) and element count come with it, and
 * its bytes when the reader read them (raw NULL otherwise); a Parameter's
 * element type is its <data element_type>, for a port without precision. */
typedef struct sg_ir_layer {
    const char *name, *type;
    int64_t id;      /* its id attribute */
    int64_t version; /* N of its version "opsetN"; 0 for any other */
    size_t nattrs;
    const char *const *attrs; /* 2 * nattrs: name, value, name, value... */
    size_t nin, nout;
    const sg_ir_source *in; /* per input position */
    const sg_ir_port *out;  /* per output position */
    int data_type;          /* Const and Parameter: <data element_type> as a graph type */
    size_t const_rank;      /* Const: its shape */
    const int64_t *const_shape;
    int64_t const_count;
    const void *raw; /* Const: const_count elements of data_type, little-endian; NULL when not read */
} sg_ir_layer;

/* Decodes the layers (the edges make no cycle; `order` lists every layer
 * once, each after those it reads) into g (zeroed): a tensor per output
 * port, named "<layer name>:<port id>", stating the port's type and shape
 * (a dynamic dimension a symbol: "<parameter name>_dim<k>" for a
 * Parameter's, "<tensor>_dim<k>" for any other's); a node per layer, in
 * `order`, of the domain SG_OPENVINO_DOMAIN, its attributes strings;
 * Parameters' tensors the graph's inputs with their stated shapes,
 * Consts' tensors constants, Results' inputs its outputs. Then shape
 * inference (sg_graph_infer): SG_ERR_IO with err's message saying where
 * ("node 'x' (Concat): ..."), without the model's name. */
sg_status sg_openvino_decode_graph(const sg_ir_layer *layers, size_t nlayers, const size_t *order,
                                   sg_graph *g, sg_error *err);

#endif

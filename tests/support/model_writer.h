/* Small models written by hand for the tests (test_model_flow.c,
 * test_fuse.c): OpenVINO IR (the XML text and its .bin weights) and ONNX
 * (protobuf written field by field), into a folder. Out of memory or a file
 * that cannot be written ends the program with a line on stdout. */
#ifndef SG_TEST_MODEL_WRITER_H
#define SG_TEST_MODEL_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- a growing byte buffer ---------------------------------------------------- */

typedef struct buf {
    uint8_t *b;
    size_t len, cap;
} buf;

void put(buf *o, const void *bytes, size_t n);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void putf(buf *o, const char *fmt, ...);
/* Writes o to dir/name; path (size bytes) receives that path. */
void write_file(const char *dir, const char *name, const buf *o, char *path, size_t size);

/* ---- OpenVINO IR --------------------------------------------------------------- */

typedef struct ir {
    buf layers, edges, bin;
} ir;

/* Layer `id` of type `type` (<data data/> unless NULL): input ports 0..
 * with the dims of ins[] (NULL-terminated; "" is rank 0; "1,3,8,8"), then
 * output ports numbered on with those of outs[], of precision `precision`
 * (FP32, U8, I16, ...). */
void ir_layer(ir *m, int id, const char *name, const char *type, const char *version, const char *data,
              const char *const *ins, const char *const *outs, const char *precision);
/* A Parameter of dims `dims` and precision `precision` (its element_type
 * spelled as OpenVINO does: FP32 is f32). */
void ir_parameter(ir *m, int id, const char *name, const char *dims, const char *precision);
/* An i64 Const named "const<id>" of n values: 1-D, or rank 0 when scalar. */
void ir_const(ir *m, int id, const int64_t *values, size_t n, bool scalar);
void ir_edge(ir *m, int from, int from_port, int to, int to_port);
/* A Result named "result<id>" of output port from_port of layer `from`. */
void ir_result(ir *m, int id, const char *dims, int from, int from_port);
/* Writes dir/name.xml and dir/name.bin (paths into xml_path and bin_path,
 * size bytes each) and empties the writer. */
void ir_write(ir *m, const char *dir, const char *name, char *xml_path, char *bin_path, size_t size);

/* ---- ONNX ---------------------------------------------------------------------- */

void pb_varint(buf *o, uint64_t v);
void pb_int(buf *o, unsigned field, int64_t v);
void pb_bytes(buf *o, unsigned field, const void *bytes, size_t n);
void pb_str(buf *o, unsigned field, const char *text);
/* Appends sub as a message field and frees it. */
void pb_msg(buf *o, unsigned field, buf *sub);

/* TensorProto.DataType */
enum {
    ONNX_FLOAT = 1,
    ONNX_UINT8 = 2,
    ONNX_INT8 = 3,
    ONNX_UINT16 = 4,
    ONNX_INT16 = 5,
    ONNX_INT32 = 6,
    ONNX_INT64 = 7,
    ONNX_BOOL = 9,
    ONNX_FLOAT16 = 10,
    ONNX_DOUBLE = 11,
    ONNX_UINT32 = 12,
    ONNX_UINT64 = 13,
    ONNX_BFLOAT16 = 16
};

/* GraphProto fields of value infos */
enum { ONNX_GRAPH_INPUT = 11, ONNX_GRAPH_OUTPUT = 12, ONNX_VALUE_INFO = 13 };

/* A graph being written: nodes, initializers, inputs and outputs. */
typedef struct onnx {
    buf graph;
    int64_t nodes; /* how many nodes so far */
} onnx;

/* One attribute of a node: name NULL for none; type 2 INT (value), 1 FLOAT
 * (real), 3 STRING (text), 5 GRAPH (body's graph, or an empty one when
 * body is NULL). */
typedef struct onnx_attr {
    const char *name;
    int type;
    int64_t value;
    float real;
    const char *text;
    const struct onnx *body;
} onnx_attr;

enum { ONNX_ATTR_FLOAT = 1, ONNX_ATTR_INT = 2, ONNX_ATTR_STRING = 3, ONNX_ATTR_GRAPH = 5 };

static inline onnx_attr attr_int(const char *name, int64_t value)
{
    return (onnx_attr){.name = name, .type = ONNX_ATTR_INT, .value = value};
}

static inline onnx_attr attr_float(const char *name, float real)
{
    return (onnx_attr){.name = name, .type = ONNX_ATTR_FLOAT, .real = real};
}

static inline onnx_attr attr_string(const char *name, const char *text)
{
    return (onnx_attr){.name = name, .type = ONNX_ATTR_STRING, .text = text};
}

static inline onnx_attr attr_graph(const char *name)
{
    return (onnx_attr){.name = name, .type = ONNX_ATTR_GRAPH};
}

/* A GRAPH attribute holding body's nodes and values (body stays the
 * caller's). */
static inline onnx_attr attr_body(const char *name, const struct onnx *body)
{
    return (onnx_attr){.name = name, .type = ONNX_ATTR_GRAPH, .body = body};
}

/* No attribute. */
#define NO_ATTR ((onnx_attr){0})

/* A tensor value info of element type elem_type (ONNX_FLOAT, ...) and
 * dims[0..rank) in the graph's `field` (ONNX_GRAPH_INPUT, ...). */
void onnx_value(onnx *m, unsigned field, const char *name, int elem_type, const int64_t *dims, size_t rank);
/* INT64 initializers: 1-D of n values, and rank 0. */
void onnx_ints(onnx *m, const char *name, const int64_t *values, size_t n);
void onnx_int_scalar(onnx *m, const char *name, int64_t value);
/* Node `type` named `name` ("" for none) from inputs to outputs
 * (NULL-terminated) with attribute attr; returns its index in the graph. */
int64_t onnx_node(onnx *m, const char *name, const char *type, const char *const *inputs,
                  const char *const *outputs, onnx_attr attr);
/* Writes the model (IR version 7, default domain at `opset`) of graph
 * `name` to dir/name.onnx (its path into path, size bytes) and empties the
 * writer. */
void onnx_write(onnx *m, const char *dir, const char *name, int64_t opset, char *path, size_t size);

#endif /* SG_TEST_MODEL_WRITER_H */

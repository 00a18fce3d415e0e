/*
 * The data flow the model readers record around slice layers (sg_model's
 * flow, ntensors, readers and concats), in OpenVINO IR and in ONNX, for
 * models this test writes by hand into a temporary folder:
 *   - Focus: four slices of one input into a Concat on axis 1, then the
 *     model's output: the slices read one tensor, which has four readers;
 *     the Concat's inputs are the slices' outputs, in order; its name, id
 *     and axis;
 *   - a chain slice -> Pad -> output: the Pad reads what the slice writes,
 *     and each tensor is read once;
 *   - a slice whose output is also an output of the model (readers 2), and
 *     a node that reads one tensor at both its inputs (readers 2);
 *   - a Split feeding a Concat in reverse order: one layer per output, each
 *     with its own tensor, both reading one;
 *   - Concats whose axis is missing or malformed are not listed (and fail
 *     nothing); an ONNX Concat-1 without axis is on axis 1; an ONNX graph
 *     with a subgraph counts one reader more for every tensor.
 * Every tensor number lies in [0, ntensors), and ntensors is the count of
 * tensors the model reads or writes.
 *
 * Usage: test_model_flow. Prints one line per failed check and then
 * "model-flow: N passed, M failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../frontend/frontend.h"
#include "check.h"

typedef struct suite {
    check_counts counts;
    char dir[256];
} suite;

/* ---- a growing byte buffer ------------------------------------------------------ */

typedef struct buf {
    uint8_t *b;
    size_t len, cap;
} buf;

static void put(buf *o, const void *bytes, size_t n)
{
    if (n == 0)
        return;
    if (o->len + n > o->cap) {
        o->cap = 2 * (o->len + n) + 256;
        o->b = realloc(o->b, o->cap);
        if (o->b == NULL) {
            printf("model-flow: out of memory\n");
            exit(1);
        }
    }
    memcpy(o->b + o->len, bytes, n);
    o->len += n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
putf(buf *o, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put(o, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

static void write_file(suite *s, const char *name, const buf *o, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", s->dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (o->len > 0 && fwrite(o->b, 1, o->len, f) != o->len) || fclose(f) != 0) {
        printf("model-flow: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* ---- checks shared by both formats ---------------------------------------------- */

static bool is_tensor(const sg_model *m, int64_t t)
{
    return t >= 0 && (uint64_t)t < m->ntensors;
}

/* The flow is recorded, with `layers` layers, `tensors` tensors and
 * `concats` Concats, and every tensor number it holds is in range. */
static bool check_shape(suite *s, const char *what, const sg_model *m, size_t layers, size_t tensors,
                        size_t concats)
{
    bool ok = CHECK(s, m->nlayers == layers, "%s: %zu layers, expected %zu", what, m->nlayers, layers);
    ok = CHECK(s, m->flow != NULL && m->readers != NULL, "%s: no flow recorded", what) && ok;
    ok = CHECK(s, m->ntensors == tensors, "%s: %zu tensors, expected %zu", what, m->ntensors, tensors) && ok;
    ok = CHECK(s, m->nconcats == concats, "%s: %zu Concats, expected %zu", what, m->nconcats, concats) && ok;
    if (!ok)
        return false;
    for (size_t i = 0; i < m->nlayers; i++)
        ok = CHECK(s, is_tensor(m, m->flow[i].in) && is_tensor(m, m->flow[i].out),
                   "%s: layer %zu flows from %lld to %lld", what, i, (long long)m->flow[i].in,
                   (long long)m->flow[i].out) &&
             ok;
    for (size_t c = 0; c < m->nconcats; c++) {
        ok = CHECK(s, is_tensor(m, m->concats[c].out), "%s: Concat %zu writes %lld", what, c,
                   (long long)m->concats[c].out) &&
             ok;
        for (size_t k = 0; k < m->concats[c].ninputs; k++)
            ok = CHECK(s, is_tensor(m, m->concats[c].inputs[k]), "%s: Concat %zu input %zu is %lld", what, c,
                       k, (long long)m->concats[c].inputs[k]) &&
                 ok;
    }
    return ok;
}

static void check_readers(suite *s, const char *what, const sg_model *m, int64_t t, int64_t expected)
{
    CHECK(s, is_tensor(m, t) && m->readers[t] == expected, "%s: tensor %lld has %lld readers, expected %lld",
          what, (long long)t, is_tensor(m, t) ? (long long)m->readers[t] : -1LL, (long long)expected);
}

static void check_concat(suite *s, const char *what, const sg_model_concat *c, const char *name, int64_t id,
                         int64_t axis, size_t ninputs)
{
    CHECK(s, strcmp(c->name, name) == 0, "%s: Concat named '%s', expected '%s'", what, c->name, name);
    CHECK(s, c->id == id, "%s: Concat id %lld, expected %lld", what, (long long)c->id, (long long)id);
    CHECK(s, c->axis == axis, "%s: Concat axis %lld, expected %lld", what, (long long)c->axis,
          (long long)axis);
    CHECK(s, c->ninputs == ninputs, "%s: Concat of %zu inputs, expected %zu", what, c->ninputs, ninputs);
}

/* Focus: layers 0-3 the slices, one Concat of their outputs in order. */
static void check_focus(suite *s, const char *what, const sg_model *m, size_t tensors, const char *cat,
                        int64_t cat_id)
{
    if (!check_shape(s, what, m, 4, tensors, 1))
        return;
    const sg_model_concat *c = &m->concats[0];
    check_concat(s, what, c, cat, cat_id, 1, 4);
    for (size_t k = 0; k < 4; k++) {
        CHECK(s, m->flow[k].in == m->flow[0].in, "%s: slice %zu reads %lld, slice 0 %lld", what, k,
              (long long)m->flow[k].in, (long long)m->flow[0].in);
        CHECK(s, m->flow[k].out != m->flow[0].in, "%s: slice %zu writes what it reads", what, k);
        CHECK(s, c->ninputs == 4 && c->inputs[k] == m->flow[k].out,
              "%s: Concat input %zu is not slice %zu's output", what, k, k);
        check_readers(s, what, m, m->flow[k].out, 1);
        for (size_t j = 0; j < k; j++)
            CHECK(s, m->flow[j].out != m->flow[k].out, "%s: slices %zu and %zu write one tensor", what, j, k);
    }
    check_readers(s, what, m, m->flow[0].in, 4);
    check_readers(s, what, m, c->out, 1);
}

/* A chain: layer 0 a slice, layer 1 a Pad of its output, which is the
 * model's output. */
static void check_chain(suite *s, const char *what, const sg_model *m, size_t tensors)
{
    if (!check_shape(s, what, m, 2, tensors, 0))
        return;
    CHECK(s, m->flow[1].in == m->flow[0].out, "%s: the Pad reads %lld, the slice writes %lld", what,
          (long long)m->flow[1].in, (long long)m->flow[0].out);
    CHECK(s, m->flow[0].in != m->flow[0].out && m->flow[1].out != m->flow[0].out, "%s: tensors reused", what);
    for (size_t i = 0; i < 2; i++) {
        check_readers(s, what, m, m->flow[i].in, 1);
        check_readers(s, what, m, m->flow[i].out, 1);
    }
}

/* Two readers: layer 0 a slice whose output the model also gives out,
 * layer 1 a Pad of it whose output one node reads at both its inputs. */
static void check_shared(suite *s, const char *what, const sg_model *m, size_t tensors)
{
    if (!check_shape(s, what, m, 2, tensors, 0))
        return;
    CHECK(s, m->flow[1].in == m->flow[0].out, "%s: the Pad does not read the slice's output", what);
    check_readers(s, what, m, m->flow[0].in, 1);
    check_readers(s, what, m, m->flow[0].out, 2);
    check_readers(s, what, m, m->flow[1].out, 2);
}

/* A Split of two outputs (layers 0 and 1, named `split`) into one Concat,
 * second output first. */
static void check_split(suite *s, const char *what, const sg_model *m, size_t tensors, const char *split,
                        const char *cat, int64_t cat_id)
{
    if (!check_shape(s, what, m, 2, tensors, 1))
        return;
    const sg_model_concat *c = &m->concats[0];
    check_concat(s, what, c, cat, cat_id, -1, 2);
    CHECK(s, strcmp(m->layers[0].name, split) == 0 && strcmp(m->layers[1].name, split) == 0,
          "%s: the Split's layers are '%s' and '%s'", what, m->layers[0].name, m->layers[1].name);
    CHECK(s, m->flow[0].in == m->flow[1].in, "%s: the Split's outputs read different tensors", what);
    CHECK(s, m->flow[0].out != m->flow[1].out, "%s: the Split's outputs write one tensor", what);
    CHECK(s, c->ninputs == 2 && c->inputs[0] == m->flow[1].out && c->inputs[1] == m->flow[0].out,
          "%s: the Concat's inputs are not the Split's outputs 1, 0", what);
    check_readers(s, what, m, m->flow[0].in, 1);
    check_readers(s, what, m, m->flow[0].out, 1);
    check_readers(s, what, m, m->flow[1].out, 1);
    check_readers(s, what, m, c->out, 1);
}

/* ---- OpenVINO IR ------------------------------------------------------------------ */

typedef struct ir {
    buf layers, edges, bin;
} ir;

static void ir_dims(buf *o, const char *dims)
{
    for (const char *p = dims; *p != '\0';) {
        size_t n = strcspn(p, ",");
        putf(o, "<dim>%.*s</dim>", (int)n, p);
        p += n + (p[n] == ',');
    }
}

/* Layer `id` of type `type` (<data data/> unless NULL): input ports 0..
 * with the dims of ins[] (NULL-terminated; "" is rank 0), then output ports
 * with those of outs[], of precision `precision`. */
static void ir_layer(ir *m, int id, const char *name, const char *type, const char *version, const char *data,
                     const char *const *ins, const char *const *outs, const char *precision)
{
    int port = 0;
    putf(&m->layers, "<layer id=\"%d\" name=\"%s\" type=\"%s\" version=\"%s\">", id, name, type, version);
    if (data != NULL)
        putf(&m->layers, "<data %s/>", data);
    if (ins != NULL && ins[0] != NULL) {
        putf(&m->layers, "<input>");
        for (; ins[port] != NULL; port++) {
            putf(&m->layers, "<port id=\"%d\">", port);
            ir_dims(&m->layers, ins[port]);
            putf(&m->layers, "</port>");
        }
        putf(&m->layers, "</input>");
    }
    if (outs != NULL && outs[0] != NULL) {
        putf(&m->layers, "<output>");
        for (size_t k = 0; outs[k] != NULL; k++) {
            putf(&m->layers, "<port id=\"%zu\" precision=\"%s\">", port + k, precision);
            ir_dims(&m->layers, outs[k]);
            putf(&m->layers, "</port>");
        }
        putf(&m->layers, "</output>");
    }
    putf(&m->layers, "</layer>\n");
}

static void ir_parameter(ir *m, int id, const char *name, const char *dims)
{
    char data[128];
    snprintf(data, sizeof data, "shape=\"%s\" element_type=\"f32\"", dims);
    ir_layer(m, id, name, "Parameter", "opset1", data, NULL, (const char *[]){dims, NULL}, "FP32");
}

/* An i64 Const of n values: 1-D, or rank 0 when scalar. */
static void ir_const(ir *m, int id, const int64_t *values, size_t n, bool scalar)
{
    char data[160], name[32], dims[24];
    snprintf(dims, sizeof dims, scalar ? "" : "%zu", n);
    snprintf(name, sizeof name, "const%d", id);
    snprintf(data, sizeof data, "element_type=\"i64\" shape=\"%s\" offset=\"%zu\" size=\"%zu\"", dims,
             m->bin.len, n * 8);
    for (size_t i = 0; i < n; i++) {
        uint8_t le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (uint8_t)((uint64_t)values[i] >> (8 * b));
        put(&m->bin, le, 8);
    }
    ir_layer(m, id, name, "Const", "opset1", data, NULL, (const char *[]){dims, NULL}, "I64");
}

static void ir_edge(ir *m, int from, int from_port, int to, int to_port)
{
    putf(&m->edges, "<edge from-layer=\"%d\" from-port=\"%d\" to-layer=\"%d\" to-port=\"%d\"/>\n", from,
         from_port, to, to_port);
}

static void ir_result(ir *m, int id, const char *dims, int from, int from_port)
{
    char name[32];
    snprintf(name, sizeof name, "result%d", id);
    ir_layer(m, id, name, "Result", "opset1", NULL, (const char *[]){dims, NULL}, NULL, NULL);
    ir_edge(m, from, from_port, id, 0);
}

/* A StridedSlice of `from` (dims `in`, output port from_port) by Consts
 * begin, end and stride of 4 values (ids begin, begin + 1, begin + 2). */
static void ir_slice(ir *m, int id, const char *name, const char *in, const char *out, int from,
                     int from_port, int begin)
{
    ir_layer(m, id, name, "StridedSlice", "opset1", "begin_mask=\"1,1,0,0\" end_mask=\"1,1,1,1\"",
             (const char *[]){in, "4", "4", "4", NULL}, (const char *[]){out, NULL}, "FP32");
    ir_edge(m, from, from_port, id, 0);
    for (int k = 1; k <= 3; k++)
        ir_edge(m, begin + k - 1, 0, id, k);
}

/* Reads the model, NULL (with a failed check) when it fails. */
static sg_model *ir_load(suite *s, ir *m, const char *name)
{
    char xml_path[512], bin_path[512], xml_name[64], bin_name[64];
    buf xml = {0};
    putf(&xml, "<?xml version=\"1.0\"?>\n<net name=\"%s\" version=\"11\">\n<layers>\n", name);
    put(&xml, m->layers.b, m->layers.len);
    putf(&xml, "</layers>\n<edges>\n");
    put(&xml, m->edges.b, m->edges.len);
    putf(&xml, "</edges>\n</net>\n");
    snprintf(xml_name, sizeof xml_name, "%s.xml", name);
    snprintf(bin_name, sizeof bin_name, "%s.bin", name);
    write_file(s, xml_name, &xml, xml_path, sizeof xml_path);
    write_file(s, bin_name, &m->bin, bin_path, sizeof bin_path);
    free(xml.b);
    free(m->layers.b);
    free(m->edges.b);
    free(m->bin.b);
    *m = (ir){0};
    sg_model *model = NULL;
    sg_error err = {0};
    CHECK(s, sg_model_load(xml_path, NULL, &model, &err) == SG_OK, "%s: %s", name, err.message);
    unlink(xml_path);
    unlink(bin_path);
    return model;
}

/* Consts 1-3: begin, end and stride of an every-other-element slice of the
 * last two axes from offset (dy, dx) (ids first .. first + 2). */
static void ir_focus_consts(ir *m, int first, int64_t dy, int64_t dx)
{
    ir_const(m, first, (const int64_t[]){0, 0, dy, dx}, 4, false);
    ir_const(m, first + 1, (const int64_t[]){0, 0, 0, 0}, 4, false);
    ir_const(m, first + 2, (const int64_t[]){1, 1, 2, 2}, 4, false);
}

static void test_ir_focus(suite *s)
{
    ir m = {0};
    const char *x = "1,3,8,8", *part = "1,3,4,4";
    ir_parameter(&m, 0, "images", x);
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "focus/slice%d", k);
        ir_focus_consts(&m, 1 + 3 * k, k & 1, k >> 1);
        ir_slice(&m, 20 + k, name, x, part, 0, 0, 1 + 3 * k);
    }
    ir_layer(&m, 30, "focus/concat", "Concat", "opset1", "axis=\"1\"",
             (const char *[]){part, part, part, part, NULL}, (const char *[]){"1,12,4,4", NULL}, "FP32");
    for (int k = 0; k < 4; k++)
        ir_edge(&m, 20 + k, 4, 30, k);
    ir_result(&m, 40, "1,12,4,4", 30, 4);
    sg_model *model = ir_load(s, &m, "focus");
    if (model != NULL)
        check_focus(s, "IR focus", model, 1 + 12 + 4 + 1, "focus/concat",
                    30); /* images, Consts, slices, concat */
    sg_model_free(model);
}

static void test_ir_chain(suite *s, bool shared)
{
    ir m = {0};
    ir_parameter(&m, 0, "x", "1,3,8,8");
    ir_focus_consts(&m, 1, 1, 1);
    ir_slice(&m, 5, "crop", "1,3,8,8", "1,3,4,4", 0, 0, 1);
    ir_const(&m, 6, (const int64_t[]){0, 0, 1, 1}, 4, false);
    ir_const(&m, 7, (const int64_t[]){0, 0, 1, 1}, 4, false);
    ir_layer(&m, 8, "pad", "Pad", "opset12", "pad_mode=\"constant\"",
             (const char *[]){"1,3,4,4", "4", "4", NULL}, (const char *[]){"1,3,6,6", NULL}, "FP32");
    ir_edge(&m, 5, 4, 8, 0);
    ir_edge(&m, 6, 0, 8, 1);
    ir_edge(&m, 7, 0, 8, 2);
    if (!shared) {
        ir_result(&m, 9, "1,3,6,6", 8, 3);
        sg_model *model = ir_load(s, &m, "chain");
        if (model != NULL)
            check_chain(s, "IR chain", model, 1 + 3 + 1 + 2 + 1);
        sg_model_free(model);
        return;
    }
    ir_result(&m, 9, "1,3,4,4", 5, 4); /* the slice's output is also the model's */
    ir_layer(&m, 10, "square", "Multiply", "opset1", NULL, (const char *[]){"1,3,6,6", "1,3,6,6", NULL},
             (const char *[]){"1,3,6,6", NULL}, "FP32");
    ir_edge(&m, 8, 3, 10, 0);
    ir_edge(&m, 8, 3, 10, 1);
    ir_result(&m, 11, "1,3,6,6", 10, 2);
    sg_model *model = ir_load(s, &m, "shared");
    if (model != NULL)
        check_shared(s, "IR shared", model, 1 + 3 + 1 + 2 + 1 + 1);
    sg_model_free(model);
}

static void test_ir_split(suite *s)
{
    ir m = {0};
    ir_parameter(&m, 0, "x", "1,4,6");
    ir_const(&m, 1, (const int64_t[]){2}, 1, true);
    ir_layer(&m, 2, "halves", "Split", "opset1", "num_splits=\"2\"", (const char *[]){"1,4,6", "", NULL},
             (const char *[]){"1,4,3", "1,4,3", NULL}, "FP32");
    ir_edge(&m, 0, 0, 2, 0);
    ir_edge(&m, 1, 0, 2, 1);
    ir_layer(&m, 3, "swap", "Concat", "opset1", "axis=\"-1\"", (const char *[]){"1,4,3", "1,4,3", NULL},
             (const char *[]){"1,4,6", NULL}, "FP32");
    ir_edge(&m, 2, 3, 3, 0); /* output port 3 (the second part) first */
    ir_edge(&m, 2, 2, 3, 1);
    ir_result(&m, 4, "1,4,6", 3, 2);
    sg_model *model = ir_load(s, &m, "split");
    if (model != NULL)
        check_split(s, "IR split", model, 1 + 1 + 2 + 1, "halves", "swap", 3);
    sg_model_free(model);
}

/* Concats without an axis, with one that is no integer, and with an
 * unconnected input are not listed; the slice still is. */
static void test_ir_bad_concats(suite *s)
{
    ir m = {0};
    ir_parameter(&m, 0, "x", "1,3,8,8");
    ir_focus_consts(&m, 1, 0, 0);
    ir_slice(&m, 5, "crop", "1,3,8,8", "1,3,4,4", 0, 0, 1);
    const char *two[] = {"1,3,4,4", "1,3,4,4", NULL}, *out[] = {"1,6,4,4", NULL};
    ir_layer(&m, 6, "no-axis", "Concat", "opset1", NULL, two, out, "FP32");
    ir_layer(&m, 7, "odd-axis", "Concat", "opset1", "axis=\"1.5\"", two, out, "FP32");
    ir_layer(&m, 8, "half-wired", "Concat", "opset1", "axis=\"1\"", two, out, "FP32");
    for (int id = 6; id <= 8; id++) {
        ir_edge(&m, 5, 4, id, 0);
        if (id != 8)
            ir_edge(&m, 5, 4, id, 1);
        ir_result(&m, id + 10, "1,6,4,4", id, 2);
    }
    sg_model *model = ir_load(s, &m, "bad-concats");
    if (model != NULL && check_shape(s, "IR bad Concats", model, 1, 1 + 3 + 1 + 3, 0))
        check_readers(s, "IR bad Concats", model, model->flow[0].out, 5);
    sg_model_free(model);
}

/* ---- ONNX: protobuf written by hand --------------------------------------------- */

static void pb_varint(buf *o, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
    put(o, b, n);
}

static void pb_int(buf *o, unsigned field, int64_t v)
{
    pb_varint(o, (uint64_t)field << 3);
    pb_varint(o, (uint64_t)v);
}

static void pb_bytes(buf *o, unsigned field, const void *bytes, size_t n)
{
    pb_varint(o, (uint64_t)field << 3 | 2);
    pb_varint(o, n);
    put(o, bytes, n);
}

static void pb_str(buf *o, unsigned field, const char *text)
{
    pb_bytes(o, field, text, strlen(text));
}

/* Appends sub as a message field and frees it. */
static void pb_msg(buf *o, unsigned field, buf *sub)
{
    pb_bytes(o, field, sub->b, sub->len);
    free(sub->b);
    *sub = (buf){0};
}

/* A graph being written: nodes, initializers, inputs and outputs. */
typedef struct onnx {
    buf graph;
} onnx;

/* A float tensor value info (GraphProto input 11 / output 12). */
static void onnx_value(onnx *m, unsigned field, const char *name, const int64_t *dims, size_t rank)
{
    buf shape = {0}, tensor = {0}, type = {0}, value = {0};
    for (size_t d = 0; d < rank; d++) {
        buf dim = {0};
        pb_int(&dim, 1, dims[d]);
        pb_msg(&shape, 1, &dim);
    }
    pb_int(&tensor, 1, 1); /* FLOAT */
    pb_msg(&tensor, 2, &shape);
    pb_msg(&type, 1, &tensor);
    pb_str(&value, 1, name);
    pb_msg(&value, 2, &type);
    pb_msg(&m->graph, field, &value);
}

static void onnx_ints(onnx *m, const char *name, const int64_t *values, size_t n)
{
    buf t = {0}, packed = {0};
    pb_int(&t, 1, (int64_t)n);
    pb_int(&t, 2, 7); /* INT64 */
    for (size_t i = 0; i < n; i++)
        pb_varint(&packed, (uint64_t)values[i]);
    pb_bytes(&t, 7, packed.b, packed.len);
    free(packed.b);
    pb_str(&t, 8, name);
    pb_msg(&m->graph, 5, &t);
}

/* An attribute: INT (type 2) `value`, FLOAT (1) 0.5, or GRAPH (5) with an
 * empty graph in field g. */
static void onnx_attr(buf *node, const char *name, int type, int64_t value)
{
    buf a = {0};
    pb_str(&a, 1, name);
    pb_int(&a, 20, type);
    if (type == 2) {
        pb_int(&a, 3, value);
    } else if (type == 1) {
        uint8_t half[4] = {0, 0, 0, 0x3F};
        pb_varint(&a, 2 << 3 | 5);
        put(&a, half, 4);
    } else {
        pb_bytes(&a, 6, "", 0);
    }
    pb_msg(node, 5, &a);
}

/* Node `type` named `name` ("" for none) from inputs to outputs
 * (NULL-terminated); attr one attribute (NULL: none) of type attr_type. */
static void onnx_node(onnx *m, const char *name, const char *type, const char *const *inputs,
                      const char *const *outputs, const char *attr, int attr_type, int64_t value)
{
    buf node = {0};
    for (size_t i = 0; inputs[i] != NULL; i++)
        pb_str(&node, 1, inputs[i]);
    for (size_t i = 0; outputs[i] != NULL; i++)
        pb_str(&node, 2, outputs[i]);
    if (name[0] != '\0')
        pb_str(&node, 3, name);
    pb_str(&node, 4, type);
    if (attr != NULL)
        onnx_attr(&node, attr, attr_type, value);
    pb_msg(&m->graph, 1, &node);
}

static sg_model *onnx_load(suite *s, onnx *m, const char *name, int64_t opset)
{
    char path[512], file[64];
    buf model = {0}, op = {0};
    pb_int(&model, 1, 7);
    pb_str(&op, 1, "");
    pb_int(&op, 2, opset);
    pb_msg(&model, 8, &op);
    pb_str(&m->graph, 2, name);
    pb_msg(&model, 7, &m->graph);
    snprintf(file, sizeof file, "%s.onnx", name);
    write_file(s, file, &model, path, sizeof path);
    free(model.b);
    sg_model *result = NULL;
    sg_error err = {0};
    CHECK(s, sg_onnx_load(path, &result, &err) == SG_OK, "%s: %s", name, err.message);
    unlink(path);
    return result;
}

static const int64_t nchw[] = {1, 3, 8, 8};

/* Slice-13 `name` of `in` into `out` by starts (dy, dx), ends INT64_MAX and
 * steps 2 on axes 2 and 3 (initializers "<name>/starts", "ends", "axes",
 * "steps"; the three shared ones written once, when `shared_too`). */
static void onnx_slice(onnx *m, const char *name, const char *in, const char *out, int64_t dy, int64_t dx,
                       bool shared_too)
{
    char starts[64];
    snprintf(starts, sizeof starts, "%s/starts", name);
    onnx_ints(m, starts, (const int64_t[]){dy, dx}, 2);
    if (shared_too) {
        onnx_ints(m, "ends", (const int64_t[]){INT64_MAX, INT64_MAX}, 2);
        onnx_ints(m, "axes", (const int64_t[]){2, 3}, 2);
        onnx_ints(m, "steps", (const int64_t[]){2, 2}, 2);
    }
    onnx_node(m, name, "Slice", (const char *[]){in, starts, "ends", "axes", "steps", NULL},
              (const char *[]){out, NULL}, NULL, 0, 0);
}

static void test_onnx_focus(suite *s)
{
    onnx m = {0};
    const char *parts[] = {"p0", "p1", "p2", "p3", NULL};
    onnx_value(&m, 11, "images", nchw, 4);
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "focus/slice%d", k);
        onnx_slice(&m, name, "images", parts[k], k & 1, k >> 1, k == 0);
    }
    onnx_node(&m, "focus/concat", "Concat", parts, (const char *[]){"focus", NULL}, "axis", 2, 1);
    onnx_value(&m, 12, "focus", (const int64_t[]){1, 12, 4, 4}, 4);
    sg_model *model = onnx_load(s, &m, "focus", 13);
    if (model != NULL) /* images, 4 starts and 3 shared initializers, p0-p3, focus */
        check_focus(s, "ONNX focus", model, 1 + 7 + 4 + 1, "focus/concat", 4);
    sg_model_free(model);
}

static void test_onnx_chain(suite *s, bool shared)
{
    onnx m = {0};
    onnx_value(&m, 11, "x", nchw, 4);
    onnx_slice(&m, "crop", "x", "cropped", 1, 1, true);
    onnx_ints(&m, "pads", (const int64_t[]){0, 0, 1, 1, 0, 0, 1, 1}, 8);
    onnx_node(&m, "pad", "Pad", (const char *[]){"cropped", "pads", NULL}, (const char *[]){"padded", NULL},
              NULL, 0, 0);
    if (!shared) { /* the Pad is skipped (no type for "cropped"), and has its flow all the same */
        onnx_value(&m, 12, "padded", (const int64_t[]){1, 3, 6, 6}, 4);
        sg_model *model = onnx_load(s, &m, "chain", 13);
        if (model != NULL) /* x, 4 initializers, cropped, pads, padded */
            check_chain(s, "ONNX chain", model, 1 + 4 + 1 + 1 + 1);
        sg_model_free(model);
        return;
    }
    onnx_node(&m, "square", "Mul", (const char *[]){"padded", "padded", NULL},
              (const char *[]){"squared", NULL}, NULL, 0, 0);
    onnx_value(&m, 12, "cropped", (const int64_t[]){1, 3, 4, 4}, 4);
    onnx_value(&m, 12, "squared", (const int64_t[]){1, 3, 6, 6}, 4);
    sg_model *model = onnx_load(s, &m, "shared", 13);
    if (model != NULL)
        check_shared(s, "ONNX shared", model, 1 + 4 + 1 + 1 + 1 + 1);
    sg_model_free(model);
}

static void test_onnx_split(suite *s)
{
    onnx m = {0};
    onnx_value(&m, 11, "x", (const int64_t[]){1, 4, 6}, 3);
    onnx_node(&m, "halves", "Split", (const char *[]){"x", NULL}, (const char *[]){"left", "right", NULL},
              "axis", 2, 2);
    /* Unnamed: the Concat is known by its output's name. */
    onnx_node(&m, "", "Concat", (const char *[]){"right", "left", NULL}, (const char *[]){"swapped", NULL},
              "axis", 2, -1);
    onnx_value(&m, 12, "swapped", (const int64_t[]){1, 4, 6}, 3);
    sg_model *model = onnx_load(s, &m, "split", 13);
    if (model != NULL)
        check_split(s, "ONNX split", model, 4, "halves", "swapped", 1);
    sg_model_free(model);
}

/* Concat-13 without axis or with a FLOAT axis is not listed; Concat-1
 * without axis is on axis 1, and one tensor at both its inputs has two
 * readers. */
static void test_onnx_concat_axis(suite *s)
{
    onnx m = {0};
    onnx_value(&m, 11, "x", nchw, 4);
    onnx_slice(&m, "crop", "x", "y", 0, 0, true);
    onnx_node(&m, "no-axis", "Concat", (const char *[]){"y", "y", NULL}, (const char *[]){"a", NULL}, NULL, 0,
              0);
    onnx_node(&m, "float-axis", "Concat", (const char *[]){"y", "y", NULL}, (const char *[]){"b", NULL},
              "axis", 1, 0);
    onnx_value(&m, 12, "a", nchw, 4);
    onnx_value(&m, 12, "b", nchw, 4);
    sg_model *model = onnx_load(s, &m, "concat13", 13);
    if (model != NULL && check_shape(s, "ONNX Concat-13", model, 1, 1 + 4 + 1 + 2, 0))
        check_readers(s, "ONNX Concat-13", model, model->flow[0].out, 4);
    sg_model_free(model);

    m = (onnx){0};
    onnx_value(&m, 11, "x", nchw, 4);
    onnx_node(&m, "", "Concat", (const char *[]){"x", "x", NULL}, (const char *[]){"xx", NULL}, NULL, 0, 0);
    onnx_value(&m, 12, "xx", (const int64_t[]){1, 6, 8, 8}, 4);
    model = onnx_load(s, &m, "concat1", 3);
    if (model != NULL && check_shape(s, "ONNX Concat-1", model, 0, 2, 1)) {
        const sg_model_concat *c = &model->concats[0];
        check_concat(s, "ONNX Concat-1", c, "xx", 0, 1, 2);
        CHECK(s, c->inputs[0] == c->inputs[1] && c->inputs[0] != c->out,
              "ONNX Concat-1: inputs %lld, %lld, out %lld", (long long)c->inputs[0], (long long)c->inputs[1],
              (long long)c->out);
        check_readers(s, "ONNX Concat-1", model, c->inputs[0], 2);
        check_readers(s, "ONNX Concat-1", model, c->out, 1);
    }
    sg_model_free(model);
}

/* A node with a subgraph may read any tensor in it: each counts one more. */
static void test_onnx_subgraph(suite *s)
{
    onnx m = {0};
    onnx_value(&m, 11, "x", nchw, 4);
    onnx_value(&m, 11, "flag", NULL, 0);
    onnx_slice(&m, "crop", "x", "y", 0, 0, true);
    onnx_node(&m, "branch", "If", (const char *[]){"flag", NULL}, (const char *[]){"z", NULL}, "then_branch",
              5, 0);
    onnx_value(&m, 12, "y", (const int64_t[]){1, 3, 4, 4}, 4);
    onnx_value(&m, 12, "z", NULL, 0);
    sg_model *model = onnx_load(s, &m, "subgraph", 13);
    if (model != NULL && check_shape(s, "ONNX subgraph", model, 1, 1 + 4 + 1 + 2, 0)) {
        check_readers(s, "ONNX subgraph", model, model->flow[0].in, 2);
        check_readers(s, "ONNX subgraph", model, model->flow[0].out, 2);
    }
    sg_model_free(model);
}

int main(void)
{
    suite s = {.counts = CHECK_COUNTS_INIT};
    const char *tmp = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/sg-flow-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(s.dir) == NULL) {
        printf("model-flow: cannot make a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    test_ir_focus(&s);
    test_ir_chain(&s, false);
    test_ir_chain(&s, true);
    test_ir_split(&s);
    test_ir_bad_concats(&s);
    test_onnx_focus(&s);
    test_onnx_chain(&s, false);
    test_onnx_chain(&s, true);
    test_onnx_split(&s);
    test_onnx_concat_axis(&s);
    test_onnx_subgraph(&s);
    rmdir(s.dir);
    return finish("model-flow", &s.counts);
}

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
 *     nothing); an ONNX Concat-1 without axis is on axis 1; a subgraph's
 *     node that reads a tensor of the main graph is one more reader of it,
 *     and a subgraph's output is read once as such;
 *   - slice layers in an If branch: in the flow, in the branch's scope.
 * Every tensor number lies in [0, ntensors), and ntensors is the count of
 * tensors the model reads or writes.
 *
 * Usage: test_model_flow. Prints one line per failed check and then
 * "model-flow: N passed, M failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../frontend/frontend.h"
#include "../support/check.h"
#include "../support/model_writer.h"

typedef struct suite {
    check_counts counts;
    char dir[256];
} suite;

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

/* Writes and reads the model, NULL (with a failed check) when it fails. */
static sg_model *ir_load(suite *s, ir *m, const char *name)
{
    char xml_path[512], bin_path[512];
    ir_write(m, s->dir, name, xml_path, bin_path, sizeof xml_path);
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
    ir_parameter(&m, 0, "images", x, "FP32");
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
    ir_parameter(&m, 0, "x", "1,3,8,8", "FP32");
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
    ir_parameter(&m, 0, "x", "1,4,6", "FP32");
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
    ir_parameter(&m, 0, "x", "1,3,8,8", "FP32");
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

/* ---- ONNX ---------------------------------------------------------------------------- */

static sg_model *onnx_load(suite *s, onnx *m, const char *name, int64_t opset)
{
    char path[512];
    onnx_write(m, s->dir, name, opset, path, sizeof path);
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
              (const char *[]){out, NULL}, NO_ATTR);
}

static void test_onnx_focus(suite *s)
{
    onnx m = {0};
    const char *parts[] = {"p0", "p1", "p2", "p3", NULL};
    onnx_value(&m, ONNX_GRAPH_INPUT, "images", ONNX_FLOAT, nchw, 4);
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "focus/slice%d", k);
        onnx_slice(&m, name, "images", parts[k], k & 1, k >> 1, k == 0);
    }
    onnx_node(&m, "focus/concat", "Concat", parts, (const char *[]){"focus", NULL}, attr_int("axis", 1));
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "focus", ONNX_FLOAT, (const int64_t[]){1, 12, 4, 4}, 4);
    sg_model *model = onnx_load(s, &m, "focus", 13);
    if (model != NULL) /* images, 4 starts and 3 shared initializers, p0-p3, focus */
        check_focus(s, "ONNX focus", model, 1 + 7 + 4 + 1, "focus/concat", 4);
    sg_model_free(model);
}

static void test_onnx_chain(suite *s, bool shared)
{
    onnx m = {0};
    onnx_value(&m, ONNX_GRAPH_INPUT, "x", ONNX_FLOAT, nchw, 4);
    onnx_slice(&m, "crop", "x", "cropped", 1, 1, true);
    onnx_ints(&m, "pads", (const int64_t[]){0, 0, 1, 1, 0, 0, 1, 1}, 8);
    onnx_node(&m, "pad", "Pad", (const char *[]){"cropped", "pads", NULL}, (const char *[]){"padded", NULL},
              NO_ATTR);
    if (!shared) { /* the Pad is skipped (no type for "cropped"), and has its flow all the same */
        onnx_value(&m, ONNX_GRAPH_OUTPUT, "padded", ONNX_FLOAT, (const int64_t[]){1, 3, 6, 6}, 4);
        sg_model *model = onnx_load(s, &m, "chain", 13);
        if (model != NULL) /* x, 4 initializers, cropped, pads, padded */
            check_chain(s, "ONNX chain", model, 1 + 4 + 1 + 1 + 1);
        sg_model_free(model);
        return;
    }
    onnx_node(&m, "square", "Mul", (const char *[]){"padded", "padded", NULL},
              (const char *[]){"squared", NULL}, NO_ATTR);
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "cropped", ONNX_FLOAT, (const int64_t[]){1, 3, 4, 4}, 4);
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "squared", ONNX_FLOAT, (const int64_t[]){1, 3, 6, 6}, 4);
    sg_model *model = onnx_load(s, &m, "shared", 13);
    if (model != NULL)
        check_shared(s, "ONNX shared", model, 1 + 4 + 1 + 1 + 1 + 1);
    sg_model_free(model);
}

static void test_onnx_split(suite *s)
{
    onnx m = {0};
    onnx_value(&m, ONNX_GRAPH_INPUT, "x", ONNX_FLOAT, (const int64_t[]){1, 4, 6}, 3);
    onnx_node(&m, "halves", "Split", (const char *[]){"x", NULL}, (const char *[]){"left", "right", NULL},
              attr_int("axis", 2));
    /* Unnamed: the Concat is known by its output's name. */
    onnx_node(&m, "", "Concat", (const char *[]){"right", "left", NULL}, (const char *[]){"swapped", NULL},
              attr_int("axis", -1));
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "swapped", ONNX_FLOAT, (const int64_t[]){1, 4, 6}, 3);
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
    onnx_value(&m, ONNX_GRAPH_INPUT, "x", ONNX_FLOAT, nchw, 4);
    onnx_slice(&m, "crop", "x", "y", 0, 0, true);
    onnx_node(&m, "no-axis", "Concat", (const char *[]){"y", "y", NULL}, (const char *[]){"a", NULL},
              NO_ATTR);
    onnx_node(&m, "float-axis", "Concat", (const char *[]){"y", "y", NULL}, (const char *[]){"b", NULL},
              attr_float("axis", 0.5f));
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "a", ONNX_FLOAT, nchw, 4);
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "b", ONNX_FLOAT, nchw, 4);
    sg_model *model = onnx_load(s, &m, "concat13", 13);
    if (model != NULL && check_shape(s, "ONNX Concat-13", model, 1, 1 + 4 + 1 + 2, 0))
        check_readers(s, "ONNX Concat-13", model, model->flow[0].out, 4);
    sg_model_free(model);

    m = (onnx){0};
    onnx_value(&m, ONNX_GRAPH_INPUT, "x", ONNX_FLOAT, nchw, 4);
    onnx_node(&m, "", "Concat", (const char *[]){"x", "x", NULL}, (const char *[]){"xx", NULL}, NO_ATTR);
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "xx", ONNX_FLOAT, (const int64_t[]){1, 6, 8, 8}, 4);
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

/* A subgraph's node that reads a tensor of the main graph is one more
 * reader of it; the tensors it does not read count as before. */
static void test_onnx_subgraph(suite *s)
{
    onnx m = {0}, then = {0};
    onnx_value(&m, ONNX_GRAPH_INPUT, "x", ONNX_FLOAT, nchw, 4);
    onnx_value(&m, ONNX_GRAPH_INPUT, "flag", ONNX_BOOL, NULL, 0);
    onnx_slice(&m, "crop", "x", "y", 0, 0, true);
    onnx_node(&then, "copy", "Identity", (const char *[]){"y", NULL}, (const char *[]){"w", NULL}, NO_ATTR);
    onnx_value(&then, ONNX_GRAPH_OUTPUT, "w", ONNX_FLOAT, (const int64_t[]){1, 3, 4, 4}, 4);
    onnx_node(&m, "branch", "If", (const char *[]){"flag", NULL}, (const char *[]){"z", NULL},
              attr_body("then_branch", &then));
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "y", ONNX_FLOAT, (const int64_t[]){1, 3, 4, 4}, 4);
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "z", ONNX_FLOAT, NULL, 0);
    sg_model *model = onnx_load(s, &m, "subgraph", 13);
    /* (the branch's output w is a tensor too, read once as such) */
    if (model != NULL && check_shape(s, "ONNX subgraph", model, 1, 1 + 4 + 1 + 2 + 1, 0)) {
        check_readers(s, "ONNX subgraph", model, model->flow[0].in, 1);
        check_readers(s, "ONNX subgraph", model, model->flow[0].out, 2); /* an output, and the branch reads it */
    }
    sg_model_free(model);
    free(then.graph.b);
}

/* Slice layers inside a subgraph are in the flow, in their graph's
 * scope: a chain of two in an If branch, the second reading the first's
 * output alone, and writing the branch's output (read once as such). */
static void test_onnx_subgraph_chain(suite *s)
{
    onnx m = {0}, then = {0};
    onnx_value(&m, ONNX_GRAPH_INPUT, "x", ONNX_FLOAT, nchw, 4);
    onnx_value(&m, ONNX_GRAPH_INPUT, "flag", ONNX_BOOL, NULL, 0);
    onnx_slice(&then, "inner1", "x", "a", 0, 1, true);
    onnx_slice(&then, "inner2", "a", "b", 1, 0, false);
    onnx_value(&then, ONNX_GRAPH_OUTPUT, "b", ONNX_FLOAT, (const int64_t[]){1, 3, 2, 2}, 4);
    onnx_node(&m, "branch", "If", (const char *[]){"flag", NULL}, (const char *[]){"z", NULL},
              attr_body("then_branch", &then));
    onnx_value(&m, ONNX_GRAPH_OUTPUT, "z", ONNX_FLOAT, NULL, 0);
    sg_model *model = onnx_load(s, &m, "subgraph-chain", 13);
    if (model != NULL && check_shape(s, "ONNX subgraph chain", model, 2, model->ntensors, 0)) {
        const sg_model_flow *f = model->flow;
        CHECK(s, f[0].scope > 0 && f[1].scope == f[0].scope, "ONNX subgraph chain: scopes %d and %d", f[0].scope,
              f[1].scope);
        CHECK(s, f[1].in == f[0].out, "ONNX subgraph chain: inner2 reads %lld, inner1 writes %lld",
              (long long)f[1].in, (long long)f[0].out);
        check_readers(s, "ONNX subgraph chain", model, f[0].out, 1);
        check_readers(s, "ONNX subgraph chain", model, f[1].out, 1); /* the branch's output */
        check_readers(s, "ONNX subgraph chain", model, f[0].in, 1);
    }
    sg_model_free(model);
    free(then.graph.b);
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
    test_onnx_subgraph_chain(&s);
    rmdir(s.dir);
    return finish("model-flow", &s.counts);
}

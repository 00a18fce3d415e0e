#!/usr/bin/env python3
"""Writes OpenVINO IR models whose slice layers exercise slicegen's model reader.

    make_model.py DIR                      DIR/model.xml and DIR/model.bin: the example, IR v11
    make_model.py DIR --ir-version 10      the same model spelled as IR v10 (DIR/model-v10.*)
    make_model.py DIR --no-port-precision  Parameter ports without precision (DIR/model-noprec.*)
    make_model.py DIR --layers N           one Parameter and N slice layers (DIR/scale-N.*)
    make_model.py DIR --runtime-values     slices whose numbers are known at run time: index
                                           inputs from Parameters and ShapeOf, dynamic
                                           dimensions (DIR/runtime-values.*)
    make_model.py DIR --ops                Pad, Gather, Split and VariadicSplit in every version,
                                           mode and skip reason (DIR/ops.*), with the expected
                                           output of each static one (DIR/<layer>.out)
    make_model.py DIR --infer              slices of ports the file leaves dynamic and shape
                                           inference knows: through Relu, Concat, and a Reshape
                                           whose target is computed from ShapeOf (DIR/infer.*)
    make_model.py DIR --fault NAME         the example with exactly one fault (DIR/NAME.*);
                                           NAME "all" writes every fault
    make_model.py DIR --all                every file above, with N = 500
    make_model.py --list                   the example's layers: id, type, name

A model is described as a list of layers (parameter(), strided_slice(),
slice8(), pad(), gather(), split(), variadic_split(), op(), result());
index inputs given as values (i32(...), i64(...), scalar(...)) become
Const layers placed just before their consumer. An input names a layer
(its output port 0) or a (layer, k) pair (its k-th output port). build()
numbers the layers, wires ports and edges and lays out the .bin; render()
writes the XML. The output is the same, byte for byte, on every run.
Standard library only; importable.
"""
import argparse
import os
import struct
import sys
from xml.sax.saxutils import escape

# Element types: IR <data element_type>, port precision, struct format.
ELEMENT_TYPES = {
    "f32": ("FP32", "f"),
    "f64": ("FP64", "d"),
    "u8": ("U8", "B"),
    "i32": ("I32", "i"),
    "i64": ("I64", "q"),
    "u4": ("U4", None),
}

INT64_MIN = -(1 << 63)


# ---- the description --------------------------------------------------------

class Index:
    """Values of an index input: a Const of `etype` (shape [len(values)]
    unless given)."""

    def __init__(self, etype, values, shape=None):
        self.etype, self.values = etype, list(values)
        self.shape = [len(self.values)] if shape is None else shape


def i32(*values):
    return Index("i32", values)


def i64(*values):
    return Index("i64", values)


def f32(*values):
    return Index("f32", values)


def scalar(etype, value):
    """A rank-0 Const: an axis, a Gather index, a pad_value."""
    return Index(etype, [value], shape=[])


def parameter(name, etype, shape):
    """An input; '?' in shape is a dynamic dimension."""
    return {"type": "Parameter", "name": name, "etype": etype, "shape": shape}


def op(name, type_, inputs, etype, shape, version="opset1", data=None, outputs=None):
    """Any layer: inputs are layer names (output port 0), (name, k) pairs or
    Index values; etype and shape describe its one output, or `outputs`
    lists the shapes of several."""
    return {"type": type_, "name": name, "inputs": inputs, "etype": etype, "shape": shape,
            "version": version, "data": data or {}, "outputs": outputs or [shape]}


def strided_slice(name, data, begin, end, stride=None, out=(), etype="f32", **masks):
    """StridedSlice-1. masks: begin_mask, end_mask (required by IR) and the
    optional new_axis_mask, shrink_axis_mask, ellipsis_mask, as IR text."""
    inputs = [data, begin, end] + ([stride] if stride is not None else [])
    return op(name, "StridedSlice", inputs, etype, list(out), "opset1", masks)


def slice8(name, data, start, stop, step, axes=None, out=(), etype="f32"):
    inputs = [data, start, stop, step] + ([axes] if axes is not None else [])
    return op(name, "Slice", inputs, etype, list(out), "opset8")


def pad(name, data, begin, end, mode, value=None, out=(), etype="f32", version="opset12"):
    """Pad-1 (version opset1) or Pad-12: pad_value optional."""
    inputs = [data, begin, end] + ([value] if value is not None else [])
    return op(name, "Pad", inputs, etype, list(out), version, {"pad_mode": mode})


def gather(name, data, indices, axis, out=(), etype="f32", version="opset8", **data_attrs):
    """Gather-1, 7 or 8 (by version); data_attrs: batch_dims."""
    return op(name, "Gather", [data, indices, axis], etype, list(out), version, data_attrs)


def split(name, data, axis, outs, etype="f32", num_splits=None):
    """Split-1: one output per shape in outs."""
    return op(name, "Split", [data, axis], etype, outs[0], "opset1",
              {"num_splits": len(outs) if num_splits is None else num_splits}, outs)


def variadic_split(name, data, axis, lengths, outs, etype="f32"):
    return op(name, "VariadicSplit", [data, axis, lengths], etype, outs[0], "opset1", None, outs)


def results(slices):
    """A Result for every output of every slice layer."""
    out = []
    for s in slices:
        several = len(s["outputs"]) > 1
        for k in range(len(s["outputs"])):
            out.append(result("out/%s%s" % (s["name"], "/%d" % k if several else ""),
                              (s["name"], k) if several else s["name"]))
    return out


def result(name, source):
    return {"type": "Result", "name": name, "inputs": [source]}


ROLES = {"StridedSlice": ["data", "begin", "end", "stride"],
         "Slice": ["data", "start", "stop", "step", "axes"],
         "Pad": ["data", "pads_begin", "pads_end", "pad_value"],
         "Gather": ["data", "indices", "axis"],
         "Split": ["data", "axis"],
         "VariadicSplit": ["data", "axis", "split_lengths"]}


def example_layers():
    """The example model: slices of an f32 image and a u8 mask, two whose
    numbers are known at run time, plus layers slicegen must skip. Expected
    results are in tests/frontend/test_model.c."""
    slices = [
        # begin/end masks; no stride input; the optional masks omitted
        strided_slice("backbone/crop.0", "image", i64(0, 0, 2, 2), i64(0, 0, 6, 6), out=[2, 3, 4, 4],
                      begin_mask="1,1,0,0", end_mask="1,1,0,0"),
        # ellipsis and a negative stride: image[..., ::-1]
        strided_slice("head:flip-1", "image", i32(0, -1), i32(0, 0), i32(1, -1), out=[2, 3, 8, 8],
                      begin_mask="0,0", end_mask="0,1", new_axis_mask="", shrink_axis_mask="",
                      ellipsis_mask="1,0"),
        # a new axis: mask[:, None, :]
        strided_slice("neck.expand", "mask", i64(0, 0, 0), i64(0, 0, 0), out=[4, 1, 6], etype="u8",
                      begin_mask="1,0,1", end_mask="1,0,1", new_axis_mask="0,1,0", shrink_axis_mask="",
                      ellipsis_mask=""),
        # shrink, masks spelled with spaces: image[1, :]
        strided_slice("neck.pick", "image", i64(1, 0), i64(2, 0), i64(1, 1), out=[3, 8, 8],
                      begin_mask="0, 1", end_mask="0, 1", new_axis_mask="0, 0", shrink_axis_mask="1, 0",
                      ellipsis_mask="0, 0"),
        # Slice-8 without axes, i32 indices
        slice8("a.b", "mask", i32(1, 0), i32(3, 6), i32(1, 2), out=[2, 3], etype="u8"),
        # Slice-8 with a negative axis and step: the last axis backwards, every other
        slice8("a-b", "image", i64(-1), i64(INT64_MIN), i64(-2), i64(-1), out=[2, 3, 8, 4]),
        # data from another slice; i64 bounds with i32 axes
        slice8("chain.second", "backbone/crop.0", i64(0), i64(1), i64(1), i32(1), out=[2, 1, 4, 4]),
        # ellipsis with a stride: mask[..., 1:5:2]
        strided_slice("stem.ellipsis", "mask", i32(0, 1), i32(0, 5), i32(1, 2), out=[4, 2], etype="u8",
                      begin_mask="0,0", end_mask="0,0", new_axis_mask="", shrink_axis_mask="",
                      ellipsis_mask="1,0"),
        # begin is a Parameter, not a Const: runtime values begin_0 .. begin_3
        strided_slice("tail/dynamic-begin", "image", "offsets", i64(0, 0, 0, 0), out=["?", "?", "?", "?"],
                      begin_mask="0,0,0,0", end_mask="1,1,1,1"),
        # a dynamic dimension: a kernel for any number of tokens
        slice8("tokens/window", "tokens", i64(0), i64(8), i64(1), i64(1), out=["?", 8], etype="i64"),
        # skipped: an element type slicegen lacks
        slice8("packed/half", "packed", i64(0), i64(8), i64(1), out=[8], etype="u4"),
        # skipped: a float index Const
        strided_slice("odd/float-index", "image", f32(0.0), i64(1), out=[1, 3, 8, 8],
                      begin_mask="0", end_mask="0"),
        # skipped: a zero step (the spec constructor refuses it)
        slice8("bad/zero-step", "mask", i64(0), i64(4), i64(0), out=[4, 6], etype="u8"),
        # Pad-12: a border of 1 filled with -1.5 around each image, the last channel cropped
        pad("pad/border", "image", i64(0, 0, 1, 1), i64(0, -1, 1, 1), "constant", scalar("f32", -1.5),
            out=[2, 2, 10, 10]),
        # Split-1: the mask's columns in two halves (layers split/halves_0 and split/halves_1)
        split("split/halves", "mask", scalar("i64", 1), [[4, 3], [4, 3]], etype="u8"),
        # VariadicSplit-1: the image's rows 0-1, 2-4 (the -1) and 5-7
        variadic_split("split/rows", "image", scalar("i32", -2), i64(2, -1, 3),
                       [[2, 3, 2, 8], [2, 3, 3, 8], [2, 3, 3, 8]]),
        # Gather-8 of one index: the last channel, image[:, -1]
        gather("pick/last-channel", "image", scalar("i64", -1), scalar("i64", 1), out=[2, 8, 8]),
    ]
    return ([parameter("image", "f32", [2, 3, 8, 8]),
             parameter("mask", "u8", [4, 6]),
             parameter("tokens", "i64", ["?", 16]),
             parameter("packed", "u4", [16]),
             parameter("offsets", "i64", [4])]
            + slices
            + results(slices)
            # a ShapeOf nothing reads (the faults change its port)
            + [op("image_shape", "ShapeOf", ["image"], "i64", [4], "opset3", {"output_type": "i64"})])


def runtime_layers():
    """Slices whose numbers are known only at run time: begin, stride,
    start and step from Parameters (one runtime value per element; an end
    from a ShapeOf of static dimensions, folded to constants), dynamic data dimensions with Const indices, and both at once;
    then layers slicegen must skip: an index input of dynamic length, one
    of rank 2, a float one, Slice axes that are no Const, and begin and end
    of 129 elements each (more than 256 runtime values). Expected results
    are in tests/frontend/test_model.c."""
    slices = [
        # begin from a Parameter: y[b0:, b1::2]
        strided_slice("param-begin", "y", "offsets", i64(0, 0), i64(1, 2), out=["?", "?"], etype="u8",
                      begin_mask="0,0", end_mask="1,1"),
        # end from ShapeOf (y's static shape: folded to 5, 7), stride from an i32 Parameter:
        # y[1:5:s0, 0:7:s1]
        strided_slice("shapeof-end", "y", i64(1, 0), "y_shape", "steps", out=["?", "?"], etype="u8",
                      begin_mask="0,0", end_mask="0,0"),
        # a dynamic dimension with Const indices: x[:, 1:-1]
        slice8("dynamic-data", "x", i64(1), i64(-1), i64(1), i64(1), out=[4, "?", 6]),
        # both: start and step from Parameters, over x's dynamic dimension (axes 2, 1):
        # x[:, start_1:100:step_1, start_0:INT64_MIN:step_0]
        slice8("dynamic-both", "x", "starts", i64(INT64_MIN, 100), "strides", i32(2, 1), out=[4, "?", "?"]),
        # a static slice among them
        slice8("static-rows", "y", i64(1), i64(3), i64(1), out=[2, 7], etype="u8"),
        # skipped: begin of dynamic length
        strided_slice("dynamic-length", "y", "lengths", i64(0), out=["?", 7], etype="u8",
                      begin_mask="0", end_mask="1"),
        # skipped: begin of rank 2
        strided_slice("rank-2-begin", "y", "grid", i64(0, 0), out=["?", "?"], etype="u8",
                      begin_mask="0,0", end_mask="1,1"),
        # skipped: a float begin
        strided_slice("float-begin", "y", "weights", i64(0), out=["?", 7], etype="u8",
                      begin_mask="0", end_mask="1"),
        # Slice axes from a Parameter: y[0:1] on the axis given at run time
        slice8("runtime-axes", "y", i64(0), i64(1), i64(1), "axis", out=["?", "?"], etype="u8"),
    ]
    # skipped: 258 runtime values (its Parameter just before it)
    many = [parameter("many", "i64", [129]),
            strided_slice("too-many-values", "y", "many", "many", out=["?", "?"], etype="u8",
                          begin_mask="", end_mask="")]
    return ([parameter("x", "f32", [4, "?", 6]),
             parameter("y", "u8", [5, 7]),
             parameter("offsets", "i64", [2]),
             parameter("steps", "i32", [2]),
             parameter("starts", "i32", [2]),
             parameter("strides", "i64", [2]),
             parameter("lengths", "i64", ["?"]),
             parameter("grid", "i64", [2, 2]),
             parameter("weights", "f32", [1]),
             parameter("axis", "i64", [1]),
             op("y_shape", "ShapeOf", ["y"], "i64", [2], "opset3", {"output_type": "i64"})]
            + slices + many
            + [result("out/" + s["name"], s["name"]) for s in slices + many[1:]])


def ops_layers():
    """Pad-1 and Pad-12, Gather-1, 7 and 8, Split-1 and VariadicSplit-1 in
    every mode and version slicegen reads, with Const and runtime numbers
    and dynamic dimensions, then each skip reason. x is the 3 x 4 matrix of
    OpenVINO's Pad specification. Expected results are in
    tests/frontend/test_model.c; expected outputs of the static layers in
    <name>.out (see expected_outputs())."""
    pads = dict(begin=i64(0, 1), end=i64(2, 3))
    mixed = dict(begin=i64(2, -1), end=i64(-1, 3))
    slices = [
        pad("pad1/constant", "x", pads["begin"], pads["end"], "constant", scalar("f32", 7.5), out=[5, 8],
            version="opset1"),
        pad("pad1/edge", "x", pads["begin"], pads["end"], "edge", out=[5, 8], version="opset1"),
        pad("pad1/reflect", "x", i32(0, 1), i32(2, 3), "reflect", out=[5, 8], version="opset1"),
        pad("pad12/crop", "x", i64(-1, -1), i64(-1, -1), "reflect", out=[1, 2]),
        pad("pad12/mixed-constant", "x", mixed["begin"], mixed["end"], "constant", out=[4, 6]),
        pad("pad12/mixed-edge", "x", mixed["begin"], mixed["end"], "edge", out=[4, 6]),
        # no pad_value: zeros; u8 data
        pad("pad12/zeros", "y", i64(0, 1, 0), i64(1, 0, 2), "constant", out=[3, 6, 8], etype="u8"),
        # pad_value is ignored for edge, even when it is no Const
        pad("pad12/edge-value", "x", i64(1, 1), i64(1, 1), "edge", "fill", out=[5, 6]),
        # pads_begin from a Parameter: runtime values pads_begin_0, pads_begin_1
        pad("pad12/runtime", "x", "pb", i64(1, 1), "constant", scalar("f32", -2.0), out=["?", "?"]),
        # Pad-1 reflect with pads_end from an i32 Parameter
        pad("pad1/runtime-reflect", "x", i64(1, 1), "pe", "reflect", out=["?", "?"], version="opset1"),
        # a dynamic dimension
        pad("pad12/dynamic", "d", i64(0, 2, -1), i64(1, 0, -1), "edge", out=[5, "?", 4]),
        gather("gather1/row", "x", scalar("i64", 2), scalar("i64", 0), out=[4], version="opset1"),
        gather("gather7/col", "y", scalar("i32", 3), scalar("i32", -1), out=[2, 5], etype="u8", version="opset7",
               batch_dims=0),
        gather("gather8/negative", "y", scalar("i64", -2), scalar("i32", 1), out=[2, 6], etype="u8"),
        # the axis as a 1-D Const of one element
        gather("gather8/axis-1d", "y", scalar("i32", 1), i64(0), out=[5, 6], etype="u8"),
        # an index along a dynamic dimension: checked when the kernel is called
        gather("gather8/dynamic", "d", scalar("i64", 5), scalar("i64", 1), out=[4, 6]),
        split("split/three", "y", scalar("i64", 2), [[2, 5, 2]] * 3, etype="u8"),
        split("split/dynamic-other", "d", scalar("i64", -1), [[4, "?", 3]] * 2),
        variadic_split("vsplit/lengths", "y", scalar("i32", 1), i32(1, -1, 0, 2),
                       [[2, 1, 6], [2, 2, 6], [2, 0, 6], [2, 2, 6]], etype="u8"),
        # skipped:
        pad("pad1/negative", "x", i64(0, -1), i64(0, 0), "constant", out=[3, 3], version="opset1"),
        pad("pad12/symmetric", "x", pads["begin"], pads["end"], "symmetric", out=[5, 8]),
        pad("pad12/reflect-mixed", "x", mixed["begin"], mixed["end"], "reflect", out=[4, 6]),
        pad("pad12/reflect-runtime", "x", "pb", i64(0, 0), "reflect", out=["?", "?"]),
        pad("pad12/edge-cropped", "x", i64(-3, 0), i64(2, 0), "edge", out=[2, 4]),
        # (not skipped: pad_value from a Parameter is the fill value given at run time, pad_value_0)
        pad("pad12/value-not-const", "x", pads["begin"], pads["end"], "constant", "fill", out=[5, 8]),
        pad("pad12/value-type", "x", pads["begin"], pads["end"], "constant", scalar("i32", 1), out=[5, 8]),
        pad("pad12/short-pads", "x", i64(1), i64(1), "constant", out=[5, 4]),
        pad("pad/experimental", "x", pads["begin"], pads["end"], "constant", out=[5, 8], version="custom"),
        gather("gather7/negative", "x", scalar("i64", -1), scalar("i64", 0), out=[4], version="opset7"),
        gather("gather8/out-of-range", "x", scalar("i64", 3), scalar("i64", 0), out=[4]),
        gather("gather8/batch-dims", "x", scalar("i64", 0), scalar("i64", 1), out=[3], batch_dims=1),
        # an index array of one index, which compiles: x[:, 0:1]
        gather("gather8/indices-1d", "x", i64(0), scalar("i64", 1), out=[3, 1]),
        gather("gather8/indices-param", "x", "index", scalar("i64", 1), out=[3]),
        gather("gather8/axis-range", "x", scalar("i64", 0), scalar("i64", 2), out=[3, 4]),
        split("split/uneven", "x", scalar("i64", 1), [[3, 1]] * 3),
        # (not skipped: equal parts of a dynamic axis, checked when a call is prepared)
        split("split/dynamic-axis", "d", scalar("i64", 1), [[4, "?", 6]] * 2),
        split("split/axis-param", "x", "index", [[3, 2]] * 2),
        variadic_split("vsplit/two-unknown", "x", scalar("i64", 1), i64(-1, -1), [[3, 2]] * 2),
        variadic_split("vsplit/sum", "x", scalar("i64", 0), i64(1, 1), [[1, 4]] * 2),
        variadic_split("vsplit/negative", "x", scalar("i64", 0), i64(-2, 5), [[0, 4]] * 2),
        variadic_split("vsplit/over", "x", scalar("i64", 0), i64(3, -1, 2), [[3, 4], [0, 4], [2, 4]]),
        # index arrays: a program of slices, runs of consecutive indices each one slice
        gather("gather8/rows", "x", i64(2, 0), scalar("i64", 0), out=[2, 4]),
        gather("gather8/negative-array", "y", i32(-1, -2, 0), scalar("i64", 1), out=[2, 3, 6], etype="u8"),
        gather("gather7/matrix", "y", Index("i64", [0, 1, 5, 2], shape=[2, 2]), scalar("i64", -1),
               out=[2, 5, 2, 2], etype="u8", version="opset7", batch_dims=0),
        gather("gather1/run", "x", i32(1, 2, 3), scalar("i32", 1), out=[3, 3], version="opset1"),
        # skipped:
        gather("gather7/negative-array", "x", i64(0, -1), scalar("i64", 1), out=[3, 2], version="opset7"),
        gather("gather8/array-out-of-range", "x", i64(1, 4), scalar("i64", 1), out=[3, 2]),
        gather("gather8/array-batch", "y", Index("i64", [0, 1], shape=[2, 1]), scalar("i64", 1), out=[2, 1, 6],
               etype="u8", batch_dims=1),
    ]
    return ([parameter("x", "f32", [3, 4]),
             parameter("y", "u8", [2, 5, 6]),
             parameter("d", "f32", [4, "?", 6]),
             parameter("pb", "i64", [2]),
             parameter("pe", "i32", [2]),
             parameter("fill", "f32", []),
             parameter("index", "i64", [])]
            + slices + results(slices))


def infer_layers():
    """Slices of ports the file leaves dynamic ('?') and shape inference
    knows: the output of a Relu, of a Concat, of a Reshape whose target is
    computed from ShapeOf (Gather, Unsqueeze, Concat); a negative Gather
    index along such a dimension; and a dimension nobody knows (a symbol).
    Expected results are in tests/frontend/test_model.c."""
    slices = [
        strided_slice("crop", "act", i64(0, 0, 2, 2), i64(0, 0, 6, 6), out=["?", "?", 4, 4],
                      begin_mask="1,1,0,0", end_mask="1,1,0,0"),
        slice8("rows", "flat", i64(0), i64(1), i64(1), i64(0), out=[1, "?"]),
        gather("pick", "pair", i64(-1, 0), scalar("i64", 1), out=["?", 2, 8, 8]),
        slice8("window", "tokens", i64(0), i64(8), i64(1), i64(1), out=["?", 8], etype="i64"),
    ]
    return ([parameter("x", "f32", [2, 3, 8, 8]),
             parameter("tokens", "i64", ["?", 16]),
             op("act", "Relu", ["x"], "f32", ["?", "?", 8, 8]),
             op("pair", "Concat", ["act", "act"], "f32", ["?", "?", 8, 8], data={"axis": 1}),
             op("x_shape", "ShapeOf", ["x"], "i64", [4], "opset3", {"output_type": "i64"}),
             gather("batch", "x_shape", scalar("i64", 0), scalar("i64", 0), out=[], etype="i64"),
             op("batch_1d", "Unsqueeze", ["batch", i64(0)], "i64", [1]),
             op("flat_shape", "Concat", ["batch_1d", i64(-1)], "i64", [2], data={"axis": 0}),
             op("flat", "Reshape", ["x", "flat_shape"], "f32", ["?", "?"], data={"special_zero": "false"})]
            + slices
            + results(slices))


def scale_layers(n):
    """One f32 [64, 64] Parameter and n StridedSlice layers: layer k takes
    row k % 64 and every (1 + k % 3)-th column; masks are empty strings."""
    layers = [parameter("input", "f32", [64, 64])]
    for k in range(n):
        row, step = k % 64, 1 + k % 3
        layers.append(strided_slice("slice_%d" % k, "input", i64(row, 0), i64(row + 1, 64), i64(1, step),
                                    out=[1, (64 + step - 1) // step], begin_mask="", end_mask=""))
    return layers


# ---- the graph ----------------------------------------------------------------

class Graph:
    """Layers with ids and ports, edges and the .bin bytes."""

    def __init__(self, name, ir_version=11):
        self.name, self.ir_version = name, ir_version
        self.layers = []      # dicts: id, name, type, version, data, inputs, outputs
        self.edges = []       # [from-layer, from-port, to-layer, to-port]
        self.bin = bytearray()
        self.by_name = {}
        # What write() does besides rendering (faults change these):
        self.filter = None     # text -> text
        self.write_bin = True
        self.bin_is_dir = False

    def layer(self, name):
        return self.by_name[name]

    def add(self, name, type_, version, data, inputs, outputs):
        layer = {"id": len(self.layers), "name": name, "type": type_, "version": version,
                 "data": data, "inputs": inputs, "outputs": outputs}
        self.layers.append(layer)
        self.by_name[name] = layer
        return layer

    def port(self, id_, etype, shape, name=None, precision=True):
        """A port; input ports (etype None) have no precision."""
        port = {"id": id_, "dims": list(shape)}
        if etype is not None and precision:
            port["precision"] = ELEMENT_TYPES[etype][0]
        if name is not None and self.ir_version >= 11:
            port["names"] = name
        return port

    def const(self, name, index):
        fmt = ELEMENT_TYPES[index.etype][1]
        raw = struct.pack("<%d%s" % (len(index.values), fmt), *index.values)
        shape = ",".join(str(d) for d in index.shape)
        if self.ir_version >= 11:
            data = {"element_type": index.etype, "shape": shape, "offset": len(self.bin), "size": len(raw)}
        else:
            data = {"element_type": index.etype, "offset": len(self.bin), "shape": shape, "size": len(raw)}
        self.bin += raw
        return self.add(name, "Const", "opset1", data, [], [self.port(0, index.etype, index.shape)])


def dims_text(shape, ir_version):
    return ",".join(("?" if ir_version >= 11 else "-1") if d == "?" else str(d) for d in shape)


def mask_text(text, ir_version):
    """IR v10 files here spell masks "0, 1"; v11 as written in the description."""
    if ir_version >= 11:
        return text
    return ", ".join(t.strip() for t in text.split(",")) if text.strip() else text


def build(name, layers, ir_version=11, port_precision=True):
    """Numbers the layers in order, Consts just before their consumer, and
    wires each input to its source's output port (port 0 unless a (name, k)
    pair names another)."""
    g = Graph(name, ir_version)
    for desc in layers:
        kind = desc["type"]
        if kind == "Parameter":
            data = {"shape": dims_text(desc["shape"], ir_version), "element_type": desc["etype"]}
            g.add(desc["name"], kind, "opset1", data, [],
                  [g.port(0, desc["etype"], desc["shape"], desc["name"], port_precision)])
            continue
        sources = []  # (layer, output port)
        for k, source in enumerate(desc["inputs"]):
            if isinstance(source, Index):
                role = ROLES[kind][k] if kind in ROLES else "input%d" % k
                const = g.const("%s/%s" % (desc["name"], role), source)
                sources.append((const, const["outputs"][0]))
            else:
                name, port = source if isinstance(source, tuple) else (source, 0)
                sources.append((g.layer(name), g.layer(name)["outputs"][port]))
        inputs = [g.port(k, None, port["dims"]) for k, (_, port) in enumerate(sources)]
        if kind == "Result":
            layer = g.add(desc["name"], kind, "opset1", {}, inputs, [])
        else:
            data = {key: mask_text(value, ir_version) if key.endswith("_mask") else value
                    for key, value in desc["data"].items()}
            several = len(desc["outputs"]) > 1
            outs = [g.port(len(inputs) + k, desc["etype"], shape,
                           "%s:%d" % (desc["name"], k) if several else desc["name"])
                    for k, shape in enumerate(desc["outputs"])]
            layer = g.add(desc["name"], kind, desc["version"], data, inputs, outs)
        for k, (src, port) in enumerate(sources):
            g.edges.append([src["id"], port["id"], layer["id"], k])
    return g


def example(ir_version=11, port_precision=True):
    return build("slicegen_example", example_layers(), ir_version, port_precision)


def ops():
    return build("slicegen_ops", ops_layers())


def scale(n):
    return build("slicegen_scale_%d" % n, scale_layers(n))


def runtime():
    return build("slicegen_runtime_values", runtime_layers())


def infer():
    return build("slicegen_infer", infer_layers())


# ---- expected outputs: OpenVINO's reference rules, on a known input -------------

def pattern(count):
    """The input every test gives a layer: element i is (7 i + 3) mod 251."""
    return [(7 * i + 3) % 251 for i in range(count)]


def ov_pad_coord(y, n, begin, mode):
    """OpenVINO's reference Pad: output coordinate y of an axis of n reads
    input coordinate y - begin of the whole axis; None is the fill."""
    c = y - begin
    if mode == "constant":
        return c if 0 <= c < n else None
    if mode == "edge":
        return min(max(c, 0), n - 1)
    c = -c if c < 0 else c  # reflect
    return c if c < n else 2 * n - 2 - c


def expected_output(desc, shapes, k):
    """Output k of a static layer as OpenVINO computes it on pattern():
    (shape, values)."""
    data = shapes[desc["inputs"][0]]
    consts = [s.values if isinstance(s, Index) else None for s in desc["inputs"]]
    kind, ranges = desc["type"], []
    if kind == "Pad":
        begin, end = consts[1], consts[2]
        fill = consts[3][0] if len(consts) > 3 and desc["data"]["pad_mode"] == "constant" else 0
        ranges = [[ov_pad_coord(y, n, b, desc["data"]["pad_mode"]) for y in range(n + b + e)]
                  for n, b, e in zip(data, begin, end)]
    elif kind == "Gather":
        # the indices in row-major order stand for their dimensions
        axis = consts[2][0] % len(data)
        ranges = [list(range(n)) for n in data]
        if desc["inputs"][1].shape:
            ranges[axis] = [v % data[axis] for v in consts[1]]
        else:
            ranges[axis] = consts[1][0] % data[axis]
    else:
        axis = consts[1][0] % len(data)
        if kind == "Split":
            lengths = [data[axis] // len(desc["outputs"])] * len(desc["outputs"])
        else:
            lengths = list(consts[2])
            lengths = [data[axis] - sum(v for v in lengths if v != -1) if v == -1 else v for v in lengths]
        ranges = [list(range(n)) for n in data]
        ranges[axis] = list(range(sum(lengths[:k]), sum(lengths[:k + 1])))
    values = pattern(eval_count(data))
    out = [[]]
    for a, r in enumerate(ranges):  # each output element as a list of input coordinates
        choices = [r] if isinstance(r, int) else r
        out = [c + [v] for c in out for v in choices]
    shape = [len(r) for r in ranges if not isinstance(r, int)]
    flat = []
    for coord in out:
        if any(c is None for c in coord):
            flat.append(fill)
            continue
        index = 0
        for c, n in zip(coord, data):
            index = index * n + c
        flat.append(values[index])
    return shape, flat


def eval_count(shape):
    count = 1
    for n in shape:
        count *= n
    return count


def expected_outputs(layers):
    """{file stem: bytes}: the expected output of every output of every
    static slice layer of the ops model that slicegen compiles, little-endian
    in the data's element type; the stem is the model layer's name with '/'
    made '-'."""
    shapes = {d["name"]: d["shape"] for d in layers if d["type"] == "Parameter"}
    etypes = {d["name"]: d["etype"] for d in layers if d["type"] == "Parameter"}
    files = {}
    for desc in layers:
        if desc["type"] not in EXPECTED or desc["name"] not in EXPECTED[desc["type"]]:
            continue
        fmt = ELEMENT_TYPES[etypes[desc["inputs"][0]]][1]
        several = len(desc["outputs"]) > 1
        for k in range(len(desc["outputs"])):
            _, flat = expected_output(desc, shapes, k)
            name = desc["name"] + ("_%d" % k if several else "")
            files[name.replace("/", "-")] = struct.pack("<%d%s" % (len(flat), fmt), *flat)
    return files


# The ops model's static layers that compile, by type.
EXPECTED = {
    "Pad": ["pad1/constant", "pad1/edge", "pad1/reflect", "pad12/crop", "pad12/mixed-constant",
            "pad12/mixed-edge", "pad12/zeros", "pad12/edge-value"],
    "Gather": ["gather1/row", "gather7/col", "gather8/negative", "gather8/axis-1d", "gather8/indices-1d",
               "gather8/rows", "gather8/negative-array", "gather7/matrix", "gather1/run"],
    "Split": ["split/three"],
    "VariadicSplit": ["vsplit/lengths"],
}


def write_ops(directory):
    write(ops(), directory, "ops")
    for stem, raw in sorted(expected_outputs(ops_layers()).items()):
        with open(os.path.join(directory, stem + ".out"), "wb") as f:
            f.write(raw)


# ---- XML -----------------------------------------------------------------------

def attrs(items):
    return "".join(' %s="%s"' % (key, escape(str(value), {'"': "&quot;", "\n": "&#10;"}))
                   for key, value in items.items())


def render_port(port, indent):
    lines = ["%s<port%s>" % (indent, attrs({k: v for k, v in port.items() if k != "dims"}))]
    lines += ["%s\t<dim>%s</dim>" % (indent, -1 if d == "?" else d) for d in port["dims"]]
    lines.append("%s</port>" % indent)
    return lines


def render_layer(layer, ir_version):
    head = {k: layer[k] for k in ("id", "name", "type", "version") if k in layer}
    lines = ["\t\t<layer%s>" % attrs(head)]
    if layer["data"]:
        lines.append("\t\t\t<data%s />" % attrs(layer["data"]))
    if ir_version >= 11 and layer.get("type") not in ("Const", "Result"):
        lines += ["\t\t\t<rt_info>",
                  '\t\t\t\t<attribute name="fused_names" version="0" value="%s" />'
                  % escape(layer["name"], {'"': "&quot;"}),
                  "\t\t\t</rt_info>"]
    for kind in ("inputs", "outputs"):
        if layer[kind]:
            tag = kind[:-1]
            lines.append("\t\t\t<%s>" % tag)
            for port in layer[kind]:
                lines += render_port(port, "\t\t\t\t")
            lines.append("\t\t\t</%s>" % tag)
    lines.append("\t\t</layer>")
    return lines


def render(g):
    lines = ['<?xml version="1.0"?>', '<net name="%s" version="%s">' % (g.name, g.ir_version), "\t<layers>"]
    for layer in g.layers:
        lines += render_layer(layer, g.ir_version)
    lines += ["\t</layers>", "\t<edges>"]
    names = ("from-layer", "from-port", "to-layer", "to-port")
    lines += ["\t\t<edge%s />" % attrs(dict(zip(names, edge))) for edge in g.edges]
    lines += ["\t</edges>"]
    if g.ir_version >= 11:
        lines += ["\t<rt_info>", '\t\t<framework value="slicegen make_model.py" />', "\t</rt_info>"]
    lines += ["</net>", ""]
    text = "\n".join(lines)
    return g.filter(text) if g.filter else text


def write(g, directory, stem):
    """Writes DIRECTORY/STEM.xml and, unless a fault says otherwise, STEM.bin."""
    os.makedirs(directory, exist_ok=True)
    xml_path = os.path.join(directory, stem + ".xml")
    bin_path = os.path.join(directory, stem + ".bin")
    with open(xml_path, "w", encoding="utf-8", newline="\n") as f:
        f.write(render(g))
    if g.bin_is_dir:
        os.makedirs(bin_path, exist_ok=True)
    elif g.write_bin:
        with open(bin_path, "wb") as f:
            f.write(bytes(g.bin))
    elif os.path.isfile(bin_path):
        os.remove(bin_path)
    return xml_path


# ---- faults: each makes the example malformed in exactly one way ---------------

TARGET = "backbone/crop.0"            # the slice layer most faults touch
TARGET_CONST = "backbone/crop.0/begin"


def edge_into(g, name, port):
    layer_id = g.layer(name)["id"]
    return next(e for e in g.edges if e[2] == layer_id and e[3] == port)


def set_filter(g, f):
    g.filter = f


def set_const_shape(g, name, shape):
    """A Const's shape (its <data shape> and its port) made another one of
    the same element count."""
    g.layer(name)["data"].update(shape=",".join(str(d) for d in shape))
    g.layer(name)["outputs"][0].update(dims=list(shape))


def fault_doctype(text):
    return text.replace("<net ", '<!DOCTYPE net [<!ENTITY vendor "slicegen">]>\n<net ', 1)


def fault_entity_bomb(text):
    entities = ['<!ENTITY e0 "lol">'] + ['<!ENTITY e%d "%s">' % (k, ("&e%d;" % (k - 1)) * 10)
                                         for k in range(1, 10)]
    text = text.replace("<net ", "<!DOCTYPE net [%s]>\n<net " % "".join(entities), 1)
    return text.replace('name="slicegen_example"', 'name="&e9;"', 1)


def fault_deep_nesting(text):
    return text.replace("\t<layers>", "<x>" * 10000 + "</x>" * 10000 + "\n\t<layers>", 1)


FAULTS = {
    "not-xml": lambda g: set_filter(g, lambda text: "this is not an OpenVINO model\n"),
    "truncated": lambda g: set_filter(g, lambda text: text[:len(text) // 2]),
    "doctype": lambda g: set_filter(g, fault_doctype),
    "entity-bomb": lambda g: set_filter(g, fault_entity_bomb),
    "deep-nesting": lambda g: set_filter(g, fault_deep_nesting),
    "bad-version": lambda g: set_filter(g, lambda text: text.replace('version="11">', 'version="7">', 1)),
    "no-layers": lambda g: set_filter(g, lambda text: text.replace("\t<layers>", "\t<layerz>", 1)
                                      .replace("\t</layers>", "\t</layerz>", 1)),
    "layer-without-id": lambda g: g.layer(TARGET).pop("id"),
    "layer-without-type": lambda g: g.layer(TARGET).pop("type"),
    "layer-id-not-number": lambda g: g.layer(TARGET).update(id="7a"),
    "duplicate-id": lambda g: g.layer("head:flip-1").update(id=g.layer(TARGET)["id"]),
    "edge-to-missing-layer": lambda g: edge_into(g, TARGET, 1).__setitem__(2, 999),
    "edge-from-missing-layer": lambda g: edge_into(g, TARGET, 1).__setitem__(0, 999),
    "edge-to-missing-port": lambda g: edge_into(g, TARGET, 1).__setitem__(3, 9),
    "edge-from-missing-port": lambda g: edge_into(g, TARGET, 0).__setitem__(1, 9),
    "const-past-end": lambda g: g.layer(TARGET_CONST)["data"].update(offset=len(g.bin) - 8),
    "const-range-overflow": lambda g: g.layer(TARGET_CONST)["data"].update(offset=(1 << 63) - 8),
    "const-offset-not-number": lambda g: g.layer(TARGET_CONST)["data"].update(offset="12a"),
    "const-offset-negative": lambda g: g.layer(TARGET_CONST)["data"].update(offset=-8),
    "const-size-out-of-range": lambda g: g.layer(TARGET_CONST)["data"].update(size="99999999999999999999"),
    "const-size-mismatch": lambda g: g.layer(TARGET_CONST)["data"].update(size=24),
    "index-not-1d": lambda g: set_const_shape(g, TARGET_CONST, [2, 2]),
    "missing-bin": lambda g: setattr(g, "write_bin", False),
    "bin-is-directory": lambda g: setattr(g, "bin_is_dir", True),
    "missing-begin-mask": lambda g: g.layer(TARGET)["data"].pop("begin_mask"),
    "missing-end-mask": lambda g: g.layer(TARGET)["data"].pop("end_mask"),
    "bad-mask-value": lambda g: g.layer(TARGET)["data"].update(begin_mask="1,2,0,0"),
    "unconnected-input": lambda g: g.edges.remove(edge_into(g, TARGET, 2)),
    # the edges make a cycle: the target reads its own output, or that of the
    # slice that reads it (chain.second)
    "edge-cycle-self": lambda g: edge_into(g, TARGET, 0).__setitem__(slice(0, 2), [g.layer(TARGET)["id"], 3]),
    "edge-cycle-two": lambda g: edge_into(g, TARGET, 0).__setitem__(slice(0, 2),
                                                                    [g.layer("chain.second")["id"], 5]),
    "dim-not-number": lambda g: g.layer("image")["outputs"][0]["dims"].__setitem__(3, "8x"),
    # an output port contradicts what its layer makes: the shape of the
    # target's ([2, 3, 4, 4]), the element type of a Split output's
    "output-shape-mismatch": lambda g: g.layer(TARGET)["outputs"][0].update(dims=[2, 3, 9, 9]),
    "output-type-mismatch": lambda g: g.layer("split/rows")["outputs"][1].update(precision="I32"),
    # a layer that is no slice states a shape its inputs do not make
    "port-shape-conflict": lambda g: g.layer("image_shape")["outputs"][0].update(dims=[5]),
    "pad-mode-missing": lambda g: g.layer("pad/border")["data"].pop("pad_mode"),
    "pad-mode-unknown": lambda g: g.layer("pad/border")["data"].update(pad_mode="mirror"),
    "pad-value-not-scalar": lambda g: set_const_shape(g, "pad/border/pad_value", [1]),
    "num-splits-missing": lambda g: g.layer("split/halves")["data"].pop("num_splits"),
    "num-splits-mismatch": lambda g: g.layer("split/halves")["data"].update(num_splits=3),
    "split-lengths-mismatch": lambda g: g.layer("split/rows")["outputs"].append(g.port(6, "f32", [2, 3, 0, 8])),
    "axis-not-scalar": lambda g: set_const_shape(g, "split/halves/axis", [1, 1]),
    "batch-dims-not-number": lambda g: g.layer("pick/last-channel")["data"].update(batch_dims="0x"),
}


def faulty(name):
    g = example()
    FAULTS[name](g)
    return g


# ---- command line ------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("directory", nargs="?", help="where the .xml and .bin files go")
    p.add_argument("--ir-version", type=int, choices=(10, 11), default=11,
                   help="spell the example as IR v10 (model-v10.*) or v11 (model.*)")
    p.add_argument("--no-port-precision", action="store_true",
                   help="Parameter ports without precision (model-noprec.*)")
    p.add_argument("--layers", type=int, metavar="N", help="a model with N slice layers (scale-N.*)")
    p.add_argument("--runtime-values", action="store_true",
                   help="slices with numbers known at run time (runtime-values.*)")
    p.add_argument("--ops", action="store_true",
                   help="Pad, Gather, Split and VariadicSplit layers (ops.*, *.out)")
    p.add_argument("--infer", action="store_true",
                   help="slices of dynamic ports that shape inference knows (infer.*)")
    p.add_argument("--fault", metavar="NAME", choices=sorted(FAULTS) + ["all"],
                   help="the example with one fault (NAME.*), or every fault: %s" % ", ".join(sorted(FAULTS)))
    p.add_argument("--all", action="store_true", help="every file, for tests")
    p.add_argument("--list", action="store_true", help="print the example's layers: id, type, name")
    args = p.parse_args(argv)

    if args.list:
        for layer in example().layers:
            print(layer["id"], layer["type"], layer["name"])
        return 0
    if args.directory is None:
        p.error("the output directory is required")
    out = args.directory
    if args.all:
        write(example(), out, "model")
        write(example(10), out, "model-v10")
        write(example(port_precision=False), out, "model-noprec")
        write(scale(500), out, "scale-500")
        write(runtime(), out, "runtime-values")
        write(infer(), out, "infer")
        write_ops(out)
        for name in sorted(FAULTS):
            write(faulty(name), out, name)
    elif args.fault:
        for name in sorted(FAULTS) if args.fault == "all" else [args.fault]:
            write(faulty(name), out, name)
    elif args.ops:
        write_ops(out)
    elif args.infer:
        write(infer(), out, "infer")
    elif args.runtime_values:
        write(runtime(), out, "runtime-values")
    elif args.layers is not None:
        write(scale(args.layers), out, "scale-%d" % args.layers)
    elif args.no_port_precision:
        write(example(args.ir_version, port_precision=False), out, "model-noprec")
    else:
        write(example(args.ir_version), out, "model" if args.ir_version == 11 else "model-v10")
    return 0


if __name__ == "__main__":
    sys.exit(main())

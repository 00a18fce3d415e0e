#!/usr/bin/python3
"""Writes the ONNX models of the reader's tests (test_onnx_reader.c, ctest
`onnx-reader`; onnx_errors_test.sh, ctest `onnx-errors`).

    make_onnx_models.py DIR

DIR/good/*.onnx, and DIR/good/expected.txt: per layer one line of tab-
separated fields, model, layer index, id, name, type, dtype, shape (-1 for a
runtime dimension), and the spec text, or "skip:" and a piece of the skip
reason. DIR/bad/*.onnx (with their external data files), and
DIR/bad/expected.txt: per model its file and pieces of the one-line error.
Models come from the onnx package (Debian: python3-onnx) or, where the
bytes matter (packed fields, wire faults), from the small encoder below.
Exit status 77 without the onnx package.
"""
import os
import struct
import sys

try:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    print("make_onnx_models.py: the onnx Python package is missing (Debian: python3-onnx)")
    sys.exit(77)

I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)

# ---- a protobuf encoder for hand-made bytes ---------------------------------------


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(number, wire, payload):
    """One field: a varint payload is an int, a length-delimited one bytes."""
    tag = varint(number << 3 | wire)
    if wire == 0:
        return tag + varint(payload)
    return tag + varint(len(payload)) + payload


def msg(*fields):
    return b"".join(fields)


def s(number, text):
    return field(number, 2, text.encode())


def packed(number, values):
    return field(number, 2, b"".join(varint(v) for v in values))


def unpacked(number, values):
    return b"".join(field(number, 0, v) for v in values)


def value_info(name, elem_type, dims):
    shape = msg(*[field(1, 2, field(1, 0, d) if isinstance(d, int) else s(2, d)) for d in dims])
    return msg(s(1, name), field(2, 2, field(1, 2, msg(field(1, 0, elem_type), field(2, 2, shape)))))


def model_bytes(opset, nodes, inputs, initializers=()):
    graph = msg(*[field(1, 2, n) for n in nodes], *[field(5, 2, t) for t in initializers],
                *[field(11, 2, i) for i in inputs])
    return msg(field(1, 0, 8), field(8, 2, field(2, 0, opset)), field(7, 2, graph))


# ---- models with the onnx package ------------------------------------------------


def tensor(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def model(opset, nodes, inputs, initializers=(), value_info=(), outputs=()):
    """inputs, outputs: (name, TensorProto type, dims) triples; value_info: ValueInfoProtos."""
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs], list(initializers),
                              value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m.SerializeToString()


F, U8 = TensorProto.FLOAT, TensorProto.UINT8
X = [("x", F, [4, 5, 6])]


def node(op, inputs, outputs, name=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, **attrs)


# Two Slices in a chain: x [4, 6] -> q0 (axis 0, 1:6) -> p [3, 6] -> q1 (axis 1, 1:6) -> y [3, 5].
CHAIN = [node("Slice", ["x", "s1", "e6", "a0"], ["p"], "q0"), node("Slice", ["p", "s1", "e6", "a1"], ["y"], "q1")]
CHAIN_INDICES = [tensor("s1", [1]), tensor("e6", [6]), tensor("a0", [0]), tensor("a1", [1])]


def good_models(folder):
    """(file, bytes, expected lines) of models that read."""
    out = []

    def add(name, data, *lines):
        out.append((name, data, lines))

    slice_text = "--op OnnxSlice --start {} --stop {} --step {} --axes {}"
    # Slice-1: attributes; axes default to 0..len-1.
    add("slice1.onnx", model(1, [node("Slice", ["x"], ["y"], "s", starts=[1, -2], ends=[3, I64_MAX])], X),
        "0\t0\ts\tSlice\tf32\t4,5,6\t--op OnnxSlice --start 1,-2 --stop 3,9223372036854775807 --step 1,1")
    # Slice-10/11/13: inputs, int32 and int64, Constant nodes, steps.
    for opset in (10, 11, 13):
        add(f"slice{opset}.onnx",
            model(opset, [node("Constant", [], ["e"], "c", value=tensor("v", [I64_MIN, 4])),
                          node("Slice", ["x", "st", "e", "ax", "sp"], ["y"], "s")], X,
                  [tensor("st", [-1, 0], np.int32), tensor("ax", [2, -2], np.int32), tensor("sp", [-1, 2])]),
            "0\t1\ts\tSlice\tf32\t4,5,6\t" + slice_text.format("-1,0", "-9223372036854775808,4", "-1,2", "2,-2"))
    # Runtime values: starts and steps from graph inputs; a dim_param.
    add("slice_runtime.onnx",
        model(13, [node("Slice", ["x", "st", "e", "", "sp"], ["y"], "s")],
              [("x", F, [2, "n", 7]), ("st", TensorProto.INT64, [2]), ("sp", TensorProto.INT32, [2])],
              [tensor("e", [5, 6])]),
        "0\t0\ts\tSlice\tf32\t2,-1,7\t--op OnnxSlice --start starts_0,starts_1 --stop 5,6 --step steps_0,steps_1")
    add("slice_skips.onnx",
        model(13, [node("Slice", ["x", "e", "e", "ax"], ["y"], "axes_input"),
                   node("Slice", ["x", "e", "e2"], ["y2"], "lengths"),
                   node("Slice", ["x", "st", "e"], ["y3"], "dynamic_length"),
                   node("Slice", ["x", "e", "e", "", "zero"], ["y4"], "zero_step"),
                   helper.make_node("Foo", ["x"], ["h"], name="foo", domain="com.example"),
                   node("Slice", ["h", "e", "e"], ["y5"], "no_type")],
              [("x", F, [4, 5, 6]), ("st", TensorProto.INT64, ["k"]), ("ax", TensorProto.INT64, [2])],
              [tensor("e", [1, 2]), tensor("e2", [1]), tensor("zero", [0, 1])]),
        "0\t0\taxes_input\tSlice\tf32\t4,5,6\t--op OnnxSlice --start 1,2 --stop 1,2 --step 1,1 --axes axes_0,axes_1",
        "1\t1\tlengths\tSlice\tf32\t4,5,6\tskip:must have the same length (2 and 1)",
        "2\t2\tdynamic_length\tSlice\tf32\t4,5,6\tskip:its length is not known",
        "3\t3\tzero_step\tSlice\tf32\t4,5,6\tskip:step",
        "4\t5\tno_type\tSlice\tbool\t\tskip:the data input 'h' has no known type (node 'foo' "
        "(com.example.Foo) makes it, and slicegen has no shape rule for Foo)")
    # Shapes no file states: inferred through the nodes before the slice
    # (Relu, Transpose, Concat), with a dim_param carried along.
    add("inferred.onnx",
        model(13, [node("Relu", ["x"], ["r"], "relu"), node("Transpose", ["r"], ["t"], "tr", perm=[1, 0, 2]),
                   node("Concat", ["t", "t"], ["c"], "cat", axis=2),
                   node("Slice", ["c", "e1", "e2"], ["y"], "s")],
              [("x", F, ["n", 5, 6])], [tensor("e1", [1]), tensor("e2", [3])]),
        "0\t3\ts\tSlice\tf32\t5,-1,12\t--op OnnxSlice --start 1 --stop 3 --step 1")
    # Shape arithmetic: Gather(Shape(x), 2) is folded (no layer), and the
    # Slice's end it makes folds to the constant 6.
    add("shape_arith.onnx",
        model(13, [node("Shape", ["x"], ["sh"], "shape"), node("Gather", ["sh", "two"], ["d"], "pick", axis=0),
                   node("Unsqueeze", ["d", "zero"], ["end"], "unsq"),
                   node("Slice", ["x", "one", "end", "two1"], ["y"], "s")],
              [("x", F, ["n", 5, 6])],
              [tensor("two", 2), tensor("zero", [0]), tensor("one", [1]), tensor("two1", [2])]),
        "0\t3\ts\tSlice\tf32\t-1,5,6\t" + slice_text.format(1, 6, 1, 2))
    # Only shape arithmetic: no layer at all.
    add("only_shape_arith.onnx",
        model(13, [node("Shape", ["x"], ["sh"], "shape"), node("Gather", ["sh", "two"], ["d"], "pick", axis=0)],
              [("x", F, ["n", 5, 6])], [tensor("two", 2)], outputs=[("d", TensorProto.INT64, [])]))
    # The model's symbols: a Slice whose end follows from a dimension (a
    # value the model's symbols give) and one whose start is a graph input
    # (index data the caller gives).
    add("symbols.onnx",
        model(13, [node("Shape", ["x"], ["sh"], "shape"), node("Gather", ["sh", "zero0"], ["n"], "pick", axis=0),
                   node("Sub", ["n", "one0"], ["m"], "less"), node("Unsqueeze", ["m", "zero"], ["end"], "unsq"),
                   node("Slice", ["x", "zero", "end", "zero"], ["head"], "head"),
                   node("Slice", ["x", "st", "six", "one"], ["tail"], "tail")],
              [("x", F, ["n", 6]), ("st", TensorProto.INT64, [1])],
              [tensor("zero0", 0), tensor("one0", 1), tensor("zero", [0]), tensor("one", [1]), tensor("six", [6])]),
        "0\t4\thead\tSlice\tf32\t-1,6\t--op OnnxSlice --start 0 --stop ends_0 --step 1 --axes 0",
        "1\t5\ttail\tSlice\tf32\t-1,6\t--op OnnxSlice --start starts_0 --stop 6 --step 1 --axes 1")
    # Subgraphs: the Slices of an If's branches are layers, named after
    # their path, reading the outer graph's tensors, in the order of the
    # If's attributes (the onnx package writes else_branch first).
    then_g = helper.make_graph([node("Slice", ["x", "one", "end3"], ["yt"], "st")], "then", [],
                               [helper.make_tensor_value_info("yt", F, None)])
    else_g = helper.make_graph([node("Slice", ["x", "zero", "end3"], ["ye"], "se")], "else", [],
                               [helper.make_tensor_value_info("ye", F, None)])
    add("subgraph_slices.onnx",
        model(13, [node("If", ["flag"], ["y"], "if", then_branch=then_g, else_branch=else_g)],
              [("x", F, [4, 5, 6]), ("flag", TensorProto.BOOL, [])],
              [tensor("one", [1]), tensor("zero", [0]), tensor("end3", [3])]),
        "0\t2\tif/else_branch/se\tSlice\tf32\t4,5,6\t--op OnnxSlice --start 0 --stop 3 --step 1",
        "1\t3\tif/then_branch/st\tSlice\tf32\t4,5,6\t--op OnnxSlice --start 1 --stop 3 --step 1")
    # Every element type slicegen has, and two it lacks.
    types = [(TensorProto.BOOL, "bool"), (TensorProto.INT8, "i8"), (TensorProto.UINT8, "u8"),
             (TensorProto.INT16, "i16"), (TensorProto.UINT16, "u16"), (TensorProto.INT32, "i32"),
             (TensorProto.UINT32, "u32"), (TensorProto.INT64, "i64"), (TensorProto.UINT64, "u64"),
             (TensorProto.FLOAT16, "f16"), (TensorProto.BFLOAT16, "bf16"), (TensorProto.FLOAT, "f32"),
             (TensorProto.DOUBLE, "f64")]
    nodes = [node("Slice", [f"x{t}", "b", "e"], [f"y{t}"], f"s{t}") for t, _ in types]
    nodes += [node("Slice", ["xs", "b", "e"], ["ys"], "string"), node("Slice", ["xc", "b", "e"], ["yc"], "complex")]
    add("types.onnx",
        model(13, nodes, [(f"x{t}", t, [3]) for t, _ in types] +
              [("xs", TensorProto.STRING, [3]), ("xc", TensorProto.COMPLEX64, [3])],
              [tensor("b", [1]), tensor("e", [2])]),
        *[f"{i}\t{i}\ts{t}\tSlice\t{name}\t3\t--op OnnxSlice --start 1 --stop 2 --step 1" for i, (t, name) in enumerate(types)],
        f"{len(types)}\t{len(types)}\tstring\tSlice\tbool\t3\tskip:element type STRING",
        f"{len(types) + 1}\t{len(types) + 1}\tcomplex\tSlice\tbool\t3\tskip:element type COMPLEX64")
    # Pad in every version.
    add("pad1.onnx", model(1, [node("Pad", ["x"], ["y"], "p", paddings=[0, 1, 2, 0, 0, -1], mode="edge")], X),
        "0\t0\tp\tPad\tf32\t4,5,6\t--op Pad --pads-begin 0,1,2 --pads-end 0,0,-1 --mode edge")
    add("pad2.onnx", model(2, [node("Pad", ["x"], ["y"], "p", pads=[1, 0, 0, 1, 0, 0], value=2.5)], X),
        "0\t0\tp\tPad\tf32\t4,5,6\t--op Pad --pads-begin 1,0,0 --pads-end 1,0,0 --mode constant --value 2.5")
    for opset in (11, 13):
        add(f"pad{opset}.onnx",
            model(opset, [node("Pad", ["x", "p", "v"], ["y"], "p")], [("x", TensorProto.INT16, [4, 5])],
                  [tensor("p", [0, -1, 2, 3]), tensor("v", -7, np.int16)]),
            "0\t0\tp\tPad\ti16\t4,5\t--op Pad --pads-begin 0,-1 --pads-end 2,3 --mode constant --value -7")
    add("pad18.onnx",
        model(18, [node("Pad", ["x", "p", "", "a"], ["y"], "p", mode="reflect"),
                   node("Pad", ["x", "p", "", "a"], ["y2"], "wrap18", mode="wrap"),
                   node("Pad", ["x", "p"], ["y3"], "odd", mode="reflect"),
                   node("Pad", ["x", "rp"], ["y4"], "runtime_pads")],
              X + [("rp", TensorProto.INT64, [6])], [tensor("p", [1, 2, 3, 4]), tensor("a", [-1, 0])]),
        "0\t0\tp\tPad\tf32\t4,5,6\t--op Pad --pads-begin 1,2 --pads-end 3,4 --axes -1,0 --mode reflect",
        "1\t1\twrap18\tPad\tf32\t4,5,6\t--op Pad --pads-begin 1,2 --pads-end 3,4 --axes -1,0 --mode wrap",
        "2\t2\todd\tPad\tf32\t4,5,6\tskip:two entries per dimension (4 pads for rank 3)",
        "3\t3\truntime_pads\tPad\tf32\t4,5,6\t--op Pad --pads-begin pads_0,pads_1,pads_2 --pads-end pads_3,pads_4,pads_5 "
        "--mode constant --value 0.0")
    add("pad19.onnx",
        model(19, [node("Pad", ["x", "p"], ["y"], "p", mode="wrap"),
                   node("Pad", ["x", "p", "cv"], ["y2"], "uint64_fill")],
              [("x", TensorProto.UINT64, [2, 3])], [tensor("p", [1, 1, 1, 1]), tensor("cv", 2**64 - 1, np.uint64)]),
        "0\t0\tp\tPad\tu64\t2,3\t--op Pad --pads-begin 1,1 --pads-end 1,1 --mode wrap",
        "1\t1\tuint64_fill\tPad\tu64\t2,3\t--op Pad --pads-begin 1,1 --pads-end 1,1 --mode constant "
        "--value 18446744073709551615")
    # Split in every version; one layer per output, in output order.
    sl = "--op Slice --start {} --stop {} --step 1 --axes {}"
    add("split2.onnx", model(2, [node("Split", ["x"], ["a", "b"], "sp", axis=1, split=[2, 3])], X),
        "0\t0\tsp\tSplit\tf32\t4,5,6\t" + sl.format(0, 2, 1), "1\t0\tsp\tSplit\tf32\t4,5,6\t" + sl.format(2, 5, 1))
    add("split11.onnx", model(11, [node("Split", ["x"], ["a", "b", "c"], "", axis=-1),
                                   node("Split", ["x"], ["d", "e"], "uneven", axis=1)], X),
        *[f"{k}\t0\ta\tSplit\tf32\t4,5,6\t" + sl.format(2 * k, 2 * k + 2, 2) for k in range(3)],
        "3\t1\tuneven\tSplit\tf32\t4,5,6\tskip:does not split evenly",
        "4\t1\tuneven\tSplit\tf32\t4,5,6\tskip:does not split evenly")
    add("split13.onnx", model(13, [node("Split", ["x", "sizes"], ["a", "b"], "sp")], X, [tensor("sizes", [3, 1])]),
        "0\t0\tsp\tSplit\tf32\t4,5,6\t" + sl.format(0, 3, 0), "1\t0\tsp\tSplit\tf32\t4,5,6\t" + sl.format(3, 4, 0))
    add("split18.onnx", model(18, [node("Split", ["x"], ["a", "b", "c"], "thirds", axis=0, num_outputs=3),
                                   node("Split", ["x"], ["d", "e", "f"], "empty_last", axis=1, num_outputs=3)],
                              [("x", F, [7, 4])]),
        "0\t0\tthirds\tSplit\tf32\t7,4\t" + sl.format(0, 3, 0), "1\t0\tthirds\tSplit\tf32\t7,4\t" + sl.format(3, 6, 0),
        "2\t0\tthirds\tSplit\tf32\t7,4\t" + sl.format(6, 7, 0),
        *[f"{3 + k}\t1\tempty_last\tSplit\tf32\t7,4\tskip:ONNX Runtime refuses" for k in range(3)])
    add("split_dynamic.onnx", model(13, [node("Split", ["x", "sizes"], ["a", "b"], "sized"),
                                         node("Split", ["x"], ["c", "d"], "unsized")],
                                    [("x", F, ["n", 4])], [tensor("sizes", [1, 2])]),
        "0\t0\tsized\tSplit\tf32\t-1,4\t" + sl.format(0, 1, 0), "1\t0\tsized\tSplit\tf32\t-1,4\t" + sl.format(1, 3, 0),
        "2\t1\tunsized\tSplit\tf32\t-1,4\t--op Split --parts 2 --axis 0 --output 0",
        "3\t1\tunsized\tSplit\tf32\t-1,4\t--op Split --parts 2 --axis 0 --output 1")
    # Split-18's num_outputs on an axis known only at run time: chunks of ceil(n / 3)
    add("split18_dynamic.onnx", model(18, [node("Split", ["x"], ["a", "b", "c"], "chunks", axis=0, num_outputs=3)],
                                      [("x", F, ["n", 4])]),
        *[f"{k}\t0\tchunks\tSplit\tf32\t-1,4\t--op Split --chunks 3 --axis 0 --output {k}" for k in range(3)])
    # Split sizes from a graph input: one Split spec per output, the sizes its values.
    sp = "--op Split --split split_0,split_1,split_2 --axis 2 --output {}"
    add("split_runtime.onnx", model(18, [node("Split", ["x", "sizes"], ["a", "b", "c"], "runtime", axis=-1)],
                                    [("x", F, [4, 5, 6]), ("sizes", TensorProto.INT64, [3])]),
        *[f"{k}\t0\truntime\tSplit\tf32\t4,5,6\t" + sp.format(k) for k in range(3)])
    # Gather with a scalar constant index, in every version.
    ss = ("--op StridedSlice --begin {} --end {} --stride {} --begin-mask {m} --end-mask {m} --new-axis-mask {z} "
          "--shrink-axis-mask {k} --ellipsis-mask {z}")
    for opset in (1, 11, 13):
        add(f"gather{opset}.onnx",
            model(opset, [node("Gather", ["x", "i"], ["y"], "g", axis=1),
                          node("Constant", [], ["j"], "c", value_int=-1), node("Gather", ["x", "j"], ["y2"], "g0")],
                  X, [tensor("i", 3, np.int32)]),
            "0\t0\tg\tGather\tf32\t4,5,6\t" + ss.format("0,3", "0,4", "1,1", m="1,0", z="0,0", k="0,1"),
            "1\t2\tg0\tGather\tf32\t4,5,6\t" + ss.format("-1", "0", "1", m="0", z="0", k="1"))
    # A scalar index from a graph input is the runtime value indices_0 of a shrink step; an index
    # array known only at run time is a gather, no slice.
    add("gather_skips.onnx",
        model(13, [node("Gather", ["x", "v"], ["y"], "vector"), node("Gather", ["x", "r"], ["y2"], "runtime"),
                   node("Gather", ["x", "i"], ["y3"], "axis", axis=3),
                   node("Gather", ["x", "rv"], ["y4"], "runtime_vector", axis=1)],
              X + [("r", TensorProto.INT64, []), ("rv", TensorProto.INT64, [2])], [tensor("v", [1]), tensor("i", 0)]),
        "0\t0\tvector\tGather\tf32\t4,5,6\t[1:2]",
        "1\t1\truntime\tGather\tf32\t4,5,6\t" + ss.format("indices_0", "1", "1", m="0", z="0", k="1"),
        "2\t2\taxis\tGather\tf32\t4,5,6\tskip:axis 3 is out of range",
        "3\t3\truntime_vector\tGather\tf32\t4,5,6\tskip:not a constant")
    # Gather with an index tensor: runs of consecutive indices (ascending,
    # descending, negative ones from the end) sliced and concatenated; rows
    # of a 2-D index tensor along a new axis; an index out of range skipped.
    add("gather_tensor.onnx",
        model(13, [node("Gather", ["x", "v"], ["y"], "runs", axis=1),
                   node("Gather", ["x", "m"], ["y2"], "rows", axis=2),
                   node("Gather", ["x", "o"], ["y3"], "outside", axis=0)],
              X, [tensor("v", [0, 1, 2, 4, 3, -1, -4]), tensor("m", [[5, 4], [0, 1]]), tensor("o", [1, 4])]),
        "0\t0\truns\tGather\tf32\t4,5,6\tnp.concatenate([x[:, 0:3], x[:, 4:2:-1], x[:, 4:5], x[:, 1:2]], axis=1)", "1\t1\trows\tGather\tf32\t4,5,6\tnp.concatenate([x[:, :, None, 5:3:-1], x[:, :, None, 0:2]], axis=2)",
        "2\t2\toutside\tGather\tf32\t4,5,6\tskip:index 4 is out of range for axis 0 of size 4")
    # Packed and unpacked repeated fields, by hand: Slice-1's attributes
    # (ONNX writes them unpacked) and an initializer's int64_data (packed).
    x_info = value_info("x", 1, [4, 5])

    def ints_attr(name, values, pack):
        return msg(s(1, name), field(20, 0, 7), (packed if pack else unpacked)(8, values))

    for pack in (False, True):
        slice1 = msg(s(1, "x"), s(2, "y"), s(3, "s"), s(4, "Slice"), field(5, 2, ints_attr("starts", [1, -1], pack)),
                     field(5, 2, ints_attr("ends", [3, I64_MAX], not pack)))
        add(f"packed{int(pack)}_attr.onnx", model_bytes(1, [slice1], [x_info]),
            "0\t0\ts\tSlice\tf32\t4,5\t--op OnnxSlice --start 1,-1 --stop 3,9223372036854775807 --step 1,1")
        starts = msg(field(1, 0, 2), field(2, 0, 7), s(8, "st"), (packed if pack else unpacked)(7, [0, -3]))
        ends = msg(field(1, 0, 2), field(2, 0, 7), s(8, "en"), (unpacked if pack else packed)(7, [2, I64_MIN]))
        slice10 = msg(s(1, "x"), s(1, "st"), s(1, "en"), s(2, "y"), s(3, "s"), s(4, "Slice"))
        add(f"packed{int(pack)}_tensor.onnx", model_bytes(10, [slice10], [x_info], [starts, ends]),
            "0\t0\ts\tSlice\tf32\t4,5\t--op OnnxSlice --start 0,-3 --stop 2,-9223372036854775808 --step 1,1")
    # External data in a subfolder, at an offset.
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    with open(os.path.join(folder, "data", "idx.bin"), "wb") as f:
        f.write(b"\xAA" * 8 + struct.pack("<qq", 1, 3))
    ext = tensor("st", [0, 0])
    ext.ClearField("raw_data")
    ext.ClearField("int64_data")
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "data/idx.bin"), ("offset", "8"), ("length", "16")):
        entry = ext.external_data.add()
        entry.key, entry.value = k, v
    add("external.onnx", model(13, [node("Slice", ["x", "st", "e"], ["y"], "s")], X, [ext, tensor("e", [2, 4])]),
        "0\t0\ts\tSlice\tf32\t4,5,6\t--op OnnxSlice --start 1,3 --stop 2,4 --step 1,1")
    # Nodes of other domains and ops are not layers; a deep nest of bytes
    # inside a subgraph (AttributeProto.g) is a node's input name there,
    # read as a string, not walked.
    nest = b""
    for _ in range(20000):
        nest = field(1, 2, nest)
    relu = msg(s(1, "x"), s(2, "r"), s(4, "Relu"), field(5, 2, msg(s(1, "g"), field(6, 2, nest))))
    custom = msg(s(1, "x"), s(2, "c"), s(4, "Slice"), s(7, "com.example"))
    slice1 = msg(s(1, "x"), s(2, "y"), s(4, "Slice"), field(5, 2, ints_attr("starts", [0], False)),
                 field(5, 2, ints_attr("ends", [1], False)))
    add("others.onnx", model_bytes(1, [relu, custom, slice1], [x_info]),
        "0\t2\ty\tSlice\tf32\t4,5\t--op OnnxSlice --start 0 --stop 1 --step 1")
    # The types value_info and graph outputs give a slice's output agree
    # with the shape it makes; a dim_param matches any dimension (issue 34).
    for name, p_dims, y_dims in (("chain_typed.onnx", [3, 6], [3, 5]), ("chain_dim_param.onnx", ["n", 6], [3, "m"])):
        add(name, model(13, CHAIN, [("x", F, [4, 6])], CHAIN_INDICES,
                        [helper.make_tensor_value_info("p", F, p_dims)], [("y", F, y_dims)]),
            "0\t0\tq0\tSlice\tf32\t4,6\t" + slice_text.format(1, 6, 1, 0),
            "1\t1\tq1\tSlice\tf32\t3,6\t" + slice_text.format(1, 6, 1, 1))  # inferred: p is [3, 6]
    return out


def bad_models(folder):
    """(file, bytes, pieces of the message) of malformed models."""
    out = []

    def add(name, data, *pieces):
        out.append((name, data, pieces))

    good = model(13, [node("Slice", ["x", "st", "e"], ["y"], "Slice_3")], X, [tensor("st", [1]), tensor("e", [2])])
    add("truncated.onnx", good[:len(good) // 2], "ModelProto.graph", "runs past the end")
    add("wrong_wire.onnx", field(7, 0, 5), "ModelProto.graph", "wrong wire type", "wire type 0")
    add("past_end.onnx", field(7, 2, b"\x0a\x10abc"), "ModelProto.graph.node[0]", "length runs past the end")
    add("long_varint.onnx", b"\x08" + b"\xff" * 11, "varint is cut off or too long")
    add("group.onnx", b"\x7b\x7c", "ModelProto: unsupported wire type", "field 15 at byte 0: wire type 3")
    add("no_opset.onnx", msg(field(1, 0, 8), field(7, 2, b"")), "no version for the default domain")
    two = field(8, 2, field(2, 0, 13)) + field(8, 2, msg(s(1, "ai.onnx"), field(2, 0, 11)))
    add("two_opsets.onnx", two + field(7, 2, b""), "opset_import[1]", "default domain is given twice")
    add("no_graph.onnx", field(8, 2, field(2, 0, 13)), "the model has no graph")
    # Subgraphs nested 33 deep: refused before they are unpacked.
    leaf = helper.make_graph([node("Identity", ["x"], ["z"], "id")], "g0", [], [helper.make_tensor_value_info("z", F, None)])
    deep = leaf
    for level in range(33):
        deep = helper.make_graph([node("If", ["flag"], ["z"], f"if{level}", then_branch=deep, else_branch=leaf)],
                                 f"g{level + 1}", [], [helper.make_tensor_value_info("z", F, None)])
    add("deep_subgraphs.onnx",
        model(13, [node("If", ["flag"], ["z"], "top", then_branch=deep, else_branch=leaf)],
              [("x", F, [2]), ("flag", TensorProto.BOOL, [])]),
        "subgraphs nest deeper than 32 levels")
    add("missing_initializer.onnx",
        model(13, [node("Slice", ["x", "st", "e"], ["y"], "Slice_3")], X, [tensor("e", [2])]),
        "node 'Slice_3' (index 0): input 'starts': no graph input, initializer or node output named 'st'")
    add("missing_data.onnx", model(13, [node("Slice", ["z", "st", "e"], ["y"], "s")], X,
                                   [tensor("st", [1]), tensor("e", [2])]), "input 'data'", "named 'z'")
    add("missing_input.onnx", model(13, [node("Slice", ["x", "st"], ["y"], "s")], X, [tensor("st", [1])]),
        "node 's' (index 0): input 'ends' is required")
    add("duplicate_initializer.onnx",
        model(13, [node("Slice", ["x", "st", "e"], ["y"], "s")], X, [tensor("st", [1]), tensor("st", [2]),
                                                                      tensor("e", [2])]),
        "tensor 'st' has two producers", "initializer 'st' (index 0)", "initializer 'st' (index 1)")
    add("duplicate_output.onnx",
        model(13, [node("Relu", ["x"], ["e"], "r"), node("Slice", ["x", "st", "e"], ["y"], "s")], X,
              [tensor("st", [1]), tensor("e", [2])]),
        "tensor 'e' has two producers", "node 'r' (index 0) output 0")
    add("duplicate_attribute.onnx",
        model_bytes(1, [msg(s(1, "x"), s(2, "y"), s(3, "s"), s(4, "Slice"),
                            field(5, 2, msg(s(1, "starts"), field(20, 0, 7), unpacked(8, [1]))),
                            field(5, 2, msg(s(1, "starts"), field(20, 0, 7), unpacked(8, [1]))))],
                    [value_info("x", 1, [4])]),
        "node 's' (index 0): attribute 'starts' is given twice")
    add("attribute_type.onnx", model(1, [node("Slice", ["x"], ["y"], "s", starts=[1.5], ends=[2])], X),
        "node 's' (index 0): attribute 'starts' must be of type INTS (it is of type FLOATS)")
    add("missing_attribute.onnx", model(1, [node("Slice", ["x"], ["y"], "s", starts=[1])], X),
        "node 's' (index 0): attribute 'ends' is required")
    huge = tensor("st", [1])
    del huge.dims[:]
    huge.dims.extend([1 << 40, 1 << 40])
    add("overflow.onnx", model(13, [node("Slice", ["x", "st", "st"], ["y"], "s")], X, [huge]),
        "initializer 'st' (index 0)", "number of elements overflows")
    short = tensor("st", [1, 2])
    short.raw_data = short.raw_data[:12]
    add("short_raw.onnx", model(13, [node("Slice", ["x", "st", "st"], ["y"], "s")], X, [short]),
        "initializer 'st' (index 0): raw_data has 12 bytes, its 2 elements of INT64 need 16")
    typed = tensor("st", [1, 2])
    typed.ClearField("raw_data")
    typed.int64_data.extend([1])
    add("short_typed.onnx", model(13, [node("Slice", ["x", "st", "st"], ["y"], "s")], X, [typed]),
        "int64_data holds 1 numbers, its 2 elements of INT64 need 2")
    add("negative_dim.onnx", model(13, [node("Slice", ["x", "st", "st"], ["y"], "s")], [("x", F, [-3])],
                                   [tensor("st", [1])]), "negative dimension (dim[0] = -3)")
    with open(os.path.join(folder, "w.bin"), "wb") as f:
        f.write(b"\0" * 16)
    os.makedirs(os.path.join(folder, "sub"), exist_ok=True)
    if not os.path.lexists(os.path.join(folder, "sub", "link.bin")):
        os.symlink("/etc/hostname", os.path.join(folder, "sub", "link.bin"))
    for name, kv, pieces in [
            ("ext_absolute.onnx", [("location", "/etc/hostname")], ["relative to the model's folder"]),
            ("ext_dotdot.onnx", [("location", "sub/../w.bin")], ["must not contain '..'"]),
            ("ext_link.onnx", [("location", "sub/link.bin")], ["lies outside the model's folder"]),
            ("ext_missing.onnx", [("location", "none.bin")], ["cannot find the external data file"]),
            ("ext_offset.onnx", [("location", "w.bin"), ("offset", "17")], ["offset lies past the end"]),
            ("ext_length.onnx", [("location", "w.bin"), ("offset", "8"), ("length", "16")],
             ["runs past the end of its file (offset 8 + length 16 > 16 bytes"]),
            ("ext_size.onnx", [("location", "w.bin")], ["external data has 16 bytes", "need 8"])]:
        t = tensor("st", [1])
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for k, v in kv:
            e = t.external_data.add()
            e.key, e.value = k, v
        add(name, model(13, [node("Slice", ["x", "st", "st"], ["y"], "s")], X, [t]),
            "initializer 'st' (index 0)", *pieces)
    # Nodes must read what earlier nodes make: a Slice of its own output, two
    # Slices of each other's, and nodes out of order (issue 34).
    cycle = "not by an earlier node, a graph input or an initializer (the graph has a cycle or is not sorted"
    x46 = [("x", F, [4, 6])]
    add("cycle_self.onnx", model(13, [node("Slice", ["y", "s1", "e6", "a1"], ["y"], "q0")], x46, CHAIN_INDICES,
                                 [helper.make_tensor_value_info("y", F, [4, 6])]),
        "node 'q0' (index 0): input 0 ('y') is made by node 'q0' (index 0) output 0", cycle)
    add("cycle_two.onnx",
        model(13, [node("Slice", ["b", "s1", "e6", "a1"], ["a"], "q0"),
                   node("Slice", ["a", "s1", "e6", "a1"], ["b"], "q1")],
              x46, CHAIN_INDICES, [helper.make_tensor_value_info(n, F, [4, 6]) for n in "ab"]),
        "node 'q0' (index 0): input 0 ('b') is made by node 'q1' (index 1) output 0", cycle)
    add("unsorted.onnx", model(13, CHAIN[::-1], x46, CHAIN_INDICES, [helper.make_tensor_value_info("p", F, [3, 6])]),
        "node 'q1' (index 0): input 0 ('p') is made by node 'q0' (index 1) output 0", cycle)
    add("unsorted_index.onnx",
        model(13, [node("Slice", ["x", "c", "e6"], ["y"], "q0"),
                   node("Constant", [], ["c"], "c", value=tensor("v", [1]))], x46, CHAIN_INDICES),
        "node 'q0' (index 0): input 1 ('c') is made by node 'c' (index 1) output 0", cycle)
    # A slice's output typed otherwise than it is made: a layer reading it
    # would be compiled for that type, and for the made one when fused.
    for name, p_type, p_dims, y_dims, pieces in (
            ("value_info_shape.onnx", F, [100, 100], None,
             ["node 'q0' (Slice): value_info of 'p' gives f32 [100, 100] but the node makes f32 [3, 6]"]),
            ("value_info_rank.onnx", F, [3, 6, 1], None,
             ["node 'q0' (Slice): value_info of 'p' gives f32 [3, 6, 1] but the node makes f32 [3, 6]"]),
            ("value_info_dim_param.onnx", F, ["n", 7], None,
             ["node 'q0' (Slice): value_info of 'p' gives f32 [n, 7] but the node makes f32 [3, 6]"]),
            ("value_info_type.onnx", TensorProto.INT32, [3, 6], None,
             ["node 'q0' (Slice): value_info of 'p' gives i32 [3, 6] but the node makes f32 [3, 6]"]),
            ("output_shape.onnx", F, [3, 6], [3, 4],
             ["node 'q1' (Slice): graph output 'y' gives f32 [3, 4] but the node makes f32 [3, 5]"])):
        add(name, model(13, CHAIN, x46, CHAIN_INDICES, [helper.make_tensor_value_info("p", p_type, p_dims)],
                        [("y", F, y_dims)]), *pieces)
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: make_onnx_models.py DIR", file=sys.stderr)
        return 2
    for kind, models in (("good", good_models), ("bad", bad_models)):
        folder = os.path.join(sys.argv[1], kind)
        os.makedirs(folder, exist_ok=True)
        lines = []
        for name, data, expected in models(folder):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
            lines += [f"{name}\t{e}" for e in expected] if kind == "good" else ["\t".join((name,) + expected)]
        with open(os.path.join(folder, "expected.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

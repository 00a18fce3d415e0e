#!/usr/bin/python3
"""Writes examples/model/model.onnx: an ONNX model whose Slice, Pad, Split
and Gather nodes `slicegen aot` compiles (see docs/onnx.md).

    make_onnx_model.py [OUT.onnx]     (default: model.onnx beside this script)

Two graph inputs: `image`, uint8 [4, 6, 3], and `frames`, float [1, n, 8, 6]
whose second dimension is the dim_param n, known only at run time. Index
inputs come from initializers and from Constant nodes; a Relu shows that
other nodes are ignored. Opset 18 (Pad's axes input). Needs the onnx Python
package (Debian: python3-onnx); the output is the same on every run.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

INT64_MAX = (1 << 63) - 1


def build():
    def const(name, values, dtype=np.int64):
        return numpy_helper.from_array(np.array(values, dtype=dtype), name)

    initializers = [
        const("flip_starts", [-1]), const("flip_ends", [-INT64_MAX]), const("flip_axes", [1]),
        const("flip_steps", [-1]),
        const("crop_starts", [0, 1]), const("crop_ends", [INT64_MAX, -1]), const("crop_axes", [2, 3]),
        const("crop_steps", [2, 1]),
        const("border_pads", [1, 2, 1, 2]), const("border_axes", [0, 1]),
        const("split_sizes", [1, 3]),
    ]
    nodes = [
        # image[:, ::-1]: a horizontal mirror (Slice-13, constant inputs).
        helper.make_node("Slice", ["image", "flip_starts", "flip_ends", "flip_axes", "flip_steps"],
                         ["mirrored"], name="mirror"),
        # A reflected border of 1 row and 2 columns (Pad-18 with axes).
        helper.make_node("Pad", ["image", "border_pads", "", "border_axes"], ["bordered"], name="border",
                         mode="reflect"),
        # A constant frame of 128 from Constant nodes: pads, constant_value.
        helper.make_node("Constant", [], ["frame_pads"], name="frame_pads_const",
                         value=numpy_helper.from_array(np.array([0, 1, 0, 0, 1, 0], np.int64))),
        helper.make_node("Constant", [], ["frame_value"], name="frame_value_const",
                         value=numpy_helper.from_array(np.array(128, np.uint8))),
        helper.make_node("Pad", ["image", "frame_pads", "frame_value"], ["framed"], name="frame"),
        # The rows in two pieces of 1 and 3 (Split-18 with a split input).
        helper.make_node("Split", ["image", "split_sizes"], ["top", "rest"], name="rows", axis=0),
        # The green channel (Gather with a scalar Constant index).
        helper.make_node("Constant", [], ["green_index"], name="green_index_const", value_int=1),
        helper.make_node("Gather", ["image", "green_index"], ["green"], name="green", axis=2),
        # Ignored: not a slice.
        helper.make_node("Relu", ["frames"], ["activated"], name="relu"),
        # frames[:, :, ::2, 1:-1] with n frames known only at run time.
        helper.make_node("Slice", ["frames", "crop_starts", "crop_ends", "crop_axes", "crop_steps"],
                         ["cropped"], name="crop"),
    ]
    inputs = [
        helper.make_tensor_value_info("image", TensorProto.UINT8, [4, 6, 3]),
        helper.make_tensor_value_info("frames", TensorProto.FLOAT, [1, "n", 8, 6]),
    ]
    outputs = [
        helper.make_tensor_value_info(name, TensorProto.UINT8, None)
        for name in ["mirrored", "bordered", "framed", "top", "rest", "green"]
    ] + [
        helper.make_tensor_value_info("activated", TensorProto.FLOAT, None),
        helper.make_tensor_value_info("cropped", TensorProto.FLOAT, None),
    ]
    graph = helper.make_graph(nodes, "slicegen-example", inputs, outputs, initializers)
    model = helper.make_model(graph, producer_name="slicegen make_onnx_model.py",
                              opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                               "model.onnx")
    with open(out, "wb") as f:
        f.write(build().SerializeToString())


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""ONNX's own backend node tests for Slice, Pad, Split and Gather through
slicegen.

    usage: onnx_node_tests.py DATA_DIR

DATA_DIR holds ONNX's test cases (from onnx/onnx's
onnx/backend/test/data/node: one folder each with model.onnx and
test_data_set_0/input_*.pb, output_*.pb; the project keeps them in
shared/onnx_node/data beside the repository). Each case is read twice with
slicegen.read_model (the build tree's Python module: SLICEGEN_LIBRARY and
PYTHONPATH as ctest sets them):

- as ONNX writes it: every input is a graph input, so index inputs are
  runtime values (starts_0, ...) where the operator takes them so;
- with every input but the data made an initializer of its test value
  (the constants a real model has).

Every layer that compiles is run with the test's data (and values) and
compared with output_k.pb exactly; the case passes in a form when each of
the node's outputs came out right. The check: every layer that compiles
matches; in the second form every case of a slice-like node compiles
(SplitToSequence is not one); in the first, every Slice, Pad and Split
does too (their starts, ends, axes, steps, pads, split sizes and Pad's
constant_value as runtime values), but a Gather, whose runtime indices make a gather, not a slice.
Prints a line per case and form, FAIL lines,
and a last line "onnx-node: N passed, M failed"; exit status 0 when all
pass, 77 when DATA_DIR or the onnx package is missing.
"""
import os
import sys
import tempfile

SLICE_OPS = ("Slice", "Pad", "Split", "Gather")


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1])
        return 2
    data = sys.argv[1]
    try:
        import numpy as np
        import onnx
        from onnx import numpy_helper
        import slicegen
    except ImportError as e:
        print(f"onnx-node: skipped: {e}")
        return 77
    if not os.path.isdir(data):
        print(f"onnx-node: skipped: no folder {data}")
        return 77
    passed = failed = 0
    work = tempfile.mkdtemp(prefix="sg-onnx-node-")
    for case in sorted(os.listdir(data)):
        folder = os.path.join(data, case)
        model_path = os.path.join(folder, "model.onnx")
        sets = os.path.join(folder, "test_data_set_0")
        if not os.path.isfile(model_path) or not os.path.isdir(sets):
            continue
        model = onnx.load(model_path)
        node = model.graph.node[0]
        if node.op_type not in SLICE_OPS:
            print(f"onnx-node: {case}: {node.op_type}, not a slice-like node: not read")
            continue
        inputs = [numpy_helper.to_array(onnx.load_tensor(os.path.join(sets, f"input_{k}.pb")))
                  for k in range(len(model.graph.input))]
        outputs = [numpy_helper.to_array(onnx.load_tensor(os.path.join(sets, f"output_{k}.pb")))
                   for k in range(len(model.graph.output))]
        names = [i.name for i in model.graph.input]
        # the second form: every input but the data an initializer
        constant = onnx.ModelProto()
        constant.CopyFrom(model)
        for k in range(len(names) - 1, 0, -1):
            constant.graph.initializer.append(numpy_helper.from_array(inputs[k], names[k]))
            del constant.graph.input[k]
        for form, m, require in (("as written", model, False), ("constant indices", constant, True)):
            path = os.path.join(work, f"{case}-{'c' if require else 'w'}.onnx")
            onnx.save(m, path)
            problems, done = [], set()
            try:
                layers = slicegen.read_model(path).layers
            except slicegen.SliceError as e:
                layers, problems = [], [f"read_model: {e}"]
            for index, layer in enumerate(layers):
                if layer.skip_reason is not None:
                    if require or not may_skip(node, layer.skip_reason):
                        problems.append(f"layer {layer.name} skipped: {layer.skip_reason}")
                    continue
                out = index if node.op_type == "Split" else 0  # a Split's layers are its outputs in order
                try:
                    kernel = slicegen.compile(layer.spec, layer.shape, layer.dtype)
                    values = {}
                    for v in kernel.value_names:  # role_k: element k of the input of that role
                        role, k = v.rsplit("_", 1)
                        given = inputs[names.index(input_of(node, role))].reshape(-1)[int(k)]
                        values[v] = given.item() if role == "constant_value" else int(given)  # a fill: its number
                    got = kernel(inputs[0], **values)
                except (slicegen.SliceError, ValueError, KeyError) as e:
                    problems.append(f"layer {layer.name}: {e}")
                    continue
                want = outputs[out]
                if got.shape != want.shape or got.dtype != want.dtype or got.tobytes() != want.tobytes():
                    problems.append(f"layer {layer.name} output {out}: {got.dtype} {list(got.shape)} differs from "
                                    f"output_{out}.pb's {want.dtype} {list(want.shape)}")
                else:
                    done.add(out)
            if require and not problems and len(done) != len(outputs):
                problems.append(f"{len(done)} of {len(outputs)} outputs made")
            status = "ok" if not problems else "FAIL"
            kinds = ", ".join(sorted({"compiled" if l.skip_reason is None else "skipped" for l in layers}))
            print(f"onnx-node: {case} ({form}): {status}: {len(layers)} layers {kinds}".rstrip(": "))
            for p in problems:
                print(f"FAIL: {case} ({form}): {p}")
            passed += not problems
            failed += bool(problems)
    print(f"onnx-node: {passed} passed, {failed} failed")
    return 1 if failed else 0


def may_skip(node, reason):
    """Whether a layer of the node as ONNX writes it (every input a graph
    input) may be skipped for `reason`: only a Gather of runtime indices."""
    return node.op_type == "Gather"


def input_of(node, role):
    """The name of the node's input of a runtime value's role (starts, ends,
    axes, steps, pads, split, constant_value...), by ONNX's input order."""
    roles = {"Slice": ["data", "starts", "ends", "axes", "steps"], "Pad": ["data", "pads", "constant_value", "axes"],
             "Split": ["input", "split"], "Gather": ["data", "indices"]}[node.op_type]
    return node.input[roles.index(role)]


if __name__ == "__main__":
    sys.exit(main())

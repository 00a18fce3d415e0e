#!/usr/bin/python3
"""slicegen's kernels beside ONNX Runtime's own kernel times on the cases of
`slicegen bench`.

    bench/compare_onnxruntime.py BENCH.json [--onnxruntime DIR] [--runs N]
    bench/compare_onnxruntime.py --slicegen build/cli/slicegen [--quick] [--case TEXT] [...]

Reads the JSON of `slicegen bench --json FILE` (or runs that command with
the slicegen program given; its table goes to stderr) and writes, for each
case ONNX can express, a one-node model doing the same slice: ONNX Slice-13
for an index expression or a TensorRT strict slice, Gather-13 for an integer
index, Pad-19 for the other TensorRT modes with stride 1 (wrap: 'wrap',
clamp: 'edge', reflect: 'reflect', fill: 'constant'). ONNX Runtime's CPU
build runs each on one thread with its profiler on
(bench/onnxruntime_profile.js); its time is the median over the runs of the
node's kernel_time event: the kernel alone, as the profiler measures it, in
whole microseconds (so the smallest cases read as 0-2 us). slicegen's time
is its one-thread kernel time from the JSON, on an input of the same shape
and type.

Printed per case: both times, ONNX Runtime's over slicegen's, and ONNX
Runtime's whole session.run() time (the kernel plus the session's own
work per call).

DIR is ONNX Runtime's Node.js package (node_modules/onnxruntime-node of
`npm install --ignore-scripts onnxruntime-node`); by default the one the
tests install (build*/onnxruntime/node_modules/onnxruntime-node). Needs
node, and the onnx Python package (Debian: python3-onnx): use
/usr/bin/python3.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    sys.exit("compare_onnxruntime.py: needs NumPy and onnx (Debian: python3-numpy python3-onnx); "
             "run it with /usr/bin/python3")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_numpy import bench_arguments, bench_results, parse_expr, parse_trt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# slicegen's type: ONNX's, ONNX Runtime's tensor type in Node.js, NumPy's.
ONNX_TYPES = {"i8": (TensorProto.INT8, "int8", np.int8), "u8": (TensorProto.UINT8, "uint8", np.uint8),
              "i32": (TensorProto.INT32, "int32", np.int32), "i64": (TensorProto.INT64, "int64", np.int64),
              "f16": (TensorProto.FLOAT16, "float16", np.float16), "f32": (TensorProto.FLOAT, "float32", np.float32),
              "f64": (TensorProto.DOUBLE, "float64", np.float64)}
PAD_MODES = {"wrap": "wrap", "clamp": "edge", "reflect": "reflect", "fill": "constant"}
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def slice_nodes(index, shape):
    """Nodes and initializers doing x[index] for slices and integers (no
    None or ...): one Slice for the slices that are not whole axes, then a
    Gather per integer, last axis first."""
    if any(i is None or i is Ellipsis for i in index):
        raise ValueError("ONNX Slice has no new axes or ellipsis")
    starts, ends, axes, steps, gathers = [], [], [], [], []
    for axis, (i, d) in enumerate(zip(index, shape)):
        if isinstance(i, int):
            gathers.append((axis, i))
            continue
        start, stop, step = i.indices(d)
        if (start, stop, step) == (0, d, 1):
            continue
        # slice.indices gives -1 for "past the beginning" of a negative step,
        # which ONNX would read as the last element: INT64_MIN says it.
        starts.append(start)
        ends.append(INT64_MIN if step < 0 and stop < 0 else stop)
        axes.append(axis)
        steps.append(step)
    nodes, inits, name = [], [], "x"
    if axes:
        inits += [ints("starts", starts), ints("ends", ends), ints("axes", axes), ints("steps", steps)]
        nodes.append(helper.make_node("Slice", [name, "starts", "ends", "axes", "steps"], ["sliced"],
                                      name="slice"))
        name = "sliced"
    for axis, i in reversed(gathers):
        out = "gather%d" % axis
        inits.append(ints("index%d" % axis, i))  # a scalar index drops the axis
        nodes.append(helper.make_node("Gather", [name, "index%d" % axis], [out], axis=axis, name=out))
        name = out
    return nodes, inits, name


def case_nodes(case, np_type):
    """The nodes, initializers, output name and opset of a bench case."""
    spec, shape = case["spec"], case["shape"]
    if not spec.startswith("--op"):
        return slice_nodes(parse_expr(spec), shape) + (13,)
    if not spec.startswith("--op TrtSlice"):
        raise ValueError("no ONNX form for %r" % spec)
    t = parse_trt(spec)
    if t["mode"] == "strict":
        index = tuple(slice(s, s + n * k if s + n * k >= 0 else None, k)
                      for s, n, k in zip(t["start"], t["size"], t["stride"]))
        return slice_nodes(index, shape) + (13,)
    if any(k != 1 for k in t["stride"]):
        raise ValueError("ONNX Pad has no strides: %r" % spec)
    begin = [-s for s in t["start"]]
    end = [s + n - d for s, n, d in zip(t["start"], t["size"], shape)]
    inits = [ints("pads", begin + end)]
    inputs = ["x", "pads"]
    if t["mode"] == "fill":
        value = np.array(t["fill"], dtype=np_type)
        inits.append(numpy_helper.from_array(value, "value"))
        inputs.append("value")
    node = helper.make_node("Pad", inputs, ["padded"], mode=PAD_MODES[t["mode"]], name="pad")
    return [node], inits, "padded", 19


def write_model(case, path):
    """Writes the case's model; returns its manifest entry."""
    elem_type, ort_type, np_type = ONNX_TYPES[case["dtype"]]
    nodes, inits, out, opset = case_nodes(case, np_type)
    graph = helper.make_graph(nodes, case["case"], [helper.make_tensor_value_info("x", elem_type, case["shape"])],
                              [helper.make_tensor_value_info(out, elem_type, case["output_shape"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, path)
    return {"model": path, "input": "x", "dtype": ort_type, "shape": case["shape"], "nodes": len(nodes)}


def find_onnxruntime(given):
    if given:
        return given
    root = os.path.dirname(HERE)
    found = sorted(glob.glob(os.path.join(root, "build*", "onnxruntime", "node_modules", "onnxruntime-node")))
    if not found:
        sys.exit("compare_onnxruntime.py: no ONNX Runtime found under build*/onnxruntime; install it with "
                 "'npm install --ignore-scripts --prefix build/onnxruntime onnxruntime-node' or pass "
                 "--onnxruntime DIR")
    return found[0]


def time_text(seconds):
    if seconds < 1e-6:
        return "%.1f ns" % (seconds * 1e9)
    return "%.1f us" % (seconds * 1e6) if seconds < 1e-3 else "%.2f ms" % (seconds * 1e3)


def main():
    parser = bench_arguments(__doc__.split("\n\n")[0], "fewer runs; with --slicegen also bench --quick")
    parser.add_argument("--onnxruntime", help="ONNX Runtime's Node.js package folder")
    parser.add_argument("--runs", type=int, help="profiled runs per model (default 50, 10 with --quick)")
    args, results = bench_results(parser)
    ort = find_onnxruntime(args.onnxruntime)
    runs = args.runs or (10 if args.quick else 50)

    cases, manifest, skipped = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for case in results:
            if case["case"].startswith(("compile:", "values:")) or "kernel_s" not in case:
                continue
            if case["dtype"] not in ONNX_TYPES:
                skipped.append("%s (no %s tensors here)" % (case["case"], case["dtype"]))
                continue
            try:
                entry = write_model(case, os.path.join(tmp, "case%d.onnx" % len(cases)))
            except ValueError as e:
                skipped.append("%s (%s)" % (case["case"], e))
                continue
            cases.append(case)
            manifest.append(entry)
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest, f)
        run = subprocess.run(["node", os.path.join(HERE, "onnxruntime_profile.js"), ort,
                              os.path.join(tmp, "manifest.json"), str(runs)],
                             stdout=subprocess.PIPE, check=True, text=True)
        times = json.loads(run.stdout.strip().splitlines()[-1])

    version = json.load(open(os.path.join(ort, "package.json")))["version"]
    print("ONNX Runtime %s (CPU, 1 thread): its profiler's kernel_time per node, median of %d runs; "
          "slicegen's kernel on 1 thread from its JSON" % (version, runs))
    print("%-22s %-5s %10s %12s %12s %9s %12s" % ("case", "type", "output", "slicegen", "ONNX Runtime",
                                                 "ORT/sg", "ORT run()"))
    for case, t in zip(cases, times):
        sg, ort_kernel = case["kernel_s"], t["kernel_us"] * 1e-6
        size = case["bytes"]
        out = "%.2f MiB" % (size / 2**20) if size >= 2**20 else "%.1f KiB" % (size / 2**10) \
            if size >= 2**10 else "%d B" % size
        print("%-22s %-5s %10s %12s %12s %8.2fx %12s" % (case["case"], case["dtype"], out, time_text(sg),
                                                         time_text(ort_kernel), ort_kernel / sg,
                                                         time_text(t["session_us"] * 1e-6)))
    for s in skipped:
        print("skipped: " + s)


if __name__ == "__main__":
    main()

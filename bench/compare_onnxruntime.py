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
clamp: 'edge', reflect: 'reflect', fill: 'constant'); for a program
(docs/programs.md) a graph of such nodes (class Program: Concat for
np.concatenate, two Slices and a Concat for np.roll, a Slice for np.flip, a
Pad for np.pad). ONNX Runtime's CPU build runs each on one thread with its
profiler on (bench/onnxruntime_profile.js); its time is the median over the
runs of the summed kernel_time events of a run, of the nodes it ran (its
graph optimizer may rewrite a model: Focus's Slices and Concat run as
SpaceToDepth and Gather): the kernels alone, as the profiler measures them,
in whole microseconds (so the smallest cases read as 0-2 us). slicegen's time
is its one-thread kernel time from the JSON, on an input of the same shape
and type.

Printed per case: both times, ONNX Runtime's over slicegen's, and ONNX
Runtime's whole session.run() time (the kernel plus the session's own
work per call); then, for each model of more than one node, the nodes
written and those ONNX Runtime ran.

DIR is ONNX Runtime's Node.js package (node_modules/onnxruntime-node of
`npm install --ignore-scripts onnxruntime-node`); by default the one the
tests install (build*/onnxruntime/node_modules/onnxruntime-node). Needs
node, and the onnx Python package (Debian: python3-onnx): use
/usr/bin/python3.
"""
import ast
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
from compare_numpy import bench_arguments, bench_results, is_program, parse_expr, parse_trt  # noqa: E402

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


def slice_nodes(index, shape, src="x", prefix=""):
    """Nodes and initializers doing src[index] for slices and integers (no
    None or ...): one Slice for the slices that are not whole axes, then a
    Gather per integer, last axis first; their names start with prefix."""
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
    nodes, inits, name = [], [], src
    if axes:
        p = prefix
        inits += [ints(p + "starts", starts), ints(p + "ends", ends), ints(p + "axes", axes),
                  ints(p + "steps", steps)]
        nodes.append(helper.make_node("Slice", [name, p + "starts", p + "ends", p + "axes", p + "steps"],
                                      [p + "sliced"], name=p + "slice"))
        name = p + "sliced"
    for axis, i in reversed(gathers):
        out = "%sgather%d" % (prefix, axis)
        inits.append(ints("%sindex%d" % (prefix, axis), i))  # a scalar index drops the axis
        nodes.append(helper.make_node("Gather", [name, "%sindex%d" % (prefix, axis)], [out], axis=axis, name=out))
        name = out
    return nodes, inits, name


class Program:
    """A NumPy program (docs/programs.md) as ONNX nodes, from its Python
    syntax tree: indices (slices, integers, ...) as Slice and Gather,
    np.concatenate as Concat, np.roll as two Slices and a Concat per axis,
    np.flip as a Slice of step -1, np.pad (constant, edge, reflect, wrap)
    as Pad-19. Anything else is a ValueError: no ONNX form here."""

    def __init__(self, shape, np_type):
        self.shape, self.np_type = list(shape), np_type
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, what):
        self.count += 1
        return "%s%d_" % (what, self.count)

    def eval(self, node):
        """(tensor name, shape) of an expression."""
        if isinstance(node, ast.Name):
            return "x", self.shape
        if isinstance(node, ast.Subscript):
            src, shape = self.eval(node.value)
            return self.index(src, shape, node.slice)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy"):
            args, kwargs = node.args, {k.arg: k.value for k in node.keywords}
            op = getattr(self, "np_" + node.func.attr, None)
            if op is None:
                raise ValueError("no ONNX form for np.%s here" % node.func.attr)
            return op(args, kwargs)
        raise ValueError("no ONNX form for %s" % ast.dump(node))

    def index(self, src, shape, index):
        """src[index]: slices, integers and ... (no None)."""
        items = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        parsed = []
        for item in items:
            if isinstance(item, ast.Slice):
                parsed.append(slice(*(None if v is None else self.literal(v)
                                      for v in (item.lower, item.upper, item.step))))
            elif isinstance(item, ast.Constant) and item.value is Ellipsis:
                parsed.append(Ellipsis)
            else:
                value = self.literal(item)
                if not isinstance(value, int) or isinstance(value, bool):
                    raise ValueError("ONNX Slice has no new axes")
                parsed.append(value)
        if parsed.count(Ellipsis) > 1:
            raise ValueError("more than one ...")
        used = sum(1 for i in parsed if i is not Ellipsis)
        at = parsed.index(Ellipsis) if Ellipsis in parsed else len(parsed)
        parsed[at:at + 1] = [slice(None)] * (len(shape) - used)
        out_shape = []
        for i, d in zip(parsed, shape):
            if isinstance(i, slice):
                out_shape.append(len(range(*i.indices(d))))
            elif not -d <= i < d:
                raise ValueError("index %d out of range" % i)
        parsed = [i % d if isinstance(i, int) else i for i, d in zip(parsed, shape)]
        nodes, inits, out = slice_nodes(tuple(parsed), shape, src, self.name("index"))
        self.nodes += nodes
        self.inits += inits
        return out, out_shape

    def literal(self, node):
        return ast.literal_eval(node)

    def options(self, args, kwargs, names):
        """The arguments as NumPy names them (positional or keyword)."""
        got = dict(zip(names, args))
        got.update(kwargs)
        return got

    def np_concatenate(self, args, kwargs):
        a = self.options(args, kwargs, ("arrays", "axis"))
        if not isinstance(a["arrays"], (ast.List, ast.Tuple)):
            raise ValueError("np.concatenate of no list")
        parts = [self.eval(e) for e in a["arrays"].elts]
        axis = self.literal(a["axis"]) if "axis" in a else 0
        if axis is None:
            raise ValueError("np.concatenate with axis=None")
        shape = list(parts[0][1])
        axis %= len(shape)
        shape[axis] = sum(p[1][axis] for p in parts)
        out = self.name("concat") + "out"
        self.nodes.append(helper.make_node("Concat", [p[0] for p in parts], [out], axis=axis, name=out))
        return out, shape

    def np_roll(self, args, kwargs):
        a = self.options(args, kwargs, ("a", "shift", "axis"))
        src, shape = self.eval(a["a"])
        shift, axis = self.literal(a["shift"]), self.literal(a["axis"]) if "axis" in a else None
        if not isinstance(shift, int) or not isinstance(axis, int):
            raise ValueError("np.roll here takes one shift and one axis")
        axis %= len(shape)
        d = shape[axis]
        s = shift % d if d else 0
        if s == 0:
            return src, shape
        # the last s elements, then the first d - s
        index = lambda lo, hi: tuple(slice(lo, hi) if k == axis else slice(None) for k in range(len(shape)))
        tail = slice_nodes(index(d - s, d), shape, src, self.name("roll"))
        head = slice_nodes(index(0, d - s), shape, src, self.name("roll"))
        out = self.name("roll") + "out"
        self.nodes += tail[0] + head[0] + [helper.make_node("Concat", [tail[2], head[2]], [out], axis=axis,
                                                            name=out)]
        self.inits += tail[1] + head[1]
        return out, shape

    def np_flip(self, args, kwargs):
        a = self.options(args, kwargs, ("m", "axis"))
        src, shape = self.eval(a["m"])
        axis = self.literal(a["axis"]) if "axis" in a else None
        axes = range(len(shape)) if axis is None else [axis] if isinstance(axis, int) else axis
        axes = {k % len(shape) for k in axes}
        index = tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(len(shape)))
        nodes, inits, out = slice_nodes(index, shape, src, self.name("flip"))
        self.nodes += nodes
        self.inits += inits
        return out, shape

    def np_pad(self, args, kwargs):
        a = self.options(args, kwargs, ("array", "pad_width", "mode"))
        src, shape = self.eval(a["array"])
        widths = np.broadcast_to(np.array(self.literal(a["pad_width"]), dtype=np.int64), (len(shape), 2))
        mode = self.literal(a["mode"]) if "mode" in a else "constant"
        if mode not in ("constant", "edge", "reflect", "wrap"):
            raise ValueError("no ONNX Pad mode %r" % mode)
        if set(a) - {"array", "pad_width", "mode", "constant_values"}:
            raise ValueError("np.pad options ONNX has not")
        for (before, after), d in zip(widths.tolist(), shape):
            if (mode == "reflect" and max(before, after) >= d) or (mode == "wrap" and max(before, after) > d):
                raise ValueError("a %s pad wider than its axis" % mode)
        p = self.name("pad")
        self.inits.append(ints(p + "pads", list(widths[:, 0]) + list(widths[:, 1])))
        inputs = [src, p + "pads"]
        if mode == "constant":
            value = self.literal(a["constant_values"]) if "constant_values" in a else 0
            self.inits.append(numpy_helper.from_array(np.array(value, dtype=self.np_type), p + "value"))
            inputs.append(p + "value")
        out = p + "out"
        self.nodes.append(helper.make_node("Pad", inputs, [out], mode=mode, name=out))
        return out, [d + int(b) + int(e) for d, (b, e) in zip(shape, widths.tolist())]


def program_nodes(case, np_type):
    """The nodes, initializers, output name and opset of a program case."""
    prog = Program(case["shape"], np_type)
    try:
        tree = ast.parse(case["spec"], mode="eval").body
    except SyntaxError as e:
        raise ValueError("not Python: %s" % e)
    try:
        out, shape = prog.eval(tree)
    except (KeyError, TypeError, AttributeError, IndexError, ZeroDivisionError) as e:
        raise ValueError("no ONNX form here (%s: %s)" % (type(e).__name__, e))
    if shape != case["output_shape"]:
        raise ValueError("ONNX's output shape %s, slicegen's %s" % (shape, case["output_shape"]))
    if out == "x":  # the program is the input itself
        raise ValueError("the program copies its input")
    return prog.nodes, prog.inits, out, 19


def case_nodes(case, np_type):
    """The nodes, initializers, output name and opset of a bench case."""
    spec, shape = case["spec"], case["shape"]
    if is_program(case):
        return program_nodes(case, np_type)
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
    return {"model": path, "input": "x", "dtype": ort_type, "shape": case["shape"], "nodes": len(nodes),
            "model_ops": [n.op_type for n in nodes]}


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
    for case, entry, t in zip(cases, manifest, times):
        if len(entry["model_ops"]) > 1 or t["ops"] != entry["model_ops"]:
            ran = "ran as " + ", ".join(t["ops"]) + " (its graph optimizer's rewrite)" \
                if t["ops"] != entry["model_ops"] else "ran as written"
            print("%s: the model's %s %s; their kernel times summed"
                  % (case["case"], ", ".join(entry["model_ops"]), ran))
    for s in skipped:
        print("skipped: " + s)


if __name__ == "__main__":
    main()

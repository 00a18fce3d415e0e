"""slicegen.read_model and slicegen.aot: the example OpenVINO and ONNX
models and small ONNX models made here (with the onnx package: a dynamic
dimension, runtime index values, a skipped layer, shape arithmetic,
fusions), against `slicegen aot`'s listing, kernel names and skip lines
(where the command line is); errors."""
import contextlib
import io
import os
import re
import tempfile
import unittest

from _common import CLI, ROOT, cli, needs_cli, np, random_array, rng_for, same, slicegen

try:
    import onnx
    from onnx import TensorProto, helper
except ImportError:
    onnx = None

MODEL_XML = os.path.join(ROOT, "examples", "model", "model.xml")
MODEL_ONNX = os.path.join(ROOT, "examples", "model", "model.onnx")
needs_examples = unittest.skipUnless(os.path.exists(MODEL_XML) and os.path.exists(MODEL_ONNX),
                                     "not in the source tree: examples/model is missing")
needs_onnx = unittest.skipUnless(onnx is not None, "the onnx package is not installed (Debian: python3-onnx)")
INT64_MAX = 2**63 - 1


def cli_aot(model, folder, *extra):
    """`slicegen aot` on model: (kernel names in the header's order, [(layer, id, type, reason)] skipped, stdout)."""
    obj, header = os.path.join(folder, "cli.o"), os.path.join(folder, "cli.h")
    run = cli("aot", model, "-o", obj, "--header", header, *extra)
    skipped = [m.groups() for m in re.finditer(r"^slicegen: skipping layer '(.*)' \(id (-?\d+), (\w+)\): (.*)$",
                                               run.stderr, re.M)]
    return header_kernels(header), [(n, int(i), t, r) for n, i, t, r in skipped], run.stdout


def header_kernels(header):
    with open(header) as f:
        return re.findall(r"^extern const slicegen_kernel_info (\w+)_info;$", f.read(), re.M)


# ---- small ONNX models ---------------------------------------------------------------

def ints(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def save(folder, name, nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = os.path.join(folder, name + ".onnx")
    onnx.save(model, path)
    return path


def f32(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def dynamic_model(folder):
    """A Slice of x [N, 6] (N a dim_param), one with runtime starts, a Pad."""
    nodes = [helper.make_node("Slice", ["x", "s0", "e0", "a1", "st2"], ["y"], name="every_other"),
             helper.make_node("Slice", ["x", "starts", "e3", "a0"], ["z"], name="rows"),
             helper.make_node("Pad", ["x", "pads"], ["p"], name="pad", mode="reflect")]
    inits = [ints("s0", [0]), ints("e0", [INT64_MAX]), ints("a1", [1]), ints("st2", [2]), ints("e3", [3]),
             ints("a0", [0]), ints("pads", [0, 1, 0, 2])]
    inputs = [f32("x", ["N", 6]), helper.make_tensor_value_info("starts", TensorProto.INT64, [1])]
    return save(folder, "dynamic", nodes, inputs, [f32("y", None), f32("z", None), f32("p", None)], inits)


def skipped_model(folder):
    """A Slice that compiles and one whose axes are a graph input of rank 2,
    not a list (skipped)."""
    nodes = [helper.make_node("Slice", ["x", "s1", "e3"], ["y"], name="good"),
             helper.make_node("Slice", ["x", "s1", "e3", "axes"], ["z"], name="bad_axes")]
    inputs = [f32("x", [4, 6]), helper.make_tensor_value_info("axes", TensorProto.INT64, [1, 1])]
    return save(folder, "skips", nodes, inputs, [f32("y", None), f32("z", None)], [ints("s1", [1]), ints("e3", [3])])


def all_skipped_model(folder):
    nodes = [helper.make_node("Slice", ["x", "s1", "e3", "axes"], ["z"], name="bad_axes")]
    inputs = [f32("x", [4, 6]), helper.make_tensor_value_info("axes", TensorProto.INT64, [1, 1])]
    return save(folder, "all_skipped", nodes, inputs, [f32("z", None)], [ints("s1", [1]), ints("e3", [3])])


def shape_model(folder):
    """Gather(Shape(x), 0): shape arithmetic, feeding the ends of a Slice of x [N, 6]."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "zero"], ["n"], name="rows_of_x", axis=0),
             helper.make_node("Unsqueeze", ["n", "a0"], ["n1"], name="n1"),
             helper.make_node("Slice", ["x", "s1", "n1", "a0"], ["y"], name="tail")]
    inits = [helper.make_tensor("zero", TensorProto.INT64, [], [0]), ints("a0", [0]), ints("s1", [1])]
    return save(folder, "shapes", nodes, [f32("x", ["N", 6])], [f32("y", None)], inits)


def folded_only_model(folder):
    """Only shape arithmetic: Gather(Shape(x), 1), no slice layer."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "one"], ["n"], name="cols", axis=0)]
    inits = [helper.make_tensor("one", TensorProto.INT64, [], [1])]
    outputs = [helper.make_tensor_value_info("n", TensorProto.INT64, None)]
    return save(folder, "folded_only", nodes, [f32("x", ["N", 6])], outputs, inits)


def fuse_model(folder):
    """YOLO's Focus (four strided Slices, one Concat), a chain Slice -> Pad,
    and a Split (a layer per output)."""
    nodes = []
    for k, (b2, b3) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
        nodes.append(helper.make_node("Slice", ["x", f"b{b2}{b3}", "end", "axes23", "two"], [f"q{k}"],
                                      name=f"focus/slice{k}"))
    nodes.append(helper.make_node("Concat", [f"q{k}" for k in range(4)], ["focus"], name="focus/concat", axis=1))
    nodes += [helper.make_node("Slice", ["x", "b11", "end", "axes23"], ["crop"], name="chain/crop"),
              helper.make_node("Pad", ["crop", "pads"], ["padded"], name="chain/pad", mode="edge"),
              helper.make_node("Split", ["x", "halves"], ["h0", "h1"], name="halves", axis=1)]
    inits = [ints(f"b{i}{j}", [i, j]) for i in (0, 1) for j in (0, 1)]
    inits += [ints("end", [INT64_MAX, INT64_MAX]), ints("axes23", [2, 3]), ints("two", [2, 2]),
              ints("pads", [0, 0, 1, 1, 0, 0, 1, 1]), ints("halves", [1, 3])]
    outputs = [f32(n, None) for n in ("focus", "padded", "h0", "h1")]
    return save(folder, "fuse", nodes, [f32("x", [1, 4, 8, 8])], outputs, inits)


def dynamic_fuse_model(folder):
    """Over x [N, 8] (N a dim_param): a chain Slice -> reflect Pad, a Concat
    of two Slices, and in an If's then branch a chain of two Slices (fused
    within the branch): three fusions of `?` dimensions."""
    inits = [ints("s1", [1]), ints("s0", [0]), ints("end", [INT64_MAX]), ints("a0", [0]), ints("a1", [1]),
             ints("two", [2]), ints("pads", [0, 1, 0, 2])]
    then = helper.make_graph([helper.make_node("Slice", ["x", "s1", "end", "a0"], ["t1"], name="branch/rows"),
                              helper.make_node("Slice", ["t1", "s0", "end", "a1", "two"], ["t2"], name="branch/cols")],
                             "then", [], [f32("t2", None)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="branch/same")], "else", [],
                              [f32("e", None)])
    nodes = [helper.make_node("Slice", ["x", "s1", "end", "a0"], ["crop"], name="chain/crop"),
             helper.make_node("Pad", ["crop", "pads"], ["padded"], name="chain/pad", mode="reflect"),
             helper.make_node("Slice", ["x", "s0", "end", "a1", "two"], ["q0"], name="focus/even"),
             helper.make_node("Slice", ["x", "s1", "end", "a1", "two"], ["q1"], name="focus/odd"),
             helper.make_node("Concat", ["q0", "q1"], ["cat"], name="focus/concat", axis=1),
             helper.make_node("If", ["flag"], ["z"], name="branch", then_branch=then, else_branch=other)]
    inputs = [f32("x", ["N", 8]), helper.make_tensor_value_info("flag", TensorProto.BOOL, [])]
    return save(folder, "dynamic_fuse", nodes, inputs, [f32(n, None) for n in ("padded", "cat", "z")], inits)


class Folder(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


# ---- read_model --------------------------------------------------------------------

class ReadModel(Folder):
    @needs_examples
    def test_openvino_example(self):
        model = slicegen.read_model(MODEL_XML)
        self.assertIsInstance(model, slicegen.Model)
        self.assertEqual(model.folded, 0)
        self.assertEqual(list(model), list(model.layers))
        self.assertEqual(len(model), 20)
        self.assertIs(model[0], model.layers[0])
        by_name = {layer.name: layer for layer in model}
        crop = by_name["backbone/crop.0"]
        self.assertEqual((crop.id, crop.type, crop.shape, crop.dtype), (7, "StridedSlice", (2, 3, 8, 8), "float32"))
        self.assertTrue(crop.spec.startswith("--op StridedSlice --begin 0,0,2,2"))
        self.assertEqual((crop.skip_reason, crop.skipped, crop.value_names), (None, False, ()))
        self.assertEqual(by_name["tokens/window"].shape, (None, 16))
        self.assertEqual(by_name["tokens/window"].dtype, "int64")
        self.assertEqual(by_name["tail/dynamic-begin"].value_names, ("begin_0", "begin_1", "begin_2", "begin_3"))
        halves = [layer for layer in model if layer.name == "split/halves"]
        self.assertEqual([layer.spec for layer in halves], ["--op Slice --start 0 --stop 3 --step 1 --axes 1",
                                                            "--op Slice --start 3 --stop 6 --step 1 --axes 1"])
        bad = by_name["bad/zero-step"]
        self.assertEqual((bad.spec, bad.shape, bad.dtype, bad.value_names), (None, None, None, None))
        self.assertIn("step must not be zero", bad.skip_reason)
        self.assertEqual([layer.name for layer in model.skipped], ["packed/half", "odd/float-index", "bad/zero-step"])
        self.assertIn("20 slice layers, 3 skipped, 0 folded", repr(model))

    @needs_examples
    def test_layers_compile_as_listed(self):
        """Each layer's spec, shape and dtype make its kernel: the same output as the reference interpreter."""
        rng = rng_for("models.compile")
        for path in (MODEL_XML, MODEL_ONNX):
            for layer in slicegen.read_model(path):
                if layer.skipped:
                    continue
                kernel = slicegen.compile(layer.spec, layer.shape, layer.dtype)
                self.assertEqual(kernel.value_names, layer.value_names)
                shape = tuple(3 if d is None else d for d in layer.shape)
                x = random_array(rng, shape, layer.dtype)
                values = {name: 1 for name in layer.value_names}
                self.assertTrue(same(kernel(x, **values), kernel.reference(x, **values)), layer.name)

    @needs_cli
    @needs_examples
    def test_skips_as_the_command_line(self):
        for path in (MODEL_XML, MODEL_ONNX):
            kernels, skipped, _ = cli_aot(path, self.dir)
            model = slicegen.read_model(path)
            self.assertEqual([(layer.name, layer.id, layer.type, layer.skip_reason) for layer in model.skipped],
                             skipped)
            self.assertEqual(len(kernels), len(model) - len(skipped))

    @needs_onnx
    def test_onnx_dynamic_dimension_and_values(self):
        model = slicegen.read_model(dynamic_model(self.dir))
        every_other, rows, pad = model
        self.assertEqual((every_other.name, every_other.id, every_other.type), ("every_other", 0, "Slice"))
        self.assertEqual((every_other.shape, every_other.dtype, every_other.value_names), ((None, 6), "float32", ()))
        self.assertEqual(rows.value_names, ("starts_0",))
        self.assertEqual(pad.type, "Pad")
        x = np.arange(30, dtype=np.float32).reshape(5, 6)
        kernel = slicegen.compile(every_other.spec, every_other.shape, every_other.dtype)
        self.assertTrue(same(kernel(x), x[:, ::2]))
        self.assertTrue(same(kernel(x[:2]), x[:2, ::2]))
        kernel = slicegen.compile(rows.spec, rows.shape, rows.dtype)
        self.assertTrue(same(kernel(x, starts_0=1), x[1:3]))
        self.assertTrue(same(kernel(x, starts_0=-4), x[1:3]))
        kernel = slicegen.compile(pad.spec, pad.shape, pad.dtype)
        self.assertTrue(same(kernel(x), np.pad(x, ((0, 0), (1, 2)), mode="reflect")))

    @needs_onnx
    def test_fusions_of_dynamic_dimensions(self):
        model = slicegen.read_model(dynamic_fuse_model(self.dir))
        names = [layer.name for layer in model]
        chain, focus, branch = model.fusions
        self.assertEqual((chain.name, chain.names, chain.shape, chain.dtype),
                         ("chain/pad", ("chain/crop", "chain/pad"), (None, 8), "float32"))
        self.assertEqual([names[i] for i in chain.layers], ["chain/crop", "chain/pad"])
        inner = "branch/then_branch/branch/"  # a subgraph's layers are named by their path
        self.assertEqual((branch.name, branch.names), (inner + "cols", (inner + "rows", inner + "cols")))
        self.assertIsInstance(chain, slicegen.Fusion)
        for n in (2, 5):
            x = np.arange(8 * n, dtype=np.float32).reshape(n, 8)
            kernel = slicegen.compile(chain.spec, chain.shape, chain.dtype)
            self.assertTrue(same(kernel(x), np.pad(x[1:], ((0, 0), (1, 2)), mode="reflect")))
            kernel = slicegen.compile(branch.spec, branch.shape, branch.dtype)
            self.assertTrue(same(kernel(x), x[1:, ::2]))
            kernel = slicegen.compile(focus.spec, focus.shape, focus.dtype)
            self.assertTrue(same(kernel(x), np.concatenate([x[:, ::2], x[:, 1::2]], axis=1)))
        self.assertEqual((focus.name, focus.names), ("focus/concat", ("focus/even", "focus/odd", "focus/concat")))
        self.assertEqual(slicegen.read_model(shape_model(self.dir)).fusions, ())

    @needs_onnx
    def test_onnx_skipped_layer(self):
        model = slicegen.read_model(skipped_model(self.dir))
        good, bad = model
        self.assertEqual((good.skip_reason, bad.spec, bad.shape), (None, None, None))
        self.assertTrue(bad.skipped)
        self.assertRegex(bad.skip_reason, "axes")
        self.assertEqual(model.skipped, (bad,))

    @needs_onnx
    def test_symbols_give_every_layers_numbers(self):
        # shape_model: tail = x[1:N] with N from Shape(x): its end a value the
        # symbol N gives; dynamic_model: `rows` takes its start from a graph
        # input (index data), every layer's input shape [N, 6]
        model = slicegen.read_model(shape_model(self.dir))
        self.assertEqual(model.symbols, (slicegen.Symbol("N", "x", 0),))
        kernel = slicegen.compile(model[0].spec, model[0].shape, model[0].dtype)
        for n in (1, 3, 7):
            shape, values = model.numbers(0, N=n)
            self.assertEqual(shape, (n, 6))
            self.assertEqual(set(values), set(kernel.value_names))
            x = np.arange(6 * n, dtype=np.float32).reshape(n, 6)
            self.assertTrue(same(kernel(x, **values), x[1:]))
        model = slicegen.read_model(dynamic_model(self.dir))
        rows = [i for i, layer in enumerate(model) if layer.name == "rows"][0]
        self.assertEqual(model.numbers(rows, N=4), ((4, 6), {}))  # starts_0 is the caller's
        self.assertEqual(model.numbers(model[rows], N=2)[0], (2, 6))
        with self.assertRaisesRegex(slicegen.SliceError, r"no size for the symbol 'N' \(graph input 'x', dimension 0\)"):
            model.numbers(rows)
        with self.assertRaisesRegex(slicegen.SliceError, "'M' is no symbol of the model"):
            model.numbers(rows, N=2, M=3)
        skipped = slicegen.read_model(skipped_model(self.dir))
        bad = [i for i, layer in enumerate(skipped) if layer.skipped][0]
        with self.assertRaisesRegex(slicegen.SliceError, "layer 'bad_axes' is skipped"):
            skipped.numbers(bad)
        with self.assertRaises(IndexError):
            skipped.numbers(len(skipped))
        result = slicegen.aot(shape_model(self.dir), self.path("s.o"), header=self.path("s.h"))
        with open(self.path("s.h")) as f:
            header = f.read()
        self.assertIn('    {"N", "x", 0},\n', header)
        self.assertIn(f"void {result.kernels[0]}_numbers(const int64_t *symbols", header)

    def test_onnx_shape_arithmetic_is_folded(self):
        model = slicegen.read_model(shape_model(self.dir))
        self.assertEqual(model.folded, 1)
        self.assertEqual([layer.name for layer in model], ["tail"])
        tail = model[0]
        self.assertFalse(tail.skipped, tail.skip_reason)
        kernel = slicegen.compile(tail.spec, tail.shape, tail.dtype)
        for n in (1, 4):
            x = np.arange(6 * n, dtype=np.float32).reshape(n, 6)
            values = {name: n for name in kernel.value_names}  # the ends, if a runtime value
            self.assertTrue(same(kernel(x, **values), x[1:]))

    def test_errors(self):
        missing = self.path("missing.onnx")
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.read_model(missing)
        self.assertIn(missing, str(e.exception))
        self.assertEqual(e.exception.status, "io")
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.read_model(self.path("missing.xml"))
        self.assertIn(self.path("missing.xml"), str(e.exception))
        with open(self.path("junk.onnx"), "wb") as f:
            f.write(b"\x0a\xff\xff")
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.read_model(self.path("junk.onnx"))
        self.assertIn("junk.onnx", str(e.exception))
        self.assertEqual(len(str(e.exception).splitlines()), 1)
        with self.assertRaises(slicegen.SliceError):
            slicegen.read_model("bad\0name.onnx")

    @needs_cli
    def test_errors_as_the_command_line(self):
        missing = self.path("missing.onnx")
        run = cli("aot", missing, "-o", self.path("x.o"), check=False)
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.read_model(missing)
        self.assertEqual(run.stderr.strip(), "slicegen: error: " + str(e.exception))
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.aot(missing, self.path("x.o"))
        self.assertEqual(run.stderr.strip(), "slicegen: error: " + str(e.exception))

    @needs_cli
    @needs_onnx
    def test_nothing_to_compile_as_the_command_line(self):
        path = all_skipped_model(self.dir)
        run = cli("aot", path, "-o", self.path("x.o"), check=False)
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.aot(path, self.path("x.o"))
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr.strip().splitlines()[-1], "slicegen: error: " + str(e.exception))
        self.assertEqual(len(e.exception.skipped), len(run.stderr.strip().splitlines()) - 1)
        self.assertFalse(os.path.exists(self.path("x.o")))

    @needs_cli
    @needs_onnx
    def test_only_shape_arithmetic_is_an_empty_table(self):
        path = folded_only_model(self.dir)
        self.assertEqual(slicegen.read_model(path).folded, 1)
        self.assertEqual(len(slicegen.read_model(path)), 0)
        run = cli("aot", path, "-o", self.path("c.o"), "--header", self.path("c.h"), check=False)
        self.assertEqual(run.returncode, 0, run.stderr)
        result = slicegen.aot(path, self.path("p.o"), header=self.path("p.h"))
        self.assertEqual((result.kernels, result.compiled, result.folded), ((), (), 1))
        for header in ("c.h", "p.h"):
            with open(self.path(header)) as f:
                self.assertIn("0 kernels: the model has no slice layer to compile", f.read())


# ---- aot ------------------------------------------------------------------------------

class Aot(Folder):
    def check_like_cli(self, model, *, fuse=False, **options):
        """aot() and `slicegen aot` give the same kernels, in the same order, and skip the same layers."""
        extra = (["--fuse"] if fuse else []) + [w for k, v in options.items() for w in (f"--{k}", v)]
        kernels, skipped, stdout = cli_aot(model, self.dir, *extra)
        obj, header = self.path("py.o"), self.path("py.h")
        result = slicegen.aot(model, obj, header, fuse=fuse, **options)
        self.assertIsInstance(result, slicegen.AotResult)
        self.assertEqual(list(result.kernels), kernels)
        self.assertEqual(header_kernels(header), kernels)
        self.assertEqual(list(result.skipped), [(name, reason) for name, _, _, reason in skipped])
        counts = re.search(r"compiled (\d+) of (\d+) slice layers", stdout)
        self.assertEqual((len(result.compiled), result.layer_count), tuple(map(int, counts.groups())))
        self.assertEqual(result.folded, slicegen.read_model(model).folded)
        with open(obj, "rb") as f:
            data = f.read()
        self.assertEqual(data[:4], b"\x7fELF")
        for name in kernels:
            self.assertIn(name.encode() + b"\0", data)
        return result

    @needs_cli
    @needs_examples
    def test_examples(self):
        for model in (MODEL_XML, MODEL_ONNX):
            for fuse in (False, True):
                self.check_like_cli(model, fuse=fuse)
        result = self.check_like_cli(MODEL_XML, prefix="net")
        self.assertTrue(all(name.startswith("net_") for name in result.kernels))
        self.assertIn("net_split_halves_out1", result.kernels)

    @needs_cli
    @needs_onnx
    def test_onnx_models(self):
        for make in (dynamic_model, skipped_model, shape_model, dynamic_fuse_model):
            path = make(self.dir)
            for fuse in (False, True):
                self.check_like_cli(path, fuse=fuse)

    @needs_cli
    @needs_onnx
    def test_fuse(self):
        path = fuse_model(self.dir)
        plain = self.check_like_cli(path)
        fused = self.check_like_cli(path, fuse=True)
        self.assertEqual(plain.kernels, ("fuse_focus_slice0", "fuse_focus_slice1", "fuse_focus_slice2",
                                         "fuse_focus_slice3", "fuse_chain_crop", "fuse_chain_pad",
                                         "fuse_halves_out0", "fuse_halves_out1"))
        self.assertEqual(fused.kernels, ("fuse_focus_concat", "fuse_chain_pad", "fuse_halves_out0",
                                         "fuse_halves_out1"))
        self.assertEqual(len(fused.compiled), 8)
        self.assertEqual(fused.not_fused, ())
        with open(self.path("py.h")) as f:
            self.assertIn("focus/concat", f.read())

    @needs_onnx
    def test_result(self):
        path = skipped_model(self.dir)
        result = slicegen.aot(path, self.path("m.o"))
        self.assertEqual(result.kernels, ("skips_good",))
        self.assertEqual(result.compiled, ("good",))
        self.assertEqual([name for name, _ in result.skipped], ["bad_axes"])
        self.assertEqual((result.path, result.header, result.layer_count, result.folded),
                         (self.path("m.o"), None, 2, 0))
        self.assertTrue(os.path.exists(self.path("m.o")))

    @needs_onnx
    def test_targets(self):
        path = dynamic_model(self.dir)
        result = slicegen.aot(path, self.path("m.s"), target="aarch64-linux-gnu", cpu="cortex-a72", stores="cached",
                              opt_level=1)
        self.assertEqual(len(result.kernels), 3)
        with open(self.path("m.s")) as f:
            self.assertIn("dynamic_every_other", f.read())
        # GPU kernels take runtime values: every layer compiles, its prologue in the header
        result = slicegen.aot(path, self.path("m.ptx"), target="nvptx64-nvidia-cuda", header=self.path("m.h"))
        self.assertEqual(len(result.kernels), 3)
        self.assertEqual(result.skipped, ())
        with open(self.path("m.h")) as f:
            self.assertIn("_prepare(slicegen_args *args, const int64_t *in_shape, const int64_t *values)", f.read())

    @needs_onnx
    def test_errors(self):
        obj = self.path("m.o")
        missing = self.path("missing.xml")
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.aot(missing, obj)
        self.assertIn(missing, str(e.exception))
        self.assertFalse(os.path.exists(obj))
        path = all_skipped_model(self.dir)
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.aot(path, obj, self.path("m.h"))
        self.assertRegex(str(e.exception), r"^failed to compile model '.*all_skipped.onnx': no slice layer can be "
                                           r"compiled \(1 slice layer, all skipped\)$")
        self.assertEqual([name for name, _ in e.exception.skipped], ["bad_axes"])
        self.assertFalse(os.path.exists(obj) or os.path.exists(self.path("m.h")))
        path = dynamic_model(self.dir)
        for bad in ("3d", "a-b", "", 7):
            with self.assertRaises(slicegen.SliceError):
                slicegen.aot(path, obj, prefix=bad)
        with self.assertRaises(slicegen.SliceError) as e:
            slicegen.aot(path, obj, target="no-such-triple")
        with self.assertRaises(slicegen.SliceError):
            slicegen.aot(path, obj, stores="fast")
        with self.assertRaises(slicegen.SliceError):
            slicegen.aot(path, self.path("m.o"), self.path("m.o"))  # the header over the object
        self.assertFalse(os.path.exists(obj))


class Readme(unittest.TestCase):
    @needs_examples
    @unittest.skipUnless(os.path.exists(os.path.join(ROOT, "README.md")), "README.md is missing")
    def test_models_example_runs(self):
        """The README's models example (the Python section's second block) runs as written."""
        with open(os.path.join(ROOT, "README.md")) as f:
            text = f.read()
        section = text[text.index("\n## Python\n"):]
        section = section[:section.index("\n## ", 1)]
        code = re.findall(r"```python\n(.*?)```", section, re.S)[1]
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.join(ROOT, "examples"), os.path.join(tmp, "examples"))
            os.chdir(tmp)
            try:
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(code, "README.md (Python, models)", "exec"),
                         {"__name__": "readme", "slicegen": slicegen})
                self.assertEqual(sorted(os.listdir(tmp)), ["examples", "slices.h", "slices.o"])
            finally:
                os.chdir(cwd)
        lines = printed.getvalue().splitlines()
        # each comment that shows printed text shows what is printed
        self.assertEqual(lines[0], re.search(r"print\(model\)  # (.*)", code).group(1))
        self.assertIn(re.search(r"crop = model\[6\] +# (.*)", code).group(1), lines)
        self.assertTrue(lines[-1].startswith("('model_mirror', 'model_border', "), lines[-1])


class SpecText(unittest.TestCase):
    def test_command_line_words_as_one_string(self):
        x = np.arange(24, dtype=np.int16).reshape(4, 6)
        text = slicegen.compile("--op Slice --start 1 --stop 3 --axes 1", x.shape, x.dtype)
        words = slicegen.compile(["--op", "Slice", "--start", "1", "--stop", "3", "--axes", "1"], x.shape, x.dtype)
        self.assertTrue(same(text(x), x[:, 1:3]))
        self.assertEqual(text.spec, words.spec)
        self.assertTrue(same(slicegen.slice(x, "--op Pad --pads-begin '' --pads-end ''"), x))
        with self.assertRaises(slicegen.SliceError):
            slicegen.compile("--op Slice --start 'unclosed", x.shape, x.dtype)


if __name__ == "__main__":
    unittest.main()

"""The ops, every TensorRT and Pad mode, against the command line and the
documented formulas.

Seeded random StridedSlice, Slice, TrtSlice, OnnxSlice and Pad specs on random arrays of
every type: the module's kernel (any level, 1-3 threads) must give what
`slicegen run ... --engine ref` writes, byte for byte, or fail with the
same message. TensorRT modes are also checked against the formulas of
docs/semantics.md written in NumPy, which needs no command line.
"""
import os
import unittest

from _common import CLI, DTYPES, SEED, CliFiles, cli, cli_error, needs_cli, np, random_array, rng_for, same, slicegen

EXTREMES = [2**63 - 1, -(2**63), 2**31 - 1, -(2**31), 127, -128]
MODES = ["strict", "wrap", "clamp", "fill", "reflect"]


def random_shape(rng, rank=None):
    rank = rng.randint(0, 4) if rank is None else rank
    return tuple(0 if rng.random() < 0.07 else rng.randint(1, 5) for _ in range(rank))


def bound(rng, d=5):
    return rng.choice(EXTREMES) if rng.random() < 0.08 else rng.randint(-d - 3, d + 3)


def bits(rng, n, p):
    return [int(rng.random() < p) for _ in range(n)]


def random_strided_slice(rng, shape, dtype):
    n = rng.randint(0, len(shape) + 2)
    stride = None if rng.random() < 0.3 else [0 if rng.random() < 0.01 else rng.choice([1, -1, 2, -2, 3, -3])
                                              for _ in range(n)]
    masks = {}
    for name, p in [("begin_mask", 0.3), ("end_mask", 0.3), ("new_axis_mask", 0.15),
                    ("shrink_axis_mask", 0.15), ("ellipsis_mask", 0.08)]:
        if rng.random() < 0.6:
            masks[name] = bits(rng, rng.randint(0, n + 1), p)
    return slicegen.StridedSlice([bound(rng) for _ in range(n)], [bound(rng) for _ in range(n)], stride, **masks)


def random_slice(rng, shape, dtype):
    rank = len(shape)
    n = rng.randint(0, max(rank, 1))
    axes = None
    if rng.random() < 0.6 and rank:
        axes = rng.sample(range(rank), min(n, rank))
        axes = [a - rank if rng.random() < 0.3 else a for a in axes]
        if rng.random() < 0.03 and axes:
            axes[-1] = rng.choice([axes[0], rank, -rank - 1])
        n = len(axes)
    step = None if rng.random() < 0.3 else [0 if rng.random() < 0.01 else rng.choice([1, -1, 2, -2, 3, -5])
                                            for _ in range(n)]
    return slicegen.Slice([bound(rng) for _ in range(n)], [bound(rng) for _ in range(n)], step, axes)


def random_fill(rng, dtype):
    """A fill value for dtype: mostly valid, of every kind the API takes."""
    kind = np.dtype(dtype).kind
    pick = rng.random()
    if pick < 0.15:
        return None
    if pick < 0.25:
        return rng.choice([True, False, "true", "false"])
    if pick < 0.3:
        return rng.choice([300, -1, 2**64 - 1, 0.5, "nan"])  # some types reject these
    if kind == "f":
        return rng.choice([1.5, -0.0, float("nan"), float("inf"), "-inf", "nan", 65504.0, 1e-8, 3, "2.5",
                           np.float32(0.25)])
    if kind == "b":
        return rng.choice([0, 1, "1", 0.0, 1.0])
    if kind == "u":
        return rng.choice([0, 7, 255, "200", np.uint8(9), 3.0])
    return rng.choice([0, -7, 127, "-100", np.int16(-3), -2.0])


def random_trt_slice(rng, shape, dtype):
    rank = len(shape)
    n = rank if rng.random() < 0.97 else rank + rng.choice([-1, 1]) if rank else 1
    dims = list(shape) + [3] * 2
    start = [rng.randint(-2 * dims[i] - 2, 2 * dims[i] + 2) if rng.random() > 0.03 else rng.choice(EXTREMES)
             for i in range(n)]
    size = [rng.randint(0, 6) if rng.random() > 0.01 else -1 for _ in range(n)]
    stride = None if rng.random() < 0.3 else [rng.randint(-3, 3) for _ in range(n)]
    mode = rng.choice(MODES)
    fill = random_fill(rng, dtype) if mode == "fill" else None
    return slicegen.TrtSlice(start, size, stride, mode, fill)


def random_onnx_slice(rng, shape, dtype):
    op = random_slice(rng, shape, dtype)
    stop = [rng.choice([2**31 - 1, 2**63 - 1]) if rng.random() < 0.3 else s for s in op.stop]
    return slicegen.OnnxSlice(op.start, stop, op.step, op.axes)


PAD_MODES = ["constant", "edge", "reflect", "wrap"]


def random_pad(rng, shape, dtype):
    rank = len(shape)
    axes = None
    n = rank
    if rng.random() < 0.4 and rank:
        axes = rng.sample(range(rank), rng.randint(0, rank))
        axes = [a - rank if rng.random() < 0.3 else a for a in axes]
        n = len(axes)
    # extremes only as crops: a huge positive pad asks for a huge output
    pad = lambda: rng.choice([-(2**63), -(2**31), -128]) if rng.random() < 0.02 else rng.randint(-2, 4)
    mode = rng.choice(PAD_MODES)
    value = random_fill(rng, dtype) if mode == "constant" else None
    return slicegen.Pad([pad() for _ in range(n)], [pad() for _ in range(n)], axes, mode, value)


def pad_expected(x, op):
    """ONNX Runtime's Pad (docs/semantics.md) in NumPy: crop by the negative
    pads, then np.pad; None where ONNX Runtime refuses the pad or the value
    does not convert exactly."""
    if x.ndim == 0:
        return None  # ONNX Runtime: "data_rank > 0 was false"
    begin, end = [0] * x.ndim, [0] * x.ndim
    axes = op.axes if op.axes is not None else range(len(op.begin))
    for b, e, a in zip(op.begin, op.end, axes):
        if not -x.ndim <= a < x.ndim or begin[a] or end[a]:
            return None
        begin[a % x.ndim], end[a % x.ndim] = b, e
    if any(abs(v) > 64 for v in begin + end):
        return None
    crop = tuple(slice(max(-b, 0), d - max(-e, 0)) for b, e, d in zip(begin, end, x.shape))
    if any(c.stop < c.start for c in crop):
        return None
    y = np.asarray(x[crop])
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if op.mode == "wrap" and x.size == 0:
        return None  # ONNX Runtime: "Unexpected mode of 3"
    for (b, e), n in zip(widths, y.shape):
        if op.mode != "constant" and n == 0 and (b + e > 0 or x.size > 0):
            return None  # a border mode with nothing to read
        if op.mode == "reflect" and (b > n - 1 or e > n - 1) and b + e > 0:
            return None
        if op.mode == "wrap" and (b > n or e > n):
            return None  # ONNX Runtime's wrap leaves zeros there; docs/semantics.md
    if op.mode == "constant":
        value = fill_value(op.value, x.dtype)
        if value is None:
            return None
    if op.mode == "constant":
        if x.dtype.kind == "b":  # np.pad has no bool constant: pad as u8
            return np.pad(y.astype(np.uint8), widths, constant_values=value.astype(np.uint8)).astype(bool)
        return np.pad(y, widths, mode="constant", constant_values=value)
    return np.pad(y, widths, mode=op.mode)


def run_module(rng, op, x):
    """The module's result, or its SliceError."""
    try:
        kernel = slicegen.compile(op, x.shape, x.dtype, opt_level=rng.choice([0, 2, 3]))
        return kernel(x, threads=rng.choice([1, 2, 3]))
    except slicegen.SliceError as e:
        return e


def fill_value(fill, dtype):
    """fill as an element of dtype (docs/semantics.md, decision 7), or None
    where the conversion is not one this oracle knows to be exact."""
    fill = 0 if fill is None else fill
    if isinstance(fill, str):
        fill = {"true": 1, "false": 0}.get(fill, fill)
        if isinstance(fill, str):
            try:
                fill = int(fill)
            except ValueError:
                fill = float(fill) if dtype.kind == "f" else None
    if fill is None or isinstance(fill, float) and dtype.kind in "biu":
        return None
    if dtype.kind in "iu" and not np.iinfo(dtype).min <= int(fill) <= np.iinfo(dtype).max:
        return None
    if dtype.kind == "b" and int(fill) not in (0, 1):
        return None
    return np.array(fill).astype(dtype)


def trt_expected(x, op):
    """TensorRT's formulas (docs/semantics.md) in NumPy; None if the slice is
    invalid (or the fill value does not convert exactly, left to the CLI)."""
    d = x.shape
    if len(op.start) != x.ndim or any(s < 0 for s in op.size):
        return None
    if op.mode == "fill" and fill_value(op.fill, x.dtype) is None:
        return None
    stride = op.stride or (1,) * x.ndim
    if any(not -(2**63) <= op.start[i] + (op.size[i] - 1) * stride[i] < 2**63 for i in range(x.ndim)):
        return None  # decision 6: a last coordinate beyond 64 bits is rejected
    index, inside = [], np.ones(op.size, dtype=bool)
    for i in range(x.ndim):
        c = np.array([y * stride[i] + op.start[i] for y in range(op.size[i])], dtype=object)
        ok = np.array([0 <= v < d[i] for v in c], dtype=bool)
        if op.mode == "strict" and not ok.all():
            return None
        if d[i] == 0 and op.size[i] > 0 and op.mode != "fill":
            return None
        if op.mode == "wrap":
            c = np.array([v % d[i] for v in c], dtype=object)
        elif op.mode == "clamp":
            c = np.array([min(max(v, 0), d[i] - 1) for v in c], dtype=object)
        elif op.mode == "reflect":
            def reflect(v, n=d[i]):
                if n == 1:
                    return 0
                r = abs(v) % (2 * n - 2)
                return 2 * n - 2 - r if r >= n else r
            c = np.array([reflect(v) for v in c], dtype=object)
        elif op.mode == "fill":
            c = np.array([v if 0 <= v < d[i] else 0 for v in c], dtype=object)
            shape = [1] * x.ndim
            shape[i] = op.size[i]
            inside = inside & ok.reshape(shape)
        index.append(c.astype(np.int64))
    if any(len(c) == 0 for c in index) or x.ndim == 0:
        out = np.empty(op.size, x.dtype)
        if x.ndim == 0:
            out[...] = x
        return out
    if x.size == 0:
        gathered = np.zeros(op.size, x.dtype)
    else:
        gathered = x[np.ix_(*index)]
    if op.mode != "fill" or inside.all():
        return np.ascontiguousarray(gathered)
    value = fill_value(op.fill, x.dtype)
    out = np.where(inside, gathered, value)
    return np.ascontiguousarray(out.astype(x.dtype))


class Ops(CliFiles):
    def against_cli(self, name, make, cases):
        rng = rng_for(name)
        counts = {"equal": 0, "same error": 0}
        for case in range(cases):
            shape = random_shape(rng)
            dtype = DTYPES[rng.choice(list(DTYPES))]
            x = random_array(rng, shape, dtype)
            op = make(rng, shape, dtype)
            what = f"{name} case {case} (SLICEGEN_SEED={SEED}): {op} on {shape} {np.dtype(dtype)}"
            got = run_module(rng, op, x)
            np.save(self.src, x)
            if os.path.exists(self.dst):
                os.remove(self.dst)
            run = cli("run", *op.to_words(), "--in", self.src, "--out", self.dst, "--engine", "ref", check=False)
            if isinstance(got, slicegen.SliceError):
                self.assertEqual(run.returncode, 2, f"{what}: SliceError {got}, the CLI succeeds")
                self.assertEqual(str(got), cli_error(run.stderr), what)
                counts["same error"] += 1
            else:
                self.assertEqual(run.returncode, 0, f"{what}: the module gives {got.shape}, the CLI fails: "
                                                    f"{run.stderr.strip()}")
                want = np.load(self.dst)
                self.assertTrue(same(got, want), f"{what}: got {got!r}, CLI {want!r}")
                counts["equal"] += 1
            # the same spec as command-line words, through the library's own parser
            if case % 5 == 0:
                again = run_module(rng, op.to_words(), x)
                if isinstance(got, slicegen.SliceError):
                    self.assertIsInstance(again, slicegen.SliceError, what)
                else:
                    self.assertTrue(same(again, got), what)
        print(f"{name}: {cases} random cases against `slicegen run --engine ref` (seed {SEED}): "
              f"{counts['equal']} equal, {counts['same error']} rejected with the same message")
        self.assertGreater(counts["equal"], cases // 3)
        self.assertGreater(counts["same error"], 0)

    @needs_cli
    def test_strided_slice_against_cli(self):
        self.against_cli("StridedSlice", random_strided_slice, 150)

    @needs_cli
    def test_slice_against_cli(self):
        self.against_cli("Slice", random_slice, 150)

    @needs_cli
    def test_trt_slice_against_cli(self):
        self.against_cli("TrtSlice", random_trt_slice, 250)

    @needs_cli
    def test_onnx_slice_against_cli(self):
        self.against_cli("OnnxSlice", random_onnx_slice, 150)

    @needs_cli
    def test_pad_against_cli(self):
        self.against_cli("Pad", random_pad, 250)

    def test_pad_against_numpy(self):
        """Pad against np.pad of the cropped array: every mode, negative pads."""
        rng = rng_for("pad")
        checked = 0
        for case in range(600):
            shape = random_shape(rng)
            dtype = DTYPES[rng.choice(list(DTYPES))]
            x = random_array(rng, shape, dtype)
            op = random_pad(rng, shape, dtype)
            want = pad_expected(x, op)
            if want is None:
                continue
            got = run_module(rng, op, x)
            what = f"case {case} (SLICEGEN_SEED={SEED}): {op} on {shape} {np.dtype(dtype)}"
            self.assertNotIsInstance(got, slicegen.SliceError, what)
            self.assertTrue(same(got, want) or
                            (x.dtype.kind == "f" and np.array_equal(got, want, equal_nan=True)),
                            f"{what}: got {got!r}, want {want!r}")
            checked += 1
        print(f"pad: {checked} random Pad cases equal to np.pad of the cropped input")
        self.assertGreater(checked, 150)

    def test_onnx_slice_ends(self):
        """ONNX Runtime's ends: INT32_MAX and INT64_MAX are 'to the end' for either step."""
        x = np.arange(5, dtype=np.int32)
        for stop in (2**31 - 1, 2**63 - 1):
            self.assertTrue(same(slicegen.slice(x, slicegen.OnnxSlice([-1], [stop], [-1])), x[::-1].copy()))
            self.assertTrue(same(slicegen.slice(x, slicegen.OnnxSlice([1], [stop], [2])), x[1::2].copy()))
        self.assertEqual(slicegen.slice(x, slicegen.Slice([-1], [2**63 - 1], [-1])).shape, (0,))
        one = np.arange(1, dtype=np.int32)
        self.assertEqual(slicegen.slice(one, slicegen.OnnxSlice([-3], [-2], [-1])).shape, (1,))

    @needs_cli
    def test_every_trt_mode_against_cli(self):
        """Each mode on one input, with borders on every side and every stride sign."""
        x = random_array(rng_for("modes"), (4, 5), np.float32)
        np.save(self.src, x)
        for mode in MODES:
            for start, size, stride in [((1, 1), (2, 3), (1, 1)), ((-2, -3), (8, 11), (1, 1)),
                                        ((5, 6), (4, 4), (-2, -1)), ((-1, 2), (3, 3), (0, 3))]:
                op = slicegen.TrtSlice(start, size, stride, mode, 2.5 if mode == "fill" else None)
                got = run_module(rng_for(mode), op, x)
                run = cli("run", *op.to_words(), "--in", self.src, "--out", self.dst, "--engine", "ref",
                          check=False)
                if isinstance(got, slicegen.SliceError):
                    self.assertEqual(mode, "strict")
                    self.assertEqual(str(got), cli_error(run.stderr))
                else:
                    self.assertTrue(same(got, np.load(self.dst)), f"{op}")
                    self.assertTrue(same(got, trt_expected(x, op)), f"{op}")

    def test_trt_modes_against_formulas(self):
        rng = rng_for("formulas")
        checked = 0
        for case in range(600):
            shape = random_shape(rng)
            dtype = DTYPES[rng.choice(list(DTYPES))]
            x = random_array(rng, shape, dtype)
            op = random_trt_slice(rng, shape, dtype)
            want = trt_expected(x, op)
            got = run_module(rng, op, x)
            what = f"case {case} (SLICEGEN_SEED={SEED}): {op} on {shape} {np.dtype(dtype)}"
            if want is None:
                continue  # invalid by the formulas (or a fill left to the CLI test)
            self.assertNotIsInstance(got, slicegen.SliceError, what)
            if x.dtype.kind == "f" and np.isnan(want).any():
                self.assertTrue(np.array_equal(got, want, equal_nan=True) and got.shape == want.shape, what)
                keep = ~np.isnan(want)
                self.assertTrue(same(got[keep], want[keep]), what)
            else:
                self.assertTrue(same(got, want), f"{what}: got {got!r}, want {want!r}")
            checked += 1
        print(f"trt formulas: {checked} random TrtSlice cases equal to docs/semantics.md's formulas")
        self.assertGreater(checked, 300)

    def test_ops_as_numpy_expressions(self):
        """An op and the NumPy expression it stands for agree."""
        x = random_array(rng_for("equivalent"), (4, 5, 6), np.int16)
        pairs = [
            (slicegen.StridedSlice([1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]), x[1:, :, :2]),
            (slicegen.StridedSlice("0,-1", "0,0", "1,-1", begin_mask="1", end_mask="1,1"), x[:, ::-1]),
            (slicegen.StridedSlice([0, 2], [0, 0], new_axis_mask=[1], shrink_axis_mask=[0, 1]), x[None, 2]),
            (slicegen.StridedSlice([0, 1], [0, 2], ellipsis_mask=[1]), x[..., 1:2]),
            (slicegen.Slice([-1], [-(2**63)], [-2], [-1]), x[..., ::-2]),
            (slicegen.Slice([1, 3], [4, 0], [1, -1], [2, 0]), x[3:0:-1, :, 1:4]),
            (slicegen.Slice([], []), x),
            (slicegen.TrtSlice([0, 1, 2], [4, 2, 2], [1, 2, 1]), x[:, 1:5:2, 2:4]),
            (slicegen.TrtSlice([3, 0, 5], [4, 5, 6], [-1, 1, -1]), x[::-1, :, ::-1]),
        ]
        for op, want in pairs:
            self.assertTrue(same(slicegen.slice(x, op), np.ascontiguousarray(want)), f"{op}")
        self.assertEqual(slicegen.StridedSlice("1,2", [3, 4]).begin, (1, 2))
        self.assertEqual(slicegen.TrtSlice([0], [3], mode="fill", fill=np.float32(1.5)).fill, 1.5)
        self.assertEqual(slicegen.Slice([0], [1]).to_words(), ["--op", "Slice", "--start", "0", "--stop", "1"])

    @needs_cli
    def test_fill_words_keep_the_sign(self):
        """A fill's command-line words make the same f32 bits: NaN's sign included."""
        for fill, text, bits in ((float("nan"), "nan", "0x7fc00000"), (-float("nan"), "-nan", "0xffc00000"),
                                 (-0.0, "-0.0", "0x80000000")):
            words = slicegen.TrtSlice([-1], [2], mode="fill", fill=fill).to_words()
            self.assertEqual(words[-2:], ["--fill", text])
            plan = cli("plan", *words, "--shape", "1", "--dtype", "f32").stdout
            self.assertIn(f"fill {bits}\n", plan)


if __name__ == "__main__":
    unittest.main()

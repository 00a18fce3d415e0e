"""Symbolic kernels: a None in the shape (a dimension known at run time) and
values named in the spec ("[:, :t]", given as kernel(x, t=3)). One kernel
runs on many input shapes and values, against NumPy (index expressions)
and against the static kernel of each call (the ops); their attributes,
errors, out=, threads, Python threads and the reference interpreter; and
NumPy programs that chain indices, np.flip, np.roll and np.pad, with names and None
dimensions, against NumPy.

The tests of named values skip while the library's spec parser takes no
names (slicegen.compile("[:t]", (None,), "f32") is a spec error there).
SLICEGEN_SEED reproduces a run, SLICEGEN_CASES scales its size."""
import os
import tempfile
import threading
import unittest

from _common import CASES, DTYPES, NUMPY, SEED, np, random_array, rng_for, same, slicegen
from test_numpy_semantics import HUGE, numpy_result, random_index, render, strided_copy
from test_ops import random_slice, random_strided_slice, random_trt_slice

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
SYMBOLIC_CASES = max(CASES // 6, 60)


def _names_work():
    try:
        slicegen.compile("[:t]", (None,), "f32")
    except slicegen.SliceError as e:
        if e.status == "spec":
            return False
        raise
    return True


NAMES = _names_work()
needs_names = unittest.skipUnless(NAMES, "the library's spec parser takes no value names yet "
                                         "(slicegen.compile('[:t]', (None,), 'f32') is a spec error)")


def reference_or_skip(test, kernel, x, **values):
    """kernel.reference(x, **values), or a skipped test where the library
    cannot yet specialize a symbolic plan (its spec binding is missing)."""
    try:
        return kernel.reference(x, **values)
    except slicegen.SliceError as e:
        if e.status == "internal" and "bind missing" in str(e):
            test.skipTest(f"the library cannot specialize symbolic plans yet ({e})")
        raise


class Name(str):
    """A value's name standing where a number stands in index items: render()
    writes it as the name."""


def random_shape(rng):
    rank = rng.choice([1, 1, 2, 2, 3, 3, 4])
    return tuple(0 if rng.random() < 0.08 else rng.randint(1, 6) for _ in range(rank))


def symbolic_shape(rng, shape):
    """shape with some dimensions (at least one) None."""
    unknown = [rng.random() < 0.5 for _ in shape]
    if not any(unknown):
        unknown[rng.randrange(len(shape))] = True
    return tuple(None if u else d for u, d in zip(unknown, shape))


def concrete_shape(rng, shape):
    """A shape for a call: each None a size from 0 to 7."""
    return tuple((0 if rng.random() < 0.1 else rng.randint(1, 7)) if d is None else d for d in shape)


def check_output_shape(test, kernel, want_shape, what):
    test.assertEqual(len(kernel.output_shape), len(want_shape), what)
    for got, want in zip(kernel.output_shape, want_shape):
        if got is not None:
            test.assertEqual(got, want, f"{what}: output {kernel.output_shape}, NumPy {want_shape}")


def run_case(test, rng, kernel, items, shape, what, values=None):
    """One call of kernel on a random input of shape against NumPy; the
    result's kind, "ok" or "error"."""
    values = values or {}
    x = random_array(rng, shape, kernel.dtype)
    want = numpy_result(x, items)
    threads = rng.choice([1, 1, 2, 3])
    use_out = want is not None and rng.random() < 0.3
    out = np.empty(want.shape, x.dtype) if use_out else None
    what = f"{what}, call on {shape} with {values}, {threads} threads{', out=' if use_out else ''}"
    try:
        got = kernel(strided_copy(rng, x) if rng.random() < 0.2 else x, out=out, threads=threads, **values)
    except slicegen.SliceError as e:
        if want is not None:
            test.fail(f"{what}: SliceError {e}, NumPy gives shape {want.shape}")
        test.assertEqual(len(str(e).splitlines()), 1, what)
        test.assertTrue(str(e).startswith("failed to "), f"{what}: {e}")
        return "error"
    test.assertIsNotNone(want, f"{what}: NumPy rejects it, slicegen gives shape {got.shape}")
    test.assertTrue(same(got, want), f"{what}: got {got!r}, want {want!r}")
    if use_out:
        test.assertIs(got, out, what)
    check_output_shape(test, kernel, want.shape, what)
    test.assertEqual(kernel.output_shape_for(shape, **values), want.shape, what)
    return "ok"


class NoneDimensions(unittest.TestCase):
    def test_index_expressions_against_numpy(self):
        """Random index expressions on inputs with None dimensions: each
        kernel runs on several shapes; NumPy's result, or a SliceError where
        NumPy raises."""
        rng = rng_for("symbolic numpy")
        counts = {"ok": 0, "error": 0, "compile error": 0}
        names = list(DTYPES)
        for case in range(SYMBOLIC_CASES):
            shape = random_shape(rng)
            items = random_index(rng, shape)
            spec = render(rng, items)
            sym = symbolic_shape(rng, shape)
            dtype = DTYPES[rng.choice(names)]
            what = f"case {case} (SLICEGEN_SEED={SEED}): {spec} on {sym} {np.dtype(dtype)}"
            try:
                kernel = slicegen.compile(spec, sym, dtype, opt_level=rng.choice([0, 2]))
            except slicegen.SliceError as e:
                # wrong for every shape: NumPy rejects it on this one too
                self.assertIsNone(numpy_result(random_array(rng, shape, dtype), items), f"{what}: {e}")
                counts["compile error"] += 1
                continue
            self.assertTrue(kernel.symbolic, what)
            self.assertEqual((kernel.input_shape, kernel.value_names, kernel.outer_extent), (sym, (), None), what)
            for call in [shape] + [concrete_shape(rng, sym) for _ in range(3)]:
                counts[run_case(self, rng, kernel, items, call, what)] += 1
        print(f"symbolic: {SYMBOLIC_CASES} expressions on None dimensions against NumPy: {counts} (seed {SEED})")
        self.assertGreater(counts["ok"], SYMBOLIC_CASES)

    def test_ops_against_static_kernels(self):
        """StridedSlice, Slice and TrtSlice (every mode) with None
        dimensions: each call gives the static kernel's output for that
        input, or fails where it fails."""
        rng = rng_for("symbolic ops")
        counts = {"ok": 0, "error": 0, "not supported": 0}
        makers = [random_strided_slice, random_slice, random_trt_slice]
        for case in range(SYMBOLIC_CASES):
            shape = random_shape(rng)
            dtype = rng.choice([np.int8, np.uint16, np.float32, np.float64, np.bool_])
            op = rng.choice(makers)(rng, shape, dtype)
            sym = symbolic_shape(rng, shape)
            what = f"case {case} (SLICEGEN_SEED={SEED}): {op} on {sym}"
            try:
                kernel = slicegen.compile(op, sym, dtype)
            except slicegen.SliceError as e:
                if "not supported yet" in str(e):  # the library's symbolic plans lack it (TrtSlice modes)
                    counts["not supported"] += 1
                    continue
                with self.assertRaises(slicegen.SliceError, msg=f"{what}: {e}"):
                    slicegen.compile(op, shape, dtype)
                continue
            for call in [shape] + [concrete_shape(rng, sym) for _ in range(3)]:
                x = random_array(rng, call, dtype)
                threads = rng.choice([1, 2, 3])
                try:
                    want = slicegen.compile(op, call, dtype)(x)
                except slicegen.SliceError:
                    want = None
                try:
                    got = kernel(x, threads=threads)
                except slicegen.SliceError as e:
                    if want is not None:
                        self.fail(f"{what}, call on {call}: SliceError {e}, the static kernel gives shape "
                                  f"{want.shape}")
                    counts["error"] += 1
                    continue
                self.assertIsNotNone(want, f"{what}, call on {call}: the static kernel fails, the symbolic "
                                           f"one gives shape {got.shape}")
                self.assertTrue(same(got, want), f"{what}, call on {call}, {threads} threads")
                counts["ok"] += 1
        print(f"symbolic: {SYMBOLIC_CASES} ops on None dimensions against static kernels: {counts} (seed {SEED})")
        self.assertGreater(counts["ok"], SYMBOLIC_CASES)

    def test_attributes(self):
        kernel = slicegen.compile("[1:, ::2]", (None, 6), np.float32, opt_level=1)
        self.assertTrue(kernel.symbolic)
        self.assertIsInstance(kernel, slicegen.Kernel)
        self.assertEqual(kernel.input_shape, (None, 6))
        self.assertEqual(kernel.output_shape, (None, 3))
        self.assertEqual(kernel.value_names, ())
        self.assertIsNone(kernel.outer_extent)
        self.assertEqual((kernel.dtype, kernel.opt_level, kernel.spec), (np.float32, 1, "[1:, ::2]"))
        self.assertIn("(None, 6) float32 -> (None, 3)", repr(kernel))
        self.assertIn("input [?,6]", kernel.plan)
        self.assertIn("output [?,3]", kernel.plan)
        self.assertIn("define ", kernel.ir())
        self.assertEqual(slicegen.compile("[2, -1:]", (None, 6), "u8").output_shape, (1,))
        self.assertEqual(kernel.output_shape_for((9, 6)), (8, 3))
        static = slicegen.compile("[1:, ::2]", (4, 6), np.float32)
        self.assertFalse(static.symbolic)
        self.assertEqual(static.value_names, ())
        self.assertEqual(static.output_shape_for((4, 6)), (3, 3))
        self.assertEqual(static.outer_extent, slicegen.compile("[1:, ::2]", [4, 6], "f32").outer_extent)
        x = np.arange(30, dtype=np.float32).reshape(5, 6)
        self.assertTrue(same(kernel(x), x[1:, ::2]))
        self.assertTrue(same(kernel(x[:1]), x[1:1, ::2]))
        self.assertTrue(same(kernel(x[:0]), x[1:0, ::2]))

    def test_many_shapes_one_kernel(self):
        """One kernel, 200 input shapes, its whole range of sizes."""
        rng = rng_for("symbolic sizes")
        kernel = slicegen.compile("[..., ::-1, 1::3]", (None, None, 5), np.int16)
        for _ in range(200):
            shape = (rng.randint(0, 4), rng.randint(0, 40), 5)
            x = random_array(rng, shape, np.int16)
            self.assertTrue(same(kernel(x, threads=rng.choice([1, 2, 4])), np.ascontiguousarray(x[..., ::-1, 1::3])),
                            f"{shape} (SLICEGEN_SEED={SEED})")

    def test_reference(self):
        kernel = slicegen.compile("[::-1, 2]", (None, 4), np.float64)
        x = random_array(rng_for("symbolic reference"), (7, 4), np.float64)
        self.assertTrue(same(reference_or_skip(self, kernel, x), kernel(x)))
        with self.assertRaises(slicegen.SliceError):
            kernel.reference(np.zeros((7, 5), np.float64))

    def test_emit(self):
        with tempfile.TemporaryDirectory() as tmp:
            obj, header = os.path.join(tmp, "k.o"), os.path.join(tmp, "k.h")
            name = slicegen.emit("[1:, ::2]", (None, 6), "f32", obj, header=header, name="halves")
            self.assertEqual(name, "halves")
            text = open(header).read()
            self.assertIn("int halves_prepare(slicegen_args *args", text)
            self.assertIn("#define halves_VALUE_COUNT 0", text)
            self.assertGreater(os.path.getsize(obj), 0)


class Errors(unittest.TestCase):
    def raises(self, call, *args, contains=(), **kwargs):
        with self.assertRaises(slicegen.SliceError) as caught:
            call(*args, **kwargs)
        message = str(caught.exception)
        self.assertEqual(len(message.splitlines()), 1, message)
        self.assertTrue(message.startswith("failed to "), message)
        for text in [contains] if isinstance(contains, str) else contains:
            self.assertIn(text, message)
        return caught.exception

    def test_inputs(self):
        kernel = slicegen.compile("[1:, ::2]", (None, 6), np.float32)
        # a fixed dimension: the kernel's own check, with the library's message
        self.raises(kernel, np.zeros((3, 5), np.float32), contains=("failed to run kernel", "dimension 1", "5", "6"))
        self.raises(kernel, np.zeros((3,), np.float32), contains="(None, 6)")
        self.raises(kernel, np.zeros((3, 6, 1), np.float32), contains="(None, 6)")
        self.raises(kernel, np.zeros((3, 6), np.float64), contains="element type")
        self.raises(kernel, np.zeros((3, 6), np.float32), threads=0, contains="threads")
        self.raises(kernel.output_shape_for, (3, 5), contains="dimension 1")
        self.raises(slicegen.compile, "[:]", (None, -1), np.int8, contains="dimension 1")
        # a number out of range for the call's shape, found at run time
        index = slicegen.compile("[4]", (None,), np.int8)
        self.assertEqual(int(index(np.arange(5, dtype=np.int8))), 4)
        self.raises(index, np.arange(4, dtype=np.int8), contains="index out of range")
        # a coordinate outside a dimension known at run time
        kernel = slicegen.compile(slicegen.TrtSlice([0, 1], [2, 2]), (None, 3), np.int8)
        self.assertTrue(same(kernel(np.ones((2, 3), np.int8)), np.ones((2, 2), np.int8)))
        self.raises(kernel, np.ones((1, 3), np.int8))

    def test_values_of_a_kernel_without_names(self):
        kernel = slicegen.compile("[1:]", (None,), np.int8)
        with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 't'.*takes no values"):
            kernel(np.zeros(3, np.int8), t=1)
        with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 't'"):
            slicegen.compile("[1:]", (3,), np.int8)(np.zeros(3, np.int8), t=1)

    def test_out(self):
        kernel = slicegen.compile("[::2, 1:]", (None, 4), np.int32)
        x = np.arange(20, dtype=np.int32).reshape(5, 4)
        out = np.full((3, 3), -1, np.int32)
        self.assertIs(kernel(x, out=out), out)
        self.assertTrue(same(out, x[::2, 1:]))
        self.assertIs(kernel(x[:6], out, 2), out)  # positional, as a static kernel's
        self.raises(kernel, x[:4], out=out, contains=("out's shape is (3, 3)", "(2, 3)"))
        self.raises(kernel, x, out=out.astype(np.int64), contains="element type")
        self.raises(kernel, x, out=np.zeros((3, 6), np.int32)[:, ::2], contains="C-contiguous")
        self.raises(kernel, x, out=[[0] * 3] * 3, contains="not a writable array")
        frozen = np.zeros((3, 3), np.int32)
        frozen.flags.writeable = False
        self.raises(kernel, x, out=frozen, contains="read-only")
        self.raises(kernel, x, out=x.reshape(-1)[:9].reshape(3, 3), contains="overlaps")
        empty = np.empty((0, 3), np.int32)
        self.assertIs(kernel(x[:0], out=empty), empty)

    def test_closed_context(self):
        context = slicegen.Context()
        kernel = context.compile("[::-1]", (None,), np.uint8)
        self.assertTrue(same(kernel(np.arange(3, dtype=np.uint8)), np.array([2, 1, 0], np.uint8)))
        context.close()
        self.raises(kernel, np.arange(3, dtype=np.uint8), contains="closed")
        self.raises(kernel.output_shape_for, (3,), contains="closed")


class Threads(unittest.TestCase):
    def test_threads_equal_one_thread(self):
        rng = rng_for("symbolic threads")
        kernel = slicegen.compile("[:, ::-1, 1::2]", (None, None, 33), np.float32)
        for _ in range(20):
            x = random_array(rng, (rng.randint(0, 70), rng.randint(0, 300), 33), np.float32)
            want = np.ascontiguousarray(x[:, ::-1, 1::2])
            for threads in (1, 2, 3, 1000):
                self.assertTrue(same(kernel(x, threads=threads), want), f"{x.shape}, {threads} threads "
                                                                         f"(SLICEGEN_SEED={SEED})")

    def test_python_threads_share_a_kernel(self):
        """Eight Python threads call one symbolic kernel at once, each with
        inputs of its own shapes (each call prepares its own arguments, on the C stack)."""
        kernel = slicegen.compile("[1:, ::-2, None]", (None, None), np.int64)
        failures, start = [], threading.Barrier(8)

        def work(seed):
            rng = rng_for(f"symbolic thread {seed}")
            start.wait()
            try:
                for i in range(200):
                    x = random_array(rng, (rng.randint(0, 9), rng.randint(0, 9)), np.int64)
                    out = np.empty(kernel.output_shape_for(x.shape), np.int64) if rng.random() < 0.3 else None
                    got = kernel(x, out=out, threads=rng.randint(1, 3))
                    if not same(got, np.ascontiguousarray(x[1:, ::-2, None])):
                        failures.append(f"thread {seed} step {i}: {x.shape}")
                    if i % 50 == 0:
                        try:
                            kernel(np.zeros((3, 3, 3), np.int64))
                            failures.append(f"thread {seed} step {i}: a wrong rank ran")
                        except slicegen.SliceError:
                            pass
            except Exception as e:  # reported by the main thread
                failures.append(f"thread {seed}: {e!r}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [], f"SLICEGEN_SEED={SEED}")

    def test_prepare_errors_are_each_calls_own(self):
        """Threads whose calls fail at once each get their own call's
        message, whatever the others' failures."""
        kernel = slicegen.compile("[:, 5]", (None, None), np.int8)
        failures, start = [], threading.Barrier(4)

        def work(seed):
            start.wait()
            for size in range(50):
                try:
                    kernel(np.zeros((seed + 1, seed % 5), np.int8))
                    failures.append(f"thread {seed}: no error")
                except slicegen.SliceError as e:
                    if f"has size {seed % 5})" not in str(e):
                        failures.append(f"thread {seed}: {e}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])


def named_items(rng, items):
    """items with some numbers replaced by value names (one name sometimes
    used twice); returns (items with names, the names' numbers)."""
    values, out, n = {}, [], 0

    def name(number):
        nonlocal n
        if values and rng.random() < 0.15:
            reused = rng.choice(sorted(values))
            if values[reused] == number:
                return Name(reused)
        if number is None or not INT64_MIN <= number <= INT64_MAX or rng.random() < 0.4:
            return number
        n += 1
        values[f"v{n}"] = number
        return Name(f"v{n}")

    for item in items:
        if isinstance(item, slice):
            out.append(slice(name(item.start), name(item.stop), name(item.step)))
        elif item is None or item is Ellipsis:
            out.append(item)
        else:
            out.append(name(item))
    return out, values


def with_numbers(items, values):
    """items with each name replaced by its number."""
    def number(v):
        return values[v] if isinstance(v, Name) else v
    return [slice(number(i.start), number(i.stop), number(i.step)) if isinstance(i, slice)
            else number(i) if isinstance(i, Name) else i for i in items]


@needs_names
class NamedValues(unittest.TestCase):
    def test_basics(self):
        kernel = slicegen.compile("[:, :t]", (2, None), np.float32)
        self.assertEqual(kernel.value_names, ("t",))
        self.assertIn("(values t)", repr(kernel))
        x = np.arange(14, dtype=np.float32).reshape(2, 7)
        for t in (-9, -1, 0, 3, 7, 100, INT64_MAX, INT64_MIN):
            self.assertTrue(same(kernel(x, t=t), np.ascontiguousarray(x[:, :t])), t)
            self.assertTrue(same(kernel(x, t=np.int32(t % 50)), np.ascontiguousarray(x[:, :t % 50])), t)
        order = slicegen.compile("[b:a, a]", (None, None), np.int8)
        self.assertEqual(order.value_names, ("b", "a"))
        y = np.arange(30, dtype=np.int8).reshape(6, 5)
        self.assertTrue(same(order(y, a=4, b=1), np.ascontiguousarray(y[1:4, 4])))
        # a value named x: the input is positional only
        self.assertTrue(same(slicegen.compile("[x]", (3,), np.int8)(y[0, :3], x=2), y[0, 2]))

    def test_errors(self):
        kernel = slicegen.compile("[i, ::s]", (None, 4), np.int16)
        x = np.zeros((3, 4), np.int16)
        with self.assertRaisesRegex(TypeError, r"missing 1 required keyword argument: 's'"):
            kernel(x, i=0)
        with self.assertRaisesRegex(TypeError, r"missing 2 required keyword arguments: 'i' and 's'"):
            kernel(x)
        with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 'u'"):
            kernel(x, i=0, s=1, u=2)
        with self.assertRaisesRegex(TypeError, r"missing 1 required keyword argument: 's'"):
            kernel.output_shape_for(x.shape, i=0)
        for bad, contains in [({"i": 0, "s": 0}, "failed to run kernel"), ({"i": 3, "s": 1}, "index out of range"),
                              ({"i": -4, "s": 1}, "index out of range"), ({"i": 1.5, "s": 1}, "not an integer"),
                              ({"i": 0, "s": 2**63}, "64 bits"), ({"i": "1", "s": 1}, "not an integer")]:
            with self.assertRaises(slicegen.SliceError, msg=bad) as caught:
                kernel(x, **bad)
            self.assertIn(contains, str(caught.exception), bad)
        for name in ("out", "threads"):
            with self.assertRaises(slicegen.SliceError) as caught:
                slicegen.compile(f"[:{name}]", (None,), np.int8)
            self.assertIn(f"value {name}", str(caught.exception))

    def test_fill_values(self):
        # a fill value is a number of the element type, as a static kernel's --fill is written
        for dtype, fills in [(np.float32, (-1.5, "nan", "-inf", 7, True)), (np.uint8, (0, 200, 255, False)),
                             (np.int16, (-32768, -1, 12)), (np.float16, (0.1, 65504.0)), (np.bool_, (True, 0))]:
            kernel = slicegen.compile("--op TrtSlice --start -1,1 --size 4,3 --mode fill --fill c", (2, None), dtype)
            pad = slicegen.compile("--op Pad --pads-begin 1,0 --pads-end p,1 --value c", (None, 3), dtype)
            self.assertEqual((kernel.value_names, pad.value_names), (("c",), ("p", "c")))
            x = (np.arange(8) % 2 if dtype == np.bool_ else np.arange(8)).astype(dtype).reshape(2, 4)
            for fill in fills:
                text = fill if isinstance(fill, str) else str(fill).lower()
                static = slicegen.compile(f"--op TrtSlice --start -1,1 --size 4,3 --mode fill --fill {text}",
                                          x.shape, dtype)
                self.assertTrue(same(kernel(x, c=fill), static(x)), (dtype, fill))
                self.assertTrue(same(reference_or_skip(self, kernel, x, c=fill), static(x)), (dtype, fill))
                static = slicegen.compile(f"--op Pad --pads-begin 1,0 --pads-end 2,1 --value {text}", (2, 3), dtype)
                self.assertTrue(same(pad(x[:, :3], p=2, c=fill), static(x[:, :3])), (dtype, fill))
        kernel = slicegen.compile("--op Pad --pads-begin 1 --pads-end 1 --value c", (3,), np.uint8)
        for bad, contains in [(256, "not exactly representable as u8"), (-1, "not exactly representable as u8"),
                              (1.5, "not exactly representable as u8"), ("one", "failed to parse scalar 'one'"),
                              ([1], "value c is [1], not a number")]:
            with self.assertRaises(slicegen.SliceError, msg=bad) as caught:
                kernel(np.zeros(3, np.uint8), c=bad)
            self.assertIn(contains, str(caught.exception), bad)

    def test_reference(self):
        kernel = slicegen.compile("[a:, ::b]", (None, 3), np.uint8)
        x = np.arange(21, dtype=np.uint8).reshape(7, 3)
        self.assertTrue(same(reference_or_skip(self, kernel, x, a=2, b=-1), kernel(x, a=2, b=-1)))
        self.assertTrue(same(kernel.reference(x, a=2, b=-1), np.ascontiguousarray(x[2:, ::-1])))

    def test_random_names_against_numpy(self):
        """Random index expressions with some numbers given at run time (and
        some dimensions None): each kernel runs with several sets of values
        on several shapes."""
        rng = rng_for("symbolic names")
        counts = {"ok": 0, "error": 0, "compile error": 0}
        for case in range(SYMBOLIC_CASES):
            shape = random_shape(rng)
            items, values = named_items(rng, random_index(rng, shape))
            if not values:
                continue
            spec = render(rng, items)
            sym = symbolic_shape(rng, shape) if rng.random() < 0.6 else shape
            dtype = rng.choice([np.int8, np.float32, np.float64])
            what = f"case {case} (SLICEGEN_SEED={SEED}): {spec} on {sym} {np.dtype(dtype)}"
            try:
                kernel = slicegen.compile(spec, sym, dtype)
            except slicegen.SliceError as e:
                x = random_array(rng, shape, dtype)
                self.assertIsNone(numpy_result(x, with_numbers(items, values)), f"{what}: {e}")
                counts["compile error"] += 1
                continue
            self.assertEqual(set(kernel.value_names), set(values), what)
            for trial in range(4):
                call = shape if trial == 0 else concrete_shape(rng, sym)
                if trial > 1:  # other numbers for the same names
                    values = {n: (rng.randint(-9, 9) if rng.random() < 0.8 else rng.choice(HUGE[:2]))
                              for n in values}
                    values = {n: v if v != 0 or rng.random() < 0.1 else 1 for n, v in values.items()}
                counts[run_case(self, rng, kernel, with_numbers(items, values), call, what, values)] += 1
        print(f"symbolic: {SYMBOLIC_CASES} expressions with named values against NumPy: {counts} (seed {SEED})")
        self.assertGreater(counts["ok"], SYMBOLIC_CASES // 2)


def random_chain(rng, rank):
    """A NumPy program chaining two or three indices of x, some of it inside
    np.flip, np.roll or np.pad (in the chain's one border mode: a roll's wrap,
    or a pad's), with numbers named at random: its text and the names'
    values."""
    values = {}

    def number(low, high, nonzero=False):
        v = rng.randint(low, high)
        while nonzero and v == 0:
            v = rng.randint(low, high)
        if rng.random() < 0.5:
            return str(v)
        name = f"v{len(values)}"
        values[name] = v if rng.random() < 0.9 else rng.choice([0, INT64_MIN, INT64_MAX, 2**62])
        return name

    text = "x"
    mode = rng.choice(["mode='wrap'", "", "constant_values=7", "mode='edge'", "mode='reflect'"])
    for _ in range(rng.randint(2, 3)):
        form = rng.random()
        if form < 0.2:
            text = f"np.flip({text}{rng.choice(['', ', axis=0', ', axis=-1'])})"
        elif form < 0.35 and mode == "mode='wrap'":
            text = f"np.roll({text}, {number(-9, 9)}, {rng.choice(['axis=0', 'axis=-1', 'axis=(0, -1)'])})"
        elif form < 0.5:  # reflect wider than an axis less one: refused per call (NumPy's rounds)
            reflect = mode == "mode='reflect'"

            def width():
                return str(rng.randint(0, 1)) if reflect else number(0, 4)

            widths = width() if rng.random() < 0.5 else f"({width()}, {width()})"
            text = f"np.pad({text}, {widths}{', ' + mode if mode else ''})"
        items = []
        for _ in range(rng.randint(1, max(rank, 1))):
            kind = rng.random()
            if kind < 0.1:
                items.append("None")
            elif kind < 0.25:
                items.append(number(-3, 3))
            else:
                start = number(-5, 5) if rng.random() < 0.6 else ""
                stop = number(-5, 7) if rng.random() < 0.6 else ""
                step = ":" + number(-3, 3, nonzero=True) if rng.random() < 0.5 else ""
                items.append(f"{start}:{stop}{step}")
        text += "[" + ", ".join(items) + "]"
    return text, values


def random_concat(rng, rank):
    """np.concatenate of two or three arrays along an axis: a chain
    (random_chain's) sliced along that axis by numbers named at random, so
    that the parts' other dimensions match for every call; its text and the
    names' values."""
    base, values = random_chain(rng, rank)
    axis = rng.randint(0, max(rank, 1) - 1)

    def number(low, high):
        if rng.random() < 0.5:
            return str(rng.randint(low, high))
        name = f"v{len(values)}"
        values[name] = rng.randint(low, high)
        return name

    parts = []
    for _ in range(rng.randint(2, 3)):
        start = number(-5, 5) if rng.random() < 0.7 else ""
        stop = number(-5, 7) if rng.random() < 0.7 else ""
        parts.append(f"{base}[{':, ' * axis}{start}:{stop}]")
    written = axis if rng.random() < 0.5 else axis - max(rank, 1)
    return f"np.concatenate([{', '.join(parts)}], axis={written})", values


TOO_LARGE = object()  # what NumPy cannot compute for want of memory


class ChainPrograms(unittest.TestCase):
    def test_roll_of_an_axis_named_twice_wraps_as_numpy(self):
        """np.roll adds the shifts of an axis named twice in int64, wrapping
        (with NumPy's RuntimeWarning): the kernel of numbers and the one of
        runtime values roll by that sum (regression: they added the shifts
        modulo the axis)."""
        import warnings
        x = np.arange(6, dtype=np.uint32)
        for a, b in [(2**62, 2**62), (-2**63, -1), (2**63 - 1, 5), (3, 4)]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = np.roll(x, (a, b), axis=(0, 0))
            typed = slicegen.compile(f"np.roll(x, ({a}, {b}), axis=(0, 0))", x.shape, x.dtype)
            named = slicegen.compile("np.roll(x, (a, b), axis=(0, -1))", (None,), x.dtype)
            self.assertTrue(same(typed(x), want), (a, b))
            self.assertTrue(same(named(x, a=a, b=b), want), (a, b))

    def test_chains_against_numpy(self):
        """Programs that chain indices, np.flip, np.roll and np.pad, and
        np.concatenate of such chains, take names and None dimensions: one
        kernel, called with several shapes and values, gives
        NumPy's result of the program with the numbers written in, or a
        SliceError where NumPy raises."""
        rng = rng_for("symbolic chains")
        counts = {"ok": 0, "error": 0, "compile error": 0, "too large for NumPy": 0}
        cases = SYMBOLIC_CASES // 4 + 15  # a compile each: the chains' planning is the index's, run by the cases above
        for case in range(cases):
            shape = random_shape(rng)
            text, values = (random_concat if rng.random() < 0.25 else random_chain)(rng, len(shape))
            sym = symbolic_shape(rng, shape)
            dtype = DTYPES[rng.choice(list(DTYPES))]
            what = f"case {case} (SLICEGEN_SEED={SEED}): {text} on {sym} {np.dtype(dtype)} with {values}"
            typed = text
            for name, v in sorted(values.items(), key=lambda item: -len(item[0])):
                typed = typed.replace(name, str(v))

            def numpy_result(x):
                try:  # np.pad's wrap as NumPy 1.25 and later have it (test_programs)
                    return np.asarray(eval(typed, {"np": NUMPY, "x": x}))
                except (ValueError, IndexError, TypeError, OverflowError):
                    return None
                except MemoryError:  # an intermediate result NumPy cannot hold (a pad by 2**62): no oracle
                    return TOO_LARGE

            try:
                kernel = slicegen.compile(text, sym, dtype)
            except slicegen.SliceError as e:  # what no call can take (too many indices, an index of a 0)
                if "not axis" in str(e) or "pads with a constant" in str(e):  # refused, not NumPy's error
                    counts["compile error"] += 1
                    continue
                x = random_array(rng, concrete_shape(rng, sym), dtype)
                want = numpy_result(x)
                self.assertTrue(want is None or want is TOO_LARGE, f"{what}: SliceError {e} at compile")
                counts["compile error"] += 1
                continue
            self.assertEqual(kernel.value_names, tuple(values), what)
            for _ in range(3):
                call = concrete_shape(rng, sym)
                x = random_array(rng, call, dtype)
                want = numpy_result(x)
                if want is TOO_LARGE:
                    counts["too large for NumPy"] += 1
                    continue
                try:
                    got = kernel(x, **values)
                except slicegen.SliceError as e:
                    self.assertIsNone(want, f"{what}, call on {call}: SliceError {e}, NumPy gives {want!r}")
                    self.assertEqual(len(str(e).splitlines()), 1, what)
                    counts["error"] += 1
                    continue
                self.assertIsNotNone(want, f"{what}, call on {call}: NumPy rejects it, slicegen gives {got!r}")
                self.assertTrue(same(got, want), f"{what}, call on {call}: got {got!r}, want {want!r}")
                counts["ok"] += 1
        print(f"symbolic chains: {cases} programs (seed {SEED}): {counts}")
        self.assertGreater(counts["ok"], cases)


if __name__ == "__main__":
    unittest.main()

"""Errors: every one raises SliceError (a ValueError) with one line,
"failed to ...", the library's own message where the library finds it."""
import unittest

from _common import CLI, cli, cli_error, needs_cli, np, slicegen


class Errors(unittest.TestCase):
    def raises(self, call, *args, contains=None, status=None, prefix="failed to ", **kwargs):
        with self.assertRaises(slicegen.SliceError) as caught:
            call(*args, **kwargs)
        e = caught.exception
        message = str(e)
        self.assertIsInstance(e, ValueError)
        self.assertEqual(len(message.splitlines()), 1, message)
        self.assertTrue(message.startswith(prefix), message)
        if contains:
            self.assertIn(contains, message)
        if status:
            self.assertEqual(e.status, status, message)
        return e

    def test_bad_specs(self):
        shape, dtype = (4, 5), np.float32
        for spec in ["[1:2:3:4]", "x[]", "[1.5]", "[True]", "[::0]", "[..., ...]", "y = x[1]", "[1", "",
                     "[0,\0]"]:
            self.raises(slicegen.compile, spec, shape, dtype)
        for spec in [1.5, [0, 1], True, slice(0, 1.5), {"a": 1}, object(), np.array([0, 1]), slice(True, 2)]:
            self.raises(slicegen.compile, spec, shape, dtype, contains="index")
        # the command line's words: its usage messages, as `slicegen` prints them
        self.raises(slicegen.compile, ["--op", "Slice", "--start", "0"], shape, dtype, status="usage",
                    prefix="--op Slice needs --stop")
        self.raises(slicegen.compile, ["--op", "Nope"], shape, dtype, prefix="")

    @needs_cli
    def test_messages_are_the_command_lines(self):
        cases = [("[9]", (4, 5)), ("[1:2:3:4]", (4,)), ("[:, :, :]", (4, 5)), ("x[]", (3,)), ("[::0]", (3,)),
                 ("[1, 99999999999999999999]", (3, 3))]
        for spec, shape in cases:
            e = self.raises(slicegen.compile, spec, shape, np.int8)
            run = cli("plan", spec, "--shape", ",".join(map(str, shape)), "--dtype", "i8", check=False)
            self.assertEqual(run.returncode, 2)
            self.assertEqual(str(e), cli_error(run.stderr))
        op = slicegen.Slice([0], [1], [0])
        e = self.raises(slicegen.compile, op, (3,), np.int8, status="spec")
        self.assertEqual(str(e), cli_error(cli("plan", *op.to_words(), "--shape", "3", "--dtype", "i8",
                                               check=False).stderr))

    def test_statuses(self):
        self.assertEqual(self.raises(slicegen.compile, "[5]", (3,), np.int8).status, "slice")
        self.assertEqual(self.raises(slicegen.compile, "[1:2:3:4]", (3,), np.int8).status, "spec")
        self.assertEqual(self.raises(slicegen.compile, "[:]", (3,), np.int8, opt_level=7).status, "usage")

    def test_op_arguments(self):
        self.raises(slicegen.StridedSlice, [1, 2], [3], contains="begin and end must have the same length (2 and 1)")
        self.raises(slicegen.StridedSlice, [1], [3], [1, 1], contains="begin and stride")
        self.raises(slicegen.StridedSlice, "1,a", "2,3", contains="comma-separated")
        self.raises(slicegen.StridedSlice, [2**64], [0], contains="64 bits")
        self.raises(slicegen.StridedSlice, [1.5], [0], contains="not an integer")
        self.raises(slicegen.StridedSlice, 3, [0], contains="not a list")
        self.raises(slicegen.Slice, [0, 1], [2], contains="start and stop")
        self.raises(slicegen.Slice, [0], [2], None, [0, 1], contains="start and axes")
        self.raises(slicegen.TrtSlice, [0], [2], mode="mirror", contains="unknown mode")
        self.raises(slicegen.TrtSlice, [0], [2], mode="wrap", fill=1, contains="needs mode 'fill'")
        self.raises(slicegen.TrtSlice, [0], [2], mode="fill", fill=object(), contains="fill value")
        self.raises(slicegen.TrtSlice, [0], [2], mode="fill", fill=2**64, contains="64 bits")
        # rejected by the library when the spec or plan is made
        x = np.arange(6, dtype=np.uint8)
        self.raises(slicegen.slice, x, slicegen.Slice([0], [1], [0]), contains="step must not be zero")
        self.raises(slicegen.slice, x, slicegen.StridedSlice([0], [1], [0]), status="spec")
        self.raises(slicegen.slice, x, slicegen.StridedSlice([0], [1], begin_mask=[2]), status="spec")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([0], [-1]), contains="negative")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([4], [4]), status="slice")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([0, 0], [1, 1]), status="slice")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([-1], [3], mode="fill", fill=256), contains="fill")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([-1], [3], mode="fill", fill=0.5), contains="fill")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([-1], [3], mode="fill", fill="pear"), contains="pear")
        self.raises(slicegen.slice, x, slicegen.TrtSlice([-1], [3], mode="fill", fill="1\0"), contains="NUL")
        self.raises(slicegen.slice, x, slicegen.Slice([0], [1], axes=[1]), status="slice")

    def test_shapes(self):
        self.raises(slicegen.compile, "[:]", (3, -1), np.int8, contains="dimension 1")
        self.raises(slicegen.compile, "[:]", (3, 1.5), np.int8, contains="shape")
        self.raises(slicegen.compile, "[:]", "3", np.int8, contains="shape")
        self.raises(slicegen.compile, "[...]", (1,) * 65, np.int8)
        self.raises(slicegen.compile, "[...]", (2**40, 2**40), np.int8)
        self.assertEqual(slicegen.compile("[1:]", 5, "u8").output_shape, (4,))

    def test_dtypes(self):
        for dtype in [np.complex64, object, "U3", "V2", np.dtype([("a", "<i4")]), "f128", "float80", "nope",
                      np.datetime64, None]:
            if dtype is None:
                continue  # np.dtype(None) is float64
            self.raises(slicegen.compile, "[:]", (3,), dtype, contains="element type")
        e = self.raises(slicegen.compile, "[:]", (3,), np.dtype(">i4"), contains="byte order")
        self.assertIn("astype('int32')", str(e))
        self.assertEqual(slicegen.compile("[:]", (3,), ">i1").dtype, np.int8)
        for name, want in [("f32", np.float32), ("u16", np.uint16), ("bool", np.bool_), ("float16", np.float16),
                           ("<i8", np.int64), (np.uint64, np.uint64), (None, np.float64)]:
            self.assertEqual(slicegen.compile("[:]", (3,), name).dtype, want)

    def test_call_arguments(self):
        kernel = slicegen.compile("[1:, ::-1]", (3, 4), np.float32)
        x = np.zeros((3, 4), np.float32)
        self.raises(kernel, np.zeros((4, 3), np.float32), contains="shape is (4, 3), the kernel's (3, 4)")
        self.raises(kernel, np.zeros((3, 4), np.float64), contains="element type is <f8")
        self.raises(kernel, np.zeros((3, 4), ">f4"), contains="element type is >f4")
        self.raises(kernel, [[0.0] * 4] * 3, contains="element type")
        self.raises(kernel, x, out=np.empty((2, 3), np.float32), contains="out's shape")
        self.raises(kernel, x, out=np.empty((2, 4), np.float64), contains="out's element type")
        self.raises(kernel, x, out=np.empty((4, 2), np.float32).T, contains="C-contiguous")
        self.raises(kernel, x, out=[[0.0] * 4] * 2, contains="NumPy array")
        readonly = np.empty((2, 4), np.float32)
        readonly.flags.writeable = False
        self.raises(kernel, x, out=readonly, contains="read-only")
        both = np.zeros(20, np.float32)
        self.raises(kernel, both[:12].reshape(3, 4), out=both[8:16].reshape(2, 4), contains="overlaps")
        for threads in [0, -1]:
            self.raises(kernel, x, threads=threads, contains=f"{threads} threads (at least 1)")
        self.raises(kernel, x, threads="2", contains="not an integer")
        self.raises(kernel.reference, np.zeros((3, 5), np.float32), contains="shape")
        for level in [4, -1, "2", 1.0]:
            self.raises(slicegen.compile, "[:]", (3,), np.int8, opt_level=level, contains="optimization level")
            if level in (4, -1):
                self.raises(kernel.ir, level, contains="optimization level")

    def test_bf16_without_ml_dtypes(self):
        try:
            import ml_dtypes  # noqa: F401
            self.skipTest("ml_dtypes is installed (test_bf16 tests bfloat16 with it)")
        except ImportError:
            pass
        for name in ["bf16", "bfloat16", "BF16"]:
            self.raises(slicegen.compile, "[:]", (3,), name, contains="ml_dtypes")
        self.raises(slicegen.emit, "[:]", (3,), "bf16", "/nonexistent/x.o", contains="ml_dtypes")

    def test_closed_context(self):
        context = slicegen.Context()
        kernel = context.compile("[::2]", (6,), np.int16)
        x = np.arange(6, dtype=np.int16)
        self.assertTrue(np.array_equal(kernel(x), x[::2]))
        context.close()
        context.close()
        self.assertTrue(context.closed)
        self.raises(kernel, x, contains="closed")
        self.raises(kernel.ir, contains="closed")
        self.raises(context.compile, "[::2]", (6,), np.int16, contains="closed")
        self.raises(context.slice, x, "[1:]", contains="closed")
        self.assertIn("[::2]", kernel.plan + kernel.spec)  # plain values stay readable


if __name__ == "__main__":
    unittest.main()

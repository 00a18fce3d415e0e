"""The extension slicegen._ext on the hot path of calls: inputs and outputs
through the buffer protocol (memoryview, bytearray), read in place when
C-contiguous and copied otherwise, read-only and aliasing buffers, the GIL
released during long runs, no reference or memory leaked over 100,000
calls, and its errors (each from _core.py, with the library's line)."""
import sys
import threading
import time
import tracemalloc
import unittest

from _common import np, random_array, rng_for, same, slicegen


def peak_bytes(call):
    """The most memory traced (NumPy's data included) above the start while call() runs."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


class Buffers(unittest.TestCase):
    def test_memoryview_and_bytearray_inputs(self):
        x = random_array(rng_for("buffers"), (4, 6), np.float32)
        kernel = slicegen.compile("[1:, ::-2]", x.shape, x.dtype)
        want = np.ascontiguousarray(x[1:, ::-2])
        self.assertTrue(same(kernel(memoryview(x)), want))
        data = bytearray(x.tobytes())
        self.assertTrue(same(kernel(memoryview(data).cast("f", (4, 6))), want))
        u8 = slicegen.compile("[::-3]", (96,), np.uint8)
        self.assertTrue(same(u8(data), np.frombuffer(bytes(data), np.uint8)[::-3]))
        self.assertTrue(same(slicegen.slice(data, "[::-3]"), np.frombuffer(bytes(data), np.uint8)[::-3]))

    def test_buffer_outputs(self):
        x = random_array(rng_for("buffer outputs"), (4, 6), np.int16)
        kernel = slicegen.compile("[1:, ::-2]", x.shape, x.dtype)
        want = np.ascontiguousarray(x[1:, ::-2])
        data = bytearray(want.nbytes)
        out = memoryview(data).cast("h", (3, 3))
        self.assertIs(kernel(x, out=out), out)
        self.assertEqual(bytes(data), want.tobytes())
        flat = bytearray(want.nbytes)
        with self.assertRaisesRegex(slicegen.SliceError, r"out's shape is \(18,\), the output's \(3, 3\)"):
            kernel(x, out=flat)
        with self.assertRaisesRegex(slicegen.SliceError, "out is read-only"):
            kernel(x, out=memoryview(bytes(want.nbytes)).cast("h", (3, 3)))
        with self.assertRaisesRegex(slicegen.SliceError, "out's element type is |u1"):
            kernel(x, out=memoryview(bytearray(9)).cast("B", (3, 3)))

    def test_contiguous_inputs_are_read_in_place(self):
        x = np.zeros((1024, 1024), np.float32)
        kernel = slicegen.compile("[::-1]", x.shape, x.dtype)
        out = np.empty_like(x)
        kernel(x, out=out)
        self.assertLess(peak_bytes(lambda: kernel(x, out=out)), x.nbytes // 4)
        self.assertLess(peak_bytes(lambda: kernel(memoryview(x), out=memoryview(out))), x.nbytes // 4)
        wide = np.zeros((1024, 2048), np.float32)[:, ::2]
        self.assertGreaterEqual(peak_bytes(lambda: kernel(wide, out=out)), x.nbytes)

    def test_dlpack_inputs(self):
        """An object with DLPack and no buffer (as a PyTorch tensor) is read
        through np.from_dlpack, in place; PyTorch's own when it imports."""
        class Tensor:
            def __init__(self, array):
                self.array = array

            def __dlpack__(self, stream=None):
                return self.array.__dlpack__()

            def __dlpack_device__(self):
                return self.array.__dlpack_device__()

        x = random_array(rng_for("dlpack"), (4, 6), np.float32)
        kernel = slicegen.compile("[1:, ::-2]", x.shape, x.dtype)
        want = np.ascontiguousarray(x[1:, ::-2])
        self.assertTrue(same(kernel(Tensor(x)), want))
        self.assertTrue(same(slicegen.slice(Tensor(x), "[1:, ::-2]"), want))
        self.assertTrue(same(slicegen.compile("[1:, ::-2]", (None, 6), np.float32)(Tensor(x)), want))
        big = np.ones((1024, 1024), np.float32)
        flip, out = slicegen.compile("[::-1]", big.shape, big.dtype), np.empty_like(big)
        self.assertLess(peak_bytes(lambda: flip(Tensor(big), out=out)), big.nbytes // 4)
        with self.assertRaisesRegex(slicegen.SliceError, "element type is <f8"):
            kernel(Tensor(x.astype(np.float64)))
        try:
            import torch
        except ImportError:
            return
        self.assertTrue(same(kernel(torch.from_numpy(x)), want))

    def test_read_only_and_non_contiguous_inputs(self):
        rng = rng_for("read-only")
        x = random_array(rng, (6, 8), np.uint32)
        kernel = slicegen.compile("[::2, 1:]", (6, 4), np.uint32)
        frozen = x[:, ::2].copy()
        frozen.flags.writeable = False
        want = np.ascontiguousarray(frozen[::2, 1:])
        self.assertTrue(same(kernel(frozen), want))
        self.assertTrue(same(kernel(memoryview(frozen.tobytes()).cast("I", (6, 4))), want))
        strided = x[:, ::2]
        self.assertFalse(strided.flags.c_contiguous)
        self.assertTrue(same(kernel(strided), want))
        line = slicegen.compile("[::-1]", (6,), np.uint32)
        self.assertTrue(same(line(memoryview(x.reshape(-1))[::8]), x.reshape(-1)[::8][::-1]))
        self.assertTrue(same(kernel(strided.T.T), want))
        symbolic = slicegen.compile("[::2, 1:]", (None, 4), np.uint32)
        self.assertTrue(same(symbolic(strided), want))
        self.assertTrue(same(symbolic(frozen), want))

    def test_out_aliasing_the_input_is_refused(self):
        x = np.arange(12, dtype=np.int32)
        for kernel in (slicegen.compile("[::-1]", (12,), np.int32), slicegen.compile("[::-1]", (None,), np.int32)):
            with self.assertRaisesRegex(slicegen.SliceError, "out overlaps the input"):
                kernel(x, out=x)
            data = bytearray(x.tobytes())
            view = memoryview(data).cast("i")
            with self.assertRaisesRegex(slicegen.SliceError, "out overlaps the input"):
                kernel(view, out=np.frombuffer(data, np.int32))
            self.assertEqual(bytes(data), x.tobytes())
            with self.assertRaisesRegex(slicegen.SliceError, "out overlaps the input"):
                slicegen.slice(x, "[::-1]", out=x)
            self.assertTrue(same(kernel(x, out=np.empty(12, np.int32)), x[::-1]))


class Gil(unittest.TestCase):
    def test_another_thread_runs_during_a_kernel(self):
        """One thread runs a long kernel (128 MiB) and records when the call
        begins and ends; the main thread samples the clock meanwhile. While
        the GIL is held a sample falls in the middle third of a call only
        when the system delays the runner between its clock and the kernel
        (2 calls of 10 at most, measured on a loaded machine, with a switch
        interval of 0.1 ms); with the GIL released, in most calls."""
        x = np.ones((8192, 4096), np.float32)  # not the shared zero page
        kernel = slicegen.compile("[::-1, ::-1]", x.shape, x.dtype)
        out = np.ones_like(x)
        interval, hits = sys.getswitchinterval(), 0
        sys.setswitchinterval(1e-4)
        try:
            for _ in range(10):
                span, samples, done = [], [], threading.Event()

                def run():
                    begin = time.perf_counter()
                    kernel(x, out=out)
                    span.extend([begin, time.perf_counter()])
                    done.set()

                thread = threading.Thread(target=run)
                thread.start()
                while not done.is_set():
                    samples.append(time.perf_counter())
                thread.join()
                third = (span[1] - span[0]) / 3
                hits += any(span[0] + third < t < span[1] - third for t in samples)
        finally:
            sys.setswitchinterval(interval)
        self.assertGreater(hits, 5, "the main thread ran during too few kernel calls: the GIL was held")

    def test_two_threads_run_kernels_at_once(self):
        x = np.arange(1 << 20, dtype=np.int32)
        kernels = [slicegen.compile("[::-1]", x.shape, x.dtype) for _ in range(2)]
        results, start = [None, None], threading.Barrier(2)

        def work(n):
            start.wait()
            results[n] = all(same(kernels[n](x, threads=1 + n), x[::-1]) for _ in range(20))

        threads = [threading.Thread(target=work, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [True, True])


class Leaks(unittest.TestCase):
    CALLS = 100_000

    def test_reference_counts_and_memory_after_many_calls(self):
        x = np.arange(24, dtype=np.float32).reshape(4, 6)
        kernel = slicegen.compile("[1:, ::-2]", x.shape, x.dtype)
        symbolic = slicegen.compile("[:, :t]", (None, 6), np.float32)
        out = np.empty(kernel.output_shape, np.float32)
        t = np.int64(3)
        spec = "".join(["[1:, ", "::-2]"])  # not interned: counted alone
        data = bytearray(x.tobytes())
        view = memoryview(data).cast("f", (4, 6))
        calls = [lambda: kernel(x, out=out), lambda: kernel(x), lambda: kernel(view),
                 lambda: symbolic(x, t=t), lambda: slicegen.slice(x, spec), lambda: slicegen.slice(x, spec, out=out)]
        objects = (x, kernel, symbolic, out, t, spec, data, view, kernel.output_shape)
        for call in calls:
            call()
        counts = [sys.getrefcount(o) for o in objects]
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for call in calls:
                for _ in range(self.CALLS):
                    call()
            for _ in range(self.CALLS // 10):
                for bad in (lambda: kernel(x[:3]), lambda: symbolic(x, t=99), lambda: kernel(x, out=x)):
                    try:
                        bad()
                    except slicegen.SliceError:
                        pass
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        self.assertEqual([sys.getrefcount(o) for o in objects], counts)
        self.assertLess(grown, 64 * 1024)


class Errors(unittest.TestCase):
    def raises(self, call, *args, contains, error=slicegen.SliceError, **kwargs):
        with self.assertRaises(error) as caught:
            call(*args, **kwargs)
        self.assertIn(contains, str(caught.exception))
        self.assertNotIn("\n", str(caught.exception))
        return caught.exception

    def test_calls(self):
        kernel = slicegen.compile("[1:]", (4,), np.float32)
        x = np.zeros(4, np.float32)
        self.raises(kernel, memoryview(bytearray(4)), contains="the input's element type is |u1")
        self.raises(kernel, memoryview(bytearray(12)).cast("f"), contains="shape is (3,), the kernel's (4,)")
        self.raises(kernel, object(), contains="the input's shape is (), the kernel's (4,)")
        self.raises(kernel, x, out=[0.0] * 3, contains="out is a list, not a writable array")
        self.raises(kernel, x, threads=0, contains="0 threads (at least 1)")
        self.raises(kernel, x, x[1:], contains="overlaps")
        self.raises(kernel, x, np.zeros(3, np.float32), 1, 2, contains="at most 3 arguments", error=TypeError)
        self.raises(kernel, x, np.zeros(3, np.float32), out=None, contains="multiple values for argument 'out'",
                    error=TypeError)
        self.raises(kernel, x, t=1, contains="unexpected keyword argument 't' (the kernel takes no values)",
                    error=TypeError)

    def test_values(self):
        kernel = slicegen.compile("[:, :t]", (None, 6), np.float32)
        x = np.zeros((2, 6), np.float32)
        self.assertEqual(kernel(x, t=True).shape, (2, 1))
        self.raises(kernel, x, contains="missing 1 required keyword argument: 't'", error=TypeError)
        self.raises(kernel, x, t=2, u=1, contains="unexpected keyword argument 'u'", error=TypeError)
        self.raises(kernel, x, t=2**70, contains="value t = 1180591620717411303424 does not fit in 64 bits")
        self.raises(kernel, x, t=2.0, contains="value t is 2.0, not an integer")
        # threads= and out= are no values, whichever of them is given (issue 34)
        out = np.empty((2, 1), np.float32)
        for given in ({"threads": 2}, {"threads": 2, "out": out}, {"out": out}):
            self.raises(kernel, x, t=1.5, **given, contains="value t is 1.5, not an integer")
            self.raises(kernel, x, t=2**70, **given, contains="value t = 1180591620717411303424 does not fit")
            self.raises(kernel, x, t=1, u=1, **given, contains="unexpected keyword argument 'u'", error=TypeError)
            self.raises(kernel, x, **given, contains="missing 1 required keyword argument: 't'", error=TypeError)
        column = slicegen.compile("[:, t]", (None, 6), np.float32)
        self.assertTrue(same(column(x, t=-1), x[:, -1]))
        e = self.raises(column, x, t=7, contains="failed to ")
        self.assertIn(e.status, ("spec", "slice"))
        self.raises(slicegen.slice, x, "[:, :t]", contains="missing 1 required keyword argument", error=TypeError)

    def test_slice(self):
        x = np.arange(6, dtype=np.int8)
        self.raises(slicegen.slice, x, "[::0]", contains="failed to ")
        self.raises(slicegen.slice, x, "[::-1]", copy=True, contains="unexpected keyword argument 'copy'",
                    error=TypeError)
        self.assertTrue(same(slicegen.slice(x, "[::-1]"), x[::-1]))
        self.assertTrue(same(slicegen.slice(x.reshape(2, 3), "[::-1]"), x.reshape(2, 3)[::-1]))
        self.assertTrue(same(slicegen.slice(x.astype(np.int64), "[::-1]"), x[::-1].astype(np.int64)))
        for n in range(100):  # more spec strings than the extension keeps
            self.assertTrue(same(slicegen.slice(x, f"[{n % 7}:]"), x[n % 7:]))

    def test_closed_contexts(self):
        context = slicegen.Context()
        kernel = context.compile("[::-1]", (3,), np.uint8)
        x = np.arange(3, dtype=np.uint8)
        self.assertTrue(same(context.slice(x, "[::-1]"), x[::-1]))
        context.close()
        self.raises(kernel, x, contains="failed to run kernel: its context is closed")
        self.raises(context.slice, x, "[::-1]", contains="failed to use context: it is closed")
        self.assertTrue(same(slicegen.slice(x, "[1:]"), x[1:]))
        slicegen.default_context().close()
        self.assertTrue(same(slicegen.slice(x, "[1:]"), x[1:]))

    def test_context_closed_while_converting(self):
        """A context closed by the conversion of a call's input (Python code
        run inside the call) fails the call with SliceError, for static and
        runtime-value kernels, small (run holding the GIL) and large calls
        and threads=2 (issue 34: a use after free)."""
        cases = [("[1:]", (4,), {}, (4,)), ("[1:]", (4,), {"threads": 2}, (4,)),
                 ("[1:]", (8192,), {}, (8192,)), ("[:, :t]", (None, 6), {"t": 2}, (3, 6)),
                 ("[:, :t]", (None, 6), {"t": 2, "threads": 2}, (3, 6)),
                 ("[:, :t]", (None, 1024), {"t": 1024}, (3, 1024))]
        for spec, shape, given, x_shape in cases:
            with self.subTest(spec=spec, shape=shape, given=given):
                context = slicegen.Context()
                kernel = context.compile(spec, shape, np.float32)

                class Closing:
                    def __array__(self, dtype=None, copy=None):
                        context.close()
                        return np.zeros(x_shape, np.float32)

                self.raises(kernel, Closing(), **given, contains="failed to run kernel: its context is closed")
                self.assertTrue(context.closed)
                self.raises(kernel, np.zeros(x_shape, np.float32), **given,
                            contains="failed to run kernel: its context is closed")
        context = slicegen.Context()

        class Closing:
            def __array__(self, dtype=None, copy=None):
                context.close()
                return np.zeros(4, np.float32)

        e = self.raises(context.slice, Closing(), "[1:]", contains="closed")
        self.assertIn(str(e), ("failed to use context: it is closed", "failed to run kernel: its context is closed"))

    def test_kernels_are_made_by_compile(self):
        with self.assertRaises(TypeError):
            slicegen.Kernel()
        with self.assertRaisesRegex(TypeError, "made by slicegen.compile"):
            slicegen.Kernel.__new__(slicegen.Kernel)(np.zeros(3))


if __name__ == "__main__":
    unittest.main()

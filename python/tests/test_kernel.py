"""Kernels: their attributes, plan and IR text (against `slicegen plan` and
`slicegen ir`), threads=2 and 3 against threads=1, Python threads sharing
kernels and a context, inputs that are copied, out=, the reference
interpreter, and the lifetime of kernels and contexts."""
import gc
import os
import signal
import subprocess
import sys
import threading
import unittest

from _common import SEED, cli, needs_cli, np, random_array, rng_for, same, slicegen
from test_numpy_semantics import random_index, render
from test_ops import random_slice, random_strided_slice, random_trt_slice

# Contexts closed while one thread compiles and another slices, for
# argv[1] seconds (argv[2] seeds the moments of the closes). Exit 0: every
# call after a close raised its "closed" SliceError and no kernel outlived
# its context; 1 with the problems on stderr; a crash is the bug.
CLOSE_WHILE_COMPILING = """
import random, sys, threading, time
import numpy as np
import slicegen

seconds, rng = float(sys.argv[1]), random.Random(int(sys.argv[2]))
closed = ("failed to use context: it is closed", "failed to run kernel: its context is closed")
problems, rounds, deadline = [], 0, time.monotonic() + seconds


def loop(call):
    n = 0
    try:
        while True:
            call(n)
            n += 1
    except slicegen.SliceError as e:
        if str(e) not in closed:
            problems.append(str(e))


while time.monotonic() < deadline:
    ctx = slicegen.Context()
    calls = [lambda n: ctx.compile("[::-1]", (1 + n % 300,), np.float32),
             lambda n: ctx.slice(np.zeros(1 + n % 300, np.uint8), "[1:]")]
    threads = [threading.Thread(target=loop, args=(call,)) for call in calls]
    for t in threads:
        t.start()
    time.sleep(rng.random() * 0.01)
    ctx.close()
    for t in threads:
        t.join()
    if ctx._state.kernels or ctx._slice_cache:
        problems.append(f"after close: {len(ctx._state.kernels)} kernels registered, "
                        f"{len(ctx._slice_cache)} in the slice cache")
    rounds += 1
print(f"{rounds} contexts closed while compiling", file=sys.stderr)
for p in problems[:5]:
    print(p, file=sys.stderr)
sys.exit(1 if problems else 0)
"""

# Contexts closed while other threads call their kernels on non-contiguous
# inputs (which Python code converts, inside the call), for argv[1] seconds
# (argv[2] seeds the moments of the closes): static and runtime-value
# kernels, small calls (run holding the GIL) and threads=2. Exit 0: every
# call failing after a close raised its "closed" SliceError; 1 with the
# problems on stderr; a crash is the bug (issue 34).
CLOSE_WHILE_CONVERTING = """
import random, sys, threading, time
import numpy as np
import slicegen

seconds, rng = float(sys.argv[1]), random.Random(int(sys.argv[2]))
sys.setswitchinterval(1e-5)  # threads switch often, inside the conversions too
x = np.arange(8, dtype=np.float32)[::2]
problems, rounds, deadline = [], 0, time.monotonic() + seconds


def loop(kernel, want, **given):
    try:
        while True:
            if not np.array_equal(kernel(x, **given), want):
                problems.append(f"wrong result of {kernel.spec!r}")
    except slicegen.SliceError as e:
        if str(e) != "failed to run kernel: its context is closed":
            problems.append(str(e))


while time.monotonic() < deadline:
    ctx = slicegen.Context()
    static, values = ctx.compile("[1:]", (4,), np.float32), ctx.compile("[:t]", (None,), np.float32)
    calls = [(static, x[1:], {}), (static, x[1:], {"threads": 2}), (values, x[:2], {"t": 2})]
    threads = [threading.Thread(target=loop, args=(k, want), kwargs=given) for k, want, given in calls]
    for t in threads:
        t.start()
    time.sleep(rng.random() * 0.002)
    ctx.close()
    for t in threads:
        t.join()
    rounds += 1
print(f"{rounds} contexts closed while converting inputs", file=sys.stderr)
for p in problems[:5]:
    print(p, file=sys.stderr)
sys.exit(1 if problems else 0)
"""


class Attributes(unittest.TestCase):
    def test_attributes(self):
        kernel = slicegen.compile("x[1:, ::-1, None]", (3, 4), np.float32, opt_level=1)
        self.assertEqual(kernel.input_shape, (3, 4))
        self.assertEqual(kernel.output_shape, (2, 4, 1))
        self.assertEqual(kernel.dtype, np.float32)
        self.assertEqual(kernel.opt_level, 1)
        self.assertEqual(kernel.spec, "[1:, ::-1, None]")
        self.assertGreaterEqual(kernel.outer_extent, 1)
        self.assertIn("(3, 4) float32 -> (2, 4, 1)", repr(kernel))
        self.assertTrue(kernel.plan.startswith("op NumPy\ndtype f32\n"), kernel.plan)
        self.assertIn("output [2,4,1]", kernel.plan)
        self.assertIn("define void @", kernel.ir())
        self.assertNotEqual(kernel.ir(0), kernel.ir(3))
        self.assertEqual(slicegen.compile("[:0]", (3,), np.int8).outer_extent, 0)
        with self.assertRaises(TypeError):
            slicegen.Kernel()
        self.assertEqual(slicegen.DEFAULT_OPT_LEVEL, slicegen.compile("[:]", (1,), "u8").opt_level)
        self.assertRegex(slicegen.llvm_version(), r"^\d+\.\d+")

    @needs_cli
    def test_plan_and_ir_are_the_command_lines(self):
        cases = [("[1:, ::-1]", (3, 4), "f32"), ("[..., None, 0]", (2, 3, 5), "u8"),
                 (slicegen.TrtSlice([-2, -2], [8, 9], mode="reflect"), (4, 5), "i16"),
                 (slicegen.TrtSlice([-1], [6], mode="fill", fill="nan"), (4,), "f16"),
                 (slicegen.StridedSlice([1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]),
                  (4, 4, 4), "u64"),
                 (slicegen.Slice([-1], [-(2**63)], [-2], [-1]), (3, 7), "bool")]
        for spec, shape, dtype in cases:
            words = [spec] if isinstance(spec, str) else spec.to_words()
            where = ["--shape", ",".join(map(str, shape)), "--dtype", dtype]
            kernel = slicegen.compile(spec, shape, dtype)
            self.assertEqual(kernel.plan, cli("plan", *words, *where).stdout, f"{spec}")
            for level in (0, 2):
                self.assertEqual(kernel.ir(level), cli("ir", *words, *where, f"-O{level}").stdout, f"{spec}")


class Threads(unittest.TestCase):
    def random_case(self, rng):
        rank = rng.randint(1, 4)
        shape = tuple(rng.randint(1, 40 if rank < 3 else 12) for _ in range(rank))
        dtype = rng.choice([np.int8, np.int16, np.float32, np.float64, np.bool_])
        pick = rng.random()
        if pick < 0.4:
            spec = render(rng, random_index(rng, shape))
        elif pick < 0.6:
            spec = random_strided_slice(rng, shape, dtype)
        elif pick < 0.8:
            spec = random_slice(rng, shape, dtype)
        else:
            spec = random_trt_slice(rng, shape, dtype)
        return random_array(rng, shape, dtype), spec

    def test_threads_equal_one_thread(self):
        rng = rng_for("threads")
        compared = 0
        for case in range(300):
            x, spec = self.random_case(rng)
            try:
                kernel = slicegen.compile(spec, x.shape, x.dtype, opt_level=rng.choice([0, 2]))
            except slicegen.SliceError:
                continue
            one = kernel(x)
            what = f"case {case} (SLICEGEN_SEED={SEED}): {kernel}"
            for threads in (2, 3, 1000):
                self.assertTrue(same(kernel(x, threads=threads), one), f"{what}, {threads} threads")
            self.assertTrue(same(kernel.reference(x), one), f"{what}, reference")
            compared += 1
        print(f"threads: {compared} random kernels give the same output on 1, 2, 3 and 1000 threads "
              f"(seed {SEED})")
        self.assertGreater(compared, 150)

    def test_large_outputs_on_threads(self):
        x = random_array(rng_for("large"), (64, 256, 33), np.float32)
        for spec, want in [("[:, ::-1, 1::2]", x[:, ::-1, 1::2]), ("[3:60, 5:250:3]", x[3:60, 5:250:3]),
                           ("[..., None, ::-1]", x[..., None, ::-1])]:
            kernel = slicegen.compile(spec, x.shape, x.dtype)
            for threads in (1, 2, 3):
                out = np.empty(kernel.output_shape, x.dtype)
                self.assertIs(kernel(x, out=out, threads=threads), out)
                self.assertTrue(same(out, np.ascontiguousarray(want)), f"{spec} on {threads} threads")

    def test_python_threads_share_kernels_and_a_context(self):
        """Eight Python threads compile, run (on 1-3 pool threads) and drop
        kernels of one context at once; every result must be NumPy's."""
        context = slicegen.Context()
        x = random_array(rng_for("shared"), (32, 48), np.int32)
        specs = ["[::-1]", "[1::2, ::-3]", "[..., None]", "[5]", "[:, 7:40]", "[None, ::2, -1]"]
        shared = [context.compile(s, x.shape, x.dtype) for s in specs]
        wants = {s: np.ascontiguousarray(eval("x" + s, {"x": x})) for s in specs}
        failures = []

        def work(seed):
            rng = rng_for(f"thread {seed}")
            try:
                for i in range(150):
                    spec = rng.choice(specs)
                    want = wants[spec]
                    pick = rng.random()
                    if pick < 0.4:
                        got = shared[specs.index(spec)](x, threads=rng.randint(1, 3))
                    elif pick < 0.7:
                        got = context.slice(x, spec, threads=rng.randint(1, 3))
                    else:
                        got = context.compile(spec, x.shape, x.dtype, opt_level=rng.choice([0, 2]))(x)
                    if not same(got, want):
                        failures.append(f"thread {seed} step {i}: {spec}")
            except Exception as e:  # reported by the main thread
                failures.append(f"thread {seed}: {e!r}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [], f"SLICEGEN_SEED={SEED}")
        context.close()


class Inputs(unittest.TestCase):
    def test_non_contiguous_inputs_are_copied(self):
        base = random_array(rng_for("views"), (6, 8), np.int64)
        kernel = slicegen.compile("[1:, ::-2]", (8, 6), np.int64)
        for x in [base.T, np.asfortranarray(base.T), base[::-1].T]:
            before = x.copy()
            self.assertFalse(x.flags.c_contiguous)
            self.assertTrue(same(kernel(x), np.ascontiguousarray(x[1:, ::-2])))
            self.assertTrue(same(x, before))
        strided = random_array(rng_for("strided"), (8, 12), np.int64)[:, ::2]
        self.assertTrue(same(slicegen.slice(strided, "[::-1]"), np.ascontiguousarray(strided[::-1])))

    def test_results(self):
        x = np.arange(24, dtype=np.uint16).reshape(2, 3, 4)
        scalar = slicegen.slice(x, "[1, 2, 3]")
        self.assertEqual((scalar.shape, scalar.dtype, int(scalar)), ((), np.uint16, 23))
        got = slicegen.slice(x, np.s_[:, None, ::-1])
        self.assertTrue(got.flags.c_contiguous and got.flags.writeable and got.flags.owndata)
        self.assertFalse(np.shares_memory(got, x))
        out = np.full((3, 4), 7, np.uint16)
        self.assertIs(slicegen.slice(x, "[1]", out=out), out)
        self.assertTrue(same(out, x[1]))
        self.assertTrue(same(slicegen.slice(x.tolist(), "[0]").astype(np.uint16), x[0]))
        empty = slicegen.slice(x, "[:, 3:]")
        self.assertEqual(empty.shape, (2, 0, 4))
        filled = slicegen.slice(np.zeros((0, 2), np.float32), slicegen.TrtSlice([0, 0], [2, 2], mode="fill", fill=3))
        self.assertTrue(same(filled, np.full((2, 2), 3, np.float32)))

    def test_slice_uses_the_context_cache(self):
        context = slicegen.Context()
        x = np.arange(10, dtype=np.int8)
        first = context.slice(x, "[::3]")
        self.assertEqual(len(context._slice_cache), 1)
        self.assertTrue(same(context.slice(x, np.s_[::3]), first))
        self.assertTrue(same(context.slice(x.astype(np.int16), "[::3]"), first.astype(np.int16)))
        self.assertEqual(len(context._slice_cache), 2)  # np.s_[::3] is "[::3]"
        for n in range(100):
            context.slice(x, f"[{n}:]")
        self.assertEqual(len(context._slice_cache), slicegen.Context._SLICE_CACHE)
        context.close()

    def test_slice_cache_tells_fills_apart(self):
        """Fills that Python finds equal but that make different kernels
        (0 == 0.0 == False == -0.0) get kernels of their own, in either
        order; the same fill given twice is one kernel, NaN included."""
        def fill(value):
            return slicegen.TrtSlice([-1], [3], mode="fill", fill=value)

        for dtype in (np.float32, np.float16, np.float64):
            x = np.ones(1, dtype)
            for first, second in ((0, -0.0), (-0.0, 0), (0.0, -0.0), (-0.0, 0.0), (False, -0.0)):
                context = slicegen.Context()
                for value in (first, second):
                    got = context.slice(x, fill(value))
                    want = np.array([value, 1, value], dtype)
                    self.assertTrue(same(got, want), f"{dtype.__name__} fill {value!r} after {first!r}: "
                                                     f"{got.tobytes().hex()}, want {want.tobytes().hex()}")
                self.assertEqual(len(context._slice_cache), 2)
                context.close()
        context = slicegen.Context()
        x = np.ones(2, np.float32)
        for value in (float("nan"), float("nan"), "nan", "nan"):
            got = context.slice(x, fill(value))
            self.assertTrue(np.isnan(got[0]) and got[1] == got[2] == 1, got)
        self.assertEqual(len(context._slice_cache), 2)  # the float NaN (by its bits) and the text "nan"
        context.close()


class Lifetimes(unittest.TestCase):
    def test_kernels_are_released(self):
        context = slicegen.Context()
        kernels = [context.compile(f"[{n}:]", (16,), np.float64) for n in range(10)]
        self.assertEqual(len(context._state.kernels), 10)
        finalizers = [k._finalizer for k in kernels]
        del kernels
        gc.collect()
        self.assertFalse(any(f.alive for f in finalizers))
        self.assertEqual(len(context._state.kernels), 0)
        context.close()

    def test_context_dropped_with_live_kernels(self):
        """A context in a reference cycle with its kernels (its slice cache)
        may be collected in any order: kernels are released before it."""
        for _ in range(20):
            context = slicegen.Context()
            context.slice(np.arange(5, dtype=np.uint8), "[::-1]")
            kernel = context.compile("[1:]", (5,), np.uint8)
            state = context._state
            del context, kernel
            gc.collect()
            self.assertIsNone(state.ptr)
            self.assertEqual(state.kernels, {})

    def test_close_while_threads_run(self):
        """close() waits for the runs in flight; later runs raise SliceError."""
        context = slicegen.Context()
        x = random_array(rng_for("close"), (256, 256), np.float32)
        kernel = context.compile("[::-1, 1::2]", x.shape, x.dtype)
        want = np.ascontiguousarray(x[::-1, 1::2])
        started, outcomes = threading.Barrier(5), []

        def work():
            started.wait()
            try:
                while True:
                    if not same(kernel(x, threads=2), want):
                        outcomes.append("wrong")
            except slicegen.SliceError as e:
                outcomes.append(str(e))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        started.wait()
        context.close()
        for t in threads:
            t.join()
        self.assertEqual(outcomes, ["failed to run kernel: its context is closed"] * 4)

    def fresh_interpreter(self, script, what):
        """Runs script for 2 s in a fresh interpreter, so that a crash is a
        failure with a message."""
        env = dict(os.environ, SLICEGEN_LIBRARY=slicegen.library_path,
                   PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(slicegen.__file__)),
                                                            os.environ.get("PYTHONPATH")])))
        try:
            run = subprocess.run([sys.executable, "-c", script, "2", str(SEED)], env=env,
                                 capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            self.fail(f"the interpreter closing contexts while {what} hung (seed {SEED}; "
                      "2 s of closes took over 60 s)")
        if run.returncode < 0:
            self.fail(f"the interpreter closing contexts while {what} died of "
                      f"{signal.Signals(-run.returncode).name} (seed {SEED}): {run.stderr.strip()[-2000:]}")
        self.assertEqual(run.returncode, 0, f"seed {SEED}: {run.stderr.strip()[-2000:]}")

    def test_close_while_threads_compile(self):
        """close() while other threads are in compile() and slice(): they
        raise SliceError, the kernels they made are released with the
        context, nothing is used after it is freed."""
        self.fresh_interpreter(CLOSE_WHILE_COMPILING, "threads compile")

    def test_close_while_threads_convert_inputs(self):
        """close() while other threads are in kernel calls converting their
        inputs: the calls raise SliceError, nothing is used after it is
        freed (issue 34)."""
        self.fresh_interpreter(CLOSE_WHILE_CONVERTING, "threads convert inputs")

    def test_with_and_default_context(self):
        with slicegen.Context() as context:
            kernel = context.compile("[::2]", (4,), np.int32)
        with self.assertRaises(slicegen.SliceError):
            kernel(np.zeros(4, np.int32))
        default = slicegen.default_context()
        self.assertIs(default, slicegen.default_context())


class Stores(unittest.TestCase):
    def test_each_setting(self):
        """stores= of each kind, on 1 and 3 threads, into outputs at every
        offset from a 64-byte boundary, gives NumPy's bytes; a bad value raises."""
        x = np.arange(8 * 1000, dtype=np.uint8).reshape(8, 1000)
        want = x[1:, 3:]
        for stores in ("auto", "cached", "streaming"):
            kernel = slicegen.compile("[1:, 3:]", x.shape, x.dtype, stores=stores)
            for shift in (0, 1, 17, 63):
                raw = np.zeros(want.size + 64, dtype=np.uint8)
                out = raw[shift:shift + want.size].reshape(want.shape)
                for threads in (1, 3):
                    out[...] = 0
                    kernel(x, out=out, threads=threads)
                    self.assertTrue(same(out, want), (stores, shift, threads))
        with self.assertRaises(slicegen.SliceError):
            slicegen.compile("[1:]", (4,), "u8", stores="fast")


if __name__ == "__main__":
    unittest.main()

"""bfloat16. With ml_dtypes its dtype is slicegen's bf16; without it, bf16
is refused (test_errors). Here a stand-in module named ml_dtypes, whose
bfloat16 is a 2-byte void type, reaches the same code paths: kernels move
bf16 bits, fill values round to bf16 in the library, and the command line
(reading bf16 as `<V2`, as ml_dtypes writes it) gives the same bytes."""
import os
import sys
import tempfile
import types
import unittest

from _common import SEED, cli, needs_cli, np, random_array, rng_for, same, slicegen
from test_ops import random_trt_slice


def bits(values):
    return np.array(values, dtype=np.uint16)


class Bf16(unittest.TestCase):
    def setUp(self):
        try:
            import ml_dtypes
            self.bf16 = np.dtype(ml_dtypes.bfloat16)
            self.fake = None
        except ImportError:
            self.fake = types.ModuleType("ml_dtypes")
            self.fake.bfloat16 = np.dtype("V2")
            sys.modules["ml_dtypes"] = self.fake
            self.bf16 = np.dtype("V2")
        slicegen._core._bf16_cache.clear()

    def tearDown(self):
        if self.fake is not None:
            del sys.modules["ml_dtypes"]
        slicegen._core._bf16_cache.clear()

    def as_bf16(self, u16):
        return np.ascontiguousarray(u16, dtype=np.uint16).view(self.bf16)

    def test_kernels_move_bits(self):
        for name in ("bf16", "bfloat16", self.bf16):
            kernel = slicegen.compile("[::-1, 1:]", (3, 4), name)
            self.assertEqual(kernel.dtype, self.bf16)
            self.assertIn("dtype bf16", kernel.plan)
            x = bits(np.arange(12).reshape(3, 4) * 0x1111)
            got = kernel(self.as_bf16(x), threads=2)
            self.assertEqual(got.dtype, self.bf16)
            self.assertTrue(same(got.view(np.uint16), np.ascontiguousarray(x[::-1, 1:])))
        with self.assertRaises(slicegen.SliceError):
            kernel(x)  # uint16 is not bf16

    def test_fill_values_round_to_bf16(self):
        x = self.as_bf16(bits([0x1234, 0x5678]))
        for fill, want in [(1.5, 0x3FC0), ("nan", 0x7FC0), (-0.0, 0x8000), (1.00390625, 0x3F80),
                           (1.01171875, 0x3F82), ("-inf", 0xFF80), (True, 0x3F80), (3, 0x4040), (None, 0)]:
            op = slicegen.TrtSlice([-1], [4], mode="fill", fill=fill)
            got = slicegen.compile(op, x.shape, "bf16")(x).view(np.uint16)
            self.assertEqual(got.tolist(), [want, 0x1234, 0x5678, want], f"fill {fill!r}")

    def test_emit(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.o")
            slicegen.emit("[1:]", (8, 8), "bf16", path, header=os.path.join(tmp, "k.h"), name="k")
            self.assertIn("k_OUTPUT_BYTES ((int64_t)112)", " ".join(open(os.path.join(tmp, "k.h")).read().split()))

    @needs_cli
    def test_against_cli(self):
        rng = rng_for("bf16")
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
            for case in range(40):
                shape = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 3)))
                x = self.as_bf16(random_array(rng, shape, np.uint16))
                with open(src, "wb") as f:
                    np.lib.format.write_array_header_1_0(f, {"descr": "<V2", "fortran_order": False, "shape": shape})
                    f.write(x.tobytes())
                op = random_trt_slice(rng, shape, np.float32)
                what = f"case {case} (SLICEGEN_SEED={SEED}): {op} on {shape} bf16"
                try:
                    got = slicegen.compile(op, shape, "bf16")(x)
                except slicegen.SliceError as e:
                    run = cli("run", *op.to_words(), "--in", src, "--out", dst, "--engine", "ref", check=False)
                    self.assertEqual(run.returncode, 2, f"{what}: {e}")
                    continue
                cli("run", *op.to_words(), "--in", src, "--out", dst, "--engine", "ref")
                want = np.load(dst)
                self.assertEqual(want.dtype.itemsize, 2)
                self.assertEqual(got.tobytes(), want.tobytes(), what)
                self.assertEqual(got.shape, want.shape, what)


if __name__ == "__main__":
    unittest.main()

"""What the tests share: the module under test, the seed, the command line,
the source tree, random arrays. Importing it skips the importing test module
when NumPy is missing.

SLICEGEN_LIBRARY  the libslicegen.so to test (else next to the module, else the system's)
SLICEGEN_CLI      the slicegen program: tests against `slicegen run --engine ref` (skipped without)
SLICEGEN_SEED     reproduces the random tests (the seed is printed)
SLICEGEN_CASES    random expressions against NumPy per run (default 2500)
"""
import os
import random
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import numpy as np
except ImportError:
    raise unittest.SkipTest("NumPy is not installed")

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
ROOT = os.path.dirname(PYTHON_DIR)

try:
    import slicegen
except ImportError as e:
    if "libslicegen" in str(e):
        raise
    sys.path.insert(0, PYTHON_DIR)
    import slicegen

SEED = int(os.environ.get("SLICEGEN_SEED", time.time_ns() % 2**32))
CASES = int(os.environ.get("SLICEGEN_CASES", 2500))
CLI = os.environ.get("SLICEGEN_CLI") or None
print(f"slicegen python tests: seed {SEED} (set SLICEGEN_SEED to reproduce), library "
      f"{slicegen.library_path}, command line {CLI or '(SLICEGEN_CLI not set)'}", file=sys.stderr)

needs_cli = unittest.skipUnless(
    CLI, "SLICEGEN_CLI is not set: comparisons with the command line (slicegen run --engine ref, plan, "
         "ir, emit) are skipped; set it to the slicegen program, e.g. build/cli/slicegen")

# Every type NumPy has without ml_dtypes, with the name the command line uses.
DTYPES = {"bool": np.bool_, "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
          "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
          "f16": np.float16, "f32": np.float32, "f64": np.float64}


def rng_for(name):
    """A random.Random for one test, from the run's seed and the test's name."""
    return random.Random(f"{SEED}:{name}")


def random_array(rng, shape, dtype):
    """Random bits of dtype (bool: 0 or 1); floats include NaNs, infinities,
    subnormals and signed zeros, which must move unchanged."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return np.array([rng.random() < 0.5 for _ in range(n)], dtype=np.bool_).reshape(shape)
    return np.frombuffer(rng.randbytes(n * dtype.itemsize), dtype=dtype).reshape(shape).copy()


def same(got, want):
    """Equal shape, type and bytes (NaN payloads included)."""
    return (isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype == want.dtype
            and np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes())


def cli(*args, check=True):
    """Runs the slicegen program; returns the CompletedProcess."""
    run = subprocess.run([CLI, *args], capture_output=True, text=True)
    if check and run.returncode != 0:
        raise AssertionError(f"slicegen {' '.join(args)}: exit {run.returncode}: {run.stderr.strip()}")
    return run


def cli_error(stderr):
    """The library's message in a `slicegen: error: ...` line."""
    line = stderr.strip()
    prefix = "slicegen: error: "
    return line[len(prefix):] if line.startswith(prefix) else line


class CliFiles(unittest.TestCase):
    """A test case with a scratch folder and the paths in.npy (src) and
    out.npy (dst) in it, for the command line's files."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, "in.npy")
        self.dst = os.path.join(self.tmp.name, "out.npy")

    def tearDown(self):
        self.tmp.cleanup()


# NumPy before 1.25 pads mode='wrap' with widths larger than the dimension
# in a way that does not repeat (numpy/numpy#22464, fixed by #22575):
# np.pad(np.arange(4), (5, 2), mode='wrap') starts 1, 0, 1, 2, 3, ... there,
# 3, 0, 1, 2, 3, ... since. The programs are checked against the fix.
WRAP_REPEATS = np.pad(np.arange(4), (5, 2), mode="wrap")[0] == 3


def _pad(array, pad_width, mode="constant", **kwargs):
    """np.pad, with mode='wrap' as NumPy 1.25 and later have it."""
    padded = np.pad(array, pad_width, mode, **kwargs)  # NumPy's checks and errors
    if mode != "wrap" or WRAP_REPEATS:
        return padded
    array = np.asarray(array)
    for axis, (before, after) in enumerate(np.broadcast_to(np.asarray(pad_width), (array.ndim, 2)).tolist()):
        if before or after:
            n = array.shape[axis]
            array = np.take(array, np.arange(-before, n + after) % n, axis=axis)
    return array


class _NumPy:
    """np for the programs: NumPy, its pad as _pad."""
    pad = staticmethod(_pad)

    def __getattr__(self, name):
        return getattr(np, name)


NUMPY = np if WRAP_REPEATS else _NumPy()

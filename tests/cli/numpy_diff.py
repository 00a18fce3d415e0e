"""Differential test of `slicegen run` against NumPy itself.

Random arrays of every type and random index expressions (integers,
slices with omitted, negative, out-of-range and huge bounds, None,
np.newaxis, ...) go through the command line; the output file must equal
NumPy's result in shape, type and bytes, and an expression NumPy rejects
with IndexError must exit with status 2. SLICEGEN_SEED reproduces a run.
Exits 77 (skipped) when NumPy is not installed.
usage: numpy_diff.py path/to/slicegen [cases]
"""
import os
import random
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("numpy: NumPy is not installed; skipped")
    sys.exit(77)

DTYPES = ["?", "i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8"]


def bound(rng, d):
    pick = rng.random()
    if pick < 0.1:
        return rng.choice([2**63 - 1, -(2**63), 10**30, -(10**30)])
    return rng.randint(-d - 3, d + 3)


def random_expr(rng, rank):
    items, consumed, ellipsis = [], 0, False
    while len(items) < 6 and rng.random() < 0.8:
        kind = rng.random()
        if kind < 0.1 and not ellipsis:
            items.append("...")
            ellipsis = True
        elif kind < 0.2:
            items.append(rng.choice(["None", "np.newaxis"]))
        elif kind < 0.35:
            items.append(str(rng.randint(-6, 6)))
            consumed += 1
        else:
            parts = [str(bound(rng, 6)) if rng.random() < 0.7 else "" for _ in range(2)]
            step = rng.choice(["", "", "1", "-1", "2", "-2", "3", "-3", "7", str(-(10**20))])
            items.append(":".join(parts) + (":" + step if step or rng.random() < 0.2 else ""))
            consumed += 1
    name = rng.choice(["", "x", "arr"])
    return name + "[" + (", ".join(items) or rng.choice(["...", "()"])) + "]"


def main():
    slicegen = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    seed = int(os.environ.get("SLICEGEN_SEED", time.time_ns() % 2**32))
    print(f"numpy: seed {seed} (set SLICEGEN_SEED to reproduce)")
    rng = random.Random(seed)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        src, dst = os.path.join(work, "in.npy"), os.path.join(work, "out.npy")
        for case in range(cases):
            rank = rng.randint(0, 4)
            shape = tuple(rng.randint(0, 5) for _ in range(rank))
            dtype = np.dtype(rng.choice(DTYPES))
            x = (np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) * 37 % 251).astype(dtype)
            np.save(src, x)
            expr = random_expr(rng, rank)
            try:
                want = eval("x" + expr[expr.index("["):])
                want = np.array(want, order="C")
            except IndexError:
                want = None
            if os.path.exists(dst):
                os.remove(dst)
            run = subprocess.run([slicegen, "run", expr, "--in", src, "--out", dst],
                                 capture_output=True, text=True)
            if want is None:
                ok = run.returncode == 2 and not os.path.exists(dst)
            else:
                got = np.load(dst) if run.returncode == 0 else None
                ok = (got is not None and got.dtype == want.dtype and got.shape == want.shape
                      and got.tobytes() == want.tobytes())
            if ok:
                passed += 1
            else:
                failed += 1
                print(f"FAIL case {case} (seed {seed}): x{expr} on shape {shape} {dtype}: "
                      f"exit {run.returncode} {run.stderr.strip()}", file=sys.stderr)
    print(f"numpy: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

"""NumPy's basic indexing, against NumPy itself.

Every form (integers, negative and out of range; slices with any start,
stop and step, negative, out of range and beyond 64 bits; None and
np.newaxis; Ellipsis; mixtures; 0-d inputs; empty dimensions) as an
expression string and as a Python index, through slicegen.slice and
through compiled kernels at every level, on 1-3 threads, with and without
out=, on contiguous and strided inputs. An index NumPy rejects must raise
SliceError. SLICEGEN_SEED reproduces a run, SLICEGEN_CASES sets its size.
"""
import unittest

from _common import CASES, DTYPES, SEED, np, random_array, rng_for, same, slicegen

HUGE = [2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**30, -(10**30)]
STEPS = [1, -1, 2, -2, 3, -3, 5, -7, 2**62, -(2**63), -(10**20), 10**20]


def random_shape(rng):
    rank = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5])
    return tuple(0 if rng.random() < 0.08 else rng.randint(1, 6) for _ in range(rank))


def random_bound(rng, d):
    pick = rng.random()
    if pick < 0.25:
        return None
    if pick < 0.32:
        return rng.choice(HUGE)
    return rng.randint(-d - 3, d + 3)


def random_index(rng, shape):
    """A list of index items, mostly valid for shape; sometimes not."""
    items, dim, ellipsis = [], 0, False
    count = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6])
    for _ in range(count):
        d = shape[dim] if dim < len(shape) else 4
        kind = rng.random()
        if dim >= len(shape) and kind >= 0.2 and rng.random() < 0.85:
            kind = 0.1  # mostly no more consuming items than dimensions
        if kind < 0.08 and (not ellipsis or rng.random() < 0.1):
            items.append(Ellipsis)
            ellipsis = True
            dim = max(dim, len(shape) - (count - len(items)))
        elif kind < 0.2:
            items.append(None)
        elif kind < 0.4:
            pick = rng.random()
            if pick < 0.04:
                items.append(rng.choice(HUGE))
            elif pick < 0.12 or d == 0:
                items.append(rng.randint(-d - 2, d + 1))
            else:
                items.append(rng.randint(-d, d - 1))
            dim += 1
        else:
            step = None if rng.random() < 0.4 else 0 if rng.random() < 0.01 else rng.choice(STEPS)
            items.append(slice(random_bound(rng, d), random_bound(rng, d), step))
            dim += 1
    return items


def render(rng, items):
    """An expression string for the items, in one of the spellings NumPy
    users write."""
    parts = []
    for item in items:
        if item is None:
            parts.append(rng.choice(["None", "np.newaxis", "numpy.newaxis"]))
        elif item is Ellipsis:
            parts.append("...")
        elif isinstance(item, slice):
            text = ":".join("" if b is None else str(b) for b in (item.start, item.stop))
            if item.step is not None:
                text += ":" + str(item.step)
            elif rng.random() < 0.2:
                text += ":"
            parts.append(text)
        else:
            parts.append(str(item))
    sep = rng.choice([", ", ",", " , "])
    body = sep.join(parts) if parts else "..."
    if len(parts) == 1 and rng.random() < 0.2:
        body += ","
    return rng.choice(["", "x", "arr"]) + "[" + body + "]"


def numpy_result(x, items):
    """x[items] as a C-contiguous array, or None if NumPy rejects it."""
    try:
        return np.array(x[tuple(items)], order="C")
    except (IndexError, ValueError, TypeError, OverflowError):  # NumPy 1: OverflowError for 2**63
        return None


def strided_copy(rng, x):
    """An array equal to x that is not C-contiguous (where x has any size)."""
    if x.ndim == 0 or x.size <= 1:
        return x
    if rng.random() < 0.5 and x.ndim >= 2:
        return np.ascontiguousarray(np.swapaxes(x, 0, 1)).swapaxes(0, 1)
    big = np.empty(x.shape[:-1] + (x.shape[-1] * 2,), x.dtype)
    view = big[..., ::2]
    view[...] = x
    return view


class NumpySemantics(unittest.TestCase):
    def check(self, case, x, items, spec, how, rng):
        want = numpy_result(x, items)
        what = f"case {case} (SLICEGEN_SEED={SEED}): x{spec if isinstance(spec, str) else items} " \
               f"on {x.shape} {x.dtype} via {how}"
        try:
            if how == "slice":
                got = slicegen.slice(x, spec)
            else:
                level, threads, use_out, strided = how
                kernel = slicegen.compile(spec, x.shape, x.dtype, opt_level=level)
                self.assertEqual(kernel.output_shape, want.shape if want is not None else None, what)
                out = np.empty(kernel.output_shape, x.dtype) if use_out else None
                got = kernel(strided_copy(rng, x) if strided else x, out=out, threads=threads)
                if use_out:
                    self.assertIs(got, out, what)
        except slicegen.SliceError as e:
            self.assertIsNone(want, f"{what}: SliceError {e}, NumPy gives shape "
                                    f"{None if want is None else want.shape}")
            self.assertEqual(len(str(e).splitlines()), 1, what)
            return "error"
        self.assertIsNotNone(want, f"{what}: NumPy rejects it, slicegen gives shape {got.shape}")
        self.assertTrue(same(got, want), f"{what}: got {got!r}, want {want!r}")
        return "ok"

    def test_random_expressions(self):
        rng = rng_for("numpy")
        counts = {"ok": 0, "error": 0}
        names = list(DTYPES)
        for case in range(CASES):
            shape = random_shape(rng)
            x = random_array(rng, shape, DTYPES[rng.choice(names)])
            items = random_index(rng, shape)
            spec = render(rng, items) if rng.random() < 0.7 else tuple(items)
            if rng.random() < 0.5:
                how = "slice"
            else:
                how = (rng.choice([0, 1, 2, 3]), rng.choice([1, 2, 3]), rng.random() < 0.3, rng.random() < 0.3)
            counts[self.check(case, x, items, spec, how, rng)] += 1
        print(f"numpy: {CASES} random cases (seed {SEED}): {counts['ok']} equal to NumPy, "
              f"{counts['error']} rejected as NumPy rejects them")
        self.assertGreater(counts["ok"], CASES // 2)
        self.assertGreater(counts["error"], 0)

    def test_every_form(self):
        """Each form by name, on a 3-d array and on a 0-d one."""
        rng = rng_for("forms")
        x = random_array(rng, (4, 5, 6), np.int32)
        s = np.s_
        forms = [
            s[1], s[-1], s[-4], s[3, -5], s[0, 0, 0], s[-1, -1, -1],
            s[:], s[1:], s[:3], s[1:3], s[::2], s[::-1], s[3:0:-1], s[-1::-2], s[:-10], s[10:],
            s[-10:10], s[2:2], s[3:1], s[::-3], s[1:5:7], s[-2**63:2**63 - 1:2**62], s[::-(2**63)],
            s[10**30:-(10**30):-1], s[None], s[..., None], s[None, ..., None], s[...], s[..., 0],
            s[0, ...], s[1, ..., 2], s[:, None, ::-1, 1], s[np.newaxis, 2, np.newaxis, :, -1],
            s[::2, ::-2, 1::3], s[-1, :0], s[:, :, :, None], (), s[np.int64(2)], s[0:np.int8(-1)],
        ]
        rejected = [s[4], s[-5], s[0, 5], s[0, 0, 0, 0], s[..., ...], s[::0], s[10**20]]
        for items in forms:
            items = items if isinstance(items, tuple) else (items,)
            for spec in (items, render(rng, items)):
                self.assertEqual(self.check("form", x, items, spec, "slice", rng), "ok")
                self.assertEqual(self.check("form", x, items, spec, (0, 2, True, True), rng), "ok")
        for items in rejected:
            items = items if isinstance(items, tuple) else (items,)
            self.assertEqual(self.check("rejected", x, items, render(rng, items), "slice", rng), "error")
        scalar = np.array(7.5, dtype=np.float64)
        for spec, items in [("[...]", [Ellipsis]), ("[None]", [None]), ("[None, ..., None]", [None, Ellipsis, None]),
                            ("[()]", None), ("x[...,]", [Ellipsis])]:
            if items is None:
                got = slicegen.slice(scalar, ())
                self.assertTrue(same(got, np.array(scalar[()])))
                self.assertTrue(same(slicegen.slice(scalar, spec), np.array(scalar[()])))  # as NumPy's x[()]
                continue
            self.assertEqual(self.check("0-d", scalar, items, spec, "slice", rng), "ok")
        for spec in ("[0]", "[:]", "[..., 0]"):
            with self.assertRaises(slicegen.SliceError):
                slicegen.slice(scalar, spec)

    def test_empty_dimensions(self):
        rng = rng_for("empty")
        for shape in [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0)]:
            x = random_array(rng, shape, np.float32)
            for spec in ["[:]", "[::-1]", "[1:]", "[..., None]", "[:, 0]", "[0]", "[-1:, ::2]", "[None, 5:]"]:
                items = eval("np.s_" + spec)
                items = list(items) if isinstance(items, tuple) else [items]
                self.check("empty", x, items, spec, "slice", rng)
                self.check("empty", x, items, spec, (2, 3, False, False), rng)


if __name__ == "__main__":
    unittest.main()

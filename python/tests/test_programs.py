"""NumPy programs against NumPy itself: chains of basic indices
(x[1:, ::2][:, ::-1]), np.concatenate, np.roll, np.flip and np.pad, nested
in any way, over one input x, each compiled by slicegen.compile into one
kernel (docs: DESIGN "Several slices, one kernel").

The generator builds random program trees (at most three calls nested,
indices anywhere) on random shapes (ranks 0-6, small dimensions, 0 and 1
included) of every element type but bfloat16. Each node is checked on a zero array of its operand's
shape as it is made, and a node NumPy rejects is mostly made again, so
that most programs are valid; concatenates are made of parts that share
their shapes (space-to-depth as YOLO's Focus, pieces of one operand cut
along the axis, flips, rolls and pads of one operand), with now and then
independent parts. A program NumPy rejects must raise SliceError (at
compile or at the call); a valid one must give NumPy's result byte for
byte on the JIT (opt_level 0 or 2, 1-3 threads) and on the reference
interpreter. SLICEGEN_SEED reproduces a run, SLICEGEN_CASES scales its
size (CASES // 4 programs)."""
import os
import unittest

from _common import (CASES, DTYPES, NUMPY, SEED, CliFiles, cli, cli_error, needs_cli, np, random_array, rng_for,
                     same, slicegen)
from test_numpy_semantics import random_index, render

PROGRAM_CASES = max(CASES // 4, 40)
MAX_ELEMENTS = 1500  # of the input and of every value a program makes
NUMPY_ERRORS = (ValueError, IndexError, TypeError, OverflowError)  # AxisError is a ValueError and an IndexError;
# OverflowError: NumPy 1 for an index of 2**63
PROGRAM_DTYPES = {name: t for name, t in DTYPES.items() if name != "bf16"}


def _programs_work():
    try:
        slicegen.compile("np.flip(x, axis=0)", (3,), "f32")
    except slicegen.SliceError as e:
        if e.status in ("spec", "unsupported"):
            return False
        raise
    return True


PROGRAMS = _programs_work()
needs_programs = unittest.skipUnless(PROGRAMS, "the library takes no NumPy programs yet "
                                               "(slicegen.compile('np.flip(x, axis=0)', (3,), 'f32') fails)")


def numpy_eval(text, x):
    """The program's result as an array, or the exception NumPy raises."""
    try:
        return np.asarray(eval(text, {"np": NUMPY, "numpy": NUMPY, "x": x}))
    except NUMPY_ERRORS as e:
        return e


def show(a):
    """An array on one line, its middle left out where it is long."""
    text = np.array2string(a, threshold=40, edgeitems=3, max_line_width=10**6, separator=", ")
    return f"{' '.join(text.split())} ({a.shape} {a.dtype})"


def size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Node:
    """A program's text and the zero array NumPy makes of it from a zero
    input (None: NumPy rejects it)."""

    def __init__(self, text, zero):
        self.text, self.zero = text, zero

    @property
    def ok(self):
        return self.zero is not None

    @property
    def shape(self):
        return self.zero.shape

    @property
    def rank(self):
        return self.zero.ndim


def _made(text, operands, make):
    """Node(text) with make(*zero operands) as its value; None where an
    operand or make is rejected, or where the value is too large."""
    if any(not o.ok for o in operands):
        return Node(text, None)
    try:
        zero = np.asarray(make(*[o.zero for o in operands]))
    except NUMPY_ERRORS:
        return Node(text, None)
    if zero.size > MAX_ELEMENTS:
        raise _TooLarge
    return Node(text, zero)


class _TooLarge(Exception):
    pass


def _tuple_text(values):
    return "(" + ", ".join(map(str, values)) + ("," if len(values) == 1 else "") + ")"


class ProgramGenerator:
    """Random programs over x of one shape. valid_bias: the chance that a
    node NumPy rejects is made again (up to 6 times); a node with an empty
    value is made again with a chance of 0.6, one too large always."""

    def __init__(self, rng, shape, dtype, valid_bias=0.85):
        self.rng, self.dtype, self.valid_bias = rng, np.dtype(dtype), valid_bias
        self.x = Node("x", np.zeros(shape, np.uint8))

    def program(self, depth=3):
        """A random program (a Node): 1 to depth calls nested, never x alone."""
        for _ in range(20):
            try:
                node = self.node(self.x, self.rng.randint(1, depth))
            except _TooLarge:
                continue
            if node.text != "x":
                return node
        return self.index(self.x)

    # -- one node, made again while NumPy rejects it (mostly) --

    def retried(self, make):
        node = None
        for _ in range(6):
            try:
                node = make()
            except _TooLarge:
                continue
            if node.ok and (node.zero.size > 0 or self.rng.random() < 0.4) or \
                    not node.ok and self.rng.random() > self.valid_bias:
                return node
        if node is None:
            raise _TooLarge
        return node

    def node(self, operand, depth):
        """A program over operand (a Node) of at most depth calls nested
        (np.concatenate, np.roll, np.flip, np.pad), with indices anywhere."""
        rng = self.rng
        if depth <= 0:
            return operand if rng.random() < 0.6 else self.retried(lambda: self.index(operand))
        kind = rng.choices(["index", "flip", "roll", "pad", "concat"], [3, 2, 2, 3, 3])[0]
        inner = self.node(operand, depth - 1) if kind != "concat" else None
        if kind == "index":
            return self.retried(lambda: self.index(inner))
        if kind == "flip":
            return self.retried(lambda: self.flip(inner))
        if kind == "roll":
            return self.retried(lambda: self.roll(inner))
        if kind == "pad":
            return self.retried(lambda: self.pad(inner))
        return self.retried(lambda: self.concat(operand, depth))

    # -- the spellings --

    def seq(self, values):
        """A tuple of numbers as text, or now and then a list."""
        return _tuple_text(values) if self.rng.random() < 0.8 else "[" + ", ".join(map(str, values)) + "]"

    def pad_call(self, p, widths, rest=""):
        """np.pad(p, widths[, rest]); widths now and then a list of lists, or
        named pad_width; mode='...' in rest now and then given by position."""
        rng = self.rng
        if rng.random() < 0.15:
            widths = widths.replace("(", "[").replace(")", "]")
        if rng.random() < 0.1:
            widths = "pad_width=" + widths
        elif rest.startswith("mode=") and rng.random() < 0.15:
            mode, _, tail = rest.partition(", ")
            rest = ", ".join([mode[len("mode="):]] + ([tail] if tail else []))
        return f"np.pad({p.text}, {widths}{', ' + rest if rest else ''})"

    # -- the operations --

    def index(self, p, items=None):
        """p[items] (random items where None), spelled as test_numpy_semantics
        spells indices."""
        rng = self.rng
        if not p.ok:
            return Node(p.text + "[::-1]", None)
        if items is None:
            items = random_index(rng, p.shape) if rng.random() < 0.3 else self.tame_index(p.shape)
        body = render(rng, items)
        body = body[body.index("["):]
        return _made(p.text + body, [p], lambda z: z[tuple(items)])

    def tame_index(self, shape):
        """Index items that mostly keep some of each dimension: bounds in
        range, small steps, an integer or a None now and then, an Ellipsis
        for the axes left out before the last ones."""
        rng = self.rng
        items = []
        for d in shape[:rng.randint(0, len(shape))] if rng.random() < 0.8 else shape:
            pick = rng.random()
            if pick < 0.1:
                items.append(None)
            if pick < 0.22 and d > 0:
                items.append(rng.randint(-d, d - 1))
                continue
            step = rng.choice([None, None, 1, 2, -1, -1, -2, 3, -3])
            if d == 0 or rng.random() < 0.1:  # anything
                start = None if rng.random() < 0.4 else rng.randint(-d - 1, d + 1)
                stop = None if rng.random() < 0.5 else rng.randint(-d - 1, d + 1)
            else:  # a range [lo, hi) that is not empty, its bounds written either way
                lo = rng.randint(0, d - 1) if rng.random() < 0.6 else 0
                hi = rng.randint(lo + 1, d) if rng.random() < 0.6 else d
                if (step or 1) > 0:
                    start, stop = (None if lo == 0 and rng.random() < 0.5 else lo), (None if hi == d else hi)
                else:
                    start, stop = (None if hi == d and rng.random() < 0.5 else hi - 1), (None if lo == 0 else lo - 1)
                start = start - d if start is not None and rng.random() < 0.3 else start
                stop = stop - d if stop is not None and stop > 0 and rng.random() < 0.3 else stop
            items.append(slice(start, stop, step))
        if items and rng.random() < 0.3:
            cut = rng.randint(0, len(items))
            items = items[:cut] + [Ellipsis] + items[len(items) - rng.randint(0, len(items) - cut):] \
                if rng.random() < 0.5 else [Ellipsis] + items
        return items

    def axis(self, rank, valid=0.93):
        """An axis for rank: mostly in range, negative now and then."""
        rng = self.rng
        if rank == 0 or rng.random() > valid:
            return rng.choice([rank, -rank - 1, rank + 1, 0, -1])
        a = rng.randrange(rank)
        return a - rank if rng.random() < 0.3 else a

    def axes(self, rank, count):
        rng = self.rng
        if rank > 0 and count <= rank and rng.random() < 0.95:
            picked = rng.sample(range(rank), count)
            return [a - rank if rng.random() < 0.3 else a for a in picked]
        return [self.axis(rank) for _ in range(count)]

    def flip(self, p):
        rng = self.rng
        r = p.rank if p.ok else 1
        pick = rng.random()
        if pick < 0.08:
            return _made(f"np.flip({p.text})", [p], np.flip)
        if pick < 0.16:
            return _made(f"np.flip({p.text}, axis=None)", [p], lambda z: np.flip(z, axis=None))
        if pick < 0.55 or r < 2:
            a = self.axis(r)
            text = f"np.flip({p.text}, {a})" if rng.random() < 0.3 else f"np.flip({p.text}, axis={a})"
            return _made(text, [p], lambda z: np.flip(z, a))
        axes = tuple(self.axes(r, rng.randint(1, min(r, 3)) if rng.random() < 0.97 else 0))
        return _made(f"np.flip({p.text}, axis={self.seq(axes)})", [p], lambda z: np.flip(z, axes))

    def shift(self, d, huge=False):
        """A shift for a dimension d; huge: now and then near the limits of
        64 bits (not where NumPy adds several shifts of one axis)."""
        rng = self.rng
        pick = rng.random()
        if pick < 0.05 and huge:
            return rng.choice([2**62, -(2**62), 2**63 - 1, -(2**63) + 1, 10**15])
        if pick < 0.3:
            return rng.randint(-3 * d - 5, 3 * d + 5)
        return rng.randint(-d - 1, d + 1)

    def roll(self, p):
        rng = self.rng
        r = p.rank if p.ok else 1
        pick = rng.random()
        if pick < 0.6 or r < 2:
            a = self.axis(r)
            s = self.shift(p.shape[a] if p.ok and -r <= a < r else 3, huge=True)
            text = rng.choice([f"np.roll({p.text}, {s}, {a})", f"np.roll({p.text}, shift={s}, axis={a})"]) \
                if rng.random() < 0.3 else f"np.roll({p.text}, {s}, axis={a})"
            return _made(text, [p], lambda z: np.roll(z, s, axis=a))
        count = rng.randint(1, min(r, 3))
        axes = tuple(self.axes(r, count))
        dims = [p.shape[a] if p.ok and -r <= a < r else 3 for a in axes]
        if pick < 0.75:  # one shift for every axis
            s = self.shift(min(dims))
            return _made(f"np.roll({p.text}, {s}, axis={self.seq(axes)})", [p],
                         lambda z: np.roll(z, s, axis=axes))
        if pick < 0.97:
            shifts = tuple(self.shift(d) for d in dims)
        else:  # as many shifts as axes, or not (NumPy rejects that when both have several)
            shifts = tuple(self.shift(3) for _ in range(rng.choice([1, 2, 3, 4])))
        return _made(f"np.roll({p.text}, {self.seq(shifts)}, axis={self.seq(axes)})", [p],
                     lambda z: np.roll(z, shifts, axis=axes))

    def fill(self):
        """constant_values that the element type holds exactly (NumPy casts
        others as C casts, with wraparound and truncation)."""
        rng, dt = self.rng, self.dtype
        if dt == np.bool_:
            return rng.choice(["0", "1", "True", "False"]) if rng.random() < 0.2 else rng.choice(["0", "1"])
        if dt.kind in "iu":
            info = np.iinfo(dt)
            return str(rng.choice([0, 1, 7, -1, -5, 100, int(info.max), int(info.min)]
                                  if dt.kind == "i" else [0, 1, 7, 100, int(info.max)]))
        return rng.choice(["0", "1", "-1", "0.5", "-2.25", "3.0", "-0.0", "1e-3" if dt != np.float16 else "0.25",
                           "100"])

    def widths(self, p, mode):
        """A pad_width for p (text and value): int, (b, a), ((b0, a0), ...),
        ((b, a),), ((w0,), (w1,), ...); mostly small, now and then larger than
        the dimension (reflect, symmetric and wrap then repeat), mostly on
        one or two axes of an operand of higher rank."""
        rng = self.rng
        r = p.rank if p.ok else 1
        shape = p.shape if p.ok else (3,)
        padded = [rng.random() < (0.7 if r <= 2 else 0.35) for _ in range(r)]

        def width(d, on=True):
            if not on:
                return 0
            pick = rng.random()
            if pick < 0.015:
                return -rng.randint(1, 2)
            if pick < 0.2:
                return rng.randint(d, 3 * d + 3)
            return rng.randint(0, 3)

        pick = rng.random()
        if pick < 0.12 or r == 0:
            w = width(min(shape) if shape else 2, True) if rng.random() < 0.5 else rng.randint(0, 2)
            return str(w), w
        if pick < 0.22:
            b, a = rng.randint(0, 2), rng.randint(0, 2)
            return f"({b}, {a})", (b, a)
        if pick < 0.27:
            b, a = rng.randint(0, 3), rng.randint(0, 3)
            return f"(({b}, {a}),)", ((b, a),)
        if pick < 0.34:
            ws = tuple((width(d, on),) for d, on in zip(shape, padded))
            return "(" + ", ".join(f"({w[0]},)" for w in ws) + ("," if r == 1 else "") + ")", ws
        rows = r if rng.random() < 0.98 else rng.choice([r + 1, max(r - 1, 2)])
        ws = tuple((width(shape[i] if i < r else 2, i >= r or padded[i]),
                    width(shape[i] if i < r else 2, i >= r or padded[i])) for i in range(rows))
        return "(" + ", ".join(f"({b}, {a})" for b, a in ws) + ("," if rows == 1 else "") + ")", ws

    def pad(self, p, mode=None):
        rng = self.rng
        if mode is None:
            mode = rng.choices(["constant", "edge", "reflect", "symmetric", "wrap"], [4, 2, 2, 2, 2])[0]
        text, ws = self.widths(p, mode)
        if mode == "constant":
            pick = rng.random()
            if pick < 0.2:
                return _made(self.pad_call(p, text), [p], lambda z: np.pad(z, ws))
            if pick < 0.35:
                return _made(self.pad_call(p, text, "mode='constant'"), [p], lambda z: np.pad(z, ws))
            v = self.fill()
            kw = f"mode='constant', constant_values={v}" if rng.random() < 0.8 else f"constant_values={v}"
            return _made(self.pad_call(p, text, kw), [p],
                         lambda z: np.pad(z, ws, mode="constant", constant_values=eval(v)))
        quote = rng.choice(["'", '"'])
        if rng.random() < 0.01:  # NumPy takes constant_values for mode='constant' only
            return _made(self.pad_call(p, text, f"mode={quote}{mode}{quote}, constant_values=1"), [p],
                         lambda z: np.pad(z, ws, mode=mode, constant_values=1))
        return _made(self.pad_call(p, text, f"mode={quote}{mode}{quote}"), [p], lambda z: np.pad(z, ws, mode=mode))

    def concat_text(self, parts, axis, spelling):
        """np.concatenate of a list (or now and then a tuple) of the parts."""
        body = ", ".join(q.text for q in parts)
        body = f"[{body}]" if self.rng.random() < 0.8 else f"({body}{',' if len(parts) == 1 else ''})"
        if spelling == "default":
            return f"np.concatenate({body})"
        if spelling == "positional":
            return f"np.concatenate({body}, {axis})"
        return f"np.concatenate({body}, axis={axis})"

    def concat(self, operand, depth):
        """np.concatenate (depth calls nested at most, itself included) of
        parts that share their shapes but along the axis, mostly: made of one
        operand p, each through a call (where depth leaves room) or an index."""
        rng = self.rng
        calls = 1 if depth >= 2 and rng.random() < 0.75 else 0  # in each part
        p = self.node(operand, depth - 1 - calls) if rng.random() < 0.7 else operand
        if not p.ok:
            return Node(f"np.concatenate([{p.text}, {p.text}])", None)
        r = p.rank
        spelling = rng.choices(["axis", "positional", "default"], [6, 2, 1])[0]
        axis = self.axis(r, valid=0.96) if spelling != "default" else 0
        a = axis % r if r and -r <= axis < r else None  # the axis counted from 0, where valid
        pattern = rng.choices(["focus", "pieces", "transforms", "independent"], [3, 3, 5, 1])[0]
        if pattern == "focus" and r >= 1:
            parts = self.focus(p)
        elif pattern == "pieces" and a is not None:
            parts = self.pieces(p, a)
        elif pattern == "independent":
            parts = [self.node(operand, depth - 1) for _ in range(rng.randint(1, 3))]
        else:
            parts = [self.transform(p, a, calls) for _ in range(rng.randint(1, 4))]
        return _made(self.concat_text(parts, axis, spelling), parts,
                     lambda *zs: np.concatenate(list(zs), axis=axis))

    def focus(self, p):
        """p[..., i::k, j::m] for every offset (YOLO's Focus, space to depth),
        on one or two axes (the last ones, or any)."""
        rng = self.rng
        r = p.rank
        axes = sorted(rng.sample(range(r), min(r, rng.choice([1, 2, 2]))))
        steps = [rng.choice([2, 2, 3]) if rng.random() < 0.9 else -2 for _ in axes]
        offsets = [[]]
        for k in steps:
            offsets = [o + [i] for o in offsets for i in range(abs(k))]
        if len(offsets) > 4:
            offsets = rng.sample(offsets, 4)
        last = axes == list(range(r - len(axes), r)) and rng.random() < 0.7
        parts = []
        for off in offsets:
            chosen = {ax: slice(o if k > 0 else -1 - o, None, k) for ax, o, k in zip(axes, off, steps)}
            if last:
                items = [Ellipsis] + [chosen[ax] for ax in axes]
            else:
                items = [chosen.get(i, slice(None)) for i in range(max(axes) + 1)]
            parts.append(self.index(p, items))
        return parts

    def pieces(self, p, a):
        """Pieces of p along axis a (p[..., k:], p[..., :k] as a roll; any
        ranges, overlapping, in any order)."""
        rng = self.rng
        d = p.shape[a]
        cuts = sorted(rng.randint(0, d) for _ in range(rng.randint(1, 2)))
        bounds = [0] + cuts + [d]
        ranges = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
        rng.shuffle(ranges)
        if rng.random() < 0.3:
            ranges.append((rng.randint(-d - 1, d), rng.randint(-d - 1, d + 1)))
        parts = []
        for b, e in ranges:
            step = None if rng.random() < 0.8 else rng.choice([2, -1])
            sl = slice(b, e, step) if step != -1 else slice(e - 1 if e > 0 else None, b - 1 if b > 0 else None, -1)
            if rng.random() < 0.6:
                items = [slice(None)] * a + [sl]
            else:
                items = [Ellipsis, sl] + [slice(None)] * (p.rank - a - 1)
            parts.append(self.index(p, items))
        return parts

    def transform(self, p, a, calls):
        """p through something that keeps its shape (or changes it along the
        concatenation axis a only): an index, or a call where calls is 1."""
        rng = self.rng
        r = p.rank
        pick = rng.random() if calls else rng.choice([0.1, 0.6, 0.9])
        if pick < 0.15 or r == 0:
            return p
        if pick < 0.35:
            return self.retried(lambda: self.flip(p))
        if pick < 0.55:
            return self.retried(lambda: self.roll(p))
        if pick < 0.65:
            return self.index(p, [slice(None, None, -1)] * rng.randint(1, r))
        if pick < 0.75 and a is not None:
            b, e = rng.randint(0, 3), rng.randint(0, 3)
            mode = rng.choice(["constant", "edge", "reflect", "symmetric", "wrap"])
            ws = tuple((b, e) if i == a else (0, 0) for i in range(r))
            text = "(" + ", ".join(f"({x}, {y})" for x, y in ws) + ("," if r == 1 else "") + ")"
            return _made(f"np.pad({p.text}, {text}, mode='{mode}')", [p], lambda z: np.pad(z, ws, mode=mode))
        if pick < 0.85:  # pad each axis by one, then cut it away again
            mode = rng.choice(["constant", "edge", "reflect", "symmetric", "wrap"])
            q = _made(f"np.pad({p.text}, 1, mode='{mode}')", [p], lambda z: np.pad(z, 1, mode=mode))
            return self.index(q, [slice(1, -1)] * r)
        if a is not None:
            d = p.shape[a]
            return self.index(p, [slice(None)] * a + [slice(rng.randint(0, d), None)])
        return self.retried(lambda: self.flip(p)) if calls else self.index(p, [Ellipsis, slice(None, None, -1)])


def random_shape(rng):
    """Ranks 0-6, dimensions 0-6 (0 and 1 often), at most MAX_ELEMENTS elements."""
    while True:
        rank = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6])
        shape = tuple(rng.choice([1, 1, 2, 2, 3, 3, 4, 4, 5, 6]) if rng.random() > 0.04 else 0
                      for _ in range(rank))
        if size(shape) <= MAX_ELEMENTS // 3:
            return shape


class Programs(unittest.TestCase):
    def run_program(self, text, x, level, threads, what):
        """The program on slicegen's JIT and reference interpreter against
        NumPy: "ok", or where both reject it "compile error" or "call error"
        (where slicegen raises)."""
        want = numpy_eval(text, x)
        where = "compile error"
        try:
            kernel = slicegen.compile(text, x.shape, x.dtype, opt_level=level)
            if isinstance(want, np.ndarray):
                self.assertEqual(kernel.output_shape, want.shape, f"{what}: output shape")
            where = "call error"
            got = kernel(x, threads=threads)
            ref = kernel.reference(x)
        except slicegen.SliceError as e:
            self.assertIsInstance(want, Exception, f"{what}: SliceError ({e}), NumPy gives shape "
                                                   f"{getattr(want, 'shape', None)}")
            self.assertEqual(len(str(e).splitlines()), 1, f"{what}: {e}")
            return where
        self.assertNotIsInstance(want, Exception, f"{what}: NumPy raises {type(want).__name__} ({want}), "
                                                  f"slicegen gives shape {got.shape}")
        self.assertTrue(same(got, want), f"{what}: JIT got {show(got)}, NumPy {show(want)}")
        self.assertTrue(same(ref, want), f"{what}: reference got {show(ref)}, NumPy {show(want)}")
        return "ok"

    @needs_programs
    def test_random_programs(self):
        rng = rng_for("programs")
        counts = {"ok": 0, "compile error": 0, "call error": 0}
        kinds = {"index": "[", "concatenate": "np.concatenate", "roll": "np.roll", "flip": "np.flip", "pad": "np.pad"}
        with_kind = dict.fromkeys(kinds, 0)
        names = list(PROGRAM_DTYPES)
        for case in range(PROGRAM_CASES):
            shape = random_shape(rng)
            dtype = PROGRAM_DTYPES[rng.choice(names)]
            x = random_array(rng, shape, dtype)
            text = ProgramGenerator(rng, shape, dtype).program().text
            level, threads = rng.choice([0, 2]), rng.choice([1, 2, 3])
            what = (f"program {case} (SLICEGEN_SEED={SEED}): {text} on {shape} {np.dtype(dtype)}, "
                    f"opt_level {level}, {threads} threads")
            counts[self.run_program(text, x, level, threads, what)] += 1
            for kind, word in kinds.items():
                with_kind[kind] += word in text
        errors = counts["compile error"] + counts["call error"]
        print(f"programs: {PROGRAM_CASES} random programs (seed {SEED}): {counts['ok']} equal to NumPy on the JIT "
              f"and the reference, {errors} rejected as NumPy rejects them ({counts['compile error']} at compile, "
              f"{counts['call error']} at the call); programs with "
              + ", ".join(f"{k} {n}" for k, n in with_kind.items()))
        self.assertGreater(counts["ok"], PROGRAM_CASES * 7 // 10)
        if PROGRAM_CASES >= 200:  # about 1 program in 11 is rejected: 40 programs draw none 1 time in 40
            self.assertGreater(errors, 0)

    @needs_programs
    def test_named_programs(self):
        """The contract's examples and the patterns the generator aims at,
        on fixed shapes."""
        rng = rng_for("named")
        programs = [
            ("np.concatenate([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], axis=1)",
             (2, 3, 4, 6)),
            ("np.pad(x[1:, ::-1], ((1, 2), (0, 3)), mode='reflect')[::2]", (4, 5)),
            ("np.roll(np.flip(x, 0), 3, axis=1)", (3, 4)),
            ("x[1:, ::2][:, ::-1]", (5, 6)),
            ("x[::-1][2:]", (5,)),
            ("np.concatenate([x[3:], x[:3]], axis=0)", (7, 2)),
            ("np.concatenate([x, np.flip(x, axis=-1)], axis=-1)", (2, 5)),
            ("np.roll(x, (1, -7), axis=(0, 1))", (3, 4)),
            ("np.roll(x, 2, axis=(0, 0))", (5, 2)),
            ("np.roll(x, (1, 2), axis=1)", (2, 5)),
            ("np.flip(x)", (2, 3, 4)),
            ("np.flip(x, axis=None)", ()),
            ("np.flip(x, axis=(0, -1))", (2, 3, 4)),
            ("np.pad(x, 2)", (2, 3)),
            ("np.pad(x, (1, 2), mode='edge')", (2, 3)),
            ("np.pad(x, ((0, 9), (7, 1)), mode='reflect')", (3, 2)),
            ("np.pad(x, ((10, 0),), mode='symmetric')", (3,)),
            ("np.pad(x, ((5, 11),), mode='wrap')", (3,)),
            ("np.pad(x, ((2,), (1,)), mode='constant', constant_values=1)", (2, 2)),
            ("np.pad(x, 3, mode='reflect')", (1, 2)),
            # NumPy pads reflect and symmetric widths beyond the dimension in
            # rounds, each mirroring all that the rounds before made (the other
            # side's pad included): where one side needs more rounds than the
            # other, that side does not repeat with the period of the axis
            ("np.pad(x, (1, 8), mode='reflect')", (3,)),  # NumPy: 1 0 1 2 1 0 1 2 1 0 1 0
            ("np.pad(x, ((8, 1), (0, 0)), mode='reflect')", (3, 2)),
            ("np.pad(x, (1, 8), mode='symmetric')", (2,)),  # NumPy: 0 0 1 1 0 0 1 1 0 0 0
            ("np.pad(x, (5, 2), mode='wrap')", (4,)),  # 3 0 1 2 3 0 1 2 3 0 1 (NumPy 1.25 and later)
            ("np.pad(x, 0, mode='wrap')", (0, 2)),
            ("np.pad(x, ((1, 1), (0, 0)), mode='constant', constant_values=1)", (0, 3)),
            ("np.concatenate([np.pad(x, ((1, 0), (0, 0)), mode='edge'), np.roll(x, -1, 0)[:, ::-1]], axis=0)", (3, 3)),
            ("np.flip(np.concatenate([x[0], x[-1]]), 0)[1:]", (3, 4)),
        ]
        for i, (text, shape) in enumerate(programs):
            for name in ("f32", "u8", "bool", "f16", "i64"):
                x = random_array(rng, shape, PROGRAM_DTYPES[name])
                want = numpy_eval(text, x)
                self.assertIsInstance(want, np.ndarray, text)
                what = f"{text} on {shape} {name} (SLICEGEN_SEED={SEED})"
                self.assertEqual(self.run_program(text, x, 2 if i % 3 else 0, 1 + i % 3, what), "ok")

    @needs_programs
    def test_errors_have_numpy_reasons(self):
        """Programs NumPy rejects: SliceError, with NumPy's reason in the message."""
        rng = rng_for("errors")
        cases = [
            ("np.concatenate([x[:, :2], x[:, :3]], axis=0)", (4, 5),
             "all the input array dimensions except for the concatenation axis must match exactly"),
            ("np.concatenate([x, x[None]], axis=0)", (4, 5), "must have same number of dimensions"),
            ("np.concatenate([x, x], axis=2)", (4, 5), "is out of bounds for array of dimension"),
            ("np.concatenate([x, x], axis=-3)", (4, 5), "is out of bounds for array of dimension"),
            ("np.flip(x, axis=3)", (2, 3), "is out of bounds for array of dimension"),
            ("np.flip(x[0], axis=-2)", (2, 3), "is out of bounds for array of dimension"),
            ("np.roll(x, 1, axis=2)", (2, 3), "is out of bounds for array of dimension"),
            ("np.roll(np.flip(x, 0), 1, axis=(0, 5))", (2, 3), "is out of bounds for array of dimension"),
            ("np.pad(x, ((1, -1), (0, 0)))", (2, 3), "index can't contain negative values"),
            ("np.pad(x, -2, mode='edge')", (2, 3), "index can't contain negative values"),
            ("np.pad(x[:0], 1, mode='edge')", (2, 3), "can't extend empty axis"),
            ("np.pad(x, ((0, 0), (1, 0)), mode='reflect')", (2, 0), "can't extend empty axis"),
            ("np.pad(x[:, 3:], ((0, 0), (0, 2)), mode='wrap')", (2, 3), "can't extend empty axis"),
            ("np.pad(x, ((0, 1),), mode='symmetric')[1:]", (0,), "can't extend empty axis"),
        ]
        for text, shape, reason in cases:
            x = random_array(rng, shape, np.float32)
            want = numpy_eval(text, x)
            self.assertIsInstance(want, Exception, text)
            self.assertIn(reason, str(want), f"{text}: NumPy's own message")
            with self.assertRaises(slicegen.SliceError, msg=f"{text} on {shape}") as caught:
                slicegen.compile(text, shape, "f32")(x)
            message = str(caught.exception)
            self.assertIn(reason, message, f"{text} on {shape}: NumPy says {want}")
            self.assertEqual(len(message.splitlines()), 1, message)


@needs_cli
@needs_programs
class ProgramsCli(CliFiles):
    def test_run_and_plan(self):
        rng = rng_for("programs-cli")
        programs = [
            ("np.concatenate([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], axis=1)",
             (1, 2, 4, 4), "f32"),
            ("np.pad(x[1:, ::-1], ((1, 2), (0, 3)), mode='reflect')[::2]", (4, 3), "i16"),
            ("np.roll(np.flip(x, 0), 3, axis=1)", (2, 5), "u8"),
            ("np.pad(x, 2, mode='constant', constant_values=1)", (3,), "bool"),
        ]
        for _ in range(8):  # and random valid ones
            shape = random_shape(rng)
            name = rng.choice(list(PROGRAM_DTYPES))
            for _ in range(20):
                text = ProgramGenerator(rng, shape, PROGRAM_DTYPES[name]).program().text
                if isinstance(numpy_eval(text, np.zeros(shape, PROGRAM_DTYPES[name])), np.ndarray):
                    programs.append((text, shape, name))
                    break
        for text, shape, name in programs:
            x = random_array(rng, shape, PROGRAM_DTYPES[name])
            want = numpy_eval(text, x)
            np.save(self.src, x)
            for engine in ([], ["--engine", "ref"]):
                if os.path.exists(self.dst):
                    os.remove(self.dst)
                what = f"slicegen run {text!r} {' '.join(engine)} on {shape} {name} (SLICEGEN_SEED={SEED})"
                run = cli("run", text, "--in", self.src, "--out", self.dst, *engine, check=False)
                self.assertEqual(run.returncode, 0, f"{what}: {cli_error(run.stderr)}")
                got = np.load(self.dst)
                self.assertTrue(same(got, want), f"{what}: got {show(got)}, NumPy {show(want)}")
        for text in ("np.flip(x, axis=0)", "np.concatenate([x[:, ::2], x[:, 1:]], axis=0)",
                     "np.pad(x[::-1], ((1, 0), (2, 2)), mode='wrap')", "np.roll(x, -4, axis=1)[1:]"):
            run = cli("plan", text, "--shape", "2,3", "--dtype", "f32")
            self.assertTrue(run.stdout.strip(), f"slicegen plan {text!r}: prints nothing")
            want = numpy_eval(text, np.zeros((2, 3), np.float32))
            self.assertIn("output [" + ",".join(map(str, want.shape)) + "]", run.stdout, run.stdout)
        np.save(self.src, random_array(rng, (2, 3), np.float32))
        run = cli("run", "np.flip(x, axis=2)", "--in", self.src, "--out", self.dst, check=False)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("is out of bounds for array of dimension", cli_error(run.stderr))


if __name__ == "__main__":
    unittest.main()

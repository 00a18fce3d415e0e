#!/usr/bin/python3
"""slicegen's kernels beside NumPy (and PyTorch, when it imports) on the
cases of `slicegen bench`.

    bench/compare_numpy.py BENCH.json
    bench/compare_numpy.py --slicegen build/cli/slicegen [--quick] [--case TEXT]

Reads the JSON of `slicegen bench --json FILE`, or runs that command itself
with the slicegen program given (its table goes to stderr). For each case it
times, on an input of the same shape and type, what NumPy does for the same
slice: np.copyto(out, x[...]) for an index expression or a TensorRT strict
slice, np.pad for the other TensorRT modes (wrap: 'wrap', clamp: 'edge',
reflect: 'reflect', fill: 'constant'), and for a program (docs/programs.md)
its text evaluated by NumPy with np and its input bound (np.concatenate,
np.roll, np.pad... make the output; a view is copied out); and PyTorch on
one thread the same (not for programs)
way (copy_ of a view, torch.flip where a step is negative, which torch views
cannot have, and torch.nn.functional.pad: 'circular', 'replicate', 'reflect',
'constant'). Also, in this process and as slicegen bench does, a copy of
the case's output bytes from the input's buffer to the output's (np.copyto
of flat views): the memcpy each time is divided by. Every time is the
median of repeated runs after a warm-up, taken in turn with the memcpy's.

Printed per case: slicegen's kernel time over its memcpy (from the JSON),
NumPy's and torch's over this process's memcpy, and slicegen's speed-up over
NumPy: NumPy's ratio over slicegen's (each process's memcpy cancels out, so
the two runs compare on the same footing), and in time: NumPy's time over
the kernel's (what counts for the tiny case, where a Python call's cost
is most of NumPy's time and of its memcpy's). Compile figures are skipped,
and so are the runtime-values figures but for the decode loop ("values:
decode"): NumPy runs the same loop, np.copyto(out, cache[:, :, :t]) for
each t, in turn with a copy of the same bytes here (np.copyto of flat
views), and its time is set beside slicegen's dynamic kernel and its
memcpy of the same rows from the JSON.
Needs NumPy (Debian: python3-numpy); use /usr/bin/python3.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    sys.exit("compare_numpy.py: needs NumPy (Debian: python3-numpy); run it with /usr/bin/python3")

try:
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(1)
except Exception:  # not installed, or broken: compare with NumPy alone
    torch = None

DTYPES = {"bool": np.bool_, "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
          "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
          "f16": np.float16, "f32": np.float32, "f64": np.float64}
NP_PAD = {"wrap": "wrap", "clamp": "edge", "reflect": "reflect", "fill": "constant"}
TORCH_PAD = {"wrap": "circular", "clamp": "replicate", "reflect": "reflect", "fill": "constant"}


def median_times(fns, target=0.2, min_samples=5, max_samples=201, sample=0.002):
    """Seconds per call of each function: the median of samples, each a
    batch of calls lasting at least `sample` seconds, after a warm-up. The
    functions' samples are taken in turn, so that all see the same
    conditions and their ratios stay steady (as slicegen bench does)."""
    batches, longest = [], 1e-9
    for fn in fns:
        fn()
        fn()
        t0 = time.perf_counter()
        fn()
        one = max(time.perf_counter() - t0, 1e-9)
        batch = max(1, min(1000000, int(sample / one + 0.999)))
        batches.append(batch)
        longest = max(longest, one * batch)
    n = max(min_samples, min(max_samples, int(target / (len(fns) * longest) + 0.999)))
    times = [[] for _ in fns]
    for _ in range(n):
        for fn, batch, v in zip(fns, batches, times):
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            v.append((time.perf_counter() - t0) / batch)
    medians = []
    for v in times:
        v.sort()
        medians.append(v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)
    return medians


def parse_expr(text):
    """A NumPy basic-indexing expression as `slicegen bench` writes it,
    '[:, 1::2, None, ..., 3]', into an index tuple."""
    body = text.strip()
    if body.startswith("x"):
        body = body[1:]
    if not (body.startswith("[") and body.endswith("]")):
        raise ValueError("not an index expression: %r" % text)
    index = []
    for part in body[1:-1].split(","):
        part = part.strip()
        if part == "...":
            index.append(Ellipsis)
        elif part in ("None", "np.newaxis"):
            index.append(None)
        elif ":" in part:
            fields = [f.strip() for f in part.split(":")]
            if len(fields) > 3:
                raise ValueError("bad slice %r" % part)
            fields += [""] * (3 - len(fields))
            index.append(slice(*(int(f) if f else None for f in fields)))
        elif part:
            index.append(int(part))
    return tuple(index)


def parse_trt(text):
    """'--op TrtSlice --start L --size L [--stride L] [--mode M] [--fill V]'."""
    words = text.split()
    opts = dict(zip(words[::2], words[1::2]))
    ints = lambda key, default=None: [int(v) for v in opts[key].split(",")] if key in opts else default
    start, size = ints("--start"), ints("--size")
    return {"start": start, "size": size, "stride": ints("--stride", [1] * len(start)),
            "mode": opts.get("--mode", "strict"), "fill": float(opts.get("--fill", "0"))}


def trt_strict_index(t, shape):
    index = []
    for s, n, k, d in zip(t["start"], t["size"], t["stride"], shape):
        stop = s + n * k
        index.append(slice(s, None if stop < 0 else stop, k))
    return tuple(index)


def is_program(case):
    """Whether the case is a NumPy program (docs/programs.md) rather than one
    index expression or an --op slice: the JSON says so ("program": true),
    or, in a JSON that predates the field, its spec is no single index."""
    spec = case["spec"]
    return bool(case.get("program")) or not (spec.startswith("--op") or
                                              re.fullmatch(r"\s*([A-Za-z_]\w*)?\s*\[[^\[\]]*\]\s*", spec))


class ProgramNames(dict):
    """The names a program sees: np and numpy are NumPy, any other name is
    the input (a program's input may be called anything, the same one
    throughout)."""

    def __init__(self, x):
        super().__init__()
        self.x = x

    def __missing__(self, name):
        return np if name in ("np", "numpy") else self.x


def run_program(spec, x):
    """The program text evaluated by NumPy itself, x its input."""
    return eval(spec, {"__builtins__": {}}, ProgramNames(x))  # noqa: S307: the bench's own spec


def numpy_op(case, x, out):
    """A function doing the case's slice with NumPy, what it does, and a
    function returning the result as an array."""
    spec = case["spec"]
    if is_program(case):
        # NumPy's own np.concatenate, np.roll, np.pad... make the output;
        # a result that is a view of x (a chain of indices) is copied out.
        if np.shares_memory(run_program(spec, x), x):
            return (lambda: np.copyto(out, run_program(spec, x))), "np.copyto(out, %s)" % spec, \
                lambda: run_program(spec, x)
        return (lambda: run_program(spec, x)), spec, lambda: run_program(spec, x)
    if not spec.startswith("--op"):
        index = parse_expr(spec)
        return (lambda: np.copyto(out, x[index])), "np.copyto(out, x%s)" % spec, lambda: x[index]
    if not spec.startswith("--op TrtSlice"):
        raise ValueError("no NumPy form for %r" % spec)
    t = parse_trt(spec)
    if t["mode"] == "strict":
        index = trt_strict_index(t, x.shape)
        return (lambda: np.copyto(out, x[index])), "np.copyto(out, x[...])", lambda: x[index]
    if any(k != 1 for k in t["stride"]):
        raise ValueError("np.pad has no strides: %r" % spec)
    widths = [(max(0, -s), max(0, s + n - d)) for s, n, d in zip(t["start"], t["size"], x.shape)]
    crop = tuple(slice(s + b, s + b + n) for s, n, (b, _) in zip(t["start"], t["size"], widths))
    kwargs = {"constant_values": t["fill"]} if t["mode"] == "fill" else {}
    mode = NP_PAD[t["mode"]]
    whole = all(c.start == 0 and c.stop == d + b + a for c, d, (b, a) in zip(crop, x.shape, widths))
    padded = lambda: np.pad(x, widths, mode=mode, **kwargs)
    if whole:  # the padded array is the output: np.pad makes it
        return padded, "np.pad(x, mode='%s')" % mode, padded
    return (lambda: np.copyto(out, padded()[crop])), "np.copyto(out, np.pad(x, mode='%s')[...])" % mode, \
        lambda: padded()[crop]


def torch_op(case, x, out):
    """The same with PyTorch, or None where it has no such operation."""
    xt, ot = torch.from_numpy(x), torch.from_numpy(out)
    spec = case["spec"]
    if is_program(case):
        return None
    if spec.startswith("--op TrtSlice"):
        t = parse_trt(spec)
        if t["mode"] == "strict":
            index = trt_strict_index(t, x.shape)
        else:
            if any(k != 1 for k in t["stride"]):
                return None
            widths = [(max(0, -s), max(0, s + n - d)) for s, n, d in zip(t["start"], t["size"], x.shape)]
            if any(w != (0, 0) for w in widths[: len(widths) - 3]) or \
                    any(s + b != 0 or s + n != d + a for s, n, d, (b, a)
                        in zip(t["start"], t["size"], x.shape, widths)):
                return None
            pad = [p for w in reversed(widths) for p in w]
            while len(pad) > 2 and pad[-2:] == [0, 0]:
                pad = pad[:-2]
            mode = TORCH_PAD[t["mode"]]
            batched = xt[None]  # modes other than constant want a batch dimension
            if mode == "constant":
                fn = lambda: F.pad(xt, pad, mode="constant", value=t["fill"])
            else:
                fn = lambda: F.pad(batched, pad, mode=mode)[0]
            return fn
    else:
        index = parse_expr(spec)
    # torch views have no negative steps: take the positive-step view of the
    # same elements and flip those dimensions.
    full = list(index)
    if Ellipsis in full:
        at = full.index(Ellipsis)
        used = sum(1 for i in full if i is not None and i is not Ellipsis)
        full[at:at + 1] = [slice(None)] * (x.ndim - used)
    full += [slice(None)] * (x.ndim - sum(1 for i in full if i is not None))
    view_index, flips, dim, axis = [], [], 0, 0
    for i in full:
        if i is None:
            view_index.append(None)
            dim += 1
            continue
        if isinstance(i, int):
            view_index.append(i)
            axis += 1
            continue
        start, stop, step = i.indices(x.shape[axis])
        if step < 0:
            count = len(range(start, stop, step))
            last = start + (count - 1) * step if count else 0
            view_index.append(slice(last, last + (count - 1) * -step + 1 if count else 0, -step))
            flips.append(dim)
        else:
            view_index.append(i)
        dim += 1
        axis += 1
    view_index = tuple(view_index)
    if flips:
        return lambda: torch.flip(xt[view_index], flips)
    return lambda: ot.copy_(xt[view_index])


def decode_loop(case, rounds):
    """NumPy in the decode loop of `case` (the JSON's "values: decode"):
    np.copyto(out, cache[:, :, :t]) for t = t_first..t_last, each into a
    view of one output buffer of the step's shape, and the copy of each
    step's bytes (np.copyto of flat views); seconds for the whole loop,
    the medians of `rounds` loops of each taken in turn."""
    dtype = DTYPES[case["dtype"]]
    shape = case["shape"]
    cache = np.random.default_rng(2).integers(0, 256, size=math.prod(shape) * np.dtype(dtype).itemsize,
                                              dtype=np.uint8).view(dtype).reshape(shape)
    ts = range(case["t_first"], case["t_last"] + 1)
    per_row = shape[0] * shape[1] * shape[3]  # elements of the output per t
    buf = np.empty(per_row * ts[-1], dtype)
    outs = [(t, buf[:per_row * t].reshape(shape[0], shape[1], t, shape[3])) for t in ts]
    flat = cache.reshape(-1)
    copies = [(buf[:per_row * t], flat[:per_row * t]) for t in ts]

    def numpy_loop():
        for t, out in outs:
            np.copyto(out, cache[:, :, :t])

    def copy_loop():
        for dst, src in copies:
            np.copyto(dst, src)

    numpy_loop()
    if outs[-1][1].tobytes() != cache[:, :, :ts[-1]].tobytes():  # bytes: random f16 holds NaNs
        raise ValueError("NumPy's decode output differs from the cache's rows")
    times = [[], []]
    for _ in range(rounds):
        for fn, v in zip((numpy_loop, copy_loop), times):
            t0 = time.perf_counter()
            fn()
            v.append(time.perf_counter() - t0)
    return [sorted(v)[len(v) // 2] for v in times]


def format_time(s):
    """Seconds as slicegen bench shows them: '12.3 us', '4.56 ms'."""
    return "%.1f ns" % (s * 1e9) if s < 1e-6 else "%.1f us" % (s * 1e6) if s < 1e-3 else \
        "%.2f ms" % (s * 1e3) if s < 1 else "%.2f s" % s


def print_decode(case, rounds):
    """The decode loop: NumPy's time beside slicegen's from the JSON."""
    steps = case["steps"]
    numpy_s, copy_s = decode_loop(case, rounds)
    line = lambda what, s, note: print("  %-40s %10s per step %10s in all  %s"
                                       % (what, format_time(s / steps), format_time(s), note))
    print("\ndecode: %s %s '%s' for t = %d..%d, one step each (slicegen's figures from its JSON)"
          % (case["dtype"], case["shape"], case["spec"], case["t_first"], case["t_last"]))
    line("NumPy np.copyto(out, cache[:, :, :t])", numpy_s, "%.2fx a copy of the same bytes here" % (numpy_s / copy_s))
    ratio = case["dynamic_s"] / case["memcpy_s"]
    line("slicegen dynamic kernel, prepare + run", case["dynamic_s"], "%.2fx its memcpy of the same rows" % ratio)
    line("slicegen static kernel per t, JIT", case["static_jit_s"], "(compile included)")
    print("  slicegen's dynamic kernel against NumPy: %.2fx (each over its own process's copy), "
          "%.2fx in time" % (numpy_s / copy_s / ratio, numpy_s / case["dynamic_s"]))


def run_bench(args):
    """Runs `slicegen bench --json` and returns its JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        cmd = [args.slicegen, "bench", "--json", path]
        if args.quick:
            cmd.append("--quick")
        if args.case:
            cmd += ["--case", args.case]
        result = subprocess.run(cmd, stdout=sys.stderr)
        if result.returncode != 0:
            sys.exit("compare_numpy.py: %s exited with status %d" % (" ".join(cmd), result.returncode))
        with open(path) as f:
            return json.load(f)


def bench_arguments(description, quick_help):
    """A parser of the options every comparison takes: the JSON of
    `slicegen bench --json FILE`, or --slicegen PATH [--quick] [--case TEXT]."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("json", nargs="?", help="the output of slicegen bench --json FILE")
    parser.add_argument("--slicegen", help="run PATH bench --json itself")
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--case", help="with --slicegen: bench --case TEXT")
    return parser


def bench_results(parser):
    """The parsed options and the bench JSON they name (read, or made by
    running slicegen bench)."""
    args = parser.parse_args()
    if (args.json is None) == (args.slicegen is None):
        parser.error("give either a JSON file or --slicegen PATH")
    if args.slicegen:
        return args, run_bench(args)
    with open(args.json) as f:
        return args, json.load(f)


def main():
    parser = bench_arguments(__doc__.split("\n\n")[0], "fewer repetitions here; with --slicegen also bench --quick")
    args, results = bench_results(parser)
    target = 0.03 if args.quick else 0.2

    print("NumPy %s%s; times over memcpy of the output bytes (slicegen's from its JSON, the others' here)"
          % (np.__version__, ", PyTorch %s on 1 thread" % torch.__version__ if torch else ", no PyTorch"))
    print("%-22s %10s %10s %10s %10s %12s %12s  %s" % ("case", "output", "slicegen", "NumPy", "torch",
                                                       "vs NumPy", "(in time)", "NumPy does"))
    rng = np.random.default_rng(1)
    for case in results:
        if case["case"].startswith(("compile:", "values:")) or "kernel_s" not in case:
            continue
        dtype = DTYPES[case["dtype"]]
        nbytes = case["bytes"]
        # As slicegen bench does: memcpy copies the output's bytes from the
        # input's buffer (at least as large as the output) to the output.
        xbuf = rng.integers(0, 256, size=max(case["input_bytes"], nbytes), dtype=np.uint8)
        x = xbuf[:case["input_bytes"]].view(dtype).reshape(case["shape"])
        out = np.zeros(case["output_shape"], dtype)
        src, dst = xbuf[:nbytes], out.reshape(-1).view(np.uint8)
        copy = lambda: np.copyto(dst, src)
        try:
            fn, what, result = numpy_op(case, x, out)
            shape = result().shape
            if list(shape) != case["output_shape"]:
                raise ValueError("NumPy's output shape %s, slicegen's %s" % (list(shape), case["output_shape"]))
            memcpy_s, numpy_s = median_times([copy, fn], target)
        except ValueError as e:
            (memcpy_s,), numpy_s, what = median_times([copy], target), None, "(%s)" % e
        torch_s = None
        if torch is not None:
            try:
                fn = torch_op(case, x, out)
                if fn is not None:
                    torch_memcpy_s, torch_s = median_times([copy, fn], target)
                    torch_s *= memcpy_s / torch_memcpy_s
            except (RuntimeError, NotImplementedError, ValueError, TypeError):
                torch_s = None
        fmt = lambda v: "%10.2f" % v if v is not None else "%10s" % "-"
        size = "%.2f MiB" % (nbytes / 2**20) if nbytes >= 2**20 else \
            "%.1f KiB" % (nbytes / 2**10) if nbytes >= 2**10 else "%d B" % nbytes
        ratio = case["kernel_s"] / case["memcpy_s"]
        speedup = "%11.2fx" % (numpy_s / memcpy_s / ratio) if numpy_s else "%12s" % "-"
        speedup += " %11.2fx" % (numpy_s / case["kernel_s"]) if numpy_s else " %12s" % "-"
        print("%-22s %10s %s %s %s %s  %s" % (
            case["case"], size, fmt(ratio),
            fmt(numpy_s / memcpy_s if numpy_s else None), fmt(torch_s / memcpy_s if torch_s else None),
            speedup, what), flush=True)
    for case in results:
        if case["case"] == "values: decode":
            print_decode(case, 1 if args.quick else 3)


if __name__ == "__main__":
    main()

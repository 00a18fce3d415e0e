#!/usr/bin/python3
"""What a call costs from Python: slicegen's module (its extension
slicegen._ext) beside NumPy on the tiny case, and beside the C API on large
cases.

    PYTHONPATH=build/python SLICEGEN_LIBRARY=build/libslicegen.so /usr/bin/python3 bench/python_calls.py [--quick]

(or with the module installed by `pip install ./python`, neither variable).

Tiny case, f32 [4, 6], [1:, ::-2]: kernel(x, out=o), kernel(x),
slicegen.slice(x, "[1:, ::-2]"), a symbolic kernel of "[t:, ::-2]" called
kernel(x, t=1) and kernel(x, out=o, t=1), and NumPy's x[1:, ::-2].copy(); each
the best of 7 runs of many calls (timeit), per call.

Large cases, f32 [4096, 4096] (64 MiB), [::-1, ::-1] static and [t:, ::-1]
symbolic (t=0): kernel(x, out=o) against the same kernel run through the C
API in this process (sg_kernel_run, or sg_kernel_prepare and
sg_kernel_run_args, called with ctypes: a few microseconds on a run of
milliseconds), taken in turn; the median of 21 runs each, and the ratio.
Needs NumPy (Debian: python3-numpy).
"""
import argparse
import ctypes
import statistics
import sys
import time
import timeit

try:
    import numpy as np
    import slicegen
    from slicegen import _capi, _core
except ImportError as e:
    sys.exit(f"python_calls.py: {e} (build the module: pip install ./python, or set PYTHONPATH=build/python)")


def per_call(statement, names, quick):
    timer = timeit.Timer(statement, globals=names)
    number = timer.autorange()[0] * (1 if quick else 4)
    return min(timer.repeat(3 if quick else 7, number)) / number


def tiny(quick):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    kernel = slicegen.compile("[1:, ::-2]", x.shape, x.dtype)
    values = slicegen.compile("[t:, ::-2]", x.shape, x.dtype)
    o = np.empty(kernel.output_shape, x.dtype)
    assert np.array_equal(values(x, t=1), kernel(x))
    names = {"x": x, "kernel": kernel, "values": values, "o": o, "slicegen": slicegen}
    rows = [("kernel(x, out=o)", "kernel(x, out=o)"), ("kernel(x)", "kernel(x)"),
            ('slicegen.slice(x, "[1:, ::-2]")', 'slicegen.slice(x, "[1:, ::-2]")'),
            ("kernel(x, t=t)  ([t:, ::-2])", "values(x, t=1)"),
            ("kernel(x, out=o, t=t)", "values(x, out=o, t=1)"),
            ("NumPy x[1:, ::-2].copy()", "x[1:, ::-2].copy()")]
    print("tiny case, f32 [4, 6], [1:, ::-2], per call:")
    for label, statement in rows:
        print(f"  {label:34} {per_call(statement, names, quick) * 1e6:7.3f} us")


def c_api_static(kernel, x, o):
    ctx = kernel._state.ptr
    return lambda: _core._lib.sg_kernel_run(ctx, kernel._kernel, x.ctypes.data, o.ctypes.data, 1)


def c_api_values(kernel, x, o, t):
    ctx, args = kernel._state.ptr, _capi.Args()
    shape, values = _capi.int64_array(x.shape), _capi.int64_array([t])

    def run():
        _core._lib.sg_kernel_prepare(ctx, kernel._kernel, shape, values, ctypes.byref(args))
        _core._lib.sg_kernel_run_args(ctx, kernel._kernel, x.ctypes.data, o.ctypes.data, ctypes.byref(args), 1)
    return run


def large(quick):
    x = np.ones((4096, 4096), np.float32)
    o = np.ones_like(x)
    static = slicegen.compile("[::-1, ::-1]", x.shape, x.dtype)
    values = slicegen.compile("[t:, ::-1]", x.shape, x.dtype)
    cases = [("[::-1, ::-1]", lambda: static(x, out=o), c_api_static(static, x, o)),
             ("[t:, ::-1], t=0", lambda: values(x, out=o, t=0), c_api_values(values, x, o, 0))]
    runs = 7 if quick else 21
    print(f"large cases, f32 [4096, 4096] (64 MiB), median of {runs} runs:")
    for label, python, c_api in cases:
        times = {python: [], c_api: []}
        for _ in range(runs + 1):  # the first of each is a warm-up
            for call in (python, c_api):
                start = time.perf_counter()
                call()
                times[call].append(time.perf_counter() - start)
        py, c = statistics.median(times[python][1:]), statistics.median(times[c_api][1:])
        print(f"  {label:16} kernel(x, out=o) {py * 1e3:7.3f} ms   C API {c * 1e3:7.3f} ms   "
              f"ratio {py / c:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    quick = parser.parse_args().quick
    print(f"slicegen {slicegen.__version__}, library {slicegen.library_path}, extension {slicegen._core._ext.__file__}")
    tiny(quick)
    large(quick)


if __name__ == "__main__":
    main()

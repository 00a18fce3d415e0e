"""Checks the JSON of `slicegen bench --json FILE` (--device cpu or cuda):
it parses, every case object has every field of its device with a sane
type and value (no timing thresholds),
limit_s follows its formula (on the CPU from the faster of memcpy_s and
stream_s; the kernel with cached and with streaming stores timed too, and
which of the two auto chose), a program's fields (its parts, its steps run apart) are
consistent, every runtime-values object ("values: ...") has the fields of
its kind (a case, tiny, the decode loop), and the cases are the ones
expected.

    bench_check.py FILE [--cases NAME,NAME,...] [--compile N] [--values N]

--cases: exactly these throughput cases, in this order; --compile: this
many compile figures; --values: this many runtime-values figures. Plain
python3, no NumPy. Exit 0 when all is well, else 1 with one line per
problem."""
import json
import math
import re
import sys

SIZES = {"bool": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2,
         "i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}
LINE = 64
TIMES = ["kernel_s", "kernel_threads_s", "memcpy_s", "stream_s", "limit_s", "interp_s", "cached_s",
         "streaming_s"]
# --device cuda: memcpy_s is the device-to-device copy; no threads, no interpreter.
CUDA_TIMES = ["kernel_s", "memcpy_s", "limit_s", "codegen_s", "ptx_load_s"]
CHUNK = 16  # output bytes per GPU thread


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def checker(o, problems):
    """bad(msg) and need(key, test, what) for object o: need says whether
    o has the field and it passes the test; both record problems."""
    name = o.get("case")
    def bad(msg):
        problems.append("%s: %s" % (name, msg))
    def need(key, test, what):
        if key not in o:
            bad("no field '%s'" % key)
            return False
        if not test(o[key]):
            bad("'%s' is %r, expected %s" % (key, o[key], what))
            return False
        return True
    return bad, need


def is_time(v):
    return is_number(v) and v > 0


def is_ints(v):
    return isinstance(v, list) and all(is_int(d) for d in v)


def check_values(o, problems):
    """A runtime-values figure: a case of the suite (tiny: direct calls, no
    threads), or the decode loop."""
    bad, need = checker(o, problems)
    name = o["case"]
    ok = need("dtype", lambda v: v in SIZES, "an element type")
    ok &= need("shape", lambda v: is_ints(v) and all(d >= 0 for d in v), "a list of sizes")
    ok &= need("symbolic_shape", lambda v: is_ints(v) and all(d >= -1 for d in v), "a list of sizes or -1")
    ok &= need("spec", lambda v: isinstance(v, str) and v != "", "a non-empty string")
    ok &= need("bytes", lambda v: is_int(v) and v > 0, "an integer > 0")
    ok &= need("threads", lambda v: is_int(v) and v >= 1, "an integer >= 1")
    if not ok:
        return
    if len(o["symbolic_shape"]) != len(o["shape"]) or \
            any(s not in (-1, d) for s, d in zip(o["symbolic_shape"], o["shape"])):
        bad("symbolic_shape %s is not shape %s with -1 for some dimensions" % (o["symbolic_shape"], o["shape"]))
    if name == "values: decode":
        for key in ("t_first", "t_last", "steps", "rounds"):
            need(key, lambda v: is_int(v) and v >= 1, "an integer >= 1")
        for key in ("dynamic_s", "static_jit_s", "compile_s", "memcpy_s"):
            need(key, is_time, "a time > 0")
        need("compiles", lambda v: is_int(v) and 0 <= v <= o.get("steps", 0), "an integer, at most steps")
        if all(is_int(o.get(k)) for k in ("t_first", "t_last", "steps")) and \
                o["steps"] != o["t_last"] - o["t_first"] + 1:
            bad("steps %r, but t = %r..%r" % (o["steps"], o["t_first"], o["t_last"]))
        if all(is_time(o.get(k)) for k in ("compile_s", "static_jit_s")) and o["compile_s"] > o["static_jit_s"]:
            bad("compile_s %g is more than static_jit_s %g, which holds it" % (o["compile_s"], o["static_jit_s"]))
        if -1 not in o["symbolic_shape"]:
            bad("no dimension of symbolic_shape is -1")
        return
    if any(d != -1 for d in o["symbolic_shape"]):
        bad("symbolic_shape %s, expected every dimension -1" % o["symbolic_shape"])
    tiny = name == "values: tiny"
    need("samples", lambda v: is_int(v) and v >= 1, "an integer >= 1")
    if not need("static_s", is_time, "a time > 0"):
        return
    if not tiny:
        need("static_threads_s", is_time, "a time > 0")
    need("static_compile_s", is_time, "a time > 0")
    need("symbolic_compile_s", is_time, "a time > 0")
    for prefix in ("", "steps_"):
        ok = need(prefix + "symbolic_spec", lambda v: isinstance(v, str) and v != "", "a non-empty string")
        ok &= need(prefix + "values", is_ints, "a list of integers")
        ok &= need(prefix + "symbolic_s", is_time, "a time > 0")
        if ok and len(set(re.findall(r"\bv\d+\b", o[prefix + "symbolic_spec"]))) != len(o[prefix + "values"]):
            bad("%ssymbolic_spec %r does not name the %d %svalues" % (
                prefix, o[prefix + "symbolic_spec"], len(o[prefix + "values"]), prefix))
        if ok and not math.isclose(o[prefix + "ratio"] if is_number(o.get(prefix + "ratio")) else -1,
                                   o[prefix + "symbolic_s"] / o["static_s"], rel_tol=1e-3):
            bad("%sratio %r is not %ssymbolic_s / static_s" % (prefix, o.get(prefix + "ratio"), prefix))
        if tiny:
            need(prefix + "overhead_ns", is_number, "a number")
        else:
            need(prefix + "symbolic_threads_s", is_time, "a time > 0")
            need(prefix + "threads_ratio", is_time, "a ratio > 0")


def check_case(o, problems):
    bad, need = checker(o, problems)
    name = o.get("case")

    cuda = o.get("device") == "cuda"
    ok = need("dtype", lambda v: v in SIZES, "an element type")
    for key in ("shape", "output_shape"):
        ok &= need(key, lambda v: isinstance(v, list) and all(is_int(d) and d >= 0 for d in v),
                   "a list of sizes")
    ok &= need("spec", lambda v: isinstance(v, str) and v != "", "a non-empty string")
    for key in ("bytes", "input_bytes"):
        ok &= need(key, lambda v: is_int(v) and v > 0, "an integer > 0")
    ok &= need("traffic_bytes", is_int, "an integer")
    ok &= need("device", lambda v: v in ("cpu", "cuda"), "cpu or cuda")
    if cuda:
        for key in ("device_name", "compute_capability", "gpu"):
            ok &= need(key, lambda v: isinstance(v, str) and v != "", "a non-empty string")
        ok &= need("compute_capability", lambda v: isinstance(v, str) and "." in v, "MAJOR.MINOR")
        for key in ("samples", "grid", "block"):
            ok &= need(key, lambda v: is_int(v) and v >= 1, "an integer >= 1")
        times = CUDA_TIMES
    else:
        ok &= need("threads", lambda v: is_int(v) and v >= 1, "an integer >= 1")
        for key in ("samples", "interp_runs"):
            ok &= need(key, lambda v: is_int(v) and v >= 1, "an integer >= 1")
        ok &= need("auto_stores", lambda v: v in ("cached", "streaming"), "cached or streaming")
        times = TIMES
    for key in times:
        ok &= need(key, lambda v: is_number(v) and v > 0, "a time > 0")
    if not ok:
        return
    size = SIZES[o["dtype"]]
    if o["bytes"] != math.prod(o["output_shape"]) * size:
        bad("bytes %d, but output_shape %s of %s" % (o["bytes"], o["output_shape"], o["dtype"]))
    if o["input_bytes"] != math.prod(o["shape"]) * size:
        bad("input_bytes %d, but shape %s of %s" % (o["input_bytes"], o["shape"], o["dtype"]))
    lines = -(-o["input_bytes"] // LINE)
    if not o["bytes"] <= o["traffic_bytes"] <= o["bytes"] + lines * LINE:
        bad("traffic_bytes %d outside [bytes, bytes + input lines] = [%d, %d]"
            % (o["traffic_bytes"], o["bytes"], o["bytes"] + lines * LINE))
    if cuda and o["grid"] * o["block"] * CHUNK < o["bytes"]:
        bad("grid %d x block %d threads of %d bytes do not cover %d bytes"
            % (o["grid"], o["block"], CHUNK, o["bytes"]))
    if (o["traffic_bytes"] - o["bytes"]) % LINE:
        bad("traffic_bytes %d less bytes is not a number of %d-byte lines" % (o["traffic_bytes"], LINE))
    # CPU: the limit is taken from the faster of memcpy and the streaming copy.
    best = o["memcpy_s"] if cuda else min(o["memcpy_s"], o["stream_s"])
    limit = best * o["traffic_bytes"] / (2 * o["bytes"])
    if not math.isclose(o["limit_s"], limit, rel_tol=1e-6):
        bad("limit_s %g, but %s * traffic_bytes / (2 * bytes) = %g"
            % (o["limit_s"], "memcpy_s" if cuda else "min(memcpy_s, stream_s)", limit))
    if name == "tiny":
        need("ns_per_call", lambda v: is_number(v) and v > 0, "a time > 0")
    if "ratio_to_strict" in o:
        need("ratio_to_strict", lambda v: is_number(v) and v > 0, "a ratio > 0")
    check_program(o, problems)


def check_program(o, problems):
    """A program's fields: "program": true and its parts; and when it is
    also run as its steps, each step's spec and output shape (the last
    one's the case's output shape) and the times of the pairing."""
    bad, need = checker(o, problems)
    if "program" not in o:
        for key in ("parts", "separate", "separate_s", "fused_s", "separate_ratio", "separate_samples"):
            if key in o:
                bad("'%s' but no 'program'" % key)
        return
    need("program", lambda v: v is True, "true")
    need("parts", lambda v: is_int(v) and v >= 1, "an integer >= 1")
    if o.get("device") == "cuda":
        bad("a program on --device cuda, whose GPU kernels are not made yet")
    if "separate" not in o:
        return
    ok = need("separate", lambda v: isinstance(v, list) and len(v) >= 1 and all(
        isinstance(s, dict) and isinstance(s.get("spec"), str) and s["spec"] != "" and
        is_ints(s.get("output_shape")) and all(d >= 0 for d in s["output_shape"]) for s in v),
        "a list of {spec, output_shape}")
    for key in ("separate_s", "fused_s"):
        ok &= need(key, is_time, "a time > 0")
    ok &= need("separate_ratio", is_time, "a ratio > 0")
    need("separate_samples", lambda v: is_int(v) and v >= 1, "an integer >= 1")
    if not ok:
        return
    if o["separate"][-1]["output_shape"] != o.get("output_shape"):
        bad("the last step's output_shape %s is not the output_shape %s"
            % (o["separate"][-1]["output_shape"], o.get("output_shape")))
    if not math.isclose(o["separate_ratio"], o["separate_s"] / o["fused_s"], rel_tol=1e-3):
        bad("separate_ratio %r is not separate_s / fused_s" % o["separate_ratio"])


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cases = None
    compiles = None
    values = None
    args = argv[2:]
    while args:
        if args[0] == "--cases":
            cases = [c for c in args[1].split(",") if c]
        elif args[0] == "--compile":
            compiles = int(args[1])
        elif args[0] == "--values":
            values = int(args[1])
        else:
            print("bench_check: unknown argument %r" % args[0])
            return 2
        args = args[2:]
    try:
        with open(argv[1]) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: does not parse: %s" % (argv[1], e))
        return 1
    problems = []
    if not isinstance(data, list) or not all(isinstance(o, dict) for o in data):
        print("%s: not an array of objects" % argv[1])
        return 1
    names = [o.get("case") for o in data]
    if not all(isinstance(n, str) and n for n in names):
        problems.append("an object without a 'case' name")
    elif len(set(names)) != len(names):
        problems.append("case names repeat: %s" % names)
    seen, compile_seen, values_seen = [], 0, 0
    for o in data:
        name = o.get("case")
        if not isinstance(name, str):
            continue
        if name.startswith("compile: "):
            compile_seen += 1
            s = o.get("seconds")
            if not is_number(s) or s < 0 or (s == 0 and name != "compile: JIT creation"):
                problems.append("%s: 'seconds' is %r, expected a time > 0" % (name, s))
        elif name.startswith("values: "):
            values_seen += 1
            check_values(o, problems)
        else:
            seen.append(name)
            check_case(o, problems)
    if cases is not None and seen != cases:
        problems.append("cases %s, expected %s" % (seen, cases))
    if compiles is not None and compile_seen != compiles:
        problems.append("%d compile figures, expected %d" % (compile_seen, compiles))
    if values is not None and values_seen != values:
        problems.append("%d runtime-values figures, expected %d" % (values_seen, values))
    for p in problems:
        print("%s: %s" % (argv[1], p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

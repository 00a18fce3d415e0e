#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets: tests/fuzz/corpus/<target>/.

    make_seeds.py [ROOT]      ROOT: the source tree (default: two folders up)

The seeds come from the test suites and the examples, so that each target
starts from inputs that mean something:

    fuzz_numpy      the NumPy expressions of tests/corpus/*.txt and tests/error/*.txt
    fuzz_words      spec lines of those files as words, one per line, plus --opt=VALUE forms
    fuzz_npy        .npy files of every element type, versions 1.0, 2.0 and 3.0, and some rejections
    fuzz_plan_text  tests/golden/*.plan
    fuzz_model      the example model (examples/model), its v10 spelling, a small model, the
                    runtime-values, infer and ops models and some malformed ones (ports that
                    contradict shape inference among them), each as the .xml, a NUL byte,
                    then the .bin
    fuzz_onnx       the example ONNX model and the models of tests/frontend/make_onnx_models.py, good
                    and malformed (written with /usr/bin/python3 and its onnx package; left
                    as they are without it), external data renamed to the target's data.bin
    fuzz_diff       slices of every source and TensorRT mode, encoded as fuzz_diff.c decodes them

Every seed is written fresh (the folders are emptied first; files in
tests/fuzz/corpus/<target>/ whose names start with "regress-" are reproducers
of fixed bugs and are kept). The output is the same on every run. Standard
library only.
"""
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
PER_TARGET = 40  # at most this many seeds taken from the test suites per target


def reset(target):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if not name.startswith("regress-"):
            os.remove(os.path.join(folder, name))
    return folder


def write(folder, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def spread(items, limit):
    """At most `limit` items, evenly spread over the list, in order."""
    if len(items) <= limit:
        return items
    return [items[i * len(items) // limit] for i in range(limit)]


def spec_lines():
    """(file stem, words) of every `spec` line of the corpus and error files."""
    out = []
    for sub in ("corpus", "error"):
        folder = os.path.join(ROOT, "tests", sub)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".txt"):
                continue
            with open(os.path.join(folder, name)) as f:
                for line in f:
                    if line.startswith("spec "):
                        out.append((name[:-4], shlex.split(line[5:])))
    return out


# ---- fuzz_numpy and fuzz_words ----------------------------------------------------


def numpy_seeds():
    folder = reset("fuzz_numpy")
    seen = []
    for stem, words in spec_lines():
        if len(words) == 1 and words[0] not in [w for _, w in seen]:
            seen.append((stem, words[0]))
    for i, (stem, text) in enumerate(spread(seen, PER_TARGET)):
        write(folder, "%s-%02d" % (stem, i), text)


def words_seeds():
    folder = reset("fuzz_words")
    lines = []
    for stem, words in spec_lines():
        if "\n".join(words) not in [w for _, w in lines]:
            lines.append((stem, "\n".join(words)))
    trt = [x for x in lines if "TrtSlice" in x[1]]
    other = [x for x in lines if "TrtSlice" not in x[1]]
    for i, (stem, text) in enumerate(spread(trt, PER_TARGET // 2) + spread(other, PER_TARGET // 2)):
        write(folder, "%s-%02d" % (stem, i), text)
    extra = {
        "equals-forms": "--op=StridedSlice\n--begin=1,-1\n--end=0,0\n--end-mask=1,1\n--stride=1,-1",
        "empty-lists": "--op\nSlice\n--start\n\n--stop\n",
        "nul-separated": "--op\0TrtSlice\0--start\0-1,-1\0--size\x003,3\0--mode\0fill\0--fill\0-0.0",
        "fill-nan": "--op\nTrtSlice\n--start\n-2\n--size\n6\n--mode\nfill\n--fill\nnan",
        "fill-u64": "--op\nTrtSlice\n--start\n0\n--size\n2\n--mode\nfill\n--fill\n18446744073709551615",
        "reflect-stride": "--op\nTrtSlice\n--start\n3,-4\n--size\n9,9\n--stride\n-2,3\n--mode\nreflect",
    }
    for name, text in extra.items():
        write(folder, name, text)


# ---- fuzz_npy ---------------------------------------------------------------------

NPY_TYPES = ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8", "<V2"]


def npy(descr, shape, data=None, major=1, padded=True, dict_text=None):
    """A .npy file: the header as np.save writes it (padded to 64 bytes) or bare."""
    size = int(descr[2:]) if descr[1] != "b" else 1
    count = 1
    for d in shape:
        count *= d
    if data is None:
        data = bytes((i * 37 + 1) % 256 if descr[1] != "b" else i % 2 for i in range(count * size))
    if dict_text is None:
        dims = "(%s)" % (", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
        dict_text = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, dims)
    lenbytes = 2 if major == 1 else 4
    header = dict_text.encode()
    total = 8 + lenbytes + len(header) + 1
    pad = (64 - total % 64) % 64 if padded else 0
    header += b" " * pad + b"\n"
    length = struct.pack("<H" if major == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([major, 0]) + length + header + data


def npy_seeds():
    folder = reset("fuzz_npy")
    shapes = [(), (3,), (2, 3), (0, 4), (2, 0, 3), (1, 1, 2, 1)]
    for i, descr in enumerate(NPY_TYPES):
        shape = shapes[i % len(shapes)]
        major = 1 + i % 3
        write(folder, "v%d-%s-rank%d.npy" % (major, descr[1:], len(shape)), npy(descr, shape, major=major))
    write(folder, "bf16-pipe-V2.npy", npy("|V2", (2,)))
    write(folder, "bare-header.npy", npy("<u2", (2, 3), padded=False,
                                         dict_text=' {"shape":( 2 ,3 ,),"fortran_order":False,"descr":"<u2"}  '))
    write(folder, "python2-long.npy", npy("<u1", (3, 4), dict_text="{'descr': '<u1', 'fortran_order': False, 'shape': (3L, 4L), }"))
    write(folder, "big-endian.npy", npy(">f4", (2,)))
    write(folder, "fortran.npy", npy("<f4", (2, 3), dict_text="{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"))
    write(folder, "truncated.npy", npy("<f4", (4,))[:-3])
    write(folder, "huge-shape.npy", npy("<f8", (0,), dict_text="{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }"))
    write(folder, "rank64.npy", npy("|u1", (1,) * 64))
    ramp = os.path.join(ROOT, "examples", "ramp.npy")
    with open(ramp, "rb") as f:
        write(folder, "example-ramp.npy", f.read())


# ---- fuzz_plan_text ---------------------------------------------------------------


def plan_seeds():
    folder = reset("fuzz_plan_text")
    golden = os.path.join(ROOT, "tests", "golden")
    for name in sorted(os.listdir(golden)):
        with open(os.path.join(golden, name), "rb") as f:
            write(folder, name, f.read())


# ---- fuzz_model -------------------------------------------------------------------


def minify(xml):
    """The XML without indentation and <rt_info>: the same model, fewer bytes to mutate."""
    xml = re.sub(r"\s*<rt_info>.*?</rt_info>", "", xml, flags=re.S)
    return re.sub(r">\s+<", "><", xml)


def model_seeds():
    folder = reset("fuzz_model")
    make_model = os.path.join(ROOT, "examples", "model", "make_model.py")

    def pair(stem, folder_in, shrink=True):
        with open(os.path.join(folder_in, stem + ".xml")) as f:
            xml = f.read()
        binary = b""
        if os.path.isfile(os.path.join(folder_in, stem + ".bin")):
            with open(os.path.join(folder_in, stem + ".bin"), "rb") as f:
                binary = f.read()
        return (minify(xml) if shrink else xml).encode() + b"\0" + binary

    write(folder, "example", pair("model", os.path.join(ROOT, "examples", "model"), shrink=False))
    with tempfile.TemporaryDirectory() as tmp:
        for args in (["--ir-version", "10"], ["--layers", "3"], ["--runtime-values"], ["--infer"], ["--ops"],
                     ["--fault", "all"]):
            subprocess.run([sys.executable, make_model, tmp] + args, check=True, stdout=subprocess.DEVNULL)
        write(folder, "example-v10-min", pair("model-v10", tmp))
        write(folder, "scale-3-min", pair("scale-3", tmp))
        write(folder, "runtime-values-min", pair("runtime-values", tmp))
        write(folder, "infer-min", pair("infer", tmp))
        write(folder, "ops-min", pair("ops", tmp))
        for fault in ("const-past-end", "index-not-1d", "bad-mask-value", "edge-to-missing-port",
                      "const-size-mismatch", "unconnected-input", "port-shape-conflict", "output-type-mismatch"):
            write(folder, "fault-%s-min" % fault, pair(fault, tmp))


# ---- fuzz_onnx --------------------------------------------------------------------


def onnx_seeds():
    make = os.path.join(ROOT, "tests", "frontend", "make_onnx_models.py")
    with tempfile.TemporaryDirectory() as tmp:
        if subprocess.run(["/usr/bin/python3", make, tmp], stdout=subprocess.DEVNULL).returncode != 0:
            print("make_seeds.py: fuzz_onnx seeds left as they are (no /usr/bin/python3 with onnx)")
            return
        folder = reset("fuzz_onnx")
        with open(os.path.join(ROOT, "examples", "model", "model.onnx"), "rb") as f:
            write(folder, "example", f.read())
        for kind in ("good", "bad"):
            for name in sorted(os.listdir(os.path.join(tmp, kind))):
                if name.endswith(".onnx") and not name.startswith("others"):  # others: a 60 kB nest
                    with open(os.path.join(tmp, kind, name), "rb") as f:
                        data = f.read()
                    # The target writes its external data as data.bin (same length of name).
                    data = data.replace(b"data/idx.bin", b"data.bin\0\0\0\0").replace(b"w.bin", b"d.bin")
                    write(folder, "%s-%s" % (kind, name[:-5]), data)


# ---- fuzz_diff --------------------------------------------------------------------

EXTREMES = [-(1 << 63), -(1 << 63) + 1, -(1 << 62), -(1 << 32), -(1 << 31) - 1, -1000000, -256, 255, 256,
            1000000, 1 << 31, 1 << 32, 1 << 62, (1 << 63) - 2, (1 << 63) - 1]
DTYPES = ["bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"]
MODES = ["strict", "wrap", "clamp", "fill", "reflect"]


def enc_int(v):
    if -120 <= v <= 119:
        return bytes([v + 120])
    if v in EXTREMES:
        return bytes([0xF0 + EXTREMES.index(v)])
    return b"\xff" + struct.pack("<q", v)


def enc_dim(d):
    if d < 8:
        return bytes([d])
    assert d % 8 == 0 and 8 <= d <= 128
    return bytes([0xEF + d // 8])


def diff_case(source, dtype, shape, body, opt=2, in_first=False, out_first=False, run=0, split=128,
              large=False):
    """large: the dimensions as ints, as they are (no cut to 16384 elements)."""
    how = source | opt << 2 | in_first << 4 | out_first << 5 | run << 6
    head = bytes([how, split, DTYPES.index(dtype), len(shape) | large << 7])
    return head + b"".join(enc_int(d) if large else enc_dim(d) for d in shape) + body


def ss(begin, end, stride=None, masks=((), (), (), (), ())):
    """StridedSlice: masks as lists of 0/1 (begin, end, new axis, shrink, ellipsis)."""
    body = bytes([len(begin), 1 if stride is None else 0])
    for m in masks:
        body += bytes([sum(b << i for i, b in enumerate(m)), len(m)])
    for i in range(len(begin)):
        body += enc_int(begin[i]) + enc_int(end[i]) + enc_int(stride[i] if stride else 1)
    return body


def sl(start, stop, step=None, axes=None):
    body = bytes([len(start), (step is None) | (axes is None) << 1])
    for i in range(len(start)):
        body += enc_int(start[i]) + enc_int(stop[i]) + enc_int(step[i] if step else 1)
        body += enc_int(axes[i] if axes else i)
    return body


def trt(mode, start, size, stride=None, fill=None):
    """TensorRT: fill as ("int", v), ("float", v with v*4 an int), ("bool", 0/1) or None."""
    flags = (stride is None) | (fill is None) << 1
    body = bytes([MODES.index(mode), flags])
    kind, value = fill or ("int", 0)
    if kind == "int":
        body += b"\0" + enc_int(value)
    elif kind == "float":
        body += b"\2" + enc_int(int(value * 4))
    else:
        body += b"\3" + bytes([value])
    for i in range(len(start)):
        body += enc_int(start[i]) + enc_int(size[i]) + enc_int(stride[i] if stride else 1)
    return body


def diff_seeds():
    folder = reset("fuzz_diff")
    cases = {
        "ss-masks": diff_case(0, "f32", (2, 3, 4), ss([1, 0, 0], [0, 0, 2], masks=([0, 1, 1], [1, 1, 0], [], [], []))),
        "ss-reverse-new-axis": diff_case(0, "i16", (5, 6), ss([0, -1, 0], [0, 0, 0], [1, -1, 1],
                                                                  masks=([1, 0, 1], [1, 1, 1], [0, 0, 1], [], [])), opt=0),
        "ss-shrink-ellipsis": diff_case(0, "u8", (3, 4, 5), ss([1, 0, 2], [2, 0, 3], masks=([], [], [], [1, 0, 1], [0, 1, 0])),
                                        run=1),
        "ss-extremes": diff_case(0, "i64", (7,), ss([-(1 << 63)], [(1 << 63) - 1], [3]), opt=3, in_first=True),
        "ss-big-stride-back": diff_case(0, "f64", (4, 3), ss([(1 << 63) - 1, 0], [-(1 << 63), 0], [-(1 << 62), 1],
                                                             masks=([], [0, 1], [], [], []))),
        "slice-negative-axis": diff_case(1, "f32", (2, 3, 8, 8), sl([-1], [-(1 << 63)], [-2], [-1]), run=2),
        "slice-axes-order": diff_case(1, "u16", (4, 6), sl([1, 0], [3, 6], [1, 2], [1, 0]), opt=1),
        "slice-empty": diff_case(1, "bool", (0, 5), sl([0], [5], None, [1])),
        "numpy-mixed": diff_case(2, "i32", (2, 3, 4), b"[1:, ..., ::-1, None, 0]", run=3, split=100),
        "numpy-rank0": diff_case(2, "bf16", (), b"[None, ..., None]"),
        "numpy-steps": diff_case(2, "u32", (6, 7), b"x[5:0:-2, 1::3]", out_first=True),
        "numpy-contiguous": diff_case(2, "f32", (8, 16, 32), b"[:, 2:10]", opt=3),
        "trt-strict": diff_case(3, "i8", (4, 5), trt("strict", [3, 0], [2, 3], [-1, 2])),
        "trt-wrap": diff_case(3, "i16", (3, 4), trt("wrap", [-5, 2], [9, 10], [1, 3]), run=1),
        "trt-clamp": diff_case(3, "u64", (5,), trt("clamp", [-2], [12], [1]), in_first=True),
        "trt-fill": diff_case(3, "f16", (2, 3), trt("fill", [-1, -1], [4, 5], fill=("float", 1.5)), opt=0),
        "trt-fill-bool": diff_case(3, "bool", (3, 0), trt("fill", [-1, 0], [4, 2], fill=("bool", 1))),
        "trt-reflect": diff_case(3, "f32", (6, 7), trt("reflect", [-6, 3], [14, 9], [1, -2]), run=3, split=40),
        "trt-reflect-big": diff_case(3, "u8", (16, 64), trt("reflect", [-2, -2], [20, 68]), opt=3, out_first=True),
        "large-shape-numpy": diff_case(2, "f32", (1 << 32, 3, 1 << 31), b"[::-1, 1:, ::1000000]", large=True),
        "large-shape-slice": diff_case(1, "i64", ((1 << 62), 2), sl([-1000000], [-(1 << 63)], [-(1 << 32)]),
                                       large=True),
    }
    for name, data in cases.items():
        write(folder, name, data)


def main():
    numpy_seeds()
    words_seeds()
    npy_seeds()
    plan_seeds()
    model_seeds()
    onnx_seeds()
    diff_seeds()
    total = 0
    for target in sorted(os.listdir(CORPUS)):
        folder = os.path.join(CORPUS, target)
        files = os.listdir(folder)
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in files)
        total += size
        print("%-16s %3d seeds, %7d bytes" % (target, len(files), size))
    print("%-16s          %7d bytes" % ("total", total))


if __name__ == "__main__":
    main()

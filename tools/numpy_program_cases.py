#!/usr/bin/env python3
"""Writes tests/corpus/programs.txt and tests/error/program_errors.txt: NumPy
programs (index chains, np.concatenate, np.roll, np.flip, np.pad) on iota
inputs, each expected output computed by NumPy itself, and the programs
NumPy refuses with the words of its refusal.

    python3 tools/numpy_program_cases.py [TESTS_DIR]   (default: tests)
"""
import os
import sys

import numpy as np

TYPES = {"i8": np.int8, "i32": np.int32, "u8": np.uint8, "i64": np.int64, "f32": np.float32, "f64": np.float64,
         "bool": np.bool_, "i16": np.int16, "f16": np.float16}

# (name, program, dtype, input shape)
CASES = [
    ("Focus: space to depth as four strided slices and a concatenate",
     "np.concatenate([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], axis=1)",
     "f32", (1, 3, 4, 4)),
    ("Focus on u8 with odd sizes", "np.concatenate([x[:, ::2, ::2], x[:, 1::2, ::2]], axis=0)", "u8", (2, 6, 5)),
    ("a chain of two slices", "x[1:, ::2][:, ::-1]", "i32", (4, 6)),
    ("a chain with an integer index", "x[::-1][2:]", "i32", (6,)),
    ("a chain of three with None and an ellipsis", "x[None][..., 1:][0, ::-2, 1]", "i32", (3, 4, 5)),
    ("a chain through an empty result", "x[2:2][::-1]", "i32", (4, 3)),
    ("roll on the last axis", "np.roll(x, 2, axis=1)", "i32", (3, 5)),
    ("roll by a negative shift larger than the axis", "np.roll(x, -7, axis=-1)", "i64", (2, 5)),
    ("roll on two axes", "np.roll(x, (1, -2), axis=(0, 1))", "i16", (3, 4)),
    ("roll naming one axis twice adds the shifts", "np.roll(x, (1, 2), axis=(1, 1))", "i32", (2, 5)),
    ("roll by a multiple of the axis", "np.roll(x, 10, axis=0)", "i32", (5, 2)),
    ("roll of an empty axis", "np.roll(x, 3, axis=1)", "i32", (2, 0)),
    ("flip every axis", "np.flip(x)", "i32", (2, 3, 2)),
    ("flip one axis", "np.flip(x, axis=1)", "f64", (2, 3)),
    ("flip a tuple of axes", "np.flip(x, axis=(0, -1))", "i32", (2, 3, 2)),
    ("flip of a 0-d array", "np.flip(x)", "i32", ()),
    ("constant pad", "np.pad(x, 1)", "i32", (2, 3)),
    ("constant pad with a value", "np.pad(x, ((1, 0), (2, 1)), mode='constant', constant_values=7)", "i32", (2, 2)),
    ("a fill value NumPy converts: 7 is True", "np.pad(x, 1, constant_values=7)", "bool", (2,)),
    ("a fill value NumPy converts: -1 wraps to 255", "np.pad(x, 1, constant_values=-1)", "u8", (2,)),
    ("a fill value NumPy converts: 300 wraps to 44", "np.pad(x, 1, constant_values=300)", "i8", (2,)),
    ("a fill value NumPy converts: 1.5 truncates to 1", "np.pad(x, 1, constant_values=1.5)", "i32", (2,)),
    ("a fill value NumPy converts: -2.7 truncates to -2", "np.pad(x, 1, constant_values=-2.7)", "i16", (2,)),
    ("constant pad of floats with nan", "np.pad(x, (1, 2), constant_values=np.nan)", "f32", (3,)),
    ("edge pad", "np.pad(x, ((2, 1), (1, 3)), mode='edge')", "i32", (2, 3)),
    ("reflect pad", "np.pad(x, 2, mode='reflect')", "i32", (4,)),
    ("reflect pad wider than the axis repeats", "np.pad(x, (7, 5), mode='reflect')", "i32", (3,)),
    ("reflect pads in rounds: the long side mirrors the short side's pad too", "np.pad(x, (1, 8), mode='reflect')",
     "i8", (3,)),
    ("reflect pads in rounds, the other way", "np.pad(x, (8, 1), mode='reflect')", "i8", (3,)),
    ("symmetric pads in rounds", "np.pad(x, (1, 8), mode='symmetric')", "i8", (2,)),
    ("reflect in rounds on two axes", "np.pad(x, ((7, 2), (1, 9)), mode='reflect')", "i32", (3, 4)),
    ("reflect pad of an axis of one repeats it", "np.pad(x, 3, mode='reflect')", "i32", (1,)),
    ("symmetric pad", "np.pad(x, ((1, 2), (3, 0)), mode='symmetric')", "i32", (3, 2)),
    ("symmetric pad wider than the axis", "np.pad(x, (5, 6), mode='symmetric')", "u8", (2,)),
    ("wrap pad", "np.pad(x, ((1, 1), (2, 3)), mode='wrap')", "i32", (2, 3)),
    ("wrap pad wider than the axis", "np.pad(x, 7, mode='wrap')", "i32", (3,)),
    ("pad widths as one pair for every axis", "np.pad(x, (1, 2), mode='edge')", "i32", (2, 2)),
    ("pad widths as a column", "np.pad(x, ((1,), (2,)), mode='wrap')", "i32", (2, 3)),
    ("pad of a 0-d array", "np.pad(x, 3)", "i32", ()),
    ("constant pad of an empty array (no axis has an element)", "np.pad(x, 2, constant_values=3)", "i32", (0,)),
    ("constant pad of an array empty on every axis", "np.pad(x, 0, constant_values=3)", "i32", (0, 0)),
    ("pad of a slice", "np.pad(x[1:, ::2], 1, mode='edge')", "i32", (3, 5)),
    ("a slice of a pad", "np.pad(x, 2, mode='reflect')[::3, 1:]", "i32", (3, 4)),
    ("a row of fill from a pad", "np.pad(x, 1)[0]", "i32", (2, 2)),
    ("one element of fill: a 0-d result", "np.pad(x, 1, constant_values=5)[0, 0]", "i32", (2, 2)),
    ("an edge pad of a new axis repeats it", "np.pad(x[None], ((2, 1), (0, 0), (0, 0)), mode='edge')", "i32", (2, 2)),
    ("a crop then a reflect pad", "np.pad(x[1:-1, 1:-1], 2, mode='reflect')", "f32", (5, 6)),
    ("concatenate of a slice and its flip", "np.concatenate([x, np.flip(x, 1)], axis=-1)", "i32", (2, 3)),
    ("concatenate with an empty part", "np.concatenate((x[:0], x, x[5:]), axis=0)", "i32", (3, 2)),
    ("a concatenate inside a concatenate", "np.concatenate([np.concatenate([x, x], axis=1), x[:, :2]], axis=1)",
     "i32", (2, 2)),
    ("roll written as two slices", "np.concatenate([x[:, -2:], x[:, :-2]], axis=1)", "i32", (3, 5)),
    ("a slice of a roll of a flip", "np.roll(np.flip(x, 0), 3, axis=1)[1:, ::2]", "i32", (3, 4)),
    ("a pad of a concatenate", "np.pad(np.concatenate([x, x[::-1]]), 1, mode='symmetric')", "i32", (2, 2)),
    ("bool through a pad and a roll", "np.roll(np.pad(x, 1, constant_values=True), 1, axis=0)", "bool", (2, 3)),
    ("f16 reflect", "np.pad(x, ((0, 0), (2, 2)), mode='reflect')", "f16", (2, 3)),
    ("parentheses and numpy.", "(numpy.flip(x, axis=0))[1:]", "i32", (3, 2)),
    ("a large output in parts", "np.concatenate([x[:, ::2], x[:, 1::2]], axis=0)", "i32", (200, 300)),
]

# (name, program, dtype, input shape, status, text of the refusal)
ERRORS = [
    ("concatenate of unequal shapes", "np.concatenate([x, x[:, 1:]], axis=0)", "i32", (2, 3), "slice",
     "all the input array dimensions except for the concatenation axis must match exactly, but along dimension "
     "1, the array at index 0 has size 3 and the array at index 1 has size 2"),
    ("concatenate of unequal ranks", "np.concatenate([x, x[0]])", "i32", (2, 3), "slice",
     "all the input arrays must have same number of dimensions, but the array at index 0 has 2 dimension(s) and "
     "the array at index 1 has 1 dimension(s)"),
    ("concatenate of 0-d arrays", "np.concatenate([x[0], x[1]])", "i32", (2,), "slice",
     "zero-dimensional arrays cannot be concatenated"),
    ("concatenate axis out of range", "np.concatenate([x, x], axis=2)", "i32", (2, 3), "slice",
     "axis 2 is out of bounds for array of dimension 2"),
    ("flip axis out of range", "np.flip(x, axis=-3)", "i32", (2, 3), "slice",
     "axis -3 is out of bounds for array of dimension 2"),
    ("flip of a repeated axis", "np.flip(x, axis=(0, 0))", "i32", (2, 3), "slice", "repeated axis"),
    ("roll axis out of range", "np.roll(x, 1, axis=1)", "i32", (3,), "slice",
     "axis 1 is out of bounds for array of dimension 1"),
    ("roll shifts and axes that do not broadcast", "np.roll(x, (1, 2), axis=(0, 1, 0))", "i32", (2, 3), "slice",
     "shape mismatch: objects cannot be broadcast to a single shape"),
    ("negative pad width", "np.pad(x, ((1, -1),))", "i32", (3,), "slice", "index can't contain negative values"),
    ("pad widths that do not broadcast", "np.pad(x, ((1, 2), (3, 4), (5, 6)))", "i32", (2, 3), "slice",
     "operands could not be broadcast together with remapped shapes [original->remapped]: (3,2)  and requested "
     "shape (2,2)"),
    ("edge pad of an empty axis", "np.pad(x, ((0, 0), (1, 0)), mode='edge')", "i32", (2, 0), "slice",
     "can't extend empty axis 1 using modes other than 'constant' or 'empty'"),
    ("an index out of range after a slice", "x[1:][2]", "i32", (3,), "slice", "out of"),
]


def shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def quoted(program):
    """The program as one corpus word: '...' around it, its strings in "..."."""
    return program.replace("'", '"')


def iota(dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return (np.arange(n) % 2).astype(np.bool_).reshape(shape)
    if dtype in ("f16", "f32", "f64"):
        return np.arange(n).astype(TYPES[dtype]).reshape(shape)
    return np.arange(n, dtype=np.uint64).astype(TYPES[dtype]).reshape(shape)  # integers wrap


def values_text(a, dtype):
    flat = a.reshape(-1)
    if dtype == "bool":
        return " ".join("1" if v else "0" for v in flat)
    if dtype in ("f16", "f32", "f64"):
        return " ".join("nan" if np.isnan(v) else repr(float(v)) for v in flat)
    return " ".join(str(int(v)) for v in flat)


def main():
    tests = sys.argv[1] if len(sys.argv) > 1 else "tests"
    out = ["# NumPy programs: index chains, np.concatenate, np.roll, np.flip and np.pad",
           "# of one input, each compiled into one kernel. Expected outputs computed by",
           f"# NumPy {np.__version__} (tools/numpy_program_cases.py writes this file).", ""]
    for name, program, dtype, shape in CASES:
        x = iota(dtype, shape)
        y = np.asarray(eval(program, {"np": np, "numpy": np, "x": x}))
        assert y.dtype == x.dtype, (name, y.dtype)
        out += [f"case {name}", f"spec '{quoted(program)}'", f"input {dtype} {shape_text(shape)} iota"]
        # a large output: its shape only, and the reference interpreter's values as the expectation
        out.append(f"output {shape_text(y.shape)}" + (" " + values_text(y, dtype) if 0 < y.size <= 1000 else ""))
        out.append("")
    with open(os.path.join(tests, "corpus", "programs.txt"), "w") as f:
        f.write("\n".join(out))
    err = ["# NumPy programs NumPy refuses: slicegen refuses them with NumPy's words.",
           "# (tools/numpy_program_cases.py writes this file.)", ""]
    for name, program, dtype, shape, status, text in ERRORS:
        x = iota(dtype, shape)
        try:
            eval(program, {"np": np, "numpy": np, "x": x})
        except (ValueError, IndexError, TypeError) as e:
            assert text in str(e), (name, str(e))
        else:
            raise AssertionError(f"{name}: NumPy accepts {program}")
        err += [f"case {name}", f"spec '{quoted(program)}'", f"input {dtype} {shape_text(shape)} iota",
                f"error {status} {text}", ""]
    with open(os.path.join(tests, "error", "program_errors.txt"), "w") as f:
        f.write("\n".join(err))


if __name__ == "__main__":
    main()

"""The ctypes declarations against include/slicegen.h: every function's
argument and result types, the layout of every struct the module passes
(as the library gives it, against a C compiler's measure), and the enum
values. Skipped outside the source tree; the measures without a C
compiler."""
import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from _common import ROOT, slicegen
from slicegen import _capi

HEADER = os.path.join(ROOT, "include", "slicegen.h")
CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")

TYPES = {
    "void": None, "bool": ctypes.c_bool, "int": ctypes.c_int, "size_t": ctypes.c_size_t, "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64, "sg_status": ctypes.c_int, "sg_dtype": ctypes.c_int, "sg_trt_mode": ctypes.c_int, "sg_stores": ctypes.c_int,
    "char*": ctypes.c_char_p, "char**": ctypes.POINTER(ctypes.c_void_p), "char*const*": ctypes.POINTER(ctypes.c_char_p),
    "void*": ctypes.c_void_p, "FILE*": ctypes.c_void_p, "int64_t*": _capi.I64P,
    "sg_dtype*": ctypes.POINTER(ctypes.c_int), "sg_trt_mode*": ctypes.POINTER(ctypes.c_int),
    "sg_scalar*": ctypes.POINTER(_capi.Scalar), "sg_strided_slice_args*": ctypes.POINTER(_capi.StridedSliceArgs),
    "sg_aot_kernel*": ctypes.POINTER(_capi.AotKernel), "sg_compile_options*": ctypes.POINTER(_capi.CompileOptions),
    "sg_args*": ctypes.POINTER(_capi.Args),
}
TYPES.update({"size_t*": ctypes.POINTER(ctypes.c_size_t), "sg_model_layer*": ctypes.POINTER(_capi.ModelLayer),
              "sg_model_symbol*": ctypes.POINTER(_capi.ModelSymbol), "uint8_t*": ctypes.POINTER(ctypes.c_uint8),
              "sg_model_fusion**": ctypes.POINTER(ctypes.POINTER(_capi.ModelFusion))})
for c_name, pointer in [("sg_context", _capi.ContextP), ("sg_spec", _capi.SpecP), ("sg_plan", _capi.PlanP),
                        ("sg_kernel", _capi.KernelP), ("sg_model", _capi.ModelP)]:
    TYPES[c_name + "*"] = pointer
    TYPES[c_name + "**"] = ctypes.POINTER(pointer)


def c_type(decl, named):
    """The type of a declaration in one spelling, "char*const*": the name of
    a parameter dropped (named), an array parameter as a pointer, const
    kept only where it qualifies a pointer."""
    decl = re.sub(r"(\w+)\s*\[[^]]*\]$", r"*\1", decl.strip())
    tokens = re.findall(r"\w+|\*", decl)
    if named:
        tokens = tokens[:-1]
    return "".join(t for i, t in enumerate(tokens) if t != "const" or i and tokens[i - 1] == "*")


def declarations():
    """name: (result type, [parameter types]) of every SG_API function."""
    text = open(HEADER).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    found = {}
    for m in re.finditer(r"SG_API\s+([^;(]*?)\b(sg_\w+)\s*\(([^)]*)\)\s*;", text):
        result, name, params = m.groups()
        params = [p.strip() for p in params.split(",")]
        found[name] = (c_type(result, False), [] if params == ["void"] else [c_type(p, True) for p in params])
    return found


class CApi(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(HEADER), "not in the source tree: include/slicegen.h is missing")
    def test_signatures(self):
        declared = declarations()
        self.assertGreater(len(declared), 40)
        for name, (restype, argtypes) in _capi.SIGNATURES.items():
            self.assertIn(name, declared)
            want_res, want_args = declared[name]
            # a malloc'd string comes back as its address, to be freed
            want_type = ctypes.c_void_p if name in _capi.MALLOC_RESULTS and want_res == "char*" else TYPES[want_res]
            self.assertIs(restype, want_type, f"{name}: result {want_res}")
            self.assertEqual(len(argtypes), len(want_args), f"{name}: argument count")
            for i, (got, want) in enumerate(zip(argtypes, want_args)):
                self.assertIs(got, TYPES[want], f"{name}: argument {i}, {want}")
            fn = getattr(slicegen._core._lib, name)
            self.assertEqual((fn.restype, list(fn.argtypes)), (restype, argtypes), name)

    STRUCTS = {"sg_mask": "Mask", "sg_strided_slice_args": "StridedSliceArgs", "sg_scalar": "Scalar",
               "sg_aot_kernel": "AotKernel", "sg_compile_options": "CompileOptions", "sg_args": "Args",
               "sg_model_layer": "ModelLayer", "sg_model_fusion": "ModelFusion", "sg_model_symbol": "ModelSymbol"}

    def test_layouts_from_the_library(self):
        """Each struct is as large as the library says and its public fields
        where it says; sg_args' private part is bytes the module never names."""
        lib = slicegen._core._lib
        for c_name, py_name in self.STRUCTS.items():
            struct = getattr(_capi, py_name)
            self.assertEqual(ctypes.sizeof(struct), lib.sg_struct_size(c_name.encode()), c_name)
            for field in struct._public_:
                offset, size = ctypes.c_size_t(), ctypes.c_size_t()
                self.assertTrue(lib.sg_struct_field(c_name.encode(), field.encode(), ctypes.byref(offset),
                                                    ctypes.byref(size)), f"{c_name}.{field}")
                self.assertEqual((getattr(struct, field).offset, getattr(struct, field).size),
                                 (offset.value, size.value), f"{c_name}.{field}")
        self.assertEqual(_capi.Args._public_, ("out_rank", "out_shape", "outer_extent", "input_bytes",
                                               "output_bytes"))
        self.assertFalse(lib.sg_struct_field(b"sg_args", b"internal", ctypes.byref(ctypes.c_size_t()),
                                             ctypes.byref(ctypes.c_size_t())))
        self.assertEqual(lib.sg_struct_size(b"sg_no_such_struct"), 0)
        defaults = _capi.compile_options(lib)
        self.assertEqual((defaults.size, defaults.opt_level, defaults.stores, defaults.target, defaults.device),
                         (ctypes.sizeof(_capi.CompileOptions), _capi.SG_DEFAULT_OPT_LEVEL, 0, None, 0))

    @unittest.skipUnless(os.path.exists(HEADER) and CC, "no C compiler or not in the source tree")
    def test_struct_layouts(self):
        structs = {c_name: getattr(_capi, py_name) for c_name, py_name in self.STRUCTS.items()}
        lines = []
        for c_name, struct in structs.items():
            lines.append(f'printf("{c_name} %zu\\n", sizeof({c_name}));')
            for field in struct._public_:
                lines.append(f'printf("{c_name}.{field} %zu\\n", offsetof({c_name}, {field}));')
        program = ("#include <stddef.h>\n#include <stdio.h>\n#include \"slicegen.h\"\n"
                   "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n")
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "layout.c"), "w") as f:
                f.write(program)
            exe = os.path.join(tmp, "layout")
            build = subprocess.run([CC, "-std=c11", "-I", os.path.dirname(HEADER), "-o", exe,
                                    os.path.join(tmp, "layout.c")], capture_output=True, text=True)
            self.assertEqual(build.returncode, 0, build.stderr)
            measured = dict(line.split() for line in subprocess.run([exe], capture_output=True, text=True,
                                                                    check=True).stdout.splitlines())
        for c_name, struct in structs.items():
            self.assertEqual(int(measured[c_name]), ctypes.sizeof(struct), c_name)
            for field in struct._public_:
                self.assertEqual(int(measured[f"{c_name}.{field}"]), getattr(struct, field).offset,
                                 f"{c_name}.{field}")

    def test_enums(self):
        lib = slicegen._core._lib
        names = ["bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"]
        self.assertEqual([lib.sg_dtype_name(i).decode() for i in range(13)], names)
        self.assertEqual({n: slicegen._core._SG_CODES[n] for n in names}, {n: i for i, n in enumerate(names)})
        self.assertEqual([lib.sg_trt_mode_name(i).decode() for i in range(5)],
                         ["strict", "wrap", "clamp", "fill", "reflect"])
        self.assertEqual([lib.sg_status_name(i).decode() for i in range(7)],
                         ["ok", "usage", "spec", "slice", "io", "nomem", "internal"])
        self.assertEqual(_capi.SG_KERNEL_NAME_MAX, 96)
        self.assertIs(lib.sg_is_identifier(b"mirror"), True)
        self.assertIs(lib.sg_is_identifier(b"2x"), False)


if __name__ == "__main__":
    unittest.main()

"""slicegen: machine code made for exactly one tensor slice, on NumPy arrays.

    >>> import numpy as np, slicegen
    >>> x = np.arange(12, dtype=np.float32).reshape(3, 4)
    >>> slicegen.slice(x, "[1:, ::-1]")            # x[1:, ::-1], as a new array
    >>> k = slicegen.compile(slicegen.TrtSlice(start=(-1, -1), size=(5, 6), mode="reflect"), x.shape, x.dtype)
    >>> k(x, threads=2)                             # a JIT kernel, reusable
    >>> slicegen.emit("[::2]", (64, 64), "f32", "half.o", header="half.h", name="half")
    >>> k = slicegen.compile("[1:, ::2]", (None, 6), "f32")   # None: known at run time
    >>> k(np.zeros((5, 6), np.float32)).shape                # one kernel for every size: (4, 3)
    >>> model = slicegen.read_model("model.onnx")            # its slice layers (OpenVINO .xml too)
    >>> [(l.name, l.spec, l.shape, l.skip_reason) for l in model], model.folded
    >>> slicegen.aot("model.onnx", "slices.o", header="slices.h", fuse=True)   # `slicegen aot`

A symbolic kernel (a None dimension, or values named in the spec, "[:, :t]")
takes its values by keyword, kernel(x, t=3); kernel.value_names lists them.

Kernel calls and slicegen.slice run in the C extension slicegen._ext
(python/src/slicegen_ext.c); the rest is Python over libslicegen.so
(ctypes). The library is looked for at
$SLICEGEN_LIBRARY, then next to this module, then on the system's library
path; `slicegen.library_path` is the file loaded. Errors raise SliceError,
a ValueError carrying the library's one-line message.
"""
from ._capi import SG_DEFAULT_OPT_LEVEL as DEFAULT_OPT_LEVEL
from ._core import (Context, Kernel, OnnxSlice, Pad, Slice, SliceError, StridedSlice, TrtSlice, compile,
                    default_context, emit, library_path, llvm_version, slice)
from ._model import AotResult, Fusion, Layer, Model, Symbol, aot, read_model

__version__ = "0.1.0"
__all__ = ["Context", "Kernel", "OnnxSlice", "Pad", "Slice", "SliceError", "StridedSlice", "TrtSlice", "compile",
           "default_context", "emit", "library_path", "llvm_version", "slice", "DEFAULT_OPT_LEVEL",
           "AotResult", "Fusion", "Layer", "Model", "Symbol", "aot", "read_model"]

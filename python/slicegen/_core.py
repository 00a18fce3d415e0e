"""Contexts, kernels, the three ops and the module-level functions.

Ownership: a Context owns one sg_context; a Kernel owns one sg_plan and one
reference to an sg_kernel of its context. Both are freed by finalizers
(weakref.finalize), when the Python object goes away or at the latest at
interpreter exit; a context releases the kernels still alive before it is
destroyed, so no kernel outlives its context in C.

Locking: every call on a context's C object goes through its lock, except
kernel runs and kernel releases, which the C API allows concurrently
(include/slicegen.h, "Threads"); a context's gate (_ext.Gate) counts the runs
made without the GIL, so that closing a context waits for the runs in flight.

Kernel calls and slicegen.slice run in the extension _ext (python/src/
slicegen_ext.c): it checks the arguments and runs the kernel, and calls the
helpers below (_setup) for what it does not accept as it is: they convert
the argument or raise the error.
"""
import builtins
import collections
import collections.abc
import ctypes
import dataclasses
import math
import operator
import os
import shlex
import struct
import threading
import weakref

import numpy as np

from . import _capi

_lib, library_path = _capi.load()
_libc = _capi.load_libc()
try:
    # After the library: the extension's libslicegen.so.0 is the one loaded.
    from . import _ext
except ImportError as e:
    raise ImportError(f"slicegen: the extension slicegen._ext is not built ({e}): pip install ./python, "
                      "or build with CMake and put build/python on PYTHONPATH") from None

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class SliceError(ValueError):
    """A slice slicegen cannot make, plan, compile or run.

    str(error) is one line, "failed to <verb> <object>: <rule> (<values>)",
    for errors of the library exactly its message (as `slicegen` prints it
    after "slicegen: error: "). `status` names the kind: "usage", "spec",
    "slice", "io", "nomem" or "internal" (sg_status_name)."""

    def __init__(self, message, status="usage"):
        super().__init__(message)
        self.status = status


# ---- element types -------------------------------------------------------------------

def _library_types():
    """{slicegen name: (code, .npy descr)} for every element type of the
    library (common/dtypes.def), in its order."""
    types, code = {}, 0
    while (name := _lib.sg_dtype_name(code)) is not None:
        types[name.decode()] = (code, _lib.sg_dtype_npy(code).decode())
        code += 1
    return types


_LIBRARY_TYPES = _library_types()
# NumPy's own types by descr; bf16's ("V2", void) is ml_dtypes' bfloat16 (below).
_NUMPY_TYPES = {name: np.dtype(descr).type for name, (_, descr) in _LIBRARY_TYPES.items() if descr != "V2"}
_SG_CODES = {name: code for name, (code, _) in _LIBRARY_TYPES.items()}
_BY_NUMPY = {np.dtype(t): name for name, t in _NUMPY_TYPES.items()}
_bf16_cache = []  # [] not looked up yet; [None] ml_dtypes missing; [dtype]


def _bfloat16():
    """ml_dtypes.bfloat16 as a NumPy dtype, or None without ml_dtypes."""
    if not _bf16_cache:
        try:
            import ml_dtypes
            _bf16_cache.append(np.dtype(ml_dtypes.bfloat16))
        except ImportError:
            _bf16_cache.append(None)
    return _bf16_cache[0]


def _no_bf16():
    return SliceError("failed to make plan: element type bfloat16 needs the ml_dtypes package, "
                      "which is not installed (Debian has no package for it: pip install ml_dtypes)")


def _element_type(dtype):
    """(NumPy dtype, slicegen name) for anything np.dtype takes, or a slicegen
    name (f32, bf16, ...); SliceError for a type slicegen lacks."""
    if isinstance(dtype, str):
        key = dtype.strip().lower()
        if key in ("bf16", "bfloat16"):
            bf16 = _bfloat16()
            if bf16 is None:
                raise _no_bf16()
            return bf16, "bf16"
        if key in _NUMPY_TYPES:
            return np.dtype(_NUMPY_TYPES[key]), key
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise SliceError(f"failed to make plan: {dtype!r} is not an element type ({e})") from None
    bf16 = _bfloat16()
    if bf16 is not None and dt == bf16:
        return dt, "bf16"
    if dt.fields is None and dt.subdtype is None and not dt.isnative and dt.newbyteorder("=") in _BY_NUMPY:
        raise SliceError(f"failed to make plan: element type {dt.str} is not in the machine's byte order "
                         f"(convert it with .astype({dt.newbyteorder('=').name!r}))")
    name = _BY_NUMPY.get(dt)
    if name is None:
        raise SliceError(f"failed to make plan: slicegen has no element type {dt} (it has bool, int8 to "
                         "int64, uint8 to uint64, float16, float32, float64, and bfloat16 with ml_dtypes)")
    return dt, name


# ---- lists of integers -----------------------------------------------------------------

def _int64(value, what, op):
    try:
        v = operator.index(value)
    except TypeError:
        raise SliceError(f"failed to make {op}: {what} is {value!r}, not an integer") from None
    if not INT64_MIN <= v <= INT64_MAX:
        raise SliceError(f"failed to make {op}: {what} = {v} does not fit in 64 bits")
    return v


def _ints(values, name, op):
    """A tuple of int64 values from a sequence of integers or a string "1,-2,3"."""
    if isinstance(values, str):
        text = values.strip()
        try:
            values = [int(w) for w in text.split(",")] if text else []
        except ValueError:
            raise SliceError(f"failed to make {op}: {name} '{text}' is not a comma-separated list "
                             "of integers") from None
    elif isinstance(values, (bytes, bytearray)) or not isinstance(values, collections.abc.Iterable):
        raise SliceError(f"failed to make {op}: {name} is {values!r}, not a list of integers")
    return tuple(_int64(v, f"{name}[{i}]", op) for i, v in enumerate(values))


def _same_length(op, names, lists):
    """The CLI's rule and message: given lists have the first one's length."""
    for name, values in zip(names[1:], lists[1:]):
        if values is not None and len(values) != len(lists[0]):
            raise SliceError(f"failed to make {op}: {names[0]} and {name} must have the same length "
                             f"({len(lists[0])} and {len(values)})", "spec")


def _words_list(values):
    return ",".join(str(v) for v in values)


# ---- the ops -------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class StridedSlice:
    """OpenVINO StridedSlice-1. begin, end and stride (None: ones) have one
    entry per step; each mask is a list of 0s and 1s as in OpenVINO IR
    attributes (shorter ones are padded with zeros). Lists may also be
    given as strings, "1,0,-1"."""
    begin: tuple
    end: tuple
    stride: tuple = None
    begin_mask: tuple = ()
    end_mask: tuple = ()
    new_axis_mask: tuple = ()
    shrink_axis_mask: tuple = ()
    ellipsis_mask: tuple = ()

    _masks = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")

    def __post_init__(self):
        op = "StridedSlice"
        for name in ("begin", "end", "stride") + self._masks:
            value = getattr(self, name)
            if value is not None or name != "stride":
                object.__setattr__(self, name, _ints(value, name, op))
        _same_length(op, ("begin", "end", "stride"), (self.begin, self.end, self.stride))

    def to_words(self):
        """The command line's SPEC words for this op."""
        words = ["--op", "StridedSlice", "--begin", _words_list(self.begin), "--end", _words_list(self.end)]
        if self.stride is not None:
            words += ["--stride", _words_list(self.stride)]
        for name in self._masks:
            if getattr(self, name):
                words += ["--" + name.replace("_", "-"), _words_list(getattr(self, name))]
        return words

    def _make(self, ctx):
        arrays = {n: _capi.int64_array(getattr(self, n)) for n in ("begin", "end") + self._masks}
        stride = _capi.int64_array(self.stride) if self.stride is not None else None
        masks = {n: _capi.Mask(arrays[n], len(getattr(self, n))) for n in self._masks}
        args = _capi.StridedSliceArgs(len(self.begin), arrays["begin"], arrays["end"], stride, **masks)
        spec = _capi.SpecP()
        return _lib.sg_spec_strided_slice(ctx, ctypes.byref(args), ctypes.byref(spec)), spec


@dataclasses.dataclass(frozen=True)
class Slice:
    """OpenVINO Slice-8: start, stop, step (None: ones) and axes (None:
    0..len-1; negative axes count from the end), one entry each per sliced
    axis; the axes not named are copied whole."""
    start: tuple
    stop: tuple
    step: tuple = None
    axes: tuple = None

    _op = "Slice"

    def __post_init__(self):
        for name in ("start", "stop", "step", "axes"):
            value = getattr(self, name)
            if value is not None or name in ("start", "stop"):
                object.__setattr__(self, name, _ints(value, name, self._op))
        _same_length(self._op, ("start", "stop", "step", "axes"), (self.start, self.stop, self.step, self.axes))

    def to_words(self):
        words = ["--op", self._op, "--start", _words_list(self.start), "--stop", _words_list(self.stop)]
        for name in ("step", "axes"):
            if getattr(self, name) is not None:
                words += ["--" + name, _words_list(getattr(self, name))]
        return words

    def _make(self, ctx):
        start, stop = _capi.int64_array(self.start), _capi.int64_array(self.stop)
        step = _capi.int64_array(self.step) if self.step is not None else None
        axes = _capi.int64_array(self.axes) if self.axes is not None else None
        spec = _capi.SpecP()
        make = _lib.sg_spec_slice if self._op == "Slice" else _lib.sg_spec_onnx_slice
        return make(ctx, len(self.start), start, stop, step, axes, ctypes.byref(spec)), spec


@dataclasses.dataclass(frozen=True)
class OnnxSlice(Slice):
    """ONNX Slice (opsets 1-13) as ONNX Runtime runs it: Slice's fields and
    rule, except that a stop of 2**31 - 1 or 2**63 - 1 means the end of the
    axis whichever the sign of the step."""
    _op = "OnnxSlice"


_TRT_MODES = ("strict", "wrap", "clamp", "fill", "reflect")


@dataclasses.dataclass(frozen=True)
class TrtSlice:
    """TensorRT ISliceLayer: start, size (the output shape) and stride (None:
    ones) have one entry per input dimension; output element y reads input
    coordinate x = y * stride + start, which mode maps into the input:
    "strict" (x must be inside), "wrap", "clamp", "fill" or "reflect" (see
    docs/semantics.md). fill (mode "fill" only; None: 0) is a bool, an
    integer, a float or a string such as "nan" or "-inf", converted to the
    element type when the kernel is made."""
    start: tuple
    size: tuple
    stride: tuple = None
    mode: str = "strict"
    fill: object = None

    def __post_init__(self):
        op = "TrtSlice"
        for name in ("start", "size", "stride"):
            value = getattr(self, name)
            if value is not None or name != "stride":
                object.__setattr__(self, name, _ints(value, name, op))
        _same_length(op, ("start", "size", "stride"), (self.start, self.size, self.stride))
        if self.mode not in _TRT_MODES:
            raise SliceError(f"failed to make TrtSlice: unknown mode {self.mode!r} "
                             "(expected strict, wrap, clamp, fill or reflect)")
        if self.fill is not None:
            object.__setattr__(self, "fill", _fill_value(op, self.fill, self.mode, "fill", "fill"))

    def to_words(self):
        words = ["--op", "TrtSlice", "--start", _words_list(self.start), "--size", _words_list(self.size)]
        if self.stride is not None:
            words += ["--stride", _words_list(self.stride)]
        if self.mode != "strict":
            words += ["--mode", self.mode]
        if self.fill is not None:
            words += ["--fill", _fill_text(self.fill)]
        return words

    def _make(self, ctx):
        status, fill = _scalar(ctx, "TrtSlice", self.fill)
        if status != _capi.SG_OK:
            return status, None
        start, size = _capi.int64_array(self.start), _capi.int64_array(self.size)
        stride = _capi.int64_array(self.stride) if self.stride is not None else None
        mode = _capi.trt_mode_t()
        if not _lib.sg_trt_mode_parse(self.mode.encode(), ctypes.byref(mode)):
            raise SliceError(f"failed to make TrtSlice: {library_path} lacks mode {self.mode!r}")
        spec = _capi.SpecP()
        status = _lib.sg_spec_trt_slice(ctx, len(self.start), start, size, stride, mode.value,
                                        ctypes.byref(fill) if fill is not None else None, ctypes.byref(spec))
        return status, spec


_PAD_MODES = ("constant", "edge", "reflect", "wrap")


@dataclasses.dataclass(frozen=True)
class Pad:
    """ONNX Pad and OpenVINO Pad-12: begin[i] elements added before axis
    axes[i] and end[i] after it (axes None: 0..len-1; negative axes count
    from the end; the axes not named are copied whole). A negative pad
    removes that many elements first. mode: "constant" (with value; None:
    0, given as TrtSlice's fill is), "edge", "reflect" or "wrap", as ONNX
    Runtime computes them (see docs/semantics.md)."""
    begin: tuple
    end: tuple
    axes: tuple = None
    mode: str = "constant"
    value: object = None

    def __post_init__(self):
        for name in ("begin", "end", "axes"):
            value = getattr(self, name)
            if value is not None or name != "axes":
                object.__setattr__(self, name, _ints(value, name, "Pad"))
        _same_length("Pad", ("begin", "end", "axes"), (self.begin, self.end, self.axes))
        if self.mode not in _PAD_MODES:
            raise SliceError(f"failed to make Pad: unknown mode {self.mode!r} "
                             "(expected constant, edge, reflect or wrap)")
        if self.value is not None:
            object.__setattr__(self, "value", _fill_value("Pad", self.value, self.mode, "constant", "value"))

    def to_words(self):
        words = ["--op", "Pad", "--pads-begin", _words_list(self.begin), "--pads-end", _words_list(self.end)]
        if self.axes is not None:
            words += ["--axes", _words_list(self.axes)]
        words += ["--mode", self.mode]
        if self.value is not None:
            words += ["--value", _fill_text(self.value)]
        return words

    def _make(self, ctx):
        status, value = _scalar(ctx, "Pad", self.value)
        if status != _capi.SG_OK:
            return status, None
        begin, end = _capi.int64_array(self.begin), _capi.int64_array(self.end)
        axes = _capi.int64_array(self.axes) if self.axes is not None else None
        mode = {"wrap": 1, "edge": 2, "constant": 3, "reflect": 4}[self.mode]  # sg_trt_mode
        spec = _capi.SpecP()
        status = _lib.sg_spec_pad(ctx, len(self.begin), begin, end, axes, mode,
                                  ctypes.byref(value) if value is not None else None, ctypes.byref(spec))
        return status, spec


def _fill_value(op, fill, mode, fill_mode, field):
    """A fill value as a spec keeps it: a bool, an int of 64 bits, a float
    or a string; only with the mode that fills."""
    if mode != fill_mode:
        raise SliceError(f"failed to make {op}: a {'fill ' if field == 'fill' else ''}value needs mode "
                         f"{fill_mode!r} (the mode is {mode!r})")
    if isinstance(fill, (bool, np.bool_)):
        return bool(fill)
    if isinstance(fill, (int, np.integer)):
        fill = int(fill)
        if not INT64_MIN <= fill < 2**64:
            raise SliceError(f"failed to make {op}: {field} value {fill} does not fit in 64 bits")
        return fill
    if isinstance(fill, (float, np.floating)):
        return float(fill)
    if not isinstance(fill, str):
        raise SliceError(f"failed to make {op}: {field} value {fill!r} is not a bool, an integer, "
                         "a float or a string")
    return fill


def _scalar(ctx, op, fill):
    """(status, sg_scalar or None) of a fill value kept by _fill_value."""
    if fill is None:
        return _capi.SG_OK, None
    scalar = _capi.Scalar()
    if isinstance(fill, str):
        if "\0" in fill:
            raise SliceError(f"failed to make {op}: the fill value holds a NUL character")
        return _lib.sg_scalar_parse(ctx, fill.encode(), ctypes.byref(scalar)), scalar
    if isinstance(fill, bool):
        scalar.kind, scalar.i = _capi.SG_SCALAR_BOOL, int(fill)
    elif isinstance(fill, int) and fill > INT64_MAX:
        scalar.kind, scalar.u = _capi.SG_SCALAR_UINT, fill
    elif isinstance(fill, int):
        scalar.kind, scalar.i = _capi.SG_SCALAR_INT, fill
    else:
        scalar.kind, scalar.f = _capi.SG_SCALAR_FLOAT, fill
    return _capi.SG_OK, scalar


def _fill_text(fill):
    if isinstance(fill, bool):
        return "true" if fill else "false"
    if isinstance(fill, float) and math.isnan(fill):  # repr drops a NaN's sign
        return "-nan" if math.copysign(1.0, fill) < 0 else "nan"
    return repr(fill) if isinstance(fill, float) else str(fill)


# ---- specs as the user gives them --------------------------------------------------------

def _index_item(item):
    if item is None:
        return "None"
    if item is Ellipsis:
        return "..."
    if isinstance(item, builtins.slice):
        parts = []
        for bound in (item.start, item.stop, item.step):
            if bound is None:
                parts.append("")
            elif isinstance(bound, (bool, np.bool_)):
                raise SliceError(f"failed to parse index: slice bound {bound!r} is a boolean")
            else:
                try:
                    parts.append(str(operator.index(bound)))
                except TypeError:
                    raise SliceError(f"failed to parse index: slice bound {bound!r} is not an integer "
                                     "or None") from None
        return ":".join(parts)
    if isinstance(item, (bool, np.bool_)):
        raise SliceError(f"failed to parse index: {item!r} is a boolean index (advanced indexing, "
                         "which slicegen does not do)")
    try:
        return str(operator.index(item))
    except TypeError:
        raise SliceError(f"failed to parse index: {item!r} is not a basic index (an integer, a slice, "
                         "None or Ellipsis)") from None


def _normalize_spec(spec):
    """A hashable form of spec: an expression string, an op, or a tuple of
    command-line words (also from one string of them, "--op Slice --start
    1 ...", as a model layer's spec text and `slicegen aot` headers give it)."""
    if isinstance(spec, str) and spec.lstrip().startswith("--"):
        try:
            return tuple(shlex.split(spec))
        except ValueError as e:
            raise SliceError(f"failed to parse spec: {spec!r} is not a list of command-line words ({e})",
                             "spec") from None
    if isinstance(spec, str) or isinstance(spec, (StridedSlice, Slice, TrtSlice, Pad)):
        return spec
    if isinstance(spec, (list, tuple)) and spec and all(isinstance(w, str) for w in spec):
        return tuple(spec)
    items = spec if isinstance(spec, tuple) else (spec,)
    return "[" + ", ".join(_index_item(i) for i in items) + "]" if items else "[...]"


def _slice_key(spec):
    """A key for a normalized spec that is equal only for specs that make the
    same kernels: a TrtSlice's fill or a Pad's value by its type and, for a float, its bits
    (0 == -0.0 == False in Python, not in a float kernel)."""
    if isinstance(spec, TrtSlice) and spec.fill is not None:
        fill = struct.pack("<d", spec.fill) if isinstance(spec.fill, float) else spec.fill
        return TrtSlice, spec.start, spec.size, spec.stride, spec.mode, type(spec.fill), fill
    if isinstance(spec, Pad) and spec.value is not None:
        value = struct.pack("<d", spec.value) if isinstance(spec.value, float) else spec.value
        return Pad, spec.begin, spec.end, spec.axes, spec.mode, type(spec.value), value
    return spec


def _spec_name(spec):
    return spec if isinstance(spec, str) else " ".join(spec) if isinstance(spec, tuple) else repr(spec)


# ---- text from the library --------------------------------------------------------------

def _captured(printer, obj):
    """What printer(obj, FILE *) writes, as a string."""
    buf, size = ctypes.c_void_p(), ctypes.c_size_t()
    stream = _libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not stream:
        raise MemoryError("open_memstream failed")
    try:
        printer(obj, stream)
    finally:
        _libc.fclose(stream)
    try:
        return ctypes.string_at(buf.value, size.value).decode("utf-8", "replace") if buf.value else ""
    finally:
        _libc.free(buf)


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%")


def _command_form(spec_text):
    """The spec as `slicegen emit` quotes it in headers: an expression as one
    shell word (single-quoted unless plain); an op's words are printed so."""
    if spec_text.startswith("--op"):
        return spec_text
    if spec_text and set(spec_text) <= _PLAIN:
        return spec_text
    return "'" + spec_text.replace("'", "'\\''") + "'"


def _status_name(status):
    name = _lib.sg_status_name(status)
    return name.decode() if name else str(status)


def _threads(threads):
    try:
        n = operator.index(threads)
    except TypeError:
        raise SliceError(f"failed to run kernel: threads is {threads!r}, not an integer") from None
    if n < 1:
        raise SliceError(f"failed to run kernel: {n} threads (at least 1)")
    return min(n, 2**31 - 1)


def _store_names():
    """The store settings' names, in sg_stores's order (the library's table)."""
    names = []
    while True:
        name = _lib.sg_stores_name(len(names))
        if name is None:
            return names
        names.append(name.decode())


_STORES = {name: code for code, name in enumerate(_store_names())}


def _stores(stores):
    """The sg_stores of stores= ("auto", "cached" or "streaming")."""
    if not isinstance(stores, str) or stores not in _STORES:
        names = [repr(name) for name in _STORES]
        raise SliceError(f"failed to compile kernel: stores {stores!r} (expected {', '.join(names[:-1])} or "
                         f"{names[-1]})")
    return _STORES[stores]


def _opt_level(level):
    try:
        n = operator.index(level)
    except TypeError:
        raise SliceError(f"failed to compile kernel: optimization level {level!r} is not an integer") from None
    if not 0 <= n <= 3:
        raise SliceError(f"failed to compile kernel: optimization level {n} (0..3)")
    return n


def _shape(shape):
    """The dimensions of shape as the C API takes them: None (a dimension
    known at run time) is -1."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        given = tuple(None if d is None else operator.index(d) for d in shape)
    except TypeError:
        raise SliceError(f"failed to make plan: shape {shape!r} is not a sequence of integers "
                         "(or None)") from None
    for i, d in enumerate(given):
        if d is not None and not 0 <= d <= INT64_MAX:
            raise SliceError(f"failed to make plan: dimension {i} of shape {given} is {d}, "
                             "not in [0, 2**63) (None: a dimension known at run time)")
    return tuple(-1 if d is None else d for d in given)


def _py_shape(dims):
    """A C shape as Python shows it: None for -1, a dimension known at run time."""
    return tuple(None if d == -1 else d for d in dims)


def _path(path, what):
    if path is None:
        return None
    data = os.fsencode(path)
    if b"\0" in data:
        raise SliceError(f"failed to write {what}: the path holds a NUL character")
    return data


# ---- contexts ----------------------------------------------------------------------------

class _State:
    """What a context's finalizer and its kernels' finalizers share: the C
    context, its lock, the runs in flight and the kernels not yet released."""

    def __init__(self, ptr):
        self.ptr = ptr
        self.lock = threading.RLock()
        self.gate = _ext.Gate(_address(ptr))
        self.releasing = threading.RLock()  # over kernels
        self.kernels = {}  # id -> sg_kernel *, those not yet released


def _address(pointer):
    return ctypes.cast(pointer, ctypes.c_void_p).value


def _destroy_context(state):
    # lock, then releasing: the order of a kernel finalizer that garbage
    # collection runs inside a locked call
    with state.lock:
        state.gate.close()
        with state.releasing:
            if state.ptr is not None:
                while state.kernels:
                    _lib.sg_kernel_destroy(state.kernels.popitem()[1])
                _lib.sg_context_destroy(state.ptr)
                state.ptr = None


def _release_kernel(state, key, kernel, plan):
    with state.releasing:
        if state.kernels.pop(key, None) is not None:
            _lib.sg_kernel_destroy(kernel)
    _lib.sg_plan_destroy(plan)


class Context:
    """A slicegen context: its kernel cache (the library's, plus the last
    64 kernels slice() used), its thread pool (for threads > 1) and its
    last error. Methods may be called from any thread. close(), or the end
    of the interpreter, destroys it; its kernels then refuse to run.
    slicegen.compile, slice and emit use a module-level context."""

    _SLICE_CACHE = 64

    def __init__(self):
        self._slicer = _ext.Slicer(self._slice_kernel)
        ptr = _capi.ContextP()
        if _lib.sg_context_create(ctypes.byref(ptr)) != _capi.SG_OK:
            raise MemoryError("failed to make context: out of memory")
        self._state = _State(ptr)
        self._finalizer = weakref.finalize(self, _destroy_context, self._state)
        self._slice_cache = collections.OrderedDict()
        self._kernel_ids = iter(range(2**62))

    def close(self):
        """Destroys the C context (after the runs in flight end) and releases
        its kernels. Idempotent."""
        with self._state.lock:
            self._slice_cache.clear()
            self._slicer.forget()
            self._finalizer()

    @property
    def closed(self):
        return self._state.ptr is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _error(self, status):
        """The SliceError of the failed call (with the lock held). A context
        closed since the call (only a kernel run can see that) has lost the
        message: the error then says so."""
        if self._state.ptr is None:
            return SliceError(f"failed to run kernel: {_status_name(status)} (the context was closed before "
                              "the message could be read)", _status_name(status))
        message = _lib.sg_context_last_error(self._state.ptr)
        return SliceError(message.decode("utf-8", "replace") if message else _status_name(status),
                          _status_name(status))

    def _open_ptr(self):
        if self._state.ptr is None:
            raise SliceError("failed to use context: it is closed")
        return self._state.ptr

    def _make_spec(self, spec):
        """A new sg_spec * for a normalized spec (lock held); the caller destroys it."""
        ctx = self._open_ptr()
        if isinstance(spec, str):
            if "\0" in spec:
                raise SliceError("failed to parse expression: it holds a NUL character", "spec")
            out = _capi.SpecP()
            status = _lib.sg_spec_numpy(ctx, spec.encode(), ctypes.byref(out))
        elif isinstance(spec, tuple):
            if any("\0" in w for w in spec):
                raise SliceError("failed to parse spec: a word holds a NUL character")
            words = (ctypes.c_char_p * max(len(spec), 1))(*[w.encode() for w in spec])
            out = _capi.SpecP()
            status = _lib.sg_spec_from_words(ctx, len(spec), words, ctypes.byref(out))
        else:
            status, out = spec._make(ctx)
        if status != _capi.SG_OK:
            raise self._error(status)
        return out

    def _plan(self, spec, shape, dtype):
        """(sg_plan *, NumPy dtype, shape, spec text); the caller destroys the plan."""
        spec = _normalize_spec(spec)
        dt, name = _element_type(dtype)
        dims = _shape(shape)
        with self._state.lock:
            c_spec = self._make_spec(spec)
            plan = _capi.PlanP()
            try:
                spec_text = _captured(_lib.sg_spec_print, c_spec).strip()
                status = _lib.sg_plan_create(self._state.ptr, c_spec, len(dims), _capi.int64_array(dims),
                                             _SG_CODES[name], ctypes.byref(plan))
                if status != _capi.SG_OK:
                    raise self._error(status)
            finally:
                _lib.sg_spec_destroy(c_spec)
        return plan, dt, dims, spec_text

    def compile(self, spec, shape, dtype, *, opt_level=_capi.SG_DEFAULT_OPT_LEVEL, stores="auto"):
        """Plans spec on an input of this shape and dtype and JIT-compiles its
        kernel (a cache hit when the same loop nest was compiled before).

        spec: a NumPy index expression ("[1:, ::-1]", "x[..., None, 0]"), a
        Python index (np.s_[1:, ::-1]), a StridedSlice, Slice or TrtSlice,
        or the command line's SPEC words (["--op", "Slice", ...], or one
        string of them, "--op Slice --start 1 ...", as a model layer's spec).
        shape: the input's dimensions; None for one known only at run time.
        With a None, or values named in the spec ("[:, :t]"), the kernel is
        symbolic: one kernel for every such number, given at each call
        (kernel(x, t=3); see Kernel). No value may be named out or threads.
        dtype: a NumPy dtype (or anything np.dtype takes) or a slicegen name
        ("f32", "bf16"); bfloat16 needs ml_dtypes.
        stores: "auto" (streaming stores when the output is larger than half
        the last-level cache and its rows are long pieces, or short ones
        where this machine was measured to gain by it), "cached" or
        "streaming", as `--stores`.
        Raises SliceError."""
        level = _opt_level(opt_level)
        store_kind = _stores(stores)
        plan, dt, dims, spec_text = self._plan(spec, shape, dtype)
        try:
            clash = [n for n in _value_names(plan) if n in _CALL_KEYWORDS]
            if clash:
                raise SliceError(f"failed to make plan: the value {clash[0]} has the name of a keyword of "
                                 f"the kernel's call (out, threads): rename it", "usage")
            kernel = _capi.KernelP()
            # The kernel is registered under the lock that compiled it: a
            # close() in between would destroy the context under it.
            with self._state.lock:
                options = _capi.compile_options(_lib, opt_level=level, stores=store_kind)
                status = _lib.sg_kernel_compile_with(self._open_ptr(), plan, ctypes.byref(options),
                                                     ctypes.byref(kernel))
                if status != _capi.SG_OK:
                    raise self._error(status)
                return Kernel._made(self, plan, kernel, dt, dims, spec_text, level)
        except BaseException:
            _lib.sg_plan_destroy(plan)
            raise

    def slice(self, x, spec, *, out=None, threads=1):
        """spec applied to x (see slicegen.slice), with this context's kernels."""
        return self._slicer(x, spec, out=out, threads=threads)

    def _slice_kernel(self, x, spec):
        """The kernel of spec for x: from the cache of the last kernels
        slice() used, else compiled."""
        x = _array(x)
        spec = _normalize_spec(spec)
        key = (_slice_key(spec), x.shape, x.dtype)
        with self._state.lock:
            kernel = self._slice_cache.get(key)
            if kernel is not None:
                self._slice_cache.move_to_end(key)
        if kernel is None:
            kernel = self.compile(spec, x.shape, x.dtype)
            with self._state.lock:
                if self._state.ptr is not None:  # a closed context's kernels are not kept
                    self._slice_cache[key] = kernel
                while len(self._slice_cache) > self._SLICE_CACHE:
                    self._slice_cache.popitem(last=False)
        return kernel

    def emit(self, spec, shape, dtype, path, header=None, target=None, *, name=None, cpu=None,
             opt_level=_capi.SG_DEFAULT_OPT_LEVEL, cf_protection=True, stores="auto"):
        """Compiles spec ahead of time (see slicegen.emit); returns the kernel's symbol."""
        level = _opt_level(opt_level)
        store_kind = _stores(stores)
        plan, _, _, spec_text = self._plan(spec, shape, dtype)
        try:
            return self._emit(plan, spec_text, path, header, target, name, cpu, level, cf_protection,
                              store_kind)
        finally:
            _lib.sg_plan_destroy(plan)

    def _emit(self, plan, spec_text, path, header, target, name, cpu, level, cf_protection, stores=0):
        c_path, c_header = _path(path, "the output"), _path(header, "the header")
        if name is not None and (not isinstance(name, str) or "\0" in name):
            raise SliceError(f"failed to compile kernel: the name {name!r} is not a C identifier")
        for what, text in (("target", target), ("cpu", cpu)):
            if text is not None and (not isinstance(text, str) or "\0" in text):
                raise SliceError(f"failed to compile kernel: {what} {text!r} is not a string")
        kernel = _capi.AotKernel(plan, name.encode() if name is not None else None,
                                 _command_form(spec_text).encode(), None, -1)
        options = _capi.compile_options(_lib, target=target.encode() if target else None,
                                        cpu=cpu.encode() if cpu else None, opt_level=level,
                                        no_cf_protection=not cf_protection, stores=stores)
        with self._state.lock:
            ctx = self._open_ptr()
            if name is None:
                buf = ctypes.create_string_buffer(_capi.SG_KERNEL_NAME_MAX)
                status = _lib.sg_aot_kernel_name_with(ctx, ctypes.byref(kernel), ctypes.byref(options), buf)
                if status != _capi.SG_OK:
                    raise self._error(status)
                name = buf.value.decode()
                kernel.name = buf.value
            status = _lib.sg_aot_write_with(ctx, ctypes.byref(kernel), 1, ctypes.byref(options), c_path,
                                            c_header)
            if status != _capi.SG_OK:
                raise self._error(status)
        return name


# ---- kernels ---------------------------------------------------------------------------

class Kernel(_ext.KernelBase):
    """A JIT-compiled kernel for one slice of one input shape and dtype.
    Made by slicegen.compile or Context.compile; callable from any thread.
    The C kernel and plan are released when the object goes away.

    kernel(x, out=None, threads=1) runs the kernel on x and returns the
    output: out if given, else a new C-contiguous NumPy array (0-d where
    every dimension is taken by an integer index). x is a NumPy array, any
    object with the buffer protocol (memoryview, bytearray, ...) or a
    DLPack tensor on the CPU (a PyTorch tensor; np.from_dlpack) of the
    kernel's input shape and element type exactly (no casting): read in
    place when C-contiguous, copied first otherwise. out, if given, is a
    writable C-contiguous buffer of the output's shape and element type
    that does not overlap x. threads > 1 splits the work over the calling
    thread and threads-1 workers of the context's pool; the result is the
    same. A call writing more than 8 KiB (_ext.GIL_BYTES), or on several
    threads, releases the GIL while the kernel runs. Raises SliceError.

    A symbolic kernel takes its runtime values by keyword, named as
    value_names: kernel(x, t=3). x must have the kernel's rank and element
    type, and its fixed dimensions; the call is checked as the spec with
    the numbers written in would be (SliceError with the library's message,
    e.g. an index out of range). A missing or unknown value is a TypeError,
    a value that is not an integer of 64 bits a SliceError; a fill value
    (--fill NAME, --value NAME) is a number of the element type, given as
    TrtSlice's fill is (1.5, "nan", True); out must have the call's output
    shape.

    Attributes: input_shape, output_shape, dtype, spec, opt_level,
    outer_extent (the steps threads split), symbolic and value_names.

    A kernel is symbolic when its input shape holds None (a dimension known
    at run time) or its spec names values ("[:, :t]"): it is compiled once
    for every such number, given at each call (kernel(x, t=3)). Its
    input_shape and output_shape then hold None for each dimension known
    only at run time, outer_extent is None, and value_names names its
    values in the order of their first appearance in the spec (empty for a
    static kernel, and for one with None dimensions only)."""

    symbolic = False
    value_names = ()
    _fill = -1  # the index of the value that is a fill value (a symbolic kernel's), or -1

    @classmethod
    def _made(cls, context, plan, kernel, dtype, shape, spec_text, level):
        """The Kernel of a kernel just compiled, registered with its context;
        called with the context's lock still held, so that no close() comes
        between the compile and the registration."""
        if _lib.sg_plan_is_symbolic(plan):
            cls = _SymbolicKernel
        self = cls.__new__(cls)
        self._context = context
        self._state = state = context._state
        self._plan = plan
        self._kernel = kernel
        self.dtype = dtype
        self.input_shape = _py_shape(shape)
        rank = _lib.sg_plan_output_rank(plan)
        dims = _lib.sg_plan_output_shape(plan)
        self.output_shape = _py_shape(dims[i] for i in range(rank))
        self.opt_level = level
        self.spec = spec_text
        extent = _lib.sg_kernel_outer_extent(kernel)
        self.outer_extent = extent if extent >= 0 else None
        self._plan_text = None
        if cls is _SymbolicKernel:
            self._symbolic_init()
        bf16 = _bfloat16()
        self._bits = bf16 is not None and dtype == bf16  # bfloat16 runs on a uint16 view
        self._bind(state.gate, _address(kernel), dtype, None if self._bits else dtype.char, dtype.itemsize, shape,
                   None if cls is _SymbolicKernel else self.output_shape, self.value_names, cls is _SymbolicKernel,
                   self._fill)
        key = next(context._kernel_ids)
        with state.releasing:
            state.kernels[key] = kernel
        self._finalizer = weakref.finalize(self, _release_kernel, state, key, kernel, plan)
        return self

    def __init__(self, *args, **kwargs):
        raise TypeError("Kernel objects are made by slicegen.compile or Context.compile")

    def __repr__(self):
        values = f" (values {', '.join(self.value_names)})" if self.value_names else ""
        return (f"<slicegen.Kernel {self.spec}{values} on {self.input_shape} {self.dtype} -> "
                f"{self.output_shape}, -O{self.opt_level}>")

    @property
    def plan(self):
        """The plan as text, as `slicegen plan` prints it: the output shape and
        the folded loop nest (docs/plan-format.md)."""
        if self._plan_text is None:
            self._plan_text = _captured(_lib.sg_plan_print, self._plan)
        return self._plan_text

    def ir(self, opt_level=None):
        """The kernel's LLVM IR as text, as `slicegen ir` prints it: before any
        pass at opt_level 0, after the pass pipeline otherwise (default: the
        kernel's level)."""
        level = self.opt_level if opt_level is None else _opt_level(opt_level)
        text = ctypes.c_void_p()
        with self._state.lock:
            options = _capi.compile_options(_lib, opt_level=level)
            status = _lib.sg_kernel_ir_with(self._context._open_ptr(), self._plan, ctypes.byref(options),
                                            ctypes.byref(text))
            if status != _capi.SG_OK:
                raise self._context._error(status)
        try:
            return ctypes.string_at(text.value).decode("utf-8", "replace")
        finally:
            _lib.sg_free(text)

    def emit(self, path, header=None, target=None, *, name=None, cpu=None, opt_level=None,
             cf_protection=True, stores="auto"):
        """Writes this kernel's plan ahead of time, as slicegen.emit does."""
        level = self.opt_level if opt_level is None else _opt_level(opt_level)
        return self._context._emit(self._plan, self.spec, path, header, target, name, cpu, level,
                                   cf_protection, _stores(stores))

    def _input(self, x):
        x = _array(x)
        if x.shape != self.input_shape:
            raise SliceError(f"failed to run kernel: the input's shape is {x.shape}, the kernel's "
                             f"{self.input_shape}")
        if x.dtype != self.dtype:
            raise _dtype_error("the input's", x.dtype, self.dtype)
        return np.ascontiguousarray(x)

    def _output(self, out, x):
        if out is None:
            return np.empty(self.output_shape, self.dtype)
        return _checked_out(out, x, self.output_shape, self.dtype)

    def _run(self, call, x, out):
        """call(ctx, in, out) counted as a run of the context; returns out."""
        state = self._state
        state.gate.enter()
        try:
            status = call(state.ptr, x.ctypes.data, out.ctypes.data)
        finally:
            state.gate.leave()
        if status != _capi.SG_OK:
            _run_error(self, status)
        return out

    def _numbers(self, values, call):
        """The values of one call, in value_names' order: keyword arguments
        named exactly as the values (TypeError otherwise, as Python's own
        for a function's arguments), integers of 64 bits (SliceError)."""
        names = self.value_names
        try:
            given = [values[name] for name in names]
        except KeyError:
            given = None
        if given is None or len(values) != len(names):
            takes = f"the kernel's values are {', '.join(names)}" if names else "the kernel takes no values"
            missing = [n for n in names if n not in values]
            if missing:
                raise TypeError(f"{call}() missing {_plural(len(missing), 'required keyword argument')}: "
                                f"{_quoted(missing)} ({takes})")
            unknown = next(n for n in values if n not in names)
            raise TypeError(f"{call}() got an unexpected keyword argument {unknown!r} ({takes})")
        numbers = []
        for i, (name, value) in enumerate(zip(names, given)):
            if i == self._fill:
                numbers.append(self._fill_bits(name, value))
                continue
            try:
                v = operator.index(value)
            except TypeError:
                raise SliceError(f"failed to run kernel: value {name} is {value!r}, not an integer") from None
            if not INT64_MIN <= v <= INT64_MAX:
                raise SliceError(f"failed to run kernel: value {name} = {v} does not fit in 64 bits")
            numbers.append(v)
        return numbers

    def _fill_bits(self, name, value):
        """The runtime fill value `value` (a number of the element type, as
        TrtSlice's fill is given) as the kernel takes it: its bits."""
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, (bool, int, float, str)):
            raise SliceError(f"failed to run kernel: value {name} is {value!r}, not a number")
        bits = ctypes.c_int64()
        with self._context._state.lock:
            ctx = self._context._open_ptr()
            status, scalar = _scalar(ctx, "kernel", value)
            if status == _capi.SG_OK:
                status = _lib.sg_fill_bits(ctx, ctypes.byref(scalar), _lib.sg_plan_dtype(self._plan), ctypes.byref(bits))
            if status != _capi.SG_OK:
                raise self._context._error(status)
        return bits.value

    def output_shape_for(self, shape, /):
        """The output shape of a call on an input of this shape (for a
        symbolic kernel: output_shape_for(shape, **values))."""
        shape = tuple(operator.index(d) for d in shape)
        if shape != self.input_shape:
            raise SliceError(f"failed to run kernel: the input's shape is {shape}, the kernel's "
                             f"{self.input_shape}")
        return self.output_shape

    def reference(self, x, out=None):
        """The same result from the reference interpreter (the oracle the
        kernels are tested against), element by element; slow."""
        x = self._input(x)
        out = self._output(out, x)
        return self._run(lambda ctx, i, o: _lib.sg_run_reference(ctx, self._plan, i, o), x, out)


def _array(x):
    """x as a NumPy array: np.asarray, or, for an object with DLPack and
    without the buffer protocol (a PyTorch tensor, ...), np.from_dlpack (the
    same memory, on the CPU only)."""
    if not isinstance(x, np.ndarray) and hasattr(type(x), "__dlpack__"):
        try:
            memoryview(x)
        except TypeError:
            try:
                return np.from_dlpack(x)
            except (BufferError, RuntimeError, TypeError, ValueError) as e:
                raise SliceError(f"failed to run kernel: the input's DLPack tensor is refused ({e})") from None
    return np.asarray(x)


def _dtype_error(what, got, want):
    return SliceError(f"failed to run kernel: {what} element type is {got.str} ({got}), "
                      f"the kernel's {want.str} ({want})")


def _checked_out(out, x, shape, dtype):
    """out as a NumPy array (a view of its buffer), if it is an output for x
    of this shape and dtype."""
    if not isinstance(out, np.ndarray):
        try:
            out = np.asarray(memoryview(out))
        except TypeError:
            raise SliceError(f"failed to run kernel: out is a {type(out).__name__}, not a writable array "
                             "(a NumPy array or another object with the buffer protocol)") from None
    if out.shape != shape:
        raise SliceError(f"failed to run kernel: out's shape is {out.shape}, the output's {shape}")
    if out.dtype != dtype:
        raise _dtype_error("out's", out.dtype, dtype)
    if not out.flags.c_contiguous:
        raise SliceError("failed to run kernel: out is not C-contiguous")
    if not out.flags.writeable:
        raise SliceError("failed to run kernel: out is read-only")
    if out.size and x.size and np.may_share_memory(out, x):
        raise SliceError("failed to run kernel: out overlaps the input")
    return out


# The keywords of a kernel call, which no value may be named.
_CALL_KEYWORDS = ("out", "threads")


def _value_names(plan):
    return tuple(_lib.sg_plan_value_name(plan, i).decode() for i in range(_lib.sg_plan_value_count(plan)))


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def _quoted(names):
    """'a', 'a' and 'b', 'a', 'b' and 'c', as Python lists names in TypeErrors."""
    names = [repr(n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class _SymbolicKernel(Kernel):
    """A Kernel with runtime dimensions or values (see Kernel). Each call
    fills one sg_args on the C stack (sg_kernel_prepare) and runs the kernel
    on it (sg_kernel_run_args)."""

    symbolic = True

    def _symbolic_init(self):
        self.value_names = _value_names(self._plan)
        self._fill = next((i for i in range(len(self.value_names)) if _lib.sg_plan_value_is_fill(self._plan, i)), -1)
        self._rank = len(self.input_shape)

    def _input(self, x):
        x = _array(x)
        if x.ndim != self._rank:
            raise SliceError(f"failed to run kernel: the input's shape is {x.shape}, the kernel's "
                             f"{self.input_shape}")
        if x.dtype != self.dtype:
            raise _dtype_error("the input's", x.dtype, self.dtype)
        return np.ascontiguousarray(x)

    def _prepare_error(self, status, shape, values):
        """The SliceError of a call sg_kernel_prepare refused (shape and
        values as C arrays). The context's last error may be another
        thread's by now: the call is checked again with a context of its
        own, whose message is this call's."""
        own = _capi.ContextP()
        if _lib.sg_context_create(ctypes.byref(own)) != _capi.SG_OK:
            with self._state.lock:
                return self._context._error(status)
        try:
            status = _lib.sg_kernel_prepare(own, self._kernel, shape, values, ctypes.byref(_capi.Args()))
            message = _lib.sg_context_last_error(own) if status != _capi.SG_OK else None
            return SliceError(message.decode("utf-8", "replace") if message else
                              "failed to run kernel: the call was refused, then accepted", _status_name(status))
        finally:
            _lib.sg_context_destroy(own)

    def output_shape_for(self, shape, /, **values):
        """The output shape of a call on an input of this shape with these
        values (checked as a call is)."""
        shape = tuple(operator.index(d) for d in shape)
        if len(shape) != self._rank:
            raise SliceError(f"failed to run kernel: the input's shape is {shape}, the kernel's "
                             f"{self.input_shape}")
        c_shape, c_values = _capi.int64_array(shape), _capi.int64_array(self._numbers(values, "output_shape_for"))
        args = _capi.Args()
        state = self._state
        state.gate.enter()
        try:
            status = _lib.sg_kernel_prepare(state.ptr, self._kernel, c_shape, c_values, ctypes.byref(args))
        finally:
            state.gate.leave()
        if status != _capi.SG_OK:
            raise self._prepare_error(status, c_shape, c_values)
        return tuple(args.out_shape[:args.out_rank])

    def reference(self, x, /, out=None, **values):
        """The same result from the reference interpreter, on the static plan
        of this call (sg_plan_specialize): the spec with the numbers written
        in; slow."""
        x = self._input(x)
        numbers = self._numbers(values, "reference")
        plan = _capi.PlanP()
        with self._state.lock:
            status = _lib.sg_plan_specialize(self._context._open_ptr(), self._plan, _capi.int64_array(x.shape),
                                             _capi.int64_array(numbers), ctypes.byref(plan))
            if status != _capi.SG_OK:
                raise self._context._error(status)
        try:
            dims = _lib.sg_plan_output_shape(plan)
            shape = tuple(dims[i] for i in range(_lib.sg_plan_output_rank(plan)))
            out = np.empty(shape, self.dtype) if out is None else _checked_out(out, x, shape, self.dtype)
            return self._run(lambda ctx, i, o: _lib.sg_run_reference(ctx, plan, i, o), x, out)
        finally:
            _lib.sg_plan_destroy(plan)


# ---- the module-level context and functions ----------------------------------------------

_default = []
_default_lock = threading.Lock()


def default_context():
    """The module-level context that compile, slice and emit use."""
    with _default_lock:
        if not _default or _default[0].closed:
            _default[:] = [Context()]
        return _default[0]


def compile(spec, shape, dtype, *, opt_level=_capi.SG_DEFAULT_OPT_LEVEL, stores="auto"):
    """A Kernel for spec on inputs of this shape and dtype (see Context.compile);
    None in shape is a dimension known at run time."""
    return default_context().compile(spec, shape, dtype, opt_level=opt_level, stores=stores)


# slicegen.slice(x, spec, *, out=None, threads=1): spec applied to the array
# x, in one call: x[1:, ::-1] is slicegen.slice(x, "[1:, ::-1]"). The kernel
# comes from the module-level context's cache (compiled on first use of this
# spec, shape and dtype); the kernels of the last 64 spec strings
# (_ext.SLICE_CACHE) are found by the string itself, without parsing it.
# Returns a new array (or out); raises SliceError.
slice = _ext.Slicer(lambda x, spec: default_context()._slice_kernel(x, spec))


def emit(spec, shape, dtype, path, header=None, target=None, *, name=None, cpu=None,
         opt_level=_capi.SG_DEFAULT_OPT_LEVEL, cf_protection=True, stores="auto"):
    """Compiles spec ahead of time, as `slicegen emit` does: the extension of
    path picks an object (.o), a static archive (.a), assembly (.s) or LLVM
    IR (.ll); header, if given, is the C header declaring the kernel; target
    is an LLVM triple (None: this machine), cpu a CPU of it (None: the
    target's baseline, code every CPU of it runs, x86-64 for x86_64;
    "native": this machine's CPU with all its features); the header and the
    kernel's description record the CPU and features. cf_protection=False
    leaves out the CET (x86) or BTI and PAC (AArch64) marks objects carry by
    default. stores: "auto", "cached" or "streaming", as `--stores`. name is
    the kernel's symbol (default: derived from the plan). A shape holding
    None, or a spec naming values, writes a kernel that takes them at run
    time, with its NAME_prepare function (include/slicegen.h, "runtime
    values").
    Each file is written whole or not at all. Returns the symbol; raises SliceError."""
    return default_context().emit(spec, shape, dtype, path, header, target, name=name, cpu=cpu,
                                  opt_level=opt_level, cf_protection=cf_protection, stores=stores)


def llvm_version():
    """The LLVM version libslicegen was built with, e.g. "19.1.7"."""
    return _lib.sg_llvm_version().decode()


# ---- what the extension calls for the calls it does not take as they are ----------------

def _slow_input(kernel, x):
    """x as the C-contiguous array of the kernel's element type to run on
    (a copy where x is not C-contiguous; bfloat16 viewed as uint16), or
    SliceError."""
    x = kernel._input(x)
    return x.view(np.uint16) if kernel._bits else x


def _slow_out(kernel, out, x, shape):
    """out as the array to write (bfloat16 viewed as uint16), or SliceError."""
    out = _checked_out(out, _array(x), shape, kernel.dtype)
    return out.view(np.uint16) if kernel._bits else out


def _slow_values(kernel, values):
    """The numbers of a call's values (a fill value converted), or raises
    what is wrong with them."""
    return kernel._numbers(values, "kernel")


def _run_error(kernel, status):
    with kernel._state.lock:
        raise kernel._context._error(status)


def _refused_call(kernel, status, shape, values):
    raise kernel._prepare_error(status, _capi.int64_array(shape), _capi.int64_array(values))


_ext._setup(SliceError, np.empty, _slow_input, _slow_out, _slow_values, _threads, _run_error, _refused_call)

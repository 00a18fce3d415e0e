"""Models: read_model (the slice layers of an OpenVINO or ONNX model, as
sg_model_read lists them) and aot (`slicegen aot`: every layer that plans
compiled into one output file and header, through sg_aot_write_with).

aot follows cli/aot.c's cmd_aot step by step, so that both name, skip and
fuse the same layers: a layer is skipped for the reader's reason, or the
planner's when its spec does not plan on its shape; with fuse, each fusion of sg_model_fusions
that plans replaces its layers by one kernel at its last layer, and one
that does not plan leaves its layers to compile alone; kernels are named
by sg_aot_layer_names after the layer (P_<name>, P_<name>_out<k> for the
outputs of one node, the fusion's name for a fusion).

Each call has a C context of its own (its last error is the call's); the
model is read, copied into Python objects and destroyed within the call.
"""
import ctypes
import dataclasses
import os

import numpy as np

from . import _capi
from ._core import (SliceError, _NUMPY_TYPES, _lib, _opt_level, _py_shape, _status_name, _stores,
                    _value_names)


class _OwnContext:
    """A C context for one call: `with _OwnContext() as c`; c.ptr, c.error(status)."""

    def __enter__(self):
        self.ptr = _capi.ContextP()
        if _lib.sg_context_create(ctypes.byref(self.ptr)) != _capi.SG_OK:
            raise MemoryError("failed to make context: out of memory")
        return self

    def __exit__(self, *exc):
        _lib.sg_context_destroy(self.ptr)

    def message(self):
        text = _lib.sg_context_last_error(self.ptr)
        return text.decode("utf-8", "replace") if text else ""

    def error(self, status):
        return SliceError(self.message() or _status_name(status), _status_name(status))

    def plan(self, spec, rank, shape, dtype):
        """(sg_plan * or None, the planner's message or None)."""
        plan = _capi.PlanP()
        if _lib.sg_plan_create(self.ptr, spec, rank, shape, dtype, ctypes.byref(plan)) != _capi.SG_OK:
            return None, self.message()
        return plan, None


def _text(data):
    return None if data is None else data.decode("utf-8", "replace")


def _file(path, what):
    """A path as the C API takes it (bytes), or None."""
    if path is None:
        return None
    data = os.fsencode(os.fspath(path))
    if b"\0" in data:
        raise SliceError(f"failed to read {what}: the path holds a NUL character", "usage")
    return data


def _dtype_name(code):
    """The NumPy name of an sg_dtype ("float32", "bfloat16")."""
    name = _lib.sg_dtype_name(code).decode()
    return "bfloat16" if name == "bf16" else np.dtype(_NUMPY_TYPES[name]).name


@dataclasses.dataclass(frozen=True)
class Layer:
    """One slice layer of a model, as `slicegen aot` sees it.

    name, id, type: the layer's (ONNX: the node's name or its first output's,
    its index in the graph, its op_type; the layers of one Split, one per
    output, share name and id). spec: the slice in the command line's form
    ("--op OnnxSlice --start 1 --stop starts_0 ..."), which
    slicegen.compile takes as it is; None when the reader cannot describe
    the slice. shape: the data input's dimensions, None for one known only
    at run time; dtype: its element type's NumPy name ("float32",
    "bfloat16"), both None when spec is. skip_reason: why `slicegen aot`
    skips the layer (the reader's reason, or the planner's when the spec
    does not plan on that shape); None when it compiles. value_names: the
    runtime values a kernel of the layer takes, in order (starts_0,
    ends_1, pads_3, ...; empty when none), None when skipped."""
    name: str
    id: int
    type: str
    spec: str
    shape: tuple
    dtype: str
    skip_reason: str
    value_names: tuple

    @property
    def skipped(self):
        return self.skip_reason is not None


@dataclasses.dataclass(frozen=True)
class Symbol:
    """A size of a model's dynamic dimensions (sg_model_symbol): its name
    (an ONNX dim_param, or "x_dim2" for graph input x's unnamed dimension
    2), and the graph input and dimension that give it (None and -1 when
    none does)."""
    name: str
    input: str
    dim: int


@dataclasses.dataclass(frozen=True)
class Fusion:
    """Slice layers of a model that `slicegen aot --fuse` compiles as one
    kernel (sg_model_fusion): name and id (the last layer's, or the
    Concat's), spec (the program of the layers' slices, OP(operand,
    "WORDS"), which slicegen.compile takes as it is), shape and dtype (the
    data input of its first layers, None for a dimension known only at run
    time), layers (the indices of the layers it replaces, into
    Model.layers, in model order) and names (their names, then the
    Concat's)."""
    name: str
    id: int
    spec: str
    shape: tuple
    dtype: str
    layers: tuple
    names: tuple


class Model:
    """The slice layers of a model (slicegen.read_model): `layers` in model
    order (iterating, len() and model[i] go over them), `folded` the number
    of slice-like nodes that are shape arithmetic (a Gather of a Shape...),
    folded into the numbers of the kernels they feed instead of being
    layers, `symbols` the sizes its dynamic dimensions take (Symbol),
    `fusions` what `aot --fuse` would compile as one kernel (Fusion, in the
    order of their last layers; a fusion that does not plan is listed too,
    as `aot` lists it), and `path`. numbers() tells a layer's input shape
    and values for given sizes of the symbols."""

    def __init__(self, path, layers, folded, symbols, model, fusions=()):
        self.path, self.layers, self.folded, self.symbols = path, tuple(layers), folded, tuple(symbols)
        self.fusions = tuple(fusions)
        self._model = model  # the sg_model *, for numbers()

    def __del__(self):
        if getattr(self, "_model", None):
            _lib.sg_model_destroy(self._model)
            self._model = None

    def numbers(self, layer, **sizes):
        """Layer `layer`'s (an index, or a Layer of this model) input shape
        and the runtime values the symbols give (shape arithmetic), for the
        symbols' sizes given by name: (shape tuple, {value name: value}).
        Values left out are index data the caller gives. Every symbol of the
        model takes a size; SliceError for a skipped layer or a size
        missing."""
        index = self.layers.index(layer) if isinstance(layer, Layer) else layer
        if not 0 <= index < len(self.layers):
            raise IndexError(f"no layer {index} (the model has {len(self.layers)})")
        unknown = sorted(set(sizes) - {s.name for s in self.symbols})
        if unknown:
            raise SliceError(f"failed to compute a layer's numbers: '{unknown[0]}' is no symbol of the model", "usage")
        for s in self.symbols:
            if s.name not in sizes:
                where = f" (graph input '{s.input}', dimension {s.dim})" if s.input else ""
                raise SliceError(f"failed to compute a layer's numbers: no size for the symbol '{s.name}'{where}",
                                 "usage")
        symbols = (ctypes.c_int64 * max(len(self.symbols), 1))(*(sizes[s.name] for s in self.symbols))
        names = self.layers[index].value_names or ()
        shape = (ctypes.c_int64 * 64)()
        values = (ctypes.c_int64 * max(len(names), 1))()
        given = (ctypes.c_uint8 * max(len(names), 1))()
        with _OwnContext() as c:
            status = _lib.sg_model_layer_numbers(c.ptr, self._model, index, symbols, shape, values, given)
            if status != _capi.SG_OK:
                raise c.error(status)
        rank = len(self.layers[index].shape)
        return tuple(shape[d] for d in range(rank)), {names[i]: values[i] for i in range(len(names)) if given[i]}

    def __iter__(self):
        return iter(self.layers)

    def __len__(self):
        return len(self.layers)

    def __getitem__(self, index):
        return self.layers[index]

    @property
    def skipped(self):
        """The layers `slicegen aot` skips."""
        return tuple(layer for layer in self.layers if layer.skipped)

    def __repr__(self):
        return (f"<slicegen.Model {os.fspath(self.path)!r}: {len(self.layers)} slice layers, "
                f"{len(self.skipped)} skipped, {self.folded} folded>")


def _read(c, path, weights):
    """The sg_model * of path (the caller destroys it), or SliceError."""
    model = _capi.ModelP()
    status = _lib.sg_model_read(c.ptr, _file(path, "model"), _file(weights, "weights"), ctypes.byref(model))
    if status != _capi.SG_OK:
        raise c.error(status)
    return model


def read_model(path, weights=None):
    """The slice layers of an OpenVINO IR (.xml, with weights or the .bin
    beside it) or ONNX (.onnx) model, as a Model; raises SliceError with the
    library's message for a model it cannot read."""
    with _OwnContext() as c:
        model = _read(c, path, weights)
        try:
            layers = []
            for i in range(_lib.sg_model_layer_count(model)):
                layer = _lib.sg_model_layer_at(model, i).contents
                shape = dtype = values = None
                reason = _text(layer.skip_reason)
                if layer.spec:
                    shape = _py_shape(layer.shape[d] for d in range(layer.rank))
                    dtype = _dtype_name(layer.dtype)
                    plan, reason = c.plan(layer.spec, layer.rank, layer.shape, layer.dtype)
                    if plan is not None:
                        values = _value_names(plan)
                        _lib.sg_plan_destroy(plan)
                layers.append(Layer(_text(layer.name), layer.id, _text(layer.type), _text(layer.spec_text), shape,
                                    dtype, reason, values))
            symbols = []
            for k in range(_lib.sg_model_symbol_count(model)):
                y = _lib.sg_model_symbol_at(model, k).contents
                symbols.append(Symbol(_text(y.name), _text(y.input), y.dim))
            count, found = ctypes.c_size_t(), ctypes.POINTER(_capi.ModelFusion)()
            status = _lib.sg_model_fusions(c.ptr, model, ctypes.byref(count), ctypes.byref(found))
            if status != _capi.SG_OK:
                raise c.error(status)
            fusions = []
            for k in range(count.value):
                fu = found[k]
                fusions.append(Fusion(_text(fu.name), fu.id, _text(fu.spec_text),
                                      _py_shape(fu.shape[d] for d in range(fu.rank)), _dtype_name(fu.dtype),
                                      tuple(fu.layers[j] for j in range(fu.nlayers)),
                                      tuple(_text(fu.names[j]) for j in range(fu.nnames))))
            result = Model(path, layers, _lib.sg_model_folded_count(model), symbols, model, fusions)
            model = None  # the Model owns it now
            return result
        finally:
            if model:
                _lib.sg_model_destroy(model)


@dataclasses.dataclass(frozen=True)
class AotResult:
    """What slicegen.aot wrote. kernels: the kernels' symbols, in the
    table's order; compiled: the name of each layer compiled (a fused
    layer's too: len(compiled) is `slicegen aot`'s "compiled N"); skipped:
    (layer name, reason) of each layer skipped; not_fused: (fusion name,
    reason) of each fusion that did not plan (its layers compiled alone);
    folded: the slice-like nodes folded as shape arithmetic; layer_count:
    the model's slice layers; path, header: the files written."""
    path: str
    header: str
    kernels: tuple
    compiled: tuple
    skipped: tuple
    not_fused: tuple
    folded: int
    layer_count: int


def _kernel_base(model, i, layer):
    """What layer i's kernel is named after (cli/aot.c's kernel_base): its
    name, and "<name>_out<k>" for output k of a node with several layers."""
    first = i
    while first > 0 and _lib.sg_model_layer_at(model, first - 1).contents.id == layer.id:
        first -= 1
    nxt = _lib.sg_model_layer_at(model, i + 1)  # NULL past the end
    if first < i or (nxt and nxt.contents.id == layer.id):
        return layer.name + b"_out%d" % (i - first)
    return layer.name


def _option(value, what):
    if value is not None and (not isinstance(value, str) or "\0" in value):
        raise SliceError(f"failed to compile model: {what} {value!r} is not a string", "usage")
    return value.encode() if value else None


def aot(path, out, header=None, fuse=False, target=None, cpu=None, prefix=None, stores=None, *, weights=None,
        opt_level=_capi.SG_DEFAULT_OPT_LEVEL, cf_protection=True):
    """`slicegen aot MODEL -o out [--header header] [--fuse] ...`: compiles
    every slice layer of the model that plans into one file (the extension
    of out picks .o, .a, .s, .ll or .ptx) and, if header is given, its C
    header with the table P_kernels; the other layers are skipped. fuse:
    chains of slice layers and Concats of slices of one tensor become one
    kernel each (`--fuse`). target, cpu, stores ("auto", "cached",
    "streaming"; None: "auto"), opt_level and cf_protection as for
    slicegen.emit; prefix: P of the kernel names and the table (default:
    the model's file name as an identifier); weights: an OpenVINO model's
    .bin. Returns an AotResult; raises SliceError (the model cannot be read,
    no layer compiles, the files cannot be written: nothing is written)."""
    level = _opt_level(opt_level)
    store_kind = _stores("auto" if stores is None else stores)
    c_target, c_cpu = _option(target, "target"), _option(cpu, "cpu")
    c_out, c_header = _file(out, "the output"), _file(header, "the header")
    if prefix is not None and (not isinstance(prefix, str) or "\0" in prefix
                               or not _lib.sg_is_identifier(prefix.encode())):
        raise SliceError(f"failed to compile model: bad prefix {prefix!r}: it must be a C identifier", "usage")
    model_path = _file(path, "model")
    plans = []  # every sg_plan made, destroyed at the end
    with _OwnContext() as c:
        if prefix is None:
            address = ctypes.c_void_p()
            if _lib.sg_aot_default_prefix(c.ptr, model_path, ctypes.byref(address)) != _capi.SG_OK:
                raise MemoryError(c.message())
            c_prefix = ctypes.string_at(address.value)
            _lib.sg_free(address)
        else:
            c_prefix = prefix.encode()
        model = _read(c, path, weights)
        try:
            return _aot(c, model, plans, path, fuse, c_target, c_prefix, out, header, c_out, c_header,
                        _capi.compile_options(_lib, target=c_target, cpu=c_cpu, opt_level=level,
                                              prefix=c_prefix, no_cf_protection=not cf_protection,
                                              stores=store_kind, model=model))
        finally:
            for plan in plans:
                _lib.sg_plan_destroy(plan)
            _lib.sg_model_destroy(model)


def _aot(c, model, plans, path, fuse, target, prefix, out, header, c_out, c_header, options):
    nlayers = _lib.sg_model_layer_count(model)
    fusion_of = [-1] * nlayers
    fusions, fused_plans, not_fused = None, {}, []
    if fuse:
        count, fusions = ctypes.c_size_t(), ctypes.POINTER(_capi.ModelFusion)()
        status = _lib.sg_model_fusions(c.ptr, model, ctypes.byref(count), ctypes.byref(fusions))
        if status != _capi.SG_OK:
            raise c.error(status)
        for k in range(count.value):
            fu = fusions[k]
            plan, reason = c.plan(fu.spec, fu.rank, fu.shape, fu.dtype)
            if plan is None:
                not_fused.append((_text(fu.name), reason))
                continue
            plans.append(plan)
            fused_plans[k] = plan
            for j in range(fu.nlayers):
                fusion_of[fu.layers[j]] = k
    kernels, bases, compiled, skipped = [], [], [], []
    for i in range(nlayers):
        layer = _lib.sg_model_layer_at(model, i).contents
        k = fusion_of[i]
        if k >= 0:  # one kernel at the fusion's last layer
            fu = fusions[k]
            if fu.layers[fu.nlayers - 1] != i:
                continue
            kernels.append(_capi.AotKernel(fused_plans[k], None, fu.spec_text, fu.name, fu.id, fu.names, fu.nnames))
            bases.append(fu.name)
            compiled += [_text(_lib.sg_model_layer_at(model, fu.layers[j]).contents.name) for j in range(fu.nlayers)]
            continue
        reason, plan = _text(layer.skip_reason), None
        if layer.spec:
            plan, planned = c.plan(layer.spec, layer.rank, layer.shape, layer.dtype)
            if plan is None:
                reason = planned
            else:
                plans.append(plan)
        if reason is not None:
            skipped.append((_text(layer.name), reason))
            continue
        kernels.append(_capi.AotKernel(plan, None, layer.spec_text, layer.name, layer.id,
                                       model_layer=_lib.sg_model_layer_at(model, i)))
        bases.append(_kernel_base(model, i, layer))
        compiled.append(_text(layer.name))
    if not kernels and nlayers:  # with no layer at all: an empty table
        folded = _lib.sg_model_folded_count(model)
        error = SliceError(f"failed to compile model '{os.fsdecode(os.fspath(path))}': no slice layer can be "
                           f"compiled ({nlayers} slice layer{'' if nlayers == 1 else 's'}, all skipped"
                           + (f"; {folded} slice-like node{'' if folded == 1 else 's'} folded as shape arithmetic"
                              if folded else "") + ")", "slice")
        error.skipped = tuple(skipped)
        raise error
    n = len(kernels)
    names = (ctypes.c_void_p * n)()
    status = _lib.sg_aot_layer_names(c.ptr, prefix, n, (ctypes.c_char_p * n)(*bases), names)
    if status != _capi.SG_OK:
        raise c.error(status)
    symbols = []
    for kernel, address in zip(kernels, names):
        symbols.append(ctypes.string_at(address))
        _lib.sg_free(address)
        kernel.name = symbols[-1]
    table = (_capi.AotKernel * n)(*kernels)
    status = _lib.sg_aot_write_with(c.ptr, table, n, ctypes.byref(options), c_out, c_header)
    if status != _capi.SG_OK:
        raise c.error(status)
    return AotResult(out, header, tuple(s.decode() for s in symbols), tuple(compiled), tuple(skipped),
                     tuple(not_fused), _lib.sg_model_folded_count(model), nlayers)

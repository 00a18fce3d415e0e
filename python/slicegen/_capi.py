"""The C API of libslicegen.so through ctypes: finding and loading the
library, its types, and the signature of every function the module calls.

Nothing here owns a C object; _core.py and _model.py do. Each function
gets exact argtypes and restype (test_capi.py holds them to
include/slicegen.h). The structs are laid out as the library loaded says
(sg_struct_size, sg_struct_field), never copied here.
"""
import ctypes
import ctypes.util
import os

# ---- finding the library ---------------------------------------------------

SONAME = "libslicegen.so.0"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Where the library is looked for, in order: the environment variable
    SLICEGEN_LIBRARY, a copy next to this module (installed with it), then
    the system's search path (LD_LIBRARY_PATH, the ldconfig cache)."""
    env = os.environ.get("SLICEGEN_LIBRARY")
    if env:
        return [("SLICEGEN_LIBRARY", env)]
    found = []
    for name in (SONAME, "libslicegen.so"):
        path = os.path.join(_HERE, name)
        if os.path.exists(path):
            found.append(("next to the module", path))
    found.append(("the system path", SONAME))
    system = ctypes.util.find_library("slicegen")
    if system and system != SONAME:
        found.append(("the system path", system))
    return found


def load():
    """Loads libslicegen and declares its functions; returns (lib, path).
    Raises ImportError naming every place tried."""
    tried = []
    for where, path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({where}): {e}")
            continue
        try:
            _declare(lib)
        except AttributeError as e:
            tried.append(f"{path} ({where}): not libslicegen, or too old: {e}")
            continue
        return lib, _loaded_path(lib, path)
    raise ImportError("slicegen: cannot load libslicegen: " + "; ".join(tried) +
                      ". Set SLICEGEN_LIBRARY to the library's path (in a build tree: "
                      "build/libslicegen.so), or install it (cmake --install, or the .deb)")


def _loaded_path(lib, fallback):
    """The file the dynamic loader actually opened for lib."""
    try:
        libdl = ctypes.CDLL(None)
        dladdr = libdl.dladdr

        class DlInfo(ctypes.Structure):
            _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                        ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
        dladdr.restype = ctypes.c_int
        info = DlInfo()
        addr = ctypes.cast(lib.sg_llvm_version, ctypes.c_void_p)
        if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(os.fsdecode(info.dli_fname))
    except (AttributeError, OSError):
        pass
    return fallback


# ---- types -------------------------------------------------------------------

class Context(ctypes.Structure):
    """sg_context (opaque)"""


class Spec(ctypes.Structure):
    """sg_spec (opaque)"""


class Plan(ctypes.Structure):
    """sg_plan (opaque)"""


class Kernel(ctypes.Structure):
    """sg_kernel (opaque)"""


class Model(ctypes.Structure):
    """sg_model (opaque)"""


ContextP = ctypes.POINTER(Context)
SpecP = ctypes.POINTER(Spec)
PlanP = ctypes.POINTER(Plan)
KernelP = ctypes.POINTER(Kernel)
ModelP = ctypes.POINTER(Model)
I64P = ctypes.POINTER(ctypes.c_int64)
FILEP = ctypes.c_void_p                       # FILE *
status_t = ctypes.c_int                       # enum sg_status
dtype_t = ctypes.c_int                        # enum sg_dtype
trt_mode_t = ctypes.c_int                     # enum sg_trt_mode
stores_t = ctypes.c_int                       # enum sg_stores

SG_OK = 0
SG_ERR_USAGE, SG_ERR_SPEC, SG_ERR_SLICE, SG_ERR_IO, SG_ERR_NOMEM, SG_ERR_INTERNAL = range(1, 7)
SG_SCALAR_INT, SG_SCALAR_UINT, SG_SCALAR_FLOAT, SG_SCALAR_BOOL = range(4)
SG_KERNEL_NAME_MAX = 96
SG_DEFAULT_OPT_LEVEL = 2
SG_MAX_RANK = 64


ProgressFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)


# ---- structs, laid out by the library ----------------------------------------
#
# The structs the module passes, each by its public fields in order with
# their C types. Where the fields lie, and how large each struct is, comes
# from the library loaded (sg_struct_size, sg_struct_field): _build_structs
# makes the classes once it is loaded, and the bytes no public field covers
# (sg_args' private part, padding) are left to the library.

class Struct(ctypes.Structure):
    """A C struct laid out by libslicegen. Positional arguments fill the
    public fields (_public_) in order; keywords name them."""
    _public_ = ()

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._public_):
            raise TypeError(f"{type(self).__name__} takes at most {len(self._public_)} positional arguments")
        super().__init__(**dict(zip(self._public_, args)), **kwargs)


def _laid_out(lib, name, c_name, fields, doc):
    """The Struct subclass `name` for C struct c_name with `fields` ((name,
    ctypes type), its public fields) at the library's offsets. Raises
    AttributeError when the library does not list the struct or a field, or
    a field's size is not its type's (not libslicegen, or another version)."""
    size = lib.sg_struct_size(c_name.encode())
    if size == 0:
        raise AttributeError(f"sg_struct_size does not know {c_name}")
    placed, at = [], 0
    where = []
    for field, ctype in fields:
        offset, length = ctypes.c_size_t(), ctypes.c_size_t()
        if not lib.sg_struct_field(c_name.encode(), field.encode(), ctypes.byref(offset), ctypes.byref(length)):
            raise AttributeError(f"sg_struct_field does not know {c_name}.{field}")
        if length.value != ctypes.sizeof(ctype) or offset.value < at:
            raise AttributeError(f"{c_name}.{field}: {length.value} bytes at offset {offset.value}, where the "
                                 f"module has {ctypes.sizeof(ctype)} bytes past offset {at}")
        if offset.value > at:
            placed.append((f"_private_{at}", ctypes.c_ubyte * (offset.value - at)))
        placed.append((field, ctype))
        where.append((field, offset.value))
        at = offset.value + length.value
    if size > at:
        placed.append((f"_private_{at}", ctypes.c_ubyte * (size - at)))
    cls = type(name, (Struct,), {"__doc__": doc, "_fields_": placed,
                                 "_public_": tuple(field for field, _ in fields)})
    if ctypes.sizeof(cls) != size or any(getattr(cls, f).offset != o for f, o in where):
        raise AttributeError(f"{c_name}: ctypes cannot lay it out as the library does")
    return cls


# The classes, made by _build_structs when the library is loaded.
Mask = StridedSliceArgs = Scalar = Args = CompileOptions = AotKernel = None
ModelLayer = ModelSymbol = ModelFusion = None


def _build_structs(lib):
    g = globals()

    def make(name, c_name, fields, doc):
        g[name] = _laid_out(lib, name, c_name, fields, doc)

    make("Mask", "sg_mask", [("bits", I64P), ("len", ctypes.c_size_t)], "sg_mask")
    make("StridedSliceArgs", "sg_strided_slice_args",
         [("len", ctypes.c_size_t), ("begin", I64P), ("end", I64P), ("stride", I64P),
          ("begin_mask", Mask), ("end_mask", Mask), ("new_axis_mask", Mask),
          ("shrink_axis_mask", Mask), ("ellipsis_mask", Mask)], "sg_strided_slice_args")
    make("Scalar", "sg_scalar", [("kind", ctypes.c_int), ("i", ctypes.c_int64), ("u", ctypes.c_uint64),
                                 ("f", ctypes.c_double)], "sg_scalar")
    make("Args", "sg_args",
         [("out_rank", ctypes.c_int32), ("out_shape", ctypes.c_int64 * SG_MAX_RANK),
          ("outer_extent", ctypes.c_int64), ("input_bytes", ctypes.c_int64), ("output_bytes", ctypes.c_int64)],
         "sg_args: one call of a symbolic kernel, filled by sg_kernel_prepare (the rest is the kernel's).")
    make("CompileOptions", "sg_compile_options",
         [("size", ctypes.c_size_t), ("opt_level", ctypes.c_int), ("stores", stores_t),
          ("target", ctypes.c_char_p), ("cpu", ctypes.c_char_p), ("no_cf_protection", ctypes.c_bool),
          ("prefix", ctypes.c_char_p), ("command", ctypes.c_char_p), ("progress", ProgressFn),
          ("progress_arg", ctypes.c_void_p), ("model", ModelP), ("device", ctypes.c_int)],
         "sg_compile_options: made by compile_options().")
    make("ModelLayer", "sg_model_layer",
         [("name", ctypes.c_char_p), ("id", ctypes.c_int64), ("type", ctypes.c_char_p),
          ("spec", SpecP), ("spec_text", ctypes.c_char_p), ("rank", ctypes.c_size_t),
          ("shape", I64P), ("dtype", dtype_t), ("skip_reason", ctypes.c_char_p)],
         "sg_model_layer: one slice layer of a model, owned by the model.")
    make("ModelSymbol", "sg_model_symbol",
         [("name", ctypes.c_char_p), ("input", ctypes.c_char_p), ("dim", ctypes.c_int64)],
         "sg_model_symbol: a size of a model's dynamic dimensions, owned by the model.")
    make("AotKernel", "sg_aot_kernel",
         [("plan", PlanP), ("name", ctypes.c_char_p), ("spec", ctypes.c_char_p),
          ("layer", ctypes.c_char_p), ("layer_id", ctypes.c_int64),
          ("fused_layers", ctypes.POINTER(ctypes.c_char_p)), ("fused_count", ctypes.c_size_t),
          ("model_layer", ctypes.POINTER(ModelLayer))], "sg_aot_kernel")
    make("ModelFusion", "sg_model_fusion",
         [("name", ctypes.c_char_p), ("id", ctypes.c_int64), ("spec", SpecP),
          ("spec_text", ctypes.c_char_p), ("rank", ctypes.c_size_t), ("shape", I64P),
          ("dtype", dtype_t), ("nlayers", ctypes.c_size_t), ("layers", ctypes.POINTER(ctypes.c_size_t)),
          ("nnames", ctypes.c_size_t), ("names", ctypes.POINTER(ctypes.c_char_p))],
         "sg_model_fusion: slice layers that run as one kernel (aot --fuse), owned by the model.")


# The functions whose char * result the caller frees (with sg_free): their
# restype is a void pointer, so that the address comes back to sg_free.
MALLOC_RESULTS = set()

# The functions that lay out the structs, declared before the rest.
LAYOUT_SIGNATURES = {
    "sg_struct_size": (ctypes.c_size_t, [ctypes.c_char_p]),
    "sg_struct_field": (ctypes.c_bool, [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t),
                                        ctypes.POINTER(ctypes.c_size_t)]),
}

# name: (restype, argtypes), as declared in include/slicegen.h: made by
# _declare once the structs are (_signatures).
SIGNATURES = None


def _signatures():
    return dict(LAYOUT_SIGNATURES, **{
        "sg_status_name": (ctypes.c_char_p, [status_t]),
        "sg_free": (None, [ctypes.c_void_p]),
        "sg_dtype_name": (ctypes.c_char_p, [dtype_t]),
        "sg_dtype_size": (ctypes.c_size_t, [dtype_t]),
        "sg_dtype_npy": (ctypes.c_char_p, [dtype_t]),
        "sg_dtype_parse": (ctypes.c_bool, [ctypes.c_char_p, ctypes.POINTER(dtype_t)]),
        "sg_context_create": (status_t, [ctypes.POINTER(ContextP)]),
        "sg_context_destroy": (None, [ContextP]),
        "sg_context_last_error": (ctypes.c_char_p, [ContextP]),
        "sg_spec_strided_slice": (status_t, [ContextP, ctypes.POINTER(StridedSliceArgs),
                                             ctypes.POINTER(SpecP)]),
        "sg_spec_slice": (status_t, [ContextP, ctypes.c_size_t, I64P, I64P, I64P, I64P,
                                     ctypes.POINTER(SpecP)]),
        "sg_spec_onnx_slice": (status_t, [ContextP, ctypes.c_size_t, I64P, I64P, I64P, I64P,
                                          ctypes.POINTER(SpecP)]),
        "sg_spec_pad": (status_t, [ContextP, ctypes.c_size_t, I64P, I64P, I64P, trt_mode_t,
                                   ctypes.POINTER(Scalar), ctypes.POINTER(SpecP)]),
        "sg_trt_mode_name": (ctypes.c_char_p, [trt_mode_t]),
        "sg_trt_mode_parse": (ctypes.c_bool, [ctypes.c_char_p, ctypes.POINTER(trt_mode_t)]),
        "sg_stores_name": (ctypes.c_char_p, [ctypes.c_int]),
        "sg_scalar_parse": (status_t, [ContextP, ctypes.c_char_p, ctypes.POINTER(Scalar)]),
        "sg_spec_trt_slice": (status_t, [ContextP, ctypes.c_size_t, I64P, I64P, I64P, trt_mode_t,
                                         ctypes.POINTER(Scalar), ctypes.POINTER(SpecP)]),
        "sg_spec_numpy": (status_t, [ContextP, ctypes.c_char_p, ctypes.POINTER(SpecP)]),
        "sg_spec_from_words": (status_t, [ContextP, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(SpecP)]),
        "sg_spec_print": (None, [SpecP, FILEP]),
        "sg_spec_destroy": (None, [SpecP]),
        "sg_plan_create": (status_t, [ContextP, SpecP, ctypes.c_size_t, I64P, dtype_t,
                                      ctypes.POINTER(PlanP)]),
        "sg_plan_destroy": (None, [PlanP]),
        "sg_plan_output_rank": (ctypes.c_size_t, [PlanP]),
        "sg_plan_output_shape": (I64P, [PlanP]),
        "sg_plan_dtype": (dtype_t, [PlanP]),
        "sg_plan_input_bytes": (ctypes.c_uint64, [PlanP]),
        "sg_plan_output_bytes": (ctypes.c_uint64, [PlanP]),
        "sg_plan_print": (None, [PlanP, FILEP]),
        "sg_plan_input_rank": (ctypes.c_size_t, [PlanP]),
        "sg_plan_input_shape": (I64P, [PlanP]),
        "sg_plan_value_count": (ctypes.c_size_t, [PlanP]),
        "sg_plan_value_name": (ctypes.c_char_p, [PlanP, ctypes.c_size_t]),
        "sg_plan_value_is_fill": (ctypes.c_bool, [PlanP, ctypes.c_size_t]),
        "sg_fill_bits": (status_t, [ContextP, ctypes.POINTER(Scalar), dtype_t, ctypes.POINTER(ctypes.c_int64)]),
        "sg_plan_is_symbolic": (ctypes.c_bool, [PlanP]),
        "sg_plan_specialize": (status_t, [ContextP, PlanP, I64P, I64P, ctypes.POINTER(PlanP)]),
        "sg_run_reference": (status_t, [ContextP, PlanP, ctypes.c_void_p, ctypes.c_void_p]),
        "sg_compile_options_init_size": (None, [ctypes.POINTER(CompileOptions), ctypes.c_size_t]),
        "sg_kernel_compile_with": (status_t, [ContextP, PlanP, ctypes.POINTER(CompileOptions),
                                              ctypes.POINTER(KernelP)]),
        "sg_kernel_destroy": (None, [KernelP]),
        "sg_kernel_outer_extent": (ctypes.c_int64, [KernelP]),
        "sg_kernel_run": (status_t, [ContextP, KernelP, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]),
        "sg_kernel_value_count": (ctypes.c_size_t, [KernelP]),
        "sg_kernel_prepare": (status_t, [ContextP, KernelP, I64P, I64P, ctypes.POINTER(Args)]),
        "sg_kernel_run_args": (status_t, [ContextP, KernelP, ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.POINTER(Args), ctypes.c_int]),
        "sg_kernel_ir_with": (status_t, [ContextP, PlanP, ctypes.POINTER(CompileOptions),
                                         ctypes.POINTER(ctypes.c_void_p)]),
        "sg_llvm_version": (ctypes.c_char_p, []),
        "sg_aot_write_with": (status_t, [ContextP, ctypes.POINTER(AotKernel), ctypes.c_size_t,
                                         ctypes.POINTER(CompileOptions), ctypes.c_char_p, ctypes.c_char_p]),
        "sg_aot_kernel_name_with": (status_t, [ContextP, ctypes.POINTER(AotKernel), ctypes.POINTER(CompileOptions),
                                               ctypes.c_char_p]),
        "sg_is_identifier": (ctypes.c_bool, [ctypes.c_char_p]),
        "sg_aot_layer_names": (status_t, [ContextP, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_void_p)]),
        "sg_aot_default_prefix": (status_t, [ContextP, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]),
        "sg_model_read": (status_t, [ContextP, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ModelP)]),
        "sg_model_layer_count": (ctypes.c_size_t, [ModelP]),
        "sg_model_folded_count": (ctypes.c_size_t, [ModelP]),
        "sg_model_layer_at": (ctypes.POINTER(ModelLayer), [ModelP, ctypes.c_size_t]),
        "sg_model_symbol_count": (ctypes.c_size_t, [ModelP]),
        "sg_model_symbol_at": (ctypes.POINTER(ModelSymbol), [ModelP, ctypes.c_size_t]),
        "sg_model_layer_numbers": (status_t, [ContextP, ModelP, ctypes.c_size_t, I64P, I64P, I64P,
                                              ctypes.POINTER(ctypes.c_uint8)]),
        "sg_model_destroy": (None, [ModelP]),
        "sg_model_fusions": (status_t, [ContextP, ModelP, ctypes.POINTER(ctypes.c_size_t),
                                        ctypes.POINTER(ctypes.POINTER(ModelFusion))]),
    })

# The C library's functions that capture a FILE * printer's text and free
# the buffer open_memstream made (what slicegen returns goes to sg_free).
LIBC_SIGNATURES = {
    "open_memstream": (FILEP, [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]),
    "fclose": (ctypes.c_int, [FILEP]),
    "free": (None, [ctypes.c_void_p]),
}


def _declare(lib):
    """Declares lib's functions: the layout functions, the structs laid out
    by them, then every other function (SIGNATURES)."""
    global SIGNATURES
    for name, (restype, argtypes) in LAYOUT_SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    _build_structs(lib)
    SIGNATURES = _signatures()
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def compile_options(lib, **fields):
    """A CompileOptions at its defaults (sg_compile_options_init_size), then
    the given fields set."""
    options = CompileOptions()
    lib.sg_compile_options_init_size(ctypes.byref(options), ctypes.sizeof(options))
    for name, value in fields.items():
        setattr(options, name, value)
    return options


def load_libc():
    """The C library's functions as the process resolves them (dlopen(NULL)):
    the free() that matches the malloc() libslicegen and open_memstream use,
    which is not libc's own where another allocator is interposed
    (LD_PRELOAD of a sanitizer runtime, jemalloc, tcmalloc)."""
    libc = ctypes.CDLL(None)
    for name, (restype, argtypes) in LIBC_SIGNATURES.items():
        fn = getattr(libc, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return libc


def int64_array(values):
    """A C int64_t array holding values (a list of Python ints that fit)."""
    return (ctypes.c_int64 * max(len(values), 1))(*values)

/*
 * slicegen: machine code made for exactly one tensor slice.
 *
 * The pipeline is   spec  ->  plan  ->  kernel (or reference run).
 *
 *   sg_spec   a slice as the user wrote it: OpenVINO StridedSlice-1,
 *             OpenVINO Slice-8, TensorRT ISliceLayer or a NumPy index
 *             expression. It does not know the input shape.
 *   sg_plan   a spec applied to one static input shape and element type:
 *             the output shape and the folded loop nest that moves the bytes.
 *             Every invalid slice is rejected when the plan is made.
 *
 * Ownership, one rule for the whole API:
 *   - every object the library makes for the caller (a context, spec, plan,
 *     kernel, CUDA kernel or model, and the data sg_npy_read puts in a
 *     tensor) belongs to the caller and is freed by its *_destroy:
 *     sg_context_destroy, sg_spec_destroy, sg_plan_destroy,
 *     sg_kernel_destroy, sg_cuda_kernel_destroy, sg_model_destroy,
 *     sg_tensor_destroy;
 *   - every string or buffer the library returns for the caller to keep
 *     (sg_kernel_ir_with's text, sg_aot_layer_names' names,
 *     sg_aot_default_prefix's prefix) is freed by sg_free, never by the
 *     caller's own free() (the library may use another allocator);
 *   - what a const pointer result points to (a plan's output shape, a
 *     model's layers, a name, the last error) belongs to the object it came
 *     from and lives as long as that object, unless its function says less.
 * Objects never keep pointers into the caller's arrays; inputs are copied.
 * The *_destroy functions and sg_free accept NULL.
 *
 * Results: predicates and name parsers return bool; every other function
 * that can fail returns a sg_status (below) and writes its results through
 * pointers given last.
 *
 * Errors: functions return a sg_status. On failure the context holds a
 * one-line message, "failed to <verb> <object>: <rule> (<values>)", readable
 * with sg_context_last_error() until the next failing call on that context.
 * Output parameters come last and are written only on success.
 *
 * Threads: a context may be used by one thread at a time, except for the
 * kernel calls that say otherwise. Specs and plans are immutable after
 * creation and may be shared freely.
 */
#ifndef SLICEGEN_H
#define SLICEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SG_API marks every function of this header: the symbols libslicegen.so
 * exports. The library is compiled with -fvisibility=hidden and
 * SLICEGEN_BUILDING_LIBRARY, so these and nothing else are visible outside
 * it (the internal functions of its stages stay hidden, though in
 * libslicegen.a they remain linkable). For programs it expands to nothing;
 * define SG_API before including this header to give the declarations an
 * attribute of your own. */
#ifndef SG_API
#if defined(SLICEGEN_BUILDING_LIBRARY) && (defined(__GNUC__) || defined(__clang__))
#define SG_API __attribute__((visibility("default")))
#else
#define SG_API
#endif
#endif

#define SG_VERSION_MAJOR 0
#define SG_VERSION_MINOR 1
#define SG_VERSION_PATCH 0
#define SG_VERSION_STRING "0.1.0"

/* Largest rank of an input or output tensor (NumPy 2 allows 64, NumPy 1 32). */
#define SG_MAX_RANK 64
/* The most runtime values one spec may name. */
#define SG_MAX_VALUES 256

typedef enum sg_status {
    SG_OK = 0,
    SG_ERR_USAGE,    /* a malformed call, option or argument */
    SG_ERR_SPEC,     /* the slice description is invalid on its own */
    SG_ERR_SLICE,    /* the slice cannot be applied to this input */
    SG_ERR_IO,       /* a file cannot be read or written, or is malformed */
    SG_ERR_NOMEM,    /* an allocation failed */
    SG_ERR_INTERNAL  /* a bug or a failure inside the code generator */
} sg_status;

/* Short name of a status ("ok", "usage", "spec", ...). */
SG_API const char *sg_status_name(sg_status status);

/* Frees a string or buffer the library returned for the caller to keep
 * (see "Ownership" above). Accepts NULL. */
SG_API void sg_free(void *p);

/* ---- element types ------------------------------------------------------ */

typedef enum sg_dtype {
    SG_BOOL, SG_I8, SG_U8, SG_I16, SG_U16, SG_I32, SG_U32,
    SG_I64, SG_U64, SG_F16, SG_BF16, SG_F32, SG_F64,
    SG_DTYPE_COUNT
} sg_dtype;

/* "bool", "i8", ..., "f64"; NULL for a value outside the enum. */
SG_API const char *sg_dtype_name(sg_dtype dtype);
/* Bytes per element: 1, 2, 4 or 8; 0 for a value outside the enum. */
SG_API size_t sg_dtype_size(sg_dtype dtype);
/* Parses a name as printed by sg_dtype_name. Returns true on success, false
 * if the name is unknown (then *dtype is untouched). */
SG_API bool sg_dtype_parse(const char *name, sg_dtype *dtype);
/* The type's .npy descr without its byte order ("f4"; bf16 "V2", as
 * ml_dtypes writes it): NumPy's name of it. NULL past the last type. */
SG_API const char *sg_dtype_npy(sg_dtype dtype);

/* ---- context ------------------------------------------------------------- */

typedef struct sg_context sg_context;

SG_API sg_status sg_context_create(sg_context **ctx);
SG_API void sg_context_destroy(sg_context *ctx);
/* The message of the last failure on ctx, or "" if none. The string is owned
 * by the context and valid until the next call on it. */
SG_API const char *sg_context_last_error(const sg_context *ctx);

/* ---- specs --------------------------------------------------------------- */

typedef struct sg_spec sg_spec;

/* A StridedSlice-1 mask: `len` values, each 0 or 1. A mask shorter than
 * begin is padded with zeros; values past the length of begin are ignored. */
typedef struct sg_mask {
    const int64_t *bits;
    size_t len;
} sg_mask;

typedef struct sg_strided_slice_args {
    size_t len;              /* entries of begin, end and stride */
    const int64_t *begin;
    const int64_t *end;
    const int64_t *stride;   /* NULL means all ones */
    sg_mask begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask;
} sg_strided_slice_args;

/* OpenVINO StridedSlice-1. */
SG_API sg_status sg_spec_strided_slice(sg_context *ctx, const sg_strided_slice_args *args,
                                       sg_spec **spec);

/* OpenVINO Slice-8: `len` entries each; step NULL means ones, axes NULL means
 * 0..len-1. Negative axes count from the end. */
SG_API sg_status sg_spec_slice(sg_context *ctx, size_t len, const int64_t *start,
                               const int64_t *stop, const int64_t *step,
                               const int64_t *axes, sg_spec **spec);

typedef enum sg_trt_mode {
    SG_TRT_STRICT, SG_TRT_WRAP, SG_TRT_CLAMP, SG_TRT_FILL, SG_TRT_REFLECT
} sg_trt_mode;

/* "strict", "wrap", "clamp", "fill", "reflect"; and back (true on success,
 * false for an unknown name: *mode is then untouched). */
SG_API const char *sg_trt_mode_name(sg_trt_mode mode);
SG_API bool sg_trt_mode_parse(const char *name, sg_trt_mode *mode);

/* A scalar as written by a user, converted to the element type only when a
 * plan is made (ints and floats convert if exactly representable; f16, bf16
 * and f32 round to nearest even; bool takes 0/1/true/false). */
typedef enum sg_scalar_kind {
    SG_SCALAR_INT, SG_SCALAR_UINT, SG_SCALAR_FLOAT, SG_SCALAR_BOOL
} sg_scalar_kind;

typedef struct sg_scalar {
    sg_scalar_kind kind;
    int64_t i;   /* SG_SCALAR_INT, and SG_SCALAR_BOOL (0 or 1) */
    uint64_t u;  /* SG_SCALAR_UINT: values above INT64_MAX */
    double f;    /* SG_SCALAR_FLOAT */
} sg_scalar;

/* Parses "3", "-7", "18446744073709551615", "0.5", "1e-3", "nan", "-inf",
 * "true", "false". */
SG_API sg_status sg_scalar_parse(sg_context *ctx, const char *text, sg_scalar *value);

/* TensorRT ISliceLayer: `len` entries each (one per input dimension);
 * stride NULL means ones; fill NULL means 0 (used by SG_TRT_FILL only). */
SG_API sg_status sg_spec_trt_slice(sg_context *ctx, size_t len, const int64_t *start,
                                   const int64_t *size, const int64_t *stride,
                                   sg_trt_mode mode, const sg_scalar *fill,
                                   sg_spec **spec);

/* ONNX Slice-1/10/11/13 as ONNX Runtime runs it: the arguments and rule
 * of sg_spec_slice, except that an end (stop) of INT32_MAX or INT64_MAX
 * means "to the end of the axis" for either sign of step. */
SG_API sg_status sg_spec_onnx_slice(sg_context *ctx, size_t len, const int64_t *start,
                                    const int64_t *stop, const int64_t *step,
                                    const int64_t *axes, sg_spec **spec);

/* ONNX Pad-2..19 and OpenVINO Pad-1/12: begin[i] elements added before
 * axis axes[i] and end[i] after it (axes NULL means 0..len-1; negative
 * axes count from the end; unlisted axes are not padded). A negative pad
 * removes that many elements first. mode: SG_TRT_FILL (ONNX "constant",
 * with fill; NULL means 0), SG_TRT_CLAMP ("edge"), SG_TRT_REFLECT
 * ("reflect") or SG_TRT_WRAP ("wrap"). See docs/semantics.md. */
SG_API sg_status sg_spec_pad(sg_context *ctx, size_t len, const int64_t *begin, const int64_t *end,
                             const int64_t *axes, sg_trt_mode mode, const sg_scalar *fill,
                             sg_spec **spec);

/* A NumPy basic-indexing expression: "[1:, ..., ::-1, None, 0]",
 * "x[2:-1:2]", "np.newaxis" accepted for None. */
SG_API sg_status sg_spec_numpy(sg_context *ctx, const char *expr, sg_spec **spec);

/* The SPEC words of the command line (see `slicegen --help`): either one
 * NumPy expression, or `--op NAME` followed by that op's options. */
SG_API sg_status sg_spec_from_words(sg_context *ctx, int count, char *const *words,
                                    sg_spec **spec);

/* Writes the spec in command-line form: an expression, or `--op ...`. */
SG_API void sg_spec_print(const sg_spec *spec, FILE *out);
SG_API void sg_spec_destroy(sg_spec *spec);

/* ---- plans --------------------------------------------------------------- */

typedef struct sg_plan sg_plan;

/* Applies spec to an input of `rank` dimensions `shape` (rank 0 allowed,
 * shape may then be NULL) and element type dtype. */
SG_API sg_status sg_plan_create(sg_context *ctx, const sg_spec *spec,
                                size_t rank, const int64_t *shape, sg_dtype dtype,
                                sg_plan **plan);
SG_API void sg_plan_destroy(sg_plan *plan);

/* Output rank and shape; the array belongs to the plan. */
SG_API size_t sg_plan_output_rank(const sg_plan *plan);
SG_API const int64_t *sg_plan_output_shape(const sg_plan *plan);
SG_API sg_dtype sg_plan_dtype(const sg_plan *plan);
/* Bytes the input must have and the output will have. */
SG_API uint64_t sg_plan_input_bytes(const sg_plan *plan);
SG_API uint64_t sg_plan_output_bytes(const sg_plan *plan);

/* Writes the plan in its stable text form (see docs/plan-format.md). */
SG_API void sg_plan_print(const sg_plan *plan, FILE *out);
/* Reads that text back; the result prints identically and compares equal.
 * A text whose loop nest is not the one its dim and fixed lines fold to is
 * SG_ERR_SPEC, naming the first line that differs. A plan of runtime
 * values or a program's plan is made again from its spec (its `spec` or
 * `program` line, `input` and `dtype`): a text other than what that plan
 * prints is SG_ERR_SPEC, naming the line (docs/plan-format.md). */
SG_API sg_status sg_plan_parse(sg_context *ctx, const char *text, sg_plan **plan);
/* Whether the two plans describe the same computation. */
SG_API bool sg_plan_equal(const sg_plan *a, const sg_plan *b);

/* ---- execution ----------------------------------------------------------- */

/* Runs the plan with the reference interpreter: plain C, element by element,
 * from the shape-inference result rather than the folded loop nest. `in`
 * holds sg_plan_input_bytes() bytes in C order, `out` receives
 * sg_plan_output_bytes() bytes. The buffers must not overlap. */
SG_API sg_status sg_run_reference(sg_context *ctx, const sg_plan *plan,
                                  const void *in, void *out);

/* ---- generated kernels ------------------------------------------------------
 *
 * A kernel is machine code for one plan's loop nest, JIT-compiled with LLVM.
 * Kernels are keyed by element size, not type: every plan with the same loop
 * nest, element size, fill bytes and optimization level shares one kernel,
 * compiled once per context and cached there.
 *
 * The kernel ABI (the same for JIT kernels and for `slicegen emit` objects):
 *
 *     void kernel(const void *in, void *out, int64_t begin, int64_t end);
 *
 * runs steps [begin, end) of the kernel's outer range, 0 <= begin <= end <=
 * sg_kernel_outer_extent(): the outermost loop of the plan's nest, or, when
 * that loop is short and the output large, the leading loops taken together
 * or pieces of one contiguous block. Disjoint ranges write disjoint output
 * bytes, so threads may run them concurrently. A small plan with no loops
 * has an outer extent of 1; an empty output has 0. `in` is the start
 * of the input tensor and `out` of the output tensor, C order; neither needs
 * any alignment, and they must not overlap. The code calls only memcpy and
 * memset. See docs/kernels.md.
 *
 * Threads: sg_kernel_compile_with, sg_kernel_run and sg_kernel_destroy may be
 * called concurrently on one context; the last error is then that of
 * whichever call failed last. */

typedef struct sg_kernel sg_kernel;
typedef void (*sg_kernel_fn)(const void *in, void *out, int64_t begin, int64_t end);

/* Default LLVM optimization level (0 = no IR passes). */
#define SG_DEFAULT_OPT_LEVEL 2

/* How a kernel writes its output (`--stores`). Streaming stores are
 * non-temporal: the output goes to memory without first being read into
 * the cache, which is faster for outputs larger than the last-level cache
 * and slower for small ones. They are made by the copies of runs of at
 * least two vectors, each run's streaming part aligned to the vector width
 * (ordinary stores at its ragged ends), and by the shuffled blocks of
 * strided or reversed runs from the output's first line boundary on; the
 * kernel then ends with a store
 * fence (x86 sfence, AArch64 dmb). AUTO streams when the output has more
 * bytes than the threshold, and when the kernel's rows are long pieces: at
 * most one output line in 21 is where two pieces stored apart meet. The
 * JIT's threshold is measured once per process, the first time a kernel
 * of more than 1 MiB of output is compiled (a few hundred milliseconds: a
 * copy compiled cached and streaming and timed at outputs of 32 MiB
 * halved until cached stores win); objects (sg_aot_write_with) take half the
 * last-level cache of the CPU compiled for (this machine's for `--cpu
 * native`, else 32 MiB assumed); the byte count in the environment
 * variable SLICEGEN_STREAM_THRESHOLD, when set, replaces both (read at
 * compile time). Rows of short pieces (a pad's rows of about a KiB
 * between borders) stream where this machine gains by it: measured once
 * per process, the first time such a kernel is compiled (a pad of about
 * 32 MiB compiled cached and streaming and timed), or set by
 * SLICEGEN_STREAM_SHORT_ROWS=1 or 0; objects store them cached unless that
 * says 1. Rows of a few hundred bytes, and short rows of elements gathered
 * one by one, stay cached. A kernel of runtime values (its output size
 * known per call) streams a call above the threshold: in the JIT the one
 * measured, in an object half the last-level cache. */
typedef enum sg_stores {
    SG_STORES_AUTO = 0,
    SG_STORES_CACHED = 1,   /* ordinary stores only */
    SG_STORES_STREAMING = 2 /* streaming stores whatever the output's size */
} sg_stores;

/* "auto", "cached", "streaming"; NULL for a value outside the enum. And
 * back (true on success, false for an unknown name: *stores is then
 * untouched). */
SG_API const char *sg_stores_name(sg_stores stores);
SG_API bool sg_stores_parse(const char *name, sg_stores *stores);

/* ---- compile options -----------------------------------------------------------
 *
 * Every call that compiles takes one sg_compile_options, or NULL for all
 * the defaults: sg_kernel_compile_with and sg_kernel_ir_with (the JIT, for
 * this machine), sg_aot_write_with and sg_aot_kernel_name_with (output
 * files, for any target) and sg_cuda_kernel_compile_with (a CUDA device).
 * Make one with sg_compile_options_init, then set the fields you need:
 *
 *     sg_compile_options o;
 *     sg_compile_options_init(&o);
 *     o.opt_level = 3;
 *     st = sg_kernel_compile_with(ctx, plan, &o, &kernel);
 *
 * Each field says which calls read it. A call given a field it does not
 * read, set to anything but its default, fails with SG_ERR_USAGE naming the
 * field and the calls that read it (a JIT kernel is for this machine: a
 * target is for sg_aot_write_with), so no setting is silently dropped.
 *
 * The struct grows by fields appended at its end (each new one with zero
 * as its default), and `size` says how many bytes of it the caller has:
 *   - a size below SG_COMPILE_OPTIONS_MIN_SIZE (the fields size, opt_level
 *     and stores), 0 included, is SG_ERR_USAGE naming the size;
 *   - a field not wholly inside the first `size` bytes takes its default:
 *     a program built against an older, shorter struct works with a newer
 *     library;
 *   - a size above sizeof(sg_compile_options) is the struct of a newer
 *     header: accepted when every byte past the fields this library knows
 *     is zero (the newer fields at their defaults), else SG_ERR_USAGE
 *     naming the size and the first byte set; a size above
 *     SG_COMPILE_OPTIONS_MAX_SIZE is SG_ERR_USAGE (a size never set).
 * The library reads at most `size` bytes of the struct, never writes to it
 * (sg_compile_options_init aside) and keeps no pointer into it. */
typedef struct sg_compile_options {
    size_t size;      /* bytes of the struct: sizeof(sg_compile_options), set by sg_compile_options_init */
    int opt_level;    /* 0..3, 0: no IR passes; default SG_DEFAULT_OPT_LEVEL. Read by every call */
    sg_stores stores; /* default SG_STORES_AUTO. Read by all but sg_cuda_kernel_compile_with
                         (sg_aot_*: AUTO's threshold comes from this machine's last-level
                         cache only for cpu "native", else 32 MiB is assumed) */

    /* Read by sg_aot_write_with and sg_aot_kernel_name_with only: */
    const char *target; /* an LLVM triple; NULL (default) for the host */
    const char *cpu;    /* NULL (default): the target's baseline, code every CPU of
                           the architecture runs ("x86-64" for x86_64, "generic" for
                           most others); "native": this machine's CPU with all its
                           features (this machine's architecture only); else that
                           CPU, with its own features. The header and NAME_info
                           record the CPU and features compiled for. */
    /* false (default): objects for x86 support CET (an endbr at each
     * kernel's entry; IBT and SHSTK in a GNU property note), objects for
     * AArch64 BTI and PAC (landing pads, return addresses signed with key A
     * where they are saved; BTI and PAC in the note), so that programs
     * hardened so keep their protection. true: neither. */
    bool no_cf_protection;
    const char *prefix;  /* NULL (default): no table; else the P of P_kernels */
    const char *command; /* NULL (default), or the command line quoted in the header */
    /* Called after each kernel is compiled (done of total), if not NULL (default). */
    void (*progress)(void *arg, size_t done, size_t total);
    void *progress_arg;
    /* The model the kernels' model_layer belong to, or NULL (default); with
     * a prefix P the header lists its symbols (P_symbols). */
    const struct sg_model *model;

    /* Read by sg_cuda_kernel_compile_with only: */
    int device; /* the CUDA device ordinal; default 0 */
} sg_compile_options;

/* The smallest size a call accepts, and the largest. */
#define SG_COMPILE_OPTIONS_MIN_SIZE (offsetof(sg_compile_options, stores) + sizeof(sg_stores))
#define SG_COMPILE_OPTIONS_MAX_SIZE 4096

/* Writes the first `size` bytes of *o: size = `size`, each field wholly
 * inside them at its default, every other byte zero; nothing when size is
 * below sizeof(size_t) or above SG_COMPILE_OPTIONS_MAX_SIZE. For bindings,
 * which allocate sg_struct_size("sg_compile_options") bytes; C programs
 * call sg_compile_options_init. */
SG_API void sg_compile_options_init_size(sg_compile_options *o, size_t size);

/* Sets every field of *o to its default and o->size to the size of the
 * struct this header declares (inline, so that a program built against an
 * older header never has a newer library write past its struct). */
static inline void sg_compile_options_init(sg_compile_options *o)
{
    sg_compile_options_init_size(o, sizeof *o);
}

/* Compiles (or finds in the context's cache) the kernel for plan with
 * `options` (NULL: the defaults; reads opt_level and stores). The kernel
 * holds no reference to the plan or the options. Destroy it with
 * sg_kernel_destroy; it lives at most as long as the context. Kernels of
 * one plan with different stores are cached apart (AUTO shares the kernel
 * of what it chooses). A destroyed kernel stays cached, so compiling the
 * same nest again is a cache hit; past 1024 unreferenced kernels the least
 * recently destroyed one is unloaded. Two threads compiling the same new
 * nest compile it once. An opt_level outside 0..3 or stores not of
 * sg_stores is SG_ERR_USAGE. */
SG_API sg_status sg_kernel_compile_with(sg_context *ctx, const sg_plan *plan,
                                        const sg_compile_options *options, sg_kernel **kernel);

/* sg_kernel_compile_with of options with this opt_level. Kept for one
 * release; use sg_kernel_compile_with. */
SG_API sg_status sg_kernel_compile(sg_context *ctx, const sg_plan *plan, int opt_level, sg_kernel **kernel);
/* sg_kernel_compile_with of options with this opt_level and stores. Kept
 * for one release; use sg_kernel_compile_with. */
SG_API sg_status sg_kernel_compile_stores(sg_context *ctx, const sg_plan *plan, int opt_level,
                                          sg_stores stores, sg_kernel **kernel);
/* Gives the kernel back to its context's cache (see sg_kernel_compile_with).
 * Accepts NULL. */
SG_API void sg_kernel_destroy(sg_kernel *kernel);
/* sg_kernel_destroy under its former name: kept for one release; use
 * sg_kernel_destroy. */
SG_API void sg_kernel_release(sg_kernel *kernel);

/* The compiled function, valid until the kernel is destroyed. */
SG_API sg_kernel_fn sg_kernel_function(const sg_kernel *kernel);
SG_API int64_t sg_kernel_outer_extent(const sg_kernel *kernel);

/* Runs the whole kernel, splitting the outer range over `threads` threads:
 * the calling thread and threads-1 workers of the context's thread pool,
 * started at the first threaded run and kept until the context is
 * destroyed (after a run they spin for 0.1 ms before they sleep, so runs in
 * a loop pay no wake-up). 1 runs on the calling thread alone. Buffers as
 * for sg_run_reference. */
SG_API sg_status sg_kernel_run(sg_context *ctx, const sg_kernel *kernel, const void *in, void *out,
                               int threads);

/* ---- runtime values: one kernel for many shapes and indices ---------------
 *
 * A spec may name values known only at run time (`[:, :, :t]`, `--end
 * 0,0,t`: sg_spec_numpy, sg_spec_from_words) and an input shape may hold
 * -1 for a dimension known only at run time (`?` on the command line).
 * sg_plan_create then makes a symbolic plan: its output shape holds -1
 * where a dimension depends on them, and its kernel compiles once for every
 * value. A call gives the values (ordered by first appearance in the spec)
 * and the input's whole shape; the numbers are checked exactly as the spec
 * with them written in would be (errors: "failed to run kernel: ...", the
 * values named). sg_kernel_prepare fills an sg_args for one call, which
 * sg_kernel_run_args runs; sg_kernel_run_values does both. A symbolic
 * kernel's sg_kernel_function is NULL and its outer extent -1; its
 * functions are those of `slicegen emit` (docs/runtime-values.md):
 *
 *     int  prepare(sg_args *args, const int64_t *in_shape, const int64_t *values);
 *     void kernel(const void *in, void *out, const sg_args *args, int64_t begin, int64_t end);
 *
 * prepare returns 0 or an SG_PREPARE_* code and then leaves args as they
 * were; the kernel runs steps [begin, end) of [0, args->outer_extent). */

/* The input's rank and shape (-1 for a dimension known at run time). */
SG_API size_t sg_plan_input_rank(const sg_plan *plan);
SG_API const int64_t *sg_plan_input_shape(const sg_plan *plan);
/* The number of runtime values of a plan (0 for a static plan), and their names. */
SG_API size_t sg_plan_value_count(const sg_plan *plan);
SG_API const char *sg_plan_value_name(const sg_plan *plan, size_t index);
/* Whether value `index` is the plan's fill value (TrtSlice's --fill, Pad's
 * --value, ONNX Pad's constant_value given at run time): one element of
 * the plan's type, passed as its bits in the low bytes (bool: 0 or not 0),
 * which sg_fill_bits makes of a number. */
SG_API bool sg_plan_value_is_fill(const sg_plan *plan, size_t index);
/* The runtime value of a fill of `value` for elements of `dtype`: the
 * element as --fill converts it, its bytes zero-extended (little-endian).
 * SG_ERR_SLICE where value is not representable in dtype. */
SG_API sg_status sg_fill_bits(sg_context *ctx, const sg_scalar *value, sg_dtype dtype, int64_t *bits);
/* Whether the plan has runtime values or dimensions. */
SG_API bool sg_plan_is_symbolic(const sg_plan *plan);
/* The static plan of a symbolic plan's spec with the numbers written in:
 * in_shape (its input rank entries) and values. The reference for a call
 * (sg_run_reference runs it); its errors are those of the typed spec. */
SG_API sg_status sg_plan_specialize(sg_context *ctx, const sg_plan *plan, const int64_t *in_shape,
                                    const int64_t *values, sg_plan **specialized);

/* What prepare returns when it refuses a call. */
enum {
    SG_PREPARE_SHAPE = 1, /* in_shape differs from a fixed dimension, or holds a negative one */
    SG_PREPARE_INDEX = 2, /* an index or coordinate outside the input */
    SG_PREPARE_STEP = 3,  /* a zero stride or step, a negative size */
    SG_PREPARE_EMPTY = 4, /* a border mode reading an empty dimension */
    SG_PREPARE_SIZE = 5   /* a tensor or coordinate too large for 64 bits (or the target's pointers) */
};

/* One call's numbers. The first fields are public; the rest is the
 * kernel's. The generated header's slicegen_args is the same struct. */
typedef struct sg_args {
    int32_t out_rank;
    int32_t reserved;
    int64_t out_shape[SG_MAX_RANK];
    int64_t outer_extent, input_bytes, output_bytes;
    int64_t internal[8 + 6 * SG_MAX_RANK];
} sg_args;

typedef int (*sg_prepare_fn)(sg_args *args, const int64_t *in_shape, const int64_t *values);
typedef void (*sg_kernel_args_fn)(const void *in, void *out, const sg_args *args, int64_t begin, int64_t end);

/* The functions of a symbolic kernel (NULL for a static one). */
SG_API sg_prepare_fn sg_kernel_prepare_function(const sg_kernel *kernel);
SG_API sg_kernel_args_fn sg_kernel_args_function(const sg_kernel *kernel);
SG_API size_t sg_kernel_value_count(const sg_kernel *kernel);
/* Checks and prepares one call of a symbolic kernel. */
SG_API sg_status sg_kernel_prepare(sg_context *ctx, const sg_kernel *kernel, const int64_t *in_shape,
                                   const int64_t *values, sg_args *args);
/* Runs a prepared call over `threads` threads (as sg_kernel_run). */
SG_API sg_status sg_kernel_run_args(sg_context *ctx, const sg_kernel *kernel, const void *in, void *out,
                                    const sg_args *args, int threads);
/* sg_kernel_prepare, then sg_kernel_run_args; out holds args.output_bytes. */
SG_API sg_status sg_kernel_run_values(sg_context *ctx, const sg_kernel *kernel, const void *in,
                                      const int64_t *in_shape, const int64_t *values, void *out, int threads);

/* The LLVM IR of plan's kernel for this machine as text, with `options`
 * (NULL: the defaults; reads opt_level and stores): before any pass at
 * opt_level 0, after the pass pipeline otherwise. Free *text with
 * sg_free. */
SG_API sg_status sg_kernel_ir_with(sg_context *ctx, const sg_plan *plan, const sg_compile_options *options,
                                   char **text);
/* sg_kernel_ir_with of options with this opt_level. Kept for one release;
 * use sg_kernel_ir_with. */
SG_API sg_status sg_kernel_ir(sg_context *ctx, const sg_plan *plan, int opt_level, char **text);

/* The LLVM version slicegen was built with, e.g. "14.0.6". */
SG_API const char *sg_llvm_version(void);

/* Makes a fatal error inside LLVM, which ends the process, print one line,
 * "slicegen: error: LLVM failed: <reason>", on stderr and exit with status
 * 1, instead of LLVM's abort (a core dump, a stack trace). Failures slicegen
 * can report (a bad triple or CPU, a module that does not verify, a JIT or
 * object writer error) are returned as errors either way. For programs: it
 * replaces any fatal-error handler the process gave LLVM. */
SG_API void sg_llvm_exit_on_fatal_error(void);

/* ---- ahead of time: objects, archives, assembly, IR and C headers ----------
 *
 * sg_aot_write_with compiles one or more kernels into one output file for any
 * LLVM target, plus an optional C header declaring them. What the file holds
 * follows the extension of its path:
 *
 *     .o   relocatable object (position-independent)    .s   assembly
 *     .a   static archive holding that object            .ll  LLVM IR text
 *
 * For every kernel NAME the object defines the function NAME (the kernel ABI
 * above) and `const slicegen_kernel_info NAME_info` (the struct is defined in
 * the generated header); with a table prefix P also
 * `const slicegen_kernel_info *const P_kernels[]` in the given order and
 * `const size_t P_kernel_count`. Kernels of equal loop nests share one
 * function (the others' symbols are aliases of it), but for PTX. See
 * docs/aot.md for the header contract. */

/* One kernel of an ahead-of-time output. Strings are copied. */
typedef struct sg_aot_kernel {
    const sg_plan *plan;
    const char *name;     /* its symbol: a C identifier, unique in the output */
    const char *spec;     /* the spec in command-line form (header comment, NAME_info.spec) */
    const char *layer;    /* the model's layer name, or NULL */
    int64_t layer_id;     /* the model's layer id, or -1 */
    /* aot --fuse: the names of the layers the kernel replaces (NULL, 0: none) */
    const char *const *fused_layers;
    size_t fused_count;
    /* The model layer it compiles (sg_model_layer_at of options->model), or
     * NULL: with runtime numbers, the output then has NAME_numbers, which
     * computes them from the model's symbols (docs/aot.md). */
    const struct sg_model_layer *model_layer;
} sg_aot_kernel;

/* Writes `count` kernels to `path` and, if header_path is not NULL, their C
 * header, compiled with `options` (NULL: the defaults, for the host; reads
 * every field but device). With a prefix, count may be 0: a model with
 * nothing to compile gets an object whose table is empty (P_kernel_count
 * 0). Each file is written whole or not at all (a temporary file
 * PATH.slicegen-tmp-XXXXXX, then rename; see sg_remove_temporary_files); on
 * failure neither is created and existing files are left as they were.
 * An unknown triple or CPU is SG_ERR_USAGE with LLVM's reason; so is a
 * header_path that names the same file as path, by any spelling (a symbolic
 * or hard link, "./", ".."). A tensor of more bytes than the target's
 * pointers address (2^31 - 1 on 32-bit targets) is SG_ERR_SLICE. */
SG_API sg_status sg_aot_write_with(sg_context *ctx, const sg_aot_kernel *kernels, size_t count,
                                   const sg_compile_options *options, const char *path,
                                   const char *header_path);

/* The name kernel (its plan and spec; kernel->name is ignored) gets by
 * default in an output compiled with `options` (as sg_aot_write_with's),
 * as `slicegen emit` names it: "sg_x<element size>_l<loops>_r<run
 * bytes>_<16 hex digits>", at most SG_KERNEL_NAME_MAX - 1 characters. The
 * digits hash everything that makes the kernel and its description: the
 * plan (element type, shapes, loop nest, fill), the spec, the target's
 * triple, CPU and features, and the optimization level; kernels that
 * differ in any of them get different names, so their objects link into
 * one program. An unknown triple is SG_ERR_USAGE. */
#define SG_KERNEL_NAME_MAX 96
SG_API sg_status sg_aot_kernel_name_with(sg_context *ctx, const sg_aot_kernel *kernel,
                                         const sg_compile_options *options, char name[SG_KERNEL_NAME_MAX]);

/* The options of sg_aot_write and sg_aot_kernel_name: the fields of
 * sg_compile_options of the same names (no_cf_protection: nonzero is true).
 * Kept for one release; use sg_compile_options. */
typedef struct sg_aot_options {
    const char *target;
    const char *cpu;
    int opt_level;
    const char *prefix;
    const char *command;
    void (*progress)(void *arg, size_t done, size_t total);
    void *progress_arg;
    int no_cf_protection;
    sg_stores stores;
    const struct sg_model *model;
} sg_aot_options;

/* sg_aot_write_with and sg_aot_kernel_name_with of sg_aot_options (NULL:
 * the defaults). Kept for one release; use those. */
SG_API sg_status sg_aot_write(sg_context *ctx, const sg_aot_kernel *kernels, size_t count,
                              const sg_aot_options *options, const char *path, const char *header_path);
SG_API sg_status sg_aot_kernel_name(sg_context *ctx, const sg_aot_kernel *kernel,
                                    const sg_aot_options *options, char name[SG_KERNEL_NAME_MAX]);

/* The name of a plan's loop nest, in the same form: plans with one loop
 * nest share it, whatever their element type or shapes. The JIT names its
 * kernels so; an output file's kernels take sg_aot_kernel_name_with. */
SG_API sg_status sg_kernel_name(sg_context *ctx, const sg_plan *plan, char name[SG_KERNEL_NAME_MAX]);

/* Whether kernels compiled for the LLVM triple `triple` (NULL: this
 * machine) are GPU kernels: NVIDIA's nvptx and nvptx64 triples, whose
 * output is PTX text launched through the CUDA driver. */
SG_API bool sg_triple_is_gpu(const char *triple);

/* Whether `name` is a C identifier: [A-Za-z_][A-Za-z0-9_]*, and not a keyword
 * of C or C++. sg_aot_write_with also refuses names that C and C++ reserve
 * (starting with '_', holding "__"), that the generated header or the
 * headers it includes use (slicegen_kernel_info, SLICEGEN_*, int64_t,
 * size_t, NULL, offsetof, INT*_MAX, ...) and the C library functions
 * kernels call (memcpy, memset, memmove), for every name it derives
 * (NAME_info, P_kernels, ...). */
SG_API bool sg_is_identifier(const char *name);

/* Kernel names for model layers, as `slicegen aot` gives them: prefix, '_',
 * then the layer name with every run of characters outside [A-Za-z0-9]
 * (and of '_') made one '_', none at the end ("layer" when nothing is
 * left); a name already taken (by an earlier layer, or by a symbol or
 * macro derived from one, such as NAME_info or P_kernels) or reserved gets
 * the first free suffix _2, _3, ... Free each names[i] with sg_free. A
 * prefix whose table names are reserved is SG_ERR_USAGE. */
SG_API sg_status sg_aot_layer_names(sg_context *ctx, const char *prefix, size_t count,
                                    const char *const *layers, char **names);

/* The table prefix `slicegen aot` gives a model by default: the model
 * file's name without folders and extension, made an identifier as layer
 * names are ("yolo-v5s.onnx": "yolo_v5s"); behind "sg_" where that starts
 * with a digit, is a keyword or makes a reserved name ("3d.xml": "sg_3d");
 * "sg" where nothing of it is left. Free *prefix with sg_free. */
SG_API sg_status sg_aot_default_prefix(sg_context *ctx, const char *model_path, char **prefix);
/* sg_aot_default_prefix without a context: the prefix (free it with
 * sg_free), or NULL when out of memory. Kept for one release; use
 * sg_aot_default_prefix. */
SG_API char *sg_aot_model_prefix(const char *model_path);

/* ---- CUDA GPUs -----------------------------------------------------------------
 *
 * The same plans as CUDA kernels, through LLVM's NVPTX backend. The CUDA
 * driver (libcuda.so.1) is loaded with dlopen at the first call that needs
 * it; nothing of CUDA is needed to build or to run slicegen otherwise. A
 * machine without the driver or without a device makes these calls fail
 * with SG_ERR_USAGE and a message that says which.
 *
 * A CUDA kernel is `NAME(const void *in, void *out)` over a 1-D grid of
 * sg_cuda_kernel_geometry()'s size: each thread writes one 16-byte chunk of
 * the output (the last one fewer). `in` and `out` are device pointers
 * aligned to 16 bytes (cuMemAlloc gives 256) that must not overlap. Kernels
 * are compiled to PTX for the device's compute capability, loaded into the
 * device's primary context (the one the CUDA runtime API uses; the context
 * retains it at first use and releases it when destroyed) and cached per
 * context, keyed by loop nest, input size, device and optimization level:
 * plans that differ only in element type share a kernel, as CPU kernels do.
 * A destroyed kernel stays loaded; past 256 unreferenced kernels the least
 * recently destroyed one is unloaded.
 *
 * Errors: no driver, a driver that does not start (cuInit fails), no
 * device, a device ordinal out of range or a device too old for NVPTX are
 * SG_ERR_USAGE; a driver call failing later is SG_ERR_INTERNAL ("failed to
 * <verb> <object>: CUDA_ERROR_X: <the driver's words>"), or SG_ERR_NOMEM
 * for CUDA_ERROR_OUT_OF_MEMORY.
 *
 * Threads: these calls may be called concurrently on one context, like the
 * kernel calls above (two threads compiling the same new kernel compile it
 * once). Each makes the device's primary context current around its driver
 * calls and restores the calling thread's current context.
 *
 * Streams are passed as `void *` (a CUstream; NULL is the legacy default
 * stream), so this header needs no CUDA header. */

typedef struct sg_cuda_kernel sg_cuda_kernel;

/* The number of CUDA devices (0 when the driver finds none). Fails with
 * SG_ERR_USAGE when libcuda.so.1 cannot be loaded or initialised. */
SG_API sg_status sg_cuda_device_count(sg_context *ctx, int *count);

/* Compiles (or finds in the context's cache) plan's kernel with `options`
 * (NULL: the defaults; reads opt_level and device) for the device of
 * ordinal options->device and loads it there. A driver's refusal to load
 * the PTX is SG_ERR_INTERNAL with the driver's JIT log. Destroy it with
 * sg_cuda_kernel_destroy; it lives at most as long as the context. */
SG_API sg_status sg_cuda_kernel_compile_with(sg_context *ctx, const sg_plan *plan,
                                             const sg_compile_options *options, sg_cuda_kernel **kernel);
/* sg_cuda_kernel_compile_with of options with this device. Kept for one
 * release; use sg_cuda_kernel_compile_with. */
SG_API sg_status sg_cuda_kernel_compile(sg_context *ctx, const sg_plan *plan, int device,
                                        sg_cuda_kernel **kernel);
/* Gives the kernel back to its context's cache. Accepts NULL. */
SG_API void sg_cuda_kernel_destroy(sg_cuda_kernel *kernel);
/* sg_cuda_kernel_destroy under its former name: kept for one release; use
 * sg_cuda_kernel_destroy. */
SG_API void sg_cuda_kernel_release(sg_cuda_kernel *kernel);

/* The launch geometry: blocks in x (0 for an empty output: nothing to
 * launch; 0 too for a kernel of runtime values, whose grid is each call's:
 * sg_cuda_args_geometry) and threads per block. */
SG_API void sg_cuda_kernel_geometry(const sg_cuda_kernel *kernel, uint32_t *grid_x, uint32_t *block_x);

/* Enqueues the kernel on `stream` (a CUstream of the device's primary
 * context, or NULL) over device pointers `in` and `out` (CUdeviceptr
 * values, 16-byte aligned: SG_ERR_USAGE otherwise). Returns once the launch
 * is queued; an empty output launches nothing. */
SG_API sg_status sg_cuda_kernel_launch(sg_context *ctx, const sg_cuda_kernel *kernel, uint64_t in,
                                       uint64_t out, void *stream);

/* Host buffers in, host buffers out: copies `in` (sg_plan_input_bytes of
 * the plan compiled) to new device memory, runs the kernel on the legacy
 * default stream, copies the output back to `out` (sg_plan_output_bytes)
 * and waits for all of it; the device memory is freed either way. */
SG_API sg_status sg_cuda_run(sg_context *ctx, const sg_cuda_kernel *kernel, const void *in, void *out);

/* Kernels of runtime values (a symbolic plan: see "runtime values" above)
 * compile once for every value, as CPU kernels do. Such a kernel is
 *
 *     NAME(const void *in, void *out, slicegen_args args)   // args by value
 *
 * over a grid that each call's args give (sg_cuda_args_geometry): the host
 * prepares a call (the planner's checks and numbers, exactly as
 * sg_kernel_prepare; its errors are "failed to run kernel: ...") and the
 * launch passes the struct as the kernel's third parameter (cuLaunchKernel's
 * kernelParams[2] = &args). sg_cuda_kernel_launch and sg_cuda_run refuse
 * such a kernel, and the calls below a static one (SG_ERR_USAGE). */
SG_API sg_status sg_cuda_kernel_prepare(sg_context *ctx, const sg_cuda_kernel *kernel, const int64_t *in_shape,
                                        const int64_t *values, sg_args *args);
/* The grid of a prepared call: blocks in x (0: nothing to launch) and
 * threads per block (256). */
SG_API void sg_cuda_args_geometry(const sg_args *args, uint32_t *grid_x, uint32_t *block_x);
/* Enqueues a prepared call on `stream`, as sg_cuda_kernel_launch; `in` and
 * `out` hold args->input_bytes and args->output_bytes. */
SG_API sg_status sg_cuda_kernel_launch_args(sg_context *ctx, const sg_cuda_kernel *kernel, uint64_t in,
                                            uint64_t out, const sg_args *args, void *stream);
/* sg_cuda_run for a kernel of runtime values: prepares the call of
 * in_shape and values, then copies, runs, copies back and waits; out
 * receives the call's output bytes (sg_args.output_bytes of it). */
SG_API sg_status sg_cuda_run_values(sg_context *ctx, const sg_cuda_kernel *kernel, const void *in,
                                    const int64_t *in_shape, const int64_t *values, void *out);

/* ---- OpenVINO IR and ONNX models -------------------------------------------
 *
 * sg_model_read reads an ONNX model when the path ends in ".onnx" (any
 * case): its Slice, Pad, Split (one layer per output) and Gather nodes of
 * a scalar or constant index, as docs/onnx.md describes (a weights_path is
 * then SG_ERR_USAGE; runtime values starts_0, ..., axes_0, ..., pads_0,
 * ..., split_0, ..., constant_value_0, indices_0). Otherwise
 * it reads an OpenVINO IR v10 or v11 model (.xml with its .bin weights)
 * and lists its slice layers: StridedSlice-1, Slice-8, Pad-1 and Pad-12,
 * Gather-1/7/8 of one constant index, Split-1 and VariadicSplit-1 (one
 * entry per output port, in port order), in model order
 * (docs/openvino-ir.md). Other layers are ignored. A dynamic dimension
 * of a layer's data input is -1 in its shape, and an index input that is
 * not a Const (begin, end, stride; start, stop, step, axes; pads_begin,
 * pads_end, pad_value) gives one runtime value per element, named after
 * the input and the element (begin_0, begin_1, ..., end_0, ...), the
 * values in port order: such a spec makes a symbolic plan
 * (sg_plan_value_name lists the values). A layer whose slice slicegen
 * cannot describe (an index input of dynamic length, an element type
 * slicegen lacks) is listed with a reason
 * instead of a spec. A malformed model fails as a whole with SG_ERR_IO and
 * a message naming the file, the layer (name and id) and the attribute at
 * fault. */

typedef struct sg_model sg_model;

typedef struct sg_model_layer {
    const char *name;        /* exactly as in the model (ONNX: the node's name, or its
                                first output's name when it has none); the layers of
                                one Split, one per output in order, share name and id */
    int64_t id;
    const char *type;        /* the layer's type: "StridedSlice", "Slice", "Pad", ...; ONNX: the op_type */
    const sg_spec *spec;     /* NULL when the layer is skipped */
    const char *spec_text;   /* the spec in command-line form; NULL when skipped */
    size_t rank;             /* the data input: rank, shape (-1 for a dynamic */
    const int64_t *shape;    /* dimension) and element type; valid when spec is not NULL */
    sg_dtype dtype;
    const char *skip_reason; /* why the layer is skipped; NULL when it is not */
} sg_model_layer;

/* weights_path NULL: xml_path with its extension replaced by ".bin". */
SG_API sg_status sg_model_read(sg_context *ctx, const char *xml_path, const char *weights_path,
                               sg_model **model);
SG_API size_t sg_model_layer_count(const sg_model *model);
/* Slice-like nodes that are shape arithmetic (their data input is derived
 * from a Shape or Size: ONNX's Gather(Shape(x), 1)): not layers, but
 * folded into the numbers of the layers they feed. */
SG_API size_t sg_model_folded_count(const sg_model *model);
/* The layer at index (< sg_model_layer_count); owned by the model. */
SG_API const sg_model_layer *sg_model_layer_at(const sg_model *model, size_t index);

/* A model's symbols: the sizes its dynamic dimensions take, each named
 * once (an ONNX dim_param; an unnamed dynamic dimension of graph input x
 * is "x_dim<k>"; a dimension no shape rule can tell is named after its
 * tensor). The dimensions and runtime values of every layer follow from
 * them (sg_model_layer_numbers), so a caller who knows the graph inputs'
 * shapes knows every layer's. */
typedef struct sg_model_symbol {
    const char *name;
    const char *input; /* the graph input whose dimension `dim` gives it; NULL: none does
                          (the caller must know it otherwise) */
    int64_t dim;       /* -1 when input is NULL */
} sg_model_symbol;
SG_API size_t sg_model_symbol_count(const sg_model *model);
/* Symbol k (< sg_model_symbol_count); owned by the model. */
SG_API const sg_model_symbol *sg_model_symbol_at(const sg_model *model, size_t k);
/* Layer `index`'s numbers for the symbols' sizes (symbols: one per
 * sg_model_symbol_count, in that order): its data input's shape into
 * in_shape (its rank of entries) and into values each runtime value of its
 * spec that follows from the symbols (shape arithmetic); given[i], when
 * not NULL, is set to 1 for those and 0 for the others (index data the
 * caller gives, left as they are in values). values and given have
 * sg_plan_value_count entries of the layer's plan. SG_ERR_USAGE for a
 * skipped layer or an index out of range. */
SG_API sg_status sg_model_layer_numbers(sg_context *ctx, const sg_model *model, size_t index,
                                        const int64_t *symbols, int64_t *in_shape, int64_t *values,
                                        uint8_t *given);
SG_API void sg_model_destroy(sg_model *model);

/* Slice layers that run as one kernel (`slicegen aot --fuse`,
 * docs/programs.md): a chain of slice layers (StridedSlice, Slice, Pad,
 * Gather; not Split) each reading the one before, whose intermediate
 * results nothing else reads, and a Concat whose inputs are all such
 * layers or chains of one tensor, reading nothing else. Each fusion is a
 * program (SG_OP_PROGRAM spec) over the first layers' data input that
 * gives the last layer's (the Concat's) output; layers with runtime values
 * or dimensions are not fused. */
typedef struct sg_model_fusion {
    const char *name;          /* the last layer's name, or the Concat's */
    int64_t id;                /* its id */
    const sg_spec *spec;       /* the program */
    const char *spec_text;     /* its text (sg_spec_print's) */
    size_t rank;               /* the data input of its first layers: rank, */
    const int64_t *shape;      /* shape and element type */
    sg_dtype dtype;
    size_t nlayers;            /* the slice layers it replaces, as indices of */
    const size_t *layers;      /* sg_model_layer_at, in model order */
    size_t nnames;             /* the names of all it replaces: those layers' */
    const char *const *names;  /* in model order, then the Concat's */
} sg_model_fusion;

/* The fusions of model, in the order of their last layers: *fusions
 * (*count of them) are owned by the model, made on the first call. */
SG_API sg_status sg_model_fusions(sg_context *ctx, sg_model *model, size_t *count,
                                  const sg_model_fusion **fusions);

/* ---- tensors and .npy files ---------------------------------------------- */

/* A dense C-order tensor.
 *
 * sg_npy_read fills every field. It reads data of less than 1 MiB into
 * malloc'd memory (map is NULL) and maps larger data read-only from the
 * file (map is the start of the mapping, map_bytes its length, and data
 * points into it), so a file larger than memory can be read as long as
 * only part of it is touched. Mapped data must not be written to.
 * sg_tensor_destroy frees or unmaps it; the file may be renamed, replaced
 * or removed meanwhile (sg_npy_write over the same path included) without
 * changing what the tensor holds.
 *
 * If another process truncates a mapped file while the tensor is in use,
 * reading the part cut off raises SIGBUS, which kills a program that does
 * not handle it (the size is checked against the header when the file is
 * opened, and again once it is mapped, so only a truncation after that can
 * do this). A program that must survive it handles SIGBUS whose si_addr
 * lies in [map, map + map_bytes), as the slicegen command does: it reports
 * the input as truncated and exits with status 2. A program that would
 * rather never map reads the data itself: it is the last `bytes` bytes of
 * the file (see sg_npy_read_header).
 *
 * A tensor you fill in yourself holds map = NULL (zero-initialize it); then
 * sg_tensor_destroy calls free(data). */
typedef struct sg_tensor {
    sg_dtype dtype;
    size_t rank;
    int64_t shape[SG_MAX_RANK];
    void *data;
    uint64_t bytes;   /* bytes of data: elements times the element size */
    void *map;        /* NULL, or the mapping holding data */
    size_t map_bytes; /* the length of that mapping */
} sg_tensor;

/* Reads a NumPy .npy file (format 1.0, 2.0 or 3.0, little-endian, C order).
 * The file's size must be exactly what its header says: a file with fewer or
 * more data bytes is SG_ERR_IO ("truncated data", "trailing bytes"), checked
 * before any data is read or mapped. On failure *tensor is untouched. */
SG_API sg_status sg_npy_read(sg_context *ctx, const char *path, sg_tensor *tensor);
/* Reads only the header, with the same checks as sg_npy_read (the file's
 * size included): dtype, rank, shape and bytes are set, data and map are
 * NULL. The data is then the last `bytes` bytes of the file. */
SG_API sg_status sg_npy_read_header(sg_context *ctx, const char *path, sg_tensor *tensor);
/* Writes a .npy file (format 1.0, or 2.0 when the header needs it). The file
 * appears whole or not at all: data goes to a temporary file in the same
 * folder, PATH.slicegen-tmp-XXXXXX, which is renamed over `path` once
 * complete. `path` may be the file an input tensor was read from, mapped or
 * not. */
SG_API sg_status sg_npy_write(sg_context *ctx, const char *path, const sg_tensor *tensor);
/* Frees (map NULL) or unmaps the data; data and map become NULL and bytes 0.
 * The struct itself is the caller's. Accepts NULL and a tensor without
 * data. */
SG_API void sg_tensor_destroy(sg_tensor *tensor);
/* sg_tensor_destroy under its former name: kept for one release; use
 * sg_tensor_destroy. */
SG_API void sg_tensor_release(sg_tensor *tensor);

/* ---- struct layouts, for bindings -----------------------------------------------
 *
 * The layout of each struct of this header as the library was compiled,
 * for bindings that cannot read a C header (python/slicegen/_capi.py
 * builds its ctypes structs from these rather than copying them): sg_mask,
 * sg_strided_slice_args, sg_scalar, sg_args, sg_compile_options,
 * sg_aot_kernel, sg_model_layer, sg_model_symbol, sg_model_fusion and
 * sg_tensor. Only public fields are listed: the rest of sg_args is the
 * kernel's, to be allocated (sg_struct_size) but never read. */

/* sizeof the struct named `type` ("sg_args"); 0 for a name not listed. */
SG_API size_t sg_struct_size(const char *type);
/* The offset and size in bytes of the public field `field` of struct
 * `type`; false (offset and size untouched) for a struct or field not
 * listed. */
SG_API bool sg_struct_field(const char *type, const char *field, size_t *offset, size_t *size);

/* ---- interruption --------------------------------------------------------------
 *
 * sg_npy_write and sg_aot_write_with write each file to a temporary file next to
 * it, named after it: OUT.slicegen-tmp-XXXXXX (six random characters). Until
 * it is renamed over OUT (or removed on failure), its name is kept in a
 * process-wide table of at most 16 names. A process killed in the middle
 * leaves the temporary file behind and OUT as it was, unless its signal
 * handler calls this: */

/* Removes every temporary file being written at this moment, in any thread.
 * Async-signal-safe: meant for a handler of SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT that then lets the signal kill the process (restore the default
 * action and raise it again), as the slicegen command does. A write whose
 * temporary file was removed and that goes on fails. Files beyond the 16th
 * written at the same moment, and any file when the process is killed by
 * SIGKILL, are left behind under that name; they may be deleted. */
SG_API void sg_remove_temporary_files(void);

#ifdef __cplusplus
}
#endif

#endif /* SLICEGEN_H */

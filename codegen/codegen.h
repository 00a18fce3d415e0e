/*
 * codegen: sg_plan -> LLVM IR -> machine code. The only stage that includes
 * the llvm-c headers; nothing of LLVM leaks out of this folder: LLVM errors
 * become sg_error (SG_ERR_INTERNAL, LLVM's message), LLVM objects stay
 * inside. Functions taking an sg_error need a non-NULL, fresh one (status
 * SG_OK) and return its status. Plans must have passed sg_plan_check.
 *
 * What a kernel is (the ABI of include/slicegen.h, also what `slicegen emit`
 * objects will export):
 *
 *     void kernel(const void *in, void *out, int64_t begin, int64_t end);
 *
 * It runs steps [begin, end) of the kernel's outer range over the plan's
 * folded nest (planner.h; sg_nest_outer below: the outermost loop, the
 * leading loops together, or pieces of a lone run), 0 <= begin <= end <=
 * sg_nest_outer_extent(plan). `in` points at the input tensor (the kernel
 * adds plan->base itself), `out` at the output tensor; step i writes output
 * bytes [i * step_bytes, (i + 1) * step_bytes) and nothing else. Buffers
 * need no alignment (every access is align 1) and must not overlap. Every number of
 * the plan is a constant in the code; nothing about the slice is read at run
 * time. Indices, sizes and offsets are of the target's pointer width (the
 * ABI's begin and end are truncated to it) and every division is by a
 * constant, so the code calls memcpy and memset (through
 * llvm.memcpy/llvm.memset) and nothing else, on 32-bit targets too (LLVM
 * may still call a runtime helper where a target lacks an instruction:
 * the AOT header names what the object calls). Tensors of more than the
 * target's PTRDIFF_MAX bytes are refused. Targets are assumed
 * little-endian (fill values are the plan's little-endian bytes).
 *
 * The code made for a nest, level by level (see emit.c), with vectors of
 * the target's widest size (sg_target.vector_bytes: 64 bytes with
 * AVX-512BW, else 32):
 *   - the run: up to 4 KiB inline, in whole vectors (straight-line up to 8,
 *     else a loop of 4 per iteration; 32-byte ones where every run starts
 *     32 bytes past a 64-byte line) and a last one overlapping the one
 *     before, never a call
 *     (the functions are "no-builtins" so the optimizer keeps the loops);
 *     larger runs one llvm.memcpy;
 *   - a plain loop: a counted loop with pointer induction variables,
 *     marked not to be vectorized or unrolled by the optimizer (the IR is
 *     already wide; the vectorizer would make gathers). The innermost one
 *     is specialised: contiguous (one memcpy for the whole range),
 *     broadcast (in_stride 0: one load, splat stores), small stride (runs
 *     of 1-12 bytes, |in_stride| <= 4 runs, reversed included: blocks of
 *     whole runs filling 1-3 whole vectors, each one wide load and one
 *     shufflevector, no gathers, scalar remainder), short constant trip
 *     counts fully unrolled. In a kernel reading more than 4 MiB, an
 *     innermost loop whose rows are 1-64 KiB apart (shuffled runs, or runs
 *     of whole lines, a program part's loop of runs too) prefetches the
 *     lines of the row about 32 KiB ahead, each line's prefetch beside the
 *     copy of a line (a run copied by a memcpy call: all its lines before
 *     the call);
 *   - a segmented (TensorRT) loop: with few segments, one code path per
 *     segment, each a plain loop as above (so the interior has no per-element
 *     modulo or branch), FILL segments one memset or splat-store loop over the
 *     whole sub-block; with many segments (or when unrolling every segmented
 *     loop would multiply code size), a constant segment table in the module
 *     (consecutive equal segments run-length encoded) walked by one loop.
 *   - streaming stores (sg_codegen_streams: --stores, or auto above the
 *     threshold): every run copy of at least 2 vectors stores the vectors
 *     at the vector-aligned addresses of the output with !nontemporal and
 *     its ragged ends inline with ordinary stores (never an ordinary store
 *     to a line a streaming store writes: that makes the line's streaming
 *     store slow); a shuffled innermost loop takes ordinary iterations up
 *     to the first line boundary the output reaches, then streams its
 *     blocks at line-aligned addresses (ordinary throughout when no whole
 *     iteration reaches one), reversed runs from the last block so that
 *     the input ascends; fills and broadcasts of at least 2 vectors, at an
 *     output aligned to their unit (a power of two), store splat vectors
 *     the same way, else ordinary stores (a memset for one repeated byte);
 *     the kernel then ends with a store fence (x86 sfence, else a fence);
 *   The outer range (sg_nest_outer) clamps each loop and segment it spans
 *   to [begin, end), so any split of the range is correct.
 *
 * Threads: sg_jit_compile and sg_jit_free may be called concurrently on one
 * jit; every other function is reentrant (each compile has its own
 * LLVMContext and target machine).
 */
#ifndef SG_CODEGEN_H
#define SG_CODEGEN_H

#include <stdio.h>

#include "../planner/planner.h"

/* ---- the canonical nest (no LLVM) ----------------------------------------- */

/* Everything a kernel depends on, as bytes: element size, base, run, loops,
 * the segments of segmented loops, and the fill bytes when a FILL segment
 * uses them. Two plans with equal keys share one kernel (a Slice and the
 * equivalent StridedSlice, i32 and f32). `hash` is a 64-bit hash of bytes. */
typedef struct sg_nest_key {
    uint8_t *bytes; /* malloc'd */
    size_t len;
    uint64_t hash;
} sg_nest_key;

sg_status sg_nest_key_make(const sg_plan *plan, sg_nest_key *key, sg_error *err);
void sg_nest_key_free(sg_nest_key *key);

/* The kernel's outer range: what `begin` and `end` count. Usually the
 * outermost loop's iterations. When that loop is short and the output
 * large enough for threads to pay (SG_SPLIT_OUTPUT), the leading loops
 * taken together until they make SG_SPLIT_STEPS steps (step i of loops
 * E0 x E1 is iteration (i / E1, i % E1); all but the last plain loops);
 * for a large contiguous block (a lone run, or the planner's few chunks of
 * one: levels 0), pieces of SG_RUN_PIECE bytes. Step i writes output
 * bytes [i * step_bytes, (i + 1) * step_bytes), the last piece of a run
 * fewer. An empty output has extent 0. */
/* SG_SPLIT_OUTPUT, SG_SPLIT_STEPS, SG_RUN_PIECE: planner.h */
typedef struct sg_outer {
    size_t levels;      /* loops taken together (0: one contiguous block) */
    int64_t extent;     /* steps */
    int64_t step_bytes; /* output bytes per step */
} sg_outer;
sg_outer sg_nest_outer(const sg_plan *plan);
/* Whether a program's parts run in lockstep: two or more parts whose outer
 * ranges have the same extent (*extent, more than 1), step i of the kernel
 * being step i of every part (Focus's four parts read the same rows,
 * roll's two halves of each row: in lockstep each row is read once into
 * the cache). Otherwise a program's outer range is the parts' laid end to
 * end. Either way a step writes its own parts of the output. */
bool sg_program_lockstep(const sg_plan *plan, int64_t *extent);
/* sg_nest_outer(plan).extent */
int64_t sg_nest_outer_extent(const sg_plan *plan);
/* The constant segment table of a segmented loop, as every kernel that
 * walks or searches one lays it out (nest.c): a row of SG_SEG_FIELDS
 * numbers per entry. Iterations [start, start + count * repeat) of the
 * loop are `repeat` runs of `count` iterations, iteration i of each
 * reading at in_offset + i * in_step bytes, or writing the fill value
 * (fill 1: in_offset and in_step 0). With `runs`, equal segments in a row
 * are one entry (repeat) and fills in a row one entry; without, an entry
 * per segment, repeat 1 (for a search by start). rows holds l->nseg rows;
 * returns the rows written. */
enum {
    SG_SEG_START,
    SG_SEG_COUNT,
    SG_SEG_REPEAT,
    SG_SEG_IN_OFFSET,
    SG_SEG_IN_STEP,
    SG_SEG_FILL,
    SG_SEG_FIELDS
};
size_t sg_segment_rows(const sg_plan *plan, const sg_loop *l, bool runs, int64_t (*rows)[SG_SEG_FIELDS]);
/* How a streamed kernel of a static plan would write its output: `lines`,
 * the output lines it writes, and `mixed`, those it would write at least
 * partly with ordinary stores: on a target that streams pieces of any
 * size (nt_min > 0), where a piece's bytes are not whole nt_min units;
 * elsewhere, and in a program's parts, where two pieces stored apart
 * meet (a border and an interior, one row and the next) and every line
 * of a piece shorter than SG_STREAM_VECTORS vectors of `vector_bytes`,
 * stored with ordinary stores only; and `shuffled`, those in rows whose
 * elements are gathered one by one (strided or reversed runs shorter than
 * SG_STREAM_VECTORS vectors, no segments), all summed over the kernel (a
 * program's over its parts). */
enum { SG_LINE_BYTES = 64, SG_STREAM_VECTORS = 2 };
/* The thresholds of --stores auto (sg_codegen_auto_stores, below) */
enum {
    SG_STREAM_DEFAULT_LLC = 32 << 20,
    SG_STREAM_LINES_PER_MIXED = 21,
    SG_STREAM_LINES_PER_MIXED_SHORT = 4
};
typedef struct sg_stream_lines {
    double lines, mixed, shuffled;
} sg_stream_lines;
/* What of the target the count depends on: its vector bytes and
 * sg_target.nt_min_bytes. */
typedef struct sg_stream_target {
    int64_t vector_bytes, nt_min;
} sg_stream_target;
sg_stream_lines sg_nest_stream_lines(const sg_plan *plan, sg_stream_target t);
/* Whether a program's parts store their pieces as lone kernels do, every
 * piece streamed whole on a target that streams pieces (t.nt_min > 0):
 * where the parts meet in few lines (Focus's parts write whole channels,
 * a roll's two parts meet twice in rows of many lines). Each stretch of
 * the output a part's box covers may share its first and last line with
 * another part, whose streaming stores would send such a line to memory
 * in two pieces; the parts stream whole pieces when those lines are at
 * most one in SG_STREAM_LINES_PER_MIXED, and whole lines only otherwise
 * (np.pad's borders, which meet the interior in every row). */
bool sg_program_parts_whole(const sg_plan *plan, sg_stream_target t);
/* What --stores auto makes of a kernel (sg_codegen_auto_stores). */
typedef enum sg_auto_stores { SG_AUTO_CACHED, SG_AUTO_STREAMS, SG_AUTO_SHORT_ROWS } sg_auto_stores;

/* The symbol that describes a plan: "sg_x<elem size>_l<loops>_r<run bytes>_
 * <16 hex digits of the key hash>", e.g. "sg_x4_l1_r16_8c1f0e3a5b7d9e21". */
#define SG_SYMBOL_MAX 96
void sg_codegen_symbol(const sg_plan *plan, const sg_nest_key *key, char symbol[SG_SYMBOL_MAX]);

/* The symbol of the prologue of a kernel with runtime numbers,
 * "<kernel>_prepare", malloc'd (NULL when out of memory). */
char *sg_prepare_symbol(const char *kernel);

/* ---- IR, objects, versions -------------------------------------------------- */

/* The kernel's IR for the host target as text (symbol as sg_codegen_symbol),
 * with `stores` (AUTO: as the target's descriptor decides): as emitted at
 * opt_level 0, after sg_codegen_optimize otherwise. *text is malloc'd. */
sg_status sg_codegen_ir_text(const sg_plan *plan, int opt_level, sg_stores stores, char **text,
                             sg_error *err);

/* "14.0.6": the LLVM slicegen was built with. Static storage. */
const char *sg_codegen_llvm_version(void);
/* See sg_llvm_exit_on_fatal_error. */
void sg_codegen_exit_on_fatal_error(void);

/* ---- ahead of time (aot.c, header.c, archive.c) ------------------------------ */

typedef enum sg_aot_format {
    SG_AOT_OBJECT,   /* .o */
    SG_AOT_ARCHIVE,  /* .a: the object in an ar archive with a symbol index */
    SG_AOT_ASSEMBLY, /* .s */
    SG_AOT_LLVM_IR,  /* .ll */
    SG_AOT_PTX       /* .ptx: PTX text, for NVPTX targets only */
} sg_aot_format;

/* The format named by path's extension; 0 if there is none. */
int sg_aot_format_of(const char *path, sg_aot_format *format);

/* What sg_codegen_aot makes, malloc'd: the output file's bytes and, when
 * asked for, the C header's text. */
typedef struct sg_aot_output {
    void *bytes;
    size_t size;
    char *header;
} sg_aot_output;

/* Compiles the kernels (already checked: plans valid, names unique C
 * identifiers with no clash among the symbols derived from them) for
 * options->target into one module holding every kernel (kernels of equal
 * nests, sg_nest_key, as aliases of one function; not for NVPTX), its
 * NAME_info and, with a prefix, the table; then renders it as `format`. `member` names the
 * object inside an archive. */
sg_status sg_codegen_aot(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *options,
                         sg_aot_format format, const char *member, bool want_header, sg_aot_output *out,
                         sg_error *err);
void sg_aot_output_free(sg_aot_output *out);
/* The target `options` resolve to, as sg_codegen_aot compiles for it:
 * "TRIPLE CPU FEATURES[ cf-protection]", malloc'd. An unknown triple is
 * SG_ERR_USAGE. */
sg_status sg_codegen_aot_target_text(const sg_compile_options *options, char **text, sg_error *err);
/* Whether plan's kernel compiled with `options` makes streaming stores
 * (options->stores; AUTO resolved for its target). */
sg_status sg_codegen_aot_streams(const sg_compile_options *options, const sg_plan *plan, bool *streams,
                                 sg_error *err);

/* What the header says about the code beyond the kernels: the target it
 * was compiled for, and the functions it calls besides memcpy and memset
 * (helpers of the compiler's runtime library, as the object names them). */
typedef struct sg_aot_code {
    const char *triple, *cpu;
    const char *features; /* as given to LLVM; "": the CPU's own */
    const char *const *helpers;
    size_t nhelpers;
    const struct sg_target *target; /* whether kernels stream their stores (sg_codegen_streams) */
} sg_aot_code;

/* The generated C header for kernels compiled as `code` says (header.c):
 * declarations of the object's functions and descriptions, or for an
 * NVPTX triple the PTX entries' names, launch geometry and sizes as
 * macros. NULL when out of memory. */
char *sg_aot_header(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *options,
                    const sg_aot_code *code);

/* An ar archive (System V / GNU format, as `ar rcsD` writes) holding one
 * object `member` and an index of `symbols` defined by it (archive.c). */
sg_status sg_archive(const char *member, const void *object, size_t size, const char *const *symbols,
                     size_t nsymbols, void **bytes, size_t *len, sg_error *err);

/* ---- the JIT ---------------------------------------------------------------------- */

/* One ORC LLJIT for the host serving many kernels. sg_jit_create only
 * detects the host (cheap); the LLJIT itself is made at the first compile.
 * Each kernel is an object file compiled by a target machine at its own
 * optimisation level (IR passes and code generator level match), linked in
 * its own ResourceTracker, so sg_jit_free can unload it. */
typedef struct sg_jit sg_jit;

sg_status sg_jit_create(sg_jit **jit, sg_error *err);
/* Frees every kernel still loaded. Accepts NULL. */
void sg_jit_destroy(sg_jit *jit);

/* Compiles plan at opt_level 0..3 under `symbol` (unique in this jit: the
 * caller names each compile differently) and returns the function and the
 * resource to pass to sg_jit_free. */
sg_status sg_jit_compile(sg_jit *jit, const sg_plan *plan, int opt_level, const char *symbol,
                         sg_kernel_fn *fn, void **resource, sg_error *err);
/* sg_jit_compile with `stores` (an sg_stores) and, for AUTO, the output
 * bytes above which this machine was measured to gain by streaming
 * (sg_target.stream_threshold; 0: half its last-level cache), from which a
 * symbolic kernel's calls stream. */
sg_status sg_jit_compile_stores(sg_jit *jit, const sg_plan *plan, int opt_level, int stores,
                                int64_t stream_threshold, const char *symbol, sg_kernel_fn *fn,
                                void **resource, sg_error *err);
/* AUTO's choice for plan's kernel on the host (sg_codegen_auto_stores),
 * streaming above `threshold` output bytes as this machine was measured
 * (sg_target.stream_threshold; 0: half its last-level cache). */
sg_auto_stores sg_jit_auto_stores(const sg_jit *jit, const sg_plan *plan, int64_t threshold);
/* Whether kernels of SG_AUTO_SHORT_ROWS stream when nothing was measured
 * (an object for any machine): 1 or 0 from the environment variable
 * SLICEGEN_STREAM_SHORT_ROWS when it is set to either, else -1 (unknown;
 * objects then store such rows cached, the choice whose worst case is
 * bounded). */
int sg_codegen_short_rows(void);
/* SLICEGEN_STREAM_THRESHOLD: its value when it is a decimal number of
 * bytes, else -1 (unset: nothing overrides the measured or derived one). */
int64_t sg_codegen_threshold_setting(void);
/* The GPU kernel of plan compiled for the host, for testing the GPU code
 * without a GPU: a function of the CPU kernel ABI whose steps [begin, end)
 * are GPU threads [begin, end), run one after another with the same code
 * (address space 0 for 1). Its outer range is sg_gpu_launch_of().threads.
 * For a symbolic plan the function is a sg_kernel_args_fn (gpu_values.c)
 * whose steps are the threads of the call's sg_gpu_launch_for(). */
sg_status sg_jit_compile_gpu_emulation(sg_jit *jit, const sg_plan *plan, int opt_level, const char *symbol,
                                       sg_kernel_fn *fn, void **resource, sg_error *err);
/* The address of `symbol`, defined by a kernel the jit has linked (a
 * symbolic kernel's `<symbol>_prepare`). */
sg_status sg_jit_lookup(sg_jit *jit, const char *symbol, void **address, sg_error *err);
/* Unloads one kernel's code. Accepts NULL resource. */
void sg_jit_free(sg_jit *jit, void *resource);

/* ---- GPU kernels (gpu.c) ------------------------------------------------------
 *
 * A GPU kernel is `void NAME(const void *in, void *out)` over a 1-D grid of
 * SG_GPU_BLOCK threads per block: thread t writes output bytes
 * [t * SG_GPU_CHUNK, (t + 1) * SG_GPU_CHUNK) (the last thread fewer; threads
 * past the output write nothing). `in` and `out` are aligned to
 * SG_GPU_ALIGN bytes. Every number of the plan is a constant; the input
 * addresses of a chunk come from its output offset by multiplications and
 * divisions by constants. For NVPTX the kernel reads global memory through
 * `in` (noalias, read-only) and writes it through `out`. */
enum { SG_GPU_CHUNK = 16, SG_GPU_BLOCK = 256, SG_GPU_ALIGN = 16 };
#define SG_GPU_TRIPLE      "nvptx64-nvidia-cuda"
#define SG_GPU_DEFAULT_CPU "sm_75"

typedef struct sg_gpu_launch {
    int64_t threads; /* threads with work: ceil(out_bytes / SG_GPU_CHUNK) */
    uint32_t grid_x; /* blocks: ceil(threads / block_x); 0 for an empty output */
    uint32_t block_x;
} sg_gpu_launch;

/* The launch geometry of plan's GPU kernel (a static plan's); SG_ERR_SLICE
 * when the output needs more blocks than a grid's x dimension holds
 * (2^31 - 1). */
sg_status sg_gpu_launch_of(const sg_plan *plan, sg_gpu_launch *launch, sg_error *err);
/* The same for an output of out_bytes: a kernel of runtime values' per call
 * (slicegen_args.output_bytes). */
sg_status sg_gpu_launch_for(uint64_t out_bytes, sg_gpu_launch *launch, sg_error *err);


/* The NVIDIA GPU name ("sm_86") that this LLVM knows for compute
 * capability major.minor: the newest one not newer than it, whose PTX the
 * driver compiles for the device. NULL below sm_30. */
const char *sg_gpu_cpu_for(int major, int minor);

/* Plan's kernel as PTX text for `cpu` (NULL: SG_GPU_DEFAULT_CPU) at
 * opt_level, entry `symbol`; *ptx is malloc'd and NUL-terminated. An
 * unknown GPU name is SG_ERR_USAGE. */
sg_status sg_codegen_ptx(const sg_plan *plan, const char *symbol, const char *cpu, int opt_level, char **ptx,
                         sg_error *err);

/* ---- inside codegen only ---------------------------------------------------- */

#ifdef SG_CODEGEN_INTERNAL
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

/* A target: triple (normalized), CPU and feature string (malloc'd), the
 * ABI its module must name ("" for the default) and the LLVM target. */
/* A target's architecture, from its triple (target.c: the one place that
 * reads triples). */
typedef enum sg_arch {
    SG_ARCH_OTHER,
    SG_ARCH_X86_64,
    SG_ARCH_X86_32, /* i386 to i686 */
    SG_ARCH_AARCH64,
    SG_ARCH_ARM,
    SG_ARCH_RISCV64,
    SG_ARCH_RISCV32,
    SG_ARCH_NVPTX
} sg_arch;

/* The fence that orders a kernel's streaming stores before it returns. */
typedef enum sg_store_fence {
    SG_FENCE_RELEASE, /* a release fence (AArch64: dmb ish) */
    SG_FENCE_SFENCE,  /* x86 with SSE: sfence */
    SG_FENCE_SEQ_CST  /* x86 without SSE: a full fence */
} sg_store_fence;

typedef struct sg_target {
    char *triple, *cpu, *features;
    sg_arch arch;
    sg_store_fence fence;
    char abi[16];
    bool host;     /* the process's own: triple, CPU and features detected */
    bool baseline; /* a named triple whose CPU was not named: the default of named_defaults */
    /* Ahead-of-time code for CET (x86: IBT and shadow stacks) or BTI and
     * PAC (AArch64): the function attributes (AArch64) and, with
     * sg_codegen_cf_protection, the module flags that make LLVM emit the
     * landing pads, return address signing and the GNU property notes. */
    bool cf_protection;
    int vector_bytes; /* the widest vectors kernels use: 64 or 32 */
    /* The narrowest store the target keeps non-temporal: 4 on x86 with
     * SSE2 (movnti), so that a streamed kernel writes every byte of 4-byte
     * and wider elements with streaming stores; 0 where only vectors are
     * (its ragged ends then take ordinary stores, outside the lines it
     * streams: stores.c). */
    int nt_min_bytes;
    bool gpu_emulation; /* kernels are GPU kernels run on the host (sg_jit_compile_gpu_emulation) */
    int stores;         /* an sg_stores: streaming stores for large outputs (emit.c) */
    uint64_t llc_bytes; /* the CPU's last-level cache: the host's (JIT, cpu native), else 0 */
    /* --stores auto's threshold measured on the host (the JIT's static
     * kernels: runtime/stores_probe.c), else 0: half of llc_bytes */
    int64_t stream_threshold;
    /* Code for the JIT (sg_jit's host target): on x86-64 not
     * position-independent, in the large code model, which reaches
     * memcpy, memset, constants and jump tables by 64-bit absolute
     * addresses. Position-independent code reaches them through stubs or a
     * GOT base whose 32-bit displacements the JIT's linker (RuntimeDyld)
     * gets wrong when the process maps its sections more than 2 GiB apart
     * (as under AddressSanitizer). */
    bool jit;
    LLVMTargetRef target;
} sg_target;

/* Initialises LLVM's native target once per process (pthread_once). */
sg_status sg_llvm_init(sg_error *err);
/* The host (LLVMGetHostCPUName + LLVMGetHostCPUFeatures) when all three are
 * NULL (the JIT); else a named target (every target LLVM was built with is
 * then initialised), with defaults for what is NULL: the baseline CPU
 * ("x86-64" for x86_64, else "generic") and the conventional features and
 * ABI of the triple (RISC-V Linux: rv64gc and lp64d, as C compilers
 * assume). An unknown triple is SG_ERR_USAGE. */
sg_status sg_target_init(sg_target *t, const char *triple, const char *cpu, const char *features,
                         sg_error *err);
/* The target of ahead-of-time output: `triple` (NULL: this machine's) with
 * `cpu`: NULL for the triple's baseline (as sg_target_init names it), so
 * that the code runs on every CPU of the architecture; "native" for this
 * machine's CPU and all its features (SG_ERR_USAGE for a triple of
 * another architecture); else that CPU with its own features. */
sg_status sg_target_init_aot(sg_target *t, const char *triple, const char *cpu, sg_error *err);
void sg_target_fini(sg_target *t);
/* What a one-off compile made, disposed of: the module, its context, the
 * target machine (each may be NULL), then sg_target_fini(t). */
void sg_target_release(sg_target *t, LLVMTargetMachineRef tm, LLVMContextRef c, LLVMModuleRef m);
/* Before the first compile for a named target: compiles probe kernels for
 * it in a child process, so that an unknown CPU or a combination that LLVM
 * would abort on becomes SG_ERR_USAGE with LLVM's words; refuses
 * big-endian targets. */
sg_status sg_target_check(const sg_target *t, sg_error *err);
/* The size of this machine's last-level cache as CPU 0 sees it (its
 * caches in /sys, else sysconf, but not an AMD package's L3: that is
 * many core complexes'); 0 if unknown. */
uint64_t sg_host_llc_bytes(void);
/* What AUTO makes of plan's kernel for t:
 *   - SG_AUTO_CACHED for an output of at most SLICEGEN_STREAM_THRESHOLD
 *     bytes when that is set, else t->stream_threshold when it was
 *     measured, else half of t->llc_bytes (SG_STREAM_DEFAULT_LLC when 0),
 *     for a symbolic plan (which chooses
 *     per call: sg_codegen_stream_above) and for GPU kernels;
 *   - above it, SG_AUTO_STREAMS when at most one output line in
 *     SG_STREAM_LINES_PER_MIXED is written partly with ordinary stores
 *     (sg_nest_stream_lines): on x86 (nt_min_bytes), every kernel but a
 *     program's and one of u8 or f16 pieces of odd lengths;
 *   - else, when at most one line in SG_STREAM_LINES_PER_MIXED_SHORT is,
 *     SG_AUTO_SHORT_ROWS: the rows are short pieces (a pad's rows of
 *     about a KiB between short borders), whose streaming saves 1.1-1.4x
 *     on some machines and may cost more on others (docs/bench.md,
 *     "Streaming stores and rows of short pieces"). They stream where
 *     sg_codegen_short_rows says so for t; the JIT asks the host
 *     (sg_host_short_rows_stream);
 *   - else SG_AUTO_CACHED: rows of a few hundred bytes, about as many
 *     lines with ordinary stores as with streaming ones, and short rows
 *     mostly shuffled (Focus and a 2x2 subsampling on targets that
 *     stream vectors only: streamed, 1.6-5x the cached time on the Zen 2
 *     of docs/bench.md). */
sg_auto_stores sg_codegen_auto_stores(const sg_plan *plan, const sg_target *t);
/* Whether plan's kernel for t makes streaming stores: t->stores, and for
 * AUTO sg_codegen_auto_stores, SG_AUTO_SHORT_ROWS streaming only when
 * sg_codegen_short_rows is 1. Never for GPU kernels. */
bool sg_codegen_streams(const sg_plan *plan, const sg_target *t);
/* AUTO's threshold for t: output bytes above which a kernel streams. */
int64_t sg_codegen_stream_threshold(const sg_target *t);
/* The threshold of a target with this machine's last-level cache and
 * nothing measured (SLICEGEN_STREAM_THRESHOLD when set). */
int64_t sg_host_stream_threshold(void);
/* A symbolic plan's kernel chooses per call: a call streams when its
 * output has more bytes than sg_codegen_stream_above (-1: never, 0:
 * always) and, under AUTO, its runs have at least
 * sg_codegen_stream_min_run bytes: where the target streams every piece
 * of the elements whole (sg_target.nt_min_bytes at most the element
 * size), 0 for constant runs (each has bodies of its own in both kinds of
 * stores) and a line for runs of runtime values (the streamed body has
 * none for runs of a few elements); else SG_STREAM_MIN_RUN (runs meet
 * once every SG_STREAM_LINES_PER_MIXED lines). AUTO streams a mapped nest
 * (TensorRT's border modes, Pad), whose rows meet their borders, only
 * where every piece streams whole (for u8 and f16 on x86, the calls whose
 * rows are whole pieces: sg_codegen_stream_whole_rows), and never a nest
 * whose runs are constant and shorter than that minimum, nor one whose
 * output no call makes larger than the threshold (the largest value of
 * its byte count: a crop of an input of static size).
 * sg_codegen_streams says false for a symbolic plan. */
enum { SG_STREAM_MIN_RUN = SG_STREAM_LINES_PER_MIXED * SG_LINE_BYTES };
int64_t sg_codegen_stream_above(const sg_plan *plan, const sg_target *t);
/* Whether a mapped nest of elements narrower than t's streamed pieces
 * (u8, f16 on x86) streams, above the threshold, only the calls whose
 * innermost rows are whole pieces: the interior's ends and the row's
 * length whole sg_target.nt_min_bytes units (checked per call, as the
 * static kernel of the call's numbers would stream every piece whole). */
bool sg_codegen_stream_whole_rows(const sg_plan *plan, const sg_target *t);
int64_t sg_codegen_stream_min_run(const sg_plan *plan, const sg_target *t);
/* A target machine for t at opt_level (PIC, default code model). */
sg_status sg_target_machine(const sg_target *t, int opt_level, LLVMTargetMachineRef *tm, sg_error *err);

/* An empty module of ctx for t: tm's triple and data layout, t's ABI. */
LLVMModuleRef sg_codegen_new_module(const char *name, const sg_target *t, LLVMTargetMachineRef tm,
                                    LLVMContextRef ctx);
/* When t->cf_protection: the module flags of CET (x86) or BTI and PAC
 * (AArch64) on m, the output module (the modules linked into it have
 * none: LLVM 19 and later refuse to link such flags with the behaviour the
 * C API can give them). */
void sg_codegen_cf_protection(LLVMModuleRef m, const sg_target *t);
/* Adds the kernel for plan as function `symbol` (external) to m, with t's
 * CPU and features (SG_ERR_SLICE for a tensor of more bytes than m's
 * pointers address): a CPU kernel, or the GPU kernel (gpu.c) for an NVPTX
 * target or t->gpu_emulation. Private globals it adds (segment tables) may
 * be renamed. */
sg_status sg_codegen_add_kernel(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                                sg_error *err);
/* For a symbolic plan, the kernel's prologue `<symbol>_prepare` (prepare.c;
 * sg_codegen_add_kernel adds it). */
sg_status sg_codegen_add_prepare(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                                 sg_error *err);
/* The version of struct slicegen_kernel_info (header.c) the objects hold. */
#define SG_KERNEL_INFO_VERSION 5
/* A model layer's `<symbol>_numbers(symbols, in_shape, values)` (prepare.c):
 * writes its input shape and each value the model's symbols give, as n
 * says (frontend/graph.h). */
struct sg_layer_numbers;
/* The numbers of kernel k's model layer (o->model's) when they follow
 * from the model's symbols: the kernel then has NAME_numbers; else NULL
 * (no model layer, no runtime numbers, or a GPU target). */
const struct sg_layer_numbers *sg_aot_numbers(const sg_aot_kernel *k, const sg_compile_options *o,
                                              const sg_target *t);
sg_status sg_codegen_add_numbers(const struct sg_layer_numbers *n, const char *symbol, const sg_target *t,
                                 LLVMModuleRef m, sg_error *err);
/* The GPU kernel (gpu.c): the NVPTX entry, or for another target the
 * emulation function of sg_jit_compile_gpu_emulation. */
sg_status sg_gpu_add_kernel(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                            sg_error *err);
/* A GPU kernel of runtime values (gpu_values.c): every number of a
 * symbolic plan that is not a constant is read from the call's args,
 * which the host's prologue fills (sg_plan_prepare):
 *
 *     NVPTX:    void NAME(const void *in, void *out, slicegen_args args)
 *               (args by value: the kernel parameter space);
 *     emulated: void NAME(const void *in, void *out, const sg_args *args,
 *                         int64_t begin, int64_t end)  (threads [begin, end)).
 *
 * The grid is sg_gpu_launch_for(args.output_bytes). Programs and elements
 * that do not divide 16 bytes are SG_ERR_USAGE. */
/* A symbolic plan's prologue as C (prologue_c.c): the function
 * `static inline int NAME_prepare(slicegen_args *args, const int64_t
 * *in_shape, const int64_t *values)` of the generated headers of GPU
 * kernels, which also refuses an output too large for one grid
 * (SLICEGEN_PREPARE_SIZE); it needs slicegen_args, the SLICEGEN_PREPARE_*
 * codes and sg_prologue_c_helpers before it. */
void sg_prologue_c(FILE *f, const sg_plan *plan, const char *name);
extern const char sg_prologue_c_helpers[];
sg_status sg_gpu_add_values_kernel(const sg_plan *plan, const char *symbol, const sg_target *t,
                                   LLVMModuleRef m, sg_error *err);
/* Whether t is an NVPTX target (kernels are GPU kernels, output is PTX). */
bool sg_target_is_gpu(const sg_target *t);
sg_status sg_codegen_verify(LLVMModuleRef m, const char *what, sg_error *err);
/* Runs the IR passes of opt_level on m: nothing at 0, a short cleanup
 * pipeline at 1 and 2 (target.c), LLVM's "default<O3>" at 3. */
sg_status sg_codegen_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, int opt_level, sg_error *err);
/* A new module of ctx holding plan's kernel as `symbol`, verified. */
sg_status sg_codegen_module(const sg_plan *plan, const char *symbol, const sg_target *t,
                            LLVMTargetMachineRef tm, LLVMContextRef ctx, LLVMModuleRef *module,
                            sg_error *err);

/* The kernel compiled by tm (made by sg_target_machine for t at
 * opt_level) as an object file in memory. tm is used by one thread at a
 * time: a target machine caches its subtargets without a lock. */
sg_status sg_codegen_object(const sg_plan *plan, const char *symbol, const sg_target *t,
                            LLVMTargetMachineRef tm, int opt_level, LLVMMemoryBufferRef *object,
                            sg_error *err);

/* Records an LLVM error (consumed) as SG_ERR_INTERNAL "failed to <what>: <message>". */
sg_status sg_llvm_fail(sg_error *err, LLVMErrorRef e, const char *what);
#endif

#endif /* SG_CODEGEN_H */

/*
 * planner: sg_spec + input shape + element type -> sg_plan.
 * No LLVM here.
 *
 * A plan has two layers:
 *
 *  1. The shape-inference result (`map`, `fixed`): for each output dimension
 *     the input axis it reads and the affine index start + y * step, or for
 *     TensorRT the raw coordinate x = start + y * stride that the mode then
 *     maps. The reference interpreter runs from this layer only.
 *
 *  2. The folded loop nest (`loops`, `segs`, `base`, `run_bytes`) the code
 *     generator emits: unit loops dropped, loops contiguous in both tensors
 *     merged, the innermost contiguous run turned into one block copy, and
 *     TensorRT dimensions split into affine segments (interior and borders).
 *
 * Loop-nest semantics (all offsets and strides in bytes):
 *
 *     copy(level, in, out):
 *       if level == nloops: move run_bytes bytes from in to out; return
 *       L = loops[level]
 *       if L.nseg == 0:                         -- a plain affine loop
 *         for i in [0, L.extent): copy(level+1, in + i*L.in_stride, out + i*L.out_stride)
 *       else:                                   -- a segmented (TensorRT) loop
 *         i = 0
 *         while i < L.extent:                   -- once, or per period
 *           for s in segs[L.seg0 .. L.seg0+L.nseg):
 *             for k in [0, s.count):
 *               if i == L.extent: stop
 *               if s.fill: fill the L.out_stride bytes at out + i*L.out_stride
 *               else:      copy(level+1, in + s.in_offset + k*s.in_step, out + i*L.out_stride)
 *               i += 1
 *     copy(0, input + base, output)
 *
 * The segments of a segmented loop cover its extent, or, for a periodic
 * loop (WRAP and REFLECT over many periods), `period` iterations that
 * repeat until the extent: iteration i runs as iteration i mod period. So a
 * plan's size depends on the input's dimensions, never on how many times
 * the output wraps around them.
 *
 * A nest that would be a single run of more than SG_CHUNK_BYTES is a loop
 * over equal chunks instead, so that threads can share it.
 *
 * The output is dense, so out_stride of the innermost loop is run_bytes and
 * each outer out_stride is the next one times its extent. An empty output
 * has out_count == 0 and no loops.
 */
#ifndef SG_PLANNER_H
#define SG_PLANNER_H

#include "expr.h"

/* Prefetching (codegen/emit.c): in a kernel reading more than
 * SG_PREFETCH_INPUT bytes, a loop whose rows are SG_PREFETCH_MIN to
 * SG_PREFETCH_MAX bytes apart fetches the row about SG_PREFETCH_DISTANCE
 * bytes ahead. For a symbolic plan the planner computes that offset per
 * call (sg_sym.prefetch). */
enum {
    SG_PREFETCH_LINE = 64, /* runs of at least a line prefetch in the innermost loop */
    SG_PREFETCH_INPUT = 4 << 20,
    SG_PREFETCH_MIN = 1024,
    SG_PREFETCH_MAX = 64 << 10,
    SG_PREFETCH_DISTANCE = 32 << 10
};

/* The largest run a nest without loops keeps whole (see chunk_large_run). */
#define SG_CHUNK_BYTES ((int64_t)1 << 20)
/* The bytes of a step of a kernel's outer range over one contiguous block
 * (codegen.h, sg_nest_outer). */
enum { SG_RUN_PIECE = 32 << 10 };
/* A program's parts with equal outer ranges run in lockstep (codegen/emit.c):
 * each runs its steps of a block of about SG_LOCKSTEP_BYTES of output in turn,
 * so that parts that read the same input rows find them in the cache. */
enum { SG_LOCKSTEP_BYTES = 16 << 10 };
/* When threads split the leading loops of a nest taken together (codegen.h,
 * sg_nest_outer): an output of at least SG_SPLIT_OUTPUT bytes whose
 * outermost loop has fewer than SG_SPLIT_STEPS iterations. */
enum { SG_SPLIT_OUTPUT = 256 << 10, SG_SPLIT_STEPS = 64 };

/* One output dimension as shape inference sees it. */
typedef struct sg_axis_map {
    int in_axis;     /* input axis read, or -1 for a new axis (count 1) */
    int64_t start;   /* index (TensorRT: coordinate) for y = 0 */
    int64_t step;    /* added per output index */
    int64_t count;   /* output extent */
    /* Pad: the mode maps coordinates over the window of the axis that
     * leaves out crop_begin elements before it and crop_end after it (a
     * negative pad's crop): index = crop_begin + mode(x) over a dimension
     * of d - crop_begin - crop_end. 0 for the other ops (the whole axis). */
    int64_t crop_begin, crop_end;
} sg_axis_map;

/* Plans whose dimensions map coordinates through a mode (sg_plan.mode):
 * TensorRT's and Pad's; Pad's with windows. */
static inline bool sg_op_mapped(sg_op op) { return op == SG_OP_TRT_SLICE || op == SG_OP_PAD; }

/* An input axis removed by a shrink (integer index) step. */
typedef struct sg_fixed_axis {
    int in_axis;
    int64_t index;
} sg_fixed_axis;

/* A run of consecutive iterations of a segmented loop. */
typedef struct sg_segment {
    int64_t count;      /* iterations */
    bool fill;          /* the iterations write the fill value */
    int64_t in_offset;  /* bytes from the loop's input pointer, first iteration */
    int64_t in_step;    /* bytes added per iteration */
} sg_segment;

typedef struct sg_loop {
    int64_t extent;
    int64_t in_stride;   /* plain loops only */
    int64_t out_stride;
    size_t seg0, nseg;   /* nseg == 0: plain affine loop */
    int64_t period;      /* segmented loops: 0, or the iterations the segments
                            cover, repeated (0 < period < extent) */
} sg_loop;

/* A program's plan (SG_OP_PROGRAM, planner/program.c) is a list of parts,
 * each an ordinary plan that writes one box of the output: the box starts
 * at output coordinate `box` (byte `out_offset`) and has the part plan's
 * output shape; together the boxes tile the output exactly once. A part
 * plan (sg_plan.part) reads the program's input, or is a TensorRT FILL
 * plan over an empty axis that writes its fill value; its loops' output
 * strides are the whole output's (out_strides per output dimension), and a
 * new axis may repeat (count > 1, an edge pad of an axis of one). */
#define SG_MAX_PARTS 1024
/* A program's tree is at most SG_PROG_MAX_DEPTH deep (frontend.h). */

typedef struct sg_part {
    struct sg_plan *plan;
    int64_t box[SG_MAX_RANK];
    int64_t out_offset;
} sg_part;

struct sg_plan {
    sg_op op;
    sg_trt_mode mode;         /* SG_OP_TRT_SLICE, SG_OP_PAD (never STRICT) */
    sg_dtype dtype;
    size_t elem_size;
    uint8_t fill[8];          /* fill value in the element type (FILL mode) */

    size_t in_rank;
    int64_t in_shape[SG_MAX_RANK];
    size_t out_rank;
    int64_t out_shape[SG_MAX_RANK];
    sg_axis_map map[SG_MAX_RANK];     /* out_rank entries */
    size_t nfixed;
    sg_fixed_axis fixed[SG_MAX_RANK];

    int64_t in_count, out_count;      /* elements */
    uint64_t in_bytes, out_bytes;

    int64_t base;                     /* input byte offset of the first read */
    int64_t run_bytes;                /* bytes moved per innermost iteration */
    size_t nloops;
    sg_loop loops[SG_MAX_RANK];
    size_t nsegs;
    sg_segment *segs;                 /* malloc'd, nsegs entries */

    struct sg_sym *sym;               /* NULL: every number is known (a static plan) */

    /* SG_OP_PROGRAM: the program (its spec) and its parts; no loops */
    sg_spec *program;
    size_t nparts;
    sg_part *parts;
    /* a part's plan: the output strides of its dimensions, and the bytes
     * from its box's first element to the end of the whole output */
    bool part;
    int64_t out_strides[SG_MAX_RANK];
    int64_t part_span;
};

/* ---- plans with runtime values ------------------------------------------------
 *
 * A spec with named values, or an input with `?` dimensions (-1 in
 * in_shape), makes a symbolic plan: the numbers of both layers that depend
 * on them are expressions (sg_val) over the runtime numbers, and the
 * struct's plain fields hold what is known: in_shape and out_shape with -1
 * where a dimension is known only at run time, map[].in_axis, and nloops,
 * the depth of a loop nest whose structure is fixed (which loops exist,
 * which merged, which run) while its extents and strides may not be.
 * Shape inference is the static planner's own (infer.c, over sg_val), so
 * a symbolic plan's numbers, once evaluated, are those of the static plan
 * of the spec with the numbers written in.
 *
 * The numbers a call needs are computed by the prologue (sg_plan_prepare
 * in C, NAME_prepare in IR) into an array of SG_ARG_COUNT int64 slots, the
 * `slicegen_args` of the generated header: */
enum {
    SG_ARG_OUT_RANK = 0, /* int32 out_rank in its first 4 bytes, then int32 0 */
    SG_ARG_OUT_SHAPE = 1, /* SG_MAX_RANK slots */
    SG_ARG_OUTER_EXTENT = SG_ARG_OUT_SHAPE + SG_MAX_RANK,
    SG_ARG_INPUT_BYTES,
    SG_ARG_OUTPUT_BYTES,
    /* private: the nest */
    SG_ARG_BASE,
    SG_ARG_RUN_BYTES,
    SG_ARG_PREFETCH,
    SG_ARG_PREFETCH_RUNS,
    SG_ARG_COLLAPSE, /* 1: the outer range is the two outermost loops' iterations (sg_sym.collapse) */
    SG_ARG_INTERIOR, /* 2 slots: a mapped nest's sg_sym.interior */
    SG_ARG_FILL = SG_ARG_INTERIOR + 2, /* FILL mode: sg_sym.fill */
    SG_ARG_LOOPS, /* per loop SG_LOOP_SLOTS slots: */
    SG_ARG_COUNT = SG_ARG_LOOPS + 6 * SG_MAX_RANK,
    /* a concatenate's part (sg_sym_part_slot): its box's byte offset */
    SG_ARG_PART_AT = -1,
    /* a concatenate's own: 1 where its parts run in lockstep (SG_ARG_COLLAPSE),
     * then the steps of a block */
    SG_ARG_LOCKSTEP = SG_ARG_COLLAPSE,
    SG_ARG_LOCKSTEP_BLOCK = SG_ARG_BASE
};
enum {
    SG_LOOP_EXTENT, SG_LOOP_IN_STRIDE, SG_LOOP_OUT_STRIDE,
    SG_LOOP_START, SG_LOOP_STEP, SG_LOOP_DIM, /* mapped loops only */
    SG_LOOP_SLOTS
};

typedef struct sg_sym {
    sg_exprs ex;
    /* np.concatenate of chains with runtime values (plan op SG_OP_PROGRAM,
     * infer.c): the program's plan has no nest of its own but parts
     * (plan->parts), each a symbolic plan (plan->part) whose expressions
     * are the program's: its `ex` a copy of the program's, not freed
     * (shares_ex), its box at byte part_at of the output (its first
     * element along concat_axis, known per call); the program's outer
     * range is its parts', one after another, or where they are equal
     * (`collapse`: lockstep, per call) one of them, each step run by every
     * part in blocks of `base` steps (SG_LOCKSTEP_BYTES). */
    bool shares_ex;
    sg_val part_at;
    int concat_axis;
    sg_spec *spec;            /* a copy of the spec (names: spec->values) */
    size_t nvalues;
    /* shape inference */
    sg_val start[SG_MAX_RANK], step[SG_MAX_RANK], count[SG_MAX_RANK]; /* per output dimension */
    sg_val window_lo[SG_MAX_RANK], window[SG_MAX_RANK]; /* per output dimension: the mode's window
                                                           (sg_axis_map.crop_*): first index, size */
    sg_val window_step[SG_MAX_RANK]; /* input indices between a window's elements: 1, or a chain's
                                        step where it rolls or pads a strided view (infer.c) */
    sg_val fixed[SG_MAX_RANK]; /* index of plan->fixed[i] */
    sg_val in_count, out_count, in_bytes, out_bytes;
    sg_val fill; /* FILL mode: the fill value's bits when they are a runtime value (else 0: plan->fill) */
    /* the nest: affine loops, or for TensorRT's border modes mapped loops
     * (one per output dimension, none merged): iteration y reads input
     * index mode(start + y * step) of a dimension of `dim` (Pad: its
     * window, whose first indices `base` adds), in_stride
     * bytes apart, or writes the fill value. The outer range is the
     * iterations of the outermost loop (levels 1), or per call of the two
     * outermost affine loops taken together (levels 2, when `collapse`:
     * the static rule, SG_SPLIT_*), or with no loop pieces of the run of
     * SG_RUN_PIECE bytes (codegen.h). */
    bool mapped;
    sg_val base, run_bytes, outer_extent;
    /* a mapped nest's innermost loop: the iterations [interior[0],
     * interior[1]) whose coordinates lie inside the input, an affine run */
    sg_val interior[2];
    /* how far ahead (bytes) the loop around the innermost one prefetches,
     * and the innermost one when its runs are of whole lines, 0 for not at
     * all: the code generator's rule (SG_PREFETCH_*) per call */
    sg_val prefetch, prefetch_runs;
    sg_val collapse;
    sg_val extent[SG_MAX_RANK], in_stride[SG_MAX_RANK], out_stride[SG_MAX_RANK];
    sg_val map_start[SG_MAX_RANK], map_step[SG_MAX_RANK], map_dim[SG_MAX_RANK];
} sg_sym;

/* The numbers a symbolic plan's prologue writes to args: n of them, each
 * with its slot (values and slots hold SG_ARG_COUNT). A concatenate's:
 * its output's, its outer range, then each part's (sg_sym_part_slot). */
size_t sg_sym_slots(const sg_plan *plan, sg_val *values, int *slots);
/* Where part k of a concatenate's plan keeps what a plan of its own keeps
 * at `slot` (SG_ARG_OUTER_EXTENT and after, or SG_ARG_PART_AT). */
size_t sg_sym_part_slot(const sg_plan *plan, size_t k, int slot);

/* How the innermost loop's input stride of a symbolic affine nest relates
 * to its run, which decides the bodies the code generator specializes for
 * a stride or run known only per call (codegen/inner.c):
 *   SG_STRIDE_RUNS  the stride is *multiple times the run for every call,
 *                   *multiple times 4 elements within int64
 *                   (a constant step over the row the run is: a mirror's
 *                   -1, a subsample's 2);
 *   SG_STRIDE_AXIS  the stride is a constant multiple of an input axis's
 *                   stride and the run is not (a crop's rows): a small
 *                   multiple of the run only by chance;
 *   SG_STRIDE_ANY   anything else (a step given at run time). */
typedef enum sg_stride_kind { SG_STRIDE_ANY, SG_STRIDE_RUNS, SG_STRIDE_AXIS } sg_stride_kind;
sg_stride_kind sg_sym_inner_stride(const sg_plan *plan, int64_t *multiple);

/* Evaluates a symbolic plan for one call: in_shape (every dimension; the
 * fixed ones must match) and values (sym->nvalues). SG_OK and args filled
 * (SG_ARG_COUNT slots), or the error of the spec with these numbers
 * written in, "failed to run kernel: ..." with the values named, and its
 * code (sg_xcode) in *code; args are then untouched. */
sg_status sg_plan_prepare(const sg_plan *plan, const int64_t *in_shape, const int64_t *values, int64_t *args,
                          int *code, sg_error *err);
/* Writes the symbolic plan's text (sg_plan_write's for a symbolic plan). */
void sg_plan_write_symbolic(const sg_plan *plan, FILE *out);
void sg_sym_free(sg_sym *sym);
/* The static plan of a symbolic plan's spec with the numbers written in:
 * values (sym->nvalues) and the input shape in_shape. */
sg_status sg_plan_bind(const sg_plan *plan, const int64_t *in_shape, const int64_t *values, sg_plan **bound,
                       sg_error *err);

/* Shape inference only (infer.c): fills the first layer of a zeroed plan.
 * With runtime values in spec or shape (-1 dimensions), the plan is
 * symbolic: sym (malloc'd) gets its expressions. */
sg_status sg_infer_shape(const sg_spec *spec, size_t rank, const int64_t *shape, sg_dtype dtype,
                         sg_plan *plan, sg_error *err);
/* Shape inference of a program with runtime values or `?` dimensions
 * (infer.c): a chain of indices, np.flip, np.roll, np.pad and model layers
 * (an aot --fuse chain: each layer's op with its own semantics), whose stages
 * compose into one symbolic plan (sym->spec the program): of an ordinary
 * slice (op SG_OP_NUMPY), or with rolls or pads of their border mode over
 * windows (op SG_OP_PAD);
 * other forms are refused (SG_ERR_USAGE). On failure p->sym may be set:
 * sg_plan_free frees it. */
sg_status sg_infer_chain(const sg_spec *program, size_t rank, const int64_t *shape, sg_dtype dtype, sg_plan *p,
                         sg_error *err);
/* np.flip's axes (node) over an operand of `rank`: flipped[a] for each axis
 * named, NumPy's errors for one out of bounds or named twice (program.c). */
sg_status sg_flip_axes(const sg_prog *node, size_t rank, bool *flipped, sg_error *err);
/* np.roll's shifts (node) broadcast against its axes over an operand of
 * `rank`: *count pairs of an axis (in [0, rank)) and a shift as written
 * (name[i]: the runtime value's name where it is one, else NULL), at most
 * SG_PROG_MAX_NUMBERS; NumPy's errors (program.c). */
sg_status sg_roll_pairs(const sg_prog *node, size_t rank, size_t *count, int *axis, int64_t *shift,
                        const char **name, sg_error *err);
/* np.pad's (`node`) widths for an operand of `rank` axes, broadcast to
 * one (before, after) pair per axis as NumPy's _as_pairs does, and where
 * names is not NULL the runtime value's name of each (NULL: a number);
 * NumPy's errors for the numbers (program.c). */
sg_status sg_pad_pairs(const sg_prog *node, size_t rank, int64_t (*widths)[2], const char *(*names)[2],
                       sg_error *err);
/* np.pad's constant_values v as NumPy stores it in an array of type t
 * (bytes, little-endian): an integer wraps modulo the type's width, a
 * float into an integer type is truncated toward zero, anything but 0 is
 * True, floats round to nearest. A float no integer of the type holds
 * once truncated (NaN, an infinity, out of range) is refused: NumPy's
 * result is then the platform's. */
sg_status sg_pad_fill(const sg_scalar *v, sg_dtype t, uint8_t bytes[8], sg_error *err);
/* The loop nest of a symbolic plan (symbolic.c). */
sg_status sg_plan_fold_symbolic(sg_plan *plan, sg_error *err);

/* Folding (fold.c): builds the loop nest (base, loops, segs, run_bytes) of
 * a plan whose first layer and sizes are set and pass sg_plan_check, in the
 * steps docs/plan-format.md lists, checking the plan after each. The nest
 * depends on that first layer only: one plan, one nest. Fails
 * (SG_ERR_SLICE) rather than make more than max_segs + 1 segments. */
sg_status sg_plan_fold(sg_plan *plan, size_t max_segs, sg_error *err);

/* The plan of a program (SG_OP_PROGRAM spec) without runtime values on a
 * static input shape (program.c); sg_plan_build gives the others to
 * sg_infer_chain. */
sg_status sg_plan_build_program(const sg_spec *spec, size_t rank, const int64_t *shape, sg_dtype dtype,
                                sg_plan **plan, sg_error *err);

/* Shape inference and folding; the result has passed sg_plan_check. */
sg_status sg_plan_build(const sg_spec *spec, size_t rank, const int64_t *shape,
                        sg_dtype dtype, sg_plan **plan, sg_error *err);
void sg_plan_free(sg_plan *plan);

/* Verifies every invariant of both layers: shapes and counts agree, every
 * byte the loop nest reads lies inside the input, the output is covered
 * densely. Returns SG_OK, or SG_ERR_INTERNAL with the broken rule (for a
 * parsed plan the caller reports it as bad input). */
sg_status sg_plan_check(const sg_plan *plan, sg_error *err);
/* The checker of a symbolic plan's nest for one call, from the numbers
 * sg_plan_prepare computed (args): the output's shape and bytes agree, the
 * loops write it densely, every byte the nest reads lies in the input, the
 * outer range is the nest's. SG_ERR_INTERNAL naming what fails. */
sg_status sg_plan_check_call(const sg_plan *plan, const int64_t *args, sg_error *err);

/* The greatest common divisor of a >= 0 and b >= 0 (gcd(a, 0) = a). */
int64_t sg_gcd(int64_t a, int64_t b);

/* The border modes' coordinates (modes.c), for every stage that needs them.
 * In a mode's window of d > 0 elements, coordinate x reads input index
 * `index` (or the fill value: `fill`), and so does every x' in [lo, hi]
 * (inclusive, saturated at the int64 range), reading index + slope * (x' - x).
 * STRICT and the interior of every mode: [0, d - 1], slope 1. */
typedef struct sg_mode_piece {
    int64_t lo, hi, index;
    int slope; /* -1, 0 or 1 */
    bool fill;
} sg_mode_piece;
sg_mode_piece sg_mode_piece_at(sg_trt_mode mode, int64_t d, int64_t x);
/* The input index coordinate x reads, or -1 for the fill value. */
int64_t sg_mode_index(sg_trt_mode mode, int64_t d, int64_t x);

/* Input element index read for output dimension `dim` at index y, or -1 for
 * the fill value: the mode's (sg_mode_index, Pad's over its window), or
 * start + y*step. */
int64_t sg_plan_axis_index(const sg_plan *plan, size_t dim, int64_t y);

void sg_plan_write(const sg_plan *plan, FILE *out);
/* What sg_plan_write writes, as a malloc'd string; NULL when out of memory. */
char *sg_plan_to_text(const sg_plan *plan);
/* Reads the text form. The plan must pass sg_plan_check, and its loop nest
 * (base, loop, segment and run lines) must be the one sg_plan_fold makes
 * of its dim and fixed lines; the first field that differs is named with
 * its line and both values. */
sg_status sg_plan_read(const char *text, sg_plan **plan, sg_error *err);
/* The same without the second rule: any nest that passes sg_plan_check. For
 * tests of the code generator on nests the planner does not make
 * (tests/codegen/test_jit.c), whose kernels do not do what the dims say (the
 * reference interpreter does). */
sg_status sg_plan_read_any_nest(const char *text, sg_plan **plan, sg_error *err);
bool sg_plan_same(const sg_plan *a, const sg_plan *b);

#endif /* SG_PLANNER_H */

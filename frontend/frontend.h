/*
 * frontend: every source format becomes one source-neutral sg_spec.
 * No LLVM here, and nothing that needs the input shape. What every stage
 * shares below it (errors, quoting, scalars, element types) is common/.
 */
#ifndef SG_FRONTEND_H
#define SG_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/common.h"
#include "slicegen.h"

/* ---- the spec -------------------------------------------------------------- */

typedef enum sg_op {
    SG_OP_STRIDED_SLICE, /* OpenVINO StridedSlice-1: steps[] */
    SG_OP_SLICE,         /* OpenVINO Slice-8: axes[] */
    SG_OP_TRT_SLICE,     /* TensorRT ISliceLayer: dims[] */
    SG_OP_NUMPY,         /* NumPy index expression: steps[], NumPy clamping */
    SG_OP_ONNX_SLICE,    /* ONNX Slice-1/10/11/13 as ONNX Runtime runs it: axes[];
                            Slice-8's rule, except that an end of INT32_MAX or
                            INT64_MAX means "to the end" for either sign of step */
    SG_OP_PAD,           /* ONNX Pad-2/11/13/18/19, OpenVINO Pad-1/12: pads[],
                            mode (FILL constant, CLAMP edge, REFLECT reflect,
                            WRAP wrap) and fill; negative pads crop first */
    SG_OP_SPLIT,         /* output split_output of ONNX Split and OpenVINO Split-1 and
                            VariadicSplit-1 on axis split_axis: sizes[] (which must add
                            up to the axis), or len parts by split_rule */
    SG_OP_PROGRAM        /* a NumPy program over one input: prog (below) */
} sg_op;

const char *sg_op_name(sg_op op);
/* Pad's modes by their ONNX names: "constant" (SG_TRT_FILL), "edge"
 * (CLAMP), "reflect", "wrap"; NULL for SG_TRT_STRICT. And back (true on
 * success). */
const char *sg_pad_mode_name(sg_trt_mode mode);
bool sg_pad_mode_parse(const char *name, sg_trt_mode *mode);
/* np.pad's name of a mode (NULL: none), and the mode of text[0, len). */
const char *sg_numpy_pad_mode_name(sg_trt_mode mode);
bool sg_numpy_pad_mode_parse(const char *text, size_t len, sg_trt_mode *mode);

/* One StridedSlice step (one entry of begin/end/stride with its mask bits,
 * masks already padded). A NumPy expression is a list of such steps too:
 * an integer is a shrink step, None a new-axis step, `...` an ellipsis step
 * and an omitted slice bound a masked bound. */
typedef struct sg_ss_step {
    int64_t begin, end, stride;
    bool begin_mask, end_mask, new_axis, shrink, ellipsis;
    /* Runtime values (see sg_spec.values): 0 where the number above is
     * written in, k >= 1 where it is value k - 1, known at run time (the
     * number is then 0). A shrink step's index is its begin. */
    uint16_t begin_value, end_value, stride_value;
} sg_ss_step;

/* One Slice-8 entry. `axis` is as given (may be negative), or a runtime
 * value (axis_value), placed on its axis when a call is prepared. */
typedef struct sg_slice_axis {
    int64_t start, stop, step, axis;
    uint16_t start_value, stop_value, step_value, axis_value; /* as in sg_ss_step */
} sg_slice_axis;

/* One TensorRT dimension: x = y * stride + start, y in [0, size). */
typedef struct sg_trt_dim {
    int64_t start, size, stride;
    uint16_t start_value, size_value, stride_value; /* as in sg_ss_step */
} sg_trt_dim;

/* One Pad axis: `begin` elements added before the axis and `end` after
 * it (negative: that many removed). `axis` as given (may be negative), or
 * a runtime value (axis_value). */
typedef struct sg_pad_axis {
    int64_t begin, end, axis;
    uint16_t begin_value, end_value, axis_value; /* as in sg_ss_step */
} sg_pad_axis;

/* How a Split cuts its axis into its len outputs. */
typedef enum sg_split_rule {
    SG_SPLIT_SIZES,  /* --split: sizes[], which must add up to the axis */
    SG_SPLIT_PARTS,  /* --parts N: N equal parts, the axis a multiple of N (ONNX Split before 18,
                        OpenVINO Split-1) */
    SG_SPLIT_CHUNKS  /* --chunks N: parts of ceil(axis / N), the last one what is left, at least
                        one element (ONNX Split-18's num_outputs) */
} sg_split_rule;

/* The most parts of --parts and --chunks. */
#define SG_SPLIT_MAX_PARTS 65536

/* One size of a Split: the elements of one output along the split axis. */
typedef struct sg_split_size {
    int64_t size;
    uint16_t size_value; /* as in sg_ss_step */
} sg_split_size;

/* ---- NumPy programs ----
 * A NumPy expression over one input array that is more than one index:
 * index chains x[1:][::-1], np.concatenate, np.roll, np.flip and np.pad,
 * nested in any way. The tree is what was written: NumPy's rules that need
 * the shape (axes in range, pad widths broadcast, concatenated shapes
 * equal) are the planner's (planner/program.c). */
typedef enum sg_prog_kind {
    SG_PROG_INPUT,  /* the input array (its name is the one sg_spec.program spells) */
    SG_PROG_INDEX,  /* args[0][index] */
    SG_PROG_FLIP,   /* np.flip(args[0], axis=axes) */
    SG_PROG_ROLL,   /* np.roll(args[0], shifts, axis=axes) */
    SG_PROG_PAD,    /* np.pad(args[0], widths, mode=mode, constant_values=fill) */
    SG_PROG_CONCAT, /* np.concatenate([args...], axis=axis) */
    SG_PROG_LAYER   /* args[0] through a model layer's slice: `index` is its spec, of any op but a
                       program, without runtime values (aot --fuse): OP(args[0], "WORDS"), WORDS the
                       spec's command-line words after --op OP */
} sg_prog_kind;

/* Limits of a program (program.c): groups (parentheses, calls, lists)
 * nested in one another; nodes of the tree, leaves included (so the tree
 * is at most that deep); the numbers of one argument (axes, shifts,
 * pad_width). */
#define SG_PROG_MAX_DEPTH   64
#define SG_PROG_MAX_NODES   256
#define SG_PROG_MAX_NUMBERS 128

typedef struct sg_prog sg_prog;
struct sg_prog {
    sg_prog_kind kind;
    size_t column;       /* 1-based column (in characters) in the text parsed: the input's name,
                            an index's '[', a call's "np" */
    size_t nargs;        /* operands: 0 (INPUT), 1, or CONCAT's (at least 1) */
    sg_prog **args;
    sg_spec *index;      /* INDEX: an SG_OP_NUMPY spec, its runtime values named in its own table
                            (sg_program_values maps them to the program's) */
    /* FLIP and ROLL: the axes as written (negative counts from the end);
     * axis=None (FLIP: every axis) is all_axes with naxes 0. ROLL: shifts
     * as written; NumPy broadcasts shifts against axes (one of them may
     * be a single number). */
    size_t naxes, nshifts;
    int64_t *axes, *shifts;
    char **shift_names;  /* ROLL: NULL, or nshifts entries: the runtime value's name where a shift
                            is one (its number then 0), else NULL */
    bool all_axes;
    int64_t axis;        /* CONCAT, as written */
    /* PAD: pad_width as written, width_rows x width_cols numbers in row
     * order: rows 1 or one per axis, columns 1 (before = after) or 2
     * (before, after); NumPy broadcasts them to (rank, 2). */
    size_t width_rows, width_cols;
    size_t width_dims;   /* how pad_width was written: 0 a number, 1 a tuple of numbers, 2 of tuples */
    int64_t *widths;
    char **width_names;  /* PAD: NULL, or width_rows x width_cols entries: the runtime value's name
                            where a width is one (its number then 0), else NULL */
    sg_trt_mode pad_mode; /* PAD: np.pad's mode (a row of common/modes.def with a NumPy name:
                             SG_TRT_FILL for 'constant', the default); others: SG_TRT_STRICT */
    sg_scalar fill;      /* PAD constant: constant_values (0 when not given) */
    bool fill_given;     /* PAD: constant_values was written */
};

struct sg_spec {
    sg_op op;
    size_t len;            /* entries in the one array below that is used */
    sg_ss_step *steps;     /* SG_OP_STRIDED_SLICE, SG_OP_NUMPY */
    sg_slice_axis *axes;   /* SG_OP_SLICE, SG_OP_ONNX_SLICE */
    bool axes_given;       /* SG_OP_SLICE, SG_OP_ONNX_SLICE, SG_OP_PAD: axes came from the user */
    sg_trt_dim *dims;      /* SG_OP_TRT_SLICE */
    sg_pad_axis *pads;     /* SG_OP_PAD */
    sg_split_size *sizes;  /* SG_OP_SPLIT: one per output of the split */
    int64_t split_axis;    /* SG_OP_SPLIT: as given (may be negative) */
    size_t split_output;   /* SG_OP_SPLIT: which output (< len) */
    sg_split_rule split_rule; /* SG_OP_SPLIT: SIZES, or PARTS and CHUNKS (sizes[] all 0) */
    sg_trt_mode mode;      /* SG_OP_TRT_SLICE; SG_OP_PAD (never SG_TRT_STRICT) */
    sg_scalar fill;        /* SG_OP_TRT_SLICE, SG_OP_PAD */
    uint16_t fill_value;   /* SG_OP_TRT_SLICE, SG_OP_PAD in FILL mode: 0 where `fill` is written in,
                              k >= 1 where it is value k - 1 (the element's bits, sg_fill_bits) */
    sg_prog *prog;         /* SG_OP_PROGRAM: the tree (len 0) */
    char *program;         /* SG_OP_PROGRAM: its text as sg_spec_print writes it */
    /* The names of the values known only at run time, in order of first
     * appearance, left to right (NumPy: in the text; command-line words:
     * in the order of the words, each list left to right). One name is one
     * value. Each is an identifier of at most SG_VALUE_NAME_MAX bytes. */
    size_t nvalues;
    char **values;         /* malloc'd, each malloc'd; NULL when nvalues == 0 */
};

#define SG_VALUE_NAME_MAX 63
/* (SG_MAX_VALUES, slicegen.h: the most runtime values a spec may name) */

/* ---- runtime value names (values.c) ---- */

/* The length of the identifier [A-Za-z_][A-Za-z0-9_]* that starts at p (of
 * any length); 0 when none does. */
size_t sg_identifier_length(const char *p);

/* The names of the runtime values of a spec being made, value k at
 * names[k], in the order they were first met. */
typedef struct sg_value_table {
    size_t count;
    char **names; /* malloc'd, each malloc'd; NULL when count == 0 */
} sg_value_table;

/* Sets *ref to k + 1 for the value named name[0, len) (an identifier):
 * value k of the table, which gains it as its next value when it is new.
 * Fails, leaving the table as it was, with SG_ERR_SPEC when the name is
 * longer than SG_VALUE_NAME_MAX bytes or would be value SG_MAX_VALUES + 1,
 * or SG_ERR_NOMEM; *why is then the reason, for the caller's message. */
sg_status sg_value_table_ref(sg_value_table *table, const char *name, size_t len, uint16_t *ref,
                             const char **why);
void sg_value_table_free(sg_value_table *table);

/* Which numbers of a constructor's lists are runtime values: refs[l][i] is
 * 0 where item i of the constructor's l-th number list is written in, and
 * k >= 1 where it is value k - 1 of `table` (its number is then ignored).
 * The number lists: StridedSlice begin, end, stride; Slice start, stop,
 * step, axes (refs[3]); TrtSlice start, size, stride; Pad begin, end, and
 * axes (refs[3]); `fill` likewise the fill value of TrtSlice and Pad (0:
 * the constructor's `fill`). A NULL refs[l] names no value; it
 * must be NULL where the list itself is. Every value of the table is named
 * somewhere, and the table holds them in order of first appearance; the
 * spec gets a copy of the names. */
typedef struct sg_value_refs {
    const uint16_t *refs[4];
    uint16_t fill;
    const sg_value_table *table;
} sg_value_refs;

/* Constructors: validate everything that does not need the input shape,
 * except what needs a runtime value (a zero stride or step, a negative
 * TrtSlice size: sg_spec_bind checks them, the planner at run time).
 * `values` may be NULL: every number is written in. */
sg_status sg_spec_make_strided_slice(const sg_strided_slice_args *args, const sg_value_refs *values,
                                     sg_spec **spec, sg_error *err);
sg_status sg_spec_make_slice(size_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                             const int64_t *axes, const sg_value_refs *values, sg_spec **spec, sg_error *err);
/* ONNX Slice (SG_OP_ONNX_SLICE): as sg_spec_make_slice, which Slice-8
 * takes. */
sg_status sg_spec_make_onnx_slice(size_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                                  const int64_t *axes, const sg_value_refs *values, sg_spec **spec,
                                  sg_error *err);
/* Pad (SG_OP_PAD): `len` axes, begin[i] and end[i] for axis axes[i] (axes
 * NULL: 0..len-1); mode one of FILL, CLAMP, REFLECT, WRAP; fill NULL means
 * 0. The number lists of `values` are begin and end, and axes (refs[3]). */
sg_status sg_spec_make_pad(size_t len, const int64_t *begin, const int64_t *end, const int64_t *axes,
                           sg_trt_mode mode, const sg_scalar *fill, const sg_value_refs *values, sg_spec **spec,
                           sg_error *err);
sg_status sg_spec_make_trt_slice(size_t len, const int64_t *start, const int64_t *size, const int64_t *stride,
                                 sg_trt_mode mode, const sg_scalar *fill, const sg_value_refs *values,
                                 sg_spec **spec, sg_error *err);
/* Split (SG_OP_SPLIT): output `output` (< len) of a split of axis `axis`
 * into `len` parts of sizes[0..len). The number list of `values` is
 * sizes (refs[0]). A negative constant size fails here; the sizes' sum is
 * checked against the axis by the planner. */
sg_status sg_spec_make_split(size_t len, const int64_t *sizes, int64_t axis, size_t output,
                             const sg_value_refs *values, sg_spec **spec, sg_error *err);
/* Split into `parts` outputs by `rule` (SG_SPLIT_PARTS or SG_SPLIT_CHUNKS),
 * output `output` of them. */
sg_status sg_spec_make_split_parts(int64_t parts, sg_split_rule rule, int64_t axis, size_t output, sg_spec **spec,
                                   sg_error *err);
/* A NumPy expression; an identifier where an integer may stand (a slice
 * bound or step, an integer index) names a runtime value. A program (a
 * chain of indices, np.concatenate, np.roll, np.flip, np.pad: see
 * sg_prog) is an SG_OP_PROGRAM spec; its indices take no runtime values. */
sg_status sg_spec_parse_numpy(const char *expr, sg_spec **spec, sg_error *err);
/* The program parser (program.c), which sg_spec_parse_numpy calls for
 * whatever is not one index of one array. */
sg_status sg_spec_parse_program(const char *expr, sg_spec **spec, sg_error *err);
/* One index "[...]" of a program: parses expr from byte `at` (a '[') to
 * its ']', *end the byte after it; messages quote and count columns in the
 * whole expr. *spec is an SG_OP_NUMPY spec whose names (runtime values)
 * are its own; the program's spec lists them all (sg_program_values). */
sg_status sg_numpy_index_parse(const char *expr, size_t at, size_t *end, sg_spec **spec, sg_error *err);
/* The decimal digits at p, which '_' may separate as in Python, as a
 * magnitude (UINT64_MAX when larger); *end is the byte after them. */
uint64_t sg_scan_digits(const char *p, const char **end);
/* The tree's invariants (asserts), a deep copy (NULL when out of memory),
 * and its release (NULL is nothing). */
void sg_prog_check(const sg_prog *prog);
sg_prog *sg_prog_copy(const sg_prog *prog);
void sg_prog_free(sg_prog *prog);
/* A program spec of a tree made in C (aot --fuse): takes prog (freed on
 * failure too); `name` is the input's name in its text, where a layer
 * node prints as OP(ARG, "WORDS"), which sg_spec_parse_numpy reads back. */
sg_status sg_spec_make_program(sg_prog *prog, const char *name, sg_spec **spec, sg_error *err);
/* The program spec's value number of each runtime value of `index`, an
 * index of its tree: global[k] for index->values[k] (the program's
 * values are every name of its indices and of np.roll's shifts, once
 * each, in the order of the text). */
void sg_program_values(const sg_spec *program, const sg_spec *index, uint16_t *global);
/* The program spec's value number of the runtime value `name` (one of them). */
size_t sg_program_value(const sg_spec *program, const char *name);
/* Asserts that a program spec's values are its indices' names, each once,
 * in the order of the text. */
void sg_program_check_values(const sg_spec *program);
/* A program's text with values[k] written in for its value k. */
void sg_program_print_values(const sg_spec *program, const int64_t *values, FILE *out);
/* sg_spec_print with values[k] written in for value k. */
void sg_spec_print_values(const sg_spec *spec, const int64_t *values, FILE *out);
/* Command-line SPEC words; an identifier item of an L list of --begin --end
 * --stride --start --stop --step --size --pads-begin --pads-end --axes
 * names a runtime value, numbered in
 * the order of the words, each list left to right. */
sg_status sg_spec_parse_words(int count, char *const *words, sg_spec **spec,
                              sg_error *err);

/* A deep copy of spec, names included. Fails only for lack of memory. */
sg_status sg_spec_copy(const sg_spec *spec, sg_spec **copy, sg_error *err);
/* The spec with values[k] written in for value k (spec->nvalues of them;
 * values may be NULL when there are none): no names left, and validated as
 * its constructor validates the spec typed with those numbers. It fails as
 * reading its printed form (sg_spec_to_text) with the numbers in place of
 * the names fails, status and message: for an --op spec, the message of
 * the words typed with those numbers ("stride must not be zero (stride[1]
 * = 0)"); for a NumPy expression, one that quotes the printed expression
 * and a column of it. A spec without values is copied. A runtime fill value
 * is written in as the integer given; the element of those bits
 * (sg_fill_bits) is sg_plan_bind's, which knows the element type. */
sg_status sg_spec_bind(const sg_spec *spec, const int64_t *values, sg_spec **bound, sg_error *err);

/* Checks the invariants every constructor establishes (asserts; a failure
 * is a bug in slicegen, not in the user's input). */
void sg_spec_check(const sg_spec *spec);
/* Whether a and b are the same spec: op, entries with their value
 * references, names in order, Slice's axes_given, TrtSlice's mode and fill
 * value (as sg_scalar_format writes it); a program's canonical text. */
bool sg_spec_same(const sg_spec *a, const sg_spec *b);
/* What sg_spec_print writes, as a malloc'd string; NULL when out of memory.
 * Runtime values are printed as their names, and the text makes the same
 * spec again, names numbered alike (through sg_spec_parse_numpy for
 * SG_OP_NUMPY and SG_OP_PROGRAM, whose text is sg_spec.program, else
 * sg_spec_parse_words on the words between spaces, '' being the empty
 * word). */
char *sg_spec_to_text(const sg_spec *spec);
void sg_spec_free(sg_spec *spec);

/* ---- Gather of a constant index tensor (gather.c), for both model readers ---- */

/* The Gather of a data input of `rank` dimensions `shape` (-1: known only
 * at run time) along `axis` (in [0, rank)) at a constant index tensor of
 * index_rank >= 1 dimensions index_dims (its first min(index_rank,
 * SG_MAX_RANK) are read) and `count` elements `indices` (row-major;
 * negative ones count from the end of the axis, which must then be
 * known): the data's slices along the axis at those indices, laid out as
 * the index tensor's dimensions. Runs of consecutive indices (ascending or
 * descending) are one slice each; several runs are a NumPy program that
 * concatenates them (docs/programs.md), the rows of a higher-rank index
 * tensor concatenated along new axes. *spec is the spec, or NULL with a
 * one-line reason why the Gather is no slice in reason[0, reason_size)
 * (`role` names the index input in it: "input 'indices'"); fails only for
 * lack of memory (SG_ERR_NOMEM). */
sg_status sg_gather_program(size_t rank, const int64_t *shape, int64_t axis, size_t index_rank,
                            const int64_t *index_dims, const int64_t *indices, size_t count, const char *role,
                            sg_spec **spec, char *reason, size_t reason_size, sg_error *err);

/* ---- small parsers used by the frontends and the command line ------------- */

/* "L": comma-separated 64-bit integers, possibly empty. *values is malloc'd
 * (NULL when empty). `what` names the list in messages ("--begin"). */
sg_status sg_parse_int_list(const char *text, const char *what,
                            int64_t **values, size_t *len, sg_error *err);
/* "B": like L, but every value must be 0 or 1. */
sg_status sg_parse_mask_list(const char *text, const char *what,
                             int64_t **values, size_t *len, sg_error *err);
/* L (B when `bits`) whose items may also be identifiers, names of runtime
 * values: such an item is value k of `table` (which gains the name when it
 * is new; see sg_value_table_ref), its number 0 and (*refs)[i] k + 1;
 * (*refs)[i] is 0 for a number. *refs is malloc'd as *values is. */
sg_status sg_parse_value_list(const char *text, const char *what, bool bits, sg_value_table *table,
                              int64_t **values, uint16_t **refs, size_t *len, sg_error *err);
/* ---- OpenVINO IR models (openvino_ir.c: the only file that uses libxml2) ---- */

/* See sg_model_read in slicegen.h. Layers own their strings, specs and
 * shapes; sg_model_free releases everything. */
/* The data flow around a model's slice layers, for `aot --fuse`
 * (docs/programs.md): tensors are numbered 0..ntensors-1 per model (an
 * output port of a layer, ONNX: a value name), and each is known by who
 * reads it. */
typedef struct sg_model_flow {
    int64_t in;    /* the tensor a slice layer reads as its data input, -1: unknown */
    int64_t out;   /* the tensor it writes (a Split layer: its output's), -1: unknown */
    int32_t scope; /* the graph its node is in: 0 the main graph, else a subgraph
                      (an If branch, a Loop or Scan body); a chain fuses within one */
} sg_model_flow;

/* A Concat (OpenVINO Concat-1, ONNX Concat-1/4/11/13) of tensors. */
typedef struct sg_model_concat {
    char *name;      /* as a layer's name (sg_model_layer.name) */
    int64_t id;      /* as a layer's id */
    int64_t axis;    /* as written (negative counts from the end) */
    size_t ninputs;
    int64_t *inputs; /* tensors, in order */
    int64_t out;     /* the tensor it writes */
} sg_model_concat;

struct sg_model {
    size_t nlayers;
    sg_model_layer *layers;
    /* slice-like nodes whose data input is shape arithmetic (ONNX:
     * Gather(Shape(x), 1)), folded into the numbers of the kernels they
     * feed rather than listed as layers */
    size_t folded;
    /* The data flow (NULL flow and 0 counts: not recorded): flow[i] of
     * layers[i]; readers[t], how many inputs of any layer or node read
     * tensor t, plus one if t is an output of the model (a tensor with
     * readers[t] == 1 is used once); the model's Concats. */
    sg_model_flow *flow;
    size_t ntensors;
    int64_t *readers;
    size_t nconcats;
    sg_model_concat *concats;
    /* aot --fuse (fuse.c): made by sg_model_fuse, NULL until then */
    bool fused;
    size_t nfusions;
    sg_model_fusion *fusions;
    /* The model's symbols (sg_model_symbol; strings owned) and, per layer,
     * how its numbers follow from them (graph.h; model.c); NULL numbers:
     * the reader records none, every layer's are its own. */
    size_t nsymbols;
    sg_model_symbol *symbols;
    struct sg_layer_numbers *numbers;
};

/* Layer `index`'s numbers for the symbols' sizes: see
 * sg_model_layer_numbers (slicegen.h). SG_ERR_USAGE with a message. */
sg_status sg_model_numbers_eval(const sg_model *model, size_t index, const int64_t *symbols, int64_t *in_shape,
                                int64_t *values, uint8_t *given, sg_error *err);

/* Finds the model's fusions (see sg_model_fusion) once: model->fusions.
 * Fails only for lack of memory. */
sg_status sg_model_fuse(sg_model *model, sg_error *err);
/* The readers' arrays of the data flow: readers (ntensors, set), flow
 * (nlayers, set) and room for nconcats Concats, zeroed; false when out
 * of memory (sg_model_free frees what was made). */
bool sg_model_flow_alloc(sg_model *model, size_t nconcats);
void sg_model_fusions_free(sg_model *model);

sg_status sg_model_load(const char *xml_path, const char *weights_path, sg_model **model,
                        sg_error *err);
/* The model graph of an OpenVINO IR model (graph.h), every output port's
 * type and shape inferred and checked; g zeroed, freed with sg_graph_free.
 * weights_path NULL: the .xml's path with ".bin". The checks and errors
 * of sg_model_load but for those of its slice layers. */
struct sg_graph;
sg_status sg_openvino_read_graph(const char *xml_path, const char *weights_path, struct sg_graph *g,
                                 sg_error *err);
void sg_model_free(sg_model *model);

/* ---- ONNX models (onnx.c: the only file that uses protobuf-c) ---- */

/* Whether path names an ONNX model: it ends in ".onnx", any case. */
/* The model graph of an ONNX model (graph.h), every subgraph decoded and
 * every tensor's type and shape inferred; g zeroed, freed with
 * sg_graph_free. The same checks and errors as sg_onnx_load. */
struct sg_graph;
sg_status sg_onnx_read_graph(const char *path, struct sg_graph *g, sg_error *err);
bool sg_model_is_onnx(const char *path);
/* Reads an ONNX model into the same sg_model (see sg_model_read and
 * docs/onnx.md); sg_model_free releases it. A malformed model is SG_ERR_IO,
 * "failed to read ONNX model '<path>': <where>: <rule> (<values>)". */
sg_status sg_onnx_load(const char *path, sg_model **model, sg_error *err);

#endif /* SG_FRONTEND_H */

/*
 * The OpenVINO IR reader through the public API (sg_model_read and friends):
 *   - the example model (examples/model/model.xml, written by
 *     make_model.py): every layer's name, id, type, data shape and type,
 *     spec_text, runtime values and skip reason; each spec plans to the
 *     expected output shape and to the same plan as the command-line words
 *     of its spec_text;
 *   - the runtime-values model: index inputs from Parameters become
 *     runtime values, port by port (a ShapeOf of static dimensions folds
 *     to constants), and dynamic dimensions -1; each
 *     such plan, specialized for some numbers, is the plan of its words
 *     with those numbers typed in (the values land in the right places);
 *     inputs of dynamic length or rank 2, float ones, Slice axes that are
 *     no Const and more than 256 values are skipped;
 *   - the committed example files are what the generator writes today;
 *   - the same model spelled as IR v10, and with Parameter ports that carry
 *     no precision, gives the same layers;
 *   - the infer model: slices of ports the file leaves dynamic take the
 *     shapes shape inference gives (through Relu, Concat, and a Reshape
 *     whose target is computed from ShapeOf), a negative Gather index
 *     along such a dimension compiles, a dimension nobody knows stays -1;
 *   - the ops model: Pad-1 and Pad-12 (constant, edge, reflect; negative
 *     pads; runtime pads; dynamic dimensions), Gather-1, 7 and 8 of one
 *     index and of index arrays of rank 1 and 2 (negative indices, runs
 *     up and down: programs of slices), Split-1 and VariadicSplit-1 (one
 *     layer per output), and every skip reason of theirs; each static
 *     layer's output through the reference interpreter equals OpenVINO's
 *     (written by make_model.py with OpenVINO's reference rules);
 *   - a model with 500 slice layers;
 *   - every malformed variant fails with SG_ERR_IO and a one-line message
 *     naming the file, the layer (name and id) and the attribute, or an
 *     output port whose shape contradicts shape inference, naming both
 *     shapes; and libxml2 prints nothing.
 * The variants are written at test time by running make_model.py with the
 * python3 found in PATH into a temporary folder; without python3 the test
 * says so and exits 77 (skipped).
 *
 * Usage: test_model SOURCE_DIR. Prints one line per failed check and then
 * "model: N passed, M failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slicegen.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
    const char *src; /* the source tree */
    char dir[256];   /* the generated variants */
} suite;

/* ---- the example model, as make_model.py describes it ------------------------ */

typedef struct expect {
    const char *name;
    int64_t id;
    const char *type;
    const char *dims;  /* data input shape, "" for rank 0; NULL when unknown */
    const char *dtype; /* data input element type; NULL when unknown */
    const char *words; /* the spec in command-line form; NULL when skipped */
    const char *out;   /* planned output shape (-1: known at run time) */
    const char *skip;  /* the skip reason; NULL when not skipped */
    const char *values; /* the runtime values' names in order, comma-separated; NULL: none */
} expect;

#define SS_MASKS0(n) " --new-axis-mask " n " --shrink-axis-mask " n " --ellipsis-mask " n

static const expect example[] = {
    {"backbone/crop.0", 7, "StridedSlice", "2,3,8,8", "f32",
     "--op StridedSlice --begin 0,0,2,2 --end 0,0,6,6 --stride 1,1,1,1 --begin-mask 1,1,0,0 --end-mask "
     "1,1,0,0" SS_MASKS0("0,0,0,0"),
     "2,3,4,4", NULL, NULL},
    {"head:flip-1", 11, "StridedSlice", "2,3,8,8", "f32",
     "--op StridedSlice --begin 0,-1 --end 0,0 --stride 1,-1 --begin-mask 0,0 --end-mask 0,1 --new-axis-mask "
     "0,0 "
     "--shrink-axis-mask 0,0 --ellipsis-mask 1,0",
     "2,3,8,8", NULL, NULL},
    {"neck.expand", 14, "StridedSlice", "4,6", "u8",
     "--op StridedSlice --begin 0,0,0 --end 0,0,0 --stride 1,1,1 --begin-mask 1,0,1 --end-mask 1,0,1 "
     "--new-axis-mask 0,1,0 --shrink-axis-mask 0,0,0 --ellipsis-mask 0,0,0",
     "4,1,6", NULL, NULL},
    {"neck.pick", 18, "StridedSlice", "2,3,8,8", "f32",
     "--op StridedSlice --begin 1,0 --end 2,0 --stride 1,1 --begin-mask 0,1 --end-mask 0,1 --new-axis-mask "
     "0,0 "
     "--shrink-axis-mask 1,0 --ellipsis-mask 0,0",
     "3,8,8", NULL, NULL},
    {"a.b", 22, "Slice", "4,6", "u8", "--op Slice --start 1,0 --stop 3,6 --step 1,2", "2,3", NULL, NULL},
    {"a-b", 27, "Slice", "2,3,8,8", "f32",
     "--op Slice --start -1 --stop -9223372036854775808 --step -2 --axes -1", "2,3,8,4", NULL, NULL},
    {"chain.second", 32, "Slice", "2,3,4,4", "f32", "--op Slice --start 0 --stop 1 --step 1 --axes 1",
     "2,1,4,4", NULL, NULL},
    {"stem.ellipsis", 36, "StridedSlice", "4,6", "u8",
     "--op StridedSlice --begin 0,1 --end 0,5 --stride 1,2 --begin-mask 0,0 --end-mask 0,0 --new-axis-mask "
     "0,0 "
     "--shrink-axis-mask 0,0 --ellipsis-mask 1,0",
     "4,2", NULL, NULL},
    {"tail/dynamic-begin", 38, "StridedSlice", "2,3,8,8", "f32",
     "--op StridedSlice --begin begin_0,begin_1,begin_2,begin_3 --end 0,0,0,0 --stride 1,1,1,1 --begin-mask "
     "0,0,0,0 --end-mask 1,1,1,1" SS_MASKS0("0,0,0,0"),
     "-1,-1,-1,-1", NULL, "begin_0,begin_1,begin_2,begin_3"},
    {"tokens/window", 43, "Slice", "-1,16", "i64", "--op Slice --start 0 --stop 8 --step 1 --axes 1", "-1,8", NULL, NULL},
    {"packed/half", 47, "Slice", "16", NULL, NULL, NULL,
     "the data input has unsupported element type 'U4' (from layer 'packed' id 3)", NULL},
    {"odd/float-index", 50, "StridedSlice", "2,3,8,8", "f32", NULL, NULL,
     "input 1 (begin) is a Const of element type 'f32', not i32 or i64 (layer 'odd/float-index/begin' id "
     "48)", NULL},
    {"bad/zero-step", 54, "Slice", "4,6", "u8", NULL, NULL,
     "failed to make Slice: step must not be zero (step[0] = 0)", NULL},
    {"pad/border", 58, "Pad", "2,3,8,8", "f32",
     "--op Pad --pads-begin 0,0,1,1 --pads-end 0,-1,1,1 --mode constant --value -1.5",
     "2,2,10,10", NULL, NULL},
    {"split/halves", 60, "Split", "4,6", "u8",
     "--op Slice --start 0 --stop 3 --step 1 --axes 1",
     "4,3", NULL, NULL},
    {"split/halves", 60, "Split", "4,6", "u8",
     "--op Slice --start 3 --stop 6 --step 1 --axes 1",
     "4,3", NULL, NULL},
    {"split/rows", 63, "VariadicSplit", "2,3,8,8", "f32",
     "--op Slice --start 0 --stop 2 --step 1 --axes -2",
     "2,3,2,8", NULL, NULL},
    {"split/rows", 63, "VariadicSplit", "2,3,8,8", "f32",
     "--op Slice --start 2 --stop 5 --step 1 --axes -2",
     "2,3,3,8", NULL, NULL},
    {"split/rows", 63, "VariadicSplit", "2,3,8,8", "f32",
     "--op Slice --start 5 --stop 8 --step 1 --axes -2",
     "2,3,3,8", NULL, NULL},
    {"pick/last-channel", 66, "Gather", "2,3,8,8", "f32",
     "--op StridedSlice --begin 0,-1 --end 0,0 --stride 1,1 --begin-mask 1,0 --end-mask 1,0 --new-axis-mask 0,0 --shrink-axis-mask 0,1 --ellipsis-mask 0,0",
     "2,8,8", NULL, NULL},
};
#define NEXAMPLE (sizeof example / sizeof example[0])

/* The runtime-values model. */
static const expect runtime[] = {
    {"param-begin", 13, "StridedSlice", "5,7", "u8",
     "--op StridedSlice --begin begin_0,begin_1 --end 0,0 --stride 1,2 --begin-mask 0,0 --end-mask 1,1" SS_MASKS0(
         "0,0"),
     "-1,-1", NULL, "begin_0,begin_1"},
    {"shapeof-end", 15, "StridedSlice", "5,7", "u8",
     "--op StridedSlice --begin 1,0 --end 5,7 --stride stride_0,stride_1 --begin-mask 0,0 --end-mask "
     "0,0" SS_MASKS0("0,0"),
     "-1,-1", NULL, "stride_0,stride_1"},
    {"dynamic-data", 20, "Slice", "4,-1,6", "f32", "--op Slice --start 1 --stop -1 --step 1 --axes 1", "4,-1,6",
     NULL, NULL},
    {"dynamic-both", 23, "Slice", "4,-1,6", "f32",
     "--op Slice --start start_0,start_1 --stop -9223372036854775808,100 --step step_0,step_1 --axes 2,1",
     "4,-1,-1", NULL, "start_0,start_1,step_0,step_1"},
    {"static-rows", 27, "Slice", "5,7", "u8", "--op Slice --start 1 --stop 3 --step 1", "2,7", NULL, NULL},
    {"dynamic-length", 29, "StridedSlice", "5,7", "u8", NULL, NULL,
     "input 1 (begin) is not a Const and its length is dynamic ('-1', from layer 'lengths' id 6 output port 0)", NULL},
    {"rank-2-begin", 31, "StridedSlice", "5,7", "u8", NULL, NULL,
     "input 1 (begin) is not a Const and not 1-D (rank 2, from layer 'grid' id 7 output port 0)", NULL},
    {"float-begin", 33, "StridedSlice", "5,7", "u8", NULL, NULL,
     "input 1 (begin) is not a Const and has element type 'FP32', not i32 or i64 (from layer 'weights' id 8 "
     "output port 0)", NULL},
    {"runtime-axes", 37, "Slice", "5,7", "u8", "--op Slice --start 0 --stop 1 --step 1 --axes axes_0", "-1,-1",
     NULL, "axes_0"},
    {"too-many-values", 39, "StridedSlice", "5,7", "u8", NULL, NULL,
     "input 2 (end) is not a Const and its 129 elements are too many runtime values (a spec names at most 256 "
     "runtime values; from layer 'many' id 38 output port 0)",
     NULL},
};
#define NRUNTIME (sizeof runtime / sizeof runtime[0])

/* The ops model: Pad, Gather, Split and VariadicSplit. */
static const expect ops[] = {
    {"pad1/constant", 10, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 0,1 --pads-end 2,3 --mode constant --value 7.5",
     "5,8", NULL, NULL},
    {"pad1/edge", 13, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 0,1 --pads-end 2,3 --mode edge",
     "5,8", NULL, NULL},
    {"pad1/reflect", 16, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 0,1 --pads-end 2,3 --mode reflect",
     "5,8", NULL, NULL},
    {"pad12/crop", 19, "Pad", "3,4", "f32",
     "--op Pad --pads-begin -1,-1 --pads-end -1,-1 --mode reflect",
     "1,2", NULL, NULL},
    {"pad12/mixed-constant", 22, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 2,-1 --pads-end -1,3 --mode constant --value 0",
     "4,6", NULL, NULL},
    {"pad12/mixed-edge", 25, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 2,-1 --pads-end -1,3 --mode edge",
     "4,6", NULL, NULL},
    {"pad12/zeros", 28, "Pad", "2,5,6", "u8",
     "--op Pad --pads-begin 0,1,0 --pads-end 1,0,2 --mode constant --value 0",
     "3,6,8", NULL, NULL},
    {"pad12/edge-value", 31, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 1,1 --pads-end 1,1 --mode edge",
     "5,6", NULL, NULL},
    {"pad12/runtime", 34, "Pad", "3,4", "f32",
     "--op Pad --pads-begin pads_begin_0,pads_begin_1 --pads-end 1,1 --mode constant --value -2.0",
     "-1,-1", NULL, "pads_begin_0,pads_begin_1"},
    {"pad1/runtime-reflect", 36, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 1,1 --pads-end pads_end_0,pads_end_1 --mode reflect",
     "-1,-1", NULL, "pads_end_0,pads_end_1"},
    {"pad12/dynamic", 39, "Pad", "4,-1,6", "f32",
     "--op Pad --pads-begin 0,2,-1 --pads-end 1,0,-1 --mode edge",
     "5,-1,4", NULL, NULL},
    {"gather1/row", 42, "Gather", "3,4", "f32",
     "--op StridedSlice --begin 2 --end 3 --stride 1 --begin-mask 0 --end-mask 0 --new-axis-mask 0 --shrink-axis-mask 1 --ellipsis-mask 0",
     "4", NULL, NULL},
    {"gather7/col", 45, "Gather", "2,5,6", "u8",
     "--op StridedSlice --begin 0,0,3 --end 0,0,4 --stride 1,1,1 --begin-mask 1,1,0 --end-mask 1,1,0 --new-axis-mask 0,0,0 --shrink-axis-mask 0,0,1 --ellipsis-mask 0,0,0",
     "2,5", NULL, NULL},
    {"gather8/negative", 48, "Gather", "2,5,6", "u8",
     "--op StridedSlice --begin 0,-2 --end 0,-1 --stride 1,1 --begin-mask 1,0 --end-mask 1,0 --new-axis-mask 0,0 --shrink-axis-mask 0,1 --ellipsis-mask 0,0",
     "2,6", NULL, NULL},
    {"gather8/axis-1d", 51, "Gather", "2,5,6", "u8",
     "--op StridedSlice --begin 1 --end 2 --stride 1 --begin-mask 0 --end-mask 0 --new-axis-mask 0 --shrink-axis-mask 1 --ellipsis-mask 0",
     "5,6", NULL, NULL},
    {"gather8/dynamic", 54, "Gather", "4,-1,6", "f32",
     "--op StridedSlice --begin 0,5 --end 0,6 --stride 1,1 --begin-mask 1,0 --end-mask 1,0 --new-axis-mask 0,0 --shrink-axis-mask 0,1 --ellipsis-mask 0,0",
     "4,6", NULL, NULL},
    {"split/three", 56, "Split", "2,5,6", "u8",
     "--op Slice --start 0 --stop 2 --step 1 --axes 2",
     "2,5,2", NULL, NULL},
    {"split/three", 56, "Split", "2,5,6", "u8",
     "--op Slice --start 2 --stop 4 --step 1 --axes 2",
     "2,5,2", NULL, NULL},
    {"split/three", 56, "Split", "2,5,6", "u8",
     "--op Slice --start 4 --stop 6 --step 1 --axes 2",
     "2,5,2", NULL, NULL},
    {"split/dynamic-other", 58, "Split", "4,-1,6", "f32",
     "--op Slice --start 0 --stop 3 --step 1 --axes -1",
     "4,-1,3", NULL, NULL},
    {"split/dynamic-other", 58, "Split", "4,-1,6", "f32",
     "--op Slice --start 3 --stop 6 --step 1 --axes -1",
     "4,-1,3", NULL, NULL},
    {"vsplit/lengths", 61, "VariadicSplit", "2,5,6", "u8",
     "--op Slice --start 0 --stop 1 --step 1 --axes 1",
     "2,1,6", NULL, NULL},
    {"vsplit/lengths", 61, "VariadicSplit", "2,5,6", "u8",
     "--op Slice --start 1 --stop 3 --step 1 --axes 1",
     "2,2,6", NULL, NULL},
    {"vsplit/lengths", 61, "VariadicSplit", "2,5,6", "u8",
     "--op Slice --start 3 --stop 3 --step 1 --axes 1",
     "2,0,6", NULL, NULL},
    {"vsplit/lengths", 61, "VariadicSplit", "2,5,6", "u8",
     "--op Slice --start 3 --stop 5 --step 1 --axes 1",
     "2,2,6", NULL, NULL},
    {"pad1/negative", 64, "Pad", "3,4", "f32",
     NULL,
     NULL, "Pad-1 takes no negative pads (pads_begin[1] = -1); Pad-12 crops", NULL},
    {"pad12/symmetric", 67, "Pad", "3,4", "f32",
     NULL,
     NULL, "pad_mode symmetric has no slicegen mode (constant, edge and reflect do)", NULL},
    {"pad12/reflect-mixed", 70, "Pad", "3,4", "f32",
     NULL,
     NULL, "Pad-12 reflect with pads of opposite signs (axis 0: pads_begin 2, pads_end -1): OpenVINO reflects off the uncropped axis, which slicegen's Pad cannot express", NULL},
    {"pad12/reflect-runtime", 72, "Pad", "3,4", "f32",
     NULL,
     NULL, "Pad-12 reflect with pads known only at run time: OpenVINO reflects pads of opposite signs off the uncropped axis, which slicegen's Pad cannot express", NULL},
    {"pad12/edge-cropped", 75, "Pad", "3,4", "f32",
     NULL,
     NULL, "Pad-12 edge that crops axis 0 of 3 elements whole and pads it (pads_begin -3, pads_end 2): OpenVINO pads with the uncropped edge, which slicegen's Pad cannot express", NULL},
    {"pad12/value-not-const", 78, "Pad", "3,4", "f32",
     "--op Pad --pads-begin 0,1 --pads-end 2,3 --mode constant --value pad_value_0",
     "5,8", NULL, "pad_value_0"},
    {"pad12/value-type", 82, "Pad", "3,4", "f32",
     NULL,
     NULL, "input 3 (pad_value) is a Const of element type 'i32', not the data's f32 (layer 'pad12/value-type/pad_value' id 81)", NULL},
    {"pad12/short-pads", 85, "Pad", "3,4", "f32",
     NULL,
     NULL, "failed to make Pad: pads_begin and pads_end must have one element per data axis (1 and 1 for rank 2)", NULL},
    {"pad/experimental", 88, "Pad", "3,4", "f32",
     NULL,
     NULL, "Pad of version 'custom' is not read (expected opsetN)", NULL},
    {"gather7/negative", 91, "Gather", "3,4", "f32",
     NULL,
     NULL, "Gather-7 takes no negative index (indices = -1); Gather-8 does", NULL},
    {"gather8/out-of-range", 94, "Gather", "3,4", "f32",
     NULL,
     NULL, "failed to make Gather: index 3 is out of range for axis 0 of 3 elements", NULL},
    {"gather8/batch-dims", 97, "Gather", "3,4", "f32",
     NULL,
     NULL, "failed to make Gather: batch_dims must be 0 for a scalar index (batch_dims = 1)", NULL},
    {"gather8/indices-1d", 100, "Gather", "3,4", "f32", "[:, 0:1]", "3,1", NULL, NULL},
    {"gather8/indices-param", 102, "Gather", "3,4", "f32",
     NULL,
     NULL, "input 1 (indices) is not a Const: it comes from layer 'index' id 6 (type Parameter), and indices must be constant", NULL},
    {"gather8/axis-range", 105, "Gather", "3,4", "f32",
     NULL,
     NULL, "failed to make Gather: axis 2 is out of range for data of rank 2", NULL},
    {"split/uneven", 107, "Split", "3,4", "f32",
     NULL,
     NULL, "failed to make Split: axis 1 of 4 elements does not split into 3 equal parts", NULL},
    {"split/uneven", 107, "Split", "3,4", "f32",
     NULL,
     NULL, "failed to make Split: axis 1 of 4 elements does not split into 3 equal parts", NULL},
    {"split/uneven", 107, "Split", "3,4", "f32",
     NULL,
     NULL, "failed to make Split: axis 1 of 4 elements does not split into 3 equal parts", NULL},
    {"split/dynamic-axis", 109, "Split", "4,-1,6", "f32", "--op Split --parts 2 --axis 1 --output 0", "4,-1,6",
     NULL, NULL},
    {"split/dynamic-axis", 109, "Split", "4,-1,6", "f32", "--op Split --parts 2 --axis 1 --output 1", "4,-1,6",
     NULL, NULL},
    {"split/axis-param", 110, "Split", "3,4", "f32",
     NULL,
     NULL, "input 1 (axis) is not a Const: it comes from layer 'index' id 6 (type Parameter), and axis must be constant", NULL},
    {"split/axis-param", 110, "Split", "3,4", "f32",
     NULL,
     NULL, "input 1 (axis) is not a Const: it comes from layer 'index' id 6 (type Parameter), and axis must be constant", NULL},
    {"vsplit/two-unknown", 113, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths may hold one -1 and no other negative length (split_lengths[1] = -1)", NULL},
    {"vsplit/two-unknown", 113, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths may hold one -1 and no other negative length (split_lengths[1] = -1)", NULL},
    {"vsplit/sum", 116, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths add up to 2, axis 0 has 3 elements", NULL},
    {"vsplit/sum", 116, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths add up to 2, axis 0 has 3 elements", NULL},
    {"vsplit/negative", 119, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths may hold one -1 and no other negative length (split_lengths[0] = -2)", NULL},
    {"vsplit/negative", 119, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths may hold one -1 and no other negative length (split_lengths[0] = -2)", NULL},
    {"vsplit/over", 122, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths add up to 5 besides the -1, axis 0 has 3 elements", NULL},
    {"vsplit/over", 122, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths add up to 5 besides the -1, axis 0 has 3 elements", NULL},
    {"vsplit/over", 122, "VariadicSplit", "3,4", "f32",
     NULL,
     NULL, "failed to make VariadicSplit: split_lengths add up to 5 besides the -1, axis 0 has 3 elements", NULL},
    {"gather8/rows", 125, "Gather", "3,4", "f32", "np.concatenate([x[2:3], x[0:1]], axis=0)", "2,4", NULL, NULL},
    {"gather8/negative-array", 128, "Gather", "2,5,6", "u8", "np.concatenate([x[:, 4:2:-1], x[:, 0:1]], axis=1)",
     "2,3,6", NULL, NULL},
    {"gather7/matrix", 131, "Gather", "2,5,6", "u8",
     "np.concatenate([x[:, :, None, 0:2], np.concatenate([x[:, :, None, 5:6], x[:, :, None, 2:3]], axis=3)], "
     "axis=2)",
     "2,5,2,2", NULL, NULL},
    {"gather1/run", 134, "Gather", "3,4", "f32", "[:, 1:4]", "3,3", NULL, NULL},
    {"gather7/negative-array", 137, "Gather", "3,4", "f32", NULL, NULL,
     "Gather-7 takes no negative index (indices[1] = -1); Gather-8 does", NULL},
    {"gather8/array-out-of-range", 140, "Gather", "3,4", "f32", NULL, NULL,
     "index 4 is out of range for axis 1 of size 4", NULL},
    {"gather8/array-batch", 143, "Gather", "2,5,6", "u8", NULL, NULL,
     "failed to make Gather: batch_dims must be 0 for an index array (batch_dims = 1)", NULL},
};
#define NOPS (sizeof ops / sizeof ops[0])

/* The infer model: the data shapes of ports the file leaves dynamic come
 * from shape inference (a Relu's, a Concat's, a Reshape's of a target made
 * by ShapeOf, Gather, Unsqueeze and Concat), so that their slices are
 * static and a negative Gather index along such a dimension compiles; a
 * dimension nobody knows stays -1. The Gather of the ShapeOf ("batch") is
 * shape arithmetic: folded, not a layer. */
static const expect infer[] = {
    {"crop", 15, "StridedSlice", "2,3,8,8", "f32",
     "--op StridedSlice --begin 0,0,2,2 --end 0,0,6,6 --stride 1,1,1,1 --begin-mask 1,1,0,0 --end-mask "
     "1,1,0,0" SS_MASKS0("0,0,0,0"),
     "2,3,4,4", NULL, NULL},
    {"rows", 20, "Slice", "2,192", "f32", "--op Slice --start 0 --stop 1 --step 1 --axes 0", "1,192", NULL, NULL},
    {"pick", 23, "Gather", "2,6,8,8", "f32", "np.concatenate([x[:, 5:6], x[:, 0:1]], axis=1)", "2,2,8,8", NULL,
     NULL},
    {"window", 28, "Slice", "-1,16", "i64", "--op Slice --start 0 --stop 8 --step 1 --axes 1", "-1,8", NULL, NULL},
};
#define NINFER (sizeof infer / sizeof infer[0])

/* Calls of the runtime-values model's symbolic layers: the input shape and
 * values, and the layer's words with these numbers typed in. */
static const struct typed_call {
    const char *layer;
    int64_t in_shape[3];
    int64_t values[4];
    const char *words;
} typed_calls[] = {
    {"param-begin", {5, 7}, {2, -3},
     "--op StridedSlice --begin 2,-3 --end 0,0 --stride 1,2 --begin-mask 0,0 --end-mask 1,1" SS_MASKS0("0,0")},
    {"shapeof-end", {5, 7}, {2, -1},
     "--op StridedSlice --begin 1,0 --end 5,7 --stride 2,-1 --begin-mask 0,0 --end-mask 0,0" SS_MASKS0("0,0")},
    {"dynamic-data", {4, 9, 6}, {0}, "--op Slice --start 1 --stop -1 --step 1 --axes 1"},
    {"dynamic-data", {4, 0, 6}, {0}, "--op Slice --start 1 --stop -1 --step 1 --axes 1"},
    {"dynamic-both", {4, 11, 6}, {-1, 2, -2, 3},
     "--op Slice --start -1,2 --stop -9223372036854775808,100 --step -2,3 --axes 2,1"},
    {"dynamic-both", {4, 3, 6}, {4, -5, 1, 1},
     "--op Slice --start 4,-5 --stop -9223372036854775808,100 --step 1,1 --axes 2,1"},
};

/* Every fault make_model.py writes, and what its message must contain
 * besides "failed to read model '<file>': ". */
static const struct fault {
    const char *name;
    const char *parts[4];
} faults[] = {
    {"not-xml", {"not well-formed XML (line 1: "}},
    {"truncated", {"not well-formed XML (line "}},
    {"doctype", {"a document type declaration is not allowed"}},
    {"entity-bomb", {"not well-formed XML (line "}},
    {"deep-nesting", {"not well-formed XML (line ", "depth"}},
    {"bad-version", {"unsupported IR version", "attribute version = '7'"}},
    {"no-layers", {"no <layers> element"}},
    {"layer-without-id", {"missing attribute", "layer 'backbone/crop.0'", "attribute id)"}},
    {"layer-without-type", {"missing attribute", "layer 'backbone/crop.0' id 7", "attribute type)"}},
    {"layer-id-not-number", {"not a non-negative integer", "layer 'backbone/crop.0'", "attribute id = '7a'"}},
    {"duplicate-id", {"duplicate layer id", "layer 'head:flip-1' id 7", "layer 'backbone/crop.0'"}},
    {"edge-to-missing-layer",
     {"ends at a layer that does not exist", "layer 'backbone/crop.0/begin' id 5",
      "attribute to-layer = 999"}},
    {"edge-from-missing-layer",
     {"starts at a layer that does not exist", "layer 'backbone/crop.0' id 7", "attribute from-layer = 999"}},
    {"edge-to-missing-port",
     {"port that does not exist", "layer 'backbone/crop.0' id 7 has no input port 9", "attribute to-port"}},
    {"edge-from-missing-port",
     {"port that does not exist", "layer 'image' id 0 has no output port 9", "attribute from-port"}},
    {"const-past-end",
     {"past the end of the weights", "layer 'backbone/crop.0/begin' id 5",
      "attribute offset = 528 + size = 32 > 536 bytes", "const-past-end.bin"}},
    {"const-range-overflow",
     {"overflows 64 bits", "layer 'backbone/crop.0/begin' id 5", "attribute offset = 9223372036854775800"}},
    {"const-offset-not-number",
     {"not a non-negative integer", "layer 'backbone/crop.0/begin' id 5", "attribute offset = '12a'"}},
    {"const-offset-negative",
     {"must not be negative", "layer 'backbone/crop.0/begin' id 5", "attribute offset = '-8'"}},
    {"const-size-out-of-range",
     {"out of range", "layer 'backbone/crop.0/begin' id 5", "attribute size = '99999999999999999999'"}},
    {"const-size-mismatch",
     {"does not match its shape", "layer 'backbone/crop.0/begin' id 5", "attribute size = 24",
      "needs 32 bytes"}},
    {"index-not-1d", {"must be 1-D", "layer 'backbone/crop.0' id 7", "input 1 (begin)", "shape '2,2'"}},
    {"missing-bin", {"cannot open the weights file", "missing-bin.bin", "No such file or directory"}},
    {"bin-is-directory", {"not a regular file", "bin-is-directory.bin"}},
    {"missing-begin-mask", {"missing attribute", "layer 'backbone/crop.0' id 7", "attribute begin_mask"}},
    {"missing-end-mask", {"missing attribute", "layer 'backbone/crop.0' id 7", "attribute end_mask"}},
    {"bad-mask-value",
     {"mask values must be 0 or 1", "layer 'backbone/crop.0' id 7", "attribute begin_mask = '1,2,0,0'"}},
    {"unconnected-input", {"not connected", "layer 'backbone/crop.0' id 7", "input 2 (end)"}},
    {"edge-cycle-self",
     {"the edges make a cycle", "layer 'backbone/crop.0' id 7 input 0 reads",
      "reads layer 'backbone/crop.0' id 7 output port 3, which depends on that input"}},
    {"edge-cycle-two",
     {"the edges make a cycle", "layer 'backbone/crop.0' id 7 input 0 reads",
      "reads layer 'chain.second' id 32 output port 5, which depends on that input"}},
    {"dim-not-number", {"not a count", "layer 'image' id 0", "dim '8x'"}},
    {"output-shape-mismatch",
     {"node 'backbone/crop.0' (StridedSlice): output port 'backbone/crop.0:3' gives f32 [2, 3, 9, 9]",
      "but the node makes f32 [2, 3, 4, 4]"}},
    {"output-type-mismatch",
     {"node 'split/rows' (VariadicSplit): output port 'split/rows:4' gives i32 [2, 3, 3, 8]",
      "but the node makes f32 [2, 3, 3, 8]"}},
    {"port-shape-conflict",
     {"node 'image_shape' (ShapeOf): output port 'image_shape:1' gives i64 [5]", "but the node makes i64 [4]"}},
    {"pad-mode-missing", {"missing attribute of Pad", "layer 'pad/border' id 58", "attribute pad_mode)"}},
    {"pad-mode-unknown",
     {"unknown pad_mode", "layer 'pad/border' id 58", "attribute pad_mode = 'mirror'",
      "expected constant, edge, reflect or symmetric"}},
    {"pad-value-not-scalar",
     {"a pad_value input must be a scalar", "layer 'pad/border' id 58", "input 3 (pad_value)", "shape '1'"}},
    {"num-splits-missing", {"missing attribute", "layer 'split/halves' id 60", "attribute num_splits)"}},
    {"num-splits-mismatch",
     {"num_splits must be the number of output ports", "layer 'split/halves' id 60", "num_splits = 3",
      "2 output ports"}},
    {"split-lengths-mismatch",
     {"split_lengths must have one element per output port", "layer 'split/rows' id 63", "4 output ports",
      "3 elements"}},
    {"axis-not-scalar",
     {"an axis input must be a scalar or hold one element", "layer 'split/halves' id 60", "input 1 (axis)",
      "shape '1,1'"}},
    {"batch-dims-not-number",
     {"not an integer", "layer 'pick/last-channel' id 66", "attribute batch_dims = '0x'"}},
};
#define NFAULTS (sizeof faults / sizeof faults[0])

/* Models make_model.py --all writes besides the faults: model, model-v10,
 * model-noprec, scale-500, runtime-values, infer and ops. */
enum { PLAIN_MODELS = 7 };

/* ---- helpers ------------------------------------------------------------------- */

static void path_of(const suite *s, const char *stem, const char *ext, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s/%s%s", s->dir, stem, ext);
    if (n < 0 || (size_t)n >= cap) {
        fprintf(stderr, "test_model: path %s/%s%s too long\n", s->dir, stem, ext);
        exit(1);
    }
}

/* "2,3,8,8" for a shape. */
static void format_dims(size_t rank, const int64_t *shape, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)shape[i]);
}

/* What sg_plan_print writes, malloc'd; NULL when out of memory. */
static char *plan_text(const sg_plan *plan)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    sg_plan_print(plan, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Whether two plans are the same: equal, and printed alike (the
 * expressions of symbolic plans included). */
static bool same_plans(const sg_plan *a, const sg_plan *b)
{
    char *x = plan_text(a), *y = plan_text(b);
    bool same = sg_plan_equal(a, b) && x != NULL && y != NULL && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

/* The plan's runtime value names, comma-separated, in buf. */
static const char *value_names(const sg_plan *plan, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sg_plan_value_count(plan) && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? "," : "", sg_plan_value_name(plan, i));
    return buf;
}

/* Plans `words` (a spec in command-line form, '' an empty word; or a
 * NumPy expression or program). */
static sg_plan *plan_words(suite *s, const char *words, size_t rank, const int64_t *shape, sg_dtype dtype)
{
    char *copy = strdup(words);
    char *argv[64];
    int argc = 0;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    for (char *save, *w = strtok_r(copy, " ", &save); w != NULL && argc < 64; w = strtok_r(NULL, " ", &save))
        argv[argc++] = strcmp(w, "''") == 0 ? w + 2 : w;
    sg_status st = strncmp(words, "--", 2) == 0 ? sg_spec_from_words(s->ctx, argc, argv, &spec)
                                                : sg_spec_numpy(s->ctx, words, &spec);
    if (st == SG_OK)
        sg_plan_create(s->ctx, spec, rank, shape, dtype, &plan);
    sg_spec_destroy(spec);
    free(copy);
    return plan;
}

/* The whole file, malloc'd (NUL-terminated); NULL if unreadable. */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    if (f == NULL)
        return NULL;
    do {
        if (n + 4096 + 1 > cap) {
            char *grown = realloc(buf, cap = 2 * cap + 8192);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        got = fread(buf + n, 1, 4096, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    *size = n;
    return buf;
}

/* Runs make_model.py DIR --all. Returns its exit status, 127 without python3. */
static int generate(const suite *s)
{
    char script[512];
    snprintf(script, sizeof script, "%s/examples/model/make_model.py", s->src);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execlp("python3", "python3", script, s->dir, "--all", (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Removes the generated folder (files, and the one folder a fault makes). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char path[512];
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    closedir(d);
    rmdir(dir);
}

/* ---- checks ------------------------------------------------------------------------ */

/* Checks one read layer against its expectation. */
static void check_layer(suite *s, const char *file, const sg_model_layer *l, const expect *e,
                        const char *skip)
{
    char dims[512];
    CHECK(s, strcmp(l->name, e->name) == 0, "%s: layer name '%s', expected '%s'", file, l->name, e->name);
    CHECK(s, l->id == e->id, "%s: layer '%s' id %lld, expected %lld", file, e->name, (long long)l->id,
          (long long)e->id);
    CHECK(s, strcmp(l->type, e->type) == 0, "%s: layer '%s' type %s, expected %s", file, e->name, l->type,
          e->type);
    if (e->dims != NULL) {
        format_dims(l->rank, l->shape, dims, sizeof dims);
        CHECK(s, strcmp(dims, e->dims) == 0, "%s: layer '%s' data shape [%s], expected [%s]", file, e->name,
              dims, e->dims);
    }
    if (e->dtype != NULL)
        CHECK(s, strcmp(sg_dtype_name(l->dtype), e->dtype) == 0, "%s: layer '%s' dtype %s, expected %s", file,
              e->name, sg_dtype_name(l->dtype), e->dtype);
    if (skip != NULL) {
        CHECK(s, l->spec == NULL && l->spec_text == NULL, "%s: skipped layer '%s' has a spec", file, e->name);
        CHECK(s, l->skip_reason != NULL && strcmp(l->skip_reason, skip) == 0,
              "%s: layer '%s' skip reason\n  got      '%s'\n  expected '%s'", file, e->name,
              l->skip_reason ? l->skip_reason : "(none)", skip);
        CHECK(s, l->skip_reason == NULL || strchr(l->skip_reason, '\n') == NULL,
              "%s: layer '%s' skip reason is not one line", file, e->name);
        return;
    }
    if (!CHECK(s, l->spec != NULL && l->spec_text != NULL && l->skip_reason == NULL,
               "%s: layer '%s' was skipped: %s", file, e->name,
               l->skip_reason ? l->skip_reason : "(no reason)"))
        return;
    CHECK(s, strcmp(l->spec_text, e->words) == 0, "%s: layer '%s' spec\n  got      %s\n  expected %s", file,
          e->name, l->spec_text, e->words);

    /* The spec plans to the expected output, and to the plan of its words. */
    sg_plan *plan = NULL, *again = NULL;
    if (!CHECK(s, sg_plan_create(s->ctx, l->spec, l->rank, l->shape, l->dtype, &plan) == SG_OK,
               "%s: layer '%s' does not plan: %s", file, e->name, sg_context_last_error(s->ctx)))
        return;
    format_dims(sg_plan_output_rank(plan), sg_plan_output_shape(plan), dims, sizeof dims);
    CHECK(s, strcmp(dims, e->out) == 0, "%s: layer '%s' output [%s], expected [%s]", file, e->name, dims,
          e->out);
    char names[512];
    value_names(plan, names, sizeof names);
    CHECK(s, strcmp(names, e->values ? e->values : "") == 0, "%s: layer '%s' runtime values [%s], expected [%s]",
          file, e->name, names, e->values ? e->values : "");
    CHECK(s, sg_plan_is_symbolic(plan) == (e->values != NULL || (e->dims && strstr(e->dims, "-1") != NULL)),
          "%s: layer '%s' plan is %ssymbolic", file, e->name, sg_plan_is_symbolic(plan) ? "" : "not ");
    again = plan_words(s, e->words, l->rank, l->shape, l->dtype);
    CHECK(s, again != NULL && same_plans(plan, again), "%s: layer '%s' plans differently from its words (%s)",
          file, e->name, again ? "plans differ" : sg_context_last_error(s->ctx));
    sg_plan_destroy(again);
    sg_plan_destroy(plan);
}

/* Reads stem.xml (weights: NULL, i.e. stem.bin) and checks every layer. */
static void check_example(suite *s, const char *xml, const char *weights, bool no_precision)
{
    sg_model *model = NULL;
    if (!CHECK(s, sg_model_read(s->ctx, xml, weights, &model) == SG_OK, "%s: %s", xml,
               sg_context_last_error(s->ctx)))
        return;
    size_t n = sg_model_layer_count(model);
    CHECK(s, n == NEXAMPLE, "%s: %zu slice layers, expected %zu", xml, n, NEXAMPLE);
    for (size_t i = 0; i < n && i < NEXAMPLE; i++) {
        const expect *e = &example[i];
        const char *skip = e->skip;
        if (no_precision && strcmp(e->name, "packed/half") == 0) /* the type comes from <data element_type> */
            skip = "the data input has unsupported element type 'u4' (from layer 'packed' id 3)";
        check_layer(s, xml, sg_model_layer_at(model, i), e, skip);
    }
    CHECK(s, sg_model_layer_at(model, n) == NULL, "%s: a layer past the end", xml);
    sg_model_destroy(model);
}

/* Reads the generated variant stem.xml (its path in xml), which must have
 * `count` slice layers; NULL when it does not read. */
static sg_model *read_variant(suite *s, const char *stem, size_t count, char *xml, size_t cap)
{
    sg_model *model = NULL;
    path_of(s, stem, ".xml", xml, cap);
    if (!CHECK(s, sg_model_read(s->ctx, xml, NULL, &model) == SG_OK, "%s: %s", xml,
               sg_context_last_error(s->ctx)))
        return NULL;
    CHECK(s, sg_model_layer_count(model) == count, "%s: %zu slice layers, expected %zu", xml,
          sg_model_layer_count(model), count);
    return model;
}

/* The runtime-values model: its layers, then each call of typed_calls:
 * the layer's plan specialized for the call is the plan of the words with
 * the numbers typed in. */
static void check_runtime(suite *s)
{
    char xml[512];
    sg_model *model = read_variant(s, "runtime-values", NRUNTIME, xml, sizeof xml);
    if (model == NULL)
        return;
    size_t n = sg_model_layer_count(model);
    for (size_t i = 0; i < n && i < NRUNTIME; i++)
        check_layer(s, xml, sg_model_layer_at(model, i), &runtime[i], runtime[i].skip);
    for (size_t c = 0; c < sizeof typed_calls / sizeof typed_calls[0]; c++) {
        const struct typed_call *call = &typed_calls[c];
        const sg_model_layer *l = NULL;
        for (size_t i = 0; i < n && l == NULL; i++)
            if (strcmp(sg_model_layer_at(model, i)->name, call->layer) == 0)
                l = sg_model_layer_at(model, i);
        sg_plan *plan = NULL, *specialized = NULL, *typed = NULL;
        if (!CHECK(s, l != NULL && l->spec != NULL, "%s: no layer '%s' with a spec", xml, call->layer) ||
            !CHECK(s, sg_plan_create(s->ctx, l->spec, l->rank, l->shape, l->dtype, &plan) == SG_OK,
                   "%s: layer '%s' does not plan: %s", xml, call->layer, sg_context_last_error(s->ctx)))
            continue;
        if (CHECK(s, sg_plan_specialize(s->ctx, plan, call->in_shape, call->values, &specialized) == SG_OK,
                  "%s: layer '%s', call %zu: %s", xml, call->layer, c, sg_context_last_error(s->ctx))) {
            typed = plan_words(s, call->words, l->rank, call->in_shape, l->dtype);
            CHECK(s, typed != NULL && same_plans(specialized, typed),
                  "%s: layer '%s', call %zu: the specialized plan is not that of '%s' (%s)", xml, call->layer, c,
                  call->words, typed ? "plans differ" : sg_context_last_error(s->ctx));
        }
        sg_plan_destroy(typed);
        sg_plan_destroy(specialized);
        sg_plan_destroy(plan);
    }
    sg_model_destroy(model);
}

/* The infer model: its layers as `infer` says. */
static void check_infer(suite *s)
{
    char xml[512];
    sg_model *model = read_variant(s, "infer", NINFER, xml, sizeof xml);
    if (model == NULL)
        return;
    for (size_t i = 0; i < sg_model_layer_count(model) && i < NINFER; i++)
        check_layer(s, xml, sg_model_layer_at(model, i), &infer[i], infer[i].skip);
    CHECK(s, sg_model_folded_count(model) == 1, "%s: %zu slices folded as shape arithmetic, expected 1", xml,
          sg_model_folded_count(model));
    sg_model_destroy(model);
}

/* The committed example is what the generator writes now. */
static void check_committed(suite *s)
{
    static const char *const ext[] = {".xml", ".bin"};
    for (int k = 0; k < 2; k++) {
        char committed[512], fresh[512];
        size_t n1 = 0, n2 = 0;
        snprintf(committed, sizeof committed, "%s/examples/model/model%s", s->src, ext[k]);
        path_of(s, "model", ext[k], fresh, sizeof fresh);
        char *a = slurp(committed, &n1), *b = slurp(fresh, &n2);
        CHECK(s, a != NULL && b != NULL && n1 == n2 && memcmp(a, b, n1) == 0,
              "%s differs from what make_model.py writes (run: python3 examples/model/make_model.py "
              "examples/model)",
              committed);
        free(a);
        free(b);
    }
}

/* The input every check gives a layer (make_model.py's pattern()):
 * element i is (7 i + 3) mod 251, as a u8 or an f32. NULL for other types. */
static void *pattern(sg_dtype dtype, int64_t count)
{
    void *in = malloc(count > 0 ? (size_t)count * sg_dtype_size(dtype) : 1);
    for (int64_t i = 0; in != NULL && i < count; i++) {
        if (dtype == SG_U8)
            ((uint8_t *)in)[i] = (uint8_t)((7 * i + 3) % 251);
        else if (dtype == SG_F32)
            ((float *)in)[i] = (float)((7 * i + 3) % 251);
    }
    if (dtype != SG_U8 && dtype != SG_F32) {
        free(in);
        return NULL;
    }
    return in;
}

/* The ops model: every layer as `ops` says; then each static layer with
 * an expected output (make_model.py's <name>.out, computed by OpenVINO's
 * reference rules) gives that output through the reference interpreter. */
static void check_ops(suite *s)
{
    char xml[512], path[512];
    sg_model *model = read_variant(s, "ops", NOPS, xml, sizeof xml);
    if (model == NULL)
        return;
    size_t n = sg_model_layer_count(model), compared = 0, files = 0;
    for (size_t i = 0; i < n && i < NOPS; i++)
        check_layer(s, xml, sg_model_layer_at(model, i), &ops[i], ops[i].skip);
    for (size_t i = 0; i < n; i++) {
        const sg_model_layer *l = sg_model_layer_at(model, i);
        char stem[256];
        size_t size = 0, first = i, last = i; /* output k of a Split: <name>_k.out */
        while (first > 0 && sg_model_layer_at(model, first - 1)->id == l->id)
            first--;
        while (last + 1 < n && sg_model_layer_at(model, last + 1)->id == l->id)
            last++;
        if (first == last)
            snprintf(stem, sizeof stem, "%s", l->name);
        else
            snprintf(stem, sizeof stem, "%s_%zu", l->name, i - first);
        for (char *c = stem; *c; c++)
            *c = *c == '/' ? '-' : *c;
        path_of(s, stem, ".out", path, sizeof path);
        char *want = slurp(path, &size);
        sg_plan *plan = NULL;
        if (want == NULL)
            continue;
        compared++;
        int64_t count = 1;
        for (size_t a = 0; a < l->rank; a++)
            count *= l->shape[a];
        void *in = pattern(l->dtype, count), *got = malloc(size + 1);
        if (CHECK(s, l->spec != NULL && in != NULL && got != NULL, "%s: layer '%s' has no spec or input", xml,
                  l->name) &&
            CHECK(s, sg_plan_create(s->ctx, l->spec, l->rank, l->shape, l->dtype, &plan) == SG_OK,
                  "%s: layer '%s' does not plan: %s", xml, l->name, sg_context_last_error(s->ctx)) &&
            CHECK(s, sg_plan_output_bytes(plan) == size, "%s: layer '%s' gives %llu bytes, OpenVINO %zu", xml,
                  l->name, (unsigned long long)sg_plan_output_bytes(plan), size) &&
            CHECK(s, sg_run_reference(s->ctx, plan, in, got) == SG_OK, "%s: layer '%s' does not run: %s", xml,
                  l->name, sg_context_last_error(s->ctx)))
            CHECK(s, memcmp(got, want, size) == 0, "%s: layer '%s' differs from OpenVINO's output", xml,
                  l->name);
        sg_plan_destroy(plan);
        free(in);
        free(got);
        free(want);
    }
    DIR *d = opendir(s->dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        files += len > 4 && strcmp(e->d_name + len - 4, ".out") == 0;
    }
    if (d != NULL)
        closedir(d);
    CHECK(s, compared == files && files > 0, "%s: %zu expected outputs compared of %zu", xml, compared,
          files);
    sg_model_destroy(model);
}

static void check_scale(suite *s)
{
    char xml[512];
    sg_model *model = read_variant(s, "scale-500", 500, xml, sizeof xml);
    if (model == NULL)
        return;
    size_t n = sg_model_layer_count(model);
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        const sg_model_layer *l = sg_model_layer_at(model, k);
        char name[32], words[512], out[32];
        int64_t row = (int64_t)(k % 64), step = 1 + (int64_t)(k % 3);
        snprintf(name, sizeof name, "slice_%zu", k);
        snprintf(words, sizeof words,
                 "--op StridedSlice --begin %lld,0 --end %lld,64 --stride 1,%lld --begin-mask 0,0 --end-mask "
                 "0,0" SS_MASKS0("0,0"),
                 (long long)row, (long long)row + 1, (long long)step);
        snprintf(out, sizeof out, "1,%lld", (long long)((64 + step - 1) / step));
        expect e = {name, 4 * (int64_t)k + 4, "StridedSlice", "64,64", "f32", words, out, NULL, NULL};
        int before = s->counts.failed;
        check_layer(s, xml, l, &e, NULL);
        bad += s->counts.failed != before;
        if (bad > 3)
            break; /* enough to see what is wrong */
    }
    sg_model_destroy(model);
}

static void check_faults(suite *s)
{
    for (size_t i = 0; i < NFAULTS; i++) {
        const struct fault *f = &faults[i];
        char xml[512], head[600];
        sg_model *model = (sg_model *)&faults; /* must stay untouched */
        path_of(s, f->name, ".xml", xml, sizeof xml);
        sg_status st = sg_model_read(s->ctx, xml, NULL, &model);
        char msg[600];
        snprintf(msg, sizeof msg, "%s", sg_context_last_error(s->ctx));
        if (!CHECK(s, st == SG_ERR_IO, "%s: status %s, expected io (%s)", f->name, sg_status_name(st), msg))
            continue;
        CHECK(s, model == (sg_model *)&faults, "%s: the output was written on failure", f->name);
        snprintf(head, sizeof head, "failed to read model '%s': ", xml);
        CHECK(s, strncmp(msg, head, strlen(head)) == 0, "%s: message does not start with \"%s\": %s", f->name,
              head, msg);
        CHECK(s, strchr(msg, '\n') == NULL, "%s: message is not one line: %s", f->name, msg);
        for (int k = 0; k < 4 && f->parts[k] != NULL; k++)
            CHECK(s, strstr(msg, f->parts[k]) != NULL, "%s: message lacks \"%s\": %s", f->name, f->parts[k],
                  msg);
    }
}

/* Explicit weights paths and misuse of the API. */
static void check_api(suite *s)
{
    char xml[512], weights[512];
    sg_model *model = NULL;
    path_of(s, "model", ".xml", xml, sizeof xml);
    snprintf(weights, sizeof weights, "%s/examples/model/model.bin", s->src);
    check_example(s, xml, weights, false);

    path_of(s, "model", ".weights", weights, sizeof weights);
    CHECK(s,
          sg_model_read(s->ctx, xml, weights, &model) == SG_ERR_IO &&
              strstr(sg_context_last_error(s->ctx), "model.weights") != NULL,
          "a missing explicit weights file: %s", sg_context_last_error(s->ctx));
    CHECK(s, sg_model_read(s->ctx, NULL, NULL, &model) == SG_ERR_USAGE, "a NULL path is accepted");
    CHECK(s, sg_model_layer_count(NULL) == 0 && sg_model_layer_at(NULL, 0) == NULL, "NULL model accessors");
    sg_model_destroy(NULL);
}

/* Every fault the generator wrote has a row in `faults`. */
static void check_fault_list(suite *s)
{
    DIR *d = opendir(s->dir);
    size_t xml_files = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        xml_files += n > 4 && strcmp(e->d_name + n - 4, ".xml") == 0;
    }
    if (d != NULL)
        closedir(d);
    size_t expected = NFAULTS + PLAIN_MODELS;
    CHECK(s, xml_files == expected, "make_model.py --all wrote %zu models, the test knows %zu", xml_files,
          expected);
}

int main(int argc, char **argv)
{
    suite s = {.counts = CHECK_COUNTS_INIT};
    if (argc != 2) {
        fprintf(stderr, "usage: test_model SOURCE_DIR\n");
        return 2;
    }
    s.src = argv[1];
    const char *tmp = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/sg-model-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(s.dir) == NULL) {
        printf("model: cannot make a temporary folder in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
               strerror(errno));
        return 1;
    }
    int status = generate(&s);
    if (status == 127) {
        printf("model: skipped: python3 is not in PATH (needed to run examples/model/make_model.py)\n");
        remove_dir(s.dir);
        return 77;
    }
    if (status != 0) {
        printf("model: make_model.py failed (exit status %d)\n", status);
        remove_dir(s.dir);
        return 1;
    }
    if (sg_context_create(&s.ctx) != SG_OK)
        return 1;

    /* Nothing below may print: libxml2 reports to the reader, not stderr. */
    char err_path[512];
    path_of(&s, "stderr", ".txt", err_path, sizeof err_path);
    fflush(stderr);
    int saved = dup(2), capture = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved >= 0 && capture >= 0)
        dup2(capture, 2);

    char xml[512];
    path_of(&s, "model", ".xml", xml, sizeof xml);
    check_example(&s, xml, NULL, false);
    path_of(&s, "model-v10", ".xml", xml, sizeof xml);
    check_example(&s, xml, NULL, false);
    path_of(&s, "model-noprec", ".xml", xml, sizeof xml);
    check_example(&s, xml, NULL, true);
    check_committed(&s);
    check_scale(&s);
    check_runtime(&s);
    check_infer(&s);
    check_ops(&s);
    check_faults(&s);
    check_api(&s);
    check_fault_list(&s);

    fflush(stderr);
    if (saved >= 0 && capture >= 0) {
        dup2(saved, 2);
        close(saved);
        close(capture);
        size_t n = 0;
        char *printed = slurp(err_path, &n);
        CHECK(&s, printed != NULL && n == 0, "something was printed to stderr: %.300s",
              printed ? printed : "?");
        free(printed);
    }
    sg_context_destroy(s.ctx);
    remove_dir(s.dir);
    return finish("model", &s.counts);
}

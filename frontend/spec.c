/* sg_spec: construction from the C API, validation of what needs no input
 * shape, printing in command-line form (a NumPy expression or program as
 * its text). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

const char *sg_op_name(sg_op op)
{
    switch (op) {
    case SG_OP_STRIDED_SLICE:
        return "StridedSlice";
    case SG_OP_SLICE:
        return "Slice";
    case SG_OP_TRT_SLICE:
        return "TrtSlice";
    case SG_OP_NUMPY:
        return "NumPy";
    case SG_OP_ONNX_SLICE:
        return "OnnxSlice";
    case SG_OP_PAD:
        return "Pad";
    case SG_OP_SPLIT:
        return "Split";
    case SG_OP_PROGRAM:
        return "NumPy program";
    }
    return "?";
}

/* The modes' names (common/modes.def), indexed by sg_trt_mode. */
static const struct {
    const char *tensorrt, *pad, *numpy;
} modes[] = {
#define SG_MODE(id, tensorrt, pad, numpy) {tensorrt, pad, numpy},
#include "../common/modes.def"
#undef SG_MODE
};
enum {
#define SG_MODE(id, ...) id##_ROW,
#include "../common/modes.def"
#undef SG_MODE
    MODE_ROWS
};
#define SG_MODE(id, ...)                                                                                     \
    _Static_assert((int)id##_ROW == (int)id, #id " is out of sg_trt_mode's order in modes.def");
#include "../common/modes.def"
#undef SG_MODE

const char *sg_trt_mode_name(sg_trt_mode mode)
{
    return (unsigned)mode < MODE_ROWS ? modes[mode].tensorrt : NULL;
}

bool sg_trt_mode_parse(const char *name, sg_trt_mode *mode)
{
    for (int m = 0; m < MODE_ROWS; m++) {
        if (modes[m].tensorrt != NULL && strcmp(name, modes[m].tensorrt) == 0) {
            *mode = (sg_trt_mode)m;
            return true;
        }
    }
    return false;
}

const char *sg_pad_mode_name(sg_trt_mode mode)
{
    return (unsigned)mode < MODE_ROWS ? modes[mode].pad : NULL;
}

bool sg_pad_mode_parse(const char *name, sg_trt_mode *mode)
{
    for (int m = 0; m < MODE_ROWS; m++) {
        if (modes[m].pad != NULL && strcmp(name, modes[m].pad) == 0) {
            *mode = (sg_trt_mode)m;
            return true;
        }
    }
    return false;
}

const char *sg_numpy_pad_mode_name(sg_trt_mode mode)
{
    return (unsigned)mode < MODE_ROWS ? modes[mode].numpy : NULL;
}

bool sg_numpy_pad_mode_parse(const char *text, size_t len, sg_trt_mode *mode)
{
    for (int m = 0; m < MODE_ROWS; m++) {
        if (modes[m].numpy != NULL && strlen(modes[m].numpy) == len &&
            memcmp(text, modes[m].numpy, len) == 0) {
            *mode = (sg_trt_mode)m;
            return true;
        }
    }
    return false;
}

/* Whether the op keeps Slice-8's entries (spec->axes). */
static bool slice_like(sg_op op)
{
    return op == SG_OP_SLICE || op == SG_OP_ONNX_SLICE;
}

/* The bytes of one entry of the array an op uses. */
static size_t entry_size(sg_op op)
{
    return slice_like(op)          ? sizeof(sg_slice_axis)
           : op == SG_OP_TRT_SLICE ? sizeof(sg_trt_dim)
           : op == SG_OP_PAD       ? sizeof(sg_pad_axis)
           : op == SG_OP_SPLIT     ? sizeof(sg_split_size)
                                   : sizeof(sg_ss_step);
}

/* The array the spec's op uses. */
static void *entries(const sg_spec *spec)
{
    return slice_like(spec->op)          ? (void *)spec->axes
           : spec->op == SG_OP_TRT_SLICE ? (void *)spec->dims
           : spec->op == SG_OP_PAD       ? (void *)spec->pads
           : spec->op == SG_OP_SPLIT     ? (void *)spec->sizes
                                         : (void *)spec->steps;
}

/* One list of an op, as printed: its option, and where an entry keeps the number (an
 * int64_t at offset `at`, a bool when `flag`) and its value reference (a
 * uint16_t at offset `ref`; 0 when the list takes no values). */
typedef struct list_field {
    const char *option;
    size_t at, ref;
    bool flag;
} list_field;

#define NUMBER(type, option, field)                                                                          \
    {                                                                                                        \
        option, offsetof(type, field), offsetof(type, field##_value), false                                  \
    }
#define FLAG(option, field)                                                                                  \
    {                                                                                                        \
        option, offsetof(sg_ss_step, field), 0, true                                                         \
    }

/* Per op, its lists in the order printed: the three that take values
 * first (Pad: two), then Slice's and Pad's axes, which take values too but
 * are printed only where given. They cover every field of an entry. */
static const list_field ss_lists[] = {
    NUMBER(sg_ss_step, "--begin", begin),   NUMBER(sg_ss_step, "--end", end),
    NUMBER(sg_ss_step, "--stride", stride), FLAG("--begin-mask", begin_mask),
    FLAG("--end-mask", end_mask),           FLAG("--new-axis-mask", new_axis),
    FLAG("--shrink-axis-mask", shrink),     FLAG("--ellipsis-mask", ellipsis),
};
static const list_field slice_lists[] = {
    NUMBER(sg_slice_axis, "--start", start),
    NUMBER(sg_slice_axis, "--stop", stop),
    NUMBER(sg_slice_axis, "--step", step),
    NUMBER(sg_slice_axis, "--axes", axis),
};
static const list_field trt_lists[] = {
    NUMBER(sg_trt_dim, "--start", start),
    NUMBER(sg_trt_dim, "--size", size),
    NUMBER(sg_trt_dim, "--stride", stride),
};
static const list_field pad_lists[] = {
    NUMBER(sg_pad_axis, "--pads-begin", begin),
    NUMBER(sg_pad_axis, "--pads-end", end),
    NUMBER(sg_pad_axis, "--axes", axis),
};
static const list_field split_lists[] = {
    NUMBER(sg_split_size, "--split", size),
};

/* Entry i's number and reference of list f. */
static int64_t list_number(const sg_spec *spec, const list_field *f, size_t i, uint16_t *ref)
{
    const char *entry = (const char *)entries(spec) + i * entry_size(spec->op);
    int64_t number = 0;
    bool flag;
    if (f->flag) {
        memcpy(&flag, entry + f->at, sizeof flag);
        number = flag;
    } else {
        memcpy(&number, entry + f->at, sizeof number);
    }
    *ref = 0;
    if (f->ref != 0)
        memcpy(ref, entry + f->ref, sizeof *ref);
    return number;
}

/* The op's lists (*count of them), the first *valued of which take values
 * and are always printed (axes, after them, may take values as well). */
static const list_field *op_lists(sg_op op, size_t *count, size_t *valued)
{
    *valued = 3;
    switch (op) {
    case SG_OP_SLICE:
    case SG_OP_ONNX_SLICE:
        *count = sizeof slice_lists / sizeof *slice_lists;
        return slice_lists;
    case SG_OP_TRT_SLICE:
        *count = sizeof trt_lists / sizeof *trt_lists;
        return trt_lists;
    case SG_OP_PAD:
        *count = sizeof pad_lists / sizeof *pad_lists;
        *valued = 2;
        return pad_lists;
    case SG_OP_SPLIT:
        *count = *valued = 1;
        return split_lists;
    case SG_OP_STRIDED_SLICE:
    case SG_OP_NUMPY:
    case SG_OP_PROGRAM: /* no entries (len 0) */
        break;
    }
    *count = sizeof ss_lists / sizeof *ss_lists;
    return ss_lists;
}

/* Allocates a spec with `len` zeroed entries in the array its op uses. */
static sg_spec *spec_alloc(sg_op op, size_t len)
{
    sg_spec *spec = calloc(1, sizeof *spec);
    void *items = calloc(len ? len : 1, entry_size(op));
    if (spec == NULL || items == NULL) {
        free(spec);
        free(items);
        return NULL;
    }
    spec->op = op;
    spec->len = len;
    if (slice_like(op))
        spec->axes = items;
    else if (op == SG_OP_TRT_SLICE)
        spec->dims = items;
    else if (op == SG_OP_PAD)
        spec->pads = items;
    else if (op == SG_OP_SPLIT)
        spec->sizes = items;
    else
        spec->steps = items;
    return spec;
}

void sg_spec_free(sg_spec *spec)
{
    if (spec == NULL)
        return;
    free(spec->steps);
    free(spec->axes);
    free(spec->dims);
    free(spec->pads);
    free(spec->sizes);
    sg_prog_free(spec->prog);
    free(spec->program);
    sg_value_table_free(&(sg_value_table){spec->nvalues, spec->values});
    free(spec);
}

/* Gives spec copies of the names; fails (and frees spec) for lack of memory. */
static sg_status copy_names(sg_spec *spec, size_t count, char *const *names, sg_error *err)
{
    sg_value_table table = {0};
    for (size_t k = 0; k < count; k++) {
        uint16_t ref;
        const char *why;
        if (sg_value_table_ref(&table, names[k], strlen(names[k]), &ref, &why) != SG_OK) {
            sg_fail(err, SG_ERR_NOMEM, "failed to make %s: out of memory", sg_op_name(spec->op));
            sg_value_table_free(&table);
            sg_spec_free(spec);
            return SG_ERR_NOMEM;
        }
    }
    spec->nvalues = table.count;
    spec->values = table.names;
    return SG_OK;
}

/* A constructor's last step: the names of `values`, the checks, *out. */
static sg_status finish(sg_spec *spec, const sg_value_refs *values, sg_spec **out, sg_error *err)
{
    if (values != NULL && values->table != NULL &&
        copy_names(spec, values->table->count, values->table->names, err) != SG_OK)
        return err->status;
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
}

/* The reference of item i of number list l (0: written in). */
static uint16_t ref_of(const sg_value_refs *values, int l, size_t i)
{
    return values != NULL && values->refs[l] != NULL ? values->refs[l][i] : 0;
}

/* Item i of number list l as the spec keeps it: 0 when it is a value, and
 * `absent` when the list is not given. */
static int64_t number_of(const int64_t *list, const sg_value_refs *values, int l, size_t i, int64_t absent)
{
    return list == NULL ? absent : ref_of(values, l, i) ? 0 : list[i];
}

static sg_status check_mask(const sg_mask *mask, const char *name, sg_error *err)
{
    if (mask->len > 0 && mask->bits == NULL)
        return sg_fail(err, SG_ERR_USAGE, "failed to make StridedSlice: %s has length %zu but no values",
                       name, mask->len);
    for (size_t i = 0; i < mask->len; i++)
        if (mask->bits[i] != 0 && mask->bits[i] != 1)
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make StridedSlice: mask values must be 0 or 1 (%s[%zu] = %lld)", name,
                           i, (long long)mask->bits[i]);
    return SG_OK;
}

static bool mask_bit(const sg_mask *mask, size_t i)
{
    return i < mask->len && mask->bits[i] == 1;
}

sg_status sg_spec_make_strided_slice(const sg_strided_slice_args *a, const sg_value_refs *values,
                                     sg_spec **out, sg_error *err)
{
    const sg_mask *masks[5] = {&a->begin_mask, &a->end_mask, &a->new_axis_mask, &a->shrink_axis_mask,
                               &a->ellipsis_mask};
    static const char *const mask_names[5] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                                              "ellipsis_mask"};
    if (a->len > 0 && (a->begin == NULL || a->end == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make StridedSlice: begin and end are required");
    for (int m = 0; m < 5; m++)
        if (check_mask(masks[m], mask_names[m], err) != SG_OK)
            return err->status;
    size_t ellipses = 0;
    for (size_t i = 0; i < a->len; i++) {
        if (a->stride != NULL && a->stride[i] == 0 && !ref_of(values, 2, i))
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make StridedSlice: stride must not be zero (stride[%zu] = 0)", i);
        ellipses += mask_bit(&a->ellipsis_mask, i);
    }
    if (ellipses > 1)
        return sg_fail(
            err, SG_ERR_SPEC,
            "failed to make StridedSlice: at most one ellipsis is allowed (ellipsis_mask has %zu bits set)",
            ellipses);
    sg_spec *spec = spec_alloc(SG_OP_STRIDED_SLICE, a->len);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make StridedSlice: out of memory");
    for (size_t i = 0; i < a->len; i++) {
        spec->steps[i] = (sg_ss_step){
            .begin = number_of(a->begin, values, 0, i, 0),
            .end = number_of(a->end, values, 1, i, 0),
            .stride = number_of(a->stride, values, 2, i, 1),
            .begin_mask = mask_bit(&a->begin_mask, i),
            .end_mask = mask_bit(&a->end_mask, i),
            .new_axis = mask_bit(&a->new_axis_mask, i),
            .shrink = mask_bit(&a->shrink_axis_mask, i),
            .ellipsis = mask_bit(&a->ellipsis_mask, i),
            .begin_value = ref_of(values, 0, i),
            .end_value = ref_of(values, 1, i),
            .stride_value = ref_of(values, 2, i),
        };
    }
    return finish(spec, values, out, err);
}

/* Slice-8 or ONNX Slice. */
static sg_status make_slice(sg_op op, size_t len, const int64_t *start, const int64_t *stop,
                            const int64_t *step, const int64_t *axes, const sg_value_refs *values,
                            sg_spec **out, sg_error *err)
{
    const char *name = sg_op_name(op);
    if (len > 0 && (start == NULL || stop == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make %s: start and stop are required", name);
    for (size_t i = 0; i < len; i++)
        if (step != NULL && step[i] == 0 && !ref_of(values, 2, i))
            return sg_fail(err, SG_ERR_SPEC, "failed to make %s: step must not be zero (step[%zu] = 0)", name,
                           i);
    sg_spec *spec = spec_alloc(op, len);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make %s: out of memory", name);
    spec->axes_given = axes != NULL;
    for (size_t i = 0; i < len; i++)
        spec->axes[i] = (sg_slice_axis){
            .start = number_of(start, values, 0, i, 0),
            .stop = number_of(stop, values, 1, i, 0),
            .step = number_of(step, values, 2, i, 1),
            .axis = axes ? number_of(axes, values, 3, i, 0) : (int64_t)i,
            .start_value = ref_of(values, 0, i),
            .stop_value = ref_of(values, 1, i),
            .step_value = ref_of(values, 2, i),
            .axis_value = ref_of(values, 3, i),
        };
    return finish(spec, values, out, err);
}

sg_status sg_spec_make_slice(size_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                             const int64_t *axes, const sg_value_refs *values, sg_spec **out, sg_error *err)
{
    return make_slice(SG_OP_SLICE, len, start, stop, step, axes, values, out, err);
}

sg_status sg_spec_make_onnx_slice(size_t len, const int64_t *start, const int64_t *stop, const int64_t *step,
                                  const int64_t *axes, const sg_value_refs *values, sg_spec **out,
                                  sg_error *err)
{
    return make_slice(SG_OP_ONNX_SLICE, len, start, stop, step, axes, values, out, err);
}

sg_status sg_spec_make_pad(size_t len, const int64_t *begin, const int64_t *end, const int64_t *axes,
                           sg_trt_mode mode, const sg_scalar *fill, const sg_value_refs *values,
                           sg_spec **out, sg_error *err)
{
    if (len > 0 && (begin == NULL || end == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make Pad: pads_begin and pads_end are required");
    if (sg_pad_mode_name(mode) == NULL)
        return sg_fail(err, SG_ERR_USAGE, "failed to make Pad: unknown mode %d", (int)mode);
    sg_spec *spec = spec_alloc(SG_OP_PAD, len);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make Pad: out of memory");
    spec->axes_given = axes != NULL;
    spec->mode = mode;
    spec->fill_value = values != NULL && mode == SG_TRT_FILL ? values->fill : 0;
    spec->fill = fill && !spec->fill_value ? *fill : (sg_scalar){.kind = SG_SCALAR_INT};
    for (size_t i = 0; i < len; i++)
        spec->pads[i] = (sg_pad_axis){
            .begin = number_of(begin, values, 0, i, 0),
            .end = number_of(end, values, 1, i, 0),
            .axis = axes ? number_of(axes, values, 3, i, 0) : (int64_t)i,
            .begin_value = ref_of(values, 0, i),
            .end_value = ref_of(values, 1, i),
            .axis_value = ref_of(values, 3, i),
        };
    return finish(spec, values, out, err);
}

sg_status sg_spec_make_trt_slice(size_t len, const int64_t *start, const int64_t *size, const int64_t *stride,
                                 sg_trt_mode mode, const sg_scalar *fill, const sg_value_refs *values,
                                 sg_spec **out, sg_error *err)
{
    if (len > 0 && (start == NULL || size == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make TrtSlice: start and size are required");
    if ((unsigned)mode > SG_TRT_REFLECT)
        return sg_fail(err, SG_ERR_USAGE, "failed to make TrtSlice: unknown mode %d", (int)mode);
    for (size_t i = 0; i < len; i++)
        if (size[i] < 0 && !ref_of(values, 1, i))
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make TrtSlice: size must not be negative (size[%zu] = %lld)", i,
                           (long long)size[i]);
    sg_spec *spec = spec_alloc(SG_OP_TRT_SLICE, len);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make TrtSlice: out of memory");
    spec->mode = mode;
    spec->fill_value = values != NULL && mode == SG_TRT_FILL ? values->fill : 0;
    spec->fill = fill && !spec->fill_value ? *fill : (sg_scalar){.kind = SG_SCALAR_INT};
    for (size_t i = 0; i < len; i++)
        spec->dims[i] = (sg_trt_dim){
            .start = number_of(start, values, 0, i, 0),
            .size = number_of(size, values, 1, i, 0),
            .stride = number_of(stride, values, 2, i, 1),
            .start_value = ref_of(values, 0, i),
            .size_value = ref_of(values, 1, i),
            .stride_value = ref_of(values, 2, i),
        };
    return finish(spec, values, out, err);
}

sg_status sg_spec_make_split(size_t len, const int64_t *sizes, int64_t axis, size_t output,
                             const sg_value_refs *values, sg_spec **out, sg_error *err)
{
    if (len == 0)
        return sg_fail(err, SG_ERR_SPEC, "failed to make Split: split needs at least one size");
    if (sizes == NULL)
        return sg_fail(err, SG_ERR_USAGE, "failed to make Split: split is required");
    if (output >= len)
        return sg_fail(err, SG_ERR_SPEC, "failed to make Split: output %zu is out of range for %zu sizes", output, len);
    for (size_t i = 0; i < len; i++)
        if (sizes[i] < 0 && !ref_of(values, 0, i))
            return sg_fail(err, SG_ERR_SPEC, "failed to make Split: split sizes must not be negative (split[%zu] = %lld)",
                           i, (long long)sizes[i]);
    sg_spec *spec = spec_alloc(SG_OP_SPLIT, len);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make Split: out of memory");
    spec->split_axis = axis;
    spec->split_output = output;
    for (size_t i = 0; i < len; i++)
        spec->sizes[i] = (sg_split_size){number_of(sizes, values, 0, i, 0), ref_of(values, 0, i)};
    return finish(spec, values, out, err);
}

sg_status sg_spec_make_split_parts(int64_t parts, sg_split_rule rule, int64_t axis, size_t output, sg_spec **out,
                                   sg_error *err)
{
    const char *option = rule == SG_SPLIT_CHUNKS ? "--chunks" : "--parts";
    if (rule == SG_SPLIT_SIZES)
        return sg_fail(err, SG_ERR_USAGE, "failed to make Split: parts need the rule of --parts or --chunks");
    if (parts < 1 || parts > SG_SPLIT_MAX_PARTS)
        return sg_fail(err, SG_ERR_SPEC, "failed to make Split: %s must be 1 to %d (it is %lld)", option,
                       SG_SPLIT_MAX_PARTS, (long long)parts);
    if (output >= (size_t)parts)
        return sg_fail(err, SG_ERR_SPEC, "failed to make Split: output %zu is out of range for %lld parts", output,
                       (long long)parts);
    sg_spec *spec = spec_alloc(SG_OP_SPLIT, (size_t)parts);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make Split: out of memory");
    spec->split_axis = axis;
    spec->split_output = output;
    spec->split_rule = rule;
    return finish(spec, NULL, out, err);
}

/* A program: its tree and text. */
static sg_status copy_program(const sg_spec *spec, sg_spec **out, sg_error *err)
{
    sg_spec *copy = calloc(1, sizeof *copy);
    if (copy != NULL) {
        copy->op = SG_OP_PROGRAM;
        copy->prog = sg_prog_copy(spec->prog);
        copy->program = strdup(spec->program);
    }
    if (copy == NULL || copy->prog == NULL || copy->program == NULL) {
        sg_spec_free(copy);
        return sg_fail(err, SG_ERR_NOMEM, "failed to copy a spec: out of memory");
    }
    if (copy_names(copy, spec->nvalues, spec->values, err) != SG_OK) /* frees copy */
        return err->status;
    *out = copy;
    return SG_OK;
}

sg_status sg_spec_copy(const sg_spec *spec, sg_spec **out, sg_error *err)
{
    if (spec->op == SG_OP_PROGRAM)
        return copy_program(spec, out, err);
    sg_spec *copy = spec_alloc(spec->op, spec->len);
    if (copy == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to copy a spec: out of memory");
    memcpy(entries(copy), entries(spec), spec->len * entry_size(spec->op));
    copy->axes_given = spec->axes_given;
    copy->mode = spec->mode;
    copy->fill = spec->fill;
    copy->fill_value = spec->fill_value;
    copy->split_axis = spec->split_axis;
    copy->split_output = spec->split_output;
    copy->split_rule = spec->split_rule;
    if (copy_names(copy, spec->nvalues, spec->values, err) != SG_OK)
        return err->status;
    *out = copy;
    return SG_OK;
}

/* Asserts that a number and its reference agree, marking the value used. */
static void check_ref(const sg_spec *spec, int64_t number, uint16_t ref, bool *used)
{
    assert(ref <= spec->nvalues);
    assert(ref == 0 || number == 0);
    if (ref != 0)
        used[ref - 1] = true;
    (void)spec, (void)number;
}

/* NumPy: values appear left to right (begin, end, stride of each step in
 * turn) and only where the text has a number. */
static void check_numpy_values(const sg_spec *spec)
{
    size_t next = 0;
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        uint16_t refs[3] = {s->begin_value, s->end_value, s->stride_value};
        assert(!(s->begin_mask && s->begin_value) && !(s->end_mask && s->end_value));
        assert(!s->shrink || (s->end_value == 0 && s->stride_value == 0));
        assert(!(s->new_axis || s->ellipsis) || (refs[0] | refs[1] | refs[2]) == 0);
        for (int r = 0; r < 3; r++) {
            assert(refs[r] <= next + 1);
            next += refs[r] == next + 1;
        }
    }
    (void)next;
}

static void check_values(const sg_spec *spec)
{
    bool used[SG_MAX_VALUES] = {0};
    assert(spec->nvalues <= SG_MAX_VALUES);
    assert((spec->nvalues == 0) == (spec->values == NULL));
    for (size_t k = 0; k < spec->nvalues; k++) {
        size_t len = strlen(spec->values[k]);
        assert(len <= SG_VALUE_NAME_MAX && len > 0 && sg_identifier_length(spec->values[k]) == len);
        for (size_t j = 0; j < k; j++)
            assert(strcmp(spec->values[j], spec->values[k]) != 0);
        (void)len;
    }
    size_t nlists, valued;
    const list_field *lists = op_lists(spec->op, &nlists, &valued);
    for (size_t l = 0; l < nlists; l++) {
        for (size_t i = 0; i < spec->len; i++) {
            uint16_t ref;
            int64_t number = list_number(spec, &lists[l], i, &ref);
            check_ref(spec, number, ref, used);
        }
    }
    if (spec->fill_value != 0) {
        assert(spec->mode == SG_TRT_FILL && spec->fill.kind == SG_SCALAR_INT && spec->fill.i == 0);
        check_ref(spec, 0, spec->fill_value, used);
    }
    for (size_t k = 0; k < spec->nvalues; k++)
        assert(used[k]);
    if (spec->op == SG_OP_NUMPY)
        check_numpy_values(spec);
}

void sg_spec_check(const sg_spec *spec)
{
    assert(spec != NULL);
    switch (spec->op) {
    case SG_OP_STRIDED_SLICE:
    case SG_OP_NUMPY: {
        assert(spec->steps != NULL);
        size_t ellipses = 0;
        for (size_t i = 0; i < spec->len; i++) {
            assert(spec->steps[i].stride != 0 || spec->steps[i].stride_value != 0);
            ellipses += spec->steps[i].ellipsis;
        }
        assert(ellipses <= 1);
        (void)ellipses;
        break;
    }
    case SG_OP_SLICE:
    case SG_OP_ONNX_SLICE:
        assert(spec->axes != NULL);
        for (size_t i = 0; i < spec->len; i++)
            assert(spec->axes[i].step != 0 || spec->axes[i].step_value != 0);
        break;
    case SG_OP_TRT_SLICE:
        assert(spec->dims != NULL);
        for (size_t i = 0; i < spec->len; i++)
            assert(spec->dims[i].size >= 0);
        break;
    case SG_OP_PAD:
        assert(spec->pads != NULL && sg_pad_mode_name(spec->mode) != NULL);
        break;
    case SG_OP_SPLIT:
        assert(spec->sizes != NULL && spec->split_output < spec->len);
        assert(spec->split_rule == SG_SPLIT_SIZES || spec->nvalues == 0);
        for (size_t i = 0; i < spec->len; i++)
            assert(spec->sizes[i].size >= 0);
        break;
    case SG_OP_PROGRAM:
        assert(spec->len == 0 && spec->prog != NULL && spec->program != NULL);
        assert(spec->steps == NULL && spec->axes == NULL && spec->dims == NULL && spec->pads == NULL);
        assert(spec->fill_value == 0);
        sg_prog_check(spec->prog);
        sg_program_check_values(spec); /* its names are its indices' */
        return;
    }
    check_values(spec);
}

bool sg_spec_same(const sg_spec *a, const sg_spec *b)
{
    if (a->op != b->op || a->len != b->len || a->nvalues != b->nvalues)
        return false;
    if (a->op == SG_OP_PROGRAM)
        return strcmp(a->program, b->program) == 0;
    for (size_t k = 0; k < a->nvalues; k++)
        if (strcmp(a->values[k], b->values[k]) != 0)
            return false;
    size_t nlists, valued;
    const list_field *lists = op_lists(a->op, &nlists, &valued);
    for (size_t l = 0; l < nlists; l++) {
        for (size_t i = 0; i < a->len; i++) {
            uint16_t x_ref, y_ref;
            if (list_number(a, &lists[l], i, &x_ref) != list_number(b, &lists[l], i, &y_ref) ||
                x_ref != y_ref)
                return false;
        }
    }
    if (a->axes_given != b->axes_given)
        return false;
    if (a->op == SG_OP_SPLIT && (a->split_axis != b->split_axis || a->split_output != b->split_output ||
                                 a->split_rule != b->split_rule))
        return false;
    if (a->op == SG_OP_TRT_SLICE || a->op == SG_OP_PAD) {
        char x[SG_SCALAR_TEXT], y[SG_SCALAR_TEXT];
        sg_scalar_format(&a->fill, x);
        sg_scalar_format(&b->fill, y);
        if (a->mode != b->mode || strcmp(x, y) != 0 || a->fill_value != b->fill_value)
            return false;
    }
    return true;
}

/* ---- printing ------------------------------------------------------------- */

/* Prints a number of the spec: as written in, or a runtime value's name,
 * or with `values` (binding) the number given for it. */
static void print_number(FILE *out, const sg_spec *spec, const int64_t *values, int64_t number, uint16_t ref)
{
    if (ref != 0 && values == NULL)
        fputs(spec->values[ref - 1], out);
    else
        fprintf(out, "%lld", (long long)(ref != 0 ? values[ref - 1] : number));
}

/* Prints " OPTION v0,v1,..." (" OPTION ''" when empty). */
static void print_list(FILE *out, const sg_spec *spec, const int64_t *values, const list_field *f)
{
    fprintf(out, " %s ", f->option);
    if (spec->len == 0)
        fputs("''", out);
    for (size_t i = 0; i < spec->len; i++) {
        uint16_t ref;
        int64_t number = list_number(spec, f, i, &ref);
        if (i)
            fputc(',', out);
        print_number(out, spec, values, number, ref);
    }
}

/* Values 0..*next - 1 are numbered already; if list f, read next, numbers
 * its new values *next, *next + 1, ... in turn, advances *next past them. */
static bool numbers_next(const sg_spec *spec, const list_field *f, size_t *next)
{
    size_t n = *next;
    for (size_t i = 0; i < spec->len; i++) {
        uint16_t ref;
        list_number(spec, f, i, &ref);
        if (ref == 0 || ref <= n)
            continue;
        if (ref != n + 1)
            return false;
        n++;
    }
    *next = n;
    return true;
}

static void print_fill(FILE *out, const sg_spec *spec, const int64_t *values, const char *option);

/* The option of a fill value (TrtSlice, Pad in FILL mode), or NULL. */
static const char *fill_option(const sg_spec *spec)
{
    if (spec->mode != SG_TRT_FILL || (spec->op != SG_OP_TRT_SLICE && spec->op != SG_OP_PAD))
        return NULL;
    return spec->op == SG_OP_PAD ? " --value " : " --fill ";
}

/* Prints the lists that take values (the first n) in an order whose words
 * number the values as the spec does: each turn the first list, in the
 * usual order, whose new values come next. The order of the words a spec
 * was read from is one such order, and taking any list that fits leaves
 * one for the rest, so the search never fails for a spec read from words
 * (a spec made otherwise gets the usual order where none fits). A fill
 * value named before some list's values is printed (its option and name)
 * in its turn too; true when it was. */
static bool print_value_lists(FILE *out, const sg_spec *spec, const int64_t *values, const list_field *lists,
                              size_t n)
{
    bool printed[4] = {false, false, false, false}, fill_printed = false;
    size_t next = 0;
    for (size_t turn = 0; turn < n; turn++) {
        size_t pick = n;
        for (size_t l = 0; l < n && pick == n; l++)
            if (!printed[l] && numbers_next(spec, &lists[l], &next))
                pick = l;
        if (pick == n && !fill_printed && spec->fill_value == next + 1 && fill_option(spec) != NULL) {
            print_fill(out, spec, values, fill_option(spec));
            fill_printed = true;
            next++;
            turn--; /* the lists still take their turns */
            continue;
        }
        for (size_t l = 0; l < n && pick == n; l++)
            if (!printed[l])
                pick = l;
        printed[pick] = true;
        print_list(out, spec, values, &lists[pick]);
    }
    return fill_printed;
}

static void print_numpy(const sg_spec *spec, const int64_t *values, FILE *out)
{
    fputc('[', out);
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        if (i)
            fputs(", ", out);
        if (s->new_axis)
            fputs("None", out);
        else if (s->shrink)
            print_number(out, spec, values, s->begin, s->begin_value);
        else if (s->ellipsis)
            fputs("...", out);
        else {
            if (!s->begin_mask)
                print_number(out, spec, values, s->begin, s->begin_value);
            fputc(':', out);
            if (!s->end_mask)
                print_number(out, spec, values, s->end, s->end_value);
            if (s->stride != 1 || s->stride_value != 0) {
                fputc(':', out);
                print_number(out, spec, values, s->stride, s->stride_value);
            }
        }
    }
    fputc(']', out);
}

/* The fill option and its value: the scalar, or the runtime value's name
 * (with `values`: its number, which sg_spec_bind reads back as bits). */
static void print_fill(FILE *out, const sg_spec *spec, const int64_t *values, const char *option)
{
    char text[SG_SCALAR_TEXT];
    fputs(option, out);
    if (spec->fill_value != 0) {
        print_number(out, spec, values, 0, spec->fill_value);
        return;
    }
    sg_scalar_format(&spec->fill, text);
    fputs(text, out);
}

/* sg_spec_print, with `values` written in for the names when not NULL. */
static void print_spec(const sg_spec *spec, const int64_t *values, FILE *out)
{
    size_t nlists, valued;
    const list_field *lists = op_lists(spec->op, &nlists, &valued);
    if (spec->op == SG_OP_NUMPY) {
        print_numpy(spec, values, out);
        return;
    }
    if (spec->op == SG_OP_PROGRAM) {
        if (values != NULL && spec->nvalues > 0)
            sg_program_print_values(spec, values, out);
        else
            fputs(spec->program, out);
        return;
    }
    fprintf(out, "--op %s", sg_op_name(spec->op));
    if (spec->op == SG_OP_SPLIT && spec->split_rule != SG_SPLIT_SIZES) {
        valued = 0; /* no --split list: --parts N or --chunks N */
        fprintf(out, " %s %zu", spec->split_rule == SG_SPLIT_PARTS ? "--parts" : "--chunks", spec->len);
    }
    bool axes = (slice_like(spec->op) || spec->op == SG_OP_PAD) && spec->axes_given;
    /* the axes list follows the valued ones */
    bool fill_printed = print_value_lists(out, spec, values, lists, valued + axes);
    switch (spec->op) {
    case SG_OP_STRIDED_SLICE:
        for (size_t l = valued; l < nlists; l++)
            print_list(out, spec, values, &lists[l]);
        return;
    case SG_OP_SLICE:
    case SG_OP_ONNX_SLICE:
    case SG_OP_PAD:
        if (spec->op == SG_OP_PAD) {
            fprintf(out, " --mode %s", sg_pad_mode_name(spec->mode));
            if (spec->mode == SG_TRT_FILL && !fill_printed)
                print_fill(out, spec, values, " --value ");
        }
        return;
    case SG_OP_SPLIT:
        fprintf(out, " --axis %lld --output %zu", (long long)spec->split_axis, spec->split_output);
        return;
    case SG_OP_TRT_SLICE:
        fprintf(out, " --mode %s", sg_trt_mode_name(spec->mode));
        if (spec->mode == SG_TRT_FILL && !fill_printed)
            print_fill(out, spec, values, " --fill ");
        return;
    case SG_OP_NUMPY:
    case SG_OP_PROGRAM:
        return;
    }
}

void sg_spec_print(const sg_spec *spec, FILE *out)
{
    print_spec(spec, NULL, out);
}

void sg_spec_print_values(const sg_spec *spec, const int64_t *values, FILE *out)
{
    print_spec(spec, values, out);
}

/* print_spec's text, malloc'd; NULL when out of memory. */
static char *spec_text(const sg_spec *spec, const int64_t *values)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    print_spec(spec, values, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *sg_spec_to_text(const sg_spec *spec)
{
    return spec_text(spec, NULL);
}

/* ---- binding values ------------------------------------------------------- */

/* The spec typed with the numbers is its text with them written in, read
 * again: the same reader gives the same checks and messages. */
sg_status sg_spec_bind(const sg_spec *spec, const int64_t *values, sg_spec **bound, sg_error *err)
{
    if (spec->nvalues == 0)
        return sg_spec_copy(spec, bound, err);
    char *text = spec_text(spec, values);
    char **words = NULL;
    int count = 0;
    sg_status status = SG_ERR_NOMEM;
    if (text != NULL && (spec->op == SG_OP_NUMPY || spec->op == SG_OP_PROGRAM)) {
        status = sg_spec_parse_numpy(text, bound, err);
    } else if (text != NULL) {
        size_t spaces = 0;
        for (const char *p = text; *p; p++)
            spaces += *p == ' ';
        words = malloc((spaces + 1) * sizeof *words);
        for (char *w = text, *end = text; words != NULL && w != NULL; w = end) {
            end = strchr(w, ' '); /* no word has spaces: numbers, op and mode names, scalars */
            if (end != NULL)
                *end++ = '\0';
            words[count++] = strcmp(w, "''") == 0 ? w + 2 : w;
        }
        if (words != NULL)
            status = sg_spec_parse_words(count, words, bound, err);
    }
    if (status == SG_ERR_NOMEM)
        sg_fail(err, SG_ERR_NOMEM, "failed to bind the runtime values of a spec: out of memory");
    else if (status == SG_OK && (spec->op == SG_OP_TRT_SLICE || spec->op == SG_OP_PAD) && !spec->fill_value)
        (*bound)->fill = spec->fill; /* exactly, not as printed and read */
    free(words);
    free(text);
    return status;
}

/* sg_spec: construction from the C API, validation of what needs no input
 * shape, printing in command-line form. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

const char *sg_op_name(sg_op op)
{
    switch (op) {
    case SG_OP_STRIDED_SLICE: return "StridedSlice";
    case SG_OP_SLICE: return "Slice";
    case SG_OP_TRT_SLICE: return "TrtSlice";
    case SG_OP_NUMPY: return "NumPy";
    }
    return "?";
}

static const char *const mode_names[] = {"strict", "wrap", "clamp", "fill", "reflect"};

const char *sg_trt_mode_name(sg_trt_mode mode)
{
    return (unsigned)mode < 5 ? mode_names[mode] : NULL;
}

int sg_trt_mode_parse(const char *name, sg_trt_mode *mode)
{
    for (int m = 0; m < 5; m++) {
        if (strcmp(name, mode_names[m]) == 0) {
            *mode = (sg_trt_mode)m;
            return 1;
        }
    }
    return 0;
}

/* Allocates a spec with `len` zeroed entries of `entry` bytes in *array. */
static sg_spec *spec_alloc(sg_op op, size_t len, size_t entry, void **array)
{
    sg_spec *spec = calloc(1, sizeof *spec);
    void *items = calloc(len ? len : 1, entry);
    if (spec == NULL || items == NULL) {
        free(spec);
        free(items);
        return NULL;
    }
    spec->op = op;
    spec->len = len;
    *array = items;
    return spec;
}

void sg_spec_free(sg_spec *spec)
{
    if (spec == NULL)
        return;
    free(spec->steps);
    free(spec->axes);
    free(spec->dims);
    free(spec);
}

static sg_status check_mask(const sg_mask *mask, const char *name, sg_error *err)
{
    if (mask->len > 0 && mask->bits == NULL)
        return sg_fail(err, SG_ERR_USAGE, "failed to make StridedSlice: %s has length %zu but no values",
                       name, mask->len);
    for (size_t i = 0; i < mask->len; i++)
        if (mask->bits[i] != 0 && mask->bits[i] != 1)
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make StridedSlice: mask values must be 0 or 1 (%s[%zu] = %lld)",
                           name, i, (long long)mask->bits[i]);
    return SG_OK;
}

static bool mask_bit(const sg_mask *mask, size_t i)
{
    return i < mask->len && mask->bits[i] == 1;
}

sg_status sg_spec_make_strided_slice(const sg_strided_slice_args *a, sg_spec **out, sg_error *err)
{
    const sg_mask *masks[5] = {&a->begin_mask, &a->end_mask, &a->new_axis_mask,
                               &a->shrink_axis_mask, &a->ellipsis_mask};
    static const char *const mask_names[5] = {"begin_mask", "end_mask", "new_axis_mask",
                                              "shrink_axis_mask", "ellipsis_mask"};
    if (a->len > 0 && (a->begin == NULL || a->end == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make StridedSlice: begin and end are required");
    for (int m = 0; m < 5; m++)
        if (check_mask(masks[m], mask_names[m], err) != SG_OK)
            return err->status;
    size_t ellipses = 0;
    for (size_t i = 0; i < a->len; i++) {
        if (a->stride != NULL && a->stride[i] == 0)
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make StridedSlice: stride must not be zero (stride[%zu] = 0)", i);
        ellipses += mask_bit(&a->ellipsis_mask, i);
    }
    if (ellipses > 1)
        return sg_fail(err, SG_ERR_SPEC,
                       "failed to make StridedSlice: at most one ellipsis is allowed (ellipsis_mask has %zu bits set)",
                       ellipses);
    void *array;
    sg_spec *spec = spec_alloc(SG_OP_STRIDED_SLICE, a->len, sizeof(sg_ss_step), &array);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make StridedSlice: out of memory");
    spec->steps = array;
    for (size_t i = 0; i < a->len; i++) {
        spec->steps[i] = (sg_ss_step){
            .begin = a->begin[i], .end = a->end[i], .stride = a->stride ? a->stride[i] : 1,
            .begin_mask = mask_bit(&a->begin_mask, i), .end_mask = mask_bit(&a->end_mask, i),
            .new_axis = mask_bit(&a->new_axis_mask, i), .shrink = mask_bit(&a->shrink_axis_mask, i),
            .ellipsis = mask_bit(&a->ellipsis_mask, i),
        };
    }
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
}

sg_status sg_spec_make_slice(size_t len, const int64_t *start, const int64_t *stop,
                             const int64_t *step, const int64_t *axes, sg_spec **out,
                             sg_error *err)
{
    if (len > 0 && (start == NULL || stop == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make Slice: start and stop are required");
    for (size_t i = 0; step != NULL && i < len; i++)
        if (step[i] == 0)
            return sg_fail(err, SG_ERR_SPEC, "failed to make Slice: step must not be zero (step[%zu] = 0)", i);
    void *array;
    sg_spec *spec = spec_alloc(SG_OP_SLICE, len, sizeof(sg_slice_axis), &array);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make Slice: out of memory");
    spec->axes = array;
    spec->axes_given = axes != NULL;
    for (size_t i = 0; i < len; i++)
        spec->axes[i] = (sg_slice_axis){start[i], stop[i], step ? step[i] : 1,
                                        axes ? axes[i] : (int64_t)i};
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
}

sg_status sg_spec_make_trt_slice(size_t len, const int64_t *start, const int64_t *size,
                                 const int64_t *stride, sg_trt_mode mode, const sg_scalar *fill,
                                 sg_spec **out, sg_error *err)
{
    if (len > 0 && (start == NULL || size == NULL))
        return sg_fail(err, SG_ERR_USAGE, "failed to make TrtSlice: start and size are required");
    if ((unsigned)mode > SG_TRT_REFLECT)
        return sg_fail(err, SG_ERR_USAGE, "failed to make TrtSlice: unknown mode %d", (int)mode);
    for (size_t i = 0; i < len; i++)
        if (size[i] < 0)
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make TrtSlice: size must not be negative (size[%zu] = %lld)", i,
                           (long long)size[i]);
    void *array;
    sg_spec *spec = spec_alloc(SG_OP_TRT_SLICE, len, sizeof(sg_trt_dim), &array);
    if (spec == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make TrtSlice: out of memory");
    spec->dims = array;
    spec->mode = mode;
    spec->fill = fill ? *fill : (sg_scalar){.kind = SG_SCALAR_INT};
    for (size_t i = 0; i < len; i++)
        spec->dims[i] = (sg_trt_dim){start[i], size[i], stride ? stride[i] : 1};
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
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
            assert(spec->steps[i].stride != 0);
            ellipses += spec->steps[i].ellipsis;
        }
        assert(ellipses <= 1);
        (void)ellipses;
        break;
    }
    case SG_OP_SLICE:
        assert(spec->axes != NULL);
        for (size_t i = 0; i < spec->len; i++)
            assert(spec->axes[i].step != 0);
        break;
    case SG_OP_TRT_SLICE:
        assert(spec->dims != NULL);
        for (size_t i = 0; i < spec->len; i++)
            assert(spec->dims[i].size >= 0);
        break;
    }
}

/* ---- printing ------------------------------------------------------------- */

/* Prints " OPTION v0,v1,..." with values taken by `get` from entry i. */
static void print_list(FILE *out, const char *option, const sg_spec *spec,
                       int64_t (*get)(const sg_spec *, size_t))
{
    fprintf(out, " %s ", option);
    if (spec->len == 0)
        fputs("''", out);
    for (size_t i = 0; i < spec->len; i++)
        fprintf(out, "%s%lld", i ? "," : "", (long long)get(spec, i));
}

static int64_t ss_begin(const sg_spec *s, size_t i) { return s->steps[i].begin; }
static int64_t ss_end(const sg_spec *s, size_t i) { return s->steps[i].end; }
static int64_t ss_stride(const sg_spec *s, size_t i) { return s->steps[i].stride; }
static int64_t ss_begin_mask(const sg_spec *s, size_t i) { return s->steps[i].begin_mask; }
static int64_t ss_end_mask(const sg_spec *s, size_t i) { return s->steps[i].end_mask; }
static int64_t ss_new_axis(const sg_spec *s, size_t i) { return s->steps[i].new_axis; }
static int64_t ss_shrink(const sg_spec *s, size_t i) { return s->steps[i].shrink; }
static int64_t ss_ellipsis(const sg_spec *s, size_t i) { return s->steps[i].ellipsis; }
static int64_t sl_start(const sg_spec *s, size_t i) { return s->axes[i].start; }
static int64_t sl_stop(const sg_spec *s, size_t i) { return s->axes[i].stop; }
static int64_t sl_step(const sg_spec *s, size_t i) { return s->axes[i].step; }
static int64_t sl_axis(const sg_spec *s, size_t i) { return s->axes[i].axis; }
static int64_t trt_start(const sg_spec *s, size_t i) { return s->dims[i].start; }
static int64_t trt_size(const sg_spec *s, size_t i) { return s->dims[i].size; }
static int64_t trt_stride(const sg_spec *s, size_t i) { return s->dims[i].stride; }

static void print_numpy(const sg_spec *spec, FILE *out)
{
    fputc('[', out);
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        if (i)
            fputs(", ", out);
        if (s->new_axis)
            fputs("None", out);
        else if (s->shrink)
            fprintf(out, "%lld", (long long)s->begin);
        else if (s->ellipsis)
            fputs("...", out);
        else {
            if (!s->begin_mask)
                fprintf(out, "%lld", (long long)s->begin);
            fputc(':', out);
            if (!s->end_mask)
                fprintf(out, "%lld", (long long)s->end);
            if (s->stride != 1)
                fprintf(out, ":%lld", (long long)s->stride);
        }
    }
    fputc(']', out);
}

void sg_spec_print(const sg_spec *spec, FILE *out)
{
    switch (spec->op) {
    case SG_OP_NUMPY:
        print_numpy(spec, out);
        return;
    case SG_OP_STRIDED_SLICE:
        fputs("--op StridedSlice", out);
        print_list(out, "--begin", spec, ss_begin);
        print_list(out, "--end", spec, ss_end);
        print_list(out, "--stride", spec, ss_stride);
        print_list(out, "--begin-mask", spec, ss_begin_mask);
        print_list(out, "--end-mask", spec, ss_end_mask);
        print_list(out, "--new-axis-mask", spec, ss_new_axis);
        print_list(out, "--shrink-axis-mask", spec, ss_shrink);
        print_list(out, "--ellipsis-mask", spec, ss_ellipsis);
        return;
    case SG_OP_SLICE:
        fputs("--op Slice", out);
        print_list(out, "--start", spec, sl_start);
        print_list(out, "--stop", spec, sl_stop);
        print_list(out, "--step", spec, sl_step);
        if (spec->axes_given)
            print_list(out, "--axes", spec, sl_axis);
        return;
    case SG_OP_TRT_SLICE: {
        fputs("--op TrtSlice", out);
        print_list(out, "--start", spec, trt_start);
        print_list(out, "--size", spec, trt_size);
        print_list(out, "--stride", spec, trt_stride);
        fprintf(out, " --mode %s", sg_trt_mode_name(spec->mode));
        if (spec->mode == SG_TRT_FILL) {
            char text[SG_SCALAR_TEXT];
            sg_scalar_format(&spec->fill, text);
            fprintf(out, " --fill %s", text);
        }
        return;
    }
    }
}

char *sg_spec_to_text(const sg_spec *spec)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    sg_spec_print(spec, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

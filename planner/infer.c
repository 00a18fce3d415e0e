/* Shape inference: spec + input shape -> per output dimension the input axis
 * and affine index (plan->map), shrunk axes (plan->fixed), counts and bytes.
 * Every invalid slice is rejected here; see docs/semantics.md. */
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* Ceil of a / b for a > 0, b > 0, without overflow. */
static int64_t ceil_div(int64_t a, int64_t b) { return (a - 1) / b + 1; }

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* OpenVINO's rule for one ordinary step (SEMANTICS.md StridedSlice 1, Slice-8 2). */
static sg_axis_map openvino_range(int axis, int64_t d, int64_t begin, bool begin_masked,
                                  int64_t end, bool end_masked, int64_t stride)
{
    sg_axis_map m = {.in_axis = axis, .start = 0, .step = stride, .count = 0};
    if (d == 0)
        return m;
    int64_t b, e;
    if (stride > 0) {
        b = begin_masked ? 0 : begin < 0 ? begin + d : begin;
        e = end_masked ? d : end < 0 ? end + d : end;
        b = clamp(b, 0, d);
        e = clamp(e, 0, d);
        m.count = e > b ? ceil_div(e - b, stride) : 0;
    } else {
        b = begin_masked ? d - 1 : begin < 0 ? begin + d : begin;
        e = end_masked ? -1 : end < 0 ? end + d : end;
        b = clamp(b, 0, d - 1);
        e = clamp(e, -1, d);
        m.count = b > e ? ceil_div(b - e, stride == INT64_MIN ? INT64_MAX : -stride) : 0;
    }
    m.start = m.count > 0 ? b : 0;
    return m;
}

/* Python's slice.indices() rule, for NumPy expressions. */
static sg_axis_map numpy_range(int axis, int64_t d, const sg_ss_step *s)
{
    sg_axis_map m = {.in_axis = axis, .start = 0, .step = s->stride, .count = 0};
    int64_t lo = s->stride > 0 ? 0 : -1, hi = s->stride > 0 ? d : d - 1;
    int64_t b = s->begin_mask ? (s->stride > 0 ? 0 : d - 1) : s->begin;
    int64_t e = s->end_mask ? (s->stride > 0 ? d : -1) : s->end;
    if (!s->begin_mask)
        b = clamp(b < 0 ? b + d : b, lo, hi);
    if (!s->end_mask)
        e = clamp(e < 0 ? e + d : e, lo, hi);
    if (s->stride > 0)
        m.count = e > b ? ceil_div(e - b, s->stride) : 0;
    else
        m.count = b > e ? ceil_div(b - e, -s->stride) : 0;
    m.start = m.count > 0 ? b : 0;
    return m;
}

static sg_status push_dim(sg_plan *p, sg_axis_map m, const char *op, sg_error *err)
{
    if (p->out_rank == SG_MAX_RANK)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan %s: output rank exceeds the limit of %d", op,
                       SG_MAX_RANK);
    p->map[p->out_rank] = m;
    p->out_shape[p->out_rank++] = m.count;
    return SG_OK;
}

static sg_status infer_steps(const sg_spec *spec, sg_plan *p, sg_error *err)
{
    const char *op = sg_op_name(spec->op);
    size_t consuming = 0;
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        consuming += !s->new_axis && (s->shrink || !s->ellipsis);
    }
    if (consuming > p->in_rank)
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to plan %s: too many indices (%zu steps consume input dimensions, the input has rank %zu)",
                       op, consuming, p->in_rank);
    int axis = 0;
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        if (s->new_axis) { /* new_axis wins over shrink and ellipsis */
            if (push_dim(p, (sg_axis_map){.in_axis = -1, .count = 1}, op, err) != SG_OK)
                return err->status;
        } else if (s->shrink) { /* shrink wins over ellipsis */
            int64_t d = p->in_shape[axis];
            int64_t index = s->begin < 0 ? s->begin + d : s->begin;
            if (index < 0 || index >= d)
                return sg_fail(err, SG_ERR_SLICE,
                               "failed to plan %s: index out of range (step %zu: index %lld, input dimension %d has size %lld)",
                               op, i, (long long)s->begin, axis, (long long)d);
            p->fixed[p->nfixed++] = (sg_fixed_axis){axis, index};
            axis++;
        } else if (s->ellipsis) {
            for (size_t k = 0; k < p->in_rank - consuming; k++, axis++)
                if (push_dim(p, (sg_axis_map){axis, 0, 1, p->in_shape[axis]}, op, err) != SG_OK)
                    return err->status;
        } else {
            int64_t d = p->in_shape[axis];
            sg_axis_map m = spec->op == SG_OP_NUMPY
                                ? numpy_range(axis, d, s)
                                : openvino_range(axis, d, s->begin, s->begin_mask, s->end, s->end_mask,
                                                 s->stride);
            if (push_dim(p, m, op, err) != SG_OK)
                return err->status;
            axis++;
        }
    }
    for (; (size_t)axis < p->in_rank; axis++) /* the implicit ellipsis at the end */
        if (push_dim(p, (sg_axis_map){axis, 0, 1, p->in_shape[axis]}, op, err) != SG_OK)
            return err->status;
    return SG_OK;
}

static sg_status infer_slice(const sg_spec *spec, sg_plan *p, sg_error *err)
{
    int64_t r = (int64_t)p->in_rank;
    int owner[SG_MAX_RANK];
    if (r == 0)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan Slice: the input must have rank 1 or more (it has rank 0)");
    for (int64_t a = 0; a < r; a++) {
        owner[a] = -1;
        p->map[a] = (sg_axis_map){(int)a, 0, 1, p->in_shape[a]};
    }
    for (size_t i = 0; i < spec->len; i++) {
        const sg_slice_axis *s = &spec->axes[i];
        if (s->axis < -r || s->axis >= r)
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to plan Slice: axis out of range (axes[%zu] = %lld, input rank %lld allows %lld..%lld)",
                           i, (long long)s->axis, (long long)r, (long long)-r, (long long)(r - 1));
        int a = (int)(s->axis < 0 ? s->axis + r : s->axis);
        if (owner[a] >= 0)
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to plan Slice: axes must be unique (axes[%d] = %lld and axes[%zu] = %lld both name axis %d)",
                           owner[a], (long long)spec->axes[owner[a]].axis, i, (long long)s->axis, a);
        owner[a] = (int)i;
        p->map[a] = openvino_range(a, p->in_shape[a], s->start, false, s->stop, false, s->step);
    }
    p->out_rank = p->in_rank;
    for (size_t a = 0; a < p->in_rank; a++)
        p->out_shape[a] = p->map[a].count;
    return SG_OK;
}

static sg_status infer_trt(const sg_spec *spec, sg_plan *p, sg_error *err)
{
    if (spec->len != p->in_rank)
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to plan TrtSlice: start, size and stride need one entry per input dimension (%zu given, input rank %zu)",
                       spec->len, p->in_rank);
    for (size_t a = 0; a < p->in_rank; a++) {
        const sg_trt_dim *t = &spec->dims[a];
        int64_t d = p->in_shape[a];
        p->map[a] = (sg_axis_map){(int)a, t->start, t->stride, t->size};
        p->out_shape[a] = t->size;
        if (t->size == 0)
            continue;
        int64_t last;
        if (__builtin_mul_overflow(t->size - 1, t->stride, &last) ||
            __builtin_add_overflow(last, t->start, &last))
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to plan TrtSlice: coordinate overflows 64 bits (dimension %zu: start %lld + (size %lld - 1) * stride %lld)",
                           a, (long long)t->start, (long long)t->size, (long long)t->stride);
        if (spec->mode == SG_TRT_STRICT) {
            int64_t bad = t->start < 0 || t->start >= d ? t->start : last < 0 || last >= d ? last : -1;
            if (t->start < 0 || t->start >= d || last < 0 || last >= d)
                return sg_fail(err, SG_ERR_SLICE,
                               "failed to plan TrtSlice: strict mode coordinate outside the input (dimension %zu: coordinate %lld, size %lld)",
                               a, (long long)bad, (long long)d);
        } else if (d == 0 && spec->mode != SG_TRT_FILL) {
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to plan TrtSlice: %s mode cannot read an empty input dimension (dimension %zu has size 0, output size %lld)",
                           sg_trt_mode_name(spec->mode), a, (long long)t->size);
        }
    }
    p->out_rank = p->in_rank;
    p->mode = spec->mode;
    if (spec->mode == SG_TRT_FILL && sg_scalar_to_bytes(&spec->fill, p->dtype, p->fill, err) != SG_OK)
        return err->status;
    return SG_OK;
}

/* Product of `n` extents; 0 if any is 0. Fails when the extents other
 * than 0 multiply, with the element size, past 2^63 - 1: strides must fit
 * even in an empty tensor (NumPy refuses such shapes too). */
static sg_status count_elements(const int64_t *shape, size_t n, size_t elem, const char *what,
                                int64_t *count, uint64_t *bytes, sg_error *err)
{
    int64_t c = 1, b;
    bool overflow = false, empty = false;
    for (size_t i = 0; i < n; i++) {
        empty |= shape[i] == 0;
        overflow |= __builtin_mul_overflow(c, shape[i] ? shape[i] : 1, &c);
    }
    if ((overflow || __builtin_mul_overflow(c, (int64_t)elem, &b)) && !empty)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan slice: the %s has more than 2^63 - 1 bytes", what);
    if (overflow || __builtin_mul_overflow(c, (int64_t)elem, &b))
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to plan slice: the %s's dimensions other than 0 multiply to more than 2^63 - 1 "
                       "bytes",
                       what);
    *count = empty ? 0 : c;
    *bytes = empty ? 0 : (uint64_t)b;
    return SG_OK;
}

sg_status sg_infer_shape(const sg_spec *spec, size_t rank, const int64_t *shape, sg_dtype dtype,
                         sg_plan *p, sg_error *err)
{
    if (sg_dtype_size(dtype) == 0)
        return sg_fail(err, SG_ERR_USAGE, "failed to plan slice: unknown element type %d", (int)dtype);
    if (rank > SG_MAX_RANK)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan slice: input rank %zu exceeds the limit of %d",
                       rank, SG_MAX_RANK);
    for (size_t i = 0; i < rank; i++)
        if (shape[i] < 0)
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to plan slice: input dimension %zu has negative size %lld", i,
                           (long long)shape[i]);
    p->op = spec->op;
    p->dtype = dtype;
    p->elem_size = sg_dtype_size(dtype);
    p->in_rank = rank;
    if (rank)
        memcpy(p->in_shape, shape, rank * sizeof *shape);
    if (count_elements(p->in_shape, rank, p->elem_size, "input", &p->in_count, &p->in_bytes, err))
        return err->status;
    sg_status st;
    switch (spec->op) {
    case SG_OP_SLICE: st = infer_slice(spec, p, err); break;
    case SG_OP_TRT_SLICE: st = infer_trt(spec, p, err); break;
    default: st = infer_steps(spec, p, err); break;
    }
    if (st != SG_OK)
        return st;
    return count_elements(p->out_shape, p->out_rank, p->elem_size, "output", &p->out_count,
                          &p->out_bytes, err);
}

/* The TensorRT formulas (SEMANTICS.md TensorRT 2-3), applied per element by
 * the reference interpreter and by the checker. Independent of fold.c. */
int64_t sg_plan_axis_index(const sg_plan *p, size_t dim, int64_t y)
{
    const sg_axis_map *m = &p->map[dim];
    if (m->in_axis < 0)
        return 0;
    int64_t x = m->start + y * m->step;
    if (p->op != SG_OP_TRT_SLICE)
        return x;
    int64_t d = p->in_shape[m->in_axis];
    switch (p->mode) {
    case SG_TRT_STRICT:
        return x;
    case SG_TRT_WRAP: {
        int64_t r = x % d;
        return r < 0 ? r + d : r;
    }
    case SG_TRT_CLAMP:
        return x < 0 ? 0 : x >= d ? d - 1 : x;
    case SG_TRT_FILL:
        return x < 0 || x >= d ? -1 : x;
    case SG_TRT_REFLECT: {
        if (d == 1)
            return 0;
        uint64_t period = 2 * (uint64_t)d - 2;
        uint64_t c = (x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x) % period;
        return (int64_t)(c >= (uint64_t)d ? period - c : c);
    }
    }
    return x;
}

/* Shape inference: spec + input shape -> per output dimension the input axis
 * and affine index (plan->map), shrunk axes (plan->fixed), counts and bytes.
 * Every invalid slice is rejected here; see docs/semantics.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* Shape inference runs over sg_val (expr.h): with every number known it
 * folds to constants, and its checks fail at once; with runtime numbers
 * it builds their expressions and records its checks for run time. */
typedef struct infer {
    sg_plan *p;
    sg_sym *s;
    sg_exprs *e;
    sg_error *err;
    const char *op;
    /* a stage of a chain (sg_infer_chain): the dimensions of what it
     * indexes, and the chain's number of each value of its spec */
    const sg_val *dims;
    const uint16_t *global;
} infer;

static sg_val num(infer *in, int64_t number, uint16_t value)
{
    if (value == 0)
        return sg_const(number);
    return sg_x_value(in->e, in->global ? in->global[value - 1] : value - 1u);
}

static sg_val dim(infer *in, int axis)
{
    if (in->dims)
        return in->dims[axis];
    return in->p->in_shape[axis] < 0 ? sg_x_dim(in->e, (size_t)axis) : sg_const(in->p->in_shape[axis]);
}

static sg_val clamp(infer *in, sg_val v, sg_val lo, sg_val hi)
{
    return sg_x_min(in->e, sg_x_max(in->e, v, lo), hi);
}

/* v < 0 ? v + d : v */
static sg_val from_end(infer *in, sg_val v, sg_val d)
{
    return sg_x_select(in->e, sg_x_lt(in->e, v, sg_const(0)), sg_x_add(in->e, v, d), v);
}

/* a <= b */
static sg_val le(infer *in, sg_val a, sg_val b) { return sg_x_not(in->e, sg_x_lt(in->e, b, a)); }

static sg_status check(infer *in, sg_val cond, sg_xcode code, sg_status status, sg_val a0, sg_val a1, sg_val a2,
                       const char *format, ...)
    __attribute__((format(printf, 8, 9)));

/* A check with the numbers a0..a2 (shown where format has %%lld). */
static sg_status check(infer *in, sg_val cond, sg_xcode code, sg_status status, sg_val a0, sg_val a1, sg_val a2,
                       const char *format, ...)
{
    char text[sizeof in->err->message];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    const sg_val args[4] = {a0, a1, a2, sg_const(0)};
    return sg_exprs_check(in->e, cond, code, status, in->err, args, "%s", text);
}

/* One output dimension: axis, index of its first element, step, count. */
typedef struct range {
    sg_val start, step, count;
} range;

/* |stride| for a stride < 0, INT64_MAX for INT64_MIN (the count is the
 * same: every distance is at most INT64_MAX). */
static sg_val magnitude(infer *in, sg_val stride)
{
    return sg_x_select(in->e, sg_x_eq(in->e, stride, sg_const(INT64_MIN)), sg_const(INT64_MAX),
                       sg_x_sub(in->e, sg_const(0), stride));
}

/* The count of a range from b towards e by stride, and its start (0 when
 * empty): forward when `forward` (stride > 0), else backward. */
static range make_range(infer *in, bool forward, sg_val b, sg_val e, sg_val stride)
{
    sg_exprs *x = in->e;
    range r = {.step = stride};
    r.count = forward ? sg_x_select(x, sg_x_lt(x, b, e), sg_x(x, SG_X_CDIV, sg_x_sub(x, e, b), stride), sg_const(0))
                      : sg_x_select(x, sg_x_lt(x, e, b),
                                    sg_x(x, SG_X_CDIV, sg_x_sub(x, b, e), magnitude(in, stride)), sg_const(0));
    r.start = sg_x_select(x, sg_x_lt(x, sg_const(0), r.count), b, sg_const(0));
    return r;
}

/* A range for either sign of stride: the one its sign picks. Only the
 * branches a constant stride can take are built. */
static range either_sign(infer *in, sg_val stride, range (*build)(infer *, bool, const void *), const void *arg)
{
    if (sg_is_const(stride))
        return build(in, stride.k > 0, arg);
    range up = build(in, true, arg), down = build(in, false, arg);
    sg_val pos = sg_x_lt(in->e, sg_const(0), stride);
    return (range){sg_x_select(in->e, pos, up.start, down.start), stride,
                   sg_x_select(in->e, pos, up.count, down.count)};
}

typedef struct bounds {
    sg_val d, begin, end, stride;
    bool begin_masked, end_masked;
    bool onnx; /* ONNX Runtime's Slice: an end of INT32_MAX or INT64_MAX is masked */
} bounds;

/* OpenVINO's rule for one ordinary step (docs/semantics.md, "StridedSlice-1 and Slice-8"). */
static range openvino_branch(infer *in, bool forward, const void *arg)
{
    const bounds *k = arg;
    sg_val d = k->d, dm1 = sg_x_sub(in->e, d, sg_const(1));
    sg_val b = k->begin_masked ? (forward ? sg_const(0) : dm1) : from_end(in, k->begin, d);
    sg_val e = k->end_masked ? (forward ? d : sg_const(-1)) : from_end(in, k->end, d);
    b = forward ? clamp(in, b, sg_const(0), d) : clamp(in, b, sg_const(0), dm1);
    e = forward ? clamp(in, e, sg_const(0), d) : clamp(in, e, sg_const(-1), d);
    if (k->onnx) {
        sg_val huge = sg_x_or(in->e, sg_x_eq(in->e, k->end, sg_const(INT32_MAX)),
                              sg_x_eq(in->e, k->end, sg_const(INT64_MAX)));
        e = sg_x_select(in->e, huge, forward ? d : sg_const(-1), e);
    }
    return make_range(in, forward, b, e, k->stride);
}

/* Python's slice.indices() rule, for NumPy expressions. */
static range numpy_branch(infer *in, bool forward, const void *arg)
{
    const bounds *k = arg;
    sg_val d = k->d, lo = sg_const(forward ? 0 : -1), hi = forward ? d : sg_x_sub(in->e, d, sg_const(1));
    sg_val b = k->begin_masked ? (forward ? sg_const(0) : hi) : clamp(in, from_end(in, k->begin, d), lo, hi);
    sg_val e = k->end_masked ? (forward ? d : sg_const(-1)) : clamp(in, from_end(in, k->end, d), lo, hi);
    return make_range(in, forward, b, e, k->stride);
}

static sg_status push_dim(infer *in, int axis, range r)
{
    sg_plan *p = in->p;
    if (p->out_rank == SG_MAX_RANK)
        return sg_fail(in->err, SG_ERR_SLICE, "failed to plan %s: output rank exceeds the limit of %d", in->op,
                       SG_MAX_RANK);
    size_t i = p->out_rank++;
    p->map[i].in_axis = axis;
    in->s->start[i] = r.start;
    in->s->step[i] = r.step;
    in->s->count[i] = r.count;
    in->s->window_lo[i] = sg_const(0), in->s->window_step[i] = sg_const(1);
    in->s->window[i] = axis < 0 ? sg_const(1) : dim(in, axis);
    return SG_OK;
}

static range whole(infer *in, int axis) { return (range){sg_const(0), sg_const(1), dim(in, axis)}; }

static sg_status infer_steps(infer *in, const sg_spec *spec)
{
    sg_plan *p = in->p;
    size_t consuming = 0;
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        consuming += !s->new_axis && (s->shrink || !s->ellipsis);
    }
    if (consuming > p->in_rank)
        return sg_fail(in->err, SG_ERR_SLICE,
                       "failed to plan %s: too many indices (%zu steps consume input dimensions, the input has rank %zu)",
                       in->op, consuming, p->in_rank);
    int axis = 0;
    for (size_t i = 0; i < spec->len; i++) {
        const sg_ss_step *s = &spec->steps[i];
        if (s->new_axis) { /* new_axis wins over shrink and ellipsis */
            if (push_dim(in, -1, (range){sg_const(0), sg_const(0), sg_const(1)}) != SG_OK)
                return in->err->status;
        } else if (s->shrink) { /* shrink wins over ellipsis */
            sg_val d = dim(in, axis), begin = num(in, s->begin, s->begin_value);
            sg_val index = from_end(in, begin, d);
            if (check(in, sg_x_or(in->e, sg_x_lt(in->e, index, sg_const(0)), le(in, d, index)), SG_XC_INDEX,
                      SG_ERR_SLICE, begin, d, sg_const(0),
                      "failed to plan %s: index out of range (step %zu: index %%lld, input dimension %d has size %%lld)",
                      in->op, i, axis) != SG_OK)
                return in->err->status;
            p->fixed[p->nfixed].in_axis = axis++;
            in->s->fixed[p->nfixed++] = index;
        } else if (s->ellipsis) {
            for (size_t k = 0; k < p->in_rank - consuming; k++, axis++)
                if (push_dim(in, axis, whole(in, axis)) != SG_OK)
                    return in->err->status;
        } else {
            bounds b = {dim(in, axis), num(in, s->begin, s->begin_value), num(in, s->end, s->end_value),
                        num(in, s->stride, s->stride_value), s->begin_mask, s->end_mask, false};
            range r = either_sign(in, b.stride, spec->op == SG_OP_NUMPY ? numpy_branch : openvino_branch, &b);
            if (push_dim(in, axis, r) != SG_OK)
                return in->err->status;
            axis++;
        }
    }
    for (; (size_t)axis < p->in_rank; axis++) /* the implicit ellipsis at the end */
        if (push_dim(in, axis, whole(in, axis)) != SG_OK)
            return in->err->status;
    return SG_OK;
}

/* The input axis that entry i names (`given`, negative from the end), or
 * -1 after failing: out of range, or named by an earlier entry. owner[a]
 * (-1 at first) and named[a] record the entry that named axis a and how. */
static int take_axis(infer *in, size_t i, int64_t given, int *owner, int64_t *named)
{
    int64_t r = (int64_t)in->p->in_rank;
    if (given < -r || given >= r) {
        sg_fail(in->err, SG_ERR_SLICE,
                "failed to plan %s: axis out of range (axes[%zu] = %lld, input rank %lld allows %lld..%lld)", in->op,
                i, (long long)given, (long long)r, (long long)-r, (long long)(r - 1));
        return -1;
    }
    int a = (int)(given < 0 ? given + r : given);
    if (owner[a] >= 0) {
        sg_fail(in->err, SG_ERR_SLICE,
                "failed to plan %s: axes must be unique (axes[%d] = %lld and axes[%zu] = %lld both name axis %d)",
                in->op, owner[a], (long long)named[a], i, (long long)given, a);
        return -1;
    }
    owner[a] = (int)i;
    named[a] = given;
    return a;
}

/* Which input axis each of `len` entries names (given[i], negative from
 * the end): hit[i][a] is 1 where entry i names axis a, else 0. Constant
 * axes fail at once when out of range or named twice (take_axis); where
 * any is a runtime value, the same two rules become checks of the call. */
static sg_status place_axes(infer *in, size_t len, const sg_val *given, sg_val (*hit)[SG_MAX_RANK])
{
    sg_exprs *x = in->e;
    int64_t r = (int64_t)in->p->in_rank, named[SG_MAX_RANK];
    int owner[SG_MAX_RANK];
    bool constant = true;
    for (size_t i = 0; i < len; i++)
        constant = constant && sg_is_const(given[i]);
    for (int64_t a = 0; a < r; a++)
        owner[a] = -1;
    sg_val axis[SG_MAX_RANK];
    for (size_t i = 0; i < len; i++) {
        if (constant) {
            int a = take_axis(in, i, given[i].k, owner, named);
            if (a < 0)
                return in->err->status;
            axis[i] = sg_const(a);
        } else {
            sg_val out = sg_x_or(x, sg_x_lt(x, given[i], sg_const(-r)), le(in, sg_const(r), given[i]));
            if (check(in, out, SG_XC_INDEX, SG_ERR_SLICE, given[i], sg_const(0), sg_const(0),
                      "failed to plan %s: axis out of range (axes[%zu] = %%lld, input rank %lld allows %lld..%lld)",
                      in->op, i, (long long)r, (long long)-r, (long long)(r - 1)) != SG_OK)
                return in->err->status;
            axis[i] = from_end(in, given[i], sg_const(r));
            for (size_t j = 0; j < i; j++)
                if (check(in, sg_x_eq(x, axis[j], axis[i]), SG_XC_INDEX, SG_ERR_SLICE, given[j], given[i], axis[i],
                          "failed to plan %s: axes must be unique (axes[%zu] = %%lld and axes[%zu] = %%lld both name axis %%lld)",
                          in->op, j, i) != SG_OK)
                    return in->err->status;
        }
        for (int64_t a = 0; a < r; a++)
            hit[i][a] = sg_x_eq(x, axis[i], sg_const(a));
    }
    return SG_OK;
}

/* More entries than the input has axes, so that one is out of range or
 * named twice: the failure of the first such entry where the axes are
 * constant, else one naming the count. */
static sg_status too_many_axes(infer *in, const sg_spec *spec)
{
    int64_t r = (int64_t)in->p->in_rank, named[SG_MAX_RANK];
    int owner[SG_MAX_RANK];
    for (int64_t a = 0; a < r; a++)
        owner[a] = -1;
    for (size_t i = 0; i < spec->len; i++) {
        bool pad = spec->op == SG_OP_PAD;
        if ((pad ? spec->pads[i].axis_value : spec->axes[i].axis_value) != 0)
            return sg_fail(in->err, SG_ERR_SLICE,
                           "failed to plan %s: %zu axes for an input of rank %lld name some axis twice", in->op,
                           spec->len, (long long)r);
        if (take_axis(in, i, pad ? spec->pads[i].axis : spec->axes[i].axis, owner, named) < 0)
            return in->err->status;
    }
    return sg_fail(in->err, SG_ERR_SLICE, "failed to plan %s: %zu axes for an input of rank %lld", in->op, spec->len,
                   (long long)r); /* not reached: take_axis fails first */
}

/* The number of the entry that names axis a (of[i] for entry i), or
 * `otherwise` where none does; *named: whether one does. */
static sg_val on_axis(infer *in, size_t len, sg_val (*hit)[SG_MAX_RANK], int a, const sg_val *of, sg_val otherwise,
                      sg_val *named)
{
    sg_val v = otherwise;
    *named = sg_const(0);
    for (size_t i = len; i-- > 0;) {
        v = sg_x_select(in->e, hit[i][a], of[i], v);
        *named = sg_x_or(in->e, *named, hit[i][a]);
    }
    return v;
}

static sg_status infer_slice(infer *in, const sg_spec *spec)
{
    sg_plan *p = in->p;
    int64_t r = (int64_t)p->in_rank;
    sg_val given[SG_MAX_RANK], starts[SG_MAX_RANK], stops[SG_MAX_RANK], steps[SG_MAX_RANK];
    sg_val hit[SG_MAX_RANK][SG_MAX_RANK];
    if (r == 0)
        return sg_fail(in->err, SG_ERR_SLICE, "failed to plan %s: the input must have rank 1 or more (it has rank 0)",
                       in->op);
    if (spec->len > (size_t)r)
        return too_many_axes(in, spec);
    for (size_t i = 0; i < spec->len; i++) {
        const sg_slice_axis *s = &spec->axes[i];
        given[i] = num(in, s->axis, s->axis_value);
        starts[i] = num(in, s->start, s->start_value);
        stops[i] = num(in, s->stop, s->stop_value);
        steps[i] = num(in, s->step, s->step_value);
    }
    if (place_axes(in, spec->len, given, hit) != SG_OK)
        return in->err->status;
    for (int a = 0; a < r; a++) {
        sg_val named, start = on_axis(in, spec->len, hit, a, starts, sg_const(0), &named);
        sg_val stop = on_axis(in, spec->len, hit, a, stops, sg_const(INT64_MAX), &named);
        sg_val step = on_axis(in, spec->len, hit, a, steps, sg_const(1), &named);
        if (sg_is_const(named) && named.k == 0) {
            push_dim(in, a, whole(in, a));
            continue;
        }
        bounds b = {dim(in, a), start, stop, step, false, false, spec->op == SG_OP_ONNX_SLICE};
        push_dim(in, a, either_sign(in, b.stride, openvino_branch, &b));
    }
    return SG_OK;
}

/* The fill value of FILL mode: the spec's scalar in the element type
 * (plan->fill), or a runtime value, the element's bits (sym->fill; for
 * bool, whether it is not 0). */
static sg_status fill_of(infer *in, const sg_spec *spec)
{
    sg_plan *p = in->p;
    if (spec->mode != SG_TRT_FILL)
        return SG_OK;
    if (spec->fill_value != 0) {
        sg_val v = num(in, 0, spec->fill_value);
        in->s->fill = p->dtype == SG_BOOL ? sg_x_not(in->e, sg_x_eq(in->e, v, sg_const(0))) : v;
        return SG_OK;
    }
    return sg_scalar_to_bytes(&spec->fill, p->dtype, p->fill, in->err);
}

static sg_status infer_trt(infer *in, const sg_spec *spec)
{
    sg_plan *p = in->p;
    sg_exprs *x = in->e;
    if (spec->len != p->in_rank)
        return sg_fail(in->err, SG_ERR_SLICE,
                       "failed to plan TrtSlice: start, size and stride need one entry per input dimension (%zu given, input rank %zu)",
                       spec->len, p->in_rank);
    for (size_t a = 0; a < p->in_rank; a++) {
        const sg_trt_dim *t = &spec->dims[a];
        sg_val d = dim(in, (int)a), start = num(in, t->start, t->start_value);
        sg_val size = num(in, t->size, t->size_value), stride = num(in, t->stride, t->stride_value);
        push_dim(in, (int)a, (range){start, stride, size});
        sg_val some = sg_x_lt(x, sg_const(0), size), n1 = sg_x_sub(x, size, sg_const(1));
        sg_val span = sg_x_mul(x, n1, stride), last = sg_x_add(x, span, start);
        sg_val overflow = sg_x_or(x, sg_x(x, SG_X_MUL_OVF, n1, stride), sg_x(x, SG_X_ADD_OVF, span, start));
        if (check(in, sg_x_and(x, some, overflow), SG_XC_SIZE, SG_ERR_SLICE, start, size, stride,
                  "failed to plan TrtSlice: coordinate overflows 64 bits (dimension %zu: start %%lld + (size %%lld - 1) * stride %%lld)",
                  a) != SG_OK)
            return in->err->status;
        if (spec->mode == SG_TRT_STRICT) {
            sg_val start_out = sg_x_or(x, sg_x_lt(x, start, sg_const(0)), le(in, d, start));
            sg_val last_out = sg_x_or(x, sg_x_lt(x, last, sg_const(0)), le(in, d, last));
            if (check(in, sg_x_and(x, some, sg_x_or(x, start_out, last_out)), SG_XC_INDEX, SG_ERR_SLICE,
                      sg_x_select(x, start_out, start, last), d, sg_const(0),
                      "failed to plan TrtSlice: strict mode coordinate outside the input (dimension %zu: coordinate %%lld, size %%lld)",
                      a) != SG_OK)
                return in->err->status;
        } else if (spec->mode != SG_TRT_FILL &&
                   check(in, sg_x_and(x, some, sg_x_eq(x, d, sg_const(0))), SG_XC_EMPTY, SG_ERR_SLICE, size,
                         sg_const(0), sg_const(0),
                         "failed to plan TrtSlice: %s mode cannot read an empty input dimension (dimension %zu has size 0, output size %%lld)",
                         sg_trt_mode_name(spec->mode), a) != SG_OK) {
            return in->err->status;
        }
    }
    p->mode = spec->mode;
    return fill_of(in, spec);
}

/* Pad (ONNX Runtime's rule, docs/semantics.md): per axis of size d with
 * pads pb and pe, the negative pads crop the window [lo, d - cut) first,
 * lo = max(-pb, 0), cut = max(-pe, 0), of e = max(d - lo - cut, 0)
 * elements; the output has d + pb + pe elements, and y reads coordinate
 * y - max(pb, 0) of the window through the mode. Refused as ONNX Runtime
 * refuses: a negative output size; a border mode on a window of 0 (for an
 * empty input: wrap at all, edge and reflect where an empty axis would
 * grow); reflect pads beyond e - 1. */
static sg_status infer_pad(infer *in, const sg_spec *spec)
{
    sg_plan *p = in->p;
    sg_exprs *x = in->e;
    sg_val pads[SG_MAX_RANK][2], zero = sg_const(0), one = sg_const(1);
    sg_val given[SG_MAX_RANK], begins[SG_MAX_RANK], ends[SG_MAX_RANK], hit[SG_MAX_RANK][SG_MAX_RANK];
    if (p->in_rank == 0) /* as ONNX Runtime: "data_rank > 0 was false" */
        return sg_fail(in->err, SG_ERR_SLICE, "failed to plan Pad: the input must have rank 1 or more (it has rank 0)");
    if (spec->len > p->in_rank)
        return too_many_axes(in, spec);
    for (size_t i = 0; i < spec->len; i++) {
        const sg_pad_axis *t = &spec->pads[i];
        given[i] = num(in, t->axis, t->axis_value);
        begins[i] = num(in, t->begin, t->begin_value);
        ends[i] = num(in, t->end, t->end_value);
    }
    if (place_axes(in, spec->len, given, hit) != SG_OK)
        return in->err->status;
    for (size_t a = 0; a < p->in_rank; a++) {
        sg_val named;
        pads[a][0] = on_axis(in, spec->len, hit, (int)a, begins, zero, &named);
        pads[a][1] = on_axis(in, spec->len, hit, (int)a, ends, zero, &named);
    }
    const char *mode = sg_pad_mode_name(spec->mode);
    sg_val empty = sg_x_eq(x, in->s->in_count, zero);
    if (spec->mode == SG_TRT_WRAP &&
        check(in, empty, SG_XC_EMPTY, SG_ERR_SLICE, zero, zero, zero,
              "failed to plan Pad: wrap mode cannot pad an empty input (it has 0 elements)") != SG_OK)
        return in->err->status;
    for (size_t a = 0; a < p->in_rank; a++) {
        sg_val d = dim(in, (int)a), pb = pads[a][0], pe = pads[a][1];
        sg_val grown = sg_x_add(x, d, pb), n = sg_x_add(x, grown, pe);
        sg_val overflow = sg_x_or(x, sg_x(x, SG_X_ADD_OVF, d, pb), sg_x(x, SG_X_ADD_OVF, grown, pe));
        if (check(in, overflow, SG_XC_SIZE, SG_ERR_SLICE, d, pb, pe,
                  "failed to plan Pad: output size overflows 64 bits (axis %zu: size %%lld + pads %%lld + %%lld)",
                  a) != SG_OK ||
            check(in, sg_x_lt(x, n, zero), SG_XC_STEP, SG_ERR_SLICE, d, pb, pe,
                  "failed to plan Pad: negative output size (axis %zu: size %%lld, pads %%lld and %%lld)",
                  a) != SG_OK)
            return in->err->status;
        /* lo = min(max(-pb, 0), d) and cut = min(max(-pe, 0), d - lo), each
         * negated only when above -d, so that it cannot overflow */
        sg_val lo = sg_x_select(x, sg_x_lt(x, pb, sg_x_sub(x, zero, d)), d, sg_x_max(x, sg_x_sub(x, zero, pb), zero));
        sg_val rest = sg_x_sub(x, d, lo);
        sg_val cut =
            sg_x_select(x, sg_x_lt(x, pe, sg_x_sub(x, zero, rest)), rest, sg_x_max(x, sg_x_sub(x, zero, pe), zero));
        sg_val e = sg_x_sub(x, rest, cut);
        if (spec->mode != SG_TRT_FILL) {
            sg_val full = sg_x_not(x, empty);
            if (check(in, sg_x_and(x, empty, sg_x_and(x, sg_x_eq(x, d, zero), sg_x_not(x, sg_x_eq(x, n, zero)))),
                      SG_XC_EMPTY, SG_ERR_SLICE, n, zero, zero,
                      "failed to plan Pad: %s mode cannot pad an empty axis (axis %zu has size 0, output size %%lld)",
                      mode, a) != SG_OK ||
                check(in, sg_x_and(x, full, sg_x_eq(x, e, zero)), SG_XC_EMPTY, SG_ERR_SLICE, d, pb, pe,
                      "failed to plan Pad: %s mode with zero effective input extent (axis %zu: size %%lld, pads %%lld and %%lld)",
                      mode, a) != SG_OK)
                return in->err->status;
        }
        if (spec->mode == SG_TRT_REFLECT) {
            sg_val full = sg_x_not(x, empty), most = sg_x_sub(x, e, one);
            sg_val pads_some = sg_x_or(x, sg_x_lt(x, zero, pb), sg_x_lt(x, zero, pe));
            if (check(in, sg_x_and(x, full, sg_x_and(x, sg_x_eq(x, e, one), pads_some)), SG_XC_INDEX,
                      SG_ERR_SLICE, pb, pe, zero,
                      "failed to plan Pad: reflect mode needs an effective input extent of 2 or more to pad (axis %zu: extent 1, pads %%lld and %%lld)",
                      a) != SG_OK ||
                check(in, sg_x_and(x, full, sg_x_lt(x, most, pb)), SG_XC_INDEX, SG_ERR_SLICE, pb, most, zero,
                      "failed to plan Pad: reflect pre-pad exceeds the effective input extent - 1 (axis %zu: pad %%lld, at most %%lld)",
                      a) != SG_OK ||
                check(in, sg_x_and(x, full, sg_x_lt(x, most, pe)), SG_XC_INDEX, SG_ERR_SLICE, pe, most, zero,
                      "failed to plan Pad: reflect post-pad exceeds the effective input extent - 1 (axis %zu: pad %%lld, at most %%lld)",
                      a) != SG_OK)
                return in->err->status;
        }
        sg_val start = sg_x_select(x, sg_x_lt(x, zero, pb), sg_x_sub(x, zero, pb), zero);
        push_dim(in, (int)a, (range){start, one, n});
        in->s->window_lo[p->out_rank - 1] = lo;
        in->s->window[p->out_rank - 1] = e;
    }
    p->mode = spec->mode;
    return fill_of(in, spec);
}

/* Output k of n parts of a Split by rule (the axis d): PARTS, d / n each,
 * d a multiple of n; CHUNKS, c = ceil(d / n) each, the last d - c (n - 1),
 * at least 1 (ONNX Runtime refuses less). Its first index and size. */
static sg_status split_part(infer *in, const sg_spec *spec, sg_val d, sg_val *start, sg_val *size)
{
    sg_exprs *x = in->e;
    sg_val n = sg_const((int64_t)spec->len), k = sg_const((int64_t)spec->split_output);
    sg_val piece = sg_x(x, SG_X_CDIV, d, n), before_last = sg_x_mul(x, piece, sg_const((int64_t)spec->len - 1));
    if (spec->split_rule == SG_SPLIT_PARTS) {
        if (check(in, sg_x_not(x, sg_x_eq(x, sg_x(x, SG_X_SREM, d, n), sg_const(0))), SG_XC_SHAPE, SG_ERR_SLICE, d,
                  sg_const(0), sg_const(0),
                  "failed to plan Split: dimension %%lld does not split evenly into %zu parts", spec->len) != SG_OK)
            return in->err->status;
    } else if (check(in, le(in, d, before_last), SG_XC_SHAPE, SG_ERR_SLICE, d, sg_const(0), sg_const(0),
                     "failed to plan Split: %zu chunks of dimension %%lld leave the last empty, which ONNX Runtime "
                     "refuses",
                     spec->len) != SG_OK) {
        return in->err->status;
    }
    *start = sg_x_mul(x, piece, k);
    *size = spec->split_rule == SG_SPLIT_CHUNKS && spec->split_output + 1 == spec->len ? sg_x_sub(x, d, before_last)
                                                                                       : piece;
    return SG_OK;
}

/* Output k of a Split: sizes s_0..s_n-1 along axis A, each at least 0,
 * adding up to the axis (as ONNX Runtime and OpenVINO require); the
 * output is the s_k elements from s_0 + ... + s_k-1. Or a part by
 * split_part's rule. */
static sg_status infer_split(infer *in, const sg_spec *spec)
{
    sg_plan *p = in->p;
    sg_exprs *x = in->e;
    int64_t r = (int64_t)p->in_rank, given = spec->split_axis;
    if (r == 0)
        return sg_fail(in->err, SG_ERR_SLICE, "failed to plan Split: the input must have rank 1 or more (it has rank 0)");
    if (given < -r || given >= r)
        return sg_fail(in->err, SG_ERR_SLICE,
                       "failed to plan Split: axis out of range (axis %lld, input rank %lld allows %lld..%lld)",
                       (long long)given, (long long)r, (long long)-r, (long long)(r - 1));
    int axis = (int)(given < 0 ? given + r : given);
    sg_val d = dim(in, axis), sum = sg_const(0), start = sg_const(0), overflow = sg_const(0), size;
    if (spec->split_rule != SG_SPLIT_SIZES) {
        if (split_part(in, spec, d, &start, &size) != SG_OK)
            return in->err->status;
        for (int a = 0; a < (int)p->in_rank; a++)
            push_dim(in, a, a == axis ? (range){start, sg_const(1), size} : whole(in, a));
        return SG_OK;
    }
    for (size_t i = 0; i < spec->len; i++) {
        size = num(in, spec->sizes[i].size, spec->sizes[i].size_value);
        if (check(in, sg_x_lt(x, size, sg_const(0)), SG_XC_STEP, SG_ERR_SLICE, size, sg_const(0), sg_const(0),
                  "failed to plan Split: split sizes must not be negative (split[%zu] = %%lld)", i) != SG_OK)
            return in->err->status;
        overflow = sg_x_or(x, overflow, sg_x(x, SG_X_ADD_OVF, sum, size));
        sum = sg_x_add(x, sum, size);
        if (i + 1 == spec->split_output)
            start = sum;
    }
    if (check(in, overflow, SG_XC_SHAPE, SG_ERR_SLICE, sg_const(0), sg_const(0), sg_const(0),
              "failed to plan Split: split sizes overflow 64 bits") != SG_OK ||
        check(in, sg_x_not(x, sg_x_eq(x, sum, d)), SG_XC_SHAPE, SG_ERR_SLICE, sum, d, sg_const(0),
              "failed to plan Split: split sizes add up to %%lld, input dimension %d has size %%lld", axis) != SG_OK)
        return in->err->status;
    const sg_split_size *own = &spec->sizes[spec->split_output];
    for (int a = 0; a < (int)p->in_rank; a++)
        push_dim(in, a, a == axis ? (range){start, sg_const(1), num(in, own->size, own->size_value)} : whole(in, a));
    return SG_OK;
}

/* The count of elements of `n` extents (0 if any is 0) and their bytes.
 * Fails when the extents other than 0 multiply, with the element size, past
 * 2^63 - 1: strides must fit even in an empty tensor (NumPy refuses such
 * shapes too). */
static sg_status count_elements(infer *in, const sg_val *shape, size_t n, const char *what, sg_val *count,
                                sg_val *bytes)
{
    sg_exprs *x = in->e;
    sg_val c = sg_const(1), overflow = sg_const(0), empty = sg_const(0);
    for (size_t i = 0; i < n; i++) {
        sg_val factor = sg_x_max(x, shape[i], sg_const(1));
        empty = sg_x_or(x, empty, sg_x_eq(x, shape[i], sg_const(0)));
        overflow = sg_x_or(x, overflow, sg_x(x, SG_X_MUL_OVF, c, factor));
        c = sg_x_mul(x, c, factor);
    }
    sg_val elem = sg_const((int64_t)in->p->elem_size);
    overflow = sg_x_or(x, overflow, sg_x(x, SG_X_MUL_OVF, c, elem));
    if (check(in, sg_x_and(x, overflow, sg_x_not(x, empty)), SG_XC_SIZE, SG_ERR_SLICE, sg_const(0), sg_const(0),
              sg_const(0), "failed to plan slice: the %s has more than 2^63 - 1 bytes", what) != SG_OK ||
        check(in, overflow, SG_XC_SIZE, SG_ERR_SLICE, sg_const(0), sg_const(0), sg_const(0),
              "failed to plan slice: the %s's dimensions other than 0 multiply to more than 2^63 - 1 bytes",
              what) != SG_OK)
        return in->err->status;
    *count = sg_x_select(x, empty, sg_const(0), c);
    *bytes = sg_x_select(x, empty, sg_const(0), sg_x_mul(x, c, elem));
    return SG_OK;
}

/* The checks a spec's constructors make of its numbers, for the numbers
 * given at run time: they come first, as they do for a typed spec. */
static sg_status check_values(infer *in, const sg_spec *spec)
{
    sg_exprs *x = in->e;
    for (size_t i = 0; i < spec->len; i++) {
        bool slice = spec->op == SG_OP_SLICE || spec->op == SG_OP_ONNX_SLICE;
        if (spec->op == SG_OP_PAD || spec->op == SG_OP_SPLIT) /* any pads and sizes */
            break;
        uint16_t ref = slice                         ? spec->axes[i].step_value
                       : spec->op == SG_OP_TRT_SLICE ? spec->dims[i].size_value
                                                     : spec->steps[i].stride_value;
        if (ref == 0)
            continue;
        sg_val v = num(in, 0, ref);
        sg_status st;
        if (slice)
            st = check(in, sg_x_eq(x, v, sg_const(0)), SG_XC_STEP, SG_ERR_SPEC, v, sg_const(0), sg_const(0),
                       "failed to make %s: step must not be zero (step[%zu] = %%lld)", in->op, i);
        else if (spec->op == SG_OP_TRT_SLICE)
            st = check(in, sg_x_lt(x, v, sg_const(0)), SG_XC_STEP, SG_ERR_SPEC, v, sg_const(0), sg_const(0),
                       "failed to make TrtSlice: size must not be negative (size[%zu] = %%lld)", i);
        else if (spec->op == SG_OP_NUMPY)
            st = check(in, sg_x_eq(x, v, sg_const(0)), SG_XC_STEP, SG_ERR_SPEC, v, sg_const(0), sg_const(0),
                       "failed to make NumPy: slice step cannot be zero (step %zu: %%lld)", i);
        else
            st = check(in, sg_x_eq(x, v, sg_const(0)), SG_XC_STEP, SG_ERR_SPEC, v, sg_const(0), sg_const(0),
                       "failed to make StridedSlice: stride must not be zero (stride[%zu] = %%lld)", i);
        if (st != SG_OK)
            return st;
    }
    return SG_OK;
}

static bool has_values(const sg_spec *spec, size_t rank, const int64_t *shape)
{
    for (size_t i = 0; i < rank; i++)
        if (shape[i] < 0)
            return true;
    return spec->nvalues > 0;
}

/* The input's checks and size: each `?` dimension given is not negative,
 * the input's bytes fit. */
static sg_status infer_input(infer *in, size_t rank, const int64_t *shape)
{
    sg_exprs *x = in->e;
    sg_val in_dims[SG_MAX_RANK];
    for (size_t i = 0; i < rank; i++) {
        in_dims[i] = dim(in, (int)i);
        sg_val given = shape[i] < 0 ? sg_x_dim_given(x, i) : in_dims[i];
        if (shape[i] < 0 && check(in, sg_x_lt(x, given, sg_const(0)), SG_XC_SHAPE, SG_ERR_SLICE, given,
                                  sg_const(0), sg_const(0),
                                  "failed to plan slice: input dimension %zu has negative size %%lld", i) != SG_OK)
            return in->err->status;
    }
    return count_elements(in, in_dims, rank, "input", &in->s->in_count, &in->s->in_bytes);
}

static sg_status infer_all(infer *in, const sg_spec *spec, size_t rank, const int64_t *shape)
{
    sg_plan *p = in->p;
    if (check_values(in, spec) != SG_OK || infer_input(in, rank, shape) != SG_OK)
        return in->err->status;
    sg_status st;
    switch (spec->op) {
    case SG_OP_SLICE:
    case SG_OP_ONNX_SLICE: st = infer_slice(in, spec); break;
    case SG_OP_TRT_SLICE: st = infer_trt(in, spec); break;
    case SG_OP_PAD: st = infer_pad(in, spec); break;
    case SG_OP_SPLIT: st = infer_split(in, spec); break;
    default: st = infer_steps(in, spec); break;
    }
    if (st != SG_OK)
        return st;
    return count_elements(in, in->s->count, p->out_rank, "output", &in->s->out_count, &in->s->out_bytes);
}

/* A plan's input (op, element type, rank and shape; -1 dimensions only
 * where `symbolic`) checked and set, and its expressions' sg_sym
 * allocated into *sym. */
static sg_status start_plan(sg_plan *p, sg_op op, size_t rank, const int64_t *shape, sg_dtype dtype,
                            bool symbolic, sg_sym **sym, sg_error *err)
{
    if (sg_dtype_size(dtype) == 0)
        return sg_fail(err, SG_ERR_USAGE, "failed to plan slice: unknown element type %d", (int)dtype);
    if (rank > SG_MAX_RANK)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan slice: input rank %zu exceeds the limit of %d", rank,
                       SG_MAX_RANK);
    for (size_t i = 0; i < rank; i++)
        if (shape[i] < -1 || (shape[i] == -1 && !symbolic))
            return sg_fail(err, SG_ERR_SLICE, "failed to plan slice: input dimension %zu has negative size %lld",
                           i, (long long)shape[i]);
    p->op = op;
    p->dtype = dtype;
    p->elem_size = sg_dtype_size(dtype);
    p->in_rank = rank;
    if (rank)
        memcpy(p->in_shape, shape, rank * sizeof *shape);
    if ((*sym = calloc(1, sizeof **sym)) == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    return SG_OK;
}

sg_status sg_infer_shape(const sg_spec *spec, size_t rank, const int64_t *shape, sg_dtype dtype, sg_plan *p,
                         sg_error *err)
{
    bool symbolic = has_values(spec, rank, shape);
    sg_sym *s;
    if (start_plan(p, spec->op, rank, shape, dtype, symbolic, &s, err) != SG_OK)
        return err->status;
    infer in = {p, s, &s->ex, err, sg_op_name(spec->op), NULL, NULL};
    sg_status st = infer_all(&in, spec, rank, shape);
    if (st == SG_OK && s->ex.nomem)
        st = sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    if (st == SG_OK && symbolic) {
        s->nvalues = spec->nvalues;
        for (size_t i = 0; i < p->out_rank; i++)
            p->out_shape[i] = sg_is_const(s->count[i]) ? s->count[i].k : -1;
        if (sg_spec_copy(spec, &s->spec, err) != SG_OK)
            st = err->status;
        p->sym = s;
        return st;
    }
    if (st == SG_OK) { /* everything folded: a static plan */
        for (size_t i = 0; i < p->out_rank; i++) {
            p->map[i].start = s->start[i].k;
            p->map[i].step = s->step[i].k;
            p->map[i].count = p->out_shape[i] = s->count[i].k;
            if (p->map[i].in_axis >= 0 && spec->op == SG_OP_PAD) {
                p->map[i].crop_begin = s->window_lo[i].k;
                p->map[i].crop_end = shape[p->map[i].in_axis] - s->window_lo[i].k - s->window[i].k;
            }
        }
        for (size_t f = 0; f < p->nfixed; f++)
            p->fixed[f].index = s->fixed[f].k;
        p->in_count = s->in_count.k;
        p->in_bytes = (uint64_t)s->in_bytes.k;
        p->out_count = s->out_count.k;
        p->out_bytes = (uint64_t)s->out_bytes.k;
    }
    sg_exprs_free(&s->ex);
    free(s);
    return st;
}

/* ---- chains: a program of indices, flips, rolls, pads and layers, with runtime values ----
 *
 * Each stage maps the output dimensions of the one before: an index as
 * infer_steps infers it over the earlier stage's counts, a flip reverses
 * its axes, a roll makes an axis wrap around, a pad widens an axis with
 * the coordinates beyond its ends passed through np.pad's mode, a model
 * layer is one of these by its op (chain_layer). Composed,
 * every output dimension still reads one input axis (or is new) at a
 * coordinate x = start + y * step: the index itself, or for a rolled or
 * padded axis the index lo + mode(x) of the window [lo, lo + n) of the
 * input axis that the roll's or pad's operand read (a roll's mode is
 * WRAP). Shrunk axes are fixed. Without rolls and pads that is one plan
 * of an ordinary slice; with them, one of a border mode over windows (a
 * Pad's), whose other axes read their coordinates, which lie inside: so
 * a chain has one mode (and one constant_values). Its checks are each
 * stage's, in the order NumPy makes them. */

typedef struct chain {
    size_t rank;
    int axis[SG_MAX_RANK]; /* input axis, -1 for a new one */
    sg_val start[SG_MAX_RANK], step[SG_MAX_RANK], count[SG_MAX_RANK];
    bool moded[SG_MAX_RANK]; /* rolled or padded: index lo + mode(x) * wstep */
    sg_val lo[SG_MAX_RANK], n[SG_MAX_RANK], wstep[SG_MAX_RANK];
    sg_trt_mode mode;     /* of the moded axes: SG_TRT_STRICT while there are none */
    const char *mode_by;  /* what set it: "np.roll", "np.pad" */
    uint8_t fill[8];      /* FILL: constant_values in the element type */
    size_t nfixed;
    int fixed_axis[SG_MAX_RANK];
    sg_val fixed[SG_MAX_RANK];
} chain;

/* The input index that coordinate x of dimension a of chain c reads
 * (mode(x) of a moded axis over its window of n >= 1 elements, n = 0
 * being refused by the pad's or never read). */
static sg_status chain_index_at(infer *in, const chain *c, size_t a, sg_val x, sg_val *index)
{
    sg_exprs *e = in->e;
    sg_val n = c->n[a], zero = sg_const(0), mode_x;
    if (!c->moded[a]) {
        *index = x;
        return SG_OK;
    }
    switch (c->mode) {
    case SG_TRT_WRAP:
        mode_x = sg_x(e, SG_X_SREM, x, n);
        break;
    case SG_TRT_CLAMP:
        mode_x = sg_x_max(e, sg_x_min(e, x, sg_x_sub(e, n, sg_const(1))), zero);
        break;
    case SG_TRT_REFLECT: { /* c = |x| mod (2n - 2): below n, c; else 2n - 2 - c (0 for n = 1) */
        sg_val period = sg_x_sub(e, sg_x_add(e, n, n), sg_const(2));
        sg_val rem = sg_x(e, SG_X_SREM, sg_x_max(e, x, sg_x_sub(e, zero, x)), period);
        mode_x = sg_x_select(e, sg_x_lt(e, rem, n), rem, sg_x_sub(e, period, rem));
        break;
    }
    default:
        return sg_fail(in->err, SG_ERR_USAGE,
                       "failed to plan program: an integer index into an axis that %s pads with a constant "
                       "is not supported with runtime values or dimensions known only at run time ('?') yet "
                       "(axis %zu)",
                       c->mode_by, a);
    }
    *index = sg_x_add(e, c->lo[a], sg_x_mul(e, mode_x, c->wstep[a]));
    return SG_OK;
}

/* Makes axis a of chain c the window of n elements of the input axis it
 * reads, operand element j at index lo + j * wstep, its coordinate x of
 * operand element j: j + first (the step 1 or any step known only at run
 * time: the window's elements the view's), or n - 1 - j + first_down (the
 * step -1: the window's elements ascending, so that its runs are copies;
 * the modes are symmetric under reversal of the window). */
static void chain_window(infer *in, chain *c, size_t a, sg_val first, sg_val first_down)
{
    sg_exprs *x = in->e;
    sg_val n = c->count[a], step = c->step[a];
    bool down = sg_is_const(step) && step.k == -1;
    c->moded[a] = true;
    c->n[a] = n;
    c->wstep[a] = down || c->axis[a] < 0 ? sg_const(1) : step;
    if (c->axis[a] < 0) /* a new axis: a window of one element (or none), read at stride 0 */
        c->lo[a] = sg_const(0);
    else
        c->lo[a] = !down ? c->start[a]
                         : sg_x_select(x, sg_x_lt(x, sg_const(0), n),
                                       sg_x_sub(x, c->start[a], sg_x_sub(x, n, sg_const(1))), sg_const(0));
    c->start[a] = down ? first_down : first;
    c->step[a] = sg_const(down ? -1 : 1);
}

/* Whether axis a of chain c can become a window: not one already; else
 * the refusal naming `what`. */
static sg_status chain_windowable(infer *in, const chain *c, size_t a, const char *what)
{
    if (!c->moded[a])
        return SG_OK;
    return sg_fail(in->err, SG_ERR_USAGE,
                   "failed to plan program: %s with runtime values or dimensions known only at run time ('?') "
                   "takes only axes not rolled or padded before, not axis %zu yet",
                   what, a);
}

/* Sets the chain's one border mode to `mode` of `what` (FILL: its value
 * `fill`), or refuses a second. */
static sg_status chain_mode(infer *in, chain *c, sg_trt_mode mode, const char *what, const uint8_t fill[8])
{
    bool same = c->mode == mode && (mode != SG_TRT_FILL || memcmp(c->fill, fill, sizeof c->fill) == 0);
    if (c->mode != SG_TRT_STRICT && !same)
        return sg_fail(in->err, SG_ERR_USAGE,
                       "failed to plan program: with runtime values or dimensions known only at run time ('?') "
                       "a chain takes one border mode, not %s's '%s' and %s's '%s' (nor two constant_values) yet",
                       c->mode_by, sg_numpy_pad_mode_name(c->mode), what, sg_numpy_pad_mode_name(mode));
    c->mode = mode, c->mode_by = what;
    if (fill != NULL)
        memcpy(c->fill, fill, sizeof c->fill);
    return SG_OK;
}

/* Composes a stage onto chain c: `stage` and `scratch` as an infer over
 * the chain's dimensions made them (infer_steps, infer_slice, infer_trt
 * of the strict mode, infer_split), each output dimension reading one of
 * the chain's at start + y * step (or a new axis), the fixed ones fixing. */
static sg_status chain_compose(infer *in, chain *c, const sg_plan *stage, const sg_sym *scratch)
{
    sg_exprs *x = in->e;
    chain next = *c;
    for (size_t f = 0; f < stage->nfixed; f++) {
        int a = stage->fixed[f].in_axis;
        if (c->axis[a] < 0 && !(c->moded[a] && c->mode == SG_TRT_FILL)) /* an index of a new axis: 0, or
                                                                            of its window of one element */
            continue;
        next.fixed_axis[next.nfixed] = c->axis[a];
        if (chain_index_at(in, c, (size_t)a, sg_x_add(x, c->start[a], sg_x_mul(x, scratch->fixed[f], c->step[a])),
                           &next.fixed[next.nfixed++]) != SG_OK)
            return in->err->status;
    }
    next.rank = stage->out_rank;
    for (size_t i = 0; i < stage->out_rank; i++) {
        int a = stage->map[i].in_axis;
        next.count[i] = scratch->count[i];
        next.moded[i] = false;
        if (a < 0 || (c->axis[a] < 0 && !c->moded[a])) {
            next.axis[i] = -1;
            next.start[i] = sg_const(0), next.step[i] = sg_const(0);
        } else { /* (a padded new axis keeps its window's coordinates) */
            next.axis[i] = c->axis[a];
            next.start[i] = sg_x_add(x, c->start[a], sg_x_mul(x, scratch->start[i], c->step[a]));
            next.step[i] = sg_x_mul(x, c->step[a], scratch->step[i]);
            next.moded[i] = c->moded[a], next.lo[i] = c->lo[a], next.n[i] = c->n[a], next.wstep[i] = c->wstep[a];
        }
    }
    *c = next;
    return SG_OK;
}

/* A stage over what chain c makes: its plan has the chain's rank, its
 * dimensions are the chain's counts, its numbers the program's values
 * (`global`, sg_program_values of the stage's spec). */
static infer chain_stage(infer *in, const chain *c, const char *op, const uint16_t *global, sg_plan *stage,
                         sg_sym *scratch)
{
    *stage = (sg_plan){.in_rank = c->rank, .elem_size = in->p->elem_size, .dtype = in->p->dtype};
    *scratch = (sg_sym){0}; /* its arrays only: the expressions are the plan's */
    return (infer){stage, scratch, in->e, in->err, op, c->count, global};
}

/* Index `index` (a node of `program`) of what chain c makes. */
static sg_status chain_index(infer *in, const sg_spec *program, const sg_spec *index, chain *c)
{
    uint16_t global[SG_MAX_VALUES];
    sg_program_values(program, index, global);
    sg_plan stage;
    sg_sym scratch;
    infer at = chain_stage(in, c, in->op, global, &stage, &scratch);
    if (infer_steps(&at, index) != SG_OK)
        return in->err->status;
    return chain_compose(in, c, &stage, &scratch);
}

/* np.flip (`node`) of what chain c makes. */
static sg_status chain_flip(infer *in, const sg_prog *node, chain *c)
{
    sg_exprs *x = in->e;
    bool flipped[SG_MAX_RANK];
    if (sg_flip_axes(node, c->rank, flipped, in->err) != SG_OK)
        return in->err->status;
    for (size_t a = 0; a < c->rank; a++) {
        if (!flipped[a] || (c->axis[a] < 0 && !c->moded[a]))
            continue;
        sg_val last = sg_x_add(x, c->start[a], sg_x_mul(x, sg_x_sub(x, c->count[a], sg_const(1)), c->step[a]));
        c->start[a] = sg_x_select(x, sg_x_lt(x, sg_const(0), c->count[a]), last, c->start[a]);
        c->step[a] = sg_x_sub(x, sg_const(0), c->step[a]);
    }
    return SG_OK;
}

/* np.roll (`node`) of what chain c makes: each axis rolled by the sum of
 * its shifts (runtime values of `program` where named), each modulo the
 * axis (what NumPy does; an empty axis stays).
 * The axis becomes the window of the input axis its operand reads
 * (chain_window), over which its coordinates wrap. */
static sg_status chain_roll(infer *in, const sg_spec *program, const sg_prog *node, chain *c)
{
    sg_exprs *x = in->e;
    int axis[SG_PROG_MAX_NUMBERS];
    int64_t shifts[SG_PROG_MAX_NUMBERS];
    const char *names[SG_PROG_MAX_NUMBERS];
    size_t count;
    if (sg_roll_pairs(node, c->rank, &count, axis, shifts, names, in->err) != SG_OK)
        return in->err->status;
    sg_val shift[SG_MAX_RANK];
    bool rolled[SG_MAX_RANK] = {false};
    for (size_t i = 0; i < count; i++) { /* an axis named twice: NumPy adds its shifts in int64, wrapping */
        int a = axis[i];
        sg_val given = names[i] ? sg_x_value(x, sg_program_value(program, names[i])) : sg_const(shifts[i]);
        shift[a] = rolled[a] ? sg_x_add(x, shift[a], given) : given;
        rolled[a] = true;
    }
    for (size_t a = 0; a < c->rank; a++)
        if (rolled[a])
            shift[a] = sg_x(x, SG_X_SREM, shift[a], c->count[a]);
    for (size_t a = 0; a < c->rank; a++) {
        if (!rolled[a] || (c->axis[a] < 0 && !c->moded[a])) /* a new axis: one element at most */
            continue;
        if (chain_windowable(in, c, a, "np.roll") != SG_OK || chain_mode(in, c, SG_TRT_WRAP, "np.roll", NULL) != SG_OK)
            return in->err->status;
        /* the output's y reads operand element j = (y - shift) mod n */
        sg_val n = c->count[a];
        chain_window(in, c, a, sg_x(x, SG_X_SREM, sg_x_sub(x, sg_const(0), shift[a]), n),
                     sg_x(x, SG_X_SREM, sg_x_sub(x, shift[a], sg_const(1)), n));
    }
    return SG_OK;
}

/* np.pad (`node`) of what chain c makes: each padded axis becomes the
 * window its operand read (chain_window), its coordinates beyond the
 * window's ends passed through the pad's mode (a chain has one: np.pad's
 * 'symmetric' is not a mode a kernel of runtime values has yet), its
 * count the operand's and the widths (numbers, or runtime values of
 * `program` where named). NumPy's errors: the widths' (their broadcast
 * when the program is read, a negative one per call), an empty axis
 * extended by a mode other than constant (per call). Wrap repeats as NumPy 1.25
 * and later do (docs/programs.md); reflect wider than the axis less one
 * is refused per call (NumPy's rounds are not the mode's period). */
static sg_status chain_pad(infer *in, const sg_spec *program, const sg_prog *node, chain *c)
{
    sg_exprs *x = in->e;
    int64_t numbers[SG_MAX_RANK][2];
    const char *names[SG_MAX_RANK][2];
    uint8_t fill[8] = {0};
    sg_trt_mode mode = node->pad_mode;
    sg_val zero = sg_const(0);
    if (sg_pad_pairs(node, c->rank, numbers, names, in->err) != SG_OK ||
        (mode == SG_TRT_FILL && sg_pad_fill(&node->fill, in->p->dtype, fill, in->err) != SG_OK))
        return in->err->status;
    if (mode != SG_TRT_FILL && mode != SG_TRT_CLAMP && mode != SG_TRT_REFLECT && mode != SG_TRT_WRAP)
        return sg_fail(in->err, SG_ERR_USAGE,
                       "failed to plan program: np.pad's mode '%s' with runtime values or dimensions known "
                       "only at run time ('?') is not supported yet (constant, edge, reflect and wrap are)",
                       sg_numpy_pad_mode_name(mode));
    /* NumPy's check of the widths as written (of an array of no axes too),
     * before any axis is padded */
    sg_val widths[SG_MAX_RANK][2], negative = zero;
    for (size_t k = 0; node->width_names && k < node->width_rows * node->width_cols; k++)
        if (node->width_names[k] != NULL)
            negative = sg_x_or(x, negative,
                               sg_x_lt(x, sg_x_value(x, sg_program_value(program, node->width_names[k])), zero));
    for (size_t a = 0; a < c->rank; a++)
        for (int side = 0; side < 2; side++) {
            const char *name = names[a][side];
            widths[a][side] = name ? sg_x_value(x, sg_program_value(program, name)) : sg_const(numbers[a][side]);
        }
    if (check(in, negative, SG_XC_STEP, SG_ERR_SLICE, zero, zero, zero,
              "failed to plan program: np.pad: index can't contain negative values") != SG_OK)
        return in->err->status;
    for (size_t a = 0; a < c->rank; a++) {
        sg_val before = widths[a][0], after = widths[a][1];
        if (sg_is_const(before) && sg_is_const(after) && before.k == 0 && after.k == 0)
            continue;
        sg_val n = c->count[a], wide = sg_x_add(x, n, before), some = sg_x_lt(x, zero, sg_x_add(x, before, after));
        if (chain_windowable(in, c, a, "np.pad") != SG_OK || chain_mode(in, c, mode, "np.pad", fill) != SG_OK ||
            check(in, sg_x_or(x, sg_x(x, SG_X_ADD_OVF, n, before), sg_x(x, SG_X_ADD_OVF, wide, after)), SG_XC_SIZE,
                  SG_ERR_SLICE, zero, zero, zero,
                  "failed to plan program: np.pad: axis %zu would have more than 2^63 - 1 elements", a) != SG_OK ||
            (mode != SG_TRT_FILL &&
             check(in, sg_x_and(x, sg_x_eq(x, n, zero), some), SG_XC_EMPTY, SG_ERR_SLICE, zero, zero, zero,
                   "failed to plan program: np.pad: can't extend empty axis %zu using modes other than "
                   "'constant' or 'empty'",
                   a) != SG_OK))
            return in->err->status;
        /* NumPy pads by reflect in rounds, each mirroring at most what is
         * there (less the edge): the periodic mirror of the REFLECT mode
         * where one round does, both widths below the axis (or an axis of
         * one, repeated) */
        sg_val most = sg_x_sub(x, n, sg_const(1));
        if (mode == SG_TRT_REFLECT &&
            check(in,
                  sg_x_and(x, sg_x_lt(x, sg_const(1), n), sg_x_or(x, sg_x_lt(x, most, before), sg_x_lt(x, most, after))),
                  SG_XC_INDEX, SG_ERR_SLICE, n, before, after,
                  "failed to plan program: np.pad: reflect by more than an axis's size less one (axis %zu: "
                  "size %%lld, widths %%lld and %%lld) mirrors in rounds, which kernels of runtime values "
                  "do not yet",
                  a) != SG_OK)
            return in->err->status;
        /* the output's y reads operand element j = y - before */
        chain_window(in, c, a, sg_x_sub(x, zero, before), sg_x_add(x, most, before));
        c->count[a] = sg_x_add(x, wide, after);
    }
    /* the pad's result, which NumPy makes whole, fits (empty, any size) */
    sg_val bytes = sg_const((int64_t)in->p->elem_size), overflow = zero, empty = zero;
    for (size_t a = 0; a < c->rank; a++) {
        sg_val factor = sg_x_max(x, c->count[a], sg_const(1));
        empty = sg_x_or(x, empty, sg_x_eq(x, c->count[a], zero));
        overflow = sg_x_or(x, overflow, sg_x(x, SG_X_MUL_OVF, bytes, factor));
        bytes = sg_x_mul(x, bytes, factor);
    }
    return check(in, sg_x_and(x, overflow, sg_x_not(x, empty)), SG_XC_SIZE, SG_ERR_SLICE, zero, zero, zero,
                 "failed to plan program: np.pad's result has more than 2^63 - 1 bytes");
}

/* Whether a windowed stage leaves axis a of chain c as it is: it reads
 * every element where it lies (a Pad of no width there). */
static bool chain_keeps(const chain *c, size_t a, const sg_sym *scratch)
{
    const sg_val d = c->count[a];
    return sg_is_const(scratch->start[a]) && scratch->start[a].k == 0 && sg_is_const(scratch->step[a]) &&
           scratch->step[a].k == 1 && sg_is_const(scratch->window_lo[a]) && scratch->window_lo[a].k == 0 &&
           sg_same(scratch->window[a], d) && sg_same(scratch->count[a], d);
}

/* A model layer (`node`, its spec one layer's of an `aot --fuse` fusion)
 * of what chain c makes, with the layer's own semantics and checks: a
 * slice (StridedSlice, Slice, ONNX Slice, TrtSlice's strict mode, one
 * output of a Split) composes as an index; a Pad or a TrtSlice by a
 * border mode makes each axis it moves the window [lo, lo + n) its
 * operand reads (infer_pad's crop, TrtSlice's whole axis), its output y
 * at coordinate start + y * step of that window through the mode, as
 * np.pad's does (chain_pad). */
static sg_status chain_layer(infer *in, const sg_spec *program, const sg_prog *node, chain *c)
{
    sg_exprs *x = in->e;
    const sg_spec *spec = node->index;
    const char *op = sg_op_name(spec->op);
    uint16_t global[SG_MAX_VALUES];
    sg_program_values(program, spec, global);
    sg_plan stage;
    sg_sym scratch;
    infer at = chain_stage(in, c, op, global, &stage, &scratch);
    sg_status st = check_values(&at, spec);
    if (st != SG_OK)
        return st;
    switch (spec->op) {
    case SG_OP_STRIDED_SLICE:
    case SG_OP_NUMPY: st = infer_steps(&at, spec); break;
    case SG_OP_SLICE:
    case SG_OP_ONNX_SLICE: st = infer_slice(&at, spec); break;
    case SG_OP_TRT_SLICE: st = infer_trt(&at, spec); break;
    case SG_OP_PAD: { /* the operand's count of elements, as far as infer_pad reads it: 0 exactly
                         when the operand is empty */
        sg_val empty = sg_const(0);
        for (size_t a = 0; a < c->rank; a++)
            empty = sg_x_or(x, empty, sg_x_eq(x, c->count[a], sg_const(0)));
        scratch.in_count = sg_x_select(x, empty, sg_const(0), sg_const(1));
        st = infer_pad(&at, spec);
        break;
    }
    case SG_OP_SPLIT: st = infer_split(&at, spec); break;
    default:
        return sg_fail(in->err, SG_ERR_USAGE, "failed to plan program: a layer of %s is not a slice", op);
    }
    if (st != SG_OK)
        return st;
    if (stage.mode == SG_TRT_STRICT)
        return chain_compose(in, c, &stage, &scratch);
    if (stage.mode != SG_TRT_FILL && stage.mode != SG_TRT_CLAMP && stage.mode != SG_TRT_REFLECT &&
        stage.mode != SG_TRT_WRAP)
        return sg_fail(in->err, SG_ERR_USAGE,
                       "failed to plan program: %s's mode '%s' with runtime values or dimensions known only at "
                       "run time ('?') is not supported in a program yet",
                       op, sg_trt_mode_name(stage.mode));
    if (stage.mode == SG_TRT_FILL && !sg_is_const(scratch.fill))
        return sg_fail(in->err, SG_ERR_USAGE,
                       "failed to plan program: %s's fill value given at run time is not supported in a program yet",
                       op);
    for (size_t a = 0; a < c->rank; a++) {
        if (chain_keeps(c, a, &scratch))
            continue;
        if (chain_windowable(in, c, a, op) != SG_OK || chain_mode(in, c, stage.mode, op, stage.fill) != SG_OK)
            return in->err->status;
        sg_val lo = scratch.window_lo[a], n = scratch.window[a], start = scratch.start[a];
        c->start[a] = sg_x_add(x, c->start[a], sg_x_mul(x, lo, c->step[a]));
        c->count[a] = n;
        chain_window(in, c, a, start, sg_x_sub(x, sg_x_sub(x, n, sg_const(1)), start));
        c->step[a] = sg_x_mul(x, c->step[a], scratch.step[a]);
        c->count[a] = scratch.count[a];
    }
    return SG_OK;
}

/* The checks the indices of node and below make of their numbers (a zero
 * step), innermost first: made when the program is read, so before any
 * stage's. */
static sg_status chain_steps(infer *in, const sg_spec *program, const sg_prog *node)
{
    if (node->kind == SG_PROG_INPUT)
        return SG_OK;
    if (node->kind == SG_PROG_CONCAT) { /* its arrays in order */
        for (size_t k = 0; k < node->nargs; k++)
            if (chain_steps(in, program, node->args[k]) != SG_OK)
                return in->err->status;
        return SG_OK;
    }
    if (chain_steps(in, program, node->args[0]) != SG_OK)
        return in->err->status;
    if (node->kind != SG_PROG_INDEX)
        return SG_OK;
    uint16_t global[SG_MAX_VALUES];
    sg_program_values(program, node->index, global);
    infer at = *in;
    at.global = global;
    return check_values(&at, node->index);
}

/* The stages of node and below, innermost first. */
static sg_status chain_stages(infer *in, const sg_spec *program, const sg_prog *node, chain *c)
{
    if (node->kind == SG_PROG_INPUT)
        return SG_OK;
    if (chain_stages(in, program, node->args[0], c) != SG_OK)
        return in->err->status;
    switch (node->kind) {
    case SG_PROG_INDEX: return chain_index(in, program, node->index, c);
    case SG_PROG_FLIP: return chain_flip(in, node, c);
    case SG_PROG_PAD: return chain_pad(in, program, node, c);
    case SG_PROG_LAYER: return chain_layer(in, program, node, c);
    default: return chain_roll(in, program, node, c);
    }
}

/* The first form of node and below that a chain lacks, or NULL. */
static const char *not_chain(const sg_prog *node)
{
    switch (node->kind) {
    case SG_PROG_INPUT: return NULL;
    case SG_PROG_INDEX:
    case SG_PROG_FLIP:
    case SG_PROG_ROLL:
    case SG_PROG_PAD:
    case SG_PROG_LAYER: return not_chain(node->args[0]);
    case SG_PROG_CONCAT: return "np.concatenate";
    }
    return "?";
}

/* The chain of `node` (one: not_chain(node) is NULL) over the input of
 * `rank` dimensions, its stages' checks added in order. */
static sg_status chain_of(infer *in, const sg_spec *program, const sg_prog *node, size_t rank, chain *c)
{
    *c = (chain){.rank = rank, .mode = SG_TRT_STRICT};
    for (size_t i = 0; i < rank; i++)
        c->axis[i] = (int)i, c->start[i] = sg_const(0), c->step[i] = sg_const(1), c->count[i] = dim(in, (int)i);
    return chain_stages(in, program, node, c);
}

/* Plan p and its sym s, of the input `in` plans, made what chain c reads:
 * its op and mode, map, shape inference and output size (the size's checks
 * made when `checked`, else only computed: a part of a concatenate, whose
 * result's size is checked). */
static sg_status chain_plan(infer *in, const chain *c, sg_plan *p, sg_sym *s, bool checked)
{
    p->out_rank = c->rank;
    if (c->mode != SG_TRT_STRICT) { /* a roll's or a pad's: a border mode over windows (planner.h, sg_sym) */
        p->op = SG_OP_PAD, p->mode = c->mode;
        memcpy(p->fill, c->fill, sizeof p->fill);
    }
    for (size_t i = 0; i < c->rank; i++) {
        p->map[i].in_axis = c->axis[i];
        s->start[i] = c->start[i], s->step[i] = c->step[i], s->count[i] = c->count[i];
        s->window_lo[i] = c->moded[i] ? c->lo[i] : sg_const(0);
        s->window_step[i] = c->moded[i] ? c->wstep[i] : sg_const(1);
        s->window[i] = c->moded[i] ? c->n[i] : c->axis[i] < 0 ? sg_const(1) : dim(in, c->axis[i]);
        p->out_shape[i] = sg_is_const(c->count[i]) ? c->count[i].k : -1;
    }
    p->nfixed = c->nfixed;
    for (size_t f = 0; f < c->nfixed; f++)
        p->fixed[f].in_axis = c->fixed_axis[f], s->fixed[f] = c->fixed[f];
    if (checked)
        return count_elements(in, s->count, p->out_rank, "output", &s->out_count, &s->out_bytes);
    sg_exprs *x = in->e;
    sg_val n = sg_const(1);
    for (size_t i = 0; i < c->rank; i++)
        n = sg_x_mul(x, n, c->count[i]);
    s->out_count = n;
    s->out_bytes = sg_x_mul(x, n, sg_const((int64_t)p->elem_size));
    return SG_OK;
}

/* np.concatenate (`node`, the program's root) of chains: each part a
 * plan of its own (p->parts, their sym's expressions p->sym's), its box
 * at an offset along the axis known per call; NumPy's checks in NumPy's
 * order: each part's stages, then its rank and dimensions against the
 * first's, then the result's size. */
static sg_status infer_concat(infer *in, const sg_spec *program, const sg_prog *node)
{
    sg_plan *p = in->p;
    sg_sym *s = in->s;
    sg_exprs *x = in->e;
    int axis = 0;
    if ((p->parts = calloc(node->nargs ? node->nargs : 1, sizeof *p->parts)) == NULL)
        return sg_fail(in->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
    for (size_t k = 0; k < node->nargs; k++) {
        const char *form = not_chain(node->args[k]);
        if (form != NULL)
            return sg_fail(in->err, SG_ERR_USAGE,
                           "failed to plan program: runtime values and dimensions known only at run time ('?') "
                           "are supported in np.concatenate of chains, not of %s yet",
                           form);
        chain c;
        sg_plan *q = calloc(1, sizeof *q);
        sg_sym *qs = calloc(1, sizeof *qs);
        if (q == NULL || qs == NULL) {
            free(q);
            free(qs);
            return sg_fail(in->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
        }
        *q = (sg_plan){.op = SG_OP_NUMPY, .dtype = p->dtype, .elem_size = p->elem_size, .in_rank = p->in_rank,
                       .part = true, .sym = qs};
        memcpy(q->in_shape, p->in_shape, sizeof q->in_shape);
        qs->shares_ex = true; /* p->sym's, once planned (sg_plan_fold_symbolic) */
        p->parts[p->nparts++].plan = q;
        if (chain_of(in, program, node->args[k], p->in_rank, &c) != SG_OK ||
            chain_plan(in, &c, q, qs, false) != SG_OK)
            return in->err->status;
        qs->in_count = s->in_count, qs->in_bytes = s->in_bytes;
        if (k == 0) {
            if (c.rank == 0)
                return sg_fail(in->err, SG_ERR_SLICE,
                               "failed to plan program: np.concatenate: zero-dimensional arrays cannot be "
                               "concatenated");
            if (node->axis < -(int64_t)c.rank || node->axis >= (int64_t)c.rank)
                return sg_fail(in->err, SG_ERR_SLICE,
                               "failed to plan program: np.concatenate: axis %lld is out of bounds for array of "
                               "dimension %zu",
                               (long long)node->axis, c.rank);
            axis = (int)(node->axis < 0 ? node->axis + (int64_t)c.rank : node->axis);
            p->out_rank = c.rank;
            for (size_t i = 0; i < c.rank; i++)
                s->count[i] = i == (size_t)axis ? sg_const(0) : c.count[i];
        } else if (c.rank != p->out_rank) {
            return sg_fail(in->err, SG_ERR_SLICE,
                           "failed to plan program: np.concatenate: all the input arrays must have same number of "
                           "dimensions, but the array at index 0 has %zu dimension(s) and the array at index %zu "
                           "has %zu dimension(s)",
                           p->out_rank, k, c.rank);
        }
        for (size_t i = 0; i < c.rank && k > 0; i++)
            if ((int)i != axis &&
                check(in, sg_x_not(x, sg_x_eq(x, c.count[i], s->count[i])), SG_XC_SHAPE, SG_ERR_SLICE, s->count[i],
                      c.count[i], sg_const(0),
                      "failed to plan program: np.concatenate: all the input array dimensions except for the "
                      "concatenation axis must match exactly, but along dimension %zu, the array at index 0 "
                      "has size %%lld and the array at index %zu has size %%lld",
                      i, k) != SG_OK)
                return in->err->status;
        qs->part_at = s->count[axis]; /* (in elements along the axis; bytes once folded) */
        if (check(in, sg_x(x, SG_X_ADD_OVF, s->count[axis], c.count[axis]), SG_XC_SIZE, SG_ERR_SLICE, sg_const(0),
                  sg_const(0), sg_const(0),
                  "failed to plan program: np.concatenate: the result has more than 2^63 - 1 elements") != SG_OK)
            return in->err->status;
        s->count[axis] = sg_x_add(x, s->count[axis], c.count[axis]);
    }
    s->concat_axis = axis;
    for (size_t i = 0; i < p->out_rank; i++)
        p->out_shape[i] = sg_is_const(s->count[i]) ? s->count[i].k : -1;
    return count_elements(in, s->count, p->out_rank, "np.concatenate's result", &s->out_count, &s->out_bytes);
}

/* The depth of the input under node, as the static planner counts it
 * (program.c: eval), which refuses programs nested more than
 * SG_PROG_MAX_DEPTH deep. */
static size_t prog_depth(const sg_prog *node)
{
    size_t d = 0;
    for (; node->kind != SG_PROG_INPUT && node->kind != SG_PROG_CONCAT; node = node->args[0])
        d++;
    size_t most = 0;
    for (size_t k = 0; node->kind == SG_PROG_CONCAT && k < node->nargs; k++) {
        size_t below = prog_depth(node->args[k]) + 1;
        most = below > most ? below : most;
    }
    return d + most;
}

sg_status sg_infer_chain(const sg_spec *program, size_t rank, const int64_t *shape, sg_dtype dtype, sg_plan *p,
                         sg_error *err)
{
    if (prog_depth(program->prog) > SG_PROG_MAX_DEPTH)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan program: nested more than %d deep", SG_PROG_MAX_DEPTH);
    bool concat = program->prog->kind == SG_PROG_CONCAT;
    const char *form = concat ? NULL : not_chain(program->prog);
    if (form != NULL)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to plan program: runtime values and dimensions known only at run time ('?') are "
                       "supported in chains of indices, np.flip, np.roll, np.pad and model layers, and in "
                       "np.concatenate of chains, not in %s yet",
                       form);
    sg_sym *s;
    if (start_plan(p, concat ? SG_OP_PROGRAM : SG_OP_NUMPY, rank, shape, dtype, true, &s, err) != SG_OK)
        return err->status;
    p->sym = s; /* sg_plan_free frees it */
    infer in = {p, s, &s->ex, err, sg_op_name(SG_OP_NUMPY), NULL, NULL};
    for (size_t i = 0; i < rank; i++) /* the input's dimensions, the first nodes */
        dim(&in, (int)i);
    chain c;
    if (chain_steps(&in, program, program->prog) != SG_OK || infer_input(&in, rank, shape) != SG_OK ||
        (concat ? infer_concat(&in, program, program->prog)
                : chain_of(&in, program, program->prog, rank, &c) != SG_OK ? err->status
                                                                            : chain_plan(&in, &c, p, s, true)) !=
            SG_OK)
        return err->status;
    if (s->ex.nomem)
        return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    s->nvalues = program->nvalues;
    return sg_spec_copy(program, &s->spec, err);
}

/* The mode's index (sg_mode_index: docs/semantics.md, "TensorRT
 * ISliceLayer"), over Pad's window, applied per element by the reference
 * interpreter and by the checker. tests/planner/test_modes.c checks the
 * pieces against the formulas element by element. */
int64_t sg_plan_axis_index(const sg_plan *p, size_t dim, int64_t y)
{
    const sg_axis_map *m = &p->map[dim];
    if (m->in_axis < 0)
        return 0;
    int64_t x = m->start + y * m->step;
    if (!sg_op_mapped(p->op))
        return x;
    int64_t d = p->in_shape[m->in_axis] - m->crop_begin - m->crop_end, lo = m->crop_begin;
    if (p->mode == SG_TRT_STRICT)
        return x;
    int64_t index = sg_mode_index(p->mode, d, x);
    return index < 0 ? -1 : lo + index;
}

/* The plan checker: every invariant of both plan layers, run after each
 * folding transform and on every parsed plan. */
#include "planner.h"

#define REQUIRE(cond, ...)                                                                                   \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            return sg_fail(err, SG_ERR_INTERNAL, __VA_ARGS__);                                               \
    } while (0)

static sg_status check_map(const sg_plan *p, sg_error *err)
{
    bool used[SG_MAX_RANK] = {false};
    REQUIRE(p->in_rank <= SG_MAX_RANK && p->out_rank <= SG_MAX_RANK && p->nfixed <= p->in_rank,
            "rank out of range (input %zu, output %zu, fixed %zu)", p->in_rank, p->out_rank, p->nfixed);
    for (size_t f = 0; f < p->nfixed; f++) {
        const sg_fixed_axis *x = &p->fixed[f];
        REQUIRE(x->in_axis >= 0 && (size_t)x->in_axis < p->in_rank && !used[x->in_axis],
                "fixed axis %d invalid or repeated", x->in_axis);
        used[x->in_axis] = true;
        REQUIRE(x->index >= 0 && x->index < p->in_shape[x->in_axis], "fixed index %lld outside axis %d",
                (long long)x->index, x->in_axis);
    }
    for (size_t i = 0; i < p->out_rank; i++) {
        const sg_axis_map *m = &p->map[i];
        REQUIRE(m->count >= 0 && m->count == p->out_shape[i], "output dimension %zu: count %lld, shape %lld",
                i, (long long)m->count, (long long)p->out_shape[i]);
        if (m->in_axis < 0) {
            REQUIRE(m->count == 1 && !sg_op_mapped(p->op), "new axis %zu must have count 1", i);
            continue;
        }
        REQUIRE((size_t)m->in_axis < p->in_rank && !used[m->in_axis],
                "output dimension %zu reads axis %d twice or out of range", i, m->in_axis);
        used[m->in_axis] = true;
        int64_t d = p->in_shape[m->in_axis], last;
        REQUIRE(m->crop_begin >= 0 && m->crop_end >= 0 && m->crop_begin <= d - m->crop_end &&
                    (p->op == SG_OP_PAD || (m->crop_begin == 0 && m->crop_end == 0)),
                "output dimension %zu: crops %lld and %lld of an axis of size %lld", i,
                (long long)m->crop_begin, (long long)m->crop_end, (long long)d);
        if (m->count == 0)
            continue;
        REQUIRE(!__builtin_mul_overflow(m->count - 1, m->step, &last) &&
                    !__builtin_add_overflow(last, m->start, &last),
                "output dimension %zu: last index overflows", i);
        if (sg_op_mapped(p->op) && p->mode != SG_TRT_STRICT) {
            REQUIRE(d - m->crop_begin - m->crop_end > 0 || p->mode == SG_TRT_FILL || p->out_count == 0,
                    "output dimension %zu: %s mode on an empty axis or window", i, sg_trt_mode_name(p->mode));
            continue;
        }
        REQUIRE(m->start >= 0 && m->start < d && last >= 0 && last < d,
                "output dimension %zu reads indices %lld..%lld of an axis of size %lld", i,
                (long long)m->start, (long long)last, (long long)d);
    }
    for (size_t a = 0; a < p->in_rank; a++)
        REQUIRE(used[a], "input axis %zu is neither read nor fixed", a);
    return SG_OK;
}

static sg_status check_nest(const sg_plan *p, sg_error *err)
{
    if (p->out_count == 0) {
        REQUIRE(p->nloops == 0 && p->run_bytes == 0, "an empty output has loops");
        return SG_OK;
    }
    REQUIRE(p->run_bytes > 0 && p->run_bytes % (int64_t)p->elem_size == 0, "run of %lld bytes",
            (long long)p->run_bytes);
    int64_t dense = p->run_bytes;
    int64_t lo = p->base, hi = p->base; /* byte offsets of the first bytes read */
    bool reads = true;
    for (size_t i = p->nloops; i-- > 0;) {
        const sg_loop *l = &p->loops[i];
        REQUIRE(l->extent >= 1 && l->out_stride == dense,
                "loop %zu: extent %lld, out stride %lld, expected %lld", i, (long long)l->extent,
                (long long)l->out_stride, (long long)dense);
        REQUIRE(!__builtin_mul_overflow(dense, l->extent, &dense), "loop %zu: output size overflows", i);
        if (l->nseg == 0) {
            REQUIRE(l->period == 0, "loop %zu: a plain loop with period %lld", i, (long long)l->period);
            int64_t span;
            REQUIRE(!__builtin_mul_overflow(l->extent - 1, l->in_stride, &span), "loop %zu: span overflows",
                    i);
            REQUIRE(!__builtin_add_overflow(span > 0 ? hi : lo, span, span > 0 ? &hi : &lo),
                    "loop %zu: offset overflows", i);
            continue;
        }
        REQUIRE(l->seg0 <= p->nsegs && l->nseg <= p->nsegs - l->seg0, "loop %zu: segments out of range", i);
        int64_t total = 0, seg_lo = INT64_MAX, seg_hi = INT64_MIN;
        for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++) {
            const sg_segment *s = &p->segs[k];
            REQUIRE(s->count >= 1, "segment %zu has count %lld", k, (long long)s->count);
            REQUIRE(!__builtin_add_overflow(total, s->count, &total), "loop %zu: segment counts overflow", i);
            if (s->fill)
                continue;
            int64_t end;
            REQUIRE(!__builtin_mul_overflow(s->count - 1, s->in_step, &end) &&
                        !__builtin_add_overflow(end, s->in_offset, &end),
                    "segment %zu: offset overflows", k);
            seg_lo = s->in_offset < seg_lo ? s->in_offset : seg_lo;
            seg_lo = end < seg_lo ? end : seg_lo;
            seg_hi = s->in_offset > seg_hi ? s->in_offset : seg_hi;
            seg_hi = end > seg_hi ? end : seg_hi;
        }
        REQUIRE(l->period == 0 || (l->period > 0 && l->period < l->extent),
                "loop %zu: period %lld, extent %lld", i, (long long)l->period, (long long)l->extent);
        REQUIRE(total == (l->period ? l->period : l->extent),
                "loop %zu: segments count %lld iterations, extent %lld, period %lld", i, (long long)total,
                (long long)l->extent, (long long)l->period);
        if (seg_lo > seg_hi) {
            reads = false; /* every iteration fills: nothing below is read */
            continue;
        }
        REQUIRE(!__builtin_add_overflow(lo, seg_lo, &lo) && !__builtin_add_overflow(hi, seg_hi, &hi),
                "loop %zu: offset overflows", i);
    }
    REQUIRE((uint64_t)dense == p->out_bytes, "the loop nest writes %lld bytes, the output has %llu",
            (long long)dense, (unsigned long long)p->out_bytes);
    if (reads)
        REQUIRE(lo >= 0 && hi >= 0 && (uint64_t)hi + (uint64_t)p->run_bytes <= p->in_bytes,
                "the loop nest reads %lld-byte runs at offsets %lld..%lld of an input of %llu bytes",
                (long long)p->run_bytes, (long long)lo, (long long)hi, (unsigned long long)p->in_bytes);
    return SG_OK;
}

sg_status sg_plan_check(const sg_plan *p, sg_error *err)
{
    REQUIRE(sg_dtype_size(p->dtype) == p->elem_size && p->elem_size > 0, "element size %zu for type %d",
            p->elem_size, (int)p->dtype);
    REQUIRE(!sg_op_mapped(p->op) || (unsigned)p->mode <= SG_TRT_REFLECT, "unknown mode %d", (int)p->mode);
    REQUIRE(p->op != SG_OP_PAD || p->mode != SG_TRT_STRICT, "a Pad plan in strict mode");
    /* The fill value: an element's bytes in FILL mode, zeros otherwise. */
    bool fills = sg_op_mapped(p->op) && p->mode == SG_TRT_FILL;
    for (size_t b = fills ? p->elem_size : 0; b < sizeof p->fill; b++)
        REQUIRE(p->fill[b] == 0, "fill byte %zu is 0x%02x: %s", b, p->fill[b],
                fills ? "the fill value is wider than an element" : "a fill value without fill mode");
    if (check_map(p, err) != SG_OK)
        return err->status;
    return check_nest(p, err);
}

/* The plan checker: every invariant of both plan layers, run after each
 * folding transform and on every parsed plan. */
#include <string.h>

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
            REQUIRE((m->count == 1 || p->part) && !sg_op_mapped(p->op), "new axis %zu must have count 1", i);
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
    int64_t dense = p->run_bytes, last = p->run_bytes,
            span_out;                   /* bytes written; the end of the last write */
    int64_t lo = p->base, hi = p->base; /* byte offsets of the first bytes read */
    bool reads = true;
    for (size_t i = p->nloops; i-- > 0;) {
        const sg_loop *l = &p->loops[i];
        /* a part's loops write a box of a larger output: inside it, each
         * level past the span of the levels within it */
        REQUIRE(l->extent >= 1 &&
                    (p->part ? l->out_stride >= last || l->extent == 1 : l->out_stride == dense),
                "loop %zu: extent %lld, out stride %lld, expected %lld", i, (long long)l->extent,
                (long long)l->out_stride, (long long)(p->part ? last : dense));
        REQUIRE(!__builtin_mul_overflow(dense, l->extent, &dense) &&
                    !__builtin_mul_overflow(l->extent - 1, l->out_stride, &span_out) &&
                    !__builtin_add_overflow(last, span_out, &last),
                "loop %zu: output size overflows", i);
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
    REQUIRE(!p->part || last <= p->part_span, "the part writes %lld bytes past its box's start, %lld remain",
            (long long)last, (long long)p->part_span);
    if (reads)
        REQUIRE(lo >= 0 && hi >= 0 && (uint64_t)hi + (uint64_t)p->run_bytes <= p->in_bytes,
                "the loop nest reads %lld-byte runs at offsets %lld..%lld of an input of %llu bytes",
                (long long)p->run_bytes, (long long)lo, (long long)hi, (unsigned long long)p->in_bytes);
    return SG_OK;
}

/* A program: every part passes the checks and writes a box inside the
 * output, and the boxes tile the output exactly once (they are disjoint
 * and their elements add up to the output's). */
static sg_status check_program(const sg_plan *p, sg_error *err)
{
    int64_t total = 0;
    REQUIRE(p->nloops == 0 && p->sym == NULL && p->program != NULL && p->program->op == SG_OP_PROGRAM &&
                p->nparts <= SG_MAX_PARTS,
            "a program plan with loops, runtime values or %zu parts", p->nparts);
    for (size_t k = 0; k < p->nparts; k++) {
        const sg_part *a = &p->parts[k];
        const sg_plan *q = a->plan;
        REQUIRE(
            q != NULL && q->part && q->op != SG_OP_PROGRAM && q->dtype == p->dtype &&
                (q->out_rank == p->out_rank || (p->out_rank == 0 && q->out_rank == 1 && q->out_count == 1)),
            "part %zu: not a part of this program", k);
        REQUIRE(q->in_bytes == 0 || (q->in_rank == p->in_rank &&
                                     memcmp(q->in_shape, p->in_shape, p->in_rank * sizeof *p->in_shape) == 0),
                "part %zu reads another input", k);
        sg_error broken = {0};
        REQUIRE(sg_plan_check(q, &broken) == SG_OK, "part %zu: %s", k, broken.message);
        int64_t offset = 0, stride = (int64_t)p->elem_size;
        for (size_t j = p->out_rank; j-- > 0;) {
            REQUIRE(a->box[j] >= 0 && q->out_shape[j] >= 1 &&
                        a->box[j] <= p->out_shape[j] - q->out_shape[j] && q->out_strides[j] == stride,
                    "part %zu: dimension %zu: box %lld + %lld of %lld, stride %lld", k, j,
                    (long long)a->box[j], (long long)q->out_shape[j], (long long)p->out_shape[j],
                    (long long)q->out_strides[j]);
            offset += a->box[j] * stride;
            stride *= p->out_shape[j];
        }
        REQUIRE(offset == a->out_offset && q->part_span == (int64_t)p->out_bytes - offset,
                "part %zu: offset %lld, expected %lld", k, (long long)a->out_offset, (long long)offset);
        total += q->out_count;
        for (size_t m = 0; m < k; m++) {
            const sg_part *b = &p->parts[m];
            bool apart = false;
            for (size_t j = 0; j < p->out_rank && !apart; j++)
                apart = a->box[j] + q->out_shape[j] <= b->box[j] ||
                        b->box[j] + b->plan->out_shape[j] <= a->box[j];
            REQUIRE(apart, "parts %zu and %zu overlap", m, k);
        }
    }
    REQUIRE(total == p->out_count, "the parts write %lld elements, the output has %lld", (long long)total,
            (long long)p->out_count);
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
    if (p->op == SG_OP_PROGRAM)
        return check_program(p, err);
    if (check_map(p, err) != SG_OK)
        return err->status;
    return check_nest(p, err);
}

/* ---- a symbolic plan's nest for one call ------------------------------------------ */

/* *acc += v, false on overflow */
static bool add_to(int64_t *acc, int64_t v) { return !__builtin_add_overflow(*acc, v, acc); }

/* A symbolic nest's numbers for one call (a: SG_ARG_* slots; a
 * concatenate's part's gathered from its slots): the loops write
 * a[SG_ARG_OUTPUT_BYTES] bytes, densely or, for a part, as a box whose
 * rows lie apart, within the `whole` bytes of the output from byte `at`;
 * every byte read lies in the input; the outer range is the nest's. */
static sg_status check_nest_call(const sg_plan *p, const int64_t *a, int64_t at, int64_t whole, sg_error *err)
{
    const sg_sym *s = p->sym;
    int64_t elem = (int64_t)p->elem_size, bytes = a[SG_ARG_OUTPUT_BYTES], in_bytes = a[SG_ARG_INPUT_BYTES];
    int64_t run = a[SG_ARG_RUN_BYTES], base = a[SG_ARG_BASE], outer = a[SG_ARG_OUTER_EXTENT];
    if (bytes == 0) {
        REQUIRE(outer == 0 || (p->nloops == 0 && run == 0), "an empty output with an outer range of %lld",
                (long long)outer);
        return SG_OK;
    }
    REQUIRE(run > 0 && run % elem == 0, "this call's runs have %lld bytes", (long long)run);
    int64_t dense = run, last = run, lo = base, hi = base; /* last: the end of the last write */
    bool reads = true;
    for (size_t i = p->nloops; i-- > 0;) {
        const int64_t *l = a + SG_ARG_LOOPS + SG_LOOP_SLOTS * i;
        int64_t extent = l[SG_LOOP_EXTENT], in = l[SG_LOOP_IN_STRIDE], out = l[SG_LOOP_OUT_STRIDE], span;
        REQUIRE(extent >= 1 && (p->part ? out >= last || extent == 1 : out == dense),
                "this call's loop %zu: extent %lld, out stride %lld, expected %lld", i, (long long)extent,
                (long long)out, (long long)(p->part ? last : dense));
        REQUIRE(!__builtin_mul_overflow(dense, extent, &dense) &&
                    !__builtin_mul_overflow(extent - 1, out, &span) && add_to(&last, span),
                "this call's loop %zu: output size overflows", i);
        int64_t reach = extent - 1; /* an affine loop's iterations, or a mapped loop's window */
        if (s->mapped) {
            int64_t dim = l[SG_LOOP_DIM];
            REQUIRE(dim >= 0 && (dim > 0 || p->mode == SG_TRT_FILL),
                    "this call's mapped loop %zu reads a window of %lld in %s mode", i, (long long)dim,
                    sg_trt_mode_name(p->mode));
            reads = reads && dim > 0;
            reach = dim - 1;
        }
        REQUIRE(reach < 0 || !__builtin_mul_overflow(reach, in, &span), "this call's loop %zu: span overflows", i);
        if (reach >= 0)
            REQUIRE(add_to(span > 0 ? &hi : &lo, span), "this call's loop %zu: offset overflows", i);
    }
    REQUIRE(dense == bytes, "this call's nest writes %lld bytes, the output has %lld", (long long)dense,
            (long long)bytes);
    REQUIRE(at >= 0 && last <= whole - at, "this call's nest writes bytes %lld..%lld of an output of %lld",
            (long long)at, (long long)at + last, (long long)whole);
    if (reads)
        REQUIRE(lo >= 0 && hi >= 0 && hi <= in_bytes - run,
                "this call's nest reads %lld-byte runs at offsets %lld..%lld of an input of %lld bytes",
                (long long)run, (long long)lo, (long long)hi, (long long)in_bytes);
    if (s->mapped && p->nloops > 0) {
        int64_t n = a[SG_ARG_LOOPS + SG_LOOP_SLOTS * (p->nloops - 1) + SG_LOOP_EXTENT];
        int64_t x = a[SG_ARG_INTERIOR], y = a[SG_ARG_INTERIOR + 1];
        REQUIRE(0 <= x && x <= y && y <= n, "this call's interior [%lld, %lld) of %lld iterations", (long long)x,
                (long long)y, (long long)n);
    }
    /* the outer range: the outermost loop, the two outermost together, or pieces of the run */
    const int64_t *l0 = a + SG_ARG_LOOPS;
    int64_t steps = p->nloops == 0 ? (run + SG_RUN_PIECE - 1) / SG_RUN_PIECE
                    : a[SG_ARG_COLLAPSE] && p->nloops >= 2 ? l0[SG_LOOP_EXTENT] * l0[SG_LOOP_SLOTS + SG_LOOP_EXTENT]
                                                           : l0[SG_LOOP_EXTENT];
    REQUIRE(outer == steps, "this call's outer range is %lld steps, its nest's %lld", (long long)outer,
            (long long)steps);
    return SG_OK;
}

sg_status sg_plan_check_call(const sg_plan *p, const int64_t *args, sg_error *err)
{
    int64_t elem = (int64_t)p->elem_size, rank = (int32_t)(uint32_t)(uint64_t)args[SG_ARG_OUT_RANK];
    int64_t out_bytes = args[SG_ARG_OUTPUT_BYTES], in_bytes = args[SG_ARG_INPUT_BYTES];
    REQUIRE(rank == (int64_t)p->out_rank, "this call's output rank is %lld, the plan's %zu", (long long)rank,
            p->out_rank);
    int64_t count = elem;
    bool empty = false;
    for (int64_t i = 0; i < rank; i++) {
        int64_t d = args[SG_ARG_OUT_SHAPE + i];
        REQUIRE(d >= 0, "this call's output dimension %lld is %lld", (long long)i, (long long)d);
        empty = empty || d == 0;
        REQUIRE(empty || !__builtin_mul_overflow(count, d, &count), "this call's output size overflows");
    }
    REQUIRE(out_bytes == (empty ? 0 : count), "this call's output has %lld bytes, its shape %lld",
            (long long)out_bytes, (long long)(empty ? 0 : count));
    REQUIRE(in_bytes >= 0, "this call's input has %lld bytes", (long long)in_bytes);
    if (p->op != SG_OP_PROGRAM)
        return check_nest_call(p, args, 0, out_bytes, err);
    /* a concatenate: each part's nest writes its box, their outer ranges one after another, their
     * elements the output's */
    int64_t steps = 0, written = 0, lockstep = args[SG_ARG_LOCKSTEP], first = 0;
    REQUIRE((lockstep == 0 || lockstep == 1) && (lockstep == 0 || args[SG_ARG_LOCKSTEP_BLOCK] >= 1),
            "this call's lockstep %lld, in blocks of %lld steps", (long long)lockstep,
            (long long)args[SG_ARG_LOCKSTEP_BLOCK]);
    for (size_t k = 0; k < p->nparts; k++) {
        const sg_plan *q = p->parts[k].plan;
        int64_t a[SG_ARG_COUNT] = {0};
        for (int slot = SG_ARG_OUTER_EXTENT; slot < SG_ARG_LOOPS + SG_LOOP_SLOTS * (int)q->nloops; slot++)
            a[slot] = args[sg_sym_part_slot(p, k, slot)];
        sg_error part = {0};
        REQUIRE(check_nest_call(q, a, args[sg_sym_part_slot(p, k, SG_ARG_PART_AT)], out_bytes, &part) == SG_OK,
                "part %zu: %s", k, part.message);
        REQUIRE(add_to(&steps, a[SG_ARG_OUTER_EXTENT]) && add_to(&written, a[SG_ARG_OUTPUT_BYTES]),
                "this call's outer range overflows");
        first = k == 0 ? a[SG_ARG_OUTER_EXTENT] : first;
        REQUIRE(!lockstep || a[SG_ARG_OUTER_EXTENT] == first, "this call's part %zu in lockstep: %lld steps, "
                "the first part's %lld", k, (long long)a[SG_ARG_OUTER_EXTENT], (long long)first);
    }
    steps = lockstep ? first : steps;
    REQUIRE(args[SG_ARG_OUTER_EXTENT] == steps && written == out_bytes,
            "this call's outer range is %lld steps and its parts write %lld bytes, their outer ranges %lld steps "
            "and the output %lld bytes",
            (long long)args[SG_ARG_OUTER_EXTENT], (long long)written, (long long)steps, (long long)out_bytes);
    return SG_OK;
}

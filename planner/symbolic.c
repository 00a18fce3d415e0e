/* Plans with runtime values (planner.h): the loop nest of a symbolic plan,
 * its evaluation for one call, binding to a static plan, and its text. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* ---- the loop nest ----------------------------------------------------------
 *
 * The static fold's steps on expressions: one affine loop per output
 * dimension, the output dense; loops of extent known to be 1 dropped;
 * neighbours merged where their strides are equal expressions (so always,
 * whatever the values); the innermost loop made the run when it is
 * contiguous. Which loops exist is fixed; their numbers may not be. */

/* codegen's prefetch_distance over expressions: stride * max(DISTANCE /
 * |stride|, 1) when the input has more than SG_PREFETCH_INPUT bytes and
 * SG_PREFETCH_MIN <= |stride| <= SG_PREFETCH_MAX, else 0. */
static sg_val prefetch_distance(sg_exprs *x, sg_val in_bytes, sg_val stride)
{
    sg_val mag = sg_x_max(x, stride, sg_x_sub(x, sg_const(0), stride));
    sg_val worth = sg_x_and(x, sg_x_lt(x, sg_const(SG_PREFETCH_INPUT), in_bytes),
                            sg_x_and(x, sg_x_not(x, sg_x_lt(x, mag, sg_const(SG_PREFETCH_MIN))),
                                     sg_x_not(x, sg_x_lt(x, sg_const(SG_PREFETCH_MAX), mag))));
    /* floor(D / m) for m >= 1 is ceil((D + 1 - m) / m), 0 when D < m */
    sg_val times = sg_x(x, SG_X_CDIV, sg_x_sub(x, sg_const(SG_PREFETCH_DISTANCE + 1), mag), mag);
    sg_val ahead = sg_x_mul(x, stride, sg_x_max(x, times, sg_const(1)));
    return sg_x_select(x, worth, ahead, sg_const(0));
}

/* The iterations [range[0], range[1]) of [0, n) whose coordinate
 * start + y * step lies in [0, d), 0 <= range[0] <= range[1] <= n, without
 * overflow for any numbers whose coordinates fit (shape inference checks
 * they do): from the first such y, lo, whose coordinate x_lo is then
 * computed, as many as follow. */
static void interior(sg_exprs *x, sg_val start, sg_val step, sg_val d, sg_val n, sg_val range[2])
{
    sg_val zero = sg_const(0), one = sg_const(1);
    sg_val up = sg_x_lt(x, zero, step), down = sg_x_lt(x, step, zero);
    sg_val mag =
        sg_x_select(x, sg_x_eq(x, step, sg_const(INT64_MIN)), sg_const(INT64_MAX), sg_x_sub(x, zero, step));
    /* the first y inside: upwards, start < 0 needs ceil(-start / step) steps
     * (as cdiv(-(start + step), step) + 1, which cannot overflow); downwards,
     * start >= d needs ceil((start - d + 1) / |step|) */
    sg_val lo_up = sg_x_select(
        x, sg_x_lt(x, start, zero),
        sg_x_add(x, sg_x_min(x, sg_x(x, SG_X_CDIV, sg_x_sub(x, zero, sg_x_add(x, start, step)), step), n),
                 one),
        zero);
    /* (start - d + 1 wraps only for start = INT64_MAX and d = 0: nothing is inside then) */
    sg_val lo_down = sg_x_select(x, sg_x_lt(x, start, d), zero,
                                 sg_x(x, SG_X_CDIV, sg_x_add(x, sg_x_sub(x, start, d), one), mag));
    sg_val lo = sg_x_min(x, sg_x_select(x, up, lo_up, sg_x_select(x, down, lo_down, zero)), n);
    sg_val x_lo = sg_x_add(x, start, sg_x_mul(x, sg_x_select(x, sg_x_lt(x, lo, n), lo, zero), step));
    sg_val inside =
        sg_x_and(x, sg_x_lt(x, lo, n), sg_x_and(x, sg_x_not(x, sg_x_lt(x, x_lo, zero)), sg_x_lt(x, x_lo, d)));
    /* how many from lo on: floor((d - 1 - x_lo) / step) + 1 upwards,
     * floor(x_lo / |step|) + 1 downwards, all of them for step 0 */
    sg_val more = sg_x_select(x, up, sg_x(x, SG_X_CDIV, sg_x_sub(x, d, x_lo), step),
                              sg_x_select(x, down, sg_x(x, SG_X_CDIV, sg_x_add(x, x_lo, one), mag), n));
    more = sg_x_min(x, more, n); /* lo + more cannot wrap */
    range[0] = lo;
    range[1] = sg_x_select(x, inside, sg_x_min(x, sg_x_add(x, lo, more), n), lo);
}

/* Whether output dimension i of a mapped plan reads input axis `axis`
 * whole, in order, for every call (its coordinates 0, 1, ... all inside
 * the window, which is the axis), its input axis being `axis` and the
 * dimensions after it so too: then they are contiguous in the input as in
 * the output, and the mode never applies to them. */
static bool whole_axis(sg_plan *p, sg_exprs *x, size_t i, size_t axis)
{
    sg_sym *s = p->sym;
    sg_val one = sg_const(1), zero = sg_const(0);
    if (p->map[i].in_axis != (int)axis || axis >= p->in_rank)
        return false;
    sg_val d = p->in_shape[axis] < 0 ? sg_x_dim(x, axis) : sg_const(p->in_shape[axis]);
    return sg_same(s->start[i], zero) && sg_same(s->step[i], one) && sg_same(s->window_lo[i], zero) &&
           sg_same(s->window_step[i], one) && sg_same(s->window[i], d) && sg_same(s->count[i], d);
}

/* The nest of plan p, its expressions in x, writing an output whose
 * dimensions have out_counts elements (its own counts, or a concatenate's
 * result's, whose box it is): the trailing dimensions a mapped nest makes
 * its run only from dimension min_whole on. */
static sg_status fold_nest(sg_plan *p, sg_exprs *x, const sg_val *out_counts, size_t min_whole, sg_error *err)
{
    sg_sym *s = p->sym;
    sg_val axis_stride[SG_MAX_RANK], stride = sg_const((int64_t)p->elem_size);
    s->mapped = sg_op_mapped(p->op) && p->mode != SG_TRT_STRICT;
    for (size_t a = p->in_rank; a-- > 0;) {
        axis_stride[a] = stride;
        stride = sg_x_mul(x, stride, p->in_shape[a] < 0 ? sg_x_dim(x, a) : sg_const(p->in_shape[a]));
    }
    sg_val base = sg_const(0);
    for (size_t f = 0; f < p->nfixed; f++)
        base = sg_x_add(x, base, sg_x_mul(x, s->fixed[f], axis_stride[p->fixed[f].in_axis]));
    sg_val fixed_base = base;
    sg_val out = sg_const((int64_t)p->elem_size);
    sg_val extent[SG_MAX_RANK], in_stride[SG_MAX_RANK], out_stride[SG_MAX_RANK];
    for (size_t i = p->out_rank; i-- > 0;) {
        int a = p->map[i].in_axis;
        extent[i] = s->count[i];
        out_stride[i] = out;
        out = sg_x_mul(x, out, out_counts[i]);
        in_stride[i] = a < 0 ? sg_const(0) : sg_x_mul(x, s->step[i], axis_stride[a]);
        if (a >= 0)
            base = sg_x_add(x, base, sg_x_mul(x, s->start[i], axis_stride[a]));
    }
    sg_val elem = sg_const((int64_t)p->elem_size);
    if (s->mapped) { /* every dimension a mapped loop over its window; the run one element, or the
                        trailing dimensions the mode leaves as they are */
        sg_val window_base = fixed_base; /* (a chain's shrunk axes, planner.h: sg_infer_chain) */
        size_t whole = p->out_rank; /* dimensions [whole, out_rank): the run */
        while (whole > 1 && whole > min_whole && whole_axis(p, x, whole - 1, p->in_rank - (p->out_rank - (whole - 1))))
            whole--;
        for (size_t i = 0; i < p->out_rank; i++) {
            int a = p->map[i].in_axis; /* a new axis (a chain's): a window of one element */
            s->extent[i] = extent[i], s->out_stride[i] = out_stride[i];
            s->in_stride[i] = a < 0 ? sg_const(0) : sg_x_mul(x, s->window_step[i], axis_stride[a]);
            s->map_start[i] = s->start[i], s->map_step[i] = s->step[i];
            s->map_dim[i] = s->window[i];
            if (a >= 0 && (!sg_is_const(s->window_lo[i]) || s->window_lo[i].k != 0))
                window_base = sg_x_add(x, window_base, sg_x_mul(x, s->window_lo[i], axis_stride[a]));
        }
        p->nloops = whole;
        if (p->nloops > 0)
            interior(x, s->map_start[p->nloops - 1], s->map_step[p->nloops - 1], s->map_dim[p->nloops - 1],
                     s->extent[p->nloops - 1], s->interior);
        s->base = window_base;
        s->run_bytes = elem;
        for (size_t i = whole; i < p->out_rank; i++)
            s->run_bytes = sg_x_mul(x, s->run_bytes, s->count[i]);
        s->outer_extent = p->nloops
                              ? sg_x_select(x, sg_x_eq(x, s->out_count, sg_const(0)), sg_const(0), extent[0])
                              : sg_const(1);
        return x->nomem ? sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory") : SG_OK;
    }
    size_t n = 0;
    for (size_t i = 0; i < p->out_rank; i++) {
        if (sg_is_const(extent[i]) && extent[i].k == 1)
            continue;
        if (n > 0 && sg_same(in_stride[n - 1], sg_x_mul(x, extent[i], in_stride[i])) &&
            sg_same(out_stride[n - 1], sg_x_mul(x, extent[i], out_stride[i]))) {
            extent[n - 1] = sg_x_mul(x, extent[n - 1], extent[i]);
            in_stride[n - 1] = in_stride[i];
            out_stride[n - 1] = out_stride[i];
            continue;
        }
        extent[n] = extent[i], in_stride[n] = in_stride[i], out_stride[n] = out_stride[i];
        n++;
    }
    s->run_bytes = elem;
    if (n > 0 && sg_same(in_stride[n - 1], elem) && sg_same(out_stride[n - 1], elem)) {
        n--;
        s->run_bytes = sg_x_mul(x, extent[n], elem);
    }
    p->nloops = n;
    for (size_t i = 0; i < n; i++)
        s->extent[i] = extent[i], s->in_stride[i] = in_stride[i], s->out_stride[i] = out_stride[i];
    s->base = base;
    s->prefetch = n >= 2 ? prefetch_distance(x, s->in_bytes, in_stride[n - 2]) : sg_const(0);
    s->prefetch_runs = n >= 1 ? sg_x_select(x, sg_x_lt(x, s->run_bytes, sg_const(SG_PREFETCH_LINE)),
                                            sg_const(0), prefetch_distance(x, s->in_bytes, in_stride[n - 1]))
                              : sg_const(0);
    /* the two outermost loops taken together, so that threads share a short
     * outer loop of a large output (codegen.h, sg_nest_outer) */
    s->collapse = n >= 2 && !p->part /* (a concatenate's part: its outer range is its program's) */
                      ? sg_x_and(x, sg_x_lt(x, extent[0], sg_const(SG_SPLIT_STEPS)),
                                 sg_x_not(x, sg_x_lt(x, s->out_bytes, sg_const(SG_SPLIT_OUTPUT))))
                      : sg_const(0);
    sg_val steps = n >= 2   ? sg_x_select(x, s->collapse, sg_x_mul(x, extent[0], extent[1]), extent[0])
                   : n == 1 ? extent[0]
                            : sg_const(0);
    s->outer_extent = n > 0 ? sg_x_select(x, sg_x_eq(x, s->out_count, sg_const(0)), sg_const(0), steps)
                            : sg_x(x, SG_X_CDIV, s->run_bytes, sg_const(SG_RUN_PIECE));
    if (x->nomem)
        return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    return SG_OK;
}

/* The slots of part k of a concatenate's plan p (sg_sym_slots): from its
 * first, its numbers from SG_ARG_OUTER_EXTENT on, then its box's offset;
 * the first part's after the program's own (SG_ARG_LOOPS). *count: how
 * many (may be NULL). */
static size_t part_slots(const sg_plan *p, size_t k, size_t *count)
{
    size_t at = SG_ARG_LOOPS, n = 0;
    for (size_t j = 0; j <= k; j++) {
        at += n;
        n = SG_ARG_LOOPS - SG_ARG_OUTER_EXTENT + SG_LOOP_SLOTS * p->parts[j].plan->nloops + 1;
    }
    if (count)
        *count = n;
    return at;
}

size_t sg_sym_part_slot(const sg_plan *p, size_t k, int slot)
{
    size_t n, at = part_slots(p, k, &n);
    return slot == SG_ARG_PART_AT ? at + n - 1 : at + (size_t)(slot - SG_ARG_OUTER_EXTENT);
}

/* A concatenate's plan: each part's nest writing its box of the output
 * (the output's strides), at its offset in bytes; the outer range the
 * parts' one after another. Refused when the parts' numbers do not fit a
 * call's arguments. */
static sg_status fold_program(sg_plan *p, sg_error *err)
{
    sg_sym *s = p->sym;
    sg_exprs *x = &s->ex;
    int axis = s->concat_axis;
    sg_val axis_bytes = sg_const((int64_t)p->elem_size);
    for (size_t i = p->out_rank; i-- > (size_t)axis + 1;)
        axis_bytes = sg_x_mul(x, axis_bytes, s->count[i]);
    sg_val apart = sg_const(0), same = sg_const(1), first = sg_const(0);
    s->run_bytes = s->prefetch = s->prefetch_runs = sg_const(0);
    for (size_t k = 0; k < p->nparts; k++) {
        sg_plan *q = p->parts[k].plan;
        if (fold_nest(q, x, s->count, (size_t)axis + 1, err) != SG_OK)
            return err->status;
        q->sym->part_at = sg_x_mul(x, q->sym->part_at, axis_bytes);
        apart = sg_x_add(x, apart, q->sym->outer_extent);
        if (k == 0)
            first = q->sym->outer_extent;
        else
            same = sg_x_and(x, same, sg_x_eq(x, q->sym->outer_extent, first));
    }
    /* in lockstep where the parts' outer ranges are equal, of more than one
     * step (the static rule, codegen/emit.c), in blocks of about
     * SG_LOCKSTEP_BYTES of output: floor(L / b) = cdiv(L + 1 - b, b) for the
     * b bytes of a step, at least 1 */
    s->collapse = p->nparts >= 2 ? sg_x_and(x, same, sg_x_lt(x, sg_const(1), first)) : sg_const(0);
    sg_val step_bytes = sg_x_max(x, sg_x(x, SG_X_CDIV, s->out_bytes, sg_x_max(x, first, sg_const(1))), sg_const(1));
    sg_val blocks = sg_x(x, SG_X_CDIV, sg_x_sub(x, sg_const(SG_LOCKSTEP_BYTES + 1), step_bytes), step_bytes);
    s->base = sg_x_max(x, blocks, sg_const(1));
    s->outer_extent = sg_x_select(x, s->collapse, first, apart);
    size_t last = 0;
    if (p->nparts > 0)
        last = part_slots(p, p->nparts - 1, &last) + last;
    if (last > SG_ARG_COUNT)
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to plan program: np.concatenate of %zu arrays with runtime values or dimensions "
                       "known only at run time ('?') needs %zu numbers per call, more than a kernel's arguments "
                       "hold (%d)",
                       p->nparts, last, SG_ARG_COUNT);
    if (x->nomem)
        return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    for (size_t k = 0; k < p->nparts; k++) /* (no expression is added from here on) */
        p->parts[k].plan->sym->ex = s->ex;
    return SG_OK;
}

sg_status sg_plan_fold_symbolic(sg_plan *p, sg_error *err)
{
    if (p->op == SG_OP_PROGRAM)
        return fold_program(p, err);
    return fold_nest(p, &p->sym->ex, p->sym->count, 0, err);
}

sg_stride_kind sg_sym_inner_stride(const sg_plan *p, int64_t *multiple)
{
    const sg_sym *s = p->sym;
    if (s->mapped || p->nloops == 0)
        return SG_STRIDE_ANY;
    sg_val stride = s->in_stride[p->nloops - 1], stride_base, run_base;
    int64_t stride_k, run_k;
    sg_exprs_factor(&s->ex, stride, &stride_base, &stride_k);
    sg_exprs_factor(&s->ex, s->run_bytes, &run_base, &run_k);
    /* a multiple whose stride for a run of 4 elements is past int64 (a step
     * no call can take more than once) is left to the switch */
    int64_t limit = INT64_MAX / (4 * (int64_t)p->elem_size);
    if (sg_same(stride_base, run_base) && run_k > 0 && stride_k % run_k == 0 &&
        stride_k / run_k >= -limit && stride_k / run_k <= limit) {
        *multiple = stride_k / run_k;
        return SG_STRIDE_RUNS;
    }
    return sg_exprs_is_dim_product(&s->ex, stride) ? SG_STRIDE_AXIS : SG_STRIDE_ANY;
}

size_t sg_sym_slots(const sg_plan *p, sg_val *values, int *slots)
{
    const sg_sym *s = p->sym;
    size_t n = 0;
#define SLOT(v, slot) (values[n] = (v), slots[n++] = (int)(slot))
    /* int32 out_rank and int32 0, as one int64 on a little-endian target */
    SLOT(sg_const((int64_t)p->out_rank), SG_ARG_OUT_RANK);
    for (size_t i = 0; i < p->out_rank; i++) /* the entries past out_rank are left as they are */
        SLOT(s->count[i], SG_ARG_OUT_SHAPE + i);
    SLOT(s->outer_extent, SG_ARG_OUTER_EXTENT);
    SLOT(s->in_bytes, SG_ARG_INPUT_BYTES);
    SLOT(s->out_bytes, SG_ARG_OUTPUT_BYTES);
    if (p->op == SG_OP_PROGRAM) { /* a concatenate: lockstep, then each part's numbers where it keeps them */
        SLOT(s->collapse, SG_ARG_LOCKSTEP);
        SLOT(s->base, SG_ARG_LOCKSTEP_BLOCK);
        sg_val part_values[SG_ARG_COUNT];
        int part_slots_of[SG_ARG_COUNT];
        for (size_t k = 0; k < p->nparts; k++) {
            const sg_plan *q = p->parts[k].plan;
            size_t m = sg_sym_slots(q, part_values, part_slots_of);
            for (size_t i = 0; i < m; i++)
                if (part_slots_of[i] >= SG_ARG_OUTER_EXTENT)
                    SLOT(part_values[i], sg_sym_part_slot(p, k, part_slots_of[i]));
            SLOT(q->sym->part_at, sg_sym_part_slot(p, k, SG_ARG_PART_AT));
        }
        return n;
    }
    SLOT(s->base, SG_ARG_BASE);
    SLOT(s->run_bytes, SG_ARG_RUN_BYTES);
    SLOT(s->prefetch, SG_ARG_PREFETCH);
    SLOT(s->prefetch_runs, SG_ARG_PREFETCH_RUNS);
    SLOT(s->collapse, SG_ARG_COLLAPSE);
    if (s->mapped && p->nloops > 0) {
        SLOT(s->interior[0], SG_ARG_INTERIOR);
        SLOT(s->interior[1], SG_ARG_INTERIOR + 1);
    }
    if (p->mode == SG_TRT_FILL)
        SLOT(s->fill, SG_ARG_FILL);
    for (size_t i = 0; i < p->nloops; i++) {
        size_t at = SG_ARG_LOOPS + SG_LOOP_SLOTS * i;
        SLOT(s->extent[i], at + SG_LOOP_EXTENT);
        SLOT(s->in_stride[i], at + SG_LOOP_IN_STRIDE);
        SLOT(s->out_stride[i], at + SG_LOOP_OUT_STRIDE);
        if (s->mapped) {
            SLOT(s->map_start[i], at + SG_LOOP_START);
            SLOT(s->map_step[i], at + SG_LOOP_STEP);
            SLOT(s->map_dim[i], at + SG_LOOP_DIM);
        }
    }
#undef SLOT
    return n;
}

/* ---- one call ------------------------------------------------------------------ */

static sg_status check_shape(const sg_plan *p, const int64_t *in_shape, int *code, sg_error *err)
{
    for (size_t i = 0; i < p->in_rank; i++) {
        if (in_shape[i] < 0) { /* not a `?` here: every dimension is known */
            *code = SG_XC_SHAPE;
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to run kernel: input dimension %zu has negative size %lld", i,
                           (long long)in_shape[i]);
        }
        if (p->in_shape[i] >= 0 && in_shape[i] != p->in_shape[i]) {
            *code = SG_XC_SHAPE;
            return sg_fail(err, SG_ERR_USAGE,
                           "failed to run kernel: input dimension %zu has size %lld, the kernel's has %lld",
                           i, (long long)in_shape[i], (long long)p->in_shape[i]);
        }
    }
    return SG_OK;
}

/* "failed to run kernel: <what the check says> (t = 9, s = -1)" from the
 * check's message "failed to <verb> <op>: <what>". */
static void name_values(const sg_sym *s, const int64_t *values, sg_error *err)
{
    char text[sizeof err->message];
    const char *what = strstr(err->message, ": ");
    int at = snprintf(text, sizeof text, "failed to run kernel: %s", what ? what + 2 : err->message);
    for (size_t i = 0; i < s->nvalues && at > 0 && (size_t)at < sizeof text; i++)
        at += snprintf(text + at, sizeof text - (size_t)at, "%s%s = %lld", i ? ", " : " (",
                       s->spec->values[i], (long long)values[i]);
    if (s->nvalues > 0 && at > 0 && (size_t)at < sizeof text)
        snprintf(text + at, sizeof text - (size_t)at, ")");
    snprintf(err->message, sizeof err->message, "%s", text);
}

sg_status sg_plan_prepare(const sg_plan *p, const int64_t *in_shape, const int64_t *values, int64_t *args,
                          int *code, sg_error *err)
{
    const sg_sym *s = p->sym;
    *code = 0;
    if (check_shape(p, in_shape, code, err) != SG_OK)
        return err->status;
    int64_t local[256], *nodes = s->ex.n <= 256 ? local : malloc(s->ex.n * sizeof *nodes);
    if (nodes == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to run kernel: out of memory");
    sg_exprs_eval(&s->ex, in_shape, values, nodes, code, err);
    if (*code != 0) {
        name_values(s, values, err);
    } else {
        sg_val vals[SG_ARG_COUNT];
        int slots[SG_ARG_COUNT];
        size_t n = sg_sym_slots(p, vals, slots);
        int64_t call[SG_ARG_COUNT] = {0};
        for (size_t i = 0; i < n; i++)
            call[slots[i]] = sg_val_of(vals[i], nodes);
        sg_error broken = {0};
        if (sg_plan_check_call(p, call, &broken) != SG_OK)
            sg_fail(err, SG_ERR_INTERNAL, "failed to run kernel: the plan's nest is broken for this call: %s",
                    broken.message);
        else
            for (size_t i = 0; i < n; i++)
                args[slots[i]] = call[slots[i]];
    }
    if (nodes != local)
        free(nodes);
    return err->status;
}

sg_status sg_plan_bind(const sg_plan *p, const int64_t *in_shape, const int64_t *values, sg_plan **bound,
                       sg_error *err)
{
    int code;
    sg_spec *spec = NULL;
    if (check_shape(p, in_shape, &code, err) != SG_OK ||
        sg_spec_bind(p->sym->spec, values, &spec, err) != SG_OK)
        return err->status;
    if (p->sym->spec->fill_value != 0) /* the element of the bits given */
        spec->fill = sg_scalar_of_bits(p->dtype, values[p->sym->spec->fill_value - 1]);
    sg_status st = sg_plan_build(spec, p->in_rank, in_shape, p->dtype, bound, err);
    sg_spec_free(spec);
    return st;
}

/* ---- text ------------------------------------------------------------------------ */

static const char *const op_names[SG_X_COUNT] = {
    [SG_X_DIM] = "dim",
    [SG_X_VALUE] = "value",
    [SG_X_ADD] = "add",
    [SG_X_SUB] = "sub",
    [SG_X_MUL] = "mul",
    [SG_X_CDIV] = "cdiv",
    [SG_X_SREM] = "rem",
    [SG_X_MIN] = "min",
    [SG_X_MAX] = "max",
    [SG_X_LT] = "lt",
    [SG_X_EQ] = "eq",
    [SG_X_AND] = "and",
    [SG_X_OR] = "or",
    [SG_X_SELECT] = "select",
    [SG_X_ADD_OVF] = "add_overflows",
    [SG_X_MUL_OVF] = "mul_overflows",
};

static const char *const code_names[] = {"", "shape", "index", "step", "empty", "size"};

static void write_dims(FILE *out, const char *label, const int64_t *shape, size_t rank)
{
    fprintf(out, "%s [", label);
    for (size_t i = 0; i < rank; i++)
        shape[i] < 0 ? fprintf(out, "%s?", i ? "," : "") : fprintf(out, "%s%" PRId64, i ? "," : "", shape[i]);
    fputs("]\n", out);
}

/* The dim, fixed and nest lines of a symbolic plan, each after `indent`. */
static void write_nest(const sg_plan *p, FILE *out, const char *indent)
{
    const sg_sym *s = p->sym;
    char a[SG_VAL_TEXT], b[SG_VAL_TEXT], c[SG_VAL_TEXT];
    for (size_t i = 0; i < p->out_rank; i++) {
        if (p->map[i].in_axis < 0)
            fprintf(out, "%sdim %zu new\n", indent, i);
        else
            fprintf(out, "%sdim %zu axis %d start %s step %s count %s\n", indent, i, p->map[i].in_axis,
                    sg_val_text(s->start[i], a), sg_val_text(s->step[i], b), sg_val_text(s->count[i], c));
    }
    for (size_t f = 0; f < p->nfixed; f++)
        fprintf(out, "%sfixed axis %d index %s\n", indent, p->fixed[f].in_axis, sg_val_text(s->fixed[f], a));
    fprintf(out, "%sbase %s\n", indent, sg_val_text(s->base, a));
    for (size_t i = 0; i < p->nloops; i++) {
        fprintf(out, "%sloop extent %s in %s out %s", indent, sg_val_text(s->extent[i], a),
                sg_val_text(s->in_stride[i], b), sg_val_text(s->out_stride[i], c));
        if (s->mapped)
            fprintf(out, " %s start %s step %s dim %s", sg_trt_mode_name(p->mode),
                    sg_val_text(s->map_start[i], a), sg_val_text(s->map_step[i], b),
                    sg_val_text(s->map_dim[i], c));
        fputc('\n', out);
    }
    fprintf(out, "%srun %s\n", indent, sg_val_text(s->run_bytes, a));
    fprintf(out, "%sprefetch %s runs %s\n", indent, sg_val_text(s->prefetch, a), sg_val_text(s->prefetch_runs, b));
    fprintf(out, "%souter %s collapse %s\n", indent, sg_val_text(s->outer_extent, a), sg_val_text(s->collapse, b));
}

void sg_plan_write_symbolic(const sg_plan *p, FILE *out)
{
    const sg_sym *s = p->sym;
    char a[SG_VAL_TEXT], b[SG_VAL_TEXT], c[SG_VAL_TEXT];
    fputs("values", out);
    for (size_t i = 0; i < s->nvalues; i++)
        fprintf(out, " %s", s->spec->values[i]);
    fputc('\n', out);
    write_dims(out, "input", p->in_shape, p->in_rank);
    write_dims(out, "output", p->out_shape, p->out_rank);
    for (size_t i = 0; i < s->ex.n; i++) {
        const sg_xnode *x = &s->ex.nodes[i];
        fprintf(out, "%%%zu = %s", i + 1, op_names[x->op]);
        if (x->op == SG_X_DIM)
            fprintf(out, " %" PRId64 "\n", x->k);
        else if (x->op == SG_X_VALUE)
            fprintf(out, " %s\n", s->spec->values[x->k]);
        else if (x->op == SG_X_SELECT)
            fprintf(out, " %s %s %s\n", sg_val_text(x->a, a), sg_val_text(x->b, b), sg_val_text(x->c, c));
        else
            fprintf(out, " %s %s\n", sg_val_text(x->a, a), sg_val_text(x->b, b));
    }
    for (size_t i = 0; i < s->ex.nchecks; i++) {
        const sg_xcheck *k = &s->ex.checks[i];
        fprintf(out, "check %s if %s:", code_names[k->code], sg_val_text(k->cond, a));
        for (int j = 0; j < k->nargs; j++)
            fprintf(out, " %s", sg_val_text(k->args[j], b));
        fprintf(out, " \"%s\"\n", k->format);
    }
    if (p->op != SG_OP_PROGRAM) {
        write_nest(p, out, "");
        return;
    }
    fprintf(out, "outer %s lockstep %s block %s\n", sg_val_text(s->outer_extent, a), sg_val_text(s->collapse, b),
            sg_val_text(s->base, c));
    for (size_t k = 0; k < p->nparts; k++) {
        const sg_plan *q = p->parts[k].plan;
        fprintf(out, "part %zu at %s", k, sg_val_text(q->sym->part_at, a));
        if (q->op == SG_OP_PAD)
            fprintf(out, " mode %s", sg_trt_mode_name(q->mode));
        if (q->op == SG_OP_PAD && q->mode == SG_TRT_FILL) {
            uint64_t bits = 0;
            memcpy(&bits, q->fill, q->elem_size);
            fprintf(out, " fill 0x%0*" PRIx64, (int)(2 * q->elem_size), bits);
        }
        fputc('\n', out);
        write_nest(q, out, "  ");
    }
}

void sg_sym_free(sg_sym *s)
{
    if (s == NULL)
        return;
    if (!s->shares_ex)
        sg_exprs_free(&s->ex);
    sg_spec_free(s->spec);
    free(s);
}

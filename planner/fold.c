/* Folding: the shape-inference result becomes the loop nest the code
 * generator emits (see planner.h for its semantics). TensorRT dimensions
 * are split into affine segments: the in-bounds interior and the borders
 * (CLAMP's repeated edge, FILL's constant, WRAP's and REFLECT's folds), the
 * pieces of the mode's coordinates (modes.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* ---- TensorRT and Pad dimensions: segments of the mode's pieces ------------ */

/* Appends `next` to `last` if together they are one segment: both fill, or
 * one affine sequence (e.g. FILL jumping from below 0 to past d). */
static bool extend_segment(sg_segment *last, const sg_segment *next)
{
    if (last->fill || next->fill) {
        if (!(last->fill && next->fill))
            return false;
        last->count += next->count;
        return true;
    }
    int64_t step = last->count > 1 ? last->in_step
                 : next->count > 1 ? next->in_step : next->in_offset - last->in_offset;
    if ((next->count > 1 && next->in_step != step) ||
        next->in_offset != last->in_offset + last->count * step)
        return false;
    last->in_step = step;
    last->count += next->count;
    return true;
}

int64_t sg_gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Appends to p->segs the segments of TensorRT (or Pad) dimension `dim`,
 * whose mode maps coordinates over its window (the whole axis but for
 * Pad's crops); *repeat is
 * set to the loop's period (0: the segments cover all its iterations).
 * Fails once p has more than max_segs segments and needs another. */
static sg_status split_dimension(sg_plan *p, size_t dim, int64_t in_stride, size_t *cap, int64_t *repeat,
                                 size_t max_segs, sg_error *err)
{
    const sg_axis_map *m = &p->map[dim];
    int64_t d = p->in_shape[m->in_axis] - m->crop_begin - m->crop_end, start = m->start, s = m->step, n = m->count;
    size_t first = p->nsegs;
    int64_t period = p->mode == SG_TRT_WRAP ? d
                     : p->mode == SG_TRT_REFLECT && d > 1 && d < INT64_MAX / 2 ? 2 * d - 2 : 0;
    *repeat = 0;
    if (period > 0) {
        /* The index is periodic in x: reduce start and stride modulo the
         * period (stride to the smallest magnitude) so that each segment is
         * as long as it can be. Keep the original if that would overflow. */
        int64_t s2 = s % period, start2 = start % period, last;
        s2 += s2 < 0 ? period : 0;
        s2 -= s2 > period / 2 ? period : 0;
        start2 += start2 < 0 ? period : 0;
        /* y -> index repeats every period / gcd(s, period) iterations:
         * beyond a few periods, describe one and repeat it. */
        int64_t iterations = s2 == 0 ? 1 : period / sg_gcd(s2 < 0 ? -s2 : s2, period);
        int64_t described = n / 4 > iterations ? iterations : n;
        if (!__builtin_mul_overflow(described - 1, s2, &last) && !__builtin_add_overflow(last, start2, &last)) {
            start = start2;
            s = s2;
            if (described < n) {
                *repeat = iterations;
                n = described;
            }
        }
    }
    for (int64_t y = 0; y < n;) {
        int64_t x = start + y * s; /* in range: checked above or by shape inference */
        sg_mode_piece pc = sg_mode_piece_at(p->mode, d, x);
        /* Iterations left in this piece; differences taken in uint64_t. */
        uint64_t room = s > 0 ? ((uint64_t)pc.hi - (uint64_t)x) / (uint64_t)s
                      : s < 0 ? ((uint64_t)x - (uint64_t)pc.lo) / ((uint64_t)0 - (uint64_t)s)
                              : UINT64_MAX;
        int64_t len = room < (uint64_t)(n - y) ? (int64_t)room + 1 : n - y;
        sg_segment seg = {
            .count = len, .fill = pc.fill,
            .in_offset = pc.fill ? 0 : (m->crop_begin + pc.index) * in_stride,
            .in_step = pc.fill || len == 1 ? 0 : pc.slope * s * in_stride,
        };
        y += len;
        if (p->nsegs > first && extend_segment(&p->segs[p->nsegs - 1], &seg))
            continue;
        if (p->nsegs > max_segs)
            return sg_fail(err, SG_ERR_SLICE, "failed to plan TrtSlice: more than %zu segments", max_segs);
        if (p->nsegs == *cap) {
            size_t grown = *cap ? 2 * *cap : 16;
            sg_segment *segs = realloc(p->segs, grown * sizeof *segs);
            if (segs == NULL)
                return sg_fail(err, SG_ERR_NOMEM, "failed to plan TrtSlice: out of memory for %zu segments",
                               grown);
            p->segs = segs;
            *cap = grown;
        }
        p->segs[p->nsegs++] = seg;
    }
    return SG_OK;
}

/* ---- the loop nest --------------------------------------------------------- */

static sg_status check_after(const sg_plan *p, const char *transform, sg_error *err)
{
    sg_error broken = {0};
    if (sg_plan_check(p, &broken) == SG_OK)
        return SG_OK;
    return sg_fail(err, SG_ERR_INTERNAL, "failed to fold plan: %s broke an invariant: %s", transform,
                   broken.message);
}

static sg_status build_loops(sg_plan *p, size_t max_segs, sg_error *err)
{
    int64_t in_stride[SG_MAX_RANK], out_stride = (int64_t)p->elem_size;
    int64_t axis_stride = (int64_t)p->elem_size;
    for (size_t a = p->in_rank; a-- > 0;) {
        in_stride[a] = axis_stride;
        axis_stride *= p->in_shape[a] ? p->in_shape[a] : 1;
    }
    p->base = 0;
    for (size_t f = 0; f < p->nfixed; f++)
        p->base += p->fixed[f].index * in_stride[p->fixed[f].in_axis];
    if (p->out_count == 0)
        return SG_OK;

    size_t cap = 0;
    p->nloops = p->out_rank;
    for (size_t i = p->out_rank; i-- > 0;) { /* the output is dense, or a part's box of a larger one */
        p->loops[i] = (sg_loop){.extent = p->map[i].count, .out_stride = p->part ? p->out_strides[i] : out_stride};
        out_stride *= p->map[i].count;
    }
    for (size_t i = 0; i < p->out_rank; i++) { /* outer to inner: segments in loop order */
        const sg_axis_map *m = &p->map[i];
        sg_loop *l = &p->loops[i];
        if (m->in_axis < 0)
            continue;
        int64_t stride = in_stride[m->in_axis];
        if (!sg_op_mapped(p->op)) {
            p->base += m->start * stride;
            l->in_stride = m->count > 1 ? m->step * stride : 0;
            continue;
        }
        size_t first = p->nsegs;
        if (split_dimension(p, i, stride, &cap, &l->period, max_segs, err) != SG_OK)
            return err->status;
        if (p->nsegs - first == 1 && !p->segs[first].fill && l->period == 0) { /* one affine piece */
            p->base += p->segs[first].in_offset;
            l->in_stride = p->segs[first].in_step;
            p->nsegs = first;
        } else {
            l->seg0 = first;
            l->nseg = p->nsegs - first;
        }
    }
    p->run_bytes = (int64_t)p->elem_size;
    return check_after(p, "building loops", err);
}

static void drop_unit_loops(sg_plan *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nloops; i++)
        if (p->loops[i].extent != 1 || p->loops[i].nseg != 0)
            p->loops[n++] = p->loops[i];
    p->nloops = n;
}

static void merge_contiguous_loops(sg_plan *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nloops; i++) {
        sg_loop cur = p->loops[i];
        sg_loop *prev = n ? &p->loops[n - 1] : NULL;
        if (prev && prev->nseg == 0 && cur.nseg == 0 &&
            prev->in_stride == cur.extent * cur.in_stride &&
            prev->out_stride == cur.extent * cur.out_stride) {
            prev->extent *= cur.extent;
            prev->in_stride = cur.in_stride;
            prev->out_stride = cur.out_stride;
        } else {
            p->loops[n++] = cur;
        }
    }
    p->nloops = n;
}

static void make_inner_run(sg_plan *p)
{
    sg_loop *last = p->nloops ? &p->loops[p->nloops - 1] : NULL;
    if (last && last->nseg == 0 && last->in_stride == (int64_t)p->elem_size &&
        last->out_stride == (int64_t)p->elem_size) {
        p->run_bytes = last->extent * (int64_t)p->elem_size;
        p->nloops--;
    }
}

/* A nest that is one large run has nothing to share between threads: cut
 * the run into a loop of equal chunks of SG_CHUNK_BYTES / 4 to
 * SG_CHUNK_BYTES (the chunk count divides the run). The search for such a
 * count is bounded (CHUNK_TRIES counts); if none is found, the run stays
 * whole. */
enum { CHUNK_TRIES = 4096 };

static void chunk_large_run(sg_plan *p)
{
    int64_t count = p->run_bytes / (int64_t)p->elem_size;
    if (p->nloops != 0 || p->run_bytes <= SG_CHUNK_BYTES)
        return;
    int64_t fewest = p->run_bytes / SG_CHUNK_BYTES + (p->run_bytes % SG_CHUNK_BYTES != 0);
    int64_t most = p->run_bytes / SG_CHUNK_BYTES * 4; /* no overflow: run / 2^20 < 2^43 */
    most = most < fewest + CHUNK_TRIES ? most : fewest + CHUNK_TRIES;
    for (int64_t k = fewest; k <= most; k++) {
        if (count % k != 0)
            continue;
        int64_t chunk = p->run_bytes / k;
        p->loops[p->nloops++] = (sg_loop){.extent = k, .in_stride = chunk, .out_stride = chunk};
        p->run_bytes = chunk;
        return;
    }
}

sg_status sg_plan_fold(sg_plan *p, size_t max_segs, sg_error *err)
{
    if (build_loops(p, max_segs, err) != SG_OK)
        return err->status;
    drop_unit_loops(p);
    if (check_after(p, "dropping unit loops", err) != SG_OK)
        return err->status;
    merge_contiguous_loops(p);
    if (check_after(p, "merging loops", err) != SG_OK)
        return err->status;
    make_inner_run(p);
    if (check_after(p, "making the inner run", err) != SG_OK)
        return err->status;
    chunk_large_run(p);
    return check_after(p, "chunking a large run", err);
}

sg_status sg_plan_build(const sg_spec *spec, size_t rank, const int64_t *shape, sg_dtype dtype, sg_plan **out,
                        sg_error *err)
{
    bool symbolic = spec->nvalues > 0;
    for (size_t i = 0; i < rank; i++)
        symbolic = symbolic || shape[i] < 0;
    if (spec->op == SG_OP_PROGRAM && !symbolic)
        return sg_plan_build_program(spec, rank, shape, dtype, out, err);
    sg_plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    if ((spec->op == SG_OP_PROGRAM ? sg_infer_chain(spec, rank, shape, dtype, p, err)
                                   : sg_infer_shape(spec, rank, shape, dtype, p, err)) != SG_OK ||
        (p->sym ? sg_plan_fold_symbolic(p, err) : sg_plan_fold(p, SIZE_MAX, err)) != SG_OK) {
        sg_plan_free(p);
        return err->status;
    }
    *out = p;
    return SG_OK;
}

void sg_plan_free(sg_plan *plan)
{
    if (plan == NULL)
        return;
    free(plan->segs);
    sg_sym_free(plan->sym);
    for (size_t k = 0; k < plan->nparts; k++)
        sg_plan_free(plan->parts[k].plan);
    free(plan->parts);
    sg_spec_free(plan->program);
    free(plan);
}

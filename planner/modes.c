/* The border modes' coordinates, in one place: which input index a
 * coordinate of a mode's window reads, and the stretch around it on which
 * that index is affine. Folding cuts a TensorRT or Pad dimension into
 * segments with it (fold.c), the reference interpreter and the checker
 * read single elements with it (sg_plan_axis_index), programs cut np.pad's
 * axes with it (program.c), and the code generator's runtime-valued loops
 * compute the same index in IR (codegen/levels.c, checked against this
 * one by the runtime-values tests). */
#include <stdint.h>

#include "planner.h"

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

sg_mode_piece sg_mode_piece_at(sg_trt_mode mode, int64_t d, int64_t x)
{
    switch ((int)mode) {
    case SG_TRT_CLAMP:
        if (x < 0)
            return (sg_mode_piece){INT64_MIN, -1, 0, 0, false};
        if (x >= d)
            return (sg_mode_piece){d, INT64_MAX, d - 1, 0, false};
        break;
    case SG_TRT_FILL:
        if (x < 0)
            return (sg_mode_piece){INT64_MIN, -1, 0, 0, true};
        if (x >= d)
            return (sg_mode_piece){d, INT64_MAX, 0, 0, true};
        break;
    case SG_TRT_WRAP: {
        int64_t r = x % d;
        r += r < 0 ? d : 0;
        int64_t lo; /* x - r and x + (d - 1 - r), the period's ends, saturated */
        if (__builtin_sub_overflow(x, r, &lo))
            lo = INT64_MIN;
        return (sg_mode_piece){lo, sat_add(x, d - 1 - r), r, 1, false};
    }
    case SG_TRT_REFLECT: {
        if (d == 1)
            return (sg_mode_piece){INT64_MIN, INT64_MAX, 0, 0, false};
        /* index(x) = f(|x| mod P), P = 2d - 2: up from 0 to d - 1, then down.
         * Work on magnitudes; a negative x mirrors the interval and slope. */
        uint64_t ax = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        uint64_t period = 2 * (uint64_t)d - 2, c = ax % period, base = ax - c, lo, hi;
        sg_mode_piece pc = {.slope = c < (uint64_t)d ? 1 : -1};
        pc.index = (int64_t)(c < (uint64_t)d ? c : period - c);
        lo = c < (uint64_t)d ? base : base + (uint64_t)d;
        hi = c < (uint64_t)d ? base + (uint64_t)d - 1 : base + period - 1;
        if (hi < base) /* wrapped around 2^64 */
            hi = UINT64_MAX;
        if (x >= 0) {
            pc.lo = (int64_t)lo;
            pc.hi = hi > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)hi;
            return pc;
        }
        pc.slope = -pc.slope;
        pc.lo = hi >= (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)hi;
        pc.hi = (int64_t)((uint64_t)0 - lo);
        return pc;
    }
    }
    return (sg_mode_piece){0, d - 1, x, 1, false}; /* strict, and the interior */
}

int64_t sg_mode_index(sg_trt_mode mode, int64_t d, int64_t x)
{
    sg_mode_piece pc = sg_mode_piece_at(mode, d, x);
    return pc.fill ? -1 : pc.index;
}

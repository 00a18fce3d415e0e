/* The border modes' pieces (planner/modes.c), which folding, the reference
 * interpreter and programs all read, against docs/semantics.md's formulas
 * written out here element by element in 128-bit arithmetic:
 *   - coordinate x lies in its piece, and the piece's index is the formula's;
 *   - every coordinate of the piece near x reads index + slope * (x' - x),
 *     up to its ends (saturated at the int64 limits);
 * for every mode, windows of 1 to 9 elements and near 2^62 and 2^63, and
 * coordinates around 0, the window's edges and the int64 limits. */
#include <stdint.h>
#include <stdio.h>

#include "../../planner/planner.h"
#include "../support/check.h"

/* 128-bit integers (a GNU C extension): no formula here overflows. */
__extension__ typedef __int128 wide;

static struct {
    check_counts counts;
} s = {CHECK_COUNTS_INIT};

/* docs/semantics.md, "TensorRT ISliceLayer": the input index, -1 for the fill value. */
static wide formula(sg_trt_mode mode, wide d, wide x)
{
    switch (mode) {
    case SG_TRT_STRICT:
        return x;
    case SG_TRT_WRAP: {
        wide r = x % d;
        return r < 0 ? r + d : r;
    }
    case SG_TRT_CLAMP:
        return x < 0 ? 0 : x >= d ? d - 1 : x;
    case SG_TRT_FILL:
        return x < 0 || x >= d ? -1 : x;
    case SG_TRT_REFLECT: {
        if (d == 1)
            return 0;
        wide period = 2 * d - 2, c = (x < 0 ? -x : x) % period;
        return c >= d ? period - c : c;
    }
    }
    return -2;
}

static void check_at_x(sg_trt_mode mode, int64_t d, int64_t x)
{
    const char *name = sg_trt_mode_name(mode);
    sg_mode_piece pc = sg_mode_piece_at(mode, d, x);
    wide want = formula(mode, d, x);
    if (!CHECK(&s, pc.lo <= x && x <= pc.hi, "%s d=%lld x=%lld: outside its piece [%lld, %lld]", name,
               (long long)d, (long long)x, (long long)pc.lo, (long long)pc.hi))
        return;
    CHECK(&s, pc.fill == (want < 0) && (pc.fill || pc.index == want), "%s d=%lld x=%lld: index %lld fill %d",
          name, (long long)d, (long long)x, (long long)pc.index, pc.fill);
    CHECK(&s, sg_mode_index(mode, d, x) == (pc.fill ? -1 : pc.index), "%s d=%lld x=%lld: sg_mode_index", name,
          (long long)d, (long long)x);
    CHECK(&s, pc.slope >= -1 && pc.slope <= 1 && (!pc.fill || pc.slope == 0), "%s d=%lld x=%lld: slope %d",
          name, (long long)d, (long long)x, pc.slope);
    wide from = (wide)x - 40 > pc.lo ? (wide)x - 40 : pc.lo;
    wide to = (wide)x + 40 < pc.hi ? (wide)x + 40 : pc.hi;
    for (wide y = from; y <= to; y++) {
        wide got = formula(mode, d, y), affine = pc.fill ? -1 : pc.index + pc.slope * (y - x);
        if (!CHECK(&s, got == affine, "%s d=%lld x=%lld: coordinate %lld of the piece reads %lld, not %lld",
                   name, (long long)d, (long long)x, (long long)y, (long long)got, (long long)affine))
            break;
    }
}

int main(void)
{
    const sg_trt_mode modes[] = {SG_TRT_WRAP, SG_TRT_CLAMP, SG_TRT_FILL, SG_TRT_REFLECT};
    const int64_t windows[] = {
        1, 2, 3, 4, 5, 6, 7, 8, 9, (int64_t)1 << 62, ((int64_t)1 << 62) + 1, INT64_MAX - 1, INT64_MAX};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
            int64_t d = windows[w];
            /* a reflect window's period 2d - 2 must be an int64 (sg_plan_check refuses larger windows) */
            if (modes[m] == SG_TRT_REFLECT && d > INT64_MAX / 2)
                continue;
            const int64_t centres[] = {0,
                                       d,
                                       -d,
                                       2 * (d % 4096),
                                       INT64_MIN + 20,
                                       INT64_MAX - 20,
                                       d < INT64_MAX / 3 ? 3 * d : 0,
                                       d < INT64_MAX / 3 ? -3 * d : 0};
            for (size_t c = 0; c < sizeof centres / sizeof *centres; c++)
                for (int64_t k = -20; k <= 20; k++) {
                    wide x = (wide)centres[c] + k;
                    if (x >= INT64_MIN && x <= INT64_MAX)
                        check_at_x(modes[m], d, (int64_t)x);
                }
        }
    }
    /* strict reads x itself inside the window */
    for (int64_t x = 0; x < 9; x++)
        check_at_x(SG_TRT_STRICT, 9, x);
    return finish("modes", &s.counts);
}

/* The memory traffic `slicegen bench` counts (sg_bench_traffic): small
 * plans whose answer is known by hand, then seeded random slices of every
 * source and TensorRT mode against a count from the shape-inference layer
 * (sg_plan_axis_index for every output element).
 * SLICEGEN_SEED=N reproduces a run; the seed is always printed. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../bench/bench.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
} suite;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
/* In [lo, hi]. */
static int64_t between(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* The traffic from the shape-inference layer: every output element's input
 * element, its line marked. */
static uint64_t traffic_by_elements(const sg_plan *p)
{
    uint64_t nlines = (p->in_bytes + SG_BENCH_LINE - 1) / SG_BENCH_LINE;
    unsigned char *seen = calloc(nlines ? nlines : 1, 1);
    int64_t y[SG_MAX_RANK] = {0}, stride[SG_MAX_RANK];
    int64_t s = (int64_t)p->elem_size;
    for (size_t a = p->in_rank; a-- > 0;) {
        stride[a] = s;
        s *= p->in_shape[a];
    }
    for (int64_t e = 0; e < p->out_count; e++) {
        int64_t at = 0;
        bool fill = false;
        for (size_t f = 0; f < p->nfixed; f++)
            at += p->fixed[f].index * stride[p->fixed[f].in_axis];
        for (size_t d = 0; d < p->out_rank; d++) {
            if (p->map[d].in_axis < 0)
                continue;
            int64_t x = sg_plan_axis_index(p, d, y[d]);
            fill |= x < 0;
            at += x * stride[p->map[d].in_axis];
        }
        if (!fill)
            seen[at / SG_BENCH_LINE] = 1;
        for (size_t d = p->out_rank; d-- > 0;) /* the next output index, C order */
            if (++y[d] < p->out_shape[d])
                break;
            else
                y[d] = 0;
    }
    uint64_t lines = 0;
    for (uint64_t i = 0; i < nlines; i++)
        lines += seen[i];
    free(seen);
    return lines * SG_BENCH_LINE + p->out_bytes;
}

static sg_plan *plan_numpy(suite *s, const char *expr, size_t rank, const int64_t *shape, sg_dtype dtype)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    if (sg_spec_numpy(s->ctx, expr, &spec) != SG_OK ||
        sg_plan_create(s->ctx, spec, rank, shape, dtype, &plan) != SG_OK)
        CHECK(s, 0, "%s: %s", expr, sg_context_last_error(s->ctx));
    sg_spec_destroy(spec);
    return plan;
}

static sg_plan *plan_trt(suite *s, size_t rank, const int64_t *shape, const int64_t *start,
                         const int64_t *size, const int64_t *stride, sg_trt_mode mode)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    if (sg_spec_trt_slice(s->ctx, rank, start, size, stride, mode, NULL, &spec) != SG_OK ||
        sg_plan_create(s->ctx, spec, rank, shape, SG_F32, &plan) != SG_OK)
        CHECK(s, 0, "TrtSlice %s: %s", sg_trt_mode_name(mode), sg_context_last_error(s->ctx));
    sg_spec_destroy(spec);
    return plan;
}

/* The plan's traffic is `lines` input lines plus its output. */
static void expect(suite *s, const char *what, sg_plan *plan, uint64_t lines)
{
    uint64_t traffic = 0;
    sg_error err = {SG_OK, ""};
    if (plan == NULL)
        return;
    if (CHECK(s, sg_bench_traffic(plan, &traffic, &err) == SG_OK, "%s: %s", what, err.message))
        CHECK(s, traffic == lines * SG_BENCH_LINE + plan->out_bytes,
              "%s: traffic %" PRIu64 " bytes, expected %" PRIu64 " lines + %" PRIu64 " output bytes", what,
              traffic, lines, plan->out_bytes);
    CHECK(s, traffic_by_elements(plan) == lines * SG_BENCH_LINE + plan->out_bytes,
          "%s: the element-by-element count disagrees", what);
    sg_plan_destroy(plan);
}

static void by_hand(suite *s)
{
    const int64_t m[2] = {16, 64}; /* f32: a row is 256 bytes, 4 lines; 64 lines in all */
    expect(s, "[:, ::2] reads every line", plan_numpy(s, "[:, ::2]", 2, m, SG_F32), 64);
    expect(s, "[:, ::4] reads every line", plan_numpy(s, "[:, ::4]", 2, m, SG_F32), 64);
    expect(s, "[:, :16] reads one line per row", plan_numpy(s, "[:, :16]", 2, m, SG_F32), 16);
    expect(s, "[:, 16:17] reads one line per row", plan_numpy(s, "[:, 16:17]", 2, m, SG_F32), 16);
    expect(s, "[:, ::32] reads two lines per row", plan_numpy(s, "[:, ::32]", 2, m, SG_F32), 32);
    expect(s, "[:, ::-1] reads every byte once", plan_numpy(s, "[:, ::-1]", 2, m, SG_F32), 64);
    expect(s, "[::-1, ::-1] reads every byte once", plan_numpy(s, "[::-1, ::-1]", 2, m, SG_F32), 64);
    expect(s, "[1:-1, 1:-1]: 14 rows of 4 lines", plan_numpy(s, "[1:-1, 1:-1]", 2, m, SG_F32), 56);
    expect(s, "[3]: one row", plan_numpy(s, "[3]", 2, m, SG_F32), 4);
    expect(s, "[..., 5]: one line per row", plan_numpy(s, "[..., 5]", 2, m, SG_F32), 16);
    expect(s, "[None, ::2] reads every line", plan_numpy(s, "[None, ::2]", 2, m, SG_F32), 32);
    expect(s, "[5:5]: an empty output reads nothing", plan_numpy(s, "[5:5]", 2, m, SG_F32), 0);
    const int64_t bytes[1] = {100}; /* u8: lines 0..1, the second partly past the end */
    expect(s, "[60:70] of u8 [100] straddles two lines", plan_numpy(s, "[60:70]", 1, bytes, SG_U8), 2);
    expect(s, "[64:] of u8 [100]: the partial last line", plan_numpy(s, "[64:]", 1, bytes, SG_U8), 1);
    const int64_t t[2] = {8, 16}; /* i64: a row is 128 bytes, 2 lines */
    expect(s, "tiny [1:7, ::3] of i64 [8,16]", plan_numpy(s, "[1:7, ::3]", 2, t, SG_I64), 12);
    const int64_t big[2] = {4096, 4096};
    expect(s, "[::-1, 1::2] of f32 [4096,4096]", plan_numpy(s, "[::-1, 1::2]", 2, big, SG_F32), 4096 * 256);

    const int64_t one[2] = {1, 1};
    int64_t start[2] = {-16, 0}, size[2] = {16, 64};
    expect(s, "FILL segments read nothing", plan_trt(s, 2, m, start, size, one, SG_TRT_FILL), 0);
    start[0] = -8;
    expect(s, "FILL: the 8 rows inside", plan_trt(s, 2, m, start, size, one, SG_TRT_FILL), 32);
    start[0] = -4, start[1] = -4, size[0] = 24, size[1] = 72;
    expect(s, "FILL: a border around all", plan_trt(s, 2, m, start, size, one, SG_TRT_FILL), 64);
    expect(s, "CLAMP: a border around all", plan_trt(s, 2, m, start, size, one, SG_TRT_CLAMP), 64);
    expect(s, "REFLECT: a border around all", plan_trt(s, 2, m, start, size, one, SG_TRT_REFLECT), 64);
    expect(s, "WRAP: a border around all", plan_trt(s, 2, m, start, size, one, SG_TRT_WRAP), 64);
    start[0] = 0, start[1] = 0, size[0] = 4, size[1] = 100000;
    expect(s, "WRAP over many periods: 4 rows", plan_trt(s, 2, m, start, size, one, SG_TRT_WRAP), 16);
    expect(s, "REFLECT over many periods: 4 rows", plan_trt(s, 2, m, start, size, one, SG_TRT_REFLECT), 16);
    start[1] = -8, size[1] = 8;
    expect(s, "CLAMP left of the input: column 0", plan_trt(s, 2, m, start, size, one, SG_TRT_CLAMP), 4);
    start[1] = 0, size[1] = 32;
    const int64_t two[2] = {1, 2};
    expect(s, "strict, stride 2: 4 rows", plan_trt(s, 2, m, start, size, two, SG_TRT_STRICT), 16);
}

/* Random slices of every kind against the element-by-element count. */
static void random_slices(suite *s, int n)
{
    static const sg_dtype types[] = {SG_U8, SG_I16, SG_F32, SG_F64};
    for (int k = 0; k < n; k++) {
        size_t rank = (size_t)between(1, 3);
        int64_t shape[3];
        for (size_t a = 0; a < rank; a++)
            shape[a] = between(1, 40);
        sg_dtype dtype = types[rnd() % 4];
        sg_plan *plan = NULL;
        char what[256];
        if (k % 3 == 2) {
            int64_t start[3], size[3], stride[3];
            sg_trt_mode mode = (sg_trt_mode)(rnd() % 5);
            for (size_t a = 0; a < rank; a++) {
                stride[a] = between(-3, 3);
                stride[a] = stride[a] ? stride[a] : 1;
                size[a] = between(1, 50);
                start[a] = between(-30, 60);
                if (mode == SG_TRT_STRICT) { /* in bounds: first and last inside */
                    size[a] = between(1, 1 + (shape[a] - 1) / (stride[a] < 0 ? -stride[a] : stride[a]));
                    int64_t span = (size[a] - 1) * (stride[a] < 0 ? -stride[a] : stride[a]);
                    start[a] = between(0, shape[a] - 1 - span) + (stride[a] < 0 ? span : 0);
                }
            }
            snprintf(what, sizeof what, "case %d: TrtSlice %s rank %zu", k, sg_trt_mode_name(mode), rank);
            sg_spec *spec = NULL;
            if (sg_spec_trt_slice(s->ctx, rank, start, size, stride, mode, NULL, &spec) != SG_OK ||
                sg_plan_create(s->ctx, spec, rank, shape, dtype, &plan) != SG_OK)
                CHECK(s, 0, "%s: %s", what, sg_context_last_error(s->ctx));
            sg_spec_destroy(spec);
        } else {
            char expr[128] = "[";
            for (size_t a = 0; a < rank; a++) {
                char part[48];
                int64_t step = between(-4, 4);
                if (rnd() % 6 == 0)
                    snprintf(part, sizeof part, "%" PRId64, between(-shape[a], shape[a] - 1));
                else
                    snprintf(part, sizeof part, "%" PRId64 ":%" PRId64 ":%" PRId64, between(-45, 45),
                             between(-45, 45), step ? step : 1);
                strcat(expr, part);
                strcat(expr, a + 1 < rank ? ", " : "]");
            }
            snprintf(what, sizeof what, "case %d: %s of %zu dims", k, expr, rank);
            plan = plan_numpy(s, expr, rank, shape, dtype);
        }
        if (plan == NULL)
            continue;
        uint64_t traffic = 0, want = traffic_by_elements(plan);
        sg_error err = {SG_OK, ""};
        if (CHECK(s, sg_bench_traffic(plan, &traffic, &err) == SG_OK, "%s: %s", what, err.message))
            CHECK(s, traffic == want, "%s: traffic %" PRIu64 ", element by element %" PRIu64, what, traffic,
                  want);
        sg_plan_destroy(plan);
    }
}

int main(void)
{
    const char *env = getenv("SLICEGEN_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    printf("traffic: seed %" PRIu64 " (set SLICEGEN_SEED to reproduce)\n", seed);
    suite s = {CHECK_COUNTS_INIT, NULL};
    if (sg_context_create(&s.ctx) != SG_OK)
        return 1;
    by_hand(&s);
    random_slices(&s, 3000);
    sg_context_destroy(s.ctx);
    return finish("traffic", &s.counts);
}

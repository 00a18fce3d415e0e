/* The innermost loop of a kernel: runs copied (stores.c), or elements
 * gathered by the shuffle vectorizer (strided and reversed runs). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* ---- the innermost loop ------------------------------------------------------------ */

/* Shuffle vectorisation of an innermost loop moving runs of r bytes with
 * constant input stride s, in units of u bytes (the largest power of two
 * up to 8 dividing both): R = r / u units per run, K = s / u units apart.
 * A block is VL runs, the fewest whole runs that fill whole vectors (lcm(r,
 * vector) bytes: 16 4-byte runs, 64 3-byte pixels = 3 vectors), gathered
 * from a window of VL * |K| units by one shufflevector. The window reads
 * past the runs only into the gap before the next run (K > 0) or after the
 * previous one (K < 0), which lie inside the input while iteration i + VL
 * exists; hence `extra`. */
typedef struct shuffle {
    int64_t u, R, K, VL, extra;
} shuffle;

enum { MAX_LANES = MAX_BLOCK_VECTORS * MAX_VEC };

static bool plan_shuffle(gen *g, int64_t s, int64_t r, int64_t n, shuffle *sh)
{
    if (s == INT64_MIN) /* a symbolic plan's wrapped stride, never read: too far anyway */
        return false;
    int64_t mag = s < 0 ? -s : s;
    if (r > MAX_SHUFFLE_RUN || s == 0 || s == r || mag < r || mag > MAX_STRIDE_RUNS * r)
        return false;
    int64_t u = 8;
    while (r % u != 0 || mag % u != 0)
        u /= 2;
    int64_t block = r / sg_gcd(r, g->vec) * g->vec;
    if (block > MAX_BLOCK_VECTORS * g->vec)
        return false;
    *sh = (shuffle){.u = u, .R = r / u, .K = s / u, .VL = block / r, .extra = mag > r};
    while (n >= 0 && sh->VL * r > 16 && sh->VL % 2 == 0 && sh->VL + sh->extra > n) /* a short constant loop */
        sh->VL /= 2;
    return n < 0 || sh->VL + sh->extra <= n;
}

/* How far ahead (bytes) a loop stepping `stride` through the input
 * prefetches (planner.h, SG_PREFETCH_*): the iteration about
 * SG_PREFETCH_DISTANCE away, or 0 for not at all. */
int64_t sg_emit_prefetch_distance(const sg_plan *p, int64_t stride)
{
    uint64_t mag = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride; /* INT64_MIN too */
    if (p->in_bytes <= SG_PREFETCH_INPUT || mag < SG_PREFETCH_MIN || mag > SG_PREFETCH_MAX)
        return 0;
    int64_t m = (int64_t)mag;
    return stride * (SG_PREFETCH_DISTANCE / m > 1 ? SG_PREFETCH_DISTANCE / m : 1);
}

/* One block of a shuffled loop, stored by strategy st at an address
 * aligned to `align`. */
static void emit_shuffle_block(gen *g, const shuffle *sh, LLVMValueRef in, LLVMValueRef out,
                               const sg_store_strategy *st, int64_t align)
{
    int64_t mag = sh->K < 0 ? -sh->K : sh->K, lanes = sh->VL * sh->R;
    int64_t start = sh->K < 0 ? sh->VL * sh->K + sh->R : 0; /* window start, in units */
    /* Hardware prefetchers follow a stream within a row but lose it at each
     * jump to the next row (and follow descending ones poorly): fetch the
     * window of a row about 32 KiB ahead while moving this one. */
    if (g->ahead != NULL)
        prefetch(g, in, add(g, ci(g, start * sh->u), g->ahead), sh->VL * mag * sh->u);
    LLVMTypeRef unit = int_type(g, sh->u);
    LLVMValueRef window =
        load(g, LLVMVectorType(unit, (unsigned)(sh->VL * mag)), gep_c(g, in, start * sh->u));
    LLVMValueRef mask[MAX_LANES];
    for (int64_t m = 0; m < sh->VL; m++)
        for (int64_t t = 0; t < sh->R; t++)
            mask[m * sh->R + t] = LLVMConstInt(g->i32, (unsigned long long)(m * sh->K + t - start), 0);
    LLVMValueRef v = LLVMBuildShuffleVector(g->b, window, LLVMGetUndef(LLVMTypeOf(window)),
                                            LLVMConstVector(mask, (unsigned)lanes), "");
    st->block(g, v, out, align);
}

/* Iterations [lo, hi) of the innermost loop of constant stride s, run by
 * run with ordinary stores. */
static void emit_runs(gen *g, LLVMValueRef in, int64_t s, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi)
{
    loop l;
    loop_begin(g, &l, lo, hi, 1, in, ci(g, s), out, ci(g, g->run_k));
    sg_emit_copy_bytes(g, l.in, l.out, ci(g, g->run_k));
    loop_end(g, &l, false);
}

/* A shuffled innermost loop over [lo, hi) with streaming stores:
 * ordinary iterations until the output reaches a line boundary, then whole
 * blocks stored non-temporally at line-aligned addresses, then ordinary
 * iterations for the rest; when no whole number of iterations reaches a
 * line boundary (an output not aligned to the power of two in r),
 * ordinary stores throughout. The output is `gap` bytes short of a line
 * boundary; k iterations reach it when r k = gap (mod LINE), which with p
 * = gcd(r, LINE) needs p | gap and gives k = gap / p * (r / p)^-1 mod (LINE
 * / p): 3-byte pixels reach a boundary within 64 iterations wherever they
 * start, 4-byte elements only from a 4-byte aligned address. The ordinary
 * iterations (fewer than a line's worth before the blocks, fewer than a
 * block after them, or every one of an output that never reaches a
 * boundary) are copied run by run: a streamed output is large, and these
 * ends are a few dozen bytes of each of its rows. */
static void emit_shuffled_streaming(gen *g, const shuffle *sh, LLVMValueRef in, int64_t s, LLVMValueRef out,
                                    LLVMValueRef lo, LLVMValueRef hi)
{
    int64_t r = g->run_k, bytes = sh->VL * r, p = sg_gcd(r, LINE), shift = 0, inverse = 1;
    while ((INT64_C(1) << shift) < p)
        shift++;
    while ((r / p * inverse) % (LINE / p) != 1 % (LINE / p)) /* r / p is odd: an inverse exists */
        inverse++;
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, gep(g, out, mul(g, lo, ci(g, r))), g->ix, "");
    LLVMValueRef gap = LLVMBuildAnd(g->b, LLVMBuildNeg(g->b, addr, ""), ci(g, LINE - 1), "");
    LLVMValueRef reachable =
        LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildAnd(g->b, gap, ci(g, p - 1), ""), ci(g, 0), "");
    LLVMValueRef k = LLVMBuildAnd(g->b, mul(g, LLVMBuildLShr(g->b, gap, ci(g, shift), ""), ci(g, inverse)),
                                  ci(g, LINE / p - 1), "");
    LLVMValueRef mid = smin(g, add(g, lo, k), hi);
    LLVMBasicBlockRef streamed = block(g, "stream"), cached = block(g, "cached");
    LLVMBasicBlockRef done = block(g, "shuffled");
    LLVMBuildCondBr(g->b, reachable, streamed, cached);
    const sg_store_strategy *streaming = g->stores;
    g->stores = &sg_stores_cached; /* the ordinary parts */
    LLVMPositionBuilderAtEnd(g->b, cached);
    emit_runs(g, in, s, out, lo, hi);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, streamed);
    loop v;
    LLVMValueRef lim = sub(g, hi, ci(g, sh->VL + sh->extra - 1)); /* i + VL + extra <= hi */
    int64_t align = bytes % LINE == 0 ? LINE : bytes & -bytes;
    if (s < 0) {
        /* Reversed: the blocks from the last, so that the input ascends and
         * the output descends, and the ends in the order of their input
         * (tail, blocks, head): streaming stores are faster reading
         * forwards and writing backwards than the other way round
         * (docs/bench.md). */
        LLVMValueRef span = smax(g, sub(g, lim, mid), ci(g, 0));
        LLVMValueRef blocks = LLVMBuildUDiv(g->b, add(g, span, ci(g, sh->VL - 1)), ci(g, sh->VL), "");
        LLVMValueRef after = add(g, mid, mul(g, blocks, ci(g, sh->VL)));
        emit_runs(g, in, s, out, after, hi);
        loop_begin_backwards(g, &v, ci(g, 0), blocks, gep(g, in, mul(g, mid, ci(g, s))), ci(g, sh->VL * s),
                             gep(g, out, mul(g, mid, ci(g, r))), ci(g, sh->VL * r));
        emit_shuffle_block(g, sh, v.in, v.out, streaming, align);
        loop_end(g, &v, false);
        emit_runs(g, in, s, out, lo, mid);
    } else {
        emit_runs(g, in, s, out, lo, mid);
        loop_begin(g, &v, mid, lim, sh->VL, in, ci(g, s), out, ci(g, r));
        emit_shuffle_block(g, sh, v.in, v.out, streaming, align);
        LLVMValueRef after = loop_end(g, &v, true);
        emit_runs(g, in, s, out, after, hi);
    }
    g->stores = streaming;
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Iterations [lo, hi) of the innermost loop with a constant input stride s
 * (0 <= lo <= hi <= extent): iteration k moves r bytes from in + k * s to
 * out + k * r. */
void sg_emit_inner(gen *g, LLVMValueRef in, int64_t s, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi,
                   int64_t extent)
{
    int64_t r = g->run_k, a = 0, z = 0, n = -1;
    if (is_const(lo, &a) && is_const(hi, &z))
        n = z - a;
    if (n == 0)
        return;
    /* A short dense range of unknown length: runs beat a memcpy call. */
    bool dense = s == r && (n >= 0 || extent * r > INLINE_COPY);
    bool broadcast = s == 0 && r <= 8 && (r & (r - 1)) == 0;
    shuffle sh;
    bool shuffled = !dense && !broadcast && plan_shuffle(g, s, r, n, &sh);
    if (dense || broadcast || (!shuffled && n > 0 && n <= UNROLL_TRIPS && n * r <= UNROLL_BYTES)) {
        LLVMValueRef in0 = gep(g, in, mul(g, lo, ci(g, s)));
        LLVMValueRef out0 = gep(g, out, mul(g, lo, ci(g, r)));
        LLVMValueRef bytes = mul(g, sub(g, hi, lo), ci(g, r));
        if (dense)
            sg_emit_copy_bytes(g, in0, out0, bytes);
        else if (broadcast && n > 0)
            sg_emit_store_pattern(g, out0, load(g, int_type(g, r), in0), r, bytes);
        else if (broadcast) { /* an empty range's element may lie outside the input: read it only if used */
            LLVMBasicBlockRef done = when_less(g, lo, hi, "broadcast");
            sg_emit_store_pattern(g, out0, load(g, int_type(g, r), in0), r, bytes);
            when_end(g, done);
        } else
            for (int64_t k = 0; k < n; k++)
                sg_emit_copy_bytes(g, gep_c(g, in0, k * s), gep_c(g, out0, k * r), ci(g, r));
        return;
    }
    if (shuffled && g->stores->streams && (n < 0 || n * r >= 4 * LINE)) {
        emit_shuffled_streaming(g, &sh, in, s, out, lo, hi);
        return;
    }
    if (shuffled) {
        int64_t blocks = n > 0 ? (n - sh.extra) / sh.VL : -1; /* constant bounds: blocks known */
        if (blocks == 1) {
            emit_shuffle_block(g, &sh, gep_c(g, in, a * s), gep_c(g, out, a * r), sg_emit_unaligned_blocks(g),
                               1);
        } else {
            loop v;
            LLVMValueRef lim = sub(g, hi, ci(g, sh.VL + sh.extra - 1)); /* i + VL + extra <= hi */
            loop_begin(g, &v, lo, lim, sh.VL, in, ci(g, s), out, ci(g, r));
            emit_shuffle_block(g, &sh, v.in, v.out, sg_emit_unaligned_blocks(g), 1);
            lo = loop_end(g, &v, true);
        }
        if (n > 0) { /* the rest: smaller blocks while they fit, then runs */
            sg_emit_inner(g, in, s, out, ci(g, a + blocks * sh.VL), hi, extent);
            return;
        }
    }
    if (n > 0 && n <= UNROLL_TRIPS && n * r <= UNROLL_BYTES) { /* a short constant remainder */
        for (int64_t k = 0; k < n; k++)
            sg_emit_copy_bytes(g, gep_c(g, in, (a + k) * s), gep_c(g, out, (a + k) * r), ci(g, r));
        return;
    }
    loop l;
    if (s < 0 && s != INT64_MIN && r >= LINE) { /* whole lines, rows reversed: the input ascends */
        loop_begin_backwards(g, &l, lo, hi, in, ci(g, s), out, ci(g, r));
        s = -s;
    } else
        loop_begin(g, &l, lo, hi, 1, in, ci(g, s), out, ci(g, r));
    /* Runs of whole lines, a row apart: each row may start a new page, where
     * hardware prefetchers stop; fetch the run of a row 32 KiB ahead. */
    int64_t ahead = r >= LINE && s != r ? sg_emit_prefetch_distance(g->plan, s) : 0;
    sg_emit_copy_run(g, l.in, l.out, ci(g, r), ahead != 0 ? ci(g, ahead) : NULL);
    loop_end(g, &l, false);
}

/* The innermost loop with a stride or run known only at run time
 * (segment tables, symbolic plans): one memcpy when contiguous, else run
 * by run. In a symbolic nest of long runs (gen.long_runs: the streamed
 * calls, whose runs are at least a line) one body serves both: each run
 * stored whole, and prefetching the offset of the call (0: the line it
 * reads, which costs one instruction a vector in a loop bound by memory). */
void sg_emit_inner_dynamic(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                           LLVMValueRef hi)
{
    LLVMValueRef r = g->run;
    if (g->long_runs) {
        loop l;
        loop_begin(g, &l, lo, hi, 1, in, s, out, r);
        sg_emit_copy_run(g, l.in, l.out, r, g->sym_ahead_runs);
        loop_end(g, &l, false);
        return;
    }
    LLVMBasicBlockRef dense = block(g, "dense"), runs = block(g, "runs"), done = block(g, "done");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, s, r, ""), dense, runs);
    LLVMPositionBuilderAtEnd(g->b, dense);
    sg_emit_copy_bytes(g, gep(g, in, mul(g, lo, s)), gep(g, out, mul(g, lo, r)), mul(g, sub(g, hi, lo), r));
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, runs);
    loop l;
    loop_begin(g, &l, lo, hi, 1, in, s, out, r);
    int64_t run = 0;
    if (g->sym_ahead_runs != NULL && !(is_const(r, &run) && run < LINE)) {
        /* runs of whole lines (else the offset is 0): the run of a row ahead */
        LLVMBasicBlockRef fetch = block(g, "prefetch"), plain = block(g, "plain"),
                          copied = block(g, "copied");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, g->sym_ahead_runs, ci(g, 0), ""), fetch, plain);
        LLVMPositionBuilderAtEnd(g->b, fetch);
        sg_emit_copy_run(g, l.in, l.out, r, g->sym_ahead_runs);
        LLVMBuildBr(g->b, copied);
        LLVMPositionBuilderAtEnd(g->b, plain);
        sg_emit_copy_bytes(g, l.in, l.out, r);
        LLVMBuildBr(g->b, copied);
        LLVMMoveBasicBlockAfter(copied, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, copied);
    } else
        sg_emit_copy_bytes(g, l.in, l.out, r);
    loop_end(g, &l, false);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* The innermost loop of constant run bytes and a stride known only at run
 * time (a symbolic plan's): the strides that pay for a body of their own
 * (dense: one copy; reversed, every second element either way, every third
 * or fourth: shuffles) switch to the constant-stride code, the others to
 * emit_inner_dynamic. */
void sg_emit_inner_by_stride(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                             LLVMValueRef hi)
{
    int64_t r = g->run_k;
    int64_t strides[6] = {r, -r, 2 * r, -2 * r, 3 * r, 4 * r};
    int n = r <= MAX_SHUFFLE_RUN ? 6 : 1;
    LLVMBasicBlockRef other = block(g, "any_stride"), done = block(g, "strided");
    LLVMValueRef sw = LLVMBuildSwitch(g->b, s, other, (unsigned)n);
    for (int k = 0; k < n; k++) {
        LLVMBasicBlockRef body = block(g, "stride");
        LLVMAddCase(sw, ci(g, strides[k]), body);
        LLVMPositionBuilderAtEnd(g->b, body);
        sg_emit_inner(g, in, strides[k], out, lo, hi, LONG_UNKNOWN);
        LLVMBuildBr(g->b, done);
    }
    LLVMPositionBuilderAtEnd(g->b, other);
    sg_emit_inner_dynamic(g, in, s, out, lo, hi);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* The innermost loop with a run known only at run time (a symbolic plan
 * whose inner dimension is `?`): runs of 1 to 4 elements (pixels, small
 * vectors) switch to bodies of that constant run, the others copy run by
 * run. Within a body of constant run, the stride is the constant the plan
 * says it is in runs (SG_STRIDE_RUNS: one body each), or chosen as above
 * when it is a step given at run time (SG_STRIDE_ANY); a multiple of an
 * input axis's stride (SG_STRIDE_AXIS: a crop's rows) is copied run by
 * run, as it is rarely a stride the shuffles serve. */
void sg_emit_inner_by_run(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                          LLVMValueRef hi)
{
    int64_t e = (int64_t)g->plan->elem_size, stride, multiple = 0;
    sg_stride_kind kind = sg_sym_inner_stride(g->plan, &multiple);
    LLVMValueRef run = g->run;
    LLVMBasicBlockRef other = block(g, "any_run"), done = block(g, "runs_done");
    LLVMValueRef sw = LLVMBuildSwitch(g->b, run, other, 4);
    for (int64_t k = 1; k <= 4; k++) {
        LLVMBasicBlockRef body = block(g, "run");
        LLVMAddCase(sw, ci(g, k * e), body);
        LLVMPositionBuilderAtEnd(g->b, body);
        g->run = ci(g, k * e), g->run_k = k * e;
        if (is_const(s, &stride))
            sg_emit_inner(g, in, stride, out, lo, hi, LONG_UNKNOWN);
        else if (kind == SG_STRIDE_RUNS)
            sg_emit_inner(g, in, multiple * k * e, out, lo, hi, LONG_UNKNOWN);
        else if (kind == SG_STRIDE_AXIS)
            sg_emit_inner_dynamic(g, in, s, out, lo, hi);
        else
            sg_emit_inner_by_stride(g, in, s, out, lo, hi);
        LLVMBuildBr(g->b, done);
    }
    g->run = run, g->run_k = -1;
    LLVMPositionBuilderAtEnd(g->b, other);
    sg_emit_inner_dynamic(g, in, s, out, lo, hi);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

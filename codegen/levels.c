/* The loops around the innermost one (inner.c): affine loops, segmented
 * loops (unrolled, or walking a segment table), mapped loops of the border
 * modes, periods and collapsed loops. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* ---- levels ---------------------------------------------------------------------------- */

/* How far ahead to prefetch (gen.ahead) inside a loop at `level` of input
 * stride s, NULL for not at all: for the innermost loop when the loop is the
 * one around it; for the runs when the loop is a part's loop of runs
 * (emit_affine), as emit_inner's runs of whole lines. The parts of a roll
 * each read a piece of every row: a hardware prefetcher following one part's
 * loads loses their stream at each row, so they prefetch it themselves
 * (docs/bench.md has what each prefetch measured). */
static LLVMValueRef prefetch_ahead(gen *g, size_t level, LLVMValueRef s)
{
    int64_t stride = 0, ahead;
    bool runs = level + 1 == g->plan->nloops;
    if (level + 2 != g->plan->nloops && !runs)
        return NULL;
    if (g->plan->sym)
        return runs ? g->sym_ahead_runs : g->sym_ahead;
    if (!is_const(s, &stride) || (runs && (g->run_k < LINE || stride == g->run_k)))
        return NULL;
    ahead = sg_emit_prefetch_distance(g->plan, stride);
    return ahead ? ci(g, ahead) : NULL;
}

/* Iterations [lo, hi) of an affine loop at `level` of `extent` iterations
 * (a plain loop or one segment): iteration k runs the level below on
 * in + k * s and out + k * out_stride. */
static void emit_affine(gen *g, size_t level, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out,
                        LLVMValueRef lo, LLVMValueRef hi, int64_t extent)
{
    const sg_plan *p = g->plan;
    int64_t stride, out_stride;
    /* the innermost loop writes its runs one after another, except in a
     * part whose box is narrower than the output: then a loop of runs */
    bool dense_out = !p->part || (is_const(g->out_stride[level], &out_stride) && out_stride == g->run_k);
    if (level + 1 == p->nloops && dense_out) {
        int64_t multiple;
        if (is_const(s, &stride) && g->run_k >= 0)
            sg_emit_inner(g, in, stride, out, lo, hi, extent);
        else if (p->sym && g->run_k > 0 && sg_sym_inner_stride(p, &multiple) != SG_STRIDE_AXIS)
            sg_emit_inner_by_stride(g, in, s, out, lo, hi); /* (a crop's rows: run by run, below) */
        else if (p->sym && g->run_k < 0 && !g->long_runs)
            sg_emit_inner_by_run(g, in, s, out, lo, hi);
        else
            sg_emit_inner_dynamic(g, in, s, out, lo, hi);
        return;
    }
    int64_t a, z;
    if (is_const(lo, &a) && is_const(hi, &z) && a >= z)
        return;
    loop l;
    /* rows reversed: walked backwards, so that the input ascends (one
     * stream the hardware prefetchers follow); a stride of INT64_MIN (a
     * wrapped product, in a loop of at most one iteration) as is */
    if (is_const(s, &stride) && stride < 0 && stride != INT64_MIN) {
        loop_begin_backwards(g, &l, lo, hi, in, s, out, g->out_stride[level]);
        s = ci(g, -stride);
    } else
        loop_begin(g, &l, lo, hi, 1, in, s, out, g->out_stride[level]);
    LLVMValueRef outer_ahead = g->ahead;
    g->ahead = prefetch_ahead(g, level, s);
    sg_emit_level(g, level + 1, l.in, l.out, ci(g, 0), g->extent[level + 1]);
    g->ahead = outer_ahead;
    loop_end(g, &l, false);
}

/* A segmented loop, one code path per segment. Segment iterations are
 * clamped to [lo, hi), which folds away below the outermost level. */
static void emit_segments(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                          LLVMValueRef hi)
{
    const sg_loop *l = &g->plan->loops[level];
    int64_t c0 = 0, a, z;
    for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++) {
        const sg_segment *s = &g->plan->segs[k];
        LLVMValueRef n = ci(g, s->count);
        LLVMValueRef klo = clamp(g, sub(g, lo, ci(g, c0)), n), khi = clamp(g, sub(g, hi, ci(g, c0)), n);
        LLVMValueRef seg_out = gep_c(g, out, c0 * l->out_stride);
        c0 += s->count;
        if (is_const(klo, &a) && is_const(khi, &z) && a >= z)
            continue;
        if (s->fill)
            sg_emit_fill(g, gep(g, seg_out, mul(g, klo, ci(g, l->out_stride))),
                         mul(g, sub(g, khi, klo), ci(g, l->out_stride)));
        else
            emit_affine(g, level, gep_c(g, in, s->in_offset), ci(g, s->in_step), seg_out, klo, khi, s->count);
    }
}

/* A segmented loop walking its constant table of run-length encoded
 * segments (sg_segment_rows with runs). */
static void emit_table(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                       LLVMValueRef hi)
{
    const sg_loop *l = &g->plan->loops[level];
    int64_t(*t)[SG_SEG_FIELDS] = malloc(l->nseg * sizeof *t); /* sg_codegen_add_kernel checked nseg */
    LLVMValueRef *vals = malloc(l->nseg * SG_SEG_FIELDS * sizeof *vals);
    if (t == NULL || vals == NULL) {
        sg_fail(g->err, SG_ERR_NOMEM, "failed to compile kernel: out of memory for %zu segments", l->nseg);
        free(t);
        free(vals);
        return;
    }
    size_t n = sg_segment_rows(g->plan, l, true, t);
    bool fills = false;
    for (size_t r = 0; r < n; r++) {
        fills = fills || t[r][SG_SEG_FILL];
        for (size_t k = 0; k < SG_SEG_FIELDS; k++)
            vals[r * SG_SEG_FIELDS + k] = ci(g, t[r][k]);
    }
    LLVMTypeRef type = LLVMArrayType(g->ix, (unsigned)(n * SG_SEG_FIELDS));
    LLVMValueRef table = LLVMAddGlobal(g->m, type, "segments");
    LLVMSetInitializer(table, LLVMConstArray(g->ix, vals, (unsigned)(n * SG_SEG_FIELDS)));
    LLVMSetGlobalConstant(table, 1);
    LLVMSetLinkage(table, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(table, LLVMGlobalUnnamedAddr);
    free(t);
    free(vals);

    LLVMValueRef O = ci(g, l->out_stride);
    loop e;
    loop_begin(g, &e, ci(g, 0), ci(g, (int64_t)n), 1, NULL, NULL, NULL, NULL);
    LLVMValueRef f[SG_SEG_FIELDS];
    for (int k = 0; k < SG_SEG_FIELDS; k++) {
        LLVMValueRef idx[2] = {ci(g, 0), add(g, mul(g, e.i, ci(g, SG_SEG_FIELDS)), ci(g, k))};
        LLVMValueRef at = LLVMBuildGEP2(g->b, type, table, idx, 2, "");
        f[k] = LLVMBuildLoad2(g->b, g->ix, at, "");
    }
    LLVMValueRef first = smax(g, lo, f[SG_SEG_START]),
                 last = smin(g, hi, add(g, f[SG_SEG_START], mul(g, f[SG_SEG_COUNT], f[SG_SEG_REPEAT])));
    LLVMBasicBlockRef work = block(g, "segment"), copies = block(g, "copy"), latch = block(g, "next_segment");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, first, last, ""), work, latch);
    LLVMPositionBuilderAtEnd(g->b, work);
    if (fills) {
        LLVMBasicBlockRef filling = block(g, "fill");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, f[SG_SEG_FILL], ci(g, 0), ""), filling, copies);
        LLVMPositionBuilderAtEnd(g->b, filling);
        sg_emit_fill(g, gep(g, out, mul(g, first, O)), mul(g, sub(g, last, first), O));
        LLVMBuildBr(g->b, latch);
    } else {
        LLVMBuildBr(g->b, copies);
    }
    LLVMPositionBuilderAtEnd(g->b, copies);
    loop rep;
    loop_begin(g, &rep, ci(g, 0), f[SG_SEG_REPEAT], 1, NULL, NULL, NULL, NULL);
    LLVMValueRef s0 = add(g, f[SG_SEG_START], mul(g, rep.i, f[SG_SEG_COUNT]));
    emit_affine(g, level, gep(g, in, f[SG_SEG_IN_OFFSET]), f[SG_SEG_IN_STEP], gep(g, out, mul(g, s0, O)),
                clamp(g, sub(g, lo, s0), f[SG_SEG_COUNT]), clamp(g, sub(g, hi, s0), f[SG_SEG_COUNT]), -1);
    loop_end(g, &rep, false);
    LLVMBuildBr(g->b, latch);
    LLVMMoveBasicBlockAfter(latch, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, latch);
    loop_end(g, &e, false);
}

/* The input index the mode reads for coordinate x (i64) of a dimension of
 * d > 0 elements (sg_ir_mode_index). */
static LLVMValueRef mode_index(gen *g, LLVMValueRef x, LLVMValueRef d, LLVMValueRef *inside)
{
    return sg_ir_mode_index(g->b, g->plan->mode, x, d, inside);
}

static void emit_mapped_each(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                             LLVMValueRef hi);

/* WRAP's and REFLECT's iterations [lo, hi) of the innermost mapped loop
 * where its step is 1 and the window longer than 1: runs of consecutive
 * input elements, each as far as the mode's coordinates stay affine (WRAP:
 * from x mod d to the window's end; REFLECT: to the next edge, ascending
 * or descending, as sg_mode_piece_at cuts them), one copy each (REFLECT's
 * descending runs element by element, without the mode's division each):
 * a border of a pad narrower than the window is one run. `stride` is the
 * level's input stride, the element size (emit_border checks). */
static void emit_mode_runs(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                           LLVMValueRef hi, int64_t stride)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
    LLVMBuilderRef b = g->b;
    bool narrow = LLVMGetIntTypeWidth(g->ix) < 64, reflect = g->plan->mode == SG_TRT_REFLECT;
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b), head = block(g, "mode_run"), body = block(g, "mode_copy"),
                      done = block(g, "mode_runs_done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef y = LLVMBuildPhi(b, g->ix, "y");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, y, hi, ""), body, done);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef d = g->map_dim[level];
    LLVMValueRef x = LLVMBuildAdd(b, g->map_start[level], narrow ? LLVMBuildZExt(b, y, i64, "") : y, "");
    LLVMValueRef index, room, ascending = NULL;
    if (reflect) {
        /* c = |x| mod (2d - 2) (d > 1): below d, index c; else 2d - 2 - c (mode_index) */
        LLVMValueRef zero = LLVMConstInt(i64, 0, 0), one = LLVMConstInt(i64, 1, 0);
        LLVMValueRef period = LLVMBuildSub(b, LLVMBuildAdd(b, d, d, ""), LLVMConstInt(i64, 2, 0), "");
        LLVMValueRef negative = LLVMBuildICmp(b, LLVMIntSLT, x, zero, "");
        LLVMValueRef mag = LLVMBuildSelect(b, negative, LLVMBuildSub(b, zero, x, ""), x, "");
        LLVMValueRef c = sg_ir_mod(b, mag, period, false);
        LLVMValueRef low = LLVMBuildICmp(b, LLVMIntULT, c, d, "");
        index = LLVMBuildSelect(b, low, c, LLVMBuildSub(b, period, c, ""), "");
        ascending = LLVMBuildXor(b, negative, low, "");
        /* x >= 0: up to d - 1 (d - c) or down to 1 (2d - 2 - c); x < 0:
         * down to 0 (c + 1) or up to d - 1 (c - d + 2) */
        LLVMValueRef up = LLVMBuildSelect(b, low, LLVMBuildSub(b, d, c, ""), LLVMBuildSub(b, period, c, ""), "");
        LLVMValueRef down = LLVMBuildSelect(b, low, LLVMBuildAdd(b, c, one, ""),
                                            LLVMBuildAdd(b, LLVMBuildSub(b, c, d, ""), LLVMConstInt(i64, 2, 0), ""),
                                            "");
        room = LLVMBuildSelect(b, negative, down, up, "");
    } else {
        index = mode_index(g, x, d, NULL);
        room = LLVMBuildSub(b, d, index, ""); /* to the window's end: 1..d */
    }
    if (narrow) { /* inside the input: they fit */
        index = LLVMBuildTrunc(b, index, g->ix, "");
        room = LLVMBuildTrunc(b, room, g->ix, "");
    }
    LLVMValueRef n = smin(g, room, sub(g, hi, y));
    LLVMValueRef src = gep(g, in, mul(g, index, g->in_stride[level])), dst = gep(g, out, mul(g, y, g->run));
    if (ascending == NULL) {
        sg_emit_copy_bytes(g, src, dst, mul(g, n, g->run));
    } else {
        LLVMBasicBlockRef up = block(g, "ascending"), down = block(g, "descending"), copied = block(g, "run_copied");
        LLVMBuildCondBr(b, ascending, up, down);
        LLVMPositionBuilderAtEnd(b, up);
        sg_emit_copy_bytes(g, src, dst, mul(g, n, g->run));
        LLVMBuildBr(b, copied);
        LLVMPositionBuilderAtEnd(b, down);
        loop l; /* element by element: a border's few */
        loop_begin(g, &l, ci(g, 0), n, 1, src, ci(g, -stride), dst, g->run);
        sg_emit_copy_bytes(g, l.in, l.out, g->run);
        loop_end(g, &l, false);
        LLVMBuildBr(b, copied);
        LLVMMoveBasicBlockAfter(copied, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(b, copied);
    }
    LLVMValueRef next = add(g, y, n);
    LLVMBasicBlockRef back = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, head);
    LLVMValueRef values[2] = {lo, next};
    LLVMBasicBlockRef blocks[2] = {from, back};
    LLVMAddIncoming(y, values, blocks, 2);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(b, done);
}

/* Iterations [lo, hi) of the innermost mapped loop, all outside the input
 * on one side (a border): FILL's fill value and CLAMP's edge element (the
 * one of iteration lo for all) as one pattern store, WRAP's and
 * REFLECT's as runs where the step is 1 (emit_mode_runs), else element by
 * element. */
static void emit_border(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                        LLVMValueRef hi)
{
    sg_trt_mode mode = g->plan->mode;
    int64_t stride;
    if ((mode == SG_TRT_WRAP || mode == SG_TRT_REFLECT) && is_const(g->in_stride[level], &stride) &&
        stride == g->run_k) {
        LLVMTypeRef i64 = LLVMTypeOf(g->map_step[level]);
        LLVMValueRef unit =
            LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, g->map_step[level], LLVMConstInt(i64, 1, 0), ""),
                         LLVMBuildICmp(g->b, LLVMIntSGT, g->map_dim[level], LLVMConstInt(i64, 1, 0), ""), "");
        LLVMBasicBlockRef runs = block(g, "mode_runs"), each = block(g, "mode_each"), done = block(g, "bordered");
        LLVMBuildCondBr(g->b, unit, runs, each);
        LLVMPositionBuilderAtEnd(g->b, runs);
        emit_mode_runs(g, level, in, out, lo, hi, stride);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, each);
        emit_mapped_each(g, level, in, out, lo, hi);
        LLVMBuildBr(g->b, done);
        LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, done);
        return;
    }
    int64_t unit = g->run_k;
    bool pattern = unit == 1 || unit == 2 || unit == 4 || unit == 8; /* CLAMP's edge run, repeated */
    if (mode != SG_TRT_FILL && !(mode == SG_TRT_CLAMP && pattern)) {
        emit_mapped_each(g, level, in, out, lo, hi);
        return;
    }
    LLVMBasicBlockRef done = when_less(g, lo, hi, "border");
    LLVMValueRef at = gep(g, out, mul(g, lo, g->run)), bytes = mul(g, sub(g, hi, lo), g->run);
    if (mode == SG_TRT_FILL) {
        sg_emit_fill(g, at, bytes);
    } else {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
        LLVMValueRef y = LLVMGetIntTypeWidth(g->ix) < 64 ? LLVMBuildZExt(g->b, lo, i64, "") : lo;
        LLVMValueRef x =
            LLVMBuildAdd(g->b, g->map_start[level], LLVMBuildMul(g->b, y, g->map_step[level], ""), "");
        LLVMValueRef index = mode_index(g, x, g->map_dim[level], NULL);
        if (LLVMGetIntTypeWidth(g->ix) < 64)
            index = LLVMBuildTrunc(g->b, index, g->ix, "");
        LLVMValueRef edge = load(g, int_type(g, unit), gep(g, in, mul(g, index, g->in_stride[level])));
        sg_emit_store_pattern(g, at, edge, unit, bytes);
    }
    when_end(g, done);
}

/* Iterations [lo, hi) of a mapped loop (a symbolic plan's TensorRT border
 * mode, planner.h): iteration y reads the input row of index
 * mode(start + y * step), or fills its part of the output. The innermost
 * one runs its interior, the iterations whose coordinates lie inside the
 * input, as an affine loop of elements (vector code where the step allows),
 * and only the borders element by element. */
static void emit_mapped(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                        LLVMValueRef hi)
{
    if (level + 1 != g->plan->nloops) {
        emit_mapped_each(g, level, in, out, lo, hi);
        return;
    }
    /* [lo, a) border, [a, b) interior, [b, hi) border */
    LLVMValueRef a = smax(g, lo, smin(g, g->interior[0], hi)), b = smax(g, a, smin(g, g->interior[1], hi));
    emit_border(g, level, in, out, lo, a);
    LLVMValueRef step = g->map_step[level], start = g->map_start[level];
    if (LLVMGetIntTypeWidth(g->ix) < 64) { /* inside the input: they fit */
        step = LLVMBuildTrunc(g->b, step, g->ix, "");
        start = LLVMBuildTrunc(g->b, start, g->ix, "");
    }
    LLVMValueRef s = mul(g, step, g->in_stride[level]);
    /* the element of iteration k is in + start * in_stride + k * s (read only for k in [a, b)) */
    LLVMValueRef first = gep(g, in, mul(g, start, g->in_stride[level]));
    int64_t stride;
    if (g->run_k < 0) /* a run of trailing dimensions known per call */
        sg_emit_inner_dynamic(g, first, s, out, a, b);
    else if (is_const(s, &stride))
        sg_emit_inner(g, first, stride, out, a, b, LONG_UNKNOWN);
    else
        sg_emit_inner_by_stride(g, first, s, out, a, b);
    emit_border(g, level, in, out, b, hi);
}

/* Fills the box of levels [level, nloops) at out row by row: a
 * concatenate's part, whose rows lie apart in the output (its innermost
 * loop's runs one after another, sg_sym). */
static void emit_fill_box(gen *g, size_t level, LLVMValueRef out)
{
    if (level + 1 == g->plan->nloops) {
        sg_emit_fill(g, out, mul(g, g->extent[level], g->run));
        return;
    }
    loop l;
    loop_begin(g, &l, ci(g, 0), g->extent[level], 1, NULL, NULL, out, g->out_stride[level]);
    emit_fill_box(g, level + 1, l.out);
    loop_end(g, &l, false);
}

/* Iterations [lo, hi) of a mapped loop, each through the mode's formula. */
static void emit_mapped_each(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                             LLVMValueRef hi)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
    loop l;
    loop_begin(g, &l, lo, hi, 1, NULL, NULL, out, g->out_stride[level]);
    LLVMValueRef y = LLVMGetIntTypeWidth(g->ix) < 64 ? LLVMBuildZExt(g->b, l.i, i64, "") : l.i;
    LLVMValueRef x =
        LLVMBuildAdd(g->b, g->map_start[level], LLVMBuildMul(g->b, y, g->map_step[level], ""), "");
    LLVMValueRef inside = NULL, index = mode_index(g, x, g->map_dim[level], &inside);
    if (LLVMGetIntTypeWidth(g->ix) < 64) /* index < d: it fits */
        index = LLVMBuildTrunc(g->b, index, g->ix, "");
    LLVMBasicBlockRef next = NULL;
    if (inside != NULL) {
        LLVMBasicBlockRef reads = block(g, "reads"), fills = block(g, "fills");
        next = block(g, "mapped");
        LLVMBuildCondBr(g->b, inside, reads, fills);
        LLVMPositionBuilderAtEnd(g->b, fills);
        if (g->plan->part && level + 1 < g->plan->nloops) /* its box's rows lie apart */
            emit_fill_box(g, level + 1, l.out);
        else
            sg_emit_fill(g, l.out, g->out_stride[level]);
        LLVMBuildBr(g->b, next);
        LLVMPositionBuilderAtEnd(g->b, reads);
    }
    LLVMValueRef src = gep(g, in, mul(g, index, g->in_stride[level]));
    if (level + 1 == g->plan->nloops)
        sg_emit_copy_bytes(g, src, l.out, g->run);
    else
        emit_mapped(g, level + 1, src, l.out, ci(g, 0), g->extent[level + 1]);
    if (next != NULL) {
        LLVMBuildBr(g->b, next);
        LLVMMoveBasicBlockAfter(next, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, next);
    }
    loop_end(g, &l, false);
}

/* Level `level` of the nest over iterations [lo, hi); in and out point at
 * the level's iteration 0. Below the nest: the run. */
/* A periodic segmented loop: its segments describe `period` iterations that
 * repeat. One pass over them (unrolled or table) per period that [lo, hi)
 * touches, clamped to the part inside [lo, hi). */
static void emit_periods(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                         LLVMValueRef hi)
{
    const sg_loop *l = &g->plan->loops[level];
    LLVMValueRef P = ci(g, l->period);
    /* periods [lo / P, ceil(hi / P)); hi - 1 >= -1 and P > 0 keep this exact */
    LLVMValueRef first = LLVMBuildSDiv(g->b, lo, P, "");
    LLVMValueRef last = add(g, LLVMBuildSDiv(g->b, sub(g, hi, ci(g, 1)), P, ""), ci(g, 1));
    loop k;
    loop_begin(g, &k, first, last, 1, NULL, NULL, out, ci(g, l->period * l->out_stride));
    LLVMValueRef at = mul(g, k.i, P);
    LLVMValueRef klo = clamp(g, sub(g, lo, at), P), khi = clamp(g, sub(g, hi, at), P);
    if (g->table[level])
        emit_table(g, level, in, k.out, klo, khi);
    else
        emit_segments(g, level, in, k.out, klo, khi);
    loop_end(g, &k, false);
}

void sg_emit_level(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi)
{
    const sg_plan *p = g->plan;
    if (level == p->nloops) { /* the run: a plan of no loops, or of a part's loop of runs */
        sg_emit_copy_run(g, in, out, g->run, g->ahead);
        return;
    }
    if (p->sym && p->sym->mapped) {
        emit_mapped(g, level, in, out, lo, hi);
        return;
    }
    const sg_loop *l = &p->loops[level];
    int64_t extent;
    if (l->nseg == 0)
        emit_affine(g, level, in, g->in_stride[level], out, lo, hi,
                    is_const(g->extent[level], &extent) ? extent : LONG_UNKNOWN);
    else if (l->period > 0)
        emit_periods(g, level, in, out, lo, hi);
    else if (g->table[level])
        emit_table(g, level, in, out, lo, hi);
    else
        emit_segments(g, level, in, out, lo, hi);
}

/* v / N, or q without dividing when v == known (q = known / N). */
static LLVMValueRef quotient(gen *g, LLVMValueRef v, LLVMValueRef N, LLVMValueRef known, LLVMValueRef q)
{
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b), divide = block(g, "divide"),
                      done = block(g, "divided");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, v, known, ""), done, divide);
    LLVMPositionBuilderAtEnd(g->b, divide);
    LLVMValueRef d = LLVMBuildSDiv(g->b, v, N, "");
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMValueRef r = LLVMBuildPhi(g->b, g->ix, "");
    LLVMValueRef values[2] = {q, d};
    LLVMBasicBlockRef blocks[2] = {from, divide};
    LLVMAddIncoming(r, values, blocks, 2);
    return r;
}

/* Levels [level, last] taken together as one range: [lo, hi) index the
 * product of their extents in C order (sg_nest_outer). The levels before
 * `last` are plain loops; each runs the part of its iterations that [lo, hi)
 * touches, the level below clamped to the rest, as emit_periods does. */
void sg_emit_collapsed(gen *g, size_t level, size_t last, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                       LLVMValueRef hi)
{
    if (level == last) {
        sg_emit_level(g, level, in, out, lo, hi);
        return;
    }
    LLVMValueRef N = g->extent[level + 1];
    for (size_t k = level + 2; k <= last; k++)
        N = mul(g, N, g->extent[k]);
    LLVMValueRef first, end;
    if (g->plan->sym) { /* N 0 only for an empty output, whose calls have no steps */
        N = smax(g, N, ci(g, 1));
        /* a call of the whole range, as one thread makes it, divides nothing */
        first = quotient(g, lo, N, ci(g, 0), ci(g, 0));
        end = add(g,
                  quotient(g, sub(g, hi, ci(g, 1)), N, sub(g, mul(g, g->extent[level], N), ci(g, 1)),
                           sub(g, g->extent[level], ci(g, 1))),
                  ci(g, 1));
    } else {
        first = LLVMBuildSDiv(g->b, lo, N, "");
        end = add(g, LLVMBuildSDiv(g->b, sub(g, hi, ci(g, 1)), N, ""), ci(g, 1));
    }
    loop it;
    int64_t stride;
    if (g->plan->sym && !is_const(g->in_stride[level], &stride)) {
        /* a stride known at run time: its iterations in the order that
         * reads the input ascending (rows reversed walked backwards, as
         * emit_affine walks a constant negative stride), one body */
        LLVMValueRef back = LLVMBuildICmp(g->b, LLVMIntSLT, g->in_stride[level], ci(g, 0), "");
        LLVMValueRef i0 = LLVMBuildSelect(g->b, back, sub(g, end, ci(g, 1)), first, "");
        LLVMValueRef dir = LLVMBuildSelect(g->b, back, ci(g, -1), ci(g, 1), "");
        loop_begin(g, &it, ci(g, 0), sub(g, end, first), 1, gep(g, in, mul(g, i0, g->in_stride[level])),
                   mul(g, dir, g->in_stride[level]), gep(g, out, mul(g, i0, g->out_stride[level])),
                   mul(g, dir, g->out_stride[level]));
        LLVMValueRef at = mul(g, add(g, i0, mul(g, dir, it.i)), N),
                     ahead = prefetch_ahead(g, level, g->in_stride[level]);
        /* the rows ahead: up the input either way */
        g->ahead = ahead ? LLVMBuildSelect(g->b, back, sub(g, ci(g, 0), ahead), ahead, "") : NULL;
        sg_emit_collapsed(g, level + 1, last, it.in, it.out, clamp(g, sub(g, lo, at), N),
                          clamp(g, sub(g, hi, at), N));
        g->ahead = NULL;
        loop_end(g, &it, false);
        return;
    }
    loop_begin(g, &it, first, end, 1, in, g->in_stride[level], out, g->out_stride[level]);
    LLVMValueRef at = mul(g, it.i, N);
    g->ahead = prefetch_ahead(g, level, g->in_stride[level]);
    sg_emit_collapsed(g, level + 1, last, it.in, it.out, clamp(g, sub(g, lo, at), N),
                      clamp(g, sub(g, hi, at), N));
    g->ahead = NULL;
    loop_end(g, &it, false);
}

/* Which segmented loops walk a table: those with many segments, then from
 * the outermost in until the unrolled ones multiply to at most MAX_BODIES
 * code paths. */
void sg_emit_choose_tables(gen *g)
{
    const sg_plan *p = g->plan;
    for (size_t i = 0; i < p->nloops; i++)
        g->table[i] = p->loops[i].nseg > MAX_UNROLLED_SEGS;
    for (size_t first = 0; first <= p->nloops; first++) {
        double bodies = 1;
        for (size_t i = 0; i < p->nloops; i++) {
            const sg_loop *l = &p->loops[i];
            if (l->nseg == 0 || g->table[i])
                continue;
            size_t copies = 0;
            for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++)
                copies += !p->segs[k].fill;
            bodies *= copies > 1 ? (double)copies : 1;
        }
        if (bodies <= MAX_BODIES || first == p->nloops)
            return;
        g->table[first] = p->loops[first].nseg > 0;
    }
}

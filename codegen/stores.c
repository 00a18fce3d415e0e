/* Moving and filling output bytes with each store strategy: ordinary
 * (cached) stores, or streaming (non-temporal) ones for whole lines; and
 * which strategy --stores auto takes for a kernel (codegen.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* A store marked !nontemporal, aligned to `align` bytes. */
static void store_streaming(gen *g, LLVMValueRef v, LLVMValueRef p, int64_t align)
{
    LLVMValueRef st = LLVMBuildStore(g->b, v, typed(g, p, LLVMTypeOf(v)));
    LLVMSetAlignment(st, (unsigned)align);
    LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(g->i32, 1, 0));
    LLVMSetMetadata(st, LLVMGetMDKindIDInContext(g->c, "nontemporal", 11),
                    LLVMMetadataAsValue(g->c, LLVMMDNodeInContext2(g->c, &one, 1)));
}

/* c bytes (a power of two) from in + at to out + at; with `ahead`, first
 * prefetches the input lines that start in the chunk, `ahead` bytes on. */
static void copy_chunk(gen *g, LLVMValueRef in, LLVMValueRef out, int64_t at, int64_t c, LLVMValueRef ahead)
{
    for (int64_t k = (at + LINE - 1) / LINE * LINE; ahead != NULL && k < at + c; k += LINE)
        prefetch(g, in, add(g, ahead, ci(g, k)), 1);
    store(g, load(g, chunk_type(g, c), gep_c(g, in, at)), gep_c(g, out, at));
}

/* Moves `bytes` bytes, fewer than `below` (a power of two, at most a line
 * and at least a widest vector), inline: for each bit c of the count
 * (1, 2, 4, ...) that is set, c bytes at offset bytes & (c - 1), the sum
 * of the smaller chunks. A count of 0 takes one branch. */
static void copy_short(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, int64_t below)
{
    LLVMBasicBlockRef none = when_less(g, ci(g, 0), bytes, "short");
    for (int64_t c = 1; c < below; c *= 2) {
        LLVMValueRef bit = LLVMBuildAnd(g->b, bytes, ci(g, c), "");
        LLVMBasicBlockRef skip = when_less(g, ci(g, 0), bit, "chunk");
        LLVMValueRef at = LLVMBuildAnd(g->b, bytes, ci(g, c - 1), "");
        store(g, load(g, chunk_type(g, c), gep(g, in, at)), gep(g, out, at));
        when_end(g, skip);
    }
    when_end(g, none);
}

/* What a streamed range of bytes holds: a copy of the bytes at `in`, or
 * (in NULL) the `unit`-byte integer v repeated from the range's start. */
typedef struct stream_source {
    LLVMValueRef in, v;
    int64_t unit;
} stream_source;

/* The c bytes of src at offset `at` (a multiple of src->unit). */
static LLVMValueRef source_bytes(gen *g, const stream_source *src, LLVMValueRef at, int64_t c)
{
    if (src->in != NULL)
        return load(g, chunk_type(g, c), gep(g, src->in, at));
    LLVMValueRef v = splat(g, src->v, (unsigned)(c / src->unit));
    return c > src->unit && c <= 8 ? LLVMBuildBitCast(g->b, v, int_type(g, c), "") : v; /* a movnti */
}

/* Stores v, a piece of c bytes (a power of two) at an address aligned to
 * c, non-temporally when the target keeps stores that narrow so
 * (sg_target.nt_min_bytes), else with an ordinary store. */
static void store_piece(gen *g, LLVMValueRef v, LLVMValueRef p, int64_t c)
{
    if (g->nt_min > 0 && c >= g->nt_min)
        store_streaming(g, v, p, c);
    else
        store(g, v, p);
}

/* The unit streaming stores write whole: a line, or a vector when wider. */
static int64_t stream_unit(const gen *g)
{
    return g->vec > LINE ? g->vec : LINE;
}

/* Moves `bytes` bytes (any count, a multiple of src->unit) from src to out
 * with every piece that the target can store non-temporally so stored
 * (targets with sg_target.nt_min_bytes): the bytes up to out's first
 * stream_unit boundary in ascending pieces, each aligned to its size
 * (piece c, a power of two from src->unit on, where the address has bit c
 * set and c bytes remain); the whole units, a vector at a time; then the
 * rest in descending pieces (c where the count left has bit c), aligned
 * because the address is aligned to the largest. Every line the range
 * covers is so written by streaming stores alone, as the write-combining
 * buffers need to send it to memory whole, without reading it first. Runs
 * of 1- and 2-byte pieces (u8, f16) are ordinary stores. With `ahead`,
 * each vector prefetches the input `ahead` bytes on. */
static void stream_bytes(gen *g, const stream_source *src, LLVMValueRef out, LLVMValueRef bytes,
                         LLVMValueRef ahead)
{
    int64_t v = g->vec, u = stream_unit(g), n = -1, lo = src->unit;
    bool known = is_const(bytes, &n);
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, out, g->ix, ""), done = ci(g, 0);
    if (ahead != NULL)
        prefetch(g, src->in, ahead, 1);
    if (known && n == lo) { /* one piece, aligned to its size */
        store_piece(g, source_bytes(g, src, done, lo), out, lo);
        return;
    }
    for (int64_t c = lo; c < u && (!known || c <= n); c *= 2) {
        LLVMValueRef at = add(g, addr, done);
        LLVMValueRef odd = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, at, ci(g, c), ""), ci(g, 0), "");
        LLVMValueRef fits = LLVMBuildICmp(g->b, LLVMIntSGE, sub(g, bytes, done), ci(g, c), "");
        LLVMValueRef take = LLVMBuildAnd(g->b, odd, fits, "");
        LLVMBasicBlockRef piece = block(g, "head"), next = block(g, "headed");
        LLVMBuildCondBr(g->b, take, piece, next);
        LLVMPositionBuilderAtEnd(g->b, piece);
        store_piece(g, source_bytes(g, src, done, c), gep(g, out, done), c);
        LLVMBuildBr(g->b, next);
        LLVMPositionBuilderAtEnd(g->b, next);
        done = add(g, done, LLVMBuildSelect(g->b, take, ci(g, c), ci(g, 0), ""));
    }
    LLVMValueRef end = add(g, done, LLVMBuildAnd(g->b, sub(g, bytes, done), ci(g, -u), ""));
    if (!known || n >= u) {
        loop l;
        loop_begin(g, &l, done, end, v, src->in, src->in ? ci(g, 1) : NULL, out, ci(g, 1));
        if (ahead != NULL)
            prefetch(g, l.in, ahead, 1);
        LLVMValueRef w =
            src->in != NULL ? load(g, chunk_type(g, v), l.in) : splat(g, src->v, (unsigned)(v / src->unit));
        store_streaming(g, w, l.out, v);
        loop_end(g, &l, false);
    }
    LLVMValueRef left = sub(g, bytes, end);
    for (int64_t c = u / 2; c >= lo; c /= 2) {
        if (known && c > n)
            continue;
        LLVMValueRef at = add(g, end, LLVMBuildAnd(g->b, left, ci(g, ~(2 * c - 1)), ""));
        LLVMBasicBlockRef skip = when_less(g, ci(g, 0), LLVMBuildAnd(g->b, left, ci(g, c), ""), "tail");
        store_piece(g, source_bytes(g, src, at, c), gep(g, out, at), c);
        when_end(g, skip);
    }
}

/* stream_bytes of `bytes` bytes of whole elements from in, on targets that
 * stream pieces (sg_target.nt_min_bytes). Every range a kernel moves lies
 * at a whole count of elements from out, so where out is aligned to its
 * elements (as arrays are) the pieces start at the element size, and
 * where it is not, from 1-byte pieces: for a constant count up to
 * INLINE_COPY, one test of out's address instead of a 1- and a 2-byte
 * head and tail piece to test in every range (a border element of 4 bytes
 * is one store). Longer ranges, and elements narrower than nt_min, stream
 * from 1-byte pieces. */
static void stream_elements(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead)
{
    int64_t elem = (int64_t)g->plan->elem_size, n;
    if (elem < g->nt_min || elem > 8 || (elem & (elem - 1)) != 0 || !is_const(bytes, &n) || n > INLINE_COPY) {
        stream_bytes(g, &(stream_source){.in = in, .unit = 1}, out, bytes, ahead);
        return;
    }
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, out, g->ix, "");
    LLVMValueRef ok = LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildAnd(g->b, addr, ci(g, elem - 1), ""), ci(g, 0), "");
    LLVMBasicBlockRef streamed = block(g, "stream"), unaligned = block(g, "unaligned"), done = block(g, "moved");
    LLVMBuildCondBr(g->b, ok, streamed, unaligned);
    LLVMPositionBuilderAtEnd(g->b, streamed);
    stream_bytes(g, &(stream_source){.in = in, .unit = elem}, out, bytes, ahead);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, unaligned);
    stream_bytes(g, &(stream_source){.in = in, .unit = 1}, out, bytes, ahead);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Moves `bytes` bytes (at least 2 vectors) with streaming stores: the
 * whole lines of out (stream_unit) stored non-temporally, a vector at a
 * time, the ragged ends before and after them (less than a line each)
 * inline with ordinary stores (not a memcpy call per end, which costs
 * short runs much of their time). The ends never touch a line a
 * streaming store writes: an ordinary store to such a line makes the
 * streaming one evict it partly written (docs/bench.md, "Streaming stores
 * and rows of short pieces"). With `ahead`, each vector prefetches the input `ahead` bytes on
 * (copy_run). */
static void copy_streaming(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead)
{
    if (g->nt_min > 0) {
        stream_elements(g, in, out, bytes, ahead);
        return;
    }
    int64_t v = g->vec, u = stream_unit(g);
    LLVMTypeRef type = chunk_type(g, v);
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, out, g->ix, "");
    LLVMValueRef first = LLVMBuildAnd(g->b, LLVMBuildNeg(g->b, addr, ""), ci(g, u - 1), "aligned");
    LLVMValueRef end = add(g, first, LLVMBuildAnd(g->b, sub(g, bytes, first), ci(g, -u), ""));
    if (ahead != NULL)
        prefetch(g, in, ahead, 1);
    copy_short(g, in, out, first, u);
    loop l;
    loop_begin(g, &l, first, end, v, in, ci(g, 1), out, ci(g, 1));
    if (ahead != NULL)
        prefetch(g, l.in, ahead, 1);
    store_streaming(g, load(g, type, l.in), l.out, v);
    loop_end(g, &l, false);
    copy_short(g, gep(g, in, end), gep(g, out, end), sub(g, bytes, end), u);
}

/* Moves `bytes` bytes, a count known at run time: from one widest vector
 * to INLINE_COPY bytes inline, in whole vectors and a last one ending at
 * the end (overlapping the one before); others one llvm.memcpy. Prefetches
 * as copy_run. */
static void copy_bytes_inline(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes,
                              LLVMValueRef ahead)
{
    int64_t v = g->copy_vec;
    LLVMTypeRef type = chunk_type(g, v);
    LLVMBasicBlockRef vectors = block(g, "vectors"), call = block(g, "memcpy"), done = block(g, "copied");
    LLVMValueRef fits = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, bytes, ci(g, v), ""),
                                     LLVMBuildICmp(g->b, LLVMIntSLE, bytes, ci(g, INLINE_COPY), ""), "");
    LLVMBuildCondBr(g->b, fits, vectors, call);
    LLVMPositionBuilderAtEnd(g->b, vectors);
    loop l;
    loop_begin(g, &l, ci(g, 0), sub(g, bytes, ci(g, v)), v, in, ci(g, 1), out, ci(g, 1));
    if (ahead != NULL)
        prefetch(g, l.in, ahead, 1);
    store(g, load(g, type, l.in), l.out);
    loop_end(g, &l, false);
    LLVMValueRef last = sub(g, bytes, ci(g, v));
    if (ahead != NULL)
        prefetch(g, gep(g, in, last), ahead, 1);
    store(g, load(g, type, gep(g, in, last)), gep(g, out, last));
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, call);
    prefetch_lines(g, in, ahead, bytes);
    LLVMBuildMemCpy(g->b, out, 1, in, 1, bytes);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

static void copy_run_cached(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes,
                            LLVMValueRef ahead);

/* copy_run_cached, but for runs of at least SG_STREAM_VECTORS vectors, a
 * count known or known only at run time (then memcpy below that), which
 * copy_streaming moves. */
static void copy_run_streaming(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes,
                               LLVMValueRef ahead)
{
    int64_t n;
    bool known = is_const(bytes, &n);
    if ((known && n >= SG_STREAM_VECTORS * g->vec) || (g->nt_min > 0 && (!known || n > 0))) {
        copy_streaming(g, in, out, bytes, ahead);
        return;
    }
    if (!known) { /* streaming when long enough, else memcpy */
        LLVMBasicBlockRef streamed = block(g, "stream"), cached = block(g, "cached");
        LLVMBasicBlockRef done = block(g, "copied");
        LLVMValueRef big = LLVMBuildICmp(g->b, LLVMIntSGE, bytes, ci(g, SG_STREAM_VECTORS * g->vec), "");
        LLVMBuildCondBr(g->b, big, streamed, cached);
        LLVMPositionBuilderAtEnd(g->b, streamed);
        copy_streaming(g, in, out, bytes, ahead);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, cached);
        if (ahead != NULL) { /* fewer than 2 vectors: the lines of its first and last byte */
            prefetch(g, in, ahead, 1);
            prefetch(g, in, add(g, ahead, sub(g, bytes, ci(g, 1))), 1);
        }
        LLVMBuildMemCpy(g->b, out, 1, in, 1, bytes);
        LLVMBuildBr(g->b, done);
        LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, done);
        return;
    }
    copy_run_cached(g, in, out, bytes, ahead);
}

/* The cached strategy's runs: moves `bytes` bytes and, with `ahead`,
 * prefetches the input `ahead` bytes on as it goes: each line's prefetch
 * beside the load of the line it pairs with, so that the loads that miss
 * never queue behind a burst of prefetches; before a memcpy call, all of
 * them. A constant count up to INLINE_COPY is copied inline in
 * chunks of the widest size that fits (straight-line up to
 * STRAIGHT_VECTORS chunks, else a loop of COPY_GROUP chunks and the chunks
 * left), the last chunk ending at the end and overlapping the one before
 * when the count is not a multiple: bytes written twice get the same
 * value, and in and out never overlap. Other counts are one llvm.memcpy. */
static void copy_run_cached(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead)
{
    int64_t n;
    bool known = is_const(bytes, &n);
    if (!known && g->plan->sym) { /* a symbolic plan's runs: up to INLINE_COPY bytes inline */
        copy_bytes_inline(g, in, out, bytes, ahead);
        return;
    }
    if (!known || n > INLINE_COPY) {
        prefetch_lines(g, in, ahead, bytes);
        LLVMBuildMemCpy(g->b, out, 1, in, 1, bytes);
        return;
    }
    if (n <= 0)
        return;
    int64_t c = chunk_at_most(g->copy_vec, n), whole = n / c, at = 0;
    if (whole > STRAIGHT_VECTORS) { /* a loop moving COPY_GROUP chunks per iteration */
        int64_t group = COPY_GROUP * c;
        loop l;
        loop_begin(g, &l, ci(g, 0), ci(g, n / group * group), group, in, ci(g, 1), out, ci(g, 1));
        for (int64_t k = 0; k < COPY_GROUP; k++)
            copy_chunk(g, l.in, l.out, k * c, c, ahead);
        loop_end(g, &l, false);
        at = n / group * group;
    }
    for (; at + c <= n; at += c)
        copy_chunk(g, in, out, at, c, ahead);
    if (n % c != 0)
        copy_chunk(g, in, out, n - c, c, ahead);
}

/* Moves `bytes` bytes with the strategy of the code being emitted. */
void sg_emit_copy_run(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead)
{
    g->stores->copy(g, in, out, bytes, ahead);
}

/* Moves `bytes` bytes (sg_emit_copy_run without prefetching). */
void sg_emit_copy_bytes(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes)
{
    sg_emit_copy_run(g, in, out, bytes, NULL);
}

/* Stores `bytes` bytes, fewer than a widest vector and a multiple of the
 * unit, at out, repeating the `unit`-byte integer v, inline: for each bit c
 * of the count from the unit on that is set, c bytes at offset bytes & (c -
 * 1), as copy_short. */
static void store_pattern_short(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit, LLVMValueRef bytes,
                                int64_t below)
{
    LLVMBasicBlockRef none = when_less(g, ci(g, 0), bytes, "short");
    for (int64_t c = unit; c < below; c *= 2) {
        LLVMBasicBlockRef skip = when_less(g, ci(g, 0), LLVMBuildAnd(g->b, bytes, ci(g, c), ""), "chunk");
        store(g, splat(g, v, (unsigned)(c / unit)), gep(g, out, LLVMBuildAnd(g->b, bytes, ci(g, c - 1), "")));
        when_end(g, skip);
    }
    when_end(g, none);
}

/* store_pattern with streaming stores, for `bytes` of at least
 * SG_STREAM_VECTORS vectors at an output aligned to the unit (a power of two
 * below the vector: the pattern then starts whole at every vector
 * boundary): the whole lines stored non-temporally, the ragged ends
 * inline, as copy_streaming. */
static void store_pattern_streaming(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit,
                                    LLVMValueRef bytes)
{
    if (g->nt_min > 0) {
        stream_bytes(g, &(stream_source){.v = v, .unit = unit}, out, bytes, NULL);
        return;
    }
    int64_t w = g->vec, u = stream_unit(g);
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, out, g->ix, "");
    LLVMValueRef first = LLVMBuildAnd(g->b, LLVMBuildNeg(g->b, addr, ""), ci(g, u - 1), "aligned");
    LLVMValueRef end = add(g, first, LLVMBuildAnd(g->b, sub(g, bytes, first), ci(g, -u), ""));
    store_pattern_short(g, out, v, unit, first, u);
    LLVMValueRef wide_v = splat(g, v, (unsigned)(w / unit));
    loop l;
    loop_begin(g, &l, first, end, w, NULL, NULL, out, ci(g, 1));
    store_streaming(g, wide_v, l.out, w);
    loop_end(g, &l, false);
    store_pattern_short(g, gep(g, out, end), v, unit, sub(g, bytes, end), u);
}

/* store_pattern with ordinary stores: a memset when v is a constant of one
 * repeated byte; else straight-line when short, else full-vector splat
 * stores and a unit-store tail. */
static void store_pattern_cached(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit, LLVMValueRef bytes)
{
    int64_t n = -1;
    bool known = is_const(bytes, &n);
    if (LLVMIsAConstantInt(v)) {
        unsigned long long bits = LLVMConstIntGetZExtValue(v), byte = bits & 0xff;
        bool same = true;
        for (int64_t k = 1; k < unit; k++)
            same = same && ((bits >> (8 * k)) & 0xff) == byte;
        if (same) {
            LLVMBuildMemSet(g->b, out, LLVMConstInt(g->i8, byte, 0), bytes, 1);
            return;
        }
    }
    if (known && n <= STRAIGHT_VECTORS * g->vec) {
        for (int64_t at = 0; at < n;) {
            int64_t c = chunk_at_most(g->vec, n - at);
            store(g, splat(g, v, (unsigned)(c / unit)), gep_c(g, out, at));
            at += c;
        }
        return;
    }
    loop wide, tail;
    LLVMValueRef whole = LLVMBuildAnd(g->b, bytes, ci(g, -g->vec), "");
    LLVMValueRef wide_v = splat(g, v, (unsigned)(g->vec / unit));
    loop_begin(g, &wide, ci(g, 0), whole, g->vec, NULL, NULL, out, ci(g, 1));
    store(g, wide_v, wide.out);
    loop_end(g, &wide, false);
    if (known && n % g->vec == 0)
        return;
    loop_begin(g, &tail, whole, bytes, unit, NULL, NULL, out, ci(g, 1));
    store(g, v, tail.out);
    loop_end(g, &tail, false);
}

/* Stores `bytes` bytes (a multiple of the unit) at out, repeating the
 * `unit`-byte integer v. A streamed output's counts of at least
 * SG_STREAM_VECTORS vectors, at an output aligned to a unit that is a power
 * of two, take streaming stores (store_pattern_streaming); others ordinary
 * ones (store_pattern_cached: memset for a value of one repeated byte). */
void sg_emit_store_pattern(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit, LLVMValueRef bytes)
{
    int64_t n = -1;
    if (is_const(bytes, &n) && n == 0)
        return;
    g->stores->pattern(g, out, v, unit, bytes);
}

/* The streaming strategy's patterns (sg_emit_store_pattern): streamed when
 * long enough and aligned to the unit, a power of two below the vector. */
static void store_pattern_stream_or_not(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit,
                                        LLVMValueRef bytes)
{
    int64_t n = -1;
    bool known = is_const(bytes, &n);
    bool pow2 = (unit & (unit - 1)) == 0;
    if (!pow2 || unit >= g->vec || (known && n < SG_STREAM_VECTORS * g->vec && g->nt_min == 0)) {
        store_pattern_cached(g, out, v, unit, bytes);
        return;
    }
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, out, g->ix, "");
    LLVMValueRef ok =
        LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildAnd(g->b, addr, ci(g, unit - 1), ""), ci(g, 0), "");
    if (!known && g->nt_min == 0)
        ok = LLVMBuildAnd(g->b, ok,
                          LLVMBuildICmp(g->b, LLVMIntSGE, bytes, ci(g, SG_STREAM_VECTORS * g->vec), ""), "");
    LLVMBasicBlockRef streamed = block(g, "stream"), cached = block(g, "cached"), done = block(g, "stored");
    LLVMBuildCondBr(g->b, ok, streamed, cached);
    LLVMPositionBuilderAtEnd(g->b, streamed);
    store_pattern_streaming(g, out, v, unit, bytes);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, cached);
    store_pattern_cached(g, out, v, unit, bytes);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* FILL: the plan's fill value over `bytes` output bytes (a runtime one
 * from g->fill_bits). */
void sg_emit_fill(gen *g, LLVMValueRef out, LLVMValueRef bytes)
{
    uint64_t bits = 0;
    memcpy(&bits, g->plan->fill, g->plan->elem_size); /* little-endian targets */
    int64_t unit = (int64_t)g->plan->elem_size;
    LLVMValueRef element = g->fill_bits == NULL ? LLVMConstInt(int_type(g, unit), bits, 0)
                           : unit < 8           ? LLVMBuildTrunc(g->b, g->fill_bits, int_type(g, unit), "fill")
                                                : g->fill_bits;
    sg_emit_store_pattern(g, out, element, unit, bytes);
}

/* ---- the strategies ------------------------------------------------------------------ */

/* After streaming stores, before the kernel returns: the target's store
 * fence (t->fence), so that they are ordered before whatever the caller
 * does next. */
static void store_fence(gen *g, const sg_target *t)
{
    if (t->fence == SG_FENCE_SFENCE) {
        static const char name[] = "llvm.x86.sse.sfence";
        LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(g->c), NULL, 0, 0);
        LLVMValueRef fn = LLVMGetNamedFunction(g->m, name);
        if (fn == NULL)
            fn = LLVMAddFunction(g->m, name, type);
        LLVMBuildCall2(g->b, type, fn, NULL, 0, "");
    } else {
        LLVMAtomicOrdering order = t->fence == SG_FENCE_SEQ_CST ? LLVMAtomicOrderingSequentiallyConsistent
                                                                : LLVMAtomicOrderingRelease;
        LLVMBuildFence(g->b, order, 0, "");
    }
}

static void block_cached(gen *g, LLVMValueRef v, LLVMValueRef out, int64_t align)
{
    (void)align;
    store(g, v, out);
}

/* The streaming strategy's blocks: v stored non-temporally at an address
 * aligned to `align`; a block at an address of unknown alignment (align
 * 1), on targets with sg_target.nt_min_bytes, put in a buffer on the
 * stack and streamed from there in pieces (stream_bytes), else stored
 * with an ordinary store. */
static void block_streaming(gen *g, LLVMValueRef v, LLVMValueRef out, int64_t align)
{
    if (align > 1) {
        store_streaming(g, v, out, align);
        return;
    }
    if (g->nt_min == 0) {
        store(g, v, out);
        return;
    }
    LLVMTypeRef type = LLVMTypeOf(v);
    int64_t bytes =
        (int64_t)LLVMGetVectorSize(type) * (int64_t)(LLVMGetIntTypeWidth(LLVMGetElementType(type)) / 8);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(g->fn);
    LLVMBuilderRef at_entry = LLVMCreateBuilderInContext(g->c);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first != NULL)
        LLVMPositionBuilderBefore(at_entry, first);
    else
        LLVMPositionBuilderAtEnd(at_entry, entry);
    LLVMValueRef buffer = LLVMBuildAlloca(at_entry, type, "block");
    LLVMDisposeBuilder(at_entry);
    LLVMValueRef bytes_at = LLVMBuildPointerCast(g->b, buffer, g->ptr, "");
    store(g, v, bytes_at);
    stream_elements(g, bytes_at, out, ci(g, bytes), NULL);
}

const sg_store_strategy sg_stores_cached = {"cached",     false, copy_run_cached, store_pattern_cached,
                                            block_cached, NULL};
const sg_store_strategy sg_stores_streaming = {
    "streaming", true, copy_run_streaming, store_pattern_stream_or_not, block_streaming, store_fence};

const sg_store_strategy *sg_emit_unaligned_blocks(const gen *g)
{
    return g->stores->streams && g->nt_min > 0 ? &sg_stores_streaming : &sg_stores_cached;
}

/* The vector width for copying runs: the widest, except where every input
 * address the nest reads from is 32 bytes past a 64-byte line (given an
 * input at a 64-byte boundary, as tensor allocators give): 64-byte loads
 * there would each straddle two lines, 32-byte ones none, and straddling
 * loads cost twice. Elsewhere both widths straddle as often. */
int64_t sg_emit_copy_width(const sg_plan *p, int64_t vec)
{
    int64_t align = sg_gcd(64, p->base < 0 ? -p->base : p->base);
    for (size_t i = 0; i < p->nloops; i++) {
        const sg_loop *l = &p->loops[i];
        align = sg_gcd(align, l->in_stride < 0 ? -l->in_stride : l->in_stride);
        for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++) {
            const sg_segment *s = &p->segs[k];
            align = sg_gcd(align, s->in_offset < 0 ? -s->in_offset : s->in_offset);
            align = sg_gcd(align, s->in_step < 0 ? -s->in_step : s->in_step);
        }
    }
    return vec > 32 && align == 32 ? 32 : vec;
}

bool sg_codegen_streams(const sg_plan *plan, const sg_target *t)
{
    if (sg_target_is_gpu(t) || t->gpu_emulation || t->stores == SG_STORES_CACHED ||
        (plan->sym && plan->op == SG_OP_PROGRAM)) /* a concatenate of runtime values: its parts store cached */
        return false;
    if (t->stores == SG_STORES_STREAMING)
        return true;
    sg_auto_stores a = sg_codegen_auto_stores(plan, t);
    return a == SG_AUTO_STREAMS || (a == SG_AUTO_SHORT_ROWS && sg_codegen_short_rows() == 1);
}

sg_auto_stores sg_codegen_auto_stores(const sg_plan *plan, const sg_target *t)
{
    if (sg_target_is_gpu(t) || t->gpu_emulation || plan->sym != NULL ||
        plan->out_bytes <= (uint64_t)sg_codegen_stream_threshold(t))
        return SG_AUTO_CACHED;
    sg_stream_lines s = sg_nest_stream_lines(plan, (sg_stream_target){t->vector_bytes, t->nt_min_bytes});
    return s.mixed * SG_STREAM_LINES_PER_MIXED <= s.lines ? SG_AUTO_STREAMS
           : s.mixed * SG_STREAM_LINES_PER_MIXED_SHORT <= s.lines && 2 * s.shuffled <= s.lines
               ? SG_AUTO_SHORT_ROWS
               : SG_AUTO_CACHED;
}

int sg_codegen_short_rows(void)
{
    const char *env = getenv("SLICEGEN_STREAM_SHORT_ROWS");
    if (env != NULL && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
        return env[0] - '0';
    return -1;
}

int64_t sg_host_stream_threshold(void)
{
    sg_target host = {.llc_bytes = sg_host_llc_bytes()};
    return sg_codegen_stream_threshold(&host);
}

/* Whether t streams every piece of plan's elements whole
 * (sg_target.nt_min_bytes at most the element size). */
static bool whole_pieces(const sg_plan *plan, const sg_target *t)
{
    return t->nt_min_bytes > 0 && (int64_t)plan->elem_size >= t->nt_min_bytes;
}

bool sg_codegen_stream_whole_rows(const sg_plan *plan, const sg_target *t)
{
    return plan->sym != NULL && plan->sym->mapped && t->nt_min_bytes > 0 && !whole_pieces(plan, t);
}

int64_t sg_codegen_stream_above(const sg_plan *plan, const sg_target *t)
{
    if (plan->sym == NULL || plan->op == SG_OP_PROGRAM /* a concatenate's parts store cached */ ||
        sg_target_is_gpu(t) || t->gpu_emulation || t->stores == SG_STORES_CACHED)
        return -1;
    if (t->stores == SG_STORES_STREAMING)
        return 0;
    const sg_val *run = &plan->sym->run_bytes;
    if ((plan->sym->mapped && !whole_pieces(plan, t) && !sg_codegen_stream_whole_rows(plan, t)) ||
        (sg_is_const(*run) && run->k < sg_codegen_stream_min_run(plan, t)))
        return -1;
    /* an output that no call makes larger than the threshold (a crop of an
     * input of static size) never streams: no nest for it */
    int64_t threshold = sg_codegen_stream_threshold(t);
    return sg_exprs_most(&plan->sym->ex, plan->sym->out_bytes) <= threshold ? -1 : threshold;
}

int64_t sg_codegen_stream_min_run(const sg_plan *plan, const sg_target *t)
{
    if (!whole_pieces(plan, t) && !sg_codegen_stream_whole_rows(plan, t))
        return SG_STREAM_MIN_RUN;
    return sg_is_const(plan->sym->run_bytes) ? 0 : SG_LINE_BYTES;
}

int64_t sg_codegen_threshold_setting(void)
{
    const char *env = getenv("SLICEGEN_STREAM_THRESHOLD");
    if (env == NULL || *env < '0' || *env > '9')
        return -1;
    char *end;
    unsigned long long v = strtoull(env, &end, 10);
    return *end != '\0' ? -1 : v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

int64_t sg_codegen_stream_threshold(const sg_target *t)
{
    int64_t setting = sg_codegen_threshold_setting();
    if (setting >= 0)
        return setting;
    if (t->stream_threshold > 0)
        return t->stream_threshold;
    uint64_t threshold = (t->llc_bytes ? t->llc_bytes : SG_STREAM_DEFAULT_LLC) / 2;
    return threshold > INT64_MAX ? INT64_MAX : (int64_t)threshold;
}

/* IR emission: one function per plan, every number of the folded nest a
 * constant (see codegen.h for the shape of the code). The IR is meant to be
 * good as emitted, at -O0: phis instead of allocas, pointer induction
 * variables, vector code written out rather than left to the vectorizer. */
#define SG_CODEGEN_INTERNAL
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>

#include "codegen.h"
#include "ir.h"

enum {
    MAX_VEC = 64,                  /* the widest vectors (sg_target.vector_bytes) */
    INLINE_COPY = 4096,            /* constant runs up to this size are copied inline ... */
    STRAIGHT_VECTORS = 8,          /* ... straight-line up to 8 vectors, else in a loop */
    COPY_GROUP = 4,                /* ... of 4 vectors per iteration (more loads in flight) */
    MAX_STRIDE_RUNS = 4,           /* shuffle-vectorise innermost |in_stride| <= 4 runs */
    MAX_SHUFFLE_RUN = 12,          /* of up to 12 bytes (3-byte pixels, 3 x f32) ... */
    MAX_BLOCK_VECTORS = 3,         /* ... whose blocks of whole runs fill at most 3 vectors */
    UNROLL_TRIPS = 8,              /* innermost constant loops of at most 8 trips ... */
    UNROLL_BYTES = 128,            /* ... and 128 bytes are unrolled */
    MAX_UNROLLED_SEGS = 8,         /* segmented loops with more segments use a table */
    MAX_BODIES = 64,               /* bound on the code paths of unrolled segmented loops */
    FIELDS = 6,                    /* segment table: start, count, repeat, offset, step, fill */
    LINE = 64,                     /* cache line bytes, for prefetching */
    LOCKSTEP_BYTES = 16 << 10,     /* a program's parts in lockstep take turns every 16 KiB of output */
    LONG_UNKNOWN = INLINE_COPY + 1 /* emit_inner's extent where it is known only at run time
                                      (a symbolic plan's): a dense range is one copy */
};

typedef struct gen {
    const sg_plan *plan;
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMTypeRef i8, i32, ptr;
    LLVMTypeRef ix;              /* the type of indices, sizes and offsets: the target's pointer width */
    int64_t vec;                 /* bytes of the widest vectors */
    int64_t copy_vec;            /* ... and of those that copy runs (copy_width) */
    LLVMValueRef ahead;          /* how far ahead the loop around the innermost one prefetches
                                    while emitting it, if it is worth it; else NULL */
    LLVMValueRef sym_ahead;      /* a symbolic plan's: computed per call (0: none) */
    LLVMValueRef sym_ahead_runs; /* ... and its innermost loop's, for runs of whole lines */
    bool table[SG_MAX_RANK];     /* this segmented loop walks a segment table */
    bool stream;                 /* runs are copied with streaming stores (sg_codegen_streams) ... */
    bool part;                   /* ... and the function is a program's part: its kernel fences once
                                    at the end, not every part at each call (a fence waits for the
                                    streamed lines to reach memory) */
    int64_t stream_above;        /* a symbolic plan with --stores auto: the output bytes from which a call
                                    streams (two bodies, chosen per call); -1 otherwise */
    /* The nest's numbers: constants, or for a symbolic plan what the
     * kernel loads from its args where they are known only at run time. */
    LLVMValueRef extent[SG_MAX_RANK], in_stride[SG_MAX_RANK], out_stride[SG_MAX_RANK];
    LLVMValueRef map_start[SG_MAX_RANK], map_step[SG_MAX_RANK], map_dim[SG_MAX_RANK]; /* i64; mapped loops */
    LLVMValueRef interior[2]; /* the innermost mapped loop's affine iterations (sg_sym.interior) */
    LLVMValueRef run;         /* bytes per innermost iteration */
    int64_t run_k;            /* ... when constant, else -1 */
    sg_error *err;            /* set (and the module abandoned) on failure */
} gen;

/* ---- small builders ------------------------------------------------------------- */

/* v as an index (it fits: sg_codegen_add_kernel refuses tensors the
 * target cannot address). */
static LLVMValueRef ci(gen *g, int64_t v)
{
    return LLVMConstInt(g->ix, (unsigned long long)v, 1);
}

static bool is_const(LLVMValueRef v, int64_t *value)
{
    if (!LLVMIsAConstantInt(v))
        return false;
    *value = LLVMConstIntGetSExtValue(v);
    return true;
}

/* ptr + offset bytes (a plain GEP: pointers past the end are never used). */
static LLVMValueRef gep(gen *g, LLVMValueRef p, LLVMValueRef offset)
{
    int64_t k;
    if (is_const(offset, &k) && k == 0)
        return p;
    return LLVMBuildGEP2(g->b, g->i8, p, &offset, 1, "");
}

static LLVMValueRef gep_c(gen *g, LLVMValueRef p, int64_t offset)
{
    return gep(g, p, ci(g, offset));
}

/* Arithmetic on indices: the builder folds constants, these skip identities. */
static LLVMValueRef add(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    int64_t k;
    if (is_const(b, &k) && k == 0)
        return a;
    return is_const(a, &k) && k == 0 ? b : LLVMBuildAdd(g->b, a, b, "");
}

static LLVMValueRef sub(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    int64_t k;
    return is_const(b, &k) && k == 0 ? a : LLVMBuildSub(g->b, a, b, "");
}

static LLVMValueRef mul(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    int64_t k;
    if (is_const(b, &k) && k == 1)
        return a;
    return is_const(a, &k) && k == 1 ? b : LLVMBuildMul(g->b, a, b, "");
}

static LLVMValueRef smax(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, a, b, ""), a, b, "");
}

static LLVMValueRef smin(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b, "");
}

/* min(max(v, 0), n) */
static LLVMValueRef clamp(gen *g, LLVMValueRef v, LLVMValueRef n)
{
    return smin(g, smax(g, v, ci(g, 0)), n);
}

/* With typed pointers (LLVM 14) a load or store needs a pointer to its type. */
static LLVMValueRef typed(gen *g, LLVMValueRef p, LLVMTypeRef type)
{
    return sg_ir_typed(g->b, p, type, 0);
}

static LLVMValueRef load(gen *g, LLVMTypeRef type, LLVMValueRef p)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, type, typed(g, p, type), "");
    LLVMSetAlignment(v, 1);
    return v;
}

static void store(gen *g, LLVMValueRef v, LLVMValueRef p)
{
    LLVMSetAlignment(LLVMBuildStore(g->b, v, typed(g, p, LLVMTypeOf(v))), 1);
}

static LLVMTypeRef int_type(gen *g, int64_t bytes)
{
    return LLVMIntTypeInContext(g->c, (unsigned)(8 * bytes));
}

/* The type a chunk of `bytes` (a power of two) moves as: integers up to 8
 * bytes, byte vectors above. */
static LLVMTypeRef chunk_type(gen *g, int64_t bytes)
{
    return bytes > 8 ? LLVMVectorType(g->i8, (unsigned)bytes) : int_type(g, bytes);
}

/* The largest power of two <= n that is at most `widest`. */
static int64_t chunk_at_most(int64_t widest, int64_t n)
{
    int64_t c = widest;
    while (c > n)
        c /= 2;
    return c;
}

static LLVMBasicBlockRef block(gen *g, const char *name)
{
    return sg_ir_block(g->c, g->fn, name);
}

/* if (lo < hi) { what the caller builds next } ... when_end(g, done): the
 * block after the guarded code, which when_end moves the builder to. */
static LLVMBasicBlockRef when_less(gen *g, LLVMValueRef lo, LLVMValueRef hi, const char *name)
{
    LLVMBasicBlockRef some = block(g, name), done = block(g, "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, lo, hi, ""), some, done);
    LLVMPositionBuilderAtEnd(g->b, some);
    return done;
}

static void when_end(gen *g, LLVMBasicBlockRef done)
{
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* ---- moving bytes ------------------------------------------------------------------ */

/* <lanes x T> with v in every lane. */
static LLVMValueRef splat(gen *g, LLVMValueRef v, unsigned lanes)
{
    if (lanes == 1)
        return v;
    LLVMTypeRef type = LLVMVectorType(LLVMTypeOf(v), lanes);
    if (LLVMIsConstant(v)) {
        LLVMValueRef elems[MAX_VEC];
        for (unsigned i = 0; i < lanes; i++)
            elems[i] = v;
        return LLVMConstVector(elems, lanes);
    }
    LLVMValueRef one = LLVMBuildInsertElement(g->b, LLVMGetUndef(type), v, ci(g, 0), "");
    return LLVMBuildShuffleVector(g->b, one, LLVMGetUndef(type), LLVMConstNull(LLVMVectorType(g->i32, lanes)),
                                  "");
}

typedef struct loop {
    LLVMBasicBlockRef pre, body, latch, exit;
    LLVMValueRef lo, lim, step, in_step, out_step;
    LLVMValueRef i, in, out; /* this iteration's index and pointers (in and out may be NULL) */
    bool enters_always;      /* lo < lim is known: no edge from pre to exit */
} loop;

/* for (i = lo; i < lim; i += step), with in = in_base + i * in_stride and
 * out = out_base + i * out_stride as pointer induction variables (either
 * base may be NULL). The builder is left in the body. */
static void loop_begin(gen *g, loop *l, LLVMValueRef lo, LLVMValueRef lim, int64_t step, LLVMValueRef in_base,
                       LLVMValueRef in_stride, LLVMValueRef out_base, LLVMValueRef out_stride)
{
    int64_t a, z;
    *l = (loop){.lo = lo, .lim = lim, .step = ci(g, step)};
    l->enters_always = is_const(lo, &a) && is_const(lim, &z) && a < z;
    LLVMValueRef in0 = in_base ? gep(g, in_base, mul(g, lo, in_stride)) : NULL;
    LLVMValueRef out0 = out_base ? gep(g, out_base, mul(g, lo, out_stride)) : NULL;
    l->in_step = in_base ? mul(g, l->step, in_stride) : NULL;
    l->out_step = out_base ? mul(g, l->step, out_stride) : NULL;
    l->pre = LLVMGetInsertBlock(g->b);
    l->body = block(g, "loop");
    l->exit = block(g, "next");
    if (l->enters_always)
        LLVMBuildBr(g->b, l->body);
    else
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, lo, lim, ""), l->body, l->exit);
    LLVMPositionBuilderAtEnd(g->b, l->body);
    l->i = LLVMBuildPhi(g->b, g->ix, "i");
    LLVMAddIncoming(l->i, &lo, &l->pre, 1);
    if (in0) {
        l->in = LLVMBuildPhi(g->b, g->ptr, "src");
        LLVMAddIncoming(l->in, &in0, &l->pre, 1);
    }
    if (out0) {
        l->out = LLVMBuildPhi(g->b, g->ptr, "dst");
        LLVMAddIncoming(l->out, &out0, &l->pre, 1);
    }
}

/* Iterations hi - 1 down to lo of a loop whose input stride is negative:
 * for (j = 0; j < hi - lo; j++) with in = in_base + (hi - 1 - j) *
 * in_stride and out likewise, so that the input ascends (one stream the
 * hardware prefetchers follow) while the output descends. The builder is
 * left in the body; loop_end closes it. */
static void loop_begin_backwards(gen *g, loop *l, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef in_base,
                                 LLVMValueRef in_stride, LLVMValueRef out_base, LLVMValueRef out_stride)
{
    LLVMValueRef last = sub(g, hi, ci(g, 1));
    loop_begin(g, l, ci(g, 0), sub(g, hi, lo), 1, gep(g, in_base, mul(g, last, in_stride)),
               sub(g, ci(g, 0), in_stride), gep(g, out_base, mul(g, last, out_stride)),
               sub(g, ci(g, 0), out_stride));
}

/* A loop ID, !{self, !{"llvm.loop.vectorize.enable", false},
 * !{"llvm.loop.unroll.disable"}}: the loop vectorizer would turn strided
 * remainder loops into gathers (the pass builder's option to turn it off
 * does not reach it in LLVM 14 or 19), and unrolling loops that are
 * already wide mostly costs compile time. */
static LLVMValueRef loop_hints(gen *g)
{
    static const char vectorize[] = "llvm.loop.vectorize.enable", unroll[] = "llvm.loop.unroll.disable";
    LLVMMetadataRef pair[2] = {LLVMMDStringInContext2(g->c, vectorize, sizeof vectorize - 1),
                               LLVMValueAsMetadata(LLVMConstInt(LLVMInt1TypeInContext(g->c), 0, 0))};
    LLVMMetadataRef one = LLVMMDStringInContext2(g->c, unroll, sizeof unroll - 1);
    LLVMMetadataRef self = LLVMTemporaryMDNode(g->c, NULL, 0);
    LLVMMetadataRef ops[3] = {self, LLVMMDNodeInContext2(g->c, pair, 2), LLVMMDNodeInContext2(g->c, &one, 1)};
    LLVMMetadataRef id = LLVMMDNodeInContext2(g->c, ops, 3);
    LLVMMetadataReplaceAllUsesWith(self, id); /* also frees the temporary */
    return LLVMMetadataAsValue(g->c, id);
}

/* Closes the loop. With `index`, returns the index after it (lo if it
 * never ran, else the first i >= lim). The builder is left after the loop. */
static LLVMValueRef loop_end(gen *g, loop *l, bool index)
{
    l->latch = LLVMGetInsertBlock(g->b);
    LLVMValueRef next = LLVMBuildAdd(g->b, l->i, l->step, "");
    LLVMAddIncoming(l->i, &next, &l->latch, 1);
    if (l->in) {
        LLVMValueRef p = gep(g, l->in, l->in_step);
        LLVMAddIncoming(l->in, &p, &l->latch, 1);
    }
    if (l->out) {
        LLVMValueRef p = gep(g, l->out, l->out_step);
        LLVMAddIncoming(l->out, &p, &l->latch, 1);
    }
    LLVMValueRef br =
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, next, l->lim, ""), l->body, l->exit);
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->c, "llvm.loop", 9), loop_hints(g));
    LLVMMoveBasicBlockAfter(l->exit, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, l->exit);
    if (!index)
        return NULL;
    if (l->enters_always)
        return next;
    LLVMValueRef after = LLVMBuildPhi(g->b, g->ix, "");
    LLVMValueRef values[2] = {l->lo, next};
    LLVMBasicBlockRef from[2] = {l->pre, l->latch};
    LLVMAddIncoming(after, values, from, 2);
    return after;
}

/* Asks for the input lines [at, at + bytes) to be brought into the cache
 * (llvm.prefetch: read, high locality, data). */
static void prefetch(gen *g, LLVMValueRef in, LLVMValueRef at, int64_t bytes)
{
    LLVMValueRef fn =
        LLVMGetIntrinsicDeclaration(g->m, LLVMLookupIntrinsicID("llvm.prefetch", 13), &g->ptr, 1);
    LLVMTypeRef type = LLVMIntrinsicGetType(g->c, LLVMLookupIntrinsicID("llvm.prefetch", 13), &g->ptr, 1);
    for (int64_t k = 0; k < bytes; k += LINE) {
        LLVMValueRef args[4] = {gep(g, in, add(g, at, ci(g, k))), LLVMConstInt(g->i32, 0, 0),
                                LLVMConstInt(g->i32, 3, 0), LLVMConstInt(g->i32, 1, 0)};
        LLVMBuildCall2(g->b, type, fn, args, 4, "");
    }
}

/* With `ahead`, prefetches the input lines [ahead, ahead + bytes) of in,
 * a count known or known only at run time (a loop of lines). */
static void prefetch_lines(gen *g, LLVMValueRef in, LLVMValueRef ahead, LLVMValueRef bytes)
{
    int64_t n;
    if (ahead == NULL)
        return;
    if (is_const(bytes, &n)) {
        prefetch(g, in, ahead, n);
        return;
    }
    loop lines;
    loop_begin(g, &lines, ci(g, 0), bytes, LINE, in, ci(g, 1), NULL, NULL);
    prefetch(g, lines.in, ahead, 1);
    loop_end(g, &lines, false);
}

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

/* The unit streaming stores write whole: a line, or a vector when wider. */
static int64_t stream_unit(const gen *g)
{
    return g->vec > LINE ? g->vec : LINE;
}

/* Moves `bytes` bytes (at least 2 vectors) with streaming stores: the
 * whole lines of out (stream_unit) stored non-temporally, a vector at a
 * time, the ragged ends before and after them (less than a line each)
 * inline with ordinary stores (a memcpy call per end cost inner-crop's
 * 448-byte runs a third of their time). The ends never touch a line a
 * streaming store writes: an ordinary store to such a line makes the
 * streaming one evict it partly written (with 32-byte vectors, streaming
 * from a vector boundary in mid-line took a pad's rows 3x the cached
 * time). With `ahead`, each vector prefetches the input `ahead` bytes on
 * (copy_run). */
static void copy_streaming(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead)
{
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

/* Moves `bytes` bytes and, with `ahead`, prefetches the input `ahead`
 * bytes on as it goes: each line's prefetch beside the
 * load of the line it pairs with, so that the loads that miss never queue
 * behind a burst of prefetches (a crop of 32 KiB rows from 256 MiB: 12.7
 * ms with the next row's 512 prefetches before each row, 9.6 ms with them
 * spread, a streaming copy of the same bytes 9.2 ms); before a memcpy call,
 * all of them. A constant count up to INLINE_COPY is copied inline in
 * chunks of the widest size that fits (straight-line up to
 * STRAIGHT_VECTORS chunks, else a loop of COPY_GROUP chunks and the chunks
 * left), the last chunk ending at the end and overlapping the one before
 * when the count is not a multiple: bytes written twice get the same
 * value, and in and out never overlap. Other counts are one llvm.memcpy. */
static void copy_run(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead)
{
    int64_t n;
    bool known = is_const(bytes, &n);
    if (g->stream && known && n >= SG_STREAM_VECTORS * g->vec) {
        copy_streaming(g, in, out, bytes, ahead);
        return;
    }
    if (g->stream && !known) { /* streaming when long enough, else memcpy */
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

/* Moves `bytes` bytes (copy_run without prefetching). */
static void copy_bytes(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes)
{
    copy_run(g, in, out, bytes, NULL);
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
 * ones (store_pattern_cached). A TensorRT fill of f32 [4096, 8192] from
 * [4096, 4096], half of it the fill: 6.3 ms with cached stores for a fill
 * of 0.5 and 4.8 ms with memset calls for 0; streamed, 4.1-4.5 and 3.3-3.6
 * ms (a streaming copy of the same traffic: 4.3-4.5 ms). */
static void store_pattern(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit, LLVMValueRef bytes)
{
    int64_t n = -1;
    bool known = is_const(bytes, &n);
    if (known && n == 0)
        return;
    bool pow2 = (unit & (unit - 1)) == 0;
    if (!g->stream || !pow2 || unit >= g->vec || (known && n < SG_STREAM_VECTORS * g->vec)) {
        store_pattern_cached(g, out, v, unit, bytes);
        return;
    }
    LLVMValueRef addr = LLVMBuildPtrToInt(g->b, out, g->ix, "");
    LLVMValueRef ok =
        LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildAnd(g->b, addr, ci(g, unit - 1), ""), ci(g, 0), "");
    if (!known)
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

/* FILL: the plan's fill value over `bytes` output bytes. */
static void fill(gen *g, LLVMValueRef out, LLVMValueRef bytes)
{
    uint64_t bits = 0;
    memcpy(&bits, g->plan->fill, g->plan->elem_size); /* little-endian targets */
    int64_t unit = (int64_t)g->plan->elem_size;
    store_pattern(g, out, LLVMConstInt(int_type(g, unit), bits, 0), unit, bytes);
}

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
static int64_t prefetch_distance(const sg_plan *p, int64_t stride)
{
    uint64_t mag = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride; /* INT64_MIN too */
    if (p->in_bytes <= SG_PREFETCH_INPUT || mag < SG_PREFETCH_MIN || mag > SG_PREFETCH_MAX)
        return 0;
    int64_t m = (int64_t)mag;
    return stride * (SG_PREFETCH_DISTANCE / m > 1 ? SG_PREFETCH_DISTANCE / m : 1);
}

/* One block of a shuffled loop; with `align` > 0, stored with streaming
 * stores at an address aligned to `align`. */
static void emit_shuffle_block(gen *g, const shuffle *sh, LLVMValueRef in, LLVMValueRef out, int64_t align)
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
    if (align > 0)
        store_streaming(g, v, out, align);
    else
        store(g, v, out);
}

static void emit_inner(gen *g, LLVMValueRef in, int64_t s, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi,
                       int64_t extent);

/* A shuffled innermost loop over [lo, hi) with streaming stores:
 * ordinary iterations until the output reaches a line boundary, then whole
 * blocks stored non-temporally at line-aligned addresses, then ordinary
 * iterations for the rest; when no whole number of iterations reaches a
 * line boundary (an output not aligned to the power of two in r),
 * ordinary stores throughout. The output is `gap` bytes short of a line
 * boundary; k iterations reach it when r k = gap (mod LINE), which with p
 * = gcd(r, LINE) needs p | gap and gives k = gap / p * (r / p)^-1 mod (LINE
 * / p): 3-byte pixels reach a boundary within 64 iterations wherever they
 * start, 4-byte elements only from a 4-byte aligned address. */
static void emit_shuffled_streaming(gen *g, const shuffle *sh, LLVMValueRef in, int64_t s, LLVMValueRef out,
                                    LLVMValueRef lo, LLVMValueRef hi, int64_t extent)
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
    g->stream = false; /* the ordinary parts, emitted as without streaming */
    LLVMPositionBuilderAtEnd(g->b, cached);
    emit_inner(g, in, s, out, lo, hi, extent);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, streamed);
    loop v;
    LLVMValueRef lim = sub(g, hi, ci(g, sh->VL + sh->extra - 1)); /* i + VL + extra <= hi */
    int64_t align = bytes % LINE == 0 ? LINE : bytes & -bytes;
    if (s < 0) {
        /* Reversed: the blocks from the last, so that the input ascends and
         * the output descends, and the ends in the order of their input
         * (tail, blocks, head). Rows of 16 KiB reversed from 256 MiB: a C
         * loop of streaming stores reading its row backwards took 14.3 ms,
         * forwards (writing backwards) 9.7 ms. */
        LLVMValueRef span = smax(g, sub(g, lim, mid), ci(g, 0));
        LLVMValueRef blocks = LLVMBuildUDiv(g->b, add(g, span, ci(g, sh->VL - 1)), ci(g, sh->VL), "");
        LLVMValueRef after = add(g, mid, mul(g, blocks, ci(g, sh->VL)));
        emit_inner(g, in, s, out, after, hi, extent);
        loop_begin_backwards(g, &v, ci(g, 0), blocks, gep(g, in, mul(g, mid, ci(g, s))), ci(g, sh->VL * s),
                             gep(g, out, mul(g, mid, ci(g, r))), ci(g, sh->VL * r));
        emit_shuffle_block(g, sh, v.in, v.out, align);
        loop_end(g, &v, false);
        emit_inner(g, in, s, out, lo, mid, extent);
    } else {
        emit_inner(g, in, s, out, lo, mid, extent);
        loop_begin(g, &v, mid, lim, sh->VL, in, ci(g, s), out, ci(g, r));
        emit_shuffle_block(g, sh, v.in, v.out, align);
        LLVMValueRef after = loop_end(g, &v, true);
        emit_inner(g, in, s, out, after, hi, extent);
    }
    g->stream = true;
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Iterations [lo, hi) of the innermost loop with a constant input stride s
 * (0 <= lo <= hi <= extent): iteration k moves r bytes from in + k * s to
 * out + k * r. */
static void emit_inner(gen *g, LLVMValueRef in, int64_t s, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi,
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
            copy_bytes(g, in0, out0, bytes);
        else if (broadcast && n > 0)
            store_pattern(g, out0, load(g, int_type(g, r), in0), r, bytes);
        else if (broadcast) { /* an empty range's element may lie outside the input: read it only if used */
            LLVMBasicBlockRef done = when_less(g, lo, hi, "broadcast");
            store_pattern(g, out0, load(g, int_type(g, r), in0), r, bytes);
            when_end(g, done);
        } else
            for (int64_t k = 0; k < n; k++)
                copy_bytes(g, gep_c(g, in0, k * s), gep_c(g, out0, k * r), ci(g, r));
        return;
    }
    if (shuffled && g->stream && (n < 0 || n * r >= 4 * LINE)) {
        emit_shuffled_streaming(g, &sh, in, s, out, lo, hi, extent);
        return;
    }
    if (shuffled) {
        int64_t blocks = n > 0 ? (n - sh.extra) / sh.VL : -1; /* constant bounds: blocks known */
        if (blocks == 1) {
            emit_shuffle_block(g, &sh, gep_c(g, in, a * s), gep_c(g, out, a * r), 0);
        } else {
            loop v;
            LLVMValueRef lim = sub(g, hi, ci(g, sh.VL + sh.extra - 1)); /* i + VL + extra <= hi */
            loop_begin(g, &v, lo, lim, sh.VL, in, ci(g, s), out, ci(g, r));
            emit_shuffle_block(g, &sh, v.in, v.out, 0);
            lo = loop_end(g, &v, true);
        }
        if (n > 0) { /* the rest: smaller blocks while they fit, then runs */
            emit_inner(g, in, s, out, ci(g, a + blocks * sh.VL), hi, extent);
            return;
        }
    }
    if (n > 0 && n <= UNROLL_TRIPS && n * r <= UNROLL_BYTES) { /* a short constant remainder */
        for (int64_t k = 0; k < n; k++)
            copy_bytes(g, gep_c(g, in, (a + k) * s), gep_c(g, out, (a + k) * r), ci(g, r));
        return;
    }
    loop l;
    if (s < 0 && s != INT64_MIN &&
        r >= LINE) { /* whole lines, rows reversed ([::-1] of 64 MiB: 3.45 -> 2.3 ms) */
        loop_begin_backwards(g, &l, lo, hi, in, ci(g, s), out, ci(g, r));
        s = -s;
    } else
        loop_begin(g, &l, lo, hi, 1, in, ci(g, s), out, ci(g, r));
    /* Runs of whole lines, a row apart: each row may start a new page, where
     * hardware prefetchers stop; fetch the run of a row 32 KiB ahead. */
    int64_t ahead = r >= LINE && s != r ? prefetch_distance(g->plan, s) : 0;
    copy_run(g, l.in, l.out, ci(g, r), ahead != 0 ? ci(g, ahead) : NULL);
    loop_end(g, &l, false);
}

/* The innermost loop with a stride or run known only at run time
 * (segment tables, symbolic plans): one memcpy when contiguous, else run
 * by run. */
static void emit_inner_dynamic(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                               LLVMValueRef hi)
{
    LLVMValueRef r = g->run;
    LLVMBasicBlockRef dense = block(g, "dense"), runs = block(g, "runs"), done = block(g, "done");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, s, r, ""), dense, runs);
    LLVMPositionBuilderAtEnd(g->b, dense);
    copy_bytes(g, gep(g, in, mul(g, lo, s)), gep(g, out, mul(g, lo, r)), mul(g, sub(g, hi, lo), r));
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, runs);
    loop l;
    loop_begin(g, &l, lo, hi, 1, in, s, out, r);
    if (g->sym_ahead_runs != NULL) { /* runs of whole lines (else the offset is 0): the run of a row ahead */
        LLVMBasicBlockRef fetch = block(g, "prefetch"), plain = block(g, "plain"),
                          copied = block(g, "copied");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, g->sym_ahead_runs, ci(g, 0), ""), fetch, plain);
        LLVMPositionBuilderAtEnd(g->b, fetch);
        copy_run(g, l.in, l.out, r, g->sym_ahead_runs);
        LLVMBuildBr(g->b, copied);
        LLVMPositionBuilderAtEnd(g->b, plain);
        copy_bytes(g, l.in, l.out, r);
        LLVMBuildBr(g->b, copied);
        LLVMMoveBasicBlockAfter(copied, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, copied);
    } else
        copy_bytes(g, l.in, l.out, r);
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
static void emit_inner_by_stride(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
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
        emit_inner(g, in, strides[k], out, lo, hi, LONG_UNKNOWN);
        LLVMBuildBr(g->b, done);
    }
    LLVMPositionBuilderAtEnd(g->b, other);
    emit_inner_dynamic(g, in, s, out, lo, hi);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* The innermost loop with a run known only at run time (a symbolic plan
 * whose inner dimension is `?`): runs of 1 to 4 elements (pixels, small
 * vectors) switch to bodies of that constant run, by stride as above; the
 * others copy run by run. */
static void emit_inner_by_run(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                              LLVMValueRef hi)
{
    int64_t e = (int64_t)g->plan->elem_size, stride;
    LLVMValueRef run = g->run;
    LLVMBasicBlockRef other = block(g, "any_run"), done = block(g, "runs_done");
    LLVMValueRef sw = LLVMBuildSwitch(g->b, run, other, 4);
    for (int64_t k = 1; k <= 4; k++) {
        LLVMBasicBlockRef body = block(g, "run");
        LLVMAddCase(sw, ci(g, k * e), body);
        LLVMPositionBuilderAtEnd(g->b, body);
        g->run = ci(g, k * e), g->run_k = k * e;
        if (is_const(s, &stride))
            emit_inner(g, in, stride, out, lo, hi, LONG_UNKNOWN);
        else
            emit_inner_by_stride(g, in, s, out, lo, hi);
        LLVMBuildBr(g->b, done);
    }
    g->run = run, g->run_k = -1;
    LLVMPositionBuilderAtEnd(g->b, other);
    emit_inner_dynamic(g, in, s, out, lo, hi);
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* ---- levels ---------------------------------------------------------------------------- */

static void emit_level(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                       LLVMValueRef hi);

/* How far ahead to prefetch (gen.ahead) inside a loop at `level` of input
 * stride s, NULL for not at all: for the innermost loop when the loop is the
 * one around it; for the runs when the loop is a part's loop of runs
 * (emit_affine), as emit_inner's runs of whole lines. The parts of a roll
 * each read a piece of every row: a hardware prefetcher following one part's
 * loads loses their stream at each row, and the roll of f32 [4096, 4096]
 * took 2.9-3.1 ms without the prefetches, 2.2-2.4 ms with them (a streaming
 * copy of its bytes: 2.3-2.4 ms). */
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
    ahead = prefetch_distance(g->plan, stride);
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
        if (is_const(s, &stride) && g->run_k >= 0)
            emit_inner(g, in, stride, out, lo, hi, extent);
        else if (p->sym && g->run_k > 0)
            emit_inner_by_stride(g, in, s, out, lo, hi);
        else if (p->sym && g->run_k < 0)
            emit_inner_by_run(g, in, s, out, lo, hi);
        else
            emit_inner_dynamic(g, in, s, out, lo, hi);
        return;
    }
    int64_t a, z;
    if (is_const(lo, &a) && is_const(hi, &z) && a >= z)
        return;
    loop l;
    /* rows reversed ([::-1, 1::2] of 64 MiB: 2.09 -> 1.84 ms); a stride of
     * INT64_MIN (a wrapped product, in a loop of at most one iteration) as is */
    if (is_const(s, &stride) && stride < 0 && stride != INT64_MIN) {
        loop_begin_backwards(g, &l, lo, hi, in, s, out, g->out_stride[level]);
        s = ci(g, -stride);
    } else
        loop_begin(g, &l, lo, hi, 1, in, s, out, g->out_stride[level]);
    LLVMValueRef outer_ahead = g->ahead;
    g->ahead = prefetch_ahead(g, level, s);
    emit_level(g, level + 1, l.in, l.out, ci(g, 0), g->extent[level + 1]);
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
            fill(g, gep(g, seg_out, mul(g, klo, ci(g, l->out_stride))),
                 mul(g, sub(g, khi, klo), ci(g, l->out_stride)));
        else
            emit_affine(g, level, gep_c(g, in, s->in_offset), ci(g, s->in_step), seg_out, klo, khi, s->count);
    }
}

/* A segmented loop walking a constant table of run-length encoded
 * segments: entry = {start, count, repeat, in_offset, in_step, fill}. */
static void emit_table(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                       LLVMValueRef hi)
{
    const sg_loop *l = &g->plan->loops[level];
    const sg_segment *segs = &g->plan->segs[l->seg0];
    int64_t *t = malloc(l->nseg * FIELDS * sizeof *t); /* sg_codegen_add_kernel checked nseg */
    LLVMValueRef *vals = malloc(l->nseg * FIELDS * sizeof *vals);
    if (t == NULL || vals == NULL) {
        sg_fail(g->err, SG_ERR_NOMEM, "failed to compile kernel: out of memory for %zu segments", l->nseg);
        free(t);
        free(vals);
        return;
    }
    size_t n = 0;
    int64_t start = 0;
    bool fills = false;
    for (size_t k = 0; k < l->nseg;) {
        size_t same = 1;
        while (k + same < l->nseg && segs[k + same].fill == segs[k].fill &&
               (segs[k].fill ||
                (segs[k + same].count == segs[k].count && segs[k + same].in_offset == segs[k].in_offset &&
                 segs[k + same].in_step == segs[k].in_step)))
            same++;
        int64_t count = segs[k].count, repeat = (int64_t)same;
        if (segs[k].fill) { /* consecutive fills: one block */
            count = 0;
            for (size_t j = k; j < k + same; j++)
                count += segs[j].count;
            repeat = 1;
        }
        int64_t *e = &t[n++ * FIELDS];
        e[0] = start, e[1] = count, e[2] = repeat;
        e[3] = segs[k].fill ? 0 : segs[k].in_offset, e[4] = segs[k].fill ? 0 : segs[k].in_step;
        e[5] = segs[k].fill;
        fills = fills || segs[k].fill;
        start += count * repeat;
        k += same;
    }
    for (size_t i = 0; i < n * FIELDS; i++)
        vals[i] = ci(g, t[i]);
    LLVMTypeRef type = LLVMArrayType(g->ix, (unsigned)(n * FIELDS));
    LLVMValueRef table = LLVMAddGlobal(g->m, type, "segments");
    LLVMSetInitializer(table, LLVMConstArray(g->ix, vals, (unsigned)(n * FIELDS)));
    LLVMSetGlobalConstant(table, 1);
    LLVMSetLinkage(table, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(table, LLVMGlobalUnnamedAddr);
    free(t);
    free(vals);

    LLVMValueRef O = ci(g, l->out_stride);
    loop e;
    loop_begin(g, &e, ci(g, 0), ci(g, (int64_t)n), 1, NULL, NULL, NULL, NULL);
    LLVMValueRef f[FIELDS];
    for (int k = 0; k < FIELDS; k++) {
        LLVMValueRef idx[2] = {ci(g, 0), add(g, mul(g, e.i, ci(g, FIELDS)), ci(g, k))};
        LLVMValueRef at = LLVMBuildGEP2(g->b, type, table, idx, 2, "");
        f[k] = LLVMBuildLoad2(g->b, g->ix, at, "");
    }
    LLVMValueRef first = smax(g, lo, f[0]), last = smin(g, hi, add(g, f[0], mul(g, f[1], f[2])));
    LLVMBasicBlockRef work = block(g, "segment"), copies = block(g, "copy"), latch = block(g, "next_segment");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, first, last, ""), work, latch);
    LLVMPositionBuilderAtEnd(g->b, work);
    if (fills) {
        LLVMBasicBlockRef filling = block(g, "fill");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, f[5], ci(g, 0), ""), filling, copies);
        LLVMPositionBuilderAtEnd(g->b, filling);
        fill(g, gep(g, out, mul(g, first, O)), mul(g, sub(g, last, first), O));
        LLVMBuildBr(g->b, latch);
    } else {
        LLVMBuildBr(g->b, copies);
    }
    LLVMPositionBuilderAtEnd(g->b, copies);
    loop rep;
    loop_begin(g, &rep, ci(g, 0), f[2], 1, NULL, NULL, NULL, NULL);
    LLVMValueRef s0 = add(g, f[0], mul(g, rep.i, f[1]));
    emit_affine(g, level, gep(g, in, f[3]), f[4], gep(g, out, mul(g, s0, O)), clamp(g, sub(g, lo, s0), f[1]),
                clamp(g, sub(g, hi, s0), f[1]), -1);
    loop_end(g, &rep, false);
    LLVMBuildBr(g->b, latch);
    LLVMMoveBasicBlockAfter(latch, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, latch);
    loop_end(g, &e, false);
}

/* The input index TensorRT's mode reads for coordinate x of a dimension of
 * d > 0 elements (i64; SEMANTICS.md TensorRT 2-3); *inside, for FILL, whether
 * it reads at all. */
static LLVMValueRef mode_index(gen *g, LLVMValueRef x, LLVMValueRef d, LLVMValueRef *inside)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
    LLVMValueRef zero = LLVMConstInt(i64, 0, 0), one = LLVMConstInt(i64, 1, 0);
    LLVMBuilderRef b = g->b;
    switch (g->plan->mode) {
    case SG_TRT_CLAMP: {
        LLVMValueRef up = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""), zero, x, "");
        LLVMValueRef last = LLVMBuildSub(b, d, one, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, up, last, ""), last, up, "");
    }
    case SG_TRT_FILL:
        *inside = LLVMBuildICmp(b, LLVMIntULT, x, d, ""); /* 0 <= x < d */
        return x;
    case SG_TRT_WRAP: {
        LLVMValueRef r = LLVMBuildSRem(b, x, d, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, r, zero, ""), LLVMBuildAdd(b, r, d, ""), r,
                               "");
    }
    case SG_TRT_REFLECT: { /* |x| mod (2d - 2), folded back above d - 1; 0 when d == 1 */
        LLVMValueRef period = LLVMBuildSub(b, LLVMBuildAdd(b, d, d, ""), LLVMConstInt(i64, 2, 0), "");
        period = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, d, one, ""), one, period, "");
        LLVMValueRef mag = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""),
                                           LLVMBuildSub(b, zero, x, ""), x, "");
        LLVMValueRef c = LLVMBuildURem(b, mag, period, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, c, d, ""), LLVMBuildSub(b, period, c, ""), c,
                               "");
    }
    case SG_TRT_STRICT:
        break;
    }
    return x;
}

static void emit_mapped_each(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                             LLVMValueRef hi);

/* Iterations [lo, hi) of the innermost mapped loop, all outside the input
 * on one side (a border): FILL's fill value and CLAMP's edge element (the
 * one of iteration lo for all) as one pattern store, WRAP's and REFLECT's
 * element by element. */
static void emit_border(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                        LLVMValueRef hi)
{
    sg_trt_mode mode = g->plan->mode;
    if (mode != SG_TRT_FILL && mode != SG_TRT_CLAMP) {
        emit_mapped_each(g, level, in, out, lo, hi);
        return;
    }
    LLVMBasicBlockRef done = when_less(g, lo, hi, "border");
    LLVMValueRef at = gep(g, out, mul(g, lo, g->run)), bytes = mul(g, sub(g, hi, lo), g->run);
    if (mode == SG_TRT_FILL) {
        fill(g, at, bytes);
    } else {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
        LLVMValueRef y = LLVMGetIntTypeWidth(g->ix) < 64 ? LLVMBuildZExt(g->b, lo, i64, "") : lo;
        LLVMValueRef x =
            LLVMBuildAdd(g->b, g->map_start[level], LLVMBuildMul(g->b, y, g->map_step[level], ""), "");
        LLVMValueRef index = mode_index(g, x, g->map_dim[level], NULL);
        if (LLVMGetIntTypeWidth(g->ix) < 64)
            index = LLVMBuildTrunc(g->b, index, g->ix, "");
        int64_t unit = g->run_k;
        LLVMValueRef edge = load(g, int_type(g, unit), gep(g, in, mul(g, index, g->in_stride[level])));
        store_pattern(g, at, edge, unit, bytes);
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
    if (is_const(s, &stride))
        emit_inner(g, first, stride, out, a, b, LONG_UNKNOWN);
    else
        emit_inner_by_stride(g, first, s, out, a, b);
    emit_border(g, level, in, out, b, hi);
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
        fill(g, l.out, g->out_stride[level]);
        LLVMBuildBr(g->b, next);
        LLVMPositionBuilderAtEnd(g->b, reads);
    }
    LLVMValueRef src = gep(g, in, mul(g, index, g->in_stride[level]));
    if (level + 1 == g->plan->nloops)
        copy_bytes(g, src, l.out, g->run);
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

static void emit_level(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                       LLVMValueRef hi)
{
    const sg_plan *p = g->plan;
    if (level == p->nloops) { /* the run: a plan of no loops, or of a part's loop of runs */
        copy_run(g, in, out, g->run, g->ahead);
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
static void emit_collapsed(gen *g, size_t level, size_t last, LLVMValueRef in, LLVMValueRef out,
                           LLVMValueRef lo, LLVMValueRef hi)
{
    if (level == last) {
        emit_level(g, level, in, out, lo, hi);
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
    loop_begin(g, &it, first, end, 1, in, g->in_stride[level], out, g->out_stride[level]);
    LLVMValueRef at = mul(g, it.i, N);
    g->ahead = prefetch_ahead(g, level, g->in_stride[level]);
    emit_collapsed(g, level + 1, last, it.in, it.out, clamp(g, sub(g, lo, at), N),
                   clamp(g, sub(g, hi, at), N));
    g->ahead = NULL;
    loop_end(g, &it, false);
}

/* The vector width for copying runs: the widest, except where every input
 * address the nest reads from is 32 bytes past a 64-byte line (given an
 * input at a 64-byte boundary, as tensor allocators give): 64-byte loads
 * there would each straddle two lines, 32-byte ones none, and straddling
 * loads cost twice. Elsewhere both widths straddle as often. */
static int64_t copy_width(const sg_plan *p, int64_t vec)
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

/* Which segmented loops walk a table: those with many segments, then from
 * the outermost in until the unrolled ones multiply to at most MAX_BODIES
 * code paths. */
static void choose_tables(gen *g)
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

/* ---- the function ---------------------------------------------------------------------- */

static void add_attr(gen *g, LLVMAttributeIndex index, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    if (kind != 0)
        LLVMAddAttributeAtIndex(g->fn, index, LLVMCreateEnumAttribute(g->c, kind, 0));
}

static void add_string_attr(gen *g, const char *name, const char *value)
{
    if (value[0] != '\0')
        LLVMAddAttributeAtIndex(
            g->fn, LLVMAttributeFunctionIndex,
            LLVMCreateStringAttribute(g->c, name, (unsigned)strlen(name), value, (unsigned)strlen(value)));
}

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

/* A number of the nest as an i64: the constant, or slot `slot` of args loaded. */
static LLVMValueRef number64(gen *g, LLVMValueRef args, sg_val v, int slot)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
    if (sg_is_const(v))
        return LLVMConstInt(i64, (unsigned long long)v.k, 1);
    LLVMValueRef at = gep_c(g, args, 8 * (int64_t)slot);
    LLVMValueRef x = LLVMBuildLoad2(g->b, i64, typed(g, at, i64), "");
    LLVMSetAlignment(x, 8);
    return x;
}

/* The same as an index (sizes and offsets fit the index type: the
 * prologue refuses tensors the target cannot address). */
static LLVMValueRef number(gen *g, LLVMValueRef args, sg_val v, int slot)
{
    if (sg_is_const(v))
        return ci(g, v.k);
    LLVMValueRef x = number64(g, args, v, slot);
    return LLVMGetIntTypeWidth(g->ix) < 64 ? LLVMBuildTrunc(g->b, x, g->ix, "") : x;
}

/* The nest's numbers (gen.extent ...): a static plan's constants, or a
 * symbolic plan's from args. */
static void nest_numbers(gen *g, LLVMValueRef args)
{
    const sg_plan *p = g->plan;
    const sg_sym *s = p->sym;
    for (size_t i = 0; i < p->nloops; i++) {
        const sg_loop *l = &p->loops[i];
        int slot = SG_ARG_LOOPS + SG_LOOP_SLOTS * (int)i;
        g->extent[i] = s ? number(g, args, s->extent[i], slot + SG_LOOP_EXTENT) : ci(g, l->extent);
        g->in_stride[i] =
            s ? number(g, args, s->in_stride[i], slot + SG_LOOP_IN_STRIDE) : ci(g, l->in_stride);
        g->out_stride[i] =
            s ? number(g, args, s->out_stride[i], slot + SG_LOOP_OUT_STRIDE) : ci(g, l->out_stride);
        if (s && s->mapped) {
            g->map_start[i] = number64(g, args, s->map_start[i], slot + SG_LOOP_START);
            g->map_step[i] = number64(g, args, s->map_step[i], slot + SG_LOOP_STEP);
            g->map_dim[i] = number64(g, args, s->map_dim[i], slot + SG_LOOP_DIM);
        }
    }
    if (s && s->mapped && p->nloops > 0) {
        g->interior[0] = number(g, args, s->interior[0], SG_ARG_INTERIOR);
        g->interior[1] = number(g, args, s->interior[1], SG_ARG_INTERIOR + 1);
    }
    g->run = s ? number(g, args, s->run_bytes, SG_ARG_RUN_BYTES) : ci(g, p->run_bytes);
    if (s && !s->mapped && p->nloops >= 2 && !(sg_is_const(s->prefetch) && s->prefetch.k == 0))
        g->sym_ahead = number(g, args, s->prefetch, SG_ARG_PREFETCH);
    if (s && !s->mapped && p->nloops >= 1 && !(sg_is_const(s->prefetch_runs) && s->prefetch_runs.k == 0))
        g->sym_ahead_runs = number(g, args, s->prefetch_runs, SG_ARG_PREFETCH_RUNS);
    g->run_k = -1;
    is_const(g->run, &g->run_k);
}

/* Pieces [begin, end) of `extent` pieces of `piece` bytes of one
 * contiguous block of `bytes`, the last one shorter. */
static void emit_pieces(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef begin, LLVMValueRef end,
                        int64_t piece, LLVMValueRef extent, LLVMValueRef bytes)
{
    LLVMBasicBlockRef run = block(g, "run"), done = block(g, "done");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, begin, end, ""), run, done);
    LLVMPositionBuilderAtEnd(g->b, run);
    /* The last piece ends at the block's end; no product passes it. */
    LLVMValueRef from = mul(g, begin, ci(g, piece));
    LLVMValueRef inside = LLVMBuildICmp(g->b, LLVMIntSLT, end, extent, "");
    LLVMValueRef to = LLVMBuildSelect(g->b, inside, mul(g, end, ci(g, piece)), bytes, "");
    copy_bytes(g, gep(g, in, from), gep(g, out, from), sub(g, to, from));
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* A symbolic plan's nest over steps [begin, end) of its outer range. */
static void emit_symbolic(gen *g, LLVMValueRef args, LLVMValueRef in, LLVMValueRef out, LLVMValueRef begin,
                          LLVMValueRef end)
{
    const sg_plan *p = g->plan;
    if (p->nloops == 0) {
        emit_pieces(g, in, out, begin, end, SG_RUN_PIECE,
                    number(g, args, p->sym->outer_extent, SG_ARG_OUTER_EXTENT), g->run);
    } else if (sg_is_const(p->sym->collapse) && p->sym->collapse.k == 0) {
        emit_level(g, 0, in, out, begin, end);
    } else { /* the outer range per call: the outermost loop, or the two outermost together */
        LLVMValueRef two = number(g, args, p->sym->collapse, SG_ARG_COLLAPSE);
        LLVMBasicBlockRef both = block(g, "collapsed"), one = block(g, "outermost"),
                          done = block(g, "nest_done");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, two, ci(g, 0), ""), both, one);
        LLVMPositionBuilderAtEnd(g->b, both);
        emit_collapsed(g, 0, 1, in, out, begin, end);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, one);
        emit_level(g, 0, in, out, begin, end);
        LLVMBuildBr(g->b, done);
        LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, done);
    }
}

/* Adds the kernel function `symbol` of g->plan (its signature and
 * attributes) to the module, the builder at its entry. */
static void declare_kernel(gen *g, const char *symbol, const sg_target *t)
{
    const sg_plan *p = g->plan;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
    /* (in, out, begin, end), or with runtime numbers (in, out, args, begin, end) */
    LLVMTypeRef params[5] = {g->ptr, g->ptr, i64, i64, i64};
    unsigned nparams = p->sym ? 5 : 4;
    if (p->sym)
        params[2] = g->ptr;
    g->fn = LLVMAddFunction(g->m, symbol, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, nparams, 0));
    add_attr(g, LLVMAttributeFunctionIndex, "nounwind");
    add_string_attr(g, "target-cpu", t->cpu);
    add_string_attr(g, "target-features", t->features);
    /* Copy loops stay loops: the optimizer would turn them back into memcpy
     * calls (loop idiom recognition), which is what inline runs avoid. */
    add_string_attr(g, "no-builtins", "true");
    if (t->vector_bytes > 32) /* keep 512-bit types legal where the CPU prefers 256 */
        add_string_attr(g, "min-legal-vector-width", "512");
    if (t->cf_protection && t->arch == SG_ARCH_AARCH64) {
        /* LLVM 19 and later read these from the function only: a BTI
         * landing pad at the entry, and the return address signed with key
         * A where the kernel saves it. */
        add_string_attr(g, "branch-target-enforcement", "true");
        add_string_attr(g, "sign-return-address", "non-leaf");
        add_string_attr(g, "sign-return-address-key", "a_key");
    }
    static const char *const names[5] = {"in", "out", "args", "begin", "end"};
    for (unsigned i = 0; i < nparams; i++) {
        const char *name = names[i < 2 || p->sym ? i : i + 1];
        LLVMSetValueName2(LLVMGetParam(g->fn, i), name, strlen(name));
    }
    for (unsigned i = 1; i <= (p->sym ? 3u : 2u); i++) {
        add_attr(g, i, "noalias");
        add_attr(g, i, "nocapture");
        add_attr(g, i, i == 2 ? "writeonly" : "readonly");
    }
    LLVMPositionBuilderAtEnd(g->b, block(g, "entry"));
}

static void emit_function(gen *g, const char *symbol, const sg_target *t)
{
    const sg_plan *p = g->plan;
    declare_kernel(g, symbol, t);
    unsigned first = p->sym ? 3 : 2;
    LLVMValueRef args = p->sym ? LLVMGetParam(g->fn, 2) : NULL;
    nest_numbers(g, args);
    LLVMValueRef base = p->sym ? number(g, args, p->sym->base, SG_ARG_BASE) : ci(g, p->base);
    LLVMValueRef in = gep(g, LLVMGetParam(g->fn, 0), base), out = LLVMGetParam(g->fn, 1);
    /* 0 <= begin <= end <= the outer extent, which fits the index type. */
    LLVMValueRef begin = LLVMGetParam(g->fn, first), end = LLVMGetParam(g->fn, first + 1);
    if (LLVMGetIntTypeWidth(g->ix) < 64) {
        begin = LLVMBuildTrunc(g->b, begin, g->ix, "");
        end = LLVMBuildTrunc(g->b, end, g->ix, "");
    }
    sg_outer outer = sg_nest_outer(p);
    if (p->sym && sg_is_const(p->sym->out_count) && p->sym->out_count.k == 0) {
        /* empty for every value: nothing to do */
    } else if (p->sym &&
               g->stream_above >= 0) { /* streaming stores for large outputs of long runs, chosen per call */
        LLVMValueRef bytes = number64(g, args, p->sym->out_bytes, SG_ARG_OUTPUT_BYTES);
        LLVMValueRef run = number64(g, args, p->sym->run_bytes, SG_ARG_RUN_BYTES);
        LLVMValueRef large = LLVMBuildAnd(
            g->b,
            LLVMBuildICmp(g->b, LLVMIntSGT, bytes,
                          LLVMConstInt(LLVMTypeOf(bytes), (unsigned long long)g->stream_above, 1), ""),
            LLVMBuildICmp(g->b, LLVMIntSGE, run, LLVMConstInt(LLVMTypeOf(run), SG_STREAM_MIN_RUN, 1), ""),
            "");
        LLVMBasicBlockRef streamed = block(g, "streamed"), cached = block(g, "cached"),
                          done = block(g, "called");
        LLVMBuildCondBr(g->b, large, streamed, cached);
        LLVMPositionBuilderAtEnd(g->b, streamed);
        g->stream = true;
        emit_symbolic(g, args, in, out, begin, end);
        store_fence(g, t);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, cached);
        g->stream = false;
        emit_symbolic(g, args, in, out, begin, end);
        LLVMBuildBr(g->b, done);
        LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
        LLVMPositionBuilderAtEnd(g->b, done);
    } else if (p->sym) {
        emit_symbolic(g, args, in, out, begin, end);
    } else if (p->out_count > 0 && outer.levels == 0) { /* one contiguous block, whole or in pieces */
        if (p->nloops == 0 && outer.extent == 1) {
            LLVMBasicBlockRef run = block(g, "run"), done = block(g, "done");
            LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, begin, end, ""), run, done);
            LLVMPositionBuilderAtEnd(g->b, run);
            emit_level(g, 0, in, out, begin, end);
            LLVMBuildBr(g->b, done);
            LLVMPositionBuilderAtEnd(g->b, done);
        } else {
            emit_pieces(g, in, out, begin, end, outer.step_bytes, ci(g, outer.extent),
                        ci(g, (int64_t)p->out_bytes));
        }
    } else if (p->out_count > 0) {
        choose_tables(g);
        emit_collapsed(g, 0, outer.levels - 1, in, out, begin, end);
    }
    if (g->stream && !g->part)
        store_fence(g, t);
    LLVMBuildRetVoid(g->b);
}

static void add_flag(LLVMModuleRef m, LLVMModuleFlagBehavior behavior, const char *name, int value)
{
    LLVMContextRef c = LLVMGetModuleContext(m);
    LLVMMetadataRef v = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), (unsigned)value, 0));
    LLVMAddModuleFlag(m, behavior, name, strlen(name), v);
}

LLVMModuleRef sg_codegen_new_module(const char *name, const sg_target *t, LLVMTargetMachineRef tm,
                                    LLVMContextRef ctx)
{
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
    LLVMSetTarget(m, t->triple);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, layout);
    LLVMDisposeTargetData(layout);
    if (t->abi[0] != '\0') { /* e.g. RISC-V's lp64d: the ABI of the object's callers */
        LLVMMetadataRef abi = LLVMMDStringInContext2(ctx, t->abi, strlen(t->abi));
        LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, "target-abi", strlen("target-abi"), abi);
    }
    return m;
}

void sg_codegen_cf_protection(LLVMModuleRef m, const sg_target *t)
{
    /* The flags clang sets for -fcf-protection=full (x86) and
     * -mbranch-protection=standard (AArch64): code generators mark the
     * object with a GNU property note, x86 puts an endbr at each function's
     * entry (AArch64 takes the function attributes of emit_function). */
    if (t->cf_protection && (t->arch == SG_ARCH_X86_64 || t->arch == SG_ARCH_X86_32)) {
        add_flag(m, LLVMModuleFlagBehaviorOverride, "cf-protection-branch", 1);
        add_flag(m, LLVMModuleFlagBehaviorOverride, "cf-protection-return", 1);
    } else if (t->cf_protection && t->arch == SG_ARCH_AARCH64) {
        add_flag(m, LLVMModuleFlagBehaviorError, "branch-target-enforcement", 1);
        add_flag(m, LLVMModuleFlagBehaviorError, "sign-return-address", 1);
        add_flag(m, LLVMModuleFlagBehaviorError, "sign-return-address-all", 0);
        add_flag(m, LLVMModuleFlagBehaviorError, "sign-return-address-with-bkey", 0);
    }
}

static void gen_init(gen *g, const sg_plan *plan, const sg_target *t, LLVMModuleRef m, sg_error *err)
{
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    *g = (gen){.plan = plan, .c = ctx, .m = m, .vec = t->vector_bytes, .err = err};
    g->b = LLVMCreateBuilderInContext(ctx);
    g->i8 = LLVMInt8TypeInContext(ctx);
    g->i32 = LLVMInt32TypeInContext(ctx);
    g->ix = LLVMIntPtrTypeInContext(ctx, LLVMGetModuleDataLayout(m));
    g->ptr = sg_ir_ptr_type(ctx, 0);
    g->copy_vec = copy_width(plan, g->vec);
    g->stream = sg_codegen_streams(plan, t);
    g->stream_above = plan->sym && t->stores == SG_STORES_AUTO ? sg_codegen_stream_above(plan, t) : -1;
}

/* A program: each part's nest as a function of its own, internal to the
 * module (`symbol`.partK), and the kernel, which runs the steps [begin,
 * end) of the parts' outer ranges: in lockstep (sg_program_lockstep), in
 * blocks of steps each part runs in turn, so that parts that read the
 * same input rows find them in the cache; else laid end to end, part k
 * getting those of its range. Each part writes at its box's offset in the
 * output, and streams its stores when the whole output would. */
static sg_status add_program(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                             sg_error *err)
{
    bool stream = sg_codegen_streams(plan, t);
    size_t len = strlen(symbol);
    char *name = malloc(len + 32);
    LLVMValueRef *parts = calloc(plan->nparts ? plan->nparts : 1, sizeof *parts);
    size_t *order = calloc(plan->nparts ? plan->nparts : 1, sizeof *order); /* lockstep calls */
    if (name == NULL || parts == NULL || order == NULL) {
        free(name);
        free(parts);
        free(order);
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel %s: out of memory", symbol);
    }
    for (size_t k = 0; k < plan->nparts && err->status == SG_OK; k++) {
        gen g;
        gen_init(&g, plan->parts[k].plan, t, m, err);
        g.stream = stream;
        g.part = true;
        snprintf(name, len + 32, "%s.part%zu", symbol, k);
        emit_function(&g, name, t);
        LLVMSetLinkage(g.fn, LLVMInternalLinkage);
        parts[k] = g.fn;
        LLVMDisposeBuilder(g.b);
    }
    if (err->status == SG_OK) {
        gen g;
        gen_init(&g, plan, t, m, err);
        declare_kernel(&g, symbol, t);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(g.c), params[4] = {g.ptr, g.ptr, i64, i64};
        LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(g.c), params, 4, 0);
        LLVMValueRef in = LLVMGetParam(g.fn, 0), out = LLVMGetParam(g.fn, 1);
        LLVMValueRef begin = LLVMGetParam(g.fn, 2), end = LLVMGetParam(g.fn, 3);
        int64_t first = 0, steps;
        bool lockstep = sg_program_lockstep(plan, &steps);
        if (lockstep) {
            /* blocks of steps of about LOCKSTEP_BYTES of output, each run by every part */
            int64_t bytes = 0;
            for (size_t k = 0; k < plan->nparts; k++)
                bytes += sg_nest_outer(plan->parts[k].plan).step_bytes;
            int64_t block = bytes > 0 && bytes < LOCKSTEP_BYTES ? LOCKSTEP_BYTES / bytes : 1;
            g.ix = i64; /* the loop counts the steps as the parts take them */
            loop l;
            loop_begin(&g, &l, begin, end, block, NULL, NULL, NULL, NULL);
            LLVMValueRef next = LLVMBuildAdd(g.b, l.i, LLVMConstInt(i64, (unsigned long long)block, 0), "");
            LLVMValueRef hi =
                LLVMBuildSelect(g.b, LLVMBuildICmp(g.b, LLVMIntSLT, next, end, ""), next, end, "");
            /* each block reads the input in order: the parts by the input
             * offset of their first read (the hardware prefetchers follow an
             * ascending stream; a roll's rows read tail first took 1.1x as long) */
            for (size_t k = 0; k < plan->nparts; k++) {
                size_t j = k;
                for (; j > 0 && plan->parts[order[j - 1]].plan->base > plan->parts[k].plan->base; j--)
                    order[j] = order[j - 1];
                order[j] = k;
            }
            for (size_t j = 0; j < plan->nparts; j++) {
                size_t k = order[j];
                LLVMValueRef call_args[4] = {in, gep(&g, out, ci(&g, plan->parts[k].out_offset)), l.i, hi};
                LLVMBuildCall2(g.b, type, parts[k], call_args, 4, "");
            }
            loop_end(&g, &l, false);
        }
        for (size_t k = 0; k < plan->nparts && !lockstep; k++) {
            int64_t extent = sg_nest_outer_extent(plan->parts[k].plan);
            LLVMValueRef zero = LLVMConstInt(i64, 0, 0),
                         steps = LLVMConstInt(i64, (unsigned long long)extent, 0);
            LLVMValueRef at = LLVMConstInt(i64, (unsigned long long)first, 0);
            /* [max(begin - first, 0), min(end - first, extent)) */
            LLVMValueRef lo = LLVMBuildSub(g.b, begin, at, ""), hi = LLVMBuildSub(g.b, end, at, "");
            lo = LLVMBuildSelect(g.b, LLVMBuildICmp(g.b, LLVMIntSLT, lo, zero, ""), zero, lo, "");
            hi = LLVMBuildSelect(g.b, LLVMBuildICmp(g.b, LLVMIntSGT, hi, steps, ""), steps, hi, "");
            LLVMBasicBlockRef done = when_less(&g, lo, hi, "part");
            LLVMValueRef call_args[4] = {in, gep(&g, out, ci(&g, plan->parts[k].out_offset)), lo, hi};
            LLVMBuildCall2(g.b, type, parts[k], call_args, 4, "");
            when_end(&g, done);
            first += extent;
        }
        if (stream)
            store_fence(&g, t);
        LLVMBuildRetVoid(g.b);
        LLVMDisposeBuilder(g.b);
    }
    free(name);
    free(parts);
    free(order);
    return err->status;
}

sg_status sg_codegen_add_kernel(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                                sg_error *err)
{
    /* Indices are of the target's pointer width: a tensor it cannot
     * address (more than PTRDIFF_MAX bytes) cannot be sliced there. */
    unsigned bits = 8 * LLVMPointerSize(LLVMGetModuleDataLayout(m));
    int64_t most = bits < 64 ? (int64_t)((UINT64_C(1) << (bits - 1)) - 1) : INT64_MAX;
    if ((int64_t)plan->in_bytes > most || (int64_t)plan->out_bytes > most)
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to compile kernel %s for %s: its %s has %" PRIu64
                       " bytes, more than the %" PRId64 " a target with %u-bit pointers addresses",
                       symbol, t->triple, (int64_t)plan->in_bytes > most ? "input" : "output",
                       (int64_t)plan->in_bytes > most ? plan->in_bytes : plan->out_bytes, most, bits);
    if (plan->sym && (sg_target_is_gpu(t) || t->gpu_emulation))
        return sg_fail(
            err, SG_ERR_USAGE,
            "failed to compile kernel %s for %s: GPU kernels take no runtime values or dimensions yet "
            "(give every number)",
            symbol, t->triple);
    if (plan->op == SG_OP_PROGRAM && !sg_target_is_gpu(t) && !t->gpu_emulation)
        return add_program(plan, symbol, t, m, err);
    if (sg_target_is_gpu(t) || t->gpu_emulation)
        return sg_gpu_add_kernel(plan, symbol, t, m, err);
    for (size_t i = 0; i < plan->nloops; i++)
        if (plan->loops[i].nseg > UINT32_MAX / FIELDS)
            return sg_fail(err, SG_ERR_SLICE, "failed to compile kernel: %zu segments in loop %zu",
                           plan->loops[i].nseg, i);
    gen g;
    gen_init(&g, plan, t, m, err);
    emit_function(&g, symbol, t);
    LLVMDisposeBuilder(g.b);
    if (err->status == SG_OK && plan->sym)
        sg_codegen_add_prepare(plan, symbol, t, m, err);
    return err->status;
}

bool sg_codegen_streams(const sg_plan *plan, const sg_target *t)
{
    if (sg_target_is_gpu(t) || t->gpu_emulation || t->stores == SG_STORES_CACHED)
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
    sg_stream_lines s = sg_nest_stream_lines(plan, t->vector_bytes);
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

int64_t sg_codegen_stream_above(const sg_plan *plan, const sg_target *t)
{
    if (plan->sym == NULL || sg_target_is_gpu(t) || t->gpu_emulation || t->stores == SG_STORES_CACHED)
        return -1;
    if (t->stores == SG_STORES_STREAMING)
        return 0;
    return plan->sym->mapped ? -1 : sg_codegen_stream_threshold(t);
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

sg_status sg_codegen_verify(LLVMModuleRef m, const char *what, sg_error *err)
{
    char *message = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &message))
        sg_fail(err, SG_ERR_INTERNAL, "failed to verify %s: %s", what, message);
    LLVMDisposeMessage(message);
    return err->status;
}

sg_status sg_codegen_module(const sg_plan *plan, const char *symbol, const sg_target *t,
                            LLVMTargetMachineRef tm, LLVMContextRef ctx, LLVMModuleRef *module, sg_error *err)
{
    LLVMModuleRef m = sg_codegen_new_module(symbol, t, tm, ctx);
    if (sg_codegen_add_kernel(plan, symbol, t, m, err) != SG_OK ||
        sg_codegen_verify(m, symbol, err) != SG_OK) {
        LLVMDisposeModule(m);
        return err->status;
    }
    *module = m;
    return SG_OK;
}

/*
 * The CPU kernel emitter's internals, shared by its modules (one job each):
 *   emit.c    the function: its arguments, the nest's numbers, programs'
 *             parts, the module; the entry points of codegen.h
 *   levels.c  the loops around the innermost one: affine, segmented
 *             (unrolled or walking a segment table), mapped (TensorRT's
 *             border modes), periods, collapsed
 *   inner.c   the innermost loop: runs copied, and the shuffle vectorizer
 *             of strided and reversed elements
 *   stores.c  moving and filling bytes with each store strategy (cached,
 *             streaming), and which strategy --stores auto takes
 * and the small IR builders they all use (below, inline).
 */
#ifndef SG_CODEGEN_EMIT_H
#define SG_CODEGEN_EMIT_H

#define SG_CODEGEN_INTERNAL
#include <stdbool.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

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
    LINE = 64,                     /* cache line bytes, for prefetching */
    PREFETCH_STRAIGHT = 8,         /* a range of up to 8 lines prefetches straight-line, longer in a loop */
    LONG_UNKNOWN = INLINE_COPY + 1 /* emit_inner's extent where it is known only at run time
                                      (a symbolic plan's): a dense range is one copy */
};

typedef struct gen gen;

/* A store strategy: how a kernel writes its output, as four functions
 * (stores.c). A kernel takes one (sg_codegen_streams); a symbolic plan
 * under --stores auto emits a body with each and chooses per call. */
typedef struct sg_store_strategy {
    const char *name;
    bool streams; /* non-temporal stores: the shuffle vectorizer streams whole blocks (inner.c) */
    /* `bytes` bytes from in to out, prefetching the input `ahead` bytes on (NULL: not) */
    void (*copy)(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead);
    /* `bytes` bytes at out repeating the `unit`-byte integer v */
    void (*pattern)(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit, LLVMValueRef bytes);
    /* a vector v of whole runs at out, aligned to `align` bytes */
    void (*block)(gen *g, LLVMValueRef v, LLVMValueRef out, int64_t align);
    /* before the kernel returns (NULL: nothing) */
    void (*finish)(gen *g, const sg_target *t);
} sg_store_strategy;
extern const sg_store_strategy sg_stores_cached, sg_stores_streaming;
/* The strategy for shuffled blocks at addresses of unknown alignment
 * (block(..., 1)): streaming where the code being emitted streams and the
 * target stores pieces of them non-temporally (sg_target.nt_min_bytes),
 * else cached. */
const sg_store_strategy *sg_emit_unaligned_blocks(const gen *g);

struct gen {
    const sg_plan *plan;
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMTypeRef i8, i32, ptr;
    LLVMTypeRef ix;                  /* the type of indices, sizes and offsets: the target's pointer width */
    int64_t vec;                     /* bytes of the widest vectors */
    int64_t copy_vec;                /* ... and of those that copy runs (copy_width) */
    int64_t nt_min;                  /* sg_target.nt_min_bytes */
    LLVMValueRef ahead;              /* how far ahead the loop around the innermost one prefetches
                                        while emitting it, if it is worth it; else NULL */
    LLVMValueRef sym_ahead;          /* a symbolic plan's: computed per call (0: none) */
    LLVMValueRef sym_ahead_runs;     /* ... and its innermost loop's, for runs of whole lines */
    bool table[SG_MAX_RANK];         /* this segmented loop walks a segment table */
    const sg_store_strategy *stores; /* the strategy the code being emitted stores with ... */
    bool part;                       /* ... and the function is a program's part: its kernel fences once
                                        at the end, not every part at each call (a fence waits for the
                                        streamed lines to reach memory) */
    int64_t stream_above;            /* a symbolic plan with --stores auto: the output bytes from which a call
                                        streams (two bodies, chosen per call); -1 otherwise */
    int part_k;                      /* a concatenate's part k with runtime values (sg_sym): where its
                                        numbers lie in args (sg_sym_part_slot of plan_of_parts); -1 for
                                        any other plan */
    const sg_plan *plan_of_parts;
    bool long_runs;                  /* the body runs only calls whose runs have sg_codegen_stream_min_run
                                        bytes or more (a line at least: the streamed one of those two), so
                                        no bodies for runs of a few elements */
    /* The nest's numbers: constants, or for a symbolic plan what the
     * kernel loads from its args where they are known only at run time. */
    LLVMValueRef extent[SG_MAX_RANK], in_stride[SG_MAX_RANK], out_stride[SG_MAX_RANK];
    LLVMValueRef map_start[SG_MAX_RANK], map_step[SG_MAX_RANK], map_dim[SG_MAX_RANK]; /* i64; mapped loops */
    LLVMValueRef interior[2]; /* the innermost mapped loop's affine iterations (sg_sym.interior) */
    LLVMValueRef fill_bits;   /* an i64 whose low bytes are the fill value when it is a runtime value
                                 (sg_sym.fill), else NULL: plan->fill */
    LLVMValueRef run;         /* bytes per innermost iteration */
    int64_t run_k;            /* ... when constant, else -1 */
    sg_error *err;            /* set (and the module abandoned) on failure */
};

/* ---- small builders ------------------------------------------------------------- */

/* v as an index (it fits: sg_codegen_add_kernel refuses tensors the
 * target cannot address). */
static inline LLVMValueRef ci(gen *g, int64_t v)
{
    return LLVMConstInt(g->ix, (unsigned long long)v, 1);
}

static inline bool is_const(LLVMValueRef v, int64_t *value)
{
    if (!LLVMIsAConstantInt(v))
        return false;
    *value = LLVMConstIntGetSExtValue(v);
    return true;
}

/* ptr + offset bytes (a plain GEP: pointers past the end are never used). */
static inline LLVMValueRef gep(gen *g, LLVMValueRef p, LLVMValueRef offset)
{
    int64_t k;
    if (is_const(offset, &k) && k == 0)
        return p;
    return LLVMBuildGEP2(g->b, g->i8, p, &offset, 1, "");
}

static inline LLVMValueRef gep_c(gen *g, LLVMValueRef p, int64_t offset)
{
    return gep(g, p, ci(g, offset));
}

/* Arithmetic on indices: the builder folds constants, these skip identities. */
static inline LLVMValueRef add(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    int64_t k;
    if (is_const(b, &k) && k == 0)
        return a;
    return is_const(a, &k) && k == 0 ? b : LLVMBuildAdd(g->b, a, b, "");
}

static inline LLVMValueRef sub(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    int64_t k;
    return is_const(b, &k) && k == 0 ? a : LLVMBuildSub(g->b, a, b, "");
}

static inline LLVMValueRef mul(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    int64_t k;
    if (is_const(b, &k) && k == 1)
        return a;
    return is_const(a, &k) && k == 1 ? b : LLVMBuildMul(g->b, a, b, "");
}

static inline LLVMValueRef smax(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, a, b, ""), a, b, "");
}

static inline LLVMValueRef smin(gen *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b, "");
}

/* min(max(v, 0), n) */
static inline LLVMValueRef clamp(gen *g, LLVMValueRef v, LLVMValueRef n)
{
    return smin(g, smax(g, v, ci(g, 0)), n);
}

/* With typed pointers (LLVM 14) a load or store needs a pointer to its type. */
static inline LLVMValueRef typed(gen *g, LLVMValueRef p, LLVMTypeRef type)
{
    return sg_ir_typed(g->b, p, type, 0);
}

static inline LLVMValueRef load(gen *g, LLVMTypeRef type, LLVMValueRef p)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, type, typed(g, p, type), "");
    LLVMSetAlignment(v, 1);
    return v;
}

static inline void store(gen *g, LLVMValueRef v, LLVMValueRef p)
{
    LLVMSetAlignment(LLVMBuildStore(g->b, v, typed(g, p, LLVMTypeOf(v))), 1);
}

static inline LLVMTypeRef int_type(gen *g, int64_t bytes)
{
    return LLVMIntTypeInContext(g->c, (unsigned)(8 * bytes));
}

/* The type a chunk of `bytes` (a power of two) moves as: integers up to 8
 * bytes, byte vectors above. */
static inline LLVMTypeRef chunk_type(gen *g, int64_t bytes)
{
    return bytes > 8 ? LLVMVectorType(g->i8, (unsigned)bytes) : int_type(g, bytes);
}

/* The largest power of two <= n that is at most `widest`. */
static inline int64_t chunk_at_most(int64_t widest, int64_t n)
{
    int64_t c = widest;
    while (c > n)
        c /= 2;
    return c;
}

static inline LLVMBasicBlockRef block(gen *g, const char *name)
{
    return sg_ir_block(g->c, g->fn, name);
}

/* if (lo < hi) { what the caller builds next } ... when_end(g, done): the
 * block after the guarded code, which when_end moves the builder to. */
static inline LLVMBasicBlockRef when_less(gen *g, LLVMValueRef lo, LLVMValueRef hi, const char *name)
{
    LLVMBasicBlockRef some = block(g, name), done = block(g, "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, lo, hi, ""), some, done);
    LLVMPositionBuilderAtEnd(g->b, some);
    return done;
}

static inline void when_end(gen *g, LLVMBasicBlockRef done)
{
    LLVMBuildBr(g->b, done);
    LLVMMoveBasicBlockAfter(done, LLVMGetLastBasicBlock(g->fn));
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* ---- moving bytes ------------------------------------------------------------------ */

/* <lanes x T> with v in every lane. */
static inline LLVMValueRef splat(gen *g, LLVMValueRef v, unsigned lanes)
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
static inline void loop_begin(gen *g, loop *l, LLVMValueRef lo, LLVMValueRef lim, int64_t step,
                              LLVMValueRef in_base, LLVMValueRef in_stride, LLVMValueRef out_base,
                              LLVMValueRef out_stride)
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
static inline void loop_begin_backwards(gen *g, loop *l, LLVMValueRef lo, LLVMValueRef hi,
                                        LLVMValueRef in_base, LLVMValueRef in_stride, LLVMValueRef out_base,
                                        LLVMValueRef out_stride)
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
static inline LLVMValueRef loop_hints(gen *g)
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
static inline LLVMValueRef loop_end(gen *g, loop *l, bool index)
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
static inline void prefetch(gen *g, LLVMValueRef in, LLVMValueRef at, int64_t bytes)
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

/* With `ahead`, prefetches the input lines [ahead, ahead + bytes) of in:
 * straight-line up to PREFETCH_STRAIGHT lines, else a loop of lines (a
 * count known only at run time, or a long one: the code's size never
 * grows with the count). */
static inline void prefetch_lines(gen *g, LLVMValueRef in, LLVMValueRef ahead, LLVMValueRef bytes)
{
    int64_t n;
    if (ahead == NULL)
        return;
    if (is_const(bytes, &n) && n <= PREFETCH_STRAIGHT * LINE) {
        prefetch(g, in, ahead, n);
        return;
    }
    loop lines;
    loop_begin(g, &lines, ci(g, 0), bytes, LINE, in, ci(g, 1), NULL, NULL);
    prefetch(g, lines.in, ahead, 1);
    loop_end(g, &lines, false);
}

/* ---- between the modules ----------------------------------------------------------- */

/* stores.c (each described there) */
void sg_emit_copy_bytes(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes);
void sg_emit_copy_run(gen *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef bytes, LLVMValueRef ahead);
void sg_emit_store_pattern(gen *g, LLVMValueRef out, LLVMValueRef v, int64_t unit, LLVMValueRef bytes);
void sg_emit_fill(gen *g, LLVMValueRef out, LLVMValueRef bytes);
int64_t sg_emit_copy_width(const sg_plan *p, int64_t vec);

/* inner.c (each described there) */
void sg_emit_inner(gen *g, LLVMValueRef in, int64_t s, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi,
                   int64_t extent);
void sg_emit_inner_dynamic(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                           LLVMValueRef hi);
void sg_emit_inner_by_stride(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                             LLVMValueRef hi);
void sg_emit_inner_by_run(gen *g, LLVMValueRef in, LLVMValueRef s, LLVMValueRef out, LLVMValueRef lo,
                          LLVMValueRef hi);
int64_t sg_emit_prefetch_distance(const sg_plan *p, int64_t stride);

/* levels.c (each described there) */
void sg_emit_level(gen *g, size_t level, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo, LLVMValueRef hi);
void sg_emit_collapsed(gen *g, size_t level, size_t last, LLVMValueRef in, LLVMValueRef out, LLVMValueRef lo,
                       LLVMValueRef hi);
void sg_emit_choose_tables(gen *g);

#endif

/* GPU kernels: the folded nest as one 16-byte chunk of output per thread
 * (codegen.h, "GPU kernels"), emitted for NVPTX or, to test the same code
 * on a machine without a GPU, for the host as a loop over threads.
 *
 * Thread t owns output bytes [o, o + 16), o = 16 t. It splits them into
 * pieces of g = gcd(run_bytes, 16) bytes, so no piece straddles two runs
 * of the nest, reads each piece with one load and writes the chunk with
 * one 16-byte store (the last thread of an output that is not a multiple
 * of 16 bytes stores piece by piece). A piece at output offset x lies in
 * run q = x / run_bytes at byte x % run_bytes; q splits into the loop
 * indices innermost first (i = q % extent, q /= extent: divisions by
 * constants, which the backend turns into multiplications), and each index
 * adds its loop's input stride, or, in a segmented (TensorRT) loop, picks
 * its segment by comparisons with the segments' constant bounds (a binary
 * search in a constant table past MAX_SELECT_SEGS) so the interior needs no
 * modulo; only a periodic loop reduces its index modulo its period.
 *
 * When the innermost loop's output is a multiple of 16 bytes, a chunk never
 * leaves one iteration of the loops around it: their indices are worked out
 * once per chunk. If moreover the runs are 1, 2, 4 or 8 bytes and the
 * innermost loop is plain with a small stride (strides, reversals,
 * broadcasts), the chunk's input lies in a window of at most 64 bytes,
 * which is read with whole 16-byte loads (when every window plus its
 * rounding stays inside the input; else loads that cover it exactly) and
 * gathered into the chunk's lanes with prmt; the widest segment of a
 * segmented innermost loop (a TensorRT border mode's interior) is read the
 * same way by the chunks that lie in it. Runs that do not divide 16 bytes
 * are periodic, and rows that are not a multiple of 16 bytes, or runs of
 * over 16, are shifted lines (see period): a few kinds of chunk, each with
 * its own constant gather from aligned loads.
 *
 * Index arithmetic is 32-bit when the input and the output are below 2 GiB,
 * 64-bit otherwise. Loads and stores carry the alignment the constants
 * prove (buffers are SG_GPU_ALIGN-aligned); the backend splits what is not
 * aligned. FILL pieces are stores of the plan's fill bytes: a piece is
 * loaded only on the path where it is not a fill. */
#define SG_CODEGEN_INTERNAL
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm/Config/llvm-config.h>

#include "codegen.h"
#include "ir.h"

enum {
    CHUNK = SG_GPU_CHUNK,
    MAX_WINDOW = 64,     /* bytes of input a shuffled chunk may read */
    MAX_SELECT_SEGS = 8, /* segmented loops with more segments search a table */
    MAX_VARIANTS = 8,    /* periodic chunks: at most this many kinds (code paths) */
    MAX_SHIFTS = 4,      /* shifted lines: at most this many kinds (each costs compile time) */
    MAX_BLOCKS = 5,      /* periodic chunks: loads per chunk */
    TABLE_FIELDS = 4     /* segment table row: start, in_offset, in_step, fill (TABLE_COLUMNS) */
};

typedef struct gpu {
    const sg_plan *plan;
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    unsigned as; /* address space of the tensors: 1 (global) on NVPTX, 0 emulated */
    LLVMTypeRef i1, i8, i32, i64, ity, ptr;
    int64_t align;                   /* what every input address of a piece is a multiple of, before its
                                        offset in the run: gcd(16, base, strides, segment offsets and steps) */
    LLVMValueRef table[SG_MAX_RANK]; /* segment tables of loops with many segments */
} gpu;

/* A piece's input: its offset from `in` and, when a FILL segment can
 * cover it, a flag that says it does (NULL: never a fill). */
typedef struct source {
    LLVMValueRef offset, fill;
} source;

/* ---- small builders ------------------------------------------------------------ */

static LLVMValueRef k(gpu *g, int64_t v)
{
    return LLVMConstInt(g->ity, (unsigned long long)v, 1);
}

static LLVMValueRef add(gpu *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAdd(g->b, a, b, "");
}

static LLVMValueRef mul_k(gpu *g, LLVMValueRef a, int64_t v)
{
    return v == 1 ? a : LLVMBuildMul(g->b, a, k(g, v), "");
}

static LLVMValueRef udiv_k(gpu *g, LLVMValueRef a, int64_t v)
{
    return v == 1 ? a : LLVMBuildUDiv(g->b, a, k(g, v), "");
}

static LLVMValueRef urem_k(gpu *g, LLVMValueRef a, int64_t v)
{
    return v == 1 ? k(g, 0) : LLVMBuildURem(g->b, a, k(g, v), "");
}

static LLVMValueRef either(gpu *g, LLVMValueRef a, LLVMValueRef b) /* a || b, NULL = false */
{
    return a == NULL ? b : b == NULL ? a : LLVMBuildOr(g->b, a, b, "");
}

static LLVMBasicBlockRef block(gpu *g, const char *name)
{
    return sg_ir_block(g->c, g->fn, name);
}

/* A pointer of the tensors' address space to `type` (typed pointers before LLVM 15). */
static LLVMValueRef typed(gpu *g, LLVMValueRef p, LLVMTypeRef type)
{
    return sg_ir_typed(g->b, p, type, g->as);
}

static LLVMValueRef at(gpu *g, LLVMValueRef base, LLVMValueRef offset)
{
    if (g->ity != g->i64) /* offsets are non-negative below 2^31 */
        offset = LLVMBuildZExt(g->b, offset, g->i64, "");
    return LLVMBuildGEP2(g->b, g->i8, base, &offset, 1, "");
}

static LLVMTypeRef bytes_type(gpu *g, int64_t n) /* the type a load of n bytes uses */
{
    return n == 16 ? LLVMVectorType(g->i32, 4) : LLVMIntTypeInContext(g->c, (unsigned)(8 * n));
}

static int64_t floor_mod(int64_t a, int64_t n)
{
    return ((a % n) + n) % n;
}

static int64_t align_of(int64_t a, int64_t n)
{
    return sg_gcd(a < 0 ? -a : a, n);
}

/* The alignment an access at `offset` is given. On a GPU, `align`: the
 * buffers are SG_GPU_ALIGN-aligned, and the offset a multiple of it. The
 * emulation runs on buffers of any alignment, so it checks the claim
 * instead: a misaligned offset traps (llvm.trap). */
static unsigned claim(gpu *g, LLVMValueRef offset, int64_t align)
{
    if (g->as == 1)
        return (unsigned)align;
    if (align > 1) {
        LLVMTypeRef trap_type = LLVMFunctionType(LLVMVoidTypeInContext(g->c), NULL, 0, 0);
        LLVMValueRef trap = LLVMGetNamedFunction(g->m, "llvm.trap");
        if (trap == NULL)
            trap = LLVMAddFunction(g->m, "llvm.trap", trap_type);
        LLVMBasicBlockRef bad = block(g, "misaligned"), good = block(g, "aligned");
        LLVMValueRef low = LLVMBuildAnd(g->b, offset, k(g, align - 1), "");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, low, k(g, 0), ""), bad, good);
        LLVMPositionBuilderAtEnd(g->b, bad);
        LLVMBuildCall2(g->b, trap_type, trap, NULL, 0, "");
        LLVMBuildUnreachable(g->b);
        LLVMPositionBuilderAtEnd(g->b, good);
    }
    return 1;
}

static LLVMValueRef load(gpu *g, LLVMValueRef in, LLVMValueRef offset, int64_t n, int64_t align)
{
    LLVMTypeRef type = bytes_type(g, n);
    unsigned a = claim(g, offset, align);
    LLVMValueRef v = LLVMBuildLoad2(g->b, type, typed(g, at(g, in, offset), type), "");
    LLVMSetAlignment(v, a);
    return v;
}

static void store(gpu *g, LLVMValueRef v, LLVMValueRef out, LLVMValueRef offset, int64_t align)
{
    unsigned a = claim(g, offset, align);
    LLVMValueRef s = LLVMBuildStore(g->b, v, typed(g, at(g, out, offset), LLVMTypeOf(v)));
    LLVMSetAlignment(s, a);
}

/* n bytes of the fill value (elements repeated), as bytes_type(n). */
static LLVMValueRef fill_value(gpu *g, int64_t n)
{
    const sg_plan *p = g->plan;
    uint64_t word[2] = {0, 0};
    for (int64_t i = 0; i < n; i++)
        word[i / 8] |= (uint64_t)p->fill[(size_t)i % p->elem_size] << (8 * (i % 8));
    if (n < 16)
        return LLVMConstInt(bytes_type(g, n), word[0], 0);
    LLVMValueRef lanes[4];
    for (int i = 0; i < 4; i++)
        lanes[i] = LLVMConstInt(g->i32, (word[i / 2] >> (32 * (i % 2))) & 0xffffffffu, 0);
    return LLVMConstVector(lanes, 4);
}

/* ---- input offsets ---------------------------------------------------------------- */

/* A constant table of the segments of loop `level`, a row per segment
 * (sg_segment_rows without runs) of the TABLE_FIELDS columns a search by
 * start reads: TABLE_COLUMNS, TABLE_FIELDS i64 per row. */
static const int TABLE_COLUMNS[TABLE_FIELDS] = {SG_SEG_START, SG_SEG_IN_OFFSET, SG_SEG_IN_STEP, SG_SEG_FILL};

static LLVMValueRef segment_table(gpu *g, size_t level)
{
    const sg_loop *l = &g->plan->loops[level];
    LLVMValueRef *v = malloc(l->nseg * TABLE_FIELDS * sizeof *v);
    int64_t(*rows)[SG_SEG_FIELDS] = malloc(l->nseg * sizeof *rows);
    if (v == NULL || rows == NULL) {
        free(v);
        free(rows);
        return NULL;
    }
    size_t n = sg_segment_rows(g->plan, l, false, rows); /* l->nseg */
    for (size_t s = 0; s < n; s++)
        for (int f = 0; f < TABLE_FIELDS; f++)
            v[s * TABLE_FIELDS + (size_t)f] =
                LLVMConstInt(g->i64, (unsigned long long)rows[s][TABLE_COLUMNS[f]], 1);
    free(rows);
    LLVMValueRef init = LLVMConstArray(g->i64, v, (unsigned)(l->nseg * TABLE_FIELDS));
    free(v);
    LLVMValueRef t = LLVMAddGlobalInAddressSpace(g->m, LLVMTypeOf(init), "segments", g->as);
    LLVMSetInitializer(t, init);
    LLVMSetGlobalConstant(t, 1);
    LLVMSetLinkage(t, LLVMPrivateLinkage);
    LLVMSetAlignment(t, 8);
    return t;
}

static LLVMValueRef table_field(gpu *g, LLVMValueRef table, LLVMValueRef row, int field)
{
    LLVMValueRef index =
        LLVMBuildAdd(g->b, LLVMBuildMul(g->b, row, LLVMConstInt(g->i64, TABLE_FIELDS, 0), ""),
                     LLVMConstInt(g->i64, (unsigned long long)field, 0), "");
    LLVMValueRef base = typed(g, table, g->i64);
    LLVMValueRef v = LLVMBuildLoad2(g->b, g->i64, LLVMBuildGEP2(g->b, g->i64, base, &index, 1, ""), "");
    LLVMSetAlignment(v, 8);
    return g->ity == g->i64 ? v : LLVMBuildTrunc(g->b, v, g->ity, "");
}

/* The segment holding iteration i of a segmented loop with many segments:
 * a binary search for the last row whose start is <= i. */
static source search_segments(gpu *g, size_t level, LLVMValueRef i)
{
    const sg_loop *l = &g->plan->loops[level];
    LLVMValueRef table = g->table[level];
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(g->b), head = block(g, "search"),
                      step = block(g, "search.step"), found = block(g, "search.found");
    LLVMValueRef i64 = g->ity == g->i64 ? i : LLVMBuildZExt(g->b, i, g->i64, "");
    LLVMBuildBr(g->b, head);
    LLVMPositionBuilderAtEnd(g->b, head);
    LLVMValueRef lo = LLVMBuildPhi(g->b, g->i64, "lo"), hi = LLVMBuildPhi(g->b, g->i64, "hi");
    LLVMValueRef more =
        LLVMBuildICmp(g->b, LLVMIntUGT, LLVMBuildSub(g->b, hi, lo, ""), LLVMConstInt(g->i64, 1, 0), "");
    LLVMBuildCondBr(g->b, more, step, found);
    LLVMPositionBuilderAtEnd(g->b, step);
    LLVMValueRef mid = LLVMBuildLShr(g->b, LLVMBuildAdd(g->b, lo, hi, ""), LLVMConstInt(g->i64, 1, 0), "");
    LLVMValueRef start = table_field(g, table, mid, 0);
    start = g->ity == g->i64 ? start : LLVMBuildZExt(g->b, start, g->i64, "");
    LLVMValueRef below = LLVMBuildICmp(g->b, LLVMIntULE, start, i64, "");
    LLVMValueRef lo2 = LLVMBuildSelect(g->b, below, mid, lo, ""),
                 hi2 = LLVMBuildSelect(g->b, below, hi, mid, "");
    LLVMBuildBr(g->b, head);
    LLVMValueRef lo_in[] = {LLVMConstInt(g->i64, 0, 0), lo2},
                 hi_in[] = {LLVMConstInt(g->i64, l->nseg, 0), hi2};
    LLVMBasicBlockRef from[] = {entry, step};
    LLVMAddIncoming(lo, lo_in, from, 2);
    LLVMAddIncoming(hi, hi_in, from, 2);
    LLVMPositionBuilderAtEnd(g->b, found);
    LLVMValueRef first = table_field(g, table, lo, 0), offset = table_field(g, table, lo, 1),
                 stride = table_field(g, table, lo, 2), fill = table_field(g, table, lo, 3);
    source s = {add(g, offset, LLVMBuildMul(g->b, LLVMBuildSub(g->b, i, first, ""), stride, "")), NULL};
    for (size_t n = l->seg0; n < l->seg0 + l->nseg && s.fill == NULL; n++)
        if (g->plan->segs[n].fill)
            s.fill = LLVMBuildICmp(g->b, LLVMIntNE, fill, k(g, 0), "");
    return s;
}

/* What iteration i of loop `level` adds to the input offset. */
static source iteration(gpu *g, size_t level, LLVMValueRef i)
{
    const sg_loop *l = &g->plan->loops[level];
    if (l->nseg == 0)
        return (source){mul_k(g, i, l->in_stride), NULL};
    if (l->period > 0)
        i = urem_k(g, i, l->period);
    if (l->nseg > MAX_SELECT_SEGS)
        return search_segments(g, level, i);
    /* A chain of selects over the segments' first iterations. */
    const sg_segment *segs = &g->plan->segs[l->seg0];
    LLVMValueRef first = k(g, 0), offset = k(g, segs[0].fill ? 0 : segs[0].in_offset),
                 stride = k(g, segs[0].fill ? 0 : segs[0].in_step);
    LLVMValueRef fill = LLVMConstInt(g->i1, segs[0].fill, 0);
    bool fills = segs[0].fill;
    int64_t start = 0;
    for (size_t s = 1; s < l->nseg; s++) {
        start += segs[s - 1].count;
        LLVMValueRef past = LLVMBuildICmp(g->b, LLVMIntUGE, i, k(g, start), "");
        first = LLVMBuildSelect(g->b, past, k(g, start), first, "");
        offset = LLVMBuildSelect(g->b, past, k(g, segs[s].fill ? 0 : segs[s].in_offset), offset, "");
        stride = LLVMBuildSelect(g->b, past, k(g, segs[s].fill ? 0 : segs[s].in_step), stride, "");
        fill = LLVMBuildSelect(g->b, past, LLVMConstInt(g->i1, segs[s].fill, 0), fill, "");
        fills |= segs[s].fill;
    }
    return (source){add(g, offset, LLVMBuildMul(g->b, LLVMBuildSub(g->b, i, first, ""), stride, "")),
                    fills ? fill : NULL};
}

/* The input offset of loops [from, to] for the index q of their
 * iterations taken together (row-major), plus `offset`. */
static source nest_offset(gpu *g, size_t from, size_t to, LLVMValueRef q, LLVMValueRef offset)
{
    source s = {offset, NULL};
    for (size_t level = to + 1; level-- > from;) {
        const sg_loop *l = &g->plan->loops[level];
        LLVMValueRef i = level == from ? q : urem_k(g, q, l->extent);
        if (level > from)
            q = udiv_k(g, q, l->extent);
        source it = iteration(g, level, i);
        s.offset = add(g, s.offset, it.offset);
        s.fill = either(g, s.fill, it.fill);
    }
    return s;
}

/* ---- chunks ---------------------------------------------------------------------- */

/* The piece's bytes: the fill value when src.fill holds, else a load. */
static LLVMValueRef piece_value(gpu *g, LLVMValueRef in, source src, int64_t bytes)
{
    int64_t align = align_of(g->align, bytes);
    if (src.fill == NULL)
        return load(g, in, src.offset, bytes, align);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b), read = block(g, "read"), join = block(g, "join");
    LLVMBuildCondBr(g->b, src.fill, join, read);
    LLVMPositionBuilderAtEnd(g->b, read);
    LLVMValueRef v = load(g, in, src.offset, bytes, align);
    LLVMBasicBlockRef read_end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef phi = LLVMBuildPhi(g->b, bytes_type(g, bytes), "");
    LLVMValueRef values[] = {fill_value(g, bytes), v};
    LLVMBasicBlockRef blocks[] = {from, read_end};
    LLVMAddIncoming(phi, values, blocks, 2);
    return phi;
}

/* Writes the chunk's pieces (values[j] for output offset o0 + j * piece):
 * one 16-byte store when all `count` pieces make a whole chunk, else one
 * store per piece (o0 is then a constant). */
static void store_chunk(gpu *g, LLVMValueRef out, LLVMValueRef o0, LLVMValueRef *values, int64_t count,
                        int64_t piece)
{
    if (count * piece < CHUNK) {
        for (int64_t j = 0; j < count; j++)
            store(g, values[j], out, add(g, o0, k(g, j * piece)), align_of(j * piece, piece));
        return;
    }
    store(g, piece == CHUNK ? values[0] : sg_ir_chunk_lanes(g->b, g->c, values, piece), out, o0, CHUNK);
}

/* A chunk by pieces: each piece's source found from its output offset
 * (rows: the chunk lies in one iteration of the loops around the innermost,
 * whose input offset is `outer`; w0 is the chunk's offset in that
 * iteration's output). */
static void pieces_chunk(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, int64_t count, bool rows,
                         source outer, LLVMValueRef w0)
{
    const sg_plan *p = g->plan;
    int64_t piece = sg_gcd(p->run_bytes, CHUNK);
    LLVMValueRef values[CHUNK] = {0};
    for (int64_t j = 0; j < count; j++) {
        source src;
        if (p->nloops == 0) {
            src = (source){add(g, k(g, p->base), add(g, o0, k(g, j * piece))), NULL};
        } else {
            LLVMValueRef x = add(g, rows ? w0 : o0, k(g, j * piece));
            LLVMValueRef q = udiv_k(g, x, p->run_bytes), b = urem_k(g, x, p->run_bytes);
            size_t last = p->nloops - 1;
            src = rows ? nest_offset(g, last, last, q, add(g, outer.offset, b))
                       : nest_offset(g, 0, last, q, add(g, k(g, p->base), b));
            src.fill = either(g, rows ? outer.fill : NULL, src.fill);
        }
        values[j] = piece_value(g, in, src, piece);
    }
    store_chunk(g, out, o0, values, count, piece);
}

/* The window of a shuffled chunk (see the file comment): n runs of r bytes
 * whose input offsets are s apart, the lowest at outer + offset + c0 s for
 * the chunk's first run c0 of its row (a multiple of n). That offset is
 * `at` bytes past a multiple of `align`, the same for every chunk: the
 * window is read from there, `at` bytes early. */
typedef struct window {
    int64_t n, r, s;
    int64_t offset; /* may be negative: c0 s makes up for it */
    int64_t align, at;
    int64_t span; /* bytes from the window's aligned start to the end of its highest run */
    bool whole;   /* 16-byte loads may read up to the next multiple of 16 */
} window;

/* Over the loops around the `inner` innermost: what the input offsets they
 * add are all multiples of (a divisor of 16), and the most they add
 * (INT64_MAX past it). */
static void outer_reach(const sg_plan *p, size_t inner, int64_t *align, int64_t *most)
{
    *align = CHUNK, *most = 0;
    for (size_t level = 0; level + inner < p->nloops; level++) {
        const sg_loop *l = &p->loops[level];
        int64_t m = 0;
        if (l->nseg == 0) {
            *align = sg_gcd(*align, align_of(l->in_stride, CHUNK));
            m = l->in_stride > 0 ? (l->extent - 1) * l->in_stride : 0;
        }
        for (size_t n = l->seg0; n < l->seg0 + l->nseg; n++) {
            const sg_segment *seg = &p->segs[n];
            if (seg->fill)
                continue;
            *align = sg_gcd(*align, sg_gcd(align_of(seg->in_offset, CHUNK), align_of(seg->in_step, CHUNK)));
            int64_t end = seg->in_offset + (seg->in_step > 0 ? (seg->count - 1) * seg->in_step : 0);
            m = end > m ? end : m;
        }
        if (__builtin_add_overflow(*most, m, most))
            *most = INT64_MAX;
    }
}

/* A window of stride s whose offset + c0 s is at most `high` (over the
 * chunks that use it); false when its runs do not fit one. */
static bool window_of(gpu *g, int64_t s, int64_t offset, int64_t high, window *w)
{
    const sg_plan *p = g->plan;
    int64_t r = p->run_bytes, n = CHUNK / r;
    if (CHUNK % r != 0 || n < 2 || s < -MAX_WINDOW || s > MAX_WINDOW)
        return false;
    int64_t align, most, end;
    outer_reach(p, 1, &align, &most);
    align = sg_gcd(align, align_of(n * s, CHUNK));
    int64_t at = floor_mod(p->base + offset, align), span = at + (s < 0 ? -s : s) * (n - 1) + r;
    if (span > MAX_WINDOW)
        return false;
    bool fits = !__builtin_add_overflow(p->base, most, &end) &&
                !__builtin_add_overflow(end, high - at, &end) &&
                !__builtin_add_overflow(end, (span + CHUNK - 1) / CHUNK * CHUNK, &end);
    *w = (window){.n = n,
                  .r = r,
                  .s = s,
                  .offset = offset,
                  .align = align,
                  .at = at,
                  .span = span,
                  .whole = fits && end <= (int64_t)p->in_bytes};
    return true;
}

/* A window over the innermost loop, plain. */
static bool plan_window(gpu *g, window *w)
{
    const sg_plan *p = g->plan;
    const sg_loop *inner = &p->loops[p->nloops - 1];
    int64_t s = inner->in_stride, n = CHUNK / p->run_bytes;
    if (inner->nseg != 0)
        return false;
    /* Reversed, the lowest run is the chunk's last. */
    int64_t offset = s < 0 ? (n - 1) * s : 0;
    return window_of(g, s, offset, offset + (s > 0 ? (inner->extent - n) * s : 0), w);
}

/* A window over the widest segment of the innermost loop (the interior of
 * a TensorRT border mode), for the chunks whose runs all lie in it: runs
 * [*first, *first + *count). */
static bool plan_segment_window(gpu *g, window *w, int64_t *first, int64_t *count)
{
    const sg_plan *p = g->plan;
    const sg_loop *inner = &p->loops[p->nloops - 1];
    if (inner->nseg == 0 || inner->period != 0 || CHUNK % p->run_bytes != 0)
        return false;
    int64_t n = CHUNK / p->run_bytes, start = 0;
    const sg_segment *widest = NULL;
    for (size_t i = inner->seg0; i < inner->seg0 + inner->nseg; start += p->segs[i++].count) {
        const sg_segment *seg = &p->segs[i];
        if (!seg->fill && seg->count >= n && (widest == NULL || seg->count > widest->count))
            widest = seg, *first = start;
    }
    if (widest == NULL)
        return false;
    int64_t s = widest->in_step;
    int64_t offset = widest->in_offset - *first * s + (s < 0 ? (n - 1) * s : 0);
    *count = widest->count;
    return window_of(g, s, offset, offset + (s > 0 ? *first + *count - n : *first) * s, w);
}

/* Loads covering the window from its aligned start, input offset `low`:
 * 16-byte ones, or, where they could read past the input, pieces of 16, 8,
 * 4, 2 and 1 bytes that end exactly at its end (each at an offset from low
 * that is a multiple of its size). */
typedef struct loaded {
    int64_t offset, size;
    LLVMValueRef value; /* bytes_type(size) */
} loaded;

static int load_window(gpu *g, LLVMValueRef in, LLVMValueRef low, const window *w, bool whole, loaded *l)
{
    int count = 0;
    for (int64_t at_ = 0; at_ < w->span;) {
        int64_t size = CHUNK;
        if (!whole)
            while (size > w->span - at_)
                size /= 2;
        LLVMValueRef v = load(g, in, add(g, low, k(g, at_)), size, align_of(sg_gcd(w->align, at_), size));
        l[count++] = (loaded){at_, size, v};
        at_ += size;
    }
    return count;
}

/* PTX's prmt: byte i of the result is byte (sel >> 4 i) & 7 of the eight
 * bytes b:a (a holds bytes 0 to 3). On NVPTX the instruction itself; in
 * the emulation, shifts and masks. */
static LLVMValueRef prmt(gpu *g, LLVMValueRef a, LLVMValueRef b, unsigned sel)
{
    if (g->as == 1) {
        char text[48];
        snprintf(text, sizeof text, "prmt.b32 $0, $1, $2, 0x%04x;", sel);
        LLVMTypeRef params[] = {g->i32, g->i32};
        LLVMTypeRef type = LLVMFunctionType(g->i32, params, 2, 0);
        static const char constraints[] = "=r,r,r";
        LLVMValueRef code = LLVMGetInlineAsm(type, text, strlen(text), (char *)constraints,
                                             strlen(constraints), 0, 0, LLVMInlineAsmDialectATT, 0);
        LLVMValueRef args[] = {a, b};
        return LLVMBuildCall2(g->b, type, code, args, 2, "");
    }
    LLVMValueRef x = NULL;
    for (unsigned i = 0; i < 4; i++) {
        unsigned from = (sel >> (4 * i)) & 7;
        LLVMValueRef v = LLVMBuildLShr(g->b, from < 4 ? a : b, LLVMConstInt(g->i32, 8 * (from % 4), 0), "");
        v = LLVMBuildShl(g->b, LLVMBuildAnd(g->b, v, LLVMConstInt(g->i32, 0xff, 0), ""),
                         LLVMConstInt(g->i32, 8 * i, 0), "");
        x = x ? LLVMBuildOr(g->b, x, v, "") : v;
    }
    return x;
}

/* The chunk whose byte j is the byte at window offset from[j] of the loads
 * l[0 .. count). The loads are taken as 32-bit words (one under 4 bytes is
 * one word, zero-extended); a lane that is one whole word is that word,
 * else it is gathered by prmt from its first two words, plus one prmt per
 * further word. */
static LLVMValueRef gather_chunk(gpu *g, const loaded *l, int count, const int64_t from[CHUNK])
{
    LLVMValueRef words[MAX_WINDOW];
    int first_word[MAX_WINDOW], nwords = 0;
    for (int i = 0; i < count; i++) {
        first_word[i] = nwords;
        LLVMValueRef v = l[i].value;
        if (l[i].size < 4) {
            words[nwords++] = LLVMBuildZExt(g->b, v, g->i32, "");
            continue;
        }
        LLVMValueRef as_words =
            LLVMBuildBitCast(g->b, v, LLVMVectorType(g->i32, (unsigned)(l[i].size / 4)), "");
        for (int64_t w = 0; w < l[i].size / 4; w++)
            words[nwords++] =
                LLVMBuildExtractElement(g->b, as_words, LLVMConstInt(g->i32, (unsigned long long)w, 0), "");
    }
    LLVMValueRef chunk = LLVMGetUndef(bytes_type(g, CHUNK));
    for (int lane = 0; lane < 4; lane++) {
        int word[4], byte[4], distinct[4], nd = 0;
        for (int j = 0; j < 4; j++) {
            int64_t x = from[4 * lane + j];
            int i = 0;
            while (i + 1 < count && x >= l[i + 1].offset)
                i++;
            word[j] = first_word[i] + (int)((x - l[i].offset) / 4);
            byte[j] = (int)((x - l[i].offset) % 4);
            int d = 0;
            while (d < nd && distinct[d] != word[j])
                d++;
            if (d == nd)
                distinct[nd++] = word[j];
        }
        LLVMValueRef value = words[distinct[0]];
        if (nd > 1 || byte[0] != 0 || byte[1] != 1 || byte[2] != 2 || byte[3] != 3) {
            unsigned sel = 0;
            for (int j = 0; j < 4; j++)
                sel |= (unsigned)(word[j] == distinct[0]   ? byte[j]
                                  : word[j] == distinct[1] ? 4 + byte[j]
                                                           : 0)
                       << (4 * j);
            value = prmt(g, value, words[distinct[nd > 1 ? 1 : 0]], sel);
            for (int d = 2; d < nd; d++) { /* the bytes placed so far stay where they are */
                sel = 0;
                for (int j = 0; j < 4; j++)
                    sel |= (unsigned)(word[j] == distinct[d] ? 4 + byte[j] : j) << (4 * j);
                value = prmt(g, value, words[distinct[d]], sel);
            }
        }
        chunk =
            LLVMBuildInsertElement(g->b, chunk, value, LLVMConstInt(g->i32, (unsigned long long)lane, 0), "");
    }
    return chunk;
}

/* The chunk from the window whose aligned start is input offset `low`. */
static LLVMValueRef window_lanes(gpu *g, LLVMValueRef in, LLVMValueRef low, const window *w, bool whole)
{
    loaded l[MAX_WINDOW];
    int count = load_window(g, in, low, w, whole, l);
    int64_t from[CHUNK];
    for (int64_t j = 0; j < w->n; j++) {
        int64_t run = w->s >= 0 ? j * w->s : (w->n - 1 - j) * -w->s;
        for (int64_t e = 0; e < w->r; e++)
            from[j * w->r + e] = w->at + run + e;
    }
    return gather_chunk(g, l, count, from);
}

static void window_chunk(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, const window *w,
                         source outer, LLVMValueRef w0)
{
    /* The chunk's first run is run w0 / r of its row. */
    LLVMValueRef first = udiv_k(g, w0, w->r);
    LLVMValueRef low = add(g, add(g, outer.offset, k(g, w->offset - w->at)), mul_k(g, first, w->s));
    int64_t rounded = (w->span + CHUNK - 1) / CHUNK * CHUNK;
    if (w->whole || rounded == w->span) {
        store(g, window_lanes(g, in, low, w, true), out, o0, CHUNK);
        return;
    }
    /* Whole loads for every window but those within 16 bytes of the input's end. */
    LLVMBasicBlockRef inside = block(g, "window.whole"), near_end = block(g, "window.exact"),
                      join = block(g, "window.store");
    LLVMValueRef end = add(g, low, k(g, rounded));
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULE, end, k(g, (int64_t)g->plan->in_bytes), ""), inside,
                    near_end);
    LLVMValueRef lanes[2];
    LLVMBasicBlockRef from[2];
    LLVMPositionBuilderAtEnd(g->b, inside);
    lanes[0] = window_lanes(g, in, low, w, true);
    from[0] = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, near_end);
    lanes[1] = window_lanes(g, in, low, w, false);
    from[1] = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef v = LLVMBuildPhi(g->b, bytes_type(g, CHUNK), "");
    LLVMAddIncoming(v, lanes, from, 2);
    store(g, v, out, o0, CHUNK);
}

/* Periodic chunks: the loops' output in rows of `row` bytes, each row one
 * iteration of the loops around the `levels` innermost (one or two, all
 * plain), in which output byte w reads input byte f(w) from the row's
 * start. If `chunks` chunks (P) hold a whole number of the innermost
 * level's iterations (runs of 3-byte pixels; the 3 channels of a pixel),
 * f(w + 16 P) = f(w) + step: chunk m of a row is variant v = m % P of
 * period a = m / P and reads f(16 v + j) + a step for its byte j. That
 * offset modulo `block` is known (the row's input offset less the plan's
 * base, and a step, are multiples of it), so each variant reads its window with
 * block-byte loads at block-aligned offsets and gathers its bytes from
 * constant places: one code path per variant, no division but the one
 * that finds a and v.
 *
 * Shifted lines are the same with rows ("lines") whose bytes are not a
 * multiple of 16, so that a chunk starts `shift` bytes or a multiple of
 * them into a 16-byte step of its line: lines of the innermost loop
 * (levels 1) whose runs divide 16 (f16 [::3, 1::3] of rows of 1365
 * elements), or single runs of over 16 bytes (levels 0: a crop of odd
 * width). f(w + 16) = f(w) + step, and a chunk at w0 of its line is
 * variant v = (w0 % 16) / shift, reading f(v shift + j) + (w0 / 16) step
 * for its byte j. A chunk that straddles two lines goes piece by piece. */
typedef struct period {
    size_t levels;
    int64_t row, chunks, step, block;
    int64_t shift; /* shifted lines: what w0 % 16 is a multiple of; 0 for periodic chunks */
    struct variant {
        int64_t start, count; /* its first block's offset from the period's; how many blocks */
        int64_t from[CHUNK];  /* each byte's offset from the first block */
    } v[MAX_VARIANTS];
    bool check; /* the last blocks may lie past the input: checked at run time */
} period;

/* f(w) (see period), the top level extended past its extent. */
static int64_t period_offset(const sg_plan *p, size_t levels, int64_t w)
{
    if (levels == 0)
        return w;
    const sg_loop *inner = &p->loops[p->nloops - 1];
    int64_t r = p->run_bytes;
    if (levels == 1)
        return w / r * inner->in_stride + w % r;
    int64_t t = r * inner->extent; /* output bytes of one iteration of the outer level */
    return w / t * p->loops[p->nloops - 2].in_stride + w % t / r * inner->in_stride + w % r;
}

/* Variant x, whose chunk's byte j reads f(w + j) plus a multiple of the
 * block: false when that takes more than MAX_BLOCKS loads. */
static bool plan_variant(const sg_plan *p, size_t levels, int64_t w, int64_t block, struct variant *x)
{
    int64_t f[CHUNK], lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t j = 0; j < CHUNK; j++) {
        f[j] = period_offset(p, levels, w + j);
        lo = f[j] < lo ? f[j] : lo;
        hi = f[j] > hi ? f[j] : hi;
    }
    int64_t at = floor_mod(p->base + lo, block);
    x->start = lo - at;
    x->count = (at + hi - lo + 1 + block - 1) / block;
    for (int64_t j = 0; j < CHUNK; j++)
        x->from[j] = at + f[j] - lo;
    return hi - lo < MAX_WINDOW && x->count <= MAX_BLOCKS;
}

/* Whether a block read for a row could pass the input's end: the rows'
 * offsets reach `most` past the base, their bytes `high` + run past that. */
static bool past_end(const sg_plan *p, int64_t most, int64_t high, int64_t block)
{
    int64_t end;
    return __builtin_add_overflow(p->base, most, &end) ||
           __builtin_add_overflow(end, high + p->run_bytes, &end) ||
           (end + block - 1) / block * block > (int64_t)p->in_bytes;
}

static bool plan_period(gpu *g, size_t levels, period *pd)
{
    const sg_plan *p = g->plan;
    if (p->nloops < levels)
        return false;
    int64_t unit = p->run_bytes, high = 0; /* unit: output bytes of one iteration of the top level */
    for (size_t i = 0; i < levels; i++) {
        const sg_loop *l = &p->loops[p->nloops - 1 - i];
        if (l->nseg != 0 || l->in_stride < -MAX_WINDOW * CHUNK || l->in_stride > MAX_WINDOW * CHUNK)
            return false;
        if (i + 1 < levels)
            unit *= l->extent;
        high += l->in_stride > 0 ? (l->extent - 1) * l->in_stride : 0;
    }
    const sg_loop *top = &p->loops[p->nloops - levels];
    *pd = (period){.levels = levels, .row = unit * top->extent, .chunks = unit / sg_gcd(unit, CHUNK)};
    pd->step = CHUNK * pd->chunks / unit * top->in_stride;
    if ((pd->row % CHUNK != 0 && p->nloops > levels) || pd->chunks > MAX_VARIANTS)
        return false;
    int64_t align, most;
    outer_reach(p, levels, &align, &most);
    pd->block = sg_gcd(align, align_of(pd->step, CHUNK));
    for (int64_t v = 0; v < pd->chunks; v++)
        if (!plan_variant(p, levels, CHUNK * v, pd->block, &pd->v[v]))
            return false;
    pd->check = past_end(p, most, high, pd->block);
    return true;
}

/* Shifted lines (see period) of `levels` 1 or 0. */
static bool plan_line(gpu *g, size_t levels, period *pd)
{
    const sg_plan *p = g->plan;
    int64_t r = p->run_bytes, high = 0;
    *pd = (period){.levels = levels, .row = r, .step = CHUNK};
    if (levels == 1) {
        if (p->nloops == 0)
            return false;
        const sg_loop *inner = &p->loops[p->nloops - 1];
        if (inner->nseg != 0 || CHUNK % r != 0 || inner->in_stride < -MAX_WINDOW * CHUNK ||
            inner->in_stride > MAX_WINDOW * CHUNK)
            return false;
        pd->row = r * inner->extent;
        pd->step = CHUNK / r * inner->in_stride;
        high = inner->in_stride > 0 ? (inner->extent - 1) * inner->in_stride : 0;
    } else if (r <= CHUNK) {
        return false;
    }
    if (pd->row < CHUNK)
        return false;
    pd->shift = (int64_t)p->out_bytes > pd->row ? sg_gcd(pd->row, CHUNK) : CHUNK; /* one line: w0 = o0 */
    pd->chunks = CHUNK / pd->shift;
    if (pd->chunks > MAX_SHIFTS)
        return false;
    int64_t align, most;
    outer_reach(p, levels, &align, &most);
    pd->block = sg_gcd(align, align_of(pd->step, CHUNK));
    for (int64_t v = 0; v < pd->chunks; v++)
        if (!plan_variant(p, levels, v * pd->shift, pd->block, &pd->v[v]))
            return false;
    pd->check = past_end(p, most, high, pd->block);
    return true;
}

/* A chunk by its variant (see period): outer is the input offset of its
 * row, w0 its offset in the row (a multiple of 16 unless shifted). A chunk
 * whose blocks could pass the input's end goes to `slow` (NULL: piece by
 * piece here). */
static void period_chunk(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, const period *pd,
                         source outer, LLVMValueRef w0, LLVMBasicBlockRef slow)
{
    bool own_slow = slow == NULL;
    const sg_plan *p = g->plan;
    LLVMValueRef m = udiv_k(g, w0, CHUNK), x0, variant;
    if (pd->shift) {
        x0 = add(g, outer.offset, mul_k(g, m, pd->step));
        variant = udiv_k(g, urem_k(g, w0, CHUNK), pd->shift);
    } else {
        x0 = add(g, outer.offset, mul_k(g, udiv_k(g, m, pd->chunks), pd->step));
        variant = urem_k(g, m, pd->chunks);
    }
    LLVMBasicBlockRef cases[MAX_VARIANTS] = {0}, store_bb = block(g, "period.store"),
                      done = block(g, "period.done");
    LLVMValueRef lanes[MAX_VARIANTS] = {0};
    LLVMBasicBlockRef from[MAX_VARIANTS] = {0};
    for (int64_t i = 0; i < pd->chunks; i++)
        cases[i] = block(g, "period.variant");
    LLVMValueRef sw = LLVMBuildSwitch(g->b, variant, cases[0], (unsigned)pd->chunks - 1);
    for (int64_t i = 1; i < pd->chunks; i++)
        LLVMAddCase(sw, k(g, i), cases[i]);
    for (int64_t i = 0; i < pd->chunks; i++) {
        const struct variant *x = &pd->v[i];
        LLVMPositionBuilderAtEnd(g->b, cases[i]);
        LLVMValueRef first = add(g, x0, k(g, x->start));
        if (pd->check) {
            if (slow == NULL)
                slow = block(g, "period.near.end");
            LLVMBasicBlockRef inside = block(g, "period.blocks");
            LLVMValueRef end = add(g, first, k(g, x->count * pd->block));
            LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULE, end, k(g, (int64_t)p->in_bytes), ""),
                            inside, slow);
            LLVMPositionBuilderAtEnd(g->b, inside);
        }
        loaded l[MAX_BLOCKS];
        for (int64_t n = 0; n < x->count; n++)
            l[n] = (loaded){n * pd->block, pd->block,
                            load(g, in, add(g, first, k(g, n * pd->block)), pd->block, pd->block)};
        lanes[i] = gather_chunk(g, l, (int)x->count, x->from);
        from[i] = LLVMGetInsertBlock(g->b);
        LLVMBuildBr(g->b, store_bb);
    }
    LLVMPositionBuilderAtEnd(g->b, store_bb);
    LLVMValueRef phi = LLVMBuildPhi(g->b, bytes_type(g, CHUNK), "");
    LLVMAddIncoming(phi, lanes, from, (unsigned)pd->chunks);
    store(g, phi, out, o0, CHUNK);
    LLVMBuildBr(g->b, done);
    if (own_slow && slow != NULL) { /* blocks that would pass the input's end: piece by piece */
        LLVMPositionBuilderAtEnd(g->b, slow);
        pieces_chunk(g, in, out, o0, CHUNK / sg_gcd(p->run_bytes, CHUNK), pd->levels == 1, outer, w0);
        LLVMBuildBr(g->b, done);
    }
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Stores the fill value when outer.fill holds; returns the block to go on
 * to after what follows (NULL when nothing can be a fill). */
static LLVMBasicBlockRef unless_fill(gpu *g, source outer, LLVMValueRef out, LLVMValueRef o0)
{
    if (outer.fill == NULL)
        return NULL;
    LLVMBasicBlockRef filled = block(g, "fill"), read = block(g, "read"), join = block(g, "join");
    LLVMBuildCondBr(g->b, outer.fill, filled, read);
    LLVMPositionBuilderAtEnd(g->b, filled);
    store(g, fill_value(g, CHUNK), out, o0, CHUNK);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, read);
    return join;
}

static void then_join(gpu *g, LLVMBasicBlockRef join)
{
    if (join != NULL) {
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
    }
}

/* A whole chunk of shifted lines (see period). */
static void line_chunk(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, const period *pd)
{
    const sg_plan *p = g->plan;
    LLVMValueRef q = udiv_k(g, o0, pd->row), w0 = LLVMBuildSub(g->b, o0, mul_k(g, q, pd->row), "");
    source outer = {k(g, p->base), NULL};
    if (p->nloops > pd->levels)
        outer = nest_offset(g, 0, p->nloops - 1 - pd->levels, q, outer.offset);
    /* Chunks that straddle two lines (and their fills), or whose blocks
     * could pass the input's end: piece by piece. */
    LLVMBasicBlockRef done = NULL, straddle = NULL;
    if (pd->shift < CHUNK) {
        LLVMBasicBlockRef inside = block(g, "line");
        straddle = block(g, "line.straddle");
        done = block(g, "line.done");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULE, w0, k(g, pd->row - CHUNK), ""), inside,
                        straddle);
        LLVMPositionBuilderAtEnd(g->b, straddle);
        pieces_chunk(g, in, out, o0, CHUNK / sg_gcd(p->run_bytes, CHUNK), false, (source){0}, NULL);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, inside);
    }
    LLVMBasicBlockRef join = unless_fill(g, outer, out, o0);
    period_chunk(g, in, out, o0, pd, outer, w0, straddle);
    then_join(g, join);
    then_join(g, done);
}

/* The chunk of a row by its window when its runs lie in runs [first,
 * first + runs) of the row (a segment's interior), else by pieces. */
static void segment_chunk(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, const window *w,
                          int64_t first, int64_t runs, source outer, LLVMValueRef w0)
{
    LLVMBasicBlockRef inside = block(g, "segment.window"), border = block(g, "segment.border"),
                      done = block(g, "segment.done");
    LLVMValueRef c0 = LLVMBuildSub(g->b, udiv_k(g, w0, w->r), k(g, first), "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULE, c0, k(g, runs - w->n), ""), inside, border);
    LLVMPositionBuilderAtEnd(g->b, inside);
    window_chunk(g, in, out, o0, w, outer, w0);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, border);
    pieces_chunk(g, in, out, o0, CHUNK / sg_gcd(g->plan->run_bytes, CHUNK), true, outer, w0);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Output bytes [o0, o0 + count * piece) (count pieces; a whole chunk unless
 * this is the last, partial one, which goes piece by piece). */
static void emit_chunk(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, int64_t count)
{
    const sg_plan *p = g->plan;
    window w;
    period pd;
    int64_t first, runs;
    if (count * sg_gcd(p->run_bytes, CHUNK) < CHUNK) {
        pieces_chunk(g, in, out, o0, count, false, (source){0}, NULL);
        return;
    }
    /* With one loop, every chunk lies in its one "row". */
    int64_t row = p->nloops ? p->loops[p->nloops - 1].extent * p->run_bytes : 0;
    if (p->nloops == 0 || (row % CHUNK != 0 && p->nloops > 1)) {
        /* A chunk may span rows. Rows of two loops (the three channels of a
         * pixel) may be periodic; else lines of the innermost loop or runs
         * may be shifted; else piece by piece. */
        if (plan_period(g, 2, &pd)) {
            source outer = {k(g, p->base), NULL};
            if (p->nloops > 2)
                outer = nest_offset(g, 0, p->nloops - 3, udiv_k(g, o0, pd.row), outer.offset);
            LLVMBasicBlockRef join = unless_fill(g, outer, out, o0);
            period_chunk(g, in, out, o0, &pd, outer, urem_k(g, o0, pd.row), NULL);
            then_join(g, join);
        } else if (plan_line(g, 1, &pd) || plan_line(g, 0, &pd)) {
            line_chunk(g, in, out, o0, &pd);
        } else {
            pieces_chunk(g, in, out, o0, count, false, (source){0}, NULL);
        }
        return;
    }
    /* The chunk lies in one iteration of the loops around the innermost:
     * by a window; else periodic; else the interior of a segment by a
     * window; else a shifted run; else piece by piece. */
    source outer = {k(g, p->base), NULL};
    if (p->nloops > 1)
        outer = nest_offset(g, 0, p->nloops - 2, udiv_k(g, o0, row), outer.offset);
    LLVMValueRef w0 = urem_k(g, o0, row);
    bool windowed = plan_window(g, &w), periodic = !windowed && plan_period(g, 1, &pd);
    bool segment = !windowed && !periodic && plan_segment_window(g, &w, &first, &runs);
    if (!windowed && !periodic && !segment) {
        if (plan_line(g, 0, &pd))
            line_chunk(g, in, out, o0, &pd);
        else
            pieces_chunk(g, in, out, o0, count, true, outer, w0);
        return;
    }
    LLVMBasicBlockRef join = unless_fill(g, outer, out, o0);
    if (windowed)
        window_chunk(g, in, out, o0, &w, outer, w0);
    else if (periodic)
        period_chunk(g, in, out, o0, &pd, outer, w0, NULL);
    else
        segment_chunk(g, in, out, o0, &w, first, runs, outer, w0);
    then_join(g, join);
}

/* ---- programs ---------------------------------------------------------------------- */

/* Element `e` (of type ity, inside the output) of a program: its output
 * coordinates, the part whose box holds them (a chain of box tests), and
 * from that part's first layer the input element it reads or the fill
 * value it writes. Each element costs a division and a remainder per
 * dimension by constants, and a comparison per part and dimension up to
 * its part. */
static void program_element(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef e, LLVMBasicBlockRef done)
{
    const sg_plan *p = g->plan;
    int64_t es = (int64_t)p->elem_size;
    LLVMValueRef y[SG_MAX_RANK], rest = e;
    for (size_t j = p->out_rank; j-- > 0;) {
        y[j] = urem_k(g, rest, p->out_shape[j]);
        rest = udiv_k(g, rest, p->out_shape[j]);
    }
    int64_t axis_stride[SG_MAX_RANK], stride = es;
    for (size_t a = p->in_rank; a-- > 0;) {
        axis_stride[a] = stride;
        stride *= p->in_shape[a] ? p->in_shape[a] : 1;
    }
    LLVMValueRef at_out = mul_k(g, e, es);
    for (size_t k_part = 0; k_part < p->nparts; k_part++) {
        const sg_part *part = &p->parts[k_part];
        const sg_plan *q = part->plan;
        LLVMValueRef inside = NULL;
        for (size_t j = 0; j < p->out_rank; j++) { /* y - box < n, unsigned */
            LLVMValueRef d = LLVMBuildSub(g->b, y[j], k(g, part->box[j]), "");
            LLVMValueRef ok = LLVMBuildICmp(g->b, LLVMIntULT, d, k(g, q->out_shape[j]), "");
            inside = inside ? LLVMBuildAnd(g->b, inside, ok, "") : ok;
        }
        LLVMBasicBlockRef here = block(g, "part"), next = block(g, "not_part");
        if (inside)
            LLVMBuildCondBr(g->b, inside, here, next);
        else
            LLVMBuildBr(g->b, here);
        LLVMPositionBuilderAtEnd(g->b, here);
        LLVMValueRef v;
        if (q->in_bytes == 0) { /* a fill part */
            uint64_t bits = 0;
            memcpy(&bits, q->fill, p->elem_size);
            v = LLVMConstInt(bytes_type(g, es), bits, 0);
        } else {
            int64_t base = 0;
            for (size_t f = 0; f < q->nfixed; f++)
                base += q->fixed[f].index * axis_stride[q->fixed[f].in_axis];
            LLVMValueRef offset = k(g, base);
            for (size_t j = 0; j < q->out_rank; j++) {
                const sg_axis_map *m = &q->map[j];
                if (m->in_axis < 0)
                    continue;
                LLVMValueRef d = LLVMBuildSub(g->b, y[j], k(g, part->box[j]), "");
                offset = add(g, offset, k(g, m->start * axis_stride[m->in_axis]));
                offset = add(g, offset, mul_k(g, d, m->step * axis_stride[m->in_axis]));
            }
            v = load(g, in, offset, es, es);
        }
        store(g, v, out, at_out, es);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, next);
    }
    LLVMBuildBr(g->b, done); /* no part: not reached, the parts tile the output */
}

/* A program's thread: the elements of its 16-byte chunk, one by one (a
 * loop, so that the code grows with the parts only). */
static void program_thread(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef tid,
                           LLVMBasicBlockRef done)
{
    const sg_plan *p = g->plan;
    int64_t per = CHUNK / (int64_t)p->elem_size, count = p->out_count;
    if (count == 0) {
        LLVMBuildBr(g->b, done);
        return;
    }
    LLVMValueRef first = mul_k(g, tid, per), last = add(g, first, k(g, per));
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(g->b), head = block(g, "element"),
                      next = block(g, "next_element");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, first, k(g, count), ""), head, done);
    LLVMPositionBuilderAtEnd(g->b, head);
    LLVMValueRef e = LLVMBuildPhi(g->b, g->ity, "e");
    program_element(g, in, out, e, next);
    LLVMPositionBuilderAtEnd(g->b, next);
    LLVMValueRef e2 = add(g, e, k(g, 1));
    LLVMValueRef more = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntULT, e2, last, ""),
                                     LLVMBuildICmp(g->b, LLVMIntULT, e2, k(g, count), ""), "");
    LLVMBuildCondBr(g->b, more, head, done);
    LLVMValueRef in_e[] = {first, e2};
    LLVMBasicBlockRef in_b[] = {entry, next};
    LLVMAddIncoming(e, in_e, in_b, 2);
}

/* Thread `tid` (of type ity): its chunk, then a branch to `done`. */
static void emit_thread(gpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef tid, LLVMBasicBlockRef done)
{
    const sg_plan *p = g->plan;
    if (p->op == SG_OP_PROGRAM) {
        program_thread(g, in, out, tid, done);
        return;
    }
    int64_t bytes = (int64_t)p->out_bytes, threads = (bytes + CHUNK - 1) / CHUNK;
    if (bytes == 0) {
        LLVMBuildBr(g->b, done);
        return;
    }
    LLVMBasicBlockRef whole = block(g, "chunk");
    int64_t whole_threads = bytes / CHUNK; /* threads [0, whole_threads) write 16 bytes */
    if (whole_threads == threads) {
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, tid, k(g, threads), ""), whole, done);
    } else {
        LLVMBasicBlockRef tail = block(g, "tail"), other = block(g, "not.whole");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, tid, k(g, whole_threads), ""), whole, other);
        LLVMPositionBuilderAtEnd(g->b, other);
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, tid, k(g, whole_threads), ""), tail, done);
        LLVMPositionBuilderAtEnd(g->b, tail);
        int64_t piece = sg_gcd(p->run_bytes, CHUNK);
        emit_chunk(g, in, out, k(g, whole_threads * CHUNK), (bytes % CHUNK) / piece);
        LLVMBuildBr(g->b, done);
    }
    LLVMPositionBuilderAtEnd(g->b, whole);
    emit_chunk(g, in, out, mul_k(g, tid, CHUNK), CHUNK / sg_gcd(p->run_bytes, CHUNK));
    LLVMBuildBr(g->b, done);
}

/* ---- functions ------------------------------------------------------------------- */

static int64_t input_alignment(const sg_plan *p)
{
    int64_t a = align_of(p->base, CHUNK);
    for (size_t i = 0; i < p->nloops; i++) {
        const sg_loop *l = &p->loops[i];
        if (l->nseg == 0)
            a = sg_gcd(a, align_of(l->in_stride, CHUNK));
        for (size_t s = l->seg0; s < l->seg0 + l->nseg; s++)
            if (!p->segs[s].fill)
                a = sg_gcd(
                    a, sg_gcd(align_of(p->segs[s].in_offset, CHUNK), align_of(p->segs[s].in_step, CHUNK)));
    }
    return a;
}

/* An attribute this LLVM knows ("nocapture" is gone from LLVM 21 on). */
static void add_attr(gpu *g, LLVMAttributeIndex index, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    if (kind != 0)
        LLVMAddAttributeAtIndex(g->fn, index, LLVMCreateEnumAttribute(g->c, kind, 0));
}

/* NVPTX: the kernel entry (ptx_kernel), thread index from the special registers. */
static void emit_entry(gpu *g, const char *symbol)
{
    LLVMTypeRef params[] = {g->ptr, g->ptr};
    g->fn = LLVMAddFunction(g->m, symbol, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, 2, 0));
    LLVMSetFunctionCallConv(g->fn, LLVMPTXKernelCallConv);
    LLVMPositionBuilderAtEnd(g->b, block(g, "entry"));
    LLVMTypeRef sreg = LLVMFunctionType(g->i32, NULL, 0, 0);
    LLVMValueRef ctaid = LLVMGetNamedFunction(g->m, "llvm.nvvm.read.ptx.sreg.ctaid.x");
    LLVMValueRef tidx = LLVMGetNamedFunction(g->m, "llvm.nvvm.read.ptx.sreg.tid.x");
    if (ctaid == NULL)
        ctaid = LLVMAddFunction(g->m, "llvm.nvvm.read.ptx.sreg.ctaid.x", sreg);
    if (tidx == NULL)
        tidx = LLVMAddFunction(g->m, "llvm.nvvm.read.ptx.sreg.tid.x", sreg);
    LLVMValueRef block_id = LLVMBuildCall2(g->b, sreg, ctaid, NULL, 0, "");
    LLVMValueRef thread = LLVMBuildCall2(g->b, sreg, tidx, NULL, 0, "");
    block_id = LLVMBuildZExt(g->b, block_id, g->ity, "");
    thread = LLVMBuildZExt(g->b, thread, g->ity, "");
    LLVMValueRef tid = add(g, mul_k(g, block_id, SG_GPU_BLOCK), thread);
    LLVMBasicBlockRef done = block(g, "done");
    emit_thread(g, LLVMGetParam(g->fn, 0), LLVMGetParam(g->fn, 1), tid, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMBuildRetVoid(g->b);
}

/* The host: fn(in, out, begin, end) runs threads [begin, end) in turn. */
static void emit_emulation(gpu *g, const char *symbol)
{
    LLVMTypeRef params[] = {g->ptr, g->ptr, g->i64, g->i64};
    g->fn = LLVMAddFunction(g->m, symbol, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, 4, 0));
    LLVMBasicBlockRef entry = block(g, "entry"), head = block(g, "thread"), next = block(g, "next"),
                      done = block(g, "done");
    LLVMPositionBuilderAtEnd(g->b, entry);
    LLVMValueRef begin = LLVMGetParam(g->fn, 2), end = LLVMGetParam(g->fn, 3);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, begin, end, ""), head, done);
    LLVMPositionBuilderAtEnd(g->b, head);
    LLVMValueRef t = LLVMBuildPhi(g->b, g->i64, "t");
    LLVMValueRef tid = g->ity == g->i64 ? t : LLVMBuildTrunc(g->b, t, g->ity, "");
    emit_thread(g, LLVMGetParam(g->fn, 0), LLVMGetParam(g->fn, 1), tid, next);
    LLVMPositionBuilderAtEnd(g->b, next);
    LLVMValueRef t2 = LLVMBuildAdd(g->b, t, LLVMConstInt(g->i64, 1, 0), "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, t2, end, ""), head, done);
    LLVMValueRef in_t[] = {begin, t2};
    LLVMBasicBlockRef in_b[] = {entry, next};
    LLVMAddIncoming(t, in_t, in_b, 2);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMBuildRetVoid(g->b);
}

sg_status sg_gpu_add_kernel(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                            sg_error *err)
{
    sg_gpu_launch launch;
    if (sg_gpu_launch_of(plan, &launch, err) != SG_OK)
        return err->status;
    LLVMContextRef c = LLVMGetModuleContext(m);
    gpu g = {.plan = plan, .c = c, .m = m, .as = sg_target_is_gpu(t) ? 1 : 0, .align = input_alignment(plan)};
    g.b = LLVMCreateBuilderInContext(c);
    g.i1 = LLVMInt1TypeInContext(c);
    g.i8 = LLVMInt8TypeInContext(c);
    g.i32 = LLVMInt32TypeInContext(c);
    g.i64 = LLVMInt64TypeInContext(c);
    bool small = plan->out_bytes <= INT32_MAX && plan->in_bytes <= INT32_MAX;
    g.ity = small ? g.i32 : g.i64;
    g.ptr = sg_ir_ptr_type(c, g.as);
    for (size_t i = 0; i < plan->nloops; i++) {
        if (plan->loops[i].nseg > MAX_SELECT_SEGS && (g.table[i] = segment_table(&g, i)) == NULL) {
            LLVMDisposeBuilder(g.b);
            return sg_fail(err, SG_ERR_NOMEM, "failed to compile GPU kernel: out of memory for %zu segments",
                           plan->loops[i].nseg);
        }
    }
    if (g.as == 1)
        emit_entry(&g, symbol);
    else
        emit_emulation(&g, symbol);
    for (unsigned i = 1; i <= 2; i++) {
        add_attr(&g, i, "noalias");
        add_attr(&g, i, "nocapture");
        add_attr(&g, i, i == 1 ? "readonly" : "writeonly");
    }
    add_attr(&g, LLVMAttributeFunctionIndex, "nounwind");
    LLVMDisposeBuilder(g.b);
    return SG_OK;
}

/* ---- launch geometry, GPU names, PTX ----------------------------------------------- */

/* The geometry of an output of out_bytes; `what` is the failing step's words. */
static sg_status launch_geometry(uint64_t out_bytes, const char *what, sg_gpu_launch *launch, sg_error *err)
{
    int64_t threads = (int64_t)((out_bytes + CHUNK - 1) / CHUNK);
    int64_t grid = (threads + SG_GPU_BLOCK - 1) / SG_GPU_BLOCK;
    if (grid > INT32_MAX)
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to %s GPU kernel: the output of %" PRIu64 " bytes needs %" PRId64
                       " blocks (at most 2147483647)",
                       what, out_bytes, grid);
    *launch = (sg_gpu_launch){.threads = threads, .grid_x = (uint32_t)grid, .block_x = SG_GPU_BLOCK};
    return SG_OK;
}

sg_status sg_gpu_launch_of(const sg_plan *plan, sg_gpu_launch *launch, sg_error *err)
{
    return launch_geometry(plan->out_bytes, "compile", launch, err);
}

sg_status sg_gpu_launch_for(uint64_t out_bytes, sg_gpu_launch *launch, sg_error *err)
{
    return launch_geometry(out_bytes, "launch", launch, err);
}

/* The GPUs this LLVM's NVPTX backend knows, oldest first (from sm_30). */
static const int known_gpus[] = {
    30,  32,  35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86,
#if LLVM_VERSION_MAJOR >= 16
    87,  89,  90,
#endif
#if LLVM_VERSION_MAJOR >= 20
    100, 120,
#endif
};

const char *sg_gpu_cpu_for(int major, int minor)
{
    static const char *const names[] = {"sm_30", "sm_32", "sm_35", "sm_37", "sm_50",  "sm_52", "sm_53",
                                        "sm_60", "sm_61", "sm_62", "sm_70", "sm_72",  "sm_75", "sm_80",
                                        "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_120"};
    const char *best = NULL;
    for (size_t i = 0; i < sizeof known_gpus / sizeof known_gpus[0]; i++)
        if (known_gpus[i] <= 10 * major + minor)
            best = names[i];
    return best;
}

static bool known_gpu(const char *cpu)
{
    for (size_t i = 0; i < sizeof known_gpus / sizeof known_gpus[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "sm_%d", known_gpus[i]);
        if (strcmp(cpu, name) == 0)
            return true;
    }
    return false;
}

sg_status sg_codegen_ptx(const sg_plan *plan, const char *symbol, const char *cpu, int opt_level, char **ptx,
                         sg_error *err)
{
    sg_target t = {0};
    LLVMTargetMachineRef tm = NULL;
    LLVMContextRef c = NULL;
    LLVMModuleRef m = NULL;
    LLVMMemoryBufferRef buffer = NULL;
    char *message = NULL;
    cpu = cpu ? cpu : SG_GPU_DEFAULT_CPU;
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile GPU kernel: optimization level %d (0..3)",
                       opt_level);
    if (!known_gpu(cpu))
        return sg_fail(err, SG_ERR_USAGE, "failed to compile GPU kernel: LLVM %s does not know GPU '%s'",
                       LLVM_VERSION_STRING, cpu);
    if (sg_target_init(&t, SG_GPU_TRIPLE, cpu, NULL, err) != SG_OK ||
        sg_target_machine(&t, opt_level, &tm, err) != SG_OK)
        goto done;
    c = LLVMContextCreate();
    if (sg_codegen_module(plan, symbol, &t, tm, c, &m, err) != SG_OK ||
        sg_codegen_optimize(m, tm, opt_level, err) != SG_OK)
        goto done;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &message, &buffer)) {
        sg_fail(err, SG_ERR_INTERNAL, "failed to generate PTX for kernel %s: %s", symbol, message);
        goto done;
    }
    size_t size = LLVMGetBufferSize(buffer);
    if ((*ptx = malloc(size + 1)) == NULL) {
        sg_fail(err, SG_ERR_NOMEM, "failed to generate PTX: out of memory for %zu bytes", size);
        goto done;
    }
    memcpy(*ptx, LLVMGetBufferStart(buffer), size);
    (*ptx)[size] = '\0';
done:
    LLVMDisposeMessage(message);
    if (buffer)
        LLVMDisposeMemoryBuffer(buffer);
    sg_target_release(&t, tm, c, m);
    return err->status;
}

/* GPU kernels of runtime values (codegen.h, "GPU kernels"): the loop nest
 * of a symbolic plan (planner.h, sg_sym) as one 16-byte chunk of output
 * per thread, each number that is not a constant read from the call's
 * slicegen_args, which the host's prologue fills (sg_plan_prepare, or the
 * header's NAME_prepare) and the launch passes by value.
 *
 * Thread t owns output bytes [o, o + 16), o = 16 t, below the call's
 * output size. The output is dense in the nest's order, so o lies in run
 * q = o / run at byte r = o % run, and q splits into the loop indices
 * innermost first (i = q % extent, q /= extent: runtime divisions, once
 * per thread). The chunk is then
 *
 *   - one 16-byte copy when it lies inside one run (r + 16 <= run: the
 *     crops and row copies, as `[:, :, :t]` of a KV cache), or, in a
 *     border mode's nest, inside the interior of one row of the innermost
 *     mapped loop with a step of 1 (where every mode reads x itself);
 *   - else element by element: each element's input offset from the
 *     indices (affine loops: index * stride; mapped loops: the mode's
 *     index of start + index * step, sg_ir_mode_index, or the fill value),
 *     the indices advanced with carries by selects, the elements gathered
 *     into one 16-byte store (the last thread of an output that is not a
 *     multiple of 16 bytes stores element by element).
 *
 * Index arithmetic is 64-bit. Loads carry the element's alignment, the
 * chunk's store 16 bytes' (outputs are SG_GPU_ALIGN-aligned), as four
 * 32-bit lanes whatever the element (sg_ir_chunk_lanes). */
#define SG_CODEGEN_INTERNAL
#include <string.h>

#include "codegen.h"
#include "ir.h"

enum { CHUNK = SG_GPU_CHUNK };

typedef struct vgpu {
    const sg_plan *plan;
    const sg_sym *sym;
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMValueRef args; /* an i8 pointer (address space 0) to the call's slots */
    unsigned as;       /* address space of the tensors: 1 (global) on NVPTX, 0 emulated */
    LLVMTypeRef i1, i8, i64, elem_type, ptr;
    int64_t elem, count; /* bytes per element; elements per chunk */
    bool mapped;
    size_t nloops;
    /* the call's numbers, read once per thread */
    LLVMValueRef out_bytes, base, run, fill;
    LLVMValueRef extent[SG_MAX_RANK], stride[SG_MAX_RANK];
    LLVMValueRef start[SG_MAX_RANK], step[SG_MAX_RANK], dim[SG_MAX_RANK];
    LLVMValueRef interior[2];
} vgpu;

static LLVMValueRef k(vgpu *g, int64_t v)
{
    return LLVMConstInt(g->i64, (unsigned long long)v, 1);
}

static LLVMValueRef add(vgpu *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAdd(g->b, a, b, "");
}

static LLVMValueRef mul(vgpu *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildMul(g->b, a, b, "");
}

static LLVMValueRef cmp(vgpu *g, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildICmp(g->b, p, a, b, "");
}

static LLVMBasicBlockRef block(vgpu *g, const char *name)
{
    return sg_ir_block(g->c, g->fn, name);
}

/* Number v of the plan, kept in args slot `slot`: the constant itself, or
 * the call's value. */
static LLVMValueRef num(vgpu *g, sg_val v, size_t slot)
{
    if (sg_is_const(v))
        return k(g, v.k);
    LLVMValueRef offset = k(g, 8 * (int64_t)slot);
    LLVMValueRef p = sg_ir_typed(g->b, LLVMBuildGEP2(g->b, g->i8, g->args, &offset, 1, ""), g->i64, 0);
    LLVMValueRef x = LLVMBuildLoad2(g->b, g->i64, p, "");
    LLVMSetAlignment(x, 8);
    return x;
}

static void read_numbers(vgpu *g)
{
    const sg_sym *s = g->sym;
    g->out_bytes = num(g, s->out_bytes, SG_ARG_OUTPUT_BYTES);
    g->base = num(g, s->base, SG_ARG_BASE);
    g->run = num(g, s->run_bytes, SG_ARG_RUN_BYTES);
    for (size_t i = 0; i < g->nloops; i++) {
        size_t at = SG_ARG_LOOPS + SG_LOOP_SLOTS * i;
        g->extent[i] = num(g, s->extent[i], at + SG_LOOP_EXTENT);
        g->stride[i] = num(g, s->in_stride[i], at + SG_LOOP_IN_STRIDE);
        if (g->mapped) {
            g->start[i] = num(g, s->map_start[i], at + SG_LOOP_START);
            g->step[i] = num(g, s->map_step[i], at + SG_LOOP_STEP);
            g->dim[i] = num(g, s->map_dim[i], at + SG_LOOP_DIM);
        }
    }
    if (g->mapped && g->nloops > 0) {
        g->interior[0] = num(g, s->interior[0], SG_ARG_INTERIOR);
        g->interior[1] = num(g, s->interior[1], SG_ARG_INTERIOR + 1);
    }
    g->fill = NULL;
    if (g->plan->mode == SG_TRT_FILL) {
        uint64_t bits = 0;
        memcpy(&bits, g->plan->fill, sizeof bits); /* little-endian hosts and GPUs */
        LLVMValueRef v = sg_is_const(s->fill) ? LLVMConstInt(g->i64, bits, 0) : num(g, s->fill, SG_ARG_FILL);
        g->fill = LLVMBuildTrunc(g->b, v, g->elem_type, "");
    }
}

static LLVMValueRef at(vgpu *g, LLVMValueRef base, LLVMValueRef offset)
{
    return LLVMBuildGEP2(g->b, g->i8, base, &offset, 1, "");
}

static LLVMValueRef load(vgpu *g, LLVMValueRef in, LLVMValueRef offset, LLVMTypeRef type, unsigned align)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, type, sg_ir_typed(g->b, at(g, in, offset), type, g->as), "");
    LLVMSetAlignment(v, align);
    return v;
}

static void store(vgpu *g, LLVMValueRef v, LLVMValueRef out, LLVMValueRef offset, unsigned align)
{
    LLVMValueRef s = LLVMBuildStore(g->b, v, sg_ir_typed(g->b, at(g, out, offset), LLVMTypeOf(v), g->as));
    LLVMSetAlignment(s, align);
}

/* What loop `level` adds to the input offset at index i; for FILL, *fill
 * (NULL: never) or'ed with whether its coordinate reads the fill value. */
static LLVMValueRef level_offset(vgpu *g, size_t level, LLVMValueRef i, LLVMValueRef *fill)
{
    if (!g->mapped)
        return mul(g, i, g->stride[level]);
    LLVMValueRef inside = NULL;
    LLVMValueRef x = add(g, g->start[level], mul(g, i, g->step[level]));
    LLVMValueRef index = sg_ir_mode_index(g->b, g->plan->mode, x, g->dim[level], &inside);
    if (inside != NULL) { /* FILL: an index outside reads nothing */
        LLVMValueRef outside = LLVMBuildNot(g->b, inside, "");
        *fill = *fill ? LLVMBuildOr(g->b, *fill, outside, "") : outside;
        index = LLVMBuildSelect(g->b, inside, index, k(g, 0), "");
    }
    return mul(g, index, g->stride[level]);
}

/* The input offset of the element at loop indices i and byte r of its run. */
static LLVMValueRef element_offset(vgpu *g, LLVMValueRef *i, LLVMValueRef r, LLVMValueRef *fill)
{
    LLVMValueRef offset = add(g, g->base, r);
    *fill = NULL;
    for (size_t l = 0; l < g->nloops; l++)
        offset = add(g, offset, level_offset(g, l, i[l], fill));
    return offset;
}

/* The element at indices i, byte r: loaded, or the fill value where it is one. */
static LLVMValueRef element(vgpu *g, LLVMValueRef in, LLVMValueRef *i, LLVMValueRef r)
{
    LLVMValueRef fill = NULL, offset = element_offset(g, i, r, &fill);
    if (fill == NULL)
        return load(g, in, offset, g->elem_type, (unsigned)g->elem);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b), read = block(g, "read"), join = block(g, "element");
    LLVMBuildCondBr(g->b, fill, join, read);
    LLVMPositionBuilderAtEnd(g->b, read);
    LLVMValueRef v = load(g, in, offset, g->elem_type, (unsigned)g->elem);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
    LLVMValueRef phi = LLVMBuildPhi(g->b, g->elem_type, "");
    LLVMValueRef values[2] = {g->fill, v};
    LLVMBasicBlockRef blocks[2] = {from, read};
    LLVMAddIncoming(phi, values, blocks, 2);
    return phi;
}

/* The next element: r one element on, carried into the indices. */
static void advance(vgpu *g, LLVMValueRef *i, LLVMValueRef *r)
{
    LLVMValueRef next = add(g, *r, k(g, g->elem));
    LLVMValueRef wrap = cmp(g, LLVMIntEQ, next, g->run);
    *r = LLVMBuildSelect(g->b, wrap, k(g, 0), next, "");
    for (size_t l = g->nloops; l-- > 1;) {
        LLVMValueRef t = add(g, i[l], LLVMBuildZExt(g->b, wrap, g->i64, ""));
        wrap = cmp(g, LLVMIntEQ, t, g->extent[l]);
        i[l] = LLVMBuildSelect(g->b, wrap, k(g, 0), t, "");
    }
    if (g->nloops > 0)
        i[0] = add(g, i[0], LLVMBuildZExt(g->b, wrap, g->i64, ""));
}

/* The chunk at output offset o0 element by element, from indices i and
 * byte r: `whole`, all count elements and one 16-byte store; else the
 * elements below `left` bytes, each stored; then a branch to done. */
static void elements_chunk(vgpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, const LLVMValueRef *i0,
                           LLVMValueRef r, bool whole, LLVMValueRef left, LLVMBasicBlockRef done)
{
    LLVMValueRef i[SG_MAX_RANK];
    memcpy(i, i0, g->nloops * sizeof *i);
    LLVMValueRef values[CHUNK];
    for (int64_t j = 0; j < g->count; j++) {
        if (!whole && j > 0) {
            LLVMBasicBlockRef more = block(g, "more");
            LLVMBuildCondBr(g->b, cmp(g, LLVMIntSLT, k(g, j * g->elem), left), more, done);
            LLVMPositionBuilderAtEnd(g->b, more);
        }
        LLVMValueRef v = element(g, in, i, r);
        if (whole)
            values[j] = v;
        else
            store(g, v, out, add(g, o0, k(g, j * g->elem)), (unsigned)g->elem);
        if (j + 1 < g->count)
            advance(g, i, &r);
    }
    if (whole)
        store(g, sg_ir_chunk_lanes(g->b, g->c, values, g->elem), out, o0, CHUNK);
    LLVMBuildBr(g->b, done);
}

/* The chunk copied whole from input offset `from`. */
static void copy_chunk(vgpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef o0, LLVMValueRef from,
                       LLVMBasicBlockRef done)
{
    LLVMTypeRef lanes = LLVMVectorType(LLVMInt32TypeInContext(g->c), 4); /* one 16-byte store (ir.h) */
    store(g, load(g, in, from, lanes, (unsigned)g->elem), out, o0, CHUNK);
    LLVMBuildBr(g->b, done);
}

/* Whether a whole chunk at indices i, byte r is one copy, and from where:
 * inside one run; or, in a mapped nest, inside the interior of one row of
 * the innermost loop, whose step is 1 (every mode reads its coordinate
 * there) over input elements one after another (a stride of one element:
 * not a chain's loop over an outer axis or a strided window), and no
 * outer coordinate reads the fill value. NULL: never. */
static LLVMValueRef copyable(vgpu *g, const LLVMValueRef *i, LLVMValueRef r, LLVMValueRef *from)
{
    if (!g->mapped) {
        if (sg_is_const(g->sym->run_bytes) && g->sym->run_bytes.k < CHUNK)
            return NULL;
        LLVMValueRef fill = NULL;
        *from = element_offset(g, (LLVMValueRef *)i, r, &fill);
        return cmp(g, LLVMIntULE, add(g, r, k(g, CHUNK)), g->run);
    }
    if (g->nloops == 0)
        return NULL;
    size_t last = g->nloops - 1;
    const sg_sym *s = g->sym;
    if ((sg_is_const(s->map_step[last]) && s->map_step[last].k != 1) ||
        (sg_is_const(s->in_stride[last]) && s->in_stride[last].k != g->elem))
        return NULL;
    LLVMValueRef fill = NULL, offset = g->base;
    for (size_t l = 0; l < last; l++)
        offset = add(g, offset, level_offset(g, l, i[l], &fill));
    LLVMValueRef x = add(g, g->start[last], i[last]);
    *from = add(g, offset, mul(g, x, g->stride[last]));
    LLVMValueRef ok = LLVMBuildAnd(g->b, cmp(g, LLVMIntSGE, i[last], g->interior[0]),
                                   cmp(g, LLVMIntSLE, add(g, i[last], k(g, g->count)), g->interior[1]), "");
    if (!sg_is_const(s->map_step[last]))
        ok = LLVMBuildAnd(g->b, ok, cmp(g, LLVMIntEQ, g->step[last], k(g, 1)), "");
    if (!sg_is_const(s->in_stride[last]))
        ok = LLVMBuildAnd(g->b, ok, cmp(g, LLVMIntEQ, g->stride[last], k(g, g->elem)), "");
    if (fill != NULL)
        ok = LLVMBuildAnd(g->b, ok, LLVMBuildNot(g->b, fill, ""), "");
    return ok;
}

/* Thread `tid` (i64): its chunk, then a branch to `done`. */
static void emit_thread(vgpu *g, LLVMValueRef in, LLVMValueRef out, LLVMValueRef tid, LLVMBasicBlockRef done)
{
    read_numbers(g);
    LLVMValueRef o0 = mul(g, tid, k(g, CHUNK));
    LLVMBasicBlockRef work = block(g, "chunk");
    LLVMBuildCondBr(g->b, cmp(g, LLVMIntSLT, o0, g->out_bytes), work, done);
    LLVMPositionBuilderAtEnd(g->b, work);
    /* the run and the loop indices of the chunk's first element (every
     * divisor is at least 1 where the output is not empty) */
    LLVMValueRef q = LLVMBuildUDiv(g->b, o0, g->run, ""), r = LLVMBuildURem(g->b, o0, g->run, "");
    LLVMValueRef i[SG_MAX_RANK];
    for (size_t l = g->nloops; l-- > 1;) {
        i[l] = LLVMBuildURem(g->b, q, g->extent[l], "");
        q = LLVMBuildUDiv(g->b, q, g->extent[l], "");
    }
    if (g->nloops > 0)
        i[0] = q;
    LLVMValueRef left = LLVMBuildSub(g->b, g->out_bytes, o0, "");
    LLVMBasicBlockRef whole = block(g, "whole"), tail = block(g, "tail");
    LLVMBuildCondBr(g->b, cmp(g, LLVMIntSGE, left, k(g, CHUNK)), whole, tail);

    LLVMPositionBuilderAtEnd(g->b, whole);
    LLVMValueRef from = NULL, copy = copyable(g, i, r, &from);
    if (copy != NULL) {
        LLVMBasicBlockRef one = block(g, "copy"), each = block(g, "elements");
        LLVMBuildCondBr(g->b, copy, one, each);
        LLVMPositionBuilderAtEnd(g->b, one);
        copy_chunk(g, in, out, o0, from, done);
        LLVMPositionBuilderAtEnd(g->b, each);
    }
    elements_chunk(g, in, out, o0, i, r, true, left, done);

    LLVMPositionBuilderAtEnd(g->b, tail);
    elements_chunk(g, in, out, o0, i, r, false, left, done);
}

static void add_attr(vgpu *g, LLVMAttributeIndex index, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    if (kind != 0)
        LLVMAddAttributeAtIndex(g->fn, index, LLVMCreateEnumAttribute(g->c, kind, 0));
}

/* The slots, as the type of the by-value kernel parameter. */
static LLVMTypeRef args_type(vgpu *g)
{
    return LLVMArrayType(g->i64, SG_ARG_COUNT);
}

/* NVPTX: NAME(in, out, args) with args by value (the .param space), the
 * thread index from the special registers. */
static void emit_entry(vgpu *g, const char *symbol)
{
    LLVMTypeRef slots = args_type(g);
#if LLVM_VERSION_MAJOR < 15
    LLVMTypeRef args_ptr = LLVMPointerType(slots, 0);
#else
    LLVMTypeRef args_ptr = sg_ir_ptr_type(g->c, 0);
#endif
    LLVMTypeRef params[] = {g->ptr, g->ptr, args_ptr};
    g->fn = LLVMAddFunction(g->m, symbol, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, 3, 0));
    LLVMSetFunctionCallConv(g->fn, LLVMPTXKernelCallConv);
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    LLVMAddAttributeAtIndex(g->fn, 3, LLVMCreateTypeAttribute(g->c, byval, slots));
    unsigned align = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMAddAttributeAtIndex(g->fn, 3, LLVMCreateEnumAttribute(g->c, align, 8));
    LLVMPositionBuilderAtEnd(g->b, block(g, "entry"));
    g->args = sg_ir_typed(g->b, LLVMGetParam(g->fn, 2), g->i8, 0);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g->c), sreg = LLVMFunctionType(i32, NULL, 0, 0);
    LLVMValueRef ctaid = LLVMGetNamedFunction(g->m, "llvm.nvvm.read.ptx.sreg.ctaid.x");
    LLVMValueRef tidx = LLVMGetNamedFunction(g->m, "llvm.nvvm.read.ptx.sreg.tid.x");
    if (ctaid == NULL)
        ctaid = LLVMAddFunction(g->m, "llvm.nvvm.read.ptx.sreg.ctaid.x", sreg);
    if (tidx == NULL)
        tidx = LLVMAddFunction(g->m, "llvm.nvvm.read.ptx.sreg.tid.x", sreg);
    LLVMValueRef block_id = LLVMBuildZExt(g->b, LLVMBuildCall2(g->b, sreg, ctaid, NULL, 0, ""), g->i64, "");
    LLVMValueRef thread = LLVMBuildZExt(g->b, LLVMBuildCall2(g->b, sreg, tidx, NULL, 0, ""), g->i64, "");
    LLVMValueRef tid = add(g, mul(g, block_id, k(g, SG_GPU_BLOCK)), thread);
    LLVMBasicBlockRef done = block(g, "done");
    emit_thread(g, LLVMGetParam(g->fn, 0), LLVMGetParam(g->fn, 1), tid, done);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMBuildRetVoid(g->b);
}

/* The host: fn(in, out, args, begin, end) runs threads [begin, end) in turn. */
static void emit_emulation(vgpu *g, const char *symbol)
{
    LLVMTypeRef params[] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64};
    g->fn = LLVMAddFunction(g->m, symbol, LLVMFunctionType(LLVMVoidTypeInContext(g->c), params, 5, 0));
    LLVMBasicBlockRef entry = block(g, "entry"), head = block(g, "thread"), next = block(g, "next"),
                      done = block(g, "done");
    LLVMPositionBuilderAtEnd(g->b, entry);
    g->args = LLVMGetParam(g->fn, 2);
    LLVMValueRef begin = LLVMGetParam(g->fn, 3), end = LLVMGetParam(g->fn, 4);
    LLVMBuildCondBr(g->b, cmp(g, LLVMIntSLT, begin, end), head, done);
    LLVMPositionBuilderAtEnd(g->b, head);
    LLVMValueRef t = LLVMBuildPhi(g->b, g->i64, "t");
    emit_thread(g, LLVMGetParam(g->fn, 0), LLVMGetParam(g->fn, 1), t, next);
    LLVMPositionBuilderAtEnd(g->b, next);
    LLVMValueRef t2 = add(g, t, k(g, 1));
    LLVMBuildCondBr(g->b, cmp(g, LLVMIntSLT, t2, end), head, done);
    LLVMValueRef in_t[] = {begin, t2};
    LLVMBasicBlockRef in_b[] = {entry, next};
    LLVMAddIncoming(t, in_t, in_b, 2);
    LLVMPositionBuilderAtEnd(g->b, done);
    LLVMBuildRetVoid(g->b);
    add_attr(g, 3, "readonly");
    add_attr(g, 3, "nocapture");
}

sg_status sg_gpu_add_values_kernel(const sg_plan *plan, const char *symbol, const sg_target *t,
                                   LLVMModuleRef m, sg_error *err)
{
    if (plan->op == SG_OP_PROGRAM || plan->elem_size == 0 || CHUNK % plan->elem_size != 0)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to compile GPU kernel %s: a program's or an element of %zu bytes takes no "
                       "runtime values on GPUs",
                       symbol, plan->elem_size);
    LLVMContextRef c = LLVMGetModuleContext(m);
    vgpu g = {.plan = plan, .sym = plan->sym, .c = c, .m = m, .as = sg_target_is_gpu(t) ? 1 : 0};
    g.b = LLVMCreateBuilderInContext(c);
    g.i1 = LLVMInt1TypeInContext(c);
    g.i8 = LLVMInt8TypeInContext(c);
    g.i64 = LLVMInt64TypeInContext(c);
    g.elem = (int64_t)plan->elem_size;
    g.count = CHUNK / g.elem;
    g.elem_type = LLVMIntTypeInContext(c, (unsigned)(8 * g.elem));
    g.ptr = sg_ir_ptr_type(c, g.as);
    g.mapped = plan->sym->mapped;
    g.nloops = plan->nloops;
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

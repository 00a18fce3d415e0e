/* IR emission: one function per plan, every number of the folded nest a
 * constant (see codegen.h for the shape of the code). The IR is meant to be
 * good as emitted, at -O0: phis instead of allocas, pointer induction
 * variables, vector code written out rather than left to the vectorizer. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>

#include "emit.h"

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

/* A number of the nest as an i64: the constant, or slot `slot` of args loaded. */
static LLVMValueRef number64(gen *g, LLVMValueRef args, sg_val v, int slot)
{
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->c);
    if (sg_is_const(v))
        return LLVMConstInt(i64, (unsigned long long)v.k, 1);
    if (g->part_k >= 0) /* a concatenate's part: its numbers where the program keeps them */
        slot = (int)sg_sym_part_slot(g->plan_of_parts, (size_t)g->part_k, slot);
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
    g->fill_bits = s && p->mode == SG_TRT_FILL && !sg_is_const(s->fill) ? number64(g, args, s->fill, SG_ARG_FILL)
                                                                       : NULL;
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
    sg_emit_copy_bytes(g, gep(g, in, from), gep(g, out, from), sub(g, to, from));
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* A symbolic plan's nest over steps [begin, end) of its outer range. */
static void emit_symbolic(gen *g, LLVMValueRef args, LLVMValueRef in, LLVMValueRef out, LLVMValueRef begin,
                          LLVMValueRef end)
{
    const sg_plan *p = g->plan;
    int64_t stride;
    if (p->nloops == 0) {
        emit_pieces(g, in, out, begin, end, SG_RUN_PIECE,
                    number(g, args, p->sym->outer_extent, SG_ARG_OUTER_EXTENT), g->run);
    } else if (sg_is_const(p->sym->collapse) && p->sym->collapse.k == 0) {
        sg_emit_level(g, 0, in, out, begin, end);
    } else if (!is_const(g->in_stride[0], &stride) || stride >= 0) {
        /* the outer range per call: the outermost loop, or the two
         * outermost together; one nest for both, iterations [begin, end)
         * of the outermost being steps [begin N, end N) of the two (N the
         * extent of the second) */
        LLVMValueRef two = LLVMBuildICmp(g->b, LLVMIntNE, number(g, args, p->sym->collapse, SG_ARG_COLLAPSE),
                                         ci(g, 0), "");
        LLVMValueRef n = g->extent[1];
        sg_emit_collapsed(g, 0, 1, in, out, LLVMBuildSelect(g->b, two, begin, mul(g, begin, n), ""),
                          LLVMBuildSelect(g->b, two, end, mul(g, end, n), ""));
    } else { /* rows reversed: the outermost loop walked backwards when it is the outer range */
        LLVMValueRef two = number(g, args, p->sym->collapse, SG_ARG_COLLAPSE);
        LLVMBasicBlockRef both = block(g, "collapsed"), one = block(g, "outermost"),
                          done = block(g, "nest_done");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, two, ci(g, 0), ""), both, one);
        LLVMPositionBuilderAtEnd(g->b, both);
        sg_emit_collapsed(g, 0, 1, in, out, begin, end);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, one);
        sg_emit_level(g, 0, in, out, begin, end);
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
            LLVMBuildICmp(
                g->b, LLVMIntSGE, run,
                LLVMConstInt(LLVMTypeOf(run), (unsigned long long)sg_codegen_stream_min_run(p, t), 1), ""),
            "");
        if (sg_codegen_stream_whole_rows(p, t) && p->nloops > 0) {
            /* the innermost row's pieces (borders, interior, the row: counts of runs) whole nt_min
             * units (nt_min a power of two: their bytes' bits below it, or'ed, are 0) */
            LLVMValueRef bytes_mask = ci(g, t->nt_min_bytes - 1);
            LLVMValueRef ends = LLVMBuildOr(
                g->b,
                LLVMBuildOr(g->b, mul(g, g->interior[0], g->run), mul(g, g->interior[1], g->run), ""),
                mul(g, g->extent[p->nloops - 1], g->run), "");
            LLVMValueRef whole = LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildAnd(g->b, ends, bytes_mask, ""),
                                               ci(g, 0), "");
            large = LLVMBuildAnd(g->b, large, whole, "");
        }
        LLVMBasicBlockRef streamed = block(g, "streamed"), cached = block(g, "cached"),
                          done = block(g, "called");
        LLVMBuildCondBr(g->b, large, streamed, cached);
        LLVMPositionBuilderAtEnd(g->b, streamed);
        g->stores = &sg_stores_streaming;
        g->long_runs = true;
        emit_symbolic(g, args, in, out, begin, end);
        g->long_runs = false;
        g->stores->finish(g, t);
        LLVMBuildBr(g->b, done);
        LLVMPositionBuilderAtEnd(g->b, cached);
        g->stores = &sg_stores_cached;
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
            sg_emit_level(g, 0, in, out, begin, end);
            LLVMBuildBr(g->b, done);
            LLVMPositionBuilderAtEnd(g->b, done);
        } else {
            emit_pieces(g, in, out, begin, end, outer.step_bytes, ci(g, outer.extent),
                        ci(g, (int64_t)p->out_bytes));
        }
    } else if (p->out_count > 0) {
        sg_emit_choose_tables(g);
        sg_emit_collapsed(g, 0, outer.levels - 1, in, out, begin, end);
    }
    if (g->stores->finish != NULL && !g->part)
        g->stores->finish(g, t);
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
    *g = (gen){.plan = plan, .c = ctx, .m = m, .vec = t->vector_bytes, .nt_min = t->nt_min_bytes, .err = err};
    g->b = LLVMCreateBuilderInContext(ctx);
    g->i8 = LLVMInt8TypeInContext(ctx);
    g->i32 = LLVMInt32TypeInContext(ctx);
    g->ix = LLVMIntPtrTypeInContext(ctx, LLVMGetModuleDataLayout(m));
    g->ptr = sg_ir_ptr_type(ctx, 0);
    g->copy_vec = sg_emit_copy_width(plan, g->vec);
    g->stores = sg_codegen_streams(plan, t) ? &sg_stores_streaming : &sg_stores_cached;
    g->stream_above = plan->sym && t->stores == SG_STORES_AUTO ? sg_codegen_stream_above(plan, t) : -1;
    g->part_k = -1;
}

/* Part k of a program as a function of its own (emit_function of g, made
 * by gen_init for the part), internal to the module: `symbol`.partK. NULL
 * when out of memory (err set). */
static LLVMValueRef part_function(gen *g, const char *symbol, size_t k, const sg_target *t)
{
    size_t len = strlen(symbol) + 32;
    char *name = malloc(len);
    if (name == NULL) {
        sg_fail(g->err, SG_ERR_NOMEM, "failed to compile kernel %s: out of memory", symbol);
        LLVMDisposeBuilder(g->b);
        return NULL;
    }
    snprintf(name, len, "%s.part%zu", symbol, k);
    emit_function(g, name, t);
    free(name);
    LLVMSetLinkage(g->fn, LLVMInternalLinkage);
    LLVMDisposeBuilder(g->b);
    return g->fn;
}

/* The steps of [begin, end) that a part whose outer range is laid at
 * [first, first + extent) of the kernel's takes, in its own numbering:
 * [max(begin - first, 0), min(end - first, extent)) into *lo, *hi (i64). */
static void part_steps(gen *g, LLVMValueRef begin, LLVMValueRef end, LLVMValueRef first, LLVMValueRef extent,
                       LLVMValueRef *lo, LLVMValueRef *hi)
{
    LLVMValueRef zero = LLVMConstInt(LLVMInt64TypeInContext(g->c), 0, 0);
    *lo = LLVMBuildSub(g->b, begin, first, "");
    *hi = LLVMBuildSub(g->b, end, first, "");
    *lo = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, *lo, zero, ""), zero, *lo, "");
    *hi = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, *hi, extent, ""), extent, *hi, "");
}

/* np.concatenate with runtime values (sg_sym): each part's nest a function
 * of its own, internal to the module (`symbol`.partK), with the kernel's
 * signature, reading its numbers where the program keeps them; the kernel
 * runs the steps [begin, end) of the parts' outer ranges, writing at each
 * part's box's offset: per call in lockstep (their outer ranges equal:
 * blocks of steps each part runs in turn, as add_program's), else laid end
 * to end, part k getting those of its range. The parts store as the cached
 * strategy does. */
static sg_status add_symbolic_program(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                                      sg_error *err)
{
    /* each part's function, then its box's offset */
    LLVMValueRef *parts = calloc(plan->nparts ? 2 * plan->nparts : 1, sizeof *parts);
    if (parts == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel %s: out of memory", symbol);
    for (size_t k = 0; k < plan->nparts && err->status == SG_OK; k++) {
        gen g;
        gen_init(&g, plan->parts[k].plan, t, m, err);
        g.stores = &sg_stores_cached;
        g.stream_above = -1;
        g.part_k = (int)k, g.plan_of_parts = plan;
        parts[k] = part_function(&g, symbol, k, t);
    }
    if (err->status == SG_OK) {
        gen g;
        gen_init(&g, plan, t, m, err);
        declare_kernel(&g, symbol, t);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(g.c), params[5] = {g.ptr, g.ptr, g.ptr, i64, i64};
        LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(g.c), params, 5, 0);
        LLVMValueRef in = LLVMGetParam(g.fn, 0), out = LLVMGetParam(g.fn, 1), args = LLVMGetParam(g.fn, 2);
        LLVMValueRef begin = LLVMGetParam(g.fn, 3), end = LLVMGetParam(g.fn, 4);
        LLVMValueRef zero = LLVMConstInt(i64, 0, 0), first = zero, *at = parts + plan->nparts;
        for (size_t k = 0; k < plan->nparts; k++) {
            g.part_k = (int)k, g.plan_of_parts = plan;
            at[k] = number(&g, args, plan->parts[k].plan->sym->part_at, SG_ARG_PART_AT);
        }
        g.part_k = -1;
        const sg_sym *s = plan->sym;
        LLVMBasicBlockRef lockstep = block(&g, "lockstep"), apart = block(&g, "apart"), done = block(&g, "done");
        LLVMBuildCondBr(g.b, LLVMBuildICmp(g.b, LLVMIntNE, number64(&g, args, s->collapse, SG_ARG_LOCKSTEP), zero, ""),
                        lockstep, apart);
        /* in lockstep: blocks of steps [i, min(i + block, end)), each run by every part */
        LLVMPositionBuilderAtEnd(g.b, lockstep);
        LLVMValueRef steps = number64(&g, args, s->base, SG_ARG_LOCKSTEP_BLOCK);
        g.ix = i64; /* the loop counts the steps as the parts take them */
        loop l;
        loop_begin(&g, &l, begin, end, 1, NULL, NULL, NULL, NULL);
        l.step = steps; /* (a block's steps, known per call) */
        LLVMValueRef next = LLVMBuildAdd(g.b, l.i, steps, "");
        LLVMValueRef hi = LLVMBuildSelect(g.b, LLVMBuildICmp(g.b, LLVMIntSLT, next, end, ""), next, end, "");
        for (size_t k = 0; k < plan->nparts; k++) {
            LLVMValueRef call_args[5] = {in, gep(&g, out, at[k]), args, l.i, hi};
            LLVMBuildCall2(g.b, type, parts[k], call_args, 5, "");
        }
        loop_end(&g, &l, false);
        LLVMBuildBr(g.b, done);
        /* apart: the parts' outer ranges laid end to end, part k getting those of its range */
        LLVMPositionBuilderAtEnd(g.b, apart);
        for (size_t k = 0; k < plan->nparts; k++) {
            const sg_sym *q = plan->parts[k].plan->sym;
            g.part_k = (int)k, g.plan_of_parts = plan;
            LLVMValueRef extent = number64(&g, args, q->outer_extent, SG_ARG_OUTER_EXTENT), lo, up;
            part_steps(&g, begin, end, first, extent, &lo, &up);
            LLVMBasicBlockRef called = when_less(&g, lo, up, "part");
            LLVMValueRef call_args[5] = {in, gep(&g, out, at[k]), args, lo, up};
            LLVMBuildCall2(g.b, type, parts[k], call_args, 5, "");
            when_end(&g, called);
            first = LLVMBuildAdd(g.b, first, extent, "");
        }
        LLVMBuildBr(g.b, done);
        LLVMPositionBuilderAtEnd(g.b, done);
        LLVMBuildRetVoid(g.b);
        LLVMDisposeBuilder(g.b);
    }
    free(parts);
    return err->status;
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
    LLVMValueRef *parts = calloc(plan->nparts ? plan->nparts : 1, sizeof *parts);
    size_t *order = calloc(plan->nparts ? plan->nparts : 1, sizeof *order); /* lockstep calls */
    if (parts == NULL || order == NULL) {
        free(parts);
        free(order);
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel %s: out of memory", symbol);
    }
    for (size_t k = 0; k < plan->nparts && err->status == SG_OK; k++) {
        gen g;
        gen_init(&g, plan->parts[k].plan, t, m, err);
        g.stores = stream ? &sg_stores_streaming : &sg_stores_cached;
        g.part = true;
        /* Parts meet inside lines that each writes a piece of at a time of
         * its own: streamed, such a line would reach memory in pieces.
         * Unless they meet in few lines (sg_program_parts_whole), their
         * ragged ends stay ordinary stores, outside the lines they stream
         * (stores.c). */
        if (!sg_program_parts_whole(plan, (sg_stream_target){t->vector_bytes, t->nt_min_bytes}))
            g.nt_min = 0;
        parts[k] = part_function(&g, symbol, k, t);
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
            /* blocks of steps of about SG_LOCKSTEP_BYTES of output, each run by every part */
            int64_t bytes = 0;
            for (size_t k = 0; k < plan->nparts; k++)
                bytes += sg_nest_outer(plan->parts[k].plan).step_bytes;
            int64_t block = bytes > 0 && bytes < SG_LOCKSTEP_BYTES ? SG_LOCKSTEP_BYTES / bytes : 1;
            g.ix = i64; /* the loop counts the steps as the parts take them */
            loop l;
            loop_begin(&g, &l, begin, end, block, NULL, NULL, NULL, NULL);
            LLVMValueRef next = LLVMBuildAdd(g.b, l.i, LLVMConstInt(i64, (unsigned long long)block, 0), "");
            LLVMValueRef hi =
                LLVMBuildSelect(g.b, LLVMBuildICmp(g.b, LLVMIntSLT, next, end, ""), next, end, "");
            /* each block reads the input in order: the parts by the input
             * offset of their first read (the hardware prefetchers follow an
             * ascending stream) */
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
            LLVMValueRef steps = LLVMConstInt(i64, (unsigned long long)extent, 0);
            LLVMValueRef at = LLVMConstInt(i64, (unsigned long long)first, 0), lo, hi;
            part_steps(&g, begin, end, at, steps, &lo, &hi);
            LLVMBasicBlockRef done = when_less(&g, lo, hi, "part");
            LLVMValueRef call_args[4] = {in, gep(&g, out, ci(&g, plan->parts[k].out_offset)), lo, hi};
            LLVMBuildCall2(g.b, type, parts[k], call_args, 4, "");
            when_end(&g, done);
            first += extent;
        }
        if (stream)
            sg_stores_streaming.finish(&g, t);
        LLVMBuildRetVoid(g.b);
        LLVMDisposeBuilder(g.b);
    }
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
    if (plan->sym && plan->op == SG_OP_PROGRAM && (sg_target_is_gpu(t) || t->gpu_emulation))
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to compile kernel %s for %s: np.concatenate with runtime values or dimensions "
                       "known only at run time ('?') is not supported on GPUs yet",
                       symbol, t->triple);
    if (plan->sym && plan->op == SG_OP_PROGRAM) {
        if (add_symbolic_program(plan, symbol, t, m, err) == SG_OK)
            sg_codegen_add_prepare(plan, symbol, t, m, err);
        return err->status;
    }
    if (plan->sym && (sg_target_is_gpu(t) || t->gpu_emulation))
        return sg_gpu_add_values_kernel(plan, symbol, t, m, err);
    if (plan->op == SG_OP_PROGRAM && !sg_target_is_gpu(t) && !t->gpu_emulation)
        return add_program(plan, symbol, t, m, err);
    if (sg_target_is_gpu(t) || t->gpu_emulation)
        return sg_gpu_add_kernel(plan, symbol, t, m, err);
    for (size_t i = 0; i < plan->nloops; i++)
        if (plan->loops[i].nseg > UINT32_MAX / SG_SEG_FIELDS)
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

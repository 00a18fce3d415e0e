/* The prologue of a kernel with runtime numbers (planner.h, "plans with
 * runtime values") in IR:
 *
 *     int32_t NAME_prepare(int64_t *args, const int64_t *in_shape, const int64_t *values);
 *
 * It checks in_shape against the kernel's fixed dimensions (and its
 * runtime ones for a negative size), evaluates the
 * plan's expression graph straight-line (every operation is defined for
 * every input: divisions are by a divisor made positive), then the
 * plan's checks in order; the first that holds returns its code (sg_xcode)
 * before anything is written. Else it writes the SG_ARG_COUNT slots of
 * args and returns 0. It reads in_shape and values and writes args only.
 * On a target with pointers of fewer than 64 bits, tensors of more bytes
 * than its PTRDIFF_MAX are SG_XC_SIZE. */
#define SG_CODEGEN_INTERNAL
#include <stdlib.h>
#include <string.h>

#include <llvm/Config/llvm-config.h>

#include "../frontend/graph.h"
#include "codegen.h"
#include "ir.h"

typedef struct prep {
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMTypeRef i1, i8, i32, i64, ptr;
    LLVMValueRef *nodes;
} prep;

static LLVMValueRef k64(prep *p, int64_t v)
{
    return LLVMConstInt(p->i64, (unsigned long long)v, 1);
}

static LLVMValueRef val(prep *p, sg_val v)
{
    return v.node ? p->nodes[v.node - 1] : k64(p, v.k);
}

/* The i64 at base[index] */
static LLVMValueRef at(prep *p, LLVMValueRef base, int64_t index)
{
    LLVMValueRef offset = k64(p, 8 * index);
    return sg_ir_typed(p->b, LLVMBuildGEP2(p->b, p->i8, base, &offset, 1, ""), p->i64, 0);
}

static LLVMValueRef load(prep *p, LLVMValueRef base, int64_t index)
{
    LLVMValueRef v = LLVMBuildLoad2(p->b, p->i64, at(p, base, index), "");
    LLVMSetAlignment(v, 8);
    return v;
}

static void store(prep *p, LLVMValueRef v, LLVMValueRef base, int64_t index)
{
    LLVMSetAlignment(LLVMBuildStore(p->b, v, at(p, base, index)), 8);
}

static LLVMValueRef flag(prep *p, LLVMIntPredicate pred, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildZExt(p->b, LLVMBuildICmp(p->b, pred, a, b, ""), p->i64, "");
}

static LLVMValueRef pick(prep *p, LLVMIntPredicate pred, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(p->b, LLVMBuildICmp(p->b, pred, a, b, ""), a, b, "");
}

/* llvm.s<op>.with.overflow.i64's overflow bit, as 0/1 */
static LLVMValueRef overflows(prep *p, const char *name, LLVMValueRef a, LLVMValueRef b)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(p->m, id, &p->i64, 1);
    LLVMTypeRef type = LLVMIntrinsicGetType(p->c, id, &p->i64, 1);
    LLVMValueRef ops[2] = {a, b};
    LLVMValueRef pair = LLVMBuildCall2(p->b, type, fn, ops, 2, "");
    return LLVMBuildZExt(p->b, LLVMBuildExtractValue(p->b, pair, 1, ""), p->i64, "");
}

static LLVMValueRef node(prep *p, const sg_xnode *x, LLVMValueRef in_shape, LLVMValueRef values)
{
    LLVMValueRef a = val(p, x->a), b = val(p, x->b), zero = k64(p, 0), one = k64(p, 1);
    switch (x->op) {
    case SG_X_DIM:
        return load(p, in_shape, x->k);
    case SG_X_VALUE:
        return load(p, values, x->k);
    case SG_X_ADD:
        return LLVMBuildAdd(p->b, a, b, "");
    case SG_X_SUB:
        return LLVMBuildSub(p->b, a, b, "");
    case SG_X_MUL:
        return LLVMBuildMul(p->b, a, b, "");
    case SG_X_CDIV: { /* a > 0 && b > 0 ? (a - 1) / b + 1 : 0 */
        LLVMValueRef ok = LLVMBuildAnd(p->b, LLVMBuildICmp(p->b, LLVMIntSGT, a, zero, ""),
                                       LLVMBuildICmp(p->b, LLVMIntSGT, b, zero, ""), "");
        LLVMValueRef d = LLVMBuildSelect(p->b, ok, b, one, ""), n = LLVMBuildSelect(p->b, ok, a, one, "");
        LLVMValueRef q =
            LLVMBuildAdd(p->b, LLVMBuildSDiv(p->b, LLVMBuildSub(p->b, n, one, ""), d, ""), one, "");
        return LLVMBuildSelect(p->b, ok, q, zero, "");
    }
    case SG_X_SREM: { /* b > 0 ? a mod b in [0, b) : 0 */
        LLVMValueRef ok = LLVMBuildICmp(p->b, LLVMIntSGT, b, zero, "");
        LLVMValueRef d = LLVMBuildSelect(p->b, ok, b, one, ""), r = LLVMBuildSRem(p->b, a, d, "");
        r = LLVMBuildSelect(p->b, LLVMBuildICmp(p->b, LLVMIntSLT, r, zero, ""), LLVMBuildAdd(p->b, r, d, ""),
                            r, "");
        return LLVMBuildSelect(p->b, ok, r, zero, "");
    }
    case SG_X_MIN:
        return pick(p, LLVMIntSLT, a, b);
    case SG_X_MAX:
        return pick(p, LLVMIntSGT, a, b);
    case SG_X_LT:
        return flag(p, LLVMIntSLT, a, b);
    case SG_X_EQ:
        return flag(p, LLVMIntEQ, a, b);
    case SG_X_AND:
        return LLVMBuildAnd(p->b, flag(p, LLVMIntNE, a, zero), flag(p, LLVMIntNE, b, zero), "");
    case SG_X_OR:
        return flag(p, LLVMIntNE, LLVMBuildOr(p->b, a, b, ""), zero);
    case SG_X_SELECT:
        return LLVMBuildSelect(p->b, LLVMBuildICmp(p->b, LLVMIntNE, a, zero, ""), b, val(p, x->c), "");
    case SG_X_ADD_OVF:
        return overflows(p, "llvm.sadd.with.overflow", a, b);
    case SG_X_MUL_OVF:
        return overflows(p, "llvm.smul.with.overflow", a, b);
    case SG_X_COUNT:
        break;
    }
    return zero;
}

/* Returns `code` from the function when cond (i1) holds. */
static void fail_if(prep *p, LLVMValueRef cond, int code)
{
    LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(p->c, p->fn, "fail");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(p->c, p->fn, "ok");
    LLVMBuildCondBr(p->b, cond, fail, next);
    LLVMPositionBuilderAtEnd(p->b, fail);
    LLVMBuildRet(p->b, LLVMConstInt(p->i32, (unsigned)code, 0));
    LLVMPositionBuilderAtEnd(p->b, next);
}

/* p's types for m's context. */
static void prep_init(prep *p, LLVMModuleRef m)
{
    *p = (prep){.c = LLVMGetModuleContext(m), .m = m};
    p->i1 = LLVMInt1TypeInContext(p->c);
    p->i8 = LLVMInt8TypeInContext(p->c);
    p->i32 = LLVMInt32TypeInContext(p->c);
    p->i64 = LLVMInt64TypeInContext(p->c);
    p->ptr = sg_ir_ptr_type(p->c, 0);
}

/* p->fn: a function `name` returning `ret` of three pointer parameters
 * (each noalias, nocapture), compiled for t's CPU, and p->b at its entry.
 * It is straight-line arithmetic run once a call, so it is left
 * unoptimized (optnone: no IR passes, the fast instruction selector),
 * which keeps it a small part of a kernel's compile. */
static void add_function(prep *p, const char *name, LLVMTypeRef ret, const char *const names[3],
                         const sg_target *t)
{
    LLVMTypeRef params[3] = {p->ptr, p->ptr, p->ptr};
    p->fn = LLVMAddFunction(p->m, name, LLVMFunctionType(ret, params, 3, 0));
    for (unsigned i = 0; i < 3; i++) {
        LLVMSetValueName2(LLVMGetParam(p->fn, i), names[i], strlen(names[i]));
        static const char *const attrs[] = {"noalias", "nocapture"}; /* LLVM 21 on has no nocapture */
        for (size_t k = 0; k < 2; k++) {
            unsigned kind = LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k]));
            if (kind != 0)
                LLVMAddAttributeAtIndex(p->fn, i + 1, LLVMCreateEnumAttribute(p->c, kind, 0));
        }
    }
    static const char *const fn_attrs[2] = {"target-cpu", "target-features"};
    const char *fn_values[2] = {t->cpu, t->features};
    for (int i = 0; i < 2; i++)
        if (fn_values[i][0] != '\0')
            LLVMAddAttributeAtIndex(p->fn, LLVMAttributeFunctionIndex,
                                    LLVMCreateStringAttribute(p->c, fn_attrs[i],
                                                              (unsigned)strlen(fn_attrs[i]), fn_values[i],
                                                              (unsigned)strlen(fn_values[i])));
    static const char *const enum_attrs[] = {"nounwind", "optnone", "noinline"};
    for (size_t i = 0; i < 3; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(enum_attrs[i], strlen(enum_attrs[i]));
        LLVMAddAttributeAtIndex(p->fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(p->c, kind, 0));
    }
    p->b = LLVMCreateBuilderInContext(p->c);
    LLVMPositionBuilderAtEnd(p->b, LLVMAppendBasicBlockInContext(p->c, p->fn, "entry"));
}

sg_status sg_codegen_add_prepare(const sg_plan *plan, const char *symbol, const sg_target *t, LLVMModuleRef m,
                                 sg_error *err)
{
    const sg_sym *s = plan->sym;
    prep p;
    prep_init(&p, m);
    p.nodes = malloc((s->ex.n ? s->ex.n : 1) * sizeof *p.nodes);
    if (p.nodes == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel: out of memory");
    char *name = sg_prepare_symbol(symbol);
    if (name == NULL) {
        free(p.nodes);
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel: out of memory");
    }
    static const char *const names[3] = {"args", "in_shape", "values"};
    add_function(&p, name, p.i32, names, t);
    free(name);
    LLVMValueRef args = LLVMGetParam(p.fn, 0), in_shape = LLVMGetParam(p.fn, 1),
                 values = LLVMGetParam(p.fn, 2);

    /* first, as sg_plan_prepare: a fixed dimension differs, or one is negative */
    LLVMValueRef wrong = LLVMConstInt(p.i1, 0, 0);
    for (size_t i = 0; i < plan->in_rank; i++) {
        LLVMValueRef d = load(&p, in_shape, (int64_t)i);
        LLVMValueRef bad = plan->in_shape[i] >= 0
                               ? LLVMBuildICmp(p.b, LLVMIntNE, d, k64(&p, plan->in_shape[i]), "")
                               : LLVMBuildICmp(p.b, LLVMIntSLT, d, k64(&p, 0), "");
        wrong = LLVMBuildOr(p.b, wrong, bad, "");
    }
    fail_if(&p, wrong, SG_XC_SHAPE);
    for (size_t i = 0; i < s->ex.n; i++)
        p.nodes[i] = node(&p, &s->ex.nodes[i], in_shape, values);
    for (size_t i = 0; i < s->ex.nchecks; i++)
        fail_if(&p, LLVMBuildICmp(p.b, LLVMIntNE, val(&p, s->ex.checks[i].cond), k64(&p, 0), ""),
                s->ex.checks[i].code);
    unsigned bits = 8 * LLVMPointerSize(LLVMGetModuleDataLayout(m));
    if (bits < 64) {
        LLVMValueRef most = k64(&p, (int64_t)((UINT64_C(1) << (bits - 1)) - 1));
        fail_if(&p,
                LLVMBuildOr(p.b, LLVMBuildICmp(p.b, LLVMIntSGT, val(&p, s->in_bytes), most, ""),
                            LLVMBuildICmp(p.b, LLVMIntSGT, val(&p, s->out_bytes), most, ""), ""),
                SG_XC_SIZE);
    }

    sg_val vals[SG_ARG_COUNT];
    int slots[SG_ARG_COUNT];
    size_t n = sg_sym_slots(plan, vals, slots);
    for (size_t i = 0; i < n; i++)
        store(&p, val(&p, vals[i]), args, slots[i]);
    LLVMBuildRet(p.b, LLVMConstInt(p.i32, 0, 0));
    LLVMDisposeBuilder(p.b);
    free(p.nodes);
    return SG_OK;
}

sg_status sg_codegen_add_numbers(const sg_layer_numbers *n, const char *symbol, const sg_target *t,
                                 LLVMModuleRef m, sg_error *err)
{
    prep p;
    prep_init(&p, m);
    size_t len = strlen(symbol);
    char *name = malloc(len + sizeof "_numbers");
    p.nodes = malloc((n->ex.n ? n->ex.n : 1) * sizeof *p.nodes);
    if (name == NULL || p.nodes == NULL) {
        free(name);
        free(p.nodes);
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernel: out of memory");
    }
    memcpy(name, symbol, len);
    memcpy(name + len, "_numbers", sizeof "_numbers");
    static const char *const names[3] = {"symbols", "in_shape", "values"};
    add_function(&p, name, LLVMVoidTypeInContext(p.c), names, t);
    free(name);
    LLVMValueRef symbols = LLVMGetParam(p.fn, 0), in_shape = LLVMGetParam(p.fn, 1),
                 values = LLVMGetParam(p.fn, 2);
    for (size_t i = 0; i < n->ex.n; i++) /* a symbol is a dimension leaf: symbols[k] */
        p.nodes[i] = node(&p, &n->ex.nodes[i], symbols, symbols);
    for (size_t d = 0; d < n->rank; d++)
        store(&p, val(&p, n->dims[d]), in_shape, (int64_t)d);
    for (size_t i = 0; i < n->nvalues; i++)
        if (n->given[i])
            store(&p, val(&p, n->values[i]), values, (int64_t)i);
    LLVMBuildRetVoid(p.b);
    LLVMDisposeBuilder(p.b);
    free(p.nodes);
    return SG_OK;
}

/* Targets, target machines, the pass pipeline, IR text and object files.
 * One target description (triple + CPU + features) feeds both the optimizer
 * and the code generator: on LLVM 14 the CPU name alone loses features. */
#define SG_CODEGEN_INTERNAL
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#include "codegen.h"

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;
static int llvm_init_failed; /* written once inside pthread_once */

static void init_native(void)
{
    llvm_init_failed = LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter();
}

sg_status sg_llvm_init(sg_error *err)
{
    if (pthread_once(&llvm_once, init_native) != 0 || llvm_init_failed)
        return sg_fail(err, SG_ERR_INTERNAL, "failed to initialize LLVM: no native target");
    return SG_OK;
}

sg_status sg_llvm_fail(sg_error *err, LLVMErrorRef e, const char *what)
{
    char *message = LLVMGetErrorMessage(e);
    sg_fail(err, SG_ERR_INTERNAL, "failed to %s: %s", what, message);
    LLVMDisposeErrorMessage(message);
    return SG_ERR_INTERNAL;
}

const char *sg_codegen_llvm_version(void)
{
    return LLVM_VERSION_STRING;
}

/* ---- targets ------------------------------------------------------------------ */

static char *copy(const char *s)
{
    char *c = s ? malloc(strlen(s) + 1) : NULL;
    return c ? strcpy(c, s) : NULL;
}

sg_status sg_target_init(sg_target *t, const char *triple, const char *cpu, const char *features,
                         sg_error *err)
{
    char *host = NULL, *message = NULL;
    memset(t, 0, sizeof *t);
    if (sg_llvm_init(err) != SG_OK)
        return err->status;
    /* LLVM's strings must be released with LLVMDisposeMessage: copy them. */
    host = triple ? NULL : LLVMGetDefaultTargetTriple();
    t->triple = copy(triple ? triple : host);
    LLVMDisposeMessage(host);
    host = cpu || triple ? NULL : LLVMGetHostCPUName();
    t->cpu = copy(cpu ? cpu : host ? host : "");
    LLVMDisposeMessage(host);
    host = features || triple ? NULL : LLVMGetHostCPUFeatures();
    t->features = copy(features ? features : host ? host : "");
    LLVMDisposeMessage(host);
    if (!t->triple || !t->cpu || !t->features) {
        sg_fail(err, SG_ERR_NOMEM, "failed to describe target: out of memory");
        goto fail;
    }
    if (LLVMGetTargetFromTriple(t->triple, &t->target, &message)) {
        sg_fail(err, SG_ERR_USAGE, "failed to find target: %s (%s)", message, t->triple);
        goto fail;
    }
    LLVMDisposeMessage(message);
    return SG_OK;
fail:
    LLVMDisposeMessage(message);
    sg_target_fini(t);
    return err->status;
}

void sg_target_fini(sg_target *t)
{
    free(t->triple);
    free(t->cpu);
    free(t->features);
    memset(t, 0, sizeof *t);
}

sg_status sg_target_machine(const sg_target *t, int opt_level, LLVMTargetMachineRef *tm, sg_error *err)
{
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
    LLVMTargetMachineRef m = LLVMCreateTargetMachine(t->target, t->triple, t->cpu, t->features,
                                                     levels[opt_level], LLVMRelocPIC, LLVMCodeModelDefault);
    if (m == NULL)
        return sg_fail(err, SG_ERR_INTERNAL, "failed to create target machine: %s %s", t->triple, t->cpu);
    *tm = m;
    return SG_OK;
}

/* ---- modules -------------------------------------------------------------------- */

static sg_status run_passes(LLVMModuleRef m, LLVMTargetMachineRef tm, int opt_level, sg_error *err)
{
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level);
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    /* The IR already holds the vector code we want; left on, the SLP
     * vectorizer may make gathers (loops carry a no-vectorize hint). */
    LLVMPassBuilderOptionsSetSLPVectorization(options, 0);
    LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, options);
    LLVMDisposePassBuilderOptions(options);
    return e ? sg_llvm_fail(err, e, "optimize kernel") : SG_OK;
}

/* The module for plan, emitted and optimized; the caller owns ctx. */
static sg_status build_module(const sg_plan *plan, const char *symbol, const sg_target *t,
                              LLVMTargetMachineRef tm, int opt_level, LLVMContextRef ctx,
                              LLVMModuleRef *module, sg_error *err)
{
    if (sg_codegen_module(plan, symbol, t, tm, opt_level, ctx, module, err) != SG_OK)
        return err->status;
    if (opt_level > 0 && run_passes(*module, tm, opt_level, err) != SG_OK) {
        LLVMDisposeModule(*module);
        return err->status;
    }
    return SG_OK;
}

static sg_status check_level(int opt_level, sg_error *err)
{
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernel: optimization level %d (0..3)",
                       opt_level);
    return SG_OK;
}

sg_status sg_codegen_ir_text(const sg_plan *plan, int opt_level, char **text, sg_error *err)
{
    sg_target t = {0};
    sg_nest_key key = {0};
    LLVMTargetMachineRef tm = NULL;
    LLVMContextRef ctx = NULL;
    LLVMModuleRef m = NULL;
    char symbol[SG_SYMBOL_MAX];
    if (check_level(opt_level, err) != SG_OK || sg_nest_key_make(plan, &key, err) != SG_OK ||
        sg_target_init(&t, NULL, NULL, NULL, err) != SG_OK ||
        sg_target_machine(&t, opt_level, &tm, err) != SG_OK)
        goto done;
    sg_codegen_symbol(plan, &key, symbol);
    ctx = LLVMContextCreate();
    if (build_module(plan, symbol, &t, tm, opt_level, ctx, &m, err) != SG_OK)
        goto done;
    char *ir = LLVMPrintModuleToString(m);
    *text = copy(ir);
    LLVMDisposeMessage(ir);
    if (*text == NULL)
        sg_fail(err, SG_ERR_NOMEM, "failed to print kernel IR: out of memory");
done:
    if (m)
        LLVMDisposeModule(m);
    if (ctx)
        LLVMContextDispose(ctx);
    if (tm)
        LLVMDisposeTargetMachine(tm);
    sg_target_fini(&t);
    sg_nest_key_free(&key);
    return err->status;
}

sg_status sg_codegen_object(const sg_plan *plan, const char *symbol, const sg_target *t,
                            LLVMTargetMachineRef tm, int opt_level, LLVMMemoryBufferRef *object,
                            sg_error *err)
{
    LLVMContextRef ctx = NULL;
    LLVMModuleRef m = NULL;
    char *message = NULL;
    if (check_level(opt_level, err) != SG_OK)
        goto done;
    ctx = LLVMContextCreate();
    if (build_module(plan, symbol, t, tm, opt_level, ctx, &m, err) != SG_OK)
        goto done;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &message, object))
        sg_fail(err, SG_ERR_INTERNAL, "failed to generate code for kernel %s: %s", symbol, message);
done:
    LLVMDisposeMessage(message);
    if (m)
        LLVMDisposeModule(m);
    if (ctx)
        LLVMContextDispose(ctx);
    return err->status;
}

sg_status sg_codegen_emit_object(const sg_plan *plan, const char *symbol, const char *triple, const char *cpu,
                                 const char *features, int opt_level, void **bytes, size_t *size, sg_error *err)
{
    sg_target t = {0};
    LLVMTargetMachineRef tm = NULL;
    LLVMMemoryBufferRef object = NULL;
    if (check_level(opt_level, err) != SG_OK || sg_target_init(&t, triple, cpu, features, err) != SG_OK ||
        sg_target_machine(&t, opt_level, &tm, err) != SG_OK ||
        sg_codegen_object(plan, symbol, &t, tm, opt_level, &object, err) != SG_OK)
        goto done;
    *size = LLVMGetBufferSize(object);
    *bytes = malloc(*size ? *size : 1);
    if (*bytes == NULL)
        sg_fail(err, SG_ERR_NOMEM, "failed to emit object: out of memory");
    else
        memcpy(*bytes, LLVMGetBufferStart(object), *size);
done:
    if (object)
        LLVMDisposeMemoryBuffer(object);
    if (tm)
        LLVMDisposeTargetMachine(tm);
    sg_target_fini(&t);
    return err->status;
}

/* The JIT: one ORC LLJIT per sg_jit, made at the first compile. Kernels
 * arrive as object files (compiled by sg_codegen_object at their own
 * optimization level) and are linked into the main JITDylib, each under its
 * own ResourceTracker so that it can be unloaded alone. */
#define SG_CODEGEN_INTERNAL
#include <pthread.h>
#include <stdlib.h>

#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

#include "codegen.h"

enum { SPARE_MACHINES = 4 };

struct sg_jit {
    sg_target host;
    pthread_mutex_t lock; /* guards lljit's creation and the spare machines */
    LLVMOrcLLJITRef lljit;
    /* Target machines not in use, per opt level: reusing one keeps its
     * subtarget, which costs more to build than an -O0 compile. */
    LLVMTargetMachineRef spare[4][SPARE_MACHINES];
    int nspare[4];
};

sg_status sg_jit_create(sg_jit **out, sg_error *err)
{
    sg_jit *jit = calloc(1, sizeof *jit);
    if (jit == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to create JIT: out of memory");
    if (sg_target_init(&jit->host, NULL, NULL, NULL, err) != SG_OK) {
        free(jit);
        return err->status;
    }
    jit->host.jit = true;
    if (pthread_mutex_init(&jit->lock, NULL) != 0) {
        sg_target_fini(&jit->host);
        free(jit);
        return sg_fail(err, SG_ERR_INTERNAL, "failed to create JIT: no mutex");
    }
    *out = jit;
    return SG_OK;
}

void sg_jit_destroy(sg_jit *jit)
{
    if (jit == NULL)
        return;
    if (jit->lljit) {
        LLVMErrorRef e = LLVMOrcDisposeLLJIT(jit->lljit);
        if (e)
            LLVMConsumeError(e);
    }
    for (int level = 0; level < 4; level++)
        for (int i = 0; i < jit->nspare[level]; i++)
            LLVMDisposeTargetMachine(jit->spare[level][i]);
    pthread_mutex_destroy(&jit->lock);
    sg_target_fini(&jit->host);
    free(jit);
}

/* The LLJIT, made on first use: the host's target machine (the same triple,
 * CPU and features the kernels are compiled for) and the process's symbols,
 * so that memcpy and memset resolve. Called with jit->lock held. */
static sg_status make_lljit(sg_jit *jit, sg_error *err)
{
    LLVMTargetMachineRef tm;
    LLVMOrcDefinitionGeneratorRef process;
    if (sg_target_machine(&jit->host, 2, &tm, err) != SG_OK)
        return err->status;
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    /* Each call takes ownership of its argument. */
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder,
                                                  LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit->lljit, builder);
    if (e) {
        jit->lljit = NULL;
        return sg_llvm_fail(err, e, "create LLJIT");
    }
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
        &process, LLVMOrcLLJITGetGlobalPrefix(jit->lljit), NULL, NULL);
    if (e) {
        sg_llvm_fail(err, e, "create LLJIT process symbols");
        if ((e = LLVMOrcDisposeLLJIT(jit->lljit)) != NULL)
            LLVMConsumeError(e);
        jit->lljit = NULL;
        return err->status;
    }
    LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit->lljit), process);
    return SG_OK;
}

static sg_status get_lljit(sg_jit *jit, LLVMOrcLLJITRef *lljit, sg_error *err)
{
    pthread_mutex_lock(&jit->lock);
    sg_status status = jit->lljit ? SG_OK : make_lljit(jit, err);
    *lljit = jit->lljit;
    pthread_mutex_unlock(&jit->lock);
    return status;
}

/* A target machine for opt_level used by this thread alone until put back. */
static sg_status take_machine(sg_jit *jit, int opt_level, LLVMTargetMachineRef *tm, sg_error *err)
{
    pthread_mutex_lock(&jit->lock);
    int n = jit->nspare[opt_level];
    *tm = n > 0 ? jit->spare[opt_level][n - 1] : NULL;
    jit->nspare[opt_level] = n > 0 ? n - 1 : 0;
    pthread_mutex_unlock(&jit->lock);
    return *tm ? SG_OK : sg_target_machine(&jit->host, opt_level, tm, err);
}

static void put_machine(sg_jit *jit, int opt_level, LLVMTargetMachineRef tm)
{
    pthread_mutex_lock(&jit->lock);
    int n = jit->nspare[opt_level];
    if (n < SPARE_MACHINES) {
        jit->spare[opt_level][n] = tm;
        jit->nspare[opt_level] = n + 1;
        tm = NULL;
    }
    pthread_mutex_unlock(&jit->lock);
    if (tm)
        LLVMDisposeTargetMachine(tm);
}

/* Compiles plan's kernel for t (jit->host, or a copy of it that asks for
 * the GPU kernel's emulation) and links it. */
static sg_status compile(sg_jit *jit, const sg_plan *plan, int opt_level, const char *symbol,
                         const sg_target *t, sg_kernel_fn *fn, void **resource, sg_error *err)
{
    LLVMOrcLLJITRef lljit;
    LLVMMemoryBufferRef object;
    LLVMOrcResourceTrackerRef rt = NULL;
    LLVMOrcExecutorAddress address = 0;
    LLVMTargetMachineRef tm;
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernel: optimization level %d (0..3)",
                       opt_level);
    if (get_lljit(jit, &lljit, err) != SG_OK || take_machine(jit, opt_level, &tm, err) != SG_OK)
        return err->status;
    sg_codegen_object(plan, symbol, t, tm, opt_level, &object, err);
    put_machine(jit, opt_level, tm);
    if (err->status != SG_OK)
        return err->status;
    rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(lljit));
    LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(lljit, rt, object); /* takes object */
    if (e) {
        sg_llvm_fail(err, e, "add kernel object to JIT");
        goto fail;
    }
    e = LLVMOrcLLJITLookup(lljit, &address, symbol);
    if (e) {
        sg_llvm_fail(err, e, "link kernel");
        goto fail;
    }
    *fn = (sg_kernel_fn)(uintptr_t)address;
    *resource = rt;
    return SG_OK;
fail:
    sg_jit_free(jit, rt);
    return err->status;
}

sg_status sg_jit_compile(sg_jit *jit, const sg_plan *plan, int opt_level, const char *symbol,
                         sg_kernel_fn *fn, void **resource, sg_error *err)
{
    return compile(jit, plan, opt_level, symbol, &jit->host, fn, resource, err);
}

sg_status sg_jit_compile_stores(sg_jit *jit, const sg_plan *plan, int opt_level, int stores,
                                int64_t stream_threshold, const char *symbol, sg_kernel_fn *fn,
                                void **resource, sg_error *err)
{
    sg_target t = jit->host; /* shares the host's strings */
    t.stores = stores;
    t.stream_threshold = stream_threshold;
    return compile(jit, plan, opt_level, symbol, &t, fn, resource, err);
}

sg_auto_stores sg_jit_auto_stores(const sg_jit *jit, const sg_plan *plan, int64_t threshold)
{
    sg_target t = jit->host; /* shares the host's strings */
    t.stream_threshold = threshold;
    return sg_codegen_auto_stores(plan, &t);
}

sg_status sg_jit_compile_gpu_emulation(sg_jit *jit, const sg_plan *plan, int opt_level, const char *symbol,
                                       sg_kernel_fn *fn, void **resource, sg_error *err)
{
    sg_target emulated = jit->host; /* shares the host's strings */
    emulated.gpu_emulation = true;
    return compile(jit, plan, opt_level, symbol, &emulated, fn, resource, err);
}

sg_status sg_jit_lookup(sg_jit *jit, const char *symbol, void **address, sg_error *err)
{
    LLVMOrcExecutorAddress a = 0;
    LLVMErrorRef e = LLVMOrcLLJITLookup(jit->lljit, &a, symbol);
    if (e)
        return sg_llvm_fail(err, e, "link kernel");
    *address = (void *)(uintptr_t)a;
    return SG_OK;
}

/* Unloads the kernel, then drops the names nothing refers to any more from
 * the session's symbol string pool: every kernel's symbol is new (the
 * caller's serial), so without this the pool grows by one name per compile
 * for the life of the jit. The pool locks itself; jit->lljit was made
 * before any resource. */
void sg_jit_free(sg_jit *jit, void *resource)
{
    if (resource == NULL)
        return;
    LLVMOrcResourceTrackerRef rt = resource;
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(rt);
    if (e)
        LLVMConsumeError(e);
    LLVMOrcReleaseResourceTracker(rt);
    LLVMOrcSymbolStringPoolClearDeadEntries(
        LLVMOrcExecutionSessionGetSymbolStringPool(LLVMOrcLLJITGetExecutionSession(jit->lljit)));
}

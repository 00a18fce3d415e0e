/* CUDA GPUs: the CUDA driver API loaded at run time, the public calls of
 * the "CUDA GPUs" section of slicegen.h, the per-context cache of CUDA
 * kernels, and the internal helpers of runtime.h (device memory, copies,
 * timers) that the command line, the benchmark and the tests use.
 *
 * Nothing of CUDA is needed to build this file: the few types and values of
 * cuda.h it uses are declared in cuda_driver.h, and the entry points are looked up
 * with dlsym under the names cuda.h maps them to (cuMemAlloc is
 * cuMemAlloc_v2, ...).
 *
 * The cache (cache.c, as the CPU kernels') is keyed by (nest key, input
 * bytes, device and optimization level) and guarded by ctx->lock: a miss inserts a COMPILING entry
 * and compiles and loads outside the lock; callers asking for the same
 * kernel meanwhile wait. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../codegen/codegen.h"
#include "cuda_driver.h"
#include "runtime.h"

/* ---- the driver API --------------------------------------------------------------- */

typedef struct driver {
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxPushCurrent)(CUcontext);
    CUresult (*CtxPopCurrent)(CUcontext *);
    CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*EventDestroy)(CUevent);
} driver;

/* Each entry point: its names in the order tried (the versioned name that
 * cuda.h maps the call to first; for two, the name older drivers export
 * next), and where it goes. */
static const struct {
    const char *names[2];
    size_t offset;
} entry_points[] = {
    {{"cuGetErrorName"}, offsetof(driver, GetErrorName)},
    {{"cuGetErrorString"}, offsetof(driver, GetErrorString)},
    {{"cuInit"}, offsetof(driver, Init)},
    {{"cuDeviceGetCount"}, offsetof(driver, DeviceGetCount)},
    {{"cuDeviceGet"}, offsetof(driver, DeviceGet)},
    {{"cuDeviceGetAttribute"}, offsetof(driver, DeviceGetAttribute)},
    {{"cuDeviceGetName"}, offsetof(driver, DeviceGetName)},
    {{"cuDevicePrimaryCtxRetain"}, offsetof(driver, DevicePrimaryCtxRetain)},
    {{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"},
     offsetof(driver, DevicePrimaryCtxRelease)},
    {{"cuCtxPushCurrent_v2"}, offsetof(driver, CtxPushCurrent)},
    {{"cuCtxPopCurrent_v2"}, offsetof(driver, CtxPopCurrent)},
    {{"cuModuleLoadDataEx"}, offsetof(driver, ModuleLoadDataEx)},
    {{"cuModuleGetFunction"}, offsetof(driver, ModuleGetFunction)},
    {{"cuModuleUnload"}, offsetof(driver, ModuleUnload)},
    {{"cuLaunchKernel"}, offsetof(driver, LaunchKernel)},
    {{"cuMemAlloc_v2"}, offsetof(driver, MemAlloc)},
    {{"cuMemFree_v2"}, offsetof(driver, MemFree)},
    {{"cuMemcpyHtoD_v2"}, offsetof(driver, MemcpyHtoD)},
    {{"cuMemcpyDtoH_v2"}, offsetof(driver, MemcpyDtoH)},
    {{"cuMemcpyDtoDAsync_v2"}, offsetof(driver, MemcpyDtoDAsync)},
    {{"cuStreamCreate"}, offsetof(driver, StreamCreate)},
    {{"cuStreamDestroy_v2"}, offsetof(driver, StreamDestroy)},
    {{"cuStreamSynchronize"}, offsetof(driver, StreamSynchronize)},
    {{"cuEventCreate"}, offsetof(driver, EventCreate)},
    {{"cuEventRecord"}, offsetof(driver, EventRecord)},
    {{"cuEventSynchronize"}, offsetof(driver, EventSynchronize)},
    /* cuda.h maps it to _v2 from CUDA 12.8 on; older drivers have only the plain name. */
    {{"cuEventElapsedTime_v2", "cuEventElapsedTime"}, offsetof(driver, EventElapsedTime)},
    {{"cuEventDestroy_v2"}, offsetof(driver, EventDestroy)},
};

/* The process's driver, loaded and initialised once (load_driver). */
static struct {
    pthread_once_t once;
    driver api;
    sg_error failure;    /* why it cannot be used; status SG_OK when it can */
    int devices;         /* devices the driver lists */
    char no_device[160]; /* why there is none, when devices == 0 */
} cuda = {.once = PTHREAD_ONCE_INIT};

/* "CUDA_ERROR_X: <the driver's description>" of r, in buf. */
static const char *describe(CUresult r, char buf[256])
{
    const char *name = NULL, *text = NULL;
    if (cuda.api.GetErrorName == NULL || cuda.api.GetErrorName(r, &name) != CUDA_SUCCESS || name == NULL)
        name = NULL;
    if (cuda.api.GetErrorString == NULL || cuda.api.GetErrorString(r, &text) != CUDA_SUCCESS || text == NULL)
        text = "unknown error";
    if (name != NULL)
        snprintf(buf, 256, "%s: %s", name, text);
    else
        snprintf(buf, 256, "CUDA error %d: %s", r, text);
    return buf;
}

static void load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        sg_fail(&cuda.failure, SG_ERR_USAGE,
                "failed to use CUDA: cannot load libcuda.so.1 (no NVIDIA driver on this machine): %s",
                why ? why : "unknown reason");
        return;
    }
    driver api;
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
        void *fn = dlsym(lib, entry_points[i].names[0]);
        if (fn == NULL && entry_points[i].names[1] != NULL)
            fn = dlsym(lib, entry_points[i].names[1]);
        if (fn == NULL) {
            sg_fail(&cuda.failure, SG_ERR_USAGE,
                    "failed to use CUDA: libcuda.so.1 has no %s (a driver older than slicegen needs)",
                    entry_points[i].names[0]);
            dlclose(lib);
            return;
        }
        /* POSIX: a function pointer has the representation of a void *. */
        memcpy((char *)&api + entry_points[i].offset, &fn, sizeof fn);
    }
    cuda.api = api; /* the library stays loaded for the life of the process */
    char why[256];
    CUresult r = api.Init(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        snprintf(cuda.no_device, sizeof cuda.no_device, "%s", describe(r, why));
        return;
    }
    if (r != CUDA_SUCCESS) {
        sg_fail(&cuda.failure, SG_ERR_USAGE, "failed to use CUDA: the driver does not start (cuInit: %s)",
                describe(r, why));
        return;
    }
    if ((r = api.DeviceGetCount(&cuda.devices)) != CUDA_SUCCESS) {
        sg_fail(&cuda.failure, SG_ERR_USAGE, "failed to use CUDA: cannot count the devices (%s)",
                describe(r, why));
        return;
    }
    if (cuda.devices <= 0) {
        cuda.devices = 0;
        snprintf(cuda.no_device, sizeof cuda.no_device, "the driver lists none");
    }
}

/* The driver, loaded and initialised; it may have no device. */
static sg_status driver_ready(sg_error *err)
{
    pthread_once(&cuda.once, load_driver);
    if (cuda.failure.status != SG_OK)
        return sg_fail(err, cuda.failure.status, "%s", cuda.failure.message);
    return SG_OK;
}

/* The driver, with `device` one of its devices. */
static sg_status device_ready(int device, sg_error *err)
{
    if (driver_ready(err) != SG_OK)
        return err->status;
    if (cuda.devices == 0)
        return sg_fail(err, SG_ERR_USAGE, "failed to use CUDA: no CUDA device (%s)", cuda.no_device);
    if (device < 0 || device >= cuda.devices)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to use CUDA device %d: no such device (%d CUDA device%s: 0 to %d)", device,
                       cuda.devices, cuda.devices == 1 ? "" : "s", cuda.devices - 1);
    return SG_OK;
}

/* Records a failed driver call: "failed to <what>: CUDA_ERROR_X: ...". */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static sg_status
cuda_fail(sg_error *err, CUresult r, const char *fmt, ...)
{
    char what[256], why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sg_fail(err, r == CUDA_ERROR_OUT_OF_MEMORY ? SG_ERR_NOMEM : SG_ERR_INTERNAL, "failed to %s: %s",
                   what, describe(r, why));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the per-context state (ctx->lock held) -------------------------------------------- */

struct sg_cuda_kernel {
    sg_cache_entry entry; /* first: the cache's entry is the kernel */
    sg_context *ctx;
    uint64_t in_bytes, out_bytes;
    int device, opt_level;
    CUcontext primary;
    CUmodule module;
    CUfunction function;
    sg_gpu_launch launch; /* a static kernel's; a symbolic one's follows from each call's args */
    sg_plan *plan;        /* a kernel of runtime values: its own plan (the host's prologue), else NULL */
    double codegen_s, load_s;
};

typedef struct sg_cuda_state {
    int ndevices;
    CUcontext *primary; /* per device ordinal; NULL until first used */
    sg_cache cache;
} sg_cuda_state;

/* ctx->cuda, made on first need; the driver must be ready. */
static sg_status get_state(sg_context *ctx, sg_cuda_state **out, sg_error *err)
{
    sg_cuda_state *s = ctx->cuda;
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        if (s == NULL || (s->primary = calloc((size_t)cuda.devices + 1, sizeof *s->primary)) == NULL) {
            free(s);
            return sg_fail(err, SG_ERR_NOMEM, "failed to create the CUDA kernel cache: out of memory");
        }
        if (sg_cache_init(&s->cache, SG_CUDA_IDLE_MAX, err) != SG_OK) {
            free(s->primary);
            free(s);
            return err->status;
        }
        s->ndevices = cuda.devices;
        ctx->cuda = s;
    }
    *out = s;
    return SG_OK;
}

/* ---- contexts and modules ------------------------------------------------------------ */

/* The primary context of `device` (ready), retained once per sg_context. */
static sg_status primary_context(sg_context *ctx, int device, CUcontext *out, sg_error *err)
{
    sg_cuda_state *s = NULL;
    pthread_mutex_lock(&ctx->lock);
    sg_status st = get_state(ctx, &s, err);
    CUcontext have = st == SG_OK ? s->primary[device] : NULL;
    pthread_mutex_unlock(&ctx->lock);
    if (st != SG_OK || (*out = have) != NULL)
        return st;

    CUdevice dev;
    CUcontext made;
    CUresult r = cuda.api.DeviceGet(&dev, device);
    if (r != CUDA_SUCCESS)
        return cuda_fail(err, r, "get CUDA device %d", device);
    if ((r = cuda.api.DevicePrimaryCtxRetain(&made, dev)) != CUDA_SUCCESS)
        return cuda_fail(err, r, "retain the primary context of CUDA device %d", device);
    pthread_mutex_lock(&ctx->lock);
    if (s->primary[device] == NULL) {
        s->primary[device] = made;
        made = NULL;
    }
    *out = s->primary[device];
    pthread_mutex_unlock(&ctx->lock);
    if (made != NULL) /* another thread retained it first */
        cuda.api.DevicePrimaryCtxRelease(dev);
    return SG_OK;
}

static sg_status push(CUcontext c, int device, sg_error *err)
{
    CUresult r = cuda.api.CtxPushCurrent(c);
    return r == CUDA_SUCCESS ? SG_OK
                             : cuda_fail(err, r, "make the context of CUDA device %d current", device);
}

static void pop(void)
{
    CUcontext c;
    cuda.api.CtxPopCurrent(&c);
}

/* The device's primary context, made current (pop() it afterwards). */
static sg_status enter(sg_context *ctx, int device, sg_error *err)
{
    CUcontext c;
    if (device_ready(device, err) != SG_OK || primary_context(ctx, device, &c, err) != SG_OK)
        return err->status;
    return push(c, device, err);
}

static void free_kernel(sg_cache_entry *entry)
{
    sg_cuda_kernel *k = (sg_cuda_kernel *)entry;
    if (k->module != NULL && cuda.api.CtxPushCurrent(k->primary) == CUDA_SUCCESS) {
        cuda.api.ModuleUnload(k->module);
        pop();
    }
    sg_plan_free(k->plan);
    k->plan = NULL;
    free(k->entry.key);
    free(k);
}

/* A driver's JIT log as one line: lines joined with "; ", blanks trimmed. */
static void one_line(char *log)
{
    char *w = log;
    for (const char *r = log; *r; r++) {
        if (*r == '\n' || *r == '\r') {
            while (w > log && (w[-1] == ' ' || w[-1] == ';'))
                w--;
            if (w > log && r[1] != '\0' && r[1] != '\n')
                *w++ = ';', *w++ = ' ';
            continue;
        }
        *w++ = *r;
    }
    while (w > log && (w[-1] == ' ' || w[-1] == ';'))
        w--;
    *w = '\0';
}

/* Compiles plan's kernel to PTX for k's device and loads it there. */
static sg_status build(sg_context *ctx, sg_cuda_kernel *k, const sg_plan *plan, const sg_nest_key *key,
                       sg_error *err)
{
    sg_cuda_device_info info;
    char symbol[SG_SYMBOL_MAX], *ptx = NULL;
    if (sg_cuda_device_describe(k->device, &info, err) != SG_OK)
        return err->status;
    if (info.cpu == NULL)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to compile CUDA kernel: device %d (%s) has compute capability %d.%d "
                       "(LLVM's NVPTX backend needs 3.0 or newer)",
                       k->device, info.name, info.major, info.minor);
    sg_codegen_symbol(plan, key, symbol);
    double t0 = now();
    if (sg_codegen_ptx(plan, symbol, info.cpu, k->opt_level, &ptx, err) != SG_OK)
        return err->status;
    k->codegen_s = now() - t0;

    if (primary_context(ctx, k->device, &k->primary, err) != SG_OK ||
        push(k->primary, k->device, err) != SG_OK) {
        free(ptx);
        return err->status;
    }
    char error_log[4096] = "", info_log[4096] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error_log, (void *)(uintptr_t)sizeof error_log, info_log,
                      (void *)(uintptr_t)sizeof info_log};
    t0 = now();
    CUresult r = cuda.api.ModuleLoadDataEx(&k->module, ptx, 4, options, values);
    if (r != CUDA_SUCCESS) {
        char why[256];
        error_log[sizeof error_log - 1] = '\0';
        one_line(error_log);
        k->module = NULL;
        sg_fail(err, r == CUDA_ERROR_OUT_OF_MEMORY ? SG_ERR_NOMEM : SG_ERR_INTERNAL,
                "failed to load CUDA kernel %s on device %d (%s): %s%s%s", symbol, k->device, info.cpu,
                describe(r, why), error_log[0] ? ": " : "", error_log);
    } else if ((r = cuda.api.ModuleGetFunction(&k->function, k->module, symbol)) != CUDA_SUCCESS) {
        cuda_fail(err, r, "find CUDA kernel %s in its module", symbol);
    }
    k->load_s = now() - t0;
    pop();
    free(ptx);
    return err->status;
}

/* What a compile needs besides the cache. */
typedef struct cuda_job {
    sg_context *ctx;
    const sg_plan *plan;
    int device, opt_level;
    sg_gpu_launch launch;
} cuda_job;

static void init_kernel(sg_cache_entry *entry, const void *arg)
{
    const cuda_job *job = arg;
    sg_cuda_kernel *k = (sg_cuda_kernel *)entry;
    k->ctx = job->ctx;
    k->in_bytes = job->plan->in_bytes;
    k->out_bytes = job->plan->out_bytes;
    k->device = job->device;
    k->opt_level = job->opt_level;
    k->launch = job->launch;
    if (job->plan->sym)
        k->launch.block_x = SG_GPU_BLOCK; /* the grid is each call's */
}

static sg_status build_kernel(sg_cache_entry *entry, const void *arg, sg_error *err)
{
    const cuda_job *job = arg;
    const sg_plan *plan = job->plan;
    sg_cuda_kernel *k = (sg_cuda_kernel *)entry;
    sg_nest_key key = {.hash = entry->hash};
    if (build(job->ctx, k, plan, &key, err) == SG_OK && plan->sym)
        sg_plan_build(plan->sym->spec, plan->in_rank, plan->in_shape, plan->dtype, &k->plan, err);
    return err->status;
}

static const sg_cache_kind cuda_kind = {sizeof(sg_cuda_kernel), "CUDA kernel", init_kernel, build_kernel,
                                        free_kernel};

static sg_status compile(sg_context *ctx, const sg_plan *plan, int device, int opt_level,
                         sg_cuda_kernel **out, sg_error *err)
{
    sg_nest_key key = {0};
    sg_cuda_state *s = NULL;
    cuda_job job = {ctx, plan, device, opt_level, {0}};
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile CUDA kernel: optimization level %d (0..3)",
                       opt_level);
    if (device_ready(device, err) != SG_OK || (!plan->sym && sg_gpu_launch_of(plan, &job.launch, err) != SG_OK))
        return err->status;
    pthread_mutex_lock(&ctx->lock);
    sg_status have = get_state(ctx, &s, err);
    pthread_mutex_unlock(&ctx->lock);
    if (have != SG_OK || sg_nest_key_make(plan, &key, err) != SG_OK)
        return err->status;
    const uint64_t variant[2] = {plan->in_bytes,
                                 (uint64_t)device | (uint64_t)opt_level << 32}; /* device >= 0 */
    sg_cache_entry *entry = NULL;
    if (sg_cache_get(&s->cache, &ctx->lock, &cuda_kind, &key, variant, &job, &entry, err) == SG_OK)
        *out = (sg_cuda_kernel *)entry;
    return err->status;
}

/* ---- the public API ------------------------------------------------------------------ */

sg_status sg_cuda_device_count(sg_context *ctx, int *count)
{
    sg_error err = {0};
    if (driver_ready(&err) == SG_OK)
        *count = cuda.devices;
    return sg_context_report(ctx, &err);
}

sg_status sg_cuda_kernel_compile_with(sg_context *ctx, const sg_plan *plan, const sg_compile_options *options,
                                      sg_cuda_kernel **kernel)
{
    sg_error err = {0};
    sg_compile_options o;
    if (sg_compile_options_read(options, SG_READ_CUDA, "compile CUDA kernel", &o, &err) == SG_OK)
        compile(ctx, plan, o.device, o.opt_level, kernel, &err);
    return sg_context_report(ctx, &err);
}

sg_status sg_cuda_kernel_compile(sg_context *ctx, const sg_plan *plan, int device, sg_cuda_kernel **kernel)
{
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.device = device;
    return sg_cuda_kernel_compile_with(ctx, plan, &o, kernel);
}

void sg_cuda_kernel_release(sg_cuda_kernel *kernel)
{
    sg_cuda_kernel_destroy(kernel);
}

void sg_cuda_kernel_destroy(sg_cuda_kernel *kernel)
{
    if (kernel == NULL)
        return;
    sg_context *ctx = kernel->ctx;
    pthread_mutex_lock(&ctx->lock);
    sg_cache_entry *victims = sg_cache_release(&ctx->cuda->cache, &kernel->entry);
    pthread_mutex_unlock(&ctx->lock);
    for (sg_cache_entry *next; victims; victims = next) {
        next = victims->next;
        free_kernel(victims);
    }
}

void sg_cuda_kernel_geometry(const sg_cuda_kernel *kernel, uint32_t *grid_x, uint32_t *block_x)
{
    *grid_x = kernel->launch.grid_x;
    *block_x = kernel->launch.block_x;
}

/* The checks of a launch over in and out (in_bytes and out_bytes), then
 * the launch of `geometry` on stream; args: a kernel of runtime values'
 * (passed by value), else NULL. */
static sg_status launch(const sg_cuda_kernel *k, uint64_t in, uint64_t out, uint64_t in_bytes,
                        uint64_t out_bytes, const sg_gpu_launch *geometry, const sg_args *args, void *stream,
                        sg_error *err)
{
    if (in % SG_GPU_ALIGN != 0 || out % SG_GPU_ALIGN != 0)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to launch CUDA kernel: the %s pointer 0x%llx is not aligned to %d bytes",
                       in % SG_GPU_ALIGN != 0 ? "input" : "output",
                       (unsigned long long)(in % SG_GPU_ALIGN != 0 ? in : out), SG_GPU_ALIGN);
    if (geometry->grid_x == 0)
        return SG_OK;
    if (out == 0)
        return sg_fail(err, SG_ERR_USAGE, "failed to launch CUDA kernel: the output pointer is 0");
    if (in_bytes > 0 && in < out + out_bytes && out < in + in_bytes)
        return sg_fail(
            err, SG_ERR_USAGE,
            "failed to launch CUDA kernel: the input [0x%llx, +%llu) and the output [0x%llx, +%llu) "
            "overlap",
            (unsigned long long)in, (unsigned long long)in_bytes, (unsigned long long)out,
            (unsigned long long)out_bytes);
    if (push(k->primary, k->device, err) != SG_OK)
        return err->status;
    CUdeviceptr pin = in, pout = out;
    void *params[] = {&pin, &pout, (void *)args};
    CUresult r = cuda.api.LaunchKernel(k->function, geometry->grid_x, 1, 1, geometry->block_x, 1, 1, 0,
                                       (CUstream)stream, params, NULL);
    pop();
    if (r != CUDA_SUCCESS)
        return cuda_fail(err, r, "launch CUDA kernel (%u blocks of %u threads on device %d)", geometry->grid_x,
                         geometry->block_x, k->device);
    return SG_OK;
}

/* A kernel used as the other kind: one of runtime values takes an sg_args. */
static sg_status wrong_kind(const sg_cuda_kernel *k, sg_error *err)
{
    return sg_fail(err, SG_ERR_USAGE,
                   k->plan ? "failed to launch CUDA kernel: it has runtime values or dimensions (prepare a call "
                             "with sg_cuda_kernel_prepare, launch it with sg_cuda_kernel_launch_args)"
                           : "failed to launch CUDA kernel: every number of it is known (launch it with "
                             "sg_cuda_kernel_launch)");
}

/* A prepared call's geometry, refused when its output needs too many blocks. */
static sg_status args_launch(const sg_args *args, sg_gpu_launch *geometry, sg_error *err)
{
    if (args->output_bytes < 0 || args->input_bytes < 0)
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to launch CUDA kernel: args hold a negative size (%lld input, %lld output "
                       "bytes): not a prepared call",
                       (long long)args->input_bytes, (long long)args->output_bytes);
    return sg_gpu_launch_for((uint64_t)args->output_bytes, geometry, err);
}

sg_status sg_cuda_kernel_launch(sg_context *ctx, const sg_cuda_kernel *kernel, uint64_t in, uint64_t out,
                                void *stream)
{
    sg_error err = {0};
    const sg_cuda_kernel *k = kernel;
    if (k->plan)
        wrong_kind(k, &err);
    else
        launch(k, in, out, k->in_bytes, k->out_bytes, &k->launch, NULL, stream, &err);
    return sg_context_report(ctx, &err);
}

sg_status sg_cuda_kernel_prepare(sg_context *ctx, const sg_cuda_kernel *kernel, const int64_t *in_shape,
                                 const int64_t *values, sg_args *args)
{
    sg_error err = {0};
    int code;
    if (kernel->plan == NULL)
        sg_fail(&err, SG_ERR_USAGE,
                "failed to prepare CUDA kernel: every number of it is known (it has nothing to prepare)");
    else
        sg_plan_prepare(kernel->plan, in_shape, values, (int64_t *)args, &code, &err);
    return sg_context_report(ctx, &err);
}

void sg_cuda_args_geometry(const sg_args *args, uint32_t *grid_x, uint32_t *block_x)
{
    sg_gpu_launch geometry = {0};
    sg_error err = {0};
    if (args_launch(args, &geometry, &err) != SG_OK)
        geometry = (sg_gpu_launch){0};
    *grid_x = geometry.grid_x;
    *block_x = SG_GPU_BLOCK;
}

sg_status sg_cuda_kernel_launch_args(sg_context *ctx, const sg_cuda_kernel *kernel, uint64_t in, uint64_t out,
                                     const sg_args *args, void *stream)
{
    sg_error err = {0};
    const sg_cuda_kernel *k = kernel;
    sg_gpu_launch geometry;
    if (k->plan == NULL)
        wrong_kind(k, &err);
    else if (args_launch(args, &geometry, &err) == SG_OK)
        launch(k, in, out, (uint64_t)args->input_bytes, (uint64_t)args->output_bytes, &geometry, args, stream,
               &err);
    return sg_context_report(ctx, &err);
}

/* Host buffers in and out: in_bytes of `in` copied to the device, the
 * kernel run, out_bytes copied back to `out`, all waited for. */
static sg_status run_on_host_buffers(sg_context *ctx, const sg_cuda_kernel *k, const void *in, void *out,
                                     uint64_t in_bytes, uint64_t out_bytes, const sg_gpu_launch *geometry,
                                     const sg_args *args, sg_error *err)
{
    uint64_t din = 0, dout = 0;
    if ((in == NULL && in_bytes > 0) || (out == NULL && out_bytes > 0))
        return sg_fail(err, SG_ERR_USAGE, "failed to run CUDA kernel: the %s buffer is NULL",
                       in == NULL && in_bytes > 0 ? "input" : "output");
    if (sg_cuda_alloc(ctx, k->device, in_bytes, &din, err) == SG_OK &&
        sg_cuda_alloc(ctx, k->device, out_bytes, &dout, err) == SG_OK &&
        sg_cuda_copy_to_device(ctx, k->device, din, in, in_bytes, err) == SG_OK &&
        launch(k, din, dout, in_bytes, out_bytes, geometry, args, NULL, err) == SG_OK &&
        sg_cuda_copy_to_host(ctx, k->device, out, dout, out_bytes, err) == SG_OK)
        sg_cuda_synchronize(ctx, k->device, NULL, err);
    sg_cuda_free(ctx, k->device, dout);
    sg_cuda_free(ctx, k->device, din);
    return err->status;
}

sg_status sg_cuda_run(sg_context *ctx, const sg_cuda_kernel *kernel, const void *in, void *out)
{
    sg_error err = {0};
    const sg_cuda_kernel *k = kernel;
    if (k->plan)
        wrong_kind(k, &err);
    else
        run_on_host_buffers(ctx, k, in, out, k->in_bytes, k->out_bytes, &k->launch, NULL, &err);
    return sg_context_report(ctx, &err);
}

sg_status sg_cuda_run_values(sg_context *ctx, const sg_cuda_kernel *kernel, const void *in,
                             const int64_t *in_shape, const int64_t *values, void *out)
{
    sg_error err = {0};
    const sg_cuda_kernel *k = kernel;
    sg_args args;
    sg_gpu_launch geometry;
    int code;
    if (k->plan == NULL)
        wrong_kind(k, &err);
    else if (sg_plan_prepare(k->plan, in_shape, values, (int64_t *)&args, &code, &err) == SG_OK &&
             args_launch(&args, &geometry, &err) == SG_OK)
        run_on_host_buffers(ctx, k, in, out, (uint64_t)args.input_bytes, (uint64_t)args.output_bytes, &geometry,
                            &args, &err);
    return sg_context_report(ctx, &err);
}

/* ---- internal --------------------------------------------------------------------------- */

sg_status sg_cuda_device_describe(int device, sg_cuda_device_info *info, sg_error *err)
{
    CUdevice dev;
    CUresult r;
    if (device_ready(device, err) != SG_OK)
        return err->status;
    *info = (sg_cuda_device_info){0};
    if ((r = cuda.api.DeviceGet(&dev, device)) != CUDA_SUCCESS)
        return cuda_fail(err, r, "get CUDA device %d", device);
    if ((r = cuda.api.DeviceGetAttribute(&info->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) !=
            CUDA_SUCCESS ||
        (r = cuda.api.DeviceGetAttribute(&info->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) !=
            CUDA_SUCCESS)
        return cuda_fail(err, r, "read the compute capability of CUDA device %d", device);
    if ((r = cuda.api.DeviceGetName(info->name, (int)sizeof info->name, dev)) != CUDA_SUCCESS)
        return cuda_fail(err, r, "read the name of CUDA device %d", device);
    info->name[sizeof info->name - 1] = '\0';
    info->cpu = sg_gpu_cpu_for(info->major, info->minor);
    return SG_OK;
}

sg_status sg_cuda_alloc(sg_context *ctx, int device, uint64_t bytes, uint64_t *ptr, sg_error *err)
{
    CUdeviceptr p;
    if (bytes > SIZE_MAX)
        return sg_fail(err, SG_ERR_NOMEM, "failed to allocate %llu bytes on CUDA device %d: too large",
                       (unsigned long long)bytes, device);
    if (enter(ctx, device, err) != SG_OK)
        return err->status;
    CUresult r = cuda.api.MemAlloc(&p, bytes > 0 ? (size_t)bytes : 1);
    pop();
    if (r != CUDA_SUCCESS)
        return cuda_fail(err, r, "allocate %llu bytes on CUDA device %d", (unsigned long long)bytes, device);
    *ptr = p;
    return SG_OK;
}

void sg_cuda_free(sg_context *ctx, int device, uint64_t ptr)
{
    sg_error err = {0};
    if (ptr != 0 && enter(ctx, device, &err) == SG_OK) {
        cuda.api.MemFree(ptr);
        pop();
    }
}

sg_status sg_cuda_copy_to_device(sg_context *ctx, int device, uint64_t dst, const void *src, uint64_t bytes,
                                 sg_error *err)
{
    if (bytes == 0)
        return SG_OK;
    if (enter(ctx, device, err) != SG_OK)
        return err->status;
    CUresult r = cuda.api.MemcpyHtoD(dst, src, (size_t)bytes);
    pop();
    return r == CUDA_SUCCESS
               ? SG_OK
               : cuda_fail(err, r, "copy %llu bytes to CUDA device %d", (unsigned long long)bytes, device);
}

sg_status sg_cuda_copy_to_host(sg_context *ctx, int device, void *dst, uint64_t src, uint64_t bytes,
                               sg_error *err)
{
    if (bytes == 0)
        return SG_OK;
    if (enter(ctx, device, err) != SG_OK)
        return err->status;
    CUresult r = cuda.api.MemcpyDtoH(dst, src, (size_t)bytes);
    pop();
    return r == CUDA_SUCCESS
               ? SG_OK
               : cuda_fail(err, r, "copy %llu bytes from CUDA device %d", (unsigned long long)bytes, device);
}

sg_status sg_cuda_copy_on_device(sg_context *ctx, int device, uint64_t dst, uint64_t src, uint64_t bytes,
                                 void *stream, sg_error *err)
{
    if (bytes == 0)
        return SG_OK;
    if (enter(ctx, device, err) != SG_OK)
        return err->status;
    CUresult r = cuda.api.MemcpyDtoDAsync(dst, src, (size_t)bytes, (CUstream)stream);
    pop();
    return r == CUDA_SUCCESS ? SG_OK
                             : cuda_fail(err, r, "copy %llu bytes within CUDA device %d",
                                         (unsigned long long)bytes, device);
}

sg_status sg_cuda_synchronize(sg_context *ctx, int device, void *stream, sg_error *err)
{
    if (enter(ctx, device, err) != SG_OK)
        return err->status;
    CUresult r = cuda.api.StreamSynchronize((CUstream)stream);
    pop();
    return r == CUDA_SUCCESS ? SG_OK : cuda_fail(err, r, "wait for CUDA device %d", device);
}

struct sg_cuda_timer {
    CUcontext primary;
    int device;
    CUstream stream;
    CUevent start, stop;
};

sg_status sg_cuda_timer_create(sg_context *ctx, int device, sg_cuda_timer **timer, sg_error *err)
{
    sg_cuda_timer *t = calloc(1, sizeof *t);
    CUresult r = CUDA_SUCCESS;
    if (t == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to create a CUDA timer: out of memory");
    t->device = device;
    if (device_ready(device, err) != SG_OK || primary_context(ctx, device, &t->primary, err) != SG_OK ||
        push(t->primary, device, err) != SG_OK) {
        free(t);
        return err->status;
    }
    if ((r = cuda.api.StreamCreate(&t->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
        cuda_fail(err, r, "create a stream on CUDA device %d", device);
    else if ((r = cuda.api.EventCreate(&t->start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
             (r = cuda.api.EventCreate(&t->stop, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
        cuda_fail(err, r, "create an event on CUDA device %d", device);
    pop();
    if (r != CUDA_SUCCESS) {
        sg_cuda_timer_destroy(t);
        return err->status;
    }
    *timer = t;
    return SG_OK;
}

void *sg_cuda_timer_stream(const sg_cuda_timer *timer)
{
    return timer->stream;
}

sg_status sg_cuda_timer_start(sg_cuda_timer *t, sg_error *err)
{
    if (push(t->primary, t->device, err) != SG_OK)
        return err->status;
    CUresult r = cuda.api.EventRecord(t->start, t->stream);
    pop();
    return r == CUDA_SUCCESS ? SG_OK : cuda_fail(err, r, "record an event on CUDA device %d", t->device);
}

sg_status sg_cuda_timer_stop(sg_cuda_timer *t, double *seconds, sg_error *err)
{
    float ms = 0;
    CUresult r;
    if (push(t->primary, t->device, err) != SG_OK)
        return err->status;
    if ((r = cuda.api.EventRecord(t->stop, t->stream)) != CUDA_SUCCESS)
        cuda_fail(err, r, "record an event on CUDA device %d", t->device);
    else if ((r = cuda.api.EventSynchronize(t->stop)) != CUDA_SUCCESS)
        cuda_fail(err, r, "wait for an event on CUDA device %d", t->device);
    else if ((r = cuda.api.EventElapsedTime(&ms, t->start, t->stop)) != CUDA_SUCCESS)
        cuda_fail(err, r, "time events on CUDA device %d", t->device);
    pop();
    *seconds = (double)ms * 1e-3;
    return err->status;
}

void sg_cuda_timer_destroy(sg_cuda_timer *t)
{
    if (t == NULL)
        return;
    if (cuda.api.CtxPushCurrent(t->primary) == CUDA_SUCCESS) {
        if (t->start != NULL)
            cuda.api.EventDestroy(t->start);
        if (t->stop != NULL)
            cuda.api.EventDestroy(t->stop);
        if (t->stream != NULL)
            cuda.api.StreamDestroy(t->stream);
        pop();
    }
    free(t);
}

void sg_cuda_kernel_times(const sg_cuda_kernel *kernel, double *codegen_s, double *load_s)
{
    *codegen_s = kernel->codegen_s;
    *load_s = kernel->load_s;
}

void sg_cuda_cache_stats(sg_context *ctx, sg_cuda_stats *stats)
{
    pthread_mutex_lock(&ctx->lock);
    const sg_cuda_state *s = ctx->cuda;
    *stats = s ? (sg_cuda_stats){s->cache.compiles, s->cache.hits, s->cache.count, s->cache.nidle}
               : (sg_cuda_stats){0};
    pthread_mutex_unlock(&ctx->lock);
}

void sg_cuda_destroy(sg_context *ctx)
{
    sg_cuda_state *s = ctx->cuda;
    if (s == NULL)
        return;
    sg_cache_fini(&s->cache, free_kernel);
    for (int d = 0; d < s->ndevices; d++) {
        CUdevice dev;
        if (s->primary[d] != NULL && cuda.api.DeviceGet(&dev, d) == CUDA_SUCCESS)
            cuda.api.DevicePrimaryCtxRelease(dev);
    }
    free(s->primary);
    free(s);
    ctx->cuda = NULL;
}

/* A fake CUDA driver for the tests, built as libcuda.so.1 in a folder of
 * the build tree that a test puts on LD_LIBRARY_PATH. It implements the
 * driver entry points slicegen loads on host memory: device pointers are
 * host addresses of blocks it tracks (copies outside a block fail as a
 * driver would), contexts are pushed and popped per thread (calls that
 * need a current context fail without one), events read the host clock.
 * It cannot run PTX: cuLaunchKernel records the launch and writes
 * FAKE_CUDA_MARKER over the output (see fake_cuda.h).
 *
 * FAKE_CUDA (read at every call) picks what goes wrong:
 *   ok (or unset)  every call works
 *   no-device      cuInit fails with CUDA_ERROR_NO_DEVICE, as on a machine without a GPU
 *   init-fails     cuInit fails with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
 *   load-fails     cuModuleLoadDataEx fails with CUDA_ERROR_INVALID_PTX and the
 *                  error log "ptxas fatal: fake log line"
 *   oom            cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY
 *   launch-fails   cuLaunchKernel fails with CUDA_ERROR_LAUNCH_FAILED
 * FAKE_CUDA_DEVICES: how many devices (default 1); FAKE_CUDA_CC: their
 * compute capability, "8.0" by default. FAKE_CUDA_LOG: a file to which
 * each launch appends a line "launch NAME grid=X,Y,Z block=X,Y,Z shared=N
 * in=0x.. out=0x.." (and " args.output_bytes=N" for a kernel of runtime
 * values, whose third parameter is its slicegen_args). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/cuda_driver.h"
#include "fake_cuda.h"

enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    NOT_INITIALIZED = 3,
    NO_DEVICE = 100,
    INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201,
    INVALID_PTX = 218,
    INVALID_HANDLE = 400,
    NOT_FOUND = 500,
    LAUNCH_FAILED = 719,
    SYSTEM_DRIVER_MISMATCH = 803
};

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {SUCCESS, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
};

struct CUctx_st {
    int device;
};
struct CUfunc_st {
    char name[128];
    int takes_args; /* a third parameter, slicegen_args by value (a kernel of runtime values) */
};
struct CUmod_st {
    char *image;
    struct CUfunc_st function; /* the last one looked up: slicegen's modules hold one */
};
struct CUstream_st {
    int unused;
};
struct CUevent_st {
    double at;
};

typedef struct block {
    struct block *next;
    unsigned char *data;
    size_t size;
} block;

enum { MAX_DEVICES = 8, MAX_DEPTH = 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialised;
static struct CUctx_st primaries[MAX_DEVICES];
static int retains[MAX_DEVICES];
static block *blocks;
static fake_cuda_counts counts;
static fake_cuda_launch last;
static _Thread_local CUcontext stack[MAX_DEPTH];
static _Thread_local int depth;

static int mode(const char *name)
{
    const char *m = getenv("FAKE_CUDA");
    return strcmp(m && *m ? m : "ok", name) == 0;
}

static int devices(void)
{
    const char *d = getenv("FAKE_CUDA_DEVICES");
    int n = d ? atoi(d) : 1;
    return n < 0 ? 0 : n > MAX_DEVICES ? MAX_DEVICES : n;
}

static double clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The tracked block holding [p, p + n); NULL if none does. lock held. */
static block *find(CUdeviceptr p, size_t n)
{
    for (block *b = blocks; b; b = b->next) {
        uintptr_t start = (uintptr_t)b->data;
        if (p >= start && p <= start + b->size && n <= start + b->size - p)
            return b;
    }
    return NULL;
}

/* Every call but the error names needs cuInit; most need a current context. */
#define NEED_INIT()                                                                                          \
    do {                                                                                                     \
        if (!initialised)                                                                                    \
            return NOT_INITIALIZED;                                                                          \
    } while (0)
#define NEED_CONTEXT()                                                                                       \
    do {                                                                                                     \
        NEED_INIT();                                                                                         \
        if (depth == 0)                                                                                      \
            return INVALID_CONTEXT;                                                                          \
    } while (0)

CUresult cuGetErrorName(CUresult error, const char **p)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == error) {
            *p = errors[i].name;
            return SUCCESS;
        }
    }
    *p = NULL;
    return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **p)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        if (errors[i].code == error) {
            *p = errors[i].text;
            return SUCCESS;
        }
    }
    *p = NULL;
    return INVALID_VALUE;
}

CUresult cuInit(unsigned flags)
{
    if (flags != 0)
        return INVALID_VALUE;
    if (mode("no-device"))
        return NO_DEVICE;
    if (mode("init-fails"))
        return SYSTEM_DRIVER_MISMATCH;
    initialised = 1;
    return SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
    NEED_INIT();
    *count = devices();
    return SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    NEED_INIT();
    if (ordinal < 0 || ordinal >= devices())
        return INVALID_DEVICE;
    *device = ordinal;
    return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device)
{
    NEED_INIT();
    const char *cc = getenv("FAKE_CUDA_CC");
    int major = 8, minor = 0;
    if (cc != NULL)
        sscanf(cc, "%d.%d", &major, &minor);
    if (device < 0 || device >= devices())
        return INVALID_DEVICE;
    if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        *value = major;
    else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        *value = minor;
    else
        return INVALID_VALUE;
    return SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device)
{
    NEED_INIT();
    if (device < 0 || device >= devices() || len <= 0)
        return INVALID_VALUE;
    snprintf(name, (size_t)len, "Fake CUDA Device %d", device);
    return SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device)
{
    NEED_INIT();
    if (device < 0 || device >= devices())
        return INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    retains[device]++;
    counts.retained++;
    primaries[device].device = device;
    *ctx = &primaries[device];
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device)
{
    NEED_INIT();
    if (device < 0 || device >= devices())
        return INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    CUresult r = retains[device] > 0 ? SUCCESS : INVALID_CONTEXT;
    if (r == SUCCESS)
        retains[device]--, counts.retained--;
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    NEED_INIT();
    if (ctx == NULL || depth == MAX_DEPTH || retains[ctx->device] == 0)
        return INVALID_CONTEXT;
    stack[depth++] = ctx;
    return SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
    NEED_CONTEXT();
    CUcontext c = stack[--depth];
    if (ctx != NULL)
        *ctx = c;
    return SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned n, CUjit_option *options,
                            void **values)
{
    NEED_CONTEXT();
    char *error_log = NULL, *info_log = NULL;
    unsigned error_size = 0, info_size = 0;
    int error_at = -1, info_at = -1;
    for (unsigned i = 0; i < n; i++) {
        switch (options[i]) {
        case CU_JIT_INFO_LOG_BUFFER:
            info_log = values[i];
            break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            info_size = (unsigned)(uintptr_t)values[i], info_at = (int)i;
            break;
        case CU_JIT_ERROR_LOG_BUFFER:
            error_log = values[i];
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            error_size = (unsigned)(uintptr_t)values[i], error_at = (int)i;
            break;
        default:
            return INVALID_VALUE;
        }
    }
    if (image == NULL)
        return INVALID_VALUE;
    if (mode("load-fails")) {
        const char *log = "ptxas fatal: fake log line\n";
        if (error_log != NULL && error_size > 0) {
            snprintf(error_log, error_size, "%s", log);
            values[error_at] = (void *)(uintptr_t)(strlen(error_log) + 1);
        }
        return INVALID_PTX;
    }
    if (info_log != NULL && info_size > 0) {
        snprintf(info_log, info_size, "fake: %zu bytes of PTX loaded", strlen(image));
        values[info_at] = (void *)(uintptr_t)(strlen(info_log) + 1);
    }
    if (error_log != NULL && error_size > 0) {
        error_log[0] = '\0';
        values[error_at] = (void *)(uintptr_t)0;
    }
    CUmodule m = malloc(sizeof *m);
    if (m == NULL || (m->image = strdup(image)) == NULL) {
        free(m);
        return OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&lock);
    counts.modules++;
    counts.loads++;
    pthread_mutex_unlock(&lock);
    *module = m;
    return SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name)
{
    NEED_CONTEXT();
    if (module == NULL || name == NULL)
        return INVALID_HANDLE;
    if (strstr(module->image, name) == NULL)
        return NOT_FOUND;
    snprintf(module->function.name, sizeof module->function.name, "%s", name);
    char param[160];
    snprintf(param, sizeof param, "%s_param_2", name);
    module->function.takes_args = strstr(module->image, param) != NULL;
    *fn = &module->function;
    return SUCCESS;
}

CUresult cuModuleUnload(CUmodule module)
{
    NEED_CONTEXT();
    if (module == NULL)
        return INVALID_HANDLE;
    free(module->image);
    free(module);
    pthread_mutex_lock(&lock);
    counts.modules--;
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **params, void **extra)
{
    NEED_CONTEXT();
    if (f == NULL)
        return INVALID_HANDLE;
    if (params == NULL || extra != NULL || gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0)
        return INVALID_VALUE;
    if (mode("launch-fails"))
        return LAUNCH_FAILED;
    CUdeviceptr in, out;
    memcpy(&in, params[0], sizeof in);
    memcpy(&out, params[1], sizeof out);
    pthread_mutex_lock(&lock);
    block *b = find(out, 1);
    if (b == NULL) {
        pthread_mutex_unlock(&lock);
        return LAUNCH_FAILED; /* an illegal address */
    }
    size_t room = (size_t)((uintptr_t)b->data + b->size - out);
    unsigned long long chunks = 16ull * gx * gy * gz * bx * by * bz;
    memset((void *)(uintptr_t)out, FAKE_CUDA_MARKER, room < chunks ? room : (size_t)chunks);
    last = (fake_cuda_launch){.grid = {gx, gy, gz},
                              .block = {bx, by, bz},
                              .shared = shared,
                              .stream = stream,
                              .in = in,
                              .out = out};
    snprintf(last.name, sizeof last.name, "%s", f->name);
    counts.launches++;
    const char *path = getenv("FAKE_CUDA_LOG");
    FILE *log = path ? fopen(path, "a") : NULL;
    if (log != NULL) {
        fprintf(log, "launch %s grid=%u,%u,%u block=%u,%u,%u shared=%u in=0x%llx out=0x%llx", f->name, gx, gy,
                gz, bx, by, bz, shared, in, out);
        if (f->takes_args) { /* slicegen_args: output_bytes after out_rank, reserved, out_shape[64], outer_extent, input_bytes */
            long long output_bytes;
            memcpy(&output_bytes, (const char *)params[2] + 8 + 64 * 8 + 16, sizeof output_bytes);
            fprintf(log, " args.output_bytes=%lld", output_bytes);
        }
        fputc('\n', log);
        fclose(log);
    }
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size)
{
    NEED_CONTEXT();
    if (size == 0)
        return INVALID_VALUE;
    if (mode("oom"))
        return OUT_OF_MEMORY;
    block *b = malloc(sizeof *b);
    if (b == NULL || (b->data = aligned_alloc(256, (size + 255) / 256 * 256)) == NULL) {
        free(b);
        return OUT_OF_MEMORY;
    }
    memset(b->data, 0xee, size); /* device memory is not zeroed */
    b->size = size;
    pthread_mutex_lock(&lock);
    b->next = blocks;
    blocks = b;
    counts.allocations++;
    pthread_mutex_unlock(&lock);
    *p = (uintptr_t)b->data;
    return SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
    NEED_CONTEXT();
    pthread_mutex_lock(&lock);
    for (block **at = &blocks; *at; at = &(*at)->next) {
        block *b = *at;
        if ((uintptr_t)b->data == p) {
            *at = b->next;
            counts.allocations--;
            pthread_mutex_unlock(&lock);
            free(b->data);
            free(b);
            return SUCCESS;
        }
    }
    pthread_mutex_unlock(&lock);
    return INVALID_VALUE;
}

/* A copy into or out of device memory: both ends checked. */
static CUresult copy(CUdeviceptr dst, int dst_device, CUdeviceptr src, int src_device, size_t n)
{
    pthread_mutex_lock(&lock);
    int ok = (!dst_device || find(dst, n) != NULL) && (!src_device || find(src, n) != NULL);
    pthread_mutex_unlock(&lock);
    if (!ok)
        return INVALID_VALUE;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    NEED_CONTEXT();
    return copy(dst, 1, (uintptr_t)src, 0, n);
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    NEED_CONTEXT();
    return copy((uintptr_t)dst, 0, src, 1, n);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream)
{
    NEED_CONTEXT();
    (void)stream;
    return copy(dst, 1, src, 1, n);
}

CUresult cuStreamCreate(CUstream *stream, unsigned flags)
{
    NEED_CONTEXT();
    (void)flags;
    if ((*stream = calloc(1, sizeof **stream)) == NULL)
        return OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    counts.streams++;
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream)
{
    NEED_CONTEXT();
    if (stream == NULL)
        return INVALID_HANDLE;
    free(stream);
    pthread_mutex_lock(&lock);
    counts.streams--;
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream)
{
    NEED_CONTEXT();
    (void)stream; /* everything ran when it was queued */
    return SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned flags)
{
    NEED_CONTEXT();
    (void)flags;
    if ((*event = calloc(1, sizeof **event)) == NULL)
        return OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    counts.events++;
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream)
{
    NEED_INIT();
    (void)stream;
    if (event == NULL)
        return INVALID_HANDLE;
    event->at = clock_ms();
    return SUCCESS;
}

CUresult cuEventSynchronize(CUevent event)
{
    NEED_INIT();
    return event == NULL ? INVALID_HANDLE : SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent stop)
{
    NEED_INIT();
    if (start == NULL || stop == NULL)
        return INVALID_HANDLE;
    *ms = (float)(stop->at - start->at) + 0.001f; /* a real event's resolution: never 0 */
    return SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event)
{
    NEED_CONTEXT();
    if (event == NULL)
        return INVALID_HANDLE;
    free(event);
    pthread_mutex_lock(&lock);
    counts.events--;
    pthread_mutex_unlock(&lock);
    return SUCCESS;
}

/* ---- for the tests (fake_cuda.h) ---- */

void fake_cuda_counts_get(fake_cuda_counts *c)
{
    pthread_mutex_lock(&lock);
    *c = counts;
    c->current = depth;
    pthread_mutex_unlock(&lock);
}

long fake_cuda_last_launch(fake_cuda_launch *launch)
{
    pthread_mutex_lock(&lock);
    *launch = last;
    long n = counts.launches;
    pthread_mutex_unlock(&lock);
    return n;
}

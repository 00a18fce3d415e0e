/*
 * The CUDA calls of slicegen.h without a GPU: against the fake driver
 * (tests/support/fake_cuda.c, loaded as libcuda.so.1 through LD_LIBRARY_PATH), and
 * with no driver at all. tests/runtime/cuda_test.sh runs it once per scenario:
 *
 *   test_cuda no-driver    libcuda.so.1 cannot be loaded: every call is SG_ERR_USAGE naming it
 *   test_cuda no-device    FAKE_CUDA=no-device: 0 devices; a compile is SG_ERR_USAGE "no CUDA device"
 *   test_cuda init-fails   FAKE_CUDA=init-fails: SG_ERR_USAGE with the driver's error name
 *   test_cuda fake         the fake with 2 devices: device ordinals out of range, the cache (a
 *                          second compile is a hit, equal nests share a kernel, devices do
 *                          not, 8 threads compile one new plan once, the idle limit),
 *                          launch geometry and parameters, 16-byte alignment, an empty
 *                          output, sg_cuda_run, a driver that refuses the PTX (its log in
 *                          the message), runs out of memory or fails a launch, timers; at
 *                          the end no device memory, module, stream, event or context
 *                          reference is left (AddressSanitizer's leak check covers the rest)
 *
 * The real GPU is tested by test_corpus --device cuda. Prints failed
 * checks, then "cuda: N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../codegen/codegen.h"
#include "../../runtime/runtime.h"
#include "../support/check.h"
#include "../support/fake_cuda.h"

typedef struct suite {
    check_counts counts;
} suite;

static suite S = {CHECK_COUNTS_INIT};

static sg_plan *numpy_plan(sg_context *ctx, const char *expr, size_t rank, const int64_t *shape,
                           sg_dtype dtype)
{
    sg_spec *spec;
    sg_plan *plan = NULL;
    if (sg_spec_numpy(ctx, expr, &spec) == SG_OK) {
        sg_plan_create(ctx, spec, rank, shape, dtype, &plan);
        sg_spec_destroy(spec);
    }
    CHECK(&S, plan != NULL, "plan '%s': %s", expr, sg_context_last_error(ctx));
    return plan;
}

/* st is `want` and the last error contains each of the texts (NULL-terminated). */
static void expect(sg_context *ctx, sg_status st, sg_status want, const char *what, ...)
{
    va_list ap;
    if (!CHECK(&S, st == want, "%s: status %s, expected %s (%s)", what, sg_status_name(st),
               sg_status_name(want), sg_context_last_error(ctx)))
        return;
    va_start(ap, what);
    for (const char *text; (text = va_arg(ap, const char *)) != NULL;)
        CHECK(&S, strstr(sg_context_last_error(ctx), text) != NULL, "%s: the message lacks '%s': %s", what,
              text, sg_context_last_error(ctx));
    va_end(ap);
}

/* The scenarios in which the driver cannot be used. */
static void unusable(const char *scenario)
{
    sg_context *ctx;
    sg_context_create(&ctx);
    int64_t shape[] = {8, 8};
    sg_plan *plan = numpy_plan(ctx, "[1:, ::2]", 2, shape, SG_F32);
    sg_cuda_kernel *k = NULL;
    int count = -1;
    sg_status st = sg_cuda_device_count(ctx, &count);
    if (strcmp(scenario, "no-driver") == 0) {
        expect(ctx, st, SG_ERR_USAGE, "device count without a driver",
               "failed to use CUDA: cannot load libcuda.so.1", "no NVIDIA driver", (char *)NULL);
        expect(ctx, sg_cuda_kernel_compile(ctx, plan, 0, &k), SG_ERR_USAGE, "compile without a driver",
               "libcuda.so.1", (char *)NULL);
    } else if (strcmp(scenario, "no-device") == 0) {
        CHECK(&S, st == SG_OK && count == 0, "device count without a device: %s, %d (%s)", sg_status_name(st),
              count, sg_context_last_error(ctx));
        expect(ctx, sg_cuda_kernel_compile(ctx, plan, 0, &k), SG_ERR_USAGE, "compile without a device",
               "failed to use CUDA: no CUDA device (CUDA_ERROR_NO_DEVICE", (char *)NULL);
    } else {
        expect(ctx, st, SG_ERR_USAGE, "device count when cuInit fails",
               "failed to use CUDA: the driver does not start", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
               (char *)NULL);
        expect(ctx, sg_cuda_kernel_compile(ctx, plan, 0, &k), SG_ERR_USAGE, "compile when cuInit fails",
               "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", (char *)NULL);
    }
    CHECK(&S, k == NULL, "a kernel was returned on failure");
    uint64_t p = 0;
    sg_error err = {0};
    CHECK(&S, sg_cuda_alloc(ctx, 0, 64, &p, &err) == SG_ERR_USAGE,
          "device memory without a usable driver: %s", sg_status_name(err.status));
    sg_plan_destroy(plan);
    sg_context_destroy(ctx);
}

/* ---- the fake ------------------------------------------------------------------ */

static fake_cuda_counts_fn fake_counts;
static fake_cuda_last_launch_fn fake_last_launch;

static fake_cuda_counts counts(void)
{
    fake_cuda_counts c;
    fake_counts(&c);
    return c;
}

static sg_cuda_stats stats(sg_context *ctx)
{
    sg_cuda_stats s;
    sg_cuda_cache_stats(ctx, &s);
    return s;
}

/* The functions of the fake, from the libcuda.so.1 slicegen loaded. */
static bool find_fake(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *a = lib ? dlsym(lib, "fake_cuda_counts_get") : NULL,
         *b = lib ? dlsym(lib, "fake_cuda_last_launch") : NULL;
    if (!CHECK(&S, a != NULL && b != NULL, "the libcuda.so.1 loaded is not the fake (LD_LIBRARY_PATH=%s)",
               getenv("LD_LIBRARY_PATH") ? getenv("LD_LIBRARY_PATH") : ""))
        return false;
    memcpy(&fake_counts, &a, sizeof a);
    memcpy(&fake_last_launch, &b, sizeof b);
    return true;
}

typedef struct racer {
    sg_context *ctx;
    const sg_plan *plan;
    sg_cuda_kernel *kernel;
    sg_status status;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    r->status = sg_cuda_kernel_compile(r->ctx, r->plan, 0, &r->kernel);
    return NULL;
}

/* Needs the code generator's PTX (not the fake's part). */
static void with_kernels(sg_context *ctx)
{
    int64_t shape[] = {8, 64}, big[] = {1000, 1000};
    sg_plan *plan = numpy_plan(ctx, "[1:, ::2]", 2, shape, SG_F32);
    sg_plan *twin = numpy_plan(ctx, "[1:, ::2]", 2, shape, SG_I32); /* the same nest and input size */
    sg_plan *empty = numpy_plan(ctx, "[3:3]", 2, shape, SG_F32);
    sg_plan *large = numpy_plan(ctx, "[::-1, 1:]", 2, big, SG_U8);
    sg_cuda_kernel *k = NULL, *k2 = NULL, *kt = NULL, *k1 = NULL, *ke = NULL, *kl = NULL;
    sg_error err = {0};
    if (!plan || !twin || !empty || !large)
        goto done;

    /* Compile, then the cache. */
    if (!CHECK(&S, sg_cuda_kernel_compile(ctx, plan, 0, &k) == SG_OK, "compile: %s",
               sg_context_last_error(ctx)))
        goto done;
    CHECK(&S, counts().loads == 1 && stats(ctx).compiles == 1, "one module loaded: %ld", counts().loads);
    CHECK(&S, sg_cuda_kernel_compile(ctx, plan, 0, &k2) == SG_OK && k2 == k,
          "a second compile is the same kernel");
    CHECK(&S, sg_cuda_kernel_compile(ctx, twin, 0, &kt) == SG_OK && kt == k, "i32 shares the f32 kernel");
    CHECK(&S, stats(ctx).hits == 2 && stats(ctx).compiles == 1 && counts().loads == 1,
          "two hits, one compile: %llu hits, %llu compiles, %ld loads", (unsigned long long)stats(ctx).hits,
          (unsigned long long)stats(ctx).compiles, counts().loads);
    CHECK(&S, sg_cuda_kernel_compile(ctx, plan, 1, &k1) == SG_OK && k1 != k && counts().loads == 2,
          "device 1 gets a kernel of its own");
    /* sg_compile_options: the device and the optimization level are read,
     * and kernels of another level are cached apart */
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.device = 1;
    sg_cuda_kernel *k1_with = NULL, *k1_o3 = NULL;
    CHECK(&S,
          sg_cuda_kernel_compile_with(ctx, plan, &o, &k1_with) == SG_OK && k1_with == k1 &&
              counts().loads == 2,
          "sg_cuda_kernel_compile_with of device 1 finds device 1's kernel: %s", sg_context_last_error(ctx));
    o.opt_level = 3;
    CHECK(&S,
          sg_cuda_kernel_compile_with(ctx, plan, &o, &k1_o3) == SG_OK && k1_o3 != k1 && counts().loads == 3,
          "-O3 gets a kernel of its own: %s", sg_context_last_error(ctx));
    sg_cuda_kernel_destroy(k1_with);
    sg_cuda_kernel_destroy(k1_o3);
    double codegen_s = -1, load_s = -1;
    sg_cuda_kernel_times(k, &codegen_s, &load_s);
    CHECK(&S, codegen_s >= 0 && load_s >= 0, "compile times %g %g", codegen_s, load_s);

    /* Geometry and the launch's parameters. */
    sg_gpu_launch want;
    uint32_t grid = 0, block = 0;
    sg_gpu_launch_of(plan, &want, &err);
    sg_cuda_kernel_geometry(k, &grid, &block);
    CHECK(&S, grid == want.grid_x && block == want.block_x && grid > 0, "geometry %u x %u, expected %u x %u",
          grid, block, want.grid_x, want.block_x);
    uint64_t in = 0, out = 0;
    if (!CHECK(&S,
               sg_cuda_alloc(ctx, 0, 4096, &in, &err) == SG_OK &&
                   sg_cuda_alloc(ctx, 0, 4096, &out, &err) == SG_OK,
               "device memory: %s", err.message))
        goto done;
    CHECK(&S, in % 256 == 0 && out % 256 == 0, "device memory aligned to 256");
    long before = fake_last_launch(&(fake_cuda_launch){0});
    expect(ctx, sg_cuda_kernel_launch(ctx, k, in + 4, out, NULL), SG_ERR_USAGE, "misaligned input",
           "input pointer", "not aligned to 16 bytes", (char *)NULL);
    expect(ctx, sg_cuda_kernel_launch(ctx, k, in, out + 8, NULL), SG_ERR_USAGE, "misaligned output",
           "output pointer", "not aligned to 16 bytes", (char *)NULL);
    expect(ctx, sg_cuda_kernel_launch(ctx, k, in, 0, NULL), SG_ERR_USAGE, "null output",
           "output pointer is 0", (char *)NULL);
    expect(ctx, sg_cuda_kernel_launch(ctx, k, in, in + 16, NULL), SG_ERR_USAGE, "overlap", "overlap",
           (char *)NULL);
    CHECK(&S, fake_last_launch(&(fake_cuda_launch){0}) == before, "a refused launch reached the driver");
    CHECK(&S, sg_cuda_kernel_launch(ctx, k, in + 16, out + 32, NULL) == SG_OK, "launch: %s",
          sg_context_last_error(ctx));
    fake_cuda_launch l;
    char symbol[SG_SYMBOL_MAX];
    sg_nest_key key = {0};
    sg_nest_key_make(plan, &key, &err);
    sg_codegen_symbol(plan, &key, symbol);
    sg_nest_key_free(&key);
    CHECK(&S, fake_last_launch(&l) == before + 1, "one launch");
    CHECK(&S, strcmp(l.name, symbol) == 0, "launched '%s', expected '%s'", l.name, symbol);
    CHECK(&S,
          l.grid[0] == grid && l.grid[1] == 1 && l.grid[2] == 1 && l.block[0] == block && l.block[1] == 1 &&
              l.block[2] == 1 && l.shared == 0 && l.stream == NULL,
          "launch grid %u,%u,%u block %u,%u,%u shared %u", l.grid[0], l.grid[1], l.grid[2], l.block[0],
          l.block[1], l.block[2], l.shared);
    CHECK(&S, l.in == in + 16 && l.out == out + 32, "parameters 0x%llx 0x%llx", l.in, l.out);
    CHECK(&S, counts().current == 0, "%d contexts left current", counts().current);

    /* sg_cuda_run: the output comes back (the fake's marker), nothing past it is written. */
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    unsigned char *hin = calloc(1, in_bytes), *hout = malloc(out_bytes + 64);
    memset(hout, 0, out_bytes + 64);
    CHECK(&S, sg_cuda_run(ctx, k, hin, hout) == SG_OK, "sg_cuda_run: %s", sg_context_last_error(ctx));
    bool marked = true, spared = true;
    for (uint64_t i = 0; i < out_bytes; i++)
        marked = marked && hout[i] == FAKE_CUDA_MARKER;
    for (uint64_t i = out_bytes; i < out_bytes + 64; i++)
        spared = spared && hout[i] == 0;
    CHECK(&S, marked && spared, "sg_cuda_run: output copied back %d, nothing past it %d", marked, spared);
    expect(ctx, sg_cuda_run(ctx, k, NULL, hout), SG_ERR_USAGE, "sg_cuda_run without input",
           "input buffer is NULL", (char *)NULL);

    /* An empty output launches nothing. */
    CHECK(&S, sg_cuda_kernel_compile(ctx, empty, 0, &ke) == SG_OK, "compile empty: %s",
          sg_context_last_error(ctx));
    if (ke != NULL) {
        sg_cuda_kernel_geometry(ke, &grid, &block);
        before = fake_last_launch(&l);
        CHECK(&S, grid == 0, "an empty output has grid %u", grid);
        CHECK(&S,
              sg_cuda_kernel_launch(ctx, ke, in, out, NULL) == SG_OK &&
                  sg_cuda_run(ctx, ke, hin, NULL) == SG_OK,
              "empty output: %s", sg_context_last_error(ctx));
        CHECK(&S, fake_last_launch(&l) == before, "an empty output was launched");
    }

    /* A larger grid: 1 MB of output over 16-byte chunks and blocks of 256. */
    if (CHECK(&S, sg_cuda_kernel_compile(ctx, large, 0, &kl) == SG_OK, "compile large: %s",
              sg_context_last_error(ctx))) {
        sg_gpu_launch_of(large, &want, &err);
        sg_cuda_kernel_geometry(kl, &grid, &block);
        CHECK(&S, grid == want.grid_x && block == want.block_x && (uint64_t)grid * block * 16 >= 999000,
              "large geometry %u x %u", grid, block);
    }

    /* The driver's failures, picked through FAKE_CUDA at run time. */
    int64_t other[] = {9, 64};
    sg_plan *fresh = numpy_plan(ctx, "[::3]", 2, other, SG_F32);
    sg_cuda_kernel *kf = NULL;
    sg_cuda_stats s0 = stats(ctx);
    setenv("FAKE_CUDA", "load-fails", 1);
    for (int attempt = 0; attempt < 2; attempt++)
        expect(ctx, sg_cuda_kernel_compile(ctx, fresh, 0, &kf), SG_ERR_INTERNAL, "a PTX load failure",
               "failed to load CUDA kernel", "CUDA_ERROR_INVALID_PTX", "ptxas fatal: fake log line",
               (char *)NULL);
    CHECK(&S, strchr(sg_context_last_error(ctx), '\n') == NULL, "the JIT log is not one line");
    CHECK(&S, stats(ctx).cached == s0.cached && kf == NULL, "a failed compile stays out of the cache");
    fake_cuda_counts c0 = counts();
    setenv("FAKE_CUDA", "oom", 1);
    expect(ctx, sg_cuda_run(ctx, k, hin, hout), SG_ERR_NOMEM, "out of device memory", "failed to allocate",
           "CUDA_ERROR_OUT_OF_MEMORY", (char *)NULL);
    setenv("FAKE_CUDA", "launch-fails", 1);
    expect(ctx, sg_cuda_run(ctx, k, hin, hout), SG_ERR_INTERNAL, "a failed launch",
           "failed to launch CUDA kernel", "CUDA_ERROR_LAUNCH_FAILED", (char *)NULL);
    setenv("FAKE_CUDA", "ok", 1);
    CHECK(&S, counts().allocations == c0.allocations && counts().current == 0,
          "failed runs leave %d blocks (was %d), %d contexts current", counts().allocations, c0.allocations,
          counts().current);
    CHECK(&S, sg_cuda_kernel_compile(ctx, fresh, 0, &kf) == SG_OK, "compile after a failed load: %s",
          sg_context_last_error(ctx));
    sg_cuda_kernel_release(kf);
    sg_plan_destroy(fresh);

    /* 8 threads compiling one new plan: one compile, one kernel. */
    int64_t shape8[] = {16, 48};
    sg_plan *shared = numpy_plan(ctx, "[::-1, 2:]", 2, shape8, SG_I16);
    racer racers[8];
    pthread_t threads[8];
    uint64_t compiles = stats(ctx).compiles;
    for (int i = 0; i < 8; i++) {
        racers[i] = (racer){ctx, shared, NULL, SG_OK};
        pthread_create(&threads[i], NULL, race, &racers[i]);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(threads[i], NULL);
    bool same = true;
    for (int i = 0; i < 8; i++) {
        same = same && racers[i].status == SG_OK && racers[i].kernel == racers[0].kernel;
        sg_cuda_kernel_release(racers[i].kernel);
    }
    CHECK(&S, same && stats(ctx).compiles == compiles + 1, "8 threads: one kernel %d, %llu compiles", same,
          (unsigned long long)(stats(ctx).compiles - compiles));
    sg_plan_destroy(shared);

    /* Released kernels stay loaded up to the idle limit. */
    for (int i = 0; i < SG_CUDA_IDLE_MAX + 20; i++) {
        int64_t sh[] = {2 + i, 8};
        sg_plan *p = numpy_plan(ctx, "[1:]", 2, sh, SG_U8);
        sg_cuda_kernel *kk = NULL;
        if (p == NULL || sg_cuda_kernel_compile(ctx, p, 0, &kk) != SG_OK) {
            CHECK(&S, false, "compile %d: %s", i, sg_context_last_error(ctx));
            sg_plan_destroy(p);
            break;
        }
        sg_cuda_kernel_release(kk);
        sg_plan_destroy(p);
    }
    CHECK(&S, stats(ctx).idle == SG_CUDA_IDLE_MAX, "%llu idle kernels, at most %d",
          (unsigned long long)stats(ctx).idle, SG_CUDA_IDLE_MAX);
    CHECK(&S, (uint64_t)counts().modules == stats(ctx).cached, "%d modules loaded for %llu kernels",
          counts().modules, (unsigned long long)stats(ctx).cached);

    /* A timer around a device-to-device copy. */
    sg_cuda_timer *timer = NULL;
    double seconds = 0;
    if (CHECK(&S, sg_cuda_timer_create(ctx, 0, &timer, &err) == SG_OK, "timer: %s", err.message)) {
        CHECK(&S,
              sg_cuda_timer_start(timer, &err) == SG_OK &&
                  sg_cuda_copy_on_device(ctx, 0, out, in, 4096, sg_cuda_timer_stream(timer), &err) == SG_OK &&
                  sg_cuda_timer_stop(timer, &seconds, &err) == SG_OK && seconds > 0,
              "timed copy: %g s %s", seconds, err.message);
        CHECK(&S, counts().streams == 1 && counts().events == 2, "a timer is a stream and two events");
        sg_cuda_timer_destroy(timer);
        CHECK(&S, counts().streams == 0 && counts().events == 0,
              "the timer's stream and events are destroyed");
    }
    sg_cuda_free(ctx, 0, in);
    sg_cuda_free(ctx, 0, out);
    free(hin);
    free(hout);
done:
    sg_cuda_kernel_release(k);
    sg_cuda_kernel_release(k2);
    sg_cuda_kernel_release(kt);
    sg_cuda_kernel_release(k1);
    sg_cuda_kernel_release(ke);
    sg_cuda_kernel_release(kl);
    sg_plan_destroy(plan);
    sg_plan_destroy(twin);
    sg_plan_destroy(empty);
    sg_plan_destroy(large);
}

/* Kernels of runtime values through the fake: prepared on the host, the
 * grid each call's, the wrong kind of call refused before the driver. */
static void values_kernels(sg_context *ctx)
{
    int64_t shape[] = {-1, 64}, call_shape[] = {100, 64}, values[] = {3};
    sg_plan *plan = numpy_plan(ctx, "[t:, ::2]", 2, shape, SG_F32), *fixed = NULL;
    int64_t fixed_shape[] = {8, 64};
    fixed = numpy_plan(ctx, "[1:, ::2]", 2, fixed_shape, SG_F32);
    sg_cuda_kernel *k = NULL, *kf = NULL;
    sg_args args;
    uint32_t grid = 9, block = 0;
    if (!CHECK(&S, plan && fixed && sg_cuda_kernel_compile_with(ctx, plan, NULL, &k) == SG_OK &&
                       sg_cuda_kernel_compile_with(ctx, fixed, NULL, &kf) == SG_OK,
               "compile kernels of runtime values: %s", sg_context_last_error(ctx)))
        goto done;
    sg_cuda_kernel_geometry(k, &grid, &block);
    CHECK(&S, grid == 0 && block == 256, "a kernel of runtime values' own geometry %u x %u", grid, block);
    CHECK(&S, sg_cuda_kernel_prepare(ctx, k, call_shape, values, &args) == SG_OK, "prepare: %s",
          sg_context_last_error(ctx));
    /* [3:, ::2] of [100, 64] f32: 97 x 32 x 4 = 12416 bytes, 776 threads, 4 blocks */
    sg_cuda_args_geometry(&args, &grid, &block);
    CHECK(&S, args.output_bytes == 12416 && args.out_shape[0] == 97 && grid == 4 && block == 256,
          "prepared call: %lld bytes, grid %u x %u", (long long)args.output_bytes, grid, block);
    uint64_t in = 0, out = 0;
    sg_error err = {0};
    fake_cuda_launch l;
    long before = fake_last_launch(&l);
    if (CHECK(&S, sg_cuda_alloc(ctx, 0, 100 * 64 * 4, &in, &err) == SG_OK &&
                      sg_cuda_alloc(ctx, 0, 12416, &out, &err) == SG_OK,
              "alloc: %s", err.message)) {
        CHECK(&S, sg_cuda_kernel_launch_args(ctx, k, in, out, &args, NULL) == SG_OK, "launch args: %s",
              sg_context_last_error(ctx));
        CHECK(&S, fake_last_launch(&l) == before + 1 && l.grid[0] == 4 && l.block[0] == 256 && l.in == in &&
                      l.out == out,
              "the launch: grid %u block %u", l.grid[0], l.block[0]);
        expect(ctx, sg_cuda_kernel_launch(ctx, k, in, out, NULL), SG_ERR_USAGE, "a plain launch of runtime values",
               "it has runtime values or dimensions", "sg_cuda_kernel_launch_args", (char *)NULL);
        expect(ctx, sg_cuda_kernel_launch_args(ctx, kf, in, out, &args, NULL), SG_ERR_USAGE,
               "a launch with args of a static kernel", "every number of it is known", (char *)NULL);
        expect(ctx, sg_cuda_kernel_launch_args(ctx, k, in + 4, out, &args, NULL), SG_ERR_USAGE,
               "a misaligned launch of runtime values", "is not aligned to 16 bytes", (char *)NULL);
        CHECK(&S, fake_last_launch(&l) == before + 1, "a refused launch reached the driver");
    }
    sg_cuda_free(ctx, 0, in);
    sg_cuda_free(ctx, 0, out);
    expect(ctx, sg_cuda_kernel_prepare(ctx, kf, call_shape, values, &args), SG_ERR_USAGE,
           "prepare a static kernel", "nothing to prepare", (char *)NULL);
    int64_t wrong[] = {100, 63};
    expect(ctx, sg_cuda_kernel_prepare(ctx, k, wrong, values, &args), SG_ERR_USAGE, "a wrong fixed dimension",
           "failed to run kernel: input dimension 1 has size 63, the kernel's has 64", (char *)NULL);
    /* host buffers: the marker comes back over exactly the call's output */
    unsigned char *hin = calloc(1, 100 * 64 * 4), *hout = calloc(1, 12416 + 64);
    CHECK(&S, sg_cuda_run_values(ctx, k, hin, call_shape, values, hout) == SG_OK, "sg_cuda_run_values: %s",
          sg_context_last_error(ctx));
    bool marked = true, spared = true;
    for (int i = 0; i < 12416; i++)
        marked = marked && hout[i] == FAKE_CUDA_MARKER;
    for (int i = 12416; i < 12416 + 64; i++)
        spared = spared && hout[i] == 0;
    CHECK(&S, marked && spared, "sg_cuda_run_values: output %d, nothing past it %d", marked, spared);
    expect(ctx, sg_cuda_run(ctx, k, hin, hout), SG_ERR_USAGE, "sg_cuda_run of runtime values",
           "it has runtime values", (char *)NULL);
    free(hin);
    free(hout);
done:
    sg_cuda_kernel_destroy(k);
    sg_cuda_kernel_destroy(kf);
    sg_plan_destroy(plan);
    sg_plan_destroy(fixed);
}

static void fake(void)
{
    sg_context *ctx;
    sg_context_create(&ctx);
    int count = -1;
    if (!CHECK(&S, sg_cuda_device_count(ctx, &count) == SG_OK && count == 2, "device count %d: %s", count,
               sg_context_last_error(ctx)) ||
        !find_fake()) {
        sg_context_destroy(ctx);
        return;
    }
    sg_cuda_device_info info;
    sg_error err = {0};
    CHECK(&S,
          sg_cuda_device_describe(1, &info, &err) == SG_OK && strcmp(info.name, "Fake CUDA Device 1") == 0 &&
              info.major == 8 && info.minor == 0 && info.cpu != NULL,
          "device 1: '%s' %d.%d %s", info.name, info.major, info.minor, err.message);

    int64_t shape[] = {8, 64};
    sg_plan *plan = numpy_plan(ctx, "[1:, ::2]", 2, shape, SG_F32);
    sg_cuda_kernel *k = NULL;
    expect(ctx, sg_cuda_kernel_compile(ctx, plan, 2, &k), SG_ERR_USAGE, "device 2 of 2", "CUDA device 2",
           "no such device (2 CUDA devices: 0 to 1)", (char *)NULL);
    expect(ctx, sg_cuda_kernel_compile(ctx, plan, -1, &k), SG_ERR_USAGE, "device -1", "CUDA device -1",
           (char *)NULL);

    sg_plan_destroy(plan);
    with_kernels(ctx);
    values_kernels(ctx);

    sg_context_destroy(ctx);
    fake_cuda_counts c = counts();
    CHECK(&S,
          c.allocations == 0 && c.modules == 0 && c.streams == 0 && c.events == 0 && c.retained == 0 &&
              c.current == 0,
          "after sg_context_destroy: %d blocks, %d modules, %d streams, %d events, %d context references, "
          "%d current",
          c.allocations, c.modules, c.streams, c.events, c.retained, c.current);
}

int main(int argc, char **argv)
{
    const char *scenario = argc == 2 ? argv[1] : "";
    if (strcmp(scenario, "no-driver") == 0 || strcmp(scenario, "no-device") == 0 ||
        strcmp(scenario, "init-fails") == 0) {
        unusable(scenario);
    } else if (strcmp(scenario, "fake") == 0) {
        setenv("FAKE_CUDA", "ok", 1);
        setenv("FAKE_CUDA_DEVICES", "2", 1);
        fake();
    } else {
        fprintf(stderr, "usage: test_cuda no-driver|no-device|init-fails|fake\n");
        return 2;
    }
    char name[64];
    snprintf(name, sizeof name, "cuda %s", scenario);
    return finish(name, &S.counts);
}

/* GPU kernels as a test engine (test_jit --gpu): each case's GPU kernel
 * runs emulated on the host (the same code compiled for the CPU, one
 * thread after another: codegen.h, sg_jit_compile_gpu_emulation) and, when
 * a CUDA device is present, on the device with canary bytes around the
 * output; every case's kernel also goes into one PTX file, assembled with
 * ptxas at the end and checked for the code GPU kernels must have (16-byte
 * stores, no division, no local memory). */
#ifndef SG_TEST_GPU_ENGINE_H
#define SG_TEST_GPU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "slicegen.h"

typedef struct gpu_engine gpu_engine;

/* ptx_cases: how many cases to keep for the PTX file. NULL when out of
 * memory or when the host JIT cannot be made. */
gpu_engine *gpu_engine_create(sg_context *ctx, long ptx_cases);
void gpu_engine_destroy(gpu_engine *engine);
/* Whether cases also run on a CUDA device; *why says why not. */
bool gpu_engine_has_device(const gpu_engine *engine, const char **why);

/* Runs plan's GPU kernel on `in` (sg_plan_input_bytes) and compares the
 * output, with `guard` bytes of 0xA5 on each side, with `want` (the same
 * layout). `cuts` splits the emulated threads into 4 ranges run in a
 * shifted order. Returns NULL, or what failed (static storage) and the
 * byte offset from the output's start in *at. */
const char *gpu_engine_check(gpu_engine *engine, const sg_plan *plan, int opt_level, const unsigned char *in,
                             const unsigned char *want, size_t guard, const uint64_t cuts[4], long *at);

/* A symbolic plan's GPU kernel (gpu_values.c), emulated on the host and,
 * with a device, compiled for it: made once, then run per prepared call. */
typedef struct gpu_values gpu_values;
/* NULL, with what failed in *why (static storage), when it does not compile. */
gpu_values *gpu_values_compile(gpu_engine *engine, const sg_plan *plan, int opt_level, const char **why);
/* One call: in (args->input_bytes), the prepared args; want holds
 * args->output_bytes framed as for gpu_engine_check. */
const char *gpu_values_check(gpu_engine *engine, gpu_values *kernel, const unsigned char *in, const sg_args *args,
                             const unsigned char *want, size_t guard, const uint64_t cuts[4], long *at);
void gpu_values_destroy(gpu_engine *engine, gpu_values *kernel);

/* Keeps plan (copied through its text; a symbolic one planned again from
 * its spec) for the PTX file, until ptx_cases. */
void gpu_engine_keep(gpu_engine *engine, const sg_plan *plan);
/* Writes the kept plans as one PTX file per GPU name, assembles each with
 * ptxas and checks it; prints what it did. Returns the failures (0 also
 * when ptxas is missing: a notice is printed). */
int gpu_engine_check_ptx(gpu_engine *engine);

#endif /* SG_TEST_GPU_ENGINE_H */

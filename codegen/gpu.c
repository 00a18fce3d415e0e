/* GPU kernels (interface only for now). */
#define SG_CODEGEN_INTERNAL
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

sg_status sg_gpu_launch_of(const sg_plan *plan, sg_gpu_launch *launch, sg_error *err)
{
    int64_t threads = (int64_t)((plan->out_bytes + SG_GPU_CHUNK - 1) / SG_GPU_CHUNK);
    int64_t grid = (threads + SG_GPU_BLOCK - 1) / SG_GPU_BLOCK;
    if (grid > INT32_MAX)
        return sg_fail(err, SG_ERR_SLICE, "failed to launch kernel: %" PRId64 " blocks (at most 2147483647)", grid);
    *launch = (sg_gpu_launch){.threads = threads, .grid_x = (uint32_t)grid, .block_x = SG_GPU_BLOCK};
    return SG_OK;
}

const char *sg_gpu_cpu_for(int major, int minor)
{
    (void)major;
    (void)minor;
    return SG_GPU_DEFAULT_CPU;
}

sg_status sg_codegen_ptx(const sg_plan *plan, const char *symbol, const char *cpu, int opt_level, char **ptx,
                         sg_error *err)
{
    (void)plan, (void)symbol, (void)cpu, (void)opt_level, (void)ptx;
    return sg_fail(err, SG_ERR_INTERNAL, "failed to compile GPU kernel: not built yet");
}

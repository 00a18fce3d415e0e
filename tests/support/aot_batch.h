/* Ahead-of-time objects as one more test engine: a batch collects cases
 * (plan, input, expected output), compiles all of them into one object with
 * sg_aot_write for a target, builds tests/support/aot_runner.c against its header
 * with that target's C compiler, runs it (under qemu-user for another
 * architecture) and compares every output byte for byte. */
#ifndef SG_TEST_AOT_BATCH_H
#define SG_TEST_AOT_BATCH_H

#include <stdbool.h>

#include "slicegen.h"

typedef struct aot_config {
    const char *target; /* LLVM triple; NULL for the host */
    const char *cpu;    /* the CPU to compile for; NULL for the target's default */
    const char *cc;     /* the C compiler for that target (default "cc") */
    const char *exec;   /* words run before the program, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu" */
    const char *runner; /* the path of tests/support/aot_runner.c */
    int opt_level;
} aot_config;

/* Takes the option at argv[*i] if it is one of --aot-target, --aot-cpu, --aot-cc,
 * --aot-exec, --aot-runner (each with a value): returns true and advances
 * *i past its value. */
bool aot_config_option(aot_config *config, int argc, char **argv, int *i);

typedef struct aot_batch aot_batch;

aot_batch *aot_batch_create(void);
/* Adds a case; the batch takes the plan (destroyed with the batch) and
 * copies the buffers. `label` names the case in failure messages. */
void aot_batch_add(aot_batch *batch, const char *label, sg_plan *plan, const void *in, const void *expected);
/* A call of a kernel with runtime values: the batch takes the (symbolic)
 * plan; the runner calls NAME_prepare with in_shape and values, which must
 * return `code`, and when 0 the kernel, whose out_bytes of output must be
 * `expected`. */
void aot_batch_add_call(aot_batch *batch, const char *label, sg_plan *plan, const int64_t *in_shape,
                        const int64_t *values, int code, const void *in, size_t in_bytes, const void *expected,
                        size_t out_bytes);
size_t aot_batch_size(const aot_batch *batch);
/* Runs every case as described above. Prints a line per failing case (or
 * per failing step) to stderr and adds to *passed and *failed. */
void aot_batch_run(aot_batch *batch, sg_context *ctx, const aot_config *config, int *passed, int *failed);
void aot_batch_destroy(aot_batch *batch);

#endif /* SG_TEST_AOT_BATCH_H */

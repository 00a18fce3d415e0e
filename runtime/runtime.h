/*
 * runtime: the context, .npy I/O, atomic output files and the reference
 * interpreter. The public API (include/slicegen.h) is implemented here on
 * top of the stage functions, which report through sg_error.
 */
#ifndef SG_RUNTIME_H
#define SG_RUNTIME_H

#include "../planner/planner.h"

struct sg_context {
    sg_error last;   /* last failure; status SG_OK and "" when none */
};

/* Copies err into the context's last error and returns err->status. */
sg_status sg_context_report(sg_context *ctx, const sg_error *err);

/* The reference interpreter (see sg_run_reference). */
void sg_interpret(const sg_plan *plan, const void *in, void *out);

/* .npy I/O (see sg_npy_read / sg_npy_write). */
sg_status sg_npy_load(const char *path, sg_tensor *tensor, sg_error *err);
sg_status sg_npy_store(const char *path, const sg_tensor *tensor, sg_error *err);

/* Writes the `nparts` buffers (parts[i], sizes[i] bytes) to path atomically:
 * a temporary file in the same folder
 * (same name plus a unique suffix), fsync'd, then renamed over path. On any
 * failure the temporary file is removed and path is untouched. */
sg_status sg_write_file_atomic(const char *path, const void *const *parts,
                               const size_t *sizes, size_t nparts, sg_error *err);

#endif /* SG_RUNTIME_H */

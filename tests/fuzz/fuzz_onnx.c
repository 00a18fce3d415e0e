/*
 * fuzz_onnx: the ONNX reader (sg_model_read on a .onnx file): the wire
 * walk and protobuf-c's unpacking, opsets, initializers and Constant nodes
 * with their data (raw, typed fields, external data), names, and the specs
 * of Slice, Pad, Split and Gather nodes.
 *
 * Decoding: the input is model.onnx, written to the process's temporary
 * folder (fuzz.h) beside data.bin, 64 fixed bytes that external data may
 * name (the seeds do). When the model reads, every layer must pass
 * fuzz_check_layer (fuzz.h), and its fusions (aot --fuse) fuzz_check_fusions.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    char path[4200], data_path[4200];
    uint8_t external[64];
    for (size_t i = 0; i < sizeof external; i++)
        external[i] = (uint8_t)(i * 37 + 1);
    fuzz_write_file("data.bin", external, sizeof external, data_path, sizeof data_path);
    fuzz_write_file("model.onnx", data, size, path, sizeof path);

    sg_model *model = NULL;
    if (sg_model_read(ctx, path, NULL, &model) != SG_OK)
        return 0;
    for (size_t i = 0; i < sg_model_layer_count(model); i++)
        fuzz_check_layer(ctx, sg_model_layer_at(model, i), i);
    fuzz_check_fusions(ctx, model);
    sg_model_destroy(model);
    return 0;
}

/*
 * fuzz_model: the OpenVINO IR reader (sg_model_read): XML parsing with
 * libxml2, layers, ports, edges, Consts and their place in the weights,
 * the model as a graph and shape inference over it (every port checked),
 * StridedSlice masks and the specs of slice layers.
 *
 * Decoding: the bytes up to the first NUL are the .xml, the bytes after it
 * the .bin (empty when there is no NUL). Each run writes them to model.xml
 * and model.bin in the process's temporary folder (fuzz.h) and reads the
 * model with no weights path, so the .bin is found by the reader's own
 * rule. When the model reads, every layer must pass fuzz_check_layer
 * (fuzz.h), and its fusions (aot --fuse) fuzz_check_fusions.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    const uint8_t *nul = memchr(data, '\0', size);
    size_t xml_size = nul ? (size_t)(nul - data) : size;
    char xml_path[4200], bin_path[4200];
    fuzz_write_file("model.xml", data, xml_size, xml_path, sizeof xml_path);
    fuzz_write_file("model.bin", nul ? nul + 1 : data, nul ? size - xml_size - 1 : 0, bin_path,
                    sizeof bin_path);

    sg_model *model = NULL;
    if (sg_model_read(ctx, xml_path, NULL, &model) != SG_OK)
        return 0;
    for (size_t i = 0; i < sg_model_layer_count(model); i++)
        fuzz_check_layer(ctx, sg_model_layer_at(model, i), i);
    fuzz_check_fusions(ctx, model);
    sg_model_destroy(model);
    return 0;
}

/*
 * fuzz_model: the OpenVINO IR reader (sg_model_read): XML parsing with
 * libxml2, layers, ports, edges, Consts and their place in the weights,
 * StridedSlice masks and the specs of slice layers.
 *
 * Decoding: the bytes up to the first NUL are the .xml, the bytes after it
 * the .bin (empty when there is no NUL). Each run writes them to model.xml
 * and model.bin in the process's temporary folder (fuzz.h) and reads the
 * model with no weights path, so the .bin is found by the reader's own
 * rule. When the model reads, every layer must be consistent (a name, a
 * type, and either a spec with its text and shape or a skip reason), every
 * layer with a spec is planned on its shape and type (-1 for a dynamic
 * dimension), and its spec_text, split into command-line words at spaces
 * (`''` is the empty word), must make a spec that plans the same (equal
 * plans with the same runtime values in the same order, or the same
 * status).
 */
#include "fuzz.h"

enum { MAX_WORDS = 64 };

static void check_layer(sg_context *ctx, const sg_model_layer *l, size_t index)
{
    if (l->name == NULL || l->type == NULL || (l->spec == NULL) == (l->skip_reason == NULL))
        FUZZ_FAIL("layer %zu: name, type, spec or skip reason missing", index);
    if (l->spec == NULL)
        return;
    if (l->spec_text == NULL || l->rank > SG_MAX_RANK || (l->rank > 0 && l->shape == NULL) ||
        sg_dtype_size(l->dtype) == 0)
        FUZZ_FAIL("layer %zu ('%s'): spec text, shape or type missing", index, l->name);

    sg_plan *plan = NULL, *again = NULL;
    sg_spec *spec = NULL;
    sg_status st = sg_plan_create(ctx, l->spec, l->rank, l->shape, l->dtype, &plan);

    char *copy = fuzz_cstr((const uint8_t *)l->spec_text, strlen(l->spec_text));
    char *words[MAX_WORDS];
    int n = 0;
    for (char *w = strtok(copy, " "); w != NULL && n < MAX_WORDS; w = strtok(NULL, " "))
        words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
    if (sg_spec_from_words(ctx, n, words, &spec) != SG_OK)
        FUZZ_FAIL("layer %zu ('%s'): spec text '%s' does not make a spec: %s", index, l->name, l->spec_text,
                  sg_context_last_error(ctx));
    sg_status again_st = sg_plan_create(ctx, spec, l->rank, l->shape, l->dtype, &again);
    if (st != again_st || (st == SG_OK && !sg_plan_equal(plan, again)))
        FUZZ_FAIL("layer %zu ('%s'): spec text '%s' plans differently from the spec (status %s and %s)",
                  index, l->name, l->spec_text, sg_status_name(st), sg_status_name(again_st));
    size_t nvalues = st == SG_OK ? sg_plan_value_count(plan) : 0;
    if (st == SG_OK && sg_plan_value_count(again) != nvalues)
        FUZZ_FAIL("layer %zu ('%s'): spec text '%s' names %zu runtime values, the spec %zu", index, l->name,
                  l->spec_text, sg_plan_value_count(again), nvalues);
    for (size_t v = 0; v < nvalues; v++)
        if (strcmp(sg_plan_value_name(plan, v), sg_plan_value_name(again, v)) != 0)
            FUZZ_FAIL("layer %zu ('%s'): runtime value %zu is '%s' in the spec, '%s' in its text", index, l->name,
                      v, sg_plan_value_name(plan, v), sg_plan_value_name(again, v));
    sg_plan_destroy(plan);
    sg_plan_destroy(again);
    sg_spec_destroy(spec);
    free(copy);
}

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
        check_layer(ctx, sg_model_layer_at(model, i), i);
    sg_model_destroy(model);
    return 0;
}

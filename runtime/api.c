/* The public C API: thin wrappers that run a stage and record its error in
 * the context. */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

sg_status sg_context_report(sg_context *ctx, const sg_error *err)
{
    if (err->status != SG_OK && ctx != NULL) {
        pthread_mutex_lock(&ctx->lock); /* kernel calls may fail concurrently */
        ctx->last = *err;
        pthread_mutex_unlock(&ctx->lock);
    }
    return err->status;
}

void sg_free(void *p)
{
    free(p);
}

sg_status sg_context_create(sg_context **ctx)
{
    sg_context *c = calloc(1, sizeof *c);
    if (c == NULL)
        return SG_ERR_NOMEM;
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return SG_ERR_NOMEM;
    }
    *ctx = c;
    return SG_OK;
}

void sg_context_destroy(sg_context *ctx)
{
    if (ctx == NULL)
        return;
    sg_kernel_cache_destroy(ctx);
    sg_cuda_destroy(ctx);
    sg_pool_destroy(ctx->pool);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

const char *sg_context_last_error(const sg_context *ctx)
{
    return ctx->last.message;
}

/* Runs `call` with a fresh error record and reports it to ctx. */
#define REPORT(ctx, call)                  \
    do {                                   \
        sg_error err_ = {0};               \
        sg_error *err = &err_;             \
        (void)(call);                      \
        return sg_context_report(ctx, err); \
    } while (0)

sg_status sg_scalar_parse(sg_context *ctx, const char *text, sg_scalar *value)
{
    REPORT(ctx, sg_scalar_from_text(text, value, err));
}

sg_status sg_spec_strided_slice(sg_context *ctx, const sg_strided_slice_args *args, sg_spec **spec)
{
    REPORT(ctx, sg_spec_make_strided_slice(args, NULL, spec, err));
}

sg_status sg_spec_slice(sg_context *ctx, size_t len, const int64_t *start, const int64_t *stop,
                        const int64_t *step, const int64_t *axes, sg_spec **spec)
{
    REPORT(ctx, sg_spec_make_slice(len, start, stop, step, axes, NULL, spec, err));
}

sg_status sg_spec_trt_slice(sg_context *ctx, size_t len, const int64_t *start, const int64_t *size,
                            const int64_t *stride, sg_trt_mode mode, const sg_scalar *fill,
                            sg_spec **spec)
{
    REPORT(ctx, sg_spec_make_trt_slice(len, start, size, stride, mode, fill, NULL, spec, err));
}

sg_status sg_spec_onnx_slice(sg_context *ctx, size_t len, const int64_t *start, const int64_t *stop,
                             const int64_t *step, const int64_t *axes, sg_spec **spec)
{
    REPORT(ctx, sg_spec_make_onnx_slice(len, start, stop, step, axes, NULL, spec, err));
}

sg_status sg_spec_pad(sg_context *ctx, size_t len, const int64_t *begin, const int64_t *end, const int64_t *axes,
                      sg_trt_mode mode, const sg_scalar *fill, sg_spec **spec)
{
    REPORT(ctx, sg_spec_make_pad(len, begin, end, axes, mode, fill, NULL, spec, err));
}

sg_status sg_spec_numpy(sg_context *ctx, const char *expr, sg_spec **spec)
{
    REPORT(ctx, sg_spec_parse_numpy(expr, spec, err));
}

sg_status sg_spec_from_words(sg_context *ctx, int count, char *const *words, sg_spec **spec)
{
    REPORT(ctx, sg_spec_parse_words(count, words, spec, err));
}

void sg_spec_destroy(sg_spec *spec)
{
    sg_spec_free(spec);
}

sg_status sg_plan_create(sg_context *ctx, const sg_spec *spec, size_t rank, const int64_t *shape,
                         sg_dtype dtype, sg_plan **plan)
{
    REPORT(ctx, sg_plan_build(spec, rank, shape, dtype, plan, err));
}

void sg_plan_destroy(sg_plan *plan) { sg_plan_free(plan); }
size_t sg_plan_output_rank(const sg_plan *plan) { return plan->out_rank; }
const int64_t *sg_plan_output_shape(const sg_plan *plan) { return plan->out_shape; }
sg_dtype sg_plan_dtype(const sg_plan *plan) { return plan->dtype; }
uint64_t sg_plan_input_bytes(const sg_plan *plan) { return plan->in_bytes; }
uint64_t sg_plan_output_bytes(const sg_plan *plan) { return plan->out_bytes; }
void sg_plan_print(const sg_plan *plan, FILE *out) { sg_plan_write(plan, out); }
bool sg_plan_equal(const sg_plan *a, const sg_plan *b)
{
    return sg_plan_same(a, b);
}

sg_status sg_plan_parse(sg_context *ctx, const char *text, sg_plan **plan)
{
    REPORT(ctx, sg_plan_read(text, plan, err));
}

size_t sg_plan_input_rank(const sg_plan *plan) { return plan->in_rank; }
const int64_t *sg_plan_input_shape(const sg_plan *plan) { return plan->in_shape; }
size_t sg_plan_value_count(const sg_plan *plan) { return plan->sym ? plan->sym->nvalues : 0; }
bool sg_plan_is_symbolic(const sg_plan *plan)
{
    return plan->sym != NULL;
}

const char *sg_plan_value_name(const sg_plan *plan, size_t index)
{
    return index < sg_plan_value_count(plan) ? plan->sym->spec->values[index] : NULL;
}

bool sg_plan_value_is_fill(const sg_plan *plan, size_t index)
{
    return index < sg_plan_value_count(plan) && plan->sym->spec->fill_value == index + 1;
}

static sg_status fill_bits(const sg_scalar *value, sg_dtype dtype, int64_t *bits, sg_error *err)
{
    uint8_t bytes[8];
    if (sg_dtype_size(dtype) == 0)
        return sg_fail(err, SG_ERR_USAGE, "failed to convert fill value: unknown element type %d", (int)dtype);
    if (sg_scalar_to_bytes(value, dtype, bytes, err) != SG_OK)
        return err->status;
    uint64_t u = 0;
    memcpy(&u, bytes, sg_dtype_size(dtype)); /* little-endian hosts and targets */
    *bits = (int64_t)u;
    return SG_OK;
}

sg_status sg_fill_bits(sg_context *ctx, const sg_scalar *value, sg_dtype dtype, int64_t *bits)
{
    REPORT(ctx, fill_bits(value, dtype, bits, err));
}

sg_status sg_plan_specialize(sg_context *ctx, const sg_plan *plan, const int64_t *in_shape, const int64_t *values,
                             sg_plan **specialized)
{
    if (plan->sym == NULL) {
        sg_error err = {0};
        sg_fail(&err, SG_ERR_USAGE, "failed to specialize plan: it has no runtime values or dimensions");
        return sg_context_report(ctx, &err);
    }
    REPORT(ctx, sg_plan_bind(plan, in_shape, values, specialized, err));
}

sg_status sg_run_reference(sg_context *ctx, const sg_plan *plan, const void *in, void *out)
{
    if (plan->sym) {
        sg_error err = {0};
        sg_fail(&err, SG_ERR_USAGE, "failed to run plan: it has runtime values or dimensions (specialize it first)");
        return sg_context_report(ctx, &err);
    }
    if ((in == NULL && plan->in_bytes > 0) || (out == NULL && plan->out_bytes > 0)) {
        sg_error err = {0};
        sg_fail(&err, SG_ERR_USAGE, "failed to run plan: the %s buffer is NULL", in == NULL ? "input" : "output");
        return sg_context_report(ctx, &err);
    }
    sg_interpret(plan, in, out);
    return SG_OK;
}

sg_status sg_model_read(sg_context *ctx, const char *xml_path, const char *weights_path, sg_model **model)
{
    if (!sg_model_is_onnx(xml_path))
        REPORT(ctx, sg_model_load(xml_path, weights_path, model, err));
    if (weights_path != NULL) {
        sg_error err = {0};
        sg_fail(&err, SG_ERR_USAGE,
                "failed to read ONNX model '%s': a weights file is for OpenVINO models (weights '%s'; an ONNX "
                "model holds its initializers or names its external data files)",
                xml_path, weights_path);
        return sg_context_report(ctx, &err);
    }
    REPORT(ctx, sg_onnx_load(xml_path, model, err));
}

size_t sg_model_layer_count(const sg_model *model)
{
    return model ? model->nlayers : 0;
}

size_t sg_model_folded_count(const sg_model *model)
{
    return model ? model->folded : 0;
}

const sg_model_layer *sg_model_layer_at(const sg_model *model, size_t index)
{
    return model && index < model->nlayers ? &model->layers[index] : NULL;
}

size_t sg_model_symbol_count(const sg_model *model)
{
    return model ? model->nsymbols : 0;
}

const sg_model_symbol *sg_model_symbol_at(const sg_model *model, size_t k)
{
    return model && k < model->nsymbols ? &model->symbols[k] : NULL;
}

sg_status sg_model_layer_numbers(sg_context *ctx, const sg_model *model, size_t index, const int64_t *symbols,
                                 int64_t *in_shape, int64_t *values, uint8_t *given)
{
    sg_error err = {0};
    if (sg_model_numbers_eval(model, index, symbols, in_shape, values, given, &err) != SG_OK)
        return sg_context_report(ctx, &err);
    return SG_OK;
}

sg_status sg_model_fusions(sg_context *ctx, sg_model *model, size_t *count, const sg_model_fusion **fusions)
{
    sg_error err = {0};
    if (sg_model_fuse(model, &err) != SG_OK)
        return sg_context_report(ctx, &err);
    *count = model->nfusions;
    *fusions = model->fusions;
    return SG_OK;
}

void sg_model_destroy(sg_model *model)
{
    sg_model_free(model);
}

sg_status sg_npy_read(sg_context *ctx, const char *path, sg_tensor *tensor)
{
    REPORT(ctx, sg_npy_load(path, tensor, err));
}

sg_status sg_npy_write(sg_context *ctx, const char *path, const sg_tensor *tensor)
{
    REPORT(ctx, sg_npy_store(path, tensor, err));
}

sg_status sg_npy_read_header(sg_context *ctx, const char *path, sg_tensor *tensor)
{
    REPORT(ctx, sg_npy_load_header(path, tensor, err));
}

void sg_tensor_destroy(sg_tensor *tensor)
{
    sg_npy_release(tensor);
}

void sg_tensor_release(sg_tensor *tensor)
{
    sg_tensor_destroy(tensor);
}

/* The layouts of the public structs of include/slicegen.h as this library
 * was compiled with them (sg_struct_size, sg_struct_field), for bindings
 * that cannot read a C header: python/slicegen/_capi.py builds its ctypes
 * structs from them. Only public fields are listed: sg_args' private part
 * is the kernel's, and stays out. */
#include <string.h>

#include "runtime.h"

typedef struct field {
    const char *name;
    size_t offset, size;
} field;

/* clang-format off */
#define FIELD(type, name) {#name, offsetof(type, name), sizeof(((type *)0)->name)}
/* clang-format on */

static const field mask_fields[] = {FIELD(sg_mask, bits), FIELD(sg_mask, len)};
static const field strided_slice_args_fields[] = {
    FIELD(sg_strided_slice_args, len),           FIELD(sg_strided_slice_args, begin),
    FIELD(sg_strided_slice_args, end),           FIELD(sg_strided_slice_args, stride),
    FIELD(sg_strided_slice_args, begin_mask),    FIELD(sg_strided_slice_args, end_mask),
    FIELD(sg_strided_slice_args, new_axis_mask), FIELD(sg_strided_slice_args, shrink_axis_mask),
    FIELD(sg_strided_slice_args, ellipsis_mask),
};
static const field scalar_fields[] = {FIELD(sg_scalar, kind), FIELD(sg_scalar, i), FIELD(sg_scalar, u),
                                      FIELD(sg_scalar, f)};
static const field args_fields[] = {
    FIELD(sg_args, out_rank),    FIELD(sg_args, out_shape),    FIELD(sg_args, outer_extent),
    FIELD(sg_args, input_bytes), FIELD(sg_args, output_bytes),
};
/* The size field, then the list the options' reader goes by. */
#define OPTION_FIELD(name, readers) FIELD(sg_compile_options, name),
static const field compile_options_fields[] = {FIELD(sg_compile_options, size),
                                               SG_COMPILE_OPTIONS(OPTION_FIELD)};
#undef OPTION_FIELD
static const field aot_kernel_fields[] = {
    FIELD(sg_aot_kernel, plan),        FIELD(sg_aot_kernel, name),        FIELD(sg_aot_kernel, spec),
    FIELD(sg_aot_kernel, layer),       FIELD(sg_aot_kernel, layer_id),    FIELD(sg_aot_kernel, fused_layers),
    FIELD(sg_aot_kernel, fused_count), FIELD(sg_aot_kernel, model_layer),
};
static const field model_layer_fields[] = {
    FIELD(sg_model_layer, name),  FIELD(sg_model_layer, id),        FIELD(sg_model_layer, type),
    FIELD(sg_model_layer, spec),  FIELD(sg_model_layer, spec_text), FIELD(sg_model_layer, rank),
    FIELD(sg_model_layer, shape), FIELD(sg_model_layer, dtype),     FIELD(sg_model_layer, skip_reason),
};
static const field model_symbol_fields[] = {FIELD(sg_model_symbol, name), FIELD(sg_model_symbol, input),
                                            FIELD(sg_model_symbol, dim)};
static const field model_fusion_fields[] = {
    FIELD(sg_model_fusion, name),      FIELD(sg_model_fusion, id),      FIELD(sg_model_fusion, spec),
    FIELD(sg_model_fusion, spec_text), FIELD(sg_model_fusion, rank),    FIELD(sg_model_fusion, shape),
    FIELD(sg_model_fusion, dtype),     FIELD(sg_model_fusion, nlayers), FIELD(sg_model_fusion, layers),
    FIELD(sg_model_fusion, nnames),    FIELD(sg_model_fusion, names),
};
static const field tensor_fields[] = {
    FIELD(sg_tensor, dtype), FIELD(sg_tensor, rank), FIELD(sg_tensor, shape),     FIELD(sg_tensor, data),
    FIELD(sg_tensor, bytes), FIELD(sg_tensor, map),  FIELD(sg_tensor, map_bytes),
};
#undef FIELD

/* clang-format off */
#define STRUCT(type, fields) {#type, sizeof(type), fields, sizeof fields / sizeof fields[0]}
/* clang-format on */
static const struct {
    const char *name;
    size_t size;
    const field *fields;
    size_t nfields;
} structs[] = {
    STRUCT(sg_mask, mask_fields),
    STRUCT(sg_strided_slice_args, strided_slice_args_fields),
    STRUCT(sg_scalar, scalar_fields),
    STRUCT(sg_args, args_fields),
    STRUCT(sg_compile_options, compile_options_fields),
    STRUCT(sg_aot_kernel, aot_kernel_fields),
    STRUCT(sg_model_layer, model_layer_fields),
    STRUCT(sg_model_symbol, model_symbol_fields),
    STRUCT(sg_model_fusion, model_fusion_fields),
    STRUCT(sg_tensor, tensor_fields),
};
#undef STRUCT

static int find(const char *type)
{
    for (size_t i = 0; type != NULL && i < sizeof structs / sizeof structs[0]; i++)
        if (strcmp(type, structs[i].name) == 0)
            return (int)i;
    return -1;
}

size_t sg_struct_size(const char *type)
{
    int i = find(type);
    return i < 0 ? 0 : structs[i].size;
}

bool sg_struct_field(const char *type, const char *name, size_t *offset, size_t *size)
{
    int i = find(type);
    for (size_t k = 0; i >= 0 && name != NULL && k < structs[i].nfields; k++)
        if (strcmp(name, structs[i].fields[k].name) == 0) {
            *offset = structs[i].fields[k].offset;
            *size = structs[i].fields[k].size;
            return true;
        }
    return false;
}

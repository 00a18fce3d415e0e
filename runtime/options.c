/* sg_compile_options: its defaults, and the one reader every compiling
 * call goes through (the size rule of include/slicegen.h, and the fields
 * each call reads). */
#include <string.h>

#include "runtime.h"

/* The calls that read each field, as the messages name them. */
static const struct {
    sg_option_reader reader;
    const char *calls;
} readers[] = {
    {SG_READ_JIT, "sg_kernel_compile_with"},
    {SG_READ_IR, "sg_kernel_ir_with"},
    {SG_READ_AOT, "sg_aot_write_with and sg_aot_kernel_name_with"},
    {SG_READ_CUDA, "sg_cuda_kernel_compile_with"},
};

static const sg_compile_options defaults = {
    .size = sizeof(sg_compile_options), .opt_level = SG_DEFAULT_OPT_LEVEL, .stores = SG_STORES_AUTO};

/* Whether field [offset, offset + bytes) lies wholly inside the first size bytes. */
static bool inside(size_t offset, size_t bytes, size_t size)
{
    return offset + bytes <= size;
}

/* The end of the last field this library knows. */
static size_t known_end(void)
{
    size_t end = 0;
#define SG_OPTION(field, reader)                                                                             \
    if (offsetof(sg_compile_options, field) + sizeof defaults.field > end)                                   \
        end = offsetof(sg_compile_options, field) + sizeof defaults.field;
    SG_COMPILE_OPTIONS(SG_OPTION)
#undef SG_OPTION
    return end;
}

void sg_compile_options_init_size(sg_compile_options *o, size_t size)
{
    if (size < sizeof o->size || size > SG_COMPILE_OPTIONS_MAX_SIZE)
        return;
    memset(o, 0, size);
    o->size = size;
#define SG_OPTION(field, reader)                                                                             \
    if (inside(offsetof(sg_compile_options, field), sizeof o->field, size))                                  \
        o->field = defaults.field;
    SG_COMPILE_OPTIONS(SG_OPTION)
#undef SG_OPTION
}

/* Fails naming a field set for a call that does not read it. */
static sg_status unread(const char *what, const char *field, unsigned readers_of, sg_error *err)
{
    char calls[160] = "";
    size_t n = 0, count = 0, k = 0;
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        count += (readers_of & readers[i].reader) != 0;
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        if (!(readers_of & readers[i].reader))
            continue;
        k++;
        n += (size_t)snprintf(calls + n, n < sizeof calls ? sizeof calls - n : 0, "%s%s",
                              k == 1       ? ""
                              : k == count ? " and "
                                           : ", ",
                              readers[i].calls);
    }
    return sg_fail(
        err, SG_ERR_USAGE,
        "failed to %s: sg_compile_options.%s is set, and only %s read%s it (leave it at its default)", what,
        field, calls, strstr(calls, " and ") == NULL ? "s" : "");
}

sg_status sg_compile_options_read(const sg_compile_options *given, sg_option_reader reader, const char *what,
                                  sg_compile_options *o, sg_error *err)
{
    *o = defaults;
    if (given == NULL)
        return SG_OK;
    size_t size = given->size, end = known_end();
    if (size < SG_COMPILE_OPTIONS_MIN_SIZE)
        return sg_fail(
            err, SG_ERR_USAGE,
            "failed to %s: sg_compile_options size %zu (at least %zu, its fields size, opt_level and "
            "stores; sg_compile_options_init sets it)",
            what, size, (size_t)SG_COMPILE_OPTIONS_MIN_SIZE);
    if (size > SG_COMPILE_OPTIONS_MAX_SIZE)
        return sg_fail(
            err, SG_ERR_USAGE,
            "failed to %s: sg_compile_options size %zu (at most %d; sg_compile_options_init sets it)", what,
            size, SG_COMPILE_OPTIONS_MAX_SIZE);
    if (size > sizeof *o) { /* a newer header's struct: its own fields must be at their defaults */
        const unsigned char *bytes = (const unsigned char *)given;
        for (size_t i = end; i < size; i++)
            if (bytes[i] != 0)
                return sg_fail(
                    err, SG_ERR_USAGE,
                    "failed to %s: sg_compile_options size %zu sets byte %zu, past the %zu bytes of "
                    "fields this slicegen (%s) knows",
                    what, size, i, end, SG_VERSION_STRING);
    }
#define SG_OPTION(field, readers_of)                                                                         \
    if (inside(offsetof(sg_compile_options, field), sizeof o->field, size))                                  \
        o->field = given->field;                                                                             \
    if (!((readers_of)&reader) && memcmp(&o->field, &defaults.field, sizeof o->field) != 0)                  \
        return unread(what, #field, readers_of, err);
    SG_COMPILE_OPTIONS(SG_OPTION)
#undef SG_OPTION
    o->size = sizeof *o;
    return SG_OK;
}

/* Scalars as users write them (the TensorRT fill value) and their
 * conversion to an element type, done on the host when a plan is made. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int sg_parse_int64(const char *text, int64_t *value)
{
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    if (*p < '0' || *p > '9')
        return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return 0;
    *value = (int64_t)v;
    return 1;
}

static int all_digits(const char *p)
{
    if (*p == '\0')
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* The text as a message quotes it: its start when long. */
static const char *quoted(const char *text, char buf[SG_QUOTE_BUF(SG_QUOTE_SIDE)])
{
    return sg_quote(text, strlen(text), 0, SG_QUOTE_SIDE, buf);
}

/* The double's mantissa field of a NaN other than nan and -nan, as
 * sg_scalar_format writes it, the text after "nan(0x" and before ")". */
#define NAN_PAYLOAD_MASK ((UINT64_C(1) << 52) - 1)
static const uint64_t default_nan_mantissa = UINT64_C(1) << 51;

/* "[+-]nan(0xM)": *d is the double NaN of mantissa field M (nonzero, 52
 * bits). 0 for any other text. */
static int nan_with_payload(const char *text, double *d)
{
    const char *p = text + (*text == '+' || *text == '-');
    if (strncmp(p, "nan(0x", 6) != 0)
        return 0;
    p += 6;
    uint64_t m = 0;
    size_t digits = 0;
    for (; *p && *p != ')'; p++, digits++) {
        int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (v < 0 || digits == 13)
            return 0;
        m = m << 4 | (uint64_t)v;
    }
    if (*p != ')' || p[1] != '\0' || digits == 0 || m == 0 || m > NAN_PAYLOAD_MASK)
        return 0;
    uint64_t bits = (uint64_t)(*text == '-') << 63 | UINT64_C(0x7ff) << 52 | m;
    memcpy(d, &bits, sizeof *d);
    return 1;
}

sg_status sg_scalar_from_text(const char *text, sg_scalar *value, sg_error *err)
{
    char q[SG_QUOTE_BUF(SG_QUOTE_SIDE)];
    sg_scalar v = {0};
    const char *digits = (*text == '+' || *text == '-') ? text + 1 : text;
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        v.kind = SG_SCALAR_BOOL;
        v.i = text[0] == 't';
    } else if (all_digits(digits)) {
        if (sg_parse_int64(text, &v.i)) {
            v.kind = SG_SCALAR_INT;
        } else {
            errno = 0;
            char *end;
            unsigned long long u = strtoull(digits, &end, 10);
            if (*text == '-' || errno == ERANGE)
                return sg_fail(err, SG_ERR_SPEC,
                               "failed to parse scalar '%s': integer outside the 64-bit range",
                               quoted(text, q));
            v.kind = SG_SCALAR_UINT;
            v.u = (uint64_t)u;
        }
    } else {
        char *end;
        errno = 0;
        double d = strtod(text, &end);
        if (*text == '\0' || *end != '\0' || end == text)
            return sg_fail(
                err, SG_ERR_SPEC,
                "failed to parse scalar '%s': expected an integer, a float, nan, inf, true or false",
                quoted(text, q));
        if (isnan(d) && strchr(text, '(') != NULL && !nan_with_payload(text, &d))
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to parse scalar '%s': a NaN's payload is written nan(0xM) or -nan(0xM), M "
                           "the 52 mantissa bits of a double, 1 to fffffffffffff in hexadecimal",
                           quoted(text, q));
        v.kind = SG_SCALAR_FLOAT;
        v.f = d;
    }
    *value = v;
    return SG_OK;
}

void sg_scalar_format(const sg_scalar *value, char text[SG_SCALAR_TEXT])
{
    switch (value->kind) {
    case SG_SCALAR_BOOL: snprintf(text, SG_SCALAR_TEXT, "%s", value->i ? "true" : "false"); break;
    case SG_SCALAR_INT: snprintf(text, SG_SCALAR_TEXT, "%lld", (long long)value->i); break;
    case SG_SCALAR_UINT: snprintf(text, SG_SCALAR_TEXT, "%llu", (unsigned long long)value->u); break;
    case SG_SCALAR_FLOAT:
        if (isnan(value->f)) {
            uint64_t bits;
            memcpy(&bits, &value->f, sizeof bits);
            if ((bits & NAN_PAYLOAD_MASK) == default_nan_mantissa)
                snprintf(text, SG_SCALAR_TEXT, "%s", signbit(value->f) ? "-nan" : "nan");
            else
                snprintf(text, SG_SCALAR_TEXT, "%snan(0x%llx)", signbit(value->f) ? "-" : "",
                         (unsigned long long)(bits & NAN_PAYLOAD_MASK));
        }
        else if (isinf(value->f))
            snprintf(text, SG_SCALAR_TEXT, "%s", value->f < 0 ? "-inf" : "inf");
        else if (snprintf(text, SG_SCALAR_TEXT, "%.17g", value->f) > 0 && all_digits(text + (text[0] == '-')))
            strcat(text, ".0"); /* still a float when read back: -0.0 keeps its sign */
        break;
    }
}

/* The scalar as an exact integer, if it is one: sets *neg and *mag. */
static int exact_integer(const sg_scalar *v, int *neg, uint64_t *mag)
{
    switch (v->kind) {
    case SG_SCALAR_BOOL:
    case SG_SCALAR_INT:
        *neg = v->i < 0;
        *mag = v->i < 0 ? (uint64_t)0 - (uint64_t)v->i : (uint64_t)v->i;
        return 1;
    case SG_SCALAR_UINT:
        *neg = 0;
        *mag = v->u;
        return 1;
    case SG_SCALAR_FLOAT:
        if (!isfinite(v->f) || v->f != floor(v->f) || fabs(v->f) >= 18446744073709551616.0)
            return 0;
        *neg = v->f < 0;
        *mag = (uint64_t)fabs(v->f);
        return 1;
    }
    return 0;
}

static double as_double(const sg_scalar *v)
{
    switch (v->kind) {
    case SG_SCALAR_FLOAT: return v->f;
    case SG_SCALAR_UINT: return (double)v->u;
    default: return (double)v->i;
    }
}

sg_status sg_scalar_to_bytes(const sg_scalar *value, sg_dtype dtype, uint8_t bytes[8],
                             sg_error *err)
{
    static const struct { uint64_t max_pos, max_neg; } range[SG_DTYPE_COUNT] = {
        [SG_BOOL] = {1, 0},
        [SG_I8] = {INT8_MAX, 128}, [SG_U8] = {UINT8_MAX, 0},
        [SG_I16] = {INT16_MAX, 32768}, [SG_U16] = {UINT16_MAX, 0},
        [SG_I32] = {INT32_MAX, 2147483648u}, [SG_U32] = {UINT32_MAX, 0},
        [SG_I64] = {INT64_MAX, (uint64_t)INT64_MAX + 1}, [SG_U64] = {UINT64_MAX, 0},
    };
    memset(bytes, 0, 8);
    /* Values are stored in host order; every supported target is little-endian. */
    switch (dtype) {
    case SG_F16: { uint16_t h = sg_f64_to_f16(as_double(value)); memcpy(bytes, &h, 2); return SG_OK; }
    case SG_BF16: { uint16_t h = sg_f64_to_bf16(as_double(value)); memcpy(bytes, &h, 2); return SG_OK; }
    case SG_F32: {
        float f = value->kind == SG_SCALAR_INT ? (float)value->i : (float)value->u;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        if (value->kind != SG_SCALAR_INT && value->kind != SG_SCALAR_UINT)
            bits = sg_f64_to_f32_bits(as_double(value));
        memcpy(bytes, &bits, 4);
        return SG_OK;
    }
    case SG_F64: { double d = as_double(value); memcpy(bytes, &d, 8); return SG_OK; }
    default: break;
    }
    int neg;
    uint64_t mag;
    if (!exact_integer(value, &neg, &mag) || mag > (neg ? range[dtype].max_neg : range[dtype].max_pos)) {
        char shown[SG_SCALAR_TEXT];
        sg_scalar_format(value, shown);
        return sg_fail(err, SG_ERR_SLICE,
                       "failed to convert fill value: %s is not exactly representable as %s", shown,
                       sg_dtype_name(dtype));
    }
    uint64_t bits = neg ? (uint64_t)0 - mag : mag;
    memcpy(bytes, &bits, sg_dtype_size(dtype)); /* low bytes: two's complement truncation */
    return SG_OK;
}

sg_scalar sg_scalar_of_bits(sg_dtype dtype, int64_t bits)
{
    size_t size = sg_dtype_size(dtype);
    uint64_t low = size >= 8 ? (uint64_t)bits : (uint64_t)bits & ((UINT64_C(1) << (8 * size)) - 1);
    switch (sg_dtype_kind_of(dtype)) {
    case SG_KIND_BOOL:
        return (sg_scalar){.kind = SG_SCALAR_BOOL, .i = bits != 0};
    case SG_KIND_FLOAT:
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = sg_float_bits_to_f64(dtype, low)};
    case SG_KIND_UINT:
        return (sg_scalar){.kind = SG_SCALAR_UINT, .u = low};
    case SG_KIND_SINT: {
        uint64_t sign = UINT64_C(1) << (8 * size - 1);
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = (int64_t)((low ^ sign) - sign)};
    }
    }
    return (sg_scalar){.kind = SG_SCALAR_INT};
}

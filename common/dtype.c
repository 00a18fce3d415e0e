/* Element types and their names; IEEE half and bfloat16 conversions. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "common.h"

static const struct {
    const char *name;
    size_t size;
    sg_dtype_kind kind;
    const char *npy;
    int32_t onnx;
    const char *ir_precision, *ir_type;
} dtype_info[] = {
#define SG_DTYPE(id, name, size, kind, npy, onnx, ir_precision, ir_type)                                     \
    {name, size, kind, npy, onnx, ir_precision, ir_type},
#include "dtypes.def"
#undef SG_DTYPE
};

/* The table's rows are sg_dtype's values, in order, and all of them. */
enum {
#define SG_DTYPE(id, ...) id##_ROW,
#include "dtypes.def"
#undef SG_DTYPE
    DTYPE_ROWS
};
#define SG_DTYPE(id, ...)                                                                                    \
    _Static_assert((int)id##_ROW == (int)id, #id " is out of sg_dtype's order in dtypes.def");
#include "dtypes.def"
#undef SG_DTYPE
_Static_assert((int)DTYPE_ROWS == (int)SG_DTYPE_COUNT, "dtypes.def has a row for every sg_dtype");

sg_dtype_kind sg_dtype_kind_of(sg_dtype dtype)
{
    return (unsigned)dtype < SG_DTYPE_COUNT ? dtype_info[dtype].kind : SG_KIND_BOOL;
}

double sg_float_bits_to_f64(sg_dtype dtype, uint64_t bits)
{
    double d;
    switch (dtype) {
    case SG_F16:
        return sg_f16_to_f64((uint16_t)bits);
    case SG_BF16:
        return sg_bf16_to_f64((uint16_t)bits);
    case SG_F32:
        return sg_f32_bits_to_f64((uint32_t)bits);
    default:
        memcpy(&d, &bits, sizeof d);
        return d;
    }
}

const char *sg_dtype_npy(sg_dtype dtype)
{
    return (unsigned)dtype < SG_DTYPE_COUNT ? dtype_info[dtype].npy : NULL;
}

int32_t sg_dtype_onnx(sg_dtype dtype)
{
    return (unsigned)dtype < SG_DTYPE_COUNT ? dtype_info[dtype].onnx : 0;
}

int sg_dtype_from_onnx(int32_t code)
{
    for (int t = 0; t < SG_DTYPE_COUNT; t++)
        if (dtype_info[t].onnx == code)
            return t;
    return -1;
}

static bool same_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

int sg_dtype_from_ir(const char *name)
{
    for (int t = 0; name != NULL && t < SG_DTYPE_COUNT; t++)
        if (same_nocase(name, dtype_info[t].ir_precision) || same_nocase(name, dtype_info[t].ir_type))
            return t;
    return -1;
}

const char *sg_dtype_name(sg_dtype dtype)
{
    return (unsigned)dtype < SG_DTYPE_COUNT ? dtype_info[dtype].name : NULL;
}

size_t sg_dtype_size(sg_dtype dtype)
{
    return (unsigned)dtype < SG_DTYPE_COUNT ? dtype_info[dtype].size : 0;
}

bool sg_dtype_parse(const char *name, sg_dtype *dtype)
{
    for (int t = 0; t < SG_DTYPE_COUNT; t++) {
        if (strcmp(name, dtype_info[t].name) == 0) {
            *dtype = (sg_dtype)t;
            return true;
        }
    }
    return false;
}

/* Rounds the finite, non-negative `mag` to a float with `mant` explicit
 * mantissa bits, exponent bias `bias` and `ebits` exponent bits, nearest
 * even, and returns the bit pattern without sign. */
static uint32_t round_to_small_float(double mag, int mant, int bias, int ebits)
{
    const uint32_t inf = ((1u << ebits) - 1) << mant;
    if (isnan(mag))
        return inf | (1u << (mant - 1));
    if (isinf(mag))
        return inf;
    int exp;
    double frac = frexp(mag, &exp); /* mag = frac * 2^exp, frac in [0.5, 1) */
    if (mag == 0.0)
        return 0;
    int e = exp - 1 + bias;  /* biased exponent of the normal representation */
    double scaled;
    uint32_t field;
    if (e <= 0) {            /* subnormal: units of 2^(1 - bias - mant) */
        scaled = ldexp(mag, bias - 1 + mant);
        field = 0;
    } else {
        scaled = ldexp(frac * 2.0 - 1.0, mant);
        field = (uint32_t)e << mant;
    }
    double whole = floor(scaled);
    double rest = scaled - whole;
    uint32_t m = (uint32_t)whole;
    if (rest > 0.5 || (rest == 0.5 && (m & 1u)))
        m += 1;
    uint32_t bits = field + m; /* a mantissa carry moves into the exponent */
    return bits >= inf ? inf : bits;
}

/* A NaN's sign, quiet bit and payload in a float of `mant` mantissa bits
 * and `ebits` exponent bits (the top bits of the double's mantissa; the
 * quiet bit when none is left), for every conversion below: a signalling
 * NaN stays one, as an element copied by a kernel does. */
static uint64_t narrow_nan(double value, int mant, int ebits)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) >> (52 - mant);
    uint64_t width = (uint64_t)mant + (uint64_t)ebits;
    return (bits >> 63) << width | ((UINT64_C(1) << ebits) - 1) << mant | (m ? m : UINT64_C(1) << (mant - 1));
}

static double widen_nan(uint64_t bits, int mant, int ebits)
{
    uint64_t sign = (bits >> (mant + ebits)) & 1, m = bits & ((UINT64_C(1) << mant) - 1);
    uint64_t wide = sign << 63 | UINT64_C(0x7ff) << 52 | m << (52 - mant);
    double value;
    memcpy(&value, &wide, sizeof value);
    return value;
}

static uint16_t to_small_float(double value, int mant, int bias, int ebits)
{
    if (isnan(value))
        return (uint16_t)narrow_nan(value, mant, ebits);
    uint32_t sign = signbit(value) ? 0x8000u : 0;
    return (uint16_t)(sign | round_to_small_float(fabs(value), mant, bias, ebits));
}

uint32_t sg_f64_to_f32_bits(double value)
{
    if (isnan(value))
        return (uint32_t)narrow_nan(value, 23, 8);
    float f = (float)value;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

double sg_f32_bits_to_f64(uint32_t bits)
{
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0)
        return widen_nan(bits, 23, 8);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t sg_f64_to_f16(double value) { return to_small_float(value, 10, 15, 5); }
uint16_t sg_f64_to_bf16(double value) { return to_small_float(value, 7, 127, 8); }

static double from_small_float(uint16_t bits, int mant, int bias, int ebits)
{
    int e = (bits >> mant) & ((1 << ebits) - 1);
    uint32_t m = bits & ((1u << mant) - 1);
    double sign = (bits & 0x8000u) ? -1.0 : 1.0;
    if (e == (1 << ebits) - 1)
        return m ? widen_nan(bits, mant, ebits) : sign * INFINITY;
    if (e == 0)
        return sign * ldexp((double)m, 1 - bias - mant);
    return sign * ldexp((double)(m | (1u << mant)), e - bias - mant);
}

double sg_f16_to_f64(uint16_t bits) { return from_small_float(bits, 10, 15, 5); }
double sg_bf16_to_f64(uint16_t bits) { return from_small_float(bits, 7, 127, 8); }

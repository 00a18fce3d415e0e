/*
 * common: what every stage shares, below the frontend (the first stage):
 * the error record each stage writes (sg_error) and the quoting of user
 * text in its messages (error.c), scalars as users write them and their
 * conversion to an element type (scalar.c), and the element types' facts
 * (dtype.c, from the table dtypes.def); the border modes are modes.def.
 * No LLVM here.
 */
#ifndef SG_COMMON_H
#define SG_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slicegen.h"

/* ---- errors shared by all stages ----------------------------------------- */

/* What a failing stage reports; the public API copies it into the context. */
typedef struct sg_error {
    sg_status status;
    char message[512];
} sg_error;

/* Records a failure and returns `status`, so a caller can write
 * `return sg_fail(err, SG_ERR_SPEC, "failed to ...: ... (%d)", v);`.
 * err may be NULL. The first failure wins: later calls do not overwrite it. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
sg_status sg_fail(sg_error *err, sg_status status, const char *fmt, ...);

/* Quoting user text in a message, which must fit in sg_error.message with
 * its reason and place. Characters are UTF-8 sequences; a byte that starts
 * none is one character, and it and control characters are shown as \xHH,
 * so a message is always valid UTF-8 and never splits a sequence.
 *
 * sg_quote: text[0, len) whole when it shows in at most 4 x side bytes; a
 * longer text as at most `side` characters either side of the one at byte
 * `at` (and at most 2 x side bytes each side), with "..." where it is cut.
 * side is 1..SG_QUOTE_SIDE_MAX; buf holds SG_QUOTE_BUF(side) bytes. Returns
 * buf. SG_QUOTE_SIDE is the side for a whole expression or list. */
#define SG_QUOTE_SIDE      60
#define SG_QUOTE_SIDE_MAX  64
#define SG_QUOTE_BUF(side) (4 * (side) + 12)
const char *sg_quote(const char *text, size_t len, size_t at, size_t side, char *buf);
/* "[2, 3, ?, 4]": rank dimensions, each `unknown` one shown as ?, into
 * buf, cut with "..." where it would not fit; returns buf. */
#define SG_DIMS_TEXT_BUF 96
const char *sg_dims_text(const int64_t *dims, size_t rank, int64_t unknown, char buf[SG_DIMS_TEXT_BUF]);
/* The bytes of the character at p (1-4; 1 for a byte that starts no
 * well-formed sequence). */
size_t sg_utf8_length(const char *p);
/* The 1-based column of byte `at` of text, counted in characters. */
size_t sg_utf8_column(const char *text, size_t at);
/* The character at p as shown in a message: its UTF-8 bytes, or \xHH. */
#define SG_CHAR_TEXT 8
const char *sg_char_text(const char *p, char out[SG_CHAR_TEXT]);
/* The message of a text parser: "failed to parse <noun> '<text>': <what>
 * at column N ('c')", or "... (end of text)" when byte `at` ends the text;
 * the text quoted around `at` (SG_QUOTE_SIDE), the column as
 * sg_utf8_column counts it. Returns SG_ERR_SPEC. */
sg_status sg_syntax_error(sg_error *err, const char *noun, const char *text, size_t at, const char *what);

/* ---- border modes ------------------------------------------------------------ */

/* The border modes are the rows of modes.def: sg_trt_mode's, then
 * np.pad's symmetric, a mode of programs only (never of a spec). */
#define SG_MODE_SYMMETRIC ((sg_trt_mode)(SG_TRT_REFLECT + 1))

/* ---- scalars and element types ---------------------------------------------- */

/* A whole decimal int64 (optional sign, no spaces). 1 on success. */
int sg_parse_int64(const char *text, int64_t *value);
sg_status sg_scalar_from_text(const char *text, sg_scalar *value, sg_error *err);
/* Formats a scalar as it would be typed ("-3", "0.5", "nan", "true"). */
#define SG_SCALAR_TEXT 40
void sg_scalar_format(const sg_scalar *value, char text[SG_SCALAR_TEXT]);

/* Facts of an element type, from the table of dtypes.def (dtype.c;
 * sg_dtype_name, sg_dtype_size and sg_dtype_parse are slicegen.h's). */
typedef enum sg_dtype_kind { SG_KIND_BOOL, SG_KIND_SINT, SG_KIND_UINT, SG_KIND_FLOAT } sg_dtype_kind;
sg_dtype_kind sg_dtype_kind_of(sg_dtype dtype);
static inline bool sg_dtype_is_float(int dtype)
{
    return dtype >= 0 && dtype < SG_DTYPE_COUNT && sg_dtype_kind_of((sg_dtype)dtype) == SG_KIND_FLOAT;
}
/* The value of a float element's bits (f16, bf16, f32 or f64), exactly. */
double sg_float_bits_to_f64(sg_dtype dtype, uint64_t bits);
/* ONNX's TensorProto.DataType code of dtype; the sg_dtype of a code, or
 * -1 for one slicegen has no type for. */
int32_t sg_dtype_onnx(sg_dtype dtype);
int sg_dtype_from_onnx(int32_t code);
/* The sg_dtype an OpenVINO IR name gives (a precision such as "FP32" or
 * an element_type such as "f32", case aside), or -1. */
int sg_dtype_from_ir(const char *name);

/* Converts a scalar to `dtype`, writing sg_dtype_size(dtype) little-endian
 * bytes. Fails (SG_ERR_SLICE) if the value is out of range or not exactly
 * representable in an integer type; floats round to nearest even. */
sg_status sg_scalar_to_bytes(const sg_scalar *value, sg_dtype dtype,
                             uint8_t bytes[8], sg_error *err);

/* A runtime fill value (sg_fill_bits): the element of `dtype` whose bits
 * are the low bytes of `bits` (bool: true when bits is not 0), as the
 * scalar sg_scalar_to_bytes turns back into those bytes. */
sg_scalar sg_scalar_of_bits(sg_dtype dtype, int64_t bits);

/* IEEE binary32, binary16 and bfloat16 bit patterns from a double,
 * nearest even, and back. A NaN keeps its sign and the top bits of its
 * payload both ways, a signalling NaN included (a C cast would quiet it). */
uint32_t sg_f64_to_f32_bits(double value);
double sg_f32_bits_to_f64(uint32_t bits);
uint16_t sg_f64_to_f16(double value);
uint16_t sg_f64_to_bf16(double value);
double sg_f16_to_f64(uint16_t bits);
double sg_bf16_to_f64(uint16_t bits);

#endif

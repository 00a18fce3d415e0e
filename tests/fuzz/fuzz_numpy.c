/*
 * fuzz_numpy: the NumPy expression parser (sg_spec_numpy): index
 * expressions and programs (np.concatenate, np.roll, np.flip, np.pad,
 * chains), which are planned and run the same way.
 *
 * Decoding: the bytes, cut at the first NUL, are the expression. When it
 * parses:
 *   - its printed form (sg_spec_print) must parse again into the same steps
 *     and runtime values (sg_spec_same);
 *   - names of runtime values are bound to numbers -3..3 from the bytes'
 *     hash (sg_spec_bind), which must leave none; a bound spec that is
 *     valid (a zero step is not) is what is planned;
 *   - it is planned as i16 on two small shapes derived from the bytes
 *     (their FNV hash): one with an axis for each item that consumes one
 *     (plus up to two for an ellipsis), one of rank 0-6; dimensions 0-5,
 *     where a dimension that would take the product of the non-zero ones
 *     past 2^20 is 1 instead (fuzz_diff plans large shapes);
 *   - a plan with at most 64 KiB of input and output runs on the reference
 *     interpreter over exactly sized buffers, so that AddressSanitizer sees
 *     any byte read or written outside them.
 * When it does not parse, the message is well-formed UTF-8 (however the
 * text is), names the column and is not cut short (it ends with the
 * character or "(end of text)" after the column, or "does not fit in 64
 * bits"), however long the expression.
 */
#include "fuzz.h"

enum { MAX_BYTES = 1 << 16 };

static void plan_and_run(sg_context *ctx, const sg_spec *spec, size_t rank, const int64_t *shape)
{
    sg_plan *plan;
    if (sg_plan_create(ctx, spec, rank, shape, SG_I16, &plan) != SG_OK)
        return;
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    if (in_bytes <= MAX_BYTES && out_bytes <= MAX_BYTES) {
        uint8_t *in = malloc(in_bytes ? in_bytes : 1), *out = malloc(out_bytes ? out_bytes : 1);
        if (in == NULL || out == NULL)
            abort();
        for (uint64_t i = 0; i < in_bytes; i++)
            in[i] = (uint8_t)(i * 37 + 1);
        if (sg_run_reference(ctx, plan, in, out) != SG_OK)
            FUZZ_FAIL("reference run failed: %s", sg_context_last_error(ctx));
        free(in);
        free(out);
    }
    sg_plan_destroy(plan);
}

/* Whether s is well-formed UTF-8 (RFC 3629), decoded on its own here. */
static bool valid_utf8(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = *p, n = c < 0x80             ? 0
                             : (c & 0xE0) == 0xC0 ? 1
                             : (c & 0xF0) == 0xE0 ? 2
                             : (c & 0xF8) == 0xF0 ? 3
                                                  : 9;
        if (n == 9)
            return false;
        c &= n == 0 ? 0x7F : n == 1 ? 0x1F : n == 2 ? 0x0F : 0x07;
        for (uint32_t i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            c = c << 6 | (p[i] & 0x3F);
        }
        static const uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
        if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return false;
        p += n + 1;
    }
    return true;
}

static void check_message(const char *message, const char *text)
{
    size_t len = strlen(message);
    const char *column = strstr(message, " at column ");
    if (!valid_utf8(message))
        FUZZ_FAIL("the message for '%s' is not UTF-8: %s", text, message);
    if ((strncmp(message, "failed to parse index expression '", 34) != 0 &&
         strncmp(message, "failed to parse NumPy program '", 31) != 0) ||
        column == NULL)
        FUZZ_FAIL("the message for '%s' names no column: %s", text, message);
    if (!(len >= 2 && strcmp(message + len - 2, "')") == 0) && strstr(message, "(end of text)") == NULL &&
        strstr(column, "does not fit in 64 bits") == NULL)
        FUZZ_FAIL("the message for '%s' is cut short: %s", text, message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    char *text = fuzz_cstr(data, size);
    sg_spec *spec = NULL, *again = NULL;
    char *printed = NULL;
    if (sg_spec_numpy(ctx, text, &spec) != SG_OK) {
        check_message(sg_context_last_error(ctx), text);
        goto done;
    }

    printed = fuzz_text_of_spec(spec);
    if (sg_spec_numpy(ctx, printed, &again) != SG_OK)
        FUZZ_FAIL("'%s' printed as '%s', which does not parse: %s", text, printed,
                  sg_context_last_error(ctx));
    if (!sg_spec_same(spec, again))
        FUZZ_FAIL("'%s' printed as '%s' parses to another spec", text, printed);

    uint64_t h = fuzz_hash(data, size);
    sg_spec *named = spec;
    spec = fuzz_bind(named, h);
    sg_spec_destroy(named);
    if (spec == NULL)
        goto done;
    int64_t shape[SG_MAX_RANK];
    size_t rank = 0;
    bool ellipsis = false;
    for (size_t i = 0; i < spec->len; i++) {
        ellipsis |= spec->steps[i].ellipsis;
        rank += !spec->steps[i].ellipsis && !spec->steps[i].new_axis;
    }
    if (ellipsis)
        rank += h % 3;
    rank = rank < SG_MAX_RANK ? rank : SG_MAX_RANK;
    int64_t budget = 1 << 20;
    for (size_t a = 0; a < rank; a++) {
        shape[a] = (int64_t)((h >> (2 + 3 * (a % 20))) % 6);
        shape[a] = shape[a] <= budget ? shape[a] : 1;
        budget /= shape[a] ? shape[a] : 1;
    }
    plan_and_run(ctx, spec, rank, shape);
    rank = (size_t)(h >> 61) % 7;
    for (size_t a = 0; a < rank; a++)
        shape[a] = (int64_t)((h >> (5 * a)) % 6);
    plan_and_run(ctx, spec, rank, shape);
done:
    sg_spec_destroy(again);
    sg_spec_destroy(spec);
    free(printed);
    free(text);
    return 0;
}

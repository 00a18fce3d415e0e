/*
 * fuzz_words: the SPEC words of the command line (sg_spec_from_words): a
 * NumPy expression, or `--op StridedSlice|Slice|TrtSlice` with its options
 * (`--opt VALUE` or `--opt=VALUE`), integer lists, 0/1 masks, TensorRT
 * modes and fill values.
 *
 * Decoding: the bytes are split into words at every '\n' and '\0' (so
 * "--begin\n1,2\n--end=3,4" is three words; empty words are kept), at most
 * 64 words. When the words make a spec:
 *   - its printed form (sg_spec_print), split back into words at spaces
 *     (`''` is the empty word; an expression is one word), must make the
 *     same spec: equal lists, masks, axes and mode, the same runtime values
 *     in the same order (sg_spec_same), and a fill value that converts to
 *     the same bytes (or fails alike) for every element type;
 *   - both have their runtime values bound to the same numbers from the
 *     bytes' hash (fuzz_bind: both valid or both not), and are planned on a shape derived from the bytes
 * (rank = the spec's length, dimensions 0-7, the element type from the hash too) and must give equal plans or
 * fail with the same status.
 */
#include "fuzz.h"

enum { MAX_WORDS = 64 };

static int split(char *text, size_t size, char **words)
{
    int n = 0;
    char *start = text;
    if (size == 0)
        return 0;
    for (size_t i = 0; i <= size && n < MAX_WORDS; i++) {
        if (i == size || text[i] == '\n' || text[i] == '\0') {
            text[i] = '\0';
            words[n++] = start;
            start = text + i + 1;
        }
    }
    return n;
}

/* The printed form back into words: `''` is an empty word; an expression
 * or a program (anything but --op words) is one word. */
static int split_printed(char *text, char **words)
{
    int n = 0;
    if (strncmp(text, "--", 2) != 0) {
        words[n++] = text;
        return n;
    }
    for (char *w = strtok(text, " "); w != NULL && n < 2 * MAX_WORDS; w = strtok(NULL, " "))
        words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
    return n;
}

static void same_fill(const sg_scalar *a, const sg_scalar *b, const char *printed)
{
    for (int d = 0; d < SG_DTYPE_COUNT; d++) {
        uint8_t x[8], y[8];
        sg_error ex = {0}, ey = {0};
        sg_status sx = sg_scalar_to_bytes(a, (sg_dtype)d, x, &ex);
        sg_status sy = sg_scalar_to_bytes(b, (sg_dtype)d, y, &ey);
        if (sx != sy || (sx == SG_OK && memcmp(x, y, sg_dtype_size((sg_dtype)d)) != 0))
            FUZZ_FAIL("the fill value of '%s' converts to %s differently after printing", printed,
                      sg_dtype_name((sg_dtype)d));
    }
}

static void same_spec(const sg_spec *a, const sg_spec *b, const char *printed)
{
    if (!sg_spec_same(a, b))
        FUZZ_FAIL("'%s' makes another spec", printed);
    if (a->op == SG_OP_TRT_SLICE || a->op == SG_OP_PAD)
        same_fill(&a->fill, &b->fill, printed);
}

static void same_plans(sg_context *ctx, const sg_spec *a, const sg_spec *b, uint64_t h, const char *printed)
{
    int64_t shape[8];
    size_t rank = a->len < 8 ? a->len : 8;
    for (size_t i = 0; i < rank; i++)
        shape[i] = (int64_t)((h >> (3 * i)) % 8);
    sg_dtype dtype = (sg_dtype)((h >> 40) % SG_DTYPE_COUNT);
    sg_plan *pa = NULL, *pb = NULL;
    sg_status sa = sg_plan_create(ctx, a, rank, shape, dtype, &pa);
    sg_status sb = sg_plan_create(ctx, b, rank, shape, dtype, &pb);
    if (sa != sb || (sa == SG_OK && !sg_plan_equal(pa, pb)))
        FUZZ_FAIL("'%s' plans differently from the words it was printed from (status %s and %s)", printed,
                  sg_status_name(sa), sg_status_name(sb));
    sg_plan_destroy(pa);
    sg_plan_destroy(pb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    char *text = fuzz_cstr(data, size), *printed = NULL, *copy = NULL;
    char *words[MAX_WORDS], *again_words[2 * MAX_WORDS];
    int count = split(text, size, words);
    sg_spec *spec = NULL, *again = NULL, *bound = NULL, *bound_again = NULL;
    if (sg_spec_from_words(ctx, count, words, &spec) != SG_OK)
        goto done;

    printed = fuzz_text_of_spec(spec);
    copy = fuzz_cstr((const uint8_t *)printed, strlen(printed));
    int n = split_printed(copy, again_words);
    if (sg_spec_from_words(ctx, n, again_words, &again) != SG_OK)
        FUZZ_FAIL("'%s' does not make a spec: %s", printed, sg_context_last_error(ctx));
    same_spec(spec, again, printed);
    uint64_t h = fuzz_hash(data, size);
    bound = fuzz_bind(spec, h);
    bound_again = fuzz_bind(again, h);
    if ((bound == NULL) != (bound_again == NULL))
        FUZZ_FAIL("'%s' binds its runtime values differently from the words it was printed from", printed);
    if (bound != NULL)
        same_plans(ctx, bound, bound_again, h, printed);
done:
    sg_spec_destroy(spec);
    sg_spec_destroy(again);
    sg_spec_destroy(bound);
    sg_spec_destroy(bound_again);
    free(printed);
    free(copy);
    free(text);
    return 0;
}

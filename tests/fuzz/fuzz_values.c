/*
 * fuzz_values: kernels with runtime values against the reference
 * interpreter. A spec whose numbers may be names, over an input whose
 * dimensions may be `?`, is planned and JIT-compiled once (one context for
 * all runs, so the cache serves repeated plans); then one call: the
 * kernel's prologue (sg_kernel_prepare) must refuse exactly when the spec
 * with the numbers written in does (sg_plan_specialize), and otherwise the
 * kernel's output must equal the reference interpreter's byte for byte,
 * with the same shape, and the planner's own evaluation of the call
 * (sg_plan_prepare, whose checker checks the call's nest) accepts it too
 * (a call the reference cannot plan for its limit of
 * parts, a chain's pad much wider than its axis, has no oracle and is not
 * made). A refused call must leave args as they were. The
 * input and the output lie flush against a PROT_NONE page.
 *
 * Decoding (fuzz.h: a missing byte is 0; "int" is fuzz_int()):
 *   byte 0   bits 0-1 threads - 1 (1-3, 3 read as 1), bits 2-3 the
 *            optimization level (mod 3), bits 4-5 the element size (1, 2,
 *            4 or 8 bytes: u8, i16, f32, f64)
 *   byte 1   the rank (mod 5); then a byte per dimension: bit 7 set, `?`
 *            (its size at the call: the low bits mod 8), else the size
 *            (mod 8)
 *   then     the spec's text up to a NUL: command-line words split at
 *            spaces if it starts with "--", else a NumPy expression or
 *            program (a chain of model layers, OP(x, "WORDS"), among them)
 *   then     an int per runtime value, in order
 * Calls whose input or output exceeds 64 KiB are not run.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "fuzz.h"

#include <sys/mman.h>

enum { MAX_RANK = 4, MAX_BYTES = 1 << 16, MAX_WORDS = 64 };

/* bytes ending at a PROT_NONE page; NULL for none */
static unsigned char *fenced(size_t bytes, void **map, size_t *len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + page - 1) / page * page + page;
    *len = span + page;
    *map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*map == MAP_FAILED)
        abort();
    mprotect((unsigned char *)*map + span, page, PROT_NONE);
    return (unsigned char *)*map + span - bytes;
}

static sg_status parse(sg_context *ctx, char *text, sg_spec **spec)
{
    if (strncmp(text, "--", 2) != 0)
        return sg_spec_numpy(ctx, text, spec);
    char *words[MAX_WORDS];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w && n < MAX_WORDS;
         w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    return sg_spec_from_words(ctx, n, words, spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = {data, size};
    sg_context *ctx = fuzz_context();
    uint8_t flags = fuzz_u8(&b);
    int threads = (flags & 3) == 3 ? 1 : (flags & 3) + 1, level = (flags >> 2 & 3) % 3;
    static const sg_dtype dtypes[4] = {SG_U8, SG_I16, SG_F32, SG_F64};
    sg_dtype dtype = dtypes[flags >> 4 & 3];
    size_t rank = fuzz_u8(&b) % (MAX_RANK + 1);
    int64_t shape[MAX_RANK], call_shape[MAX_RANK];
    for (size_t i = 0; i < rank; i++) {
        uint8_t d = fuzz_u8(&b);
        shape[i] = d & 0x80 ? -1 : d % 8;
        call_shape[i] = d % 8;
    }
    size_t len = 0;
    while (len < b.n && b.p[len] != 0)
        len++;
    char *text = fuzz_cstr(b.p, len);
    b.p += len < b.n ? len + 1 : len;
    b.n -= len < b.n ? len + 1 : len;

    sg_spec *spec = NULL;
    sg_plan *plan = NULL, *bound = NULL;
    sg_kernel *kernel = NULL;
    if (parse(ctx, text, &spec) != SG_OK || sg_plan_create(ctx, spec, rank, shape, dtype, &plan) != SG_OK ||
        !sg_plan_is_symbolic(plan))
        goto done;
    int64_t values[SG_MAX_VALUES];
    size_t nvalues = sg_plan_value_count(plan);
    for (size_t i = 0; i < nvalues; i++)
        values[i] = fuzz_int(&b);
    if (sg_kernel_compile(ctx, plan, level, &kernel) != SG_OK)
        FUZZ_FAIL("a symbolic plan does not compile: %s", sg_context_last_error(ctx));
    sg_args args, before;
    memset(&args, 0x5a, sizeof args);
    before = args;
    sg_status want = sg_plan_specialize(ctx, plan, call_shape, values, &bound);
    if (want != SG_OK && strstr(sg_context_last_error(ctx), " parts (a pad much wider than its axis") != NULL)
        goto done; /* the reference's limit of parts, which a chain's pad does not have: no oracle */
    sg_status got = sg_kernel_prepare(ctx, kernel, call_shape, values, &args);
    if ((want == SG_OK) != (got == SG_OK))
        FUZZ_FAIL("'%s': the reference %s, the prologue %s: %s", text, want == SG_OK ? "accepts" : "refuses",
                  got == SG_OK ? "accepts" : "refuses", sg_context_last_error(ctx));
    if (got != SG_OK) {
        if (memcmp(&args, &before, sizeof args) != 0)
            FUZZ_FAIL("'%s': a refused call wrote args", text);
        goto done;
    }
    sg_args planned;
    sg_error broken = {0};
    int code;
    if (sg_plan_prepare(plan, call_shape, values, (int64_t *)&planned, &code, &broken) != SG_OK)
        FUZZ_FAIL("'%s': the planner's evaluation of the call fails: %s", text, broken.message);
    if ((size_t)args.out_rank != sg_plan_output_rank(bound) ||
        (uint64_t)args.output_bytes != sg_plan_output_bytes(bound) ||
        memcmp(args.out_shape, sg_plan_output_shape(bound), (size_t)args.out_rank * sizeof(int64_t)) != 0)
        FUZZ_FAIL("'%s': the prologue's output shape differs from the reference's", text);
    size_t in_bytes = sg_plan_input_bytes(bound), out_bytes = sg_plan_output_bytes(bound);
    if (in_bytes > MAX_BYTES || out_bytes > MAX_BYTES)
        goto done;
    void *in_map, *out_map;
    size_t in_len, out_len;
    unsigned char *in = fenced(in_bytes, &in_map, &in_len), *out = fenced(out_bytes, &out_map, &out_len);
    unsigned char *expected = malloc(out_bytes + 1);
    for (size_t i = 0; i < in_bytes; i++)
        in[i] = (unsigned char)(i * 131 + 7);
    sg_run_reference(ctx, bound, in, expected);
    if (sg_kernel_run_args(ctx, kernel, in, out, &args, threads) != SG_OK ||
        memcmp(out, expected, out_bytes) != 0)
        FUZZ_FAIL("'%s': the kernel's output differs from the reference's", text);
    free(expected);
    munmap(in_map, in_len);
    munmap(out_map, out_len);
done:
    sg_kernel_release(kernel);
    sg_plan_destroy(bound);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    free(text);
    return 0;
}

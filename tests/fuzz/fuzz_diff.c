/*
 * fuzz_diff: generated kernels against the reference interpreter. A spec
 * from any of the six sources, an input shape and an element type are
 * planned, the plan is JIT-compiled (sg_kernel_compile; one context for all
 * runs, so the kernel cache hits, shares and evicts as in a long-lived
 * process) and the kernel's output must equal sg_run_reference's byte for
 * byte. The input lies flush against a PROT_NONE page and so does the
 * output, so a kernel that reads or writes past either end faults; the
 * bytes on the other side of the output, up to its page boundary, must stay
 * as they were. A mismatch aborts with the spec, the shape and the plan.
 *
 * Decoding (fuzz.h: a missing byte is 0; "int" is fuzz_int(): one byte
 * -120..119, an extreme value, or 8 raw bytes):
 *   byte 0   bits 0-1 the source: StridedSlice, Slice, NumPy, TrtSlice;
 *            bits 2-3 the optimization level; bit 4 the input lies against
 *            the guard page before it (else after it); bit 5 the same for
 *            the output; bits 6-7 how it runs: sg_kernel_run on 1, 2 or 3
 *            threads, or (3) two direct calls of the kernel function over
 *            [0, s) and [s, outer extent)
 *   byte 1   s = byte * outer extent / 255
 *   byte 2   the element type (mod 13)
 *   byte 3   the rank: (b mod 128) mod 7. Below 0x80, one byte per
 *            dimension follows: 0-7 (b mod 8) below 0xf0, else 8 x (b - 0xef),
 *            cut so that the input has at most 16384 elements; from 0x80 on,
 *            one int per dimension, as it is (large, negative: for the
 *            planner's overflow checks; such plans are rarely run), but
 *            -1 (a runtime dimension, fuzz_values' part) read as -2
 *   then by source:
 *   StridedSlice  len (mod 9), flags (bit 0: stride NULL), for each of the
 *                 begin, end, new-axis, shrink-axis and ellipsis masks a
 *                 byte of bits (entries 0-7) and its length (mod 10), then
 *                 len x (begin, end, stride) ints
 *   Slice         len (mod 9), flags (bit 0: step NULL, bit 1: axes NULL,
 *                 bit 2: ONNX Slice instead of Slice-8, bit 3: an ONNX
 *                 stop byte b below 0x80 means INT32_MAX (b odd) or
 *                 INT64_MAX), len x (start, stop, step, axis) ints
 *   NumPy         the remaining bytes, cut at the first NUL, as the text;
 *                 names of runtime values are bound to numbers from the
 *                 text's hash (fuzz_bind)
 *   TrtSlice      mode (mod 5), flags (bit 0: stride NULL, bit 1: fill
 *                 NULL, bit 2: len is the next byte mod 9 instead of the
 *                 rank), [len], the fill value: kind (mod 4: int, uint,
 *                 float, bool) and an int (uint: 8 raw bytes; float: the int
 *                 divided by 4, or 8 raw bytes for 0xff), then len x
 *                 (start, size, stride) ints; with flags bit 3 a Pad
 *                 instead: its mode is WRAP..REFLECT (mode mod 4 + 1), bit
 *                 4: axes NULL, then len x (begin, end, axis) ints
 * Plans whose input or output exceeds 256 KiB are planned but not run.
 * With SLICEGEN_FUZZ_VERBOSE=1 in the environment each run prints its spec,
 * shape and plan before it is compiled (to look at timeouts).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "fuzz.h"

#include <sys/mman.h>

enum { MAX_ELEMS = 1 << 14, MAX_BYTES = 1 << 18, MAX_LEN = 8, MASK_ENTRIES = 10 };

/* ---- decoding the spec ----------------------------------------------------------------------------- */

static sg_status strided_slice(sg_context *ctx, fuzz_bytes *b, sg_spec **spec)
{
    size_t len = fuzz_u8(b) % (MAX_LEN + 1);
    uint8_t flags = fuzz_u8(b);
    int64_t masks[5][MASK_ENTRIES] = {{0}}, begin[MAX_LEN], end[MAX_LEN], stride[MAX_LEN];
    size_t mask_len[5];
    for (int m = 0; m < 5; m++) {
        uint8_t bits = fuzz_u8(b);
        for (int i = 0; i < 8; i++)
            masks[m][i] = bits >> i & 1;
        mask_len[m] = fuzz_u8(b) % MASK_ENTRIES;
    }
    for (size_t i = 0; i < len; i++) {
        begin[i] = fuzz_int(b);
        end[i] = fuzz_int(b);
        stride[i] = fuzz_int(b);
    }
    sg_strided_slice_args args = {
        .len = len,
        .begin = begin,
        .end = end,
        .stride = flags & 1 ? NULL : stride,
        .begin_mask = {masks[0], mask_len[0]},
        .end_mask = {masks[1], mask_len[1]},
        .new_axis_mask = {masks[2], mask_len[2]},
        .shrink_axis_mask = {masks[3], mask_len[3]},
        .ellipsis_mask = {masks[4], mask_len[4]},
    };
    return sg_spec_strided_slice(ctx, &args, spec);
}

static sg_status slice(sg_context *ctx, fuzz_bytes *b, sg_spec **spec)
{
    size_t len = fuzz_u8(b) % (MAX_LEN + 1);
    uint8_t flags = fuzz_u8(b);
    int64_t start[MAX_LEN], stop[MAX_LEN], step[MAX_LEN], axes[MAX_LEN];
    for (size_t i = 0; i < len; i++) {
        start[i] = fuzz_int(b);
        if ((flags & 12) == 12 && b->n > 0 && b->p[0] < 0x80) /* ONNX's "to the end" */
            stop[i] = fuzz_u8(b) & 1 ? INT32_MAX : INT64_MAX;
        else
            stop[i] = fuzz_int(b);
        step[i] = fuzz_int(b);
        axes[i] = fuzz_int(b);
    }
    sg_error err = {0};
    if (flags & 4)
        return sg_spec_make_onnx_slice(len, start, stop, flags & 1 ? NULL : step, flags & 2 ? NULL : axes,
                                       NULL, spec, &err);
    return sg_spec_slice(ctx, len, start, stop, flags & 1 ? NULL : step, flags & 2 ? NULL : axes, spec);
}

static sg_status numpy(sg_context *ctx, fuzz_bytes *b, sg_spec **spec)
{
    char *text = fuzz_cstr(b->p, b->n);
    sg_spec *named = NULL;
    sg_status st = sg_spec_numpy(ctx, text, &named);
    if (st == SG_OK) {
        *spec = fuzz_bind(named, fuzz_hash(b->p, b->n));
        st = *spec != NULL ? SG_OK : SG_ERR_SPEC;
    }
    sg_spec_destroy(named);
    free(text);
    b->n = 0;
    return st;
}

static sg_scalar fill_value(fuzz_bytes *b)
{
    sg_scalar v = {.kind = (sg_scalar_kind)(fuzz_u8(b) % 4)};
    switch (v.kind) {
    case SG_SCALAR_INT:
        v.i = fuzz_int(b);
        break;
    case SG_SCALAR_UINT:
        for (int i = 0; i < 8; i++)
            v.u |= (uint64_t)fuzz_u8(b) << (8 * i);
        break;
    case SG_SCALAR_FLOAT:
        if (b->n > 0 && b->p[0] == 0xff) {
            uint64_t bits = (uint64_t)fuzz_int(b);
            memcpy(&v.f, &bits, sizeof v.f);
        } else {
            v.f = (double)fuzz_int(b) / 4;
        }
        break;
    case SG_SCALAR_BOOL:
        v.i = fuzz_u8(b) & 1;
        break;
    }
    return v;
}

static sg_status trt_slice(sg_context *ctx, fuzz_bytes *b, size_t rank, sg_spec **spec)
{
    sg_trt_mode mode = (sg_trt_mode)(fuzz_u8(b) % 5);
    uint8_t flags = fuzz_u8(b);
    size_t len = flags & 4 ? fuzz_u8(b) % (MAX_LEN + 1) : rank;
    sg_scalar fill = fill_value(b);
    int64_t start[MAX_LEN], size[MAX_LEN], stride[MAX_LEN];
    if (flags & 8) { /* a Pad: begin, end, axis */
        sg_error err = {0};
        for (size_t i = 0; i < len; i++) {
            start[i] = fuzz_int(b);
            size[i] = fuzz_int(b);
            stride[i] = fuzz_int(b);
        }
        return sg_spec_make_pad(len, start, size, flags & 16 ? NULL : stride, (sg_trt_mode)(mode % 4 + 1),
                                flags & 2 ? NULL : &fill, NULL, spec, &err);
    }
    for (size_t i = 0; i < len; i++) {
        start[i] = fuzz_int(b);
        size[i] = fuzz_int(b);
        stride[i] = fuzz_int(b);
    }
    return sg_spec_trt_slice(ctx, len, start, size, flags & 1 ? NULL : stride, mode, flags & 2 ? NULL : &fill,
                             spec);
}

/* ---- guarded buffers --------------------------------------------------------------------------------- */

enum { PATTERN = 0xa5 };

/* `bytes` bytes flush against a PROT_NONE page: the one after them, or
 * (at_start) the one before them. The rest of their pages holds PATTERN. */
typedef struct guarded {
    uint8_t *map, *data;
    size_t map_bytes, page;
} guarded;

static void guarded_alloc(guarded *g, uint64_t bytes, bool at_start)
{
    g->page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)(bytes + g->page - 1) / g->page;
    g->map_bytes = (pages + 2) * g->page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED)
        abort();
    memset(g->map + g->page, PATTERN, pages * g->page);
    if (mprotect(g->map, g->page, PROT_NONE) != 0 ||
        mprotect(g->map + (pages + 1) * g->page, g->page, PROT_NONE) != 0)
        abort();
    g->data = g->map + g->page + (at_start ? 0 : pages * g->page - bytes);
}

/* The first byte beside the data (inside its pages) that changed, or -1. */
static long guarded_touched(const guarded *g, uint64_t bytes)
{
    const uint8_t *lo = g->map + g->page, *hi = g->map + g->map_bytes - g->page;
    for (const uint8_t *p = lo; p < hi; p++)
        if ((p < g->data || p >= g->data + bytes) && *p != PATTERN)
            return (long)(p - g->data);
    return -1;
}

static void guarded_free(guarded *g)
{
    munmap(g->map, g->map_bytes);
}

/* ---- the run ----------------------------------------------------------------------------------------- */

static void report(const char *what, const sg_spec *spec, size_t rank, const int64_t *shape,
                   const sg_plan *plan)
{
    char *spec_text = fuzz_text_of_spec(spec), *plan_text = fuzz_text_of_plan(plan);
    fprintf(stderr, "fuzz_diff: %s\nspec: %s\nshape: [", what, spec_text);
    for (size_t i = 0; i < rank; i++)
        fprintf(stderr, "%s%lld", i ? "," : "", (long long)shape[i]);
    fprintf(stderr, "] %s\nplan:\n%s", sg_dtype_name(sg_plan_dtype(plan)), plan_text);
    free(spec_text);
    free(plan_text);
}

static void run(sg_context *ctx, uint8_t how, uint8_t split, const sg_spec *spec, size_t rank,
                const int64_t *shape, const sg_plan *plan)
{
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    if (in_bytes > MAX_BYTES || out_bytes > MAX_BYTES)
        return;
    int opt_level = how >> 2 & 3, mode = how >> 6;
    sg_kernel *kernel;
    if (sg_kernel_compile(ctx, plan, opt_level, &kernel) != SG_OK) {
        report("the kernel does not compile", spec, rank, shape, plan);
        FUZZ_FAIL("%s", sg_context_last_error(ctx));
    }

    guarded in, out;
    guarded_alloc(&in, in_bytes, how & 16);
    guarded_alloc(&out, out_bytes, how & 32);
    for (uint64_t i = 0; i < in_bytes; i++)
        in.data[i] = (uint8_t)(i * 131 + 7);
    uint8_t *want = malloc(out_bytes ? out_bytes : 1);
    if (want == NULL)
        abort();
    if (sg_run_reference(ctx, plan, in.data, want) != SG_OK)
        FUZZ_FAIL("reference run failed: %s", sg_context_last_error(ctx));
    if (mode < 3) {
        if (sg_kernel_run(ctx, kernel, in.data, out.data, mode + 1) != SG_OK)
            FUZZ_FAIL("kernel run failed: %s", sg_context_last_error(ctx));
    } else {
        sg_kernel_fn fn = sg_kernel_function(kernel);
        int64_t extent = sg_kernel_outer_extent(kernel), s = extent * split / 255;
        fn(in.data, out.data, 0, s);
        fn(in.data, out.data, s, extent);
    }

    long touched = guarded_touched(&out, out_bytes);
    for (uint64_t i = 0; i < out_bytes && touched < 0; i++) {
        if (out.data[i] != want[i]) {
            report("the kernel's output differs from the reference interpreter's", spec, rank, shape, plan);
            FUZZ_FAIL("output byte %llu of %llu is 0x%02x, expected 0x%02x (opt level %d, run mode %d)",
                      (unsigned long long)i, (unsigned long long)out_bytes, out.data[i], want[i], opt_level,
                      mode);
        }
    }
    if (touched >= 0) {
        report("the kernel writes outside its output", spec, rank, shape, plan);
        FUZZ_FAIL("byte %ld from the output's start changed (output of %llu bytes)", touched,
                  (unsigned long long)out_bytes);
    }
    free(want);
    guarded_free(&in);
    guarded_free(&out);
    sg_kernel_release(kernel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    fuzz_bytes b = {data, size};
    uint8_t how = fuzz_u8(&b), split = fuzz_u8(&b);
    sg_dtype dtype = (sg_dtype)(fuzz_u8(&b) % SG_DTYPE_COUNT);
    uint8_t rank_byte = fuzz_u8(&b);
    size_t rank = (rank_byte & 0x7f) % 7;
    int64_t shape[6], budget = MAX_ELEMS;
    for (size_t a = 0; a < rank; a++) {
        if (rank_byte & 0x80) {
            shape[a] = fuzz_int(&b);
            shape[a] = shape[a] == -1 ? -2 : shape[a]; /* -1 is a runtime dimension: fuzz_values' */
            continue;
        }
        uint8_t c = fuzz_u8(&b);
        int64_t d = c < 0xf0 ? c % 8 : 8 * (c - 0xef);
        d = d < budget ? d : budget;
        budget /= d ? d : 1;
        shape[a] = d;
    }

    sg_spec *spec = NULL;
    sg_status st;
    switch (how & 3) {
    case 0:
        st = strided_slice(ctx, &b, &spec);
        break;
    case 1:
        st = slice(ctx, &b, &spec);
        break;
    case 2:
        st = numpy(ctx, &b, &spec);
        break;
    default:
        st = trt_slice(ctx, &b, rank, &spec);
        break;
    }
    if (st != SG_OK)
        return 0;
    sg_plan *plan;
    if (getenv("SLICEGEN_FUZZ_VERBOSE") != NULL) {
        char *text = fuzz_text_of_spec(spec);
        fprintf(stderr, "fuzz_diff: %s on [", text);
        for (size_t i = 0; i < rank; i++)
            fprintf(stderr, "%s%lld", i ? "," : "", (long long)shape[i]);
        fprintf(stderr, "] %s\n", sg_dtype_name(dtype));
        free(text);
    }
    if (sg_plan_create(ctx, spec, rank, shape, dtype, &plan) == SG_OK) {
        if (getenv("SLICEGEN_FUZZ_VERBOSE") != NULL)
            report("planned", spec, rank, shape, plan);
        run(ctx, how, split, spec, rank, shape, plan);
        sg_plan_destroy(plan);
    }
    sg_spec_destroy(spec);
    return 0;
}

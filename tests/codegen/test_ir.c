/*
 * The structure of the emitted IR (sg_kernel_ir), checked by instruction
 * and block shape rather than register names: memcpy for contiguous runs,
 * straight-line moves for short ones, shufflevector (never a gather) for
 * small strides, no modulo, select or extra branch inside TensorRT loops,
 * constant stores for FILL borders, a segment table for many segments, and
 * -O0 text before passes, -O2 after; runs up to 4 KiB inline with vectors
 * of 32 bytes or more; reversed pixels as one shuffle per block; an object
 * file for the host (the AOT path, sg_codegen_aot); and the machine code of
 * reversals and medium runs for the host, an AVX2 CPU and AArch64: register
 * permutes, no call; rows reversed walked with the input ascending.
 * Prints failed checks, then
 * "ir: N passed, M failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../../codegen/codegen.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
    sg_context *ctx;
} suite;

/* The IR for SPEC words (space-separated) on shape/dtype at opt_level;
 * NULL (and a failed check) if any step fails. */
static char *ir_of(suite *s, const char *spec_words, const char *shape, const char *dtype, int opt_level)
{
    char buf[512], *words[32];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", spec_words);
    if (buf[0] == '[' || strncmp(buf, "np.", 3) == 0) { /* a NumPy expression or program is one word */
        words[n++] = buf;
    } else {
        for (char *w = strtok(buf, " "); w && n < 32; w = strtok(NULL, " "))
            words[n++] = w;
    }
    int64_t dims[8];
    size_t rank = 0;
    for (const char *p = shape; *p && rank < 8; p += *p == ',') {
        char *end;
        dims[rank++] = strtoll(p, &end, 10);
        p = end;
    }
    sg_dtype type;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    char *text = NULL;
    if (!sg_dtype_parse(dtype, &type) || sg_spec_from_words(s->ctx, n, words, &spec) != SG_OK ||
        sg_plan_create(s->ctx, spec, rank, dims, type, &plan) != SG_OK ||
        sg_kernel_ir(s->ctx, plan, opt_level, &text) != SG_OK)
        CHECK(s, 0, "%s on [%s] %s: %s", spec_words, shape, dtype, sg_context_last_error(s->ctx));
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return text;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The lanes of the first shufflevector's mask, or -1 if there is none. */
static int first_mask(const char *ir, int *mask, int cap)
{
    const char *p = strstr(ir, "shufflevector");
    const char *eol = p ? strchr(p, '\n') : NULL;
    p = p ? strstr(p, " x i32> <i32 ") : NULL;
    if (p == NULL || (eol && p > eol))
        return -1;
    int n = 0;
    for (p += strlen(" x i32> <"); n < cap && strncmp(p, "i32 ", 4) == 0; n++) {
        char *end;
        mask[n] = (int)strtol(p + 4, &end, 10);
        p = end + (strncmp(end, ", ", 2) == 0 ? 2 : 0);
    }
    return n;
}

/* Whether the mask is lane i = a * i + b for every lane. */
static bool mask_is(const int *mask, int n, int a, int b)
{
    for (int i = 0; i < n; i++)
        if (mask[i] != a * i + b)
            return false;
    return n > 0;
}

/* The width in bytes of the widest store of a vector whose lanes all hold
 * `value` (an i32 splat), 0 if there is none. Older LLVMs (14 to 19) print
 * the constant lane by lane, "<16 x i32> <i32 7, i32 7, ...>", LLVM 22
 * "<16 x i32> splat (i32 7)". */
static int widest_splat_store(const char *ir, const char *value)
{
    char lanes[64], splat[64];
    int widest = 0;
    snprintf(lanes, sizeof lanes, "x i32> <i32 %s, i32 %s", value, value);
    snprintf(splat, sizeof splat, "x i32> splat (i32 %s)", value);
    for (const char *p = ir; (p = strstr(p, "store <")) != NULL; p++) {
        const char *eol = strchr(p, '\n'), *hit = strstr(p, lanes);
        if (!hit || (eol && hit > eol))
            hit = strstr(p, splat);
        if (hit && (!eol || hit < eol))
            widest = widest > 4 * atoi(p + 7) ? widest : 4 * atoi(p + 7);
    }
    return widest;
}

/* What the single-block loops of the IR (a block whose terminator branches
 * back to itself: the innermost copy loops) contain. */
typedef struct loop_scan {
    int loops, selects, modulos, extra_branches;
} loop_scan;

static bool is_label(const char *line, size_t len, char *label, size_t cap)
{
    const char *colon = memchr(line, ':', len);
    if (len == 0 || line[0] == ' ' || line[0] == ';' || colon == NULL || (size_t)(colon - line) >= cap ||
        strncmp(line, "define", 6) == 0)
        return false;
    snprintf(label, cap, "%.*s", (int)(colon - line), line);
    return strchr(label, ' ') == NULL;
}

static loop_scan scan_loops(const char *text)
{
    loop_scan scan = {0};
    char label[64] = "";
    int selects = 0, modulos = 0, icmps = 0;
    for (const char *line = text; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char ins[512], self[80];
        snprintf(ins, sizeof ins, "%.*s", (int)(len < 511 ? len : 511), line);
        if (is_label(line, len, label, sizeof label)) {
            selects = modulos = icmps = 0; /* a new block */
        } else if (strncmp(ins, "  br i1 ", 8) == 0) {
            snprintf(self, sizeof self, "label %%%s,", label);
            char self_last[80];
            snprintf(self_last, sizeof self_last, "label %%%s", label);
            size_t n = strlen(ins), k = strlen(self_last);
            if (strstr(ins, self) || (n >= k && strcmp(ins + n - k, self_last) == 0)) {
                scan.loops++;
                scan.selects += selects;
                scan.modulos += modulos;
                scan.extra_branches += icmps > 1; /* more than the latch compare */
            }
        } else {
            selects += strstr(ins, " select ") != NULL;
            modulos += strstr(ins, " urem ") || strstr(ins, " srem ") || strstr(ins, " udiv ") ||
                       strstr(ins, " sdiv ");
            icmps += strstr(ins, " icmp ") != NULL;
        }
        line = eol ? eol + 1 : line + len;
    }
    return scan;
}

static void contiguous(suite *s)
{
    for (int opt = 0; opt <= 2; opt += 2) {
        char *ir = ir_of(s, "[1:3]", "4,1024", "f32", opt);
        if (!ir)
            continue;
        CHECK(s, count(ir, "call void @llvm.memcpy") == 1, "-O%d [1:3]: one llvm.memcpy call", opt);
        CHECK(s, count(ir, "define void @sg_x4_l0_r8192_") == 1, "-O%d: symbol describes the plan", opt);
        free(ir);
    }
    /* Short runs: straight-line moves, no call. */
    char *ir = ir_of(s, "[:, 1:3]", "64,8", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "call ") == 0, "8-byte runs: no call");
        CHECK(s, count(ir, "load i64") == 1 && count(ir, "store i64") == 1, "8-byte runs: one i64 move");
        free(ir);
    }
    ir = ir_of(s, "[:, 1:13]", "64,16", "i16", 0);
    if (ir) {
        CHECK(s, count(ir, "call ") == 0, "24-byte runs: no call");
        CHECK(s, count(ir, "load <16 x i8>") == 2 && count(ir, "load i") == 0,
              "24-byte runs: two overlapping 16-byte moves");
        free(ir);
    }
}

/* Runs longer than 128 bytes and up to 4 KiB: inline vector moves of at
 * least 32 bytes (the host's widest), straight-line or in a loop; longer
 * ones one memcpy each. */
static void medium_runs(suite *s)
{
    static const struct {
        const char *spec, *shape;
        int run;
    } cases[] = {{"[:, :, 8:-8, 8:-8]", "2,2,128,128", 448},
                 {"[:, 3:-3]", "5,256", 1000},
                 {"[:, 1:]", "4,1025", 4096},
                 {"[:, :, 100:900]", "1,3,1024", 3200}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int opt = 0; opt <= 2; opt += 2) {
            char *ir = ir_of(s, cases[i].spec, cases[i].shape, "f32", opt);
            if (!ir)
                continue;
            CHECK(s, count(ir, "call ") == 0, "-O%d %d-byte runs: no call", opt, cases[i].run);
            CHECK(s, count(ir, "load <32 x i8>") + count(ir, "load <64 x i8>") >= 1,
                  "-O%d %d-byte runs: vector loads of 32 or 64 bytes", opt, cases[i].run);
            free(ir);
        }
    char *ir = ir_of(s, "[:, 1:]", "4,1026", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "call void @llvm.memcpy") == 1, "4100-byte runs: one memcpy");
        free(ir);
    }
    /* Runs that all start 32 bytes past a 64-byte line: 32-byte moves, none
     * straddling two lines. */
    ir = ir_of(s, "[:, :, 8:-8, 8:-8]", "2,2,128,128", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "load <32 x i8>") > 0 && count(ir, "load <64 x i8>") == 0,
              "runs 32 bytes past a line: 32-byte moves");
        free(ir);
    }
}

static void strided(suite *s)
{
    char *ir = ir_of(s, "[:, ::2]", "16,64", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "shufflevector") >= 1, "stride 2 at -O0: shufflevector");
        CHECK(s, count(ir, "gather") == 0, "stride 2: no gather");
        int mask[256], n = first_mask(ir, mask, 256);
        CHECK(s, n >= 8 && mask_is(mask, n, 2, 0), "stride 2: even lanes (%d lanes)", n);
        free(ir);
    }
    ir = ir_of(s, "[::-1]", "1000", "i16", 0);
    if (ir) {
        CHECK(s, count(ir, "shufflevector") == 1 && count(ir, "gather") == 0, "reversed: one shuffle");
        int mask[256], n = first_mask(ir, mask, 256);
        CHECK(s, n >= 16 && mask_is(mask, n, -1, n - 1), "reversed: descending lanes (%d lanes)", n);
        free(ir);
    }
    ir = ir_of(s, "[:, ::-2]", "16,64", "u8", 0);
    if (ir) {
        CHECK(s, count(ir, "shufflevector") == 1 && count(ir, "gather") == 0, "u8 stride -2: a shuffle");
        free(ir);
    }
    ir = ir_of(s, "[:, ::2]", "16,64", "f64", 2);
    if (ir) {
        CHECK(s, count(ir, "gather") == 0, "stride 2 at -O2: no gather");
        free(ir);
    }
    /* Prefetching the row 32 KiB ahead: in kernels reading more than 4 MiB
     * whose rows are 1-64 KiB apart, for shuffled and for copied runs. */
    static const char *const rows[][4] = {{"[:, ::-1]", "2048,1024", "1", "large reversal"},
                                          {"[:, 100:900]", "2048,1024", "1", "large crop of rows"},
                                          {"[:, ::-1]", "64,1024", "0", "small reversal"},
                                          {"[:, ::2]", "16,262144", "0", "rows 1 MiB apart"}};
    for (int k = 0; k < 4; k++) {
        ir = ir_of(s, rows[k][0], rows[k][1], "f32", 0);
        if (ir) {
            CHECK(s, (count(ir, "call void @llvm.prefetch") > 0) == (rows[k][2][0] == '1'), "%s: %s", rows[k][3],
                  rows[k][2][0] == '1' ? "prefetches" : "no prefetch");
            free(ir);
        }
    }
    /* A roll's parts each read a piece of every row, where a hardware
     * prefetcher following one part's loads loses the stream: each run
     * prefetches its piece of the row 32 KiB ahead (f32 [4096, 4096]: 3.1 ->
     * 2.2 ms), in a large input only. */
    static const char *const rolls[][3] = {{"4096,4096", "1", "large roll"}, {"64,1024", "0", "small roll"}};
    for (int k = 0; k < 2; k++) {
        ir = ir_of(s, "np.roll(x, 1000, axis=1)", rolls[k][0], "f32", 0);
        if (ir) {
            bool ahead = rolls[k][1][0] == '1';
            CHECK(s, (count(ir, "call void @llvm.prefetch") >= 2) == ahead && (count(ir, "i64 32768\n") >= 2) == ahead,
                  "%s: %s", rolls[k][2], ahead ? "both parts prefetch 2 rows ahead" : "no prefetch");
            free(ir);
        }
    }
    /* Rows reversed: the outer loop walks them backwards, so that the input
     * ascends (+4096 bytes a row, prefetched 32 KiB ahead) while the output
     * descends (-2048 bytes a row). */
    ir = ir_of(s, "[::-1, 1::2]", "2048,1024", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "%src, i64 4096\n") == 1 && count(ir, "i64 -4096\n") == 0,
              "rows reversed: the input ascends row by row");
        CHECK(s, count(ir, "%dst, i64 -2048\n") == 1, "rows reversed: the output descends row by row");
        CHECK(s, count(ir, "i64 32768\n") >= 1 && count(ir, "i64 -32768\n") == 0,
              "rows reversed: prefetches ahead of the ascending input");
        free(ir);
    }
    /* A wrapped stride: 2^62 rows of 2 bytes is INT64_MIN, in a loop of at
     * most one iteration of a symbolic plan; emitted as is (the backwards
     * walk of reversed rows negated it: undefined behaviour). */
    ir = ir_of(s, "[5:v1:4611686018427387904, v2:v3:v4]", "-1,2", "i8", 0);
    free(ir);
    /* A long constant run in a symbolic plan (rows 8 MB long, a stride known
     * at run time): its prefetches ahead are a loop of lines, not one call
     * per line (the code grew with the run: 2 GB to compile rows of 88 MB). */
    ir = ir_of(s, "--op TrtSlice --start 0,x --size 4,2000000", "-1,-1", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "call void @llvm.prefetch") <= 32,
              "rows of 8 MB: a bounded number of prefetch calls (%d)", count(ir, "call void @llvm.prefetch"));
        free(ir);
    }
    /* Whole rows reversed: the same backwards walk, the input read as one
     * ascending stream (no prefetch needed), the output's rows descending. */
    ir = ir_of(s, "[::-1]", "2048,1024", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "%src, i64 4096\n") == 1 && count(ir, "%dst, i64 -4096\n") == 1,
              "[::-1]: input rows ascend, output rows descend");
        CHECK(s, count(ir, "call void @llvm.prefetch") == 0, "[::-1]: no prefetch of a contiguous input");
        free(ir);
    }
    /* Pixels of 3 bytes and of 3 x f32 reversed: whole runs per block of
     * whole vectors, one shuffle, no element loop (64 pixels a row fill
     * whole blocks at every vector width). */
    static const char *const pixels[][2] = {{"u8", "3"}, {"f32", "12"}};
    for (int k = 0; k < 2; k++)
        for (int opt = 0; opt <= 2; opt += 2) {
            ir = ir_of(s, "[:, ::-1]", "16,64,3", pixels[k][0], opt);
            if (!ir)
                continue;
            int mask[256], n = first_mask(ir, mask, 256);
            bool pixel_reversal = n > 0;
            for (int i = 0, r = atoi(pixels[k][1]) / (k ? 4 : 1); i < n; i++)
                pixel_reversal = pixel_reversal && mask[i] == n - r - (i / r) * r + i % r;
            CHECK(s, count(ir, "shufflevector") >= 1 && pixel_reversal,
                  "-O%d %s-byte pixels reversed: a shuffle reversing pixels (%d lanes)", opt, pixels[k][1], n);
            CHECK(s, count(ir, "gather") == 0 && count(ir, "call ") == 0 && count(ir, "load i8,") == 0 &&
                         count(ir, "load i16,") == 0 && count(ir, "load i32,") == 0 && count(ir, "load i64,") == 0,
                  "-O%d %s-byte pixels reversed: no gather, call or element load", opt, pixels[k][1]);
            free(ir);
        }
}

/* TensorRT: per-segment code, no modulo or select inside the copy loops. */
static void trt(suite *s)
{
    static const char *const cases[] = {
        "--op TrtSlice --start 1,2 --size 5,6 --stride 1,2 --mode strict",
        "--op TrtSlice --start -3,-2 --size 20,40 --mode clamp",
        "--op TrtSlice --start -3,-2 --size 20,40 --mode reflect",
        "--op TrtSlice --start -3,-2 --size 11,13 --stride 1,-1 --mode wrap",
        "--op TrtSlice --start -3,-2 --size 20,40 --mode fill --fill 7",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int opt = 0; opt <= 2; opt += 2) {
            char *ir = ir_of(s, cases[i], "8,16", "i32", opt);
            if (!ir)
                continue;
            loop_scan scan = scan_loops(ir);
            CHECK(s, count(ir, " urem ") + count(ir, " srem ") == 0, "-O%d %s: no modulo", opt, cases[i]);
            if (opt == 0) {
                CHECK(s, scan.loops >= 1, "-O0 %s: innermost loops found", cases[i]);
                CHECK(s, scan.selects == 0 && scan.modulos == 0 && scan.extra_branches == 0,
                      "-O0 %s: copy loops without select (%d), modulo (%d) or extra branch (%d)", cases[i],
                      scan.selects, scan.modulos, scan.extra_branches);
                CHECK(s, count(ir, "@segments") == 0, "-O0 %s: few segments need no table", cases[i]);
            }
            free(ir);
        }
    }
}

static void fills(suite *s)
{
    char *ir = ir_of(s, "--op TrtSlice --start -3 --size 10 --mode fill --fill 7", "4", "i32", 0);
    if (ir) { /* borders of 3 elements: straight-line constant stores */
        CHECK(s,
              count(ir, "store i32 7,") + count(ir, "store <2 x i32> <i32 7, i32 7>,") +
                      count(ir, "store <2 x i32> splat (i32 7),") >=
                  2,
              "fill 7: constant stores");
        CHECK(s, count(ir, "call ") == 0, "short fill 7: no call");
        free(ir);
    }
    ir = ir_of(s, "--op TrtSlice --start -300 --size 1000 --mode fill --fill 1.5", "4", "f32", 0);
    if (ir) { /* long borders: splat-vector store loop of 1.5f = 0x3fc00000 */
        CHECK(s, widest_splat_store(ir, "1069547520") >= 32, "long fill 1.5: splat stores of 32 bytes or more");
        free(ir);
    }
    ir = ir_of(s, "--op TrtSlice --start -3,-300 --size 10,1000 --mode fill", "4,4", "i16", 0);
    if (ir) { /* fill 0: every byte equal, memset */
        CHECK(s, count(ir, "call void @llvm.memset") >= 1, "fill 0: llvm.memset");
        free(ir);
    }
}

static void tables(suite *s)
{
    char *ir = ir_of(s, "--op TrtSlice --start -1 --size 70 --stride 7 --mode reflect", "40", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "@segments = private unnamed_addr constant") == 1, "many segments: a table");
        CHECK(s, count(ir, " urem ") + count(ir, " srem ") == 0, "table: no modulo");
        free(ir);
    }
    /* Many periods: the segments of one period, repeated; still no modulo. */
    ir = ir_of(s, "--op TrtSlice --start -1 --size 1000000000 --mode reflect", "3", "f32", 0);
    if (ir) {
        CHECK(s, count(ir, "@segments") == 0, "one period needs no table");
        CHECK(s, count(ir, " urem ") + count(ir, " srem ") == 0, "periods: no modulo");
        CHECK(s, count(ir, " sdiv ") == 2, "periods: the first and last period, once (%d sdiv)",
              count(ir, " sdiv "));
        free(ir);
    }
}

static void levels(suite *s)
{
    char *o0 = ir_of(s, "[1:, ::2]", "40,33", "f32", 0), *o2 = ir_of(s, "[1:, ::2]", "40,33", "f32", 2);
    if (o0 && o2) {
        CHECK(s, count(o0, "%i = phi i64") >= 1, "-O0: as emitted");
        CHECK(s, count(o2, ".preheader:") >= 1 && count(o0, ".preheader:") == 0,
              "-O2: after the pipeline (loops in canonical form, with preheaders)");
        CHECK(s, strcmp(o0, o2) != 0, "-O0 and -O2 differ");
    }
    free(o0);
    free(o2);
    char *text = NULL;
    sg_spec *spec;
    sg_plan *plan;
    int64_t shape[1] = {4};
    if (sg_spec_numpy(s->ctx, "[1:]", &spec) == SG_OK) {
        if (sg_plan_create(s->ctx, spec, 1, shape, SG_I8, &plan) == SG_OK) {
            CHECK(s, sg_kernel_ir(s->ctx, plan, 4, &text) == SG_ERR_USAGE, "-O4 is bad usage");
            CHECK(s, strstr(sg_context_last_error(s->ctx), "optimization level 4") != NULL, "-O4 message: %s",
                  sg_context_last_error(s->ctx));
            sg_plan_destroy(plan);
        }
        sg_spec_destroy(spec);
    }
}

static void object(suite *s)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    int64_t shape[2] = {8, 9};
    if (sg_spec_numpy(s->ctx, "[::-1, 1::2]", &spec) == SG_OK &&
        sg_plan_create(s->ctx, spec, 2, shape, SG_F32, &plan) == SG_OK) {
        sg_error err = {0};
        sg_aot_output out = {0};
        sg_aot_kernel k = {.plan = plan, .name = "my_kernel", .spec = "[::-1, 1::2]", .layer_id = -1};
        sg_compile_options o = {.size = sizeof o, .opt_level = 2};
        CHECK(s, sg_codegen_aot(&k, 1, &o, SG_AOT_OBJECT, "k.o", false, &out, &err) == SG_OK,
              "emit object: %s", err.message);
        const unsigned char *bytes = out.bytes;
        CHECK(s, out.size > 64 && memcmp(bytes, "\177ELF", 4) == 0, "an ELF object (%zu bytes)", out.size);
        bool named = false;
        for (size_t i = 0; i + 9 < out.size && !named; i++)
            named = memcmp(bytes + i, "my_kernel", 9) == 0;
        CHECK(s, named, "the object defines my_kernel");
        sg_aot_output_free(&out);
        err = (sg_error){0};
        o.target = "no-such-triple";
        CHECK(s,
              sg_codegen_aot(&k, 1, &o, SG_AOT_OBJECT, "k.o", false, &out, &err) == SG_ERR_USAGE &&
                  strstr(err.message, "no-such-triple") != NULL,
              "an unknown triple fails: %s", err.message);
    }
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
}

/* The machine code of pixel reversals and medium runs, per target: register
 * permutes (x86 vpermd, vpermt2b, pshufb; AArch64 tbl, rev, ext), no call. */
static void assembly(suite *s)
{
    static const struct {
        const char *target, *cpu, *permutes[4];
    } targets[] = {{NULL, "native", {"vperm", "pshufb", "vshuf", "shufp"}},
                   {NULL, "x86-64-v3", {"vperm", "pshufb", "vshuf", "shufp"}},
                   {"aarch64-linux-gnu", NULL, {"\ttbl", "\trev", "\text", "\tzip"}}};
    static const char *const specs[][3] = {{"[:, ::-1]", "u8", "permutes"}, {"[:, ::-1]", "f32", "permutes"},
                                           {"[:, 2:-2]", "f32", "no call"}};
    int64_t shapes[][3] = {{16, 64, 3}, {16, 64, 3}, {16, 300, 1}};
    bool x86_host = false;
#if defined(__x86_64__)
    x86_host = true;
#endif
    for (size_t t = x86_host ? 0 : 2; t < sizeof targets / sizeof *targets; t++)
        for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
            sg_spec *spec = NULL;
            sg_plan *plan = NULL;
            sg_dtype type;
            sg_dtype_parse(specs[k][1], &type);
            if (sg_spec_numpy(s->ctx, specs[k][0], &spec) != SG_OK ||
                sg_plan_create(s->ctx, spec, k == 2 ? 2 : 3, shapes[k], type, &plan) != SG_OK) {
                CHECK(s, 0, "plan %s: %s", specs[k][0], sg_context_last_error(s->ctx));
                sg_spec_destroy(spec);
                continue;
            }
            sg_error err = {0};
            sg_aot_output out = {0};
            sg_aot_kernel kernel = {.plan = plan, .name = "k", .spec = specs[k][0], .layer_id = -1};
            sg_compile_options o = {
                .size = sizeof o, .target = targets[t].target, .cpu = targets[t].cpu, .opt_level = 2};
            const char *where = targets[t].target ? targets[t].target : targets[t].cpu ? targets[t].cpu : "host";
            if (sg_codegen_aot(&kernel, 1, &o, SG_AOT_ASSEMBLY, "k.s", false, &out, &err) != SG_OK) {
                CHECK(s, 0, "%s %s for %s: %s", specs[k][0], specs[k][1], where, err.message);
            } else {
                char *text = malloc(out.size + 1);
                memcpy(text, out.bytes, out.size);
                text[out.size] = '\0';
                char *end = strstr(text, "k_info"); /* the function only */
                if (end)
                    *end = '\0';
                int permutes = 0;
                for (int i = 0; i < 4; i++)
                    permutes += count(text, targets[t].permutes[i]);
                CHECK(s, count(text, "call") == 0 && count(text, "\tbl\t") == 0 && count(text, "\tb\tmemcpy") == 0,
                      "%s %s for %s: no call", specs[k][0], specs[k][1], where);
                if (k < 2)
                    CHECK(s, permutes >= 1, "%s %s for %s: register permutes", specs[k][0], specs[k][1], where);
                free(text);
            }
            sg_aot_output_free(&out);
            sg_plan_destroy(plan);
            sg_spec_destroy(spec);
        }
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT, NULL};
    if (sg_context_create(&s.ctx) != SG_OK)
        return 1;
    contiguous(&s);
    medium_runs(&s);
    strided(&s);
    trt(&s);
    fills(&s);
    tables(&s);
    levels(&s);
    object(&s);
    assembly(&s);
    sg_context_destroy(s.ctx);
    return finish("ir", &s.counts);
}

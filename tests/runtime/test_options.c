/*
 * sg_compile_options and the entry points that take it: every field set
 * through sg_kernel_compile_with, sg_kernel_ir_with, sg_aot_write_with,
 * sg_aot_kernel_name_with and sg_cuda_kernel_compile_with; a struct of an
 * older, shorter size accepted with the fields past it at their defaults;
 * size 0, sizes past SG_COMPILE_OPTIONS_MAX_SIZE and a newer struct with
 * bytes set past the known fields refused (SG_ERR_USAGE, one line naming
 * the value); a field set for a call that does not read it refused, naming
 * the field; the former entry points (sg_kernel_compile,
 * sg_kernel_compile_stores, sg_kernel_ir, sg_aot_write, sg_aot_kernel_name,
 * sg_cuda_kernel_compile) giving what the new ones give, byte for byte;
 * sg_compile_options_init_size writing exactly its size; the layout table
 * of sg_struct_size and sg_struct_field; the *_destroy functions, sg_free
 * and sg_aot_default_prefix. Prints failed checks, then "options: N passed,
 * M failed"; exits nonzero on failure.
 *
 *   usage: test_options [SOURCE_DIR]   (SOURCE_DIR: for examples/model/model.xml, the model field)
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slicegen.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
} suite;

static suite S = {CHECK_COUNTS_INIT};

static sg_plan *numpy_plan(sg_context *ctx, const char *expr, size_t rank, const int64_t *shape,
                           sg_dtype dtype)
{
    sg_spec *spec;
    sg_plan *plan = NULL;
    if (sg_spec_numpy(ctx, expr, &spec) == SG_OK) {
        sg_plan_create(ctx, spec, rank, shape, dtype, &plan);
        sg_spec_destroy(spec);
    }
    CHECK(&S, plan != NULL, "plan '%s': %s", expr, sg_context_last_error(ctx));
    return plan;
}

/* st is `want`, and the last error is one line holding each text (NULL-terminated). */
static void expect(sg_context *ctx, sg_status st, sg_status want, const char *what, ...)
{
    const char *message = sg_context_last_error(ctx);
    if (!CHECK(&S, st == want, "%s: status %s, expected %s (%s)", what, sg_status_name(st),
               sg_status_name(want), message))
        return;
    if (want == SG_OK)
        return;
    CHECK(&S, strchr(message, '\n') == NULL && strncmp(message, "failed to ", 10) == 0,
          "%s: one line, 'failed to ...': %s", what, message);
    va_list ap;
    va_start(ap, what);
    for (const char *text; (text = va_arg(ap, const char *)) != NULL;)
        CHECK(&S, strstr(message, text) != NULL, "%s: the message lacks '%s': %s", what, text, message);
    va_end(ap);
}

/* The kernel's output for a patterned input equals the reference's. */
static bool agrees(sg_context *ctx, const sg_plan *plan, const sg_kernel *kernel)
{
    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    unsigned char *in = malloc(in_bytes + 1), *want = malloc(out_bytes + 1), *got = malloc(out_bytes + 1);
    bool ok = in && want && got;
    for (uint64_t i = 0; ok && i < in_bytes; i++)
        in[i] = (unsigned char)(i * 37 + i / 251);
    if (ok) {
        memset(want, 1, out_bytes);
        memset(got, 2, out_bytes);
        ok = sg_run_reference(ctx, plan, in, want) == SG_OK &&
             sg_kernel_run(ctx, kernel, in, got, 2) == SG_OK && memcmp(want, got, out_bytes) == 0;
    }
    free(in);
    free(want);
    free(got);
    return ok;
}

/* The bytes of a file (NULL if it cannot be read); *size its length. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bytes = NULL;
    *size = 0;
    if (f == NULL)
        return NULL;
    for (size_t cap = 0;;) {
        if (*size == cap) {
            unsigned char *more = realloc(bytes, cap = cap ? 2 * cap : 4096);
            if (more == NULL)
                break;
            bytes = more;
        }
        size_t n = fread(bytes + *size, 1, cap - *size, f);
        *size += n;
        if (n == 0)
            break;
    }
    fclose(f);
    return bytes;
}

/* Whether two files hold the same bytes. */
static bool same_file_bytes(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* Whether the file holds `text`. */
static bool file_has(const char *path, const char *text)
{
    size_t n;
    unsigned char *bytes = slurp(path, &n);
    bool found = false;
    for (size_t i = 0, len = strlen(text); bytes && i + len <= n && !found; i++)
        found = memcmp(bytes + i, text, len) == 0;
    free(bytes);
    return found;
}

static char tmpdir[64];

/* tmpdir/NAME; old_path: tmpdir/old/NAME, for the former entry points'
 * outputs (an object names its file: the two must have one name). */
static const char *tmp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
    return buf;
}

static const char *old_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/old/%s", tmpdir, name);
    return buf;
}

/* ---- defaults, sizes and the layout table ------------------------------------------ */

static void init_and_layout(void)
{
    sg_compile_options o;
    memset(&o, 0x5a, sizeof o);
    sg_compile_options_init(&o);
    CHECK(&S,
          o.size == sizeof o && o.opt_level == SG_DEFAULT_OPT_LEVEL && o.stores == SG_STORES_AUTO &&
              o.target == NULL && o.cpu == NULL && !o.no_cf_protection && o.prefix == NULL &&
              o.command == NULL && o.progress == NULL && o.progress_arg == NULL && o.model == NULL &&
              o.device == 0,
          "sg_compile_options_init sets every field to its default");

    /* init_size writes exactly its size: the shorter struct of an older header */
    unsigned char bytes[sizeof(sg_compile_options) + 16];
    memset(bytes, 0xa5, sizeof bytes);
    sg_compile_options *p = (sg_compile_options *)(void *)bytes;
    size_t old = offsetof(sg_compile_options, cpu);
    sg_compile_options_init_size(p, old);
    bool untouched = true;
    for (size_t i = old; i < sizeof bytes; i++)
        untouched = untouched && bytes[i] == 0xa5;
    CHECK(&S, p->size == old && p->opt_level == SG_DEFAULT_OPT_LEVEL && p->target == NULL && untouched,
          "sg_compile_options_init_size(%zu) writes those bytes only", old);
    memset(bytes, 0xa5, sizeof bytes);
    sg_compile_options_init_size(p, 4);
    sg_compile_options_init_size(p, SG_COMPILE_OPTIONS_MAX_SIZE + 1);
    untouched = true;
    for (size_t i = 0; i < sizeof bytes; i++)
        untouched = untouched && bytes[i] == 0xa5;
    CHECK(&S, untouched,
          "sg_compile_options_init_size writes nothing for a size below size_t's or past the max");

    CHECK(&S, sg_struct_size("sg_compile_options") == sizeof(sg_compile_options),
          "sg_struct_size(sg_compile_options)");
    CHECK(&S,
          sg_struct_size("sg_args") == sizeof(sg_args) && sg_struct_size("sg_tensor") == sizeof(sg_tensor) &&
              sg_struct_size("sg_no_such") == 0 && sg_struct_size(NULL) == 0,
          "sg_struct_size of sg_args, sg_tensor, an unknown name");
    CHECK(&S,
          sg_triple_is_gpu("nvptx64-nvidia-cuda") && sg_triple_is_gpu("nvptx-nvidia-cuda") &&
              !sg_triple_is_gpu(NULL) && !sg_triple_is_gpu("x86_64-linux-gnu") &&
              !sg_triple_is_gpu("aarch64-linux-gnu") && !sg_triple_is_gpu("riscv64-unknown-linux-gnu") &&
              !sg_triple_is_gpu(""),
          "sg_triple_is_gpu: the nvptx triples and no other");
    static const struct {
        const char *name;
        size_t offset, size;
    } fields[] = {
        {"size", offsetof(sg_compile_options, size), sizeof o.size},
        {"opt_level", offsetof(sg_compile_options, opt_level), sizeof o.opt_level},
        {"stores", offsetof(sg_compile_options, stores), sizeof o.stores},
        {"target", offsetof(sg_compile_options, target), sizeof o.target},
        {"cpu", offsetof(sg_compile_options, cpu), sizeof o.cpu},
        {"no_cf_protection", offsetof(sg_compile_options, no_cf_protection), sizeof o.no_cf_protection},
        {"prefix", offsetof(sg_compile_options, prefix), sizeof o.prefix},
        {"command", offsetof(sg_compile_options, command), sizeof o.command},
        {"progress", offsetof(sg_compile_options, progress), sizeof o.progress},
        {"progress_arg", offsetof(sg_compile_options, progress_arg), sizeof o.progress_arg},
        {"model", offsetof(sg_compile_options, model), sizeof o.model},
        {"device", offsetof(sg_compile_options, device), sizeof o.device},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        size_t offset = 0, size = 0;
        CHECK(&S,
              sg_struct_field("sg_compile_options", fields[i].name, &offset, &size) &&
                  offset == fields[i].offset && size == fields[i].size,
              "sg_struct_field(sg_compile_options, %s): %zu at %zu, expected %zu at %zu", fields[i].name,
              size, offset, fields[i].size, fields[i].offset);
    }
    size_t offset = 7, size = 7;
    CHECK(&S,
          sg_struct_field("sg_args", "output_bytes", &offset, &size) &&
              offset == offsetof(sg_args, output_bytes) && size == sizeof(int64_t),
          "sg_struct_field(sg_args, output_bytes)");
    offset = size = 7;
    CHECK(&S, !sg_struct_field("sg_args", "internal", &offset, &size) && offset == 7 && size == 7,
          "sg_args' private part is not listed, and a miss writes nothing");
    CHECK(&S, SG_COMPILE_OPTIONS_MIN_SIZE == offsetof(sg_compile_options, stores) + sizeof(sg_stores),
          "the minimum size is that of size, opt_level and stores");
}

/* Sizes out of the rule, and a newer (larger) struct. */
static void sizes(sg_context *ctx, const sg_plan *plan)
{
    sg_kernel *k = NULL, *want = NULL;
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.size = 0;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "size 0",
           "sg_compile_options size 0", "at least", (char *)NULL);
    CHECK(&S, k == NULL, "a refused call writes no kernel");
    o.size = SG_COMPILE_OPTIONS_MIN_SIZE - 1;
    char text[64];
    snprintf(text, sizeof text, "size %zu", (size_t)SG_COMPILE_OPTIONS_MIN_SIZE - 1);
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "a size below the minimum", text,
           (char *)NULL);
    o.size = (size_t)1 << 40;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "an absurd size",
           "sg_compile_options size 1099511627776", "at most 4096", (char *)NULL);
    o.size = SG_COMPILE_OPTIONS_MAX_SIZE + 1;
    expect(ctx, sg_aot_write_with(ctx, NULL, 0, &o, "x.o", NULL), SG_ERR_USAGE,
           "a size past the maximum (aot)", "failed to compile kernels: sg_compile_options size 4097",
           (char *)NULL);
    char *ir = NULL;
    o.size = 0;
    expect(ctx, sg_kernel_ir_with(ctx, plan, &o, &ir), SG_ERR_USAGE, "size 0 (ir)",
           "failed to print kernel IR: sg_compile_options size 0", (char *)NULL);
    sg_cuda_kernel *ck = NULL;
    expect(ctx, sg_cuda_kernel_compile_with(ctx, plan, &o, &ck), SG_ERR_USAGE, "size 0 (cuda)",
           "failed to compile CUDA kernel: sg_compile_options size 0", (char *)NULL);

    /* a newer header's struct: zero past the known fields is accepted */
    struct {
        sg_compile_options o;
        unsigned char newer[40];
    } big;
    memset(&big, 0, sizeof big);
    sg_compile_options_init_size(&big.o, sizeof big);
    CHECK(&S, big.o.size == sizeof big && big.o.opt_level == SG_DEFAULT_OPT_LEVEL,
          "init_size of a larger struct");
    expect(ctx, sg_kernel_compile_with(ctx, plan, &big.o, &k), SG_OK, "a newer struct, zero past the fields",
           (char *)NULL);
    expect(ctx, sg_kernel_compile_with(ctx, plan, NULL, &want), SG_OK, "NULL options", (char *)NULL);
    CHECK(&S, k != NULL && k == want, "the newer struct at its defaults gives the defaults' kernel");
    sg_kernel_destroy(k);
    k = NULL;
    big.newer[5] = 1;
    size_t at = (size_t)(big.newer + 5 - (unsigned char *)&big);
    snprintf(text, sizeof text, "sets byte %zu", at);
    expect(ctx, sg_kernel_compile_with(ctx, plan, &big.o, &k), SG_ERR_USAGE,
           "a newer struct with a field set", text, "sg_compile_options size", (char *)NULL);

    /* an older, shorter struct: the fields past size take their defaults */
    sg_compile_options short_o;
    sg_compile_options_init(&short_o);
    short_o.size = SG_COMPILE_OPTIONS_MIN_SIZE;
    short_o.target = "no-such-triple"; /* past size: never read */
    short_o.device = 7;
    short_o.no_cf_protection = true;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &short_o, &k), SG_OK, "the shortest struct (jit)",
           (char *)NULL);
    CHECK(&S, k == want, "the shortest struct at its defaults gives the defaults' kernel");
    sg_kernel_destroy(k);
    k = NULL;
    short_o.opt_level = 0;
    short_o.stores = SG_STORES_CACHED;
    sg_kernel *cached0 = NULL;
    sg_compile_options full;
    sg_compile_options_init(&full);
    full.opt_level = 0;
    full.stores = SG_STORES_CACHED;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &short_o, &k), SG_OK, "the shortest struct, fields set",
           (char *)NULL);
    expect(ctx, sg_kernel_compile_with(ctx, plan, &full, &cached0), SG_OK, "the full struct, same fields",
           (char *)NULL);
    CHECK(&S, k != NULL && k == cached0 && agrees(ctx, plan, k),
          "the shortest struct reads opt_level and stores");
    sg_kernel_destroy(k);
    sg_kernel_destroy(cached0);
    k = NULL;
    char path[128], name[SG_KERNEL_NAME_MAX], name_default[SG_KERNEL_NAME_MAX];
    sg_aot_kernel ak = {.plan = plan, .name = "short_k", .spec = "[1:, ::-1]", .layer_id = -1};
    short_o.opt_level = SG_DEFAULT_OPT_LEVEL;
    short_o.stores = SG_STORES_AUTO;
    expect(ctx, sg_aot_write_with(ctx, &ak, 1, &short_o, tmp_path(path, sizeof path, "short.o"), NULL), SG_OK,
           "the shortest struct (aot): the host, not the target past size", (char *)NULL);
    expect(ctx, sg_aot_kernel_name_with(ctx, &ak, &short_o, name), SG_OK, "the shortest struct names",
           (char *)NULL);
    expect(ctx, sg_aot_kernel_name_with(ctx, &ak, NULL, name_default), SG_OK, "NULL options name",
           (char *)NULL);
    CHECK(&S, strcmp(name, name_default) == 0, "the shortest struct names as the defaults: %s, %s", name,
          name_default);
    /* a size ending inside a field: target read, cpu (cut) not */
    short_o.size = offsetof(sg_compile_options, cpu) + 1;
    short_o.target = "no-such-triple";
    short_o.cpu = "no-such-cpu";
    expect(ctx, sg_aot_kernel_name_with(ctx, &ak, &short_o, name), SG_ERR_USAGE, "a size covering target",
           "no-such-triple", (char *)NULL);
    short_o.target = NULL;
    expect(ctx, sg_aot_kernel_name_with(ctx, &ak, &short_o, name), SG_OK, "a cpu cut by the size is not read",
           (char *)NULL);
    CHECK(&S, strcmp(name, name_default) == 0, "a cut cpu takes its default: %s", name);
    sg_kernel_destroy(want);
}

/* A field set for a call that does not read it. */
static void unread_fields(sg_context *ctx, const sg_plan *plan)
{
    sg_kernel *k = NULL;
    sg_cuda_kernel *ck = NULL;
    char *ir = NULL;
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.target = "aarch64-linux-gnu";
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "target for the JIT",
           "failed to compile kernel: sg_compile_options.target is set",
           "only sg_aot_write_with and sg_aot_kernel_name_with read it", (char *)NULL);
    expect(ctx, sg_kernel_ir_with(ctx, plan, &o, &ir), SG_ERR_USAGE, "target for the IR", "target",
           (char *)NULL);
    sg_compile_options_init(&o);
    o.device = 1;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "device for the JIT",
           "sg_compile_options.device is set, and only sg_cuda_kernel_compile_with reads it", (char *)NULL);
    sg_compile_options_init(&o);
    o.stores = SG_STORES_STREAMING;
    expect(ctx, sg_cuda_kernel_compile_with(ctx, plan, &o, &ck), SG_ERR_USAGE, "stores for CUDA",
           "failed to compile CUDA kernel: sg_compile_options.stores is set",
           "sg_kernel_compile_with, sg_kernel_ir_with and sg_aot_write_with and sg_aot_kernel_name_with",
           (char *)NULL);
    sg_compile_options_init(&o);
    o.no_cf_protection = true;
    expect(ctx, sg_cuda_kernel_compile_with(ctx, plan, &o, &ck), SG_ERR_USAGE, "no_cf_protection for CUDA",
           "no_cf_protection", (char *)NULL);
    sg_compile_options_init(&o);
    o.prefix = "p";
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "prefix for the JIT", "prefix",
           (char *)NULL);
    sg_compile_options_init(&o);
    o.device = 2;
    sg_aot_kernel ak = {.plan = plan, .name = "k", .layer_id = -1};
    char path[128];
    expect(ctx, sg_aot_write_with(ctx, &ak, 1, &o, tmp_path(path, sizeof path, "unread.o"), NULL),
           SG_ERR_USAGE, "device for aot", "failed to compile kernels: sg_compile_options.device is set",
           (char *)NULL);
    CHECK(&S, access(path, F_OK) != 0, "a refused write creates no file");
    CHECK(&S, k == NULL && ck == NULL && ir == NULL, "refused calls write no result");
}

/* ---- every field, and the former entry points ------------------------------------- */

static void jit_fields(sg_context *ctx, sg_context *old_ctx, const sg_plan *plan)
{
    for (int level = 0; level <= 3; level++)
        for (int stores = SG_STORES_AUTO; stores <= SG_STORES_STREAMING; stores++) {
            sg_compile_options o;
            sg_compile_options_init(&o);
            o.opt_level = level;
            o.stores = (sg_stores)stores;
            sg_kernel *k = NULL, *old = NULL, *again = NULL;
            expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_OK, "compile_with", (char *)NULL);
            expect(old_ctx, sg_kernel_compile_stores(old_ctx, plan, level, (sg_stores)stores, &old), SG_OK,
                   "compile_stores", (char *)NULL);
            if (k && old)
                CHECK(&S,
                      agrees(ctx, plan, k) && agrees(old_ctx, plan, old) &&
                          sg_kernel_outer_extent(k) == sg_kernel_outer_extent(old),
                      "-O%d stores %s: the new and the former entry point give the same kernel", level,
                      sg_stores_name((sg_stores)stores));
            expect(ctx, sg_kernel_compile_stores(ctx, plan, level, (sg_stores)stores, &again), SG_OK,
                   "compile_stores, same context", (char *)NULL);
            CHECK(&S, again == k, "-O%d stores %s: the former entry point finds the new one's kernel", level,
                  sg_stores_name((sg_stores)stores));
            sg_kernel_destroy(again);
            if (stores == SG_STORES_AUTO) {
                again = NULL;
                expect(ctx, sg_kernel_compile(ctx, plan, level, &again), SG_OK, "compile", (char *)NULL);
                CHECK(&S, again == k, "-O%d: sg_kernel_compile finds sg_kernel_compile_with's kernel", level);
                sg_kernel_destroy(again);
            }
            sg_kernel_destroy(k);
            sg_kernel_release(old);
        }
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = 4;
    sg_kernel *k = NULL;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "-O4",
           "failed to compile kernel: optimization level 4 (0..3)", (char *)NULL);
    o.opt_level = 2;
    o.stores = (sg_stores)9;
    expect(ctx, sg_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "stores 9", "stores 9",
           (char *)NULL);
}

static void ir_fields(sg_context *ctx, const sg_plan *plan)
{
    for (int level = 0; level <= 3; level++) {
        char *text = NULL, *old = NULL;
        sg_compile_options o;
        sg_compile_options_init(&o);
        o.opt_level = level;
        expect(ctx, sg_kernel_ir_with(ctx, plan, &o, &text), SG_OK, "ir_with", (char *)NULL);
        expect(ctx, sg_kernel_ir(ctx, plan, level, &old), SG_OK, "ir", (char *)NULL);
        CHECK(&S, text && old && strcmp(text, old) == 0,
              "-O%d: sg_kernel_ir and sg_kernel_ir_with print the same", level);
        sg_free(text);
        sg_free(old);
    }
    /* stores: a large copy of long runs streams its stores when asked */
    int64_t shape[] = {64, 8192};
    sg_plan *big = numpy_plan(ctx, "[:, 1:]", 2, shape, SG_F32);
    char *cached = NULL, *streaming = NULL;
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.stores = SG_STORES_CACHED;
    expect(ctx, sg_kernel_ir_with(ctx, big, &o, &cached), SG_OK, "ir, cached stores", (char *)NULL);
    o.stores = SG_STORES_STREAMING;
    expect(ctx, sg_kernel_ir_with(ctx, big, &o, &streaming), SG_OK, "ir, streaming stores", (char *)NULL);
    CHECK(&S,
          cached && streaming && strstr(cached, "!nontemporal") == NULL && strstr(streaming, "!nontemporal"),
          "the IR's stores follow options.stores");
    sg_free(cached);
    sg_free(streaming);
    sg_plan_destroy(big);
}

static int progress_calls;
static void *progress_seen;
static void on_progress(void *arg, size_t done, size_t total)
{
    progress_seen = arg;
    progress_calls += done <= total;
}

static void aot_fields(sg_context *ctx, const sg_plan *plan, const sg_plan *plan2)
{
    char a[128], b[128], ha[128], hb[128], name[SG_KERNEL_NAME_MAX], old_name[SG_KERNEL_NAME_MAX];
    sg_aot_kernel kernels[2] = {{.plan = plan, .name = "first", .spec = "[1:, ::-1]", .layer_id = -1},
                                {.plan = plan2, .name = "second", .spec = "[::2]", .layer_id = -1}};
    int marker = 0;
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = 1;
    o.stores = SG_STORES_CACHED;
    o.cpu = "generic";
    o.no_cf_protection = true;
    o.prefix = "tbl";
    o.command = "slicegen emit test_options";
    o.progress = on_progress;
    o.progress_arg = &marker;
    sg_aot_options old = {.cpu = "generic",
                          .opt_level = 1,
                          .prefix = "tbl",
                          .command = "slicegen emit test_options",
                          .progress = on_progress,
                          .progress_arg = &marker,
                          .no_cf_protection = 1,
                          .stores = SG_STORES_CACHED};
    progress_calls = 0;
    expect(ctx,
           sg_aot_write_with(ctx, kernels, 2, &o, tmp_path(a, sizeof a, "new.o"),
                             tmp_path(ha, sizeof ha, "new.h")),
           SG_OK, "aot_write_with, every field", (char *)NULL);
    CHECK(&S, progress_calls == 2 && progress_seen == &marker, "progress called per kernel with its arg (%d)",
          progress_calls);
    expect(
        ctx,
        sg_aot_write(ctx, kernels, 2, &old, old_path(b, sizeof b, "new.o"), old_path(hb, sizeof hb, "new.h")),
        SG_OK, "aot_write, the same fields", (char *)NULL);
    CHECK(&S, same_file_bytes(a, b) && same_file_bytes(ha, hb),
          "sg_aot_write and sg_aot_write_with write the same object and header");
    CHECK(&S,
          file_has(ha, "slicegen emit test_options") && file_has(ha, "tbl_kernels") &&
              file_has(ha, "generic"),
          "the header quotes the command, has the table and names the cpu");
    expect(ctx, sg_aot_kernel_name_with(ctx, &kernels[0], &o, name), SG_OK, "name_with", (char *)NULL);
    expect(ctx, sg_aot_kernel_name(ctx, &kernels[0], &old, old_name), SG_OK, "name", (char *)NULL);
    CHECK(&S, strcmp(name, old_name) == 0, "sg_aot_kernel_name and _with agree: %s, %s", name, old_name);

    /* a cross target, and the model field */
    o.target = old.target = "aarch64-linux-gnu";
    o.progress = old.progress = NULL;
    expect(ctx, sg_aot_write_with(ctx, kernels, 2, &o, tmp_path(a, sizeof a, "new.s"), NULL), SG_OK,
           "aot_write_with for aarch64", (char *)NULL);
    expect(ctx, sg_aot_write(ctx, kernels, 2, &old, old_path(b, sizeof b, "new.s"), NULL), SG_OK,
           "aot_write for aarch64", (char *)NULL);
    CHECK(&S, same_file_bytes(a, b) && file_has(a, "aarch64"), "the same assembly for aarch64");
    expect(ctx, sg_aot_kernel_name_with(ctx, &kernels[0], &o, name), SG_OK, "name for aarch64", (char *)NULL);
    CHECK(&S, strcmp(name, old_name) != 0, "the target makes another name");

    /* a layer's kernel (its name and id in NAME_info), for the host */
    sg_spec *spec = NULL;
    sg_plan *lplan = NULL;
    int64_t shape[] = {4, 6};
    if (sg_spec_numpy(ctx, "[1:, :3]", &spec) == SG_OK &&
        sg_plan_create(ctx, spec, 2, shape, SG_F32, &lplan) == SG_OK) {
        o.target = old.target = NULL;
        sg_aot_kernel one = {.plan = lplan, .name = "layer", .spec = "[1:, :3]", .layer = "L", .layer_id = 3};
        expect(ctx,
               sg_aot_write_with(ctx, &one, 1, &o, tmp_path(a, sizeof a, "layer.o"),
                                 tmp_path(ha, sizeof ha, "layer.h")),
               SG_OK, "a model layer's kernel", (char *)NULL);
        expect(ctx,
               sg_aot_write(ctx, &one, 1, &old, old_path(b, sizeof b, "layer.o"),
                            old_path(hb, sizeof hb, "layer.h")),
               SG_OK, "the same, former entry point", (char *)NULL);
        CHECK(&S, same_file_bytes(a, b) && same_file_bytes(ha, hb),
              "a layer's kernel written the same both ways");
    }
    sg_plan_destroy(lplan);
    sg_spec_destroy(spec);
    o.opt_level = 7;
    expect(ctx, sg_aot_write_with(ctx, kernels, 2, &o, tmp_path(a, sizeof a, "bad.o"), NULL), SG_ERR_USAGE,
           "aot at -O7", "optimization level 7", (char *)NULL);
    expect(ctx, sg_aot_write_with(ctx, kernels, 1, NULL, tmp_path(a, sizeof a, "defaults.o"), NULL), SG_OK,
           "aot with NULL options", (char *)NULL);
}

/* A model read from a file, for the model field: examples/model/model.xml
 * of the source tree when given. */
static void aot_model(sg_context *ctx, const char *source_dir)
{
    char xml[512], a[128], b[128], ha[128], hb[128];
    if (source_dir == NULL)
        return;
    snprintf(xml, sizeof xml, "%s/examples/model/model.xml", source_dir);
    sg_model *model = NULL;
    if (!CHECK(&S, sg_model_read(ctx, xml, NULL, &model) == SG_OK, "read %s: %s", xml,
               sg_context_last_error(ctx)))
        return;
    size_t n = sg_model_layer_count(model), used = 0;
    sg_aot_kernel *kernels = calloc(n + 1, sizeof *kernels);
    sg_plan **plans = calloc(n + 1, sizeof *plans);
    char(*names)[32] = calloc(n + 1, sizeof *names);
    for (size_t i = 0; kernels && plans && names && i < n; i++) {
        const sg_model_layer *l = sg_model_layer_at(model, i);
        if (l->spec == NULL ||
            sg_plan_create(ctx, l->spec, l->rank, l->shape, l->dtype, &plans[used]) != SG_OK)
            continue;
        snprintf(names[used], sizeof names[used], "m_%zu", i);
        kernels[used] = (sg_aot_kernel){.plan = plans[used],
                                        .name = names[used],
                                        .spec = l->spec_text,
                                        .layer = l->name,
                                        .layer_id = l->id,
                                        .model_layer = l};
        used++;
    }
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.prefix = "m";
    o.model = model;
    sg_aot_options old = {.opt_level = SG_DEFAULT_OPT_LEVEL, .prefix = "m", .model = model};
    expect(ctx,
           sg_aot_write_with(ctx, kernels, used, &o, tmp_path(a, sizeof a, "model.o"),
                             tmp_path(ha, sizeof ha, "model.h")),
           SG_OK, "a model's kernels with the model field", (char *)NULL);
    expect(ctx,
           sg_aot_write(ctx, kernels, used, &old, old_path(b, sizeof b, "model.o"),
                        old_path(hb, sizeof hb, "model.h")),
           SG_OK, "the same, former entry point", (char *)NULL);
    CHECK(&S, used > 0 && same_file_bytes(a, b) && same_file_bytes(ha, hb),
          "a model's %zu kernels written the same both ways", used);
    for (size_t i = 0; plans && i < used; i++)
        sg_plan_destroy(plans[i]);
    free(kernels);
    free(plans);
    free(names);
    sg_model_destroy(model);
}

/* Whether the CUDA driver loaded is the tests' fake (support/fake_cuda.c),
 * which cannot run PTX. */
static bool fake_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    bool fake = lib != NULL && dlsym(lib, "fake_cuda_counts_get") != NULL;
    if (lib != NULL)
        dlclose(lib);
    return fake;
}

/* CUDA: whatever the machine has (no driver, the fake, a GPU), the new and
 * the former entry point answer alike; device and opt_level are read. */
static void cuda_fields(sg_context *ctx, const sg_plan *plan)
{
    for (int device = 0; device < 2; device++) {
        sg_cuda_kernel *k = NULL, *old = NULL;
        sg_compile_options o;
        sg_compile_options_init(&o);
        o.device = device;
        sg_status st = sg_cuda_kernel_compile_with(ctx, plan, &o, &k);
        char message[512];
        snprintf(message, sizeof message, "%s", sg_context_last_error(ctx));
        sg_status st_old = sg_cuda_kernel_compile(ctx, plan, device, &old);
        CHECK(&S, st == st_old && (st == SG_OK || strcmp(message, sg_context_last_error(ctx)) == 0),
              "device %d: sg_cuda_kernel_compile and _with answer alike (%s: %s)", device, sg_status_name(st),
              message);
        CHECK(&S, st != SG_OK || k == old, "device %d: the same kernel from the cache", device);
        if (st != SG_OK && device == 0)
            CHECK(&S, strstr(message, "CUDA") != NULL, "no usable driver is named: %s", message);
        if (st == SG_OK && !fake_driver()) {
            uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
            unsigned char *in = calloc(in_bytes + 1, 1), *want = calloc(out_bytes + 1, 1),
                          *got = calloc(out_bytes + 1, 1);
            for (uint64_t i = 0; in && i < in_bytes; i++)
                in[i] = (unsigned char)(i * 13);
            CHECK(&S,
                  in && want && got && sg_run_reference(ctx, plan, in, want) == SG_OK &&
                      sg_cuda_run(ctx, k, in, got) == SG_OK && memcmp(want, got, out_bytes) == 0,
                  "device %d: the CUDA kernel agrees with the reference: %s", device,
                  sg_context_last_error(ctx));
            free(in);
            free(want);
            free(got);
        }
        if (st == SG_OK) {
            o.opt_level = 3;
            sg_cuda_kernel *k3 = NULL;
            expect(ctx, sg_cuda_kernel_compile_with(ctx, plan, &o, &k3), SG_OK, "CUDA at -O3", (char *)NULL);
            CHECK(&S, k3 != k, "kernels of another opt_level are cached apart");
            sg_cuda_kernel_destroy(k3);
        }
        sg_cuda_kernel_destroy(k);
        sg_cuda_kernel_release(old);
    }
    sg_compile_options o;
    sg_compile_options_init(&o);
    o.opt_level = -1;
    sg_cuda_kernel *k = NULL;
    expect(ctx, sg_cuda_kernel_compile_with(ctx, plan, &o, &k), SG_ERR_USAGE, "CUDA at -O-1",
           "failed to compile CUDA kernel: optimization level -1 (0..3)", (char *)NULL);
}

/* ---- lifetimes -------------------------------------------------------------------- */

static void lifetimes(sg_context *ctx)
{
    sg_kernel_destroy(NULL);
    sg_kernel_release(NULL);
    sg_cuda_kernel_destroy(NULL);
    sg_tensor_destroy(NULL);
    sg_free(NULL);
    char *prefix = NULL, *old = sg_aot_model_prefix("models/yolo-v5s.onnx");
    expect(ctx, sg_aot_default_prefix(ctx, "models/yolo-v5s.onnx", &prefix), SG_OK, "default prefix",
           (char *)NULL);
    CHECK(&S, prefix && old && strcmp(prefix, "yolo_v5s") == 0 && strcmp(old, prefix) == 0,
          "sg_aot_default_prefix and sg_aot_model_prefix: %s, %s", prefix ? prefix : "(null)",
          old ? old : "(null)");
    sg_free(prefix);
    sg_free(old);
    prefix = NULL;
    expect(ctx, sg_aot_default_prefix(ctx, "3d.xml", &prefix), SG_OK, "default prefix of 3d.xml",
           (char *)NULL);
    CHECK(&S, prefix && strcmp(prefix, "sg_3d") == 0, "3d.xml: %s", prefix ? prefix : "(null)");
    sg_free(prefix);
    sg_tensor t = {.dtype = SG_U8, .rank = 1, .shape = {3}, .bytes = 3, .data = malloc(3)};
    sg_tensor_destroy(&t);
    CHECK(&S, t.data == NULL && t.bytes == 0, "sg_tensor_destroy frees a filled-in tensor's data");
    sg_dtype d = SG_BOOL;
    sg_stores st = SG_STORES_AUTO;
    sg_trt_mode m = SG_TRT_STRICT;
    CHECK(&S, sg_dtype_parse("f32", &d) == true && d == SG_F32 && sg_dtype_parse("f31", &d) == false,
          "sg_dtype_parse is a bool");
    CHECK(&S,
          sg_stores_parse("streaming", &st) == true && st == SG_STORES_STREAMING &&
              !sg_stores_parse("x", &st),
          "sg_stores_parse is a bool");
    CHECK(&S, sg_trt_mode_parse("wrap", &m) == true && m == SG_TRT_WRAP && !sg_trt_mode_parse("x", &m),
          "sg_trt_mode_parse is a bool");
    CHECK(&S, sg_is_identifier("k") == true && sg_is_identifier("int") == false,
          "sg_is_identifier is a bool");
}

int main(int argc, char **argv)
{
    sg_context *ctx = NULL, *old_ctx = NULL;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/slicegen-options-XXXXXX");
    char old_dir[96];
    if (mkdtemp(tmpdir) == NULL || mkdir(old_path(old_dir, sizeof old_dir, ""), 0700) != 0 ||
        sg_context_create(&ctx) != SG_OK || sg_context_create(&old_ctx) != SG_OK) {
        fprintf(stderr, "test_options: cannot set up\n");
        return 1;
    }
    int64_t shape[] = {37, 129}, shape2[] = {300};
    sg_plan *plan = numpy_plan(ctx, "[1:, ::-1]", 2, shape, SG_F32);
    sg_plan *plan2 = numpy_plan(ctx, "[::2]", 1, shape2, SG_U16);
    init_and_layout();
    if (plan && plan2) {
        sizes(ctx, plan);
        unread_fields(ctx, plan);
        jit_fields(ctx, old_ctx, plan);
        ir_fields(ctx, plan);
        aot_fields(ctx, plan, plan2);
        aot_model(ctx, argc > 1 ? argv[1] : NULL);
        cuda_fields(ctx, plan);
    }
    lifetimes(ctx);
    sg_plan_destroy(plan);
    sg_plan_destroy(plan2);
    sg_context_destroy(ctx);
    sg_context_destroy(old_ctx);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", tmpdir);
    if (system(command) != 0)
        fprintf(stderr, "test_options: could not remove %s\n", tmpdir);
    return finish("options", &S.counts);
}

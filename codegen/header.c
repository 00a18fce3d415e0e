/* The C header of ahead-of-time output: self-contained C11 and C++ (only
 * <stddef.h> and <stdint.h>), one block per kernel, the description struct
 * slicegen_kernel_info (aot.c emits its instances field by field) and, for a
 * model, the table. Text from users (specs, layer names, the command line)
 * appears in comments only, escaped so it cannot end or extend them. */
#define SG_CODEGEN_INTERNAL
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../frontend/graph.h"
#include "codegen.h"

/* The first n bytes of s inside a comment: control characters as \xNN, and
 * nothing that closes the comment or forms a trigraph. */
static void comment_text_n(FILE *f, const char *s, size_t n)
{
    for (const unsigned char *p = (const unsigned char *)s; p < (const unsigned char *)s + n && *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else if ((p[0] == '*' && p[1] == '/') || (p[0] == '?' && p[1] == '?'))
            fprintf(f, "%c ", *p);
        else
            fputc(*p, f);
    }
}

#define GUARD_HASH_HOLE "################"

/* Writes the FNV-1a hash of the declarations (the text from `guard`, the
 * first guard line, on), as 16 hex digits, over every GUARD_HASH_HOLE in
 * them: headers that declare the same get the same guard, headers that
 * declare different kernels under one name different ones. */
static void fill_guard_hash(char *guard)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (const char *p = guard; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3u;
    char digits[17];
    snprintf(digits, sizeof digits, "%016" PRIx64, h);
    for (char *hole = guard; (hole = strstr(hole, GUARD_HASH_HOLE)) != NULL; hole += 16)
        memcpy(hole, digits, 16);
}

static void comment_text(FILE *f, const char *s)
{
    comment_text_n(f, s, strlen(s));
}

/* s as a C string literal (NULL as NULL): printable ASCII as it is but for
 * '"', '\\' and '?' (no trigraphs), every other byte in octal. */
static void string_literal(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("NULL", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '?')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\%03o", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void dims(FILE *f, const int64_t *shape, size_t rank)
{
    fputc('[', f);
    for (size_t i = 0; i < rank; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", shape[i]);
    fputc(']', f);
}

_Static_assert(SG_KERNEL_INFO_VERSION == 5, "struct_text describes version 5 of slicegen_kernel_info");
static const char struct_text[] =
    "#ifndef SLICEGEN_KERNEL_INFO_DEFINED\n"
    "#define SLICEGEN_KERNEL_INFO_DEFINED\n"
    "/* What a generated kernel is, as compiled into the object. */\n"
    "typedef struct slicegen_kernel_info {\n"
    "    uint32_t version;          /* 5 */\n"
    "    const char *name;          /* the kernel's symbol */\n"
    "    const char *layer;         /* the model's layer name, or NULL */\n"
    "    int64_t layer_id;          /* the model's layer id, or -1 */\n"
    "    void (*fn)(const void *in, void *out, int64_t begin, int64_t end); /* NULL: see run */\n"
    "    const char *dtype;         /* element type: \"f32\", \"bf16\", ... */\n"
    "    int32_t elem_size;         /* bytes per element */\n"
    "    int32_t in_rank;\n"
    "    const int64_t *in_shape;   /* in_rank sizes (NULL for rank 0); -1: known at run time */\n"
    "    int32_t out_rank;\n"
    "    const int64_t *out_shape;  /* out_rank sizes (NULL for rank 0); -1: known at run time */\n"
    "    int64_t outer_extent;      /* fn(in, out, 0, outer_extent) runs the whole slice (-1: see run) */\n"
    "    int64_t input_bytes;\n"
    "    int64_t output_bytes;\n"
    "    const char *spec;          /* the slice in slicegen's command-line form */\n"
    "    const char *plan;          /* the plan as `slicegen plan` prints it */\n"
    "    const char *target;        /* the LLVM target triple */\n"
    "    const char *cpu;           /* the CPU the code was compiled for */\n"
    "    const char *features;      /* its features as given to LLVM (\"\": the CPU's own) */\n"
    "    int64_t step_bytes;        /* output bytes a step writes (the last one may write fewer; -1:\n"
    "                                  known per call, each step the same part of the output; 0: a\n"
    "                                  program's, whose steps write disjoint parts of the output) */\n"
    "    /* A kernel with runtime values or dimensions (NULL, 0, NULL, NULL for others): */\n"
    "    int (*prepare)(slicegen_args *args, const int64_t *in_shape, const int64_t *values);\n"
    "    int32_t value_count;\n"
    "    const char *const *value_names; /* in the order of `values` */\n"
    "    void (*run)(const void *in, void *out, const slicegen_args *args, int64_t begin, int64_t end);\n"
    "    /* Version 3: a kernel of several model layers (aot --fuse; NULL, 0 for others): */\n"
    "    const char *const *fused_layers; /* the names of the layers it replaces */\n"
    "    int32_t fused_count;\n"
    "    /* Version 4: a model layer whose numbers follow from the model's symbols\n"
    "       (NAME_numbers; NULL for others): */\n"
    "    void (*numbers)(const int64_t *symbols, int64_t *in_shape, int64_t *values);\n"
    "    /* Version 5: values[fill_value] is the fill value, the bits of one element\n"
    "       (-1 for others): */\n"
    "    int32_t fill_value;\n"
    "} slicegen_kernel_info;\n"
    "#endif\n";

static const char args_text[] =
    /* the guard names the struct's size: headers of another one define
     * slicegen_args again, which a compiler refuses */
    "#ifndef SLICEGEN_ARGS_392_DEFINED\n"
    "#define SLICEGEN_ARGS_392_DEFINED\n"
    "/* One call of a kernel with runtime values: NAME_prepare fills it, NAME reads it. */\n"
    "typedef struct slicegen_args {\n"
    "    int32_t out_rank;\n"
    "    int32_t reserved;\n"
    "    int64_t out_shape[64];\n"
    "    int64_t outer_extent;      /* NAME(in, out, args, 0, outer_extent) runs the whole call */\n"
    "    int64_t input_bytes;\n"
    "    int64_t output_bytes;\n"
    "    int64_t internal[392];     /* the kernel's */\n"
    "} slicegen_args;\n"
    "/* What NAME_prepare returns when it refuses a call (args then untouched). */\n"
    "#define SLICEGEN_PREPARE_SHAPE 1 /* in_shape differs from a fixed dimension, or has a negative one */\n"
    "#define SLICEGEN_PREPARE_INDEX 2 /* an index or coordinate outside the input */\n"
    "#define SLICEGEN_PREPARE_STEP 3  /* a zero stride or step, a negative size */\n"
    "#define SLICEGEN_PREPARE_EMPTY 4 /* a border mode reading an empty dimension */\n"
    "#define SLICEGEN_PREPARE_SIZE 5  /* a tensor or coordinate too large for 64 bits or the target */\n"
    "#endif\n";

static const char how_to_prepare[] =
    " *\n"
    " * A kernel NAME with runtime values or dimensions (`?`, names) takes them\n"
    " * per call, after its prologue checks them:\n"
    " *\n"
    " *     slicegen_args args;                       (caller-allocated)\n"
    " *     int64_t in_shape[] = {...}, values[NAME_VALUE_COUNT] = {...};\n"
    " *     if (NAME_prepare(&args, in_shape, values) == 0)\n"
    " *         NAME(in, out, &args, 0, args.outer_extent);\n"
    " *\n"
    " * in_shape holds every input dimension (the fixed ones must match), values\n"
    " * the values in the order NAME_info.value_names lists them; args then\n"
    " * holds the output's shape and sizes. A nonzero SLICEGEN_PREPARE_* code\n"
    " * means the slice is invalid for these numbers. Threads split\n"
    " * [0, args.outer_extent) as above.\n";

static const char how_to_use_symbols[] =
    " *\n"
    " * The model's symbols, P_symbols[P_SYMBOL_COUNT], are the sizes its\n"
    " * dynamic dimensions take; each names the graph input and dimension that\n"
    " * gives it (input NULL: none does, the caller knows it otherwise). A\n"
    " * kernel whose numbers follow from them has NAME_numbers, which writes its\n"
    " * input shape and every value that shape arithmetic gives; a value it\n"
    " * leaves is index data the caller gives. So, for every kernel of the table:\n"
    " *\n"
    " *     int64_t symbols[P_SYMBOL_COUNT];          (from the graph inputs' shapes)\n"
    " *     const slicegen_kernel_info *k = P_kernels[i];\n"
    " *     int64_t in_shape[64], values[256];\n"
    " *     if (k->numbers) {\n"
    " *         k->numbers(symbols, in_shape, values);\n"
    " *         if (k->prepare(&args, in_shape, values) == 0)\n"
    " *             k->run(in, out, &args, 0, args.outer_extent);\n"
    " *     }\n";

static const char symbol_struct_text[] =
    "#ifndef SLICEGEN_MODEL_SYMBOL_DEFINED\n"
    "#define SLICEGEN_MODEL_SYMBOL_DEFINED\n"
    "/* A size of a model's dynamic dimensions, and where the graph inputs give it. */\n"
    "typedef struct slicegen_model_symbol {\n"
    "    const char *name;\n"
    "    const char *input;         /* the graph input; NULL: no graph input gives it */\n"
    "    int64_t dim;               /* its dimension; -1 with input NULL */\n"
    "} slicegen_model_symbol;\n"
    "#endif\n";

static const char how_to_call[] =
    " * How to call a kernel NAME declared here:\n"
    " *\n"
    " *     NAME(in, out, 0, NAME_OUTER_EXTENT);\n"
    " *\n"
    " * slices the whole tensor: `in` points at the NAME_INPUT_BYTES bytes of the\n"
    " * input in C order, `out` at NAME_OUTPUT_BYTES bytes for the output. The\n"
    " * buffers need no alignment and must not overlap. The sizes are int64_t\n"
    " * constants. A call runs steps [begin, end) of the kernel's outer range\n"
    " * (its outermost loop, or its leading loops together, or pieces of one\n"
    " * block) and writes only their part of the output: step i writes output\n"
    " * bytes [i * NAME_STEP_BYTES, (i + 1) * NAME_STEP_BYTES), the last step\n"
    " * possibly fewer (NAME_STEP_BYTES 0: a program's steps write disjoint\n"
    " * parts of the output). So threads may share the work: with T threads (int t, T),\n"
    " * thread t runs\n"
    " *\n"
    " *     NAME(in, out, NAME_OUTER_EXTENT * t / T, NAME_OUTER_EXTENT * (t + 1) / T);\n"
    " *\n"
    " * NAME_STREAMS is 1 when the kernel writes its output with streaming\n"
    " * (non-temporal) stores, fenced before it returns: the output goes to\n"
    " * memory rather than staying in the cache (--stores; kernels of runtime\n"
    " * values stream when a call's output has more than NAME_STREAMS_ABOVE\n"
    " * bytes, -1: never, and with --stores auto its contiguous runs at least\n"
    " * NAME_STREAMS_MIN_RUN bytes). NAME_info describes the kernel (shapes,\n"
    " * sizes, spec, plan, target, CPU), so that a runtime can check what it\n"
    " * linked against.\n";

static const char how_to_launch[] =
    " * Each kernel NAME is the PTX entry NAME_ENTRY of the .ptx file, a 1-D\n"
    " * grid of NAME_GRID_X blocks of NAME_BLOCK_X threads: thread t writes\n"
    " * output bytes [16 t, 16 t + 16) of the NAME_OUTPUT_BYTES bytes of the\n"
    " * output, reading the NAME_INPUT_BYTES bytes of the input (C order).\n"
    " * Both are device pointers aligned to 16 bytes (cuMemAlloc gives 256)\n"
    " * that do not overlap. With the CUDA driver API:\n"
    " *\n"
    " *     CUmodule module;\n"
    " *     CUfunction f;\n"
    " *     cuModuleLoadData(&module, ptx_text);      (the .ptx file's text)\n"
    " *     cuModuleGetFunction(&f, module, NAME_ENTRY);\n"
    " *     CUdeviceptr in = ..., out = ...;\n"
    " *     void *args[] = {&in, &out};\n"
    " *     if (NAME_GRID_X > 0)                      (0: an empty output)\n"
    " *         cuLaunchKernel(f, NAME_GRID_X, 1, 1, NAME_BLOCK_X, 1, 1, 0, stream, args, NULL);\n";

static const char how_to_prepare_gpu[] =
    " *\n"
    " * A kernel NAME with runtime values or dimensions (`?`, names) takes them\n"
    " * per call: NAME_prepare, defined here, checks them on the host and fills a\n"
    " * slicegen_args, which the launch passes by value as the third parameter;\n"
    " * the grid is the call's:\n"
    " *\n"
    " *     slicegen_args call;\n"
    " *     int64_t in_shape[] = {...}, values[NAME_VALUE_COUNT] = {...};\n"
    " *     if (NAME_prepare(&call, in_shape, values) == 0 && slicegen_grid_x(&call) > 0) {\n"
    " *         void *args[] = {&in, &out, &call};\n"
    " *         cuLaunchKernel(f, slicegen_grid_x(&call), 1, 1, NAME_BLOCK_X, 1, 1, 0, stream, args, NULL);\n"
    " *     }\n"
    " *\n"
    " * in_shape holds every input dimension (the fixed ones must match), values\n"
    " * the values in the order the kernel's comment lists them; call then holds\n"
    " * the output's shape and sizes (call.input_bytes and call.output_bytes are\n"
    " * the buffers'). A nonzero SLICEGEN_PREPARE_* code means the slice is\n"
    " * invalid for these numbers.\n";

static const char gpu_struct_text[] =
    "#ifndef SLICEGEN_CUDA_KERNEL_INFO_2_DEFINED\n"
    "#define SLICEGEN_CUDA_KERNEL_INFO_2_DEFINED\n"
    "/* A kernel of the .ptx file and its launch. */\n"
    "typedef struct slicegen_cuda_kernel_info {\n"
    "    const char *entry;    /* the PTX entry's name */\n"
    "    uint32_t grid_x;      /* blocks (0: nothing to launch, or the call's: see prepare) */\n"
    "    uint32_t block_x;     /* threads per block */\n"
    "    uint64_t input_bytes; /* (0 where prepare gives them per call) */\n"
    "    uint64_t output_bytes;\n"
    "    const char *layer;    /* the model's layer name */\n"
    "    int64_t layer_id;     /* the model's layer id */\n"
    "    /* A kernel with runtime values or dimensions (NULL, 0 for others): */\n"
    "    int (*prepare)(slicegen_args *args, const int64_t *in_shape, const int64_t *values);\n"
    "    int32_t value_count;\n"
    "} slicegen_cuda_kernel_info;\n"
    "#endif\n";

/* The features after the CPU in the opening comment: none for the CPU's
 * own, else the list broken at commas into lines of the comment. */
static void target_features(FILE *f, const char *features)
{
    if (features[0] == '\0') {
        fputs(" with its own features", f);
        return;
    }
    fputs(" with features", f);
    size_t column = 80;
    for (const char *p = features; *p;) {
        size_t n = strcspn(p, ",");
        if (column + n + 1 > 78) {
            fputs("\n *     ", f);
            column = 7;
        }
        comment_text_n(f, p, n + (p[n] == ','));
        column += n + 1;
        p += n + (p[n] == ',');
    }
}

/* What the code calls: memcpy and memset, and the helpers of the compiler's
 * runtime library that the code generator used (found in the object). */
static void calls(FILE *f, const sg_aot_code *code)
{
    fputs(" *\n * The code calls memcpy and memset", f);
    if (code->nhelpers == 0) {
        fputs(" and nothing else.\n", f);
        return;
    }
    fputs(", and from the C compiler's runtime\n"
          " * library (libgcc or compiler-rt, which C compilers link by default)",
          f);
    for (size_t i = 0; i < code->nhelpers; i++) {
        fputs(i == 0 ? "\n *     " : ", ", f);
        comment_text(f, code->helpers[i]);
    }
    fputs("\n * and nothing else.\n", f);
}

/* A dimension list, `?` for one known at run time. */
static void dims_or_runtime(FILE *f, const int64_t *shape, size_t rank)
{
    fputc('[', f);
    for (size_t i = 0; i < rank; i++)
        shape[i] < 0 ? fprintf(f, "%s?", i ? ", " : "") : fprintf(f, "%s%" PRId64, i ? ", " : "", shape[i]);
    fputc(']', f);
}

/* What NAME_numbers writes: each input dimension and value as an
 * expression of the symbols. */
static void describe_numbers(FILE *f, const sg_layer_numbers *n, const char *const *symbols,
                             char *const *value_names)
{
    char text[160];
    fputs(" *     from the model's symbols (NAME_numbers): input [", f);
    for (size_t d = 0; d < n->rank; d++) {
        fputs(d ? ", " : "", f);
        comment_text(f, sg_exprs_text(&n->ex, n->dims[d], symbols, NULL, text, sizeof text));
    }
    fputs("]", f);
    for (size_t i = 0; i < n->nvalues; i++) {
        fprintf(f, ",\n *         %s ", value_names[i]);
        if (n->given[i]) {
            fputs("= ", f);
            comment_text(f, sg_exprs_text(&n->ex, n->values[i], symbols, NULL, text, sizeof text));
        } else {
            fputs("(index data: the caller's)", f);
        }
    }
    fputc('\n', f);
}

static void describe(FILE *f, const sg_aot_kernel *k, const sg_layer_numbers *numbers,
                     const char *const *symbols)
{
    const sg_plan *p = k->plan;
    const char *type = sg_dtype_name(p->dtype);
    fputs("/* ", f);
    if (k->layer) {
        fputs("Layer '", f);
        comment_text(f, k->layer);
        fprintf(f, "' (id %" PRId64 "): ", k->layer_id);
    }
    comment_text(f, k->spec ? k->spec : k->name);
    if (p->sym) {
        fprintf(f, "\n *     input  %s ", type);
        dims_or_runtime(f, p->in_shape, p->in_rank);
        fprintf(f, "\n *     output %s ", type);
        dims_or_runtime(f, p->out_shape, p->out_rank);
        fputs("\n *     values", f);
        for (size_t i = 0; i < p->sym->nvalues; i++)
            fprintf(f, "%s%s", i ? ", " : " ", p->sym->spec->values[i]);
        fputs(p->sym->nvalues ? "\n" : " none\n", f);
        if (numbers != NULL)
            describe_numbers(f, numbers, symbols, p->sym->spec->values);
        fputs(" */\n", f);
        return;
    }
    fprintf(f, "\n *     input  %s ", type);
    dims(f, p->in_shape, p->in_rank);
    fprintf(f, ", %" PRIu64 " bytes\n *     output %s ", p->in_bytes, type);
    dims(f, p->out_shape, p->out_rank);
    fprintf(f, ", %" PRIu64 " bytes\n */\n", p->out_bytes);
}

static void kernel_block(FILE *f, const sg_aot_kernel *k, const sg_compile_options *o, const sg_target *t,
                         const char *const *symbols)
{
    const sg_plan *p = k->plan;
    const char *n = k->name;
    const sg_layer_numbers *numbers = sg_aot_numbers(k, o, t);
    describe(f, k, numbers, symbols);
    if (numbers != NULL)
        fprintf(f, "void %s_numbers(const int64_t *symbols, int64_t *in_shape, int64_t *values);\n", n);
    if (p->sym) {
        int64_t above = sg_codegen_stream_above(p, t);
        fprintf(f, "#define %s_VALUE_COUNT %zu\n", n, p->sym->nvalues);
        if (p->sym->spec->fill_value != 0)
            fprintf(f, "#define %s_FILL_VALUE %d /* values[%d] is the fill value: the bits of one %s */\n", n,
                    p->sym->spec->fill_value - 1, p->sym->spec->fill_value - 1, sg_dtype_name(p->dtype));
        fprintf(f, "#define %s_STREAMS_ABOVE ((int64_t)%" PRId64 ")\n", n, above);
        fprintf(f, "#define %s_STREAMS_MIN_RUN ((int64_t)%" PRId64 ")\n", n,
                t->stores == SG_STORES_AUTO && above >= 0 ? sg_codegen_stream_min_run(p, t) : (int64_t)0);
        fprintf(f, "int %s_prepare(slicegen_args *args, const int64_t *in_shape, const int64_t *values);\n",
                n);
        fprintf(
            f, "void %s(const void *in, void *out, const slicegen_args *args, int64_t begin, int64_t end);\n",
            n);
        fprintf(f, "extern const slicegen_kernel_info %s_info;\n\n", n);
        return;
    }
    fprintf(f, "void %s(const void *in, void *out, int64_t begin, int64_t end);\n", n);
    sg_outer outer = sg_nest_outer(p);
    fprintf(f, "#define %s_OUTER_EXTENT ((int64_t)%" PRId64 ")\n", n, outer.extent);
    fprintf(f, "#define %s_STEP_BYTES ((int64_t)%" PRId64 ")\n", n, outer.step_bytes);
    fprintf(f, "#define %s_INPUT_BYTES ((int64_t)%" PRIu64 ")\n", n, p->in_bytes);
    fprintf(f, "#define %s_OUTPUT_BYTES ((int64_t)%" PRIu64 ")\n", n, p->out_bytes);
    fprintf(f, "#define %s_STREAMS %d\n", n, sg_codegen_streams(p, t) ? 1 : 0);
    fprintf(f, "extern const slicegen_kernel_info %s_info;\n\n", n);
}

/* A PTX kernel: its entry and launch as macros (launch geometry fits:
 * the kernel compiled). */
static void gpu_kernel_block(FILE *f, const sg_aot_kernel *k)
{
    const sg_plan *p = k->plan;
    const char *n = k->name;
    sg_error err = {0};
    sg_gpu_launch launch = {0};
    describe(f, k, NULL, NULL);
    if (p->sym) { /* NAME(in, out, args): its prologue for the host */
        fprintf(f, "#define %s_ENTRY \"%s\"\n", n, n);
        fprintf(f, "#define %s_BLOCK_X %du\n", n, SG_GPU_BLOCK);
        fprintf(f, "#define %s_VALUE_COUNT %zu\n", n, p->sym->nvalues);
        sg_prologue_c(f, p, n);
        fputc('\n', f);
        return;
    }
    sg_gpu_launch_of(p, &launch, &err);
    fprintf(f, "#define %s_ENTRY \"%s\"\n", n, n);
    fprintf(f, "#define %s_GRID_X %" PRIu32 "u\n", n, launch.grid_x);
    fprintf(f, "#define %s_BLOCK_X %" PRIu32 "u\n", n, launch.block_x);
    fprintf(f, "#define %s_INPUT_BYTES ((int64_t)%" PRIu64 ")\n", n, p->in_bytes);
    fprintf(f, "#define %s_OUTPUT_BYTES ((int64_t)%" PRIu64 ")\n\n", n, p->out_bytes);
}

char *sg_aot_header(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                    const sg_aot_code *code)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    const char *guard_kind = o->prefix ? "MODEL" : "KERNEL", *guard = o->prefix ? o->prefix : kernels[0].name;
    fprintf(f, "/* Generated by slicegen %s (LLVM %s)", SG_VERSION_STRING, sg_codegen_llvm_version());
    if (o->command) {
        fputs(" with\n *     ", f);
        comment_text(f, o->command);
        fputs("\n * ", f);
    } else {
        fputc(' ', f);
    }
    fprintf(f, "for %s (cpu %s", code->triple, code->cpu);
    target_features(f, code->features);
    fputs("). Do not edit.\n", f);
    fprintf(f, " *\n * %zu kernel%s", count, count == 1 ? "" : "s");
    if (o->prefix && count == 0)
        fprintf(f, ": the model has no slice layer to compile (%s_kernel_count is 0)", o->prefix);
    else if (o->prefix)
        fprintf(f, ", listed in model order in %s_kernels[%s_kernel_count]", o->prefix, o->prefix);
    fputs(count ? ".\n *\n" : ".\n", f);
    bool gpu = sg_target_is_gpu(code->target);
    if (count > 0)
        fputs(gpu ? how_to_launch : how_to_call, f);
    bool symbolic = false, numbers = false;
    for (size_t i = 0; i < count; i++) {
        symbolic = symbolic || kernels[i].plan->sym;
        numbers = numbers || sg_aot_numbers(&kernels[i], o, code->target) != NULL;
    }
    if (symbolic)
        fputs(gpu ? how_to_prepare_gpu : how_to_prepare, f);
    if (numbers && o->prefix)
        fputs(how_to_use_symbols, f);
    if (!gpu && count > 0)
        calls(f, code);
    fputs(" */\n", f);
    /* The guard holds a hash of what the header declares (fill_guard_hash). */
    long guard_at = ftell(f);
    fprintf(f, "#ifndef SLICEGEN_%s_%s_%s_H\n#define SLICEGEN_%s_%s_%s_H\n\n", guard_kind, guard,
            GUARD_HASH_HOLE, guard_kind, guard, GUARD_HASH_HOLE);
    fputs("#include <stddef.h>\n#include <stdint.h>\n\n", f);
    fputs("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", f);
    fputs(args_text, f);
    fputc('\n', f);
    fputs(gpu ? gpu_struct_text : struct_text, f);
    fputc('\n', f);
    if (gpu && symbolic) {
        fputs(sg_prologue_c_helpers, f);
        fputc('\n', f);
    }
    size_t nsymbols = o->model ? o->model->nsymbols : 0;
    const char **symbols = calloc(nsymbols ? nsymbols : 1, sizeof *symbols);
    if (symbols == NULL) {
        fclose(f);
        free(text);
        return NULL;
    }
    for (size_t k = 0; k < nsymbols; k++)
        symbols[k] = o->model->symbols[k].name;
    if (nsymbols > 0 && o->prefix && !gpu) {
        fputs(symbol_struct_text, f);
        fprintf(f, "/* The model's symbols (see above). */\n#define %s_SYMBOL_COUNT %zu\n", o->prefix,
                nsymbols);
        fprintf(f, "static const slicegen_model_symbol %s_symbols[%s_SYMBOL_COUNT] = {\n", o->prefix,
                o->prefix);
        for (size_t k = 0; k < nsymbols; k++) {
            const sg_model_symbol *y = &o->model->symbols[k];
            fputs("    {", f);
            string_literal(f, y->name);
            fputs(", ", f);
            string_literal(f, y->input);
            fprintf(f, ", %" PRId64 "},\n", y->dim);
        }
        fputs("};\n\n", f);
    }
    for (size_t i = 0; i < count; i++) {
        if (gpu)
            gpu_kernel_block(f, &kernels[i]);
        else
            kernel_block(f, &kernels[i], o, code->target, symbols);
    }
    free(symbols);
    if (o->prefix && gpu && count == 0) { /* C has no empty initializer: a null table */
        fputs("/* The model has no kernel. */\n", f);
        fprintf(f, "static const slicegen_cuda_kernel_info *const %s_kernels = NULL;\n", o->prefix);
        fprintf(f, "static const size_t %s_kernel_count = 0;\n\n", o->prefix);
    } else if (o->prefix && gpu) {
        fputs("/* Every kernel above, in model order. */\n", f);
        fprintf(f, "static const slicegen_cuda_kernel_info %s_kernels[] = {\n", o->prefix);
        for (size_t i = 0; i < count; i++) {
            const char *n = kernels[i].name;
            if (kernels[i].plan->sym)
                fprintf(f, "    {%s_ENTRY, 0, %s_BLOCK_X, 0, 0, ", n, n);
            else
                fprintf(f, "    {%s_ENTRY, %s_GRID_X, %s_BLOCK_X, %s_INPUT_BYTES, %s_OUTPUT_BYTES, ", n, n, n, n,
                        n);
            string_literal(f, kernels[i].layer);
            fprintf(f, ", %" PRId64 ", ", kernels[i].layer ? kernels[i].layer_id : -1);
            if (kernels[i].plan->sym)
                fprintf(f, "%s_prepare, %s_VALUE_COUNT},\n", n, n);
            else
                fputs("NULL, 0},\n", f);
        }
        fprintf(f, "};\nstatic const size_t %s_kernel_count = %zu;\n\n", o->prefix, count);
    } else if (o->prefix) {
        fputs(count ? "/* Every kernel above, in model order. */\n" : "/* The model has no kernel. */\n", f);
        fprintf(f, "extern const slicegen_kernel_info *const %s_kernels[];\n", o->prefix);
        fprintf(f, "extern const size_t %s_kernel_count;\n\n", o->prefix);
    }
    fputs("#ifdef __cplusplus\n}\n#endif\n\n", f);
    fprintf(f, "#endif /* SLICEGEN_%s_%s_%s_H */\n", guard_kind, guard, GUARD_HASH_HOLE);
    if (fclose(f) != 0 || guard_at < 0) {
        free(text);
        return NULL;
    }
    fill_guard_hash(text + guard_at);
    return text;
}

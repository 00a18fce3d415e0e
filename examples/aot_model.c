/* An application of ahead-of-time kernels: the example model's slice layers,
 * compiled by `slicegen aot examples/model/model.xml -o model.o --header
 * model.h --prefix model` and linked into this program. It walks the table
 * model_kernels[] and runs every kernel on a known input (the bytes 0, 1,
 * 2, ...) split over three calls as three threads would. A kernel with
 * runtime values or dimensions (NAME_info.prepare not NULL) takes its
 * numbers from the model's symbols (model_symbols[]: the sizes of the
 * graph inputs' dynamic dimensions) through NAME_numbers where it has one,
 * else as `calls` below says; its prologue checks the input's shape and
 * the values and gives the output's shape and sizes, then the kernel runs.
 * Each output
 * is checked against slicegen's reference interpreter, planned anew from
 * the description's spec, shape and element type (and, for runtime values,
 * specialized for the call's numbers). One line per call; the exit status
 * is 1 if any output differs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "slicegen.h"

/* A call of a kernel with runtime values or dimensions: the input's whole
 * shape and the values, in the order the kernel's value_names lists them
 * (those of begin, end and stride, port by port). */
struct call {
    const char *layer;
    int64_t in_shape[4];
    int64_t values[4];
};

/* The sizes of the model's symbols (model_symbols[model_SYMBOL_COUNT]) each
 * kernel with NAME_numbers runs for: tokens_dim0, the number of tokens of
 * Parameter `tokens`, 12 and 1 (tokens/window: 8 of each token's 16
 * numbers). */
static const int64_t symbol_sizes[][model_SYMBOL_COUNT] = {{12}, {1}};

/* The other kernels' calls, by layer: begin from ShapeOf of a static image
 * is a value of its own. */
static const struct call calls[] = {
    /* the image's own shape, so image[2:, 3:, 8:, 8:] is empty */
    {"tail/dynamic-begin", {2, 3, 8, 8}, {2, 3, 8, 8}},
    /* ... and other begins: image[1:, 0:, 2:, -3:] */
    {"tail/dynamic-begin", {2, 3, 8, 8}, {1, 0, 2, -3}},
};

/* The reference output of a call of the kernel described by info: the
 * spec's words (the command-line form, '' for an empty list) planned for
 * the description's input shape and element type, specialized for
 * in_shape and values when the kernel takes them, then run element by
 * element. The plan's output must have out_rank dimensions out_shape and
 * out_bytes bytes. Returns a message, or NULL when *out holds the result. */
static const char *reference(sg_context *ctx, const slicegen_kernel_info *info, const int64_t *in_shape,
                             const int64_t *values, int32_t out_rank, const int64_t *out_shape,
                             int64_t out_bytes, const void *in, void *out)
{
    char *text = strdup(info->spec), *words[64];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
        words[n++] = strcmp(w, "''") == 0 ? "" : w;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL, *specialized = NULL;
    sg_dtype dtype;
    const char *problem = NULL;
    if (!sg_dtype_parse(info->dtype, &dtype))
        problem = "unknown element type";
    else if (sg_spec_from_words(ctx, n, words, &spec) != SG_OK ||
             sg_plan_create(ctx, spec, (size_t)info->in_rank, info->in_shape, dtype, &plan) != SG_OK ||
             (info->prepare && sg_plan_specialize(ctx, plan, in_shape, values, &specialized) != SG_OK))
        problem = sg_context_last_error(ctx);
    const sg_plan *run = specialized ? specialized : plan;
    if (problem == NULL &&
        (sg_plan_output_bytes(run) != (uint64_t)out_bytes || sg_plan_output_rank(run) != (size_t)out_rank ||
         (out_rank > 0 &&
          memcmp(sg_plan_output_shape(run), out_shape, (size_t)out_rank * sizeof *out_shape) != 0)))
        problem = "the kernel's output shape or size differs from the plan's";
    else if (problem == NULL && sg_run_reference(ctx, run, in, out) != SG_OK)
        problem = sg_context_last_error(ctx);
    sg_plan_destroy(specialized);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    free(text);
    return problem;
}

static void print_shape(const int64_t *shape, int32_t rank)
{
    putchar('[');
    for (int32_t i = 0; i < rank; i++)
        printf("%s%lld", i ? "," : "", (long long)shape[i]);
    putchar(']');
}

/* Runs the kernel described by info once, with a call's numbers when it
 * takes them (call NULL for a static kernel), checks the output and prints
 * one line. Returns 1 when something is wrong, else 0. */
static int run_call(sg_context *ctx, const slicegen_kernel_info *info, const struct call *call)
{
    slicegen_args args;
    const int64_t *in_shape = info->in_shape, *out_shape = info->out_shape;
    int64_t in_bytes = info->input_bytes, out_bytes = info->output_bytes, n = info->outer_extent;
    int32_t out_rank = info->out_rank;
    const char *problem = NULL;
    if (call != NULL) {
        int code = info->prepare(&args, call->in_shape, call->values);
        if (code != 0) {
            printf("%-18s prepare refused the call (code %d)\n", info->layer, code);
            return 1;
        }
        in_shape = call->in_shape;
        in_bytes = args.input_bytes;
        out_bytes = args.output_bytes;
        out_rank = args.out_rank;
        out_shape = args.out_shape;
        n = args.outer_extent;
    }
    unsigned char *in = malloc((size_t)in_bytes + 1), *got = malloc((size_t)out_bytes + 1),
                  *want = malloc((size_t)out_bytes + 1);
    if (!in || !got || !want) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int64_t i = 0; i < in_bytes; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    int64_t cuts[4] = {0, n / 3, 2 * n / 3, n};
    for (int c = 0; c < 3; c++) {
        if (call != NULL)
            info->run(in, got, &args, cuts[c], cuts[c + 1]);
        else
            info->fn(in, got, cuts[c], cuts[c + 1]);
    }
    problem =
        reference(ctx, info, in_shape, call ? call->values : NULL, out_rank, out_shape, out_bytes, in, want);
    if (problem == NULL && memcmp(got, want, (size_t)out_bytes) != 0)
        problem = "the output differs from the reference interpreter";
    printf("%-18s %-24s %-4s ", info->layer, info->name, info->dtype);
    print_shape(in_shape, info->in_rank);
    printf(" -> ");
    print_shape(out_shape, out_rank);
    for (int32_t v = 0; call != NULL && v < info->value_count; v++)
        printf(" %s=%lld", info->value_names[v], (long long)call->values[v]);
    printf("  %s\n", problem ? problem : "matches the reference");
    free(in);
    free(got);
    free(want);
    return problem != NULL;
}

int main(void)
{
    sg_context *ctx;
    int ran = 0, differ = 0;
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    printf("%zu kernels compiled ahead of time for %s\n", model_kernel_count,
           model_kernel_count ? model_kernels[0]->target : "-");
    for (size_t k = 0; k < model_kernel_count; k++) {
        const slicegen_kernel_info *info = model_kernels[k];
        if (info->prepare == NULL) {
            differ += run_call(ctx, info, NULL);
            ran++;
            continue;
        }
        int before = ran;
        for (size_t z = 0; info->numbers != NULL && z < sizeof symbol_sizes / sizeof symbol_sizes[0]; z++) {
            struct call call = {info->layer, {0}, {0}}; /* its numbers, from the symbols alone */
            int64_t in_shape[64], values[256] = {0};
            info->numbers(symbol_sizes[z], in_shape, values);
            memcpy(call.in_shape, in_shape, (size_t)info->in_rank * sizeof *in_shape);
            memcpy(call.values, values, (size_t)info->value_count * sizeof *values);
            differ += run_call(ctx, info, &call);
            ran++;
        }
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
            if (strcmp(calls[c].layer, info->layer) == 0) {
                differ += run_call(ctx, info, &calls[c]);
                ran++;
            }
        }
        if (ran == before) {
            printf("%-18s takes runtime values, and this program has no call for it\n", info->layer);
            differ++;
            ran++;
        }
    }
    sg_context_destroy(ctx);
    printf("%d of %d calls match\n", ran - differ, ran);
    return differ != 0;
}

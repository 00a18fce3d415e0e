/* An application of ahead-of-time kernels: the example model's slice layers,
 * compiled by `slicegen aot examples/model/model.xml -o model.o --header
 * model.h --prefix model` and linked into this program. It walks the table
 * model_kernels[], runs every kernel on a known input (the bytes 0, 1, 2,
 * ...) split over three calls as three threads would, and checks each
 * output against slicegen's reference interpreter, planned anew from the
 * description's spec, shape and element type. One line per layer; the exit
 * status is 1 if any kernel differs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "slicegen.h"

/* The reference output for the kernel described by info: the spec's words
 * (the command-line form, '' for an empty list) planned for the input shape
 * and element type, then run element by element. Returns a message, or
 * NULL when *out holds the result. */
static const char *reference(sg_context *ctx, const slicegen_kernel_info *info, const void *in, void *out)
{
    char *text = strdup(info->spec), *words[64];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
        words[n++] = strcmp(w, "''") == 0 ? "" : w;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_dtype dtype;
    const char *problem = NULL;
    if (!sg_dtype_parse(info->dtype, &dtype))
        problem = "unknown element type";
    else if (sg_spec_from_words(ctx, n, words, &spec) != SG_OK ||
             sg_plan_create(ctx, spec, (size_t)info->in_rank, info->in_shape, dtype, &plan) != SG_OK ||
             sg_run_reference(ctx, plan, in, out) != SG_OK)
        problem = sg_context_last_error(ctx);
    else if (sg_plan_output_bytes(plan) != (uint64_t)info->output_bytes)
        problem = "the description's output size differs from the plan's";
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

int main(void)
{
    sg_context *ctx;
    int differ = 0;
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    printf("%zu kernels compiled ahead of time for %s\n", model_kernel_count,
           model_kernel_count ? model_kernels[0]->target : "-");
    for (size_t k = 0; k < model_kernel_count; k++) {
        const slicegen_kernel_info *info = model_kernels[k];
        size_t in_bytes = (size_t)info->input_bytes, out_bytes = (size_t)info->output_bytes;
        unsigned char *in = malloc(in_bytes + 1), *got = malloc(out_bytes + 1), *want = malloc(out_bytes + 1);
        if (!in || !got || !want) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (size_t i = 0; i < in_bytes; i++)
            in[i] = (unsigned char)(i * 7 + 3);
        int64_t n = info->outer_extent;
        info->fn(in, got, 0, n / 3);
        info->fn(in, got, n / 3, 2 * n / 3);
        info->fn(in, got, 2 * n / 3, n);
        const char *problem = reference(ctx, info, in, want);
        if (problem == NULL && memcmp(got, want, out_bytes) != 0)
            problem = "the output differs from the reference interpreter";
        printf("%-18s %-24s %-4s ", info->layer, info->name, info->dtype);
        print_shape(info->in_shape, info->in_rank);
        printf(" -> ");
        print_shape(info->out_shape, info->out_rank);
        printf("  %s\n", problem ? problem : "matches the reference");
        differ += problem != NULL;
        free(in);
        free(got);
        free(want);
    }
    sg_context_destroy(ctx);
    printf("%zu of %zu kernels match\n", model_kernel_count - (size_t)differ, model_kernel_count);
    return differ != 0;
}

/* slicegen-demo: slices a 4x6 array several ways through the C API: each
 * slice is planned, JIT-compiled into a kernel, run, checked against the
 * reference interpreter and printed.
 * Usage: slicegen-demo [IN.npy]   slice IN.npy (f32; default: a 4x6 ramp)
 *        slicegen-demo --show F.npy   print an f32 .npy file */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slicegen.h"

/* Prints a rank-0, 1 or 2 f32 array (higher ranks as rows of the last dim). */
static void print_array(const char *title, size_t rank, const int64_t *shape, const float *v)
{
    int64_t count = 1, cols = rank ? shape[rank - 1] : 1;
    for (size_t i = 0; i < rank; i++)
        count *= shape[i];
    printf("%s  shape [", title);
    for (size_t i = 0; i < rank; i++)
        printf("%s%lld", i ? "," : "", (long long)shape[i]);
    printf("]\n");
    for (int64_t k = 0; k < count; k++)
        printf("%s%6g%s", k % cols == 0 ? "    " : "", v[k], (k + 1) % cols == 0 ? "\n" : "");
    if (count == 0)
        printf("    (empty)\n");
    printf("\n");
}

/* Plans spec for the input, compiles and runs its kernel, checks the result
 * against the reference interpreter and prints it. */
static int show(sg_context *ctx, const char *title, sg_status made, sg_spec *spec, const sg_tensor *in)
{
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    float *out = NULL, *expected = NULL;
    int rc = 1;
    if (made != SG_OK || sg_plan_create(ctx, spec, in->rank, in->shape, in->dtype, &plan) != SG_OK ||
        sg_kernel_compile_with(ctx, plan, NULL, &kernel) != SG_OK) {
        fprintf(stderr, "%s: %s\n", title, sg_context_last_error(ctx));
        goto done;
    }
    uint64_t bytes = sg_plan_output_bytes(plan);
    out = malloc(bytes + 1);
    expected = malloc(bytes + 1);
    if (out == NULL || expected == NULL || sg_kernel_run(ctx, kernel, in->data, out, 1) != SG_OK ||
        sg_run_reference(ctx, plan, in->data, expected) != SG_OK)
        goto done;
    if (memcmp(out, expected, bytes) != 0) {
        fprintf(stderr, "%s: the kernel and the reference interpreter disagree\n", title);
        goto done;
    }
    print_array(title, sg_plan_output_rank(plan), sg_plan_output_shape(plan), out);
    rc = 0;
done:
    free(out);
    free(expected);
    sg_kernel_destroy(kernel);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return rc;
}

int main(int argc, char **argv)
{
    sg_context *ctx;
    sg_tensor in = {.dtype = SG_F32, .rank = 2, .shape = {4, 6}};
    float ramp[24];
    int failures = 0;
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    bool show_only = argc > 2 && strcmp(argv[1], "--show") == 0;
    if (argc > 1) {
        if (sg_npy_read(ctx, argv[argc - 1], &in) != SG_OK || in.dtype != SG_F32) {
            fprintf(stderr, "slicegen-demo: %s\n", in.dtype != SG_F32 && in.data ? "needs an f32 array"
                                                                           : sg_context_last_error(ctx));
            return 1;
        }
    } else {
        for (int i = 0; i < 24; i++)
            ramp[i] = (float)i;
        in.data = ramp;
    }
    print_array(show_only ? argv[argc - 1] : "input", in.rank, in.shape, in.data);
    if (show_only) {
        sg_tensor_destroy(&in);
        sg_context_destroy(ctx);
        return 0;
    }

    sg_spec *spec = NULL;
    sg_status st = sg_spec_numpy(ctx, "x[1:3, ::-2]", &spec);
    failures += show(ctx, "NumPy x[1:3, ::-2]", st, spec, &in);

    int64_t begin[] = {0, -1}, end[] = {0, 0}, stride[] = {2, 1}, ones[] = {1, 0}, shrink[] = {0, 1};
    sg_strided_slice_args ss = {2, begin, end, stride, .begin_mask = {ones, 2}, .end_mask = {ones, 2},
                                .shrink_axis_mask = {shrink, 2}};
    st = sg_spec_strided_slice(ctx, &ss, &spec);
    failures += show(ctx, "StridedSlice begin [0,-1] stride [2,1] shrink [0,1]  (x[::2, -1])", st, spec, &in);

    int64_t start[] = {-1}, stop[] = {INT64_MIN}, step[] = {-3}, axes[] = {-1};
    st = sg_spec_slice(ctx, 1, start, stop, step, axes, &spec);
    failures += show(ctx, "Slice-8 start -1 stop INT64_MIN step -3 axes -1", st, spec, &in);

    int64_t t_start[] = {-1, -2}, t_size[] = {6, 5}, t_stride[] = {1, 2};
    st = sg_spec_trt_slice(ctx, 2, t_start, t_size, t_stride, SG_TRT_REFLECT, NULL, &spec);
    failures += show(ctx, "TensorRT reflect start (-1,-2) size (6,5) stride (1,2)", st, spec, &in);

    sg_scalar fill = {.kind = SG_SCALAR_FLOAT, .f = -1.0};
    int64_t f_start[] = {-1, -1}, f_size[] = {3, 8};
    st = sg_spec_trt_slice(ctx, 2, f_start, f_size, NULL, SG_TRT_FILL, &fill, &spec);
    failures += show(ctx, "TensorRT fill -1 start (-1,-1) size (3,8)", st, spec, &in);

    if (argc > 1)
        sg_tensor_destroy(&in);
    sg_context_destroy(ctx);
    return failures != 0;
}

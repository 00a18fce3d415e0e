/* A program outside the slicegen tree: JIT-compiles x[1:, ::-1] for a 4x6
 * f32 input through the public API, runs the kernel and checks the output
 * against values worked out here. Exit status 0 when every value matches. */
#include <slicegen.h>
#include <stdio.h>

int main(void)
{
    enum { ROWS = 4, COLS = 6 };
    float in[ROWS][COLS], out[ROWS - 1][COLS], expected[ROWS - 1][COLS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            in[r][c] = (float)(10 * r + c);
    for (int r = 1; r < ROWS; r++) /* rows 1.., columns backwards */
        for (int c = 0; c < COLS; c++)
            expected[r - 1][c] = in[r][COLS - 1 - c];

    sg_context *ctx = NULL;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    sg_compile_options options;
    sg_compile_options_init(&options);
    int status = 1;
    if (sg_context_create(&ctx) != SG_OK) {
        fputs("consumer: cannot create a slicegen context\n", stderr);
        return 1;
    }
    if (sg_spec_numpy(ctx, "x[1:, ::-1]", &spec) != SG_OK ||
        sg_plan_create(ctx, spec, 2, (const int64_t[]){ROWS, COLS}, SG_F32, &plan) != SG_OK ||
        sg_kernel_compile_with(ctx, plan, &options, &kernel) != SG_OK ||
        sg_kernel_run(ctx, kernel, in, out, 1) != SG_OK) {
        fprintf(stderr, "consumer: %s\n", sg_context_last_error(ctx));
        goto done;
    }
    const int64_t *shape = sg_plan_output_shape(plan);
    if (sg_plan_output_rank(plan) != 2 || shape[0] != ROWS - 1 || shape[1] != COLS ||
        sg_plan_output_bytes(plan) != sizeof out) {
        fputs("consumer: wrong output shape\n", stderr);
        goto done;
    }
    for (int r = 0; r < ROWS - 1; r++)
        for (int c = 0; c < COLS; c++)
            if (out[r][c] != expected[r][c]) {
                fprintf(stderr, "consumer: out[%d][%d] is %g, expected %g\n", r, c, out[r][c],
                        expected[r][c]);
                goto done;
            }
    printf("slicegen %s (LLVM %s): x[1:, ::-1] of a %dx%d f32 input, %d values as expected\n",
           SG_VERSION_STRING, sg_llvm_version(), ROWS, COLS, (ROWS - 1) * COLS);
    status = 0;
done:
    sg_kernel_destroy(kernel);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    sg_context_destroy(ctx);
    return status;
}

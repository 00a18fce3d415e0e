/* The loop a caller of a model's table runs (docs/aot.md): the symbols from
 * the graph input's shape, then per kernel its numbers (NAME_numbers), the
 * index data it leaves to the caller, prepare and run. Built by
 * onnx_errors_test.sh against symbols.onnx (make_onnx_models.py): x [n, 6],
 * layer head = x[0:n-1] (its end a value the symbols give), layer tail =
 * x[:, st:6] (st a graph input: index data, here 4); n = 5. */
#include <stdio.h>
#include <string.h>
#include "symbols.h"

int main(void)
{
    enum { N = 5, C = 6 };
    float x[N * C], out[N * C];
    for (int i = 0; i < N * C; i++)
        x[i] = (float)i;
    int64_t symbols[symbols_SYMBOL_COUNT];
    for (size_t k = 0; k < symbols_SYMBOL_COUNT; k++)
        symbols[k] = strcmp(symbols_symbols[k].input, "x") == 0 && symbols_symbols[k].dim == 0 ? N : -1;
    for (size_t i = 0; i < symbols_kernel_count; i++) {
        const slicegen_kernel_info *k = symbols_kernels[i];
        int64_t in_shape[64], values[256];
        slicegen_args args;
        if (k->version != 5 || k->numbers == NULL)
            return 1;
        k->numbers(symbols, in_shape, values);
        for (int v = 0; v < k->value_count; v++)
            if (strcmp(k->value_names[v], "starts_0") == 0)
                values[v] = 4; /* index data: st */
        if (k->prepare(&args, in_shape, values) != 0)
            return 2;
        k->run(x, out, &args, 0, args.outer_extent);
        printf("%s [%lld, %lld] ->", k->layer, (long long)args.out_shape[0], (long long)args.out_shape[1]);
        for (int64_t e = 0; e < args.out_shape[0] * args.out_shape[1]; e++)
            printf(" %g", out[e]);
        printf("\n");
    }
    return 0;
}

/* Built by test_fuse against the header of `slicegen aot [--fuse] MODEL
 * --prefix P` (given with -include) and linked with its object:
 *
 *     cc -include P.h -DTABLE=P_kernels -DCOUNT=P_kernel_count fuse_runner.c P.o
 *     fuse_runner DIR
 *
 * prints one line per kernel of the table, in order:
 *
 *     kernel NAME layer LAYER id ID version V fused N NAME1 ... NAMEN
 *
 * and runs each kernel NAME for which DIR/NAME.in exists (input_bytes
 * bytes) over its outer range in three calls, its output between guard
 * bytes, into DIR/NAME.out. Exit status 0, or 1 with a line on stderr per
 * problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD = 64, POISON = 0xA5 };

int main(int argc, char **argv)
{
    char path[4096];
    int problems = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: fuse_runner DIR\n");
        return 2;
    }
    for (size_t k = 0; k < COUNT; k++) {
        const slicegen_kernel_info *info = TABLE[k];
        printf("kernel %s layer %s id %lld version %u fused %d", info->name,
               info->layer ? info->layer : "(null)", (long long)info->layer_id, (unsigned)info->version,
               (int)info->fused_count);
        for (int32_t i = 0; i < info->fused_count; i++)
            printf(" %s", info->fused_layers[i]);
        printf("%s\n",
               info->fused_count == 0 && info->fused_layers != NULL ? " (fused_layers not NULL)" : "");
        snprintf(path, sizeof path, "%s/%s.in", argv[1], info->name);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            continue;
        size_t in_bytes = (size_t)info->input_bytes, out_bytes = (size_t)info->output_bytes;
        unsigned char *in = malloc(in_bytes + 1), *out = malloc(out_bytes + 2 * GUARD);
        if (in == NULL || out == NULL || fread(in, 1, in_bytes + 1, f) != in_bytes) {
            fprintf(stderr, "fuse_runner: %s does not hold %zu bytes\n", path, in_bytes);
            problems++;
        } else {
            int64_t n = info->outer_extent, cuts[4] = {0, n / 3, 2 * n / 3, n};
            memset(out, POISON, out_bytes + 2 * GUARD);
            for (int c = 0; c < 3; c++)
                info->fn(in, out + GUARD, cuts[c], cuts[c + 1]);
            for (size_t i = 0; i < GUARD; i++)
                if (out[i] != POISON || out[GUARD + out_bytes + i] != POISON) {
                    fprintf(stderr, "fuse_runner: %s wrote outside its output\n", info->name);
                    problems++;
                    break;
                }
            snprintf(path, sizeof path, "%s/%s.out", argv[1], info->name);
            FILE *o = fopen(path, "wb");
            int written = o != NULL && fwrite(out + GUARD, 1, out_bytes, o) == out_bytes;
            if (o == NULL || fclose(o) != 0 || !written) {
                fprintf(stderr, "fuse_runner: cannot write %s\n", path);
                problems++;
            }
        }
        fclose(f);
        free(in);
        free(out);
    }
    return problems != 0;
}

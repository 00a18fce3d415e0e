/* Runs every kernel of an ahead-of-time batch (tests/aot_batch.c), built
 * for any target and linked with the batch's object:
 *
 *     aot_runner DIR
 *
 * reads DIR/in.bin (each kernel's input, in table order, input_bytes each),
 * runs kernel k over its outer range split in three calls, and writes
 * DIR/out.bin (the outputs, output_bytes each). The outputs sit between
 * guard bytes that must stay untouched. Plain C11 against the generated
 * header only, so that a cross compiler builds it and qemu-user runs it.
 * Exit status 0, or 1 with a line on stderr per problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

enum { GUARD = 64, POISON = 0xA5 };

static unsigned char *read_all(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)*size + 1)) != NULL && fread(data, 1, (size_t)*size, f) != (size_t)*size) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    return data;
}

int main(int argc, char **argv)
{
    char path[4096];
    long in_size = 0;
    int problems = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: aot_runner DIR\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/in.bin", argv[1]);
    unsigned char *in = read_all(path, &in_size);
    snprintf(path, sizeof path, "%s/out.bin", argv[1]);
    FILE *out = fopen(path, "wb");
    if (in == NULL || out == NULL) {
        fprintf(stderr, "aot_runner: cannot read %s/in.bin or write %s\n", argv[1], path);
        return 1;
    }
    long at = 0;
    for (size_t k = 0; k < batch_kernel_count; k++) {
        const slicegen_kernel_info *info = batch_kernels[k];
        int64_t n = info->outer_extent, count = 1;
        for (int32_t d = 0; d < info->out_rank; d++)
            count *= info->out_shape[d];
        if (info->version != 1 || info->fn == NULL || count * info->elem_size != info->output_bytes ||
            at + info->input_bytes > in_size) {
            fprintf(stderr, "aot_runner: kernel %s (%s): inconsistent description\n", info->name,
                    info->layer);
            problems++;
            break;
        }
        size_t bytes = (size_t)info->output_bytes;
        unsigned char *buf = malloc(bytes + 2 * GUARD);
        if (buf == NULL) {
            fprintf(stderr, "aot_runner: out of memory\n");
            return 1;
        }
        memset(buf, POISON, bytes + 2 * GUARD);
        int64_t cut1 = n / 3, cut2 = n - n / 4;
        info->fn(in + at, buf + GUARD, 0, cut1);
        info->fn(in + at, buf + GUARD, cut1, cut2);
        info->fn(in + at, buf + GUARD, cut2, n);
        for (size_t i = 0; i < GUARD; i++) {
            if (buf[i] != POISON || buf[GUARD + bytes + i] != POISON) {
                fprintf(stderr, "aot_runner: kernel %s (%s) wrote outside its output\n", info->name,
                        info->layer);
                problems++;
                break;
            }
        }
        if (fwrite(buf + GUARD, 1, bytes, out) != bytes) {
            fprintf(stderr, "aot_runner: cannot write the outputs\n");
            return 1;
        }
        free(buf);
        at += (long)info->input_bytes;
    }
    free(in);
    if (fclose(out) != 0) {
        fprintf(stderr, "aot_runner: cannot write the outputs\n");
        return 1;
    }
    return problems != 0;
}

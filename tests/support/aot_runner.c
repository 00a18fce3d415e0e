/* Runs every kernel of an ahead-of-time batch (tests/support/aot_batch.c), built
 * for any target and linked with the batch's object:
 *
 *     aot_runner DIR
 *
 * reads DIR/in.bin (each kernel's input, in table order, input_bytes each),
 * runs kernel k over its outer range split in three calls, and writes
 * DIR/out.bin (the outputs, output_bytes each). A kernel with runtime
 * values is called as DIR/calls.bin says (its expected prologue code, the
 * input's bytes, shape and the values: int64 each), its outer range and
 * sizes those its prologue gives. The outputs sit between
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
    snprintf(path, sizeof path, "%s/calls.bin", argv[1]);
    FILE *calls = fopen(path, "rb");
    long at = 0;
    for (size_t k = 0; k < batch_kernel_count; k++) {
        const slicegen_kernel_info *info = batch_kernels[k];
        int64_t n = info->outer_extent, count = 1, in_bytes = info->input_bytes, out_bytes = info->output_bytes;
        slicegen_args args;
        if (info->prepare != NULL) {
            int64_t head[2], shape[64], values[256]; /* the most a spec names (SG_MAX_VALUES) */
            if (calls == NULL || info->value_count > 256 || fread(head, sizeof head, 1, calls) != 1 ||
                fread(shape, sizeof *shape, (size_t)info->in_rank, calls) != (size_t)info->in_rank ||
                fread(values, sizeof *values, (size_t)info->value_count, calls) != (size_t)info->value_count) {
                fprintf(stderr, "aot_runner: %s/calls.bin is short\n", argv[1]);
                return 1;
            }
            memset(&args, 0x5a, sizeof args);
            slicegen_args before = args;
            int code = info->prepare(&args, shape, values);
            if (code != head[0] || (code != 0 && memcmp(&args, &before, sizeof args) != 0)) {
                fprintf(stderr, "aot_runner: kernel %s (%s): prepare returned %d, not %d%s\n", info->name,
                        info->layer, code, (int)head[0], code != 0 ? " (or wrote args)" : "");
                problems++;
            }
            in_bytes = head[1];
            out_bytes = code == 0 ? args.output_bytes : 0;
            n = code == 0 ? args.outer_extent : 0;
            for (int32_t d = 0; d < args.out_rank && code == 0; d++)
                count *= args.out_shape[d];
            if (code != 0)
                count = 0;
        } else {
            for (int32_t d = 0; d < info->out_rank; d++)
                count *= info->out_shape[d];
        }
        if (info->version != 5 || (info->fn == NULL) == (info->run == NULL) || count * info->elem_size != out_bytes ||
            at + in_bytes > in_size) {
            fprintf(stderr, "aot_runner: kernel %s (%s): inconsistent description\n", info->name,
                    info->layer);
            problems++;
            break;
        }
        size_t bytes = (size_t)out_bytes;
        unsigned char *buf = malloc(bytes + 2 * GUARD);
        if (buf == NULL) {
            fprintf(stderr, "aot_runner: out of memory\n");
            return 1;
        }
        memset(buf, POISON, bytes + 2 * GUARD);
        int64_t cuts[4] = {0, n / 3, n - n / 4, n};
        for (int c = 0; c < 3 && !(info->run && n == 0); c++) {
            if (info->run)
                info->run(in + at, buf + GUARD, &args, cuts[c], cuts[c + 1]);
            else
                info->fn(in + at, buf + GUARD, cuts[c], cuts[c + 1]);
        }
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
        at += (long)in_bytes;
    }
    if (calls)
        fclose(calls);
    free(in);
    if (fclose(out) != 0) {
        fprintf(stderr, "aot_runner: cannot write the outputs\n");
        return 1;
    }
    return problems != 0;
}

/* Built by emit_test.sh against two generated headers in one translation
 * unit (kernels `one` and `two`, as C11 and as C++), linked with their
 * objects: prints what each kernel's description and macros say, for the
 * script to compare with `slicegen plan`, and runs both kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "one.h"
#include "two.h"

static void shape(const char *what, const int64_t *dims, int32_t rank)
{
    printf("%s", what);
    for (int32_t i = 0; i < rank; i++)
        printf("%s%lld", i ? "," : " ", (long long)dims[i]);
    printf("\n");
}

static int describe(const slicegen_kernel_info *info, void (*fn)(const void *, void *, int64_t, int64_t),
                    int64_t extent, int64_t in_bytes, int64_t out_bytes)
{
    printf("version %u\nname %s\nlayer %s\nlayer_id %lld\nfn %s\n", (unsigned)info->version, info->name,
           info->layer ? info->layer : "(null)", (long long)info->layer_id, info->fn == fn ? "ok" : "wrong");
    printf("dtype %s\nelem_size %d\n", info->dtype, (int)info->elem_size);
    shape("in_shape", info->in_shape, info->in_rank);
    shape("out_shape", info->out_shape, info->out_rank);
    printf("outer_extent %lld %lld\n", (long long)info->outer_extent, (long long)extent);
    printf("input_bytes %lld %lld\n", (long long)info->input_bytes, (long long)in_bytes);
    printf("output_bytes %lld %lld\n", (long long)info->output_bytes, (long long)out_bytes);
    printf("spec %s\ntarget %s\n", info->spec, info->target);
    printf("plan\n%s", info->plan);
    /* Run it on the input bytes 0, 1, 2, ...; the output goes to NAME.out. */
    unsigned char *in = (unsigned char *)malloc((size_t)in_bytes + 1);
    unsigned char *out = (unsigned char *)malloc((size_t)out_bytes + 1);
    char path[64];
    for (int64_t i = 0; i < in_bytes; i++)
        in[i] = (unsigned char)i;
    fn(in, out, 0, extent);
    snprintf(path, sizeof path, "%s.out", info->name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(out, 1, (size_t)out_bytes, f) == (size_t)out_bytes;
    if (f)
        fclose(f);
    free(in);
    free(out);
    return ok;
}

int main(void)
{
    int ok = describe(&one_info, one, one_OUTER_EXTENT, one_INPUT_BYTES, one_OUTPUT_BYTES);
    printf("--\n");
    ok = ok && describe(&two_info, two, two_OUTER_EXTENT, two_INPUT_BYTES, two_OUTPUT_BYTES);
    return !ok;
}

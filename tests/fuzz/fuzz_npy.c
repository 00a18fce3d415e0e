/*
 * fuzz_npy: the .npy reader (sg_npy_read): the preamble, the header dict
 * (descr, fortran_order, shape) and the data size.
 *
 * Decoding: the bytes are the whole file. sg_npy_read takes a path, so each
 * run writes them to in.npy in the process's temporary folder (fuzz.h:
 * $TMPDIR, else /dev/shm, else /tmp). The library has no header-only
 * reader; sg_npy_read is the only entry. When the file reads:
 *   - the tensor must be consistent: a known type, rank <= SG_MAX_RANK,
 *     non-negative dimensions whose non-zero ones multiply (times the
 *     element size) without 64-bit overflow, as NumPy requires, bytes =
 *     elements x element size, data that is the file's last `bytes` bytes;
 *   - sg_npy_write must write it (out.npy) and sg_npy_read read that back
 *     into the same tensor.
 */
#include "fuzz.h"

static int same_tensor(const sg_tensor *a, const sg_tensor *b)
{
    return a->dtype == b->dtype && a->rank == b->rank && a->bytes == b->bytes &&
           memcmp(a->shape, b->shape, a->rank * sizeof a->shape[0]) == 0 &&
           (a->bytes == 0 || memcmp(a->data, b->data, a->bytes) == 0);
}

static void check_tensor(const sg_tensor *t, const uint8_t *data, size_t size)
{
    size_t elem = sg_dtype_size(t->dtype);
    if (elem == 0 || t->rank > SG_MAX_RANK || t->data == NULL)
        FUZZ_FAIL("read a tensor of type %d, rank %zu, data %p", (int)t->dtype, t->rank, t->data);
    uint64_t count = 1, bytes;
    bool zero = false;
    for (size_t i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0)
            FUZZ_FAIL("read a negative dimension (%lld at axis %zu)", (long long)t->shape[i], i);
        zero |= t->shape[i] == 0;
        if (t->shape[i] != 0 && __builtin_mul_overflow(count, (uint64_t)t->shape[i], &count))
            FUZZ_FAIL("read a shape whose size overflows 64 bits (refused by NumPy, zero dimension or not)");
    }
    if (__builtin_mul_overflow(count, elem, &bytes))
        FUZZ_FAIL("read a shape whose size in bytes overflows 64 bits");
    if (zero)
        count = 0;
    if (count * elem != t->bytes || t->bytes > size || memcmp(t->data, data + size - t->bytes, t->bytes) != 0)
        FUZZ_FAIL("read %llu data bytes for %llu elements of %zu bytes", (unsigned long long)t->bytes,
                  (unsigned long long)count, elem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    char in_path[4200], out_path[4200];
    sg_tensor t, back;
    memset(&t, 0, sizeof t);
    memset(&back, 0, sizeof back);
    fuzz_write_file("in.npy", data, size, in_path, sizeof in_path);
    if (sg_npy_read(ctx, in_path, &t) != SG_OK)
        return 0;
    check_tensor(&t, data, size);

    snprintf(out_path, sizeof out_path, "%s/out.npy", fuzz_dir());
    if (sg_npy_write(ctx, out_path, &t) != SG_OK)
        FUZZ_FAIL("cannot write what was read: %s", sg_context_last_error(ctx));
    if (sg_npy_read(ctx, out_path, &back) != SG_OK)
        FUZZ_FAIL("cannot read what was written: %s", sg_context_last_error(ctx));
    if (!same_tensor(&t, &back))
        FUZZ_FAIL("the tensor changed in a write and read");
    sg_tensor_release(&back);
    sg_tensor_release(&t);
    return 0;
}

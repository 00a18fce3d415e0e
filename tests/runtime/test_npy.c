/*
 * .npy reading and writing, and atomic output files. Prints one line per
 * failed check and then "npy: N passed, M failed"; exits nonzero on failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../runtime/runtime.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
    char dir[64];
} suite;

/* A check reported at the caller's line. */
#define CHECK_AT(s, cond, line, ...) check_at(&(s)->counts, __FILE__, (line), (cond), __VA_ARGS__)

static void path_of(const suite *s, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", s->dir, name);
}

/* The whole file, malloc'd; NULL if it cannot be read. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = malloc(1 << 16);
    *size = buf ? fread(buf, 1, 1 << 16, f) : 0;
    fclose(f);
    return buf;
}

static void spit(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(bytes, 1, size, f);
        fclose(f);
    }
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* A tensor with a recognisable pattern (0/1 for bool). */
static sg_tensor make_tensor(sg_dtype dtype, size_t rank, const int64_t *shape)
{
    sg_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.rank = rank;
    uint64_t count = 1;
    for (size_t i = 0; i < rank; i++)
        count *= (uint64_t)(t.shape[i] = shape[i]);
    t.bytes = count * sg_dtype_size(dtype);
    unsigned char *p = malloc(t.bytes ? t.bytes : 1);
    if (!p)
        abort();
    for (uint64_t i = 0; i < t.bytes; i++)
        p[i] = dtype == SG_BOOL ? (unsigned char)(i % 3 == 0) : (unsigned char)(i * 37 + dtype + 1);
    t.data = p;
    return t;
}

static int same_tensor(const sg_tensor *a, const sg_tensor *b)
{
    return a->dtype == b->dtype && a->rank == b->rank && a->bytes == b->bytes &&
           memcmp(a->shape, b->shape, a->rank * sizeof a->shape[0]) == 0 && b->data != NULL &&
           memcmp(a->data, b->data, a->bytes) == 0;
}

static void test_round_trip(suite *s)
{
    static const struct { size_t rank; int64_t shape[3]; } shapes[] = {
        {0, {0}}, {1, {5}}, {3, {2, 3, 4}}, {3, {3, 0, 2}},
    };
    char path[128];
    path_of(s, "round.npy", path, sizeof path);
    for (int d = SG_BOOL; d <= SG_F64; d++) {
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            sg_tensor in = make_tensor((sg_dtype)d, shapes[k].rank, shapes[k].shape), out;
            sg_error err = {SG_OK, ""};
            memset(&out, 0, sizeof out);
            sg_status st = sg_npy_store(path, &in, &err);
            if (CHECK(s, st == SG_OK, "store %s rank %zu: %s", sg_dtype_name((sg_dtype)d),
                      in.rank, err.message)) {
                st = sg_npy_load(path, &out, &err);
                CHECK(s, st == SG_OK, "load %s rank %zu: %s", sg_dtype_name((sg_dtype)d),
                      in.rank, err.message);
                CHECK(s, st == SG_OK && same_tensor(&in, &out), "round trip of %s shape #%zu differs",
                      sg_dtype_name((sg_dtype)d), k);
            }
            free(in.data);
            sg_npy_release(&out);
        }
    }
    unlink(path);
}

/* Writes t and checks the file is the exact NumPy preamble with `dict`. */
static void expect_header(suite *s, int line, sg_dtype dtype, size_t rank, const int64_t *shape,
                          const char *dict, size_t want_total)
{
    char path[128];
    path_of(s, "header.npy", path, sizeof path);
    sg_tensor t = make_tensor(dtype, rank, shape);
    sg_error err = {SG_OK, ""};
    size_t size = 0, len = strlen(dict);
    CHECK_AT(s, sg_npy_store(path, &t, &err) == SG_OK, line, "store: %s", err.message);
    unsigned char *raw = slurp(path, &size);
    if (CHECK_AT(s, raw && size >= 10, line, "cannot read back %s", path)) {
        size_t total = 10 + (raw[8] | (size_t)raw[9] << 8);
        CHECK_AT(s, memcmp(raw, "\x93NUMPY\x01\x00", 8) == 0, line, "bad magic or version");
        CHECK_AT(s, total % 64 == 0 && total == want_total, line, "preamble is %zu bytes, want %zu",
              total, want_total);
        CHECK_AT(s, size == total + t.bytes, line, "file is %zu bytes, want %zu", size,
              (size_t)(total + t.bytes));
        if (CHECK_AT(s, total <= size && len + 11 <= total, line, "header too short")) {
            CHECK_AT(s, memcmp(raw + 10, dict, len) == 0, line, "dict is \"%.*s\", want \"%s\"",
                  (int)len, (const char *)raw + 10, dict);
            int spaces = 1;
            for (size_t i = 10 + len; i < total - 1; i++)
                spaces &= raw[i] == ' ';
            CHECK_AT(s, spaces && raw[total - 1] == '\n', line, "padding is not spaces and '\\n'");
        }
    }
    free(raw);
    free(t.data);
    unlink(path);
}

static void test_headers(suite *s)
{
    /* Byte-identical to np.save (NumPy >= 1.23, which leaves growth room). */
    expect_header(s, __LINE__, SG_F32, 2, (const int64_t[]){2, 3},
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 128);
    expect_header(s, __LINE__, SG_I64, 1, (const int64_t[]){5},
                  "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }", 128);
    expect_header(s, __LINE__, SG_U8, 0, NULL,
                  "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", 128);
    expect_header(s, __LINE__, SG_BOOL, 1, (const int64_t[]){4},
                  "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", 128);
    expect_header(s, __LINE__, SG_BF16, 2, (const int64_t[]){3, 0},
                  "{'descr': '<V2', 'fortran_order': False, 'shape': (3, 0), }", 128);
}

/* Writes a hand-made .npy file: version major.0, the dict, data. */
static void make_npy(const suite *s, const char *name, int major, const char *dict,
                     const void *data, size_t size, char *path, size_t cap)
{
    unsigned char buf[4096];
    size_t len = strlen(dict), lenbytes = major == 1 ? 2 : 4, n = 0;
    size_t hlen = len + 1;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 0; i < lenbytes; i++)
        buf[8 + i] = (unsigned char)(hlen >> (8 * i));
    n = 8 + lenbytes;
    memcpy(buf + n, dict, len);
    n += len;
    buf[n++] = '\n';
    memcpy(buf + n, data, size);
    path_of(s, name, path, cap);
    spit(path, buf, n + size);
}

static void expect_load(suite *s, int line, int major, const char *dict, const void *data,
                        size_t size, sg_dtype dtype, size_t rank, const int64_t *shape)
{
    char path[128];
    make_npy(s, "hand.npy", major, dict, data, size, path, sizeof path);
    sg_tensor t;
    sg_error err = {SG_OK, ""};
    memset(&t, 0, sizeof t);
    if (CHECK_AT(s, sg_npy_load(path, &t, &err) == SG_OK, line, "load %s: %s", dict, err.message)) {
        CHECK_AT(s,
                 t.dtype == dtype && t.rank == rank && t.bytes == size &&
                     (rank == 0 || memcmp(t.shape, shape, rank * sizeof *shape) == 0) &&
                     (size == 0 || memcmp(t.data, data, size) == 0) && t.map == NULL,
                 line, "load %s: wrong dtype, shape or data", dict);
    }
    sg_npy_release(&t);
    /* mapped: the same tensor, its data inside the mapping */
    if (CHECK_AT(s, sg_npy_load_map(path, 0, &t, &err) == SG_OK, line, "load mapped %s: %s", dict,
                 err.message)) {
        const char *m = t.map, *d = t.data;
        CHECK_AT(s,
                 t.dtype == dtype && t.rank == rank && t.bytes == size &&
                     (rank == 0 || memcmp(t.shape, shape, rank * sizeof *shape) == 0) &&
                     (size == 0 || memcmp(t.data, data, size) == 0),
                 line, "load mapped %s: wrong dtype, shape or data", dict);
        CHECK_AT(s, size == 0 ? m == NULL : m != NULL && d >= m && d + size == m + t.map_bytes, line,
                 "load mapped %s: data is not the end of the mapping", dict);
        sg_npy_release(&t);
        CHECK_AT(s, t.data == NULL && t.map == NULL && t.bytes == 0 && t.map_bytes == 0, line,
                 "release left data in the tensor");
    }
    memset(&t, 0xff, sizeof t);
    if (CHECK_AT(s, sg_npy_load_header(path, &t, &err) == SG_OK, line, "load header %s: %s", dict,
                 err.message))
        CHECK_AT(s,
                 t.dtype == dtype && t.rank == rank && t.bytes == size && t.data == NULL && t.map == NULL &&
                     (rank == 0 || memcmp(t.shape, shape, rank * sizeof *shape) == 0),
                 line, "load header %s: wrong dtype or shape, or data", dict);
    sg_npy_release(&t);
    unlink(path);
}

static void test_hand_made(suite *s)
{
    const unsigned char i16[6] = {1, 0, 0xfe, 0xff, 0x2c, 0x01};
    expect_load(s, __LINE__, 2, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }",
                i16, 6, SG_I16, 1, (const int64_t[]){3});
    const double f64[2] = {1.5, -2.25};
    expect_load(s, __LINE__, 3, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), }",
                f64, 16, SG_F64, 2, (const int64_t[]){2, 1});
    const unsigned char bytes[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    expect_load(s, __LINE__, 1, " {\"shape\":( 2 ,3 ,),\"fortran_order\":False,\"descr\":\"<u2\"}  ",
                bytes, 12, SG_U16, 2, (const int64_t[]){2, 3});
    expect_load(s, __LINE__, 1, "{'descr': '<u1', 'fortran_order': False, 'shape': (3L, 4L), }",
                bytes, 12, SG_U8, 2, (const int64_t[]){3, 4});
    expect_load(s, __LINE__, 1, "{'descr':'|i1','fortran_order':False,'shape':(12,)}",
                bytes, 12, SG_I8, 1, (const int64_t[]){12});
    expect_load(s, __LINE__, 1, "{'descr': '|V2', 'fortran_order': False, 'shape': (), }",
                bytes, 2, SG_BF16, 0, NULL);
    expect_load(s, __LINE__, 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (0, 7), }",
                bytes, 0, SG_F16, 2, (const int64_t[]){0, 7});
}

/* Loading must fail with SG_ERR_IO, a "failed to read '<path>': " message
 * containing `word`, and leave the tensor untouched. */
static void expect_reject(suite *s, int line, const char *path, const char *word)
{
    static const char *const how[3] = {"load", "load mapped", "load header"};
    for (int k = 0; k < 3; k++) { /* the header alone is checked as strictly */
        sg_tensor t;
        sg_error err = {SG_OK, ""};
        char prefix[160];
        memset(&t, 0, sizeof t);
        t.rank = 77;
        sg_status st = k == 0   ? sg_npy_load(path, &t, &err)
                       : k == 1 ? sg_npy_load_map(path, 0, &t, &err)
                                : sg_npy_load_header(path, &t, &err);
        snprintf(prefix, sizeof prefix, "failed to read '%s': ", path);
        CHECK_AT(s, st == SG_ERR_IO && err.status == SG_ERR_IO, line, "%s: status %d for '%s'", how[k],
                 (int)st, word);
        CHECK_AT(s, strncmp(err.message, prefix, strlen(prefix)) == 0 && strstr(err.message, word), line,
                 "%s: message lacks '%s': %s", how[k], word, err.message);
        CHECK_AT(s, t.rank == 77 && t.data == NULL && t.map == NULL, line,
                 "%s: tensor changed on failure (%s)", how[k], word);
        sg_npy_release(&t);
    }
}

static void reject_npy(suite *s, int line, int major, const char *dict, size_t size,
                       const char *word)
{
    static const unsigned char zeros[64];
    char path[128];
    make_npy(s, "bad.npy", major, dict, zeros, size, path, sizeof path);
    expect_reject(s, line, path, word);
    unlink(path);
}

static void test_rejections(suite *s)
{
    char path[128];
    path_of(s, "magic.npy", path, sizeof path);
    spit(path, "\x93NUMPZ\x01\x00\x02\x00{}", 12);
    expect_reject(s, __LINE__, path, "magic");
    unlink(path);
    path_of(s, "missing.npy", path, sizeof path);
    expect_reject(s, __LINE__, path, "No such file");
    expect_reject(s, __LINE__, s->dir, "not a regular file");

    reject_npy(s, __LINE__, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
               "big-endian data ('>f4') is not supported; convert with arr.astype('<f4')");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24,
               "Fortran-order");
    reject_npy(s, __LINE__, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
               "'<c8'");
    reject_npy(s, __LINE__, 1, "{'descr': '=f4', 'fortran_order': False, 'shape': (2,), }", 8,
               "native byte order");
    reject_npy(s, __LINE__, 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16,
               "'|O'");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 12,
               "truncated data (shape (4,) of '<f4' needs 16 data bytes, file has 12)");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 17,
               "trailing bytes");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", 0,
               "negative dimension");
    reject_npy(s, __LINE__, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }",
               0, "overflows");
    reject_npy(s, __LINE__, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }",
               0, "64 bits");
    /* An empty array too: NumPy refuses any shape whose other dimensions overflow. */
    reject_npy(s, __LINE__, 1,
               "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 9999999999999999, 9999999999), }", 0,
               "data size overflows 64 bits (shape (0, 9999999999999999, 9999999999), '|u1')");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': False, }", 0, "lacks the key 'shape'");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", 4,
               "unexpected key 'x'");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4' 'fortran_order': False, 'shape': (), }", 4, "malformed");
    reject_npy(s, __LINE__, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1 2), }", 4, "malformed");
    reject_npy(s, __LINE__, 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4, "version 4.0");

    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '|u1', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < SG_MAX_RANK + 1; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "1, ");
    snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    reject_npy(s, __LINE__, 1, dict, 1, "rank exceeds the maximum (65 dimensions");

    /* A header length that points past the end of the file. */
    path_of(s, "short.npy", path, sizeof path);
    spit(path, "\x93NUMPY\x02\x00\xff\xff\xff\x00{}", 14);
    expect_reject(s, __LINE__, path, "ends inside the header");
    spit(path, "\x93NUMPY\x02\x00\xff\xff\xff\x7f{}", 14);
    expect_reject(s, __LINE__, path, "header length exceeds");
    unlink(path);
}

static void test_atomic(suite *s)
{
    char path[160];
    sg_error err = {SG_OK, ""};
    int64_t big_shape[1] = {1000};
    sg_tensor big = make_tensor(SG_F64, 1, big_shape), small = make_tensor(SG_I8, 0, NULL), out;
    memset(&out, 0, sizeof out);

    /* Into a folder that does not exist: an error, and no file anywhere. */
    int before = entries(s->dir);
    path_of(s, "nowhere/x.npy", path, sizeof path);
    sg_status st = sg_npy_store(path, &small, &err);
    CHECK(s, st == SG_ERR_IO && strstr(err.message, "does not exist") &&
                 strncmp(err.message, "failed to write '", 17) == 0,
          "write into a missing folder: status %d, %s", (int)st, err.message);
    CHECK(s, access(path, F_OK) != 0 && entries(s->dir) == before, "a failed write left a file");

    /* Onto a folder. */
    err = (sg_error){SG_OK, ""};
    st = sg_npy_store(s->dir, &small, &err);
    CHECK(s, st == SG_ERR_IO && strstr(err.message, "folder"), "write onto a folder: %s", err.message);
    CHECK(s, entries(s->dir) == before, "a failed write left a file");

    /* Replacing a bigger file leaves exactly the new one, with normal permissions. */
    err = (sg_error){SG_OK, ""};
    path_of(s, "over.npy", path, sizeof path);
    CHECK(s, sg_npy_store(path, &big, &err) == SG_OK, "first write: %s", err.message);
    CHECK(s, sg_npy_store(path, &small, &err) == SG_OK, "second write: %s", err.message);
    struct stat sb;
    mode_t mask = umask(022);
    umask(mask);
    memset(&sb, 0, sizeof sb);
    stat(path, &sb);
    CHECK(s, sb.st_size == 128 + 1, "replaced file has %lld bytes, want 129", (long long)sb.st_size);
    CHECK(s, (sb.st_mode & 0777) == (0666 & ~mask), "mode %o, want %o", (unsigned)(sb.st_mode & 0777),
          (unsigned)(0666 & ~mask));
    CHECK(s, sg_npy_load(path, &out, &err) == SG_OK && same_tensor(&small, &out),
          "replaced file does not hold the new tensor: %s", err.message);
    CHECK(s, entries(s->dir) == before + 1, "temporary files left behind (%d entries)", entries(s->dir));
    unlink(path);

    /* A tensor whose bytes do not match its shape is a usage error. */
    err = (sg_error){SG_OK, ""};
    small.bytes = 2;
    CHECK(s, sg_npy_store(path, &small, &err) == SG_ERR_USAGE && access(path, F_OK) != 0,
          "mismatched tensor was written: %s", err.message);
    free(big.data);
    free(small.data);
    sg_npy_release(&out);
}

/* Data from SG_NPY_MAP_MIN bytes on is mapped; a mapped tensor keeps its
 * bytes when the file is replaced, and a truncation while it is mapped
 * raises SIGBUS on access (what slicegen.h documents). */
static void test_mapped(suite *s)
{
    char path[160];
    sg_error err = {SG_OK, ""};
    int64_t shape[2] = {256, 1024};
    sg_tensor big = make_tensor(SG_U32, 2, shape), small = make_tensor(SG_I8, 0, NULL), t;
    memset(&t, 0, sizeof t);
    path_of(s, "mapped.npy", path, sizeof path);
    CHECK(s, big.bytes == SG_NPY_MAP_MIN && sg_npy_store(path, &big, &err) == SG_OK, "store: %s",
          err.message);
    if (!CHECK(s, sg_npy_load(path, &t, &err) == SG_OK, "load: %s", err.message))
        goto done;
    CHECK(s, t.map != NULL && same_tensor(&big, &t), "a 1 MiB tensor is not mapped, or differs");

    /* replaced by another file under the same name, as `run --in a --out a` does */
    CHECK(s, sg_npy_store(path, &small, &err) == SG_OK, "store over a mapped file: %s", err.message);
    CHECK(s, same_tensor(&big, &t), "the mapped tensor changed when its file was replaced");
    sg_npy_release(&t);

    /* truncated by someone else while mapped: SIGBUS in a child */
    CHECK(s, sg_npy_store(path, &big, &err) == SG_OK && sg_npy_load(path, &t, &err) == SG_OK && t.map,
          "store and map again: %s", err.message);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL);
        if (truncate(path, 128) != 0)
            _exit(3);
        volatile unsigned char last = ((const unsigned char *)t.data)[t.bytes - 1];
        (void)last;
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(s, pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS,
          "reading a mapped file cut short: status %#x, expected death by SIGBUS", (unsigned)status);
    sg_npy_release(&t);
done:
    unlink(path);
    free(big.data);
    free(small.data);
}

/* Temporary files are named after their output and listed for
 * sg_remove_temporary_files, at most 16 at a time. */
static void test_temporaries(suite *s)
{
    enum { N = 18 };
    sg_staged_file staged[N];
    char path[160], name[32];
    sg_error err = {SG_OK, ""};
    const void *part = "data";
    size_t size = 4;
    int before = entries(s->dir), listed = 0;
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "out%d.bin", i);
        path_of(s, name, path, sizeof path);
        CHECK(s, sg_file_stage(path, &part, &size, 1, &staged[i], &err) == SG_OK, "stage %d: %s", i,
              err.message);
        size_t len = strlen(path);
        CHECK(s,
              staged[i].tmp && strncmp(staged[i].tmp, path, len) == 0 &&
                  strncmp(staged[i].tmp + len, ".slicegen-tmp-", 14) == 0 &&
                  strlen(staged[i].tmp) == len + 20 && access(staged[i].tmp, F_OK) == 0,
              "temporary file '%s' is not named after '%s'", staged[i].tmp ? staged[i].tmp : "(null)", path);
        listed += staged[i].slot != 0;
    }
    CHECK(s, listed == 16 && entries(s->dir) == before + N, "%d of %d temporary files listed, %d entries",
          listed, N, entries(s->dir));
    sg_remove_temporary_files();
    CHECK(s, entries(s->dir) == before + N - 16, "after sg_remove_temporary_files: %d entries, want %d",
          entries(s->dir), before + N - 16);
    /* A removed temporary file cannot be committed; one not listed can. */
    err = (sg_error){SG_OK, ""};
    CHECK(s, sg_file_commit(&staged[0], &err) == SG_ERR_IO && strstr(err.message, "renaming"),
          "commit of a removed temporary file: %s", err.message);
    for (int i = 0; i < N; i++) {
        if (staged[i].slot == 0) {
            err = (sg_error){SG_OK, ""};
            CHECK(s, sg_file_commit(&staged[i], &err) == SG_OK, "commit of an unlisted file: %s",
                  err.message);
            unlink(staged[i].path);
        }
        sg_file_discard(&staged[i]);
    }
    CHECK(s, entries(s->dir) == before, "files left behind: %d entries, want %d", entries(s->dir), before);
    /* the slots are free again */
    path_of(s, "again.bin", path, sizeof path);
    err = (sg_error){SG_OK, ""};
    CHECK(s, sg_file_stage(path, &part, &size, 1, &staged[0], &err) == SG_OK && staged[0].slot != 0,
          "stage after discarding: %s", err.message);
    sg_file_discard(&staged[0]);
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char path[512];
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT, "/tmp/test_npy_XXXXXX"};
    if (!mkdtemp(s.dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip(&s);
    test_headers(&s);
    test_hand_made(&s);
    test_rejections(&s);
    test_atomic(&s);
    test_mapped(&s);
    test_temporaries(&s);
    CHECK(&s, entries(s.dir) == 0, "files left in %s", s.dir);
    remove_dir(s.dir);
    return finish("npy", &s.counts);
}

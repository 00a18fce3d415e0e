/*
 * NumPy .npy files, format 1.0, 2.0 and 3.0, little-endian, C order.
 *
 * Layout: "\x93NUMPY", major, minor, the header length (2 bytes little-endian
 * in 1.0, 4 bytes in 2.0 and 3.0), the header (a Python dict literal with the
 * keys 'descr', 'fortran_order' and 'shape', padded with spaces and ended by
 * '\n'), then the element bytes. Format 3.0 only allows a utf-8 header.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define MAGIC "\x93NUMPY"
#define MAX_HEADER (64u << 20)   /* refuse headers longer than 64 MiB */
#define ALIGN 64                 /* NumPy aligns the data to 64 bytes */
#define GROWTH_DIGITS 21         /* NumPy leaves room for shape[0] to grow */
/* "(d, d, ..., d)" for SG_MAX_RANK dimensions of up to 20 characters each */
#define SHAPE_TEXT (SG_MAX_RANK * 22 + 4)

/* Writes a shape as Python's repr of the tuple: "()", "(5,)", "(2, 3)".
 * buf holds SHAPE_TEXT bytes; rank is at most SG_MAX_RANK. */
static void format_shape(char *buf, size_t rank, const int64_t *shape)
{
    size_t n = 0;
    buf[n++] = '(';
    for (size_t i = 0; i < rank; i++)
        n += (size_t)snprintf(buf + n, SHAPE_TEXT - n, "%s%" PRId64,
                              i ? ", " : "", shape[i]);
    snprintf(buf + n, SHAPE_TEXT - n, rank == 1 ? ",)" : ")");
}

/* Elements times element size; 1 on 64-bit overflow. A zero dimension makes
 * the size 0, but the other dimensions must still multiply without overflow,
 * as NumPy requires of every array ("array is too big"). */
static int shape_bytes(size_t rank, const int64_t *shape, size_t elem, uint64_t *bytes)
{
    uint64_t n = elem;
    int overflow = 0, zero = 0;
    for (size_t i = 0; i < rank; i++) {
        if (shape[i] == 0)
            zero = 1;
        else
            overflow |= __builtin_mul_overflow(n, (uint64_t)shape[i], &n);
    }
    *bytes = zero ? 0 : n;
    return overflow;
}

/* Reads until n bytes or end of file; the count read, or -1 (errno set). */
static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = read(fd, (char *)buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

/* ---- the header dict ----------------------------------------------------- */

typedef struct header {
    const char *path;
    sg_error *err;
    const char *s;
    size_t n, pos;
    char descr[32];
    int fortran;
    size_t rank;   /* may exceed SG_MAX_RANK; only that many are stored */
    int64_t shape[SG_MAX_RANK];
} header;

/* The next non-blank character (not consumed), or -1 at the end. */
static int peek(header *h)
{
    while (h->pos < h->n && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' ||
                             h->s[h->pos] == '\n' || h->s[h->pos] == '\r'))
        h->pos++;
    return h->pos < h->n ? (unsigned char)h->s[h->pos] : -1;
}

static int eat(header *h, char c)
{
    if (peek(h) != (unsigned char)c)
        return 0;
    h->pos++;
    return 1;
}

static sg_status malformed(const header *h, const char *expected)
{
    return sg_fail(h->err, SG_ERR_IO,
                   "failed to read '%s': malformed .npy header (expected %s at header byte %zu)",
                   h->path, expected, h->pos);
}

/* A quoted string, truncated to cap - 1 characters. */
static sg_status string(header *h, char *out, size_t cap)
{
    int quote = peek(h);
    if (quote != '\'' && quote != '"')
        return malformed(h, "a quoted string");
    size_t start = ++h->pos;
    while (h->pos < h->n && h->s[h->pos] != quote)
        h->pos++;
    if (h->pos == h->n)
        return malformed(h, "a closing quote");
    size_t len = h->pos++ - start;
    len = len < cap ? len : cap - 1;
    memcpy(out, h->s + start, len);
    out[len] = '\0';
    return SG_OK;
}

static sg_status boolean(header *h, int *value)
{
    peek(h);
    size_t left = h->n - h->pos;
    if (left >= 4 && memcmp(h->s + h->pos, "True", 4) == 0)
        *value = 1, h->pos += 4;
    else if (left >= 5 && memcmp(h->s + h->pos, "False", 5) == 0)
        *value = 0, h->pos += 5;
    else
        return malformed(h, "True or False");
    return SG_OK;
}

/* A tuple of integers; a trailing comma and Python 2's "3L" are accepted. */
static sg_status shape(header *h)
{
    if (!eat(h, '('))
        return malformed(h, "'(' opening the shape");
    while (!eat(h, ')')) {
        if (h->rank > 0 && !eat(h, ','))
            return malformed(h, "',' or ')' in the shape");
        if (h->rank > 0 && eat(h, ')'))
            break;
        int negative = eat(h, '-');
        if (peek(h) < '0' || peek(h) > '9')
            return malformed(h, "a dimension");
        int64_t v = 0;
        while (h->pos < h->n && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
            if (__builtin_mul_overflow(v, 10, &v) ||
                __builtin_add_overflow(v, h->s[h->pos] - '0', &v))
                return sg_fail(h->err, SG_ERR_IO,
                               "failed to read '%s': dimension %zu of the shape does not fit in 64 bits",
                               h->path, h->rank);
            h->pos++;
        }
        if (h->pos < h->n && h->s[h->pos] == 'L')
            h->pos++;
        if (negative && v != 0)
            return sg_fail(h->err, SG_ERR_IO,
                           "failed to read '%s': negative dimension in the shape (-%" PRId64 " at axis %zu)",
                           h->path, v, h->rank);
        if (h->rank < SG_MAX_RANK)
            h->shape[h->rank] = v;
        h->rank++;
    }
    if (h->rank > SG_MAX_RANK)
        return sg_fail(h->err, SG_ERR_IO,
                       "failed to read '%s': rank exceeds the maximum (%zu dimensions, at most %d)",
                       h->path, h->rank, SG_MAX_RANK);
    return SG_OK;
}

static sg_status parse_header(header *h)
{
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    int seen[3] = {0, 0, 0};
    sg_status st;
    if (!eat(h, '{'))
        return malformed(h, "'{'");
    while (!eat(h, '}')) {
        char key[32];
        if ((st = string(h, key, sizeof key)) != SG_OK)
            return st;
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0)
            k++;
        if (k == 3 || seen[k])
            return sg_fail(h->err, SG_ERR_IO,
                           "failed to read '%s': %s key '%s' in the .npy header",
                           h->path, k == 3 ? "unexpected" : "repeated", key);
        seen[k] = 1;
        if (!eat(h, ':'))
            return malformed(h, "':' after a key");
        if (k == 0 && peek(h) == '[')
            return sg_fail(h->err, SG_ERR_IO,
                           "failed to read '%s': structured dtypes are not supported", h->path);
        st = k == 0 ? string(h, h->descr, sizeof h->descr)
           : k == 1 ? boolean(h, &h->fortran) : shape(h);
        if (st != SG_OK)
            return st;
        if (!eat(h, ',')) {
            if (!eat(h, '}'))
                return malformed(h, "',' or '}'");
            break;
        }
    }
    if (peek(h) != -1)
        return malformed(h, "the end of the header after '}'");
    for (int k = 0; k < 3; k++)
        if (!seen[k])
            return sg_fail(h->err, SG_ERR_IO,
                           "failed to read '%s': the .npy header lacks the key '%s'",
                           h->path, keys[k]);
    return SG_OK;
}

/* Maps a descr to a dtype. Byte order: '<' always, and any of '|', '=', '>'
 * where it cannot matter (1-byte types; '|V2' for bf16). */
static sg_status parse_descr(const char *path, const char *descr, sg_dtype *dtype,
                             sg_error *err)
{
    char order = descr[0];
    for (int d = 0; d < SG_DTYPE_COUNT && order != '\0'; d++) {
        if (strcmp(descr + 1, sg_dtype_npy((sg_dtype)d)) != 0)
            continue;
        int one_byte = sg_dtype_size((sg_dtype)d) == 1;
        if (order == '<' || (one_byte && strchr("|=>", order)) ||
            (order == '|' && d == SG_BF16)) {
            *dtype = (sg_dtype)d;
            return SG_OK;
        }
        if (order == '>')
            return sg_fail(err, SG_ERR_IO,
                           "failed to read '%s': big-endian data ('%s') is not supported; convert with arr.astype('<%s')",
                           path, descr, descr + 1);
        if (order == '=')
            return sg_fail(err, SG_ERR_IO,
                           "failed to read '%s': native byte order ('%s') is not portable; save with arr.astype('<%s')",
                           path, descr, descr + 1);
        break;
    }
    return sg_fail(err, SG_ERR_IO,
                   "failed to read '%s': unsupported dtype '%s' (supported: |b1, |i1, |u1, "
                   "<i2, <u2, <i4, <u4, <i8, <u8, <f2, <f4, <f8, and <V2 for bfloat16)",
                   path, descr);
}

/* ---- reading and writing ------------------------------------------------- */

/* An opened .npy file whose header has been read and checked against the
 * file's size: the data is the `bytes` bytes from `offset` to the end. */
typedef struct npy_file {
    int fd;
    uint64_t size, offset, bytes;
    sg_dtype dtype;
    size_t rank;
    int64_t shape[SG_MAX_RANK];
} npy_file;

/* Opens path and reads its header; on success f->fd is open and must be
 * closed. Nothing past the header is read. */
static sg_status npy_open(const char *path, npy_file *f, sg_error *err)
{
    sg_status st = SG_OK;
    char *text = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sg_fail(err, SG_ERR_IO, "failed to read '%s': %s", path, strerror(errno));

    struct stat sb;
    unsigned char pre[12];
    ssize_t got = 0;
    if (fstat(fd, &sb) != 0 || (S_ISREG(sb.st_mode) && (got = read_full(fd, pre, 8)) < 0)) {
        st = sg_fail(err, SG_ERR_IO, "failed to read '%s': %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = sg_fail(err, SG_ERR_IO, "failed to read '%s': not a regular file%s", path,
                     S_ISDIR(sb.st_mode) ? " (it is a folder)" : "");
        goto done;
    }
    if (sb.st_size == 0) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': the file is empty (a .npy file starts with \\x93NUMPY)", path);
        goto done;
    }
    if (got < 8 || memcmp(pre, MAGIC, 6) != 0) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': not a .npy file (bad magic; it must start with \\x93NUMPY)", path);
        goto done;
    }
    unsigned major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': unsupported .npy format version %u.%u (supported: 1.0, 2.0, 3.0)",
                     path, major, minor);
        goto done;
    }
    size_t lenbytes = major == 1 ? 2 : 4;
    if (read_full(fd, pre + 8, lenbytes) != (ssize_t)lenbytes) {
        st = sg_fail(err, SG_ERR_IO, "failed to read '%s': file ends inside the .npy preamble", path);
        goto done;
    }
    uint32_t hlen = pre[8] | (uint32_t)pre[9] << 8;
    if (lenbytes == 4)
        hlen |= (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    if (hlen > MAX_HEADER) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': header length exceeds the limit (%" PRIu32 " bytes, at most %u)",
                     path, hlen, MAX_HEADER);
        goto done;
    }
    uint64_t fsize = (uint64_t)sb.st_size, preamble = 8 + lenbytes + (uint64_t)hlen;
    if (fsize < preamble) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': file ends inside the header (file has %" PRIu64
                     " bytes, the header needs %" PRIu64 ")", path, fsize, preamble);
        goto done;
    }
    if (!(text = malloc(hlen + 1))) {
        st = sg_fail(err, SG_ERR_NOMEM, "failed to read '%s': out of memory for the header", path);
        goto done;
    }
    if (read_full(fd, text, hlen) != (ssize_t)hlen) {
        st = sg_fail(err, SG_ERR_IO, "failed to read '%s': file changed while being read", path);
        goto done;
    }

    header h = {.path = path, .err = err, .s = text, .n = hlen};
    sg_dtype dtype = SG_U8;
    uint64_t bytes;
    char dims[SHAPE_TEXT];
    if ((st = parse_header(&h)) != SG_OK || (st = parse_descr(path, h.descr, &dtype, err)) != SG_OK)
        goto done;
    if (h.fortran) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': Fortran-order arrays are not supported; save np.ascontiguousarray(arr)",
                     path);
        goto done;
    }
    format_shape(dims, h.rank, h.shape);
    if (shape_bytes(h.rank, h.shape, sg_dtype_size(dtype), &bytes) || bytes >= SIZE_MAX) {
        st = sg_fail(err, SG_ERR_IO, "failed to read '%s': data size overflows 64 bits (shape %s, '%s')",
                     path, dims, h.descr);
        goto done;
    }
    uint64_t actual = fsize - preamble;
    if (actual != bytes) {
        st = sg_fail(err, SG_ERR_IO,
                     "failed to read '%s': %s (shape %s of '%s' needs %" PRIu64 " data bytes, file has %" PRIu64 ")",
                     path, actual < bytes ? "truncated data" : "trailing bytes after the data",
                     dims, h.descr, bytes, actual);
        goto done;
    }
    *f = (npy_file){
        .fd = fd, .size = fsize, .offset = preamble, .bytes = bytes, .dtype = dtype, .rank = h.rank};
    memcpy(f->shape, h.shape, h.rank * sizeof h.shape[0]);
done:
    free(text);
    if (st != SG_OK)
        close(fd);
    return st;
}

static void describe(const npy_file *f, sg_tensor *tensor)
{
    memset(tensor, 0, sizeof *tensor);
    tensor->dtype = f->dtype;
    tensor->rank = f->rank;
    memcpy(tensor->shape, f->shape, f->rank * sizeof f->shape[0]);
    tensor->bytes = f->bytes;
}

sg_status sg_npy_load_header(const char *path, sg_tensor *tensor, sg_error *err)
{
    npy_file f;
    sg_status st = npy_open(path, &f, err);
    if (st != SG_OK)
        return st;
    close(f.fd);
    describe(&f, tensor);
    return SG_OK;
}

/* Maps the whole file read-only; NULL where the file system cannot (the
 * caller then reads it). A file whose size changed between the check of its
 * header and the mapping is an error: past that, a truncation shows as
 * SIGBUS (see sg_tensor in slicegen.h). */
static void *map_file(const char *path, const npy_file *f, sg_status *st, sg_error *err)
{
    if (f->size > SIZE_MAX)
        return NULL;
    void *base = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (base == MAP_FAILED)
        return NULL;
    struct stat sb;
    if (fstat(f->fd, &sb) != 0)
        *st = sg_fail(err, SG_ERR_IO, "failed to read '%s': %s", path, strerror(errno));
    else if ((uint64_t)sb.st_size != f->size)
        *st = sg_fail(err, SG_ERR_IO,
                      "failed to read '%s': file changed while being read (%" PRIu64
                      " bytes when opened, %lld now)",
                      path, f->size, (long long)sb.st_size);
    if (*st != SG_OK) {
        munmap(base, (size_t)f->size);
        return NULL;
    }
    return base;
}

sg_status sg_npy_load_map(const char *path, uint64_t map_min, sg_tensor *tensor, sg_error *err)
{
    npy_file f;
    sg_status st = SG_OK;
    void *data = NULL, *base = NULL;
    if ((st = npy_open(path, &f, err)) != SG_OK)
        return st;
    if (f.bytes > 0 && f.bytes >= map_min && (base = map_file(path, &f, &st, err)) != NULL) {
        data = (char *)base + f.offset;
    } else if (st == SG_OK) {
        if (!(data = malloc(f.bytes ? (size_t)f.bytes : 1))) {
            st = sg_fail(err, SG_ERR_NOMEM, "failed to read '%s': out of memory (%" PRIu64 " data bytes)",
                         path, f.bytes);
        } else {
            ssize_t got = read_full(f.fd, data, (size_t)f.bytes);
            if (got != (ssize_t)f.bytes) {
                st = sg_fail(err, SG_ERR_IO, "failed to read '%s': %s", path,
                             got < 0 ? strerror(errno) : "file changed while being read (it shrank)");
                free(data);
            }
        }
    }
    close(f.fd);
    if (st != SG_OK)
        return st;
    describe(&f, tensor);
    tensor->data = data;
    tensor->map = base;
    tensor->map_bytes = base ? (size_t)f.size : 0;
    return SG_OK;
}

sg_status sg_npy_load(const char *path, sg_tensor *tensor, sg_error *err)
{
    return sg_npy_load_map(path, SG_NPY_MAP_MIN, tensor, err);
}

void sg_npy_release(sg_tensor *tensor)
{
    if (tensor == NULL)
        return;
    if (tensor->map != NULL)
        munmap(tensor->map, tensor->map_bytes);
    else
        free(tensor->data);
    tensor->data = tensor->map = NULL;
    tensor->bytes = tensor->map_bytes = 0;
}

sg_status sg_npy_store(const char *path, const sg_tensor *tensor, sg_error *err)
{
    size_t elem = sg_dtype_size(tensor->dtype);
    if (elem == 0 || tensor->rank > SG_MAX_RANK)
        return sg_fail(err, SG_ERR_USAGE, "failed to write '%s': invalid tensor (dtype %d, rank %zu)",
                       path, (int)tensor->dtype, tensor->rank);
    for (size_t i = 0; i < tensor->rank; i++)
        if (tensor->shape[i] < 0)
            return sg_fail(err, SG_ERR_USAGE,
                           "failed to write '%s': negative dimension (%" PRId64 " at axis %zu)",
                           path, tensor->shape[i], i);
    char dims[SHAPE_TEXT];
    uint64_t bytes;
    format_shape(dims, tensor->rank, tensor->shape);
    if (shape_bytes(tensor->rank, tensor->shape, elem, &bytes) || bytes != tensor->bytes ||
        (bytes > 0 && tensor->data == NULL))
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to write '%s': tensor data does not match its shape (shape %s of %s, %"
                       PRIu64 " bytes given%s)", path, dims, sg_dtype_name(tensor->dtype),
                       tensor->bytes, tensor->data ? "" : ", data NULL");

    /* The dict exactly as NumPy's np.save writes it, with its growth room. */
    char dict[SHAPE_TEXT + 128];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': %s, }",
                     elem == 1 ? '|' : '<', sg_dtype_npy(tensor->dtype), dims);
    if (tensor->rank > 0) {
        int first = snprintf(NULL, 0, "%" PRId64, tensor->shape[0]);
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%*s", GROWTH_DIGITS - first, "");
    }
    size_t len = (size_t)n;

    /* Version 1.0 unless the padded header needs more than 16 bits. */
    size_t prefix = 10;
    size_t pad = ALIGN - (prefix + len + 1) % ALIGN;
    if (len + pad + 1 > 0xffff) {
        prefix = 12;
        pad = ALIGN - (prefix + len + 1) % ALIGN;
    }
    size_t hlen = len + pad + 1, total = prefix + hlen;
    char pre[12 + sizeof dict + ALIGN + 1];
    memcpy(pre, MAGIC, 6);
    pre[6] = prefix == 10 ? 1 : 2;
    pre[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        pre[8 + i] = (char)(hlen >> (8 * i) & 0xff);
    memcpy(pre + prefix, dict, len);
    memset(pre + prefix + len, ' ', pad);
    pre[total - 1] = '\n';

    const void *parts[2] = {pre, tensor->data};
    size_t sizes[2] = {total, (size_t)bytes};
    return sg_write_file_atomic(path, parts, sizes, 2, err);
}

/* A static archive of one object, in the System V / GNU ar format that
 * binutils, lld and every Unix linker read:
 *
 *     "!<arch>\n"
 *     "/"  member: the symbol index (big-endian count, member offsets, names)
 *     "//" member: long member names, when the object's name is over 15 bytes
 *     the object member
 *
 * Each member has a 60-byte text header and starts at an even offset. Dates,
 * owners and modes are fixed (as `ar D` writes them), so the same input
 * gives the same bytes. */
#define SG_CODEGEN_INTERNAL
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

enum { HEADER = 60 };

static size_t even(size_t n)
{
    return n + (n & 1);
}

/* Writes a member header at p: name of at most 16 bytes, size < 10^10. */
static void member_header(char *p, const char *name, size_t size)
{
    char h[128];
    snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644", size);
    memcpy(p, h, HEADER);
}

static void put_be32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24), p[1] = (char)(v >> 16), p[2] = (char)(v >> 8), p[3] = (char)v;
}

sg_status sg_archive(const char *member, const void *object, size_t size, const char *const *symbols,
                     size_t nsymbols, void **bytes, size_t *len, sg_error *err)
{
    size_t name_len = strlen(member), names = 0;
    for (size_t i = 0; i < nsymbols; i++)
        names += strlen(symbols[i]) + 1;
    bool long_name = name_len > 15;
    size_t index_size = 4 + 4 * nsymbols + names;
    size_t long_size = long_name ? name_len + 2 : 0; /* "name/\n" */
    size_t object_at = 8 + HEADER + even(index_size) + (long_name ? HEADER + even(long_size) : 0);
    size_t total = object_at + HEADER + even(size);
    if (object_at + HEADER > UINT32_MAX || nsymbols > UINT32_MAX || size >= 9999999999u)
        return sg_fail(err, SG_ERR_INTERNAL,
                       "failed to make archive: %zu bytes of index and %zu of code are too large", object_at,
                       size);
    char *a = malloc(total);
    if (a == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make archive: out of memory for %zu bytes", total);
    memset(a, '\n', total); /* the padding byte of odd-sized members */
    char *p = a;
    memcpy(p, "!<arch>\n", 8);
    p += 8;

    member_header(p, "/", index_size);
    p += HEADER;
    put_be32(p, (uint32_t)nsymbols);
    p += 4;
    for (size_t i = 0; i < nsymbols; i++, p += 4)
        put_be32(p, (uint32_t)object_at);
    for (size_t i = 0; i < nsymbols; i++) {
        size_t n = strlen(symbols[i]) + 1;
        memcpy(p, symbols[i], n);
        p += n;
    }
    p = a + 8 + HEADER + even(index_size);

    char name[32];
    if (long_name) {
        member_header(p, "//", long_size);
        p += HEADER;
        memcpy(p, member, name_len);
        memcpy(p + name_len, "/\n", 2);
        p += even(long_size);
        snprintf(name, sizeof name, "/0");
    } else {
        snprintf(name, sizeof name, "%s/", member);
    }
    member_header(p, name, size);
    memcpy(p + HEADER, object, size);
    *bytes = a;
    *len = total;
    return SG_OK;
}

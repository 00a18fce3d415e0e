/* The error record shared by every stage, and quoting user text in its
 * messages. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

sg_status sg_fail(sg_error *err, sg_status status, const char *fmt, ...)
{
    if (err != NULL && err->status == SG_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

const char *sg_status_name(sg_status status)
{
    switch (status) {
    case SG_OK: return "ok";
    case SG_ERR_USAGE: return "usage";
    case SG_ERR_SPEC: return "spec";
    case SG_ERR_SLICE: return "slice";
    case SG_ERR_IO: return "io";
    case SG_ERR_NOMEM: return "nomem";
    case SG_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}

/* ---- quoting user text ------------------------------------------------------- */

size_t sg_utf8_length(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    unsigned char c = s[0];
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 1;
    /* the second byte's range excludes overlong forms, surrogates and code points past U+10FFFF */
    unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    if (n > 1 && (s[1] < lo || s[1] > hi))
        return 1;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

/* Whether the character of n bytes at p is shown as \xHH: a byte that is
 * not UTF-8, or a control character. */
static bool escaped(const char *p, size_t n)
{
    unsigned char c = (unsigned char)*p;
    return n == 1 && (c < 0x20 || c >= 0x7F);
}

/* The bytes of the character at text[i] within text[0, len). */
static size_t char_at(const char *text, size_t i, size_t len)
{
    size_t n = sg_utf8_length(text + i);
    return n < len - i ? n : len - i;
}

/* How many bytes the character of n bytes at p takes as shown. */
static size_t shown_size(const char *p, size_t n)
{
    return escaped(p, n) ? 4 : n;
}

size_t sg_utf8_column(const char *text, size_t at)
{
    size_t column = 1;
    for (size_t i = 0; i < at && text[i] != '\0'; i += sg_utf8_length(text + i))
        column++;
    return column;
}

const char *sg_char_text(const char *p, char out[SG_CHAR_TEXT])
{
    size_t n = sg_utf8_length(p);
    if (escaped(p, n))
        snprintf(out, SG_CHAR_TEXT, "\\x%02x", (unsigned char)*p);
    else
        snprintf(out, SG_CHAR_TEXT, "%.*s", (int)n, p);
    return out;
}

const char *sg_quote(const char *text, size_t len, size_t at, size_t side, char *buf)
{
    assert(side >= 1 && side <= SG_QUOTE_SIDE_MAX);
    size_t whole = 0, start = 0, end = len, out = 0, n;
    for (size_t i = 0; i < len; i += n)
        whole += shown_size(text + i, n = char_at(text, i, len));
    if (whole > 4 * side) {
        /* Left: back `side` characters from `at` (a ring of the starts of the
         * last ones), then fewer while they show as more than 2 x side bytes. */
        size_t ring[SG_QUOTE_SIDE_MAX], count = 0, shown = 0;
        at = at < len ? at : len;
        for (size_t i = 0; i < at; i += char_at(text, i, len))
            ring[count++ % side] = i;
        start = count == 0 ? at : ring[count > side ? count % side : 0];
        for (size_t i = start; i < at; i += n)
            shown += shown_size(text + i, n = char_at(text, i, len));
        for (; shown > 2 * side; start += n)
            shown -= shown_size(text + start, n = char_at(text, start, len));
        /* Right: the character at `at` and up to `side` more, in 2 x side bytes. */
        shown = 0;
        end = at;
        for (size_t k = 0; k <= side && end < len; k++, end += n) {
            n = char_at(text, end, len);
            if (k > 0 && shown + shown_size(text + end, n) > 2 * side)
                break;
            shown += shown_size(text + end, n);
        }
    }
    if (start > 0)
        out += (size_t)sprintf(buf, "...");
    for (size_t i = start; i < end; i += n) {
        n = char_at(text, i, len);
        if (escaped(text + i, n))
            out += (size_t)sprintf(buf + out, "\\x%02x", (unsigned char)text[i]);
        else
            out += (size_t)sprintf(buf + out, "%.*s", (int)n, text + i);
    }
    strcpy(buf + out, end < len ? "..." : "");
    return buf;
}

sg_status sg_syntax_error(sg_error *err, const char *noun, const char *text, size_t at, const char *what)
{
    char q[SG_QUOTE_BUF(SG_QUOTE_SIDE)], c[SG_CHAR_TEXT];
    const char *quoted = sg_quote(text, strlen(text), at, SG_QUOTE_SIDE, q);
    size_t column = sg_utf8_column(text, at);
    if (text[at] == '\0')
        return sg_fail(err, SG_ERR_SPEC, "failed to parse %s '%s': %s at column %zu (end of text)", noun,
                       quoted, what, column);
    return sg_fail(err, SG_ERR_SPEC, "failed to parse %s '%s': %s at column %zu ('%s')", noun, quoted, what,
                   column, sg_char_text(text + at, c));
}

const char *sg_dims_text(const int64_t *dims, size_t rank, int64_t unknown, char buf[SG_DIMS_TEXT_BUF])
{
    size_t n = 1;
    strcpy(buf, "[");
    for (size_t i = 0; i < rank; i++) {
        char dim[24];
        if (dims[i] == unknown)
            strcpy(dim, "?");
        else
            snprintf(dim, sizeof dim, "%lld", (long long)dims[i]);
        if (n + strlen(dim) + 8 > SG_DIMS_TEXT_BUF) {
            strcpy(buf + n, i ? ", ..." : "...");
            n += strlen(buf + n);
            break;
        }
        n += (size_t)snprintf(buf + n, SG_DIMS_TEXT_BUF - n, "%s%s", i ? ", " : "", dim);
    }
    strcpy(buf + n, "]");
    return buf;
}

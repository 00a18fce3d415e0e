/* Comma-separated integer lists ("L") and bit lists ("B") of the command
 * line and of OpenVINO IR attributes. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

static sg_status parse_list(const char *text, const char *what, int bits_only,
                            int64_t **values, size_t *len, sg_error *err)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    int64_t *out = NULL;
    size_t n = 0;
    char item[32];
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == '\0') {
        *values = NULL;
        *len = 0;
        return SG_OK;
    }
    out = malloc(cap * sizeof *out);
    if (out == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to parse %s: out of memory", what);
    for (;;) {
        const char *start = p;
        while (*p != ',' && *p != '\0')
            p++;
        size_t k = (size_t)(p - start);
        while (k > 0 && start[k - 1] == ' ')
            k--;
        while (k > 0 && *start == ' ')
            start++, k--;
        int64_t v = 0;
        int ok = k > 0 && k < sizeof item;
        if (ok) {
            memcpy(item, start, k);
            item[k] = '\0';
            ok = sg_parse_int64(item, &v);
        }
        if (!ok) {
            char list[SG_QUOTE_BUF(SG_QUOTE_SIDE)], shown[SG_QUOTE_BUF(12)];
            free(out);
            return sg_fail(err, SG_ERR_USAGE,
                           "failed to parse %s: item %zu of '%s' is not a 64-bit integer (%s)", what, n + 1,
                           sg_quote(text, strlen(text), (size_t)(start - text), SG_QUOTE_SIDE, list),
                           sg_quote(start, k, 0, 12, shown));
        }
        if (bits_only && v != 0 && v != 1) {
            free(out);
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to parse %s: mask values must be 0 or 1 (item %zu is %lld)",
                           what, n + 1, (long long)v);
        }
        out[n++] = v;
        if (*p == '\0')
            break;
        p++; /* the comma */
    }
    *values = out;
    *len = n;
    return SG_OK;
}

sg_status sg_parse_int_list(const char *text, const char *what, int64_t **values,
                            size_t *len, sg_error *err)
{
    return parse_list(text, what, 0, values, len, err);
}

sg_status sg_parse_mask_list(const char *text, const char *what, int64_t **values,
                             size_t *len, sg_error *err)
{
    return parse_list(text, what, 1, values, len, err);
}

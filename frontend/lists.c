/* Comma-separated integer lists ("L") and bit lists ("B") of the command
 * line and of OpenVINO IR attributes, and L lists whose items may name
 * runtime values. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

/* Parses the list; with a table, identifier items are names of runtime
 * values (refs as sg_parse_value_list), else they are not integers. */
static sg_status parse_list(const char *text, const char *what, bool bits_only, sg_value_table *table,
                            int64_t **values, uint16_t **refs, size_t *len, sg_error *err)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    int64_t *out = NULL;
    uint16_t *out_refs = NULL;
    size_t n = 0;
    char item[32];
    char list[SG_QUOTE_BUF(SG_QUOTE_SIDE)], shown[SG_QUOTE_BUF(12)];
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == '\0') {
        *values = NULL;
        if (refs != NULL)
            *refs = NULL;
        *len = 0;
        return SG_OK;
    }
    out = malloc(cap * sizeof *out);
    out_refs = table ? calloc(cap, sizeof *out_refs) : NULL;
    if (out == NULL || (table != NULL && out_refs == NULL)) {
        free(out);
        free(out_refs);
        return sg_fail(err, SG_ERR_NOMEM, "failed to parse %s: out of memory", what);
    }
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
        const char *why = NULL;
        sg_status status = SG_OK;
        if (table != NULL && k > 0 && sg_identifier_length(start) == k) {
            status = sg_value_table_ref(table, start, k, &out_refs[n], &why);
        } else if (k == 0 || k >= sizeof item) {
            status = SG_ERR_USAGE;
        } else {
            memcpy(item, start, k);
            item[k] = '\0';
            status = sg_parse_int64(item, &v) ? SG_OK : SG_ERR_USAGE;
        }
        if (status != SG_OK) {
            free(out);
            free(out_refs);
            sg_quote(text, strlen(text), (size_t)(start - text), SG_QUOTE_SIDE, list);
            sg_quote(start, k, 0, 12, shown);
            if (why != NULL)
                return sg_fail(err, status, "failed to parse %s: item %zu of '%s': %s (%s)", what, n + 1,
                               list, why, shown);
            return sg_fail(err, status, "failed to parse %s: item %zu of '%s' is not a 64-bit integer%s (%s)",
                           what, n + 1, list, table ? " or a runtime value name" : "", shown);
        }
        if (bits_only && v != 0 && v != 1) {
            free(out);
            free(out_refs);
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
    if (refs != NULL)
        *refs = out_refs;
    *len = n;
    return SG_OK;
}

sg_status sg_parse_int_list(const char *text, const char *what, int64_t **values,
                            size_t *len, sg_error *err)
{
    return parse_list(text, what, false, NULL, values, NULL, len, err);
}

sg_status sg_parse_mask_list(const char *text, const char *what, int64_t **values,
                             size_t *len, sg_error *err)
{
    return parse_list(text, what, true, NULL, values, NULL, len, err);
}

sg_status sg_parse_value_list(const char *text, const char *what, bool bits, sg_value_table *table,
                              int64_t **values, uint16_t **refs, size_t *len, sg_error *err)
{
    return parse_list(text, what, bits, table, values, refs, len, err);
}

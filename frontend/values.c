/* The names of runtime values: identifiers, and the table that numbers
 * them in order of first appearance while a spec is made. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

_Static_assert(SG_VALUE_NAME_MAX == 63 && SG_MAX_VALUES == 256, "the messages below name the limits");
_Static_assert(SG_MAX_VALUES < UINT16_MAX, "a reference k + 1 fits in 16 bits");

static bool identifier_char(char c, bool first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
}

size_t sg_identifier_length(const char *p)
{
    size_t n = 0;
    while (identifier_char(p[n], n == 0))
        n++;
    return n;
}

sg_status sg_value_table_ref(sg_value_table *table, const char *name, size_t len, uint16_t *ref,
                             const char **why)
{
    for (size_t k = 0; k < table->count; k++) {
        if (strlen(table->names[k]) == len && memcmp(table->names[k], name, len) == 0) {
            *ref = (uint16_t)(k + 1);
            return SG_OK;
        }
    }
    if (len > SG_VALUE_NAME_MAX) {
        *why = "a runtime value name has at most 63 bytes";
        return SG_ERR_SPEC;
    }
    if (table->count == SG_MAX_VALUES) {
        *why = "a spec names at most 256 runtime values";
        return SG_ERR_SPEC;
    }
    char *copy = malloc(len + 1);
    char **names = copy ? realloc(table->names, (table->count + 1) * sizeof *names) : NULL;
    if (names == NULL) {
        free(copy);
        *why = "out of memory";
        return SG_ERR_NOMEM;
    }
    memcpy(copy, name, len);
    copy[len] = '\0';
    names[table->count++] = copy;
    table->names = names;
    *ref = (uint16_t)table->count;
    return SG_OK;
}

void sg_value_table_free(sg_value_table *table)
{
    for (size_t k = 0; k < table->count; k++)
        free(table->names[k]);
    free(table->names);
    *table = (sg_value_table){0};
}

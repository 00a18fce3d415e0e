/* The store settings' names (stores.def): sg_stores_name, sg_stores_parse. */
#include <string.h>

#include "common.h"

static const char *const stores_names[] = {
#define SG_STORES(id, name) name,
#include "stores.def"
#undef SG_STORES
};
enum {
#define SG_STORES(id, ...) id##_ROW,
#include "stores.def"
#undef SG_STORES
    STORES_ROWS
};
#define SG_STORES(id, ...) _Static_assert((int)id##_ROW == (int)id, #id " is out of sg_stores's order in stores.def");
#include "stores.def"
#undef SG_STORES

const char *sg_stores_name(sg_stores stores)
{
    return (unsigned)stores < STORES_ROWS ? stores_names[stores] : NULL;
}

bool sg_stores_parse(const char *name, sg_stores *stores)
{
    for (int k = 0; name != NULL && k < STORES_ROWS; k++)
        if (strcmp(name, stores_names[k]) == 0) {
            *stores = (sg_stores)k;
            return true;
        }
    return false;
}

/* The error record shared by every stage. */
#include <stdarg.h>

#include "frontend.h"

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

/* The reference interpreter: the oracle every generated kernel is tested
 * against. It walks the output element by element in C order and computes
 * each input index from the shape-inference layer of the plan (the affine
 * index or the TensorRT mode formula), never from the folded loop nest. */
#include <string.h>

#include "runtime.h"

void sg_interpret(const sg_plan *p, const void *in, void *out)
{
    const unsigned char *src = in;
    unsigned char *dst = out;
    int64_t axis_stride[SG_MAX_RANK], y[SG_MAX_RANK] = {0};
    int64_t stride = (int64_t)p->elem_size;
    for (size_t a = p->in_rank; a-- > 0;) {
        axis_stride[a] = stride;
        stride *= p->in_shape[a];
    }
    int64_t fixed_offset = 0;
    for (size_t f = 0; f < p->nfixed; f++)
        fixed_offset += p->fixed[f].index * axis_stride[p->fixed[f].in_axis];

    for (int64_t e = 0; e < p->out_count; e++) {
        int64_t offset = fixed_offset;
        bool fill = false;
        for (size_t i = 0; i < p->out_rank && !fill; i++) {
            if (p->map[i].in_axis < 0)
                continue;
            int64_t index = sg_plan_axis_index(p, i, y[i]);
            fill = index < 0;
            offset += index * axis_stride[p->map[i].in_axis];
        }
        memcpy(dst + e * (int64_t)p->elem_size, fill ? p->fill : src + offset, p->elem_size);
        for (size_t i = p->out_rank; i-- > 0;) { /* next output coordinate */
            if (++y[i] < p->out_shape[i])
                break;
            y[i] = 0;
        }
    }
}

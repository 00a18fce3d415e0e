/* The reference interpreter: the oracle every generated kernel is tested
 * against. It walks the output element by element in C order and computes
 * each input index from the shape-inference layer of the plan (the affine
 * index or the TensorRT mode formula), never from the folded loop nest. A
 * program's plan is walked part by part, each element of a part's box at
 * its place in the whole output. */
#include <string.h>

#include "runtime.h"

/* p's elements into out, element y at byte sum(y[i] * out_strides[i]). */
static void interpret(const sg_plan *p, const void *in, unsigned char *dst, const int64_t *out_strides)
{
    const unsigned char *src = in;
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
        int64_t offset = fixed_offset, at = 0;
        bool fill = false;
        for (size_t i = 0; i < p->out_rank; i++) {
            at += y[i] * out_strides[i];
            if (p->map[i].in_axis < 0 || fill)
                continue;
            int64_t index = sg_plan_axis_index(p, i, y[i]);
            fill = index < 0;
            offset += index * axis_stride[p->map[i].in_axis];
        }
        memcpy(dst + at, fill ? p->fill : src + offset, p->elem_size);
        for (size_t i = p->out_rank; i-- > 0;) { /* next output coordinate */
            if (++y[i] < p->out_shape[i])
                break;
            y[i] = 0;
        }
    }
}

void sg_interpret(const sg_plan *p, const void *in, void *out)
{
    if (p->op == SG_OP_PROGRAM) {
        for (size_t k = 0; k < p->nparts; k++)
            interpret(p->parts[k].plan, in, (unsigned char *)out + p->parts[k].out_offset,
                      p->parts[k].plan->out_strides);
        return;
    }
    int64_t strides[SG_MAX_RANK], stride = (int64_t)p->elem_size;
    for (size_t i = p->out_rank; i-- > 0;) {
        strides[i] = stride;
        stride *= p->out_shape[i];
    }
    interpret(p, in, out, strides);
}

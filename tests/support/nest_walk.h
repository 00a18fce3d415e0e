/* The loop-nest semantics of planner/planner.h, run directly over bytes:
 * the oracle for loop nests that do not come from the planner (written by
 * hand, or read from plan text). nest_walk(plan, 0, in + plan->base, out)
 * writes the whole output. */
#ifndef SG_TESTS_NEST_WALK_H
#define SG_TESTS_NEST_WALK_H

#include <string.h>

#include "../../planner/planner.h"

static void nest_walk(const sg_plan *p, size_t level, const unsigned char *in, unsigned char *out)
{
    if (level == p->nloops) {
        memcpy(out, in, (size_t)p->run_bytes);
        return;
    }
    const sg_loop *l = &p->loops[level];
    if (l->nseg == 0) {
        for (int64_t i = 0; i < l->extent; i++)
            nest_walk(p, level + 1, in + i * l->in_stride, out + i * l->out_stride);
        return;
    }
    int64_t i = 0;
    for (size_t k = l->seg0; i < l->extent; k = k + 1 < l->seg0 + l->nseg ? k + 1 : l->seg0) { /* periods */
        const sg_segment *s = &p->segs[k];
        for (int64_t j = 0; j < s->count && i < l->extent; j++, i++) {
            if (s->fill)
                for (int64_t b = 0; b < l->out_stride; b += (int64_t)p->elem_size)
                    memcpy(out + i * l->out_stride + b, p->fill, p->elem_size);
            else
                nest_walk(p, level + 1, in + s->in_offset + j * s->in_step, out + i * l->out_stride);
        }
    }
}

#endif

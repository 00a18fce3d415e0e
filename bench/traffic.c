/* The memory traffic of a plan: the input lines its loop nest reads, marked
 * in a bitmap by walking the nest as planner.h defines it, plus the output.
 * A program's plan has no nest of its own: the nests of its parts, which
 * read the same input, are walked into one bitmap (a line two parts read
 * counts once), and the output is counted once. */
#include <stdlib.h>

#include "bench.h"

typedef struct walk {
    const sg_plan *plan;
    uint64_t *lines; /* one bit per input line */
} walk;

/* Marks the lines of the run at input byte offset `at`. */
static void mark(const walk *w, int64_t at)
{
    uint64_t first = (uint64_t)at / SG_BENCH_LINE;
    uint64_t last = ((uint64_t)at + (uint64_t)w->plan->run_bytes - 1) / SG_BENCH_LINE;
    for (uint64_t l = first; l <= last; l++)
        w->lines[l / 64] |= (uint64_t)1 << (l % 64);
}

static void visit(const walk *w, size_t level, int64_t at)
{
    const sg_plan *p = w->plan;
    if (level == p->nloops) {
        mark(w, at);
        return;
    }
    const sg_loop *l = &p->loops[level];
    if (l->nseg == 0) {
        for (int64_t i = 0; i < l->extent; i++)
            visit(w, level + 1, at + i * l->in_stride);
        return;
    }
    /* The segments cover the extent, or one period that repeats (iteration
     * i runs as i mod period): the later periods read the same bytes. */
    for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++) {
        const sg_segment *s = &p->segs[k];
        if (s->fill)
            continue;
        for (int64_t i = 0; i < s->count; i++)
            visit(w, level + 1, at + s->in_offset + i * s->in_step);
    }
}

sg_status sg_bench_traffic(const sg_plan *plan, uint64_t *traffic_bytes, sg_error *err)
{
    uint64_t nlines = (plan->in_bytes + SG_BENCH_LINE - 1) / SG_BENCH_LINE;
    if (plan->out_count == 0 || nlines == 0) {
        *traffic_bytes = plan->out_bytes;
        return SG_OK;
    }
    walk w = {plan, calloc((size_t)((nlines + 63) / 64), sizeof(uint64_t))};
    if (w.lines == NULL)
        return sg_fail(err, SG_ERR_NOMEM,
                       "failed to count the traffic of a plan: out of memory for %llu lines",
                       (unsigned long long)nlines);
    if (plan->op != SG_OP_PROGRAM)
        visit(&w, 0, plan->base);
    for (size_t k = 0; plan->op == SG_OP_PROGRAM && k < plan->nparts; k++) {
        w.plan = plan->parts[k].plan;
        /* a fill part reads nothing (its input is an empty axis) */
        if (w.plan->in_count > 0 && w.plan->out_count > 0)
            visit(&w, 0, w.plan->base);
    }
    uint64_t read = 0;
    for (uint64_t i = 0; i < (nlines + 63) / 64; i++)
        read += (uint64_t)__builtin_popcountll(w.lines[i]);
    free(w.lines);
    *traffic_bytes = read * SG_BENCH_LINE + plan->out_bytes;
    return SG_OK;
}

/* The canonical nest of a plan as bytes: the kernel cache key and the hash
 * in symbol names. No LLVM here. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

sg_outer sg_nest_outer(const sg_plan *plan)
{
    sg_outer o = {0};
    if (plan->op == SG_OP_PROGRAM && plan->sym) /* a concatenate of runtime values: its parts', per call */
        return (sg_outer){0, -1, 0};
    if (plan->op == SG_OP_PROGRAM) { /* the parts' outer ranges in lockstep, or laid end to end */
        if (sg_program_lockstep(plan, &o.extent))
            return o;
        for (size_t k = 0; k < plan->nparts; k++)
            o.extent += sg_nest_outer(plan->parts[k].plan).extent;
        return o;
    }
    if (plan->sym) /* numbers from the prologue: the outermost loop (or two, per call), or pieces of the run
                    */
        return (sg_outer){plan->nloops ? 1 : 0, -1, plan->nloops ? -1 : SG_RUN_PIECE};
    bool split = plan->out_bytes >= SG_SPLIT_OUTPUT;
    if (plan->out_count == 0)
        return o;
    /* One contiguous block: a lone run, or the planner's chunks of one */
    const sg_loop *l = &plan->loops[0];
    bool block = plan->nloops == 0 || (plan->nloops == 1 && l->nseg == 0 && l->in_stride == plan->run_bytes &&
                                       l->out_stride == plan->run_bytes && l->extent < SG_SPLIT_STEPS);
    if (block && (plan->nloops == 0 || split)) {
        int64_t bytes = (int64_t)plan->out_bytes;
        bool pieces = split && bytes > SG_RUN_PIECE;
        o.step_bytes = pieces ? SG_RUN_PIECE : bytes;
        o.extent = pieces ? (bytes + SG_RUN_PIECE - 1) / SG_RUN_PIECE : 1;
        return o;
    }
    o.levels = 1;
    o.extent = plan->loops[0].extent;
    while (split && o.extent < SG_SPLIT_STEPS && o.levels < plan->nloops &&
           plan->loops[o.levels - 1].nseg == 0)
        o.extent *= plan->loops[o.levels++].extent;
    o.step_bytes = plan->loops[o.levels - 1].out_stride;
    return o;
}

bool sg_program_lockstep(const sg_plan *plan, int64_t *extent)
{
    if (plan->op != SG_OP_PROGRAM || plan->nparts < 2)
        return false;
    int64_t e = sg_nest_outer(plan->parts[0].plan).extent;
    for (size_t k = 1; k < plan->nparts; k++)
        if (sg_nest_outer(plan->parts[k].plan).extent != e)
            return false;
    *extent = e;
    return e > 1;
}

int64_t sg_nest_outer_extent(const sg_plan *plan)
{
    return sg_nest_outer(plan).extent;
}

/* `times` pieces of `bytes` output bytes, each stored at once and each
 * ending where the next begins. Where the target streams pieces of any
 * size from nt_min bytes on (sg_target.nt_min_bytes), a piece has
 * ordinary stores only where its bytes are not whole nt_min units (a u8 or
 * f16 piece of an odd count of units: its 1- or 2-byte pieces). Else a
 * piece streamed has ordinary stores only in the line where it meets the
 * next one (ragged ends), and one shorter than the streamed minimum is
 * stored with ordinary ones only, in that line and every other line it
 * covers. */
static void stream_piece(sg_stream_lines *s, double bytes, const sg_stream_target *t, double times)
{
    if (bytes <= 0)
        return;
    s->lines += times * bytes / SG_LINE_BYTES;
    if (t->nt_min > 0) {
        if ((int64_t)bytes % t->nt_min != 0)
            s->mixed += times;
        return;
    }
    s->mixed += times;
    if (bytes < (double)(SG_STREAM_VECTORS * t->vector_bytes))
        s->mixed += times * (double)(((int64_t)bytes + SG_LINE_BYTES - 1) / SG_LINE_BYTES - 1);
}

/* The stretches of contiguous output that the box of `part` covers: the
 * count of its rows over the output's dimensions that it spans whole. */
static double part_stretches(const sg_plan *plan, const sg_part *part)
{
    const sg_plan *q = part->plan;
    size_t j = plan->out_rank;
    while (j > 0 && q->out_shape[j - 1] == plan->out_shape[j - 1])
        j--;
    double stretches = 1;
    for (size_t i = 0; i + 1 < j; i++)
        stretches *= (double)q->out_shape[i];
    return q->out_count > 0 ? stretches : 0;
}

static double program_stretches(const sg_plan *plan)
{
    double stretches = 0;
    for (size_t k = 0; k < plan->nparts; k++)
        stretches += part_stretches(plan, &plan->parts[k]);
    return stretches;
}

static bool parts_whole(const sg_plan *plan, sg_stream_target t, double stretches)
{
    return t.nt_min > 0 && stretches * SG_STREAM_LINES_PER_MIXED <= (double)plan->out_bytes / SG_LINE_BYTES;
}

bool sg_program_parts_whole(const sg_plan *plan, sg_stream_target t)
{
    return parts_whole(plan, t, program_stretches(plan));
}

sg_stream_lines sg_nest_stream_lines(const sg_plan *plan, sg_stream_target t)
{
    sg_stream_lines s = {0, 0, 0};
    if (plan->op == SG_OP_PROGRAM) {
        /* A program's parts meet inside lines, each part's pieces stored
         * apart from the others': they stream whole pieces where they meet
         * in few lines (counted mixed), else whole lines only. */
        double stretches = program_stretches(plan);
        bool whole = parts_whole(plan, t, stretches);
        sg_stream_target parts = {t.vector_bytes, whole ? t.nt_min : 0};
        if (whole)
            s.mixed += stretches;
        for (size_t k = 0; k < plan->nparts; k++) {
            sg_stream_lines part = sg_nest_stream_lines(plan->parts[k].plan, parts);
            s.lines += part.lines;
            s.mixed += part.mixed;
            s.shuffled += part.shuffled;
        }
        return s;
    }
    if (plan->sym != NULL || plan->out_count == 0)
        return s;
    double run = (double)plan->run_bytes, out = (double)plan->out_bytes;
    if (plan->nloops == 0) {
        stream_piece(&s, out, &t, 1);
        return s;
    }
    const sg_loop *l = &plan->loops[plan->nloops - 1];
    double rows = out / ((double)l->extent * run); /* iterations of the loops around the innermost */
    if (run >= (double)(SG_STREAM_VECTORS * t.vector_bytes)) { /* each run a piece of its own */
        stream_piece(&s, run, &t, out / run);
    } else if (l->nseg == 0) { /* short runs: each row one piece (copied, or shuffled and streamed) */
        stream_piece(&s, (double)l->extent * run, &t, rows);
        if (l->in_stride != (int64_t)run)
            s.shuffled += rows * (double)l->extent * run / SG_LINE_BYTES;
    } else { /* a segmented row: each segment a piece (a copy, a fill or a shuffle) */
        int64_t covered = l->period ? l->period : l->extent;
        double repeats = (double)l->extent / (double)covered;
        for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++)
            stream_piece(&s, (double)plan->segs[k].count * run, &t, rows * repeats);
    }
    return s;
}

static bool uses_fill(const sg_plan *plan)
{
    for (size_t i = 0; i < plan->nloops; i++) {
        const sg_loop *l = &plan->loops[i];
        for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++)
            if (plan->segs[k].fill)
                return true;
    }
    return false;
}

static uint8_t *put(uint8_t *at, int64_t v)
{
    memcpy(at, &v, sizeof v);
    return at + sizeof v;
}

/* FNV-1a, then a final avalanche (splitmix64) so every bit depends on all. */
static uint64_t hash_bytes(const uint8_t *bytes, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ bytes[i]) * 0x100000001b3u;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebu;
    h ^= h >> 31;
    return h;
}

/* A program's key: per part its output offset and its nest's key. */
static sg_status program_key(const sg_plan *plan, sg_nest_key *key, sg_error *err)
{
    size_t len = 8, cap = 256;
    uint8_t *bytes = malloc(cap);
    if (bytes == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to key kernel: out of memory");
    put(bytes, (int64_t)plan->nparts);
    for (size_t k = 0; k < plan->nparts; k++) {
        sg_nest_key part;
        if (sg_nest_key_make(plan->parts[k].plan, &part, err) != SG_OK) {
            free(bytes);
            return err->status;
        }
        if (len + 16 + part.len > cap) {
            cap = 2 * (len + 16 + part.len);
            uint8_t *grown = realloc(bytes, cap);
            if (grown == NULL) {
                sg_nest_key_free(&part);
                free(bytes);
                return sg_fail(err, SG_ERR_NOMEM, "failed to key kernel: out of memory");
            }
            bytes = grown;
        }
        put(put(bytes + len, plan->parts[k].out_offset), (int64_t)part.len);
        memcpy(bytes + len + 16, part.bytes, part.len);
        len += 16 + part.len;
        sg_nest_key_free(&part);
    }
    *key = (sg_nest_key){.bytes = bytes, .len = len, .hash = hash_bytes(bytes, len)};
    return SG_OK;
}

sg_status sg_nest_key_make(const sg_plan *plan, sg_nest_key *key, sg_error *err)
{
    if (plan->op == SG_OP_PROGRAM && plan->sym == NULL)
        return program_key(plan, key, err);
    if (plan->sym) { /* the prologue too: the whole plan, as its text (a concatenate's parts in it) */
        char *text = sg_plan_to_text(plan);
        if (text == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to key kernel: out of memory");
        size_t len = strlen(text);
        *key = (sg_nest_key){.bytes = (uint8_t *)text, .len = len, .hash = hash_bytes((uint8_t *)text, len)};
        return SG_OK;
    }
    size_t nsegs = 0;
    for (size_t i = 0; i < plan->nloops; i++)
        nsegs += plan->loops[i].nseg;
    size_t len = 8 * (5 + 5 * plan->nloops + 4 * nsegs);
    uint8_t *bytes = malloc(len), *at = bytes;
    if (bytes == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to key kernel: out of memory for %zu segments", nsegs);
    int64_t fill = 0;
    if (uses_fill(plan))
        memcpy(&fill, plan->fill, sizeof plan->fill);
    at = put(at, (int64_t)plan->elem_size);
    at = put(at, plan->out_count == 0 ? 0 : plan->base); /* an empty nest reads nothing */
    at = put(at, plan->run_bytes);
    at = put(at, (int64_t)plan->nloops);
    at = put(at, fill);
    for (size_t i = 0; i < plan->nloops; i++) {
        const sg_loop *l = &plan->loops[i];
        at = put(at, l->extent);
        at = put(at, l->nseg ? 0 : l->in_stride);
        at = put(at, l->out_stride);
        at = put(at, (int64_t)l->nseg);
        at = put(at, l->period);
        for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++) {
            const sg_segment *s = &plan->segs[k];
            at = put(at, s->count);
            at = put(at, s->fill);
            at = put(at, s->fill ? 0 : s->in_offset);
            at = put(at, s->fill ? 0 : s->in_step);
        }
    }
    *key = (sg_nest_key){.bytes = bytes, .len = len, .hash = hash_bytes(bytes, len)};
    return SG_OK;
}

void sg_nest_key_free(sg_nest_key *key)
{
    free(key->bytes);
    *key = (sg_nest_key){0};
}

void sg_codegen_symbol(const sg_plan *plan, const sg_nest_key *key, char symbol[SG_SYMBOL_MAX])
{
    if (plan->op == SG_OP_PROGRAM)
        snprintf(symbol, SG_SYMBOL_MAX, "sg_x%zu_p%zu_%016" PRIx64, plan->elem_size, plan->nparts, key->hash);
    else if (plan->sym)
        snprintf(symbol, SG_SYMBOL_MAX, "sg_x%zu_l%zu_dyn_%016" PRIx64, plan->elem_size, plan->nloops,
                 key->hash);
    else
        snprintf(symbol, SG_SYMBOL_MAX, "sg_x%zu_l%zu_r%" PRId64 "_%016" PRIx64, plan->elem_size,
                 plan->nloops, plan->run_bytes, key->hash);
}

char *sg_prepare_symbol(const char *kernel)
{
    size_t len = strlen(kernel);
    char *name = malloc(len + sizeof "_prepare");
    if (name != NULL) {
        memcpy(name, kernel, len);
        memcpy(name + len, "_prepare", sizeof "_prepare");
    }
    return name;
}

size_t sg_segment_rows(const sg_plan *plan, const sg_loop *l, bool runs, int64_t (*rows)[SG_SEG_FIELDS])
{
    const sg_segment *segs = &plan->segs[l->seg0];
    size_t n = 0;
    int64_t start = 0;
    for (size_t k = 0; k < l->nseg;) {
        size_t same = 1;
        while (runs && k + same < l->nseg && segs[k + same].fill == segs[k].fill &&
               (segs[k].fill ||
                (segs[k + same].count == segs[k].count && segs[k + same].in_offset == segs[k].in_offset &&
                 segs[k + same].in_step == segs[k].in_step)))
            same++;
        int64_t count = segs[k].count, repeat = (int64_t)same;
        if (segs[k].fill) { /* consecutive fills: one block */
            count = 0;
            for (size_t j = k; j < k + same; j++)
                count += segs[j].count;
            repeat = 1;
        }
        int64_t *e = rows[n++];
        e[SG_SEG_START] = start, e[SG_SEG_COUNT] = count, e[SG_SEG_REPEAT] = repeat;
        e[SG_SEG_IN_OFFSET] = segs[k].fill ? 0 : segs[k].in_offset;
        e[SG_SEG_IN_STEP] = segs[k].fill ? 0 : segs[k].in_step;
        e[SG_SEG_FILL] = segs[k].fill;
        start += count * repeat;
        k += same;
    }
    return n;
}

/* NumPy programs (sg_prog): the tree of a program becomes one plan of
 * parts, each an ordinary plan writing one box of the output.
 *
 * Every value of a program is described exactly as a list of boxes that
 * tile it. A box is, per dimension of the value, a range of coordinates
 * and an affine map to the input (input axis, start, step: steps of 0
 * repeat an element, a new axis reads none), with the input axes the
 * value no longer has held at an index; or a box of one fill value. The
 * input is one box; each operation maps the boxes of its operand:
 *
 *   - an index (NumPy basic indexing, flip): per output dimension one
 *     affine piece of one operand dimension, new axes, integer indices;
 *   - roll, and np.pad's edge, reflect, symmetric and wrap: per dimension
 *     a list of affine pieces (steps 1, -1 or 0) that cover it;
 *   - np.pad's constant mode: the operand's boxes moved inwards, and fill
 *     boxes around them;
 *   - concatenate: the boxes of each operand moved along the axis;
 *   - a model layer's slice of any op (aot --fuse): per output dimension
 *     the affine piece of the planner's own shape inference, or for
 *     TensorRT's and Pad's modes the pieces of the mode's coordinates
 *     (their fill pieces make fill boxes).
 *
 * A piece of a dimension meets a box of the operand in an arithmetic
 * progression, so the composition of affine maps stays affine: the result
 * is again a list of boxes. Boxes that continue each other are merged;
 * each remaining box becomes a part (sg_part), planned and folded as a
 * slice whose output strides are those of the whole output. NumPy's
 * errors come with NumPy's words. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* One dimension of a box: coordinates [lo, lo + n) of the value read
 * input index start + step * (y - lo) of input axis in_axis (-1: none). */
typedef struct box_dim {
    int64_t lo, n;
    int in_axis;
    int64_t start, step;
} box_dim;

typedef struct box {
    bool fill;
    uint8_t fill_bytes[8];
    size_t nfixed;
    sg_fixed_axis fixed[SG_MAX_RANK];
    box_dim dim[SG_MAX_RANK];
} box;

/* A value of the program: its shape and the boxes that tile it. */
typedef struct value {
    size_t rank;
    int64_t shape[SG_MAX_RANK];
    size_t nboxes, cap;
    box *boxes;
} value;

/* An affine piece of an output dimension: coordinates [lo, lo + n) read
 * coordinate t0 + k * (y - lo) of the operand's dimension. */
typedef struct piece {
    int64_t lo, n, t0, k;
    bool fill; /* the coordinates read nothing: the operation's fill value (t0 and k unused) */
} piece;

/* Per output dimension of an operation that maps coordinates: the
 * operand dimension it reads (-1: a new axis of extent 1) and its pieces. */
typedef struct dim_map {
    int src;
    size_t npieces;
    piece *pieces;
} dim_map;

typedef struct program {
    const sg_spec *spec;
    sg_dtype dtype;
    size_t elem_size;
    sg_error *err;
    size_t in_rank;
    const int64_t *in_shape;
    int64_t in_count, out_bytes;
} program;

static void value_free(value *v)
{
    free(v->boxes);
    *v = (value){0};
}

static box *add_box(program *pr, value *v)
{
    if (v->nboxes == SG_MAX_PARTS) {
        sg_fail(pr->err, SG_ERR_SLICE,
                "failed to plan program: more than %d parts (a pad much wider than its axis needs a part per "
                "period)",
                SG_MAX_PARTS);
        return NULL;
    }
    if (v->nboxes == v->cap) {
        size_t grown = v->cap ? 2 * v->cap : 8;
        box *boxes = realloc(v->boxes, grown * sizeof *boxes);
        if (boxes == NULL) {
            sg_fail(pr->err, SG_ERR_NOMEM, "failed to plan program: out of memory for %zu parts", grown);
            return NULL;
        }
        v->boxes = boxes;
        v->cap = grown;
    }
    return &v->boxes[v->nboxes++];
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) == (b < 0)) ? q + 1 : q;
}

/* Where piece p meets the box dimension d: the part of p whose
 * coordinates t lie in [d.lo, d.lo + d.n), as *out (composed map). False
 * when they do not meet. Coordinates are bounded by the values' shapes,
 * which fit int64 with their bytes, so no product below overflows. */
static bool meet(const piece *p, const box_dim *d, box_dim *out)
{
    int64_t first, last; /* j in [first, last]: t = t0 + k * j */
    if (p->k == 0) {
        if (p->t0 < d->lo || p->t0 >= d->lo + d->n)
            return false;
        first = 0, last = p->n - 1;
    } else if (p->k > 0) {
        first = ceil_div(d->lo - p->t0, p->k);
        last = floor_div(d->lo + d->n - 1 - p->t0, p->k);
    } else {
        first = ceil_div(p->t0 - (d->lo + d->n - 1), -p->k);
        last = floor_div(p->t0 - d->lo, -p->k);
    }
    first = first > 0 ? first : 0;
    last = last < p->n - 1 ? last : p->n - 1;
    if (first > last)
        return false;
    int64_t t = p->t0 + p->k * first;
    *out = (box_dim){
        .lo = p->lo + first,
        .n = last - first + 1,
        .in_axis = d->in_axis,
        .start = d->in_axis < 0 ? 0 : d->start + d->step * (t - d->lo),
        .step = d->in_axis < 0 ? 0 : d->step * p->k,
    };
    return true;
}

/* Steps `at` (one piece index per dimension of maps, rank of them) to
 * the next combination; false after the last. */
static bool next_combination(size_t *at, const dim_map *maps, size_t rank)
{
    for (size_t j = rank; j-- > 0;) {
        if (maps[j].src >= 0 && ++at[j] < maps[j].npieces)
            return true;
        at[j] = 0;
    }
    return false;
}

/* The fill boxes of maps: every combination of pieces, one per
 * dimension, of which at least one is a fill piece (fill: its bytes). */
static sg_status fill_boxes(program *pr, value *out, const dim_map *maps, const uint8_t *fill)
{
    size_t at[SG_MAX_RANK] = {0};
    bool any = false;
    for (size_t j = 0; j < out->rank; j++)
        for (size_t k = 0; maps[j].src >= 0 && k < maps[j].npieces; k++)
            any = any || maps[j].pieces[k].fill;
    if (!any)
        return SG_OK;
    do {
        box b = {.fill = true};
        bool fills = false;
        memcpy(b.fill_bytes, fill, sizeof b.fill_bytes);
        for (size_t j = 0; j < out->rank; j++) {
            const piece *pc = maps[j].src >= 0 ? &maps[j].pieces[at[j]] : NULL;
            b.dim[j] = (box_dim){.lo = pc ? pc->lo : 0, .n = pc ? pc->n : 1, .in_axis = -1};
            fills = fills || (pc && pc->fill);
        }
        box *added = fills ? add_box(pr, out) : NULL;
        if (fills && added == NULL)
            return pr->err->status;
        if (added)
            *added = b;
    } while (next_combination(at, maps, out->rank));
    return SG_OK;
}

/* The boxes of `out` (rank and shape set) from those of `in`: output
 * dimension j reads maps[j] of in's dimensions; fixed[f] holds in's
 * dimension fixed_src[f] at coordinate fixed_at[f]. Appends to out; the
 * fill pieces of maps (fill: their value's bytes) make fill boxes. */
static sg_status remap(program *pr, const value *in, value *out, const dim_map *maps, size_t nfixed,
                       const int *fixed_src, const int64_t *fixed_at, const uint8_t *fill)
{
    for (size_t j = 0; j < out->rank; j++)
        if (maps[j].src >= 0 && maps[j].npieces == 0) /* an empty dimension: no box */
            return SG_OK;
    for (size_t b = 0; b < in->nboxes; b++) {
        const box *src = &in->boxes[b];
        box base = {.fill = src->fill, .nfixed = src->nfixed};
        memcpy(base.fill_bytes, src->fill_bytes, sizeof base.fill_bytes);
        memcpy(base.fixed, src->fixed, src->nfixed * sizeof *src->fixed);
        bool inside = true;
        for (size_t f = 0; f < nfixed && inside; f++) {
            const box_dim *d = &src->dim[fixed_src[f]];
            inside = fixed_at[f] >= d->lo && fixed_at[f] < d->lo + d->n;
            if (inside && d->in_axis >= 0 && !src->fill)
                base.fixed[base.nfixed++] =
                    (sg_fixed_axis){d->in_axis, d->start + d->step * (fixed_at[f] - d->lo)};
        }
        if (!inside)
            continue;
        /* every combination of one piece per output dimension */
        size_t at[SG_MAX_RANK] = {0};
        for (;;) {
            box next = base;
            bool meets = true;
            for (size_t j = 0; j < out->rank && meets; j++) {
                if (maps[j].src < 0)
                    next.dim[j] = (box_dim){.lo = 0, .n = 1, .in_axis = -1};
                else
                    meets = !maps[j].pieces[at[j]].fill &&
                            meet(&maps[j].pieces[at[j]], &src->dim[maps[j].src], &next.dim[j]);
            }
            if (meets) {
                box *added = add_box(pr, out);
                if (added == NULL)
                    return pr->err->status;
                *added = next;
            }
            if (!next_combination(at, maps, out->rank))
                break;
        }
    }
    return fill ? fill_boxes(pr, out, maps, fill) : SG_OK;
}

/* The bytes of a value of `shape` fit int64. */
static sg_status check_size(program *pr, const int64_t *shape, size_t rank, const char *what)
{
    int64_t bytes = (int64_t)pr->elem_size;
    bool empty = false;
    for (size_t i = 0; i < rank; i++)
        empty = empty || shape[i] == 0;
    for (size_t i = 0; i < rank && !empty; i++)
        if (__builtin_mul_overflow(bytes, shape[i], &bytes))
            return sg_fail(pr->err, SG_ERR_SLICE, "failed to plan program: %s has more than 2^63 - 1 bytes",
                           what);
    return SG_OK;
}

/* NumPy's normalize_axis_index: axis in [-rank, rank). */
static sg_status axis_of(program *pr, int64_t axis, size_t rank, const char *func, int *out)
{
    if (axis < -(int64_t)rank || axis >= (int64_t)rank)
        return sg_fail(pr->err, SG_ERR_SLICE,
                       "failed to plan program: %s: axis %" PRId64
                       " is out of bounds for array of dimension %zu",
                       func, axis, rank);
    *out = (int)(axis < 0 ? axis + (int64_t)rank : axis);
    return SG_OK;
}

static sg_status eval(program *pr, const sg_prog *node, value *out, int depth);

/* ---- indices, flips, rolls and pads: maps of coordinates ------------------- */

/* Identity maps of every dimension of v (pieces[j] one per dimension). */
static void identity_maps(const value *v, dim_map *maps, piece *pieces)
{
    for (size_t j = 0; j < v->rank; j++) {
        pieces[j] = (piece){0, v->shape[j], 0, 1, false};
        maps[j] = (dim_map){(int)j, 1, &pieces[j]};
    }
}

/* The affine pieces of output dimension j of a mapped plan q (TensorRT's
 * modes, Pad's): its coordinates walked in stretches on which the input
 * index (sg_plan_axis_index, the reference's formula) is affine, or the
 * fill value. Appends to *all (*used of *cap). */
/* The first coordinate index past y (at most n) of output dimension j of a
 * mapped plan q whose coordinate leaves the mode's piece that y's lies in
 * (sg_mode_piece_at): on a piece the input index is affine, or the fill. */
static int64_t piece_end(const sg_plan *q, size_t j, int64_t y, int64_t n)
{
    const sg_axis_map *m = &q->map[j];
    if (m->in_axis < 0 || m->step == 0)
        return n;
    int64_t d = q->in_shape[m->in_axis] - m->crop_begin - m->crop_end, x = m->start + y * m->step;
    sg_mode_piece pc = sg_mode_piece_at(q->mode, d, x);
    /* the coordinates left in the piece, in the step's direction (no overflow in unsigned) */
    uint64_t room = m->step > 0 ? (uint64_t)pc.hi - (uint64_t)x : (uint64_t)x - (uint64_t)pc.lo;
    uint64_t count = room / (m->step > 0 ? (uint64_t)m->step : (uint64_t)0 - (uint64_t)m->step) + 1;
    return count >= (uint64_t)(n - y) ? n : y + (int64_t)count;
}

static sg_status mapped_pieces(program *pr, const sg_plan *q, size_t j, piece **all, size_t *used,
                               size_t *cap)
{
    int64_t n = q->map[j].count;
    for (int64_t y = 0; y < n;) {
        int64_t t = sg_plan_axis_index(q, j, y), end = piece_end(q, j, y, n), k = 0;
        if (y + 1 < n)
            k = sg_plan_axis_index(q, j, y + 1) - t;
        /* the pieces after it that continue its progression (or its fill): a piece continues it whole
           where its first two coordinates do, it being affine */
        while (end < n && (t < 0) == (sg_plan_axis_index(q, j, end) < 0) &&
               (t < 0 || sg_plan_axis_index(q, j, end) == t + k * (end - y))) {
            int64_t next = piece_end(q, j, end, n);
            if (t < 0 || next - end < 2 || sg_plan_axis_index(q, j, end + 1) == t + k * (end + 1 - y)) {
                end = next;
            } else {
                end++;
                break;
            }
        }
        if (*used == (size_t)SG_MAX_PARTS * 4)
            return sg_fail(
                pr->err, SG_ERR_SLICE,
                "failed to plan program: more than %d parts (a border mode wraps its axis too often)",
                SG_MAX_PARTS);
        if (*used == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            piece *grown = realloc(*all, *cap * sizeof *grown);
            if (grown == NULL)
                return sg_fail(pr->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
            *all = grown;
        }
        (*all)[(*used)++] = (piece){y, end - y, t < 0 ? 0 : t, t < 0 || end - y == 1 ? 0 : k, t < 0};
        y = end;
    }
    return SG_OK;
}

/* An index, or a model layer's slice of any op: shape inference of its
 * spec on the operand's shape (the planner's own, errors included), then
 * per output dimension one affine piece, or for a mapped op (TensorRT's
 * modes, Pad) the pieces of its mode. */
static sg_status eval_spec(program *pr, const sg_spec *spec, const value *in, value *out)
{
    sg_plan *q = calloc(1, sizeof *q);
    piece *all = NULL;
    size_t used = 0, cap = 0, first[SG_MAX_RANK];
    if (q == NULL)
        return sg_fail(pr->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
    sg_status st = sg_infer_shape(spec, in->rank, in->shape, pr->dtype, q, pr->err);
    bool mapped = st == SG_OK && sg_op_mapped(q->op) && q->mode != SG_TRT_STRICT;
    dim_map maps[SG_MAX_RANK];
    piece pieces[SG_MAX_RANK];
    int fixed_src[SG_MAX_RANK];
    int64_t fixed_at[SG_MAX_RANK];
    for (size_t j = 0; st == SG_OK && j < q->out_rank; j++) {
        const sg_axis_map *m = &q->map[j];
        first[j] = used;
        if (mapped && m->in_axis >= 0)
            st = mapped_pieces(pr, q, j, &all, &used, &cap);
        pieces[j] = (piece){0, m->count, m->start, m->count > 1 ? m->step : 0, false};
        maps[j] = (dim_map){m->in_axis, 1, &pieces[j]};
    }
    if (st == SG_OK) {
        for (size_t j = 0; mapped && all != NULL && j < q->out_rank; j++) /* all is final (none: empty) */
            if (q->map[j].in_axis >= 0)
                maps[j] = (dim_map){q->map[j].in_axis, (j + 1 < q->out_rank ? first[j + 1] : used) - first[j],
                                    all + first[j]};
        for (size_t f = 0; f < q->nfixed; f++) {
            fixed_src[f] = q->fixed[f].in_axis;
            fixed_at[f] = q->fixed[f].index;
        }
        out->rank = q->out_rank;
        memcpy(out->shape, q->out_shape, q->out_rank * sizeof *q->out_shape);
        st = remap(pr, in, out, maps, q->nfixed, fixed_src, fixed_at, mapped ? q->fill : NULL);
    }
    free(all);
    sg_plan_free(q);
    return st;
}

/* The axes a flip or roll names, each in [0, rank); *n of them. */
static sg_status named_axes(program *pr, const sg_prog *node, size_t rank, const char *func, int *axes,
                            size_t *n)
{
    if (node->all_axes) {
        for (size_t i = 0; i < rank; i++)
            axes[i] = (int)i;
        *n = rank;
        return SG_OK;
    }
    for (size_t i = 0; i < node->naxes; i++)
        if (axis_of(pr, node->axes[i], rank, func, &axes[i]) != SG_OK)
            return pr->err->status;
    *n = node->naxes;
    return SG_OK;
}

sg_status sg_flip_axes(const sg_prog *node, size_t rank, bool *flipped, sg_error *err)
{
    program pr = {.err = err};
    int axes[SG_MAX_RANK];
    size_t n = 0;
    if (node->naxes > SG_MAX_RANK)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan program: np.flip: repeated axis");
    if (named_axes(&pr, node, rank, "np.flip", axes, &n) != SG_OK)
        return err->status;
    for (size_t a = 0; a < rank; a++)
        flipped[a] = false;
    for (size_t i = 0; i < n; i++) {
        if (flipped[axes[i]])
            return sg_fail(err, SG_ERR_SLICE, "failed to plan program: np.flip: repeated axis");
        flipped[axes[i]] = true;
    }
    return SG_OK;
}

static sg_status eval_flip(program *pr, const sg_prog *node, const value *in, value *out)
{
    bool flipped[SG_MAX_RANK];
    if (sg_flip_axes(node, in->rank, flipped, pr->err) != SG_OK)
        return pr->err->status;
    dim_map maps[SG_MAX_RANK];
    piece pieces[SG_MAX_RANK];
    identity_maps(in, maps, pieces);
    for (size_t a = 0; a < in->rank; a++)
        if (flipped[a])
            pieces[a] = (piece){0, in->shape[a], in->shape[a] - 1, -1, false};
    out->rank = in->rank;
    memcpy(out->shape, in->shape, sizeof out->shape);
    return remap(pr, in, out, maps, 0, NULL, NULL, NULL);
}

sg_status sg_roll_pairs(const sg_prog *node, size_t rank, size_t *count, int *axis, int64_t *shift,
                        const char **name, sg_error *err)
{
    program pr = {.err = err};
    int axes[SG_MAX_RANK];
    if (node->naxes > SG_MAX_RANK)
        return sg_fail(err, SG_ERR_SLICE, "failed to plan program: np.roll: more than %d axes", SG_MAX_RANK);
    size_t n = node->naxes, pairs = n == 0 || node->nshifts == 0 ? 0 : n > node->nshifts ? n : node->nshifts;
    if (n != node->nshifts && n != 1 && node->nshifts != 1)
        return sg_fail(
            err, SG_ERR_SLICE,
            "failed to plan program: np.roll: shape mismatch: objects cannot be broadcast to a single "
            "shape.  Mismatch is between arg 0 with shape (%zu,) and arg 1 with shape (%zu,).",
            node->nshifts, n);
    for (size_t i = 0; i < n; i++)
        if (axis_of(&pr, node->axes[i], rank, "np.roll", &axes[i]) != SG_OK)
            return err->status;
    for (size_t i = 0; i < pairs; i++) {
        size_t k = node->nshifts == 1 ? 0 : i;
        axis[i] = axes[n == 1 ? 0 : i];
        shift[i] = node->shifts[k];
        name[i] = node->shift_names ? node->shift_names[k] : NULL;
    }
    *count = pairs;
    return SG_OK;
}

static sg_status eval_roll(program *pr, const sg_prog *node, const value *in, value *out)
{
    int axis[SG_PROG_MAX_NUMBERS];
    int64_t shifts[SG_PROG_MAX_NUMBERS];
    const char *names[SG_PROG_MAX_NUMBERS]; /* none: a program of names is a chain's (infer.c) */
    size_t count;
    if (sg_roll_pairs(node, in->rank, &count, axis, shifts, names, pr->err) != SG_OK)
        return pr->err->status;
    /* the shift of each axis, modulo its size: NumPy adds those of an axis
     * named twice in int64, wrapping (with a RuntimeWarning) */
    int64_t shift[SG_MAX_RANK] = {0};
    for (size_t i = 0; i < count; i++)
        shift[axis[i]] = (int64_t)((uint64_t)shift[axis[i]] + (uint64_t)shifts[i]);
    for (size_t a = 0; a < in->rank; a++) {
        int64_t d = in->shape[a];
        shift[a] = d > 0 ? (shift[a] % d + d) % d : 0;
    }
    dim_map maps[SG_MAX_RANK];
    piece pieces[SG_MAX_RANK], two[SG_MAX_RANK][2];
    identity_maps(in, maps, pieces);
    for (size_t j = 0; j < in->rank; j++) {
        int64_t d = in->shape[j], s = shift[j];
        if (s == 0)
            continue;
        two[j][0] = (piece){0, s, d - s, 1, false}; /* the last s elements come first */
        two[j][1] = (piece){s, d - s, 0, 1, false};
        maps[j] = (dim_map){(int)j, 2, two[j]};
    }
    out->rank = in->rank;
    memcpy(out->shape, in->shape, sizeof out->shape);
    return remap(pr, in, out, maps, 0, NULL, NULL, NULL);
}

sg_status sg_pad_pairs(const sg_prog *node, size_t rank, int64_t (*widths)[2], const char *(*names)[2],
                       sg_error *err)
{
    size_t rows = node->width_rows, cols = node->width_cols;
    bool one = rows * cols == 1, pair = rows == 1 && cols == 2;
    if (!one && !pair && !((rows == 1 || rows == rank) && (cols == 1 || cols == 2)))
        return sg_fail(
            err, SG_ERR_SLICE,
            "failed to plan program: np.pad: operands could not be broadcast together with remapped "
            "shapes [original->remapped]: (%zu,%zu)  and requested shape (%zu,2)",
            rows, cols, rank);
    for (size_t i = 0; i < rows * cols; i++)
        if (node->widths[i] < 0)
            return sg_fail(err, SG_ERR_SLICE,
                           "failed to plan program: np.pad: index can't contain negative "
                           "values");
    for (size_t i = 0; i < rank; i++)
        for (size_t c = 0; c < 2; c++) {
            size_t k = (rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : c);
            widths[i][c] = node->widths[k];
            if (names != NULL)
                names[i][c] = node->width_names ? node->width_names[k] : NULL;
        }
    return SG_OK;
}

/* A growing list of pieces, at most SG_MAX_PARTS * 4 of them. */
typedef struct pieces {
    piece *v;
    size_t n, cap;
} pieces;

static sg_status push_piece(program *pr, pieces *list, piece p)
{
    if (list->n == (size_t)SG_MAX_PARTS * 4)
        return sg_fail(
            pr->err, SG_ERR_SLICE,
            "failed to plan program: more than %d parts (a pad much wider than its axis needs a part per "
            "period)",
            SG_MAX_PARTS);
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        piece *grown = realloc(list->v, cap * sizeof *grown);
        if (grown == NULL)
            return sg_fail(pr->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
        list->v = grown;
        list->cap = cap;
    }
    list->v[list->n++] = p;
    return SG_OK;
}

/* Appends p to list, joined to the last piece where they are one
 * progression. */
static sg_status push_joined(program *pr, pieces *list, piece p)
{
    piece *last = list->n ? &list->v[list->n - 1] : NULL;
    if (last && last->lo + last->n == p.lo) {
        int64_t k = last->n > 1 ? last->k : p.n > 1 ? p.k : p.t0 - last->t0;
        if ((last->n == 1 || last->k == k) && (p.n == 1 || p.k == k) && p.t0 == last->t0 + last->n * k) {
            last->k = k;
            last->n += p.n;
            return SG_OK;
        }
    }
    return push_piece(pr, list, p);
}

/* Appends to out the pieces of positions r = s - q for the positions q in
 * [a, a + c) of the pieces of cur (sorted by position), r ascending. */
static sg_status mirrored(program *pr, const pieces *cur, int64_t a, int64_t c, int64_t s, pieces *out)
{
    for (size_t i = cur->n; i-- > 0;) {
        const piece *p = &cur->v[i];
        int64_t q0 = p->lo > a ? p->lo : a, q1 = p->lo + p->n < a + c ? p->lo + p->n : a + c;
        if (q0 < q1 && push_piece(pr, out,
                                  (piece){s - (q1 - 1), q1 - q0, p->t0 + p->k * (q1 - 1 - p->lo), -p->k,
                                          false}) != SG_OK)
            return pr->err->status;
    }
    return SG_OK;
}

/* np.pad's reflect (edges once) and symmetric (edges twice) of an axis of
 * d >= 2 elements padded by (before, after), as NumPy pads: in rounds,
 * each mirroring, next to each edge, at most the region written so far
 * (less the edge for reflect), both sides' pads included. Where one side
 * needs more rounds than the other, the result is not periodic. */
static sg_status mirror_pieces(program *pr, bool reflect, int64_t d, int64_t before, int64_t after,
                               pieces *out)
{
    pieces cur = {0}, next = {0};
    int64_t lo = before, hi = before + d, left = before, right = after, e = reflect;
    sg_status st = push_piece(pr, &cur, (piece){before, d, 0, 1, false});
    while (st == SG_OK && (left > 0 || right > 0)) {
        int64_t old = hi - lo - e, cl = old < left ? old : left, cr = old < right ? old : right;
        next.n = 0;
        st = mirrored(pr, &cur, lo + e, cl, 2 * lo + e - 1, &next);
        for (size_t i = 0; st == SG_OK && i < cur.n; i++)
            st = push_piece(pr, &next, cur.v[i]);
        if (st == SG_OK)
            st = mirrored(pr, &cur, hi - e - cr, cr, 2 * hi - 1 - e, &next);
        pieces t = cur;
        cur = next;
        next = t;
        lo -= cl, hi += cr, left -= cl, right -= cr;
    }
    for (size_t i = 0; st == SG_OK && i < cur.n; i++)
        st = push_joined(pr, out, cur.v[i]);
    free(cur.v);
    free(next.v);
    return st;
}

/* The pieces of one axis of np.pad: d elements padded by (before, after)
 * in `mode`; for constant the interior alone (the fill comes apart). Edge,
 * constant and wrap (periodic: NumPy 1.25 and later) are the modes' pieces
 * (sg_mode_piece_at); reflect and symmetric are NumPy's rounds. */
static sg_status axis_pieces(program *pr, sg_trt_mode mode, int64_t d, int64_t before, int64_t after,
                             pieces *out)
{
    if (d == 0)
        return SG_OK;
    if (d == 1 && mode != SG_TRT_FILL) /* an axis of one: every mode repeats it */
        mode = SG_TRT_CLAMP;
    if (mode == SG_TRT_REFLECT || mode == SG_MODE_SYMMETRIC)
        return mirror_pieces(pr, mode == SG_TRT_REFLECT, d, before, after, out);
    for (int64_t y = 0, end = before + d + after; y < end;) {
        int64_t x = y - before;
        sg_mode_piece pc = sg_mode_piece_at(mode, d, x);
        uint64_t room = (uint64_t)pc.hi - (uint64_t)x; /* coordinates of the piece after x */
        int64_t n = room < (uint64_t)(end - y) ? (int64_t)room + 1 : end - y;
        /* an edge's single element is a step of 0, as its repeats are */
        int64_t k = mode == SG_TRT_CLAMP && n == 1 ? 0 : pc.slope;
        if (!pc.fill && push_piece(pr, out, (piece){y, n, pc.index, k, false}) != SG_OK)
            return pr->err->status;
        y += n;
    }
    return SG_OK;
}

sg_status sg_pad_fill(const sg_scalar *v, sg_dtype t, uint8_t bytes[8], sg_error *err)
{
    if (sg_dtype_kind_of(t) == SG_KIND_FLOAT) /* nearest, never refused */
        return sg_scalar_to_bytes(v, t, bytes, err);
    if (t == SG_BOOL) {
        bytes[0] = v->kind == SG_SCALAR_FLOAT ? v->f != 0 : v->kind == SG_SCALAR_UINT ? v->u != 0 : v->i != 0;
        return SG_OK;
    }
    uint64_t bits = v->kind == SG_SCALAR_UINT ? v->u : (uint64_t)v->i;
    if (v->kind == SG_SCALAR_FLOAT) {
        int width = 8 * (int)sg_dtype_size(t);
        bool is_signed = sg_dtype_kind_of(t) == SG_KIND_SINT;
        double lo = is_signed ? -ldexp(1, width - 1) : 0,
               hi = is_signed ? ldexp(1, width - 1) : ldexp(1, width);
        double whole = trunc(v->f);
        char text[SG_SCALAR_TEXT];
        sg_scalar_format(v, text);
        if (!(whole >= lo && whole < hi))
            return sg_fail(
                err, SG_ERR_SLICE,
                "failed to plan program: np.pad: constant_values %s does not fit in %s once truncated", text,
                sg_dtype_name(t));
        bits = whole < 0 ? (uint64_t)(int64_t)whole : (uint64_t)whole;
    }
    memcpy(bytes, &bits, 8); /* little-endian: the low bytes, the value modulo the width */
    return SG_OK;
}

static sg_status eval_pad(program *pr, const sg_prog *node, const value *in, value *out)
{
    int64_t(*widths)[2] = calloc(in->rank ? in->rank : 1, sizeof *widths);
    dim_map maps[SG_MAX_RANK];
    size_t first_piece[SG_MAX_RANK];
    pieces all = {0};
    sg_status st = SG_OK;
    if (widths == NULL)
        return sg_fail(pr->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
    if (sg_pad_pairs(node, in->rank, widths, NULL, pr->err) != SG_OK) /* (names: a chain's, infer.c) */
        goto done;
    out->rank = in->rank;
    for (size_t j = 0; j < in->rank; j++) {
        int64_t total;
        if (__builtin_add_overflow(in->shape[j], widths[j][0], &total) ||
            __builtin_add_overflow(total, widths[j][1], &total)) {
            st = sg_fail(pr->err, SG_ERR_SLICE,
                         "failed to plan program: np.pad: axis %zu would have more than "
                         "2^63 - 1 elements",
                         j);
            goto done;
        }
        out->shape[j] = total;
        if (node->pad_mode != SG_TRT_FILL && in->shape[j] == 0 && (widths[j][0] || widths[j][1])) {
            st = sg_fail(pr->err, SG_ERR_SLICE,
                         "failed to plan program: np.pad: can't extend empty axis %zu using modes other than "
                         "'constant' or 'empty'",
                         j);
            goto done;
        }
    }
    if (check_size(pr, out->shape, out->rank, "np.pad's result") != SG_OK)
        goto done;
    /* the pieces of each axis: the interior alone for constant (the
     * fill boxes come below), else every stretch of the mode */
    for (size_t j = 0; j < in->rank; j++) {
        first_piece[j] = all.n;
        if (axis_pieces(pr, node->pad_mode, in->shape[j], widths[j][0], widths[j][1], &all) != SG_OK)
            goto done;
        maps[j] = (dim_map){(int)j, all.n - first_piece[j], NULL};
    }
    for (size_t j = 0; j < in->rank && all.v != NULL; j++) /* all is final (none: every axis empty) */
        maps[j].pieces = all.v + first_piece[j];
    if (remap(pr, in, out, maps, 0, NULL, NULL, NULL) != SG_OK)
        goto done;
    if (node->pad_mode == SG_TRT_FILL) {
        /* The fill around the interior, as slabs: along axis j, the
         * coordinates before and after the interior, with the axes
         * before j inside the interior and those after j whole. */
        uint8_t bytes[8] = {0};
        if (sg_pad_fill(&node->fill, pr->dtype, bytes, pr->err) != SG_OK)
            goto done;
        for (size_t j = 0; j < in->rank; j++) {
            for (int side = 0; side < 2; side++) {
                int64_t n = widths[j][side];
                if (n == 0)
                    continue;
                box slab = {.fill = true};
                memcpy(slab.fill_bytes, bytes, sizeof bytes);
                bool empty = false;
                for (size_t i = 0; i < out->rank; i++) {
                    box_dim *d = &slab.dim[i];
                    *d = i < j ? (box_dim){.lo = widths[i][0], .n = in->shape[i], .in_axis = -1}
                         : i == j
                             ? (box_dim){.lo = side ? widths[j][0] + in->shape[j] : 0, .n = n, .in_axis = -1}
                             : (box_dim){.lo = 0, .n = out->shape[i], .in_axis = -1};
                    empty = empty || d->n == 0;
                }
                box *added = empty ? NULL : add_box(pr, out);
                if (!empty && added == NULL)
                    goto done;
                if (added)
                    *added = slab;
            }
        }
    }
done:
    free(widths);
    free(all.v);
    return st != SG_OK ? st : pr->err->status;
}

/* ---- concatenate ------------------------------------------------------------- */

static sg_status eval_concat(program *pr, const sg_prog *node, value *out, int depth)
{
    value part = {0};
    int axis = 0;
    int64_t offset = 0;
    for (size_t k = 0; k < node->nargs; k++) {
        if (eval(pr, node->args[k], &part, depth + 1) != SG_OK)
            goto fail;
        if (k == 0) {
            if (part.rank == 0) {
                sg_fail(
                    pr->err, SG_ERR_SLICE,
                    "failed to plan program: np.concatenate: zero-dimensional arrays cannot be concatenated");
                goto fail;
            }
            if (axis_of(pr, node->axis, part.rank, "np.concatenate", &axis) != SG_OK)
                goto fail;
            out->rank = part.rank;
            memcpy(out->shape, part.shape, sizeof out->shape);
            out->shape[axis] = 0;
        } else if (part.rank != out->rank) {
            sg_fail(pr->err, SG_ERR_SLICE,
                    "failed to plan program: np.concatenate: all the input arrays must have same number of "
                    "dimensions, but the array at index 0 has %zu dimension(s) and the array at index %zu "
                    "has %zu "
                    "dimension(s)",
                    out->rank, k, part.rank);
            goto fail;
        }
        for (size_t i = 0; i < out->rank && k > 0; i++) {
            if ((int)i != axis && part.shape[i] != out->shape[i]) {
                sg_fail(
                    pr->err, SG_ERR_SLICE,
                    "failed to plan program: np.concatenate: all the input array dimensions except for the "
                    "concatenation axis must match exactly, but along dimension %zu, the array at index 0 "
                    "has size %" PRId64 " and the array at index %zu has size %" PRId64,
                    i, out->shape[i], k, part.shape[i]);
                goto fail;
            }
        }
        for (size_t b = 0; b < part.nboxes; b++) {
            box *added = add_box(pr, out);
            if (added == NULL)
                goto fail;
            *added = part.boxes[b];
            added->dim[axis].lo += offset;
        }
        if (__builtin_add_overflow(offset, part.shape[axis], &offset)) {
            sg_fail(pr->err, SG_ERR_SLICE,
                    "failed to plan program: np.concatenate: the result has more than "
                    "2^63 - 1 elements");
            goto fail;
        }
        out->shape[axis] = offset;
        value_free(&part);
    }
    if (check_size(pr, out->shape, out->rank, "np.concatenate's result") != SG_OK)
        goto fail;
    return SG_OK;
fail:
    value_free(&part);
    return pr->err->status;
}

/* ---- the tree -------------------------------------------------------------------- */

/* The input itself: one box reading every element where it lies. */
static sg_status eval_input(program *pr, value *out)
{
    out->rank = pr->in_rank;
    memcpy(out->shape, pr->in_shape, pr->in_rank * sizeof *pr->in_shape);
    for (size_t i = 0; i < pr->in_rank; i++)
        if (pr->in_shape[i] == 0)
            return SG_OK; /* empty: no box */
    box *b = add_box(pr, out);
    if (b == NULL)
        return pr->err->status;
    *b = (box){0};
    for (size_t i = 0; i < pr->in_rank; i++)
        b->dim[i] = (box_dim){.lo = 0, .n = pr->in_shape[i], .in_axis = (int)i, .start = 0, .step = 1};
    return SG_OK;
}

static sg_status eval(program *pr, const sg_prog *node, value *out, int depth)
{
    *out = (value){0};
    if (depth > SG_PROG_MAX_DEPTH)
        return sg_fail(pr->err, SG_ERR_SLICE, "failed to plan program: nested more than %d deep",
                       SG_PROG_MAX_DEPTH);
    if (node->kind == SG_PROG_INPUT)
        return eval_input(pr, out);
    if (node->kind == SG_PROG_CONCAT)
        return eval_concat(pr, node, out, depth);
    value in = {0};
    sg_status st = eval(pr, node->args[0], &in, depth + 1);
    if (st == SG_OK) {
        switch (node->kind) {
        case SG_PROG_INDEX:
        case SG_PROG_LAYER:
            st = eval_spec(pr, node->index, &in, out);
            break;
        case SG_PROG_FLIP:
            st = eval_flip(pr, node, &in, out);
            break;
        case SG_PROG_ROLL:
            st = eval_roll(pr, node, &in, out);
            break;
        case SG_PROG_PAD:
            st = eval_pad(pr, node, &in, out);
            break;
        case SG_PROG_INPUT:
        case SG_PROG_CONCAT:
            break;
        }
    }
    value_free(&in);
    if (st != SG_OK)
        value_free(out);
    return st;
}

/* ---- boxes to parts ------------------------------------------------------------ */

static bool same_fixed(const box *a, const box *b)
{
    if (a->nfixed != b->nfixed)
        return false;
    for (size_t f = 0; f < a->nfixed; f++)
        if (a->fixed[f].in_axis != b->fixed[f].in_axis || a->fixed[f].index != b->fixed[f].index)
            return false;
    return true;
}

/* Whether b continues a along dimension j (a before b), every other
 * dimension alike: then a takes b in. */
static bool merge_along(box *a, const box *b, size_t rank, size_t j)
{
    if (a->fill != b->fill || (a->fill && memcmp(a->fill_bytes, b->fill_bytes, sizeof a->fill_bytes) != 0) ||
        (!a->fill && !same_fixed(a, b)))
        return false;
    for (size_t i = 0; i < rank; i++) {
        const box_dim *x = &a->dim[i], *y = &b->dim[i];
        if (i != j && (x->lo != y->lo || x->n != y->n || x->in_axis != y->in_axis ||
                       (!a->fill && (x->start != y->start || (x->n > 1 && x->step != y->step)))))
            return false;
    }
    const box_dim *x = &a->dim[j], *y = &b->dim[j];
    if (y->lo != x->lo + x->n || x->in_axis != y->in_axis)
        return false;
    if (!a->fill && x->in_axis >= 0) {
        /* one progression: the step of the longer, or the gap between them */
        int64_t step = x->n > 1 ? x->step : y->n > 1 ? y->step : y->start - x->start;
        if ((x->n > 1 && y->n > 1 && x->step != y->step) || y->start != x->start + x->n * step)
            return false;
        a->dim[j].step = step;
    }
    a->dim[j].n += y->n;
    return true;
}

/* Merges boxes that continue each other until none do. */
static void merge_boxes(value *v)
{
    bool merged = true;
    while (merged) {
        merged = false;
        for (size_t a = 0; a < v->nboxes; a++)
            for (size_t b = 0; b < v->nboxes; b++) {
                if (a == b)
                    continue;
                bool joined = false;
                for (size_t j = 0; j < v->rank && !joined; j++)
                    joined = merge_along(&v->boxes[a], &v->boxes[b], v->rank, j);
                if (!joined)
                    continue;
                v->boxes[b] = v->boxes[--v->nboxes];
                if (a == v->nboxes)
                    a = b;
                merged = true;
            }
    }
}

/* The part that writes box b of the output (strides: its byte strides). */
static sg_status make_part(program *pr, const value *v, const box *b, const int64_t *strides, sg_part *part)
{
    sg_plan *q = calloc(1, sizeof *q);
    if (q == NULL)
        return sg_fail(pr->err, SG_ERR_NOMEM, "failed to plan program: out of memory");
    q->dtype = pr->dtype;
    q->elem_size = pr->elem_size;
    q->part = true;
    int64_t count = 1, offset = 0;
    for (size_t j = 0; j < v->rank; j++) {
        part->box[j] = b->dim[j].lo;
        offset += b->dim[j].lo * strides[j];
        count *= b->dim[j].n;
    }
    if (b->fill) {
        /* A fill of the box: a TensorRT FILL plan whose innermost
         * dimension reads outside an empty input axis, the others
         * repeating index 0 of axes of 1 (a rank-0 box: one element). */
        size_t rank = v->rank ? v->rank : 1;
        q->op = SG_OP_TRT_SLICE;
        q->mode = SG_TRT_FILL;
        memcpy(q->fill, b->fill_bytes, pr->elem_size);
        q->in_rank = q->out_rank = rank;
        for (size_t j = 0; j < rank; j++) {
            q->in_shape[j] = j + 1 < rank ? 1 : 0;
            q->out_shape[j] = v->rank ? b->dim[j].n : 1;
            q->out_strides[j] = v->rank ? strides[j] : (int64_t)pr->elem_size;
            q->map[j] = (sg_axis_map){
                .in_axis = (int)j, .start = 0, .step = j + 1 < rank ? 0 : 1, .count = q->out_shape[j]};
        }
        q->in_count = 0;
    } else {
        q->op = SG_OP_STRIDED_SLICE;
        q->in_rank = pr->in_rank;
        memcpy(q->in_shape, pr->in_shape, pr->in_rank * sizeof *pr->in_shape);
        q->out_rank = v->rank;
        q->nfixed = b->nfixed;
        memcpy(q->fixed, b->fixed, b->nfixed * sizeof *b->fixed);
        for (size_t j = 0; j < v->rank; j++) {
            const box_dim *d = &b->dim[j];
            q->out_shape[j] = d->n;
            q->out_strides[j] = strides[j];
            q->map[j] = (sg_axis_map){.in_axis = d->in_axis,
                                      .start = d->in_axis < 0 ? 0 : d->start,
                                      .step = d->in_axis < 0 || d->n == 1 ? 0 : d->step,
                                      .count = d->n};
        }
        q->in_count = pr->in_count;
    }
    q->in_bytes = (uint64_t)q->in_count * pr->elem_size;
    q->out_count = count;
    q->out_bytes = (uint64_t)count * pr->elem_size;
    q->part_span = pr->out_bytes - offset;
    part->plan = q;
    part->out_offset = offset;
    return sg_plan_fold(q, SIZE_MAX, pr->err);
}

sg_status sg_plan_build_program(const sg_spec *spec, size_t rank, const int64_t *shape, sg_dtype dtype,
                                sg_plan **out, sg_error *err)
{
    program pr = {.spec = spec,
                  .dtype = dtype,
                  .elem_size = sg_dtype_size(dtype),
                  .err = err,
                  .in_rank = rank,
                  .in_shape = shape};
    for (size_t i = 0; i < rank; i++)
        assert(shape[i] >= 0); /* the others' programs are chains' (sg_plan_build) */
    if (check_size(&pr, shape, rank, "the input") != SG_OK)
        return err->status;
    pr.in_count = 1;
    for (size_t i = 0; i < rank; i++)
        pr.in_count *= shape[i];
    value v = {0};
    sg_plan *p = calloc(1, sizeof *p);
    sg_spec *copy = NULL;
    if (p == NULL || sg_spec_copy(spec, &copy, err) != SG_OK) {
        free(p);
        return p == NULL ? sg_fail(err, SG_ERR_NOMEM, "failed to plan program: out of memory") : err->status;
    }
    p->op = SG_OP_PROGRAM;
    p->program = copy;
    p->dtype = dtype;
    p->elem_size = pr.elem_size;
    p->in_rank = rank;
    memcpy(p->in_shape, shape, rank * sizeof *shape);
    p->in_count = pr.in_count;
    p->in_bytes = (uint64_t)pr.in_count * pr.elem_size;
    if (eval(&pr, spec->prog, &v, 0) != SG_OK)
        goto fail;
    p->out_rank = v.rank;
    memcpy(p->out_shape, v.shape, v.rank * sizeof *v.shape);
    p->out_count = 1;
    for (size_t i = 0; i < v.rank; i++)
        p->out_count *= v.shape[i];
    p->out_bytes = (uint64_t)p->out_count * pr.elem_size;
    pr.out_bytes = (int64_t)p->out_bytes;
    int64_t strides[SG_MAX_RANK], stride = (int64_t)pr.elem_size;
    for (size_t j = v.rank; j-- > 0;) {
        strides[j] = stride;
        stride *= v.shape[j] ? v.shape[j] : 1;
    }
    merge_boxes(&v);
    p->parts = calloc(v.nboxes ? v.nboxes : 1, sizeof *p->parts);
    if (p->parts == NULL) {
        sg_fail(err, SG_ERR_NOMEM, "failed to plan program: out of memory for %zu parts", v.nboxes);
        goto fail;
    }
    for (size_t k = 0; k < v.nboxes; k++) {
        p->nparts++;
        if (make_part(&pr, &v, &v.boxes[k], strides, &p->parts[k]) != SG_OK)
            goto fail;
    }
    value_free(&v);
    sg_error broken = {0};
    if (sg_plan_check(p, &broken) != SG_OK) {
        sg_fail(err, SG_ERR_INTERNAL, "failed to plan program: the parts broke an invariant: %s",
                broken.message);
        goto fail;
    }
    *out = p;
    return SG_OK;
fail:
    value_free(&v);
    sg_plan_free(p);
    return err->status;
}

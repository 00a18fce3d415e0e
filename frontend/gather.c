/* Gather of a constant index tensor as a NumPy program of slices of one
 * tensor (sg_gather_program), for both model readers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

/* The most runs of consecutive indices a Gather becomes a program of. */
#define GATHER_RUNS_MAX 256

typedef struct gather_text {
    char *s;
    size_t len, cap;
    bool failed; /* out of memory */
    size_t runs;
} gather_text;

/* Appends text to t->s; t->failed when out of memory. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put_text(gather_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char piece[160];
    int k = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (t->failed || k < 0 || (size_t)k >= sizeof piece) {
        t->failed = true;
        return;
    }
    if (t->len + (size_t)k + 1 > t->cap) {
        size_t room = t->cap ? 2 * t->cap : 256;
        while (room < t->len + (size_t)k + 1)
            room *= 2;
        char *p = realloc(t->s, room);
        if (p == NULL) {
            t->failed = true;
            return;
        }
        t->s = p, t->cap = room;
    }
    memcpy(t->s + t->len, piece, (size_t)k + 1);
    t->len += (size_t)k;
}

/* The end of the run of consecutive indices (step 1 or -1) that starts at
 * idx[k] (of count), and its step. */
static size_t run_end(const int64_t *idx, size_t count, size_t k, int64_t *step)
{
    size_t j = k + 1;
    *step =
        count > k + 1 && (idx[k + 1] - idx[k] == 1 || idx[k + 1] - idx[k] == -1) ? idx[k + 1] - idx[k] : 1;
    while (j < count && idx[j] - idx[j - 1] == *step)
        j++;
    return j;
}

/* The NumPy expression of the indices idx[0 .. count) of the innermost
 * index dimension: runs of consecutive indices (step 1 or -1) each a slice
 * of x along `axis` after `nones` new axes, concatenated when more than
 * one. */
static void gather_row(gather_text *t, int64_t axis, int64_t nones, const int64_t *idx, size_t count)
{
    size_t runs = 0;
    int64_t step;
    for (size_t k = 0; k < count; k = run_end(idx, count, k, &step))
        runs++;
    t->runs += runs;
    if (runs > 1)
        put_text(t, "np.concatenate([");
    for (size_t k = 0, r = 0; k < count; r++) {
        size_t j = run_end(idx, count, k, &step);
        put_text(t, "%sx[", r ? ", " : "");
        for (int64_t a = 0; a < axis; a++)
            put_text(t, ":, ");
        for (int64_t a = 0; a < nones; a++)
            put_text(t, "None, ");
        int64_t first = idx[k], last = idx[j - 1];
        if (step == 1)
            put_text(t, "%lld:%lld]", (long long)first, (long long)(last + 1));
        else if (last > 0)
            put_text(t, "%lld:%lld:-1]", (long long)first, (long long)(last - 1));
        else
            put_text(t, "%lld::-1]", (long long)first);
        k = j;
    }
    if (runs > 1)
        put_text(t, "], axis=%lld)", (long long)(axis + nones));
}

/* The expression of the index sub-tensor of dimensions [depth, rank) at
 * element offset `at`: the rows of the last dimension, concatenated along
 * axis + depth for each dimension before it. */
static void gather_expr(gather_text *t, int64_t axis, size_t rank, const int64_t *dims, const int64_t *idx,
                        size_t depth, size_t at)
{
    if (depth + 1 == rank) {
        gather_row(t, axis, (int64_t)rank - 1, idx + at, (size_t)dims[depth]);
        return;
    }
    size_t inner = 1;
    for (size_t d = depth + 1; d < rank; d++)
        inner *= (size_t)dims[d];
    if (dims[depth] > 1)
        put_text(t, "np.concatenate([");
    for (int64_t k = 0; k < dims[depth]; k++) {
        if (k)
            put_text(t, ", ");
        gather_expr(t, axis, rank, dims, idx, depth + 1, at + (size_t)k * inner);
    }
    if (dims[depth] > 1)
        put_text(t, "], axis=%lld)", (long long)(axis + (int64_t)depth));
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
why(char *reason, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, size, fmt, ap);
    va_end(ap);
}

sg_status sg_gather_program(size_t rank, const int64_t *shape, int64_t axis, size_t index_rank,
                            const int64_t *index_dims, const int64_t *indices, size_t count, const char *role,
                            sg_spec **spec, char *reason, size_t reason_size, sg_error *err)
{
    size_t product = 1;
    *spec = NULL;
    reason[0] = '\0';
    for (size_t d = 0; d < index_rank && d < SG_MAX_RANK; d++)
        product = index_dims[d] < 0 ? 0 : product * (size_t)index_dims[d];
    if (index_rank > SG_MAX_RANK || count == 0 || product != count) {
        why(reason, reason_size, "%s has %s (no slice)", role,
            count == 0 ? "no element" : "dimensions not known");
        return SG_OK;
    }
    if (rank + index_rank - 1 > SG_MAX_RANK) {
        why(reason, reason_size, "the output would have rank %zu, more than %d", rank + index_rank - 1,
            SG_MAX_RANK);
        return SG_OK;
    }
    int64_t dim = shape[axis];
    int64_t *idx = malloc(count * sizeof *idx);
    if (idx == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < count && reason[0] == '\0'; k++) {
        int64_t i = indices[k];
        if (i < 0 && dim < 0)
            why(reason, reason_size,
                "index %lld counts from the end of axis %lld, whose size is known only at run time",
                (long long)i, (long long)axis);
        else if (dim >= 0 && (i < -dim || i >= dim))
            why(reason, reason_size, "index %lld is out of range for axis %lld of size %lld", (long long)i,
                (long long)axis, (long long)dim);
        idx[k] = i < 0 ? i + dim : i;
    }
    gather_text t = {0};
    if (reason[0] == '\0') {
        gather_expr(&t, axis, index_rank, index_dims, idx, 0, 0);
        if (t.runs > GATHER_RUNS_MAX)
            why(reason, reason_size, "%s makes %zu runs of consecutive indices, more than %d", role, t.runs,
                GATHER_RUNS_MAX);
    }
    free(idx);
    if (reason[0] != '\0' || t.failed) {
        free(t.s);
        return t.failed && reason[0] == '\0' ? sg_fail(err, SG_ERR_NOMEM, "out of memory") : SG_OK;
    }
    sg_error lerr = {0};
    sg_status st = sg_spec_parse_numpy(t.s, spec, &lerr);
    free(t.s);
    if (st == SG_ERR_NOMEM)
        return sg_fail(err, SG_ERR_NOMEM, "out of memory");
    if (st != SG_OK)
        why(reason, reason_size, "%s", lerr.message);
    return SG_OK;
}

/* The SPEC words of the command line: one NumPy expression, or
 * `--op StridedSlice|Slice|TrtSlice` with that op's options. Every option
 * takes a value, as `--opt VALUE` or `--opt=VALUE`; values may be empty. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

enum { OP_SS = 1, OP_SLICE = 2, OP_TRT = 4 };

enum slot {
    BEGIN, END, STRIDE, BEGIN_MASK, END_MASK, NEW_AXIS_MASK, SHRINK_AXIS_MASK, ELLIPSIS_MASK,
    START, STOP, STEP, AXES, SIZE, MODE, FILL, NSLOTS
};

static const struct {
    const char *name;
    int ops;      /* the ops that take it */
    bool mask;    /* a B list (else an L list, or MODE/FILL text) */
} options[NSLOTS] = {
    [BEGIN] = {"--begin", OP_SS, false},
    [END] = {"--end", OP_SS, false},
    [STRIDE] = {"--stride", OP_SS | OP_TRT, false},
    [BEGIN_MASK] = {"--begin-mask", OP_SS, true},
    [END_MASK] = {"--end-mask", OP_SS, true},
    [NEW_AXIS_MASK] = {"--new-axis-mask", OP_SS, true},
    [SHRINK_AXIS_MASK] = {"--shrink-axis-mask", OP_SS, true},
    [ELLIPSIS_MASK] = {"--ellipsis-mask", OP_SS, true},
    [START] = {"--start", OP_SLICE | OP_TRT, false},
    [STOP] = {"--stop", OP_SLICE, false},
    [STEP] = {"--step", OP_SLICE, false},
    [AXES] = {"--axes", OP_SLICE, false},
    [SIZE] = {"--size", OP_TRT, false},
    [MODE] = {"--mode", OP_TRT, false},
    [FILL] = {"--fill", OP_TRT, false},
};

static const char *const op_names[] = {"StridedSlice", "Slice", "TrtSlice"};

typedef struct lists {
    int64_t *v[NSLOTS];
    size_t n[NSLOTS];
} lists;

/* Lengths of the given lists among `slots` must agree; missing ones are skipped. */
static sg_status same_length(const lists *l, const char *const *given, const enum slot *slots,
                             int count, const char *op, sg_error *err)
{
    for (int i = 1; i < count; i++) {
        if (given[slots[i]] != NULL && l->n[slots[i]] != l->n[slots[0]])
            return sg_fail(err, SG_ERR_SPEC,
                           "failed to make %s: %s and %s must have the same length (%zu and %zu)", op,
                           options[slots[0]].name + 2, options[slots[i]].name + 2, l->n[slots[0]],
                           l->n[slots[i]]);
    }
    return SG_OK;
}

static sg_status build(int op, const char *const *given, lists *l, sg_spec **out, sg_error *err)
{
    static const enum slot required[3][2] = {{BEGIN, END}, {START, STOP}, {START, SIZE}};
    int which = op == OP_SS ? 0 : op == OP_SLICE ? 1 : 2;
    for (int i = 0; i < 2; i++)
        if (given[required[which][i]] == NULL)
            return sg_fail(err, SG_ERR_USAGE, "--op %s needs %s", op_names[which],
                           options[required[which][i]].name);
    if (op == OP_SS) {
        static const enum slot group[] = {BEGIN, END, STRIDE};
        if (same_length(l, given, group, 3, "StridedSlice", err) != SG_OK)
            return err->status;
        sg_strided_slice_args a = {
            .len = l->n[BEGIN], .begin = l->v[BEGIN], .end = l->v[END],
            .stride = given[STRIDE] ? l->v[STRIDE] : NULL,
            .begin_mask = {l->v[BEGIN_MASK], l->n[BEGIN_MASK]},
            .end_mask = {l->v[END_MASK], l->n[END_MASK]},
            .new_axis_mask = {l->v[NEW_AXIS_MASK], l->n[NEW_AXIS_MASK]},
            .shrink_axis_mask = {l->v[SHRINK_AXIS_MASK], l->n[SHRINK_AXIS_MASK]},
            .ellipsis_mask = {l->v[ELLIPSIS_MASK], l->n[ELLIPSIS_MASK]},
        };
        return sg_spec_make_strided_slice(&a, out, err);
    }
    if (op == OP_SLICE) {
        static const enum slot group[] = {START, STOP, STEP, AXES};
        if (same_length(l, given, group, 4, "Slice", err) != SG_OK)
            return err->status;
        return sg_spec_make_slice(l->n[START], l->v[START], l->v[STOP],
                                  given[STEP] ? l->v[STEP] : NULL, given[AXES] ? l->v[AXES] : NULL,
                                  out, err);
    }
    static const enum slot group[] = {START, SIZE, STRIDE};
    if (same_length(l, given, group, 3, "TrtSlice", err) != SG_OK)
        return err->status;
    sg_trt_mode mode = SG_TRT_STRICT;
    if (given[MODE] && !sg_trt_mode_parse(given[MODE], &mode))
        return sg_fail(err, SG_ERR_USAGE,
                       "unknown --mode '%s' (expected strict, wrap, clamp, fill or reflect)", given[MODE]);
    sg_scalar fill = {.kind = SG_SCALAR_INT};
    if (given[FILL]) {
        if (mode != SG_TRT_FILL)
            return sg_fail(err, SG_ERR_USAGE, "--fill needs --mode fill (the mode is %s)",
                           sg_trt_mode_name(mode));
        if (sg_scalar_from_text(given[FILL], &fill, err) != SG_OK)
            return err->status;
    }
    return sg_spec_make_trt_slice(l->n[START], l->v[START], l->v[SIZE],
                                  given[STRIDE] ? l->v[STRIDE] : NULL, mode, &fill, out, err);
}

sg_status sg_spec_parse_words(int count, char *const *words, sg_spec **out, sg_error *err)
{
    const char *given[NSLOTS] = {0};
    const char *op_text = NULL, *expr = NULL;
    lists l = {0};
    int op = 0;
    sg_status status = SG_OK;

    for (int i = 0; i < count; i++) {
        const char *w = words[i];
        if (strncmp(w, "--", 2) != 0) {
            if (expr != NULL) {
                char qw[SG_QUOTE_BUF(30)], qe[SG_QUOTE_BUF(30)];
                status = sg_fail(err, SG_ERR_USAGE, "unexpected argument '%s' (the spec is already '%s')",
                                 sg_quote(w, strlen(w), 0, 30, qw), sg_quote(expr, strlen(expr), 0, 30, qe));
                goto done;
            }
            expr = w;
            continue;
        }
        const char *eq = strchr(w, '=');
        size_t name_len = eq ? (size_t)(eq - w) : strlen(w);
        const char *value = eq ? eq + 1 : (i + 1 < count ? words[++i] : NULL);
        if (value == NULL) {
            status = sg_fail(err, SG_ERR_USAGE, "option '%s' needs a value", w);
            goto done;
        }
        if (name_len == 4 && strncmp(w, "--op", 4) == 0) {
            if (op_text != NULL) {
                status = sg_fail(err, SG_ERR_USAGE, "--op given twice");
                goto done;
            }
            op_text = value;
            continue;
        }
        int slot = -1;
        for (int s = 0; s < NSLOTS; s++)
            if (strlen(options[s].name) == name_len && strncmp(options[s].name, w, name_len) == 0)
                slot = s;
        if (slot < 0) {
            status = sg_fail(err, SG_ERR_USAGE, "unknown option '%.*s'", (int)name_len, w);
            goto done;
        }
        if (given[slot] != NULL) {
            status = sg_fail(err, SG_ERR_USAGE, "option '%s' given twice", options[slot].name);
            goto done;
        }
        given[slot] = value;
    }

    if (op_text == NULL) {
        for (int s = 0; s < NSLOTS; s++) {
            if (given[s] != NULL) {
                status = sg_fail(err, SG_ERR_USAGE, "%s needs --op (StridedSlice, Slice or TrtSlice)",
                                 options[s].name);
                goto done;
            }
        }
        if (expr == NULL) {
            status = sg_fail(err, SG_ERR_USAGE,
                             "no slice given: pass an index expression such as '[1:, ::-1]' or --op");
            goto done;
        }
        status = sg_spec_parse_numpy(expr, out, err);
        goto done;
    }
    for (int k = 0; k < 3; k++)
        if (strcmp(op_text, op_names[k]) == 0)
            op = 1 << k;
    if (op == 0) {
        status = sg_fail(err, SG_ERR_USAGE, "unknown --op '%s' (expected StridedSlice, Slice or TrtSlice)",
                         op_text);
        goto done;
    }
    if (expr != NULL) {
        char q[SG_QUOTE_BUF(SG_QUOTE_SIDE)];
        status = sg_fail(err, SG_ERR_USAGE, "an index expression ('%s') cannot be combined with --op",
                         sg_quote(expr, strlen(expr), 0, SG_QUOTE_SIDE, q));
        goto done;
    }
    for (int s = 0; s < NSLOTS; s++) {
        if (given[s] == NULL)
            continue;
        if (!(options[s].ops & op)) {
            status = sg_fail(err, SG_ERR_USAGE, "%s is not an option of --op %s", options[s].name, op_text);
            goto done;
        }
        if (s == MODE || s == FILL)
            continue;
        status = options[s].mask ? sg_parse_mask_list(given[s], options[s].name, &l.v[s], &l.n[s], err)
                                 : sg_parse_int_list(given[s], options[s].name, &l.v[s], &l.n[s], err);
        if (status != SG_OK)
            goto done;
    }
    status = build(op, given, &l, out, err);
done:
    for (int s = 0; s < NSLOTS; s++)
        free(l.v[s]);
    return status;
}

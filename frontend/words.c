/* The SPEC words of the command line: one NumPy expression, or
 * `--op StridedSlice|Slice|TrtSlice|OnnxSlice|Pad|Split` with that op's options. Every option
 * takes a value, as `--opt VALUE` or `--opt=VALUE`; values may be empty. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

enum { OP_SS = 1, OP_SLICE = 2, OP_TRT = 4, OP_ONNX = 8, OP_PAD = 16, OP_SPLIT = 32 };

/* What an option holds: an L list whose items may name runtime values, a
 * B list (constants), or text (the mode, the fill, Split's axis and output). */
enum { NUMBERS, MASK, TEXT };

enum slot {
    BEGIN,
    END,
    STRIDE,
    BEGIN_MASK,
    END_MASK,
    NEW_AXIS_MASK,
    SHRINK_AXIS_MASK,
    ELLIPSIS_MASK,
    START,
    STOP,
    STEP,
    AXES,
    SIZE,
    MODE,
    FILL,
    PADS_BEGIN,
    PADS_END,
    VALUE,
    SPLIT,
    PARTS,
    CHUNKS,
    AXIS,
    OUTPUT,
    NSLOTS
};

static const struct {
    const char *name;
    const char *field; /* the list as messages index it: "begin_mask" */
    int ops;           /* the ops that take it */
    int kind;          /* what it holds */
} options[NSLOTS] = {
    [BEGIN] = {"--begin", "begin", OP_SS, NUMBERS},
    [END] = {"--end", "end", OP_SS, NUMBERS},
    [STRIDE] = {"--stride", "stride", OP_SS | OP_TRT, NUMBERS},
    [BEGIN_MASK] = {"--begin-mask", "begin_mask", OP_SS, MASK},
    [END_MASK] = {"--end-mask", "end_mask", OP_SS, MASK},
    [NEW_AXIS_MASK] = {"--new-axis-mask", "new_axis_mask", OP_SS, MASK},
    [SHRINK_AXIS_MASK] = {"--shrink-axis-mask", "shrink_axis_mask", OP_SS, MASK},
    [ELLIPSIS_MASK] = {"--ellipsis-mask", "ellipsis_mask", OP_SS, MASK},
    [START] = {"--start", "start", OP_SLICE | OP_ONNX | OP_TRT, NUMBERS},
    [STOP] = {"--stop", "stop", OP_SLICE | OP_ONNX, NUMBERS},
    [STEP] = {"--step", "step", OP_SLICE | OP_ONNX, NUMBERS},
    [AXES] = {"--axes", "axes", OP_SLICE | OP_ONNX | OP_PAD, NUMBERS},
    [SIZE] = {"--size", "size", OP_TRT, NUMBERS},
    [MODE] = {"--mode", "mode", OP_TRT | OP_PAD, TEXT},
    [FILL] = {"--fill", "fill", OP_TRT, TEXT},
    [PADS_BEGIN] = {"--pads-begin", "pads_begin", OP_PAD, NUMBERS},
    [PADS_END] = {"--pads-end", "pads_end", OP_PAD, NUMBERS},
    [VALUE] = {"--value", "value", OP_PAD, TEXT},
    [SPLIT] = {"--split", "split", OP_SPLIT, NUMBERS},
    [PARTS] = {"--parts", "parts", OP_SPLIT, TEXT},
    [CHUNKS] = {"--chunks", "chunks", OP_SPLIT, TEXT},
    [AXIS] = {"--axis", "axis", OP_SPLIT, TEXT},
    [OUTPUT] = {"--output", "output", OP_SPLIT, TEXT},
};

/* By op bit: 1 << k is op_names[k]. */
static const char *const op_names[] = {"StridedSlice", "Slice", "TrtSlice", "OnnxSlice", "Pad", "Split"};
enum { NOPS = sizeof op_names / sizeof *op_names };
#define OP_LIST "StridedSlice, Slice, TrtSlice, OnnxSlice, Pad or Split"

typedef struct lists {
    int64_t *v[NSLOTS];
    uint16_t *ref[NSLOTS]; /* value references (sg_value_refs) */
    size_t n[NSLOTS];
    uint16_t fill_ref;    /* --fill or --value a runtime value: its reference */
    sg_value_table table; /* the runtime values, in order of the words */
} lists;

/* Lengths of the given lists among `slots` must agree; missing ones are skipped. */
static sg_status same_length(const lists *l, const char *const *given, const enum slot *slots, int count,
                             const char *op, sg_error *err)
{
    for (int i = 1; i < count; i++) {
        if (given[slots[i]] != NULL && l->n[slots[i]] != l->n[slots[0]])
            return sg_fail(
                err, SG_ERR_SPEC, "failed to make %s: %s and %s must have the same length (%zu and %zu)", op,
                options[slots[0]].name + 2, options[slots[i]].name + 2, l->n[slots[0]], l->n[slots[i]]);
    }
    return SG_OK;
}

/* Whether text is one identifier, as a runtime value's name would be. */
static bool is_name(const char *text)
{
    return *text != '\0' && sg_identifier_length(text) == strlen(text);
}

/* The failure for a runtime value's name where a constant must be. */
static sg_status refuse_name(const char *op, enum slot s, const char *name, size_t index, sg_error *err)
{
    char q[SG_QUOTE_BUF(30)];
    return sg_fail(err, SG_ERR_SPEC,
                   "failed to make %s: %s must be numbers, not the runtime value name '%s' (%s[%zu])", op,
                   options[s].name, sg_quote(name, strlen(name), 0, 30, q), options[s].field, index);
}

/* Whether the text of --fill or --value names a runtime value: an
 * identifier that is no scalar ("nan", "inf", "true" and "false" are). */
static bool is_fill_name(const char *text)
{
    sg_scalar scalar;
    sg_error ignored = {0};
    return is_name(text) && sg_scalar_from_text(text, &scalar, &ignored) != SG_OK;
}

/* The mode, which stays constant, and the fill value of TrtSlice (--mode,
 * --fill) or Pad (--mode, --value), unless that names a runtime value
 * (`named`: then only its mode is checked). */
static sg_status mode_constants(int op, const char *const *given, bool named, sg_trt_mode *mode, sg_scalar *fill,
                                sg_error *err)
{
    char q[SG_QUOTE_BUF(30)];
    bool pad = op == OP_PAD;
    enum slot fill_slot = pad ? VALUE : FILL;
    const char *fill_mode = pad ? "constant" : "fill";
    if (given[MODE] && !(pad ? sg_pad_mode_parse(given[MODE], mode) : sg_trt_mode_parse(given[MODE], mode))) {
        bool name = is_name(given[MODE]);
        return sg_fail(err, name ? SG_ERR_SPEC : SG_ERR_USAGE, "unknown --mode '%s' (expected %s%s)",
                       sg_quote(given[MODE], strlen(given[MODE]), 0, 30, q),
                       pad ? "constant, edge, reflect or wrap" : "strict, wrap, clamp, fill or reflect",
                       name ? "; --mode cannot name a runtime value" : "");
    }
    if (given[fill_slot]) {
        sg_error scalar_err = {0};
        if (*mode != SG_TRT_FILL)
            return sg_fail(err, SG_ERR_USAGE, "%s needs --mode %s (the mode is %s)", options[fill_slot].name,
                           fill_mode, pad ? sg_pad_mode_name(*mode) : sg_trt_mode_name(*mode));
        if (!named && sg_scalar_from_text(given[fill_slot], fill, &scalar_err) != SG_OK)
            return sg_fail(err, scalar_err.status, "%s", scalar_err.message);
    }
    return SG_OK;
}

/* Split's --axis, --output, --parts or --chunks: one integer (an axis may
 * be negative), a constant; *value is left as it was when the option is
 * not given. */
static sg_status split_number(const char *const *given, enum slot s, int64_t *value, sg_error *err)
{
    char q[SG_QUOTE_BUF(30)];
    const char *text = given[s];
    if (text == NULL)
        return SG_OK;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno != 0 || (s != AXIS && v < 0))
        return sg_fail(err, SG_ERR_SPEC, "failed to make Split: %s must be %s, not '%s'%s", options[s].name,
                       s == OUTPUT ? "an output's index (0, 1, ...)" : s == AXIS ? "an integer" : "a count of parts",
                       sg_quote(text, strlen(text), 0, 30, q),
                       is_name(text) ? " (it cannot name a runtime value)" : "");
    *value = v;
    return SG_OK;
}

static sg_status build(int op, const char *const *given, lists *l, sg_spec **out, sg_error *err)
{
    static const enum slot required[NOPS][2] = {
        {BEGIN, END}, {START, STOP}, {START, SIZE}, {START, STOP}, {PADS_BEGIN, PADS_END}, {OUTPUT, OUTPUT}};
    int which = 0;
    while (op != 1 << which)
        which++;
    for (int i = 0; i < 2; i++)
        if (given[required[which][i]] == NULL)
            return sg_fail(err, SG_ERR_USAGE, "--op %s needs %s", op_names[which],
                           options[required[which][i]].name);
    if (op == OP_SS) {
        static const enum slot group[] = {BEGIN, END, STRIDE};
        if (same_length(l, given, group, 3, "StridedSlice", err) != SG_OK)
            return err->status;
        sg_strided_slice_args a = {
            .len = l->n[BEGIN],
            .begin = l->v[BEGIN],
            .end = l->v[END],
            .stride = given[STRIDE] ? l->v[STRIDE] : NULL,
            .begin_mask = {l->v[BEGIN_MASK], l->n[BEGIN_MASK]},
            .end_mask = {l->v[END_MASK], l->n[END_MASK]},
            .new_axis_mask = {l->v[NEW_AXIS_MASK], l->n[NEW_AXIS_MASK]},
            .shrink_axis_mask = {l->v[SHRINK_AXIS_MASK], l->n[SHRINK_AXIS_MASK]},
            .ellipsis_mask = {l->v[ELLIPSIS_MASK], l->n[ELLIPSIS_MASK]},
        };
        sg_value_refs values = {{l->ref[BEGIN], l->ref[END], l->ref[STRIDE]}, 0, &l->table};
        return sg_spec_make_strided_slice(&a, &values, out, err);
    }
    if (op == OP_SLICE || op == OP_ONNX) {
        static const enum slot group[] = {START, STOP, STEP, AXES};
        if (same_length(l, given, group, 4, op_names[which], err) != SG_OK)
            return err->status;
        sg_value_refs values = {{l->ref[START], l->ref[STOP], l->ref[STEP], l->ref[AXES]}, 0, &l->table};
        return (op == OP_SLICE ? sg_spec_make_slice : sg_spec_make_onnx_slice)(
            l->n[START], l->v[START], l->v[STOP], given[STEP] ? l->v[STEP] : NULL,
            given[AXES] ? l->v[AXES] : NULL, &values, out, err);
    }
    if (op == OP_SPLIT) {
        int64_t axis = 0, output = 0, parts = 0;
        int ways = (given[SPLIT] != NULL) + (given[PARTS] != NULL) + (given[CHUNKS] != NULL);
        if (ways != 1)
            return sg_fail(err, SG_ERR_USAGE, "--op Split needs one of --split, --parts and --chunks (%d given)",
                           ways);
        enum slot by = given[PARTS] ? PARTS : CHUNKS;
        if (split_number(given, AXIS, &axis, err) != SG_OK || split_number(given, OUTPUT, &output, err) != SG_OK ||
            split_number(given, by, &parts, err) != SG_OK)
            return err->status;
        if (given[SPLIT] == NULL)
            return sg_spec_make_split_parts(parts, by == PARTS ? SG_SPLIT_PARTS : SG_SPLIT_CHUNKS, axis,
                                            (size_t)output, out, err);
        sg_value_refs values = {{l->ref[SPLIT]}, 0, &l->table};
        return sg_spec_make_split(l->n[SPLIT], l->v[SPLIT], axis, (size_t)output, &values, out, err);
    }
    sg_scalar fill = {.kind = SG_SCALAR_INT};
    if (op == OP_PAD) {
        static const enum slot group[] = {PADS_BEGIN, PADS_END, AXES};
        sg_trt_mode mode = SG_TRT_FILL;
        if (same_length(l, given, group, 3, "Pad", err) != SG_OK ||
            mode_constants(op, given, l->fill_ref != 0, &mode, &fill, err) != SG_OK)
            return err->status;
        sg_value_refs values = {{l->ref[PADS_BEGIN], l->ref[PADS_END], NULL, l->ref[AXES]}, l->fill_ref, &l->table};
        return sg_spec_make_pad(l->n[PADS_BEGIN], l->v[PADS_BEGIN], l->v[PADS_END],
                                given[AXES] ? l->v[AXES] : NULL, mode, &fill, &values, out, err);
    }
    static const enum slot group[] = {START, SIZE, STRIDE};
    if (same_length(l, given, group, 3, "TrtSlice", err) != SG_OK)
        return err->status;
    sg_trt_mode mode = SG_TRT_STRICT;
    if (mode_constants(op, given, l->fill_ref != 0, &mode, &fill, err) != SG_OK)
        return err->status;
    sg_value_refs values = {{l->ref[START], l->ref[SIZE], l->ref[STRIDE]}, l->fill_ref, &l->table};
    return sg_spec_make_trt_slice(l->n[START], l->v[START], l->v[SIZE], given[STRIDE] ? l->v[STRIDE] : NULL,
                                  mode, &fill, &values, out, err);
}

sg_status sg_spec_parse_words(int count, char *const *words, sg_spec **out, sg_error *err)
{
    const char *given[NSLOTS] = {0};
    const char *op_text = NULL, *expr = NULL;
    lists l = {0};
    enum slot order[NSLOTS]; /* the options given, in the order of the words */
    int op = 0, norder = 0;
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
        order[norder++] = (enum slot)slot;
    }

    if (op_text == NULL) {
        for (int s = 0; s < NSLOTS; s++) {
            if (given[s] != NULL) {
                status = sg_fail(err, SG_ERR_USAGE, "%s needs --op (" OP_LIST ")", options[s].name);
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
    for (int k = 0; k < NOPS; k++)
        if (strcmp(op_text, op_names[k]) == 0)
            op = 1 << k;
    if (op == 0) {
        status = sg_fail(err, SG_ERR_USAGE, "unknown --op '%s' (expected " OP_LIST ")", op_text);
        goto done;
    }
    if (expr != NULL) {
        char q[SG_QUOTE_BUF(SG_QUOTE_SIDE)];
        status = sg_fail(err, SG_ERR_USAGE, "an index expression ('%s') cannot be combined with --op",
                         sg_quote(expr, strlen(expr), 0, SG_QUOTE_SIDE, q));
        goto done;
    }
    for (int k = 0; k < norder; k++) {
        enum slot s = order[k];
        if (!(options[s].ops & op)) {
            status = sg_fail(err, SG_ERR_USAGE, "%s is not an option of --op %s", options[s].name, op_text);
            goto done;
        }
    }
    for (int k = 0; k < norder; k++) { /* values are numbered as the words come */
        enum slot s = order[k];
        if ((s == FILL || s == VALUE) && is_fill_name(given[s])) {
            const char *why = NULL;
            status = sg_value_table_ref(&l.table, given[s], strlen(given[s]), &l.fill_ref, &why);
            if (status != SG_OK) {
                status = sg_fail(err, status, "failed to parse %s: %s", options[s].name, why ? why : "out of memory");
                goto done;
            }
            continue;
        }
        if (options[s].kind == TEXT)
            continue;
        status = sg_parse_value_list(given[s], options[s].name, options[s].kind == MASK, &l.table, &l.v[s],
                                     &l.ref[s], &l.n[s], err);
        for (size_t i = 0; status == SG_OK && options[s].kind != NUMBERS && i < l.n[s]; i++)
            if (l.ref[s][i] != 0)
                status = refuse_name(op_text, s, l.table.names[l.ref[s][i] - 1], i, err);
        if (status != SG_OK)
            goto done;
    }
    status = build(op, given, &l, out, err);
done:
    for (int s = 0; s < NSLOTS; s++) {
        free(l.v[s]);
        free(l.ref[s]);
    }
    sg_value_table_free(&l.table);
    return status;
}

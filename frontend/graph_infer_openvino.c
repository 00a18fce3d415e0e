/* Shape inference of OpenVINO's operators (the domain "openvino" of a
 * model graph that openvino_graph.c decodes): the rows of
 * sg_gi_openvino_rules, which graph_infer.c's walk consults as it does
 * ONNX's. A node's version is its opset number ("opset8": 8), and its
 * attributes are the strings of its <data>: numbers "-1", lists "0, 1",
 * flags "true" and "false", element types "i64".
 *
 * Semantics are those of OpenVINO's operator specifications (opsets 1 to
 * 15). A rule reads what decides the shape; an operator with no row
 * leaves its outputs unknown, and what the file states about them (every
 * port states a shape) is taken as given. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_rules.h"
#include "openvino_graph.h"

/* ---- attributes ------------------------------------------------------------------- */

/* Attribute `name`'s text, or NULL when absent. */
static const char *text_attr(ctx *c, const char *name)
{
    const sg_gattr *a = sg_gnode_attr(c->n, name);
    return a != NULL && a->kind == SG_GATTR_STRING && a->s != NULL ? a->s : NULL;
}

/* An integer attribute, or def when absent. */
static sg_status int_attr(ctx *c, const char *name, int64_t def, int64_t *v)
{
    const char *text = text_attr(c, name);
    char buf[32];
    size_t n = text ? strlen(text) : 0;
    *v = def;
    if (text == NULL)
        return SG_OK;
    while (n > 0 && text[n - 1] == ' ')
        n--;
    while (n > 0 && *text == ' ')
        text++, n--;
    if (n == 0 || n >= sizeof buf)
        return fail(c, "attribute '%s' is not an integer", name);
    memcpy(buf, text, n);
    buf[n] = '\0';
    if (!sg_parse_int64(buf, v))
        return fail(c, "attribute '%s' is not an integer ('%s')", name, buf);
    return SG_OK;
}

/* A list attribute ("1,2", "1, 2" or ""): at most `cap` integers into v,
 * *n of them; *n -1 when absent. */
static sg_status ints_attr(ctx *c, const char *name, int64_t *v, size_t cap, int64_t *n)
{
    const char *text = text_attr(c, name);
    int64_t *items = NULL;
    size_t len = 0;
    sg_error lerr = {0};
    *n = -1;
    if (text == NULL)
        return SG_OK;
    sg_status st = sg_parse_int_list(text, name, &items, &len, &lerr);
    if (st == SG_ERR_NOMEM)
        return nomem(c);
    if (st != SG_OK)
        return fail(c, "attribute '%s' is not a list of integers", name);
    if (len > cap) {
        free(items);
        return fail(c, "attribute '%s' has %zu values, more than %zu", name, len, cap);
    }
    if (len > 0)
        memcpy(v, items, len * sizeof *v);
    free(items);
    *n = (int64_t)len;
    return SG_OK;
}

/* A flag attribute ("true", "false", "1" or "0", any case), or def. */
static sg_status bool_attr(ctx *c, const char *name, bool def, bool *v)
{
    const char *text = text_attr(c, name);
    *v = def;
    if (text == NULL)
        return SG_OK;
    if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0 || strcmp(text, "True") == 0 ||
        strcmp(text, "TRUE") == 0)
        *v = true;
    else if (strcmp(text, "0") == 0 || strcmp(text, "false") == 0 || strcmp(text, "False") == 0 ||
             strcmp(text, "FALSE") == 0)
        *v = false;
    else
        return fail(c, "attribute '%s' is '%s', not true or false", name, text);
    return SG_OK;
}

/* An element type attribute (destination_type, output_type...), or def. */
static sg_status type_attr(ctx *c, const char *name, int def, int *type)
{
    const char *text = text_attr(c, name);
    *type = text ? sg_ir_graph_type(text) : def;
    if (*type == SG_GTYPE_UNKNOWN && text != NULL)
        *type = def;
    return SG_OK;
}

/* Input i's only element as an integer (a scalar or one element). */
static bool in_one(ctx *c, size_t i, int64_t *v)
{
    int64_t all[MAXV], n;
    if (!in_ints(c, i, all, &n) || n != 1)
        return false;
    *v = all[0];
    return true;
}

/* ---- elementwise ------------------------------------------------------------------ */

/* Binary elementwise operators (the row's op), auto_broadcast numpy (the
 * default) or none (equal shapes, which NumPy's rule keeps); pdpd
 * broadcasts the second input to the first, whose shape the output takes.
 * Divide's python_division (the default) floors integers. */
static sg_status ov_binary(ctx *c)
{
    const char *mode = text_attr(c, "auto_broadcast");
    int op = c->arg;
    bool python;
    if (mode != NULL && strcmp(mode, "pdpd") == 0) {
        shp x;
        in_shape(c, 0, &x);
        if ((op & 0xff) >= B_EQ && (op & 0xff) <= B_XOR)
            x.type = SG_BOOL;
        return set_out(c, 0, &x);
    }
    if (mode != NULL && strcmp(mode, "numpy") != 0 && strcmp(mode, "none") != 0)
        return fail(c, "attribute 'auto_broadcast' is '%s', not numpy, none or pdpd", mode);
    if (op == B_DIV) {
        TRY(bool_attr(c, "m_pythondiv", true, &python));
        op = python ? B_FLOORDIV : B_DIV;
    }
    return sg_gi_elementwise(c, op);
}

/* Convert-1 (destination_type), ConvertLike-1 (input 1's type). */
static sg_status ov_convert(ctx *c)
{
    int to = in_type(c, 1);
    if (c->arg == 0) {
        if (text_attr(c, "destination_type") == NULL)
            return fail(c, "attribute 'destination_type' is missing");
        TRY(type_attr(c, "destination_type", SG_GTYPE_UNKNOWN, &to));
    }
    return sg_gi_cast(c, to);
}

/* ShapeOf-1 (i64), ShapeOf-3 (output_type). */
static sg_status ov_shape_of(ctx *c)
{
    int type = SG_I64;
    if (c->n->version >= 3)
        TRY(type_attr(c, "output_type", SG_I64, &type));
    return sg_gi_shape(c, type, 0, INT64_MAX);
}

/* ---- shapes ----------------------------------------------------------------------- */

/* Concat-0/1: every input connected. */
static sg_status ov_concat(ctx *c)
{
    int64_t axis;
    for (size_t i = 0; i < c->n->nin; i++)
        if (in_t(c, i) == NULL)
            return fail(c, "input %zu is not connected", i);
    if (text_attr(c, "axis") == NULL)
        return fail(c, "attribute 'axis' is missing");
    TRY(int_attr(c, "axis", 0, &axis));
    return sg_gi_concat(c, axis);
}

/* Reshape-1: special_zero copies the input's dimension for a 0. */
static sg_status ov_reshape(ctx *c)
{
    sg_val v[MAXV];
    int64_t n;
    bool special_zero;
    TRY(bool_attr(c, "special_zero", false, &special_zero));
    if (!in_vals(c, 1, v, &n))
        n = -1;
    return sg_gi_reshape(c, v, n, !special_zero);
}

/* Squeeze-0/1 (axes optional: every dimension of 1), Unsqueeze-0/1. */
static sg_status ov_squeeze(ctx *c)
{
    int64_t axes[MAXV], n = -1;
    if (in_t(c, 1) != NULL && !in_ints(c, 1, axes, &n))
        n = -2;
    return c->arg ? sg_gi_unsqueeze(c, axes, n) : sg_gi_squeeze(c, axes, n);
}

/* Transpose-1: the order is input 1 (empty: reversed). */
static sg_status ov_transpose(ctx *c)
{
    int64_t order[MAXV], n;
    shp x, t;
    if (in_ints(c, 1, order, &n))
        return sg_gi_transpose(c, n > 0 ? order : NULL, (size_t)n);
    x.type = in_type(c, 0);
    x.rank = -1;
    if (in_shape(c, 1, &t) && t.rank == 1 && sg_is_const(t.d[0]) && t.d[0].k > 0 && t.d[0].k <= MAXR)
        fresh_shape(c, 0, (int)t.d[0].k, &x);
    return set_out(c, 0, &x);
}

/* Broadcast-1/3: mode numpy (the default) and explicit make the target
 * shape, bidirectional (3) broadcasts the input and the target both ways. */
static sg_status ov_broadcast(ctx *c)
{
    const char *mode = text_attr(c, "mode");
    shp x, s;
    bool known = in_shape(c, 0, &x), sk;
    TRY(sg_gi_shape_input(c, 1, &s, &sk));
    if (mode == NULL)
        mode = "numpy";
    s.type = x.type;
    if (strcmp(mode, "numpy") != 0 && strcmp(mode, "explicit") != 0 && strcmp(mode, "bidirectional") != 0)
        return fail(c, "attribute 'mode' is '%s', not numpy, explicit or bidirectional", mode);
    if (!sk) {
        if (s.rank >= 0 && strcmp(mode, "bidirectional") != 0)
            fresh_shape(c, 0, s.rank, &s);
        else
            s.rank = -1;
        return set_out(c, 0, &s);
    }
    if (strcmp(mode, "explicit") == 0)
        return set_out(c, 0, &s);
    if (!known)
        return strcmp(mode, "numpy") == 0 ? set_out(c, 0, &s) : set_unknown(c, 0, x.type);
    if (strcmp(mode, "bidirectional") == 0) {
        TRY(sg_gi_bcast(c, &x, &s, &s));
    } else {
        shp check;
        TRY(sg_gi_bcast(c, &x, &s, &check)); /* the input must broadcast to the target */
    }
    return sg_gi_broadcast_to(c, &s);
}

/* Tile-0/1: repeats shorter than the rank are padded with ones in front;
 * a rank below the repeats' count with dimensions of 1 in front. */
static sg_status ov_tile(ctx *c)
{
    shp x, o;
    sg_val r[MAXV], reps[MAXR];
    int64_t n;
    if (!in_shape(c, 0, &x))
        return set_out(c, 0, &x);
    if (!in_vals(c, 1, r, &n)) {
        fresh_shape(c, 0, x.rank, &x);
        return set_out(c, 0, &x);
    }
    int rank = x.rank > n ? x.rank : (int)n;
    if (rank > MAXR)
        return set_unknown(c, 0, x.type);
    o.type = x.type;
    o.rank = rank;
    for (int i = 0; i < rank; i++) {
        int xi = i - (rank - x.rank), ri = i - (rank - (int)n);
        o.d[i] = xi >= 0 ? x.d[xi] : sg_const(1);
        reps[i] = ri >= 0 ? r[ri] : sg_const(1);
    }
    return sg_gi_tile(c, &o, reps);
}

/* ---- Gather, StridedSlice, Slice, Split, Pad -------------------------------------- */

/* Gather-1/7/8: the axis is input 2; batch_dims (7, 8). An index outside
 * the axis (Gather-8: zeros) leaves the output's values unknown. */
static sg_status ov_gather(ctx *c)
{
    int64_t axis, batch_dims = 0;
    if (!in_one(c, 2, &axis)) {
        shp x;
        in_shape(c, 0, &x);
        return set_unknown(c, 0, x.type);
    }
    if (c->n->version >= 7)
        TRY(int_attr(c, "batch_dims", 0, &batch_dims));
    return sg_gi_gather(c, axis, batch_dims, false);
}

/* The masks of StridedSlice: begin, end, new axis, shrink, ellipsis. */
enum { M_BEGIN, M_END, M_NEW, M_SHRINK, M_ELLIPSIS, M_COUNT };

/* One step's bit of a mask (0 past its end). */
static bool bit(const int64_t *mask, int64_t n, int64_t i)
{
    return i < n && mask[i] != 0;
}

/* StridedSlice-1 with NumPy's and OpenVINO's rule: a new axis wins over a
 * shrink, a shrink over an ellipsis; the ellipsis stands for the axes no
 * other step consumes, and axes past the steps are whole. Bounds from
 * values the graph knows (constants or expressions); a step whose bounds
 * or stride are not known makes a fresh dimension. */
static sg_status ov_strided_slice(ctx *c)
{
    static const char *const names[M_COUNT] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                                               "ellipsis_mask"};
    shp x, o, t;
    int64_t mask[M_COUNT][MAXV], nm[M_COUNT];
    sg_val b[MAXV], e[MAXV], s[MAXV];
    int64_t nb, ne, ns = -1;
    bool known = in_shape(c, 0, &x);
    o.type = x.type;
    o.rank = -1;
    for (int m = 0; m < M_COUNT; m++) {
        TRY(ints_attr(c, names[m], mask[m], MAXV, &nm[m]));
        if (nm[m] < 0 && m <= M_END)
            return fail(c, "attribute '%s' is missing", names[m]);
        for (int64_t i = 0; i < nm[m]; i++)
            if (mask[m][i] != 0 && mask[m][i] != 1)
                return fail(c, "attribute '%s' holds %" PRId64 ", not 0 or 1", names[m], mask[m][i]);
    }
    if (in_t(c, 1) == NULL || in_t(c, 2) == NULL)
        return fail(c, "begin and end are required");
    for (size_t i = 1; i <= 3; i++)
        if (in_t(c, i) != NULL && (!in_shape(c, i, &t) || t.rank != 1))
            return t.rank >= 0 ? fail(c, "input %zu has rank %d, not 1", i, t.rank) : set_out(c, 0, &o);
    bool values = in_vals(c, 1, b, &nb);
    values = in_vals(c, 2, e, &ne) && values;
    if (in_t(c, 3) != NULL)
        values = in_vals(c, 3, s, &ns) && values;
    /* the steps' count: the values', else the inputs' length */
    in_shape(c, 1, &t);
    if (!sg_is_const(t.d[0]) || t.d[0].k > MAXV)
        return set_out(c, 0, &o);
    int64_t len = t.d[0].k;
    for (size_t i = 2; i <= 3; i++)
        if (in_t(c, i) != NULL && in_shape(c, i, &t) && sg_is_const(t.d[0]) && t.d[0].k != len)
            return fail(c, "begin has %" PRId64 " elements and input %zu %" PRId64, len, i, t.d[0].k);
    if (!known)
        return set_out(c, 0, &o);
    int64_t consuming = 0, ellipses = 0;
    for (int64_t i = 0; i < len; i++) {
        bool newaxis = bit(mask[M_NEW], nm[M_NEW], i), shrink = bit(mask[M_SHRINK], nm[M_SHRINK], i);
        bool ellipsis = bit(mask[M_ELLIPSIS], nm[M_ELLIPSIS], i);
        consuming += !newaxis && (shrink || !ellipsis);
        ellipses += !newaxis && !shrink && ellipsis;
    }
    if (consuming > x.rank || ellipses > 1)
        return fail(c, "%" PRId64 " steps consume axes of rank %d (%" PRId64 " ellipses)", consuming, x.rank,
                    ellipses);
    /* the data's axes: each picked whole, at one index (shrunk) or as a
     * slice from first by step */
    sg_val first[MAXR], count[MAXR];
    int64_t step[MAXR];
    bool shrunk[MAXR] = {false}, picked = values;
    int axis = 0;
    o.rank = 0;
    for (int64_t i = 0; i <= len; i++) {
        bool newaxis = i < len && bit(mask[M_NEW], nm[M_NEW], i);
        bool shrink = i < len && bit(mask[M_SHRINK], nm[M_SHRINK], i);
        bool ellipsis = i < len && bit(mask[M_ELLIPSIS], nm[M_ELLIPSIS], i);
        int whole = i == len                            ? x.rank - axis
                    : (ellipsis && !newaxis && !shrink) ? x.rank - (int)consuming
                                                        : 0;
        if (o.rank + (newaxis ? 1 : whole + !shrink) > MAXR)
            return set_unknown(c, 0, x.type);
        if (newaxis) {
            o.d[o.rank++] = sg_const(1);
            continue;
        }
        for (int k = 0; k < whole; k++, axis++) {
            first[axis] = sg_const(0), step[axis] = 1, count[axis] = x.d[axis];
            o.d[o.rank++] = x.d[axis];
        }
        if (i == len || (ellipsis && !shrink))
            continue;
        sg_val d = x.d[axis], stride = ns >= 0 ? s[i] : sg_const(1);
        if (shrink) {
            shrunk[axis] = true, step[axis] = 1, count[axis] = sg_const(1);
            first[axis] = values ? b[i] : sg_const(0);
            if (values && sg_is_const(b[i]) && sg_is_const(d)) {
                if (b[i].k < -d.k || b[i].k >= d.k)
                    return fail(c, "index %" PRId64 " is out of range for axis %d of size %" PRId64, b[i].k,
                                axis, d.k);
                first[axis] = sg_const(b[i].k < 0 ? b[i].k + d.k : b[i].k);
            }
            axis++;
            continue;
        }
        if (!values || !sg_is_const(stride)) {
            o.d[o.rank] = fresh(c, 0, o.rank);
            o.rank++;
            picked = false;
            axis++;
            continue;
        }
        if (stride.k == 0)
            return fail(c, "stride 0 on axis %d", axis);
        bool back = stride.k < 0;
        sg_val start = bit(mask[M_BEGIN], nm[M_BEGIN], i) ? sg_const(back ? INT64_MAX : 0) : b[i];
        sg_val end = bit(mask[M_END], nm[M_END], i) ? sg_const(back ? INT64_MIN : INT64_MAX) : e[i];
        step[axis] = stride.k;
        count[axis] = sg_gi_slice_len(c, d, start, end, stride.k, &first[axis]);
        o.d[o.rank++] = count[axis];
        axis++;
    }
    TRY(set_out(c, 0, &o));
    /* values: a 1-D shape tensor sliced, most often */
    const sg_gtensor *src = in_t(c, 0);
    int64_t sd[MAXVR], od[MAXVR], total, oc = 1;
    if (!picked || !known_vals(src) || !const_dims(&x, sd, &total) || total == 0)
        return SG_OK;
    int64_t map[MAXVR][MAXV];
    for (int a = 0; a < x.rank; a++) {
        if (!sg_is_const(first[a]) || !sg_is_const(count[a]) || count[a].k > MAXV)
            return SG_OK;
        od[a] = count[a].k;
        oc *= od[a];
        for (int64_t j = 0; j < od[a]; j++)
            map[a][j] = first[a].k + j * step[a];
        if (shrunk[a] && (first[a].k < 0 || first[a].k >= sd[a]))
            return SG_OK;
    }
    if (oc == 0 || oc > MAXV)
        return SG_OK;
    sg_val v[MAXV];
    sg_gi_pick_vals(src->values, sd, x.rank, map, od, oc, v);
    return set_vals(c, 0, oc, v);
}

/* Split-1: num_splits equal parts along the axis (input 1). */
static sg_status ov_split(ctx *c)
{
    shp x;
    int64_t axis, parts;
    size_t nout = c->n->nout;
    sg_val sz[MAXV];
    bool known = in_shape(c, 0, &x);
    TRY(int_attr(c, "num_splits", 0, &parts));
    if (parts <= 0 || (size_t)parts != nout || nout > MAXV)
        return fail(c, "num_splits %" PRId64 " for %zu outputs", parts, nout);
    if (!known || !in_one(c, 1, &axis)) {
        for (size_t k = 0; k < nout; k++)
            TRY(set_unknown(c, k, x.type));
        return SG_OK;
    }
    int a;
    TRY(norm_axis(c, axis, x.rank, &a));
    if (sg_is_const(x.d[a]) && x.d[a].k % parts != 0)
        return fail(c, "axis %d of size %" PRId64 " does not split into %" PRId64 " equal parts", a, x.d[a].k,
                    parts);
    for (size_t k = 0; k < nout; k++)
        sz[k] = sg_x(EX(c), SG_X_CDIV, x.d[a], sg_const(parts));
    return sg_gi_split_parts(c, &x, a, sz);
}

/* VariadicSplit-1: the lengths (input 2), one of them -1 for the rest;
 * lengths not all constants make fresh dimensions. */
static sg_status ov_variadic_split(ctx *c)
{
    shp x;
    int64_t axis, n;
    size_t nout = c->n->nout;
    sg_val sz[MAXV];
    bool known = in_shape(c, 0, &x);
    if (!known || !in_one(c, 1, &axis) || nout > MAXV) {
        for (size_t k = 0; k < nout; k++)
            TRY(set_unknown(c, k, x.type));
        return SG_OK;
    }
    int a;
    TRY(norm_axis(c, axis, x.rank, &a));
    bool constants = in_vals(c, 2, sz, &n);
    for (int64_t k = 0; constants && k < n; k++)
        constants = sg_is_const(sz[k]);
    if (constants && (size_t)n != nout)
        return fail(c, "%" PRId64 " split lengths for %zu outputs", n, nout);
    if (!constants) { /* an expression might be the -1 */
        for (size_t k = 0; k < nout; k++)
            sz[k] = fresh(c, k, a);
        return sg_gi_split_parts(c, &x, a, sz);
    }
    sg_val rest = x.d[a];
    size_t unknown = SIZE_MAX;
    for (size_t k = 0; k < nout; k++) {
        if (sz[k].k == -1 && unknown == SIZE_MAX) {
            unknown = k;
            continue;
        }
        if (sz[k].k < 0)
            return fail(c, "split length %" PRId64 " is negative", sz[k].k);
        rest = sg_x_sub(EX(c), rest, sz[k]);
    }
    if (sg_is_const(rest) && (rest.k < 0 || (unknown == SIZE_MAX && rest.k != 0)))
        return fail(c, "the split lengths do not add up to axis %d's size", a);
    if (unknown != SIZE_MAX)
        sz[unknown] = rest;
    return sg_gi_split_parts(c, &x, a, sz);
}

/* Pad-1/12: pads_begin and pads_end (inputs 1, 2) added to each axis
 * (Pad-12: negative ones crop). */
static sg_status ov_pad(ctx *c)
{
    shp x;
    sg_val b[MAXV], e[MAXV];
    int64_t nb, ne;
    if (!in_shape(c, 0, &x))
        return set_out(c, 0, &x);
    bool known = in_vals(c, 1, b, &nb);
    known = in_vals(c, 2, e, &ne) && known;
    if (!known) {
        fresh_shape(c, 0, x.rank, &x);
        return set_out(c, 0, &x);
    }
    if (nb != x.rank || ne != x.rank)
        return fail(c, "%" PRId64 " and %" PRId64 " pads for rank %d", nb, ne, x.rank);
    for (int i = 0; i < x.rank; i++) {
        sg_val d = sg_x_add(EX(c), sg_x_add(EX(c), x.d[i], b[i]), e[i]);
        if (sg_is_const(d) && d.k < 0)
            return fail(c, "the pads leave axis %d a size of %" PRId64, i, d.k);
        x.d[i] = d;
    }
    return set_out(c, 0, &x);
}

/* ---- products, windows, reductions ------------------------------------------------- */

/* MatMul-0/1: transpose_a and transpose_b swap the last two dimensions of
 * an input of rank 2 or more. */
static sg_status ov_matmul(ctx *c)
{
    shp a, b, o;
    bool ta, tb;
    in_shape(c, 0, &a);
    in_shape(c, 1, &b);
    TRY(bool_attr(c, "transpose_a", false, &ta));
    TRY(bool_attr(c, "transpose_b", false, &tb));
    shp *s[2] = {&a, &b};
    bool t[2] = {ta, tb};
    for (int i = 0; i < 2; i++)
        if (t[i] && s[i]->rank >= 2) {
            sg_val d = s[i]->d[s[i]->rank - 1];
            s[i]->d[s[i]->rank - 1] = s[i]->d[s[i]->rank - 2];
            s[i]->d[s[i]->rank - 2] = d;
        }
    TRY(sg_gi_matmul_shape(c, &a, &b, &o));
    o.type = a.type;
    if (o.rank > MAXR)
        o.rank = -1;
    return set_out(c, 0, &o);
}

/* The window of a convolution or pooling over n spatial axes from
 * strides, dilations (absent: ones), pads_begin, pads_end and auto_pad
 * (explicit or notset, same_upper, same_lower, valid). */
static sg_status read_window(ctx *c, int n, window *w)
{
    const char *pad = text_attr(c, "auto_pad");
    int64_t v[4][MAXV], nv[4];
    static const char *const names[4] = {"strides", "dilations", "pads_begin", "pads_end"};
    w->n = n;
    for (int k = 0; k < 4; k++) {
        TRY(ints_attr(c, names[k], v[k], MAXV, &nv[k]));
        if (nv[k] < 0 && k != 1)
            return fail(c, "attribute '%s' is missing", names[k]);
        if (nv[k] >= 0 && nv[k] != n)
            return fail(c, "attribute '%s' has %" PRId64 " values for %d spatial axes", names[k], nv[k], n);
    }
    for (int i = 0; i < n; i++) {
        w->s[i] = v[0][i];
        w->d[i] = nv[1] < 0 ? 1 : v[1][i];
        w->pb[i] = v[2][i];
        w->pe[i] = v[3][i];
        if (w->s[i] <= 0 || w->d[i] <= 0 || w->pb[i] < 0 || w->pe[i] < 0)
            return fail(c, "a stride or dilation is not positive, or a pad is negative");
    }
    if (pad == NULL || strcmp(pad, "explicit") == 0 || strcmp(pad, "notset") == 0)
        w->pad = PAD_NOTSET;
    else if (strcmp(pad, "same_upper") == 0)
        w->pad = PAD_SAME_UPPER;
    else if (strcmp(pad, "same_lower") == 0)
        w->pad = PAD_SAME_LOWER;
    else if (strcmp(pad, "valid") == 0)
        w->pad = PAD_VALID;
    else
        return fail(c, "attribute 'auto_pad' is '%s', not explicit, same_upper, same_lower or valid", pad);
    return SG_OK;
}

/* Convolution-1 (filters [C_OUT, C_IN, k...]) and GroupConvolution-1
 * (arg 1: filters [GROUPS, C_OUT, C_IN, k...]). */
static sg_status ov_convolution(ctx *c)
{
    shp x, f, o;
    bool known = in_shape(c, 0, &x), fk = in_shape(c, 1, &f);
    int k0 = c->arg ? 3 : 2;
    o.type = x.type;
    if (!known || !fk)
        return set_unknown(c, 0, x.type);
    if (x.rank < 3 || f.rank != x.rank + c->arg)
        return fail(c, "the input has rank %d and the filters rank %d", x.rank, f.rank);
    window w;
    TRY(read_window(c, x.rank - 2, &w));
    o.rank = x.rank;
    o.d[0] = x.d[0];
    o.d[1] = c->arg ? sg_x_mul(EX(c), f.d[0], f.d[1]) : f.d[0];
    for (int i = 0; i < w.n; i++) {
        w.k[i] = f.d[k0 + i];
        TRY(sg_gi_window_out(c, &w, i, x.d[2 + i], false, &o.d[2 + i]));
    }
    return set_out(c, 0, &o);
}

/* MaxPool-1/8/14, AvgPool-1/14: kernel, rounding_type floor (ceil and
 * ceil_torch make fresh dimensions); MaxPool-8's indices of
 * index_element_type. */
static sg_status ov_pool(ctx *c)
{
    shp x;
    int64_t kernel[MAXV], nk;
    const char *rounding = text_attr(c, "rounding_type");
    int index_type;
    TRY(type_attr(c, "index_element_type", SG_I64, &index_type));
    if (!in_shape(c, 0, &x)) {
        TRY(set_unknown(c, 0, x.type));
        return set_unknown(c, 1, index_type);
    }
    if (x.rank < 3)
        return fail(c, "the input has rank %d, less than 3", x.rank);
    window w;
    TRY(read_window(c, x.rank - 2, &w));
    TRY(ints_attr(c, "kernel", kernel, MAXV, &nk));
    if (nk != w.n)
        return fail(c, "attribute 'kernel' has %" PRId64 " values for %d spatial axes", nk, w.n);
    bool floor = rounding == NULL || strcmp(rounding, "floor") == 0;
    for (int i = 0; i < w.n; i++) {
        if (kernel[i] <= 0)
            return fail(c, "attribute 'kernel' has %" PRId64 ", not a positive number", kernel[i]);
        w.k[i] = sg_const(kernel[i]);
        if (floor)
            TRY(sg_gi_window_out(c, &w, i, x.d[2 + i], false, &x.d[2 + i]));
        else
            x.d[2 + i] = fresh(c, 0, 2 + i);
    }
    TRY(set_out(c, 0, &x));
    x.type = index_type;
    return set_out(c, 1, &x);
}

/* ReduceSum and friends (axes input 1, keep_dims), whose empty axes keep
 * every axis. */
static sg_status ov_reduce(ctx *c)
{
    int64_t axes[MAXV], n;
    bool keep;
    TRY(bool_attr(c, "keep_dims", false, &keep));
    if (!in_ints(c, 1, axes, &n))
        n = -2;
    return sg_gi_reduce(c, axes, n, keep, true);
}

/* Range-1 (the inputs' type), Range-4 (output_type). */
static sg_status ov_range(ctx *c)
{
    int type = in_type(c, 0);
    if (c->n->version >= 4)
        TRY(type_attr(c, "output_type", type, &type));
    return sg_gi_range(c, type);
}

/* TopK-1/3/11: k is input 1, along `axis`; indices of index_element_type
 * (i32 by default). */
static sg_status ov_topk(ctx *c)
{
    int64_t axis;
    int index_type;
    sg_val k;
    if (text_attr(c, "axis") == NULL)
        return fail(c, "attribute 'axis' is missing");
    TRY(int_attr(c, "axis", 0, &axis));
    TRY(type_attr(c, "index_element_type", SG_I32, &index_type));
    return sg_gi_topk(c, axis, in_scalar(c, 1, &k) ? &k : NULL, index_type);
}

/* Parameter, Const, Result: what the reader set. */
static sg_status ov_preset(ctx *c)
{
    (void)c;
    return SG_OK;
}

/* clang-format off */
const sg_gi_rule sg_gi_openvino_rules[] = {
    {"openvino", "Abs", sg_gi_same, V_ABS, SA_DATA, false},
    {"openvino", "Acos", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Acosh", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Add", ov_binary, B_ADD, SA_ANY, false},
    {"openvino", "Asin", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Asinh", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Atan", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Atanh", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "AvgPool", ov_pool, 0, SA_NONE, false},
    {"openvino", "BitwiseAnd", ov_binary, B_BITAND, SA_ANY, false},
    {"openvino", "BitwiseNot", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "BitwiseOr", ov_binary, B_BITOR, SA_ANY, false},
    {"openvino", "BitwiseXor", ov_binary, B_BITXOR, SA_ANY, false},
    {"openvino", "Broadcast", ov_broadcast, 0, SA_DATA, false},
    {"openvino", "Ceiling", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Clamp", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Concat", ov_concat, 0, SA_ANY, false},
    {"openvino", "Const", ov_preset, 0, SA_NONE, true},
    {"openvino", "Convert", ov_convert, 0, SA_DATA, false},
    {"openvino", "ConvertLike", ov_convert, 1, SA_DATA, false},
    {"openvino", "Convolution", ov_convolution, 0, SA_NONE, false},
    {"openvino", "Cos", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Cosh", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Divide", ov_binary, B_DIV, SA_ANY, false},
    {"openvino", "Elu", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Equal", ov_binary, B_EQ, SA_ANY, false},
    {"openvino", "Erf", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Exp", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "FakeQuantize", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Floor", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "FloorMod", ov_binary, B_MOD, SA_ANY, false},
    {"openvino", "Gather", ov_gather, 0, SA_DATA, false},
    {"openvino", "Gelu", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Greater", ov_binary, B_GT, SA_ANY, false},
    {"openvino", "GreaterEqual", ov_binary, B_GE, SA_ANY, false},
    {"openvino", "GroupConvolution", ov_convolution, 1, SA_NONE, false},
    {"openvino", "HSigmoid", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "HSwish", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "HardSigmoid", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Less", ov_binary, B_LT, SA_ANY, false},
    {"openvino", "LessEqual", ov_binary, B_LE, SA_ANY, false},
    {"openvino", "Log", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "LogSoftmax", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "LogicalAnd", ov_binary, B_AND, SA_ANY, false},
    {"openvino", "LogicalNot", sg_gi_same, V_NOT, SA_DATA, false},
    {"openvino", "LogicalOr", ov_binary, B_OR, SA_ANY, false},
    {"openvino", "LogicalXor", ov_binary, B_XOR, SA_ANY, false},
    {"openvino", "MVN", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "MatMul", ov_matmul, 0, SA_NONE, false},
    {"openvino", "MaxPool", ov_pool, 0, SA_NONE, false},
    {"openvino", "Maximum", ov_binary, B_MAX, SA_ANY, false},
    {"openvino", "Minimum", ov_binary, B_MIN, SA_ANY, false},
    {"openvino", "Mish", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Mod", ov_binary, B_MOD | FMOD, SA_ANY, false},
    {"openvino", "Multiply", ov_binary, B_MUL, SA_ANY, false},
    {"openvino", "Negative", sg_gi_same, V_NEG, SA_DATA, false},
    {"openvino", "NormalizeL2", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "NotEqual", ov_binary, B_NE, SA_ANY, false},
    {"openvino", "PRelu", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Pad", ov_pad, 0, SA_NONE, false},
    {"openvino", "Parameter", ov_preset, 0, SA_NONE, true},
    {"openvino", "Power", ov_binary, B_POW, SA_ANY, false},
    {"openvino", "Range", ov_range, 0, SA_ANY, false},
    {"openvino", "ReduceL1", ov_reduce, 0, SA_NONE, false},
    {"openvino", "ReduceL2", ov_reduce, 0, SA_NONE, false},
    {"openvino", "ReduceLogicalAnd", ov_reduce, 0, SA_NONE, false},
    {"openvino", "ReduceLogicalOr", ov_reduce, 0, SA_NONE, false},
    {"openvino", "ReduceMax", ov_reduce, 0, SA_DATA, false},
    {"openvino", "ReduceMean", ov_reduce, 0, SA_NONE, false},
    {"openvino", "ReduceMin", ov_reduce, 0, SA_DATA, false},
    {"openvino", "ReduceProd", ov_reduce, 0, SA_DATA, false},
    {"openvino", "ReduceSum", ov_reduce, 0, SA_DATA, false},
    {"openvino", "Relu", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Reshape", ov_reshape, 0, SA_DATA, false},
    {"openvino", "Result", ov_preset, 0, SA_NONE, true},
    {"openvino", "Round", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "ScatterElementsUpdate", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "ScatterNDUpdate", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "ScatterUpdate", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Select", sg_gi_where, 0, SA_BRANCHES, false},
    {"openvino", "Selu", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "ShapeOf", ov_shape_of, 0, SA_ALWAYS, false},
    {"openvino", "ShuffleChannels", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Sigmoid", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Sign", sg_gi_same, V_SIGN, SA_DATA, false},
    {"openvino", "Sin", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Sinh", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Slice", sg_gi_slice, 1, SA_DATA, false},
    {"openvino", "SoftMax", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "SoftPlus", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "SoftSign", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Softmax", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Split", ov_split, 0, SA_DATA, false},
    {"openvino", "Sqrt", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "SquaredDifference", ov_binary, B_OTHER, SA_ANY, false},
    {"openvino", "Squeeze", ov_squeeze, 0, SA_DATA, false},
    {"openvino", "StridedSlice", ov_strided_slice, 0, SA_DATA, false},
    {"openvino", "Subtract", ov_binary, B_SUB, SA_ANY, false},
    {"openvino", "Swish", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Tan", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Tanh", sg_gi_same, V_NONE, SA_NONE, false},
    {"openvino", "Tile", ov_tile, 0, SA_DATA, false},
    {"openvino", "TopK", ov_topk, 0, SA_NONE, false},
    {"openvino", "Transpose", ov_transpose, 0, SA_DATA, false},
    {"openvino", "Unsqueeze", ov_squeeze, 1, SA_DATA, false},
    {"openvino", "VariadicSplit", ov_variadic_split, 0, SA_DATA, false},
};
/* clang-format on */

const size_t sg_gi_openvino_nrules = sizeof sg_gi_openvino_rules / sizeof *sg_gi_openvino_rules;

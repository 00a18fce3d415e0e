/* The frontend of NumPy programs (SG_OP_PROGRAM, frontend/program.c):
 *   - every form: chains of indices, parentheses, np.flip, np.roll, np.pad
 *     and np.concatenate with each spelling of their arguments, nested;
 *     the canonical text of each, and the tree it makes (kinds, numbers,
 *     columns);
 *   - the round trip: the canonical text reads into the same text and the
 *     same tree; sg_spec_copy, sg_spec_bind and sg_spec_same;
 *   - one index of one array still reads as SG_OP_NUMPY, runtime values
 *     and its messages included;
 *   - every error, with its message and column, and the limits;
 *   - seeded random programs, written in random spellings: parsed, printed,
 *     parsed again.
 * SLICEGEN_SEED=N reproduces the random part; the seed is always printed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../frontend/frontend.h"
#include "../support/check.h"
#include "../support/seeded.h"

static struct {
    check_counts counts;
} suite = {CHECK_COUNTS_INIT};
#define S (&suite)

enum { TEXT_MAX = 1 << 16 };

static sg_status parse(const char *text, sg_spec **spec, sg_error *err)
{
    *err = (sg_error){0};
    *spec = NULL;
    return sg_spec_parse_numpy(text, spec, err);
}

/* Whether two trees are the same, columns included when `columns`. */
static bool same_tree(const sg_prog *a, const sg_prog *b, bool columns)
{
    if (a->kind != b->kind || a->nargs != b->nargs || (columns && a->column != b->column))
        return false;
    if ((a->index != NULL) != (b->index != NULL) || (a->index != NULL && !sg_spec_same(a->index, b->index)))
        return false;
    if (a->naxes != b->naxes || a->all_axes != b->all_axes || a->nshifts != b->nshifts || a->axis != b->axis)
        return false;
    if ((a->naxes && memcmp(a->axes, b->axes, a->naxes * sizeof *a->axes) != 0) ||
        (a->nshifts && memcmp(a->shifts, b->shifts, a->nshifts * sizeof *a->shifts) != 0))
        return false;
    if (a->width_rows != b->width_rows || a->width_cols != b->width_cols || a->width_dims != b->width_dims ||
        (a->widths && memcmp(a->widths, b->widths, a->width_rows * a->width_cols * sizeof *a->widths) != 0))
        return false;
    char x[SG_SCALAR_TEXT], y[SG_SCALAR_TEXT];
    sg_scalar_format(&a->fill, x);
    sg_scalar_format(&b->fill, y);
    if (a->pad_mode != b->pad_mode || a->fill_given != b->fill_given || a->fill.kind != b->fill.kind ||
        strcmp(x, y) != 0)
        return false;
    for (size_t i = 0; i < a->nargs; i++)
        if (!same_tree(a->args[i], b->args[i], columns))
            return false;
    return true;
}

/* The canonical text of a program reads into the same text and tree; its
 * copy, and its binding when it has no values, are the same spec, columns
 * included. */
static void check_round_trip(const sg_spec *spec, const char *source)
{
    char *text = sg_spec_to_text(spec);
    sg_spec *again = NULL, *copy = NULL, *bound = NULL;
    sg_error err;
    CHECK(S, strcmp(text, spec->program) == 0, "'%s': printed '%s', its program is '%s'", source, text,
          spec->program);
    if (CHECK(S, parse(text, &again, &err) == SG_OK, "'%s' printed as '%s' does not read: %s", source, text,
              err.message) &&
        CHECK(S, again->op == SG_OP_PROGRAM, "'%s' printed as '%s' reads as a %s", source, text,
              sg_op_name(again->op))) {
        CHECK(S, strcmp(again->program, text) == 0 && sg_spec_same(spec, again),
              "'%s' printed as '%s' reads as '%s'", source, text, again->program);
        CHECK(S, same_tree(spec->prog, again->prog, false), "'%s' printed as '%s' reads into another tree",
              source, text);
    }
    if (CHECK(S, sg_spec_copy(spec, &copy, &err) == SG_OK, "'%s': no copy: %s", source, err.message)) {
        sg_spec_check(copy);
        CHECK(S, sg_spec_same(spec, copy) && same_tree(spec->prog, copy->prog, true),
              "'%s': the copy differs", source);
    }
    if (spec->nvalues == 0 && /* (with values: test_values) */
        CHECK(S, sg_spec_bind(spec, NULL, &bound, &err) == SG_OK, "'%s': no binding: %s", source,
              err.message))
        CHECK(S, sg_spec_same(spec, bound) && same_tree(spec->prog, bound->prog, true),
              "'%s': the binding differs", source);
    sg_spec_free(again);
    sg_spec_free(copy);
    sg_spec_free(bound);
    free(text);
}

/* ---- every form, its canonical text ------------------------------------------------------------------- */

static const struct {
    const char *text, *canonical;
} forms[] = {
    /* chains and parentheses */
    {"x[1:][::-1]", "x[1:][::-1]"},
    {"x[1:, ::2][:, ::-1]", "x[1:, ::2][:, ::-1]"},
    {"x[::-1][2:]", "x[::-1][2:]"},
    {" x [ 1 : ] [ 2 : ] ", "x[1:][2:]"},
    {"img[..., 0][None]", "img[..., 0][None]"},
    {"_a1[()][np.newaxis, 1,]", "_a1[...][None, 1]"},
    {"x[1:][2:][3:][::2]", "x[1:][2:][3:][::2]"},
    {"(x)", "(x)"},
    {"((x))[1:]", "(x)[1:]"},
    {"(x[1:])[2:]", "x[1:][2:]"},
    {"( ( x [1:] ) ) [2:] [3]", "x[1:][2:][3]"},
    /* np.flip */
    {"np.flip(x)", "np.flip(x, axis=None)"},
    {"np.flip(x, None)", "np.flip(x, axis=None)"},
    {"np.flip(x, axis=None)", "np.flip(x, axis=None)"},
    {"np.flip(x, 0)", "np.flip(x, axis=0)"},
    {"np.flip(x, axis=-1)", "np.flip(x, axis=-1)"},
    {"np.flip(x, axis=(0, 2))", "np.flip(x, axis=(0, 2))"},
    {"np.flip(x, [0, 2])", "np.flip(x, axis=(0, 2))"},
    {"np.flip(x, (1,))", "np.flip(x, axis=1)"},
    {"np.flip(x, [1])", "np.flip(x, axis=1)"},
    {"np.flip(x, (1))", "np.flip(x, axis=1)"},
    {"np.flip(x, ((0, 1)))", "np.flip(x, axis=(0, 1))"},
    {"np.flip(x, axis=())", "np.flip(x, axis=())"},
    {"np.flip(m=x, axis=+1_0)", "np.flip(x, axis=10)"},
    {"np.flip(axis=1, m=x)", "np.flip(x, axis=1)"},
    {"numpy.flip(x, 0)", "np.flip(x, axis=0)"},
    {"np . flip ( x , 0 , )", "np.flip(x, axis=0)"},
    {"np.flip(x, axis = - 1)", "np.flip(x, axis=-1)"},
    {"np.flip(x, -9223372036854775808)", "np.flip(x, axis=-9223372036854775808)"},
    {"np.flip(x, 0)[1:]", "np.flip(x, axis=0)[1:]"},
    /* np.roll */
    {"np.roll(x, 1, 0)", "np.roll(x, shift=1, axis=0)"},
    {"np.roll(x, shift=(1, -2), axis=(0, 1))", "np.roll(x, shift=(1, -2), axis=(0, 1))"},
    {"np.roll(x, (1,), axis=[0])", "np.roll(x, shift=1, axis=0)"},
    {"np.roll(x, 2, axis=(0, 1))", "np.roll(x, shift=2, axis=(0, 1))"},
    {"np.roll(a=x, axis=1, shift=-3)", "np.roll(x, shift=-3, axis=1)"},
    {"np.roll(x, [1, 2], (0,))", "np.roll(x, shift=(1, 2), axis=0)"},
    {"np.roll(x, (), ())", "np.roll(x, shift=(), axis=())"},
    /* np.pad */
    {"np.pad(x, 1)", "np.pad(x, 1, mode='constant')"},
    {"np.pad(x, (1,))", "np.pad(x, (1,), mode='constant')"},
    {"np.pad(x, [1])", "np.pad(x, (1,), mode='constant')"},
    {"np.pad(x, (1, 2))", "np.pad(x, (1, 2), mode='constant')"},
    {"np.pad(x, ((1, 2),))", "np.pad(x, ((1, 2),), mode='constant')"},
    {"np.pad(x, ((1, 2), (0, 0)), mode='reflect')", "np.pad(x, ((1, 2), (0, 0)), mode='reflect')"},
    {"np.pad(x, [[1, 2], [0, 0]], 'reflect')", "np.pad(x, ((1, 2), (0, 0)), mode='reflect')"},
    {"np.pad(x, ((1,), (2,)), mode=\"edge\")", "np.pad(x, ((1,), (2,)), mode='edge')"},
    {"np.pad(x, ((-1, 2), (0, -3)), mode='wrap')", "np.pad(x, ((-1, 2), (0, -3)), mode='wrap')"},
    {"np.pad(x, 2, mode='symmetric', reflect_type='even')", "np.pad(x, 2, mode='symmetric')"},
    {"np.pad(x, 2, 'reflect', reflect_type=\"even\")", "np.pad(x, 2, mode='reflect')"},
    {"np.pad(x, 1, mode='constant')", "np.pad(x, 1, mode='constant')"},
    {"np.pad(x, 1, constant_values=0)", "np.pad(x, 1, mode='constant', constant_values=0)"},
    {"np.pad(x, 1, constant_values=-7)", "np.pad(x, 1, mode='constant', constant_values=-7)"},
    {"np.pad(x, 1, constant_values=1_000)", "np.pad(x, 1, mode='constant', constant_values=1000)"},
    {"np.pad(x, 1, constant_values=18446744073709551615)",
     "np.pad(x, 1, mode='constant', constant_values=18446744073709551615)"},
    {"np.pad(x, 1, constant_values=-1.5)", "np.pad(x, 1, mode='constant', constant_values=-1.5)"},
    {"np.pad(x, 1, constant_values=2.)", "np.pad(x, 1, mode='constant', constant_values=2.0)"},
    {"np.pad(x, 1, constant_values=.25e1)", "np.pad(x, 1, mode='constant', constant_values=2.5)"},
    {"np.pad(x, 1, constant_values=1e300)",
     "np.pad(x, 1, mode='constant', constant_values=1.0000000000000001e+300)"},
    {"np.pad(x, 1, constant_values=-0.0)", "np.pad(x, 1, mode='constant', constant_values=-0.0)"},
    {"np.pad(x, 1, constant_values=nan)", "np.pad(x, 1, mode='constant', constant_values=nan)"},
    {"np.pad(x, 1, constant_values=np.nan)", "np.pad(x, 1, mode='constant', constant_values=nan)"},
    {"np.pad(x, 1, constant_values=- numpy.inf)", "np.pad(x, 1, mode='constant', constant_values=-inf)"},
    {"np.pad(x, 1, constant_values=inf)", "np.pad(x, 1, mode='constant', constant_values=inf)"},
    {"np.pad(x, 1, constant_values=True)", "np.pad(x, 1, mode='constant', constant_values=True)"},
    {"np.pad(x, 1, constant_values=False)", "np.pad(x, 1, mode='constant', constant_values=False)"},
    {"np.pad(array=x, pad_width=1, constant_values=7, mode='constant')",
     "np.pad(x, 1, mode='constant', constant_values=7)"},
    /* np.concatenate */
    {"np.concatenate([x, x[1:]])", "np.concatenate([x, x[1:]], axis=0)"},
    {"np.concatenate((x, x), axis=1)", "np.concatenate([x, x], axis=1)"},
    {"np.concatenate((x,), 1)", "np.concatenate([x], axis=1)"},
    {"np.concatenate([x,], -1)", "np.concatenate([x], axis=-1)"},
    {"np.concatenate(seq=[x], axis=(2))", "np.concatenate([x], axis=2)"},
    {"np.concatenate([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], axis=1)",
     "np.concatenate([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], axis=1)"},
    /* nesting */
    {"np.pad(np.flip(np.roll(x[1:], 1, 0), 1), 1)[::2]",
     "np.pad(np.flip(np.roll(x[1:], shift=1, axis=0), axis=1), 1, mode='constant')[::2]"},
    {"np.concatenate([np.flip(x, 0), (np.pad(x, ((0, 1),), 'edge'))[:-1]], axis=0)[::-1]",
     "np.concatenate([np.flip(x, axis=0), np.pad(x, ((0, 1),), mode='edge')[:-1]], axis=0)[::-1]"},
    {"np.concatenate([np.concatenate([x, x], 1), x[:, :2]], 1)",
     "np.concatenate([np.concatenate([x, x], axis=1), x[:, :2]], axis=1)"},
    /* model layers' slices, as aot --fuse writes them ('' an empty word) */
    {"np.concatenate([OnnxSlice(x, '--start 0 --stop 9 --step 2 --axes -1'), Pad(x[:, 1:], \"--pads-begin 1 "
     "--pads-end -1 --mode reflect\")], axis=1)",
     "np.concatenate([OnnxSlice(x, \"--start 0 --stop 9 --step 2 --axes -1\"), Pad(x[:, 1:], \"--pads-begin "
     "1 "
     "--pads-end -1 --mode reflect\")], axis=1)"},
    {"StridedSlice( TrtSlice(x, \"--start -1 --size 5 --stride 1 --mode wrap\") , \"--begin 1 --end 0 "
     "--begin-mask '' --end-mask 1\")[::2]",
     "StridedSlice(TrtSlice(x, \"--start -1 --size 5 --stride 1 --mode wrap\"), \"--begin 1 --end 0 --stride "
     "1 "
     "--begin-mask 0 --end-mask 1 --new-axis-mask 0 --shrink-axis-mask 0 --ellipsis-mask 0\")[::2]"},
};

static void test_forms(void)
{
    for (size_t c = 0; c < sizeof forms / sizeof *forms; c++) {
        sg_spec *spec;
        sg_error err;
        if (!CHECK(S, parse(forms[c].text, &spec, &err) == SG_OK, "'%s' does not parse: %s", forms[c].text,
                   err.message))
            continue;
        sg_spec_check(spec);
        if (CHECK(S, spec->op == SG_OP_PROGRAM && spec->len == 0 && spec->nvalues == 0, "'%s' is a %s spec",
                  forms[c].text, sg_op_name(spec->op))) {
            CHECK(S, strcmp(spec->program, forms[c].canonical) == 0, "'%s' reads as '%s', not '%s'",
                  forms[c].text, spec->program, forms[c].canonical);
            check_round_trip(spec, forms[c].text);
        }
        sg_spec_free(spec);
    }
}

/* ---- the trees ---------------------------------------------------------------------------------------- */

static sg_spec *read_program(const char *text)
{
    sg_spec *spec;
    sg_error err;
    if (!CHECK(S, parse(text, &spec, &err) == SG_OK, "'%s' does not parse: %s", text, err.message))
        return NULL;
    if (!CHECK(S, spec->op == SG_OP_PROGRAM, "'%s' is a %s spec", text, sg_op_name(spec->op))) {
        sg_spec_free(spec);
        return NULL;
    }
    return spec;
}

static bool ints_are(const int64_t *v, size_t n, size_t want_n, const int64_t *want)
{
    return n == want_n && (n == 0 || memcmp(v, want, n * sizeof *v) == 0);
}

static void test_trees(void)
{
    /* a chain on a call: INDEX(FLIP(INPUT)), with the columns of '[', "np" and the name */
    sg_spec *spec = read_program("np.flip(x, 0)[1:]");
    if (spec != NULL) {
        const sg_prog *index = spec->prog, *flip = index->args[0];
        CHECK(S, index->kind == SG_PROG_INDEX && index->column == 14 && index->nargs == 1,
              "np.flip(x, 0)[1:]: the root is no index at column 14");
        CHECK(S,
              index->index->op == SG_OP_NUMPY && index->index->len == 1 &&
                  !index->index->steps[0].begin_mask && index->index->steps[0].begin == 1 &&
                  index->index->steps[0].end_mask,
              "np.flip(x, 0)[1:]: the index is not [1:]");
        CHECK(S,
              flip->kind == SG_PROG_FLIP && flip->column == 1 && !flip->all_axes &&
                  ints_are(flip->axes, flip->naxes, 1, (int64_t[]){0}),
              "np.flip(x, 0)[1:]: no flip of axis 0 at column 1");
        CHECK(S,
              flip->args[0]->kind == SG_PROG_INPUT && flip->args[0]->column == 9 && flip->args[0]->nargs == 0,
              "np.flip(x, 0)[1:]: the input is not at column 9");
        sg_spec_free(spec);
    }
    /* each index at its '[', through parentheses */
    if ((spec = read_program("(x)[::2][1]")) != NULL) {
        CHECK(S,
              spec->prog->column == 9 && spec->prog->args[0]->column == 4 &&
                  spec->prog->args[0]->args[0]->column == 2,
              "(x)[::2][1]: columns %zu, %zu, %zu", spec->prog->column, spec->prog->args[0]->column,
              spec->prog->args[0]->args[0]->column);
        sg_spec_free(spec);
    }
    if ((spec = read_program("np.flip(x)")) != NULL) {
        CHECK(S, spec->prog->all_axes && spec->prog->naxes == 0, "np.flip(x): not every axis");
        sg_spec_free(spec);
    }
    if ((spec = read_program("np.flip(x, ())")) != NULL) {
        CHECK(S, !spec->prog->all_axes && spec->prog->naxes == 0, "np.flip(x, ()): not no axis");
        sg_spec_free(spec);
    }
    if ((spec = read_program("np.roll(x, shift=(1, -2), axis=[0, 1])")) != NULL) {
        const sg_prog *roll = spec->prog;
        CHECK(S,
              roll->kind == SG_PROG_ROLL && ints_are(roll->shifts, roll->nshifts, 2, (int64_t[]){1, -2}) &&
                  ints_are(roll->axes, roll->naxes, 2, (int64_t[]){0, 1}) && !roll->all_axes,
              "np.roll: shifts or axes differ");
        sg_spec_free(spec);
    }
    static const struct {
        const char *text;
        size_t rows, cols, dims;
        int64_t widths[4];
        sg_trt_mode mode;
    } pads[] = {
        {"np.pad(x, 3)", 1, 1, 0, {3}, SG_TRT_FILL},
        {"np.pad(x, (3,), 'edge')", 1, 1, 1, {3}, SG_TRT_CLAMP},
        {"np.pad(x, (3, -4), mode='reflect')", 1, 2, 1, {3, -4}, SG_TRT_REFLECT},
        {"np.pad(x, ((3, 4),), mode='symmetric')", 1, 2, 2, {3, 4}, SG_MODE_SYMMETRIC},
        {"np.pad(x, ((1,), (2,)), mode='wrap')", 2, 1, 2, {1, 2}, SG_TRT_WRAP},
        {"np.pad(x, [[1, 2], [3, 4]])", 2, 2, 2, {1, 2, 3, 4}, SG_TRT_FILL},
    };
    for (size_t c = 0; c < sizeof pads / sizeof *pads; c++) {
        if ((spec = read_program(pads[c].text)) == NULL)
            continue;
        const sg_prog *pad = spec->prog;
        CHECK(S,
              pad->kind == SG_PROG_PAD && pad->width_rows == pads[c].rows &&
                  pad->width_cols == pads[c].cols && pad->width_dims == pads[c].dims &&
                  pad->pad_mode == pads[c].mode &&
                  memcmp(pad->widths, pads[c].widths, pads[c].rows * pads[c].cols * sizeof *pad->widths) == 0,
              "%s: widths %zu x %zu (%zu levels) or mode %d differ", pads[c].text, pad->width_rows,
              pad->width_cols, pad->width_dims, (int)pad->pad_mode);
        CHECK(S, !pad->fill_given && pad->fill.kind == SG_SCALAR_INT && pad->fill.i == 0,
              "%s: a fill value without constant_values", pads[c].text);
        sg_spec_free(spec);
    }
    static const struct {
        const char *text;
        sg_scalar_kind kind;
        double value;
    } fills[] = {
        {"np.pad(x, 1, constant_values=-7)", SG_SCALAR_INT, -7},
        {"np.pad(x, 1, constant_values=0.5)", SG_SCALAR_FLOAT, 0.5},
        {"np.pad(x, 1, constant_values=-np.inf)", SG_SCALAR_FLOAT, -INFINITY},
        {"np.pad(x, 1, constant_values=True)", SG_SCALAR_BOOL, 1},
        {"np.pad(x, 1, constant_values=18446744073709551615)", SG_SCALAR_UINT, 18446744073709551615.0},
    };
    for (size_t c = 0; c < sizeof fills / sizeof *fills; c++) {
        if ((spec = read_program(fills[c].text)) == NULL)
            continue;
        const sg_scalar *f = &spec->prog->fill;
        double v = f->kind == SG_SCALAR_FLOAT  ? f->f
                   : f->kind == SG_SCALAR_UINT ? (double)f->u
                                               : (double)f->i;
        CHECK(S, spec->prog->fill_given && f->kind == fills[c].kind && v == fills[c].value,
              "%s: fill of kind %d, %g", fills[c].text, (int)f->kind, v);
        sg_spec_free(spec);
    }
    if ((spec = read_program("np.pad(x, 1, constant_values=nan)")) != NULL) {
        CHECK(S, spec->prog->fill.kind == SG_SCALAR_FLOAT && isnan(spec->prog->fill.f),
              "constant_values=nan");
        sg_spec_free(spec);
    }
    if ((spec = read_program("np.concatenate((x[1:], np.flip(x, 0), x), axis=-2)")) != NULL) {
        const sg_prog *cat = spec->prog;
        CHECK(S,
              cat->kind == SG_PROG_CONCAT && cat->nargs == 3 && cat->axis == -2 &&
                  cat->args[0]->kind == SG_PROG_INDEX && cat->args[1]->kind == SG_PROG_FLIP &&
                  cat->args[2]->kind == SG_PROG_INPUT && cat->args[2]->column == 39,
              "np.concatenate: operands or axis differ");
        sg_spec_free(spec);
    }
    if ((spec = read_program("np.concatenate([x])")) != NULL) {
        CHECK(S, spec->prog->nargs == 1 && spec->prog->axis == 0, "np.concatenate([x]): not axis 0");
        sg_spec_free(spec);
    }
}

/* ---- one index of one array ------------------------------------------------------------------------- */

static void test_single_index(void)
{
    static const struct {
        const char *text, *printed;
        size_t nvalues;
    } cases[] = {
        {"x[1:]", "[1:]", 0},        {"[1:]", "[1:]", 0},     {"x[:t]", "[:t]", 1},
        {"[i, ::s]", "[i, ::s]", 2}, {" a.b [0] ", "[0]", 0}, {"np[1:]", "[1:]", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sg_spec *spec;
        sg_error err;
        if (!CHECK(S, parse(cases[c].text, &spec, &err) == SG_OK, "'%s' does not parse: %s", cases[c].text,
                   err.message))
            continue;
        char *text = sg_spec_to_text(spec);
        CHECK(S,
              spec->op == SG_OP_NUMPY && spec->nvalues == cases[c].nvalues &&
                  strcmp(text, cases[c].printed) == 0,
              "'%s' reads as a %s spec '%s' with %zu values", cases[c].text, sg_op_name(spec->op), text,
              spec->nvalues);
        free(text);
        sg_spec_free(spec);
    }
    /* sg_spec_parse_program itself reads one index as a program */
    sg_spec *spec = NULL;
    sg_error err = {0};
    if (CHECK(S, sg_spec_parse_program("x[1:]", &spec, &err) == SG_OK, "x[1:] as a program: %s",
              err.message)) {
        CHECK(S, spec->op == SG_OP_PROGRAM && strcmp(spec->program, "(x)[1:]") == 0,
              "x[1:] as a program: '%s'", spec->program);
        check_round_trip(spec, "x[1:]");
    }
    sg_spec_free(spec);
    /* a program and an index are never the same spec */
    sg_spec *a, *b;
    if (parse("x[1:]", &a, &err) == SG_OK) {
        if (parse("(x)[1:]", &b, &err) == SG_OK) {
            CHECK(S, !sg_spec_same(a, b) && !sg_spec_same(b, a), "x[1:] and (x)[1:] are the same spec");
            sg_spec_free(b);
        }
        sg_spec_free(a);
    }
}

/* ---- runtime values ---------------------------------------------------------------------------------- */

/* The names of a program's indices are its values, once each in the order
 * of the text; bound, each is written in where it stands. */
static void test_values(void)
{
    static const struct {
        const char *text, *values, *program;
        int64_t numbers[3];
        const char *bound;
    } cases[] = {
        {"x[1:][t]", "t", "x[1:][t]", {5}, "x[1:][5]"},
        {"img[t:]", "t", "[t:]", {-2}, "[-2:]"}, /* one index: not a program */
        {"(img)[t:]", "t", "(img)[t:]", {-2}, "(img)[-2:]"},
        {"x[a:b][b:a, ::c]", "a b c", "x[a:b][b:a, ::c]", {1, -1, 2}, "x[1:-1][-1:1, ::2]"},
        {"np.flip(x[::s], 0)[a:s]",
         "s a",
         "np.flip(x[::s], axis=0)[a:s]",
         {-1, 3},
         "np.flip(x[::-1], axis=0)[3:-1]"},
        {"np.roll(x[t], 2, axis=0)",
         "t",
         "np.roll(x[t], shift=2, axis=0)",
         {0},
         "np.roll(x[0], shift=2, axis=0)"},
        {"np.roll(x[a:], (s, 1), axis=(0, 1))",
         "a s",
         "np.roll(x[a:], shift=(s, 1), axis=(0, 1))",
         {2, -3},
         "np.roll(x[2:], shift=(-3, 1), axis=(0, 1))"},
        {"np.roll(x, s, 0)[s:]", "s", "np.roll(x, shift=s, axis=0)[s:]", {1}, "np.roll(x, shift=1, axis=0)[1:]"},
        {"np.concatenate([x[:t], x[t:]], axis=1)[s]",
         "t s",
         "np.concatenate([x[:t], x[t:]], axis=1)[s]",
         {2, 1},
         "np.concatenate([x[:2], x[2:]], axis=1)[1]"},
        /* np.pad's widths, in the order of the text after its operand's names */
        {"np.pad(x[t:], ((a, 0), (1, b)), mode='edge')",
         "t a b",
         "np.pad(x[t:], ((a, 0), (1, b)), mode='edge')",
         {1, 2, 3},
         "np.pad(x[1:], ((2, 0), (1, 3)), mode='edge')"},
        {"np.pad(x, w)[w:]", "w", "np.pad(x, w, mode='constant')[w:]", {4}, "np.pad(x, 4, mode='constant')[4:]"},
        {"np.pad(x, (w,), constant_values=2)",
         "w",
         "np.pad(x, (w,), mode='constant', constant_values=2)",
         {0},
         "np.pad(x, (0,), mode='constant', constant_values=2)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sg_spec *spec = NULL, *bound = NULL;
        sg_error err;
        if (!CHECK(S, parse(cases[c].text, &spec, &err) == SG_OK, "'%s' does not parse: %s", cases[c].text,
                   err.message))
            continue;
        char names[64] = "", *text = sg_spec_to_text(spec);
        for (size_t k = 0; k < spec->nvalues; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "",
                     spec->values[k]);
        CHECK(S, strcmp(names, cases[c].values) == 0 && strcmp(text, cases[c].program) == 0,
              "'%s' reads as '%s' with values '%s'", cases[c].text, text, names);
        if (spec->op == SG_OP_PROGRAM)
            check_round_trip(spec, cases[c].text);
        if (CHECK(S, sg_spec_bind(spec, cases[c].numbers, &bound, &err) == SG_OK, "'%s' bound: %s",
                  cases[c].text, err.message)) {
            char *again = sg_spec_to_text(bound);
            CHECK(S, bound->nvalues == 0 && strcmp(again, cases[c].bound) == 0, "'%s' bound reads as '%s'",
                  cases[c].text, again);
            free(again);
        }
        free(text);
        sg_spec_free(bound);
        sg_spec_free(spec);
    }
}

/* ---- errors ------------------------------------------------------------------------------------------ */

#define PROGRAM "failed to parse NumPy program '"
#define INDEX   "failed to parse index expression '"

static const struct {
    const char *text, *message;
} errors[] = {
    /* the single-index path, as before */
    {"x[1] +", INDEX "x[1] +': unexpected text after ']' at column 6 ('+')"},
    {"[1:][2:]", INDEX "[1:][2:]': unexpected text after ']' at column 5 ('[')"},
    {"x[1:](2)", INDEX "x[1:](2)': unexpected text after ']' at column 6 ('(')"},
    {"x", INDEX "x': expected '[' at column 2 (end of text)"},
    /* calls that are neither NumPy's nor a model layer's, and bad layer nodes */
    {"foo(x)", PROGRAM
     "foo(x)': 'foo' is not a function slicegen takes (np.concatenate, np.flip, np.pad, "
     "np.roll, or a model layer's StridedSlice, Slice, TrtSlice, OnnxSlice or Pad) at column 1 ('f')"},
    {"Pad(x, \"--pads-begin t --pads-end 1 --mode edge\")",
     PROGRAM "Pad(x, \"--pads-begin t --pads-end 1 --mode edge\")': runtime values are not supported in "
             "programs yet at column 9 ('-')"},
    {"Slice(x \"--start 1\")", PROGRAM "Slice(x \"--start 1\")': expected ',' at column 9 ('\"')"},
    {"Slice(x, 7)", PROGRAM "Slice(x, 7)': expected a quoted string at column 10 ('7')"},
    /* indices of a program: the index parser's messages, columns in the whole text */
    {"x[1:][::0]", INDEX "x[1:][::0]': slice step cannot be zero at column 9 ('0')"},
    {"np.flip(x[1:2:0])", INDEX "np.flip(x[1:2:0])': slice step cannot be zero at column 15 ('0')"},
    {"x[1:][]", INDEX "x[1:][]': empty index (write [...] for the whole array) at column 7 (']')"},
    {"x[1:][1", INDEX "x[1:][1': expected ',' or ']' at column 8 (end of text)"},
    {"x[1:][99999999999999999999]",
     INDEX "x[1:][99999999999999999999]': index 99999999999999999999 at column 7 does not fit in 64 bits"},
    {"x[1:][t + 1]",
     INDEX "x[1:][t + 1]': arithmetic on a runtime value is not supported (give its result at "
           "run time) at column 9 ('+')"},
    /* atoms */
    {"(x", PROGRAM "(x': expected ')' at column 3 (end of text)"},
    {"(x]", PROGRAM "(x]': expected ')' at column 3 (']')"},
    {"(x, x)", PROGRAM "(x, x)': expected ')' at column 3 (',')"},
    {"()",
     PROGRAM "()': expected an array (a name, '(' or a call of np.concatenate, np.flip, np.pad or np.roll) "
             "at column 2 (')')"},
    {"(1)", PROGRAM "(1)': expected an array (a name, '(' or a call of np.concatenate, np.flip, np.pad or "
                    "np.roll) at column 2 ('1')"},
    {"(None)", PROGRAM "(None)': 'None' is a Python keyword, not an array at column 2 ('N')"},
    {"np.flip(lambda)",
     PROGRAM "np.flip(lambda)': 'lambda' is a Python keyword, not an array at column 9 ('l')"},
    {"(np)[1:]", PROGRAM "(np)[1:]': 'np' names the NumPy module, not an array at column 2 ('n')"},
    {"np.flip(numpy, 0)",
     PROGRAM "np.flip(numpy, 0)': 'numpy' names the NumPy module, not an array at column 9 "
             "('n')"},
    {"np.concatenate([x, y])",
     PROGRAM "np.concatenate([x, y])': the program reads one array, 'x', not 'y' at "
             "column 20 ('y')"},
    {"x[1:][::2] [0] + 1",
     PROGRAM "x[1:][::2] [0] + 1': unexpected text after the expression at column 16 ('+')"},
    {"np.flip(x) x", PROGRAM "np.flip(x) x': unexpected text after the expression at column 12 ('x')"},
    {"(x).T", PROGRAM "(x).T': unexpected text after the expression at column 4 ('.')"},
    /* calls */
    {"np.foo(x)", PROGRAM "np.foo(x)': np.foo is not supported (the functions are np.concatenate, np.flip, "
                          "np.pad and np.roll) at column 4 ('f')"},
    {"numpy.newaxis",
     PROGRAM "numpy.newaxis': np.newaxis is not supported (the functions are np.concatenate, "
             "np.flip, np.pad and np.roll) at column 7 ('n')"},
    {"np.(x)", PROGRAM "np.(x)': expected a function name at column 4 ('(')"},
    {"np.flip", PROGRAM "np.flip': expected '(' after np.flip at column 8 (end of text)"},
    {"numpy.roll[0]", PROGRAM "numpy.roll[0]': expected '(' after np.roll at column 11 ('[')"},
    {"np.flip(x", PROGRAM "np.flip(x': expected ',' or ')' at column 10 (end of text)"},
    {"np.flip(x 0)", PROGRAM "np.flip(x 0)': expected ',' or ')' at column 11 ('0')"},
    {"np.flip(x,, 0)",
     PROGRAM "np.flip(x,, 0)': expected None, an integer or a tuple of integers at column 11 "
             "(',')"},
    /* binding arguments, as Python says it */
    {"np.flip(x, 0, 1)",
     PROGRAM "np.flip(x, 0, 1)': np.flip() takes at most 2 positional arguments at column 15 "
             "('1')"},
    {"np.pad(x, 1, 'edge', 0)",
     PROGRAM "np.pad(x, 1, 'edge', 0)': np.pad() takes at most 3 positional arguments "
             "at column 22 ('0')"},
    {"np.flip(x, axis=0, axis=1)",
     PROGRAM "np.flip(x, axis=0, axis=1)': keyword argument repeated: axis at column "
             "20 ('a')"},
    {"np.flip(x, 0, axis=1)",
     PROGRAM "np.flip(x, 0, axis=1)': np.flip() got multiple values for argument 'axis' "
             "at column 15 ('a')"},
    {"np.flip(x, axis=0, 1)",
     PROGRAM "np.flip(x, axis=0, 1)': positional argument follows keyword argument at "
             "column 20 ('1')"},
    {"np.flip(x, foo=1)", PROGRAM "np.flip(x, foo=1)': np.flip() got an unexpected keyword argument 'foo' at "
                                  "column 12 ('f')"},
    {"np.roll(x, 1, axes=0)", PROGRAM "np.roll(x, 1, axes=0)': np.roll() got an unexpected keyword argument "
                                      "'axes' at column 15 ('a')"},
    {"np.flip()",
     PROGRAM "np.flip()': np.flip() missing 1 required positional argument: 'm' at column 9 (')')"},
    {"np.flip(axis=0)", PROGRAM "np.flip(axis=0)': np.flip() missing 1 required positional argument: 'm' at "
                                "column 15 (')')"},
    {"np.roll(x)",
     PROGRAM "np.roll(x)': np.roll() missing 1 required positional argument: 'shift' at column 10 "
             "(')')"},
    {"np.pad()",
     PROGRAM "np.pad()': np.pad() missing 2 required positional arguments: 'array' and 'pad_width' "
             "at column 8 (')')"},
    {"np.pad(x, mode='edge')", PROGRAM "np.pad(x, mode='edge')': np.pad() missing 1 required positional "
                                       "argument: 'pad_width' at column 22 (')')"},
    {"np.concatenate(axis=0)",
     PROGRAM "np.concatenate(axis=0)': np.concatenate() missing 1 required positional "
             "argument: 'seq' at column 22 (')')"},
    {"np.concatenate([x], out=None)", PROGRAM "np.concatenate([x], out=None)': the argument 'out' of "
                                              "np.concatenate is not supported at column 21 ('o')"},
    {"np.concatenate([x], 0, None)", PROGRAM "np.concatenate([x], 0, None)': the argument 'out' of "
                                             "np.concatenate is not supported at column 24 ('N')"},
    {"np.concatenate([x], dtype=int)", PROGRAM "np.concatenate([x], dtype=int)': the argument 'dtype' of "
                                               "np.concatenate is not supported at column 21 ('d')"},
    {"np.pad(x, 1, 'edge', stat_length=1)",
     PROGRAM "np.pad(x, 1, 'edge', stat_length=1)': the argument "
             "'stat_length' of np.pad is not supported at column 22 ('s')"},
    /* np.flip and np.roll */
    {"np.flip(x, 1.5)",
     PROGRAM "np.flip(x, 1.5)': expected None, an integer or a tuple of integers at column 12 "
             "('1')"},
    {"np.flip(x, y)", PROGRAM "np.flip(x, y)': expected None, an integer or a tuple of integers at column 12 "
                              "('y')"},
    {"np.flip(x, ((0, 1),))",
     PROGRAM "np.flip(x, ((0, 1),))': expected None, an integer or a tuple of integers "
             "at column 12 ('(')"},
    {"np.flip(x, [[0]])",
     PROGRAM "np.flip(x, [[0]])': expected None, an integer or a tuple of integers at column "
             "13 ('[')"},
    {"np.flip(x, (0, (1,)))", PROGRAM "np.flip(x, (0, (1,)))': expected an integer at column 16 ('(')"},
    {"np.flip(x, (0 1))", PROGRAM "np.flip(x, (0 1))': expected ',' or ')' at column 15 ('1')"},
    {"np.flip(x, - y)",
     PROGRAM "np.flip(x, - y)': expected None, an integer or a tuple of integers at column 14 "
             "('y')"},
    {"np.flip(x, 99999999999999999999)",
     PROGRAM "np.flip(x, 99999999999999999999)': integer 99999999999999999999 "
             "does not fit in 64 bits at column 12 ('9')"},
    {"np.flip(x, -9223372036854775809)",
     PROGRAM "np.flip(x, -9223372036854775809)': integer -9223372036854775809 "
             "does not fit in 64 bits at column 12 ('-')"},
    {"np.roll(x, 1)",
     PROGRAM "np.roll(x, 1)': np.roll without an axis (the flattened array) is not supported at "
             "column 13 (')')"},
    {"np.roll(x, 1, None)",
     PROGRAM "np.roll(x, 1, None)': np.roll without an axis (the flattened array) is not "
             "supported at column 15 ('N')"},
    {"np.roll(x, None, 0)",
     PROGRAM "np.roll(x, None, 0)': expected an integer or a tuple of integers at column 12 "
             "('N')"},
    {"np.roll(x, 1, 0.5)",
     PROGRAM "np.roll(x, 1, 0.5)': expected an integer or a tuple of integers at column 15 "
             "('0')"},
    /* np.pad */
    {"np.pad(x, ())", PROGRAM "np.pad(x, ())': pad_width must not be empty at column 11 ('(')"},
    {"np.pad(x, ((),))", PROGRAM "np.pad(x, ((),))': pad_width must not be empty at column 11 ('(')"},
    {"np.pad(x, (1, 2, 3))",
     PROGRAM "np.pad(x, (1, 2, 3))': a pad width is one number or a (before, after) pair, "
             "not 3 numbers at column 11 ('(')"},
    {"np.pad(x, ((1, 2), 3))", PROGRAM "np.pad(x, ((1, 2), 3))': expected a tuple of 2 integers at column 20 "
                                       "('3')"},
    {"np.pad(x, ((1,), (2, 3)))",
     PROGRAM "np.pad(x, ((1,), (2, 3)))': expected a tuple of 1 integer at column 18 "
             "('(')"},
    {"np.pad(x, (1, (2, 3)))", PROGRAM "np.pad(x, (1, (2, 3)))': expected an integer at column 15 ('(')"},
    {"np.pad(x, (((1, 2),),))",
     PROGRAM "np.pad(x, (((1, 2),),))': expected pad widths: n, (before, after) or "
             "((before, after), ...) at column 11 ('(')"},
    {"np.pad(x, 1.5)",
     PROGRAM "np.pad(x, 1.5)': expected pad widths: n, (before, after) or ((before, after), "
             "...) at column 11 ('1')"},
    {"np.pad(x, 1, mode='mean')",
     PROGRAM "np.pad(x, 1, mode='mean')': np.pad mode 'mean' is not supported "
             "(supported: 'constant', 'edge', 'reflect', 'symmetric', 'wrap') at column 19 "
             "(''')"},
    {"np.pad(x, 1, \"linear_ramp\")",
     PROGRAM "np.pad(x, 1, \"linear_ramp\")': np.pad mode 'linear_ramp' is not "
             "supported (supported: 'constant', 'edge', 'reflect', 'symmetric', 'wrap') "
             "at column 14 ('\"')"},
    {"np.pad(x, 1, mode='\xc3\xa9')",
     PROGRAM "np.pad(x, 1, mode='\xc3\xa9')': np.pad mode '\xc3\xa9' is not "
             "supported (supported: 'constant', 'edge', 'reflect', 'symmetric', 'wrap') at "
             "column 19 (''')"},
    {"np.flip(x, \xc3\xa9)",
     PROGRAM "np.flip(x, \xc3\xa9)': expected None, an integer or a tuple of integers at "
             "column 12 ('\xc3\xa9')"},
    {"np.flip(x, 0)[\xc3\xa9]",
     INDEX "np.flip(x, 0)[\xc3\xa9]': expected an integer, a slice, '...' or None at "
           "column 15 ('\xc3\xa9')"},
    {"np.flip(x, 0)[0]\xc3\xa9!",
     PROGRAM "np.flip(x, 0)[0]\xc3\xa9!': unexpected text after the expression at "
             "column 17 ('\xc3\xa9')"},
    {"np.pad(x, 1, mode='\x01')",
     PROGRAM "np.pad(x, 1, mode='\\x01')': np.pad mode '\\x01' is not supported "
             "(supported: 'constant', 'edge', 'reflect', 'symmetric', 'wrap') at column 19 "
             "(''')"},
    {"np.pad(x, 1, mode=edge)",
     PROGRAM "np.pad(x, 1, mode=edge)': expected a quoted string at column 19 ('e')"},
    {"np.pad(x, 1, mode='edge)", PROGRAM "np.pad(x, 1, mode='edge)': unterminated string at column 19 (''')"},
    {"np.pad(x, 1, mode='edge\")",
     PROGRAM "np.pad(x, 1, mode='edge\")': unterminated string at column 19 (''')"},
    {"np.pad(x, 1, constant_values=(1, 2))",
     PROGRAM "np.pad(x, 1, constant_values=(1, 2))': only one "
             "constant_values scalar is supported at column 30 ('(')"},
    {"np.pad(x, 1, constant_values=[[1, 2]])",
     PROGRAM "np.pad(x, 1, constant_values=[[1, 2]])': only one "
             "constant_values scalar is supported at column 30 ('[')"},
    {"np.pad(x, 1, constant_values=y)", PROGRAM "np.pad(x, 1, constant_values=y)': constant_values must be a "
                                                "number, nan, inf, True or False at column 30 ('y')"},
    {"np.pad(x, 1, constant_values=-True)",
     PROGRAM "np.pad(x, 1, constant_values=-True)': constant_values must "
             "be a number, nan, inf, True or False at column 30 ('-')"},
    {"np.pad(x, 1, constant_values=np.e)",
     PROGRAM "np.pad(x, 1, constant_values=np.e)': constant_values must be "
             "a number, nan, inf, True or False at column 30 ('n')"},
    {"np.pad(x, 1, constant_values=1e)",
     PROGRAM "np.pad(x, 1, constant_values=1e)': constant_values must be a "
             "number, nan, inf, True or False at column 30 ('1')"},
    {"np.pad(x, 1, constant_values=99999999999999999999)", PROGRAM
     "np.pad(x, 1, constant_values=99999999999999999999)': integer constant_values does not fit in 64 "
     "bits at column 30 ('9')"},
    {"np.pad(x, 1, constant_values=-9223372036854775809)", PROGRAM
     "np.pad(x, 1, constant_values=-9223372036854775809)': integer constant_values does not fit in 64 "
     "bits at column 30 ('-')"},
    {"np.pad(x, 1, mode='edge', constant_values=1)",
     PROGRAM "np.pad(x, 1, mode='edge', constant_values=1)': unsupported keyword arguments for mode 'edge': "
             "{'constant_values'} at column 27 ('c')"},
    {"np.pad(x, 1, constant_values=1, mode='wrap')",
     PROGRAM "np.pad(x, 1, constant_values=1, mode='wrap')': unsupported keyword arguments for mode 'wrap': "
             "{'constant_values'} at column 14 ('c')"},
    {"np.pad(x, 1, reflect_type='even')",
     PROGRAM "np.pad(x, 1, reflect_type='even')': unsupported keyword "
             "arguments for mode 'constant': {'reflect_type'} at column 14 ('r')"},
    {"np.pad(x, 1, 'reflect', reflect_type='odd')",
     PROGRAM "np.pad(x, 1, 'reflect', reflect_type='odd')': "
             "reflect_type='odd' is not supported (only 'even') at column "
             "38 (''')"},
    /* np.concatenate */
    {"np.concatenate([])", PROGRAM "np.concatenate([])': need at least one array to concatenate at column 16 "
                                   "('[')"},
    {"np.concatenate(())", PROGRAM "np.concatenate(())': need at least one array to concatenate at column 16 "
                                   "('(')"},
    {"np.concatenate((x))",
     PROGRAM "np.concatenate((x))': expected a list or tuple of arrays (a tuple of one "
             "needs its comma: (x,)) at column 16 ('(')"},
    {"np.concatenate(x)",
     PROGRAM "np.concatenate(x)': expected a list or tuple of arrays at column 16 ('x')"},
    {"np.concatenate([x x])", PROGRAM "np.concatenate([x x])': expected ',' or ']' at column 19 ('x')"},
    {"np.concatenate([x], axis=None)",
     PROGRAM "np.concatenate([x], axis=None)': np.concatenate with axis=None "
             "(flattened arrays) is not supported at column 26 ('N')"},
    {"np.concatenate([x], axis=(0,))",
     PROGRAM "np.concatenate([x], axis=(0,))': expected an integer at column 26 "
             "('(')"},
    {"np.concatenate([x], axis=[0])",
     PROGRAM "np.concatenate([x], axis=[0])': expected an integer at column 26 "
             "('[')"},
};

static void check_error(const char *text, sg_status want_status, const char *want)
{
    sg_spec *spec;
    sg_error err;
    sg_status status = parse(text, &spec, &err);
    if (CHECK(S, status == want_status, "'%s' gives status %d, not %d (%s)", text, (int)status,
              (int)want_status, err.message))
        CHECK(S, strcmp(err.message, want) == 0, "'%s':\n  got  %s\n  want %s", text, err.message, want);
    if (status == SG_OK)
        sg_spec_free(spec);
}

static void test_errors(void)
{
    for (size_t c = 0; c < sizeof errors / sizeof *errors; c++)
        check_error(errors[c].text, SG_ERR_SPEC, errors[c].message);
}

/* ---- limits ------------------------------------------------------------------------------------------ */

/* `open` n times, then `middle`, then `close` n times. */
static char *nest(size_t n, const char *open, const char *middle, const char *close)
{
    size_t a = strlen(open), m = strlen(middle), z = strlen(close);
    char *text = malloc(n * (a + z) + m + 1);
    if (text == NULL)
        abort();
    for (size_t i = 0; i < n; i++)
        memcpy(text + i * a, open, a);
    memcpy(text + n * a, middle, m);
    for (size_t i = 0; i < n; i++)
        memcpy(text + n * a + m + i * z, close, z);
    text[n * (a + z) + m] = '\0';
    return text;
}

static void check_limit(char *ok, char *over, const char *message_end, size_t column)
{
    sg_spec *spec;
    sg_error err;
    char want[160];
    if (CHECK(S, parse(ok, &spec, &err) == SG_OK, "at the limit: %.60s... fails: %s", ok, err.message))
        sg_spec_free(spec);
    snprintf(want, sizeof want, "%s at column %zu", message_end, column);
    if (CHECK(S, parse(over, &spec, &err) == SG_ERR_SPEC, "past the limit: %.60s... parses", over))
        CHECK(S, strstr(err.message, want) != NULL, "past the limit: %.60s...: %s", over, err.message);
    else
        sg_spec_free(spec);
    free(ok);
    free(over);
}

static void test_limits(void)
{
    /* groups nested: parentheses, calls, lists, tuples of numbers */
    check_limit(nest(SG_PROG_MAX_DEPTH, "(", "x", ")"), nest(SG_PROG_MAX_DEPTH + 1, "(", "x", ")"),
                "nested too deeply (more than 64 levels)", SG_PROG_MAX_DEPTH + 1);
    check_limit(nest(SG_PROG_MAX_DEPTH, "np.flip(", "x", ")"),
                nest(SG_PROG_MAX_DEPTH + 1, "np.flip(", "x", ")"), "nested too deeply (more than 64 levels)",
                SG_PROG_MAX_DEPTH * 8 + 8);
    check_limit(nest(SG_PROG_MAX_DEPTH / 2, "np.concatenate([", "x", "])"),
                nest(SG_PROG_MAX_DEPTH / 2 + 1, "np.concatenate([", "x", "])"),
                "nested too deeply (more than 64 levels)", SG_PROG_MAX_DEPTH / 2 * 16 + 15);
    char *axes_ok = nest(SG_PROG_MAX_DEPTH - 1, "(", "0", ")"),
         *axes_over = nest(SG_PROG_MAX_DEPTH, "(", "0", ")");
    char *flip_ok = malloc(strlen(axes_ok) + 16), *flip_over = malloc(strlen(axes_over) + 16);
    sprintf(flip_ok, "np.flip(x, %s)", axes_ok);
    sprintf(flip_over, "np.flip(x, %s)", axes_over);
    check_limit(flip_ok, flip_over, "nested too deeply (more than 64 levels)", 12 + SG_PROG_MAX_DEPTH - 1);
    free(axes_ok);
    free(axes_over);
    /* nodes: a chain of indices, the input one of them */
    char *chain_ok = malloc(4 * SG_PROG_MAX_NODES + 8), *chain_over = malloc(4 * SG_PROG_MAX_NODES + 8);
    strcpy(chain_ok, "x");
    for (int i = 1; i < SG_PROG_MAX_NODES; i++)
        strcat(chain_ok, "[0]");
    sprintf(chain_over, "%s[0]", chain_ok);
    check_limit(chain_ok, chain_over, "the program is too large (more than 256 arrays and operations)",
                2 + 3 * (SG_PROG_MAX_NODES - 1));
    /* numbers of one argument */
    char *tuple_ok = malloc(8 * SG_PROG_MAX_NUMBERS + 32), *tuple_over = malloc(8 * SG_PROG_MAX_NUMBERS + 32);
    strcpy(tuple_ok, "np.flip(x, (0");
    for (int i = 1; i < SG_PROG_MAX_NUMBERS; i++)
        strcat(tuple_ok, ", 0");
    sprintf(tuple_over, "%s, 0))", tuple_ok);
    strcat(tuple_ok, "))");
    check_limit(tuple_ok, tuple_over, "too many numbers (more than 128)", 13 + 3 * SG_PROG_MAX_NUMBERS);
}

/* ---- seeded random programs ------------------------------------------------------------------------- */

typedef struct gen {
    char text[TEXT_MAX];
    size_t len;
    const char *name;
} gen;

static void put(gen *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n < sizeof g->text) {
        memcpy(g->text + g->len, s, n + 1);
        g->len += n;
    }
}

/* Spaces between tokens: none, one or two. */
static void space(gen *g)
{
    put(g, (const char *[]){"", "", " ", "  "}[between(0, 3)]);
}

static const char *pick(const char *const *options, size_t n)
{
    return options[between(0, (int64_t)n - 1)];
}
#define PICK(...)                                                                                            \
    pick((const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *))

/* A small integer, written in one of Python's ways. */
static void put_int(gen *g)
{
    char text[32];
    int64_t v = between(-3, 3);
    snprintf(text, sizeof text, "%s%lld", v >= 0 && between(0, 3) == 0 ? "+" : "", (long long)v);
    put(g, text);
}

/* A tuple or list of n integers (n of 1 may be a bare integer or "(v)"). */
static void put_ints(gen *g, int64_t n)
{
    bool list = between(0, 1);
    if (n == 1 && between(0, 2) == 0) {
        if (between(0, 1))
            put_int(g);
        else {
            put(g, "(");
            put_int(g);
            put(g, ")");
        }
        return;
    }
    put(g, list ? "[" : "(");
    for (int64_t i = 0; i < n; i++) {
        if (i)
            put(g, ",");
        space(g);
        put_int(g);
    }
    if (n == 1 && !list)
        put(g, ",");
    put(g, list ? "]" : ")");
}

static void gen_expr(gen *g, int depth);

static void put_call(gen *g, const char *fn)
{
    put(g, between(0, 3) ? "np." : "numpy.");
    put(g, fn);
    space(g);
    put(g, "(");
    space(g);
}

static void gen_index(gen *g)
{
    static const char *const items[] = {"1:",    "::-1", "None",       "0",   "-1",
                                        "1:3:2", ":",    "np.newaxis", ":-1", "::2"};
    int64_t n = between(1, 3);
    bool ellipsis = false;
    put(g, "[");
    for (int64_t i = 0; i < n; i++) {
        if (i)
            put(g, ", ");
        if (!ellipsis && between(0, 5) == 0) {
            put(g, "...");
            ellipsis = true;
        } else {
            put(g, items[between(0, sizeof items / sizeof *items - 1)]);
        }
    }
    put(g, "]");
}

static void gen_expr(gen *g, int depth)
{
    size_t start = g->len;
    int64_t kind = depth >= 4 ? 0 : between(0, 5);
    switch (kind) {
    case 0:
        put(g, g->name);
        break;
    case 1:
        gen_expr(g, depth + 1);
        space(g);
        gen_index(g);
        break;
    case 2:
        put_call(g, "flip");
        if (between(0, 3) == 0) {
            put(g, "m=");
            gen_expr(g, depth + 1);
            put(g, ", axis=");
            put_ints(g, between(0, 2));
        } else {
            gen_expr(g, depth + 1);
            int64_t axis = between(0, 3);
            put(g, axis == 0 ? "" : axis == 1 ? ", axis=None" : axis == 2 ? ", " : ", axis=");
            if (axis >= 2)
                put_ints(g, between(0, 3));
        }
        put(g, ")");
        break;
    case 3:
        put_call(g, "roll");
        gen_expr(g, depth + 1);
        put(g, ",");
        space(g);
        if (between(0, 1)) {
            put_ints(g, between(1, 2));
            put(g, ", ");
            put_ints(g, between(1, 2));
        } else {
            put(g, "axis=");
            put_ints(g, between(1, 2));
            put(g, ", shift=");
            put_ints(g, between(1, 2));
        }
        put(g, ")");
        break;
    case 4: {
        put_call(g, "pad");
        gen_expr(g, depth + 1);
        put(g, ", ");
        int64_t dims = between(0, 2), rows = between(1, 3), cols = between(1, 2);
        if (dims == 0)
            put_int(g);
        else if (dims == 1)
            put_ints(g, cols);
        else {
            put(g, "(");
            for (int64_t r = 0; r < rows; r++) {
                if (r)
                    put(g, ", ");
                put(g, cols == 1 ? "(" : "[");
                put_int(g);
                put(g, cols == 1 ? ",)" : ", ");
                if (cols == 2) {
                    put_int(g);
                    put(g, "]");
                }
            }
            put(g, rows == 1 ? ",)" : ")");
        }
        const char *mode = PICK("", "'constant'", "'edge'", "\"reflect\"", "'symmetric'", "'wrap'");
        if (*mode)
            put(g, between(0, 1) ? ", mode=" : ", ");
        put(g, mode);
        if (*mode == '\0' || strcmp(mode, "'constant'") == 0) {
            if (between(0, 1)) {
                put(g, ", constant_values=");
                put(g, PICK("0", "-3", "1.5", "nan", "-np.inf", "True", "1_000", "2e-3", "False", "-0.0"));
            }
        } else if (mode[1] == 'r' || mode[1] == 's') {
            if (between(0, 2) == 0)
                put(g, ", reflect_type='even'");
        }
        put(g, ")");
        break;
    }
    case 5: {
        put_call(g, "concatenate");
        bool list = between(0, 1);
        int64_t n = between(1, 3);
        put(g, list ? "[" : "(");
        for (int64_t i = 0; i < n; i++) {
            if (i)
                put(g, ", ");
            gen_expr(g, depth + 1);
        }
        put(g, n == 1 && !list ? ",)" : list ? "]" : ")");
        if (between(0, 1)) {
            put(g, between(0, 1) ? ", axis=" : ", ");
            put_int(g);
        }
        put(g, ")");
        break;
    }
    }
    if (between(0, 7) == 0 && g->len + 2 < sizeof g->text) { /* parentheses around it */
        memmove(g->text + start + 1, g->text + start, g->len - start + 1);
        g->text[start] = '(';
        g->len++;
        put(g, ")");
    }
}

static void test_random(void)
{
    seed_rnd("program-parse");
    static gen g;
    for (int round = 0; round < 3000; round++) {
        g.len = 0;
        g.text[0] = '\0';
        g.name = PICK("x", "img", "_t0");
        space(&g);
        gen_expr(&g, 0);
        space(&g);
        sg_spec *spec = NULL, *again = NULL;
        sg_error err = {0};
        if (!CHECK(S, sg_spec_parse_program(g.text, &spec, &err) == SG_OK, "'%s' does not parse: %s", g.text,
                   err.message))
            continue;
        sg_spec_check(spec);
        char *text = sg_spec_to_text(spec);
        if (CHECK(S, parse(text, &again, &err) == SG_OK, "'%s' printed as '%s' does not read: %s", g.text,
                  text, err.message)) {
            CHECK(S, again->op == SG_OP_PROGRAM && strcmp(again->program, text) == 0,
                  "'%s' printed as '%s' reads as '%s'", g.text, text, again->program);
            CHECK(S, same_tree(spec->prog, again->prog, false),
                  "'%s' printed as '%s' reads into another tree", g.text, text);
        }
        free(text);
        sg_spec_free(again);
        sg_spec_free(spec);
    }
}

int main(void)
{
    test_forms();
    test_trees();
    test_single_index();
    test_values();
    test_errors();
    test_limits();
    test_random();
    return finish("program-parse", &suite.counts);
}

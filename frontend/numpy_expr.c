/* NumPy basic-indexing expressions: "[1:, ..., ::-1, None, 0]", "x[2:-1:2]".
 * Each item becomes one StridedSlice-style step; the planner applies NumPy's
 * clamping rules to them (op SG_OP_NUMPY). An identifier where an integer
 * may stand ("[:, :t]", "[i, ::s]") names a runtime value; None there is
 * an omitted bound or step, as in Python. Errors name the 1-based column,
 * counted in characters (a UTF-8 sequence is one, see sg_quote), and quote
 * the expression, or a window of it around that column when it is long.
 *
 * Anything else, a program (a chain x[1:][::-1], a call of np.flip and
 * the like, a parenthesis), goes to program.c, which reads each of its
 * indices here (sg_numpy_index_parse). */
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

typedef struct parser {
    const char *text;
    const char *p;
    sg_error *err;
    sg_value_table values; /* the runtime values met so far */
} parser;

/* The expression as a message quotes it: a window around byte `at` when long. */
static const char *quoted(const parser *ps, size_t at, char buf[SG_QUOTE_BUF(SG_QUOTE_SIDE)])
{
    return sg_quote(ps->text, strlen(ps->text), at, SG_QUOTE_SIDE, buf);
}

static sg_status syntax_error(parser *ps, const char *what)
{
    return sg_syntax_error(ps->err, "index expression", ps->text, (size_t)(ps->p - ps->text), what);
}

static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static bool accept_word(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(ps->p, word, n) != 0 || isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_')
        return false;
    ps->p += n;
    return true;
}

uint64_t sg_scan_digits(const char *p, const char **end)
{
    uint64_t mag = 0;
    for (; isdigit((unsigned char)*p) || *p == '_'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (*p != '_')
            mag = mag > (UINT64_MAX - d) / 10 ? UINT64_MAX : mag * 10 + d;
    }
    *end = p;
    return mag;
}

/* An optionally signed decimal integer. Slice bounds saturate to the int64
 * range as Python's slice indices do; an integer index out of range fails. */
static sg_status parse_int(parser *ps, bool saturate, int64_t *value, bool *found)
{
    const char *start = ps->p;
    bool neg = false;
    *found = false;
    if (*ps->p == '-' || *ps->p == '+') {
        neg = *ps->p == '-';
        ps->p++;
        skip_space(ps);
    }
    if (!isdigit((unsigned char)*ps->p)) {
        if (ps->p != start && sg_identifier_length(ps->p) > 0) {
            ps->p = start;
            return syntax_error(ps,
                                "a runtime value cannot take a sign (give the negated value at run time)");
        }
        if (ps->p != start)
            return syntax_error(ps, "expected digits after the sign");
        return SG_OK;
    }
    uint64_t mag = sg_scan_digits(ps->p, &ps->p);
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (mag > limit) {
        if (!saturate) {
            const char *end = ps->p;
            size_t at = (size_t)(start - ps->text);
            char q[SG_QUOTE_BUF(SG_QUOTE_SIDE)], digits[SG_QUOTE_BUF(12)];
            ps->p = start;
            sg_fail(ps->err, SG_ERR_SPEC,
                    "failed to parse index expression '%s': index %s at column %zu does not fit in 64 bits",
                    quoted(ps, at, q), sg_quote(start, (size_t)(end - start), 0, 12, digits),
                    sg_utf8_column(ps->text, at));
            return SG_ERR_SPEC;
        }
        mag = limit;
    }
    *value = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
    *found = true;
    if (isalpha((unsigned char)*ps->p) || *ps->p == '.')
        return syntax_error(ps, "indices must be integers");
    return SG_OK;
}

/* None, np.newaxis or numpy.newaxis, a whole word at ps->p (consumed). */
static bool accept_none(parser *ps)
{
    return accept_word(ps, "None") || accept_word(ps, "np.newaxis") || accept_word(ps, "numpy.newaxis");
}

/* One number of an item: an integer (as parse_int) or the name of a
 * runtime value (*ref = k + 1 for value k, *value = 0). None is an omitted
 * number (*none, and not *found). */
static sg_status parse_number(parser *ps, bool saturate, int64_t *value, uint16_t *ref, bool *found,
                              bool *none)
{
    const char *at = ps->p;
    size_t len = sg_identifier_length(ps->p);
    *ref = 0;
    *found = false;
    *none = accept_none(ps);
    if (*none)
        return SG_OK;
    if (len == 0)
        return parse_int(ps, saturate, value, found);
    if ((len == 4 && strncmp(at, "True", 4) == 0) || (len == 5 && strncmp(at, "False", 5) == 0))
        return syntax_error(ps, "True and False are not slice bounds (write 1 or 0)");
    const char *why = NULL;
    sg_status status = sg_value_table_ref(&ps->values, at, len, ref, &why);
    if (status == SG_ERR_NOMEM)
        return sg_fail(ps->err, status, "failed to parse index expression: out of memory");
    if (status != SG_OK)
        return syntax_error(ps, why);
    ps->p += len;
    *value = 0;
    *found = true;
    const char *after = ps->p;
    skip_space(ps);
    if (*ps->p != '\0' && strchr("+-*/%", *ps->p) != NULL)
        return syntax_error(ps,
                            "arithmetic on a runtime value is not supported (give its result at run time)");
    ps->p = after;
    return SG_OK;
}

/* One item: `...`, None, an integer, or a slice; integers may be names. */
static sg_status parse_item(parser *ps, sg_ss_step *step, int *ellipses)
{
    *step = (sg_ss_step){.stride = 1};
    const char *item = ps->p;
    if (strncmp(ps->p, "...", 3) == 0) {
        if (++*ellipses > 1)
            return syntax_error(ps, "an index can only have a single ellipsis ('...')");
        ps->p += 3;
        step->ellipsis = true;
        return SG_OK;
    }
    if (*ps->p == '[' || *ps->p == '(')
        return syntax_error(ps, "advanced (array or tuple) indexing is not supported");
    if (accept_word(ps, "True") || accept_word(ps, "False")) { /* x[True:] is a slice: parse_number says */
        skip_space(ps);
        bool bound = *ps->p == ':';
        ps->p = item;
        if (!bound)
            return syntax_error(ps, "boolean indexing is not supported");
    }
    bool found, none;
    int64_t value = 0;
    uint16_t ref;
    if (parse_number(ps, true, &value, &ref, &found, &none) != SG_OK)
        return SG_ERR_SPEC;
    skip_space(ps);
    if (*ps->p != ':') {
        if (none) {
            step->new_axis = true;
            return SG_OK;
        }
        if (!found)
            return syntax_error(ps, "expected an integer, a slice, '...' or None");
        if (ref == 0) {
            ps->p = item; /* re-read strictly: an integer index must fit */
            if (parse_int(ps, false, &value, &found) != SG_OK)
                return SG_ERR_SPEC;
        }
        step->shrink = true;
        step->begin = value;
        step->begin_value = ref;
        step->end = ref != 0 || value == INT64_MAX ? value : value + 1;
        return SG_OK;
    }
    step->begin = value;
    step->begin_value = ref;
    step->begin_mask = !found;
    ps->p++;
    skip_space(ps);
    if (parse_number(ps, true, &step->end, &step->end_value, &found, &none) != SG_OK)
        return SG_ERR_SPEC;
    step->end_mask = !found;
    skip_space(ps);
    if (*ps->p != ':')
        return SG_OK;
    ps->p++;
    skip_space(ps);
    const char *stride_at = ps->p;
    if (parse_number(ps, true, &value, &ref, &found, &none) != SG_OK)
        return SG_ERR_SPEC;
    if (found && ref != 0) {
        step->stride = 0;
        step->stride_value = ref;
    } else if (found) {
        if (value == 0) {
            ps->p = stride_at;
            return syntax_error(ps, "slice step cannot be zero");
        }
        step->stride = value < -INT64_MAX ? -INT64_MAX : value; /* as Python clamps it */
    }
    return SG_OK;
}

/* One index: ps->p at its '[', left after its ']'. *out is an SG_OP_NUMPY
 * spec with the runtime values met (ps->values, which it takes). */
static sg_status parse_index(parser *ps, sg_spec **out)
{
    assert(*ps->p == '[');
    size_t cap = 1; /* items: at most one more than the commas before the first ']' */
    for (const char *q = ps->p; *q && *q != ']'; q++)
        cap += *q == ',';
    sg_ss_step *steps = calloc(cap, sizeof *steps);
    sg_spec *spec = calloc(1, sizeof *spec);
    size_t n = 0;
    int ellipses = 0;
    if (steps == NULL || spec == NULL) {
        sg_fail(ps->err, SG_ERR_NOMEM, "failed to parse index expression: out of memory");
        goto fail;
    }
    ps->p++;
    skip_space(ps);
    if (*ps->p == ']') {
        syntax_error(ps, "empty index (write [...] for the whole array)");
        goto fail;
    }
    if (*ps->p == '(') { /* x[()]: the empty tuple, the whole array as x[...] */
        parser look = *ps;
        look.p++;
        skip_space(&look);
        if (*look.p == ')') {
            look.p++;
            skip_space(&look);
            if (*look.p == ']') {
                ps->p = look.p;
                steps[n++] = (sg_ss_step){.stride = 1, .ellipsis = true};
            }
        }
    }
    while (*ps->p != ']') {
        skip_space(ps);
        if (n > 0 && *ps->p == ']') /* a trailing comma, as in x[1,] */
            break;
        if (parse_item(ps, &steps[n], &ellipses) != SG_OK)
            goto fail;
        n++;
        skip_space(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == ']')
            break;
        syntax_error(ps, "expected ',' or ']'");
        goto fail;
    }
    ps->p++;
    spec->op = SG_OP_NUMPY;
    spec->len = n;
    spec->steps = steps;
    spec->nvalues = ps->values.count;
    spec->values = ps->values.names;
    ps->values = (sg_value_table){0};
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
fail:
    sg_value_table_free(&ps->values);
    free(steps);
    free(spec);
    return ps->err->status;
}

sg_status sg_numpy_index_parse(const char *expr, size_t at, size_t *end, sg_spec **spec, sg_error *err)
{
    parser ps = {expr, expr + at, err, {0}};
    sg_status status = parse_index(&ps, spec);
    *end = (size_t)(ps.p - expr);
    return status;
}

/* Whether the text is a program by its first characters: a parenthesis;
 * np or numpy and a '.', a call of a NumPy function; or a name and a '(',
 * a model layer's slice (OP(x, "WORDS"), program.c). */
static bool starts_program(const char *p)
{
    size_t len = sg_identifier_length(p);
    if (*p == '(')
        return true;
    bool module = (len == 2 && strncmp(p, "np", 2) == 0) || (len == 5 && strncmp(p, "numpy", 5) == 0);
    if (len == 0)
        return false;
    for (p += len; isspace((unsigned char)*p); p++)
        ;
    return *p == (module ? '.' : '(');
}

sg_status sg_spec_parse_numpy(const char *expr, sg_spec **out, sg_error *err)
{
    parser ps = {expr, expr, err, {0}};
    sg_spec *spec;
    bool named = false;
    skip_space(&ps);
    if (starts_program(ps.p))
        return sg_spec_parse_program(expr, out, err);
    if (isalpha((unsigned char)*ps.p) || *ps.p == '_') { /* optional array name */
        while (isalnum((unsigned char)*ps.p) || *ps.p == '_' || *ps.p == '.')
            ps.p++;
        skip_space(&ps);
        named = true;
    }
    if (*ps.p != '[')
        return syntax_error(&ps, "expected '['");
    if (parse_index(&ps, &spec) != SG_OK)
        return err->status;
    skip_space(&ps);
    if (named && *ps.p == '[') { /* a chain x[...][...]: a program */
        sg_spec_free(spec);
        return sg_spec_parse_program(expr, out, err);
    }
    if (*ps.p != '\0') {
        sg_spec_free(spec);
        return syntax_error(&ps, "unexpected text after ']'");
    }
    *out = spec;
    return SG_OK;
}

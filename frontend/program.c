/* NumPy programs: a NumPy expression over one input array that is more
 * than one index of it becomes an SG_OP_PROGRAM spec. Its tree (sg_prog)
 * is what was written; its text (sg_spec.program) is the canonical form.
 *
 * The grammar, with spaces allowed between any two tokens:
 *
 *   program := expr
 *   expr    := atom index*         index: "[...]", read by sg_numpy_index_parse (names: runtime values)
 *   atom    := NAME | '(' expr ')' | call
 *   call    := ('np.' | 'numpy.') FUNC '(' [arg (',' arg)* [',']] ')'
 *   arg     := value | KEYWORD '=' value       bound to parameters as Python binds them
 *
 *   np.flip(m, axis=None)                      axis: None, an integer or a tuple of them
 *   np.roll(a, shift, axis=None)               shift, axis: an integer or a tuple; axis is required;
 *                                              a shift may be a name (a runtime value)
 *   np.pad(array, pad_width, mode='constant', *, constant_values=0, reflect_type='even')
 *       pad_width: n, (n,), (before, after), ((before, after),) or ((b0, a0), (b1, a1), ...), or
 *       ((n0,), (n1,), ...); mode: 'constant', 'edge', 'reflect', 'symmetric' or 'wrap';
 *       constant_values (mode 'constant' only): one integer, float, nan, inf, True or False
 *   np.concatenate(seq, axis=0)                seq: a list or tuple of at least one expr; axis: an integer
 *
 * NAME is the input array: every NAME of a program is the same identifier
 * (np, numpy and Python's keywords are none). Tuples may be lists; as in
 * Python, (v) is v and a tuple of one needs its comma. Integers are
 * decimal, with a sign and '_' between digits, within int64. A string is
 * quoted with ' or ", without escapes. The rules that need the input's
 * shape are the planner's.
 *
 * Limits, so that no input recurses or allocates without bound:
 * SG_PROG_MAX_DEPTH groups (parentheses, calls, lists and tuples) nested
 * in one another, SG_PROG_MAX_NODES nodes, SG_PROG_MAX_NUMBERS numbers in
 * one argument.
 *
 * The canonical text: the input's name as written; each index as
 * sg_spec_print prints it; calls as np.FUNC with every argument after the
 * first by keyword (pad_width excepted), defaults included:
 *
 *   np.flip(x, axis=None)   np.flip(x, axis=(0, 1))   np.roll(x, shift=(1, -2), axis=(0, 1))
 *   np.pad(x, ((1, 2), (0, 0)), mode='constant', constant_values=0.5)   np.concatenate([x, x[1:]], axis=0)
 *
 * axes and shifts as one number when there is one, else as a tuple;
 * pad_width in the shape it was written in; constant_values only when it
 * was written (booleans as True and False). A program that is the input
 * or one index of it is written "(x)", "(x)[1:]", which
 * sg_spec_parse_numpy reads as a program again. The text reads back into
 * the same text and the same tree (its columns aside).
 *
 * Messages: "failed to parse NumPy program '<text>': <what> at column N
 * ('c')"; those of an index are the index parser's. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

/* ---- the functions ----------------------------------------------------------------------------------- */

/* What an argument is, and where the node keeps it. */
typedef enum arg_kind {
    ARG_ARRAY,        /* an expr: args[0] */
    ARG_ARRAYS,       /* a list or tuple of exprs: args */
    ARG_AXES,         /* None, an integer or a tuple: axes, all_axes */
    ARG_SHIFTS,       /* an integer or a tuple: shifts */
    ARG_AXIS,         /* an integer: axis */
    ARG_WIDTHS,       /* pad_width: widths */
    ARG_MODE,         /* a string: pad_mode */
    ARG_FILL,         /* one scalar: fill */
    ARG_REFLECT_TYPE, /* the string 'even' */
    ARG_UNSUPPORTED   /* NumPy takes it; slicegen does not */
} arg_kind;

typedef struct param {
    const char *name;
    arg_kind kind;
    bool required;
} param;

enum { MAX_PARAMS = 7 };

/* A function: its parameters in order, the first `positional` of which
 * may be given by position; the rest are keyword-only. */
typedef struct function {
    const char *name;
    sg_prog_kind kind;
    size_t nparams, positional;
    param params[MAX_PARAMS];
} function;

static const function functions[] = {
    {"concatenate",
     SG_PROG_CONCAT,
     5,
     3,
     {{"seq", ARG_ARRAYS, true},
      {"axis", ARG_AXIS, false},
      {"out", ARG_UNSUPPORTED, false},
      {"dtype", ARG_UNSUPPORTED, false},
      {"casting", ARG_UNSUPPORTED, false}}},
    {"flip", SG_PROG_FLIP, 2, 2, {{"m", ARG_ARRAY, true}, {"axis", ARG_AXES, false}}},
    {"pad",
     SG_PROG_PAD,
     7,
     3,
     {{"array", ARG_ARRAY, true},
      {"pad_width", ARG_WIDTHS, true},
      {"mode", ARG_MODE, false},
      {"constant_values", ARG_FILL, false},
      {"reflect_type", ARG_REFLECT_TYPE, false},
      {"stat_length", ARG_UNSUPPORTED, false},
      {"end_values", ARG_UNSUPPORTED, false}}},
    {"roll",
     SG_PROG_ROLL,
     3,
     3,
     {{"a", ARG_ARRAY, true}, {"shift", ARG_SHIFTS, true}, {"axis", ARG_AXES, false}}},
};

/* Python's keywords, which name no array. */
static const char *const keywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

/* ---- the parser -------------------------------------------------------------------------------------- */

typedef struct parser {
    const char *text, *p;
    sg_error *err;
    const char *name; /* the input's name, once met: name_len bytes of text */
    size_t name_len;
    size_t depth, nodes;
} parser;

/* Shows an identifier or string of the text in a message (bounded). */
#define WORD_SIDE 12
typedef char word_buf[SG_QUOTE_BUF(WORD_SIDE)];
static const char *word(const char *text, size_t len, word_buf buf)
{
    return sg_quote(text, len, 0, WORD_SIDE, buf);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static sg_status
fail_at(parser *ps, const char *at, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sg_syntax_error(ps->err, "NumPy program", ps->text, (size_t)(at - ps->text), what);
}

static sg_status out_of_memory(parser *ps)
{
    return sg_fail(ps->err, SG_ERR_NOMEM, "failed to parse NumPy program: out of memory");
}

static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static bool is_word(const char *text, size_t len, const char *w)
{
    return strlen(w) == len && strncmp(text, w, len) == 0;
}

/* Opens a group (parenthesis, call, list) at `at`, within the depth limit. */
static sg_status enter(parser *ps, const char *at)
{
    if (++ps->depth > SG_PROG_MAX_DEPTH)
        return fail_at(ps, at, "nested too deeply (more than %d levels)", SG_PROG_MAX_DEPTH);
    return SG_OK;
}

static void leave(parser *ps)
{
    ps->depth--;
}

/* A node of the tree written at `at`, with room for its operand unless
 * it is the input or a concatenate (whose operands are added later). */
static sg_status new_node(parser *ps, sg_prog_kind kind, const char *at, sg_prog **out)
{
    if (++ps->nodes > SG_PROG_MAX_NODES)
        return fail_at(ps, at, "the program is too large (more than %d arrays and operations)",
                       SG_PROG_MAX_NODES);
    sg_prog *node = calloc(1, sizeof *node);
    if (node == NULL)
        return out_of_memory(ps);
    node->kind = kind;
    node->pad_mode = kind == SG_PROG_PAD ? SG_TRT_FILL : SG_TRT_STRICT;
    node->column = sg_utf8_column(ps->text, (size_t)(at - ps->text));
    if (kind != SG_PROG_INPUT && kind != SG_PROG_CONCAT) {
        node->args = calloc(1, sizeof *node->args);
        if (node->args == NULL) {
            free(node);
            return out_of_memory(ps);
        }
        node->nargs = 1;
    }
    *out = node;
    return SG_OK;
}

static sg_status parse_expr(parser *ps, sg_prog **out);

/* ---- numbers and strings ----------------------------------------------------------------------------- */

/* The numbers of one argument, in the order written, and their shape. */
typedef struct shape {
    size_t ndim; /* 0: an integer, 1: a tuple of them, 2: a tuple of tuples */
    size_t dims[2];
} shape;

typedef struct numbers {
    size_t count;
    int64_t *values; /* SG_PROG_MAX_NUMBERS of room */
    char **names;    /* NULL: integers only; else SG_PROG_MAX_NUMBERS of room, a name where a
                        runtime value stands (its number 0), else NULL */
} numbers;

/* A runtime value's name where n takes names (an identifier but True,
 * False and None), appended to n; false where there is none. */
static bool read_name(parser *ps, numbers *n, sg_status *status)
{
    size_t len = sg_identifier_length(ps->p);
    static const char *const words[] = {"True", "False", "None"};
    if (n->names == NULL || len == 0)
        return false;
    for (size_t k = 0; k < 3; k++)
        if (len == strlen(words[k]) && strncmp(ps->p, words[k], len) == 0)
            return false;
    if (n->count == SG_PROG_MAX_NUMBERS) {
        *status = fail_at(ps, ps->p, "too many numbers (more than %d)", SG_PROG_MAX_NUMBERS);
        return true;
    }
    if (len > SG_VALUE_NAME_MAX) {
        *status = fail_at(ps, ps->p, "a value's name is longer than %d bytes", SG_VALUE_NAME_MAX);
        return true;
    }
    char *name = malloc(len + 1);
    if (name == NULL) {
        *status = out_of_memory(ps);
        return true;
    }
    memcpy(name, ps->p, len);
    name[len] = '\0';
    n->names[n->count] = name;
    n->values[n->count++] = 0;
    ps->p += len;
    *status = SG_OK;
    return true;
}

/* An integer (or where n takes them a name), appended to n; `what` says
 * what was expected instead. */
static sg_status read_int(parser *ps, numbers *n, const char *what)
{
    sg_status named;
    if (read_name(ps, n, &named))
        return named;
    const char *start = ps->p;
    bool neg = *ps->p == '-';
    if (*ps->p == '-' || *ps->p == '+') {
        ps->p++;
        skip_space(ps);
    }
    if (!isdigit((unsigned char)*ps->p))
        return fail_at(ps, ps->p, "%s", what);
    const char *digits = ps->p;
    uint64_t mag = sg_scan_digits(ps->p, &ps->p);
    if (isalnum((unsigned char)*ps->p) || *ps->p == '.') /* 1.5, 1e3, 0x10 */
        return fail_at(ps, start, "%s", what);
    if (mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
        word_buf w;
        return fail_at(ps, start, "integer %s%s does not fit in 64 bits", neg ? "-" : "",
                       word(digits, (size_t)(ps->p - digits), w));
    }
    if (n->count == SG_PROG_MAX_NUMBERS)
        return fail_at(ps, start, "too many numbers (more than %d)", SG_PROG_MAX_NUMBERS);
    n->values[n->count++] = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
    return SG_OK;
}

/* After an item of a list or tuple closed by `close`: a comma (consumed,
 * *comma set), or the close (left for the caller), else an error. */
static sg_status list_separator(parser *ps, char close, bool *comma)
{
    skip_space(ps);
    if (*ps->p == ',') {
        *comma = true;
        ps->p++;
        return SG_OK;
    }
    return *ps->p == close ? SG_OK : fail_at(ps, ps->p, "expected ',' or '%c'", close);
}

/* An integer, or a tuple or list of elements of at most levels - 1 levels;
 * its shape in *s. (v) is v. */
static sg_status read_element(parser *ps, size_t levels, numbers *n, shape *s, const char *what)
{
    skip_space(ps);
    const char *at = ps->p;
    char open = *at, close = open == '(' ? ')' : ']';
    if (open != '(' && open != '[') {
        *s = (shape){0};
        return read_int(ps, n, what);
    }
    if (levels == 0 && open == '[')
        return fail_at(ps, at, "%s", what);
    sg_status status = enter(ps, at);
    size_t items = 0;
    bool comma = false;
    shape first = {0};
    ps->p++;
    while (status == SG_OK) {
        skip_space(ps);
        if (*ps->p == close)
            break;
        const char *item = ps->p;
        shape e;
        /* in a parenthesis, an item may be the whole element: (v) */
        status = read_element(ps, open == '(' ? levels : levels - 1, n, &e, what);
        if (status != SG_OK)
            break;
        if (items++ == 0)
            first = e;
        else if (e.ndim != first.ndim || (e.ndim == 1 && e.dims[0] != first.dims[0]))
            return first.ndim == 0 ? fail_at(ps, item, "expected an integer")
                                   : fail_at(ps, item, "expected a tuple of %zu integer%s", first.dims[0],
                                             first.dims[0] == 1 ? "" : "s");
        status = list_separator(ps, close, &comma);
    }
    if (status != SG_OK)
        return status;
    ps->p++;
    leave(ps);
    if (open == '(' && items == 1 && !comma) {
        *s = first;
        return SG_OK;
    }
    if (levels == 0 || (items > 0 && first.ndim + 1 > levels))
        return fail_at(ps, at, "%s", what);
    *s = (shape){first.ndim + 1, {items, first.dims[0]}};
    return SG_OK;
}

static void free_names(char **names, size_t count)
{
    for (size_t i = 0; names != NULL && i < count; i++)
        free(names[i]);
    free(names);
}

/* Numbers of at most `levels` levels into *values (malloc'd, the node's to
 * keep), *count of them, their shape in *s; where names is not NULL, names
 * of runtime values may stand for them: *names then gets an entry per
 * number (NULL for a number), or NULL when none is a name. */
static sg_status read_numbers(parser *ps, size_t levels, const char *what, int64_t **values, size_t *count,
                              shape *s, char ***names)
{
    numbers n = {0, malloc(SG_PROG_MAX_NUMBERS * sizeof *n.values),
                 names ? calloc(SG_PROG_MAX_NUMBERS, sizeof *n.names) : NULL};
    if (n.values == NULL || (names && n.names == NULL)) {
        free(n.values);
        free(n.names);
        return out_of_memory(ps);
    }
    sg_status status = read_element(ps, levels, &n, s, what);
    bool named = false;
    for (size_t i = 0; i < n.count && n.names; i++)
        named = named || n.names[i] != NULL;
    if (status != SG_OK) {
        free(n.values);
        free_names(n.names, n.count);
        return status;
    }
    *values = n.values;
    *count = n.count;
    if (names)
        *names = named ? n.names : NULL;
    if (!named)
        free(n.names);
    return SG_OK;
}

/* A quoted string: its contents text[*start, *start + *len). */
static sg_status read_string(parser *ps, const char **start, size_t *len)
{
    char quote = *ps->p;
    if (quote != '\'' && quote != '"')
        return fail_at(ps, ps->p, "expected a quoted string");
    const char *end = strchr(ps->p + 1, quote);
    if (end == NULL)
        return fail_at(ps, ps->p, "unterminated string");
    *start = ps->p + 1;
    *len = (size_t)(end - *start);
    ps->p = end + 1;
    return SG_OK;
}

/* constant_values: one scalar, read by sg_scalar_from_text from its token:
 * a decimal number, or one of these names. */
static const struct {
    const char *python, *scalar;
    bool numeric; /* may take a sign and np. */
} scalar_names[] = {
    {"nan", "nan", true}, {"inf", "inf", true}, {"True", "true", false}, {"False", "false", false}};

/* Whether c continues a decimal number whose last character is prev. */
static bool number_char(char c, char prev)
{
    return isdigit((unsigned char)c) || c == '_' || c == '.' || c == 'e' || c == 'E' ||
           ((c == '+' || c == '-') && (prev == 'e' || prev == 'E'));
}

static sg_status read_scalar(parser *ps, sg_scalar *value)
{
    static const char what[] = "constant_values must be a number, nan, inf, True or False";
    const char *at = ps->p;
    char token[80];
    size_t n = 0;
    bool integer = true;
    if (*ps->p == '(' || *ps->p == '[')
        return fail_at(ps, at, "only one constant_values scalar is supported");
    if (*ps->p == '-' || *ps->p == '+') {
        token[n++] = *ps->p++;
        skip_space(ps);
    }
    size_t module = strncmp(ps->p, "np.", 3) == 0 ? 3 : strncmp(ps->p, "numpy.", 6) == 0 ? 6 : 0;
    size_t len = sg_identifier_length(ps->p + module);
    if (module > 0 || len > 0) {
        for (size_t k = 0; k < sizeof scalar_names / sizeof *scalar_names; k++) {
            if (is_word(ps->p + module, len, scalar_names[k].python) &&
                (scalar_names[k].numeric || (module == 0 && n == 0))) {
                snprintf(token + n, sizeof token - n, "%s", scalar_names[k].scalar);
                ps->p += module + len;
                return sg_scalar_from_text(token, value, ps->err);
            }
        }
        return fail_at(ps, at, "%s", what);
    }
    if (!isdigit((unsigned char)*ps->p) && *ps->p != '.')
        return fail_at(ps, at, "%s", what);
    for (; number_char(*ps->p, n > 0 ? token[n - 1] : '\0'); ps->p++) {
        if (n + 1 == sizeof token)
            return fail_at(ps, at, "%s", what);
        integer &= isdigit((unsigned char)*ps->p) || *ps->p == '_';
        if (*ps->p != '_')
            token[n++] = *ps->p;
    }
    token[n] = '\0';
    sg_error scalar_err = {0};
    if (sg_scalar_from_text(token, value, &scalar_err) == SG_OK)
        return SG_OK;
    return fail_at(ps, at, "%s", integer ? "integer constant_values does not fit in 64 bits" : what);
}

/* None as a whole word at ps->p (consumed). */
static bool accept_none(parser *ps)
{
    if (!is_word(ps->p, sg_identifier_length(ps->p), "None"))
        return false;
    ps->p += 4;
    return true;
}

/* ---- calls ------------------------------------------------------------------------------------------- */

/* A call being read: where each parameter's argument starts (NULL: not
 * given), and whether by keyword. */
typedef struct call {
    const function *fn;
    sg_prog *node;
    const char *given[MAX_PARAMS];
    bool by_keyword[MAX_PARAMS];
} call;

static size_t param_index(const function *fn, const char *name, size_t len)
{
    size_t i = 0;
    while (i < fn->nparams && !is_word(name, len, fn->params[i].name))
        i++;
    return i;
}

/* Where the argument of the parameter named `name` starts; NULL when not given. */
static const char *given(const call *c, const char *name)
{
    size_t i = param_index(c->fn, name, strlen(name));
    return i < c->fn->nparams ? c->given[i] : NULL;
}

/* The length of KEYWORD in "KEYWORD =" (not "==") at p, *value after the
 * '='; 0 when p starts no keyword argument. */
static size_t keyword_at(const char *p, const char **value)
{
    size_t len = sg_identifier_length(p);
    const char *q = p + len;
    while (isspace((unsigned char)*q))
        q++;
    if (len == 0 || q[0] != '=' || q[1] == '=')
        return 0;
    *value = q + 1;
    return len;
}

/* concatenate's seq: a list or a tuple of at least one expr. */
static sg_status parse_sequence(parser *ps, sg_prog *node)
{
    static const char what[] = "expected a list or tuple of arrays";
    const char *at = ps->p;
    char open = *at, close = open == '(' ? ')' : ']';
    if (open != '(' && open != '[')
        return fail_at(ps, at, "%s", what);
    sg_status status = enter(ps, at);
    size_t cap = 0;
    bool comma = false;
    ps->p++;
    while (status == SG_OK) {
        skip_space(ps);
        if (*ps->p == close)
            break;
        if (node->nargs == cap) {
            sg_prog **args = realloc(node->args, (cap = cap ? 2 * cap : 4) * sizeof *args);
            if (args == NULL)
                return out_of_memory(ps);
            node->args = args;
        }
        status = parse_expr(ps, &node->args[node->nargs]);
        if (status != SG_OK)
            break;
        node->nargs++;
        status = list_separator(ps, close, &comma);
    }
    if (status != SG_OK)
        return status;
    if (node->nargs == 0)
        return fail_at(ps, at, "need at least one array to concatenate");
    if (open == '(' && node->nargs == 1 && !comma)
        return fail_at(ps, at, "%s (a tuple of one needs its comma: (x,))", what);
    ps->p++;
    leave(ps);
    return SG_OK;
}

/* pad_width: numbers of at most two levels, in rows of one or two. */
static sg_status parse_widths(parser *ps, sg_prog *node)
{
    const char *at = ps->p;
    size_t count = 0;
    shape s;
    sg_status status =
        read_numbers(ps, 2, "expected pad widths: n, (before, after) or ((before, after), ...)",
                     &node->widths, &count, &s, &node->width_names); /* names: runtime widths */
    if (status != SG_OK)
        return status;
    node->width_dims = s.ndim;
    node->width_rows = s.ndim == 2 ? s.dims[0] : 1;
    node->width_cols = s.ndim == 0 ? 1 : s.ndim == 1 ? s.dims[0] : s.dims[1];
    if (count == 0)
        return fail_at(ps, at, "pad_width must not be empty");
    if (node->width_cols > 2)
        return fail_at(ps, at, "a pad width is one number or a (before, after) pair, not %zu numbers",
                       node->width_cols);
    return SG_OK;
}

static const char roll_without_axis[] = "np.roll without an axis (the flattened array) is not supported";

/* The argument of parameter i, at ps->p. */
static sg_status parse_value(parser *ps, call *c, size_t i)
{
    sg_prog *node = c->node;
    const char *at = ps->p, *text = NULL;
    size_t len = 0, count = 0;
    int64_t *axis = NULL;
    shape s;
    word_buf w;
    sg_status status;
    switch (c->fn->params[i].kind) {
    case ARG_ARRAY:
        return parse_expr(ps, &node->args[0]);
    case ARG_ARRAYS:
        return parse_sequence(ps, node);
    case ARG_AXES:
        if (!accept_none(ps))
            return read_numbers(ps, 1,
                                node->kind == SG_PROG_FLIP
                                    ? "expected None, an integer or a tuple of integers"
                                    : "expected an integer or a tuple of integers",
                                &node->axes, &node->naxes, &s, NULL);
        if (node->kind == SG_PROG_ROLL)
            return fail_at(ps, at, "%s", roll_without_axis);
        node->all_axes = true;
        return SG_OK;
    case ARG_SHIFTS:
        return read_numbers(ps, 1, "expected an integer or a tuple of integers", &node->shifts,
                            &node->nshifts, &s, &node->shift_names); /* names: runtime shifts */
    case ARG_AXIS:
        if (accept_none(ps))
            return fail_at(ps, at, "np.concatenate with axis=None (flattened arrays) is not supported");
        if ((status = read_numbers(ps, 0, "expected an integer", &axis, &count, &s, NULL)) != SG_OK)
            return status;
        node->axis = axis[0];
        free(axis);
        return SG_OK;
    case ARG_WIDTHS:
        return parse_widths(ps, node);
    case ARG_MODE:
        if ((status = read_string(ps, &text, &len)) != SG_OK)
            return status;
        if (sg_numpy_pad_mode_parse(text, len, &node->pad_mode))
            return SG_OK;
        return fail_at(ps, at,
                       "np.pad mode '%s' is not supported (supported: 'constant', 'edge', 'reflect', "
                       "'symmetric', 'wrap')",
                       word(text, len, w));
    case ARG_FILL:
        node->fill_given = true;
        return read_scalar(ps, &node->fill);
    case ARG_REFLECT_TYPE:
        if ((status = read_string(ps, &text, &len)) != SG_OK)
            return status;
        return is_word(text, len, "even")
                   ? SG_OK
                   : fail_at(ps, at, "reflect_type='%s' is not supported (only 'even')", word(text, len, w));
    case ARG_UNSUPPORTED:
        break;
    }
    assert(!"an unsupported argument is refused before its value");
    return SG_ERR_INTERNAL;
}

/* After the arguments, at the call's ')': what is missing, the defaults,
 * and the rules between arguments. */
static sg_status finish_call(parser *ps, call *c, const char *close)
{
    const function *fn = c->fn;
    sg_prog *node = c->node;
    const char *missing[2];
    size_t nmissing = 0;
    for (size_t i = 0; i < fn->nparams; i++)
        if (fn->params[i].required && c->given[i] == NULL)
            missing[nmissing++] = fn->params[i].name; /* at most two are required */
    if (nmissing == 1)
        return fail_at(ps, close, "np.%s() missing 1 required positional argument: '%s'", fn->name,
                       missing[0]);
    if (nmissing == 2)
        return fail_at(ps, close, "np.%s() missing 2 required positional arguments: '%s' and '%s'", fn->name,
                       missing[0], missing[1]);
    if (node->kind == SG_PROG_FLIP && given(c, "axis") == NULL)
        node->all_axes = true;
    if (node->kind == SG_PROG_ROLL && given(c, "axis") == NULL)
        return fail_at(ps, close, "%s", roll_without_axis);
    if (node->kind != SG_PROG_PAD)
        return SG_OK;
    /* np.pad's keywords by mode: constant_values for 'constant', reflect_type for 'reflect' and 'symmetric'
     */
    const char *extra = NULL;
    if (node->pad_mode != SG_TRT_FILL && given(c, "constant_values") != NULL)
        extra = "constant_values";
    else if (node->pad_mode != SG_TRT_REFLECT && node->pad_mode != SG_MODE_SYMMETRIC &&
             given(c, "reflect_type") != NULL)
        extra = "reflect_type";
    if (extra != NULL)
        return fail_at(ps, given(c, extra), "unsupported keyword arguments for mode '%s': {'%s'}",
                       sg_numpy_pad_mode_name(node->pad_mode), extra);
    return SG_OK;
}

/* The arguments, ps->p at the '(', bound to parameters as Python binds them. */
static sg_status parse_args(parser *ps, call *c)
{
    const function *fn = c->fn;
    size_t positional = 0;
    bool keywords_met = false;
    sg_status status;
    word_buf w;
    ps->p++;
    for (;;) {
        skip_space(ps);
        if (*ps->p == ')')
            break;
        const char *arg = ps->p, *value = NULL;
        size_t len = keyword_at(arg, &value), i;
        if (len > 0) {
            i = param_index(fn, arg, len);
            if (i == fn->nparams)
                return fail_at(ps, arg, "np.%s() got an unexpected keyword argument '%s'", fn->name,
                               word(arg, len, w));
            if (c->given[i] != NULL)
                return c->by_keyword[i]
                           ? fail_at(ps, arg, "keyword argument repeated: %s", fn->params[i].name)
                           : fail_at(ps, arg, "np.%s() got multiple values for argument '%s'", fn->name,
                                     fn->params[i].name);
            keywords_met = c->by_keyword[i] = true;
            ps->p = value;
            skip_space(ps);
        } else if (keywords_met) {
            return fail_at(ps, arg, "positional argument follows keyword argument");
        } else if (positional == fn->positional) {
            return fail_at(ps, arg, "np.%s() takes at most %zu positional arguments", fn->name,
                           fn->positional);
        } else {
            i = positional++;
        }
        c->given[i] = arg;
        if (fn->params[i].kind == ARG_UNSUPPORTED)
            return fail_at(ps, arg, "the argument '%s' of np.%s is not supported", fn->params[i].name,
                           fn->name);
        if ((status = parse_value(ps, c, i)) != SG_OK)
            return status;
        skip_space(ps);
        if (*ps->p == ',')
            ps->p++;
        else if (*ps->p != ')')
            return fail_at(ps, ps->p, "expected ',' or ')'");
    }
    const char *close = ps->p++;
    return finish_call(ps, c, close);
}

/* np.FUNC(...) or numpy.FUNC(...) written at `at`; ps->p at the '.'. */
static sg_status parse_call(parser *ps, const char *at, sg_prog **out)
{
    ps->p++;
    skip_space(ps);
    const char *name = ps->p;
    size_t len = sg_identifier_length(name);
    const function *fn = NULL;
    word_buf w;
    for (size_t f = 0; f < sizeof functions / sizeof *functions && len > 0; f++)
        if (is_word(name, len, functions[f].name))
            fn = &functions[f];
    if (len == 0)
        return fail_at(ps, name, "expected a function name");
    if (fn == NULL)
        return fail_at(
            ps, name,
            "np.%s is not supported (the functions are np.concatenate, np.flip, np.pad and np.roll)",
            word(name, len, w));
    ps->p += len;
    skip_space(ps);
    if (*ps->p != '(')
        return fail_at(ps, ps->p, "expected '(' after np.%s", fn->name);
    call c = {.fn = fn};
    sg_status status = new_node(ps, fn->kind, at, &c.node);
    if (status == SG_OK)
        status = enter(ps, ps->p);
    if (status == SG_OK)
        status = parse_args(ps, &c);
    if (status != SG_OK) {
        sg_prog_free(c.node);
        return status;
    }
    leave(ps);
    *out = c.node;
    return SG_OK;
}

/* ---- expressions ------------------------------------------------------------------------------------- */

/* A name, a parenthesis or a call. On failure nothing is left allocated
 * and *out is as it was. */
/* The ops of layer nodes: OP(operand, "WORDS") */
static const char *const layer_ops[] = {"StridedSlice", "Slice", "TrtSlice", "OnnxSlice", "Pad"};

/* OP(operand, "WORDS") at `at` (OP, len bytes, is a layer op): a model
 * layer's slice as aot --fuse writes it, WORDS its spec's command-line
 * words after `--op OP` ('' an empty word). */
static sg_status parse_layer(parser *ps, const char *at, size_t len, sg_prog **out)
{
    sg_prog *node = NULL;
    char *copy = NULL, **words = NULL;
    const char *text = NULL;
    size_t text_len = 0;
    sg_status status = enter(ps, at);
    if (status == SG_OK)
        status = new_node(ps, SG_PROG_LAYER, at, &node);
    ps->p = strchr(at + len, '(') + 1;
    if (status == SG_OK)
        status = parse_expr(ps, &node->args[0]);
    if (status == SG_OK) {
        skip_space(ps);
        status = *ps->p == ',' ? SG_OK : fail_at(ps, ps->p, "expected ','");
    }
    if (status == SG_OK) {
        ps->p++;
        skip_space(ps);
        status = read_string(ps, &text, &text_len);
    }
    if (status == SG_OK) {
        skip_space(ps);
        status = *ps->p == ')' ? SG_OK : fail_at(ps, ps->p, "expected ')'");
    }
    if (status == SG_OK) {
        const char *words_at = text;
        ps->p++;
        leave(ps);
        /* "--op OP" and the words between spaces */
        copy = malloc(len + text_len + 8);
        words = malloc((text_len / 2 + 4) * sizeof *words);
        if (copy == NULL || words == NULL) {
            status = out_of_memory(ps);
        } else {
            int n = 0;
            memcpy(copy, at, len);
            copy[len] = '\0';
            char *rest = copy + len + 1;
            memcpy(rest, text, text_len);
            rest[text_len] = '\0';
            words[n++] = "--op";
            words[n++] = copy;
            for (char *w = rest, *end; *w != '\0'; w = end) {
                end = strchr(w, ' ');
                end = end ? (*end = '\0', end + 1) : w + strlen(w);
                if (*w != '\0')
                    words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
            }
            status = sg_spec_parse_words(n, words, &node->index, ps->err);
            if (status == SG_OK && node->index->nvalues > 0)
                status = fail_at(ps, words_at, "runtime values are not supported in programs yet");
        }
    }
    free(copy);
    free(words);
    if (status != SG_OK) {
        sg_prog_free(node);
        return status;
    }
    *out = node;
    return SG_OK;
}

static sg_status parse_atom(parser *ps, sg_prog **out)
{
    word_buf w, w2;
    skip_space(ps);
    const char *at = ps->p;
    if (*at == '(') {
        sg_prog *inner = NULL;
        sg_status status = enter(ps, at);
        ps->p++;
        if (status == SG_OK)
            status = parse_expr(ps, &inner);
        if (status != SG_OK)
            return status;
        skip_space(ps);
        if (*ps->p != ')') {
            sg_prog_free(inner);
            return fail_at(ps, ps->p, "expected ')'");
        }
        ps->p++;
        leave(ps);
        *out = inner;
        return SG_OK;
    }
    size_t len = sg_identifier_length(at);
    if (len == 0)
        return fail_at(ps, at,
                       "expected an array (a name, '(' or a call of np.concatenate, np.flip, np.pad "
                       "or np.roll)");
    if (is_word(at, len, "np") || is_word(at, len, "numpy")) {
        ps->p += len;
        skip_space(ps);
        if (*ps->p == '.')
            return parse_call(ps, at, out);
        return fail_at(ps, at, "'%s' names the NumPy module, not an array", word(at, len, w));
    }
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (is_word(at, len, keywords[k]))
            return fail_at(ps, at, "'%s' is a Python keyword, not an array", keywords[k]);
    const char *after = at + len;
    while (*after == ' ')
        after++;
    for (size_t k = 0; *after == '(' && k < sizeof layer_ops / sizeof *layer_ops; k++)
        if (is_word(at, len, layer_ops[k]))
            return parse_layer(ps, at, len, out);
    if (*after == '(')
        return fail_at(
            ps, at,
            "'%s' is not a function slicegen takes (np.concatenate, np.flip, np.pad, np.roll, or a "
            "model layer's StridedSlice, Slice, TrtSlice, OnnxSlice or Pad)",
            word(at, len, w));
    if (ps->name == NULL) {
        ps->name = at;
        ps->name_len = len;
    } else if (len != ps->name_len || memcmp(at, ps->name, len) != 0) {
        return fail_at(ps, at, "the program reads one array, '%s', not '%s'", word(ps->name, ps->name_len, w),
                       word(at, len, w2));
    }
    ps->p += len;
    return new_node(ps, SG_PROG_INPUT, at, out);
}

/* An atom and the indices that follow it. On failure nothing is left
 * allocated and *out is as it was. */
static sg_status parse_expr(parser *ps, sg_prog **out)
{
    sg_prog *expr = NULL, *index = NULL;
    sg_status status = parse_atom(ps, &expr);
    while (status == SG_OK) {
        skip_space(ps);
        if (*ps->p != '[')
            break;
        if ((status = new_node(ps, SG_PROG_INDEX, ps->p, &index)) != SG_OK)
            break;
        index->args[0] = expr;
        expr = index;
        size_t end;
        status = sg_numpy_index_parse(ps->text, (size_t)(ps->p - ps->text), &end, &index->index, ps->err);
        ps->p = ps->text + end;
    }
    if (status != SG_OK) {
        sg_prog_free(expr);
        return status;
    }
    *out = expr;
    return SG_OK;
}

/* ---- the canonical text ------------------------------------------------------------------------------ */

/* Axes or shifts: one number, or a tuple. */
static void print_ints(FILE *out, const int64_t *v, size_t n)
{
    if (n == 1) {
        fprintf(out, "%lld", (long long)v[0]);
        return;
    }
    fputc('(', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputc(')', out);
}

/* A scalar as Python writes it: sg_scalar_format's text, booleans as True and False. */
static void print_scalar(FILE *out, const sg_scalar *value)
{
    char text[SG_SCALAR_TEXT];
    sg_scalar_format(value, text);
    for (size_t k = 0; k < sizeof scalar_names / sizeof *scalar_names; k++)
        if (strcmp(text, scalar_names[k].scalar) == 0)
            snprintf(text, sizeof text, "%s", scalar_names[k].python);
    fputs(text, out);
}

/* How a tree prints: the input's name, and the numbers written in for the
 * names of `program` (values NULL: the names); input_at, once printed, the
 * byte where the first input's name went (-1 before). */
typedef struct printer {
    const char *name;
    size_t name_len;
    const sg_spec *program;
    const int64_t *values;
    long input_at;
} printer;

/* Number i of a list whose entries names[i] (names NULL: none) may be
 * runtime values: the number, the name, or its value where the printer
 * writes values in. */
static void print_number(FILE *out, const int64_t *numbers, char *const *names, size_t i, const printer *pr)
{
    const char *name = names ? names[i] : NULL;
    if (name == NULL)
        fprintf(out, "%lld", (long long)numbers[i]);
    else if (pr->values == NULL)
        fputs(name, out);
    else
        fprintf(out, "%lld", (long long)pr->values[sg_program_value(pr->program, name)]);
}

/* pad_width in the shape it was written in. */
static void print_widths(FILE *out, const sg_prog *node, const printer *pr)
{
    size_t rows = node->width_rows, cols = node->width_cols;
    if (node->width_dims == 0) {
        print_number(out, node->widths, node->width_names, 0, pr);
        return;
    }
    if (node->width_dims == 2)
        fputc('(', out);
    for (size_t r = 0; r < rows; r++) {
        fputs(r ? ", (" : "(", out);
        for (size_t k = 0; k < cols; k++) {
            fputs(k ? ", " : "", out);
            print_number(out, node->widths, node->width_names, r * cols + k, pr);
        }
        fputs(cols == 1 ? ",)" : ")", out);
    }
    if (node->width_dims == 2)
        fputs(rows == 1 ? ",)" : ")", out);
}

/* A ROLL node's shifts: one, or a tuple; a runtime value's name, or its
 * value where the printer writes values in. */
static void print_shifts(FILE *out, const sg_prog *node, const printer *pr)
{
    if (node->shift_names == NULL) {
        print_ints(out, node->shifts, node->nshifts);
        return;
    }
    if (node->nshifts != 1)
        fputc('(', out);
    for (size_t i = 0; i < node->nshifts; i++) {
        const char *name = node->shift_names[i];
        if (i)
            fputs(", ", out);
        if (name == NULL)
            fprintf(out, "%lld", (long long)node->shifts[i]);
        else if (pr->values == NULL)
            fputs(name, out);
        else
            fprintf(out, "%lld", (long long)pr->values[sg_program_value(pr->program, name)]);
    }
    if (node->nshifts != 1)
        fputc(')', out);
}

/* An INDEX node's "[...]". */
static void print_index(FILE *out, const sg_prog *node, const printer *pr)
{
    if (pr->values == NULL || node->index->nvalues == 0) {
        sg_spec_print(node->index, out);
        return;
    }
    uint16_t global[SG_MAX_VALUES];
    int64_t mine[SG_MAX_VALUES];
    sg_program_values(pr->program, node->index, global);
    for (size_t k = 0; k < node->index->nvalues; k++)
        mine[k] = pr->values[global[k]];
    sg_spec_print_values(node->index, mine, out);
}

static void print_node(FILE *out, const sg_prog *node, printer *pr)
{
    switch (node->kind) {
    case SG_PROG_INPUT:
        if (pr->input_at < 0)
            pr->input_at = ftell(out);
        fwrite(pr->name, 1, pr->name_len, out);
        return;
    case SG_PROG_INDEX:
        print_node(out, node->args[0], pr);
        print_index(out, node, pr);
        return;
    case SG_PROG_LAYER: {
        char *words = sg_spec_to_text(node->index);
        const char *rest = words && strncmp(words, "--op ", 5) == 0 ? strchr(words + 5, ' ') : NULL;
        fprintf(out, "%s(", sg_op_name(node->index->op));
        print_node(out, node->args[0], pr);
        fprintf(out, ", \"%s\")", rest ? rest + 1 : words ? words : "");
        free(words);
        return;
    }
    case SG_PROG_FLIP:
        fputs("np.flip(", out);
        print_node(out, node->args[0], pr);
        fputs(", axis=", out);
        if (node->all_axes)
            fputs("None", out);
        else
            print_ints(out, node->axes, node->naxes);
        fputc(')', out);
        return;
    case SG_PROG_ROLL:
        fputs("np.roll(", out);
        print_node(out, node->args[0], pr);
        fputs(", shift=", out);
        print_shifts(out, node, pr);
        fputs(", axis=", out);
        print_ints(out, node->axes, node->naxes);
        fputc(')', out);
        return;
    case SG_PROG_PAD:
        fputs("np.pad(", out);
        print_node(out, node->args[0], pr);
        fputs(", ", out);
        print_widths(out, node, pr);
        fprintf(out, ", mode='%s'", sg_numpy_pad_mode_name(node->pad_mode));
        if (node->fill_given) {
            fputs(", constant_values=", out);
            print_scalar(out, &node->fill);
        }
        fputc(')', out);
        return;
    case SG_PROG_CONCAT:
        fputs("np.concatenate([", out);
        for (size_t i = 0; i < node->nargs; i++) {
            if (i)
                fputs(", ", out);
            print_node(out, node->args[i], pr);
        }
        fprintf(out, "], axis=%lld)", (long long)node->axis);
        return;
    }
}

/* The canonical text of a tree. */
static void print_program(FILE *f, const sg_prog *prog, printer *pr)
{
    if (prog->kind == SG_PROG_INPUT ||
        (prog->kind == SG_PROG_INDEX && prog->args[0]->kind == SG_PROG_INPUT)) {
        /* "(x)", "(x)[1:]": sg_spec_parse_numpy reads them as programs again */
        fputc('(', f);
        print_node(f, prog->kind == SG_PROG_INPUT ? prog : prog->args[0], pr);
        fputc(')', f);
        if (prog->kind == SG_PROG_INDEX)
            print_index(f, prog, pr);
        return;
    }
    print_node(f, prog, pr);
}

/* The canonical text, malloc'd; NULL when out of memory. */
static char *program_text(const sg_prog *prog, const char *name, size_t name_len)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    printer pr = {name, name_len, NULL, NULL, -1};
    print_program(f, prog, &pr);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void sg_program_print_values(const sg_spec *program, const int64_t *values, FILE *out)
{
    /* the input's name: where the tree printed without it puts it */
    char *bare = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&bare, &len);
    printer pr = {"", 0, NULL, NULL, -1};
    if (f != NULL) {
        print_program(f, program->prog, &pr);
        fclose(f);
    }
    free(bare);
    const char *name = program->program + (pr.input_at > 0 ? pr.input_at : 0);
    pr = (printer){name, sg_identifier_length(name), program, values, -1};
    print_program(out, program->prog, &pr);
}

/* Adds the names of the indices of node and below to t, in the order of
 * the text (an operand before what indexes it). */
static sg_status collect_names(const sg_prog *node, sg_value_table *t, const char **why)
{
    for (size_t i = 0; i < node->nargs; i++)
        if (collect_names(node->args[i], t, why) != SG_OK)
            return SG_ERR_SPEC;
    for (size_t k = 0; node->kind == SG_PROG_INDEX && k < node->index->nvalues; k++) {
        uint16_t ref;
        const char *name = node->index->values[k];
        sg_status st = sg_value_table_ref(t, name, strlen(name), &ref, why);
        if (st != SG_OK)
            return st;
    }
    for (size_t k = 0; node->shift_names && k < node->nshifts; k++) {
        uint16_t ref;
        const char *name = node->shift_names[k];
        sg_status st = name ? sg_value_table_ref(t, name, strlen(name), &ref, why) : SG_OK;
        if (st != SG_OK)
            return st;
    }
    for (size_t k = 0; node->width_names && k < node->width_rows * node->width_cols; k++) {
        uint16_t ref;
        const char *name = node->width_names[k];
        sg_status st = name ? sg_value_table_ref(t, name, strlen(name), &ref, why) : SG_OK;
        if (st != SG_OK)
            return st;
    }
    return SG_OK;
}

size_t sg_program_value(const sg_spec *program, const char *name)
{
    size_t g = 0;
    while (g < program->nvalues && strcmp(program->values[g], name) != 0)
        g++;
    assert(g < program->nvalues);
    return g;
}

void sg_program_values(const sg_spec *program, const sg_spec *index, uint16_t *global)
{
    for (size_t k = 0; k < index->nvalues; k++)
        global[k] = (uint16_t)sg_program_value(program, index->values[k]);
}

void sg_program_check_values(const sg_spec *program)
{
    sg_value_table t = {0};
    const char *why;
    sg_status st = collect_names(program->prog, &t, &why);
    assert(st == SG_OK && t.count == program->nvalues);
    for (size_t k = 0; k < t.count; k++)
        assert(strcmp(t.names[k], program->values[k]) == 0);
    sg_value_table_free(&t);
    (void)st;
}

/* ---- the spec ---------------------------------------------------------------------------------------- */

sg_status sg_spec_parse_program(const char *expr, sg_spec **out, sg_error *err)
{
    parser ps = {.text = expr, .p = expr, .err = err};
    sg_prog *prog = NULL;
    sg_spec *spec = NULL;
    sg_status status = parse_expr(&ps, &prog);
    if (status == SG_OK) {
        skip_space(&ps);
        if (*ps.p != '\0')
            status = fail_at(&ps, ps.p, "unexpected text after the expression");
    }
    if (status != SG_OK)
        goto fail;
    assert(ps.name != NULL && ps.depth == 0); /* every expr reads the input */
    spec = calloc(1, sizeof *spec);
    if (spec == NULL || (spec->program = program_text(prog, ps.name, ps.name_len)) == NULL) {
        status = out_of_memory(&ps);
        goto fail;
    }
    spec->op = SG_OP_PROGRAM;
    sg_value_table names = {0};
    const char *why = NULL;
    if ((status = collect_names(prog, &names, &why)) != SG_OK) {
        sg_value_table_free(&names);
        status = status == SG_ERR_NOMEM ? out_of_memory(&ps)
                                        : sg_fail(err, status, "failed to parse NumPy program: %s", why);
        goto fail;
    }
    spec->nvalues = names.count;
    spec->values = names.names;
    spec->prog = prog;
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
fail:
    sg_prog_free(prog);
    if (spec != NULL)
        free(spec->program);
    free(spec);
    return status;
}

sg_status sg_spec_make_program(sg_prog *prog, const char *name, sg_spec **out, sg_error *err)
{
    sg_spec *spec = calloc(1, sizeof *spec);
    if (spec == NULL || (spec->program = program_text(prog, name, strlen(name))) == NULL) {
        free(spec);
        sg_prog_free(prog);
        return sg_fail(err, SG_ERR_NOMEM, "failed to make a program: out of memory");
    }
    spec->op = SG_OP_PROGRAM;
    spec->prog = prog;
    sg_spec_check(spec);
    *out = spec;
    return SG_OK;
}

/* ---- the tree ---------------------------------------------------------------------------------------- */

/* Asserts the invariants of node and below; returns its nodes. */
static size_t check_node(const sg_prog *node)
{
    assert(node != NULL && node->column >= 1);
    bool pad = node->kind == SG_PROG_PAD, axes = node->kind == SG_PROG_FLIP || node->kind == SG_PROG_ROLL;
    size_t operands = node->kind == SG_PROG_INPUT ? 0 : node->kind == SG_PROG_CONCAT ? node->nargs : 1;
    assert(node->nargs == operands && (node->kind != SG_PROG_CONCAT || node->nargs >= 1));
    assert((node->nargs == 0) == (node->args == NULL));
    assert((node->kind == SG_PROG_INDEX || node->kind == SG_PROG_LAYER) == (node->index != NULL));
    assert(node->kind != SG_PROG_LAYER || node->index->nvalues == 0);
    assert(node->kind != SG_PROG_INDEX || node->index->op == SG_OP_NUMPY);
    assert(node->kind != SG_PROG_LAYER || node->index->op != SG_OP_PROGRAM);
    if (node->index != NULL)
        sg_spec_check(node->index);
    assert(axes || (node->naxes == 0 && node->axes == NULL));
    assert(!node->all_axes || (node->kind == SG_PROG_FLIP && node->naxes == 0));
    assert(node->naxes == 0 || node->axes != NULL);
    assert(node->kind == SG_PROG_ROLL || (node->nshifts == 0 && node->shifts == NULL));
    for (size_t i = 0; node->shift_names && i < node->nshifts; i++)
        assert(node->shift_names[i] == NULL || node->shifts[i] == 0);
    assert(node->nshifts == 0 || node->shifts != NULL);
    assert(node->kind == SG_PROG_CONCAT || node->axis == 0);
    if (pad) {
        assert(node->widths != NULL && node->width_dims <= 2 && node->width_rows >= 1);
        assert(node->width_cols >= 1 && node->width_cols <= 2);
        assert(node->width_dims == 2 || node->width_rows == 1);
        assert(node->width_dims != 0 || node->width_cols == 1);
        assert(sg_numpy_pad_mode_name(node->pad_mode) != NULL);
        for (size_t i = 0; node->width_names && i < node->width_rows * node->width_cols; i++)
            assert(node->width_names[i] == NULL || node->widths[i] == 0);
    } else {
        assert(node->widths == NULL && node->width_names == NULL && node->width_rows == 0 &&
               node->width_cols == 0 && node->width_dims == 0);
        assert(node->pad_mode == SG_TRT_STRICT);
    }
    assert(!node->fill_given || (pad && node->pad_mode == SG_TRT_FILL));
    assert(node->fill_given || (node->fill.kind == SG_SCALAR_INT && node->fill.i == 0));
    size_t nodes = 1;
    for (size_t i = 0; i < node->nargs; i++)
        nodes += check_node(node->args[i]);
    assert(nodes <= SG_PROG_MAX_NODES);
    (void)pad, (void)axes, (void)operands;
    return nodes;
}

void sg_prog_check(const sg_prog *prog)
{
    (void)check_node(prog);
}

/* *to: a copy of from[0, n) (NULL for NULL); false when out of memory. */
static bool copy_ints(int64_t **to, const int64_t *from, size_t n)
{
    *to = NULL;
    if (from == NULL)
        return true;
    *to = malloc((n ? n : 1) * sizeof **to);
    if (*to != NULL)
        memcpy(*to, from, n * sizeof **to);
    return *to != NULL;
}

/* A copy of names[0, n) (entries may be NULL; names NULL: none). */
static bool copy_names(char ***to, char *const *from, size_t n)
{
    *to = NULL;
    if (from == NULL)
        return true;
    if ((*to = calloc(n ? n : 1, sizeof **to)) == NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        if (from[i] != NULL && ((*to)[i] = strdup(from[i])) == NULL)
            return false;
    return true;
}

sg_prog *sg_prog_copy(const sg_prog *prog)
{
    sg_prog *copy = malloc(sizeof *copy);
    if (copy == NULL)
        return NULL;
    *copy = *prog;
    copy->nargs = 0;
    copy->args = NULL;
    copy->index = NULL;
    copy->axes = copy->shifts = copy->widths = NULL;
    copy->shift_names = copy->width_names = NULL;
    sg_error err = {0};
    bool ok = copy_ints(&copy->axes, prog->axes, prog->naxes) &&
              copy_ints(&copy->shifts, prog->shifts, prog->nshifts) &&
              copy_names(&copy->shift_names, prog->shift_names, prog->nshifts) &&
              copy_ints(&copy->widths, prog->widths, prog->width_rows * prog->width_cols) &&
              copy_names(&copy->width_names, prog->width_names, prog->width_rows * prog->width_cols) &&
              (prog->index == NULL || sg_spec_copy(prog->index, &copy->index, &err) == SG_OK) &&
              (prog->nargs == 0 || (copy->args = calloc(prog->nargs, sizeof *copy->args)) != NULL);
    if (ok)
        copy->nargs = prog->nargs;
    for (size_t i = 0; ok && i < prog->nargs; i++)
        ok = (copy->args[i] = sg_prog_copy(prog->args[i])) != NULL;
    if (!ok) {
        sg_prog_free(copy);
        return NULL;
    }
    return copy;
}

void sg_prog_free(sg_prog *prog)
{
    if (prog == NULL)
        return;
    for (size_t i = 0; i < prog->nargs; i++)
        sg_prog_free(prog->args[i]);
    free(prog->args);
    sg_spec_free(prog->index);
    free(prog->axes);
    free(prog->shifts);
    free_names(prog->shift_names, prog->nshifts);
    free(prog->widths);
    free_names(prog->width_names, prog->width_rows * prog->width_cols);
    free(prog);
}

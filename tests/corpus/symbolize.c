/* The symbolize transform (symbolize.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/runtime.h"
#include "symbolize.h"

/* The options whose lists take names, and the fill options. */
static const char *const number_lists[] = {"--begin", "--end",        "--stride",   "--start",
                                           "--stop",  "--step",       "--size",     "--pads-begin",
                                           "--pads-end", "--axes",    "--split"};
static const char *const fill_options[] = {"--fill", "--value"};

static bool listed(const char *word, size_t len, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(word, names[i], len) == 0)
            return true;
    return false;
}

/* A growing string. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static bool put(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = (t->len + n + 1) * 2;
        char *grown = realloc(t->s, cap);
        if (grown == NULL)
            return false;
        t->s = grown, t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    return true;
}

/* Appends the name of a new value v, or fails past SG_MAX_VALUES. */
static bool new_value(symbolized *s, text *t, int64_t v)
{
    char name[16];
    if (s->nvalues == SG_MAX_VALUES)
        return false;
    int n = snprintf(name, sizeof name, "v%zu", s->nvalues);
    s->values[s->nvalues++] = v;
    return put(t, name, (size_t)n);
}

/* An integer as a spec writes it ('_' may separate digits in NumPy's), of
 * `len` bytes at p, into *v. */
static bool integer(const char *p, size_t len, int64_t *v)
{
    char digits[32];
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '_')
            continue;
        if (n + 1 == sizeof digits)
            return false;
        digits[n++] = p[i];
    }
    digits[n] = '\0';
    char *end;
    errno = 0;
    long long x = strtoll(digits, &end, 10);
    if (n == 0 || *end != '\0' || errno == ERANGE)
        return false;
    *v = x;
    return true;
}

/* A comma-separated list with each integer item a new value. */
static bool list_symbolized(symbolized *s, const char *list, text *t)
{
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int64_t v;
        if (len > 0 && integer(p, len, &v) ? !new_value(s, t, v) : !put(t, p, len))
            return false;
        if (end == NULL)
            return true;
        if (!put(t, ",", 1))
            return false;
        p = end + 1;
    }
}

/* A NumPy expression with each integer (its sign included) a new value:
 * an integer is where an index or bound may start, after '[', ',' or ':'. */
static bool numpy_symbolized(symbolized *s, const char *expr, text *t)
{
    char before = '\0';        /* the last byte that is not a space */
    bool index[64] = {false};  /* per bracket open: an index's (after a name, ']' or ')'), not a list's */
    int depth = 0;
    for (const char *p = expr; *p;) {
        const char *q = p + (*p == '-' || *p == '+');
        if (*p == '[' && depth < 64)
            index[depth++] = isalnum((unsigned char)before) || before == '_' || before == ']' || before == ')';
        else if (*p == ']' && depth > 0)
            depth--;
        bool in_index = depth > 0 && index[depth - 1];
        if (in_index && (before == '[' || before == ',' || before == ':') && isdigit((unsigned char)*q)) {
            while (isdigit((unsigned char)*q) || *q == '_')
                q++;
            int64_t v;
            if (!isalpha((unsigned char)*q) && integer(*p == '+' ? p + 1 : p, (size_t)(q - p) - (*p == '+'), &v)) {
                if (!new_value(s, t, v))
                    return false;
                before = '0';
                p = q;
                continue;
            }
        }
        if (!isspace((unsigned char)*p))
            before = *p;
        if (!put(t, p, 1))
            return false;
        p++;
    }
    return true;
}

bool symbolize(sg_context *ctx, int count, char *const *words, sg_dtype dtype, symbolized *out, const char **why)
{
    memset(out, 0, sizeof *out);
    sg_spec *spec = NULL;
    *why = "the spec does not read";
    if (count > SYMBOLIZE_MAX_WORDS || sg_spec_from_words(ctx, count, words, &spec) != SG_OK)
        return false;
    bool takes_values = symbolizable(spec);
    sg_spec_destroy(spec);
    *why = "a program other than a chain of indices, np.flip, np.roll and np.pad, or np.concatenate of such "
           "chains, takes no runtime values";
    if (!takes_values)
        return false;
    bool ok = true, numbers_next = false, fill_next = false;
    for (int i = 0; i < count && ok; i++) {
        const char *w = words[i], *eq = strncmp(w, "--", 2) == 0 ? strchr(w, '=') : NULL;
        size_t name_len = eq ? (size_t)(eq - w) : strlen(w);
        text t = {0};
        bool numbers = numbers_next, fill = fill_next;
        numbers_next = fill_next = false;
        if (eq != NULL) { /* --opt=VALUE */
            numbers = listed(w, name_len, number_lists, sizeof number_lists / sizeof *number_lists);
            fill = listed(w, name_len, fill_options, 2);
            ok = put(&t, w, name_len + 1);
            w = eq + 1;
        } else if (strncmp(w, "--", 2) == 0) {
            numbers_next = listed(w, name_len, number_lists, sizeof number_lists / sizeof *number_lists);
            fill_next = listed(w, name_len, fill_options, 2);
            ok = put(&t, w, strlen(w));
            out->words[out->nwords++] = t.s;
            continue;
        }
        sg_scalar scalar;
        int64_t bits;
        if (!ok) {
        } else if (numbers) {
            ok = list_symbolized(out, w, &t);
        } else if (fill && sg_scalar_parse(ctx, w, &scalar) == SG_OK && sg_fill_bits(ctx, &scalar, dtype, &bits) == SG_OK) {
            ok = new_value(out, &t, bits);
        } else if (count == 1) {
            ok = numpy_symbolized(out, w, &t);
        } else {
            ok = put(&t, w, strlen(w));
        }
        out->words[out->nwords++] = t.s;
        if (t.s == NULL && ok) /* an empty word: '' */
            ok = (out->words[out->nwords - 1] = calloc(1, 1)) != NULL;
    }
    *why = ok ? "the spec has no numbers" : "more numbers than a spec names, or out of memory";
    if (!ok || out->nvalues == 0) {
        symbolized_free(out);
        return false;
    }
    return true;
}

/* np.pad by reflect is refused per call where NumPy mirrors in rounds
 * (wider than the axis less one), and by symmetric always: left static. */
static bool chain(const sg_prog *node)
{
    if (node->kind == SG_PROG_INPUT)
        return true;
    bool pad = node->kind == SG_PROG_PAD &&
               (node->pad_mode == SG_TRT_FILL || node->pad_mode == SG_TRT_CLAMP || node->pad_mode == SG_TRT_WRAP);
    return (node->kind == SG_PROG_INDEX || node->kind == SG_PROG_FLIP || node->kind == SG_PROG_ROLL || pad) &&
           chain(node->args[0]);
}

/* np.concatenate of chains */
static bool concat_of_chains(const sg_prog *node)
{
    if (node->kind != SG_PROG_CONCAT)
        return false;
    for (size_t k = 0; k < node->nargs; k++)
        if (!chain(node->args[k]))
            return false;
    return true;
}

bool symbolizable(const sg_spec *spec)
{
    return spec->op != SG_OP_PROGRAM || chain(spec->prog) || concat_of_chains(spec->prog);
}

void symbolized_free(symbolized *s)
{
    for (int i = 0; i < s->nwords; i++)
        free(s->words[i]);
    memset(s, 0, sizeof *s);
}

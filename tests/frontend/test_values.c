/* Runtime values in the frontend (sg_spec.nvalues, sg_spec.values):
 *   - names in every source: the bounds, steps and indices of NumPy
 *     expressions and the L lists of the command line; one name used twice
 *     is one value; values are numbered in order of first appearance;
 *   - a spec printed and read again is the same spec (sg_spec_same), names
 *     and their numbering included, and prints the same;
 *   - the errors: names where constants must be, bad names, too long a
 *     name, too many values;
 *   - sg_spec_bind: the spec typed with the numbers, or that spec's error,
 *     status and message; sg_spec_copy;
 *   - seeded random specs of every source with names: the round trip, and
 *     binding against typing the numbers in.
 * SLICEGEN_SEED=N reproduces the random part; the seed is always printed. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../../frontend/frontend.h"
#include "../support/check.h"
#include "../support/seeded.h"

static struct {
    check_counts counts;
} suite = {CHECK_COUNTS_INIT};
#define S (&suite)

enum { MAX_WORDS = 64, TEXT_MAX = 8192 };

/* Reads a spec as the corpus writes one: an expression (text that does not
 * start with "--") is one word, else the words are between spaces ('' is
 * the empty word). */
static sg_status read_spec(const char *text, sg_spec **spec, sg_error *err)
{
    char *copy = strdup(text), *words[MAX_WORDS];
    int n = 0;
    bool expression = strncmp(copy, "--", 2) != 0;
    if (expression)
        words[n++] = copy;
    for (char *w = expression ? NULL : strtok(copy, " "); w != NULL && n < MAX_WORDS; w = strtok(NULL, " "))
        words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
    *err = (sg_error){0};
    *spec = NULL;
    sg_status status = sg_spec_parse_words(n, words, spec, err);
    free(copy);
    return status;
}

/* The names of the spec's values joined by commas. */
static void names_of(const sg_spec *spec, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < spec->nvalues && n < size; k++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", k ? "," : "", spec->values[k]);
}

/* Printed and read again, the spec is the same spec and prints the same. */
static void check_round_trip(const sg_spec *spec, const char *source)
{
    char *text = sg_spec_to_text(spec), *again_text = NULL;
    sg_spec *again = NULL;
    sg_error err;
    if (CHECK(S, read_spec(text, &again, &err) == SG_OK, "'%s' printed as '%s' does not read: %s", source,
              text, err.message)) {
        again_text = sg_spec_to_text(again);
        CHECK(S, sg_spec_same(spec, again) && strcmp(text, again_text) == 0,
              "'%s' printed as '%s' reads as another spec (printed '%s')", source, text, again_text);
    }
    sg_spec_free(again);
    free(again_text);
    free(text);
}

/* ---- names in every source -------------------------------------------------------------------------- */

static const struct {
    const char *text, *names, *printed;
} parse_cases[] = {
    {"[:, :, :t]", "t", "[:, :, :t]"},
    {"[i, ::s]", "i,s", "[i, ::s]"},
    {"[a:b]", "a,b", "[a:b]"},
    {"x[t, t:u, ...]", "t,u", "[t, t:u, ...]"},
    {"[t, :t]", "t", "[t, :t]"},
    {"[ _k :  K9 : s_ ]", "_k,K9,s_", "[_k:K9:s_]"},
    {"[None:3, 1:None:None, np.newaxis, numpy.newaxis]", "", "[:3, 1:, None, None]"},
    {"[Nonex, np, Truth]", "Nonex,np,Truth", "[Nonex, np, Truth]"},
    {"--op StridedSlice --begin 0,0,0 --end 0,0,t", "t",
     "--op StridedSlice --begin 0,0,0 --end 0,0,t --stride 1,1,1 --begin-mask 0,0,0 --end-mask 0,0,0 "
     "--new-axis-mask 0,0,0 --shrink-axis-mask 0,0,0 --ellipsis-mask 0,0,0"},
    /* numbered in the order of the words, and printed in an order that keeps it */
    {"--op StridedSlice --end=0,t --begin s,0 --stride s,1 --begin-mask 1,0", "t,s",
     "--op StridedSlice --end 0,t --begin s,0 --stride s,1 --begin-mask 1,0 --end-mask 0,0 "
     "--new-axis-mask 0,0 --shrink-axis-mask 0,0 --ellipsis-mask 0,0"},
    {"--op Slice --start a --stop b --step c --axes -1", "a,b,c",
     "--op Slice --start a --stop b --step c --axes -1"},
    {"--op Slice --step c,1 --stop b,b --start 0,a", "c,b,a", "--op Slice --step c,1 --stop b,b --start 0,a"},
    {"--op Slice --stop b,a --start a,0", "b,a", "--op Slice --stop b,a --start a,0 --step 1,1"},
    {"--op TrtSlice --start s --size n --stride k --mode fill --fill 0.5", "s,n,k",
     "--op TrtSlice --start s --size n --stride k --mode fill --fill 0.5"},
    {"--op TrtSlice --size n,n --start 0,m --mode wrap", "n,m",
     "--op TrtSlice --size n,n --start 0,m --stride 1,1 --mode wrap"},
    /* axes and split sizes take names too */
    {"--op Slice --start a --stop b --axes k", "a,b,k", "--op Slice --start a --stop b --step 1 --axes k"},
    {"--op OnnxSlice --axes k,1 --start a,0 --stop b,b", "k,a,b",
     "--op OnnxSlice --step 1,1 --axes k,1 --start a,0 --stop b,b"},
    {"--op Pad --pads-begin p,0 --pads-end 0,q --axes 0,k --mode edge", "p,q,k",
     "--op Pad --pads-begin p,0 --pads-end 0,q --axes 0,k --mode edge"},
    {"--op Split --output 1 --split a,3,b --axis -1", "a,b", "--op Split --split a,3,b --axis -1 --output 1"},
    /* fill values: numbered where their option stands; nan, inf, true and false stay scalars */
    {"--op TrtSlice --start s --size 2 --mode fill --fill v", "s,v",
     "--op TrtSlice --start s --size 2 --stride 1 --mode fill --fill v"},
    {"--op TrtSlice --fill v --start s --size 2 --mode fill", "v,s",
     "--op TrtSlice --size 2 --stride 1 --fill v --start s --mode fill"},
    {"--op Pad --value c --pads-begin p --pads-end q", "c,p,q", "--op Pad --value c --pads-begin p --pads-end q --mode constant"},
    {"--op Pad --pads-begin 1 --pads-end 1 --value nan", "", "--op Pad --pads-begin 1 --pads-end 1 --mode constant --value nan"},
    {"--op TrtSlice --start 0 --size 2 --mode fill --fill true", "",
     "--op TrtSlice --start 0 --size 2 --stride 1 --mode fill --fill true"},
};

static void parse_names(void)
{
    for (size_t c = 0; c < sizeof parse_cases / sizeof *parse_cases; c++) {
        sg_spec *spec;
        sg_error err;
        if (!CHECK(S, read_spec(parse_cases[c].text, &spec, &err) == SG_OK, "'%s' does not read: %s",
                   parse_cases[c].text, err.message))
            continue;
        char names[512], *printed = sg_spec_to_text(spec);
        names_of(spec, names, sizeof names);
        CHECK(S, strcmp(names, parse_cases[c].names) == 0, "'%s' names '%s', not '%s'", parse_cases[c].text,
              names, parse_cases[c].names);
        CHECK(S, strcmp(printed, parse_cases[c].printed) == 0, "'%s' prints as '%s', not '%s'",
              parse_cases[c].text, printed, parse_cases[c].printed);
        check_round_trip(spec, parse_cases[c].text);
        free(printed);
        sg_spec_free(spec);
    }

    /* the fields: a named number is 0 with its reference k + 1 */
    sg_spec *spec;
    sg_error err;
    if (CHECK(S, read_spec("[i, ::s]", &spec, &err) == SG_OK, "%s", err.message)) {
        const sg_ss_step *a = &spec->steps[0], *b = &spec->steps[1];
        CHECK(S,
              a->shrink && a->begin == 0 && a->begin_value == 1 && a->end_value == 0 && a->stride_value == 0,
              "[i, ...]: the index is value 0");
        CHECK(S, b->begin_mask && b->end_mask && b->stride == 0 && b->stride_value == 2 && !b->begin_value,
              "[..., ::s]: the step is value 1");
        sg_spec_free(spec);
    }
    if (CHECK(S, read_spec("--op StridedSlice --end 0,t --begin s,0 --stride s,1", &spec, &err) == SG_OK,
              "%s", err.message)) {
        const sg_ss_step *a = &spec->steps[0], *b = &spec->steps[1];
        CHECK(S,
              a->begin == 0 && a->begin_value == 2 && a->stride == 0 && a->stride_value == 2 &&
                  a->end_value == 0,
              "--begin s: value 1 in begin[0] and stride[0]");
        CHECK(S,
              b->end == 0 && b->end_value == 1 && b->begin_value == 0 && b->stride == 1 &&
                  b->stride_value == 0,
              "--end 0,t: value 0 in end[1]");
        sg_spec_free(spec);
    }
    if (CHECK(S, read_spec("--op TrtSlice --start 1,s --size n,3", &spec, &err) == SG_OK, "%s",
              err.message)) {
        CHECK(S,
              spec->dims[0].start == 1 && spec->dims[0].size_value == 2 && spec->dims[1].start_value == 1 &&
                  spec->dims[1].size == 3 && spec->dims[1].stride == 1,
              "TrtSlice: start[1] is value 0, size[0] value 1");
        sg_spec_free(spec);
    }
}

/* ---- errors ------------------------------------------------------------------------------------------ */

/* n items joined: the names v0, v1, ... or, with `item`, that item n
 * times; malloc'd. */
static char *join(int n, const char *open, const char *separator, const char *close, const char *item)
{
    char *text = malloc((size_t)n * 8 + 16);
    size_t len = (size_t)sprintf(text, "%s", open);
    for (int k = 0; k < n; k++) {
        len += (size_t)sprintf(text + len, "%s", k ? separator : "");
        len += (size_t)(item ? sprintf(text + len, "%s", item) : sprintf(text + len, "v%d", k));
    }
    sprintf(text + len, "%s", close);
    return text;
}

static void check_error(const char *text, sg_status status, const char *message)
{
    sg_spec *spec;
    sg_error err;
    sg_status got = read_spec(text, &spec, &err);
    CHECK(S, got == status && strstr(err.message, message) != NULL, "'%.80s': expected %s '%s', got %s '%s'",
          text, sg_status_name(status), message, sg_status_name(got), err.message);
    sg_spec_free(spec);
}

static void check_reads(const char *text, size_t nvalues)
{
    sg_spec *spec;
    sg_error err;
    if (CHECK(S, read_spec(text, &spec, &err) == SG_OK, "'%.80s' does not read: %s", text, err.message)) {
        CHECK(S, spec->nvalues == nvalues, "'%.80s' names %zu values, not %zu", text, spec->nvalues, nvalues);
        check_round_trip(spec, text);
    }
    sg_spec_free(spec);
}

static void errors(void)
{
    static const char *const masks[][2] = {{"--begin-mask", "begin_mask"},
                                           {"--end-mask", "end_mask"},
                                           {"--new-axis-mask", "new_axis_mask"},
                                           {"--shrink-axis-mask", "shrink_axis_mask"},
                                           {"--ellipsis-mask", "ellipsis_mask"}};
    char text[TEXT_MAX], message[512];
    for (size_t m = 0; m < sizeof masks / sizeof *masks; m++) {
        snprintf(text, sizeof text, "--op StridedSlice --begin t,0 --end 1,1 %s 0,m", masks[m][0]);
        snprintf(message, sizeof message,
                 "failed to make StridedSlice: %s must be numbers, not the runtime value name 'm' (%s[1])",
                 masks[m][0], masks[m][1]);
        check_error(text, SG_ERR_SPEC, message);
    }
    check_error("--op Split --split 1,1 --axis a --output 0", SG_ERR_SPEC,
                "failed to make Split: --axis must be an integer, not 'a' (it cannot name a runtime value)");
    check_error("--op Split --split 1,1 --axis 0 --output k", SG_ERR_SPEC,
                "failed to make Split: --output must be an output's index (0, 1, ...), not 'k' (it cannot name a "
                "runtime value)");
    check_error("--op TrtSlice --start 0 --size 1 --mode m", SG_ERR_SPEC,
                "unknown --mode 'm' (expected strict, wrap, clamp, fill or reflect; --mode cannot name a "
                "runtime value)");
    check_error("--op TrtSlice --start 0 --size 1 --mode wrap --fill v", SG_ERR_USAGE,
                "--fill needs --mode fill (the mode is wrap)");
    check_error("--op Pad --pads-begin 0 --pads-end 1 --mode edge --value v", SG_ERR_USAGE,
                "--value needs --mode constant (the mode is edge)");
    /* not identifiers */
    check_error("--op Slice --start 1x --stop 1", SG_ERR_USAGE,
                "item 1 of '1x' is not a 64-bit integer or a runtime value name (1x)");
    check_error("--op Slice --start 0 --stop -t", SG_ERR_USAGE,
                "is not a 64-bit integer or a runtime value name (-t)");
    check_error("--op Slice --start 0 --stop \xc3\xa9", SG_ERR_USAGE,
                "is not a 64-bit integer or a runtime value name");
    check_error("[1x]", SG_ERR_SPEC, "indices must be integers at column 3");
    check_error("[:-t]", SG_ERR_SPEC,
                "a runtime value cannot take a sign (give the negated value at run time) at column 3");
    check_error("[+t]", SG_ERR_SPEC, "a runtime value cannot take a sign");
    check_error("[t*2]", SG_ERR_SPEC,
                "arithmetic on a runtime value is not supported (give its result at run time) at column 3");
    check_error("[1:t.x]", SG_ERR_SPEC, "expected ',' or ']' at column 5 ('.')");
    check_error("[False]", SG_ERR_SPEC, "boolean indexing is not supported at column 2");
    check_error("[True :]", SG_ERR_SPEC, "True and False are not slice bounds (write 1 or 0) at column 2");
    check_error("[:, 2:True]", SG_ERR_SPEC, "True and False are not slice bounds (write 1 or 0) at column 7");
    /* a zero stride or step typed in is still refused; a named one is not */
    check_error("--op Slice --start 0,0 --stop s,1 --step s,0", SG_ERR_SPEC,
                "step must not be zero (step[1] = 0)");
    check_reads("--op StridedSlice --begin 0 --end 1 --stride s", 1);
    check_reads("--op Slice --start 0 --stop 1 --step s", 1);
    check_reads("--op TrtSlice --start 0 --size n --mode clamp", 1);

    /* 63 bytes of name are the most */
    char name[SG_VALUE_NAME_MAX + 2];
    memset(name, 'n', sizeof name - 1);
    name[SG_VALUE_NAME_MAX + 1] = '\0';
    snprintf(text, sizeof text, "--op Slice --start 0 --stop %s", name);
    check_error(text, SG_ERR_SPEC, "a runtime value name has at most 63 bytes");
    snprintf(text, sizeof text, "[%s:]", name);
    check_error(text, SG_ERR_SPEC, "a runtime value name has at most 63 bytes at column 2");
    name[SG_VALUE_NAME_MAX] = '\0';
    snprintf(text, sizeof text, "--op Slice --start 0 --stop %s", name);
    check_reads(text, 1);
    snprintf(text, sizeof text, "[%s:]", name);
    check_reads(text, 1);

    /* 256 values are the most */
    char *zeros = join(SG_MAX_VALUES, "", ",", "", "0");
    for (int extra = 0; extra <= 1; extra++) {
        char *list = join(SG_MAX_VALUES + extra, "", ",", "", NULL);
        char *expr = join(SG_MAX_VALUES + extra, "[", ", ", "]", NULL);
        snprintf(text, sizeof text, "--op Slice --start %s --stop %s%s", list, zeros, extra ? ",0" : "");
        if (extra) {
            check_error(text, SG_ERR_SPEC,
                        "item 257 of '...v244,v245,v246,v247,v248,v249,v250,v251,v252,v253,v254,v255,v256': "
                        "a spec names at most 256 runtime values (v256)");
            check_error(expr, SG_ERR_SPEC, "a spec names at most 256 runtime values at column");
        } else {
            check_reads(text, SG_MAX_VALUES);
            check_reads(expr, SG_MAX_VALUES);
        }
        free(list);
        free(expr);
    }
    free(zeros);
}

/* ---- binding ------------------------------------------------------------------------------------------ */

/* The spec's printed form with each name replaced by its number: the
 * text whose reading sg_spec_bind's errors are those of. malloc'd. */
static char *printed_with_values(const sg_spec *spec, const int64_t *values)
{
    char *printed = sg_spec_to_text(spec), *out = malloc(strlen(printed) * 21 + 1);
    size_t n = 0;
    for (const char *p = printed; *p;) {
        size_t len = sg_identifier_length(p), k = 0;
        while (k < spec->nvalues &&
               !(strlen(spec->values[k]) == len && strncmp(spec->values[k], p, len) == 0))
            k++;
        if (len > 0 && k < spec->nvalues && (p == printed || sg_identifier_length(p - 1) == 0))
            n += (size_t)sprintf(out + n, "%lld", (long long)values[k]);
        else
            n += (size_t)sprintf(out + n, "%.*s", (int)(len ? len : 1), p);
        p += len ? len : 1;
    }
    free(printed);
    return out;
}

/* The spec read from `named` with `values` bound must be the spec read
 * from `typed`, or fail with its status and, for an --op spec, its message;
 * the message is always that of reading the printed form with the numbers. */
static void check_bind(const char *named, const int64_t *values, const char *typed)
{
    sg_spec *spec, *bound = NULL, *want, *again;
    sg_error err, bind_err = {0}, typed_err, printed_err;
    if (!CHECK(S, read_spec(named, &spec, &err) == SG_OK, "'%s' does not read: %s", named, err.message))
        return;
    sg_status status = sg_spec_bind(spec, values, &bound, &bind_err);
    sg_status want_status = read_spec(typed, &want, &typed_err);
    if (want_status != SG_OK) {
        char *printed = printed_with_values(spec, values);
        read_spec(printed, &again, &printed_err);
        CHECK(S,
              status == want_status && strcmp(bind_err.message, printed_err.message) == 0 &&
                  (spec->op == SG_OP_NUMPY || strcmp(bind_err.message, typed_err.message) == 0),
              "'%s' bound fails with %s '%s', typed as '%s' with %s '%s' (printed: '%s')", named,
              sg_status_name(status), bind_err.message, typed, sg_status_name(want_status), typed_err.message,
              printed_err.message);
        sg_spec_free(again);
        free(printed);
    } else if (CHECK(S, status == SG_OK, "'%s' does not bind: %s", named, bind_err.message)) {
        char *got = sg_spec_to_text(bound), *expected = sg_spec_to_text(want);
        CHECK(S,
              bound->nvalues == 0 && bound->values == NULL && sg_spec_same(bound, want) &&
                  strcmp(got, expected) == 0,
              "'%s' bound is '%s', not '%s'", named, got, expected);
        free(got);
        free(expected);
    }
    sg_spec_free(spec);
    sg_spec_free(bound);
    sg_spec_free(want);
}

static void binding(void)
{
    static const struct {
        const char *named;
        int64_t values[3];
        const char *typed;
    } cases[] = {
        {"[i, ::s]", {2, -1}, "[2, ::-1]"},
        {"[:, :, :t]", {5}, "[:, :, :5]"},
        {"[t, t:u]", {-1, 3}, "[-1, -1:3]"},
        {"[i]", {INT64_MAX}, "[9223372036854775807]"},
        {"[i:j]", {INT64_MIN, INT64_MAX}, "[-9223372036854775808:9223372036854775807]"},
        {"[::s]", {INT64_MIN}, "[::-9223372036854775808]"},
        {"[1:, ::-1]", {0}, "[1:, ::-1]"},
        {"--op StridedSlice --end 0,t --begin s,0 --stride s,1 --shrink-axis-mask 0,1",
         {4, -2},
         "--op StridedSlice --begin -2,0 --end 0,4 --stride -2,1 --shrink-axis-mask 0,1"},
        {"--op Slice --start a --stop b --step c --axes 1",
         {1, 2, 3},
         "--op Slice --start 1 --stop 2 --step 3 --axes 1"},
        {"--op Slice --start a --stop b", {-1, 7}, "--op Slice --start -1 --stop 7"},
        {"--op Slice --start a --stop b --axes k", {1, 2, -1}, "--op Slice --start 1 --stop 2 --axes -1"},
        {"--op Pad --pads-begin p --pads-end 1 --axes k --mode reflect",
         {2, 0},
         "--op Pad --pads-begin 2 --pads-end 1 --axes 0 --mode reflect"},
        {"--op Split --split a,b --axis 1 --output 0", {2, 5}, "--op Split --split 2,5 --axis 1 --output 0"},
        {"--op Split --split a,b --axis 1 --output 0", {2, -5}, "--op Split --split 2,-5 --axis 1 --output 0"},
        {"--op TrtSlice --start s --size n --stride k --mode fill --fill 0.1",
         {1, 2, 3},
         "--op TrtSlice --start 1 --size 2 --stride 3 --mode fill --fill 0.1"},
        {"--op TrtSlice --start 0 --size 2 --mode fill --fill -1.5",
         {0},
         "--op TrtSlice --start 0 --size 2 --mode fill --fill -1.5"},
        /* errors: those of the typed spec, word for word */
        {"--op StridedSlice --begin 0,0 --end 1,1 --stride 1,s",
         {0},
         "--op StridedSlice --begin 0,0 --end 1,1 --stride 1,0"},
        {"--op Slice --start 0 --stop 1 --step s", {0}, "--op Slice --start 0 --stop 1 --step 0"},
        {"--op TrtSlice --start 0,0 --size 1,n", {-1}, "--op TrtSlice --start 0,0 --size 1,-1"},
        {"[::s]", {0}, "[::0]"},
        {"[1:2, t::s]", {5, 0}, "[1:2, 5::0]"},
        {"[None:None:s]", {0}, "[None:None:0]"}, /* the message quotes [::0] */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        check_bind(cases[c].named, cases[c].values, cases[c].typed);
    sg_error err = {0};
    sg_spec *spec, *bound = NULL;
    if (CHECK(S, read_spec("--op StridedSlice --begin 0,0 --end 1,1 --stride 1,s", &spec, &err) == SG_OK,
              "%s", err.message)) {
        err = (sg_error){0};
        CHECK(S,
              sg_spec_bind(spec, (int64_t[]){0}, &bound, &err) == SG_ERR_SPEC &&
                  strcmp(err.message,
                         "failed to make StridedSlice: stride must not be zero (stride[1] = 0)") == 0,
              "a zero stride given as a value: %s", err.message);
        sg_spec_free(spec);
    }

    /* a copy is the same spec with names of its own */
    sg_spec *copy = NULL;
    if (CHECK(S, read_spec("--op Slice --start a,0 --stop b,a", &spec, &err) == SG_OK, "%s", err.message)) {
        if (CHECK(S, sg_spec_copy(spec, &copy, &err) == SG_OK, "%s", err.message))
            CHECK(S,
                  sg_spec_same(spec, copy) && copy->values != spec->values &&
                      copy->values[0] != spec->values[0],
                  "sg_spec_copy gives the same spec with names of its own");
        sg_spec_free(spec);
        sg_spec_free(copy);
    }
}

/* ---- random specs ------------------------------------------------------------------------------------ */

/* The names a random spec draws from, with this case's numbers for them. */
static const char *const pool[] = {"a", "b", "t", "s_1", "_n", "Z9"};
enum { POOL = sizeof pool / sizeof *pool };
static int64_t pool_values[POOL];

/* The same spec written twice: with names, and with their numbers. */
typedef struct texts {
    char named[TEXT_MAX], typed[TEXT_MAX];
    size_t n, t;
} texts;

/* Appends text to both. */
static void both(texts *x, const char *text)
{
    x->n += (size_t)snprintf(x->named + x->n, TEXT_MAX - x->n, "%s", text);
    x->t += (size_t)snprintf(x->typed + x->t, TEXT_MAX - x->t, "%s", text);
}

/* Appends a number in [lo, hi], or (one time in three) a name of the pool. */
static void number(texts *x, int64_t lo, int64_t hi)
{
    char text[24];
    if (rnd() % 3 == 0) {
        int k = (int)(rnd() % POOL);
        x->n += (size_t)snprintf(x->named + x->n, TEXT_MAX - x->n, "%s", pool[k]);
        x->t += (size_t)snprintf(x->typed + x->t, TEXT_MAX - x->t, "%lld", (long long)pool_values[k]);
        return;
    }
    snprintf(text, sizeof text, "%lld", (long long)between(lo, hi));
    both(x, text);
}

/* A random `--op` spec: the op's lists in a random order, some left out. */
static void random_words(texts *x)
{
    static const char *const ops[] = {"StridedSlice", "Slice", "TrtSlice"};
    static const char *const lists[3][8] = {
        {"--begin", "--end", "--stride", "--begin-mask", "--end-mask", "--new-axis-mask",
         "--shrink-axis-mask", "--ellipsis-mask"},
        {"--start", "--stop", "--step", "--axes"},
        {"--start", "--size", "--stride"},
    };
    static const int count[3] = {8, 4, 3};
    static const char *const fills[] = {"0", "-1.5", "nan", "true", "255"};
    int op = (int)(rnd() % 3), order[8] = {0}; /* order[l] is read when j == l */
    size_t len = (size_t)between(0, 4);
    for (int l = 0; l < count[op]; l++) {
        int j = (int)(rnd() % (uint64_t)(l + 1)); /* an inside-out shuffle */
        order[l] = order[j];
        order[j] = l;
    }
    both(x, "--op ");
    both(x, ops[op]);
    for (int k = 0; k < count[op]; k++) {
        int l = order[k];
        if (l >= 2 && rnd() % 4 == 0) /* the first two lists are required */
            continue;
        both(x, " ");
        both(x, lists[op][l]);
        both(x, len == 0 ? " ''" : " ");
        for (size_t i = 0; i < len; i++) {
            char text[24];
            if (i)
                both(x, ",");
            if (l < 3) { /* the lists that take names */
                bool step = l == 2;
                number(x, step ? -2 : op == 2 && l == 1 ? -1 : -5, step ? 2 : 5);
                continue;
            }
            /* masks: bits; axes: a rotation of 0..len-1, some counted from the end */
            int64_t v = op == 0 ? between(0, 1) : (int64_t)((i + 1) % len) - (rnd() % 2 ? (int64_t)len : 0);
            snprintf(text, sizeof text, "%lld", (long long)v);
            both(x, text);
        }
    }
    if (op == 2) {
        static const char *const modes[] = {"strict", "wrap", "clamp", "fill", "reflect"};
        int mode = (int)(rnd() % 5);
        both(x, " --mode ");
        both(x, modes[mode]);
        if (mode == 3) {
            both(x, " --fill ");
            both(x, fills[rnd() % (sizeof fills / sizeof *fills)]);
        }
    }
}

/* Appends an omitted bound (sometimes None), or a number or name. */
static void bound(texts *x, int64_t lo, int64_t hi)
{
    uint64_t r = rnd() % 4;
    if (r == 0)
        both(x, rnd() % 2 ? "None" : "");
    else
        number(x, lo, hi);
}

/* A random NumPy expression of up to five items. */
static void random_numpy(texts *x)
{
    int items = (int)between(1, 5);
    bool ellipsis = false;
    both(x, "[");
    for (int i = 0; i < items; i++) {
        if (i)
            both(x, ", ");
        switch (rnd() % 6) {
        case 0:
            both(x, ellipsis ? "None" : "...");
            ellipsis = true;
            break;
        case 1:
            both(x, "None");
            break;
        case 2:
            number(x, -4, 4);
            break;
        default:
            bound(x, -6, 6);
            both(x, ":");
            bound(x, -6, 6);
            if (rnd() % 2) {
                both(x, ":");
                bound(x, -2, 2);
            }
        }
    }
    both(x, "]");
}

static void random_case(int k)
{
    texts x = {.n = 0};
    for (int v = 0; v < POOL; v++)
        pool_values[v] = between(-4, 4);
    if (k % 2)
        random_numpy(&x);
    else
        random_words(&x);
    sg_spec *spec;
    sg_error err;
    if (read_spec(x.named, &spec, &err) != SG_OK) /* a zero step typed in, a masked name... */
        return;
    check_round_trip(spec, x.named);
    int64_t values[POOL];
    for (size_t v = 0; v < spec->nvalues; v++)
        for (int p = 0; p < POOL; p++)
            if (strcmp(spec->values[v], pool[p]) == 0)
                values[v] = pool_values[p];
    check_bind(x.named, values, x.typed);
    sg_spec_free(spec);
}

int main(void)
{
    seed_rnd("values");
    parse_names();
    errors();
    binding();
    for (int k = 0; k < 20000; k++)
        random_case(k);
    return finish("values", &suite.counts);
}

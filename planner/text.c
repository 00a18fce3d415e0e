/* The plan's stable text form (docs/plan-format.md), its reader, and plan
 * equality. The text holds both layers, so read(write(p)) equals p. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

static void write_shape(FILE *out, const char *label, const int64_t *shape, size_t rank)
{
    fprintf(out, "%s [", label);
    for (size_t i = 0; i < rank; i++)
        fprintf(out, "%s%" PRId64, i ? "," : "", shape[i]);
    fputs("]\n", out);
}

/* The two layers of a static plan, each line after `indent`. */
static void write_layers(const sg_plan *p, FILE *out, const char *indent)
{
    for (size_t i = 0; i < p->out_rank; i++) {
        const sg_axis_map *m = &p->map[i];
        if (m->in_axis < 0) {
            fprintf(out, "%sdim %zu new", indent, i);
            if (m->count != 1) /* a part's repeated new axis */
                fprintf(out, " count %" PRId64, m->count);
            fputc('\n', out);
            continue;
        }
        fprintf(out, "%sdim %zu axis %d start %" PRId64 " step %" PRId64 " count %" PRId64, indent, i, m->in_axis,
                m->start, m->step, m->count);
        if (p->op == SG_OP_PAD)
            fprintf(out, " crop %" PRId64 " %" PRId64, m->crop_begin, m->crop_end);
        fputc('\n', out);
    }
    for (size_t f = 0; f < p->nfixed; f++)
        fprintf(out, "%sfixed axis %d index %" PRId64 "\n", indent, p->fixed[f].in_axis, p->fixed[f].index);
    fprintf(out, "%sbase %" PRId64 "\n", indent, p->base);
    for (size_t i = 0; i < p->nloops; i++) {
        const sg_loop *l = &p->loops[i];
        if (l->nseg == 0) {
            fprintf(out, "%sloop extent %" PRId64 " in %" PRId64 " out %" PRId64 "\n", indent, l->extent,
                    l->in_stride, l->out_stride);
            continue;
        }
        fprintf(out, "%sloop extent %" PRId64 " out %" PRId64 " segments %zu", indent, l->extent, l->out_stride,
                l->nseg);
        if (l->period)
            fprintf(out, " period %" PRId64, l->period);
        fputc('\n', out);
        for (size_t k = l->seg0; k < l->seg0 + l->nseg; k++) {
            const sg_segment *s = &p->segs[k];
            if (s->fill)
                fprintf(out, "%s  segment count %" PRId64 " fill\n", indent, s->count);
            else
                fprintf(out, "%s  segment count %" PRId64 " in %" PRId64 " step %" PRId64 "\n", indent, s->count,
                        s->in_offset, s->in_step);
        }
    }
    fprintf(out, "%srun %" PRId64 "\n", indent, p->run_bytes);
}

/* "fill 0x..." (the element's bits), or "fill %N" for a runtime one. */
static void write_fill(const sg_plan *p, FILE *out)
{
    uint64_t bits = 0;
    if (p->sym != NULL && !sg_is_const(p->sym->fill)) {
        char text[SG_VAL_TEXT];
        fprintf(out, "fill %s", sg_val_text(p->sym->fill, text));
        return;
    }
    memcpy(&bits, p->fill, p->elem_size);
    fprintf(out, "fill 0x%0*" PRIx64, (int)(2 * p->elem_size), bits);
}

/* A program: its text, shapes, and each part's box and layers. */
static void write_program(const sg_plan *p, FILE *out)
{
    fprintf(out, "program %s\n", p->program->program);
    write_shape(out, "input", p->in_shape, p->in_rank);
    write_shape(out, "output", p->out_shape, p->out_rank);
    fprintf(out, "parts %zu\n", p->nparts);
    for (size_t k = 0; k < p->nparts; k++) {
        const sg_part *a = &p->parts[k];
        const sg_plan *q = a->plan;
        fprintf(out, "part %zu at [", k);
        for (size_t j = 0; j < p->out_rank; j++)
            fprintf(out, "%s%" PRId64, j ? "," : "", a->box[j]);
        fprintf(out, "] offset %" PRId64 " shape [", a->out_offset);
        for (size_t j = 0; j < q->out_rank; j++)
            fprintf(out, "%s%" PRId64, j ? "," : "", q->out_shape[j]);
        fputs("]", out);
        if (q->in_bytes == 0 && sg_op_mapped(q->op)) {
            fputc(' ', out);
            write_fill(q, out);
        }
        fputc('\n', out);
        write_layers(q, out, "  ");
    }
}

void sg_plan_write(const sg_plan *p, FILE *out)
{
    fprintf(out, "op %s\ndtype %s\n", sg_op_name(p->op), sg_dtype_name(p->dtype));
    if (p->op == SG_OP_PROGRAM && p->sym) { /* a concatenate with runtime values (sg_infer_chain) */
        fprintf(out, "program %s\n", p->sym->spec->program);
        sg_plan_write_symbolic(p, out);
        return;
    }
    if (p->op == SG_OP_PROGRAM) {
        write_program(p, out);
        return;
    }
    if (sg_op_mapped(p->op))
        fprintf(out, "mode %s\n", sg_trt_mode_name(p->mode));
    if (sg_op_mapped(p->op) && p->mode == SG_TRT_FILL) {
        write_fill(p, out);
        fputc('\n', out);
    }
    if (p->sym) {
        if (p->sym->spec->op == SG_OP_PROGRAM) { /* a chain (sg_infer_chain) */
            fprintf(out, "program %s\n", p->sym->spec->program);
        } else { /* the spec it is made from, which sg_plan_read reads it by */
            char *spec = sg_spec_to_text(p->sym->spec);
            fprintf(out, "spec %s\n", spec ? spec : "");
            free(spec);
        }
        sg_plan_write_symbolic(p, out);
        return;
    }
    write_shape(out, "input", p->in_shape, p->in_rank);
    write_shape(out, "output", p->out_shape, p->out_rank);
    write_layers(p, out, "");
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct reader {
    char *line;      /* the current line, split in place into words */
    char *words[16];
    int nwords;
    int lineno;
    sg_error *err;
    /* Where the nest was read (0: no such line), for messages. */
    int base_line, run_line, loop_line[SG_MAX_RANK];
    int *seg_line; /* one per segment, grown with plan->segs */
} reader;

static sg_status bad(reader *r, const char *what)
{
    return sg_fail(r->err, SG_ERR_SPEC, "failed to read plan: line %d: %s", r->lineno, what);
}

static bool int_at(reader *r, int k, int64_t *v)
{
    return k < r->nwords && sg_parse_int64(r->words[k], v);
}

static sg_status read_shape(reader *r, int64_t *shape, size_t *rank)
{
    char *s = r->nwords == 2 ? r->words[1] : NULL;
    size_t n = s ? strlen(s) : 0;
    if (n < 2 || s[0] != '[' || s[n - 1] != ']')
        return bad(r, "expected a shape such as [2,3]");
    s[n - 1] = '\0';
    *rank = 0;
    for (char *item = strtok(s + 1, ","); item; item = strtok(NULL, ",")) {
        if (*rank == SG_MAX_RANK || !sg_parse_int64(item, &shape[*rank]) || shape[*rank] < 0)
            return bad(r, "bad shape");
        (*rank)++;
    }
    return SG_OK;
}

static bool is(const reader *r, int k, const char *word)
{
    return k < r->nwords && strcmp(r->words[k], word) == 0;
}

static sg_status read_line(reader *r, sg_plan *p, size_t *seg_cap, size_t *pending_segs)
{
    int64_t a, b, c, d, e;
    const char *w0 = r->words[0];
    if (*pending_segs > 0) {
        if (!is(r, 0, "segment") || !is(r, 1, "count") || !int_at(r, 2, &a))
            return bad(r, "expected a segment line");
        sg_segment s = {.count = a};
        if (r->nwords == 4 && is(r, 3, "fill"))
            s.fill = true;
        else if (r->nwords == 7 && is(r, 3, "in") && int_at(r, 4, &b) && is(r, 5, "step") && int_at(r, 6, &c))
            s.in_offset = b, s.in_step = c;
        else
            return bad(r, "expected 'fill' or 'in N step N' after the segment count");
        if (p->nsegs == *seg_cap) {
            size_t grown = *seg_cap ? 2 * *seg_cap : 16;
            sg_segment *segs = realloc(p->segs, grown * sizeof *segs);
            if (segs != NULL)
                p->segs = segs;
            int *lines = segs ? realloc(r->seg_line, grown * sizeof *lines) : NULL;
            if (lines == NULL)
                return sg_fail(r->err, SG_ERR_NOMEM, "failed to read plan: out of memory");
            r->seg_line = lines;
            *seg_cap = grown;
        }
        r->seg_line[p->nsegs] = r->lineno;
        p->segs[p->nsegs++] = s;
        (*pending_segs)--;
        return SG_OK;
    }
    if (strcmp(w0, "values") == 0)
        return bad(r, "a plan with runtime values is read by its spec, and this one has no spec line");
    if (strcmp(w0, "op") == 0 && r->nwords == 3 && is(r, 1, "NumPy"))
        return bad(r, "a NumPy plan is read by its spec or program line, and this one has none");
    if (strcmp(w0, "op") == 0 && r->nwords == 2) {
        for (int op = SG_OP_STRIDED_SLICE; op < SG_OP_PROGRAM; op++)
            if (strcmp(r->words[1], sg_op_name((sg_op)op)) == 0)
                return p->op = (sg_op)op, SG_OK;
        return bad(r, "unknown op");
    }
    if (strcmp(w0, "dtype") == 0 && r->nwords == 2)
        return sg_dtype_parse(r->words[1], &p->dtype) ? SG_OK : bad(r, "unknown dtype");
    if (strcmp(w0, "mode") == 0 && r->nwords == 2)
        return sg_trt_mode_parse(r->words[1], &p->mode) ? SG_OK : bad(r, "unknown mode");
    if (strcmp(w0, "fill") == 0 && r->nwords == 2) {
        char *end;
        uint64_t bits = strtoull(r->words[1], &end, 16);
        if (*end != '\0')
            return bad(r, "bad fill bits");
        memcpy(p->fill, &bits, sizeof p->fill);
        return SG_OK;
    }
    if (strcmp(w0, "input") == 0)
        return read_shape(r, p->in_shape, &p->in_rank);
    if (strcmp(w0, "output") == 0)
        return read_shape(r, p->out_shape, &p->out_rank);
    if (strcmp(w0, "dim") == 0) {
        if (!int_at(r, 1, &a) || a < 0 || a >= SG_MAX_RANK)
            return bad(r, "bad dimension number");
        if (r->nwords == 3 && is(r, 2, "new")) {
            p->map[a] = (sg_axis_map){.in_axis = -1, .count = 1};
            return SG_OK;
        }
        int64_t crop[2] = {0, 0};
        if ((r->nwords == 10 || (r->nwords == 13 && is(r, 10, "crop") && int_at(r, 11, &crop[0]) &&
                                 int_at(r, 12, &crop[1]))) &&
            is(r, 2, "axis") && int_at(r, 3, &b) && is(r, 4, "start") && int_at(r, 5, &c) && is(r, 6, "step") &&
            int_at(r, 7, &d) && is(r, 8, "count") && int_at(r, 9, &e) && b >= 0 && b < SG_MAX_RANK) {
            p->map[a] = (sg_axis_map){(int)b, c, d, e, crop[0], crop[1]};
            return SG_OK;
        }
        return bad(r, "expected 'dim N new' or 'dim N axis N start N step N count N [crop N N]'");
    }
    if (strcmp(w0, "fixed") == 0) {
        if (r->nwords != 5 || !is(r, 1, "axis") || !int_at(r, 2, &a) || !is(r, 3, "index") ||
            !int_at(r, 4, &b) || a < 0 || a >= SG_MAX_RANK || p->nfixed == SG_MAX_RANK)
            return bad(r, "expected 'fixed axis N index N'");
        p->fixed[p->nfixed++] = (sg_fixed_axis){(int)a, b};
        return SG_OK;
    }
    if (strcmp(w0, "base") == 0 && int_at(r, 1, &p->base) && r->nwords == 2)
        return r->base_line = r->lineno, SG_OK;
    if (strcmp(w0, "run") == 0 && int_at(r, 1, &p->run_bytes) && r->nwords == 2)
        return r->run_line = r->lineno, SG_OK;
    if (strcmp(w0, "loop") == 0 && is(r, 1, "extent") && int_at(r, 2, &a) && p->nloops < SG_MAX_RANK) {
        sg_loop *l = &p->loops[p->nloops];
        if (r->nwords == 7 && is(r, 3, "in") && int_at(r, 4, &b) && is(r, 5, "out") && int_at(r, 6, &c)) {
            *l = (sg_loop){.extent = a, .in_stride = b, .out_stride = c};
        } else if ((r->nwords == 7 || (r->nwords == 9 && is(r, 7, "period") && int_at(r, 8, &d) && d > 0)) &&
                   is(r, 3, "out") && int_at(r, 4, &b) && is(r, 5, "segments") && int_at(r, 6, &c) && c > 0) {
            *l = (sg_loop){.extent = a, .out_stride = b, .seg0 = p->nsegs, .nseg = (size_t)c,
                           .period = r->nwords == 9 ? d : 0};
            *pending_segs = (size_t)c;
        } else {
            return bad(r, "expected 'loop extent N in N out N' or 'loop extent N out N segments N [period N]'");
        }
        r->loop_line[p->nloops++] = r->lineno;
        return SG_OK;
    }
    return bad(r, "unknown line");
}

char *sg_plan_to_text(const sg_plan *plan)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    sg_plan_write(plan, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Reports the first field where a parsed nest differs from the folded one. */
static sg_status differs(const reader *r, int line, const char *field, long long got, long long want)
{
    char where[32] = "at the end";
    if (line > 0)
        snprintf(where, sizeof where, "line %d", line);
    return sg_fail(r->err, SG_ERR_SPEC,
                   "failed to read plan: %s: %s is %lld, but the dim and fixed lines fold to %lld (the loop "
                   "nest must be the one they give)",
                   where, field, got, want);
}

/* The first difference between the nest read (p) and the folded one (f),
 * in the order of the text; SG_OK when there is none. */
static sg_status compare_nests(const reader *r, const sg_plan *p, const sg_plan *f)
{
    char field[64];
    if (p->base != f->base)
        return differs(r, r->base_line, "base", p->base, f->base);
    for (size_t i = 0; i < p->nloops && i < f->nloops; i++) {
        const sg_loop *a = &p->loops[i], *b = &f->loops[i];
        int line = r->loop_line[i];
        /* a plain loop is one of 0 segments */
        const char *names[] = {"extent", "segments", "in", "out", "period"};
        long long got[] = {a->extent, (long long)a->nseg, a->in_stride, a->out_stride, a->period};
        long long want[] = {b->extent, (long long)b->nseg, b->in_stride, b->out_stride, b->period};
        for (int k = 0; k < 5; k++) {
            if (got[k] != want[k]) {
                snprintf(field, sizeof field, "loop %zu %s%s", i, names[k],
                         k == 1 && (a->nseg == 0 || b->nseg == 0) ? " (0: a plain loop)" : "");
                return differs(r, line, field, got[k], want[k]);
            }
        }
        for (size_t k = 0; k < a->nseg; k++) {
            const sg_segment *x = &p->segs[a->seg0 + k], *y = &f->segs[b->seg0 + k];
            const char *seg_names[] = {"count", "fill (1: fill)", "in", "step"};
            long long seg_got[] = {x->count, x->fill, x->in_offset, x->in_step};
            long long seg_want[] = {y->count, y->fill, y->in_offset, y->in_step};
            for (int j = 0; j < 4; j++) {
                if (seg_got[j] != seg_want[j]) {
                    snprintf(field, sizeof field, "segment %zu of loop %zu: %s", k, i, seg_names[j]);
                    return differs(r, r->seg_line[a->seg0 + k], field, seg_got[j], seg_want[j]);
                }
            }
        }
    }
    if (p->nloops != f->nloops)
        return differs(r, p->nloops > f->nloops ? r->loop_line[f->nloops] : r->run_line,
                       "the number of loops", (long long)p->nloops, (long long)f->nloops);
    if (p->run_bytes != f->run_bytes)
        return differs(r, r->run_line, "run", p->run_bytes, f->run_bytes);
    return SG_OK;
}

enum { FOLD_SEGS_MORE = 1024 };

/* A parsed plan's loop nest must be the one its dim and fixed lines fold
 * to (sg_plan_fold): the reference interpreter runs from those lines and a
 * kernel from the nest, so another nest, even one inside the input, would
 * make them disagree. p has passed sg_plan_check. */
static sg_status check_folded(const reader *r, const sg_plan *p)
{
    sg_plan *f = malloc(sizeof *f);
    sg_error why = {0};
    sg_status st = SG_OK;
    if (f == NULL)
        return sg_fail(r->err, SG_ERR_NOMEM, "failed to read plan: out of memory");
    *f = *p; /* the first layer and the sizes; the nest is made again */
    f->base = f->run_bytes = 0;
    f->nloops = f->nsegs = 0;
    memset(f->loops, 0, sizeof f->loops);
    f->segs = NULL;
    /* Folding does work in proportion to the segments it makes: at most a
     * few more than were read, so that any difference is still named. */
    if (sg_plan_fold(f, p->nsegs + FOLD_SEGS_MORE, &why) == SG_OK)
        st = compare_nests(r, p, f);
    else if (why.status == SG_ERR_NOMEM)
        st = sg_fail(r->err, SG_ERR_NOMEM, "failed to read plan: out of memory");
    else if (why.status == SG_ERR_SLICE) /* more segments than were read */
        st = sg_fail(
            r->err, SG_ERR_SPEC,
            "failed to read plan: the dim and fixed lines fold to more than %zu segments, %zu were read "
            "(the loop nest must be the one they give)",
            p->nsegs + FOLD_SEGS_MORE, p->nsegs);
    else
        st = sg_fail(r->err, SG_ERR_SPEC, "failed to read plan: the dim and fixed lines do not fold: %s",
                     why.message);
    sg_plan_free(f);
    return st;
}

/* ---- plans read by their spec ---------------------------------------------------
 *
 * A plan of runtime values and a program's plan name what they are made
 * from: a `spec` line (the spec as sg_spec_to_text writes it) or a
 * `program` line. Such a text is read by making the plan again from that
 * spec, the `input` shape (`?` a dimension known at run time) and the
 * `dtype`, and is that plan when it is what the plan prints, line for
 * line (comment and blank lines aside): the expressions, checks and nest
 * of a symbolic plan, the parts of a program, are the planner's, never
 * taken from the text. */

/* The next line of *at that is neither blank nor a comment, its end
 * (without '\r') in *len; NULL at the end. Advances *at and *lineno. */
static const char *next_line(const char **at, int *lineno, size_t *len)
{
    while (**at != '\0') {
        const char *line = *at, *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        *at = end ? end + 1 : line + n;
        ++*lineno;
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
            n--;
        size_t lead = strspn(line, " \t");
        if (lead < n && line[lead] != '#') {
            *len = n;
            return line;
        }
    }
    return NULL;
}

/* Whether `line` (len bytes) is `word`, a space, then something; *rest that. */
static bool line_is(const char *line, size_t len, const char *word, const char **rest)
{
    size_t n = strlen(word);
    if (len <= n + 1 || strncmp(line, word, n) != 0 || line[n] != ' ')
        return false;
    *rest = line + n + 1;
    return true;
}

/* Whether text has a `spec` or `program` line. */
static bool names_spec(const char *text)
{
    const char *at = text, *line, *rest;
    int lineno = 0;
    size_t len;
    while ((line = next_line(&at, &lineno, &len)) != NULL)
        if (line_is(line, len, "spec", &rest) || line_is(line, len, "program", &rest))
            return true;
    return false;
}

/* A shape of a plan's text, `?` a dimension known only at run time (-1). */
static bool parse_shape(const char *s, size_t len, int64_t *shape, size_t *rank)
{
    if (len < 2 || s[0] != '[' || s[len - 1] != ']')
        return false;
    *rank = 0;
    for (const char *p = s + 1, *end = s + len - 1; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
        char item[32];
        if (*rank == SG_MAX_RANK || n == 0 || n >= sizeof item)
            return false;
        memcpy(item, p, n);
        item[n] = '\0';
        if (strcmp(item, "?") == 0)
            shape[*rank] = -1;
        else if (!sg_parse_int64(item, &shape[*rank]) || shape[*rank] < 0)
            return false;
        (*rank)++;
        p += n + (comma != NULL);
        if (comma && p == end)
            return false;
    }
    return true;
}

/* The spec of a `spec` line's text (sg_spec_to_text's: a NumPy
 * expression for op NumPy, else words between spaces, '' the empty one)
 * or of a `program` line's. */
static sg_status parse_spec(const char *text, size_t len, bool numpy, sg_spec **spec, sg_error *err)
{
    char *copy = malloc(len + 1);
    char **words = malloc((len / 2 + 2) * sizeof *words);
    sg_status st;
    if (copy == NULL || words == NULL) {
        st = sg_fail(err, SG_ERR_NOMEM, "failed to read plan: out of memory");
    } else {
        memcpy(copy, text, len);
        copy[len] = '\0';
        if (numpy) {
            st = sg_spec_parse_numpy(copy, spec, err);
        } else {
            int n = 0;
            for (char *w = copy, *end; *w != '\0'; w = end) {
                end = strchr(w, ' ');
                end = end ? (*end = '\0', end + 1) : w + strlen(w);
                if (*w != '\0')
                    words[n++] = strcmp(w, "''") == 0 ? w + 2 : w;
            }
            st = sg_spec_parse_words(n, words, spec, err);
        }
    }
    free(copy);
    free(words);
    return st;
}

static sg_status read_by_spec(const char *text, sg_plan **out, sg_error *err)
{
    const char *at = text, *line, *rest = NULL, *spec_text = NULL;
    int lineno = 0;
    size_t len, spec_len = 0, rank = 0;
    bool numpy = false, have_input = false, have_dtype = false;
    int64_t shape[SG_MAX_RANK];
    sg_dtype dtype = SG_DTYPE_COUNT;
    while ((line = next_line(&at, &lineno, &len)) != NULL) {
        if (line_is(line, len, "spec", &rest) || line_is(line, len, "program", &rest)) {
            numpy = numpy || line[0] == 'p';
            spec_text = rest, spec_len = len - (size_t)(rest - line);
        } else if (line_is(line, len, "op", &rest)) {
            numpy = numpy || (len - (size_t)(rest - line) == 5 && strncmp(rest, "NumPy", 5) == 0);
        } else if (line_is(line, len, "dtype", &rest)) {
            char name[16] = "";
            size_t n = len - (size_t)(rest - line);
            if (n < sizeof name)
                memcpy(name, rest, n);
            if (!sg_dtype_parse(name, &dtype))
                return sg_fail(err, SG_ERR_SPEC, "failed to read plan: line %d: unknown dtype", lineno);
            have_dtype = true;
        } else if (line_is(line, len, "input", &rest) && !have_input) {
            if (!parse_shape(rest, len - (size_t)(rest - line), shape, &rank))
                return sg_fail(err, SG_ERR_SPEC, "failed to read plan: line %d: expected a shape such as [2,?]",
                               lineno);
            have_input = true;
        }
    }
    if (!have_dtype || !have_input)
        return sg_fail(err, SG_ERR_SPEC, "failed to read plan: a plan read by its spec needs its %s line",
                       have_dtype ? "input" : "dtype");
    sg_spec *spec = NULL;
    sg_plan *p = NULL;
    sg_error why = {0};
    if (parse_spec(spec_text, spec_len, numpy, &spec, &why) != SG_OK ||
        sg_plan_build(spec, rank, shape, dtype, &p, &why) != SG_OK) {
        sg_spec_free(spec);
        return sg_fail(err, why.status == SG_ERR_NOMEM ? SG_ERR_NOMEM : SG_ERR_SPEC,
                       "failed to read plan: its spec does not plan: %s", why.message);
    }
    sg_spec_free(spec);
    char *made = sg_plan_to_text(p);
    if (made == NULL) {
        sg_plan_free(p);
        return sg_fail(err, SG_ERR_NOMEM, "failed to read plan: out of memory");
    }
    /* line for line what the plan prints */
    const char *given_at = text, *made_at = made, *given, *want;
    int given_no = 0, made_no = 0;
    size_t given_len = 0, made_len = 0;
    do {
        given = next_line(&given_at, &given_no, &given_len);
        want = next_line(&made_at, &made_no, &made_len);
    } while (given && want && given_len == made_len && memcmp(given, want, given_len) == 0);
    if (given != NULL || want != NULL) {
        if (given == NULL)
            sg_fail(err, SG_ERR_SPEC, "failed to read plan: it ends where its spec's plan has '%.*s'",
                    (int)(made_len < 120 ? made_len : 120), want);
        else
            sg_fail(err, SG_ERR_SPEC, "failed to read plan: line %d is not its spec's plan (%s '%.*s')", given_no,
                    want ? "which has" : "which ends before it", want ? (int)(made_len < 120 ? made_len : 120) : 0,
                    want ? want : "");
        free(made);
        sg_plan_free(p);
        return err->status;
    }
    free(made);
    *out = p;
    return SG_OK;
}

/* Reads a plan; `folded`: its nest must be the one its dims fold to. */
static sg_status read_plan(const char *text, bool folded, sg_plan **out, sg_error *err)
{
    if (names_spec(text))
        return read_by_spec(text, out, err);
    sg_plan *p = calloc(1, sizeof *p);
    size_t text_len = strlen(text);
    char *copy = malloc(text_len + 1);
    size_t seg_cap = 0, pending = 0;
    reader r = {.err = err};
    if (p == NULL || copy == NULL) {
        sg_fail(err, SG_ERR_NOMEM, "failed to read plan: out of memory");
        goto fail;
    }
    memcpy(copy, text, text_len + 1);
    p->dtype = SG_DTYPE_COUNT;
    char *next = copy;
    while (next != NULL) {
        r.line = next;
        next = strchr(next, '\n');
        if (next)
            *next++ = '\0';
        r.lineno++;
        r.nwords = 0;
        for (char *w = strtok(r.line, " \t\r"); w && r.nwords < 16; w = strtok(NULL, " \t\r"))
            r.words[r.nwords++] = w;
        if (r.nwords == 0 || r.words[0][0] == '#')
            continue;
        if (read_line(&r, p, &seg_cap, &pending) != SG_OK)
            goto fail;
    }
    if (pending > 0) {
        bad(&r, "missing segment lines at the end");
        goto fail;
    }
    p->elem_size = sg_dtype_size(p->dtype);
    if (p->elem_size == 0) {
        bad(&r, "no dtype line");
        goto fail;
    }
    int64_t counts[2] = {1, 1};
    uint64_t *bytes[2] = {&p->in_bytes, &p->out_bytes};
    const int64_t *shapes[2] = {p->in_shape, p->out_shape};
    size_t ranks[2] = {p->in_rank, p->out_rank};
    for (int t = 0; t < 2; t++) {
        /* As the planner does: the dimensions other than 0 must multiply,
         * with the element size, within 2^63 - 1 (strides of an empty
         * tensor too). */
        bool zero = false, overflow = false;
        for (size_t i = 0; i < ranks[t]; i++) {
            zero |= shapes[t][i] == 0;
            overflow |= __builtin_mul_overflow(counts[t], shapes[t][i] ? shapes[t][i] : 1, &counts[t]);
        }
        int64_t b = 0;
        if (overflow || __builtin_mul_overflow(counts[t], (int64_t)p->elem_size, &b)) {
            bad(&r, "shape too large");
            goto fail;
        }
        if (zero)
            counts[t] = 0;
        *bytes[t] = (uint64_t)counts[t] * p->elem_size;
    }
    p->in_count = counts[0];
    p->out_count = counts[1];
    sg_error broken = {0};
    if (sg_plan_check(p, &broken) != SG_OK) {
        sg_fail(err, SG_ERR_SPEC, "failed to read plan: %s", broken.message);
        goto fail;
    }
    if (folded && check_folded(&r, p) != SG_OK)
        goto fail;
    free(copy);
    free(r.seg_line);
    *out = p;
    return SG_OK;
fail:
    free(copy);
    free(r.seg_line);
    sg_plan_free(p);
    return err->status;
}

sg_status sg_plan_read(const char *text, sg_plan **out, sg_error *err)
{
    return read_plan(text, true, out, err);
}

sg_status sg_plan_read_any_nest(const char *text, sg_plan **out, sg_error *err)
{
    return read_plan(text, false, out, err);
}

bool sg_plan_same(const sg_plan *a, const sg_plan *b)
{
    if (a->sym || b->sym || a->op == SG_OP_PROGRAM || b->op == SG_OP_PROGRAM) { /* the same text */
        char *ta = (a->sym && b->sym) || a->op == b->op ? sg_plan_to_text(a) : NULL;
        char *tb = ta ? sg_plan_to_text(b) : NULL;
        bool same = ta && tb && strcmp(ta, tb) == 0;
        free(ta);
        free(tb);
        return same;
    }
    if (a->op != b->op || a->dtype != b->dtype || a->in_rank != b->in_rank ||
        a->out_rank != b->out_rank || a->nfixed != b->nfixed || a->nloops != b->nloops ||
        a->nsegs != b->nsegs || a->base != b->base || a->run_bytes != b->run_bytes)
        return false;
    if (sg_op_mapped(a->op) &&
        (a->mode != b->mode || memcmp(a->fill, b->fill, sizeof a->fill) != 0))
        return false;
    for (size_t i = 0; i < a->in_rank; i++)
        if (a->in_shape[i] != b->in_shape[i])
            return false;
    for (size_t i = 0; i < a->out_rank; i++) {
        const sg_axis_map *x = &a->map[i], *y = &b->map[i];
        if (x->in_axis != y->in_axis || x->start != y->start || x->step != y->step || x->count != y->count ||
            x->crop_begin != y->crop_begin || x->crop_end != y->crop_end)
            return false;
    }
    for (size_t i = 0; i < a->nfixed; i++)
        if (a->fixed[i].in_axis != b->fixed[i].in_axis || a->fixed[i].index != b->fixed[i].index)
            return false;
    for (size_t i = 0; i < a->nloops; i++) {
        const sg_loop *x = &a->loops[i], *y = &b->loops[i];
        if (x->extent != y->extent || x->in_stride != y->in_stride || x->out_stride != y->out_stride ||
            x->seg0 != y->seg0 || x->nseg != y->nseg || x->period != y->period)
            return false;
    }
    for (size_t i = 0; i < a->nsegs; i++) {
        const sg_segment *x = &a->segs[i], *y = &b->segs[i];
        if (x->count != y->count || x->fill != y->fill || x->in_offset != y->in_offset ||
            x->in_step != y->in_step)
            return false;
    }
    return true;
}

/* The expression graph of runtime numbers (see expr.h): folding,
 * hash-consing, value ranges, checks and evaluation in C. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

/* op(a, b, c) on constants, as the kernel's prologue computes it. */
static int64_t apply(sg_xop op, int64_t a, int64_t b, int64_t c)
{
    int64_t r;
    switch (op) {
    case SG_X_ADD:
        return (int64_t)((uint64_t)a + (uint64_t)b);
    case SG_X_SUB:
        return (int64_t)((uint64_t)a - (uint64_t)b);
    case SG_X_MUL:
        return (int64_t)((uint64_t)a * (uint64_t)b);
    case SG_X_CDIV:
        return a > 0 && b > 0 ? (a - 1) / b + 1 : 0;
    case SG_X_SREM:
        if (b <= 0)
            return 0;
        r = a % b;
        return r < 0 ? r + b : r;
    case SG_X_MIN:
        return a < b ? a : b;
    case SG_X_MAX:
        return a > b ? a : b;
    case SG_X_LT:
        return a < b;
    case SG_X_EQ:
        return a == b;
    case SG_X_AND:
        return a != 0 && b != 0;
    case SG_X_OR:
        return a != 0 || b != 0;
    case SG_X_SELECT:
        return a != 0 ? b : c;
    case SG_X_ADD_OVF:
        return __builtin_add_overflow(a, b, &r);
    case SG_X_MUL_OVF:
        return __builtin_mul_overflow(a, b, &r);
    case SG_X_DIM:
    case SG_X_VALUE:
    case SG_X_COUNT:
        break;
    }
    return 0;
}

static const sg_xnode *node_of(const sg_exprs *e, sg_val v)
{
    return &e->nodes[v.node - 1];
}
static int64_t lo_of(const sg_exprs *e, sg_val v)
{
    return v.node ? node_of(e, v)->lo : v.k;
}
static int64_t hi_of(const sg_exprs *e, sg_val v)
{
    return v.node ? node_of(e, v)->hi : v.k;
}

/* The range of op(a, b, c)'s values. */
static void range_of(const sg_exprs *e, sg_xop op, sg_val a, sg_val b, sg_val c, int64_t *lo, int64_t *hi)
{
    int64_t la = lo_of(e, a), ha = hi_of(e, a), lb = lo_of(e, b), hb = hi_of(e, b);
    int64_t p[4];
    *lo = INT64_MIN, *hi = INT64_MAX;
    switch (op) {
    case SG_X_ADD:
        if (!__builtin_add_overflow(la, lb, lo) && !__builtin_add_overflow(ha, hb, hi))
            return;
        break;
    case SG_X_SUB:
        if (!__builtin_sub_overflow(la, hb, lo) && !__builtin_sub_overflow(ha, lb, hi))
            return;
        break;
    case SG_X_MUL:
        if (__builtin_mul_overflow(la, lb, &p[0]) || __builtin_mul_overflow(la, hb, &p[1]) ||
            __builtin_mul_overflow(ha, lb, &p[2]) || __builtin_mul_overflow(ha, hb, &p[3]))
            break;
        *lo = *hi = p[0];
        for (int i = 1; i < 4; i++) {
            *lo = p[i] < *lo ? p[i] : *lo;
            *hi = p[i] > *hi ? p[i] : *hi;
        }
        return;
    case SG_X_CDIV:
        *lo = 0, *hi = ha > 0 ? ha : 0;
        return;
    case SG_X_SREM:
        *lo = 0, *hi = hb > 1 ? hb - 1 : 0;
        return;
    case SG_X_MIN:
        *lo = la < lb ? la : lb, *hi = ha < hb ? ha : hb;
        return;
    case SG_X_MAX:
        *lo = la > lb ? la : lb, *hi = ha > hb ? ha : hb;
        return;
    case SG_X_SELECT:
        *lo = lb < lo_of(e, c) ? lb : lo_of(e, c);
        *hi = hb > hi_of(e, c) ? hb : hi_of(e, c);
        return;
    case SG_X_LT:
    case SG_X_EQ:
    case SG_X_AND:
    case SG_X_OR:
    case SG_X_ADD_OVF:
    case SG_X_MUL_OVF:
        *lo = 0, *hi = 1;
        return;
    case SG_X_DIM:
    case SG_X_VALUE:
    case SG_X_COUNT:
        break;
    }
    *lo = INT64_MIN, *hi = INT64_MAX;
}

/* The node op(a, b, c; k): an existing equal one, or a new one. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdu;
}

static uint64_t val_hash(uint64_t h, sg_val v)
{
    return mix(mix(h, (uint64_t)(uint32_t)v.node), v.node ? 0 : (uint64_t)v.k);
}

static uint64_t node_hash(sg_xop op, sg_val a, sg_val b, sg_val c, int64_t k)
{
    return val_hash(val_hash(val_hash(mix((uint64_t)op, (uint64_t)k), a), b), c);
}

/* Room in the index for one more node: rebuilt twice as large. */
static bool index_room(sg_exprs *e)
{
    if (2 * (e->n + 1) <= e->slots)
        return true;
    size_t slots = e->slots ? 2 * e->slots : 128;
    int32_t *index = calloc(slots, sizeof *index);
    if (index == NULL)
        return false;
    for (size_t i = 0; i < e->n; i++) {
        const sg_xnode *x = &e->nodes[i];
        size_t s = (size_t)node_hash(x->op, x->a, x->b, x->c, x->k) & (slots - 1);
        while (index[s] != 0)
            s = (s + 1) & (slots - 1);
        index[s] = (int32_t)i + 1;
    }
    free(e->index);
    e->index = index;
    e->slots = slots;
    return true;
}

static sg_val intern(sg_exprs *e, sg_xop op, sg_val a, sg_val b, sg_val c, int64_t k)
{
    if (!index_room(e)) {
        e->nomem = true;
        return sg_const(0);
    }
    size_t s = (size_t)node_hash(op, a, b, c, k) & (e->slots - 1);
    for (; e->index[s] != 0; s = (s + 1) & (e->slots - 1)) {
        const sg_xnode *x = &e->nodes[e->index[s] - 1];
        if (x->op == op && x->k == k && sg_same(x->a, a) && sg_same(x->b, b) && sg_same(x->c, c))
            return (sg_val){e->index[s], 0};
    }
    if (e->n == e->cap) {
        size_t grown = e->cap ? 2 * e->cap : 64;
        sg_xnode *nodes = grown < INT32_MAX ? realloc(e->nodes, grown * sizeof *nodes) : NULL;
        if (nodes == NULL) {
            e->nomem = true;
            return sg_const(0);
        }
        e->nodes = nodes;
        e->cap = grown;
    }
    sg_xnode *x = &e->nodes[e->n++];
    *x = (sg_xnode){.op = op, .a = a, .b = b, .c = c, .k = k};
    range_of(e, op, a, b, c, &x->lo, &x->hi);
    e->index[s] = (int32_t)e->n;
    return (sg_val){(int32_t)e->n, 0};
}

sg_val sg_x_dim_given(sg_exprs *e, size_t axis)
{
    return intern(e, SG_X_DIM, sg_const(0), sg_const(0), sg_const(0), (int64_t)axis);
}

sg_val sg_x_dim(sg_exprs *e, size_t axis)
{
    return sg_x_max(e, sg_x_dim_given(e, axis), sg_const(0));
}
sg_val sg_x_value(sg_exprs *e, size_t index)
{
    return intern(e, SG_X_VALUE, sg_const(0), sg_const(0), sg_const(0), (int64_t)index);
}

static bool commutes(sg_xop op)
{
    return op == SG_X_ADD || op == SG_X_MUL || op == SG_X_MIN || op == SG_X_MAX || op == SG_X_EQ ||
           op == SG_X_AND || op == SG_X_OR || op == SG_X_ADD_OVF || op == SG_X_MUL_OVF;
}

/* x op c with c a constant, when x is itself (y op c2) for op + or *: y op
 * (c2 op c), if that does not overflow. */
static bool reassociate(sg_exprs *e, sg_xop op, sg_val a, sg_val b, sg_val *out)
{
    if (!(op == SG_X_ADD || op == SG_X_MUL) || !sg_is_const(b) || sg_is_const(a))
        return false;
    const sg_xnode *x = node_of(e, a);
    int64_t k;
    if (x->op != op || !sg_is_const(x->b) ||
        (op == SG_X_ADD ? __builtin_add_overflow(x->b.k, b.k, &k) : __builtin_mul_overflow(x->b.k, b.k, &k)))
        return false;
    *out = sg_x(e, op, x->a, sg_const(k));
    return true;
}

sg_val sg_x(sg_exprs *e, sg_xop op, sg_val a, sg_val b)
{
    if (sg_is_const(a) && sg_is_const(b))
        return sg_const(apply(op, a.k, b.k, 0));
    if (commutes(op) && (sg_is_const(a) || (!sg_is_const(b) && a.node > b.node))) {
        sg_val t = a;
        a = b, b = t;
    }
    int64_t la = lo_of(e, a), ha = hi_of(e, a), lb = lo_of(e, b), hb = hi_of(e, b);
    bool bc = sg_is_const(b), same = sg_same(a, b);
    sg_val r;
    switch (op) {
    case SG_X_ADD:
        if (bc && b.k == 0)
            return a;
        break;
    case SG_X_SUB:
        if (bc && b.k == 0)
            return a;
        if (same)
            return sg_const(0);
        break;
    case SG_X_MUL:
        if (bc && (b.k == 0 || b.k == 1))
            return b.k == 0 ? b : a;
        /* constants outermost: (x * c) * y = (x * y) * c (operands copied
         * first: building a node may move the nodes) */
        if (!bc && node_of(e, a)->op == SG_X_MUL && sg_is_const(node_of(e, a)->b)) {
            sg_val inner = node_of(e, a)->a, c = node_of(e, a)->b;
            return sg_x(e, SG_X_MUL, sg_x(e, SG_X_MUL, inner, b), c);
        }
        if (!bc && node_of(e, b)->op == SG_X_MUL && sg_is_const(node_of(e, b)->b)) {
            sg_val inner = node_of(e, b)->a, c = node_of(e, b)->b;
            return sg_x(e, SG_X_MUL, sg_x(e, SG_X_MUL, a, inner), c);
        }
        break;
    case SG_X_CDIV:
        if (bc && b.k == 1)
            return sg_x(e, SG_X_MAX, a, sg_const(0));
        break;
    case SG_X_SREM:
        if (la >= 0 && ha < lb)
            return a;
        break;
    case SG_X_MIN:
        if (same || ha <= lb)
            return a;
        if (hb <= la)
            return b;
        break;
    case SG_X_MAX:
        if (same || la >= hb)
            return a;
        if (lb >= ha)
            return b;
        break;
    case SG_X_LT:
        if (ha < lb || la >= hb || same)
            return sg_const(ha < lb);
        break;
    case SG_X_EQ:
        if (same)
            return sg_const(1);
        if (ha < lb || hb < la)
            return sg_const(0);
        break;
    case SG_X_AND:
        if (bc)
            return b.k ? a : sg_const(0);
        break;
    case SG_X_OR:
        if (bc)
            return b.k ? sg_const(1) : a;
        break;
    case SG_X_ADD_OVF: {
        int64_t t;
        if (!__builtin_add_overflow(la, lb, &t) && !__builtin_add_overflow(ha, hb, &t))
            return sg_const(0);
        break;
    }
    case SG_X_MUL_OVF: {
        int64_t t;
        if (!__builtin_mul_overflow(la, lb, &t) && !__builtin_mul_overflow(la, hb, &t) &&
            !__builtin_mul_overflow(ha, lb, &t) && !__builtin_mul_overflow(ha, hb, &t))
            return sg_const(0);
        break;
    }
    default:
        break;
    }
    if (reassociate(e, op, a, b, &r))
        return r;
    return intern(e, op, a, b, sg_const(0), 0);
}

sg_val sg_x_select(sg_exprs *e, sg_val cond, sg_val then, sg_val otherwise)
{
    if (sg_is_const(cond))
        return cond.k ? then : otherwise;
    if (sg_same(then, otherwise))
        return then;
    /* x > 0 ? x : 0 is x when x >= 0 */
    const sg_xnode *c = node_of(e, cond);
    if (c->op == SG_X_LT && sg_is_const(c->a) && c->a.k == 0 && sg_same(c->b, then) &&
        sg_is_const(otherwise) && otherwise.k == 0 && lo_of(e, then) >= 0)
        return then;
    if (sg_is_const(then) && sg_is_const(otherwise) && then.k == 1 && otherwise.k == 0 && c->hi <= 1 &&
        c->lo >= 0)
        return cond;
    return intern(e, SG_X_SELECT, cond, then, otherwise, 0);
}

void sg_exprs_factor(const sg_exprs *e, sg_val v, sg_val *base, int64_t *k)
{
    if (!sg_is_const(v) && node_of(e, v)->op == SG_X_MUL && sg_is_const(node_of(e, v)->b)) {
        *base = node_of(e, v)->a, *k = node_of(e, v)->b.k;
        return;
    }
    *base = v, *k = 1;
}

bool sg_exprs_is_dim_product(const sg_exprs *e, sg_val v)
{
    if (sg_is_const(v))
        return true;
    const sg_xnode *x = node_of(e, v);
    switch (x->op) {
    case SG_X_DIM:
        return true;
    case SG_X_MAX: /* sg_x_dim's max(given, 0) */
        return sg_is_const(x->b) && sg_exprs_is_dim_product(e, x->a);
    case SG_X_MUL:
        return sg_exprs_is_dim_product(e, x->a) && sg_exprs_is_dim_product(e, x->b);
    default:
        return false;
    }
}

void sg_exprs_free(sg_exprs *e)
{
    for (size_t i = 0; i < e->nchecks; i++)
        free(e->checks[i].format);
    free(e->checks);
    free(e->nodes);
    free(e->index);
    *e = (sg_exprs){0};
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void format_check(const sg_xcheck *c, const int64_t *nodes, sg_error *err)
{
    long long v[4];
    for (int i = 0; i < 4; i++)
        v[i] = i < c->nargs ? (long long)sg_val_of(c->args[i], nodes) : 0;
    sg_fail(err, c->status, c->format, v[0], v[1], v[2], v[3]);
}
#pragma GCC diagnostic pop

sg_status sg_exprs_check(sg_exprs *e, sg_val cond, sg_xcode code, sg_status status, sg_error *err,
                         const sg_val args[4], const char *format, ...)
{
    if (sg_is_const(cond) && cond.k == 0)
        return SG_OK;
    sg_xcheck c = {.cond = cond, .code = code, .status = status};
    char text[sizeof err->message];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    for (const char *p = text; (p = strstr(p, "%lld")) != NULL; p += 4)
        c.nargs++;
    c.nargs = c.nargs > 4 ? 4 : c.nargs;
    for (int i = 0; i < c.nargs; i++)
        c.args[i] = args[i];
    c.format = text;
    bool shown = true; /* every number of the message known now */
    for (int i = 0; i < c.nargs; i++)
        shown = shown && sg_is_const(c.args[i]);
    if (sg_is_const(cond) && shown) {
        format_check(&c, NULL, err);
        return status;
    }
    if (e->nchecks == e->check_cap) {
        size_t grown = e->check_cap ? 2 * e->check_cap : 16;
        sg_xcheck *checks = realloc(e->checks, grown * sizeof *checks);
        if (checks == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
        e->checks = checks;
        e->check_cap = grown;
    }
    if ((c.format = strdup(text)) == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to plan slice: out of memory");
    e->checks[e->nchecks++] = c;
    return SG_OK;
}

void sg_exprs_eval(const sg_exprs *e, const int64_t *dims, const int64_t *values, int64_t *out, int *code,
                   sg_error *err)
{
    for (size_t i = 0; i < e->n; i++) {
        const sg_xnode *x = &e->nodes[i];
        out[i] = x->op == SG_X_DIM ? dims[x->k]
                 : x->op == SG_X_VALUE
                     ? values[x->k]
                     : apply(x->op, sg_val_of(x->a, out), sg_val_of(x->b, out), sg_val_of(x->c, out));
    }
    *code = 0;
    for (size_t i = 0; i < e->nchecks; i++) {
        if (sg_val_of(e->checks[i].cond, out) != 0) {
            format_check(&e->checks[i], out, err);
            *code = (int)e->checks[i].code;
            return;
        }
    }
}

const char *sg_val_text(sg_val v, char out[SG_VAL_TEXT])
{
    if (v.node)
        snprintf(out, SG_VAL_TEXT, "%%%" PRId32, v.node);
    else
        snprintf(out, SG_VAL_TEXT, "%" PRId64, v.k);
    return out;
}

bool sg_exprs_import(sg_exprs *to, const sg_exprs *from, const sg_val *roots, size_t n, sg_val *out)
{
    int32_t top = 0;
    for (size_t i = 0; i < n; i++)
        top = roots[i].node > top ? roots[i].node : top;
    sg_val *copy = malloc((top ? (size_t)top : 1) * sizeof *copy); /* node i + 1's counterpart */
    bool *used = calloc(top ? (size_t)top : 1, sizeof *used);
    if (copy == NULL || used == NULL) {
        free(copy);
        free(used);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (roots[i].node)
            used[roots[i].node - 1] = true;
    for (int32_t i = top; i-- > 0;) { /* an operand's node comes before its user's */
        if (!used[i])
            continue;
        const sg_xnode *x = &from->nodes[i];
        const sg_val ops[3] = {x->a, x->b, x->c};
        for (int k = 0; k < 3; k++)
            if (ops[k].node)
                used[ops[k].node - 1] = true;
    }
    for (int32_t i = 0; i < top; i++) {
        if (!used[i])
            continue;
        const sg_xnode *x = &from->nodes[i];
        sg_val a = x->a.node ? copy[x->a.node - 1] : x->a, b = x->b.node ? copy[x->b.node - 1] : x->b,
               c = x->c.node ? copy[x->c.node - 1] : x->c;
        copy[i] = intern(to, x->op, a, b, c, x->k);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = roots[i].node ? copy[roots[i].node - 1] : roots[i];
    free(copy);
    free(used);
    return !to->nomem;
}

typedef struct text_out {
    char *at, *end;
    bool cut;
} text_out;

static void put(text_out *t, const char *s)
{
    for (; *s && !t->cut; s++) {
        if (t->end - t->at > 4) {
            *t->at++ = *s;
        } else {
            memcpy(t->at, "...", 4);
            t->at += 3;
            t->cut = true;
        }
    }
}

static void leaf(text_out *t, const sg_xnode *x, const char *const *dim_names, const char *const *value_names)
{
    char own[32];
    const char *const *names = x->op == SG_X_DIM ? dim_names : value_names;
    if (names != NULL) {
        put(t, names[x->k]);
        return;
    }
    snprintf(own, sizeof own, "%c%" PRId64, x->op == SG_X_DIM ? 'd' : 'v', x->k);
    put(t, own);
}

/* How tightly an infix operator binds (C's order); 0: not infix. */
static int binding(sg_xop op)
{
    switch (op) {
    case SG_X_OR:
        return 1;
    case SG_X_AND:
        return 2;
    case SG_X_EQ:
        return 3;
    case SG_X_LT:
        return 4;
    case SG_X_ADD:
    case SG_X_SUB:
        return 5;
    case SG_X_MUL:
        return 6;
    default:
        return 0;
    }
}

/* v into t, parenthesized when it binds less tightly than `outer` (0: a
 * whole expression, or a function's argument) */
static void text_of(const sg_exprs *e, sg_val v, const char *const *dims, const char *const *values,
                    int outer, text_out *t)
{
    char num[32];
    if (!v.node) {
        snprintf(num, sizeof num, "%" PRId64, v.k);
        put(t, num);
        return;
    }
    const sg_xnode *x = &e->nodes[v.node - 1];
    static const char *const infix[SG_X_COUNT] = {
        [SG_X_ADD] = " + ", [SG_X_SUB] = " - ",  [SG_X_MUL] = " * ", [SG_X_LT] = " < ",
        [SG_X_EQ] = " == ", [SG_X_AND] = " && ", [SG_X_OR] = " || ",
    };
    static const char *const call[SG_X_COUNT] = {
        [SG_X_CDIV] = "ceil_div(",
        [SG_X_SREM] = "mod(",
        [SG_X_MIN] = "min(",
        [SG_X_MAX] = "max(",
        [SG_X_ADD_OVF] = "add_overflows(",
        [SG_X_MUL_OVF] = "mul_overflows(",
    };
    int own = binding(x->op);
    bool parens = own > 0 && own < outer;
    if (x->op == SG_X_DIM || x->op == SG_X_VALUE) {
        leaf(t, x, dims, values);
    } else if (x->op == SG_X_MAX && x->a.node && !x->b.node && x->b.k == 0 &&
               (e->nodes[x->a.node - 1].op == SG_X_DIM || e->nodes[x->a.node - 1].op == SG_X_VALUE)) {
        leaf(t, &e->nodes[x->a.node - 1], dims, values); /* a dimension as shape inference uses it */
    } else if (infix[x->op] != NULL) {
        put(t, parens ? "(" : "");
        text_of(e, x->a, dims, values, own, t);
        put(t, infix[x->op]);
        text_of(e, x->b, dims, values, own + 1, t); /* a - (b - c), a - (b + c) */
        put(t, parens ? ")" : "");
    } else if (call[x->op] != NULL) {
        put(t, call[x->op]);
        text_of(e, x->a, dims, values, 0, t);
        put(t, ", ");
        text_of(e, x->b, dims, values, 0, t);
        put(t, ")");
    } else if (x->op == SG_X_SELECT) {
        put(t, outer > 0 ? "(" : "");
        text_of(e, x->a, dims, values, 1, t);
        put(t, " ? ");
        text_of(e, x->b, dims, values, 1, t);
        put(t, " : ");
        text_of(e, x->c, dims, values, 1, t);
        put(t, outer > 0 ? ")" : "");
    }
}

const char *sg_exprs_text(const sg_exprs *e, sg_val v, const char *const *dim_names,
                          const char *const *value_names, char *buf, size_t size)
{
    text_out t = {buf, buf + size, size < 8};
    if (size < 8) {
        if (size > 0)
            buf[0] = '\0';
        return buf;
    }
    text_of(e, v, dim_names, value_names, 0, &t);
    *t.at = '\0';
    return buf;
}

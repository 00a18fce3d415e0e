/*
 * Integer expressions over the numbers a slice leaves to run time: the
 * input's `?` dimensions and the spec's named values.
 *
 * Shape inference (infer.c) is written once, over sg_val: a number that is
 * either a constant or a node of an expression graph. Every operation folds
 * when its operands are constants, with the same result as the C it stands
 * for; so a spec without runtime values infers to constants only, and a
 * symbolic one to a small graph, which the prologue of a kernel evaluates
 * at run time (in C: sg_exprs_eval; in IR: codegen/prepare.c).
 *
 * Arithmetic wraps modulo 2^64 (nothing here is undefined for any input);
 * where shape inference needs to know of an overflow it asks for it
 * (SG_X_ADD_OVF, SG_X_MUL_OVF). Comparisons and the logical operations give
 * 0 or 1. The graph is hash-consed: building an expression equal to an
 * existing node gives that node, with commutative operands ordered and
 * constants folded into one, so that equal products of the same factors
 * compare equal (the loop folding relies on it to merge loops).
 *
 * Checks: sg_exprs_check records a condition that makes the slice invalid.
 * A constant true condition fails at once (the static planner's error); a
 * symbolic one is evaluated at run time, in order, before any result is
 * written.
 */
#ifndef SG_EXPR_H
#define SG_EXPR_H

#include "../frontend/frontend.h"

/* A number: the constant k (node == 0) or node `node` of the graph (>= 1). */
typedef struct sg_val {
    int32_t node;
    int64_t k;
} sg_val;

static inline sg_val sg_const(int64_t k)
{
    return (sg_val){0, k};
}
static inline bool sg_is_const(sg_val v)
{
    return v.node == 0;
}
static inline bool sg_same(sg_val a, sg_val b)
{
    return a.node == b.node && (a.node != 0 || a.k == b.k);
}

typedef enum sg_xop {
    SG_X_DIM,   /* input dimension k (a `?` dimension) */
    SG_X_VALUE, /* runtime value k */
    SG_X_ADD,
    SG_X_SUB,
    SG_X_MUL,
    SG_X_CDIV, /* ceil(a / b) for a > 0 and b > 0, else 0 */
    SG_X_SREM, /* a mod b with the sign of b, for b > 0 (else 0): Python's % */
    SG_X_MIN,
    SG_X_MAX,
    SG_X_LT,
    SG_X_EQ,
    SG_X_AND,
    SG_X_OR,     /* of 0/1 operands */
    SG_X_SELECT, /* a != 0 ? b : c */
    SG_X_ADD_OVF,
    SG_X_MUL_OVF, /* 1 when a + b, a * b overflow int64 */
    SG_X_COUNT
} sg_xop;

typedef struct sg_xnode {
    sg_xop op;
    sg_val a, b, c;
    int64_t k;
    int64_t lo, hi; /* every value it takes lies in [lo, hi] */
} sg_xnode;

/* What makes a prepared call fail (the codes of NAME_prepare; 0 is success). */
typedef enum sg_xcode {
    SG_XC_SHAPE = 1, /* the input shape: a fixed dimension differs, or one is negative */
    SG_XC_INDEX = 2, /* an index or coordinate outside the input */
    SG_XC_STEP = 3,  /* a zero stride or step, a negative size */
    SG_XC_EMPTY = 4, /* a border mode reading an empty dimension */
    SG_XC_SIZE = 5   /* a tensor or coordinate past what 64 bits (or the target's pointers) hold */
} sg_xcode;

/* A failure condition and its message: `format` (malloc'd) holds one
 * `%lld` for each of the nargs numbers it shows. */
typedef struct sg_xcheck {
    sg_val cond;
    sg_xcode code;
    sg_status status;
    char *format;
    int nargs;
    sg_val args[4];
} sg_xcheck;

typedef struct sg_exprs {
    sg_xnode *nodes; /* node i is nodes[i - 1] */
    size_t n, cap;
    int32_t *index;  /* open addressing over the nodes (hash-consing): node i, 0 empty */
    size_t slots;    /* a power of two, at least twice n */
    sg_xcheck *checks;
    size_t nchecks, check_cap;
    bool nomem; /* an allocation failed: the results are meaningless */
} sg_exprs;

void sg_exprs_free(sg_exprs *e);

/* Input dimension `axis` as the call gives it (any int64), and as shape
 * inference uses it: max(given, 0), known to be >= 0 (a negative one is
 * refused by a check on the given one). */
sg_val sg_x_dim_given(sg_exprs *e, size_t axis);
sg_val sg_x_dim(sg_exprs *e, size_t axis);
sg_val sg_x_value(sg_exprs *e, size_t index);
sg_val sg_x(sg_exprs *e, sg_xop op, sg_val a, sg_val b);
sg_val sg_x_select(sg_exprs *e, sg_val cond, sg_val then, sg_val otherwise);
/* Shorthands. */
static inline sg_val sg_x_add(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_ADD, a, b);
}
static inline sg_val sg_x_sub(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_SUB, a, b);
}
static inline sg_val sg_x_mul(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_MUL, a, b);
}
static inline sg_val sg_x_min(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_MIN, a, b);
}
static inline sg_val sg_x_max(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_MAX, a, b);
}
static inline sg_val sg_x_lt(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_LT, a, b);
}
static inline sg_val sg_x_eq(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_EQ, a, b);
}
static inline sg_val sg_x_and(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_AND, a, b);
}
static inline sg_val sg_x_or(sg_exprs *e, sg_val a, sg_val b)
{
    return sg_x(e, SG_X_OR, a, b);
}
static inline sg_val sg_x_not(sg_exprs *e, sg_val a)
{
    return sg_x(e, SG_X_EQ, a, sg_const(0));
}

/* Records that `cond` makes the slice invalid. A constant true cond whose
 * message shows only constants fails now: err gets the message, `format`
 * (printf, evaluated now) with each `%%lld` it leaves showing one of the
 * nargs numbers of args, and the status is returned. Otherwise the check
 * is kept for run time (where a constant true one refuses every call, with
 * the numbers of that call) and SG_OK is returned (SG_ERR_NOMEM when out
 * of memory). */
#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
sg_status
sg_exprs_check(sg_exprs *e, sg_val cond, sg_xcode code, sg_status status, sg_error *err, const sg_val args[4],
               const char *format, ...);

/* Evaluates every node for the input dimensions `dims` (all of them, in
 * input order) and `values`; node i's value is in out[i - 1] (out has e->n
 * entries). Then the checks in order: the first that holds writes its
 * message to err (its status) and its code to *code; else *code = 0. */
void sg_exprs_eval(const sg_exprs *e, const int64_t *dims, const int64_t *values, int64_t *out, int *code,
                   sg_error *err);
/* The value of v given the node values of sg_exprs_eval. */
static inline int64_t sg_val_of(sg_val v, const int64_t *nodes)
{
    return v.node ? nodes[v.node - 1] : v.k;
}

/* The largest value v takes, for every value of the leaves (the node's
 * range, which folding keeps: INT64_MAX where unbounded). */
static inline int64_t sg_exprs_most(const sg_exprs *e, sg_val v)
{
    return v.node ? e->nodes[v.node - 1].hi : v.k;
}

/* v as base * k with k a constant: (a, k) for a node a * k, else (v, 1). */
void sg_exprs_factor(const sg_exprs *e, sg_val v, sg_val *base, int64_t *k);
/* Whether v is a product of input dimensions and constants only (no
 * runtime value in it): an input axis's stride, or a constant multiple of
 * one. */
bool sg_exprs_is_dim_product(const sg_exprs *e, sg_val v);

/* Copies the expressions `from` gives for roots[0..n) into `to` (the
 * nodes they use, leaves and operations alike, node for node), writing
 * each root's counterpart to out[i]. Checks are not copied. False when out
 * of memory. */
bool sg_exprs_import(sg_exprs *to, const sg_exprs *from, const sg_val *roots, size_t n, sg_val *out);

/* v as infix text for people ("(n - 3) / 2", "min(a, 4)"), into buf of
 * `size` bytes (cut with "..." when longer): dimension leaf k as
 * dim_names[k], value leaf k as value_names[k] (NULL arrays: "d<k>",
 * "v<k>"), max(d, 0) of a leaf as the leaf. */
const char *sg_exprs_text(const sg_exprs *e, sg_val v, const char *const *dim_names,
                          const char *const *value_names, char *buf, size_t size);

/* "%3" or "-12": v as the plan text shows it. */
#define SG_VAL_TEXT 24
const char *sg_val_text(sg_val v, char out[SG_VAL_TEXT]);

#endif /* SG_EXPR_H */

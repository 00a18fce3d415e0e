/* The prologue of a kernel with runtime numbers as C source (codegen.h,
 * sg_prologue_c), for the headers of GPU kernels, whose prologue runs on
 * the host: the same function as prepare.c's IR, statement for statement.
 *
 *     static inline int NAME_prepare(slicegen_args *args, const int64_t *in_shape,
 *                                    const int64_t *values);
 *
 * It checks in_shape against the fixed dimensions (and its runtime ones
 * for a negative size), evaluates the plan's expression graph in order,
 * then its checks; the first that holds returns its SLICEGEN_PREPARE_*
 * code before anything is written. Else it writes the slots and returns
 * 0. Arithmetic wraps as the IR's does (through uint64_t); every division
 * is by a positive divisor; the overflow tests are portable C (no
 * compiler builtins), so the header stays C11 and C++. */
#define SG_CODEGEN_INTERNAL
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"

const char sg_prologue_c_helpers[] =
    "#ifndef SLICEGEN_PROLOGUE_HELPERS_DEFINED\n"
    "#define SLICEGEN_PROLOGUE_HELPERS_DEFINED\n"
    "/* The arithmetic of the NAME_prepare functions below: wrapping add, sub and\n"
    " * mul, divisions by positive divisors, and signed overflow tests. */\n"
    "static inline int64_t slicegen_add_(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }\n"
    "static inline int64_t slicegen_sub_(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }\n"
    "static inline int64_t slicegen_mul_(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }\n"
    "static inline int64_t slicegen_cdiv_(int64_t a, int64_t b) { return a > 0 && b > 0 ? (a - 1) / b + 1 : 0; }\n"
    "static inline int64_t slicegen_rem_(int64_t a, int64_t b)\n"
    "{\n"
    "    int64_t r = b > 0 ? a % b : 0;\n"
    "    return r < 0 ? r + b : r;\n"
    "}\n"
    "static inline int64_t slicegen_add_overflows_(int64_t a, int64_t b)\n"
    "{\n"
    "    return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);\n"
    "}\n"
    "static inline int64_t slicegen_mul_overflows_(int64_t a, int64_t b)\n"
    "{\n"
    "    if (a > 0)\n"
    "        return b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a;\n"
    "    return b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a;\n"
    "}\n"
    "/* The grid of a prepared call of a kernel below: blocks of 256 threads,\n"
    " * each writing 16 bytes of the output (0: nothing to launch). */\n"
    "static inline uint32_t slicegen_grid_x(const slicegen_args *args)\n"
    "{\n"
    "    return (uint32_t)(((uint64_t)args->output_bytes + 4095) / 4096);\n"
    "}\n"
    "#endif\n";

/* The C expression of v: n<i> or a constant. */
static const char *c_val(sg_val v, char buf[32])
{
    if (v.node)
        snprintf(buf, 32, "n%" PRId64, (int64_t)v.node);
    else if (v.k == INT64_MIN)
        snprintf(buf, 32, "INT64_MIN");
    else
        snprintf(buf, 32, "INT64_C(%" PRId64 ")", v.k);
    return buf;
}

static void node(FILE *f, size_t i, const sg_xnode *x)
{
    char a[32], b[32], c[32];
    c_val(x->a, a);
    c_val(x->b, b);
    fprintf(f, "    const int64_t n%zu = ", i + 1);
    switch (x->op) {
    case SG_X_DIM:
        fprintf(f, "in_shape[%" PRId64 "]", x->k);
        break;
    case SG_X_VALUE:
        fprintf(f, "values[%" PRId64 "]", x->k);
        break;
    case SG_X_ADD:
        fprintf(f, "slicegen_add_(%s, %s)", a, b);
        break;
    case SG_X_SUB:
        fprintf(f, "slicegen_sub_(%s, %s)", a, b);
        break;
    case SG_X_MUL:
        fprintf(f, "slicegen_mul_(%s, %s)", a, b);
        break;
    case SG_X_CDIV:
        fprintf(f, "slicegen_cdiv_(%s, %s)", a, b);
        break;
    case SG_X_SREM:
        fprintf(f, "slicegen_rem_(%s, %s)", a, b);
        break;
    case SG_X_MIN:
        fprintf(f, "%s < %s ? %s : %s", a, b, a, b);
        break;
    case SG_X_MAX:
        fprintf(f, "%s > %s ? %s : %s", a, b, a, b);
        break;
    case SG_X_LT:
        fprintf(f, "%s < %s", a, b);
        break;
    case SG_X_EQ:
        fprintf(f, "%s == %s", a, b);
        break;
    case SG_X_AND:
        fprintf(f, "%s != 0 && %s != 0", a, b);
        break;
    case SG_X_OR:
        fprintf(f, "%s != 0 || %s != 0", a, b);
        break;
    case SG_X_SELECT:
        fprintf(f, "%s != 0 ? %s : %s", a, b, c_val(x->c, c));
        break;
    case SG_X_ADD_OVF:
        fprintf(f, "slicegen_add_overflows_(%s, %s)", a, b);
        break;
    case SG_X_MUL_OVF:
        fprintf(f, "slicegen_mul_overflows_(%s, %s)", a, b);
        break;
    case SG_X_COUNT:
        fputs("0", f);
        break;
    }
    fputs(";\n", f);
}

/* The field of args that slot `slot` is. */
static void slot_field(FILE *f, int slot)
{
    if (slot >= SG_ARG_OUT_SHAPE && slot < SG_ARG_OUT_SHAPE + SG_MAX_RANK)
        fprintf(f, "args->out_shape[%d]", slot - SG_ARG_OUT_SHAPE);
    else if (slot == SG_ARG_OUTER_EXTENT)
        fputs("args->outer_extent", f);
    else if (slot == SG_ARG_INPUT_BYTES)
        fputs("args->input_bytes", f);
    else if (slot == SG_ARG_OUTPUT_BYTES)
        fputs("args->output_bytes", f);
    else
        fprintf(f, "args->internal[%d]", slot - SG_ARG_BASE);
}

void sg_prologue_c(FILE *f, const sg_plan *plan, const char *name)
{
    const sg_sym *s = plan->sym;
    char a[32];
    fprintf(f, "static inline int %s_prepare(slicegen_args *args, const int64_t *in_shape, const int64_t *values)\n{\n",
            name);
    if (s->nvalues == 0)
        fputs("    (void)values;\n", f);
    if (plan->in_rank > 0) {
        fputs("    if (", f);
        for (size_t i = 0; i < plan->in_rank; i++) {
            if (i)
                fputs(" ||\n        ", f);
            if (plan->in_shape[i] >= 0)
                fprintf(f, "in_shape[%zu] != INT64_C(%" PRId64 ")", i, plan->in_shape[i]);
            else
                fprintf(f, "in_shape[%zu] < 0", i);
        }
        fputs(")\n        return SLICEGEN_PREPARE_SHAPE;\n", f);
    } else {
        fputs("    (void)in_shape;\n", f);
    }
    /* the nodes nothing reads are computed anyway, as in the IR: (void) */
    bool *read = calloc(s->ex.n + 1, sizeof *read);
    sg_val vals[SG_ARG_COUNT];
    int slots[SG_ARG_COUNT];
    size_t n = sg_sym_slots(plan, vals, slots);
    if (read != NULL) {
        for (size_t i = 0; i < s->ex.n; i++) {
            const sg_xnode *x = &s->ex.nodes[i];
            read[x->a.node] = read[x->b.node] = true;
            if (x->op == SG_X_SELECT)
                read[x->c.node] = true;
        }
        for (size_t i = 0; i < s->ex.nchecks; i++)
            read[s->ex.checks[i].cond.node] = true;
        for (size_t i = 0; i < n; i++)
            read[vals[i].node] = true;
        read[s->out_bytes.node] = true;
    }
    for (size_t i = 0; i < s->ex.n; i++) {
        node(f, i, &s->ex.nodes[i]);
        if (read == NULL || !read[i + 1])
            fprintf(f, "    (void)n%zu;\n", i + 1);
    }
    free(read);
    for (size_t i = 0; i < s->ex.nchecks; i++)
        fprintf(f, "    if (%s != 0)\n        return %d;\n", c_val(s->ex.checks[i].cond, a), (int)s->ex.checks[i].code);
    /* a grid's x dimension holds 2^31 - 1 blocks of 4096 output bytes */
    fprintf(f, "    if (%s > INT64_C(%" PRId64 "))\n        return SLICEGEN_PREPARE_SIZE;\n", c_val(s->out_bytes, a),
            (int64_t)INT32_MAX * SG_GPU_BLOCK * SG_GPU_CHUNK);
    for (size_t i = 0; i < n; i++) {
        if (slots[i] == SG_ARG_OUT_RANK) { /* int32 out_rank, int32 0 */
            fprintf(f, "    args->out_rank = (int32_t)%s;\n    args->reserved = 0;\n", c_val(vals[i], a));
            continue;
        }
        fputs("    ", f);
        slot_field(f, slots[i]);
        fprintf(f, " = %s;\n", c_val(vals[i], a));
    }
    fputs("    return 0;\n}\n", f);
}

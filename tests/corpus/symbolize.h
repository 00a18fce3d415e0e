/* The symbolize transform of the test corpus: a case's spec with every
 * number made a named runtime value (v0, v1, ... in the order of the
 * words) and, with its plan, every input dimension `?`. A kernel of the
 * symbolized spec, prepared with the numbers and the input's shape, must
 * give the static spec's output (test_corpus --symbolize).
 *
 * What is symbolized: the items of the number lists of an --op spec
 * (--begin --end --stride --start --stop --step --size --pads-begin
 * --pads-end --axes --split), its --fill or --value (given as the
 * element's bits), and every integer inside the index brackets of a NumPy
 * expression (a sign included: the value is negative), of a program too
 * when it is a chain of indices, np.flip, np.roll and np.pad, or an
 * np.concatenate of such chains (what programs take runtime values in;
 * np.pad by constant, edge or wrap).
 * Masks, modes, Split's --axis and --output, np.flip's axes, np.roll's
 * shifts and axes, np.pad's widths, np.concatenate's axis stay as
 * written; other programs are not
 * symbolized, and a chain the planner refuses (a roll of a padded axis, an
 * index into a constant border) is counted apart. */
#ifndef SG_TEST_SYMBOLIZE_H
#define SG_TEST_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slicegen.h"

#define SYMBOLIZE_MAX_WORDS 64

typedef struct symbolized {
    int nwords;
    char *words[SYMBOLIZE_MAX_WORDS]; /* malloc'd */
    size_t nvalues;
    int64_t values[SG_MAX_VALUES];    /* value k, named "v<k>" */
} symbolized;

/* Symbolizes the SPEC words (count of them) for elements of dtype into
 * *out. False, with *why set, when the spec has nothing to symbolize or
 * cannot be (a program but a chain, more than SG_MAX_VALUES numbers); out is then
 * empty. */
bool symbolize(sg_context *ctx, int count, char *const *words, sg_dtype dtype, symbolized *out, const char **why);
/* Whether spec is an index, a program that chains indices, np.flip,
 * np.roll and np.pad (constant, edge, wrap), or an np.concatenate of such
 * chains: a spec whose numbers may all be runtime values. */
bool symbolizable(const sg_spec *spec);
void symbolized_free(symbolized *s);

#endif /* SG_TEST_SYMBOLIZE_H */

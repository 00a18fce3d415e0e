/*
 * fuzz_plan_text: the plan text reader (sg_plan_parse, docs/plan-format.md)
 * and the plan checker it runs.
 *
 * Decoding: the bytes, cut at the first NUL, are the plan text. When it
 * parses:
 *   - the plan prints (sg_plan_print), the printed text parses into an
 *     equal plan (sg_plan_equal), and that plan prints the same text;
 *   - when its input and output are at most 64 KiB, the reference
 *     interpreter runs it over a patterned input and an output of exactly
 *     the plan's sizes, so that AddressSanitizer sees any byte read or
 *     written outside them; and the loop nest, walked as planner.h says a
 *     kernel runs it, writes the same output as the interpreter, which
 *     runs from the dim lines (the nest must follow from them).
 */
#include "fuzz.h"
#include "../support/nest_walk.h"

enum { MAX_BYTES = 1 << 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sg_context *ctx = fuzz_context();
    char *text = fuzz_cstr(data, size), *printed = NULL, *reprinted = NULL;
    sg_plan *plan = NULL, *again = NULL;
    if (sg_plan_parse(ctx, text, &plan) != SG_OK)
        goto done;

    printed = fuzz_text_of_plan(plan);
    if (sg_plan_parse(ctx, printed, &again) != SG_OK)
        FUZZ_FAIL("a parsed plan prints as text that does not parse (%s):\n%s", sg_context_last_error(ctx),
                  printed);
    if (!sg_plan_equal(plan, again))
        FUZZ_FAIL("a parsed plan prints as text that parses into another plan:\n%s", printed);
    reprinted = fuzz_text_of_plan(again);
    if (strcmp(printed, reprinted) != 0)
        FUZZ_FAIL("a plan prints differently after a round trip:\n%s\n---\n%s", printed, reprinted);

    uint64_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    if (in_bytes <= MAX_BYTES && out_bytes <= MAX_BYTES) {
        uint8_t *in = malloc(in_bytes ? in_bytes : 1), *out = malloc(out_bytes ? out_bytes : 1);
        uint8_t *nest = malloc(out_bytes ? out_bytes : 1);
        if (in == NULL || out == NULL || nest == NULL)
            abort();
        for (uint64_t i = 0; i < in_bytes; i++)
            in[i] = (uint8_t)(i * 37 + 1);
        if (sg_run_reference(ctx, plan, in, out) != SG_OK)
            FUZZ_FAIL("reference run failed: %s", sg_context_last_error(ctx));
        if (out_bytes > 0) {
            nest_walk(plan, 0, in + plan->base, nest);
            if (memcmp(out, nest, out_bytes) != 0)
                FUZZ_FAIL("the loop nest writes another output than the dim lines say:\n%s", printed);
        }
        free(in);
        free(out);
        free(nest);
    }
done:
    sg_plan_destroy(plan);
    sg_plan_destroy(again);
    free(printed);
    free(reprinted);
    free(text);
    return 0;
}

/*
 * --stores auto as this machine was measured (runtime/stores_probe.c):
 * the threshold above which the JIT's kernels stream, unless
 * SLICEGEN_STREAM_THRESHOLD says it; and kernels whose rows are short
 * pieces (codegen.h, SG_AUTO_SHORT_ROWS), which stream when the machine
 * gains by it, or as SLICEGEN_STREAM_SHORT_ROWS (0 or 1) says. Run three
 * times by ctest: without the variables (both probes run: their figures
 * are whole and their decisions follow them; kernels on either side of
 * the measured threshold), with SLICEGEN_STREAM_SHORT_ROWS=0 (the
 * threshold measured), and with SLICEGEN_STREAM_SHORT_ROWS=1 and a
 * threshold set (no probe: the settings decide). In every run, the pads of the
 * streaming regression compile under auto to the kernel of what was
 * decided, kernels of long rows stream and small outputs stay cached,
 * whatever was decided; and each kernel's output is the interpreter's.
 * Prints the figures, then "stores-probe: N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/runtime.h"
#include "../support/check.h"

typedef struct suite {
    check_counts counts;
} suite;

/* Compiles `words` of [rank]shape f32 under auto and under streaming, and
 * returns whether auto's kernel is the streaming one (-1 on an error);
 * checks auto's output against the interpreter. */
static int auto_streams(suite *s, sg_context *ctx, const char *words, size_t rank, const int64_t *shape)
{
    char buf[256];
    char *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", words);
    for (char *w = strtok(buf, " "); w != NULL && argc < 32; w = strtok(NULL, " "))
        argv[argc++] = w;
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_kernel *automatic = NULL, *streamed = NULL;
    int result = -1;
    if (sg_spec_from_words(ctx, argc, argv, &spec) != SG_OK ||
        sg_plan_create(ctx, spec, rank, shape, SG_F32, &plan) != SG_OK ||
        sg_kernel_compile(ctx, plan, SG_DEFAULT_OPT_LEVEL, &automatic) != SG_OK ||
        sg_kernel_compile_stores(ctx, plan, SG_DEFAULT_OPT_LEVEL, SG_STORES_STREAMING, &streamed) != SG_OK) {
        CHECK(s, 0, "%s: %s", words, sg_context_last_error(ctx));
        goto done;
    }
    result = sg_kernel_function(automatic) == sg_kernel_function(streamed);
    size_t in_bytes = sg_plan_input_bytes(plan), out_bytes = sg_plan_output_bytes(plan);
    float *in = malloc(in_bytes), *got = malloc(out_bytes), *want = malloc(out_bytes);
    if (in && got && want) {
        for (size_t i = 0; i < in_bytes / sizeof *in; i++)
            in[i] = (float)(i % 1000003);
        sg_run_reference(ctx, plan, in, want);
        sg_kernel_run(ctx, automatic, in, got, 1);
        CHECK(s, memcmp(got, want, out_bytes) == 0, "%s: auto's kernel differs from the interpreter", words);
    }
    free(in);
    free(got);
    free(want);
done:
    sg_kernel_release(automatic);
    sg_kernel_release(streamed);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return result;
}

/* The environment variable `name`, or NULL when it is unset or empty
 * (ctest's way of unsetting it). */
static const char *setting(const char *name)
{
    const char *env = getenv(name);
    return env != NULL && *env != '\0' ? env : NULL;
}

/* The threshold (sg_host_measured_stream_threshold): SLICEGEN_STREAM_THRESHOLD
 * when set, else the probe's figures are whole and its decision follows
 * them; then a crop of rows of 8 KiB whose output is one row above the
 * threshold streams under auto and one at most the threshold does not. */
static void check_threshold(suite *s, sg_context *ctx)
{
    const char *env = setting("SLICEGEN_STREAM_THRESHOLD");
    sg_threshold_probe f;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t threshold = sg_host_measured_stream_threshold(&f);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf(
        "stores-probe: SLICEGEN_STREAM_THRESHOLD %s; threshold %lld bytes (half the last-level cache: %lld), "
        "%s in %.0f ms\n",
        env ? env : "unset", (long long)threshold, (long long)f.derived,
        f.measured ? "measured" : "not measured",
        1e3 * ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)));
    for (int k = 0; k < f.nsizes; k++)
        printf("stores-probe: threshold probe output %.1f MiB: cached %.3f ms, streaming %.3f ms\n",
               (double)f.output_bytes[k] / (1 << 20), 1e3 * f.cached_s[k], 1e3 * f.streaming_s[k]);
    CHECK(s, threshold == f.threshold && sg_host_measured_stream_threshold(NULL) == threshold,
          "the threshold returned %lld is not the figures' %lld, or a second call's", (long long)threshold,
          (long long)f.threshold);
    if (env != NULL) {
        CHECK(s, !f.measured && f.nsizes == 0 && f.setting == atoll(env) && threshold == atoll(env),
              "SLICEGEN_STREAM_THRESHOLD=%s: setting %lld, threshold %lld, measured %d", env,
              (long long)f.setting, (long long)threshold, f.measured);
        return;
    }
    CHECK(s, f.setting == -1 && f.measured && f.nsizes >= 1 && f.nsizes <= 7,
          "the probe did not run to its end");
    int walked = f.nsizes - f.refined; /* the halving sizes, then the refinement */
    bool whole = walked >= 1, streamed_above = true;
    for (int k = 0; k < f.nsizes; k++) {
        uint64_t size = k < walked ? ((uint64_t)32 << 20) >> k : f.output_bytes[walked - 1] / 2 * 3;
        whole &= f.output_bytes[k] == size && f.cached_s[k] > 0 && f.streaming_s[k] > 0;
        if (k + 1 < walked)
            streamed_above &= f.streaming_s[k] <= f.cached_s[k];
    }
    CHECK(s, whole,
          "the probe's sizes are not 32 MiB halved (and 3/2 of the last), or a time is not positive");
    CHECK(s, streamed_above, "the probe went on below a size where cached stores won");
    int last = walked - 1;
    int64_t want = (int64_t)1 << 20; /* streaming won at every size down to 1 MiB */
    if (last >= 0 && f.cached_s[last] < f.streaming_s[last]) {
        want = last == 0 && f.derived > ((int64_t)32 << 20) ? f.derived : (int64_t)f.output_bytes[last];
        CHECK(s, f.refined == (last > 0), "cached stores won at %llu bytes: refined %d",
              (unsigned long long)f.output_bytes[last], f.refined);
        if (f.refined && f.cached_s[walked] < f.streaming_s[walked])
            want = (int64_t)f.output_bytes[walked];
    } else {
        CHECK(s, walked == 6 && !f.refined, "streaming won down to %llu bytes, yet the probe stopped",
              last >= 0 ? (unsigned long long)f.output_bytes[last] : 0ULL);
    }
    CHECK(s, threshold == want, "threshold %lld, the figures give %lld", (long long)threshold,
          (long long)want);
    if (threshold > ((int64_t)64 << 20)) {
        printf("stores-probe: threshold above 64 MiB: its two sides are not compiled here\n");
        return;
    }
    const char *words = "[:,8:-8]";
    int64_t rows = threshold / 8192;
    const int64_t at[2] = {rows, 2064}, above[2] = {rows + 1, 2064};
    int got = auto_streams(s, ctx, words, 2, at);
    CHECK(s, got == 0, "an output of %lld bytes, at most the threshold %lld: auto %s",
          (long long)(rows * 8192), (long long)threshold, got < 0 ? "failed" : "streams");
    got = auto_streams(s, ctx, words, 2, above);
    CHECK(s, got == 1, "an output of %lld bytes, above the threshold %lld: auto %s",
          (long long)((rows + 1) * 8192), (long long)threshold, got < 0 ? "failed" : "caches");
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT};
    const char *env = setting("SLICEGEN_STREAM_SHORT_ROWS");
    sg_short_rows_probe f;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool streams = sg_host_short_rows_stream(&f);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("stores-probe: SLICEGEN_STREAM_SHORT_ROWS %s; %s; rows of short pieces %s\n", env ? env : "unset",
           f.measured ? "measured" : "not measured", streams ? "stream" : "stay cached");
    if (f.measured)
        printf("stores-probe: probe output %.1f MiB: cached %.3f ms, streaming %.3f ms; %.0f ms in all\n",
               (double)f.output_bytes / (1 << 20), 1e3 * f.cached_s, 1e3 * f.streaming_s,
               1e3 * ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)));
    CHECK(&s, f.streams == streams, "the figures' decision %d is not the one returned %d", f.streams,
          streams);
    if (env != NULL) {
        CHECK(&s, f.setting == atoi(env) && !f.measured && streams == (env[0] == '1'),
              "SLICEGEN_STREAM_SHORT_ROWS=%s: setting %d, measured %d, streams %d", env, f.setting,
              f.measured, streams);
    } else {
        CHECK(&s, f.setting == -1 && f.measured, "no setting: the probe did not run to its end");
        CHECK(&s, f.output_bytes >= (24u << 20) && f.output_bytes <= (48u << 20),
              "probe output of %llu bytes, not 24-48 MiB", (unsigned long long)f.output_bytes);
        CHECK(&s, f.cached_s > 0 && f.streaming_s > 0 && streams == (f.streaming_s <= f.cached_s),
              "probe: cached %g s, streaming %g s, streams %d", f.cached_s, f.streaming_s, streams);
    }
    bool again = sg_host_short_rows_stream(NULL);
    CHECK(&s, again == streams, "a second call decided otherwise");

    sg_context *ctx;
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    check_threshold(&s, ctx);

    /* The pads of the streaming regression (above the 16 MiB threshold of
     * an unknown cache), long rows, and a small output. TensorRT's pads
     * and crops of 4-byte elements have rows of short pieces on targets
     * that stream vectors only; on x86-64 they stream every piece whole,
     * whatever was decided. */
#if defined(__x86_64__)
    const bool whole_pieces = true;
#else
    const bool whole_pieces = false;
#endif
    setenv("SLICEGEN_STREAM_THRESHOLD", "16777216", 1);
    static const struct {
        const char *words;
        size_t rank;
        int64_t shape[3];
        /* 0: short rows (as decided), 1: long rows (streams), 2: cached,
         * 3: whole pieces where the host has them, else short rows, 4:
         * whole pieces where the host has them, else cached */
        int kind;
    } cases[] = {
        {"np.pad(x,((0,0),(8,8),(8,8)),mode='reflect')", 3, {64, 256, 256}, 0},
        {"np.pad(x,((0,0),(8,8),(8,8)))", 3, {64, 256, 256}, 0},
        {"--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode reflect", 3, {64, 256, 256}, 3},
        {"--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode fill --fill 0.5", 3, {64, 256, 256}, 3},
        {"--op TrtSlice --start 0,2,5 --size 128,296,290", 3, {128, 300, 301}, 3},
        {"[::-1]", 2, {4096, 2048}, 1},
        {"[1:,3:-5]", 2, {2100, 4096}, 1},
        /* small */
        {"--op TrtSlice --start 0,-8,-8 --size 4,272,272 --mode reflect", 3, {4, 256, 256}, 2},
        /* rows of 424 bytes: more than one line in 4 with ordinary stores
         * where pieces meet */
        {"--op TrtSlice --start 0,-3,-3 --size 1024,106,106 --mode reflect", 3, {1024, 100, 100}, 4},
        /* short rows of elements gathered one by one (2x2 subsampling) */
        {"[:,::2,::2]", 3, {128, 512, 512}, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = auto_streams(&s, ctx, cases[i].words, cases[i].rank, cases[i].shape);
        int kind = cases[i].kind;
        int want = kind == 0   ? streams
                   : kind == 3 ? whole_pieces || streams
                   : kind == 4 ? whole_pieces
                               : kind == 1;
        CHECK(&s, got == want, "%s: auto %s, want %s", cases[i].words,
              got < 0 ? "failed"
              : got   ? "streams"
                      : "caches",
              want ? "streaming" : "cached");
    }
    sg_context_destroy(ctx);
    return finish("stores-probe", &s.counts);
}

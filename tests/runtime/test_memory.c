/* A JIT that runs for days: 51,024 plans (SLICEGEN_PLANS=N to change it)
 * compiled at -O0, run and released in one context, so the kernel cache
 * fills (kernel.c keeps at most 1,024 idle kernels) and then evicts for
 * 50,000 compiles. Shapes differ from plan to plan; they repeat after
 * 48,500 plans, long after those kernels were evicted, so every plan
 * compiles. The plans mix strided slices, TensorRT segment tables and
 * fills, so evicted kernels' code, constant tables and LLVM memory (the JIT
 * session's symbol names too) must all be freed. Prints the resident memory
 * and the heap in use every 5,000 plans and checks that they stopped
 * growing between 20% of the plans (at least 2,048: the cache full and
 * evicting for a while) and 80%: RSS within 10% + 16 MiB (pages
 * are coarse), and with glibc the heap in use (mallinfo2: allocated chunks
 * plus mmapped ones) within HEAP_SLACK, which a leak of 20 bytes per kernel
 * already exceeds. Not run under sanitizers, whose quarantines hold freed
 * memory on purpose. Last line "memory: N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/check.h"
#include "slicegen.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

/* Growth of the heap in use allowed over the middle 60% of the plans: the
 * cache's steady state moves by tens of KiB with the kernels it holds. */
enum { HEAP_SLACK = 512 * 1024 };
/* Where the steady state has begun: twice the idle kernels kernel.c keeps. */
enum { STEADY_PLANS = 2 * 1024 };

typedef struct suite {
    check_counts counts;
} suite;

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* Bytes of the heap in use, or -1 where malloc cannot say (not glibc). */
static long long heap_bytes(void)
{
#ifdef HAVE_MALLINFO2
    struct mallinfo2 m = mallinfo2();
    return (long long)(m.uordblks + m.hblkhd);
#else
    return -1;
#endif
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT};
    long plans = getenv("SLICEGEN_PLANS") ? atol(getenv("SLICEGEN_PLANS")) : 51024;
    long early = plans / 5 > STEADY_PLANS ? plans / 5 : STEADY_PLANS, late = plans * 4 / 5, rss_early = 0,
         rss_late = 0;
    if (late <= early) {
        printf("memory: %ld plans are too few (at least %d, that the cache reaches its steady state)\n", plans,
               5 * STEADY_PLANS / 4 + 1);
        return 1;
    }
    long long heap_early = 0, heap_late = 0;
    static const char *const specs[] = {
        /* command-line words, split at spaces */
        "[::2,1:]",
        "[::-1,::3]",
        "--op TrtSlice --start -3,-1 --size 40,12 --stride 1,1 --mode reflect",
        "--op TrtSlice --start -2,-2 --size 20,9 --mode fill --fill 7",
    };
    enum { NSPECS = sizeof specs / sizeof specs[0] };
    sg_context *ctx;
    sg_spec *spec[NSPECS];
    if (sg_context_create(&ctx) != SG_OK)
        return 1;
    for (int k = 0; k < NSPECS; k++) {
        char text[128], *words[32];
        int n = 0;
        snprintf(text, sizeof text, "%s", specs[k]);
        for (char *w = strtok(text, " "); w && n < 32; w = strtok(NULL, " "))
            words[n++] = w;
        if (sg_spec_from_words(ctx, n, words, &spec[k]) != SG_OK) {
            printf("memory: bad spec %s: %s\n", specs[k], sg_context_last_error(ctx));
            return 1;
        }
    }
    unsigned char *in = calloc(1, 1 << 20), *out = calloc(1, 1 << 22);
    for (long i = 1; i <= plans && s.counts.failed == 0; i++) {
        /* Shapes differ from plan to plan, so every nest is new. */
        int64_t shape[2] = {(i % 97) + 3, (i / 97) % 500 + 3};
        sg_plan *plan = NULL;
        sg_kernel *kernel = NULL;
        int k = (int)(i % NSPECS);
        if (sg_plan_create(ctx, spec[k], 2, shape, k % 2 ? SG_F32 : SG_U8, &plan) != SG_OK ||
            sg_kernel_compile(ctx, plan, 0, &kernel) != SG_OK ||
            sg_kernel_run(ctx, kernel, in, out, 1) != SG_OK)
            CHECK(&s, 0, "plan %ld (%s): %s", i, specs[k], sg_context_last_error(ctx));
        sg_kernel_release(kernel);
        sg_plan_destroy(plan);
        if (i % 5000 == 0 || i == early || i == late) {
            long rss = rss_kib();
            long long heap = heap_bytes();
            if (i % 5000 == 0)
                printf("memory: %ld plans, RSS %ld KiB, heap in use %lld bytes\n", i, rss, heap);
            rss_early = i == early ? rss : rss_early;
            rss_late = i == late ? rss : rss_late;
            heap_early = i == early ? heap : heap_early;
            heap_late = i == late ? heap : heap_late;
        }
    }
    CHECK(&s, rss_early > 0 && rss_late > 0, "resident memory unknown (no /proc/self/status)");
    CHECK(&s, rss_late <= rss_early + rss_early / 10 + 16 * 1024,
          "RSS grew from %ld KiB after %ld plans to %ld KiB after %ld", rss_early, early, rss_late, late);
    if (heap_early < 0) {
        printf("memory: heap in use unknown (no mallinfo2, not glibc 2.33+): only RSS checked\n");
    } else if (s.counts.failed == 0) {
        printf("memory: heap in use %lld bytes after %ld plans, %lld after %ld: %+lld bytes (at most %d)\n",
               heap_early, early, heap_late, late, heap_late - heap_early, (int)HEAP_SLACK);
        CHECK(&s, heap_late - heap_early <= HEAP_SLACK,
              "heap in use grew by %lld bytes from %ld plans to %ld (%.1f bytes per plan; at most %d in all)",
              heap_late - heap_early, early, late, (double)(heap_late - heap_early) / (double)(late - early),
              (int)HEAP_SLACK);
    }
    for (int k = 0; k < NSPECS; k++)
        sg_spec_destroy(spec[k]);
    free(in);
    free(out);
    sg_context_destroy(ctx);
    return finish("memory", &s.counts);
}

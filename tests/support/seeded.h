/* Seeded random numbers for the property tests (xorshift64*): the seed is
 * SLICEGEN_SEED when set, else the clock, and is always printed, so that a
 * failing run can be repeated. One generator per test program. */
#ifndef SG_TEST_SEEDED_H
#define SG_TEST_SEEDED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t *rnd_state(void)
{
    static uint64_t state;
    return &state;
}

/* Seeds rnd(), prints "NAME: seed N (set SLICEGEN_SEED to reproduce)" and
 * returns the seed. */
static inline uint64_t seed_rnd(const char *name)
{
    const char *env = getenv("SLICEGEN_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    *rnd_state() = seed * 0x9E3779B97F4A7C15ull + 1;
    printf("%s: seed %llu (set SLICEGEN_SEED to reproduce)\n", name, (unsigned long long)seed);
    return seed;
}

static inline uint64_t rnd(void)
{
    uint64_t *s = rnd_state();
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* In [lo, hi]. */
static inline int64_t between(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif /* SG_TEST_SEEDED_H */

/* The check harness of the C tests: CHECK(s, cond, fmt, ...) counts a
 * passed or failed check in the suite `s` (any struct with a `counts`
 * member) and prints the file, line and message of a failure; finish()
 * prints the closing line "NAME: N passed, M failed" and gives the exit
 * status. Thread-safe. Then two helpers of the tests that compare engines
 * byte for byte. */
#ifndef SG_TEST_CHECK_H
#define SG_TEST_CHECK_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct check_counts {
    int passed, failed;
    pthread_mutex_t lock;
} check_counts;

#define CHECK_COUNTS_INIT {0, 0, PTHREAD_MUTEX_INITIALIZER}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static inline int check_at(check_counts *c, const char *file, int line, int ok, const char *fmt, ...)
{
    pthread_mutex_lock(&c->lock);
    if (ok) {
        c->passed++;
    } else {
        c->failed++;
        va_list ap;
        va_start(ap, fmt);
        printf("%s:%d: ", file, line);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

#define CHECK(s, cond, ...) check_at(&(s)->counts, __FILE__, __LINE__, (cond), __VA_ARGS__)

static inline int finish(const char *name, const check_counts *c)
{
    printf("%s: %d passed, %d failed\n", name, c->passed, c->failed);
    return c->failed != 0;
}

/* ---- helpers of the engine tests ---- */

/* The offset of the first byte where a and b differ; -1 if none. */
static inline long first_difference(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long)i;
    return -1;
}

/* v[0..n) in ascending order (n is a handful: the cuts of a split). */
static inline void sort_cuts(int64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            int64_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
}

#endif /* SG_TEST_CHECK_H */

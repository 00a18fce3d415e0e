/* The thread pool: every part of every job runs exactly once, jobs of any
 * size follow each other back to back, and callers on several threads
 * sharing one pool all finish (one runs on the pool, the others run their
 * parts themselves). Prints "pool: N passed, M failed". */
#include <stdatomic.h>
#include <stdlib.h>

#include "../../runtime/runtime.h"
#include "../support/check.h"

enum { MAX_PARTS = 9, JOBS = 20000, CALLERS = 3 };

typedef struct suite {
    check_counts counts;
} suite;

typedef struct job {
    atomic_int runs[MAX_PARTS];
} job;

static void count_part(void *arg, int part)
{
    job *j = arg;
    atomic_fetch_add(&j->runs[part], 1);
}

typedef struct caller {
    sg_pool *pool;
    suite *s;
    int id;
} caller;

/* Runs JOBS jobs of 1..MAX_PARTS parts; each part must have run once. */
static void *run_jobs(void *arg)
{
    caller *c = arg;
    int bad = 0;
    for (int k = 0; k < JOBS; k++) {
        job j;
        int parts = 1 + (k * 7 + c->id) % MAX_PARTS;
        for (int i = 0; i < MAX_PARTS; i++)
            atomic_init(&j.runs[i], 0);
        sg_pool_run(c->pool, parts, count_part, &j);
        for (int i = 0; i < MAX_PARTS; i++)
            bad += atomic_load(&j.runs[i]) != (i < parts);
    }
    CHECK(c->s, bad == 0, "caller %d: %d parts ran other than once", c->id, bad);
    return NULL;
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT};
    sg_pool *pool = sg_pool_create();
    if (!CHECK(&s, pool != NULL, "sg_pool_create failed"))
        return finish("pool", &s.counts);

    caller alone = {pool, &s, 0};
    run_jobs(&alone);

    pthread_t threads[CALLERS];
    caller callers[CALLERS];
    for (int t = 0; t < CALLERS; t++) {
        callers[t] = (caller){pool, &s, t + 1};
        CHECK(&s, pthread_create(&threads[t], NULL, run_jobs, &callers[t]) == 0, "pthread_create %d", t);
    }
    for (int t = 0; t < CALLERS; t++)
        pthread_join(threads[t], NULL);
    sg_pool_destroy(pool);
    sg_pool_destroy(NULL);
    return finish("pool", &s.counts);
}

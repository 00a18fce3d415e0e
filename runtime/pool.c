/* The thread pool of a context (runtime.h). Workers start when a job first
 * needs them and live as long as the context. A job is `parts` calls of
 * task(arg, part); the calling thread takes parts too, and parts go to
 * whoever asks next, so a job finishes whatever number of workers joins.
 *
 * After a job, workers and the waiting caller spin for SPIN_NS before they
 * sleep on a condition variable: a runtime that runs kernels back to back
 * pays no wake-up. Joining and leaving a job happen under `lock`, so a
 * worker that wakes late can never touch the next job's fields: a new job
 * is published only once no worker is inside the previous one. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "runtime.h"

enum { POOL_MAX = 255 };
static const int64_t SPIN_NS = 100000;

typedef struct worker {
    sg_pool *pool;
    unsigned start_generation; /* the job being published when it started */
    pthread_t thread;
} worker;

struct sg_pool {
    pthread_mutex_t run;   /* held by the caller of the current job */
    pthread_mutex_t lock;  /* guards everything below that is not atomic */
    pthread_cond_t wake;   /* a job was published, or stop */
    pthread_cond_t left;   /* a worker left a job */
    pthread_cond_t done;   /* the last part of a job finished */
    worker workers[POOL_MAX];
    int nworkers, sleepers, active, joined, wanted;
    bool stop, caller_waiting;
    void (*task)(void *arg, int part);
    void *arg;
    int parts;
    atomic_uint generation; /* bumped to publish a job */
    atomic_int next;        /* the next part to take */
    atomic_int finished;    /* parts finished */
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Takes and runs parts until none is left. */
static void take_parts(sg_pool *p)
{
    for (;;) {
        int part = atomic_fetch_add(&p->next, 1);
        if (part >= p->parts)
            return;
        p->task(p->arg, part);
        if (atomic_fetch_add(&p->finished, 1) + 1 == p->parts) {
            pthread_mutex_lock(&p->lock);
            if (p->caller_waiting)
                pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    sg_pool *p = w->pool;
    unsigned seen = w->start_generation;
    for (;;) {
        int64_t until = now_ns() + SPIN_NS;
        while (atomic_load(&p->generation) == seen && now_ns() < until)
            sched_yield();
        pthread_mutex_lock(&p->lock);
        p->sleepers++;
        while (atomic_load(&p->generation) == seen && !p->stop)
            pthread_cond_wait(&p->wake, &p->lock);
        p->sleepers--;
        if (p->stop) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        seen = atomic_load(&p->generation);
        bool join = p->joined < p->wanted;
        p->joined += join;
        p->active += join;
        pthread_mutex_unlock(&p->lock);
        if (!join)
            continue;
        take_parts(p);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0)
            pthread_cond_signal(&p->left);
        pthread_mutex_unlock(&p->lock);
    }
}

int sg_thread_start(pthread_t *thread, void *(*start)(void *), void *arg)
{
    sigset_t blocked, old;
    sigfillset(&blocked);
    sigdelset(&blocked, SIGBUS);
    sigdelset(&blocked, SIGFPE);
    sigdelset(&blocked, SIGILL);
    sigdelset(&blocked, SIGSEGV);
    sigdelset(&blocked, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &blocked, &old); /* the new thread inherits the mask */
    int rc = pthread_create(thread, NULL, start, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

sg_pool *sg_pool_create(void)
{
    sg_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    pthread_mutex_init(&p->run, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->left, NULL);
    pthread_cond_init(&p->done, NULL);
    return p;
}

void sg_pool_destroy(sg_pool *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nworkers; i++)
        pthread_join(p->workers[i].thread, NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->left);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->run);
    free(p);
}

void sg_pool_run(sg_pool *p, int parts, void (*task)(void *arg, int part), void *arg)
{
    if (parts <= 1 || pthread_mutex_trylock(&p->run) != 0) { /* busy: run here */
        for (int part = 0; part < parts; part++)
            task(arg, part);
        return;
    }
    pthread_mutex_lock(&p->lock);
    while (p->active > 0) /* a late worker is still inside the previous job */
        pthread_cond_wait(&p->left, &p->lock);
    unsigned generation = atomic_load(&p->generation);
    int wanted = parts - 1 < POOL_MAX ? parts - 1 : POOL_MAX;
    while (p->nworkers < wanted) {
        worker *w = &p->workers[p->nworkers];
        *w = (worker){.pool = p, .start_generation = generation};
        if (sg_thread_start(&w->thread, work, w) != 0)
            break; /* fewer workers: the caller takes more parts */
        p->nworkers++;
    }
    p->task = task;
    p->arg = arg;
    p->parts = parts;
    p->wanted = wanted;
    p->joined = 0;
    atomic_store(&p->next, 0);
    atomic_store(&p->finished, 0);
    atomic_store(&p->generation, generation + 1);
    if (p->sleepers > 0)
        pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    take_parts(p);
    int64_t until = now_ns() + SPIN_NS;
    while (atomic_load(&p->finished) < parts && now_ns() < until)
        sched_yield();
    pthread_mutex_lock(&p->lock);
    p->caller_waiting = true;
    while (atomic_load(&p->finished) < parts)
        pthread_cond_wait(&p->done, &p->lock);
    p->caller_waiting = false;
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->run);
}

/* The kernel caches' one mechanism (runtime.h, "the kernel caches"): a hash
 * table of entries with reference counts, an idle list in release order,
 * and a condition variable for callers waiting on a compile. Every function
 * but sg_cache_init, sg_cache_fini and sg_cache_publish is called with the
 * context's lock held. */
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "runtime.h"

sg_status sg_cache_init(sg_cache *c, size_t idle_max, sg_error *err)
{
    *c = (sg_cache){.nbuckets = 64, .idle_max = idle_max};
    if ((c->buckets = calloc(c->nbuckets, sizeof *c->buckets)) == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to create kernel cache: out of memory");
    pthread_cond_init(&c->done, NULL);
    return SG_OK;
}

void sg_cache_fini(sg_cache *c, void (*free_entry)(sg_cache_entry *entry))
{
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (sg_cache_entry *e = c->buckets[i], *next; e; e = next) {
            next = e->next;
            if (free_entry != NULL)
                free_entry(e);
        }
    }
    pthread_cond_destroy(&c->done);
    free(c->buckets);
    *c = (sg_cache){0};
}

static uint64_t key_hash(uint64_t hash, const uint64_t variant[2])
{
    return hash ^ (variant[0] * 0x9e3779b97f4a7c15u) ^ (variant[1] << 56);
}

static sg_cache_entry **slot(sg_cache *c, const uint8_t *key, size_t len, uint64_t hash,
                             const uint64_t variant[2])
{
    sg_cache_entry **at = &c->buckets[key_hash(hash, variant) & (c->nbuckets - 1)];
    for (; *at; at = &(*at)->next) {
        const sg_cache_entry *e = *at;
        if (e->hash == hash && e->variant[0] == variant[0] && e->variant[1] == variant[1] && e->len == len &&
            memcmp(e->key, key, len) == 0)
            break;
    }
    return at;
}

static void grow(sg_cache *c)
{
    size_t n = c->nbuckets * 2;
    sg_cache_entry **buckets = calloc(n, sizeof *buckets);
    if (buckets == NULL)
        return; /* longer chains, still correct */
    for (size_t i = 0; i < c->nbuckets; i++) {
        for (sg_cache_entry *e = c->buckets[i], *next; e; e = next) {
            next = e->next;
            sg_cache_entry **head = &buckets[key_hash(e->hash, e->variant) & (n - 1)];
            e->next = *head;
            *head = e;
        }
    }
    free(c->buckets);
    c->buckets = buckets;
    c->nbuckets = n;
}

static void unlink_entry(sg_cache *c, sg_cache_entry *e)
{
    sg_cache_entry **at = slot(c, e->key, e->len, e->hash, e->variant);
    if (*at == e) {
        *at = e->next;
        c->count--;
    }
}

static void idle_remove(sg_cache *c, sg_cache_entry *e)
{
    *(e->idle_prev ? &e->idle_prev->idle_next : &c->idle_first) = e->idle_next;
    *(e->idle_next ? &e->idle_next->idle_prev : &c->idle_last) = e->idle_prev;
    e->idle_prev = e->idle_next = NULL;
    c->nidle--;
}

static void idle_append(sg_cache *c, sg_cache_entry *e)
{
    e->idle_prev = c->idle_last;
    e->idle_next = NULL;
    *(c->idle_last ? &c->idle_last->idle_next : &c->idle_first) = e;
    c->idle_last = e;
    c->nidle++;
}

static sg_status acquire(sg_cache *c, pthread_mutex_t *lock, const uint8_t *key, size_t len, uint64_t hash,
                           const uint64_t variant[2], sg_cache_entry **found, sg_cache_entry **orphan,
                           sg_error *err)
{
    sg_cache_entry *e = *slot(c, key, len, hash, variant);
    *found = *orphan = NULL;
    if (e == NULL)
        return SG_OK;
    if (e->refs++ == 0 && e->state == SG_CACHE_READY)
        idle_remove(c, e);
    while (e->state == SG_CACHE_COMPILING)
        pthread_cond_wait(&c->done, lock);
    if (e->state == SG_CACHE_READY) {
        c->hits++;
        *found = e;
        return SG_OK;
    }
    sg_fail(err, e->error.status, "%s", e->error.message);
    if (--e->refs == 0) /* the compiling thread has unlinked it */
        *orphan = e;
    return err->status;
}

static void insert(sg_cache *c, sg_cache_entry *e, uint8_t *key, size_t len, uint64_t hash,
                     const uint64_t variant[2])
{
    *e = (sg_cache_entry){.key = key,
                          .len = len,
                          .hash = hash,
                          .variant = {variant[0], variant[1]},
                          .refs = 1,
                          .state = SG_CACHE_COMPILING,
                          .serial = ++c->compiles};
    sg_cache_entry **head = &c->buckets[key_hash(hash, variant) & (c->nbuckets - 1)];
    e->next = *head;
    *head = e;
    if (++c->count > 2 * c->nbuckets)
        grow(c);
}

static void publish(sg_cache *c, pthread_mutex_t *lock, sg_cache_entry *e, const sg_error *failure,
                      void (*free_entry)(sg_cache_entry *entry))
{
    pthread_mutex_lock(lock);
    if (failure == NULL) {
        e->state = SG_CACHE_READY;
    } else {
        e->state = SG_CACHE_FAILED;
        e->error = *failure;
        unlink_entry(c, e);
        e->refs--;
    }
    pthread_cond_broadcast(&c->done);
    bool orphan = failure != NULL && e->refs == 0;
    pthread_mutex_unlock(lock);
    if (orphan)
        free_entry(e);
}

sg_status sg_cache_get(sg_cache *c, pthread_mutex_t *lock, const sg_cache_kind *kind, const sg_nest_key *key,
                       const uint64_t variant[2], const void *arg, sg_cache_entry **out, sg_error *err)
{
    sg_cache_entry *found = NULL, *orphan = NULL, *e = NULL;
    pthread_mutex_lock(lock);
    if (acquire(c, lock, key->bytes, key->len, key->hash, variant, &found, &orphan, err) == SG_OK && found == NULL &&
        (e = calloc(1, kind->size)) == NULL)
        sg_fail(err, SG_ERR_NOMEM, "failed to compile %s: out of memory", kind->what);
    if (e == NULL) { /* a failure, or a hit (cached, or compiled meanwhile by another thread) */
        pthread_mutex_unlock(lock);
        if (orphan != NULL)
            kind->free_entry(orphan);
        free(key->bytes);
        if (found != NULL)
            *out = found;
        return err->status;
    }
    insert(c, e, key->bytes, key->len, key->hash, variant);
    kind->init(e, arg);
    pthread_mutex_unlock(lock);
    sg_status status = kind->build(e, arg, err);
    publish(c, lock, e, status == SG_OK ? NULL : err, kind->free_entry);
    if (status == SG_OK)
        *out = e;
    return status;
}

/* Takes the idle entries over the limit out of the table, into a list
 * linked by `next`. */
static sg_cache_entry *evict(sg_cache *c)
{
    sg_cache_entry *victims = NULL;
    while (c->nidle > c->idle_max) {
        sg_cache_entry *e = c->idle_first;
        idle_remove(c, e);
        unlink_entry(c, e);
        e->next = victims;
        victims = e;
    }
    return victims;
}

sg_cache_entry *sg_cache_release(sg_cache *c, sg_cache_entry *e)
{
    if (--e->refs > 0)
        return NULL;
    idle_append(c, e);
    return evict(c);
}

sg_cache_entry *sg_cache_set_idle_max(sg_cache *c, size_t idle_max)
{
    c->idle_max = idle_max;
    return evict(c);
}

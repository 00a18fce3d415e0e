/*
 * Atomic output files: write a temporary file next to the target, fsync it,
 * give it normal permissions and rename it over the target. Staged in two
 * steps so that a command writing several files renames them only once all
 * are complete. A symbolic link is followed: the file it names is replaced
 * and the link stays. Nothing is ever renamed over a special file (a
 * device, a FIFO): that is opened and written directly, when staged.
 *
 * The temporary file is OUT.slicegen-tmp-XXXXXX next to OUT. While it exists
 * its name is in `temporaries`, a fixed table that a signal handler may read
 * (sg_remove_temporary_files): a slot is claimed, filled and then marked
 * live with atomic operations, and creating, renaming or removing the file
 * happens together with its slot's change with signals blocked, so a handler
 * never sees a live slot without its file or a file without its slot.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define SUFFIX SG_TEMP_SUFFIX

/* ---- the registry of temporary files ------------------------------------------ */

enum { SLOTS = 16, SLOT_PATH = 4096 }; /* a longer name would fail with ENAMETOOLONG anyway */
enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };
static struct {
    atomic_int state;
    char path[SLOT_PATH];
} temporaries[SLOTS];

/* Blocks the signals that come from outside the process in this thread. */
static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGSEGV);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Lists path; 1 + the slot, or 0 when every slot is taken (the file is then
 * not removed on a signal) or the name is too long. */
static int register_temporary(const char *path)
{
    size_t len = strlen(path);
    if (len >= SLOT_PATH)
        return 0;
    for (int i = 0; i < SLOTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&temporaries[i].state, &expected, SLOT_FILLING)) {
            memcpy(temporaries[i].path, path, len + 1);
            atomic_store(&temporaries[i].state, SLOT_LIVE);
            return i + 1;
        }
    }
    return 0;
}

static void unregister_temporary(int slot)
{
    if (slot > 0)
        atomic_store(&temporaries[slot - 1].state, SLOT_FREE);
}

void sg_remove_temporary_files(void)
{
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&temporaries[i].state) == SLOT_LIVE)
            unlink(temporaries[i].path);
}

/* ---- writing ------------------------------------------------------------------- */

/* The process umask without changing it where the system says (Linux's
 * /proc/self/status); elsewhere set and restore it, which can race only with
 * another thread creating a file at that instant. */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        unsigned mask;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Umask: %o", &mask) == 1) {
                fclose(f);
                return (mode_t)mask;
            }
        }
        fclose(f);
    }
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* The file an output named `path` really is: symbolic links followed (at
 * most 40), the last name kept even if it does not exist yet. *target is
 * malloc'd. */
static sg_status follow_links(const char *path, char **target, sg_error *err)
{
    char *at = strdup(path);
    for (int hops = 0; at != NULL; hops++) {
        struct stat sb;
        if (lstat(at, &sb) != 0 || !S_ISLNK(sb.st_mode)) {
            *target = at;
            return SG_OK;
        }
        char link[4096];
        ssize_t n = hops < 40 ? readlink(at, link, sizeof link - 1) : -1;
        if (n < 0) {
            free(at);
            return sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (following its symbolic links)", path,
                           strerror(hops < 40 ? errno : ELOOP));
        }
        link[n] = '\0';
        const char *slash = strrchr(at, '/');
        int dirlen = link[0] == '/' || slash == NULL ? 0 : (int)(slash - at + 1);
        char *next = malloc((size_t)dirlen + (size_t)n + 1);
        if (next)
            sprintf(next, "%.*s%s", dirlen, at, link); /* relative links start at the link's folder */
        free(at);
        at = next;
    }
    return sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", path);
}

/* Writes the parts to an open file; errno is kept on failure. */
static bool write_parts(int fd, const void *const *parts, const size_t *sizes, size_t nparts)
{
    for (size_t i = 0; i < nparts; i++) {
        const char *p = parts[i];
        size_t left = sizes[i];
        while (left > 0) {
            ssize_t n = write(fd, p, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return false;
            p += n;
            left -= (size_t)n;
        }
    }
    return true;
}

/* A device, FIFO or other special file: written directly, never replaced. */
static sg_status write_special(const char *path, const char *target, const void *const *parts,
                               const size_t *sizes, size_t nparts, sg_error *err)
{
    int fd = open(target, O_WRONLY | O_NOCTTY);
    if (fd < 0)
        return sg_fail(err, SG_ERR_IO, "failed to write '%s': %s", path, strerror(errno));
    bool written = write_parts(fd, parts, sizes, nparts);
    int e = errno;
    if (close(fd) != 0 && written) {
        written = false;
        e = errno;
    }
    return written ? SG_OK : sg_fail(err, SG_ERR_IO, "failed to write '%s': %s", path, strerror(e));
}

sg_status sg_file_stage(const char *path, const void *const *parts, const size_t *sizes, size_t nparts,
                        sg_staged_file *staged, sg_error *err)
{
    struct stat sb;
    char *target = NULL;
    *staged = (sg_staged_file){0};
    if (path[0] == '\0')
        return sg_fail(err, SG_ERR_IO, "failed to write '': the path is empty");
    if (follow_links(path, &target, err) != SG_OK)
        return err->status;
    if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        free(target);
        return sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (the path names a folder)", path,
                       strerror(EISDIR));
    }
    if (stat(target, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        sg_status st = write_special(path, target, parts, sizes, nparts, err);
        free(target);
        return st;
    }

    /* The folder part of the target, for messages: "." or up to the last '/'. */
    const char *slash = strrchr(target, '/');
    const char *dir = slash ? target : ".";
    int dirlen = !slash ? 1 : slash == target ? 1 : (int)(slash - target);

    size_t len = strlen(target);
    char *tmp = malloc(len + sizeof SUFFIX);
    if (!tmp) {
        free(target);
        return sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", path);
    }
    memcpy(tmp, target, len);
    memcpy(tmp + len, SUFFIX, sizeof SUFFIX);

    sg_status st = SG_OK;
    sigset_t mask;
    block_signals(&mask);
    int fd = mkstemp(tmp), slot = fd >= 0 ? register_temporary(tmp) : 0;
    restore_signals(&mask);
    if (fd < 0) {
        int e = errno;
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (%s '%.*s'%s)", path, strerror(e),
                     e == ENOENT || e == ENOTDIR ? "the folder" : "cannot create a temporary file in", dirlen,
                     dir,
                     e == ENOENT    ? " does not exist"
                     : e == ENOTDIR ? " is not a folder"
                                    : "");
        free(tmp);
        free(target);
        return st;
    }
    *staged = (sg_staged_file){.path = target, .tmp = tmp, .slot = slot};
    if (!write_parts(fd, parts, sizes, nparts)) {
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (writing temporary file '%s')", path,
                     strerror(errno), tmp);
        goto done;
    }
    /* mkstemp made the file 0600; the result should look like any new file. */
    int synced = fsync(fd) == 0;
    if (!synced || fchmod(fd, 0666 & ~current_umask()) != 0) {
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (%s temporary file '%s')", path,
                     strerror(errno), synced ? "setting the mode of" : "syncing", tmp);
        goto done;
    }
    int rc = close(fd);
    fd = -1;
    if (rc != 0)
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (closing temporary file '%s')", path,
                     strerror(errno), tmp);
done:
    if (fd >= 0)
        close(fd);
    if (st != SG_OK)
        sg_file_discard(staged);
    return st;
}

sg_status sg_file_commit_all(sg_staged_file *staged, size_t count, sg_error *err)
{
    sg_status st = SG_OK;
    sigset_t mask;
    block_signals(&mask); /* a signal comes before all the renames or after them */
    for (size_t i = 0; i < count && st == SG_OK; i++) {
        if (staged[i].tmp == NULL) /* none, or a special file written when staged */
            continue;
        if (rename(staged[i].tmp, staged[i].path) != 0) {
            st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (renaming '%s' over it)", staged[i].path,
                         strerror(errno), staged[i].tmp);
            break;
        }
        unregister_temporary(staged[i].slot);
        staged[i].slot = 0;
        staged[i].tmp[0] = '\0'; /* nothing left to remove */
    }
    restore_signals(&mask);
    return st;
}

sg_status sg_file_commit(sg_staged_file *staged, sg_error *err)
{
    return sg_file_commit_all(staged, 1, err);
}

void sg_file_discard(sg_staged_file *staged)
{
    sigset_t mask;
    block_signals(&mask);
    if (staged->tmp != NULL && staged->tmp[0] != '\0')
        unlink(staged->tmp);
    unregister_temporary(staged->slot);
    restore_signals(&mask);
    free(staged->tmp);
    free(staged->path);
    *staged = (sg_staged_file){0};
}

sg_status sg_write_file_atomic(const char *path, const void *const *parts, const size_t *sizes, size_t nparts,
                               sg_error *err)
{
    sg_staged_file staged;
    if (sg_file_stage(path, parts, sizes, nparts, &staged, err) == SG_OK)
        sg_file_commit(&staged, err);
    sg_file_discard(&staged);
    return err->status;
}

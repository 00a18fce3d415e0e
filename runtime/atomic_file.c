/*
 * Atomic output files: write a temporary file next to the target, fsync it,
 * give it normal permissions and rename it over the target. Staged in two
 * steps so that a command writing several files renames them only once all
 * are complete. A symbolic link is followed: the file it names is replaced
 * and the link stays. Nothing is ever renamed over a special file (a
 * device, a FIFO): that is opened and written directly, when staged.
 *
 * The temporary file is OUT.slicegen-tmp-XXXXXX next to OUT (OUT's last name
 * shortened where the whole would be too long a name). While it exists
 * its name is in `temporaries`, a fixed table that a signal handler may read
 * (sg_remove_temporary_files): a slot is claimed, filled and then marked
 * live with atomic operations, and creating, renaming or removing the file
 * happens together with its slot's change with signals blocked, so a handler
 * never sees a live slot without its file or a file without its slot.
 */
#define _XOPEN_SOURCE 700 /* POSIX 2008 and realpath */

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

/* A path with its symbolic links followed, or as given when they cannot be
 * (a loop, a link that cannot be read: writing it then fails on its own).
 * NULL when out of memory. */
static char *resolve_links(const char *path)
{
    sg_error ignored = {0};
    char *target = NULL;
    if (follow_links(path, &target, &ignored) == SG_OK)
        return target;
    return ignored.status == SG_ERR_NOMEM ? NULL : strdup(path);
}

/* The folder part of path as a malloc'd string ("." when it has none) and
 * where its last name starts. */
static char *folder_of(const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    if (slash == NULL)
        return strdup(".");
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (dir) {
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    return dir;
}

/* The longest name the folder of path takes (pathconf), or 255 (Linux's
 * NAME_MAX) where it cannot say. */
static size_t folder_name_max(const char *path)
{
    const char *name;
    char *dir = folder_of(path, &name);
    long max = dir ? pathconf(dir, _PC_NAME_MAX) : -1;
    free(dir);
    return max > (long)strlen(SUFFIX) ? (size_t)max : 255;
}

/* A file that does not exist yet, named as the real path of its folder and
 * its last name; the path itself when the folder cannot be resolved. */
static char *canonical_new_file(const char *path)
{
    const char *name;
    char *dir = folder_of(path, &name), *real = dir ? realpath(dir, NULL) : NULL, *out;
    if (dir == NULL || real == NULL) {
        free(dir);
        free(real);
        return strdup(path);
    }
    size_t rlen = strlen(real), nlen = strlen(name);
    out = malloc(rlen + nlen + 2);
    if (out)
        sprintf(out, "%s%s%s", real, rlen > 0 && real[rlen - 1] == '/' ? "" : "/", name);
    free(dir);
    free(real);
    return out;
}

sg_status sg_same_file(const char *a, const char *b, bool *same, sg_error *err)
{
    struct stat sa, sb;
    char *ta = resolve_links(a), *tb = resolve_links(b), *ca = NULL, *cb = NULL;
    bool ok = ta != NULL && tb != NULL;
    *same = false;
    if (ok) {
        bool has_a = stat(ta, &sa) == 0, has_b = stat(tb, &sb) == 0;
        if (has_a || has_b) /* an existing file and a new one are different files */
            *same = has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
        else if ((ok = (ca = canonical_new_file(ta)) != NULL && (cb = canonical_new_file(tb)) != NULL))
            *same = strcmp(ca, cb) == 0;
    }
    free(ta);
    free(tb);
    free(ca);
    free(cb);
    return ok ? SG_OK : sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", a);
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

    /* The temporary name is the target's with SUFFIX appended, its last name
     * cut short (never inside a UTF-8 sequence) where it would otherwise be
     * longer than the folder takes. */
    size_t len = strlen(target), name_at = slash ? (size_t)(slash + 1 - target) : 0;
    size_t name_max = folder_name_max(target), keep = len;
    if (len - name_at > name_max) {
        sg_status st =
            sg_fail(err, SG_ERR_IO,
                    "failed to write '%s': %s (its last name has %zu bytes, the folder '%.*s' takes "
                    "names of at most %zu)",
                    path, strerror(ENAMETOOLONG), len - name_at, dirlen, dir, name_max);
        free(target);
        return st;
    }
    if (len - name_at + strlen(SUFFIX) > name_max) {
        keep = name_at + name_max - strlen(SUFFIX);
        while (keep > name_at && ((unsigned char)target[keep] & 0xC0) == 0x80)
            keep--;
    }
    char *tmp = malloc(keep + sizeof SUFFIX);
    if (!tmp) {
        free(target);
        return sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", path);
    }
    memcpy(tmp, target, keep);
    memcpy(tmp + keep, SUFFIX, sizeof SUFFIX);

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

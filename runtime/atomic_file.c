/*
 * Atomic output files: write a temporary file next to the target, fsync it,
 * give it normal permissions and rename it over the target. Staged in two
 * steps so that a command writing several files renames them only once all
 * are complete.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define SUFFIX ".tmpXXXXXX"

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

sg_status sg_file_stage(const char *path, const void *const *parts, const size_t *sizes, size_t nparts,
                        sg_staged_file *staged, sg_error *err)
{
    struct stat sb;
    *staged = (sg_staged_file){0};
    if (path[0] == '\0')
        return sg_fail(err, SG_ERR_IO, "failed to write '': the path is empty");
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (the path names a folder)",
                       path, strerror(EISDIR));

    /* The folder part of path, for messages: "." or up to the last '/'. */
    const char *slash = strrchr(path, '/');
    const char *dir = slash ? path : ".";
    int dirlen = !slash ? 1 : slash == path ? 1 : (int)(slash - path);

    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof SUFFIX);
    char *target = malloc(len + 1);
    if (!tmp || !target) {
        free(tmp);
        free(target);
        return sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", path);
    }
    memcpy(target, path, len + 1);
    memcpy(tmp, path, len);
    memcpy(tmp + len, SUFFIX, sizeof SUFFIX);

    sg_status st = SG_OK;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (%s '%.*s'%s)", path, strerror(e),
                     e == ENOENT || e == ENOTDIR ? "the folder" : "cannot create a temporary file in",
                     dirlen, dir,
                     e == ENOENT ? " does not exist" : e == ENOTDIR ? " is not a folder" : "");
        free(tmp);
        free(target);
        return st;
    }
    *staged = (sg_staged_file){.path = target, .tmp = tmp};

    for (size_t i = 0; i < nparts; i++) {
        const char *p = parts[i];
        size_t left = sizes[i];
        while (left > 0) {
            ssize_t n = write(fd, p, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (writing temporary file '%s')",
                             path, strerror(errno), tmp);
                goto done;
            }
            p += n;
            left -= (size_t)n;
        }
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
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (closing temporary file '%s')",
                     path, strerror(errno), tmp);
done:
    if (fd >= 0)
        close(fd);
    if (st != SG_OK)
        sg_file_discard(staged);
    return st;
}

sg_status sg_file_commit(sg_staged_file *staged, sg_error *err)
{
    sg_status st = SG_OK;
    if (rename(staged->tmp, staged->path) != 0)
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (renaming '%s' over it)", staged->path,
                     strerror(errno), staged->tmp);
    else
        staged->tmp[0] = '\0'; /* nothing left to remove */
    return st;
}

void sg_file_discard(sg_staged_file *staged)
{
    if (staged->tmp != NULL && staged->tmp[0] != '\0')
        unlink(staged->tmp);
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

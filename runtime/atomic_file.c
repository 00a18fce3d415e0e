/*
 * Atomic output files: write a temporary file next to the target, fsync it,
 * give it normal permissions and rename it over the target.
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

sg_status sg_write_file_atomic(const char *path, const void *const *parts,
                               const size_t *sizes, size_t nparts, sg_error *err)
{
    struct stat sb;
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
    if (!tmp)
        return sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, SUFFIX, sizeof SUFFIX);

    sg_status st = SG_OK;
    int created = 0;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (%s '%.*s'%s)", path, strerror(e),
                     e == ENOENT || e == ENOTDIR ? "the folder" : "cannot create a temporary file in",
                     dirlen, dir,
                     e == ENOENT ? " does not exist" : e == ENOTDIR ? " is not a folder" : "");
        goto done;
    }
    created = 1;

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
    if (rc != 0) {
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (closing temporary file '%s')",
                     path, strerror(errno), tmp);
        goto done;
    }
    if (rename(tmp, path) != 0) {
        st = sg_fail(err, SG_ERR_IO, "failed to write '%s': %s (renaming '%s' over it)",
                     path, strerror(errno), tmp);
        goto done;
    }
    created = 0;
done:
    if (fd >= 0)
        close(fd);
    if (created)
        unlink(tmp);
    free(tmp);
    return st;
}

/* The programs bench runs and the files they leave: a temporary folder of
 * its own, running a program with its stderr kept there, finding one on
 * PATH. Exports (bench_internal.h) sg_bench_make_tmpdir, sg_bench_tmp_path,
 * sg_bench_remove_tmpdir, sg_bench_run_program, sg_bench_find_program. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_internal.h"

extern char **environ;

sg_status sg_bench_make_tmpdir(bench *b, sg_error *err)
{
    if (b->tmpdir != NULL)
        return SG_OK;
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    size_t len = strlen(base) + sizeof "/slicegen-bench-XXXXXX";
    b->tmpdir = malloc(len);
    if (b->tmpdir == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make a temporary folder: out of memory");
    snprintf(b->tmpdir, len, "%s/slicegen-bench-XXXXXX", base);
    if (mkdtemp(b->tmpdir) == NULL) {
        int e = errno;
        sg_fail(err, SG_ERR_IO, "failed to make a temporary folder in '%s': %s", base, strerror(e));
        free(b->tmpdir);
        b->tmpdir = NULL;
        return err->status;
    }
    return SG_OK;
}

const char *sg_bench_tmp_path(const bench *b, char buf[PATH_MAX], const char *name)
{
    snprintf(buf, PATH_MAX, "%s/%s", b->tmpdir, name);
    return buf;
}

void sg_bench_remove_tmpdir(bench *b)
{
    if (b->tmpdir == NULL)
        return;
    DIR *dir = opendir(b->tmpdir);
    if (dir != NULL) {
        char path[PATH_MAX];
        for (struct dirent *e; (e = readdir(dir)) != NULL;)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlink(sg_bench_tmp_path(b, path, e->d_name));
        closedir(dir);
    }
    rmdir(b->tmpdir);
    free(b->tmpdir);
    b->tmpdir = NULL;
}

/* The first line of a file, for messages (at most 200 characters). */
static void first_line(const char *path, char line[256])
{
    line[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(line, 201, f) == NULL)
        line[0] = '\0';
    line[strcspn(line, "\n")] = '\0';
    fclose(f);
}

/* Runs argv[0] (a path) with argv, stdout to /dev/null and stderr to
 * err_path, and waits. The exit status, or -1 with errno set when it could
 * not be started; 128 + the signal when one killed it. */
static int run_process(char *const argv[], const char *err_path)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int rc;
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
        errno = rc;
        return -1;
    }
    rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (rc == 0)
        rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

sg_status sg_bench_run_program(const bench *b, char *const argv[], const char *stderr_name,
                               const char *failure, sg_error *err)
{
    char errs[PATH_MAX], line[256];
    int rc = run_process(argv, sg_bench_tmp_path(b, errs, stderr_name));
    if (rc < 0)
        return sg_fail(err, SG_ERR_IO, "failed to start '%s': %s", argv[0], strerror(errno));
    if (rc != 0) {
        first_line(errs, line);
        return sg_fail(err, SG_ERR_INTERNAL, "%s exited with status %d (%s)", failure, rc, line);
    }
    return SG_OK;
}

char *sg_bench_find_program(const char *name)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return NULL;
    while (*path) {
        size_t len = strcspn(path, ":");
        char *full = malloc(len + strlen(name) + 3);
        if (full == NULL)
            return NULL;
        snprintf(full, len + strlen(name) + 3, "%.*s/%s", (int)len, len ? path : ".", name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
            return full;
        free(full);
        path += len + (path[len] == ':');
    }
    return NULL;
}

/*
 * maxrss FILE COMMAND [ARG...]: runs COMMAND and writes its peak resident
 * memory in KiB (ru_maxrss) to FILE; exits with the command's status, or
 * 128 + the signal that killed it. For the shell tests that check that a
 * mapped input is not read whole.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: maxrss FILE COMMAND [ARG...]\n", stderr);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("maxrss: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("maxrss: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) {
        perror("maxrss: wait4");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (f == NULL || fprintf(f, "%ld\n", usage.ru_maxrss) < 0 || fclose(f) != 0) {
        perror(argv[1]);
        return 2;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

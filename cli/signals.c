/* Signals. SIGHUP, SIGINT, SIGQUIT and SIGTERM remove the temporary files of
 * outputs being written (sg_remove_temporary_files), then kill the process as
 * they would have; a signal ignored when slicegen starts (nohup, a
 * background job of a shell) stays ignored. SIGXFSZ is ignored, so that an
 * output over the file size limit fails with EFBIG like any write error. A
 * SIGBUS inside the mapping of the input (another process truncated the file
 * while it was read) is reported as a bad input, exit status 2; any other
 * SIGBUS kills the process as before. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const int fatal_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};

/* The input mapping and the line that reports its truncation, prepared
 * before the input is read, since a handler cannot format text. */
static struct {
    volatile uintptr_t start, end;
    char message[4400];
    volatile size_t len;
} watched;
static atomic_flag reporting = ATOMIC_FLAG_INIT;

static void on_fatal(int sig)
{
    int saved = errno;
    sg_remove_temporary_files();
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* pending until this handler returns, then kills the process */
    errno = saved;
}

static void on_bus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    uintptr_t at = (uintptr_t)info->si_addr;
    if (at >= watched.start && at < watched.end) {
        if (atomic_flag_test_and_set(&reporting)) /* another thread's fault says it */
            for (;;)
                pause();
        sg_remove_temporary_files();
        if (write(STDERR_FILENO, watched.message, watched.len) < 0) {
            /* nothing more can be said */
        }
        _exit(2);
    }
    /* Not the input: returning repeats the access, which now gets the default action. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

void install_signal_handlers(void)
{
    struct sigaction sa = {.sa_handler = on_fatal}, old;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        sigaddset(&sa.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal_signals[i], &sa, NULL);

    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, NULL);

    struct sigaction bus = {.sa_sigaction = on_bus, .sa_flags = SA_SIGINFO};
    sigemptyset(&bus.sa_mask);
    sigaction(SIGBUS, &bus, NULL);
}

void watch_input(const char *path, const sg_tensor *input)
{
    if (input->map == NULL)
        return;
    int n = snprintf(watched.message, sizeof watched.message,
                     "slicegen: error: failed to read '%s': the file was truncated while being read "
                     "(another process cut it short; it had %zu bytes when opened)\n",
                     path, input->map_bytes);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof watched.message) { /* a path of thousands of characters: keep the line whole */
        n = (int)sizeof watched.message - 1;
        watched.message[n - 1] = '\n';
    }
    watched.len = (size_t)n;
    watched.end = (uintptr_t)input->map + input->map_bytes;
    watched.start = (uintptr_t)input->map;
}

void unwatch_input(void)
{
    watched.start = watched.end = 0;
}

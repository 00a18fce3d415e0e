/* The command-line program's shared parts: options, errors, the input
 * description, signals. main.c: options, run, plan, ir, bench (which calls
 * bench/bench.h); aot.c: emit, aot; signals.c: removing temporary files on
 * signals, a truncated input. */
#ifndef SG_CLI_H
#define SG_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "slicegen.h"

/* The command-line options that are not part of SPEC. */
typedef struct options {
    const char *in, *out, *engine, *threads, *shape, *dtype;
    /* emit and aot */
    const char *output, *header, *name, *target, *cpu, *weights, *prefix;
    /* bench */
    const char *json, *plot, *case_text, *device;
    /* run, emit and aot: --stores */
    const char *stores;
    /* run: each --set NAME=VALUE, in order */
    const char **sets;
    int nsets;
    bool quick;
    bool no_cf_protection; /* emit and aot: --no-cf-protection */
    bool fuse;             /* aot: --fuse */
    /* -O0..-O3; -1 when not given */
    int opt_level;
    int nspec;
    char **spec; /* SPEC words, in order (for aot: the model path) */
    int argc;    /* the whole command line, for generated headers */
    char **argv;
} options;

/* Bits naming the options a command takes: those with a value in the order
 * parse_options lists them, then the flags (-O0..-O3, --quick, --no-cf-protection, --fuse). */
/* clang-format off */
enum {
    OPT_IN = 1 << 0, OPT_OUT = 1 << 1, OPT_ENGINE = 1 << 2, OPT_THREADS = 1 << 3, OPT_SHAPE = 1 << 4,
    OPT_DTYPE = 1 << 5, OPT_OUTPUT = 1 << 6, OPT_HEADER = 1 << 7, OPT_NAME = 1 << 8, OPT_TARGET = 1 << 9,
    OPT_CPU = 1 << 10, OPT_WEIGHTS = 1 << 11, OPT_PREFIX = 1 << 12, OPT_JSON = 1 << 13, OPT_PLOT = 1 << 14,
    OPT_CASE = 1 << 15, OPT_DEVICE = 1 << 16, OPT_STORES = 1 << 17, OPT_LEVEL = 1 << 18, OPT_QUICK = 1 << 19,
    OPT_NO_CF = 1 << 20, OPT_SET = 1 << 21, OPT_FUSE = 1 << 22
};
/* clang-format on */

/* 1 for out of memory and internal failures, else 2. */
int exit_status(sg_status status);
/* Prints the context's last error for a failed call; the exit status. */
int failed(sg_context *ctx, sg_status status);
/* Prints "slicegen: error: <message> (see 'slicegen --help')"; returns 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
int usage_error(const char *fmt, ...);

/* These return -1 on success, else an exit status (the error printed). */
int parse_shape(const char *text, int64_t *shape, size_t *rank);
/* "--stores auto|cached|streaming" (NULL: auto). */
int parse_stores(const char *text, sg_stores *stores);
/* The input's shape and type from --in (its header only, or with the data
 * when `data`: read, or mapped for a large file) or from --shape and --dtype. */
int input_description(sg_context *ctx, const options *o, bool data, sg_tensor *input);
/* Spec and plan from the SPEC words and the input description. */
int make_plan(sg_context *ctx, const options *o, sg_spec **spec, sg_plan **plan);

/* signals.c: handlers for the whole run of the program; while an input is
 * watched, a SIGBUS inside its mapping reports it as truncated (exit 2). */
void install_signal_handlers(void);
void watch_input(const char *path, const sg_tensor *input);
void unwatch_input(void);

extern const char emit_help[], aot_help[];
int cmd_emit(sg_context *ctx, const options *o);
int cmd_aot(sg_context *ctx, const options *o);

#endif /* SG_CLI_H */

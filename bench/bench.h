/*
 * bench: `slicegen bench`, generated kernels against the memory-traffic
 * limit, memcpy, the reference interpreter, compile latency, and kernels
 * of runtime values against static ones.
 * In-tree: it reads plan internals (planner.h) to count the bytes a slice
 * must move. No LLVM here. See docs/bench.md for what is measured.
 *
 *   bench.c    the suite, timing, the table (sg_bench_run)
 *   cuda.c     the cases as CUDA kernels (--device cuda)
 *   compile.c  compile latency
 *   values.c   runtime values: symbolic kernels, a decode loop
 *   report.c   the --json and --plot files
 *   process.c  the temporary folder and the programs bench runs
 *   traffic.c  the input cache lines a plan reads (sg_bench_traffic)
 *
 * What these files share is declared in bench_internal.h.
 */
#ifndef SG_BENCH_H
#define SG_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../runtime/runtime.h"

/* Cache line size the traffic is counted in. */
#define SG_BENCH_LINE 64

/* The bytes a plan must move through memory: the number of distinct
 * SG_BENCH_LINE-byte lines its loop nest reads from an input that starts on
 * a line boundary, times the line size, plus the output bytes. Exact: every
 * run of the nest is visited (one period of a periodic loop, as every
 * period reads the same bytes; fill iterations read nothing). A program's
 * plan: the lines the nests of all its parts read, each counted once, plus
 * the output bytes. SG_ERR_NOMEM if the bitmap of lines cannot be
 * allocated. */
sg_status sg_bench_traffic(const sg_plan *plan, uint64_t *traffic_bytes, sg_error *err);

typedef struct sg_bench_options {
    bool quick;            /* smaller inputs, fewer repetitions: seconds in all */
    bool cuda;             /* the cases on CUDA device 0 instead of the CPU (no compile figures) */
    int threads;           /* the N of the N-thread runs; 0: every online core */
    const char *filter;    /* NULL: every case; else the cases whose name contains it */
    const char *json_path; /* NULL, or where to write the results as JSON */
    const char *plot_path; /* NULL, or where to write a PNG chart (needs gnuplot) */
    const char *program;   /* the slicegen program timed as a process (`emit`);
                              NULL: /proc/self/exe */
    FILE *out;             /* the table (stdout) */
    FILE *progress;        /* NULL, or where to show the case being measured (a tty) */
} sg_bench_options;

/* Runs the suite on contexts of its own: one line per case on
 * options->out as soon as it is measured, the compile figures, the
 * runtime-values figures (not with `cuda`), then the JSON and PNG files,
 * each written whole or not at all (a temporary file renamed over the
 * path; both are renamed only once both are complete). A program case
 * whose kernel over `?` dimensions the planner refuses has no
 * runtime-values figure, and with `cuda` no program is run: a line says
 * so for each selected. Checked before
 * anything is measured: a filter that matches no case (the message names
 * it and lists the cases), --plot without gnuplot on PATH or with only
 * compile or runtime-values figures selected, or with `cuda` only
 * programs (SG_ERR_USAGE); an output path that
 * is a folder, or whose folder does not exist or cannot be written
 * (SG_ERR_IO); with `cuda`, a CUDA driver or device that cannot be used
 * (SG_ERR_USAGE). Later: SG_ERR_INTERNAL if a kernel's output differs from
 * the interpreter's (a symbolic kernel's from the static kernel's or from
 * memcpy of the same rows, a program's steps run apart from its kernel's)
 * or gnuplot fails, SG_ERR_IO and SG_ERR_NOMEM as
 * they come. *err holds the one-line message. */
sg_status sg_bench_run(const sg_bench_options *options, sg_error *err);

#endif /* SG_BENCH_H */

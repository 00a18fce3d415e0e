/* The output files of `slicegen bench`: --json (every figure as a JSON
 * array) and --plot (a gnuplot chart), written both or neither. Exports
 * (bench_internal.h) sg_bench_put for text buffers, sg_bench_check_outputs
 * (before anything is measured) and sg_bench_write_outputs (at the end). */
#define _XOPEN_SOURCE 700 /* realpath */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_internal.h"

/* ---- checks before anything is measured --------------------------------------- */

/* The output's folder exists and can be written (or the output is a file
 * that can be written). */
static sg_status check_output(const char *option, const char *path, sg_error *err)
{
    struct stat st;
    if (path[0] == '\0')
        return sg_fail(err, SG_ERR_IO, "failed to write %s '': the path is empty", option);
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return sg_fail(err, SG_ERR_IO, "failed to write %s '%s': %s (the path names a folder)", option,
                           path, strerror(EISDIR));
        if (!S_ISREG(st.st_mode))
            return access(path, W_OK) == 0 ? SG_OK
                                           : sg_fail(err, SG_ERR_IO, "failed to write %s '%s': %s", option,
                                                     path, strerror(errno));
    }
    char *real = realpath(path, NULL); /* follows a link to the file it names */
    const char *p = real ? real : path;
    const char *slash = strrchr(p, '/');
    char dir[PATH_MAX];
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == p ? 1 : (int)(slash - p), p);
    sg_status s = SG_OK;
    if (access(dir, W_OK | X_OK) != 0)
        s = sg_fail(err, SG_ERR_IO, "failed to write %s '%s': %s (folder '%s')", option, path,
                    strerror(errno), dir);
    free(real);
    return s;
}

sg_status sg_bench_check_outputs(bench *b, bool any_case, sg_error *err)
{
    const sg_bench_options *o = b->o;
    if (o->plot_path != NULL) {
        if ((b->gnuplot = sg_bench_find_program("gnuplot")) == NULL)
            return sg_fail(err, SG_ERR_USAGE, "--plot needs gnuplot (Debian: gnuplot-nox)");
        if (!any_case)
            return sg_fail(err, SG_ERR_USAGE,
                           "--plot: --case '%s' selects only compile or runtime-values figures, which are "
                           "not plotted",
                           o->filter);
    }
    sg_status st;
    if (o->json_path && (st = check_output("--json", o->json_path, err)) != SG_OK)
        return st;
    if (o->plot_path && (st = check_output("--plot", o->plot_path, err)) != SG_OK)
        return st;
    return SG_OK;
}

/* ---- text ------------------------------------------------------------------------ */

/* Room in t for `more` bytes and a terminating zero; false once t->failed. */
static bool reserve(text *t, size_t more)
{
    if (t->failed)
        return false;
    if (t->s != NULL && t->len + more < t->cap)
        return true;
    size_t cap = (t->cap ? t->cap : 4096) * 2 + more;
    char *s = realloc(t->s, cap);
    if (s == NULL) {
        t->failed = true;
        return false;
    }
    t->s = s;
    t->cap = cap;
    return true;
}

void sg_bench_put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (size_t more = 0; reserve(t, more);) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        more = (size_t)n;
    }
}

/* A JSON string. */
static void put_string(text *t, const char *s)
{
    sg_bench_put(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sg_bench_put(t, "\\%c", c);
        else if (c < 0x20)
            sg_bench_put(t, "\\u%04x", c);
        else
            sg_bench_put(t, "%c", c);
    }
    sg_bench_put(t, "\"");
}

/* A JSON array of n integers. */
static void put_ints(text *t, const int64_t *v, size_t n)
{
    sg_bench_put(t, "[");
    for (size_t i = 0; i < n; i++)
        sg_bench_put(t, "%s%" PRId64, i ? ", " : "", v[i]);
    sg_bench_put(t, "]");
}

/* Reads a whole file into *data (malloc'd). */
static sg_status read_file(const char *path, char **data, size_t *size, sg_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sg_fail(err, SG_ERR_IO, "failed to read '%s': %s", path, strerror(errno));
    text t = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && reserve(&t, n)) {
        memcpy(t.s + t.len, chunk, n);
        t.len += n;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (t.failed || bad || t.len == 0) {
        free(t.s);
        return sg_fail(err, t.failed ? SG_ERR_NOMEM : SG_ERR_IO, "failed to read '%s': %s", path,
                       t.failed ? "out of memory"
                       : bad    ? "read error"
                                : "the file is empty");
    }
    *data = t.s;
    *size = t.len;
    return SG_OK;
}

/* ---- the files ------------------------------------------------------------------- */

/* The fields of symbolic form f: prefix "" or "steps_". */
static void form_json(const values_result *r, const values_form *f, const char *prefix, text *t)
{
    sg_bench_put(t, ",\n   \"%ssymbolic_spec\": ", prefix);
    put_string(t, f->spec);
    sg_bench_put(t, ", \"%svalues\": ", prefix);
    put_ints(t, f->values, (size_t)f->nvalues);
    sg_bench_put(t, ", \"%ssymbolic_s\": %.9g, \"%sratio\": %.4g", prefix, f->s, prefix, f->s / r->static_s);
    if (r->c->tiny)
        sg_bench_put(t, ", \"%soverhead_ns\": %.4g", prefix, (f->s - r->static_s) * 1e9);
    else
        sg_bench_put(t, ", \"%ssymbolic_threads_s\": %.9g, \"%sthreads_ratio\": %.4g", prefix, f->threads_s,
                     prefix, f->threads_s / r->static_threads_s);
}

/* A runtime-values figure: a case or the decode loop. */
static void values_json(const bench *b, const values_result *r, text *t)
{
    sg_bench_put(t, "  {\"case\": ");
    put_string(t, r->name);
    sg_bench_put(t, ", \"dtype\": \"%s\", \"shape\": ", sg_dtype_name(r->c ? r->c->dtype : SG_F16));
    put_ints(t, r->shape, r->rank);
    sg_bench_put(t, ", \"symbolic_shape\": ");
    put_ints(t, r->symbolic_shape, r->rank);
    sg_bench_put(t, ", \"spec\": ");
    put_string(t, r->spec);
    sg_bench_put(t, ",\n   \"bytes\": %" PRIu64 ", \"threads\": %d", r->bytes,
                 r->c && !r->c->tiny ? b->threads : 1);
    if (r->c == NULL) {
        sg_bench_put(
            t,
            ", \"t_first\": 1, \"t_last\": %d, \"steps\": %d, \"rounds\": %d,\n   \"dynamic_s\": %.9g, "
            "\"static_jit_s\": %.9g, \"compile_s\": %.9g, \"compiles\": %" PRIu64 ", \"memcpy_s\": %.9g}",
            b->t->decode_steps, b->t->decode_steps, r->rounds, r->dynamic_s, r->jit_s, r->compile_s,
            r->compiles, r->memcpy_s);
        return;
    }
    sg_bench_put(t, ", \"samples\": %d, \"static_s\": %.9g", r->samples, r->static_s);
    if (!r->c->tiny)
        sg_bench_put(t, ", \"static_threads_s\": %.9g", r->static_threads_s);
    sg_bench_put(t, ", \"static_compile_s\": %.9g, \"symbolic_compile_s\": %.9g", r->static_compile_s,
                 r->bounds.compile_s);
    form_json(r, &r->bounds, "", t);
    form_json(r, &r->steps, "steps_", t);
    sg_bench_put(t, "}");
}

static void json(const bench *b, text *t)
{
    sg_bench_put(t, "[");
    const char *sep = "\n";
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i], *strict = sg_bench_strict_baseline(b, r);
        sg_bench_put(t, "%s  {\"case\": ", sep);
        put_string(t, r->c->name);
        sg_bench_put(t, ", \"dtype\": \"%s\", \"shape\": ", sg_dtype_name(r->c->dtype));
        put_ints(t, r->shape, r->c->rank);
        sg_bench_put(t, ", \"output_shape\": ");
        put_ints(t, r->out_shape, r->out_rank);
        sg_bench_put(t, ", \"spec\": ");
        put_string(t, r->spec);
        sg_bench_put(
            t, ",\n   \"bytes\": %" PRIu64 ", \"input_bytes\": %" PRIu64 ", \"traffic_bytes\": %" PRIu64,
            r->bytes, r->in_bytes, r->traffic);
        if (b->o->cuda) {
            sg_bench_put(t, ", \"device\": \"cuda\", \"device_name\": ");
            put_string(t, b->device_name);
            sg_bench_put(t, ", \"compute_capability\": \"%d.%d\", \"gpu\": ", b->cc_major, b->cc_minor);
            put_string(t, b->gpu ? b->gpu : "");
            sg_bench_put(
                t,
                ",\n   \"kernel_s\": %.9g, \"memcpy_s\": %.9g, \"limit_s\": %.9g, \"codegen_s\": %.9g, "
                "\"ptx_load_s\": %.9g,\n   \"samples\": %d, \"grid\": %u, \"block\": %u",
                r->kernel_s, r->memcpy_s, r->limit_s, r->codegen_s, r->load_s, r->samples, r->grid, r->block);
        } else {
            sg_bench_put(t, ", \"device\": \"cpu\", \"threads\": %d,\n", b->threads);
            sg_bench_put(
                t,
                "   \"kernel_s\": %.9g, \"kernel_threads_s\": %.9g, \"memcpy_s\": %.9g, \"stream_s\": %.9g, "
                "\"limit_s\": %.9g, \"interp_s\": %.9g,\n   \"cached_s\": %.9g, \"streaming_s\": %.9g, "
                "\"auto_stores\": \"%s\", \"samples\": %d, \"interp_runs\": %d",
                r->kernel_s, r->threads_s, r->memcpy_s, r->stream_s, r->limit_s, r->interp_s, r->cached_s,
                r->streaming_s, r->auto_streams ? "streaming" : "cached", r->samples, r->interp_runs);
        }
        if (r->c->tiny)
            sg_bench_put(t, ", \"ns_per_call\": %.4g", r->kernel_s * 1e9);
        if (r->c->program)
            sg_bench_put(t, ", \"program\": true, \"parts\": %zu", r->nparts);
        if (r->nsteps > 0) {
            sg_bench_put(t, ",\n   \"separate\": [");
            for (int k = 0; k < r->nsteps; k++) {
                sg_bench_put(t, "%s{\"spec\": ", k ? ", " : "");
                put_string(t, r->step_spec[k]);
                sg_bench_put(t, ", \"output_shape\": ");
                put_ints(t, r->step_shape[k], r->step_rank[k]);
                sg_bench_put(t, "}");
            }
            sg_bench_put(t,
                         "],\n   \"separate_s\": %.9g, \"fused_s\": %.9g, \"separate_ratio\": %.4g, "
                         "\"separate_samples\": %d",
                         r->separate_s, r->fused_s, r->separate_s / r->fused_s, r->separate_samples);
        }
        if (strict != NULL)
            sg_bench_put(t, ", \"ratio_to_strict\": %.4g", r->kernel_s / strict->kernel_s);
        sg_bench_put(t, "}");
        sep = ",\n";
    }
    for (int i = 0; i < b->ncompiles; i++) {
        sg_bench_put(t, "%s  {\"case\": ", sep);
        put_string(t, b->compiles[i].name);
        sg_bench_put(t, ", \"seconds\": %.9g, \"samples\": %d}", b->compiles[i].seconds,
                     b->compiles[i].samples);
        sep = ",\n";
    }
    for (int i = 0; i < b->nvalues; i++) {
        sg_bench_put(t, "%s", sep);
        values_json(b, &b->values[i], t);
        sep = ",\n";
    }
    sg_bench_put(t, "\n]\n");
}

/* The chart: GB/s of output bytes per case on a log scale, bars for the
 * kernel, the traffic limit, memcpy, the streaming copy (CPU) and the
 * interpreter. */
static sg_status plot(bench *b, char **png, size_t *png_size, sg_error *err)
{
    char data[PATH_MAX], script[PATH_MAX], image[PATH_MAX];
    sg_status st = sg_bench_make_tmpdir(b, err);
    if (st != SG_OK)
        return st;
    sg_bench_tmp_path(b, data, "plot.dat");
    sg_bench_tmp_path(b, script, "plot.gp");
    sg_bench_tmp_path(b, image, "plot.png");
    text d = {0}, g = {0};
    int width = 300 + 75 * b->nresults < 960 ? 960 : 300 + 75 * b->nresults;
    for (int i = 0; i < b->nresults; i++) {
        const case_result *r = &b->results[i];
        double gb = (double)r->bytes / 1e9;
        sg_bench_put(&d, "\"%s\" %.6g %.6g %.6g %.6g %.6g\n", r->c->name, gb / r->kernel_s, gb / r->limit_s,
                     gb / r->memcpy_s, r->interp_s > 0 ? gb / r->interp_s : 0.0,
                     r->stream_s > 0 ? gb / r->stream_s : 0.0);
    }
    sg_bench_put(&g,
                 "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                 "  set terminal pngcairo size %d,720 noenhanced font ',10'\n"
                 "} else {\n"
                 "  set terminal png size %d,720 noenhanced\n"
                 "}\n",
                 width, width);
    sg_bench_put(&g, "set output '%s'\n", image);
    if (b->o->cuda) {
        sg_bench_put(&g, "set title \"slicegen bench --device cuda%s: GB/s of output bytes on ",
                     b->o->quick ? " --quick" : "");
        for (const char *c = b->device_name; *c; c++) /* a gnuplot string: no quotes or backslashes */
            sg_bench_put(&g, "%c", *c == '"' || *c == '\\' ? ' ' : *c);
        sg_bench_put(&g, " (log scale; higher is faster)\"\n");
    } else {
        sg_bench_put(
            &g,
            "set title 'slicegen bench%s: GB/s of output bytes, one thread (log scale; higher is faster)'\n",
            b->o->quick ? " --quick" : "");
    }
    sg_bench_put(&g, "set style data histograms\n"
                     "set style histogram clustered gap 1\n"
                     "set style fill solid 0.9 border -1\n"
                     "set boxwidth 0.9\n"
                     "set logscale y\n"
                     "set grid ytics\n"
                     "set ylabel 'GB/s'\n"
                     "set xtics rotate by -35 scale 0 nomirror\n"
                     "set key outside bottom center horizontal\n"
                     "set rmargin 10\n");
    if (b->o->cuda)
        sg_bench_put(&g,
                     "plot '%s' using 2:xtic(1) title 'CUDA kernel' lc rgb '#1f77b4', "
                     "'' using 3 title 'traffic limit' lc rgb '#2ca02c', "
                     "'' using 4 title 'device-to-device copy of the output bytes' lc rgb '#7f7f7f'\n",
                     data);
    else
        sg_bench_put(&g,
                     "plot '%s' using 2:xtic(1) title 'kernel' lc rgb '#1f77b4', "
                     "'' using 3 title 'traffic limit' lc rgb '#2ca02c', "
                     "'' using 4 title 'memcpy of the output bytes' lc rgb '#7f7f7f', "
                     "'' using 6 title 'streaming copy of the output bytes' lc rgb '#ff7f0e', "
                     "'' using 5 title 'reference interpreter' lc rgb '#d62728'\n",
                     data);
    if (d.failed || g.failed) {
        st = sg_fail(err, SG_ERR_NOMEM, "failed to plot: out of memory");
        goto done;
    }
    const void *dp = d.s, *gp = g.s;
    if ((st = sg_write_file_atomic(data, &dp, &d.len, 1, err)) != SG_OK ||
        (st = sg_write_file_atomic(script, &gp, &g.len, 1, err)) != SG_OK)
        goto done;
    char *argv[] = {b->gnuplot, script, NULL};
    if ((st = sg_bench_run_program(b, argv, "gnuplot.err", "failed to plot: gnuplot", err)) != SG_OK)
        goto done;
    st = read_file(image, png, png_size, err);
done:
    free(d.s);
    free(g.s);
    return st;
}

sg_status sg_bench_write_outputs(bench *b, sg_error *err)
{
    text t = {0};
    char *png = NULL;
    size_t png_size = 0;
    sg_staged_file staged[2] = {{0}, {0}};
    sg_status st = SG_OK;
    if (b->o->json_path != NULL) {
        json(b, &t);
        if (t.failed) {
            st = sg_fail(err, SG_ERR_NOMEM, "failed to write '%s': out of memory", b->o->json_path);
            goto done;
        }
    }
    if (b->o->plot_path != NULL) {
        sg_bench_progress(b, "plot");
        if ((st = plot(b, &png, &png_size, err)) != SG_OK)
            goto done;
    }
    const void *jp = t.s, *pp = png;
    if ((b->o->json_path &&
         (st = sg_file_stage(b->o->json_path, &jp, &t.len, 1, &staged[0], err)) != SG_OK) ||
        (b->o->plot_path &&
         (st = sg_file_stage(b->o->plot_path, &pp, &png_size, 1, &staged[1], err)) != SG_OK))
        goto done;
    st = sg_file_commit_all(staged, 2, err);
done:
    sg_file_discard(&staged[0]);
    sg_file_discard(&staged[1]);
    free(t.s);
    free(png);
    return st;
}

/* slicegen: the command-line program. Each subcommand reads as the pipeline
 * it runs: spec -> (input) -> plan -> engine -> output. Exit status 0 on
 * success, 2 for bad usage or input, 1 for anything else. This file holds
 * the options, `run`, `plan`, `ir` and `bench` (its options only: the
 * benchmark is bench/); aot.c holds `emit` and `aot`. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "cli.h"

/* Every element type's name, in sg_dtype's order: "bool i8 ... f64". */
static const char *dtype_names(void)
{
    static char names[16 * SG_DTYPE_COUNT];
    size_t n = 0;
    for (int t = 0; t < SG_DTYPE_COUNT; t++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", t ? " " : "", sg_dtype_name((sg_dtype)t));
    return names;
}

/* printf format: the element types' names (dtype_names) are its one %s. */
static const char usage_text[] =
    "usage: slicegen run   SPEC --in IN.npy --out OUT.npy [--engine jit|ref] [--threads N]\n"
    "                      [--device cpu|cuda] [--stores auto|cached|streaming] [--set NAME=VALUE ...]\n"
    "       slicegen plan  SPEC (--in IN.npy | --shape D0,D1,... --dtype T)\n"
    "       slicegen ir    SPEC (--in IN.npy | --shape D0,D1,... --dtype T) [-O0|-O1|-O2|-O3]\n"
    "       slicegen emit  SPEC (--in IN.npy | --shape D0,D1,... --dtype T) -o OUT [--header K.h]\n"
    "                      [--name SYMBOL] [--target TRIPLE] [--cpu CPU] [-O0|-O1|-O2|-O3]\n"
    "                      [--no-cf-protection] [--stores auto|cached|streaming]\n"
    "       slicegen aot   MODEL.xml|MODEL.onnx [--weights MODEL.bin] -o OUT [--header K.h] [--prefix P]\n"
    "                      [--fuse] [--target TRIPLE] [--cpu CPU] [-O0|-O1|-O2|-O3] [--no-cf-protection]\n"
    "                      [--stores auto|cached|streaming]\n"
    "       slicegen bench [--quick] [--threads N] [--json FILE] [--plot FILE.png] [--case TEXT]\n"
    "                      [--device cpu|cuda]\n"
    "       slicegen --help | --version\n"
    "\n"
    "SPEC is one of:\n"
    "  '[1:, ..., ::-1, None, 0]'   a NumPy index expression (one argument; 'x[...]' also works)\n"
    "  --op StridedSlice --begin L --end L [--stride L] [--begin-mask B] [--end-mask B]\n"
    "       [--new-axis-mask B] [--shrink-axis-mask B] [--ellipsis-mask B]\n"
    "  --op Slice --start L --stop L [--step L] [--axes L]\n"
    "  --op TrtSlice --start L --size L [--stride L] [--mode strict|wrap|clamp|fill|reflect]\n"
    "       [--fill VALUE]\n"
    "  --op OnnxSlice --start L --stop L [--step L] [--axes L]   (ONNX Runtime's Slice)\n"
    "  --op Pad --pads-begin L --pads-end L [--axes L] [--mode constant|edge|reflect|wrap]\n"
    "       [--value VALUE]   (ONNX Pad; negative pads crop)\n"
    "  --op Split --split L|--parts N|--chunks N [--axis A] --output K   (output K of ONNX Split)\n"
    "L is a comma-separated list of 64-bit integers, B a list of 0s and 1s; either may be ''.\n"
    "A name in L, in --fill or --value, or in an expression ('[:, :t]', --end 0,t, --fill c) is a\n"
    "value given at run time (run --set t=5), and '?' in --shape a dimension known only at run time.\n"
    "Element types T: %s.\n"
    "\n"
    "Run 'slicegen COMMAND --help' for one command. Exit status: 0 success, 2 bad usage,\n"
    "spec or input, 1 other failures.\n";

static const char run_help[] =
    "usage: slicegen run SPEC --in IN.npy --out OUT.npy [--engine jit|ref] [--threads N]\n"
    "                    [--device cpu|cuda] [--stores auto|cached|streaming] [--set NAME=VALUE ...]\n"
    "\n"
    "Slices IN.npy and writes the result to OUT.npy, whole or not at all: to\n"
    "OUT.npy.slicegen-tmp-XXXXXX first, renamed once complete, removed if the run\n"
    "fails or is interrupted (only SIGKILL leaves it behind).\n"
    "  --in FILE      input array (.npy 1.0-3.0, little-endian, C order); from 1 MiB\n"
    "                 on it is mapped, not read, so it may be larger than memory\n"
    "  --out FILE     output array; its folder must exist; it may be the input\n"
    "  --engine jit   a kernel compiled for this slice with LLVM (the default)\n"
    "  --engine ref   the reference interpreter (--device cpu only)\n"
    "  --threads N    split the kernel's outer range over N threads (default 1; jit\n"
    "                 on the CPU only)\n"
    "  --device cpu   run on this machine's CPU (the default)\n"
    "  --device cuda  run on CUDA device 0: the kernel is compiled to PTX for its\n"
    "                 compute capability, the input copied to the device and the\n"
    "                 output back (needs the NVIDIA driver, libcuda.so.1)\n"
    "  --stores auto|cached|streaming  the kernel's stores, as for emit (jit on the\n"
    "                 CPU only; auto, the default, streams above the output size this\n"
    "                 machine was measured to gain from it, and a pad's short rows where\n"
    "                 it gains by them too)\n"
    "  --set NAME=VALUE  the value of a name the spec uses for a number ('[:t]',\n"
    "                 --end 0,t; --fill v: a value of the element type, 1.5): one --set\n"
    "                 per name; the kernel is compiled once for every value (see\n"
    "                 docs/runtime-values.md; on the CPU and with --device cuda)\n"
    "\n"
    "example: slicegen run '[::-1, 1:]' --in a.npy --out b.npy\n"
    "         slicegen run '[:, :, :t]' --in cache.npy --out past.npy --set t=17\n"
    "         slicegen run --op TrtSlice --start -1,0 --size 4,3 --mode reflect --in a.npy --out b.npy\n"
    "         slicegen run '[:, ::2]' --in a.npy --out b.npy --device cuda\n";

static const char plan_help[] =
    "usage: slicegen plan SPEC (--in IN.npy | --shape D0,D1,... --dtype T)\n"
    "\n"
    "Prints the plan: output shape, the per-dimension index map and the folded loop\n"
    "nest (see docs/plan-format.md). The input shape and type come from IN.npy's\n"
    "header, or from --shape (comma-separated; '' for rank 0; ? for a size known\n"
    "only at run time) and --dtype. With runtime values or dimensions the plan shows\n"
    "the expressions its kernel computes per call (docs/runtime-values.md).\n"
    "\n"
    "example: slicegen plan --op Slice --start 1 --stop 8 --step 2 --shape 10 --dtype f32\n";

static const char ir_help[] =
    "usage: slicegen ir SPEC (--in IN.npy | --shape D0,D1,... --dtype T) [-O0|-O1|-O2|-O3]\n"
    "\n"
    "Prints the LLVM IR of the kernel generated for the slice: before any pass at\n"
    "-O0, after the pass pipeline at -O1 to -O3 (default -O2). The kernel's\n"
    "signature is void(const void *in, void *out, int64_t begin, int64_t end).\n"
    "\n"
    "example: slicegen ir '[:, ::2]' --shape 64,64 --dtype f32 -O0\n";

static const char bench_help[] =
    "usage: slicegen bench [--quick] [--threads N] [--json FILE] [--plot FILE.png] [--case TEXT]\n"
    "                      [--device cpu|cuda]\n"
    "\n"
    "Times a suite of slices (contiguous, strided, reversed, images, f16, a tiny one,\n"
    "the TensorRT modes, small ones in cache): the generated kernel on 1 and on N\n"
    "threads, memcpy of the same output bytes, and the reference interpreter; then\n"
    "compile latency. One line per case on stdout, with the median time of the\n"
    "kernel, its GB/s of output, its time over the traffic limit (memcpy's speed\n"
    "for the input cache lines the slice reads plus its output) and over memcpy,\n"
    "its N-thread time and speed-up, and the interpreter's time over the kernel's.\n"
    "Last, runtime values: each case as one kernel for every shape and index,\n"
    "against its static kernel; the cost of preparing a call; and a decode loop\n"
    "over a KV cache (one kernel for every length, a kernel compiled per length,\n"
    "memcpy).\n"
    "With --device cuda: the same cases (the large ones on inputs of 64 MiB or\n"
    "more) as CUDA kernels on device 0, timed with CUDA events against a\n"
    "device-to-device copy of the output bytes, with the time to generate the PTX\n"
    "and the driver's time to load it.\n"
    "  --quick        smaller inputs and fewer runs: a few seconds in all\n"
    "  --threads N    the N of the N-thread runs (default: every online core; cpu only)\n"
    "  --json FILE    also write every figure as a JSON array (see docs/bench.md)\n"
    "  --plot FILE    also draw a PNG bar chart of GB/s per case (needs gnuplot)\n"
    "  --case TEXT    only the cases whose name contains TEXT (\"compile\" for compile\n"
    "                 latency alone, \"values\" for runtime values; a TEXT that\n"
    "                 matches none lists them); the DRAM-sized cases (192-272 MiB\n"
    "                 outputs) run only when TEXT names them: \"dram\"\n"
    "  --device cpu   time the kernels on this machine's CPU (the default)\n"
    "  --device cuda  time them on CUDA device 0 (needs the NVIDIA driver)\n"
    "FILE and FILE.png are written whole or not at all, once every case is measured.\n"
    "\n"
    "example: slicegen bench --quick --case trt --json trt.json\n";

int exit_status(sg_status status)
{
    return status == SG_ERR_NOMEM || status == SG_ERR_INTERNAL ? 1 : 2;
}

int failed(sg_context *ctx, sg_status status)
{
    fprintf(stderr, "slicegen: error: %s\n", sg_context_last_error(ctx));
    return exit_status(status);
}

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("slicegen: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see 'slicegen --help')\n", stderr);
    va_end(ap);
    return 2;
}

/* Splits argv into our options (those in `allowed`) and SPEC words.
 * Returns -1 to go on, or an exit status (0 after --help). */
static int parse_options(int argc, char **argv, const char *command, unsigned allowed,
                         const char *help, options *o)
{
    /* In the order of the OPT_ bits. */
    static const char *const names[] = {"--in",     "--out", "--engine", "--threads", "--shape",
                                        "--dtype",  "-o",    "--header", "--name",    "--target",
                                        "--cpu",    "--weights", "--prefix", "--json", "--plot",
                                        "--case",   "--device", "--stores"};
    const char **slots[] = {&o->in,     &o->out,    &o->engine, &o->threads, &o->shape,
                            &o->dtype,  &o->output, &o->header, &o->name,    &o->target,
                            &o->cpu,    &o->weights, &o->prefix, &o->json, &o->plot,
                            &o->case_text, &o->device, &o->stores};
    enum { NOPTIONS = sizeof names / sizeof names[0] };
    o->spec = calloc((size_t)argc + 1, sizeof *o->spec);
    o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
    if (o->spec == NULL || o->sets == NULL) {
        fputs("slicegen: error: out of memory\n", stderr);
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            return 0;
        }
        if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && a[3] == '\0') {
            if (!(allowed & OPT_LEVEL))
                return usage_error("%s is not an option of 'slicegen %s'", a, command);
            o->opt_level = a[2] - '0';
            continue;
        }
        if (strcmp(a, "--quick") == 0 || strcmp(a, "--no-cf-protection") == 0) {
            bool quick = a[2] == 'q';
            if (!(allowed & (quick ? OPT_QUICK : OPT_NO_CF)))
                return usage_error("%s is not an option of 'slicegen %s'", a, command);
            *(quick ? &o->quick : &o->no_cf_protection) = true;
            continue;
        }
        if (strcmp(a, "--fuse") == 0) {
            if (!(allowed & OPT_FUSE))
                return usage_error("%s is not an option of 'slicegen %s'", a, command);
            o->fuse = true;
            continue;
        }
        if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) { /* may repeat */
            if (!(allowed & OPT_SET))
                return usage_error("--set is not an option of 'slicegen %s'", command);
            if (a[5] == '\0' && i + 1 >= argc)
                return usage_error("option '--set' needs a value");
            o->sets[o->nsets++] = a[5] == '=' ? a + 6 : argv[++i];
            continue;
        }
        int k = -1;
        for (int j = 0; j < NOPTIONS; j++)
            if (strcmp(a, names[j]) == 0)
                k = j;
        if (k < 0 && a[0] == '-' && a[1] != '-' && a[1] != '\0')
            return usage_error("unknown option '%s'", a);
        if (k < 0) { /* a SPEC word, or a SPEC option with its value */
            o->spec[o->nspec++] = argv[i];
            if (strncmp(a, "--", 2) == 0 && strchr(a, '=') == NULL && i + 1 < argc)
                o->spec[o->nspec++] = argv[++i];
            continue;
        }
        if (!(allowed & (1u << k)))
            return usage_error("%s is not an option of 'slicegen %s'", a, command);
        if (i + 1 >= argc)
            return usage_error("option '%s' needs a value", a);
        if (*slots[k] != NULL)
            return usage_error("option '%s' given twice", a);
        *slots[k] = argv[++i];
    }
    return -1;
}


/* "--threads N": 1 to 1024. Returns -1 on success, else an exit status. */
static int parse_threads(const char *text, int *threads)
{
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (*end != '\0' || end == text || errno == ERANGE || n < 1 || n > 1024)
        return usage_error("bad --threads '%s': expected a number from 1 to 1024", text);
    *threads = (int)n;
    return -1;
}

/* "--device cpu|cuda" (NULL: cpu). Returns -1 on success, else an exit status. */
static int parse_device(const char *text, bool *cuda)
{
    *cuda = text != NULL && strcmp(text, "cuda") == 0;
    if (text != NULL && !*cuda && strcmp(text, "cpu") != 0)
        return usage_error("unknown --device '%s' (expected cpu or cuda)", text);
    return -1;
}

int parse_stores(const char *text, sg_stores *stores)
{
    *stores = SG_STORES_AUTO;
    if (text == NULL || sg_stores_parse(text, stores))
        return -1;
    char names[96] = "";
    size_t n = 0;
    for (int k = 0; sg_stores_name((sg_stores)k) != NULL; k++) /* "auto, cached or streaming" */
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                              k == 0                               ? ""
                              : sg_stores_name((sg_stores)(k + 1)) ? ", "
                                                                   : " or ",
                              sg_stores_name((sg_stores)k));
    return usage_error("unknown --stores '%s' (expected %s)", text, names);
}

/* "--shape 2,3,4" ('' for rank 0). Returns -1 on success, else an exit status. */
int parse_shape(const char *text, int64_t *shape, size_t *rank)
{
    *rank = 0;
    const char *p = text;
    if (*p == '\0')
        return -1;
    size_t dims = 1;
    for (const char *q = text; *q; q++)
        dims += *q == ',';
    if (dims > SG_MAX_RANK)
        return usage_error("bad --shape: input rank %zu exceeds the limit of %d", dims, SG_MAX_RANK);
    for (;;) {
        char *end;
        errno = 0;
        long long v = *p == '?' ? -1 : strtoll(p, &end, 10);
        if (*p == '?')
            end = (char *)p + 1;
        if (end == p || errno == ERANGE || (v < 0 && *p != '?') || (*end != ',' && *end != '\0'))
            return usage_error("bad --shape '%s': expected comma-separated sizes >= 0, or ? for a size known "
                               "only at run time",
                               text);
        shape[(*rank)++] = v;
        if (*end == '\0')
            return -1;
        p = end + 1;
    }
}

/* The input's shape and type: from --in (its header, or the whole file when
 * `data`) or from --shape and --dtype. Returns -1 on success, else an exit
 * status. */
int input_description(sg_context *ctx, const options *o, bool data, sg_tensor *input)
{
    sg_status st;
    if (o->in != NULL) {
        if (o->shape || o->dtype)
            return usage_error("give either --in or --shape with --dtype, not both");
        st = data ? sg_npy_read(ctx, o->in, input) : sg_npy_read_header(ctx, o->in, input);
        return st == SG_OK ? -1 : failed(ctx, st);
    }
    if (!o->shape || !o->dtype)
        return usage_error("the input needs --in IN.npy, or --shape and --dtype");
    if (!sg_dtype_parse(o->dtype, &input->dtype))
        return usage_error("unknown --dtype '%s' (expected %s)", o->dtype, dtype_names());
    return parse_shape(o->shape, input->shape, &input->rank);
}

/* Spec and plan for `plan` and `ir`; returns -1 on success, else an exit status. */
int make_plan(sg_context *ctx, const options *o, sg_spec **spec, sg_plan **plan)
{
    sg_tensor input = {0};
    sg_status st;
    int rc = input_description(ctx, o, false, &input);
    if (rc < 0 && ((st = sg_spec_from_words(ctx, o->nspec, o->spec, spec)) != SG_OK ||
                   (st = sg_plan_create(ctx, *spec, input.rank, input.shape, input.dtype, plan)) != SG_OK))
        rc = failed(ctx, st);
    sg_tensor_destroy(&input);
    return rc;
}

static int cmd_plan(sg_context *ctx, const options *o)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    int rc = make_plan(ctx, o, &spec, &plan);
    if (rc < 0) {
        sg_plan_print(plan, stdout);
        rc = 0;
    }
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return rc;
}

static int cmd_ir(sg_context *ctx, const options *o)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    char *text = NULL;
    sg_status st;
    int rc = make_plan(ctx, o, &spec, &plan);
    if (rc < 0) {
        sg_compile_options options;
        sg_compile_options_init(&options);
        if (o->opt_level >= 0)
            options.opt_level = o->opt_level;
        if ((st = sg_kernel_ir_with(ctx, plan, &options, &text)) != SG_OK) {
            rc = failed(ctx, st);
        } else {
            fputs(text, stdout);
            rc = 0;
        }
    }
    sg_free(text);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return rc;
}

/* A mapped input is read by the kernel's page faults, and the system reads
 * ahead around each (megabytes on some disks). A slice that uses less than
 * one byte per page of its input on average skips most pages, and read-ahead
 * would bring in the whole file: read it page by page instead. */
static void advise_input(const sg_tensor *input, const sg_plan *plan)
{
    if (input->map != NULL && sg_plan_output_bytes(plan) < input->bytes / 4096)
        posix_madvise(input->map, input->map_bytes, POSIX_MADV_RANDOM);
}

/* The values of plan's names from the --set options, in the plan's order
 * (SG_MAX_VALUES at most): integers, and for a fill value an element of
 * the plan's type, passed on as its bits. Returns -1 on success, else an
 * exit status. */
static int parse_sets(sg_context *ctx, const options *o, const sg_plan *plan, int64_t *values)
{
    size_t n = sg_plan_value_count(plan);
    bool given[SG_MAX_VALUES] = {false};
    for (int i = 0; i < o->nsets; i++) {
        const char *eq = strchr(o->sets[i], '=');
        size_t len = eq ? (size_t)(eq - o->sets[i]) : 0, k = 0;
        if (eq == NULL || len == 0)
            return usage_error("bad --set '%s': expected NAME=VALUE", o->sets[i]);
        while (k < n && !(strlen(sg_plan_value_name(plan, k)) == len &&
                          strncmp(sg_plan_value_name(plan, k), o->sets[i], len) == 0))
            k++;
        if (k == n)
            return usage_error("--set names '%.*s', which the spec does not use%s", (int)len, o->sets[i],
                               n ? "" : " (it names no runtime values)");
        if (given[k])
            return usage_error("--set gives '%.*s' twice", (int)len, o->sets[i]);
        given[k] = true;
        if (sg_plan_value_is_fill(plan, k)) {
            sg_scalar fill;
            sg_status st;
            if ((st = sg_scalar_parse(ctx, eq + 1, &fill)) != SG_OK ||
                (st = sg_fill_bits(ctx, &fill, sg_plan_dtype(plan), &values[k])) != SG_OK)
                return failed(ctx, st);
            continue;
        }
        char *end;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        if (end == eq + 1 || *end != '\0' || errno == ERANGE)
            return usage_error("bad --set '%s': the value must be a 64-bit integer", o->sets[i]);
        values[k] = v;
    }
    for (size_t k = 0; k < n; k++)
        if (!given[k])
            return usage_error("the spec's runtime value '%s' needs --set %s=VALUE", sg_plan_value_name(plan, k),
                               sg_plan_value_name(plan, k));
    return -1;
}

static int cmd_run(sg_context *ctx, const options *o)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    sg_kernel *kernel = NULL;
    sg_cuda_kernel *cuda_kernel = NULL;
    sg_tensor input = {0}, output = {0};
    sg_args args;
    sg_status st;
    int rc = 2;
    if (!o->in || !o->out)
        return usage_error("'slicegen run' needs --in IN.npy and --out OUT.npy");
    bool jit = o->engine == NULL || strcmp(o->engine, "jit") == 0;
    if (!jit && strcmp(o->engine, "ref") != 0)
        return usage_error("unknown --engine '%s' (expected jit or ref)", o->engine);
    bool cuda;
    if ((rc = parse_device(o->device, &cuda)) >= 0)
        return rc;
    if (cuda && !jit)
        return usage_error("--engine ref runs on the CPU: it cannot be combined with --device cuda");
    if (cuda && o->threads)
        return usage_error("--threads splits a CPU kernel: it cannot be combined with --device cuda");
    int threads = 1;
    if (o->threads && (rc = parse_threads(o->threads, &threads)) >= 0)
        return rc;
    sg_compile_options options; /* the JIT's: --stores */
    sg_compile_options_init(&options);
    if ((rc = parse_stores(o->stores, &options.stores)) >= 0)
        return rc;
    if (o->stores && (cuda || !jit))
        return usage_error("--stores is for kernels compiled for the CPU: it cannot be combined with %s",
                           cuda ? "--device cuda" : "--engine ref");
    if ((st = sg_spec_from_words(ctx, o->nspec, o->spec, &spec)) != SG_OK)
        goto report;
    if ((rc = input_description(ctx, o, true, &input)) >= 0)
        goto done;
    watch_input(o->in, &input);
    if ((st = sg_plan_create(ctx, spec, input.rank, input.shape, input.dtype, &plan)) != SG_OK)
        goto report;
    int64_t values[SG_MAX_VALUES];
    if ((rc = parse_sets(ctx, o, plan, values)) >= 0)
        goto done;
    bool prepared = false; /* args hold the call of a kernel of runtime values */
    if (sg_plan_is_symbolic(plan) && cuda) { /* one CUDA kernel for every value, prepared on the host */
        if ((st = sg_cuda_kernel_compile_with(ctx, plan, NULL, &cuda_kernel)) != SG_OK ||
            (st = sg_cuda_kernel_prepare(ctx, cuda_kernel, input.shape, values, &args)) != SG_OK)
            goto report;
        prepared = true;
    } else if (sg_plan_is_symbolic(plan) && jit) { /* one kernel for every value */
        if ((st = sg_kernel_compile_with(ctx, plan, &options, &kernel)) != SG_OK ||
            (st = sg_kernel_prepare(ctx, kernel, input.shape, values, &args)) != SG_OK)
            goto report;
        prepared = true;
    } else if (sg_plan_is_symbolic(plan)) { /* the reference runs the spec with the numbers written in */
        sg_plan *bound = NULL;
        if ((st = sg_plan_specialize(ctx, plan, input.shape, values, &bound)) != SG_OK)
            goto report;
        sg_plan_destroy(plan);
        plan = bound;
    }
    advise_input(&input, plan);
    output.dtype = input.dtype;
    output.rank = sg_plan_output_rank(plan);
    memcpy(output.shape, prepared ? args.out_shape : sg_plan_output_shape(plan),
           output.rank * sizeof *output.shape);
    output.bytes = prepared ? (uint64_t)args.output_bytes : sg_plan_output_bytes(plan);
    output.data = malloc(output.bytes ? output.bytes : 1);
    if (output.data == NULL) {
        fprintf(stderr, "slicegen: error: out of memory for a %llu-byte output\n",
                (unsigned long long)output.bytes);
        rc = 1;
        goto done;
    }
    if (cuda && prepared) {
        if ((st = sg_cuda_run_values(ctx, cuda_kernel, input.data, input.shape, values, output.data)) != SG_OK)
            goto report;
    } else if (cuda) {
        if ((st = sg_cuda_kernel_compile_with(ctx, plan, NULL, &cuda_kernel)) != SG_OK ||
            (st = sg_cuda_run(ctx, cuda_kernel, input.data, output.data)) != SG_OK)
            goto report;
    } else if (kernel) {
        if ((st = sg_kernel_run_args(ctx, kernel, input.data, output.data, &args, threads)) != SG_OK)
            goto report;
    } else if (jit) {
        if ((st = sg_kernel_compile_with(ctx, plan, &options, &kernel)) != SG_OK ||
            (st = sg_kernel_run(ctx, kernel, input.data, output.data, threads)) != SG_OK)
            goto report;
    } else if ((st = sg_run_reference(ctx, plan, input.data, output.data)) != SG_OK) {
        goto report;
    }
    if ((st = sg_npy_write(ctx, o->out, &output)) != SG_OK)
        goto report;
    rc = 0;
    goto done;
report:
    rc = failed(ctx, st);
done:
    unwatch_input();
    sg_tensor_destroy(&output);
    sg_tensor_destroy(&input);
    sg_kernel_destroy(kernel);
    sg_cuda_kernel_destroy(cuda_kernel);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return rc;
}

/* The options of `slicegen bench`; the benchmark itself is sg_bench_run. */
static int cmd_bench(sg_context *ctx, const options *o)
{
    (void)ctx; /* the benchmark makes its own contexts */
    if (o->nspec > 0)
        return o->spec[0][0] == '-' ? usage_error("unknown option '%s'", o->spec[0])
                                    : usage_error("unexpected argument '%s'", o->spec[0]);
    int threads = 0, rc;
    if (o->threads && (rc = parse_threads(o->threads, &threads)) >= 0)
        return rc;
    bool cuda;
    if ((rc = parse_device(o->device, &cuda)) >= 0)
        return rc;
    if (cuda && o->threads)
        return usage_error("--threads is for CPU kernels: it cannot be combined with --device cuda");
    sg_bench_options b = {
        .quick = o->quick,
        .cuda = cuda,
        .threads = threads,
        .filter = o->case_text,
        .json_path = o->json,
        .plot_path = o->plot,
        .out = stdout,
        .progress = isatty(STDERR_FILENO) ? stderr : NULL,
    };
    sg_error err = {SG_OK, ""};
    sg_status st = sg_bench_run(&b, &err);
    if (st == SG_OK)
        return 0;
    fprintf(stderr, "slicegen: error: %s\n", err.message);
    return exit_status(st);
}

int main(int argc, char **argv)
{
    sg_llvm_exit_on_fatal_error(); /* one line and exit 1, never a core dump */
    if (argc < 2) {
        fputs("slicegen: error: no command given (see 'slicegen --help')\n", stderr);
        return 2;
    }
    install_signal_handlers();
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
        printf(usage_text, dtype_names());
        return 0;
    }
    if (strcmp(command, "--version") == 0) {
        printf("slicegen %s (LLVM %s)\n", SG_VERSION_STRING, sg_llvm_version());
        return 0;
    }
    static const struct {
        const char *name;
        unsigned allowed;
        const char *help;
        int (*run)(sg_context *, const options *);
    } commands[] = {
        {"run", OPT_IN | OPT_OUT | OPT_ENGINE | OPT_THREADS | OPT_DEVICE | OPT_STORES | OPT_SET, run_help, cmd_run},
        {"plan", OPT_IN | OPT_SHAPE | OPT_DTYPE, plan_help, cmd_plan},
        {"ir", OPT_IN | OPT_SHAPE | OPT_DTYPE | OPT_LEVEL, ir_help, cmd_ir},
        {"emit",
         OPT_IN | OPT_SHAPE | OPT_DTYPE | OPT_LEVEL | OPT_OUTPUT | OPT_HEADER | OPT_NAME | OPT_TARGET |
             OPT_CPU | OPT_NO_CF | OPT_STORES,
         emit_help, cmd_emit},
        {"aot",
         OPT_LEVEL | OPT_OUTPUT | OPT_HEADER | OPT_TARGET | OPT_CPU | OPT_WEIGHTS | OPT_PREFIX | OPT_NO_CF |
             OPT_STORES | OPT_FUSE,
         aot_help, cmd_aot},
        {"bench", OPT_QUICK | OPT_THREADS | OPT_JSON | OPT_PLOT | OPT_CASE | OPT_DEVICE, bench_help, cmd_bench},
    };
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (strcmp(command, commands[c].name) != 0)
            continue;
        options o = {.opt_level = -1, .argc = argc, .argv = argv};
        sg_context *ctx = NULL;
        int rc = parse_options(argc - 2, argv + 2, command, commands[c].allowed, commands[c].help, &o);
        if (rc < 0 && sg_context_create(&ctx) != SG_OK) {
            fputs("slicegen: error: out of memory\n", stderr);
            rc = 1;
        }
        if (rc < 0)
            rc = commands[c].run(ctx, &o);
        sg_context_destroy(ctx);
        free(o.spec);
        free(o.sets);
        return rc;
    }
    return usage_error("unknown command '%s'", command);
}

/* `slicegen emit` (one slice) and `slicegen aot` (every slice layer of an
 * OpenVINO or ONNX model): ahead-of-time output through sg_aot_write_with. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char emit_help[] =
    "usage: slicegen emit SPEC (--in IN.npy | --shape D0,D1,... --dtype T) -o OUT [--header K.h]\n"
    "                     [--name SYMBOL] [--target TRIPLE] [--cpu CPU] [-O0|-O1|-O2|-O3]\n"
    "                     [--no-cf-protection] [--stores auto|cached|streaming]\n"
    "\n"
    "Compiles the kernel for one slice ahead of time. The extension of OUT picks\n"
    "what is written: .o object file, .a static archive, .s assembly, .ll LLVM IR,\n"
    "and for --target nvptx64-nvidia-cuda .ptx, a CUDA kernel's PTX.\n"
    "  -o OUT          the output file (written whole or not at all)\n"
    "  --header K.h    also write a C/C++ header declaring the kernel, its sizes\n"
    "                  (NAME_OUTER_EXTENT, NAME_STEP_BYTES, NAME_INPUT_BYTES,\n"
    "                  NAME_OUTPUT_BYTES: int64_t constants) and its description\n"
    "                  NAME_info; for PTX the entry's name and launch\n"
    "                  (NAME_ENTRY, NAME_GRID_X, NAME_BLOCK_X) and the sizes\n"
    "  --name SYMBOL   the kernel's symbol, a C identifier (default: derived from\n"
    "                  the kernel, sg_x<element size>_l<loops>_r<run bytes>_<hash of\n"
    "                  its spec, shapes, type, target, CPU and optimization level>)\n"
    "  --target TRIPLE an LLVM target triple, e.g. aarch64-linux-gnu,\n"
    "                  riscv64-linux-gnu or nvptx64-nvidia-cuda (default: this machine)\n"
    "  --cpu CPU       a CPU of that target, whose features the code may use\n"
    "                  (default: the target's baseline, which every CPU of it runs:\n"
    "                  x86-64 for x86_64, sm_75 for nvptx64, generic for most\n"
    "                  others); native: this machine's CPU with all its features\n"
    "  -O0..-O3        optimization level (default -O2)\n"
    "  --no-cf-protection  no CET (x86: endbr, IBT and SHSTK notes) or BTI and PAC\n"
    "                  (AArch64) in the object, which it has by default\n"
    "  --stores auto|cached|streaming  how the kernel writes its output: streaming\n"
    "                  (non-temporal) stores (x86: every piece of 4 bytes or more;\n"
    "                  elsewhere runs of two vectors or more), ending\n"
    "                  with a store fence; cached: ordinary stores; auto (the\n"
    "                  default): streaming for an output of more than half the\n"
    "                  last-level cache (this machine's with --cpu native, else\n"
    "                  32 MiB; the environment's SLICEGEN_STREAM_THRESHOLD bytes\n"
    "                  when set) whose rows are long pieces (on x86 every piece\n"
    "                  streams whole: all but programs' and odd u8/f16 pieces);\n"
    "                  rows of short pieces (a NumPy pad's; any pad off x86) stay\n"
    "                  cached unless SLICEGEN_STREAM_SHORT_ROWS=1\n"
    "Objects are position-independent. The kernel is\n"
    "  void NAME(const void *in, void *out, int64_t begin, int64_t end);\n"
    "and NAME(in, out, 0, NAME_OUTER_EXTENT) runs the whole slice. A CUDA kernel is\n"
    "  NAME(const void *in, void *out)   (16-byte aligned device pointers)\n"
    "launched as NAME_GRID_X blocks of NAME_BLOCK_X threads (the header shows how).\n"
    "\n"
    "example: slicegen emit '[:, ::-1]' --shape 480,640,3 --dtype u8 -o mirror.o --header mirror.h \\\n"
    "             --name mirror --target aarch64-linux-gnu\n"
    "         slicegen emit '[:, ::2]' --shape 4096,4096 --dtype f32 -o half.ptx --header half.h \\\n"
    "             --name half --target nvptx64-nvidia-cuda --cpu sm_80\n";

const char aot_help[] =
    "usage: slicegen aot MODEL.xml|MODEL.onnx [--weights MODEL.bin] -o OUT [--header K.h]\n"
    "                    [--prefix P] [--fuse] [--target TRIPLE] [--cpu CPU] [-O0|-O1|-O2|-O3]\n"
    "                    [--no-cf-protection] [--stores auto|cached|streaming]\n"
    "\n"
    "Compiles every slice of a model into one output file, as `slicegen emit` does\n"
    "for one slice: the StridedSlice-1, Slice-8, Pad-1/12, Gather-1/7/8 of one\n"
    "constant index, Split-1 and VariadicSplit-1 layers of an OpenVINO IR v10 or\n"
    "v11 model, or the Slice, Pad, Split and Gather (one constant index) nodes of\n"
    "an ONNX model (MODEL.onnx; docs/onnx.md). A Split gives one kernel per output.\n"
    "  --weights FILE  the OpenVINO model's weights (default: MODEL.xml with .bin);\n"
    "                  not for ONNX models, which hold their initializers\n"
    "  -o OUT          .o, .a, .s, .ll or (nvptx64) .ptx, as for emit\n"
    "  --header K.h    the C/C++ header: every kernel, and the table\n"
    "                  P_kernels[P_kernel_count] of their descriptions in model order\n"
    "  --prefix P      kernel names are P_<layer name, each run of characters other\n"
    "                  than A-Z a-z 0-9 made one _>, and P_<layer>_out<k> for output\n"
    "                  k of a node with several (Split) (default: the model's file\n"
    "                  name without extension, as an identifier: model.xml gives model)\n"
    "  --fuse          one kernel for each chain of slice layers whose intermediate\n"
    "                  results nothing else reads, and for each Concat of such\n"
    "                  layers or chains of one tensor, named after the last layer\n"
    "                  (the Concat); NAME_info.fused_layers lists what it replaces\n"
    "                  (docs/programs.md)\n"
    "  --target, --cpu, -O0..-O3, --no-cf-protection, --stores  as for emit\n"
    "A layer whose data input has dynamic dimensions, or whose begin, end and\n"
    "stride (start, stop, step; ONNX starts, ends, steps, pads) come from other\n"
    "layers than constants, compiles into a kernel with runtime values\n"
    "(NAME_prepare; its values the elements of those inputs, input by input). A\n"
    "layer that cannot be compiled (an index input of dynamic length, an\n"
    "unsupported element type, an invalid slice; for GPUs, runtime values) is\n"
    "skipped with a line on stderr saying why; the others are compiled.\n"
    "\n"
    "example: slicegen aot model.xml -o slices.o --header slices.h --prefix net\n"
    "         slicegen aot model.onnx -o slices.o --header slices.h\n";

/* ---- text ------------------------------------------------------------------------- */

/* Appends s to a growing string (*buf, *len); false when out of memory. */
static bool append(char **buf, size_t *len, const char *s, size_t n)
{
    char *b = realloc(*buf, *len + n + 1);
    if (b == NULL)
        return false;
    memcpy(b + *len, s, n);
    *len += n;
    b[*len] = '\0';
    *buf = b;
    return true;
}

/* The words as a shell would need them typed: words of plain characters as
 * they are, others in single quotes. NULL when out of memory. */
static char *shell_words(int count, char *const *words)
{
    char *buf = NULL;
    size_t len = 0;
    if (!append(&buf, &len, "", 0))
        return NULL;
    for (int i = 0; i < count; i++) {
        const char *w = words[i];
        bool plain = w[0] != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                               "0123456789_-+=.,:/@%") == strlen(w);
        bool ok = i == 0 || append(&buf, &len, " ", 1);
        if (plain) {
            ok = ok && append(&buf, &len, w, strlen(w));
        } else {
            ok = ok && append(&buf, &len, "'", 1);
            for (const char *p = w; ok && *p; p++)
                ok = *p == '\'' ? append(&buf, &len, "'\\''", 4) : append(&buf, &len, p, 1);
            ok = ok && append(&buf, &len, "'", 1);
        }
        if (!ok) {
            free(buf);
            return NULL;
        }
    }
    return buf;
}

/* The command line as typed, "slicegen emit ..."; NULL when out of memory. */
static char *command_line(const options *o)
{
    char *words = shell_words(o->argc - 1, o->argv + 1);
    char *line = words ? malloc(strlen(words) + sizeof "slicegen ") : NULL;
    if (line)
        strcat(strcpy(line, "slicegen "), words);
    free(words);
    return line;
}

/* Text from a model on one line: control characters as \xNN. */
static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

static int out_of_memory(void)
{
    fputs("slicegen: error: out of memory\n", stderr);
    return 1;
}

/* ---- emit --------------------------------------------------------------------------- */

static int need_output(const options *o, const char *command)
{
    if (o->output == NULL)
        return usage_error("'slicegen %s' needs -o OUT (.o, .a, .s, .ll or .ptx)", command);
    return -1;
}

/* The compile options of emit and aot: --target, --cpu, -O and
 * --no-cf-protection (--stores is the caller's to parse). */
static void compile_options(const options *o, sg_compile_options *options)
{
    sg_compile_options_init(options);
    options->target = o->target;
    options->cpu = o->cpu;
    if (o->opt_level >= 0)
        options->opt_level = o->opt_level;
    options->no_cf_protection = o->no_cf_protection;
}

int cmd_emit(sg_context *ctx, const options *o)
{
    sg_spec *spec = NULL;
    sg_plan *plan = NULL;
    char *spec_text = NULL, *command = NULL;
    char name[SG_KERNEL_NAME_MAX];
    sg_status st;
    int rc = need_output(o, "emit");
    if (rc >= 0)
        return rc;
    if (o->name && !sg_is_identifier(o->name))
        return usage_error("bad --name '%s': a kernel name must be a C identifier (letters, digits and '_', "
                           "not starting with a digit, not a keyword)",
                           o->name);
    if ((rc = make_plan(ctx, o, &spec, &plan)) >= 0)
        goto done;
    if ((spec_text = shell_words(o->nspec, o->spec)) == NULL || (command = command_line(o)) == NULL) {
        rc = out_of_memory();
        goto done;
    }
    sg_aot_kernel kernel = {.plan = plan, .name = o->name, .spec = spec_text, .layer_id = -1};
    sg_compile_options options;
    compile_options(o, &options);
    options.command = command;
    if ((rc = parse_stores(o->stores, &options.stores)) >= 0)
        goto done;
    if (o->name == NULL) {
        if ((st = sg_aot_kernel_name_with(ctx, &kernel, &options, name)) != SG_OK) {
            rc = failed(ctx, st);
            goto done;
        }
        kernel.name = name;
    }
    rc = (st = sg_aot_write_with(ctx, &kernel, 1, &options, o->output, o->header)) == SG_OK ? 0
                                                                                            : failed(ctx, st);
done:
    free(spec_text);
    free(command);
    sg_plan_destroy(plan);
    sg_spec_destroy(spec);
    return rc;
}

/* ---- aot ------------------------------------------------------------------------------ */

typedef struct progress {
    size_t total;
    bool shown;
} progress;

static void show_progress(void *arg, size_t done, size_t total)
{
    progress *p = arg;
    fprintf(stderr, "\rslicegen: compiled %zu of %zu kernels", done, total);
    p->shown = true;
    if (done == total)
        fputs("\n", stderr);
}

/* Appends the line saying why a layer is skipped to *text (*len bytes). */
static bool skipped(char **text, size_t *len, const sg_model_layer *layer, const char *reason)
{
    char *line = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&line, &n);
    if (f == NULL)
        return false;
    fputs("slicegen: skipping layer '", f);
    put_escaped(f, layer->name);
    fprintf(f, "' (id %lld, %s): ", (long long)layer->id, layer->type);
    put_escaped(f, reason);
    fputc('\n', f);
    bool ok = fclose(f) == 0 && append(text, len, line, n);
    free(line);
    return ok;
}

/* What layer i's kernel is named after: its name, and for one of several
 * layers of one node (in a row, one id: the outputs of an ONNX Split)
 * "<name>_out<k>", k its output's index. malloc'd; NULL when out of memory. */
static char *kernel_base(const sg_model *model, size_t i)
{
    const sg_model_layer *layer = sg_model_layer_at(model, i);
    size_t first = i, n = strlen(layer->name);
    while (first > 0 && sg_model_layer_at(model, first - 1)->id == layer->id)
        first--;
    const sg_model_layer *next = sg_model_layer_at(model, i + 1);
    bool several = first < i || (next != NULL && next->id == layer->id);
    char *base = malloc(n + 32);
    if (base != NULL && several)
        snprintf(base, n + 32, "%s_out%zu", layer->name, i - first);
    else if (base != NULL)
        memcpy(base, layer->name, n + 1);
    return base;
}

/* --fuse: plans the model's fusions (sg_model_fusions). A fusion that
 * cannot be planned (its layers' shapes do not compose, too many parts)
 * leaves its layers to compile alone, with a line on stderr saying why.
 * Marks the layers of the others in fusion_of. Returns -1 to go on, else
 * an exit status. */
static int plan_fusions(sg_context *ctx, sg_model *model, const sg_model_fusion **fusions, size_t *count,
                        sg_plan ***plans, ptrdiff_t *fusion_of)
{
    sg_status st = sg_model_fusions(ctx, model, count, fusions);
    if (st != SG_OK)
        return failed(ctx, st);
    if ((*plans = calloc(*count + 1, sizeof **plans)) == NULL)
        return out_of_memory();
    for (size_t k = 0; k < *count; k++) {
        const sg_model_fusion *fu = &(*fusions)[k];
        const char *reason = NULL;
        if (sg_plan_create(ctx, fu->spec, fu->rank, fu->shape, fu->dtype, &(*plans)[k]) != SG_OK)
            reason = sg_context_last_error(ctx);
        if (reason != NULL) {
            fputs("slicegen: not fusing '", stderr);
            put_escaped(stderr, fu->name);
            fprintf(stderr, "' (id %lld, %zu slice layers): %s\n", (long long)fu->id, fu->nlayers, reason);
            continue;
        }
        for (size_t i = 0; i < fu->nlayers; i++)
            fusion_of[fu->layers[i]] = (ptrdiff_t)k;
    }
    return -1;
}

int cmd_aot(sg_context *ctx, const options *o)
{
    sg_model *model = NULL;
    sg_plan **plans = NULL;
    sg_aot_kernel *kernels = NULL;
    char **layer_names = NULL; /* what each kernel is named after (kernel_base) */
    char **names = NULL, *command = NULL, *default_prefix = NULL; /* names and default_prefix: sg_free */
    char *skips = NULL; /* the lines saying which layers are skipped and why */
    size_t nkernels = 0, nlayers = 0, skips_len = 0;
    /* --fuse: the model's fusions, the plan of each that compiles (else
     * NULL: its layers compile alone), and per layer its fusion or -1 */
    const sg_model_fusion *fusions = NULL;
    size_t nfusions = 0, nfusions_used = 0, nfused = 0;
    sg_plan **fused_plans = NULL;
    ptrdiff_t *fusion_of = NULL;
    sg_status st;
    int rc = need_output(o, "aot");
    if (rc >= 0)
        return rc;
    if (o->nspec != 1 || strncmp(o->spec[0], "--", 2) == 0)
        return o->nspec == 0 ? usage_error("'slicegen aot' needs a model, MODEL.xml or MODEL.onnx")
               : strncmp(o->spec[0], "--", 2) == 0
                   ? usage_error("unknown option '%s'", o->spec[0])
                   : usage_error("'slicegen aot' takes one model, not '%s'", o->spec[1]);
    const char *xml = o->spec[0];
    if (o->prefix && !sg_is_identifier(o->prefix))
        return usage_error("bad --prefix '%s': it must be a C identifier", o->prefix);
    if (o->prefix == NULL && (st = sg_aot_default_prefix(ctx, xml, &default_prefix)) != SG_OK)
        return failed(ctx, st);
    const char *prefix = o->prefix ? o->prefix : default_prefix;
    if ((st = sg_model_read(ctx, xml, o->weights, &model)) != SG_OK) {
        sg_free(default_prefix);
        return failed(ctx, st);
    }

    nlayers = sg_model_layer_count(model);
    plans = calloc(nlayers + 1, sizeof *plans);
    kernels = calloc(nlayers + 1, sizeof *kernels);
    layer_names = calloc(nlayers + 1, sizeof *layer_names);
    names = calloc(nlayers + 1, sizeof *names);
    fusion_of = malloc((nlayers + 1) * sizeof *fusion_of);
    if (!plans || !kernels || !layer_names || !names || !fusion_of || (command = command_line(o)) == NULL ||
        !append(&skips, &skips_len, "", 0)) {
        rc = out_of_memory();
        goto done;
    }
    for (size_t i = 0; i < nlayers; i++)
        fusion_of[i] = -1;
    if (o->fuse && (rc = plan_fusions(ctx, model, &fusions, &nfusions, &fused_plans, fusion_of)) >= 0)
        goto done;
    for (size_t i = 0; i < nlayers; i++) {
        const sg_model_layer *layer = sg_model_layer_at(model, i);
        sg_plan *plan = NULL;
        if (fusion_of[i] >= 0) { /* one kernel at the fusion's last layer */
            const sg_model_fusion *fu = &fusions[fusion_of[i]];
            if (fu->layers[fu->nlayers - 1] != i)
                continue;
            if ((layer_names[nkernels] = strdup(fu->name)) == NULL) {
                rc = out_of_memory();
                goto done;
            }
            plan = fused_plans[fusion_of[i]];
            fused_plans[fusion_of[i]] = NULL;
            plans[nkernels] = plan;
            kernels[nkernels++] = (sg_aot_kernel){.plan = plan,
                                                  .spec = fu->spec_text,
                                                  .layer = fu->name,
                                                  .layer_id = fu->id,
                                                  .fused_layers = fu->names,
                                                  .fused_count = fu->nnames};
            nfused += fu->nlayers;
            nfusions_used++;
            continue;
        }
        const char *reason = layer->skip_reason;
        if (layer->spec != NULL &&
            sg_plan_create(ctx, layer->spec, layer->rank, layer->shape, layer->dtype, &plan) != SG_OK)
            reason = sg_context_last_error(ctx);
        if (reason != NULL) {
            sg_plan_destroy(plan);
            if (!skipped(&skips, &skips_len, layer, reason)) {
                rc = out_of_memory();
                goto done;
            }
            continue;
        }
        if ((layer_names[nkernels] = kernel_base(model, i)) == NULL) {
            sg_plan_destroy(plan);
            rc = out_of_memory();
            goto done;
        }
        plans[nkernels] = plan;
        kernels[nkernels++] = (sg_aot_kernel){.plan = plan,
                                              .spec = layer->spec_text,
                                              .layer = layer->name,
                                              .layer_id = layer->id,
                                              .model_layer = layer};
    }
    if (nkernels == 0 && nlayers > 0) { /* with no layer at all: an empty table */
        size_t folded = sg_model_folded_count(model);
        char folded_text[80] = "";
        if (folded > 0)
            snprintf(folded_text, sizeof folded_text, "; %zu slice-like node%s folded as shape arithmetic",
                     folded, folded == 1 ? "" : "s");
        fputs(skips, stderr);
        fprintf(stderr,
                "slicegen: error: failed to compile model '%s': no slice layer can be compiled "
                "(%zu slice layer%s, all skipped%s)\n",
                xml, nlayers, nlayers == 1 ? "" : "s", folded_text);
        rc = 2;
        goto done;
    }
    if ((st = sg_aot_layer_names(ctx, prefix, nkernels, (const char *const *)layer_names, names)) != SG_OK) {
        rc = failed(ctx, st);
        goto done;
    }
    for (size_t i = 0; i < nkernels; i++)
        kernels[i].name = names[i];
    progress shown = {.total = nkernels};
    sg_compile_options options;
    compile_options(o, &options);
    options.prefix = prefix;
    options.command = command;
    options.progress = isatty(STDERR_FILENO) && nlayers > 50 ? show_progress : NULL;
    options.progress_arg = &shown;
    options.model = model;
    if ((rc = parse_stores(o->stores, &options.stores)) >= 0)
        goto done;
    if ((st = sg_aot_write_with(ctx, kernels, nkernels, &options, o->output, o->header)) != SG_OK) {
        if (shown.shown)
            fputc('\n', stderr);
        rc = failed(ctx, st);
        goto done;
    }
    fputs(skips, stderr); /* only now: a failure above is reported in one line */
    struct stat sb;
    long long size = stat(o->output, &sb) == 0 ? (long long)sb.st_size : -1;
    size_t compiled = nkernels - nfusions_used + nfused;
    char fused_text[96] = "";
    if (nfusions_used > 0)
        snprintf(fused_text, sizeof fused_text, "; %zu fused into %zu kernel%s", nfused, nfusions_used,
                 nfusions_used == 1 ? "" : "s");
    size_t folded = sg_model_folded_count(model);
    char folded_text[64] = "";
    if (folded > 0)
        snprintf(folded_text, sizeof folded_text, "; %zu folded as shape arithmetic", folded);
    printf("slicegen: compiled %zu of %zu slice layers (%zu skipped%s%s) into %s (%lld bytes)%s%s\n",
           compiled, nlayers, nlayers - compiled, fused_text, folded_text, o->output, size,
           o->header ? " and " : "", o->header ? o->header : "");
    rc = 0;
done:
    for (size_t i = 0; i < nkernels; i++) {
        sg_plan_destroy(plans[i]);
        sg_free(names ? names[i] : NULL);
        free(layer_names ? layer_names[i] : NULL);
    }
    for (size_t k = 0; fused_plans && k < nfusions; k++)
        sg_plan_destroy(fused_plans[k]);
    free(fused_plans);
    free(fusion_of);
    free(plans);
    free(kernels);
    free(layer_names);
    free(names);
    free(command);
    free(skips);
    sg_free(default_prefix);
    sg_model_destroy(model);
    return rc;
}

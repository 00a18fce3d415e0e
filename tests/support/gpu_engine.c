/* See gpu_engine.h. The PTX files live in a temporary folder, removed
 * afterwards: kernels-sm_NN.ptx and ptxas-sm_NN.log. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../codegen/codegen.h"
#include "../../runtime/runtime.h"
#include "check.h"
#include "gpu_engine.h"

struct gpu_engine {
    sg_context *ctx;
    sg_jit *jit;
    bool device;      /* a CUDA device is present: cases run on device 0 too */
    char why[512];    /* why not */
    unsigned long compiles;
    sg_plan **kept;
    long nkept, ptx_cases;
    long too_large; /* plans left out: more blocks than one launch has */
};

gpu_engine *gpu_engine_create(sg_context *ctx, long ptx_cases)
{
    gpu_engine *e = calloc(1, sizeof *e);
    sg_error err = {0};
    if (e == NULL || (e->kept = calloc((size_t)(ptx_cases > 0 ? ptx_cases : 1), sizeof *e->kept)) == NULL ||
        sg_jit_create(&e->jit, &err) != SG_OK) {
        if (err.status != SG_OK)
            printf("gpu: %s\n", err.message);
        if (e)
            free(e->kept);
        free(e);
        return NULL;
    }
    e->ctx = ctx;
    e->ptx_cases = ptx_cases;
    int devices = 0;
    if (sg_cuda_device_count(ctx, &devices) != SG_OK)
        snprintf(e->why, sizeof e->why, "%s", sg_context_last_error(ctx));
    else if (devices == 0)
        snprintf(e->why, sizeof e->why, "the CUDA driver finds no device");
    e->device = devices > 0;
    return e;
}

void gpu_engine_destroy(gpu_engine *e)
{
    if (e == NULL)
        return;
    for (long i = 0; i < e->nkept; i++)
        sg_plan_destroy(e->kept[i]);
    free(e->kept);
    sg_jit_destroy(e->jit);
    free(e);
}

bool gpu_engine_has_device(const gpu_engine *e, const char **why)
{
    *why = e->why;
    return e->device;
}

static const char *compare(const unsigned char *want, const unsigned char *got, size_t bytes, size_t guard,
                           long *at, const char *where)
{
    static char what[96];
    long d = first_difference(want, got, bytes + 2 * guard);
    if (d < 0)
        return NULL;
    *at = d - (long)guard;
    snprintf(what, sizeof what, "%s: %s", where,
             d < (long)guard                 ? "wrote before the output"
             : d >= (long)(guard + bytes) ? "wrote after the output"
                                            : "output differs");
    return what;
}

/* A kernel that crashes ends the test: say which plan it ran. */
static const char *running; /* the plan's text while a kernel runs */

static void crashed(int sig)
{
    static const char head[] = "FAIL gpu: the emulated kernel crashed (SIGILL: an access less aligned than its "
                               "code claims; SIGSEGV: a read outside the input) on the plan\n";
    if (write(STDOUT_FILENO, head, sizeof head - 1) > 0 && running)
        (void)!write(STDOUT_FILENO, running, strlen(running));
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The kernel on device 0: the output buffer holds `guard` canary bytes on
 * each side; got receives all of it. */
static const char *run_on_device(gpu_engine *e, const sg_plan *plan, const unsigned char *in, unsigned char *got,
                                 size_t guard)
{
    static char what[600];
    sg_error err = {0};
    sg_cuda_kernel *k = NULL;
    uint64_t d_in = 0, d_out = 0, total = plan->out_bytes + 2 * guard;
    memset(got, 0xA5, guard);
    memset(got + guard, 0x3C, (size_t)plan->out_bytes);
    memset(got + guard + plan->out_bytes, 0xA5, guard);
    if (sg_cuda_kernel_compile(e->ctx, plan, 0, &k) != SG_OK) {
        snprintf(what, sizeof what, "device: %s", sg_context_last_error(e->ctx));
        return what;
    }
    if (sg_cuda_alloc(e->ctx, 0, plan->in_bytes, &d_in, &err) != SG_OK ||
        sg_cuda_alloc(e->ctx, 0, total, &d_out, &err) != SG_OK ||
        sg_cuda_copy_to_device(e->ctx, 0, d_in, in, plan->in_bytes, &err) != SG_OK ||
        sg_cuda_copy_to_device(e->ctx, 0, d_out, got, total, &err) != SG_OK)
        snprintf(what, sizeof what, "device: %s", err.message);
    else if (sg_cuda_kernel_launch(e->ctx, k, d_in, d_out + guard, NULL) != SG_OK)
        snprintf(what, sizeof what, "device: %s", sg_context_last_error(e->ctx));
    else if (sg_cuda_synchronize(e->ctx, 0, NULL, &err) != SG_OK ||
             sg_cuda_copy_to_host(e->ctx, 0, got, d_out, total, &err) != SG_OK)
        snprintf(what, sizeof what, "device: %s", err.message);
    else
        what[0] = '\0';
    sg_cuda_free(e->ctx, 0, d_in);
    sg_cuda_free(e->ctx, 0, d_out);
    sg_cuda_kernel_release(k);
    return what[0] ? what : NULL;
}

const char *gpu_engine_check(gpu_engine *e, const sg_plan *plan, int opt_level, const unsigned char *in,
                             const unsigned char *want, size_t guard, const uint64_t cuts[4], long *at)
{
    static char what[600];
    sg_error err = {0};
    sg_gpu_launch launch;
    sg_kernel_fn fn;
    void *code = NULL;
    char symbol[32];
    size_t bytes = (size_t)plan->out_bytes;
    snprintf(symbol, sizeof symbol, "gpu_emulated_%lu", e->compiles++);
    *at = -1;
    if (sg_gpu_launch_of(plan, &launch, &err) != SG_OK ||
        sg_jit_compile_gpu_emulation(e->jit, plan, opt_level, symbol, &fn, &code, &err) != SG_OK) {
        snprintf(what, sizeof what, "emulated: %s", err.message);
        return what;
    }
    unsigned char *got = malloc(bytes + 2 * guard);
    if (got == NULL) {
        sg_jit_free(e->jit, code);
        return "out of memory";
    }
    memset(got, 0xA5, guard);
    memset(got + guard, 0x3C, bytes);
    memset(got + guard + bytes, 0xA5, guard);
    /* Threads in four ranges, run in a shifted order: each thread's chunk is its own. */
    int64_t t = launch.threads, cut[5] = {0, 0, 0, 0, t};
    for (int i = 1; i < 4; i++)
        cut[i] = t ? (int64_t)(cuts[i] % (uint64_t)(t + 1)) : 0;
    sort_cuts(cut + 1, 3);
    running = sg_plan_to_text(plan);
    fflush(stdout);
    signal(SIGILL, crashed);
    signal(SIGSEGV, crashed);
    for (int i = 0; i < 4; i++) {
        int k = (int)((cuts[0] + (uint64_t)i) % 4);
        fn(in, got + guard, cut[k], cut[k + 1]);
    }
    signal(SIGILL, SIG_DFL);
    signal(SIGSEGV, SIG_DFL);
    free((char *)running);
    running = NULL;
    const char *failed = compare(want, got, bytes, guard, at, "emulated");
    if (failed == NULL && e->device)
        failed = run_on_device(e, plan, in, got, guard);
    if (failed == NULL && e->device)
        failed = compare(want, got, bytes, guard, at, "device");
    free(got);
    sg_jit_free(e->jit, code);
    return failed;
}

/* ---- kernels of runtime values ------------------------------------------------------- */

struct gpu_values {
    sg_kernel_args_fn fn;
    void *code;
    char *text;             /* the plan's, for a crash's message */
    sg_cuda_kernel *device; /* NULL without a device */
};

gpu_values *gpu_values_compile(gpu_engine *e, const sg_plan *plan, int opt_level, const char **why)
{
    static char what[600];
    sg_error err = {0};
    sg_kernel_fn fn;
    char symbol[32];
    gpu_values *v = calloc(1, sizeof *v);
    snprintf(symbol, sizeof symbol, "gpu_values_%lu", e->compiles++);
    if (v == NULL) {
        *why = "out of memory";
        return NULL;
    }
    if (sg_jit_compile_gpu_emulation(e->jit, plan, opt_level, symbol, &fn, &v->code, &err) != SG_OK) {
        snprintf(what, sizeof what, "emulated: %s", err.message);
        *why = what;
        free(v);
        return NULL;
    }
    v->fn = (sg_kernel_args_fn)(void (*)(void))fn;
    v->text = sg_plan_to_text(plan);
    if (e->device) {
        sg_compile_options o;
        sg_compile_options_init(&o);
        o.opt_level = opt_level;
        if (sg_cuda_kernel_compile_with(e->ctx, plan, &o, &v->device) != SG_OK) {
            snprintf(what, sizeof what, "device: %s", sg_context_last_error(e->ctx));
            *why = what;
            gpu_values_destroy(e, v);
            return NULL;
        }
    }
    return v;
}

void gpu_values_destroy(gpu_engine *e, gpu_values *v)
{
    if (v == NULL)
        return;
    sg_jit_free(e->jit, v->code);
    sg_cuda_kernel_destroy(v->device);
    free(v->text);
    free(v);
}

/* A prepared call on device 0, framed as run_on_device's. */
static const char *values_on_device(gpu_engine *e, gpu_values *v, const unsigned char *in, const sg_args *args,
                                    unsigned char *got, size_t guard)
{
    static char what[600];
    sg_error err = {0};
    uint64_t in_bytes = (uint64_t)args->input_bytes, out_bytes = (uint64_t)args->output_bytes;
    uint64_t d_in = 0, d_out = 0, total = out_bytes + 2 * guard;
    memset(got, 0xA5, guard);
    memset(got + guard, 0x3C, (size_t)out_bytes);
    memset(got + guard + out_bytes, 0xA5, guard);
    if (sg_cuda_alloc(e->ctx, 0, in_bytes ? in_bytes : 1, &d_in, &err) != SG_OK ||
        sg_cuda_alloc(e->ctx, 0, total, &d_out, &err) != SG_OK ||
        sg_cuda_copy_to_device(e->ctx, 0, d_in, in, in_bytes, &err) != SG_OK ||
        sg_cuda_copy_to_device(e->ctx, 0, d_out, got, total, &err) != SG_OK)
        snprintf(what, sizeof what, "device: %s", err.message);
    else if (sg_cuda_kernel_launch_args(e->ctx, v->device, d_in, d_out + guard, args, NULL) != SG_OK)
        snprintf(what, sizeof what, "device: %s", sg_context_last_error(e->ctx));
    else if (sg_cuda_synchronize(e->ctx, 0, NULL, &err) != SG_OK ||
             sg_cuda_copy_to_host(e->ctx, 0, got, d_out, total, &err) != SG_OK)
        snprintf(what, sizeof what, "device: %s", err.message);
    else
        what[0] = '\0';
    sg_cuda_free(e->ctx, 0, d_in);
    sg_cuda_free(e->ctx, 0, d_out);
    return what[0] ? what : NULL;
}

const char *gpu_values_check(gpu_engine *e, gpu_values *v, const unsigned char *in, const sg_args *args,
                             const unsigned char *want, size_t guard, const uint64_t cuts[4], long *at)
{
    size_t bytes = (size_t)args->output_bytes;
    sg_gpu_launch launch;
    sg_error err = {0};
    *at = -1;
    if (sg_gpu_launch_for((uint64_t)args->output_bytes, &launch, &err) != SG_OK)
        return "too many blocks";
    /* 16-byte aligned, as device memory is: the chunks' stores claim it */
    size_t room = (bytes + 2 * guard + 15) & ~(size_t)15;
    unsigned char *got = aligned_alloc(16, room ? room : 16);
    if (got == NULL)
        return "out of memory";
    memset(got, 0xA5, guard);
    memset(got + guard, 0x3C, bytes);
    memset(got + guard + bytes, 0xA5, guard);
    int64_t t = launch.threads, cut[5] = {0, 0, 0, 0, t};
    for (int i = 1; i < 4; i++)
        cut[i] = t ? (int64_t)(cuts[i] % (uint64_t)(t + 1)) : 0;
    sort_cuts(cut + 1, 3);
    running = v->text;
    fflush(stdout);
    signal(SIGILL, crashed);
    signal(SIGSEGV, crashed);
    for (int i = 0; i < 4; i++) {
        int k = (int)((cuts[0] + (uint64_t)i) % 4);
        v->fn(in, got + guard, args, cut[k], cut[k + 1]);
    }
    signal(SIGILL, SIG_DFL);
    signal(SIGSEGV, SIG_DFL);
    running = NULL;
    const char *failed = compare(want, got, bytes, guard, at, "emulated");
    if (failed == NULL && v->device)
        failed = values_on_device(e, v, in, args, got, guard);
    if (failed == NULL && v->device)
        failed = compare(want, got, bytes, guard, at, "device");
    free(got);
    return failed;
}

void gpu_engine_keep(gpu_engine *e, const sg_plan *plan)
{
    sg_error err = {0};
    sg_gpu_launch launch;
    if (e->nkept >= e->ptx_cases)
        return;
    if (plan->sym) {
        sg_plan *copy = NULL;
        if (sg_plan_create(e->ctx, plan->sym->spec, plan->in_rank, plan->in_shape, plan->dtype, &copy) == SG_OK)
            e->kept[e->nkept++] = copy;
        return;
    }
    if (sg_gpu_launch_of(plan, &launch, &err) != SG_OK) { /* refused when emitted (ptx_test.sh) */
        e->too_large++;
        return;
    }
    char *text = sg_plan_to_text(plan);
    sg_plan *copy = NULL;
    if (text && sg_plan_parse(e->ctx, text, &copy) == SG_OK)
        e->kept[e->nkept++] = copy;
    free(text);
}

/* ---- PTX and ptxas -------------------------------------------------------------------- */

static const char *find_ptxas(void)
{
    static char path[4096];
    const char *env = getenv("SLICEGEN_PTXAS");
    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    const char *dirs = getenv("PATH");
    for (const char *p = dirs; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/ptxas", (int)n, p);
        if (n > 0 && access(path, X_OK) == 0)
            return path;
        p += n + (p[n] == ':');
    }
    return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : NULL;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* The PTX of one entry: from ".entry NAME(" to the next ".entry" (NUL-cut copy). */
static char *entry_text(const char *ptx, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, ".entry %s(", name);
    const char *start = strstr(ptx, key);
    if (start == NULL)
        return NULL;
    const char *end = strstr(start + 1, ".entry ");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *text = malloc(n + 1);
    if (text) {
        memcpy(text, start, n);
        text[n] = '\0';
    }
    return text;
}

/* Whether plan's kernel stores whole chunks: not a program's (element by
 * element), a static one's output of a chunk or more, a symbolic one's unless
 * it is empty whatever the values, or every call that writes is refused
 * (a border mode other than FILL over a window known to be empty: its
 * index code, a remainder by 0, may be optimized away). */
static bool may_write_chunks(const sg_plan *p)
{
    if (p->op == SG_OP_PROGRAM) /* a program's threads store element by element (gpu.c, program_thread) */
        return false;
    if (p->sym) {
        const sg_sym *s = p->sym;
        for (size_t l = 0; s->mapped && p->mode != SG_TRT_FILL && l < p->nloops; l++)
            if (sg_is_const(s->map_dim[l]) && s->map_dim[l].k == 0)
                return false;
        return !sg_is_const(s->out_bytes) || s->out_bytes.k >= 16;
    }
    return p->out_bytes >= 16;
}

/* Whether a kernel's PTX stores 16 bytes at once (st.global.v4 of 32-bit
 * lanes or v2 of 64-bit ones: what SG_GPU_CHUNK's stores must become). */
static bool has_chunk_store(const char *body)
{
    static const char *const forms[] = {"st.global.v4.u32", "st.global.v4.b32", "st.global.v4.f32",
                                        "st.global.v4.s32", "st.global.v2.u64", "st.global.v2.b64",
                                        "st.global.v2.f64", "st.global.v2.s64"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        if (strstr(body, forms[i]))
            return true;
    return false;
}

/* What the code of every kernel must and must not hold. */
static int check_structure(gpu_engine *e, const char *ptx, const char *gpu)
{
    int failures = 0;
    long vector_stores = 0;
    for (long i = 0; i < e->nkept && failures < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "k%ld", i);
        char *body = entry_text(ptx, name);
        const sg_plan *p = e->kept[i];
        const char *bad = body == NULL                               ? "no entry"
                          : !p->sym && (strstr(body, "div.") || strstr(body, "rem.")) ? "a division instruction"
                          : strstr(body, ".local") || strstr(body, "local_depot") ? "local memory"
                          : may_write_chunks(p) && !has_chunk_store(body) ? "no 16-byte store"
                                                                                  : NULL;
        if (bad) {
            printf("FAIL gpu: %s: kernel %s has %s; plan:\n", gpu, name, bad);
            sg_plan_print(p, stdout);
            failures++;
        }
        vector_stores += body && has_chunk_store(body);
        free(body);
    }
    long symbolic = 0;
    for (long i = 0; i < e->nkept; i++)
        symbolic += e->kept[i]->sym != NULL;
    printf("gpu: %s: %ld kernels (%ld of runtime values), %ld with 16-byte stores; none uses local memory, none "
           "but those of runtime values divides (%ld plans too large for one launch left out)\n",
           gpu, e->nkept, symbolic, vector_stores, e->too_large);
    return failures;
}

/* ptxas on `ptx` for `arch`; 0 when it accepts it with no stack frame and
 * no spills, 77 when this ptxas does not know the architecture. */
static int assemble(const char *ptxas, const char *ptx, const char *arch, const char *log)
{
    char command[8192];
    snprintf(command, sizeof command, "'%s' -v -arch=%s '%s' -o /dev/null > '%s' 2>&1", ptxas, arch, ptx, log);
    int rc = system(command);
    char *said = read_all(log);
    if (said && strstr(said, "not defined for option 'gpu-name'")) {
        free(said);
        return 77;
    }
    int failures = rc != 0;
    if (rc != 0)
        printf("FAIL gpu: ptxas -arch=%s refused the PTX:\n%.2000s\n", arch, said ? said : "");
    /* "N bytes stack frame, N bytes spill stores, N bytes spill loads" per function. */
    for (const char *p = said; p && (p = strstr(p, "bytes stack frame")) != NULL; p++) {
        const char *line = p;
        while (line > said && line[-1] != '\n')
            line--;
        long frame = 0, stores = 0, loads = 0;
        if (sscanf(line, " %ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &frame, &stores,
                   &loads) == 3 &&
            (frame || stores || loads) && failures++ < 10)
            printf("FAIL gpu: ptxas -arch=%s: %.*s\n", arch, (int)strcspn(line, "\n"), line);
    }
    free(said);
    return failures;
}

int gpu_engine_check_ptx(gpu_engine *e)
{
    const char *ptxas = find_ptxas();
    char dir[] = "/tmp/slicegen-ptx-XXXXXX";
    int failures = 0;
    if (e->nkept == 0)
        return 0;
    if (mkdtemp(dir) == NULL) {
        printf("FAIL gpu: cannot make a temporary folder\n");
        return 1;
    }
    sg_aot_kernel *kernels = calloc((size_t)e->nkept, sizeof *kernels);
    char (*names)[32] = calloc((size_t)e->nkept, sizeof *names);
    if (kernels == NULL || names == NULL) {
        free(kernels);
        free(names);
        return 1;
    }
    for (long i = 0; i < e->nkept; i++) {
        snprintf(names[i], sizeof names[i], "k%ld", i);
        kernels[i] = (sg_aot_kernel){.plan = e->kept[i], .name = names[i], .layer_id = -1};
    }
    /* PTX for the default GPU, and for sm_90 where this LLVM knows it. */
    const char *sm90 = sg_gpu_cpu_for(9, 0);
    const char *gpus[2] = {SG_GPU_DEFAULT_CPU, sm90 && strcmp(sm90, "sm_90") == 0 ? "sm_90" : NULL};
    if (ptxas == NULL)
        printf("gpu: ptxas not found (PATH, /usr/local/cuda/bin, SLICEGEN_PTXAS): PTX not assembled\n");
    for (int g = 0; g < 2 && gpus[g]; g++) {
        char ptx[128], log[128];
        snprintf(ptx, sizeof ptx, "%s/kernels-%s.ptx", dir, gpus[g]);
        snprintf(log, sizeof log, "%s/ptxas-%s.log", dir, gpus[g]);
        sg_aot_options o = {.target = SG_GPU_TRIPLE, .cpu = gpus[g], .opt_level = SG_DEFAULT_OPT_LEVEL};
        if (sg_aot_write(e->ctx, kernels, (size_t)e->nkept, &o, ptx, NULL) != SG_OK) {
            printf("FAIL gpu: PTX for %s: %s\n", gpus[g], sg_context_last_error(e->ctx));
            failures++;
            continue;
        }
        char *text = read_all(ptx);
        failures += text ? check_structure(e, text, gpus[g]) : 1;
        free(text);
        /* sm_70 PTX for sm_70 (this ptxas may know no GPU that old: then
         * the oldest it takes, sm_75) and sm_90; sm_90 PTX for sm_90. */
        const char *arches[3] = {g == 0 ? "sm_70" : "sm_90", g == 0 ? "sm_90" : NULL, NULL};
        for (int a = 0; ptxas && a < 2 && arches[a]; a++) {
            const char *arch = arches[a];
            int rc = assemble(ptxas, ptx, arch, log);
            if (rc == 77 && strcmp(arch, "sm_70") == 0) {
                printf("gpu: this ptxas does not take -arch=sm_70; assembling for sm_75\n");
                rc = assemble(ptxas, ptx, arch = "sm_75", log);
            }
            if (rc == 77)
                printf("gpu: this ptxas does not take -arch=%s\n", arch);
            else if (rc == 0)
                printf("gpu: ptxas accepts the %s PTX of %ld kernels for %s (no stack frame, no spills)\n",
                       gpus[g], e->nkept, arch);
            failures += rc == 77 ? 0 : rc;
        }
        remove(ptx);
        remove(log);
    }
    rmdir(dir);
    free(kernels);
    free(names);
    return failures;
}

/* Targets, target machines, the pass pipeline, IR text and object files.
 * One target description (triple + CPU + features) feeds both the optimizer
 * and the code generator: on LLVM 14 the CPU name alone loses features. */
#define SG_CODEGEN_INTERNAL
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <cpuid.h>
#endif
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#include "codegen.h"

static pthread_once_t native_once = PTHREAD_ONCE_INIT, all_once = PTHREAD_ONCE_INIT;
static int native_failed; /* written once inside pthread_once */

static void init_native(void)
{
    native_failed = LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter();
}

/* Every target this LLVM was built with, for ahead-of-time output. */
static void init_all(void)
{
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
}

sg_status sg_llvm_init(sg_error *err)
{
    if (pthread_once(&native_once, init_native) != 0 || native_failed)
        return sg_fail(err, SG_ERR_INTERNAL, "failed to initialize LLVM: no native target");
    return SG_OK;
}

sg_status sg_llvm_fail(sg_error *err, LLVMErrorRef e, const char *what)
{
    char *message = LLVMGetErrorMessage(e);
    sg_fail(err, SG_ERR_INTERNAL, "failed to %s: %s", what, message);
    LLVMDisposeErrorMessage(message);
    return SG_ERR_INTERNAL;
}

const char *sg_codegen_llvm_version(void)
{
    return LLVM_VERSION_STRING;
}

static void fatal_error(const char *reason)
{
    /* The process is going down: only async-signal-safe calls. */
    static const char prefix[] = "slicegen: error: LLVM failed: ";
    size_t len = strcspn(reason, "\n");
    if (write(STDERR_FILENO, prefix, sizeof prefix - 1) > 0 && write(STDERR_FILENO, reason, len) >= 0)
        (void)!write(STDERR_FILENO, "\n", 1);
    _exit(1);
}

void sg_codegen_exit_on_fatal_error(void)
{
    LLVMInstallFatalErrorHandler(fatal_error);
}

/* ---- targets ------------------------------------------------------------------ */

static char *copy(const char *s)
{
    char *c = s ? malloc(strlen(s) + 1) : NULL;
    return c ? strcpy(c, s) : NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What a named target gets where its user says nothing, as clang's driver
 * does: code every CPU of the architecture runs (x86-64 for x86_64, else
 * LLVM's "generic"); RISC-V Linux is rv64gc (rv32gc) with floating-point arguments in
 * registers (lp64d, ilp32d), so that the object links with the system's
 * C library; bare-metal RISC-V is rv64imac / rv32imac with the soft-float
 * ABI. RISC-V has no CPU called "generic" on LLVM 14. */
static sg_arch arch_of(const char *triple)
{
    static const struct {
        const char *prefix;
        sg_arch arch;
    } arches[] = {{"x86_64", SG_ARCH_X86_64},   {"i386", SG_ARCH_X86_32},     {"i486", SG_ARCH_X86_32},
                  {"i586", SG_ARCH_X86_32},     {"i686", SG_ARCH_X86_32},     {"aarch64", SG_ARCH_AARCH64},
                  {"arm64", SG_ARCH_AARCH64},   {"arm", SG_ARCH_ARM},         {"thumb", SG_ARCH_ARM},
                  {"riscv64", SG_ARCH_RISCV64}, {"riscv32", SG_ARCH_RISCV32}, {"nvptx", SG_ARCH_NVPTX}};
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        if (starts_with(triple, arches[i].prefix))
            return arches[i].arch;
    return SG_ARCH_OTHER;
}

static void named_defaults(sg_target *t, const char **cpu, const char **features)
{
    t->baseline = *cpu == NULL;
    if (sg_target_is_gpu(t) && *cpu == NULL) /* PTX for the oldest GPU that CUDA 13's ptxas still takes */
        *cpu = SG_GPU_DEFAULT_CPU;
    if (t->arch == SG_ARCH_X86_64 && *cpu == NULL) /* what every x86-64 CPU runs */
        *cpu = "x86-64";
    bool rv64 = t->arch == SG_ARCH_RISCV64, rv32 = t->arch == SG_ARCH_RISCV32;
    if (!rv64 && !rv32)
        return;
    if (*cpu == NULL || strcmp(*cpu, "generic") == 0)
        *cpu = rv64 ? "generic-rv64" : "generic-rv32";
    bool linux_os = strstr(t->triple, "linux") != NULL;
    if (*features == NULL)
        *features = linux_os ? "+m,+a,+f,+d,+c" : "+m,+a,+c";
    if (linux_os && strstr(*features, "+d") != NULL)
        snprintf(t->abi, sizeof t->abi, "%s", rv64 ? "lp64d" : "ilp32d");
}

bool sg_target_is_gpu(const sg_target *t)
{
    return t->arch == SG_ARCH_NVPTX;
}

bool sg_triple_is_gpu(const char *triple)
{
    return triple != NULL && arch_of(triple) == SG_ARCH_NVPTX;
}

/* Whether the comma-separated feature list holds `feature` ("+avx512bw"). */
static bool has_feature(const char *features, const char *feature)
{
    size_t n = strlen(feature);
    for (const char *p = features; (p = strstr(p, feature)) != NULL; p += n)
        if ((p == features || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* x86 CPUs LLVM knows with AVX-512BW (for a CPU named without features). */
static const char *const avx512bw_cpus[] = {
    "x86-64-v4",       "skylake-avx512", "cascadelake", "cooperlake",     "cannonlake",    "icelake-client",
    "icelake-server",  "tigerlake",      "rocketlake",  "sapphirerapids", "emeraldrapids", "graniterapids",
    "graniterapids-d", "diamondrapids",  "znver4",      "znver5"};

/* 64 on x86 with AVX-512BW (512-bit registers, byte shuffles) unless
 * 512-bit instructions are turned off (-evex512); 32 elsewhere: two
 * registers on 16-byte targets, which their backends pair well. The host's
 * features name evex512 on LLVM 19 (14 to 16 have no such feature); LLVM
 * 22 neither names nor honours it (AVX-512 means 512-bit registers), so
 * there a "-evex512" only makes vectors narrower than they could be. */
static int vector_bytes(const sg_target *t)
{
    if (t->arch != SG_ARCH_X86_64 || has_feature(t->features, "-evex512") ||
        has_feature(t->features, "-avx512bw"))
        return 32;
    if (has_feature(t->features, "+avx512bw"))
        return 64;
    for (size_t i = 0; i < sizeof avx512bw_cpus / sizeof avx512bw_cpus[0]; i++)
        if (strcmp(t->cpu, avx512bw_cpus[i]) == 0)
            return 64;
    return 32;
}

sg_status sg_target_init(sg_target *t, const char *triple, const char *cpu, const char *features,
                         sg_error *err)
{
    char *llvm = NULL, *message = NULL;
    memset(t, 0, sizeof *t);
    if (sg_llvm_init(err) != SG_OK)
        return err->status;
    t->host = triple == NULL && cpu == NULL && features == NULL;
    if (!t->host)
        pthread_once(&all_once, init_all);
    /* LLVM's strings must be released with LLVMDisposeMessage: copy them. */
    llvm = triple ? LLVMNormalizeTargetTriple(triple) : LLVMGetDefaultTargetTriple();
    t->triple = copy(llvm);
    LLVMDisposeMessage(llvm);
    if (t->triple == NULL)
        goto nomem;
    t->arch = arch_of(t->triple);
    if (triple != NULL)
        named_defaults(t, &cpu, &features);
    llvm = cpu || triple ? NULL : LLVMGetHostCPUName();
    t->cpu = copy(cpu ? cpu : llvm ? llvm : "generic");
    LLVMDisposeMessage(llvm);
    /* A CPU named for the host's triple gets that CPU's features, not this
     * machine's: its code must run there. */
    llvm = features || triple || cpu ? NULL : LLVMGetHostCPUFeatures();
    t->features = copy(features ? features : llvm ? llvm : "");
    LLVMDisposeMessage(llvm);
    if (!t->cpu || !t->features)
        goto nomem;
    if (LLVMGetTargetFromTriple(t->triple, &t->target, &message)) {
        sg_fail(err, SG_ERR_USAGE, "failed to find target: %s (%s)", message, triple ? triple : t->triple);
        goto fail;
    }
    LLVMDisposeMessage(message);
    t->vector_bytes = vector_bytes(t);
    bool x86 = t->arch == SG_ARCH_X86_64 || t->arch == SG_ARCH_X86_32;
    t->fence = !x86                                                               ? SG_FENCE_RELEASE
               : t->arch == SG_ARCH_X86_64 || strstr(t->features, "+sse") != NULL ? SG_FENCE_SFENCE
                                                                                  : SG_FENCE_SEQ_CST;
    t->nt_min_bytes = t->arch == SG_ARCH_X86_64 || (x86 && strstr(t->features, "+sse2") != NULL) ? 4 : 0;
    if (t->host)
        t->llc_bytes = sg_host_llc_bytes();
    return SG_OK;
nomem:
    sg_fail(err, SG_ERR_NOMEM, "failed to describe target: out of memory");
fail:
    LLVMDisposeMessage(message);
    sg_target_fini(t);
    return err->status;
}

/* The architecture of a normalized triple: its first component. */
static bool same_arch(const char *a, const char *b)
{
    size_t n = strcspn(a, "-");
    return n == strcspn(b, "-") && strncmp(a, b, n) == 0;
}

sg_status sg_target_init_aot(sg_target *t, const char *triple, const char *cpu, sg_error *err)
{
    if (cpu == NULL || strcmp(cpu, "native") != 0) {
        char *host = triple ? NULL : LLVMGetDefaultTargetTriple();
        sg_target_init(t, triple ? triple : host, cpu, NULL, err);
        LLVMDisposeMessage(host);
        return err->status;
    }
    if (sg_target_init(t, NULL, NULL, NULL, err) != SG_OK || triple == NULL)
        return err->status;
    sg_target host = *t; /* the host's triple, CPU and features, for `triple` */
    memset(t, 0, sizeof *t);
    char *named = LLVMNormalizeTargetTriple(triple);
    bool same = same_arch(named, host.triple);
    LLVMDisposeMessage(named);
    if (same && sg_target_init(t, triple, host.cpu, host.features, err) == SG_OK)
        t->llc_bytes = host.llc_bytes;
    else
        sg_fail(err, SG_ERR_USAGE,
                "failed to use target %s with cpu 'native': 'native' is this machine's CPU, for %s", triple,
                host.triple);
    sg_target_fini(&host);
    return err->status;
}

/* Whether an L3 size that sysconf gave (CPUID 0x80000006, or the sum of
 * the L3s) is an AMD package's rather than one core complex's: on AMD
 * each core complex has an L3 of its own, of at most AMD_CCX_L3_MAX bytes
 * (with 3D V-Cache); a larger figure is what a hypervisor without the
 * cache topology of /sys or CPUID 0x8000001D reports for the package
 * (AMD EPYC: 508 MiB), too large to tell what stays in the cache. */
enum { AMD_CCX_L3_MAX = 96 << 20 };
static bool amd_l3_of_package(uint64_t bytes)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return false;
    bool amd = (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) || /* AuthenticAMD */
               (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975);   /* HygonGenuine */
    return amd && bytes > AMD_CCX_L3_MAX;
#else
    (void)bytes;
    return false;
#endif
}

uint64_t sg_host_llc_bytes(void)
{
    /* /sys first: it describes the cache one core sees (on AMD EPYC its
     * CCX's L3), where glibc's sysconf may add up every L3 of the package. */
    uint64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[96], text[64];
        int level = 0;
        unsigned long long size = 0;
        char unit = 'K';
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            break;
        if (fgets(text, sizeof text, f) != NULL)
            level = atoi(text);
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        if (fgets(text, sizeof text, f) == NULL || sscanf(text, "%llu%c", &size, &unit) < 1)
            size = 0;
        fclose(f);
        size *= unit == 'M' ? 1048576 : unit == 'G' ? 1073741824 : unit == 'K' ? 1024 : 1;
        if (level > best_level && size > 0) {
            best_level = level;
            best = size;
        }
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (best == 0 && l3 > 0)
        best = amd_l3_of_package((uint64_t)l3) ? 0 : (uint64_t)l3;
#endif
    return best;
}

void sg_target_fini(sg_target *t)
{
    free(t->triple);
    free(t->cpu);
    free(t->features);
    memset(t, 0, sizeof *t);
}

void sg_target_release(sg_target *t, LLVMTargetMachineRef tm, LLVMContextRef c, LLVMModuleRef m)
{
    if (m)
        LLVMDisposeModule(m);
    if (c)
        LLVMContextDispose(c);
    if (tm)
        LLVMDisposeTargetMachine(tm);
    sg_target_fini(t);
}

sg_status sg_target_machine(const sg_target *t, int opt_level, LLVMTargetMachineRef *tm, sg_error *err)
{
    static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                 LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive};
    bool large = t->jit && t->arch == SG_ARCH_X86_64;
    LLVMTargetMachineRef m = LLVMCreateTargetMachine(
        t->target, t->triple, t->cpu, t->features, levels[opt_level], large ? LLVMRelocStatic : LLVMRelocPIC,
        large ? LLVMCodeModelLarge : LLVMCodeModelDefault);
    if (m == NULL)
        return sg_fail(err, SG_ERR_INTERNAL, "failed to create target machine: %s %s", t->triple, t->cpu);
    *tm = m;
    return SG_OK;
}

/* ---- checking a named target ------------------------------------------------ */

/* Slices (words split at spaces) whose kernels use every kind of code the emitter makes: runs of
 * each size, shuffles (strided, reversed), broadcasts, fills and segment
 * tables. */
static const char *const probe_slices[][3] = {
    {"[::-1,1::2]", "9,40", "f32"},
    {"[:,::3]", "5,77", "u8"},
    {"[1:,None,2:-1]", "6,300", "f16"},
    {"[:,3:-3]", "3,600", "f32"},
    {"[:,::-1]", "4,70,3", "u8"},
    {"[::2]", "3000000", "i64"},
    {"--op TrtSlice --start -3,-2 --size 9,40 --mode fill --fill 7", "4,5", "i32"},
    {"--op TrtSlice --start -50 --size 300 --mode wrap", "3", "i16"},
    {"--op TrtSlice --start 0,-1 --size 4,6 --stride 0,1 --mode reflect", "5,3", "f64"},
};

/* In a child process: the target machine and the probe kernels, compiled.
 * Returns the child's exit status. */
static int probe_child(const sg_target *t)
{
    sg_error err = {0};
    LLVMTargetMachineRef tm = NULL;
    LLVMContextRef ctx = LLVMContextCreate();
    if (sg_target_machine(t, 2, &tm, &err) != SG_OK)
        goto fail;
    LLVMModuleRef m = sg_codegen_new_module("probe", t, tm, ctx);
    for (size_t i = 0; i < sizeof probe_slices / sizeof probe_slices[0]; i++) {
        char words[128], *w[16];
        int n = 0;
        int64_t *shape = NULL;
        size_t rank = 0;
        sg_dtype dtype = SG_U8;
        sg_spec *spec = NULL;
        sg_plan *plan = NULL;
        snprintf(words, sizeof words, "%s", probe_slices[i][0]);
        for (char *save = NULL, *p = strtok_r(words, " ", &save); p && n < 16; p = strtok_r(NULL, " ", &save))
            w[n++] = p;
        sg_dtype_parse(probe_slices[i][2], &dtype);
        if (sg_spec_parse_words(n, w, &spec, &err) == SG_OK &&
            sg_parse_int_list(probe_slices[i][1], "shape", &shape, &rank, &err) == SG_OK &&
            sg_plan_build(spec, rank, shape, dtype, &plan, &err) == SG_OK) {
            char symbol[16];
            snprintf(symbol, sizeof symbol, "probe%zu", i);
            sg_codegen_add_kernel(plan, symbol, t, m, &err);
        }
        sg_plan_free(plan);
        sg_spec_free(spec);
        free(shape);
        if (err.status != SG_OK)
            goto fail;
    }
    LLVMMemoryBufferRef object = NULL;
    char *message = NULL;
    if (sg_codegen_verify(m, "probe kernels", &err) != SG_OK || sg_codegen_optimize(m, tm, 2, &err) != SG_OK)
        goto fail;
    LLVMCodeGenFileType type = sg_target_is_gpu(t) ? LLVMAssemblyFile : LLVMObjectFile; /* PTX is text */
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, type, &message, &object)) {
        fprintf(stderr, "%s\n", message);
        return 3;
    }
    return 0;
fail:
    fprintf(stderr, "%s\n", err.message);
    return 3;
}

/* The first line of text, without a leading "LLVM ERROR: " (LLVM's own
 * fatal-error report) or "slicegen: error: LLVM failed: " (ours). */
static const char *first_line(char *text)
{
    static const char *const prefixes[] = {"LLVM ERROR: ", "slicegen: error: LLVM failed: "};
    text[strcspn(text, "\n")] = '\0';
    for (size_t i = 0; i < 2; i++)
        if (starts_with(text, prefixes[i]))
            return text + strlen(prefixes[i]);
    return text;
}

/* For a CPU it does not know LLVM prints a warning and carries on; some
 * combinations (a 32-bit CPU for a 64-bit triple, RISC-V "generic" on
 * LLVM 14, a target that cannot lower a memcpy) end the process from inside
 * LLVM. So a named target is first used in a child process: it compiles the
 * probe kernels, and whatever LLVM writes to stderr, or the child's death,
 * becomes the reason the target is refused. The probe takes a few
 * milliseconds. */
static sg_status probe(const sg_target *t, sg_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return sg_fail(err, SG_ERR_INTERNAL, "failed to check target %s: %s", t->triple, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        /* An abort inside LLVM is the child's answer: no handler the host
         * process installed (a language runtime's crash reporter) runs. */
        static const int fatal_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
        for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
            signal(fatal_signals[i], SIG_DFL);
        _exit(probe_child(t));
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return sg_fail(err, SG_ERR_INTERNAL, "failed to check target %s: %s", t->triple, strerror(errno));
    }
    char said[1024] = "";
    size_t len = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    bool timed_out = false;
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        int ready = poll(&p, 1, 1000);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready > 0) {
            char buf[4096];
            ssize_t n = read(fds[0], buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                break;
            for (ssize_t i = 0; i < n && len + 1 < sizeof said; i++)
                said[len++] = buf[i];
        }
        if (now.tv_sec - start.tv_sec > 60) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
    }
    close(fds[0]);
    said[len] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out)
        return sg_fail(err, SG_ERR_INTERNAL, "failed to check target %s (cpu '%s'): no answer in 60 s",
                       t->triple, t->cpu);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && len == 0)
        return SG_OK;
    const char *reason = len > 0               ? first_line(said)
                         : WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
                                               : "LLVM stopped without a message";
    return sg_fail(err, SG_ERR_USAGE, "failed to use target %s with cpu '%s': %s", t->triple, t->cpu, reason);
}

sg_status sg_target_check(const sg_target *t, sg_error *err)
{
    LLVMTargetMachineRef tm = NULL;
    /* The baseline CPU of this machine's own architecture needs no probe. */
    char *host = t->baseline ? LLVMGetDefaultTargetTriple() : NULL;
    bool known = host != NULL && same_arch(t->triple, host);
    LLVMDisposeMessage(host);
    if (!t->host && !known && probe(t, err) != SG_OK)
        return err->status;
    if (sg_target_machine(t, 0, &tm, err) != SG_OK)
        return err->status;
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    if (LLVMByteOrder(layout) != LLVMLittleEndian)
        sg_fail(err, SG_ERR_USAGE,
                "failed to use target %s: big-endian targets are not supported (kernels store fill values "
                "as little-endian bytes)",
                t->triple);
    LLVMDisposeTargetData(layout);
    LLVMDisposeTargetMachine(tm);
    return err->status;
}

/* ---- modules -------------------------------------------------------------------- */

/* The IR passes of -O1 and -O2. The emitted IR is already the loop nest
 * wanted, so the kernel needs only cleaning up: folding the clamps of the
 * outer range, removing dead paths, hoisting invariant addresses and
 * simplifying induction variables. On the benchmark's kernels this gives
 * the same machine code as "default<O2>" at a fifth of its cost. */
#if LLVM_VERSION_MAJOR >= 18 /* a pipeline's text asks instcombine for a checked fixpoint unless told */
#define INSTCOMBINE "instcombine<no-verify-fixpoint>"
#else
#define INSTCOMBINE "instcombine"
#endif
static const char kernel_pipeline[] =
    "function(early-cse," INSTCOMBINE ",simplifycfg,loop-mssa(licm),loop(indvars,loop-deletion)," INSTCOMBINE
    ",simplifycfg)";

sg_status sg_codegen_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, int opt_level, sg_error *err)
{
    if (opt_level == 0) /* -O0: the IR as emitted */
        return SG_OK;
    const char *pipeline = opt_level < 3 ? kernel_pipeline : "default<O3>";
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    /* The IR already holds the vector code we want; left on, the SLP
     * vectorizer may make gathers (loops carry a no-vectorize hint). */
    LLVMPassBuilderOptionsSetSLPVectorization(options, 0);
    LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, options);
    LLVMDisposePassBuilderOptions(options);
    return e ? sg_llvm_fail(err, e, "optimize kernel") : SG_OK;
}

/* The module for plan, emitted and optimized; the caller owns ctx. */
static sg_status build_module(const sg_plan *plan, const char *symbol, const sg_target *t,
                              LLVMTargetMachineRef tm, int opt_level, LLVMContextRef ctx,
                              LLVMModuleRef *module, sg_error *err)
{
    if (sg_codegen_module(plan, symbol, t, tm, ctx, module, err) != SG_OK)
        return err->status;
    if (sg_codegen_optimize(*module, tm, opt_level, err) != SG_OK) {
        LLVMDisposeModule(*module);
        return err->status;
    }
    return SG_OK;
}

static sg_status check_level(int opt_level, sg_error *err)
{
    if (opt_level < 0 || opt_level > 3)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernel: optimization level %d (0..3)",
                       opt_level);
    return SG_OK;
}

sg_status sg_codegen_ir_text(const sg_plan *plan, int opt_level, sg_stores stores, char **text, sg_error *err)
{
    sg_target t = {0};
    sg_nest_key key = {0};
    LLVMTargetMachineRef tm = NULL;
    LLVMContextRef ctx = NULL;
    LLVMModuleRef m = NULL;
    char symbol[SG_SYMBOL_MAX];
    if (stores != SG_STORES_AUTO && stores != SG_STORES_CACHED && stores != SG_STORES_STREAMING) {
        sg_fail(err, SG_ERR_USAGE, "failed to compile kernel: stores %d (auto 0, cached 1, streaming 2)",
                (int)stores);
        goto done;
    }
    if (check_level(opt_level, err) != SG_OK || sg_nest_key_make(plan, &key, err) != SG_OK ||
        sg_target_init(&t, NULL, NULL, NULL, err) != SG_OK ||
        sg_target_machine(&t, opt_level, &tm, err) != SG_OK)
        goto done;
    t.stores = stores;
    sg_codegen_symbol(plan, &key, symbol);
    ctx = LLVMContextCreate();
    if (build_module(plan, symbol, &t, tm, opt_level, ctx, &m, err) != SG_OK)
        goto done;
    char *ir = LLVMPrintModuleToString(m);
    *text = copy(ir);
    LLVMDisposeMessage(ir);
    if (*text == NULL)
        sg_fail(err, SG_ERR_NOMEM, "failed to print kernel IR: out of memory");
done:
    sg_target_release(&t, tm, ctx, m);
    sg_nest_key_free(&key);
    return err->status;
}

sg_status sg_codegen_object(const sg_plan *plan, const char *symbol, const sg_target *t,
                            LLVMTargetMachineRef tm, int opt_level, LLVMMemoryBufferRef *object,
                            sg_error *err)
{
    LLVMContextRef ctx = NULL;
    LLVMModuleRef m = NULL;
    char *message = NULL;
    if (check_level(opt_level, err) != SG_OK)
        goto done;
    ctx = LLVMContextCreate();
    if (build_module(plan, symbol, t, tm, opt_level, ctx, &m, err) != SG_OK)
        goto done;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &message, object))
        sg_fail(err, SG_ERR_INTERNAL, "failed to generate code for kernel %s: %s", symbol, message);
done:
    LLVMDisposeMessage(message);
    if (m)
        LLVMDisposeModule(m);
    if (ctx)
        LLVMContextDispose(ctx);
    return err->status;
}

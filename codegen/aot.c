/* Ahead-of-time output: many kernels, their descriptions and a table in one
 * module for any target, rendered as an object, archive, assembly or IR.
 *
 * Each kernel is emitted and optimized in a module of its own (so progress
 * can be reported kernel by kernel), then merged into the output module
 * (add_kernels: in time and memory linear in the kernels, give or take a
 * logarithm), which also receives, per kernel NAME, the constant
 * `NAME_info` of type slicegen_kernel_info (header.c defines the C side;
 * the field order here must match it) and, with a prefix P, `P_kernels`
 * and `P_kernel_count`. The header names what the object calls besides
 * memcpy and memset, as read from the object. */
#define SG_CODEGEN_INTERNAL
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Linker.h>
#include <llvm-c/Object.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>

#include "../frontend/graph.h"
#include "codegen.h"
#include "ir.h"

int sg_aot_format_of(const char *path, sg_aot_format *format)
{
    static const struct {
        const char *ext;
        sg_aot_format format;
    } known[] = {{".o", SG_AOT_OBJECT},
                 {".a", SG_AOT_ARCHIVE},
                 {".s", SG_AOT_ASSEMBLY},
                 {".ll", SG_AOT_LLVM_IR},
                 {".ptx", SG_AOT_PTX}};
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot == NULL || (slash != NULL && dot < slash) || dot == (slash ? slash + 1 : path))
        return 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(dot, known[i].ext) == 0) {
            *format = known[i].format;
            return 1;
        }
    }
    return 0;
}

void sg_aot_output_free(sg_aot_output *out)
{
    free(out->bytes);
    free(out->header);
    *out = (sg_aot_output){0};
}

/* ---- descriptions ----------------------------------------------------------------- */

typedef struct meta {
    LLVMContextRef c;
    LLVMModuleRef m;
    LLVMTypeRef i32, i64, ptr, size_t_type, info;
} meta;

/* With typed pointers (LLVM 14) every pointer field is an i8*. */
static LLVMValueRef as_ptr(meta *x, LLVMValueRef v)
{
    return sg_ir_const_ptr(v, x->ptr);
}

static LLVMValueRef private_constant(meta *x, LLVMValueRef init, unsigned align)
{
    LLVMValueRef g = LLVMAddGlobal(x->m, LLVMTypeOf(init), "");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, align);
    return as_ptr(x, g);
}

static LLVMValueRef string(meta *x, const char *s)
{
    if (s == NULL)
        return LLVMConstNull(x->ptr);
    return private_constant(x, LLVMConstStringInContext(x->c, s, (unsigned)strlen(s), 0), 1);
}

static LLVMValueRef shape(meta *x, const int64_t *dims, size_t rank)
{
    if (rank == 0)
        return LLVMConstNull(x->ptr);
    LLVMValueRef v[SG_MAX_RANK];
    for (size_t i = 0; i < rank; i++)
        v[i] = LLVMConstInt(x->i64, (unsigned long long)dims[i], 1);
    return private_constant(x, LLVMConstArray(x->i64, v, (unsigned)rank), 8);
}

static LLVMValueRef i32(meta *x, int64_t v)
{
    return LLVMConstInt(x->i32, (unsigned long long)v, 1);
}
static LLVMValueRef i64(meta *x, int64_t v)
{
    return LLVMConstInt(x->i64, (unsigned long long)v, 1);
}

/* Kernel `name` of m: its function, or the alias of another's. */
static LLVMValueRef kernel_symbol(LLVMModuleRef m, const char *name)
{
    LLVMValueRef fn = LLVMGetNamedFunction(m, name);
    return fn ? fn : LLVMGetNamedGlobalAlias(m, name, strlen(name));
}

const sg_layer_numbers *sg_aot_numbers(const sg_aot_kernel *k, const sg_compile_options *o,
                                       const sg_target *t)
{
    const sg_model *model = o->model;
    if (model == NULL || model->numbers == NULL || k->model_layer == NULL || k->plan->sym == NULL ||
        sg_target_is_gpu(t) || k->model_layer < model->layers ||
        k->model_layer >= model->layers + model->nlayers)
        return NULL;
    const sg_layer_numbers *n = &model->numbers[k->model_layer - model->layers];
    return n->symbolic ? n : NULL;
}

/* NAME_info for kernel k, whose function is fn, as *info. */
static sg_status add_info(meta *x, const sg_aot_kernel *k, const sg_compile_options *o, LLVMValueRef fn,
                          const sg_target *t, LLVMValueRef *info, sg_error *err)
{
    const sg_plan *p = k->plan;
    char *plan = sg_plan_to_text(p);
    size_t len = strlen(k->name);
    char *name = malloc(len + sizeof "_info");
    if (plan == NULL || name == NULL) {
        free(plan);
        free(name);
        return sg_fail(err, SG_ERR_NOMEM, "failed to describe kernel %s: out of memory", k->name);
    }
    const sg_sym *sym = p->sym;
    LLVMValueRef names = LLVMConstNull(x->ptr);
    if (sym && sym->nvalues > 0) {
        LLVMValueRef v[SG_MAX_VALUES];
        for (size_t i = 0; i < sym->nvalues; i++)
            v[i] = string(x, sym->spec->values[i]);
        names = private_constant(x, LLVMConstArray(x->ptr, v, (unsigned)sym->nvalues), 8);
    }
    LLVMValueRef fused = LLVMConstNull(x->ptr);
    if (k->fused_count > 0) {
        LLVMValueRef *v = malloc(k->fused_count * sizeof *v);
        if (v == NULL) {
            free(plan);
            free(name);
            return sg_fail(err, SG_ERR_NOMEM, "failed to describe kernel %s: out of memory", k->name);
        }
        for (size_t i = 0; i < k->fused_count; i++)
            v[i] = string(x, k->fused_layers[i]);
        fused = private_constant(x, LLVMConstArray(x->ptr, v, (unsigned)k->fused_count), 8);
        free(v);
    }
    LLVMValueRef prepare = LLVMConstNull(x->ptr);
    if (sym) {
        char *prep = sg_prepare_symbol(k->name);
        if (prep == NULL) {
            free(plan);
            free(name);
            return sg_fail(err, SG_ERR_NOMEM, "failed to describe kernel %s: out of memory", k->name);
        }
        prepare = as_ptr(x, kernel_symbol(x->m, prep));
        free(prep);
    }
    LLVMValueRef numbers = LLVMConstNull(x->ptr);
    if (sg_aot_numbers(k, o, t) != NULL) {
        char *fn_name = malloc(strlen(k->name) + sizeof "_numbers");
        if (fn_name == NULL) {
            free(plan);
            free(name);
            return sg_fail(err, SG_ERR_NOMEM, "failed to describe kernel %s: out of memory", k->name);
        }
        sprintf(fn_name, "%s_numbers", k->name);
        numbers = as_ptr(x, LLVMGetNamedFunction(x->m, fn_name));
        free(fn_name);
    }
    LLVMValueRef fields[] = {
        i32(x, SG_KERNEL_INFO_VERSION),
        string(x, k->name),
        string(x, k->layer),
        i64(x, k->layer ? k->layer_id : -1),
        sym ? LLVMConstNull(x->ptr) : as_ptr(x, fn),
        string(x, sg_dtype_name(p->dtype)),
        i32(x, (int64_t)p->elem_size),
        i32(x, (int64_t)p->in_rank),
        shape(x, p->in_shape, p->in_rank),
        i32(x, (int64_t)p->out_rank),
        shape(x, p->out_shape, p->out_rank),
        i64(x, sg_nest_outer_extent(p)),
        i64(x, sym ? -1 : (int64_t)p->in_bytes),
        i64(x, sym ? -1 : (int64_t)p->out_bytes),
        string(x, k->spec),
        string(x, plan),
        string(x, t->triple),
        string(x, t->cpu),
        string(x, t->features),
        i64(x, sg_nest_outer(p).step_bytes),
        prepare,
        i32(x, sym ? (int64_t)sym->nvalues : 0),
        names,
        sym ? as_ptr(x, fn) : LLVMConstNull(x->ptr),
        fused,
        i32(x, (int64_t)k->fused_count),
        numbers,
        i32(x, sym ? (int64_t)sym->spec->fill_value - 1 : -1),
    };
    free(plan);
    memcpy(name, k->name, len);
    memcpy(name + len, "_info", sizeof "_info");
    LLVMValueRef g = LLVMAddGlobal(x->m, x->info, name);
    free(name);
    LLVMSetInitializer(g, LLVMConstNamedStruct(x->info, fields, sizeof fields / sizeof fields[0]));
    LLVMSetGlobalConstant(g, 1);
    *info = g;
    return SG_OK;
}

/* The C struct slicegen_kernel_info of header.c, field by field. */
static LLVMTypeRef info_type(meta *x)
{
    LLVMTypeRef t = LLVMStructCreateNamed(x->c, "slicegen_kernel_info");
    /* clang-format off */
    LLVMTypeRef fields[] = {
        x->i32, /* version */      x->ptr, /* name */         x->ptr, /* layer */
        x->i64, /* layer_id */     x->ptr, /* fn */           x->ptr, /* dtype */
        x->i32, /* elem_size */    x->i32, /* in_rank */      x->ptr, /* in_shape */
        x->i32, /* out_rank */     x->ptr, /* out_shape */    x->i64, /* outer_extent */
        x->i64, /* input_bytes */  x->i64, /* output_bytes */ x->ptr, /* spec */
        x->ptr, /* plan */         x->ptr, /* target */       x->ptr, /* cpu */
        x->ptr, /* features */     x->i64, /* step_bytes */   x->ptr, /* prepare */
        x->i32, /* value_count */  x->ptr, /* value_names */  x->ptr, /* run */
        x->ptr, /* fused_layers */ x->i32, /* fused_count */  x->ptr, /* numbers */
        x->i32, /* fill_value */
    };
    /* clang-format on */
    LLVMStructSetBody(t, fields, sizeof fields / sizeof fields[0], 0);
    return t;
}

/* P_kernels and P_kernel_count. */
static sg_status add_table(meta *x, const char *prefix, LLVMValueRef *infos, size_t count, sg_error *err)
{
    size_t len = strlen(prefix);
    char *name = malloc(len + sizeof "_kernel_count");
    if (name == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to make kernel table: out of memory");
    for (size_t i = 0; i < count; i++)
        infos[i] = as_ptr(x, infos[i]);
    memcpy(name, prefix, len);
    memcpy(name + len, "_kernels", sizeof "_kernels");
    LLVMValueRef array = LLVMConstArray(x->ptr, infos, (unsigned)count);
    LLVMValueRef table = LLVMAddGlobal(x->m, LLVMTypeOf(array), name);
    LLVMSetInitializer(table, array);
    LLVMSetGlobalConstant(table, 1);
    memcpy(name + len, "_kernel_count", sizeof "_kernel_count");
    LLVMValueRef n = LLVMAddGlobal(x->m, x->size_t_type, name);
    LLVMSetInitializer(n, LLVMConstInt(x->size_t_type, count, 0));
    LLVMSetGlobalConstant(n, 1);
    free(name);
    return SG_OK;
}

/* ---- the module ---------------------------------------------------------------------- */

/* A module holding `count` kernels, merged or waiting to be. */
typedef struct part {
    LLVMModuleRef m;
    size_t count;
} part;

/* Links parts[i] into parts[i - 1], which keeps its kernels first. */
static sg_status merge(part *parts, size_t i, sg_error *err)
{
    LLVMModuleRef m = parts[i].m;
    parts[i].m = NULL;
    if (LLVMLinkModules2(parts[i - 1].m, m)) /* takes m */
        return sg_fail(err, SG_ERR_INTERNAL, "failed to link kernels into the module");
    parts[i - 1].count += parts[i].count;
    return SG_OK;
}

/* For each kernel, the first kernel with the same loop nest (sg_nest_key),
 * itself if none: kernels of equal nests have the same code, as in the
 * JIT's cache. *shares is malloc'd. */
static sg_status find_shared(const sg_aot_kernel *kernels, size_t count, size_t **shares, sg_error *err)
{
    size_t size = 16;
    while (size < 2 * count)
        size *= 2;
    sg_nest_key *keys = calloc(count + 1, sizeof *keys);
    size_t *slots = malloc(size * sizeof *slots); /* kernel + 1, 0 for empty */
    *shares = malloc((count + 1) * sizeof **shares);
    if (keys == NULL || slots == NULL || *shares == NULL)
        sg_fail(err, SG_ERR_NOMEM, "failed to compile kernels: out of memory for %zu kernels", count);
    else
        memset(slots, 0, size * sizeof *slots);
    for (size_t i = 0; i < count && err->status == SG_OK; i++) {
        if (sg_nest_key_make(kernels[i].plan, &keys[i], err) != SG_OK)
            break;
        size_t at = keys[i].hash & (size - 1);
        while (slots[at] != 0 && (keys[slots[at] - 1].len != keys[i].len ||
                                  memcmp(keys[slots[at] - 1].bytes, keys[i].bytes, keys[i].len) != 0))
            at = (at + 1) & (size - 1);
        if (slots[at] == 0)
            slots[at] = i + 1;
        (*shares)[i] = slots[at] - 1;
    }
    for (size_t i = 0; keys && i < count; i++)
        sg_nest_key_free(&keys[i]);
    free(keys);
    free(slots);
    if (err->status != SG_OK) {
        free(*shares);
        *shares = NULL;
    }
    return err->status;
}

/* Each kernel emitted and optimized alone, then merged into m in kernel
 * order; a kernel whose nest an earlier one has is an alias of that one's
 * function (but for GPUs, whose entries are kernels of their own).
 * Linking a module scans the whole module linked into (LLVM's IRMover
 * collects its types), so linking kernel after kernel into m would take
 * time quadratic in the kernels. The modules are merged like the
 * digits of a binary counter instead: a stack of parts, each holding more
 * kernels than the one above, where a new kernel's module is pushed and
 * merged down while the part below holds no more kernels than it. Every
 * kernel is then in a module scanned O(log count) times; m, at the bottom,
 * receives everything at the end. */
/* NAME_numbers of a kernel, in a module of its own (as a kernel's). */
static sg_status numbers_module(const sg_layer_numbers *n, const char *name, const sg_target *t,
                                LLVMTargetMachineRef tm, LLVMContextRef c, int opt_level, LLVMModuleRef *out,
                                sg_error *err)
{
    LLVMModuleRef m = sg_codegen_new_module(name, t, tm, c);
    if (sg_codegen_add_numbers(n, name, t, m, err) != SG_OK || sg_codegen_verify(m, name, err) != SG_OK ||
        sg_codegen_optimize(m, tm, opt_level, err) != SG_OK) {
        LLVMDisposeModule(m);
        return err->status;
    }
    *out = m;
    return SG_OK;
}

static sg_status add_kernels(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                             const sg_target *t, LLVMTargetMachineRef tm, LLVMModuleRef m, sg_error *err)
{
    LLVMContextRef c = LLVMGetModuleContext(m);
    part parts[8 * sizeof(size_t) + 2] = {{m, SIZE_MAX}};
    size_t top = 0, *shares = NULL; /* parts[0..top] */
    bool gpu = sg_target_is_gpu(t);
    if (!gpu && find_shared(kernels, count, &shares, err) != SG_OK)
        return err->status;
    for (size_t i = 0; i < count && err->status == SG_OK; i++) {
        const sg_layer_numbers *numbers = sg_aot_numbers(&kernels[i], o, t);
        if (numbers != NULL) {
            if (numbers_module(numbers, kernels[i].name, t, tm, c, o->opt_level, &parts[top + 1].m, err) !=
                SG_OK)
                break;
            parts[++top].count = 1;
            while (top > 1 && parts[top - 1].count <= parts[top].count && merge(parts, top, err) == SG_OK)
                top--;
        }
        if (shares && shares[i] != i) {
            if (o->progress)
                o->progress(o->progress_arg, i + 1, count);
            continue;
        }
        LLVMModuleRef one;
        if (sg_codegen_module(kernels[i].plan, kernels[i].name, t, tm, c, &one, err) != SG_OK)
            break;
        parts[++top] = (part){one, 1};
        if (sg_codegen_optimize(one, tm, o->opt_level, err) != SG_OK)
            break;
        while (top > 1 && parts[top - 1].count <= parts[top].count && merge(parts, top, err) == SG_OK)
            top--;
        if (err->status == SG_OK && o->progress)
            o->progress(o->progress_arg, i + 1, count);
    }
    for (; top > 0 && err->status == SG_OK; top--)
        merge(parts, top, err);
    for (; top > 0; top--)
        if (parts[top].m)
            LLVMDisposeModule(parts[top].m);
    for (size_t i = 0; i < count && shares && err->status == SG_OK; i++) {
        if (shares[i] == i)
            continue;
        LLVMValueRef fn = LLVMGetNamedFunction(m, kernels[shares[i]].name);
        LLVMAddAlias2(m, LLVMGlobalGetValueType(fn), 0, fn, kernels[i].name);
        char *from = kernels[i].plan->sym ? sg_prepare_symbol(kernels[shares[i]].name) : NULL;
        char *to = from ? sg_prepare_symbol(kernels[i].name) : NULL;
        if (to != NULL) { /* and its prologue */
            fn = LLVMGetNamedFunction(m, from);
            LLVMAddAlias2(m, LLVMGlobalGetValueType(fn), 0, fn, to);
        } else if (kernels[i].plan->sym) {
            sg_fail(err, SG_ERR_NOMEM, "failed to compile kernels: out of memory");
        }
        free(from);
        free(to);
    }
    free(shares);
    return err->status;
}

static sg_status add_descriptions(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                                  const sg_target *t, LLVMTargetMachineRef tm, LLVMModuleRef m, sg_error *err)
{
    meta x = {.c = LLVMGetModuleContext(m), .m = m};
    x.i32 = LLVMInt32TypeInContext(x.c);
    x.i64 = LLVMInt64TypeInContext(x.c);
    x.ptr = sg_ir_ptr_type(x.c, 0);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    x.size_t_type = LLVMIntPtrTypeInContext(x.c, layout);
    LLVMDisposeTargetData(layout);
    x.info = info_type(&x);
    LLVMValueRef *infos = malloc((count + 1) * sizeof *infos); /* a model's table may be empty */
    if (infos == NULL)
        return sg_fail(err, SG_ERR_NOMEM, "failed to describe kernels: out of memory");
    for (size_t i = 0; i < count && err->status == SG_OK; i++)
        add_info(&x, &kernels[i], o, kernel_symbol(m, kernels[i].name), t, &infos[i], err);
    if (err->status == SG_OK && o->prefix != NULL)
        add_table(&x, o->prefix, infos, count, err);
    free(infos);
    return err->status;
}

/* The symbols the module defines, for an archive's index: kernels, infos,
 * and the table. Strings point into *storage (malloc'd). */
static const char **defined_symbols(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                                    const sg_target *t, size_t *nsymbols, char **storage)
{
    const char *prefix = o->prefix;
    size_t bytes = 0;
    for (size_t i = 0; i < count; i++)
        bytes += 4 * strlen(kernels[i].name) + sizeof "_info" + sizeof "_prepare" + sizeof "_numbers" + 1;
    if (prefix)
        bytes += 2 * strlen(prefix) + sizeof "_kernels" + sizeof "_kernel_count";
    const char **symbols = malloc((4 * count + 2) * sizeof *symbols);
    char *s = *storage = malloc(bytes);
    if (symbols == NULL || s == NULL) {
        free(symbols);
        free(s);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        symbols[n++] = s;
        s += sprintf(s, "%s", kernels[i].name) + 1;
        symbols[n++] = s;
        s += sprintf(s, "%s_info", kernels[i].name) + 1;
        if (kernels[i].plan->sym) {
            symbols[n++] = s;
            s += sprintf(s, "%s_prepare", kernels[i].name) + 1;
        }
        if (sg_aot_numbers(&kernels[i], o, t) != NULL) {
            symbols[n++] = s;
            s += sprintf(s, "%s_numbers", kernels[i].name) + 1;
        }
    }
    if (prefix) {
        symbols[n++] = s;
        s += sprintf(s, "%s_kernels", prefix) + 1;
        symbols[n++] = s;
        s += sprintf(s, "%s_kernel_count", prefix) + 1;
    }
    *nsymbols = n;
    return symbols;
}

/* LLVM before 15 ignores the module's "target-abi" flag when it writes a
 * RISC-V object's ELF header, so the header says soft-float and linkers
 * refuse to mix it with lp64d code. Kernels pass no floating-point values,
 * so the float ABI only labels the object: set the label (EF_RISCV_FLOAT_ABI
 * bits of e_flags) to t's. */
static void label_riscv_float_abi(unsigned char *elf, size_t size, const sg_target *t)
{
    enum { EM_RISCV = 243, FLOAT_ABI_MASK = 0x6, FLOAT_ABI_DOUBLE = 0x4 };
    if (size < 52 || memcmp(elf, "\177ELF", 4) != 0 || elf[5] != 1 /* little-endian */ ||
        elf[18] + 256 * elf[19] != EM_RISCV || strstr(t->abi, "d") == NULL)
        return;
    size_t at = elf[4] == 2 ? 48 : 36; /* e_flags of ELF64 or ELF32 */
    if ((elf[at] & FLOAT_ABI_MASK) == 0)
        elf[at] |= FLOAT_ABI_DOUBLE;
}

/* The functions an object calls besides memcpy and memset: its symbols in
 * no section, but for the file symbol (named after `member`), the
 * assembler's (a name starting with '.' or '@') and the linker's
 * _GLOBAL_OFFSET_TABLE_; "memcpy" also as "_memcpy" (Mach-O and 32-bit
 * Windows prefix C names). *names is malloc'd, each name too. */
static sg_status object_helpers(const void *bytes, size_t size, const char *member, LLVMContextRef c,
                                char ***names, size_t *count, sg_error *err)
{
    char *message = NULL;
    *names = NULL;
    *count = 0;
    LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(bytes, size, member, 0);
    LLVMBinaryRef object = LLVMCreateBinary(buffer, c, &message);
    if (object == NULL) {
        sg_fail(err, SG_ERR_INTERNAL, "failed to read the object back: %s", message ? message : "?");
        LLVMDisposeMessage(message);
        LLVMDisposeMemoryBuffer(buffer);
        return err->status;
    }
    LLVMSectionIteratorRef section = LLVMObjectFileCopySectionIterator(object);
    LLVMSymbolIteratorRef symbol = LLVMObjectFileCopySymbolIterator(object);
    for (; !LLVMObjectFileIsSymbolIteratorAtEnd(object, symbol); LLVMMoveToNextSymbol(symbol)) {
        const char *name = LLVMGetSymbolName(symbol), *c_name = name + (name[0] == '_');
        LLVMMoveToContainingSection(section, symbol);
        if (!LLVMObjectFileIsSectionIteratorAtEnd(object, section) || name[0] == '\0' || name[0] == '.' ||
            name[0] == '@' || strcmp(name, member) == 0 || strcmp(name, "_GLOBAL_OFFSET_TABLE_") == 0 ||
            strcmp(name, "memcpy") == 0 || strcmp(name, "memset") == 0 || strcmp(c_name, "memcpy") == 0 ||
            strcmp(c_name, "memset") == 0)
            continue;
        bool seen = false;
        for (size_t i = 0; i < *count && !seen; i++)
            seen = strcmp((*names)[i], name) == 0;
        char **more = seen ? *names : realloc(*names, (*count + 1) * sizeof **names);
        char *copy = seen ? NULL : malloc(strlen(name) + 1);
        if (!seen && (more == NULL || copy == NULL)) {
            free(copy);
            if (more)
                *names = more;
            sg_fail(err, SG_ERR_NOMEM, "failed to read the object back: out of memory");
            break;
        }
        if (!seen) {
            *names = more;
            (*names)[(*count)++] = strcpy(copy, name);
        }
    }
    LLVMDisposeSymbolIterator(symbol);
    LLVMDisposeSectionIterator(section);
    LLVMDisposeBinary(object);
    LLVMDisposeMemoryBuffer(buffer);
    return err->status;
}

/* What the header names as the code's calls: those of `object` (the
 * output's own object, or NULL: m compiled again, when the output is
 * assembly or IR; after it was printed, as code generation may change
 * the IR). */
static sg_status find_helpers(const void *object, size_t size, const char *member, LLVMTargetMachineRef tm,
                              LLVMModuleRef m, char ***names, size_t *count, sg_error *err)
{
    LLVMMemoryBufferRef buffer = NULL;
    char *message = NULL;
    if (object == NULL) {
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &message, &buffer)) {
            sg_fail(err, SG_ERR_INTERNAL, "failed to generate code: %s", message);
            LLVMDisposeMessage(message);
            return err->status;
        }
        object = LLVMGetBufferStart(buffer);
        size = LLVMGetBufferSize(buffer);
    }
    object_helpers(object, size, member, LLVMGetModuleContext(m), names, count, err);
    if (buffer)
        LLVMDisposeMemoryBuffer(buffer);
    return err->status;
}

/* m as `format` in *out; with `helpers`, also what the code calls (see
 * find_helpers). */
static sg_status render(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                        sg_aot_format format, const char *member, const sg_target *t, LLVMTargetMachineRef tm,
                        LLVMModuleRef m, sg_aot_output *out, char ***helpers, size_t *nhelpers, sg_error *err)
{
    if (format == SG_AOT_LLVM_IR) {
        char *ir = LLVMPrintModuleToString(m);
        out->size = strlen(ir);
        out->bytes = malloc(out->size + 1);
        if (out->bytes)
            memcpy(out->bytes, ir, out->size + 1);
        LLVMDisposeMessage(ir);
        if (out->bytes == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to print IR: out of memory");
        return helpers ? find_helpers(NULL, 0, member, tm, m, helpers, nhelpers, err) : SG_OK;
    }
    char *message = NULL;
    LLVMMemoryBufferRef buffer = NULL;
    LLVMCodeGenFileType type =
        format == SG_AOT_OBJECT || format == SG_AOT_ARCHIVE ? LLVMObjectFile : LLVMAssemblyFile;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, type, &message, &buffer)) {
        sg_fail(err, SG_ERR_INTERNAL, "failed to generate code: %s", message);
        LLVMDisposeMessage(message);
        return err->status;
    }
    size_t size = LLVMGetBufferSize(buffer);
    unsigned char *start = malloc(size ? size : 1);
    if (start == NULL) {
        LLVMDisposeMemoryBuffer(buffer);
        return sg_fail(err, SG_ERR_NOMEM, "failed to generate code: out of memory for %zu bytes", size);
    }
    memcpy(start, LLVMGetBufferStart(buffer), size);
    LLVMDisposeMemoryBuffer(buffer);
    bool object = format == SG_AOT_OBJECT || format == SG_AOT_ARCHIVE;
    if (object)
        label_riscv_float_abi(start, size, t);
    if (helpers &&
        find_helpers(object ? start : NULL, size, member, tm, m, helpers, nhelpers, err) != SG_OK) {
        free(start);
        return err->status;
    }
    if (format == SG_AOT_ARCHIVE) {
        char *storage = NULL;
        size_t nsymbols = 0;
        const char **symbols = defined_symbols(kernels, count, o, t, &nsymbols, &storage);
        if (symbols == NULL)
            sg_fail(err, SG_ERR_NOMEM, "failed to make archive: out of memory");
        else
            sg_archive(member, start, size, symbols, nsymbols, &out->bytes, &out->size, err);
        free(symbols);
        free(storage);
        free(start);
    } else {
        out->bytes = start;
        out->size = size;
    }
    return err->status;
}

/* The target of an ahead-of-time output. */
static sg_status aot_target(const sg_compile_options *o, sg_target *t, sg_error *err)
{
    if (sg_target_init_aot(t, o->target, o->cpu, err) != SG_OK)
        return err->status;
    t->cf_protection = !o->no_cf_protection;
    t->stores = o->stores;
    if (o->stores != SG_STORES_AUTO && o->stores != SG_STORES_CACHED && o->stores != SG_STORES_STREAMING) {
        sg_target_fini(t);
        return sg_fail(err, SG_ERR_USAGE,
                       "failed to compile kernels: stores %d (auto 0, cached 1, streaming 2)",
                       (int)o->stores);
    }
    return SG_OK;
}

sg_status sg_codegen_aot_streams(const sg_compile_options *o, const sg_plan *plan, bool *streams,
                                 sg_error *err)
{
    sg_target t = {0};
    if (aot_target(o, &t, err) != SG_OK)
        return err->status;
    *streams = sg_codegen_streams(plan, &t);
    sg_target_fini(&t);
    return SG_OK;
}

sg_status sg_codegen_aot_target_text(const sg_compile_options *o, char **text, sg_error *err)
{
    sg_target t = {0};
    *text = NULL;
    if (aot_target(o, &t, err) != SG_OK)
        return err->status;
    size_t size = strlen(t.triple) + strlen(t.cpu) + strlen(t.features) + sizeof " cf-protection" + 3;
    if ((*text = malloc(size)) != NULL)
        snprintf(*text, size, "%s %s %s%s", t.triple, t.cpu, t.features,
                 t.cf_protection ? " cf-protection" : "");
    sg_target_fini(&t);
    return *text ? SG_OK : sg_fail(err, SG_ERR_NOMEM, "failed to describe target: out of memory");
}

sg_status sg_codegen_aot(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                         sg_aot_format format, const char *member, bool want_header, sg_aot_output *out,
                         sg_error *err)
{
    sg_target t = {0};
    LLVMTargetMachineRef tm = NULL;
    LLVMContextRef c = NULL;
    LLVMModuleRef m = NULL;
    char **helpers = NULL;
    size_t nhelpers = 0;
    *out = (sg_aot_output){0};
    if (o->opt_level < 0 || o->opt_level > 3) {
        sg_fail(err, SG_ERR_USAGE, "failed to compile kernels: optimization level %d (0..3)", o->opt_level);
        goto done;
    }
    if (aot_target(o, &t, err) != SG_OK || sg_target_check(&t, err) != SG_OK ||
        sg_target_machine(&t, o->opt_level, &tm, err) != SG_OK)
        goto done;
    bool gpu = sg_target_is_gpu(&t);
    if (gpu != (format == SG_AOT_PTX) && format != SG_AOT_LLVM_IR) {
        sg_fail(err, SG_ERR_USAGE,
                gpu ? "failed to compile kernels: target %s writes .ptx or .ll files"
                    : "failed to compile kernels: .ptx files need an nvptx64 target, not %s",
                t.triple);
        goto done;
    }
    c = LLVMContextCreate();
    m = sg_codegen_new_module(member, &t, tm, c);
    sg_codegen_cf_protection(m, &t);
    /* PTX has no place for descriptions: the header holds what they say. */
    if (add_kernels(kernels, count, o, &t, tm, m, err) != SG_OK ||
        (!gpu && add_descriptions(kernels, count, o, &t, tm, m, err) != SG_OK) ||
        sg_codegen_verify(m, "kernel module", err) != SG_OK ||
        render(kernels, count, o, format, member, &t, tm, m, out, want_header && !gpu ? &helpers : NULL,
               &nhelpers, err) != SG_OK ||
        !want_header)
        goto done;
    sg_aot_code code = {.triple = t.triple,
                        .cpu = t.cpu,
                        .features = t.features,
                        .helpers = (const char *const *)helpers,
                        .nhelpers = nhelpers,
                        .target = &t};
    if ((out->header = sg_aot_header(kernels, count, o, &code)) == NULL)
        sg_fail(err, SG_ERR_NOMEM, "failed to write header: out of memory");
done:
    if (err->status != SG_OK)
        sg_aot_output_free(out);
    for (size_t i = 0; i < nhelpers; i++)
        free(helpers[i]);
    free(helpers);
    sg_target_release(&t, tm, c, m);
    return err->status;
}

/* The public ahead-of-time API: checks kernels and names, has codegen make
 * the output file and header, and writes both whole or not at all. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "runtime.h"

/* Keywords of C11 and C++ (up to C++20): not usable as names. */
/* clang-format off */
static const char *const keywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
    "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class",
    "co_await", "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
    "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend",
    "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
    "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq",
};
/* clang-format on */

static bool is_letter(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_word_char(char c)
{
    return is_letter(c) || (c >= '0' && c <= '9');
}

bool sg_is_identifier(const char *name)
{
    if (name == NULL || !is_letter(name[0]))
        return false;
    for (const char *p = name; *p; p++)
        if (!is_word_char(*p))
            return false;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(name, keywords[i]) == 0)
            return false;
    return true;
}

/* Names a generated header or object cannot introduce, each with the reason. */
/* clang-format off */
static const struct {
    const char *name, *why;
} taken[] = {
    {"slicegen_kernel_info", "is the generated header's description struct"},
    {"slicegen_cuda_kernel_info", "is the generated header's description struct"},
    {"slicegen_args", "is the generated header's argument struct"},
    {"size_t", "is declared by <stddef.h>"}, {"ptrdiff_t", "is declared by <stddef.h>"},
    {"max_align_t", "is declared by <stddef.h>"}, {"NULL", "is defined by <stddef.h>"},
    {"offsetof", "is defined by <stddef.h>"}, {"SIZE_MAX", "is defined by <stdint.h>"},
    {"SIZE_WIDTH", "is defined by <stdint.h>"}, {"PTRDIFF_MIN", "is defined by <stdint.h>"},
    {"PTRDIFF_MAX", "is defined by <stdint.h>"}, {"PTRDIFF_WIDTH", "is defined by <stdint.h>"},
    {"SIG_ATOMIC_MIN", "is defined by <stdint.h>"}, {"SIG_ATOMIC_MAX", "is defined by <stdint.h>"},
    {"WCHAR_MIN", "is defined by <stdint.h>"}, {"WCHAR_MAX", "is defined by <stdint.h>"},
    {"WINT_MIN", "is defined by <stdint.h>"}, {"WINT_MAX", "is defined by <stdint.h>"},
    {"memcpy", "is the C library function kernels call"}, {"memset", "is the C library function kernels call"},
    {"memmove", "is a C library function"}, {"main", "is the program's entry point"},
};
/* clang-format on */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Why the identifier `id` cannot be defined by a generated object or header
 * (kept by C and C++, by the headers it includes, or by the C library), or
 * NULL when it can. */
static const char *reserved(const char *id)
{
    if (id[0] == '_')
        return "is reserved in C and C++ (it starts with '_')";
    if (strstr(id, "__") != NULL)
        return "is reserved in C and C++ (it holds '__')";
    if (strncmp(id, "SLICEGEN_", 9) == 0)
        return "is reserved for the generated header's macros (SLICEGEN_*)";
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
        if (strcmp(id, taken[i].name) == 0)
            return taken[i].why;
    /* <stdint.h>: the types int*_t and uint*_t, the macros INT*_MAX, _MIN,
     * _WIDTH and _C and their UINT* twins (C11 7.20, 7.31.10). */
    const char *rest = strncmp(id, "u", 1) == 0 ? id + 1 : id;
    if (strncmp(rest, "int", 3) == 0 && ends_with(id, "_t"))
        return "is reserved by <stdint.h> (int*_t and uint*_t)";
    rest = strncmp(id, "U", 1) == 0 ? id + 1 : id;
    if (strncmp(rest, "INT", 3) == 0 &&
        (ends_with(id, "_MAX") || ends_with(id, "_MIN") || ends_with(id, "_WIDTH") || ends_with(id, "_C")))
        return "is reserved by <stdint.h> (INT*_MAX, _MIN, _WIDTH, _C and UINT*)";
    return NULL;
}

sg_status sg_kernel_name(sg_context *ctx, const sg_plan *plan, char name[SG_KERNEL_NAME_MAX])
{
    sg_error err = {0};
    sg_nest_key key = {0};
    if (sg_nest_key_make(plan, &key, &err) == SG_OK) {
        char symbol[SG_SYMBOL_MAX];
        sg_codegen_symbol(plan, &key, symbol);
        snprintf(name, SG_KERNEL_NAME_MAX, "%s", symbol);
    }
    sg_nest_key_free(&key);
    return sg_context_report(ctx, &err);
}

/* FNV-1a, 64 bits, of the string s, continued from h. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return (h ^ 0xff) * 0x100000001b3u; /* a terminator, so that "ab","c" differs from "a","bc" */
}

/* sg_compile_options of the same fields. */
static sg_compile_options from_aot_options(const sg_aot_options *a)
{
    sg_compile_options o;
    sg_compile_options_init(&o);
    if (a != NULL) {
        o.target = a->target;
        o.cpu = a->cpu;
        o.opt_level = a->opt_level;
        o.prefix = a->prefix;
        o.command = a->command;
        o.progress = a->progress;
        o.progress_arg = a->progress_arg;
        o.no_cf_protection = a->no_cf_protection != 0;
        o.stores = a->stores;
        o.model = a->model;
    }
    return o;
}

sg_status sg_aot_kernel_name(sg_context *ctx, const sg_aot_kernel *kernel, const sg_aot_options *options,
                             char name[SG_KERNEL_NAME_MAX])
{
    sg_compile_options o = from_aot_options(options);
    return sg_aot_kernel_name_with(ctx, kernel, &o, name);
}

sg_status sg_aot_kernel_name_with(sg_context *ctx, const sg_aot_kernel *kernel,
                                  const sg_compile_options *given, char name[SG_KERNEL_NAME_MAX])
{
    sg_error err = {0};
    sg_compile_options o, *options = &o;
    if (sg_compile_options_read(given, SG_READ_AOT, "name kernel", &o, &err) != SG_OK)
        return sg_context_report(ctx, &err);
    char *plan_text = sg_plan_to_text(kernel->plan), *target = NULL, level[16];
    if (plan_text == NULL) {
        sg_fail(&err, SG_ERR_NOMEM, "failed to name kernel: out of memory");
    } else if (sg_codegen_aot_target_text(options, &target, &err) == SG_OK) {
        /* Everything that makes the kernel and its description. */
        snprintf(level, sizeof level, "-O%d", options->opt_level);
        uint64_t h = 0xcbf29ce484222325u;
        h = fnv1a(fnv1a(fnv1a(fnv1a(h, plan_text), kernel->spec ? kernel->spec : ""), target), level);
        bool streams = false; /* kernels with streaming stores are named apart; others as before */
        if (sg_codegen_aot_streams(options, kernel->plan, &streams, &err) == SG_OK && streams)
            h = fnv1a(h, "streaming stores");
        const sg_plan *p = kernel->plan;
        if (p->sym) /* its numbers at run time */
            snprintf(name, SG_KERNEL_NAME_MAX, "sg_x%zu_l%zu_dyn_%016" PRIx64, p->elem_size, p->nloops, h);
        else
            snprintf(name, SG_KERNEL_NAME_MAX, "sg_x%zu_l%zu_r%" PRId64 "_%016" PRIx64, p->elem_size,
                     p->nloops, p->run_bytes, h);
    }
    free(plan_text);
    free(target);
    return sg_context_report(ctx, &err);
}

/* ---- the names an output defines ---------------------------------------------------- */

/* The identifiers an output introduces (symbols and header macros), in a set
 * (open addressing, power-of-two size) to find clashes. */
typedef struct name_set {
    char **slots;
    size_t size, used;
} name_set;

/* What a kernel NAME introduces: its symbols and its header's macros (CPU
 * and PTX headers together). */
static const char *const kernel_suffixes[] = {
    "",         "_info",          "_OUTER_EXTENT",   "_STEP_BYTES", "_INPUT_BYTES", "_OUTPUT_BYTES",
    "_ENTRY",   "_GRID_X",        "_BLOCK_X",        "_prepare",    "_VALUE_COUNT", "_numbers",
    "_STREAMS", "_STREAMS_ABOVE", "_STREAMS_MIN_RUN"};
static const char *const table_suffixes[] = {"_kernels", "_kernel_count", "_symbols", "_SYMBOL_COUNT"};

static uint64_t hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3u;
    return h;
}

static void set_free(name_set *set)
{
    for (size_t i = 0; i < set->size; i++)
        free(set->slots[i]);
    free(set->slots);
}

static bool set_init(name_set *set, size_t names)
{
    set->size = 16;
    while (set->size < 2 * names)
        set->size *= 2;
    set->used = 0;
    set->slots = calloc(set->size, sizeof *set->slots);
    return set->slots != NULL;
}

/* Adds base + suffix; 0 if it was already there, -1 out of memory, 1 added. */
static int set_add(name_set *set, const char *base, const char *suffix)
{
    size_t a = strlen(base), b = strlen(suffix);
    char *s = malloc(a + b + 1);
    if (s == NULL)
        return -1;
    memcpy(s, base, a);
    memcpy(s + a, suffix, b + 1);
    size_t i = hash(s) & (set->size - 1);
    while (set->slots[i] != NULL) {
        if (strcmp(set->slots[i], s) == 0) {
            free(s);
            return 0;
        }
        i = (i + 1) & (set->size - 1);
    }
    set->slots[i] = s;
    set->used++;
    return 1;
}

/* 1 if base + every suffix would be new, and none is reserved. */
static bool set_has_none(const name_set *set, const char *base, const char *const *suffixes, size_t n)
{
    char buf[512];
    size_t a = strlen(base);
    for (size_t k = 0; k < n; k++) {
        size_t b = strlen(suffixes[k]);
        char *s = a + b < sizeof buf ? buf : malloc(a + b + 1);
        if (s == NULL)
            return false;
        memcpy(s, base, a);
        memcpy(s + a, suffixes[k], b + 1);
        bool found = reserved(s) != NULL;
        for (size_t i = hash(s) & (set->size - 1); set->slots[i] != NULL && !found;
             i = (i + 1) & (set->size - 1))
            found = strcmp(set->slots[i], s) == 0;
        if (s != buf)
            free(s);
        if (found)
            return false;
    }
    return true;
}

/* Fails (SG_ERR_USAGE, naming the identifier and why) unless every
 * identifier base + suffixes[k] may be defined; `what` says whose name
 * base is ("kernel NAME: the name", "kernels: the prefix"). */
static sg_status check_reserved(const char *what, const char *base, const char *const *suffixes, size_t n,
                                sg_error *err)
{
    size_t a = strlen(base);
    for (size_t k = 0; k < n; k++) {
        char *id = malloc(a + strlen(suffixes[k]) + 1);
        if (id == NULL)
            return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernels: out of memory");
        strcat(strcpy(id, base), suffixes[k]);
        const char *why = reserved(id);
        if (why && suffixes[k][0] == '\0')
            sg_fail(err, SG_ERR_USAGE, "failed to compile %s '%s' %s", what, base, why);
        else if (why)
            sg_fail(err, SG_ERR_USAGE, "failed to compile %s '%s' gives %s, which %s", what, base, id, why);
        free(id);
        if (why)
            return err->status;
    }
    return SG_OK;
}

/* Appends the characters of `text` that a C identifier may hold to `name`
 * (at *len): every run of other characters and '_' becomes one '_', never
 * two in a row, and none at the end. Returns the new length. */
static size_t append_identifier_part(char *name, size_t len, const char *text)
{
    for (const char *p = text; *p; p++) {
        bool keep = is_word_char(*p) && *p != '_';
        if (keep)
            name[len++] = *p;
        else if (len > 0 && name[len - 1] != '_')
            name[len++] = '_';
    }
    while (len > 0 && name[len - 1] == '_')
        len--;
    name[len] = '\0';
    return len;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

sg_status sg_aot_layer_names(sg_context *ctx, const char *prefix, size_t count, const char *const *layers,
                             char **names)
{
    sg_error err = {0};
    name_set set = {0};
    size_t done = 0;
    if (!sg_is_identifier(prefix)) {
        sg_fail(&err, SG_ERR_USAGE, "failed to name kernels: the prefix '%s' is not a C identifier", prefix);
        goto fail;
    }
    if (check_reserved("kernels: the prefix", prefix, table_suffixes, COUNT(table_suffixes), &err) != SG_OK)
        goto fail;
    if (!set_init(&set, (count + 1) * (COUNT(kernel_suffixes) + COUNT(table_suffixes))))
        goto nomem;
    for (size_t k = 0; k < COUNT(table_suffixes); k++)
        if (set_add(&set, prefix, table_suffixes[k]) < 0)
            goto nomem;
    size_t plen = strlen(prefix);
    for (; done < count; done++) {
        size_t len = strlen(layers[done]);
        char *name = malloc(plen + 1 + len + sizeof "layer" + 24); /* room for "_<number>" */
        if (name == NULL)
            goto nomem;
        memcpy(name, prefix, plen);
        name[plen] = '_';
        size_t named = append_identifier_part(name, plen + 1, layers[done]);
        if (named <= plen) /* nothing of the layer's name is left */
            named = plen + 1 + (size_t)sprintf(name + plen + 1, "layer");
        /* Taken already (another layer, or a name derived from one) or
         * reserved: the first free of name_2, name_3, ... */
        for (unsigned long n = 2; !set_has_none(&set, name, kernel_suffixes, COUNT(kernel_suffixes)); n++)
            snprintf(name + named, 24, "_%lu", n);
        names[done] = name;
        for (size_t k = 0; k < COUNT(kernel_suffixes); k++)
            if (set_add(&set, name, kernel_suffixes[k]) < 0)
                goto nomem;
    }
    set_free(&set);
    return SG_OK;
nomem:
    sg_fail(&err, SG_ERR_NOMEM, "failed to name kernels: out of memory");
fail:
    for (size_t i = 0; i < done; i++) {
        free(names[i]);
        names[i] = NULL;
    }
    set_free(&set);
    return sg_context_report(ctx, &err);
}

/* The default prefix of sg_aot_default_prefix; NULL when out of memory. */
static char *model_prefix(const char *model_path)
{
    const char *base = strrchr(model_path, '/');
    base = base ? base + 1 : model_path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *stem = malloc(len + 1), *prefix = malloc(len + sizeof "sg_");
    if (stem == NULL || prefix == NULL) {
        free(stem);
        free(prefix);
        return NULL;
    }
    memcpy(stem, base, len);
    stem[len] = '\0';
    strcpy(prefix, "sg_");
    append_identifier_part(prefix + 3, 0, stem);
    free(stem);
    /* The file's own name where it makes a prefix; behind "sg_" where it
     * starts with a digit, is a keyword or makes a reserved name; "sg"
     * where nothing of it is left. */
    sg_error ignored = {0};
    bool own = prefix[3] != '\0' && sg_is_identifier(prefix + 3) && reserved(prefix + 3) == NULL &&
               check_reserved("", prefix + 3, table_suffixes, COUNT(table_suffixes), &ignored) == SG_OK;
    if (own)
        memmove(prefix, prefix + 3, strlen(prefix + 3) + 1);
    else if (prefix[3] == '\0')
        prefix[2] = '\0';
    return prefix;
}

sg_status sg_aot_default_prefix(sg_context *ctx, const char *model_path, char **prefix)
{
    sg_error err = {0};
    char *made = model_prefix(model_path);
    if (made == NULL)
        sg_fail(&err, SG_ERR_NOMEM, "failed to name the table of '%s': out of memory", model_path);
    else
        *prefix = made;
    return sg_context_report(ctx, &err);
}

char *sg_aot_model_prefix(const char *model_path)
{
    char *prefix = NULL;
    return sg_aot_default_prefix(NULL, model_path, &prefix) == SG_OK ? prefix : NULL;
}

/* Every kernel has a plan and an identifier for a name, and no identifier
 * the output introduces is introduced twice. */
static sg_status check_kernels(const sg_aot_kernel *kernels, size_t count, const sg_compile_options *o,
                               sg_error *err)
{
    name_set set = {0};
    if (count == 0 && o->prefix == NULL) /* a model's table (a prefix) may be empty */
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernels: no kernel given");
    if (o->prefix != NULL && !sg_is_identifier(o->prefix))
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernels: the prefix '%s' is not a C identifier",
                       o->prefix);
    if (!set_init(&set, (count + 1) * (COUNT(kernel_suffixes) + COUNT(table_suffixes))))
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernels: out of memory");
    for (size_t k = 0; o->prefix && k < COUNT(table_suffixes); k++)
        set_add(&set, o->prefix, table_suffixes[k]);
    if (o->prefix)
        check_reserved("kernels: the prefix", o->prefix, table_suffixes, COUNT(table_suffixes), err);
    for (size_t i = 0; i < count && err->status == SG_OK; i++) {
        const char *name = kernels[i].name;
        if (kernels[i].plan == NULL)
            sg_fail(err, SG_ERR_USAGE, "failed to compile kernel %zu: no plan", i);
        else if (!sg_is_identifier(name))
            sg_fail(err, SG_ERR_USAGE,
                    "failed to compile kernel: the name '%s' is not a C identifier (letters, digits and '_', "
                    "not starting with a digit, not a keyword)",
                    name ? name : "(null)");
        else
            check_reserved("kernel: the name", name, kernel_suffixes, COUNT(kernel_suffixes), err);
        for (size_t k = 0; k < COUNT(kernel_suffixes) && err->status == SG_OK; k++) {
            int added = set_add(&set, name, kernel_suffixes[k]);
            if (added < 0)
                sg_fail(err, SG_ERR_NOMEM, "failed to compile kernels: out of memory");
            else if (added == 0)
                sg_fail(err, SG_ERR_USAGE, "failed to compile kernel %s: the name %s%s is defined twice",
                        name, name, kernel_suffixes[k]);
        }
    }
    set_free(&set);
    return err->status;
}

/* The object's name inside an archive: path's file name with ".o", in
 * characters any ar tool keeps. */
static char *member_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strcspn(base, ".");
    char *m = malloc(len + 3);
    if (m == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        m[i] = is_word_char(base[i]) || base[i] == '-' ? base[i] : '_';
    }
    memcpy(m + len, ".o", 3);
    return m;
}

sg_status sg_aot_write(sg_context *ctx, const sg_aot_kernel *kernels, size_t count,
                       const sg_aot_options *options, const char *path, const char *header_path)
{
    sg_compile_options o = from_aot_options(options);
    return sg_aot_write_with(ctx, kernels, count, &o, path, header_path);
}

sg_status sg_aot_write_with(sg_context *ctx, const sg_aot_kernel *kernels, size_t count,
                            const sg_compile_options *given, const char *path, const char *header_path)
{
    sg_error err = {0};
    sg_aot_output out = {0};
    sg_staged_file staged[2] = {{0}, {0}};
    sg_aot_format format;
    char *member = NULL;
    sg_compile_options o, *options = &o;
    if (sg_compile_options_read(given, SG_READ_AOT, "compile kernels", &o, &err) != SG_OK)
        goto done;
    if (path == NULL || !sg_aot_format_of(path, &format)) {
        sg_fail(&err, SG_ERR_USAGE,
                "failed to write '%s': unknown output kind (the extension must be .o, .a, .s, .ll or .ptx)",
                path ? path : "(null)");
        goto done;
    }
    bool same = false;
    if (header_path != NULL && sg_same_file(path, header_path, &same, &err) != SG_OK)
        goto done;
    if (same) {
        sg_fail(&err, SG_ERR_USAGE,
                "failed to write '%s': the header '%s' and the output '%s' are the same file", path,
                header_path, path);
        goto done;
    }
    if (check_kernels(kernels, count, options, &err) != SG_OK)
        goto done;
    if ((member = member_name(path)) == NULL) {
        sg_fail(&err, SG_ERR_NOMEM, "failed to write '%s': out of memory", path);
        goto done;
    }
    if (sg_codegen_aot(kernels, count, options, format, member, header_path != NULL, &out, &err) != SG_OK)
        goto done;
    const void *body = out.bytes, *header = out.header;
    size_t body_size = out.size, header_size = out.header ? strlen(out.header) : 0;
    if (sg_file_stage(path, &body, &body_size, 1, &staged[0], &err) != SG_OK ||
        (header_path && sg_file_stage(header_path, &header, &header_size, 1, &staged[1], &err) != SG_OK))
        goto done;
    sg_file_commit_all(staged, 2, &err);
done:
    sg_file_discard(&staged[0]);
    sg_file_discard(&staged[1]);
    sg_aot_output_free(&out);
    free(member);
    return sg_context_report(ctx, &err);
}

/* The public ahead-of-time API: checks kernels and names, has codegen make
 * the output file and header, and writes both whole or not at all. */
#define _POSIX_C_SOURCE 200809L
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

int sg_is_identifier(const char *name)
{
    if (name == NULL || !is_letter(name[0]))
        return 0;
    for (const char *p = name; *p; p++)
        if (!is_word_char(*p))
            return 0;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(name, keywords[i]) == 0)
            return 0;
    return 1;
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

/* ---- the names an output defines ---------------------------------------------------- */

/* The identifiers an output introduces (symbols and header macros), in a set
 * (open addressing, power-of-two size) to find clashes. */
typedef struct name_set {
    char **slots;
    size_t size, used;
} name_set;

static const char *const kernel_suffixes[] = {"", "_info", "_OUTER_EXTENT", "_INPUT_BYTES", "_OUTPUT_BYTES"};
static const char *const table_suffixes[] = {"_kernels", "_kernel_count"};

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

/* 1 if base + every suffix would be new. */
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
        bool found = false;
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
    if (!set_init(&set, (count + 1) * (COUNT(kernel_suffixes) + COUNT(table_suffixes))))
        goto nomem;
    for (size_t k = 0; k < COUNT(table_suffixes); k++)
        if (set_add(&set, prefix, table_suffixes[k]) < 0)
            goto nomem;
    size_t plen = strlen(prefix);
    for (; done < count; done++) {
        size_t len = strlen(layers[done]);
        char *name = malloc(plen + 1 + len + 24); /* room for "_<number>" */
        if (name == NULL)
            goto nomem;
        memcpy(name, prefix, plen);
        name[plen] = '_';
        for (size_t i = 0; i < len; i++) {
            char c = layers[done][i];
            name[plen + 1 + i] = is_word_char(c) ? c : '_';
        }
        name[plen + 1 + len] = '\0';
        /* Taken already (another layer, or a name derived from one): the
         * first free of name_2, name_3, ... */
        for (unsigned long n = 2; !set_has_none(&set, name, kernel_suffixes, COUNT(kernel_suffixes)); n++)
            snprintf(name + plen + 1 + len, 24, "_%lu", n);
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

/* Every kernel has a plan and an identifier for a name, and no identifier
 * the output introduces is introduced twice. */
static sg_status check_kernels(const sg_aot_kernel *kernels, size_t count, const sg_aot_options *o,
                               sg_error *err)
{
    name_set set = {0};
    if (count == 0)
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernels: no kernel given");
    if (o->prefix != NULL && !sg_is_identifier(o->prefix))
        return sg_fail(err, SG_ERR_USAGE, "failed to compile kernels: the prefix '%s' is not a C identifier",
                       o->prefix);
    if (!set_init(&set, (count + 1) * (COUNT(kernel_suffixes) + COUNT(table_suffixes))))
        return sg_fail(err, SG_ERR_NOMEM, "failed to compile kernels: out of memory");
    for (size_t k = 0; o->prefix && k < COUNT(table_suffixes); k++)
        set_add(&set, o->prefix, table_suffixes[k]);
    for (size_t i = 0; i < count && err->status == SG_OK; i++) {
        const char *name = kernels[i].name;
        if (kernels[i].plan == NULL)
            sg_fail(err, SG_ERR_USAGE, "failed to compile kernel %zu: no plan", i);
        else if (!sg_is_identifier(name))
            sg_fail(err, SG_ERR_USAGE,
                    "failed to compile kernel: the name '%s' is not a C identifier (letters, digits and '_', "
                    "not starting with a digit, not a keyword)",
                    name ? name : "(null)");
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
    sg_error err = {0};
    sg_aot_output out = {0};
    sg_staged_file staged[2] = {{0}, {0}};
    sg_aot_format format;
    char *member = NULL;
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

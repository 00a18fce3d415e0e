/*
 * ONNX models: the Slice, Pad, Split and Gather nodes of a model as specs
 * (sg_onnx_load, sg_model_is_onnx). With onnx_graph.c (the model as a
 * graph, and shape inference over it), the only file that includes
 * protobuf-c; the schema is onnx.proto beside it, compiled by protoc-c at
 * build time.
 *
 * The reader takes the whole file, walks its wire format against the
 * schema (every tag, wire type and length: the first fault is reported
 * with its field path and byte), unpacks it with protobuf-c under a memory
 * bound, then checks the graph: the opset of the default domain, every
 * initializer and Constant (dimensions, element count against the bytes of
 * its data, external data files inside the model's folder), and that no
 * tensor has two producers, and that nodes read only earlier nodes'
 * outputs. Then the whole model, subgraphs included, becomes a graph
 * whose every tensor's type and shape are inferred (onnx_graph.c,
 * graph.h). Each node of the default domain, in the main graph or a
 * subgraph (named after its path), whose op_type is Slice, Pad, Split or
 * Gather becomes one layer (Split: one per output) whose spec is built
 * from the node's attributes and its constant inputs (initializers,
 * Constant nodes, and shape arithmetic that inference folds to
 * constants); an index input that is not constant gives runtime values
 * named after the input (starts_0, ..., pads_0, ...). Such a node whose
 * data input is itself shape arithmetic (Gather(Shape(x), 1)) is not a
 * layer: it is folded (sg_model.folded).
 * Anything malformed fails the whole model with SG_ERR_IO, "failed to read
 * ONNX model '<file>': <where>: <rule> (<values>)"; a well-formed node that
 * slicegen cannot describe is listed with a one-line skip reason instead of
 * a spec. docs/onnx.md lists the rules. Last, the data flow around those
 * layers (sg_model_read_flow, over the graph).
 *
 * Hostile files: the schema has no message that contains itself, so the
 * wire walk recurses at most as deep as the schema (7 levels) whatever the
 * file says; protobuf-c's allocations are bounded (MEMORY_PER_BYTE times
 * the file's size, plus MEMORY_BASE); external data is read only from
 * regular files inside the model's folder, only the bytes of constants a
 * node uses, and only after their range was checked against the file.
 */
#define _XOPEN_SOURCE 700 /* realpath */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <protobuf-c/protobuf-c.h>

#include "../planner/planner.h" /* the output shape of a slice layer (check_output) */
#include "frontend.h"
#include "onnx_graph.h"

/* protobuf-c may allocate this much per byte of the file, plus the base. */
#define MEMORY_PER_BYTE 64
#define MEMORY_BASE     ((size_t)64 << 20)
/* Room for a name quoted in a message, and for "node '<name>' (index N)". */
#define SHOW_SIDE 12
#define SHOW_BUF  SG_QUOTE_BUF(SHOW_SIDE)
#define WHO_BUF   (SHOW_BUF + 48)
/* The longest index list (starts, pads, ...) read from a constant. */
#define LIST_MAX 4096
/* Message levels the wire check follows: three per subgraph level, and
 * the deepest path below a graph (node, attribute, tensor, and a value
 * info's type, shape and dimension) with the model around them. */
#define WIRE_DEPTH (3 * SG_ONNX_SUBGRAPH_DEPTH + 8)

typedef enum { P_INITIALIZER, P_INPUT, P_NODE } producer_kind;

/* Who makes a tensor: initializer `index`, graph input `index`, or output
 * `output` of node `index`. */
typedef struct producer {
    const char *name;
    producer_kind kind;
    size_t index, output;
} producer;

/* A ValueInfoProto by name (graph inputs, value_info, graph outputs). */
typedef struct info {
    const char *name;
    const Onnx__ValueInfoProto *value;
    const char *list; /* "graph input", "value_info of" or "graph output": what names it, in messages */
} info;

typedef struct reader {
    const char *path; /* the model, as given */
    char *folder;     /* the real path of its folder */
    uint8_t *file;
    size_t file_size;
    size_t used, limit; /* protobuf-c's bytes, and their bound */
    bool refused;       /* the bound refused an allocation */
    Onnx__ModelProto *model;
    const Onnx__GraphProto *graph;
    int64_t opset; /* of the default domain */
    producer *producers;
    size_t nproducers;
    info *infos;
    size_t ninfos;
    sg_graph g; /* the model as a graph, every tensor's type and shape inferred (onnx_graph.c) */
    sg_error *err;
} reader;

/* ---- messages ------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static sg_status
bad(reader *r, const char *fmt, ...)
{
    char what[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sg_fail(r->err, SG_ERR_IO, "failed to read ONNX model '%s': %s", r->path, what);
}

static sg_status nomem(reader *r)
{
    return sg_fail(r->err, SG_ERR_NOMEM, "failed to read ONNX model '%s': out of memory", r->path);
}

/* A name from the file, quoted safely (control bytes as \xHH, cut). */
static const char *show(const char *text, char buf[SHOW_BUF])
{
    text = text ? text : "";
    return sg_quote(text, strlen(text), 0, SHOW_SIDE, buf);
}

static const char *str(const char *s)
{
    return s ? s : "";
}

/* ---- the wire format ------------------------------------------------------------- */

static bool read_varint(const uint8_t *p, size_t *pos, size_t end, uint64_t *value)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70 && *pos < end; shift += 7) {
        uint8_t b = p[(*pos)++];
        v |= shift < 64 ? (uint64_t)(b & 0x7F) << shift : 0;
        if ((b & 0x80) == 0) {
            *value = v;
            return true;
        }
    }
    return false;
}

static int wire_type_of(ProtobufCType type)
{
    switch (type) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return 5;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 1;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return 2;
    default:
        return 0;
    }
}

/* Checks the message in bytes [begin, end) of the file as `desc`
 * describes it: tags, wire types, lengths, packed runs, and its message
 * fields in turn. `path` (`len` bytes used of 256) names it in messages
 * ("graph.node[3]"). Recursion follows the schema, which nests a message
 * in itself only through subgraphs: at most WIRE_DEPTH levels. */
static sg_status check_wire(reader *r, size_t begin, size_t end, const ProtobufCMessageDescriptor *desc,
                            char *path, size_t len, unsigned depth)
{
    size_t counts[32] = {0}, pos = begin;
    const uint8_t *p = r->file;
    assert(desc->n_fields <= 32);
    if (depth > WIRE_DEPTH)
        return bad(r, "%s: subgraphs nest deeper than %d levels", path, SG_ONNX_SUBGRAPH_DEPTH);
    while (pos < end) {
        size_t at = pos;
        uint64_t tag, n = 0;
        if (!read_varint(p, &pos, end, &tag))
            return bad(r, "%s: a field's tag is cut off or too long (byte %zu, the message ends at byte %zu)",
                       path, at, end);
        uint64_t number = tag >> 3;
        int wire = (int)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            number > 0 && number <= 0x1FFFFFFF
                ? protobuf_c_message_descriptor_get_field(desc, (unsigned)number)
                : NULL;
        if (number == 0 || number > 0x1FFFFFFF)
            return bad(r, "%s: invalid field number (%llu at byte %zu)", path, (unsigned long long)number,
                       at);
        int field_path = f ? snprintf(path + len, 256 - len, ".%s", f->name) : 0;
        size_t sub = len + (field_path > 0 && (size_t)field_path < 256 - len ? (size_t)field_path : 0);
        if (f && f->label == PROTOBUF_C_LABEL_REPEATED && sub < 250)
            sub += (size_t)snprintf(path + sub, 256 - sub, "[%zu]", counts[f - desc->fields]++);
        int want = f ? wire_type_of(f->type) : wire;
        bool packed = f && f->label == PROTOBUF_C_LABEL_REPEATED && want != 2 && wire == 2;
        if (wire != want && !packed) {
            path[sub] = '\0';
            return bad(r, "%s: wrong wire type (field %llu at byte %zu: wire type %d, the schema wants %d)",
                       path, (unsigned long long)number, at, wire, want);
        }
        switch (wire) {
        case 0:
            if (!read_varint(p, &pos, end, &n))
                return bad(r, "%s: a varint is cut off or too long (field %llu at byte %zu)", path,
                           (unsigned long long)number, at);
            break;
        case 1:
        case 5:
            n = wire == 1 ? 8 : 4;
            if (end - pos < n)
                return bad(r,
                           "%s: a fixed-size value runs past the end of its message (field %llu at byte %zu)",
                           path, (unsigned long long)number, at);
            pos += n;
            break;
        case 2:
            if (!read_varint(p, &pos, end, &n))
                return bad(r, "%s: a length is cut off or too long (field %llu at byte %zu)", path,
                           (unsigned long long)number, at);
            if (n > end - pos)
                return bad(
                    r,
                    "%s: a length runs past the end of its message (field %llu at byte %zu: length %llu, "
                    "%zu bytes left)",
                    path, (unsigned long long)number, at, (unsigned long long)n, end - pos);
            if (packed && want != 0 && n % (want == 1 ? 8 : 4) != 0)
                return bad(r, "%s: a packed run is not whole values (field %llu at byte %zu: %llu bytes)",
                           path, (unsigned long long)number, at, (unsigned long long)n);
            if (packed && want == 0) {
                uint64_t v;
                for (size_t q = pos; q < pos + n;)
                    if (!read_varint(p, &q, pos + n, &v))
                        return bad(r, "%s: a packed varint is cut off (field %llu at byte %zu)", path,
                                   (unsigned long long)number, q);
            }
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
                check_wire(r, pos, pos + n, f->descriptor, path, sub, depth + 1) != SG_OK)
                return r->err->status;
            path[len] = '\0';
            pos += n;
            break;
        default:
            return bad(r, "%s: unsupported wire type (field %llu at byte %zu: wire type %d)", path,
                       (unsigned long long)number, at, wire);
        }
        path[len] = '\0';
    }
    return SG_OK;
}

/* protobuf-c's allocator: malloc under the reader's bound. */
typedef union block_head {
    size_t size;
    max_align_t align;
} block_head;

static void *bounded_alloc(void *data, size_t size)
{
    reader *r = data;
    if (size > r->limit - r->used || size > SIZE_MAX - sizeof(block_head)) {
        r->refused = true;
        return NULL;
    }
    block_head *h = malloc(sizeof *h + size);
    if (h == NULL)
        return NULL;
    h->size = size;
    r->used += size;
    return h + 1;
}

static void bounded_free(void *data, void *block)
{
    reader *r = data;
    if (block == NULL)
        return;
    block_head *h = (block_head *)block - 1;
    r->used -= h->size;
    free(h);
}

/* Reads the file, checks its wire format and unpacks it. */
static sg_status read_file(reader *r)
{
    int fd = open(r->path, O_RDONLY);
    struct stat st;
    if (fd < 0)
        return bad(r, "cannot open the file (%s)", strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return bad(r, "not a regular file");
    }
    r->file_size = (size_t)st.st_size;
    r->file = malloc(r->file_size ? r->file_size : 1);
    if (r->file == NULL) {
        close(fd);
        return nomem(r);
    }
    for (size_t done = 0; done < r->file_size;) {
        ssize_t got = read(fd, r->file + done, r->file_size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            int e = errno;
            close(fd);
            return got < 0
                       ? bad(r, "cannot read the file (%s)", strerror(e))
                       : bad(r, "the file changed while being read (it ends before byte %zu)", r->file_size);
        }
        done += (size_t)got;
    }
    close(fd);

    char path[256] = "ModelProto";
    if (check_wire(r, 0, r->file_size, &onnx__model_proto__descriptor, path, strlen(path), 0) != SG_OK)
        return r->err->status;
    r->limit = r->file_size > (SIZE_MAX - MEMORY_BASE) / MEMORY_PER_BYTE
                   ? SIZE_MAX
                   : MEMORY_BASE + MEMORY_PER_BYTE * r->file_size;
    ProtobufCAllocator allocator = {bounded_alloc, bounded_free, r};
    r->model = onnx__model_proto__unpack(&allocator, r->file_size, r->file);
    if (r->model == NULL && r->refused)
        return bad(r, "unpacking needs more memory than allowed (more than %zu bytes for a file of %zu)",
                   r->limit, r->file_size);
    if (r->model == NULL)
        return nomem(r); /* the walk above leaves protobuf-c nothing else to refuse */
    return SG_OK;
}

/* ---- element types and tensors ----------------------------------------------------- */

typedef enum { F_NONE, F_FLOAT, F_INT32, F_INT64, F_UINT64, F_DOUBLE } typed_field;

typedef struct etype {
    const char *name;  /* ONNX's name */
    size_t size;       /* bytes per element; 0: not checked */
    typed_field field; /* where the elements are without raw_data */
    int per;           /* numbers per element in that field */
    bool known;        /* slicegen has it: dtype */
    sg_dtype dtype;
} etype;

static etype element_type(int32_t t)
{
    switch (t) {
    case 1:
        return (etype){"FLOAT", 4, F_FLOAT, 1, true, SG_F32};
    case 2:
        return (etype){"UINT8", 1, F_INT32, 1, true, SG_U8};
    case 3:
        return (etype){"INT8", 1, F_INT32, 1, true, SG_I8};
    case 4:
        return (etype){"UINT16", 2, F_INT32, 1, true, SG_U16};
    case 5:
        return (etype){"INT16", 2, F_INT32, 1, true, SG_I16};
    case 6:
        return (etype){"INT32", 4, F_INT32, 1, true, SG_I32};
    case 7:
        return (etype){"INT64", 8, F_INT64, 1, true, SG_I64};
    case 8:
        return (etype){"STRING", 0, F_NONE, 0, false, SG_BOOL};
    case 9:
        return (etype){"BOOL", 1, F_INT32, 1, true, SG_BOOL};
    case 10:
        return (etype){"FLOAT16", 2, F_INT32, 1, true, SG_F16};
    case 11:
        return (etype){"DOUBLE", 8, F_DOUBLE, 1, true, SG_F64};
    case 12:
        return (etype){"UINT32", 4, F_UINT64, 1, true, SG_U32};
    case 13:
        return (etype){"UINT64", 8, F_UINT64, 1, true, SG_U64};
    case 14:
        return (etype){"COMPLEX64", 8, F_FLOAT, 2, false, SG_BOOL};
    case 15:
        return (etype){"COMPLEX128", 16, F_DOUBLE, 2, false, SG_BOOL};
    case 16:
        return (etype){"BFLOAT16", 2, F_INT32, 1, true, SG_BF16};
    case 17:
        return (etype){"FLOAT8E4M3FN", 1, F_INT32, 1, false, SG_BOOL};
    case 18:
        return (etype){"FLOAT8E4M3FNUZ", 1, F_INT32, 1, false, SG_BOOL};
    case 19:
        return (etype){"FLOAT8E5M2", 1, F_INT32, 1, false, SG_BOOL};
    case 20:
        return (etype){"FLOAT8E5M2FNUZ", 1, F_INT32, 1, false, SG_BOOL};
    default:
        return (etype){NULL, 0, F_NONE, 0, false, SG_BOOL};
    }
}

/* "FLOAT", or "type 21" for one this reader does not name. */
static const char *type_name(int32_t t, char buf[24])
{
    etype e = element_type(t);
    if (e.name)
        return e.name;
    snprintf(buf, 24, "type %d", (int)t);
    return buf;
}

static size_t typed_count(const Onnx__TensorProto *t, typed_field f)
{
    switch (f) {
    case F_FLOAT:
        return t->n_float_data;
    case F_INT32:
        return t->n_int32_data;
    case F_INT64:
        return t->n_int64_data;
    case F_UINT64:
        return t->n_uint64_data;
    case F_DOUBLE:
        return t->n_double_data;
    case F_NONE:
        break;
    }
    return 0;
}

static const char *typed_name(typed_field f)
{
    static const char *const names[] = {"",           "float_data",  "int32_data",
                                        "int64_data", "uint64_data", "double_data"};
    return names[f];
}

/* A checked tensor: its element count and where its bytes are. */
typedef struct tensor_ref {
    const Onnx__TensorProto *t;
    size_t count;
    etype type;
    bool external;
    char *file; /* external: the data file's path (malloc'd) */
    int64_t offset, length;
} tensor_ref;

static const char *external_key(const Onnx__TensorProto *t, const char *key)
{
    for (size_t i = 0; i < t->n_external_data; i++)
        if (strcmp(str(t->external_data[i]->key), key) == 0)
            return str(t->external_data[i]->value);
    return NULL;
}

/* The external data of t: location inside the model's folder (no absolute
 * path, no "..", no link that leads out), a regular file, and offset and
 * length inside it. */
static sg_status check_external(reader *r, tensor_ref *ref, const char *where)
{
    const Onnx__TensorProto *t = ref->t;
    const char *location = external_key(t, "location");
    const char *offset = external_key(t, "offset"), *length = external_key(t, "length");
    char shown[SHOW_BUF];
    int64_t size;
    if (location == NULL || location[0] == '\0')
        return bad(r, "%s: external data without a location (external_data has no key 'location')", where);
    if (location[0] == '/')
        return bad(r, "%s: external data location must be relative to the model's folder (location '%s')",
                   where, show(location, shown));
    for (const char *p = location; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return bad(r, "%s: external data location must not contain '..' (location '%s')", where,
                       show(location, shown));
        p += n + (p[n] == '/');
    }
    size_t folder_len = strlen(r->folder);
    char *joined = malloc(folder_len + strlen(location) + 2);
    if (joined == NULL)
        return nomem(r);
    sprintf(joined, "%s/%s", r->folder, location);
    ref->file = realpath(joined, NULL);
    free(joined);
    if (ref->file == NULL)
        return errno == ENOMEM ? nomem(r)
                               : bad(r, "%s: cannot find the external data file (location '%s': %s)", where,
                                     show(location, shown), strerror(errno));
    if (strncmp(ref->file, r->folder, folder_len) != 0 ||
        (ref->file[folder_len] != '/' && strcmp(r->folder, "/") != 0))
        return bad(r, "%s: the external data file lies outside the model's folder (location '%s')", where,
                   show(location, shown));
    struct stat st;
    if (stat(ref->file, &st) != 0 || !S_ISREG(st.st_mode))
        return bad(r, "%s: the external data file is not a regular file (location '%s')", where,
                   show(location, shown));
    size = (int64_t)st.st_size;
    ref->offset = 0;
    if (offset != NULL && (!sg_parse_int64(offset, &ref->offset) || ref->offset < 0))
        return bad(r, "%s: external data offset is not a non-negative integer (offset '%s')", where,
                   show(offset, shown));
    if (ref->offset > size)
        return bad(
            r, "%s: external data offset lies past the end of its file (offset %lld, '%s' has %lld bytes)",
            where, (long long)ref->offset, show(location, shown), (long long)size);
    ref->length = size - ref->offset;
    if (length != NULL && (!sg_parse_int64(length, &ref->length) || ref->length < 0))
        return bad(r, "%s: external data length is not a non-negative integer (length '%s')", where,
                   show(length, shown));
    if (ref->length > size - ref->offset)
        return bad(
            r,
            "%s: external data runs past the end of its file (offset %lld + length %lld > %lld bytes in "
            "'%s')",
            where, (long long)ref->offset, (long long)ref->length, (long long)size, show(location, shown));
    return SG_OK;
}

/* Checks tensor t (where: "initializer 'w' (index 3)"): dimensions, the
 * element count, and that its data holds exactly that many elements. */
static sg_status check_tensor(reader *r, const Onnx__TensorProto *t, const char *where, tensor_ref *ref)
{
    char tname[24];
    *ref = (tensor_ref){.t = t, .type = element_type(t->data_type)};
    uint64_t count = 1;
    bool overflow = false, zero = false;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0)
            return bad(r, "%s: a dimension is negative (dims[%zu] = %lld)", where, i, (long long)t->dims[i]);
        zero = zero || t->dims[i] == 0;
        overflow = overflow || __builtin_mul_overflow(count, (uint64_t)t->dims[i], &count);
    }
    if (zero)
        count = 0, overflow = false;
    uint64_t bytes = 0;
    if (overflow || count > SIZE_MAX || __builtin_mul_overflow(count, (uint64_t)ref->type.size, &bytes) ||
        bytes > INT64_MAX)
        return bad(r, "%s: the number of elements overflows (dims of %zu dimensions)", where, t->n_dims);
    ref->count = (size_t)count;
    if (ref->type.size == 0)
        return SG_OK; /* strings, unknown types: not checked */
    ref->external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    if (ref->external) {
        if (check_external(r, ref, where) != SG_OK)
            return r->err->status;
        if ((uint64_t)ref->length != bytes)
            return bad(r, "%s: external data has %lld bytes, its %llu elements of %s need %llu", where,
                       (long long)ref->length, (unsigned long long)count, type_name(t->data_type, tname),
                       (unsigned long long)bytes);
    } else if (t->has_raw_data) {
        if (t->raw_data.len != bytes)
            return bad(r, "%s: raw_data has %zu bytes, its %llu elements of %s need %llu", where,
                       t->raw_data.len, (unsigned long long)count, type_name(t->data_type, tname),
                       (unsigned long long)bytes);
    } else if (typed_count(t, ref->type.field) != count * (uint64_t)ref->type.per) {
        return bad(r, "%s: %s holds %zu numbers, its %llu elements of %s need %llu", where,
                   typed_name(ref->type.field), typed_count(t, ref->type.field), (unsigned long long)count,
                   type_name(t->data_type, tname), (unsigned long long)(count * (uint64_t)ref->type.per));
    }
    return SG_OK;
}

static uint64_t little_endian(const uint8_t *p, size_t size)
{
    uint64_t u = 0;
    for (size_t b = 0; b < size; b++)
        u |= (uint64_t)p[b] << (8 * b);
    return u;
}

/* Element k's bits (integers zero-extended; float as its bits). */
static uint64_t element_bits(const tensor_ref *ref, const uint8_t *raw, size_t k)
{
    const Onnx__TensorProto *t = ref->t;
    if (raw != NULL)
        return little_endian(raw + k * ref->type.size, ref->type.size);
    uint64_t mask = ref->type.size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * ref->type.size)) - 1;
    switch (ref->type.field) {
    case F_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &t->float_data[k], 4);
        return bits;
    }
    case F_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &t->double_data[k], 8);
        return bits;
    }
    case F_INT32:
        return (uint64_t)(int64_t)t->int32_data[k] & mask;
    case F_INT64:
        return (uint64_t)t->int64_data[k];
    case F_UINT64:
        return t->uint64_data[k] & mask;
    case F_NONE:
        break;
    }
    return 0;
}

/* An element as a scalar, exactly (integers by sign; floats widened). */
static sg_scalar to_scalar(sg_dtype dtype, uint64_t bits)
{
    size_t size = sg_dtype_size(dtype);
    switch (dtype) {
    case SG_BOOL:
        return (sg_scalar){.kind = SG_SCALAR_BOOL, .i = bits != 0};
    case SG_F16:
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = sg_f16_to_f64((uint16_t)bits)};
    case SG_BF16:
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = sg_bf16_to_f64((uint16_t)bits)};
    case SG_F32:
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = sg_f32_bits_to_f64((uint32_t)bits)};
    case SG_F64: {
        double f;
        memcpy(&f, &bits, 8);
        return (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = f};
    }
    case SG_I8:
    case SG_I16:
    case SG_I32:
    case SG_I64: {
        uint64_t sign = (uint64_t)1 << (8 * size - 1);
        int64_t v = (bits & sign) ? -(int64_t)((~bits & (sign - 1))) - 1 : (int64_t)bits;
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = v};
    }
    default:
        if (bits > INT64_MAX)
            return (sg_scalar){.kind = SG_SCALAR_UINT, .u = bits};
        return (sg_scalar){.kind = SG_SCALAR_INT, .i = (int64_t)bits};
    }
}

/* The elements of a checked tensor of a type slicegen knows, as scalars
 * (*values malloc'd, ref->count of them); external bytes read here. */
static sg_status tensor_values(reader *r, const tensor_ref *ref, const char *where, sg_scalar **values)
{
    uint8_t *owned = NULL;
    const uint8_t *raw = ref->t->has_raw_data ? ref->t->raw_data.data : NULL;
    if (ref->external) {
        int fd = open(ref->file, O_RDONLY);
        owned = malloc(ref->length > 0 ? (size_t)ref->length : 1);
        if (fd < 0 || owned == NULL) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            free(owned);
            return owned == NULL ? nomem(r)
                                 : bad(r, "%s: cannot open the external data file (%s)", where, strerror(e));
        }
        for (size_t done = 0; done < (size_t)ref->length;) {
            ssize_t got =
                pread(fd, owned + done, (size_t)ref->length - done, (off_t)(ref->offset + (int64_t)done));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                close(fd);
                free(owned);
                return bad(r, "%s: cannot read the external data file (it ends before byte %lld)", where,
                           (long long)(ref->offset + ref->length));
            }
            done += (size_t)got;
        }
        close(fd);
        raw = owned;
    }
    *values = malloc(ref->count ? ref->count * sizeof **values : 1);
    if (*values == NULL) {
        free(owned);
        return nomem(r);
    }
    for (size_t k = 0; k < ref->count; k++)
        (*values)[k] = to_scalar(ref->type.dtype, element_bits(ref, raw, k));
    free(owned);
    return SG_OK;
}

/* ---- the graph ------------------------------------------------------------------- */

static bool default_domain(const char *domain)
{
    return domain == NULL || domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

static sg_status read_opset(reader *r)
{
    const Onnx__ModelProto *m = r->model;
    size_t found = SIZE_MAX;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (!default_domain(o->domain))
            continue;
        if (found != SIZE_MAX)
            return bad(r, "opset_import[%zu]: the default domain is given twice (also in opset_import[%zu])",
                       i, found);
        if (!o->has_version || o->version < 1)
            return bad(r, "opset_import[%zu]: the default domain's version must be at least 1 (version %lld)",
                       i, (long long)o->version);
        found = i;
        r->opset = o->version;
    }
    if (found == SIZE_MAX)
        return bad(r, "opset_import: no version for the default domain ('' or 'ai.onnx')");
    if (m->graph == NULL)
        return bad(r, "the model has no graph (ModelProto.graph)");
    r->graph = m->graph;
    return SG_OK;
}

static int by_name(const void *a, const void *b)
{
    const producer *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c                    ? c
           : x->kind != y->kind ? (int)x->kind - (int)y->kind
                                : (x->index > y->index) - (x->index < y->index);
}

static int by_info_name(const void *a, const void *b)
{
    return strcmp(((const info *)a)->name, ((const info *)b)->name);
}

/* The node's name for messages and layers: its name, else its first
 * output's name. */
static const char *node_name(const Onnx__NodeProto *n)
{
    if (n->name != NULL && n->name[0] != '\0')
        return n->name;
    return n->n_output > 0 ? str(n->output[0]) : "";
}

static const char *who_node(const reader *r, size_t index, char buf[WHO_BUF])
{
    char shown[SHOW_BUF];
    snprintf(buf, WHO_BUF, "node '%s' (index %zu)", show(node_name(r->graph->node[index]), shown), index);
    return buf;
}

static const char *who_producer(const reader *r, const producer *p, char buf[WHO_BUF])
{
    char shown[SHOW_BUF];
    if (p->kind == P_NODE) {
        char whom[WHO_BUF];
        snprintf(buf, WHO_BUF, "%s output %zu", who_node(r, p->index, whom), p->output);
    } else {
        snprintf(buf, WHO_BUF, "%s '%s' (index %zu)",
                 p->kind == P_INITIALIZER ? "initializer" : "graph input", show(p->name, shown), p->index);
    }
    return buf;
}

/* Lists who makes each tensor and who describes it; checks every
 * initializer and Constant node's tensor, and that no tensor has two
 * producers (an initializer may also be a graph input: its default). */
static sg_status index_graph(reader *r)
{
    const Onnx__GraphProto *g = r->graph;
    size_t n = g->n_initializer + g->n_input;
    for (size_t i = 0; i < g->n_node; i++)
        n += g->node[i]->n_output;
    r->producers = calloc(n ? n : 1, sizeof *r->producers);
    r->infos = calloc(g->n_input + g->n_value_info + g->n_output + 1, sizeof *r->infos);
    if (r->producers == NULL || r->infos == NULL)
        return nomem(r);
    char where[WHO_BUF + 32], shown[SHOW_BUF];
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        tensor_ref ref;
        snprintf(where, sizeof where, "initializer '%s' (index %zu)", show(t->name, shown), i);
        if (str(t->name)[0] == '\0')
            return bad(r, "initializer (index %zu): it has no name", i);
        sg_status st = check_tensor(r, t, where, &ref);
        free(ref.file);
        if (st != SG_OK)
            return st;
        r->producers[r->nproducers++] = (producer){t->name, P_INITIALIZER, i, 0};
    }
    for (size_t i = 0; i < g->n_input; i++)
        if (str(g->input[i]->name)[0] != '\0')
            r->producers[r->nproducers++] = (producer){g->input[i]->name, P_INPUT, i, 0};
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *node = g->node[i];
        for (size_t o = 0; o < node->n_output; o++)
            if (str(node->output[o])[0] != '\0')
                r->producers[r->nproducers++] = (producer){node->output[o], P_NODE, i, o};
        if (strcmp(str(node->op_type), "Constant") != 0 || !default_domain(node->domain))
            continue;
        for (size_t a = 0; a < node->n_attribute; a++) {
            const Onnx__AttributeProto *attr = node->attribute[a];
            if (attr->t == NULL)
                continue;
            char whom[WHO_BUF];
            tensor_ref ref;
            snprintf(where, sizeof where, "%s: attribute '%s'", who_node(r, i, whom),
                     show(attr->name, shown));
            sg_status st = check_tensor(r, attr->t, where, &ref);
            free(ref.file);
            if (st != SG_OK)
                return st;
        }
    }
    qsort(r->producers, r->nproducers, sizeof *r->producers, by_name);
    for (size_t i = 1; i < r->nproducers; i++) {
        const producer *a = &r->producers[i - 1], *b = &r->producers[i];
        if (strcmp(a->name, b->name) != 0 || (a->kind == P_INITIALIZER && b->kind == P_INPUT))
            continue;
        char first[WHO_BUF], second[WHO_BUF];
        return bad(r, "tensor '%s' has two producers (%s and %s)", show(a->name, shown),
                   who_producer(r, a, first), who_producer(r, b, second));
    }
    const Onnx__ValueInfoProto *const *lists[3] = {(const Onnx__ValueInfoProto *const *)g->input,
                                                   (const Onnx__ValueInfoProto *const *)g->value_info,
                                                   (const Onnx__ValueInfoProto *const *)g->output};
    size_t counts[3] = {g->n_input, g->n_value_info, g->n_output};
    static const char *const list_names[3] = {"graph input", "value_info of", "graph output"};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < counts[l]; i++)
            if (str(lists[l][i]->name)[0] != '\0')
                r->infos[r->ninfos++] = (info){lists[l][i]->name, lists[l][i], list_names[l]};
    qsort(r->infos, r->ninfos, sizeof *r->infos, by_info_name); /* equal names: any one describes it */
    return SG_OK;
}

static const producer *find_producer(const reader *r, const char *name)
{
    producer key = {name, P_INITIALIZER, 0, 0};
    size_t lo = 0, hi = r->nproducers;
    while (lo < hi) { /* the first entry of that name: an initializer before a graph input */
        size_t mid = lo + (hi - lo) / 2;
        if (by_name(&r->producers[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nproducers && strcmp(r->producers[lo].name, name) == 0 ? &r->producers[lo] : NULL;
}

/* Every node reads only graph inputs, initializers and outputs of earlier
 * nodes (ONNX's rule: the nodes are sorted topologically, so the graph has
 * no cycle); an input named '' is absent. An input that nothing makes is
 * left to the readers of the nodes that use it. */
static sg_status check_order(reader *r)
{
    const Onnx__GraphProto *g = r->graph;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *node = g->node[i];
        for (size_t k = 0; k < node->n_input; k++) {
            const producer *p = str(node->input[k])[0] != '\0' ? find_producer(r, node->input[k]) : NULL;
            if (p == NULL || p->kind != P_NODE || p->index < i)
                continue;
            char whom[WHO_BUF], maker[WHO_BUF], shown[SHOW_BUF];
            return bad(r,
                       "%s: input %zu ('%s') is made by %s, not by an earlier node, a graph input or an "
                       "initializer (the graph has a cycle or is not sorted topologically)",
                       who_node(r, i, whom), k, show(node->input[k], shown), who_producer(r, p, maker));
        }
    }
    return SG_OK;
}

static const Onnx__TypeProto__Tensor *find_type(const reader *r, const char *name)
{
    info key = {name, NULL, NULL};
    const info *i = bsearch(&key, r->infos, r->ninfos, sizeof *r->infos, by_info_name);
    const Onnx__TypeProto *t = i ? i->value->type : NULL;
    return t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? t->tensor_type : NULL;
}

/* ---- nodes -------------------------------------------------------------------- */

/* A node being read. */
typedef struct node_in {
    reader *r;
    const Onnx__NodeProto *node;
    size_t index;  /* in the main graph; a subgraph's node: its graph node's index */
    int32_t gnode; /* its node in r->g */
    bool sub;      /* a node of a subgraph: its constants and types come from r->g alone */
    int version;   /* the operator's version under the model's opset */
    char who[WHO_BUF];
    /* the data input */
    bool have_shape, have_dtype;
    size_t rank;
    int64_t shape[SG_MAX_RANK]; /* -1: known only at run time */
    sg_dtype dtype;
    int32_t onnx_type;
    sg_value_table values;
    /* value k of `values` as shape arithmetic gives it (an expression of the
     * model's symbols in r->g), where known[k] */
    sg_val value_exprs[SG_MAX_VALUES];
    bool known[SG_MAX_VALUES];
    char reason[448]; /* the first skip reason */
} node_in;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
skip(node_in *n, const char *fmt, ...)
{
    if (n->reason[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->reason, sizeof n->reason, fmt, ap);
    va_end(ap);
}

static bool skipped(const node_in *n)
{
    return n->reason[0] != '\0';
}

/* A list of integers from an attribute or input; refs (malloc'd) set
 * where its elements are runtime values. */
typedef struct ilist {
    bool given;
    size_t len;
    int64_t *v;
    uint16_t *refs;
} ilist;

static void ilist_free(ilist *l)
{
    free(l->v);
    free(l->refs);
}

/* The node's attribute `name`, or NULL; given twice is malformed. */
static sg_status find_attr(node_in *n, const char *name, const Onnx__AttributeProto **out)
{
    *out = NULL;
    for (size_t i = 0; i < n->node->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->node->attribute[i];
        if (strcmp(str(a->name), name) != 0)
            continue;
        if (*out != NULL)
            return bad(n->r, "%s: attribute '%s' is given twice", n->who, name);
        *out = a;
    }
    return SG_OK;
}

/* Attribute `name` of type `type` (a typeless attribute, as early
 * writers made, counts as that type); *a NULL when absent. */
static sg_status attr_of(node_in *n, const char *name, Onnx__AttributeProto__AttributeType type,
                         const Onnx__AttributeProto **a)
{
    static const char *const names[] = {"UNDEFINED",      "FLOAT",      "INT",        "STRING",
                                        "TENSOR",         "GRAPH",      "FLOATS",     "INTS",
                                        "STRINGS",        "TENSORS",    "GRAPHS",     "SPARSE_TENSOR",
                                        "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    if (find_attr(n, name, a) != SG_OK)
        return n->r->err->status;
    if (*a != NULL && (*a)->has_type && (*a)->type != type) {
        char number[24];
        int t = (int)(*a)->type;
        snprintf(number, sizeof number, "%d", t);
        return bad(n->r, "%s: attribute '%s' must be of type %s (it is of type %s)", n->who, name,
                   names[type], t >= 0 && t < 15 ? names[t] : number);
    }
    return SG_OK;
}

static sg_status attr_int(node_in *n, const char *name, int64_t fallback, int64_t *value)
{
    const Onnx__AttributeProto *a;
    if (attr_of(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, &a) != SG_OK)
        return n->r->err->status;
    *value = a ? a->i : fallback;
    return SG_OK;
}

static sg_status attr_ints(node_in *n, const char *name, bool required, ilist *l)
{
    const Onnx__AttributeProto *a;
    if (attr_of(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, &a) != SG_OK)
        return n->r->err->status;
    if (a == NULL && required)
        return bad(n->r, "%s: attribute '%s' is required", n->who, name);
    if (a == NULL)
        return SG_OK;
    l->given = true;
    l->len = a->n_ints;
    l->v = malloc(a->n_ints ? a->n_ints * sizeof *l->v : 1);
    if (l->v == NULL)
        return nomem(n->r);
    if (a->n_ints)
        memcpy(l->v, a->ints, a->n_ints * sizeof *l->v);
    return SG_OK;
}

/* The name of input `pos`, or NULL when it is absent (past the end, or ""). */
static const char *input_name(const node_in *n, size_t pos)
{
    return pos < n->node->n_input && str(n->node->input[pos])[0] != '\0' ? n->node->input[pos] : NULL;
}

/* A constant input: the tensor of an initializer or Constant node. */
typedef struct constant {
    bool is_constant;
    int32_t onnx_type;
    size_t rank;
    int64_t dims[SG_MAX_RANK]; /* the first rank (up to SG_MAX_RANK) */
    size_t count;
    sg_scalar *values; /* malloc'd */
} constant;

/* Reads input `pos` (`role` names it) when it is constant: an initializer,
 * or a Constant node's value, value_int(s) or value_float(s). Not found
 * anywhere is malformed; made by another node or a graph input, or a
 * Constant of another kind, leaves c->is_constant false. */
/* Input `pos` as the graph knows it: a constant's tensor (*t), or the
 * elements shape inference folded to constants (into c); neither leaves
 * both unset. */
static sg_status graph_constant(node_in *n, size_t pos, constant *c, const Onnx__TensorProto **t)
{
    const sg_gnode *gn = &n->r->g.nodes[n->gnode];
    const sg_gtensor *x = pos < gn->nin && gn->in[pos] >= 0 ? &n->r->g.tensors[gn->in[pos]] : NULL;
    if (x == NULL)
        return SG_OK;
    if (x->constant && x->source != NULL) {
        *t = x->source;
        return SG_OK;
    }
    bool known = x->nvalues >= 0 && x->rank >= 0 && (x->type == SG_I32 || x->type == SG_I64);
    for (int64_t k = 0; known && k < x->nvalues; k++)
        known = sg_is_const(x->values[k]);
    if (!known)
        return SG_OK;
    c->is_constant = true;
    c->onnx_type = x->type == SG_I32 ? 6 : 7;
    c->rank = (size_t)x->rank;
    for (int d = 0; d < x->rank && d < SG_MAX_RANK; d++)
        c->dims[d] = sg_is_const(x->dims[d]) ? x->dims[d].k : -1;
    c->count = (size_t)x->nvalues;
    if ((c->values = malloc(c->count ? c->count * sizeof *c->values : 1)) == NULL)
        return nomem(n->r);
    for (size_t k = 0; k < c->count; k++)
        c->values[k] = (sg_scalar){.kind = SG_SCALAR_INT, .i = x->values[k].k};
    return SG_OK;
}

static sg_status read_constant(node_in *n, size_t pos, const char *role, constant *c)
{
    reader *r = n->r;
    const char *name = input_name(n, pos);
    char shown[SHOW_BUF], where[WHO_BUF + 64], whom[WHO_BUF];
    const producer *p = n->sub ? NULL : find_producer(r, name);
    *c = (constant){0};
    const Onnx__TensorProto *t = NULL;
    if (p == NULL && !n->sub)
        return bad(r, "%s: input '%s': no graph input, initializer or node output named '%s'", n->who, role,
                   show(name, shown));
    if (n->sub || (p->kind != P_INITIALIZER &&
                   !(p->kind == P_NODE && strcmp(str(r->graph->node[p->index]->op_type), "Constant") == 0))) {
        /* a subgraph's input, or shape arithmetic folded to constants */
        if (graph_constant(n, pos, c, &t) != SG_OK || t == NULL)
            return r->err->status;
        snprintf(where, sizeof where, "constant '%s'", show(name, shown));
    } else if (p->kind == P_INITIALIZER) {
        t = r->graph->initializer[p->index];
        snprintf(where, sizeof where, "initializer '%s' (index %zu)", show(name, shown), p->index);
    } else if (p->kind == P_NODE) {
        const Onnx__NodeProto *src = r->graph->node[p->index];
        if (strcmp(str(src->op_type), "Constant") != 0 || !default_domain(src->domain) ||
            src->n_attribute != 1)
            return SG_OK;
        const Onnx__AttributeProto *a = src->attribute[0];
        const char *kind = str(a->name);
        snprintf(where, sizeof where, "%s: attribute '%s'", who_node(r, p->index, whom), show(kind, shown));
        bool ints = strcmp(kind, "value_ints") == 0, floats = strcmp(kind, "value_floats") == 0;
        if (strcmp(kind, "value") == 0 && a->t != NULL) {
            t = a->t;
        } else if (ints || floats || strcmp(kind, "value_int") == 0 || strcmp(kind, "value_float") == 0) {
            c->is_constant = true;
            c->onnx_type = ints || strcmp(kind, "value_int") == 0 ? 7 : 1;
            c->rank = ints || floats;
            c->count = ints ? a->n_ints : floats ? a->n_floats : 1;
            c->dims[0] = (int64_t)c->count;
            c->values = malloc(c->count ? c->count * sizeof *c->values : 1);
            if (c->values == NULL)
                return nomem(r);
            for (size_t k = 0; k < c->count; k++)
                c->values[k] = c->onnx_type == 7
                                   ? (sg_scalar){.kind = SG_SCALAR_INT, .i = ints ? a->ints[k] : a->i}
                                   : (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = floats ? a->floats[k] : a->f};
            return SG_OK;
        } else {
            return SG_OK;
        }
    } else {
        return SG_OK; /* a graph input */
    }
    tensor_ref ref;
    sg_status st = check_tensor(r, t, where, &ref);
    c->is_constant = true;
    c->onnx_type = t->data_type;
    c->rank = t->n_dims;
    for (size_t d = 0; d < t->n_dims && d < SG_MAX_RANK; d++)
        c->dims[d] = t->dims[d];
    c->count = ref.count;
    if (st == SG_OK && ref.type.known && ref.count <= LIST_MAX)
        st = tensor_values(r, &ref, where, &c->values);
    free(ref.file);
    return st;
}

static sg_status runtime_ints(node_in *n, const sg_gtensor *x, const char *role, bool runtime, ilist *l);

/* Input `pos`, a 1-D list of int32 or int64 (`role` names it): constant
 * values, or, when `runtime` allows, runtime values named role_0, role_1,
 * ... whose count the input's type gives. Anything else is a skip reason. */
static sg_status input_ints(node_in *n, size_t pos, const char *role, bool runtime, ilist *l)
{
    constant c;
    char tname[24];
    if (input_name(n, pos) == NULL)
        return SG_OK;
    /* elements shape inference folded to constants (shape arithmetic: Shape,
     * Gather, Concat...), or a subgraph's constants */
    const sg_gnode *gn = &n->r->g.nodes[n->gnode];
    const sg_gtensor *x = pos < gn->nin && gn->in[pos] >= 0 ? &n->r->g.tensors[gn->in[pos]] : NULL;
    bool folded = x != NULL && x->nvalues >= 0 && x->rank == 1 && (x->type == SG_I32 || x->type == SG_I64) &&
                  (n->sub || !x->constant);
    for (int64_t k = 0; folded && k < x->nvalues; k++)
        folded = sg_is_const(x->values[k]);
    if (folded) {
        l->given = true;
        l->len = (size_t)x->nvalues;
        if ((l->v = malloc(x->nvalues ? (size_t)x->nvalues * sizeof *l->v : 1)) == NULL)
            return nomem(n->r);
        for (int64_t k = 0; k < x->nvalues; k++)
            l->v[k] = x->values[k].k;
        return SG_OK;
    }
    if (n->sub) { /* not folded: a constant too long to keep, or runtime values */
        l->given = true;
        if (x != NULL && x->constant) {
            skip(n, "input '%s' is a constant of more than %d elements, or not of INT32 or INT64", role,
                 SG_GRAPH_MAX_VALUES);
            return SG_OK;
        }
        return runtime_ints(n, x, role, runtime, l);
    }
    if (read_constant(n, pos, role, &c) != SG_OK)
        return n->r->err->status;
    l->given = true;
    if (c.is_constant) {
        if (c.onnx_type != 6 && c.onnx_type != 7)
            skip(n, "input '%s' is a constant of %s, not INT32 or INT64", role,
                 type_name(c.onnx_type, tname));
        else if (c.rank != 1)
            skip(n, "input '%s' must be 1-D (it has rank %zu)", role, c.rank);
        else if (c.count > LIST_MAX)
            skip(n, "input '%s' has %zu elements, more than %d", role, c.count, LIST_MAX);
        if (!skipped(n)) {
            l->len = c.count;
            l->v = malloc(c.count ? c.count * sizeof *l->v : 1);
            if (l->v == NULL) {
                free(c.values);
                return nomem(n->r);
            }
            for (size_t k = 0; k < c.count; k++)
                l->v[k] = c.values[k].i;
        }
        free(c.values);
        return SG_OK;
    }
    return runtime_ints(n, x, role, runtime, l);
}

/* Input x (`role` names it), not a constant, as runtime values named
 * role_0, role_1, ..., one per element of its 1-D type of static length
 * (stated, or inferred). */
static sg_status runtime_ints(node_in *n, const sg_gtensor *x, const char *role, bool runtime, ilist *l)
{
    char shown[SHOW_BUF], tname[24];
    const char *name = x != NULL ? x->name : "";
    if (!runtime) {
        skip(n, "input '%s' ('%s') is not a constant (an initializer or Constant node), and must be", role,
             show(name, shown));
        return SG_OK;
    }
    const Onnx__TypeProto__Tensor *type = n->sub ? NULL : find_type(n->r, name);
    bool stated = type != NULL && type->shape != NULL && type->shape->n_dim == 1 &&
                  type->shape->dim[0]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    bool inferred = x != NULL && x->rank == 1 && sg_is_const(x->dims[0]);
    if (!stated && !inferred) {
        skip(n,
             "input '%s' ('%s') is not a constant and its length is not known (no 1-D type of static length)",
             role, show(name, shown));
        return SG_OK;
    }
    int64_t len = stated ? type->shape->dim[0]->dim_value : x->dims[0].k;
    int32_t elem = stated && type->has_elem_type ? type->elem_type : 0;
    bool integer = stated && type->has_elem_type ? elem == 6 || elem == 7
                                                 : x != NULL && (x->type == SG_I32 || x->type == SG_I64);
    if (!integer) {
        skip(n, "input '%s' ('%s') is not a constant and has type %s, not INT32 or INT64", role,
             show(name, shown), elem ? type_name(elem, tname) : "of another kind");
        return SG_OK;
    }
    if (len < 0 || len > SG_MAX_VALUES) {
        skip(n, "input '%s' ('%s') is not a constant and has %lld elements, more runtime values than %d",
             role, show(name, shown), (long long)len, SG_MAX_VALUES);
        return SG_OK;
    }
    l->len = (size_t)len;
    l->v = calloc(len ? (size_t)len : 1, sizeof *l->v);
    l->refs = calloc(len ? (size_t)len : 1, sizeof *l->refs);
    if (l->v == NULL || l->refs == NULL)
        return nomem(n->r);
    for (int64_t e = 0; e < len; e++) {
        char value[SG_VALUE_NAME_MAX + 1];
        const char *why = NULL;
        int k = snprintf(value, sizeof value, "%s_%lld", role, (long long)e);
        sg_status st = sg_value_table_ref(&n->values, value, (size_t)k, &l->refs[e], &why);
        if (st == SG_ERR_NOMEM)
            return nomem(n->r);
        if (st != SG_OK) {
            skip(n, "input '%s' is not a constant and its elements are too many runtime values (%s)", role,
                 why);
            return SG_OK;
        }
        if (x != NULL && e < x->nvalues) { /* shape arithmetic: it follows from the symbols */
            n->value_exprs[l->refs[e] - 1] = x->values[e];
            n->known[l->refs[e] - 1] = true;
        }
    }
    return SG_OK;
}

/* Why tensor t of the graph has no known type or shape: the node that
 * makes it, or the first node before it with no shape rule. */
static const char *unknown_why(const reader *r, int32_t t, char buf[WHO_BUF + 64])
{
    const sg_graph *g = &r->g;
    char shown[SHOW_BUF];
    for (int hops = 0; hops < 64 && t >= 0; hops++) {
        int32_t p = g->tensors[t].producer;
        if (p < 0)
            break;
        const sg_gnode *m = &g->nodes[p];
        const char *who = m->name[0] ? m->name : m->nout && m->out[0] >= 0 ? g->tensors[m->out[0]].name : "";
        if (!sg_graph_has_rule(m->domain, m->op)) {
            snprintf(buf, WHO_BUF + 64, "node '%s' (%s%s%s) makes it, and slicegen has no shape rule for %s",
                     show(who, shown), m->domain, m->domain[0] ? "." : "", m->op, m->op);
            return buf;
        }
        int32_t next = -1; /* an input of unknown shape: the cause is further up */
        for (size_t i = 0; i < m->nin && next < 0; i++)
            if (m->in[i] >= 0 &&
                (g->tensors[m->in[i]].rank < 0 || g->tensors[m->in[i]].type == SG_GTYPE_UNKNOWN))
                next = m->in[i];
        if (next < 0) {
            snprintf(buf, WHO_BUF + 64, "node '%s' (%s) makes it, from inputs that do not tell",
                     show(who, shown), m->op);
            return buf;
        }
        t = next;
    }
    snprintf(buf, WHO_BUF + 64, "no graph input, value_info or output gives it");
    return buf;
}

/* The data input's type and shape as shape inference over the whole graph
 * gives them; false when it does not know them (reason: a skip reason). */
static bool inferred_data(node_in *n, bool reason)
{
    const sg_graph *g = &n->r->g;
    const sg_gnode *gn = &g->nodes[n->gnode];
    const sg_gtensor *x = gn->nin > 0 && gn->in[0] >= 0 ? &g->tensors[gn->in[0]] : NULL;
    char shown[SHOW_BUF], why[WHO_BUF + 64];
    if (x == NULL || x->type == SG_GTYPE_UNKNOWN || x->rank < 0) {
        if (reason && x != NULL)
            skip(n, "the data input '%s' has no known %s (%s)", show(x->name, shown),
                 x->type == SG_GTYPE_UNKNOWN ? "type" : "shape", unknown_why(n->r, gn->in[0], why));
        return false;
    }
    if (x->type == SG_GTYPE_OTHER) {
        if (reason)
            skip(n, "the data input '%s' has an element type slicegen lacks", show(x->name, shown));
        return false;
    }
    if (x->rank > SG_MAX_RANK) {
        if (reason)
            skip(n, "the data input '%s' has rank %d, more than %d", show(x->name, shown), x->rank,
                 SG_MAX_RANK);
        return false;
    }
    n->have_shape = n->have_dtype = true;
    n->rank = (size_t)x->rank;
    for (int d = 0; d < x->rank; d++)
        n->shape[d] = sg_is_const(x->dims[d]) && x->dims[d].k >= 0 ? x->dims[d].k : -1;
    n->dtype = (sg_dtype)x->type;
    n->onnx_type = 0;
    static const int32_t codes[] = {[SG_BOOL] = 9,  [SG_I8] = 3,   [SG_U8] = 2,  [SG_I16] = 5,  [SG_U16] = 4,
                                    [SG_I32] = 6,   [SG_U32] = 12, [SG_I64] = 7, [SG_U64] = 13, [SG_F16] = 10,
                                    [SG_BF16] = 16, [SG_F32] = 1,  [SG_F64] = 11};
    if ((size_t)x->type < sizeof codes / sizeof *codes)
        n->onnx_type = codes[x->type];
    return true;
}

/* The data input (input 0): shape and element type from an initializer,
 * a graph input, value_info or a graph output, else as shape inference
 * gives them (a dimension the file leaves dynamic but inference knows
 * taken from it). Unknown ones are skip reasons. */
static sg_status read_data(node_in *n)
{
    reader *r = n->r;
    const char *name = input_name(n, 0);
    char shown[SHOW_BUF], tname[24];
    if (name == NULL)
        return bad(r, "%s: input 'data' is missing", n->who);
    if (n->sub) {
        inferred_data(n, true);
        return SG_OK;
    }
    const producer *p = find_producer(r, name);
    if (p == NULL)
        return bad(r, "%s: input 'data': no graph input, initializer or node output named '%s'", n->who,
                   show(name, shown));
    const Onnx__TypeProto__Tensor *type = find_type(r, name);
    int64_t dims[SG_MAX_RANK];
    size_t rank = 0;
    if (p->kind == P_INITIALIZER) {
        const Onnx__TensorProto *t = r->graph->initializer[p->index];
        n->onnx_type = t->data_type;
        rank = t->n_dims;
        for (size_t i = 0; i < rank && i < SG_MAX_RANK; i++)
            dims[i] = t->dims[i];
    } else if (type == NULL || !type->has_elem_type || type->shape == NULL) {
        inferred_data(n, true);
        return SG_OK;
    } else {
        n->onnx_type = type->elem_type;
        rank = type->shape->n_dim;
        for (size_t i = 0; i < rank && i < SG_MAX_RANK; i++) {
            const Onnx__TensorShapeProto__Dimension *d = type->shape->dim[i];
            bool value = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            if (value && d->dim_value < 0)
                return bad(r, "%s: input 'data': the type of '%s' has a negative dimension (dim[%zu] = %lld)",
                           n->who, show(name, shown), i, (long long)d->dim_value);
            dims[i] = value ? d->dim_value : -1;
        }
    }
    if (rank > SG_MAX_RANK) {
        skip(n, "the data input '%s' has rank %zu, more than %d", show(name, shown), rank, SG_MAX_RANK);
        return SG_OK;
    }
    etype e = element_type(n->onnx_type);
    n->have_shape = true;
    n->rank = rank;
    memcpy(n->shape, dims, rank * sizeof *dims);
    const sg_gtensor *x = &r->g.tensors[r->g.nodes[n->gnode].in[0]];
    for (size_t i = 0; i < rank && x->rank == (int)rank; i++) /* what inference knows of a dynamic one */
        if (dims[i] < 0 && sg_is_const(x->dims[i]) && x->dims[i].k >= 0)
            n->shape[i] = x->dims[i].k;
    n->have_dtype = e.known;
    n->dtype = e.dtype;
    if (!e.known)
        skip(n, "the data input '%s' has element type %s, which slicegen lacks", show(name, shown),
             type_name(n->onnx_type, tname));
    return SG_OK;
}

/* axis in [-rank, rank), made non-negative; else a skip reason. */
static int64_t normal_axis(node_in *n, int64_t axis)
{
    if (axis < -(int64_t)n->rank || axis >= (int64_t)n->rank) {
        skip(n, "axis %lld is out of range for rank %zu", (long long)axis, n->rank);
        return 0;
    }
    return axis < 0 ? axis + (int64_t)n->rank : axis;
}

/* A constructor's failure is a skip reason, but for lack of memory. */
static sg_status made(node_in *n, const sg_error *lerr)
{
    if (lerr->status == SG_ERR_NOMEM)
        return nomem(n->r);
    if (lerr->status != SG_OK)
        skip(n, "%s", lerr->message);
    return SG_OK;
}

/* Output `name` of node n, which layer l (read, with a spec) makes: each
 * value_info and graph output of that name must give the element type of
 * the data input and the shape of the layer's plan (its rank and each
 * dimension; one known only at run time, on either side, matches any), or
 * a layer reading it would be compiled for another shape than the one it
 * gets, and for another one again when fused with this one. A layer that
 * does not plan is left to be skipped with the planner's reason. A
 * program (a Gather of an index tensor) is left to shape inference's
 * check of every stated shape (graph_infer.c). */
static sg_status check_output(node_in *n, const char *name, const sg_model_layer *l)
{
    reader *r = n->r;
    info key = {name, NULL, NULL};
    size_t first = r->ninfos;
    if (l->spec == NULL || str(name)[0] == '\0' || l->spec->op == SG_OP_PROGRAM)
        return SG_OK;
    for (size_t lo = 0, hi = r->ninfos; lo < hi;) { /* the first info of that name */
        size_t mid = lo + (hi - lo) / 2;
        if (by_info_name(&r->infos[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = first = mid;
    }
    if (first == r->ninfos || strcmp(r->infos[first].name, name) != 0)
        return SG_OK;
    sg_plan *plan = calloc(1, sizeof *plan);
    sg_error lerr = {0};
    if (plan == NULL)
        return nomem(r);
    sg_status st = sg_infer_shape(l->spec, l->rank, l->shape, l->dtype, plan, &lerr);
    if (st != SG_OK) {
        sg_plan_free(plan);
        return st == SG_ERR_NOMEM ? nomem(r) : SG_OK;
    }
    char shown[SHOW_BUF], stated[SG_DIMS_TEXT_BUF], made[SG_DIMS_TEXT_BUF], tname[24], ttname[24];
    for (size_t i = first; st == SG_OK && i < r->ninfos && strcmp(r->infos[i].name, name) == 0; i++) {
        const Onnx__TypeProto *t = r->infos[i].value->type;
        if (t == NULL || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || t->tensor_type == NULL)
            continue;
        const Onnx__TypeProto__Tensor *type = t->tensor_type;
        if (type->has_elem_type && type->elem_type != 0 && type->elem_type != n->onnx_type) {
            st = bad(r, "%s: %s '%s' gives element type %s, but the %s makes %s", n->who, r->infos[i].list,
                     show(name, shown), type_name(type->elem_type, tname), l->type,
                     type_name(n->onnx_type, ttname));
            break;
        }
        if (type->shape == NULL)
            continue;
        bool same = type->shape->n_dim == plan->out_rank;
        int64_t dims[SG_MAX_RANK];
        size_t rank = type->shape->n_dim < SG_MAX_RANK ? type->shape->n_dim : SG_MAX_RANK;
        for (size_t d = 0; d < rank; d++) {
            const Onnx__TensorShapeProto__Dimension *dim = type->shape->dim[d];
            bool value = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dims[d] = value ? dim->dim_value : INT64_MIN; /* a dim_param, or nothing: any */
            if (value && d < plan->out_rank && plan->out_shape[d] >= 0 && dims[d] != plan->out_shape[d])
                same = false;
        }
        if (!same) /* a rank past SG_MAX_RANK shows cut, as a long one does */
            st = bad(r, "%s: %s '%s' gives shape %s, but the %s makes %s", n->who, r->infos[i].list,
                     show(name, shown), sg_dims_text(dims, rank, INT64_MIN, stated), l->type,
                     sg_dims_text(plan->out_shape, plan->out_rank, -1, made));
    }
    sg_plan_free(plan);
    return st;
}

/* The largest of `versions` (ascending, 0-terminated) not above opset. */
static int op_version(int64_t opset, const int *versions)
{
    int v = 0;
    for (; *versions && *versions <= opset; versions++)
        v = *versions;
    return v;
}

/* Slice-1 (attributes starts, ends, axes); Slice-10/11/13 (inputs data,
 * starts, ends, axes, steps; starts, ends and steps may be runtime values). */
static sg_status read_slice(node_in *n, sg_spec **spec)
{
    ilist l[4] = {{0}}; /* starts, ends, axes, steps */
    static const char *const roles[4] = {"starts", "ends", "axes", "steps"};
    sg_status st = SG_OK;
    if (n->version < 10) {
        for (int i = 0; i < 3 && st == SG_OK; i++)
            st = attr_ints(n, roles[i], i < 2, &l[i]);
    } else {
        if (input_name(n, 1) == NULL || input_name(n, 2) == NULL)
            st = bad(n->r, "%s: input '%s' is required", n->who, input_name(n, 1) ? "ends" : "starts");
        /* In input order, so the values are those of starts, then ends, then steps. */
        for (int i = 0; i < 4 && st == SG_OK; i++)
            st = input_ints(n, (size_t)i + 1, roles[i], i != 2, &l[i]);
    }
    for (int i = 1; i < 4 && st == SG_OK && !skipped(n); i++)
        if (l[i].given && l[i].len != l[0].len)
            skip(n, "inputs 'starts' and '%s' must have the same length (%zu and %zu)", roles[i], l[0].len,
                 l[i].len);
    if (st == SG_OK && !skipped(n)) {
        sg_error lerr = {0};
        sg_value_refs values = {{l[0].refs, l[1].refs, l[3].refs}, &n->values};
        sg_spec_make_onnx_slice(l[0].len, l[0].v, l[1].v, l[3].v, l[2].v, &values, spec, &lerr);
        st = made(n, &lerr);
    }
    for (int i = 0; i < 4; i++)
        ilist_free(&l[i]);
    return st;
}

/* Pad-1 (attribute paddings), Pad-2 (pads, mode, value), Pad-11/13
 * (inputs data, pads, constant_value), Pad-18 (+ axes), Pad-19 (+ mode
 * wrap, which ONNX Runtime takes under every version). pads are [x1_begin, x2_begin, ..., x1_end, x2_end,
 * ...]. */
static sg_status read_pad(node_in *n, sg_spec **spec)
{
    reader *r = n->r;
    ilist pads = {0}, axes = {0};
    sg_scalar fill = {.kind = SG_SCALAR_FLOAT, .f = 0};
    sg_trt_mode mode = SG_TRT_FILL;
    const Onnx__AttributeProto *a;
    char shown[SHOW_BUF], tname[24], dname[24];
    sg_status st = attr_of(n, "mode", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, &a);
    if (st == SG_OK && a != NULL) {
        /* ONNX Runtime takes wrap under every version, not only Pad-19's. */
        static const struct {
            const char *name;
            sg_trt_mode mode;
        } modes[] = {{"constant", SG_TRT_FILL},
                     {"edge", SG_TRT_CLAMP},
                     {"reflect", SG_TRT_REFLECT},
                     {"wrap", SG_TRT_WRAP}};
        char text[16] = "";
        size_t len = a->s.len < sizeof text ? a->s.len : sizeof text - 1;
        if (len > 0)
            memcpy(text, a->s.data, len);
        size_t m = 0;
        while (m < 4 && (strcmp(text, modes[m].name) != 0 || a->s.len != strlen(modes[m].name)))
            m++;
        if (m == 4)
            skip(n, "mode '%s' is not constant, edge, reflect or wrap", show(text, shown));
        else
            mode = modes[m].mode;
    }
    if (st == SG_OK && n->version < 11) {
        st = attr_ints(n, n->version < 2 ? "paddings" : "pads", true, &pads);
        const Onnx__AttributeProto *value;
        if (st == SG_OK &&
            (st = attr_of(n, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, &value)) == SG_OK &&
            value != NULL)
            fill.f = value->f;
    } else if (st == SG_OK) {
        if (input_name(n, 1) == NULL)
            st = bad(r, "%s: input 'pads' is required", n->who);
        if (st == SG_OK)
            st = input_ints(n, 1, "pads", true, &pads);
        if (st == SG_OK && n->version >= 18)
            st = input_ints(n, 3, "axes", false, &axes);
        constant c = {0};
        if (st == SG_OK && input_name(n, 2) != NULL &&
            (st = read_constant(n, 2, "constant_value", &c)) == SG_OK) {
            if (!c.is_constant)
                skip(n, "input 'constant_value' is not a constant (an initializer or Constant node)");
            else if (c.count != 1 || c.rank > 1)
                skip(n, "input 'constant_value' must be one element (it has %zu in rank %zu)", c.count,
                     c.rank);
            else if (c.onnx_type != n->onnx_type)
                skip(n, "input 'constant_value' has type %s, the data %s", type_name(c.onnx_type, tname),
                     type_name(n->onnx_type, dname));
            else if (c.values != NULL)
                fill = c.values[0];
        }
        free(c.values);
    }
    size_t half = pads.len / 2;
    if (st == SG_OK && !skipped(n)) {
        if (pads.len % 2 != 0)
            skip(n, "pads must have an even length (%zu)", pads.len);
        else if (axes.given && axes.len != half)
            skip(n, "pads must have two entries per axis (%zu pads for %zu axes)", pads.len, axes.len);
        else if (!axes.given && half != n->rank)
            skip(n, "pads must have two entries per dimension (%zu pads for rank %zu)", pads.len, n->rank);
    }
    if (st == SG_OK && !skipped(n)) {
        sg_error lerr = {0};
        sg_value_refs values = {{pads.refs, pads.refs ? pads.refs + half : NULL, NULL}, &n->values};
        sg_spec_make_pad(half, pads.v, pads.v + half, axes.v, mode, mode == SG_TRT_FILL ? &fill : NULL,
                         &values, spec, &lerr);
        st = made(n, &lerr);
    }
    ilist_free(&pads);
    ilist_free(&axes);
    return st;
}

/* Gather of a constant index tensor of rank 1 or more: a program of
 * slices (sg_gather_program), or a skip reason. */
static sg_status gather_program(node_in *n, int64_t axis, const constant *c, sg_spec **spec)
{
    if (c->values == NULL) { /* not read: more elements than LIST_MAX */
        skip(n, "input 'indices' has %zu elements, more than %d", c->count, LIST_MAX);
        return SG_OK;
    }
    int64_t *idx = malloc(c->count ? c->count * sizeof *idx : 1);
    if (idx == NULL)
        return nomem(n->r);
    for (size_t k = 0; k < c->count; k++)
        idx[k] = c->values[k].i;
    sg_error lerr = {0};
    sg_status st = sg_gather_program(n->rank, n->shape, axis, c->rank, c->dims, idx, c->count,
                                     "input 'indices'", spec, n->reason, sizeof n->reason, &lerr);
    free(idx);
    return st == SG_OK ? SG_OK : nomem(n->r);
}

/* Gather-1/11/13 with a constant index: of rank 0, a StridedSlice of full
 * ranges before the axis, then a shrink step; of a higher rank, a
 * program. */
static sg_status read_gather(node_in *n, sg_spec **spec)
{
    int64_t axis = 0;
    constant c = {0};
    char tname[24];
    if (attr_int(n, "axis", 0, &axis) != SG_OK)
        return n->r->err->status;
    if (input_name(n, 1) == NULL)
        return bad(n->r, "%s: input 'indices' is required", n->who);
    if (read_constant(n, 1, "indices", &c) != SG_OK)
        return n->r->err->status;
    if (!c.is_constant)
        skip(n, "input 'indices' is not a constant (a Gather of indices known only at run time is no slice)");
    else if (c.onnx_type != 6 && c.onnx_type != 7)
        skip(n, "input 'indices' has type %s, not INT32 or INT64", type_name(c.onnx_type, tname));
    axis = normal_axis(n, axis);
    if (!skipped(n) && c.rank != 0) {
        sg_status st = gather_program(n, axis, &c, spec);
        free(c.values);
        return st;
    }
    if (!skipped(n)) {
        size_t len = (size_t)axis + 1;
        int64_t zeros[SG_MAX_RANK] = {0}, ones[SG_MAX_RANK], mask[SG_MAX_RANK], shrink[SG_MAX_RANK] = {0};
        int64_t begin[SG_MAX_RANK] = {0}, end[SG_MAX_RANK] = {0};
        for (size_t i = 0; i < len; i++)
            ones[i] = 1, mask[i] = i < (size_t)axis;
        int64_t index = c.values[0].i;
        begin[axis] = index;
        end[axis] = index == INT64_MAX ? index : index + 1;
        shrink[axis] = 1;
        sg_strided_slice_args args = {
            .len = len,
            .begin = begin,
            .end = end,
            .stride = ones,
            .begin_mask = {mask, len},
            .end_mask = {mask, len},
            .new_axis_mask = {zeros, len},
            .shrink_axis_mask = {shrink, len},
            .ellipsis_mask = {zeros, len},
        };
        sg_error lerr = {0};
        sg_spec_make_strided_slice(&args, NULL, spec, &lerr);
        free(c.values);
        return made(n, &lerr);
    }
    free(c.values);
    return SG_OK;
}

/* Split-1/2/11 (attribute split), 13 (input split), 18 (input split or
 * attribute num_outputs: pieces of ceil(dim / n), the last one smaller):
 * one Slice-8 spec per output, specs[0..n_output). */
static sg_status read_split(node_in *n, sg_spec **specs)
{
    reader *r = n->r;
    size_t outputs = n->node->n_output;
    int64_t axis = 0, num_outputs = -1;
    ilist split = {0};
    const Onnx__AttributeProto *a = NULL;
    if (outputs == 0)
        return bad(r, "%s: a Split needs at least one output", n->who);
    sg_status st = attr_int(n, "axis", 0, &axis);
    if (st == SG_OK && n->version >= 18)
        st = attr_of(n, "num_outputs", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, &a);
    if (st == SG_OK && n->version >= 18 && a != NULL)
        num_outputs = a->i;
    if (st == SG_OK && (n->version >= 13 || n->version == 1))
        st = input_ints(n, 1, "split", false, &split);
    if (st == SG_OK && n->version < 13 && !split.given)
        st = attr_ints(n, "split", false, &split);
    if (st != SG_OK || skipped(n)) {
        ilist_free(&split);
        return st;
    }
    axis = normal_axis(n, axis);
    int64_t dim = skipped(n) ? 0 : n->shape[axis];
    if (split.given && num_outputs != -1)
        skip(n, "both input 'split' and attribute 'num_outputs' are given");
    else if (n->version >= 18 && !split.given && num_outputs == -1)
        skip(n, "neither input 'split' nor attribute 'num_outputs' is given");
    else if (num_outputs != -1 && num_outputs != (int64_t)outputs)
        skip(n, "attribute 'num_outputs' is %lld, the node has %zu outputs", (long long)num_outputs, outputs);
    else if (split.given && split.len != outputs)
        skip(n, "input 'split' has %zu sizes, the node has %zu outputs", split.len, outputs);
    else if (!split.given && dim < 0)
        skip(n, "the split axis %lld has a dimension known only at run time, and no sizes are given",
             (long long)axis);
    else if (num_outputs >= 1 && (dim / num_outputs + (dim % num_outputs != 0)) * (num_outputs - 1) >= dim)
        skip(n, /* num_outputs 1 of a dimension 0 included */
             "attribute 'num_outputs' %lld leaves the last output of dimension %lld empty or negative, which "
             "ONNX Runtime refuses",
             (long long)num_outputs, (long long)dim);
    else if (!split.given && num_outputs == -1 && dim % (int64_t)outputs != 0)
        skip(n, "dimension %lld does not split evenly into %zu outputs", (long long)dim, outputs);
    if (!skipped(n) && !split.given) {
        split.v = malloc(outputs * sizeof *split.v);
        if (split.v == NULL)
            return nomem(r);
        int64_t piece = dim / (int64_t)outputs + (dim % (int64_t)outputs != 0);
        for (size_t k = 0; k < outputs; k++)
            split.v[k] = k + 1 < outputs ? piece : dim - piece * (int64_t)(outputs - 1);
        split.len = outputs;
    }
    int64_t sum = 0;
    for (size_t k = 0; k < split.len && !skipped(n); k++)
        if (split.v[k] < 0)
            skip(n, "split sizes must not be negative (split[%zu] = %lld)", k, (long long)split.v[k]);
        else if (__builtin_add_overflow(sum, split.v[k], &sum))
            skip(n, "split sizes overflow 64 bits");
    if (!skipped(n) && dim >= 0 && sum != dim)
        skip(n, "split sizes add up to %lld, the dimension is %lld", (long long)sum, (long long)dim);
    int64_t start = 0;
    for (size_t k = 0; k < outputs && !skipped(n); k++) {
        int64_t stop = start + split.v[k], step = 1;
        sg_error lerr = {0};
        sg_spec_make_slice(1, &start, &stop, &step, &axis, NULL, &specs[k], &lerr);
        if (made(n, &lerr) != SG_OK) {
            ilist_free(&split);
            return r->err->status;
        }
        start = stop;
    }
    ilist_free(&split);
    return SG_OK;
}

typedef enum { OP_SLICE, OP_PAD, OP_SPLIT, OP_GATHER, OP_NONE } op_kind;

static op_kind op_of(const Onnx__NodeProto *node)
{
    static const char *const names[] = {"Slice", "Pad", "Split", "Gather"};
    if (!default_domain(node->domain))
        return OP_NONE;
    for (int k = 0; k < 4; k++)
        if (strcmp(str(node->op_type), names[k]) == 0)
            return (op_kind)k;
    return OP_NONE;
}

static char *copy_text(const char *text)
{
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    return copy ? memcpy(copy, text, n) : NULL;
}

/* Layer `out` of node n: spec (taken; NULL when skipped) or the reason. */
static sg_status fill_layer(node_in *n, sg_spec *spec, sg_model_layer *out)
{
    out->id = (int64_t)n->index;
    if (n->sub) { /* named after its path: "If_0/then_branch/Slice_3" */
        const char *path = n->r->g.scopes[n->r->g.nodes[n->gnode].scope].path, *name = node_name(n->node);
        char *full = malloc(strlen(path) + strlen(name) + 2);
        if (full != NULL)
            sprintf(full, "%s/%s", path, name);
        out->name = full;
    } else {
        out->name = copy_text(node_name(n->node));
    }
    out->type = copy_text(str(n->node->op_type));
    out->rank = n->have_shape ? n->rank : 0;
    out->dtype = n->have_dtype ? n->dtype : SG_BOOL;
    if (n->have_shape && n->rank > 0 && (out->shape = malloc(n->rank * sizeof *out->shape)) != NULL)
        memcpy((int64_t *)out->shape, n->shape, n->rank * sizeof *out->shape);
    if (spec != NULL) {
        out->spec = spec;
        out->spec_text = sg_spec_to_text(spec);
    } else {
        out->skip_reason = copy_text(n->reason[0] ? n->reason : "no spec");
    }
    if (out->name == NULL || out->type == NULL || (n->have_shape && n->rank > 0 && out->shape == NULL) ||
        (spec != NULL && out->spec_text == NULL) || (spec == NULL && out->skip_reason == NULL))
        return nomem(n->r);
    return SG_OK;
}

/* How layer l's numbers (its data input's dimensions, the values shape
 * arithmetic gives) follow from the model's symbols. */
static sg_status layer_numbers(node_in *n, const sg_model_layer *l, sg_layer_numbers *out)
{
    const sg_gnode *gn = &n->r->g.nodes[n->gnode];
    const sg_gtensor *data = gn->nin > 0 && gn->in[0] >= 0 ? &n->r->g.tensors[gn->in[0]] : NULL;
    if (!sg_layer_numbers_make(out, &n->r->g, data, l->rank, l->shape, l->spec, &n->values, n->value_exprs,
                               n->known))
        return nomem(n->r);
    return SG_OK;
}

/* Reads graph node `gnode` into the next layers of m (one; a Split one
 * per output): a node of the main graph, `index` in it, or of a subgraph. */
static sg_status read_node(reader *r, int32_t gnode, op_kind op, sg_model *m)
{
    const sg_gnode *gn = &r->g.nodes[gnode];
    bool sub = gn->scope != 0;
    size_t index = (size_t)gn->id;
    static const int versions[4][7] = {
        {1, 10, 11, 13, 0}, {1, 2, 11, 13, 18, 19, 0}, {1, 2, 11, 13, 18, 0}, {1, 11, 13, 0}};
    node_in *n = calloc(1, sizeof *n);
    const Onnx__NodeProto *node = gn->source;
    size_t outputs = op == OP_SPLIT ? node->n_output : 1;
    sg_spec **specs = calloc(outputs ? outputs : 1, sizeof *specs);
    sg_status st = SG_OK;
    if (n == NULL || specs == NULL) {
        st = nomem(r);
        goto done;
    }
    n->r = r;
    n->node = node;
    n->index = index;
    n->gnode = gnode;
    n->sub = sub;
    n->version = op_version(r->opset, versions[op]);
    if (sub) {
        char shown[SHOW_BUF];
        snprintf(n->who, sizeof n->who, "node '%s/%s' (%s)", r->g.scopes[gn->scope].path,
                 show(node_name(node), shown), str(node->op_type));
    } else {
        who_node(r, index, n->who);
    }
    if ((st = read_data(n)) != SG_OK)
        goto done;
    if (!skipped(n)) {
        static sg_status (*const readers[])(node_in *, sg_spec **) = {read_slice, read_pad, read_split,
                                                                      read_gather};
        st = readers[op](n, specs);
    }
    for (size_t k = 0; k < outputs && st == SG_OK; k++) {
        st = fill_layer(n, skipped(n) ? NULL : specs[k], &m->layers[m->nlayers++]);
        if (!skipped(n))
            specs[k] = NULL;
        if (st == SG_OK && !skipped(n))
            st = layer_numbers(n, &m->layers[m->nlayers - 1], &m->numbers[m->nlayers - 1]);
        if (st == SG_OK && k < n->node->n_output && !n->sub)
            st = check_output(n, n->node->output[k], &m->layers[m->nlayers - 1]);
    }
done:
    for (size_t k = 0; specs && k < outputs; k++)
        sg_spec_free(specs[k]);
    free(specs);
    if (n)
        sg_value_table_free(&n->values);
    free(n);
    return st;
}

/* What graph node x is: a slice layer (its op), or not one (OP_NONE):
 * another operator, or a slice-like node whose data input is shape
 * arithmetic (*folded: it is folded into the numbers of the kernels it
 * feeds, not compiled). */
static op_kind layer_op(const reader *r, int32_t x, bool *folded)
{
    const sg_gnode *gn = &r->g.nodes[x];
    op_kind op = op_of(gn->source);
    *folded = op != OP_NONE && gn->nin > 0 && gn->in[0] >= 0 && r->g.tensors[gn->in[0]].shape_arith;
    return *folded ? OP_NONE : op;
}


static sg_status read_nodes(reader *r, sg_model **model)
{
    size_t count = 0, folded = 0;
    bool f;
    for (size_t x = 0; x < r->g.nnodes; x++) {
        op_kind op = layer_op(r, (int32_t)x, &f);
        count += op == OP_SPLIT ? r->g.nodes[x].nout : op != OP_NONE;
        folded += f;
    }
    sg_model *m = calloc(1, sizeof *m);
    if (m == NULL || (m->layers = calloc(count ? count : 1, sizeof *m->layers)) == NULL ||
        (m->numbers = calloc(count ? count : 1, sizeof *m->numbers)) == NULL ||
        !sg_model_take_symbols(m, &r->g)) {
        sg_model_free(m);
        return nomem(r);
    }
    m->folded = folded;
    int32_t *layer_node = malloc((count ? count : 1) * sizeof *layer_node);
    if (layer_node == NULL) {
        sg_model_free(m);
        return nomem(r);
    }
    /* the main graph's nodes in order, then each subgraph's */
    for (size_t s = 0; s < r->g.nscopes; s++)
        for (size_t i = 0; i < r->g.scopes[s].nnodes; i++) {
            int32_t x = r->g.scopes[s].nodes[i];
            op_kind op = layer_op(r, x, &f);
            size_t first = m->nlayers;
            if (op != OP_NONE && read_node(r, x, op, m) != SG_OK) {
                free(layer_node);
                sg_model_free(m);
                return r->err->status;
            }
            for (size_t k = first; k < m->nlayers; k++)
                layer_node[k] = x;
        }
    bool flow = sg_model_read_flow(m, &r->g, layer_node);
    free(layer_node);
    if (!flow) {
        sg_model_free(m);
        return nomem(r);
    }
    sg_model_keep_symbols(m);
    *model = m;
    return SG_OK;
}

/* ---- entry points -------------------------------------------------------------- */

bool sg_model_is_onnx(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n < 5)
        return false;
    const char *ext = path + n - 5;
    for (int i = 0; i < 5; i++)
        if ((ext[i] | 0x20) != ".onnx"[i])
            return false;
    return true;
}

/* The model as a graph, every tensor's type and shape inferred. */
static sg_status read_graph(reader *r)
{
    sg_error lerr = {0};
    sg_status st = sg_onnx_decode_graph(r->model, r->opset, &r->g, &lerr);
    if (st == SG_ERR_NOMEM)
        return nomem(r);
    return st == SG_OK ? SG_OK : bad(r, "%s", lerr.message);
}

/* The real path of the folder holding `path`. */
static sg_status find_folder(reader *r)
{
    const char *slash = strrchr(r->path, '/');
    size_t len = slash ? (size_t)(slash - r->path) : 0;
    char *folder = malloc(len + 2);
    if (folder == NULL)
        return nomem(r);
    if (slash == NULL)
        strcpy(folder, ".");
    else if (len == 0)
        strcpy(folder, "/");
    else
        memcpy(folder, r->path, len), folder[len] = '\0';
    r->folder = realpath(folder, NULL);
    free(folder);
    if (r->folder == NULL)
        return errno == ENOMEM ? nomem(r) : bad(r, "cannot find the model's folder (%s)", strerror(errno));
    return SG_OK;
}

/* Reads, checks and decodes the model at r->path into r->g (every stage
 * up to, not including, its layers). */
static sg_status open_model(reader *r)
{
    sg_status st = read_file(r);
    if (st == SG_OK)
        st = find_folder(r);
    if (st == SG_OK)
        st = read_opset(r);
    if (st == SG_OK)
        st = index_graph(r);
    if (st == SG_OK)
        st = check_order(r);
    if (st == SG_OK)
        st = read_graph(r);
    return st;
}

/* Frees what open_model made but the graph, and every pointer the graph
 * holds into the unpacked model (its nodes' `source`, its constants'
 * `raw` and `source`). */
static void close_model(reader *r)
{
    if (r->model != NULL) {
        ProtobufCAllocator allocator = {bounded_alloc, bounded_free, r};
        onnx__model_proto__free_unpacked(r->model, &allocator);
    }
    for (size_t i = 0; i < r->g.nnodes; i++)
        r->g.nodes[i].source = NULL;
    for (size_t i = 0; i < r->g.ntensors; i++)
        r->g.tensors[i].raw = r->g.tensors[i].source = NULL;
    free(r->producers);
    free(r->infos);
    free(r->folder);
    free(r->file);
}

sg_status sg_onnx_read_graph(const char *path, sg_graph *g, sg_error *err)
{
    sg_error local = {0};
    reader r = {.path = path, .err = err ? err : &local};
    if (path == NULL)
        return sg_fail(r.err, SG_ERR_USAGE, "failed to read ONNX model: no path given");
    sg_status st = open_model(&r);
    close_model(&r);
    if (st == SG_OK)
        *g = r.g;
    else
        sg_graph_free(&r.g);
    return st;
}

sg_status sg_onnx_load(const char *path, sg_model **model, sg_error *err)
{
    sg_error local = {0};
    reader r = {.path = path, .err = err ? err : &local};
    if (path == NULL)
        return sg_fail(r.err, SG_ERR_USAGE, "failed to read ONNX model: no path given");
    if (model == NULL)
        return sg_fail(r.err, SG_ERR_USAGE, "failed to read ONNX model '%s': no place for the result", path);
    sg_status st = open_model(&r);
    if (st == SG_OK)
        st = read_nodes(&r, model);
    close_model(&r);
    sg_graph_free(&r.g);
    return st;
}

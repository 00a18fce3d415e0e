/*
 * ONNX models: the reader (sg_onnx_load, sg_onnx_read_graph,
 * sg_model_is_onnx). With onnx_graph.c (the model as a graph, and shape
 * inference over it), the only file that includes protobuf-c; the schema
 * is onnx.proto beside it, compiled by protoc-c at build time.
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
 * graph.h), and its layers are lowered from the graph (lower.c) with this
 * format's words for what an input lacks, the elements of its constants
 * (initializers and Constants, external data read only then), and the
 * check of each layer against the value_info and graph outputs of its
 * name. Anything malformed fails the whole model with SG_ERR_IO, "failed
 * to read ONNX model '<file>': <where>: <rule> (<values>)"; a well-formed
 * node that slicegen cannot describe is listed with a one-line skip reason
 * instead of a spec. docs/onnx.md lists the rules.
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
#include "lower.h"
#include "onnx_graph.h"

/* protobuf-c may allocate this much per byte of the file, plus the base. */
#define MEMORY_PER_BYTE 64
#define MEMORY_BASE     ((size_t)64 << 20)
/* Room for a name quoted in a message, and for "node '<name>' (index N)". */
#define SHOW_SIDE 12
#define SHOW_BUF  SG_QUOTE_BUF(SHOW_SIDE)
#define WHO_BUF   (SHOW_BUF + 48)
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
    bool known;        /* slicegen has it: dtype (element_type) */
    sg_dtype dtype;
} etype;

/* How an ONNX tensor holds elements of type t: ONNX's name of it, the
 * size, the field without raw_data (known and dtype are element_type's). */
static etype onnx_element_type(int32_t t)
{
    switch (t) {
    case 1:
        return (etype){.name = "FLOAT", .size = 4, .field = F_FLOAT, .per = 1};
    case 2:
        return (etype){.name = "UINT8", .size = 1, .field = F_INT32, .per = 1};
    case 3:
        return (etype){.name = "INT8", .size = 1, .field = F_INT32, .per = 1};
    case 4:
        return (etype){.name = "UINT16", .size = 2, .field = F_INT32, .per = 1};
    case 5:
        return (etype){.name = "INT16", .size = 2, .field = F_INT32, .per = 1};
    case 6:
        return (etype){.name = "INT32", .size = 4, .field = F_INT32, .per = 1};
    case 7:
        return (etype){.name = "INT64", .size = 8, .field = F_INT64, .per = 1};
    case 8:
        return (etype){.name = "STRING", .size = 0, .field = F_NONE, .per = 0};
    case 9:
        return (etype){.name = "BOOL", .size = 1, .field = F_INT32, .per = 1};
    case 10:
        return (etype){.name = "FLOAT16", .size = 2, .field = F_INT32, .per = 1};
    case 11:
        return (etype){.name = "DOUBLE", .size = 8, .field = F_DOUBLE, .per = 1};
    case 12:
        return (etype){.name = "UINT32", .size = 4, .field = F_UINT64, .per = 1};
    case 13:
        return (etype){.name = "UINT64", .size = 8, .field = F_UINT64, .per = 1};
    case 14:
        return (etype){.name = "COMPLEX64", .size = 8, .field = F_FLOAT, .per = 2};
    case 15:
        return (etype){.name = "COMPLEX128", .size = 16, .field = F_DOUBLE, .per = 2};
    case 16:
        return (etype){.name = "BFLOAT16", .size = 2, .field = F_INT32, .per = 1};
    case 17:
        return (etype){.name = "FLOAT8E4M3FN", .size = 1, .field = F_INT32, .per = 1};
    case 18:
        return (etype){.name = "FLOAT8E4M3FNUZ", .size = 1, .field = F_INT32, .per = 1};
    case 19:
        return (etype){.name = "FLOAT8E5M2", .size = 1, .field = F_INT32, .per = 1};
    case 20:
        return (etype){.name = "FLOAT8E5M2FNUZ", .size = 1, .field = F_INT32, .per = 1};
    default:
        return (etype){.field = F_NONE};
    }
}

/* ONNX's element type t: how the file holds it (onnx_element_type), and
 * the sg_dtype it is (dtypes.def), if slicegen has one. */
static etype element_type(int32_t t)
{
    etype e = onnx_element_type(t);
    int dtype = sg_dtype_from_onnx(t);
    e.known = dtype >= 0;
    e.dtype = e.known ? (sg_dtype)dtype : SG_BOOL;
    return e;
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
        (*values)[k] = sg_scalar_from_bits(ref->type.dtype, element_bits(ref, raw, k));
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

/* ---- the format of the lowering (lower.h) ------------------------------------ */

static const char *lower_show(const char *text, char buf[SG_LOWER_SHOW])
{
    return show(text, buf);
}

/* "node 'x' (index 3)"; a subgraph's node "node 'If_0/then_branch/x' (Slice)". */
static const char *lower_who(void *ctx, const sg_graph *g, const sg_gnode *n, char buf[SG_LOWER_WHO])
{
    char shown[SHOW_BUF];
    const char *name = n->name[0] ? n->name : n->nout && n->out[0] >= 0 ? g->tensors[n->out[0]].name : "";
    if (n->scope != 0)
        snprintf(buf, SG_LOWER_WHO, "node '%s/%s' (%s)", g->scopes[n->scope].path, show(name, shown), n->op);
    else
        who_node(ctx, n->file_index, buf);
    return buf;
}

/* The ONNX element type code of a graph type (0: none). */
static int32_t type_code(int type)
{
    return type >= 0 && type < SG_DTYPE_COUNT ? sg_dtype_onnx((sg_dtype)type) : 0;
}

/* The element type code tensor x has in the file: its constant's, or
 * what the main graph's lists state (0: neither says). */
static int32_t file_type(const reader *r, const sg_graph *g, const sg_gtensor *x)
{
    if (x->source != NULL)
        return ((const Onnx__TensorProto *)x->source)->data_type;
    if (x->constant) /* a Constant's value_int(s) or value_float(s) */
        return type_code(x->type);
    const Onnx__TypeProto__Tensor *type = x->scope == 0 ? find_type(r, x->name) : NULL;
    (void)g;
    return type != NULL && type->has_elem_type ? type->elem_type : 0;
}

/* The rank the file gives tensor x, past SG_MAX_RANK too (-1: none). */
static int64_t file_rank(const reader *r, const sg_gtensor *x)
{
    if (x->source != NULL)
        return (int64_t)((const Onnx__TensorProto *)x->source)->n_dims;
    const Onnx__TypeProto__Tensor *type = x->scope == 0 ? find_type(r, x->name) : NULL;
    return type != NULL && type->shape != NULL ? (int64_t)type->shape->n_dim : x->rank;
}

static sg_status lower_say(void *ctx, const sg_graph *g, const sg_lower_fact *f, char *reason, size_t size,
                           sg_error *err)
{
    reader *r = ctx;
    const sg_gtensor *x = f->tensor >= 0 ? &g->tensors[f->tensor] : NULL;
    const char *name = x ? x->name : "", *role = f->role;
    char shown[SHOW_BUF], tname[24], dname[24];
    int64_t rank = x ? file_rank(r, x) : -1;
    (void)err;
    switch (f->fault) {
    case SG_LF_REQUIRED:
        return f->pos == 0 ? bad(r, "%s: input 'data' is missing", f->who)
                           : bad(r, "%s: input '%s' is required", f->who, role);
    case SG_LF_UNDEFINED:
        return bad(r, "%s: input '%s': no graph input, initializer or node output named '%s'", f->who, role,
                   show(name, shown));
    case SG_LF_TOO_MANY:
    case SG_LF_NO_VERSION:
        return SG_OK;
    case SG_LF_NO_OUTPUT:
        return bad(r, "%s: a Split needs at least one output", f->who);
    case SG_LF_DATA_UNKNOWN:
        if (f->a == 1 && rank > SG_MAX_RANK)
            snprintf(reason, size, "the data input '%s' has rank %lld, more than %d", show(name, shown),
                     (long long)rank, SG_MAX_RANK);
        else
            snprintf(reason, size, "the data input '%s' has no known %s (%s)", show(name, shown),
                     f->a == 0 ? "type" : "shape", f->text);
        return SG_OK;
    case SG_LF_DATA_TYPE:
        if (file_type(r, g, x) != 0)
            snprintf(reason, size, "the data input '%s' has element type %s, which slicegen lacks",
                     show(name, shown), type_name(file_type(r, g, x), tname));
        else
            snprintf(reason, size, "the data input '%s' has an element type slicegen lacks",
                     show(name, shown));
        return SG_OK;
    case SG_LF_DATA_RANK:
        snprintf(reason, size, "the data input '%s' has rank %lld, more than %d", show(name, shown),
                 (long long)f->a, SG_MAX_RANK);
        return SG_OK;
    case SG_LF_NOT_CONSTANT:
        if (f->how == SG_IN_INDICES)
            snprintf(reason, size,
                     "input '%s' is not a constant (a Gather of indices known only at run time is no slice)",
                     role);
        else if (f->how == SG_IN_FILL)
            snprintf(reason, size, "input '%s' is not a constant (an initializer or Constant node)", role);
        else
            snprintf(reason, size,
                     "input '%s' ('%s') is not a constant (an initializer or Constant node), and must be",
                     role, show(name, shown));
        return SG_OK;
    case SG_LF_CONST_TYPE:
        if (f->how == SG_IN_FILL)
            snprintf(reason, size, "input '%s' has type %s, the data %s", role,
                     type_name(file_type(r, g, x), tname), type_name(type_code(f->data_type), dname));
        else if (f->how == SG_IN_INDICES)
            snprintf(reason, size, "input '%s' has type %s, not INT32 or INT64", role,
                     type_name(file_type(r, g, x), tname));
        else
            snprintf(reason, size, "input '%s' is a constant of %s, not INT32 or INT64", role,
                     type_name(file_type(r, g, x), tname));
        return SG_OK;
    case SG_LF_CONST_SHAPE:
        if (f->how == SG_IN_FILL && f->b == 1 && f->a <= 1)
            return SG_OK; /* one element of rank 0 or 1 */
        if (f->how == SG_IN_FILL)
            snprintf(reason, size, "input '%s' must be one element (it has %lld in rank %lld)", role,
                     (long long)f->b, (long long)rank);
        else
            snprintf(reason, size, "input '%s' must be 1-D (it has rank %lld)", role, (long long)rank);
        return SG_OK;
    case SG_LF_CONST_LONG:
        snprintf(reason, size, "input '%s' has %lld elements, more than %d", role, (long long)f->a,
                 SG_LOWER_LIST_MAX);
        return SG_OK;
    case SG_LF_RUNTIME_RANK:
    case SG_LF_RUNTIME_LENGTH:
        snprintf(
            reason, size,
            "input '%s' ('%s') is not a constant and its length is not known (no 1-D type of static length)",
            role, show(name, shown));
        return SG_OK;
    case SG_LF_RUNTIME_TYPE: {
        const Onnx__TypeProto__Tensor *type = x && x->scope == 0 ? find_type(r, name) : NULL;
        int32_t elem = type != NULL && type->has_elem_type ? type->elem_type : 0;
        snprintf(reason, size, "input '%s' ('%s') is not a constant and has type %s, not INT32 or INT64",
                 role, show(name, shown), elem ? type_name(elem, tname) : "of another kind");
        return SG_OK;
    }
    case SG_LF_RUNTIME_MANY:
        snprintf(reason, size,
                 "input '%s' ('%s') is not a constant and has %lld elements, more runtime values than %d",
                 role, show(name, shown), (long long)f->a, SG_MAX_VALUES);
        return SG_OK;
    case SG_LF_RUNTIME_TABLE:
        snprintf(reason, size,
                 "input '%s' is not a constant and its elements are too many runtime values (%s)", role,
                 f->text);
        return SG_OK;
    }
    return SG_OK;
}

/* The elements of constant tensor t: an initializer's or Constant's
 * tensor (checked, external data read here), or a Constant's value_int(s)
 * or value_float(s). */
static sg_status lower_constant(void *ctx, const sg_graph *g, int32_t t, sg_scalar **values, sg_error *err)
{
    reader *r = ctx;
    const sg_gtensor *x = &g->tensors[t];
    char where[WHO_BUF + 64], whom[WHO_BUF], shown[SHOW_BUF];
    (void)err;
    *values = NULL;
    if (x->source == NULL) { /* value_int(s), value_float(s) */
        const Onnx__NodeProto *src = x->producer >= 0 ? g->nodes[x->producer].source : NULL;
        const Onnx__AttributeProto *a = src && src->n_attribute == 1 ? src->attribute[0] : NULL;
        size_t count = x->count > 0 ? (size_t)x->count : 0;
        if ((*values = malloc(count ? count * sizeof **values : 1)) == NULL)
            return nomem(r);
        bool ints = x->type == SG_I64, list = x->rank == 1;
        for (size_t k = 0; a != NULL && k < count; k++)
            (*values)[k] = ints ? (sg_scalar){.kind = SG_SCALAR_INT, .i = list ? a->ints[k] : a->i}
                                : (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = list ? a->floats[k] : a->f};
        return SG_OK;
    }
    const producer *p = x->scope == 0 ? find_producer(r, x->name) : NULL;
    if (p != NULL && p->kind == P_INITIALIZER)
        snprintf(where, sizeof where, "initializer '%s' (index %zu)", show(x->name, shown), p->index);
    else if (p != NULL && p->kind == P_NODE)
        snprintf(where, sizeof where, "%s: attribute '%s'", who_node(r, p->index, whom),
                 show(str(r->graph->node[p->index]->attribute[0]->name), shown));
    else
        snprintf(where, sizeof where, "constant '%s'", show(x->name, shown));
    tensor_ref ref;
    sg_status st = check_tensor(r, x->source, where, &ref);
    if (st == SG_OK && ref.type.known)
        st = tensor_values(r, &ref, where, values);
    else if (st == SG_OK && (*values = calloc(ref.count ? ref.count : 1, sizeof **values)) == NULL)
        st = nomem(r);
    free(ref.file);
    return st;
}

/* The type the main graph's lists state of node n's data input (when no
 * initializer makes it) has no negative dimension. */
static sg_status check_data_type(reader *r, const sg_graph *g, const sg_gnode *n)
{
    const sg_gtensor *x = n->nin > 0 && n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
    const producer *p = x ? find_producer(r, x->name) : NULL;
    const Onnx__TypeProto__Tensor *type = p && p->kind != P_INITIALIZER ? find_type(r, x->name) : NULL;
    char who[SG_LOWER_WHO], shown[SHOW_BUF];
    if (type == NULL || !type->has_elem_type || type->shape == NULL)
        return SG_OK;
    for (size_t i = 0; i < type->shape->n_dim && i < SG_MAX_RANK; i++) {
        const Onnx__TensorShapeProto__Dimension *d = type->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value < 0)
            return bad(r, "%s: input 'data': the type of '%s' has a negative dimension (dim[%zu] = %lld)",
                       lower_who(r, g, n, who), show(x->name, shown), i, (long long)d->dim_value);
    }
    return SG_OK;
}

/* Output k of node n, which layer l (read, with a spec) makes: each
 * value_info and graph output of that name must give the element type of
 * the data input and the shape of the layer's plan (its rank and each
 * dimension; one known only at run time, on either side, matches any), or
 * a layer reading it would be compiled for another shape than the one it
 * gets, and for another one again when fused with this one. A layer that
 * does not plan is left to be skipped with the planner's reason. A
 * program (a Gather of an index tensor) is left to shape inference's
 * check of every stated shape (graph_infer.c); a subgraph's layers too. */
static sg_status check_output(void *ctx, const sg_graph *g, const sg_gnode *n, size_t k,
                              const sg_model_layer *l, sg_error *err)
{
    reader *r = ctx;
    (void)err;
    if (n->scope == 0 && k == 0 && check_data_type(r, g, n) != SG_OK)
        return r->err->status;
    if (n->scope != 0 || k >= n->nout || n->out[k] < 0 || l->spec == NULL || l->spec->op == SG_OP_PROGRAM)
        return SG_OK;
    const char *name = g->tensors[n->out[k]].name;
    info key = {name, NULL, NULL};
    size_t first = r->ninfos;
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
    char who[SG_LOWER_WHO], shown[SHOW_BUF], stated[SG_DIMS_TEXT_BUF], made[SG_DIMS_TEXT_BUF], tname[24],
        ttname[24];
    int32_t code = type_code(l->dtype);
    lower_who(r, g, n, who);
    for (size_t i = first; st == SG_OK && i < r->ninfos && strcmp(r->infos[i].name, name) == 0; i++) {
        const Onnx__TypeProto *t = r->infos[i].value->type;
        if (t == NULL || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || t->tensor_type == NULL)
            continue;
        const Onnx__TypeProto__Tensor *type = t->tensor_type;
        if (type->has_elem_type && type->elem_type != 0 && type->elem_type != code) {
            st = bad(r, "%s: %s '%s' gives element type %s, but the %s makes %s", who, r->infos[i].list,
                     show(name, shown), type_name(type->elem_type, tname), l->type, type_name(code, ttname));
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
            st = bad(r, "%s: %s '%s' gives shape %s, but the %s makes %s", who, r->infos[i].list,
                     show(name, shown), sg_dims_text(dims, rank, INT64_MIN, stated), l->type,
                     sg_dims_text(plan->out_shape, plan->out_rank, -1, made));
    }
    sg_plan_free(plan);
    return st;
}

/* The model's layers (lower.c), with this reader's words and constants. */
static sg_status read_nodes(reader *r, sg_model **model)
{
    size_t len = strlen(r->path) + 40;
    char *what = malloc(len);
    if (what == NULL)
        return nomem(r);
    snprintf(what, len, "failed to read ONNX model '%s'", r->path);
    sg_lower_format f = {
        .ctx = r,
        .what = what,
        .unnamed_by_output = true,
        .show = lower_show,
        .who = lower_who,
        .say = lower_say,
        .constant = lower_constant,
        .check = check_output,
    };
    sg_status st = sg_model_from_graph(&r->g, &f, model, r->err);
    free(what);
    return st;
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

/*
 * OpenVINO IR v10 and v11 models: the slice layers of a model as specs
 * (sg_model_load, sg_model_free), and the model as a graph
 * (sg_openvino_read_graph). The only file that includes libxml2.
 *
 * The reader parses the .xml into a tree, checks every layer id, port and
 * edge and every Const's place in the weights, then decodes the whole
 * model into a graph (openvino_graph.c) and infers its shapes, checking
 * every output port's type and shape against what its layer makes (a
 * dynamic dimension a symbol of the model). Then it turns each slice layer, in
 * document order, into a spec built from the Consts wired to its index
 * inputs; an index input that is no Const gives one runtime value per
 * element; the data input's shape and type are inference's (a dimension
 * known only at run time -1 in the layer's shape). The weights file is
 * opened once and only the bytes of those Consts and of small ones (for
 * inference) are read, each once. Anything malformed fails the whole model with
 * SG_ERR_IO, "failed to read model '<file>': <rule> (<values>)"; a
 * well-formed slice that slicegen cannot describe is listed with a
 * one-line skip reason instead of a spec. docs/openvino-ir.md lists the
 * rules. Last, the data flow around the slice layers (sg_model_read_flow, over
 * the graph).
 *
 * Hostile files: libxml2 runs without network access, entity substitution,
 * DTD loading or XML_PARSE_HUGE (so its depth and size limits hold), and a
 * document type declaration is refused. Its diagnostics go to handlers
 * installed for the duration of the call, on this thread only, and never to
 * stderr. Walks are iterative; every allocation is bounded by the sizes of
 * the two files.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

#include "frontend.h"
#include "openvino_graph.h"

#if LIBXML_VERSION >= 21200
typedef const xmlError xml_error; /* the handler signature gained a const in 2.12 */
#else
typedef xmlError xml_error;
#endif

#define NONE SIZE_MAX

/* Room for a name or value quoted in a message (see show()). */
#define SHOW_MAX 48
#define SHOW_BUF (SHOW_MAX + 4)
/* Room for "layer '<name>' id <id>". */
#define WHO_BUF (SHOW_BUF + 40)

/* The first error libxml2 reported, one line. */
typedef struct capture {
    bool have;
    int line;
    char message[200];
} capture;

typedef struct port {
    int64_t id;
    size_t pos; /* position in the layer's <input> or <output> list */
    xmlNode *node;
} port;

/* What feeds one input port. */
typedef struct source {
    size_t layer;  /* the producing layer's index; NONE when unconnected */
    xmlNode *port; /* the producer's output <port> */
    int64_t port_id;
    long line;     /* the edge's line */
    size_t output; /* the port's position in the producer's <output> list */
} source;

typedef struct layer {
    xmlNode *node;
    const char *name, *type;
    int64_t id;
    port *in, *out; /* sorted by id */
    size_t nin, nout;
    source *src; /* one per input position */
    /* Const layers: */
    int64_t offset, size;
    const char *etype; /* element_type, or the output port's precision */
    const char *shape; /* the shape as written, for messages */
    size_t rank;       /* of the shape */
    int64_t *dims;     /* the shape (rank entries) */
    int64_t count;     /* its elements */
    int64_t *values;   /* read on first use as an index input */
    bool values_read;
    void *raw; /* the bytes of a small one, for shape inference */
} layer;

typedef struct id_index {
    int64_t id;
    size_t index;
} id_index;

typedef struct reader {
    const char *path; /* the .xml, as given */
    const char *bin_path;
    char *bin_path_owned;
    int bin_fd;
    int64_t bin_size;
    xmlDoc *doc;
    xmlNode *net;
    layer *layers;
    size_t nlayers;
    id_index *by_id; /* sorted by id */
    size_t *order;   /* the layers, each after those it reads (check_acyclic) */
    sg_graph g;      /* the model as a graph, every tensor's type and shape inferred */
    int32_t *tensor; /* per layer: the graph tensor of its first output port */
    char **owned;    /* texts libxml2 had to assemble (see text_of) */
    size_t nowned, owned_cap;
    bool nomem;
    sg_error *err;
} reader;

/* ---- messages -------------------------------------------------------------- */

/* Records "failed to read model '<path>': <what>" (SG_ERR_IO). */
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
    return sg_fail(r->err, SG_ERR_IO, "failed to read model '%s': %s", r->path, what);
}

static sg_status nomem(reader *r)
{
    return sg_fail(r->err, SG_ERR_NOMEM, "failed to read model '%s': out of memory", r->path);
}

/* `text` made safe for a one-line message: control characters become '?',
 * and past SHOW_MAX bytes it is cut at a character boundary and ends in
 * "...". NULL shows as "". */
static const char *show(const char *text, char buf[SHOW_BUF])
{
    size_t n = 0;
    if (text == NULL)
        text = "";
    size_t len = strlen(text);
    size_t keep = len;
    if (len > SHOW_MAX) {
        keep = SHOW_MAX - 3;
        while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--; /* do not split a UTF-8 sequence */
    }
    for (; n < keep; n++) {
        unsigned char c = (unsigned char)text[n];
        buf[n] = c < 0x20 || c == 0x7F ? '?' : (char)c;
    }
    if (keep < len) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* "layer '<name>' id <id>" for messages. */
static const char *who(const layer *l, char buf[WHO_BUF])
{
    char name[SHOW_BUF];
    snprintf(buf, WHO_BUF, "layer '%s' id %lld", show(l->name, name), (long long)l->id);
    return buf;
}

/* ---- libxml2 diagnostics ------------------------------------------------------ */

static void capture_error(capture *cap, xml_error *e)
{
    if (cap == NULL || e == NULL || e->level < XML_ERR_ERROR || cap->have)
        return;
    cap->have = true;
    cap->line = e->line;
    const char *m = e->message ? e->message : "unknown error";
    size_t n = 0;
    for (; m[n] != '\0' && n + 1 < sizeof cap->message; n++) {
        unsigned char c = (unsigned char)m[n];
        cap->message[n] = c < 0x20 || c == 0x7F ? ' ' : (char)c;
    }
    while (n > 0 && cap->message[n - 1] == ' ')
        n--;
    cap->message[n] = '\0';
}

/* The handler of this thread's libxml2 globals while a model is read. */
static void on_error(void *cap, xml_error *e)
{
    capture_error(cap, e);
}

/* The handler of the parser context: libxml2 passes the context. */
static void on_parse_error(void *ctxt, xml_error *e)
{
    capture_error(((xmlParserCtxt *)ctxt)->_private, e);
}

/* Generic messages are pieces of lines; the structured handler has them. */
static void on_generic(void *cap, const char *fmt, ...)
{
    (void)cap;
    (void)fmt;
}

/* ---- tree access ------------------------------------------------------------ */

static bool is_element(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The first child element called `name`, or NULL. */
static xmlNode *child(xmlNode *parent, const char *name)
{
    for (xmlNode *c = parent ? parent->children : NULL; c != NULL; c = c->next)
        if (is_element(c, name))
            return c;
    return NULL;
}

static size_t count_children(xmlNode *parent, const char *name)
{
    size_t n = 0;
    for (xmlNode *c = parent ? parent->children : NULL; c != NULL; c = c->next)
        n += is_element(c, name);
    return n;
}

/* Keeps a text libxml2 allocated until the reader is done. NULL (nothing
 * to assemble) is "", and so is a failure to keep it (r->nomem is set). */
static const char *own(reader *r, xmlChar *text)
{
    if (text == NULL)
        return "";
    if (r->nowned == r->owned_cap && r->nowned >= SIZE_MAX / 2 / sizeof(char *)) {
        xmlFree(text);
        r->nomem = true;
        return "";
    }
    if (r->nowned == r->owned_cap) {
        size_t cap = r->owned_cap ? 2 * r->owned_cap : 16;
        char **grown = realloc(r->owned, cap * sizeof *grown);
        if (grown == NULL) {
            xmlFree(text);
            r->nomem = true;
            return "";
        }
        r->owned = grown;
        r->owned_cap = cap;
    }
    r->owned[r->nowned++] = (char *)text;
    return (const char *)text;
}

/* The text of a node list: the text node itself when it is the only one
 * (the usual case), else the list assembled by libxml2. */
static const char *text_of(reader *r, xmlNode *list)
{
    if (list == NULL)
        return "";
    if (list->next == NULL && list->type == XML_TEXT_NODE && list->content != NULL)
        return (const char *)list->content;
    return own(r, xmlNodeListGetString(r->doc, list, 1));
}

/* The value of attribute `name` of n, or NULL when n has none. */
static const char *attr(reader *r, xmlNode *n, const char *name)
{
    if (n == NULL)
        return NULL;
    for (xmlAttr *a = n->properties; a != NULL; a = a->next)
        if (a->ns == NULL && strcmp((const char *)a->name, name) == 0)
            return text_of(r, a->children);
    return NULL;
}

/* ---- numbers ------------------------------------------------------------------ */

typedef enum { NUM_OK, NUM_MISSING, NUM_NOT_NUMBER, NUM_NEGATIVE, NUM_RANGE } num_status;

/* A whole non-negative decimal integer that fits int64: digits only. */
static num_status parse_count(const char *text, int64_t *value)
{
    if (text == NULL)
        return NUM_MISSING;
    const char *p = text;
    bool negative = *p == '-';
    p += negative;
    if (*p == '\0')
        return NUM_NOT_NUMBER;
    int64_t v = 0;
    bool range = false;
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return NUM_NOT_NUMBER;
        range = range || __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v);
    }
    if (negative)
        return NUM_NEGATIVE;
    if (range)
        return NUM_RANGE;
    *value = v;
    return NUM_OK;
}

/* Reads attribute `name` of n as a count; `where` says whose it is. */
static sg_status get_count(reader *r, xmlNode *n, const char *name, const char *where, int64_t *value)
{
    const char *text = attr(r, n, name);
    char shown[SHOW_BUF];
    switch (parse_count(text, value)) {
    case NUM_OK:
        return SG_OK;
    case NUM_MISSING:
        return bad(r, "missing attribute (%s, attribute %s)", where, name);
    case NUM_NOT_NUMBER:
        return bad(r, "attribute is not a non-negative integer (%s, attribute %s = '%s')", where, name,
                   show(text, shown));
    case NUM_NEGATIVE:
        return bad(r, "attribute must not be negative (%s, attribute %s = '%s')", where, name,
                   show(text, shown));
    case NUM_RANGE:
        return bad(r, "attribute is out of range (%s, attribute %s = '%s', above 9223372036854775807)", where,
                   name, show(text, shown));
    }
    return bad(r, "internal error reading attribute %s", name);
}

/* ---- element types ------------------------------------------------------------ */

/* An element type as IR writes it: a port precision ("FP32") or a
 * <data element_type> ("f32"), any case (sg_ir_graph_type). 0 if
 * slicegen lacks it. */
static int dtype_from_ir(const char *text, sg_dtype *dtype)
{
    int type = sg_ir_graph_type(text);
    if (type < 0)
        return 0;
    *dtype = (sg_dtype)type;
    return 1;
}

/* ---- files ------------------------------------------------------------------- */

/* Opens path for reading as a regular file; its size in *size. */
static sg_status open_regular(reader *r, const char *path, const char *what, int *fd_out, int64_t *size)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0)
        return bad(r, "cannot open the %s (path '%s': %s)", what, path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return bad(r, "cannot read the %s (path '%s': %s)", what, path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return bad(r, "the %s is not a regular file (path '%s')", what, path);
    }
    *fd_out = fd;
    *size = (int64_t)st.st_size;
    return SG_OK;
}

/* Reads `len` bytes at `offset` of fd into buf. */
static sg_status read_at(reader *r, int fd, const char *path, const char *what, int64_t offset, void *buf,
                         size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t got = pread(fd, (char *)buf + done, len - done, (off_t)offset + (off_t)done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return bad(r, "cannot read the %s (path '%s': %s)", what, path, strerror(errno));
        if (got == 0)
            return bad(r, "the %s changed while being read (path '%s': ends before byte %lld)", what, path,
                       (long long)(offset + (int64_t)len));
        done += (size_t)got;
    }
    return SG_OK;
}

/* ---- the document -------------------------------------------------------------- */

/* Parses the .xml into r->doc and finds <net>; checks the IR version. */
static sg_status read_document(reader *r)
{
    sg_status st = SG_OK;
    char *text = NULL;
    int fd = -1;
    int64_t size = 0;
    xmlParserCtxt *ctxt = NULL;
    capture cap = {0};

    if ((st = open_regular(r, r->path, "model file", &fd, &size)) != SG_OK)
        goto done;
    if (size > INT_MAX) {
        st = bad(r, "the file is too large for libxml2 (%lld bytes, at most %d)", (long long)size, INT_MAX);
        goto done;
    }
    text = malloc(size > 0 ? (size_t)size : 1);
    if (text == NULL) {
        st = nomem(r);
        goto done;
    }
    if ((st = read_at(r, fd, r->path, "model file", 0, text, (size_t)size)) != SG_OK)
        goto done;
    ctxt = xmlNewParserCtxt();
    if (ctxt == NULL) {
        st = nomem(r);
        goto done;
    }
    ctxt->_private = &cap;
    ctxt->sax->serror = on_parse_error;
    /* No XML_PARSE_NOENT, DTDLOAD or HUGE: entities stay unexpanded and
     * libxml2's depth and size limits hold. */
    r->doc = xmlCtxtReadMemory(ctxt, text, (int)size, r->path, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
    if (r->doc == NULL || !ctxt->wellFormed || cap.have) {
        if (!cap.have)
            st = bad(r, "not well-formed XML (libxml2 gave no reason)");
        else if (cap.line > 0)
            st = bad(r, "not well-formed XML (line %d: %s)", cap.line, cap.message);
        else
            st = bad(r, "not well-formed XML (%s)", cap.message);
        goto done;
    }
    if (r->doc->intSubset != NULL) {
        char name[SHOW_BUF];
        st = bad(r, "a document type declaration is not allowed (<!DOCTYPE %s ...>)",
                 show((const char *)r->doc->intSubset->name, name));
        goto done;
    }
    r->net = xmlDocGetRootElement(r->doc);
    if (r->net == NULL || !is_element(r->net, "net")) {
        char name[SHOW_BUF];
        st = bad(r, "the root element must be <net> (it is <%s>)",
                 show(r->net ? (const char *)r->net->name : "", name));
        goto done;
    }
    const char *version = attr(r, r->net, "version");
    if (version == NULL) {
        st = bad(r, "missing attribute (<net>, attribute version; expected 10 or 11)");
    } else if (strcmp(version, "10") != 0 && strcmp(version, "11") != 0) {
        char shown[SHOW_BUF];
        st = bad(r, "unsupported IR version (<net> attribute version = '%s', expected 10 or 11)",
                 show(version, shown));
    }
done:
    xmlFreeParserCtxt(ctxt);
    free(text);
    if (fd >= 0)
        close(fd);
    return st;
}

static int by_port_id(const void *a, const void *b)
{
    const port *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Reads the <port> children of `list` (<input> or <output>, may be NULL)
 * into *ports, sorted by id. */
static sg_status read_ports(reader *r, const layer *l, xmlNode *list, const char *kind, port **ports,
                            size_t *count)
{
    char whom[WHO_BUF], where[WHO_BUF + 64];
    size_t n = count_children(list, "port");
    *count = 0;
    *ports = calloc(n ? n : 1, sizeof **ports);
    if (*ports == NULL)
        return nomem(r);
    for (xmlNode *c = list ? list->children : NULL; c != NULL; c = c->next) {
        if (!is_element(c, "port"))
            continue;
        port *p = &(*ports)[*count];
        snprintf(where, sizeof where, "%s, %s port at line %ld", who(l, whom), kind, xmlGetLineNo(c));
        if (get_count(r, c, "id", where, &p->id) != SG_OK)
            return r->err->status;
        p->pos = (*count)++;
        p->node = c;
    }
    qsort(*ports, n, sizeof **ports, by_port_id);
    for (size_t i = 1; i < n; i++)
        if ((*ports)[i].id == (*ports)[i - 1].id)
            return bad(r, "duplicate port id (%s, %s port id %lld appears twice)", who(l, whom), kind,
                       (long long)(*ports)[i].id);
    return SG_OK;
}

static const port *find_port(const port *ports, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ports[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ports[lo].id == id ? &ports[lo] : NULL;
}

static int by_layer_id(const void *a, const void *b)
{
    const id_index *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->index > y->index) - (x->index < y->index);
}

/* Reads every <layer> of <net><layers>: id, type, name and ports. */
static sg_status read_layers(reader *r)
{
    xmlNode *list = child(r->net, "layers");
    if (list == NULL)
        return bad(r, "the model has no layers (<net> has no <layers> element)");
    size_t n = count_children(list, "layer");
    r->layers = calloc(n ? n : 1, sizeof *r->layers);
    r->by_id = calloc(n ? n : 1, sizeof *r->by_id);
    if (r->layers == NULL || r->by_id == NULL)
        return nomem(r);
    for (xmlNode *c = list->children; c != NULL; c = c->next) {
        if (!is_element(c, "layer"))
            continue;
        layer *l = &r->layers[r->nlayers++];
        char name[SHOW_BUF], where[SHOW_BUF + 48], whom[WHO_BUF];
        l->node = c;
        l->name = attr(r, c, "name");
        if (l->name != NULL)
            snprintf(where, sizeof where, "layer '%s' at line %ld", show(l->name, name), xmlGetLineNo(c));
        else
            snprintf(where, sizeof where, "layer at line %ld", xmlGetLineNo(c));
        if (get_count(r, c, "id", where, &l->id) != SG_OK)
            return r->err->status;
        l->type = attr(r, c, "type");
        if (l->type == NULL)
            return bad(r, "missing attribute (%s at line %ld, attribute type)", who(l, whom),
                       xmlGetLineNo(c));
        if (l->name == NULL)
            return bad(r, "missing attribute (layer id %lld at line %ld, attribute name)", (long long)l->id,
                       xmlGetLineNo(c));
        if (read_ports(r, l, child(c, "input"), "input", &l->in, &l->nin) != SG_OK ||
            read_ports(r, l, child(c, "output"), "output", &l->out, &l->nout) != SG_OK)
            return r->err->status;
        l->src = calloc(l->nin ? l->nin : 1, sizeof *l->src);
        if (l->src == NULL)
            return nomem(r);
        for (size_t i = 0; i < l->nin; i++)
            l->src[i].layer = NONE;
        r->by_id[r->nlayers - 1] = (id_index){l->id, r->nlayers - 1};
    }
    qsort(r->by_id, n, sizeof *r->by_id, by_layer_id);
    for (size_t i = 1; i < n; i++) {
        if (r->by_id[i].id == r->by_id[i - 1].id) {
            const layer *first = &r->layers[r->by_id[i - 1].index], *again = &r->layers[r->by_id[i].index];
            char whom[WHO_BUF], name[SHOW_BUF];
            return bad(r, "duplicate layer id (%s at line %ld; layer '%s' at line %ld has the same id)",
                       who(again, whom), xmlGetLineNo(again->node), show(first->name, name),
                       xmlGetLineNo(first->node));
        }
    }
    return SG_OK;
}

static size_t find_layer(const reader *r, int64_t id)
{
    size_t lo = 0, hi = r->nlayers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->by_id[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nlayers && r->by_id[lo].id == id ? r->by_id[lo].index : NONE;
}

/* Reads <net><edges> (optional) into the layers' sources. */
static sg_status read_edges(reader *r)
{
    for (xmlNode *e = child(child(r->net, "edges"), "edge"); e != NULL; e = e->next) {
        if (!is_element(e, "edge"))
            continue;
        long line = xmlGetLineNo(e);
        char where[40], whom[WHO_BUF];
        int64_t from, from_port, to, to_port;
        snprintf(where, sizeof where, "edge at line %ld", line);
        if (get_count(r, e, "from-layer", where, &from) != SG_OK ||
            get_count(r, e, "from-port", where, &from_port) != SG_OK ||
            get_count(r, e, "to-layer", where, &to) != SG_OK ||
            get_count(r, e, "to-port", where, &to_port) != SG_OK)
            return r->err->status;
        size_t f = find_layer(r, from), t = find_layer(r, to);
        if (f == NONE && t != NONE)
            return bad(r,
                       "an edge starts at a layer that does not exist (edge at line %ld into %s port %lld, "
                       "attribute from-layer = %lld)",
                       line, who(&r->layers[t], whom), (long long)to_port, (long long)from);
        if (f == NONE)
            return bad(r,
                       "an edge starts at a layer that does not exist (edge at line %ld, attribute "
                       "from-layer = %lld)",
                       line, (long long)from);
        if (t == NONE)
            return bad(r,
                       "an edge ends at a layer that does not exist (edge at line %ld from %s port %lld, "
                       "attribute to-layer = %lld)",
                       line, who(&r->layers[f], whom), (long long)from_port, (long long)to);
        const layer *fl = &r->layers[f];
        layer *tl = &r->layers[t];
        const port *fp = find_port(fl->out, fl->nout, from_port);
        const port *tp = find_port(tl->in, tl->nin, to_port);
        if (fp == NULL)
            return bad(r,
                       "an edge starts at a port that does not exist (edge at line %ld: %s has no output "
                       "port %lld, attribute from-port)",
                       line, who(fl, whom), (long long)from_port);
        if (tp == NULL)
            return bad(r,
                       "an edge ends at a port that does not exist (edge at line %ld: %s has no input port "
                       "%lld, attribute to-port)",
                       line, who(tl, whom), (long long)to_port);
        source *s = &tl->src[tp->pos];
        if (s->layer != NONE)
            return bad(r, "two edges end at one input port (%s, input port %lld, edges at lines %ld and %ld)",
                       who(tl, whom), (long long)to_port, s->line, line);
        *s = (source){f, fp->node, from_port, line, fp->pos};
    }
    return SG_OK;
}

/* The edges make no cycle: no layer's input depends, through any chain of
 * edges, on one of its own outputs (OpenVINO orders the layers by their
 * edges, so document order is free, but a cycle has no order). Kahn's
 * algorithm settles every layer whose producers are all settled, in the
 * order r->order keeps; each one left has a producer left, so walking
 * back from one through such producers for nlayers steps ends on a
 * cycle. */
static sg_status check_acyclic(reader *r)
{
    size_t n = r->nlayers, nedges = 0, settled = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < r->layers[i].nin; k++)
            nedges += r->layers[i].src[k].layer != NONE;
    size_t *first = calloc(n + 1, sizeof *first); /* layer f's consumers: readers[first[f] .. first[f + 1]) */
    size_t *readers = malloc((nedges ? nedges : 1) * sizeof *readers);
    size_t *waiting = calloc(n ? n : 1, sizeof *waiting); /* per layer: inputs from layers not settled */
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    sg_status st = SG_OK;
    if (first == NULL || readers == NULL || waiting == NULL || queue == NULL) {
        st = nomem(r);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < r->layers[i].nin; k++)
            if (r->layers[i].src[k].layer != NONE) {
                first[r->layers[i].src[k].layer + 1]++;
                waiting[i]++;
            }
    for (size_t f = 0; f < n; f++)
        first[f + 1] += first[f];
    for (size_t f = 0; f < n; f++) /* queue: where each producer's next consumer goes, for now */
        queue[f] = first[f];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < r->layers[i].nin; k++)
            if (r->layers[i].src[k].layer != NONE)
                readers[queue[r->layers[i].src[k].layer]++] = i;
    for (size_t i = 0; i < n; i++)
        if (waiting[i] == 0)
            queue[settled++] = i;
    for (size_t q = 0; q < settled; q++)
        for (size_t e = first[queue[q]]; e < first[queue[q] + 1]; e++)
            if (--waiting[readers[e]] == 0)
                queue[settled++] = readers[e];
    if (settled == n) {
        r->order = queue;
        queue = NULL;
        goto done;
    }
    size_t at = 0, k = 0;
    while (waiting[at] == 0)
        at++;
    for (size_t step = 0; step <= n; step++) { /* back through producers left */
        const layer *l = &r->layers[at];
        k = 0;
        while (l->src[k].layer == NONE || waiting[l->src[k].layer] == 0)
            k++;
        if (step < n)
            at = l->src[k].layer;
    }
    const layer *l = &r->layers[at];
    const source *s = &l->src[k];
    char reader_who[WHO_BUF], producer_who[WHO_BUF];
    who(l, reader_who);
    who(&r->layers[s->layer], producer_who);
    st = bad(r,
             "the edges make a cycle (edge at line %ld: %s input %zu reads %s output port %lld, "
             "which depends on that input)",
             s->line, reader_who, k, producer_who, (long long)s->port_id);
done:
    free(first);
    free(readers);
    free(waiting);
    free(queue);
    return st;
}

/* Opens the weights (the .bin): weights_path, or the .xml path with its
 * extension replaced by ".bin". */
static sg_status open_weights(reader *r, const char *weights_path)
{
    if (weights_path == NULL) {
        const char *slash = strrchr(r->path, '/');
        const char *dot = strrchr(slash ? slash + 1 : r->path, '.');
        size_t stem = dot ? (size_t)(dot - r->path) : strlen(r->path);
        r->bin_path_owned = malloc(stem + 5);
        if (r->bin_path_owned == NULL)
            return nomem(r);
        memcpy(r->bin_path_owned, r->path, stem);
        memcpy(r->bin_path_owned + stem, ".bin", 5);
        weights_path = r->bin_path_owned;
    }
    r->bin_path = weights_path;
    return open_regular(r, weights_path, "weights file", &r->bin_fd, &r->bin_size);
}

/* ---- shapes -------------------------------------------------------------------- */

typedef enum { DIM_STATIC, DIM_DYNAMIC, DIM_BAD } dim_kind;

/* A <dim> as IR writes it: a count, or dynamic: "-1", "?", or a range
 * "lo..hi" with either end optional. Blanks around it are ignored. */
static dim_kind classify_dim(const char *text, int64_t *value)
{
    char buf[48];
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
        text++;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n' || text[n - 1] == '\r'))
        n--;
    if (n == 0 || n >= sizeof buf)
        return DIM_BAD;
    memcpy(buf, text, n);
    buf[n] = '\0';
    if (strcmp(buf, "-1") == 0 || strcmp(buf, "?") == 0)
        return DIM_DYNAMIC;
    char *dots = strstr(buf, "..");
    if (dots != NULL) {
        int64_t ignored;
        *dots = '\0';
        bool lo_ok = buf[0] == '\0' || parse_count(buf, &ignored) == NUM_OK;
        bool hi_ok = dots[2] == '\0' || parse_count(dots + 2, &ignored) == NUM_OK;
        return lo_ok && hi_ok ? DIM_DYNAMIC : DIM_BAD;
    }
    return parse_count(buf, value) == NUM_OK ? DIM_STATIC : DIM_BAD;
}

/* The text content of an element. */
static const char *content_of(reader *r, xmlNode *n)
{
    return text_of(r, n->children);
}

/* ---- Consts -------------------------------------------------------------------- */

/* Checks a Const's <data>: offset and size inside the weights, and for
 * element types slicegen knows, size equal to the shape's bytes. */
static sg_status check_const(reader *r, layer *l)
{
    char whom[WHO_BUF], shown[SHOW_BUF];
    xmlNode *data = child(l->node, "data");
    xmlNode *out = l->nout > 0 ? l->out[0].node : NULL; /* sorted by id; a Const has one */
    int64_t end;
    who(l, whom);
    if (data == NULL)
        return bad(r, "a Const needs a <data> element (%s)", whom);
    if (get_count(r, data, "offset", whom, &l->offset) != SG_OK ||
        get_count(r, data, "size", whom, &l->size) != SG_OK)
        return r->err->status;
    if (__builtin_add_overflow(l->offset, l->size, &end))
        return bad(r, "Const data range overflows 64 bits (%s, attribute offset = %lld, size = %lld)", whom,
                   (long long)l->offset, (long long)l->size);
    if (end > r->bin_size)
        return bad(r,
                   "Const data lies past the end of the weights (%s, attribute offset = %lld + size = %lld > "
                   "%lld bytes in '%s')",
                   whom, (long long)l->offset, (long long)l->size, (long long)r->bin_size, r->bin_path);
    l->etype = attr(r, data, "element_type");
    if (l->etype == NULL)
        l->etype = attr(r, out, "precision");
    if (l->etype == NULL)
        return bad(r, "missing attribute (%s, attribute element_type)", whom);

    /* The shape: <data shape>, else the output port's dims. Static only. */
    bool overflow = false, zero = false;
    int64_t count = 1;
    size_t cap = 1;
    l->shape = attr(r, data, "shape");
    l->rank = 0;
    for (const char *p = l->shape; p != NULL && *p != '\0'; p++)
        cap += *p == ',';
    if (l->shape == NULL)
        cap = count_children(out, "dim");
    if ((l->dims = malloc((cap ? cap : 1) * sizeof *l->dims)) == NULL)
        return nomem(r);
    if (l->shape != NULL) {
        const char *p = l->shape;
        while (*p == ' ')
            p++;
        while (*p != '\0') {
            char item[32];
            size_t k = strcspn(p, ",");
            size_t t = k;
            while (t > 0 && p[t - 1] == ' ')
                t--;
            int64_t d = -1;
            if (t >= sizeof item || (memcpy(item, p, t), item[t] = '\0', parse_count(item, &d) != NUM_OK))
                return bad(r,
                           "Const shape is not a list of non-negative integers (%s, attribute shape = '%s')",
                           whom, show(l->shape, shown));
            l->dims[l->rank++] = d;
            zero = zero || d == 0;
            overflow = overflow || __builtin_mul_overflow(count, d, &count);
            p += k;
            if (*p == ',') {
                p++;
                while (*p == ' ')
                    p++;
                if (*p == '\0') /* a trailing comma */
                    return bad(
                        r, "Const shape is not a list of non-negative integers (%s, attribute shape = '%s')",
                        whom, show(l->shape, shown));
            }
        }
    } else {
        l->shape = "";
        for (xmlNode *d = child(out, "dim"); d != NULL; d = d->next) {
            int64_t v = -1;
            if (!is_element(d, "dim"))
                continue;
            if (classify_dim(content_of(r, d), &v) != DIM_STATIC)
                return bad(r, "Const shape is not static (%s, output port dim '%s')", whom,
                           show(content_of(r, d), shown));
            l->dims[l->rank++] = v;
            zero = zero || v == 0;
            overflow = overflow || __builtin_mul_overflow(count, v, &count);
        }
    }
    sg_dtype dtype;
    if (zero)
        count = 0, overflow = false;
    l->count = overflow ? -1 : count;
    if (!dtype_from_ir(l->etype, &dtype))
        return SG_OK; /* u1, u4, string...: sizes not checked */
    int64_t need;
    if (overflow || __builtin_mul_overflow(count, (int64_t)sg_dtype_size(dtype), &need))
        return bad(r, "Const shape overflows 64 bits (%s, attribute shape = '%s')", whom,
                   show(l->shape, shown));
    if (need != l->size)
        return bad(r,
                   "Const size does not match its shape and element type (%s, attribute size = %lld; shape "
                   "'%s' of %s needs %lld bytes)",
                   whom, (long long)l->size, show(l->shape, shown), sg_dtype_name(dtype), (long long)need);
    return SG_OK;
}

/* The first len (at most c->size) bytes of Const c: the ones read for
 * shape inference, else from the weights. */
static sg_status const_bytes(reader *r, const layer *c, void *buf, size_t len)
{
    if (c->raw != NULL) {
        memcpy(buf, c->raw, len);
        return SG_OK;
    }
    return read_at(r, r->bin_fd, r->bin_path, "weights file", c->offset, buf, len);
}

/* Reads a 1-D i32 or i64 Const's values once (little-endian). */
static sg_status const_values(reader *r, layer *c, size_t esize)
{
    if (c->values_read)
        return SG_OK;
    size_t n = (size_t)c->size / esize;
    uint8_t *bytes = malloc(c->size > 0 ? (size_t)c->size : 1);
    c->values = malloc(n ? n * sizeof *c->values : 1);
    if (bytes == NULL || c->values == NULL) {
        free(bytes);
        return nomem(r);
    }
    if (const_bytes(r, c, bytes, (size_t)c->size) != SG_OK) {
        free(bytes);
        return r->err->status;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = 0;
        for (size_t b = 0; b < esize; b++)
            u |= (uint64_t)bytes[i * esize + b] << (8 * b);
        if (esize == 4)
            c->values[i] = u & 0x80000000u ? (int64_t)u - 0x100000000 : (int64_t)u;
        else
            c->values[i] = u > INT64_MAX ? -(int64_t)(~u) - 1 : (int64_t)u;
    }
    free(bytes);
    c->values_read = true;
    return SG_OK;
}

/* ---- the graph ------------------------------------------------------------------- */

/* The <dim>s of output port `port` (id port_id) of layer l: *rank of them,
 * the first `cap` in shape (-1 for a dynamic one), and the first dynamic
 * one's index in *dynamic (NONE when every one is static) and text in
 * *dynamic_text. A <dim> that is no count, -1, ? or range makes the model
 * malformed. */
static sg_status port_dims(reader *r, const layer *l, xmlNode *port, int64_t port_id, int64_t *shape,
                           size_t cap, size_t *rank, size_t *dynamic, const char **dynamic_text)
{
    char whom[WHO_BUF], shown[SHOW_BUF];
    *rank = 0;
    *dynamic = NONE;
    *dynamic_text = NULL;
    for (xmlNode *d = port->children; d != NULL; d = d->next) {
        if (!is_element(d, "dim"))
            continue;
        const char *text = content_of(r, d);
        int64_t v = -1;
        switch (classify_dim(text, &v)) {
        case DIM_BAD:
            return bad(r, "a dimension is not a count, -1, ? or a range (%s, output port %lld, dim '%s')",
                       who(l, whom), (long long)port_id, show(text, shown));
        case DIM_DYNAMIC:
            if (*dynamic == NONE)
                *dynamic = *rank, *dynamic_text = text;
            break;
        case DIM_STATIC:
            break;
        }
        if (*rank < cap)
            shape[*rank] = v;
        ++*rank;
    }
    return SG_OK;
}

/* N of a layer's version "opsetN" (N a count), else 0. */
static int64_t opset_number(const char *version)
{
    int64_t n = 0;
    if (version == NULL || strncmp(version, "opset", 5) != 0 || parse_count(version + 5, &n) != NUM_OK)
        return 0;
    return n;
}

/* What decoding the graph takes from the layers (see openvino_graph.h),
 * in arrays of all the layers' attributes, sources, ports and dims. */
typedef struct ir_arrays {
    sg_ir_layer *layers;
    const char **attrs;
    sg_ir_source *sources;
    sg_ir_port *ports;
    int64_t *dims;
} ir_arrays;

static void ir_arrays_free(ir_arrays *a)
{
    free(a->layers);
    free(a->attrs);
    free(a->sources);
    free(a->ports);
    free(a->dims);
}

/* Layer l as decoding takes it, its arrays from a's at the counts *na,
 * *ns, *np and *nd; small Consts' bytes read (at most
 * SG_GRAPH_MAX_VALUES elements, of a type slicegen knows). */
static sg_status describe(reader *r, layer *l, ir_arrays *a, size_t *na, size_t *ns, size_t *np, size_t *nd,
                          sg_ir_layer *out)
{
    xmlNode *data = child(l->node, "data");
    sg_dtype dtype;
    *out =
        (sg_ir_layer){.name = l->name, .type = l->type, .id = l->id, .version = opset_number(attr(r, l->node, "version"))};
    out->attrs = a->attrs + 2 * *na;
    for (xmlAttr *p = data ? data->properties : NULL; p != NULL; p = p->next) {
        if (p->ns != NULL)
            continue;
        a->attrs[2 * *na] = (const char *)p->name;
        a->attrs[2 * *na + 1] = text_of(r, p->children);
        ++*na;
        out->nattrs++;
    }
    out->in = a->sources + *ns;
    out->nin = l->nin;
    for (size_t i = 0; i < l->nin; i++)
        a->sources[(*ns)++] = (sg_ir_source){l->src[i].layer, l->src[i].output};
    out->out = a->ports + *np;
    out->nout = l->nout;
    for (size_t j = 0; j < l->nout; j++) { /* sorted by id: placed by position */
        const port *p = &l->out[j];
        size_t rank, dynamic;
        const char *dynamic_text;
        sg_ir_port *ip = &a->ports[*np + p->pos];
        if (port_dims(r, l, p->node, p->id, a->dims + *nd, SIZE_MAX, &rank, &dynamic, &dynamic_text) != SG_OK)
            return r->err->status;
        *ip = (sg_ir_port){p->id, sg_ir_graph_type(attr(r, p->node, "precision")), rank,
                           rank <= SG_MAX_RANK ? a->dims + *nd : NULL};
        *nd += rank;
    }
    *np += l->nout;
    out->data_type =
        sg_ir_graph_type(strcmp(l->type, "Const") == 0 ? l->etype : attr(r, data, "element_type"));
    if (strcmp(l->type, "Const") != 0)
        return SG_OK;
    out->const_rank = l->rank;
    out->const_shape = l->dims;
    out->const_count = l->count;
    if (l->count < 0 || l->count > SG_GRAPH_MAX_VALUES || !dtype_from_ir(l->etype, &dtype))
        return SG_OK;
    if ((l->raw = malloc(l->size > 0 ? (size_t)l->size : 1)) == NULL)
        return nomem(r);
    out->raw = l->raw;
    return read_at(r, r->bin_fd, r->bin_path, "weights file", l->offset, l->raw, (size_t)l->size);
}

/* The model as a graph (r->g), every tensor's type and shape inferred, and
 * the tensor of each layer's first output port (r->tensor). */
static sg_status read_graph(reader *r)
{
    ir_arrays a = {0};
    size_t nattrs = 0, nsources = 0, nports = 0, ndims = 0, na = 0, ns = 0, np = 0, nd = 0;
    sg_status st = SG_OK;
    for (size_t i = 0; i < r->nlayers; i++) {
        const layer *l = &r->layers[i];
        xmlNode *data = child(l->node, "data");
        for (xmlAttr *p = data ? data->properties : NULL; p != NULL; p = p->next)
            nattrs++;
        nsources += l->nin;
        nports += l->nout;
        for (size_t k = 0; k < l->nout; k++)
            ndims += count_children(l->out[k].node, "dim");
    }
    a.layers = malloc((r->nlayers ? r->nlayers : 1) * sizeof *a.layers);
    a.attrs = malloc((nattrs ? 2 * nattrs : 1) * sizeof *a.attrs);
    a.sources = malloc((nsources ? nsources : 1) * sizeof *a.sources);
    a.ports = malloc((nports ? nports : 1) * sizeof *a.ports);
    a.dims = malloc((ndims ? ndims : 1) * sizeof *a.dims);
    r->tensor = malloc((r->nlayers ? r->nlayers : 1) * sizeof *r->tensor);
    if (a.layers == NULL || a.attrs == NULL || a.sources == NULL || a.ports == NULL || a.dims == NULL ||
        r->tensor == NULL) {
        st = nomem(r);
        goto done;
    }
    for (size_t i = 0, t = 0; i < r->nlayers; t += r->layers[i].nout, i++) {
        r->tensor[i] = (int32_t)t;
        if ((st = describe(r, &r->layers[i], &a, &na, &ns, &np, &nd, &a.layers[i])) != SG_OK)
            goto done;
    }
    if (r->nomem) {
        st = nomem(r);
        goto done;
    }
    sg_error lerr = {0};
    st = sg_openvino_decode_graph(a.layers, r->nlayers, r->order, &r->g, &lerr);
    if (st == SG_ERR_NOMEM)
        st = nomem(r);
    else if (st != SG_OK)
        st = bad(r, "%s", lerr.message);
done:
    ir_arrays_free(&a);
    return st;
}

/* ---- slice layers ------------------------------------------------------------------ */

typedef enum { OP_STRIDED_SLICE, OP_SLICE, OP_PAD, OP_GATHER, OP_SPLIT, OP_VARIADIC_SPLIT } op_kind;

/* How input i of a slice layer is read (read_input): */
typedef enum {
    IN_DATA,       /* the data (read_data_input) */
    IN_LIST,       /* a 1-D i32 or i64 Const, else one runtime value per element */
    IN_CONST_LIST, /* a 1-D i32 or i64 Const */
    IN_INDICES,    /* an i32 or i64 Const of any rank (Gather's indices) */
    IN_AXIS,       /* an i32 or i64 Const of one element, rank 0 or 1 */
    IN_FILL        /* a rank-0 Const of the data's element type */
} in_kind;

typedef struct op_info {
    const char *type;
    op_kind kind;
    const char *inputs[5]; /* by input position */
    in_kind how[5];
    size_t required, count;
    bool per_output; /* one model layer per output port, not one per layer */
} op_info;

/* clang-format off */
static const op_info ops[] = {
    {"StridedSlice", OP_STRIDED_SLICE, {"data", "begin", "end", "stride"},
     {IN_DATA, IN_LIST, IN_LIST, IN_LIST}, 3, 4, false},
    {"Slice", OP_SLICE, {"data", "start", "stop", "step", "axes"},
     {IN_DATA, IN_LIST, IN_LIST, IN_LIST, IN_CONST_LIST}, 4, 5, false},
    {"Pad", OP_PAD, {"data", "pads_begin", "pads_end", "pad_value"}, {IN_DATA, IN_LIST, IN_LIST, IN_FILL}, 3, 4,
     false},
    {"Gather", OP_GATHER, {"data", "indices", "axis"}, {IN_DATA, IN_INDICES, IN_AXIS}, 3, 3, false},
    {"Split", OP_SPLIT, {"data", "axis"}, {IN_DATA, IN_AXIS}, 2, 2, true},
    {"VariadicSplit", OP_VARIADIC_SPLIT, {"data", "axis", "split_lengths"}, {IN_DATA, IN_AXIS, IN_CONST_LIST}, 3,
     3, true},
};
/* clang-format on */

static const op_info *slice_op(const layer *l)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(l->type, ops[i].type) == 0)
            return &ops[i];
    return NULL;
}

/* A slice layer being read: its attributes, its inputs and the first skip
 * reason. */
typedef struct slice_in {
    bool connected[5];
    const int64_t *index[5]; /* values of index inputs 1.. */
    size_t len[5];
    /* Index inputs that are no Const: element e of input i is runtime
     * value refs[i][e] - 1 of `values` (sg_value_refs). */
    bool runtime[5];
    uint16_t refs[5][SG_MAX_VALUES];
    sg_value_table values;
    /* value k of `values` as shape arithmetic gives it (an expression of
     * the model's symbols in r->g), where known[k] */
    sg_val value_exprs[SG_MAX_VALUES];
    bool known[SG_MAX_VALUES];
    int64_t folded[5][SG_GRAPH_MAX_VALUES]; /* index inputs that shape arithmetic folds to constants */
    int64_t *masks[5];                      /* StridedSlice */
    size_t mask_len[5];
    int version;      /* Pad: 1 or 12; Gather: 1, 7 or 8 */
    sg_trt_mode mode; /* Pad */
    bool symmetric;   /* Pad: pad_mode symmetric, which slicegen lacks */
    sg_scalar fill;   /* Pad: pad_value, when connected and read */
    bool have_fill;
    int64_t batch_dims; /* Gather-7 and 8 */
    size_t index_rank;  /* Gather: the rank of the indices, and their dims */
    const int64_t *index_dims;
    int64_t num_splits; /* Split */
    bool have_shape, have_dtype;
    size_t rank;
    int64_t shape[SG_MAX_RANK]; /* -1: a dynamic dimension */
    sg_dtype dtype;
    char reason[448];
} slice_in;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
skip(slice_in *s, const char *fmt, ...)
{
    if (s->reason[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->reason, sizeof s->reason, fmt, ap);
    va_end(ap);
}

static const char *const mask_names[5] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                                          "ellipsis_mask"};

/* StridedSlice masks from <data>: begin_mask and end_mask required. */
static sg_status read_masks(reader *r, const layer *l, slice_in *s)
{
    xmlNode *data = child(l->node, "data");
    char whom[WHO_BUF], shown[SHOW_BUF];
    for (int m = 0; m < 5; m++) {
        const char *text = attr(r, data, mask_names[m]);
        if (text == NULL && m < 2)
            return bad(r, "missing attribute of StridedSlice (%s, attribute %s)", who(l, whom),
                       mask_names[m]);
        if (text == NULL)
            continue;
        sg_error lerr = {0};
        if (sg_parse_mask_list(text, mask_names[m], &s->masks[m], &s->mask_len[m], &lerr) != SG_OK) {
            if (lerr.status == SG_ERR_NOMEM)
                return nomem(r);
            return bad(r, "mask values must be 0 or 1 (%s, attribute %s = '%s')", who(l, whom), mask_names[m],
                       show(text, shown));
        }
    }
    return SG_OK;
}

/* The attributes of Pad (pad_mode; the version), Gather (the version;
 * batch_dims) and Split (num_splits); StridedSlice's masks. Versions:
 * opset1 to opset11 give Pad-1, opset12 and later Pad-12; opset1 to opset6
 * Gather-1, opset7 Gather-7, opset8 and later Gather-8; any other version
 * is a skip reason. */
static sg_status read_attributes(reader *r, const layer *l, const op_info *op, slice_in *s)
{
    static const struct {
        const char *name;
        sg_trt_mode mode;
    } modes[] = {{"constant", SG_TRT_FILL}, {"edge", SG_TRT_CLAMP}, {"reflect", SG_TRT_REFLECT}};
    xmlNode *data = child(l->node, "data");
    char whom[WHO_BUF], shown[SHOW_BUF];
    const char *version = attr(r, l->node, "version"), *text;
    int64_t opset = opset_number(version);
    who(l, whom);
    switch (op->kind) {
    case OP_STRIDED_SLICE:
        return read_masks(r, l, s);
    case OP_SLICE:
    case OP_VARIADIC_SPLIT:
        return SG_OK;
    case OP_PAD:
        s->version = opset >= 12 ? 12 : 1;
        text = attr(r, data, "pad_mode");
        if (text == NULL)
            return bad(r, "missing attribute of Pad (%s, attribute pad_mode)", whom);
        s->symmetric = strcmp(text, "symmetric") == 0;
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
            if (strcmp(text, modes[m].name) == 0)
                s->mode = modes[m].mode, s->symmetric = false;
        if (s->mode == SG_TRT_STRICT && !s->symmetric)
            return bad(r,
                       "unknown pad_mode (%s, attribute pad_mode = '%s'; expected constant, edge, reflect or "
                       "symmetric)",
                       whom, show(text, shown));
        break;
    case OP_GATHER:
        s->version = opset >= 8 ? 8 : opset == 7 ? 7 : 1;
        text = attr(r, data, "batch_dims");
        if (opset >= 7 && text != NULL && !sg_parse_int64(text, &s->batch_dims))
            return bad(r, "attribute is not an integer (%s, attribute batch_dims = '%s')", whom,
                       show(text, shown));
        break;
    case OP_SPLIT:
        if (get_count(r, data, "num_splits", whom, &s->num_splits) != SG_OK)
            return r->err->status;
        if (s->num_splits == 0 || (uint64_t)s->num_splits != l->nout)
            return bad(r,
                       "num_splits must be the number of output ports (%s, attribute num_splits = %lld, %zu "
                       "output ports)",
                       whom, (long long)s->num_splits, l->nout);
        return SG_OK;
    }
    if (opset == 0)
        skip(s, "%s of version '%s' is not read (expected opsetN)", op->type, show(version, shown));
    return SG_OK;
}

/* The element type of the output port `src` reads: its precision, else the
 * producer's <data element_type> (a Parameter's); NULL when neither. */
static const char *port_type(reader *r, const source *src)
{
    const char *type = attr(r, src->port, "precision");
    return type ? type : attr(r, child(r->layers[src->layer].node, "data"), "element_type");
}

/* The data input (position 0) as shape inference gives it: the shape of
 * the producer's output port, each dimension the port leaves dynamic but
 * inference knows taken from inference (-1 when neither knows it); the
 * element type the port's precision, else the producer's <data
 * element_type>, else inference's. A rank above SG_MAX_RANK or a type
 * slicegen lacks is a skip reason. */
static sg_status read_data_input(reader *r, const source *src, slice_in *s)
{
    const layer *p = &r->layers[src->layer];
    const sg_gtensor *x = &r->g.tensors[r->tensor[src->layer] + (int32_t)src->output];
    char whom[WHO_BUF], shown[SHOW_BUF];
    size_t rank, dynamic;
    const char *dynamic_text;
    if (port_dims(r, p, src->port, src->port_id, s->shape, SG_MAX_RANK, &rank, &dynamic, &dynamic_text) !=
        SG_OK)
        return r->err->status;
    who(p, whom);
    if (rank > SG_MAX_RANK)
        skip(s, "the data input has rank %zu, more than %d (from %s output port %lld)", rank, SG_MAX_RANK,
             whom, (long long)src->port_id);
    s->have_shape = rank <= SG_MAX_RANK;
    s->rank = s->have_shape ? rank : 0;
    for (size_t d = 0; d < s->rank && x->rank == (int)s->rank; d++)
        if (s->shape[d] < 0 && sg_is_const(x->dims[d]) && x->dims[d].k >= 0)
            s->shape[d] = x->dims[d].k;

    const char *type = port_type(r, src);
    if (type == NULL && x->type == SG_GTYPE_UNKNOWN)
        return bad(r,
                   "the data input has no element type (%s, output port %lld: no attribute precision, no "
                   "<data element_type> and none inferred)",
                   whom, (long long)src->port_id);
    if (type == NULL) {
        s->have_dtype = x->type >= 0;
        s->dtype = s->have_dtype ? (sg_dtype)x->type : SG_BOOL;
        if (!s->have_dtype)
            skip(s, "the data input has an element type slicegen lacks (from %s)", whom);
        return SG_OK;
    }
    s->have_dtype = dtype_from_ir(type, &s->dtype);
    if (!s->have_dtype)
        skip(s, "the data input has unsupported element type '%s' (from %s)", show(type, shown), whom);
    return SG_OK;
}

/* Index input `i` (an IN_LIST) that is no Const: a 1-D i32 or i64 tensor
 * of static length, each element of which becomes a runtime value named
 * after the input and the element (begin_0, begin_1, ...; inputs are read
 * in port order, so the values are those of input 1, then 2, then 3).
 * Anything else is a skip reason. */
static sg_status read_runtime_index(reader *r, const layer *l, const op_info *op, size_t i, slice_in *s)
{
    static const int64_t no_numbers[SG_MAX_VALUES]; /* the numbers of a list of values (ignored) */
    const source *src = &l->src[i];
    const layer *c = &r->layers[src->layer];
    char cwho[WHO_BUF], shown[SHOW_BUF];
    const char *role = op->inputs[i], *dynamic_text, *type;
    int64_t len = 0;
    size_t rank, dynamic;
    sg_dtype dtype;
    who(c, cwho);
    if (port_dims(r, c, src->port, src->port_id, &len, 1, &rank, &dynamic, &dynamic_text) != SG_OK)
        return r->err->status;
    type = port_type(r, src);
    if (rank != 1)
        skip(s, "input %zu (%s) is not a Const and not 1-D (rank %zu, from %s output port %lld)", i, role,
             rank, cwho, (long long)src->port_id);
    else if (dynamic != NONE)
        skip(s, "input %zu (%s) is not a Const and its length is dynamic ('%s', from %s output port %lld)", i,
             role, show(dynamic_text, shown), cwho, (long long)src->port_id);
    else if (type == NULL)
        skip(s,
             "input %zu (%s) is not a Const and has no element type (from %s output port %lld: no attribute "
             "precision and no <data element_type>)",
             i, role, cwho, (long long)src->port_id);
    else if (!dtype_from_ir(type, &dtype) || (dtype != SG_I32 && dtype != SG_I64))
        skip(s,
             "input %zu (%s) is not a Const and has element type '%s', not i32 or i64 (from %s output port "
             "%lld)",
             i, role, show(type, shown), cwho, (long long)src->port_id);
    if (s->reason[0] != '\0')
        return SG_OK;
    /* The table refuses a value past SG_MAX_VALUES before e reaches it. */
    for (int64_t e = 0; e < len; e++) {
        char name[SG_VALUE_NAME_MAX + 1];
        const char *why = NULL;
        int n = snprintf(name, sizeof name, "%s_%lld", role, (long long)e);
        sg_status st = sg_value_table_ref(&s->values, name, (size_t)n, &s->refs[i][e], &why);
        if (st == SG_ERR_NOMEM)
            return nomem(r);
        if (st != SG_OK) {
            skip(s,
                 "input %zu (%s) is not a Const and its %lld elements are too many runtime values (%s; from "
                 "%s "
                 "output port %lld)",
                 i, role, (long long)len, why, cwho, (long long)src->port_id);
            return SG_OK;
        }
        const sg_gtensor *x = &r->g.tensors[r->tensor[src->layer] + (int32_t)src->output];
        if (e < x->nvalues) { /* shape arithmetic: it follows from the symbols */
            s->value_exprs[s->refs[i][e] - 1] = x->values[e];
            s->known[s->refs[i][e] - 1] = true;
        }
    }
    s->runtime[i] = true;
    s->index[i] = no_numbers;
    s->len[i] = (size_t)len;
    return SG_OK;
}

/* Whether the index input `src` (not a Const), of kind `how`, is shape
 * arithmetic that inference folds to constants (ShapeOf of static
 * dimensions, then Gather, Concat...): a 1-D i32 or i64 tensor (one
 * element of rank 0 or 1 for an axis) whose every element is a constant;
 * they are then copied to values, and their count to *len. */
static bool folded_input(const reader *r, const source *src, in_kind how, int64_t *values, size_t *len)
{
    const sg_gtensor *x = &r->g.tensors[r->tensor[src->layer] + (int32_t)src->output];
    bool list = how == IN_LIST || how == IN_CONST_LIST, axis = how == IN_AXIS;
    if (!(list || axis) || x->nvalues < 0 || (x->type != SG_I32 && x->type != SG_I64) ||
        (list && x->rank != 1) || (axis && (x->rank > 1 || x->nvalues != 1)))
        return false;
    for (int64_t e = 0; e < x->nvalues; e++)
        if (!sg_is_const(x->values[e]))
            return false;
    for (int64_t e = 0; e < x->nvalues; e++)
        values[e] = x->values[e].k;
    *len = (size_t)x->nvalues;
    return true;
}

/* The one element of a rank-0 Const of element type `dtype` (a Pad's
 * pad_value) as a scalar: floats exactly (f16 and bf16 widened), integers
 * as integers, bool as false or true. */
static sg_status const_scalar(reader *r, const layer *c, sg_dtype dtype, sg_scalar *value)
{
    uint8_t bytes[8] = {0};
    size_t esize = sg_dtype_size(dtype);
    uint64_t u = 0;
    if (const_bytes(r, c, bytes, esize) != SG_OK)
        return r->err->status;
    for (size_t b = 0; b < esize; b++)
        u |= (uint64_t)bytes[b] << (8 * b);
    uint64_t sign = (uint64_t)1 << (8 * esize - 1);
    switch (dtype) {
    case SG_F16:
    case SG_BF16:
        *value = (sg_scalar){.kind = SG_SCALAR_FLOAT,
                             .f = dtype == SG_F16 ? sg_f16_to_f64((uint16_t)u) : sg_bf16_to_f64((uint16_t)u)};
        break;
    case SG_F32:
        *value = (sg_scalar){.kind = SG_SCALAR_FLOAT, .f = sg_f32_bits_to_f64((uint32_t)u)};
        break;
    case SG_F64:
        *value = (sg_scalar){.kind = SG_SCALAR_FLOAT};
        memcpy(&value->f, &u, sizeof value->f);
        break;
    case SG_BOOL:
        *value = (sg_scalar){.kind = SG_SCALAR_BOOL, .i = u != 0};
        break;
    case SG_I8:
    case SG_I16:
    case SG_I32:
    case SG_I64: /* sign-extended: (u ^ sign) - sign, without overflow */
        *value = (sg_scalar){.kind = SG_SCALAR_INT,
                             .i = (u & sign) ? -(int64_t)((sign - 1) - (u & (sign - 1))) - 1 : (int64_t)u};
        break;
    default: /* unsigned */
        *value = u > INT64_MAX ? (sg_scalar){.kind = SG_SCALAR_UINT, .u = u}
                               : (sg_scalar){.kind = SG_SCALAR_INT, .i = (int64_t)u};
        break;
    }
    return SG_OK;
}

/* Input `i` read as op->how[i] says (data excepted): values in
 * s->index[i] (s->len[i] of them), a fill in s->fill, runtime values, a
 * skip reason, or a malformed model. */
static sg_status read_input(reader *r, const layer *l, const op_info *op, size_t i, slice_in *s)
{
    layer *c = &r->layers[l->src[i].layer];
    const char *role = op->inputs[i];
    in_kind how = op->how[i];
    char whom[WHO_BUF], cwho[WHO_BUF], shown[SHOW_BUF], type[SHOW_BUF];
    sg_dtype dtype;
    who(l, whom);
    who(c, cwho);
    if (strcmp(c->type, "Const") != 0 && folded_input(r, &l->src[i], how, s->folded[i], &s->len[i])) {
        s->index[i] = s->folded[i];
        return SG_OK;
    }
    if (strcmp(c->type, "Const") != 0) {
        if (how == IN_LIST)
            return read_runtime_index(r, l, op, i, s);
        skip(s, "input %zu (%s) is not a Const: it comes from %s (type %s), and %s must be constant", i, role,
             cwho, show(c->type, shown), role);
        return SG_OK;
    }
    if (how == IN_FILL) {
        if (c->rank != 0)
            return bad(r, "a pad_value input must be a scalar (%s, input %zu (%s) is %s with shape '%s')",
                       whom, i, role, cwho, show(c->shape, shown));
        if (s->have_dtype && (!dtype_from_ir(c->etype, &dtype) || dtype != s->dtype)) {
            skip(s, "input %zu (%s) is a Const of element type '%s', not the data's %s (%s)", i, role,
                 show(c->etype, type), sg_dtype_name(s->dtype), cwho);
            return SG_OK;
        }
        s->have_fill = s->have_dtype;
        return s->have_fill ? const_scalar(r, c, s->dtype, &s->fill) : SG_OK;
    }
    if (!dtype_from_ir(c->etype, &dtype) || (dtype != SG_I32 && dtype != SG_I64)) {
        skip(s, "input %zu (%s) is a Const of element type '%s', not i32 or i64 (%s)", i, role,
             show(c->etype, type), cwho);
        return SG_OK;
    }
    size_t count = (size_t)c->size / sg_dtype_size(dtype);
    if ((how == IN_LIST || how == IN_CONST_LIST) && c->rank != 1)
        return bad(r, "an index input must be 1-D (%s, input %zu (%s) is %s with shape '%s')", whom, i, role,
                   cwho, show(c->shape, shown));
    if (how == IN_AXIS && (c->rank > 1 || count != 1))
        return bad(
            r,
            "an axis input must be a scalar or hold one element (%s, input %zu (%s) is %s with shape '%s')",
            whom, i, role, cwho, show(c->shape, shown));
    if (how == IN_INDICES)
        s->index_rank = c->rank, s->index_dims = c->dims;
    if (const_values(r, c, sg_dtype_size(dtype)) != SG_OK)
        return r->err->status;
    s->index[i] = c->values;
    s->len[i] = count;
    return SG_OK;
}

/* An axis of a data input of rank s->rank, as given (`given`), counted
 * from 0 in *axis; a skip reason when it is out of range. */
static bool data_axis(slice_in *s, const char *op, int64_t given, size_t *axis)
{
    int64_t rank = (int64_t)s->rank;
    if (given < -rank || given >= rank) {
        skip(s, "failed to make %s: axis %lld is out of range for data of rank %lld", op, (long long)given,
             (long long)rank);
        return false;
    }
    *axis = (size_t)(given < 0 ? given + rank : given);
    return true;
}

/* Whether pads b and e of opposite signs crop an axis of n >= 0 elements
 * whole (n + min(b, 0) + min(e, 0) <= 0) and still pad it (n + b + e > 0);
 * no sum below can overflow. */
static bool crops_whole_and_pads(int64_t n, int64_t b, int64_t e)
{
    int64_t cut = b < 0 ? b : e, pad = b < 0 ? e : b;
    return (b < 0) != (e < 0) && n + cut <= 0 && pad + (n + cut) > 0;
}

/* Pad: mode and pads as OpenVINO runs them. Its reference implementation
 * reads output element y of an axis from input element y - pads_begin of
 * the whole axis (clamped for edge, mirrored for reflect), while
 * slicegen's Pad crops negative pads first and pads what is left: the two
 * agree except for reflect with pads of opposite signs on one axis, and
 * edge with an axis cropped away whole but padded; those, and reflect with
 * pads known only at run time (Pad-12), are skip reasons. */
static void make_pad(slice_in *s, sg_spec **spec, sg_error *lerr)
{
    const int64_t *begin = s->index[1], *end = s->index[2];
    bool runtime = s->runtime[1] || s->runtime[2];
    if (s->symmetric) {
        skip(s, "pad_mode symmetric has no slicegen mode (constant, edge and reflect do)");
        return;
    }
    if (s->len[1] != s->rank || s->len[2] != s->rank) {
        skip(s,
             "failed to make Pad: pads_begin and pads_end must have one element per data axis (%zu and %zu "
             "for rank %zu)",
             s->len[1], s->len[2], s->rank);
        return;
    }
    if (s->version == 12 && s->mode == SG_TRT_REFLECT && runtime) {
        skip(s,
             "Pad-12 reflect with pads known only at run time: OpenVINO reflects pads of opposite signs off "
             "the uncropped axis, which slicegen's Pad cannot express");
        return;
    }
    for (size_t a = 0; a < s->rank; a++) {
        int64_t b = begin[a], e = end[a], n = s->shape[a]; /* runtime values: 0 */
        const char *which = b < 0 ? "pads_begin" : "pads_end";
        if (s->version == 1 && (b < 0 || e < 0)) {
            skip(s, "Pad-1 takes no negative pads (%s[%zu] = %lld); Pad-12 crops", which, a,
                 (long long)(b < 0 ? b : e));
            return;
        }
        if (s->mode == SG_TRT_REFLECT && ((b < 0 && e > 0) || (b > 0 && e < 0))) {
            skip(s,
                 "Pad-12 reflect with pads of opposite signs (axis %zu: pads_begin %lld, pads_end %lld): "
                 "OpenVINO reflects off the uncropped axis, which slicegen's Pad cannot express",
                 a, (long long)b, (long long)e);
            return;
        }
        if (s->mode == SG_TRT_CLAMP && n >= 0 && crops_whole_and_pads(n, b, e)) {
            skip(s,
                 "Pad-12 edge that crops axis %zu of %lld elements whole and pads it (pads_begin %lld, "
                 "pads_end %lld): OpenVINO pads with the uncropped edge, which slicegen's Pad cannot express",
                 a, (long long)n, (long long)b, (long long)e);
            return;
        }
    }
    sg_value_refs values = {{s->runtime[1] ? s->refs[1] : NULL, s->runtime[2] ? s->refs[2] : NULL, NULL},
                            &s->values};
    sg_spec_make_pad(s->rank, begin, end, NULL, s->mode,
                     s->mode == SG_TRT_FILL && s->have_fill ? &s->fill : NULL, &values, spec, lerr);
}

/* Gather of an index array (rank 1 or more): a program of slices
 * (sg_gather_program); negative indices before Gather-8 and a batch_dims
 * other than 0 are skip reasons. */
static void gather_program(slice_in *s, size_t axis, sg_spec **spec, sg_error *lerr)
{
    if (s->version >= 7 && s->batch_dims != 0) {
        skip(s, "failed to make Gather: batch_dims must be 0 for an index array (batch_dims = %lld)",
             (long long)s->batch_dims);
        return;
    }
    for (size_t k = 0; s->version < 8 && k < s->len[1]; k++)
        if (s->index[1][k] < 0) {
            skip(s, "Gather-%d takes no negative index (indices[%zu] = %lld); Gather-8 does", s->version, k,
                 (long long)s->index[1][k]);
            return;
        }
    if (sg_gather_program(s->rank, s->shape, (int64_t)axis, s->index_rank, s->index_dims, s->index[1],
                          s->len[1], "input 1 (indices)", spec, s->reason, sizeof s->reason, lerr) != SG_OK)
        s->reason[0] = '\0'; /* out of memory: no reason, the error */
}

/* Gather of one index: a StridedSlice of whole ranges before the axis and
 * a shrink step on it, of an index array a program (gather_program).
 * Indices out of range of a static axis are a skip reason (Gather-8 gives
 * zeros there), as are negative ones before Gather-8 and a batch_dims
 * other than 0 (a scalar index has no batch). */
static void make_gather(slice_in *s, sg_spec **spec, sg_error *lerr)
{
    int64_t begin[SG_MAX_RANK] = {0}, end[SG_MAX_RANK] = {0}, masks[SG_MAX_RANK], shrink[SG_MAX_RANK] = {0};
    size_t axis;
    if (!data_axis(s, "Gather", s->index[2][0], &axis))
        return;
    if (s->index_rank > 0) {
        gather_program(s, axis, spec, lerr);
        return;
    }
    int64_t index = s->index[1][0];
    if (s->version >= 7 && s->batch_dims != 0) {
        skip(s, "failed to make Gather: batch_dims must be 0 for a scalar index (batch_dims = %lld)",
             (long long)s->batch_dims);
        return;
    }
    if (s->version < 8 && index < 0) {
        skip(s, "Gather-%d takes no negative index (indices = %lld); Gather-8 does", s->version,
             (long long)index);
        return;
    }
    int64_t n = s->shape[axis];
    if (n >= 0 && (index >= n || index < -n)) {
        skip(s, "failed to make Gather: index %lld is out of range for axis %zu of %lld elements",
             (long long)index, axis, (long long)n);
        return;
    }
    for (size_t a = 0; a < axis; a++)
        masks[a] = 1;
    masks[axis] = 0;
    begin[axis] = index;
    end[axis] = index == INT64_MAX ? index : index + 1; /* ignored by the shrink step */
    shrink[axis] = 1;
    sg_strided_slice_args args = {
        .len = axis + 1,
        .begin = begin,
        .end = end,
        .begin_mask = {masks, axis + 1},
        .end_mask = {masks, axis + 1},
        .shrink_axis_mask = {shrink, axis + 1},
    };
    sg_spec_make_strided_slice(&args, NULL, spec, lerr);
}

/* Output k of Split or VariadicSplit: a Slice-8 of its part of the axis.
 * The whole split is checked for every output: an axis out of range or
 * of dynamic length, an uneven Split, split_lengths with more than one -1,
 * another negative length or a sum other than the axis's length is a skip
 * reason. */
static void make_split(const op_info *op, slice_in *s, size_t k, size_t nout, sg_spec **spec, sg_error *lerr)
{
    int64_t given = s->index[1][0], start = 0, stop = 0, one = 1, known = 0, parts = (int64_t)nout;
    size_t axis, unknown = NONE;
    const int64_t *lengths = s->index[2];
    if (!data_axis(s, op->type, given, &axis))
        return;
    int64_t n = s->shape[axis];
    if (n < 0) {
        skip(s,
             "failed to make %s: axis %zu has a dynamic dimension, so the parts are known only at run time",
             op->type, axis);
        return;
    }
    if (op->kind == OP_SPLIT) {
        if (n % parts != 0) {
            skip(s, "failed to make Split: axis %zu of %lld elements does not split into %lld equal parts",
                 axis, (long long)n, (long long)parts);
            return;
        }
        start = (int64_t)k * (n / parts);
        stop = start + n / parts;
    } else {
        for (size_t i = 0; i < nout; i++) {
            if (lengths[i] == -1 && unknown == NONE) {
                unknown = i;
            } else if (lengths[i] < 0) {
                skip(s,
                     "failed to make VariadicSplit: split_lengths may hold one -1 and no other negative "
                     "length "
                     "(split_lengths[%zu] = %lld)",
                     i, (long long)lengths[i]);
                return;
            } else if (__builtin_add_overflow(known, lengths[i], &known)) {
                known = INT64_MAX;
            }
        }
        if (unknown == NONE ? known != n : known > n) {
            skip(s,
                 "failed to make VariadicSplit: split_lengths add up to %lld%s, axis %zu has %lld elements",
                 (long long)known, unknown == NONE ? "" : " besides the -1", axis, (long long)n);
            return;
        }
        for (size_t i = 0; i < k; i++) /* no sum passes n */
            start += i == unknown ? n - known : lengths[i];
        stop = start + (k == unknown ? n - known : lengths[k]);
    }
    sg_spec_make_slice(1, &start, &stop, &one, &given, NULL, spec, lerr);
}

/* The spec of output k (of nout) from the inputs; a constructor failure
 * is a skip reason. */
static sg_status make_spec(reader *r, const op_info *op, slice_in *s, size_t k, size_t nout, sg_spec **spec)
{
    sg_error lerr = {0};
    sg_value_refs values = {{s->runtime[1] ? s->refs[1] : NULL, s->runtime[2] ? s->refs[2] : NULL,
                             s->runtime[3] ? s->refs[3] : NULL},
                            &s->values};
    switch (op->kind) {
    case OP_STRIDED_SLICE:
    case OP_SLICE:
        for (size_t i = 2; i < op->count; i++)
            if (s->connected[i] && s->len[i] != s->len[1]) {
                skip(s, "failed to make %s: %s and %s must have the same length (%zu and %zu)", op->type,
                     op->inputs[1], op->inputs[i], s->len[1], s->len[i]);
                return SG_OK;
            }
        if (op->kind == OP_STRIDED_SLICE) {
            sg_strided_slice_args a = {
                .len = s->len[1],
                .begin = s->index[1],
                .end = s->index[2],
                .stride = s->connected[3] ? s->index[3] : NULL,
                .begin_mask = {s->masks[0], s->mask_len[0]},
                .end_mask = {s->masks[1], s->mask_len[1]},
                .new_axis_mask = {s->masks[2], s->mask_len[2]},
                .shrink_axis_mask = {s->masks[3], s->mask_len[3]},
                .ellipsis_mask = {s->masks[4], s->mask_len[4]},
            };
            sg_spec_make_strided_slice(&a, &values, spec, &lerr);
        } else {
            sg_spec_make_slice(s->len[1], s->index[1], s->index[2], s->index[3],
                               s->connected[4] ? s->index[4] : NULL, &values, spec, &lerr);
        }
        break;
    case OP_PAD:
        make_pad(s, spec, &lerr);
        break;
    case OP_GATHER:
        make_gather(s, spec, &lerr);
        break;
    case OP_SPLIT:
    case OP_VARIADIC_SPLIT:
        make_split(op, s, k, nout, spec, &lerr);
        break;
    }
    if (lerr.status == SG_ERR_NOMEM)
        return nomem(r);
    if (lerr.status != SG_OK)
        skip(s, "%s", lerr.message);
    return SG_OK;
}

static char *copy_text(const char *text)
{
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    return copy ? memcpy(copy, text, n) : NULL;
}

/* Fills model layer `out` for output k of nout of layer l (the layer's name,
 * with "_<k>" when the op gives one model layer per output), with the spec
 * or the skip reason. */
static sg_status put_layer(reader *r, const layer *l, const op_info *op, slice_in *s, size_t k, size_t nout,
                           sg_model_layer *out, sg_layer_numbers *numbers)
{
    sg_spec *spec = NULL;
    size_t n = strlen(l->name) + 24;
    char *name = malloc(n);
    out->id = l->id;
    out->name = name;
    out->type = copy_text(l->type);
    if (name == NULL || out->type == NULL)
        return nomem(r);
    snprintf(name, n, "%s", l->name); /* the outputs of a Split share it, as its ONNX nodes' do */
    if (s->reason[0] == '\0' && make_spec(r, op, s, k, nout, &spec) != SG_OK)
        return r->err->status;
    if (s->have_shape && s->rank > 0) {
        int64_t *shape = malloc(s->rank * sizeof *shape);
        if (shape == NULL) {
            sg_spec_free(spec);
            return nomem(r);
        }
        out->shape = memcpy(shape, s->shape, s->rank * sizeof *shape);
    }
    out->rank = s->rank;
    out->dtype = s->have_dtype ? s->dtype : SG_BOOL;
    if (s->reason[0] != '\0') {
        sg_spec_free(spec);
        out->skip_reason = copy_text(s->reason);
        return out->skip_reason ? SG_OK : nomem(r);
    }
    out->spec_text = sg_spec_to_text(spec);
    if (out->spec_text == NULL) {
        sg_spec_free(spec);
        return nomem(r);
    }
    out->spec = spec;
    /* how its numbers follow from the model's symbols */
    const source *data = &l->src[0];
    if (!sg_layer_numbers_make(numbers, &r->g, &r->g.tensors[r->tensor[data->layer] + (int32_t)data->output],
                               out->rank, out->shape, spec, &s->values, s->value_exprs, s->known))
        return nomem(r);
    return SG_OK;
}

/* The output ports' count of layer l as model layers: one per output port
 * for Split and VariadicSplit, else one. */
static size_t model_layers_of(const layer *l, const op_info *op)
{
    return op->per_output ? l->nout : 1;
}

/* Reads slice layer l into m's next model_layers_of(l, op) layers. */
static sg_status read_slice(reader *r, const layer *l, const op_info *op, sg_model *m)
{
    slice_in s = {0};
    sg_status st = SG_OK;
    size_t nout = model_layers_of(l, op);
    char whom[WHO_BUF];

    if (l->nin > op->count) {
        st = bad(r, "too many inputs (%s has %zu input ports; %s takes at most %zu)", who(l, whom), l->nin,
                 op->type, op->count);
        goto done;
    }
    if (nout == 0) {
        st = bad(r, "a %s needs an output port (%s has none)", op->type, who(l, whom));
        goto done;
    }
    for (size_t i = 0; i < op->count; i++) {
        s.connected[i] = i < l->nin && l->src[i].layer != NONE;
        if (!s.connected[i] && i < op->required) {
            st = bad(r, "a required input is not connected (%s, input %zu (%s))", who(l, whom), i,
                     op->inputs[i]);
            goto done;
        }
    }
    if ((st = read_attributes(r, l, op, &s)) != SG_OK || (st = read_data_input(r, &l->src[0], &s)) != SG_OK)
        goto done;
    for (size_t i = 1; i < op->count; i++) {
        bool unused = op->how[i] == IN_FILL && s.mode != SG_TRT_FILL; /* pad_value of edge or reflect */
        if (s.connected[i] && !unused && (st = read_input(r, l, op, i, &s)) != SG_OK)
            goto done;
    }
    if (op->kind == OP_VARIADIC_SPLIT && !s.runtime[2] && s.index[2] != NULL && s.len[2] != nout) {
        st =
            bad(r,
                "split_lengths must have one element per output port (%s has %zu output ports, split_lengths "
                "%zu elements)",
                who(l, whom), nout, s.len[2]);
        goto done;
    }
    for (size_t k = 0; k < nout; k++) {
        size_t at = m->nlayers++; /* counted first: sg_model_free frees what put_layer made */
        if ((st = put_layer(r, l, op, &s, k, nout, &m->layers[at], &m->numbers[at])) != SG_OK)
            goto done;
    }
done:
    sg_value_table_free(&s.values);
    for (int m = 0; m < 5; m++)
        free(s.masks[m]);
    return st;
}

/* Every Const checked, then the model decoded into a graph and its
 * shapes inferred (r->g). */
static sg_status read_consts_and_graph(reader *r)
{
    for (size_t i = 0; i < r->nlayers; i++)
        if (strcmp(r->layers[i].type, "Const") == 0 && check_const(r, &r->layers[i]) != SG_OK)
            return r->err->status;
    return read_graph(r);
}

/* What layer i is: a slice layer (its op), or not one (NULL): another
 * type, or a slice whose data input is shape arithmetic (*folded: made
 * from a ShapeOf, it is folded into the numbers of the kernels it feeds,
 * not compiled). */
static const op_info *layer_op(const reader *r, size_t i, bool *folded)
{
    const layer *l = &r->layers[i];
    const op_info *op = slice_op(l);
    *folded = op != NULL && l->nin > 0 && l->src[0].layer != NONE &&
              r->g.tensors[r->tensor[l->src[0].layer] + (int32_t)l->src[0].output].shape_arith;
    return *folded ? NULL : op;
}

/* Every slice layer read, in document order (those on shape arithmetic
 * folded), then the data flow around them. */
static sg_status read_model(reader *r, sg_model **model)
{
    sg_model *m = calloc(1, sizeof *m);
    size_t nslices = 0;
    if (m == NULL)
        return nomem(r);
    for (size_t i = 0; i < r->nlayers; i++) {
        bool folded;
        const op_info *op = layer_op(r, i, &folded);
        nslices += op != NULL ? model_layers_of(&r->layers[i], op) : 0;
        m->folded += folded;
    }
    m->layers = calloc(nslices ? nslices : 1, sizeof *m->layers);
    m->numbers = calloc(nslices ? nslices : 1, sizeof *m->numbers);
    if (m->layers == NULL || m->numbers == NULL || !sg_model_take_symbols(m, &r->g)) {
        nomem(r);
        goto fail;
    }
    /* graph node x is document layer g.nodes[x].file_index */
    int32_t *node_of = malloc((r->nlayers ? r->nlayers : 1) * sizeof *node_of);
    int32_t *layer_node = malloc((nslices ? nslices : 1) * sizeof *layer_node);
    if (node_of == NULL || layer_node == NULL) {
        free(node_of);
        free(layer_node);
        nomem(r);
        goto fail;
    }
    for (size_t x = 0; x < r->g.nnodes; x++)
        node_of[r->g.nodes[x].file_index] = (int32_t)x;
    bool ok = true;
    for (size_t i = 0; ok && i < r->nlayers; i++) {
        bool folded;
        const op_info *op = layer_op(r, i, &folded);
        size_t first = m->nlayers;
        ok = op == NULL || read_slice(r, &r->layers[i], op, m) == SG_OK;
        for (size_t k = first; k < m->nlayers; k++)
            layer_node[k] = node_of[i];
    }
    if (ok && !sg_model_read_flow(m, &r->g, layer_node))
        r->nomem = true;
    free(node_of);
    free(layer_node);
    if (!ok)
        goto fail;
    if (r->nomem) {
        nomem(r);
        goto fail;
    }
    sg_model_keep_symbols(m);
    *model = m;
    return SG_OK;
fail:
    sg_model_free(m);
    return r->err->status;
}

/* Frees the reader but its graph; the graph's constants no longer point
 * at their bytes. */
static void reader_free(reader *r)
{
    for (size_t i = 0; i < r->nlayers; i++) {
        free(r->layers[i].in);
        free(r->layers[i].out);
        free(r->layers[i].src);
        free(r->layers[i].values);
        free(r->layers[i].dims);
        free(r->layers[i].raw);
    }
    for (size_t i = 0; i < r->g.ntensors; i++)
        r->g.tensors[i].raw = NULL;
    free(r->layers);
    free(r->by_id);
    free(r->order);
    free(r->tensor);
    for (size_t i = 0; i < r->nowned; i++)
        xmlFree(r->owned[i]);
    free(r->owned);
    free(r->bin_path_owned);
    if (r->bin_fd >= 0)
        close(r->bin_fd);
    xmlFreeDoc(r->doc);
}

/* Reads the model at r->path into r->g, and its layers into *model
 * unless model is NULL; frees the reader but r->g. libxml2 reports to the
 * reader's handlers meanwhile. */
static sg_status read_all(reader *r, const char *weights_path, sg_model **model)
{
    /* libxml2 reports through this thread's handlers and the parser
     * context's; both capture instead of printing, until we return. */
    capture stray = {0};
    xmlInitParser();
    xmlStructuredErrorFunc saved_structured = xmlStructuredError;
    void *saved_structured_ctx = xmlStructuredErrorContext;
    xmlGenericErrorFunc saved_generic = xmlGenericError;
    void *saved_generic_ctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(&stray, on_error);
    xmlSetGenericErrorFunc(&stray, on_generic);

    sg_status st = read_document(r);
    if (st == SG_OK)
        st = read_layers(r);
    if (st == SG_OK)
        st = read_edges(r);
    if (st == SG_OK)
        st = check_acyclic(r);
    if (st == SG_OK)
        st = open_weights(r, weights_path);
    if (st == SG_OK && r->nomem)
        st = nomem(r);
    if (st == SG_OK)
        st = read_consts_and_graph(r);
    if (st == SG_OK && model != NULL)
        st = read_model(r, model);

    reader_free(r);
    xmlSetStructuredErrorFunc(saved_structured_ctx, saved_structured);
    xmlSetGenericErrorFunc(saved_generic_ctx, saved_generic);
    return st;
}

sg_status sg_openvino_read_graph(const char *xml_path, const char *weights_path, sg_graph *g, sg_error *err)
{
    sg_error local = {0};
    reader r = {.path = xml_path, .bin_fd = -1, .err = err ? err : &local};
    if (xml_path == NULL)
        return sg_fail(r.err, SG_ERR_USAGE, "failed to read model: no .xml path given");
    sg_status st = read_all(&r, weights_path, NULL);
    if (st == SG_OK)
        *g = r.g;
    else
        sg_graph_free(&r.g);
    return st;
}

sg_status sg_model_load(const char *xml_path, const char *weights_path, sg_model **model, sg_error *err)
{
    sg_error local = {0};
    reader r = {.path = xml_path, .bin_fd = -1, .err = err ? err : &local};
    if (xml_path == NULL)
        return sg_fail(r.err, SG_ERR_USAGE, "failed to read model: no .xml path given");
    if (model == NULL)
        return sg_fail(r.err, SG_ERR_USAGE, "failed to read model '%s': no place for the result", xml_path);
    sg_status st = read_all(&r, weights_path, model);
    sg_graph_free(&r.g);
    return st;
}

/*
 * OpenVINO IR v10 and v11 models: the reader (sg_model_load), and the
 * model as a graph (sg_openvino_read_graph). The only file that includes
 * libxml2.
 *
 * The reader parses the .xml into a tree, checks every layer id, port and
 * edge and every Const's place in the weights, then decodes the whole
 * model into a graph (openvino_graph.c) and infers its shapes, checking
 * every output port's type and shape against what its layer makes (a
 * dynamic dimension a symbol of the model). Then its slice layers are
 * lowered from the graph (lower.c) with this format's words for what an
 * input lacks (naming layers, ports and element types as the file writes
 * them) and the elements of its Consts. The weights file is opened once
 * and only the bytes of the Consts a slice reads and of small ones (for
 * inference) are read. Anything malformed fails the whole model with
 * SG_ERR_IO, "failed to read model '<file>': <rule> (<values>)"; a
 * well-formed slice that slicegen cannot describe is listed with a
 * one-line skip reason instead of a spec. docs/openvino-ir.md lists the
 * rules.
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
#include "lower.h"
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
    void *raw;         /* the bytes of a small one, for shape inference */
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

/* Reads attribute `name` of n as a count; `where` says whose it is. */
static sg_status get_count(reader *r, xmlNode *n, const char *name, const char *where, int64_t *value)
{
    const char *text = attr(r, n, name);
    char shown[SHOW_BUF], message[256];
    sg_ir_count st = sg_ir_parse_count(text, value);
    if (st == SG_IR_COUNT_OK)
        return SG_OK;
    sg_ir_count_message(st, where, name, show(text, shown), message, sizeof message);
    return bad(r, "%s", message);
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
        bool lo_ok = buf[0] == '\0' || sg_ir_parse_count(buf, &ignored) == SG_IR_COUNT_OK;
        bool hi_ok = dots[2] == '\0' || sg_ir_parse_count(dots + 2, &ignored) == SG_IR_COUNT_OK;
        return lo_ok && hi_ok ? DIM_DYNAMIC : DIM_BAD;
    }
    return sg_ir_parse_count(buf, value) == SG_IR_COUNT_OK ? DIM_STATIC : DIM_BAD;
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
            if (t >= sizeof item ||
                (memcpy(item, p, t), item[t] = '\0', sg_ir_parse_count(item, &d) != SG_IR_COUNT_OK))
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
    if (version == NULL || strncmp(version, "opset", 5) != 0 ||
        sg_ir_parse_count(version + 5, &n) != SG_IR_COUNT_OK)
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
    *out = (sg_ir_layer){
        .name = l->name, .type = l->type, .id = l->id, .version = opset_number(attr(r, l->node, "version"))};
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

/* The model as a graph (r->g), every tensor's type and shape inferred. */
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
    if (a.layers == NULL || a.attrs == NULL || a.sources == NULL || a.ports == NULL || a.dims == NULL) {
        st = nomem(r);
        goto done;
    }
    for (size_t i = 0; i < r->nlayers; i++) {
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

/* ---- the format of the lowering (lower.h) ------------------------------------ */

static const char *lower_show(const char *text, char buf[SG_LOWER_SHOW])
{
    return show(text, buf);
}

/* "layer '<name>' id <id>". */
static const char *lower_who(void *ctx, const sg_graph *g, const sg_gnode *n, char buf[SG_LOWER_WHO])
{
    char name[SHOW_BUF];
    (void)ctx, (void)g;
    snprintf(buf, SG_LOWER_WHO, "layer '%s' id %lld", show(n->name, name), (long long)n->id);
    return buf;
}

/* The element type of the output port `src` reads: its precision, else the
 * producer's <data element_type> (a Parameter's); NULL when neither. */
static const char *port_type(reader *r, const source *src)
{
    const char *type = attr(r, src->port, "precision");
    return type ? type : attr(r, child(r->layers[src->layer].node, "data"), "element_type");
}

static sg_status lower_say(void *ctx, const sg_graph *g, const sg_lower_fact *f, char *reason, size_t size,
                           sg_error *err)
{
    reader *r = ctx;
    const layer *l = &r->layers[f->node->file_index];
    const source *src = f->pos < l->nin && l->src[f->pos].layer != NONE ? &l->src[f->pos] : NULL;
    const layer *c = src ? &r->layers[src->layer] : NULL;
    const char *role = f->role, *type = src ? port_type(r, src) : NULL, *dynamic_text = NULL;
    char whom[WHO_BUF], cwho[WHO_BUF], shown[SHOW_BUF], shape[SHOW_BUF];
    size_t pos = f->pos, rank = 0, dynamic = NONE;
    long long port = src ? (long long)src->port_id : 0;
    int64_t first = 0;
    (void)g, (void)err;
    who(l, whom);
    if (c != NULL) {
        who(c, cwho);
        if (port_dims(r, c, src->port, src->port_id, &first, 1, &rank, &dynamic, &dynamic_text) != SG_OK)
            return r->err->status;
    }
    switch (f->fault) {
    case SG_LF_REQUIRED:
    case SG_LF_UNDEFINED:
        return bad(r, "a required input is not connected (%s, input %zu (%s))", whom, pos, role);
    case SG_LF_TOO_MANY:
        return bad(r, "too many inputs (%s has %lld input ports; %s takes at most %lld)", whom,
                   (long long)f->a, l->type, (long long)f->b);
    case SG_LF_NO_OUTPUT:
        return bad(r, "a %s needs an output port (%s has none)", l->type, whom);
    case SG_LF_NO_VERSION:
        snprintf(reason, size, "%s of version '%s' is not read (expected opsetN)", l->type,
                 show(attr(r, l->node, "version"), shown));
        return SG_OK;
    case SG_LF_DATA_UNKNOWN:
    case SG_LF_DATA_TYPE:
    case SG_LF_DATA_RANK:
        if (rank > SG_MAX_RANK)
            snprintf(reason, size, "the data input has rank %zu, more than %d (from %s output port %lld)",
                     rank, SG_MAX_RANK, cwho, port);
        else if (type == NULL && f->fault == SG_LF_DATA_UNKNOWN)
            return bad(r,
                       "the data input has no element type (%s, output port %lld: no attribute precision, no "
                       "<data element_type> and none inferred)",
                       cwho, port);
        else if (type == NULL)
            snprintf(reason, size, "the data input has an element type slicegen lacks (from %s)", cwho);
        else
            snprintf(reason, size, "the data input has unsupported element type '%s' (from %s)",
                     show(type, shown), cwho);
        return SG_OK;
    case SG_LF_NOT_CONSTANT:
        snprintf(reason, size,
                 "input %zu (%s) is not a Const: it comes from %s (type %s), and %s must be constant", pos,
                 role, cwho, show(c->type, shown), role);
        return SG_OK;
    case SG_LF_CONST_TYPE:
        if (f->how == SG_IN_FILL)
            snprintf(reason, size, "input %zu (%s) is a Const of element type '%s', not the data's %s (%s)",
                     pos, role, show(c->etype, shown), sg_dtype_name((sg_dtype)f->data_type), cwho);
        else
            snprintf(reason, size, "input %zu (%s) is a Const of element type '%s', not i32 or i64 (%s)", pos,
                     role, show(c->etype, shown), cwho);
        return SG_OK;
    case SG_LF_CONST_SHAPE:
        show(c->shape, shape);
        if (strcmp(c->type, "Const") != 0) /* shape arithmetic of another shape */
            snprintf(reason, size,
                     "input %zu (%s) is not a Const: it comes from %s (type %s), and %s must be constant",
                     pos, role, cwho, show(c->type, shown), role);
        else if (f->how == SG_IN_FILL)
            return bad(r, "a pad_value input must be a scalar (%s, input %zu (%s) is %s with shape '%s')",
                       whom, pos, role, cwho, shape);
        else if (f->how == SG_IN_AXIS)
            return bad(
                r,
                "an axis input must be a scalar or hold one element (%s, input %zu (%s) is %s with shape "
                "'%s')",
                whom, pos, role, cwho, shape);
        else
            return bad(r, "an index input must be 1-D (%s, input %zu (%s) is %s with shape '%s')", whom, pos,
                       role, cwho, shape);
        return SG_OK;
    case SG_LF_CONST_LONG:
    case SG_LF_RUNTIME_MANY: /* the value table refuses them */
        return SG_OK;
    case SG_LF_RUNTIME_RANK:
        snprintf(reason, size,
                 "input %zu (%s) is not a Const and not 1-D (rank %zu, from %s output port %lld)", pos, role,
                 rank, cwho, port);
        return SG_OK;
    case SG_LF_RUNTIME_LENGTH:
        snprintf(reason, size,
                 "input %zu (%s) is not a Const and its length is dynamic ('%s', from %s output port %lld)",
                 pos, role, show(dynamic_text ? dynamic_text : "?", shown), cwho, port);
        return SG_OK;
    case SG_LF_RUNTIME_TYPE:
        if (type == NULL)
            snprintf(reason, size,
                     "input %zu (%s) is not a Const and has no element type (from %s output port %lld: no "
                     "attribute precision and no <data element_type>)",
                     pos, role, cwho, port);
        else
            snprintf(
                reason, size,
                "input %zu (%s) is not a Const and has element type '%s', not i32 or i64 (from %s output "
                "port %lld)",
                pos, role, show(type, shown), cwho, port);
        return SG_OK;
    case SG_LF_RUNTIME_TABLE:
        snprintf(
            reason, size,
            "input %zu (%s) is not a Const and its %lld elements are too many runtime values (%s; from %s "
            "output port %lld)",
            pos, role, (long long)f->a, f->text, cwho, port);
        return SG_OK;
    }
    return SG_OK;
}

/* The elements of a Const's tensor t: its bytes read for shape inference,
 * else from the weights. */
static sg_status lower_constant(void *ctx, const sg_graph *g, int32_t t, sg_scalar **values, sg_error *err)
{
    reader *r = ctx;
    const sg_gtensor *x = &g->tensors[t];
    const layer *c = &r->layers[g->nodes[x->producer].file_index];
    size_t esize = sg_dtype_size((sg_dtype)x->type), count = (size_t)c->count;
    uint8_t *bytes = malloc(c->size > 0 ? (size_t)c->size : 1);
    (void)err;
    *values = malloc(count ? count * sizeof **values : 1);
    if (bytes == NULL || *values == NULL) {
        free(bytes);
        return nomem(r);
    }
    sg_status st = const_bytes(r, c, bytes, (size_t)c->size);
    for (size_t i = 0; st == SG_OK && i < count; i++) {
        uint64_t u = 0;
        for (size_t b = 0; b < esize; b++)
            u |= (uint64_t)bytes[i * esize + b] << (8 * b);
        (*values)[i] = sg_scalar_from_bits((sg_dtype)x->type, u);
    }
    free(bytes);
    if (st != SG_OK) {
        free(*values);
        *values = NULL;
    }
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

/* The model's layers (lower.c), with this reader's words and Consts. */
static sg_status read_model(reader *r, sg_model **model)
{
    size_t len = strlen(r->path) + 40;
    char *what = malloc(len);
    if (what == NULL)
        return nomem(r);
    snprintf(what, len, "failed to read model '%s'", r->path);
    sg_lower_format f = {
        .ctx = r,
        .what = what,
        .show = lower_show,
        .who = lower_who,
        .say = lower_say,
        .constant = lower_constant,
    };
    sg_status st = sg_model_from_graph(&r->g, &f, model, r->err);
    free(what);
    return st;
}

/* Frees the reader but its graph; the graph's constants no longer point
 * at their bytes. */
static void reader_free(reader *r)
{
    for (size_t i = 0; i < r->nlayers; i++) {
        free(r->layers[i].in);
        free(r->layers[i].out);
        free(r->layers[i].src);
        free(r->layers[i].dims);
        free(r->layers[i].raw);
    }
    for (size_t i = 0; i < r->g.ntensors; i++)
        r->g.tensors[i].raw = NULL;
    free(r->layers);
    free(r->by_id);
    free(r->order);
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

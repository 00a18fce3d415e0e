/* See model_writer.h. */
#define _POSIX_C_SOURCE 200809L

#include "model_writer.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing byte buffer ---------------------------------------------------- */

void put(buf *o, const void *bytes, size_t n)
{
    if (n == 0)
        return;
    if (o->len + n > o->cap) {
        o->cap = 2 * (o->len + n) + 256;
        o->b = realloc(o->b, o->cap);
        if (o->b == NULL) {
            printf("model writer: out of memory\n");
            exit(1);
        }
    }
    memcpy(o->b + o->len, bytes, n);
    o->len += n;
}

void putf(buf *o, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put(o, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

void write_file(const char *dir, const char *name, const buf *o, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (o->len > 0 && fwrite(o->b, 1, o->len, f) != o->len) || fclose(f) != 0) {
        printf("model writer: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* ---- OpenVINO IR --------------------------------------------------------------- */

static void ir_dims(buf *o, const char *dims)
{
    for (const char *p = dims; *p != '\0';) {
        size_t n = strcspn(p, ",");
        putf(o, "<dim>%.*s</dim>", (int)n, p);
        p += n + (p[n] == ',');
    }
}

void ir_layer(ir *m, int id, const char *name, const char *type, const char *version, const char *data,
              const char *const *ins, const char *const *outs, const char *precision)
{
    int port = 0;
    putf(&m->layers, "<layer id=\"%d\" name=\"%s\" type=\"%s\" version=\"%s\">", id, name, type, version);
    if (data != NULL)
        putf(&m->layers, "<data %s/>", data);
    if (ins != NULL && ins[0] != NULL) {
        putf(&m->layers, "<input>");
        for (; ins[port] != NULL; port++) {
            putf(&m->layers, "<port id=\"%d\">", port);
            ir_dims(&m->layers, ins[port]);
            putf(&m->layers, "</port>");
        }
        putf(&m->layers, "</input>");
    }
    if (outs != NULL && outs[0] != NULL) {
        putf(&m->layers, "<output>");
        for (size_t k = 0; outs[k] != NULL; k++) {
            putf(&m->layers, "<port id=\"%zu\" precision=\"%s\">", port + k, precision);
            ir_dims(&m->layers, outs[k]);
            putf(&m->layers, "</port>");
        }
        putf(&m->layers, "</output>");
    }
    putf(&m->layers, "</layer>\n");
}

void ir_parameter(ir *m, int id, const char *name, const char *dims, const char *precision)
{
    char data[160], type[16];
    /* FP32 -> f32, BF16 -> bf16, I16 -> i16, BOOL -> boolean */
    size_t n = 0;
    for (const char *p = precision; *p != '\0' && n + 1 < sizeof type; p++)
        if (!(p == precision + 1 && precision[0] == 'F' && *p == 'P'))
            type[n++] = (char)tolower((unsigned char)*p);
    type[n] = '\0';
    if (strcmp(type, "bool") == 0)
        snprintf(type, sizeof type, "boolean");
    snprintf(data, sizeof data, "shape=\"%s\" element_type=\"%s\"", dims, type);
    ir_layer(m, id, name, "Parameter", "opset1", data, NULL, (const char *[]){dims, NULL}, precision);
}

void ir_const(ir *m, int id, const int64_t *values, size_t n, bool scalar)
{
    char data[160], name[32], dims[24];
    dims[0] = '\0';
    if (!scalar)
        snprintf(dims, sizeof dims, "%zu", n);
    snprintf(name, sizeof name, "const%d", id);
    snprintf(data, sizeof data, "element_type=\"i64\" shape=\"%s\" offset=\"%zu\" size=\"%zu\"", dims,
             m->bin.len, n * 8);
    for (size_t i = 0; i < n; i++) {
        uint8_t le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (uint8_t)((uint64_t)values[i] >> (8 * b));
        put(&m->bin, le, 8);
    }
    ir_layer(m, id, name, "Const", "opset1", data, NULL, (const char *[]){dims, NULL}, "I64");
}

void ir_edge(ir *m, int from, int from_port, int to, int to_port)
{
    putf(&m->edges, "<edge from-layer=\"%d\" from-port=\"%d\" to-layer=\"%d\" to-port=\"%d\"/>\n", from,
         from_port, to, to_port);
}

void ir_result(ir *m, int id, const char *dims, int from, int from_port)
{
    char name[32];
    snprintf(name, sizeof name, "result%d", id);
    ir_layer(m, id, name, "Result", "opset1", NULL, (const char *[]){dims, NULL}, NULL, NULL);
    ir_edge(m, from, from_port, id, 0);
}

void ir_write(ir *m, const char *dir, const char *name, char *xml_path, char *bin_path, size_t size)
{
    char file[256];
    buf xml = {0};
    putf(&xml, "<?xml version=\"1.0\"?>\n<net name=\"%s\" version=\"11\">\n<layers>\n", name);
    put(&xml, m->layers.b, m->layers.len);
    putf(&xml, "</layers>\n<edges>\n");
    put(&xml, m->edges.b, m->edges.len);
    putf(&xml, "</edges>\n</net>\n");
    snprintf(file, sizeof file, "%s.xml", name);
    write_file(dir, file, &xml, xml_path, size);
    snprintf(file, sizeof file, "%s.bin", name);
    write_file(dir, file, &m->bin, bin_path, size);
    free(xml.b);
    free(m->layers.b);
    free(m->edges.b);
    free(m->bin.b);
    *m = (ir){0};
}

/* ---- ONNX ---------------------------------------------------------------------- */

void pb_varint(buf *o, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
    put(o, b, n);
}

void pb_int(buf *o, unsigned field, int64_t v)
{
    pb_varint(o, (uint64_t)field << 3);
    pb_varint(o, (uint64_t)v);
}

void pb_bytes(buf *o, unsigned field, const void *bytes, size_t n)
{
    pb_varint(o, (uint64_t)field << 3 | 2);
    pb_varint(o, n);
    put(o, bytes, n);
}

void pb_str(buf *o, unsigned field, const char *text)
{
    pb_bytes(o, field, text, strlen(text));
}

void pb_msg(buf *o, unsigned field, buf *sub)
{
    pb_bytes(o, field, sub->b, sub->len);
    free(sub->b);
    *sub = (buf){0};
}

void onnx_value(onnx *m, unsigned field, const char *name, int elem_type, const int64_t *dims, size_t rank)
{
    buf shape = {0}, tensor = {0}, type = {0}, value = {0};
    for (size_t d = 0; d < rank; d++) {
        buf dim = {0};
        pb_int(&dim, 1, dims[d]);
        pb_msg(&shape, 1, &dim);
    }
    pb_int(&tensor, 1, elem_type);
    pb_msg(&tensor, 2, &shape);
    pb_msg(&type, 1, &tensor);
    pb_str(&value, 1, name);
    pb_msg(&value, 2, &type);
    pb_msg(&m->graph, field, &value);
}

/* An INT64 initializer of n values, 1-D or (scalar) rank 0. */
static void initializer(onnx *m, const char *name, const int64_t *values, size_t n, bool scalar)
{
    buf t = {0}, packed = {0};
    if (!scalar)
        pb_int(&t, 1, (int64_t)n);
    pb_int(&t, 2, ONNX_INT64);
    for (size_t i = 0; i < n; i++)
        pb_varint(&packed, (uint64_t)values[i]);
    pb_bytes(&t, 7, packed.b, packed.len);
    free(packed.b);
    pb_str(&t, 8, name);
    pb_msg(&m->graph, 5, &t);
}

void onnx_ints(onnx *m, const char *name, const int64_t *values, size_t n)
{
    initializer(m, name, values, n, false);
}

void onnx_int_scalar(onnx *m, const char *name, int64_t value)
{
    initializer(m, name, &value, 1, true);
}

static void attribute(buf *node, const onnx_attr *attr)
{
    buf a = {0};
    pb_str(&a, 1, attr->name);
    pb_int(&a, 20, attr->type);
    if (attr->type == ONNX_ATTR_INT) {
        pb_int(&a, 3, attr->value);
    } else if (attr->type == ONNX_ATTR_FLOAT) {
        uint32_t bits;
        uint8_t le[4];
        memcpy(&bits, &attr->real, 4);
        for (int b = 0; b < 4; b++)
            le[b] = (uint8_t)(bits >> (8 * b));
        pb_varint(&a, 2 << 3 | 5);
        put(&a, le, 4);
    } else if (attr->type == ONNX_ATTR_STRING) {
        pb_str(&a, 4, attr->text);
    } else if (attr->body != NULL) {
        buf body = {0};
        put(&body, attr->body->graph.b, attr->body->graph.len);
        pb_str(&body, 2, attr->name);
        pb_msg(&a, 6, &body);
    } else {
        pb_bytes(&a, 6, "", 0);
    }
    pb_msg(node, 5, &a);
}

int64_t onnx_node(onnx *m, const char *name, const char *type, const char *const *inputs,
                  const char *const *outputs, onnx_attr attr)
{
    buf node = {0};
    for (size_t i = 0; inputs[i] != NULL; i++)
        pb_str(&node, 1, inputs[i]);
    for (size_t i = 0; outputs[i] != NULL; i++)
        pb_str(&node, 2, outputs[i]);
    if (name[0] != '\0')
        pb_str(&node, 3, name);
    pb_str(&node, 4, type);
    if (attr.name != NULL)
        attribute(&node, &attr);
    pb_msg(&m->graph, 1, &node);
    return m->nodes++;
}

void onnx_write(onnx *m, const char *dir, const char *name, int64_t opset, char *path, size_t size)
{
    char file[256];
    buf model = {0}, op = {0};
    pb_int(&model, 1, 7);
    pb_str(&op, 1, "");
    pb_int(&op, 2, opset);
    pb_msg(&model, 8, &op);
    pb_str(&m->graph, 2, name);
    pb_msg(&model, 7, &m->graph);
    snprintf(file, sizeof file, "%s.onnx", name);
    write_file(dir, file, &model, path, size);
    free(model.b);
    *m = (onnx){0};
}

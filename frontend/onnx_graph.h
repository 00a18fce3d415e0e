/*
 * The ONNX reader's two files (onnx.c, onnx_graph.c): what the graph
 * decoder takes from the checked model. Includes protobuf-c's code: only
 * those two files include it.
 */
#ifndef SG_ONNX_GRAPH_H
#define SG_ONNX_GRAPH_H

#include "graph.h"
#include "onnx.pb-c.h"

/* Subgraphs (an If's branches, a Loop's body...) nest at most this deep;
 * the wire check of onnx.c refuses a file that nests them deeper, before
 * protobuf-c unpacks it (each level is three messages: a graph, a node, an
 * attribute). */
enum { SG_ONNX_SUBGRAPH_DEPTH = 32 };

/* Decodes a model that onnx.c unpacked and checked (the default domain's
 * opset `opset`) into g (zeroed), every subgraph included, and runs shape
 * inference over it (sg_graph_infer). SG_ERR_IO with err's message saying
 * where ("node 'x' (Slice): ..."), without the model's name. */
sg_status sg_onnx_decode_graph(const Onnx__ModelProto *model, int64_t opset, sg_graph *g, sg_error *err);

#endif

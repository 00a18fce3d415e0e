#!/usr/bin/python3
"""Shape inference (frontend/graph_infer.c) against ONNX Runtime.

    infer_vs_ort.py --dump GRAPH_DUMP --ort ONNXRUNTIME_NODE_DIR --work DIR [-v] [-k PATTERN]

Writes one- and few-node ONNX models per operator with a rule into DIR
(static dimensions and symbolic ones, dim_params N, S, H, W), at the opsets
where the operator differs (attributes that became inputs, new attributes),
runs each in ONNX Runtime (tests/graph/ort_shapes.js, one node process for
all of them) on random inputs at two sizes of every symbol, and compares
what `graph_dump MODEL N=.. -- N=..` prints for every graph output with what
ONNX Runtime gives:
  - the element type;
  - the rank and every dimension, slicegen's evaluated for the same sizes (a
    dimension left a symbol is a failure, except where the case says the
    size depends on the data: NonZero, Unique...);
  - the values, where slicegen knows them (small integer tensors: shape
    arithmetic), and cases that must know them (a Slice of a Shape) fail
    when it does not;
  - the shape onnx.shape_inference.infer_shapes(data_prop=True) gives where
    it knows every dimension: a difference fails unless ONNX Runtime sides
    with slicegen (then it is counted as a note: onnx's inference departs
    from ONNX Runtime's kernels there, e.g. MaxPool's ceil mode).
Models ONNX Runtime refuses (shapes that do not broadcast, a reshape that
does not add up...) must leave slicegen's outputs of unknown shape, or make
graph_dump fail with one line; a stated shape the inference contradicts
must make it fail.

Prints one line per failure and "graph-ort: N passed, M failed"; exit 1 on
a failure, 77 (skipped) without onnx, numpy, node or onnxruntime-node.
-k keeps the cases whose name contains PATTERN; -v lists every case.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

try:
    import numpy as np
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h
    from onnx import numpy_helper as nh
except ImportError as e:
    print(f"graph-ort skipped: {e}")
    sys.exit(77)

I64_MAX, I64_MIN = 2**63 - 1, -2**63
# The two sizes of every symbol.
SIZES = ({'N': 2, 'S': 3, 'H': 6, 'W': 5}, {'N': 3, 'S': 5, 'H': 9, 'W': 7})
NP = {T.FLOAT: np.float32, T.DOUBLE: np.float64, T.INT64: np.int64, T.INT32: np.int32, T.INT8: np.int8,
      T.UINT8: np.uint8, T.BOOL: np.bool_, T.INT16: np.int16, T.UINT16: np.uint16, T.UINT32: np.uint32,
      T.UINT64: np.uint64}
ORT_TYPE = {T.FLOAT: 'float32', T.DOUBLE: 'float64', T.INT64: 'int64', T.INT32: 'int32', T.INT8: 'int8',
            T.UINT8: 'uint8', T.BOOL: 'bool', T.INT16: 'int16', T.UINT16: 'uint16', T.UINT32: 'uint32',
            T.UINT64: 'uint64'}
# ONNX Runtime's type names as graph_dump prints them.
SG_TYPE = {'float32': 'f32', 'float64': 'f64', 'int64': 'i64', 'int32': 'i32', 'int8': 'i8', 'uint8': 'u8',
           'bool': 'bool', 'int16': 'i16', 'uint16': 'u16', 'uint32': 'u32', 'uint64': 'u64',
           'float16': 'f16'}


class Case:
    def __init__(self, name, opset, nodes, inputs, outputs, inits, data, error, free, need_values):
        self.name, self.opset, self.error = name, opset, error
        self.inputs, self.outputs = inputs, outputs
        self.data, self.free, self.need_values = data or {}, set(free), set(need_values)
        self.file = None
        graph = h.make_graph(nodes, name, [h.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                             [h.make_empty_tensor_value_info(o) for o in outputs],
                             [nh.from_array(np.asarray(v), k) for k, v in (inits or {}).items()])
        self.model = h.make_model(graph, opset_imports=[h.make_opsetid('', opset)])
        self.model.ir_version = 8 if opset <= 17 else 9


CASES = []


def case(name, opset, nodes, inputs, outputs, inits=None, data=None, error=False, free=(), values=()):
    """A model: its nodes, graph inputs (name, type, dims: ints and symbol
    names), the graph outputs to compare, initializers (name -> array),
    inputs' data where random data would not do (name -> f(sizes, rng)),
    whether ONNX Runtime refuses it (True: slicegen must refuse it or leave
    the outputs unknown; 'refuse': slicegen must refuse it; 'unknown':
    ONNX Runtime runs it, slicegen must leave the outputs unknown), the outputs
    whose sizes depend on the data, and the outputs whose values slicegen
    must know."""
    if not isinstance(nodes, list):
        nodes = [nodes]
    CASES.append(Case(f'{name}_o{opset}', opset, nodes, inputs, outputs, inits, data, error, free, values))


def N(op, ins, outs, **attrs):
    return h.make_node(op, ins, outs if isinstance(outs, list) else [outs], **attrs)


def i64(*v):
    return np.array(v, dtype=np.int64)


def f32(*v):
    return np.array(v, dtype=np.float32)


X = [('x', T.FLOAT, ['N', 3, 'H', 'W'])]  # the usual image-like input


def unary_cases():
    xs = [('x', T.FLOAT, ['N', 3, 'H'])]
    for op in ['Relu', 'Sigmoid', 'Tanh', 'Exp', 'Log', 'Sqrt', 'Neg', 'Abs', 'Erf', 'Softplus', 'Floor',
               'Ceil', 'Round', 'Reciprocal', 'Sin', 'Cos', 'Sign', 'Softsign', 'Identity', 'Elu', 'Selu',
               'LeakyRelu', 'HardSigmoid', 'ThresholdedRelu', 'Celu', 'Shrink', 'Asin', 'Atan', 'Tan', 'Cosh']:
        case(op, 13, N(op, ['x'], 'y'), xs, ['y'])
    case('HardSwish', 14, N('HardSwish', ['x'], 'y'), xs, ['y'])
    case('Mish', 18, N('Mish', ['x'], 'y'), xs, ['y'])
    case('Gelu', 20, N('Gelu', ['x'], 'y'), xs, ['y'])
    case('IsNaN', 13, N('IsNaN', ['x'], 'y'), xs, ['y'])
    case('IsInf', 10, N('IsInf', ['x'], 'y'), xs, ['y'])
    case('Not', 13, N('Not', ['x'], 'y'), [('x', T.BOOL, ['N', 'S'])], ['y'])
    case('Softmax', 11, N('Softmax', ['x'], 'y', axis=1), xs, ['y'])
    case('Softmax', 13, N('Softmax', ['x'], 'y', axis=-1), xs, ['y'])
    case('LogSoftmax', 13, N('LogSoftmax', ['x'], 'y'), xs, ['y'])
    case('Hardmax', 13, N('Hardmax', ['x'], 'y'), xs, ['y'])
    case('Clip', 11, N('Clip', ['x', 'lo', 'hi'], 'y'), xs, ['y'], {'lo': np.float32(0), 'hi': np.float32(6)})
    case('Clip', 6, N('Clip', ['x'], 'y', min=0.0, max=6.0), xs, ['y'])
    case('Clip', 13, N('Clip', ['x', '', 'hi'], 'y'), xs, ['y'], {'hi': np.float32(6)})
    case('CumSum', 11, N('CumSum', ['x', 'a'], 'y'), xs, ['y'], {'a': np.int64(1)})
    case('Trilu', 14, N('Trilu', ['x', 'k'], 'y', upper=0), xs, ['y'], {'k': np.int64(1)})
    case('Dropout', 7, N('Dropout', ['x'], ['y', 'm'], ratio=0.3), xs, ['y', 'm'])
    case('Dropout', 12, N('Dropout', ['x'], ['y', 'm']), xs, ['y', 'm'])
    case('Dropout', 13, N('Dropout', ['x', 'r'], ['y', 'm']), xs, ['y', 'm'], {'r': np.float32(0.5)})
    for to, name in [(T.INT64, 'i64'), (T.BOOL, 'bool'), (T.DOUBLE, 'f64'), (T.INT32, 'i32'), (T.UINT8, 'u8')]:
        case(f'Cast_{name}', 13, N('Cast', ['x'], 'y', to=to), xs, ['y'])
    case('CastLike', 15, N('CastLike', ['x', 't'], 'y'), xs, ['y'], {'t': i64(1)})
    case('InstanceNormalization', 6, N('InstanceNormalization', ['x', 's', 'b'], 'y'), X, ['y'],
         {'s': f32(1, 2, 3), 'b': f32(0, 0, 0)})
    case('LRN', 13, N('LRN', ['x'], 'y', size=3), X, ['y'])
    case('MeanVarianceNormalization', 13, N('MeanVarianceNormalization', ['x'], 'y'), X, ['y'])
    case('LpNormalization', 1, N('LpNormalization', ['x'], 'y', axis=1), X, ['y'])
    case('PRelu', 16, N('PRelu', ['x', 's'], 'y'), X, ['y'], {'s': np.ones((3, 1, 1), np.float32)})
    case('BatchNormalization', 15, N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], 'y'), X, ['y'],
         {k: f32(1, 2, 3) for k in 'sbmv'})
    case('BatchNormalization', 9, N('BatchNormalization', ['x', 's', 'b', 'm', 'v'], 'y'), X, ['y'],
         {k: f32(1, 2, 3) for k in 'sbmv'})
    case('LayerNormalization', 17, N('LayerNormalization', ['x', 's', 'b'], ['y', 'mu', 'r']),
         [('x', T.FLOAT, ['N', 'S', 4])], ['y', 'mu', 'r'], {'s': f32(1, 2, 3, 4), 'b': f32(0, 0, 0, 0)})
    case('LayerNormalization_axis1', 17, N('LayerNormalization', ['x', 's', 'b'], ['y', 'mu', 'r'], axis=1),
         [('x', T.FLOAT, ['N', 2, 4])], ['y', 'mu', 'r'], {'s': np.ones((2, 4), np.float32),
                                                          'b': np.zeros((2, 4), np.float32)})
    case('GroupNormalization', 18, N('GroupNormalization', ['x', 's', 'b'], 'y', num_groups=3),
         X, ['y'], {'s': f32(1, 1, 1), 'b': f32(0, 0, 0)})


def binary_cases():
    for op in ['Add', 'Sub', 'Mul', 'Div', 'Pow']:
        case(op, 13, N(op, ['a', 'b'], 'y'), [('a', T.FLOAT, ['N', 1, 'W']), ('b', T.FLOAT, [3, 1])], ['y'])
    for op in ['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual']:
        case(op, 16, N(op, ['a', 'b'], 'y'), [('a', T.FLOAT, ['S', 1]), ('b', T.FLOAT, ['N'])], ['y'])
    for op in ['And', 'Or', 'Xor']:
        case(op, 7, N(op, ['a', 'b'], 'y'), [('a', T.BOOL, [1, 'H']), ('b', T.BOOL, ['N', 1])], ['y'])
    case('Add_1d', 13, N('Add', ['a', 'b'], 'y'), [('a', T.FLOAT, ['N', 'S', 4]), ('b', T.FLOAT, [4])], ['y'])
    case('Add_scalar', 13, N('Add', ['a', 'b'], 'y'), [('a', T.FLOAT, []), ('b', T.FLOAT, ['N', 'S'])], ['y'])
    case('Add_same', 13, N('Add', ['a', 'b'], 'y'), [('a', T.FLOAT, ['N', 'S']), ('b', T.FLOAT, ['N', 'S'])],
         ['y'])
    case('Mul_sym', 13, N('Mul', ['a', 'b'], 'y'), [('a', T.FLOAT, ['N', 1]), ('b', T.FLOAT, [1, 'N'])], ['y'])
    case('Mod', 13, N('Mod', ['a', 'b'], 'y'), [('a', T.INT64, ['N', 4]), ('b', T.INT64, [4])], ['y'],
         data={'b': lambda s, r: i64(1, 2, 3, 5)})
    case('Mod_fmod', 13, N('Mod', ['a', 'b'], 'y', fmod=1), [('a', T.FLOAT, ['N', 4]), ('b', T.FLOAT, [1])],
         ['y'])
    for op in ['Max', 'Min', 'Sum', 'Mean']:
        case(op, 13, N(op, ['a', 'b', 'c'], 'y'),
             [('a', T.FLOAT, ['N', 1, 1]), ('b', T.FLOAT, [1, 'S', 1]), ('c', T.FLOAT, ['W'])], ['y'])
    case('Max_one', 13, N('Max', ['a'], 'y'), [('a', T.FLOAT, ['N', 2])], ['y'])
    case('Where', 16, N('Where', ['c', 'a', 'b'], 'y'),
         [('c', T.BOOL, ['N', 1, 1]), ('a', T.FLOAT, ['S', 1]), ('b', T.FLOAT, ['W'])], ['y'])
    case('BitShift', 11, N('BitShift', ['a', 'b'], 'y', direction='LEFT'),
         [('a', T.UINT32, ['N', 3]), ('b', T.UINT32, [3])], ['y'])
    case('BitwiseAnd', 18, N('BitwiseAnd', ['a', 'b'], 'y'),
         [('a', T.INT32, ['N', 3]), ('b', T.INT32, [1])], ['y'])
    case('Add_error', 13, N('Add', ['a', 'b'], 'y'), [('a', T.FLOAT, [2, 3]), ('b', T.FLOAT, [4, 3])], ['y'],
         error=True)


def conv_cases():
    w = np.ones((8, 3, 3, 3), np.float32)
    for attrs, tag in [({}, 'plain'), ({'pads': [1, 1, 1, 1]}, 'pads'), ({'strides': [2, 2]}, 'strides'),
                       ({'pads': [1, 0, 2, 1], 'strides': [2, 3]}, 'mixed'),
                       ({'dilations': [2, 2], 'pads': [2, 2, 2, 2]}, 'dilated'),
                       ({'auto_pad': 'SAME_UPPER', 'strides': [2, 2]}, 'same_upper'),
                       ({'auto_pad': 'SAME_LOWER', 'strides': [3, 2]}, 'same_lower'),
                       ({'auto_pad': 'VALID', 'strides': [2, 2]}, 'valid'),
                       ({'kernel_shape': [3, 3], 'pads': [1, 1, 1, 1]}, 'kernel_shape')]:
        case(f'Conv_{tag}', 11, N('Conv', ['x', 'w'], 'y', **attrs), X, ['y'], {'w': w})
    case('Conv_group', 11, N('Conv', ['x', 'w', 'b'], 'y', group=3, pads=[1, 1, 1, 1]), X, ['y'],
         {'w': np.ones((6, 1, 3, 3), np.float32), 'b': np.zeros(6, np.float32)})
    case('Conv_1d', 11, N('Conv', ['x', 'w'], 'y', strides=[2]), [('x', T.FLOAT, ['N', 2, 'S'])], ['y'],
         {'w': np.ones((4, 2, 1), np.float32)})
    case('Conv_3d', 11, N('Conv', ['x', 'w'], 'y', pads=[1, 0, 0, 1, 0, 0]),
         [('x', T.FLOAT, ['N', 1, 'S', 'H', 4])], ['y'], {'w': np.ones((2, 1, 2, 2, 2), np.float32)})
    case('Conv_static', 11, N('Conv', ['x', 'w'], 'y', strides=[2, 2], pads=[1, 1, 1, 1]),
         [('x', T.FLOAT, [1, 3, 11, 8])], ['y'], {'w': w})
    case('Conv_too_small', 11, N('Conv', ['x', 'w'], 'y'), [('x', T.FLOAT, [1, 3, 2, 8])], ['y'], {'w': w},
         error=True)
    wt = np.ones((3, 2, 3, 3), np.float32)
    for attrs, tag in [({}, 'plain'), ({'strides': [2, 2]}, 'strides'),
                       ({'strides': [2, 2], 'pads': [1, 1, 1, 1], 'output_padding': [1, 0]}, 'output_padding'),
                       ({'strides': [2, 2], 'auto_pad': 'SAME_UPPER'}, 'same_upper'),
                       ({'dilations': [2, 1], 'pads': [0, 1, 1, 0]}, 'dilated'),
                       ({'group': 3}, 'group')]:
        ww = np.ones((3, 1, 3, 3), np.float32) if tag == 'group' else wt
        case(f'ConvTranspose_{tag}', 11, N('ConvTranspose', ['x', 'w'], 'y', **attrs), X, ['y'], {'w': ww})
    for attrs, tag in [({'kernel_shape': [2, 2], 'strides': [2, 2]}, 'k2s2'),
                       ({'kernel_shape': [3, 3], 'strides': [2, 2], 'pads': [1, 1, 1, 1]}, 'k3s2p1'),
                       ({'kernel_shape': [3, 3], 'strides': [2, 2], 'ceil_mode': 1}, 'ceil'),
                       ({'kernel_shape': [2, 2], 'strides': [2, 2], 'pads': [0, 0, 1, 1], 'ceil_mode': 1},
                        'ceil_pads'),
                       ({'kernel_shape': [3, 3], 'auto_pad': 'SAME_UPPER', 'strides': [2, 2]}, 'same'),
                       ({'kernel_shape': [2, 2], 'auto_pad': 'VALID', 'strides': [2, 1]}, 'valid'),
                       ({'kernel_shape': [2, 2], 'dilations': [2, 2]}, 'dilated')]:
        case(f'MaxPool_{tag}', 12, N('MaxPool', ['x'], ['y', 'i'], **attrs), X, ['y', 'i'])
        if 'dilations' not in attrs:
            case(f'AveragePool_{tag}', 11, N('AveragePool', ['x'], 'y', **attrs), X, ['y'])
    case('MaxPool_ceil_static', 12, N('MaxPool', ['x'], 'y', kernel_shape=[2], strides=[2], pads=[0, 1],
                                     ceil_mode=1), [('x', T.FLOAT, [1, 1, 4])], ['y'])
    case('MaxPool_ceil_static5', 12, N('MaxPool', ['x'], 'y', kernel_shape=[2], strides=[2], pads=[0, 1],
                                      ceil_mode=1), [('x', T.FLOAT, [1, 1, 5])], ['y'])
    case('MaxPool', 8, N('MaxPool', ['x'], 'y', kernel_shape=[2, 2], strides=[2, 2]), X, ['y'])
    case('LpPool', 11, N('LpPool', ['x'], 'y', kernel_shape=[2, 2], strides=[1, 2]), X, ['y'])
    case('ConvTranspose_output_shape', 11, N('ConvTranspose', ['x', 'w'], 'y', strides=[2, 2], output_shape=[14, 12]),
         [('x', T.FLOAT, [1, 3, 6, 5])], ['y'], {'w': wt})
    case('ConvTranspose_output_shape_full', 11, N('ConvTranspose', ['x', 'w'], 'y', strides=[3, 2],
                                                  output_shape=[1, 2, 18, 11]),
         [('x', T.FLOAT, [1, 3, 6, 5])], ['y'], {'w': wt}, error=True)
    for op in ['GlobalAveragePool', 'GlobalMaxPool', 'GlobalLpPool']:
        case(op, 2, N(op, ['x'], 'y'), X, ['y'])
    case('MaxUnpool', 11, [N('MaxPool', ['x'], ['p', 'i'], kernel_shape=[2, 2], strides=[2, 2]),
                           N('MaxUnpool', ['p', 'i'], 'y', kernel_shape=[2, 2], strides=[2, 2])],
         [('x', T.FLOAT, ['N', 3, 6, 4])], ['y'])
    case('MaxUnpool_shape', 11, [N('MaxPool', ['x'], ['p', 'i'], kernel_shape=[2, 2], strides=[2, 2]),
                                 N('Shape', ['x'], 's'), N('MaxUnpool', ['p', 'i', 's'], 'y', kernel_shape=[2, 2],
                                                           strides=[2, 2])], X, ['y'])
    case('QLinearConv', 10, N('QLinearConv', ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz'], 'y', pads=[1, 1, 1, 1]),
         [('x', T.UINT8, ['N', 3, 'H', 'W'])], ['y'],
         {'xs': np.float32(0.1), 'xz': np.uint8(0), 'w': np.ones((4, 3, 3, 3), np.uint8), 'ws': np.float32(0.1),
          'wz': np.uint8(0), 'ys': np.float32(0.2), 'yz': np.uint8(0)})
    case('ConvInteger', 10, N('ConvInteger', ['x', 'w'], 'y'), [('x', T.UINT8, ['N', 3, 'H', 'W'])], ['y'],
         {'w': np.ones((4, 3, 2, 2), np.uint8)})


def product_cases():
    for a, b, tag in [(['N', 'S', 4], [4, 5], '3x2'), ([4], ['N', 4, 5], '1x3'), (['N', 'S', 4], [4], '3x1'),
                      ([2, 1, 'S', 4], [3, 4, 5], 'batch'), ([4], [4], '1x1'), (['N', 4], [4, 'S'], '2x2')]:
        case(f'MatMul_{tag}', 13, N('MatMul', ['a', 'b'], 'y'), [('a', T.FLOAT, a), ('b', T.FLOAT, b)], ['y'])
    case('MatMul_error', 13, N('MatMul', ['a', 'b'], 'y'), [('a', T.FLOAT, [2, 3]), ('b', T.FLOAT, [4, 5])],
         ['y'], error=True)
    for ta, tb in [(0, 0), (1, 0), (0, 1), (1, 1)]:
        a = ['N', 4] if not ta else [4, 'N']
        case(f'Gemm_{ta}{tb}', 13, N('Gemm', ['a', 'b', 'c'], 'y', transA=ta, transB=tb), [('a', T.FLOAT, a)],
             ['y'], {'b': np.ones((5, 4) if tb else (4, 5), np.float32), 'c': np.zeros(5, np.float32)})
    case('MatMulInteger', 10, N('MatMulInteger', ['a', 'b'], 'y'), [('a', T.UINT8, ['N', 'S', 4])], ['y'],
         {'b': np.ones((4, 3), np.uint8)})
    case('QLinearMatMul', 10, N('QLinearMatMul', ['a', 'as', 'az', 'b', 'bs', 'bz', 'ys', 'yz'], 'y'),
         [('a', T.UINT8, ['N', 4])], ['y'],
         {'as': np.float32(0.1), 'az': np.uint8(0), 'b': np.ones((4, 3), np.uint8), 'bs': np.float32(0.1),
          'bz': np.uint8(0), 'ys': np.float32(0.2), 'yz': np.uint8(0)})
    for eq, shapes in [('ij,jk->ik', [['N', 4], [4, 5]]), ('bij,bjk->bik', [['N', 'S', 4], ['N', 4, 2]]),
                       ('ij->ji', [['N', 'S']]), ('ii->i', [[3, 3]]), ('...ij,...jk', [['N', 2, 3], ['N', 3, 4]]),
                       ('ij,ij', [['N', 'S'], ['N', 'S']]), ('bhid,bhjd->bhij', [['N', 2, 'S', 4], ['N', 2, 3, 4]])]:
        ins = [(f'e{i}', T.FLOAT, s) for i, s in enumerate(shapes)]
        case(f'Einsum_{re.sub("[^a-z]", "", eq)}', 12, N('Einsum', [n for n, _, _ in ins], 'y', equation=eq), ins,
             ['y'])


def shape_cases():
    xs = [('x', T.FLOAT, ['N', 'S', 12])]
    # Reshape
    for tgt, tag in [(i64(0, 0, 3, 4), 'copy'), (i64(-1, 12), 'minus'), (i64(0, -1), 'minus_copy'),
                     (i64(-1), 'flat'), (i64(0, 0, -1, 2), 'split_last'), (i64(1, -1, 4), 'static_split')]:
        case(f'Reshape_{tag}', 13, N('Reshape', ['x', 't'], 'y'), xs, ['y'], {'t': tgt})
    case('Reshape_allowzero', 14, N('Reshape', ['x', 't'], 'y', allowzero=1), [('x', T.FLOAT, [2, 3])],
         ['y'], {'t': i64(0, -1)}, error=True)
    case('Reshape_allowzero_ok', 14, N('Reshape', ['x', 't'], 'y', allowzero=1), [('x', T.FLOAT, [2, 0, 4])],
         ['y'], {'t': i64(0, 4, 7)})
    case('Reshape_v1', 1, N('Reshape', ['x'], 'y', shape=[0, -1]), xs, ['y'])
    case('Reshape_error', 13, N('Reshape', ['x', 't'], 'y'), [('x', T.FLOAT, [2, 3])], ['y'], {'t': i64(4, -1)},
         error=True)
    # the transformer idiom: the target from the input's shape
    case('Reshape_shape_chain', 13, [
        N('Shape', ['x'], 's'), N('Gather', ['s', 'zero'], 'n', axis=0), N('Gather', ['s', 'one'], 'l', axis=0),
        N('Unsqueeze', ['n', 'ax0'], 'nu'), N('Unsqueeze', ['l', 'ax0'], 'lu'),
        N('Concat', ['nu', 'lu', 'heads', 'minus'], 't', axis=0), N('Reshape', ['x', 't'], 'y'),
        N('Transpose', ['y'], 'z', perm=[0, 2, 1, 3])], xs, ['s', 'n', 't', 'y', 'z'],
        {'zero': np.int64(0), 'one': np.int64(1), 'ax0': i64(0), 'heads': i64(3), 'minus': i64(-1)},
        values=['s', 'n', 't'])
    case('Reshape_shape_chain', 11, [
        N('Shape', ['x'], 's'), N('Gather', ['s', 'zero'], 'n', axis=0),
        N('Unsqueeze', ['n'], 'nu', axes=[0]), N('Concat', ['nu', 'minus'], 't', axis=0),
        N('Reshape', ['x', 't'], 'y')], xs, ['t', 'y'], {'zero': np.int64(0), 'minus': i64(-1)}, values=['t'])
    case('Reshape_prod', 13, [
        N('Shape', ['x'], 's'), N('Slice', ['s', 'b', 'e'], 'tail'),
        N('ReduceProd', ['tail'], 'p', keepdims=1), N('Slice', ['s', 'b0', 'b'], 'head'),
        N('Concat', ['head', 'p'], 't', axis=0), N('Reshape', ['x', 't'], 'y')],
        [('x', T.FLOAT, ['N', 'S', 3, 4])], ['tail', 'p', 't', 'y'],
        {'b': i64(1), 'e': i64(I64_MAX), 'b0': i64(0)}, values=['tail', 'p', 't'])
    # Flatten, Transpose, Squeeze, Unsqueeze
    for a in [0, 1, 2, -1, 4]:
        case(f'Flatten_{a}'.replace('-', 'm'), 13, N('Flatten', ['x'], 'y', axis=a), X, ['y'])
    case('Flatten', 9, N('Flatten', ['x'], 'y'), X, ['y'])
    case('Transpose_default', 13, N('Transpose', ['x'], 'y'), X, ['y'])
    case('Transpose_perm', 13, N('Transpose', ['x'], 'y', perm=[0, 2, 3, 1]), X, ['y'])
    sq = [('x', T.FLOAT, ['N', 1, 'S', 1])]
    case('Squeeze_attr', 11, N('Squeeze', ['x'], 'y', axes=[1, -1]), sq, ['y'])
    case('Squeeze_input', 13, N('Squeeze', ['x', 'a'], 'y'), sq, ['y'], {'a': i64(3)})
    case('Squeeze_empty', 13, N('Squeeze', ['x', 'a'], 'y'), [('x', T.FLOAT, [1, 4, 1, 2])], ['y'],
         {'a': np.zeros(0, np.int64)})
    case('Squeeze_all', 13, N('Squeeze', ['x'], 'y'), [('x', T.FLOAT, [1, 4, 1, 2])], ['y'])
    case('Squeeze_error', 13, N('Squeeze', ['x', 'a'], 'y'), [('x', T.FLOAT, [2, 4])], ['y'], {'a': i64(0)},
         error=True)
    case('Unsqueeze_attr', 11, N('Unsqueeze', ['x'], 'y', axes=[0, -1]), X, ['y'])
    case('Unsqueeze_input', 13, N('Unsqueeze', ['x', 'a'], 'y'), X, ['y'], {'a': i64(1, 3)})
    case('Unsqueeze_scalar', 13, N('Unsqueeze', ['x', 'a'], 'y'), [('x', T.FLOAT, [])], ['y'], {'a': i64(0)})
    # Concat, Split
    case('Concat_0', 13, N('Concat', ['a', 'b'], 'y', axis=0), [('a', T.FLOAT, ['N', 3]), ('b', T.FLOAT, ['S', 3])],
         ['y'])
    case('Concat_m1', 11, N('Concat', ['a', 'b', 'c'], 'y', axis=-1),
         [('a', T.FLOAT, ['N', 2]), ('b', T.FLOAT, ['N', 'S']), ('c', T.FLOAT, ['N', 1])], ['y'])
    case('Concat_values', 13, [N('Shape', ['a'], 's'), N('Concat', ['s', 'k', 's'], 'y', axis=0)],
         [('a', T.FLOAT, ['N', 'S'])], ['y'], {'k': i64(7, -3)}, values=['y'])
    case('Concat_error', 13, N('Concat', ['a', 'b'], 'y', axis=0),
         [('a', T.FLOAT, [2, 3]), ('b', T.FLOAT, [2, 4])], ['y'], error=True)
    sx = [('x', T.FLOAT, ['N', 6, 'S'])]
    case('Split_attr', 11, N('Split', ['x'], ['a', 'b'], axis=1, split=[2, 4]), sx, ['a', 'b'])
    case('Split_equal', 11, N('Split', ['x'], ['a', 'b', 'c'], axis=1), sx, ['a', 'b', 'c'])
    case('Split_input', 13, N('Split', ['x', 's'], ['a', 'b'], axis=1), sx, ['a', 'b'], {'s': i64(5, 1)})
    case('Split_equal', 13, N('Split', ['x'], ['a', 'b'], axis=-2), sx, ['a', 'b'])
    case('Split_num_outputs', 18, N('Split', ['x'], ['a', 'b', 'c'], axis=1, num_outputs=3),
         [('x', T.FLOAT, ['N', 7, 'S'])], ['a', 'b', 'c'])
    case('Split_num_outputs_sym', 18, N('Split', ['x'], ['a', 'b'], axis=2, num_outputs=2), sx, ['a', 'b'])
    case('Split_num_outputs_error', 18, N('Split', ['x'], ['a', 'b', 'c', 'd'], axis=1, num_outputs=4), sx,
         ['a', 'b', 'c', 'd'], error=True)
    case('Split_values', 13, [N('Shape', ['x'], 's'), N('Split', ['s', 'k'], ['a', 'b'], axis=0)], sx, ['a', 'b'],
         {'k': i64(1, 2)}, values=['a', 'b'])
    case('Split_error', 13, N('Split', ['x', 's'], ['a', 'b'], axis=1), sx, ['a', 'b'], {'s': i64(2, 2)},
         error=True)
    # Slice
    for (st, en, ax, sp), tag in [
            (((1,), (I64_MAX,), (1,), None), 'tail'), (((-2,), (-1,), (2,), None), 'neg'),
            (((0, 1), (3, -1), (0, 2), (2, 1)), 'two'), (((-1,), (I64_MIN,), (1,), (-1,)), 'reverse'),
            (((I64_MAX,), (-100,), (-1,), (-2,)), 'reverse2'), (((2,), (1,), (1,), None), 'empty'),
            (((-100,), (100,), (0,), (3,)), 'clamp'), (((4,), (0,), (1,), (-2,)), 'back'),
            (((1,), (-1,), (-3,), (I64_MAX,)), 'huge_step'), (((-1,), (0,), (1,), (I64_MIN,)), 'min_step')]:
        ins = ['x', 'st', 'en', 'ax'] + (['sp'] if sp else [])
        inits = {'st': i64(*st), 'en': i64(*en), 'ax': i64(*ax)}
        if sp:
            inits['sp'] = i64(*sp)
        case(f'Slice_{tag}', 13, N('Slice', ins, 'y'), [('x', T.FLOAT, ['N', 'H', 'W'])], ['y'], inits)
    case('Slice_noaxes', 11, N('Slice', ['x', 'st', 'en'], 'y'), [('x', T.FLOAT, ['N', 'H', 'W'])], ['y'],
         {'st': i64(1, 1), 'en': i64(-1, 100)})
    case('Slice_attrs', 9, N('Slice', ['x'], 'y', starts=[1, -3], ends=[1000, -1], axes=[1, 2]),
         [('x', T.FLOAT, ['N', 'H', 'W'])], ['y'])
    case('Slice_attrs_noaxes', 1, N('Slice', ['x'], 'y', starts=[0, 2], ends=[-1, 5]),
         [('x', T.FLOAT, ['N', 'H', 'W'])], ['y'])
    case('Slice_i32', 13, N('Slice', ['x', 'st', 'en', 'ax'], 'y'), [('x', T.FLOAT, ['N', 'H', 'W'])], ['y'],
         {'st': np.array([1], np.int32), 'en': np.array([-1], np.int32), 'ax': np.array([2], np.int32)})
    case('Slice_of_shape', 13, [N('Shape', ['x'], 's'), N('Slice', ['s', 'st', 'en'], 'y')],
         [('x', T.FLOAT, ['N', 'H', 'W', 3])], ['s', 'y'], {'st': i64(-2), 'en': i64(I64_MAX)}, values=['s', 'y'])
    case('Slice_of_shape_rev', 13, [N('Shape', ['x'], 's'), N('Slice', ['s', 'st', 'en', 'ax', 'sp'], 'y')],
         [('x', T.FLOAT, ['N', 'H', 'W', 3])], ['y'],
         {'st': i64(-1), 'en': i64(I64_MIN), 'ax': i64(0), 'sp': i64(-2)}, values=['y'])
    # bounds from the shape: x[:, : W // 2]
    case('Slice_shape_bounds', 13, [
        N('Shape', ['x'], 's'), N('Gather', ['s', 'two'], 'w'), N('Div', ['w', 'k2'], 'half'),
        N('Unsqueeze', ['half', 'ax0'], 'e'), N('Slice', ['x', 'z', 'e', 'ax2'], 'y')],
        [('x', T.FLOAT, ['N', 'H', 'W'])], ['half', 'y'],
        {'two': np.int64(2), 'k2': np.int64(2), 'ax0': i64(0), 'z': i64(0), 'ax2': i64(2)}, values=['half'])
    case('Slice_zero_step', 13, N('Slice', ['x', 'st', 'en', 'ax', 'sp'], 'y'), [('x', T.FLOAT, [4, 5])], ['y'],
         {'st': i64(0), 'en': i64(3), 'ax': i64(0), 'sp': i64(0)}, error=True)
    # Pad
    case('Pad_input', 11, N('Pad', ['x', 'p'], 'y'), X, ['y'], {'p': i64(0, 0, 1, 2, 0, 0, 3, 4)})
    case('Pad_reflect', 13, N('Pad', ['x', 'p'], 'y', mode='reflect'), X, ['y'], {'p': i64(0, 0, 1, 1, 0, 0, 1, 1)})
    case('Pad_negative', 13, N('Pad', ['x', 'p', 'v'], 'y'), X, ['y'],
         {'p': i64(0, 0, -1, 2, 0, 0, 0, -1), 'v': np.float32(1.5)})
    case('Pad_attr', 2, N('Pad', ['x'], 'y', pads=[0, 1, 1, 0, 0, 2, 0, 3]), X, ['y'])
    case('Pad_axes', 18, N('Pad', ['x', 'p', '', 'a'], 'y'), X, ['y'], {'p': i64(1, 2, 3, 4), 'a': i64(-1, 1)})
    case('Pad_from_shape', 13, [N('Shape', ['x'], 's'), N('Slice', ['s', 'b', 'e'], 'hw'),
                                N('Concat', ['zeros', 'hw', 'zeros', 'hw'], 'p', axis=0),
                                N('Pad', ['x', 'p'], 'y')], X, ['p', 'y'],
         {'b': i64(2), 'e': i64(4), 'zeros': i64(0, 0)}, values=['p'])
    # Gather and friends
    gx = [('x', T.FLOAT, ['N', 'S', 5])]
    case('Gather_scalar', 13, N('Gather', ['x', 'i'], 'y', axis=1), gx, ['y'], {'i': np.int64(-1)})
    case('Gather_2d', 13, N('Gather', ['x', 'i'], 'y', axis=2), gx, ['y'], {'i': i64(0, 4, -2, 1).reshape(2, 2)})
    case('Gather_runtime', 13, N('Gather', ['x', 'i'], 'y', axis=0), gx + [('i', T.INT64, ['S', 2])], ['y'],
         data={'i': lambda s, r: r.integers(0, s['N'], (s['S'], 2))})
    case('Gather_shape_2d', 13, [N('Shape', ['x'], 's'), N('Gather', ['s', 'i'], 'y')], gx, ['y'],
         {'i': i64(2, 0, -1, 1).reshape(2, 2)}, values=['y'])
    case('Gather_error', 13, N('Gather', ['x', 'i'], 'y', axis=2), gx, ['y'], {'i': i64(5)}, error=True)
    case('GatherElements', 13, N('GatherElements', ['x', 'i'], 'y', axis=1), gx + [('i', T.INT64, ['N', 2, 5])],
         ['y'], data={'i': lambda s, r: r.integers(0, s['S'], (s['N'], 2, 5))})
    case('GatherND', 13, N('GatherND', ['x', 'i'], 'y'), gx, ['y'], {'i': i64(0, 1, 1, 0, 0, 2).reshape(3, 2)},
         data=None)
    case('GatherND_batch', 13, N('GatherND', ['x', 'i'], 'y', batch_dims=1), [('x', T.FLOAT, [2, 'S', 5])], ['y'],
         {'i': i64(0, 1, 1, 0).reshape(2, 2, 1)})
    case('ScatterND', 13, N('ScatterND', ['x', 'i', 'u'], 'y'), [('x', T.FLOAT, ['N', 2, 5])], ['y'],
         {'i': i64(0, 1).reshape(2, 1), 'u': np.zeros((2, 2, 5), np.float32)})
    case('ScatterElements', 13, N('ScatterElements', ['x', 'i', 'u'], 'y', axis=2), gx, ['y'],
         {'i': i64(0, 1).reshape(1, 1, 2), 'u': np.zeros((1, 1, 2), np.float32)})
    # Expand, Tile
    case('Expand', 13, N('Expand', ['x', 't'], 'y'), [('x', T.FLOAT, [3, 1])], ['y'], {'t': i64(2, 1, 4)})
    case('Expand_shape', 13, [N('Shape', ['a'], 's'), N('Expand', ['x', 's'], 'y')],
         [('x', T.FLOAT, ['S', 1]), ('a', T.FLOAT, ['N', 1, 'W'])], ['y'])
    case('Expand_smaller', 13, N('Expand', ['x', 't'], 'y'), [('x', T.FLOAT, ['N', 'S', 1])], ['y'],
         {'t': i64(1, 4)})
    case('Expand_values', 13, [N('Shape', ['x'], 's'), N('Expand', ['s', 't'], 'y')],
         [('x', T.FLOAT, ['N', 'S'])], ['y'], {'t': i64(3, 2)}, values=['y'])
    case('Tile', 13, N('Tile', ['x', 'r'], 'y'), [('x', T.FLOAT, ['N', 'S', 2])], ['y'], {'r': i64(1, 3, 2)})
    case('Tile_values', 13, [N('Shape', ['x'], 's'), N('Tile', ['s', 'r'], 'y')], [('x', T.FLOAT, ['N', 'S'])],
         ['y'], {'r': i64(3)}, values=['y'])
    # Range, ConstantOfShape, Constant, Shape, Size
    case('Range_int', 11, N('Range', ['a', 'b', 'd'], 'y'), [], ['y'],
         {'a': np.int64(2), 'b': np.int64(17), 'd': np.int64(4)}, values=['y'])
    case('Range_neg', 11, N('Range', ['a', 'b', 'd'], 'y'), [], ['y'],
         {'a': np.int64(10), 'b': np.int64(-3), 'd': np.int64(-3)}, values=['y'])
    case('Range_float', 11, N('Range', ['a', 'b', 'd'], 'y'), [], ['y'],
         {'a': np.float32(0.5), 'b': np.float32(3.0), 'd': np.float32(0.75)})
    case('Range_shape', 11, [N('Shape', ['x'], 's'), N('Gather', ['s', 'one'], 'n'),
                             N('Range', ['z', 'n', 'd'], 'y')], [('x', T.FLOAT, ['N', 'S'])], ['y'],
         {'one': np.int64(1), 'z': np.int64(0), 'd': np.int64(1)})
    case('Range_shape_step', 11, [N('Shape', ['x'], 's'), N('Gather', ['s', 'one'], 'n'),
                                  N('Range', ['n', 'z', 'd'], 'y')], [('x', T.FLOAT, ['N', 'H'])], ['y'],
         {'one': np.int64(1), 'z': np.int64(-1), 'd': np.int64(-2)})
    case('ConstantOfShape', 9, [N('Shape', ['x'], 's'), N('ConstantOfShape', ['s'], 'y')], X, ['y'])
    case('ConstantOfShape_int', 9, N('ConstantOfShape', ['t'], 'y',
                                      value=h.make_tensor('v', T.INT64, [1], [7])), [], ['y'],
         {'t': i64(2, 3)}, values=['y'])
    case('ConstantOfShape_scalar', 9, N('ConstantOfShape', ['t'], 'y',
                                         value=h.make_tensor('v', T.INT32, [1], [3])), [], ['y'],
         {'t': np.zeros(0, np.int64)}, values=['y'])
    case('Constant_tensor', 13, [N('Constant', [], 'c', value=h.make_tensor('v', T.INT64, [2], [0, -1])),
                                 N('Reshape', ['x', 'c'], 'y')], X, ['c', 'y'], values=['c'])
    case('Constant_ints', 13, [N('Constant', [], 'c', value_ints=[0, -1]), N('Reshape', ['x', 'c'], 'y')], X,
         ['c', 'y'], values=['c'])
    case('Constant_int', 13, N('Constant', [], 'c', value_int=5), [], ['c'], values=['c'])
    case('Constant_floats', 13, N('Constant', [], 'c', value_floats=[1.0, 2.0, 3.0]), [], ['c'])
    case('Shape', 13, N('Shape', ['x'], 'y'), X, ['y'], values=['y'])
    case('Shape_scalar', 13, N('Shape', ['x'], 'y'), [('x', T.FLOAT, [])], ['y'], values=['y'])
    for st, en in [(1, None), (-3, -1), (None, 2), (-10, 10), (3, 1)]:
        attrs = {k: v for k, v in [('start', st), ('end', en)] if v is not None}
        case(f'Shape_{st}_{en}'.replace('-', 'm'), 15, N('Shape', ['x'], 'y', **attrs), X, ['y'], values=['y'])
    case('Size', 13, N('Size', ['x'], 'y'), X, ['y'], values=['y'])
    # shape arithmetic: the kinds of integer tensors models compute
    case('Shape_arith', 13, [
        N('Shape', ['x'], 's'), N('Cast', ['s'], 's32', to=T.INT32), N('Cast', ['s32'], 's64', to=T.INT64),
        N('Mul', ['s64', 'k'], 'm'), N('Sub', ['m', 'one'], 'd'), N('Div', ['d', 'two'], 'q'),
        N('Equal', ['s', 'three'], 'e'), N('Where', ['e', 's', 'q'], 'w'), N('Max', ['w', 'q'], 'mx'),
        N('Neg', ['q'], 'ng'), N('Abs', ['ng'], 'ab'), N('Mod', ['s', 'two'], 'md'),
        N('Less', ['s', 'three'], 'lt'), N('Not', ['lt'], 'nt'), N('Cast', ['nt'], 'nti', to=T.INT64),
        N('ReduceSum', ['s'], 'sum', keepdims=0), N('ReduceMax', ['s'], 'rmax', keepdims=1, axes=[0]),
        N('Cast', ['s'], 'sb', to=T.BOOL), N('Size', ['s'], 'sz'), N('Unsqueeze', ['sz', 'ax0'], 'sz1'),
        N('ConstantOfShape', ['sz1'], 'cs', value=h.make_tensor('v', T.INT64, [1], [1])),
        N('Squeeze', ['sz1', 'ax0'], 'sz0'),
        N('Flatten', ['s'], 'fl', axis=0), N('Identity', ['fl'], 'id'), N('Transpose', ['fl'], 'tr')],
        [('x', T.FLOAT, ['N', 3, 'H'])],
        ['s32', 'm', 'd', 'q', 'e', 'w', 'mx', 'ab', 'md', 'lt', 'nti', 'sum', 'rmax', 'sb', 'cs', 'sz0', 'tr', 'id'],
        {'k': i64(2), 'one': np.int64(1), 'two': np.int64(2), 'three': np.int64(3), 'ax0': i64(0)},
        values=['s32', 'm', 'd', 'q', 'e', 'w', 'mx', 'ab', 'md', 'lt', 'nti', 'sum', 'rmax', 'sb', 'cs', 'sz0',
                'tr', 'id'])


def reduce_cases():
    xs = [('x', T.FLOAT, ['N', 'S', 4])]
    for op in ['ReduceMean', 'ReduceSum', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2',
               'ReduceLogSumExp', 'ReduceSumSquare', 'ReduceLogSum']:
        case(f'{op}_attr', 11, N(op, ['x'], 'y', axes=[1], keepdims=0), xs, ['y'])
        case(f'{op}_all', 11, N(op, ['x'], 'y'), xs, ['y'])
        if op == 'ReduceSum':
            case(f'{op}_input', 13, N(op, ['x', 'a'], 'y', keepdims=1), xs, ['y'], {'a': i64(-1, 0)})
            case(f'{op}_noop', 13, N(op, ['x', 'a'], 'y', noop_with_empty_axes=1), xs, ['y'],
                 {'a': np.zeros(0, np.int64)})
            case(f'{op}_noinput', 13, N(op, ['x'], 'y', keepdims=0), xs, ['y'])
        elif op in ('ReduceMean', 'ReduceMax', 'ReduceL2'):
            case(f'{op}_attr', 13, N(op, ['x'], 'y', axes=[-1]), xs, ['y'])
            case(f'{op}_input', 18, N(op, ['x', 'a'], 'y', keepdims=0), xs, ['y'], {'a': i64(0, 2)})
            case(f'{op}_noop', 18, N(op, ['x'], 'y', noop_with_empty_axes=1), xs, ['y'])
    for op in ['ArgMax', 'ArgMin']:
        case(f'{op}_keep', 13, N(op, ['x'], 'y', axis=1), xs, ['y'])
        case(f'{op}_drop', 13, N(op, ['x'], 'y', axis=-1, keepdims=0), xs, ['y'])
    case('TopK', 11, N('TopK', ['x', 'k'], ['v', 'i'], axis=1), [('x', T.FLOAT, ['N', 7, 'S'])], ['v', 'i'],
         {'k': i64(3)})
    case('TopK', 1, N('TopK', ['x'], ['v', 'i'], k=2), [('x', T.FLOAT, ['N', 'S', 4])], ['v', 'i'])
    case('TopK_shape', 11, [N('Shape', ['x'], 's'), N('Slice', ['s', 'b', 'e'], 'k'),
                            N('TopK', ['x', 'k'], ['v', 'i'], axis=0)], [('x', T.FLOAT, ['N', 'S'])], ['v', 'i'],
         {'b': i64(0), 'e': i64(1)})


def resize_cases():
    for scales, tag in [(f32(1, 1, 2, 2), 'x2'), (f32(1, 1, 0.5, 0.5), 'half'), (f32(1, 1, 1.5, 0.25), 'frac'),
                        (f32(1, 1, 3, 1), 'x3')]:
        case(f'Resize_scales_{tag}', 13, N('Resize', ['x', '', 's'], 'y', mode='nearest'), X, ['y'], {'s': scales})
        case(f'Resize_scales_{tag}', 11, N('Resize', ['x', 'roi', 's'], 'y', mode='linear'), X, ['y'],
             {'s': scales, 'roi': np.zeros(0, np.float32)})
    case('Resize_sizes', 13, N('Resize', ['x', '', '', 'z'], 'y'), X, ['y'], {'z': i64(1, 3, 8, 4)},
         data={'x': lambda s, r: r.standard_normal((1, 3, s['H'], s['W'])).astype(np.float32)})
    case('Resize_sizes', 11, N('Resize', ['x', 'roi', 'e', 'z'], 'y'), X, ['y'],
         {'z': i64(1, 3, 8, 4), 'roi': np.zeros(0, np.float32), 'e': np.zeros(0, np.float32)},
         data={'x': lambda s, r: r.standard_normal((1, 3, s['H'], s['W'])).astype(np.float32)})
    case('Resize_static', 10, N('Resize', ['x', 's'], 'y'), [('x', T.FLOAT, [1, 2, 5, 7])], ['y'],
         {'s': f32(1, 1, 1.7, 0.6)})
    case('Resize_axes', 18, N('Resize', ['x', '', 's'], 'y', axes=[3, 2]), X, ['y'], {'s': f32(2, 0.5)})
    case('Resize_odd_scale', 13, N('Resize', ['x', '', 's'], 'y'), X, ['y'], {'s': f32(1, 1, 1.3, 1)}, free=['y'])
    case('Resize_shape_sizes', 13, [N('Shape', ['x'], 's'), N('Mul', ['s', 'k'], 'z'),
                                    N('Resize', ['x', '', '', 'z'], 'y')], X, ['z', 'y'], {'k': i64(1, 1, 2, 3)},
         values=['z'])
    case('Upsample', 7, N('Upsample', ['x'], 'y', scales=[1.0, 1.0, 2.0, 3.0]), X, ['y'])
    case('Upsample', 9, N('Upsample', ['x', 's'], 'y'), X, ['y'], {'s': f32(1, 1, 2, 2)})


def rnn_cases():
    for op, g in [('RNN', 1), ('GRU', 3), ('LSTM', 4)]:
        outs = ['y', 'h', 'c'] if op == 'LSTM' else ['y', 'h']
        for d, nd in [('forward', 1), ('bidirectional', 2)]:
            inits = {'w': np.ones((nd, g * 5, 3), np.float32) * 0.1, 'r': np.ones((nd, g * 5, 5), np.float32) * 0.1}
            case(f'{op}_{d}', 14, N(op, ['x', 'w', 'r'], outs, hidden_size=5, direction=d),
                 [('x', T.FLOAT, ['S', 'N', 3])], outs, inits)
        # (layout 1: ONNX Runtime's CPU kernels refuse it)
        inits = {'w': np.ones((1, g * 5, 3), np.float32) * 0.1, 'r': np.ones((1, g * 5, 5), np.float32) * 0.1}
        case(f'{op}_nohidden', 7, N(op, ['x', 'w', 'r'], outs, hidden_size=5), [('x', T.FLOAT, ['S', 'N', 3])], outs,
             inits)


def misc_cases():
    case('NonZero', 13, N('NonZero', ['x'], 'y'), [('x', T.FLOAT, ['N', 3])], ['y'], free=['y'],
         data={'x': lambda s, r: (r.random((s['N'], 3)) > 0.5).astype(np.float32)})
    case('NonZero_const', 13, [N('Shape', ['x'], 's'), N('Sub', ['s', 'k'], 'd'), N('NonZero', ['d'], 'y')],
         [('x', T.FLOAT, [4, 3, 4])], ['y'], {'k': i64(4, 4, 4)}, values=['y'])
    case('OneHot', 11, N('OneHot', ['i', 'd', 'v'], 'y', axis=1), [('i', T.INT64, ['N', 'S'])], ['y'],
         {'d': np.int64(5), 'v': f32(0, 1)}, data={'i': lambda s, r: r.integers(0, 5, (s['N'], s['S']))})
    case('OneHot_float_depth', 11, N('OneHot', ['i', 'd', 'v'], 'y'), [('i', T.INT64, ['N'])], ['y'],
         {'d': np.float32(4.0), 'v': f32(0, 1)}, data={'i': lambda s, r: r.integers(0, 4, (s['N'],))})
    case('DepthToSpace', 13, N('DepthToSpace', ['x'], 'y', blocksize=2), [('x', T.FLOAT, ['N', 8, 'H', 'W'])],
         ['y'])
    case('SpaceToDepth', 13, N('SpaceToDepth', ['x'], 'y', blocksize=2), [('x', T.FLOAT, ['N', 2, 4, 6])], ['y'])
    case('QuantizeLinear', 13, N('QuantizeLinear', ['x', 's', 'z'], 'y'), X, ['y'],
         {'s': np.float32(0.1), 'z': np.int8(0)})
    case('QuantizeLinear_u8', 13, N('QuantizeLinear', ['x', 's'], 'y'), X, ['y'], {'s': np.float32(0.1)})
    case('DequantizeLinear', 13, N('DequantizeLinear', ['x', 's', 'z'], 'y'), [('x', T.UINT8, ['N', 'S'])], ['y'],
         {'s': np.float32(0.1), 'z': np.uint8(3)})
    case('DynamicQuantizeLinear', 11, N('DynamicQuantizeLinear', ['x'], ['y', 's', 'z']), X, ['y', 's', 'z'])
    case('NonMaxSuppression', 11, N('NonMaxSuppression', ['b', 'c', 'm'], 'y'),
         [('b', T.FLOAT, [1, 'S', 4]), ('c', T.FLOAT, [1, 2, 'S'])], ['y'], {'m': np.int64(2)}, free=['y'])
    case('Compress', 11, N('Compress', ['x', 'c'], 'y', axis=1), [('x', T.FLOAT, ['N', 'S'])], ['y'],
         {'c': np.array([True, False, True])}, free=['y'])
    case('Compress_flat', 11, N('Compress', ['x', 'c'], 'y'), [('x', T.FLOAT, ['N', 'S'])], ['y'],
         {'c': np.array([True, False, True])}, free=['y'])
    case('Unique', 11, N('Unique', ['x'], ['y', 'i', 'v', 'c']), [('x', T.FLOAT, ['N', 'S'])], ['y', 'i', 'v', 'c'],
         free=['y', 'i', 'c'], data={'x': lambda s, r: r.integers(0, 3, (s['N'], s['S'])).astype(np.float32)})
    case('RoiAlign', 16, N('RoiAlign', ['x', 'r', 'b'], 'y', output_height=3, output_width=2), X, ['y'],
         {'r': np.ones((5, 4), np.float32), 'b': np.zeros(5, np.int64)})
    case('GridSample', 16, N('GridSample', ['x', 'g'], 'y'), X + [('g', T.FLOAT, ['N', 'S', 4, 2])], ['y'])
    case('EyeLike', 9, N('EyeLike', ['x'], 'y', dtype=T.INT64), [('x', T.FLOAT, ['N', 'S'])], ['y'])
    case('RandomNormalLike', 1, N('RandomNormalLike', ['x'], 'y'), X, ['y'])
    case('RandomUniform', 1, N('RandomUniform', [], 'y', shape=[2, 3], dtype=T.DOUBLE), [], ['y'])
    case('Bernoulli', 15, N('Bernoulli', ['x'], 'y'), [('x', T.FLOAT, ['N', 'S'])], ['y'],
         data={'x': lambda s, r: r.random((s['N'], s['S'])).astype(np.float32)})
    case('Det', 11, N('Det', ['x'], 'y'), [('x', T.FLOAT, ['N', 3, 3])], ['y'])
    case('ReverseSequence', 10, N('ReverseSequence', ['x', 'l'], 'y', batch_axis=1, time_axis=0),
         [('x', T.FLOAT, [4, 'N', 2]), ('l', T.INT64, ['N'])], ['y'],
         data={'l': lambda s, r: np.full(s['N'], 2, np.int64)})


def subgraph_cases():
    def g(nodes, ins, outs, inits=None):
        return h.make_graph(nodes, 'sub', [h.make_tensor_value_info(n, t, s) for n, t, s in ins],
                            [h.make_tensor_value_info(n, t, s) for n, t, s in outs],
                            [nh.from_array(np.asarray(v), k) for k, v in (inits or {}).items()])
    then = g([N('Slice', ['x', 'b', 'e', 'a'], 't')], [], [('t', T.FLOAT, None)],
             {'b': i64(1), 'e': i64(I64_MAX), 'a': i64(1)})
    other = g([N('Relu', ['x'], 'r')], [], [('r', T.FLOAT, None)])
    case('If_const', 13, N('If', ['c'], 'y', then_branch=then, else_branch=other), [('x', T.FLOAT, ['N', 'S'])],
         ['y'], {'c': np.array(True)})
    case('If_const_else', 13, N('If', ['c'], 'y', then_branch=then, else_branch=other), [('x', T.FLOAT, ['N', 'S'])],
         ['y'], {'c': np.array(False)})
    same = g([N('Neg', ['x'], 'n')], [], [('n', T.FLOAT, None)])
    case('If_runtime_same', 13, N('If', ['c'], 'y', then_branch=same, else_branch=other),
         [('x', T.FLOAT, ['N', 'S']), ('c', T.BOOL, [])], ['y'])
    # a condition from the shape: the branch is chosen by the symbols
    case('If_shape_cond', 13, [N('Shape', ['x'], 's'), N('Gather', ['s', 'zero'], 'n'),
                               N('Greater', ['n', 'two'], 'c'),
                               N('If', ['c'], 'y', then_branch=then, else_branch=other)],
         [('x', T.FLOAT, ['N', 'S'])], ['y'], {'zero': np.int64(0), 'two': np.int64(2)})
    # a Loop: a state that keeps its shape, one that grows, a scan output
    body = g([N('Add', ['acc', 'x'], 'acc2'), N('Concat', ['grow', 'one'], 'grow2', axis=0),
              N('Identity', ['cond'], 'cond2'), N('Mul', ['acc2', 'two'], 'scan')],
             [('i', T.INT64, []), ('cond', T.BOOL, []), ('acc', T.FLOAT, None), ('grow', T.FLOAT, None)],
             [('cond2', T.BOOL, []), ('acc2', T.FLOAT, None), ('grow2', T.FLOAT, None), ('scan', T.FLOAT, None)],
             {'one': f32(1), 'two': np.float32(2)})
    case('Loop', 13, N('Loop', ['m', '', 'a0', 'g0'], ['a', 'gr', 'sc'], body=body),
         [('x', T.FLOAT, ['N', 3]), ('a0', T.FLOAT, ['N', 3]), ('g0', T.FLOAT, [2])], ['a', 'gr', 'sc'],
         {'m': np.int64(4)}, free=['gr'])
    case('Loop', 11, N('Loop', ['m', 't', 'a0', 'g0'], ['a', 'gr', 'sc'], body=body),
         [('x', T.FLOAT, ['N', 3]), ('a0', T.FLOAT, ['N', 3]), ('g0', T.FLOAT, [2])], ['a', 'gr', 'sc'],
         {'m': np.int64(3), 't': np.array(True)}, free=['gr'])
    body = g([N('Add', ['st', 'xi'], 'st2'), N('Reshape', ['xi', 'flat'], 'o')],
             [('st', T.FLOAT, None), ('xi', T.FLOAT, None)], [('st2', T.FLOAT, None), ('o', T.FLOAT, None)],
             {'flat': i64(-1)})
    case('Scan', 11, N('Scan', ['s0', 'x'], ['s', 'o'], body=body, num_scan_inputs=1), [
        ('s0', T.FLOAT, ['N', 4]), ('x', T.FLOAT, ['S', 'N', 4])], ['s', 'o'])
    body8 = g([N('Add', ['st', 'xi'], 'st2'), N('Identity', ['xi'], 'o')],
              [('st', T.FLOAT, None), ('xi', T.FLOAT, None)], [('st2', T.FLOAT, None), ('o', T.FLOAT, None)])
    case('Scan', 8, N('Scan', ['', 's0', 'x'], ['s', 'o'], body=body8, num_scan_inputs=1), [
        ('s0', T.FLOAT, ['N', 4]), ('x', T.FLOAT, ['N', 'S', 4])], ['s', 'o'])
    # a Loop whose body may stop it: its scan output's length is not known
    early = g([N('Add', ['acc', 'x'], 'acc2'), N('ReduceSum', ['acc2'], 'tot', keepdims=0),
              N('Less', ['tot', 'lim'], 'cond2'), N('Identity', ['acc2'], 'scan')],
             [('i', T.INT64, []), ('cond', T.BOOL, []), ('acc', T.FLOAT, None)],
             [('cond2', T.BOOL, []), ('acc2', T.FLOAT, None), ('scan', T.FLOAT, None)],
             {'lim': np.float32(40)})
    case('Loop_early', 13, N('Loop', ['m', '', 'a0'], ['a', 'sc'], body=early),
         [('x', T.FLOAT, ['N', 3]), ('a0', T.FLOAT, ['N', 3])], ['a', 'sc'], {'m': np.int64(10)}, free=['sc'])
    # branches of different ranks: the rank is not known
    flat = g([N('ReduceSum', ['x'], 'f', keepdims=0)], [], [('f', T.FLOAT, None)])
    case('If_ranks', 13, N('If', ['c'], 'y', then_branch=flat, else_branch=other),
         [('x', T.FLOAT, ['N', 'S']), ('c', T.BOOL, [])], ['y'], error='unknown')
    case('Scan_axes', 11, N('Scan', ['s0', 'x'], ['s', 'o'], body=body, num_scan_inputs=1, scan_input_axes=[1],
                            scan_output_axes=[-1]),
         [('s0', T.FLOAT, ['N', 4]), ('x', T.FLOAT, ['N', 'S', 4])], ['s', 'o'])


def opset_cases():
    """The same chains at opsets 11, 13 and 17: axes, splits and pads as
    attributes or as inputs, as each opset has them."""
    for opset in (11, 13, 17):
        def axes(op, since, x, out, values, **attrs):
            if opset >= since:
                name = f'{out}_axes'
                inits[name] = i64(*values)
                return N(op, [x, name], out, **attrs)
            return N(op, [x], out, axes=list(values), **attrs)
        inits = {}
        nodes = [axes('Unsqueeze', 13, 'x', 'u', [0, -1]), axes('Squeeze', 13, 'u', 'q', [0, -1]),
                 axes('ReduceSum', 13, 'q', 'rs', [1], keepdims=1), axes('ReduceMean', 18, 'q', 'rm', [-1], keepdims=0)]
        if opset >= 13:
            inits['sp'] = i64(1, 2)
            nodes.append(N('Split', ['q', 'sp'], ['s0', 's1'], axis=1))
        else:
            nodes.append(N('Split', ['q'], ['s0', 's1'], axis=1, split=[1, 2]))
        inits.update({'p': i64(0, 1, 0, 0, 2, 0), 'lo': np.float32(0), 'st': i64(1), 'en': i64(-1),
                      'ax': i64(2)})
        nodes += [N('Pad', ['q', 'p'], 'pd'), N('Clip', ['pd', 'lo'], 'cl'), N('Slice', ['cl', 'st', 'en', 'ax'], 'sl'),
                  N('TopK', ['sl', 'k'], ['tv', 'ti'], axis=0), N('Softmax', ['sl'], 'sm', axis=1)]
        inits['k'] = i64(1)
        case('Versions', opset, nodes, [('x', T.FLOAT, ['N', 3, 'W'])],
             ['u', 'q', 'rs', 'rm', 's0', 's1', 'pd', 'cl', 'sl', 'tv', 'ti', 'sm'], inits)


def stated_cases():
    # value_info that agrees, and one that conflicts
    model_ok = [N('Transpose', ['x'], 't', perm=[1, 0]), N('Relu', ['t'], 'y')]
    case('Stated_ok', 13, model_ok, [('x', T.FLOAT, ['N', 3])], ['y'])
    CASES[-1].model.graph.value_info.append(h.make_tensor_value_info('t', T.FLOAT, [3, 'N']))
    case('Stated_conflict', 13, model_ok, [('x', T.FLOAT, [2, 3])], ['y'], error='refuse')
    CASES[-1].model.graph.value_info.append(h.make_tensor_value_info('t', T.FLOAT, [2, 3]))
    CASES[-1].ort_ok = True  # ONNX Runtime runs it (with a warning): only slicegen refuses


# ---- running and comparing ------------------------------------------------------------------


def concrete(dims, sizes):
    return [sizes[d] if isinstance(d, str) else d for d in dims]


def make_data(c, sizes, rng):
    feeds = {}
    for name, t, dims in c.inputs:
        if name in c.data:
            a = np.asarray(c.data[name](sizes, rng))
        else:
            shape = concrete(dims, sizes)
            if t in (T.FLOAT, T.DOUBLE):
                a = (rng.standard_normal(shape) + 2).astype(NP[t])
            elif t == T.BOOL:
                a = rng.random(shape) > 0.5
            else:
                a = rng.integers(1, 5, shape).astype(NP[t])
        feeds[name] = {'type': ORT_TYPE[t], 'dims': list(a.shape),
                       'data': [bool(v) for v in a.ravel()] if t == T.BOOL else a.ravel().tolist()}
    return feeds


LINE = re.compile(r'^(\S+) (\S+) (\?|\[[^\]]*\])(?: values (\S*))?(?: shape)?$')


def parse_dump(text):
    """graph_dump's lines per set: {name: (type, dims or None, values or None)}."""
    sets, cur = [], None
    for line in text.splitlines():
        if line.startswith('# set'):
            cur = {}
            sets.append(cur)
            continue
        if cur is None:
            cur = {}
            sets.append(cur)
        m = LINE.match(line)
        if not m:
            continue
        dims = None if m.group(3) == '?' else [
            int(d) if re.fullmatch(r'-?\d+', d) else d for d in m.group(3)[1:-1].split(', ') if d != '']
        vals = None if m.group(4) is None else [
            int(v) if re.fullmatch(r'-?\d+', v) else v for v in m.group(4).split(',') if v != '']
        cur[m.group(1)] = (m.group(2), dims, vals)
    return sets


def onnx_shapes(model):
    """The shapes onnx's own inference knows fully: {name: [dims]}."""
    if model.opset_import[0].version > 17:
        return {}
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception:
        return {}
    out = {}
    for v in list(inferred.graph.value_info) + list(inferred.graph.output):
        tt = v.type.tensor_type
        if not tt.HasField('shape'):
            continue
        dims = [d.dim_value if d.HasField('dim_value') else None for d in tt.shape.dim]
        if all(d is not None for d in dims):
            out[v.name] = dims
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dump', required=True)
    ap.add_argument('--ort', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('-k', default='')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    if os.environ.get('SLICEGEN_SKIP_ONNX'):
        print('graph-ort skipped: SLICEGEN_SKIP_ONNX is set')
        return 77
    if not os.path.isdir(args.ort):
        print(f'graph-ort skipped: no onnxruntime-node at {args.ort} (the onnx-ort-setup fixture installs it)')
        return 77
    start = time.time()
    for f in (unary_cases, binary_cases, conv_cases, product_cases, shape_cases, reduce_cases, resize_cases,
              rnn_cases, misc_cases, subgraph_cases, opset_cases, stated_cases):
        f()
    cases = [c for c in CASES if args.k in c.name]
    names = [c.name for c in cases]
    dupes = {n for n in names if names.count(n) > 1}
    assert not dupes, f'cases named twice: {sorted(dupes)}'
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(1234)
    runs = []
    for c in cases:
        c.file = f'{c.name}.onnx'
        onnx.save(c.model, os.path.join(args.work, c.file))
        for k, sizes in enumerate(SIZES):
            runs.append({'id': f'{c.name}#{k}', 'model': c.file, 'feeds': make_data(c, sizes, rng)})
    with open(os.path.join(args.work, 'manifest.json'), 'w') as f:
        json.dump({'runs': runs}, f)
    js = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ort_shapes.js')
    p = subprocess.run(['node', js, args.ort, args.work], capture_output=True, text=True)
    if p.returncode != 0:
        print(f'graph-ort: ort_shapes.js failed: {p.stderr.strip().splitlines()[-1:] or p.returncode}')
        return 1
    with open(os.path.join(args.work, 'results.json')) as f:
        ort = json.load(f)
    passed = failed = notes = 0
    sym_args = []
    for k, sizes in enumerate(SIZES):
        if k:
            sym_args.append('--')
        sym_args += [f'{s}={v}' for s, v in sizes.items()]

    def bad(c, msg):
        nonlocal failed
        failed += 1
        print(f'{c.name}: {msg}')

    for c in cases:
        p = subprocess.run([args.dump, os.path.join(args.work, c.file)] + sym_args, capture_output=True, text=True)
        if p.returncode not in (0, 2) or p.stderr:
            bad(c, f'graph_dump exited {p.returncode}: {p.stderr.strip()[:300]}')
            continue
        refused = [not ort[f'{c.name}#{k}']['ok'] for k in range(len(SIZES))]
        if c.error:
            ort_ok = getattr(c, 'ort_ok', False)
            refusal = p.returncode == 2 and len(p.stdout.strip().splitlines()) == 1
            unknown = p.returncode == 0 and all(
                o in got and got[o][1] is None for got in parse_dump(p.stdout) for o in c.outputs)
            if c.error == 'unknown':  # a model ONNX Runtime runs, of shapes only the data tell
                if unknown and not any(refused):
                    passed += 1
                else:
                    bad(c, f'the outputs should be of unknown rank: {p.stdout.strip()[:300]}')
                continue
            if not refusal and (c.error == 'refuse' or not unknown):
                what = 'refuse the model' if c.error == 'refuse' else 'refuse the model or leave its outputs unknown'
                bad(c, f'slicegen should {what}: {p.stdout.strip()[:300]}')
            elif not ort_ok and not any(refused):
                bad(c, 'ONNX Runtime runs a model the test expects it to refuse')
            else:
                passed += 1
                if args.v:
                    print(f'{c.name}: {"refused: " + p.stdout.strip() if refusal else "outputs unknown"}')
            continue
        if p.returncode != 0:
            bad(c, p.stdout.strip())
            continue
        sets = parse_dump(p.stdout)
        known = onnx_shapes(c.model)
        ok = True
        for k in range(len(SIZES)):
            r = ort[f'{c.name}#{k}']
            if not r['ok']:
                bad(c, f'ONNX Runtime refuses the model: {r["error"]}')
                ok = False
                break
            for out in c.outputs:
                o = r['outputs'][out]
                if out not in sets[k]:
                    bad(c, f'no line for {out}')
                    ok = False
                    continue
                stype, sdims, svals = sets[k][out]
                want = SG_TYPE.get(o['type'], o['type'])
                why = None
                if stype != want:
                    why = f'type {stype}, ONNX Runtime {want}'
                elif sdims is None:
                    why = f'unknown rank, ONNX Runtime {o["dims"]}'
                elif len(sdims) != len(o['dims']) or any(
                        a != b and not (isinstance(a, str) and out in c.free) for a, b in zip(sdims, o['dims'])):
                    why = f'shape {sdims}, ONNX Runtime {o["dims"]}'
                elif svals is not None and 'data' in o and [v if isinstance(v, str) else v for v in svals] != [
                        int(x) for x in o['data']]:
                    why = f'values {svals}, ONNX Runtime {o["data"]}'
                elif svals is None and out in c.need_values:
                    why = f'values not known (ONNX Runtime {o.get("data")})'
                elif out in known and all(isinstance(a, int) for a in sdims) and known[out] != sdims:
                    if known[out] == o['dims']:
                        why = f'shape {sdims}, onnx and ONNX Runtime {known[out]}'
                    elif k == 0:
                        notes += 1
                        if args.v:
                            print(f'{c.name}: note: {out}: onnx infers {known[out]}, ONNX Runtime and slicegen '
                                  f'{sdims}')
                if why:
                    bad(c, f'sizes {SIZES[k]}: {out}: {why}')
                    ok = False
        if ok:
            passed += 1
            if args.v:
                print(f'{c.name}: ok: ' + '; '.join(f'{o} {sets[0][o][1]}' for o in c.outputs))
    print(f'graph-ort: {passed} passed, {failed} failed ({len(cases)} models, {len(runs)} runs in ONNX Runtime, '
          f'{notes} notes where onnx infers otherwise, {time.time() - start:.1f} s)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

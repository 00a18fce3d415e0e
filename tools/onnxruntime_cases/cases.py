# The ONNX Slice and Pad cases of tests/corpus/{onnx_slice,pad}.txt and
# tests/error/{onnx_slice,pad}_errors.txt. To make those files again:
#   mkdir -p /tmp/ort && /usr/bin/python3 make_models.py /tmp/ort &&
#   node run.js /tmp/ort && /usr/bin/python3 write.py SLICEGEN /tmp/ort ../../tests
# `corpus` says which file a case goes to (*_err: ONNX Runtime must refuse it).
M64, M32 = 2**63 - 1, 2**31 - 1
def P(title, shape, begin, end, mode=None, axes=None, value=None, dtype='i32', corpus='pad'):
    c = dict(op='pad', title=title, shape=shape, begin=begin, end=end, dtype=dtype, corpus=corpus)
    if mode: c['mode'] = mode
    if axes is not None: c['axes'] = axes
    if value is not None: c['value'] = value
    return c
def S(title, shape, start, stop, step=None, axes=None, dtype='i32', corpus='onnx_slice'):
    c = dict(op='slice', title=title, shape=shape, start=start, stop=stop, dtype=dtype, corpus=corpus)
    if step is not None: c['step'] = step
    if axes is not None: c['axes'] = axes
    return c
CASES = [
 # ---- constant
 P('constant: pads on both sides, default mode and value 0', [4], [3], [3]),
 P('constant: a value', [4], [1], [2], 'constant', value=7),
 P('constant: a crop before, a pad after', [4], [-1], [2], 'constant', dtype='f32'),
 P('constant: crops on both sides', [4], [-1], [-1], 'constant'),
 P('constant: the pad fills what the crop leaves of nothing (window 0)', [4], [2], [-4], 'constant'),
 P('constant: a crop past the input (window below 0) and a pad: fill only', [4], [-5], [2], 'constant'),
 P('constant: crops that leave an empty output', [4], [-2], [-2], 'constant'),
 P('constant: the whole input cropped away', [4], [-4], [0], 'constant'),
 P('constant: an empty input padded', [0], [2], [2], 'constant', value=-1),
 P('constant: an empty input, crop and pad', [0], [-1], [2], 'constant'),
 P('constant: an empty axis padded, the other kept', [0, 4], [1], [0], 'constant', axes=[0], value=5),
 P('constant: two axes, pads as in ONNX (begins, then ends)', [2, 3], [1, 0], [-1, 2], 'constant', dtype='i16'),
 P('constant: an axis cropped to a window of 0, then padded', [2, 3], [1], [-3], 'constant', axes=[1]),
 P('constant: negative axes', [2, 3], [1, 2], [0, 1], 'constant', axes=[-1, -2], value=9, dtype='u8'),
 # ---- edge
 P('edge: pads on both sides', [4], [3], [3], 'edge'),
 P('edge: a crop before, the new last element repeated', [4], [-1], [2], 'edge'),
 P('edge: a pad before, a crop after: the new last edge', [4], [2], [-1], 'edge', dtype='f64'),
 P('edge: a window of one element', [4], [-3], [2], 'edge'),
 P('edge: crops on both sides', [4], [-1], [-1], 'edge'),
 P('edge: no pads on an empty input', [0], [0], [0], 'edge'),
 P('edge: an empty input, its non-empty axis cropped to nothing and padded', [0, 4], [-4], [1], 'edge', axes=[1]),
 P('edge: an empty input, its empty axis cropped and padded back to 0', [0, 4], [-1], [1], 'edge', axes=[0]),
 P('edge: an empty input, its non-empty axis padded', [2, 0], [1], [1], 'edge', axes=[0]),
 P('edge: many pads on a small axis', [2], [50], [50], 'edge', dtype='i8'),
 P('edge: two axes, negative axis', [2, 3], [1, -1], [0, 2], 'edge', axes=[-2, 1]),
 # ---- reflect
 P('reflect: pads of e - 1 on both sides', [4], [3], [3], 'reflect'),
 P('reflect: a pad before, a crop after (reflects the window)', [4], [2], [-1], 'reflect'),
 P('reflect: a crop before, a pad after', [4], [-1], [2], 'reflect'),
 P('reflect: a window of 2, a pad of 1', [4], [-2], [1], 'reflect'),
 P('reflect: a window of one element without pads', [4], [-3], [0], 'reflect'),
 P('reflect: one element, no pads', [1], [0], [0], 'reflect'),
 P('reflect: crops only', [4], [-1], [-1], 'reflect', dtype='u16'),
 P('reflect: an empty input: no checks on its other axis', [0, 4], [5], [5], 'reflect', axes=[1]),
 P('reflect: an empty input, its non-empty axis cropped to one element and padded', [0, 4], [-3], [1], 'reflect', axes=[1]),
 P('reflect: two axes, crops and pads', [4, 2], [-1, 0], [1, 1], 'reflect'),
 P('reflect: three axes', [2, 3, 4], [0, 1, -1], [1, -1, 2], 'reflect', dtype='f32'),
 # ---- wrap
 P('wrap: pads of e on both sides', [4], [4], [4], 'wrap'),
 P('wrap: pads on both sides', [4], [3], [3], 'wrap'),
 P('wrap: the crop comes first (not TrtSlice wrap over the whole axis)', [4], [2], [-1], 'wrap'),
 P('wrap: a crop before, a pad after', [4], [-1], [2], 'wrap'),
 P('wrap: a window of 2, a pad past it after', [4], [-2], [3], 'wrap'),
 P('wrap: a window of one element', [4], [-3], [2], 'wrap'),
 P('wrap: a post-pad of many periods', [3], [3], [40], 'wrap', dtype='i64'),
 P('wrap: negative axis', [2, 3], [1], [-1], 'wrap', axes=[-1]),
 P('wrap: a pre-pad past the window (ONNX Runtime leaves elements unwritten: its defect)', [4], [5], [5], 'wrap'),
 P('wrap: a pre-pad past the window, no post-pad (ONNX Runtime defect)', [4], [6], [0], 'wrap'),
 P('wrap: a pre-pad of many periods over a crop (ONNX Runtime defect)', [5], [13], [-2], 'wrap'),
 # ---- errors
 P('negative output size', [4], [-3], [-3], 'constant', corpus='pad_err'),
 P('negative output size on an empty input', [0, 4], [-5], [0], 'edge', axes=[1], corpus='pad_err'),
 P('edge: window of 0', [4], [2], [-4], 'edge', corpus='pad_err'),
 P('edge: window of 0, empty output', [4], [-4], [0], 'edge', corpus='pad_err'),
 P('edge: window of 0 from both sides', [4], [-2], [-2], 'edge', corpus='pad_err'),
 P('reflect: window of 0', [4], [2], [-4], 'reflect', corpus='pad_err'),
 P('wrap: window of 0', [4], [2], [-4], 'wrap', corpus='pad_err'),
 P('reflect: pre-pad above e - 1', [4], [5], [5], 'reflect', corpus='pad_err'),
 P('reflect: post-pad above e - 1', [4], [3], [4], 'reflect', corpus='pad_err'),
 P('reflect: post-pad above e - 1 after a crop', [4], [-1], [3], 'reflect', corpus='pad_err'),
 P('reflect: pre-pad above e - 1 after a crop', [4], [3], [-1], 'reflect', corpus='pad_err'),
 P('reflect: one element padded', [1], [2], [2], 'reflect', corpus='pad_err'),
 P('reflect: a window of one element padded', [4], [-3], [1], 'reflect', corpus='pad_err'),
 P('wrap: an empty input', [0], [0], [0], 'wrap', corpus='pad_err'),
 P('wrap: an empty input with a non-empty axis padded', [0, 4], [1], [1], 'wrap', axes=[1], corpus='pad_err'),
 P('edge: an empty axis padded', [0, 4], [1], [0], 'edge', axes=[0], corpus='pad_err'),
 P('reflect: an empty axis padded', [0, 4], [1], [0], 'reflect', axes=[0], corpus='pad_err'),
 P('edge: the empty axis of an input padded', [2, 0], [0, 0], [1, 1], 'edge', corpus='pad_err'),
 P('axes repeated', [2, 3], [1, 1], [1, 1], 'constant', axes=[0, -2], corpus='pad_err'),
 P('axis out of range', [2, 3], [1], [1], 'constant', axes=[2], corpus='pad_err'),
 P('output size overflows', [4], [M64], [0], 'constant', corpus='pad_err'),
 P('output size 0 from pads of extreme values', [1], [-2**63], [M64], 'constant'),
 # ---- ONNX Slice
 S('dimension 1 sliced -3:-2:-1 gives one element (NumPy: none)', [1], [-3], [-2], [-1]),
 S('[-1:INT64_MAX:-1] is all of it reversed (Slice-8: none)', [5], [-1], [M64], [-1]),
 S('[-1:INT32_MAX:-1] is all of it reversed', [5], [-1], [M32], [-1]),
 S('[-1:INT32_MAX-1:-1]: an ordinary end, clamped to d: none', [5], [-1], [M32 - 1], [-1]),
 S('[-1:INT64_MAX-1:-1]: an ordinary end: none', [5], [-1], [M64 - 1], [-1]),
 S('[3:INT32_MAX:-1] runs to element 0', [5], [3], [M32], [-1]),
 S('[1:INT32_MAX] runs to the end', [5], [1], [M32]),
 S('[1:INT64_MAX:2] runs to the end', [5], [1], [M64], [2]),
 S('[-1:INT32_MIN:-1] clamps to -1: all reversed', [5], [-1], [-2**31], [-1]),
 S('[-1:INT64_MIN:-1] clamps to -1: all reversed', [5], [-1], [-2**63], [-1]),
 S('[INT64_MAX:-6:-1] starts at d - 1', [5], [M64], [-6], [-1]),
 S('[INT32_MAX:INT32_MAX:-1]: the start clamps, the end is masked', [5], [M32], [M32], [-1]),
 S('[-1:INT32_MAX:-2]', [5], [-1], [M32], [-2], dtype='f64'),
 S('[0:INT32_MAX:-2] is element 0', [5], [0], [M32], [-2]),
 S('[-6:INT32_MAX:-1]: the start clamps to 0', [5], [-6], [M32], [-1]),
 S('an empty dimension, [0:INT32_MAX:-1]', [0], [0], [M32], [-1]),
 S('[10:-10:-1] is all reversed', [5], [10], [-10], [-1]),
 S('[-10:10:-1] is empty', [5], [-10], [10], [-1]),
 S('two axes given in reverse order, masked ends', [4, 6], [5, M32], [0, M64], [-2, -1], [1, 0]),
 S('a negative axis, the other kept whole', [3, 4], [1], [M32], [-1], [-2], dtype='i8'),
 S('a large step past the end', [5], [4], [M64], [-7]),
 S('axes repeated', [2, 3], [0, 0], [1, 1], [1, 1], [0, -2], corpus='onnx_slice_err'),
 S('step 0', [4], [0], [1], [0], corpus='onnx_slice_err'),
 S('axis out of range', [2, 3], [0], [1], [1], [2], corpus='onnx_slice_err'),
]

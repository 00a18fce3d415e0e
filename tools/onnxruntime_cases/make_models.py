# Builds one-node opset-19 ONNX models of the cases in cases.py in folder
# WORK (argv[1]) and WORK/meta.json. Needs python3-onnx (Debian's works).
import json, os, sys, onnx, numpy as np
from onnx import helper, TensorProto, numpy_helper
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cases.py')).read())
WORK = sys.argv[1]
I = lambda n, v: numpy_helper.from_array(np.array(v, dtype=np.int64), n)
meta = []
for k, c in enumerate(CASES):
    op, title, shape, dtype, p = c['op'], c['title'], c['shape'], c.get('dtype', 'i32'), c
    dims = ['d%d' % i for i in range(len(shape))]
    T = TensorProto.FLOAT
    if op == 'pad':
        axes = p.get('axes')
        n = len(p['begin'])
        inits = [I('pads', p['begin'] + p['end'])]
        ins = ['x', 'pads']
        val = p.get('value')
        if val is not None:
            inits.append(numpy_helper.from_array(np.array(val, dtype=np.float32), 'cv')); ins.append('cv')
        if axes is not None:
            if val is None: ins.append('')
            ins.append('axes'); inits.append(I('axes', axes))
        node = helper.make_node('Pad', ins, ['y'], mode=p.get('mode', 'constant'))
        words = '--op Pad --pads-begin %s --pads-end %s' % (','.join(map(str, p['begin'])), ','.join(map(str, p['end'])))
        if axes is not None: words += ' --axes ' + ','.join(map(str, axes))
        if 'mode' in p: words += ' --mode ' + p['mode']
        if val is not None: words += ' --value %g' % val
    else:
        st, en, ax = p['start'], p['stop'], p.get('axes', list(range(len(p['start']))))
        sp = p.get('step', [1] * len(st))
        inits = [I('st', st), I('en', en), I('ax', ax), I('sp', sp)]
        node = helper.make_node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['y'])
        L = lambda v: ','.join(map(str, v))
        words = '--op OnnxSlice --start %s --stop %s' % (L(st), L(en))
        if 'step' in p: words += ' --step ' + L(sp)
        if 'axes' in p: words += ' --axes ' + L(ax)
    g = helper.make_graph([node], 'g', [helper.make_tensor_value_info('x', T, dims)],
                          [helper.make_tensor_value_info('y', T, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])
    m.ir_version = 8
    onnx.save(m, os.path.join(WORK, 'm%d.onnx' % k))
    meta.append({'file': 'm%d.onnx' % k, 'title': title, 'words': words, 'shape': shape, 'dtype': dtype,
                 'corpus': c['corpus'], 'note': c.get('note')})
json.dump(meta, open(os.path.join(WORK, 'meta.json'), 'w'), indent=0)

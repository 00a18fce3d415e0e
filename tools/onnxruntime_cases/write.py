# write.py SLICEGEN WORK TESTS: writes TESTS/corpus/{pad,onnx_slice}.txt and
# TESTS/error/{pad,onnx_slice}_errors.txt from WORK/results.json (ONNX
# Runtime's results); an error case's text is the slicegen program's
# message, which must be a refusal (exit 2) where ONNX Runtime refused.
import os, re, json, subprocess, shlex, sys, numpy as np
SG = sys.argv[1]; OUT = sys.argv[3]
res = json.load(open(os.path.join(sys.argv[2], 'results.json')))
HEAD = {
 'pad': """# ONNX Pad as ONNX Runtime runs it (docs/semantics.md, "ONNX Slice and Pad"):
# negative pads crop first, then the mode (constant, edge, reflect, wrap) maps
# over what is left. Every expected output was taken from ONNX Runtime 1.30
# (CPU, npm onnxruntime-node) running a one-node opset-19 model on the same
# iota input, except where a case says ONNX Runtime differs: for a wrap
# pre-pad longer than the window it leaves the first (pre-pad - window)
# elements unwritten (zeros or garbage), and the expectation is the true
# modulo (numpy.pad's wrap of the cropped input).
""",
 'onnx_slice': """# ONNX Slice as ONNX Runtime runs it (docs/semantics.md, "ONNX Slice and
# Pad"): Slice-8's rule, except that an end of INT32_MAX or INT64_MAX means
# "to the end" for either sign of step. Every expected output was taken from
# ONNX Runtime 1.30 (CPU, npm onnxruntime-node) running a one-node opset-19
# Slice model on the same iota input.
""",
 'pad_err': """# Pad: every input ONNX Runtime 1.30 refuses (a one-node opset-19 model; its
# message quoted per case) is refused by the planner as a bad slice.
""",
 'onnx_slice_err': """# ONNX Slice: every spec ONNX Runtime 1.30 refuses (a one-node opset-19
# model; its message quoted per case) is refused.
""",
}
FILES = {'pad': 'corpus/pad.txt', 'onnx_slice': 'corpus/onnx_slice.txt', 'pad_err': 'error/pad_errors.txt',
         'onnx_slice_err': 'error/onnx_slice_errors.txt'}
texts = {k: [v] for k, v in HEAD.items()}
def shape(s): return '[' + ','.join(map(str, s)) + ']'
for c in res:
    k = c['corpus']; words = c['words']; out = texts[k]
    lines = ['', 'case ' + c['title'], 'spec ' + words, 'input %s %s iota' % (c['dtype'], shape(c['shape']))]
    if k.endswith('_err'):
        assert 'error' in c, c
        r = subprocess.run([SG, 'plan'] + shlex.split(words) + ['--shape', ','.join(map(str, c['shape'])) or "''", '--dtype', c['dtype']], capture_output=True, text=True)
        assert r.returncode == 2, (c, r.stderr)
        msg = r.stderr.strip().split(': ', 2)[2]  # after "slicegen: error: "
        kind = 'spec' if msg.startswith('failed to make') else 'slice'
        msg = msg.split(': ', 1)[1]
        lines.insert(2, '# ONNX Runtime: ' + re.sub(r'Load model from \S+ failed:', '', c['error']).split(' Input shape')[0].split('FAIL : ')[-1][:110])
        lines.append('error %s %s' % (kind, msg))
    else:
        assert 'error' not in c, c
        vals = c['out']
        if 'defect' in c['title'].lower():
            x = np.arange(int(np.prod(c['shape']))).reshape(c['shape'])
            b, e = int(words.split('--pads-begin ')[1].split()[0]), int(words.split('--pads-end ')[1].split()[0])
            x = x[max(-b, 0): x.shape[0] - max(-e, 0)]
            want = np.pad(x, (max(b, 0), max(e, 0)), mode='wrap').ravel().tolist()
            unwritten = max(b, 0) - x.shape[0]  # ONNX Runtime leaves these as the buffer held them
            shown = ['?'] * unwritten + ['%g' % v for v in vals[unwritten:]]
            lines.insert(2, '# ONNX Runtime 1.30 gives %s (?: left unwritten)' % ' '.join(shown))
            vals = want
        lines.append('output %s %s' % (shape(c['dims']), ' '.join('%g' % v for v in vals)))
    out.extend(lines)
for k, f in FILES.items():
    open(OUT + '/' + f, 'w').write('\n'.join(texts[k]) + '\n')

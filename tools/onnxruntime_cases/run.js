// node run.js WORK: runs every model of WORK/meta.json with ONNX Runtime on
// an iota input (0, 1, 2, ...) and writes WORK/results.json. ORT_NODE names
// the onnxruntime-node package (default: resolved from here).
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const fs = require('fs'), path = require('path');
const work = process.argv[2];
const meta = JSON.parse(fs.readFileSync(path.join(work, 'meta.json')));
(async () => {
  for (const c of meta) {
    try {
      const s = await ort.InferenceSession.create(path.join(work, c.file), {logSeverityLevel: 4});
      const n = c.shape.reduce((a, b) => a * b, 1);
      const x = new ort.Tensor('float32', Float32Array.from({length: n}, (_, i) => i), c.shape);
      const r = await s.run({x});
      c.out = Array.from(r.y.data); c.dims = r.y.dims;
    } catch (e) { c.error = e.message.split('\n')[0].replace(/.*Status Message: /, '').slice(0, 600); }
  }
  fs.writeFileSync(path.join(work, 'results.json'), JSON.stringify(meta));
})();

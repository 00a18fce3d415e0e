// Runs the models of tests/graph/infer_vs_ort.py in ONNX Runtime's CPU
// build (onnxruntime-node), one thread, and writes what it answers:
//
//     node ort_shapes.js ONNXRUNTIME_NODE_DIR WORKDIR
//
// For each run of WORKDIR/manifest.json ({"runs": [{"id", "model",
// "feeds": {NAME: {"type", "dims", "data"}}}]}), one entry of
// WORKDIR/results.json: {"ok": true, "outputs": {NAME: {"type", "dims",
// "data"}}} ("data" for integer and bool outputs of at most 64 elements),
// or {"ok": false, "error": the first line of ONNX Runtime's message}.
// Exit status 0 once every run has its entry, 1 when onnxruntime-node
// cannot be loaded or a file cannot be read or written.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadOrt } = require('../onnx/ort_common');

if (process.argv.length !== 4) {
    console.error('usage: node ort_shapes.js ONNXRUNTIME_NODE_DIR WORKDIR');
    process.exit(2);
}
const [ortDir, dir] = process.argv.slice(2);
const ort = loadOrt(ortDir);

const ARRAYS = {
    float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
    uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
    bool: Uint8Array,
};
const INTEGER = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool']);

function tensor(f) {
    const A = ARRAYS[f.type];
    const data = f.type === 'int64' || f.type === 'uint64' ? A.from(f.data.map((x) => BigInt(x))) : A.from(f.data);
    return new ort.Tensor(f.type, data, f.dims);
}

(async () => {
    const { runs } = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const results = {};
    const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 4 };
    let session = null, sessionModel = null, refused = 0;
    for (const r of runs) {
        try {
            if (sessionModel !== r.model) {
                if (session)
                    await session.release();
                session = null;
                sessionModel = r.model;
                session = await ort.InferenceSession.create(path.join(dir, r.model), options);
            }
            if (!session)
                throw new Error(results[`${r.model}:session`] || 'no session');
            const feeds = {};
            for (const [name, f] of Object.entries(r.feeds))
                feeds[name] = tensor(f);
            const out = await session.run(feeds);
            const outputs = {};
            for (const [name, t] of Object.entries(out)) {
                const o = { type: t.type, dims: Array.from(t.dims) };
                if (INTEGER.has(t.type) && t.size <= 64)
                    o.data = Array.from(t.data, (x) => Number(x));
                outputs[name] = o;
            }
            results[r.id] = { ok: true, outputs };
        } catch (e) {
            if (e.code === 'ENOENT' || e.code === 'EACCES')
                throw e;
            const message = String(e.message).split('\n')[0].replace(/\s+/g, ' ').trim();
            if (session === null)
                results[`${r.model}:session`] = message;
            results[r.id] = { ok: false, error: message };
            refused++;
        }
    }
    if (session)
        await session.release();
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results));
    console.log(`ort_shapes: ${runs.length} runs, ${refused} refused`);
})().catch((e) => {
    console.error(`failed to run the models: ${e.message}`);
    process.exit(1);
});

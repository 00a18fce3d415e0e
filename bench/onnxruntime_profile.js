// ONNX Runtime's own kernel times for the models bench/compare_onnxruntime.py
// writes: each model run on CPU with one thread and the profiler on, and per
// model the median over the runs of the summed kernel_time events of the
// nodes it ran (microseconds, as the profiler records them).
//
//   node bench/onnxruntime_profile.js ONNXRUNTIME_NODE_DIR MANIFEST.json RUNS
//
// MANIFEST.json: [{"model": "m.onnx", "input": "x", "dtype": "float32",
// "shape": [..], "nodes": N}, ...] (N: the model's nodes). Prints one JSON line: [{"model", "kernel_us",
// "session_us", "ops"}, ...] (session_us: the median wall time of session.run; ops: the
// nodes' operators as ONNX Runtime ran them in the last run, after its graph optimizations).
'use strict';
const fs = require('fs');
const path = require('path');

const [ortDir, manifestPath, runsText] = process.argv.slice(2);
if (!ortDir || !manifestPath)
    throw new Error('usage: onnxruntime_profile.js ONNXRUNTIME_NODE_DIR MANIFEST.json [RUNS]');
const ort = require(path.resolve(ortDir));
const runs = Number(runsText || 50);

const arrays = {
    float32: Float32Array, float16: Uint16Array, uint8: Uint8Array, int8: Int8Array,
    int64: BigInt64Array, int32: Int32Array, float64: Float64Array,
};

function median(values) {
    const v = [...values].sort((a, b) => a - b);
    const n = v.length;
    return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

async function profile(entry, dir) {
    const options = {
        executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
        executionMode: 'sequential', enableProfiling: true,
        profileFilePrefix: path.join(dir, path.basename(entry.model, '.onnx')),
    };
    const session = await ort.InferenceSession.create(entry.model, options);
    const count = entry.shape.reduce((a, b) => a * b, 1);
    const data = new arrays[entry.dtype](count);
    for (let i = 0; i < count; i++)
        data[i] = entry.dtype === 'int64' ? BigInt(i % 251) : i % 251;
    const feeds = {[entry.input]: new ort.Tensor(entry.dtype, data, entry.shape)};
    const wall = [];
    for (let r = 0; r < runs + 3; r++) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        if (r >= 3) /* the first runs warm up */
            wall.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    session.endProfiling(); /* writes PREFIX_<date>.json */
    await session.release();
    const prefix = path.basename(options.profileFilePrefix) + '_';
    const files = fs.readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.json'));
    if (files.length !== 1)
        throw new Error('expected one profile ' + prefix + '*.json in ' + dir + ', found ' + files.length);
    const file = path.join(dir, files[0]);
    const events = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.unlinkSync(file);
    // Events come in run order, each run's kernel_time events before its
    // model_run event: sum each run's, and leave out the warm-up runs. ONNX
    // Runtime may run other nodes than the model's (its optimizer rewrites
    // some patterns: four Slices and a Concat of space-to-depth become
    // SpaceToDepth and Gather), so the nodes are counted as it ran them.
    const perRun = [];
    let sum = 0, ops = [];
    for (const e of events) {
        if (e.cat === 'Node' && e.name.endsWith('_kernel_time')) {
            sum += e.dur;
            ops.push((e.args && e.args.op_name) || e.name.slice(0, -'_kernel_time'.length));
        } else if (e.cat === 'Session' && e.name === 'model_run') {
            perRun.push({us: sum, ops});
            sum = 0;
            ops = [];
        }
    }
    if (perRun.length !== runs + 3)
        throw new Error(entry.model + ': ' + perRun.length + ' model_run events for ' + (runs + 3) + ' runs');
    const kernel = perRun.slice(3).map((r) => r.us);
    if (kernel.length === 0 || perRun[perRun.length - 1].ops.length === 0)
        throw new Error('no kernel_time events for ' + entry.model);
    return {model: entry.model, kernel_us: median(kernel), session_us: median(wall),
            ops: perRun[perRun.length - 1].ops};
}

(async () => {
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    const dir = path.dirname(path.resolve(manifestPath));
    const results = [];
    for (const entry of manifest)
        results.push(await profile(entry, dir));
    console.log(JSON.stringify(results));
})().catch((e) => {
    console.error('onnxruntime_profile.js: ' + e.message);
    process.exit(1);
});

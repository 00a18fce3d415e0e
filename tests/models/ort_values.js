// Runs ONNX models in ONNX Runtime's CPU build (onnxruntime-node), one
// thread, graph optimizations off, on .npy inputs, and writes the tensors
// asked for as .npy files: the oracle of tests/models/real_models.py.
//
//     node ort_values.js ONNXRUNTIME_NODE_DIR JOBS.json
//
// JOBS.json is a list of runs, each
//     {"model": "m.onnx", "inputs": {"x": "x.npy", ...}, "outputs": {"y": "y.npy", ...}}
// (paths relative to the folder of JOBS.json); every output named must be a
// graph output of the model. Inputs and outputs are .npy files of format
// 1.0, little-endian, C order: bool, (u)int8 to (u)int64, float16, float32,
// float64. Exit status 0 when every run wrote its outputs; 1 with one line
// on stderr ("ort_values: <model>: <ONNX Runtime's first line>") otherwise.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadOrt, writeNpy } = require('../onnx/ort_common');

if (process.argv.length !== 4) {
    console.error('usage: node ort_values.js ONNXRUNTIME_NODE_DIR JOBS.json');
    process.exit(2);
}
const [ortDir, jobsFile] = process.argv.slice(2);
const dir = path.dirname(path.resolve(jobsFile));
const ort = loadOrt(ortDir, 'ort_values: ');

// .npy descr <-> [ORT tensor type, typed array]
const BY_DESCR = {
    '|b1': ['bool', Uint8Array], '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array],
    '<i2': ['int16', Int16Array], '<u2': ['uint16', Uint16Array], '<i4': ['int32', Int32Array],
    '<u4': ['uint32', Uint32Array], '<i8': ['int64', BigInt64Array], '<u8': ['uint64', BigUint64Array],
    '<f2': ['float16', Uint16Array], '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
};
const BY_TYPE = Object.fromEntries(Object.entries(BY_DESCR).map(([d, [t]]) => [t, d]));

function readNpy(file) {
    const buf = fs.readFileSync(file);
    if (buf.toString('latin1', 0, 6) !== '\x93NUMPY')
        throw new Error(`${file}: not a .npy file`);
    const major = buf[6];
    const len = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
    const start = major === 1 ? 10 : 12;
    const header = buf.toString('latin1', start, start + len);
    const descr = header.match(/'descr': '([^']*)'/)[1];
    if (/'fortran_order': True/.test(header))
        throw new Error(`${file}: Fortran order`);
    const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim() !== '').map(Number);
    if (!(descr in BY_DESCR))
        throw new Error(`${file}: element type ${descr} is not taken`);
    return { descr, shape, bytes: buf.subarray(start + len) };
}


function tensor(file) {
    const { descr, shape, bytes } = readNpy(file);
    const [type, Array_] = BY_DESCR[descr];
    const count = shape.reduce((a, b) => a * b, 1);
    const copy = Uint8Array.from(bytes); // aligned for the typed array
    return new ort.Tensor(type, new Array_(copy.buffer, 0, count), shape);
}

async function runJob(job) {
    const options = {
        intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 4,
        graphOptimizationLevel: 'disabled',
    };
    const session = await ort.InferenceSession.create(path.resolve(dir, job.model), options);
    try {
        const feeds = {};
        for (const [name, file] of Object.entries(job.inputs))
            feeds[name] = tensor(path.resolve(dir, file));
        const results = await session.run(feeds, Object.keys(job.outputs));
        for (const [name, file] of Object.entries(job.outputs)) {
            const t = results[name];
            if (!(t.type in BY_TYPE))
                throw new Error(`output '${name}' is of type ${t.type}, which .npy files here do not take`);
            const raw = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
            writeNpy(path.resolve(dir, file), BY_TYPE[t.type], t.dims, raw);
        }
    } finally {
        await session.release();
    }
}

(async () => {
    const jobs = JSON.parse(fs.readFileSync(jobsFile, 'utf8'));
    for (const job of jobs) {
        try {
            await runJob(job);
        } catch (e) {
            console.error(`ort_values: ${job.model}: ${String(e.message).split('\n')[0].replace(/\s+/g, ' ').trim()}`);
            process.exit(1);
        }
    }
})();

// Runs the models of tests/onnx/gen_models.py in ONNX Runtime's CPU build
// (onnxruntime-node), one thread, and writes what it answers:
//
//     node ort_run.js ONNXRUNTIME_NODE_DIR CASEDIR
//
// For each model of CASEDIR/manifest.json: its ort_model run on NAME.in.npy
// (a string model on made-up strings), each output k written as
// NAME.out<k>.npy, and one line of CASEDIR/results.txt:
//
//     NAME OP OPSET DTYPE OUTPUTS ok<TAB>DESCRIPTION
//     NAME OP OPSET DTYPE OUTPUTS refused<TAB>DESCRIPTION<TAB>MESSAGE
//
// (refused: the session or the run failed; DESCRIPTION is the manifest's
// `desc`, the node's indices and attributes; MESSAGE ONNX Runtime's first
// line).
// A bfloat16 model's ort_model takes and gives float (Cast nodes around the
// node): its input is widened from bfloat16 bits and its outputs narrowed
// back, both exact. Exit status 0 once every model has its line, 1 when
// onnxruntime-node cannot be loaded or a file cannot be read or written.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadOrt, writeNpy } = require('./ort_common');

if (process.argv.length !== 4) {
    console.error('usage: node ort_run.js ONNXRUNTIME_NODE_DIR CASEDIR');
    process.exit(2);
}
const [ortDir, dir] = process.argv.slice(2);
const ort = loadOrt(ortDir);

// slicegen's element type name -> [ORT tensor type, typed array, .npy descr]
const TYPES = {
    bool: ['bool', Uint8Array, '|b1'], i8: ['int8', Int8Array, '|i1'], u8: ['uint8', Uint8Array, '|u1'],
    i16: ['int16', Int16Array, '<i2'], u16: ['uint16', Uint16Array, '<u2'], i32: ['int32', Int32Array, '<i4'],
    u32: ['uint32', Uint32Array, '<u4'], i64: ['int64', BigInt64Array, '<i8'], u64: ['uint64', BigUint64Array, '<u8'],
    f16: ['float16', Uint16Array, '<f2'], bf16: ['float32', Float32Array, '|V2'], f32: ['float32', Float32Array, '<f4'],
    f64: ['float64', Float64Array, '<f8'],
};

// The data bytes and shape of a .npy file of format 1.0 (as NumPy writes them).
function readNpy(file) {
    const buf = fs.readFileSync(file);
    const len = buf.readUInt16LE(8);
    const header = buf.toString('latin1', 10, 10 + len);
    const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim() !== '').map(Number);
    return { bytes: buf.subarray(10 + len), shape };
}


// The model's input as an ORT tensor.
function input(m) {
    const count = m.shape.reduce((a, b) => a * b, 1);
    if (m.dtype === 'string')
        return new ort.Tensor('string', Array.from({ length: count }, (_, i) => `s${i}`), m.shape);
    const { bytes } = readNpy(path.join(dir, `${m.name}.in.npy`));
    const [type, Array_] = TYPES[m.dtype];
    const copy = Uint8Array.from(bytes); // aligned for the typed array
    if (m.dtype === 'bf16') { // widened: the bfloat16 bits are the float's upper half
        const bits = new Uint16Array(copy.buffer), wide = new Uint32Array(count);
        for (let i = 0; i < count; i++)
            wide[i] = bits[i] << 16 >>> 0;
        return new ort.Tensor(type, new Float32Array(wide.buffer), m.shape);
    }
    return new ort.Tensor(type, new Array_(copy.buffer, 0, count), m.shape);
}

// An output's bytes in the model's element type.
function outputBytes(m, t) {
    const raw = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    if (m.dtype !== 'bf16')
        return Buffer.from(raw);
    const wide = new Uint32Array(Uint8Array.from(raw).buffer), narrow = new Uint16Array(wide.length);
    for (let i = 0; i < wide.length; i++)
        narrow[i] = wide[i] >>> 16;
    return Buffer.from(narrow.buffer);
}

async function runOne(m) {
    const options = {
        intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', logSeverityLevel: 4,
    };
    const session = await ort.InferenceSession.create(path.join(dir, m.ort_model), options);
    try {
        const feeds = { [session.inputNames[0]]: input(m) };
        const results = await session.run(feeds);
        if (m.dtype === 'string')
            return;
        session.outputNames.forEach((name, k) => {
            const t = results[name];
            writeNpy(path.join(dir, `${m.name}.out${k}.npy`), TYPES[m.dtype][2], t.dims, outputBytes(m, t));
        });
    } finally {
        await session.release();
    }
}

(async () => {
    const { models } = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const lines = [];
    let refused = 0;
    for (const m of models) {
        let verdict = 'ok\t' + m.desc.replace(/\s+/g, ' ');
        try {
            await runOne(m);
        } catch (e) {
            if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'ENOSPC')
                throw e;
            verdict = `refused\t${m.desc.replace(/\s+/g, ' ')}\t` +
                      String(e.message).split('\n')[0].replace(/\s+/g, ' ').trim();
            refused++;
        }
        lines.push(`${m.name} ${m.op} ${m.opset} ${m.dtype} ${m.outputs} ${verdict}`);
    }
    fs.writeFileSync(path.join(dir, 'results.txt'), lines.join('\n') + '\n');
    console.log(`ort_run: onnxruntime-node ${ort.env.versions ? ort.env.versions.common : ''}: ` +
                `${models.length} models, ${models.length - refused} run, ${refused} refused`);
})().catch((e) => {
    console.error(`failed to run the models: ${e.message}`);
    process.exit(1);
});

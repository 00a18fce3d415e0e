// What the test scripts that run ONNX Runtime from Node share: loading
// onnxruntime-node from its folder, and writing a .npy file.
'use strict';
const fs = require('fs');
const path = require('path');

// onnxruntime-node from ortDir, its log quiet (the scripts report
// refusals themselves); on failure one line on stderr (after `who`) and
// exit status 1.
function loadOrt(ortDir, who = '') {
    let ort;
    try {
        ort = require(path.resolve(ortDir));
    } catch (e) {
        console.error(`${who}failed to load onnxruntime-node: ${String(e.message).split('\n')[0]} (${ortDir})`);
        process.exit(1);
    }
    ort.env.logLevel = 'fatal';
    return ort;
}

// A .npy file of format 1.0, C order.
function writeNpy(file, descr, shape, bytes) {
    const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
    let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
    header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
    const head = Buffer.alloc(10);
    Buffer.from('\x93NUMPY', 'latin1').copy(head);
    head[6] = 1;
    head.writeUInt16LE(header.length, 8);
    fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), bytes]));
}

module.exports = { loadOrt, writeNpy };

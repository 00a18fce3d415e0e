#!/usr/bin/env bash
# The fixture of the onnx-ort tests: installs ONNX Runtime's CPU build
# (tools/install-onnxruntime.sh, into ORT_PREFIX), writes SLICEGEN_ONNX_MODELS
# random models (default 2000; tests/onnx/gen_models.py, seeded by
# SLICEGEN_SEED) into CASEDIR and runs each in ONNX Runtime
# (tests/onnx/ort_run.js), which leaves CASEDIR/results.txt for test_onnx.
# Without node, the onnx Python package or ONNX Runtime it fails with one
# line naming what is missing; SLICEGEN_SKIP_ONNX=1 skips it instead (exit 77).
#   usage: tests/onnx/setup.sh ORT_PREFIX CASEDIR PYTHON
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ort_prefix=$1 dir=$2 python=${3:-}
if [ -n "${SLICEGEN_SKIP_ONNX:-}" ]; then
    echo "onnx-ort skipped: SLICEGEN_SKIP_ONNX is set"
    exit 77
fi
fail() {
    echo "failed to prepare the ONNX Runtime tests: $1 (or set SLICEGEN_SKIP_ONNX=1 to skip them)"
    exit 1
}
command -v node > /dev/null || fail "node is missing (Debian: nodejs)"
[ -n "$python" ] && "$python" -c 'import onnx, numpy' 2> /dev/null ||
    fail "no python3 with the onnx package (Debian: python3-onnx)"
why=$(bash "$here/../../tools/install-onnxruntime.sh" "$ort_prefix" 2>&1) || fail "$why"
rm -rf "$dir"
"$python" "$here/gen_models.py" "$dir" "${SLICEGEN_ONNX_MODELS:-2000}" || fail "gen_models.py failed"
node "$here/ort_run.js" "$ort_prefix/node_modules/onnxruntime-node" "$dir" 2> "$dir/ort-stderr.txt" ||
    fail "ort_run.js failed: $(tail -n 1 "$dir/ort-stderr.txt")"

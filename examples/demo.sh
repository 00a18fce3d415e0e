#!/usr/bin/env bash
# The main job, end to end: build slicegen, slice an example array several
# ways through the C API, then through the command line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SLICEGEN_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" ${LLVM_DIR:+-DLLVM_DIR=$LLVM_DIR} > /dev/null
cmake --build "$build" -j"$(nproc)" > /dev/null
slicegen=$build/cli/slicegen

echo "== the C API (examples/demo.c)"
"$build/examples/slicegen-demo"

echo "== the command line"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
set -x
"$slicegen" run '[::-1, 1::2]' --in "$root/examples/ramp.npy" --out "$out/flipped.npy"
"$slicegen" run --op TrtSlice --start -2,0 --size 8,6 --mode clamp --in "$root/examples/ramp.npy" --out "$out/clamped.npy"
"$slicegen" plan --op StridedSlice --begin 1,0 --end 3,0 --end-mask 0,1 --in "$root/examples/ramp.npy"
{ set +x; } 2> /dev/null
cd "$out"
"$build/examples/slicegen-demo" --show flipped.npy
"$build/examples/slicegen-demo" --show clamped.npy

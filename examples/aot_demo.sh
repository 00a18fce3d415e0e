#!/usr/bin/env bash
# The main job, end to end: build slicegen, compile the example OpenVINO
# model's slice layers ahead of time into an object and a header, link the
# example program (examples/aot_model.c) against them, and run it: every
# kernel, those with runtime values called with some, is checked against
# the reference interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SLICEGEN_BUILD_DIR:-$root/build}
bash "$root/tools/install-deps.sh"
echo "== building slicegen in $build"
cmake -S "$root" -B "$build" ${LLVM_DIR:+-DLLVM_DIR=$LLVM_DIR} > /dev/null
cmake --build "$build" -j"$(nproc)" --target slicegen_cli slicegen > /dev/null
slicegen=$build/cli/slicegen
out=$build/examples/model
mkdir -p "$out"

echo "== compiling the example model's slice layers ahead of time"
set -x
"$slicegen" aot "$root/examples/model/model.xml" -o "$out/model.o" --header "$out/model.h" --prefix model
{ set +x; } 2> /dev/null
echo "-- $out/model.h declares, per kernel:"
sed -n '/^\/\* Layer /,/^extern const slicegen_kernel_info/{p;/^extern/q}' "$out/model.h" # the first kernel
echo "-- a layer whose begin comes from ShapeOf takes it at run time, through a prologue:"
sed -n "/^\/\* Layer 'tail\/dynamic-begin'/,/^extern const slicegen_kernel_info/p" "$out/model.h"
echo "-- and the table: $(grep '_kernels\[\];' "$out/model.h")"

echo "== linking examples/aot_model.c against model.o and running it"
cmake --build "$build" --target slicegen-aot-model > /dev/null
"$build/examples/slicegen-aot-model"

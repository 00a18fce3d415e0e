#!/usr/bin/env bash
# Builds slicegen with warnings as errors and runs every test.
#   SLICEGEN_BUILD_DIR  build folder (default: build)
#   LLVM_DIR            the LLVM to build with, e.g. /usr/lib/llvm-19/lib/cmake/llvm
#   SLICEGEN_SANITIZE   e.g. address,undefined
#   SLICEGEN_SEED       reproduces the random tests
#   SLICEGEN_TESTS      a ctest -R regular expression: run only those tests
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SLICEGEN_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DSLICEGEN_WERROR=ON \
    ${LLVM_DIR:+-DLLVM_DIR="$LLVM_DIR"} ${SLICEGEN_SANITIZE:+-DSLICEGEN_SANITIZE="$SLICEGEN_SANITIZE"}
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" ${SLICEGEN_TESTS:+-R "$SLICEGEN_TESTS"}

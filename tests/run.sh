#!/usr/bin/env bash
# Installs what is missing, builds slicegen with warnings as errors and runs
# every test.
#   SLICEGEN_BUILD_DIR  build folder (default: build)
#   LLVM_DIR            the LLVM to build with, e.g. /usr/lib/llvm-19/lib/cmake/llvm
#   SLICEGEN_SANITIZE   e.g. address,undefined
#   SLICEGEN_SEED       reproduces the random tests
#   SLICEGEN_TESTS      a ctest -R regular expression: run only those tests
#   SLICEGEN_SKIP_TESTS a ctest -E regular expression: run all but those tests
#   SLICEGEN_REQUIRE_CROSS=1  fail, rather than skip, when the cross-target tools are missing
#   SLICEGEN_REQUIRE_MODELS=1 fail, rather than skip, when the published models (npm) cannot be fetched
#   SLICEGEN_MODEL_CACHE  where they are kept (default: the build folder's model-cache)
#   SLICEGEN_ONNX_MODELS  random ONNX models checked against ONNX Runtime (default 2000)
#   SLICEGEN_SKIP_ONNX=1  skip the ONNX Runtime tests (no node, npm or registry here)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SLICEGEN_BUILD_DIR:-$root/build}
# What the tests use beyond the build: a C++ compiler (generated headers),
# NumPy (the oracle of index expressions), cross compilers, their C
# libraries (only recommended by the compilers' packages) and qemu-user
# (aarch64, riscv64, i686 and armv7 objects, run; x86-64 objects on an
# older CPU), gnuplot (slicegen bench --plot),
# pkg-config (the consumer test builds a program with slicegen.pc), pytest,
# pip, setuptools and python3-dev (the Python module's extension, tests
# and pip install),
# Node.js, npm and the onnx Python package (ONNX Runtime as the oracle of
# ONNX models: its npm package, installed into the build folder below).
bash "$root/tools/install-deps.sh" nodejs npm python3-onnx g++ python3-numpy gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu qemu-user \
    libc6-dev-arm64-cross libc6-dev-riscv64-cross gcc-i686-linux-gnu libc6-dev-i386-cross gcc-arm-linux-gnueabihf \
    libc6-dev-armhf-cross gnuplot-nox pkgconf python3-pytest python3-pip python3-setuptools python3-dev
cmake -S "$root" -B "$build" -DSLICEGEN_WERROR=ON \
    ${LLVM_DIR:+-DLLVM_DIR="$LLVM_DIR"} ${SLICEGEN_SANITIZE:+-DSLICEGEN_SANITIZE="$SLICEGEN_SANITIZE"} \
    ${SLICEGEN_REQUIRE_CROSS:+-DSLICEGEN_REQUIRE_CROSS=ON}
cmake --build "$build" -j"$(nproc)"
# On failure the onnx-ort tests fail with the same line (onnx/setup.sh tries again).
[ -n "${SLICEGEN_SKIP_ONNX:-}" ] || bash "$root/tools/install-onnxruntime.sh" "$build/onnxruntime" || true
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" ${SLICEGEN_TESTS:+-R "$SLICEGEN_TESTS"} \
    ${SLICEGEN_SKIP_TESTS:+-E "$SLICEGEN_SKIP_TESTS"}

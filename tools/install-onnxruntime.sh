#!/usr/bin/env bash
# Installs ONNX Runtime's CPU build, the npm package onnxruntime-node at the
# version the ONNX tests pin, into PREFIX/node_modules (nothing when that
# version is already there). The package's install script is not run: it
# only fetches GPU libraries, from a host the tests cannot count on; the CPU
# library is inside the package. Needs npm (Debian: nodejs npm) and access
# to npm's registry. On failure: one line on stderr, exit status 1.
#   usage: tools/install-onnxruntime.sh PREFIX
set -euo pipefail
version=1.30.0
prefix=${1:?usage: tools/install-onnxruntime.sh PREFIX}
package=$prefix/node_modules/onnxruntime-node/package.json
if [ -f "$package" ] && grep -q "\"version\": \"$version\"" "$package"; then
    exit 0
fi
fail() {
    echo "failed to install onnxruntime-node@$version into $prefix: $1" >&2
    exit 1
}
command -v npm > /dev/null || fail "npm is missing (Debian: nodejs npm)"
mkdir -p "$prefix" || fail "cannot create the folder"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
npm install --ignore-scripts --no-audit --no-fund --prefix "$prefix" "onnxruntime-node@$version" > "$log" 2>&1 ||
    fail "npm install failed ($(grep -m1 -iE 'npm (error|ERR)' "$log" | sed 's/^npm \(error\|ERR!\) *//' || true))"
[ -f "$package" ] || fail "npm installed no $package"

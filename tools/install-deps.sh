#!/usr/bin/env bash
# Installs the Debian packages slicegen needs that are missing: by default
# what building it takes (a C compiler, CMake, pkg-config, LLVM's development
# files, libxml2's and protobuf-c's with its code generator protoc-c); more
# packages may be named as arguments. As root it runs apt-get; otherwise it
# prints the command to run and fails.
#   usage: tools/install-deps.sh [PACKAGE...]
set -euo pipefail
packages=(cmake gcc make pkgconf libxml2-dev libprotobuf-c-dev protobuf-c-compiler "$@")
# Any LLVM from 14 on will do; Debian's default one if there is none.
if ! ls /usr/lib/llvm-*/lib/cmake/llvm/LLVMConfig.cmake > /dev/null 2>&1; then
    packages+=(llvm-dev)
fi
missing=()
for p in "${packages[@]}"; do
    # A working node or npm on PATH (NodeSource's, nvm's) does as well as Debian's.
    case $p in
        nodejs) node --version > /dev/null 2>&1 && continue ;;
        npm) npm --version > /dev/null 2>&1 && continue ;;
    esac
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "slicegen needs these Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "installing: ${missing[*]}"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# The Debian package, on a Debian machine, as root (it installs and removes
# the package): builds slicegen for the prefix /usr, makes
# slicegen_<version>_<arch>.deb with `cpack -G DEB`, prints its control fields
# and files, checks that it depends on the LLVM runtime library it links
# (libllvm14, libllvm19, ...) and on libxml2, installs it with apt-get,
# checks /usr/bin/slicegen, its manual page and tests/package/consumer_test.sh
# against /usr, then removes (purges) the package again.
#   SLICEGEN_DEB_BUILD_DIR  build folder (default: build-deb); the .deb is left there
#   LLVM_DIR                the LLVM to build with, e.g. /usr/lib/llvm-14/lib/cmake/llvm
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${SLICEGEN_DEB_BUILD_DIR:-$root/build-deb}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "deb_test.sh installs and removes a package: run it as root"
# dpkg-shlibdeps (dpkg-dev) computes Depends; pkg-config for the consumer test.
bash "$root/tools/install-deps.sh" dpkg-dev pkgconf
if [ "$(dpkg-query -W -f='${Status}' slicegen 2> /dev/null)" = "install ok installed" ]; then
    fail "a slicegen package is installed already; remove it first (apt-get remove slicegen)"
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DSLICEGEN_WERROR=ON \
    ${LLVM_DIR:+-DLLVM_DIR="$LLVM_DIR"}
cmake --build "$build" -j"$(nproc)"
rm -f "$build"/slicegen_*.deb
(cd "$build" && cpack -G DEB)
debs=("$build"/slicegen_*.deb)
[ "${#debs[@]}" -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack made no single slicegen_*.deb in $build"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "slicegen_${version}_${arch}.deb" ] || fail "$deb is not named slicegen_${version}_${arch}.deb"
echo "== $deb"
dpkg-deb -I "$deb"
contents=$(dpkg-deb -c "$deb")
echo "$contents"
depends=$(dpkg-deb -f "$deb" Depends)
llvm_package=$(dpkg -S "$(readlink -f "$(ldd "$build/cli/slicegen" | awk '/libLLVM/ { print $3 }')")" | cut -d: -f1)
[[ ", $depends," =~ ,\ $llvm_package[\ ,] ]] || fail "Depends ($depends) does not name $llvm_package"
[[ ", $depends," =~ ,\ libxml2[\ ,] ]] || fail "Depends ($depends) does not name libxml2"
[[ ", $depends," =~ ,\ libprotobuf-c1[\ ,] ]] || fail "Depends ($depends) does not name libprotobuf-c1"
echo "ok: Depends: $depends"

trap 'echo "== removing the package"; apt-get purge -y -q slicegen' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$(realpath "$deb")"
[ "$(command -v slicegen)" = /usr/bin/slicegen ] || fail "slicegen is not /usr/bin/slicegen: $(command -v slicegen)"
echo "ok: $(slicegen --version), from /usr/bin/slicegen"
grep -q ' ./usr/share/man/man1/slicegen\.1' <<< "$contents" || fail "$deb holds no manual page"
if command -v man > /dev/null && [ -e /usr/share/man/man1/slicegen.1.gz ]; then
    page=$(man -w slicegen) || fail "man -w slicegen finds no page"
    [[ $page == /usr/share/man/man1/slicegen.1* ]] || fail "man -w slicegen gives $page"
    echo "ok: man slicegen: $page"
fi
bash "$root/tests/package/consumer_test.sh" --prefix /usr

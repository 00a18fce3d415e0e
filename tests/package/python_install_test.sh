#!/usr/bin/env bash
# The Python module as users install it: `pip install ./python`, offline,
# with Debian's setuptools, into a fresh venv, with a copy of the library
# placed next to the module first; then, outside the source tree and with
# neither SLICEGEN_LIBRARY nor PYTHONPATH, the module must load that copy
# and pass the Python tests; last, pip uninstalls it. pip builds the
# extension slicegen._ext against the repository's include/ and that copy.
# Exits 77 (skipped) where NumPy, pip, setuptools or Python.h is missing.
#   usage: python_install_test.sh PYTHON LIBSLICEGEN.so SOURCE_DIR [SLICEGEN]
#   SLICEGEN_PYTHON_INSTALL_CASES  random cases of the Python tests against the
#   installed module (default 100: the test is of the install; `python` runs more)
set -euo pipefail
python=$1 lib=$2 src=$3 cli=${4:-}
skip() { echo "python-install: $* is not installed; skipped"; exit 77; }
"$python" -c "import numpy" 2> /dev/null || skip "NumPy (Debian: python3-numpy)"
"$python" -m pip --version > /dev/null 2>&1 || skip "pip (Debian: python3-pip)"
"$python" -c "import setuptools" 2> /dev/null || skip "setuptools (Debian: python3-setuptools)"
"$python" -c "import os, sysconfig, sys; sys.exit(not os.path.exists(sysconfig.get_path('include') + '/Python.h'))" ||
    skip "Python.h (Debian: python3-dev)"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp -r "$src/python" "$tmp/python"
cp -r "$src/include" "$tmp/include"
rm -rf "$tmp/python/build" "$tmp/python"/*.egg-info "$tmp/python/slicegen/libslicegen.so"* "$tmp/python/slicegen/_ext"*.so
cp -L "$lib" "$tmp/python/slicegen/libslicegen.so.0"
# --system-site-packages: NumPy, pytest, and pip itself (a venv without
# ensurepip, which Debian keeps in python3-venv, has no pip of its own).
"$python" -m venv --system-site-packages --without-pip "$tmp/venv"
venv_python=$tmp/venv/bin/python
(cd "$tmp" && "$venv_python" -m pip install --no-build-isolation --no-index --no-deps --quiet "$tmp/python") ||
    fail "pip install ./python"
site=$("$venv_python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
[ -f "$site/slicegen/libslicegen.so.0" ] || fail "the library was not installed with the module"
ls "$site"/slicegen/_ext.abi3.so > /dev/null || fail "the extension slicegen._ext was not installed"

cd "$tmp"
unset SLICEGEN_LIBRARY PYTHONPATH
loaded=$("$venv_python" -c "import slicegen; print(slicegen.library_path)")
[ "$loaded" = "$(realpath "$site/slicegen/libslicegen.so.0")" ] ||
    fail "the installed module loaded $loaded, not the copy installed with it"
echo "python-install: installed in $site, loads $loaded"
SLICEGEN_CLI=$cli SLICEGEN_CASES=${SLICEGEN_PYTHON_INSTALL_CASES:-100} "$venv_python" "$src/python/tests/run_tests.py" ||
    fail "the Python tests against the installed module"

"$venv_python" -m pip uninstall --yes --quiet slicegen
if "$venv_python" -c "import slicegen" 2> /dev/null; then
    fail "slicegen still imports after pip uninstall"
fi
echo "python-install: passed"

"""Builds the extension slicegen._ext (src/slicegen_ext.c) for the stable ABI
(CPython 3.11 and later), linked to libslicegen.so.0. The header is taken
from the repository (../include) or $SLICEGEN_INCLUDE, else the system's;
the library linked to is the copy placed in slicegen/ (installed with the
module), else $SLICEGEN_LIBRARY, else libslicegen.so on the system's path.
At run time the module uses the library it loads (see _capi.py)."""
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _first(*paths):
    return next((p for p in paths if p and os.path.exists(p)), None)


include = _first(os.environ.get("SLICEGEN_INCLUDE"), os.path.join(HERE, "..", "include"))
library = _first(os.path.join(HERE, "slicegen", "libslicegen.so.0"), os.environ.get("SLICEGEN_LIBRARY"))
extension = Extension(
    "slicegen._ext", ["src/slicegen_ext.c"], py_limited_api=True,
    include_dirs=[include] if include else [],
    # A library given by its path is recorded by its soname, libslicegen.so.0.
    extra_link_args=[library, "-Wl,-rpath,$ORIGIN"] if library else ["-Wl,-rpath,$ORIGIN"],
    libraries=[] if library else ["slicegen"])
setup(ext_modules=[extension], options={"bdist_wheel": {"py_limited_api": "cp311"}})

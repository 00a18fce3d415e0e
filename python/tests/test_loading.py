"""Where the library is found: $SLICEGEN_LIBRARY, a copy next to the
module, the system's library path; and what a missing one says. Each case
imports slicegen in a fresh interpreter."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from _common import PYTHON_DIR, slicegen

LIBRARY = slicegen.library_path
PROBE = "import slicegen, numpy as np; print(slicegen.library_path); print(slicegen.slice(np.arange(4), '[::-1]'))"


def run_python(env_changes, cwd, code=PROBE):
    env = {k: v for k, v in os.environ.items() if k not in ("SLICEGEN_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)


class Loading(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.package = os.path.join(self.tmp.name, "site", "slicegen")
        shutil.copytree(os.path.join(os.path.dirname(slicegen.__file__)), self.package,
                        ignore=shutil.ignore_patterns("libslicegen.so*", "__pycache__"))
        self.site = os.path.dirname(self.package)

    def tearDown(self):
        self.tmp.cleanup()

    def test_environment_variable(self):
        run = run_python({"SLICEGEN_LIBRARY": LIBRARY, "PYTHONPATH": self.site}, self.tmp.name)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines()[0], os.path.realpath(LIBRARY))
        self.assertIn("[3 2 1 0]", run.stdout)

    def test_next_to_the_module(self):
        shutil.copy(LIBRARY, os.path.join(self.package, "libslicegen.so.0"))
        run = run_python({"PYTHONPATH": self.site}, self.tmp.name)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines()[0], os.path.realpath(os.path.join(self.package, "libslicegen.so.0")))

    def test_system_path(self):
        libdir = os.path.join(self.tmp.name, "lib")
        os.mkdir(libdir)
        shutil.copy(LIBRARY, os.path.join(libdir, "libslicegen.so.0"))
        run = run_python({"PYTHONPATH": self.site, "LD_LIBRARY_PATH": libdir}, self.tmp.name)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines()[0], os.path.join(libdir, "libslicegen.so.0"))

    def test_missing_library(self):
        missing = os.path.join(self.tmp.name, "nowhere", "libslicegen.so")
        run = run_python({"SLICEGEN_LIBRARY": missing, "PYTHONPATH": self.site}, self.tmp.name)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("ImportError: slicegen: cannot load libslicegen", run.stderr)
        self.assertIn(missing, run.stderr)
        self.assertIn("SLICEGEN_LIBRARY", run.stderr)
        not_slicegen = run_python({"SLICEGEN_LIBRARY": "libm.so.6", "PYTHONPATH": self.site}, self.tmp.name)
        self.assertIn("not libslicegen", not_slicegen.stderr)

    def test_source_tree_holds_no_build_outputs(self):
        files = sorted(f for f in os.listdir(os.path.join(PYTHON_DIR, "slicegen"))
                       if not f.startswith(("__pycache__", "libslicegen.so")))
        self.assertEqual(files, ["__init__.py", "_capi.py", "_core.py", "_model.py"])


if __name__ == "__main__":
    unittest.main()

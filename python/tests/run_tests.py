"""Runs the Python tests: with pytest when it is installed, else with
unittest's discovery. Exits 77 (skipped, for ctest) without NumPy.
    usage: python3 python/tests/run_tests.py [pytest or unittest arguments]
Environment: SLICEGEN_LIBRARY, SLICEGEN_CLI, SLICEGEN_SEED, SLICEGEN_CASES
(see _common.py)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("python: NumPy is not installed (Debian: python3-numpy); skipped")
        return 77
    sys.path.insert(0, HERE)
    import _common  # noqa: F401  (prints the seed, the library and the command line tested)
    try:
        import pytest
    except ImportError:
        pytest = None
    if pytest is not None:
        return pytest.main(["-p", "no:cacheprovider", "-rs", "-q", "-s", HERE] + sys.argv[1:])
    print("python: pytest is not installed; running the tests with unittest")
    suite = unittest.defaultTestLoader.discover(HERE, top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    print(f"python: {result.testsRun - len(result.failures) - len(result.errors) - len(result.skipped)} passed, "
          f"{len(result.failures) + len(result.errors)} failed, {len(result.skipped)} skipped")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())

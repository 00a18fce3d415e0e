"""pytest only: shows the seed and what is tested in the report's header
(the tests themselves also run under unittest)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_report_header(config):
    try:
        import _common
    except Exception as e:  # NumPy missing: every module skips
        return [f"slicegen: not testable here ({e})"]
    return [f"slicegen: seed {_common.SEED} (set SLICEGEN_SEED to reproduce), library "
            f"{_common.slicegen.library_path}, command line {_common.CLI or '(SLICEGEN_CLI not set)'}"]

"""The Python example of the repository's README.md runs as written (in a
temporary folder, as it writes mirror.o and mirror.h)."""
import contextlib
import io
import os
import re
import tempfile
import unittest

from _common import ROOT

README = os.path.join(ROOT, "README.md")


def readme_example():
    text = open(README).read()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


class Readme(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(README), "not in the source tree: README.md is missing")
    def test_example_runs(self):
        code = readme_example()
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            try:
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(code, "README.md (Python)", "exec"), {"__name__": "readme"})
                self.assertEqual(sorted(os.listdir(tmp)), ["mirror.h", "mirror.o"])
            finally:
                os.chdir(cwd)
        lines = printed.getvalue().splitlines()
        self.assertEqual(lines[0], "(6, 8)")
        self.assertIn("op TrtSlice", lines)
        # each comment that shows printed text shows what is printed
        self.assertIn("failed to plan NumPy: index out of range (step 0: index 4, input dimension 0 has size 4)",
                      lines)


if __name__ == "__main__":
    unittest.main()

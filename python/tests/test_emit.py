"""slicegen.emit and Kernel.emit: every output kind, the header, a program
linked with the object and run (where a C compiler is), the headers of
`slicegen emit` (where the command line is), errors that write nothing."""
import contextlib
import faulthandler
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

from _common import CLI, cli, needs_cli, np, random_array, rng_for, same, slicegen

CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "kernel.h"
/* in.bin -> NAME over its whole outer range, in two calls -> out.bin */
int main(void)
{
    static unsigned char in[NAME_INPUT_BYTES + 1], out[NAME_OUTPUT_BYTES + 1];
    FILE *f = fopen("in.bin", "rb");
    if (!f || fread(in, 1, NAME_INPUT_BYTES, f) != NAME_INPUT_BYTES) return 1;
    fclose(f);
    NAME(in, out, 0, NAME_OUTER_EXTENT / 2);
    NAME(in, out, NAME_OUTER_EXTENT / 2, NAME_OUTER_EXTENT);
    f = fopen("out.bin", "wb");
    if (!f || fwrite(out, 1, NAME_OUTPUT_BYTES, f) != NAME_OUTPUT_BYTES) return 1;
    return fclose(f) != 0;
}
"""


@contextlib.contextmanager
def crash_handler_log(path):
    """Before compiling for a named target or CPU the library tries it in a
    child process, which LLVM may abort; the child must die of that abort
    with LLVM's words alone, not run the crash handlers of the process it
    was forked from. faulthandler, on here and writing to `path`, is such a
    handler: the file must stay empty."""
    enabled = faulthandler.is_enabled()
    with open(path, "w") as log:
        faulthandler.enable(file=log)
        try:
            yield
        finally:
            faulthandler.disable()
            if enabled:
                faulthandler.enable()


class Emit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.tmp_log = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()
        self.tmp_log.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_object_and_header(self):
        obj, header = self.path("mirror.o"), self.path("mirror.h")
        name = slicegen.emit("[:, ::-1]", (48, 64, 3), np.uint8, obj, header=header, name="mirror")
        self.assertEqual(name, "mirror")
        with open(obj, "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")
        text = open(header).read()
        kernel = slicegen.compile("[:, ::-1]", (48, 64, 3), np.uint8)
        for line in ["void mirror(const void *in, void *out, int64_t begin, int64_t end);",
                     f"#define mirror_OUTER_EXTENT ((int64_t){kernel.outer_extent})",
                     f"#define mirror_INPUT_BYTES ((int64_t){48 * 64 * 3})",
                     f"#define mirror_OUTPUT_BYTES ((int64_t){48 * 64 * 3})",
                     "mirror_info"]:
            self.assertIn(" ".join(line.split()), " ".join(text.split()))
        self.assertEqual(sorted(os.listdir(self.dir)), ["mirror.h", "mirror.o"])

    def test_output_kinds_and_targets(self):
        default = slicegen.emit("[::2]", (64, 64), "f32", self.path("a.ll"))
        self.assertTrue(default.startswith("sg_x4_"), default)
        # another shape, type or level of one loop nest: another default name
        self.assertNotEqual(slicegen.emit("[::2]", (64, 64), "i32", self.path("b.ll")), default)
        self.assertNotEqual(slicegen.emit("[::2]", (64, 64), "f32", self.path("b.ll"), opt_level=0), default)
        self.assertTrue(open(self.path("a.ll")).read().startswith("; ModuleID"))
        slicegen.emit("[::2]", (64, 64), "f32", self.path("a.s"), name="half")
        self.assertIn("half", open(self.path("a.s")).read())
        slicegen.emit("[::2]", (64, 64), "f32", self.path("libhalf.a"), name="half", opt_level=0)
        with open(self.path("libhalf.a"), "rb") as f:
            self.assertEqual(f.read(8), b"!<arch>\n")
        slicegen.emit("[::2]", (64, 64), "f32", self.path("arm.o"), target="aarch64-linux-gnu", cpu="generic")
        with open(self.path("arm.o"), "rb") as f:
            elf = f.read(20)
        self.assertEqual(struct.unpack("<H", elf[18:20])[0], 183)  # EM_AARCH64
        kernel = slicegen.compile(slicegen.TrtSlice([-1], [10], mode="wrap"), (8,), np.int64)
        self.assertEqual(kernel.emit(self.path("k.o"), header=self.path("k.h"), name="wrap8"), "wrap8")
        self.assertIn("wrap8_OUTER_EXTENT", open(self.path("k.h")).read())

    def test_cpu_and_protection(self):
        """The default CPU is the target's baseline, "native" this machine's;
        the header says which. Objects carry CET or BTI and PAC notes unless
        cf_protection=False (the note's type, NT_GNU_PROPERTY_TYPE_0, is 5)."""
        def header_target(**kwargs):
            slicegen.emit("[:, ::-1]", (8, 64), "u8", self.path("k.o"), header=self.path("k.h"), name="k", **kwargs)
            return re.search(r" for (\S+) \(cpu (\S+) with (its own features|features\n)",
                             open(self.path("k.h")).read()).groups()
        triple, cpu, features = header_target()
        if triple.startswith("x86_64"):
            self.assertEqual((cpu, features), ("x86-64", "its own features"))
            self.assertEqual(header_target(cpu="native")[2], "features\n")
        self.assertEqual(header_target(target="aarch64-linux-gnu")[1:], ("generic", "its own features"))
        marked = open(self.path("k.o"), "rb").read()
        header_target(target="aarch64-linux-gnu", cf_protection=False)
        plain = open(self.path("k.o"), "rb").read()
        self.assertIn(b"GNU\0", marked)
        self.assertNotIn(b".note.gnu.property", plain)
        self.assertIn(b".note.gnu.property", marked)

    def test_stores(self):
        """stores="streaming" gives aligned !nontemporal stores and a fence,
        "cached" and a small output under "auto" none; other values raise."""
        def ir(**kwargs):
            slicegen.emit("[1:, 2:]", (8, 1024), "u8", self.path("k.ll"), target="x86_64-linux-gnu", cpu="haswell",
                          **kwargs)
            return open(self.path("k.ll")).read()
        self.assertNotIn("nontemporal", ir())
        self.assertNotIn("nontemporal", ir(stores="cached"))
        streaming = ir(stores="streaming")
        self.assertRegex(streaming, r"store <32 x i8> .*, align 32, !nontemporal")
        self.assertIn("llvm.x86.sse.sfence", streaming)
        kernel = slicegen.compile("[1:, 2:]", (8, 1024), "u8")
        kernel.emit(self.path("k.ll"), target="x86_64-linux-gnu", cpu="haswell", stores="streaming")
        self.assertIn("nontemporal", open(self.path("k.ll")).read())
        with self.assertRaises(slicegen.SliceError):
            ir(stores="fast")

    @unittest.skipUnless(CC, "no C compiler (cc): the emitted object is not linked and run")
    def test_linked_and_run(self):
        rng = rng_for("emit")
        cases = [("[1:, ::-1, None]", (9, 7), np.float32),
                 (slicegen.TrtSlice([-2, 3], [11, 6], [1, -1], "reflect"), (5, 8), np.int16),
                 (slicegen.TrtSlice([-1, -1], [4, 5], mode="fill", fill="nan"), (2, 3), np.float64),
                 (slicegen.StridedSlice([0, 1], [0, 0], [1, 2], end_mask=[1, 1]), (6, 6), np.uint8)]
        for spec, shape, dtype in cases:
            x = random_array(rng, shape, dtype)
            want = slicegen.compile(spec, shape, dtype)(x)
            slicegen.emit(spec, shape, dtype, self.path("kernel.o"), header=self.path("kernel.h"), name="NAME")
            with open(self.path("main.c"), "w") as f:
                f.write(PROGRAM)
            build = subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-o", self.path("main"),
                                    self.path("main.c"), self.path("kernel.o")], capture_output=True, text=True)
            self.assertEqual(build.returncode, 0, build.stderr)
            x.tofile(self.path("in.bin"))
            run = subprocess.run([self.path("main")], cwd=self.dir, capture_output=True)
            self.assertEqual(run.returncode, 0)
            got = np.fromfile(self.path("out.bin"), dtype=dtype).reshape(want.shape)
            self.assertTrue(same(got, want), f"{spec}")

    @needs_cli
    def test_same_files_as_the_command_line(self):
        slicegen.emit("[..., ::-1]", (4, 6), "i32", self.path("py.ll"), header=self.path("py.h"), name="rev")
        cli("emit", "[..., ::-1]", "--shape", "4,6", "--dtype", "i32", "-o", self.path("cli.ll"),
            "--header", self.path("cli.h"), "--name", "rev")
        # the same but for the object's name, and for the command line the CLI's header quotes
        self.assertEqual(open(self.path("py.ll")).read().replace("py.o", "cli.o"), open(self.path("cli.ll")).read())
        cli_header = re.sub(r" with\n \*     slicegen emit [^\n]*\n \*", "", open(self.path("cli.h")).read())
        self.assertEqual(open(self.path("py.h")).read(), cli_header)

    def test_errors_write_nothing(self):
        existing = self.path("old.o")
        with open(existing, "w") as f:
            f.write("keep")
        cases = [dict(path=self.path("k.txt")), dict(path=existing, name="1abc"),
                 dict(path=existing, name="int"), dict(path=existing, name="int64_t"),
                 dict(path=existing, name="slicegen_kernel"), dict(path=existing, name="memcpy"),
                 dict(path=existing, target="no-such-triple"),
                 dict(path=existing, header=existing), dict(path=existing, cpu="no-such-cpu"),
                 dict(path=existing, target="x86_64-linux-gnu", cpu="i386"),
                 dict(path=self.path("missing/k.o")), dict(path=existing, opt_level=9)]
        for kwargs in cases:
            path = kwargs.pop("path")
            log = os.path.join(self.tmp_log.name, "faulthandler.log")
            with self.assertRaises(slicegen.SliceError) as caught, crash_handler_log(log):
                slicegen.emit("[1:]", (4,), "u8", path, **kwargs)
            self.assertEqual(len(str(caught.exception).splitlines()), 1)
            self.assertEqual(open(log).read(), "", f"{kwargs}: a crash handler ran")
            self.assertEqual(open(existing).read(), "keep", f"{kwargs}")
            self.assertEqual(sorted(os.listdir(self.dir)), ["old.o"], f"{kwargs}")
        with self.assertRaises(slicegen.SliceError):
            slicegen.emit("[9]", (4,), "u8", self.path("k.o"))
        self.assertEqual(sorted(os.listdir(self.dir)), ["old.o"])

    def test_header_and_output_one_file(self):
        """However the header's path spells the output's file (./, .., a
        symbolic or a hard link), nothing is written."""
        existing = self.path("old.o")
        with open(existing, "w") as f:
            f.write("keep")
        os.mkdir(self.path("sub"))
        os.symlink("old.o", self.path("alias.o"))
        os.link(existing, self.path("hard.o"))
        for header in (existing, os.path.join(self.dir, ".", "old.o"), self.path("sub/../old.o"),
                       self.path("alias.o"), self.path("hard.o")):
            with self.assertRaises(slicegen.SliceError) as caught:
                slicegen.emit("[1:]", (4,), "u8", existing, header=header)
            self.assertIn(f"the header '{header}' and the output '{existing}' are the same file",
                          str(caught.exception))
            self.assertEqual(open(existing).read(), "keep", header)
        self.assertEqual(sorted(os.listdir(self.dir)), ["alias.o", "hard.o", "old.o", "sub"])


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env bash
# `slicegen emit`: every output kind (.o .a .s .ll) links, assembles or
# parses; objects are position-independent (a shared library, a PIE); two
# generated headers compile together as C11 and C++ with warnings as errors,
# and what NAME_info and the macros say matches `slicegen plan`; the
# kernels' outputs match the reference interpreter; errors (bad extension,
# name, triple, CPU) exit 2 with one line and leave existing files as they
# were. Cross targets emit objects of their architecture.
# usage: emit_test.sh path/to/slicegen path/to/llvm-as
set -u
SLICEGEN=$(realpath "${1:?usage: emit_test.sh path/to/slicegen path/to/llvm-as}")
LLVM_AS=${2:?usage: emit_test.sh path/to/slicegen path/to/llvm-as}
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
. "$HERE/../support/lib.sh"

make_npy f32.npy '<f4' '(4, 6)' "$(iota_bytes 96)"
make_npy u8.npy '|u1' '(5, 7)' "$(iota_bytes 35)"
ONE=('[1:, ::-1]' --in f32.npy)
TWO=(--op TrtSlice --start -1,2 --size 7,4 --stride 1,-1 --mode fill --fill 200 --shape 5,7 --dtype u8)

# ---- objects and headers ----
check "emit one" "$SLICEGEN" emit "${ONE[@]}" -o one.o --header one.h --name one
check "emit two" "$SLICEGEN" emit "${TWO[@]}" -o two.o --header two.h --name two -O3
for compile in "$CC -std=c11 -Wall -Wextra -Wpedantic -Werror" "$CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -x c++"; do
    rm -f info
    check "headers compile together: $compile" $compile -I. "$HERE/emit_info.c" -x none one.o two.o -o info
    check "the program runs" ./info
    ./info > info.txt 2>&1
done
# The description of kernel one (first block of info.txt), field by field.
sed -n '1,/^--$/p' info.txt | sed '$d' > one.txt
"$SLICEGEN" plan "${ONE[@]}" > one.plan
expect_one="version 5
name one
layer (null)
layer_id -1
fn ok
dtype f32
elem_size 4
in_shape 4,6
out_shape 3,6
outer_extent 3 3
input_bytes 96 96
output_bytes 72 72
spec '[1:, ::-1]'"
if [ "$(head -n 13 one.txt)" = "$expect_one" ]; then ok; else bad "one_info differs:"; diff <(echo "$expect_one") <(head -n 13 one.txt) >&2; fi
grep -q "^target $(uname -m)" one.txt && ok || bad "one_info.target is not the host: $(grep ^target one.txt)"
if diff <(sed -n '/^plan$/,$p' one.txt | sed 1d) one.plan > /dev/null; then ok; else bad "one_info.plan differs from slicegen plan"; fi
"$SLICEGEN" plan "${TWO[@]}" > two.plan
if diff <(sed -n '/^--$/,$p' info.txt | sed -n '/^plan$/,$p' | sed 1d) two.plan > /dev/null; then ok; else bad "two_info.plan differs from slicegen plan"; fi
grep -q "^outer_extent 7 7$" info.txt && grep -q "^output_bytes 28 28$" info.txt && ok || bad "two's sizes"
grep -q "^spec --op TrtSlice --start -1,2 --size 7,4 --stride 1,-1 --mode fill --fill 200$" info.txt \
    && ok || bad "two_info.spec is not the command line's SPEC"

# The kernels' outputs against the reference interpreter.
"$SLICEGEN" run "${ONE[0]}" --in f32.npy --out one.npy --engine ref
"$SLICEGEN" run "${TWO[@]:0:12}" --in u8.npy --out two.npy --engine ref
cmp -s one.out <(tail -c 72 one.npy) && ok || bad "kernel one's output differs from the reference"
cmp -s two.out <(tail -c 28 two.npy) && ok || bad "kernel two's output differs from the reference"

# The header's comment says what the kernel is and how to call it.
for text in "slicegen emit '\[1:, ::-1\]' --in f32.npy -o one.o --header one.h --name one" "input  f32 \[4, 6\], 96 bytes" \
    "output f32 \[3, 6\], 72 bytes" "NAME(in, out, 0, NAME_OUTER_EXTENT)" "with T threads"; do
    grep -q "$text" one.h && ok || bad "one.h lacks '$text'"
done
grep -q '#include' one.h && [ "$(grep '#include' one.h | grep -cv -e '<stdint.h>' -e '<stddef.h>')" = 0 ] \
    && ok || bad "the header includes more than <stdint.h> and <stddef.h>"

# Position-independent: a shared library and a PIE.
check "a shared library links the object" "$CC" -shared one.o -o libone.so
check "a PIE links the object" "$CC" -pie -fPIE -I. "$HERE/emit_info.c" one.o two.o -o info-pie
check "the PIE runs" ./info-pie

# ---- archives, assembly, IR ----
check "emit .a" "$SLICEGEN" emit "${ONE[@]}" -o one.a --name one
check "emit .a" "$SLICEGEN" emit "${TWO[@]}" -o libtwo-with-a-long-name.a --name two
[ "$(ar t one.a)" = one.o ] && ok || bad "ar t one.a: $(ar t one.a)"
[ "$(ar t libtwo-with-a-long-name.a)" = libtwo-with-a-long-name.o ] && ok || bad "ar t of a long member name"
nm -s one.a | grep -q "^one_info in one.o" && ok || bad "the archive's index lacks one_info"
check "a program links the archives" "$CC" -I. "$HERE/emit_info.c" one.a libtwo-with-a-long-name.a -o info-a
check "the program runs" ./info-a
check "emit .s" "$SLICEGEN" emit "${ONE[@]}" -o one.s --name one -O1
check "the assembly assembles" "$CC" -c one.s -o one-from-s.o
nm one-from-s.o | grep -q " T one$" && ok || bad "the assembly defines one"
check "emit .ll" "$SLICEGEN" emit "${ONE[@]}" -o one.ll --name one -O0
check "llvm-as parses the IR" "$LLVM_AS" one.ll -o one.bc
check "emit with the default name" "$SLICEGEN" emit "${ONE[@]}" -o default.o --header default.h
grep -Eq "^void sg_x4_l2_r4_[0-9a-f]{16}\(const void \*in" default.h && ok || bad "the default name: $(grep '^void' default.h)"
# Two kernels with one loop nest but other shapes and types: their default
# names and header guards differ, so both link into one program.
check "emit [:2] of f32 [4,6]" "$SLICEGEN" emit '[:2]' --shape 4,6 --dtype f32 -o d1.o --header d1.h
check "emit [0:12] of i32 [100]" "$SLICEGEN" emit '[0:12]' --shape 100 --dtype i32 -o d2.o --header d2.h
n1=$(sed -n 's/^void \(sg_[0-9a-z_]*\)(.*/\1/p' d1.h) n2=$(sed -n 's/^void \(sg_[0-9a-z_]*\)(.*/\1/p' d2.h)
[ -n "$n1" ] && [ -n "$n2" ] && [ "$n1" != "$n2" ] && ok || bad "default names $n1 and $n2"
cat > two.c <<C
#include <stdio.h>
#include <string.h>
#include "d1.h"
#include "d2.h"
int main(void)
{
    float a[24], b[12];
    int32_t c[100], d[12];
    for (int i = 0; i < 24; i++) a[i] = (float)i;
    for (int i = 0; i < 100; i++) c[i] = 1000 + i;
    $n1(a, b, 0, ${n1}_OUTER_EXTENT);
    $n2(c, d, 0, ${n2}_OUTER_EXTENT);
    int good = ${n1}_INPUT_BYTES == 96 && ${n2}_INPUT_BYTES == 400 && strcmp(${n1}_info.dtype, "f32") == 0 &&
               strcmp(${n2}_info.dtype, "i32") == 0;
    for (int i = 0; i < 12; i++) good = good && b[i] == (float)i && d[i] == 1000 + i;
    puts(good ? "two kernels" : "wrong");
    return !good;
}
C
check "two default-named kernels link into one program" "$CC" -std=c11 -I. two.c d1.o d2.o -o two
[ "$(./two)" = "two kernels" ] && ok || bad "the program of two default-named kernels"
# The same spec for another target, CPU or level is another kernel: another name.
for other in "--target aarch64-linux-gnu" "-O0"; do
    # shellcheck disable=SC2086
    "$SLICEGEN" emit '[:2]' --shape 4,6 --dtype f32 -o d3.ll --header d3.h $other > /dev/null 2>&1 &&
        ! grep -q "^void $n1(" d3.h && ok || bad "the default name of [:2] with $other is $n1 again"
done

# Outputs through a symbolic link replace the file it names; the link stays.
echo "old" > real.o
ln -s real.o link.o
check "emit through a symbolic link" "$SLICEGEN" emit "${ONE[@]}" -o link.o --name one
[ -L link.o ] && nm real.o | grep -q " T one$" && ok || bad "the link was replaced or its target not written"

# ---- cross targets ----
check "emit for aarch64" "$SLICEGEN" emit "${ONE[@]}" -o arm.o --target aarch64-linux-gnu
readelf -h arm.o | grep -q "Machine: *AArch64" && ok || bad "arm.o: $(readelf -h arm.o | grep Machine)"
check "emit for riscv64" "$SLICEGEN" emit "${ONE[@]}" -o rv.o --header rv.h --target riscv64-linux-gnu
readelf -h rv.o | grep -q "Machine: *RISC-V" && ok || bad "rv.o: $(readelf -h rv.o | grep Machine)"
readelf -h rv.o | grep -q "double-float ABI" && ok || bad "rv.o does not use the lp64d ABI: $(readelf -h rv.o | grep Flags)"
grep -q "for riscv64-unknown-linux-gnu (cpu generic-rv64 with features" rv.h && ok || bad "rv.h names the target: $(grep ' for ' rv.h)"
check "emit for aarch64 with a CPU" "$SLICEGEN" emit "${ONE[@]}" -o a72.o --target aarch64-linux-gnu --cpu cortex-a72
# A CPU named for this machine's own architecture gets that CPU's features,
# not this machine's: baseline x86-64 code has no AVX registers, and a
# CPU with AVX-512BW (x86-64-v4, which LLVM 14 knows too) gets 64-byte vectors.
if [ "$(uname -m)" = x86_64 ]; then
    MIRROR=('[:, ::-1]' --shape 16,64,3 --dtype u8)
    check "emit for x86-64" "$SLICEGEN" emit "${MIRROR[@]}" -o base.s --cpu x86-64
    grep -qE "%[yz]mm" base.s && bad "x86-64 code uses AVX registers: $(grep -m1 -E '%[yz]mm' base.s)" || ok
    check "emit for x86-64-v4" "$SLICEGEN" emit "${MIRROR[@]}" -o v4.s --cpu x86-64-v4
    grep -q "%zmm" v4.s && ok || bad "x86-64-v4 code uses no 64-byte registers"
fi

# ---- errors: exit 2, one line, nothing written, existing files untouched ----
echo "old object" > keep.o
echo "old header" > keep.h
keep_files
expect_error 2 "unknown output kind (the extension must be .o, .a, .s, .ll or .ptx)" emit "${ONE[@]}" -o new.txt --header keep.h
expect_error 2 "unknown output kind" emit "${ONE[@]}" -o new --header new.h
expect_error 2 "bad --name '2x': a kernel name must be a C identifier" emit "${ONE[@]}" -o keep.o --header keep.h --name 2x
expect_error 2 "bad --name 'int'" emit "${ONE[@]}" -o keep.o --header keep.h --name int
expect_error 2 "bad --name 'a-b'" emit "${ONE[@]}" -o keep.o --header keep.h --name a-b
# Names the header, the headers it includes, C and C++ or the C library
# already use: the header would not compile, or the object would define them.
for name in slicegen_kernel_info SLICEGEN_KERNEL_INFO_DEFINED int64_t uint_least8_t size_t NULL offsetof \
    INT64_MAX UINT8_C SIZE_MAX memcpy memset memmove main _Kernel __k; do
    expect_error 2 "failed to compile kernel: the name '$name' " emit "${ONE[@]}" -o keep.o --header keep.h --name $name
done
expect_error 2 "the name 'a__b' is reserved in C and C++ (it holds '__')" emit "${ONE[@]}" -o keep.o --name a__b
expect_error 2 "the name 'slicegen_kernel' gives slicegen_kernel_info, which is the generated header's" \
    emit "${ONE[@]}" -o keep.o --name slicegen_kernel
expect_error 2 "the name 'k_' gives k__info, which is reserved in C and C++" emit "${ONE[@]}" -o keep.o --name k_
expect_error 2 'No available targets are compatible with triple "no-such-triple"' \
    emit "${ONE[@]}" -o keep.o --header keep.h --target no-such-triple
expect_error 2 "'no-such-cpu' is not a recognized processor for this target" \
    emit "${ONE[@]}" -o keep.o --header keep.h --target aarch64-linux-gnu --cpu no-such-cpu
expect_error 2 "'no-such-cpu' is not a recognized processor" emit "${ONE[@]}" -o keep.o --header keep.h --cpu no-such-cpu
expect_error 2 "RV64 target requires an RV64 CPU" \
    emit "${ONE[@]}" -o keep.o --header keep.h --target riscv64-linux-gnu --cpu generic-rv32
expect_error 2 "64-bit code requested on a subtarget that doesn't support it" \
    emit "${ONE[@]}" -o keep.o --header keep.h --target x86_64-linux-gnu --cpu i386
expect_error 2 "big-endian targets are not supported" emit "${ONE[@]}" -o keep.o --header keep.h --target powerpc64-linux-gnu
expect_error 2 "'slicegen emit' needs -o OUT" emit "${ONE[@]}" --header keep.h
# The header and the object as one file, however it is spelled: refused
# before anything is written (a second write would replace the first).
mkdir sub
ln -s keep.o alias.o
ln keep.o hard.o
ln -s new.o dangling.h
for header in keep.o ./keep.o "$PWD/keep.o" sub/../keep.o alias.o hard.o; do
    expect_error 2 "failed to write 'keep.o': the header '$header' and the output 'keep.o' are the same file" \
        emit "${ONE[@]}" -o keep.o --header "$header"
done
expect_error 2 "the header './new.o' and the output 'new.o' are the same file" emit "${ONE[@]}" -o new.o --header ./new.o
expect_error 2 "the header 'dangling.h' and the output 'new.o' are the same file" emit "${ONE[@]}" -o new.o --header dangling.h
rm alias.o hard.o dangling.h
expect_error 2 "the folder 'no-such-folder' does not exist" emit "${ONE[@]}" -o keep.o --header no-such-folder/k.h
expect_error 2 "the folder 'no-such-folder' does not exist" emit "${ONE[@]}" -o no-such-folder/k.o --header keep.h
expect_error 2 "slice step cannot be zero" emit '[::0]' --shape 4 --dtype f32 -o keep.o --header keep.h
expect_error 2 "--prefix is not an option of 'slicegen emit'" emit "${ONE[@]}" -o keep.o --prefix p
# Output names of 255 bytes, the most a folder takes: the temporary files'
# names are cut short; a name of 256 bytes fails before anything is written.
long=$(printf 'k%.0s' {1..253})
check "emit -o and --header of 255-byte names" "$SLICEGEN" emit "${ONE[@]}" -o "$long.o" --header "$long.h"
[ -s "$long.o" ] && grep -qF "_OUTPUT_BYTES ((int64_t)72)" "$long.h" && ok || bad "the files of 255-byte names"
rm -f "$long.o" "$long.h"
expect_error 2 "File name too long (its last name has 256 bytes" emit "${ONE[@]}" -o keep.o --header "${long}x.h"
check "emit --help" "$SLICEGEN" emit --help
check "aot --help" "$SLICEGEN" aot --help

finish emit

#!/usr/bin/env bash
# Objects a toolchain can take as they are, from `slicegen emit` and `aot`:
#   - the header's sizes are int64_t: its own split of the outer range over
#     32 threads (int t, T) runs a 100,000,000-byte reversal;
#   - NAME_STEP_BYTES: step i writes exactly output bytes
#     [i * NAME_STEP_BYTES, (i + 1) * NAME_STEP_BYTES), the last one fewer;
#   - the default CPU is the target's baseline: an x86-64 object runs under
#     qemu-x86_64 -cpu qemu64, and the header and NAME_info name the CPU and
#     features; --cpu native is this machine's;
#   - 32-bit targets (i686, armv7, riscv32) call memcpy and memset and no
#     helper of the compiler's runtime; what an object does call the header
#     names; a tensor the target cannot address is refused;
#   - CET and BTI/PAC: x86 objects carry IBT and SHSTK and an endbr64 at
#     each kernel, so a link with -z cet-report=error takes them; AArch64
#     objects carry BTI and PAC; --no-cf-protection leaves them out.
# usage: objects_test.sh path/to/slicegen path/to/llvm-nm
set -u
SLICEGEN=$(realpath "${1:?usage: objects_test.sh path/to/slicegen path/to/llvm-nm}")
LLVM_NM=${2:?usage: objects_test.sh path/to/slicegen path/to/llvm-nm}
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
. "$HERE/../support/lib.sh"

# needs PROGRAM PACKAGE: 0 when PROGRAM is on PATH; else one line naming the
# Debian package, and 1 (the caller skips its part), or the test fails where
# SLICEGEN_REQUIRE_CROSS=1.
needs() {
    command -v "$1" > /dev/null && return 0
    if [ "${SLICEGEN_REQUIRE_CROSS:-}" = 1 ]; then
        bad "no $1 (Debian: $2)"
    else
        echo "objects: a part skipped: no $1 (Debian: $2)"
    fi
    return 1
}

# ---- the sizes are int64_t: the header's own split, on 100,000,000 bytes ----
check "emit a 100 MB reversal" "$SLICEGEN" emit '[::-1]' --shape 100000000 --dtype u8 -o rev.o --header rev.h --name rev
split=$(sed -n 's/^ \*     \(NAME(in, out, NAME_OUTER_EXTENT \* t \/ T, .*;\)$/\1/p' rev.h | sed 's/NAME/rev/g')
[ -n "$split" ] && ok || bad "rev.h shows no split of the outer range over T threads"
cat > split.c <<C
#include <stdio.h>
#include <stdlib.h>
#include "rev.h"
#define IS_INT64(x) _Generic((x), int64_t: 1, default: 0)
_Static_assert(IS_INT64(rev_OUTER_EXTENT) && IS_INT64(rev_STEP_BYTES) && IS_INT64(rev_INPUT_BYTES) &&
                   IS_INT64(rev_OUTPUT_BYTES), "the sizes are int64_t");
int main(void)
{
    int T = 32;
    unsigned char *in = malloc(rev_INPUT_BYTES), *out = malloc(rev_OUTPUT_BYTES);
    if (in == NULL || out == NULL)
        return 2;
    for (int64_t i = 0; i < rev_INPUT_BYTES; i++)
        in[i] = (unsigned char)(i ^ (i >> 8) ^ (i >> 16));
    for (int t = 0; t < T; t++)
        $split
    for (int64_t i = 0; i < rev_OUTPUT_BYTES; i++)
        if (out[i] != in[rev_INPUT_BYTES - 1 - i]) {
            printf("output byte %lld differs\n", (long long)i);
            return 1;
        }
    return 0;
}
C
check "the split program builds" "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -I. split.c rev.o -o split
check "the split over 32 threads' ranges reverses 100,000,000 bytes" ./split

# ---- NAME_STEP_BYTES: what each step writes ----
check "emit a long run" "$SLICEGEN" emit '[7:200007]' --shape 300000 --dtype f32 -o run.o --header run.h --name run
grep -q '^#define run_STEP_BYTES ((int64_t)32768)$' run.h && grep -q '^#define run_OUTER_EXTENT ((int64_t)25)$' run.h \
    && ok || bad "run.h: $(grep '^#define' run.h)"
cat > steps.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
/* Step by step: each writes exactly its bytes, and the right ones. */
int main(void)
{
    unsigned char *in = malloc(run_INPUT_BYTES), *out = malloc(run_OUTPUT_BYTES);
    if (in == NULL || out == NULL || run_info.step_bytes != run_STEP_BYTES)
        return 2;
    for (int64_t i = 0; i < run_INPUT_BYTES; i++)
        in[i] = (unsigned char)(i * 7 + (i >> 8));
    memset(out, 0xA5, (size_t)run_OUTPUT_BYTES);
    for (int64_t s = 0; s < run_OUTER_EXTENT; s++) {
        int64_t from = s * run_STEP_BYTES;
        int64_t to = from + run_STEP_BYTES < run_OUTPUT_BYTES ? from + run_STEP_BYTES : run_OUTPUT_BYTES;
        run(in, out, s, s + 1);
        for (int64_t i = 0; i < run_OUTPUT_BYTES; i++) {
            int want = i < from ? in[28 + i] : i < to ? in[28 + i] : 0xA5;
            if (out[i] != want) {
                printf("after step %lld, output byte %lld is %d, not %d\n", (long long)s, (long long)i, out[i], want);
                return 1;
            }
        }
    }
    return 0;
}
C
check "the step program builds" "$CC" -std=c11 -Wall -Wextra -Werror -I. steps.c run.o -o steps
check "each step writes its NAME_STEP_BYTES bytes" ./steps

# ---- the default CPU is the target's baseline ----
cat > mirror.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "mirror.h"
int main(void)
{
    unsigned char *in = malloc(mirror_INPUT_BYTES), *out = malloc(mirror_OUTPUT_BYTES);
    if (in == NULL || out == NULL)
        return 2;
    for (int64_t i = 0; i < mirror_INPUT_BYTES; i++)
        in[i] = (unsigned char)(i * 13 + (i >> 9));
    mirror(in, out, 0, mirror_OUTER_EXTENT);
    printf("cpu '%s' features '%s'\n", mirror_info.cpu, mirror_info.features);
    FILE *f = fopen("mirror.in", "wb"), *g = fopen("mirror.out", "wb");
    return !(f && fwrite(in, 1, mirror_INPUT_BYTES, f) == (size_t)mirror_INPUT_BYTES && fclose(f) == 0 && g &&
             fwrite(out, 1, mirror_OUTPUT_BYTES, g) == (size_t)mirror_OUTPUT_BYTES && fclose(g) == 0);
}
C
# The reference interpreter's output for the input mirror.c wrote.
reference_mirror() {
    make_npy mirror-in.npy '|u1' '(96, 640, 3)' "" && cat mirror.in >> mirror-in.npy
    "$SLICEGEN" run "${MIRROR[0]}" --in mirror-in.npy --out mirror-ref.npy --engine ref
}
MIRROR=('[:, ::-1]' --shape 96,640,3 --dtype u8)
if [ "$(uname -m)" = x86_64 ]; then
    check "emit for this machine, default CPU" "$SLICEGEN" emit "${MIRROR[@]}" -o mirror.o --header mirror.h --name mirror
    grep -q "^ \* for x86_64-[a-z]*-linux-gnu (cpu x86-64 with its own features)\. Do not edit\.$" mirror.h \
        && ok || bad "mirror.h names another CPU: $(grep ' for ' mirror.h)"
    check "the mirror program builds" "$CC" -std=c11 -I. mirror.c mirror.o -o mirror
    ./mirror > /dev/null && reference_mirror && ok || bad "the mirror program or the reference"
    if needs qemu-x86_64 qemu-user; then
        # qemu64: x86-64 with SSE2 and SSE3, nothing newer.
        qemu-x86_64 -cpu qemu64 ./mirror > qemu64.txt 2>&1 && ok || bad "the default object on qemu64: $(cat qemu64.txt)"
        [ "$(cat qemu64.txt)" = "cpu 'x86-64' features ''" ] && ok || bad "mirror_info: $(cat qemu64.txt)"
        cmp -s mirror.out <(tail -c $((96 * 640 * 3)) mirror-ref.npy) && ok || bad "the qemu64 output differs from the reference"
    fi
    check "emit for this machine's CPU" "$SLICEGEN" emit "${MIRROR[@]}" --cpu native -o native.o --header native.h --name mirror
    grep -q "^ \* for x86_64-[a-z]*-linux-gnu (cpu [a-z0-9-]* with features$" native.h && grep -q "+sse2" native.h \
        && ok || bad "native.h names no features: $(grep -A2 ' for ' native.h)"
    check "the native program builds" "$CC" -std=c11 -I. mirror.c native.o -o native
    ./native > native.txt && grep -q "^cpu '[a-z0-9-]*' features '.*+sse2.*'$" native.txt \
        && cmp -s mirror.out <(tail -c $((96 * 640 * 3)) mirror-ref.npy) && ok || bad "the native object: $(cat native.txt)"
    check "--cpu names a CPU" "$SLICEGEN" emit "${MIRROR[@]}" --cpu haswell -o haswell.o --header haswell.h --name mirror
    grep -q "(cpu haswell with its own features)" haswell.h && ok || bad "haswell.h: $(grep ' for ' haswell.h)"
fi
check "emit for aarch64, default CPU" "$SLICEGEN" emit "${MIRROR[@]}" --target aarch64-linux-gnu -o arm.o --header arm.h
grep -q "for aarch64-unknown-linux-gnu (cpu generic with its own features)" arm.h && ok || bad "arm.h: $(grep ' for ' arm.h)"
check "emit for riscv64, default CPU" "$SLICEGEN" emit "${MIRROR[@]}" --target riscv64-linux-gnu -o rv.o --header rv.h
grep -A1 "for riscv64-unknown-linux-gnu (cpu generic-rv64 with features" rv.h | grep -q "+m,+a,+f,+d,+c)" \
    && ok || bad "rv.h: $(grep -A1 ' for ' rv.h)"
echo "old" > keep.o && keep_files
if [ "$(uname -m)" = x86_64 ]; then
    expect_error 2 "failed to use target aarch64-linux-gnu with cpu 'native': 'native' is this machine's CPU, for x86_64" \
        emit "${MIRROR[@]}" --target aarch64-linux-gnu --cpu native -o keep.o
fi

# ---- 32-bit targets: memcpy and memset, no compiler helpers ----
# Kernels whose index arithmetic divides (periods of wrapped segments, loops
# taken together), multiplies, walks segment tables, shuffles and fills.
KERNELS=(
    "--op TrtSlice --start -50 --size 300 --mode wrap --shape 3 --dtype i16"
    "--op TrtSlice --start -3,-2 --size 9,40 --mode fill --fill 7 --shape 4,5 --dtype i32"
    "--op TrtSlice --start 0,-1 --size 40,600 --stride 0,1 --mode reflect --shape 5,3 --dtype f64"
    "[::-1,1::2] --shape 9,40 --dtype f32"
    "[:,::-1] --shape 4,70,3 --dtype u8"
    "[1:,::3] --shape 3,200000 --dtype u8"
    "[::2] --shape 3000000 --dtype i64"
)
# undefined OBJECT: the symbols OBJECT calls (the linker's _GLOBAL_OFFSET_TABLE_ left out).
undefined() { "$LLVM_NM" -u "$1" | awk '{print $NF}' | grep -v '^_GLOBAL_OFFSET_TABLE_$' | sort; }
# named HEADER: what the header says the code calls besides memcpy and memset.
named() {
    awk '/The code calls memcpy and memset/ { on = 1 } on { print } on && /and nothing else/ { exit }' "$1" |
        sed -n 's/^ \*     \(.*\)$/\1/p' |
        tr ',' '\n' | tr -d ' ' | grep -v '^$' | sort
}
for target in i686-linux-gnu armv7-linux-gnueabihf riscv32-linux-gnu; do
    for level in -O0 -O2; do
        n=0
        for k in "${KERNELS[@]}"; do
            n=$((n + 1))
            # shellcheck disable=SC2086
            check "emit $k for $target $level" "$SLICEGEN" emit $k --target "$target" $level -o k$n.o --header k$n.h
            calls=$(undefined k$n.o | grep -v -e '^memcpy$' -e '^memset$' | tr '\n' ' ')
            [ "$calls" = "$(named k$n.h | tr '\n' ' ')" ] && ok \
                || bad "$target $level, $k: the object calls '$calls', the header says '$(named k$n.h | tr '\n' ' ')'"
            # Without optimization LLVM's fast instruction selector for
            # 32-bit Arm divides by a constant with a call: the header says so.
            if [ "$level" = -O2 ]; then
                [ -z "$calls" ] && ok || bad "$target $level, $k: the object calls $calls"
            fi
        done
    done
done
# A target without a multiply-high instruction needs a helper; the header names it.
check "emit for Cortex-M0" "$SLICEGEN" emit ${KERNELS[0]} --target thumbv6m-none-eabi -o m0.o --header m0.h
calls=$(undefined m0.o | grep -v -e '^memcpy$' -e '^memset$' | tr '\n' ' ')
[ -n "$calls" ] && [ "$calls" = "$(named m0.h | tr '\n' ' ')" ] && ok || bad "m0: calls '$calls', the header says '$(named m0.h)'"
# Tensors a 32-bit target cannot address are refused; 2^31 - 1 bytes are not.
expect_error 2 "failed to compile kernel big for i686-unknown-linux-gnu: its input has 40000000000 bytes, more than the 2147483647 a target with 32-bit pointers addresses" \
    emit '[::2]' --shape 40000000000 --dtype u8 -o keep.o --header keep.h --name big --target i686-linux-gnu
expect_error 2 "its output has 2147483648 bytes" \
    emit --op TrtSlice --start 0 --size 2147483648 --mode wrap --shape 16 --dtype u8 -o keep.o --name big --target armv7-linux-gnueabihf
check "2^31 - 1 bytes for i686" "$SLICEGEN" emit '[::-1]' --shape 2147483647 --dtype u8 -o max.o --target i686-linux-gnu

# ---- CET, BTI and PAC ----
notes() { readelf -n "$1" | sed -n 's/^ *Properties: //p'; }
if needs readelf binutils; then
    check "emit for x86-64" "$SLICEGEN" emit "${MIRROR[@]}" --target x86_64-linux-gnu -o cet.o --name mirror
    [ "$(notes cet.o)" = "x86 feature: IBT, SHSTK" ] && ok || bad "cet.o: $(notes cet.o)"
    objdump -d cet.o | grep -A1 '<mirror>:' | grep -q endbr64 && ok || bad "mirror does not start with endbr64"
    check "emit for i686" "$SLICEGEN" emit "${MIRROR[@]}" --target i686-linux-gnu -o cet32.o
    [ "$(notes cet32.o)" = "x86 feature: IBT, SHSTK" ] && ok || bad "cet32.o: $(notes cet32.o)"
    [ "$(notes arm.o)" = "AArch64 feature: BTI, PAC" ] && ok || bad "arm.o: $(notes arm.o)"
    check "aot for aarch64" "$SLICEGEN" aot "$HERE/../../examples/model/model.xml" --target aarch64-linux-gnu -o model-arm.o
    [ "$(notes model-arm.o)" = "AArch64 feature: BTI, PAC" ] && ok || bad "model-arm.o: $(notes model-arm.o)"
    check "emit --no-cf-protection" "$SLICEGEN" emit "${MIRROR[@]}" --target x86_64-linux-gnu -o plain.o --name mirror \
        --no-cf-protection
    check "aot --no-cf-protection" "$SLICEGEN" aot "$HERE/../../examples/model/model.xml" --target aarch64-linux-gnu \
        -o plain-arm.o --no-cf-protection
    [ -z "$(notes plain.o)" ] && [ -z "$(notes plain-arm.o)" ] && ok || bad "notes without protection: $(notes plain.o) $(notes plain-arm.o)"
    objdump -d plain.o | grep -q endbr64 && bad "endbr64 without protection" || ok
fi
# A CET-hardened link takes the object (the C library's start files may
# lack the notes: a shared library of the kernel and a hardened caller).
if [ "$(uname -m)" = x86_64 ]; then
    printf 'void mirror(const void *, void *, long, long);\nvoid call(const void *in, void *out) { mirror(in, out, 0, 1); }\n' > caller.c
    if "$CC" -fcf-protection=full -fPIC -c caller.c -o caller.o 2> /dev/null; then
        check "a link with -z cet-report=error takes the object" \
            "$CC" -shared -nostdlib -Wl,-z,cet-report=error caller.o cet.o -o libcet.so
        [ "$(notes libcet.so)" = "x86 feature: IBT, SHSTK" ] && ok || bad "libcet.so: $(notes libcet.so)"
        "$CC" -shared -nostdlib -Wl,-z,cet-report=error caller.o plain.o -o libplain.so > /dev/null 2>&1 \
            && bad "-z cet-report=error takes an object without notes" || ok
    else
        echo "objects: the CET link skipped: $CC has no -fcf-protection"
    fi
fi
if needs aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu; then
    printf 'void k(const void *, void *, long, long);\nvoid call(const void *in, void *out) { k(in, out, 0, 1); }\n' > caller.c
    check "emit for aarch64" "$SLICEGEN" emit "${MIRROR[@]}" --target aarch64-linux-gnu -o bti.o --name k
    aarch64-linux-gnu-gcc -mbranch-protection=standard -fPIC -c caller.c -o caller-arm.o
    check "a link forcing BTI takes the object" \
        aarch64-linux-gnu-gcc -shared -nostdlib -Wl,-z,force-bti,--fatal-warnings caller-arm.o bti.o -o libbti.so
    [ "$(notes libbti.so)" = "AArch64 feature: BTI, PAC" ] && ok || bad "libbti.so: $(notes libbti.so)"
fi

finish objects

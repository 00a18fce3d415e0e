#!/usr/bin/env bash
# `slicegen emit --target nvptx64-nvidia-cuda`: PTX text whose kernels read
# and write with 16-byte vectors (strides and reversals shuffled in
# registers), divide by nothing and use no local memory; a header whose
# macros (entry, grid, block, sizes) compile as C11 and C++ and say what
# the plan says, and a model's table whose layer names are C strings; .ll
# output for NVPTX; ptxas (when present) accepts the PTX for sm_80 on sm_90
# and the default PTX (sm_75) for the GPU it names; a model's layers with
# runtime values compile too, with their prologue in the header as C
# (checked against the CPU object's prologue call by call); errors exit 2
# with one line and leave files alone.
# usage: ptx_test.sh path/to/slicegen
set -u
SLICEGEN=$(realpath "${1:?usage: ptx_test.sh path/to/slicegen}")
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
. "$HERE/../support/lib.sh"
PTX=(--target nvptx64-nvidia-cuda)

# ---- the code ----
# entry_has NAME FILE PATTERN...: every pattern (grep -E) occurs in FILE.
has() {
    local what=$1 file=$2; shift 2
    for pattern in "$@"; do
        grep -qE -- "$pattern" "$file" || { bad "$what: no '$pattern' in $file"; return; }
    done
    ok
}
lacks() {
    local what=$1 file=$2; shift 2
    for pattern in "$@"; do
        if grep -qE -- "$pattern" "$file"; then bad "$what: '$pattern' in $file"; return; fi
    done
    ok
}
check "emit stride 2" "$SLICEGEN" emit '[:, ::2]' --shape 64,64 --dtype f32 "${PTX[@]}" -o half.ptx --header half.h --name half
check "emit reversal" "$SLICEGEN" emit '[:, ::-1]' --shape 64,64 --dtype f32 "${PTX[@]}" -o mirror.ptx --name mirror
check "emit u8 reversal" "$SLICEGEN" emit '[:, ::-1]' --shape 8,640 --dtype u8 "${PTX[@]}" -o bytes.ptx --name bytes
check "emit crop" "$SLICEGEN" emit '[1:-1, 4:-4]' --shape 64,64 --dtype f32 "${PTX[@]}" -o crop.ptx --name crop
check "emit wrap" "$SLICEGEN" emit --op TrtSlice --start -5,-7 --size 40,300 --mode wrap --shape 9,100 --dtype f16 \
    "${PTX[@]}" -o wrap.ptx --name wrap
check "emit fill" "$SLICEGEN" emit --op TrtSlice --start -2,-3 --size 20,40 --mode fill --fill 7 --shape 9,16 --dtype i32 \
    "${PTX[@]}" -o fill.ptx --header fill.h --name fill
# TensorRT border modes: the interior read by 16-byte vectors, the border by elements.
check "emit clamp" "$SLICEGEN" emit --op TrtSlice --start -8,-8 --size 80,272 --mode clamp --shape 64,256 --dtype f32 \
    "${PTX[@]}" -o clamp.ptx --name clamp
check "emit reflect" "$SLICEGEN" emit --op TrtSlice --start 0,-5 --size 64,264 --mode reflect --shape 64,256 --dtype u16 \
    "${PTX[@]}" -o reflect.ptx --name reflect
for f in clamp reflect; do has "$f reads its interior by 16-byte vectors" $f.ptx 'ld\.global\.nc\.v4\.'; done
# Shifted lines: rows of 36 bytes and runs of 244 bytes, read by 16-byte
# vectors from the variant's alignment.
check "emit short rows" "$SLICEGEN" emit '[:, 1:55:3]' --shape 64,64 --dtype i16 "${PTX[@]}" -o rows36.ptx --name rows36
check "emit odd-width crop" "$SLICEGEN" emit '[:, 1:-2]' --shape 64,64 --dtype f32 "${PTX[@]}" -o crop244.ptx --name crop244
for f in rows36 crop244; do has "$f reads 16-byte vectors" $f.ptx 'ld\.global\.nc\.v4\.'; done
# Periodic chunks: 3-byte pixels mirrored, their channels reversed, and a
# stride whose window starts 4 bytes into a vector.
check "emit pixel mirror" "$SLICEGEN" emit '[:, ::-1]' --shape 64,320,3 --dtype u8 "${PTX[@]}" -o pixels.ptx --name pixels
check "emit channel reversal" "$SLICEGEN" emit '[..., ::-1]' --shape 64,320,3 --dtype u8 "${PTX[@]}" -o bgr.ptx --name bgr
check "emit odd columns" "$SLICEGEN" emit '[::-1, 1::2]' --shape 64,64 --dtype f32 "${PTX[@]}" -o odd.ptx --name odd
for f in pixels bgr odd; do
    has "$f reads 16-byte vectors" $f.ptx 'ld\.global\.nc\.v4\.'
    lacks "$f reads nothing smaller" $f.ptx 'ld\.global\.nc\.(u|b|s)(8|16|32|64)\s'
done
for f in pixels bgr; do has "$f gathers bytes with prmt" $f.ptx 'prmt\.b32'; done
for f in half mirror bytes crop wrap fill clamp reflect rows36 crop244 pixels bgr odd; do
    has "$f is a PTX kernel" $f.ptx '^\.target sm_75$' "^\.visible \.entry $f\(" 'st\.global\.v4\.'
    lacks "$f divides or spills" $f.ptx '\sdiv\.' '\srem\.' '\.local' 'local_depot'
done
for f in half mirror bytes; do has "$f reads 16-byte vectors" $f.ptx 'ld\.global\.nc\.v4\.'; done
lacks "the reversal reads whole vectors only" mirror.ptx 'ld\.global\.nc\.(u|b)32'
lacks "the stride reads whole vectors only" half.ptx 'ld\.global\.nc\.(u|b)32'
check "emit .ll" "$SLICEGEN" emit '[:, ::2]' --shape 64,64 --dtype f32 "${PTX[@]}" -o half.ll
has "the IR is an NVPTX kernel" half.ll 'nvptx64-nvidia-cuda' 'ptx_kernel' 'addrspace\(1\)'
check "emit for sm_80" "$SLICEGEN" emit '[:, ::-1]' --shape 64,64 --dtype f32 "${PTX[@]}" --cpu sm_80 -o sm80.ptx
has "sm_80 PTX" sm80.ptx '^\.target sm_80$' '^\.version [0-9]+\.[0-9]+$'

# ---- the header ----
cat > launch.c <<'C'
#include <stdio.h>
#include "half.h"
#include "fill.h"
int main(void)
{
    printf("%s %u %u %llu %llu\n", half_ENTRY, half_GRID_X, half_BLOCK_X,
           (unsigned long long)half_INPUT_BYTES, (unsigned long long)half_OUTPUT_BYTES);
    printf("%s %u %u %llu %llu\n", fill_ENTRY, fill_GRID_X, fill_BLOCK_X,
           (unsigned long long)fill_INPUT_BYTES, (unsigned long long)fill_OUTPUT_BYTES);
    slicegen_cuda_kernel_info k = {half_ENTRY, half_GRID_X, half_BLOCK_X, half_INPUT_BYTES, half_OUTPUT_BYTES, NULL, -1,
                                   NULL, 0};
    return k.block_x == 256 ? 0 : 1;
}
C
for compile in "$CC -std=c11 -Wall -Wextra -Wpedantic -Werror" "$CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -x c++"; do
    rm -f launch
    check "headers compile together: $compile" $compile -I. launch.c -o launch
    # [64,32] f32 = 8192 bytes: 512 threads, 2 blocks; [20,40] i32 = 3200 bytes: 200 threads, 1 block.
    if [ "$(./launch)" = "half 2 256 16384 8192
fill 1 256 576 3200" ]; then ok; else bad "header macros: $(./launch)"; fi
done
has "the header shows the launch" half.h 'cuLaunchKernel\(f, NAME_GRID_X, 1, 1, NAME_BLOCK_X, 1, 1, 0, stream, args, NULL\)'
check "emit empty" "$SLICEGEN" emit '[0:0]' --shape 64 --dtype f32 "${PTX[@]}" -o empty.ptx --header empty.h --name empty
has "an empty output launches nothing" empty.h '^#define empty_GRID_X 0u$'

# ---- a model: every slice layer in one PTX file, a table in the header ----
check "aot for nvptx64" "$SLICEGEN" aot "$HERE/../../examples/model/model.xml" "${PTX[@]}" -o net.ptx --header net.h --prefix net
# Layers with runtime values or dimensions compile too; the others skipped say why.
for line in "skipping layer 'bad/zero-step' (id 54, Slice): failed to make Slice: step must not be zero" \
    "compiled 17 of 20 slice layers (3 skipped) into net.ptx"; do
    grep -qF "$line" check.log && ok || bad "aot for nvptx64 does not say: $line"
done
has "the model's kernels of runtime values have their prologue" net.h \
    '^static inline int net_tail_dynamic_begin_prepare\(slicegen_args \*args' \
    '^static inline int net_tokens_window_prepare\(slicegen_args \*args'
cat > table.c <<'C'
#include <stdio.h>
#include "net.h"
int main(void)
{
    for (size_t i = 0; i < net_kernel_count; i++)
        printf("%s %u\n", net_kernels[i].entry, net_kernels[i].block_x);
    return 0;
}
C
check "the model's header compiles" $CC -std=c11 -Wall -Wextra -Wpedantic -Werror -I. table.c -o table
if [ "$(./table | wc -l)" = 17 ] && [ "$(grep -c '^\.visible \.entry ' net.ptx)" = 17 ] && [ "$(./table | awk '{print $2}' | sort -u)" = 256 ]; then
    ok
else
    bad "the model's 17 kernels: $(./table | tr '\n' ' ')"
fi
# The table names each kernel's layer, as the CPU table does; a layer name
# with quotes, backslashes and trigraphs is a C string all the same.
sed 's|name="head:flip-1"|name="h\&quot;ead\\??/ é:flip"|' "$HERE/../../examples/model/model.xml" > odd.xml
cp "$HERE/../../examples/model/model.bin" odd.bin
check "aot for nvptx64, odd layer names" "$SLICEGEN" aot odd.xml "${PTX[@]}" -o net.ptx --header net.h --prefix net
cat > layers.c <<'C'
#include <stdio.h>
#include "net.h"
int main(void)
{
    for (size_t i = 0; i < net_kernel_count; i++)
        printf("%lld %s\n", (long long)net_kernels[i].layer_id, net_kernels[i].layer);
    return 0;
}
C
for compile in "$CC -std=c11 -Wall -Wextra -Wpedantic -Werror" "$CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -x c++"; do
    rm -f layers
    check "the table's layers compile: $compile" $compile -I. layers.c -o layers
    expected_layers=$(printf '7 backbone/crop.0\n11 h"ead\\??/ \303\251:flip\n14 neck.expand\n18 neck.pick\n22 a.b\n27 a-b\n32 chain.second\n36 stem.ellipsis\n38 tail/dynamic-begin\n43 tokens/window\n58 pad/border\n60 split/halves\n60 split/halves\n63 split/rows\n63 split/rows\n63 split/rows\n66 pick/last-channel')
    [ "$(./layers)" = "$expected_layers" ] && ok || bad "the table's layers: $(./layers | tr '\n' ' ')"
done

# ---- kernels of runtime values: NAME(in, out, args), the prologue in the header ----
cat > prologue.c <<'C'
/* The header's C prologue (G) against the CPU object's (C), call by call:
 * the same code and, when both accept, the same args. */
#include <stdio.h>
#include <string.h>
#include GPU_H
#include CPU_H
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
static unsigned long long rng = 88172645463325252ull;
static long long draw(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    switch (rng % 16) {
    case 0: return (long long)(rng >> 1) * ((rng & 2) ? 1 : -1);
    case 1: return (rng & 4) ? INT64_MAX : INT64_MIN;
    default: return (long long)(rng % 19) - 9;
    }
}
int main(void)
{
    int accepted = 0, differ = 0;
    for (int call = 0; call < 20000; call++) {
        int64_t shape[RANK + 1], values[CAT(G, _VALUE_COUNT) + 1];
        for (int i = 0; i < RANK; i++)
            shape[i] = (rng % 8 == 0) ? draw() : (long long)((rng >> 8) % 9), draw();
        for (int i = 0; i < CAT(G, _VALUE_COUNT); i++)
            values[i] = draw();
        slicegen_args g, c;
        memset(&g, 0x5a, sizeof g);
        memset(&c, 0x5a, sizeof c);
        int rg = CAT(G, _prepare)(&g, shape, values), rc = CAT(C, _prepare)(&c, shape, values);
        int too_large = rg == SLICEGEN_PREPARE_SIZE && rc == 0 && c.output_bytes > INT64_C(8796093018112);
        if ((rg != rc || (rg == 0 && memcmp(&g, &c, sizeof g) != 0)) && !too_large && differ++ < 5)
            printf("call %d: the header's prologue returns %d, the object's %d\n", call, rg, rc);
        accepted += rg == 0 && rc == 0;
    }
    printf("%d accepted\n", accepted);
    return differ != 0 || accepted == 0;
}
C
prologue_case() { # NAME RANK SPEC...: emitted for the GPU and the CPU, compared
    local name=$1 rank=$2; shift 2
    check "emit $name for the GPU" "$SLICEGEN" emit "$@" "${PTX[@]}" -o g_$name.ptx --header g_$name.h --name g_$name
    check "emit $name for the CPU" "$SLICEGEN" emit "$@" -o c_$name.o --header c_$name.h --name c_$name
    has "$name takes its numbers by value" g_$name.ptx "\.param \.align 8 \.b8 g_${name}_param_2\[3680\]"
    lacks "$name uses no local memory" g_$name.ptx '\.local' 'local_depot'
    for compile in "$CC -std=c11 -Wall -Wextra -Wpedantic -Werror" "$CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -x c++"; do
        rm -f prologue
        check "$name: the prologue compiles: $compile" $compile -I. -DGPU_H="\"g_$name.h\"" -DCPU_H="\"c_$name.h\"" \
            -DG=g_$name -DC=c_$name -DRANK=$rank prologue.c -x none c_$name.o -o prologue
        check "$name: the header's prologue is the object's" ./prologue
    done
}
prologue_case crop 2 '[:, v0:v1]' --shape 4,? --dtype f32
prologue_case strided 3 '[v0:v1:v2, ::-1, i]' --shape ?,?,? --dtype u8
prologue_case border 2 --op TrtSlice --start s0,s1 --size z0,z1 --stride 1,k --mode fill --fill c --shape ?,? --dtype f16
prologue_case reflect 3 --op TrtSlice --start 0,s0,s1 --size 2,z0,z1 --mode reflect --shape 2,?,? --dtype f32
prologue_case axes 3 --op Slice --start b --stop e --step t --axes a --shape ?,5,? --dtype i64
prologue_case pad 2 --op Pad --pads-begin p0,p1 --pads-end q0,q1 --mode constant --value v --shape ?,? --dtype i32
has "the header shows the launch of a prepared call" g_crop.h \
    'cuLaunchKernel\(f, slicegen_grid_x\(&call\), 1, 1, NAME_BLOCK_X, 1, 1, 0, stream, args, NULL\)'
check "emit two kernels of runtime values into one header's reach" "$SLICEGEN" emit '[::v]' --shape ? --dtype f32 "${PTX[@]}" \
    -o g_two.ptx --header g_two.h --name g_two
cat > both.c <<'C'
#include "g_crop.h"
#include "g_two.h"
int main(void) { return g_crop_VALUE_COUNT + g_two_VALUE_COUNT == 3 ? 0 : 1; }
C
check "two GPU headers of runtime values compile together" $CC -std=c11 -Wall -Wextra -Wpedantic -Werror -I. both.c -o both
check "their counts" ./both

# ---- ptxas ----
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$PTXAS" ]; then
    # The default PTX, for the GPU it names: the oldest this ptxas takes.
    default_gpu=$(sed -n 's/^\.target //p' half.ptx)
    check "ptxas takes the default PTX for its GPU, $default_gpu" "$PTXAS" -arch="$default_gpu" half.ptx -o half.cubin
    check "ptxas takes sm_80 PTX for sm_90" "$PTXAS" -arch=sm_90 sm80.ptx -o sm80.cubin
    check "ptxas takes the model for sm_90" "$PTXAS" -arch=sm_90 net.ptx -o net.cubin
    for f in half mirror bytes crop wrap fill clamp reflect rows36 crop244 g_crop g_strided g_border g_reflect g_axes g_pad; do
        check "ptxas takes $f for sm_90" "$PTXAS" -arch=sm_90 $f.ptx -o $f.cubin
    done
else
    echo "ptx: ptxas not found (PATH, /usr/local/cuda/bin): PTX not assembled"
fi

# ---- errors ----
echo "old object" > keep.o
echo "old header" > keep.h
keep_files
expect_error 2 "target nvptx64-nvidia-cuda writes .ptx or .ll files" \
    emit '[::2]' --shape 64 --dtype f32 "${PTX[@]}" -o keep.o --header keep.h
expect_error 2 ".ptx files need an nvptx64 target" emit '[::2]' --shape 64 --dtype f32 -o new.ptx --header keep.h
expect_error 2 "'sm_99' is not a recognized processor" \
    emit '[::2]' --shape 64 --dtype f32 "${PTX[@]}" --cpu sm_99 -o new.ptx --header keep.h
expect_error 2 "needs 244140625000000 blocks (at most 2147483647)" \
    emit '[:]' --shape 1000000000000000000 --dtype u8 "${PTX[@]}" -o new.ptx --header keep.h
finish ptx

#!/usr/bin/env bash
# `slicegen emit --target nvptx64-nvidia-cuda`: PTX text whose kernels read
# and write with 16-byte vectors (strides and reversals shuffled in
# registers), divide by nothing and use no local memory; a header whose
# macros (entry, grid, block, sizes) compile as C11 and C++ and say what
# the plan says, and a model's table whose layer names are C strings; .ll
# output for NVPTX; ptxas (when present) accepts the PTX for sm_80 on sm_90
# and the default PTX (sm_75) for the GPU it names; a model's layers with
# runtime values are skipped; errors exit 2 with one line and leave files
# alone.
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
    slicegen_cuda_kernel_info k = {half_ENTRY, half_GRID_X, half_BLOCK_X, half_INPUT_BYTES, half_OUTPUT_BYTES, NULL, -1};
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
# Layers with runtime values or dimensions are skipped, saying why.
for line in "skipping layer 'tail/dynamic-begin' (id 38, StridedSlice): GPU kernels take no runtime values yet (input [2,3,8,8], 4 runtime values)" \
    "skipping layer 'tokens/window' (id 43, Slice): GPU kernels take no runtime values yet (input [?,16], 0 runtime values)" \
    "compiled 15 of 20 slice layers (5 skipped) into net.ptx"; do
    grep -qF "$line" check.log && ok || bad "aot for nvptx64 does not say: $line"
done
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
if [ "$(./table | wc -l)" = 15 ] && [ "$(grep -c '^\.visible \.entry ' net.ptx)" = 15 ] && [ "$(./table | awk '{print $2}' | sort -u)" = 256 ]; then
    ok
else
    bad "the model's 15 kernels: $(./table | tr '\n' ' ')"
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
    expected_layers=$(printf '7 backbone/crop.0\n11 h"ead\\??/ \303\251:flip\n14 neck.expand\n18 neck.pick\n22 a.b\n27 a-b\n32 chain.second\n36 stem.ellipsis\n58 pad/border\n60 split/halves\n60 split/halves\n63 split/rows\n63 split/rows\n63 split/rows\n66 pick/last-channel')
    [ "$(./layers)" = "$expected_layers" ] && ok || bad "the table's layers: $(./layers | tr '\n' ' ')"
done

# ---- ptxas ----
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$PTXAS" ]; then
    # The default PTX, for the GPU it names: the oldest this ptxas takes.
    default_gpu=$(sed -n 's/^\.target //p' half.ptx)
    check "ptxas takes the default PTX for its GPU, $default_gpu" "$PTXAS" -arch="$default_gpu" half.ptx -o half.cubin
    check "ptxas takes sm_80 PTX for sm_90" "$PTXAS" -arch=sm_90 sm80.ptx -o sm80.cubin
    check "ptxas takes the model for sm_90" "$PTXAS" -arch=sm_90 net.ptx -o net.cubin
    for f in half mirror bytes crop wrap fill clamp reflect rows36 crop244; do check "ptxas takes $f for sm_90" "$PTXAS" -arch=sm_90 $f.ptx -o $f.cubin; done
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

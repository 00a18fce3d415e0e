#!/usr/bin/env bash
# `slicegen aot` on malformed ONNX models (written by make_onnx_models.py:
# truncated protobuf, wrong wire types, lengths past the end, huge declared
# sizes, external data outside the folder or past a file's end, missing
# initializers and inputs, duplicate names...): exit status 2, one line on
# stderr naming the file and the pieces the script expects (node, field),
# nothing on stdout, and an existing output and header left as they were,
# with no temporary file beside them. Then --weights with an ONNX model
# (bad usage), cycles and contradicting types with --fuse, and the deep
# nest the reader skips.
# usage: onnx_errors_test.sh path/to/slicegen   (exit 77 without python3 + onnx)
set -u
SLICEGEN=$(realpath "${1:?usage: onnx_errors_test.sh path/to/slicegen}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../support/lib.sh"
/usr/bin/python3 "$HERE/make_onnx_models.py" models > make.log 2>&1
case $? in
0) ;;
77) echo "onnx-errors: skipped: $(cat make.log)"; exit 77 ;;
*) echo "FAIL: make_onnx_models.py: $(cat make.log)"; exit 1 ;;
esac

printf 'previous object\n' > out.o
printf 'previous header\n' > out.h
count=0
while IFS=$'\t' read -r -a line; do
    model=models/bad/${line[0]}
    "$SLICEGEN" aot "$model" -o out.o --header out.h > stdout.txt 2> stderr.txt
    rc=$?
    err=$(cat stderr.txt)
    [ $rc -eq 2 ] && ok || bad "$model: exit status $rc, not 2 ($err)"
    [ "$(wc -l < stderr.txt)" -eq 1 ] && ok || bad "$model: not one line on stderr: $err"
    [ ! -s stdout.txt ] && ok || bad "$model: output on stdout: $(cat stdout.txt)"
    [[ $err == "slicegen: error: failed to read ONNX model '$model': "* ]] && ok ||
        bad "$model: the line does not start with the file: $err"
    for piece in "${line[@]:1}"; do
        [[ $err == *"$piece"* ]] && ok || bad "$model: '$piece' missing from: $err"
    done
    [ "$(cat out.o)" = "previous object" ] && [ "$(cat out.h)" = "previous header" ] && ok ||
        bad "$model: an existing output was changed"
    count=$((count + 1))
done < models/bad/expected.txt
[ "$(ls | grep -c slicegen-tmp)" -eq 0 ] && ok || bad "temporary files left: $(ls)"
[ $count -ge 25 ] && ok || bad "only $count malformed models"

# Issue 34: a graph with a cycle, or a slice whose value_info or graph
# output contradicts what it makes, fails with --fuse too; a chain whose
# types agree (or give a dim_param) compiles with and without it, each
# layer for the shapes it gets (chain_typed: q1 [3, 6] -> [3, 5]).
for name in cycle_self cycle_two unsorted value_info_shape value_info_type output_shape; do
    model=models/bad/$name.onnx
    "$SLICEGEN" aot "$model" --fuse -o out.o --header out.h > stdout.txt 2> stderr.txt
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < stderr.txt)" -eq 1 ] && [ ! -s stdout.txt ] &&
        grep -q "^slicegen: error: failed to read ONNX model '$model': " stderr.txt && ok ||
        bad "--fuse $model: exit status $rc: $(cat stdout.txt stderr.txt)"
    [ "$(cat out.o)" = "previous object" ] && [ "$(cat out.h)" = "previous header" ] && ok ||
        bad "--fuse $model: an existing output was changed"
done
for name in chain_typed chain_dim_param; do
    for fuse in "" --fuse; do
        "$SLICEGEN" aot models/good/$name.onnx $fuse -o $name.o --header $name.h > stdout.txt 2> stderr.txt
        rc=$?
        [ $rc -eq 0 ] && grep -q "compiled 2 of 2 slice layers" stdout.txt && ok ||
            bad "$name.onnx $fuse: exit status $rc: $(cat stdout.txt stderr.txt)"
    done
done
grep -q "define chain_typed_q1_OUTPUT_BYTES ((int64_t)60)" chain_typed.h && ok ||
    bad "chain_typed.onnx --fuse: the fused kernel does not make q1's [3, 5]: $(grep BYTES chain_typed.h)"
"$SLICEGEN" aot models/good/chain_typed.onnx -o chain_typed.o --header chain_typed.h > /dev/null 2>&1
grep -q "define chain_typed_q1_INPUT_BYTES ((int64_t)72)" chain_typed.h &&
    grep -q "define chain_typed_q1_OUTPUT_BYTES ((int64_t)60)" chain_typed.h && ok ||
    bad "chain_typed.onnx: q1 is not compiled for [3, 6] -> [3, 5]: $(grep BYTES chain_typed.h)"

# A model that is a folder, and one that does not exist.
mkdir dir.onnx
for model in dir.onnx missing.onnx; do
    "$SLICEGEN" aot $model -o out.o 2> stderr.txt
    rc=$?
    [ $rc -eq 2 ] && grep -q "failed to read ONNX model '$model'" stderr.txt && ok || bad "$model: $rc $(cat stderr.txt)"
done

# --weights belongs to OpenVINO models: bad usage.
"$SLICEGEN" aot models/good/slice13.onnx --weights w.bin -o out.o 2> stderr.txt
rc=$?
[ $rc -eq 2 ] && grep -q "a weights file is for OpenVINO models" stderr.txt && ok ||
    bad "--weights with an ONNX model: $rc $(cat stderr.txt)"
[ "$(cat out.o)" = "previous object" ] && ok || bad "--weights: out.o changed"

# A deep nest of bytes inside a subgraph (a node's input name there) is
# read as a string, not walked: the model reads, its one Slice is a layer.
"$SLICEGEN" aot models/good/others.onnx -o others.o 2> stderr.txt
rc=$?
grep -q "failed to read" stderr.txt && bad "others.onnx: $(cat stderr.txt)" || ok
[ $rc -eq 0 ] || [ $rc -eq 2 ] && ok || bad "others.onnx: exit status $rc"

# Shape arithmetic is folded into the numbers of the layers it feeds, not
# compiled, and counted; a model of nothing else has no layer to compile.
"$SLICEGEN" aot models/good/shape_arith.onnx -o sa.o > stdout.txt 2> stderr.txt &&
    grep -q "^slicegen: compiled 1 of 1 slice layers (0 skipped; 1 folded as shape arithmetic) into sa.o" stdout.txt &&
    ok || bad "shape_arith.onnx: $(cat stdout.txt stderr.txt)"
# A model with nothing to compile gets an empty table that links and runs.
"$SLICEGEN" aot models/good/only_shape_arith.onnx -o osa.o --header osa.h > stdout.txt 2> stderr.txt &&
    grep -qx "slicegen: compiled 0 of 0 slice layers (0 skipped; 1 folded as shape arithmetic) into osa.o ([0-9]* bytes) and osa.h" stdout.txt &&
    grep -q "^ \* 0 kernels: the model has no slice layer to compile (only_shape_arith_kernel_count is 0)\.$" osa.h &&
    printf '#include <stdio.h>\n#include "osa.h"\nint main(void) { size_t n = only_shape_arith_kernel_count; for (size_t i = 0; i < n; i++) puts(only_shape_arith_kernels[i]->name); printf("%%zu kernels\\n", n); return 0; }\n' > osa_main.c &&
    cc -std=c11 -Wall -Wextra -Werror osa_main.c osa.o -o osa_main && [ "$(./osa_main)" = "0 kernels" ] &&
    ok || bad "only_shape_arith.onnx: $(cat stdout.txt stderr.txt)"
"$SLICEGEN" aot models/good/only_shape_arith.onnx --target nvptx64-nvidia-cuda -o osa.ptx --header osa_gpu.h > stdout.txt 2> stderr.txt &&
    grep -q "^static const size_t only_shape_arith_kernel_count = 0;$" osa_gpu.h &&
    printf '#include "osa_gpu.h"\nint main(void) { return (int)only_shape_arith_kernel_count + (only_shape_arith_kernels != NULL); }\n' > osa_gpu.c &&
    cc -std=c11 -Wall -Wextra -Werror osa_gpu.c -o osa_gpu && ./osa_gpu &&
    ok || bad "only_shape_arith.onnx for nvptx: $(cat stdout.txt stderr.txt)"
# A model's symbols: the header lists them, and each kernel's numbers
# follow from them (NAME_numbers), so one loop over the table prepares and
# runs every kernel from the graph input's shape alone, with index data
# given by the caller.
"$SLICEGEN" aot models/good/symbols.onnx -o symbols.o --header symbols.h > stdout.txt 2> stderr.txt &&
    grep -q '^    {"n", "x", 0},$' symbols.h && grep -q '^ \*         ends_0 = n - 1$' symbols.h &&
    grep -q '^ \*         starts_0 (index data: the caller.s)$' symbols.h &&
    cc -std=c11 -Wall -Wextra -Werror -I. "$HERE/../onnx/model_symbols.c" symbols.o -o model_symbols &&
    [ "$(./model_symbols)" = "head [4, 6] -> $(seq -s ' ' 0 23)
tail [5, 2] -> 4 5 10 11 16 17 22 23 28 29" ] && ok ||
    bad "symbols.onnx: $(cat stdout.txt stderr.txt; ./model_symbols 2>&1)"
# The slices of an If's branches are layers, named after their path.
"$SLICEGEN" aot models/good/subgraph_slices.onnx -o sub.o --header sub.h > stdout.txt 2> stderr.txt &&
    grep -q "compiled 2 of 2 slice layers" stdout.txt && grep -q "if/then_branch/st" sub.h && ok ||
    bad "subgraph_slices.onnx: $(cat stdout.txt stderr.txt)"
finish onnx-errors

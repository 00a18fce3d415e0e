#!/usr/bin/env bash
# Runtime values on the command line: `plan` of a symbolic spec against a
# golden file; `run --set` (both engines) against `run` of the spec with the
# numbers written in, byte for byte; the --set errors (missing, unknown,
# twice, not a number) and refused values exit 2 with one line and write no
# output; `emit` of a symbolic spec: a C11 and C++ program built against its
# header calls NAME_prepare and NAME for several values and shapes, and its
# outputs equal `run`'s; a refused call returns the documented code and
# leaves args untouched; GPU targets refuse runtime values with one line.
# usage: values_test.sh path/to/slicegen
set -u
SLICEGEN=$(realpath "${1:?usage: values_test.sh path/to/slicegen}")
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
. "$HERE/../support/lib.sh"

# expect_error WHAT STATUS TEXT COMMAND...: fails with STATUS, one line on
# stderr containing TEXT, and no out.npy left.
expect_error() {
    local what=$1 status=$2 text=$3; shift 3
    rm -f out.npy
    "$@" > /dev/null 2> err.txt
    local rc=$?
    if [ "$rc" -ne "$status" ] || [ "$(wc -l < err.txt)" -ne 1 ] || ! grep -qF -- "$text" err.txt || [ -e out.npy ]; then
        bad "$what: status $rc, stderr: $(cat err.txt)"
    else
        ok
    fi
}

make_npy x.npy '<f4' '(4, 6)' "$(iota_bytes 96)"

# ---- plan ----
# (the golden plan, tests/golden/values-past.plan, is cli_test.sh's)
"$SLICEGEN" plan '[:, :, :t]' --shape 1,32,?,128 --dtype f16 > past.plan 2>&1
grep -q '^values t$' past.plan && grep -q '^input \[1,32,?,128\]$' past.plan && ok || bad "plan: values and input lines"

# ---- run --set against the numbers written in ----
run_pair() { # SPEC_WITH_NAMES SETS... -- SPEC_WITH_NUMBERS...
    local named=() typed=() sets=() seen=0
    for a in "$@"; do
        if [ "$a" = -- ]; then seen=1; elif [ $seen = 1 ]; then typed+=("$a"); elif [[ $a == --set=* ]]; then sets+=("$a"); else named+=("$a"); fi
    done
    for engine in jit ref; do
        rm -f named.npy typed.npy
        "$SLICEGEN" run "${named[@]}" "${sets[@]}" --in x.npy --out named.npy --engine $engine 2> err.txt &&
            "$SLICEGEN" run "${typed[@]}" --in x.npy --out typed.npy 2>> err.txt &&
            cmp -s named.npy typed.npy && ok || { bad "run ${named[*]} ${sets[*]} ($engine) differs from ${typed[*]}"; cat err.txt >&2; }
    done
}
run_pair '[:, :t]' --set=t=3 -- '[:, :3]'
run_pair '[i, ::s]' --set=i=-1 --set=s=-2 -- '[-1, ::-2]'
run_pair '[a:b, a:]' --set=a=1 --set=b=9 -- '[1:9, 1:]'
run_pair --op StridedSlice --begin 0,b --end 0,e --begin-mask 1,0 --end-mask 1,0 --set=b=-5 --set=e=-1 -- \
    --op StridedSlice --begin 0,-5 --end 0,-1 --begin-mask 1,0 --end-mask 1,0
run_pair --op Slice --start s --stop 100 --step k --axes -1 --set=s=4 --set=k=-1 -- --op Slice --start 4 --stop 100 --step -1 --axes -1
run_pair --op TrtSlice --start p,q --size 6,n --mode reflect --set=p=-2 --set=q=3 --set=n=9 -- \
    --op TrtSlice --start -2,3 --size 6,9 --mode reflect
run_pair --op TrtSlice --start p,0 --size 5,7 --mode fill --fill 9 --set=p=-1 -- --op TrtSlice --start -1,0 --size 5,7 --mode fill --fill 9
run_pair --op OnnxSlice --start 1,s --stop 3,100 --step 1,k --axes a,b --set=s=-1 --set=k=-2 --set=a=-1 --set=b=0 -- \
    --op OnnxSlice --start 1,-1 --stop 3,100 --step 1,-2 --axes -1,0
run_pair --op Pad --pads-begin 1,p --pads-end 2,0 --axes a,b --mode reflect --set=p=2 --set=a=1 --set=b=-2 -- \
    --op Pad --pads-begin 1,2 --pads-end 2,0 --axes 1,-2 --mode reflect
run_pair --op Split --split a,b,c --axis 1 --output 1 --set=a=1 --set=b=3 --set=c=2 -- --op Split --split 1,3,2 --axis 1 --output 1
# 256 values, the most a spec names (--set once kept 193)
names=$(seq -s, -f 'v%g' 0 255) sets=() typed=$(seq -s, -f '%g' 0 255 | sed 's/[0-9]*/0/g')
for k in $(seq 0 255); do sets+=("--set=v$k=$((k == 0 ? 6 : 0))"); done
run_pair --op Split --split "$names" --axis 1 --output 0 "${sets[@]}" -- --op Split --split "6,${typed#0,}" --axis 1 --output 0
# fill values: a number of the element type given with --set
run_pair --op TrtSlice --start p,0 --size 5,7 --mode fill --fill f --set=p=-1 --set=f=-2.5 -- \
    --op TrtSlice --start -1,0 --size 5,7 --mode fill --fill -2.5
run_pair --op Pad --value c --pads-begin 1,0 --pads-end 0,2 --set=c=-nan -- --op Pad --pads-begin 1,0 --pads-end 0,2 --value -nan
run_pair --op Pad --pads-begin 1,0 --pads-end 0,2 --value c --set=c=7 -- --op Pad --pads-begin 1,0 --pads-end 0,2 --value 7
# NumPy programs that chain indices, np.flip, np.roll and np.pad
run_pair 'x[1:, ::s][::-1][i]' --set=s=-1 --set=i=2 -- 'x[1:, ::-1][::-1][2]'
run_pair 'np.flip(x[a:b], axis=1)[::c, None]' --set=a=-3 --set=b=9 --set=c=2 -- 'np.flip(x[-3:9], axis=1)[::2, None]'
run_pair '(x)[t:][None, ::t]' --set=t=1 -- '(x)[1:][None, ::1]'
run_pair 'np.roll(x[a:, ::-1], (5, -1), axis=(1, 0))[:, i]' --set=a=1 --set=i=-2 -- \
    'np.roll(x[1:, ::-1], (5, -1), axis=(1, 0))[:, -2]'
run_pair 'np.roll(x, (s, t), axis=(1, 0))' --set=s=-9223372036854775808 --set=t=7 -- 'np.roll(x, (-9223372036854775808, 7), axis=(1, 0))'
run_pair 'np.roll(x[::2], 1, axis=0)[t:]' --set=t=1 -- 'np.roll(x[::2], 1, axis=0)[1:]'
run_pair "np.pad(x[t:, ::-1], ((1, 2), (3, 0)), mode='edge')[:, 1:]" --set=t=1 -- \
    "np.pad(x[1:, ::-1], ((1, 2), (3, 0)), mode='edge')[:, 1:]"
run_pair "np.pad(x[t::2, ::s], (1, 1), mode='reflect')[::-1]" --set=t=1 --set=s=-2 -- \
    "np.pad(x[1::2, ::-2], (1, 1), mode='reflect')[::-1]"
run_pair "np.pad(x[:, ::s], 2, constant_values=-3.5)[i:]" --set=s=3 --set=i=-3 -- "np.pad(x[:, ::3], 2, constant_values=-3.5)[-3:]"
run_pair "np.roll(np.pad(x[t:], ((0, 0), (5, 5)), mode='wrap'), 2, axis=0)[:, 4]" --set=t=1 -- \
    "np.roll(np.pad(x[1:], ((0, 0), (5, 5)), mode='wrap'), 2, axis=0)[:, 4]"
run_pair "np.pad(x[t:], ((a, 0), (1, b)), mode='wrap')[::-1]" --set=t=1 --set=a=2 --set=b=9 -- \
    "np.pad(x[1:], ((2, 0), (1, 9)), mode='wrap')[::-1]"
run_pair "np.pad(x[t:][None], 1, mode='reflect')[:, 0, i]" --set=t=2 --set=i=7 -- "np.pad(x[2:][None], 1, mode='reflect')[:, 0, 7]"
# np.concatenate of chains: each part at its offset, known per call
run_pair 'np.concatenate([x[:, :t], x[:, t:]], axis=1)' --set=t=2 -- 'np.concatenate([x[:, :2], x[:, 2:]], axis=1)'
run_pair 'np.concatenate([x[::-1, :t], x[:, t:], x[a:, ::2]], axis=0)' --set=t=3 --set=a=2 -- \
    'np.concatenate([x[::-1, :3], x[:, 3:], x[2:, ::2]], axis=0)'
# (each part a border mode of its own)
run_pair "np.concatenate([np.pad(x[t:], ((0, 0), (1, 1)), mode='edge'), np.roll(np.pad(x, ((0, 0), (1, 1)), mode='wrap'), s, axis=0)[::-1]], axis=-2)" \
    --set=t=1 --set=s=5 -- "np.concatenate([np.pad(x[1:], ((0, 0), (1, 1)), mode='edge'), np.roll(np.pad(x, ((0, 0), (1, 1)), mode='wrap'), 5, axis=0)[::-1]], axis=-2)"

# ---- errors ----
expect_error "an index of a chain out of range" 2 "failed to run kernel: index out of range (step 0: index 3, input dimension 0 has size 3) (t = 1, i = 3)" \
    "$SLICEGEN" run 'x[t:][i]' --in x.npy --out out.npy --set t=1 --set i=3
expect_error "a chain's zero step before an earlier stage's index" 2 "slice step cannot be zero (step 0: 0) (i = 9, s = 0)" \
    "$SLICEGEN" run 'x[i][::s]' --in x.npy --out out.npy --set i=9 --set s=0
expect_error "np.roll of a rolled axis" 2 "np.roll with runtime values or dimensions known only at run time ('?') takes only axes not rolled or padded before, not axis 0 yet" \
    "$SLICEGEN" run 'np.roll(np.roll(x, 1, axis=0)[t:], 1, axis=0)' --in x.npy --out out.npy --set t=1
expect_error "np.pad of a padded axis" 2 "np.pad with runtime values or dimensions known only at run time ('?') takes only axes not rolled or padded before, not axis 1 yet" \
    "$SLICEGEN" plan "np.pad(np.pad(x, ((0, 0), (1, 1)))[t:], ((0, 0), (2, 0)))" --shape 4,6 --dtype f32
expect_error "two border modes in a chain" 2 "a chain takes one border mode, not np.roll's 'wrap' and np.pad's 'reflect'" \
    "$SLICEGEN" plan "np.pad(np.roll(x, 1, axis=1), ((1, 1), (0, 0)), mode='reflect')" --shape ?,6 --dtype f32
expect_error "two constant_values in a chain" 2 "(nor two constant_values) yet" \
    "$SLICEGEN" plan "np.pad(np.pad(x, ((1, 1), (0, 0)))[t:], ((0, 0), (1, 1)), constant_values=1)" --shape 4,6 --dtype f32
expect_error "np.pad's symmetric mode over ? dimensions" 2 "np.pad's mode 'symmetric' with runtime values or dimensions known only at run time ('?') is not supported yet" \
    "$SLICEGEN" plan "np.pad(x, 1, mode='symmetric')" --shape ?,6 --dtype f32
expect_error "an integer index into a constant border" 2 "an integer index into an axis that np.pad pads with a constant is not supported" \
    "$SLICEGEN" plan "np.pad(x, 1)[t]" --shape 4,6 --dtype f32
expect_error "np.pad of an empty axis by edge, per call" 2 "np.pad: can't extend empty axis 0 using modes other than 'constant' or 'empty' (t = 4)" \
    "$SLICEGEN" run "np.pad(x[t:], 1, mode='edge')" --in x.npy --out out.npy --set t=4
expect_error "np.pad by reflect wider than an axis less one, per call" 2 "np.pad: reflect by more than an axis's size less one (axis 1: size 3, widths 3 and 0) mirrors in rounds, which kernels of runtime values do not yet (t = 3)" \
    "$SLICEGEN" run "np.pad(x[:, t:], ((0, 0), (3, 0)), mode='reflect')" --in x.npy --out out.npy --set t=3
expect_error "a negative pad width, per call" 2 "failed to run kernel: np.pad: index can't contain negative values (t = 1, w = -1)" \
    "$SLICEGEN" run "np.pad(x[t:], (2, w))" --in x.npy --out out.npy --set t=1 --set w=-1
expect_error "np.pad's result past 2^63 - 1 bytes, per call" 2 "failed to run kernel: np.pad's result has more than 2^63 - 1 bytes (w = 4611686018427387904)" \
    "$SLICEGEN" run "np.pad(x, ((0, 0), (0, w)))[:, :2]" --in x.npy --out out.npy --set w=4611686018427387904
expect_error "an index of np.concatenate over ? dimensions" 2 "supported in chains of indices, np.flip, np.roll, np.pad and model layers, and in np.concatenate of chains, not in np.concatenate yet" \
    "$SLICEGEN" plan 'np.concatenate([x[:1], x[1:]])[::-1]' --shape ?,6 --dtype f32
expect_error "np.concatenate of np.concatenate over ? dimensions" 2 "are supported in np.concatenate of chains, not of np.concatenate yet" \
    "$SLICEGEN" plan 'np.concatenate([np.concatenate([x, x]), x[1:]])' --shape ?,6 --dtype f32
expect_error "np.concatenate's dimensions that do not match, per call" 2 "failed to run kernel: np.concatenate: all the input array dimensions except for the concatenation axis must match exactly, but along dimension 1, the array at index 0 has size 6 and the array at index 1 has size 5 (t = 1)" \
    "$SLICEGEN" run 'np.concatenate([x, x[:, t:]])' --in x.npy --out out.npy --set t=1
deep="x$(printf '[::-1]%.0s' $(seq 1 65))" # as the static planner refuses it (regression: fuzz_values)
expect_error "a chain nested more than 64 deep" 2 "failed to plan program: nested more than 64 deep" \
    "$SLICEGEN" plan "$deep" --shape ?,4 --dtype f32
expect_error "np.concatenate on a GPU" 2 "np.concatenate with runtime values or dimensions known only at run time ('?') is not supported on GPUs yet" \
    "$SLICEGEN" emit 'np.concatenate([x[:t], x[t:]])' --shape ?,6 --dtype f32 --target nvptx64-nvidia-cuda -o out.ptx
expect_error "missing --set" 2 "the spec's runtime value 't' needs --set t=VALUE" "$SLICEGEN" run '[:t]' --in x.npy --out out.npy
expect_error "unknown --set" 2 "--set names 'u', which the spec does not use" "$SLICEGEN" run '[:t]' --in x.npy --out out.npy --set t=1 --set u=2
expect_error "--set twice" 2 "--set gives 't' twice" "$SLICEGEN" run '[:t]' --in x.npy --out out.npy --set t=1 --set t=2
expect_error "--set not a number" 2 "bad --set 't=one'" "$SLICEGEN" run '[:t]' --in x.npy --out out.npy --set t=one
expect_error "--set without =" 2 "bad --set 't'" "$SLICEGEN" run '[:t]' --in x.npy --out out.npy --set t
expect_error "index out of range" 2 "failed to run kernel: index out of range (step 0: index 9, input dimension 0 has size 4) (i = 9)" \
    "$SLICEGEN" run '[i]' --in x.npy --out out.npy --set i=9
expect_error "index out of range (ref)" 2 "index out of range (step 0: index 9, input dimension 0 has size 4)" \
    "$SLICEGEN" run '[i]' --in x.npy --out out.npy --set i=9 --engine ref
expect_error "zero stride" 2 "stride must not be zero" \
    "$SLICEGEN" run --op StridedSlice --begin 0 --end 4 --stride s --in x.npy --out out.npy --set s=0
expect_error "axes named twice" 2 "failed to run kernel: axes must be unique (axes[0] = -1 and axes[1] = 1 both name axis 1) (a = -1, b = 1)" \
    "$SLICEGEN" run --op Slice --start 0,0 --stop 1,1 --axes a,b --in x.npy --out out.npy --set a=-1 --set b=1
expect_error "axis out of range" 2 "axis out of range (axes[0] = 2, input rank 2 allows -2..1)" \
    "$SLICEGEN" run --op Pad --pads-begin 1 --pads-end 1 --axes a --in x.npy --out out.npy --set a=2
expect_error "split sizes that do not add up" 2 "split sizes add up to 5, input dimension 1 has size 6 (a = 2, b = 3)" \
    "$SLICEGEN" run --op Split --split a,b --axis 1 --output 0 --in x.npy --out out.npy --set a=2 --set b=3
expect_error "a negative split size" 2 "split sizes must not be negative (split[1] = -1) (a = 7, b = -1)" \
    "$SLICEGEN" run --op Split --split a,b --axis 1 --output 0 --in x.npy --out out.npy --set a=7 --set b=-1
expect_error "a fill value that is no number" 2 "failed to parse scalar 'one'" \
    "$SLICEGEN" run --op Pad --pads-begin 1 --pads-end 1 --value c --in x.npy --out out.npy --set c=one
expect_error "--set on another command" 2 "--set is not an option of 'slicegen plan'" \
    "$SLICEGEN" plan '[:t]' --shape 4 --dtype f32 --set t=1
check "GPU emit" "$SLICEGEN" emit '[:t]' --shape ?,6 --dtype f32 --target nvptx64-nvidia-cuda -o out.ptx
grep -q '_param_2\[3680\]' out.ptx && ok || bad "the GPU kernel of runtime values takes no slicegen_args"
# a constant step whose stride over a run of 4 elements is past int64 (a
# step no call takes twice): the kernel's bodies of constant run use it
# only where it fits (regression; fuzz_values found it)
check "emit a step past int64 over runs" "$SLICEGEN" emit 'x[a:b][:, ::-1553255926290448382][a:b][:, ::-1][::c, None]' \
    --shape ?,?,? --dtype i16 -o big-step.o
expect_error "bad ? in --shape" 2 "bad --shape '4,??'" "$SLICEGEN" plan '[:]' --shape 4,?? --dtype f32

# ---- emit: prepare and the kernel from C and C++ ----
check "emit symbolic" "$SLICEGEN" emit '[a:, ::s]' --shape ?,6 --dtype f32 -o k.o --header k.h --name k
cat > main.c << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "k.h"
/* usage: main ROWS A S OUT: prepares and runs k on ROWS x 6 floats of bytes 0, 1, ...;
 * writes the output's raw bytes to OUT, or prints the refusal code. */
int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    int64_t shape[2] = {atoll(argv[1]), 6}, values[k_VALUE_COUNT] = {atoll(argv[2]), atoll(argv[3])};
    slicegen_args args, before;
    memset(&args, 0x5a, sizeof args);
    before = args;
    int code = k_prepare(&args, shape, values);
    if (code != 0) {
        printf("code %d%s\n", code, memcmp(&args, &before, sizeof args) ? " args written" : "");
        return 0;
    }
    if (k_info.prepare != k_prepare || k_info.value_count != 2 || strcmp(k_info.value_names[1], "s") != 0 ||
        k_info.fn != NULL || k_info.run != k || k_info.in_shape[0] != -1 || k_info.version != 5 || k_info.fill_value != -1)
        return 3;
    unsigned char *in = (unsigned char *)malloc((size_t)args.input_bytes + 1);
    unsigned char *out = (unsigned char *)malloc((size_t)args.output_bytes + 1);
    for (int64_t i = 0; i < args.input_bytes; i++)
        in[i] = (unsigned char)i; /* the bytes of make_npy's iota */
    k(in, out, &args, 0, args.outer_extent / 2);
    k(in, out, &args, args.outer_extent / 2, args.outer_extent);
    FILE *f = fopen(argv[4], "wb");
    fwrite(out, 1, (size_t)args.output_bytes, f);
    fclose(f);
    printf("shape %d:%lld,%lld\n", (int)args.out_rank, (long long)args.out_shape[0], (long long)args.out_shape[1]);
    return 0;
}
EOF
for compile in "$CC -std=c11 -Wall -Wextra -Wpedantic -Werror" "$CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -x c++"; do
    rm -f main
    check "a program against the header: $compile" $compile -I. main.c -x none k.o -o main
    for call in "4 1 2" "4 -1 -1" "7 0 3" "0 0 1" "5 -9 1"; do
        set -- $call
        make_npy in.npy '<f4' "($1, 6)" "$(iota_bytes $(($1 * 24)))"
        ./main "$1" "$2" "$3" got.bin > said.txt || { bad "main $call failed"; continue; }
        "$SLICEGEN" run "[$2:, ::$3]" --in in.npy --out want.npy 2> /dev/null
        size=$(stat -c %s got.bin 2> /dev/null || echo 0)
        if [ -e want.npy ] && tail -c "$size" want.npy | cmp -s - got.bin; then ok; else bad "emit: k($call) differs from run '[$2:, ::$3]'"; fi
    done
    ./main 4 0 0 got.bin > said.txt
    grep -qx "code 3" said.txt && ok || bad "emit: a zero step is code 3 with args untouched ($(cat said.txt))"
    ./main -1 0 1 got.bin > said.txt
    grep -qx "code 1" said.txt && ok || bad "emit: a negative dimension is code 1 ($(cat said.txt))"
done

# ---- emit: a runtime fill value, values[NAME_FILL_VALUE] the element's bits ----
check "emit a runtime fill" "$SLICEGEN" emit --op Pad --pads-begin 1,p --pads-end 0,1 --value c --shape ?,6 --dtype f32 \
    -o pad.o --header pad.h --name pad
grep -qF "#define pad_FILL_VALUE 1 /* values[1] is the fill value: the bits of one f32 */" pad.h && ok ||
    bad "pad.h has no pad_FILL_VALUE 1"
cat > pad_main.c << 'EOF'
#include <stdio.h>
#include <string.h>
#include "pad.h"
/* Pads 3 x 6 floats 0, 1, ... with p = 2 and the fill -1.5; prints the output's rows. */
int main(void)
{
    float in[18], out[4 * 9], fill = -1.5f;
    uint32_t bits;
    memcpy(&bits, &fill, sizeof bits);
    int64_t shape[2] = {3, 6}, values[pad_VALUE_COUNT] = {2, 0};
    values[pad_FILL_VALUE] = bits;
    for (int i = 0; i < 18; i++)
        in[i] = (float)i;
    slicegen_args args;
    if (pad_prepare(&args, shape, values) != 0 || args.output_bytes != (int64_t)sizeof out ||
        pad_info.version != 5 || pad_info.fill_value != pad_FILL_VALUE)
        return 1;
    pad(in, out, &args, 0, args.outer_extent);
    for (int i = 0; i < 4 * 9; i++)
        printf("%g%c", out[i], i % 9 == 8 ? '\n' : ' ');
    return 0;
}
EOF
check "a program with a runtime fill" "$CC" -std=c11 -Wall -Wextra -Werror -I. pad_main.c pad.o -o pad_main
if ./pad_main > pad_said.txt && [ "$(sed -n 1p pad_said.txt)" = "-1.5 -1.5 -1.5 -1.5 -1.5 -1.5 -1.5 -1.5 -1.5" ] &&
    [ "$(sed -n 2p pad_said.txt)" = "-1.5 -1.5 0 1 2 3 4 5 -1.5" ]; then ok; else bad "emit: the runtime fill: $(cat pad_said.txt)"; fi

finish values_test

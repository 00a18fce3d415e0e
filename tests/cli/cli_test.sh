#!/usr/bin/env bash
# Command-line tests: exit codes, one-line errors, no partial output files,
# --help/--version, and golden `slicegen plan` output (tests/golden/*.plan).
# usage: cli_test.sh path/to/slicegen
set -u
SLICEGEN=$(realpath "${1:?usage: cli_test.sh path/to/slicegen}")
GOLDEN=$(cd "$(dirname "$0")/../golden" && pwd)
. "$(dirname "$0")/../support/lib.sh"

# i32 [2,3] = 0..5, and a big-endian and a Fortran-order file.
make_npy a.npy '<i4' '(2, 3)' '\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00'
make_npy be.npy '>i4' '(1,)' '\x00\x00\x00\x01'
make_npy fortran.npy '<i4' '(1,)' '\x01\x00\x00\x00' True
printf 'not a numpy file' > junk.npy
# the expected result of '[::-1, 1:]': [[4,5],[1,2]]
make_npy expected.npy '<i4' '(2, 2)' '\x04\x00\x00\x00\x05\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00'

# ---- success paths ----
for args in "--help" "run --help" "plan --help" "ir --help" "--version"; do
    # shellcheck disable=SC2086
    if "$SLICEGEN" $args > help.txt 2>&1 && [ -s help.txt ]; then ok; else bad "slicegen $args"; fi
done
grep -q "^slicegen [0-9.]* (LLVM [0-9]" help.txt && ok || bad "--version prints 'slicegen N.N.N (LLVM N.N.N)'"

# the IR of a contiguous slice: a kernel with the documented signature and one memcpy
for level in -O0 -O1 -O2 -O3 ""; do
    # shellcheck disable=SC2086
    if "$SLICEGEN" ir '[1:3]' --shape 4,1024 --dtype f32 $level > ir.txt &&
        grep -Eq '^define void @sg_x4_[^(]*\((ptr|i8\*) ' ir.txt && grep -q "llvm.memcpy" ir.txt; then ok
    else bad "ir $level"; fi
done

for engine in "" "--engine ref" "--engine jit" "--engine jit --threads 2"; do
    # shellcheck disable=SC2086
    if "$SLICEGEN" run '[::-1, 1:]' --in a.npy --out out.npy $engine && cmp -s out.npy expected.npy; then ok
    else bad "run '[::-1, 1:]' $engine"; fi
done
if "$SLICEGEN" run --op StridedSlice --begin=0,1 --end 0,0 --stride -1,1 --begin-mask 1,0 --end-mask 1,1 \
    --in a.npy --out out.npy && cmp -s out.npy expected.npy; then ok; else bad "run StridedSlice"; fi
if "$SLICEGEN" run --op Slice --start -1,1 --stop -3,3 --step -1,1 --in a.npy --out out.npy --threads 2 \
    && cmp -s out.npy expected.npy; then ok; else bad "run Slice"; fi

# an existing output is replaced whole on success and untouched on failure
cp a.npy keep.npy
"$SLICEGEN" run '[::-1, 1:]' --in a.npy --out keep.npy && cmp -s keep.npy expected.npy && ok || bad "overwrite"
cp a.npy keep.npy
"$SLICEGEN" run '[5]' --in a.npy --out keep.npy 2> /dev/null
[ $? -eq 2 ] && cmp -s keep.npy a.npy && ok || bad "a failed run must leave the existing output as it was"

# ---- errors: exit 2, one line, no output ----
expect_error 2 "unknown command 'frobnicate'" frobnicate
expect_error 2 "stride must not be zero" run --op StridedSlice --begin 0 --end 1 --stride 0 --in a.npy --out new.npy
expect_error 2 "index out of range" run '[5]' --in a.npy --out new.npy
expect_error 2 "expected ',' or ']' at column 5" run '[1:2;]' --in a.npy --out new.npy
expect_error 2 "is not an option of --op Slice" run --op Slice --start 0 --stop 1 --begin-mask 1 --in a.npy --out new.npy
expect_error 2 "cannot be combined with --op" run '[1:]' --op Slice --start 0 --stop 1 --in a.npy --out new.npy
expect_error 2 "unknown option '--bogus'" run '[1:]' --bogus 1 --in a.npy --out new.npy
expect_error 2 "needs --in IN.npy and --out OUT.npy" run '[1:]' --in a.npy
expect_error 2 "--shape is not an option of 'slicegen run'" run '[1:]' --shape 2 --in a.npy --out new.npy
expect_error 2 "--out is not an option of 'slicegen plan'" plan '[1:]' --shape 2 --dtype f32 --out new.npy
expect_error 2 "unknown --engine 'gpu'" run '[1:]' --engine gpu --in a.npy --out new.npy
expect_error 2 "bad --threads '0'" run '[1:]' --threads 0 --in a.npy --out new.npy
expect_error 2 "No such file" run '[1:]' --in missing.npy --out new.npy
expect_error 2 "big-endian" run '[1:]' --in be.npy --out new.npy
expect_error 2 "Fortran" run '[1:]' --in fortran.npy --out new.npy
expect_error 2 "junk.npy" run '[1:]' --in junk.npy --out new.npy
expect_error 2 "does not exist" run '[1:]' --in a.npy --out no/such/dir/out.npy
mkdir folder
expect_error 2 "names a folder" run '[1:]' --in a.npy --out folder
expect_error 2 "it is a folder" run '[1:]' --in folder --out new.npy
expect_error 2 "unknown --dtype 'f128'" plan '[1:]' --shape 2 --dtype f128
expect_error 2 "bad --shape '2,x'" plan '[1:]' --shape 2,x --dtype f32
expect_error 2 "either --in or --shape" plan '[1:]' --shape 2 --dtype f32 --in a.npy
expect_error 2 "strict mode coordinate outside" plan --op TrtSlice --start 0 --size 3 --shape 2 --dtype f32
expect_error 2 "needs a value" run '[1:]' --in a.npy --out
expect_error 2 "-O2 is not an option of 'slicegen run'" run '[1:]' -O2 --in a.npy --out new.npy
expect_error 2 "unknown option '-O7'" ir '[1:]' --shape 4 --dtype f32 -O7
expect_error 2 "index out of range" ir '[7]' --shape 4 --dtype f32
# an empty file says so, not that its magic is wrong
: > empty.npy
expect_error 2 "failed to read 'empty.npy': the file is empty" run '[1:]' --in empty.npy --out new.npy
expect_error 2 "failed to read 'empty.npy': the file is empty" plan '[1:]' --in empty.npy
# A long expression or list is quoted as a window around the column, so the
# reason and the column always fit; a character is shown whole (a byte that
# is not UTF-8 as \xHH) and stderr stays UTF-8.
utf8() { iconv -f UTF-8 -t UTF-8 stderr.txt > /dev/null && ok || bad "stderr is not UTF-8: $(od -c stderr.txt)"; }
expect_error 2 "'...$(printf '%60s' '')x]': expected ',' or ']' at column 603 ('x')" \
    plan "[1$(printf '%600s' '')x]" --shape 4 --dtype f32
expect_error 2 "expected ',' or ']' at column 4 ('é')" plan '[1:é]' --shape 4 --dtype f32
utf8
expect_error 2 "'[1:\xff]': expected ',' or ']' at column 4 ('\xff')" plan $'[1:\xff]' --shape 4 --dtype f32
utf8
expect_error 2 "expected ',' or ']' at column 4 ('é')" plan "[1:$(printf 'é%.0s' {1..300})]" --shape 4 --dtype f32
utf8
expect_error 2 ",1x' is not a 64-bit integer or a runtime value name (1x)" \
    plan --op StridedSlice --begin "$(printf '1,%.0s' {1..300})1x" --end 1 --shape 4 --dtype f32
expect_error 2 "cannot be combined with --op" run "[1$(printf '%600s' '')]" --op Slice --start 0 --stop 1 --in a.npy --out new.npy
# Output names as long as the folder takes (255 bytes): the temporary
# file's name is cut short, at a character boundary; one byte more fails.
long=$(printf 'o%.0s' {1..251}).npy
"$SLICEGEN" run '[::-1, 1:]' --in a.npy --out "$long" 2> stderr.txt && cmp -s "$long" expected.npy \
    && ok || bad "run --out a 255-byte name: $(cat stderr.txt)"
long=$(printf 'é%.0s' {1..125})o.npy
"$SLICEGEN" run '[::-1, 1:]' --in a.npy --out "$long" 2> stderr.txt && cmp -s "$long" expected.npy \
    && ok || bad "run --out a 255-byte name of 2-byte characters: $(cat stderr.txt)"
expect_error 2 "File name too long (its last name has 256 bytes" run '[1:]' --in a.npy --out "${long}x"
"$SLICEGEN" > stdout.txt 2> stderr.txt
rc=$?
[ "$rc" -eq 2 ] && [ ! -s stdout.txt ] && [ "$(cat stderr.txt)" = "slicegen: error: no command given (see 'slicegen --help')" ] \
    && ok || bad "no arguments: exit $rc, stderr: $(cat stderr.txt)"

# A program of model layers pads by 10^14: its pieces are found per border
# piece, not per coordinate (regression: fuzz_onnx's fused pads hung).
check "a program of layers padding by 10^14 plans at once" timeout 30 "$SLICEGEN" plan \
    'Pad(Pad(x, "--pads-begin 1,110416833609729 --pads-end 1,1 --mode constant"), "--pads-begin 1,110416833609729 --pads-end 1,1 --mode constant --value 11")' \
    --shape 2,3 --dtype f32

# ---- golden plans: the first line of each file holds the arguments ----
for golden in "$GOLDEN"/*.plan; do
    args=$(head -n 1 "$golden" | sed 's/^# slicegen plan //')
    eval "set -- $args"
    if "$SLICEGEN" plan "$@" > got.txt 2> err.txt && diff -u <(tail -n +2 "$golden") got.txt > diff.txt; then ok
    else bad "golden $(basename "$golden")"; cat err.txt diff.txt >&2; fi
done

# Special files are written, never replaced; a symbolic link stays a link
# and the file it names is replaced.
"$SLICEGEN" run '[::-1, 1:]' --in a.npy --out /dev/null && [ -c /dev/null ] && ok || bad "--out /dev/null"
if [ -w /dev/full ]; then
    "$SLICEGEN" run '[::-1, 1:]' --in a.npy --out /dev/full 2> stderr.txt
    rc=$?
    [ "$rc" -eq 2 ] && [ -c /dev/full ] && grep -q "^slicegen: error: failed to write '/dev/full': No space left on device$" stderr.txt \
        && ok || bad "--out /dev/full: exit $rc, $(cat stderr.txt), $(ls -l /dev/full)"
fi
echo "old" > target.npy
ln -s target.npy link.npy
"$SLICEGEN" run '[::-1, 1:]' --in a.npy --out link.npy && [ -L link.npy ] && cmp -s target.npy expected.npy \
    && ok || bad "a symbolic link as --out: $(ls -l link.npy target.npy)"
ln -s loop-b loop-a && ln -s loop-a loop-b
"$SLICEGEN" run '[::-1, 1:]' --in a.npy --out loop-a 2> stderr.txt
[ $? -eq 2 ] && grep -q "Too many levels of symbolic links" stderr.txt && [ -L loop-a ] && ok || bad "a loop of links: $(cat stderr.txt)"

# Planning does not grow with the output: a wrap slice of 10^12 elements
# keeps the segments of one period. Memory is bounded where no sanitizer
# reserves address space.
limit="ulimit -v 4000000;"
ldd "$SLICEGEN" | grep -q -e asan -e tsan && limit=""
big=(--op TrtSlice --start 0 --size 1000000000000 --mode wrap --shape 3 --dtype f32)
bash -c "$limit \"\$@\"" _ "$SLICEGEN" plan "${big[@]}" > big.plan && grep -q "segments 1 period 3" big.plan \
    && ok || bad "planning a 10^12-element wrap: $(cat big.plan)"
bash -c "$limit \"\$@\"" _ "$SLICEGEN" ir "${big[@]}" > big.ll && grep -q "sdiv" big.ll && ok || bad "the IR of a 10^12-element wrap"
# The same when the output's last coordinate overflows 64 bits before it is
# reduced to one period (found by fuzzing: 2^63 / 5 segments were planned).
huge=(--op TrtSlice --start -116 --size 9223372036854775807 --mode wrap --shape 5 --dtype u8)
bash -c "$limit \"\$@\"" _ "$SLICEGEN" plan "${huge[@]}" > huge.plan && grep -q "segments 2 period 5" huge.plan \
    && ok || bad "planning a 2^63-1-element wrap from -116: $(cat huge.plan)"

finish cli

#!/usr/bin/env bash
# Files: inputs mapped rather than read (`run` on a 32 GiB sparse input, with
# its peak memory; `plan`, `ir` and `emit` read only the header), inputs
# whose header claims more data than they hold or that shrink while mapped,
# interrupted commands (SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGKILL during
# `run`, `emit` and `aot`), the file size limit, and the same file as input
# and output. Sparse inputs take no disk space; the largest output written
# is a few hundred MiB, and removed.
# usage: files_test.sh path/to/slicegen path/to/maxrss
set -u
ulimit -c 0 # SIGQUIT below must not dump a core
SLICEGEN=$(realpath "${1:?usage: files_test.sh path/to/slicegen path/to/maxrss}")
MAXRSS=$(realpath "${2:?usage: files_test.sh path/to/slicegen path/to/maxrss}")
MODEL=$(cd "$(dirname "$0")/../../examples/model" && pwd)/model.xml
. "$(dirname "$0")/../support/lib.sh"

# sparse_npy FILE N: a 1-D u8 .npy of N zero bytes that takes no disk space;
# prints the size of its preamble.
sparse_npy() {
    make_npy "$1" '|u1' "($2,)" ''
    local pre
    pre=$(stat -c %s "$1")
    truncate -s $((pre + $2)) "$1"
    echo "$pre"
}
# poke FILE OFFSET BYTE: writes one byte (printf \x form) at OFFSET.
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# one_error TEXT: stderr.txt is one line "slicegen: error: ..." containing TEXT.
one_error() {
    [ "$(wc -l < stderr.txt)" -eq 1 ] && grep -q '^slicegen: error: ' stderr.txt && grep -qF -- "$1" stderr.txt
}
# no_temporaries: no file named like a temporary output is left here.
no_temporaries() { ! compgen -G '*.slicegen-tmp-*' > /dev/null; }
# wait_for PID GLOB: waits (at most 20 s) until a file matching GLOB exists;
# fails if PID ends first.
wait_for() {
    local i
    for ((i = 0; i < 4000; i++)); do
        compgen -G "$2" > /dev/null && return 0
        kill -0 "$1" 2> /dev/null || return 1
        sleep 0.005
    done
    return 1
}

# ---- a 32 GiB input, larger than memory: only what the slice uses is read ----
BIG=$((32 << 30))
pre=$(sparse_npy big.npy "$BIG")
poke big.npy "$pre" '\x2a'                       # [0]
poke big.npy $((pre + BIG - 1)) '\x17'           # [-1]
poke big.npy $((pre + 7 * 1000000)) '\x63'       # [::1000000][7]
make_npy small.npy '|u1' '(4,)' '\x01\x02\x03\x04'
"$MAXRSS" rss.txt "$SLICEGEN" run '[0]' --in small.npy --out out.npy && base=$(cat rss.txt) || base=0
[ "$base" -gt 0 ] && ok || bad "run on a small input under maxrss"
report="baseline (4-byte input) $base KiB"
# peak: SPEC, bytes of output data, its data in printf \x form at offsets
# 0 and 7 or only 0, and the most it may use beyond the baseline (KiB)
for c in "[0]|1|\\x2a|16384" "[-1]|1|\\x17|16384" "[::1000000]|34360|\\x2a|262144"; do
    IFS='|' read -r spec bytes first limit <<< "$c"
    rm -f out.npy
    for engine in jit ref; do
        if "$MAXRSS" rss.txt "$SLICEGEN" run "$spec" --engine "$engine" --in big.npy --out out.npy 2> stderr.txt; then
            peak=$(cat rss.txt)
            report="$report, $spec $engine $peak KiB"
            size=$(stat -c %s out.npy)
            data=$(tail -c "$bytes" out.npy | od -An -tx1 -N8 | tr -d ' \n')
            want=$(printf "$first" | od -An -tx1 | tr -d ' \n')
            [ "$bytes" -gt 1 ] && want="${want}00000000000063"
            if [ "$data" = "$want" ] && [ "$size" -le $((bytes + 192)) ]; then ok
            else bad "run '$spec' --engine $engine on 32 GiB: data $data, want $want, $size bytes"; fi
            [ $((peak - base)) -lt "$limit" ] && ok \
                || bad "run '$spec' --engine $engine on 32 GiB: peak $peak KiB, baseline $base KiB (limit +$limit)"
        else
            bad "run '$spec' --engine $engine on a 32 GiB input: $(cat stderr.txt)"
        fi
    done
done
echo "files: peak memory, 32 GiB sparse input: $report"
# plan, ir and emit read the header only
"$MAXRSS" rss.txt "$SLICEGEN" plan '[::2]' --in big.npy > plan.txt 2> stderr.txt \
    && grep -q "^input \[$BIG\]" plan.txt && ok || bad "plan on 32 GiB: $(cat stderr.txt)"
"$SLICEGEN" ir '[::2]' --in big.npy -O0 > ir.txt 2> stderr.txt && grep -q '^define void' ir.txt \
    && ok || bad "ir on 32 GiB: $(cat stderr.txt)"
"$SLICEGEN" emit '[1:]' --in big.npy -o k.o --header k.h 2> stderr.txt && grep -q "_INPUT_BYTES ((int64_t)$BIG)$" k.h \
    && ok || bad "emit on 32 GiB: $(cat stderr.txt) $(grep INPUT_BYTES k.h)"

# ---- inputs whose size does not match their header: errors before any mapping ----
# the header of big.npy on 1 MiB of data, then on none at all
head -c $((pre + (1 << 20))) big.npy > lie.npy
head -c "$pre" big.npy > header-only.npy
for f in lie.npy:1048576 header-only.npy:0; do
    file=${f%:*} has=${f#*:}
    for cmd in "run [0] --in $file --out out.npy" "plan [0] --in $file" "ir [0] --in $file" \
        "emit [0] --in $file -o out.o"; do
        rm -f out.npy out.o
        # shellcheck disable=SC2086
        "$SLICEGEN" $cmd > /dev/null 2> stderr.txt
        rc=$?
        [ "$rc" -eq 2 ] && one_error "failed to read '$file': truncated data (shape ($BIG,) of '|u1' needs $BIG data bytes, file has $has)" \
            && [ ! -e out.npy ] && [ ! -e out.o ] && ok || bad "$cmd: exit $rc, $(cat stderr.txt)"
    done
done
rm -f big.npy lie.npy header-only.npy

# ---- an input truncated by another process while mapped: exit 2, one line ----
SHRINK=$((256 << 20))
pre=$(sparse_npy shrink.npy "$SHRINK")
echo "old output" > keep.npy
cp keep.npy old.npy
for attempt in 1 2 3; do
    env --default-signal=INT "$SLICEGEN" run '[::-1]' --engine ref --in shrink.npy --out old.npy 2> stderr.txt &
    pid=$!
    for ((i = 0; i < 4000; i++)); do
        grep -q 'shrink\.npy' "/proc/$pid/maps" 2> /dev/null && break
        kill -0 "$pid" 2> /dev/null || break
    done
    sleep 0.05 # past the check of the size after mapping, inside the second it takes to read
    kill -STOP "$pid" 2> /dev/null
    truncate -s "$pre" shrink.npy
    kill -CONT "$pid" 2> /dev/null
    wait "$pid"
    rc=$?
    # else it finished before it was stopped, or was stopped before it had
    # checked the size once more: try again
    grep -q "truncated while being read" stderr.txt && break
    truncate -s $((pre + SHRINK)) shrink.npy
done
[ "$rc" -eq 2 ] && one_error "failed to read 'shrink.npy': the file was truncated while being read" && cmp -s old.npy keep.npy \
    && no_temporaries && ok || bad "input truncated while mapped: exit $rc, $(cat stderr.txt)"
rm -f shrink.npy

# ---- interrupted runs: SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporary
# file, SIGKILL leaves it; the old output stays as it was ----
IN=$((320 << 20))
sparse_npy in.npy "$IN" > /dev/null
for sig in INT TERM HUP QUIT KILL; do
    cp keep.npy old.npy
    rm -f old.npy.slicegen-tmp-* # left by a failure above: the file waited for must be this run's
    env --default-signal=INT,QUIT "$SLICEGEN" run '[::-1]' --in in.npy --out old.npy 2> stderr.txt &
    pid=$!
    if ! wait_for "$pid" 'old.npy.slicegen-tmp-??????'; then
        wait "$pid"
        bad "SIG$sig: no temporary file seen while the run wrote its output (exit $?)"
        continue
    fi
    kill -"$sig" "$pid"
    { wait "$pid"; } 2> /dev/null # without the shell's line about the signal
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] && ok || bad "SIG$sig during run: exit $rc, expected $want ($(cat stderr.txt))"
    cmp -s old.npy keep.npy && ok || bad "SIG$sig during run: the old output changed"
    if [ "$sig" = KILL ]; then
        # the temporary file stays, named after the output
        compgen -G 'old.npy.slicegen-tmp-??????' > /dev/null && ok || bad "SIGKILL: no temporary file left ($(ls))"
        rm -f old.npy.slicegen-tmp-*
    else
        no_temporaries && ok || bad "SIG$sig during run: a temporary file was left ($(ls))"
    fi
done

# ---- interrupted emit and aot: a FIFO as the header holds the command after
# its object is staged, so the signal comes while the temporary object exists ----
mkfifo fifo.h
echo "old object" > keep.o
for c in "INT|emit [::-1] --shape 1000 --dtype f32" "TERM|emit [1:] --shape 4,4 --dtype u8 --name k" \
    "TERM|aot $MODEL --prefix net" "HUP|aot $MODEL"; do
    IFS='|' read -r sig cmd <<< "$c"
    cp keep.o old.o
    rm -f old.o.slicegen-tmp-*
    # shellcheck disable=SC2086
    env --default-signal=INT "$SLICEGEN" $cmd -o old.o --header fifo.h > /dev/null 2> stderr.txt &
    pid=$!
    if wait_for "$pid" 'old.o.slicegen-tmp-??????'; then
        kill -"$sig" "$pid"
        { wait "$pid"; } 2> /dev/null
        rc=$?
        [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] && cmp -s old.o keep.o && no_temporaries && ok \
            || bad "SIG$sig during $cmd: exit $rc, $(ls), $(cat stderr.txt)"
    else
        wait "$pid"
        bad "$cmd: no temporary object seen (exit $?, $(cat stderr.txt))"
    fi
done
# A signal ignored when slicegen starts stays ignored: a background job of a
# shell without job control ignores SIGINT.
cp keep.o old.o
rm -f old.o.slicegen-tmp-*
"$SLICEGEN" emit '[::-1]' --shape 1000 --dtype f32 -o old.o --header fifo.h 2> stderr.txt &
pid=$!
if wait_for "$pid" 'old.o.slicegen-tmp-??????'; then
    kill -INT "$pid"
    sleep 0.1
    cat fifo.h > got.h
    wait "$pid"
    rc=$?
    [ "$rc" -eq 0 ] && grep -q '_OUTPUT_BYTES' got.h && ! cmp -s old.o keep.o && no_temporaries && ok \
        || bad "an ignored SIGINT: exit $rc, $(cat stderr.txt)"
else
    wait "$pid"
    bad "emit with SIGINT ignored: no temporary object seen (exit $?)"
fi
rm -f fifo.h got.h old.o keep.o

# ---- over the file size limit: an error like any other (SIGXFSZ is ignored) ----
sparse_npy mid.npy $((16 << 20)) > /dev/null
cp keep.npy old.npy
(ulimit -f 8192 && exec "$SLICEGEN" run '[::-1]' --in mid.npy --out old.npy) 2> stderr.txt
rc=$?
[ "$rc" -eq 2 ] && one_error "failed to write 'old.npy': File too large" && cmp -s old.npy keep.npy && no_temporaries \
    && ok || bad "an output over the file size limit: exit $rc, $(cat stderr.txt), $(ls)"
rm -f mid.npy in.npy

# ---- the same file as input and output, a mapped input (2 MiB) and a small one ----
for f in big:1024,512 small:4,6; do
    name=${f%:*} shape=${f#*:}
    n=$((${shape%,*} * ${shape#*,} * 4))
    make_npy "$name.npy" '<u4' "(${shape%,*}, ${shape#*,})" ''
    head -c "$n" /dev/urandom >> "$name.npy"
    for engine in jit ref "jit --threads 3"; do
        cp "$name.npy" copy.npy
        cp "$name.npy" same.npy
        # shellcheck disable=SC2086
        "$SLICEGEN" run '[::-1, 1::2]' --engine ref --in copy.npy --out expected.npy &&
            "$SLICEGEN" run '[::-1, 1::2]' --engine $engine --in same.npy --out same.npy 2> stderr.txt &&
            cmp -s same.npy expected.npy && no_temporaries && ok || bad "run --in same.npy --out same.npy ($name, $engine): $(cat stderr.txt)"
    done
done

finish files

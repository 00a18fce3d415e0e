#!/usr/bin/env bash
# Builds the libFuzzer targets (the CMake preset `fuzz`: clang-14, LLVM 14,
# AddressSanitizer and UndefinedBehaviorSanitizer, in build-fuzz/) if needed,
# then runs each target for SECONDS seconds on a copy of its seed corpus
# (tests/fuzz/corpus/TARGET) in a scratch folder: the committed corpus never
# grows. Before that, every reproducer in tests/fuzz/regress/TARGET is run
# once. The targets run side by side (SLICEGEN_JOBS). Prints per target the executions done and the result, and fails if
# any target finds a crash, a leak, undefined behaviour, a timeout, running
# out of memory or a mismatch; the input that caused it is kept in
# build-fuzz/fuzz-findings/TARGET/ and its path printed. See docs/fuzzing.md.
#
#   usage: tests/fuzz/run.sh [SECONDS] [TARGET...]      (default: 60 seconds, every target)
#   SLICEGEN_FUZZ_ARGS    more libFuzzer options, appended (e.g. "-fork=2 -ignore_crashes=1")
#   SLICEGEN_FUZZ_KEEP=1  keep the scratch folder: each target's grown corpus and full log
#   SLICEGEN_JOBS         build jobs, and targets fuzzed side by side (default: the number of processors)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
all_targets=(fuzz_numpy fuzz_words fuzz_npy fuzz_plan_text fuzz_model fuzz_onnx fuzz_diff fuzz_values)

seconds=60
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
    if [[ ! " ${all_targets[*]} " =~ " $t " ]]; then
        echo "usage: tests/fuzz/run.sh [SECONDS] [TARGET...]; unknown target '$t' (targets: ${all_targets[*]})" >&2
        exit 2
    fi
done

# ---- build ----------------------------------------------------------------------
bash "$root/tools/install-deps.sh" clang-14 libclang-rt-14-dev llvm-14-dev
build=$root/build-fuzz
cd "$root"
[ -f "$build/CMakeCache.txt" ] || cmake --preset fuzz
cmake --build --preset fuzz -j"${SLICEGEN_JOBS:-$(nproc)}"

# ---- run ------------------------------------------------------------------------
base=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    base=/dev/shm # the targets write their temporary files here: memory, not disk
elif [ -n "${TMPDIR:-}" ]; then
    base=$TMPDIR
fi
scratch=$(mktemp -d "$base/slicegen-fuzz.XXXXXX")
if [ "${SLICEGEN_FUZZ_KEEP:-0}" = 1 ]; then
    echo "scratch folder (kept): $scratch"
else
    trap 'rm -rf "$scratch"' EXIT
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# What went wrong, from a libFuzzer log and its exit status ("" when nothing).
verdict() {
    local log=$1 status=$2
    if grep -q "ERROR: LeakSanitizer" "$log"; then echo "memory leak"
    elif grep -q "ERROR: libFuzzer: timeout" "$log"; then echo "timeout"
    elif grep -q "ERROR: libFuzzer: out-of-memory\|ERROR: libFuzzer: malloc" "$log"; then echo "out of memory"
    elif grep -q "^fuzz failure at" "$log"; then echo "mismatch: $(grep -m1 '^fuzz failure at' "$log" | cut -c1-300)"
    elif grep -q "ERROR: AddressSanitizer" "$log"; then echo "$(grep -m1 'ERROR: AddressSanitizer' "$log" | sed 's/.*ERROR: //' | cut -c1-200)"
    elif grep -q "runtime error:" "$log"; then echo "undefined behaviour: $(grep -m1 'runtime error:' "$log" | cut -c1-300)"
    elif grep -q "ERROR: libFuzzer: deadly signal" "$log"; then echo "crash (deadly signal)"
    elif [ "$status" -ne 0 ]; then echo "exit status $status"
    fi
}

# fuzz_target T: replays T's reproducers, then fuzzes T for $seconds seconds;
# writes what it found to $scratch/T/report (printed) and $scratch/T/summary
# (one line per verdict); exit status 1 when anything failed.
fuzz_target() {
    local t=$1 bin=$build/tests/fuzz/$1 work=$scratch/$1 findings=$build/fuzz-findings/$1
    local failed=0 file status result dict=()
    mkdir -p "$work/corpus" "$work/tmp" "$findings"
    cp "$root/tests/fuzz/corpus/$t/"* "$work/corpus/"
    [ -f "$root/tests/fuzz/$t.dict" ] && dict=("-dict=$root/tests/fuzz/$t.dict")
    exec > "$work/report" 3> "$work/summary"

    # Reproducers of bugs found before: each must run clean, one at a time.
    for file in "$root/tests/fuzz/regress/$t/"*; do
        [ -f "$file" ] || continue
        status=0
        TMPDIR=$work/tmp "$bin" -timeout=30 -rss_limit_mb=2048 "$file" > "$work/regress.log" 2>&1 || status=$?
        result=$(verdict "$work/regress.log" "$status")
        if [ -n "$result" ]; then
            failed=1
            echo "$t: reproducer ${file#"$root"/} FAILED: $result"
            echo "  replay: $bin $file"
            tail -n 30 "$work/regress.log" | sed 's/^/  | /'
            echo "$t: reproducer ${file#"$root"/} FAILED: $result" >&3
        fi
    done

    echo "== $t: ${seconds}s on $(ls "$work/corpus" | wc -l) seeds"
    local start=$SECONDS
    status=0
    (cd "$work" && TMPDIR=$work/tmp "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" ${SLICEGEN_FUZZ_ARGS:-} corpus \
        > "$work/log" 2>&1) || status=$?
    local elapsed=$((SECONDS - start)) execs artifact
    execs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$work/log" | tail -1 | grep -o "[0-9]*$" || true)
    [ -n "$execs" ] || execs=$(grep -o "^#[0-9]*" "$work/log" | tail -1 | tr -d '#' || true)
    result=$(verdict "$work/log" "$status")
    if [ -z "$result" ]; then
        echo "$t: ${execs:-0} executions in ${elapsed}s: ok"
        echo "$t: ${execs:-0} executions in ${elapsed}s: ok" >&3
        return $failed
    fi
    artifact=$(grep -o "Test unit written to .*" "$work/log" | tail -1 | sed 's/Test unit written to //' || true)
    echo "$t: ${execs:-0} executions in ${elapsed}s: FAILED: $result"
    if [ -n "$artifact" ]; then
        echo "  reproducer: $artifact"
        echo "  replay: $bin $artifact"
    fi
    tail -n 60 "$work/log" | sed 's/^/  | /'
    echo "$t: ${execs:-0} executions in ${elapsed}s: FAILED: $result${artifact:+ ($artifact)}" >&3
    return 1
}

# The targets run side by side, SLICEGEN_JOBS (default: the number of cores)
# at a time; each one's report is printed whole when it ends.
jobs=${SLICEGEN_JOBS:-$(nproc)}
declare -A running=() # pid -> target
failures=0
reap() { # waits for one running target, prints its report
    local pid status=0
    wait -n -p pid "${!running[@]}" || status=$?
    cat "$scratch/${running[$pid]}/report"
    [ "$status" -eq 0 ] || failures=$((failures + 1))
    unset "running[$pid]"
}
for t in "${targets[@]}"; do
    [ "${#running[@]}" -lt "$jobs" ] || reap
    fuzz_target "$t" &
    running[$!]=$t
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
summary=()
for t in "${targets[@]}"; do
    while IFS= read -r line; do summary+=("$line"); done < "$scratch/$t/summary"
done

echo "== fuzzing summary"
printf '%s\n' "${summary[@]}"
if [ "$failures" -gt 0 ]; then
    echo "$failures of ${#targets[@]} targets failed; reproducers are in $build/fuzz-findings/" >&2
    exit 1
fi

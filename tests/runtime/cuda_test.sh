#!/usr/bin/env bash
# CUDA without a GPU: `slicegen run --device cuda` and `slicegen bench
# --device cuda` with no driver at all (when the machine has none) and
# against the fake driver (tests/support/fake_cuda.c) in each of its failure modes:
# exit 2 (1 for the driver's failures once it runs), one line, no output
# file, an existing one left as it was; a run through the fake copies the
# device's output back into OUT.npy with the launch geometry of the plan;
# the usage errors of --device. Then test_cuda, the C API against the same
# scenarios.
#   usage: cuda_test.sh SLICEGEN TEST_CUDA FAKE_CUDA_DIR
set -u
SLICEGEN=$(realpath "${1:?usage: cuda_test.sh SLICEGEN TEST_CUDA FAKE_CUDA_DIR}")
TEST_CUDA=$(realpath "$2")
FAKE_DIR=$(realpath "$3")
TESTS=$(cd "$(dirname "$0")" && pwd)
. "$TESTS/../support/lib.sh"

# i32 [2,3] = 0..5; '[::-1, 1:]' makes 16 bytes, one block of 256 threads.
make_npy a.npy '<i4' '(2, 3)' '\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00'
make_npy expected.npy '<i4' '(2, 2)' '\x04\x00\x00\x00\x05\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00'
cp a.npy keep.npy
keep_files
RUN=(run '[::-1, 1:]' --in a.npy)
# The fake driver, as a prefix for expect_error's RUN_WITH.
FAKE_ENV="LD_LIBRARY_PATH=$FAKE_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
FAKE="env $FAKE_ENV"

# ---- no driver at all (only where the machine has none) ----
driver=""
for dir in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }}; do [ -e "$dir/libcuda.so.1" ] && driver="$dir/libcuda.so.1"; done
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
if [ -z "$driver" ] && "$ldconfig" -p 2> /dev/null | grep -q 'libcuda\.so\.1 '; then driver="(ldconfig)"; fi
if [ -z "$driver" ]; then
    expect_error 2 "failed to use CUDA: cannot load libcuda.so.1 (no NVIDIA driver on this machine)" \
        "${RUN[@]}" --out new.npy --device cuda
    expect_error 2 "cannot load libcuda.so.1" "${RUN[@]}" --out keep.npy --device cuda
    expect_error 2 "cannot load libcuda.so.1" bench --device cuda --quick --json new.json
    check "test_cuda no-driver" "$TEST_CUDA" no-driver
else
    echo "cuda: a CUDA driver is installed ($driver): the checks without one are skipped"
    # With a device: the real thing, end to end (the corpus runs in corpus-cuda).
    if "$SLICEGEN" "${RUN[@]}" --out gpu.npy --device cuda 2> stderr.txt; then
        cmp -s gpu.npy expected.npy && ok || bad "run --device cuda on the GPU: the output differs from the CPU's"
        if "$SLICEGEN" bench --device cuda --quick --json gpu.json > bench.txt 2> stderr.txt; then
            ok
            if command -v python3 > /dev/null; then
                check "bench --device cuda --json" python3 "$TESTS/../bench/bench_check.py" gpu.json
            fi
        else
            bad "bench --device cuda --quick on the GPU: $(cat stderr.txt)"
        fi
    elif grep -q "no CUDA device" stderr.txt; then
        echo "cuda: no run on this machine's GPU: $(cat stderr.txt)"
    else
        bad "run --device cuda on the GPU: $(cat stderr.txt)"
    fi
fi

# ---- the fake driver's failures before any kernel ----
RUN_WITH="$FAKE FAKE_CUDA=no-device" expect_error 2 \
    "failed to use CUDA: no CUDA device (CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected)" \
    "${RUN[@]}" --out new.npy --device cuda
RUN_WITH="$FAKE FAKE_CUDA=no-device" expect_error 2 "no CUDA device" bench --device cuda --quick --json new.json
RUN_WITH="$FAKE FAKE_CUDA=init-fails" expect_error 2 \
    "failed to use CUDA: the driver does not start (cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" \
    "${RUN[@]}" --out new.npy --device cuda
RUN_WITH="$FAKE FAKE_CUDA=init-fails" expect_error 2 "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" bench --device cuda
check "test_cuda no-device" env "$FAKE_ENV" FAKE_CUDA=no-device "$TEST_CUDA" no-device
check "test_cuda init-fails" env "$FAKE_ENV" FAKE_CUDA=init-fails "$TEST_CUDA" init-fails

# ---- usage ----
expect_error 2 "--engine ref runs on the CPU" "${RUN[@]}" --out new.npy --device cuda --engine ref
expect_error 2 "--threads splits a CPU kernel" "${RUN[@]}" --out new.npy --device cuda --threads 2
expect_error 2 "unknown --device 'tpu' (expected cpu or cuda)" "${RUN[@]}" --out new.npy --device tpu
expect_error 2 "option '--device' given twice" "${RUN[@]}" --out new.npy --device cuda --device cpu
expect_error 2 "--threads is for CPU kernels" bench --device cuda --threads 2
expect_error 2 "unknown --device 'gpu'" bench --device gpu
expect_error 2 "--device is not an option of 'slicegen plan'" plan '[1:]' --shape 4 --dtype f32 --device cuda
if "$SLICEGEN" "${RUN[@]}" --out out.npy --device cpu && cmp -s out.npy expected.npy; then ok
else bad "run --device cpu"; fi
"$SLICEGEN" run --help | grep -q -- "--device cuda" && ok || bad "run --help lacks --device cuda"
"$SLICEGEN" bench --help | grep -q -- "--device cuda" && ok || bad "bench --help lacks --device cuda"
"$SLICEGEN" --help | grep -q "slicegen run .*" && "$SLICEGEN" --help | grep -q -- "\[--device cpu|cuda\]" && ok ||
    bad "--help lacks --device"

# ---- kernels through the fake ----
$FAKE FAKE_CUDA_LOG="$PWD/launches.txt" "$SLICEGEN" "${RUN[@]}" --out out.npy --device cuda 2> stderr.txt
rc=$?
if [ "$rc" -eq 0 ]; then
    ok
    # The header as the CPU writes it, then 16 bytes of the fake's marker.
    [ "$(head -c -16 out.npy | od -An -tx1)" = "$(head -c -16 expected.npy | od -An -tx1)" ] && ok ||
        bad "run --device cuda: the .npy header differs from the CPU's"
    [ "$(tail -c 16 out.npy | od -An -tx1 | tr -d ' \n')" = "$(printf '5a%.0s' $(seq 16))" ] && ok ||
        bad "run --device cuda: the output is not what the device wrote: $(tail -c 16 out.npy | od -An -tx1)"
    grep -Eq '^launch sg_x4_[^ ]+ grid=1,1,1 block=256,1,1 shared=0 in=0x[0-9a-f]+ out=0x[0-9a-f]+$' launches.txt &&
        [ "$(wc -l < launches.txt)" -eq 1 ] && ok || bad "launches: $(cat launches.txt)"
else
    bad "run --device cuda through the fake: exit $rc: $(cat stderr.txt)"
fi
# A kernel of runtime values: prepared on the host, its args passed with the launch.
rm -f launches.txt
$FAKE FAKE_CUDA_LOG="$PWD/launches.txt" "$SLICEGEN" run '[::-1, t:]' --in a.npy --set t=1 --out out.npy --device cuda \
    2> stderr.txt
rc=$?
if [ "$rc" -eq 0 ]; then
    ok
    [ "$(head -c -16 out.npy | od -An -tx1)" = "$(head -c -16 expected.npy | od -An -tx1)" ] && ok ||
        bad "run --device cuda --set: the .npy header differs from the CPU's"
    grep -Eq '^launch sg_x4_[^ ]+ grid=1,1,1 block=256,1,1 shared=0 in=0x[0-9a-f]+ out=0x[0-9a-f]+ args.output_bytes=16$' \
        launches.txt && ok || bad "launches of runtime values: $(cat launches.txt)"
else
    bad "run --device cuda --set through the fake: exit $rc: $(cat stderr.txt)"
fi
RUN_WITH="$FAKE" expect_error 2 "failed to run kernel: index out of range (step 0: index 5, input dimension 0 has size 2) (i = 5)" \
    run '[i]' --in a.npy --set i=5 --out keep.npy --device cuda
RUN_WITH="$FAKE FAKE_CUDA=load-fails" expect_error 1 \
    "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed: ptxas fatal: fake log line" \
    "${RUN[@]}" --out new.npy --device cuda
RUN_WITH="$FAKE FAKE_CUDA=load-fails" expect_error 1 "ptxas fatal: fake log line" "${RUN[@]}" --out keep.npy --device cuda
RUN_WITH="$FAKE FAKE_CUDA=oom" expect_error 1 "failed to allocate 24 bytes on CUDA device 0: CUDA_ERROR_OUT_OF_MEMORY" \
    "${RUN[@]}" --out new.npy --device cuda
RUN_WITH="$FAKE FAKE_CUDA=launch-fails" expect_error 1 "failed to launch CUDA kernel" "${RUN[@]}" --out keep.npy --device cuda
# The whole benchmark of one case runs through the fake (events, copies);
# its marker is not the slice, which the check after timing finds.
RUN_WITH="$FAKE" expect_error 1 \
    "failed to benchmark 'tiny': the CUDA kernel's output differs from the reference interpreter's" \
    bench --device cuda --quick --case tiny --json new.json
check "test_cuda fake" env "$FAKE_ENV" "$TEST_CUDA" fake
grep -q "^cuda fake: [1-9]" check.log && ok || bad "test_cuda fake ran no check: $(cat check.log)"

finish cuda

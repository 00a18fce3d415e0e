#!/usr/bin/env bash
# slicegen bench: a --quick run with --json (every field of every case
# checked by bench_check.py, the programs' parts and the chain run as its
# steps apart, the aot figures and their time per layer included, the runtime-values section with its decode loop), --case
# filters, a --plot chart when gnuplot is there, and every usage error:
# exit 2, one line, no file written. Timings are never checked.
#   bench_test.sh SLICEGEN [PYTHON3]
SLICEGEN=$1
PYTHON=${2:-}
CHECK_JSON=$(cd "$(dirname "$0")" && pwd)/bench_check.py
. "$(dirname "$0")/../support/lib.sh"

cases=crop-rows,rgb-bgr,col-stride2,col-reverse,rev-rows-odd-cols,subsample-2x2,one-block,image-crop
cases+=,image-mirror,f16-stride3,inner-crop,tiny,trt-strict,trt-wrap,trt-clamp,trt-reflect,trt-fill
cases+=,trt-reflect-short,trt-crop-odd,trt-clamp-f16,trt-reflect-small
cases+=,col-stride2-in-cache,col-reverse-in-cache,focus,roll,crop-reflect-pad,np-pad-reflect,np-pad-u8

# json_ok FILE ARGS...: FILE passes bench_check.py ARGS (when python3 is there).
json_ok() {
    if [ -z "$PYTHON" ]; then ok; return; fi
    check "$1 $(echo "${@:2}")" "$PYTHON" "$CHECK_JSON" "$@"
}

echo old > keep.json
keep_files

# The whole suite, quick.
if "$SLICEGEN" bench --quick --json all.json > table.txt 2> err.txt; then
    ok
    json_ok all.json --cases "$cases" --compile 8 --values 29
    for c in ${cases//,/ }; do
        grep -q "^$c " table.txt && ok || bad "no table line for $c"
        [ "$c" = tiny ] && continue
        grep -q "^values: $c  *[0-9.]* [mun]s " table.txt && ok || bad "no runtime-values line for $c"
    done
    grep -q "^programs: one kernel each, made of parts: focus 4, roll 2, crop-reflect-pad 9, np-pad-reflect [0-9]*, np-pad-u8 [0-9]*$" table.txt \
        && ok || bad "no parts of the programs"
    grep -q "^crop-reflect-pad: one kernel [0-9.]* [mun]s, its 2 steps as kernels of their own [0-9.]* [mun]s (\[16:-16, 16:-16\] into a temporary f32 \[992, 992\], then np.pad(x, 16, mode='reflect')): [0-9.]*x the time$" table.txt \
        && ok || bad "no line of crop-reflect-pad's steps run apart"
    grep -q "^runtime values: each case compiled once" table.txt && ok || bad "no runtime-values title"
    grep -q "^values: case  *static  *symbolic  *ratio  *+steps  *ratio  *[0-9]*-thr static  *ratio  *ratio  *compile  *sym comp  *ratio " table.txt \
        && ok || bad "no runtime-values header"
    grep -q "^values: crop-rows  *\([0-9.]* [mun]s  *\)\{2\}[0-9.]*x .* [0-9.]* [mun]s  *[0-9.]* [mun]s  *[0-9.]*x  \[" table.txt \
        && ok || bad "no compile times for values: crop-rows"
    grep -q "^values: symbolic over static, the JIT's compile at the default level: geometric mean [0-9.]*x, largest" table.txt \
        && ok || bad "no runtime-values compile summary"
    grep -q "^values: tiny: prepare + call [0-9.]* ns .*static call [0-9.]* ns: [-+][0-9.]* ns per call" table.txt \
        && ok || bad "no prepare + call overhead for tiny"
    for form in "" " with steps"; do
        grep -q "^values: symbolic$form over static, 1 thread: geometric mean [0-9.]*x, largest" table.txt \
            && ok || bad "no runtime-values summary${form}"
    done
    grep -q "^values: decode: f16 \[1, 32, 1024, 128\] '\[:, :, :t\]' for t = 1..50, " table.txt \
        && ok || bad "no decode line"
    for what in "dynamic kernel, prepare + run" "static kernel per t, JIT" "memcpy of the same rows"; do
        grep -q "^  $what  *[0-9.]* [mun]*s per step  *[0-9.]* [mun]*s in all" table.txt \
            && ok || bad "no decode figure for: $what"
    done
    grep -q "(compile [0-9.]* [mun]*s, 50 compiles)" table.txt && ok || bad "the decode's static kernels are not 50 compiles"
    grep -q "^compile: JIT creation " table.txt && ok || bad "no compile figures in the table"
    for n in 100 200 400; do grep -q "^compile: aot of $n layers " table.txt && ok || bad "no aot of $n layers"; done
    grep -q "^aot: .* per layer at 100 layers; time per layer x[0-9.]* at 200, x[0-9.]* at 400$" table.txt \
        && ok || bad "no time per layer of aot"
    grep -q "^trt-wrap: .* the time of trt-strict" table.txt && ok || bad "no TensorRT mode ratio"
    grep -q "^tiny: .* ns per call" table.txt && ok || bad "no ns per call for tiny"
    grep -q "^case .* k/memcpy *k/stream " table.txt && ok || bad "no k/stream column"
    grep -q "^stream: a copy with .* the faster of it and memcpy$" table.txt && ok || bad "no streaming copy note"
    # every case under each store strategy, whatever this machine's cache
    grep -q "^stores: case  *output  *auto  *cached  *streaming  *auto/best  *auto chose$" table.txt \
        && ok || bad "no stores header"
    for c in ${cases//,/ }; do
        grep -q "^stores: $c  *[0-9.]* [KM]*i*B  *[0-9.]* [mun]s  *[0-9.]* [mun]s  *[0-9.]* [mun]s  *[0-9.]*x \(cached\|streaming\)" \
            table.txt && ok || bad "no stores line for $c"
    done
    [ ! -s err.txt ] && ok || bad "stderr is not empty (not a tty: no progress): $(cat err.txt)"
else
    bad "slicegen bench --quick --json all.json failed"
    cat err.txt >&2
fi

# A filter: the TensorRT cases only, no compile figures; two threads.
if "$SLICEGEN" bench --quick --case trt- --threads 2 --json trt.json > table.txt 2> err.txt; then
    ok
    json_ok trt.json --cases trt-strict,trt-wrap,trt-clamp,trt-reflect,trt-fill,trt-reflect-short,trt-crop-odd,trt-clamp-f16,trt-reflect-small --compile 0 --values 9
    grep -q '"threads": 2' trt.json && ok || bad "--threads 2 not in the JSON"
else
    bad "slicegen bench --case trt- failed"
    cat err.txt >&2
fi
# The DRAM-sized cases: only when --case names "dram" (not in the full run
# above, nor with --case crop), each with its runtime-values figure.
dram=dram-block,dram-crop,dram-reverse,dram-stride2,dram-nchw-crop,dram-rgb-mirror,dram-reflect-pad,dram-fill-pad
dram+=,dram-reflect-short,dram-np-pad
if "$SLICEGEN" bench --quick --case dram --json dram.json > table.txt 2> err.txt; then
    ok
    json_ok dram.json --cases "$dram" --compile 0 --values 10
else
    bad "slicegen bench --case dram failed"
    cat err.txt >&2
fi
if "$SLICEGEN" bench --quick --case crop > table.txt 2> err.txt; then
    grep -q "^dram" table.txt && bad "--case crop ran a dram- case" || ok
else
    bad "slicegen bench --case crop failed"
fi
# A program and its steps run apart, alone, and its kernel over ? dimensions.
if "$SLICEGEN" bench --quick --case crop-reflect-pad --json chain.json > table.txt 2> err.txt; then
    json_ok chain.json --cases crop-reflect-pad --compile 0 --values 1
    grep -q '"separate": \[{"spec": "\[16:-16, 16:-16\]", "output_shape": \[992, 992\]}, ' chain.json \
        && ok || bad "no steps of crop-reflect-pad in the JSON"
    grep -q "^values: crop-reflect-pad  *[0-9.]* [mun]s .* np.pad(x\[16:-16, 16:-16\], 16, mode='reflect')$" table.txt \
        && ok || bad "no runtime-values line for crop-reflect-pad"
else
    bad "slicegen bench --case crop-reflect-pad failed"
    cat err.txt >&2
fi
# A concatenate's kernel of runtime values (np.concatenate of chains): its figure and the title.
if "$SLICEGEN" bench --quick --case focus --json focus.json > table.txt 2> err.txt; then
    json_ok focus.json --cases focus --compile 0 --values 1
    grep -q "^values: focus  *[0-9.]* [mun]s " table.txt && ok || bad "no runtime-values line for focus"
    grep -q "^runtime values:" table.txt && ok || bad "no runtime-values title for focus"
else
    bad "slicegen bench --case focus failed"
    cat err.txt >&2
fi
# Compile figures only.
if "$SLICEGEN" bench --quick --case 'compile: cache' --json compile.json > table.txt 2> err.txt; then
    json_ok compile.json --cases "" --compile 1 --values 0
else
    bad "slicegen bench --case 'compile: cache' failed"
    cat err.txt >&2
fi
# The runtime-values figures only: every case's, then the decode loop's.
if "$SLICEGEN" bench --quick --case values --json values.json > table.txt 2> err.txt; then
    json_ok values.json --cases "" --compile 0 --values 29
    grep -q "^case " table.txt && bad "--case values printed the table of the cases" || ok
else
    bad "slicegen bench --case values failed"
    cat err.txt >&2
fi
if "$SLICEGEN" bench --quick --case decode --json decode.json > table.txt 2> err.txt; then
    json_ok decode.json --cases "" --compile 0 --values 1
    grep -q '"case": "values: decode"' decode.json && ok || bad "no decode figure in the JSON"
else
    bad "slicegen bench --case decode failed"
    cat err.txt >&2
fi

# The chart, when gnuplot is there.
if command -v gnuplot > /dev/null; then
    if "$SLICEGEN" bench --quick --case in-cache --plot chart.png --json chart.json > table.txt 2> err.txt; then
        [ "$(head -c 8 chart.png | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] && ok || bad "chart.png is no PNG"
        json_ok chart.json --cases col-stride2-in-cache,col-reverse-in-cache --compile 0 --values 2
    else
        bad "slicegen bench --plot failed"
        cat err.txt >&2
    fi
else
    echo "bench: gnuplot not found, --plot not run (Debian: gnuplot-nox)"
fi

# Usage errors, before anything is measured.
expect_error 2 "bad --threads '0'" bench --quick --threads 0
expect_error 2 "bad --threads 'x'" bench --threads x
expect_error 2 "bad --threads '1025'" bench --threads 1025
expect_error 2 "--case 'nomatch' matches no case" bench --quick --case nomatch --json new.json
expect_error 2 "--threads is for CPU kernels: it cannot be combined with --device cuda" bench --device cuda --threads 2
expect_error 2 "unknown --device 'tpu'" bench --device tpu
expect_error 2 "unknown option '--frobnicate'" bench --frobnicate
expect_error 2 "unknown option '-x'" bench -x
expect_error 2 "unexpected argument 'extra'" bench extra
expect_error 2 "option '--json' needs a value" bench --json
expect_error 2 "-O2 is not an option of 'slicegen bench'" bench -O2
expect_error 2 "--shape is not an option of 'slicegen bench'" bench --shape 2,2
expect_error 2 "--quick is not an option of 'slicegen plan'" plan '[1:]' --shape 4 --dtype f32 --quick
RUN_WITH="env PATH=/nonexistent" expect_error 2 "--plot needs gnuplot (Debian: gnuplot-nox)" bench --quick --plot new.png
expect_error 2 "--plot: --case 'compile' selects only compile or runtime-values figures" bench --case compile --plot new.png
expect_error 2 "--plot: --case 'values' selects only compile or runtime-values figures" bench --case values --plot new.png
expect_error 2 "'values: CASE' for each case, 'values: decode'" bench --quick --case nomatch
expect_error 2 "no-such-folder" bench --quick --case tiny --json no-such-folder/new.json
expect_error 2 "the path names a folder" bench --quick --case tiny --json .
expect_error 2 "no-such-folder" bench --quick --case tiny --json keep.json --plot no-such-folder/new.png
# A failure at the end, once measured (gnuplot fails): exit 1, the JSON as it was.
mkdir bin
printf '#!/bin/sh\necho "gnuplot: broken" >&2\nexit 3\n' > bin/gnuplot
chmod +x bin/gnuplot
RUN_WITH="env PATH=$PWD/bin:$PATH" \
    expect_error 1 "gnuplot exited with status 3 (gnuplot: broken)" bench --quick --case tiny --json keep.json --plot new.png

"$SLICEGEN" bench --help > help.txt && grep -q "^usage: slicegen bench" help.txt && ok || bad "bench --help"
"$SLICEGEN" --help | grep -q "slicegen bench \[--quick\]" && ok || bad "--help lacks bench"

finish bench

#!/usr/bin/env bash
# --stores auto|cached|streaming: the structure of the assembly and IR of
# `slicegen emit` for x86 with AVX-512, AVX2 and SSE2 and for AArch64 --
# streaming (non-temporal) stores present above the threshold and absent
# below it, aligned, a store fence before the kernel returns -- for each
# setting of the knob and SLICEGEN_STREAM_THRESHOLD; `run --stores` against
# the reference interpreter; usage errors. No timing.
#   stores_test.sh SLICEGEN
SLICEGEN=$1
. "$(dirname "$0")/../support/lib.sh"

small=(--shape 64,1024 --dtype f32)   # [1:, 3:-5]: 63 x 4064 bytes, in runs of 4064
large=(--shape 4100,4096 --dtype f32) # [1:, 3:-5]: 64 MiB, over the 16 MiB threshold for objects
spec='[1:, 3:-5]'

# streams FILE.s ARCH: vector streaming stores in the assembly and a fence
# after the last streaming store (x86's movnti included: the 4- and 8-byte
# pieces of ragged ends and borders).
streams() {
    local f=$1 arch=$2 nt fence
    if [ "$arch" = aarch64 ]; then nt='stnp'; fence='dmb'; else nt='movntdq|movntps|movntpd'; fence='sfence'; fi
    grep -qE "$nt" "$f" || return 1
    [ "$arch" = aarch64 ] || nt="$nt|movnti"
    # the fence comes after the last streaming store, before the return
    awk -v nt="$nt" -v fence="$fence" '$0 ~ nt {last = NR; seen = 0} $0 ~ fence && last {seen = 1}
        END {exit !(last && seen)}' "$f" || { echo "no $fence after the last streaming store in $f" >&2; return 1; }
}
# nt_aligned FILE.ll: every !nontemporal store is aligned to its size (an
# under-aligned vector one would become a string of movnti on x86).
nt_aligned() {
    awk '/^[[:space:]]*store .*!nontemporal/ {
            bytes = 0
            if (match($0, /store <[0-9]+ x i[0-9]+>/)) {
                split(substr($0, RSTART + 7, RLENGTH - 8), t, " x i"); bytes = t[1] * t[2] / 8
            } else if (match($0, /store i[0-9]+ /)) bytes = substr($0, RSTART + 7, RLENGTH - 8) / 8
            match($0, /align [0-9]+/); align = substr($0, RSTART + 6, RLENGTH - 6)
            if (bytes == 0 || align + 0 < bytes) { print "under-aligned: " $0 > "/dev/stderr"; bad = 1 }
         }
         END {exit bad}' "$1"
}
# ordinary_wide FILE.ll: the ordinary stores of 4 bytes or more to the
# output (not to a stack buffer of a block streamed in pieces).
ordinary_wide() {
    grep -E '^[[:space:]]*store ' "$1" | grep -v nontemporal | grep -vE '%block[0-9]*[,)]|%[0-9]+, align 1$' |
        grep -vE '^[[:space:]]*store i(8|16) ' || true
}
cached() {
    ! grep -qE 'movntdq|movntps|movntpd|movnti|stnp|sfence|dmb' "$1"
}

for config in "x86_64 --cpu skylake-avx512 64" "x86_64 --cpu haswell 32" "x86_64 --cpu x86-64 32" \
              "aarch64 --target aarch64-linux-gnu 32"; do
    set -- $config
    arch=$1 args=("$2" "$3") vec=$4
    name="$arch ${args[*]}"
    for size in small large; do
        declare -n shape=$size
        for stores in auto cached streaming; do
            if "$SLICEGEN" emit "$spec" "${shape[@]}" "${args[@]}" --stores "$stores" -o k.s 2> err.txt &&
               "$SLICEGEN" emit "$spec" "${shape[@]}" "${args[@]}" --stores "$stores" -o k.ll 2>> err.txt; then
                want=cached
                [ "$stores" = streaming ] || { [ "$stores" = auto ] && [ "$size" = large ]; } && want=streams
                if [ $want = streams ]; then
                    streams k.s "$arch" && ok || bad "$name $size --stores $stores: no streaming stores and fence"
                    nt_aligned k.ll && ok || bad "$name $size --stores $stores: an under-aligned !nontemporal store"
                    grep -qE "store <$vec x i8> .*, align $vec, !nontemporal" k.ll && ok \
                        || bad "$name $size --stores $stores: no $vec-byte aligned !nontemporal store in the IR"
                    # the ragged ends of each run are stored inline, not by a call per end
                    ! grep -qE '^[[:space:]]*(callq?|bl?)[[:space:]]+memcpy' k.s && ok \
                        || bad "$name $size --stores $stores: memcpy called for the ends of streamed runs"
                else
                    cached k.s && ok || bad "$name $size --stores $stores: streaming stores or a fence"
                    ! grep -q nontemporal k.ll && ok || bad "$name $size --stores $stores: !nontemporal in the IR"
                fi
            else
                bad "$name $size --stores $stores: emit failed: $(cat err.txt)"
            fi
        done
        unset -n shape
    done
done

# Streaming stores write whole lines: no line takes both streaming and
# ordinary stores (a border, a ragged end), or the streaming ones evict it
# partly written and a pad's rows streamed take 3-4x the cached time. On
# x86 every piece of 4 bytes or more is a streaming store (movnti for the 4-
# and 8-byte ones, aligned to their size), the borders and the reflected
# blocks too; on AArch64 (whose narrow stores are ordinary) the streamed
# part of a run starts at a line (64-byte) boundary whatever the vector
# width, and its ragged ends take ordinary stores outside it.
pad=(--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode reflect --shape 64,256,256 --dtype f32)
for config in "--cpu skylake-avx512" "--cpu haswell" "--cpu x86-64" "--target aarch64-linux-gnu"; do
    if "$SLICEGEN" emit "${pad[@]}" $config --stores streaming -o k.ll 2> err.txt; then
        if [ "$config" = "--target aarch64-linux-gnu" ]; then
            grep -qE '%aligned[0-9]* = and i64 %[^,]+, 63$' k.ll && ! grep -qE '%aligned[0-9]* = and i64 %[^,]+, (31|15)$' k.ll \
                && ok || bad "pad $config --stores streaming: the streamed part of a run does not start at a line boundary"
        else
            nt_aligned k.ll && ok || bad "pad $config --stores streaming: an under-aligned !nontemporal store"
            [ -z "$(ordinary_wide k.ll)" ] && ok \
                || bad "pad $config --stores streaming: ordinary stores of 4 bytes or more: $(ordinary_wide k.ll | head -3)"
        fi
    else
        bad "pad $config --stores streaming: emit failed: $(cat err.txt)"
    fi
done

# Shuffled stores (reversed f32 columns, every other one): streaming from
# the first line boundary on, for each target.
for config in "x86_64 --cpu skylake-avx512" "x86_64 --cpu haswell" "x86_64 --cpu x86-64" \
              "aarch64 --target aarch64-linux-gnu"; do
    set -- $config
    for shuffled in '[:, ::-1]' '[:, ::2]'; do
        "$SLICEGEN" emit "$shuffled" --shape 64,1024 --dtype f32 "$2" "$3" --stores streaming -o k.s && streams k.s "$1" \
            && ok || bad "$config $shuffled --stores streaming: no aligned streaming stores and fence"
        "$SLICEGEN" emit "$shuffled" --shape 64,1024 --dtype f32 "$2" "$3" --stores cached -o k.s && cached k.s \
            && ok || bad "$config $shuffled --stores cached: streaming stores or a fence"
    done
done

# A program streams from its parts, and fences once: in the kernel, after
# the last part returns, not in each part at every step (np.roll: a part per
# piece of each row). Each step calls its parts in the order of the input
# they read: part 1 (the row's head, input offset 0) before part 0 (its tail).
for config in "x86_64 --cpu skylake-avx512" "x86_64 --cpu x86-64" "aarch64 --target aarch64-linux-gnu"; do
    set -- $config
    if [ "$1" = aarch64 ]; then nt='stnp'; fence='dmb'; call='bl'; else nt='movntdq|movntps'; fence='sfence'; call='call'; fi
    "$SLICEGEN" emit 'np.roll(x, 1000, axis=1)' --shape 64,4096 --dtype f32 "$2" "$3" --stores streaming \
        --name rolled -o k.s && grep -qE "$nt" k.s && ok || bad "$config np.roll --stores streaming: no streaming stores"
    [ "$(grep -cE "^[[:space:]]*$fence" k.s)" = 1 ] && ok || bad "$config np.roll: not exactly one $fence"
    awk -v fence="$fence" '/^rolled\.part[0-9]+:/ {part = 1} /^rolled:/ {part = 0} $0 ~ fence && part {bad = 1}
        END {exit bad}' k.s && ok || bad "$config np.roll: a $fence in a part"
    grep -oE "$call[a-z]*[[:space:]]+rolled\.part[0-9]" k.s | grep -oE 'part[0-9]' | tr '\n' ' ' | grep -qx 'part1 part0 ' \
        && ok || bad "$config np.roll: parts not called in the order of their input (part1, then part0)"
done

# Pixels (runs of 3 bytes or 3 x f32, not powers of two) reversed: streamed
# from the first line boundary any pixel reaches.
for config in "x86_64 --cpu skylake-avx512" "x86_64 --cpu x86-64" "aarch64 --target aarch64-linux-gnu"; do
    set -- $config
    for dtype in u8 f32; do
        "$SLICEGEN" emit '[:, ::-1]' --shape 64,1024,3 --dtype $dtype "$2" "$3" --stores streaming -o k.s &&
            streams k.s "$1" && ok || bad "$config $dtype pixels reversed --stores streaming: no streaming stores"
    done
done

# Reversed runs streamed walk their blocks from the last: the loop of
# streaming stores steps its input up and its output down (rows of f32 and
# of pixels reversed, and every other f32 backwards).
backwards() {
    awk '/^[A-Za-z0-9_.]+:/ {nt = up = down = 0}
         /!nontemporal/ {nt = 1}
         /getelementptr i8, (i8\*|ptr) %src[0-9]*, i64 [1-9][0-9]*$/ {up = 1}
         /getelementptr i8, (i8\*|ptr) %dst[0-9]*, i64 -[1-9][0-9]*$/ {down = 1}
         /^  br / {if (nt && up && down) found = 1}
         END {exit !found}' "$1"
}
for config in "x86_64 --cpu skylake-avx512" "x86_64 --cpu x86-64" "aarch64 --target aarch64-linux-gnu"; do
    set -- $config
    for c in "[:,_::-1] 64,1024 f32" "[:,_::-1] 64,1024,3 u8" "[:,_::-1] 64,1024,3 f32" "[:,_::-2] 64,1024 f32"; do
        set -- $config $c
        "$SLICEGEN" emit "${4//_/ }" --shape "$5" --dtype "$6" "$2" "$3" --stores streaming -o k.ll &&
            backwards k.ll && ok || bad "$config $4 on [$5] $6 --stores streaming: streamed blocks not walked backwards"
    done
done

# Fills stream too: a TensorRT fill's borders (64 f32 each side of every
# row) as splat vectors stored !nontemporal, for a fill of 0.5 (not one
# repeated byte) and of 0 (one, a memset when cached); none when cached.
# (LLVM 19 and later print a constant splat as `splat (i32 K)`.)
for config in "x86_64 --cpu skylake-avx512" "x86_64 --cpu x86-64" "aarch64 --target aarch64-linux-gnu"; do
    set -- $config
    for c in "0.5 (<i32_|splat_\(i32_)1056964608" "0 zeroinitializer"; do
        set -- $config $c
        fill=(--op TrtSlice --start 0,-64 --size 64,1152 --stride 1,1 --mode fill --fill "$4" --shape 64,1024 --dtype f32)
        "$SLICEGEN" emit "${fill[@]}" "$2" "$3" --stores streaming -o k.ll &&
            grep -qE "store <[0-9]+ x i32> ${5//_/ }.*!nontemporal" k.ll && ok \
            || bad "$1 $2 $3 fill $4 --stores streaming: the fill not stored !nontemporal"
        "$SLICEGEN" emit "${fill[@]}" "$2" "$3" --stores cached -o k.s && cached k.s && ok \
            || bad "$1 $2 $3 fill $4 --stores cached: streaming stores or a fence"
    done
done

# The threshold from the environment: 63 * 4064 = 256032 output bytes.
SLICEGEN_STREAM_THRESHOLD=256031 "$SLICEGEN" emit "$spec" "${small[@]}" --cpu haswell -o k.s && streams k.s x86_64 \
    && ok || bad "SLICEGEN_STREAM_THRESHOLD one byte below the output: no streaming stores"
SLICEGEN_STREAM_THRESHOLD=256032 "$SLICEGEN" emit "$spec" "${small[@]}" --cpu haswell -o k.s && cached k.s \
    && ok || bad "SLICEGEN_STREAM_THRESHOLD at the output: streaming stores"
# Streaming kernels get default names of their own; cached ones keep theirs.
"$SLICEGEN" emit "$spec" "${small[@]}" -o a.ll --header a.h && "$SLICEGEN" emit "$spec" "${small[@]}" -o c.ll \
    --header c.h --stores cached && "$SLICEGEN" emit "$spec" "${small[@]}" -o s.ll --header s.h --stores streaming
[ -s a.h ] && cmp -s <(grep -o 'sg_x[0-9a-z_]*' a.h | head -1) <(grep -o 'sg_x[0-9a-z_]*' c.h | head -1) \
    && ok || bad "auto and cached small kernels named apart"
! cmp -s <(grep -o 'sg_x[0-9a-z_]*' a.h | head -1) <(grep -o 'sg_x[0-9a-z_]*' s.h | head -1) \
    && ok || bad "a streaming kernel has the name of the cached one"

# The header says whether a kernel streams: NAME_STREAMS, and for a kernel of
# runtime values NAME_STREAMS_ABOVE (the output bytes above which a call does).
for c in "small auto 0" "large auto 1" "small streaming 1" "large cached 0"; do
    set -- $c
    declare -n shape=$1
    "$SLICEGEN" emit "$spec" "${shape[@]}" --stores "$2" --name k -o k.o --header k.h &&
        grep -qx "#define k_STREAMS $3" k.h && ok || bad "$1 --stores $2: header lacks '#define k_STREAMS $3'"
    unset -n shape
done
# Under auto, where every piece of the elements streams whole (x86, f32)
# a call streams constant runs of any length and runtime-valued runs of a
# line or more; else runs of 21 lines or more (AArch64; x86 u8). An output
# no call makes larger than the threshold (of an input of static size)
# never streams.
while read -r stores above min_run dtype target values_spec values_shape; do
    "$SLICEGEN" emit "$values_spec" --shape "$values_shape" --dtype "$dtype" --target "$target" --stores "$stores" --name k \
        -o k.o --header k.h &&
        grep -qx "#define k_STREAMS_ABOVE ((int64_t)$above)" k.h && ok \
        || bad "runtime values $values_spec --stores $stores ($dtype, $target): header lacks k_STREAMS_ABOVE $above"
    grep -qx "#define k_STREAMS_MIN_RUN ((int64_t)$min_run)" k.h && ok \
        || bad "runtime values $values_spec --stores $stores ($dtype, $target): header lacks k_STREAMS_MIN_RUN $min_run"
done <<'CASES'
auto 16777216 0 f32 x86_64-linux-gnu [v0:,3:-5] ?,4096
auto 16777216 64 f32 x86_64-linux-gnu [v0:,v1:] ?,?
auto 16777216 1344 u8 x86_64-linux-gnu [v0:,3:-5] ?,4096
auto 16777216 1344 f32 aarch64-linux-gnu [v0:,3:-5] ?,4096
streaming 0 0 f32 x86_64-linux-gnu [v0:,3:-5] ?,4096
cached -1 0 f32 x86_64-linux-gnu [v0:,3:-5] ?,4096
auto -1 0 f32 x86_64-linux-gnu [v0:,3:-5] 224,4096
auto 16777216 0 f32 x86_64-linux-gnu [v0:,3:-5] 4096,4096
CASES
# A mapped nest of runtime values (a border mode) streams under auto only
# where every piece streams whole: on x86 (f32; u8 and f16 on the calls
# whose rows are whole 4-byte pieces, checked per call), never on AArch64.
for c in "16777216 f32 x86_64-linux-gnu" "16777216 u8 x86_64-linux-gnu" "16777216 f16 x86_64-linux-gnu" \
    "-1 f32 aarch64-linux-gnu"; do
    set -- $c
    "$SLICEGEN" emit --op TrtSlice --start 0,-8,-8 --size v0,v1,v2 --mode reflect --shape ?,256,256 --dtype "$2" \
        --target "$3" --name k -o k.o --header k.h && grep -qx "#define k_STREAMS_ABOVE ((int64_t)$1)" k.h && ok \
        || bad "a runtime-values reflect pad of $2 for $3: want k_STREAMS_ABOVE $1, got $(grep _STREAMS_ABOVE k.h)"
done
# A concatenate of runtime values stores as the cached strategy does, whatever --stores says.
for stores in auto streaming; do
    "$SLICEGEN" emit 'np.concatenate([x[:t], x[t:][::-1]])' --shape ?,4096 --dtype f32 --stores $stores \
        --name k -o k.o --header k.h && grep -qx "#define k_STREAMS_ABOVE ((int64_t)-1)" k.h && ok \
        || bad "a runtime-values concatenate --stores $stores: want k_STREAMS_ABOVE -1, got $(grep _STREAMS_ABOVE k.h)"
done

# Which kernels --stores auto streams, above the threshold (16 MiB for an
# object of the baseline CPU). On x86, whose streaming stores go down to 4
# bytes (movnti), every piece of 4-byte units streams whole: the pads and
# crops of the streaming regression (outputs of 18-46 MB, rows of 400 bytes
# to 2 KiB between short borders) stream, as do u8 and f16 pads whose
# borders are whole 4-byte units; those with 1- or 2-byte pieces (u8 or
# f16 borders of 3), a program's parts that meet in every row (NumPy pads:
# they stream whole lines only) and every pad on AArch64 and on i686's
# baseline CPU (no SSE2: vectors only) stay cached. Focus's parts, which
# write whole channels, stream every piece whole on x86.
# Streamed as lines with ordinary ragged ends, the pads took 1.8-6x the
# cached kernel's time on an AMD EPYC with a 32 MiB L3; streamed whole,
# 0.5-0.9x (docs/bench.md).
unset SLICEGEN_STREAM_SHORT_ROWS
while IFS='|' read -r want target in_shape in_dtype case_spec; do
    [ -n "$want" ] || continue
    read -r -a words <<< "$case_spec"
    if "$SLICEGEN" emit "${words[@]}" --shape "$in_shape" --dtype "$in_dtype" --target "$target" \
        --name k -o k.o --header k.h 2> err.txt; then
        grep -qx "#define k_STREAMS $want" k.h && ok \
            || bad "auto streams '$case_spec' of $in_dtype [$in_shape] for $target: want k_STREAMS $want, got $(grep '_STREAMS ' k.h)"
    else
        bad "emit '$case_spec' of [$in_shape] for $target: $(cat err.txt)"
    fi
done <<'CASES'
1|x86_64-linux-gnu|64,256,256|f32|--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode reflect
1|x86_64-linux-gnu|64,256,256|f32|--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode fill --fill 0.5
1|x86_64-linux-gnu|64,256,256|f32|--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode wrap
1|x86_64-linux-gnu|64,256,256|f32|--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode clamp
1|x86_64-linux-gnu|1024,100,100|f32|--op TrtSlice --start 0,-3,-3 --size 1024,106,106 --mode reflect
1|x86_64-linux-gnu|32,512,1000|f16|--op TrtSlice --start 0,-1,-12 --size 32,514,1024 --mode clamp
1|x86_64-linux-gnu|128,300,301|f32|--op TrtSlice --start 0,2,5 --size 128,296,290
1|x86_64-linux-gnu|512,256,256|u8|--op TrtSlice --start 0,-4,-4 --size 512,264,264 --mode reflect
1|x86_64-linux-gnu|512,256,256|f16|--op TrtSlice --start 0,-4,-4 --size 512,264,264 --mode reflect
0|x86_64-linux-gnu|512,256,256|u8|--op TrtSlice --start 0,-3,-3 --size 512,262,262 --mode reflect
0|x86_64-linux-gnu|512,256,256|f16|--op TrtSlice --start 0,-3,-3 --size 512,262,262 --mode reflect
0|x86_64-linux-gnu|96,224,224|f32|np.pad(x,((0,0),(1,1),(1,1)),mode='reflect')
0|x86_64-linux-gnu|96,224,224|f32|np.pad(x,((0,0),(2,2),(2,2)))
0|aarch64-linux-gnu|4,3,640,640|f32|np.concatenate([x[...,::2,::2],x[...,1::2,::2],x[...,::2,1::2],x[...,1::2,1::2]],axis=1)
1|x86_64-linux-gnu|4,3,640,640|f32|np.concatenate([x[...,::2,::2],x[...,1::2,::2],x[...,::2,1::2],x[...,1::2,1::2]],axis=1)
1|x86_64-linux-gnu|4096,2048|f32|[::-1]
1|x86_64-linux-gnu|4100,4096|f32|[1:,3:-5]
1|x86_64-linux-gnu|64,1024,1024|f32|--op TrtSlice --start 0,-16,-16 --size 64,1056,1056 --mode reflect
1|x86_64-linux-gnu|64,1024,1024|f32|--op TrtSlice --start 0,-16,-16 --size 64,1056,1056 --mode fill --fill 0
0|i686-linux-gnu|64,256,256|f32|--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode reflect
0|aarch64-linux-gnu|64,256,256|f32|--op TrtSlice --start 0,-8,-8 --size 64,272,272 --mode reflect
0|aarch64-linux-gnu|1024,100,100|f32|--op TrtSlice --start 0,-3,-3 --size 1024,106,106 --mode reflect
0|aarch64-linux-gnu|128,300,301|f32|--op TrtSlice --start 0,2,5 --size 128,296,290
1|aarch64-linux-gnu|4096,2048|f32|[::-1]
1|aarch64-linux-gnu|64,1024,1024|f32|--op TrtSlice --start 0,-16,-16 --size 64,1056,1056 --mode reflect
CASES

# SLICEGEN_STREAM_SHORT_ROWS=1 streams an object's rows of short pieces
# (a pad's rows, on AArch64) above the threshold (0: cached, as unset);
# never an output below it.
for c in "1 64,256,256 1" "0 64,256,256 0" "1 4,256,256 0"; do
    set -- $c
    n=${2%%,*}
    SLICEGEN_STREAM_SHORT_ROWS=$1 "$SLICEGEN" emit --op TrtSlice --start 0,-8,-8 --size $n,272,272 --mode reflect \
        --shape "$2" --dtype f32 --target aarch64-linux-gnu --name k -o k.o --header k.h \
        && grep -qx "#define k_STREAMS $3" k.h && ok \
        || bad "SLICEGEN_STREAM_SHORT_ROWS=$1, a reflect pad of [$2]: want k_STREAMS $3"
done

# Rows of a crop prefetched 32 KiB ahead: each line's prefetch beside the
# copy of a line, never a burst of a whole row's prefetches before its copy:
# no block of the IR holds more than 8 prefetches, and a loop's block that
# prefetches loads too. Rows of 32 KiB streamed (a loop of vectors; also
# with a row length known only at run time), rows of 3200 bytes copied
# inline (a loop of groups and straight-line chunks).
interleaved() {
    awk '/^[A-Za-z0-9_.]+:/ {block = $1; sub(":", "", block); p = l = 0}
         /call void @llvm.prefetch/ {p++; n++; if (p > 8) bad = 1}
         / = load / {l++}
         /^  br / {if (index($0 ",", "%" block ",") && p && !l) bad = 1}
         END {exit !(n > 0 && !bad)}' "$1"
}
for c in "[:,_128:-128] 1024,8448 streaming" "[:,_100:900] 2048,1024 cached" "[:,_v0:v1] 1024,8448 streaming"; do
    set -- $c
    "$SLICEGEN" emit "${1//_/ }" --shape "$2" --dtype f32 --cpu skylake-avx512 --stores "$3" -o k.ll &&
        interleaved k.ll && ok || bad "$1 on [$2] --stores $3: prefetches not interleaved with the copy"
done

# run: each setting gives the interpreter's bytes (u8 [4,300] -> [1:, 2:]: runs of
# 298 bytes; [:, ::-1]: shuffled).
make_npy in.npy '|u1' '(4, 300)' "$(iota_bytes 1200)"
make_npy px.npy '|u1' '(4, 100, 3)' "$(iota_bytes 1200)"
for s in '[1:, 2:]' '[:, ::-1]' 'px [:, ::-1]'; do
    input=in.npy
    [ "${s#px }" = "$s" ] || { input=px.npy; s=${s#px }; }
    "$SLICEGEN" run "$s" --in $input --out ref.npy --engine ref && ok || bad "run --engine ref"
    for stores in auto cached streaming; do
        for threads in 1 3; do
            "$SLICEGEN" run "$s" --in $input --out out.npy --stores $stores --threads $threads &&
                cmp -s ref.npy out.npy && ok || bad "run $s on $input --stores $stores --threads $threads differs"
        done
    done
done

expect_error 2 "unknown --stores 'fast' (expected auto, cached or streaming)" emit "$spec" "${small[@]}" -o k.o --stores fast
expect_error 2 "unknown --stores 'x'" run '[1:]' --in in.npy --out new.npy --stores x
expect_error 2 "--stores is for kernels compiled for the CPU: it cannot be combined with --engine ref" \
    run '[1:]' --in in.npy --out new.npy --engine ref --stores cached
expect_error 2 "--stores is not an option of 'slicegen plan'" plan '[1:]' --shape 4 --dtype f32 --stores auto
expect_error 2 "option '--stores' needs a value" emit "$spec" "${small[@]}" -o k.o --stores
"$SLICEGEN" aot --help | grep -q -- "--stores" && ok || bad "aot --help lacks --stores"

finish stores

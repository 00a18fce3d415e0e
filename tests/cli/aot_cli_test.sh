#!/usr/bin/env bash
# `slicegen aot` end to end, on models written by examples/model/make_model.py:
# the example (skipped layers with their reasons, kernel names with a
# collision, the table in model order with static kernels and kernels with
# runtime values, a program linked with the object), the ops model (Pad,
# Gather, Split, VariadicSplit: each static kernel against the output
# OpenVINO's reference rules give), the runtime-values
# model (its kernels called with values and shapes, each output compared
# with `slicegen run --engine ref --set`, refused calls),
# its IR v10 spelling, --weights, a cross target run under qemu-user, every
# malformed model (exit 2, one line naming the file, nothing written,
# existing outputs untouched), a model with nothing to compile, the progress
# line on a terminal, and a 500-layer model (time and size printed; its
# 192 distinct loop nests compiled once each, the other kernels aliases,
# every kernel run).
# usage: aot_cli_test.sh path/to/slicegen   (exit 77 without python3)
set -u
SLICEGEN=$(realpath "${1:?usage: aot_cli_test.sh path/to/slicegen}")
HERE=$(cd "$(dirname "$0")" && pwd)
MAKE_MODEL=$HERE/../../examples/model/make_model.py
CC=${CC:-cc}
command -v python3 > /dev/null || { echo "aot-cli: skipped, no python3 to write the models"; exit 77; }
. "$HERE/../support/lib.sh"
python3 "$MAKE_MODEL" --all models > /dev/null || { echo "FAIL: make_model.py"; exit 1; }

# A program that prints the table of a model compiled with --prefix m.
cat > table.c <<'C'
#include <stdio.h>
#include "m.h"
int main(void)
{
    for (size_t i = 0; i < m_kernel_count; i++)
        printf("%lld %s %s %s %lld\n", (long long)m_kernels[i]->layer_id, m_kernels[i]->layer,
               m_kernels[i]->name, m_kernels[i]->dtype, (long long)m_kernels[i]->output_bytes);
    return 0;
}
C

# ---- the example model ----
"$SLICEGEN" aot models/model.xml -o m.o --header m.h --prefix m > out.txt 2> err.txt
[ $? -eq 0 ] && ok || bad "aot of the example model failed: $(cat err.txt)"
[ "$(wc -l < err.txt)" -eq 3 ] && ok || bad "expected 3 skip lines: $(cat err.txt)"
for layer in "'packed/half' (id 47, Slice): the data input has unsupported element type 'U4'" \
    "'odd/float-index' (id 50, StridedSlice): input 1 (begin) is a Const of element type 'f32'" \
    "'bad/zero-step' (id 54, Slice): failed to make Slice: step must not be zero"; do
    grep -qF "slicegen: skipping layer $layer" err.txt && ok || bad "no skip line for $layer"
done
grep -q "^slicegen: compiled 17 of 20 slice layers (3 skipped) into m.o ([0-9]* bytes) and m.h$" out.txt \
    && ok || bad "summary: $(cat out.txt)"
"$CC" -std=c11 -Wall -Wextra -Werror -I. table.c m.o -o table && ./table > table.txt && ok || bad "the table program"
expected_table="7 backbone/crop.0 m_backbone_crop_0 f32 384
11 head:flip-1 m_head_flip_1 f32 1536
14 neck.expand m_neck_expand u8 24
18 neck.pick m_neck_pick f32 768
22 a.b m_a_b u8 6
27 a-b m_a_b_2 f32 768
32 chain.second m_chain_second f32 128
36 stem.ellipsis m_stem_ellipsis u8 8
38 tail/dynamic-begin m_tail_dynamic_begin f32 -1
43 tokens/window m_tokens_window i64 -1
58 pad/border m_pad_border f32 1600
60 split/halves m_split_halves_out0 u8 12
60 split/halves m_split_halves_out1 u8 12
63 split/rows m_split_rows_out0 f32 384
63 split/rows m_split_rows_out1 f32 576
63 split/rows m_split_rows_out2 f32 576
66 pick/last-channel m_pick_last_channel f32 512"
[ "$(cat table.txt)" = "$expected_table" ] && ok || { bad "the table:"; diff <(echo "$expected_table") table.txt >&2; }
"$SLICEGEN" aot models/model.xml -o dflt.o --header dflt.h > /dev/null 2>&1 &&
    grep -q "^extern const size_t model_kernel_count;" dflt.h && ok || bad "the default prefix is the file's name, model"

# Two models with default prefixes (their file names) in one program: no
# symbol, table or header guard in common.
cp models/model.xml other-net.xml && cp models/model.bin other-net.bin
check "aot of other-net.xml" "$SLICEGEN" aot other-net.xml -o other.o --header other.h
grep -q "^extern const size_t other_net_kernel_count;" other.h && ok || bad "the prefix of other-net.xml"
cat > both.c <<'C'
#include <stdio.h>
#include "dflt.h"
#include "other.h"
int main(void)
{
    printf("%zu %zu %s %s\n", model_kernel_count, other_net_kernel_count, model_kernels[0]->name,
           other_net_kernels[0]->name);
    return 0;
}
C
check "two default-prefix models link into one program" "$CC" -std=c11 -I. both.c dflt.o other.o -o both
[ "$(./both)" = "17 17 model_backbone_crop_0 other_net_backbone_crop_0" ] && ok || bad "two models: $(./both)"
# Default prefixes of other file names, and layer names made identifiers
# with no "__" and no '_' at the end (für/ñame has two-byte characters).
for pair in "3d-net.xml sg_3d_net" "int.xml sg_int" "SLICEGEN.xml sg_SLICEGEN" "__a..b__.xml a_b" "...xml sg"; do
    set -- $pair
    cp models/model.xml "$1" && cp models/model.bin "${1%.xml}.bin"
    "$SLICEGEN" aot "$1" -o p.o --header p.h > /dev/null 2>&1 && grep -q "^extern const size_t $2_kernel_count;" p.h &&
        ok || bad "the default prefix of $1 is not $2"
done
sed 's/name="a\.b"/name="f\xc3\xbcr\/\xc3\xb1ame"/; s/name="a-b"/name="__x__y__"/' models/model.xml > odd.xml
cp models/model.bin odd.bin
check "aot of odd layer names" "$SLICEGEN" aot odd.xml -o odd.o --header odd.h --prefix m
grep -q "^void m_f_r_ame(" odd.h && grep -q "^void m_x_y(" odd.h && ! grep -q "m_[A-Za-z0-9_]*__" odd.h &&
    ok || bad "odd layer names: $(grep '^void' odd.h)"
expect_error 2 "the prefix 'SLICEGEN' gives SLICEGEN_kernels, which is reserved" \
    aot models/model.xml -o keep.o --header keep.h --prefix SLICEGEN
expect_error 2 "the prefix 'x_' gives x__kernels, which is reserved in C and C++" \
    aot models/model.xml -o keep.o --header keep.h --prefix x_

# The IR v10 spelling and a model without port precisions give the same kernels.
for variant in model-v10 model-noprec; do
    "$SLICEGEN" aot models/$variant.xml -o v.o --header v.h --prefix m > /dev/null 2>&1 && ok || bad "aot of $variant"
    diff <(sed '1,/^ \*\/$/d' m.h) <(sed '1,/^ \*\/$/d' v.h) > /dev/null && ok || bad "$variant gives another header"
done
# --weights names the .bin.
mkdir other && cp models/model.bin other/weights.bin
"$SLICEGEN" aot models/model.xml --weights other/weights.bin -o other/m.o --prefix m > /dev/null 2>&1 && ok || bad "--weights"
cmp -s m.o other/m.o && ok || bad "--weights gives another object"

# A cross target: the table program built for aarch64 and run under qemu.
if cross_ready aarch64 libc6-dev-arm64-cross; then
    "$SLICEGEN" aot models/model.xml -o arm.a --header m.h --prefix m --target aarch64-linux-gnu > /dev/null 2>&1 \
        && ok || bad "aot for aarch64"
    aarch64-linux-gnu-gcc -std=c11 -I. table.c arm.a -o table-arm && qemu-aarch64 -L /usr/aarch64-linux-gnu ./table-arm > arm.txt \
        && [ "$(cat arm.txt)" = "$expected_table" ] && ok || bad "the table under qemu-aarch64"
fi

# ---- the ops model: Pad, Gather, Split, VariadicSplit ----
# Each static kernel, run on make_model.py's pattern input, gives the output
# OpenVINO's reference rules give (models/<layer>.out).
"$SLICEGEN" aot models/ops.xml -o ops.o --header ops.h --prefix o > out.txt 2> err.txt
grep -q "^slicegen: compiled 33 of 63 slice layers (30 skipped) into ops.o" out.txt && ok || bad "ops summary: $(cat out.txt)"
[ "$(wc -l < err.txt)" -eq 30 ] && ok || bad "expected 30 skip lines: $(cat err.txt)"
grep -qF "slicegen: skipping layer 'pad12/reflect-mixed' (id 70, Pad): Pad-12 reflect with pads of opposite signs" err.txt &&
    ok || bad "no skip line for pad12/reflect-mixed"
cat > ops_run.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops.h"
int main(void)
{
    int compared = 0, differ = 0;
    for (size_t k = 0; k < o_kernel_count; k++) {
        const slicegen_kernel_info *info = o_kernels[k];
        /* output k of a Split (kernels of one layer id in a row): <layer>_k.out */
        size_t first = k, last = k;
        while (first > 0 && o_kernels[first - 1]->layer_id == info->layer_id)
            first--;
        while (last + 1 < o_kernel_count && o_kernels[last + 1]->layer_id == info->layer_id)
            last++;
        char path[256];
        if (first == last)
            snprintf(path, sizeof path, "models/%s.out", info->layer);
        else
            snprintf(path, sizeof path, "models/%s_%zu.out", info->layer, k - first);
        for (char *c = path + 7; *c; c++)
            *c = *c == '/' ? '-' : *c;
        FILE *f = info->prepare ? NULL : fopen(path, "rb");
        if (f == NULL)
            continue;
        int f32 = strcmp(info->dtype, "f32") == 0;
        int64_t n = info->input_bytes / (f32 ? 4 : 1);
        unsigned char *in = malloc((size_t)info->input_bytes + 1), *got = malloc((size_t)info->output_bytes + 1),
                      *want = malloc((size_t)info->output_bytes + 1);
        for (int64_t i = 0; i < n; i++) {
            float v = (float)((7 * i + 3) % 251);
            if (f32)
                memcpy(in + 4 * i, &v, 4);
            else
                in[i] = (unsigned char)v;
        }
        size_t size = fread(want, 1, (size_t)info->output_bytes + 1, f);
        fclose(f);
        info->fn(in, got, 0, info->outer_extent);
        if (size != (size_t)info->output_bytes || memcmp(got, want, size) != 0) {
            printf("%s differs from OpenVINO's output\n", info->layer);
            differ++;
        }
        compared++;
        free(in), free(got), free(want);
    }
    printf("%d compared\n", compared);
    return differ != 0;
}
C
"$CC" -std=c11 -Wall -Wextra -Werror -I. ops_run.c ops.o -o ops_run && ./ops_run > ops_run.txt &&
    [ "$(cat ops_run.txt)" = "$(ls models/*.out | wc -l) compared" ] && ok || bad "the ops kernels: $(cat ops_run.txt)"

# ---- runtime values: index inputs from Parameters and ShapeOf, dynamic dimensions ----
"$SLICEGEN" aot models/runtime-values.xml -o rv.o --header rv.h --prefix rv > out.txt 2> err.txt
[ $? -eq 0 ] && ok || bad "aot of the runtime-values model failed: $(cat err.txt)"
grep -q "^slicegen: compiled 6 of 10 slice layers (4 skipped) into rv.o" out.txt && ok || bad "summary: $(cat out.txt)"
[ "$(wc -l < err.txt)" -eq 4 ] && ok || bad "expected 4 skip lines: $(cat err.txt)"
for layer in "'dynamic-length' (id 29, StridedSlice): input 1 (begin) is not a Const and its length is dynamic ('-1'" \
    "'rank-2-begin' (id 31, StridedSlice): input 1 (begin) is not a Const and not 1-D (rank 2" \
    "'float-begin' (id 33, StridedSlice): input 1 (begin) is not a Const and has element type 'FP32'" \
    "'too-many-values' (id 39, StridedSlice): input 2 (end) is not a Const and its 129 elements are too many"; do
    grep -qF "slicegen: skipping layer $layer" err.txt && ok || bad "no skip line for $layer"
done
# call LAYER IN.npy OUT.bin SHAPE VALUES: calls the layer's kernel of rv.o
# on the .npy's data (its last bytes) as a program linked with the object
# does: prints the spec's words, the values as --set words, and the
# prologue's code with the output shape; writes the output's bytes.
cat > call.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rv.h"
static size_t list(const char *text, int64_t *out)
{
    size_t n = 0;
    for (char *end; *text && strcmp(text, "-") != 0; text = *end ? end + 1 : end)
        out[n++] = strtoll(text, &end, 10);
    return n;
}
int main(int argc, char **argv)
{
    const slicegen_kernel_info *info = NULL;
    for (size_t k = 0; k < rv_kernel_count; k++)
        if (strcmp(rv_kernels[k]->layer, argv[1]) == 0)
            info = rv_kernels[k];
    int64_t shape[8], values[8];
    if (argc != 6 || info == NULL || info->prepare == NULL || list(argv[4], shape) != (size_t)info->in_rank ||
        list(argv[5], values) != (size_t)info->value_count)
        return 3;
    printf("%s\n", info->spec);
    for (int32_t i = 0; i < info->value_count; i++)
        printf("%s--set %s=%lld", i ? " " : "", info->value_names[i], (long long)values[i]);
    slicegen_args args;
    int code = info->prepare(&args, shape, values);
    printf("\ncode %d", code);
    for (int32_t d = 0; code == 0 && d < args.out_rank; d++)
        printf("%s%lld", d ? "," : " ", (long long)args.out_shape[d]);
    printf("\n");
    if (code != 0)
        return 0;
    FILE *f = fopen(argv[2], "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    unsigned char *in = malloc((size_t)args.input_bytes + 1), *out = malloc((size_t)args.output_bytes + 1);
    if (size < args.input_bytes || fseek(f, size - (long)args.input_bytes, SEEK_SET) != 0 ||
        fread(in, 1, (size_t)args.input_bytes, f) != (size_t)args.input_bytes)
        return 3;
    int64_t n = args.outer_extent;
    info->run(in, out, &args, 0, n / 3);
    info->run(in, out, &args, n / 3, n - n / 4);
    info->run(in, out, &args, n - n / 4, n);
    FILE *o = fopen(argv[3], "wb");
    return o && fwrite(out, 1, (size_t)args.output_bytes, o) == (size_t)args.output_bytes && fclose(o) == 0 ? 0 : 3;
}
C
"$CC" -std=c11 -Wall -Wextra -Werror -I. call.c rv.o -o call && ok || bad "a program calling the runtime-values kernels"
# same_data RAW NPY: RAW holds the data bytes of the .npy file NPY.
same_data() {
    python3 -c 'import sys; raw = open(sys.argv[1], "rb").read(); d = open(sys.argv[2], "rb").read()
n = 4 if d[6] > 1 else 2; sys.exit(raw != d[8 + n + int.from_bytes(d[8:8 + n], "little"):])' "$1" "$2"
}
# runtime_case LAYER DESCR SHAPE CODE VALUES: the kernel on an input of
# SHAPE (rank 2 or more; bytes 0, 1, 2, ...) with VALUES ("-" for none)
# must give code CODE, and for 0 the reference's output; for another code
# but 1 (a fixed dimension differs: the reference plans the .npy's shape)
# the reference refuses too.
runtime_case() {
    local layer=$1 descr=$2 shape=$3 code=$4 values=$5 size
    size=$(( ($(tr ',' '*' <<< "$shape") ) * ${descr:2} ))
    make_npy in.npy "$descr" "(${shape//,/, })" "$(iota_bytes "$size")"
    rm -f got.bin want.npy
    ./call "$layer" in.npy got.bin "$shape" "$values" > call.txt || { bad "$layer ($shape; $values): the call"; return; }
    local spec sets got_code
    spec=$(sed -n 1p call.txt) sets=$(sed -n 2p call.txt) got_code=$(sed -n 3p call.txt | cut -d' ' -f2)
    [ "$got_code" = "$code" ] || { bad "$layer ($shape; $values): prepare gave $(sed -n 3p call.txt), expected code $code"; return; }
    [ "$code" = 1 ] && { ok; return; }
    # shellcheck disable=SC2086  # the spec and the --set words are words
    "$SLICEGEN" run $spec --in in.npy --out want.npy --engine ref $sets > /dev/null 2> run.txt
    local rc=$?
    if [ "$code" != 0 ]; then
        [ $rc -eq 2 ] && ok || bad "$layer ($shape; $values): the reference accepts what prepare refused"
    elif [ $rc -ne 0 ]; then
        bad "$layer ($shape; $values): the reference: $(cat run.txt)"
    else
        same_data got.bin want.npy && ok || bad "$layer ($shape; $values): the output differs from the reference's"
    fi
}
runtime_case param-begin "|u1" 5,7 0 2,-3
runtime_case param-begin "|u1" 5,7 0 -9,9
runtime_case param-begin "|u1" 5,8 1 0,0          # a fixed dimension differs
runtime_case shapeof-end "|u1" 5,7 0 2,-1         # ShapeOf's values folded into the spec
runtime_case shapeof-end "|u1" 5,7 0 1,3
runtime_case shapeof-end "|u1" 5,7 3 0,1          # a zero stride
runtime_case dynamic-data "<f4" 4,9,6 0 -
runtime_case dynamic-data "<f4" 4,1,6 0 -
runtime_case dynamic-data "<f4" 4,0,6 0 -
runtime_case dynamic-both "<f4" 4,11,6 0 -1,2,-2,3
runtime_case dynamic-both "<f4" 4,3,6 0 4,-5,1,1
runtime_case dynamic-both "<f4" 4,5,6 3 0,0,1,0   # a zero step
runtime_case runtime-axes "|u1" 5,7 0 1            # y[:, 0:1], the axis a Parameter
runtime_case runtime-axes "|u1" 5,7 0 -2           # y[0:1]
runtime_case runtime-axes "|u1" 5,7 2 2            # an axis out of range
# In an archive, the index holds the prologues too: the program links from it.
"$SLICEGEN" aot models/runtime-values.xml -o rv.a --prefix rv > /dev/null 2>&1 &&
    nm -s rv.a | grep -q "^rv_param_begin_prepare in rv.o$" && rm call &&
    "$CC" -std=c11 -I. call.c rv.a -o call && runtime_case param-begin "|u1" 5,7 0 2,-3 ||
    bad "the runtime-values model in an archive"

# ---- errors: exit 2, one line naming the file, nothing written ----
echo "old object" > keep.o
echo "old header" > keep.h
keep_files
faults=$(python3 "$MAKE_MODEL" --help | tr -d '\n ' | sed 's/.*everyfault://; s/--all.*//; s/,/ /g')
[ "$(echo $faults | wc -w)" -ge 25 ] && ok || bad "the generator lists too few faults: $faults"
for fault in $faults; do
    expect_error 2 "failed to read model 'models/$fault.xml': " aot models/$fault.xml -o keep.o --header keep.h
    expect_error 2 "failed to read model 'models/$fault.xml': " aot models/$fault.xml -o new.o --header new.h
done
expect_error 2 "layer 'backbone/crop.0' id 7, attribute begin_mask = '1,2,0,0'" aot models/bad-mask-value.xml -o keep.o
expect_error 2 "layer 'backbone/crop.0' id 7, attribute end_mask" aot models/missing-end-mask.xml -o keep.o
expect_error 2 "attribute to-layer = 999" aot models/edge-to-missing-layer.xml -o keep.o
expect_error 2 "offset = 528 + size = 32 > 536 bytes" aot models/const-past-end.xml -o keep.o
expect_error 2 "attribute size = 24; shape '4' of i64 needs 32 bytes" aot models/const-size-mismatch.xml -o keep.o
expect_error 2 "cannot open the weights file" aot models/missing-bin.xml -o keep.o
expect_error 2 "not well-formed XML" aot models/truncated.xml -o keep.o
expect_error 2 "cannot open" aot models/no-such-model.xml -o keep.o --header keep.h
expect_error 2 "'slicegen aot' needs -o OUT" aot models/model.xml --header keep.h
expect_error 2 "'slicegen aot' needs a model" aot -o keep.o
expect_error 2 "bad --prefix '1x'" aot models/model.xml -o keep.o --prefix 1x
expect_error 2 "unknown output kind" aot models/model.xml -o new.obj
expect_error 2 "is not a recognized processor" aot models/model.xml -o keep.o --header keep.h --target aarch64-linux-gnu --cpu nope
expect_error 2 "--name is not an option of 'slicegen aot'" aot models/model.xml -o keep.o --name k
# The header and the object as one file, however it is spelled: refused
# before anything is written (a second write would replace the first).
mkdir sub
ln -s keep.o alias.o
ln keep.o hard.o
for header in keep.o ./keep.o "$PWD/keep.o" sub/../keep.o alias.o hard.o; do
    expect_error 2 "failed to write 'keep.o': the header '$header' and the output 'keep.o' are the same file" \
        aot models/model.xml -o keep.o --header "$header"
done
expect_error 2 "the header './new.o' and the output 'new.o' are the same file" aot models/model.xml -o new.o --header ./new.o
rm alias.o hard.o
# Output names of 255 bytes, the most a folder takes.
long=$(printf 'm%.0s' {1..253})
"$SLICEGEN" aot models/model.xml -o "$long.o" --header "$long.h" > /dev/null 2> stderr.txt && [ -s "$long.o" ] \
    && grep -q "^extern const size_t model_kernel_count;" "$long.h" && ok \
    || bad "aot -o and --header of 255-byte names: $(cat stderr.txt)"
rm -f "$long.o" "$long.h"

# Limits through the model: a data input of more than 2^63 - 1 bytes skips
# its layers with the planner's reason (a Slice of an f32 [2, 2^62]
# Parameter, whose ports agree with it, beside a Slice that compiles); a
# dimension past int64 is malformed.
cp models/model.bin past.bin
python3 - <<'PY'
import struct
def slice_layer(id_, name, dims, out):
    ins = "".join('<port id="%d">%s</port>' % (k, "".join("<dim>%d</dim>" % d for d in shape))
                  for k, shape in enumerate([dims, [1], [1], [1]]))
    return ('<layer id="%d" name="%s" type="Slice" version="opset8"><input>%s</input><output>'
            '<port id="4" precision="FP32">%s</port></output></layer>'
            % (id_, name, ins, "".join("<dim>%d</dim>" % d for d in out)))
huge = 4611686018427387904
layers = ['<layer id="0" name="image" type="Parameter" version="opset1"><data shape="2,%d" element_type="f32"/>'
          '<output><port id="0" precision="FP32"><dim>2</dim><dim>%d</dim></port></output></layer>' % (huge, huge),
          '<layer id="1" name="small" type="Parameter" version="opset1"><data shape="4" element_type="f32"/>'
          '<output><port id="0" precision="FP32"><dim>4</dim></port></output></layer>']
for k in range(3):  # start 0, stop 1, step 1
    layers.append('<layer id="%d" name="c%d" type="Const" version="opset1">'
                  '<data element_type="i64" shape="1" offset="%d" size="8"/>'
                  '<output><port id="0" precision="I64"><dim>1</dim></port></output></layer>' % (2 + k, k, 8 * k))
layers.append(slice_layer(5, "crop", [2, huge], [1, huge]))
layers.append(slice_layer(6, "first", [4], [1]))
edges = ['<edge from-layer="%d" from-port="0" to-layer="%d" to-port="%d"/>' % e
         for e in [(0, 5, 0), (2, 5, 1), (3, 5, 2), (4, 5, 3), (1, 6, 0), (2, 6, 1), (3, 6, 2), (4, 6, 3)]]
with open("huge.xml", "w") as f:
    f.write('<?xml version="1.0"?>\n<net name="huge" version="11"><layers>%s</layers><edges>%s</edges></net>\n'
            % ("".join(layers), "".join(edges)))
with open("huge.bin", "wb") as f:
    f.write(struct.pack("<3q", 0, 1, 1))
PY
sed 's|<dim>8</dim>|<dim>99999999999999999999</dim>|' models/model.xml > past.xml
"$SLICEGEN" aot huge.xml -o huge.o > stdout.txt 2> stderr.txt
[ $? -eq 0 ] && grep -q "skipping layer 'crop' (id 5, Slice): failed to plan slice: the input has more than 2^63 - 1 bytes" stderr.txt \
    && ok || bad "a data input past 2^63 - 1 bytes: $(cat stderr.txt)"
expect_error 2 "a dimension is not a count, -1, ? or a range (layer 'image' id 0, output port 0, dim '99999999999999999999')" \
    aot past.xml -o keep.o --header keep.h

# A model whose only slice layer cannot be compiled (begin of dynamic length).
python3 - > only-skipped.xml <<'PY'
print('''<?xml version="1.0"?>
<net name="only-skipped" version="11">
 <layers>
  <layer id="0" name="x" type="Parameter" version="opset1"><data shape="4" element_type="f32"/>
   <output><port id="0" precision="FP32"><dim>4</dim></port></output></layer>
  <layer id="1" name="b" type="Parameter" version="opset1"><data shape="?" element_type="i64"/>
   <output><port id="0" precision="I64"><dim>-1</dim></port></output></layer>
  <layer id="2" name="s" type="StridedSlice" version="opset1"><data begin_mask="0" end_mask="1"/>
   <input><port id="0"><dim>4</dim></port><port id="1"><dim>-1</dim></port><port id="2"><dim>-1</dim></port></input>
   <output><port id="3" precision="FP32"><dim>-1</dim></port></output></layer>
 </layers>
 <edges>
  <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
  <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
  <edge from-layer="1" from-port="0" to-layer="2" to-port="2"/>
 </edges>
</net>''')
PY
: > only-skipped.bin
"$SLICEGEN" aot only-skipped.xml -o new.o > stdout.txt 2> stderr.txt
rc=$?
[ $rc -eq 2 ] && grep -q "skipping layer 's' (id 2, StridedSlice): input 1 (begin) is not a Const and its length is dynamic" stderr.txt \
    && grep -q "^slicegen: error: failed to compile model 'only-skipped.xml': no slice layer can be compiled" stderr.txt \
    && [ ! -e new.o ] && ok || { bad "a model with nothing to compile: exit $rc"; cat stderr.txt >&2; }

# ---- 500 slice layers: time and size, and the progress line on a terminal ----
start=$(date +%s.%N)
"$SLICEGEN" aot models/scale-500.xml -o scale.o --header scale.h --prefix sg > scale.txt 2> scale-err.txt && ok || bad "aot of 500 layers: $(cat scale-err.txt)"
end=$(date +%s.%N)
grep -q "compiled 500 of 500 slice layers" scale.txt && ok || bad "500 layers: $(cat scale.txt)"
[ "$(grep -c '^void' scale.h)" -eq 500 ] && ok || bad "the header of 500 layers"
echo "aot-cli: 500 slice layers in $(echo "$end - $start" | bc 2>/dev/null || echo "$start $end") s, object $(stat -c %s scale.o) bytes, header $(stat -c %s scale.h) bytes"
# Layer k takes row k % 64 of f32 [64, 64] and every (1 + k % 3)-th column:
# 192 loop nests, so 192 functions, the other kernels aliases of them.
[ "$(nm scale.o | grep -c ' T sg_slice_')" -eq 500 ] && [ "$(nm scale.o | awk '/ T sg_slice_/ {print $1}' | sort -u | wc -l)" -eq 192 ] \
    && ok || bad "500 kernels of 192 loop nests: $(nm scale.o | grep -c ' T sg_slice_') symbols at $(nm scale.o | awk '/ T sg_slice_/ {print $1}' | sort -u | wc -l) addresses"
cat > rows.c <<'C'
#include <stdio.h>
#include <string.h>
#include "scale.h"
int main(void)
{
    float in[64 * 64], out[64];
    int wrong = 0;
    for (int i = 0; i < 64 * 64; i++)
        in[i] = (float)i;
    for (size_t k = 0; k < sg_kernel_count; k++) {
        const slicegen_kernel_info *info = sg_kernels[k];
        int row = (int)(k % 64), step = 1 + (int)(k % 3), n = (64 + step - 1) / step;
        memset(out, 0, sizeof out);
        info->fn(in, out, 0, info->outer_extent);
        for (int j = 0; j < n; j++)
            wrong += out[j] != in[row * 64 + j * step];
        wrong += info->output_bytes != 4 * n || info->layer_id != 4 * (int64_t)(k + 1);
    }
    printf("%d wrong\n", wrong);
    return wrong != 0;
}
C
"$CC" -std=c11 -I. rows.c scale.o -o rows && ./rows > rows.txt && ok || bad "the 500 kernels' rows: $(cat rows.txt)"
if command -v script > /dev/null; then
    script -qec "'$SLICEGEN' aot models/scale-500.xml -o tty.o" /dev/null > tty.txt 2>&1
    grep -q "compiled 500 of 500 kernels" tty.txt && ok || bad "no progress line on a terminal: $(tail -c 300 tty.txt)"
    grep -q "compiled 500 of 500 kernels" scale-err.txt && bad "a progress line without a terminal" || ok
fi

finish aot-cli

#!/usr/bin/env bash
# The shared library's interface: libslicegen.so exports exactly the functions
# include/slicegen.h declares, every one of them marked SG_API, and its SONAME
# carries the major version.
#   usage: exports_test.sh LIBSLICEGEN.so SLICEGEN.h CC MAJOR
set -euo pipefail
lib=$1 header=$2 cc=$3 major=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The declarations: the header preprocessed as C (comments gone, SG_API left
# as a marker), only the lines that come from the header itself, cut into
# statements at ; { and }. A function declaration is a statement of type
# words followed by a name and '(' that is not a typedef; a static inline
# function of the header is compiled into the program, not exported.
"$cc" -E -DSG_API=SG_API_MARK -x c "$header" |
    awk -v h="$header" '/^# [0-9]+ "/ { keep = ($3 == "\"" h "\""); next } keep' |
    tr '\n\t' '  ' | tr ';{}' '\n\n\n' > "$tmp/statements"
declared=() unmarked=()
re='^ *(SG_API_MARK +)?([A-Za-z_][A-Za-z0-9_]*[ *]+)+([A-Za-z_][A-Za-z0-9_]*) *\('
while IFS= read -r s; do
    s=$(echo "$s" | tr -s ' ')
    [[ $s =~ ^\ *(typedef|static) ]] && continue
    if [[ $s =~ $re ]]; then
        declared+=("${BASH_REMATCH[3]}")
        [ -n "${BASH_REMATCH[1]}" ] || unmarked+=("${BASH_REMATCH[3]}")
    fi
done < "$tmp/statements"
[ "${#declared[@]}" -gt 0 ] || fail "no function declarations found in $header"
[ "${#unmarked[@]}" -eq 0 ] || fail "declared in $header without SG_API: ${unmarked[*]}"
printf '%s\n' "${declared[@]}" | sort -u > "$tmp/declared"

# The exports: every defined symbol of the dynamic symbol table (functions,
# objects, weak symbols alike).
nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u > "$tmp/exported"
if ! cmp -s "$tmp/declared" "$tmp/exported"; then
    comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/exported, not declared: /' >&2
    comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/declared, not exported: /' >&2
    fail "the symbols of $lib differ from the declarations of $header"
fi
echo "ok: $(wc -l < "$tmp/exported") symbols exported, the $(wc -l < "$tmp/declared") functions of $(basename "$header"), all SG_API"

# The SONAME: libslicegen.so.MAJOR.
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libslicegen.so.$major" ] || fail "SONAME is '$soname', expected libslicegen.so.$major"
echo "ok: SONAME $soname"

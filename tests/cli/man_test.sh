#!/usr/bin/env bash
# The manual page against the program: docs/slicegen.1 has a section for
# every command of `slicegen --help`, names every option that `slicegen
# --help` and each `slicegen COMMAND --help` print, every value those list
# (engines, modes, devices, element types, output extensions), the exit
# statuses, and the version `slicegen --version` prints; groff reads it
# without a warning (where groff is installed).
#   usage: man_test.sh SLICEGEN SLICEGEN.1
set -euo pipefail
slicegen=$1 page=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

# The page as text: roff's \- is -, font changes and \& go.
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$page")
has() { grep -qE -- "(^|[^-A-Za-z0-9_])$1([^-A-Za-z0-9_]|$)" <<< "$text"; }

help=$("$slicegen" --help)
commands=$(sed -n 's/^ *\(usage: \)\{0,1\}slicegen \([a-z]\{1,\}\) .*/\2/p' <<< "$help" | sort -u)
[ -n "$commands" ] || fail "no commands in 'slicegen --help'"
all=$help
for c in $commands; do
    grep -qE "^\.SS \"?slicegen $c( |\"|$)" "$page" || fail "$page has no section '.SS slicegen $c'"
    all+=$'\n'$("$slicegen" "$c" --help)
done

# Options: a - or -- and a letter, after a space, '[', '(' or '|'.
options=$(grep -oE -- "(^|[][ (|])--?[A-Za-z][-A-Za-z0-9]*" <<< "$all" | sed 's/^[][ (|]//' | sort -u)
missing=()
for o in $options; do has "$o" || missing+=("$o"); done
# Values of options and the output kinds.
for v in jit ref strict wrap clamp fill reflect cpu cuda \
    bool i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64 '\.o' '\.a' '\.s' '\.ll'; do
    has "$v" || missing+=("$v")
done
[ "${#missing[@]}" -eq 0 ] || fail "$page does not mention: ${missing[*]}"
echo "ok: $(wc -w <<< "$commands") commands ($(echo $commands)) and $(wc -w <<< "$options") options, each in $page"

for section in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" FILES EXAMPLES; do
    grep -qE "^\.SH \"?$section\"?$" "$page" || fail "$page has no section $section"
done
exit_status=$(sed -n '/^\.SH "EXIT STATUS"/,/^\.SH /p' "$page")
for status in 0 1 2; do
    grep -qx "\.B $status" <<< "$exit_status" || fail "EXIT STATUS does not describe status $status"
done
version=$("$slicegen" --version | awk '{ print $2 }')
grep -q "^\.TH SLICEGEN 1 .*\"slicegen $version\"" "$page" || fail ".TH of $page does not say slicegen $version"
echo "ok: sections, exit statuses 0 1 2, version $version"

if command -v groff > /dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff failed on $page: $warnings"
    [ -z "$warnings" ] || fail "groff warns about $page: $warnings"
    echo "ok: groff -man -ww reads it without a warning"
else
    echo "note: no groff, the page's roff is not checked"
fi

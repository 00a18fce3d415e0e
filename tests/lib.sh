# Shared by the shell tests (source it): a scratch folder as the current
# directory, removed on exit; counters with ok/bad/check and the closing
# line; make_npy.
WORK=$(mktemp -d)
# Only the test's own shell removes it: a background job's subshell killed
# before it runs its command would otherwise run this trap too.
trap '[ "$BASHPID" = "$$" ] && rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
passed=0 failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
# check WHAT COMMAND...: the command must succeed; its output is shown if not.
check() {
    local what=$1; shift
    if "$@" > check.log 2>&1; then ok; else bad "$what"; cat check.log >&2; fi
}
# finish NAME: prints "NAME: N passed, M failed"; the exit status.
finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# make_npy FILE DESCR SHAPE BYTES [FORTRAN]: a format-1.0 .npy file; BYTES
# in printf \x form.
make_npy() {
    local dict="{'descr': '$2', 'fortran_order': ${5:-False}, 'shape': $3, }"
    local pad=$(( 64 - (10 + ${#dict} + 1) % 64 ))
    [ "$pad" -eq 64 ] && pad=0
    local header="$dict$(printf '%*s' "$pad" '')"
    local len=$(( ${#header} + 1 ))
    printf '\x93NUMPY\x01\x00'"$(printf '\\x%02x\\x%02x' $((len & 255)) $((len >> 8)))" > "$1"
    printf '%s\n' "$header" >> "$1"
    printf "$4" >> "$1"
}

# iota_bytes N: the bytes 0, 1, ..., N-1 (mod 256) in printf \x form.
iota_bytes() {
    local i
    for ((i = 0; i < $1; i++)); do printf '\\x%02x' $((i & 255)); done
}

# expect_output_error TEXT ARGS...: `slicegen ARGS` exits 2 with one line on
# stderr, "slicegen: error: ..." containing TEXT; keep.o and keep.h (made
# here beforehand) are as they were, and no temporary file or file named
# new.* is left.
expect_output_error() {
    local text=$1 rc lines
    shift
    "$SLICEGEN" "$@" > stdout.txt 2> stderr.txt
    rc=$?
    lines=$(wc -l < stderr.txt)
    if [ "$rc" -ne 2 ]; then bad "exit $rc, expected 2: $*"; cat stderr.txt >&2; return; fi
    if [ "$lines" -ne 1 ]; then bad "$lines lines on stderr, expected 1: $*"; cat stderr.txt >&2; return; fi
    if ! grep -q "^slicegen: error: " stderr.txt || ! grep -qF -- "$text" stderr.txt; then
        bad "message lacks '$text': $(cat stderr.txt)"
        return
    fi
    if [ "$(cat keep.o)" != "old object" ] || [ "$(cat keep.h)" != "old header" ]; then
        bad "existing files changed: $*"
        return
    fi
    if ls | grep -q -e 'slicegen-tmp' -e '^new\.'; then bad "a file was left behind: $* ($(ls))"; return; fi
    ok
}

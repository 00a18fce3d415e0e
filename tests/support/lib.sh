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

# cross_ready ARCH DEBIAN_LIBC: 0 when ARCH-linux-gnu-gcc builds a C program
# and qemu-ARCH runs it. Otherwise one line says what is missing, and the
# status is 1 (the caller skips its cross part), or the test fails where
# SLICEGEN_REQUIRE_CROSS=1.
cross_ready() {
    local arch=$1 libc=$2 problem=""
    if ! command -v "$arch-linux-gnu-gcc" > /dev/null || ! command -v "qemu-$arch" > /dev/null; then
        problem="no $arch-linux-gnu-gcc or qemu-$arch (Debian: gcc-$arch-linux-gnu qemu-user)"
    elif ! printf '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n' |
        "$arch-linux-gnu-gcc" -x c - -o cross-probe 2> /dev/null; then
        problem="$arch-linux-gnu-gcc cannot build a C program: its C library is missing (Debian: $libc)"
    elif [ "$("qemu-$arch" -L "/usr/$arch-linux-gnu" ./cross-probe 2> /dev/null)" != ok ]; then
        problem="qemu-$arch cannot run a program built by $arch-linux-gnu-gcc"
    fi
    rm -f cross-probe
    [ -z "$problem" ] && return 0
    if [ "${SLICEGEN_REQUIRE_CROSS:-}" = 1 ]; then
        bad "the $arch cross part: $problem"
    else
        echo "the $arch cross part skipped: $problem"
    fi
    return 1
}

# keep_files: remembers every file here named keep.*, which expect_error
# then checks are as they were. Call it once they are made.
keep_files() {
    rm -rf .kept && mkdir .kept && cp keep.* .kept/
}

# expect_error STATUS TEXT ARGS...: `slicegen ARGS`, run as
# $RUN_WITH "$SLICEGEN" ARGS (RUN_WITH: words such as "env NAME=VALUE",
# empty unless set), exits STATUS with one line on stderr,
# "slicegen: error: ..." containing TEXT; it leaves no temporary file and
# no file named new*, and the files keep_files remembered are as they were.
RUN_WITH=""
expect_error() {
    local want=$1 text=$2 rc lines kept
    shift 2
    # shellcheck disable=SC2086
    $RUN_WITH "$SLICEGEN" "$@" > stdout.txt 2> stderr.txt
    rc=$?
    lines=$(wc -l < stderr.txt)
    if [ "$rc" -ne "$want" ]; then bad "exit $rc, expected $want: $RUN_WITH $*"; cat stderr.txt >&2; return; fi
    if [ "$lines" -ne 1 ]; then bad "$lines lines on stderr, expected 1: $RUN_WITH $*"; cat stderr.txt >&2; return; fi
    if ! grep -q "^slicegen: error: " stderr.txt || ! grep -qF -- "$text" stderr.txt; then
        bad "message lacks '$text': $(cat stderr.txt)"
        return
    fi
    if ls | grep -q -e 'slicegen-tmp' -e '^new'; then bad "a file was left behind: $* ($(ls))"; return; fi
    for kept in .kept/*; do
        if [ -e "$kept" ] && ! cmp -s "$kept" "${kept#.kept/}"; then bad "${kept#.kept/} changed: $*"; return; fi
    done
    ok
}

#!/usr/bin/env bash
# slicegen as another project sees it once installed: installs a build into a
# temporary prefix (--build), or takes what is installed under a prefix
# (--prefix /usr after the .deb), checks the installed files, then builds the
# program of tests/consumer four times outside the tree -- with CMake's
# find_package(slicegen CONFIG) against slicegen::slicegen and
# slicegen::slicegen_static, with `pkg-config --cflags --libs slicegen` and
# with `pkg-config --static` -- and runs each: it JIT-compiles a slice
# through the public API and checks the output. Exit status 77 (skipped)
# after the CMake builds when there is no pkg-config.
#   usage: consumer_test.sh (--build BUILD_DIR | --prefix PREFIX) [--cc CC] [--cflags FLAGS]
#     --cflags: compiler flags for the programs, such as the sanitizers the
#               library was built with
#   CMAKE: the cmake to use (default: cmake from PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build= prefix= cc=${CC:-cc} cflags=
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --cflags) cflags=$2; shift 2 ;;
    *) echo "usage: $0 (--build BUILD_DIR | --prefix PREFIX) [--cc CC] [--cflags FLAGS]" >&2; exit 2 ;;
    esac
done
if { [ -n "$build" ] && [ -n "$prefix" ]; } || { [ -z "$build" ] && [ -z "$prefix" ]; }; then
    echo "usage: $0 (--build BUILD_DIR | --prefix PREFIX) [--cc CC] [--cflags FLAGS]" >&2
    exit 2
fi
cmake=${CMAKE:-cmake}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Runs a command with its output in a log, shown if it fails.
logged() {
    local log=$work/log
    if ! "$@" > "$log" 2>&1; then
        tail -n 40 "$log" >&2
        fail "$*"
    fi
}

# README.md shows tests/consumer/CMakeLists.txt: it must be a copy.
readme=$here/../../README.md
if [ -f "$readme" ] && [[ $(< "$readme") != *"$(< "$here/../consumer/CMakeLists.txt")"* ]]; then
    fail "README.md does not hold a copy of tests/consumer/CMakeLists.txt"
fi

if [ -n "$build" ]; then
    prefix=$work/prefix
    logged "$cmake" --install "$build" --prefix "$prefix"
    echo "ok: cmake --install $build --prefix $prefix"
fi

# ---- the installed files
[ -x "$prefix/bin/slicegen" ] || fail "no $prefix/bin/slicegen"
version_line=$(env -u LD_LIBRARY_PATH "$prefix/bin/slicegen" --version) || fail "$prefix/bin/slicegen --version failed"
version=$(awk '{ print $2 }' <<< "$version_line")
major=${version%%.*}
echo "ok: $prefix/bin/slicegen --version: $version_line"
[ -f "$prefix/include/slicegen.h" ] || fail "no $prefix/include/slicegen.h"
libdir=
for pc in "$prefix"/lib*/pkgconfig/slicegen.pc "$prefix"/lib/*/pkgconfig/slicegen.pc; do
    if [ -f "$pc" ]; then
        libdir=$(dirname "$(dirname "$pc")")
        break
    fi
done
[ -n "$libdir" ] || fail "no slicegen.pc in $prefix/lib*/pkgconfig or $prefix/lib/*/pkgconfig"
for f in "libslicegen.so" "libslicegen.so.$major" "libslicegen.so.$version" "libslicegen.a" \
    cmake/slicegen/slicegenConfig.cmake cmake/slicegen/slicegenConfigVersion.cmake \
    cmake/slicegen/slicegenTargets.cmake cmake/slicegen/slicegenStaticTargets.cmake; do
    [ -e "$libdir/$f" ] || fail "no $libdir/$f"
done
[ "$(readlink "$libdir/libslicegen.so")" = "libslicegen.so.$major" ] || fail "libslicegen.so does not link to libslicegen.so.$major"
soname=$(readelf -d "$libdir/libslicegen.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libslicegen.so.$major" ] || fail "SONAME is '$soname', expected libslicegen.so.$major"
for f in "$libdir/libslicegen.so.$version" "$prefix/bin/slicegen"; do
    dynamic=$(readelf -d "$f")
    if grep -qE '\((RPATH|RUNPATH)\)' <<< "$dynamic"; then
        fail "$f has an RPATH or RUNPATH: $(grep -E 'RPATH|RUNPATH' <<< "$dynamic")"
    fi
done
man=$prefix/share/man/man1/slicegen.1
if [ -f "$man.gz" ]; then
    gzip -t "$man.gz" || fail "$man.gz is not a valid gzip file"
elif [ -f "$man" ]; then
    :
elif [ "$prefix" = /usr ] && grep -qs '^path-exclude[= ]/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
    echo "note: dpkg is configured to leave manual pages out (/etc/dpkg/dpkg.cfg.d), so $man is not there"
else
    fail "no $man or $man.gz"
fi
echo "ok: $libdir holds libslicegen.so.$version (SONAME $soname, no RPATH), libslicegen.a," \
    "the CMake package and slicegen.pc; the header and the manual page are there"

# Each program must use the library of $libdir, never the build tree's.
uses_installed() { # PROGRAM
    local found
    found=$(ldd "$1" | awk '/libslicegen\.so/ { print $3 }')
    [ -n "$found" ] || fail "$1 does not load libslicegen.so"
    [ "$(realpath "$found")" = "$(realpath "$libdir/libslicegen.so.$major")" ] ||
        fail "$1 loads $found, not $libdir/libslicegen.so.$major"
}
uses_no_shared() { # PROGRAM
    local libs
    libs=$(ldd "$1")
    if grep -q libslicegen <<< "$libs"; then fail "$1 links libslicegen.a, but loads $(grep libslicegen <<< "$libs")"; fi
}
run() { # NAME PROGRAM
    local out
    out=$(env -u LD_LIBRARY_PATH "$2") || fail "the $1 program failed"
    echo "ok: $1: $out"
}

# ---- CMake: find_package(slicegen CONFIG REQUIRED)
for kind in shared static; do
    dir=$work/cmake-$kind
    logged "$cmake" -S "$here/../consumer" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_C_FLAGS="$cflags" -DCONSUMER_STATIC=$([ $kind = static ] && echo ON || echo OFF)
    found=$(sed -n 's/^slicegen_DIR:PATH=//p' "$dir/CMakeCache.txt")
    [ "$(realpath "$found")" = "$(realpath "$libdir/cmake/slicegen")" ] ||
        fail "find_package found slicegen in $found, not in $libdir/cmake/slicegen"
    logged "$cmake" --build "$dir"
    if [ $kind = shared ]; then uses_installed "$dir/consumer"; else uses_no_shared "$dir/consumer"; fi
    run "CMake, slicegen::$([ $kind = static ] && echo slicegen_static || echo slicegen)" "$dir/consumer"
done

# The package's version and components: this version and its major are
# found, the next major and an unknown component are not.
mkdir -p "$work/version"
cat > "$work/version/CMakeLists.txt" << EOF
cmake_minimum_required(VERSION 3.16)
project(slicegen_version LANGUAGES C) # C: multiarch folders are searched for a language
find_package(slicegen $version EXACT CONFIG REQUIRED)
find_package(slicegen $major CONFIG REQUIRED)
find_package(slicegen $((major + 1)) CONFIG QUIET)
if(slicegen_FOUND)
  message(FATAL_ERROR "slicegen $version was accepted for version $((major + 1))")
endif()
find_package(slicegen CONFIG QUIET COMPONENTS no_such_component)
if(slicegen_FOUND)
  message(FATAL_ERROR "slicegen was found with a component it does not have")
endif()
EOF
logged "$cmake" -S "$work/version" -B "$work/version/build" -DCMAKE_PREFIX_PATH="$prefix"
echo "ok: CMake: the package is version $version, compatible with $major, not with $((major + 1)); unknown components fail"

# ---- pkg-config
if ! command -v pkg-config > /dev/null; then
    echo "skipped: the pkg-config builds, as pkg-config is missing (Debian: pkgconf)"
    exit 77
fi
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion slicegen)" = "$version" ] || fail "pkg-config --modversion slicegen is not $version"
pc_libdir=$(pkg-config --variable=libdir slicegen)
[ "$(realpath "$pc_libdir")" = "$(realpath "$libdir")" ] || fail "slicegen.pc says libdir=$pc_libdir, not $libdir"
flags=$(pkg-config --cflags --libs slicegen)
# shellcheck disable=SC2086 # the flags are words
logged "$cc" $cflags "$here/../consumer/main.c" -o "$work/consumer-pc" $flags -Wl,-rpath,"$pc_libdir"
uses_installed "$work/consumer-pc"
run "pkg-config --cflags --libs slicegen ($flags)" "$work/consumer-pc"

# The static library with Libs.private (pkg-config --static), libslicegen.a by name.
static_flags=$(pkg-config --static --cflags --libs slicegen | sed 's/-lslicegen\b/-l:libslicegen.a/')
# shellcheck disable=SC2086
logged "$cc" $cflags "$here/../consumer/main.c" -o "$work/consumer-pc-static" $static_flags
uses_no_shared "$work/consumer-pc-static"
run "pkg-config --static ($static_flags)" "$work/consumer-pc-static"

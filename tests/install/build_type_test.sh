#!/bin/bash
# ctest install.build_type: a packager's plain configure (docs/building.md). Configures the source tree into a
# temporary build directory, with the build's generator and compilers: without a build type the cache holds
# CMAKE_BUILD_TYPE=RelWithDebInfo and D12RT_WERROR=OFF; reconfigured with -DCMAKE_BUILD_TYPE=Debug it keeps Debug.
set -u
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "check failed: $what" >&2; fi
}
cached() { sed -n "s/^$1:[A-Z]*=//p" "$tmp/CMakeCache.txt"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/d12rt-build-type.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CMAKE" -S "$SOURCE_DIR" -B "$tmp" -G "$GENERATOR" -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
    >"$tmp/configure.log" 2>&1
check "a configure without a build type succeeds" test $? -eq 0
check "no build type: RelWithDebInfo" test "$(cached CMAKE_BUILD_TYPE)" = RelWithDebInfo
check "no preset: D12RT_WERROR is OFF" test "$(cached D12RT_WERROR)" = OFF
"$CMAKE" -S "$SOURCE_DIR" -B "$tmp" -DCMAKE_BUILD_TYPE=Debug >"$tmp/configure.log" 2>&1
check "a configure with -DCMAKE_BUILD_TYPE=Debug succeeds" test $? -eq 0
check "an explicit build type is kept" test "$(cached CMAKE_BUILD_TYPE)" = Debug
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

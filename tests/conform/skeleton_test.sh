#!/bin/bash
# ctest conform.skeleton_installed: install d12rt into a fresh temporary prefix, build examples/driver_skeleton with its
# Makefile and pkg-config alone (nothing of the build or source tree but the skeleton's own files), and run the
# installed d12conform against it: every test passes.
# Environment: BUILD_DIR SOURCE_DIR CMAKE LIBDIR CC.
set -u
root=$(mktemp -d "${TMPDIR:-/tmp}/d12rt-skeleton.XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "check failed: $what" >&2; fi
}
check "cmake --install" "$CMAKE" --install "$BUILD_DIR" --prefix "$root/prefix" >/dev/null
check "installed bin/d12conform" test -x "$root/prefix/bin/d12conform"
cp "$SOURCE_DIR/examples/driver_skeleton/driver.c" "$SOURCE_DIR/examples/driver_skeleton/Makefile" "$root/"
check "make (pkg-config only)" make -s -C "$root" CC="$CC" PKG_CONFIG_PATH="$root/prefix/$LIBDIR/pkgconfig"
out=$(env -u D12RT_DRIVER -u LD_LIBRARY_PATH "$root/prefix/bin/d12conform" --driver "$root/libskeleton_driver.so" 2>&1)
status=$?
printf '%s\n' "$out" | sed 's/^/    /'
check "d12conform passes the skeleton" test "$status" -eq 0
check "summary: 0 failed" grep -Eq '^[0-9]+ passed, 0 failed' <<<"$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

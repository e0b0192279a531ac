#!/bin/bash
# ctest install.*: install d12rt into a fresh temporary prefix, move the prefix elsewhere (proving it is
# relocatable), then build and run outside clients against the moved prefix only.
#
#   install_test.sh setup   cmake --install BUILD_DIR --prefix TMP/stage, check the tree, mv TMP/stage TMP/moved
#                           and run the installed programs (d12cfg, d12caps, d12dred, d12conform) from TMP/moved
#   install_test.sh c       C client (COBJMACROS) built with `pkg-config --cflags --libs d12rt`
#   install_test.sh cxx     C++17 client holding the spec's CheckRaytracingSupport, same pkg-config line
#   install_test.sh cmake   CMake client: find_package(d12rt) + d12rt::d12rt; a too-high version is refused
#   install_test.sh vulkan  the installed Vulkan driver by its bare name (D12RT_DRIVER=vulkan): the missing-barrier
#                           client (vulkan_client.c) both ways under sync validation, and d12conform --driver vulkan
#   install_test.sh cleanup remove TMP
#
# Environment (from tests/install/CMakeLists.txt): BUILD_DIR SOURCE_DIR TEST_DIR STATE_FILE LIBDIR MANDIR PYTHON
# VERSION CC CXX CMAKE
# and CLIENT_CFLAGS CLIENT_CXXFLAGS CLIENT_LDFLAGS — the build's own CMAKE_<LANG>_FLAGS/CMAKE_EXE_LINKER_FLAGS,
# empty by default and the sanitizer flags in the asan preset: a client of an ASan-built libd12rt.so must carry
# the ASan runtime itself. d12rt's own flags come from pkg-config alone.
#
# Run time: the pkg-config clients run with LD_LIBRARY_PATH=$(pkg-config --variable=libdir d12rt), i.e. the moved
# prefix (their link line stays exactly the pkg-config one); the CMake client gets the moved prefix's lib/ as
# its build RPATH from the imported target. Every client checks where libd12rt.so was actually loaded from.
set -u

passed=0
failed=0
check() { # check "what" command...
    local what=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "check failed: $what" >&2
    fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
# Run a client program; its own `N passed, N failed` line is added to ours.
run_client() { # run_client "what" command...
    local what=$1 out status line
    shift
    out=$("$@" 2>&1)
    status=$?
    printf '%s\n' "$out" | sed 's/^/    /'
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [ -n "$line" ]; then
        passed=$((passed + ${line%% passed*}))
        line=${line#* passed, }
        failed=$((failed + ${line%% failed}))
    fi
    check "$what exits 0 with a summary line" test "$status" -eq 0 -a -n "$line"
}
contains() { case "$1" in *"$2"*) return 0 ;; *) return 1 ;; esac; }
lacks() { ! contains "$1" "$2"; }
state_root() {
    [ -s "$STATE_FILE" ] || { echo "no installed prefix: install.setup did not run or failed" >&2; exit 1; }
    cat "$STATE_FILE"
}

mode=${1:-}
case "$mode" in
setup)
    rm -f "$STATE_FILE"
    root=$(mktemp -d "${TMPDIR:-/tmp}/d12rt-install.XXXXXX") || exit 1
    echo "$root" > "$STATE_FILE"
    stage=$root/stage
    moved=$root/moved
    check "cmake --install into a fresh prefix" "$CMAKE" --install "$BUILD_DIR" --prefix "$stage"
    for f in "$LIBDIR/libd12rt.so.0.1.0" include/d12rt/d3d12_ext.h include/d12rt/d3d12ddi.h \
             "$LIBDIR/pkgconfig/d12rt.pc" "$LIBDIR/cmake/d12rt/d12rtConfig.cmake" \
             "$LIBDIR/cmake/d12rt/d12rtConfigVersion.cmake" "$LIBDIR/cmake/d12rt/d12rtTargets.cmake" \
             bin/d12dred bin/d12cfg bin/d12caps bin/d12conform; do
        check "installed $f" test -f "$stage/$f" -a ! -L "$stage/$f"
    done
    check "installed d12dred runs" "$stage/bin/d12dred" --help
    # Each program's section-1 manual page (cmake/ToolHelp.cmake), the one its own --help makes.
    for tool in d12cfg d12caps d12dred d12conform; do
        page=$stage/$MANDIR/man1/$tool.1
        check "installed $MANDIR/man1/$tool.1" test -f "$page" -a ! -L "$page"
        check "installed $tool.1 is the page \`$tool --help\` makes" \
            sh -c '"$1" --help | "$2" "$3" check "$4" "$5" "$6"' sh "$stage/bin/$tool" "$PYTHON" \
            "$SOURCE_DIR/tools/help/manpage.py" "$tool" "$VERSION" "$page"
        check "man finds $tool in the prefix's MANPATH" test "$(MANPATH=$stage/$MANDIR man -w "$tool")" = "$page"
    done
    check "soname link libd12rt.so.0" test "$(readlink "$stage/$LIBDIR/libd12rt.so.0")" = libd12rt.so.0.1.0
    check "dev link libd12rt.so" test "$(readlink "$stage/$LIBDIR/libd12rt.so")" = libd12rt.so.0
    check "SONAME libd12rt.so.0" contains "$(readelf -d "$stage/$LIBDIR/libd12rt.so.0.1.0")" "[libd12rt.so.0]"
    check "no RPATH/RUNPATH into the build tree" \
        lacks "$(readelf -d "$stage/$LIBDIR/libd12rt.so.0.1.0")" "PATH"
    check "installed headers are the generated ones" \
        cmp -s "$stage/include/d12rt/d3d12_ext.h" "$SOURCE_DIR/generated/include/d12rt/d3d12_ext.h"
    # Relocatable: no installed text file names the prefix, the build tree or the source tree.
    for dir in "$stage" "$BUILD_DIR" "$SOURCE_DIR"; do
        check "no installed text file names $dir" test -z "$(grep -rIl -F "$dir" "$stage")"
    done
    check "pkg-config --validate d12rt" env PKG_CONFIG_PATH="$stage/$LIBDIR/pkgconfig" pkg-config --validate d12rt
    check "Requires: DirectX-Headers" test \
        "$(PKG_CONFIG_PATH="$stage/$LIBDIR/pkgconfig" pkg-config --print-requires d12rt)" = DirectX-Headers
    check "move the prefix" mv "$stage" "$moved"
    check "the staging prefix is gone" test ! -e "$stage"
    # DESIGN.md's installed programs, run from the moved prefix (no LD_LIBRARY_PATH: what they link must be found
    # through their own RPATH or be static). d12cfg writes nothing for --help; d12caps only reads its tables.
    for tool in d12cfg d12caps d12dred d12conform; do
        check "moved bin/$tool is executable" test -x "$moved/bin/$tool"
        check "moved bin/$tool has no RPATH into the build tree" lacks "$(readelf -d "$moved/bin/$tool")" "$BUILD_DIR"
    done
    out=$(env -u LD_LIBRARY_PATH "$moved/bin/d12cfg" --help 2>&1)
    check "moved d12cfg --help exits 0" test $? -eq 0
    check "moved d12cfg --help prints its usage" contains "$out" "usage: d12cfg"
    out=$(env -u LD_LIBRARY_PATH "$moved/bin/d12cfg" 2>&1)
    check "moved d12cfg without a command exits 2" test $? -eq 2
    out=$(env -u LD_LIBRARY_PATH -u D12RT_FLAVOR "$moved/bin/d12caps" versions 2>&1)
    check "moved d12caps versions exits 0" test $? -eq 0
    check "moved d12caps versions lists SDK 620" contains "$out" "620"
    out=$(env -u LD_LIBRARY_PATH "$moved/bin/d12caps" --bogus 2>&1)
    check "moved d12caps rejects an unknown option with 2" test $? -eq 2
    check "moved d12dred --help exits 0" env -u LD_LIBRARY_PATH "$moved/bin/d12dred" --help
    for tool in d12cfg d12caps d12dred d12conform; do
        check "moved $tool --version" test "$(env -u LD_LIBRARY_PATH "$moved/bin/$tool" --version)" = "$tool $VERSION"
    done
    echo "installed and moved to $moved"
    finish
    ;;
c | cxx)
    root=$(state_root)
    prefix=$root/moved
    export PKG_CONFIG_PATH=$prefix/$LIBDIR/pkgconfig
    flags=$(pkg-config --cflags --libs d12rt)
    check "pkg-config --cflags --libs d12rt" test $? -eq 0
    libdir=$(pkg-config --variable=libdir d12rt)
    echo "pkg-config --cflags --libs d12rt: $flags"
    check "flags use the moved prefix (-I)" contains "$flags" "-I$prefix/"
    check "flags use the moved prefix (-L)" contains "$flags" "-L$prefix/"
    check "flags link -ld12rt" contains "$flags" "-ld12rt"
    check "flags bring DirectX-Headers (-lDirectX-Guids)" contains "$flags" "-lDirectX-Guids"
    check "flags do not name the build tree" lacks "$flags" "$BUILD_DIR"
    check "flags do not name the source tree" lacks "$flags" "$SOURCE_DIR"
    work=$root/$mode-client
    mkdir -p "$work"
    # $flags, CLIENT_* unquoted on purpose: they are word lists.
    if [ "$mode" = c ]; then
        check "build the C client" "$CC" -std=c11 -Wall -Wextra -Werror $CLIENT_CFLAGS \
            "$TEST_DIR/c_client.c" -o "$work/c_client" $flags $CLIENT_LDFLAGS
        # The clients demonstrate CheckFeatureSupport1's clamping: the model of a driver with the newest tiers
        # (docs/claims.md).
        run_client "C client" env LD_LIBRARY_PATH="$libdir" D12RT_EXPECT_LIBDIR="$libdir" \
            D12RT_REFDRV_PROFILE=newest-tiers "$work/c_client"
    else
        # CLIENT_LDFLAGS first: its -fsanitize=undefined would otherwise re-enable the vptr check that
        # CLIENT_CXXFLAGS turns off (see tests/install/CMakeLists.txt).
        check "build the C++ client" "$CXX" -std=c++17 -Wall -Wextra -Werror $CLIENT_LDFLAGS $CLIENT_CXXFLAGS \
            "$TEST_DIR/cxx_client.cpp" -o "$work/cxx_client" $flags
        run_client "C++ client, newest-tiers profile" env LD_LIBRARY_PATH="$libdir" D12RT_REFDRV_PROFILE=newest-tiers \
            "$work/cxx_client" 1
        run_client "C++ client, RaytracingTier 1.0" env LD_LIBRARY_PATH="$libdir" \
            D12RT_REFDRV_PROFILE="$TEST_DIR/raytracing_tier_1_0.profile" "$work/cxx_client" 0
    fi
    finish
    ;;
cmake)
    root=$(state_root)
    prefix=$root/moved
    work=$root/cmake-client
    common=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_C_FLAGS="$CLIENT_CFLAGS" -DCMAKE_EXE_LINKER_FLAGS="$CLIENT_LDFLAGS")
    check "configure with find_package(d12rt 0.1)" "$CMAKE" -S "$TEST_DIR/cmake_client" -B "$work" "${common[@]}"
    check "d12rt_DIR is the moved prefix" \
        contains "$(grep '^d12rt_DIR:' "$work/CMakeCache.txt")" "=$prefix/$LIBDIR/cmake/d12rt"
    check "build against d12rt::d12rt" "$CMAKE" --build "$work"
    run_client "CMake-built C client" env -u LD_LIBRARY_PATH D12RT_EXPECT_LIBDIR="$prefix/$LIBDIR" \
        D12RT_REFDRV_PROFILE=newest-tiers "$work/c_client"
    # d12rtConfigVersion.cmake: SameMajorVersion, so 1.0 is refused with the version named.
    out=$("$CMAKE" -S "$TEST_DIR/cmake_client" -B "$root/cmake-client-v1" "${common[@]}" \
          -DD12RT_REQUIRE_VERSION=1.0 2>&1)
    check "find_package(d12rt 1.0) fails" test $? -ne 0
    check "and names the installed version" contains "$out" "0.1.0"
    finish
    ;;
vulkan)
    root=$(state_root)
    prefix=$root/moved
    export PKG_CONFIG_PATH=$prefix/$LIBDIR/pkgconfig
    libdir=$(pkg-config --variable=libdir d12rt)
    check "installed $LIBDIR/d12rt/libd12rt_vulkan.so" test -f "$prefix/$LIBDIR/d12rt/libd12rt_vulkan.so"
    work=$root/vulkan-client
    mkdir -p "$work"
    # shellcheck disable=SC2046 # the pkg-config line is a word list
    check "build the Vulkan client" "$CC" -std=c11 -Wall -Wextra -Werror $CLIENT_CFLAGS \
        "$TEST_DIR/vulkan_client.c" -o "$work/vulkan_client" $(pkg-config --cflags --libs d12rt) $CLIENT_LDFLAGS
    for how in missing barrier; do
        run_client "Vulkan client, $how barrier" env LD_LIBRARY_PATH="$libdir" D12RT_DRIVER=vulkan \
            D12RT_VULKAN_VALIDATION=sync "$work/vulkan_client" "$how"
    done
    # --timeout 60: d12conform's per-test hang guard (10 s) is shorter than a Vulkan test under the asan preset on a
    # loaded machine (as for vulkan.conform)
    out=$(env -u LD_LIBRARY_PATH -u D12RT_DRIVER "$prefix/bin/d12conform" --driver vulkan --timeout 60 2>&1)
    status=$?
    printf '%s\n' "$out" | grep -E '^(FAIL|TIMEOUT)' | sed 's/^/    /'
    printf '%s\n' "$out" | tail -n 3 | sed 's/^/    /'
    check "moved d12conform --driver vulkan exits 0" test "$status" -eq 0
    check "and names no failure" lacks "$out" "FAIL "
    finish
    ;;
cleanup)
    if [ -s "$STATE_FILE" ]; then
        root=$(cat "$STATE_FILE")
        case "$root" in
        */d12rt-install.??????) check "remove $root" rm -rf -- "$root" ;;
        *) check "state file names a d12rt-install.XXXXXX directory" false ;;
        esac
        rm -f "$STATE_FILE"
    else
        check "nothing to clean" true
    fi
    finish
    ;;
*)
    echo "usage: $0 setup|c|cxx|cmake|vulkan|cleanup" >&2
    exit 2
    ;;
esac

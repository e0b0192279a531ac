#!/bin/bash
# Runs the Vulkan driver's record on a lent machine with a real GPU (docs/vulkan.md, "On the lent NVIDIA H200").
# The machine is bare (no Vulkan loader, no ctest, no compiler), so everything is built here and carried:
#   BUILD   a Release build configured with -DD12RT_FAULT_INJECTION=OFF
#           -DD12RT_TEST_VK_DRIVER_FILES=<the machine's ICD json> -DD12RT_TEST_VK_VENDOR_ID=<its vendorID, 0x10DE>
#           -DCMAKE_INSTALL_PREFIX=<BUILD>/../inst,
#           installed (`cmake --install BUILD`), with BUILD/tests.json from `ctest --show-only=json-v1 -L vulkan`;
#   LOADER  the folder of .deb files unpacked into / (the loader set the device README names:
#           libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2);
#   EXTRA   the folder of .deb files unpacked into a folder of its own (validation layers, the X client
#           libraries the ICD wants, vkd3d for the peer rows), reached through LD_LIBRARY_PATH and VK_ADD_LAYER_PATH.
# The GPU is shared: every step runs under `timeout`, nothing is started with setsid, and the deliberate-hang
# cases are never run (run_vulkan_tests.py skips them). The one deliberate page fault is a separate script
# (real_fault.sh) that this one never runs.
#
# usage: tools/h200/run.sh BUILD LOADER EXTRA OUT [conform] [demos] [tests] [bench] [peer]
set -u
build=$1 loader=$2 extra=$3 out=$4
shift 4
steps=${*:-conform demos tests bench peer}
mkdir -p "$out"
inst=$(cd "$build/.." && pwd)/inst

# The build tree holds absolute paths of the machine it was built on; make them valid here.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
[ -e "$src" ] || { mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; }

for deb in "$loader"/*.deb; do dpkg -x "$deb" /; done
ldconfig
mkdir -p /tmp/vk
for deb in "$extra"/*.deb; do dpkg -x "$deb" /tmp/vk; done
icd=$(sed -n 's/^D12RT_TEST_VK_DRIVER_FILES:[A-Z]*=//p' "$build/CMakeCache.txt")
export LD_LIBRARY_PATH=/tmp/vk/usr/lib/x86_64-linux-gnu VK_ADD_LAYER_PATH=/tmp/vk/usr/share/vulkan/explicit_layer.d
export VK_DRIVER_FILES=$icd XDG_RUNTIME_DIR=/tmp

{
    nvidia-smi -L 2>&1
    echo "ICD: $icd"
    # The first check: the carried programs find every library they need here.
    missing=$(ldd "$inst"/bin/* "$inst"/lib*/d12rt/*.so "$build"/examples/drm_demo 2>&1 | grep 'not found' | sort -u)
    [ -z "$missing" ] && echo "ldd: every carried program resolves" || echo "ldd: MISSING $missing"
} >"$out/env.log" 2>&1

for step in $steps; do
    case $step in
    conform)
        timeout 300 "$inst/bin/d12conform" --driver vulkan >"$out/conform.log" 2>&1
        echo "conform rc=$?" >>"$out/conform.log" ;;
    demos)
        D12RT_DRIVER=vulkan timeout 60 "$build/examples/drm_demo" >"$out/drm_demo.log" 2>&1
        echo "drm_demo rc=$?" >>"$out/drm_demo.log"
        rm -rf /tmp/dred && mkdir -p /tmp/dred
        D12RT_DRIVER=vulkan D12RT_DRED_DUMP=/tmp/dred timeout 60 "$build/examples/dred_demo" >"$out/dred_demo.log" 2>&1
        echo "dred_demo rc=$?" >>"$out/dred_demo.log"
        for report in /tmp/dred/*.json; do
            [ -e "$report" ] && timeout 30 "$inst/bin/d12dred" show "$report" >>"$out/dred_show.txt" 2>&1
        done ;;
    tests)
        timeout 420 python3 "$(dirname "$0")/run_vulkan_tests.py" "$build/tests.json" >"$out/tests.log" 2>&1
        echo "tests rc=$?" >>"$out/tests.log" ;;
    bench)
        timeout 240 "$build/bench/d12bench" --quick --driver vulkan >"$out/bench.log" 2>&1
        echo "bench rc=$?" >>"$out/bench.log" ;;
    peer)
        timeout 240 "$build/bench/d12bench" --quick --peer --driver vulkan >"$out/peer.log" 2>&1
        echo "peer rc=$?" >>"$out/peer.log" ;;
    *) echo "unknown step $step" >&2 ;;
    esac
done
tail -n 3 "$out"/*.log

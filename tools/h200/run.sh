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
#           libraries the ICD wants, vkd3d for the peer rows, vulkaninfo, python3-jsonschema with python3-attr and
#           python3-pyrsistent for the report-schema checks), reached through LD_LIBRARY_PATH, VK_ADD_LAYER_PATH,
#           PATH and PYTHONPATH.
# The GPU is shared: every step runs under `timeout`, nothing is started with setsid, and the deliberate-hang
# cases are never run (run_vulkan_tests.py skips them). The one deliberate page fault is a separate script
# (real_fault.sh) that this one never runs.
#
# Exit status: 0 when every step ran and passed (conform, both demos, every test run; bench and peer completed), so
# that `run.sh ... && real_fault.sh ...` makes the one deliberate fault only after everything else passed; 1 else.
#
# usage: tools/h200/run.sh BUILD LOADER EXTRA OUT [conform] [demos] [tests] [bench] [peer] [setup]
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
export PATH=$PATH:/tmp/vk/usr/bin PYTHONPATH=/tmp/vk/usr/lib/python3/dist-packages

{
    nvidia-smi -L 2>&1
    echo "ICD: $icd"
    # The first check: the carried programs find every library they need here.
    missing=$(ldd "$inst"/bin/* "$inst"/lib*/d12rt/*.so "$build"/examples/drm_demo 2>&1 | grep 'not found' | sort -u)
    [ -z "$missing" ] && echo "ldd: every carried program resolves" || echo "ldd: MISSING $missing"
    # What the device offers for faults and address tracking (docs/vulkan.md, "Real faults").
    timeout 30 vulkaninfo 2>/dev/null | grep -E 'deviceName|driverVersion|VK_EXT_device_fault|VK_EXT_device_address_binding_report|deviceFault|reportAddressBinding|residencyNonResidentStrict|sparseResidencyBuffer|sparseAddressSpaceSize' | sort -u
    python3 -c 'import jsonschema; print("jsonschema", jsonschema.__file__)' 2>&1 | tail -1
} >"$out/env.log" 2>&1
status=0

for step in $steps; do
    case $step in
    conform)
        timeout 300 "$inst/bin/d12conform" --driver vulkan >"$out/conform.log" 2>&1
        rc=$?; echo "conform rc=$rc" >>"$out/conform.log"; [ $rc = 0 ] || status=1 ;;
    demos)
        D12RT_DRIVER=vulkan timeout 60 "$build/examples/drm_demo" >"$out/drm_demo.log" 2>&1
        rc=$?; echo "drm_demo rc=$rc" >>"$out/drm_demo.log"; [ $rc = 0 ] || status=1
        rm -rf /tmp/dred && mkdir -p /tmp/dred
        D12RT_DRIVER=vulkan D12RT_DRED_DUMP=/tmp/dred timeout 60 "$build/examples/dred_demo" >"$out/dred_demo.log" 2>&1
        rc=$?; echo "dred_demo rc=$rc" >>"$out/dred_demo.log"; [ $rc = 0 ] || status=1
        for report in /tmp/dred/*.json; do
            [ -e "$report" ] || continue
            timeout 30 "$inst/bin/d12dred" show "$report" >>"$out/dred_show.txt" 2>&1 || status=1
        done ;;
    tests)
        timeout 540 python3 "$(dirname "$0")/run_vulkan_tests.py" "$build/tests.json" >"$out/tests.log" 2>&1
        rc=$?; echo "tests rc=$rc" >>"$out/tests.log"; [ $rc = 0 ] || status=1 ;;
    bench)
        timeout 240 "$build/bench/d12bench" --quick --driver vulkan >"$out/bench.log" 2>&1
        rc=$?; echo "bench rc=$rc" >>"$out/bench.log"; [ $rc = 0 ] || status=1 ;;
    peer)
        timeout 240 "$build/bench/d12bench" --quick --peer --driver vulkan >"$out/peer.log" 2>&1
        rc=$?; echo "peer rc=$rc" >>"$out/peer.log"; [ $rc = 0 ] || status=1 ;;
    setup) ;; # only the unpacking and env.log above: for a later command of the same machine session (real_fault.sh)
    *) echo "unknown step $step" >&2; status=1 ;;
    esac
done
tail -n 3 "$out"/*.log
echo "run.sh: status $status (0: every step passed)"
exit $status

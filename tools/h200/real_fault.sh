#!/bin/sh
# One deliberate GPU page fault on a device with VK_EXT_device_fault (the lent NVIDIA H200; docs/vulkan.md,
# "Real faults"): examples/dred_demo's page-fault case on the Vulkan driver with D12RT_VULKAN_REAL_FAULTS=1, so the
# kernel dereferences an unmapped device address, the GPU's MMU faults and the device is lost; then the fault
# record the driver received (D12RT_VULKAN_FAULT_LOG) and `d12dred show` of the report (D12RT_DRED_DUMP).
#
#   tools/h200/real_fault.sh [BUILD_DIR]      (default: build/default; run from the repository root)
#
# Run it once, at the end, after everything else passed there. Bounded: the demo runs under `timeout 60`; nothing is
# started with setsid; no hang or unbounded kernel is run (the demo's fault case draws a few dozen vertices).
# Exit 0 when the driver received a device-fault record and the report names a page fault; 1 otherwise; 2: usage.
set -u
build=${1:-build/default}
case "$build" in -h|--help) sed -n '2,12p' "$0"; exit 0 ;; esac
so=$build/runtime/d12rt/libd12rt_vulkan.so
demo=$build/examples/dred_demo
d12dred=$build/tools/d12dred
for f in "$so" "$demo" "$d12dred"; do
    [ -e "$f" ] || { echo "real_fault.sh: no $f (build first, or give the build folder)" >&2; exit 2; }
done
: "${VK_DRIVER_FILES:=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}"
: "${XDG_RUNTIME_DIR:=/tmp}"
export VK_DRIVER_FILES XDG_RUNTIME_DIR
dir=$(mktemp -d /tmp/d12rt-real-fault.XXXXXX) || exit 1
log=$dir/fault-record.txt
echo "== dred_demo, D12RT_VULKAN_REAL_FAULTS=1 (VK_DRIVER_FILES=$VK_DRIVER_FILES), output in $dir"
D12RT_DRIVER=$so D12RT_VULKAN_REAL_FAULTS=1 D12RT_VULKAN_FAULT_LOG=$log D12RT_DRED_DUMP=$dir \
    D12RT_VULKAN_VALIDATION= D12RT_VULKAN_DEVICE= timeout 60 "$demo" >"$dir/demo.out" 2>"$dir/demo.err"
rc=$?
echo "== dred_demo exit $rc (124: it ran past 60 s)"
cat "$dir/demo.out"
echo "== dred_demo stderr"
cat "$dir/demo.err"
ok=0
if grep -q "real-fault mode off" "$dir/demo.err"; then
    echo "real_fault.sh: the driver turned real-fault mode off (see stderr above): no real fault was made" >&2
    ok=1
fi
echo "== the fault record the driver received ($log)"
if [ -s "$log" ]; then cat "$log"; else echo "(none: the driver saw no VK_ERROR_DEVICE_LOST)"; ok=1; fi
found=0
for report in "$dir"/d12dred-*.json; do
    [ -e "$report" ] || continue
    found=1
    echo "== $d12dred show $report"
    "$d12dred" show "$report"
    grep -q '"PAGEFAULT"\|PAGEFAULT' "$report" || ok=1
done
[ "$found" = 1 ] || { echo "(no DRED report was written)"; ok=1; }
exit $ok

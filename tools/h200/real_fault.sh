#!/bin/sh
# One deliberate GPU page fault on a device with VK_EXT_device_fault (the lent NVIDIA H200; docs/vulkan.md,
# "Real faults"): examples/dred_demo's page-fault case on the Vulkan driver with D12RT_VULKAN_REAL_FAULTS=1, so the
# kernel dereferences an unmapped device address, the GPU's MMU faults and the device is lost; then the fault
# record the driver received (D12RT_VULKAN_FAULT_LOG) and `d12dred show` of the report (D12RT_DRED_DUMP).
#
#   tools/h200/real_fault.sh BUILD [OUT]      (from the repository root; OUT: a new folder under /tmp)
#
# BUILD is a build tree (run.sh's: BUILD/../inst holds its install, used for d12dred when present). Vulkan must be
# reachable as for run.sh (run it first in the same machine session: it unpacks the loader into / and the X
# libraries into /tmp/vk); VK_DRIVER_FILES defaults to the build's D12RT_TEST_VK_DRIVER_FILES, else the NVIDIA ICD.
# Run it once, at the end, after everything else passed there. Bounded: the demo runs under `timeout 60`, d12dred
# under `timeout 30`; nothing is started with setsid; no hang or unbounded kernel is run (the demo's fault case
# draws a few dozen vertices). Exit 0 when the driver received a device-fault record and the report says
# PAGEFAULT; 1 otherwise; 2: usage.
set -u
case "${1:-}" in
-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
"") sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
build=$1
out=${2:-$(mktemp -d /tmp/d12rt-real-fault.XXXXXX)}
mkdir -p "$out" || exit 2
so=$build/runtime/d12rt/libd12rt_vulkan.so
demo=$build/examples/dred_demo
d12dred=$build/../inst/bin/d12dred
[ -x "$d12dred" ] || d12dred=$build/tools/d12dred
for f in "$so" "$demo" "$d12dred"; do
    [ -e "$f" ] || { echo "real_fault.sh: no $f (build first, or give the build folder)" >&2; exit 2; }
done
icd=$(sed -n 's/^D12RT_TEST_VK_DRIVER_FILES:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
case "$icd" in */lvp_icd*|"") icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ;; esac
: "${VK_DRIVER_FILES:=$icd}"
: "${XDG_RUNTIME_DIR:=/tmp}"
export VK_DRIVER_FILES XDG_RUNTIME_DIR
dumps=$out/dred
mkdir -p "$dumps"
log=$out/fault-record.txt
echo "== dred_demo, D12RT_VULKAN_REAL_FAULTS=1 (VK_DRIVER_FILES=$VK_DRIVER_FILES), output in $out"
D12RT_DRIVER=$so D12RT_VULKAN_REAL_FAULTS=1 D12RT_VULKAN_FAULT_LOG=$log D12RT_DRED_DUMP=$dumps \
    D12RT_VULKAN_VALIDATION= D12RT_VULKAN_DEVICE= timeout 60 "$demo" >"$out/demo.out" 2>"$out/demo.err"
rc=$?
echo "== dred_demo exit $rc (124: it ran past 60 s)"
cat "$out/demo.out"
echo "== dred_demo stderr"
cat "$out/demo.err"
ok=0
if grep -q "real-fault mode off" "$out/demo.err"; then
    echo "real_fault.sh: the driver turned real-fault mode off (see stderr above): no real fault was made" >&2
    ok=1
fi
echo "== the fault record the driver received ($log)"
if [ -s "$log" ]; then cat "$log"; else echo "(none: the driver saw no VK_ERROR_DEVICE_LOST)"; ok=1; fi
found=0
for report in "$dumps"/d12dred-*.json; do
    [ -e "$report" ] || continue
    found=1
    echo "== d12dred show $report"
    timeout 30 "$d12dred" show "$report" | tee -a "$out/dred_show.txt"
    grep -q 'PAGEFAULT' "$report" || ok=1
done
[ "$found" = 1 ] || { echo "(no DRED report was written)"; ok=1; }
echo "== real_fault.sh exit $ok"
exit $ok

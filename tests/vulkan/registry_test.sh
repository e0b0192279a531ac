#!/bin/bash
# The Vulkan validation mode per application (docs/vulkan.md, docs/registry.md): d12cfg vulkan-validation writes
# VulkanValidation under APP's key, and the Vulkan driver reads it once when its adapter opens, through the
# runtime's pfnQueryRegistryCb; D12RT_VULKAN_VALIDATION wins over it. `registry_test.sh SCENARIO`, one ctest each.
# Env: D12CFG, TEST_VULKAN_V2 (and the vulkan suites' D12RT_DRIVER, VK_DRIVER_FILES).
passed=0 failed=0
check() {
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "check failed: $what" >&2; fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/d12cfg-vulkan.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export D12RT_HKCU=$tmp/user.reg D12RT_HKLM=$tmp/system.reg D12RT_APP_NAME=vkapp
unset D12RT_VULKAN_VALIDATION
app() { "$TEST_VULKAN_V2" registry_mode "$@" >"$tmp/out" 2>&1; local rc=$?; cat "$tmp/out" >&2; return $rc; }
from_hkcu="Vulkan validation: sync (registry VulkanValidation, HKEY_CURRENT_USER) on "

case $1 in
sync)       # set per app: the program gets the hazard, and the mode message says where the mode came from
    "$D12CFG" vulkan-validation vkapp sync; check "d12cfg: exit 0" test $? -eq 0
    check "value written" grep -qx '"VulkanValidation"=dword:00000002' "$D12RT_HKCU"
    check "show" grep -qx "Vulkan validation: sync (HKCU $D12RT_HKCU:[0-9]*)" <<<"$("$D12CFG" show vkapp)"
    check "hazard reported" app 1 "$from_hkcu" ;;
other_app)  # another application's value does not apply
    "$D12CFG" vulkan-validation someone_else sync
    check "no hazard" app 0 none ;;
off)
    "$D12CFG" vulkan-validation vkapp off; check "d12cfg: exit 0" test $? -eq 0
    check "value written" grep -qx '"VulkanValidation"=dword:00000000' "$D12RT_HKCU"
    check "no hazard, no mode message" app 0 none ;;
absent)
    check "show: default" grep -qx 'Vulkan validation: off (default)' <<<"$("$D12CFG" show vkapp)"
    check "no hazard, no mode message" app 0 none ;;
hklm)       # --system writes HKLM; HKCU's value wins over it
    "$D12CFG" --system vulkan-validation vkapp sync; check "d12cfg --system: exit 0" test $? -eq 0
    check "from HKLM" app 1 "Vulkan validation: sync (registry VulkanValidation, HKEY_LOCAL_MACHINE) on "
    "$D12CFG" vulkan-validation vkapp core
    check "HKCU wins" app 0 "Vulkan validation: core (registry VulkanValidation, HKEY_CURRENT_USER) on " ;;
system)     # `system` deletes the value: back to off
    "$D12CFG" vulkan-validation vkapp sync
    "$D12CFG" vulkan-validation vkapp system; check "d12cfg system: exit 0" test $? -eq 0
    check "value deleted" test -z "$(grep -i VulkanValidation "$D12RT_HKCU")"
    check "no hazard" app 0 none ;;
env_wins)   # D12RT_VULKAN_VALIDATION wins over the registry, both ways
    "$D12CFG" vulkan-validation vkapp sync
    D12RT_VULKAN_VALIDATION=core check "env core over registry sync" app 0 "Vulkan validation: core (D12RT_VULKAN_VALIDATION) on "
    D12RT_VULKAN_VALIDATION=off check "env off over registry sync" app 0 none
    "$D12CFG" vulkan-validation vkapp off
    D12RT_VULKAN_VALIDATION=sync check "env sync over registry off" app 1 "Vulkan validation: sync (D12RT_VULKAN_VALIDATION) on " ;;
drm_deny)   # one validation VUID muted per application: d12cfg drm-deny VID:MID of the hazard (VID = vendorID)
    D12RT_VULKAN_VALIDATION=sync check "hazard before" app 1 "Vulkan validation: sync (D12RT_VULKAN_VALIDATION) on "
    pair=$(sed -n 's/^hazard //p' "$tmp/out")
    check "pair: the Vulkan vendorID and the validation base" grep -qx "${D12RT_TEST_VK_VENDOR_ID#0x}:D120001[0-9A-F]\{8\}" <<<"${pair^^}"
    "$D12CFG" drm-deny vkapp "$pair"; check "drm-deny: exit 0" test $? -eq 0
    D12RT_VULKAN_VALIDATION=sync check "hazard muted, the rest kept" app 0 "Vulkan validation: sync (D12RT_VULKAN_VALIDATION) on "
    "$D12CFG" drm-deny vkapp "${pair%%:*}:D120001FFFFFFFF"; "$D12CFG" drm-clear vkapp
    "$D12CFG" drm-deny vkapp "${pair%%:*}:D120001FFFFFFFF"
    D12RT_VULKAN_VALIDATION=sync check "another id denied: hazard kept" app 1 "Vulkan validation: sync" ;;
bad_value)  # a value that is no mode: one warning, off (a REG_DWORD out of range, a REG_SZ)
    printf 'Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\Direct3D12\\vkapp]\n"VulkanValidation"=dword:00000007\n' >"$D12RT_HKCU"
    check "dword 7: off" app 0 none
    check "dword 7: warning" grep -q 'registry value VulkanValidation (HKEY_CURRENT_USER) is not a REG_DWORD 0 (off), 1 (core), 2 (sync) or 3 (gpuav): type 4, value 7; using off' "$tmp/out"
    check "show: not a mode" grep -q 'Vulkan validation: off (HKCU .* is not a REG_DWORD 0 to 3)' <<<"$("$D12CFG" show vkapp)"
    printf 'Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Microsoft\\Direct3D\\Direct3D12\\vkapp]\n"VulkanValidation"="sync"\n' >"$D12RT_HKCU"
    check "REG_SZ: off" app 0 none
    check "REG_SZ: warning" grep -q 'is not a REG_DWORD .*: type 1, value 0; using off' "$tmp/out" ;;
bad_input)  # d12cfg refuses a mode it does not know (exit 2) and leaves the file alone
    "$D12CFG" vulkan-validation vkapp sync
    cp "$D12RT_HKCU" "$tmp/before"
    for bad in "vulkan-validation vkapp SYNC" "vulkan-validation vkapp on" "vulkan-validation vkapp" \
               "vulkan-validation vkapp sync extra"; do
        "$D12CFG" $bad >/dev/null 2>&1
        check "bad input ($bad): exit 2" test $? -eq 2
    done
    check "bad input: the file is unchanged" cmp -s "$D12RT_HKCU" "$tmp/before" ;;
*)
    echo "usage: registry_test.sh SCENARIO" >&2; exit 2 ;;
esac
echo "$passed passed, $failed failed"
test "$failed" -eq 0 && test "$passed" -gt 0

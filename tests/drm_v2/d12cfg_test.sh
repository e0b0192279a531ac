#!/bin/bash
# d12cfg drm-deny / drm-allow / drm-clear / drm-flags (docs/driver-reported-messages-v2.md "Registry"): the values
# written, `show`, bad input (exit 2, the file unchanged), and the runtime reading what d12cfg wrote (test_drm_v2
# registry_pairs against the file). Env: D12CFG, TEST_DRM_V2, SHIM.
passed=0 failed=0
check() {
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "check failed: $what" >&2; fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/d12cfg-drm.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export D12RT_HKCU=$tmp/user.reg D12RT_HKLM=$tmp/none.reg

"$D12CFG" drm-deny test_drm_v2 1414:abcd; check "drm-deny: exit 0" test $? -eq 0
"$D12CFG" drm-allow test_drm_v2 1414:ABCD; check "drm-allow: exit 0" test $? -eq 0
"$D12CFG" drm-allow test_drm_v2 1414:1234; check "drm-allow 2: exit 0" test $? -eq 0
check "values written" grep -qx '"DriverMessageDeny:1414:ABCD"=dword:00000001' "$D12RT_HKCU"
check "allow written" grep -qx '"DriverMessageAllow:1414:1234"=dword:00000001' "$D12RT_HKCU"
show=$("$D12CFG" show test_drm_v2)
check "show: denied" grep -qx 'driver message denied: 1414:ABCD' <<<"$show"
check "show: allowed" grep -qx 'driver message allowed: 1414:1234' <<<"$show"
check "show: categories" grep -qx 'driver-reported message categories: application-controlled' <<<"$show"

# the runtime reads what d12cfg wrote: X denied (deny wins over its allow), Y allowed, anything else unlisted
D12RT_DRIVER=$SHIM D12RT_REFDRV_DRM=on D12RT_APP_NAME=test_drm_v2 "$TEST_DRM_V2" registry_pairs >"$tmp/out" 2>&1
check "runtime applies the pairs" test $? -eq 0 || cat "$tmp/out" >&2

cp "$D12RT_HKCU" "$tmp/before"
for bad in "drm-deny test_drm_v2 0:1" "drm-deny test_drm_v2 1414" "drm-allow test_drm_v2 1414:0x5" \
           "drm-deny test_drm_v2 1414:12345678901234567" "drm-flags test_drm_v2 zz" "drm-flags test_drm_v2 80000000" \
           "drm-clear test_drm_v2 extra"; do
    "$D12CFG" $bad >/dev/null 2>&1
    check "bad input ($bad): exit 2" test $? -eq 2
done
check "bad input: the file is unchanged" cmp -s "$D12RT_HKCU" "$tmp/before"

"$D12CFG" drm-flags test_drm_v2 3; check "drm-flags: exit 0" test $? -eq 0
check "flags written" grep -qx '"DriverReportedMessageFlags"=dword:00000003' "$D12RT_HKCU"
check "show: forced" grep -qx 'driver-reported message categories: forced to 0x3' <<<"$("$D12CFG" show test_drm_v2)"
"$D12CFG" drm test_drm_v2 on; check "another setting: exit 0" test $? -eq 0
"$D12CFG" drm-clear test_drm_v2; check "drm-clear: exit 0" test $? -eq 0
check "drm-clear: no pair left" test -z "$(grep -i 'DriverMessage\|DriverReportedMessageFlags' "$D12RT_HKCU")"
check "drm-clear: other values kept" grep -q '"EnableDriverReportedMessagesOr"=dword:00000001' "$D12RT_HKCU"
echo "$passed passed, $failed failed"
test "$failed" -eq 0

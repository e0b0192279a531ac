#!/usr/bin/env bash
# Accounting under load at full scale (issue 12 item 5; docs/reliability.md "Accounting under load"): runs
# tests/reliability/stress_load's cases with the environment ctest gives them, at SCALE times their ctest counts.
#   tools/stress.sh [BUILD_DIR] [CASE...]      (default build/default, every case)
# Full scale: reports 8 threads x 10^6 reports (SCALE 100), reports_reentrant 8 x 10^5 (20), removal 1000 rounds
# (10), destroy_in_flight 200 rounds (10), fences_pending 10^6 fences (10), retention 4 threads x 2^18 draws past
# the default bound of 65536 live indices (1). STRESS_SCALE=N overrides every case's scale. Exit status: 0 when every case passed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
shift || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(reports reports_reentrant removal destroy_in_flight fences_pending retention)
binary=$build/tests/reliability/stress_load
shim=$build/tests/drm/libd12_drmshim.so
[ -x "$binary" ] && [ -f "$shim" ] || { echo "$0: build $build first (stress_load, d12_drmshim)" >&2; exit 2; }
export D12RT_DRIVER=$PWD/$shim D12RT_REFDRV_DRM=on D12RT_REFDRV_PROFILE= D12RT_REFDRV_SET_ERROR= D12RT_BREAK=none
export D12RT_HKCU=/nonexistent/d12rt-test/user.reg D12RT_HKLM=/nonexistent/d12rt-test/system.reg
status=0
for c in "${cases[@]}"; do
  case $c in
    reports) scale=100 extra=() ;;
    reports_reentrant) scale=20 extra=() ;;
    removal) scale=10 extra=() ;;
    destroy_in_flight) scale=10 extra=(D12RT_REFDRV_EXEC_DELAY_MS=2) ;;
    fences_pending) scale=10 extra=() ;;
    retention) scale=1 extra=(D12RT_MAX_LIVE_STATE_INDICES=65536) ;;
    *) echo "$0: unknown case $c" >&2; exit 2 ;;
  esac
  scale=${STRESS_SCALE:-$scale}
  echo "== $c (scale $scale)"
  start=$(date +%s%N)
  if ! env "${extra[@]}" "$binary" "$c" "$scale" | tail -2; then status=1; fi
  echo "   $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
done
exit $status

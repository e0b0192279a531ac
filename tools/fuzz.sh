#!/usr/bin/env bash
# Runs the libFuzzer targets for long (docs/reliability.md "Fuzzing"; CI runs each briefly: the `fuzz` workflow
# preset, ctest fuzz.<target>.libfuzzer): configures and builds the `fuzz` preset (clang-14 and
# libclang-rt-14-dev), then fuzzes each target for SECONDS (default 600) on a copy of its seed corpus in
# build/fuzz/corpus/<target> (kept between runs, so a long campaign can be resumed), JOBS processes each.
#   tools/fuzz.sh [SECONDS] [TARGET...]       TARGET: reg, infoqueue, cfs1, profile, driver, dred, yaml (default: all)
# (yaml: the generator's spec loading, mutated from Python by tests/fuzz/fuzz_yaml.py; it needs no clang build)
# A crash leaves its input in build/fuzz/artifacts/; replay it with build/fuzz/tests/<dir>/fuzz_<target> FILE, add
# it to the target's seed corpus once fixed. Exit status: 0 when every target ran its time without a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(reg infoqueue cfs1 profile driver dred yaml)
if [ "${targets[*]}" != yaml ]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
fi
# The library and the targets share clang's shared ASan runtime (-shared-libasan: libd12rt.so links with
# --no-undefined), which must be loaded first.
asan_runtime=$(clang-14 -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null || true)
mkdir -p build/fuzz/artifacts
status=0
for target in "${targets[@]}"; do
  if [ "$target" = yaml ]; then
    echo "== yaml: ${seconds}s"
    /usr/bin/python3 tests/fuzz/fuzz_yaml.py --seconds "$seconds" || status=1
    continue
  fi
  case $target in
    reg) binary=build/fuzz/tests/registry/fuzz_reg seeds=tests/registry/corpus ;;
    infoqueue|cfs1|profile|driver|dred) binary=build/fuzz/tests/fuzz/fuzz_$target seeds=tests/fuzz/corpus/$target ;;
    *) echo "$0: unknown target $target" >&2; exit 2 ;;
  esac
  corpus=build/fuzz/corpus/$target
  mkdir -p "$corpus"
  cp -n "$seeds"/* "$corpus"/
  echo "== $target: ${seconds}s"
  parallel=()
  [ "${JOBS:-1}" -gt 1 ] && parallel=(-fork="$JOBS")
  if ! LD_PRELOAD=$asan_runtime D12RT_BREAK=none "$binary" -max_total_time="$seconds" -print_final_stats=1 \
       -artifact_prefix="build/fuzz/artifacts/$target-" "${parallel[@]}" "$corpus" 2>build/fuzz/$target.log; then
    grep -E '==[0-9]+==ERROR|SUMMARY|broken promise|runtime error' build/fuzz/$target.log | head -5 >&2
    status=1
  fi
  grep -E '^(Done |stat::(number_of_executed_units|average_exec_per_sec|new_units_added))' build/fuzz/$target.log
done
exit $status

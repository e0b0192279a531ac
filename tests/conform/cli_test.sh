#!/bin/bash
# ctest conform.cli: d12conform's command line. SUITE is the built d12conform, SILENT the silent driver,
# DEFECTIVE the after_destroy driver (fails exactly oblig.after_destroy).
set -u
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "check failed: $what" >&2; fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/d12conform-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

list=$("$SUITE" --list)
check "--list: 40 tests (30 of version 1, 8 of version 2, 2 of compute)" test "$(printf '%s\n' "$list" | wc -l)" -eq 40
check "--list: each says driver or runtime" test -z "$(printf '%s\n' "$list" | awk '$2 != "driver" && $2 != "runtime"')"
check "--list: quotes the spec" grep -q "most recent value wins" <<<"$list"
check "--list --run GLOB" test "$("$SUITE" --list --run 'init.*' | wc -l)" -eq 7

"$SUITE" --bogus >/dev/null 2>&1
check "unknown option: exit 2" test $? -eq 2
"$SUITE" --run 'nothing.*' >/dev/null 2>&1
check "no test matches: exit 2" test $? -eq 2
"$SUITE" --driver "$tmp/missing.so" >/dev/null 2>&1
check "missing driver: exit 2" test $? -eq 2

out=$("$SUITE" --driver "$SILENT" --run 'oblig.*')
check "silent, oblig.*: exit 0" test $? -eq 0
check "silent, oblig.*: summary" test "$(printf '%s\n' "$out" | tail -n 1)" = "4 passed, 0 failed"

out=$("$SUITE" --driver "$DEFECTIVE" --run 'oblig.*' --junit "$tmp/j.xml" 2>&1)
check "defective: exit 1" test $? -eq 1
check "defective: summary" test "$(printf '%s\n' "$out" | tail -n 1)" = "3 passed, 1 failed"
check "defective: FAIL line" grep -q "^FAIL *oblig.after_destroy (driver)" <<<"$out"
check "junit: one failure" grep -q 'failures="1"' "$tmp/j.xml"
check "junit: the failing case" grep -q 'name="oblig.after_destroy".*<failure' "$tmp/j.xml"

"$SUITE" --driver "$SILENT" --run 'corr.*' --json >"$tmp/out.json" 2>"$tmp/summary.txt"
check "json: summary on stderr" grep -q "^2 passed, 0 failed, 1 not exercised$" "$tmp/summary.txt"
check "json: parses, 3 tests, one not exercised" python3 -c "
import json, sys
d = json.load(open('$tmp/out.json'))
r = [t['result'] for t in d['tests']]
sys.exit(0 if len(r) == 3 and r.count('not exercised') == 1 and r.count('passed') == 2 else 1)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

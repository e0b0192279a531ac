#!/bin/bash
# ctest conform.timeout_<case>: d12conform --timeout's range (issue 17 item 7.10: 2147484 and more, or a negative
# value, used to overflow the poll's milliseconds and fail every test as timed out). SUITE is the built d12conform.
#   negative, too_large, zero, not_a_number: a usage error (exit 2) that names the value and the range, no test run
#   edge: the largest accepted value (2147483 s) runs a test to a pass, not a timeout
set -u
case=$1
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "check failed: $what" >&2; fi
}
refused() {
    local value=$1 out err rc
    out=$("$SUITE" --timeout "$value" --run init.exactly_once 2>"$tmp/err")
    rc=$?
    err=$(cat "$tmp/err")
    check "--timeout $value: exit 2" test "$rc" -eq 2
    check "--timeout $value: no test runs (nothing on stdout)" test -z "$out"
    check "--timeout $value: the value and the range named" \
        test "$(head -n 1 <<<"$err")" = "d12conform: --timeout $value: not a whole number of seconds from 1 to 2147483"
    check "--timeout $value: then the usage" grep -q '^usage: d12conform ' <<<"$err"
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/d12conform-timeout.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
case "$case" in
negative) refused -1; refused -2147483 ;;
too_large) refused 2147484; refused 18446744073709551615; refused 18446744073709551616 ;;
zero) refused 0 ;;
not_a_number) refused 10x; refused ' 5'; refused +5 ;;
edge)
    out=$("$SUITE" --timeout 2147483 --run init.exactly_once)
    check "--timeout 2147483: exit 0" test $? -eq 0
    check "--timeout 2147483: the test passes" grep -q '^PASS  *init.exactly_once (driver)' <<<"$out"
    check "--timeout 2147483: summary" test "$(tail -n 1 <<<"$out")" = "1 passed, 0 failed"
    out=$("$SUITE" --timeout 1 --run init.exactly_once)
    check "--timeout 1: exit 0" test $? -eq 0
    ;;
*) echo "usage: timeout_test.sh negative|too_large|zero|not_a_number|edge" >&2; exit 2 ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

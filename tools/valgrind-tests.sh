#!/usr/bin/env bash
# Runs every compiled ctest test of a build directory under valgrind memcheck (docs/reliability.md).
#   tools/valgrind-tests.sh [BUILD_DIR] [ctest -R regex]     (default: build/default, every test)
# A test counts as a valgrind failure when memcheck reports an error (invalid read/write, use of uninitialised
# values, definitely lost memory): valgrind's --error-exitcode (99). Tests whose command is not an executable of the
# build (python, cmake or shell scripts) are listed as skipped. Exit status: 0 clean, 1 errors, 2 usage.
# JOBS (default 2) runs that many tests at once; VALGRIND_TIMEOUT (default 900 s) bounds each one.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
regex=${2:-}
[ -f "$build/CTestTestfile.cmake" ] || { echo "usage: $0 [BUILD_DIR] [REGEX] (no ctest tree in $build)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 2; }
logs="$build/valgrind"
mkdir -p "$logs"
ctest --test-dir "$build" --show-only=json-v1 ${regex:+-R "$regex"} > "$logs/tests.json"
exec /usr/bin/python3 - "$build" "$logs" <<'PY'
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

build, logs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
tests = json.load(open(os.path.join(logs, "tests.json")))["tests"]
jobs = int(os.environ.get("JOBS", "2"))
timeout = int(os.environ.get("VALGRIND_TIMEOUT", "900"))
build_abs = os.path.abspath(build)

def elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False

def run(test):
    name, command = test["name"], test.get("command") or []
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    if not command or not elf(command[0]) or not os.path.abspath(command[0]).startswith(build_abs):
        return name, "skipped", "not a compiled test of this build"
    env = dict(os.environ)
    for item in props.get("ENVIRONMENT", []):
        key, _, value = item.partition("=")
        env[key] = value
    log = os.path.join(logs, name + ".log")
    vg = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
          "--show-leak-kinds=definite", "--num-callers=30", f"--log-file={log}"]
    try:
        rc = subprocess.run(vg + command, cwd=props.get("WORKING_DIRECTORY", build), env=env, timeout=timeout,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    except subprocess.TimeoutExpired:
        return name, "timeout", f"over {timeout} s"
    try:
        summary = [l for l in open(log, errors="replace") if "ERROR SUMMARY" in l]
    except OSError:
        summary = []
    if not summary:
        return name, "not-run", f"valgrind did not run it (exit {rc}, no summary in {log})"
    return name, "ERRORS" if rc == 99 else "clean", f"exit {rc}, {summary[-1].split('== ')[-1].strip()}, log {log}"

with ThreadPoolExecutor(jobs) as pool:
    results = list(pool.map(run, tests))
counts = {}
for name, verdict, detail in results:
    counts[verdict] = counts.get(verdict, 0) + 1
    if verdict != "clean":
        print(f"{verdict:8} {name}: {detail}")
print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
sys.exit(1 if counts.get("ERRORS") or counts.get("timeout") or counts.get("not-run") else 0)
PY

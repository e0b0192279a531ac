#!/usr/bin/python3
"""Instruction counts per operation of d12bench's budget rows, under callgrind (docs/performance.md, "Budgets").

A load-robust statistic: an instruction count does not depend on what else the machine runs. Each row runs once
under `valgrind --tool=callgrind --toggle-collect=FUNCTION`, so only the row's own loop is counted (setup, the
timing calls and the worker protocol are not), in whichever process runs it (worker processes are followed).
Counts are converted to time at a stated rate, INSTRUCTIONS_PER_NS, to judge the budgets stated in nanoseconds.

    bench/callgrind_rows.py BUILD_DIR [--json] [--iterations N]
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

# The conversion rate for the budgets stated in nanoseconds: IPC 2 at the machine's nominal 2.3 GHz ("cpu MHz"
# of /proc/cpuinfo on the machine measured) = 4.6 instructions per nanosecond. The rows' own minimum timings on
# that machine correspond to 7-16 instructions/ns, so a budget met at this rate is met with margin; one missed
# at it may still be met by the minimum timing, and docs/performance.md says which. Stated, not measured.
INSTRUCTIONS_PER_NS = 4.6

# (row name, function to collect, d12bench mode flag or None)
ROWS = [
    ("empty indirect call", "run_empty_call", None),
    ("CheckFeatureSupport OPTIONS5", "run_cfs", None),
    ("CheckFeatureSupport1 OPTIONS5 (SDK 620)", "run_cfs1", None),
    ("CheckFeatureSupport1 OPTIONS5 (SDK 606)", "run_cfs1", None),
    ("report_text stored", "run_report_text", None),
    ("report_text stored, callback", "run_report_text", None),
    ("DrawInstanced (feature off)", "time_draws", None),
    ("DrawInstanced (feature on: correlation)", "time_draws", None),
    ("DrawInstanced (DRED auto-breadcrumbs)", "time_draws", None),
    ("pfnWriteBufferImmediate (reference driver, as DRED calls it)", "write_immediates", None),
    ("ExecuteCommandLists (feature off)", "time_executes", None),
    ("ExecuteCommandLists (feature on, nothing to flush)", "time_executes", None),
    ("ExecuteCommandLists (feature off, 2 lists alternating)", "time_executes", None),
    ("ExecuteCommandLists (feature on, 2 lists alternating)", "time_executes", None),
    ("vkd3d: CheckFeatureSupport(OPTIONS5)", "row_check_feature_support", "--peer"),
    ("d12rt: CheckFeatureSupport(OPTIONS5)", "row_check_feature_support", "--peer"),
    ("vkd3d: CreateCommittedResource 64 KiB buffer + Release", "row_committed_buffer", "--peer"),
    ("d12rt: CreateCommittedResource 64 KiB buffer + Release", "row_committed_buffer", "--peer"),
]


# The driver function whose inclusive count the ExecuteCommandLists rows also report separately: the reference
# driver's pfnExecuteCommandLists is the same code on both sides, but its calloc's path depends on the heap's state,
# which moves its count by +-50 instructions from run to run; the runtime's own part ("runtime only") does not.
DRIVER_EXECUTE = "refdrv_queue.c:execute_command_lists ["


def driver_instructions(path):
    """Inclusive instructions of the reference driver's pfnExecuteCommandLists in one callgrind output."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if DRIVER_EXECUTE in line:
            return int(line.split()[0].replace(",", ""))
    return 0


def total_instructions(build, name, function, mode, iterations, driver=None):
    """Instructions executed inside `function`, summed over every process (worker processes are followed); with
    `driver` (a list), also appends the driver's pfnExecuteCommandLists part of them."""
    bench = os.path.join(build, "bench", "d12bench")
    with tempfile.TemporaryDirectory() as out:
        command = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--toggle-collect=" + function,
                   "--callgrind-out-file=" + os.path.join(out, "cg.%p"), bench]
        if mode:
            command.append(mode)
        command += ["--row", name, str(iterations)]
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=900)
        total = 0
        in_driver = 0
        for path in glob.glob(os.path.join(out, "cg.*")):
            with open(path) as f:
                for line in f:
                    if line.startswith("summary:"):
                        total += int(line.split()[1])
                        break
            if driver is not None:
                in_driver += driver_instructions(path)
        if driver is not None:
            driver.append(in_driver)
        return total


def instructions(build, name, function, mode, iterations, runtime_only=None):
    """Instructions per operation: the difference between a run of 2N and a run of N operations, over N, so the
    first operation's one-time work (a cache filled, a warning emitted once) is not counted. With `runtime_only`
    (a dict), also stores the count without the driver's pfnExecuteCommandLists under the row's name."""
    driver = [] if runtime_only is not None else None
    once = total_instructions(build, name, function, mode, iterations, driver)
    twice = total_instructions(build, name, function, mode, 2 * iterations, driver)
    if runtime_only is not None:
        runtime_only[name] = ((twice - driver[1]) - (once - driver[0])) / iterations
    return (twice - once) / iterations


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    build = args[0]
    iterations = 20000
    if "--iterations" in args:
        iterations = int(args[args.index("--iterations") + 1])
    ir = {}
    runtime_only = {}
    for name, function, mode in ROWS:
        ecl = name.startswith("ExecuteCommandLists")
        ir[name] = instructions(build, name, function, mode, iterations, runtime_only if ecl else None)
        if ir[name] <= 0:
            print(f"callgrind_rows.py: no instructions counted for '{name}' ({function})", file=sys.stderr)
            return 2
        if "--json" not in args:
            extra = f"  runtime only {runtime_only[name]:8.1f}" if ecl else ""
            print(f"  {name:58s} {ir[name]:10.1f} instructions/op  (~{ir[name] / INSTRUCTIONS_PER_NS:8.1f} ns){extra}")
    rate = INSTRUCTIONS_PER_NS
    budgets = [
        ("CheckFeatureSupport(OPTIONS5) vs vkd3d", ir["d12rt: CheckFeatureSupport(OPTIONS5)"],
         2 * ir["vkd3d: CheckFeatureSupport(OPTIONS5)"], "Ir <= 2 x vkd3d Ir", False),
        ("CheckFeatureSupport1 OPTIONS5 (SDK 620)", ir["CheckFeatureSupport1 OPTIONS5 (SDK 620)"],
         1.2 * ir["CheckFeatureSupport OPTIONS5"], "Ir <= 1.2 x CheckFeatureSupport Ir", False),
        ("CheckFeatureSupport1 OPTIONS5 (SDK 606)", ir["CheckFeatureSupport1 OPTIONS5 (SDK 606)"],
         1.2 * ir["CheckFeatureSupport OPTIONS5"], "Ir <= 1.2 x CheckFeatureSupport Ir", False),
        ("correlation per draw", ir["DrawInstanced (feature on: correlation)"] - ir["DrawInstanced (feature off)"],
         ir["empty indirect call"] + 1.0 * rate, "added Ir <= empty call Ir + 1 ns x rate", False),
        ("DRED breadcrumbs per draw",
         ir["DrawInstanced (DRED auto-breadcrumbs)"] - ir["DrawInstanced (feature off)"],
         ir["pfnWriteBufferImmediate (reference driver, as DRED calls it)"] + 2.0 * rate,
         "added Ir <= write-immediate call Ir + 2 ns x rate", False),
        ("ExecuteCommandLists, feature on, nothing to flush",
         ir["ExecuteCommandLists (feature on, nothing to flush)"] - ir["ExecuteCommandLists (feature off)"],
         30.0 * rate, "added Ir <= 30 ns x rate", False),
        ("ExecuteCommandLists, feature on, nothing to flush (runtime only)",
         runtime_only["ExecuteCommandLists (feature on, nothing to flush)"]
         - runtime_only["ExecuteCommandLists (feature off)"],
         30.0 * rate, "added Ir without the driver's call <= 30 ns x rate", False),
        ("committed 64 KiB buffer create + release", ir["d12rt: CreateCommittedResource 64 KiB buffer + Release"],
         ir["vkd3d: CreateCommittedResource 64 KiB buffer + Release"], "Ir <= vkd3d Ir", False),
        ("report path, muted, no callback", 1e3 * rate / ir["report_text stored"] if ir["report_text stored"] else 0,
         20.0, "M msgs/s at the rate >= 20", True),
        ("report path, muted, callback",
         1e3 * rate / ir["report_text stored, callback"] if ir["report_text stored, callback"] else 0,
         5.0, "M msgs/s at the rate >= 5", True),
    ]
    results = []
    for name, value, limit, rule, at_least in budgets:
        met = value >= limit if at_least else value <= limit
        results.append({"name": name, "value": value, "limit": limit, "rule": rule, "met": met})
    if "--json" in args:
        print(json.dumps({"instructions_per_ns": rate, "instructions_per_op": ir,
                          "runtime_only_instructions_per_op": runtime_only, "budgets": results}, indent=1))
    else:
        print(f"\nbudgets by callgrind instruction counts (rate {rate} instructions/ns)")
        for r in results:
            print(f"  {r['name']:52s} {'met' if r['met'] else 'OUT':4s} {r['value']:10.1f} vs {r['limit']:10.1f}"
                  f"   {r['rule']}")
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

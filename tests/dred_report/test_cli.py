#!/usr/bin/env python3
"""The d12dred command line: show (the tree), show --json (normalised JSON), diff (same / different), bad files
and usage, with the exit codes of tools/d12dred.c (0 success or same, 1 different, 2 usage, 3 bad file).

    test_cli.py D12DRED GOLDEN_DIR CASE      (ctest dred_report.cli.CASE)
Ends with `N passed, N failed`.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

passed = failed = 0
USAGE = "usage: d12dred show FILE [--json | --timeline VA]"
CASES = ("page_fault_exact", "use_after_free", "out_of_bounds", "hang_suspect", "unknown_values", "dred_off",
         "long_node", "hang_exact", "recreated")


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"check failed: {what}{': ' + detail if detail else ''}", file=sys.stderr)


def check_eq(actual, expected, what):
    check(actual == expected, what, f"\n    actual:   {actual!r}\n    expected: {expected!r}")


def run(tool, *args):
    return subprocess.run([tool, *map(str, args)], capture_output=True, timeout=30)


def case_show(tool, golden):
    for name in CASES:
        result = run(tool, "show", golden / f"{name}.json")
        check_eq(result.returncode, 0, f"show {name}: exit code")
        check_eq(result.stdout, (golden / f"{name}.txt").read_bytes(), f"show {name}: the golden tree")
        check_eq(result.stderr, b"", f"show {name}: nothing on stderr")


def case_show_json(tool, golden):
    for name in CASES:
        for args in (("show", golden / f"{name}.json", "--json"), ("show", "--json", golden / f"{name}.json")):
            result = run(tool, *args)
            check_eq(result.returncode, 0, f"{' '.join(map(str, args))}: exit code")
            check_eq(result.stdout, (golden / f"{name}.json").read_bytes(), f"show --json {name}: the golden JSON")


def case_show_normalises(tool, golden):
    # The same report, compact and with its keys in another order, comes out as the writer's JSON.
    import json
    document = json.loads((golden / "hang_suspect.json").read_text())
    shuffled = dict(reversed(list(document.items())))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "compact.json"
        path.write_text(json.dumps(shuffled, separators=(",", ":")))
        result = run(tool, "show", path, "--json")
        check_eq(result.returncode, 0, "show --json of a compact, reordered report: exit code")
        check_eq(result.stdout, (golden / "hang_suspect.json").read_bytes(), "show --json normalises it")


def diff_against(tool, path, report):
    """`d12dred diff PATH X` where X is `report` (a dict) written to a temporary file."""
    import json
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(report, f)
        other = f.name
    try:
        return run(tool, "diff", path, other)
    finally:
        os.unlink(other)


def case_diff_same(tool, golden):
    result = run(tool, "diff", golden / "page_fault_exact.json", golden / "page_fault_exact.json")
    check_eq(result.returncode, 0, "diff of a report with itself: exit code 0")
    lines = result.stdout.decode().splitlines()
    check_eq(lines, [
        "kind          same: removal",
        "reason        same: DXGI_ERROR_DEVICE_HUNG (0x887a0006)",
        "device state  same: PAGEFAULT (7)",
        "cause         same: the GPU or the driver",
        "faulting op   same: 'Scene list' on 'Direct queue' #5 DRAWINDEXEDINSTANCED(4) (exact)",
        "op state      same: " + PAGE_FAULT_EXACT_STATE,
        "verdict       same: never-mapped",
        "wait verdict  same: none",
        "waits         same: none",
        "timelines     same: none",
        "the reports agree on every aspect: kind, reason, device state, cause, faulting op, op state, verdict, "
        "wait verdict, waits and timelines",
    ], "diff of a report with itself: output")


PAGE_FAULT_EXACT_STATE = ("IndexCountPerInstance=36, InstanceCount=1, StartIndexLocation=0, BaseVertexLocation=0, "
                          "StartInstanceLocation=0; VB 0 (unnamed); IB 'Mesh 0 indices'; root 0 CBV 'Camera constants'")


def case_diff_no_data(tool, golden):
    """A run with page-fault reporting and contexts off has no data for those aspects: no difference (issue 19)."""
    import json
    import tempfile
    report = json.loads((golden / "page_fault_exact.json").read_text(encoding="utf-8"))
    report["features"]["page_fault"] = False
    report["features"]["breadcrumb_contexts"] = False
    report["page_fault"] = None
    result = diff_against(tool, golden / "page_fault_exact.json", report)
    check_eq(result.returncode, 0, "diff against a run with reporting off: exit code 0 (no difference)")
    check_eq(result.stdout.decode().splitlines(), [
        "kind          same: removal",
        "reason        same: DXGI_ERROR_DEVICE_HUNG (0x887a0006)",
        "device state  same: PAGEFAULT (7)",
        "cause         same: the GPU or the driver",
        "faulting op   same: 'Scene list' on 'Direct queue' #5 DRAWINDEXEDINSTANCED(4) (exact)",
        "op state      no data: breadcrumb contexts (the op's arguments) were off in run 2",
        "verdict       no data: page-fault reporting was off in run 2",
        "wait verdict  same: none",
        "waits         same: none",
        "timelines     no data: page-fault reporting was off in run 2",
        "the reports agree on the 7 aspects both have data for (3 without data)",
    ], "diff against a run with reporting off: output")
    # The op state is compared: the same op with another argument is a difference.
    report = json.loads((golden / "page_fault_exact.json").read_text(encoding="utf-8"))
    for node in report["nodes"]:
        for op in node["ops"]:
            if op["state"]:
                op["state"]["arguments"] = op["state"]["arguments"].replace("InstanceCount=1", "InstanceCount=2")
    result = diff_against(tool, golden / "page_fault_exact.json", report)
    check_eq(result.returncode, 1, "diff of the same op with another argument: exit code 1")
    check_eq(result.stdout.decode().splitlines()[0],
             "op state      different: " + PAGE_FAULT_EXACT_STATE + " | " +
             PAGE_FAULT_EXACT_STATE.replace("InstanceCount=1", "InstanceCount=2"), "the op state line")


def case_diff_different(tool, golden):
    result = run(tool, "diff", golden / "page_fault_exact.json", golden / "use_after_free.json")
    check_eq(result.returncode, 1, "diff of two different faults: exit code 1")
    lines = result.stdout.decode().splitlines()
    check_eq(lines, [  # the differences first (issue 32 item 5)
        "faulting op   different: 'Scene list' on 'Direct queue' #5 DRAWINDEXEDINSTANCED(4) (exact) | "
        "'Streaming copies' on 'Copy queue' #1 COPYBUFFERREGION(7) (exact)",
        "op state      different: " + PAGE_FAULT_EXACT_STATE + " | "
        "pDstBuffer='Texture pool' + 0x0, pSrcBuffer='Staging 3' + 0x100, NumBytes=4096",
        "verdict       different: never-mapped | use-after-free 'Staging 3'",
        "kind          same: removal",
        "reason        same: DXGI_ERROR_DEVICE_HUNG (0x887a0006)",
        "device state  same: PAGEFAULT (7)",
        "cause         same: the GPU or the driver",
        "wait verdict  same: none",
        "waits         same: none",
        "timelines     same: none",
        "the reports differ in 3 of 10 aspects",
    ], "diff of two different faults: output")
    result = run(tool, "diff", golden / "hang_suspect.json", golden / "dred_off.json")
    check_eq(result.returncode, 1, "diff of a hang and a non-GPU removal: exit code 1")
    check_eq(result.stdout.decode().splitlines(), [
        "reason        different: DXGI_ERROR_DEVICE_HUNG (0x887a0006) | DXGI_ERROR_DEVICE_REMOVED (0x887a0005)",
        "device state  different: HUNG (3) | UNKNOWN (0)",
        "waits         different: 'Copy queue': waits 'Frame fence' +2 | none",
        "kind          same: removal",
        "cause         same: the GPU or the driver",
        "faulting op   no data: auto-breadcrumbs were off in run 2",
        "op state      no data: auto-breadcrumbs were off in run 2",
        "verdict       no data: page-fault reporting was off in run 2",
        "wait verdict  same: none",
        "timelines     no data: page-fault reporting was off in run 2",
        "the reports differ in 3 of 10 aspects",
    ], "diff of a hang and a non-GPU removal: output")


def case_diff_hangs(tool, golden):
    """Issue 32 item 5: a deadlock, a backwards-fence stall and a clean RemoveDevice are three bugs: exit 1, the
    differences first; the same report with other fence values, ids and thread numbers is the same bug (exit 0)."""
    import json
    result = run(tool, "diff", golden / "deadlock.json", golden / "stall_fences.json")
    check_eq(result.returncode, 1, "diff of a deadlock and a backwards-fence stall: exit code 1")
    lines = result.stdout.decode().splitlines()
    check_eq(lines[0], "kind          different: removal | stall (the device was not removed)", "the kind first")
    check_eq([line.split(":")[0] for line in lines if " different: " in line],
             ["kind          different", "reason        different", "cause         different",
              "faulting op   different", "op state      different", "verdict       different",
              "wait verdict  different", "waits         different"], "every aspect that tells them apart")
    wait_line = [line for line in lines if line.startswith("wait verdict")][0]
    check_eq(wait_line, "wait verdict  different: deadlock: queue 'A' waits 'F1' >= # (at #), signalled only by "
             "queue 'B' behind its wait on 'F2' >= # (at #), which queue 'A' signals only after its own wait: a cycle"
             " | 'Frame fence' went backwards: # (reached) \u2192 #, set by queue 'Streaming queue' "
             "(ID3D12CommandQueue::Signal)", "the wait verdicts, numbers normalised")
    report = json.loads((golden / "stall_fences.json").read_text(encoding="utf-8"))
    shift = 1000
    for queue in report["queues"]:
        for op in queue["pending_waits"] + queue["queued_signals"]:
            op["value"] += shift
            op["fence_value"] += shift
            op["fence_id"] = hex(int(op["fence_id"], 16) + 0x10000)
        for sub in queue["submissions"]:
            if sub["waiting_on"]:
                sub["waiting_on"]["value"] += shift
                sub["waiting_on"]["fence_value"] += shift
    report["process"]["id"] = 9999
    for queue in report["queues"]:
        for wait in queue["pending_waits"]:
            if wait["backwards"]:
                wait["backwards"] = wait["backwards"].replace("10 (reached)", "1010 (reached)").replace("3,", "1003,")
    result = diff_against(tool, golden / "stall_fences.json", report)
    check_eq(result.returncode, 0, "the same stall with other fence values, ids and pid: exit code 0")
    # one fence direction differs: a wait that did not go backwards is another bug
    report = json.loads((golden / "stall_fences.json").read_text(encoding="utf-8"))
    report["queues"][0]["pending_waits"][0]["backwards"] = None
    result = diff_against(tool, golden / "stall_fences.json", report)
    check_eq(result.returncode, 1, "a fence that went backwards against one that did not: exit code 1")
    check_eq(result.stdout.decode().splitlines()[0].split(":")[0], "wait verdict  different", "named first")
    # a clean RemoveDevice against the deadlock (both removals by the application): the waits tell them apart
    report = json.loads((golden / "deadlock.json").read_text(encoding="utf-8"))
    for queue in report["queues"]:
        queue["pending_waits"], queue["queued_signals"] = [], []
        for sub in queue["submissions"]:
            sub["waiting_on"] = None
    report["deadlock"] = None
    result = diff_against(tool, golden / "deadlock.json", report)
    check_eq(result.returncode, 1, "a deadlock against a clean RemoveDevice: exit code 1")
    check_eq([line.split(":")[0] for line in result.stdout.decode().splitlines()[:2]],
             ["wait verdict  different", "waits         different"], "the waits first")


def case_bad_file(tool, golden):
    with tempfile.TemporaryDirectory() as tmp:
        truncated = Path(tmp) / "truncated.json"
        truncated.write_bytes((golden / "dred_off.json").read_bytes()[:100])
        result = run(tool, "show", truncated)
        check_eq(result.returncode, 3, "show of a truncated report: exit code 3")
        check_eq(result.stdout, b"", "show of a truncated report: nothing on stdout")
        check_eq(result.stderr.decode(), f"d12dred: {truncated}: line 3, column 76: unterminated object\n",
                 "show of a truncated report: the error")
        other = Path(tmp) / "other.json"
        other.write_text('{"a": 1}\n')
        result = run(tool, "show", other, "--json")
        check_eq(result.returncode, 3, "show --json of JSON that is no report: exit code 3")
        check_eq(result.stderr.decode(),
                 f"d12dred: {other}: line 1: $: missing key \"schema_version\" (not a d12rt DRED report)\n",
                 "show --json of JSON that is no report: the error")
        result = run(tool, "diff", golden / "dred_off.json", other)
        check_eq(result.returncode, 3, "diff with a bad second file: exit code 3")
        check_eq(result.stdout, b"", "diff with a bad second file: nothing on stdout")


def case_directory(tool, golden):
    """A folder named as the report (issue 19 item 8): exit 3, "is a directory"."""
    result = run(tool, "show", golden)
    check_eq(result.returncode, 3, "show of a directory: exit code 3")
    check_eq(result.stderr.decode(), f"d12dred: cannot read {golden}: is a directory\n", "show of a directory: the error")


def case_missing_file(tool, golden):
    missing = golden / "no-such-report.json"
    result = run(tool, "show", missing)
    check_eq(result.returncode, 3, "show of a missing file: exit code 3")
    check_eq(result.stderr.decode(), f"d12dred: cannot read {missing}: No such file or directory\n",
             "show of a missing file: the error")


def case_html(tool, golden):
    """`d12dred html FILE` on stdout and `-o OUT` (issue 32 item 8): the same page, a whole HTML document holding
    no script and no URL; the title names the file. (The page in a browser: check_html.py.)"""
    report = golden / "page_fault_exact.json"
    result = run(tool, "html", report)
    check_eq(result.returncode, 0, "html to stdout: exit code")
    check_eq(result.stderr, b"", "html to stdout: nothing on stderr")
    page = result.stdout.decode("utf-8")
    check(page.startswith("<!DOCTYPE html>\n<html lang=\"en\">") and page.endswith("</html>\n"), "a whole document")
    check("<title>DRED report: DXGI_ERROR_DEVICE_HUNG, PAGEFAULT (7) \u2014 page_fault_exact.json</title>" in page,
          "the title: reason, device state, file")
    check("<script" not in page and "http:" not in page and "https:" not in page, "no script, no URL")
    with tempfile.TemporaryDirectory() as tmp:
        for args in (("html", report, "-o", Path(tmp) / "a.html"), ("html", "--output", Path(tmp) / "b.html", report),
                     ("html", f"--output={Path(tmp) / 'c.html'}", report)):
            result = run(tool, *args)
            check_eq(result.returncode, 0, f"d12dred {' '.join(map(str, args))}: exit code")
            check_eq(result.stdout, b"", f"d12dred {' '.join(map(str, args))}: nothing on stdout")
        for name in ("a.html", "b.html", "c.html"):
            check_eq((Path(tmp) / name).read_text(encoding="utf-8"), page, f"-o {name}: the page of stdout")
        check_eq(sorted(p.name for p in Path(tmp).iterdir()), ["a.html", "b.html", "c.html"], "no temporary left")


def case_html_errors(tool, golden):
    """A bad report: exit 3 with show's error and no page written; an output that cannot be written: exit 3, named."""
    with tempfile.TemporaryDirectory() as tmp:
        truncated = Path(tmp) / "truncated.json"
        truncated.write_bytes((golden / "dred_off.json").read_bytes()[:100])
        out = Path(tmp) / "page.html"
        result = run(tool, "html", truncated, "-o", out)
        check_eq(result.returncode, 3, "html of a truncated report: exit code 3")
        check_eq(result.stderr.decode(), f"d12dred: {truncated}: line 3, column 76: unterminated object\n",
                 "html of a truncated report: show's error")
        check(not out.exists(), "html of a truncated report: no page written")
        result = run(tool, "html", golden / "no-such.json")
        check_eq(result.returncode, 3, "html of a missing file: exit code 3")
        bad = Path(tmp) / "no-such-dir" / "page.html"
        result = run(tool, "html", golden / "dred_off.json", "-o", bad)
        check_eq(result.returncode, 3, "html -o into a missing folder: exit code 3")
        check_eq(result.stderr.decode(), f"d12dred: cannot write {bad}: No such file or directory\n",
                 "html -o into a missing folder: the error")


def case_usage(tool, golden):
    for args in ((), ("show",), ("show", "a", "b"), ("diff", "a"), ("diff", "a", "b", "--json"), ("html",),
                 ("html", "a", "b"), ("html", "a", "--json"), ("show", "a", "-o", "x"), ("diff", "a", "b", "-o", "x"),
                 ("show", "a", "--json", "--timeline", "0x1"), ("diff", "a", "b", "--timeline", "0x1"),
                 ("html", "a", "--timeline", "0x1")):
        result = run(tool, *args)
        check_eq(result.returncode, 2, f"d12dred {' '.join(args)}: exit code 2")
        check(result.stderr.decode().startswith(USAGE), f"d12dred {' '.join(args)}: usage")
    for va in ("0x1z", "-1", "0x10000000000000000", ""):  # --timeline takes a VA below 2^64, all of it a number
        result = run(tool, "show", "a", "--timeline", va)
        check_eq(result.returncode, 2, f"show --timeline '{va}': exit code 2")
        check(result.stderr.decode().startswith(f"d12dred: --timeline wants a VA (0x... or decimal), not '{va}'\n"
                                                + USAGE),
              f"show --timeline '{va}': named, then the usage")
    # a bad option is named before the usage lines (getopt_long; docs/tools.md)
    result = run(tool, "show", "a", "--yaml")
    check_eq(result.returncode, 2, "d12dred show a --yaml: exit code 2")
    check(result.stderr.decode().startswith("d12dred: unknown option '--yaml'\n" + USAGE),
          "d12dred show a --yaml: the option named, then the usage")
    result = run(tool, "html", "a", "-o")
    check_eq(result.returncode, 2, "d12dred html a -o: exit code 2")
    check(result.stderr.decode().startswith("d12dred: -o needs a value\nusage:"), "d12dred html a -o: named")
    result = run(tool, "explain", "x")
    check_eq(result.returncode, 2, "unknown command: exit code 2")
    check(result.stderr.decode().startswith("d12dred: unknown command 'explain'\nusage:"), "unknown command: named")
    result = run(tool, "--help")
    check_eq(result.returncode, 0, "--help: exit code 0")
    check(result.stdout.decode().startswith(USAGE), "--help: usage on stdout")


RECREATED_TIMELINE = [
    "timeline of 0x100020000: the resources that held [0x100020000, 0x100030000) and their re-creations under the "
    "same name",
    "  #2 created  'Emitter params' [0x100020000, 0x100030000), before any submission, 41.250 ms before the removal",
    "  #3 released 'Emitter params' [0x100020000, 0x100030000), after submission #41 on queue 'Direct queue', "
    "16.500 ms before the removal",
    "  #4 created  'Emitter params' [0x100040000, 0x100050000) (another VA), after submission #42 on queue "
    "'Direct queue', 16.125 ms before the removal",
]


def case_show_timeline(tool, golden):
    """Issue 32 item 7: `show --timeline VA` prints the timeline holding VA, exactly; a VA without one: exit 1."""
    for va in ("0x100020000", "0x10002fff0", str(0x100020000)):
        result = run(tool, "show", golden / "recreated.json", "--timeline", va)
        check_eq(result.returncode, 0, f"show --timeline {va}: exit code 0")
        check_eq(result.stdout.decode().splitlines(), RECREATED_TIMELINE, f"show --timeline {va}: the timeline")
        check_eq(result.stderr, b"", f"show --timeline {va}: nothing on stderr")
    result = run(tool, "--timeline", "0x100020000", "show", golden / "recreated.json")
    check_eq(result.returncode, 0, "the option before the command: exit code 0")
    result = run(tool, "show", golden / "recreated.json", "--timeline", "0x100030000")
    check_eq(result.returncode, 1, "show --timeline of a VA no timeline holds: exit code 1")
    check_eq(result.stdout.decode(), "no timeline of 0x100030000 in this report (it has timelines of 0x100020000)\n",
             "show --timeline of a VA no timeline holds: says so")
    result = run(tool, "show", golden / "use_after_free.json", "--timeline", "0x100230100")
    check_eq(result.returncode, 1, "show --timeline of a report without timelines: exit code 1")
    check_eq(result.stdout.decode(), "no timeline of 0x100230100 in this report (it has none)\n",
             "show --timeline of a report without timelines: says so")
    # the tree is show's as before, but for the verdict's detail, which names the re-creation
    tree = run(tool, "show", golden / "recreated.json").stdout.decode()
    check("'Emitter params' was released at submission #41 and re-created at #42 at another VA (0x100040000); the "
          "list recorded at #40 still used the old one" in tree, "the verdict names the re-creation")
    check("timeline of" not in tree, "the tree itself shows no timeline")


def case_timeline_bad_member(tool, golden):
    """A broken timeline member: exit 3 and `d12dred: FILE: line L: $.path: what is wrong`."""
    text = (golden / "recreated.json").read_text(encoding="utf-8")
    # (text replaced, its replacement, the line the error names: the one holding this text, the error)
    edits = [
        ('"end": "0x100030000"', '"end": "0x100010000"', '"end"',
         "$.timelines[0].end: 0x100010000 is below start 0x100020000"),
        ('"seq": 3,', '"seq": 2,', '"event": "released"',
         "$.timelines[0].events[1].seq: 2 is not above the previous event's 2 (events are oldest first)"),
        ('"event": "released"', '"event": "freed"', '"event": "freed"',
         '$.timelines[0].events[1].event: unknown value "freed"'),
        ('"ns_before": 16500000', '"ns_before": -1', '"ns_before": -1',
         "$.timelines[0].events[1].ns_before: expected a non-negative integer, got -1"),
        ('"earlier": 0,\n', '', '"timelines": [', '$.timelines[0]: missing key "earlier"'),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for before, after, marker, error in edits:
            check(before in text, f"the golden has {before}")
            edited = text.replace(before, after, 1)
            line = next(i + 1 for i, l in enumerate(edited.splitlines()) if marker in l)
            line += 1 if marker == '"timelines": [' else 0  # the timeline object opens on the next line
            path = Path(tmp) / "bad.json"
            path.write_text(edited, encoding="utf-8")
            for args in (("show", path), ("show", path, "--timeline", "0x100020000"), ("html", path)):
                result = run(tool, *args)
                check_eq(result.returncode, 3, f"{before} -> {after}: {args[0]} exit code 3")
                check_eq(result.stderr.decode(), f"d12dred: {path}: line {line}: {error}\n",
                         f"{before} -> {after}: {args[0]} names the file, the line and the member")


def case_diff_timelines(tool, golden):
    """diff ignores the timelines' times, VAs and numbers, not their order."""
    import json
    report = json.loads((golden / "recreated.json").read_text(encoding="utf-8"))
    for timeline in report["timelines"]:  # another run: other addresses throughout
        for key in ("va", "start", "end"):
            timeline[key] = hex(int(timeline[key], 16) + 0x1000000)
        for event in timeline["events"]:
            event["ns_before"] += 123456789
            event["seq"] += 1000
            event["va"] = hex(int(event["va"], 16) + 0x1000000)
    result = diff_against(tool, golden / "recreated.json", report)
    check_eq(result.returncode, 0, "other times, numbers and VAs: the same bug (exit 0)")
    check_eq([line for line in result.stdout.decode().splitlines() if line.startswith("timelines")],
             ["timelines     same: [created 'Emitter params', released 'Emitter params', created 'Emitter params' "
              "elsewhere]"], "the timelines line")
    report = json.loads((golden / "recreated.json").read_text(encoding="utf-8"))
    events = report["timelines"][0]["events"]
    events[1]["event"], events[2]["event"] = "created", "released"  # re-created before the release: another bug
    result = diff_against(tool, golden / "recreated.json", report)
    check_eq(result.returncode, 1, "another order: a difference (exit 1)")
    check_eq(result.stdout.decode().splitlines()[0].split(":")[0], "timelines     different", "named first")


def main(argv):
    tool, golden, case = argv[1], Path(argv[2]), argv[3]
    globals()[f"case_{case}"](tool, golden)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

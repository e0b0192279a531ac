#!/usr/bin/env python3
"""examples/dred_demo end to end (ctest examples.dred_demo, examples.dred_demo_hang): it exits 0 (it checks its
own story) and its output has the key lines of the case study, in order — the driver's correlated message, the
removal message and reason, DRED through the Windows interfaces, and the d12dred tree naming the
DrawIndexedInstanced and the buffer.

    check_demo.py DRED_DEMO fault|hang SCHEMA D12DRED
                        (D12RT_DRED_DUMP: a temporary folder; its one report is validated against SCHEMA,
                        docs/dred-report.schema.json, and shown by the installed program D12DRED: `d12dred show
                        REPORT` must read what the runtime wrote, event stacks and notes included)
Ends with `N passed, N failed`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

COMMON = [
    r"^loaded node Sponza +parent -1  mesh_index +0  instance_count 1$",
    r"^\[D3D12 ERROR\] Device removal has been triggered for the following reason \(DXGI_ERROR_DEVICE_HUNG: The "
    r"Device took an unreasonable amount of time to execute its commands, or the hardware crashed/hung\. As a "
    r"result, the TDR mechanism has been triggered\.\)$",
]
# The attributed op's arguments in the JSON report (op.state.arguments), as `d12dred show` prints them.
ARGUMENTS = {
    "fault": "IndexCountPerInstance=36, InstanceCount=1, StartIndexLocation=0, BaseVertexLocation=0, "
             "StartInstanceLocation=0",
    "hang": "IndexCountPerInstance=36, InstanceCount=0xCDCDCDCD (3452816845) uninitialized? (debug-heap fill), StartIndexLocation=0, BaseVertexLocation=0, "
            "StartInstanceLocation=0",
}


def attributed_arguments(document):
    """The `arguments` of every op with an attribution (exact or suspect) in the report."""
    return [op["state"]["arguments"] for node in document.get("nodes", []) for op in node.get("ops", [])
            if op.get("attribution") not in (None, "none") and op.get("state")]


FAULT = [
    r"^loaded node Lantern pivot +parent  0  mesh_index  -842150451  instance_count 1$",
    COMMON[1],
    r"^\[driver message\] 0x[0-9A-F]+:'Scene list' \[DrawIndexed #2\] Page fault: The index buffer view reads GPU "
    r"virtual address 0xFFFFCDCECDCF1000, which is in no live buffer\.$",
    r"^removal reason: DXGI_ERROR_DEVICE_HUNG \(0x887a0006\)$",
    r"^DRED: device state PAGEFAULT$",
    r"^DRED: Commandlist \"Scene list\" on CommandQueue \"Direct queue\", 7 completed of 12$",
    r"^\tOp: 7, DRAWINDEXEDINSTANCED - FIRST OUTSTANDING$",
    r"^DRED: PageFault at VA GPUAddress \"0xffffcdcecdcf1000\"$",
    r"^\$ d12dred show .*/d12dred-[0-9]+-1\.json$",
    r"^  device state  PAGEFAULT \(7\)$",
    r"^  queue 'Direct queue' \(DIRECT\)  <- faulted here$",
    r"^        #6 SETMARKER\(0\) \"node 'Lantern pivot'\"  <- last completed$",
    r"^        #7 DRAWINDEXEDINSTANCED\(4\)  <- FAULT \(exact\)$",
    r"^             arguments   IndexCountPerInstance=36, InstanceCount=1, StartIndexLocation=0, "
    r"BaseVertexLocation=0, StartInstanceLocation=0$",
    r"^             IB          0xffffcdcecdcf1000, 72 bytes, R16_UINT, \(unnamed\)$",
    r"^             \[CORRUPTION\] EXECUTION #1506: 0x[0-9A-F]+:'Scene list' \[DrawIndexed #2\] Page fault: ",
    r"^  verdict       never-mapped",
    r"^  nearest below 'Geometry pool' RESOURCE \[0x[0-9a-f]+, 0x[0-9a-f]+\), width 196608, ends 0x[0-9a-f]+ bytes "
    r"below the VA$",
    r"^dred_demo: the report names the DrawIndexedInstanced of the broken node$",
    r"^dred_demo: the removal is explained$",
]
HANG = [
    r"^loaded node Grass +parent  0  mesh_index +2  instance_count 3452816845$",
    COMMON[1],
    r"^removal reason: DXGI_ERROR_DEVICE_HUNG \(0x887a0006\)$",
    r"^DRED: device state HUNG$",
    r"^DRED: Commandlist \"Scene list\" on CommandQueue \"Direct queue\", 7 completed of 10$",
    r"^\tOp: 7, DRAWINDEXEDINSTANCED - FIRST OUTSTANDING$",
    r"^DRED: No PageFault data\.$",
    r"^  device state  HUNG \(3\)$",
    r"^  TDR delay     300 ms$",
    r"^        #6 SETMARKER\(0\) \"node 'Grass'\"  <- last completed$",
    r"^        #7 DRAWINDEXEDINSTANCED\(4\)  <- (HANG \(exact\)|first outstanding \(suspect\))$",
    r"^             arguments   IndexCountPerInstance=36, InstanceCount=0xCDCDCDCD \(3452816845\) uninitialized\? \(debug-heap fill\), StartIndexLocation=0, "
    r"BaseVertexLocation=0, StartInstanceLocation=0$",
    r"^             IB          0x[0-9a-f]+, 72 bytes, R16_UINT, 'Geometry pool'( \+ 0x[0-9a-f]+)?$",
    r"^  none \(the removal was no page fault\)$",
    r"^dred_demo: the removal is explained$",
]


def main(argv):
    demo, mode, schema_path, d12dred = argv[1], argv[2], Path(argv[3]), argv[4]
    args = [demo] + (["--hang"] if mode == "hang" else [])
    with tempfile.TemporaryDirectory(prefix="dred-demo-") as dump:
        result = subprocess.run(args, capture_output=True, text=True, timeout=50,
                                env=dict(os.environ, D12RT_DRED_DUMP=dump))
        reports = sorted(Path(dump).glob("*.json"))
        documents = [json.loads(p.read_text(encoding="utf-8")) for p in reports]
        shown = [subprocess.run([d12dred, "show", str(p)], capture_output=True, text=True, timeout=30)
                 for p in reports]
    passed = failed = 0
    # The report the runtime wrote (exactly one) against docs/dred-report.schema.json.
    if len(documents) == 1:
        passed += 1
        try:
            import jsonschema
            schema = json.loads(schema_path.read_text())
            problems = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(documents[0])]
        except ImportError:
            problems = ["python3-jsonschema is missing (it is in .ci/packages)"]
        if problems:
            failed += 1
            print(f"check failed: the runtime's report does not match the schema: {problems[:3]}", file=sys.stderr)
        else:
            passed += 1
        found = attributed_arguments(documents[0])
        if found == [ARGUMENTS[mode]]:
            passed += 1
        else:
            failed += 1
            print(f"check failed: the attributed op's arguments in the report are {found}, expected "
                  f"[{ARGUMENTS[mode]!r}]", file=sys.stderr)
        if shown[0].returncode == 0 and "DRAWINDEXEDINSTANCED" in shown[0].stdout:
            passed += 1
        else:
            failed += 1
            print(f"check failed: d12dred show of the report: exit {shown[0].returncode}\n{shown[0].stderr}",
                  file=sys.stderr)
    else:
        failed += 1
        print(f"check failed: {len(documents)} reports in D12RT_DRED_DUMP, expected 1", file=sys.stderr)
    print(result.stdout)
    if result.returncode == 0:
        passed += 1
    else:
        failed += 1
        print(f"check failed: exit code {result.returncode}\n{result.stderr}", file=sys.stderr)
    lines, at = result.stdout.splitlines(), 0
    for pattern in (FAULT if mode == "fault" else HANG):
        found = next((i for i in range(at, len(lines)) if re.search(pattern, lines[i])), None)
        if found is None:
            failed += 1
            print(f"check failed: no line (after line {at + 1}) matches {pattern}", file=sys.stderr)
        else:
            passed += 1
            at = found + 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

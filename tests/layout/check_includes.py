#!/usr/bin/python3
"""The include graph of runtime/ (docs/architecture.md): a file may include headers of its own folder, of folders
below its own, of the device hub, and the shared leaf headers directly in runtime/; never of a folder above it
(gpu/ and dred/ share a level: the work and its record read each other).

    tests/layout/check_includes.py SOURCE_ROOT

Prints `file:line: includes "X" (folder F) from folder G, which is below it` for each violation and exits 1; exits 0
with `N files, N includes inside runtime/, no upward include` otherwise. Includes that resolve outside runtime/
(generated/, drivers/reference/, system headers) are not part of the graph.
"""
import os
import re
import sys

# Level per folder: lower numbers are higher up. The hub (device/) may be included from anywhere.
LEVELS = {
    "": 0,  # runtime/ itself: the exported entry points (its .c files); its headers are leaves (below)
    "device": 1,
    "gpu": 2,
    "dred": 2,
    "drm": 3,
    "infoqueue": 4,
    "registry": 4,
    "ddi": 5,
    "caps": 6,
    "fault": 6,
    "dred/report": 6,
    "cfgfile": 6,  # the safe reader of files a setting names: a leaf every reader shares
}
HUB = "device"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(runtime, path):
    rel = os.path.relpath(os.path.dirname(path), runtime).replace(os.sep, "/")
    rel = "" if rel == "." else rel
    return "dred/report" if rel.startswith("dred/report") else rel.split("/")[0]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    runtime = os.path.join(sys.argv[1], "runtime")
    files = []
    for root, _, names in os.walk(runtime):
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    folders = sorted({os.path.dirname(f) for f in files})
    unknown = sorted({folder_of(runtime, f) for f in files} - set(LEVELS))
    if unknown:
        print("tests/layout/check_includes.py: runtime/%s/ has no level: add it to LEVELS and docs/architecture.md"
              % unknown[0])
        return 1
    bad = inside = 0
    for path in files:
        here = folder_of(runtime, path)
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                # What the compiler finds: the includer's folder first, then runtime/ and every folder.
                candidates = [os.path.join(os.path.dirname(path), name), os.path.join(runtime, name)]
                candidates += [os.path.join(d, name) for d in folders]
                target = next((c for c in candidates if os.path.isfile(c)), None)
                if target is None:
                    continue
                inside += 1
                there = folder_of(runtime, target)
                leaf = there == "" and target.endswith(".h")
                if leaf or there == HUB or there == here or LEVELS[there] >= LEVELS[here]:
                    continue
                bad += 1
                print('%s:%d: includes "%s" (folder %s) from folder %s, which is below it'
                      % (os.path.relpath(path, sys.argv[1]), number, name, there or "runtime", here or "runtime"))
    if bad:
        return 1
    print("%d files, %d includes inside runtime/, no upward include" % (len(files), inside))
    return 0


if __name__ == "__main__":
    sys.exit(main())

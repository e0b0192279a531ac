#!/usr/bin/python3
"""The include graph of runtime/ (docs/architecture.md): a file may include headers of its own folder, of folders
below its own, of the device hub, and the shared leaf headers directly in runtime/; never of a folder above it
(gpu/ and dred/ share a level: the work and its record read each other).

    tests/layout/check_includes.py SOURCE_ROOT

The drivers (drivers/common/README.md): drivers/common/ is what both drivers share and includes no driver's header
and nothing of runtime/; drivers/reference/ may include common/; drivers/vulkan/ common/ and reference/ (the
profile). A violation there prints `file:line: includes "X" (drivers/F) from drivers/G, which may not include it`.

Prints `file:line: includes "X" (folder F) from folder G, which is below it` for each violation and exits 1; exits 0
with `N files, N includes inside runtime/ and drivers/, no upward include` otherwise. Includes that resolve outside
runtime/ and drivers/ (generated/, system headers) are not part of the graph.
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
    "rootsig": 4,  # root signatures without a device: the serializers, deserializer, ID3DBlob, validation
    "ddi": 5,
    "caps": 6,
    "fault": 6,
    "dred/report": 6,
    "cfgfile": 6,  # the safe reader of files a setting names: a leaf every reader shares
    "dxbc": 6,  # the DXBC reader/writer the runtime and both drivers link
}
HUB = "device"
# What each folder of drivers/ may include of drivers/ and runtime/ (besides its own headers).
DRIVERS = {
    "common": {"drivers": set(), "runtime": False},
    "reference": {"drivers": {"common"}, "runtime": True},  # libd12caps, cfgfile
    "vulkan": {"drivers": {"common", "reference"}, "runtime": True},
}
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
    drivers_files, drivers_inside, drivers_bad = check_drivers(sys.argv[1], runtime, folders)
    if bad or drivers_bad:
        return 1
    print("%d files, %d includes inside runtime/ and drivers/, no upward include"
          % (len(files) + drivers_files, inside + drivers_inside))
    return 0


def check_drivers(root, runtime, runtime_folders):
    """The drivers' rule (DRIVERS): returns (files, includes resolved inside drivers/ or runtime/, violations)."""
    drivers = os.path.join(root, "drivers")
    present = sorted(d for d in DRIVERS if os.path.isdir(os.path.join(drivers, d)))
    count = inside = bad = 0
    for here in present:
        for base, _, names in os.walk(os.path.join(drivers, here)):
            for path in [os.path.join(base, n) for n in sorted(names) if n.endswith((".c", ".h"))]:
                count += 1
                with open(path, encoding="utf-8") as f:
                    lines = list(f)
                for number, line in enumerate(lines, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    name = m.group(1)
                    # The includer's folder, then the drivers' folders, then runtime/'s (the targets' include paths).
                    candidates = [(here, os.path.join(os.path.dirname(path), name))]
                    candidates += [(d, os.path.join(drivers, d, name)) for d in present]
                    candidates += [("runtime", os.path.join(d, name)) for d in [runtime] + runtime_folders]
                    there = next((c for c in candidates if os.path.isfile(c[1])), None)
                    if there is None:
                        continue
                    inside += 1
                    folder = there[0]
                    if folder == here or folder in DRIVERS[here]["drivers"] or (
                            folder == "runtime" and DRIVERS[here]["runtime"]):
                        continue
                    bad += 1
                    print('%s:%d: includes "%s" (%s) from drivers/%s, which may not include it'
                          % (os.path.relpath(path, root), number, name,
                             "runtime/" if folder == "runtime" else "drivers/" + folder, here))
    return count, inside, bad


if __name__ == "__main__":
    sys.exit(main())

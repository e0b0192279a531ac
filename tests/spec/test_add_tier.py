#!/usr/bin/env python3
"""The workflow of docs/adding-a-tier.md, proven: copy spec/ to a temporary folder, add retail SDK versions
621/622 and preview 722, move the runtime to 622/722, add D3D12_RAYTRACING_TIER_1_3 = 13 at retail 622 /
preview 722, regenerate there, build libd12caps from runtime/caps/d12caps.c and the regenerated tables with a
small program (tests/spec/add_tier_probe.c), and check what applications built against each SDK version see.
The same program over the unmodified spec checks the other side: there 13 is unknown, hence always lowered.

    test_add_tier.py [--cc COMPILER]
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import spectest
from spectest import ROOT, Results

HERE = Path(__file__).resolve().parent

# The edits of docs/adding-a-tier.md, as (file, existing text, replacement).
EDITS = (
    ("sdk.yaml",
     "      - {version: 620, tags: []}\n",
     "      - {version: 620, tags: []}\n"
     "      - {version: 621, tags: []}\n"
     "      - {version: 622, tags: []}\n"),
    ("sdk.yaml",
     "      - {version: 721, tags: [v1.721.0-preview, v1.721.1-preview]}\n",
     "      - {version: 721, tags: [v1.721.0-preview, v1.721.1-preview]}\n"
     "      - {version: 722, tags: []}\n"),
    ("sdk.yaml",
     "runtime:\n  retail: 620\n  preview: 721\n",
     "runtime:\n  retail: 622\n  preview: 722\n"),
    ("enums.yaml",
     "      - {name: D3D12_RAYTRACING_TIER_1_2, value: 12, retail: 616, preview: 717, tag: v1.616.0}\n",
     "      - {name: D3D12_RAYTRACING_TIER_1_2, value: 12, retail: 616, preview: 717, tag: v1.616.0}\n"
     "      - {name: D3D12_RAYTRACING_TIER_1_3, value: 13, retail: 622, preview: 722, tag: v1.622.0}\n"),
)


def edit_spec(spec, results):
    for name, old, new in EDITS:
        path = spec / name
        text = path.read_text()
        if results.check_eq(text.count(old), 1, f"spec/{name} holds the text the edit replaces: {old.strip()}"):
            path.write_text(text.replace(old, new))


def pkg_config_cflags():
    run = subprocess.run(["pkg-config", "--cflags", "DirectX-Headers"], capture_output=True, text=True, check=True)
    return shlex.split(run.stdout)


def build_and_run(cc, out, build, mode, results):
    """Compile d12caps.c + out's tables + the probe; run it in `mode`; return its stdout."""
    exe = build / f"add_tier_probe_{mode}"
    command = [*shlex.split(cc), "-std=c11", "-Wall", "-Wextra", "-Werror",
               "-I", str(ROOT / "runtime" / "caps"), "-I", str(out / "generated" / "caps"),
               "-I", str(ROOT / "tests"), *pkg_config_cflags(),
               str(ROOT / "runtime" / "caps" / "d12caps.c"), str(out / "generated" / "caps" / "d12caps_tables.c"),
               str(HERE / "add_tier_probe.c"), "-o", str(exe)]
    compiled = subprocess.run(command, capture_output=True, text=True)
    if not results.check_eq(compiled.returncode, 0, f"{mode}: compile libd12caps + probe",):
        print(" ".join(command))
        print(compiled.stderr)
        return ""
    run = subprocess.run([str(exe), mode], capture_output=True, text=True)
    print(f"---- add_tier_probe {mode}\n{run.stdout}{run.stderr}----")
    results.check_eq(run.returncode, 0, f"{mode}: add_tier_probe passed")
    results.check(run.stdout.rstrip().endswith(" 0 failed"), f"{mode}: add_tier_probe closing line")
    return run.stdout


def generate(spec, out, tmp, results, label):
    run = spectest.run_gen(["--spec", spec, "--out", out], tmp)
    results.check_eq(run.returncode, 0, f"{label}: gen.py exit code")
    results.check_eq(run.stderr, "", f"{label}: gen.py stderr")
    return run.returncode == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = parser.parse_args()
    results = Results()
    with tempfile.TemporaryDirectory(prefix="d12-add-tier-") as tmp:
        tmp = Path(tmp)
        # ---- The modified spec.
        added = tmp / "added"
        added.mkdir()
        spec = spectest.copy_spec(added)
        edit_spec(spec, results)
        headers = spectest.run_gen(["--check-headers", "--spec", spec], added)
        print(headers.stdout + headers.stderr, end="")
        results.check_eq(headers.returncode, 0, "added: gen.py --check-headers accepts the new tier")
        results.check("values supplied by generated headers" in headers.stdout, "added: cross-check summary")
        out = added / "out"
        if generate(spec, out, added, results, "added"):
            spec_h = (out / "generated" / "caps" / "d12caps_spec.h").read_text()
            results.check("D3D12_RAYTRACING_TIER_1_3" in spec_h, "added: d12caps_spec.h declares the new value")
            tables = (out / "generated" / "caps" / "d12caps_tables.c").read_text()
            results.check("D3D12_RAYTRACING_TIER_1_3" in tables, "added: d12caps_tables.c lists the new value")
            doc = (out / "docs" / "capabilities.md").read_text()
            results.check("D3D12_RAYTRACING_TIER_1_3" in doc, "added: docs/capabilities.md lists the new value")
            build_and_run(args.cc, out, added, "added", results)
        # ---- The unmodified spec: the same driver value, 13, is unknown there.
        production = tmp / "production"
        production.mkdir()
        spec = spectest.copy_spec(production)
        out = production / "out"
        if generate(spec, out, production, results, "production"):
            results.check("D3D12_RAYTRACING_TIER_1_3" not in (out / "generated" / "caps" / "d12caps_tables.c")
                          .read_text(), "production: no RAYTRACING_TIER_1_3 in the tables")
            build_and_run(args.cc, out, production, "production", results)
    return results.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Bad-input corpus: a malformed spec gets exactly one `file:line: key.path: what is wrong` line on stderr,
exit code 2, and nothing written. Case format: tests/spec/README.md.

    test_bad_spec.py --case tests/spec/bad/NAME.case   one case (ctest: spec_bad.NAME)
    test_bad_spec.py --control                         the unmodified spec copy generates (ctest: spec_bad.control)
    test_bad_spec.py --show tests/spec/bad/NAME.case   print what gen.py says for a case (writing a new case)
"""
import argparse
import sys
import tempfile
from pathlib import Path

import spectest
from spectest import Results


def prepare(tmp, generator):
    """TMP/spec (a copy of spec/) and TMP/out holding a sentinel file at every output path."""
    spec = spectest.copy_spec(tmp)
    out = Path(tmp) / "out"
    out.mkdir()
    for rel in spectest.output_paths(out, generator):
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"sentinel for {rel}: a failed generation must not touch this file\n")
    return spec, out


def run_case(path, generator, results):
    case = spectest.parse_case(path)
    print(f"case {case.name}: {case.description}")
    with tempfile.TemporaryDirectory(prefix="d12-bad-spec-") as tmp:
        spec, out = prepare(tmp, generator)
        expected = spectest.apply_case(case, spec)
        print(f"expect: {expected}")
        before = spectest.snapshot(out)
        # cwd = TMP and --spec TMP/spec: gen.py shows the spec folder relative to cwd, so errors read spec/...
        for mode in ([], ["--check"], ["--check-headers"]):
            label = " ".join(["gen.py", *mode]) if mode else "gen.py"
            run = spectest.run_gen([*mode, "--spec", spec, "--out", out], tmp, generator)
            if mode == ["--check-headers"] and case.file not in spectest.CAPS_FILES:
                # --check-headers cross-checks only the caps files against DirectX-Headers; others are not read.
                results.check_eq(run.returncode, 0, f"{label}: exit code (spec/{case.file} is not cross-checked)")
                results.check(spectest.snapshot(out) == before, f"{label}: --out folder unchanged")
                continue
            results.check_eq(run.returncode, 2, f"{label}: exit code")
            if mode == ["--check-headers"]:
                # --check-headers reports every disagreement with the headers; the first is the one gen.py shows.
                first = run.stderr.split("\n", 1)[0]
                results.check_eq(first, expected, f"{label}: first stderr line")
            else:
                results.check_eq(run.stderr, expected + "\n", f"{label}: stderr is exactly the expected line")
            results.check_eq(run.stdout, "", f"{label}: nothing on stdout")
            after = spectest.snapshot(out)
            results.check(after == before, f"{label}: --out folder unchanged",
                          spectest.describe_difference(before, after))


def run_control(generator, results):
    with tempfile.TemporaryDirectory(prefix="d12-bad-spec-") as tmp:
        spec, out = prepare(tmp, generator)
        outputs = spectest.output_paths(out, generator)
        run = spectest.run_gen(["--spec", spec, "--out", out], tmp, generator)
        results.check_eq(run.returncode, 0, "gen.py on the unmodified spec copy: exit code")
        results.check_eq(run.stderr, "", "gen.py on the unmodified spec copy: stderr")
        first = spectest.snapshot(out)
        for rel in outputs:
            body = first.get(rel, b"")
            results.check(body and not body.startswith(b"sentinel for"), f"{rel} was written")
        results.check_eq(sorted(k for k in first if not k.endswith("/")), sorted(outputs),
                         "exactly the listed outputs exist (no stray temporary files)")
        run = spectest.run_gen(["--spec", spec, "--out", out], tmp, generator)
        results.check_eq(run.returncode, 0, "second run: exit code")
        second = spectest.snapshot(out)
        results.check(second == first, "second run: output identical (deterministic)",
                      spectest.describe_difference(first, second))
        run = spectest.run_gen(["--check", "--spec", spec, "--out", out], tmp, generator)
        results.check_eq(run.returncode, 0, "gen.py --check on the fresh output: exit code")
        results.check_eq(run.stdout.count("\n+"), 0, "gen.py --check on the fresh output: no diff")


def main():
    parser = argparse.ArgumentParser()
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--case")
    mode.add_argument("--control", action="store_true")
    mode.add_argument("--show")
    parser.add_argument("--generator", default=str(spectest.GEN), help="gen.py to test (default: the repository's)")
    args = parser.parse_args()
    results = Results()
    try:
        if args.show:
            case = spectest.parse_case(args.show)
            with tempfile.TemporaryDirectory(prefix="d12-bad-spec-") as tmp:
                spec, out = prepare(tmp, args.generator)
                print(f"expect: {spectest.apply_case(case, spec)}")
                run = spectest.run_gen(["--spec", spec, "--out", out], tmp, args.generator)
                print(f"exit {run.returncode}\nstderr: {run.stderr}stdout: {run.stdout}")
            return 0
        if args.control:
            run_control(args.generator, results)
        else:
            run_case(args.case, args.generator, results)
    except (spectest.CaseError, RuntimeError) as error:
        results.check(False, "test setup", error)
    return results.finish()


if __name__ == "__main__":
    sys.exit(main())

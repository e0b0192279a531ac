#!/usr/bin/env python3
"""gen.py's CI modes.

    test_gen_check.py repo       `gen.py --check` passes on the repository (generated/ matches spec/ + templates/)
    test_gen_check.py detects    `gen.py --check` on a temporary copy of the outputs with one line altered and one
                                 file deleted: exit 1, a unified diff of exactly those on stdout, the copy untouched
    test_gen_check.py headers    `gen.py --check-headers`: exit 0 and the summary line
"""
import shutil
import sys
import tempfile
from pathlib import Path

import spectest
from spectest import ROOT, Results


def check_repo(results):
    run = spectest.run_gen(["--check"], ROOT)
    results.check_eq(run.returncode, 0, "gen.py --check on the repository: exit code")
    results.check_eq(run.stderr, "", "gen.py --check on the repository: stderr")
    results.check(run.stdout.startswith("gen.py --check: ") and "match" in run.stdout,
                  "gen.py --check on the repository: says the files match", run.stdout)


def check_detects(results):
    with tempfile.TemporaryDirectory(prefix="d12-gen-check-") as tmp:
        out = Path(tmp) / "out"
        outputs = spectest.output_paths(out)
        for rel in outputs:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, out / rel)
        run = spectest.run_gen(["--check", "--out", out], tmp)
        results.check_eq(run.returncode, 0, "unaltered copy: exit code")

        # Alter one line of the clamp tables and delete the docs page.
        altered = next(rel for rel in outputs if rel.endswith("d12caps_tables.c"))
        deleted = next(rel for rel in outputs if rel.endswith(".md"))
        lines = (out / altered).read_text().split("\n")
        index = next(i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(("/*", "*")))
        original = lines[index]
        lines[index] = original + " /* edited by hand */"
        (out / altered).write_text("\n".join(lines))
        (out / deleted).unlink()
        before = spectest.snapshot(out)

        run = spectest.run_gen(["--check", "--out", out], tmp)
        results.check_eq(run.returncode, 1, "altered copy: exit code")
        diff = run.stdout.split("\n")
        results.check(f"--- a/{altered}" in diff and f"+++ b/{altered}" in diff,
                      f"diff names {altered}", run.stdout[:2000])
        results.check(f"-{lines[index]}" in diff and f"+{original}" in diff,
                      "diff shows the edited line going back to the generated one", run.stdout[:2000])
        results.check(f"+++ b/{deleted}" in diff, f"diff shows the deleted {deleted}", run.stdout[:2000])
        changed = [line for line in diff if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
        minus = [line for line in changed if line.startswith("-")]
        results.check_eq(minus, [f"-{lines[index]}"], "the only removed line is the hand edit")
        results.check_eq(run.stderr.strip(),
                         "gen.py --check: 2 generated file(s) differ from spec/ and templates/; "
                         "run `python3 generator/gen.py`", "stderr names the count and the command")
        after = spectest.snapshot(out)
        results.check(after == before, "--check writes nothing", spectest.describe_difference(before, after))


def check_headers(results):
    run = spectest.run_gen(["--check-headers"], ROOT)
    results.check_eq(run.returncode, 0, "gen.py --check-headers: exit code")
    results.check_eq(run.stderr, "", "gen.py --check-headers: stderr")
    results.check(run.stdout.startswith("header cross-check: spec agrees with DirectX-Headers (SDK "),
                  "gen.py --check-headers: summary line", run.stdout)


def main():
    modes = {"repo": check_repo, "detects": check_detects, "headers": check_headers}
    if len(sys.argv) != 2 or sys.argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    results = Results()
    try:
        modes[sys.argv[1]](results)
    except (RuntimeError, OSError, StopIteration) as error:
        results.check(False, "test setup", repr(error))
    return results.finish()


if __name__ == "__main__":
    sys.exit(main())

"""Shared helpers of the spec/generator tests (tests/spec/*.py): a tiny check counter that ends with the
closing line `N passed, N failed`, running generator/gen.py on a copy of spec/, snapshots of output folders,
and the bad-spec case format (tests/spec/README.md).
"""
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
GEN = ROOT / "generator" / "gen.py"
# Every spec file (each part has its own); the caps part's are the ones `gen.py --check-headers` reads.
SPEC_FILES = tuple(sorted(path.name for path in SPEC.glob("*.yaml")))
# The project's shaders (generator/part_shaders.py): a case may edit one, or create one (@contents).
SHADER_FILE = re.compile(r"^shaders/[^/]+\.asm$")
CAPS_FILES = ("sdk.yaml", "enums.yaml", "features.yaml", "types.yaml")


class Results:
    """Counts checks; `finish()` prints `N passed, N failed` and returns the exit code."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"check failed: {what}")
            if detail:
                print("    " + str(detail).rstrip("\n").replace("\n", "\n    "))
        return ok

    def check_eq(self, actual, expected, what):
        return self.check(actual == expected, what, f"actual:   {actual!r}\nexpected: {expected!r}")

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 and self.passed > 0 else 1


def run_gen(args, cwd, generator=GEN):
    """Run gen.py with the interpreter running this test; returns the CompletedProcess (text)."""
    return subprocess.run([sys.executable, str(generator), *map(str, args)], cwd=str(cwd),
                          capture_output=True, text=True)


def copy_spec(tmp):
    """Copy spec/*.yaml to TMP/spec and return that folder."""
    target = Path(tmp) / "spec"
    target.mkdir()
    for name in SPEC_FILES:
        shutil.copyfile(SPEC / name, target / name)
    shutil.copytree(SPEC / "shaders", target / "shaders")
    return target


def output_paths(out, generator=GEN):
    """The files gen.py writes under `out`, relative to it (from --list-outputs)."""
    run = run_gen(["--spec", SPEC, "--out", out, "--list-outputs"], ROOT, generator)
    if run.returncode != 0:
        raise RuntimeError(f"gen.py --list-outputs failed ({run.returncode}):\n{run.stderr}")
    return [os.path.relpath(p, Path(out).resolve()) for p in run.stdout.strip().split(";") if p]


def snapshot(folder):
    """Every file (path -> bytes) and every directory (path -> None) under `folder`."""
    result = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames:
            result[os.path.relpath(os.path.join(dirpath, name), folder) + "/"] = None
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as handle:
                result[os.path.relpath(path, folder)] = handle.read()
    return result


def describe_difference(before, after):
    lines = []
    for path in sorted(set(before) | set(after)):
        if path not in after:
            lines.append(f"removed: {path}")
        elif path not in before:
            lines.append(f"created: {path}")
        elif before[path] != after[path]:
            lines.append(f"changed: {path}")
    return "\n".join(lines)


# ---- The bad-spec case format (tests/spec/README.md) ----

class CaseError(Exception):
    """The case file itself is broken (not the spec it describes)."""


@dataclass
class Case:
    name: str
    description: str = ""
    file: str = ""
    expect: str = ""
    edits: list = field(default_factory=list)  # [(old, new)]
    contents: str | None = None                # whole new file
    remove: bool = False                       # delete the file


def _block(lines):
    while lines and not lines[-1].strip():
        lines.pop()
    return "".join(line + "\n" for line in lines)


def parse_case(path):
    path = Path(path)
    case = Case(path.stem)
    description, sections, current = [], [], None
    for raw in path.read_text(encoding="utf-8").split("\n"):
        if raw.startswith("@"):
            word, _, rest = raw[1:].partition(" ")
            if word in ("replace", "with", "contents"):
                current = [word, []]
                sections.append(current)
            elif word in ("file", "expect"):
                setattr(case, word, rest.strip() if word == "file" else rest)
                current = None
            elif word == "remove":
                case.remove = True
                current = None
            else:
                raise CaseError(f"{path}: unknown directive @{word}")
        elif current is not None:
            current[1].append(raw)
        elif not sections and raw.startswith("#"):
            description.append(raw.lstrip("#").strip())
        elif raw.strip():
            raise CaseError(f"{path}: text outside a block: {raw!r}")
    case.description = " ".join(d for d in description if d)
    if case.file not in SPEC_FILES and not SHADER_FILE.match(case.file):
        raise CaseError(f"{path}: @file must name one of {', '.join(SPEC_FILES)} or shaders/NAME.asm, "
                        f"not {case.file!r}")
    if not case.expect:
        raise CaseError(f"{path}: @expect is missing")
    pending = None
    for word, lines in sections:
        text = _block(lines)
        if word == "contents":
            case.contents = text
        elif word == "replace":
            if pending is not None:
                raise CaseError(f"{path}: @replace without @with")
            pending = text
        elif pending is None:
            raise CaseError(f"{path}: @with without @replace")
        else:
            case.edits.append((pending, text))
            pending = None
    if pending is not None:
        raise CaseError(f"{path}: @replace without @with")
    if sum(bool(x) for x in (case.edits, case.contents is not None, case.remove)) != 1:
        raise CaseError(f"{path}: give @replace/@with pairs, or @contents, or @remove")
    return case


def _line_starts(text, needle):
    """Offsets where `needle` occurs in `text` starting at the beginning of a line."""
    found, start = [], 0
    while True:
        at = text.find(needle, start)
        if at < 0:
            return found
        if at == 0 or text[at - 1] == "\n":
            found.append(at)
        start = at + 1


def apply_case(case, spec_dir):
    """Edit spec_dir/<case.file>; return the case's expected stderr line with {line...} resolved."""
    target = Path(spec_dir) / case.file
    first_line = 1
    if case.remove:
        target.unlink()
        text = ""
    elif case.contents is not None:
        text = case.contents
    else:
        text = target.read_text(encoding="utf-8")
        for index, (old, new) in enumerate(case.edits):
            where = _line_starts(text, old)
            if len(where) != 1:
                raise CaseError(f"@replace block {index + 1} occurs {len(where)} times (at line starts) in "
                                f"spec/{case.file}; it must occur exactly once")
            at = where[0]
            if index == 0:
                first_line = text.count("\n", 0, at) + 1
            text = text[:at] + new + text[at + len(old):]
    if not case.remove:
        target.write_text(text, encoding="utf-8")
    lines = text.split("\n")

    def resolve(match):
        offset, anchor = int(match.group(1) or 0), match.group(2)
        if anchor is None:
            return str(first_line + offset)
        hits = [i + 1 for i, line in enumerate(lines) if anchor in line]
        if len(hits) != 1:
            raise CaseError(f"{match.group(0)} matches {len(hits)} lines of the edited spec/{case.file}")
        return str(hits[0] + offset)

    return re.sub(r"\{line([+-]\d+)?(?::([^}]*))?\}", resolve, case.expect)

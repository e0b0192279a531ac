#!/usr/bin/env python3
"""Mutation fuzzer for the generator's spec loading (issue 12 item 3; docs/reliability.md "Fuzzing").

Each iteration copies spec/ to a temporary folder, mutates one YAML file (a line deleted, duplicated, swapped,
re-indented or cut; a token replaced by YAML syntax, a huge number, an anchor or alias, a recursive alias; bytes that
are not UTF-8; the file truncated) and runs every generator part's load and the rendering in process. The promise
(generator/gen.py): the spec loads, or loading raises SpecError whose text is one line `spec/<file>:<line>: ...`.
Anything else -- another exception, a traceback, a SpecError without a location, or a hang -- is a finding.

    fuzz_yaml.py --seed S --iterations N     deterministic: iteration i uses Random(S * 1000003 + i)
    fuzz_yaml.py --seconds T                 random seeds until T seconds are up (long runs)
Ends with `N passed, N failed` (tests/harness.h's convention); exit 1 on any finding.
"""
import argparse
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "generator"))

import gen  # noqa: E402
from loader import SpecError  # noqa: E402

LOCATED = re.compile(r"^spec/[A-Za-z0-9_.]+\.yaml:\d+: [^\n]*$")
TOKENS = ["", "-", "[", "]", "{", "}", ":", ": :", "0x", "0xZZ", "-1", "99999999999999999999999999", "1e9999",
          "null", "~", '"', "'", "&a", "*a", "*undefined", "!!binary AAAA", "!!python/object:os.system", "true",
          "? x", "- - -", "|", ">", "%YAML 1.1", "---", "...", "\t", "\\", "é", "\U0001F600", "&r [*r]",
          "<<: *a", "{a: 1, a: 2}", "[1, [2, [3, [4]]]]"]
FILES = None


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def mutate(text, rng):
    """One mutation of `text` (bytes), with a description."""
    lines = text.split(b"\n")
    i = rng.randrange(len(lines))
    kind = rng.randrange(9)
    if kind == 0:
        del lines[i]
        what = f"line {i + 1} deleted"
    elif kind == 1:
        lines.insert(i, lines[i])
        what = f"line {i + 1} duplicated"
    elif kind == 2 and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        what = f"lines {i + 1} and {i + 2} swapped"
    elif kind == 3:
        lines[i] = b"  " + lines[i] if rng.random() < 0.5 else lines[i][2:]
        what = f"line {i + 1} re-indented"
    elif kind in (4, 5):
        words = list(re.finditer(rb"[A-Za-z0-9_.]+", lines[i]))
        token = rng.choice(TOKENS).encode()
        if words:
            w = rng.choice(words)
            lines[i] = lines[i][:w.start()] + token + lines[i][w.end():]
        else:
            lines[i] = lines[i] + b" " + token
        what = f"line {i + 1}: a token replaced by {token!r}"
    elif kind == 6:
        cut = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:cut]
        what = f"line {i + 1} cut at {cut}"
    elif kind == 7:
        junk = bytes(rng.choice([0, 0xff, 0xc3, 0x80, 0x0b, 0x85, 0x22]) for _ in range(rng.randrange(1, 4)))
        at = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:at] + junk + lines[i][at:]
        what = f"line {i + 1}: bytes {junk!r} inserted"
    else:
        lines = lines[:i]
        what = f"truncated after line {i}"
    return b"\n".join(lines), what


def run_one(rng, workdir):
    spec = Path(workdir) / "spec"
    if spec.exists():
        shutil.rmtree(spec)
    shutil.copytree(ROOT / "spec", spec)
    name = rng.choice(FILES)
    target = spec / name
    text, what = mutate(target.read_bytes(), rng)
    target.write_bytes(text)
    signal.alarm(20)
    try:
        gen.render_all(str(spec), "spec", gen.PARTS)
        return None
    except SpecError as error:
        message = str(error)
        if LOCATED.match(message) and message.startswith(f"spec/"):
            return None
        return f"{name}: {what}: SpecError without a clean location: {message!r}"
    except Timeout:
        return f"{name}: {what}: no answer within 20 s"
    except Exception:  # noqa: BLE001 -- any other exception is the finding
        return f"{name}: {what}: traceback\n{traceback.format_exc()}"
    finally:
        signal.alarm(0)


def main():
    global FILES
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0)
    args = parser.parse_args()
    FILES = sorted(p.name for p in (ROOT / "spec").glob("*.yaml"))
    signal.signal(signal.SIGALRM, _alarm)
    passed = failed = 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="d12-fuzz-yaml-") as workdir:
        i = 0
        while (time.monotonic() - start < args.seconds) if args.seconds else i < args.iterations:
            seed = args.seed * 1000003 + i if not args.seconds else random.randrange(1 << 62)
            finding = run_one(random.Random(seed), workdir)
            if finding:
                failed += 1
                print(f"finding (seed {seed}): {finding}", file=sys.stderr)
            else:
                passed += 1
            i += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The command line every installed tool shares (docs/tools.md): one CTest test per tool and CASE.

  test_cli.py TOOL NAME VERSION HELP_SOURCE MAN_PAGE CASE [OPTION_WITH_VALUE]

  help        --help and -h: exit 0, stdout exactly tools/help/NAME.txt, nothing on stderr
  version     --version: exit 0, stdout exactly "NAME VERSION\\n" (the CMake project version)
  bad_option  an unknown long option, an unknown short one, and (OPTION_WITH_VALUE) a value-taking option
              without its value: exit 2, nothing on stdout, stderr names the option then the usage lines
  man         the built manual page is the page `NAME --help` makes (tools/help/manpage.py check), and groff
              reads it without a warning
"""
import shutil
import subprocess
import sys
from pathlib import Path

MANPAGE = Path(__file__).resolve().parents[2] / "tools" / "help" / "manpage.py"
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok or not detail else f"\n      {detail!r}"))
    failed += not ok


def run(tool, *args, stdin=None):
    return subprocess.run([tool, *args], capture_output=True, text=True, input=stdin, timeout=60)


def case_help(tool, name, version, source, man, extra):
    text = Path(source).read_text(encoding="utf-8")
    for flag in ("--help", "-h"):
        r = run(tool, flag)
        check(r.returncode == 0, f"{name} {flag}: exit 0", r.returncode)
        check(r.stdout == text, f"{name} {flag}: stdout is tools/help/{name}.txt", r.stdout[:300])
        check(r.stderr == "", f"{name} {flag}: nothing on stderr", r.stderr[:300])


def case_version(tool, name, version, source, man, extra):
    r = run(tool, "--version")
    check(r.returncode == 0, f"{name} --version: exit 0", r.returncode)
    check(r.stdout == f"{name} {version}\n", f"{name} --version prints '{name} {version}'", r.stdout)
    check(r.stderr == "", f"{name} --version: nothing on stderr", r.stderr[:300])


def case_bad_option(tool, name, version, source, man, extra):
    usage = Path(source).read_text(encoding="utf-8").split("\n\n", 1)[0] + "\n"
    cases = [(["--no-such-option"], "unknown option '--no-such-option'"), (["-Z"], "unknown option '-Z'")]
    if extra:
        cases.append(([extra], f"{extra} needs a value"))
    for args, message in cases:
        r = run(tool, *args)
        check(r.returncode == 2, f"{name} {' '.join(args)}: exit 2", r.returncode)
        check(r.stdout == "", f"{name} {' '.join(args)}: nothing on stdout", r.stdout[:300])
        check(r.stderr == f"{name}: {message}\n{usage}", f"{name} {' '.join(args)}: '{message}', then the usage lines",
              r.stderr[:400])


def case_man(tool, name, version, source, man, extra):
    help_text = run(tool, "--help").stdout
    r = subprocess.run([sys.executable, str(MANPAGE), "check", name, version, man], input=help_text,
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{name}.1 is the page `{name} --help` makes", r.stderr)
    page = Path(man).read_text(encoding="utf-8")
    check(page.count(".SH ") >= 4 and f".TH {name.upper()} 1 " in page, f"{name}.1: a section-1 page with sections")
    if shutil.which("groff"):
        g = subprocess.run(["groff", "-man", "-ww", "-z", man], capture_output=True, text=True)
        check(g.returncode == 0 and g.stderr == "", f"groff reads {name}.1 without a warning", g.stderr)


def main(argv):
    if len(argv) not in (7, 8):
        print(__doc__, file=sys.stderr)
        return 2
    tool, name, version, source, man, case = argv[1:7]
    globals()[f"case_{case}"](tool, name, version, source, man, argv[7] if len(argv) == 8 else "")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

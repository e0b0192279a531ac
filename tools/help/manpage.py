#!/usr/bin/env python3
"""One source per tool for `--help` and its manual page (docs/tools.md, "Help and manual pages").

tools/help/TOOL.txt is exactly what `TOOL --help` prints. This script turns it into

  header TOOL SRC OUT.h          the C strings TOOL_help (the whole text) and TOOL_usage (its first block, the
                                 usage lines, which a usage error prints on stderr)
  man TOOL VERSION SRC OUT.1     the section-1 manual page
  check TOOL VERSION MAN.1       reads `TOOL --help` on stdin and fails unless the page made from it is MAN.1

The text's shape (checked here: a text that does not follow it fails the build with file:line):
  - the first block (up to the first blank line): `usage: TOOL ...` then lines indented to line up (SYNOPSIS);
  - then description paragraphs (DESCRIPTION; its first sentence is the page's NAME line);
  - then sections: a heading line `Title:` at column 0, followed by items `  TERM  description` (two spaces
    before TERM, two or more after it), a description continued on lines indented by four or more, and plain
    paragraph lines at column 0. Blank lines separate paragraphs.
Standard library only (the build runs it with the generator's Python)."""
import re
import sys

HEADING = re.compile(r"^([A-Z][A-Za-z /-]*):$")
ITEM = re.compile(r"^  (\S(?:\S| (?! ))*)(?: {2,}(\S.*))?$")
CONTINUATION = re.compile(r"^ {4,}(\S.*)$")


class ShapeError(Exception):
    pass


def parse(text, name, path="<stdin>"):
    """(synopsis lines, description paragraphs, [(title, [entries])]); an entry is ('item', term, desc) or
    ('para', text)."""
    if not text.endswith("\n") or "\t" in text:
        raise ShapeError(f"{path}:1: the text must end with a newline and hold no tab")
    lines = text[:-1].split("\n")
    if not lines[0].startswith(f"usage: {name} ") and lines[0] != f"usage: {name}":
        raise ShapeError(f"{path}:1: the first line must start with 'usage: {name}'")
    i, synopsis = 0, []
    while i < len(lines) and lines[i]:
        line = lines[i]
        if i and not line.startswith(" " * len("usage: ") + name):
            raise ShapeError(f"{path}:{i + 1}: a usage line is indented to line up under the first: "
                             f"'       {name} ...'")
        synopsis.append(line[len("usage: "):] if i == 0 else line.strip())
        i += 1
    description, sections, paragraph = [], [], []

    def end_paragraph(target):
        if paragraph:
            target.append(" ".join(paragraph))
            paragraph.clear()

    while i < len(lines):
        line, number = lines[i], i + 1
        i += 1
        heading = HEADING.match(line)
        if heading:
            if not sections:
                end_paragraph(description)
            else:
                end_paragraph_into_section(sections, paragraph)
            sections.append((heading.group(1), []))
            continue
        if not sections:
            if not line:
                end_paragraph(description)
            elif line.startswith(" "):
                raise ShapeError(f"{path}:{number}: an indented line before the first 'Heading:' line")
            else:
                paragraph.append(line)
            continue
        entries = sections[-1][1]
        if not line:
            end_paragraph_into_section(sections, paragraph)
            continue
        continuation = CONTINUATION.match(line)
        if continuation:
            if paragraph or not entries or entries[-1][0] != "item":
                raise ShapeError(f"{path}:{number}: a continuation line (4+ spaces) must follow an item")
            kind, term, desc = entries[-1]
            entries[-1] = (kind, term, (desc + " " if desc else "") + continuation.group(1))
            continue
        item = ITEM.match(line)
        if item:
            end_paragraph_into_section(sections, paragraph)
            entries.append(("item", item.group(1), item.group(2) or ""))
            continue
        if line.startswith(" "):
            raise ShapeError(f"{path}:{number}: neither an item ('  TERM  description') nor a continuation")
        paragraph.append(line)
    if sections:
        end_paragraph_into_section(sections, paragraph)
    else:
        end_paragraph(description)
    if not description:
        raise ShapeError(f"{path}: no description paragraph after the usage lines")
    return synopsis, description, sections


def end_paragraph_into_section(sections, paragraph):
    if paragraph:
        sections[-1][1].append(("para", " ".join(paragraph)))
        paragraph.clear()


def roff(text):
    """Escape for roff: backslashes, hyphens (so options copy and search as typed), a leading . or '."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def first_sentence(paragraph):
    match = re.match(r"(.*?[.:])(?: |$)", paragraph)
    sentence = (match.group(1) if match else paragraph).rstrip(".:")
    return sentence[:1].lower() + sentence[1:]


def man_page(name, version, text, path="<stdin>"):
    synopsis, description, sections = parse(text, name, path)
    out = [f'.\\" Made from tools/help/{name}.txt by tools/help/manpage.py: edit that file, not this one.',
           f'.TH {name.upper()} 1 "" "d12rt {version}" "d12rt manual"',
           ".SH NAME", f"{name} \\- {roff(first_sentence(description[0]))}",
           ".SH SYNOPSIS", ".nf"]
    out += [roff(line) for line in synopsis]
    out += [".fi", ".SH DESCRIPTION"]
    for k, paragraph in enumerate(description):
        if k:
            out.append(".PP")
        out.append(roff(paragraph))
    for title, entries in sections:
        out.append(f".SH {title.upper()}")
        previous = None
        for entry in entries:
            if entry[0] == "item":
                out += [".TP", f"\\fB{roff(entry[1])}\\fR"]
                if entry[2]:
                    out.append(roff(entry[2]))
            else:
                if previous is not None:
                    out.append(".PP")
                out.append(roff(entry[1]))
            previous = entry[0]
    out.append(f'.SH VERSION\nThis page describes {name} of d12rt {version} ("{name} \\-\\-version").')
    return "\n".join(out) + "\n"


def c_string(text):
    body = text.replace("\\", "\\\\").replace('"', '\\"').split("\n")
    return "\n".join(f'    "{line}\\n"' for line in body[:-1]) or '    ""'


def header(name, text, path):
    parse(text, name, path)  # the shape is checked when the C strings are made too
    usage = text.split("\n\n", 1)[0] + "\n"
    return (f"/* Made from tools/help/{name}.txt by tools/help/manpage.py at build time: edit that file. */\n"
            f"static const char {name}_help[] =\n{c_string(text)};\n"
            f"static const char {name}_usage[] =\n{c_string(usage)};\n")


def write(path, content):
    try:
        with open(path, encoding="utf-8") as existing:
            if existing.read() == content:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as out:
        out.write(content)


def main(argv):
    try:
        if len(argv) == 5 and argv[1] == "header":
            with open(argv[3], encoding="utf-8") as source:
                write(argv[4], header(argv[2], source.read(), argv[3]))
        elif len(argv) == 6 and argv[1] == "man":
            with open(argv[4], encoding="utf-8") as source:
                write(argv[5], man_page(argv[2], argv[3], source.read(), argv[4]))
        elif len(argv) == 5 and argv[1] == "check":
            made = man_page(argv[2], argv[3], sys.stdin.read())
            with open(argv[4], encoding="utf-8") as page:
                installed = page.read()
            if made != installed:
                print(f"manpage.py: {argv[4]} is not the page `{argv[2]} --help` makes", file=sys.stderr)
                return 1
        else:
            print("usage: manpage.py header TOOL SRC OUT.h | man TOOL VERSION SRC OUT.1 | check TOOL VERSION MAN.1",
                  file=sys.stderr)
            return 2
    except ShapeError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""YAML loading that remembers where every value came from.

Every mapping and sequence is loaded as a `Node` subclass that carries the file and line of each key/item,
so a schema or consistency error can say `file:line: key.path: what is wrong`.
"""
import yaml


class SpecError(Exception):
    """One problem in a spec file, located: `file:line: key.path: message`."""

    def __init__(self, file, line, path, message):
        super().__init__(f"{file}:{line}: {path}: {message}")
        self.file, self.line, self.path, self.message = file, line, path, message


class Located(dict):
    """A YAML mapping; `.lines[key]` is the 1-based line of each key, `.line` the mapping's own line."""

    file = "?"
    line = 0

    def line_of(self, key):
        return self.lines.get(key, self.line)


class LocatedList(list):
    """A YAML sequence; `.lines[i]` is the 1-based line of item i."""

    file = "?"
    line = 0

    def line_of(self, index):
        return self.lines[index] if index < len(self.lines) else self.line


def _join(path, segment):
    if isinstance(segment, int):
        return f"{path}[{segment}]"
    return f"{path}.{segment}" if path else str(segment)


def _make_loader(file):
    class Loader(yaml.SafeLoader):
        """Builds Located/LocatedList nodes; `path` is the key path of the node being constructed, so a
        duplicate key can be named in full."""
        path = ""

    def construct_mapping(loader, node):
        result = Located()
        result.file, result.line, result.lines = file, node.start_mark.line + 1, {}
        outer = loader.path
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, (dict, list)):  # `? {a: 1}: x` is YAML, but no spec key (and unhashable)
                raise SpecError(file, line, _join(outer, "?"), "a key must be a scalar, not a mapping or sequence")
            if key in result:
                raise SpecError(file, line, _join(outer, key), "duplicate key")
            loader.path = _join(outer, key)
            result[key] = loader.construct_object(value_node, deep=True)
            loader.path = outer
            result.lines[key] = line
        return result

    def construct_sequence(loader, node):
        outer, items = loader.path, []
        for index, child in enumerate(node.value):
            loader.path = _join(outer, index)
            items.append(loader.construct_object(child, deep=True))
        loader.path = outer
        result = LocatedList(items)
        result.file, result.line = file, node.start_mark.line + 1
        result.lines = [child.start_mark.line + 1 for child in node.value]
        return result

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, construct_sequence)
    return Loader


def load(path, display_name=None):
    """Load one YAML file into Located/LocatedList nodes. Syntax errors become SpecError."""
    name = display_name or str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise SpecError(name, 0, "(file)", f"cannot read: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:  # found by tests/fuzz/fuzz_yaml.py: a traceback before
        line = raw[:error.start].count(b"\n") + 1
        raise SpecError(name, line, "(file)", f"not UTF-8: byte 0x{raw[error.start]:02X}") from None
    try:
        data = yaml.load(text, Loader=_make_loader(name))  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 0
        raise SpecError(name, line, "(syntax)", str(error.problem or error)) from None
    except yaml.reader.ReaderError as error:  # a control character YAML refuses (fuzz_yaml.py)
        line = text[:error.position].count("\n") + 1
        raise SpecError(name, line, "(syntax)", f"unacceptable character #x{error.character:04x}") from None
    except yaml.YAMLError as error:
        raise SpecError(name, 0, "(syntax)", " ".join(str(error).split())) from None
    if data is None:
        raise SpecError(name, 1, "(file)", "empty file")
    return data

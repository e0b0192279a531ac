#!/usr/bin/env python3
"""docs/dred-report.schema.json against the golden reports (python3-jsonschema, JSON Schema draft 2020-12).

    check_schema.py SCHEMA GOLDEN_DIR      every golden JSON validates; the schema itself is valid; and edits the
                                           reader refuses are refused by the schema too (so it is not vacuous)
    check_schema.py SCHEMA FILE.json ...   validate reports (e.g. one written by the runtime)
Ends with `N passed, N failed`.
"""
import copy
import json
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is missing (apt-get install python3-jsonschema; it is in .ci/packages)",
          file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"check failed: {what}", file=sys.stderr)


def errors(validator, document):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


# Edits of a valid report that must make it invalid: (what, function editing the document in place).
def set_key(path, value):
    def edit(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def drop_key(path):
    def edit(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return edit


NEGATIVE = [
    ("schema_version 2", set_key(["schema_version"], 2)),
    ("missing reason", drop_key(["reason"])),
    ("unknown top-level key", set_key(["extra"], 1)),
    ("hresult not hex", set_key(["reason", "hresult"], "887a0006")),
    ("device_state value negative", set_key(["device_state", "value"], -1)),
    ("feature not a bool", set_key(["features", "page_fault"], 1)),
    ("queues not an array", set_key(["queues"], {})),
    ("bad submission status", set_key(["queues", 0, "submissions", 0, "status"], "running")),
    ("op attribution unknown", set_key(["nodes", 0, "ops", 0, "attribution"], "maybe")),
    ("op index a string", set_key(["nodes", 0, "ops", 0, "index"], "0")),
    ("page fault va uppercase", set_key(["page_fault", "va"], "0xABC")),
    ("verdict unknown", set_key(["page_fault", "verdict"], "dangling")),
    ("timestamp not ISO 8601", set_key(["timestamp"], "yesterday")),
    ("count above uint32", set_key(["nodes", 0, "breadcrumb_count"], 4294967296)),
]


def main(argv):
    schema_path, targets = Path(argv[1]), [Path(a) for a in argv[2:]]
    schema = json.loads(schema_path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    check(True, "the schema is a valid draft 2020-12 schema")
    validator = jsonschema.Draft202012Validator(schema)
    files = []
    for target in targets:
        files += sorted(target.glob("*.json")) if target.is_dir() else [target]
    check(len(files) > 0, "reports to validate")
    for path in files:
        document = json.loads(path.read_text(encoding="utf-8"))
        problems = errors(validator, document)
        check(not problems, f"{path.name} validates: {problems[:3]}")
        print(f"{path.name}: {'valid' if not problems else 'INVALID'}")
    base = next((p for p in files if p.name == "page_fault_exact.json"), None)
    if base is not None:
        document = json.loads(base.read_text(encoding="utf-8"))
        for what, edit in NEGATIVE:
            edited = copy.deepcopy(document)
            edit(edited)
            check(bool(errors(validator, edited)), f"the schema refuses: {what}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

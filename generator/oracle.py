"""An independent oracle for capability clamping, written from docs/clamping.md.

It reads only the typed spec model (model.py) and applies the rules of docs/clamping.md directly, in plain
Python, so that the exhaustive tests (templates/caps_exhaustive.c.j2 -> generated/tests/caps_exhaustive_cases.c)
compare the C library (runtime/caps/d12caps.c + generated tables) against a second, separately written reading
of the rules. It deliberately shares no code or data layout with the C side.

Section numbers below refer to docs/clamping.md.
"""
from dataclasses import dataclass

STATUS_OK = "D12_CAPS_OK"
STATUS_TOO_NEW = "D12_CAPS_VERSION_TOO_NEW"
STATUS_UNKNOWN_FEATURE = "D12_CAPS_UNKNOWN_FEATURE"
STATUS_BAD_SIZE = "D12_CAPS_BAD_SIZE"
STATUS_BAD_INPUT = "D12_CAPS_BAD_INPUT"

FLAVORS = ("retail", "preview")
# SDK numbers that no SDK shipped, requested by the exhaustive cases on top of every listed one (section 1:
# "Numbers that no SDK shipped (609, 5, 0 ...) are accepted and compared like any other"; 0 and 3 bound the
# numbers older than every SDK, which read as the oldest one).
UNLISTED_VERSIONS = (0, 3, 5, 609, 701, 718)
# Flag bits the unknown-bit probe may use: never bit 31, so every 4-byte value stays positive as an int32.
_HIGHEST_PROBE_BIT = 30


@dataclass(frozen=True)
class Resolved:
    """A requested SDK version after resolution (section 1)."""
    status: str
    requested: int
    number: int
    line: str

    def __iter__(self):  # (status, number, line), as resolve() is documented to return
        return iter((self.status, self.number, self.line))


@dataclass(frozen=True)
class Case:
    """One exhaustive case: a clamped field holding `true_value`, queried at `requested` on a `flavor` runtime."""
    feature: object
    layout: object
    field: object
    flavor: str
    requested: int
    true_value: int
    status: str
    number: int
    line: str
    expected: int | None  # the value the field reads as; None unless status is OK


class Oracle:
    def __init__(self, model):
        self.model = model
        self.sdk = model.sdk
        self.feature_enum = model.enums.get("D3D12_FEATURE")
        self.level_enum = model.enums.get("D3D_FEATURE_LEVEL")

    # ---- Section 1: versions and lines ----

    def line_of(self, number):
        return "preview" if number >= self.sdk.preview_first else "retail"

    def runtime_version(self, flavor):
        return self.sdk.runtime[flavor]

    def resolve(self, flavor, requested):
        """(status, number, line): a retail runtime maps exactly its preview number to its retail one; anything
        above the runtime's own version afterwards is too new."""
        number = requested
        if flavor == "retail" and requested == self.sdk.runtime["preview"]:
            number = self.sdk.runtime["retail"]
        status = STATUS_TOO_NEW if number > self.runtime_version(flavor) else STATUS_OK
        line = self.line_of(number)
        # A number older than every SDK of its line (retail 0 ... 3) reads as the oldest SDK (issue 17 item 2).
        oldest = min(n for n, _ in self.sdk.lines[line].versions)
        return Resolved(status, requested, max(number, oldest), line)

    def legacy_version(self, flavor):
        """Section 5: the version just before CheckFeatureSupport1 on the runtime's line."""
        line = self.line_of(self.runtime_version(flavor))
        cut = self.sdk.cfs1[line]
        earlier = [n for n, _ in self.sdk.lines[line].versions if n < cut]
        number = earlier[-1] if earlier else cut - 1
        return Resolved(STATUS_OK, number, number, line)

    # ---- Section 2: protected values ----

    def is_protected(self, enum, number, line):
        """Unprotected when any entry of that number first appeared, on either line, before CheckFeatureSupport1
        came to that line (it already shipped); protected otherwise, including a number that was never a value of
        the enum. `line` (the caller's) does not matter: shipping on the other line counts too."""
        for entry in enum.values:
            if entry.value != number:
                continue
            for each_line, presence in entry.presence.items():
                if presence.first is not None and presence.first < self.sdk.cfs1[each_line]:
                    return False
        return True

    @staticmethod
    def exists(enum, number, version, line):
        """Whether `number` is a value of `enum` at `version` on `line` (first <= version < stop)."""
        for v in enum.values:
            p = v.presence[line]
            if v.value == number and p.first is not None and p.first <= version and (p.stop is None or version < p.stop):
                return True
        return False

    def _visible(self, enum, number, version, line):
        return not self.is_protected(enum, number, line) or self.exists(enum, number, version, line)

    # ---- Section 3: per field kind ----

    def clamp_value(self, kind, enum, true_value, resolved, requested_levels=None):
        """What a field of `kind` over `enum` holding `true_value` reads as at `resolved` (number, line)."""
        version, line = resolved.number, resolved.line
        t = true_value
        if kind in ("tier", "shader_model", "root_signature_version"):
            # The highest value at or below t that the caller may see (issue 8 item 4: monotonic in t).
            if self._visible(enum, t, version, line):
                return t
            lower = [v.value for v in enum.values if v.value <= t and self._visible(enum, v.value, version, line)]
            return max(lower) if lower else 0
        if kind == "flags":
            if t < 0:
                raise ValueError(f"negative flags value {t}")
            kept, bit = 0, 1
            while bit <= t:
                if t & bit and self._visible(enum, bit, version, line):
                    kept |= bit
                bit <<= 1
            return kept
        if kind == "feature_level":
            # Levels are numbers (issue 17 item 5): one the enum never had is visible when the caller requested it.
            requested = list(requested_levels or ())

            def visible(level):
                if all(v.value != level for v in enum.values):
                    return level in requested
                return self._visible(enum, level, version, line)
            if visible(t):
                return t
            lower = [r for r in requested if r <= t and visible(r)]
            return max(lower) if lower else 0
        return t  # bool, integer, input, inout, opaque: never changed

    def input_known(self, enum, number, flavor):
        """In/out inputs: a value the runtime knows at its own version, never 0 (section 3)."""
        version = self.runtime_version(flavor)
        return number != 0 and self.exists(enum, number, version, self.line_of(version))

    # ---- Section 4: sizes ----

    def feature_exists(self, feature, resolved):
        if self.feature_enum is None:
            return False
        return any(v.name == feature.name and v.value == feature.value
                   and self.exists(self.feature_enum, v.value, resolved.number, resolved.line)
                   for v in self.feature_enum.values)

    def check_size(self, feature, size, resolved):
        """The layout of `feature` with `size` bytes available at `resolved` or before on its line, or None."""
        if not feature.supported or not self.feature_exists(feature, resolved):
            return None
        for layout in feature.layouts:
            first = layout.presence[resolved.line]
            if layout.size == size and first is not None and first <= resolved.number:
                return layout
        return None

    def query_status(self, feature, size, resolved):
        if not feature.supported:
            return STATUS_UNKNOWN_FEATURE
        return STATUS_OK if self.check_size(feature, size, resolved) is not None else STATUS_BAD_SIZE

    # ---- Exhaustive cases ----

    def case_versions(self):
        """Every listed SDK version of both lines, the unlisted probes, the runtimes' versions + 1 and the
        versions just below CheckFeatureSupport1; increasing."""
        numbers = {n for line in self.sdk.lines.values() for n, _ in line.versions}
        numbers |= set(UNLISTED_VERSIONS)
        numbers |= {self.sdk.runtime[f] + 1 for f in FLAVORS}
        numbers |= {self.sdk.cfs1[line] - 1 for line in self.sdk.cfs1}
        return sorted(numbers)

    def probe_values(self, field):
        """The true values a clamped field is tried with."""
        enum = field.enum
        numbers = sorted({v.value for v in enum.values})
        if field.kind == "flags":
            bits = sorted({n for n in numbers if n > 0 and n & (n - 1) == 0})
            all_bits = 0
            for b in bits:
                all_bits |= b
            unknown = next((1 << i for i in range(_HIGHEST_PROBE_BIT, -1, -1) if not all_bits & (1 << i)), None)
            values = bits + ([all_bits] if all_bits not in bits else [])
            if unknown is not None:
                values.append(unknown)
            return values
        # Every value, a number just above each (never a value: protected) so the rule is probed between the
        # values too, and one above them all.
        return sorted(set(numbers) | {n + 1 for n in numbers})

    def requested_levels(self):
        """The caller's pFeatureLevelsRequested for FEATURE_LEVEL fields: every value of D3D_FEATURE_LEVEL."""
        if self.level_enum is None:
            return []
        seen = []
        for v in self.level_enum.values:
            if v.value not in seen:
                seen.append(v.value)
        return seen

    def cases(self):
        """Every clamped field x every probe value x every version x both runtime flavors."""
        levels = self.requested_levels()
        for feature, layout, field in self.model.clamped_fields():
            for flavor in FLAVORS:
                for requested in self.case_versions():
                    resolved = self.resolve(flavor, requested)
                    status = resolved.status
                    if status == STATUS_OK:
                        status = self.query_status(feature, layout.size, resolved)
                    for t in self.probe_values(field):
                        expected = None
                        if status == STATUS_OK:
                            expected = self.clamp_value(field.kind, field.enum, t, resolved, levels)
                        yield Case(feature, layout, field, flavor, requested, t, status, resolved.number,
                                   resolved.line, expected)

    # ---- Monotonicity (section 3, issue 8 item 4) ----

    def check_monotonic(self, field, probes, results, where):
        """A better GPU never reads as less: for ordered kinds the result is non-decreasing in the true value and
        never above it; for flags a subset of the true bits reads as a subset of what the superset reads as."""
        pairs = list(zip(probes, results))
        if field.kind == "flags":
            for t, r in pairs:
                if r & ~t:
                    raise ValueError(f"{where}: flags {t:#x} read as {r:#x}, a bit the GPU lacks")
            for (a, ra) in pairs:
                for (b, rb) in pairs:
                    if a & ~b == 0 and ra & ~rb:
                        raise ValueError(f"{where}: flags {a:#x} read as {ra:#x}, but more bits {b:#x} as {rb:#x}")
            return
        previous = None
        for t, r in sorted(pairs):
            if r > t:
                raise ValueError(f"{where}: true {t} reads as {r}, above itself")
            if previous is not None and r < previous[1]:
                raise ValueError(f"{where}: true {previous[0]} reads as {previous[1]} but a better {t} as {r}")
            previous = (t, r)

    # ---- Legacy CheckFeatureSupport (section 5, issue 8 item 3) ----

    def legacy_status(self, feature, size, flavor):
        """Legacy CheckFeatureSupport answers as CheckFeatureSupport1 at the pinned level would: a feature or
        struct size that did not exist there is rejected (E_INVALIDARG), as the runtime of that level rejected a
        D3D12_FEATURE it did not know."""
        if feature is None or not feature.supported:
            return STATUS_UNKNOWN_FEATURE
        return self.query_status(feature, size, self.legacy_version(flavor))

    def legacy_table(self):
        """Every D3D12_FEATURE number the spec has ever named (and a few it never did) x every size its layouts
        have had (and two no layout has) x both flavors: the legacy status and the pinned level."""
        numbers = set()
        if self.feature_enum is not None:
            numbers |= {v.value for v in self.feature_enum.values}
        numbers |= {f.value for f in self.model.features.values()}
        numbers |= {max(numbers) + 1, max(numbers) + 100, 0xFFFF}
        by_value = {f.value: f for f in self.model.features.values()}
        rows = []
        for flavor in FLAVORS:
            pinned = self.legacy_version(flavor)
            for number in sorted(numbers):
                feature = by_value.get(number)
                sizes = sorted({layout.size for layout in feature.layouts}) if feature else []
                probes = sizes + [0, (max(sizes) + 4) if sizes else 4]
                for size in probes:
                    status = self.legacy_status(feature, size, flavor)
                    rows.append({"flavor": flavor, "feature": number, "size": size, "status": status,
                                 "pinned": pinned.number,
                                 "name": feature.name if feature else f"D3D12_FEATURE {number}"})
        return rows

    def exhaustive_table(self):
        """The cases grouped for a compact C table (templates/caps_exhaustive.c.j2).

        groups:   one per clamped (feature, layout, field): numbers, the probe values (a slice of `values`) and the
                  offsets of the layout's other clamped fields, which the runner zeroes (0 always reads as 0);
        versions: one per (flavor, requested version), with the resolution;
        rows:     one per (group, version): the status and, when OK, where the expected values start in
                  `expected` (one per probe value of the group, in the same order).
        """
        levels = self.requested_levels()
        versions = []
        for flavor in FLAVORS:
            for requested in self.case_versions():
                r = self.resolve(flavor, requested)
                versions.append({"flavor": flavor, "requested": requested, "status": r.status, "number": r.number,
                                 "line": r.line, "resolved": r})
        groups, values, rows, expected, quiet = [], [], [], [], []
        case_count = 0
        for feature, layout, field in self.model.clamped_fields():
            if field.size != 4 or field.count != 1:
                raise ValueError(f"{feature.name}.{field.name}: clamped fields are 4-byte scalars")
            probes = self.probe_values(field)
            others = [f for f in layout.fields if f.clamped and f is not field]
            group = {"index": len(groups), "feature": feature, "layout": layout, "field": field,
                     "value_first": len(values), "value_count": len(probes),
                     "quiet_first": len(quiet), "quiet_count": len(others)}
            values.extend(probes)
            quiet.extend(f.offset for f in others)
            groups.append(group)
            for vi, version in enumerate(versions):
                resolved = version["resolved"]
                status = version["status"]
                if status == STATUS_OK:
                    status = self.query_status(feature, layout.size, resolved)
                row = {"group": group["index"], "version": vi, "status": status, "expected_first": 0}
                if status == STATUS_OK:
                    row["expected_first"] = len(expected)
                    results = [self.clamp_value(field.kind, field.enum, t, resolved, levels) for t in probes]
                    self.check_monotonic(field, probes, results,
                                         f"{feature.name}.{field.name} {version['flavor']} SDK {version['requested']}")
                    expected.extend(results)
                    for other in others:  # the runner's zeroed neighbours must stay zero
                        if self.clamp_value(other.kind, other.enum, 0, resolved, levels) != 0:
                            raise ValueError(f"{feature.name}.{other.name}: 0 does not read as 0 at {resolved}")
                rows.append(row)
                case_count += len(probes)
        return {"groups": groups, "values": values, "versions": versions, "rows": rows, "expected": expected,
                "quiet": quiet, "levels": levels, "case_count": case_count}


__all__ = ["Oracle", "Resolved", "Case", "STATUS_OK", "STATUS_TOO_NEW", "STATUS_UNKNOWN_FEATURE",
           "STATUS_BAD_SIZE", "STATUS_BAD_INPUT"]

"""Cross-check the spec against the installed DirectX-Headers, and work out what our headers must supply.

The installed headers are a retail header set (D3D12_SDK_VERSION, e.g. 606). For every capability enum and
feature struct the spec describes:
- a value present at that retail version must be declared with the same number, and one declared there must be
  present in the spec at that version (so the spec's history cannot drift from a real header);
- a feature struct present at that version must have the spec's fields, in order, with the same C types.
Everything else the spec has (later values, features, structs) is "missing" and emitted by our headers.
"""
from dataclasses import dataclass, field as dc_field

from loader import SpecError


@dataclass
class Supplement:
    """What the generated header must declare because the installed headers lack it."""
    headers_sdk: int
    headers_preview: int
    whole_enums: list = dc_field(default_factory=list)      # EnumDef, with the values to declare
    enum_values: list = dc_field(default_factory=list)      # (EnumDef, EnumValue) on a declared enum
    parameter_enums: list = dc_field(default_factory=list)  # names, typedef'd to UINT
    aggregates: list = dc_field(default_factory=list)       # Aggregate
    structs: list = dc_field(default_factory=list)          # (Feature, newest Layout)
    forward_structs: list = dc_field(default_factory=list)  # pointer targets declared nowhere
    declared_structs: set = dc_field(default_factory=set)   # feature structs the headers declare


def _error(where, message):
    file, line, path = where
    return SpecError(file, line, path, message)


def _check_enums(model, headers, version, errors):
    for enum in model.enum_list():
        declared = headers.enums.get(enum.c_type)
        for value in enum.values:
            present = value.presence["retail"].at(version)
            in_header = value.name in headers.enumerators
            if in_header:
                owner, number = headers.enumerators[value.name]
                if owner != enum.c_type:
                    errors.append(_error(value.where, f"the installed headers declare {value.name} in {owner}"))
                elif number != value.value and present:
                    errors.append(_error(value.where, f"{value.name} is {value.value} here but {number} in the "
                                                      f"installed headers (SDK {version})"))
                elif not present and number == value.value:
                    errors.append(_error(value.where, f"{value.name} is not present at retail {version} here, "
                                                      f"but the installed headers (SDK {version}) declare it"))
            elif present:
                errors.append(_error(value.where, f"{value.name} is present at retail {version} here, but the "
                                                  f"installed headers (SDK {version}) do not declare it"))
        if declared is not None:
            spec_names = {v.name for v in enum.values if v.presence["retail"].at(version)}
            for name in declared:
                if name not in spec_names and not any(v.name == name for v in enum.values):
                    errors.append(_error(enum.values[0].where,
                                         f"the installed headers declare {name} = {declared[name]} in {enum.c_type}, "
                                         "which the spec lacks"))


def _check_structs(model, headers, version, errors, supplement):
    for feature in model.feature_list():
        if not feature.supported:
            continue
        at_version = [l for l in feature.layouts if l.presence["retail"] is not None
                      and l.presence["retail"] <= version]
        declared = headers.structs.get(feature.struct)
        if declared is None:
            if at_version:
                errors.append(_error(feature.where, f"{feature.struct} exists at retail {version} here, but the "
                                                    "installed headers do not declare it"))
            continue
        supplement.declared_structs.add(feature.struct)
        if not at_version:
            errors.append(_error(feature.where, f"the installed headers (SDK {version}) declare {feature.struct}, "
                                                f"which the spec does not have at retail {version}"))
            continue
        layout = at_version[-1]
        spec_fields = [(f.name, _normalize(f.c_type)) for f in layout.fields]
        header_fields = [(name, _normalize(text)) for name, text in declared]
        if spec_fields != header_fields:
            errors.append(_error(feature.where, f"{feature.struct} fields differ from the installed headers: spec "
                                                f"{_show(spec_fields)}, headers {_show(header_fields)}"))
        if layout is not feature.layouts[-1]:
            errors.append(_error(feature.where, f"{feature.struct}: the installed headers declare layout "
                                                f"{feature.layouts.index(layout)}, not the newest one"))


def _normalize(text):
    return " ".join(text.replace("*", " * ").split())


def _show(fields):
    return ", ".join(f"{name}: {c_type}" for name, c_type in fields)


def _supplement(model, headers, supplement):
    for enum in model.enum_list():
        current = [v for v in enum.values if v.current and v.alias_of is None]
        if enum.c_type not in headers.enums:
            if current:  # an enum whose every value was removed (COOPERATIVE_VECTOR_TIER) is declared nowhere
                supplement.whole_enums.append((enum, current))
        else:
            supplement.enum_values.extend((enum, v) for v in current if v.name not in headers.enumerators)
    supplement.parameter_enums = [n for n in model.parameter_enums if n not in headers.typedefs]
    pointer_targets = set()
    for feature in model.feature_list():
        if feature.supported and feature.struct not in supplement.declared_structs:
            layout = feature.layouts[-1]
            supplement.structs.append((feature, layout))
            for f in layout.fields:
                if f.c_type.endswith("*"):
                    pointer_targets.add(f.c_type.replace("const", "").replace("*", "").strip())
    inline = {f.c_type for _, layout in supplement.structs for f in layout.fields if f.anonymous}
    supplement.aggregates = [a for a in model.aggregates.values()
                             if a.name not in headers.typedefs and a.name not in inline]
    known = headers.typedefs | set(model.aggregates) | set(model.scalars) | {"void"}
    supplement.forward_structs = sorted(t for t in pointer_targets if t not in known and t not in model.enums)


def cross_check(model, headers):
    """Return (errors, supplement). Errors are SpecError located in the spec."""
    errors, supplement = [], Supplement(headers.sdk_version, headers.preview_sdk_version)
    version = headers.sdk_version
    if version not in [n for n, _ in model.sdk.lines["retail"].versions]:
        errors.append(_error(model.sdk.where,
                             f"the installed headers' D3D12_SDK_VERSION {version} is not a retail version here"))
        return errors, supplement
    _check_enums(model, headers, version, errors)
    _check_structs(model, headers, version, errors, supplement)
    _supplement(model, headers, supplement)
    return errors, supplement

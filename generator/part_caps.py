"""Part `caps`: the capability history and feature structs (spec/sdk.yaml, enums.yaml, features.yaml, types.yaml)
-> libd12caps' header and tables, the exhaustive clamp cases and docs/capabilities.md."""
import crosscheck
import headers
import model as spec_model
import oracle

NAME = "caps"
FILES = spec_model.SPEC_FILES
# (template, path under --out, comment style of the banner)
OUTPUTS = (
    ("caps_spec.h.j2", "generated/caps/d12caps_spec.h", "c"),
    ("caps_tables.c.j2", "generated/caps/d12caps_tables.c", "c"),
    ("caps_exhaustive.c.j2", "generated/tests/caps_exhaustive_cases.c", "c"),
    ("caps_legacy.c.j2", "generated/tests/caps_legacy_cases.c", "c"),
    ("capabilities.md.j2", "docs/capabilities.md", "md"),
)


def load(spec_dir, spec_display, context):
    """Load and cross-check the caps spec; add `model`, `supplement`, `oracle` and `headers` to the context."""
    model = spec_model.load_model(spec_dir, spec_display)
    installed = headers.parse_installed()
    errors, supplement = crosscheck.cross_check(model, installed)
    if errors:
        raise errors[0]
    context.update(model=model, supplement=supplement, oracle=oracle.Oracle(model), headers=installed)

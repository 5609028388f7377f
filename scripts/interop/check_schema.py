"""Checks the published schema, crates/ag-ui-schema/schema/ag-ui.schema.json, with two real
Python consumers.

1. python-jsonschema (Draft202012Validator) validates every case of fixtures/ and reaches
   the verdicts the Rust tests of ag-ui-schema reach (the same as check-schema.mjs):
   valid cases accepted as their definition (by anchor), their union and, for events, the
   root; invalid cases rejected, with the keyword the .expect.json names reported at its
   instance location (an unknown tag: the union's `oneOf` at the object holding the tag);
   forgiving inputs accepted exactly when every warning is one the schema allows, their
   outputs accepted; round-trip `expected` documents accepted.
2. datamodel-code-generator generates pydantic v2 models from the file without errors; the
   generated module imports, has a class for every definition, and its root model accepts
   every valid event of the corpus (and its RunAgentInput every valid request).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from jsonschema import Draft202012Validator

from check_fixtures import is_event, load_cases, schema_verdict, union_of

HERE = Path(__file__).resolve().parent
SCHEMA_DIR = HERE.parent.parent / "crates" / "ag-ui-schema" / "schema"
# The published schemas, one per protocol version; each judges the cases its version knows.
SCHEMAS = {(1, 0): SCHEMA_DIR / "ag-ui.schema.json", (1, 1): SCHEMA_DIR / "ag-ui-1.1.schema.json"}
BUNDLES = {v: json.loads(f.read_text(encoding="utf-8")) for v, f in SCHEMAS.items()}
FILE = SCHEMAS[(1, 0)]
BUNDLE = BUNDLES[(1, 0)]
TAGS = {
    "Event": "type",
    "Message": "role",
    "ContentPart": "type",
    "PartSource": "type",
    "RunFinishedOutcome": "type",
    "SubagentFinishedOutcome": "type",
    "JsonPatchOperation": "op",
}

for _bundle in BUNDLES.values():
    Draft202012Validator.check_schema(_bundle)
_validators: dict[tuple[tuple[int, int], str], Draft202012Validator] = {}


def validator(version: tuple[int, int], target: str) -> Draft202012Validator:
    """A validator of one definition of the schema of `version`, addressed by its anchor
    ("" = the root)."""
    if (version, target) not in _validators:
        doc = copy.deepcopy(BUNDLES[version])
        if target:
            doc["$ref"] = f"#{target}"
        _validators[(version, target)] = Draft202012Validator(doc)
    return _validators[(version, target)]


def targets(d: str) -> list[str]:
    if d == "Event":
        return [""]
    out = [d]
    u = union_of(d)
    if u:
        out.append(u)
    if is_event(d):
        out.append("")
    return out


def pointer(path) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def flatten(errors):
    for e in errors:
        yield e
        yield from flatten(e.context or [])


def expected(expect: dict, d: str, target: str) -> tuple[str, str, str | None]:
    keyword, ptr = expect.get("keyword"), expect["pointer"]
    if keyword == "oneOf" and expect["rule"] in ("tag", "event-type", "legacy-event"):
        ptr = ptr[: ptr.rfind("/")] if "/" in ptr else ""
    union = "Event" if target == "" else target
    if target != d and keyword == "const" and ptr == f"/{TAGS.get(union)}":
        return ("oneOf", "", None)
    return (keyword, ptr, expect.get("property"))


def reported(errors, want) -> bool:
    keyword, ptr, prop = want
    for e in flatten(errors):
        if e.validator != keyword or pointer(e.absolute_path) != ptr:
            continue
        if keyword == "required" and e.message != f"{prop!r} is a required property":
            continue
        return True
    return False


def check_fixtures() -> tuple[int, list[str]]:
    checks, failures = 0, []
    for version, file in SCHEMAS.items():
        for c in load_cases():
            if c["protocol"] > version:
                continue
            checks, failures = check_case(c, version, file.name, checks, failures)
    return checks, failures


def check_case(c: dict, version: tuple[int, int], name: str, checks: int,
               failures: list[str]) -> tuple[int, list[str]]:
    """Checks case `c` against the schema of `version` (published as `name`)."""
    verdict = schema_verdict(c)
    for t in targets(c["def"]):
        label = f"{c['path']} as {t or 'the root'} ({name})"
        v = validator(version, t)
        if verdict is not None:
            errors = list(v.iter_errors(c["input"]))
            ok = not errors
            checks += 1
            if ok != (verdict == "accept"):
                failures.append(f"{label}: {'accepted' if ok else 'rejected'}, expected {verdict}: "
                                f"{[e.message for e in errors[:3]]}")
            if c["kind"] == "invalid" and not ok:
                want = expected(c["expect"], c["def"], t)
                checks += 1
                if not reported(errors, want):
                    failures.append(f"{label}: no {want[0]} at {want[1]!r}")
        normalized = c.get("output") if c["kind"] == "forgiving" else c.get("expected")
        if normalized is not None:
            checks += 1
            errors = list(v.iter_errors(normalized))
            if errors:
                failures.append(f"{label} (normalized): {[e.message for e in errors[:3]]}")
    return checks, failures


def check_codegen() -> tuple[int, list[str]]:
    checks, failures = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ag_ui_models.py"
        codegen = Path(sys.executable).with_name("datamodel-codegen")
        run = subprocess.run(
            [str(codegen), "--input", str(FILE), "--input-file-type", "jsonschema",
             "--output-model-type", "pydantic_v2.BaseModel", "--formatters", "black", "isort",
             "--output", str(out)],
            capture_output=True, text=True, check=False,
        )
        checks += 1
        if run.returncode != 0:
            return checks, [f"datamodel-codegen failed ({run.returncode}): {run.stderr[-2000:]}"]
        spec = importlib.util.spec_from_file_location("ag_ui_models", out)
        models = importlib.util.module_from_spec(spec)
        sys.modules["ag_ui_models"] = models
        spec.loader.exec_module(models)
        for name in BUNDLE["$defs"]:
            checks += 1
            if not hasattr(models, name):
                failures.append(f"generated models lack {name}")
        # The root model is named after the bundle's title, "AG-UI 1.0".
        root = getattr(models, "AgUi10", None)
        checks += 1
        if root is None:
            return checks, failures + ["generated models lack the root model AgUi10"]
        for c in load_cases():
            # The generated models are those of the 1.0 schema.
            if c["protocol"] > (1, 0):
                continue
            if c["kind"] != "valid" or not (is_event(c["def"]) or c["def"] == "RunAgentInput"):
                continue
            model = models.RunAgentInput if c["def"] == "RunAgentInput" else root
            checks += 1
            try:
                model.model_validate(c["input"])
            except Exception as e:  # noqa: BLE001 - any failure of the generated model counts
                failures.append(f"{c['path']}: generated {model.__name__} rejects it: {str(e)[:300]}")
    return checks, failures


def main() -> int:
    total, failures = 0, []
    for part in (check_fixtures, check_codegen):
        n, f = part()
        total += n
        failures += f
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print(f"check_schema (python-jsonschema, datamodel-code-generator): "
          f"{total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

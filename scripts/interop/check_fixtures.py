"""Runs every case of fixtures/ through the official Python SDK 1.0 (ag-ui-protocol).

The reading mirrors corpus.mjs. Checks, per case (names as used in exceptions.json):

  accept   valid, and forgiving cases the schema allows: the definition's model (a
           pydantic TypeAdapter over ag_ui._generated.models) and the union containing
           it accept the document
  reject   invalid, and forgiving cases the schema forbids: both reject it
  encode   valid: the producer writes the document unchanged; round-trip: it writes
           `expected` (events through ag_ui.encoder.EventEncoder, everything else through
           the TypeAdapter's dump_json(by_alias=True))
  output   forgiving (not stream-level), when the model accepts the input: the producer
           writes `output`

A check that fails is an error unless one entry of exceptions.json (sdk "python") covers
it; an entry that covers nothing is an error too.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from ag_ui._generated import models
from ag_ui.encoder import EventEncoder

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent.parent / "fixtures"
KINDS = ("valid", "invalid", "forgiving", "roundtrip")
SCHEMA_VALID_WARNINGS = ("null-state", "ignored-member")
PARTS = ("TextPart", "ImagePart", "AudioPart", "VideoPart", "DocumentPart")
SOURCES = ("DataSource", "UrlSource", "FileSource")


def union_of(d: str) -> str | None:
    if d != "Event" and d.endswith("Event"):
        return "Event"
    if d != "Message" and d.endswith("Message"):
        return "Message"
    if d in PARTS:
        return "ContentPart"
    if d in SOURCES:
        return "PartSource"
    if d.startswith("RunFinished") and d.endswith("Outcome") and d != "RunFinishedOutcome":
        return "RunFinishedOutcome"
    if (
        d.startswith("SubagentFinished")
        and d.endswith("Outcome")
        and d != "SubagentFinishedOutcome"
    ):
        return "SubagentFinishedOutcome"
    if d.endswith("Operation"):
        return "JsonPatchOperation"
    return None


def is_event(d: str) -> bool:
    return d == "Event" or d.endswith("Event")


def protocol_of(path: str) -> tuple[int, int]:
    """The protocol version a case needs: a file name starting `v<MAJOR>.<MINOR>-` names it
    (fixtures/README.md, "Versions"); any other case is a 1.0 case."""
    m = re.match(r"v(\d+)\.(\d+)-", path.rsplit("/", 1)[-1])
    return (int(m.group(1)), int(m.group(2))) if m else (1, 0)


def load_cases() -> list[dict]:
    cases = []
    for ddir in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        d = ddir.name
        if d == "streams" or d.startswith("_"):
            continue
        for kind in KINDS:
            kdir = ddir / kind
            if not kdir.is_dir():
                continue
            for f in sorted(kdir.iterdir()):
                if not f.name.endswith(".json") or f.name.endswith(".expect.json"):
                    continue
                doc = json.loads(f.read_text(encoding="utf-8"))
                path = f"{d}/{kind}/{f.name}"
                c = {"path": path, "def": d, "kind": kind, "protocol": protocol_of(path)}
                if kind == "valid":
                    c["input"] = doc
                elif kind == "invalid":
                    c["input"] = doc
                    c["expect"] = json.loads(
                        f.with_name(f.name[: -len(".json")] + ".expect.json").read_text(
                            encoding="utf-8"
                        )
                    )
                elif kind == "forgiving":
                    c["input"] = doc["input"]
                    c["output"] = doc["output"]
                    c["warnings"] = [w["kind"] for w in doc["warnings"]]
                    c["stream"] = isinstance(doc.get("ids"), list)
                else:
                    c["input"] = doc["input"]
                    c["expected"] = doc["expected"]
                cases.append(c)
    return cases


def schema_verdict(c: dict) -> str | None:
    if c["kind"] == "valid":
        return "accept"
    if c["kind"] == "invalid":
        return "reject"
    if c["kind"] == "forgiving":
        ok = all(w in SCHEMA_VALID_WARNINGS for w in c["warnings"])
        return "accept" if ok else "reject"
    return None


def glob_re(glob: str) -> re.Pattern:
    return re.compile("^" + re.escape(glob).replace(r"\*", "[^/]*") + "$")


def load_exceptions(sdk: str) -> list[dict]:
    data = json.loads((HERE / "exceptions.json").read_text(encoding="utf-8"))
    out = []
    for e in data["exceptions"]:
        if e["sdk"] == sdk:
            out.append({**e, "used": 0, "res": [glob_re(g) for g in e["match"].get("cases", [])]})
    return out


def covers(e: dict, c: dict, check: str) -> bool:
    m = e["match"]
    if check not in m["checks"]:
        return False
    if m.get("kind") and m["kind"] != c["kind"]:
        return False
    if e["res"] and not any(r.match(c["path"]) for r in e["res"]):
        return False
    if m.get("rule") and not (c.get("expect") and c["expect"]["rule"] in m["rule"]):
        return False
    if m.get("warningsAny") and not any(w in m["warningsAny"] for w in c.get("warnings", [])):
        return False
    return True


_ADAPTERS: dict[str, TypeAdapter] = {}


def adapter(d: str) -> TypeAdapter:
    if d not in _ADAPTERS:
        _ADAPTERS[d] = TypeAdapter(getattr(models, d))
    return _ADAPTERS[d]


REJECTED = object()


def parse(d: str, doc):
    """The validated value, or REJECTED when the model rejects the document."""
    try:
        return adapter(d).validate_python(doc)
    except ValidationError:
        return REJECTED


ENCODER = EventEncoder()


def produce(d: str, value):
    if is_event(d):
        sse = ENCODER.encode(value)
        if not (sse.startswith("data: ") and sse.endswith("\n\n")):
            raise ValueError(f"bad frame {sse!r}")
        return json.loads(sse[6:-2])
    return json.loads(adapter(d).dump_json(value, by_alias=True))


def same(a, b) -> bool:
    # json.loads gives 1000.0 for "1000.0"; JSON compares numbers by value, and so does ==,
    # except that True == 1 in Python: keep booleans apart from numbers.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def main() -> int:
    exceptions = load_exceptions("python")
    failures: list[str] = []
    excused: list[str] = []
    checks = 0

    def check(c: dict, name: str, ok: bool, detail: str) -> None:
        nonlocal checks
        checks += 1
        if ok:
            return
        for e in exceptions:
            if covers(e, c, name):
                e["used"] += 1
                excused.append(f"{c['path']} [{name}] {e['id']}")
                return
        failures.append(f"{c['path']} [{name}] {detail}")

    # The official SDK is 1.0.0: cases needing a newer version are not its to judge.
    cases = [c for c in load_cases() if c["protocol"] <= (1, 0)]
    for c in cases:
        d = c["def"]
        want = schema_verdict(c)
        own = parse(d, c["input"])
        if want:
            u = union_of(d)
            via = parse(u, c["input"]) if u else own
            detail = f"model {'rejects' if own is REJECTED else 'accepts'}"
            if u:
                detail += f", {u} {'rejects' if via is REJECTED else 'accepts'}"
            if want == "accept":
                check(c, "accept", own is not REJECTED and via is not REJECTED, detail)
            else:
                check(c, "reject", own is REJECTED and via is REJECTED, detail)
        target = {"valid": "input", "roundtrip": "expected"}.get(c["kind"])
        if target:
            if own is REJECTED:
                check(c, "encode", False, "model rejects the input")
            else:
                out = produce(d, own)
                check(c, "encode", same(out, c[target]), f"producer wrote {json.dumps(out)}")
        if c["kind"] == "forgiving" and not c["stream"] and own is not REJECTED:
            out = produce(d, own)
            check(c, "output", same(out, c["output"]), f"producer wrote {json.dumps(out)}")

    for e in exceptions:
        if e["used"] == 0:
            failures.append(f"exceptions.json: {e['id']} (python) covers no case any more")

    by_kind: dict[str, int] = {}
    for c in cases:
        by_kind[c["kind"]] = by_kind.get(c["kind"], 0) + 1
    kinds = ", ".join(f"{n} {k}" for k, n in by_kind.items())
    used = sum(1 for e in exceptions if e["used"])
    print(
        f"python (ag-ui-protocol 1.0.0): {len(cases)} cases ({kinds}), {checks} checks, "
        f"{len(excused)} excused by {used} exception rules"
    )
    if os.environ.get("INTEROP_VERBOSE"):
        for x in excused:
            print(f"  excused: {x}")
    for f in failures:
        print(f"  FAIL {f}")
    print(f"python: {checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

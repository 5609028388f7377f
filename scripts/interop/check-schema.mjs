// Validates every case of fixtures/ with ajv (its draft 2020-12 build) against each published
// schema (crates/ag-ui-schema/schema/ag-ui.schema.json for 1.0, ag-ui-1.1.schema.json for 1.1;
// each judges the cases its version knows), and expects the verdicts the Rust
// tests of ag-ui-schema reach:
//
//   valid       accepted as its definition (addressed by anchor, `…#TextPart`), as the union
//               containing it, and, for events, by the root schema
//   invalid     rejected the same ways, and among ajv's errors is the keyword the
//               .expect.json names at its instance location (an unknown tag is reported by
//               the union's `oneOf` at the object holding the tag: fixtures/README.md)
//   forgiving   the input is accepted exactly when every warning is one the schema allows
//               (null-state, ignored-member); the reader's output is accepted
//   round-trip  the expected document is accepted
// No exceptions: ajv is a validator of the schema itself, so any difference is a bug.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import {
  HERE, SCHEMAS, isEvent, knownTo, loadCases, schemaVerdict, unionOf,
} from "./corpus.mjs";

const ajvs = SCHEMAS.map(({ version, file }) => {
  const bundle = JSON.parse(
    readFileSync(join(HERE, "..", "..", "crates", "ag-ui-schema", "schema", file), "utf8"),
  );
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  // ajv 8 resolves `$anchor` but does not list it among the keywords strict mode knows.
  ajv.addKeyword("$anchor");
  ajv.addSchema(bundle);
  return { version, file, ajv, id: bundle.$id, validators: new Map() };
});

function validator(schema, target) {
  if (!schema.validators.has(target)) {
    const ref = target === "" ? schema.id : `${schema.id}#${target}`;
    const v = schema.ajv.getSchema(ref);
    if (!v) throw new Error(`${ref} does not resolve`);
    schema.validators.set(target, v);
  }
  return schema.validators.get(target);
}

function targets(def) {
  if (def === "Event") return [""];
  const out = [def];
  const u = unionOf(def);
  if (u) out.push(u);
  if (isEvent(def)) out.push("");
  return out;
}

function parent(pointer) {
  const i = pointer.lastIndexOf("/");
  return i < 0 ? "" : pointer.slice(0, i);
}

const TAGS = { Event: "type", Message: "role", ContentPart: "type", PartSource: "type",
  RunFinishedOutcome: "type", SubagentFinishedOutcome: "type", JsonPatchOperation: "op" };

/** Where ajv reports what `expect` names when validating the case as `target`. */
function expected(expect, def, target) {
  let { keyword, pointer } = expect;
  if (keyword === "oneOf" && ["tag", "event-type", "legacy-event"].includes(expect.rule)) {
    pointer = parent(pointer);
  }
  const union = target === "" ? "Event" : target;
  if (target !== def && keyword === "const" && pointer === `/${TAGS[union]}`) {
    // A member's tag with another value is, read through the union, an unknown tag.
    return { keyword: "oneOf", pointer: "" };
  }
  return { keyword, pointer, property: expect.property };
}

function reported(errors, want) {
  return (errors ?? []).some(
    (e) =>
      e.keyword === want.keyword &&
      e.instancePath === want.pointer &&
      (want.keyword !== "required" || e.params.missingProperty === want.property),
  );
}

const failures = [];
let checks = 0;
function check(name, ok, detail) {
  checks += 1;
  if (!ok) failures.push(`${name}: ${detail}`);
}

// Each schema judges the cases its version knows: a 1.0 case in both, a 1.1 case in 1.1.
for (const schema of SCHEMAS.map((_, i) => ajvs[i])) {
  for (const c of loadCases().filter((c) => knownTo(c, schema.version))) {
    const verdict = schemaVerdict(c);
    for (const t of targets(c.def)) {
      const label = `${c.path} as ${t === "" ? "the root" : t} (${schema.file})`;
      const v = validator(schema, t);
      if (verdict !== null) {
        const ok = v(c.input);
        check(label, ok === (verdict === "accept"),
          `${ok ? "accepted" : "rejected"}, expected ${verdict}: ${JSON.stringify(v.errors?.slice(0, 3))}`);
        if (c.kind === "invalid" && !ok) {
          const want = expected(c.expect, c.def, t);
          check(`${label} (location)`, reported(v.errors, want),
            `no ${want.keyword} at ${JSON.stringify(want.pointer)} among ${v.errors.length} errors`);
        }
      }
      const normalized = c.kind === "forgiving" ? c.output : c.kind === "roundtrip" ? c.expected : null;
      if (normalized !== null && normalized !== undefined) {
        check(`${label} (normalized)`, v(normalized), JSON.stringify(v.errors?.slice(0, 3)));
      }
    }
  }
}

for (const f of failures) console.error(`FAIL ${f}`);
console.log(`check-schema (ajv, draft 2020-12): ${checks - failures.length} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);

// Runs every case of fixtures/ through the official TypeScript SDK 1.0:
// the zod validators of @ag-ui/core/schemas and the producer path (EventEncoder of
// @ag-ui/encoder for events, omitOptionalNulls of @ag-ui/core for the other definitions).
//
// Checks, per case (names as used in exceptions.json):
//   accept   valid, and forgiving cases the schema allows: the definition's schema and the
//            union containing it accept the document
//   reject   invalid, and forgiving cases the schema forbids: both reject it
//   parse    valid: zod's parse result serialises back to the document
//   encode   valid: the producer writes the document unchanged;
//            round-trip: the producer writes `expected`
//   output   forgiving (not stream-level): the producer writes `output`
// A check that fails is an error unless one entry of exceptions.json (sdk "typescript")
// covers it; an entry that covers nothing is an error too.

import * as schemas from "@ag-ui/core/schemas";
import { omitOptionalNulls } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import {
  covers,
  isEvent,
  jsonEqual,
  knownTo,
  loadCases,
  loadExceptions,
  schemaVerdict,
  unionOf,
} from "./corpus.mjs";

const encoder = new EventEncoder();

function accepts(def, doc) {
  const schema = schemas[`${def}Schema`];
  if (!schema) throw new Error(`no ${def}Schema in @ag-ui/core/schemas`);
  return schema.safeParse(doc);
}

function produce(def, doc) {
  if (isEvent(def)) {
    const sse = encoder.encode(doc);
    if (!sse.startsWith("data: ") || !sse.endsWith("\n\n")) throw new Error(`bad frame ${sse}`);
    return JSON.parse(sse.slice(6, -2));
  }
  if (def === "JsonPatch" && Array.isArray(doc)) {
    return JSON.parse(JSON.stringify(doc.map((op) => omitOptionalNulls(op, "JsonPatchOperation"))));
  }
  let out = doc;
  try {
    out = omitOptionalNulls(doc, def);
  } catch {
    // definitions without object fields (State, Metadata, Role, ...) have nothing to omit
  }
  return JSON.parse(JSON.stringify(out));
}

function verdictOf(c) {
  const own = accepts(c.def, c.input).success;
  const u = unionOf(c.def);
  const viaUnion = u ? accepts(u, c.input).success : own;
  return { own, viaUnion };
}

const exceptions = loadExceptions("typescript");
const failures = [];
const excused = [];
let checks = 0;

function check(c, name, ok, detail) {
  checks += 1;
  if (ok) return;
  const e = exceptions.find((x) => covers(x, c, name));
  if (e) {
    e.used += 1;
    excused.push(`${c.path} [${name}] ${e.id}`);
  } else {
    failures.push(`${c.path} [${name}] ${detail}`);
  }
}

// The official SDKs are 1.0.0: cases needing a newer version are not theirs to judge.
const cases = loadCases().filter((c) => knownTo(c, [1, 0]));
for (const c of cases) {
  const want = schemaVerdict(c);
  if (want) {
    const { own, viaUnion } = verdictOf(c);
    const u = unionOf(c.def);
    const d = `own schema ${own ? "accepts" : "rejects"}${u ? `, ${u}Schema ${viaUnion ? "accepts" : "rejects"}` : ""}`;
    if (want === "accept") check(c, "accept", own && viaUnion, d);
    else check(c, "reject", !own && !viaUnion, d);
  }
  if (c.kind === "valid") {
    const parsed = accepts(c.def, c.input);
    if (parsed.success) {
      const back = JSON.parse(JSON.stringify(parsed.data));
      check(c, "parse", jsonEqual(back, c.input), `zod parse wrote ${JSON.stringify(back)}`);
    }
    const out = produce(c.def, c.input);
    check(c, "encode", jsonEqual(out, c.input), `producer wrote ${JSON.stringify(out)}`);
  }
  if (c.kind === "roundtrip") {
    const out = produce(c.def, c.input);
    check(c, "encode", jsonEqual(out, c.expected), `producer wrote ${JSON.stringify(out)}`);
  }
  if (c.kind === "forgiving" && !c.stream) {
    const out = produce(c.def, c.input);
    check(c, "output", jsonEqual(out, c.output), `producer wrote ${JSON.stringify(out)}`);
  }
}

for (const e of exceptions) {
  if (e.used === 0) failures.push(`exceptions.json: ${e.id} (typescript) covers no case any more`);
}

const byKind = {};
for (const c of cases) byKind[c.kind] = (byKind[c.kind] ?? 0) + 1;
console.log(
  `typescript (@ag-ui/core 1.0.0 + @ag-ui/encoder 1.0.0): ${cases.length} cases ` +
    `(${Object.entries(byKind).map(([k, n]) => `${n} ${k}`).join(", ")}), ${checks} checks, ` +
    `${excused.length} excused by ${exceptions.filter((e) => e.used).length} exception rules`,
);
if (process.env.INTEROP_VERBOSE) for (const x of excused) console.log(`  excused: ${x}`);
for (const f of failures) console.log(`  FAIL ${f}`);
console.log(`typescript: ${checks - failures.length} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);

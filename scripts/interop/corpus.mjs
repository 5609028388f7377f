// Reads fixtures/ (format: fixtures/README.md) and scripts/interop/exceptions.json.
// Shared by the node checks; check_fixtures.py implements the same reading in Python.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(HERE, "..", "..", "fixtures");

const KINDS = ["valid", "invalid", "forgiving", "roundtrip"];

/** The union a concrete definition belongs to, or null. */
export function unionOf(def) {
  if (def !== "Event" && def.endsWith("Event")) return "Event";
  if (def !== "Message" && def.endsWith("Message")) return "Message";
  if (["TextPart", "ImagePart", "AudioPart", "VideoPart", "DocumentPart"].includes(def)) {
    return "ContentPart";
  }
  if (["DataSource", "UrlSource", "FileSource"].includes(def)) return "PartSource";
  if (def.startsWith("RunFinished") && def.endsWith("Outcome") && def !== "RunFinishedOutcome") {
    return "RunFinishedOutcome";
  }
  if (
    def.startsWith("SubagentFinished") &&
    def.endsWith("Outcome") &&
    def !== "SubagentFinishedOutcome"
  ) {
    return "SubagentFinishedOutcome";
  }
  if (def.endsWith("Operation")) return "JsonPatchOperation";
  return null;
}

/** Whether documents of `def` are events (written through the event encoders). */
export function isEvent(def) {
  return def === "Event" || def.endsWith("Event");
}

/**
 * The protocol version a case needs, as [major, minor]: a file name starting
 * `v<MAJOR>.<MINOR>-` names it (fixtures/README.md, "Versions"); any other case is a 1.0 case.
 */
export function protocolOf(path) {
  const m = /^v(\d+)\.(\d+)-/.exec(path.split("/").pop());
  return m ? [Number(m[1]), Number(m[2])] : [1, 0];
}

/** Whether a peer speaking `version` ([major, minor]) knows what case `c` needs. */
export function knownTo(c, version) {
  const [a, b] = c.protocol;
  return a < version[0] || (a === version[0] && b <= version[1]);
}

/** The published schemas, one per protocol version, with the cases each must judge. */
export const SCHEMAS = [
  { version: [1, 0], file: "ag-ui.schema.json" },
  { version: [1, 1], file: "ag-ui-1.1.schema.json" },
];

/** Every case under fixtures/<Definition>/<kind>/, sorted by path, with the protocol
 * version it needs (`protocol`, see protocolOf). */
export function loadCases() {
  const cases = [];
  const defs = readdirSync(FIXTURES)
    .filter((d) => d !== "streams" && !d.startsWith("_"))
    .filter((d) => statSync(join(FIXTURES, d)).isDirectory())
    .sort();
  for (const def of defs) {
    for (const kind of KINDS) {
      let files;
      try {
        files = readdirSync(join(FIXTURES, def, kind)).sort();
      } catch {
        continue;
      }
      for (const file of files) {
        if (!file.endsWith(".json") || file.endsWith(".expect.json")) continue;
        const path = `${def}/${kind}/${file}`;
        const doc = JSON.parse(readFileSync(join(FIXTURES, path), "utf8"));
        const c = { path, def, kind, protocol: protocolOf(path) };
        if (kind === "valid") c.input = doc;
        else if (kind === "invalid") {
          c.input = doc;
          c.expect = JSON.parse(
            readFileSync(join(FIXTURES, path.replace(/\.json$/, ".expect.json")), "utf8"),
          );
        } else if (kind === "forgiving") {
          c.input = doc.input;
          c.output = doc.output;
          c.warnings = doc.warnings.map((w) => w.kind);
          c.stream = Array.isArray(doc.ids);
        } else {
          c.input = doc.input;
          c.expected = doc.expected;
        }
        cases.push(c);
      }
    }
  }
  return cases;
}

/** Warning kinds an exact (schema) reader still accepts. */
export const SCHEMA_VALID_WARNINGS = ["null-state", "ignored-member"];

/** What the 1.0 schema says about a case's document: "accept" or "reject". */
export function schemaVerdict(c) {
  if (c.kind === "valid") return "accept";
  if (c.kind === "invalid") return "reject";
  if (c.kind === "forgiving") {
    return c.warnings.every((w) => SCHEMA_VALID_WARNINGS.includes(w)) ? "accept" : "reject";
  }
  return null; // round-trip inputs may be anything the forgiving reader takes
}

function globToRegExp(glob) {
  const esc = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
  return new RegExp(`^${esc}$`);
}

/** The exceptions that apply to `sdk`, each with a matcher. */
export function loadExceptions(sdk) {
  const all = JSON.parse(readFileSync(join(HERE, "exceptions.json"), "utf8")).exceptions;
  return all
    .filter((e) => e.sdk === sdk)
    .map((e) => ({ ...e, used: 0, pathRes: (e.match.cases ?? []).map(globToRegExp) }));
}

/** Whether exception `e` covers the failed `check` of case `c`. */
export function covers(e, c, check) {
  const m = e.match;
  if (!m.checks.includes(check)) return false;
  if (m.kind && m.kind !== c.kind) return false;
  if (e.pathRes.length && !e.pathRes.some((r) => r.test(c.path))) return false;
  if (m.rule && !(c.expect && m.rule.includes(c.expect.rule))) return false;
  if (m.warningsAny && !(c.warnings && c.warnings.some((w) => m.warningsAny.includes(w)))) {
    return false;
  }
  return true;
}

/** Deep JSON equality (numbers by value, key order ignored). */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (typeof a !== "object") return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return jsonEqual(ka, kb) && ka.every((k) => jsonEqual(a[k], b[k]));
}

// The protobuf transport against the official encoder, @ag-ui/proto 1.0.0 (spec B8):
//
//   corpus   fixtures/_proto-bytes/: each <case>.bin is what the official encoder writes for
//            <case>.json (run with --write-corpus to rewrite the .bin files from it)
//   encode   every valid 1.0 event fixture and every corpus document: ag-ui-core's bytes (its
//            `proto_hex` example, feature `proto`) equal the official encoder's, or, where an
//            open JSON object's members come in another order, decode to the same event
//   decode   the official bytes decode, in ag-ui-core, to the event ag-ui-core's own bytes
//            decode to; and the official decoder reads ag-ui-core's bytes as the document
//
// Fails when any check fails; prints how many cases matched byte for byte.

import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { decode, encode } from "@ag-ui/proto";
import { FIXTURES, HERE, isEvent, jsonEqual, loadCases } from "./corpus.mjs";

const CORPUS = join(FIXTURES, "_proto-bytes");
const WRITE = process.argv.includes("--write-corpus");
const TIMEOUT_MS = 600_000; // includes building the example on a cold cache

const failures = [];
const items = [];

function official(doc) {
  return Buffer.from(encode(doc));
}

for (const file of readdirSync(CORPUS).filter((f) => f.endsWith(".json")).sort()) {
  const doc = JSON.parse(readFileSync(join(CORPUS, file), "utf8"));
  const bytes = official(doc);
  const bin = join(CORPUS, file.replace(/\.json$/, ".bin"));
  if (WRITE) writeFileSync(bin, bytes);
  else if (!bytes.equals(readFileSync(bin))) {
    failures.push(`_proto-bytes/${file} [corpus] the official encoder writes ${bytes.toString("hex")}`);
  }
  items.push({ name: `_proto-bytes/${file}`, event: doc, other: bytes.toString("hex") });
}

for (const c of loadCases()) {
  if (c.kind !== "valid" || !isEvent(c.def) || c.def === "Event") continue;
  if (c.protocol[0] !== 1 || c.protocol[1] !== 0) continue;
  let bytes;
  try {
    bytes = official(c.input);
  } catch (e) {
    failures.push(`${c.path} [encode] the official encoder throws: ${e.message}`);
    continue;
  }
  items.push({ name: c.path, event: c.input, other: bytes.toString("hex") });
}

/** Runs the proto_hex example over the items; resolves with its output lines by name. */
function runOurs(lines) {
  const child = spawn(
    "cargo",
    ["run", "-q", "--locked", "-p", "ag-ui-core", "--features", "proto", "--example", "proto_hex"],
    { cwd: join(HERE, "..", ".."), stdio: ["pipe", "pipe", "inherit"] },
  );
  const out = new Map();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error("proto_hex did not finish"));
    }, TIMEOUT_MS);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const r = JSON.parse(line);
      out.set(r.name, r);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`proto_hex exited with ${code}`));
    });
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  });
}

const ours = await runOurs(items);
let exact = 0;
const reordered = [];
for (const item of items) {
  const r = ours.get(item.name);
  if (!r) {
    failures.push(`${item.name} [encode] no answer from proto_hex`);
    continue;
  }
  if (r.ours === null) {
    failures.push(`${item.name} [encode] ag-ui-core refuses it: ${r.encodeError}`);
    continue;
  }
  if (r.decodeError) failures.push(`${item.name} [decode] ${r.decodeError}`);
  else if (!r.sameDecode) {
    failures.push(`${item.name} [decode] the official bytes decode to another event than ours`);
  }
  const theirs = decode(Buffer.from(item.other, "hex"));
  let mine;
  try {
    mine = decode(Buffer.from(r.ours, "hex"));
  } catch (e) {
    failures.push(`${item.name} [decode] the official decoder refuses our bytes: ${e.message}`);
    continue;
  }
  if (r.ours === item.other) exact += 1;
  else if (jsonEqual(mine, theirs) && r.ours.length === item.other.length) {
    reordered.push(item.name);
  } else {
    failures.push(
      `${item.name} [encode] ours ${r.ours}, official ${item.other}; decoded ${JSON.stringify(mine)} vs ${JSON.stringify(theirs)}`,
    );
  }
}

console.log(
  `proto: ${items.length} events, ${exact} byte for byte, ${reordered.length} with an open ` +
    `object's members in another order (same event decoded)${WRITE ? "; corpus rewritten" : ""}`,
);
for (const name of reordered) console.log(`  reordered: ${name}`);
if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  process.exit(1);
}

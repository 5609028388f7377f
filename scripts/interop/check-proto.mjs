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
//   client   the official client (HttpAgent, asking for protobuf through its requestInit)
//            against the serve example built with ag-ui-server's `proto` feature: the chat,
//            interrupt + resume and error runs end with the messages, state, interrupts and
//            outcomes the same client gets over SSE, and the responses were protobuf
//
// Fails when any check fails; prints how many cases matched byte for byte.

import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";
import { HttpAgent } from "@ag-ui/client";
import { AGUI_MEDIA_TYPE, decode, encode } from "@ag-ui/proto";
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

// The official client over protobuf and over SSE, against the Rust server.

/** Starts the serve example with the `proto` feature; resolves with its address. */
function startServer() {
  const child = spawn(
    "cargo",
    ["run", "-q", "--locked", "-p", "ag-ui-server", "--features", "proto", "--example", "serve",
      "--", "127.0.0.1:0"],
    { cwd: join(HERE, "..", ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("serve did not print its address")), TIMEOUT_MS);
    child.on("exit", (code) => reject(new Error(`serve exited early with ${code}`)));
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      resolve({ child, addr: line.trim() });
    });
  });
}

/** The official HttpAgent, asking for protobuf (beside SSE) when `proto`; records the
 * response content types. */
function newAgent(url, scenario, proto, contentTypes) {
  const fetchAndRecord = async (input, init) => {
    const response = await fetch(input, init);
    contentTypes.push(response.headers.get("content-type"));
    return response;
  };
  const agent = new HttpAgent({
    url,
    threadId: `thread-${scenario}`,
    initialMessages: [{ id: `user-${scenario}`, role: "user", content: "What is the weather in Amsterdam?" }],
    fetch: fetchAndRecord,
  });
  if (proto) {
    const base = agent.requestInit.bind(agent);
    agent.requestInit = (input) => {
      const init = base(input);
      return { ...init, headers: { ...init.headers, Accept: `${AGUI_MEDIA_TYPE}, text/event-stream` } };
    };
  }
  return agent;
}

async function runOnce(agent, params) {
  const seen = { errors: [], runErrors: [], outcome: null };
  try {
    await agent.runAgent(params, {
      onRunFailed: ({ error }) => { seen.errors.push(String(error?.message ?? error)); },
      onRunErrorEvent: ({ event }) => { seen.runErrors.push({ message: event.message, code: event.code }); },
      onRunFinishedEvent: (p) => { seen.outcome = p.outcome; },
    });
  } catch (e) {
    seen.thrown = String(e?.message ?? e);
  }
  return seen;
}

/** Runs a scenario's runs with one client; returns what it ended with. */
async function scenario(url, name, proto) {
  const contentTypes = [];
  const agent = newAgent(url, name, proto, contentTypes);
  const runs = [await runOnce(agent, { runId: `run-${name}-1`, forwardedProps: { scenario: name } })];
  if (name === "interrupt") {
    const pending = agent.pendingInterrupts[0] ?? {};
    runs.push(await runOnce(agent, {
      runId: `run-${name}-2`,
      forwardedProps: { scenario: name },
      resume: [{ interruptId: pending.id, status: "resolved", payload: { approved: true } }],
    }));
  }
  return {
    runs,
    messages: agent.messages,
    state: agent.state,
    pendingInterrupts: agent.pendingInterrupts,
    contentTypes,
  };
}

const { child, addr } = await startServer();
try {
  const url = `http://${addr}/`;
  for (const name of ["chat", "interrupt", "error"]) {
    const sse = await scenario(url, name, false);
    const proto = await scenario(url, name, true);
    if (!sse.contentTypes.every((t) => t === "text/event-stream")) {
      failures.push(`client ${name}: the SSE client got ${sse.contentTypes}`);
    }
    if (!proto.contentTypes.every((t) => t === AGUI_MEDIA_TYPE)) {
      failures.push(`client ${name}: the protobuf client got ${proto.contentTypes}`);
    }
    for (const key of ["runs", "messages", "state", "pendingInterrupts"]) {
      if (!isDeepStrictEqual(sse[key], proto[key])) {
        failures.push(
          `client ${name} [${key}] over SSE ${JSON.stringify(sse[key])}, over protobuf ${JSON.stringify(proto[key])}`,
        );
      }
    }
    if (name !== "error" && proto.runs.some((r) => r.errors.length > 0 || r.thrown)) {
      failures.push(`client ${name}: ${JSON.stringify(proto.runs)}`);
    }
  }
} finally {
  child.kill();
}

console.log(
  `proto: ${items.length} events, ${exact} byte for byte, ${reordered.length} with an open ` +
    `object's members in another order (same event decoded)${WRITE ? "; corpus rewritten" : ""}; the official client over ` +
    `protobuf and over SSE: chat, interrupt + resume, error`,
);
for (const name of reordered) console.log(`  reordered: ${name}`);
if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  process.exit(1);
}

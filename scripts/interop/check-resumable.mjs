// Tries the run-log extension on the running example, as a user would: starts
// `cargo run -p ag-ui-server --example serve -- --resumable`, and with plain fetch (no AG-UI
// SDK: what any SSE consumer does)
//   - cuts a chat run after k frames, for every k, joins it with Last-Event-ID and checks
//     that the two parts are exactly the whole run (same events, ids 1..n, no repeat);
//   - stops a slow run from a second connection and checks that its stream ends with
//     RUN_FINISHED outcome cancelled within 1 s;
//   - checks that an expired run answers 404 JSON and the capabilities declare resumable.
// The events of every cut run are also checked against the official @ag-ui/core schemas.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { EventSchemas } from "@ag-ui/core/schemas";
import { HERE } from "./corpus.mjs";

const TIMEOUT_MS = 600_000; // includes building the example on a cold cache

function startServer() {
  const child = spawn(
    "cargo",
    ["run", "-q", "--locked", "-p", "ag-ui-server", "--example", "serve", "--",
      "127.0.0.1:0", "--resumable", "--pace-ms", "2", "--retention-ms", "3000"],
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

/** Reads SSE frames ({id, data}) from a fetch response; stops after `max` frames. */
async function frames(response, max = Infinity, controller = null) {
  const out = [];
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        let id = null;
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = line.slice(4);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        if (data.length) out.push({ id, event: JSON.parse(data.join("\n")) });
        if (out.length >= max) {
          controller?.abort();
          return out;
        }
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") throw e;
  }
  return out;
}

function start(url, runId, scenario, controller) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    // A 1.0 caller (it declares its version): callers without one get no `cancelled` outcome.
    body: JSON.stringify({
      protocolVersion: "1.0",
      threadId: `thread-${runId}`, runId, messages: [{ id: "u1", role: "user", content: "Weather?" }],
      tools: [], context: [], state: {}, forwardedProps: { scenario },
    }),
    signal: controller?.signal,
  });
}

const failures = [];
function check(name, ok, detail) {
  if (!ok) failures.push(`${name}: ${detail}`);
}

const { child, addr } = await startServer();
const url = `http://${addr}/`;
try {
  const caps = await (await fetch(`${url}capabilities`)).json();
  check("capabilities", caps.transport?.resumable === true, JSON.stringify(caps));

  const whole = await frames(await start(url, "run-whole", "chat"));
  const n = whole.length;
  check("whole run", n > 20 && whole.every((f, i) => f.id === String(i + 1)), JSON.stringify(whole.map((f) => f.id)));
  for (let k = 0; k < n; k++) {
    const runId = `run-cut-${k}`;
    const controller = new AbortController();
    const first = await frames(await start(url, runId, "chat", controller), k === 0 ? 1 : k, controller);
    const head = k === 0 ? [] : first;
    const last = head.length ? head[head.length - 1].id : "0";
    const rest = await frames(await fetch(`${url}runs/${runId}/events`, {
      headers: { accept: "text/event-stream", "last-event-id": last },
    }));
    const got = [...head, ...rest];
    const ids = got.map((f) => f.id);
    check(`cut ${k} ids`, isDeepStrictEqual(ids, whole.map((f) => f.id)), JSON.stringify(ids));
    // Same events as the uncut run, ids aside (they are derived from the run id).
    const norm = (f) => JSON.stringify(f.event).replaceAll(runId, "RUN").replaceAll(`thread-${runId}`, "THREAD");
    const wholeNorm = whole.map((f) => JSON.stringify(f.event).replaceAll("run-whole", "RUN").replaceAll("thread-run-whole", "THREAD"));
    check(`cut ${k} events`, isDeepStrictEqual(got.map(norm), wholeNorm), `${got.length} events`);
    for (const f of got) {
      const parsed = EventSchemas.safeParse(f.event);
      if (!parsed.success) {
        check(`cut ${k} schema`, false, `${f.event.type}: ${parsed.error.message}`);
        break;
      }
    }
  }

  // Stop from a second connection.
  const slow = await start(url, "run-stop", "slow");
  const reader = frames(slow);
  await new Promise((r) => setTimeout(r, 300));
  const asked = Date.now();
  const stop = await fetch(`${url}runs/run-stop/stop`, { method: "POST" });
  check("stop status", stop.status === 202, String(stop.status));
  const all = await reader;
  const took = Date.now() - asked;
  const end = all[all.length - 1]?.event ?? {};
  check("stop outcome", end.type === "RUN_FINISHED" && end.outcome?.type === "cancelled", JSON.stringify(end));
  check("stop within 1 s", took < 1000, `${took} ms`);

  // Retention: 3 s after its end a run is gone.
  await new Promise((r) => setTimeout(r, 3500));
  const gone = await fetch(`${url}runs/run-whole/events`, { headers: { accept: "text/event-stream" } });
  const doc = await gone.json();
  check("expired", gone.status === 404 && doc.error === "run_not_found", `${gone.status} ${JSON.stringify(doc)}`);
} finally {
  child.kill();
}

if (failures.length) {
  console.error(`check-resumable: ${failures.length} failure(s)`);
  for (const f of failures) console.error(`  ${f}`);
  process.exit(1);
}
console.log(`check-resumable: cut at every one of the chat run's frames and joined, stop within 1 s, expiry, against ${url}`);

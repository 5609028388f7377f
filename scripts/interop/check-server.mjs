// Runs the official TypeScript client (@ag-ui/client HttpAgent) against the Rust server's
// demo agent (`cargo run -p ag-ui-server --example serve`), one run per scenario: chat,
// interrupt then resume, error; then again against `serve --resumable`, whose frames carry
// SSE `id:` lines (the run-log extension), which the official client must ignore. A scenario passes when the client reports no protocol or
// transport error (an error scenario: exactly the agent's RUN_ERROR) and the final messages
// and state are the ones the demo produces. Keep-alive comments are on every 20 ms and the
// demo pauses 30 ms between chat events, so the client also reads comments between frames.
//
// Writes out/server/<scenario>.json: {scenario, threadId, runs, messages, state,
// pendingInterrupts}, the client's view after the scenario, for comparison with other
// clients.

import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { HttpAgent } from "@ag-ui/client";
import { HERE } from "./corpus.mjs";

const OUT = join(HERE, "out", "server");
const TIMEOUT_MS = 600_000; // includes building the example on a cold cache

/** Starts the serve example; resolves with its address and the child process. */
function startServer(extra) {
  const child = spawn(
    "cargo",
    ["run", "-q", "--locked", "-p", "ag-ui-server", "--example", "serve", "--",
      "127.0.0.1:0", "--pace-ms", "30", "--keep-alive-ms", "20", ...extra],
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

/** Runs one HttpAgent run, collecting what the client reports. */
async function run(agent, params) {
  const seen = { errors: [], runErrors: [], outcome: null, comments: 0 };
  const subscriber = {
    onRunFailed: ({ error }) => { seen.errors.push(String(error?.message ?? error)); },
    onRunErrorEvent: ({ event }) => { seen.runErrors.push({ message: event.message, code: event.code }); },
    onRunFinishedEvent: (p) => { seen.outcome = p.outcome; },
  };
  try {
    await agent.runAgent(params, subscriber);
  } catch (e) {
    seen.thrown = String(e?.message ?? e);
  }
  return seen;
}

function newAgent(url, scenario, mode) {
  return new HttpAgent({
    url,
    threadId: `thread-${scenario}${mode}`,
    initialMessages: [{ id: `user-${scenario}`, role: "user", content: "What is the weather in Amsterdam?" }],
  });
}

function text(messages, role) {
  return messages.filter((m) => m.role === role).map((m) => m.content);
}

const failures = [];
function checkIn(name, ok, detail) {
  if (!ok) failures.push(`${name}: ${detail}`);
}

function save(scenario, agent, runs, mode) {
  if (mode) return; // the plain server's results are the ones compared with other clients
  mkdirSync(OUT, { recursive: true });
  const doc = {
    scenario,
    threadId: agent.threadId,
    runs,
    messages: agent.messages,
    state: agent.state,
    pendingInterrupts: agent.pendingInterrupts,
  };
  writeFileSync(join(OUT, `${scenario}.json`), JSON.stringify(doc, null, 2) + "\n");
}

for (const [mode, extra] of [["", []], ["-resumable", ["--resumable"]]]) {
const { child, addr } = await startServer(extra);
const url = `http://${addr}/`;
const check = (name, ok, detail) => checkIn(`${name}${mode}`, ok, detail);
try {
  // chat
  {
    const agent = newAgent(url, "chat", mode);
    const seen = await run(agent, { runId: "run-chat-1", forwardedProps: { scenario: "chat" } });
    const clean = seen.errors.length === 0 && seen.runErrors.length === 0 && !seen.thrown;
    check("chat", clean, JSON.stringify(seen));
    check("chat outcome", seen.outcome === "success", seen.outcome);
    check("chat state", isDeepStrictEqual(agent.state, {
      turns: 1, city: "Amsterdam", weather: { temperature: 14, sky: "cloudy" },
    }), JSON.stringify(agent.state));
    const assistant = agent.messages.filter((m) => m.role === "assistant");
    const calls = assistant.flatMap((m) => m.toolCalls ?? []);
    check("chat tool call", calls.length === 1 && calls[0].function.name === "get_weather" &&
      isDeepStrictEqual(JSON.parse(calls[0].function.arguments), { city: "Amsterdam" }), JSON.stringify(calls));
    check("chat texts", isDeepStrictEqual(text(agent.messages, "assistant").filter(Boolean), [
      "Let me check the weather in Amsterdam.", "It is 14 °C and cloudy in Amsterdam.",
    ]), JSON.stringify(agent.messages));
    check("chat tool result", text(agent.messages, "tool").length === 1, JSON.stringify(agent.messages));
    save("chat", agent, ["run-chat-1"], mode);
  }
  // interrupt, then resume
  {
    const agent = newAgent(url, "interrupt", mode);
    const first = await run(agent, { runId: "run-interrupt-1", forwardedProps: { scenario: "interrupt" } });
    check("interrupt", first.errors.length === 0 && first.runErrors.length === 0 && !first.thrown, JSON.stringify(first));
    check("interrupt outcome", first.outcome === "interrupt", first.outcome);
    check("interrupt pending", agent.pendingInterrupts.length === 1, JSON.stringify(agent.pendingInterrupts));
    const pending = agent.pendingInterrupts[0] ?? {};
    check("interrupt state", isDeepStrictEqual(agent.state, { email: { status: "awaiting approval" } }), JSON.stringify(agent.state));
    const second = await run(agent, {
      runId: "run-interrupt-2",
      forwardedProps: { scenario: "interrupt" },
      resume: [{ interruptId: pending.id, status: "resolved", payload: { approved: true } }],
    });
    check("resume", second.errors.length === 0 && second.runErrors.length === 0 && !second.thrown, JSON.stringify(second));
    check("resume outcome", second.outcome === "success", second.outcome);
    check("resume pending", agent.pendingInterrupts.length === 0, JSON.stringify(agent.pendingInterrupts));
    check("resume state", isDeepStrictEqual(agent.state, { email: { status: "sent" } }), JSON.stringify(agent.state));
    const results = agent.messages.filter((m) => m.role === "tool");
    check("resume tool result", results.length === 1 && results[0].toolCallId === pending.toolCallId, JSON.stringify(results));
    save("interrupt", agent, ["run-interrupt-1", "run-interrupt-2"], mode);
  }
  // error
  {
    const agent = newAgent(url, "error", mode);
    const seen = await run(agent, { runId: "run-error-1", forwardedProps: { scenario: "error" } });
    check("error RUN_ERROR", seen.runErrors.length === 1 && seen.runErrors[0].code === "demo_error", JSON.stringify(seen));
    // The client reports the agent's RUN_ERROR as the run's failure; nothing else.
    const others = [...seen.errors, seen.thrown].filter(Boolean)
      .filter((e) => !e.includes("the demo agent failed on purpose"));
    check("error without protocol errors", others.length === 0, JSON.stringify(seen));
    check("error partial text", isDeepStrictEqual(text(agent.messages, "assistant"), ["Starting the work and then"]), JSON.stringify(agent.messages));
    save("error", agent, ["run-error-1"], mode);
  }
} finally {
  child.kill();
}
}

if (failures.length) {
  console.error(`check-server: ${failures.length} failure(s)`);
  for (const f of failures) console.error(`  ${f}`);
  process.exit(1);
}
console.log("check-server: chat, interrupt + resume, error passed against serve and serve --resumable; results in out/server/");

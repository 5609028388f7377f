// The Rust demo server behind the CopilotKit runtime (@copilotkit/runtime, pinned in this
// directory's package-lock.json), driven through the runtime's routes as CopilotKit's
// browser side drives them.
//
//   node check-copilotkit.mjs
//
// Starts the Rust `web` example (the demo agent at POST /agent, `--log-runs`: a JSON line on
// stderr per run start and end) and registers it with the runtime as an `HttpAgent` of the
// runtime's own @ag-ui/client (0.0.59: pre-1.0, its requests carry no protocolVersion). The
// runtime is `CopilotRuntime` with an `InMemoryAgentRunner`; its fetch handler
// (`createCopilotRuntimeHandler`) is called directly, no port and no network. The browser
// side is played by the same pre-1.0 `HttpAgent` pointed at the runtime's run route, its
// fetch calling the handler (CopilotKit's browser agent is an HttpAgent of that client).
//
// Steps: GET /info; a chat run; a second chat run on the same thread with the folded
// messages and state (the agent reads the shared state); a frontend tool call and its
// result on the next run; an interrupt and its resume; the error scenario; /connect after a
// run; /stop during a slow run (the Rust agent's cancellation is read from its run log).
// Each run's browser-side events are compared with what the Rust server sends for the same
// input (fetched directly), and the browser side's folded messages and state with what the
// Rust client (`run_agent` example) folds from the server. Exits 1 on any difference.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";

// No telemetry from the runtime (and no network in CI).
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
const { CopilotRuntime, InMemoryAgentRunner, createCopilotRuntimeHandler } = await import("@copilotkit/runtime/v2");
const { HttpAgent } = await import("@ag-ui/client");

const HERE = dirname(fileURLToPath(import.meta.url));
// The HttpAgent above must be the runtime's own client (the one its package pins).
const version = (name) => JSON.parse(readFileSync(join(HERE, "node_modules", name, "package.json"), "utf8"));
const runtimeWants = version("@copilotkit/runtime").dependencies["@ag-ui/client"];
const CLIENT_VERSION = version("@ag-ui/client").version;
if (CLIENT_VERSION !== runtimeWants) throw new Error(`@ag-ui/client ${CLIENT_VERSION} here, the runtime pins ${runtimeWants}`);
const ROOT = join(HERE, "..", "..", "..");
const BASE = "http://runtime.invalid/api/copilotkit";
const AGENT = "demo";
const USER = { id: "user-1", role: "user", content: "What is the weather in Amsterdam?" };
const FRONTEND_TOOL = {
  name: "show_city",
  description: "Shows a city on the page; runs in the browser",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const STOP_AFTER_MS = 1500;
const deadline = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref());

let failures = 0;
let passed = 0;
function report(name, problems, summary) {
  if (problems.length) {
    failures += 1;
    console.log(`FAIL ${name}`);
    for (const p of problems) console.log(`  ${p}`);
  } else {
    passed += 1;
    console.log(`ok   ${name}: ${summary}`);
  }
}
const j = (v) => JSON.stringify(v);

// ---- the Rust server ----------------------------------------------------------------------
function cargo(args) {
  const r = spawnSync("cargo", args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], timeout: 1_800_000 });
  if (r.status !== 0) throw new Error(`cargo ${args.join(" ")} failed (${r.status ?? r.signal})`);
}
console.log("== building the Rust examples web and run_agent");
cargo(["build", "-q", "-p", "ag-ui-server", "--example", "web", "--locked"]);
cargo(["build", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked"]);

const server = spawn("cargo", ["run", "-q", "-p", "ag-ui-server", "--example", "web", "--locked", "--",
  "127.0.0.1:0", "--pace-ms", "0", "--log-runs"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
const runLog = []; // the server's run log: {event, runId, threadId, scenario, protocolVersion, events, at}
const logWaiters = [];
createInterface({ input: server.stderr }).on("line", (line) => {
  let entry;
  try { entry = JSON.parse(line); } catch { process.stderr.write(`server: ${line}\n`); return; }
  entry.at = Date.now();
  runLog.push(entry);
  for (const w of [...logWaiters]) if (w.test(entry)) { logWaiters.splice(logWaiters.indexOf(w), 1); w.resolve(entry); }
});
function logEntry(test, ms, what) {
  const found = runLog.find(test);
  if (found) return Promise.resolve(found);
  return Promise.race([new Promise((resolve) => logWaiters.push({ test, resolve })), deadline(ms, what)]);
}
const address = await Promise.race([
  new Promise((resolve) => createInterface({ input: server.stdout }).once("line", resolve)),
  deadline(600_000, "the web example's address"),
]);
if (!/^127\.0\.0\.1:\d+$/.test(address)) throw new Error(`the web example printed ${j(address)}, not its address`);
const AGENT_URL = `http://${address}/agent`;
const tmp = mkdtempSync(join(tmpdir(), "copilotkit-"));

// ---- the runtime ----------------------------------------------------------------------------
const runtime = new CopilotRuntime({
  agents: { [AGENT]: new HttpAgent({ url: AGENT_URL, description: "The Rust demo agent" }) },
  runner: new InMemoryAgentRunner(),
});
const handler = createCopilotRuntimeHandler({ runtime, basePath: "/api/copilotkit", activateChannels: false });
const viaRuntime = (url, init) => handler(new Request(url, init));

// ---- reading SSE ------------------------------------------------------------------------------
async function readEvents(response) {
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const events = [];
  const decoder = new TextDecoder();
  let buffer = "";
  const drain = (final) => {
    const frames = buffer.split("\n\n");
    buffer = final ? "" : frames.pop();
    for (const frame of frames) {
      const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(l.startsWith("data: ") ? 6 : 5));
      if (data.length) events.push(JSON.parse(data.join("\n")));
    }
  };
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    drain(false);
  }
  drain(true);
  return events;
}
// The events the Rust server sends for `input` (what the runtime's HttpAgent receives).
async function serverEvents(input) {
  return readEvents(await fetch(AGENT_URL, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: j(input),
  }));
}

// ---- the browser side ----------------------------------------------------------------------------
// A run through the runtime's run route as CopilotKit's browser agent does it: an HttpAgent
// (the runtime's @ag-ui/client) whose fetch is the runtime's handler. Returns the events that
// reached it and what it folded.
async function browserRun(input, { stopAfterMs } = {}) {
  const agent = new HttpAgent({
    url: `${BASE}/agent/${AGENT}/run`,
    threadId: input.threadId,
    initialMessages: input.messages,
    initialState: input.state ?? {},
    fetch: viaRuntime,
  });
  const events = [];
  let error = null;
  let stopAnswer = null;
  let stopAt = null;
  const stopper = stopAfterMs === undefined ? null : new Promise((resolve) => setTimeout(async () => {
    stopAt = Date.now();
    const response = await handler(new Request(`${BASE}/agent/${AGENT}/stop/${encodeURIComponent(input.threadId)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: "{}",
    }));
    stopAnswer = { status: response.status, body: await response.json() };
    resolve();
  }, stopAfterMs));
  try {
    await Promise.race([
      agent.runAgent(
        { runId: input.runId, tools: input.tools ?? [], context: input.context ?? [], forwardedProps: input.forwardedProps, resume: input.resume },
        { onEvent({ event }) { events.push(event); } },
      ),
      deadline(30_000, `the browser-side run ${input.runId}`),
    ]);
  } catch (e) {
    error = String(e?.message ?? e);
  }
  if (stopper) await stopper;
  return { events, messages: agent.messages, state: agent.state, error, stopAnswer, stopAt };
}

// What the Rust client (the workspace's HttpAgent, `run_agent` example) folds from the server.
function rustRun(name, input) {
  const path = join(tmp, `${name}.json`);
  writeFileSync(path, j(input));
  const r = spawnSync("cargo", ["run", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked", "--", AGENT_URL, path],
    { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  const last = r.stdout.trim().split("\n").pop();
  try { return JSON.parse(last); } catch { throw new Error(`run_agent printed no result (${r.status}): ${r.stderr}`); }
}

// The runtime's changes on the way to the browser: RUN_STARTED gains `input` (the run's
// input as the runtime read it); the pre-1.0 client fills in TEXT_MESSAGE_START's
// default role. Everything else must arrive as the server sent it.
function normalise(events) {
  return events.map((e) => {
    const copy = { ...e };
    if (copy.type === "RUN_STARTED") delete copy.input;
    if (copy.type === "TEXT_MESSAGE_START" && copy.role === "assistant") delete copy.role;
    return copy;
  });
}
function compareEvents(sent, seen) {
  const a = normalise(sent);
  const b = normalise(seen);
  if (isDeepStrictEqual(a, b)) return [];
  const i = a.findIndex((e, k) => !isDeepStrictEqual(e, b[k]));
  return [`events differ (server ${a.length}, browser side ${b.length}); first at #${i}:\n    server:  ${j(a[i])}\n    browser: ${j(b[i])}`];
}
// Messages compared without the client-side differences the two folds are allowed: none
// expected; reasoning messages are kept by both.
function compareFolds(browser, rust) {
  const problems = [];
  if (!isDeepStrictEqual(browser.messages, rust.messages)) {
    problems.push(`messages differ:\n    browser: ${j(browser.messages)}\n    rust:    ${j(rust.messages)}`);
  }
  if (!isDeepStrictEqual(browser.state, rust.state)) {
    problems.push(`state differs:\n    browser: ${j(browser.state)}\n    rust:    ${j(rust.state)}`);
  }
  return problems;
}
function input(threadId, runId, messages, scenario, extra = {}) {
  return { threadId, runId, messages, state: {}, tools: [], context: [], forwardedProps: { scenario }, ...extra };
}
const outcomeOf = (events) => {
  const end = events.findLast((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR");
  if (!end) return null;
  return end.type === "RUN_ERROR" ? { type: "run_error", code: end.code, message: end.message } : end.outcome ?? { type: "success" };
};
const texts = (messages) => messages.filter((m) => m.role === "assistant" && m.content).map((m) => m.content);

// One run both ways: the browser side through the runtime, the Rust client and the raw
// stream straight from the server; checks events, folds and the server's log entry.
async function runBoth(name, doc, expectOutcome) {
  const browser = await browserRun(doc);
  const sent = await serverEvents({ ...doc, runId: `${doc.runId}-direct` });
  const rust = rustRun(name, { ...doc, runId: doc.runId });
  const problems = [];
  if (browser.error) problems.push(`browser side: ${browser.error}`);
  // The direct fetch used its own run id; ids derive from it, so map it back.
  const renamed = JSON.parse(j(sent).replaceAll(`${doc.runId}-direct`, doc.runId));
  problems.push(...compareEvents(renamed, browser.events));
  const started = browser.events.find((e) => e.type === "RUN_STARTED");
  if (!started?.input || started.input.threadId !== doc.threadId) problems.push(`RUN_STARTED.input missing or wrong: ${j(started)}`);
  const outcome = outcomeOf(browser.events);
  if (outcome?.type !== expectOutcome) problems.push(`outcome ${j(outcome)}, expected ${expectOutcome}`);
  problems.push(...compareFolds(browser, rust));
  const logged = runLog.find((e) => e.runId === doc.runId && e.event === "started");
  if (!logged) problems.push("the Rust server logged no run for the browser side's run");
  else if (logged.protocolVersion !== null) problems.push(`the runtime's client sent protocolVersion ${j(logged.protocolVersion)}; expected none (pre-1.0)`);
  return { browser, rust, sent, problems };
}

try {
  // /info
  {
    const response = await handler(new Request(`${BASE}/info`));
    const info = await response.json();
    const problems = [];
    if (response.status !== 200) problems.push(`status ${response.status}`);
    if (info.agents?.[AGENT]?.description !== "The Rust demo agent") problems.push(`agents: ${j(info.agents)}`);
    if (info.mode !== "sse") problems.push(`mode ${j(info.mode)}`);
    report("/info", problems, `runtime ${info.version} (its @ag-ui/client ${CLIENT_VERSION}), agents ${j(Object.keys(info.agents ?? {}))}, mode ${info.mode}`);
  }

  // chat, then a second chat on the same thread carrying the folded messages and state
  const chat = await runBoth("chat", input("thread-chat", "run-chat-1", [USER], "chat"), "success");
  report("chat", chat.problems,
    `${chat.browser.events.length} events reach the browser side as sent, ${chat.browser.messages.length} messages and state ${j(chat.browser.state)} as the Rust client folds them`);
  let chatThread;
  {
    const next = { id: "user-2", role: "user", content: "And tomorrow?" };
    const doc = input("thread-chat", "run-chat-2", [...chat.browser.messages, next], "chat", { state: chat.browser.state });
    const again = await runBoth("chat-2", doc, "success");
    chatThread = again.browser;
    if (again.browser.state?.turns !== 2) again.problems.push(`state.turns ${j(again.browser.state?.turns)}: the agent did not read the shared state sent back`);
    report("shared state", again.problems, `the second run read the state the browser side sent (turns ${again.browser.state?.turns})`);
  }

  // a frontend tool: the agent calls the browser's tool; the browser answers on the next run
  {
    const doc = input("thread-tool", "run-tool-1", [USER], "frontend_tool", { tools: [FRONTEND_TOOL] });
    const first = await runBoth("tool-1", doc, "success");
    const call = first.browser.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.function.name === FRONTEND_TOOL.name);
    if (!call) first.problems.push(`no ${FRONTEND_TOOL.name} call reached the browser side: ${j(first.browser.messages)}`);
    const result = { id: "tool-result-1", role: "tool", toolCallId: call?.id ?? "", content: j({ shown: "Amsterdam" }) };
    const second = await runBoth("tool-2",
      input("thread-tool", "run-tool-2", [...first.browser.messages, result], "frontend_tool", { tools: [FRONTEND_TOOL] }), "success");
    const answer = texts(second.browser.messages).at(-1);
    if (answer !== `Your browser answered: ${result.content}`) second.problems.push(`the agent's answer ${j(answer)}`);
    report("frontend tool", [...first.problems, ...second.problems],
      `call ${call?.function.name}(${call?.function.arguments}) reached the browser; its result on the next run answered: ${j(answer)}`);
  }

  // an interrupt, and its resume through the runtime
  {
    const first = await runBoth("interrupt", input("thread-interrupt", "run-int-1", [USER], "interrupt"), "interrupt");
    const interrupts = outcomeOf(first.browser.events)?.interrupts ?? [];
    if (interrupts.length !== 1) first.problems.push(`interrupts ${j(interrupts)}`);
    const resume = interrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } }));
    const doc = input("thread-interrupt", "run-int-2", first.browser.messages, "interrupt", { state: first.browser.state, resume });
    const second = await runBoth("resume", doc, "success");
    const logged = runLog.find((e) => e.runId === "run-int-2" && e.event === "started");
    if (logged?.resume !== 1) second.problems.push(`the Rust server did not receive the resume (log: ${j(logged)})`);
    if (texts(second.browser.messages).at(-1) !== "The email is sent.") second.problems.push(`texts ${j(texts(second.browser.messages))}`);
    if (!isDeepStrictEqual(second.browser.state, { email: { status: "sent" } })) second.problems.push(`state ${j(second.browser.state)}`);
    report("interrupt and resume", [...first.problems, ...second.problems],
      `RUN_FINISHED's interrupt outcome reaches the browser side; the runtime passes resume ${j(resume.map((r) => r.status))} to the agent, which finishes: ${j(texts(second.browser.messages).at(-1))}`);
  }

  // the error scenario
  {
    const r = await runBoth("error", input("thread-error", "run-err-1", [USER], "error"), "run_error");
    report("error", r.problems, `RUN_ERROR ${j(outcomeOf(r.browser.events)?.code)} reaches the browser side; folds agree`);
  }

  // /connect after a run: the runtime replays the thread from its own store
  {
    const before = runLog.length;
    const response = await handler(new Request(`${BASE}/agent/${AGENT}/connect`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: j(input("thread-chat", "connect-1", [], "chat")),
    }));
    const events = await readEvents(response);
    const problems = [];
    if (runLog.slice(before).some((e) => e.event === "started")) problems.push("connect started a run on the Rust server");
    const snapshot = events.find((e) => e.type === "MESSAGES_SNAPSHOT");
    const runs = events.filter((e) => e.type === "RUN_STARTED").length;
    // Replayed through the pre-1.0 client's fold, the thread is what the two chat runs left.
    const replay = new HttpAgent({ url: `${BASE}/agent/${AGENT}/connect`, threadId: "thread-chat", fetch: viaRuntime });
    const replayed = await replay.runAgent({ runId: "connect-2", forwardedProps: { scenario: "chat" } }).then(
      () => ({ messages: replay.messages, state: replay.state }), (e) => ({ error: String(e) }));
    if (replayed.error) problems.push(`replaying through an HttpAgent: ${replayed.error}`);
    if (!isDeepStrictEqual(replayed.messages, chatThread.messages)) {
      problems.push(`the replay folds to other messages:\n    replayed: ${j(replayed.messages)}\n    the runs: ${j(chatThread.messages)}`);
    }
    if (!isDeepStrictEqual(replayed.state, chatThread.state)) problems.push(`replayed state ${j(replayed.state)}, the runs left ${j(chatThread.state)}`);
    if (!runs) problems.push(`no run replayed: ${j(events.map((e) => e.type))}`);
    report("/connect", problems,
      `${events.length} events replayed (${runs} runs${snapshot ? ", a MESSAGES_SNAPSHOT" : ""}) from the runtime's store, folding to the thread the two chat runs left; no run reached the Rust server`);
  }

  // /stop during a slow run: the runtime aborts its request; the Rust agent is cancelled
  {
    const doc = input("thread-slow", "run-slow-1", [USER], "slow");
    const r = await browserRun(doc, { stopAfterMs: STOP_AFTER_MS });
    const problems = [];
    const cancelled = await logEntry((e) => e.runId === doc.runId && e.event !== "started", 5_000, "the slow run's end in the server's run log")
      .catch((e) => { problems.push(String(e.message)); return null; });
    if (r.stopAnswer?.body?.stopped !== true) problems.push(`/stop answered ${j(r.stopAnswer)}`);
    if (cancelled && cancelled.event !== "cancelled") problems.push(`the Rust run ended as ${j(cancelled.event)}, not cancelled`);
    const latency = cancelled && r.stopAt ? cancelled.at - r.stopAt : null;
    if (latency !== null && latency > 2_000) problems.push(`the cancellation took ${latency} ms`);
    const end = r.events.at(-1);
    const closed = r.events.some((e) => e.type === "TEXT_MESSAGE_END");
    const text = texts(r.messages)[0] ?? "";
    if (!/^1 (2 )?/.test(text)) problems.push(`text before the stop ${j(text)}`);
    report("/stop", problems,
      `/stop answered ${j(r.stopAnswer?.body)}; the Rust agent's run was cancelled ${latency} ms later after ${cancelled?.events} events; the browser side ended with ${end?.type}${end?.message ? ` ${j(end.message)}` : ""}${r.error ? ` and the error ${j(r.error)}` : ""} (text message ${closed ? "closed" : "left open"}), text ${j(text)}`);
  }
} finally {
  server.kill();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);

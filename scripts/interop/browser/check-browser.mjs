// The web demo and the official AG-UI client in a real browser, against the Rust server.
//
//   node check-browser.mjs [--screenshot PATH]
//
// Uses the system's chromium (CHROMIUM, else /usr/bin/chromium; `.ci/run` installs
// Debian's package when it is missing: no browser download), headless, driven over the
// DevTools protocol by puppeteer-core (pinned in package-lock.json, with executablePath).
// The official @ag-ui/client 1.0.0 is bundled for the browser here, at test time, with the
// pinned esbuild (bundle.mjs, to out/ag-ui-client.js; nothing third-party is committed).
//
// 1. The demo page of the Rust `web` example, as a person uses it: a chat (the streamed
//    answer, reasoning, the tool call, its result and the patched state in the DOM), an
//    interrupt answered with its button, a frontend tool the page runs itself, and the
//    chat again with the page's "client" set to the official @ag-ui/client.
// 2. The official HttpAgent in the page, through every demo scenario (chat, interrupt, its
//    resume, error, a frontend tool and its follow-up, a slow run aborted): its messages,
//    state and outcome must equal what the Rust client (`run_agent` example) folds.
// 3. Cross-origin: a page from another origin runs the official HttpAgent against the Rust
//    server. Without CORS the browser must refuse the response; with the server's CORS
//    allowing that origin (`serve --cors-origin`) the run must work and agree with the Rust
//    client.
// 4. Cross-origin, every route of resumable runs, with fetch from a page on another loopback
//    origin (another port), against `serve --resumable --cors-origin` and `serve_redis
//    --cors-origin` (ag-ui-redis, its in-memory store): start a run (its Content-Location
//    read from the response), join it with a Last-Event-ID header, GET the thread, GET the
//    capabilities, stop a run while it streams; each call sends x-request-id, so that each
//    is preflighted. All must succeed; a request header the server does not allow must be
//    refused; and a page from an origin not allowed must be refused on every route.
//
// --screenshot PATH saves the demo page after step 1's chat, with the interrupt pending. Exits 1 on any
// failure.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";
import puppeteer from "puppeteer-core";
import { bundle } from "./bundle.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..", "..");
const OUT = join(HERE, "out");
const BUNDLE = join(OUT, "ag-ui-client.js");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const USER = { id: "user-1", role: "user", content: "What is the weather in Amsterdam?" };
const FRONTEND_TOOL = { name: "show_city", description: "Shows a city on the page; runs in the browser",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const ABORT_MS = 1500;
const SLOW_TEXTS = ["1 ", "1 2 ", "1 2 3 ", "1 2 3 4 "];
const STEP_MS = 30_000;

const argv = process.argv.slice(2);
const screenshotAt = argv[0] === "--screenshot" ? resolve(process.cwd(), argv[1]) : null;
const j = (v) => JSON.stringify(v);
const deadline = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref());

let failures = 0;
let passed = 0;
let skipped = 0;
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
async function step(name, body) {
  try {
    const [problems, summary] = await Promise.race([body(), deadline(STEP_MS * 3, name)]);
    report(name, problems, summary);
  } catch (e) {
    report(name, [`threw: ${e?.stack ?? e}`], "");
  }
}

// ---- build: the official client's bundle and the Rust examples ------------------------------
if (!existsSync(CHROMIUM)) {
  console.log(`FAIL no chromium at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM)`);
  process.exit(1);
}
mkdirSync(OUT, { recursive: true });
await bundle(BUNDLE);
function cargo(args) {
  const r = spawnSync("cargo", args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], timeout: 1_800_000 });
  if (r.status !== 0) throw new Error(`cargo ${args.join(" ")} failed (${r.status ?? r.signal})`);
}
console.log("== building the Rust examples web, serve, serve_redis and run_agent");
cargo(["build", "-q", "-p", "ag-ui-server", "--example", "web", "--example", "serve", "--locked"]);
cargo(["build", "-q", "-p", "ag-ui-redis", "--example", "serve_redis", "--locked"]);
cargo(["build", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked"]);

const children = [];
// Starts a Rust example; resolves to its address (its first stdout line), or null if it
// exited first (with what it said on stderr).
async function example(name, args, pkg = "ag-ui-server") {
  const child = spawn("cargo", ["run", "-q", "-p", pkg, "--example", name, "--locked", "--", ...args],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  createInterface({ input: child.stderr }).on("line", (l) => { stderr += `${l}\n`; });
  const address = await Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve)),
    new Promise((resolve) => child.once("exit", () => resolve(null))),
    deadline(600_000, `the ${name} example's address`),
  ]);
  if (address === null) return { address: null, stderr };
  if (!/^127\.0\.0\.1:\d+$/.test(address)) throw new Error(`the ${name} example printed ${j(address)}`);
  return { address, stderr: () => stderr };
}

const tmp = mkdtempSync(join(tmpdir(), "ag-ui-browser-"));
function rustRun(name, url, input, extra = []) {
  const path = join(tmp, `${name}.json`);
  writeFileSync(path, j(input));
  const r = spawnSync("cargo", ["run", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked", "--", url, path, ...extra],
    { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  const last = (r.stdout ?? "").trim().split("\n").pop();
  try { return JSON.parse(last); } catch { throw new Error(`run_agent printed no result (${r.status}): ${r.stderr}`); }
}

// Runs in the page: one run with the official HttpAgent (window.AgUiClient), reported in the
// shape of the `run_agent` example (as run-agent.mjs does in Node).
async function officialRun(url, input, abortAfterMs) {
  const agent = new window.AgUiClient.HttpAgent({
    url, threadId: input.threadId, initialMessages: input.messages ?? [], initialState: input.state ?? {},
  });
  let events = 0;
  let outcome = null;
  let ok = true;
  let error = null;
  let errorKind = null;
  let aborted = false;
  const timer = abortAfterMs == null ? null : setTimeout(() => { aborted = true; agent.abortRun(); }, abortAfterMs);
  try {
    await agent.runAgent(
      { runId: input.runId, tools: input.tools, context: input.context, forwardedProps: input.forwardedProps, resume: input.resume },
      {
        onEvent({ event }) {
          events += 1;
          if (event.type === "RUN_ERROR") outcome = { type: "run_error", message: event.message, code: event.code ?? null };
        },
        onRunFinishedEvent(p) {
          if (p.outcome === "success") {
            outcome = { type: "success", pendingToolCallIds: p.pendingToolCallIds ?? [] };
            if (p.result !== undefined) outcome.result = p.result;
          } else if (p.outcome === "interrupt") outcome = { type: "interrupt", interrupts: p.interrupts };
          else outcome = { type: p.outcome };
        },
      },
    );
    if (!aborted && outcome === null) { ok = false; error = "the stream ended without RUN_FINISHED or RUN_ERROR"; errorKind = "incomplete_stream"; }
  } catch (e) {
    ok = false;
    error = String(e?.message ?? e);
    errorKind = e?.name === "AbortError" ? "abort" : e instanceof TypeError ? "transport" : "other";
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (aborted) {
    ok = false;
    errorKind = "abort";
    error = error ?? "the run was aborted by the client";
    if (outcome?.type === "run_error" && outcome.code === "abort") outcome = null;
  }
  return { ok, error, errorKind, messages: agent.messages, state: agent.state, outcome, events };
}

// Runs in the page: every route of resumable runs below `base` (the agent URL, no trailing
// slash), with fetch; reports what each call got. `suffix` keeps the ids of each call apart.
async function resumableRoutes(base, suffix) {
  const frames = (text) => text.split("\n\n").map((block) => {
    let id = null;
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id:")) id = line.slice(3).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trim();
    }
    return data ? { id, type: JSON.parse(data).type, event: JSON.parse(data) } : null;
  }).filter(Boolean);
  const headers = (extra = {}) => ({ "x-request-id": `req-${suffix}-${Math.random().toString(16).slice(2)}`, ...extra });
  const body = (runId, scenario) => JSON.stringify({
    protocolVersion: "1.0", threadId: `thread-${suffix}`, runId, state: {}, tools: [], context: [],
    messages: [{ id: "user-1", role: "user", content: "What is the weather in Amsterdam?" }], forwardedProps: { scenario },
  });
  const sse = { accept: "text/event-stream" };
  const json = { "content-type": "application/json", accept: "text/event-stream" };
  const call = async (url, init, read = (r) => r.text()) => {
    try {
      const r = await fetch(url, init);
      return { ok: true, status: r.status, location: r.headers.get("content-location"), body: await read(r) };
    } catch (e) {
      return { ok: false, error: `${e?.name}: ${e?.message}` };
    }
  };
  const out = {};
  const runId = `run-${suffix}`;
  out.start = await call(`${base}/`, { method: "POST", headers: headers(json), body: body(runId, "chat") });
  if (out.start.ok) out.start.frames = frames(out.start.body).map(({ id, type }) => ({ id, type }));
  const joinUrl = out.start.location ? new URL(out.start.location, base).href : `${base}/runs/${runId}/events`;
  out.join = await call(joinUrl, { headers: headers({ ...sse, "last-event-id": "3" }) });
  if (out.join.ok) out.join.frames = frames(out.join.body).map(({ id, type }) => ({ id, type }));
  out.thread = await call(`${base}/threads/thread-${suffix}`, { headers: headers(sse) });
  if (out.thread.ok) out.thread.frames = frames(out.thread.body).map(({ type }) => type);
  out.capabilities = await call(`${base}/capabilities`, { headers: headers() }, (r) => r.json());
  // A stop while the run streams: the slow scenario's first frame, the stop, then the rest.
  const slowId = `run-slow-${suffix}`;
  try {
    const r = await fetch(`${base}/`, { method: "POST", headers: headers(json), body: body(slowId, "slow") });
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("\n\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    out.stop = await call(`${base}/runs/${encodeURIComponent(slowId)}/stop`, { method: "POST", headers: headers() }, (x) => x.json());
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    out.stop.last = frames(text).at(-1)?.event ?? null;
  } catch (e) {
    out.stop = { ok: false, error: `${e?.name}: ${e?.message}` };
  }
  // A request header the server does not allow: the browser must refuse the call.
  out.unlisted = await call(`${base}/capabilities`, { headers: headers({ "x-not-allowed": "1" }) });
  return out;
}

// The problems with what resumableRoutes got on a server that allows the page's origin.
function routeProblems(r) {
  const p = [];
  for (const name of ["start", "join", "thread", "capabilities", "stop"]) {
    if (!r[name]?.ok) p.push(`${name}: refused by the browser (${r[name]?.error})`);
  }
  if (p.length) return p;
  if (r.start.status !== 200) p.push(`start: status ${r.start.status}`);
  if (!r.start.location) p.push("start: Content-Location not readable (not exposed?)");
  if (r.start.frames.at(-1)?.type !== "RUN_FINISHED") p.push(`start: ${j(r.start.frames.map((f) => f.type))}`);
  const after = r.start.frames.filter((f) => Number(f.id) > 3);
  if (r.join.status !== 200) p.push(`join: status ${r.join.status}`);
  else if (!isDeepStrictEqual(r.join.frames, after)) p.push(`join after Last-Event-ID 3: ${j(r.join.frames)}, expected ${j(after)}`);
  if (r.thread.status !== 200) p.push(`thread: status ${r.thread.status}`);
  else if (!isDeepStrictEqual(r.thread.frames, ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"])) p.push(`thread: ${j(r.thread.frames)}`);
  if (r.capabilities.status !== 200 || r.capabilities.body?.transport?.resumable !== true) p.push(`capabilities: ${r.capabilities.status} ${j(r.capabilities.body)}`);
  if (r.stop.status !== 202 || r.stop.body?.status !== "stopping") p.push(`stop: ${r.stop.status} ${j(r.stop.body)}`);
  if (r.stop.last?.type !== "RUN_FINISHED" || r.stop.last?.outcome?.type !== "cancelled") p.push(`the stopped run ended with ${j(r.stop.last)}`);
  if (r.unlisted.ok) p.push(`a header the server does not allow was let through (status ${r.unlisted.status})`);
  return p;
}

function compare(rust, browser, keys = ["messages", "state", "outcome"]) {
  return keys.filter((k) => !isDeepStrictEqual(rust[k], browser[k]))
    .map((k) => `${k} differ:\n    rust:    ${j(rust[k])}\n    browser: ${j(browser[k])}`);
}
const texts = (r) => r.messages.filter((m) => m.role === "assistant" && m.content).map((m) => m.content);
function input(scenario, runId, extra = {}) {
  return { threadId: `thread-${scenario}`, runId, messages: [USER], state: {}, tools: [], context: [], forwardedProps: { scenario }, ...extra };
}

// ---- the run ------------------------------------------------------------------------------------
const web = await example("web", ["127.0.0.1:0", "--pace-ms", "40", "--client-bundle", BUNDLE, "--log-runs"]);
const ORIGIN = `http://${web.address}`;
const AGENT_URL = `${ORIGIN}/agent`;
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"],
});
let otherOrigin = null;
try {
  console.log(`== ${(await browser.version())} (${CHROMIUM})`);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 820 });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.setDefaultTimeout(STEP_MS);

  const dom = () => page.evaluate(() => ({
    messages: [...document.querySelectorAll("#messages .msg")].map((m) => ({
      role: m.dataset.role ?? m.className, text: m.querySelector(".text")?.textContent ?? m.textContent,
      calls: [...m.querySelectorAll(".call")].map((c) => c.textContent),
    })),
    state: JSON.parse(document.querySelector("#state").textContent),
    status: document.querySelector("#status").dataset.status,
    events: document.querySelectorAll("#events li").length,
  }));
  const send = async (scenario, text) => {
    await page.select("#scenario", scenario);
    await page.$eval("#prompt", (el, t) => { el.value = t; }, text);
    await page.click("#send");
  };
  const settled = (status) => page.waitForFunction(
    (s) => document.querySelector("#status").dataset.status === s, {}, status);

  // 1. the demo page, as a person uses it
  await step("web demo: chat", async () => {
    await page.goto(`${ORIGIN}/`, { waitUntil: "load" });
    // Watches the answer grow: a streamed answer is seen with part of its text.
    await page.evaluate(() => {
      window.seenLengths = new Set();
      new MutationObserver(() => {
        for (const m of document.querySelectorAll('#messages .msg[data-role="assistant"][data-streaming="true"] .text')) {
          window.seenLengths.add(m.textContent.length);
        }
      }).observe(document.querySelector("#messages"), { childList: true, subtree: true, characterData: true });
    });
    await send("chat", USER.content);
    await page.waitForSelector('#messages .msg[data-role="assistant"][data-streaming="true"]');
    await settled("success");
    const d = await dom();
    const seen = await page.evaluate(() => [...window.seenLengths].sort((a, b) => a - b));
    const problems = [];
    const roles = d.messages.map((m) => m.role);
    if (!isDeepStrictEqual(roles, ["user", "reasoning", "assistant", "tool", "assistant"])) problems.push(`roles ${j(roles)}`);
    const assistant = d.messages.filter((m) => m.role === "assistant");
    if (assistant.at(-1)?.text !== "It is 14 °C and cloudy in Amsterdam.") problems.push(`answer ${j(assistant.at(-1))}`);
    if (!assistant[0]?.calls[0]?.startsWith('get_weather({"city":"Amsterdam"})')) problems.push(`tool call ${j(assistant[0]?.calls)}`);
    if (!d.messages.find((m) => m.role === "reasoning")?.text.includes("I will look it up.")) problems.push("no reasoning shown");
    if (!isDeepStrictEqual(d.state, { turns: 1, city: "Amsterdam", weather: { temperature: 14, sky: "cloudy" } })) problems.push(`state ${j(d.state)}`);
    if (seen.length < 3) problems.push(`the answer was not seen streaming (text lengths seen while open: ${j(seen)})`);
    return [problems, `${d.messages.length} messages, ${d.events} events listed, the answer seen at ${seen.length} lengths while streaming, state ${j(d.state)}`];
  });

  await step("web demo: interrupt answered with its button", async () => {
    await send("interrupt", "Send Ada an email");
    await page.waitForSelector('#interrupt button[data-answer="approve"]');
    const asked = await page.$eval("#interrupt p", (p) => p.textContent);
    const before = (await dom()).state;
    if (screenshotAt) {
      // The conversation so far with the question pending (after the state's highlight).
      await new Promise((r) => setTimeout(r, 800));
      await page.screenshot({ path: screenshotAt });
      console.log(`   screenshot: ${screenshotAt}`);
    }
    await page.click('#interrupt button[data-answer="approve"]');
    await settled("success");
    await page.waitForFunction(() => !document.querySelector("#interrupt"));
    const d = await dom();
    const problems = [];
    const last = d.messages.filter((m) => m.role === "assistant").at(-1);
    if (asked !== "Send the email to ada@example.com?") problems.push(`the interrupt asked ${j(asked)}`);
    if (!isDeepStrictEqual(before, { email: { status: "awaiting approval" } })) problems.push(`state before ${j(before)}`);
    if (last?.text !== "The email is sent.") problems.push(`last answer ${j(last)}`);
    if (!isDeepStrictEqual(d.state, { email: { status: "sent" } })) problems.push(`state ${j(d.state)}`);
    if (!d.messages.some((m) => m.role === "tool" && m.text.includes('{"sent":true}'))) problems.push("no tool result for the email");
    return [problems, `asked ${j(asked)}, approved; state ${j(before)} -> ${j(d.state)}, answer ${j(last?.text)}`];
  });
  await step("web demo: a frontend tool the page runs", async () => {
    await page.click("#reset");
    await send("frontend_tool", "Show me the city");
    await page.waitForFunction(() => [...document.querySelectorAll('#messages .msg[data-role="assistant"] .text')]
      .some((t) => t.textContent.startsWith("Your browser answered")));
    await settled("success");
    const d = await dom();
    const problems = [];
    const call = d.messages.flatMap((m) => m.calls).find((c) => c.startsWith("show_city"));
    const result = d.messages.find((m) => m.role === "tool");
    if (!call) problems.push(`no show_city call shown: ${j(d.messages)}`);
    if (result?.text !== 'result · {"shown":"Amsterdam"}' && result?.text !== '{"shown":"Amsterdam"}') problems.push(`tool result ${j(result)}`);
    return [problems, `${call} ran in the page; the agent answered ${j(d.messages.at(-1)?.text)}`];
  });

  // The server's run log (stderr of the web example, one JSON line per run start and end).
  const runLog = () => web.stderr().split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
  const cancelledSlowRuns = () => runLog().filter((e) => e.scenario === "slow" && e.event === "cancelled").length;
  const waitForCancelled = (count) => new Promise((resolve) => {
    const t0 = Date.now();
    const poll = () => (cancelledSlowRuns() >= count || Date.now() - t0 > 5000 ? resolve(cancelledSlowRuns()) : setTimeout(poll, 50));
    poll();
  });

  await step("web demo: stop during a slow run", async () => {
    const before = cancelledSlowRuns();
    await page.click("#reset");
    await send("slow", "Count slowly");
    await page.waitForFunction(() => /^1 /.test(document.querySelector('#messages .msg[data-role="assistant"] .text')?.textContent ?? ""));
    await page.click("#stop");
    await page.waitForFunction(() => [...document.querySelectorAll("#messages .msg.error")].some((m) => m.textContent === "Stopped."));
    const d = await dom();
    const problems = [];
    const after = await waitForCancelled(before + 1);
    if (after !== before + 1) problems.push(`the server's run log shows ${after - before} cancelled slow runs, expected 1`);
    if (d.status !== "idle") problems.push(`status ${d.status}`);
    const text = d.messages.find((m) => m.role === "assistant")?.text ?? "";
    if (!/^1 (2 )?$/.test(text)) problems.push(`text before the stop ${j(text)}`);
    return [problems, `the Stop button ended the run after ${j(text)}; the server logged the run cancelled`];
  });

  await step("web demo: chat with the official @ag-ui/client", async () => {
    await page.click("#reset");
    await page.waitForFunction(() => !document.querySelector('#client option[value="official"]').disabled);
    await page.select("#client", "official");
    await send("chat", USER.content);
    await settled("success");
    const d = await dom();
    const problems = [];
    const roles = d.messages.map((m) => m.role);
    if (!isDeepStrictEqual(roles, ["user", "reasoning", "assistant", "tool", "assistant"])) problems.push(`roles ${j(roles)}`);
    if (d.messages.at(-1)?.text !== "It is 14 °C and cloudy in Amsterdam.") problems.push(`answer ${j(d.messages.at(-1))}`);
    if (!isDeepStrictEqual(d.state, { turns: 1, city: "Amsterdam", weather: { temperature: 14, sky: "cloudy" } })) problems.push(`state ${j(d.state)}`);
    await page.select("#client", "builtin");
    return [problems, `the page renders the official client's fold the same: ${roles.length} messages, state ${j(d.state)}`];
  });
  if (pageErrors.length) report("web demo: no page errors", [pageErrors.join("\n")], "");

  // 2. the official client in the browser against the Rust server, every scenario
  const inPage = (doc, abortAfterMs = null) => page.evaluate(officialRun, AGENT_URL, doc, abortAfterMs);
  const both = async (name, doc, extra = []) => {
    const abort = extra.length ? ABORT_MS : null;
    return { rust: rustRun(name, AGENT_URL, doc, extra), browser: await inPage(doc, abort) };
  };
  const check = (r, type) => {
    const p = [];
    if (r.ok !== true) p.push(`ok=${r.ok} (${r.errorKind}: ${r.error})`);
    if (r.outcome?.type !== type) p.push(`outcome ${j(r.outcome)}`);
    return p;
  };
  const firsts = {};
  for (const [scenario, type] of [["chat", "success"], ["interrupt", "interrupt"], ["error", "run_error"]]) {
    await step(`official client in chromium: ${scenario}`, async () => {
      const r = await both(scenario, input(scenario, "run-1"));
      firsts[scenario] = r;
      const problems = [...check(r.rust, type).map((p) => `rust: ${p}`), ...check(r.browser, type).map((p) => `browser: ${p}`), ...compare(r.rust, r.browser)];
      return [problems, `${r.browser.messages.length} messages, state ${j(r.browser.state)}, outcome ${type}: equal to the Rust client's`];
    });
  }
  await step("official client in chromium: resume", async () => {
    const resumeOf = (first) => input("interrupt", "run-2", {
      messages: first.messages, state: first.state,
      resume: (first.outcome?.interrupts ?? []).map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } })),
    });
    const rust = rustRun("resume", AGENT_URL, resumeOf(firsts.interrupt.rust));
    const browserSide = await inPage(resumeOf(firsts.interrupt.browser));
    const problems = [...check(rust, "success").map((p) => `rust: ${p}`), ...check(browserSide, "success").map((p) => `browser: ${p}`), ...compare(rust, browserSide)];
    if (texts(browserSide).at(-1) !== "The email is sent.") problems.push(`texts ${j(texts(browserSide))}`);
    return [problems, `${browserSide.messages.length} messages, state ${j(browserSide.state)}: equal`];
  });
  await step("official client in chromium: frontend tool and its follow-up", async () => {
    const first = await both("tool-1", input("frontend_tool", "run-1", { tools: [FRONTEND_TOOL] }));
    const problems = [...check(first.rust, "success").map((p) => `rust: ${p}`), ...check(first.browser, "success").map((p) => `browser: ${p}`), ...compare(first.rust, first.browser)];
    const pending = first.browser.outcome?.pendingToolCallIds ?? [];
    if (pending.length !== 1) problems.push(`pendingToolCallIds ${j(pending)}`);
    const answer = (r) => input("frontend_tool", "run-2", {
      tools: [FRONTEND_TOOL], state: r.state,
      messages: [...r.messages, { id: "tool-result-1", role: "tool", toolCallId: pending[0] ?? "", content: '{"shown":"Amsterdam"}' }],
    });
    const rust = rustRun("tool-2", AGENT_URL, answer(first.rust));
    const browserSide = await inPage(answer(first.browser));
    problems.push(...compare(rust, browserSide));
    if (texts(browserSide).at(-1) !== 'Your browser answered: {"shown":"Amsterdam"}') problems.push(`texts ${j(texts(browserSide))}`);
    return [problems, `pending ${j(pending)}, answered on the next run: ${j(texts(browserSide).at(-1))}; equal`];
  });
  await step("official client in chromium: slow run aborted", async () => {
    const before = cancelledSlowRuns();
    const r = await both("slow", input("slow", "run-1"), ["--abort-after-ms", String(ABORT_MS)]);
    const problems = [];
    for (const [side, x] of [["rust", r.rust], ["browser", r.browser]]) {
      if (x.ok !== false || x.errorKind !== "abort") problems.push(`${side}: not a client abort (${x.errorKind}: ${x.error})`);
      if (x.outcome !== null) problems.push(`${side}: an outcome after the abort ${j(x.outcome)}`);
      if (!SLOW_TEXTS.includes(texts(x)[0])) problems.push(`${side}: text before the abort ${j(texts(x))}`);
    }
    problems.push(...compare(r.rust, r.browser, ["state", "outcome"]));
    const cancelled = (await waitForCancelled(before + 2)) - before;
    if (cancelled !== 2) problems.push(`the server's run log shows ${cancelled} cancelled slow runs, expected 2 (one per client)`);
    return [problems, `both aborted after ${ABORT_MS} ms (rust ${j(texts(r.rust))}, browser ${j(texts(r.browser))}); the server cancelled both runs`];
  });

  // 3. cross-origin: a page from another origin
  const other = createServer((req, res) => {
    if (req.url === "/ag-ui-client.js") {
      res.writeHead(200, { "Content-Type": "text/javascript" });
      res.end(readFileSync(BUNDLE));
    } else {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end('<!doctype html><title>another origin</title><script src="/ag-ui-client.js"></script>');
    }
  });
  await new Promise((r) => other.listen(0, "127.0.0.1", r));
  otherOrigin = other;
  const OTHER = `http://127.0.0.1:${other.address().port}`;
  const foreign = await browser.newPage();
  foreign.setDefaultTimeout(STEP_MS);
  await foreign.goto(`${OTHER}/`, { waitUntil: "load" });

  await step("cross-origin without CORS: the browser refuses", async () => {
    const r = await foreign.evaluate(officialRun, AGENT_URL, input("chat", "run-cors-0"), null);
    const problems = [];
    if (r.ok !== false || r.errorKind !== "transport") problems.push(`expected a refused fetch, got ok=${r.ok} ${r.errorKind}: ${r.error}`);
    return [problems, `a page from ${OTHER} cannot read ${AGENT_URL}: ${r.error}`];
  });

  const cors = await example("serve", ["127.0.0.1:0", "--cors-origin", OTHER]);
  if (cors.address === null) {
    skipped += 1;
    console.log(`SKIP cross-origin with CORS: the serve example has no --cors-origin yet (${cors.stderr.trim().split("\n").pop()})`);
  } else {
    const CORS_URL = `http://${cors.address}/`;
    for (const [scenario, type] of [["chat", "success"], ["interrupt", "interrupt"]]) {
      await step(`cross-origin with CORS: ${scenario}`, async () => {
        const doc = input(scenario, "run-cors-1");
        const rust = rustRun(`cors-${scenario}`, CORS_URL, doc);
        const r = await foreign.evaluate(officialRun, CORS_URL, doc, null);
        const problems = [...check(rust, type).map((p) => `rust: ${p}`), ...check(r, type).map((p) => `browser: ${p}`), ...compare(rust, r)];
        return [problems, `a page from ${OTHER} runs the agent at ${CORS_URL}: ${r.messages.length} messages, equal to the Rust client's`];
      });
    }
    await step("cross-origin with CORS: another origin is still refused", async () => {
      const stranger = `http://localhost:${other.address().port}`;
      const p = await browser.newPage();
      await p.goto(`${stranger}/`, { waitUntil: "load" });
      const r = await p.evaluate(officialRun, CORS_URL, input("chat", "run-cors-2"), null);
      await p.close();
      const problems = r.ok !== false || r.errorKind !== "transport" ? [`expected a refused fetch from ${stranger}, got ok=${r.ok} ${r.error}`] : [];
      return [problems, `${stranger} is not the allowed origin: refused`];
    });
  }

  // 4. cross-origin, every route of resumable runs (a page on another port of 127.0.0.1)
  const stranger = `http://localhost:${other.address().port}`;
  const servers = [
    ["serve --resumable", "serve", ["127.0.0.1:0", "--resumable", "--pace-ms", "20", "--cors-origin", OTHER], "ag-ui-server"],
    ["serve_redis", "serve_redis", ["127.0.0.1:0", "--pace-ms", "20", "--cors-origin", OTHER], "ag-ui-redis"],
  ];
  for (const [label, name, args, pkg] of servers) {
    const server = await example(name, args, pkg);
    if (server.address === null) {
      report(`cross-origin routes (${label})`, [`the example did not start: ${server.stderr.trim()}`], "");
      continue;
    }
    const base = `http://${server.address}`;
    await step(`cross-origin, every resumable route (${label})`, async () => {
      const r = await foreign.evaluate(resumableRoutes, base, label.replace(/\W+/g, "-"));
      return [routeProblems(r), `a page from ${OTHER} started a run at ${base}, joined it at ${r.start.location} after Last-Event-ID 3 (${r.join.frames?.length} frames), read the thread and the capabilities, stopped a slow run (202, ended cancelled); a header not allowed was refused (${r.unlisted.error})`];
    });
    await step(`cross-origin, every resumable route (${label}): an origin not allowed is refused`, async () => {
      const p = await browser.newPage();
      await p.goto(`${stranger}/`, { waitUntil: "load" });
      const r = await p.evaluate(resumableRoutes, base, `${label.replace(/\W+/g, "-")}-stranger`);
      await p.close();
      const problems = ["start", "join", "thread", "capabilities", "stop"]
        .filter((k) => r[k]?.ok !== false).map((k) => `${k}: not refused (status ${r[k]?.status})`);
      return [problems, `${stranger} is not allowed: all five calls refused (${r.start.error})`];
    });
  }
} finally {
  await browser.close().catch(() => {});
  otherOrigin?.close();
  for (const c of children) c.kill();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failures} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failures ? 1 : 0);

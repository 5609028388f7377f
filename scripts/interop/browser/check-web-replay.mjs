// `ag-ui replay` behind the web demo, in a real browser: a recorded run of the demo agent,
// served by the replay, shows in the page exactly as the live run did.
//
//   node check-web-replay.mjs
//
// Uses the system's chromium (CHROMIUM, else /usr/bin/chromium), headless, driven by
// puppeteer-core (pinned in package-lock.json):
//
// 1. The Rust `web` example; its page chats with the demo agent ("What is the weather in
//    Amsterdam?"); what the page shows (messages, roles, texts, tool calls, state) is kept.
// 2. `ag-ui record` runs the same message against the example's /agent; `ag-ui replay`
//    serves the recording on another port.
// 3. A fresh page of the example, pointed at the replay with `?agent=` (another origin:
//    CORS), sends the same message: it must show the same messages and state.
//
// Exits 1 on any failure.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";
import puppeteer from "puppeteer-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..", "..");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const TARGET = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
const WEB = join(TARGET, "debug", "examples", "web");
const AG_UI = join(TARGET, "debug", "ag-ui");
const STEP_MS = 30_000;
const QUESTION = "What is the weather in Amsterdam?";
const j = (v) => JSON.stringify(v);

if (!existsSync(CHROMIUM)) {
  console.log(`FAIL no chromium at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM)`);
  process.exit(1);
}
console.log("== building the Rust example web and the ag-ui command line");
const built = spawnSync("cargo", ["build", "-q", "-p", "ag-ui-server", "--example", "web", "-p", "ag-ui-cli", "--locked"],
  { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], timeout: 1_800_000 });
if (built.status !== 0) {
  console.log(`FAIL cargo build (${built.status ?? built.signal})`);
  process.exit(1);
}

// Starts `command args`; resolves to { line, child } with the first line it prints.
async function start(command, args) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", () => resolve(null));
  });
  if (!line) throw new Error(`${command} printed no address`);
  return { line: line.trim(), child };
}

const dir = mkdtempSync(join(tmpdir(), "ag-ui-web-replay-"));
const children = [];
let failed = false;
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  timeout: 120_000,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"],
});
try {
  const web = await start(WEB, ["127.0.0.1:0", "--pace-ms", "20"]);
  children.push(web.child);
  const origin = `http://${web.line}`;

  // What a page of its own (fresh storage) shows after one message, with `query` in its URL.
  const chatIn = async (query) => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 820 });
    page.setDefaultTimeout(STEP_MS);
    const errors = [];
    const posts = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => { if (r.method() === "POST") posts.push(r.url()); });
    await page.goto(`${origin}/${query}`, { waitUntil: "load" });
    await page.waitForFunction(() => !["loading", "running"].includes(document.querySelector("#status").dataset.status));
    await page.select("#scenario", "chat");
    await page.$eval("#prompt", (el, t) => { el.value = t; }, QUESTION);
    await page.click("#send");
    await page.waitForFunction(() => !["idle", "loading", "running"].includes(document.querySelector("#status").dataset.status));
    const shown = await page.evaluate(() => ({
      messages: [...document.querySelectorAll("#messages .msg")].map((m) => ({
        role: m.dataset.role ?? m.className, text: m.querySelector(".text")?.textContent ?? m.textContent,
        calls: [...m.querySelectorAll(".call")].map((c) => c.textContent),
      })),
      state: JSON.parse(document.querySelector("#state").textContent),
      status: document.querySelector("#status").dataset.status,
    }));
    await context.close();
    return { shown, errors, posts };
  };

  const live = await chatIn("");
  const recording = join(dir, "run.jsonl");
  const recorded = spawnSync(AG_UI, ["record", `${origin}/agent`, "-m", QUESTION, "-o", recording],
    { stdio: ["ignore", "ignore", "inherit"], timeout: 60_000 });
  if (recorded.status !== 0) throw new Error(`ag-ui record exited ${recorded.status ?? recorded.signal}`);
  const replay = await start(AG_UI, ["replay", recording, "--listen", "127.0.0.1:0", "--speed", "4"]);
  children.push(replay.child);
  const replayed = await chatIn(`?agent=${encodeURIComponent(`http://${replay.line}/agent`)}`);

  const problems = [];
  if (live.shown.status !== "success") problems.push(`the live run ended ${live.shown.status}: ${j(live.shown)}`);
  if (!live.shown.messages.some((m) => m.calls.length)) problems.push(`the live run shows no tool call: ${j(live.shown)}`);
  if (!isDeepStrictEqual(replayed.shown, live.shown)) {
    problems.push(`the replay shows:\n    ${j(replayed.shown)}\n  the live run showed:\n    ${j(live.shown)}`);
  }
  // The page ran the replay, not the demo agent beside it.
  const replayUrl = `http://${replay.line}/agent`;
  if (!isDeepStrictEqual(replayed.posts, [replayUrl])) problems.push(`the page posted to ${j(replayed.posts)}, not ${replayUrl}`);
  if (!isDeepStrictEqual(live.posts, [`${origin}/agent`])) problems.push(`the live page posted to ${j(live.posts)}`);
  for (const e of [...live.errors, ...replayed.errors]) problems.push(`page error: ${e}`);
  if (problems.length) {
    failed = true;
    console.log("FAIL web demo behind ag-ui replay");
    for (const p of problems) console.log(`  ${p}`);
  } else {
    console.log(`ok   web demo behind ag-ui replay: ${live.shown.messages.length} messages and the state ${j(live.shown.state)}, as live`);
  }
} catch (e) {
  failed = true;
  console.log(`FAIL web demo behind ag-ui replay: ${e?.stack ?? e}`);
} finally {
  await browser.close();
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) process.kill(c.pid, "SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

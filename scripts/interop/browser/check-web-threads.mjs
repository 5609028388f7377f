// The web demo's durable threads in a real browser: the page keeps its thread and reads it
// back from the server.
//
//   node check-web-threads.mjs
//
// Uses the system's chromium (CHROMIUM, else /usr/bin/chromium), headless, driven by
// puppeteer-core (pinned in package-lock.json), against the Rust `web` example started with
// `--threads sqlite://web.db` in a temporary directory:
//
// 1. A chat in the page; the server process killed (SIGKILL, by its pid) and started again
//    on the same address and file; the page reloaded: it shows the same conversation (the
//    messages, their roles and texts, the tool call) and the same state, read back from
//    GET /agent/threads/{threadId}. "New thread" then starts an empty one, which a reload
//    keeps empty.
// 2. With `--bearer s3cret=ann`: the page says it needs a token; with the token typed in its
//    field, a chat works, and a reload reads the thread back with the kept token.
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
const STEP_MS = 30_000;
const j = (v) => JSON.stringify(v);

let failures = 0;
function report(name, problems, summary) {
  if (problems.length) {
    failures += 1;
    console.log(`FAIL ${name}`);
    for (const p of problems) console.log(`  ${p}`);
  } else {
    console.log(`ok   ${name}: ${summary}`);
  }
}
async function step(name, body) {
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${STEP_MS * 2} ms`)), STEP_MS * 2).unref());
  try {
    const [problems, summary] = await Promise.race([body(), timeout]);
    report(name, problems, summary);
  } catch (e) {
    report(name, [`threw: ${e?.stack ?? e}`], "");
  }
}

if (!existsSync(CHROMIUM)) {
  console.log(`FAIL no chromium at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM)`);
  process.exit(1);
}
console.log("== building the Rust example web");
const built = spawnSync("cargo", ["build", "-q", "-p", "ag-ui-server", "--example", "web", "--locked"],
  { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], timeout: 1_800_000 });
if (built.status !== 0) {
  console.log(`FAIL cargo build of the web example (${built.status ?? built.signal})`);
  process.exit(1);
}

// The web example in `dir`, on `address`; resolves to { address, child } once it printed
// its address (retried while a killed predecessor's port is not free yet).
async function startWeb(dir, address, args) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const child = spawn(WEB, [address, "--pace-ms", "20", ...args], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
    const line = await new Promise((resolve) => {
      createInterface({ input: child.stdout }).once("line", resolve);
      child.once("exit", () => resolve(null));
    });
    if (line) return { address: line.trim(), child };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the web example did not start on ${address}`);
}
function kill(server) {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  process.kill(server.child.pid, "SIGKILL");
  return exited;
}

const dir = mkdtempSync(join(tmpdir(), "ag-ui-web-threads-"));
const servers = [];
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  timeout: 120_000,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"],
});
try {
  const open = async (origin) => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 820 });
    page.setDefaultTimeout(STEP_MS);
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${origin}/`, { waitUntil: "load" });
    return { page, errors };
  };
  const dom = (page) => page.evaluate(() => ({
    messages: [...document.querySelectorAll("#messages .msg")].map((m) => ({
      role: m.dataset.role ?? m.className, text: m.querySelector(".text")?.textContent ?? m.textContent,
      calls: [...m.querySelectorAll(".call")].map((c) => c.textContent),
    })),
    state: JSON.parse(document.querySelector("#state").textContent),
    status: document.querySelector("#status").dataset.status,
    threadId: window.demo.thread.id,
  }));
  const chat = async (page, text) => {
    await page.select("#scenario", "chat");
    await page.$eval("#prompt", (el, t) => { el.value = t; }, text);
    await page.click("#send");
    await page.waitForFunction(() => !["idle", "loading", "running"].includes(document.querySelector("#status").dataset.status));
    const d = await dom(page);
    if (d.status !== "success") throw new Error(`the chat ended ${d.status}: ${j(d)}`);
  };
  const settledWith = (page, count) => page.waitForFunction(
    (n) => document.querySelectorAll("#messages .msg[data-role]").length === n
      && !["loading", "running"].includes(document.querySelector("#status").dataset.status), {}, count);

  await step("web demo with --threads: the conversation after a restart and a reload", async () => {
    let server = await startWeb(dir, "127.0.0.1:0", ["--threads", "sqlite://web.db"]);
    servers.push(server);
    const origin = `http://${server.address}`;
    const { page, errors } = await open(origin);
    await chat(page, "What is the weather in Amsterdam?");
    const before = await dom(page);
    await kill(server);
    server = await startWeb(dir, server.address, ["--threads", "sqlite://web.db"]);
    servers.push(server);
    await page.reload({ waitUntil: "load" });
    await settledWith(page, before.messages.length);
    const after = await dom(page);
    const problems = [];
    if (!isDeepStrictEqual(before.messages.map((m) => m.role), ["user", "reasoning", "assistant", "tool", "assistant"])) problems.push(`roles before ${j(before.messages)}`);
    if (!isDeepStrictEqual(after, before)) problems.push(`after the restart and reload:\n    ${j(after)}\n  before:\n    ${j(before)}`);
    await page.click("#reset");
    await page.reload({ waitUntil: "load" });
    await page.waitForFunction(() => !["loading", "running"].includes(document.querySelector("#status").dataset.status));
    const fresh = await dom(page);
    if (fresh.messages.length || fresh.threadId === before.threadId) problems.push(`"New thread" then a reload: ${j(fresh)}`);
    if (errors.length) problems.push(`page errors: ${errors.join("; ")}`);
    return [problems, `${after.messages.length} messages and the state ${j(after.state)} read back into the reloaded page after a SIGKILL and a restart; a new thread stays empty`];
  });

  await step("web demo with --bearer: the token field, then the thread read back with it", async () => {
    const server = await startWeb(dir, "127.0.0.1:0", ["--threads", "sqlite://auth.db", "--bearer", "s3cret=ann"]);
    servers.push(server);
    const { page, errors } = await open(`http://${server.address}`);
    const problems = [];
    await page.waitForFunction(() => document.querySelector("#messages .msg.error")?.textContent.includes("bearer token"));
    await page.$eval("#token", (el) => { el.value = "s3cret"; el.dispatchEvent(new Event("change")); });
    await chat(page, "What is the weather in Amsterdam?");
    const before = await dom(page);
    await page.reload({ waitUntil: "load" });
    await settledWith(page, before.messages.length);
    const after = await dom(page);
    if (!isDeepStrictEqual(after, before)) problems.push(`after the reload:\n    ${j(after)}\n  before:\n    ${j(before)}`);
    if (errors.length) problems.push(`page errors: ${errors.join("; ")}`);
    return [problems, `refused without a token; with it typed, ${after.messages.length} messages read back after a reload`];
  });
} finally {
  await browser.close();
  for (const s of servers) {
    if (s.child.exitCode === null && s.child.signalCode === null) process.kill(s.child.pid, "SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);

// The web demo's durable threads in a real browser: the page keeps its thread and reads it
// back from the server; its sidebar lists, opens, renames and deletes threads, and a second
// tab follows the open thread's runs.
//
//   node check-web-threads.mjs [--screenshot PATH]
//
// Uses the system's chromium (CHROMIUM, else /usr/bin/chromium), headless, driven by
// puppeteer-core (pinned in package-lock.json), against the Rust `web` example started with
// `--threads sqlite://web.db` in a temporary directory:
//
// 1. A chat in the page; the server process killed (SIGKILL, by its pid) and started again
//    on the same address and file; the page reloaded: it shows the same conversation (the
//    messages, their roles and texts, the tool call) and the same state, read back from
//    GET /agent/threads/{threadId}. "New" then starts an empty one, which a reload
//    keeps empty.
// 2. With `--bearer s3cret=ann`: the page says it needs a token; with the token typed in its
//    field, a chat works, and a reload reads the thread back with the kept token.
// 3. The sidebar: three threads made in the page (each titled from its first user message
//    when its first run ends) and one run by another client (listed by its first user
//    message, as it has no title); one renamed, two deleted (confirmations accepted), one
//    archived (gone from the list, shown with "show archived", unarchived); the
//    server killed and started again; the reloaded page lists the two left, with their
//    titles, and opening each shows its messages as they were. A second page (tab) on the
//    same thread, idle and never reloaded, follows a run started in the first: it shows the
//    run going on, its assistant message growing as it streams, and ends with the same
//    messages as the first page.
//
// --screenshot PATH saves the first page of step 3 (the sidebar with the two threads, a
// conversation, its state) after the run the second page followed. Exits 1 on any failure.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
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
const argv = process.argv.slice(2);
const screenshotAt = argv[0] === "--screenshot" ? resolve(process.cwd(), argv[1]) : null;
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
    if (fresh.messages.length || fresh.threadId === before.threadId) problems.push(`"New" then a reload: ${j(fresh)}`);
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
  await step("web demo sidebar: three threads, rename, delete, restart; a second tab follows a run", async () => {
    const problems = [];
    let server = await startWeb(dir, "127.0.0.1:0", ["--threads", "sqlite://sidebar.db"]);
    servers.push(server);
    const origin = `http://${server.address}`;
    const { page, errors } = await open(origin);
    page.on("dialog", (d) => d.accept());
    // The sidebar as shown: each listed thread's id, title, whether it is open.
    const sidebar = (p) => p.evaluate(() => [...document.querySelectorAll("#threads .thread")].map((t) => ({
      id: t.dataset.threadId, title: t.querySelector(".title")?.textContent, open: t.dataset.open === "true",
    })));
    const listed = (p, count) => p.waitForFunction((n) => document.querySelectorAll('#threads .thread [data-act="delete"]').length === n, {}, count);
    const titled = (p, id, title) => p.waitForFunction((i, t) => [...document.querySelectorAll("#threads .thread")]
      .some((e) => e.dataset.threadId === i && e.querySelector(".open .title")?.textContent === t), {}, id, title);
    const item = (id) => `#threads .thread[data-thread-id="${id}"]`;
    // A click on a sidebar element, again when the list was redrawn under it (it is read again
    // every 2 s while the page is idle).
    const press = async (selector, hover) => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          if (hover) await page.hover(hover);
          await page.click(selector);
          return;
        } catch (e) {
          if (attempt >= 5 || !/detached|not clickable|not visible/i.test(String(e?.message))) throw e;
        }
      }
    };

    const prompts = [
      "What is the weather in Amsterdam?",
      "Is it going to rain in Lisbon and in Porto over the weekend, or can we go to the beach?",
      "Cloudy in Utrecht?",
    ];
    const expectedTitles = [prompts[0], "Is it going to rain in Lisbon and in…", prompts[2]];
    const ids = [];
    for (const [i, prompt] of prompts.entries()) {
      if (i > 0) await page.click("#reset");
      await chat(page, prompt);
      const { threadId } = await dom(page);
      ids.push(threadId);
      await titled(page, threadId, expectedTitles[i]);
    }
    await listed(page, 3);
    const three = await sidebar(page);
    if (!isDeepStrictEqual(three.map((t) => t.id), [...ids].reverse())) problems.push(`three threads, most recent first: ${j(three)} (made ${j(ids)})`);
    if (!isDeepStrictEqual(three.map((t) => t.title), [...expectedTitles].reverse())) problems.push(`titles from the first user messages: ${j(three.map((t) => t.title))}`);

    // A thread another client ran, without a title: listed by its first user message (the
    // page reads the list again every 2 s).
    await page.evaluate(async () => {
      const answer = await fetch("/agent", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({
          protocolVersion: "1.0", threadId: "thread-elsewhere", runId: "run-elsewhere",
          messages: [{ id: "user-elsewhere", role: "user", content: "Started by another client" }],
          state: {}, tools: [], context: [], forwardedProps: { scenario: "chat" },
        }),
      });
      await answer.text();
    });
    await titled(page, "thread-elsewhere", "Started by another client");
    await listed(page, 4);

    // Open the first, rename it; delete the second and the other client's.
    await press(`${item(ids[0])} .open`);
    await settledWith(page, 5);
    await press(`${item(ids[0])} [data-act="rename"]`, item(ids[0]));
    await page.waitForSelector("#threads .rename");
    await page.$eval("#threads .rename", (e) => { e.value = ""; });
    await page.type("#threads .rename", "Amsterdam weather");
    await page.keyboard.press("Enter");
    await titled(page, ids[0], "Amsterdam weather");
    await press(`${item(ids[1])} [data-act="delete"]`, item(ids[1]));
    await listed(page, 3);
    await press(`${item("thread-elsewhere")} [data-act="delete"]`, item("thread-elsewhere"));
    await listed(page, 2);
    // Archive the third: it leaves the list, "show archived" shows it, unarchived it is back.
    await press(`${item(ids[2])} [data-act="archive"]`, item(ids[2]));
    await listed(page, 1);
    await page.click("#show-archived");
    await page.waitForSelector(`${item(ids[2])}[data-archived="true"]`);
    await press(`${item(ids[2])} [data-act="unarchive"]`, item(ids[2]));
    await page.waitForSelector(`${item(ids[2])}[data-archived="false"]`);
    await page.click("#show-archived");
    await listed(page, 2);
    const kept = { [ids[0]]: "Amsterdam weather", [ids[2]]: expectedTitles[2] };
    const shown = {};
    for (const id of [ids[2], ids[0]]) {
      await press(`${item(id)} .open`);
      await page.waitForFunction((i) => window.demo.thread.id === i, {}, id);
      await settledWith(page, 5);
      shown[id] = (await dom(page)).messages;
    }

    // A restart, slower (so that a run lasts seconds), and a reload.
    await kill(server);
    server = await startWeb(dir, server.address, ["--threads", "sqlite://sidebar.db", "--pace-ms", "600"]);
    servers.push(server);
    await page.reload({ waitUntil: "load" });
    await listed(page, 2);
    const two = await sidebar(page);
    // Most recently updated first: the third was unarchived after the first was renamed.
    const wanted = [ids[2], ids[0]].map((id) => ({ id, title: kept[id] }));
    if (!isDeepStrictEqual(two.map(({ id, title }) => ({ id, title })), wanted)) problems.push(`after the restart the sidebar lists ${j(two)}, not ${j(wanted)}`);
    for (const id of [ids[2], ids[0]]) {
      await press(`${item(id)} .open`);
      await page.waitForFunction((i) => window.demo.thread.id === i, {}, id);
      await settledWith(page, shown[id].length);
      const now = (await dom(page)).messages;
      if (!isDeepStrictEqual(now, shown[id])) problems.push(`thread ${id} after the restart:\n    ${j(now)}\n  before:\n    ${j(shown[id])}`);
    }
    const api = await page.evaluate(async () => (await fetch("/agent/threads")).json());
    if (!isDeepStrictEqual(api.threads.map((t) => [t.threadId, t.title]), wanted.map((w) => [w.id, w.title]))) problems.push(`GET /agent/threads: ${j(api)}`);

    // A second tab on the same thread follows a run started in the first.
    const second = await open(origin);
    await second.page.waitForFunction((i) => window.demo.thread.id === i, {}, ids[0]);
    await settledWith(second.page, shown[ids[0]].length);
    await second.page.evaluate(() => {
      // What the second page shows while the run goes on, sampled every 100 ms.
      window.samples = [];
      const sample = () => {
        const last = [...document.querySelectorAll('#messages .msg[data-role="assistant"] .text')].at(-1);
        window.samples.push({ status: document.querySelector("#status").dataset.status, count: document.querySelectorAll("#messages .msg[data-role]").length, text: last?.textContent ?? "" });
      };
      window.sampler = setInterval(sample, 100);
    });
    const runStarted = Date.now();
    await page.select("#scenario", "chat");
    await page.$eval("#prompt", (el) => { el.value = "And tomorrow?"; });
    await page.bringToFront();
    await page.click("#send");
    await second.page.bringToFront();
    await page.waitForFunction(() => !["idle", "loading", "running"].includes(document.querySelector("#status").dataset.status), { timeout: STEP_MS, polling: 100 });
    const first = await dom(page);
    await second.page.waitForFunction((n) => document.querySelectorAll("#messages .msg[data-role]").length === n
      && document.querySelector("#status").dataset.status === "success", { timeout: STEP_MS, polling: 100 }, first.messages.length);
    const followedIn = Date.now() - runStarted;
    const samples = await second.page.evaluate(() => { clearInterval(window.sampler); return window.samples; });
    const followed = await dom(second.page);
    if (first.status !== "success" || first.messages.length !== shown[ids[0]].length + 5) problems.push(`the first page's run: ${j(first)}`);
    if (!isDeepStrictEqual(followed.messages, first.messages)) problems.push(`the second page ends with\n    ${j(followed.messages)}\n  the first with\n    ${j(first.messages)}`);
    const live = samples.filter((s) => s.status === "running" && s.count > shown[ids[0]].length);
    const lengths = new Set(live.map((s) => `${s.count}:${s.text.length}`));
    if (lengths.size < 3) problems.push(`the second page did not show the run as it streamed (running samples with new messages: ${j(live)})`);
    if (second.errors.length) problems.push(`second page errors: ${second.errors.join("; ")}`);
    if (screenshotAt) {
      await page.bringToFront();
      await new Promise((r) => setTimeout(r, 800));
      await page.screenshot({ path: screenshotAt });
      console.log(`   screenshot: ${screenshotAt}`);
    }
    if (errors.length) problems.push(`page errors: ${errors.join("; ")}`);
    return [problems, `3 threads titled from their first messages and an untitled one listed by its first message; one renamed, two deleted, one archived and back; after a restart the sidebar lists ${two.length} with their titles and each opens with its messages; a second tab followed a run live (${lengths.size} distinct views while it streamed, in step ${followedIn} ms after the send)`];
  });
} finally {
  await browser.close();
  for (const s of servers) {
    if (s.child.exitCode === null && s.child.signalCode === null) process.kill(s.child.pid, "SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);

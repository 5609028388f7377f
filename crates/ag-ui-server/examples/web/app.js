// The web demo's script: runs the agent at /agent over AG-UI (HTTP POST, SSE answer),
// folds the events into the conversation and the shared state, and renders both as they
// stream. No dependencies: the built-in reader below is the whole client. When the server
// serves a bundle of the official @ag-ui/client at /ag-ui-client.js, the page can use its
// HttpAgent instead (the "client" select).
//
// The thread's id is kept in localStorage; when the page loads, it reads the thread back
// from GET /agent/threads/{threadId} (served when the example runs with --threads or
// --bearer), so a conversation survives a reload, and, with --threads, a restart of the
// server. The sidebar lists the threads (GET /agent/threads) and opens, renames, archives
// and deletes them (see "the threads sidebar" below). A bearer token typed in the "bearer
// token" field (kept in localStorage too) is sent with every request, for a server started
// with --bearer.
"use strict";

// `?agent=URL` points the page at another AG-UI endpoint (one that allows the page's origin,
// such as `ag-ui replay`, which serves a recorded run); the demo agent at /agent otherwise.
const AGENT_URL = new URLSearchParams(location.search).get("agent") || "/agent";
const THREAD_KEY = "ag-ui-demo.threadId";
const TOKEN_KEY = "ag-ui-demo.token";
// Tools the page declares to the agent and runs itself (the frontend_tool scenario).
const FRONTEND_TOOLS = [
  {
    name: "show_city",
    description: "Shows a city on the page; runs in the browser",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
const MAX_FOLLOW_UPS = 3;

const $ = (id) => document.getElementById(id);
const ui = {
  messages: $("messages"), state: $("state"), events: $("events"), status: $("status"),
  form: $("composer"), prompt: $("prompt"), scenario: $("scenario"), send: $("send"),
  stop: $("stop"), client: $("client"), reset: $("reset"), token: $("token"),
  threads: $("threads"), showArchived: $("show-archived"),
};

// localStorage, when the browser allows it (a private window may not).
const stored = {
  get(key) { try { return localStorage.getItem(key); } catch { return null; } },
  set(key, value) { try { localStorage.setItem(key, value); } catch { /* not kept */ } },
};

function newId(prefix) {
  const random = globalThis.crypto?.randomUUID
    ? crypto.randomUUID()
    : Math.random().toString(36).slice(2) + Date.now().toString(36);
  return `${prefix}-${random}`;
}
const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

// What the page knows of the thread: the folded messages and state, and UI notes.
const thread = {
  id: stored.get(THREAD_KEY) ?? newId("thread"),
  messages: [],
  state: {},
  streaming: new Set(), // ids of text and reasoning messages still open
  interrupts: [], // the pending interrupts of the last run
  notes: [], // errors and stops, shown after the messages
  runs: 0,
  lastOutcome: null,
  titleFrom: null, // the first user message of a thread new in this page, until its first run ended
};
let active = null; // { abort() } while a run streams

// ---- the built-in reader: SSE frames to events --------------------------------------
async function* readSse(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  // Every complete frame in the buffer (and, at the end, what is left).
  const frames = function* (final) {
    const parts = buffer.replace(/\r\n?/g, "\n").split("\n\n");
    buffer = final ? "" : parts.pop();
    for (const frame of parts) {
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
      if (data.length) yield JSON.parse(data.join("\n"));
    }
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    yield* frames(false);
  }
  buffer += decoder.decode();
  yield* frames(true);
}

// ---- JSON Patch (RFC 6902) for STATE_DELTA -------------------------------------------
function applyPatch(doc, ops) {
  let root = clone(doc);
  const tokens = (path) =>
    path === "" ? [] : path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const parentOf = (path) => {
    const t = tokens(path);
    const key = t.pop();
    let node = root;
    for (const k of t) {
      if (node === null || typeof node !== "object" || !(k in node)) throw new Error(`no member at ${path}`);
      node = node[k];
    }
    return [node, key];
  };
  const get = (path) => {
    let node = root;
    for (const k of tokens(path)) {
      if (node === null || typeof node !== "object" || !(k in node)) throw new Error(`no member at ${path}`);
      node = node[k];
    }
    return node;
  };
  const put = (path, value, replace) => {
    if (path === "") { root = value; return; }
    const [node, key] = parentOf(path);
    if (Array.isArray(node)) {
      const i = key === "-" ? node.length : Number(key);
      if (replace) node[i] = value; else node.splice(i, 0, value);
    } else node[key] = value;
  };
  const remove = (path) => {
    const [node, key] = parentOf(path);
    if (Array.isArray(node)) node.splice(Number(key), 1); else delete node[key];
  };
  for (const op of ops) {
    switch (op.op) {
      case "add": put(op.path, clone(op.value), false); break;
      case "replace": get(op.path); put(op.path, clone(op.value), true); break;
      case "remove": remove(op.path); break;
      case "copy": put(op.path, clone(get(op.from)), false); break;
      case "move": { const v = get(op.from); remove(op.from); put(op.path, v, false); break; }
      case "test":
        if (JSON.stringify(get(op.path)) !== JSON.stringify(op.value)) throw new Error(`test failed at ${op.path}`);
        break;
      default: throw new Error(`unknown patch op ${op.op}`);
    }
  }
  return root;
}

// ---- folding events into the thread (the built-in client) ----------------------------
function findMessage(id) { return thread.messages.find((m) => m.id === id); }
function findCall(id) {
  for (const m of thread.messages) for (const c of m.toolCalls ?? []) if (c.id === id) return c;
  return undefined;
}
function lastCallId() {
  const calls = thread.messages.flatMap((m) => m.toolCalls ?? []);
  return calls.at(-1)?.id;
}
function openText(id, role) {
  if (!findMessage(id)) thread.messages.push({ id, role, content: "" });
  thread.streaming.add(id);
}
function foldEvent(e) {
  switch (e.type) {
    case "TEXT_MESSAGE_START": openText(e.messageId, e.role ?? "assistant"); break;
    case "TEXT_MESSAGE_CHUNK":
    case "REASONING_MESSAGE_CHUNK": {
      // A chunk opens its message when the id is new, and carries a delta.
      const id = e.messageId ?? [...thread.streaming].pop();
      if (id === undefined) break;
      openText(id, e.type === "REASONING_MESSAGE_CHUNK" ? "reasoning" : e.role ?? "assistant");
      const m = findMessage(id);
      if (e.delta) m.content += e.delta;
      break;
    }
    case "TOOL_CALL_CHUNK": {
      if (e.toolCallId && !findCall(e.toolCallId)) foldEvent({ ...e, type: "TOOL_CALL_START" });
      const c = findCall(e.toolCallId ?? lastCallId());
      if (c && e.delta) c.function.arguments += e.delta;
      break;
    }
    case "TEXT_MESSAGE_CONTENT":
    case "REASONING_MESSAGE_CONTENT": {
      const m = findMessage(e.messageId);
      if (m && e.delta) m.content += e.delta;
      break;
    }
    case "TEXT_MESSAGE_END":
    case "REASONING_MESSAGE_END": thread.streaming.delete(e.messageId); break;
    case "REASONING_MESSAGE_START": openText(e.messageId, "reasoning"); break;
    case "TOOL_CALL_START": {
      let owner = e.parentMessageId && findMessage(e.parentMessageId);
      if (!owner || owner.role !== "assistant") {
        owner = { id: e.parentMessageId ?? e.toolCallId, role: "assistant", content: "" };
        thread.messages.push(owner);
      }
      owner.toolCalls = owner.toolCalls ?? [];
      owner.toolCalls.push({ id: e.toolCallId, type: "function", function: { name: e.toolCallName, arguments: "" } });
      break;
    }
    case "TOOL_CALL_ARGS": { const c = findCall(e.toolCallId); if (c) c.function.arguments += e.delta; break; }
    case "TOOL_CALL_RESULT":
      thread.messages.push({ id: e.messageId, role: "tool", toolCallId: e.toolCallId, content: e.content });
      break;
    case "STATE_SNAPSHOT": setState(e.snapshot); break;
    case "STATE_DELTA": setState(applyPatch(thread.state, e.delta)); break;
    case "MESSAGES_SNAPSHOT": thread.messages = clone(e.messages); break;
    default: break;
  }
}
function setState(next) {
  thread.state = clone(next) ?? {};
  ui.state.classList.add("patched");
  setTimeout(() => ui.state.classList.remove("patched"), 80);
}

// ---- running the agent ----------------------------------------------------------------
function runInput(extra) {
  return {
    threadId: thread.id,
    runId: newId("run"),
    protocolVersion: "1.0",
    messages: thread.messages.filter((m) => m.role !== "reasoning" || m.content),
    state: thread.state,
    tools: FRONTEND_TOOLS,
    context: [],
    forwardedProps: { scenario: ui.scenario.value },
    ...extra,
  };
}

// The Authorization header for the token typed in, if any.
function authHeaders() {
  const token = ui.token.value.trim();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

// Runs with the built-in reader; resolves to the run's outcome.
async function runBuiltin(input) {
  const controller = new AbortController();
  active = { abort: () => controller.abort() };
  const response = await fetch(AGENT_URL, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders() },
    body: JSON.stringify(input),
    signal: controller.signal,
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  let outcome = null;
  for await (const event of readSse(response)) {
    logEvent(event);
    foldEvent(event);
    if (event.type === "RUN_FINISHED") outcome = event.outcome ?? { type: "success" };
    if (event.type === "RUN_ERROR") outcome = { type: "error", message: event.message, code: event.code };
    render();
  }
  if (!outcome) throw new Error("the stream ended without RUN_FINISHED or RUN_ERROR");
  return outcome;
}

// Runs with the official client's HttpAgent (window.AgUiClient, from /ag-ui-client.js).
async function runOfficial(input) {
  const agent = new window.AgUiClient.HttpAgent({
    url: AGENT_URL,
    threadId: input.threadId,
    initialMessages: input.messages,
    initialState: input.state,
    headers: authHeaders(),
  });
  active = { abort: () => agent.abortRun() };
  let outcome = null;
  await agent.runAgent(
    { runId: input.runId, tools: input.tools, context: input.context, forwardedProps: input.forwardedProps, resume: input.resume },
    {
      onEvent({ event }) {
        logEvent(event);
        if (event.type === "TEXT_MESSAGE_START" || event.type === "REASONING_MESSAGE_START") thread.streaming.add(event.messageId);
        if (event.type === "TEXT_MESSAGE_END" || event.type === "REASONING_MESSAGE_END") thread.streaming.delete(event.messageId);
        if (event.type === "RUN_FINISHED") outcome = event.outcome ?? { type: "success" };
        if (event.type === "RUN_ERROR") outcome = { type: "error", message: event.message, code: event.code };
      },
      onMessagesChanged({ messages }) { thread.messages = clone(messages); render(); },
      onStateChanged({ state }) { setState(state); render(); },
    },
  );
  if (!outcome) throw new Error("the run ended without RUN_FINISHED or RUN_ERROR");
  return outcome;
}

async function run(extra = {}, followUps = 0) {
  const id = thread.id;
  stored.set(THREAD_KEY, thread.id);
  const input = runInput(extra);
  thread.runs += 1;
  thread.interrupts = [];
  thread.notes = [];
  setStatus("running");
  ui.send.disabled = true;
  ui.stop.disabled = false;
  render();
  let outcome;
  try {
    outcome = await (ui.client.value === "official" ? runOfficial(input) : runBuiltin(input));
  } catch (e) {
    const stopped = e?.name === "AbortError" || /abort/i.test(String(e?.message));
    outcome = stopped ? { type: "stopped" } : { type: "error", message: String(e?.message ?? e) };
  } finally {
    active = null;
    ui.send.disabled = false;
    ui.stop.disabled = true;
  }
  // Another thread was opened meanwhile: this run's end is not the open thread's.
  if (thread.id !== id) return;
  thread.streaming.clear();
  thread.lastOutcome = outcome;
  if (outcome.type === "interrupt") thread.interrupts = outcome.interrupts ?? [];
  if (outcome.type === "error") thread.notes.push({ kind: "error", text: `Run failed: ${outcome.message}${outcome.code ? ` (${outcome.code})` : ""}` });
  if (outcome.type === "stopped") thread.notes.push({ kind: "error", text: "Stopped." });
  setStatus(outcome.type === "stopped" ? "idle" : outcome.type);
  render();
  if (outcome.type === "success" && followUps < MAX_FOLLOW_UPS && runFrontendTools()) {
    await run({}, followUps + 1);
  }
  if (followUps === 0 && thread.id === id) await afterRun();
}

// Runs the page's own tools for calls the last run left unanswered; true if it ran any.
function runFrontendTools() {
  const answered = new Set(thread.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  let ran = false;
  for (const m of thread.messages) {
    for (const call of m.toolCalls ?? []) {
      if (answered.has(call.id) || !FRONTEND_TOOLS.some((t) => t.name === call.function.name)) continue;
      let args = {};
      try { args = JSON.parse(call.function.arguments || "{}"); } catch { /* shown as given */ }
      const content = JSON.stringify({ shown: args.city ?? null });
      thread.messages.push({ id: newId("tool"), role: "tool", toolCallId: call.id, content });
      ran = true;
    }
  }
  return ran;
}

function answerInterrupts(approve) {
  const resume = thread.interrupts.map((i) =>
    approve
      ? { interruptId: i.id, status: "resolved", payload: { approved: true } }
      : { interruptId: i.id, status: "cancelled" },
  );
  run({ resume, forwardedProps: { scenario: "interrupt" } });
}

// ---- rendering --------------------------------------------------------------------------
function setStatus(s) { ui.status.dataset.status = s; ui.status.textContent = s; }

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.filter((p) => p.type === "text").map((p) => p.text).join("");
  return "";
}

function render() {
  const nodes = [];
  for (const m of thread.messages) {
    if (m.role === "tool") {
      nodes.push(el("div", { class: "msg", "data-role": "tool", "data-id": m.id }, textOf(m.content)));
      continue;
    }
    if (!["user", "assistant", "reasoning"].includes(m.role)) continue;
    const streaming = thread.streaming.has(m.id) ? "true" : "false";
    const text = textOf(m.content);
    const showText = text !== "" || (streaming === "true" && !m.toolCalls?.length);
    const node = el("div", { class: "msg", "data-role": m.role, "data-id": m.id, "data-streaming": streaming },
      showText ? el("span", { class: "text" }, text) : null);
    for (const c of m.toolCalls ?? []) {
      node.append(el("div", { class: "call", "data-tool": c.function.name },
        el("span", { class: "name" }, c.function.name), `(${c.function.arguments})`));
    }
    nodes.push(node);
  }
  for (const n of thread.notes) nodes.push(el("div", { class: `msg ${n.kind}` }, n.text));
  if (thread.interrupts.length) {
    const card = el("div", { class: "interrupt", id: "interrupt" });
    for (const i of thread.interrupts) card.append(el("p", {}, i.message ?? i.reason ?? `interrupt ${i.id}`));
    card.append(
      el("button", { class: "primary", type: "button", "data-answer": "approve", onclick: () => answerInterrupts(true) }, "Approve"),
      el("button", { type: "button", "data-answer": "reject", onclick: () => answerInterrupts(false) }, "Reject"),
    );
    nodes.push(card);
  }
  if (!nodes.length) nodes.push(el("p", { class: "empty" }, "Ask the agent something, for instance about the weather."));
  ui.messages.replaceChildren(...nodes);
  ui.messages.scrollTop = ui.messages.scrollHeight;
  ui.state.textContent = JSON.stringify(thread.state, null, 2);
}

function logEvent(e) {
  const detail = e.delta !== undefined ? JSON.stringify(e.delta)
    : e.toolCallName ?? e.outcome?.type ?? e.message ?? "";
  ui.events.append(el("li", {}, el("span", {}, e.type), detail ? ` ${String(detail).slice(0, 60)}` : ""));
  while (ui.events.children.length > 300) ui.events.firstChild.remove();
  ui.events.scrollTop = ui.events.scrollHeight;
}

// ---- the threads sidebar --------------------------------------------------------------------
// The principal's threads, read from GET /agent/threads (most recently updated first). Each
// can be opened (read back through the connect stream, as on load), renamed, archived or
// deleted (PATCH and DELETE on /agent/threads/{threadId}). The list is read again after each
// run and each change, and, while the open thread is idle and the tab visible, every POLL_MS:
// when the open thread changed on the server (a run from another tab or client), the page
// reads it again through the connect stream, which streams a run still going on as it goes.
const POLL_MS = 2000;
const REQUEST_MS = 10_000;
const TITLE_CHARS = 40;
const LIST_LIMIT = 50;
const sidebar = {
  threads: [], // the summaries of the last list read
  keeps: null, // false once the server answered that it keeps no threads; null until asked
  problem: null, // why the last list read failed, shown in the list
  seen: null, // { threadId, mark } of the open thread as the page last knew it
  firstTexts: new Map(), // threadId -> { updatedAt, text }: an untitled thread's first user message
  editing: null, // the id of the thread whose title is being edited
  timer: null, // the next poll
  reading: null, // the list read going on (a promise)
  shown: null, // what the list shows, to leave it alone when that did not change
};
let loading = null; // { abort() } while the connect stream of the open thread is read

const threadUrl = (id) => `${AGENT_URL}/threads/${encodeURIComponent(id)}`;
// What tells whether a thread changed: its last update and its number of runs.
const markOf = (summary) => (summary ? `${summary.updatedAt}|${summary.runCount}` : "");

// A JSON request to the threads API, with the page's bearer token, bounded by REQUEST_MS.
function threadsRequest(method, url, body) {
  const headers = { Accept: "application/json", ...authHeaders() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_MS),
  });
}

// Why a refused request was refused: the server's JSON `message`, else the status.
async function refusal(response) {
  try {
    const body = await response.json();
    return `${body.message ?? body.code ?? response.statusText} (HTTP ${response.status})`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

// A short title from the first user message: its first TITLE_CHARS characters, cut at a word.
function titleFrom(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

// What the list shows for a thread: its title, else its first user message, else its id.
function labelOf(summary) {
  if (summary.title) return summary.title;
  const first = sidebar.firstTexts.get(summary.threadId)?.text;
  return first ? titleFrom(first) : summary.threadId;
}

// Reads the first user message of the untitled threads in the list (once per update).
async function readFirstTexts() {
  const wanted = sidebar.threads.filter((t) => !t.title
    && sidebar.firstTexts.get(t.threadId)?.updatedAt !== t.updatedAt);
  for (const t of wanted.slice(0, 10)) {
    try {
      const response = await threadsRequest("GET", threadUrl(t.threadId));
      if (!response.ok) continue;
      const detail = await response.json();
      const first = (detail.messages ?? []).find((m) => m.role === "user");
      sidebar.firstTexts.set(t.threadId, { updatedAt: t.updatedAt, text: first ? textOf(first.content) : "" });
    } catch {
      // shown by its id until the next read
    }
  }
  if (wanted.length) renderThreads();
}

// Reads the list again. With `follow`, reads the open thread again when it changed on the
// server since the page last knew it (and the page is not running or reading it itself).
function refreshThreads(follow = false) {
  if (sidebar.reading) return sidebar.reading.then(() => (follow ? undefined : refreshThreads()));
  sidebar.reading = readThreads(follow).finally(() => { sidebar.reading = null; });
  return sidebar.reading;
}
async function readThreads(follow) {
  const archived = ui.showArchived.checked ? "any" : "false";
  let response;
  try {
    response = await threadsRequest("GET", `${AGENT_URL}/threads?limit=${LIST_LIMIT}&archived=${archived}`);
  } catch (e) {
    sidebar.problem = `The threads could not be read: ${e?.message ?? e}`;
    renderThreads();
    return;
  }
  if (response.status === 404 || response.status === 405) {
    sidebar.keeps = false;
    renderThreads();
    return;
  }
  if (!response.ok) {
    sidebar.problem = response.status === 401
      ? "The threads need the bearer token."
      : `The threads could not be read: ${await refusal(response)}`;
    renderThreads();
    return;
  }
  const body = await response.json();
  sidebar.keeps = true;
  sidebar.problem = null;
  sidebar.threads = body.threads ?? [];
  const open = sidebar.threads.find((t) => t.threadId === thread.id);
  const mark = markOf(open);
  const before = sidebar.seen?.threadId === thread.id ? sidebar.seen.mark : null;
  sidebar.seen = { threadId: thread.id, mark };
  renderThreads();
  readFirstTexts();
  if (follow && before !== null && before !== mark && open && !active && !loading) {
    loadThread();
  }
}

// The poll: while the tab is visible, every POLL_MS, bounded by one read at a time.
function schedulePoll() {
  clearTimeout(sidebar.timer);
  sidebar.timer = null;
  if (document.visibilityState !== "visible" || sidebar.keeps === false) return;
  sidebar.timer = setTimeout(async () => {
    sidebar.timer = null;
    if (!active && !loading) await refreshThreads(true);
    schedulePoll();
  }, POLL_MS);
}
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refreshThreads(true);
  schedulePoll();
});

function renderThreads() {
  // Left as it is while a title is edited, and when nothing it shows changed.
  if (sidebar.editing && ui.threads.querySelector(".rename")) return;
  const shown = JSON.stringify([thread.id, sidebar.keeps, sidebar.problem, sidebar.editing,
    sidebar.threads.map((t) => [t.threadId, labelOf(t), t.title, t.updatedAt, t.runCount, t.archived, t.lastRun?.status])]);
  if (shown === sidebar.shown) return;
  sidebar.shown = shown;
  const items = [];
  const listed = sidebar.threads.some((t) => t.threadId === thread.id);
  if (sidebar.keeps === false) {
    items.push(el("li", { class: "none" }, "This server keeps no threads: start it with --threads sqlite://web.db."));
  } else {
    if (!listed) {
      // The open thread before its first run: the server does not know it yet.
      items.push(el("li", { class: "thread", "data-open": "true", "data-thread-id": thread.id },
        el("button", { class: "open", type: "button", disabled: true },
          el("span", { class: "title" }, "New thread"), el("span", { class: "meta" }, "no runs yet"))));
    }
    for (const t of sidebar.threads) items.push(threadItem(t));
    if (sidebar.problem) items.push(el("li", { class: "none" }, sidebar.problem));
  }
  ui.threads.replaceChildren(...items);
  ui.threads.querySelector(".rename")?.focus();
}

function threadItem(t) {
  const open = t.threadId === thread.id;
  const item = el("li", {
    class: "thread", "data-thread-id": t.threadId, "data-open": String(open), "data-archived": String(t.archived),
  });
  if (sidebar.editing === t.threadId) {
    const input = el("input", { class: "rename", type: "text", value: t.title ?? labelOf(t), maxLength: 200 });
    let done = false;
    const finish = (save) => {
      if (done) return;
      done = true;
      sidebar.editing = null;
      if (save) changeThread(t.threadId, { title: input.value.trim() || null });
      else renderThreads();
    };
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { ev.preventDefault(); finish(true); }
      if (ev.key === "Escape") finish(false);
    });
    input.addEventListener("blur", () => finish(true));
    item.append(input);
    return item;
  }
  const runs = `${t.runCount} run${t.runCount === 1 ? "" : "s"}`;
  const updated = new Date(t.updatedAt);
  const when = updated.toDateString() === new Date().toDateString()
    ? updated.toLocaleTimeString([], { timeStyle: "short" })
    : updated.toLocaleDateString([], { dateStyle: "medium" });
  const status = t.lastRun?.status === "running" ? " · running" : t.archived ? " · archived" : "";
  item.append(
    el("button", { class: "open", type: "button", title: t.title ?? labelOf(t), onclick: () => openThread(t.threadId) },
      el("span", { class: "title" }, labelOf(t)),
      el("span", { class: "meta" }, `${runs} · ${when}${status}`)),
    el("button", { class: "act", type: "button", "data-act": "rename", title: "Rename", onclick: () => {
      sidebar.editing = t.threadId;
      renderThreads();
    } }, "✎"),
    el("button", { class: "act", type: "button", "data-act": t.archived ? "unarchive" : "archive",
      title: t.archived ? "Unarchive" : "Archive",
      onclick: () => changeThread(t.threadId, { archived: !t.archived }) }, t.archived ? "⤴" : "⌫"),
    el("button", { class: "act", type: "button", "data-act": "delete", title: "Delete",
      onclick: () => deleteThread(t) }, "✕"),
  );
  return item;
}

// PATCH /agent/threads/{threadId}, then the list again.
async function changeThread(id, patch) {
  try {
    const response = await threadsRequest("PATCH", threadUrl(id), patch);
    if (!response.ok) sidebar.problem = `Not changed: ${await refusal(response)}`;
  } catch (e) {
    sidebar.problem = `Not changed: ${e?.message ?? e}`;
  }
  await refreshThreads();
}

// DELETE /agent/threads/{threadId} once confirmed; the open thread deleted, a new one.
async function deleteThread(t) {
  if (!window.confirm(`Delete "${labelOf(t)}" and its runs?`)) return;
  try {
    const response = await threadsRequest("DELETE", threadUrl(t.threadId));
    if (response.status === 204 || response.status === 404) {
      sidebar.firstTexts.delete(t.threadId);
      if (t.threadId === thread.id) newThread();
    } else {
      sidebar.problem = response.status === 409
        ? "Not deleted: a run is going on on it."
        : `Not deleted: ${await refusal(response)}`;
    }
  } catch (e) {
    sidebar.problem = `Not deleted: ${e?.message ?? e}`;
  }
  await refreshThreads();
}

// Makes `id` the open thread, empty until it is read.
function switchTo(id) {
  active?.abort();
  loading?.abort();
  Object.assign(thread, { id, messages: [], state: {}, interrupts: [], notes: [], lastOutcome: null, titleFrom: null });
  stored.set(THREAD_KEY, thread.id);
  thread.streaming.clear();
  ui.events.replaceChildren();
  const summary = sidebar.threads.find((t) => t.threadId === id);
  sidebar.seen = { threadId: id, mark: markOf(summary) };
  setStatus("idle");
  render();
  renderThreads();
}
function newThread() { switchTo(newId("thread")); }
function openThread(id) {
  if (id === thread.id && (active || loading)) return;
  switchTo(id);
  loadThread();
}

// After a run of this page (with its follow-ups) ended: the list again, and a new thread's
// title from its first user message when nobody gave it one.
async function afterRun() {
  await refreshThreads();
  const first = thread.titleFrom;
  thread.titleFrom = null;
  const summary = sidebar.threads.find((t) => t.threadId === thread.id);
  if (first && summary && summary.title === null) await changeThread(thread.id, { title: titleFrom(first) });
}

// ---- wiring -------------------------------------------------------------------------------
ui.form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = ui.prompt.value.trim();
  if (!text || active) return;
  loading?.abort();
  if (!thread.messages.some((m) => m.role === "user")) thread.titleFrom = text;
  thread.messages.push({ id: newId("user"), role: "user", content: text });
  ui.prompt.value = "";
  run();
});
ui.stop.addEventListener("click", () => active?.abort());
ui.reset.addEventListener("click", newThread);
ui.showArchived.addEventListener("change", () => refreshThreads());

// The official client, when the server has a bundle of it.
const bundle = document.createElement("script");
bundle.src = "/ag-ui-client.js";
bundle.onload = () => {
  if (!window.AgUiClient?.HttpAgent) return;
  const option = ui.client.querySelector('option[value="official"]');
  option.disabled = false;
  option.textContent = "@ag-ui/client (official)";
};
bundle.onerror = () => {};
document.head.append(bundle);

// Reads the open thread back from the server: its snapshots (messages, state, how the last
// run ended), then the events of a run still going on, as they come. Any answer but 200 (a
// server that keeps no threads, a thread it does not know) leaves the page's thread as it is.
async function loadThread() {
  loading?.abort();
  const controller = new AbortController();
  const mine = { abort: () => controller.abort() };
  loading = mine;
  const id = thread.id;
  const current = () => loading === mine && thread.id === id;
  try {
    let response;
    try {
      response = await fetch(threadUrl(id), {
        headers: { Accept: "text/event-stream", ...authHeaders() },
        signal: controller.signal,
      });
    } catch {
      return;
    }
    if (!current()) return;
    if (!response.ok) {
      if (response.status === 401) thread.notes = [{ kind: "error", text: "This server needs a bearer token: type it below the events." }];
      render();
      return;
    }
    setStatus("loading");
    thread.interrupts = [];
    thread.notes = [];
    let outcome = null;
    try {
      for await (const event of readSse(response)) {
        if (!current()) return;
        foldEvent(event);
        if (event.type === "RUN_STARTED") { outcome = null; setStatus("running"); }
        if (event.type === "RUN_FINISHED") outcome = event.outcome ?? { type: "success" };
        if (event.type === "RUN_ERROR") outcome = { type: "error", message: event.message, code: event.code };
        render();
      }
    } catch (e) {
      if (!current()) return;
      if (e?.name !== "AbortError") thread.notes.push({ kind: "error", text: `Reading the thread failed: ${e?.message ?? e}` });
    }
    thread.streaming.clear();
    thread.lastOutcome = outcome;
    if (outcome?.type === "interrupt") thread.interrupts = outcome.interrupts ?? [];
    if (outcome?.type === "error") thread.notes.push({ kind: "error", text: `Run failed: ${outcome.message}${outcome.code ? ` (${outcome.code})` : ""}` });
    setStatus(outcome?.type ?? "idle");
    render();
  } finally {
    if (loading === mine) loading = null;
  }
}

ui.token.value = stored.get(TOKEN_KEY) ?? "";
ui.token.addEventListener("change", () => {
  stored.set(TOKEN_KEY, ui.token.value.trim());
  if (!thread.messages.length) loadThread();
  refreshThreads();
});

window.demo = { thread, run, render, loadThread, refreshThreads, openThread, newThread };
render();
renderThreads();
loadThread();
refreshThreads().then(schedulePoll);

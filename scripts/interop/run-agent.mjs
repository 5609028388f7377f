// Runs an AG-UI agent once with the official TypeScript client (@ag-ui/client HttpAgent)
// and reports what happened in the same shape as the Rust example `run_agent`:
//
//   node run-agent.mjs URL INPUT [--abort-after-ms N]
//
// INPUT is the path of a RunAgentInput JSON file, or else the text of one user message.
// Prints `EVENT <TYPE>` for each event the client delivers, then, as the last stdout line,
// {"ok","error","errorKind","messages","state","outcome","warnings","events"}.
// Exit code 0 whenever that line describes a run; 2 for bad arguments.
import { existsSync, readFileSync, statSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";

function usage(message) {
  console.error(`${message}\nusage: node run-agent.mjs URL INPUT [--abort-after-ms N]`);
  console.log(JSON.stringify({ ok: false, error: message, errorKind: "usage", messages: [], state: {}, outcome: null, warnings: [], events: 0 }));
  process.exit(2);
}

const positional = [];
let abortAfter = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--abort-after-ms") {
    abortAfter = Number(argv[++i]);
    if (!Number.isFinite(abortAfter)) usage("--abort-after-ms needs a number of milliseconds");
  } else {
    positional.push(argv[i]);
  }
}
if (positional.length !== 2) usage(`expected URL and INPUT, got ${positional.length} argument(s)`);
const [url, inputArg] = positional;

let input;
if (existsSync(inputArg) && statSync(inputArg).isFile()) {
  input = JSON.parse(readFileSync(inputArg, "utf8"));
} else {
  input = {
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: "user", content: inputArg }],
  };
}

// The official client reports what it forgives through console.warn.
const warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(" "));

const agent = new HttpAgent({
  url,
  threadId: input.threadId,
  initialMessages: input.messages ?? [],
  initialState: input.state ?? {},
});

let events = 0;
let outcome = null;
let ok = true;
let error = null;
let errorKind = null;
let aborted = false;
const subscriber = {
  onEvent({ event }) {
    events += 1;
    process.stdout.write(`EVENT ${event.type}\n`);
    if (event.type === "RUN_ERROR") {
      outcome = { type: "run_error", message: event.message, code: event.code ?? null };
    }
  },
  onRunFinishedEvent(params) {
    if (params.outcome === "success") {
      outcome = { type: "success", pendingToolCallIds: params.pendingToolCallIds ?? [] };
      if (params.result !== undefined) outcome.result = params.result;
    } else if (params.outcome === "interrupt") {
      outcome = { type: "interrupt", interrupts: params.interrupts };
    } else {
      outcome = { type: params.outcome };
    }
  },
};

function kindOf(e) {
  const text = String(e?.message ?? e);
  if (aborted || e?.name === "AbortError") return "abort";
  if (typeof e?.status === "number" || /HTTP \d{3}/.test(text)) return "http_status";
  if (/fetch failed|ECONNREFUSED|ECONNRESET|socket|terminated/i.test(text)) return "transport";
  if (/JSON|Unexpected token/.test(text)) return "sse_parse";
  if (/Cannot send|must be|before|after|already|not found|not started|no active/i.test(text)) return "protocol_order";
  return "schema";
}

let timer = null;
if (abortAfter !== null) {
  timer = setTimeout(() => {
    aborted = true;
    agent.abortRun();
  }, abortAfter);
}

try {
  await agent.runAgent(
    {
      runId: input.runId,
      tools: input.tools,
      context: input.context,
      forwardedProps: input.forwardedProps,
      resume: input.resume,
    },
    subscriber,
  );
  if (aborted) {
    ok = false;
    error = "the run was aborted by the client";
    errorKind = "abort";
  } else if (outcome === null) {
    ok = false;
    error = "the stream ended without RUN_FINISHED or RUN_ERROR";
    errorKind = "incomplete_stream";
  }
} catch (e) {
  ok = false;
  error = String(e?.message ?? e);
  errorKind = kindOf(e);
} finally {
  if (timer) clearTimeout(timer);
}
// The official client turns a transport abort into a RUN_ERROR with code "abort".
if (aborted) {
  ok = false;
  errorKind = "abort";
  error = error ?? "the run was aborted by the client";
  if (outcome?.type === "run_error" && outcome.code === "abort") outcome = null;
}

console.log(
  JSON.stringify({ ok, error, errorKind, messages: agent.messages, state: agent.state, outcome, warnings, events }),
);
process.exit(0);

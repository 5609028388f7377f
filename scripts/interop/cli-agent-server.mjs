// An AG-UI agent server on the official @ag-ui/encoder (1.0.0) that answers every input of
// `ag-ui check`'s suite validly, for check_cli.py; the same answers as cli_agent_server.py
// (the Python SDK's), each event written by the official EventEncoder with the request's
// threadId and runId. A body that is no run input gets 400 with a JSON error. Prints its
// base URL as the first line of stdout; stops when stdin closes.

import { createServer } from "node:http";
import { EventEncoder } from "@ag-ui/encoder";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";

const APPROVAL = "-approval";

function text(id, ...deltas) {
  return [
    { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
    ...deltas.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta })),
    { type: "TEXT_MESSAGE_END", messageId: id },
  ];
}

function toolCall(id, name, args) {
  return [
    { type: "TOOL_CALL_START", toolCallId: id, toolCallName: name },
    { type: "TOOL_CALL_ARGS", toolCallId: id, delta: args },
    { type: "TOOL_CALL_END", toolCallId: id },
  ];
}

function run(input) {
  const r = input.runId;
  const finished = { type: "RUN_FINISHED", threadId: input.threadId, runId: r };
  const scenario = input.forwardedProps?.scenario;
  const last = input.messages.at(-1);
  if (input.resume?.length) {
    return [
      ...input.resume.map((e) => ({
        type: "TOOL_CALL_RESULT",
        messageId: `${r}-result`,
        toolCallId: e.interruptId.replace(new RegExp(`${APPROVAL}$`), ""),
        content: "sent",
      })),
      ...text(`${r}-m1`, "Done."),
      finished,
    ];
  }
  if (last?.role === "tool") {
    return [...text(`${r}-m1`, "The tool said: ", String(last.content)), finished];
  }
  if (scenario === "interrupt") {
    const call = `${r}-call`;
    return [
      ...toolCall(call, "send_report", '{"to":"team"}'),
      {
        ...finished,
        outcome: {
          type: "interrupt",
          interrupts: [{ id: call + APPROVAL, reason: "tool_call", toolCallId: call, message: "Send it?" }],
        },
      },
    ];
  }
  if (input.tools?.length) {
    return [...text(`${r}-m1`, "Let me ask."), ...toolCall(`${r}-call`, input.tools[0].name, '{"city":"Amsterdam"}'), finished];
  }
  const state = input.state && typeof input.state === "object" && !Array.isArray(input.state) ? input.state : {};
  return [
    ...text(`${r}-m1`, "Hello ", "from Node."),
    { type: "STATE_SNAPSHOT", snapshot: state },
    { type: "STATE_DELTA", delta: [{ op: "add", path: "/answered", value: true }] },
    finished,
  ];
}

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  let input;
  try {
    input = RunAgentInputSchema.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
  } catch (e) {
    const body = JSON.stringify({ error: "invalid_body", message: String(e.message ?? e) });
    res.writeHead(400, { "content-type": "application/json" });
    res.end(body);
    return;
  }
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
  for (const event of [{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }, ...run(input)]) {
    res.write(encoder.encode(event));
  }
  res.end();
});
server.listen(0, "127.0.0.1", () => {
  const { address, port } = server.address();
  process.stdout.write(`http://${address}:${port}/\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();

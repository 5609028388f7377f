"""An AG-UI agent server on the official Python SDK (ag-ui-protocol 1.0.0) that answers
every input of `ag-ui check`'s suite validly, for check_cli.py.

Every event is built from the SDK's types and written by its `EventEncoder`, with the
request's threadId and runId (other ids are made from the runId). It answers:

    an input with `resume`          the interrupted tool call's result, a text, success
    a last message from a tool      a text quoting the result, success
    forwardedProps.scenario =
      "interrupt"                   a tool call, then an interrupt outcome
    declared tools                  a text and a call of the first tool, success
    anything else                   a text, the input's state with one member added, success
    a body that is no run input     400 with a JSON error

Listens on 127.0.0.1 on a free port and prints its base URL as the first line of stdout;
stops when stdin closes. Standard library HTTP server only.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ag_ui.core import (
    EventType,
    Interrupt,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder

APPROVAL = "-approval"


def text(message_id, *deltas):
    yield TextMessageStartEvent(type=EventType.TEXT_MESSAGE_START, message_id=message_id, role="assistant")
    for d in deltas:
        yield TextMessageContentEvent(type=EventType.TEXT_MESSAGE_CONTENT, message_id=message_id, delta=d)
    yield TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id=message_id)


def tool_call(call_id, name, args):
    yield ToolCallStartEvent(type=EventType.TOOL_CALL_START, tool_call_id=call_id, tool_call_name=name)
    yield ToolCallArgsEvent(type=EventType.TOOL_CALL_ARGS, tool_call_id=call_id, delta=args)
    yield ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id=call_id)


def run(inp):
    r = inp.run_id
    finished = RunFinishedEvent(type=EventType.RUN_FINISHED, thread_id=inp.thread_id, run_id=r)
    scenario = (inp.forwarded_props or {}).get("scenario") if isinstance(inp.forwarded_props, dict) else None
    last = inp.messages[-1] if inp.messages else None
    if inp.resume:
        for entry in inp.resume:
            call_id = entry.interrupt_id.removesuffix(APPROVAL)
            yield ToolCallResultEvent(
                type=EventType.TOOL_CALL_RESULT, message_id=f"{r}-result", tool_call_id=call_id, content="sent"
            )
        yield from text(f"{r}-m1", "Done.")
        yield finished
    elif last is not None and last.role == "tool":
        yield from text(f"{r}-m1", "The tool said: ", str(last.content))
        yield finished
    elif scenario == "interrupt":
        call_id = f"{r}-call"
        yield from tool_call(call_id, "send_report", '{"to":"team"}')
        yield RunFinishedEvent(
            type=EventType.RUN_FINISHED,
            thread_id=inp.thread_id,
            run_id=r,
            outcome={
                "type": "interrupt",
                "interrupts": [
                    Interrupt(id=call_id + APPROVAL, reason="tool_call", tool_call_id=call_id, message="Send it?"),
                ],
            },
        )
    elif inp.tools:
        yield from text(f"{r}-m1", "Let me ask.")
        yield from tool_call(f"{r}-call", inp.tools[0].name, '{"city":"Amsterdam"}')
        yield finished
    else:
        state = inp.state if isinstance(inp.state, dict) else {}
        yield from text(f"{r}-m1", "Hello ", "from Python.")
        yield StateSnapshotEvent(type=EventType.STATE_SNAPSHOT, snapshot=state)
        yield StateDeltaEvent(
            type=EventType.STATE_DELTA, delta=[{"op": "add", "path": "/answered", "value": True}]
        )
        yield finished


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            inp = RunAgentInput.model_validate_json(raw)
        except ValueError as e:
            body = json.dumps({"error": "invalid_body", "message": str(e)}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        encoder = EventEncoder(accept=self.headers.get("Accept"))
        self.send_response(200)
        self.send_header("Content-Type", encoder.get_content_type())
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        events = [RunStartedEvent(type=EventType.RUN_STARTED, thread_id=inp.thread_id, run_id=inp.run_id)]
        events.extend(run(inp))
        try:
            for event in events:
                self.wfile.write(encoder.encode(event).encode("utf-8"))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"http://{host}:{port}/", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()

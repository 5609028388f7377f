"""An AG-UI agent server built on the official Python SDK (ag-ui-protocol 1.0.0).

Serves scripted runs over HTTP with the official `EventEncoder`, so that any AG-UI client
(the Rust `run_agent` example, the official TypeScript `HttpAgent`) can be pointed at it.
Listens on 127.0.0.1 on a free port and prints its base URL as the first line of stdout;
stops on SIGTERM or when stdin closes. Standard library HTTP server only.

    POST <base>/chat        text, a tool call with its result, state snapshot and deltas
    POST <base>/interrupt   a tool call, then RUN_FINISHED with an interrupt outcome;
                            a request with `resume` gets the tool result and success
    POST <base>/run_error   partial text, then RUN_ERROR
    POST <base>/slow        a text message streamed over about ten seconds (for aborts)

The events use the request's threadId and runId; every other id is fixed, so two clients
given the same input must end with the same messages and state.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ag_ui.core import (
    EventType,
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
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


def text(message_id, *deltas):
    yield TextMessageStartEvent(type=EventType.TEXT_MESSAGE_START, message_id=message_id, role="assistant")
    for d in deltas:
        yield TextMessageContentEvent(type=EventType.TEXT_MESSAGE_CONTENT, message_id=message_id, delta=d)
    yield TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id=message_id)


def tool_call(call_id, name, parent, *arg_deltas):
    yield ToolCallStartEvent(
        type=EventType.TOOL_CALL_START, tool_call_id=call_id, tool_call_name=name, parent_message_id=parent
    )
    for d in arg_deltas:
        yield ToolCallArgsEvent(type=EventType.TOOL_CALL_ARGS, tool_call_id=call_id, delta=d)
    yield ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id=call_id)


def chat(inp):
    yield from text("a1", "Let me check ", "the weather. ", "Grüße 🌍")
    yield from tool_call("c1", "get_weather", "a1", '{"city":', '"Paris"}')
    yield ToolCallResultEvent(
        type=EventType.TOOL_CALL_RESULT, message_id="tr1", tool_call_id="c1", content='{"sky":"clear"}'
    )
    yield StateSnapshotEvent(type=EventType.STATE_SNAPSHOT, snapshot={"city": "Paris", "visits": 1, "log": []})
    yield StateDeltaEvent(
        type=EventType.STATE_DELTA,
        delta=[
            {"op": "replace", "path": "/visits", "value": 2},
            {"op": "add", "path": "/log/-", "value": "looked up Paris"},
            {"op": "add", "path": "/unit", "value": "celsius"},
        ],
    )
    yield from text("a2", "It is clear in Paris.")
    yield RunFinishedEvent(
        type=EventType.RUN_FINISHED, thread_id=inp.thread_id, run_id=inp.run_id, result={"answered": True}
    )


def interrupt(inp):
    if inp.resume:
        yield ToolCallResultEvent(type=EventType.TOOL_CALL_RESULT, message_id="tr9", tool_call_id="c9", content="deleted")
        yield from text("a9", "Done.")
        yield RunFinishedEvent(type=EventType.RUN_FINISHED, thread_id=inp.thread_id, run_id=inp.run_id)
        return
    yield from tool_call("c9", "delete_file", None, '{"path":"/tmp/x"}')
    yield StateSnapshotEvent(type=EventType.STATE_SNAPSHOT, snapshot={"awaiting": "approval"})
    yield RunFinishedEvent(
        type=EventType.RUN_FINISHED,
        thread_id=inp.thread_id,
        run_id=inp.run_id,
        outcome={
            "type": "interrupt",
            "interrupts": [
                Interrupt(id="i9", reason="tool_call", tool_call_id="c9", message="Delete /tmp/x?"),
            ],
        },
    )


def run_error(inp):
    yield TextMessageStartEvent(type=EventType.TEXT_MESSAGE_START, message_id="a5", role="assistant")
    yield TextMessageContentEvent(type=EventType.TEXT_MESSAGE_CONTENT, message_id="a5", delta="Thinking")
    yield RunErrorEvent(type=EventType.RUN_ERROR, message="the model is overloaded", code="overloaded")


def slow(inp):
    yield TextMessageStartEvent(type=EventType.TEXT_MESSAGE_START, message_id="a7", role="assistant")
    for i in range(50):
        yield PAUSE
        yield TextMessageContentEvent(type=EventType.TEXT_MESSAGE_CONTENT, message_id="a7", delta=f"{i} ")
    yield TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id="a7")
    yield RunFinishedEvent(type=EventType.RUN_FINISHED, thread_id=inp.thread_id, run_id=inp.run_id)


# Yielded by a scenario: wait before the next event.
PAUSE = object()

SCENARIOS = {"chat": chat, "interrupt": interrupt, "run_error": run_error, "slow": slow}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def do_POST(self):
        scenario = SCENARIOS.get(self.path.strip("/").split("?")[0])
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if scenario is None:
            self.send_error(404, "no such scenario")
            return
        try:
            inp = RunAgentInput.model_validate_json(raw)
        except ValueError as e:
            body = json.dumps({"error": str(e)}).encode()
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
        events.extend(scenario(inp))
        try:
            for event in events:
                if event is PAUSE:
                    time.sleep(0.2)
                    continue
                self.wfile.write(encoder.encode(event).encode("utf-8"))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (an abort)
        self.close_connection = True


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"http://{host}:{port}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Stop when the parent closes our stdin (or on a signal).
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()

"""The `openai_agent` example (ag-ui-openai) against a local OpenAI-compatible provider,
run by the Rust client and by the official TypeScript client.

The provider (in this script, on 127.0.0.1) speaks the chat-completions streaming wire
format: `POST /v1/chat/completions`, SSE `data: {chunk}` frames ending with `data: [DONE]`,
with a usage chunk (cached and reasoning tokens). It decides from the request alone:

- a conversation ending with a tool message: it answers with text;
- a user message asking for the time: one call of the backend tool `get_time`;
- otherwise: two parallel calls of the frontend tool `show_weather`, their argument
  deltas interleaved, named by index after their first delta (as OpenAI streams them).

Checks:

- parallel: the Rust example `run_agent` and run-agent.mjs (@ag-ui/client 1.0.0) end with
  the same messages, state and outcome; the calls' arguments are exact and both calls are
  pending; `RUN_FINISHED` (read from the raw SSE) carries the usage;
- backend: the Rust client's run calls `get_time` in the server (a tool message with the
  time), then the model again (the final text).

Exits 1 on any difference.
"""

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.request

from check_client import ROOT, run
from check_server_clients import Clients, compare

MODEL = "gpt-interop"
USAGE = {
    "prompt_tokens": 50,
    "completion_tokens": 20,
    "total_tokens": 70,
    "prompt_tokens_details": {"cached_tokens": 10},
    "completion_tokens_details": {"reasoning_tokens": 5},
}
EXPECTED_USAGE = [{
    "provider": "openai", "model": MODEL, "inputTokens": 50, "outputTokens": 20,
    "totalTokens": 70, "cachedInputTokens": 10, "reasoningTokens": 5,
}]
ARGS = ['{"city":"Amsterdam"}', '{"city":"Paris","unit":"celsius"}']
SHOW_WEATHER = {
    "name": "show_weather",
    "description": "Show the weather for a city in the UI",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"],
    },
}


def chunk(delta=None, finish=None, usage=None):
    c = {"id": "chatcmpl-interop", "object": "chat.completion.chunk", "created": 1, "model": MODEL,
         "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        c["usage"] = usage
    return c


def call_delta(index, args, call_id=None, name=None):
    call = {"index": index, "function": {"arguments": args}}
    if call_id is not None:
        call.update({"id": call_id, "type": "function"})
        call["function"]["name"] = name
    return chunk({"tool_calls": [call]})


def answer(request):
    messages = request.get("messages") or []
    last = messages[-1] if messages else {}
    frames = [chunk({"role": "assistant", "content": ""})]
    if last.get("role") == "tool":
        frames += [chunk({"content": "Here you "}), chunk({"content": "are."}), chunk({}, "stop")]
    elif "time" in json.dumps(last.get("content")):
        frames += [call_delta(0, "{}", "call_time", "get_time"), chunk({}, "tool_calls")]
    else:
        a, b = ARGS
        frames += [
            call_delta(0, a[:5], "call_ams", "show_weather"),
            call_delta(1, b[:9], "call_par", "show_weather"),
            call_delta(0, a[5:]),
            call_delta(1, b[9:20]),
            call_delta(1, b[20:]),
            chunk({}, "tool_calls"),
        ]
    frames.append(chunk(usage=USAGE))
    return "".join(f"data: {json.dumps(f)}\n\n" for f in frames) + "data: [DONE]\n\n"


class Provider(http.server.BaseHTTPRequestHandler):
    requests = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        Provider.requests.append(body)
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        data = answer(body).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def raw_events(url, doc):
    """The events of one run read straight off the SSE response."""
    req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="POST",
                                 headers={"content-type": "application/json", "accept": "text/event-stream"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        text = resp.read().decode()
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def main():
    provider = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{provider.server_address[1]}/v1"
    print("== building the Rust examples openai_agent and run_agent", flush=True)
    for package, example in (("ag-ui-openai", "openai_agent"), ("ag-ui-client", "run_agent")):
        subprocess.run(["cargo", "build", "-q", "-p", package, "--example", example, "--locked"],
                       cwd=ROOT, check=True, timeout=1800)
    env = dict(os.environ, OPENAI_BASE_URL=base, OPENAI_API_KEY="sk-interop", OPENAI_MODEL=MODEL)
    server = subprocess.Popen(
        ["cargo", "run", "-q", "-p", "ag-ui-openai", "--example", "openai_agent", "--locked", "--", "127.0.0.1:0"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env,
    )
    failures = 0
    try:
        address = server.stdout.readline().strip()
        if not address.startswith("127.0.0.1:"):
            raise RuntimeError(f"openai_agent did not print its address: {address!r}")
        url = f"http://{address}/"
        with tempfile.TemporaryDirectory() as tmp:
            clients = Clients(url, tmp)
            doc = {
                "threadId": "thread-openai", "runId": "run-openai-1", "state": {},
                "messages": [{"id": "user-1", "role": "user", "content": "Show the weather in Amsterdam and Paris"}],
                "tools": [SHOW_WEATHER], "context": [], "forwardedProps": {},
            }
            rust, ts = clients.rust("openai-parallel", doc), clients.ts("openai-parallel", doc)
            problems = compare(rust, ts)
            for name, r in (("rust", rust), ("ts", ts)):
                if r["ok"] is not True:
                    problems.append(f"{name}: ok={r['ok']} ({r['errorKind']}: {r['error']})")
                calls = [c for m in r["messages"] if m.get("role") == "assistant" for c in m.get("toolCalls") or []]
                if [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls] != [
                    ("call_ams", "show_weather", ARGS[0]), ("call_par", "show_weather", ARGS[1])]:
                    problems.append(f"{name}: tool calls {calls}")
                if (r["outcome"] or {}).get("pendingToolCallIds") != ["call_ams", "call_par"]:
                    problems.append(f"{name}: outcome {r['outcome']}")
            finished = raw_events(url, dict(doc, runId="run-openai-raw"))[-1]
            if finished.get("type") != "RUN_FINISHED" or finished.get("usage") != EXPECTED_USAGE:
                problems.append(f"RUN_FINISHED without the usage: {finished}")
            failures += report("openai_agent parallel tool calls", problems,
                               f"{len(rust['messages'])} messages, both calls pending, usage on RUN_FINISHED")

            doc = dict(doc, threadId="thread-openai-time", runId="run-openai-time",
                       messages=[{"id": "user-1", "role": "user", "content": "What time is it?"}])
            rust = clients.rust("openai-backend", doc)
            problems = []
            roles = [m["role"] for m in rust["messages"]]
            if roles != ["user", "assistant", "tool", "assistant"]:
                problems.append(f"roles {roles}")
            else:
                result = json.loads(rust["messages"][2]["content"])
                if rust["messages"][2]["toolCallId"] != "call_time" or "utc" not in result:
                    problems.append(f"tool message {rust['messages'][2]}")
                if rust["messages"][3].get("content") != "Here you are.":
                    problems.append(f"final answer {rust['messages'][3]}")
            sent = Provider.requests[-1]["messages"]
            if [m["role"] for m in sent][-2:] != ["assistant", "tool"]:
                problems.append(f"the second model call did not get the tool result: {sent}")
            failures += report("openai_agent backend tool", problems, "get_time ran in the server, model called again")
    finally:
        server.kill()
        server.wait(timeout=30)
        provider.shutdown()
    sys.exit(1 if failures else 0)


def report(name, problems, summary):
    if problems:
        print(f"FAIL {name}")
        for p in problems:
            print(f"  {p}")
        return 1
    print(f"ok   {name}: {summary}")
    return 0


if __name__ == "__main__":
    main()

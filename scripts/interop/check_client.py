"""The Rust client against the official TypeScript client, both run against an agent server
built on the official Python SDK (agent_server.py).

For every scenario, the same RunAgentInput is run by the Rust example `run_agent` and by
run-agent.mjs (the official `HttpAgent` of @ag-ui/client 1.0.0); both print one final JSON
line of the same shape. Their `ok`, outcome type, `messages` and `state` must be equal, and
each must match what the scenario is known to produce. Exits 1 on any difference.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 120

USER = {"id": "u1", "role": "user", "content": "Weather in Paris?"}
DELETE = {"id": "u1", "role": "user", "content": "Delete /tmp/x"}
CALL = {
    "id": "c9",
    "role": "assistant",
    "toolCalls": [{"id": "c9", "type": "function", "function": {"name": "delete_file", "arguments": '{"path":"/tmp/x"}'}}],
}

# scenario name -> (path on the server, input, expected ok, outcome type, checks on the final thread)
SCENARIOS = {
    "chat": (
        "chat",
        {"threadId": "thread-chat", "runId": "run-1", "messages": [USER], "state": {}},
        True,
        "success",
        lambda r: r["state"] == {"city": "Paris", "visits": 2, "log": ["looked up Paris"], "unit": "celsius"}
        and [m["id"] for m in r["messages"]] == ["u1", "a1", "tr1", "a2"]
        and r["messages"][1]["content"] == "Let me check the weather. Grüße 🌍"
        and r["messages"][1]["toolCalls"][0]["function"]["arguments"] == '{"city":"Paris"}',
    ),
    "interrupt": (
        "interrupt",
        {"threadId": "thread-int", "runId": "run-1", "messages": [DELETE]},
        True,
        "interrupt",
        lambda r: r["state"] == {"awaiting": "approval"}
        and [m["id"] for m in r["messages"]] == ["u1", "c9"]
        and r["outcome"]["interrupts"][0]["id"] == "i9",
    ),
    "resume": (
        "interrupt",
        {
            "threadId": "thread-int",
            "runId": "run-2",
            "messages": [DELETE, CALL],
            "state": {"awaiting": "approval"},
            "resume": [{"interruptId": "i9", "status": "resolved", "payload": {"approved": True}}],
        },
        True,
        "success",
        lambda r: [m["id"] for m in r["messages"]] == ["u1", "c9", "tr9", "a9"]
        and r["messages"][2] == {"id": "tr9", "role": "tool", "toolCallId": "c9", "content": "deleted"},
    ),
    "run_error": (
        "run_error",
        {"threadId": "thread-err", "runId": "run-1", "messages": [USER]},
        True,
        "run_error",
        lambda r: r["messages"][1]["content"] == "Thinking"
        and r["outcome"] == {"type": "run_error", "message": "the model is overloaded", "code": "overloaded"},
    ),
}


# Both clients abort this run after ABORT_MS; both must report an abort, not an outcome.
ABORT_MS = "700"


def last_json_line(label, proc):
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    if not lines:
        raise RuntimeError(f"{label} printed nothing (exit {proc.returncode}); stderr:\n{proc.stderr}")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise RuntimeError(f"{label}: the last line is not JSON ({e}): {lines[-1]!r}\nstderr:\n{proc.stderr}")


def run(label, cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    result = last_json_line(label, proc)
    keys = {"ok", "error", "errorKind", "messages", "state", "outcome", "warnings", "events"}
    if set(result) != keys:
        raise RuntimeError(f"{label}: the final line has keys {sorted(result)}, not {sorted(keys)}")
    if proc.returncode != 0:
        raise RuntimeError(f"{label}: exit code {proc.returncode} for a run (0 expected)")
    events = [l[len("EVENT ") :] for l in proc.stdout.splitlines() if l.startswith("EVENT ")]
    if len(events) != result["events"]:
        raise RuntimeError(f"{label}: {len(events)} EVENT lines but events={result['events']}")
    return result


def main():
    print("== building the Rust example run_agent", flush=True)
    subprocess.run(
        ["cargo", "build", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked"],
        cwd=ROOT,
        check=True,
        timeout=1800,
    )
    server = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "agent_server.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    failures = 0
    try:
        base = server.stdout.readline().strip()
        if not base.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the agent server did not print its address: {base!r}")
        with tempfile.TemporaryDirectory() as tmp:
            for name, (path, inp, ok, outcome_type, check) in SCENARIOS.items():
                input_file = os.path.join(tmp, f"{name}.json")
                with open(input_file, "w") as f:
                    json.dump(inp, f)
                url = f"{base}/{path}"
                rust = run(
                    "rust run_agent",
                    ["cargo", "run", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked", "--", url, input_file],
                    ROOT,
                )
                ts = run("ts run-agent.mjs", ["node", "run-agent.mjs", url, input_file], HERE)
                problems = []
                for side, r in (("rust", rust), ("ts", ts)):
                    if r["ok"] is not ok:
                        problems.append(f"{side}: ok={r['ok']} ({r['errorKind']}: {r['error']})")
                    if (r["outcome"] or {}).get("type") != outcome_type:
                        problems.append(f"{side}: outcome {r['outcome']}")
                    elif not check(r):
                        problems.append(f"{side}: unexpected final thread {json.dumps(r)}")
                for key in ("messages", "state"):
                    if rust[key] != ts[key]:
                        problems.append(f"{key} differ:\n  rust: {json.dumps(rust[key])}\n  ts:   {json.dumps(ts[key])}")
                if rust["outcome"] != ts["outcome"]:
                    problems.append(f"outcome differs:\n  rust: {json.dumps(rust['outcome'])}\n  ts:   {json.dumps(ts['outcome'])}")
                if problems:
                    failures += 1
                    print(f"FAIL {name}")
                    for p in problems:
                        print(f"  {p}")
                else:
                    print(f"ok   {name}: {len(rust['messages'])} messages, outcome {outcome_type}, {rust['events']} events")
            # An abort while the agent streams: both clients stop and say so.
            url = f"{base}/slow"
            rust = run(
                "rust run_agent (abort)",
                ["cargo", "run", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked", "--",
                 url, "Count slowly", "--abort-after-ms", ABORT_MS],
                ROOT,
            )
            ts = run("ts run-agent.mjs (abort)", ["node", "run-agent.mjs", url, "Count slowly", "--abort-after-ms", ABORT_MS], HERE)
            problems = [
                f"{side}: ok={r['ok']} errorKind={r['errorKind']} outcome={r['outcome']} events={r['events']}"
                for side, r in (("rust", rust), ("ts", ts))
                if r["ok"] or r["errorKind"] != "abort" or r["outcome"] is not None or not 1 <= r["events"] < 50
            ]
            if problems:
                failures += 1
                print("FAIL abort")
                for p in problems:
                    print(f"  {p}")
            else:
                print(f"ok   abort: rust after {rust['events']} events, ts after {ts['events']} events")
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    total = len(SCENARIOS) + 1
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

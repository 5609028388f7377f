"""The Rust client and the official TypeScript client, both run against the Rust server's
demo agent (`cargo run -p ag-ui-server --example serve`).

Every step runs the same kind of RunAgentInput through the Rust example `run_agent` and
through run-agent.mjs (the official `HttpAgent` of @ag-ui/client 1.0.0); their `ok`,
`errorKind`, outcome, `messages` and `state` must be equal, and each must end as the step
does:

- chat, interrupt (first run) and error: one run each from a single user message;
- resume: each client resumes the interrupt from its own first run's messages and state
  (the whole history) with the pending interrupt approved, and must end with success;
- slow: each client aborts the run after ABORT_MS (`--abort-after-ms`) while the agent
  streams, and must report a client abort (no outcome) keeping the text received before.

Exits 1 on any difference.
"""

import json
import os
import subprocess
import sys
import tempfile

from check_client import HERE, ROOT, run

USER = {"id": "user-1", "role": "user", "content": "What is the weather in Amsterdam?"}

# The slow scenario sends one text delta a second, the first at once; aborting half-way
# between the second and the third leaves "1 2 " on a quiet machine. A loaded one may shift
# the abort by a delta either way, so any text "1 ", "1 2 ", ... up to SLOW_MAX deltas counts.
ABORT_MS = 1500
SLOW_MAX = 4
SLOW_TEXTS = ["".join(f"{i} " for i in range(1, k + 1)) for k in range(1, SLOW_MAX + 1)]

# scenario -> expected outcome type ("run_error": the agent's RUN_ERROR, which is an
# outcome of a run that worked, so ok stays true)
SCENARIOS = {"chat": "success", "interrupt": "interrupt", "error": "run_error"}


def first_input(scenario):
    return {
        "threadId": f"thread-{scenario}",
        "runId": "run-1",
        "messages": [USER],
        "state": {},
        "forwardedProps": {"scenario": scenario},
    }


def resume_input(first):
    """The resume run of a client: its own history and state, every interrupt approved."""
    interrupts = (first["outcome"] or {}).get("interrupts") or []
    return {
        "threadId": "thread-interrupt",
        "runId": "run-2",
        "messages": first["messages"],
        "state": first["state"],
        "forwardedProps": {"scenario": "interrupt"},
        "resume": [{"interruptId": i["id"], "status": "resolved", "payload": {"approved": True}} for i in interrupts],
    }


class Clients:
    def __init__(self, url, tmp):
        self.url = url
        self.tmp = tmp

    def _file(self, name, doc):
        path = os.path.join(self.tmp, f"{name}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def rust(self, name, doc, extra=()):
        path = self._file(f"{name}-rust", doc)
        cmd = ["cargo", "run", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked", "--", self.url, path, *extra]
        return run("rust run_agent", cmd, ROOT)

    def ts(self, name, doc, extra=()):
        path = self._file(f"{name}-ts", doc)
        return run("ts run-agent.mjs", ["node", "run-agent.mjs", self.url, path, *extra], HERE)


def compare(rust, ts, keys=("messages", "state", "outcome")):
    return [
        f"{key} differ:\n  rust: {json.dumps(rust[key])}\n  ts:   {json.dumps(ts[key])}"
        for key in keys
        if rust[key] != ts[key]
    ]


def assistant_texts(r):
    return [m.get("content") for m in r["messages"] if m.get("role") == "assistant"]


def check_run(r, outcome_type):
    problems = []
    if r["ok"] is not True:
        problems.append(f"ok={r['ok']} ({r['errorKind']}: {r['error']})")
    if (r["outcome"] or {}).get("type") != outcome_type:
        problems.append(f"outcome {r['outcome']}")
    if len(r["messages"]) < 2:
        problems.append(f"the agent's messages are missing: {r['messages']}")
    return problems


def check_resume(first, r):
    problems = check_run(r, "success")
    if r["messages"][: len(first["messages"])] != first["messages"]:
        problems.append("the first run's history is not kept")
    results = [m for m in r["messages"] if m.get("role") == "tool"]
    calls = [i.get("toolCallId") for i in (first["outcome"] or {}).get("interrupts") or []]
    if [m.get("toolCallId") for m in results] != calls or any(m.get("content") != '{"sent":true}' for m in results):
        problems.append(f"tool results {results} do not answer {calls}")
    if r["state"] != {"email": {"status": "sent"}}:
        problems.append(f"state {r['state']}")
    if assistant_texts(r)[-1:] != ["The email is sent."]:
        problems.append(f"assistant texts {assistant_texts(r)}")
    return problems


def check_abort(r):
    problems = []
    if r["ok"] is not False or r["errorKind"] != "abort":
        problems.append(f"not a client abort: ok={r['ok']} errorKind={r['errorKind']} ({r['error']})")
    if r["outcome"] is not None:
        problems.append(f"an outcome after the abort: {r['outcome']}")
    if r["messages"][:1] != [USER] or len(assistant_texts(r)) != 1 or assistant_texts(r)[0] not in SLOW_TEXTS:
        problems.append(f"messages before the abort: {r['messages']}")
    return problems


def report(name, problems, summary):
    if problems:
        print(f"FAIL {name}")
        for p in problems:
            print(f"  {p}")
        return 1
    print(f"ok   {name}: {summary}")
    return 0


def main():
    print("== building the Rust examples serve and run_agent", flush=True)
    for package, example in (("ag-ui-server", "serve"), ("ag-ui-client", "run_agent")):
        subprocess.run(
            ["cargo", "build", "-q", "-p", package, "--example", example, "--locked"],
            cwd=ROOT,
            check=True,
            timeout=1800,
        )
    server = subprocess.Popen(
        ["cargo", "run", "-q", "-p", "ag-ui-server", "--example", "serve", "--locked", "--", "127.0.0.1:0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    failures = 0
    total = 0
    try:
        address = server.stdout.readline().strip()
        if not address.startswith("127.0.0.1:"):
            raise RuntimeError(f"the serve example did not print its address: {address!r}")
        url = f"http://{address}/"
        with tempfile.TemporaryDirectory() as tmp:
            clients = Clients(url, tmp)
            firsts = {}
            for scenario, outcome_type in SCENARIOS.items():
                doc = first_input(scenario)
                rust, ts = clients.rust(scenario, doc), clients.ts(scenario, doc)
                firsts[scenario] = (rust, ts)
                problems = [f"rust: {p}" for p in check_run(rust, outcome_type)]
                problems += [f"ts: {p}" for p in check_run(ts, outcome_type)]
                problems += compare(rust, ts)
                total += 1
                failures += report(
                    scenario,
                    problems,
                    f"{len(rust['messages'])} messages, state {json.dumps(rust['state'])}, outcome {outcome_type}",
                )

            # resume: each client continues its own interrupted thread.
            rust_first, ts_first = firsts["interrupt"]
            rust = clients.rust("resume", resume_input(rust_first))
            ts = clients.ts("resume", resume_input(ts_first))
            problems = [f"rust: {p}" for p in check_resume(rust_first, rust)]
            problems += [f"ts: {p}" for p in check_resume(ts_first, ts)]
            problems += compare(rust, ts)
            total += 1
            failures += report(
                "resume",
                problems,
                f"{len(rust['messages'])} messages, state {json.dumps(rust['state'])}, outcome success",
            )

            # slow: both clients abort while the agent streams.
            doc = first_input("slow")
            abort = ("--abort-after-ms", str(ABORT_MS))
            rust, ts = clients.rust("slow", doc, abort), clients.ts("slow", doc, abort)
            problems = [f"rust: {p}" for p in check_abort(rust)]
            problems += [f"ts: {p}" for p in check_abort(ts)]
            problems += compare(rust, ts, ("ok", "errorKind", "state", "outcome"))
            # The same messages, but for how many deltas arrived before each abort.
            shape = lambda r: [(m["id"], m["role"]) for m in r["messages"]]
            if shape(rust) != shape(ts):
                problems.append(f"messages differ: rust {shape(rust)}, ts {shape(ts)}")
            total += 1
            failures += report(
                "slow (abort)",
                problems,
                f"aborted after {ABORT_MS} ms with {json.dumps(assistant_texts(rust))} received",
            )
    finally:
        server.kill()
        server.wait(timeout=10)
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

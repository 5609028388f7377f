"""The Rust client and the official TypeScript client, both run against the Rust server's
demo agent (`cargo run -p ag-ui-server --example serve`).

For each demo scenario (chat, interrupt, error) the same RunAgentInput is run by the Rust
example `run_agent` and by run-agent.mjs (the official `HttpAgent` of @ag-ui/client 1.0.0).
Their `ok`, outcome, `messages` and `state` must be equal, and each run must end as the
scenario does. Exits 1 on any difference.
"""

import json
import os
import subprocess
import sys
import tempfile

from check_client import HERE, ROOT, run

USER = {"id": "user-1", "role": "user", "content": "What is the weather in Amsterdam?"}

# scenario -> expected outcome type (None: the agent's RUN_ERROR)
SCENARIOS = {"chat": "success", "interrupt": "interrupt", "error": "run_error"}


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
    try:
        address = server.stdout.readline().strip()
        if not address.startswith("127.0.0.1:"):
            raise RuntimeError(f"the serve example did not print its address: {address!r}")
        url = f"http://{address}/"
        with tempfile.TemporaryDirectory() as tmp:
            for scenario, outcome_type in SCENARIOS.items():
                input_file = os.path.join(tmp, f"{scenario}.json")
                with open(input_file, "w") as f:
                    json.dump(
                        {
                            "threadId": f"thread-{scenario}",
                            "runId": "run-1",
                            "messages": [USER],
                            "state": {},
                            "forwardedProps": {"scenario": scenario},
                        },
                        f,
                    )
                rust = run(
                    "rust run_agent",
                    ["cargo", "run", "-q", "-p", "ag-ui-client", "--example", "run_agent", "--locked", "--", url, input_file],
                    ROOT,
                )
                ts = run("ts run-agent.mjs", ["node", "run-agent.mjs", url, input_file], HERE)
                problems = []
                for side, r in (("rust", rust), ("ts", ts)):
                    if r["ok"] is not True:
                        problems.append(f"{side}: ok={r['ok']} ({r['errorKind']}: {r['error']})")
                    if (r["outcome"] or {}).get("type") != outcome_type:
                        problems.append(f"{side}: outcome {r['outcome']}")
                    if len(r["messages"]) < 2:
                        problems.append(f"{side}: the agent's messages are missing: {r['messages']}")
                for key in ("messages", "state", "outcome"):
                    if rust[key] != ts[key]:
                        problems.append(f"{key} differ:\n  rust: {json.dumps(rust[key])}\n  ts:   {json.dumps(ts[key])}")
                if problems:
                    failures += 1
                    print(f"FAIL {scenario}")
                    for p in problems:
                        print(f"  {p}")
                else:
                    print(f"ok   {scenario}: {len(rust['messages'])} messages, state {json.dumps(rust['state'])}, outcome {outcome_type}")
    finally:
        server.kill()
        server.wait(timeout=10)
    total = len(SCENARIOS)
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

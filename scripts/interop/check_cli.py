"""`ag-ui check` against servers built on the official SDKs: a Python server on
ag-ui-protocol's types and encoder (cli_agent_server.py) and a Node server on
@ag-ui/encoder (cli-agent-server.mjs), each answering every input of the suite validly.

The check must find nothing wrong (exit 0, no error, no warning) and run every case (none
skipped); `ag-ui run --json` must print the run's events, one JSON event per line.
Builds the `ag-ui` binary with cargo first.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
if not TARGET.is_absolute():
    TARGET = ROOT / TARGET
BINARY = TARGET / "debug" / "ag-ui"
LIMIT = 120


def start(command):
    process = subprocess.Popen(command, cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        raise SystemExit(f"{command}: no URL on stdout (got {url!r})")
    return process, url


def check(name, url):
    failures = []
    result = subprocess.run([str(BINARY), "check", url, "--json"], capture_output=True, text=True, timeout=LIMIT)
    try:
        report = json.loads(result.stdout)
    except ValueError:
        return [f"{name}: `ag-ui check` printed no JSON report: {result.stdout!r} {result.stderr!r}"]
    if result.returncode != 0 or report["errors"] != 0 or report["warnings"] != 0:
        failures.append(f"{name}: exit {result.returncode}, findings: {json.dumps(report['findings'], indent=2)}")
    skipped = [c["name"] for c in report["cases"] if c["outcome"] == "skipped"]
    if skipped:
        failures.append(f"{name}: cases skipped: {skipped}")
    outcomes = {c["name"]: c["outcome"] for c in report["cases"]}
    if outcomes.get("interrupt") != "interrupt" or outcomes.get("resume") != "success":
        failures.append(f"{name}: the interrupt and its resume did not run as expected: {outcomes}")
    for protocol in ["1.1"]:
        again = subprocess.run(
            [str(BINARY), "check", url, "--protocol", protocol], capture_output=True, text=True, timeout=LIMIT
        )
        if again.returncode != 0:
            failures.append(f"{name}: --protocol {protocol}: exit {again.returncode}: {again.stdout}")
    run = subprocess.run(
        [str(BINARY), "run", url, "-m", "Hello", "--json"], capture_output=True, text=True, timeout=LIMIT
    )
    try:
        types = [json.loads(line)["type"] for line in run.stdout.splitlines()]
    except ValueError:
        types = []
    if run.returncode != 0 or not types or types[0] != "RUN_STARTED" or types[-1] != "RUN_FINISHED":
        failures.append(f"{name}: `ag-ui run --json` exit {run.returncode}: {run.stdout!r} {run.stderr!r}")
    print(f"{name}: {len(report['cases'])} cases, {report['errors']} errors, {report['warnings']} warnings")
    return failures


def main():
    subprocess.run(["cargo", "build", "-q", "-p", "ag-ui-cli", "--locked"], cwd=ROOT, check=True)
    failures = []
    for name, command in [
        ("python ag-ui-protocol", [sys.executable, "cli_agent_server.py"]),
        ("node @ag-ui/encoder", ["node", "cli-agent-server.mjs"]),
    ]:
        process, url = start(command)
        try:
            failures += check(name, url)
        finally:
            process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

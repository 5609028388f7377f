#!/usr/bin/env bash
# Checks fixtures/ (and the published schema, where its checks exist) against the official
# AG-UI 1.0 SDKs. Installs exactly what package-lock.json and requirements.txt pin (npm ci,
# a virtual environment in .venv), then runs every check-*.mjs with node and every
# check_*.py with that environment's python; fails if any of them fails. Safe to rerun.
# check_client.py also needs cargo: it runs the Rust client's `run_agent` example and the
# official TypeScript client (run-agent.mjs) against agent_server.py (the Python SDK).
# check_server_clients.py runs the Rust client and the official TypeScript client against the
# Rust server's demo agent (chat, interrupt, its resume, error, and a slow run both abort)
# and compares the messages, state and outcome they end with.
# check_openai_agent.py runs the ag-ui-openai example `openai_agent` against a local
# OpenAI-compatible provider streaming parallel tool calls, with the Rust client and the official
# TypeScript client, and compares the messages, state and outcome they end with.
# check_cli.py runs `ag-ui check` (crates/ag-ui-cli) against a Python server on ag-ui-protocol
# (cli_agent_server.py) and a Node server on @ag-ui/encoder (cli-agent-server.mjs), each
# answering every input of its suite validly: nothing wrong may be found, no case skipped.
# check-proto.mjs compares ag-ui-core's protobuf encoding (feature `proto`, its `proto_hex`
# example) with the official encoder's (@ag-ui/proto) for every valid 1.0 event fixture and the
# byte corpus in fixtures/_proto-bytes/, and decodes each encoder's bytes with the other.
# check-server.mjs builds and starts the Rust server example (cargo) and runs the official
# TypeScript client against it, plain and with --resumable (SSE ids it must ignore); it writes
# what the client ended with to out/server/. check-resumable.mjs starts `serve --resumable`
# and cuts a run at every frame, joins it with Last-Event-ID, stops one from a second
# connection and checks expiry, with plain fetch.
# Each subdirectory with a package-lock.json is a check of its own with its own pinned
# packages, installed the same way (npm ci), whose check-*.mjs run inside it:
# copilotkit/ puts the Rust demo server behind the CopilotKit runtime; browser/ drives the
# web demo and the official client in the system's chromium (installed when missing), calls
# every route of resumable runs from a page on another origin (CORS), reloads the web
# demo's page after a restart of a server with durable threads, drives its threads sidebar
# and a second tab following a run (check-web-threads.mjs), and shows a run replayed by
# `ag-ui replay` exactly as the live run (check-web-replay.mjs).
set -euo pipefail
cd "$(dirname "$0")"
# Each stage's line starts with the time since CI (or this script) started, minutes:seconds.
export CI_STARTED="${CI_STARTED:-$(date +%s)}"
stage() {
  local t=$(( $(date +%s) - CI_STARTED ))
  printf '== [%d:%02d] %s\n' $((t / 60)) $((t % 60)) "$1"
}

stage "interop: install (npm ci, pip into .venv)"
npm ci --no-audit --no-fund --loglevel=error
if [ ! -x .venv/bin/python ]; then
  rm -rf .venv
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

status=0
for check in check-*.mjs; do
  [ -e "$check" ] || continue
  stage "interop: node $check"
  node "$check" || status=1
done
for check in check_*.py; do
  [ -e "$check" ] || continue
  stage "interop: python $check"
  .venv/bin/python "$check" || status=1
done
for lock in */package-lock.json; do
  dir="$(dirname "$lock")"
  stage "interop: $dir: install (npm ci)"
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error); then
    status=1
    continue
  fi
  for check in "$dir"/check-*.mjs; do
    [ -e "$check" ] || continue
    stage "interop: node $check"
    (cd "$dir" && node "$(basename "$check")") || status=1
  done
done
exit "$status"

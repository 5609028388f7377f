#!/usr/bin/env bash
# Runs schemathesis (PyPI, pinned in requirements.txt) against the `serve` example with a
# SQLite thread store, from the OpenAPI document the server serves at /openapi.json: every
# JSON route with generated inputs (valid and invalid), checking that no answer is a 5xx and
# that every answer's status, content type and JSON body are what the document says. The SSE
# routes (starting a run, joining one, following a thread) are described in the document but
# left out here: schemathesis reads JSON bodies. Threads made by a few runs first give the
# list and read routes something to answer.
#
# usage: scripts/openapi/check.sh [PATH_TO_SERVE_BINARY]   (default: target/debug/examples/serve)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
serve="${1:-$root/target/debug/examples/serve}"
venv="$root/target/schemathesis-venv"
if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$root/scripts/openapi/requirements.txt"
fi

dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$serve" "127.0.0.1:$port" --threads "sqlite://$dir/threads.db" >"$dir/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
  curl -fsS -o /dev/null "$base/openapi.json" && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/serve.log"; echo "serve exited" >&2; exit 1; }
  sleep 0.1
done
curl -fsS -o /dev/null "$base/openapi.json"

for i in 1 2 3; do
  curl -fsS -N --max-time 20 -o /dev/null "$base/" -H 'content-type: application/json' \
    -H 'accept: text/event-stream' \
    -d "{\"threadId\":\"seed-$i\",\"runId\":\"seed-run-$i\",\"messages\":[{\"id\":\"u$i\",\"role\":\"user\",\"content\":\"Weather in Amsterdam?\"}],\"forwardedProps\":{\"scenario\":\"chat\"}}"
done

"$venv/bin/st" run "$base/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --exclude-path / --exclude-path-regex '/events$' \
  --request-timeout 5 --max-examples 40 --seed 1 \
  --generation-database none --no-color
kill -0 "$pid" 2>/dev/null || { cat "$dir/serve.log"; echo "serve died during the run" >&2; exit 1; }

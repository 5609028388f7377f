// The Node reading side of the server benchmark (crates/ag-ui-server/benches/serve.rs):
// the official client's transport and decoding (@ag-ui/client HttpAgent.run: fetch, SSE
// parsing, JSON decoding), without the reducer. For every URL read from a stdin line it
// runs once and prints one JSON line: {events, firstMs, totalMs}.
//
// node bench-client.mjs   (then write URLs to its stdin)

import { createInterface } from "node:readline";
import { HttpAgent } from "@ag-ui/client";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

function runOnce(url) {
  const agent = new HttpAgent({ url, threadId: "bench" });
  const input = {
    threadId: "bench", runId: "bench-run", messages: [], tools: [], context: [],
    forwardedProps: {}, state: {},
  };
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let first = null;
    let events = 0;
    agent.run(input).subscribe({
      next: () => {
        if (first === null) first = performance.now() - start;
        events += 1;
      },
      error: reject,
      complete: () => resolve({ events, firstMs: first ?? 0, totalMs: performance.now() - start }),
    });
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const url = line.trim();
  if (!url) continue;
  try {
    process.stdout.write(JSON.stringify(await runOnce(url)) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e?.message ?? e) }) + "\n");
  }
}

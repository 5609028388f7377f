// The Node side of the server benchmark (crates/ag-ui-server/benches/serve.rs): an HTTP
// server that answers every POST with the events of a corpus file (one JSON event per
// line), each encoded by the official @ag-ui/encoder and written as its own chunk, as a
// Node agent server does. Prints its address as the first line of stdout.
//
// node bench-server.mjs CORPUS_FILE

import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { EventEncoder } from "@ag-ui/encoder";

const file = process.argv[2];
if (!file) {
  console.error("usage: node bench-server.mjs CORPUS_FILE");
  process.exit(2);
}
const events = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

const server = createServer(async (req, res) => {
  for await (const _ of req) {
    // The run input is read and ignored: the corpus is the run.
  }
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, {
    "content-type": encoder.getContentType(),
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
  });
  for (const event of events) {
    if (!res.write(encoder.encode(event))) {
      await new Promise((resolve) => res.once("drain", resolve));
    }
  }
  res.end();
});
server.listen(0, "127.0.0.1", () => {
  const { address, port } = server.address();
  process.stdout.write(`${address}:${port}\n`);
});

// Bundles the official @ag-ui/client (the version package-lock.json pins) for the browser,
// with the pinned esbuild: one script that defines `window.AgUiClient`.
//
//   npm ci && node bundle.mjs [OUT]     (OUT defaults to out/ag-ui-client.js)
//
// The web example serves the file with `--client-bundle OUT`; check-browser.mjs builds it
// the same way before each run.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Writes the bundle to `outfile`. */
export async function bundle(outfile = join(HERE, "out", "ag-ui-client.js")) {
  await esbuild.build({
    stdin: { contents: 'export * from "@ag-ui/client";', resolveDir: HERE, sourcefile: "ag-ui-client-entry.js" },
    bundle: true,
    format: "iife",
    globalName: "AgUiClient",
    platform: "browser",
    target: "es2020",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await bundle(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(out);
}

/**
 * @module The matrix's driver for workerd: `node workerd-host.mjs <bundled worker>` serves the Worker through Miniflare
 * with default compatibility flags (no nodejs_compat) and sends it the scenarios. Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";
import { requestHeaders, scenarioChecks } from "./checks.mjs";

const [script, compatibilityDate] = process.argv.slice(2);
const mf = new Miniflare({ modules: true, script: readFileSync(script, "utf8"), compatibilityDate, compatibilityFlags: [] });
try {
  const send = (path) => async (method, contentType, body) => {
    const response = await mf.dispatchFetch(`http://localhost${path}`, { method, headers: requestHeaders(contentType, body), body });
    return { status: response.status, text: await response.text() };
  };
  const core = await send("/core")("GET", "text/plain");
  const coreResults =
    core.status === 200
      ? JSON.parse(core.text)
      : [{ name: "worker: core checks", ok: false, detail: `${core.status} ${core.text.slice(0, 300)}` }];
  const results = [
    ...coreResults.map((r) => ({ ...r, name: `worker ${r.name}` })),
    ...(await scenarioChecks("worker fetch handler", send("/mcp"))),
  ];
  console.log(JSON.stringify({ nodeHttp: false, results }));
} finally {
  await mf.dispose();
}

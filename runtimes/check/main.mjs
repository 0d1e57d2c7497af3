/**
 * @module The matrix's driver for runtimes with a module loader of their own (Node, Bun, Deno): the core checks,
 * wymcpFetch in-process, and wymcpNode behind node:http where the runtime has it. Prints one JSON line.
 */
import { coreChecks, fetchApp, inProcess, MAX_BODY_BYTES, overHttp, scenarioChecks } from "./checks.mjs";

const results = [...coreChecks(), ...(await scenarioChecks("fetch", inProcess(fetchApp())))];

let http;
try {
  http = await import("node:http");
} catch {
  // No node:http on this runtime: the Node adapter is not part of its row.
}
if (http) {
  const { classifyEra } = await import("wymcp");
  const { wymcpNode } = await import("wymcp/node");
  const guard = wymcpNode({ limits: { maxBodyBytes: MAX_BODY_BYTES }, era: (req, body) => classifyEra(req.headers, body).era });
  const server = http.createServer((req, res) => {
    void guard(req, res, () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ handled: true, era: req.wymcp?.era, outcome: req.wymcp?.result.outcome, method: req.body?.method }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    results.push(...(await scenarioChecks("node:http", overHttp(`http://127.0.0.1:${server.address().port}/mcp`))));
  } finally {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
}

console.log(JSON.stringify({ nodeHttp: Boolean(http), results }));

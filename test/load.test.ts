/**
 * The mixed load against examples/server.ts (bench/load.ts): every message answered with its status, no 5xx, no
 * dropped connection. How long it takes and how much the server's RSS grows are targets of `npm run bench`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { runLoad } from "../bench/load.js";

const MESSAGES = 2_000;
const CONCURRENCY = 20;

let server: LaunchedExample;

before(async () => {
  server = await launchExample();
});

after(async () => {
  await server?.stop();
});

test(`${MESSAGES} mixed messages over ${CONCURRENCY} connections: each answered with its status, no 5xx, no dropped connection`, async (t) => {
  const load = await runLoad(server, MESSAGES, CONCURRENCY);
  t.diagnostic(
    `${MESSAGES} messages in ${load.elapsedMs.toFixed(0)} ms; p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms; ` +
      `server RSS ${(load.rssBeforeKb / 1024).toFixed(1)} -> ${(load.rssAfterKb / 1024).toFixed(1)} MiB`,
  );
  assert.deepEqual(load.failures.slice(0, 10), [], `${load.failures.length} failures; server stderr tail: ${server.stderr().slice(-500)}`);
  assert.equal(load.answered, MESSAGES);
});

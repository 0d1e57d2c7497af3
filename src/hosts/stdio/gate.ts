/**
 * @module stdio/gate: `wymcp stdio`, the gates' admission stage on a stdio server's standard input. Each line the
 * client writes is judged, its era read from the body as `classifyEra` reads it with no headers; a passing line goes to
 * the server unchanged. A refused request is answered on the client's side with its id and never reaches the server; a
 * refused notification or response is dropped, never answered; a line with no usable id (not JSON, too long) is answered
 * with `id: null` at most once a second. The server's output goes back unchanged (but for what the tools lock keeps
 * out). The concerns live beside it: the server's process (server-process.ts), the pipes (pipes.ts), the line gate
 * (line-gate.ts), the requests awaiting answers (pending.ts) and the outbound check (outbound-lines.ts).
 */
import type { GateHooks, GateLog } from "../../log/gate-log.js";

import { spawnServer, passStopSignals, DEFAULT_STOP_TIMEOUT_MS } from "./server-process.js";
import { type ClientSide, ClientOutput, clientWriter, pumpClient, relayServer, ServerInput } from "./pipes.js";
import { LineGate } from "./line-gate.js";
import type { StdioOptions } from "./stdio-options.js";
import { watchServer } from "./watchdog.js";
import { resolveLimits } from "../../options/options.js";

export type { ClientSide, StdioOptions };
export { DEFAULT_STOP_TIMEOUT_MS };
export { isResponseLike, NULL_ID_ANSWER_INTERVAL_MS } from "./line-gate.js";

/**
 * Spawns the server and stands between it and the client until it exits; resolves to the exit code to leave with: the
 * server's own, 128 + the signal's number when a signal ended it, 127 (126) when it could not be started.
 */
export async function runStdioGate(options: StdioOptions, client: ClientSide, log: GateLog, hooks: GateHooks = {}): Promise<number> {
  const server = spawnServer(options, log);
  if (typeof server === "number") return server;
  const { child, exited } = server;
  // Writing to a server that has exited fails with EPIPE: the exit code says the rest.
  child.stdin!.on("error", () => undefined);
  const watchdog = watchServer(child, (reason) =>
    log.line("watchdog-failed", { error: reason }, `the server is not watched (${reason}): it may outlive wymcp killed with SIGKILL`),
  );
  child.once("exit", () => watchdog?.standDown());
  client.output.on("error", () => undefined);
  const stopPassingSignals = passStopSignals(child, options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);

  const writer = clientWriter(client.output);
  const observe = hooks.observer?.chunk;
  const gate = new LineGate(options, log, hooks, (text) => {
    observe?.("wymcp", text);
    writer.own(text);
  });
  const output = new ClientOutput(client, writer, child, exited);
  relayServer(child.stdout!, output, gate, resolveLimits(options.limits).maxBodyBytes, observe);
  const pump = pumpClient(client.input, new ServerInput(child, exited), output, gate, options, observe);

  const code = await exited;
  stopPassingSignals();
  // The server is gone: nothing more of the client's is read.
  client.input.destroy();
  await pump;
  writer.finish();
  // Requests the server never answered: their spans end with it.
  gate.close();
  return code;
}

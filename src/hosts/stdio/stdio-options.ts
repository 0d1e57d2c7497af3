/** @module stdio-options: what `wymcp stdio` takes: the shared gate flags, the server's command, and its own. */
import type { Telemetry } from "../../telemetry/telemetry.js";
import type { GateFlags } from "../shared/gate-flags.js";
import type { ToolsOptions } from "../../tools/tools-at-edge.js";

export interface StdioOptions extends GateFlags {
  command: string;
  args: string[];
  /** Spans and metrics for every line judged (`--otel`: `mcpTelemetry()` over the SDK the command set up). */
  telemetry?: Telemetry;
  /** After passing on a stop signal, longest wait for the server to exit before it is killed (SIGKILL), in ms; 5,000 by default. */
  stopTimeoutMs?: number;
  /** The clock, in ms, that spaces the answers with `id: null` (`NULL_ID_ANSWER_INTERVAL_MS`); `Date.now` by default. */
  clock?: () => number;
  /** The server's tools (`--tools`, and learned from its tools/list answers): tools/call judged by them; no headers on a line. */
  tools?: ToolsOptions | undefined;
}

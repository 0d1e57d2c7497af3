/** @module command-telemetry: what `--otel` gives a command, and its one error. */
import type { Telemetry } from "../telemetry/telemetry.js";

/** Longest wait, once the face has drained, for the SDK to export what it still holds (the last spans, the metrics). */
export const SHUTDOWN_TIMEOUT_MS = 5_000;

/** The SDK a command runs with `--otel`: the face's `telemetry`, and the export of what is left when it stops. */
export interface CommandTelemetry {
  telemetry: Telemetry;
  /**
   * Flushes and stops the SDK, waiting at most `SHUTDOWN_TIMEOUT_MS`; never rejects. `late`: an export was still under
   * way at the bound, and its request (the exporter's own timeout is 10 s) would hold the process: the command exits.
   */
  shutdown(): Promise<"done" | "late">;
}

/** `--otel` cannot start: a missing peer or a setting the face cannot honour. The command prints it and exits 2. */
export class OtelSetupError extends Error {
  override name = "OtelSetupError";
}

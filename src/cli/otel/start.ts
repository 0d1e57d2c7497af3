/**
 * @module otel/start: `--otel` of `wymcp proxy` and `wymcp stdio`. Loads the OpenTelemetry SDK (src/otel/command-sdk.ts, a
 * chunk of its own) only when the flag is given; without the optional peers it names them in one line, and the command exits 2.
 */
import type { Face, GateLog } from "../../log/gate-log.js";
import { type CommandTelemetry, OtelSetupError } from "../../otel/command-telemetry.js";

export { type CommandTelemetry, OtelSetupError };

/** The optional peer dependencies `--otel` loads. */
export const OTEL_PEERS = ["@opentelemetry/api", "@opentelemetry/sdk-node"] as const;

/** Sets up the SDK from the `OTEL_*` environment variables for `face`; its diagnostics go to the face's log. */
export async function startTelemetry(face: Face, log: GateLog): Promise<CommandTelemetry> {
  let sdk: typeof import("../../otel/command-sdk.js");
  try {
    sdk = await import("../../otel/command-sdk.js");
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === undefined) throw error;
    throw new OtelSetupError(
      `--otel needs the optional peer dependencies ${OTEL_PEERS.join(" and ")}, and ${missing} is not installed: ` +
        `npm install ${OTEL_PEERS.join(" ")}`,
      { cause: error },
    );
  }
  return sdk.startSdk(face, log);
}

/** The package an import could not find, when it is one of OpenTelemetry's. */
function missingPackage(error: unknown): string | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "ERR_MODULE_NOT_FOUND") return undefined;
  return /Cannot find package '(@opentelemetry\/[^']+)'/.exec(String((error as Error).message))?.[1];
}

/** `--otel`'s SDK for a command; `undefined` once it has said on stderr why it cannot start (the command exits 2). */
export async function commandTelemetry(face: Face, log: GateLog): Promise<CommandTelemetry | undefined> {
  try {
    return await startTelemetry(face, log);
  } catch (error) {
    if (!(error instanceof OtelSetupError)) throw error;
    process.stderr.write(`wymcp ${face}: ${error.message}\n`);
    return undefined;
  }
}

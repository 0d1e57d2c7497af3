/**
 * @module face-start: what `wymcp proxy` and `wymcp stdio` start before they serve, in one order: the log on stderr,
 * `--otel`'s SDK, the server's tools read, the live page and `--record`; and what each report of the face reaches.
 */
import { createLog, type GateHooks, type GateLog } from "../log/gate-log.js";
import type { ToolsOptions } from "../tools/tools-at-edge.js";
import type { SharedFlags } from "./gate-options.js";
import { type Live, startLive } from "./live/live.js";
import { type CommandTelemetry, commandTelemetry } from "./otel/start.js";
import { toolsFromFlags } from "./tools-flags.js";

/** A face's start: its log, telemetry, tools and live page; the hooks to build it with; `close` ends what it started. */
export interface StartedFace {
  log: GateLog;
  otel: CommandTelemetry | undefined;
  tools: ToolsOptions | undefined;
  live: Live | undefined;
  hooks: GateHooks;
  /** Closes the live page, then exports the last spans (`"late"`: the export was still hanging at its bound). */
  close(): Promise<"done" | "late" | undefined>;
}

/**
 * Starts what the flags ask for; `{ exit }` once it has said on stderr why it cannot (2: `--otel` without its peers or a
 * `--tools` file that holds none; 1: a `--record` file or `--ui` address that cannot be opened).
 */
export async function startFace(face: "proxy" | "stdio", flags: SharedFlags): Promise<StartedFace | { exit: number }> {
  const { options } = flags;
  const log = createLog(face, options.log, process.stderr);
  const otel = options.otel ? await commandTelemetry(face, log) : undefined;
  if (options.otel && !otel) return { exit: 2 };
  let tools: ToolsOptions | undefined;
  try {
    tools = options.passThrough ? undefined : await toolsFromFlags(flags.tools, log, options);
  } catch (error) {
    process.stderr.write(`wymcp ${face}: ${(error as Error).message}\n`);
    await otel?.shutdown();
    return { exit: 2 };
  }
  let live: Live | undefined;
  try {
    live = await startLive(face, flags.live, options, log);
  } catch (error) {
    process.stderr.write(`wymcp ${face}: ${(error as Error).message}\n`);
    await otel?.shutdown();
    return { exit: 1 };
  }
  return {
    log,
    otel,
    tools,
    live,
    hooks: liveHooks(live),
    async close() {
      await live?.close();
      return otel?.shutdown();
    },
  };
}

/** The hooks the live page needs: the observer of the bytes, and each report, for the row of the request it names. */
export function liveHooks(live: Pick<Live, "observer" | "feed"> | undefined): GateHooks {
  if (!live) return {};
  const { feed } = live;
  return { observer: live.observer, onReport: (report) => feed.report(report) };
}

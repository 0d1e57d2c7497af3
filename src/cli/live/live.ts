/**
 * @module live: the flags `--ui HOST:PORT` and `--record FILE` of `wymcp proxy` and `wymcp stdio`, read before the
 * face's own; what they start is `startLive` (src/inspect/live/start.ts).
 */
import { isLoopback } from "../../inspect/listener.js";
import type { LiveArgs } from "../../inspect/live/start.js";
import { DEFAULT_MAX_ROWS } from "../../inspect/ring.js";
import { hostPort, UsageError } from "../args.js";

import type { GateLog } from "../../log/gate-log.js";
import { type GateFlags, type HttpGateFlags, resolveGate } from "../../hosts/shared/gate-flags.js";
import { type Live, startLive as start } from "../../inspect/live/start.js";

export type { Live };

/** Starts what the live flags ask for, judging with the limits, checks and formats the face's own flags set. */
export function startLive(
  face: "proxy" | "stdio",
  args: LiveArgs,
  flags: GateFlags & HttpGateFlags,
  log: GateLog,
): Promise<Live | undefined> {
  return start(face, args, resolveGate(flags, () => undefined).settings, log);
}

/** The live page's flags, which `wymcp proxy` and `wymcp stdio` read before their own. */
export const LIVE_FLAGS: ReadonlySet<string> = new Set(["--ui", "--ui-token", "--ui-max-rows", "--record", "--record-unredacted"]);

/**
 * Takes the live flags out of a face's arguments (before a `--`, which starts stdio's server command), leaving the
 * rest for its own parser. The token may come from `WYMCP_UI_TOKEN`, out of the process list.
 * @example takeLiveArgs(["--upstream", "http://127.0.0.1:8000/mcp", "--ui", "127.0.0.1:0"]).live.ui // { host: "127.0.0.1", port: 0 }
 */
export function takeLiveArgs(argv: string[], env: Record<string, string | undefined> = process.env): { live: LiveArgs; rest: string[] } {
  const live: LiveArgs = { ui: undefined, token: undefined, maxRows: DEFAULT_MAX_ROWS, record: undefined, reveal: false };
  const rest: string[] = [];
  let tokenGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!LIVE_FLAGS.has(name)) {
      rest.push(arg);
      continue;
    }
    if (name === "--record-unredacted") {
      if (eq > 0) throw new UsageError("--record-unredacted takes no value");
      live.reveal = true;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "--") throw new UsageError(`${name} takes a value`);
    if (name === "--ui") {
      live.ui = hostPort("--ui", value);
    } else if (name === "--ui-token") {
      live.token = value;
      tokenGiven = true;
    } else if (name === "--ui-max-rows") {
      const rows = Number(value);
      if (!Number.isSafeInteger(rows) || rows < 1 || rows > 1_000_000)
        throw new UsageError(`--ui-max-rows takes a whole number from 1 to 1000000, not ${JSON.stringify(value)}`);
      live.maxRows = rows;
    } else live.record = value;
  }
  if (!tokenGiven && env.WYMCP_UI_TOKEN) live.token = env.WYMCP_UI_TOKEN;
  if (tokenGiven && !live.ui) throw new UsageError("--ui-token goes with --ui");
  if (live.reveal && live.record === undefined) throw new UsageError("--record-unredacted goes with --record FILE");
  if (live.ui && !isLoopback(live.ui.host) && live.token === undefined)
    throw new UsageError(`--ui ${live.ui.host} is not a loopback address: the page would be open to the network; give --ui-token TOKEN`);
  if (live.ui && live.token !== undefined && live.token.length < 16) throw new UsageError("--ui-token takes at least 16 characters");
  return { live, rest };
}

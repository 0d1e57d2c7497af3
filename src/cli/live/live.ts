/**
 * @module live: the flags `--ui HOST:PORT` and `--record FILE` of `wymcp proxy` and `wymcp stdio`, in their tables;
 * what they start is `startLive` (src/inspect/live/start.ts).
 */
import { isLoopback } from "../../inspect/listener.js";
import type { LiveArgs } from "../../inspect/live/start.js";
import { DEFAULT_MAX_ROWS } from "../../inspect/ring.js";
import { hostPort, positiveInteger, SWITCH, UsageError, VALUE } from "../args.js";
import type { GateLog } from "../../log/gate-log.js";
import { type GateFlags, resolveGate } from "../../hosts/shared/gate-flags.js";
import { type Live, startLive as start } from "../../inspect/live/start.js";

export type { Live };

/** The live page's flags, which `wymcp proxy` and `wymcp stdio` take. */
export const LIVE_FLAGS = { ui: VALUE, "ui-token": VALUE, "ui-max-rows": VALUE, record: VALUE, "record-unredacted": SWITCH } as const;

/** Starts what the live flags ask for, judging with the limits and the rules the face's own flags set. */
export function startLive(face: "proxy" | "stdio", args: LiveArgs, flags: GateFlags, log: GateLog): Promise<Live | undefined> {
  return start(face, args, resolveGate(flags, { headersOf: () => undefined }).settings, log);
}

/**
 * The live flags, checked. The token may come from `WYMCP_UI_TOKEN`, out of the process list.
 * @example liveArgs({ ui: "127.0.0.1:0" }).ui // { host: "127.0.0.1", port: 0 }
 */
export function liveArgs(
  values: { ui?: string; "ui-token"?: string; "ui-max-rows"?: string; record?: string; "record-unredacted"?: boolean },
  env: Record<string, string | undefined> = process.env,
): LiveArgs {
  const rows = positiveInteger("--ui-max-rows", values["ui-max-rows"], DEFAULT_MAX_ROWS);
  if (rows > 1_000_000)
    throw new UsageError(`--ui-max-rows takes a whole number from 1 to 1000000, not ${JSON.stringify(values["ui-max-rows"])}`);
  const ui = values.ui === undefined ? undefined : hostPort("--ui", values.ui);
  const token = values["ui-token"] ?? (env.WYMCP_UI_TOKEN || undefined);
  const reveal = values["record-unredacted"] === true;
  if (values["ui-token"] !== undefined && !ui) throw new UsageError("--ui-token goes with --ui");
  if (reveal && values.record === undefined) throw new UsageError("--record-unredacted goes with --record FILE");
  if (ui && !isLoopback(ui.host) && token === undefined)
    throw new UsageError(`--ui ${ui.host} is not a loopback address: the page would be open to the network; give --ui-token TOKEN`);
  if (ui && token !== undefined && token.length < 16) throw new UsageError("--ui-token takes at least 16 characters");
  return { ui, token: ui ? token : undefined, maxRows: rows, record: values.record, reveal };
}

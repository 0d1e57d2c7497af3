/**
 * @module live: `--ui HOST:PORT` and `--record FILE` on `wymcp proxy` and `wymcp stdio`: their flags, read before
 * the face's own, and what they start: the inspector's listener and page over a live feed of the messages passing,
 * and the recorder. The face calls one observer with what it already has; everything else is here.
 */
import { isLoopback, type Listener, listen } from "../../inspect/listener.js";
import { parseListen } from "../inspect/command.js";
import { DEFAULT_MAX_ROWS } from "../../inspect/ring.js";
import { type GateFlags, type HttpGateFlags, resolveGate } from "../../hosts/shared/gate-flags.js";
import { UsageError } from "../args.js";
import type { GateLog, MessageObserver } from "../../core/gate-log.js";
import type { JudgeOptions } from "../../check/judge.js";
import { LiveFeed } from "../../inspect/live/feed.js";
import { httpTap } from "../../inspect/live/http-tap.js";
import { Recorder } from "../../inspect/live/record.js";
import { stdioTap } from "../../inspect/live/stdio-tap.js";

/** What the face's hooks carry to the live feed: the proxy calls `exchange`, the stdio gate `chunk`. */
export type LiveObserver = MessageObserver;

export interface LiveArgs {
  ui: { host: string; port: number } | undefined;
  token: string | undefined;
  maxRows: number;
  record: string | undefined;
  reveal: boolean;
}

const FLAGS = new Set(["--ui", "--ui-token", "--ui-max-rows", "--record", "--record-unredacted"]);

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
    if (!FLAGS.has(name)) {
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
      try {
        live.ui = parseListen(value);
      } catch {
        throw new UsageError(`--ui takes HOST:PORT (e.g. 127.0.0.1:0), not ${JSON.stringify(value)}`);
      }
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

/** The live page and the recorder, started; `observer` goes into the face's hooks. */
export interface Live {
  observer: LiveObserver;
  feed: LiveFeed;
  /** The page's address (with its token), when `--ui` was given. */
  url: string | undefined;
  listener: Listener | undefined;
  recorder: Recorder | undefined;
  close(): Promise<void>;
}

/** The judging the face's own flags call for: the same limits, checks and formats its gate applies. */
export function liveJudgeOptions(flags: GateFlags & HttpGateFlags): JudgeOptions {
  return { era: "auto", direction: "auto", headers: {}, method: undefined, settings: resolveGate(flags, () => undefined).settings };
}

/**
 * Starts what the live flags ask for (nothing: undefined). A file that cannot be opened, or an address that cannot be
 * listened on, throws before any traffic passes.
 */
export async function startLive(
  face: "proxy" | "stdio",
  args: LiveArgs,
  flags: GateFlags & HttpGateFlags,
  log: GateLog,
): Promise<Live | undefined> {
  if (!args.ui && args.record === undefined) return undefined;
  const feed = new LiveFeed(face, liveJudgeOptions(flags), args.maxRows);
  const recorder =
    args.record === undefined
      ? undefined
      : new Recorder(args.record, {
          reveal: args.reveal,
          report: (message) => log.line("record", { file: args.record, message }, `--record: ${message}`),
        });
  if (recorder) feed.onCapture = (capture) => recorder.write(capture.text);
  let listener: Listener | undefined;
  try {
    listener =
      args.ui && (await listen({ ring: feed, host: args.ui.host, port: args.ui.port, token: args.token, title: `wymcp ${face} (live)` }));
  } catch (error) {
    await recorder?.close();
    throw error;
  }
  const capture = feed.capture.bind(feed);
  const observer: LiveObserver =
    face === "proxy"
      ? { exchange: httpTap(capture, { maxBytes: flags.maxBodyBytes }) }
      : { chunk: stdioTap(capture, { maxBytes: flags.maxBodyBytes }) };
  // The token stays out of the log: whoever gave it has it.
  const shown = listener?.url.replace(/\?token=.*$/, "");
  if (listener)
    log.line("ui", { url: shown, token: args.token !== undefined }, `live page at ${shown}${args.token ? " (with its token)" : ""}`);
  return {
    observer,
    feed,
    url: listener?.url,
    listener: listener || undefined,
    recorder,
    async close() {
      await listener?.close();
      await recorder?.close();
    },
  };
}

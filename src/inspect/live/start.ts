/**
 * @module start: what `--ui HOST:PORT` and `--record FILE` start on `wymcp proxy` and `wymcp stdio`: the inspector's
 * listener and page over a live feed of the messages passing, and the recorder. The face calls one observer with what
 * it already has; everything else is here.
 */
import type { JudgeOptions } from "../../check/judge.js";
import type { GateLog, MessageObserver } from "../../log/gate-log.js";
import type { AdmissionSettings } from "../../core/admission.js";
import { cannotWrite, fileReason } from "../../log/file-problem.js";
import { type Listener, listen, PageMissingError } from "../listener.js";
import { LiveFeed, textOf } from "./feed.js";
import { httpFeed } from "./http-tap.js";
import { Recorder } from "./record.js";
import { stdioTap } from "./stdio-tap.js";

/** What the face's hooks carry to the live feed: the proxy runs its `stage`, the stdio gate calls `chunk`. */
export type LiveObserver = MessageObserver;

/** The live flags, checked (`liveArgs` on the command line). */
export interface LiveArgs {
  ui: { host: string; port: number } | undefined;
  token: string | undefined;
  maxRows: number;
  record: string | undefined;
  reveal: boolean;
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

/** A `--record` file or a `--ui` address that cannot be opened, in the command line's words. */
export class LiveStartError extends Error {
  override name = "LiveStartError";
}

/** `--record FILE` opened now (a path that cannot be written is the command's error, before any traffic). */
function openRecorder(path: string, reveal: boolean, log: GateLog): Recorder {
  try {
    return new Recorder(path, { reveal, report: (message) => log.line("record", { file: path, message }, `--record: ${message}`) });
  } catch (error) {
    throw new LiveStartError(`--record: ${cannotWrite(path, error)}`, { cause: error });
  }
}

/** The judging the face's own settings call for: the same limits, checks and formats its gate applies. */
export function liveJudgeOptions(settings: AdmissionSettings): JudgeOptions {
  return { era: "auto", direction: "auto", headers: {}, method: undefined, settings };
}

/**
 * Starts what the live flags ask for (nothing: undefined), judging as the face's own settings (`resolveGate`) say. A file that cannot be opened, or an address that cannot be
 * listened on, throws before any traffic passes.
 */
export async function startLive(
  face: "proxy" | "stdio",
  args: LiveArgs,
  settings: AdmissionSettings,
  log: GateLog,
): Promise<Live | undefined> {
  if (!args.ui && args.record === undefined) return undefined;
  const feed = new LiveFeed(face, liveJudgeOptions(settings), args.maxRows);
  const recorder = args.record === undefined ? undefined : openRecorder(args.record, args.reveal, log);
  if (recorder) feed.onCapture = (capture) => recorder.write(textOf(capture), capture.own, capture.refused);
  let listener: Listener | undefined;
  try {
    listener =
      args.ui && (await listen({ ring: feed, host: args.ui.host, port: args.ui.port, token: args.token, title: `wymcp ${face} (live)` }));
  } catch (error) {
    await recorder?.close();
    const problem =
      error instanceof PageMissingError ? error.message : `cannot listen on ${args.ui?.host}:${args.ui?.port}: ${fileReason(error)}`;
    throw new LiveStartError(`--ui: ${problem}`, { cause: error });
  }
  const capture = feed.capture.bind(feed);
  const observer: LiveObserver =
    face === "proxy"
      ? httpFeed(capture, { maxBytes: settings.maxBodyBytes })
      : { chunk: stdioTap(capture, { maxBytes: settings.maxBodyBytes }) };
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

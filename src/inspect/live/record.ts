/**
 * @module record: `--record FILE`, the messages passing written as the page's JSONL export writes them (redacted
 * unless asked; wymcp's own answers whole, with their mark), one line each as it passes. The file is its owner's
 * alone (0600). Traffic never waits for the disk: past a bound of bytes queued for the file, lines are left out and
 * counted; a write error is reported once and recording stops, traffic flowing on.
 */
import { closeSync, createWriteStream, fchmodSync, fstatSync, openSync, type WriteStream } from "node:fs";
import type { OwnAnswer } from "../../log/gate-log.js";
import { jsonlLine } from "../export.js";
import type { CapturedRefusal } from "./held.js";

/** The record's mode: the traffic it holds is its owner's to read, whatever the umask. */
export const RECORD_MODE = 0o600;

/** Bytes queued for the file at most; past it, the lines are left out until the disk has taken them. */
export const DEFAULT_RECORD_QUEUE_BYTES = 8 * 1024 * 1024;

export interface RecorderOptions {
  reveal: boolean;
  /** Told once of a failure, and at close of what was left out. */
  report: (message: string) => void;
  maxQueuedBytes?: number;
}

export class Recorder {
  private readonly stream: WriteStream;
  private failed = false;
  private behind = false;
  /** Lines left out because the file fell behind, messages over the size limit, requests refused unread (no text kept). */
  dropped = 0;
  tooLarge = 0;
  unread = 0;
  written = 0;
  private readonly maxQueued: number;

  /**
   * Opens (truncates) the file now, its owner's alone: a new file is made 0600, and an existing regular file is set to
   * 0600 before anything is written (a FIFO or a device is left as it is). A path that cannot be written is the
   * caller's error, before any traffic.
   */
  constructor(
    readonly path: string,
    private readonly options: RecorderOptions,
  ) {
    this.maxQueued = options.maxQueuedBytes ?? DEFAULT_RECORD_QUEUE_BYTES;
    const fd = openSync(path, "w", RECORD_MODE);
    try {
      if (fstatSync(fd).isFile()) fchmodSync(fd, RECORD_MODE);
      this.stream = createWriteStream("", { fd, autoClose: true });
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.stream.on("error", (error) => {
      if (this.failed) return;
      this.failed = true;
      this.options.report(`cannot write ${path}: ${error.message}; recording stopped, traffic goes on`);
    });
  }

  /**
   * One message as it passed (`undefined`: no text kept: over the size limit, or a request `refused` before it was
   * read); `own` marks wymcp's own answer.
   */
  write(text: string | undefined, own?: OwnAnswer, refused?: CapturedRefusal): void {
    if (this.failed) return;
    if (text === undefined) {
      if (refused !== undefined && refused.reason !== "body-too-large") this.unread++;
      else this.tooLarge++;
      return;
    }
    if (this.stream.writableLength > this.maxQueued) {
      this.dropped++;
      if (!this.behind) {
        this.behind = true;
        this.options.report(`${this.path} falls behind the traffic: messages are left out while it does (counted at the end)`);
      }
      return;
    }
    this.stream.write(`${jsonlLine(text, this.options.reveal, own)}\n`);
    this.written++;
  }

  /** Ends the file once what is queued is written. */
  close(): Promise<void> {
    return new Promise((done) => {
      if (this.dropped > 0 || this.tooLarge > 0 || this.unread > 0)
        this.options.report(
          `${this.path}: ${this.written} message(s) recorded, ${this.dropped} left out while it fell behind, ${this.tooLarge} over the size limit left out${this.unread > 0 ? `, ${this.unread} refused before their body was read (wymcp's answers to them recorded)` : ""}`,
        );
      if (this.failed || this.stream.destroyed) return done();
      this.stream.end(() => done());
      this.stream.once("error", () => done());
    });
  }
}

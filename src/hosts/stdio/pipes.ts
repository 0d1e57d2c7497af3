/**
 * @module pipes: the bytes between the client, wymcp and the server, with backpressure both ways: the client's lines
 * to the server (judged one at a time by the line gate), the server's output back to the client, and wymcp's own
 * answers, held until the server ends its line.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import type { MessageObserver } from "../../log/gate-log.js";
import { LineSplitter } from "../../wire/lines.js";

import { resolveLimits } from "../../options/options.js";
import type { LineGate } from "./line-gate.js";
import type { StdioOptions } from "./stdio-options.js";
import { running } from "./server-process.js";

/**
 * The client's side: what it writes to wymcp, and where wymcp writes back to it. The log is not waited for: a log that
 * cannot keep up drops lines and counts them (`createLog` on a stream), so it never holds the client back.
 */
export interface ClientSide {
  input: Readable;
  output: Writable;
}

/**
 * Most bytes of wymcp's own answers held back while the server is in the middle of a line: past it, reading the client
 * waits for the server to end its line.
 */
const MAX_HELD_ANSWER_BYTES = 1024 * 1024;

const NEWLINE = Buffer.from("\n");

/**
 * The client's output as both directions see it: shared by the server's bytes and wymcp's answers, and waited on by
 * both. A client that has closed its end reads nothing more: the server's output is then read and dropped, so that the
 * server never blocks on a full pipe and its exit is seen.
 */
export class ClientOutput {
  /** The client has closed its end. */
  gone = false;
  readonly stream: Writable;

  constructor(
    private readonly client: ClientSide,
    readonly writer: ClientWriter,
    private readonly child: ChildProcess,
    private readonly exited: Promise<number>,
  ) {
    this.stream = client.output;
    const gone = () => {
      this.gone = true;
      child.stdout!.resume();
    };
    client.output.once("error", gone).once("close", gone);
  }

  /** Backpressure on wymcp's own writes: while the client has not taken what wymcp wrote, no more is read. */
  full(): boolean {
    const { output } = this.client;
    return !this.gone && (output.writableNeedDrain || this.writer.heldBytes() > MAX_HELD_ANSWER_BYTES);
  }

  /** Settles once the output is no longer full, or the server has exited. */
  async relieve(): Promise<void> {
    const { output } = this.client;
    while (this.full() && running(this.child)) {
      const waits = [this.writer.released(), this.exited.then(() => undefined)];
      if (output.writableNeedDrain) waits.push(settledBy(output, ["drain", "close", "error"]));
      await Promise.race(waits);
    }
  }
}

/**
 * Server → client: unchanged, with backpressure; lines are watched (outbound report, onAnswer, spans, a legacy session's
 * initialize answer when params are judged, the tools learned) after they are written.
 */
export function relayServer(
  fromServer: Readable,
  output: ClientOutput,
  gate: LineGate,
  maxBodyBytes: number,
  observe: MessageObserver["chunk"],
): void {
  const { writer } = output;
  const watch = gate.tracking || gate.negotiates ? new LineSplitter(maxBodyBytes) : undefined;
  let waiting = false;
  // With a tools lock, the server's answer to a tools/list goes through it (enforce mode: without unapproved tools):
  // every reader after it (the page's feed, learning, the outbound check, spans) reads the bytes the client receives.
  const locked = gate.lockedLines;
  const sent = (chunk: Buffer): boolean => {
    observe?.("server", chunk);
    const ok = output.gone || writer.server(chunk);
    // Learning splits every chunk, so that a line is whole when a tools/list answer is awaited; only then is one parsed.
    // Otherwise lines are read only while an initialize answer is awaited, and a chunk let by in between is passed over
    // so that a line it ends inside is not glued to the next answer.
    if (!watch) return ok;
    if (gate.tracking || gate.negotiating() || gate.learning) {
      watch.push(chunk);
      for (let line = watch.next(); line; line = watch.next()) if (line.kind === "line") gate.serverLine(line.bytes);
    } else watch.pass(chunk);
    return ok;
  };
  const toClient = (chunk: Buffer) =>
    locked
      ? locked.push(chunk).reduce((ok, piece) => sent(Buffer.from(piece.buffer, piece.byteOffset, piece.length)) && ok, true)
      : sent(chunk);
  if (locked) fromServer.once("end", () => void locked.end().forEach((piece) => sent(Buffer.from(piece))));
  fromServer.on("data", (chunk: Buffer) => {
    if (output.gone) {
      observe?.("server", chunk);
      return;
    }
    if (!toClient(chunk) && !waiting) {
      waiting = true;
      fromServer.pause();
      output.stream.once("drain", () => {
        waiting = false;
        fromServer.resume();
      });
      if (output.gone) fromServer.resume();
    }
  });
}

/** The server's input: a write waits while it is full, until it drains or the server exits. */
export class ServerInput {
  private readonly stream: Writable;

  constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<number>,
  ) {
    this.stream = child.stdin!;
  }

  /** Whether the server has exited. */
  get gone(): boolean {
    return !running(this.child);
  }

  async send(bytes: Uint8Array): Promise<void> {
    const { stream } = this;
    if (!stream.writable) return;
    if (!stream.write(bytes)) await Promise.race([once(stream, "drain"), this.exited]);
  }

  /** A line joined from several chunks goes on with its `\n` in one write of two buffers, neither copied. */
  async sendLine(bytes: Uint8Array): Promise<void> {
    const { stream } = this;
    if (!stream.writable) return;
    stream.cork();
    stream.write(bytes);
    const ok = stream.write(NEWLINE);
    stream.uncork();
    if (!ok) await Promise.race([once(stream, "drain"), this.exited]);
  }

  end(): void {
    this.stream.end();
  }
}

/** Client → server: line by line, in order; reading waits while the server's input is full. Settles once that input is closed. */
export async function pumpClient(
  input: Readable,
  server: ServerInput,
  output: ClientOutput,
  gate: LineGate,
  options: StdioOptions,
  observe: MessageObserver["chunk"],
): Promise<void> {
  const reader = new LineSplitter(resolveLimits(options.limits).maxBodyBytes);
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      if (server.gone) break;
      observe?.("client", chunk);
      if (options.passThrough) {
        await server.send(chunk);
        continue;
      }
      // Passing lines that sit together in the chunk go as one slice of it: no copy, one write.
      let runStart = 0;
      let runEnd = 0;
      reader.push(chunk);
      for (let line = reader.next(); line; line = reader.next()) {
        const judged = gate.clientLine(line);
        const pass = typeof judged === "boolean" ? judged : await judged;
        if (!pass && output.full()) await output.relieve();
        if (pass && line.inChunk) {
          if (runEnd !== line.start) runStart = line.start;
          runEnd = line.end;
          continue;
        }
        if (runEnd > runStart) await server.send(chunk.subarray(runStart, runEnd));
        runStart = runEnd = line.end;
        if (pass && line.kind === "line") await server.sendLine(line.bytes);
      }
      if (runEnd > runStart) await server.send(chunk.subarray(runStart, runEnd));
    }
    const last = reader.end();
    if (last && (await gate.clientLine(last)) && last.kind === "line") await server.send(last.bytes);
  } catch {
    // The client's side broke: as at its end, the server's input is closed and the server decides.
  }
  server.end();
}

export type ClientWriter = ReturnType<typeof clientWriter>;

/**
 * The client's output, shared by the server's bytes and wymcp's own answers. The server's go out as they come; an
 * answer of wymcp's waits for the end of the server's current line, so it never lands inside one of its messages.
 */
export function clientWriter(output: Writable) {
  let atLineEnd = true;
  let queued: string[] = [];
  let held = 0;
  let onRelease: (() => void) | undefined;
  let whenReleased: Promise<void> | undefined;
  const release = () => {
    for (const text of queued) output.write(text);
    queued = [];
    held = 0;
    onRelease?.();
    onRelease = whenReleased = undefined;
  };
  return {
    server(chunk: Buffer): boolean {
      const ok = output.write(chunk);
      atLineEnd = chunk[chunk.length - 1] === 10;
      if (atLineEnd && queued.length > 0) release();
      return ok;
    },
    own(text: string): void {
      if (atLineEnd) output.write(text);
      else {
        queued.push(text);
        held += text.length;
      }
    },
    /** Bytes (UTF-16 units) of wymcp's answers waiting for the end of the server's line. */
    heldBytes: () => held,
    /** Settles once the answers held back have been written. */
    released(): Promise<void> {
      whenReleased ??= new Promise<void>((resolve) => (onRelease = resolve));
      return whenReleased;
    },
    /**
     * Writes what still waits for a line's end. Nothing is awaited: writes still pending keep the process alive until they
     * are done, or fail because the client has gone, and a wait for `drain` could outlive every other handle (Node then
     * exits 13, its code for a top-level await that never settles).
     */
    finish(): void {
      release();
    },
  };
}

/** Settles at the first of `events` on `stream`, and leaves no listener behind. */
function settledBy(stream: Writable, events: string[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) stream.off(event, done);
      resolve();
    };
    for (const event of events) stream.once(event, done);
  });
}

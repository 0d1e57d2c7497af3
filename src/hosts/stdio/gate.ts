/**
 * @module stdio/gate: `wymcp stdio`, the gates' admission stage on a stdio server's standard input. Each line the
 * client writes is judged, its era read from the body as `classifyEra` reads it with no headers; a passing line goes to
 * the server unchanged. A refused request is answered on the client's side with its id and never reaches the server; a
 * refused notification or response is dropped, never answered; a line with no usable id (not JSON, too long) is answered
 * with `id: null` at most once a second. The server's output goes back unchanged.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import type { Refusal } from "../../core/admission.js";
import { isResponse } from "../../core/is-response.js";
import { answerId, type JsonRpcId } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import type { Formats } from "../../core/formats.js";
import { legacyRevisionOf } from "../../core/legacy-revision.js";
import type { ExchangeTrace, Telemetry } from "../../core/telemetry.js";
import { validateMcpRequest } from "../../core/validate.js";
import { type GateAdmit, gateBody, type GateFace, type GateInput, gateBytes, type TraceFacts } from "../../core/pipeline.js";
import { now } from "../../core/traced.js";
import { validateMcpResponse } from "../../outbound/validate-response.js";
import {
  admittedEvent,
  namesOf,
  notify,
  refusalEvent,
  refusedBody,
  safeMethod,
  type GateHooks,
  type GateLog,
  type MessageObserver,
  type VerdictEvent,
} from "../../log/gate-log.js";
import { type GateFlags, resolveGate } from "../shared/gate-flags.js";
import { isBlank, type Line, LineSplitter } from "../../wire/lines.js";
import { loggedToolLock } from "../../lock/lock-log.js";
import { type ToolLockWatch, toolsListRequests } from "../../lock/tool-lock.js";
import { LockedLines } from "../../lock/tool-lock-stream.js";
import { type ToolsAtEdge, type ToolsOptions, type ToolsRefusal, toolsOption } from "../../tools/tools-at-edge.js";
import { signalServer, WATCHED, watchServer } from "./watchdog.js";

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

/**
 * The client's side: what it writes to wymcp, and where wymcp writes back to it. The log is not waited for: a log that
 * cannot keep up drops lines and counts them (`createLog` on a stream), so it never holds the client back.
 */
export interface ClientSide {
  input: Readable;
  output: Writable;
}

/** Default wait for the server to exit after a stop signal before it is killed. */
export const DEFAULT_STOP_TIMEOUT_MS = 5_000;

/**
 * Most bytes of wymcp's own answers held back while the server is in the middle of a line: past it, reading the client
 * waits for the server to end its line.
 */
const MAX_HELD_ANSWER_BYTES = 1024 * 1024;

/** Shortest time between two answers with `id: null` (lines not JSON, too long): junk must not be answered with a flood. */
export const NULL_ID_ANSWER_INTERVAL_MS = 1_000;

/** Requests remembered until the server answers them (for outbound checks, `onAnswer` and spans); the oldest is forgotten past this. */
const MAX_PENDING = 4_096;

/** A line's transport, as the conventions name it: a pipe, no HTTP, no peer address, no headers. */
const PIPE: TraceFacts = {
  transport: { network: "pipe", protocol: undefined, client: undefined, header: undefined },
  headers: { protocolVersion: undefined, sessionId: undefined },
};
const pipeFacts = () => PIPE;

const NEWLINE = Buffer.from("\n");
const JSON_TYPE = "application/json";
/** A line's exchange has no chunks to read: it is whole in memory (and a line past the limit is judged by its length). */
const NO_CHUNKS: Uint8Array[] = [];
/** The server's lines as text, as Node reads a Buffer: a byte sequence that is not UTF-8 becomes U+FFFD. */
const TEXT = new TextDecoder();

/** Signals a client sends to stop its server: wymcp passes them on and exits when the server does. */
const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Spawns the server and stands between it and the client until it exits; resolves to the exit code to leave with: the
 * server's own, 128 + the signal's number when a signal ended it, 127 (126) when it could not be started.
 */
export async function runStdioGate(options: StdioOptions, client: ClientSide, log: GateLog, hooks: GateHooks = {}): Promise<number> {
  const server = spawnServer(options, log);
  if (typeof server === "number") return server;
  const { child, exited } = server;
  // Writing to a server that has exited fails with EPIPE: the exit code says the rest.
  child.stdin!.on("error", () => undefined);
  const watchdog = watchServer(child, (reason) =>
    log.line("watchdog-failed", { error: reason }, `the server is not watched (${reason}): it may outlive wymcp killed with SIGKILL`),
  );
  child.once("exit", () => watchdog?.standDown());
  client.output.on("error", () => undefined);
  const stopPassingSignals = passStopSignals(child, options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);

  const writer = clientWriter(client.output);
  const observe = hooks.observer?.chunk;
  const gate = new LineGate(options, log, hooks, (text) => {
    observe?.("wymcp", text);
    writer.own(text);
  });
  const output = new ClientOutput(client, writer, child, exited);
  relayServer(child.stdout!, output, gate, options.maxBodyBytes, observe);
  const pump = pumpClient(client.input, new ServerInput(child, exited), output, gate, options, observe);

  const code = await exited;
  stopPassingSignals();
  // The server is gone: nothing more of the client's is read.
  client.input.destroy();
  await pump;
  writer.finish();
  // Requests the server never answered: their spans end with it.
  gate.close();
  return code;
}

/** The server, started, and the exit code it will leave with; or the code to leave with when it cannot be started. */
function spawnServer(options: StdioOptions, log: GateLog): { child: ChildProcess; exited: Promise<number> } | number {
  let child: ChildProcess;
  try {
    // A process group of its own, which the watchdog kills once wymcp is gone (watchdog.ts).
    child = spawn(options.command, options.args, { stdio: ["pipe", "pipe", "inherit"], detached: WATCHED });
  } catch (error) {
    log.line(
      "spawn-failed",
      { command: options.command, error: (error as Error).message },
      `cannot start ${JSON.stringify(options.command)}: ${(error as Error).message}`,
    );
    return 127;
  }
  const exited = new Promise<number>((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      log.line(
        "spawn-failed",
        { command: options.command, error: error.code ?? error.message },
        `cannot start ${JSON.stringify(options.command)}: ${error.code ?? error.message}`,
      );
      resolve(error.code === "EACCES" ? 126 : 127);
    });
    // `close`: the process has exited and its output has been read to the end.
    child.once("close", (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
  return { child, exited };
}

/**
 * A stop signal is passed on to the server's group; a server still running past the bound is killed. wymcp leaving by
 * any other way (an uncaught error, process.exit) takes the server with it. A SIGKILL of wymcp cannot be caught: the
 * watchdog kills the server's group then (watchdog.ts), and the server's stdin ends. Returns the undoing, for once the
 * server has exited.
 */
function passStopSignals(child: ChildProcess, stopTimeoutMs: number): () => void {
  let killTimer: NodeJS.Timeout | undefined;
  const forwardSignal = (signal: NodeJS.Signals) => {
    signalServer(child, signal);
    killTimer ??= setTimeout(() => signalServer(child, "SIGKILL"), stopTimeoutMs);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forwardSignal);
  const orphan = () => signalServer(child, "SIGKILL");
  process.once("exit", orphan);
  return () => {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forwardSignal);
    clearTimeout(killTimer);
    process.off("exit", orphan);
  };
}

/** Whether the server is still running. */
function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * The client's output as both directions see it: shared by the server's bytes and wymcp's answers, and waited on by
 * both. A client that has closed its end reads nothing more: the server's output is then read and dropped, so that the
 * server never blocks on a full pipe and its exit is seen.
 */
class ClientOutput {
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
function relayServer(
  fromServer: Readable,
  output: ClientOutput,
  gate: LineGate,
  maxBodyBytes: number,
  observe: MessageObserver["chunk"],
): void {
  const { writer } = output;
  const watch = gate.tracking || gate.negotiates ? new LineSplitter(maxBodyBytes) : undefined;
  let waiting = false;
  // With a tools lock, the server's answer to a tools/list goes through it (enforce mode: without unapproved tools).
  const locked = gate.lockedLines;
  const toClient = (chunk: Buffer) =>
    locked
      ? locked.push(chunk).reduce((ok, piece) => writer.server(Buffer.from(piece.buffer, piece.byteOffset, piece.length)) && ok, true)
      : writer.server(chunk);
  if (locked) fromServer.once("end", () => void locked.end().forEach((piece) => writer.server(Buffer.from(piece))));
  fromServer.on("data", (chunk: Buffer) => {
    observe?.("server", chunk);
    if (output.gone) return;
    if (!toClient(chunk) && !waiting) {
      waiting = true;
      fromServer.pause();
      output.stream.once("drain", () => {
        waiting = false;
        fromServer.resume();
      });
      if (output.gone) fromServer.resume();
    }
    // Learning splits every chunk, so that a line is whole when a tools/list answer is awaited; only then is one parsed.
    // Otherwise lines are read only while an initialize answer is awaited, and a chunk let by in between is passed over
    // so that a line it ends inside is not glued to the next answer.
    if (!watch) return;
    if (gate.tracking || gate.negotiating() || gate.learning) {
      watch.push(chunk);
      for (let line = watch.next(); line; line = watch.next()) if (line.kind === "line") gate.serverLine(line.bytes);
    } else watch.pass(chunk);
  });
}

/** The server's input: a write waits while it is full, until it drains or the server exits. */
class ServerInput {
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
async function pumpClient(
  input: Readable,
  server: ServerInput,
  output: ClientOutput,
  gate: LineGate,
  options: StdioOptions,
  observe: MessageObserver["chunk"],
): Promise<void> {
  const reader = new LineSplitter(options.maxBodyBytes);
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

/** The judging half: one verdict per client line, the answers it writes, the server's lines it watches. */
class LineGate {
  /** The tools lock's reader of the server's output (`--tools-lock`), or undefined. */
  readonly lockedLines: LockedLines | undefined;
  /** Whether the server's output is to be watched for a legacy session's revision at all. */
  readonly negotiates: boolean;
  /** Whether the server's lines teach the tools. */
  readonly learning: boolean;
  /** Whether the server's answers are matched to their requests (outbound report, onAnswer, spans): every line is read. */
  readonly tracking: boolean;
  private readonly face: GateFace;
  private readonly pending = new PendingRequests();
  private readonly clock: () => number;
  private readonly toolLock: ToolLockWatch | undefined;
  /** One server, one set of tools: what it lists is learned from its own lines. */
  private readonly tools: ToolsAtEdge | undefined;
  /** One exchange for every line: lines are judged one at a time, and a line costs no allocation of wymcp's beyond what judging it takes. */
  private readonly exchange: GateInput;
  private sessionEra: Era = "legacy";
  /**
   * A line has no MCP-Protocol-Version header: a legacy session's lines are judged by the revision the server's answer
   * to initialize negotiated, as an HTTP client names it in the header from then on (until then, by the rule without one).
   */
  private sessionRevision: string | undefined;
  private initializeKey: string | undefined;
  private lastNullAnswer = Number.NEGATIVE_INFINITY;
  /** The log's lines for messages dropped unanswered: one a second, the others counted. */
  private readonly dropped: DroppedLines;
  /** A line past the limit: its length, as a declared Content-Length, while it is judged. */
  private declared: string | undefined;

  constructor(
    private readonly options: StdioOptions,
    private readonly log: GateLog,
    private readonly hooks: GateHooks,
    private readonly answer: (text: string) => void,
  ) {
    const { telemetry, passThrough } = options;
    // The options checked as the gates check theirs; a line has no headers, so the era comes from the body alone.
    const { settings, era: eraOf } = resolveGate<undefined>(options, () => undefined, telemetry && now);
    this.face = { settings, telemetry };
    this.tracking = options.outbound === "report" || hooks.onAnswer !== undefined || telemetry !== undefined;
    this.negotiates = !passThrough;
    this.clock = options.clock ?? Date.now;
    this.dropped = new DroppedLines(log, this.clock);
    this.toolLock = passThrough ? undefined : loggedToolLock(options, log, telemetry);
    this.lockedLines = this.toolLock && new LockedLines(this.toolLock, options.maxBodyBytes);
    this.tools = passThrough ? undefined : toolsOption(options.tools);
    this.learning = this.tools?.active === true && this.tools.learns;
    // Its chunks are read only for a line past the limit, which has none.
    const gate = this;
    this.exchange = {
      contentType: JSON_TYPE,
      get contentLength() {
        return gate.declared;
      },
      get protocolVersion() {
        return gate.sessionRevision;
      },
      chunks: () => NO_CHUNKS,
      era: (body: unknown) => eraOf(undefined, body),
      facts: pipeFacts,
    };
  }

  /** Whether an initialize is waiting for the server's answer, whose revision judges the session's next lines. */
  negotiating(): boolean {
    return this.initializeKey !== undefined;
  }

  /** Whether the line goes on to the server. */
  clientLine(line: Line): boolean | Promise<boolean> {
    if (line.kind === "too-long") return this.tooLong(line.seen);
    const { tools } = this;
    // A tool's schema still compiling: the line waits for it, in order, and is judged then.
    if (tools?.compiling) return tools.settled().then(() => this.clientLine(line));
    if (isBlank(line.bytes)) return false;
    // The line is whole in memory: judged without a promise, the per-line cost the stdio bench measures. One span per
    // message, from the line read to the answer for its id (wymcp's refusal, or the server's line).
    const judged = gateBytes(this.face, line.bytes, this.exchange, pipeFacts);
    if (judged.action === "refuse") {
      const body = refusedBody(judged);
      this.refuse(judged.refusal, isResponseLike(body), body);
      judged.trace?.end();
      return false;
    }
    return this.admitted(judged);
  }

  /** Ends the spans of the requests the server never answered (it has exited); logs the count of the last burst dropped. */
  close(): void {
    this.pending.close();
    this.dropped.flush();
  }

  /** A line the server wrote, already passed on: its answer to a pending request, and the outbound check. */
  serverLine(bytes: Uint8Array): void {
    if (isBlank(bytes)) return;
    // Learning alone reads a line only while a tools/list answer is awaited: no other line is parsed for it.
    if (!this.tracking && this.initializeKey === undefined && this.tools?.awaitingList !== true) return;
    let message: unknown;
    try {
      message = JSON.parse(TEXT.decode(bytes));
    } catch {
      if (this.options.outbound === "report")
        this.log.line(
          "outbound-violation",
          { era: this.sessionEra, message: "not JSON" },
          "outbound violation: the server wrote a line that is not JSON",
        );
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) this.serverItem(item);
  }

  /** A body the admission stage passed: the checks a pipe adds (framing, the tools lock, the server's tools), then on. */
  private admitted(judged: GateAdmit): boolean {
    const { body, era, result, trace } = judged;
    if (judged.action === "accept" && this.droppedNotification(body)) {
      trace?.end();
      return false;
    }
    // A call to a tool the lock keeps out is answered here, as an unknown tool; a tools/list's answer is watched.
    const lockRefusal = this.toolLock?.refusal(body);
    if (lockRefusal) {
      this.answer(`${JSON.stringify(lockRefusal)}\n`);
      trace?.end();
      return false;
    }
    this.lockedLines?.expect(toolsListRequests(body));
    this.sessionEra = era;
    if (this.negotiates && era === "legacy" && result.kind === "request" && (body as { method?: unknown }).method === "initialize")
      this.initializeKey = keyOf(body);
    // --legacy-checks report is logged; a pass only for a subscriber.
    const admitted = admittedEvent(judged, this.hooks.onVerdict !== undefined);
    if (admitted) this.verdict(admitted);
    if (this.refusedByTools(body, era, trace)) return false;
    const waiting =
      this.tracking && (result.kind === "request" || result.kind === "batch")
        ? this.pending.remember(body, era, trace, this.sessionRevision)
        : 0;
    // Nothing will answer a notification (or a response the client sends back): its span ends as it is handed on.
    if (waiting === 0) trace?.end();
    return true;
  }

  /**
   * Over HTTP the gates answer a modern notification 202 and it goes no further; here it goes on to the server, so it
   * must at least be a JSON-RPC notification (its framing, as the legacy lane judges one). One that is not is dropped
   * (true), as JSON-RPC forbids answering a notification.
   */
  private droppedNotification(body: unknown): boolean {
    const framing = validateMcpRequest(body, "legacy");
    if (framing.outcome !== "reject") return false;
    const { response } = framing;
    this.verdict({
      outcome: "dropped",
      era: "modern",
      kind: "notification",
      id: undefined,
      ...namesOf(body, response),
      reason: "invalid-message",
      code: response.error.code,
      message: response.error.message,
    });
    return true;
  }

  /** A call the server's tools refuse is answered here (as the session's revision says) and never reaches the server. */
  private refusedByTools(body: unknown, era: Era, trace: ExchangeTrace | undefined): boolean {
    const { tools } = this;
    if (!tools) return false;
    const byTools = tools.active ? tools.judge(body, era, this.sessionRevision, undefined) : undefined;
    // A list learned since the wait in `clientLine`: this call passes unjudged rather than wait twice.
    const refusal: ToolsRefusal | undefined = byTools instanceof Promise ? undefined : byTools;
    if (refusal) {
      this.answer(`${JSON.stringify(refusal.response)}\n`);
      if (refusal.response.id !== null) notify(this.hooks.onAnswer, { id: refusal.response.id, by: "wymcp" });
      trace?.end();
      return true;
    }
    tools.sent(body);
    return false;
  }

  /** A line past the limit, never held: its length, as a declared Content-Length, gets the gates' own answer to a large body. */
  private async tooLong(seen: number): Promise<false> {
    this.declared = String(seen);
    const judged = await gateBody(this.face, this.exchange);
    this.declared = undefined;
    if (judged.action === "refuse") this.refuse(judged.refusal, false, undefined);
    judged.trace?.end();
    return false;
  }

  /** Writes wymcp's answer, or drops it: never to a response, and `id: null` at most once a second. */
  private refuse(refusal: Refusal, responseLike: boolean, body: unknown): void {
    const { response, kind } = refusal;
    const now = this.clock();
    const limited = response.id === null && now - this.lastNullAnswer < NULL_ID_ANSWER_INTERVAL_MS;
    const answered = !responseLike && kind !== "notification" && !limited;
    if (answered) {
      if (response.id === null) this.lastNullAnswer = now;
      this.answer(`${JSON.stringify(response)}\n`);
    }
    this.verdict(refusalEvent(refusal, body, answered ? "refused" : "dropped"));
    if (answered && response.id !== null) notify(this.hooks.onAnswer, { id: response.id, by: "wymcp" });
  }

  private verdict(event: VerdictEvent): void {
    if (event.outcome === "dropped") this.dropped.add(event);
    else this.log.verdict(event);
    notify(this.hooks.onVerdict, event);
  }

  /** One message the server wrote: the tools it lists, the revision it negotiates, the request it answers, the outbound check. */
  private serverItem(item: unknown): void {
    this.tools?.received(item);
    if (this.initializeKey !== undefined && isObject(item) && !Object.hasOwn(item, "method") && keyOf(item) === this.initializeKey) {
      this.initializeKey = undefined;
      const negotiated = isObject(item.result) ? item.result.protocolVersion : undefined;
      // Read as a header would be; a modern or unknown answer leaves the rule without a header in force.
      const named = legacyRevisionOf(undefined, typeof negotiated === "string" ? negotiated : undefined);
      this.sessionRevision = named.signal === "header" ? named.revision : undefined;
    }
    const request = this.pending.answered(item);
    if (request) notify(this.hooks.onAnswer, { id: request.id, by: "server" });
    if (request?.traced) answerTraced(request.traced, item);
    if (this.options.outbound === "report")
      checkServerItem(this.log, item, request, this.sessionEra, this.sessionRevision, this.face.settings.validate?.formats);
  }
}

/**
 * The log of the messages wymcp drops without an answer (junk past the once-a-second answer, a refused notification or
 * response): no answer bounds them, so their log must not cost more than the answers do. The first of a burst is logged
 * in full, the others within `NULL_ID_ANSWER_INTERVAL_MS` of it counted and logged as one line (by reason) when the
 * interval ends, when the next burst starts, or when the gate closes.
 */
class DroppedLines {
  private burstStart = Number.NEGATIVE_INFINITY;
  private count = 0;
  private readonly reasons = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: GateLog,
    private readonly clock: () => number,
  ) {}

  add(event: VerdictEvent): void {
    const now = this.clock();
    if (now - this.burstStart >= NULL_ID_ANSWER_INTERVAL_MS) {
      this.flush();
      this.burstStart = now;
      this.log.verdict(event);
      return;
    }
    this.count++;
    const reason = `${event.code ?? ""} ${event.reason ?? "invalid-message"}`.trim();
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    // The count is logged within the interval even when nothing follows the burst; the timer never holds the process.
    this.timer ??= setTimeout(() => this.flush(), NULL_ID_ANSWER_INTERVAL_MS).unref();
  }

  /** Logs the count of the messages dropped since the last one logged in full, if any. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { count, reasons } = this;
    if (count === 0) return;
    const byReason = [...reasons].map(([reason, n]) => `${reason} ×${n}`).join(", ");
    this.log.line(
      "dropped-burst",
      { count, reasons: Object.fromEntries(reasons) },
      `dropped (not answered) ${count} more message${count === 1 ? "" : "s"} within a second of the last one logged: ${byReason}`,
    );
    this.count = 0;
    reasons.clear();
  }
}

/** The requests of passing bodies the server has not answered yet, bounded by `MAX_PENDING`. */
class PendingRequests {
  private readonly pending = new Map<string, Pending>();

  /**
   * Remembers the requests of a passing body until the server answers them; returns how many are waited for. A legacy
   * request is remembered with the revision it was judged by (its own initialize's, else the session's).
   */
  remember(body: unknown, era: Era, trace: ExchangeTrace | undefined, sessionRevision: string | undefined): number {
    const { pending } = this;
    const traced: Traced | undefined = trace && { trace, waiting: 0 };
    let waiting = 0;
    for (const item of Array.isArray(body) ? body : [body]) {
      const key = keyOf(item);
      const method = (item as { method?: unknown }).method;
      if (key === undefined || typeof method !== "string") continue;
      // A request forgotten (its id used again, or the oldest past the bound) is never matched with an answer here.
      const forgotten = pending.get(key) ?? (pending.size >= MAX_PENDING ? pending.values().next().value : undefined);
      if (forgotten) {
        pending.delete(forgotten.key);
        if (forgotten.traced === traced) waiting--;
        else if (forgotten.traced) answerTraced(forgotten.traced, undefined);
      }
      const revision = era === "legacy" ? legacyRevisionOf(item, sessionRevision).revision : undefined;
      pending.set(key, { era, method, id: answerId(item), key, traced, revision });
      waiting++;
    }
    if (traced) traced.waiting = waiting;
    return waiting;
  }

  /** The pending request `item` answers, if it is a response to one; forgotten once answered. */
  answered(item: unknown): Pending | undefined {
    if (!isObject(item) || Object.hasOwn(item, "method")) return undefined;
    const key = keyOf(item);
    const request = key === undefined ? undefined : this.pending.get(key);
    if (request) this.pending.delete(key!);
    return request;
  }

  /** Ends the spans of the requests never answered (the server has exited). */
  close(): void {
    const open = new Set<Traced>();
    for (const { traced } of this.pending.values()) if (traced) open.add(traced);
    this.pending.clear();
    for (const traced of open) traced.trace.end();
  }
}

/** One request of a traced body answered (`undefined`: given up on); the trace ends with the last. */
function answerTraced(traced: Traced, item: unknown): void {
  if (item !== undefined) traced.trace.answered(item);
  if (--traced.waiting <= 0) traced.trace.end();
}

/**
 * `--outbound report` on one message the server wrote: judged in its request's era, else the session's. A legacy line is
 * judged by the revision the session negotiated, as `wymcp check` and the HTTP tap judge it: an answer by its request's,
 * the server's own message by the session's (the revision assumed without one, until then). A violation is logged.
 */
function checkServerItem(
  log: GateLog,
  item: unknown,
  request: Pending | undefined,
  sessionEra: Era,
  sessionRevision: string | undefined,
  formats: Formats | undefined,
): void {
  const era = request?.era ?? sessionEra;
  const protocolVersion =
    era === "legacy" ? (request ? request.revision : legacyRevisionOf(undefined, sessionRevision).revision) : undefined;
  const context = { era, protocolVersion, formats };
  const result = validateMcpResponse(item, request ? { ...context, method: request.method } : context);
  if (result.outcome === "pass") return;
  const { violations } = result;
  const id = isObject(item) && Object.hasOwn(item, "id") ? answerId(item) : undefined;
  const method = request?.method ?? safeMethod(item);
  log.line(
    "outbound-violation",
    { era, method, id, message: violations.message, errors: violations.errors, omitted: violations.omitted },
    `outbound violation era=${era}${method ? ` method=${JSON.stringify(method)}` : ""}${id !== undefined ? ` id=${JSON.stringify(id)}` : ""}: ${violations.message}`,
  );
}

/** A request waiting for the server's answer. */
interface Pending {
  era: Era;
  method: string;
  /** The id as wymcp would echo it. */
  id: JsonRpcId;
  key: string;
  traced: Traced | undefined;
  /** Legacy: the revision it was judged by (its session's, or its own initialize's), which judges its answer too. */
  revision: string | undefined;
}

/** The trace of one passing body, and how many of its requests are still unanswered. */
interface Traced {
  trace: ExchangeTrace;
  waiting: number;
}

/** The id of a message as a map key (a string id and a number id are different ids). */
function keyOf(item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  const id = item.id;
  return typeof id === "string" ? `s${id}` : typeof id === "number" ? `n${id}` : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether a message is itself an answer (a result or an error, or a batch of only those): JSON-RPC forbids answering
 * one, and two peers that answered junk with junk would never stop.
 */
export function isResponseLike(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0 && body.every(isResponseLike);
  return isResponse(body);
}

type ClientWriter = ReturnType<typeof clientWriter>;

/**
 * The client's output, shared by the server's bytes and wymcp's own answers. The server's go out as they come; an
 * answer of wymcp's waits for the end of the server's current line, so it never lands inside one of its messages.
 */
function clientWriter(output: Writable) {
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

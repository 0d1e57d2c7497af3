/**
 * @module node-chain: the chain's answer on a Node `ServerResponse`, the one place a Node face wraps an answer. What is
 * written for an exchange (by the SDK's handler, the next middleware, the proxy's relay, or wymcp's own answer) goes
 * through the exchange's run (core/chain.ts): its head is read once, the rewriters' bytes are what is written, and the
 * taps read each chunk after it went out. A writer of the face's own (the relay, `serveParsed`) calls it directly; a
 * handler that writes `res` itself has `res`'s `writeHead`, `write` and `end` stand in for it (`patch`), through three
 * functions every response shares, so that an exchange makes no closures.
 */
import * as nodeCrypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Refusal } from "../../core/admission.js";
import type { Admitted, AnswerHead, AnswerPipe, Chain, ChainRun, OwnAnswer, StageAnswer } from "../../core/chain.js";
import type { Era } from "../../core/era.js";
import { JoinedHeaders } from "../../core/header-body.js";
import type { ExchangeTrace } from "../../core/trace.js";

type WriteHead = (this: ServerResponse, ...args: unknown[]) => ServerResponse;
type Write = (this: ServerResponse, ...args: unknown[]) => boolean;
type End = (this: ServerResponse, ...args: unknown[]) => ServerResponse;

const ANSWER = Symbol("wymcp.chainAnswer");

/** What a writer of a face's own writes an answer to: the chain's answer on `res`, or `res` itself. */
export interface NodeOut {
  writeHead(status: number, ...rest: unknown[]): unknown;
  write(chunk: Uint8Array | string): boolean;
  end(chunk?: Uint8Array | string): unknown;
}
type Answered = ServerResponse & { [ANSWER]?: NodeAnswer };

/** The answer's headers a stage reads, found in one pass over `writeHead`'s own: their names' lengths tell most apart. */
const WANTED = ["content-type", "content-encoding", "mcp-session-id", "content-length"] as const;

/** One answer's head on Node: the status, and its headers from `writeHead`'s arguments, then from those set on `res`. */
class NodeHead implements AnswerHead {
  private found: Partial<Record<(typeof WANTED)[number], string>> | undefined;

  constructor(
    readonly status: number,
    private readonly given: unknown,
    private readonly res: ServerResponse,
    readonly own: OwnAnswer | undefined,
  ) {}

  header(name: string): string | undefined {
    if ((WANTED as readonly string[]).includes(name)) {
      this.found ??= wantedHeaders(this.given);
      const value = this.found[name as (typeof WANTED)[number]];
      if (value !== undefined) return value;
    } else {
      const value = headerIn(this.given, name);
      if (value !== undefined) return value;
    }
    return text(this.res.getHeader(name));
  }
}

/**
 * The chain's answer on `res` for one exchange. Its `writeHead`, `write` and `end` take `res`'s own arguments; each
 * chunk goes out through the run's rewriters, then past its taps. The run closes when the answer ends or `res` closes.
 */
export class NodeAnswer {
  private readonly writeHeadOf: WriteHead;
  private readonly writeOf: Write;
  private readonly endOf: End;
  private pipe: AnswerPipe | undefined;
  private opened = false;
  private mine: OwnAnswer | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly run: ChainRun,
  ) {
    this.writeHeadOf = res.writeHead as unknown as WriteHead;
    this.writeOf = res.write as unknown as Write;
    this.endOf = res.end as unknown as End;
    (res as Answered)[ANSWER] = this;
    res.once("close", closed);
  }

  /** Told before wymcp writes an answer of its own in the server's place: the stages see it as wymcp's. */
  own(answer: OwnAnswer): void {
    this.mine = answer;
  }

  /** From here on, what anything writes on `res` goes through this answer (a handler or a middleware writing it). */
  patch(): this {
    const { res } = this;
    res.writeHead = chainWriteHead as unknown as ServerResponse["writeHead"];
    res.write = chainWrite as unknown as ServerResponse["write"];
    res.end = chainEnd as unknown as ServerResponse["end"];
    return this;
  }

  writeHead(...args: unknown[]): ServerResponse {
    const { res } = this;
    const at = args.findIndex((arg) => typeof arg === "object" && arg !== null);
    this.open(typeof args[0] === "number" ? args[0] : res.statusCode, at < 0 ? undefined : args[at]);
    // A rewriter that may change the answer's length: the length is left to the chunked framing.
    if (this.pipe?.resizes) {
      res.removeHeader("content-length");
      if (at >= 0) args[at] = withoutLength(args[at]);
    }
    try {
      return this.writeHeadOf.apply(res, args);
    } catch (error) {
      // A head Node cannot write is no answer: the one written in its place is asked about afresh.
      this.pipe?.broke();
      this.pipe = undefined;
      this.opened = false;
      throw error;
    }
  }

  write(chunk: unknown, ...rest: unknown[]): boolean {
    const { res } = this;
    this.open(res.statusCode, undefined);
    const { pipe } = this;
    if (!pipe || !isData(chunk)) return this.writeOf.call(res, chunk, ...rest);
    if (!pipe.rewrites) {
      const ok = this.writeOf.call(res, chunk, ...rest);
      pipe.sent(tapped(chunk, rest[0]));
      return ok;
    }
    const callback = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
    let ok = true;
    for (const piece of pipe.rewrite(bytesOf(chunk, rest[0]))) {
      ok = this.writeOf.call(res, piece);
      pipe.sent(piece);
    }
    if (callback) queueMicrotask(callback);
    return ok && !res.writableNeedDrain;
  }

  end(...args: unknown[]): ServerResponse {
    const { res } = this;
    const chunk = typeof args[0] === "function" ? undefined : args[0];
    this.open(res.statusCode, undefined);
    const { pipe } = this;
    if (pipe?.rewrites) {
      const callback = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
      const pieces = isData(chunk) ? pipe.rewrite(bytesOf(chunk, args[1])) : [];
      pieces.push(...pipe.finish());
      if (pieces.length === 1) this.endOf.call(res, pieces[0], callback);
      else {
        for (const piece of pieces) this.writeOf.call(res, piece);
        this.endOf.call(res, callback);
      }
      for (const piece of pieces) pipe.sent(piece);
    } else {
      this.endOf.apply(res, args);
      if (pipe && isData(chunk)) pipe.sent(tapped(chunk, args[1]));
    }
    this.finished();
    return res;
  }

  /** The answer's head: the stages asked, once, what this answer is to them. */
  private open(status: number, given: unknown): void {
    if (this.opened) return;
    this.opened = true;
    const { res } = this;
    this.pipe = this.run.answer(new NodeHead(status, given, res, this.mine));
    if (this.pipe?.resizes && !res.headersSent) res.removeHeader("content-length");
  }

  private finished(): void {
    this.pipe?.ended();
    this.run.close();
  }

  /** `res` closed: an answer not ended broke off, and the exchange is over either way. */
  closed(): void {
    if (!this.res.writableFinished) this.pipe?.broke();
    this.run.close();
  }
}

function chainWriteHead(this: Answered, ...args: unknown[]): ServerResponse {
  return this[ANSWER]!.writeHead(...args);
}

function chainWrite(this: Answered, chunk: unknown, ...rest: unknown[]): boolean {
  return this[ANSWER]!.write(chunk, ...rest);
}

function chainEnd(this: Answered, ...args: unknown[]): ServerResponse {
  return this[ANSWER]!.end(...args);
}

function closed(this: Answered): void {
  this[ANSWER]?.closed();
}

function isData(chunk: unknown): chunk is string | Uint8Array {
  return typeof chunk === "string" || chunk instanceof Uint8Array;
}

/** A chunk as a tap reads it: bytes, or UTF-8 text (a string in another encoding made bytes). */
function tapped(chunk: string | Uint8Array, encoding: unknown): string | Uint8Array {
  return typeof chunk === "string" && typeof encoding === "string" && !/^utf-?8$/i.test(encoding)
    ? Buffer.from(chunk, encoding as BufferEncoding)
    : chunk;
}

function bytesOf(chunk: string | Uint8Array, encoding: unknown): Uint8Array {
  return typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : chunk;
}

function text(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? undefined : String(value[0]);
  return value === undefined || value === null ? undefined : String(value);
}

/** The first value of each wanted header among `writeHead`'s headers (an object, or a flat `[name, value, ...]` array). */
function wantedHeaders(given: unknown): Partial<Record<(typeof WANTED)[number], string>> {
  const found: Partial<Record<(typeof WANTED)[number], string>> = {};
  const take = (name: string, value: unknown) => {
    const { length } = name;
    // Only a name of one of their lengths is lower-cased: most of an answer's headers are none of them.
    if (length !== 12 && length !== 14 && length !== 16) return;
    const lower = name.toLowerCase() as (typeof WANTED)[number];
    if ((WANTED as readonly string[]).includes(lower) && found[lower] === undefined) found[lower] = text(value);
  };
  if (Array.isArray(given)) for (let i = 0; i + 1 < given.length; i += 2) take(String(given[i]), given[i + 1]);
  else if (given && typeof given === "object") for (const name in given) take(name, (given as Record<string, unknown>)[name]);
  return found;
}

function headerIn(given: unknown, wanted: string): string | undefined {
  if (Array.isArray(given)) {
    for (let i = 0; i + 1 < given.length; i += 2) if (String(given[i]).toLowerCase() === wanted) return text(given[i + 1]);
    return undefined;
  }
  if (given && typeof given === "object")
    for (const name in given) if (name.toLowerCase() === wanted) return text((given as Record<string, unknown>)[name]);
  return undefined;
}

function withoutLength(headers: unknown): unknown {
  if (Array.isArray(headers)) {
    const out: unknown[] = [];
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() !== "content-length") out.push(headers[i], headers[i + 1]);
    return out;
  }
  return Object.fromEntries(Object.entries(headers as object).filter(([name]) => name.toLowerCase() !== "content-length"));
}

/** `crypto.hash`, the one-shot digest (Node 20.12 on), which skips the Hash object `createHash` makes. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string) => string }).hash;

/** Node's own SHA-256, for the caller's digest: native, where the core's is JavaScript. */
export function nodeSha256(text: string): string {
  return oneShot ? oneShot("sha256", text) : nodeCrypto.createHash("sha256").update(text).digest("hex");
}

/** What a Node face knows of one exchange beyond its request. */
export interface NodeExchange {
  body?: unknown;
  era: Era;
  trace?: ExchangeTrace | undefined;
  bytes?: Uint8Array | undefined;
  admitted?: Admitted | undefined;
  refused?: Refusal | undefined;
}

/** The run of one exchange on `req` through `chain`, or `undefined` when nothing acts on it (an empty chain, no trace). */
export function nodeRun(chain: Chain, req: IncomingMessage, exchange: NodeExchange): ChainRun | undefined {
  if (chain.empty && exchange.trace === undefined) return undefined;
  const { headers } = req;
  const ours = req as IncomingMessage & { originalUrl?: string; auth?: unknown };
  const version = headers["mcp-protocol-version"];
  return chain.open({
    body: exchange.body,
    era: exchange.era,
    protocolVersion: Array.isArray(version) ? version[0] : version,
    headers: new JoinedHeaders(req),
    // Express strips a mount path from `req.url` (a tenant's path, say) and keeps the whole one in `originalUrl`.
    caller: { header: (name) => headers[name], url: `${headers.host}${ours.originalUrl ?? req.url}`, auth: ours.auth, sha256: nodeSha256 },
    trace: exchange.trace,
    bytes: exchange.bytes,
    admitted: exchange.admitted,
    refused: exchange.refused,
    request: req,
  });
}

/** A stage's answer in the server's place, written as wymcp's own: `200` or the tools' `400`, `application/json`. */
export function writeStageAnswer(res: ServerResponse, run: ChainRun, answer: StageAnswer): void {
  const text = JSON.stringify(answer.body);
  const out = new NodeAnswer(res, run);
  out.own({ answer: "refused", status: answer.status, reason: answer.reason });
  out.writeHead(answer.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  out.end(text);
}

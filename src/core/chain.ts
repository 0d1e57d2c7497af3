/**
 * @module chain: what happens to an exchange after the admission verdict, declared once. Each feature that acts on a
 * request or its answer is a stage, and the stages run in one order (`STAGES`): the tools lock, the server's tools, then
 * the answer's taps (the outbound check, learning the tools, the page's feed, telemetry). A stage may answer a request
 * in the server's place (a refusal), and may rewrite an answer's bytes or read them after they went out. A host runs the
 * chain through one adapter per transport (a Node `ServerResponse`, a Fetch `Response`, a stdio server's lines) and
 * never names a stage nor wraps an answer itself. Web APIs only.
 */
import type { Acceptance, Refusal } from "./admission.js";
import type { Era } from "./era.js";
import type { RequestHeaders } from "./header-body.js";
import type { ExchangeTrace } from "./trace.js";

/**
 * The stages in the one order they run. A request meets the lock before the server's tools: a call the lock keeps out
 * is the lock's to answer, and no other check judges it. An answer goes through the rewriters first (the lock drops the
 * tools it keeps out) and then past the taps in this order, each reading the bytes the client receives.
 */
export const STAGES = ["lock", "tools", "outbound", "learn", "feed", "telemetry"] as const;
export type StageName = (typeof STAGES)[number];

/** What one request carries that tells its caller apart; read only by a stage that needs the caller. */
export interface CallerSource {
  /** A request header by its lower-case name (a repeated one as the host gives it). */
  header(name: string): string | readonly string[] | null | undefined;
  /** The URL the request names: on Node its `Host` and request target, on Fetch the whole URL. */
  url: string;
  /** What the face hands the server as the caller's authentication (Node's `req.auth`, the Fetch gate's `authInfo`). */
  auth?: unknown;
  /** The host's own SHA-256 (lowercase hex of the UTF-8 bytes), where it has a faster one than the core's. */
  sha256?: ((text: string) => string) | undefined;
}

/** A body the admission stage admitted: the body it parsed, the era it judged it in, and what the validation returned. */
export type Admitted = Pick<Acceptance, "body" | "era" | "result">;

/** One exchange as the stages see it: the request after admission, and what the host knows around it. */
export interface ChainExchange {
  /** The body admitted and handed on; `undefined` for a request not judged (a GET's stream) or refused at admission. */
  readonly body: unknown;
  readonly era: Era;
  /** The request's `MCP-Protocol-Version` header, or the revision a stdio session negotiated. */
  readonly protocolVersion: string | null | undefined;
  /** The request's headers, for the header rules; `undefined` on a stream face (a line has none). */
  readonly headers: RequestHeaders | undefined;
  /** Who asks; `undefined` on a stream face, whose one client is the one caller. */
  readonly caller: CallerSource | undefined;
  readonly trace: ExchangeTrace | undefined;
  /** The request's bytes as the host read them, when it kept them (the page shows them). */
  readonly bytes?: Uint8Array | undefined;
  /** The admission's verdict: the body admitted, or the refusal answered in the server's place. */
  readonly admitted?: Admitted | undefined;
  readonly refused?: Refusal | undefined;
  /** The host's own request (Node's `IncomingMessage`, a Fetch `Request`), for a stage made for one host (the proxy's feed). */
  readonly request?: unknown;
}

/** An answer of wymcp's own, given instead of the server's: a refusal, or its word for an upstream that failed. */
export interface OwnAnswer {
  answer: "refused" | "failed";
  /** The HTTP status (HTTP faces). */
  status?: number;
  /** Why, in the log's words: a refusal's reason (`tool-locked`), or the upstream's failure (`upstream-timeout`). */
  reason?: string;
}

/** What a stage answers in the server's place: the status, the JSON-RPC answer, and its reason in the log's words. */
export interface StageAnswer {
  status: number;
  /** One JSON-RPC message, or one per request of a legacy batch. */
  body: unknown;
  reason: string;
}

/** What an answer is, known before its first byte. */
export interface AnswerHead {
  /** The HTTP status (a stdio line's is 200). */
  readonly status: number;
  /** One of the answer's headers by its lower-case name, or `undefined`. */
  header(name: string): string | undefined;
  /** Set when wymcp answers the exchange itself: stages that read only what the server says pass it by. */
  readonly own: OwnAnswer | undefined;
  /** The answer already parsed by the adapter (a stdio line, one JSON value), so that no stage parses it again. */
  readonly parsed?: { value: unknown } | undefined;
}

/** Rewrites an answer: each chunk in, what is sent in its place out. */
export interface AnswerRewriter {
  /** The answer's length may change: a `Content-Length` must not be sent. */
  readonly resizes: boolean;
  push(chunk: Uint8Array): Uint8Array[];
  end(): Uint8Array[];
}

/** Reads an answer's bytes after they went out; it never delays nor changes one. */
export interface AnswerTap {
  /** A chunk that went out; a string is UTF-8 text. */
  push(chunk: Uint8Array | string): void;
  end(): void;
  /** The answer broke off before its end. */
  abort?(): void;
}

/** Reads an answer's JSON-RPC messages (a JSON body's, each event's of a stream; a batch's one by one). */
export interface MessageTap {
  message(message: unknown): void;
}

/** What the adapter's reader makes of the bytes for the message taps: a tap, or `undefined` when it reads nothing of them. */
export type MessageReader = (head: AnswerHead, onMessage: (message: unknown) => void) => AnswerTap | undefined;

/**
 * One feature after admission. `S` is what it keeps of one exchange (`begin`'s value), handed back to its other steps.
 * Every step is optional; none may throw (a stage's failure must not break the exchange: the chain contains it).
 */
export interface Stage<S = unknown> {
  readonly name: StageName;
  /** Whether `answer` may rewrite: a stream face then holds a line the stage reads until the line is whole. */
  readonly rewrites?: boolean;
  /** As the exchange begins, whatever its verdict: what the stage keeps of it (a tap's look at the request). */
  begin?(exchange: ChainExchange): S | undefined;
  /** Whether the answer of this exchange concerns the stage (default: it does when it has `answer`). */
  reads?(exchange: ChainExchange, state: S | undefined): boolean;
  /** Before the server, for a body admitted and handed on: an answer instead of the server's, or `undefined` to pass. */
  request?(exchange: ChainExchange, state: S | undefined): StageAnswer | undefined | Promise<StageAnswer | undefined>;
  /** One answer of the exchange (the server's, or wymcp's own): a rewriter, a tap of its bytes or of its messages. */
  answer?(exchange: ChainExchange, head: AnswerHead, state: S | undefined): AnswerRewriter | AnswerTap | MessageTap | undefined;
}

/** Thrown when a chain is built with a stage named twice, or a name not in `STAGES`. */
export class ChainError extends Error {
  override name = "ChainError";
}

/** The stages a face runs, in the order of `STAGES` whatever order they are given in. */
export class Chain {
  readonly stages: readonly Stage[];
  /** Whether a stage acts on an exchange at all: without one, a host opens no run and wraps nothing. */
  readonly empty: boolean;

  constructor(
    stages: ReadonlyArray<Stage | undefined>,
    private readonly reader?: MessageReader,
  ) {
    const given = stages.filter((stage): stage is Stage => stage !== undefined);
    for (const stage of given)
      if (!STAGES.includes(stage.name) || given.filter((other) => other.name === stage.name).length > 1)
        throw new ChainError(`a chain takes each of ${STAGES.join(", ")} once: ${JSON.stringify(stage.name)}`);
    this.stages = STAGES.flatMap((name) => given.filter((stage) => stage.name === name));
    this.empty = this.stages.length === 0;
  }

  /**
   * The run of one exchange, whatever its verdict (admitted, refused at admission, not judged), or `undefined` when no
   * stage acts on it and it has no trace to end: the host then wraps nothing.
   */
  open(exchange: ChainExchange): ChainRun | undefined {
    if (this.empty && exchange.trace === undefined) return undefined;
    return new ChainRun(this.stages, exchange, this.reader);
  }
}

/** One exchange through the chain: its request, each answer, and its end. */
export class ChainRun {
  private readonly states: unknown[] | undefined;
  private closed = false;
  /** Whether a stage reads an answer of this exchange, or a trace waits for it to end. */
  readonly awaits: boolean;
  /** Whether a stage may rewrite an answer of this exchange. */
  readonly rewrites: boolean;

  constructor(
    private readonly stages: readonly Stage[],
    readonly exchange: ChainExchange,
    private readonly reader: MessageReader | undefined,
  ) {
    let states: unknown[] | undefined;
    let awaits = exchange.trace !== undefined;
    let rewrites = false;
    for (let i = 0; i < stages.length; i++) {
      const stage = stages[i]!;
      let state: unknown;
      let reads = stage.answer !== undefined;
      try {
        if (stage.begin) state = stage.begin(exchange);
        if (reads && stage.reads) reads = stage.reads(exchange, state);
      } catch {
        // A stage that cannot look at the exchange keeps nothing of it.
      }
      if (state !== undefined) (states ??= new Array(stages.length))[i] = state;
      awaits ||= reads;
      rewrites ||= reads && stage.rewrites === true;
    }
    this.states = states;
    this.awaits = awaits;
    this.rewrites = rewrites;
  }

  /**
   * Before the server, for a body admitted and handed on: each stage in order, the first answer ends it. Synchronous
   * unless a stage waits (a tool's schema still compiling).
   */
  request(): StageAnswer | undefined | Promise<StageAnswer | undefined> {
    return this.ask(0);
  }

  private ask(from: number): StageAnswer | undefined | Promise<StageAnswer | undefined> {
    const { stages, exchange } = this;
    for (let i = from; i < stages.length; i++) {
      const stage = stages[i]!;
      if (!stage.request) continue;
      const answer = stage.request(exchange, this.states?.[i]);
      if (answer instanceof Promise) return answer.then((given) => given ?? this.ask(i + 1));
      if (answer) return answer;
    }
    return undefined;
  }

  /** One answer of the exchange, as its head is known: its pipe, or `undefined` when no stage reads or rewrites it. */
  answer(head: AnswerHead): AnswerPipe | undefined {
    const { stages, exchange } = this;
    let rewriters: AnswerRewriter[] | undefined;
    let taps: AnswerTap[] | undefined;
    let messages: MessageTap[] | undefined;
    for (let i = 0; i < stages.length; i++) {
      const stage = stages[i]!;
      if (!stage.answer) continue;
      let made: ReturnType<NonNullable<Stage["answer"]>>;
      try {
        made = stage.answer(exchange, head, this.states?.[i]);
      } catch {
        continue;
      }
      if (made === undefined) continue;
      if ("resizes" in made) (rewriters ??= []).push(made);
      else if ("push" in made) (taps ??= []).push(made);
      else (messages ??= []).push(made);
    }
    if (messages) {
      const parsed = head.parsed;
      const read = parsed ? undefined : this.reader?.(head, (message) => tell(messages!, message));
      if (parsed) tell(messages, parsed.value);
      else if (read) (taps ??= []).unshift(read);
    }
    return rewriters || taps ? new AnswerPipe(rewriters, taps) : undefined;
  }

  /** The exchange is over: its answer ended or broke off, or the client went away. Its trace ends (once). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.exchange.trace?.end();
  }
}

/** A parsed answer's messages to the message taps: a batch's one by one. */
function tell(taps: readonly MessageTap[], value: unknown): void {
  if (Array.isArray(value)) for (const item of value) tell(taps, item);
  else
    for (const tap of taps)
      try {
        tap.message(value);
      } catch {
        // A tap that cannot read a message has let it go out all the same.
      }
}

/** One answer through its rewriters, then past its taps. */
export class AnswerPipe {
  /** Whether the bytes sent differ from the bytes given (a rewriter holds or replaces them). */
  readonly rewrites: boolean;
  /** Whether the answer's length may change: a `Content-Length` must not be sent. */
  readonly resizes: boolean;
  private done = false;

  constructor(
    private readonly rewriters: readonly AnswerRewriter[] | undefined,
    private readonly taps: readonly AnswerTap[] | undefined,
  ) {
    this.rewrites = rewriters !== undefined;
    this.resizes = rewriters?.some((rewriter) => rewriter.resizes) ?? false;
  }

  /** What to send for `chunk`: each rewriter's output goes through the next. */
  rewrite(chunk: Uint8Array): Uint8Array[] {
    let out = [chunk];
    for (const rewriter of this.rewriters ?? []) out = out.flatMap((piece) => rewriter.push(piece));
    return out;
  }

  /** What is left to send at the end of the answer. */
  finish(): Uint8Array[] {
    let out: Uint8Array[] = [];
    for (const rewriter of this.rewriters ?? []) out = [...out.flatMap((piece) => rewriter.push(piece)), ...rewriter.end()];
    return out;
  }

  /** A chunk that went out, to every tap. */
  sent(chunk: Uint8Array | string): void {
    const { taps } = this;
    if (taps)
      for (const tap of taps)
        try {
          tap.push(chunk);
        } catch {
          // What a tap cannot read has gone out all the same.
        }
  }

  /** The answer's last byte went out. */
  ended(): void {
    this.finishTaps(false);
  }

  /** The answer broke off before its end (the client went away, the upstream cut it). */
  broke(): void {
    this.finishTaps(true);
  }

  private finishTaps(broken: boolean): void {
    if (this.done) return;
    this.done = true;
    const { taps } = this;
    if (taps)
      for (const tap of taps)
        try {
          if (broken && tap.abort) tap.abort();
          else tap.end();
        } catch {
          // As above.
        }
  }
}

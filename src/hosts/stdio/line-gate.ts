/**
 * @module line-gate: the judging half of `wymcp stdio`: one verdict per client line (the admission stage, then the
 * face's chain), the answers wymcp writes in the server's place, and the server's lines it reads (the revision a
 * session negotiated, the requests they answer, the tools they list).
 */
import type { Refusal } from "../../core/admission.js";
import { isResponse } from "../../wire/is-response.js";
import type { JsonRpcId } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import { negotiatedRevision } from "../../outbound/negotiated-revision.js";
import { validateMcpRequest } from "../../core/validate.js";
import { type GateAdmit, gateBody, type GateFace, type GateInput, gateBytes, type TraceFacts } from "../../core/pipeline.js";
import { now, tracerOf } from "../../telemetry/traced.js";
import {
  admittedEvent,
  namesOf,
  notify,
  refusalEvent,
  refusedBody,
  unjudgedEvent,
  type GateHooks,
  type GateLog,
  type VerdictEvent,
} from "../../log/gate-log.js";
import { gateFeatures, resolveGate } from "../shared/gate-flags.js";
import { isBlank, type Line } from "../../wire/lines.js";
import { faceReports } from "../../lock/lock-log.js";
import type { Formats } from "../../core/formats.js";
import { inboundReport, type Report, type RuleState } from "../../core/rules.js";
import type { ExchangeTrace } from "../../core/trace.js";
import { toolsListRequests } from "../../lock/tool-lock.js";
import { LockedLines } from "../../lock/tool-lock-stream.js";
import type { ToolsAtEdge } from "../../tools/tools-at-edge.js";
import type { Chain, StageAnswer } from "../../core/chain.js";
import { chainOf } from "../shared/face-chain.js";

import { DroppedLines, NULL_ID_ANSWER_INTERVAL_MS } from "./dropped-lines.js";

export { NULL_ID_ANSWER_INTERVAL_MS };
import { checkServerItem } from "./outbound-lines.js";
import { answerTraced, isObject, keyOf, PendingRequests } from "./pending.js";
import type { StdioOptions } from "./stdio-options.js";

/** A line's transport, as the conventions name it: a pipe, no HTTP, no peer address, no headers. */
const PIPE: TraceFacts = {
  transport: { network: "pipe", protocol: undefined, client: undefined, header: undefined },
  headers: { protocolVersion: undefined, sessionId: undefined },
};
const pipeFacts = () => PIPE;

const JSON_TYPE = "application/json";
/** A line's exchange has no chunks to read: it is whole in memory (and a line past the limit is judged by its length). */
const NO_CHUNKS: Uint8Array[] = [];
/** The server's lines as text, as Node reads a Buffer: a byte sequence that is not UTF-8 becomes U+FFFD. */
const TEXT = new TextDecoder();

/** The judging half: one verdict per client line, the answers it writes, the server's lines it watches. */
export class LineGate {
  /** The tools lock's reader of the server's output (`--tools-lock`), or undefined. */
  readonly lockedLines: LockedLines | undefined;
  /** Whether the server's output is to be watched for a legacy session's revision at all. */
  readonly negotiates: boolean;
  /** Whether the server's lines teach the tools. */
  readonly learning: boolean;
  /** Whether the server's answers are matched to their requests (outbound report, onAnswer, spans): every line is read. */
  readonly tracking: boolean;
  private readonly face: GateFace;
  /** Where the reports of the tools, the lock and the outbound check go. */
  private readonly reportAfter: (report: Report) => void;
  /** Whether the server's lines are checked (the `outbound` rule on), and whether formats are asserted there. */
  private readonly outbound: boolean;
  private readonly formats: Formats | undefined;
  /** The framing rule's state: a modern notification that is not JSON-RPC is dropped (enforce), handed on and reported, or handed on. */
  private readonly framing: RuleState;
  private readonly pending = new PendingRequests();
  private readonly clock: () => number;
  /** One server, one set of tools: what it lists is learned from its own lines. */
  private readonly tools: ToolsAtEdge | undefined;
  /** What acts on a body after admission, in the one order of every face (core/chain.ts). */
  private readonly chain: Chain;
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
    options: StdioOptions,
    private readonly log: GateLog,
    private readonly hooks: GateHooks,
    private readonly answer: (text: string) => void,
  ) {
    const { telemetry, passThrough } = options;
    // The options checked as the gates check theirs; a line has no headers, so the era comes from the body alone.
    const { settings, era: eraOf } = resolveGate<undefined>(options, { headersOf: () => undefined, clock: telemetry && now });
    const { rules } = settings;
    // Every report to the log (one line naming the rule) and to the hooks; those after admission counted by the telemetry.
    const reports = faceReports(log, hooks, telemetry);
    this.reportAfter = reports.after;
    this.face = { settings, tracer: tracerOf(telemetry), onReport: reports.admission };
    this.outbound = rules.outbound !== "off";
    this.framing = rules.framing;
    this.formats = rules.formats === "off" ? undefined : "strict";
    this.tracking = this.outbound || hooks.onAnswer !== undefined || telemetry !== undefined;
    this.negotiates = !passThrough;
    this.clock = options.clock ?? Date.now;
    this.dropped = new DroppedLines(log, this.clock);
    const { toolLock, tools } = gateFeatures({ flags: options, rules, log, onReport: reports.after });
    this.lockedLines = toolLock && new LockedLines(toolLock, settings.maxBodyBytes);
    this.tools = tools;
    this.chain = chainOf({ toolLock, tools });
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
    if (judged.action === "unjudged") {
      // Not JSON, not UTF-8, too deep (`limits` not enforced; reported): the line goes on as the client wrote it.
      notify(this.hooks.onVerdict, unjudgedEvent(judged));
      judged.trace?.end();
      return true;
    }
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
      if (this.outbound)
        this.reportAfter({
          rule: "outbound",
          direction: "out",
          era: this.sessionEra,
          method: undefined,
          id: undefined,
          client: undefined,
          message: "the server wrote a line that is not JSON",
        });
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) this.serverItem(item);
  }

  /**
   * A body the admission stage passed: the framing a pipe adds, then the face's chain (core/chain.ts: the lock, then the
   * server's tools, as on every face), then on.
   */
  private admitted(judged: GateAdmit): boolean | Promise<boolean> {
    const { body, era, result, trace } = judged;
    if (judged.action === "accept" && this.droppedNotification(body)) {
      trace?.end();
      return false;
    }
    this.sessionEra = era;
    if (this.negotiates && era === "legacy" && result.kind === "request" && (body as { method?: unknown }).method === "initialize")
      this.initializeKey = keyOf(body);
    // A report (the params rule in report) is logged; a pass only for a subscriber.
    const admitted = admittedEvent(judged, this.hooks.onVerdict !== undefined);
    if (admitted) this.verdict(admitted);
    // A line has no headers, and its one client is the one caller; a report of a stage is an attribute of the line's span.
    const run = this.chain.open({
      body,
      era,
      protocolVersion: this.sessionRevision,
      headers: undefined,
      caller: undefined,
      trace: undefined,
    });
    const asked = run?.request();
    return asked instanceof Promise ? asked.then((answer) => this.handedOn(judged, answer)) : this.handedOn(judged, asked);
  }

  /**
   * A body the chain answered (a call the lock keeps out, or that the server's tools refuse) is answered here and never
   * reaches the server; any other goes on, its requests remembered until the server answers them.
   */
  private handedOn(judged: GateAdmit, answer: StageAnswer | undefined): boolean {
    const { body, era, result, trace } = judged;
    if (answer) {
      this.answer(`${JSON.stringify(answer.body)}\n`);
      for (const item of Array.isArray(answer.body) ? answer.body : [answer.body]) {
        const id = (item as { id?: JsonRpcId }).id;
        if (id !== undefined && id !== null) notify(this.hooks.onAnswer, { id, by: "wymcp" });
      }
      trace?.end();
      return false;
    }
    // The answer to a tools/list is watched: the lock rewrites it, then the tools learn it.
    this.lockedLines?.expect(toolsListRequests(body));
    this.tools?.sent(body);
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
   * (true), as JSON-RPC forbids answering a notification; with the framing rule in report it goes on and is reported.
   */
  private droppedNotification(body: unknown): boolean {
    if (this.framing === "off") return false;
    const framing = validateMcpRequest(body, "legacy");
    if (framing.outcome !== "reject") return false;
    const { response } = framing;
    const { code, message, data } = response.error;
    if (this.framing === "report") {
      notify(this.face.onReport, inboundReport("framing", body, "modern", { code, message, errors: data?.errors }));
      return false;
    }
    this.verdict({
      outcome: "dropped",
      era: "modern",
      kind: "notification",
      id: undefined,
      ...namesOf(body, response),
      reason: "invalid-message",
      rule: "framing",
      code,
      message,
    });
    return true;
  }

  /** A line past the limit, never held: its length, as a declared Content-Length, gets the gates' own answer to a large body. */
  private async tooLong(seen: number): Promise<false> {
    this.declared = String(seen);
    const judged = await gateBody(this.face, this.exchange);
    this.declared = undefined;
    // A line past the limit is never held, so it cannot go on: the size bound holds in every mode (reported as well
    // when `limits` is not enforced), and the client gets the gates' answer rather than a silence.
    if (judged.action === "refuse" || judged.action === "unjudged") this.refuse(judged.refusal, false, undefined);
    judged.trace?.end();
    return false;
  }

  /** The hook for one exchange's reports after admission: the face's, and its span's. */
  private tracedReport(trace: ExchangeTrace): (report: Report) => void {
    return (report) => {
      this.reportAfter(report);
      trace.report?.(report);
    };
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
      this.sessionRevision = negotiatedRevision(item);
    }
    const request = this.pending.answered(item);
    if (request) notify(this.hooks.onAnswer, { id: request.id, by: "server" });
    if (request?.traced) answerTraced(request.traced, item);
    if (this.outbound)
      checkServerItem({
        item,
        request,
        sessionEra: this.sessionEra,
        sessionRevision: this.sessionRevision,
        formats: this.formats,
        onReport: request?.traced ? this.tracedReport(request.traced.trace) : this.reportAfter,
      });
  }
}

/**
 * Whether a message is itself an answer (a result or an error, or a batch of only those): JSON-RPC forbids answering
 * one, and two peers that answered junk with junk would never stop.
 */
export function isResponseLike(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0 && body.every(isResponseLike);
  return isResponse(body);
}

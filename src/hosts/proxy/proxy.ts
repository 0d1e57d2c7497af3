/**
 * @module proxy: `wymcp proxy`, a validating reverse proxy for an MCP server written in anything. A POST is judged by
 * the gates' admission stage (`core/admission.ts`), with the era read as the official SDK routes it, and a refusal is
 * answered as `gateNode` answers it (`hosts/shared/node-answer.ts`);
 * what passes is forwarded byte for byte. Every other method goes straight through. The proxy keeps no state of its own.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { type HostPolicy, isLoopback, LOOPBACK_POLICY } from "../../core/host-origin.js";
import { answerId, errorResponse, INTERNAL_ERROR, type JsonRpcId } from "../../core/envelope.js";
import { eraWithoutBody } from "../../options/options.js";
import type { ExchangeTrace } from "../../core/trace.js";
import type { Telemetry } from "../../telemetry/telemetry.js";
import { answer as answerRefusal, DISCARD_TIMEOUT_MS, drainBound } from "../shared/node-answer.js";
import type { Chain } from "../../core/chain.js";
import type { GateAction, GateAdmit, GateRefuse, GateUnjudged } from "../../core/pipeline.js";
import { now, tracerOf } from "../../telemetry/traced.js";
import { faceReports } from "../../lock/lock-log.js";
import {
  admittedEvent,
  notify,
  type GateHooks,
  type GateLog,
  refusalEvent,
  refusedBody,
  unjudgedEvent,
  type VerdictEvent,
} from "../../log/gate-log.js";
import { outboundSettings } from "../../outbound/tap.js";
import { validateMcpResponse } from "../../outbound/validate-response.js";
import { chainOf } from "../shared/face-chain.js";
import { type GateFlags, gateFeatures, resolveGate } from "../shared/gate-flags.js";
import { NodeAnswer, nodeRun, writeStageAnswer } from "../shared/node-chain.js";
import { answerClientErrors } from "../shared/node-client-errors.js";
import { judgeNode, type NodeGateFace, screenNode } from "../shared/node-gate.js";
import { connectionNamed, forward, HOP_BY_HOP, sendJson, upstreamAgent, type Exchange, type Outcome, type Upstream } from "./forward.js";

/** Longest wait for a connection to the upstream, by default (ms). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Largest answer (not an event stream) relayed, by default: 64 MiB, room for a tool result carrying a large file. */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface ProxyOptions extends GateFlags {
  upstream: URL;
  /** Longest wait for the upstream's response headers, in ms (504 after it). */
  timeoutMs: number;
  /** Longest wait, on SIGTERM, for the requests in flight to finish, in ms. */
  drainTimeoutMs: number;
  /** Longest wait for a new connection to the upstream, in ms (502 after it); 10,000 by default. */
  connectTimeoutMs?: number;
  /** Largest answer relayed that is not an event stream, in bytes: past it, 502 (or the answer is cut); 64 MiB by default. */
  maxAnswerBytes?: number;
  /** Send the upstream's host in `Host` instead of the client's. */
  rewriteHost: boolean;
  /** Extend the client's `X-Forwarded-*` and `Forwarded` headers (a proxy in front wrote them) instead of replacing them. */
  trustProxy?: boolean;
  /** Spans and metrics for every POST judged (`--otel`: `mcpTelemetry()` over the SDK the command set up). */
  telemetry?: Telemetry;
  /**
   * `--allow-any-host`: no `Host`/`Origin` check, not even the loopback default. Otherwise `allow.hosts` (`--allowed-host`)
   * and `allow.origins` (`--allowed-origin`), given, replace the loopback default.
   */
  allowAnyHost?: boolean;
}

export interface Proxy {
  /** The request listener: give it to `http.createServer`. */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Called once the proxy listens on `host`: on a loopback address with no `--allowed-host`, `--allowed-origin` or
   * `--allow-any-host`, only the loopback names are allowed (DNS rebinding protection).
   */
  listening(host: string): void;
  /**
   * Stops serving: the server takes no new connection, idle ones close, streams of server messages (GET) end at once
   * as finished answers end (an empty stream when the server had not answered yet), and the rest in flight have until `drainTimeoutMs` to finish. Resolves to how many had to be cut off.
   */
  drain(server: http.Server): Promise<number>;
}

/** Builds the proxy; `log` gets a line per refusal and per upstream failure, `hooks` every verdict and answer. */
export function createProxy(options: ProxyOptions, log: GateLog, hooks: GateHooks = {}): Proxy {
  const relay = new Relay(options, log, hooks);
  return {
    listener: (req, res) => relay.accept(req, res),
    listening: (host) => relay.listening(host),
    drain: (server) => relay.drain(server),
  };
}

/** The upstream side's settings: the options' bounds, their defaults, and one keep-alive pool for the upstream. */
function upstreamOf(options: ProxyOptions): Upstream {
  return {
    url: options.upstream,
    timeoutMs: options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    rewriteHost: options.rewriteHost,
    trustProxy: options.trustProxy === true,
    agent: upstreamAgent(options.upstream),
  };
}

/** The proxy's face: the gates' options as resolved, and a `Host`/`Origin` policy that `listening` may still set. */
type ProxyFace = NodeGateFace & { hosts: HostPolicy | undefined };

/**
 * The proxy's state and its steps, one method each: a request screened, judged, then refused, answered here or sent
 * upstream; the requests in flight, and the drain.
 */
class Relay {
  private readonly upstream: Upstream;
  /**
   * What acts on an exchange after admission (core/chain.ts): the lock, the upstream's tools (one upstream, one set of
   * tools, learned per caller), report mode, the page's feed and telemetry.
   */
  private readonly chain: Chain;
  private readonly face: ProxyFace;
  /** The hosts the options name (`undefined`: none named, or no check). */
  private readonly given: HostPolicy | undefined;
  private readonly drainBytes: number;
  private readonly inFlight = new Map<ServerResponse, IncomingMessage>();
  private draining = false;
  /** Aborted at SIGTERM: each GET's event stream then ends cleanly (forward's `drain`). */
  private readonly drainSignal = new AbortController();

  constructor(
    private readonly options: ProxyOptions,
    private readonly log: GateLog,
    private readonly hooks: GateHooks,
  ) {
    this.upstream = upstreamOf(options);
    const { telemetry } = options;
    // The options checked as gateNode checks its own; the era by the SDK's routing, as gateNode's default.
    const gate = resolveGate<IncomingMessage>(options, {
      headersOf: (req) => req.headers,
      hosts: !options.allowAnyHost,
      clock: telemetry && now,
    });
    const { settings, hosts: given } = gate;
    const { rules } = settings;
    // Every report to the log (one line naming the rule) and to the hooks; those after admission counted by the telemetry.
    const reports = faceReports(log, hooks, telemetry);
    this.given = given;
    this.face = { ...gate, tracer: tracerOf(telemetry), hosts: options.allowAnyHost ? undefined : given, onReport: reports.admission };
    this.drainBytes = drainBound(settings.maxBodyBytes);
    this.chain = chainOf({
      ...gateFeatures({ flags: options, rules, log, onReport: reports.after }),
      // What goes back is judged by the formats policy what comes in is.
      report: outboundSettings(validateMcpResponse, rules.outbound, reports.after, rules.formats === "off" ? "annotation" : "strict"),
      telemetry,
      feed: hooks.observer?.stage,
    });
  }

  /** The request listener: the request counted in flight until its response closes; a bug of ours still answered. */
  accept(req: IncomingMessage, res: ServerResponse): void {
    this.inFlight.set(res, req);
    res.once("close", () => this.inFlight.delete(res));
    this.handle(req, res).catch(() => {
      // A bug of ours: the client gets an answer, the proxy keeps serving.
      if (!res.headersSent) sendJson(res, 500, errorResponse(null, INTERNAL_ERROR, "Internal error in the proxy"));
      else res.destroy();
    });
  }

  /** Once listening on `host`: a loopback address with no host option allows only the loopback names. */
  listening(host: string): void {
    if (!this.options.allowAnyHost && this.given === undefined && isLoopback(host)) this.face.hosts = LOOPBACK_POLICY;
  }

  /** Stops serving (see {@link Proxy.drain}); resolves to how many requests had to be cut off. */
  async drain(server: http.Server): Promise<number> {
    this.draining = true;
    server.close();
    server.closeIdleConnections();
    // A stream of server messages never finishes by itself: it ends as a finished answer does, and the client
    // reconnects (and may resume) elsewhere.
    this.drainSignal.abort();
    const deadline = Date.now() + this.options.drainTimeoutMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    const cut = this.inFlight.size;
    server.closeAllConnections();
    this.upstream.agent.destroy();
    return cut;
  }

  /** A verdict to the log and to the hook. */
  private verdict(event: VerdictEvent): void {
    this.log.verdict(event);
    notify(this.hooks.onVerdict, event);
  }

  /** Forwards one exchange; then its log line, and the answer's hook for a request. */
  private async send(req: IncomingMessage, exchange: Exchange, answers: JsonRpcId | undefined): Promise<void> {
    const outcome = await forward(this.upstream, exchange);
    logUpstream(this.log, req, outcome, exchange.id);
    if (answers !== undefined && "status" in outcome) {
      notify(this.hooks.onAnswer, { id: answers, by: outcome.kind === "answered" ? "server" : "wymcp", status: outcome.status });
    }
  }

  /** One request: screened, then judged, then refused or relayed. */
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Answers written while draining close their connection, so that the client reconnects to a live instance.
    if (this.draining) res.setHeader("connection", "close");
    // What the client names in Connection is never forwarded: it is not judged either, so the verdict is the upstream's view.
    for (const name of connectionNamed(req.headers.connection)) if (!HOP_BY_HOP.has(name)) delete req.headers[name];
    const remote = req.socket.remoteAddress;
    const screened = screenNode(req, this.face, this.options.passThrough);
    if (screened?.action === "refuse") {
      this.verdict(refusalEvent(screened.refusal, undefined, "refused", { status: true, remote }));
      return this.answerRefusal(req, res, screened);
    }
    if (screened) return this.relayUnjudged(req, res);
    let judged: GateAction;
    try {
      // One span per message, from the first byte read to the answer for its id, as gateNode traces it.
      judged = await judgeNode(req, this.face);
    } catch {
      // A body cut off mid-read means the client has gone: no one is left to answer.
      if (!req.complete) return void req.destroy();
      return sendJson(res, 500, errorResponse(null, INTERNAL_ERROR, "Internal error: the proxy failed to judge the request"));
    }
    if (judged.action === "refuse") return this.refuse(req, res, judged, remote);
    if (judged.action === "unjudged") return this.relayAsSent(req, res, judged, remote);
    return this.relayAdmitted(req, res, judged, remote);
  }

  /**
   * A body the proxy could not judge, with `limits` in `"report"` or `"off"` (reported already): forwarded as the
   * client sent it, its bytes when they were read whole, else the request's own stream (never read, or given back).
   */
  private relayAsSent(req: IncomingMessage, res: ServerResponse, judged: GateUnjudged, remote: string | undefined): Promise<void> {
    notify(this.hooks.onVerdict, unjudgedEvent(judged, { status: true, remote }));
    const { trace } = judged;
    const run = nodeRun(this.chain, req, { era: eraWithoutBody(this.face.era, req), trace, bytes: judged.bytes });
    const answer = run?.awaits ? new NodeAnswer(res, run) : undefined;
    return this.send(req, { req, res, body: judged.bytes, id: null, traceContext: carried(trace), answer }, undefined);
  }

  /** A request not judged (not a POST, or --pass-through): straight through, its body streamed. */
  private relayUnjudged(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const run = this.chain.empty ? undefined : nodeRun(this.chain, req, { era: eraWithoutBody(this.face.era, req) });
    const drain = req.method === "GET" ? this.drainSignal.signal : undefined;
    const answer = run?.awaits ? new NodeAnswer(res, run) : undefined;
    return this.send(req, { req, res, body: undefined, id: null, drain, answer }, undefined);
  }

  /** A body the gates refused: logged and answered here; the upstream never sees it. */
  private refuse(req: IncomingMessage, res: ServerResponse, judged: GateRefuse, remote: string | undefined): void {
    const { refusal } = judged;
    // The stage keeps no refused body: the log's method and name come from the bytes, parsed again, when they parsed.
    this.verdict(refusalEvent(refusal, refusedBody(judged), "refused", { status: true, remote }));
    this.answerRefusal(req, res, judged);
    const { id } = refusal.response;
    if (id !== null) notify(this.hooks.onAnswer, { id, by: "wymcp", status: refusal.status });
  }

  /**
   * A refusal written as gateNode writes it (a small refused body is read and thrown away first, so the client's
   * connection is kept), through the chain as wymcp's own answer when the chain reads it.
   */
  private answerRefusal(req: IncomingMessage, res: ServerResponse, { refusal, trace, bytes }: GateRefuse): void {
    const run = nodeRun(this.chain, req, { era: refusal.era ?? "legacy", trace, bytes, refused: refusal });
    if (run?.awaits) new NodeAnswer(res, run).patch().own({ answer: "refused", status: refusal.status, reason: refusal.reason });
    answerRefusal(req, res, refusal, DISCARD_TIMEOUT_MS, this.drainBytes);
  }

  /** An admitted body: a notification answered 202 here, a call a stage answers (the lock, the tools) answered here, the rest forwarded. */
  private async relayAdmitted(req: IncomingMessage, res: ServerResponse, judged: GateAdmit, remote: string | undefined): Promise<void> {
    const { body: parsed, era, result, trace } = judged;
    const { hooks } = this;
    const id = answerId(parsed);
    // A report (the params rule in report) is logged; a pass only for a subscriber.
    const event = admittedEvent(judged, hooks.onVerdict !== undefined, { remote });
    if (event) this.verdict(event);
    const run = nodeRun(this.chain, req, { body: parsed, era, trace, bytes: judged.bytes, admitted: judged });
    const answer = run?.awaits ? new NodeAnswer(res, run) : undefined;
    // JSON-RPC forbids answering a notification with an error: 202 whatever it holds, as gateNode answers it.
    if (judged.action === "accept") {
      (answer ?? res).writeHead(202);
      return void (answer ?? res).end();
    }
    // A call the lock keeps out, or that the upstream's tools refuse, is answered here, and the upstream never sees it.
    // Judged at once unless its tool's schema is still compiling: only then is there a promise to wait for.
    const asked = run?.request();
    const stage = asked instanceof Promise ? await asked : asked;
    if (stage) {
      writeStageAnswer(res, run!, stage);
      if (id !== null) notify(hooks.onAnswer, { id, by: "wymcp", status: stage.status });
      return;
    }
    const request = result.kind === "request" ? id : undefined;
    // The very bytes judged go on, never serialized again.
    const bytes = judged.bytes ?? new Uint8Array(0);
    return this.send(req, { req, res, body: bytes, id, traceContext: carried(trace), answer }, request);
  }
}

/** A line for what the upstream did to one request, when it is news: not a plain answer, a client gone or a drain. */
function logUpstream(log: GateLog, req: IncomingMessage, outcome: Outcome, id: JsonRpcId): void {
  if (outcome.kind === "answered" || outcome.kind === "client-gone" || outcome.kind === "drained") return;
  if (outcome.kind === "upstream-broke") {
    // Only a cut of the proxy's own (an answer past --max-answer-bytes) is news; an upstream hanging up is not.
    if (outcome.error === undefined) return;
    return log.line(
      "upstream-cut",
      { id, error: outcome.error, method: req.method, remote: req.socket.remoteAddress },
      `upstream answer cut off (${outcome.error}) to ${req.method}${id !== null ? ` id=${JSON.stringify(id)}` : ""} from ${req.socket.remoteAddress}`,
    );
  }
  const what =
    outcome.kind === "timeout"
      ? "timed out"
      : outcome.kind === "unreachable"
        ? `unreachable (${outcome.error})`
        : outcome.kind === "too-large"
          ? `answer too large (${outcome.error})`
          : `answer malformed (${outcome.error})`;
  log.line(
    `upstream-${outcome.kind}`,
    { status: outcome.status, code: INTERNAL_ERROR, id, error: outcome.error, method: req.method, remote: req.socket.remoteAddress },
    `upstream ${what}: answered ${outcome.status} to ${req.method}${id !== null ? ` id=${JSON.stringify(id)}` : ""} from ${req.socket.remoteAddress}`,
  );
}

/** Starts listening; resolves to the server and the address it listens on. */
export async function listen(proxy: Proxy, host: string, port: number): Promise<{ server: http.Server; address: AddressInfo }> {
  // What Node's HTTP parser refuses (a lying Content-Length, bad chunking) is answered as the gates answer it.
  const server = answerClientErrors(http.createServer(proxy.listener));
  // A client that half-closes after its request (FIN) still gets the answer, as HTTP/1.1 allows: Node's default aborts
  // the request in flight at the FIN, and the proxy's round trip upstream lost that race every time.
  Object.assign(server, { httpAllowHalfOpen: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  proxy.listening(host);
  return { server, address };
}

/** The span's trace context as headers for the upstream, so that a server with OpenTelemetry continues the trace. */
function carried(trace: ExchangeTrace | undefined): Record<string, string> | undefined {
  let headers: Record<string, string> | undefined;
  trace?.inject?.((name, value) => {
    (headers ??= {})[name.toLowerCase()] = value;
  });
  return headers;
}

/**
 * @module trace: what the gate pipeline and the chain hand an observer of an exchange, and nothing of how it observes:
 * the face gives the pipeline an `ExchangeTracer` (telemetry/traced.ts makes one of a `telemetry` option), the pipeline calls it
 * once per judged body, and the chain ends the `ExchangeTrace` it returns with the answer.
 */
import type { Admission } from "./admission.js";
import type { Report, RuleName } from "./rules.js";

/** The connection a body came over, as the conventions name it (`network.*`, `client.*`). */
export interface TransportFacts {
  /** `tcp` or `unix` under HTTP when the host knows it, `pipe` for stdio; `undefined` when the host cannot tell (Fetch). */
  network: "tcp" | "unix" | "pipe" | undefined;
  /** `http` with its version (`1.1`, `2`) when known; `undefined` for stdio. */
  protocol: { name: "http"; version: string | undefined } | undefined;
  /** The peer's address and port, when the host sees the socket. */
  client: { address: string; port: number | undefined } | undefined;
  /** The request's headers (trace context: `traceparent`, `tracestate`, `baggage`); `undefined` for stdio. */
  header: ((name: string) => string | undefined) | undefined;
}

/** What an observer does with one judged exchange, driven by the face. */
export interface ExchangeTrace {
  /** Runs the next handler (the server) inside the exchange's context, so that what it records nests under it. */
  run<T>(fn: () => T): T;
  /** One JSON-RPC message the server sent back on this exchange (parsed from a JSON body or one SSE event). */
  answered(message: unknown): void;
  /** The response assigned a legacy session (`Mcp-Session-Id` on an `initialize` answer). */
  session(id: string): void;
  /**
   * Hands the exchange's trace context to the next hop (`set` once per header: W3C `traceparent`, `tracestate`,
   * `baggage`), as a proxy does to the request it forwards. Optional: an observer without it hands nothing on.
   */
  inject?(set: (name: string, value: string) => void): void;
  /**
   * A rule in `"report"` found this exchange wanting after admission (a tool's arguments, a `Mcp-Param` header, the
   * lock, the server's answer): an attribute of the span, not an error. Optional.
   */
  report?(report: Report): void;
  /**
   * The answer is written whole, or the exchange ended without one (the client went away). Idempotent. `errorType`
   * (from `errorTypeOf`) when the server threw instead of answering.
   */
  end(errorType?: string): void;
}

/** The request headers a trace reads besides the body. */
export interface TracedHeaders {
  protocolVersion: string | null | undefined;
  sessionId: string | null | undefined;
}

/** One judged body, as the pipeline tells its tracer: the verdict, when the face began, and what it knows of the transport. */
export interface TracedVerdict {
  verdict: Admission;
  /** `performance.now()` when the face began with the POST. */
  startTime: number;
  transport: TransportFacts;
  headers: TracedHeaders;
  /** The rules in `"report"` the body failed (each an attribute of the span and the metric, not an error). */
  reported?: readonly RuleName[] | undefined;
  /** The refusal was not applied: `limits` is in `"report"` or `"off"`, and the body went on unjudged. */
  unjudged?: boolean;
}

/**
 * A face's observer as the pipeline calls it: one judged body in, its trace out (`undefined`: nothing recorded). It
 * must not throw.
 */
export type ExchangeTracer = (traced: TracedVerdict) => ExchangeTrace | undefined;

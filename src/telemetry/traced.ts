/**
 * @module traced: the faces' one call into their `telemetry` option, whatever the host: the pipeline's tracer
 * (core/trace.ts) made of it, where a verdict becomes a `JudgedExchange` (the facts read from the body by
 * telemetry.ts), and the observer's trace comes back guarded so that a failing observer never turns an answered
 * request into a failed one.
 */
import type { ExchangeTrace, ExchangeTracer, TracedVerdict } from "../core/trace.js";
import { MAX_NAME_UNITS, messageFacts, safeText, sessionFact, type Telemetry } from "./telemetry.js";

/** The tracer the gate pipeline calls for a face with this `telemetry` option; `undefined` with none. */
export function tracerOf(telemetry: Telemetry | undefined): ExchangeTracer | undefined {
  return telemetry && ((traced) => traceOf(telemetry, traced));
}

/**
 * Tells `telemetry` about one judged body and returns its trace (`undefined` when nothing is recorded). The verdict
 * carries the validation time and a refused body when the face's settings had a `clock`.
 */
export function traceOf(
  telemetry: Telemetry,
  { verdict, startTime, transport, headers, reported: rules, unjudged = false }: TracedVerdict,
): ExchangeTrace | undefined {
  const refused = !verdict.ok && !unjudged;
  const era = verdict.era;
  const result = verdict.ok ? verdict.result : undefined;
  // A rule in "report" failed and the message went on all the same; the server's answer is the span's.
  const reported = rules !== undefined && rules.length > 0;
  let trace: ExchangeTrace | undefined;
  try {
    // Nothing would be recorded (no SDK): the facts are not even read.
    if (telemetry.recording?.() === false) return undefined;
    const exchange: Parameters<Telemetry["judged"]>[0] = {
      verdict: refused ? "refused" : result?.outcome === "bypass" ? "bypassed" : reported || unjudged ? "reported" : "admitted",
      era,
      reason: verdict.ok ? (result?.outcome === "bypass" ? result.reason : reported ? "invalid-message" : undefined) : verdict.reason,
      code: refused ? verdict.response.error.code : undefined,
      messages: messageFacts(verdict.body, era, headers.protocolVersion ?? undefined, !verdict.ok),
      sessionId: sessionFact(era, headers.sessionId ?? undefined),
      transport,
      startTime,
      validationMs: verdict.validationMs,
    };
    if (rules !== undefined && rules.length > 0) exchange.reported = rules;
    trace = telemetry.judged(exchange);
  } catch {
    return undefined;
  }
  return trace && guarded(trace);
}

/** The observer's trace with every call contained: only the handler's own errors, run inside it, get out. */
function guarded(trace: ExchangeTrace): ExchangeTrace {
  return {
    run<T>(fn: () => T): T {
      let done: { value: T } | { error: unknown } | undefined;
      try {
        trace.run(() => {
          try {
            done = { value: fn() };
          } catch (error) {
            done = { error };
          }
        });
      } catch {
        // The observer failed around the handler: the handler's own outcome still stands.
      }
      if (done === undefined) return fn();
      if ("error" in done) throw done.error;
      return done.value;
    },
    answered: (message) => quietly(() => trace.answered(message)),
    session: (id) => quietly(() => trace.session(safeText(id, MAX_NAME_UNITS))),
    inject: (set) => quietly(() => trace.inject?.(set)),
    report: (report) => quietly(() => trace.report?.(report)),
    end: (errorType) => quietly(() => trace.end(errorType)),
  };
}

function quietly(call: () => void): void {
  try {
    call();
  } catch {
    // Telemetry must not break the exchange it watches.
  }
}

/** The clock a face with telemetry gives the admission stage (`AdmissionSettings.clock`) and starts each trace with. */
export const now = (): number => performance.now();

/**
 * @module telemetry (otel): `mcpTelemetry()`, the `Telemetry` every face takes, on OpenTelemetry. One SERVER span per
 * MCP request or notification the gate judged, from the moment it began with the body until the answer for that id was
 * written; the metrics `mcp.server.operation.duration`, `wymcp.rejections` and `wymcp.validation.duration`. Depends on
 * `@opentelemetry/api` alone; the SDK (exporters, processors, context manager) is the application's.
 */
import {
  context as contextApi,
  createNoopMeter,
  isSpanContextValid,
  metrics,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace as traceApi,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type Link,
  type Meter,
  type MeterProvider,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import {
  answerFacts,
  type AnswerFacts,
  MAX_NAME_UNITS,
  safeText,
  type JudgedExchange,
  type MessageFacts,
  type MetaTraceContext,
  type Telemetry,
} from "../telemetry/telemetry.js";
import type { Report } from "../core/rules.js";
import type { ExchangeTrace } from "../core/trace.js";
import {
  ATTR,
  EXECUTE_TOOL,
  isServerError,
  KNOWN_METHODS,
  KNOWN_REVISIONS,
  KNOWN_STATUS_CODES,
  METRIC,
  OPERATION_BUCKETS,
  OTHER,
  TOOL_ERROR,
  VALIDATION_BUCKETS,
} from "./conventions.js";
import { AttributeValues, type MetricValues } from "./attribute-values.js";

export interface McpTelemetryOptions {
  /** Where spans go; the global tracer provider by default (what the OpenTelemetry SDK registers). */
  tracerProvider?: TracerProvider;
  /** Where metrics go; the global meter provider by default, read when the first body is judged. */
  meterProvider?: MeterProvider;
  /** How trace context is read from `params._meta` and the HTTP headers (and written for a next hop); the global propagator by default. */
  propagator?: TextMapPropagator;
}

/** The instrumentation scope's name, on every span and metric. */
export const INSTRUMENTATION_SCOPE = "wymcp";

interface Instruments {
  duration: Histogram;
  rejections: Counter;
  validation: Histogram;
  reports: Counter;
  /** False for the API's no-op meter (no SDK registered): then only recording spans need the answer watched. */
  recording: boolean;
}

/** The class of the API's no-op meter, to tell it from a real one. */
const NOOP_METER = createNoopMeter().constructor;

/**
 * Spans and metrics for every POST a face judges, by the OpenTelemetry semantic conventions for MCP.
 * @example http.createServer(gateNode(handler, { telemetry: mcpTelemetry() })).listen(3000);
 * @example export default { fetch: gateFetch(handler, { telemetry: mcpTelemetry({ tracerProvider }) }) };
 */
export function mcpTelemetry({ tracerProvider, meterProvider, propagator }: McpTelemetryOptions = {}): Telemetry {
  const provider = tracerProvider ?? traceApi.getTracerProvider();
  const tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
  // The global provider before an SDK registers one: its tracer records nothing, and nothing need be built for it.
  const tracingOff = () => provider instanceof ProxyTracerProvider && provider.getDelegateTracer(INSTRUMENTATION_SCOPE) === undefined;
  let instruments: Instruments | undefined;
  // Read at first use: an SDK started after the gate was built still receives the metrics.
  const meters = (): Instruments => {
    if (instruments) return instruments;
    instruments = createInstruments((meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE));
    return instruments;
  };
  const contexts = propagator ?? propagation;
  const values = metricValues();
  return {
    recording: () => meters().recording || !tracingOff(),
    report: (report) => recordReport(meters().reports, report),
    judged(exchange) {
      const recorders = meters();
      if (!recorders.recording && tracingOff()) return undefined;
      recordBodyMetrics(recorders, exchange);
      return traceExchange(tracer, contexts, recorders, exchange, values);
    },
  };
}

/** The bounded attributes of one telemetry, shared by every face it is given to. */
function metricValues(): MetricValues {
  return {
    tools: new AttributeValues(),
    prompts: new AttributeValues(),
    protocolVersions: new AttributeValues(KNOWN_REVISIONS),
    jsonrpcVersions: new AttributeValues(),
    statusCodes: new AttributeValues(KNOWN_STATUS_CODES),
    errorTypes: new AttributeValues(new Set([TOOL_ERROR])),
  };
}

/** The four instruments on `meter`, with the conventions' units, descriptions and buckets. */
function createInstruments(meter: Meter): Instruments {
  return {
    duration: meter.createHistogram(METRIC.operationDuration, {
      unit: "s",
      description:
        "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
      advice: { explicitBucketBoundaries: OPERATION_BUCKETS },
    }),
    rejections: meter.createCounter(METRIC.rejections, {
      unit: "{rejection}",
      description: "Bodies the wymcp gate answered itself with an error instead of handing them on.",
    }),
    validation: meter.createHistogram(METRIC.validationDuration, {
      unit: "s",
      description: "Time the wymcp gate spent validating a body against its era's schema.",
      advice: { explicitBucketBoundaries: VALIDATION_BUCKETS },
    }),
    reports: meter.createCounter(METRIC.reports, {
      unit: "{report}",
      description:
        "Would-be refusals and violations of the wymcp rules in report (and of the outbound check and the tools lock), by rule: handed on, not errors.",
    }),
    recording: meter.constructor !== NOOP_METER,
  };
}

/** The body's own points: its validation time, and one rejection when the gate refused it. */
function recordBodyMetrics({ validation, rejections, reports }: Instruments, exchange: JudgedExchange): void {
  const single = exchange.messages.length === 1 ? exchange.messages[0] : undefined;
  const bodyMethod = metricMethod(single?.method);
  if (exchange.validationMs !== undefined) {
    validation.record(exchange.validationMs / 1000, withEra(exchange, { [ATTR.verdict]: exchange.verdict, [ATTR.method]: bodyMethod }));
  }
  if (exchange.verdict === "refused") {
    rejections.add(1, withEra(exchange, { [ATTR.reason]: exchange.reason ?? OTHER, [ATTR.method]: bodyMethod }));
  }
  for (const rule of exchange.reported ?? NO_RULES)
    reports.add(1, withEra(exchange, { [ATTR.reportRule]: rule, [ATTR.reportDirection]: "in", [ATTR.method]: bodyMethod }));
}

const NO_RULES: readonly string[] = Object.freeze([]);

/**
 * One span per message of the exchange, and the trace the face drives until each is answered; undefined when there is
 * nothing to watch (no operation, or nothing recorded).
 */
function traceExchange(
  tracer: Tracer,
  contexts: TextMapPropagator,
  { duration, recording }: Instruments,
  exchange: JudgedExchange,
  values: MetricValues,
): ExchangeTrace | undefined {
  const shared = connectionOf(exchange);
  const ambient = contextApi.active();
  const parents = parentFinder(contexts, ambient, exchange.transport.header);
  const open = new Map<string | number, MessageSpan>();
  const all: MessageSpan[] = [];
  for (const facts of exchange.messages) {
    const message = startMessage(tracer, exchange, facts, shared, parents(facts.traceContext), values);
    all.push(message);
    if (facts.id !== undefined && exchange.verdict !== "refused") open.set(facts.id, message);
  }
  const finish = (message: MessageSpan, answer?: AnswerFacts, errorType?: string) =>
    finishMessage(message, duration, exchange.startTime, values, answer, errorType);
  // No operation (a client's response), or nothing recorded (no SDK): the face need not watch the answer at all.
  if (all.length === 0 || (!recording && !all.some((message) => message.span.isRecording()))) return undefined;
  const runIn = all[0]?.context ?? ambient;
  return {
    run: (fn) => contextApi.with(runIn, fn),
    answered(raw) {
      if (open.size === 0) return;
      const answer = answerFacts(raw);
      if (!answer) return;
      if (answer.id === null) {
        // An error naming no request answers the whole POST (the SDK's own refusals answer id null).
        if (answer.code === undefined) return;
        for (const message of open.values()) finish(message, answer);
        open.clear();
        return;
      }
      const message = open.get(answer.id);
      if (!message) return;
      open.delete(answer.id);
      if (answer.code === undefined) declareListed(values, message.method, raw);
      finish(message, answer);
    },
    session(id) {
      if (exchange.era !== "legacy" || exchange.sessionId !== undefined) return;
      for (const message of all) if (!message.done) message.span.setAttribute(ATTR.sessionId, id);
    },
    end(errorType) {
      for (const message of all) finish(message, undefined, errorType);
      open.clear();
    },
    inject(set) {
      contexts.inject(runIn, set, headerSetter);
    },
    report(report) {
      // After admission (a tool's arguments, the lock, the server's answer): an event and the rule on each open span.
      for (const message of all) if (!message.done) addReport(message, report);
    },
  } satisfies ExchangeTrace;
}

/** Ends a message's span once: with its answer, or failed by `errorType` (a request only); then records its duration. */
function finishMessage(
  message: MessageSpan,
  duration: Histogram,
  startTime: number,
  values: MetricValues,
  answer?: AnswerFacts,
  errorType?: string,
): void {
  if (message.done) return;
  message.done = true;
  if (answer) recordAnswer(message, answer, values);
  else if (errorType !== undefined && message.isRequest) fail(message, errorType, undefined, values);
  message.span.end();
  duration.record((performance.now() - startTime) / 1000, message.metric);
}

interface MessageSpan {
  span: Span;
  context: Context;
  /** The duration metric's attributes, completed by the answer. */
  metric: Attributes;
  method: string | undefined;
  isRequest: boolean;
  done: boolean;
  /** The rules in `"report"` this message failed so far (`wymcp.report.rule`). */
  reported: readonly string[];
}

/** The connection's attributes, shared by every span of one exchange. */
interface Connection {
  network: string | undefined;
  protocolName: string | undefined;
  protocolVersion: string | undefined;
}

function connectionOf(exchange: JudgedExchange): Connection {
  const { network, protocol } = exchange.transport;
  return { network, protocolName: protocol?.name, protocolVersion: protocol?.version };
}

function withEra(exchange: JudgedExchange, attributes: Attributes): Attributes {
  if (exchange.era !== undefined) attributes[ATTR.era] = exchange.era;
  return attributes;
}

/** A method as a metric attribute: the MCP revisions' and the conventions' own names as they are, any other `_OTHER`. */
function metricMethod(method: string | undefined): string {
  return method !== undefined && KNOWN_METHODS.has(method) ? method : OTHER;
}

function startMessage(
  tracer: Tracer,
  exchange: JudgedExchange,
  facts: MessageFacts,
  shared: Connection,
  parent: { context: Context; link: SpanContext | undefined },
  values: MetricValues,
): MessageSpan {
  const method = facts.method;
  // Metric attributes: the conventions' list for mcp.server.operation.duration (mcp.resource.uri is opt-in there).
  // Built key by key: spreading and deleting keys costs more than the rest of the span put together.
  const metric: Attributes = {};
  const attributes: Attributes = {};
  const both = (key: string, value: string | undefined) => {
    if (value === undefined) return;
    metric[key] = value;
    attributes[key] = value;
  };
  // A value the client chose: as sent on the span, bounded on the metric (attribute-values.ts).
  const chosen = (key: string, value: string | undefined, bound: AttributeValues) => {
    if (value === undefined) return;
    attributes[key] = value;
    metric[key] = bound.of(value);
  };
  attributes[ATTR.method] = method ?? OTHER;
  metric[ATTR.method] = metricMethod(method);
  both(ATTR.verdict, exchange.verdict);
  if (exchange.reported !== undefined) attributes[ATTR.reportRule] = [...exchange.reported];
  both(ATTR.era, exchange.era);
  if (exchange.reason !== undefined) attributes[ATTR.reason] = exchange.reason;
  both(ATTR.network, shared.network);
  both(ATTR.protocolName, shared.protocolName);
  both(ATTR.protocolVersionNet, shared.protocolVersion);
  if (method === "tools/call") both(ATTR.operation, EXECUTE_TOOL);
  chosen(ATTR.toolName, facts.toolName, values.tools);
  chosen(ATTR.promptName, facts.promptName, values.prompts);
  chosen(ATTR.protocolVersion, facts.protocolVersion, values.protocolVersions);
  chosen(ATTR.jsonrpcVersion, facts.jsonrpcVersion, values.jsonrpcVersions);
  if (facts.idText !== undefined) attributes[ATTR.requestId] = facts.idText;
  if (facts.resourceUri !== undefined) attributes[ATTR.resourceUri] = facts.resourceUri;
  if (exchange.sessionId !== undefined) attributes[ATTR.sessionId] = exchange.sessionId;
  const client = exchange.transport.client;
  if (client !== undefined) {
    attributes[ATTR.clientAddress] = client.address;
    if (client.port !== undefined) attributes[ATTR.clientPort] = client.port;
  }
  if (exchange.verdict === "refused" && exchange.code !== undefined) {
    const code = String(exchange.code);
    chosen(ATTR.statusCode, code, values.statusCodes);
    if (isServerError(exchange.code)) chosen(ATTR.errorType, code, values.errorTypes);
  }
  const target = facts.toolName ?? facts.promptName;
  const name = target === undefined ? (method ?? OTHER) : `${method} ${target}`;
  const links: Link[] | undefined = parent.link ? [{ context: parent.link }] : undefined;
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links, startTime: exchange.startTime }, parent.context);
  if (attributes[ATTR.errorType] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
  return {
    span,
    context: traceApi.setSpan(parent.context, span),
    metric,
    method,
    isRequest: facts.id !== undefined,
    done: false,
    reported: exchange.reported ?? NO_RULES,
  };
}

function recordAnswer(message: MessageSpan, answer: AnswerFacts, values: MetricValues): void {
  if (answer.code !== undefined) {
    const code = String(answer.code);
    message.span.setAttribute(ATTR.statusCode, code);
    message.metric[ATTR.statusCode] = values.statusCodes.of(code);
    if (isServerError(answer.code)) fail(message, code, answer.message, values);
  } else if (answer.toolError && message.method === "tools/call") {
    fail(message, TOOL_ERROR, undefined, values);
  }
}

function fail(message: MessageSpan, errorType: string, description: string | undefined, values: MetricValues): void {
  message.span.setAttribute(ATTR.errorType, errorType);
  message.metric[ATTR.errorType] = values.errorTypes.of(errorType);
  message.span.setStatus(description === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: description });
}

const recordGetter: TextMapGetter<MetaTraceContext> = {
  get: (carrier, key) => carrier[key as keyof MetaTraceContext],
  keys: (carrier) => Object.keys(carrier),
};

const headerSetter: TextMapSetter<(name: string, value: string) => void> = {
  set: (carrier, key, value) => carrier(key, value),
};

const headerGetter: TextMapGetter<(name: string) => string | undefined> = {
  get: (carrier, key) => carrier(key.toLowerCase()),
  keys: () => [],
};

/**
 * The parent of each message's span, as the conventions order it: the context in `params._meta`, else the one in the
 * HTTP headers, else the ambient one (an HTTP server span, if instrumentation made one); a parent that is not the
 * ambient context links it, or the headers' context when there is no ambient one.
 */
function parentFinder(
  propagator: Pick<TextMapPropagator, "extract">,
  ambient: Context,
  header: ((name: string) => string | undefined) | undefined,
): (meta: MetaTraceContext | undefined) => { context: Context; link: SpanContext | undefined } {
  const ambientSpan = validOrUndefined(traceApi.getSpanContext(ambient));
  let fromHeaders: { context: Context; span: SpanContext } | null | undefined;
  const headers = () => {
    if (fromHeaders !== undefined) return fromHeaders;
    fromHeaders = null;
    if (header !== undefined && header("traceparent") !== undefined) {
      const extracted = propagator.extract(ambient, header, headerGetter);
      const span = validOrUndefined(traceApi.getSpanContext(extracted));
      if (span && span !== ambientSpan) fromHeaders = { context: extracted, span };
    }
    return fromHeaders;
  };
  return (meta) => {
    if (meta?.traceparent !== undefined) {
      const extracted = propagator.extract(ambient, meta, recordGetter);
      const span = validOrUndefined(traceApi.getSpanContext(extracted));
      if (span && span !== ambientSpan) return { context: extracted, link: ambientSpan ?? headers()?.span };
    }
    const viaHeaders = headers();
    if (viaHeaders) return { context: viaHeaders.context, link: ambientSpan };
    return { context: ambient, link: undefined };
  };
}

function validOrUndefined(span: SpanContext | undefined): SpanContext | undefined {
  return span !== undefined && isSpanContextValid(span) ? span : undefined;
}

/**
 * One metric point per report made after admission (the tools, the lock, the outbound check), and an event on the
 * active span when there is one; the texts are already escaped and bounded.
 */
function recordReport(counter: Counter, report: Report): void {
  const attributes: Attributes = { [ATTR.reportRule]: report.rule, [ATTR.reportDirection]: report.direction };
  if (report.era !== undefined) attributes[ATTR.era] = report.era;
  attributes[ATTR.method] = metricMethod(report.method);
  counter.add(1, attributes);
  traceApi.getActiveSpan()?.addEvent("wymcp.report", reportEvent(report));
}

/** A report on a message's span: the rule added to `wymcp.report.rule`, and an event naming it. Never an error status. */
function addReport(message: MessageSpan, report: Report): void {
  message.span.addEvent("wymcp.report", reportEvent(report));
  if (message.reported.includes(report.rule)) return;
  message.reported = [...message.reported, report.rule];
  message.span.setAttribute(ATTR.reportRule, [...message.reported]);
}

function reportEvent(report: Report): Attributes {
  const attributes: Attributes = { [ATTR.reportRule]: report.rule, [ATTR.reportDirection]: report.direction };
  if (report.tool !== undefined) attributes[ATTR.toolName] = report.tool;
  if (report.code !== undefined) attributes[ATTR.statusCode] = String(report.code);
  return attributes;
}

/** The tools or prompts a `tools/list` or `prompts/list` answer names, declared: escaped and cut as a call's name is. */
function declareListed(values: MetricValues, method: string | undefined, raw: unknown): void {
  const bound = method === "tools/list" ? values.tools : method === "prompts/list" ? values.prompts : undefined;
  if (bound === undefined) return;
  const result = (raw as { result?: unknown }).result;
  const listed =
    typeof result === "object" && result !== null
      ? (result as Record<string, unknown>)[method === "tools/list" ? "tools" : "prompts"]
      : undefined;
  if (!Array.isArray(listed)) return;
  for (const item of listed) {
    const name = typeof item === "object" && item !== null ? (item as { name?: unknown }).name : undefined;
    if (typeof name === "string" && !bound.declare(safeText(name, MAX_NAME_UNITS))) return;
  }
}

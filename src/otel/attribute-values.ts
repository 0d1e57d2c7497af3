/**
 * @module attribute-values: the values a metric attribute takes when its source chooses them freely (a client's tool or
 * prompt name, a protocol version, a server's error code). The SDK keeps one series per distinct set of attributes for
 * the life of the process, so a client that invents names must not add series at will: as the conventions rule for
 * `http.request.method`, a value outside a known set is recorded as `_OTHER`. The known set is what the server declared
 * (its `tools/list` and `prompts/list` answers) when the face has seen that; otherwise the first values seen, up to a
 * fixed number. Spans keep the value as sent: a span is exported and let go, a series is not.
 */
import { OTHER } from "./conventions.js";

/** Distinct values of one attribute recorded beyond the known and declared ones; any later one is `_OTHER`. */
export const MAX_UNDECLARED_VALUES = 100;
/** Names a server's lists may declare per attribute; past it, a name is declared no more. */
export const MAX_DECLARED_VALUES = 1_024;

const NONE: ReadonlySet<string> = new Set();

/** The values one metric attribute has been recorded with, and those it may take. */
export class AttributeValues {
  private readonly declared = new Set<string>();
  private readonly seen = new Set<string>();

  /** `known`: values always recorded as they are (the conventions' or the protocol's own). */
  constructor(private readonly known: ReadonlySet<string> = NONE) {}

  /** A value the server declared (a tool its `tools/list` answer names): recorded as it is from then on. False once full. */
  declare(value: string): boolean {
    if (this.declared.size >= MAX_DECLARED_VALUES) return false;
    this.declared.add(value);
    return true;
  }

  /**
   * The value to record: itself when known or declared; once the server has declared any, `_OTHER` for the rest (a
   * call to a tool the server does not list); before that, itself for the first `MAX_UNDECLARED_VALUES` distinct values.
   */
  of(value: string): string {
    if (this.known.has(value) || this.declared.has(value)) return value;
    if (this.declared.size > 0) return OTHER;
    if (this.seen.has(value)) return value;
    if (this.seen.size >= MAX_UNDECLARED_VALUES) return OTHER;
    this.seen.add(value);
    return value;
  }
}

/** One telemetry's bounded attributes: those of `mcp.server.operation.duration` a client or a server chooses. */
export interface MetricValues {
  tools: AttributeValues;
  prompts: AttributeValues;
  protocolVersions: AttributeValues;
  jsonrpcVersions: AttributeValues;
  statusCodes: AttributeValues;
  errorTypes: AttributeValues;
}

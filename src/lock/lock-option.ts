/**
 * @module tool-lock (hosts): a tools lock on a Fetch exchange. Before the handler, a call to a tool the lock keeps out
 * is answered here; after it, the answer to a `tools/list` goes back through the lock's rewriter
 * (outbound/tool-lock-stream.ts): judged, reported, and in enforce mode without the changed and new tools.
 */
import type { Telemetry } from "../core/telemetry.js";
import {
  type ToolDriftReport,
  ToolLockWatch,
  type ToolsLockFile,
  type ToolsLockMode,
  toolsLockOption,
  toolsListRequests,
} from "./tool-lock.js";
import { optionalFunction } from "../core/options.js";
import { lockRewriter } from "./tool-lock-stream.js";
import type { McpFetchHandler, McpFetchOptions } from "../hosts/shared/sdk-handler.js";

/** The options every face takes for a tools lock. */
export interface ToolLockOptions {
  /**
   * The tools a person approved: the parsed JSON of what `wymcp compile --lock` wrote; each `tools/list` answer that
   * drifts from it is reported (docs/security.md#pinning-the-servers-tools).
   * @default none
   */
  toolsLock?: ToolsLockFile;
  /**
   * `"report"` reports each drift; `"enforce"` also drops changed and new tools from the list the client sees and answers
   * calls to them `-32602`.
   * @default `"report"`
   */
  toolsLockMode?: ToolsLockMode;
  /**
   * Called once per `tools/list` result that drifted from the lock; it must not throw.
   * @default one `console.warn` line per drift
   */
  onToolDrift?: (report: ToolDriftReport) => void;
}

/** The option names, for a face's list of the options it knows. */
export const TOOL_LOCK_OPTIONS = ["toolsLock", "toolsLockMode", "onToolDrift"] as const;

/** The face's watch over its lock, checked when the face is built; `undefined` without a lock. */
export function toolLockOption(
  options: ToolLockOptions,
  telemetry?: Telemetry,
  onRefused?: (tools: string[]) => void,
): ToolLockWatch | undefined {
  const lock = toolsLockOption(options.toolsLock, options.toolsLockMode);
  if (!lock) return undefined;
  const hook = optionalFunction<ToolLockOptions["onToolDrift"]>("onToolDrift", options.onToolDrift) ?? warnDrift;
  return new ToolLockWatch(
    lock,
    (report) => {
      hook(report);
      telemetry?.toolDrift?.(report);
    },
    onRefused,
  );
}

/** One line per drift; the tool's name is already escaped and bounded (a server's text never writes a line of its own). */
export function driftLines(report: ToolDriftReport): string[] {
  const lines = report.drifts.map(
    ({ tool, change, fields }) => `tool ${JSON.stringify(tool)} ${change}${fields ? ` (${fields.join(", ")})` : ""} against the tools lock`,
  );
  if (report.omitted > 0) lines.push(`${report.omitted} more tools drifted from the tools lock`);
  if (report.dropped > 0) lines.push(`${report.dropped} tools left out of the list the client sees (tools lock enforced)`);
  return lines;
}

function warnDrift(report: ToolDriftReport): void {
  for (const line of driftLines(report)) console.warn(`wymcp: ${line}`);
}

/** The `200` answer to a body calling a tool the lock keeps out (enforce mode), or `undefined` to hand the body on. */
export function lockedCallResponse(watch: ToolLockWatch | undefined, body: unknown): Response | undefined {
  const refusal = watch?.refusal(body);
  // In band, as the SDKs answer an unknown tool: the JSON-RPC error is the payload, not an HTTP failure.
  return refusal && Response.json(refusal, { status: 200 });
}

/** `response` to a request with `body`, through the lock when the body asks for `tools/list`; itself otherwise. */
export function lockedResponse(watch: ToolLockWatch | undefined, body: unknown, response: Response): Response {
  if (!watch || !response.body) return response;
  const rewriter = lockRewriter(
    watch,
    toolsListRequests(body),
    response.headers.get("content-type"),
    response.headers.get("content-encoding"),
  );
  if (!rewriter) return response;
  const source = response.body.getReader();
  const headers = new Headers(response.headers);
  if (rewriter.resizes) headers.delete("content-length");
  const body$ = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const read = await source.read();
        if (read.done) {
          for (const out of rewriter.end()) controller.enqueue(out);
          return controller.close();
        }
        const out = rewriter.push(read.value);
        for (const piece of out) controller.enqueue(piece);
        if (out.length > 0) return;
      }
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(body$, { status: response.status, statusText: response.statusText, headers });
}

/** The SDK's handler behind a lock: what `gateNode` serves, so that the Response it writes is the locked one. */
export function lockedHandler<H extends McpFetchHandler>(handler: H, watch: ToolLockWatch | undefined): McpFetchHandler {
  if (!watch) return handler;
  return {
    async fetch(request: Request, options?: McpFetchOptions): Promise<Response> {
      const body = options?.parsedBody;
      return lockedCallResponse(watch, body) ?? lockedResponse(watch, body, await handler.fetch(request, options));
    },
  };
}

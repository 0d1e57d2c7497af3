/**
 * @module guard: `wymcpFetch`, the admission stage for Fetch API hosts (Hono, Workers, Deno, Bun): `Request` in, the
 * refusal's `Response` out, or `undefined` to go on; and the Fetch exchange `gateFetch` shares with it: the gate
 * pipeline on a `Request`, then the face's chain (core/chain.ts) on what it admitted, through one adapter (answer.ts).
 */
import type { Refusal, WymcpInfo } from "../../core/admission.js";
import type { Era } from "../../core/era.js";
import { eraWithoutBody } from "../../options/options.js";
import {
  type GateAction,
  gateBody,
  type GateBypass,
  type GateInput,
  type GateRefuse,
  screen,
  type TraceFacts,
} from "../../core/pipeline.js";
import type { Chain, ChainRun, StageAnswer } from "../../core/chain.js";
import { FetchHeaders } from "../../core/header-body.js";
import type { ExchangeTrace } from "../../core/trace.js";
import { type Face, type FaceOptions, resolveFace } from "../shared/face.js";
import { chainOf } from "../shared/face-chain.js";
import { chainResponse, ownResponse } from "./answer.js";

/** Options of `wymcpFetch`; `era` receives the `Request` and the parsed body (`undefined` on a GET). */
export type FetchOptions = FaceOptions<Request>;

/** What `wymcpFetch` returns: the gate, and `report` for the next handler's `Response`. */
export interface FetchGuard {
  (request: Request): Promise<Response | undefined>;
  /**
   * In report mode, the response to send instead of `response`: same status, headers and bytes, its body
   * read through a tap that checks every JSON-RPC message in it. Otherwise `response` itself.
   */
  report(request: Request, response: Response): Response;
  /**
   * Runs `fn` (the next handler) inside the telemetry context of `request`, so that the spans it makes nest under the
   * request's span; with no telemetry, just runs it. Pass its response through `report` so that the span ends with the answer.
   */
  run<T>(request: Request, fn: () => T): T;
}

/** What `wymcpOf` returns for an admitted POST: era, outcome, and the body already parsed. */
export interface FetchWymcpInfo extends WymcpInfo {
  body: unknown;
}

// Keyed by the Request itself, so the entry lives exactly as long as the request does.
const admitted = new WeakMap<Request, FetchWymcpInfo>();
const runs = new WeakMap<Request, ChainRun>();

/** The era, outcome and parsed body of a request `wymcpFetch` handed on; `undefined` for any other. */
export function wymcpOf(request: Request): FetchWymcpInfo | undefined {
  return admitted.get(request);
}

/** The Fetch faces' options, checked once, and the chain they make. */
export interface FetchFace extends Face<Request> {
  chain: Chain;
}

/**
 * The Fetch faces load no compiler of their own: a Worker's bundler refuses an import whose name is made at run time,
 * and a Worker forbids the code generation a compiler needs. Without `tools.compile`, the face says so once.
 */
const NO_COMPILER = async () => ({
  missing: "the Fetch faces load no compiler themselves (edgeCompiler() of wymcp/compile is one, where code generation is allowed)",
});

/** Checks a Fetch face's options; `extra` names the options the face itself takes beyond `FetchOptions`. */
export function resolveFetchFace(options: unknown, extra: readonly string[] = []): FetchFace {
  const face = resolveFace<Request>(options, { keys: extra, headersOf: (request) => request.headers, loadCompiler: NO_COMPILER });
  return { ...face, chain: chainOf(face) };
}

/** What the face's chain knows of an exchange on a `Request`: none when the chain is empty and nothing is traced. */
export interface FetchExchange {
  body?: unknown;
  era: Era;
  trace?: ExchangeTrace | undefined;
  /** What the face hands the handler as the caller's authentication (`gateFetch`'s `authInfo`): it tells callers apart. */
  auth?: unknown;
}

/** The run of one exchange on `request` through the face's chain, or `undefined` when nothing acts on it. */
export function runOf(face: FetchFace, request: Request, { body, era, trace, auth }: FetchExchange): ChainRun | undefined {
  if (face.chain.empty && trace === undefined) return undefined;
  const { headers } = request;
  return face.chain.open({
    body,
    era,
    protocolVersion: headers.get("mcp-protocol-version"),
    headers,
    caller: { header: (name) => headers.get(name), url: request.url, auth },
    trace,
    request,
  });
}

/** A stage's answer in the server's place, through the chain as wymcp's own. */
export function stageResponse(run: ChainRun, answer: StageAnswer): Response {
  return ownResponse(run, answer.status, JSON.stringify(answer.body), { answer: "refused", status: answer.status, reason: answer.reason });
}

/**
 * The gate pipeline on a `Request`'s body. `read` says whether the body is read from a clone (the original left for
 * the next handler) or from the request itself (gateFetch hands the parsed body on instead).
 */
export function judgeRequest(request: Request, face: FetchFace, read: "clone" | "own"): Promise<GateAction> {
  return gateBody(face, requestExchange(request, face, read));
}

/** What the gate pipeline reads of a `Request` (`judgeRequest`'s input; the bench times the same one). */
export function requestExchange(request: Request, face: FetchFace, read: "clone" | "own"): GateInput {
  const { headers } = request;
  const protocolVersion = headers.get("mcp-protocol-version");
  const contentLength = headers.get("content-length");
  return {
    contentType: headers.get("content-type"),
    contentLength,
    protocolVersion,
    chunks: () =>
      read === "own" && declaredWithin(contentLength, face.settings.maxBodyBytes)
        ? wholeBody(request)
        : // A body of no declared length is read from a clone unless `limits` is enforced: past the limit, the
          // request then still holds the whole of it for the handler.
          chunksOf(read === "clone" || face.settings.rules.limits !== "enforce" ? request.clone().body : request.body),
    era: (body) => face.era(request, body),
    // The header rules take the version read here, not a `get` of their own. A Fetch `Headers` joins a repeated header
    // with ", ": header-body.ts reads a joined value as one repeated.
    headers: new FetchHeaders(headers, protocolVersion),
    facts: () => requestFacts(request),
  };
}

/**
 * The `403` for a request whose `Host` or `Origin` the face does not allow (`allowedHosts`, `allowedOrigins`), or
 * `bypass` for a method other than POST; a host that gives no `Host` header is judged by the request URL's host.
 */
export function screenRequest(request: Request, face: FetchFace): GateRefuse | GateBypass | undefined {
  const host = face.hosts ? (request.headers.get("host") ?? urlHost(request.url)) : undefined;
  return screen(face, { host, origin: request.headers.get("origin"), method: request.method });
}

function urlHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** A refusal as a `Response` (`onReject` was told), through the run of its exchange when it has one (a trace). */
export function refusalResponse(refusal: Refusal, trace?: ExchangeTrace, face?: FetchFace, request?: Request): Response {
  const text = JSON.stringify(refusal.response);
  const run = face && request && runOf(face, request, { era: refusal.era ?? "legacy", trace });
  if (run) return ownResponse(run, refusal.status, text, { answer: "refused", status: refusal.status, reason: refusal.reason });
  return new Response(text, { status: refusal.status, headers: { "Content-Type": "application/json" } });
}

/** What a trace of a `Request` records of its transport: a Fetch host lets the gate know nothing of the socket. */
function requestFacts({ headers }: Request): TraceFacts {
  return {
    transport: { network: undefined, protocol: { name: "http", version: undefined }, client: undefined, header: headerOf(headers) },
    headers: { protocolVersion: headers.get("mcp-protocol-version"), sessionId: headers.get("mcp-session-id") },
  };
}

/**
 * Validates POSTed MCP messages; resolves to the answer for a rejected one, or to `undefined` with the
 * request's body left unread for the next handler.
 * @example const guard = wymcpFetch(); return (await guard(request)) ?? handler.fetch(request);
 * @example report mode: return (await guard(request)) ?? guard.report(request, await handler.fetch(request));
 */
export function wymcpFetch(options: FetchOptions = {}): FetchGuard {
  const face = resolveFetchFace(options);
  const report = (request: Request, response: Response): Response => {
    let run = runs.get(request);
    if (run) runs.delete(request);
    // A request not judged (a GET's stream): its answer is read by the chain all the same (the outbound check).
    else if (!face.chain.empty && !admitted.has(request)) run = runOf(face, request, { era: eraWithoutBody(face.era, request) });
    return chainResponse(response, run);
  };
  return Object.assign(
    async function wymcpFetchMiddleware(request: Request): Promise<Response | undefined> {
      const screened = screenRequest(request, face);
      if (screened?.action === "refuse") return refusalResponse(screened.refusal);
      if (screened) return undefined;
      const judged = await judgeRequest(request, face, "clone");
      const { trace } = judged;
      // The host writes it next: a Fetch handler sees no later moment.
      if (judged.action === "refuse") return refusalResponse(judged.refusal, trace, face, request);
      // Not judged (`limits` not enforced): the request goes on as the client sent it, its body unread (a clone was read).
      if (judged.action === "unjudged") {
        const run = runOf(face, request, { era: eraWithoutBody(face.era, request), trace });
        if (run) runs.set(request, run);
        return undefined;
      }
      const run = runOf(face, request, { body: judged.body, era: judged.era, trace });
      // A call the lock keeps out, or that the server's tools refuse, is answered here; the next handler never sees it.
      const asked = run?.request();
      const answer = asked instanceof Promise ? await asked : asked;
      if (answer) return stageResponse(run!, answer);
      // A guard hands a modern notification on too: the next handler answers it.
      admitted.set(request, { era: judged.era, result: judged.result, body: judged.body });
      if (run) runs.set(request, run);
      return undefined;
    },
    {
      report,
      run<T>(request: Request, fn: () => T): T {
        const trace = runs.get(request)?.exchange.trace;
        return trace ? trace.run(fn) : fn();
      },
    },
  );
}

/** A header of the request, for the trace context (`traceparent`, `tracestate`, `baggage`). */
function headerOf(headers: Headers): (name: string) => string | undefined {
  return (name) => headers.get(name) ?? undefined;
}

/** Whether the request's `Content-Length` is a body length the limit allows (the host's HTTP parser holds the client to it). */
function declaredWithin(declared: string | null, limit: number): boolean {
  if (declared === null || !/^\d+$/.test(declared.trim())) return false;
  return Number(declared) <= limit;
}

/**
 * A body of a declared length within the limit, read whole with `arrayBuffer()`: hosts read it without building a
 * stream (`@hono/node-server` reads the Node request directly, where `request.body` builds a second `Request` and a
 * web stream over it), and `readLimited` still refuses it should it come longer than the limit.
 */
async function* wholeBody(request: Request): AsyncGenerator<Uint8Array> {
  yield new Uint8Array(await request.arrayBuffer());
}

async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Past the limit this stops the clone's branch from pulling more. Not awaited: cancelling one branch
    // of a tee settles only once the other branch (the original, left for the next handler) is cancelled too.
    reader.cancel().catch(() => undefined);
  }
}

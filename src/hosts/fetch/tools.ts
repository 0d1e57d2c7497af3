/**
 * @module tools: the server's tools on a Fetch face: a `tools/call` the known tools refuse gets its answer here and never
 * reaches the handler; the answer to a `tools/list` is read as it passes, chunk by chunk, to learn the tools.
 */
import type { CallerKey } from "../../tools/caller-key.js";
import type { Era } from "../../core/era.js";
import type { ToolsAtEdge } from "../../tools/tools-at-edge.js";
import { learningTap } from "../../tools/learn-tools.js";

/**
 * The answer to a body the known tools refuse, or `undefined` to hand it on. `auth`: what the face hands the handler as
 * the caller's authentication (the gate's `authInfo`), which tells callers apart with the request's own headers.
 */
export async function refusedByTools(
  tools: ToolsAtEdge,
  request: Request,
  era: Era,
  body: unknown,
  auth?: unknown,
): Promise<Response | undefined> {
  const refusal = await tools.judge(
    body,
    era,
    request.headers.get("mcp-protocol-version"),
    request.headers,
    callerOf(tools, request, auth),
  );
  return refusal && Response.json(refusal.response, { status: refusal.status });
}

/** The response, its body read as it passes when it answers a `tools/list` (teaching the caller who asked); otherwise the response itself. */
export function learnedFrom(tools: ToolsAtEdge, body: unknown, response: Response, request: Request, auth?: unknown): Response {
  if (!tools.learns || !response.body) return response;
  const tap = learningTap(tools, body, (name) => response.headers.get(name), callerOf(tools, request, auth));
  if (!tap) return response;
  const source = response.body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await source.read();
      if (read.done) {
        quietly(() => tap.end());
        return controller.close();
      }
      controller.enqueue(read.value);
      quietly(() => tap.push(read.value));
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function callerOf(tools: ToolsAtEdge, request: Request, auth: unknown): CallerKey {
  return tools.callerOf({ header: (name) => request.headers.get(name), url: request.url, auth });
}

function quietly(run: () => void): void {
  try {
    run();
  } catch {
    // The bytes have gone on; what the tap cannot read is only not learned.
  }
}

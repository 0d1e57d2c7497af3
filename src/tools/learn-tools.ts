/**
 * @module learn-tools: the faces' learning hook, beside the outbound tap: the answer to a `tools/list` request, read
 * from the bytes a server sends back (a JSON body or the events of an SSE stream) by the tap's own reader, teaches the
 * face's tools (core/tools-at-edge.ts). It never touches the bytes; hosts pass them on first, then push them here.
 */
import type { CallerKey } from "./caller-key.js";
import type { ToolsAtEdge } from "./tools-at-edge.js";
import { createTap, type Tap } from "../outbound/tap.js";

/** A tap that teaches `caller`'s tools from the answer to `requestBody`, or `undefined` when that asks for no list. */
export function learningTap(
  tools: ToolsAtEdge,
  requestBody: unknown,
  header: (name: "content-type" | "content-encoding") => string | null | undefined,
  caller: CallerKey,
): Tap | undefined {
  const learn = tools.watch(requestBody, caller);
  return learn && createTap("legacy", requestBody, header, { onMessage: learn });
}

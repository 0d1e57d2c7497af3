/**
 * @module fuzz/adversarial/lanes: what each judgement path validates, taken from the codegen's own selection
 * (selectEra, selectEraOutbound): per lane, the definitions and the roots a message is judged against.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readEraConfigs, readFormats, selectEra, selectEraOutbound, selectEraRevisions } from "../../scripts/codegen/generate.js";
import type { JsonSchema } from "../../scripts/codegen/load-spec.js";

export type Era = "legacy" | "modern";
export type LaneKey = "inbound-modern" | "inbound-legacy" | "outbound-modern" | "outbound-legacy";

/** One definition a message reaches a validator through, and how the message is built around it. */
export interface Root {
  /** What the runtime judges it as, e.g. "tools/call (CallToolRequest)". */
  label: string;
  definition: string;
  /** Where the definition's instance sits in the message: the whole message, or its `result`. */
  at: "" | "/result";
  /** Members the instance must hold to be routed to this definition (a method, a discriminator). */
  hints: Record<string, unknown>;
  /** Outbound results: the method of the request answered. */
  method?: string;
  /** Inbound legacy: the revision whose definition the root is, sent as the `MCP-Protocol-Version` header. */
  protocolVersion?: string;
  /** Inbound legacy: the JSON-RPC members a revision's definition leaves out (before 2025-11-25), added around it. */
  envelope?: "request" | "notification";
}

export interface Lane {
  key: LaneKey;
  era: Era;
  direction: "inbound" | "outbound";
  revision: string;
  /** The definitions the lane's validators were compiled from (outbound: with the errata applied). */
  defs: Record<string, JsonSchema>;
  roots: Root[];
}

export const root = resolve(fileURLToPath(import.meta.url), "../../..");
export const schemasDir = resolve(root, "schemas");

/** A method no era's table has: the request is judged by its framing alone. */
export const UNKNOWN_METHOD = "adversarial/unknown";

/** The four lanes, in a stable order: inbound modern, inbound legacy, outbound modern, outbound legacy. */
export function loadLanes(specDir?: string): Lane[] {
  const inbound: Lane[] = [];
  const outbound: Lane[] = [];
  for (const config of readEraConfigs(schemasDir)) {
    const selection = selectEra(config, specDir);
    const era = config.era as Era;
    const revision = selection.spec.revision;
    // validateMcpRequest: a known method's definition (and its framing), any other request or notification by its framing.
    const roots: Root[] = selection.methods.map(({ method, definition }) => ({
      label: `${method} (${definition})`,
      definition,
      at: "",
      hints: { method },
    }));
    // The legacy lane judges each revision's client methods by that revision's definitions: one root per validator
    // (a definition shared by several revisions is one), reached under the header of the first revision that has it.
    const revisions = selectEraRevisions(selection, specDir);
    const seen = new Set<string>();
    for (const { revision: own, requests, notifications } of revisions?.revisions ?? []) {
      for (const [envelope, list] of [
        ["request", requests],
        ["notification", notifications],
      ] as const) {
        for (const { method, definition, validator } of list) {
          if (seen.has(validator)) continue;
          seen.add(validator);
          roots.push({
            label: `${method} (${definition}, revision ${own})`,
            definition: validator,
            at: "",
            hints: { method },
            protocolVersion: own,
            envelope,
          });
        }
      }
    }
    roots.push({
      label: "request of no known method (JSONRPCRequest)",
      definition: "JSONRPCRequest",
      at: "",
      hints: { method: UNKNOWN_METHOD },
    });
    // Modern notifications are bypassed unjudged: only the legacy lane validates them.
    if (era === "legacy")
      roots.push({
        label: "notification (JSONRPCNotification)",
        definition: "JSONRPCNotification",
        at: "",
        hints: { method: "notifications/adversarial" },
      });
    inbound.push({ key: `inbound-${era}`, era, direction: "inbound", revision, defs: revisions?.shared.defs ?? selection.defs, roots });

    const out = selectEraOutbound(selection, schemasDir);
    const outRoots: Root[] = [];
    for (const r of out.results)
      outRoots.push({
        label: `${r.method} result (${r.definition})`,
        definition: r.definition,
        at: "/result",
        hints: {},
        method: r.method,
      });
    const d = out.config.discriminator;
    const discriminated = out.results.find((r) => r.discriminated);
    if (d && discriminated) {
      outRoots.push({
        label: `${discriminated.method} ${d.value} result (${d.definition})`,
        definition: d.definition,
        at: "/result",
        hints: { [d.member]: d.value },
        method: discriminated.method,
      });
    }
    for (const n of out.notifications)
      outRoots.push({ label: `${n.method} notification (${n.definition})`, definition: n.definition, at: "", hints: { method: n.method } });
    for (const r of out.requests)
      outRoots.push({ label: `${r.method} request (${r.definition})`, definition: r.definition, at: "", hints: { method: r.method } });
    for (const e of out.errors) outRoots.push({ label: `error ${e.code} (${e.definition})`, definition: e.definition, at: "", hints: {} });
    // The framing alone judges a result of no known method, an unknown notification and an untyped error.
    outRoots.push({ label: "result of no known method (JSONRPCResultResponse)", definition: "JSONRPCResultResponse", at: "", hints: {} });
    outRoots.push({
      label: "notification of no known method (JSONRPCNotification)",
      definition: "JSONRPCNotification",
      at: "",
      hints: { method: "notifications/adversarial" },
    });
    outRoots.push({ label: "untyped error (JSONRPCErrorResponse)", definition: "JSONRPCErrorResponse", at: "", hints: {} });
    if (era === "legacy")
      outRoots.push({
        label: "server request of no known method (JSONRPCRequest)",
        definition: "JSONRPCRequest",
        at: "",
        hints: { method: UNKNOWN_METHOD },
      });
    outbound.push({ key: `outbound-${era}`, era, direction: "outbound", revision, defs: out.defs, roots: outRoots });
  }
  const order: LaneKey[] = ["inbound-modern", "inbound-legacy", "outbound-modern", "outbound-legacy"];
  return [...inbound, ...outbound].sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
}

/** `schemas/formats.json`: format name → regex source, as codegen compiles them (flag `u`). */
export function loadFormats(): Record<string, string> {
  return readFormats(schemasDir);
}

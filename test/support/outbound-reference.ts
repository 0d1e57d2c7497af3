/**
 * The outbound rules re-derived at test time from the official schema file, compiled by Ajv's 2020-12
 * class with the errata of `schemas/outbound/errata.json` applied: the reference the precompiled outbound
 * validators and `validateMcpResponse` are compared with. Written apart from scripts/codegen/select-outbound.ts
 * on purpose, so a slip in one is not silently shared by the other.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { Era } from "../../src/core/era.js";
import { readSpecSchema, repoRoot, type JsonObject } from "./spec.js";

const schemasDir = join(repoRoot, "schemas");
const readJson = (file: string) => JSON.parse(readFileSync(join(schemasDir, file), "utf8")) as JsonObject;

export const REVISIONS: Record<Era, string> = {
  legacy: readJson("legacy.json").revision as string,
  modern: readJson("modern.json").revision as string,
};

interface Config {
  requestUnions: string[];
  resultUnions: string[];
  notificationUnions: string[];
  serverRequestUnions: string[];
  resultExceptions: Record<string, string>;
  discriminator: { member: string; value: string; definition: string; allowedBy: string } | null;
}

export interface Reference {
  era: Era;
  defs: Record<string, JsonObject>;
  config: Config;
  results: Map<string, { definition: string; discriminated: boolean }>;
  notifications: Map<string, string>;
  requests: Map<string, string>;
  errors: Map<number, string>;
  /** The official definition `name`, compiled now. */
  validator(name: string): ValidateFunction;
}

/** The official schema of an era's revision with the errata applied, as the conformance suite patches it. */
export function correctedSchema(era: Era): JsonObject {
  const schema = readSpecSchema(REVISIONS[era]);
  const errata = (readJson("outbound/errata.json")[REVISIONS[era]] ?? []) as Array<{
    definition: string;
    property: string;
    type?: string;
    orNull?: true;
  }>;
  const defs = schema.$defs as Record<string, { properties: Record<string, JsonObject> }>;
  for (const { definition, property, type, orNull } of errata) {
    const properties = defs[definition]!.properties;
    const target = properties[property]!;
    if (orNull) properties[property] = { anyOf: [target, { type: "null" }] };
    else if (target.type === "integer") target.type = type!;
  }
  return schema;
}

/** The era's corrected schema compiled by Ajv at run time: formats asserted under `"strict"`, ignored (annotations) by default. */
export function reference(era: Era, mode: "annotation" | "strict" = "annotation"): Reference {
  const schema = correctedSchema(era);
  const defs = schema.$defs as Record<string, JsonObject>;
  const config = readJson(`outbound/${era}.json`) as unknown as Config;
  const formats = readJson("formats.json") as Record<string, string>;
  const ajv = new Ajv2020({
    allErrors: true,
    allowUnionTypes: true,
    strict: true,
    ...(mode === "strict"
      ? { formats: Object.fromEntries(Object.entries(formats).map(([k, v]) => [k, new RegExp(v, "u")])) }
      : { validateFormats: false }),
  });
  const id = `urn:official:${era}`;
  ajv.addSchema({ ...schema, $id: id });
  const ref = (member: unknown) =>
    String((member as JsonObject).$ref)
      .split("/")
      .pop()!;
  const members = (union: string) => ((defs[union]!.anyOf ?? defs[union]!.oneOf) as unknown[]).map(ref);
  const methodOf = (name: string) => (defs[name]!.properties as Record<string, JsonObject>).method!.const as string;
  const byMethod = (unions: string[]) => {
    const out = new Map<string, string>();
    for (const name of unions.flatMap(members)) if (!out.has(methodOf(name))) out.set(methodOf(name), name);
    return out;
  };
  const resultNames = new Set(config.resultUnions.flatMap(members));
  const results = new Map<string, { definition: string; discriminated: boolean }>();
  for (const [method, request] of byMethod(config.requestUnions)) {
    const stem = request.replace(/Request$/, "");
    const named = `${stem}Result`;
    const definition = resultNames.has(named) ? named : config.resultExceptions[method];
    assert.ok(definition, `no result for ${method}`);
    const d = config.discriminator;
    const response = d ? defs[`${stem}${d.allowedBy}`] : undefined;
    const union = ((response?.properties as Record<string, JsonObject> | undefined)?.result?.anyOf ?? []) as unknown[];
    results.set(method, { definition, discriminated: d !== null && union.map(ref).includes(d.definition) });
  }
  const errors = new Map<number, string>();
  for (const name of Object.keys(defs).sort()) {
    const parts = ((defs[name]!.properties as Record<string, JsonObject> | undefined)?.error?.allOf ?? []) as JsonObject[];
    for (const part of parts) {
      const code = (part.properties as Record<string, JsonObject> | undefined)?.code?.const;
      if (typeof code === "number") errors.set(code, name);
    }
  }
  const cache = new Map<string, ValidateFunction>();
  return {
    era,
    defs,
    config,
    results,
    notifications: byMethod(config.notificationUnions),
    requests: byMethod(config.serverRequestUnions),
    errors,
    validator(name) {
      let v = cache.get(name);
      if (!v) cache.set(name, (v = ajv.getSchema(`${id}#/$defs/${name}`) ?? assert.fail(`no ${name}`)));
      return v;
    },
  };
}

/** One validation the rules call for: a definition, on the message or on its `result`. */
export interface Step {
  definition: string;
  ofResult: boolean;
}

/**
 * The rules of `validateMcpResponse`, restated: the envelope of the message's kind, then the most specific
 * definition; `null` when the message is refused before any schema (a modern server's request).
 */
export function steps(r: Reference, message: unknown, method: string | undefined): { definition: string; steps: Step[] } | null {
  const on = (...names: string[]) => names.map((definition) => ({ definition, ofResult: false }));
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return { definition: "JSONRPCMessage", steps: on("JSONRPCMessage") };
  const m = message as Record<string, unknown>;
  if ("method" in m) {
    const own = m.method as string;
    if ("id" in m) {
      if (r.era === "modern") return null;
      const def = r.requests.get(own);
      return { definition: def ?? "JSONRPCRequest", steps: on("JSONRPCRequest", ...(def ? [def] : [])) };
    }
    const def = r.notifications.get(own);
    return { definition: def ?? "JSONRPCNotification", steps: on("JSONRPCNotification", ...(def ? [def] : [])) };
  }
  if ("error" in m) {
    const code = (m.error as { code?: unknown } | null)?.code;
    const def = typeof code === "number" ? r.errors.get(code) : undefined;
    return { definition: def ?? "JSONRPCErrorResponse", steps: on("JSONRPCErrorResponse", ...(def ? [def] : [])) };
  }
  if ("result" in m) {
    const known = method === undefined ? undefined : r.results.get(method);
    const d = r.config.discriminator;
    const result = m.result as Record<string, unknown> | null;
    let def = known?.definition;
    if (d && (!known || known.discriminated) && typeof result === "object" && result !== null && result[d.member] === d.value)
      def = d.definition;
    const framing = on("JSONRPCResultResponse");
    return def
      ? { definition: def, steps: [...framing, { definition: def, ofResult: true }] }
      : { definition: "JSONRPCResultResponse", steps: framing };
  }
  return { definition: "JSONRPCMessage", steps: on("JSONRPCMessage") };
}

/** The reference verdict: "valid", or "invalid" with the sorted failing locations (Ajv's raw instancePaths). */
export function referenceVerdict(r: Reference, message: unknown, method: string | undefined): { definition: string; verdict: string } {
  const plan = steps(r, message, method);
  if (!plan) return { definition: "JSONRPCRequest", verdict: "invalid " };
  const paths = new Set<string>();
  let valid = true;
  for (const { definition, ofResult } of plan.steps) {
    const validate = r.validator(definition);
    const value = ofResult ? (message as { result: unknown }).result : message;
    if (!validate(value)) {
      valid = false;
      for (const e of validate.errors ?? []) paths.add(`${ofResult ? "/result" : ""}${e.instancePath}`);
    }
  }
  // Of no kind: the union cannot pass such a value, but the rules refuse it even if it did.
  if (plan.definition === "JSONRPCMessage" && valid) valid = false;
  return { definition: plan.definition, verdict: valid ? "valid" : `invalid ${[...paths].sort().join(" ")}` };
}
